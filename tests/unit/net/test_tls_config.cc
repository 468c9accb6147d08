// TLS configuration outside a connection: parse_tls_version, the one-line errors of
// TlsClientContext::create and TlsServerContext::create, and the self-signed certificate
// generator, checked with OpenSSL's X509 API. No sockets.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "net/tls.h"
#include "tls_test_util.h"

namespace hail {
namespace {

using tls_test::TempFile;
using tls_test::test_pair;

TEST(Tls, ParseTlsVersion) {
  const std::pair<const char*, int> good[] = {
      {"1.0", TLS1_VERSION},       {"1.1", TLS1_1_VERSION},     {"1.2", TLS1_2_VERSION},
      {"1.3", TLS1_3_VERSION},     {"tls1.2", TLS1_2_VERSION},  {"TLSv1.2", TLS1_2_VERSION},
      {"TLS1.3", TLS1_3_VERSION},  {"tlsv1.3", TLS1_3_VERSION}, {"TLSv1", TLS1_VERSION},
      {"TlSv1.1", TLS1_1_VERSION},
  };
  for (const auto& [text, version] : good) {
    auto parsed = parse_tls_version(text);
    ASSERT_TRUE(parsed.ok()) << text;
    EXPECT_EQ(*parsed, version) << text;
  }
  for (const char* text : {"1.4", "", "1", "v1.2", "tls", "1.2 ", "ssl3", "TLSv1.2x", "2"}) {
    auto parsed = parse_tls_version(text);
    EXPECT_FALSE(parsed.ok()) << text;
  }
  auto bad = parse_tls_version("1.4");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "\"1.4\" is not a TLS version (use 1.0, 1.1, 1.2 or 1.3)");
}

std::string client_error(const TlsClientConfig& config) {
  auto client = TlsClientContext::create(config);
  return client.ok() ? "<ok>" : client.error().message;
}

std::string server_error(const TlsServerConfig& config) {
  auto server = TlsServerContext::create(config);
  return server.ok() ? "<ok>" : server.error().message;
}

TEST(Tls, ClientConfigErrorsAreOneLineAndNameTheValue) {
  TlsClientConfig config;
  config.ciphers = "NOPE";
  EXPECT_EQ(client_error(config), "invalid --ciphers \"NOPE\": no cipher matches");
  config.ciphers = "ECDHE-RSA-AES128-GCM-SHA256";
  EXPECT_EQ(client_error(config), "<ok>");

  config = {};
  config.ciphersuites = "TLS_NOPE";
  EXPECT_EQ(client_error(config), "invalid --ciphers \"TLS_NOPE\": no TLS 1.3 ciphersuite matches");
  config.ciphersuites = "TLS_AES_128_GCM_SHA256";
  EXPECT_EQ(client_error(config), "<ok>");

  config = {};
  config.verify = true;
  config.ca_file = "/nonexistent/hail-ca.pem";
  EXPECT_EQ(client_error(config),
            "cannot read CA file \"/nonexistent/hail-ca.pem\": No such file or directory");
  TempFile not_pem("not a certificate\n");
  config.ca_file = not_pem.path;
  const std::string message = client_error(config);
  EXPECT_EQ(message.rfind("cannot read CA file \"" + not_pem.path + "\": ", 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);

  config = {};
  config.min_version = TLS1_3_VERSION;
  config.max_version = TLS1_2_VERSION;
  EXPECT_EQ(client_error(config), "the minimum TLS version 1.3 is above the maximum 1.2");

  config = {};
  config.alpn = {"h2", ""};
  EXPECT_EQ(client_error(config), "invalid ALPN protocol \"\" (1 to 255 bytes)");
}

TEST(Tls, ServerConfigErrors) {
  TlsServerConfig config;
  EXPECT_EQ(server_error(config), "a TLS server needs both a certificate and a key");
  config.cert_pem = test_pair().cert_pem;
  EXPECT_EQ(server_error(config), "a TLS server needs both a certificate and a key");

  auto other = generate_self_signed("other.test");
  ASSERT_TRUE(other.ok());
  config.key_pem = other->key_pem;
  EXPECT_EQ(server_error(config), "the TLS key does not match the certificate");

  config.key_pem = "garbage";
  EXPECT_EQ(server_error(config).rfind("invalid TLS key PEM: ", 0), 0u);

  config.key_pem = test_pair().key_pem;
  config.ticket_keys = "short";
  EXPECT_EQ(server_error(config),
            "invalid session-ticket keys (80 bytes from new_ticket_keys() expected)");
  auto keys = new_ticket_keys();
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys->size(), kTicketKeysBytes);
  EXPECT_NE(keys.value(), new_ticket_keys().value());
  config.ticket_keys = keys.value();
  EXPECT_EQ(server_error(config), "<ok>");

  config = {};
  config.cert_file = "/nonexistent/cert.pem";
  config.key_file = "/nonexistent/key.pem";
  EXPECT_EQ(
      server_error(config).rfind("cannot load TLS certificate \"/nonexistent/cert.pem\": ", 0), 0u)
      << server_error(config);

  TempFile cert(test_pair().cert_pem);
  TempFile key(test_pair().key_pem);
  TempFile other_key(other->key_pem);
  config.cert_file = cert.path;
  config.key_file = other_key.path;
  EXPECT_EQ(server_error(config), "the TLS key does not match the certificate");
  config.key_file = key.path;
  EXPECT_EQ(server_error(config), "<ok>");
}

struct X509Free {
  void operator()(X509* cert) const { X509_free(cert); }
};

std::unique_ptr<X509, X509Free> parse_cert(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return std::unique_ptr<X509, X509Free>(cert);
}

std::vector<std::string> alt_names(X509* cert) {
  std::vector<std::string> out;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    if (name->type == GEN_DNS) {
      const ASN1_IA5STRING* dns = name->d.dNSName;
      out.push_back("DNS:" + std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(dns)),
                                         static_cast<size_t>(ASN1_STRING_length(dns))));
    } else if (name->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* ip = name->d.iPAddress;
      const int len = ASN1_STRING_length(ip);
      char text[64] = {};
      inet_ntop(len == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(ip), text, sizeof text);
      out.push_back(std::string("IP:") + text);
    } else {
      out.push_back("other");
    }
  }
  GENERAL_NAMES_free(names);
  return out;
}

TEST(Tls, GenerateSelfSigned) {
  auto pair = generate_self_signed("hail.test");
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  EXPECT_EQ(pair->cert_pem.rfind("-----BEGIN CERTIFICATE-----\n", 0), 0u);
  EXPECT_EQ(pair->key_pem.rfind("-----BEGIN PRIVATE KEY-----\n", 0), 0u);
  auto cert = parse_cert(pair->cert_pem);
  ASSERT_NE(cert, nullptr);

  EXPECT_EQ(alt_names(cert.get()),
            (std::vector<std::string>{"DNS:hail.test", "DNS:localhost", "IP:127.0.0.1", "IP:::1"}));
  char cn[128] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert.get()), NID_commonName, cn, sizeof cn);
  EXPECT_STREQ(cn, "hail.test");
  EXPECT_EQ(X509_NAME_cmp(X509_get_subject_name(cert.get()), X509_get_issuer_name(cert.get())), 0);
  EXPECT_EQ(X509_get_version(cert.get()), X509_VERSION_3);
  EXPECT_EQ(X509_check_ca(cert.get()), 0);  // basicConstraints CA:FALSE
  EXPECT_NE(X509_get_extension_flags(cert.get()) & EXFLAG_BCONS, 0u);
  EXPECT_EQ(X509_get_signature_nid(cert.get()), NID_ecdsa_with_SHA256);

  EVP_PKEY* key = X509_get0_pubkey(cert.get());
  ASSERT_NE(key, nullptr);
  EXPECT_TRUE(EVP_PKEY_is_a(key, "EC"));
  EXPECT_EQ(EVP_PKEY_get_bits(key), 256);
  char group[32] = {};
  EXPECT_EQ(EVP_PKEY_get_group_name(key, group, sizeof group, nullptr), 1);
  EXPECT_STREQ(group, "prime256v1");

  // Valid from about an hour ago for 30 days.
  int days = 0;
  int seconds = 0;
  ASSERT_EQ(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(cert.get()),
                           X509_get0_notAfter(cert.get())),
            1);
  EXPECT_EQ(days * 86400L + seconds, 30L * 86400 + 3600);
  ASSERT_EQ(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(cert.get()), nullptr), 1);
  const long since_start_s = days * 86400L + seconds;
  EXPECT_GE(since_start_s, 3600);
  EXPECT_LE(since_start_s, 3600 + 60);

  // A fresh random serial each time.
  auto again = generate_self_signed("hail.test");
  ASSERT_TRUE(again.ok());
  auto cert2 = parse_cert(again->cert_pem);
  ASSERT_NE(cert2, nullptr);
  EXPECT_NE(
      ASN1_INTEGER_cmp(X509_get0_serialNumber(cert.get()), X509_get0_serialNumber(cert2.get())), 0);
}

TEST(Tls, GenerateSelfSignedForNamesAndAddresses) {
  auto local = generate_self_signed("localhost");
  ASSERT_TRUE(local.ok());
  auto cert = parse_cert(local->cert_pem);
  ASSERT_NE(cert, nullptr);
  EXPECT_EQ(alt_names(cert.get()),
            (std::vector<std::string>{"DNS:localhost", "IP:127.0.0.1", "IP:::1"}));

  auto ip = generate_self_signed("10.0.0.7");
  ASSERT_TRUE(ip.ok());
  cert = parse_cert(ip->cert_pem);
  ASSERT_NE(cert, nullptr);
  EXPECT_EQ(alt_names(cert.get()),
            (std::vector<std::string>{"DNS:localhost", "IP:10.0.0.7", "IP:127.0.0.1", "IP:::1"}));

  EXPECT_FALSE(generate_self_signed("").ok());
  EXPECT_FALSE(generate_self_signed(std::string(65, 'a')).ok());
}

}  // namespace
}  // namespace hail
