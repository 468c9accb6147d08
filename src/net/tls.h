// TLS over a connected non-blocking socket with OpenSSL 3 (Debian libssl-dev): client and server
// contexts and the TlsTransport they create. A context is built once per worker thread (client) or
// per reactor thread (server) and only used by that thread: no SSL_CTX is shared between threads,
// so no OpenSSL lock is taken on the hot path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "net/transport.h"

namespace hail {

struct TlsClientConfig {
  std::string sni;                // server name sent in SNI; empty: none (an IP literal)
  std::vector<std::string> alpn;  // offered in this order ({"h2", "http/1.1"}); empty: no ALPN
  int min_version = 0;            // TLS1_2_VERSION, ...; 0: OpenSSL's default
  int max_version = 0;            // 0: the highest OpenSSL supports
  std::string ciphers;       // TLS <= 1.2 cipher list (SSL_CTX_set_cipher_list); empty: default
  std::string ciphersuites;  // TLS 1.3 suites (SSL_CTX_set_ciphersuites); empty: default
  bool verify = false;       // check the certificate chain and the host name (sni / host)
  std::string verify_host;   // the name the certificate must match when verify is on
  std::string ca_file;       // PEM bundle to trust; empty: the system's default paths
  bool resume = true;        // resume each connection's previous session on reconnect
};

struct TlsServerConfig {
  std::string cert_file;  // PEM certificate chain
  std::string key_file;   // PEM private key
  std::string cert_pem;   // ... or the PEM text itself (generate_self_signed), when set
  std::string key_pem;
  std::vector<std::string> alpn;  // accepted, in the server's order of preference ({"h2", ...})
  int min_version = 0;            // TLS1_2_VERSION, ...; 0: OpenSSL's default
  int max_version = 0;            // 0: the highest OpenSSL supports
  // Session-ticket keys (kTicketKeysBytes, from new_ticket_keys()) shared by every context of one
  // server, so that a ticket issued by one reactor resumes on another; empty: per-context keys.
  std::string ticket_keys;
};

// "1.0", "1.1", "1.2", "1.3" (also "tls1.2", "TLSv1.2") -> TLS1_x_VERSION; errors name the value.
Result<int> parse_tls_version(const std::string& text);

class TlsClientContext {
 public:
  // Validates everything up front (cipher lists, CA file, versions) with one-line errors.
  static Result<std::unique_ptr<TlsClientContext>> create(const TlsClientConfig& config);
  ~TlsClientContext();
  TlsClientContext(const TlsClientContext&) = delete;
  TlsClientContext& operator=(const TlsClientContext&) = delete;

  // A transport for one connection; it keeps that connection's last session for resumption. The
  // context must outlive its transports.
  std::unique_ptr<Transport> new_transport();

 private:
  TlsClientContext() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class TlsServerContext {
 public:
  static Result<std::unique_ptr<TlsServerContext>> create(const TlsServerConfig& config);
  ~TlsServerContext();
  TlsServerContext(const TlsServerContext&) = delete;
  TlsServerContext& operator=(const TlsServerContext&) = delete;

  // The context must outlive its transports.
  std::unique_ptr<Transport> new_transport();
  // Full handshakes and resumed ones (session tickets) accepted so far by this context.
  uint64_t handshakes() const;
  uint64_t resumed() const;

 private:
  TlsServerContext() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A throw-away self-signed certificate and key (EC P-256, valid for 30 days) for `common_name`,
// with subjectAltName DNS:<name>, DNS:localhost, IP:127.0.0.1, IP:::1 (IP:<name> instead of
// DNS:<name> when the name is an IP address); PEM text (the key as PKCS#8).
struct PemPair {
  std::string cert_pem;
  std::string key_pem;
};
Result<PemPair> generate_self_signed(const std::string& common_name);

// Random session-ticket keys for TlsServerConfig::ticket_keys (name, HMAC and AES keys).
constexpr size_t kTicketKeysBytes = 80;
Result<std::string> new_ticket_keys();

}  // namespace hail
