// The system OpenSSL (Debian: libssl-dev to build, libssl3 at run time), for the etcd client's TLS.
// OpenSSL spells a few calls as macros, which Swift cannot import: each is wrapped here as an inline
// function with the same meaning.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

static inline int kk_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

static inline int kk_SSL_set_tlsext_host_name(SSL *connection, const char *name) {
    return (int)SSL_set_tlsext_host_name(connection, name);
}

static inline int kk_ERR_GET_REASON(unsigned long code) {
    return ERR_GET_REASON(code);
}

static inline int kk_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }
