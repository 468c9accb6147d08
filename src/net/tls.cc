// TLS with OpenSSL 3: the client and server contexts (versions, ciphers, verification, ALPN,
// certificates, session resumption) that make TlsTransports (tls_transport.cc). A context and its
// transports belong to one thread (a load worker or a server reactor).
#include "net/tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cstring>
#include <string_view>

#include "core/ascii.h"
#include "net/openssl_ptr.h"
#include "net/tls_transport.h"

namespace hail {

namespace {

// The earliest error in the thread's OpenSSL queue, as text for a one-line message; clears the
// queue.
std::string take_openssl_error() {
  std::string text = tls_error_code_reason(ERR_peek_error());
  ERR_clear_error();
  return text;
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
    SSL_CTX_sess_set_new_cb(ctx.get(), &tls_keep_new_session);
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
  return make_tls_transport(&impl_->shared);
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
    return make_error("cannot load TLS key " + quote(key_file) + ": " +
                      tls_error_code_reason(first));
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
  return make_tls_transport(&impl_->shared);
}

uint64_t TlsServerContext::handshakes() const {
  return impl_->shared.handshakes;
}

uint64_t TlsServerContext::resumed() const {
  return impl_->shared.resumed;
}

}  // namespace hail
