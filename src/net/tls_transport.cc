// TlsTransport: one SSL per connection over a non-blocking socket, OpenSSL's outcomes mapped to
// IoResult with static reasons (no allocation per call). Made by a TlsClientContext or
// TlsServerContext; it and its context belong to one thread.
#include "net/tls_transport.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <cstring>
#include <string_view>

#include "core/errno_reason.h"

namespace hail {

const char* tls_error_code_reason(unsigned long code) {
  if (code == 0) return "unknown TLS error";
  if (ERR_SYSTEM_ERROR(code)) return errno_reason(ERR_GET_REASON(code));
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? reason : "TLS error";
}

namespace {

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
  void readable_edge(bool closed) override {
    edge_reports_ = true;
    drained_ = false;
    peer_closed_ = peer_closed_ || closed;
  }
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
  // The socket BIO's read callback: notes a read that returned less than asked (the socket was
  // drained then; a later arrival raises a new edge).
  static long on_bio(BIO* bio, int oper, const char* argp, size_t len, int argi, long argl, int ret,
                     size_t* processed);
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
  // Skipping the would-block read: the owner reports edges (readable_edge), the last socket read
  // since the last edge was short, and the peer has not closed (its EOF must still be read).
  bool edge_reports_ = false;
  bool drained_ = false;
  bool peer_closed_ = false;
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
  drained_ = false;
  peer_closed_ = false;
  BIO* rbio = SSL_get_rbio(ssl_);
  BIO_set_callback_ex(rbio, &TlsTransport::on_bio);
  BIO_set_callback_arg(rbio, reinterpret_cast<char*>(this));
  SSL_set_connect_state(ssl_);
  if (!shared_->sni.empty()) SSL_set_tlsext_host_name(ssl_, shared_->sni.c_str());
  if (shared_->resume && session_ != nullptr && SSL_SESSION_is_resumable(session_) == 1) {
    SSL_set_session(ssl_, session_);
  }
  ERR_clear_error();
}

long TlsTransport::on_bio(BIO* bio, int oper, const char* /*argp*/, size_t len, int /*argi*/,
                          long /*argl*/, int ret, size_t* processed) {
  if (oper != (BIO_CB_READ | BIO_CB_RETURN)) return oper & BIO_CB_RETURN ? ret : 1;
  auto* transport = reinterpret_cast<TlsTransport*>(BIO_get_callback_arg(bio));
  if (ret > 0 && processed != nullptr && *processed < len) transport->drained_ = true;
  return ret;
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
  if (drained_ && edge_reports_ && !peer_closed_ && SSL_has_pending(ssl_) == 0) {
    // Nothing decrypted or received waits, and the socket was drained since its last edge.
    want_write_ = false;
    return IoResult{IoStatus::kWouldBlock, 0, nullptr};
  }
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
        result.reason = tls_error_code_reason(first);
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
        result.reason = tls_error_code_reason(first);
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

std::unique_ptr<Transport> make_tls_transport(TlsShared* shared) {
  return std::make_unique<TlsTransport>(shared);
}

int tls_keep_new_session(SSL* ssl, SSL_SESSION* session) {
  return TlsTransport::on_new_session(ssl, session);
}

}  // namespace hail
