// Internal to src/net/tls*.cc: what a TLS context shares with the transports it makes, and the
// transport factory. A context and its transports belong to one thread (a load worker or a server
// reactor).
#pragma once

#include <openssl/ssl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/transport.h"

namespace hail {

// What the transports of one context share with it; lives as long as the context.
struct TlsShared {
  SSL_CTX* ctx = nullptr;
  bool server = false;
  std::vector<std::string> alpn;  // the context's protocols: alpn() views point into these
  // Client.
  std::string sni;
  bool resume = false;
  // Server: handshakes completed by its transports (one thread: plain counters).
  uint64_t handshakes = 0;
  uint64_t resumed = 0;
};

// A static description of one OpenSSL error code.
const char* tls_error_code_reason(unsigned long code);

// One SSL per connection over a non-blocking socket, made by a context; shared outlives it.
std::unique_ptr<Transport> make_tls_transport(TlsShared* shared);

// The new-session callback of client contexts: keeps the transport's newest session (TLS 1.3
// tickets arrive after the handshake, during a read). Returns 1 when it took the reference.
int tls_keep_new_session(SSL* ssl, SSL_SESSION* session);

}  // namespace hail
