#ifndef DEVSIM_COPENSSL_SHIM_H
#define DEVSIM_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/x509v3.h>

// Macros Swift cannot call.
static inline long devsim_ssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

// A write that waited (SSL_ERROR_WANT_WRITE) is retried with the bytes still to send, which may
// have moved (a Swift array that grew) and may be more: OpenSSL refuses that unless told. And the
// buffers of an idle connection are given back.
static inline long devsim_ssl_ctx_set_modes(SSL_CTX *context) {
    return SSL_CTX_set_mode(
        context, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_RELEASE_BUFFERS);
}
// A name as RFC 2253 writes it (CN=broker.example,O=Example), whose flag Swift cannot see.
static inline int devsim_x509_name_print_rfc2253(BIO *bio, const X509_NAME *name) {
    return X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253);
}
static inline int devsim_ssl_ctx_set_min_tls12(SSL_CTX *context) {
    return SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}
// A peer that closes without close_notify reads as an end of stream (SSL_ERROR_ZERO_RETURN).
static inline uint64_t devsim_ssl_ctx_ignore_unexpected_eof(SSL_CTX *context) {
    return SSL_CTX_set_options(context, SSL_OP_IGNORE_UNEXPECTED_EOF);
}
#endif
