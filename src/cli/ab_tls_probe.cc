#include "cli/ab_tls_probe.h"

#include <fcntl.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "core/clock.h"
#include "core/strings.h"
#include "core/url.h"
#include "net/connect_probe.h"

namespace hail {

namespace {

// Long enough for a loaded server, short enough not to hold the report back noticeably.
constexpr int kProbeTimeoutMs = 3000;

struct SslFree {
  void operator()(SSL_CTX* p) const { SSL_CTX_free(p); }
  void operator()(SSL* p) const { SSL_free(p); }
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
};

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// A blocking socket connected to host:port within kProbeTimeoutMs, with send/receive timeouts.
int connect_with_timeout(const std::string& host, uint16_t port) {
  ProbeOutcome outcome;
  const int fd = connect_first(host, port, kProbeTimeoutMs * kNsPerMs, &outcome);
  if (fd < 0) return -1;
  const int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  timeval tv{kProbeTimeoutMs / 1000, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  return fd;
}

// ab's wording for the server's ephemeral key.
std::string temp_key_text(EVP_PKEY* key) {
  const int bits = EVP_PKEY_bits(key);
  switch (EVP_PKEY_id(key)) {
    case EVP_PKEY_RSA:
      return string_printf("RSA %d bits", bits);
    case EVP_PKEY_DH:
      return string_printf("DH %d bits", bits);
    case EVP_PKEY_EC: {
      char group[80];
      size_t len = 0;
      if (!EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group,
                                          &len)) {
        group[0] = '?';
        group[1] = '\0';
      }
      return string_printf("ECDH %s %d bits", group, bits);
    }
    default:
      return string_printf("%s %d bits", OBJ_nid2sn(EVP_PKEY_id(key)), bits);
  }
}

}  // namespace

AbTlsFacts probe_ab_tls_facts(const RunOptions& run, const RunResult& result) {
  AbTlsFacts facts;
  if (!result.tls_version.empty()) {
    facts.protocol = result.tls_version + "," + result.tls_cipher + ",0,0";
  }
  const std::string& host = run.connect_host.empty() ? run.url.host : run.connect_host;
  const uint16_t port = run.connect_port != 0 ? run.connect_port : run.url.port;
  std::unique_ptr<SSL_CTX, SslFree> ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return facts;
  if (run.tls.min_version != 0) SSL_CTX_set_min_proto_version(ctx.get(), run.tls.min_version);
  if (run.tls.max_version != 0) SSL_CTX_set_max_proto_version(ctx.get(), run.tls.max_version);
  if (!run.tls.ciphers.empty()) SSL_CTX_set_cipher_list(ctx.get(), run.tls.ciphers.c_str());
  if (!run.tls.ciphersuites.empty()) {
    SSL_CTX_set_ciphersuites(ctx.get(), run.tls.ciphersuites.c_str());
  }
  Fd fd(connect_with_timeout(host, port));
  if (fd.get() < 0) return facts;
  std::unique_ptr<SSL, SslFree> ssl(SSL_new(ctx.get()));
  if (!ssl || SSL_set_fd(ssl.get(), fd.get()) != 1) return facts;
  const std::string sni = !run.tls.sni.empty() ? run.tls.sni : run.url.host;
  if (!is_ip_literal(sni)) SSL_set_tlsext_host_name(ssl.get(), sni.c_str());
  if (SSL_connect(ssl.get()) != 1) return facts;
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl.get());
  int unused = 0;
  const int cipher_bits = SSL_CIPHER_get_bits(cipher, &unused);
  int key_bits = 0;
  std::unique_ptr<X509, SslFree> cert(SSL_get1_peer_certificate(ssl.get()));
  if (cert) key_bits = EVP_PKEY_bits(X509_get0_pubkey(cert.get()));
  facts.protocol = std::string(SSL_get_version(ssl.get())) + "," + SSL_CIPHER_get_name(cipher) +
                   "," + std::to_string(key_bits) + "," + std::to_string(cipher_bits);
  EVP_PKEY* raw_key = nullptr;
  if (SSL_get_peer_tmp_key(ssl.get(), &raw_key) == 1) {
    std::unique_ptr<EVP_PKEY, SslFree> key(raw_key);
    facts.temp_key = temp_key_text(key.get());
  }
  SSL_shutdown(ssl.get());
  return facts;
}

}  // namespace hail
