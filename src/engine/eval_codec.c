/*
 * eval_codec.c - Spark's digest and encoding functions: md5, sha1/sha,
 * sha2, crc32, hex, unhex, base64, unbase64.
 *
 * The digests are OpenSSL's (libcrypto.so.3, loaded with dlopen the first
 * time one runs, as the S3 store loads it: linked, it would cost every silt
 * process its loading time). crc32 is zlib's. The results are Spark's:
 * lowercase hex text for the digests, a BIGINT for crc32, uppercase hex for
 * hex(). Arguments that Spark does not cast implicitly to BINARY (numbers,
 * dates) are refused at bind time with Spark's error class.
 */
#include "engine/eval_int.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

/* ---- argument typing ---------------------------------------------------------------- */

/* Spark's implicit cast to BINARY: from STRING (and NULL) only. */
static silt_status binary_arg(expr *e, size_t idx, arena *a, silt_error *err)
{
    col_type_id id = e->args[idx]->type->id;
    if (id != COL_BINARY && id != COL_STRING && id != COL_NULL)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve "
                       "\"%s\" due to data type mismatch: parameter %zu requires the \"BINARY\" "
                       "type, however it has the type \"%s\".", e->func->name, idx + 1,
                       col_type_id_name(id));
    return expr_coerce(&e->args[idx], a, col_type_primitive(COL_BINARY), err);
}

static silt_status res_digest(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(binary_arg(e, 0, a, err));
    if (e->n_args > 1)
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[1], a, col_type_primitive(COL_INT), err));
    e->type = col_type_primitive(COL_STRING);
    return SILT_OK;
}

static silt_status res_crc32(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(binary_arg(e, 0, a, err));
    e->type = col_type_primitive(COL_LONG);
    return SILT_OK;
}

/* ---- libcrypto ------------------------------------------------------------------------ */

typedef struct crypto_fns {
    int (*digest)(const void *data, size_t count, unsigned char *md, unsigned int *size,
                  const void *type, void *impl);
    const void *(*by_name)(const char *name);
} crypto_fns;

static crypto_fns crypto;
static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;
static int crypto_ready;

static void crypto_load(void)
{
    void *h = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    void *d, *n;
    if (h == NULL)
        return;
    d = dlsym(h, "EVP_Digest");
    n = dlsym(h, "EVP_get_digestbyname");
    if (d == NULL || n == NULL)
        return;
    /* POSIX: a data pointer from dlsym holds a function */
    memcpy(&crypto.digest, &d, sizeof(d));
    memcpy(&crypto.by_name, &n, sizeof(n));
    crypto_ready = 1;
}

static silt_status digest_of(const expr *e, const char *name, const void **md, silt_error *err)
{
    pthread_once(&crypto_once, crypto_load);
    *md = crypto_ready ? crypto.by_name(name) : NULL;
    if (*md == NULL)
        return expr_eval_error(e, err, SILT_UNSUPPORTED, NULL,
                               "%s needs OpenSSL's libcrypto.so.3 (with %s), which is not "
                               "installed", e->func->name, name);
    return SILT_OK;
}

static void to_hex(const unsigned char *bytes, size_t n, char *out, int upper)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    size_t i;
    for (i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
}

/* sha2's bit length to OpenSSL's name; NULL (a NULL result in Spark) for others. */
static const char *sha2_name(int64_t bits)
{
    switch (bits) {
    case 0:
    case 256: return "SHA256";
    case 224: return "SHA224";
    case 384: return "SHA384";
    case 512: return "SHA512";
    default: return NULL;
    }
}

static silt_status digest_fn(FN_ARGS, const char *fixed)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    const void *md = NULL;
    if (fixed != NULL)
        SILT_RETURN_IF_ERROR(digest_of(e, fixed, &md, err));
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t len;
        const char *s = col_vec_str(args[0], r, &len);
        unsigned char dig[64];
        char hex[128];
        unsigned int dlen = 0;
        const void *row_md = md;
        if (fixed == NULL) {
            const char *name = sha2_name(vec_get_int(args[1], r));
            if (name == NULL) {
                vec_set_null(o, r);
                continue;
            }
            rc = digest_of(e, name, &row_md, err);
        }
        if (rc == SILT_OK && !crypto.digest(s, (size_t)len, dig, &dlen, row_md, NULL))
            rc = expr_eval_error(e, err, SILT_RUNTIME, NULL, "the digest failed");
        if (rc == SILT_OK) {
            to_hex(dig, dlen, hex, 0);
            rc = vec_str_put(&w, r, hex, 2 * (int64_t)dlen, err);
        }
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

static silt_status fn_md5(FN_ARGS) { return digest_fn(FN_PASS, "MD5"); }
static silt_status fn_sha1(FN_ARGS) { return digest_fn(FN_PASS, "SHA1"); }
static silt_status fn_sha2(FN_ARGS) { return digest_fn(FN_PASS, NULL); }

static silt_status fn_crc32(FN_ARGS)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int32_t len;
        const char *s = col_vec_str(args[0], r, &len);
        vec_put_int(o, r, (int64_t)crc32(0L, (const Bytef *)s, (uInt)len));
    });
    *out = o;
    return SILT_OK;
}

/* ---- hex / unhex ------------------------------------------------------------------- */

/* hex(x): BIGINT (numbers are cast to it, as Spark's implicit cast does), STRING or BINARY. */
static silt_status res_hex(expr *e, arena *a, silt_error *err)
{
    col_type_id id = e->args[0]->type->id;
    e->type = col_type_primitive(COL_STRING);
    if (id == COL_STRING || id == COL_BINARY)
        return SILT_OK;
    if (id == COL_BOOLEAN || id == COL_DATE || id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ)
        return expr_coerce(&e->args[0], a, col_type_primitive(COL_STRING), err);
    if (id == COL_NULL || id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG ||
        id == COL_FLOAT || id == COL_DOUBLE || id == COL_DECIMAL)
        return expr_coerce(&e->args[0], a, col_type_primitive(COL_LONG), err);
    return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve "
                   "\"hex\" due to data type mismatch: the first parameter requires the "
                   "(\"BIGINT\" or \"BINARY\" or \"STRING\") type, however it has the type \"%s\".",
                   col_type_id_name(id));
}

static silt_status fn_hex(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    int is_long = args[0]->type->id == COL_LONG;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        if (is_long) { /* Long.toHexString, uppercase: two's complement, no leading zeros */
            char text[17];
            int n = snprintf(text, sizeof(text), "%llX", (unsigned long long)vec_get_int(args[0], r));
            rc = vec_str_put(&w, r, text, n, err);
        } else {
            int32_t len;
            const char *s = col_vec_str(args[0], r, &len);
            char *dst;
            rc = vec_str_reserve(&w, 2 * (int64_t)len, &dst, err);
            if (rc == SILT_OK) {
                to_hex((const unsigned char *)s, (size_t)len, dst, 1);
                rc = vec_str_commit(&w, r, 2 * (int64_t)len, err);
            }
        }
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

static silt_status res_str_to_binary(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(expr_coerce(&e->args[0], a, col_type_primitive(COL_STRING), err));
    e->type = col_type_primitive(COL_BINARY);
    return SILT_OK;
}

static int hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* unhex(s): an odd count of digits has an implied leading 0; a non-digit makes NULL. */
static silt_status fn_unhex(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t len, i, j = 0, odd;
        const unsigned char *s = (const unsigned char *)col_vec_str(args[0], r, &len);
        char *dst;
        int bad = 0;
        odd = len & 1;
        rc = vec_str_reserve(&w, (len + 1) / 2, &dst, err);
        if (rc != SILT_OK)
            break;
        for (i = 0; i < len && !bad; i += (i == 0 && odd) ? 1 : 2) {
            int hi = (i == 0 && odd) ? 0 : hex_digit(s[i]);
            int lo = (i == 0 && odd) ? hex_digit(s[0]) : hex_digit(s[i + 1]);
            bad = hi < 0 || lo < 0;
            dst[j++] = (char)(hi * 16 + lo);
        }
        if (bad)
            vec_set_null(o, r);
        else
            rc = vec_str_commit(&w, r, j, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

/* ---- base64 ---------------------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static silt_status res_base64(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(binary_arg(e, 0, a, err));
    e->type = col_type_primitive(COL_STRING);
    return SILT_OK;
}

/*
 * base64(b): java.util.Base64's MIME encoder, which Spark 4 uses: padded, in
 * lines of 76 characters joined by CRLF.
 */
static silt_status fn_base64(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t len, i;
        const unsigned char *s = (const unsigned char *)col_vec_str(args[0], r, &len);
        int64_t n = ((int64_t)len + 2) / 3 * 4, j = 0;
        char *dst;
        n += n > 0 ? (n - 1) / 76 * 2 : 0;
        rc = vec_str_reserve(&w, n, &dst, err);
        if (rc != SILT_OK)
            break;
        for (i = 0; i < len; i += 3) {
            uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < len ? (uint32_t)s[i + 1] << 8 : 0) |
                         (i + 2 < len ? s[i + 2] : 0);
            if (i > 0 && i % 57 == 0) {
                dst[j++] = '\r';
                dst[j++] = '\n';
            }
            dst[j++] = b64[v >> 18];
            dst[j++] = b64[(v >> 12) & 63];
            dst[j++] = i + 1 < len ? b64[(v >> 6) & 63] : '=';
            dst[j++] = i + 2 < len ? b64[v & 63] : '=';
        }
        rc = vec_str_commit(&w, r, n, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

static int b64_value(unsigned char c)
{
    const char *p = c != 0 ? strchr(b64, c) : NULL;
    return p == NULL ? -1 : (int)(p - b64);
}

/*
 * java.util.Base64's MIME decoder, which Spark's unbase64 uses: characters
 * outside the alphabet are skipped and decoding ends at the padding. Its
 * errors (NULL if none) are Java's IllegalArgumentException messages, which
 * Spark passes on without an error class.
 */
static const char *mime_decode(const unsigned char *s, int32_t len, char *dst, int64_t *n_out)
{
    static const char *const bad_end = "Input byte array has wrong 4-byte ending unit";
    uint32_t bits = 0;
    int count = 0;
    int32_t i;
    int64_t j = 0;
    for (i = 0; i < len; i++) {
        int v;
        if (s[i] == '=') {
            if (count < 2 || (count == 2 && (i + 1 >= len || s[++i] != '=')))
                return bad_end;
            i++;
            break;
        }
        v = b64_value(s[i]);
        if (v < 0)
            continue;
        bits = bits << 6 | (uint32_t)v;
        if (++count == 4) {
            dst[j++] = (char)(bits >> 16);
            dst[j++] = (char)(bits >> 8);
            dst[j++] = (char)bits;
            bits = 0;
            count = 0;
        }
    }
    if (count == 1)
        return "Last unit does not have enough valid bits";
    for (; i < len; i++)
        if (b64_value(s[i]) >= 0)
            return "Input byte array has incorrect ending byte";
    if (count == 2)
        dst[j++] = (char)(bits >> 4);
    else if (count == 3) {
        dst[j++] = (char)(bits >> 10);
        dst[j++] = (char)(bits >> 2);
    }
    *n_out = j;
    return NULL;
}

static silt_status fn_unbase64(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t len;
        const unsigned char *s = (const unsigned char *)col_vec_str(args[0], r, &len);
        char *dst;
        int64_t n = 0;
        rc = vec_str_reserve(&w, (int64_t)len / 4 * 3 + 3, &dst, err);
        if (rc != SILT_OK)
            break;
        const char *bad = mime_decode(s, len, dst, &n);
        if (bad != NULL) {
            rc = expr_eval_error(e, err, SILT_RUNTIME, NULL, "%s", bad);
            break;
        }
        rc = vec_str_commit(&w, r, n, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

const expr_func_def engine_codec_funcs[] = {
    {"md5", 1, 1, res_digest, fn_md5, 0},
    {"sha1", 1, 1, res_digest, fn_sha1, 0},
    {"sha", 1, 1, res_digest, fn_sha1, 0},
    {"sha2", 2, 2, res_digest, fn_sha2, 0},
    {"crc32", 1, 1, res_crc32, fn_crc32, 0},
    {"hex", 1, 1, res_hex, fn_hex, 0},
    {"unhex", 1, 1, res_str_to_binary, fn_unhex, 0},
    {"base64", 1, 1, res_base64, fn_base64, 0},
    {"unbase64", 1, 1, res_str_to_binary, fn_unbase64, 0},
};
const size_t engine_n_codec_funcs = sizeof(engine_codec_funcs) / sizeof(engine_codec_funcs[0]);
