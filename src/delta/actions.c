/*
 * actions.c - parsing and serialising the actions of the Delta log.
 *
 * PROTOCOL: Actions, Schema Serialization Format. Parsing uses cJSON one
 * line at a time: the tree of a line is freed before the next line, and
 * everything kept is copied into the caller's arena. Errors carry a byte
 * position within the line; dlog_parse_commit turns that into a position in
 * the file and adds the file name and line number.
 */
#include "delta/actions.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/hashmap.h"
#include "util/mem.h"

/*
 * Deep copies of actions into arena a, for keeping an action beyond the
 * parse it came from (parsers may hand out actions that live only for one
 * batch or line).
 */
static silt_status dlog_dv_copy(arena *a, const dlog_dv *src, dlog_dv *dst, silt_error *err);

/* The error of a line parse: code + message, the caller adds where. */
/*
 * cJSON holds numbers as doubles, exact only below 2^53. The integers of a
 * line with more digits than that are read from its text first, exactly,
 * so that get_int64 can take a rounded double back to the integer written
 * (add.size of 2^63-1 is a valid size).
 */
#define BIG_INTS_MAX 16

typedef struct parse_ctx {
    arena *a;
    silt_error *err;
    const char *action; /* "add", "metaData", ... for messages */
    size_t n_big;
    int64_t big[BIG_INTS_MAX];
} parse_ctx;

/* Collects the integers of 16 or more digits outside strings (up to BIG_INTS_MAX). */
static void scan_big_ints(parse_ctx *ctx, const char *line, size_t len)
{
    size_t pos = 0;
    int in_string = 0;
    ctx->n_big = 0;
    while (pos < len) {
        char c = line[pos];
        if (in_string) {
            if (c == '\\')
                pos++;
            else if (c == '"')
                in_string = 0;
            pos++;
        } else if (c == '"') {
            in_string = 1;
            pos++;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t start = pos, digits;
            int64_t value = 0;
            if (c == '-')
                pos++;
            digits = pos;
            while (pos < len && line[pos] >= '0' && line[pos] <= '9')
                pos++;
            digits = pos - digits;
            if (digits >= 16 && (pos == len || (line[pos] != '.' && line[pos] != 'e' &&
                                                line[pos] != 'E')) &&
                util_str_to_int64(line + start, pos - start, &value) && ctx->n_big < BIG_INTS_MAX)
                ctx->big[ctx->n_big++] = value;
        } else {
            pos++;
        }
    }
}

/* The exact integer behind a double of 2^53 or more, when the line holds one integer
 * that rounds to it; 0 when none or several different ones do. */
static int exact_big_int(const parse_ctx *ctx, double value, int64_t *out)
{
    size_t idx;
    int found = 0;
    for (idx = 0; idx < ctx->n_big; idx++) {
        if ((double)ctx->big[idx] != value)
            continue;
        if (found && *out != ctx->big[idx])
            return 0;
        *out = ctx->big[idx];
        found = 1;
    }
    return found;
}

const char *dlog_map_get(const dlog_map *map, const char *key, int *found_out)
{
    size_t idx;
    for (idx = 0; idx < map->n; idx++) {
        if (strcmp(map->items[idx].key, key) == 0) {
            if (found_out != NULL)
                *found_out = 1;
            return map->items[idx].value;
        }
    }
    if (found_out != NULL)
        *found_out = 0;
    return NULL;
}

const char *dlog_action_name(dlog_action_type type)
{
    switch (type) {
    case DLOG_ADD: return "add";
    case DLOG_REMOVE: return "remove";
    case DLOG_METADATA: return "metaData";
    case DLOG_PROTOCOL: return "protocol";
    case DLOG_TXN: return "txn";
    case DLOG_DOMAIN_METADATA: return "domainMetadata";
    case DLOG_COMMIT_INFO: return "commitInfo";
    case DLOG_CDC: return "cdc";
    case DLOG_CHECKPOINT_METADATA: return "checkpointMetadata";
    case DLOG_SIDECAR: return "sidecar";
    case DLOG_NONE: break;
    }
    return "none";
}

silt_status dlog_dv_unique_id(const dlog_dv *dv, buf *out, silt_error *err)
{
    buf_truncate(out, 0);
    if (dv->storage_type == 0)
        return buf_append_str(out, "", err);
    if (dv->offset >= 0)
        return buf_printf(out, err, "%c%s@%lld", dv->storage_type, dv->path_or_inline_dv,
                          (long long)dv->offset);
    return buf_printf(out, err, "%c%s", dv->storage_type, dv->path_or_inline_dv);
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

silt_status dlog_uri_decode(arena *a, const char *s, size_t len, const char **out,
                            silt_error *err)
{
    char *decoded = arena_alloc(a, len + 1);
    size_t in_idx, out_len = 0;
    *out = NULL;
    if (decoded == NULL)
        return err_nomem(err);
    for (in_idx = 0; in_idx < len; in_idx++) {
        if (s[in_idx] == '%') {
            int hi = in_idx + 2 < len ? hex_value(s[in_idx + 1]) : -1;
            int lo = in_idx + 2 < len ? hex_value(s[in_idx + 2]) : -1;
            if (hi < 0 || lo < 0)
                return err_set(err, SILT_CORRUPT, "path \"%.*s\" has an invalid %%-escape at "
                               "byte %zu", (int)(len > 200 ? 200 : len), s, in_idx);
            if (hi == 0 && lo == 0)
                /* A NUL would end the path early: another file than the one named. */
                return err_set(err, SILT_CORRUPT, "path \"%.*s\" holds an escaped NUL (%%00) at "
                               "byte %zu", (int)(len > 200 ? 200 : len), s, in_idx);
            decoded[out_len++] = (char)(hi * 16 + lo);
            in_idx += 2;
        } else {
            decoded[out_len++] = s[in_idx];
        }
    }
    decoded[out_len] = '\0';
    *out = decoded;
    return SILT_OK;
}

/* ---- field accessors ------------------------------------------------------------------- */

static silt_status field_error(parse_ctx *ctx, const char *field, const char *what)
{
    return err_set(ctx->err, SILT_CORRUPT, "field \"%s.%s\" %s", ctx->action, field, what);
}

static silt_status get_string(parse_ctx *ctx, const cJSON *obj, const char *field, int required,
                              const char **out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, field);
    *out = NULL;
    if (item == NULL || cJSON_IsNull(item)) {
        if (required)
            return field_error(ctx, field, "is missing");
        return SILT_OK;
    }
    if (!cJSON_IsString(item))
        return field_error(ctx, field, "is not a string");
    *out = arena_strdup(ctx->a, item->valuestring);
    if (*out == NULL)
        return err_nomem(ctx->err);
    return SILT_OK;
}

/* Integral JSON number in int64 range (doubles are exact below 2^53; larger values are rounded). */
static silt_status get_int64(parse_ctx *ctx, const cJSON *obj, const char *field, int required,
                             int *has_out, int64_t *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, field);
    double value;
    if (has_out != NULL)
        *has_out = 0;
    if (item == NULL || cJSON_IsNull(item)) {
        if (required)
            return field_error(ctx, field, "is missing");
        return SILT_OK;
    }
    if (!cJSON_IsNumber(item))
        return field_error(ctx, field, "is not a number");
    value = item->valuedouble;
    if (fabs(value) >= 9007199254740992.0 && exact_big_int(ctx, value, out)) {
        if (has_out != NULL)
            *has_out = 1;
        return SILT_OK;
    }
    if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0) ||
        value != floor(value))
        return field_error(ctx, field, "is not a 64-bit integer");
    *out = (int64_t)value;
    if (has_out != NULL)
        *has_out = 1;
    return SILT_OK;
}

static silt_status get_bool(parse_ctx *ctx, const cJSON *obj, const char *field, int required,
                            int dflt, int *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, field);
    *out = dflt;
    if (item == NULL || cJSON_IsNull(item)) {
        if (required)
            return field_error(ctx, field, "is missing");
        return SILT_OK;
    }
    if (!cJSON_IsBool(item))
        return field_error(ctx, field, "is not a boolean");
    *out = cJSON_IsTrue(item) ? 1 : 0;
    return SILT_OK;
}

static silt_status get_map(parse_ctx *ctx, const cJSON *obj, const char *field, dlog_map *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, field);
    const cJSON *entry;
    size_t n = 0;
    out->n = 0;
    out->items = NULL;
    if (item == NULL || cJSON_IsNull(item))
        return SILT_OK;
    if (!cJSON_IsObject(item))
        return field_error(ctx, field, "is not an object");
    cJSON_ArrayForEach(entry, item)
        n++;
    out->items = arena_calloc(ctx->a, n ? n : 1, sizeof(dlog_kv));
    if (out->items == NULL)
        return err_nomem(ctx->err);
    cJSON_ArrayForEach(entry, item)
    {
        dlog_kv *kv = &out->items[out->n];
        kv->key = arena_strdup(ctx->a, entry->string ? entry->string : "");
        if (kv->key == NULL)
            return err_nomem(ctx->err);
        if (cJSON_IsNull(entry)) {
            kv->value = NULL;
        } else if (cJSON_IsString(entry)) {
            kv->value = arena_strdup(ctx->a, entry->valuestring);
            if (kv->value == NULL)
                return err_nomem(ctx->err);
        } else {
            return err_set(ctx->err, SILT_CORRUPT, "value of \"%s\" in field \"%s.%s\" is not a string",
                           kv->key, ctx->action, field);
        }
        out->n++;
    }
    return SILT_OK;
}

static silt_status get_string_array(parse_ctx *ctx, const cJSON *obj, const char *field,
                                    int *has_out, size_t *n_out, const char ***out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, field);
    const cJSON *entry;
    size_t n = 0;
    *n_out = 0;
    *out = NULL;
    if (has_out != NULL)
        *has_out = 0;
    if (item == NULL || cJSON_IsNull(item))
        return SILT_OK;
    if (!cJSON_IsArray(item))
        return field_error(ctx, field, "is not an array");
    cJSON_ArrayForEach(entry, item)
        n++;
    *out = arena_calloc(ctx->a, n ? n : 1, sizeof(char *));
    if (*out == NULL)
        return err_nomem(ctx->err);
    cJSON_ArrayForEach(entry, item)
    {
        if (!cJSON_IsString(entry))
            return field_error(ctx, field, "has an element that is not a string");
        (*out)[*n_out] = arena_strdup(ctx->a, entry->valuestring);
        if ((*out)[*n_out] == NULL)
            return err_nomem(ctx->err);
        (*n_out)++;
    }
    if (has_out != NULL)
        *has_out = 1;
    return SILT_OK;
}

/* A JSON value kept verbatim as text (stats may be an object in some writers). */
static silt_status get_raw_text(parse_ctx *ctx, const cJSON *obj, const char *field,
                                const char **out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, field);
    char *text;
    *out = NULL;
    if (item == NULL || cJSON_IsNull(item))
        return SILT_OK;
    if (cJSON_IsString(item)) {
        *out = arena_strdup(ctx->a, item->valuestring);
        return *out ? SILT_OK : err_nomem(ctx->err);
    }
    text = cJSON_PrintUnformatted(item);
    if (text == NULL)
        return err_nomem(ctx->err);
    *out = arena_strdup(ctx->a, text);
    cJSON_free(text);
    return *out ? SILT_OK : err_nomem(ctx->err);
}

static silt_status get_path(parse_ctx *ctx, const cJSON *obj, const char **raw_out,
                            const char **path_out)
{
    SILT_RETURN_IF_ERROR(get_string(ctx, obj, "path", 1, raw_out));
    return dlog_uri_decode(ctx->a, *raw_out, strlen(*raw_out), path_out, ctx->err);
}

/* ---- actions ---------------------------------------------------------------------------- */

static silt_status parse_dv(parse_ctx *ctx, const cJSON *obj, dlog_dv *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, "deletionVector");
    const char *storage = NULL;
    int has_offset = 0, has_max = 0;
    int64_t size = 0;
    const char *saved = ctx->action;
    silt_status rc;
    memset(out, 0, sizeof(*out));
    out->offset = -1;
    out->max_row_index = -1;
    if (item == NULL || cJSON_IsNull(item))
        return SILT_OK;
    if (!cJSON_IsObject(item))
        return field_error(ctx, "deletionVector", "is not an object");
    ctx->action = "deletionVector";
    rc = get_string(ctx, item, "storageType", 1, &storage);
    if (rc == SILT_OK && (strlen(storage) != 1 || strchr("uip", storage[0]) == NULL))
        rc = field_error(ctx, "storageType", "is not one of 'u', 'i', 'p'");
    if (rc == SILT_OK)
        rc = get_string(ctx, item, "pathOrInlineDv", 1, &out->path_or_inline_dv);
    if (rc == SILT_OK)
        rc = get_int64(ctx, item, "offset", 0, &has_offset, &out->offset);
    if (rc == SILT_OK)
        rc = get_int64(ctx, item, "sizeInBytes", 1, NULL, &size);
    if (rc == SILT_OK)
        rc = get_int64(ctx, item, "cardinality", 1, NULL, &out->cardinality);
    if (rc == SILT_OK)
        rc = get_int64(ctx, item, "maxRowIndex", 0, &has_max, &out->max_row_index);
    if (rc == SILT_OK && (size < 0 || size > INT32_MAX || out->cardinality < 0 ||
                          (has_offset && out->offset < 0)))
        rc = field_error(ctx, "sizeInBytes", "or offset or cardinality is out of range");
    ctx->action = saved;
    if (rc != SILT_OK)
        return rc;
    if (!has_offset)
        out->offset = -1;
    if (!has_max)
        out->max_row_index = -1;
    out->storage_type = storage[0];
    out->size_in_bytes = (int32_t)size;
    return SILT_OK;
}

static silt_status parse_add(parse_ctx *ctx, const cJSON *obj, dlog_add *out)
{
    SILT_RETURN_IF_ERROR(get_path(ctx, obj, &out->raw_path, &out->path));
    SILT_RETURN_IF_ERROR(get_map(ctx, obj, "partitionValues", &out->partition_values));
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "size", 1, NULL, &out->size));
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "modificationTime", 0, NULL, &out->modification_time));
    SILT_RETURN_IF_ERROR(get_bool(ctx, obj, "dataChange", 0, 1, &out->data_change));
    SILT_RETURN_IF_ERROR(get_raw_text(ctx, obj, "stats", &out->stats));
    SILT_RETURN_IF_ERROR(get_map(ctx, obj, "tags", &out->tags));
    SILT_RETURN_IF_ERROR(parse_dv(ctx, obj, &out->dv));
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "baseRowId", 0, &out->has_base_row_id, &out->base_row_id));
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "defaultRowCommitVersion", 0,
                                   &out->has_default_row_commit_version,
                                   &out->default_row_commit_version));
    SILT_RETURN_IF_ERROR(get_string(ctx, obj, "clusteringProvider", 0, &out->clustering_provider));
    if (out->size < 0)
        return field_error(ctx, "size", "is negative");
    return SILT_OK;
}

static silt_status parse_remove(parse_ctx *ctx, const cJSON *obj, dlog_remove *out)
{
    SILT_RETURN_IF_ERROR(get_path(ctx, obj, &out->raw_path, &out->path));
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "deletionTimestamp", 0, &out->has_deletion_timestamp,
                                   &out->deletion_timestamp));
    SILT_RETURN_IF_ERROR(get_bool(ctx, obj, "dataChange", 0, 1, &out->data_change));
    SILT_RETURN_IF_ERROR(get_bool(ctx, obj, "extendedFileMetadata", 0, 0,
                                  &out->extended_file_metadata));
    SILT_RETURN_IF_ERROR(get_map(ctx, obj, "partitionValues", &out->partition_values));
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "size", 0, &out->has_size, &out->size));
    SILT_RETURN_IF_ERROR(get_raw_text(ctx, obj, "stats", &out->stats));
    SILT_RETURN_IF_ERROR(get_map(ctx, obj, "tags", &out->tags));
    SILT_RETURN_IF_ERROR(parse_dv(ctx, obj, &out->dv));
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "baseRowId", 0, &out->has_base_row_id, &out->base_row_id));
    return get_int64(ctx, obj, "defaultRowCommitVersion", 0, &out->has_default_row_commit_version,
                     &out->default_row_commit_version);
}

static silt_status parse_metadata(parse_ctx *ctx, const cJSON *obj, dlog_metadata *out)
{
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(obj, "format");
    silt_status rc;
    SILT_RETURN_IF_ERROR(get_string(ctx, obj, "id", 1, &out->id));
    SILT_RETURN_IF_ERROR(get_string(ctx, obj, "name", 0, &out->name));
    SILT_RETURN_IF_ERROR(get_string(ctx, obj, "description", 0, &out->description));
    out->format_provider = "parquet";
    if (format != NULL && cJSON_IsObject(format)) {
        const char *saved = ctx->action;
        ctx->action = "metaData.format";
        rc = get_string(ctx, format, "provider", 0, &out->format_provider);
        if (rc == SILT_OK)
            rc = get_map(ctx, format, "options", &out->format_options);
        ctx->action = saved;
        if (rc != SILT_OK)
            return rc;
        if (out->format_provider == NULL)
            out->format_provider = "parquet";
    }
    /* Delta Live Tables' setup commit has no schemaString: an empty schema until a later
     * metaData gives one (Spark reads it as an empty StructType). */
    SILT_RETURN_IF_ERROR(get_string(ctx, obj, "schemaString", 0, &out->schema_string));
    if (out->schema_string == NULL)
        out->schema_string = DLOG_EMPTY_SCHEMA;
    SILT_RETURN_IF_ERROR(get_string_array(ctx, obj, "partitionColumns", NULL,
                                          &out->n_partition_columns, &out->partition_columns));
    SILT_RETURN_IF_ERROR(get_map(ctx, obj, "configuration", &out->configuration));
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "createdTime", 0, &out->has_created_time,
                                   &out->created_time));
    rc = dlog_parse_schema(&out->schema, ctx->a, out->schema_string, ctx->err);
    if (rc != SILT_OK)
        err_context(ctx->err, "while parsing \"metaData.schemaString\"");
    return rc;
}

static silt_status parse_protocol(parse_ctx *ctx, const cJSON *obj, dlog_protocol *out)
{
    int64_t reader = 0, writer = 0;
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "minReaderVersion", 1, NULL, &reader));
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "minWriterVersion", 1, NULL, &writer));
    if (reader < 0 || reader > INT32_MAX || writer < 0 || writer > INT32_MAX)
        return field_error(ctx, "minReaderVersion", "or minWriterVersion is out of range");
    out->min_reader_version = (int32_t)reader;
    out->min_writer_version = (int32_t)writer;
    SILT_RETURN_IF_ERROR(get_string_array(ctx, obj, "readerFeatures", &out->has_reader_features,
                                          &out->n_reader_features, &out->reader_features));
    return get_string_array(ctx, obj, "writerFeatures", &out->has_writer_features,
                            &out->n_writer_features, &out->writer_features);
}

static silt_status parse_txn(parse_ctx *ctx, const cJSON *obj, dlog_txn *out)
{
    SILT_RETURN_IF_ERROR(get_string(ctx, obj, "appId", 1, &out->app_id));
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "version", 1, NULL, &out->version));
    return get_int64(ctx, obj, "lastUpdated", 0, &out->has_last_updated, &out->last_updated);
}

static silt_status parse_domain(parse_ctx *ctx, const cJSON *obj, dlog_domain_metadata *out)
{
    SILT_RETURN_IF_ERROR(get_string(ctx, obj, "domain", 1, &out->domain));
    SILT_RETURN_IF_ERROR(get_string(ctx, obj, "configuration", 1, &out->configuration));
    return get_bool(ctx, obj, "removed", 0, 0, &out->removed);
}

static silt_status parse_commit_info(parse_ctx *ctx, const cJSON *obj, dlog_commit_info *out)
{
    char *text = cJSON_PrintUnformatted(obj);
    if (text == NULL)
        return err_nomem(ctx->err);
    out->raw_json = arena_strdup(ctx->a, text);
    cJSON_free(text);
    if (out->raw_json == NULL)
        return err_nomem(ctx->err);
    /* commitInfo is free-form: fields of an unexpected type are ignored, not errors. */
    {
        const cJSON *ts = cJSON_GetObjectItemCaseSensitive(obj, "timestamp");
        const cJSON *ict = cJSON_GetObjectItemCaseSensitive(obj, "inCommitTimestamp");
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(obj, "operation");
        if (cJSON_IsNumber(ts) && fabs(ts->valuedouble) < 9.2e18) {
            out->has_timestamp = 1;
            out->timestamp = (int64_t)ts->valuedouble;
        }
        if (cJSON_IsNumber(ict) && fabs(ict->valuedouble) < 9.2e18) {
            out->has_in_commit_timestamp = 1;
            out->in_commit_timestamp = (int64_t)ict->valuedouble;
        }
        if (cJSON_IsString(op)) {
            out->operation = arena_strdup(ctx->a, op->valuestring);
            if (out->operation == NULL)
                return err_nomem(ctx->err);
        }
    }
    return SILT_OK;
}

static silt_status parse_cdc(parse_ctx *ctx, const cJSON *obj, dlog_cdc *out)
{
    SILT_RETURN_IF_ERROR(get_path(ctx, obj, &out->raw_path, &out->path));
    SILT_RETURN_IF_ERROR(get_map(ctx, obj, "partitionValues", &out->partition_values));
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "size", 1, NULL, &out->size));
    SILT_RETURN_IF_ERROR(get_bool(ctx, obj, "dataChange", 0, 0, &out->data_change));
    return get_map(ctx, obj, "tags", &out->tags);
}

static silt_status parse_checkpoint_metadata(parse_ctx *ctx, const cJSON *obj,
                                             dlog_checkpoint_metadata *out)
{
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "version", 1, NULL, &out->version));
    return get_map(ctx, obj, "tags", &out->tags);
}

static silt_status parse_sidecar(parse_ctx *ctx, const cJSON *obj, dlog_sidecar *out)
{
    const char *raw = NULL;
    SILT_RETURN_IF_ERROR(get_path(ctx, obj, &raw, &out->path));
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "sizeInBytes", 1, NULL, &out->size_in_bytes));
    SILT_RETURN_IF_ERROR(get_int64(ctx, obj, "modificationTime", 0, NULL, &out->modification_time));
    return get_map(ctx, obj, "tags", &out->tags);
}

typedef struct action_kind {
    const char *name;
    dlog_action_type type;
} action_kind;

static const action_kind action_kinds[] = {
    {"add", DLOG_ADD},
    {"remove", DLOG_REMOVE},
    {"metaData", DLOG_METADATA},
    {"protocol", DLOG_PROTOCOL},
    {"txn", DLOG_TXN},
    {"domainMetadata", DLOG_DOMAIN_METADATA},
    {"commitInfo", DLOG_COMMIT_INFO},
    {"cdc", DLOG_CDC},
    {"checkpointMetadata", DLOG_CHECKPOINT_METADATA},
    {"sidecar", DLOG_SIDECAR},
};

static silt_status parse_one(parse_ctx *ctx, dlog_action_type type, const cJSON *obj,
                             dlog_action *out)
{
    switch (type) {
    case DLOG_ADD: return parse_add(ctx, obj, &out->u.add);
    case DLOG_REMOVE: return parse_remove(ctx, obj, &out->u.remove);
    case DLOG_METADATA: return parse_metadata(ctx, obj, &out->u.metadata);
    case DLOG_PROTOCOL: return parse_protocol(ctx, obj, &out->u.protocol);
    case DLOG_TXN: return parse_txn(ctx, obj, &out->u.txn);
    case DLOG_DOMAIN_METADATA: return parse_domain(ctx, obj, &out->u.domain);
    case DLOG_COMMIT_INFO: return parse_commit_info(ctx, obj, &out->u.commit_info);
    case DLOG_CDC: return parse_cdc(ctx, obj, &out->u.cdc);
    case DLOG_CHECKPOINT_METADATA:
        return parse_checkpoint_metadata(ctx, obj, &out->u.checkpoint_metadata);
    case DLOG_SIDECAR: return parse_sidecar(ctx, obj, &out->u.sidecar);
    case DLOG_NONE: break;
    }
    return SILT_OK;
}

static int is_blank(const char *line, size_t len)
{
    size_t idx;
    for (idx = 0; idx < len; idx++)
        if (line[idx] != ' ' && line[idx] != '\t' && line[idx] != '\r' && line[idx] != '\n')
            return 0;
    return 1;
}

silt_status dlog_parse_action(dlog_action *out, arena *a, const char *line, size_t len,
                              size_t *pos_out, silt_error *err)
{
    const char *end = NULL;
    cJSON *root;
    const cJSON *member;
    parse_ctx ctx;
    silt_status rc = SILT_OK;
    size_t kind_idx;

    memset(out, 0, sizeof(*out));
    *pos_out = 0;
    if (is_blank(line, len))
        return SILT_OK;
    root = cJSON_ParseWithLengthOpts(line, len, &end, 0);
    if (root == NULL) {
        *pos_out = (end != NULL && end >= line && end <= line + len) ? (size_t)(end - line) : 0;
        return err_set(err, SILT_CORRUPT, "malformed JSON");
    }
    if (end != NULL && !is_blank(end, len - (size_t)(end - line))) {
        *pos_out = (size_t)(end - line);
        rc = err_set(err, SILT_CORRUPT, "unexpected text after the JSON object");
        goto done;
    }
    if (!cJSON_IsObject(root)) {
        rc = err_set(err, SILT_CORRUPT, "an action must be a JSON object");
        goto done;
    }
    ctx.a = a;
    ctx.err = err;
    scan_big_ints(&ctx, line, len);
    /* PROTOCOL: an action line has one key; a reader skips actions it does not know. */
    cJSON_ArrayForEach(member, root)
    {
        for (kind_idx = 0; kind_idx < sizeof(action_kinds) / sizeof(action_kinds[0]); kind_idx++) {
            if (member->string == NULL || strcmp(member->string, action_kinds[kind_idx].name) != 0)
                continue;
            if (out->type != DLOG_NONE) {
                rc = err_set(err, SILT_CORRUPT, "a line holds two actions (\"%s\" and \"%s\")",
                             dlog_action_name(out->type), member->string);
                goto done;
            }
            if (cJSON_IsNull(member))
                break; /* checkpoint-style null action column: nothing here */
            if (!cJSON_IsObject(member)) {
                rc = err_set(err, SILT_CORRUPT, "action \"%s\" is not a JSON object",
                             member->string);
                goto done;
            }
            ctx.action = action_kinds[kind_idx].name;
            out->type = action_kinds[kind_idx].type;
            rc = parse_one(&ctx, out->type, member, out);
            if (rc != SILT_OK)
                goto done;
        }
    }
done:
    cJSON_Delete(root);
    if (rc != SILT_OK)
        out->type = DLOG_NONE;
    return rc;
}

silt_status dlog_parse_lines(const char *data, size_t len, const char *file_name,
                            size_t first_line, int64_t first_byte, arena *a, dlog_action_fn fn,
                            void *payload, silt_error *err)
{
    size_t line_start = 0, line_no = first_line;
    while (line_start < len) {
        const char *nl = memchr(data + line_start, '\n', len - line_start);
        size_t line_len = nl ? (size_t)(nl - (data + line_start)) : len - line_start;
        dlog_action action;
        size_t pos = 0;
        silt_status rc = dlog_parse_action(&action, a, data + line_start, line_len, &pos, err);
        if (rc != SILT_OK) {
            char inner[SILT_ERROR_MESSAGE_MAX];
            char ctx_copy[SILT_ERROR_CONTEXT_MAX];
            if (rc == SILT_NOMEM)
                return rc;
            snprintf(inner, sizeof(inner), "%s", err ? err->message : "");
            snprintf(ctx_copy, sizeof(ctx_copy), "%s", err ? err->context : "");
            err_set(err, rc, "could not parse \"%s\" at line %zu, byte %lld: %s", file_name,
                    line_no, (long long)(first_byte + (int64_t)(line_start + pos)), inner);
            if (ctx_copy[0] != '\0')
                err_context(err, "%s", ctx_copy);
            return rc;
        }
        if (action.type != DLOG_NONE) {
            rc = fn(&action, payload, err);
            if (rc != SILT_OK)
                return rc;
        }
        line_start += line_len + 1;
        line_no++;
    }
    return SILT_OK;
}

silt_status dlog_parse_commit(const char *data, size_t len, const char *file_name, arena *a,
                              dlog_action_fn fn, void *payload, silt_error *err)
{
    return dlog_parse_lines(data, len, file_name, 1, 0, a, fn, payload, err);
}

/* ---- schema ----------------------------------------------------------------------------- */

typedef struct schema_ctx {
    arena *a;
    silt_error *err;
    int depth;
} schema_ctx;

#define SCHEMA_MAX_DEPTH 64

static silt_status parse_type(schema_ctx *ctx, const cJSON *node, const col_type **out);

#define schema_error(ctx, ...) err_set((ctx)->err, SILT_CORRUPT, __VA_ARGS__)

typedef struct prim_name {
    const char *name;
    col_type_id id;
} prim_name;

static const prim_name prim_names[] = {
    {"boolean", COL_BOOLEAN}, {"byte", COL_BYTE},       {"short", COL_SHORT},
    {"integer", COL_INT},     {"long", COL_LONG},       {"float", COL_FLOAT},
    {"double", COL_DOUBLE},   {"string", COL_STRING},   {"binary", COL_BINARY},
    {"date", COL_DATE},       {"timestamp", COL_TIMESTAMP}, {"timestamp_ntz", COL_TIMESTAMP_NTZ},
    {"void", COL_NULL},
};

static silt_status parse_decimal_name(schema_ctx *ctx, const char *name, const col_type **out)
{
    long long precision = 10, scale = 0;
    int consumed = 0;
    const col_type *type;
    if (strcmp(name, "decimal") != 0) {
        if (sscanf(name, "decimal(%lld,%lld)%n", &precision, &scale, &consumed) != 2 ||
            name[consumed] != '\0') {
            /* Spark also writes a space after the comma in some versions. */
            consumed = 0;
            if (sscanf(name, "decimal(%lld, %lld)%n", &precision, &scale, &consumed) != 2 ||
                name[consumed] != '\0')
                return schema_error(ctx, "type \"%s\" is not a valid decimal type", name);
        }
    }
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision)
        return schema_error(ctx, "decimal type \"%s\" is out of range (precision 1 to 38)", name);
    type = col_type_decimal(ctx->a, (int32_t)precision, (int32_t)scale);
    if (type == NULL)
        return err_nomem(ctx->err);
    *out = type;
    return SILT_OK;
}

static silt_status parse_type_name(schema_ctx *ctx, const char *name, const col_type **out)
{
    size_t idx;
    for (idx = 0; idx < sizeof(prim_names) / sizeof(prim_names[0]); idx++) {
        if (strcmp(name, prim_names[idx].name) == 0) {
            *out = col_type_primitive(prim_names[idx].id);
            return SILT_OK;
        }
    }
    if (util_str_starts_with(name, "decimal"))
        return parse_decimal_name(ctx, name, out);
    if (strcmp(name, "variant") == 0)
        return err_set(ctx->err, SILT_UNSUPPORTED, "data type \"variant\" is not supported");
    return schema_error(ctx, "data type \"%s\" is not a Delta type", name);
}

static silt_status parse_field(schema_ctx *ctx, const cJSON *node, col_field *out)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(node, "name");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(node, "type");
    const cJSON *nullable = cJSON_GetObjectItemCaseSensitive(node, "nullable");
    const cJSON *metadata = cJSON_GetObjectItemCaseSensitive(node, "metadata");
    silt_status rc;
    if (!cJSON_IsObject(node) || !cJSON_IsString(name) || type == NULL)
        return schema_error(ctx, "a struct field lacks a %s", "\"name\" or \"type\"");
    out->name = arena_strdup(ctx->a, name->valuestring);
    if (out->name == NULL)
        return err_nomem(ctx->err);
    out->nullable = nullable == NULL || cJSON_IsTrue(nullable);
    out->field_id = -1;
    out->metadata_json = NULL;
    rc = parse_type(ctx, type, &out->type);
    if (rc != SILT_OK) {
        err_context(ctx->err, "in field \"%s\"", out->name);
        return rc;
    }
    if (cJSON_IsObject(metadata) && metadata->child != NULL) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(metadata, "delta.columnMapping.id");
        char *text = cJSON_PrintUnformatted(metadata);
        if (text == NULL)
            return err_nomem(ctx->err);
        out->metadata_json = arena_strdup(ctx->a, text);
        cJSON_free(text);
        if (out->metadata_json == NULL)
            return err_nomem(ctx->err);
        if (cJSON_IsNumber(id) && id->valuedouble >= 0 && id->valuedouble <= INT32_MAX)
            out->field_id = (int32_t)id->valuedouble;
    } else if (cJSON_IsObject(metadata)) {
        out->metadata_json = "{}";
    }
    return SILT_OK;
}

static silt_status parse_struct(schema_ctx *ctx, const cJSON *node, const col_type **out)
{
    const cJSON *fields = cJSON_GetObjectItemCaseSensitive(node, "fields");
    const cJSON *entry;
    col_field *parsed;
    size_t n = 0, idx = 0;
    col_type *type;
    if (!cJSON_IsArray(fields))
        return schema_error(ctx, "a struct type lacks its %s array", "\"fields\"");
    cJSON_ArrayForEach(entry, fields)
        n++;
    parsed = arena_calloc(ctx->a, n ? n : 1, sizeof(col_field));
    if (parsed == NULL)
        return err_nomem(ctx->err);
    cJSON_ArrayForEach(entry, fields)
        SILT_RETURN_IF_ERROR(parse_field(ctx, entry, &parsed[idx++]));
    type = col_type_struct(ctx->a, n, parsed);
    if (type == NULL)
        return err_nomem(ctx->err);
    *out = type;
    return SILT_OK;
}

static silt_status parse_type(schema_ctx *ctx, const cJSON *node, const col_type **out)
{
    const cJSON *kind;
    col_type *made = NULL;
    silt_status rc = SILT_OK;
    if (cJSON_IsString(node))
        return parse_type_name(ctx, node->valuestring, out);
    if (!cJSON_IsObject(node))
        return schema_error(ctx, "a type must be a %s", "string or an object");
    kind = cJSON_GetObjectItemCaseSensitive(node, "type");
    if (!cJSON_IsString(kind))
        return schema_error(ctx, "a complex type lacks its %s", "\"type\"");
    if (++ctx->depth > SCHEMA_MAX_DEPTH)
        return schema_error(ctx, "the schema nests deeper than %s levels", "64");
    if (strcmp(kind->valuestring, "struct") == 0) {
        rc = parse_struct(ctx, node, out);
    } else if (strcmp(kind->valuestring, "array") == 0) {
        const col_type *element = NULL;
        const cJSON *contains_null = cJSON_GetObjectItemCaseSensitive(node, "containsNull");
        const cJSON *elem = cJSON_GetObjectItemCaseSensitive(node, "elementType");
        if (elem == NULL) {
            rc = schema_error(ctx, "an array type lacks its %s", "\"elementType\"");
        } else {
            rc = parse_type(ctx, elem, &element);
            if (rc == SILT_OK) {
                made = col_type_array(ctx->a, element, contains_null == NULL || cJSON_IsTrue(contains_null));
                rc = made ? SILT_OK : err_nomem(ctx->err);
                *out = made;
            }
        }
    } else if (strcmp(kind->valuestring, "map") == 0) {
        const col_type *key = NULL, *value = NULL;
        const cJSON *key_node = cJSON_GetObjectItemCaseSensitive(node, "keyType");
        const cJSON *value_node = cJSON_GetObjectItemCaseSensitive(node, "valueType");
        const cJSON *vcn = cJSON_GetObjectItemCaseSensitive(node, "valueContainsNull");
        if (key_node == NULL || value_node == NULL) {
            rc = schema_error(ctx, "a map type lacks its %s", "\"keyType\" or \"valueType\"");
        } else {
            rc = parse_type(ctx, key_node, &key);
            if (rc == SILT_OK)
                rc = parse_type(ctx, value_node, &value);
            if (rc == SILT_OK) {
                made = col_type_map(ctx->a, key, value, vcn == NULL || cJSON_IsTrue(vcn));
                rc = made ? SILT_OK : err_nomem(ctx->err);
                *out = made;
            }
        }
    } else {
        rc = parse_type_name(ctx, kind->valuestring, out);
    }
    ctx->depth--;
    return rc;
}

silt_status dlog_parse_schema(const col_type **out, arena *a, const char *schema_json,
                              silt_error *err)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(schema_json, &end, 0);
    schema_ctx ctx;
    silt_status rc;
    if (root == NULL)
        return err_set(err, SILT_CORRUPT, "malformed schema JSON at byte %zu",
                       end ? (size_t)(end - schema_json) : (size_t)0);
    ctx.a = a;
    ctx.err = err;
    ctx.depth = 0;
    {
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(root, "type");
        if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "struct") != 0)
            rc = err_set(err, SILT_CORRUPT, "a table schema must be a struct type");
        else
            rc = parse_type(&ctx, root, out);
    }
    cJSON_Delete(root);
    return rc;
}

/*
 * Finds the first name of a struct that an earlier field already has, ASCII
 * case-insensitively (Spark resolves names case-insensitively by default, so
 * "seq" and "SEQ" are the same column). A hash of lower-cased names keeps a
 * schema of many columns linear.
 */
static silt_status first_duplicate(const col_type *st, const char **dup_out, silt_error *err)
{
    hashmap seen = HASHMAP_INIT;
    buf lower = BUF_INIT;
    silt_status rc = SILT_OK;
    size_t idx;
    *dup_out = NULL;
    for (idx = 0; idx < st->n_fields && rc == SILT_OK && *dup_out == NULL; idx++) {
        const char *name = st->fields[idx].name;
        void *old = NULL;
        buf_truncate(&lower, 0);
        rc = buf_append_str(&lower, name, err);
        if (rc == SILT_OK)
            util_str_ascii_lower(lower.data, lower.len);
        if (rc == SILT_OK)
            rc = hashmap_put(&seen, lower.data, lower.len, (void *)name, &old, err);
        if (rc == SILT_OK && old != NULL)
            *dup_out = name;
    }
    hashmap_clear(&seen);
    buf_clear(&lower);
    return rc;
}

static silt_status check_names_at(const col_type *type, buf *path, int depth, silt_status code,
                                  silt_error *err)
{
    const char *dup = NULL;
    size_t idx, path_len = path->len;
    if (type == NULL || depth > SCHEMA_MAX_DEPTH + 1)
        return SILT_OK; /* parsing already bounds the depth */
    if (type->id == COL_STRUCT) {
        SILT_RETURN_IF_ERROR(first_duplicate(type, &dup, err));
        if (dup != NULL)
            return err_set(err, code, "[DELTA_DUPLICATE_COLUMNS_FOUND] Found duplicate "
                           "column(s) in the table schema: \"%.*s%s%s\"", (int)path_len,
                           path->data ? path->data : "", path_len ? "." : "", dup);
    }
    for (idx = 0; idx < type->n_fields; idx++) {
        silt_status rc = SILT_OK;
        if (type->id == COL_STRUCT)
            rc = buf_printf(path, err, "%s%s", path_len ? "." : "", type->fields[idx].name);
        if (rc == SILT_OK)
            rc = check_names_at(type->fields[idx].type, path, depth + 1, code, err);
        buf_truncate(path, path_len);
        SILT_RETURN_IF_ERROR(rc);
    }
    return SILT_OK;
}

silt_status dlog_metadata_check(const dlog_metadata *md, silt_status code, silt_error *err)
{
    buf path = BUF_INIT;
    silt_status rc = check_names_at(md->schema, &path, 0, code, err);
    size_t idx, col;
    buf_clear(&path);
    for (idx = 0; rc == SILT_OK && idx < md->n_partition_columns; idx++) {
        const char *name = md->partition_columns[idx];
        for (col = 0; md->schema != NULL && col < md->schema->n_fields; col++)
            if (util_str_casecmp(md->schema->fields[col].name, name) == 0)
                break;
        if (md->schema == NULL || col == md->schema->n_fields)
            rc = err_set(err, code, "[DELTA_PARTITION_COLUMN_NOT_FOUND] Partition column "
                         "`%s` not found in the table schema", name);
        /* A column named twice would be two partition values for one column. */
        for (col = 0; rc == SILT_OK && col < idx; col++)
            if (util_str_casecmp(md->partition_columns[col], name) == 0)
                rc = err_set(err, code, "[DELTA_DUPLICATE_COLUMNS_FOUND] Found duplicate "
                             "column(s) in the partition columns: \"%s\"", name);
    }
    return rc;
}

/* ---- serialisation ---------------------------------------------------------------------- */

static int add_str(cJSON *obj, const char *name, const char *value)
{
    return cJSON_AddItemToObject(obj, name, value ? cJSON_CreateString(value) : cJSON_CreateNull());
}

static int add_num(cJSON *obj, const char *name, int64_t value)
{
    char text[24];
    /* Below 2^53 a double is exact and cJSON prints it without a fraction; above, the
     * integer is written as its own digits (a double would round 2^63-1). */
    if (value > -9007199254740992LL && value < 9007199254740992LL)
        return cJSON_AddNumberToObject(obj, name, (double)value) != NULL;
    snprintf(text, sizeof(text), "%lld", (long long)value);
    return cJSON_AddRawToObject(obj, name, text) != NULL;
}

static int add_map(cJSON *obj, const char *name, const dlog_map *map)
{
    cJSON *item = cJSON_CreateObject();
    size_t idx;
    if (item == NULL)
        return 0;
    for (idx = 0; idx < map->n; idx++)
        if (!add_str(item, map->items[idx].key, map->items[idx].value)) {
            cJSON_Delete(item);
            return 0;
        }
    return cJSON_AddItemToObject(obj, name, item);
}

static int add_str_array(cJSON *obj, const char *name, size_t n, const char **items)
{
    cJSON *array = cJSON_CreateArray();
    size_t idx;
    if (array == NULL)
        return 0;
    for (idx = 0; idx < n; idx++)
        cJSON_AddItemToArray(array, cJSON_CreateString(items[idx]));
    return cJSON_AddItemToObject(obj, name, array);
}

static int add_dv(cJSON *obj, const dlog_dv *dv)
{
    cJSON *item;
    char type[2] = {dv->storage_type, 0};
    if (dv->storage_type == 0)
        return 1;
    item = cJSON_CreateObject();
    if (item == NULL)
        return 0;
    add_str(item, "storageType", type);
    add_str(item, "pathOrInlineDv", dv->path_or_inline_dv);
    if (dv->offset >= 0)
        add_num(item, "offset", dv->offset);
    add_num(item, "sizeInBytes", dv->size_in_bytes);
    add_num(item, "cardinality", dv->cardinality);
    if (dv->max_row_index >= 0)
        add_num(item, "maxRowIndex", dv->max_row_index);
    return cJSON_AddItemToObject(obj, "deletionVector", item);
}

/* Hadoop's Path.toUri escapes: keep what is safe in a URI path, %XX the rest. */
static char *uri_encode(const char *s)
{
    static const char safe[] = "-._~/=!$&'()*+,;@";
    size_t len = strlen(s), idx, out_len = 0;
    char *out = mem_alloc(len * 3 + 1);
    if (out == NULL)
        return NULL;
    for (idx = 0; idx < len; idx++) {
        unsigned char c = (unsigned char)s[idx];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            (c != 0 && strchr(safe, c) != NULL)) {
            out[out_len++] = (char)c;
        } else {
            snprintf(out + out_len, 4, "%%%02X", c);
            out_len += 3;
        }
    }
    out[out_len] = '\0';
    return out;
}

/* The scheme and authority of an absolute URI ("file:", "s3://bucket"), kept as they are. */
static size_t uri_prefix_len(const char *path)
{
    const char *sep = strstr(path, "://");
    if (strncmp(path, "file:", 5) == 0 && (sep == NULL || sep != path + 4))
        return 5;
    if (sep == NULL || strcspn(path, "/") < (size_t)(sep - path))
        return 0;
    return (size_t)(sep + 3 - path) + strcspn(sep + 3, "/");
}

static int add_path(cJSON *obj, const char *raw_path, const char *path)
{
    size_t keep = uri_prefix_len(path);
    char *encoded, *joined;
    int ok;
    if (raw_path != NULL)
        return add_str(obj, "path", raw_path);
    encoded = uri_encode(path + keep);
    if (encoded == NULL)
        return 0;
    joined = mem_alloc(keep + strlen(encoded) + 1);
    if (joined == NULL) {
        mem_free(encoded);
        return 0;
    }
    memcpy(joined, path, keep);
    memcpy(joined + keep, encoded, strlen(encoded) + 1);
    ok = add_str(obj, "path", joined);
    mem_free(joined);
    mem_free(encoded);
    return ok;
}

static cJSON *add_json(const dlog_add *add)
{
    cJSON *obj = cJSON_CreateObject();
    if (obj == NULL)
        return NULL;
    add_path(obj, add->raw_path, add->path);
    add_map(obj, "partitionValues", &add->partition_values);
    add_num(obj, "size", add->size);
    add_num(obj, "modificationTime", add->modification_time);
    cJSON_AddBoolToObject(obj, "dataChange", add->data_change);
    if (add->stats != NULL)
        add_str(obj, "stats", add->stats);
    if (add->tags.n > 0)
        add_map(obj, "tags", &add->tags);
    add_dv(obj, &add->dv);
    if (add->has_base_row_id)
        add_num(obj, "baseRowId", add->base_row_id);
    if (add->has_default_row_commit_version)
        add_num(obj, "defaultRowCommitVersion", add->default_row_commit_version);
    if (add->clustering_provider != NULL)
        add_str(obj, "clusteringProvider", add->clustering_provider);
    return obj;
}

static cJSON *remove_json(const dlog_remove *rm)
{
    cJSON *obj = cJSON_CreateObject();
    if (obj == NULL)
        return NULL;
    add_path(obj, rm->raw_path, rm->path);
    if (rm->has_deletion_timestamp)
        add_num(obj, "deletionTimestamp", rm->deletion_timestamp);
    cJSON_AddBoolToObject(obj, "dataChange", rm->data_change);
    if (rm->extended_file_metadata) {
        cJSON_AddBoolToObject(obj, "extendedFileMetadata", 1);
        add_map(obj, "partitionValues", &rm->partition_values);
    }
    if (rm->has_size)
        add_num(obj, "size", rm->size);
    if (rm->stats != NULL)
        add_str(obj, "stats", rm->stats);
    if (rm->tags.n > 0)
        add_map(obj, "tags", &rm->tags);
    add_dv(obj, &rm->dv);
    if (rm->has_base_row_id)
        add_num(obj, "baseRowId", rm->base_row_id);
    if (rm->has_default_row_commit_version)
        add_num(obj, "defaultRowCommitVersion", rm->default_row_commit_version);
    return obj;
}

static cJSON *metadata_json(const dlog_metadata *md)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON *format;
    if (obj == NULL)
        return NULL;
    add_str(obj, "id", md->id);
    if (md->name != NULL)
        add_str(obj, "name", md->name);
    if (md->description != NULL)
        add_str(obj, "description", md->description);
    format = cJSON_CreateObject();
    if (format != NULL) {
        add_str(format, "provider", md->format_provider ? md->format_provider : "parquet");
        add_map(format, "options", &md->format_options);
        cJSON_AddItemToObject(obj, "format", format);
    }
    add_str(obj, "schemaString", md->schema_string);
    add_str_array(obj, "partitionColumns", md->n_partition_columns, md->partition_columns);
    add_map(obj, "configuration", &md->configuration);
    if (md->has_created_time)
        add_num(obj, "createdTime", md->created_time);
    return obj;
}

static cJSON *protocol_json(const dlog_protocol *p)
{
    cJSON *obj = cJSON_CreateObject();
    if (obj == NULL)
        return NULL;
    add_num(obj, "minReaderVersion", p->min_reader_version);
    add_num(obj, "minWriterVersion", p->min_writer_version);
    if (p->has_reader_features)
        add_str_array(obj, "readerFeatures", p->n_reader_features, p->reader_features);
    if (p->has_writer_features)
        add_str_array(obj, "writerFeatures", p->n_writer_features, p->writer_features);
    return obj;
}

static cJSON *txn_json(const dlog_txn *txn)
{
    cJSON *obj = cJSON_CreateObject();
    if (obj == NULL)
        return NULL;
    add_str(obj, "appId", txn->app_id);
    add_num(obj, "version", txn->version);
    if (txn->has_last_updated)
        add_num(obj, "lastUpdated", txn->last_updated);
    return obj;
}

static cJSON *domain_json(const dlog_domain_metadata *dm)
{
    cJSON *obj = cJSON_CreateObject();
    if (obj == NULL)
        return NULL;
    add_str(obj, "domain", dm->domain);
    add_str(obj, "configuration", dm->configuration);
    cJSON_AddBoolToObject(obj, "removed", dm->removed);
    return obj;
}

static cJSON *commit_info_json(const dlog_commit_info *ci)
{
    cJSON *obj = NULL;
    if (ci->raw_json != NULL)
        obj = cJSON_Parse(ci->raw_json);
    if (obj == NULL)
        obj = cJSON_CreateObject();
    if (obj == NULL)
        return NULL;
    /* The parsed fields win over the raw text, so a writer can set them. */
    if (ci->has_in_commit_timestamp) {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, "inCommitTimestamp");
        add_num(obj, "inCommitTimestamp", ci->in_commit_timestamp);
    }
    if (ci->has_timestamp) {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, "timestamp");
        add_num(obj, "timestamp", ci->timestamp);
    }
    if (ci->operation != NULL) {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, "operation");
        add_str(obj, "operation", ci->operation);
    }
    return obj;
}

static cJSON *cdc_json(const dlog_cdc *cdc)
{
    cJSON *obj = cJSON_CreateObject();
    if (obj == NULL)
        return NULL;
    add_path(obj, cdc->raw_path, cdc->path);
    add_map(obj, "partitionValues", &cdc->partition_values);
    add_num(obj, "size", cdc->size);
    cJSON_AddBoolToObject(obj, "dataChange", cdc->data_change);
    if (cdc->tags.n > 0)
        add_map(obj, "tags", &cdc->tags);
    return obj;
}

silt_status dlog_action_to_json(const dlog_action *action, buf *out, silt_error *err)
{
    cJSON *inner = NULL, *root;
    char *text;
    silt_status rc;
    switch (action->type) {
    case DLOG_ADD: inner = add_json(&action->u.add); break;
    case DLOG_REMOVE: inner = remove_json(&action->u.remove); break;
    case DLOG_METADATA: inner = metadata_json(&action->u.metadata); break;
    case DLOG_PROTOCOL: inner = protocol_json(&action->u.protocol); break;
    case DLOG_TXN: inner = txn_json(&action->u.txn); break;
    case DLOG_DOMAIN_METADATA: inner = domain_json(&action->u.domain); break;
    case DLOG_COMMIT_INFO: inner = commit_info_json(&action->u.commit_info); break;
    case DLOG_CDC: inner = cdc_json(&action->u.cdc); break;
    default:
        return err_set(err, SILT_INVALID, "action \"%s\" cannot be written to a commit",
                       dlog_action_name(action->type));
    }
    if (inner == NULL)
        return err_nomem(err);
    root = cJSON_CreateObject();
    if (root == NULL) {
        cJSON_Delete(inner);
        return err_nomem(err);
    }
    cJSON_AddItemToObject(root, dlog_action_name(action->type), inner);
    text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (text == NULL)
        return err_nomem(err);
    rc = buf_append_str(out, text, err);
    cJSON_free(text);
    return rc;
}

/* ---- deep copies ------------------------------------------------------------ */

static silt_status copy_str(arena *a, const char *src, const char **dst, silt_error *err)
{
    if (src == NULL) {
        *dst = NULL;
        return SILT_OK;
    }
    *dst = arena_strdup(a, src);
    return *dst ? SILT_OK : err_nomem(err);
}

silt_status dlog_map_copy(arena *a, const dlog_map *src, dlog_map *dst, silt_error *err)
{
    size_t idx;
    dlog_kv *items = arena_calloc(a, src->n + 1, sizeof(dlog_kv));
    if (items == NULL)
        return err_nomem(err);
    for (idx = 0; idx < src->n; idx++) {
        SILT_RETURN_IF_ERROR(copy_str(a, src->items[idx].key, &items[idx].key, err));
        SILT_RETURN_IF_ERROR(copy_str(a, src->items[idx].value, &items[idx].value, err));
    }
    dst->items = items;
    dst->n = src->n;
    return SILT_OK;
}

static silt_status dlog_dv_copy(arena *a, const dlog_dv *src, dlog_dv *dst, silt_error *err)
{
    *dst = *src;
    return copy_str(a, src->path_or_inline_dv, &dst->path_or_inline_dv, err);
}

silt_status dlog_add_copy(arena *a, const dlog_add *src, dlog_add *dst, silt_error *err)
{
    *dst = *src;
    SILT_RETURN_IF_ERROR(copy_str(a, src->path, &dst->path, err));
    SILT_RETURN_IF_ERROR(copy_str(a, src->raw_path, &dst->raw_path, err));
    SILT_RETURN_IF_ERROR(dlog_map_copy(a, &src->partition_values, &dst->partition_values, err));
    SILT_RETURN_IF_ERROR(copy_str(a, src->stats, &dst->stats, err));
    SILT_RETURN_IF_ERROR(dlog_map_copy(a, &src->tags, &dst->tags, err));
    SILT_RETURN_IF_ERROR(dlog_dv_copy(a, &src->dv, &dst->dv, err));
    return copy_str(a, src->clustering_provider, &dst->clustering_provider, err);
}

silt_status dlog_remove_copy(arena *a, const dlog_remove *src, dlog_remove *dst,
                             silt_error *err)
{
    *dst = *src;
    SILT_RETURN_IF_ERROR(copy_str(a, src->path, &dst->path, err));
    SILT_RETURN_IF_ERROR(copy_str(a, src->raw_path, &dst->raw_path, err));
    SILT_RETURN_IF_ERROR(dlog_map_copy(a, &src->partition_values, &dst->partition_values, err));
    SILT_RETURN_IF_ERROR(copy_str(a, src->stats, &dst->stats, err));
    SILT_RETURN_IF_ERROR(dlog_map_copy(a, &src->tags, &dst->tags, err));
    return dlog_dv_copy(a, &src->dv, &dst->dv, err);
}
