/*
 * crypto.h - the OpenSSL calls of silt serve: SHA-256, HMAC-SHA-256,
 * PBKDF2 (SCRAM-SHA-256, RFC 5802/7677), random bytes, and TLS.
 *
 * libcrypto.so.3 and libssl.so.3 are dlopen'ed on first use, as
 * io/digest.c does for SHA-256 (the server sees only util/ and the public
 * API, so it keeps its own loader): the command runs without OpenSSL
 * installed, and only what needs it fails, with SILT_UNSUPPORTED naming
 * the library.
 */
#ifndef SILT_SERVER_CRYPTO_H
#define SILT_SERVER_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define SRV_SHA256_LEN 32

silt_status srv_sha256(const void *data, size_t len, uint8_t out[SRV_SHA256_LEN],
                       silt_error *err);
silt_status srv_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                            uint8_t out[SRV_SHA256_LEN], silt_error *err);
silt_status srv_pbkdf2_sha256(const char *pass, size_t pass_len, const uint8_t *salt,
                              size_t salt_len, int iterations, uint8_t out[SRV_SHA256_LEN],
                              silt_error *err);
/*
 * Runs each primitive once, on the calling thread: OpenSSL 3 sets up its
 * providers and method caches lazily, and two sessions doing that at once
 * leak what the loser built (LeakSanitizer found it). The server calls it
 * before it accepts anyone.
 */
void srv_crypto_warm(void);
/* n bytes from OpenSSL's CSPRNG. */
silt_status srv_random(uint8_t *out, size_t n, silt_error *err);

/* ---- TLS -------------------------------------------------------------------- */

typedef struct srv_tls_ctx srv_tls_ctx; /* one per server: certificate and key */
typedef struct srv_tls srv_tls;         /* one per connection */

/* Loads a PEM certificate chain and its private key. */
silt_status srv_tls_ctx_new(srv_tls_ctx **out, const char *cert_file, const char *key_file,
                            silt_error *err);
void srv_tls_ctx_free(srv_tls_ctx *ctx);
/* Runs the server side of the handshake on fd (blocking). */
silt_status srv_tls_accept(srv_tls **out, srv_tls_ctx *ctx, int fd, silt_error *err);
/* As read(2)/write(2): bytes moved, 0 at a clean end, -1 on an error. */
long srv_tls_read(srv_tls *tls, void *data, size_t len);
long srv_tls_write(srv_tls *tls, const void *data, size_t len);
/* Sends close_notify (best effort) and frees. NULL is fine. */
void srv_tls_free(srv_tls *tls);

#endif
