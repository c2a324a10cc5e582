// The system OpenSSL (Debian: libssl-dev to build, libssl3 at run time), for the etcd client's TLS.
// OpenSSL spells a few calls as macros, which Swift cannot import: each is wrapped here as an inline
// function with the same meaning.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

static inline int kk_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

// Lets a write that OpenSSL asked to retry continue from a buffer that may have moved, and
// return after part of it (the caller loops until everything is written).
static inline void kk_SSL_CTX_allow_moving_partial_writes(SSL_CTX *context) {
    SSL_CTX_set_mode(context, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE);
}

static inline int kk_SSL_set_tlsext_host_name(SSL *connection, const char *name) {
    return (int)SSL_set_tlsext_host_name(connection, name);
}

static inline int kk_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }
