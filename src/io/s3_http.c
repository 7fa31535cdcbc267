/*
 * s3_http.c - S3 requests: AWS Signature Version 4 (OpenSSL's SHA-256 and
 * HMAC), libcurl transfers, retries and error messages.
 *
 * Connections are reused: a client keeps its idle curl handles (each with
 * its connection cache; curl_easy_reset keeps the connections) and a request
 * takes one, or makes one when all are busy, so threads of one store
 * request in parallel over kept-alive connections.
 *
 * Retries: connection failures, resets, time-outs (a transfer that moves no
 * byte for fs.s3a.connection.timeout), 5xx, 429 and 409 (S3's answer to two
 * conditional writes of one key at once) are retried up to
 * fs.s3a.retry.limit times, after fs.s3a.retry.interval doubled at each
 * retry, capped at 20 s, with jitter (a random half to whole of it) so that
 * writers that failed together do not retry together. A write whose failed
 * attempt may have reached the server is marked ambiguous in the answer, so
 * that a put-if-absent answered 412 on its retry can check whether the
 * object there is its own (store_s3.c).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <curl/curl.h>
#include <dlfcn.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/s3.h"
#include "util/mem.h"
#include "util/time.h"

#define MAX_IDLE 16
#define MAX_BACKOFF_MS 20000

struct io_s3_client {
    const io_s3_conf *conf;
    pthread_mutex_t mutex;
    CURL *idle[MAX_IDLE];
    size_t n_idle;
    char *host;         /* the Host header: [bucket.]host[:port] */
    char *base_url;     /* scheme://host[:port][/bucket] */
    char *canon_prefix; /* "/bucket" (path style) or "" */
};

static int curl_ready;

/*
 * libcurl and libcrypto are loaded when the first S3 store opens, not at
 * start: linked, they and the libraries they pull in (about 30) cost every
 * `silt` process several milliseconds of loading, S3 or not.
 */
typedef struct s3_lib {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *h);
    void (*easy_reset)(CURL *h);
    CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
    CURLcode (*easy_perform)(CURL *h);
    const char *(*easy_strerror)(CURLcode rc);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *line);
    void (*slist_free_all)(struct curl_slist *list);
    int (*evp_Digest)(const void *data, size_t count, unsigned char *md, unsigned int *size,
                      const EVP_MD *type, ENGINE *impl);
    const EVP_MD *(*evp_sha256)(void);
    unsigned char *(*hmac_fn)(const EVP_MD *md, const void *key, int key_len,
                              const unsigned char *data, size_t data_len, unsigned char *md_out,
                              unsigned int *md_len);
    int (*b64_encode)(unsigned char *t, const unsigned char *f, int n);
    int (*b64_decode)(unsigned char *t, const unsigned char *f, int n);
} s3_lib;

static s3_lib lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static char lib_error[512];

static int load_symbol(void *handle, const char *name, void *slot)
{
    void *sym = dlsym(handle, name);
    if (sym == NULL) {
        snprintf(lib_error, sizeof(lib_error), "%s has no %s", name[0] == 'c' ? "libcurl" :
                 "libcrypto", name);
        return 0;
    }
    memcpy(slot, &sym, sizeof(sym)); /* POSIX: a data pointer from dlsym holds a function */
    return 1;
}

static void load_libs(void)
{
    void *curl = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    void *crypto = curl ? dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL) : NULL;
    int ok;
    if (curl == NULL || crypto == NULL) {
        snprintf(lib_error, sizeof(lib_error), "%s", dlerror());
        return;
    }
    ok = load_symbol(curl, "curl_global_init", &lib.global_init) &&
         load_symbol(curl, "curl_easy_init", &lib.easy_init) &&
         load_symbol(curl, "curl_easy_cleanup", &lib.easy_cleanup) &&
         load_symbol(curl, "curl_easy_reset", &lib.easy_reset) &&
         load_symbol(curl, "curl_easy_setopt", &lib.easy_setopt) &&
         load_symbol(curl, "curl_easy_perform", &lib.easy_perform) &&
         load_symbol(curl, "curl_easy_strerror", &lib.easy_strerror) &&
         load_symbol(curl, "curl_slist_append", &lib.slist_append) &&
         load_symbol(curl, "curl_slist_free_all", &lib.slist_free_all) &&
         load_symbol(crypto, "EVP_Digest", &lib.evp_Digest) &&
         load_symbol(crypto, "EVP_sha256", &lib.evp_sha256) &&
         load_symbol(crypto, "HMAC", &lib.hmac_fn) &&
         load_symbol(crypto, "EVP_EncodeBlock", &lib.b64_encode) &&
         load_symbol(crypto, "EVP_DecodeBlock", &lib.b64_decode);
    if (ok && lib.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK)
        curl_ready = 1;
    else if (ok)
        snprintf(lib_error, sizeof(lib_error), "curl_global_init failed");
}


char *io_s3_sprintf(const char *fmt, ...)
{
    va_list ap;
    buf b = BUF_INIT;
    silt_status rc;
    va_start(ap, fmt);
    rc = buf_vprintf(&b, NULL, fmt, ap);
    va_end(ap);
    if (rc != SILT_OK) {
        buf_clear(&b);
        return NULL;
    }
    return buf_detach(&b, NULL);
}

silt_status io_s3_client_new(io_s3_client **out, const io_s3_conf *conf, silt_error *err)
{
    io_s3_client *c;
    const char *after_scheme = strstr(conf->endpoint, "://") + 3;
    size_t scheme_len = (size_t)(after_scheme - conf->endpoint);
    pthread_once(&lib_once, load_libs);
    if (!curl_ready)
        return err_set(err, SILT_IO, "the S3 store needs libcurl 4 and OpenSSL 3's libcrypto "
                       "(Debian's libcurl4 and libssl3), which could not be loaded: %s",
                       lib_error);
    c = mem_calloc(1, sizeof(*c));
    if (c == NULL)
        return err_nomem(err);
    c->conf = conf;
    pthread_mutex_init(&c->mutex, NULL);
    if (conf->dialect == IO_DIALECT_AZURE) {
        /* endpoint[/account for Azurite]/container/key; SharedKey signs /account + that path. */
        const char *path = after_scheme + strcspn(after_scheme, "/");
        c->host = mem_strndup(after_scheme, strcspn(after_scheme, "/"));
        c->base_url = io_s3_sprintf("%s/%s", conf->endpoint, conf->bucket);
        c->canon_prefix = io_s3_sprintf("/%s%s/%s", conf->account, path, conf->bucket);
    } else if (conf->dialect == IO_DIALECT_GCS) {
        c->host = mem_strndup(after_scheme, strcspn(after_scheme, "/"));
        c->base_url = io_s3_sprintf("%s/storage/v1/b/%s/o", conf->endpoint, conf->bucket);
        c->canon_prefix = mem_strdup("");
    } else if (conf->path_style) {
        c->host = mem_strndup(after_scheme, strcspn(after_scheme, "/"));
        c->base_url = io_s3_sprintf("%s/%s", conf->endpoint, conf->bucket);
        c->canon_prefix = io_s3_sprintf("/%s", conf->bucket);
    } else {
        c->host = io_s3_sprintf("%s.%.*s", conf->bucket, (int)strcspn(after_scheme, "/"),
                                after_scheme);
        c->base_url = io_s3_sprintf("%.*s%s%s", (int)scheme_len, conf->endpoint, c->host,
                                    after_scheme + strcspn(after_scheme, "/"));
        c->canon_prefix = mem_strdup("");
    }
    if (c->host == NULL || c->base_url == NULL || c->canon_prefix == NULL) {
        io_s3_client_free(c);
        return err_nomem(err);
    }
    *out = c;
    return SILT_OK;
}

void io_s3_client_free(io_s3_client *client)
{
    size_t idx;
    if (client == NULL)
        return;
    for (idx = 0; idx < client->n_idle; idx++)
        lib.easy_cleanup(client->idle[idx]);
    pthread_mutex_destroy(&client->mutex);
    mem_free(client->host);
    mem_free(client->base_url);
    mem_free(client->canon_prefix);
    mem_free(client);
}

static CURL *take_handle(io_s3_client *c)
{
    CURL *h = NULL;
    pthread_mutex_lock(&c->mutex);
    if (c->n_idle > 0)
        h = c->idle[--c->n_idle];
    pthread_mutex_unlock(&c->mutex);
    return h ? h : lib.easy_init();
}

static void give_handle(io_s3_client *c, CURL *h)
{
    pthread_mutex_lock(&c->mutex);
    if (c->n_idle < MAX_IDLE) {
        c->idle[c->n_idle++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&c->mutex);
    if (h != NULL)
        lib.easy_cleanup(h);
}

/* ---------------------------------------------------------------- encoding */

silt_status io_s3_uri_encode(buf *out, const char *s, int keep_slash, silt_error *err)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
            ch == '-' || ch == '_' || ch == '.' || ch == '~' || (ch == '/' && keep_slash)) {
            SILT_RETURN_IF_ERROR(buf_append_char(out, (char)ch, err));
        } else {
            char esc[3] = {'%', hex[ch >> 4], hex[ch & 15]};
            SILT_RETURN_IF_ERROR(buf_append(out, esc, 3, err));
        }
    }
    return SILT_OK;
}

static void to_hex(const unsigned char *bytes, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t idx;
    for (idx = 0; idx < n; idx++) {
        out[2 * idx] = hex[bytes[idx] >> 4];
        out[2 * idx + 1] = hex[bytes[idx] & 15];
    }
    out[2 * n] = '\0';
}

static void sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char digest[SHA256_DIGEST_LENGTH];
    unsigned int dlen = 0;
    lib.evp_Digest(data, len, digest, &dlen, lib.evp_sha256(), NULL);
    to_hex(digest, SHA256_DIGEST_LENGTH, out);
}

static void hmac(const void *key, size_t key_len, const char *msg, unsigned char out[32])
{
    unsigned int len = 32;
    lib.hmac_fn(lib.evp_sha256(), key, (int)key_len, (const unsigned char *)msg, strlen(msg), out, &len);
}

char *io_s3_url(io_s3_client *client, const char *key)
{
    buf b = BUF_INIT;
    silt_status rc = buf_append_str(&b, client->base_url, NULL);
    if (rc == SILT_OK && key[0] != '\0')
        rc = buf_append_char(&b, '/', NULL);
    if (rc == SILT_OK)
        rc = io_s3_uri_encode(&b, key, client->conf->dialect != IO_DIALECT_GCS, NULL);
    if (rc != SILT_OK) {
        buf_clear(&b);
        return NULL;
    }
    return buf_detach(&b, NULL);
}

/* A human name of the store's service, for messages. */
static const char *service_name(const io_s3_client *c)
{
    return c->conf->dialect == IO_DIALECT_AZURE ? "Azure" : c->conf->dialect == IO_DIALECT_GCS
                                                                ? "GCS" : "S3";
}

/* ---------------------------------------------------------------- signing */

typedef struct signed_req {
    char url[8192];
    struct curl_slist *headers;
} signed_req;

static silt_status add_header(signed_req *s, silt_error *err, const char *fmt, ...)
    SILT_PRINTF(3, 4);

static silt_status add_header(signed_req *s, silt_error *err, const char *fmt, ...)
{
    char line[4096];
    struct curl_slist *next;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    next = lib.slist_append(s->headers, line);
    if (next == NULL)
        return err_nomem(err);
    s->headers = next;
    return SILT_OK;
}

/* The signature of a canonical request (SigV4: the key derived from the secret, the scope). */
static void signature(const io_s3_conf *conf, const char *stamp, const char *canonical,
                      char out[65])
{
    char secret[512], to_sign[1024], hash[65], day[9];
    unsigned char k1[32], k2[32], k3[32], k4[32], sig[32];
    snprintf(day, sizeof(day), "%.8s", stamp);
    sha256_hex(canonical, strlen(canonical), hash);
    snprintf(to_sign, sizeof(to_sign), "AWS4-HMAC-SHA256\n%s\n%.8s/%s/s3/aws4_request\n%s", stamp,
             stamp, conf->region, hash);
    snprintf(secret, sizeof(secret), "AWS4%s", conf->secret_key);
    hmac(secret, strlen(secret), day, k1);
    hmac(k1, 32, conf->region, k2);
    hmac(k2, 32, "s3", k3);
    hmac(k3, 32, "aws4_request", k4);
    hmac(k4, 32, to_sign, sig);
    memset(secret, 0, sizeof(secret));
    to_hex(sig, 32, out);
}

silt_status io_s3_sign_canonical(const io_s3_conf *conf, const char *stamp, const char *canonical,
                                 char out[65], silt_error *err)
{
    pthread_once(&lib_once, load_libs);
    if (!curl_ready)
        return err_set(err, SILT_IO, "libcurl or libcrypto could not be loaded: %s", lib_error);
    signature(conf, stamp, canonical, out);
    return SILT_OK;
}

static silt_status canonical_uri(io_s3_client *c, const char *key, buf *out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(buf_append_str(out, c->canon_prefix, err));
    if (key[0] != '\0' || c->canon_prefix[0] == '\0')
        SILT_RETURN_IF_ERROR(buf_append_char(out, '/', err));
    return io_s3_uri_encode(out, key, 1, err);
}

static silt_status sign_s3(io_s3_client *c, const io_s3_req *req, signed_req *s, silt_error *err)
{
    const io_s3_conf *conf = c->conf;
    char payload[65], stamp[32], sig[65];
    time_t now = time(NULL);
    struct tm tm;
    buf uri = BUF_INIT, canon = BUF_INIT;
    silt_status rc;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
    sha256_hex(req->body ? req->body : "", req->body_len, payload);
    rc = canonical_uri(c, req->key, &uri, err);
    if (rc == SILT_OK && strlen(c->base_url) + uri.len + strlen(req->query) + 2 >= sizeof(s->url))
        rc = err_set(err, SILT_INVALID, "S3 request URL for key \"%s\" is too long", req->key);
    if (rc == SILT_OK)
        snprintf(s->url, sizeof(s->url), "%s%s%s%s", c->base_url,
                 buf_cstr(&uri) + strlen(c->canon_prefix), req->query[0] ? "?" : "", req->query);
    if (rc == SILT_OK && conf->access_key != NULL) {
        const char *signed_names = conf->token ? "host;x-amz-content-sha256;x-amz-date;"
                                                 "x-amz-security-token"
                                               : "host;x-amz-content-sha256;x-amz-date";
        rc = buf_printf(&canon, err, "%s\n%s\n%s\nhost:%s\nx-amz-content-sha256:%s\n"
                        "x-amz-date:%s\n", req->method, buf_cstr(&uri), req->query, c->host,
                        payload, stamp);
        if (rc == SILT_OK && conf->token)
            rc = buf_printf(&canon, err, "x-amz-security-token:%s\n", conf->token);
        if (rc == SILT_OK)
            rc = buf_printf(&canon, err, "\n%s\n%s", signed_names, payload);
        if (rc == SILT_OK) {
            signature(conf, stamp, buf_cstr(&canon), sig);
            rc = add_header(s, err, "Authorization: AWS4-HMAC-SHA256 Credential=%s/%.8s/%s/s3/"
                            "aws4_request, SignedHeaders=%s, Signature=%s", conf->access_key,
                            stamp, conf->region, signed_names, sig);
        }
        if (rc == SILT_OK && conf->token)
            rc = add_header(s, err, "x-amz-security-token: %s", conf->token);
    }
    if (rc == SILT_OK)
        rc = add_header(s, err, "x-amz-content-sha256: %s", payload);
    if (rc == SILT_OK)
        rc = add_header(s, err, "x-amz-date: %s", stamp);
    buf_clear(&uri);
    buf_clear(&canon);
    return rc;
}

/* ---------------------------------------------------------------- Azure and GCS */

/* The range a request asks for, as "bytes=a-b" (HTTP's form), "" for none. */
static void range_text(const io_s3_req *req, char *out, size_t cap)
{
    out[0] = '\0';
    if (req->range_from == -2)
        snprintf(out, cap, "bytes=-%lld", (long long)req->range_len);
    else if (req->range_from >= 0 && req->range_len < 0)
        snprintf(out, cap, "bytes=%lld-", (long long)req->range_from);
    else if (req->range_from >= 0)
        snprintf(out, cap, "bytes=%lld-%lld", (long long)req->range_from,
                 (long long)(req->range_from + req->range_len - 1));
}

static int hex_value(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* Appends s with its %XX escapes decoded (SharedKey signs query values decoded). */
static silt_status append_decoded(buf *out, const char *s, size_t len, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < len; idx++) {
        char ch = s[idx];
        if (ch == '%' && idx + 2 < len && hex_value(s[idx + 1]) >= 0 &&
            hex_value(s[idx + 2]) >= 0) {
            ch = (char)(hex_value(s[idx + 1]) * 16 + hex_value(s[idx + 2]));
            idx += 2;
        }
        SILT_RETURN_IF_ERROR(buf_append_char(out, ch, err));
    }
    return SILT_OK;
}

/* "\nname:value" for each query parameter, names in byte order (SharedKey's resource). */
static silt_status canonical_query(buf *out, const char *query, silt_error *err)
{
    const char *params[32];
    size_t n = 0, idx, jdx;
    const char *p = query;
    while (*p != '\0' && n < 32) {
        params[n++] = p;
        p += strcspn(p, "&");
        if (*p == '&')
            p++;
    }
    for (idx = 1; idx < n; idx++) /* a handful of parameters: insertion sort */
        for (jdx = idx; jdx > 0 && strcmp(params[jdx - 1], params[jdx]) > 0; jdx--) {
            const char *tmp = params[jdx];
            params[jdx] = params[jdx - 1];
            params[jdx - 1] = tmp;
        }
    for (idx = 0; idx < n; idx++) {
        size_t len = strcspn(params[idx], "&"), name = strcspn(params[idx], "=&");
        SILT_RETURN_IF_ERROR(buf_append_char(out, '\n', err));
        SILT_RETURN_IF_ERROR(append_decoded(out, params[idx], name, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, ':', err));
        if (name < len)
            SILT_RETURN_IF_ERROR(append_decoded(out, params[idx] + name + 1, len - name - 1,
                                                err));
    }
    return SILT_OK;
}

/* Base64 of HMAC-SHA256(base64-decoded key, text): SharedKey's signature. */
static silt_status shared_key_signature(const char *key_b64, const char *text, char out[64],
                                        silt_error *err)
{
    unsigned char key[256], mac[32];
    size_t klen = strlen(key_b64);
    int n, pad = 0;
    if (klen == 0 || klen % 4 != 0 || klen / 4 * 3 > sizeof(key))
        return err_set(err, SILT_INVALID, "the Azure storage account key is not base64 "
                       "(AZURE_STORAGE_KEY or fs.azure.account.key)");
    n = lib.b64_decode(key, (const unsigned char *)key_b64, (int)klen);
    if (n < 0)
        return err_set(err, SILT_INVALID, "the Azure storage account key is not base64 "
                       "(AZURE_STORAGE_KEY or fs.azure.account.key)");
    pad = key_b64[klen - 1] == '=' ? (key_b64[klen - 2] == '=' ? 2 : 1) : 0;
    hmac(key, (size_t)(n - pad), text, mac);
    memset(key, 0, sizeof(key));
    lib.b64_encode((unsigned char *)out, mac, 32);
    return SILT_OK;
}

static silt_status azure_url(io_s3_client *c, const io_s3_req *req, signed_req *s,
                             silt_error *err)
{
    const char *sas = c->conf->access_key == NULL ? c->conf->token : NULL;
    buf url = BUF_INIT;
    silt_status rc = buf_append_str(&url, c->base_url, err);
    if (rc == SILT_OK && req->key[0] != '\0')
        rc = buf_append_char(&url, '/', err);
    if (rc == SILT_OK)
        rc = io_s3_uri_encode(&url, req->key, 1, err);
    if (rc == SILT_OK && (req->query[0] || sas))
        rc = buf_printf(&url, err, "?%s%s%s", req->query, req->query[0] && sas ? "&" : "",
                        sas ? sas : "");
    if (rc == SILT_OK && url.len >= sizeof(s->url))
        rc = err_set(err, SILT_INVALID, "Azure request URL for key \"%s\" is too long", req->key);
    if (rc == SILT_OK)
        snprintf(s->url, sizeof(s->url), "%s", buf_cstr(&url));
    buf_clear(&url);
    return rc;
}

/* Azure Blob: the x-ms-* headers and SharedKey (or a SAS token in the URL). */
static silt_status sign_azure(io_s3_client *c, const io_s3_req *req, signed_req *s,
                              silt_error *err)
{
    char date[64], range[64], length[32], sig[64];
    time_t now = time(NULL);
    struct tm tm;
    buf text = BUF_INIT;
    silt_status rc = azure_url(c, req, s, err);
    gmtime_r(&now, &tm);
    strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
    range_text(req, range, sizeof(range));
    length[0] = '\0';
    if (req->body != NULL && req->body_len > 0)
        snprintf(length, sizeof(length), "%zu", req->body_len);
    if (rc == SILT_OK && req->azure_blob_put)
        rc = add_header(s, err, "x-ms-blob-type: BlockBlob");
    if (rc == SILT_OK)
        rc = add_header(s, err, "x-ms-date: %s", date);
    if (rc == SILT_OK && range[0])
        rc = add_header(s, err, "x-ms-range: %s", range);
    if (rc == SILT_OK)
        rc = add_header(s, err, "x-ms-version: 2021-12-02");
    if (rc != SILT_OK || c->conf->access_key == NULL)
        return rc;
    rc = buf_printf(&text, err, "%s\n\n\n%s\n\n%s\n\n\n\n%s\n\n\n%sx-ms-date:%s\n%s%s%s"
                    "x-ms-version:2021-12-02\n%s", req->method, length,
                    req->body ? "application/octet-stream" : "", req->if_none_match ? "*" : "",
                    req->azure_blob_put ? "x-ms-blob-type:BlockBlob\n" : "", date,
                    range[0] ? "x-ms-range:" : "", range, range[0] ? "\n" : "", c->canon_prefix);
    if (rc == SILT_OK && req->key[0] != '\0')
        rc = buf_append_char(&text, '/', err);
    if (rc == SILT_OK)
        rc = io_s3_uri_encode(&text, req->key, 1, err);
    if (rc == SILT_OK)
        rc = canonical_query(&text, req->query, err);
    if (rc == SILT_OK)
        rc = shared_key_signature(c->conf->secret_key, buf_cstr(&text), sig, err);
    if (rc == SILT_OK)
        rc = add_header(s, err, "Authorization: SharedKey %s:%s", c->conf->account, sig);
    buf_clear(&text);
    return rc;
}

/* GCS's JSON API: objects under /storage/v1/b/B/o/<name, '/' encoded>, uploads apart. */
static silt_status sign_gcs(io_s3_client *c, const io_s3_req *req, signed_req *s,
                            silt_error *err)
{
    buf url = BUF_INIT;
    silt_status rc;
    if (req->gcs_upload) {
        rc = buf_printf(&url, err, "%s/upload/storage/v1/b/%s/o?%s", c->conf->endpoint,
                        c->conf->bucket, req->query);
    } else {
        rc = buf_append_str(&url, c->base_url, err);
        if (rc == SILT_OK && req->key[0] != '\0')
            rc = buf_append_char(&url, '/', err);
        if (rc == SILT_OK)
            rc = io_s3_uri_encode(&url, req->key, 0, err);
        if (rc == SILT_OK && req->query[0])
            rc = buf_printf(&url, err, "?%s", req->query);
    }
    if (rc == SILT_OK && url.len >= sizeof(s->url))
        rc = err_set(err, SILT_INVALID, "GCS request URL for key \"%s\" is too long", req->key);
    if (rc == SILT_OK)
        snprintf(s->url, sizeof(s->url), "%s", buf_cstr(&url));
    buf_clear(&url);
    if (rc == SILT_OK && c->conf->token != NULL)
        rc = add_header(s, err, "Authorization: Bearer %s", c->conf->token);
    return rc;
}

static silt_status sign(io_s3_client *c, const io_s3_req *req, signed_req *s, silt_error *err)
{
    if (c->conf->dialect == IO_DIALECT_AZURE)
        return sign_azure(c, req, s, err);
    if (c->conf->dialect == IO_DIALECT_GCS)
        return sign_gcs(c, req, s, err);
    return sign_s3(c, req, s, err);
}

static silt_status other_headers(const io_s3_client *c, const io_s3_req *req, signed_req *s,
                                 silt_error *err)
{
    silt_status rc = add_header(s, err, "Expect:"); /* no 100-continue round trip */
    if (c->conf->dialect == IO_DIALECT_AZURE) {
        if (rc == SILT_OK && req->if_none_match)
            rc = add_header(s, err, "If-None-Match: *");
        if (rc == SILT_OK && req->body != NULL)
            rc = add_header(s, err, "Content-Type: application/octet-stream");
        return rc; /* the range went into x-ms-range, which SharedKey signs */
    }
    if (rc == SILT_OK && req->if_none_match)
        rc = add_header(s, err, "If-None-Match: *");
    if (rc == SILT_OK && req->body != NULL)
        rc = add_header(s, err, "Content-Type: application/octet-stream");
    if (rc == SILT_OK && req->range_from == -2)
        rc = add_header(s, err, "Range: bytes=-%lld", (long long)req->range_len);
    else if (rc == SILT_OK && req->range_from >= 0 && req->range_len < 0)
        rc = add_header(s, err, "Range: bytes=%lld-", (long long)req->range_from);
    else if (rc == SILT_OK && req->range_from >= 0)
        rc = add_header(s, err, "Range: bytes=%lld-%lld", (long long)req->range_from,
                        (long long)(req->range_from + req->range_len - 1));
    return rc;
}

/* ---------------------------------------------------------------- transfers */

typedef struct sink {
    const io_s3_req *req;
    io_s3_resp *resp;
    size_t out_start; /* req->out's length before the request */
    size_t dst_got;
    int overflow;
} sink;

static int is_success(long status) { return status >= 200 && status < 300; }

static size_t on_body(char *data, size_t size, size_t n, void *payload)
{
    sink *s = payload;
    size_t len = size * n;
    if (!is_success(s->resp->status) || (s->req->out == NULL && s->req->dst == NULL)) {
        if (s->resp->body.len < 64 * 1024)
            (void)buf_append(&s->resp->body, data, len, NULL);
        return len;
    }
    if (s->req->dst != NULL) {
        if (len > s->req->dst_len - s->dst_got) {
            s->overflow = 1;
            return 0;
        }
        memcpy(s->req->dst + s->dst_got, data, len);
        s->dst_got += len;
        return len;
    }
    return buf_append(s->req->out, data, len, NULL) == SILT_OK ? len : 0;
}

static int64_t header_number(const char *v)
{
    int64_t out = -1;
    size_t digits = strspn(v, "0123456789");
    if (digits == 0 || !util_str_to_int64(v, digits, &out))
        return -1;
    return out;
}

int64_t io_s3_http_date_micros(const char *v)
{
    /* "Thu, 03 Dec 2026 05:34:41 GMT" (RFC 7231's IMF-fixdate). */
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    int day, year, hh, mm, ss;
    char mon[4];
    const char *found;
    if (sscanf(v, "%*3s, %d %3s %d %d:%d:%d", &day, mon, &year, &hh, &mm, &ss) != 6)
        return 0;
    found = strstr(months, mon);
    if (found == NULL)
        return 0;
    return ((time_days_from_civil(year, (unsigned)((found - months) / 3 + 1), (unsigned)day) *
                 86400 + hh * 3600 + mm * 60 + ss) * TIME_MICROS_PER_SECOND);
}

static size_t on_header(char *data, size_t size, size_t n, void *payload)
{
    sink *s = payload;
    size_t len = size * n;
    char line[512];
    char *colon;
    if (len >= sizeof(line))
        return len;
    memcpy(line, data, len);
    line[len] = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    if (util_str_starts_with(line, "HTTP/")) {
        const char *sp = strchr(line, ' ');
        s->resp->status = sp ? strtol(sp + 1, NULL, 10) : 0;
        s->resp->etag[0] = '\0';
        s->resp->error_code[0] = '\0';
        s->resp->content_length = s->resp->total_size = -1;
        return len;
    }
    colon = strchr(line, ':');
    if (colon == NULL)
        return len;
    *colon = '\0';
    colon++;
    while (*colon == ' ')
        colon++;
    if (util_str_casecmp(line, "ETag") == 0)
        snprintf(s->resp->etag, sizeof(s->resp->etag), "%s", colon);
    else if (util_str_casecmp(line, "Content-Length") == 0)
        s->resp->content_length = header_number(colon);
    else if (util_str_casecmp(line, "Content-Range") == 0 && strchr(colon, '/') != NULL)
        s->resp->total_size = header_number(strchr(colon, '/') + 1);
    else if (util_str_casecmp(line, "x-ms-error-code") == 0)
        snprintf(s->resp->error_code, sizeof(s->resp->error_code), "%s", colon);
    else if (util_str_casecmp(line, "Last-Modified") == 0)
        s->resp->mtime_micros = io_s3_http_date_micros(colon);
    return len;
}

static void set_options(io_s3_client *c, CURL *h, const io_s3_req *req, signed_req *s,
                        sink *snk, char *errbuf)
{
    lib.easy_setopt(h, CURLOPT_URL, s->url);
    lib.easy_setopt(h, CURLOPT_HTTPHEADER, s->headers);
    lib.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    lib.easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    lib.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    lib.easy_setopt(h, CURLOPT_WRITEDATA, snk);
    lib.easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    lib.easy_setopt(h, CURLOPT_HEADERDATA, snk);
    lib.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)c->conf->connect_timeout_ms);
    /* A stalled transfer: under 1 byte/s for the whole connection.timeout. */
    lib.easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    lib.easy_setopt(h, CURLOPT_LOW_SPEED_TIME,
                     (long)((c->conf->stall_timeout_ms + 999) / 1000));
    lib.easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    if (strcmp(req->method, "HEAD") == 0) {
        lib.easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (strcmp(req->method, "GET") != 0) {
        lib.easy_setopt(h, CURLOPT_CUSTOMREQUEST, req->method);
        if (req->body != NULL || strcmp(req->method, "PUT") == 0 ||
            strcmp(req->method, "POST") == 0) {
            lib.easy_setopt(h, CURLOPT_POSTFIELDS, req->body ? (const char *)req->body : "");
            lib.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
        }
    }
}

static int retryable_curl(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return 1;
    default:
        return 0;
    }
}

/* 409 is S3's answer to two conditional writes of one key at once; Azure's 409 is final. */
static int retryable_status(const io_s3_client *c, long status)
{
    return status == 500 || status == 502 || status == 503 || status == 504 || status == 429 ||
           (status == 409 && c->conf->dialect == IO_DIALECT_S3);
}

static void backoff(const io_s3_conf *conf, int attempt)
{
    int64_t delay = conf->retry_interval_ms;
    int64_t half;
    struct timespec ts;
    unsigned seed = (unsigned)(time_monotonic_nanos() ^ (int64_t)getpid() * 2654435761u);
    int step;
    for (step = 0; step < attempt && delay < MAX_BACKOFF_MS; step++)
        delay *= 2;
    if (delay > MAX_BACKOFF_MS)
        delay = MAX_BACKOFF_MS;
    half = delay / 2;
    delay = half + (half > 0 ? (int64_t)(rand_r(&seed) % (unsigned)(half + 1)) : 0);
    ts.tv_sec = (time_t)(delay / 1000);
    ts.tv_nsec = (long)(delay % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* One attempt; *curl_rc and resp->status tell what happened. */
static silt_status attempt(io_s3_client *c, const io_s3_req *req, io_s3_resp *resp,
                           CURLcode *curl_rc, char *errbuf, int *overflow, silt_error *err)
{
    signed_req s;
    sink snk;
    CURL *h;
    silt_status rc;
    memset(&s, 0, sizeof(s));
    memset(&snk, 0, sizeof(snk));
    snk.req = req;
    snk.resp = resp;
    resp->status = 0;
    buf_truncate(&resp->body, 0);
    rc = sign(c, req, &s, err);
    if (rc == SILT_OK)
        rc = other_headers(c, req, &s, err);
    if (rc == SILT_OK && (h = take_handle(c)) == NULL)
        rc = err_nomem(err);
    if (rc == SILT_OK) {
        size_t out_start = req->out ? req->out->len : 0;
        lib.easy_reset(h);
        errbuf[0] = '\0';
        set_options(c, h, req, &s, &snk, errbuf);
        *curl_rc = lib.easy_perform(h);
        *overflow = snk.overflow;
        if (*curl_rc == CURLE_OK && req->dst != NULL && is_success(resp->status) &&
            snk.dst_got != req->dst_len) {
            *curl_rc = CURLE_PARTIAL_FILE; /* a short body: retried like a reset */
            snprintf(errbuf, CURL_ERROR_SIZE, "got %zu of %zu bytes", snk.dst_got, req->dst_len);
        }
        if ((*curl_rc != CURLE_OK || !is_success(resp->status)) && req->out != NULL)
            buf_truncate(req->out, out_start);
        give_handle(c, h);
    }
    lib.slist_free_all(s.headers);
    return rc;
}

static int is_write(const io_s3_req *req)
{
    return strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0;
}

silt_status io_s3_request(io_s3_client *client, const io_s3_req *req, io_s3_resp *resp,
                          silt_error *err)
{
    char errbuf[CURL_ERROR_SIZE];
    CURLcode curl_rc = CURLE_OK;
    int tries, overflow = 0;
    resp->ambiguous = 0;
    for (tries = 0;; tries++) {
        resp->attempts = tries + 1;
        SILT_RETURN_IF_ERROR(attempt(client, req, resp, &curl_rc, errbuf, &overflow, err));
        if (overflow)
            break;
        if (curl_rc == CURLE_OK && !retryable_status(client, resp->status))
            return SILT_OK;
        if (tries >= client->conf->retry_limit ||
            (curl_rc != CURLE_OK && !retryable_curl(curl_rc)))
            break;
        if (is_write(req) && ((curl_rc != CURLE_OK && curl_rc != CURLE_COULDNT_CONNECT) ||
                              resp->status == 500 || resp->status == 502 || resp->status == 504))
            resp->ambiguous = 1;
        backoff(client->conf, tries);
    }
    if (curl_rc == CURLE_OK)
        return SILT_OK; /* a retryable status, retries spent: the caller reports it */
    {
        char *url = io_s3_url(client, req->key);
        silt_status rc = err_set(err, SILT_IO, "%s %s %s%s%s failed after %d attempt%s: %s%s%s",
                                 service_name(client), req->method, url ? url : req->key, req->query[0] ? "?" : "",
                                 req->query, tries + 1, tries ? "s" : "",
                                 overflow ? "the server sent more bytes than asked for"
                                          : lib.easy_strerror(curl_rc),
                                 errbuf[0] ? ": " : "", errbuf);
        mem_free(url);
        return rc;
    }
}

/* ---------------------------------------------------------------- errors */

int io_s3_xml_next(const char **pos, const char *tag, buf *text)
{
    char open[64], close[64];
    const char *start, *end, *p;
    snprintf(open, sizeof(open), "<%s>", tag);
    snprintf(close, sizeof(close), "</%s>", tag);
    start = strstr(*pos, open);
    if (start == NULL)
        return 0;
    start += strlen(open);
    end = strstr(start, close);
    if (end == NULL)
        return 0;
    *pos = end + strlen(close);
    buf_truncate(text, 0);
    for (p = start; p < end; p++) {
        static const struct { const char *ent; char ch; } ents[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
        size_t idx;
        char ch = *p;
        if (ch == '&') {
            for (idx = 0; idx < sizeof(ents) / sizeof(ents[0]); idx++) {
                if (strncmp(p, ents[idx].ent, strlen(ents[idx].ent)) == 0) {
                    ch = ents[idx].ch;
                    p += strlen(ents[idx].ent) - 1;
                    break;
                }
            }
            if (idx == sizeof(ents) / sizeof(ents[0]) && p[1] == '#') {
                long code = p[2] == 'x' ? strtol(p + 3, NULL, 16) : strtol(p + 2, NULL, 10);
                const char *semi = strchr(p, ';');
                if (semi != NULL && code > 0 && code < 128) {
                    ch = (char)code;
                    p = semi;
                }
            }
        }
        if (buf_append_char(text, ch, NULL) != SILT_OK)
            return 0;
    }
    return 1;
}

/* The string value of the first "name": "..." in JSON text, unescaped; 0 when absent. */
int io_s3_json_field(const char *json, const char *name, buf *out)
{
    char pattern[64];
    const char *p;
    snprintf(pattern, sizeof(pattern), "\"%s\"", name);
    p = strstr(json, pattern);
    if (p == NULL)
        return 0;
    p += strlen(pattern);
    p += strspn(p, " \t\r\n");
    if (*p++ != ':')
        return 0;
    p += strspn(p, " \t\r\n");
    if (*p++ != '"')
        return 0;
    buf_truncate(out, 0);
    for (; *p != '\0' && *p != '"'; p++) {
        char ch = *p;
        if (ch == '\\' && p[1] != '\0') {
            p++;
            ch = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'r' ? '\r' : *p;
            if (*p == 'u' && strspn(p + 1, "0123456789abcdefABCDEF") >= 4) {
                long code = strtol((char[5]){p[1], p[2], p[3], p[4], '\0'}, NULL, 16);
                ch = code < 128 ? (char)code : '?'; /* object keys silt writes are ASCII */
                p += 4;
            }
        }
        if (buf_append_char(out, ch, NULL) != SILT_OK)
            return 0;
    }
    return 1;
}

static int json_string_field(const char *json, const char *name, char *dst, size_t cap)
{
    buf text = BUF_INIT;
    int found = io_s3_json_field(json, name, &text);
    if (found)
        snprintf(dst, cap, "%s", buf_cstr(&text));
    buf_clear(&text);
    return found;
}

void io_s3_base64(const void *data, size_t len, char *out)
{
    lib.b64_encode((unsigned char *)out, data, (int)len);
}

void io_s3_error_code(const io_s3_resp *resp, char *dst, size_t cap)
{
    buf text = BUF_INIT;
    const char *pos = buf_cstr(&resp->body);
    dst[0] = '\0';
    if (resp->body.len > 0 && io_s3_xml_next(&pos, "Code", &text))
        snprintf(dst, cap, "%s", buf_cstr(&text));
    else if (resp->error_code[0] != '\0') /* Azure's answers to HEAD have no body */
        snprintf(dst, cap, "%s", resp->error_code);
    else if (resp->body.len > 0 && buf_cstr(&resp->body)[0] == '{') /* GCS: errors[].reason */
        (void)json_string_field(buf_cstr(&resp->body), "reason", dst, cap);
    buf_clear(&text);
}

silt_status io_s3_error(io_s3_client *client, const io_s3_req *req, const io_s3_resp *resp,
                        silt_status code, silt_error *err)
{
    char *url = io_s3_url(client, req->key);
    char server_code[128];
    buf msg = BUF_INIT;
    const char *pos = buf_cstr(&resp->body);
    silt_status rc;
    io_s3_error_code(resp, server_code, sizeof(server_code));
    if (resp->body.len > 0 && !io_s3_xml_next(&pos, "Message", &msg) && pos[0] == '{') {
        char text[512];
        if (json_string_field(pos, "message", text, sizeof(text)))
            (void)buf_append_str(&msg, text, NULL);
    }
    rc = err_set(err, code, "%s %s %s%s%s failed%s: HTTP %ld%s%s%s%s", service_name(client),
                 req->method,
                 url ? url : req->key, req->query[0] ? "?" : "", req->query,
                 resp->attempts > 1 ? " after retries" : "", resp->status,
                 server_code[0] ? " " : "", server_code, msg.len ? ": " : "", buf_cstr(&msg));
    if (resp->attempts > 1)
        err_detail(err, "after %d attempts (%s)", resp->attempts,
                   client->conf->dialect == IO_DIALECT_AZURE ? "fs.azure.io.retry.max.retries"
                   : client->conf->dialect == IO_DIALECT_GCS ? "fs.gs.http.max.retry"
                                                             : "fs.s3a.retry.limit");
    if (strcmp(server_code, "AuthenticationFailed") == 0 ||
        strcmp(server_code, "AuthorizationFailure") == 0)
        err_hint(err, "check the Azure credentials (AZURE_STORAGE_KEY or "
                      "fs.azure.account.key, AZURE_STORAGE_SAS_TOKEN or fs.azure.sas.fixed.token)");
    else if (strcmp(server_code, "ContainerNotFound") == 0)
        err_hint(err, "container \"%s\" does not exist in account \"%s\" at %s",
                 client->conf->bucket, client->conf->account, client->conf->endpoint);
    else if (client->conf->dialect == IO_DIALECT_GCS && resp->status == 404 && req->key[0] == '\0')
        err_hint(err, "bucket \"%s\" does not exist at %s", client->conf->bucket,
                 client->conf->endpoint);
    else if (client->conf->dialect == IO_DIALECT_GCS && resp->status == 401)
        err_hint(err, "check the GCS credentials (GOOGLE_OAUTH_ACCESS_TOKEN or "
                      "fs.gs.auth.access.token)");
    else if (strcmp(server_code, "SignatureDoesNotMatch") == 0 ||
        strcmp(server_code, "InvalidAccessKeyId") == 0)
        err_hint(err, "check the S3 credentials (fs.s3a.access.key and fs.s3a.secret.key, "
                      "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the AWS profile)");
    else if (strcmp(server_code, "NoSuchBucket") == 0)
        err_hint(err, "bucket \"%s\" does not exist at %s", client->conf->bucket,
                 client->conf->endpoint);
    mem_free(url);
    buf_clear(&msg);
    return rc;
}
