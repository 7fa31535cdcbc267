/*
 * crypto.c - SHA-256, HMAC, PBKDF2, random bytes and TLS through a
 * dlopen'ed OpenSSL 3 (crypto.h).
 *
 * The symbols are looked up once (pthread_once); a function pointer left
 * NULL means the library or the symbol is missing, and the call that
 * needs it fails with SILT_UNSUPPORTED. Only stable OpenSSL 3 entry points
 * are used, none of the macros (SSL_CTX_set_options and friends are
 * SSL_CTX_ctrl calls in disguise and are not needed here).
 */
#define _POSIX_C_SOURCE 200809L
#include "server/crypto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "util/mem.h"

typedef const void *(*md_fn)(void);
typedef int (*digest_fn)(const void *, size_t, unsigned char *, unsigned int *, const void *,
                         void *);
typedef unsigned char *(*hmac_fn)(const void *, const void *, int, const unsigned char *, size_t,
                                  unsigned char *, unsigned int *);
typedef int (*pbkdf2_fn)(const char *, int, const unsigned char *, int, int, const void *, int,
                         unsigned char *);
typedef int (*rand_fn)(unsigned char *, int);

typedef const void *(*method_fn)(void);
typedef void *(*ctx_new_fn)(const void *);
typedef void (*ctx_free_fn)(void *);
typedef int (*ctx_file_fn)(void *, const char *);
typedef int (*ctx_key_fn)(void *, const char *, int);
typedef int (*ctx_check_fn)(const void *);
typedef void *(*ssl_new_fn)(void *);
typedef int (*ssl_set_fd_fn)(void *, int);
typedef int (*ssl_int_fn)(void *);
typedef int (*ssl_io_fn)(void *, void *, int);
typedef int (*ssl_wio_fn)(void *, const void *, int);
typedef void (*ssl_free_fn)(void *);
typedef unsigned long (*err_get_fn)(void);
typedef void (*err_str_fn)(unsigned long, char *, size_t);

static struct {
    md_fn sha256;
    digest_fn digest;
    hmac_fn hmac;
    pbkdf2_fn pbkdf2;
    rand_fn rand_bytes;
    err_get_fn err_get;
    err_str_fn err_str;
    method_fn server_method;
    ctx_new_fn ctx_new;
    ctx_free_fn ctx_free;
    ctx_file_fn use_chain;
    ctx_key_fn use_key;
    ctx_check_fn check_key;
    ssl_new_fn ssl_new;
    ssl_set_fd_fn set_fd;
    ssl_int_fn accept;
    ssl_io_fn read;
    ssl_wio_fn write;
    ssl_int_fn shutdown;
    ssl_free_fn ssl_free;
} ossl;

static pthread_once_t ossl_once = PTHREAD_ONCE_INIT;

/* POSIX: a data pointer from dlsym holds a function; memcpy keeps -pedantic quiet. */
#define LOAD(handle, field, name)                                  \
    do {                                                           \
        void *sym_ = (handle) ? dlsym((handle), (name)) : NULL;    \
        memcpy(&ossl.field, &sym_, sizeof(sym_));                  \
    } while (0)

static void ossl_load(void)
{
    void *crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    void *ssl = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL);
    LOAD(crypto, sha256, "EVP_sha256");
    LOAD(crypto, digest, "EVP_Digest");
    LOAD(crypto, hmac, "HMAC");
    LOAD(crypto, pbkdf2, "PKCS5_PBKDF2_HMAC");
    LOAD(crypto, rand_bytes, "RAND_bytes");
    LOAD(crypto, err_get, "ERR_get_error");
    LOAD(crypto, err_str, "ERR_error_string_n");
    LOAD(ssl, server_method, "TLS_server_method");
    LOAD(ssl, ctx_new, "SSL_CTX_new");
    LOAD(ssl, ctx_free, "SSL_CTX_free");
    LOAD(ssl, use_chain, "SSL_CTX_use_certificate_chain_file");
    LOAD(ssl, use_key, "SSL_CTX_use_PrivateKey_file");
    LOAD(ssl, check_key, "SSL_CTX_check_private_key");
    LOAD(ssl, ssl_new, "SSL_new");
    LOAD(ssl, set_fd, "SSL_set_fd");
    LOAD(ssl, accept, "SSL_accept");
    LOAD(ssl, read, "SSL_read");
    LOAD(ssl, write, "SSL_write");
    LOAD(ssl, shutdown, "SSL_shutdown");
    LOAD(ssl, ssl_free, "SSL_free");
}

static silt_status need_crypto(silt_error *err)
{
    pthread_once(&ossl_once, ossl_load);
    if (ossl.sha256 == NULL || ossl.digest == NULL || ossl.hmac == NULL || ossl.pbkdf2 == NULL ||
        ossl.rand_bytes == NULL)
        return err_set(err, SILT_UNSUPPORTED, "SCRAM-SHA-256 needs OpenSSL's libcrypto.so.3, "
                       "which is not installed");
    return SILT_OK;
}

void srv_crypto_warm(void)
{
    uint8_t out[SRV_SHA256_LEN];
    if (need_crypto(NULL) != SILT_OK)
        return;
    srv_sha256("", 0, out, NULL);
    srv_hmac_sha256("k", 1, "", 0, out, NULL);
    srv_pbkdf2_sha256("p", 1, (const uint8_t *)"salt", 4, 1, out, NULL);
    srv_random(out, sizeof(out), NULL);
}

silt_status srv_sha256(const void *data, size_t len, uint8_t out[SRV_SHA256_LEN],
                       silt_error *err)
{
    unsigned int n = 0;
    SILT_RETURN_IF_ERROR(need_crypto(err));
    if (!ossl.digest(data, len, out, &n, ossl.sha256(), NULL) || n != SRV_SHA256_LEN)
        return err_set(err, SILT_UNSUPPORTED, "libcrypto's EVP_Digest failed for SHA-256");
    return SILT_OK;
}

silt_status srv_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                            uint8_t out[SRV_SHA256_LEN], silt_error *err)
{
    unsigned int n = 0;
    SILT_RETURN_IF_ERROR(need_crypto(err));
    if (key_len > 1024 ||
        ossl.hmac(ossl.sha256(), key, (int)key_len, data, len, out, &n) == NULL ||
        n != SRV_SHA256_LEN)
        return err_set(err, SILT_UNSUPPORTED, "libcrypto's HMAC failed for SHA-256");
    return SILT_OK;
}

silt_status srv_pbkdf2_sha256(const char *pass, size_t pass_len, const uint8_t *salt,
                              size_t salt_len, int iterations, uint8_t out[SRV_SHA256_LEN],
                              silt_error *err)
{
    SILT_RETURN_IF_ERROR(need_crypto(err));
    if (pass_len > 1024 || salt_len > 1024 ||
        !ossl.pbkdf2(pass, (int)pass_len, salt, (int)salt_len, iterations, ossl.sha256(),
                     SRV_SHA256_LEN, out))
        return err_set(err, SILT_UNSUPPORTED, "libcrypto's PKCS5_PBKDF2_HMAC failed");
    return SILT_OK;
}

silt_status srv_random(uint8_t *out, size_t n, silt_error *err)
{
    SILT_RETURN_IF_ERROR(need_crypto(err));
    if (n > 4096 || ossl.rand_bytes(out, (int)n) != 1)
        return err_set(err, SILT_IO, "libcrypto's RAND_bytes could not give random bytes");
    return SILT_OK;
}

/* ---------------------------------------------------------------- TLS */

struct srv_tls_ctx {
    void *ctx;
};

struct srv_tls {
    void *ssl;
};

static silt_status tls_fail(silt_error *err, const char *what)
{
    char text[256] = "";
    unsigned long code = ossl.err_get ? ossl.err_get() : 0;
    if (code != 0 && ossl.err_str != NULL)
        ossl.err_str(code, text, sizeof(text));
    return err_set(err, SILT_IO, "%s%s%s", what, text[0] ? ": " : "", text);
}

silt_status srv_tls_ctx_new(srv_tls_ctx **out, const char *cert_file, const char *key_file,
                            silt_error *err)
{
    srv_tls_ctx *c;
    *out = NULL;
    pthread_once(&ossl_once, ossl_load);
    if (ossl.server_method == NULL || ossl.ctx_new == NULL || ossl.use_chain == NULL ||
        ossl.use_key == NULL || ossl.ssl_new == NULL || ossl.accept == NULL)
        return err_set(err, SILT_UNSUPPORTED, "TLS needs OpenSSL's libssl.so.3, which is not "
                       "installed");
    c = mem_calloc(1, sizeof(*c));
    if (c == NULL)
        return err_nomem(err);
    c->ctx = ossl.ctx_new(ossl.server_method());
    if (c->ctx == NULL) {
        mem_free(c);
        return tls_fail(err, "could not create a TLS context");
    }
    /* 1 = SSL_FILETYPE_PEM */
    if (ossl.use_chain(c->ctx, cert_file) != 1) {
        srv_tls_ctx_free(c);
        err_set(err, SILT_IO, "could not load the TLS certificate \"%s\"", cert_file);
        return SILT_IO;
    }
    if (ossl.use_key(c->ctx, key_file, 1) != 1 ||
        (ossl.check_key != NULL && ossl.check_key(c->ctx) != 1)) {
        srv_tls_ctx_free(c);
        return err_set(err, SILT_IO, "could not load the TLS key \"%s\" (or it does not match "
                       "the certificate \"%s\")", key_file, cert_file);
    }
    *out = c;
    return SILT_OK;
}

void srv_tls_ctx_free(srv_tls_ctx *ctx)
{
    if (ctx == NULL)
        return;
    if (ctx->ctx != NULL)
        ossl.ctx_free(ctx->ctx);
    mem_free(ctx);
}

silt_status srv_tls_accept(srv_tls **out, srv_tls_ctx *ctx, int fd, silt_error *err)
{
    srv_tls *t = mem_calloc(1, sizeof(*t));
    *out = NULL;
    if (t == NULL)
        return err_nomem(err);
    t->ssl = ossl.ssl_new(ctx->ctx);
    if (t->ssl == NULL || ossl.set_fd(t->ssl, fd) != 1) {
        srv_tls_free(t);
        return tls_fail(err, "could not start a TLS session");
    }
    if (ossl.accept(t->ssl) != 1) {
        /* no close_notify after a failed handshake */
        ossl.ssl_free(t->ssl);
        mem_free(t);
        return tls_fail(err, "TLS handshake failed");
    }
    *out = t;
    return SILT_OK;
}

long srv_tls_read(srv_tls *tls, void *data, size_t len)
{
    int n = ossl.read(tls->ssl, data, len > 1 << 30 ? 1 << 30 : (int)len);
    return n > 0 ? n : (n == 0 ? 0 : -1);
}

long srv_tls_write(srv_tls *tls, const void *data, size_t len)
{
    int n = ossl.write(tls->ssl, data, len > 1 << 30 ? 1 << 30 : (int)len);
    return n > 0 ? n : -1;
}

void srv_tls_free(srv_tls *tls)
{
    if (tls == NULL)
        return;
    if (tls->ssl != NULL) {
        ossl.shutdown(tls->ssl);
        ossl.ssl_free(tls->ssl);
    }
    mem_free(tls);
}
