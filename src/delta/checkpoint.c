/*
 * checkpoint.c - actions from the rows of a checkpoint batch.
 *
 * PROTOCOL: Checkpoint Schema. A checkpoint row has one non-null struct
 * column (add, remove, metaData, protocol, txn, domainMetadata,
 * checkpointMetadata, sidecar); the nested fields mirror the JSON actions,
 * with partitionValues and tags as map<string,string> and deletionVector
 * and metaData.format as structs. Columns are found by name, so files
 * written with fewer or more fields than silt knows still read. Types are
 * checked before any value is touched: a checkpoint whose column has
 * another type than the schema allows is SILT_CORRUPT, never a misread.
 */
#include "delta/checkpoint.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "util/time.h"

typedef struct row_ctx {
    arena *a;
    silt_error *err;
    const char *action;
    int64_t row;
} row_ctx;

/* The child vector of a STRUCT vector by field name, or NULL. */
static const col_vec *child(const col_vec *v, const char *name)
{
    size_t idx;
    if (v == NULL || v->type->id != COL_STRUCT)
        return NULL;
    for (idx = 0; idx < v->type->n_fields && idx < v->n_children; idx++)
        if (strcmp(v->type->fields[idx].name, name) == 0)
            return v->children[idx];
    return NULL;
}

static silt_status type_error(row_ctx *ctx, const char *field, const char *expected)
{
    return err_set(ctx->err, SILT_CORRUPT, "checkpoint column \"%s.%s\" is not of type %s",
                   ctx->action, field, expected);
}

static silt_status missing(row_ctx *ctx, const char *field)
{
    return err_set(ctx->err, SILT_CORRUPT, "checkpoint row %lld: required field \"%s.%s\" is null",
                   (long long)ctx->row, ctx->action, field);
}

static int is_null(const col_vec *v, int64_t row) { return v == NULL || col_vec_is_null(v, row); }

static silt_status copy_bytes(row_ctx *ctx, const col_vec *v, int64_t row, const char **out)
{
    int32_t len = 0;
    const char *bytes = col_vec_str(v, row, &len);
    *out = arena_strndup(ctx->a, bytes, (size_t)len);
    return *out ? SILT_OK : err_nomem(ctx->err);
}

static silt_status read_string(row_ctx *ctx, const col_vec *parent, const char *field, int64_t row,
                               int required, const char **out)
{
    const col_vec *v = child(parent, field);
    *out = NULL;
    if (v != NULL && v->type->id != COL_STRING && v->type->id != COL_BINARY)
        return type_error(ctx, field, "string");
    if (is_null(v, row))
        return required ? missing(ctx, field) : SILT_OK;
    return copy_bytes(ctx, v, row, out);
}

static silt_status read_int(row_ctx *ctx, const col_vec *parent, const char *field, int64_t row,
                            int required, int *has_out, int64_t *out)
{
    const col_vec *v = child(parent, field);
    if (has_out != NULL)
        *has_out = 0;
    if (v == NULL || is_null(v, row))
        return required ? missing(ctx, field) : SILT_OK;
    switch (v->type->id) {
    case COL_BYTE: *out = ((const int8_t *)v->values)[row]; break;
    case COL_SHORT: *out = ((const int16_t *)v->values)[row]; break;
    case COL_INT: *out = ((const int32_t *)v->values)[row]; break;
    case COL_LONG: *out = ((const int64_t *)v->values)[row]; break;
    default: return type_error(ctx, field, "integer or long");
    }
    if (has_out != NULL)
        *has_out = 1;
    return SILT_OK;
}

static silt_status read_bool(row_ctx *ctx, const col_vec *parent, const char *field, int64_t row,
                             int dflt, int *out)
{
    const col_vec *v = child(parent, field);
    *out = dflt;
    if (v == NULL || is_null(v, row))
        return SILT_OK;
    if (v->type->id != COL_BOOLEAN)
        return type_error(ctx, field, "boolean");
    *out = ((const uint8_t *)v->values)[row] != 0;
    return SILT_OK;
}

static int is_string_vec(const col_vec *v)
{
    return v->type->id == COL_STRING || v->type->id == COL_BINARY;
}

static silt_status read_map(row_ctx *ctx, const col_vec *parent, const char *field, int64_t row,
                            dlog_map *out)
{
    const col_vec *v = child(parent, field);
    int32_t start, end, idx;
    out->n = 0;
    out->items = NULL;
    if (v == NULL || is_null(v, row))
        return SILT_OK;
    if (v->type->id != COL_MAP || v->n_children < 2 || !is_string_vec(v->children[0]) ||
        !is_string_vec(v->children[1]))
        return type_error(ctx, field, "map<string,string>");
    start = v->offsets[row];
    end = v->offsets[row + 1];
    if (start < 0 || end < start || end > v->children[0]->length || end > v->children[1]->length)
        return err_set(ctx->err, SILT_CORRUPT, "checkpoint column \"%s.%s\" has offsets out of "
                       "range at row %lld", ctx->action, field, (long long)row);
    out->items = arena_calloc(ctx->a, (size_t)(end - start) + 1, sizeof(dlog_kv));
    if (out->items == NULL)
        return err_nomem(ctx->err);
    for (idx = start; idx < end; idx++) {
        dlog_kv *kv = &out->items[out->n++];
        if (col_vec_is_null(v->children[0], idx))
            return missing(ctx, field);
        SILT_RETURN_IF_ERROR(copy_bytes(ctx, v->children[0], idx, &kv->key));
        kv->value = NULL;
        if (!col_vec_is_null(v->children[1], idx))
            SILT_RETURN_IF_ERROR(copy_bytes(ctx, v->children[1], idx, &kv->value));
    }
    return SILT_OK;
}

static silt_status read_strings(row_ctx *ctx, const col_vec *parent, const char *field,
                                int64_t row, int *has_out, size_t *n_out, const char ***out)
{
    const col_vec *v = child(parent, field);
    int32_t start, end, idx;
    *has_out = 0;
    *n_out = 0;
    *out = NULL;
    if (v == NULL || is_null(v, row))
        return SILT_OK;
    if (v->type->id != COL_ARRAY || v->n_children < 1 || !is_string_vec(v->children[0]))
        return type_error(ctx, field, "array<string>");
    start = v->offsets[row];
    end = v->offsets[row + 1];
    if (start < 0 || end < start || end > v->children[0]->length)
        return err_set(ctx->err, SILT_CORRUPT, "checkpoint column \"%s.%s\" has offsets out of "
                       "range at row %lld", ctx->action, field, (long long)row);
    *out = arena_calloc(ctx->a, (size_t)(end - start) + 1, sizeof(char *));
    if (*out == NULL)
        return err_nomem(ctx->err);
    for (idx = start; idx < end; idx++) {
        if (col_vec_is_null(v->children[0], idx))
            return missing(ctx, field);
        SILT_RETURN_IF_ERROR(copy_bytes(ctx, v->children[0], idx, &(*out)[(*n_out)++]));
    }
    *has_out = 1;
    return SILT_OK;
}

static silt_status read_dv(row_ctx *ctx, const col_vec *parent, int64_t row, dlog_dv *out)
{
    const col_vec *v = child(parent, "deletionVector");
    const char *storage = NULL, *saved = ctx->action;
    int has_offset = 0;
    int64_t size = 0;
    silt_status rc;
    memset(out, 0, sizeof(*out));
    out->offset = -1;
    out->max_row_index = -1;
    if (v == NULL || is_null(v, row))
        return SILT_OK;
    if (v->type->id != COL_STRUCT)
        return type_error(ctx, "deletionVector", "struct");
    ctx->action = "deletionVector";
    rc = read_string(ctx, v, "storageType", row, 1, &storage);
    if (rc == SILT_OK && (strlen(storage) != 1 || strchr("uip", storage[0]) == NULL))
        rc = err_set(ctx->err, SILT_CORRUPT, "checkpoint row %lld: deletion vector storage type "
                     "\"%s\" is not one of 'u', 'i', 'p'", (long long)row, storage);
    if (rc == SILT_OK)
        rc = read_string(ctx, v, "pathOrInlineDv", row, 1, &out->path_or_inline_dv);
    if (rc == SILT_OK)
        rc = read_int(ctx, v, "offset", row, 0, &has_offset, &out->offset);
    if (rc == SILT_OK)
        rc = read_int(ctx, v, "sizeInBytes", row, 1, NULL, &size);
    if (rc == SILT_OK)
        rc = read_int(ctx, v, "cardinality", row, 1, NULL, &out->cardinality);
    if (rc == SILT_OK)
        rc = read_int(ctx, v, "maxRowIndex", row, 0, NULL, &out->max_row_index);
    if (rc == SILT_OK && (size < 0 || size > INT32_MAX || out->cardinality < 0))
        rc = err_set(ctx->err, SILT_CORRUPT, "checkpoint row %lld: deletion vector size or "
                     "cardinality is out of range", (long long)row);
    ctx->action = saved;
    if (rc != SILT_OK)
        return rc;
    if (!has_offset)
        out->offset = -1;
    out->storage_type = storage[0];
    out->size_in_bytes = (int32_t)size;
    return SILT_OK;
}

static silt_status decode_path(row_ctx *ctx, const char *raw, const char **out)
{
    silt_status rc = dlog_uri_decode(ctx->a, raw, strlen(raw), out, ctx->err);
    if (rc == SILT_CORRUPT)
        err_context(ctx->err, "in checkpoint row %lld", (long long)ctx->row);
    return rc;
}

/* ---- stats_parsed -> stats JSON -------------------------------------------------------- */

#define STATS_MAX_DEPTH 64

/* One value of a stats_parsed leaf as JSON (NULL when it cannot be shown). */
static cJSON *stats_leaf(const col_vec *v, int64_t row)
{
    char text[64];
    switch (v->type->id) {
    case COL_BOOLEAN: return cJSON_CreateBool(((const uint8_t *)v->values)[row] != 0);
    case COL_BYTE: return cJSON_CreateNumber(((const int8_t *)v->values)[row]);
    case COL_SHORT: return cJSON_CreateNumber(((const int16_t *)v->values)[row]);
    case COL_INT: return cJSON_CreateNumber(((const int32_t *)v->values)[row]);
    case COL_LONG: return cJSON_CreateNumber((double)((const int64_t *)v->values)[row]);
    case COL_FLOAT: return cJSON_CreateNumber(((const float *)v->values)[row]);
    case COL_DOUBLE: return cJSON_CreateNumber(((const double *)v->values)[row]);
    case COL_DATE:
        time_format_date(((const int32_t *)v->values)[row], text, sizeof(text));
        return cJSON_CreateString(text);
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        /* Delta writes stats timestamps with milliseconds. */
        time_format_timestamp(((const int64_t *)v->values)[row], 'T', 3,
                              v->type->id == COL_TIMESTAMP, text, sizeof(text));
        return cJSON_CreateString(text);
    case COL_STRING: {
        int32_t len = 0;
        const char *bytes = col_vec_str(v, row, &len);
        char *copy = cJSON_malloc((size_t)len + 1);
        cJSON *item;
        if (copy == NULL)
            return NULL;
        memcpy(copy, bytes, (size_t)len);
        copy[len] = '\0';
        item = cJSON_CreateString(copy);
        cJSON_free(copy);
        return item;
    }
    default: return NULL; /* decimals and binaries: left out, so unknown, never wrong */
    }
}

static cJSON *stats_struct(const col_vec *v, int64_t row, int depth)
{
    cJSON *obj;
    size_t idx;
    if (depth > STATS_MAX_DEPTH)
        return NULL;
    obj = cJSON_CreateObject();
    if (obj == NULL)
        return NULL;
    for (idx = 0; idx < v->type->n_fields && idx < v->n_children; idx++) {
        const col_vec *field = v->children[idx];
        cJSON *item;
        if (col_vec_is_null(field, row))
            continue;
        item = field->type->id == COL_STRUCT ? stats_struct(field, row, depth + 1)
                                             : stats_leaf(field, row);
        if (item != NULL)
            cJSON_AddItemToObject(obj, v->type->fields[idx].name, item);
    }
    return obj;
}

/*
 * PROTOCOL: Checkpoint Schema, stats_parsed. When a checkpoint keeps only the
 * typed stats (delta.checkpoint.writeStatsAsJson = false), they are turned
 * back into the JSON text the rest of silt parses lazily.
 */
static silt_status stats_from_parsed(row_ctx *ctx, const col_vec *add, int64_t row,
                                     const char **out)
{
    const col_vec *parsed = child(add, "stats_parsed");
    cJSON *obj;
    char *text;
    if (parsed == NULL || is_null(parsed, row) || parsed->type->id != COL_STRUCT)
        return SILT_OK;
    obj = stats_struct(parsed, row, 0);
    if (obj == NULL)
        return err_nomem(ctx->err);
    text = cJSON_PrintUnformatted(obj);
    cJSON_Delete(obj);
    if (text == NULL)
        return err_nomem(ctx->err);
    *out = arena_strdup(ctx->a, text);
    cJSON_free(text);
    return *out ? SILT_OK : err_nomem(ctx->err);
}

static silt_status row_add(row_ctx *ctx, const col_vec *v, int64_t row, dlog_add *out)
{
    SILT_RETURN_IF_ERROR(read_string(ctx, v, "path", row, 1, &out->raw_path));
    SILT_RETURN_IF_ERROR(decode_path(ctx, out->raw_path, &out->path));
    SILT_RETURN_IF_ERROR(read_map(ctx, v, "partitionValues", row, &out->partition_values));
    SILT_RETURN_IF_ERROR(read_int(ctx, v, "size", row, 1, NULL, &out->size));
    SILT_RETURN_IF_ERROR(read_int(ctx, v, "modificationTime", row, 0, NULL, &out->modification_time));
    SILT_RETURN_IF_ERROR(read_bool(ctx, v, "dataChange", row, 0, &out->data_change));
    /* The JSON stats win; stats_parsed is used only when they are absent. */
    SILT_RETURN_IF_ERROR(read_string(ctx, v, "stats", row, 0, &out->stats));
    if (out->stats == NULL)
        SILT_RETURN_IF_ERROR(stats_from_parsed(ctx, v, row, &out->stats));
    SILT_RETURN_IF_ERROR(read_map(ctx, v, "tags", row, &out->tags));
    SILT_RETURN_IF_ERROR(read_dv(ctx, v, row, &out->dv));
    SILT_RETURN_IF_ERROR(read_int(ctx, v, "baseRowId", row, 0, &out->has_base_row_id, &out->base_row_id));
    SILT_RETURN_IF_ERROR(read_int(ctx, v, "defaultRowCommitVersion", row, 0,
                                  &out->has_default_row_commit_version,
                                  &out->default_row_commit_version));
    return read_string(ctx, v, "clusteringProvider", row, 0, &out->clustering_provider);
}

static silt_status row_remove(row_ctx *ctx, const col_vec *v, int64_t row, dlog_remove *out)
{
    SILT_RETURN_IF_ERROR(read_string(ctx, v, "path", row, 1, &out->raw_path));
    SILT_RETURN_IF_ERROR(decode_path(ctx, out->raw_path, &out->path));
    SILT_RETURN_IF_ERROR(read_int(ctx, v, "deletionTimestamp", row, 0, &out->has_deletion_timestamp,
                                  &out->deletion_timestamp));
    SILT_RETURN_IF_ERROR(read_bool(ctx, v, "dataChange", row, 0, &out->data_change));
    SILT_RETURN_IF_ERROR(read_bool(ctx, v, "extendedFileMetadata", row, 0,
                                   &out->extended_file_metadata));
    SILT_RETURN_IF_ERROR(read_map(ctx, v, "partitionValues", row, &out->partition_values));
    SILT_RETURN_IF_ERROR(read_int(ctx, v, "size", row, 0, &out->has_size, &out->size));
    SILT_RETURN_IF_ERROR(read_map(ctx, v, "tags", row, &out->tags));
    SILT_RETURN_IF_ERROR(read_dv(ctx, v, row, &out->dv));
    SILT_RETURN_IF_ERROR(read_int(ctx, v, "baseRowId", row, 0, &out->has_base_row_id, &out->base_row_id));
    return read_int(ctx, v, "defaultRowCommitVersion", row, 0,
                    &out->has_default_row_commit_version, &out->default_row_commit_version);
}

static silt_status row_metadata(row_ctx *ctx, const col_vec *v, int64_t row, dlog_metadata *out)
{
    const col_vec *format = child(v, "format");
    int has = 0;
    silt_status rc;
    SILT_RETURN_IF_ERROR(read_string(ctx, v, "id", row, 1, &out->id));
    SILT_RETURN_IF_ERROR(read_string(ctx, v, "name", row, 0, &out->name));
    SILT_RETURN_IF_ERROR(read_string(ctx, v, "description", row, 0, &out->description));
    out->format_provider = "parquet";
    if (format != NULL && !is_null(format, row)) {
        const char *saved = ctx->action;
        ctx->action = "metaData.format";
        rc = read_string(ctx, format, "provider", row, 0, &out->format_provider);
        if (rc == SILT_OK)
            rc = read_map(ctx, format, "options", row, &out->format_options);
        ctx->action = saved;
        SILT_RETURN_IF_ERROR(rc);
        if (out->format_provider == NULL)
            out->format_provider = "parquet";
    }
    SILT_RETURN_IF_ERROR(read_string(ctx, v, "schemaString", row, 0, &out->schema_string));
    if (out->schema_string == NULL) /* Delta Live Tables' setup metaData (actions.c) */
        out->schema_string = DLOG_EMPTY_SCHEMA;
    SILT_RETURN_IF_ERROR(read_strings(ctx, v, "partitionColumns", row, &has,
                                      &out->n_partition_columns, &out->partition_columns));
    SILT_RETURN_IF_ERROR(read_map(ctx, v, "configuration", row, &out->configuration));
    SILT_RETURN_IF_ERROR(read_int(ctx, v, "createdTime", row, 0, &out->has_created_time,
                                  &out->created_time));
    rc = dlog_parse_schema(&out->schema, ctx->a, out->schema_string, ctx->err);
    if (rc != SILT_OK)
        err_context(ctx->err, "while parsing \"metaData.schemaString\" of checkpoint row %lld",
                    (long long)row);
    return rc;
}

static silt_status row_protocol(row_ctx *ctx, const col_vec *v, int64_t row, dlog_protocol *out)
{
    int64_t reader = 0, writer = 0;
    SILT_RETURN_IF_ERROR(read_int(ctx, v, "minReaderVersion", row, 1, NULL, &reader));
    SILT_RETURN_IF_ERROR(read_int(ctx, v, "minWriterVersion", row, 1, NULL, &writer));
    if (reader < 0 || reader > INT32_MAX || writer < 0 || writer > INT32_MAX)
        return err_set(ctx->err, SILT_CORRUPT, "checkpoint row %lld: protocol versions are out "
                       "of range", (long long)row);
    out->min_reader_version = (int32_t)reader;
    out->min_writer_version = (int32_t)writer;
    SILT_RETURN_IF_ERROR(read_strings(ctx, v, "readerFeatures", row, &out->has_reader_features,
                                      &out->n_reader_features, &out->reader_features));
    return read_strings(ctx, v, "writerFeatures", row, &out->has_writer_features,
                        &out->n_writer_features, &out->writer_features);
}

static silt_status row_other(row_ctx *ctx, dlog_action_type type, const col_vec *v, int64_t row,
                             dlog_action *out)
{
    switch (type) {
    case DLOG_TXN:
        SILT_RETURN_IF_ERROR(read_string(ctx, v, "appId", row, 1, &out->u.txn.app_id));
        SILT_RETURN_IF_ERROR(read_int(ctx, v, "version", row, 1, NULL, &out->u.txn.version));
        return read_int(ctx, v, "lastUpdated", row, 0, &out->u.txn.has_last_updated,
                        &out->u.txn.last_updated);
    case DLOG_DOMAIN_METADATA:
        SILT_RETURN_IF_ERROR(read_string(ctx, v, "domain", row, 1, &out->u.domain.domain));
        SILT_RETURN_IF_ERROR(read_string(ctx, v, "configuration", row, 1,
                                         &out->u.domain.configuration));
        return read_bool(ctx, v, "removed", row, 0, &out->u.domain.removed);
    case DLOG_CHECKPOINT_METADATA:
        SILT_RETURN_IF_ERROR(read_int(ctx, v, "version", row, 1, NULL,
                                      &out->u.checkpoint_metadata.version));
        return read_map(ctx, v, "tags", row, &out->u.checkpoint_metadata.tags);
    case DLOG_SIDECAR: {
        const char *raw = NULL;
        SILT_RETURN_IF_ERROR(read_string(ctx, v, "path", row, 1, &raw));
        SILT_RETURN_IF_ERROR(decode_path(ctx, raw, &out->u.sidecar.path));
        SILT_RETURN_IF_ERROR(read_int(ctx, v, "sizeInBytes", row, 1, NULL,
                                      &out->u.sidecar.size_in_bytes));
        SILT_RETURN_IF_ERROR(read_int(ctx, v, "modificationTime", row, 0, NULL,
                                      &out->u.sidecar.modification_time));
        return read_map(ctx, v, "tags", row, &out->u.sidecar.tags);
    }
    default: return SILT_OK;
    }
}

static silt_status row_action(row_ctx *ctx, dlog_action_type type, const col_vec *v, int64_t row,
                              dlog_action *out)
{
    memset(out, 0, sizeof(*out));
    out->type = type;
    switch (type) {
    case DLOG_ADD: return row_add(ctx, v, row, &out->u.add);
    case DLOG_REMOVE: return row_remove(ctx, v, row, &out->u.remove);
    case DLOG_METADATA: return row_metadata(ctx, v, row, &out->u.metadata);
    case DLOG_PROTOCOL: return row_protocol(ctx, v, row, &out->u.protocol);
    default: return row_other(ctx, type, v, row, out);
    }
}

/* Action columns a checkpoint may carry. commitInfo and cdc never appear in checkpoints. */
static const dlog_action_type checkpoint_actions[] = {
    DLOG_ADD, DLOG_REMOVE, DLOG_METADATA, DLOG_PROTOCOL, DLOG_TXN, DLOG_DOMAIN_METADATA,
    DLOG_CHECKPOINT_METADATA, DLOG_SIDECAR,
};
#define N_CHECKPOINT_ACTIONS (sizeof(checkpoint_actions) / sizeof(checkpoint_actions[0]))

silt_status dlog_actions_from_batch(const col_batch *batch, arena *a, dlog_action_fn fn,
                                    void *payload, silt_error *err)
{
    const col_vec *cols[N_CHECKPOINT_ACTIONS];
    size_t kind, col_idx;
    int64_t row;
    row_ctx ctx;

    if (batch->schema == NULL || batch->schema->id != COL_STRUCT)
        return err_set(err, SILT_INVALID, "a checkpoint batch must have a struct schema");
    for (kind = 0; kind < N_CHECKPOINT_ACTIONS; kind++) {
        const char *name = dlog_action_name(checkpoint_actions[kind]);
        cols[kind] = NULL;
        for (col_idx = 0; col_idx < batch->n_cols && col_idx < batch->schema->n_fields; col_idx++)
            if (strcmp(batch->schema->fields[col_idx].name, name) == 0)
                cols[kind] = batch->cols[col_idx];
        if (cols[kind] != NULL && (cols[kind]->type->id != COL_STRUCT ||
                                   cols[kind]->length < batch->n_rows))
            return err_set(err, SILT_CORRUPT, "checkpoint column \"%s\" is not a struct of %lld "
                           "rows", name, (long long)batch->n_rows);
    }
    ctx.a = a;
    ctx.err = err;
    for (row = 0; row < batch->n_rows; row++) {
        ctx.row = row;
        for (kind = 0; kind < N_CHECKPOINT_ACTIONS; kind++) {
            dlog_action action;
            if (is_null(cols[kind], row))
                continue;
            ctx.action = dlog_action_name(checkpoint_actions[kind]);
            SILT_RETURN_IF_ERROR(row_action(&ctx, checkpoint_actions[kind], cols[kind], row,
                                            &action));
            SILT_RETURN_IF_ERROR(fn(&action, payload, err));
        }
    }
    return SILT_OK;
}
