#include "core/protocol.h"

namespace hail {

const char* wire_protocol_name(WireProtocol protocol) {
  switch (protocol) {
    case WireProtocol::kHttp09:
      return "http/0.9";
    case WireProtocol::kHttp10:
      return "http/1.0";
    case WireProtocol::kHttp11:
      return "http/1.1";
    case WireProtocol::kHttp2:
      return "h2";
  }
  return "?";
}

WireProtocol ProtocolSet::http1() const {
  for (WireProtocol p : {WireProtocol::kHttp09, WireProtocol::kHttp10, WireProtocol::kHttp11}) {
    if (contains(p)) return p;
  }
  return WireProtocol::kHttp11;
}

std::string ProtocolSet::name() const {
  const bool h1 = contains(WireProtocol::kHttp09) || contains(WireProtocol::kHttp10) ||
                  contains(WireProtocol::kHttp11);
  if (!speaks_h2()) return wire_protocol_name(http1());
  if (!h1) return "h2";
  return std::string("h2+") + wire_protocol_name(http1());
}

}  // namespace hail
