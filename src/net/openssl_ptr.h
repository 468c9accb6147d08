// unique_ptr aliases for the OpenSSL objects the TLS code owns, so that every early return frees
// them. Header-only; net layer only (tls.cc, tls_cert.cc); any thread.
#pragma once

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>

namespace hail {

template <class T, void (*Free)(T*)>
struct OpensslFree {
  void operator()(T* p) const { Free(p); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, OpensslFree<SSL_CTX, SSL_CTX_free>>;
using BioPtr = std::unique_ptr<BIO, OpensslFree<BIO, BIO_free_all>>;
using X509Ptr = std::unique_ptr<X509, OpensslFree<X509, X509_free>>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, OpensslFree<EVP_PKEY, EVP_PKEY_free>>;
using BignumPtr = std::unique_ptr<BIGNUM, OpensslFree<BIGNUM, BN_free>>;

}  // namespace hail
