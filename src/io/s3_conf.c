/*
 * s3_conf.c - where an S3 store's credentials, region, endpoint and limits
 * come from.
 *
 * Each setting is looked up, first found wins, in: the store options (the
 * database's silt_db_set_option keys and the session's SET keys, Hadoop S3A
 * names: fs.s3a.bucket.<bucket>.<name> before fs.s3a.<name>, either also
 * under spark.hadoop.), then the AWS variables (AWS_ACCESS_KEY_ID, ...,
 * AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, AWS_REGION), then the profile
 * (AWS_PROFILE, else "default") of ~/.aws/credentials and ~/.aws/config
 * (AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE). The access key and the
 * secret are taken as a pair from the first source that has a key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/s3.h"
#include "util/mem.h"

typedef enum { OPT_TEXT, OPT_BOOL, OPT_COUNT, OPT_SIZE, OPT_MILLIS } opt_kind;

typedef struct s3_option {
    const char *name; /* after "fs.s3a." */
    opt_kind kind;
} s3_option;

/* The settings this back end acts on (docs/object-storage.md lists them with their defaults). */
static const s3_option s3_options[] = {
    {"access.key", OPT_TEXT},
    {"secret.key", OPT_TEXT},
    {"session.token", OPT_TEXT},
    {"endpoint", OPT_TEXT},
    {"endpoint.region", OPT_TEXT},
    {"path.style.access", OPT_BOOL},
    {"connection.ssl.enabled", OPT_BOOL},
    {"retry.limit", OPT_COUNT},
    {"retry.interval", OPT_MILLIS},
    {"multipart.size", OPT_SIZE},
    {"connection.establish.timeout", OPT_MILLIS},
    {"connection.timeout", OPT_MILLIS},
    {"vectored.active.ranged.reads", OPT_COUNT},
};

#define S3A_PREFIX "fs.s3a."
#define HADOOP_PREFIX "spark.hadoop."
#define MIN_PART_SIZE ((int64_t)5 << 20) /* S3's smallest part but the last */

static const char *strip_hadoop(const char *key)
{
    return util_str_starts_with(key, HADOOP_PREFIX) ? key + strlen(HADOOP_PREFIX) : key;
}

int io_s3_is_option_key(const char *key)
{
    return key != NULL && util_str_starts_with(strip_hadoop(key), S3A_PREFIX);
}

/* The option named by a key's tail (after fs.s3a. or fs.s3a.bucket.<b>.), or NULL. */
static const s3_option *find_option(const char *tail)
{
    size_t idx;
    for (idx = 0; idx < sizeof(s3_options) / sizeof(s3_options[0]); idx++)
        if (strcmp(s3_options[idx].name, tail) == 0)
            return &s3_options[idx];
    return NULL;
}

/* The known option a full key names (per-bucket keys included), or NULL. */
static const s3_option *option_of_key(const char *key)
{
    const char *tail = strip_hadoop(key) + strlen(S3A_PREFIX);
    if (util_str_starts_with(tail, "bucket.")) {
        /* fs.s3a.bucket.<bucket>.<name>: bucket names have dots, so try each split. */
        const char *dot;
        for (dot = strchr(tail + strlen("bucket."), '.'); dot != NULL; dot = strchr(dot + 1, '.')) {
            const s3_option *opt = find_option(dot + 1);
            if (opt != NULL)
                return opt;
        }
        return NULL;
    }
    return find_option(tail);
}

static int parse_bool(const char *text, int *out)
{
    if (util_str_casecmp(text, "true") == 0)
        *out = 1;
    else if (util_str_casecmp(text, "false") == 0)
        *out = 0;
    else
        return 0;
    return 1;
}

/* A non-negative number with an optional unit, as Hadoop's getLongBytes / getTimeDuration. */
static int parse_scaled(const char *text, opt_kind kind, int64_t *out)
{
    static const struct { const char *unit; int64_t mult; opt_kind kind; } units[] = {
        {"k", INT64_C(1) << 10, OPT_SIZE}, {"m", INT64_C(1) << 20, OPT_SIZE},
        {"g", INT64_C(1) << 30, OPT_SIZE}, {"t", INT64_C(1) << 40, OPT_SIZE},
        {"ms", 1, OPT_MILLIS},            {"s", 1000, OPT_MILLIS},
        {"m", 60000, OPT_MILLIS},         {"h", 3600000, OPT_MILLIS},
        {"d", 86400000, OPT_MILLIS},
    };
    size_t len = strlen(text), digits = 0, idx;
    int64_t value;
    while (digits < len && text[digits] >= '0' && text[digits] <= '9')
        digits++;
    if (digits == 0 || digits > 15 || !util_str_to_int64(text, digits, &value))
        return 0;
    if (digits == len) {
        *out = value;
        return 1;
    }
    for (idx = 0; idx < sizeof(units) / sizeof(units[0]); idx++) {
        if (units[idx].kind == kind && util_str_casecmp(text + digits, units[idx].unit) == 0) {
            *out = value * units[idx].mult;
            return 1;
        }
    }
    return 0;
}

static silt_status check_value(const char *key, const s3_option *opt, const char *value,
                               silt_error *err)
{
    int flag;
    int64_t num;
    switch (opt->kind) {
    case OPT_TEXT:
        return SILT_OK;
    case OPT_BOOL:
        if (parse_bool(value, &flag))
            return SILT_OK;
        return err_set(err, SILT_INVALID, "store option \"%s\" has value \"%s\"; expected true "
                       "or false", key, value);
    case OPT_COUNT:
        if (parse_scaled(value, OPT_COUNT, &num) && num <= 100)
            return SILT_OK;
        return err_set(err, SILT_INVALID, "store option \"%s\" has value \"%s\"; expected a "
                       "count from 0 to 100", key, value);
    case OPT_SIZE:
        if (parse_scaled(value, OPT_SIZE, &num) && num >= MIN_PART_SIZE && num <= (INT64_C(5) << 30))
            return SILT_OK;
        return err_set(err, SILT_INVALID, "store option \"%s\" has value \"%s\"; expected a "
                       "size from 5M to 5G (S3's part size limits), such as 64M", key, value);
    case OPT_MILLIS:
        if (parse_scaled(value, OPT_MILLIS, &num) && num > 0 && num <= 86400000)
            return SILT_OK;
        return err_set(err, SILT_INVALID, "store option \"%s\" has value \"%s\"; expected a "
                       "positive duration in milliseconds or with a unit (ms, s, m, h)", key,
                       value);
    }
    return SILT_OK;
}

silt_status io_s3_check_option(const char *key, const char *value, silt_error *err)
{
    const s3_option *opt = option_of_key(key);
    if (opt == NULL)
        return err_set(err, SILT_INVALID, "store option \"%s\" is not known: the S3 store acts "
                       "on fs.s3a.access.key, secret.key, session.token, endpoint, "
                       "endpoint.region, path.style.access, connection.ssl.enabled, retry.limit, "
                       "retry.interval, multipart.size, connection.establish.timeout and "
                       "connection.timeout (also per bucket, fs.s3a.bucket.<bucket>.<name>)", key);
    if (value == NULL)
        return SILT_OK;
    return check_value(key, opt, value, err);
}

/* ---------------------------------------------------------------- lookups */

typedef struct lookup {
    const io_store_options *opts;
    const char *bucket;
    char *profile_name;
    buf creds; /* the credentials file, NUL-terminated, or empty */
    buf config;
} lookup;

/* The value of fs.s3a.<name> for the bucket in the options (last one set wins), or NULL. */
static const char *opt_value(const lookup *lk, const char *name)
{
    const char *found = NULL, *found_bucket = NULL;
    size_t idx, name_len = strlen(name), bucket_len = strlen(lk->bucket);
    for (idx = 0; lk->opts != NULL && idx < lk->opts->n; idx++) {
        const char *key = strip_hadoop(lk->opts->keys[idx]);
        if (!util_str_starts_with(key, S3A_PREFIX))
            continue;
        key += strlen(S3A_PREFIX);
        if (strcmp(key, name) == 0)
            found = lk->opts->values[idx];
        else if (util_str_starts_with(key, "bucket.") &&
                 strncmp(key + 7, lk->bucket, bucket_len) == 0 && key[7 + bucket_len] == '.' &&
                 strncmp(key + 8 + bucket_len, name, name_len + 1) == 0)
            found_bucket = lk->opts->values[idx];
    }
    return found_bucket ? found_bucket : found;
}

static const char *env_value(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? v : NULL;
}

static silt_status read_text_file(const char *path, buf *out, silt_error *err)
{
    FILE *f = fopen(path, "rb");
    char chunk[4096];
    size_t n;
    silt_status rc = SILT_OK;
    if (f == NULL)
        return SILT_OK; /* no file: no profile there */
    while (rc == SILT_OK && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        rc = buf_append(out, chunk, n, err);
    fclose(f);
    return rc == SILT_OK ? buf_append(out, "", 0, err) : rc;
}

static char *home_file(const char *env, const char *rel)
{
    const char *path = env_value(env), *home = env_value("HOME");
    if (path != NULL)
        return mem_strdup(path);
    if (home == NULL)
        return NULL;
    return io_key_join(home, rel);
}

static const char *trim(char *s, char **end_out)
{
    char *end;
    while (*s == ' ' || *s == '\t')
        s++;
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    *end = '\0';
    if (end_out)
        *end_out = end;
    return s;
}

/*
 * The value of name in section [section] of an INI text, copied into dst.
 * 1 when found; *section_seen tells whether the section exists.
 */
static int ini_value(const char *text, const char *section, const char *name, char *dst,
                     size_t cap, int *section_seen)
{
    const char *line = text;
    int in_section = 0;
    char tmp[1024];
    while (line != NULL && *line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *t, *end;
        const char *s;
        if (len >= sizeof(tmp))
            len = sizeof(tmp) - 1;
        memcpy(tmp, line, len);
        tmp[len] = '\0';
        s = trim(tmp, &end);
        if (s[0] == '[' && end > s + 1 && end[-1] == ']') {
            end[-1] = '\0';
            t = (char *)s + 1;
            in_section = strcmp(trim(t, NULL), section) == 0;
            if (in_section)
                *section_seen = 1;
        } else if (in_section && s[0] != '#' && s[0] != ';' && (t = strchr(s, '=')) != NULL) {
            *t = '\0';
            if (strcmp(trim((char *)s, NULL), name) == 0) {
                snprintf(dst, cap, "%s", trim(t + 1, NULL));
                return 1;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    return 0;
}

/* The value of a profile key in the credentials file, then the config file. */
static int profile_value(lookup *lk, const char *name, char *dst, size_t cap)
{
    char section[300];
    int seen = 0;
    if (ini_value(buf_cstr(&lk->creds), lk->profile_name, name, dst, cap, &seen))
        return 1;
    if (strcmp(lk->profile_name, "default") == 0)
        snprintf(section, sizeof(section), "default");
    else
        snprintf(section, sizeof(section), "profile %s", lk->profile_name);
    return ini_value(buf_cstr(&lk->config), section, name, dst, cap, &seen);
}

static silt_status load_profiles(lookup *lk, silt_error *err)
{
    char *creds = home_file("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
    char *config = home_file("AWS_CONFIG_FILE", ".aws/config");
    const char *named = env_value("AWS_PROFILE");
    silt_status rc = SILT_OK;
    if (named == NULL)
        named = env_value("AWS_DEFAULT_PROFILE");
    lk->profile_name = mem_strdup(named ? named : "default");
    if (lk->profile_name == NULL)
        rc = err_nomem(err);
    if (rc == SILT_OK && creds != NULL)
        rc = read_text_file(creds, &lk->creds, err);
    if (rc == SILT_OK && config != NULL)
        rc = read_text_file(config, &lk->config, err);
    if (rc == SILT_OK && named != NULL) {
        /* A profile asked for by name must exist (as the AWS CLI says). */
        char section[300];
        char dummy[8];
        int seen = 0;
        snprintf(section, sizeof(section), "profile %s", named);
        (void)ini_value(buf_cstr(&lk->creds), named, "-", dummy, sizeof(dummy), &seen);
        (void)ini_value(buf_cstr(&lk->config), section, "-", dummy, sizeof(dummy), &seen);
        if (strcmp(named, "default") == 0)
            (void)ini_value(buf_cstr(&lk->config), "default", "-", dummy, sizeof(dummy), &seen);
        if (!seen)
            rc = err_set(err, SILT_INVALID, "the AWS profile \"%s\" (AWS_PROFILE) is in neither "
                         "%s nor %s", named, creds ? creds : "~/.aws/credentials",
                         config ? config : "~/.aws/config");
    }
    mem_free(creds);
    mem_free(config);
    return rc;
}

/* Sets *dst to a copy of the first of: option, variable(s), profile key; NULL when none. */
static silt_status pick(lookup *lk, char **dst, const char *opt, const char *env1,
                        const char *env2, const char *profile_key, silt_error *err)
{
    const char *v = opt ? opt_value(lk, opt) : NULL;
    char tmp[1024];
    if (v == NULL && env1 != NULL)
        v = env_value(env1);
    if (v == NULL && env2 != NULL)
        v = env_value(env2);
    if (v == NULL && profile_key != NULL && profile_value(lk, profile_key, tmp, sizeof(tmp)))
        v = tmp;
    *dst = NULL;
    if (v == NULL)
        return SILT_OK;
    *dst = mem_strdup(v);
    return *dst ? SILT_OK : err_nomem(err);
}

/* The access key, secret and token as a pair from the first source with a key. */
static silt_status pick_credentials(lookup *lk, io_s3_conf *c, silt_error *err)
{
    if (opt_value(lk, "access.key") != NULL) {
        SILT_RETURN_IF_ERROR(pick(lk, &c->access_key, "access.key", NULL, NULL, NULL, err));
        SILT_RETURN_IF_ERROR(pick(lk, &c->secret_key, "secret.key", NULL, NULL, NULL, err));
        SILT_RETURN_IF_ERROR(pick(lk, &c->token, "session.token", NULL, NULL, NULL, err));
    } else if (env_value("AWS_ACCESS_KEY_ID") != NULL) {
        SILT_RETURN_IF_ERROR(pick(lk, &c->access_key, NULL, "AWS_ACCESS_KEY_ID", NULL, NULL, err));
        SILT_RETURN_IF_ERROR(pick(lk, &c->secret_key, NULL, "AWS_SECRET_ACCESS_KEY", NULL, NULL,
                                  err));
        SILT_RETURN_IF_ERROR(pick(lk, &c->token, NULL, "AWS_SESSION_TOKEN", NULL, NULL, err));
    } else {
        SILT_RETURN_IF_ERROR(pick(lk, &c->access_key, NULL, NULL, NULL, "aws_access_key_id", err));
        SILT_RETURN_IF_ERROR(pick(lk, &c->secret_key, NULL, NULL, NULL, "aws_secret_access_key",
                                  err));
        SILT_RETURN_IF_ERROR(pick(lk, &c->token, NULL, NULL, NULL, "aws_session_token", err));
    }
    if (c->access_key != NULL && c->secret_key == NULL)
        return err_set(err, SILT_INVALID, "S3 credentials for bucket \"%s\" have an access key "
                       "but no secret key (fs.s3a.secret.key, AWS_SECRET_ACCESS_KEY or "
                       "aws_secret_access_key)", c->bucket);
    return SILT_OK;
}

static silt_status pick_number(lookup *lk, const char *name, opt_kind kind, int64_t def,
                               int64_t *out, silt_error *err)
{
    const char *v = opt_value(lk, name);
    char key[128];
    *out = def;
    if (v == NULL)
        return SILT_OK;
    snprintf(key, sizeof(key), S3A_PREFIX "%s", name);
    {
        s3_option opt = {name, kind};
        SILT_RETURN_IF_ERROR(check_value(key, &opt, v, err));
    }
    (void)parse_scaled(v, kind, out);
    return SILT_OK;
}

static silt_status pick_bool(lookup *lk, const char *name, int def, int *out, silt_error *err)
{
    const char *v = opt_value(lk, name);
    *out = def;
    if (v == NULL)
        return SILT_OK;
    if (!parse_bool(v, out))
        return err_set(err, SILT_INVALID, "store option \"fs.s3a.%s\" has value \"%s\"; expected "
                       "true or false", name, v);
    return SILT_OK;
}

/* 1 when an endpoint's host is an IP address or localhost: no DNS name per bucket there. */
static int host_is_literal(const char *endpoint)
{
    const char *host = strstr(endpoint, "://");
    size_t len;
    host = host ? host + 3 : endpoint;
    if (host[0] == '[')
        return 1;
    len = strcspn(host, ":/");
    if (len == 9 && util_str_ncasecmp(host, "localhost", 9) == 0)
        return 1;
    return strspn(host, "0123456789.") == len;
}

static silt_status pick_endpoint(lookup *lk, io_s3_conf *c, silt_error *err)
{
    char *raw;
    int ssl, explicit_style = opt_value(lk, "path.style.access") != NULL;
    size_t len;
    SILT_RETURN_IF_ERROR(pick(lk, &raw, "endpoint", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL",
                              "endpoint_url", err));
    SILT_RETURN_IF_ERROR(pick_bool(lk, "connection.ssl.enabled", 1, &ssl, err));
    SILT_RETURN_IF_ERROR(pick_bool(lk, "path.style.access", 0, &c->path_style, err));
    if (raw == NULL)
        c->endpoint = io_s3_sprintf("https://s3.%s.amazonaws.com", c->region);
    else if (strstr(raw, "://") == NULL)
        c->endpoint = io_s3_sprintf("%s://%s", ssl ? "https" : "http", raw); /* Hadoop's form */
    else
        c->endpoint = mem_strdup(raw);
    mem_free(raw);
    if (c->endpoint == NULL)
        return err_nomem(err);
    len = strlen(c->endpoint);
    while (len > 0 && c->endpoint[len - 1] == '/')
        c->endpoint[--len] = '\0';
    if (!util_str_starts_with(c->endpoint, "http://") &&
        !util_str_starts_with(c->endpoint, "https://"))
        return err_set(err, SILT_INVALID, "S3 endpoint \"%s\" is not an http:// or https:// URL",
                       c->endpoint);
    if (!explicit_style && host_is_literal(c->endpoint))
        c->path_style = 1;
    return SILT_OK;
}

static silt_status parse_location(io_s3_conf *c, const char *location, silt_error *err)
{
    const char *rest = strstr(location, "://") + 3;
    const char *slash = strchr(rest, '/');
    size_t blen = slash ? (size_t)(slash - rest) : strlen(rest), plen;
    if (blen == 0)
        return err_set(err, SILT_INVALID, "storage location \"%s\" names no bucket", location);
    c->bucket = mem_strndup(rest, blen);
    rest = slash ? slash + 1 : "";
    plen = strlen(rest);
    while (plen > 0 && rest[plen - 1] == '/')
        plen--;
    c->prefix = mem_strndup(rest, plen);
    if (c->bucket == NULL || c->prefix == NULL)
        return err_nomem(err);
    if (strspn(c->bucket, "abcdefghijklmnopqrstuvwxyz0123456789.-_") != blen)
        return err_set(err, SILT_INVALID, "storage location \"%s\": \"%s\" is not a valid bucket "
                       "name (lower-case letters, digits, '.', '-')", location, c->bucket);
    if (plen > 0)
        return io_check_key(c->prefix, err);
    return SILT_OK;
}

static silt_status resolve(lookup *lk, io_s3_conf *c, const char *location, silt_error *err)
{
    int64_t retries;
    SILT_RETURN_IF_ERROR(parse_location(c, location, err));
    lk->bucket = c->bucket;
    SILT_RETURN_IF_ERROR(load_profiles(lk, err));
    SILT_RETURN_IF_ERROR(pick_credentials(lk, c, err));
    SILT_RETURN_IF_ERROR(pick(lk, &c->region, "endpoint.region", "AWS_REGION",
                              "AWS_DEFAULT_REGION", "region", err));
    if (c->region == NULL && (c->region = mem_strdup("us-east-1")) == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(pick_endpoint(lk, c, err));
    SILT_RETURN_IF_ERROR(pick_number(lk, "retry.limit", OPT_COUNT, 7, &retries, err));
    c->retry_limit = (int)retries;
    SILT_RETURN_IF_ERROR(pick_number(lk, "retry.interval", OPT_MILLIS, 500,
                                     &c->retry_interval_ms, err));
    SILT_RETURN_IF_ERROR(pick_number(lk, "multipart.size", OPT_SIZE, INT64_C(64) << 20,
                                     &c->part_size, err));
    SILT_RETURN_IF_ERROR(pick_number(lk, "connection.establish.timeout", OPT_MILLIS, 30000,
                                     &c->connect_timeout_ms, err));
    SILT_RETURN_IF_ERROR(pick_number(lk, "vectored.active.ranged.reads", OPT_COUNT, 4, &retries,
                                     err));
    c->ranged_reads = retries < 1 ? 1 : (int)retries;
    return pick_number(lk, "connection.timeout", OPT_MILLIS, 200000, &c->stall_timeout_ms, err);
}

silt_status io_s3_conf_resolve(io_s3_conf *out, const char *location,
                               const io_store_options *opts, silt_error *err)
{
    lookup lk;
    silt_status rc;
    memset(out, 0, sizeof(*out));
    memset(&lk, 0, sizeof(lk));
    lk.opts = opts;
    lk.bucket = "";
    rc = resolve(&lk, out, location, err);
    mem_free(lk.profile_name);
    buf_clear(&lk.creds);
    buf_clear(&lk.config);
    if (rc != SILT_OK)
        io_s3_conf_clear(out);
    return rc;
}

void io_s3_conf_clear(io_s3_conf *conf)
{
    mem_free(conf->account);
    mem_free(conf->bucket);
    mem_free(conf->prefix);
    mem_free(conf->access_key);
    if (conf->secret_key != NULL)
        memset(conf->secret_key, 0, strlen(conf->secret_key));
    mem_free(conf->secret_key);
    mem_free(conf->token);
    mem_free(conf->region);
    mem_free(conf->endpoint);
    memset(conf, 0, sizeof(*conf));
}
