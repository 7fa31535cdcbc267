/*
 * cloud_conf.c - where an Azure Blob / ADLS Gen2 store's and a Google Cloud
 * Storage store's account, credentials, endpoint and limits come from
 * (docs/object-storage.md has the table).
 *
 * Both back ends run on the S3 back end's client and store logic
 * (s3_http.c, store_s3.c) with their own dialect: Azure signs with
 * SharedKey or appends a SAS token, GCS sends a bearer token or nothing
 * (the emulator). Each setting is looked up, first found wins, in the store
 * options (SET keys and silt_db_set_option, Hadoop's names where they
 * exist), then the variables delta-rs and the cloud SDKs read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/s3.h"
#include "util/mem.h"

#define HADOOP_PREFIX "spark.hadoop."
#define AZURITE_ENDPOINT "http://127.0.0.1:10000/devstoreaccount1"
/* Azurite's well-known development key (public, documented by Microsoft). */
#define AZURITE_KEY "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/" \
                    "KBHBeksoGMGw=="

typedef enum { CK_TEXT, CK_COUNT, CK_SIZE, CK_MILLIS } cloud_kind;

typedef struct cloud_option {
    const char *name;  /* full key; a trailing '.' takes any suffix (per account) */
    cloud_kind kind;
} cloud_option;

static const cloud_option cloud_options[] = {
    {"fs.azure.account.name", CK_TEXT},
    {"fs.azure.account.key", CK_TEXT},
    {"fs.azure.account.key.", CK_TEXT},
    {"fs.azure.sas.fixed.token", CK_TEXT},
    {"fs.azure.sas.fixed.token.", CK_TEXT},
    {"fs.azure.endpoint", CK_TEXT},
    {"fs.azure.io.retry.max.retries", CK_COUNT},
    {"fs.azure.io.retry.backoff.interval", CK_MILLIS},
    {"fs.azure.write.request.size", CK_SIZE},
    {"fs.gs.storage.root.url", CK_TEXT},
    {"fs.gs.auth.access.token", CK_TEXT},
    {"fs.gs.http.max.retry", CK_COUNT},
    {"fs.gs.http.retry.interval", CK_MILLIS},
};

static const char *strip_hadoop(const char *key)
{
    return util_str_starts_with(key, HADOOP_PREFIX) ? key + strlen(HADOOP_PREFIX) : key;
}

int io_cloud_is_option_key(const char *key)
{
    const char *k = key ? strip_hadoop(key) : "";
    return util_str_starts_with(k, "fs.azure.") || util_str_starts_with(k, "fs.gs.");
}

static const cloud_option *find_option(const char *key)
{
    size_t idx;
    key = strip_hadoop(key);
    for (idx = 0; idx < sizeof(cloud_options) / sizeof(cloud_options[0]); idx++) {
        const char *name = cloud_options[idx].name;
        size_t len = strlen(name);
        if (name[len - 1] == '.' ? util_str_starts_with(key, name) && key[len] != '\0'
                                 : strcmp(key, name) == 0)
            return &cloud_options[idx];
    }
    return NULL;
}

/* Parses a count, a size (k, m, g units) or a duration (ms, s, m units); 0 when malformed. */
static int parse_value(const char *text, cloud_kind kind, int64_t *out)
{
    char *end;
    long long v;
    int64_t scale = 1;
    if (text == NULL || text[0] < '0' || text[0] > '9')
        return 0;
    v = strtoll(text, &end, 10);
    if (kind == CK_COUNT)
        return *end == '\0' && v <= 100 ? (*out = v, 1) : 0;
    if (kind == CK_SIZE && *end != '\0') {
        char u = (char)(end[0] | 0x20);
        if (end[1] != '\0' && !((end[1] | 0x20) == 'b' && end[2] == '\0'))
            return 0;
        scale = u == 'k' ? 1024 : u == 'm' ? 1 << 20 : u == 'g' ? 1 << 30 : 0;
    } else if (kind == CK_MILLIS && *end != '\0') {
        scale = strcmp(end, "ms") == 0 ? 1 : strcmp(end, "s") == 0 ? 1000
                : strcmp(end, "m") == 0 ? 60000 : 0;
    }
    if (scale == 0 || v > INT64_MAX / scale)
        return 0;
    *out = v * scale;
    return kind != CK_SIZE || *out >= 64 * 1024;
}

silt_status io_cloud_check_option(const char *key, const char *value, silt_error *err)
{
    const cloud_option *opt = find_option(key);
    int64_t scratch;
    if (opt == NULL)
        return err_set(err, SILT_INVALID, "store option \"%s\" is not known: the Azure store "
                       "takes fs.azure.account.name, fs.azure.account.key[.<account>...], "
                       "fs.azure.sas.fixed.token[.<account>...], fs.azure.endpoint, "
                       "fs.azure.io.retry.max.retries, fs.azure.io.retry.backoff.interval and "
                       "fs.azure.write.request.size; the GCS store fs.gs.storage.root.url, "
                       "fs.gs.auth.access.token, fs.gs.http.max.retry and "
                       "fs.gs.http.retry.interval", key);
    if (opt->kind != CK_TEXT && !parse_value(value, opt->kind, &scratch))
        return err_set(err, SILT_INVALID, "store option \"%s\" has value \"%s\"; expected %s", key,
                       value ? value : "", opt->kind == CK_COUNT ? "a count from 0 to 100"
                       : opt->kind == CK_SIZE ? "a size of 64k or more (k, m, g units)"
                                              : "a duration (ms, s, m units)");
    return SILT_OK;
}

/* The last value set for key (or key.<suffix> when suffix is given), or NULL. */
static const char *opt_value(const io_store_options *opts, const char *key, const char *suffix)
{
    const char *found = NULL, *found_specific = NULL;
    size_t idx, klen = strlen(key);
    for (idx = 0; opts != NULL && idx < opts->n; idx++) {
        const char *k = strip_hadoop(opts->keys[idx]);
        if (strcmp(k, key) == 0)
            found = opts->values[idx];
        else if (suffix != NULL && strncmp(k, key, klen) == 0 && k[klen] == '.' &&
                 util_str_starts_with(k + klen + 1, suffix) &&
                 (k[klen + 1 + strlen(suffix)] == '\0' || k[klen + 1 + strlen(suffix)] == '.'))
            found_specific = opts->values[idx];
    }
    return found_specific ? found_specific : found;
}

static const char *env_value(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? v : NULL;
}

static silt_status dup_first(char **dst, const char *a, const char *b, const char *c,
                             silt_error *err)
{
    const char *v = a ? a : b ? b : c;
    *dst = NULL;
    if (v == NULL)
        return SILT_OK;
    *dst = mem_strdup(v);
    return *dst ? SILT_OK : err_nomem(err);
}

static silt_status pick_limit(const io_store_options *opts, const char *key, cloud_kind kind,
                              int64_t def, int64_t *out, silt_error *err)
{
    const char *v = opt_value(opts, key, NULL);
    *out = def;
    if (v == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(io_cloud_check_option(key, v, err));
    (void)parse_value(v, kind, out);
    return SILT_OK;
}

/* The endpoint without trailing '/', an http(s) URL; "host:port" gets http://. */
static silt_status set_endpoint(io_s3_conf *c, const char *raw, silt_error *err)
{
    size_t len;
    c->endpoint = strstr(raw, "://") ? mem_strdup(raw) : io_s3_sprintf("http://%s", raw);
    if (c->endpoint == NULL)
        return err_nomem(err);
    len = strlen(c->endpoint);
    while (len > 0 && c->endpoint[len - 1] == '/')
        c->endpoint[--len] = '\0';
    if (!util_str_starts_with(c->endpoint, "http://") &&
        !util_str_starts_with(c->endpoint, "https://"))
        return err_set(err, SILT_INVALID, "endpoint \"%s\" is not an http:// or https:// URL",
                       c->endpoint);
    return SILT_OK;
}

/* container[@account.host]/path or bucket/path after the scheme. */
static silt_status split_location(io_s3_conf *c, const char *location, char **host_out,
                                  silt_error *err)
{
    const char *rest = strstr(location, "://") + 3;
    size_t auth = strcspn(rest, "/"), at = strcspn(rest, "@/"), plen;
    const char *path = rest[auth] == '/' ? rest + auth + 1 : "";
    *host_out = NULL;
    if (at == 0)
        return err_set(err, SILT_INVALID, "storage location \"%s\" names no %s", location,
                       c->dialect == IO_DIALECT_AZURE ? "container" : "bucket");
    c->bucket = mem_strndup(rest, at);
    if (c->bucket == NULL)
        return err_nomem(err);
    if (at < auth && (*host_out = mem_strndup(rest + at + 1, auth - at - 1)) == NULL)
        return err_nomem(err);
    plen = strlen(path);
    while (plen > 0 && path[plen - 1] == '/')
        plen--;
    if ((c->prefix = mem_strndup(path, plen)) == NULL)
        return err_nomem(err);
    if (strspn(c->bucket, "abcdefghijklmnopqrstuvwxyz0123456789.-_") != at)
        return err_set(err, SILT_INVALID, "storage location \"%s\": \"%s\" is not a valid %s "
                       "name (lower-case letters, digits, '.', '-')", location, c->bucket,
                       c->dialect == IO_DIALECT_AZURE ? "container" : "bucket");
    return plen > 0 ? io_check_key(c->prefix, err) : SILT_OK;
}

static silt_status resolve_azure(io_s3_conf *c, const char *location,
                                 const io_store_options *opts, silt_error *err)
{
    char *host = NULL;
    const char *endpoint, *key, *sas;
    int emulator = env_value("AZURE_STORAGE_USE_EMULATOR") != NULL &&
                   strcmp(env_value("AZURE_STORAGE_USE_EMULATOR"), "true") == 0;
    int64_t v;
    silt_status rc = split_location(c, location, &host, err);
    if (rc == SILT_OK && host != NULL && strchr(host, '.') != NULL)
        rc = (c->account = mem_strndup(host, strcspn(host, "."))) ? SILT_OK : err_nomem(err);
    else if (rc == SILT_OK)
        rc = dup_first(&c->account, opt_value(opts, "fs.azure.account.name", NULL),
                       env_value("AZURE_STORAGE_ACCOUNT_NAME"), env_value("AZURE_STORAGE_ACCOUNT"),
                       err);
    mem_free(host);
    SILT_RETURN_IF_ERROR(rc);
    if (c->account == NULL && emulator && (c->account = mem_strdup("devstoreaccount1")) == NULL)
        return err_nomem(err);
    if (c->account == NULL)
        return err_set(err, SILT_INVALID, "storage location \"%s\" names no Azure storage "
                       "account: write container@account.blob.core.windows.net, or set "
                       "AZURE_STORAGE_ACCOUNT or fs.azure.account.name", location);
    key = opt_value(opts, "fs.azure.account.key", c->account);
    if (key == NULL)
        key = env_value("AZURE_STORAGE_KEY") ? env_value("AZURE_STORAGE_KEY")
                                              : env_value("AZURE_STORAGE_ACCOUNT_KEY");
    if (key == NULL && emulator)
        key = AZURITE_KEY;
    sas = opt_value(opts, "fs.azure.sas.fixed.token", c->account);
    if (sas == NULL)
        sas = env_value("AZURE_STORAGE_SAS_TOKEN");
    if (sas != NULL && sas[0] == '?')
        sas++;
    /* A SAS token, when there is one, is the credential: it needs no key. */
    SILT_RETURN_IF_ERROR(dup_first(&c->token, sas, NULL, NULL, err));
    if (c->token == NULL && key != NULL) {
        SILT_RETURN_IF_ERROR(dup_first(&c->secret_key, key, NULL, NULL, err));
        SILT_RETURN_IF_ERROR(dup_first(&c->access_key, c->account, NULL, NULL, err));
    }
    endpoint = opt_value(opts, "fs.azure.endpoint", NULL);
    if (endpoint == NULL)
        endpoint = env_value("AZURE_STORAGE_ENDPOINT");
    if (endpoint == NULL && emulator)
        endpoint = AZURITE_ENDPOINT;
    if (endpoint != NULL)
        SILT_RETURN_IF_ERROR(set_endpoint(c, endpoint, err));
    else if ((c->endpoint = io_s3_sprintf("https://%s.blob.core.windows.net", c->account)) ==
             NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(pick_limit(opts, "fs.azure.io.retry.max.retries", CK_COUNT, 7, &v, err));
    c->retry_limit = (int)v;
    SILT_RETURN_IF_ERROR(pick_limit(opts, "fs.azure.io.retry.backoff.interval", CK_MILLIS, 500,
                                    &c->retry_interval_ms, err));
    return pick_limit(opts, "fs.azure.write.request.size", CK_SIZE, INT64_C(8) << 20,
                      &c->part_size, err);
}

static silt_status resolve_gcs(io_s3_conf *c, const char *location,
                               const io_store_options *opts, silt_error *err)
{
    char *host = NULL;
    const char *endpoint;
    int64_t v;
    silt_status rc = split_location(c, location, &host, err);
    if (rc == SILT_OK && host != NULL)
        rc = err_set(err, SILT_INVALID, "storage location \"%s\": a gs:// location is "
                     "gs://bucket/path", location);
    mem_free(host);
    SILT_RETURN_IF_ERROR(rc);
    endpoint = opt_value(opts, "fs.gs.storage.root.url", NULL);
    if (endpoint == NULL)
        endpoint = env_value("STORAGE_EMULATOR_HOST");
    SILT_RETURN_IF_ERROR(set_endpoint(c, endpoint ? endpoint : "https://storage.googleapis.com",
                                      err));
    SILT_RETURN_IF_ERROR(dup_first(&c->token, opt_value(opts, "fs.gs.auth.access.token", NULL),
                                   env_value("GOOGLE_OAUTH_ACCESS_TOKEN"), NULL, err));
    SILT_RETURN_IF_ERROR(pick_limit(opts, "fs.gs.http.max.retry", CK_COUNT, 7, &v, err));
    c->retry_limit = (int)v;
    SILT_RETURN_IF_ERROR(pick_limit(opts, "fs.gs.http.retry.interval", CK_MILLIS, 500,
                                    &c->retry_interval_ms, err));
    /* One media upload per object: GCS makes it visible whole or not at all. */
    c->part_size = INT64_MAX;
    return SILT_OK;
}

int io_cloud_is_location(const char *location)
{
    static const char *const schemes[] = {"abfss://", "abfs://", "wasbs://", "wasb://", "az://",
                                          "gs://", "gcs://"};
    size_t idx;
    for (idx = 0; idx < sizeof(schemes) / sizeof(schemes[0]); idx++)
        if (util_str_starts_with(location, schemes[idx]))
            return 1;
    return 0;
}

silt_status io_cloud_conf_resolve(io_s3_conf *out, const char *location,
                                  const io_store_options *opts, silt_error *err)
{
    silt_status rc;
    memset(out, 0, sizeof(*out));
    out->dialect = util_str_starts_with(location, "gs://") || util_str_starts_with(location, "gcs://")
                       ? IO_DIALECT_GCS : IO_DIALECT_AZURE;
    out->connect_timeout_ms = 30000;
    out->stall_timeout_ms = 200000;
    out->path_style = 1;
    out->ranged_reads = 4;
    rc = out->dialect == IO_DIALECT_GCS ? resolve_gcs(out, location, opts, err)
                                        : resolve_azure(out, location, opts, err);
    if (rc == SILT_OK && (out->region = mem_strdup("")) == NULL)
        rc = err_nomem(err);
    if (rc != SILT_OK)
        io_s3_conf_clear(out);
    return rc;
}
