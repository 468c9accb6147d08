#include "http/session_factory.h"

#include <algorithm>

#include "http/block_cache.h"
#include "http/http1_client_session.h"

namespace hail {

SessionFactory::SessionFactory(const SessionSettings& settings)
    : settings_(settings), h2_blocks_(std::make_shared<BlockCache>()) {}

WireProtocol SessionFactory::protocol_for(std::string_view alpn) const {
  const bool h2 = settings_.protocol == HttpProtocol::kHttp2 ||
                  (settings_.protocol == HttpProtocol::kAuto && alpn == "h2");
  if (h2) return WireProtocol::kHttp2;
  if (settings_.http09) return WireProtocol::kHttp09;
  return settings_.http_minor == 0 ? WireProtocol::kHttp10 : WireProtocol::kHttp11;
}

const char* SessionFactory::alpn_refusal(bool tls, std::string_view alpn) const {
  if (!tls || settings_.protocol != HttpProtocol::kHttp2 || alpn == "h2") return nullptr;
  return "ALPN: the server did not select h2 (--h2 over TLS needs it)";
}

std::unique_ptr<ClientSession> SessionFactory::make(WireProtocol protocol) const {
  if (protocol == WireProtocol::kHttp2) {
    return std::make_unique<H2ClientSession>(settings_.h2, h2_blocks_);
  }
  return std::make_unique<Http1ClientSession>(settings_.pipeline,
                                              protocol == WireProtocol::kHttp09);
}

uint32_t SessionFactory::max_in_flight() const {
  return std::max({settings_.pipeline, settings_.h2.max_streams, 1u});
}

}  // namespace hail
