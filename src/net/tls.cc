// TLS with OpenSSL 3: TlsTransport (one SSL per connection over a non-blocking socket, OpenSSL's
// outcomes mapped to IoResult with static reasons) and the client / server contexts that make it.
// A context and its transports belong to one thread (a load worker or a server reactor).
#include "net/tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cctype>
#include <cstring>
#include <string_view>

#include "core/ascii.h"
#include "core/errno_reason.h"
#include "net/openssl_ptr.h"

namespace hail {

namespace {

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
const char* error_code_reason(unsigned long code) {
  if (code == 0) return "unknown TLS error";
  if (ERR_SYSTEM_ERROR(code)) return errno_reason(ERR_GET_REASON(code));
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? reason : "TLS error";
}

// The earliest error in the thread's OpenSSL queue, as text for a one-line message; clears the
// queue.
std::string take_openssl_error() {
  std::string text = error_code_reason(ERR_peek_error());
  ERR_clear_error();
  return text;
}

// A failed certificate check, with the verifier's verdict when it is a common one.
const char* verify_reason(long verify_result) {
  switch (verify_result) {
    case X509_V_ERR_HOSTNAME_MISMATCH:
      return "certificate verify failed: hostname mismatch";
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
      return "certificate verify failed: IP address mismatch";
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
      return "certificate verify failed: self-signed certificate";
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
      return "certificate verify failed: self-signed certificate in certificate chain";
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
      return "certificate verify failed: unable to get local issuer certificate";
    case X509_V_ERR_CERT_HAS_EXPIRED:
      return "certificate verify failed: certificate has expired";
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return "certificate verify failed: certificate is not yet valid";
    default:
      return "certificate verify failed";
  }
}

std::string version_name(int version) {  // TLS1_2_VERSION -> "1.2"
  if (version >= TLS1_VERSION && version <= TLS1_3_VERSION) {
    return "1." + std::to_string(version - TLS1_VERSION);
  }
  return std::to_string(version);
}

// Version range and the options every context shares.
Status configure_common(SSL_CTX* ctx, int min_version, int max_version) {
  if (min_version != 0 && max_version != 0 && min_version > max_version) {
    return make_error("the minimum TLS version " + version_name(min_version) +
                      " is above the maximum " + version_name(max_version));
  }
  if (min_version != 0 && SSL_CTX_set_min_proto_version(ctx, min_version) != 1) {
    ERR_clear_error();
    return make_error("unsupported TLS version " + version_name(min_version));
  }
  if (max_version != 0 && SSL_CTX_set_max_proto_version(ctx, max_version) != 1) {
    ERR_clear_error();
    return make_error("unsupported TLS version " + version_name(max_version));
  }
  // OpenSSL 3 refuses TLS 1.0 / 1.1 at its default security level 1 (their handshake signs with
  // SHA-1): asking for them explicitly lowers the level so that they can actually be spoken. A
  // cipher list with @SECLEVEL=n, applied later, still overrides this.
  const bool legacy = (min_version != 0 && min_version <= TLS1_1_VERSION) ||
                      (max_version != 0 && max_version <= TLS1_1_VERSION);
  if (legacy) SSL_CTX_set_security_level(ctx, 0);
  // A peer closing without close_notify is an EOF (most HTTP servers do it), not an error.
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // Read ahead: one recv() fills OpenSSL's buffer with as many records as have arrived, instead of
  // two recv() calls (header, then body) per record. Callers read until kWouldBlock.
  SSL_CTX_set_read_ahead(ctx, 1);
  return ok_status();
}

Result<std::string> alpn_wire_format(const std::vector<std::string>& protocols) {
  std::string wire;
  for (const std::string& protocol : protocols) {
    if (protocol.empty() || protocol.size() > 255) {
      return make_error("invalid ALPN protocol " + quote(protocol) + " (1 to 255 bytes)");
    }
    wire += static_cast<char>(protocol.size());
    wire += protocol;
  }
  return wire;
}

// The name the server certificate must match: a DNS name, or an IP address (an IP literal, with
// or without brackets) matched against the certificate's IP SANs.
Status set_verify_host(SSL_CTX* ctx, const std::string& host) {
  std::string name = host;
  if (name.size() >= 2 && name.front() == '[' && name.back() == ']') {
    name = name.substr(1, name.size() - 2);
  }
  unsigned char address[16];
  const bool is_ip = inet_pton(AF_INET, name.c_str(), address) == 1 ||
                     inet_pton(AF_INET6, name.c_str(), address) == 1;
  X509_VERIFY_PARAM* param = SSL_CTX_get0_param(ctx);
  const int ok = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str())
                       : X509_VERIFY_PARAM_set1_host(param, name.c_str(), name.size());
  if (ok != 1) {
    ERR_clear_error();
    return make_error("invalid host name to verify: " + quote(host));
  }
  return ok_status();
}

// Server ALPN: the first of the server's protocols (its order of preference) that the client
// offers; none in common: no ALPN at all (the client then speaks HTTP/1.1).
int select_alpn(SSL* /*ssl*/, const unsigned char** out, unsigned char* out_len,
                const unsigned char* in, unsigned int in_len, void* arg) {
  const auto* shared = static_cast<const TlsShared*>(arg);
  for (const std::string& protocol : shared->alpn) {
    unsigned int i = 0;
    while (i < in_len) {
      const unsigned int len = in[i];
      if (len == 0 || i + 1 + len > in_len) break;  // malformed: OpenSSL checks it already
      if (len == protocol.size() && std::memcmp(in + i + 1, protocol.data(), len) == 0) {
        *out = in + i + 1;
        *out_len = static_cast<unsigned char>(len);
        return SSL_TLSEXT_ERR_OK;
      }
      i += 1 + len;
    }
  }
  return SSL_TLSEXT_ERR_NOACK;
}

class TlsTransport final : public Transport {
 public:
  explicit TlsTransport(TlsShared* shared) : shared_(shared) {}
  ~TlsTransport() override {
    free_ssl();
    if (session_ != nullptr) SSL_SESSION_free(session_);
  }
  TlsTransport(const TlsTransport&) = delete;
  TlsTransport& operator=(const TlsTransport&) = delete;

  void attach(int fd) override;
  void detach() override { free_ssl(); }
  IoResult handshake() override;
  IoResult read(char* buf, size_t len) override;
  IoResult write(const char* data, size_t len) override;
  bool want_write() const override { return want_write_; }
  size_t buffered() const override {
    // With read-ahead, whole records may wait undecrypted: SSL_has_pending sees those too.
    if (ssl_ == nullptr) return 0;
    const int decrypted = SSL_pending(ssl_);
    if (decrypted > 0) return static_cast<size_t>(decrypted);
    return SSL_has_pending(ssl_) == 1 ? 1 : 0;
  }
  std::string_view alpn() const override { return alpn_; }
  std::string_view tls_version() const override {
    return version_ != nullptr ? std::string_view(version_) : std::string_view();
  }
  std::string_view tls_cipher() const override {
    return cipher_ != nullptr ? std::string_view(cipher_) : std::string_view();
  }
  bool tls_resumed() const override { return resumed_; }
  bool is_tls() const override { return true; }

  // The new-session callback of client contexts: keeps the newest session (TLS 1.3 tickets arrive
  // after the handshake, during a read). Returns 1 when it took the reference.
  static int on_new_session(SSL* ssl, SSL_SESSION* session);

 private:
  // HTTP/2 connections' info callback (alerts and handshake steps only, never per record): notes
  // the no_renegotiation alert OpenSSL sends when it refuses a server's renegotiation.
  static void on_info(const SSL* ssl, int where, int ret);
  void free_ssl();
  void on_handshake_done();
  // Maps a failed SSL call (ret, the errno right after it) to an IoResult; clears the error queue.
  IoResult fail(int ret, int saved_errno);

  TlsShared* shared_;
  SSL* ssl_ = nullptr;
  SSL_SESSION* session_ = nullptr;  // client: the last session received, offered on attach
  std::string_view alpn_;           // points into shared_->alpn
  const char* version_ = nullptr;   // OpenSSL's static strings, set when the handshake completes
  const char* cipher_ = nullptr;
  IoResult end_;  // kEof / kError once the connection ended: every later call returns it
  bool ended_ = false;
  bool done_ = false;  // the handshake completed
  bool want_write_ = false;
  bool resumed_ = false;
  bool renegotiation_refused_ = false;  // HTTP/2: the server asked to renegotiate (RFC 9113 §9.2.1)
};

void TlsTransport::free_ssl() {
  if (ssl_ == nullptr) return;
  SSL_set_app_data(ssl_, nullptr);  // no session callback may reach this transport any more
  // SSL_free on a connection that was not shut down marks its session not resumable (TLS 1.0's
  // rule): a load generator closes without close_notify on purpose, so say the shutdown happened.
  // A fatal TLS error still invalidates the session (OpenSSL does it when the alert is sent).
  if (done_) SSL_set_shutdown(ssl_, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
  SSL_free(ssl_);  // no SSL_shutdown: no close_notify is sent
  ssl_ = nullptr;
  done_ = false;  // read() / write() after detach: kError, never a null SSL
  want_write_ = false;
}

void TlsTransport::attach(int fd) {
  free_ssl();
  done_ = false;
  ended_ = false;
  resumed_ = false;
  renegotiation_refused_ = false;
  alpn_ = {};
  version_ = nullptr;
  cipher_ = nullptr;
  ERR_clear_error();
  ssl_ = SSL_new(shared_->ctx);
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd) != 1) {
    free_ssl();  // handshake() reports it
    ERR_clear_error();
    return;
  }
  SSL_set_app_data(ssl_, this);
  if (shared_->server) {
    SSL_set_accept_state(ssl_);
    return;
  }
  SSL_set_connect_state(ssl_);
  if (!shared_->sni.empty()) SSL_set_tlsext_host_name(ssl_, shared_->sni.c_str());
  if (shared_->resume && session_ != nullptr && SSL_SESSION_is_resumable(session_) == 1) {
    SSL_set_session(ssl_, session_);
  }
  ERR_clear_error();
}

int TlsTransport::on_new_session(SSL* ssl, SSL_SESSION* session) {
  auto* transport = static_cast<TlsTransport*>(SSL_get_app_data(ssl));
  if (transport == nullptr || !transport->shared_->resume) return 0;
  if (transport->session_ != nullptr) SSL_SESSION_free(transport->session_);
  transport->session_ = session;
  return 1;
}

void TlsTransport::on_handshake_done() {
  done_ = true;
  want_write_ = false;
  resumed_ = SSL_session_reused(ssl_) == 1;
  version_ = SSL_get_version(ssl_);
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl_);
  cipher_ = cipher != nullptr ? SSL_CIPHER_get_name(cipher) : nullptr;
  const unsigned char* selected = nullptr;
  unsigned int selected_len = 0;
  SSL_get0_alpn_selected(ssl_, &selected, &selected_len);
  if (selected_len > 0) {
    const std::string_view chosen(reinterpret_cast<const char*>(selected), selected_len);
    for (const std::string& protocol : shared_->alpn) {
      if (protocol == chosen) alpn_ = protocol;
    }
  }
  if (shared_->server) {
    ++shared_->handshakes;
    if (resumed_) ++shared_->resumed;
  } else if (alpn_ == "h2") {
    // HTTP/2 over TLS 1.2 forbids renegotiation (RFC 9113 §9.2.1): refuse it, and say why when the
    // server then ends the connection.
    SSL_set_options(ssl_, SSL_OP_NO_RENEGOTIATION);
    SSL_set_info_callback(ssl_, &TlsTransport::on_info);
  }
}

void TlsTransport::on_info(const SSL* ssl, int where, int ret) {
  if ((where & SSL_CB_WRITE_ALERT) == 0 || (ret & 0xFF) != SSL_AD_NO_RENEGOTIATION) return;
  auto* transport = static_cast<TlsTransport*>(SSL_get_app_data(ssl));
  if (transport != nullptr) transport->renegotiation_refused_ = true;
}

IoResult TlsTransport::handshake() {
  if (ended_) return end_;
  if (done_) return IoResult{};
  if (ssl_ == nullptr) return IoResult{IoStatus::kError, 0, "TLS connection setup failed"};
  ERR_clear_error();
  errno = 0;
  const int ret = SSL_do_handshake(ssl_);
  const int saved_errno = errno;
  if (ret == 1) {
    on_handshake_done();
    return IoResult{};
  }
  return fail(ret, saved_errno);
}

IoResult TlsTransport::read(char* buf, size_t len) {
  if (!done_ || ended_) [[unlikely]] {
    IoResult r = handshake();
    if (r.status != IoStatus::kOk) return r;
  }
  if (len == 0) return IoResult{};
  // No ERR_clear_error() first (it costs ~500 instructions per call): every failed call below ends
  // in fail(), which empties the thread's queue, and nothing else on a worker uses OpenSSL.
  errno = 0;
  size_t n = 0;
  const int ret = SSL_read_ex(ssl_, buf, len, &n);
  const int saved_errno = errno;
  if (ret == 1) {
    want_write_ = false;
    return IoResult{IoStatus::kOk, n, nullptr};
  }
  return fail(ret, saved_errno);
}

IoResult TlsTransport::write(const char* data, size_t len) {
  if (!done_ || ended_) [[unlikely]] {
    IoResult r = handshake();
    if (r.status != IoStatus::kOk) return r;
  }
  if (len == 0) return IoResult{};
  errno = 0;  // the queue is empty: see read()
  size_t n = 0;
  const int ret = SSL_write_ex(ssl_, data, len, &n);
  const int saved_errno = errno;
  if (ret == 1) {
    want_write_ = false;
    return IoResult{IoStatus::kOk, n, nullptr};
  }
  return fail(ret, saved_errno);
}

IoResult TlsTransport::fail(int ret, int saved_errno) {
  const int error = SSL_get_error(ssl_, ret);
  if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
    want_write_ = error == SSL_ERROR_WANT_WRITE;
    ERR_clear_error();
    return IoResult{IoStatus::kWouldBlock, 0, nullptr};
  }
  want_write_ = false;
  IoResult result{IoStatus::kError, 0, nullptr};
  bool unexpected_eof = false;
  unsigned long first = 0;
  // Whether the first error came from OpenSSL's ALPN parsing (peeked: popping frees the name).
  const char* first_func = nullptr;
  ERR_peek_error_func(&first_func);
  const bool alpn_error = first_func != nullptr && std::strstr(first_func, "alpn") != nullptr;
  while (const unsigned long code = ERR_get_error()) {
    if (first == 0) first = code;
    if (ERR_GET_LIB(code) == ERR_LIB_SSL &&
        ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
      unexpected_eof = true;
    }
  }
  ERR_clear_error();
  switch (error) {
    case SSL_ERROR_ZERO_RETURN:
      result.status = IoStatus::kEof;  // close_notify, or an EOF after the handshake
      break;
    case SSL_ERROR_SYSCALL:
      if (first != 0) {
        result.reason = error_code_reason(first);
      } else if (saved_errno != 0) {
        result.reason = errno_reason(saved_errno);
      } else {
        result.status = IoStatus::kEof;  // EOF reported as a syscall failure without errno
      }
      break;
    case SSL_ERROR_SSL:
      if (unexpected_eof) {
        result.status = IoStatus::kEof;  // the peer closed mid-handshake
      } else if (ERR_GET_LIB(first) == ERR_LIB_SSL &&
                 ERR_GET_REASON(first) == SSL_R_CERTIFICATE_VERIFY_FAILED) {
        result.reason = verify_reason(SSL_get_verify_result(ssl_));
      } else if (ERR_GET_LIB(first) == ERR_LIB_SSL &&
                 ERR_GET_REASON(first) == SSL_R_BAD_EXTENSION && alpn_error) {
        // OpenSSL only says "bad extension" for a protocol it did not offer.
        result.reason = "ALPN: the server selected a protocol hail did not offer";
      } else {
        result.reason = error_code_reason(first);
      }
      break;
    default:
      result.reason = "TLS error";
      break;
  }
  if (result.status == IoStatus::kEof && done_ && SSL_has_pending(ssl_) == 1) {
    // The close cut a record short: bytes of it arrived, so the server was sending.
    result.status = IoStatus::kError;
    result.reason = "TLS record truncated by the close";
  }
  if (renegotiation_refused_) {
    result.status = IoStatus::kError;
    result.reason = "TLS renegotiation refused (HTTP/2 forbids it)";
  }
  // OpenSSL: no further I/O after SSL_ERROR_SYSCALL or SSL_ERROR_SSL.
  end_ = result;
  ended_ = true;
  return result;
}

}  // namespace

Result<int> parse_tls_version(const std::string& text) {
  std::string lower = text;
  ascii::to_lower_in_place(lower);
  std::string_view version = lower;
  bool prefixed = false;
  for (const std::string_view prefix : {"tlsv", "tls"}) {
    if (version.starts_with(prefix)) {
      version.remove_prefix(prefix.size());
      prefixed = true;
      break;
    }
  }
  if (version == "1.0" || (prefixed && version == "1")) return TLS1_VERSION;  // "TLSv1"
  if (version == "1.1") return TLS1_1_VERSION;
  if (version == "1.2") return TLS1_2_VERSION;
  if (version == "1.3") return TLS1_3_VERSION;
  return make_error(quote(text) + " is not a TLS version (use 1.0, 1.1, 1.2 or 1.3)");
}

struct TlsClientContext::Impl {
  ~Impl() { SSL_CTX_free(shared.ctx); }
  TlsShared shared;
};

Result<std::unique_ptr<TlsClientContext>> TlsClientContext::create(const TlsClientConfig& config) {
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (ctx == nullptr) return make_error("cannot create a TLS context: " + take_openssl_error());
  if (Status st = configure_common(ctx.get(), config.min_version, config.max_version); !st) {
    return st.error();
  }
  if (!config.ciphers.empty() && SSL_CTX_set_cipher_list(ctx.get(), config.ciphers.c_str()) != 1) {
    ERR_clear_error();
    return make_error("invalid --ciphers " + quote(config.ciphers) + ": no cipher matches");
  }
  if (!config.ciphersuites.empty() &&
      SSL_CTX_set_ciphersuites(ctx.get(), config.ciphersuites.c_str()) != 1) {
    ERR_clear_error();
    return make_error("invalid --ciphers " + quote(config.ciphersuites) +
                      ": no TLS 1.3 ciphersuite matches");
  }
  if (!config.alpn.empty()) {
    auto wire = alpn_wire_format(config.alpn);
    if (!wire) return wire.error();
    // SSL_CTX_set_alpn_protos returns 0 on success.
    if (SSL_CTX_set_alpn_protos(ctx.get(), reinterpret_cast<const unsigned char*>(wire->data()),
                                static_cast<unsigned int>(wire->size())) != 0) {
      return make_error("cannot set ALPN: " + take_openssl_error());
    }
  }
  if (config.verify) {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    if (!config.ca_file.empty()) {
      if (SSL_CTX_load_verify_locations(ctx.get(), config.ca_file.c_str(), nullptr) != 1) {
        return make_error("cannot read CA file " + quote(config.ca_file) + ": " +
                          take_openssl_error());
      }
    } else if (SSL_CTX_set_default_verify_paths(ctx.get()) != 1) {
      return make_error("cannot load the system's trusted certificates: " + take_openssl_error());
    }
    if (!config.verify_host.empty()) {
      if (Status st = set_verify_host(ctx.get(), config.verify_host); !st) return st.error();
    }
  } else {
    // Load testers target staging hosts with self-signed certificates.
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
  }
  if (config.resume) {
    // Sessions are kept by each transport (for its next connection), not in a shared cache.
    SSL_CTX_set_session_cache_mode(ctx.get(),
                                   SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx.get(), &TlsTransport::on_new_session);
  } else {
    SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  }
  ERR_clear_error();

  std::unique_ptr<TlsClientContext> context(new TlsClientContext());
  context->impl_ = std::make_unique<Impl>();
  TlsShared& shared = context->impl_->shared;
  shared.ctx = ctx.release();
  shared.server = false;
  shared.alpn = config.alpn;
  shared.sni = config.sni;
  shared.resume = config.resume;
  return context;
}

TlsClientContext::~TlsClientContext() = default;

std::unique_ptr<Transport> TlsClientContext::new_transport() {
  return std::make_unique<TlsTransport>(&impl_->shared);
}

namespace {

constexpr const char* kKeyMismatch = "the TLS key does not match the certificate";

// Certificate chain and key from PEM text (generate_self_signed) into the context.
Status use_pem(SSL_CTX* ctx, const std::string& cert_pem, const std::string& key_pem) {
  BioPtr certs(BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())));
  if (certs == nullptr) return make_error("out of memory");
  X509Ptr leaf(PEM_read_bio_X509(certs.get(), nullptr, nullptr, nullptr));
  if (leaf == nullptr || SSL_CTX_use_certificate(ctx, leaf.get()) != 1) {
    return make_error("invalid TLS certificate PEM: " + take_openssl_error());
  }
  while (X509* extra = PEM_read_bio_X509(certs.get(), nullptr, nullptr, nullptr)) {
    if (SSL_CTX_add_extra_chain_cert(ctx, extra) != 1) {  // takes ownership on success
      X509_free(extra);
      return make_error("invalid TLS certificate chain PEM: " + take_openssl_error());
    }
  }
  ERR_clear_error();  // the end of the PEM text ("no start line")
  BioPtr key_bio(BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())));
  if (key_bio == nullptr) return make_error("out of memory");
  PkeyPtr key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (key == nullptr) return make_error("invalid TLS key PEM: " + take_openssl_error());
  if (X509_check_private_key(leaf.get(), key.get()) != 1) {
    ERR_clear_error();
    return make_error(kKeyMismatch);
  }
  if (SSL_CTX_use_PrivateKey(ctx, key.get()) != 1) {
    return make_error("invalid TLS key PEM: " + take_openssl_error());
  }
  return ok_status();
}

Status use_files(SSL_CTX* ctx, const std::string& cert_file, const std::string& key_file) {
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1) {
    return make_error("cannot load TLS certificate " + quote(cert_file) + ": " +
                      take_openssl_error());
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    unsigned long first = 0;
    bool mismatch = false;
    while (const unsigned long code = ERR_get_error()) {
      if (first == 0) first = code;
      mismatch = mismatch || (ERR_GET_LIB(code) == ERR_LIB_X509 &&
                              (ERR_GET_REASON(code) == X509_R_KEY_VALUES_MISMATCH ||
                               ERR_GET_REASON(code) == X509_R_KEY_TYPE_MISMATCH));
    }
    if (mismatch) return make_error(kKeyMismatch);
    return make_error("cannot load TLS key " + quote(key_file) + ": " + error_code_reason(first));
  }
  return ok_status();
}

}  // namespace

struct TlsServerContext::Impl {
  ~Impl() { SSL_CTX_free(shared.ctx); }
  TlsShared shared;
};

Result<std::unique_ptr<TlsServerContext>> TlsServerContext::create(const TlsServerConfig& config) {
  const bool from_pem = !config.cert_pem.empty() || !config.key_pem.empty();
  if (from_pem ? (config.cert_pem.empty() || config.key_pem.empty())
               : (config.cert_file.empty() || config.key_file.empty())) {
    return make_error("a TLS server needs both a certificate and a key");
  }
  auto alpn_check = alpn_wire_format(config.alpn);
  if (!alpn_check) return alpn_check.error();
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (ctx == nullptr) return make_error("cannot create a TLS context: " + take_openssl_error());
  if (Status st = configure_common(ctx.get(), config.min_version, config.max_version); !st) {
    return st.error();
  }
  Status loaded = from_pem ? use_pem(ctx.get(), config.cert_pem, config.key_pem)
                           : use_files(ctx.get(), config.cert_file, config.key_file);
  if (!loaded) return loaded.error();
  if (SSL_CTX_check_private_key(ctx.get()) != 1) {
    ERR_clear_error();
    return make_error(kKeyMismatch);
  }
  // Session tickets stay on (OpenSSL's default) so that clients can resume.
  if (!config.ticket_keys.empty() &&
      (config.ticket_keys.size() != kTicketKeysBytes ||
       SSL_CTX_set_tlsext_ticket_keys(ctx.get(), const_cast<char*>(config.ticket_keys.data()),
                                      static_cast<long>(kTicketKeysBytes)) != 1)) {
    ERR_clear_error();
    return make_error("invalid session-ticket keys (" + std::to_string(kTicketKeysBytes) +
                      " bytes from new_ticket_keys() expected)");
  }
  ERR_clear_error();

  std::unique_ptr<TlsServerContext> context(new TlsServerContext());
  context->impl_ = std::make_unique<Impl>();
  TlsShared& shared = context->impl_->shared;
  shared.ctx = ctx.release();
  shared.server = true;
  shared.alpn = config.alpn;
  if (!shared.alpn.empty()) SSL_CTX_set_alpn_select_cb(shared.ctx, select_alpn, &shared);
  return context;
}

TlsServerContext::~TlsServerContext() = default;

std::unique_ptr<Transport> TlsServerContext::new_transport() {
  return std::make_unique<TlsTransport>(&impl_->shared);
}

uint64_t TlsServerContext::handshakes() const {
  return impl_->shared.handshakes;
}

uint64_t TlsServerContext::resumed() const {
  return impl_->shared.resumed;
}

}  // namespace hail
