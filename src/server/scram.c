/*
 * scram.c - SCRAM-SHA-256 verifiers and the server side of the exchange
 * (scram.h).
 *
 * PROTOCOL: RFC 5802 section 3 and 5, RFC 7677; PostgreSQL's "SCRAM-SHA-256
 * Authentication": the user name in client-first-message is ignored (the
 * start-up packet's counts), channel binding is not offered, so the gs2
 * header must be "n,," or "y,," ("p=" is refused).
 *
 *   SaltedPassword  = PBKDF2-HMAC-SHA-256(password, salt, i)
 *   ClientKey       = HMAC(SaltedPassword, "Client Key"), StoredKey = H(ClientKey)
 *   ServerKey       = HMAC(SaltedPassword, "Server Key")
 *   AuthMessage     = client-first-bare "," server-first "," client-final-without-proof
 *   ClientProof     = ClientKey XOR HMAC(StoredKey, AuthMessage)
 *   ServerSignature = HMAC(ServerKey, AuthMessage)
 */
#include "server/scram.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char b64_chars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

silt_status srv_base64_encode(buf *b, const uint8_t *data, size_t len, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < len; idx += 3) {
        uint32_t v = (uint32_t)data[idx] << 16;
        char out[4];
        if (idx + 1 < len)
            v |= (uint32_t)data[idx + 1] << 8;
        if (idx + 2 < len)
            v |= data[idx + 2];
        out[0] = b64_chars[(v >> 18) & 63];
        out[1] = b64_chars[(v >> 12) & 63];
        out[2] = idx + 1 < len ? b64_chars[(v >> 6) & 63] : '=';
        out[3] = idx + 2 < len ? b64_chars[v & 63] : '=';
        SILT_RETURN_IF_ERROR(buf_append(b, out, 4, err));
    }
    return SILT_OK;
}

static int b64_value(char c)
{
    const char *p = c ? strchr(b64_chars, c) : NULL;
    return p ? (int)(p - b64_chars) : -1;
}

silt_status srv_base64_decode(const char *text, size_t text_len, uint8_t *out, size_t cap,
                              size_t *len_out, silt_error *err)
{
    size_t idx, n = 0;
    if (text_len % 4 != 0)
        return err_set(err, SILT_CORRUPT, "base64 text of %zu characters is not a multiple of 4",
                       text_len);
    for (idx = 0; idx < text_len; idx += 4) {
        int v[4], pad = 0, k;
        for (k = 0; k < 4; k++) {
            char c = text[idx + k];
            if (c == '=' && idx + 4 == text_len && k >= 2) {
                v[k] = 0;
                pad++;
            } else if (pad > 0 || (v[k] = b64_value(c)) < 0) {
                return err_set(err, SILT_CORRUPT, "character %zu of base64 text is not base64",
                               idx + k + 1);
            }
        }
        if (n + 3 - (size_t)pad > cap)
            return err_set(err, SILT_CORRUPT, "base64 value longer than %zu bytes", cap);
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 |
                     (uint32_t)v[3];
        out[n++] = (uint8_t)(w >> 16);
        if (pad < 2)
            out[n++] = (uint8_t)(w >> 8);
        if (pad < 1)
            out[n++] = (uint8_t)w;
    }
    *len_out = n;
    return SILT_OK;
}

static silt_status derive_keys(srv_verifier *v, const char *password, size_t len,
                               silt_error *err)
{
    uint8_t salted[SRV_SHA256_LEN], client_key[SRV_SHA256_LEN];
    SILT_RETURN_IF_ERROR(srv_pbkdf2_sha256(password, len, v->salt, v->salt_len, v->iterations,
                                           salted, err));
    SILT_RETURN_IF_ERROR(srv_hmac_sha256(salted, sizeof(salted), "Client Key", 10, client_key,
                                         err));
    SILT_RETURN_IF_ERROR(srv_sha256(client_key, sizeof(client_key), v->stored_key, err));
    return srv_hmac_sha256(salted, sizeof(salted), "Server Key", 10, v->server_key, err);
}

int srv_scram_check_password(const srv_verifier *v, const char *password, size_t len)
{
    srv_verifier got;
    uint8_t diff = 0;
    memcpy(&got, v, sizeof(got));
    if (derive_keys(&got, password, len, NULL) != SILT_OK)
        return 0;
    for (size_t k = 0; k < SRV_SHA256_LEN; k++) /* constant time */
        diff |= (uint8_t)(got.stored_key[k] ^ v->stored_key[k]);
    return diff == 0;
}

silt_status srv_scram_make_verifier(buf *out, const char *password, size_t len, silt_error *err)
{
    srv_verifier v;
    memset(&v, 0, sizeof(v));
    v.iterations = SRV_SCRAM_ITERATIONS;
    v.salt_len = SRV_SCRAM_SALT_LEN;
    SILT_RETURN_IF_ERROR(srv_random(v.salt, v.salt_len, err));
    SILT_RETURN_IF_ERROR(derive_keys(&v, password, len, err));
    SILT_RETURN_IF_ERROR(buf_printf(out, err, "SCRAM-SHA-256$%d:", v.iterations));
    SILT_RETURN_IF_ERROR(srv_base64_encode(out, v.salt, v.salt_len, err));
    SILT_RETURN_IF_ERROR(buf_append_char(out, '$', err));
    SILT_RETURN_IF_ERROR(srv_base64_encode(out, v.stored_key, sizeof(v.stored_key), err));
    SILT_RETURN_IF_ERROR(buf_append_char(out, ':', err));
    return srv_base64_encode(out, v.server_key, sizeof(v.server_key), err);
}

static silt_status decode_key(const char *text, size_t len, uint8_t out[SRV_SHA256_LEN],
                              const char *what, silt_error *err)
{
    size_t n = 0;
    silt_status rc = srv_base64_decode(text, len, out, SRV_SHA256_LEN, &n, err);
    if (rc == SILT_OK && n != SRV_SHA256_LEN)
        rc = err_set(err, SILT_CORRUPT, "the %s of a SCRAM verifier is %zu bytes, not 32",
                     what, n);
    return rc;
}

silt_status srv_scram_parse_verifier(srv_verifier *out, const char *text, silt_error *err)
{
    const char *p = text, *colon, *dollar, *colon2;
    char *end;
    long iter;
    memset(out, 0, sizeof(*out));
    if (strncmp(p, "SCRAM-SHA-256$", 14) != 0)
        return err_set(err, SILT_CORRUPT, "a verifier must start with \"SCRAM-SHA-256$\"");
    p += 14;
    iter = strtol(p, &end, 10);
    if (end == p || *end != ':' || iter < 1 || iter > 10000000)
        return err_set(err, SILT_CORRUPT, "the iteration count of a SCRAM verifier is not a "
                       "number from 1 to 10000000");
    out->iterations = (int)iter;
    colon = end;
    dollar = strchr(colon, '$');
    colon2 = dollar ? strchr(dollar, ':') : NULL;
    if (dollar == NULL || colon2 == NULL)
        return err_set(err, SILT_CORRUPT, "a SCRAM verifier has the form "
                       "SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>");
    SILT_RETURN_IF_ERROR(srv_base64_decode(colon + 1, (size_t)(dollar - colon - 1), out->salt,
                                           sizeof(out->salt), &out->salt_len, err));
    SILT_RETURN_IF_ERROR(decode_key(dollar + 1, (size_t)(colon2 - dollar - 1), out->stored_key,
                                    "StoredKey", err));
    return decode_key(colon2 + 1, strlen(colon2 + 1), out->server_key, "ServerKey", err);
}

/* ---------------------------------------------------------------- the exchange */

static silt_status malformed(silt_error *err, const char *what)
{
    return err_set(err, SILT_CORRUPT, "malformed SCRAM message: %s", what);
}

/* A printable SCRAM value (RFC 5802 "printable" for nonces: 0x21-0x7E but ','). */
static int printable(const char *s, size_t len)
{
    size_t idx;
    for (idx = 0; idx < len; idx++)
        if (s[idx] < 0x21 || s[idx] > 0x7e || s[idx] == ',')
            return 0;
    return len > 0;
}

silt_status srv_scram_first(srv_scram *s, const srv_verifier *v, const char *user,
                            const uint8_t *msg, size_t len, buf *out, silt_error *err)
{
    char text[512];
    const char *bare, *nonce, *nonce_end;
    uint8_t raw[18];
    buf snonce = BUF_INIT;
    silt_status rc;
    memset(s, 0, sizeof(*s));
    if (len == 0 || len >= sizeof(text))
        return malformed(err, "client-first-message is empty or too long");
    memcpy(text, msg, len);
    text[len] = '\0';
    if (memchr(text, '\0', len) != NULL)
        return malformed(err, "client-first-message holds a NUL byte");
    if (text[0] == 'p')
        return err_set(err, SILT_UNSUPPORTED, "SCRAM channel binding (SCRAM-SHA-256-PLUS) is "
                       "not supported; connect with channel_binding=disable or prefer");
    if ((text[0] != 'n' && text[0] != 'y') || text[1] != ',')
        return malformed(err, "client-first-message must start with \"n,\" or \"y,\"");
    bare = strchr(text + 2, ',');
    if (bare == NULL || bare != text + 2)
        return malformed(err, "authorization identities (a=) are not supported");
    bare++;
    if ((size_t)(bare - text) >= sizeof(s->gs2_header))
        return malformed(err, "gs2 header too long");
    memcpy(s->gs2_header, text, (size_t)(bare - text));
    if (strncmp(bare, "n=", 2) != 0)
        return malformed(err, "client-first-message-bare must start with n=");
    nonce = strstr(bare, ",r=");
    if (nonce == NULL)
        return malformed(err, "client-first-message has no nonce (r=)");
    nonce += 3;
    nonce_end = strchr(nonce, ',');
    if (nonce_end == NULL)
        nonce_end = nonce + strlen(nonce);
    if (!printable(nonce, (size_t)(nonce_end - nonce)) || nonce_end - nonce > 200)
        return malformed(err, "the client nonce is empty, too long or not printable");
    snprintf(s->client_first_bare, sizeof(s->client_first_bare), "%s", bare);
    if (v == NULL) {
        /* a made-up salt, the same for a user name every time (PostgreSQL's mock auth) */
        uint8_t h[SRV_SHA256_LEN];
        rc = srv_sha256(user, strlen(user), h, err);
        if (rc != SILT_OK)
            return rc;
        memset(&s->mock, 0, sizeof(s->mock));
        s->mock.iterations = SRV_SCRAM_ITERATIONS;
        s->mock.salt_len = SRV_SCRAM_SALT_LEN;
        memcpy(s->mock.salt, h, SRV_SCRAM_SALT_LEN);
        s->v = NULL;
    } else {
        s->v = v;
    }
    rc = srv_random(raw, sizeof(raw), err);
    if (rc == SILT_OK)
        rc = srv_base64_encode(&snonce, raw, sizeof(raw), err);
    if (rc == SILT_OK)
        snprintf(s->nonce, sizeof(s->nonce), "%.*s%s", (int)(nonce_end - nonce), nonce,
                 buf_cstr(&snonce));
    buf_clear(&snonce);
    if (rc != SILT_OK)
        return rc;
    {
        const srv_verifier *vv = v ? v : &s->mock;
        buf sf = BUF_INIT;
        rc = buf_printf(&sf, err, "r=%s,s=", s->nonce);
        if (rc == SILT_OK)
            rc = srv_base64_encode(&sf, vv->salt, vv->salt_len, err);
        if (rc == SILT_OK)
            rc = buf_printf(&sf, err, ",i=%d", vv->iterations);
        if (rc == SILT_OK && sf.len >= sizeof(s->server_first))
            rc = malformed(err, "server-first-message too long");
        if (rc == SILT_OK) {
            memcpy(s->server_first, sf.data, sf.len + 1);
            rc = buf_append(out, sf.data, sf.len, err);
        }
        buf_clear(&sf);
    }
    return rc;
}

silt_status srv_scram_final(srv_scram *s, const uint8_t *msg, size_t len, buf *out,
                            silt_error *err)
{
    char text[1024];
    const char *proof_at, *nonce;
    size_t without_proof, proof_len = 0, cb_len = 0, idx;
    uint8_t proof[SRV_SHA256_LEN + 4], sig[SRV_SHA256_LEN], client_key[SRV_SHA256_LEN];
    uint8_t stored[SRV_SHA256_LEN], cb[64];
    unsigned diff = 0;
    buf auth = BUF_INIT;
    silt_status rc;
    if (len == 0 || len >= sizeof(text))
        return malformed(err, "client-final-message is empty or too long");
    memcpy(text, msg, len);
    text[len] = '\0';
    if (strncmp(text, "c=", 2) != 0)
        return malformed(err, "client-final-message must start with c=");
    nonce = strstr(text, ",r=");
    proof_at = strstr(text, ",p=");
    if (nonce == NULL || proof_at == NULL || proof_at < nonce)
        return malformed(err, "client-final-message needs r= and then p=");
    /* the channel binding must repeat the gs2 header (no binding data) */
    rc = srv_base64_decode(text + 2, (size_t)(nonce - text - 2), cb, sizeof(cb), &cb_len, err);
    if (rc != SILT_OK)
        return rc;
    if (cb_len != strlen(s->gs2_header) || memcmp(cb, s->gs2_header, cb_len) != 0)
        return malformed(err, "channel binding (c=) does not repeat the gs2 header");
    {
        const char *ne = strchr(nonce + 3, ',');
        if (ne == NULL || (size_t)(ne - nonce - 3) != strlen(s->nonce) ||
            memcmp(nonce + 3, s->nonce, strlen(s->nonce)) != 0)
            return malformed(err, "the nonce (r=) is not the one of this exchange");
    }
    rc = srv_base64_decode(proof_at + 3, strlen(proof_at + 3), proof, sizeof(proof), &proof_len,
                           err);
    if (rc != SILT_OK)
        return rc;
    if (proof_len != SRV_SHA256_LEN)
        return malformed(err, "the proof (p=) is not 32 bytes");
    without_proof = (size_t)(proof_at - text);
    rc = buf_printf(&auth, err, "%s,%s,%.*s", s->client_first_bare, s->server_first,
                    (int)without_proof, text);
    if (rc == SILT_OK && s->v == NULL)
        rc = err_set(err, SILT_INVALID, "password authentication failed");
    if (rc == SILT_OK)
        rc = srv_hmac_sha256(s->v->stored_key, SRV_SHA256_LEN, auth.data, auth.len, sig, err);
    if (rc == SILT_OK) {
        for (idx = 0; idx < SRV_SHA256_LEN; idx++)
            client_key[idx] = proof[idx] ^ sig[idx];
        rc = srv_sha256(client_key, sizeof(client_key), stored, err);
    }
    if (rc == SILT_OK) {
        for (idx = 0; idx < SRV_SHA256_LEN; idx++)
            diff |= (unsigned)(stored[idx] ^ s->v->stored_key[idx]);
        if (diff != 0)
            rc = err_set(err, SILT_INVALID, "password authentication failed");
    }
    if (rc == SILT_OK)
        rc = srv_hmac_sha256(s->v->server_key, SRV_SHA256_LEN, auth.data, auth.len, sig, err);
    if (rc == SILT_OK)
        rc = buf_append_str(out, "v=", err);
    if (rc == SILT_OK)
        rc = srv_base64_encode(out, sig, sizeof(sig), err);
    buf_clear(&auth);
    return rc;
}
