/*
 * scram.h - SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL speaks it
 * (documentation, "SASL Authentication"): the stored verifier and the
 * server side of the exchange.
 *
 * A verifier is PostgreSQL's text form
 * "SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>" (base64), so a
 * verifier made by silt passwd could be pasted into pg_authid and back. The
 * password itself is never stored. Passwords are taken as their bytes, no
 * SASLprep: the same as PostgreSQL for ASCII passwords; a non-ASCII password
 * that SASLprep would change does not match one made by PostgreSQL
 * (docs/server.md).
 */
#ifndef SILT_SERVER_SCRAM_H
#define SILT_SERVER_SCRAM_H

#include <stddef.h>
#include <stdint.h>

#include "server/crypto.h"
#include "util/buf.h"
#include "util/error.h"

#define SRV_SCRAM_ITERATIONS 4096
#define SRV_SCRAM_SALT_LEN 16
#define SRV_SCRAM_MAX_SALT 64

typedef struct srv_verifier {
    int iterations;
    uint8_t salt[SRV_SCRAM_MAX_SALT];
    size_t salt_len;
    uint8_t stored_key[SRV_SHA256_LEN];
    uint8_t server_key[SRV_SHA256_LEN];
} srv_verifier;

/* Base64 (RFC 4648, with padding). decode returns SILT_CORRUPT for anything else. */
silt_status srv_base64_encode(buf *b, const uint8_t *data, size_t len, silt_error *err);
silt_status srv_base64_decode(const char *text, size_t text_len, uint8_t *out, size_t cap,
                              size_t *len_out, silt_error *err);

/* A verifier for password with a fresh random salt, in its text form into out. */
silt_status srv_scram_make_verifier(buf *out, const char *password, size_t len, silt_error *err);
/* Parses the text form; SILT_CORRUPT naming what is wrong. */
silt_status srv_scram_parse_verifier(srv_verifier *out, const char *text, silt_error *err);
/* 1 when password gives v's StoredKey (HTTP Basic authentication: the password itself is sent). */
int srv_scram_check_password(const srv_verifier *v, const char *password, size_t len);

/*
 * One exchange. srv_scram_first takes the client-first-message (gs2 header
 * included) and writes the server-first-message; srv_scram_final takes the
 * client-final-message, checks the proof and writes the server-final
 * message ("v=..."). A wrong proof is SILT_INVALID with "password
 * authentication failed"; a malformed message SILT_CORRUPT. With v NULL (no
 * such user) the exchange runs on a made-up salt and always fails at the
 * end, so that a client cannot tell missing users from wrong passwords.
 */
typedef struct srv_scram {
    const srv_verifier *v;
    srv_verifier mock;
    char client_first_bare[512];
    char server_first[640];
    char nonce[256]; /* client nonce + server nonce */
    char gs2_header[64];
} srv_scram;

silt_status srv_scram_first(srv_scram *s, const srv_verifier *v, const char *user,
                            const uint8_t *msg, size_t len, buf *out, silt_error *err);
silt_status srv_scram_final(srv_scram *s, const uint8_t *msg, size_t len, buf *out,
                            silt_error *err);

#endif
