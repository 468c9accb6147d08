// SessionFactory: the one place where a connection's HTTP version is chosen (from the run's choice
// and what TLS's ALPN negotiated) and its ClientSession is made. Built once per worker from the
// run's settings, read-only afterwards; used by that worker's connections on its thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "core/protocol.h"
#include "http/client_session.h"
#include "http/h2_client_session.h"

namespace hail {

// Which HTTP a run asks for: HTTP/2 when TLS's ALPN picks it (kAuto), always (--h2: ALPN h2 only,
// or prior-knowledge h2c in cleartext), or never (--h1).
enum class HttpProtocol : uint8_t { kAuto, kHttp1, kHttp2 };

struct SessionSettings {
  HttpProtocol protocol = HttpProtocol::kAuto;
  uint32_t pipeline = 1;  // HTTP/1.1 requests in flight per connection
  bool http09 = false;
  int http_minor = 1;  // of the requests sent over HTTP/1
  H2Settings h2;
};

class SessionFactory {
 public:
  explicit SessionFactory(const SessionSettings& settings);
  // Not copyable: a copy would share h2_blocks_ with another thread.
  SessionFactory(const SessionFactory&) = delete;
  SessionFactory& operator=(const SessionFactory&) = delete;

  // The protocol of a connection whose TLS handshake selected `alpn` ("" for cleartext or none).
  WireProtocol protocol_for(std::string_view alpn) const;
  // Why a TLS connection whose handshake selected `alpn` cannot be used, or nullptr: --h2 over
  // TLS needs the server to select h2 (RFC 9113 §3.2); speaking HTTP/2 to a server that chose
  // nothing would only earn a closed connection or an HTTP/1.1 error page.
  const char* alpn_refusal(bool tls, std::string_view alpn) const;
  // A session for that protocol, ready for reset(). Connections keep theirs across reconnects.
  std::unique_ptr<ClientSession> make(WireProtocol protocol) const;
  // Requests a connection may have in flight at most, whichever protocol it speaks.
  uint32_t max_in_flight() const;

 private:
  SessionSettings settings_;
  std::shared_ptr<BlockCache> h2_blocks_;  // nghttp2's memory for this worker's HTTP/2 sessions
};

}  // namespace hail
