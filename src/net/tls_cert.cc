// Server key material (net/tls.h): generate_self_signed, a throw-away EC P-256 certificate and key
// as PEM text for the built-in server and the tests, and new_ticket_keys, random session-ticket
// keys shared by a server's reactors. No shared state: any thread.
#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>

#include "core/errno_reason.h"
#include "net/openssl_ptr.h"
#include "net/tls.h"

namespace hail {

namespace {

constexpr long kBackdateS = 60 * 60;             // valid from an hour ago (clock skew)
constexpr long kValidityS = 30L * 24 * 60 * 60;  // for 30 days
constexpr int kSerialBits = 159;                 // positive and at most 20 bytes (RFC 5280)
constexpr size_t kMaxCommonNameBytes = 64;       // ub-common-name

void free_general_names(GENERAL_NAMES* names) {
  GENERAL_NAMES_free(names);
}
using GeneralNamesPtr =
    std::unique_ptr<GENERAL_NAMES, OpensslFree<GENERAL_NAMES, free_general_names>>;
void free_basic_constraints(BASIC_CONSTRAINTS* constraints) {
  BASIC_CONSTRAINTS_free(constraints);
}
using BasicConstraintsPtr =
    std::unique_ptr<BASIC_CONSTRAINTS, OpensslFree<BASIC_CONSTRAINTS, free_basic_constraints>>;

Error openssl_error(const char* what) {
  const unsigned long code = ERR_peek_error();
  const char* reason = nullptr;
  if (code != 0) {
    reason =
        ERR_SYSTEM_ERROR(code) ? errno_reason(ERR_GET_REASON(code)) : ERR_reason_error_string(code);
  }
  ERR_clear_error();
  return make_error(std::string("cannot generate a self-signed certificate: ") + what +
                    (reason != nullptr ? std::string(": ") + reason : std::string()));
}

bool is_ip_literal(const std::string& text) {
  unsigned char address[16];
  return inet_pton(AF_INET, text.c_str(), address) == 1 ||
         inet_pton(AF_INET6, text.c_str(), address) == 1;
}

bool add_dns_name(GENERAL_NAMES* names, const std::string& name) {
  GENERAL_NAME* entry = GENERAL_NAME_new();
  ASN1_IA5STRING* text = ASN1_IA5STRING_new();
  if (entry == nullptr || text == nullptr ||
      ASN1_STRING_set(text, name.data(), static_cast<int>(name.size())) != 1) {
    GENERAL_NAME_free(entry);
    ASN1_IA5STRING_free(text);
    return false;
  }
  GENERAL_NAME_set0_value(entry, GEN_DNS, text);
  if (sk_GENERAL_NAME_push(names, entry) == 0) {
    GENERAL_NAME_free(entry);
    return false;
  }
  return true;
}

bool add_ip_address(GENERAL_NAMES* names, const std::string& address) {
  ASN1_OCTET_STRING* bytes = a2i_IPADDRESS(address.c_str());
  GENERAL_NAME* entry = GENERAL_NAME_new();
  if (bytes == nullptr || entry == nullptr) {
    ASN1_OCTET_STRING_free(bytes);
    GENERAL_NAME_free(entry);
    return false;
  }
  GENERAL_NAME_set0_value(entry, GEN_IPADD, bytes);
  if (sk_GENERAL_NAME_push(names, entry) == 0) {
    GENERAL_NAME_free(entry);
    return false;
  }
  return true;
}

// subjectAltName: the name (DNS, or IP for an IP literal), then localhost and the loopback
// addresses, each once.
GeneralNamesPtr alt_names(const std::string& name) {
  GeneralNamesPtr names(sk_GENERAL_NAME_new_null());
  if (names == nullptr) return nullptr;
  const bool ip = is_ip_literal(name);
  bool ok = ip ? true : add_dns_name(names.get(), name);
  if (ok && name != "localhost") ok = add_dns_name(names.get(), "localhost");
  if (ok && ip && name != "127.0.0.1" && name != "::1") ok = add_ip_address(names.get(), name);
  if (ok) ok = add_ip_address(names.get(), "127.0.0.1");
  if (ok) ok = add_ip_address(names.get(), "::1");
  return ok ? std::move(names) : nullptr;
}

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio, &data);
  return len > 0 ? std::string(data, static_cast<size_t>(len)) : std::string();
}

}  // namespace

Result<PemPair> generate_self_signed(const std::string& common_name) {
  if (common_name.empty() || common_name.size() > kMaxCommonNameBytes) {
    return make_error("invalid certificate common name " + quote(common_name) + " (1 to 64 bytes)");
  }
  ERR_clear_error();
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (key == nullptr) return openssl_error("EC key generation failed");

  X509Ptr cert(X509_new());
  if (cert == nullptr || X509_set_version(cert.get(), X509_VERSION_3) != 1) {
    return openssl_error("X509_new failed");
  }
  BignumPtr serial(BN_new());
  if (serial == nullptr ||
      BN_rand(serial.get(), kSerialBits, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) == nullptr) {
    return openssl_error("serial number");
  }
  if (X509_gmtime_adj(X509_getm_notBefore(cert.get()), -kBackdateS) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValidityS) == nullptr) {
    return openssl_error("validity");
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                                 -1, 0) != 1 ||
      X509_set_issuer_name(cert.get(), name) != 1) {
    return openssl_error("common name");
  }
  if (X509_set_pubkey(cert.get(), key.get()) != 1) return openssl_error("public key");

  GeneralNamesPtr names = alt_names(common_name);
  if (names == nullptr || X509_add1_ext_i2d(cert.get(), NID_subject_alt_name, names.get(), 0,
                                            X509V3_ADD_DEFAULT) != 1) {
    return openssl_error("subjectAltName");
  }
  BasicConstraintsPtr constraints(BASIC_CONSTRAINTS_new());
  if (constraints == nullptr) return openssl_error("basicConstraints");
  constraints->ca = 0;
  if (X509_add1_ext_i2d(cert.get(), NID_basic_constraints, constraints.get(), 1,
                        X509V3_ADD_DEFAULT) != 1) {
    return openssl_error("basicConstraints");
  }
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0) return openssl_error("signing");

  BioPtr cert_bio(BIO_new(BIO_s_mem()));
  BioPtr key_bio(BIO_new(BIO_s_mem()));
  if (cert_bio == nullptr || key_bio == nullptr ||
      PEM_write_bio_X509(cert_bio.get(), cert.get()) != 1 ||
      PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
          1) {
    return openssl_error("PEM encoding");
  }
  return PemPair{bio_text(cert_bio.get()), bio_text(key_bio.get())};
}

Result<std::string> new_ticket_keys() {
  std::string keys(kTicketKeysBytes, '\0');
  ERR_clear_error();
  if (RAND_bytes(reinterpret_cast<unsigned char*>(keys.data()), static_cast<int>(keys.size())) !=
      1) {
    ERR_clear_error();
    return make_error("cannot make session-ticket keys: OpenSSL's random generator failed");
  }
  return keys;
}

}  // namespace hail
