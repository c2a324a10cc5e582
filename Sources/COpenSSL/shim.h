// The system OpenSSL (Debian: libssl-dev to build, libssl3 at run time), for the etcd client's TLS.
//
// Loaded with dlopen at the first TLS connection, not linked: a linked libssl and libcrypto cost
// every keychainctl process about 3 million instructions in the dynamic loader (their ~4,900
// symbol relocations and ~19,000 relative ones) before main, for a library only `sync` over
// https:// uses (docs/PERFORMANCE.md, "Start-up"). kk_openssl holds the calls TLSStream makes;
// each has the type of OpenSSL's own declaration (__typeof__), so a mismatch does not compile.
// OpenSSL spells a few calls as macros, which Swift cannot import: each is wrapped here as an
// inline function with the same meaning, through the loaded calls.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <dlfcn.h>

#define KK_OPENSSL_STRING(text) #text
#define KK_OPENSSL_EXPANDED_STRING(text) KK_OPENSSL_STRING(text)
#if defined(__APPLE__)
#define KK_OPENSSL_LIBRARY "libssl." KK_OPENSSL_EXPANDED_STRING(OPENSSL_SHLIB_VERSION) ".dylib"
#else
#define KK_OPENSSL_LIBRARY "libssl.so." KK_OPENSSL_EXPANDED_STRING(OPENSSL_SHLIB_VERSION)
#endif

#define KK_OPENSSL_CALLS(X) \
    X(TLS_client_method) X(SSL_CTX_new) X(SSL_CTX_ctrl) X(SSL_CTX_load_verify_locations) X(SSL_CTX_set_verify) \
    X(SSL_CTX_use_certificate_chain_file) X(SSL_CTX_use_PrivateKey_file) X(SSL_CTX_check_private_key) X(SSL_CTX_free) \
    X(SSL_new) X(SSL_free) X(SSL_set_fd) X(SSL_get0_param) X(SSL_set1_host) X(SSL_ctrl) X(SSL_connect) X(SSL_read) \
    X(SSL_write) X(SSL_get_error) X(SSL_get_verify_result) X(X509_VERIFY_PARAM_set1_ip_asc) \
    X(X509_verify_cert_error_string) X(ERR_clear_error) X(ERR_get_error) X(ERR_reason_error_string) X(ERR_error_string_n)

/// The OpenSSL calls TLSStream makes, from the loaded library.
typedef struct kk_openssl {
#define KK_OPENSSL_FIELD(name) __typeof__(name) *_Nonnull name;
    KK_OPENSSL_CALLS(KK_OPENSSL_FIELD)
#undef KK_OPENSSL_FIELD
} kk_openssl;

/// The file name kk_openssl_load opens (libssl.so.3 for OpenSSL 3).
static inline const char *_Nonnull kk_openssl_library_name(void) { return KK_OPENSSL_LIBRARY; }

/// Opens libssl (and the libcrypto it depends on) and fills `calls`: NULL when every call was
/// found, else the dynamic loader's reason (copy it at once: the next dl call reuses its buffer).
static inline const char *_Nullable kk_openssl_load(kk_openssl *_Nonnull calls) {
    void *library = dlopen(KK_OPENSSL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
    void *symbol;
#define KK_OPENSSL_RESOLVE(name) \
    symbol = dlsym(library, #name); \
    if (symbol == NULL) return dlerror(); \
    calls->name = (__typeof__(name) *)symbol;
    KK_OPENSSL_CALLS(KK_OPENSSL_RESOLVE)
#undef KK_OPENSSL_RESOLVE
    return NULL;
}

static inline int kk_SSL_CTX_set_min_proto_version(const kk_openssl *_Nonnull calls, SSL_CTX *_Nonnull context, int version) {
    return (int)calls->SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, version, NULL);
}

// Lets a write that OpenSSL asked to retry continue from a buffer that may have moved, and
// return after part of it (the caller loops until everything is written).
static inline void kk_SSL_CTX_allow_moving_partial_writes(const kk_openssl *_Nonnull calls, SSL_CTX *_Nonnull context) {
    calls->SSL_CTX_ctrl(context, SSL_CTRL_MODE, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE, NULL);
}

static inline int kk_SSL_set_tlsext_host_name(const kk_openssl *_Nonnull calls, SSL *_Nonnull connection, const char *_Nonnull name) {
    return (int)calls->SSL_ctrl(connection, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, (void *)name);
}

static inline int kk_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }
