/*
 * checkpoint_write.c - the rows of a classic checkpoint, the tombstones it
 * keeps, and writing it with `_last_checkpoint`.
 *
 * PROTOCOL: Checkpoints, Checkpoint Schema, Last Checkpoint File. A classic
 * checkpoint `N.checkpoint.parquet` holds the state of version N: one row
 * per action, each with exactly one of the struct columns txn, add,
 * remove, metaData, protocol, domainMetadata set. The schema follows the
 * one Spark writes (field names and types), so that every reader finds the
 * columns it expects. Remove tombstones are kept until
 * delta.deletedFileRetentionDuration (1 week by default) has passed, so that
 * VACUUM of a concurrent reader's files stays safe.
 *
 * The Parquet encoding is not done here: the batch goes through
 * delta_checkpoint_write_parquet (checkpoint_write_parquet.c), the one
 * place that knows the Parquet writer.
 */
#include <stdio.h>
#include <string.h>

#include "delta/checkpoint.h"
#include "delta/log.h"
#include "delta/txn.h"
#include "util/hashmap.h"
#include "util/time.h"

#define PRIM(id) col_type_primitive(id)

enum { CP_TXN, CP_ADD, CP_REMOVE, CP_METADATA, CP_PROTOCOL, CP_DOMAIN, CP_N_COLS };

static col_field fld(const char *name, const col_type *type)
{
    col_field f;
    memset(&f, 0, sizeof(f));
    f.name = name;
    f.type = type;
    f.nullable = 1;
    f.field_id = -1;
    return f;
}

static const col_type *make_struct(arena *a, const col_field *fields, size_t n)
{
    col_field *copy = arena_memdup(a, fields, n * sizeof(*fields));
    return copy ? col_type_struct(a, n, copy) : NULL;
}

#define STRUCT(a, arr) make_struct((a), (arr), sizeof(arr) / sizeof((arr)[0]))

const col_type *delta_checkpoint_schema(arena *a)
{
    const col_type *str_map = col_type_map(a, PRIM(COL_STRING), PRIM(COL_STRING), 1);
    const col_type *str_array = col_type_array(a, PRIM(COL_STRING), 1);
    col_field dv[] = {fld("storageType", PRIM(COL_STRING)), fld("pathOrInlineDv", PRIM(COL_STRING)),
                      fld("offset", PRIM(COL_INT)),         fld("sizeInBytes", PRIM(COL_INT)),
                      fld("cardinality", PRIM(COL_LONG)),   fld("maxRowIndex", PRIM(COL_LONG))};
    const col_type *dv_type = STRUCT(a, dv);
    col_field txn[] = {fld("appId", PRIM(COL_STRING)), fld("version", PRIM(COL_LONG)),
                       fld("lastUpdated", PRIM(COL_LONG))};
    /* Spark's order, stats last (checked against a Spark checkpoint by the interop test). */
    col_field add[] = {fld("path", PRIM(COL_STRING)),
                       fld("partitionValues", str_map),
                       fld("size", PRIM(COL_LONG)),
                       fld("modificationTime", PRIM(COL_LONG)),
                       fld("dataChange", PRIM(COL_BOOLEAN)),
                       fld("tags", str_map),
                       fld("deletionVector", dv_type),
                       fld("baseRowId", PRIM(COL_LONG)),
                       fld("defaultRowCommitVersion", PRIM(COL_LONG)),
                       fld("stats", PRIM(COL_STRING))};
    col_field rm[] = {fld("path", PRIM(COL_STRING)),
                      fld("deletionTimestamp", PRIM(COL_LONG)),
                      fld("dataChange", PRIM(COL_BOOLEAN)),
                      fld("extendedFileMetadata", PRIM(COL_BOOLEAN)),
                      fld("partitionValues", str_map),
                      fld("size", PRIM(COL_LONG)),
                      fld("deletionVector", dv_type),
                      fld("baseRowId", PRIM(COL_LONG)),
                      fld("defaultRowCommitVersion", PRIM(COL_LONG))};
    col_field format[] = {fld("provider", PRIM(COL_STRING)), fld("options", str_map)};
    col_field md[] = {fld("id", PRIM(COL_STRING)),
                      fld("name", PRIM(COL_STRING)),
                      fld("description", PRIM(COL_STRING)),
                      fld("format", STRUCT(a, format)),
                      fld("schemaString", PRIM(COL_STRING)),
                      fld("partitionColumns", str_array),
                      fld("configuration", str_map),
                      fld("createdTime", PRIM(COL_LONG))};
    col_field proto[] = {fld("minReaderVersion", PRIM(COL_INT)),
                         fld("minWriterVersion", PRIM(COL_INT)),
                         fld("readerFeatures", str_array), fld("writerFeatures", str_array)};
    col_field domain[] = {fld("domain", PRIM(COL_STRING)), fld("configuration", PRIM(COL_STRING)),
                          fld("removed", PRIM(COL_BOOLEAN))};
    col_field top[CP_N_COLS];
    top[CP_TXN] = fld("txn", STRUCT(a, txn));
    top[CP_ADD] = fld("add", STRUCT(a, add));
    top[CP_REMOVE] = fld("remove", STRUCT(a, rm));
    top[CP_METADATA] = fld("metaData", STRUCT(a, md));
    top[CP_PROTOCOL] = fld("protocol", STRUCT(a, proto));
    top[CP_DOMAIN] = fld("domainMetadata", STRUCT(a, domain));
    return STRUCT(a, top);
}

/* ---- appending values -------------------------------------------------------------------- */

static silt_status put_str(col_builder *b, const char *s, silt_error *err)
{
    if (s == NULL)
        return col_builder_append_null(b, err);
    return col_builder_append_bytes(b, s, strlen(s), err);
}

static silt_status put_opt_int(col_builder *b, int has, int64_t value, silt_error *err)
{
    return has ? col_builder_append_int(b, value, err) : col_builder_append_null(b, err);
}

static silt_status put_map(col_builder *b, const dlog_map *map, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < map->n; idx++) {
        SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 0), map->items[idx].key, err));
        SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 1), map->items[idx].value, err));
    }
    return col_builder_append_list(b, (int64_t)map->n, err);
}

static silt_status put_strs(col_builder *b, int has, size_t n, const char **items,
                            silt_error *err)
{
    size_t idx;
    if (!has)
        return col_builder_append_null(b, err);
    for (idx = 0; idx < n; idx++)
        SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 0), items[idx], err));
    return col_builder_append_list(b, (int64_t)n, err);
}

static silt_status put_dv(col_builder *b, const dlog_dv *dv, silt_error *err)
{
    char type[2] = {dv->storage_type, 0};
    if (dv->storage_type == 0)
        return col_builder_append_null(b, err);
    SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 0), type, err));
    SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 1), dv->path_or_inline_dv, err));
    SILT_RETURN_IF_ERROR(put_opt_int(col_builder_child(b, 2), dv->offset >= 0, dv->offset, err));
    SILT_RETURN_IF_ERROR(col_builder_append_int(col_builder_child(b, 3), dv->size_in_bytes, err));
    SILT_RETURN_IF_ERROR(col_builder_append_int(col_builder_child(b, 4), dv->cardinality, err));
    SILT_RETURN_IF_ERROR(
        put_opt_int(col_builder_child(b, 5), dv->max_row_index >= 0, dv->max_row_index, err));
    return col_builder_append_struct(b, err);
}

/* Ends a row whose action is in column `active`: null in every other column. */
static silt_status end_row(col_builder **cols, int active, silt_error *err)
{
    int idx;
    for (idx = 0; idx < CP_N_COLS; idx++)
        if (idx != active)
            SILT_RETURN_IF_ERROR(col_builder_append_null(cols[idx], err));
    return col_builder_append_struct(cols[active], err);
}

static silt_status row_protocol(col_builder **cols, const dlog_protocol *p, silt_error *err)
{
    col_builder *b = cols[CP_PROTOCOL];
    SILT_RETURN_IF_ERROR(
        col_builder_append_int(col_builder_child(b, 0), p->min_reader_version, err));
    SILT_RETURN_IF_ERROR(
        col_builder_append_int(col_builder_child(b, 1), p->min_writer_version, err));
    SILT_RETURN_IF_ERROR(put_strs(col_builder_child(b, 2), p->has_reader_features,
                                  p->n_reader_features, p->reader_features, err));
    SILT_RETURN_IF_ERROR(put_strs(col_builder_child(b, 3), p->has_writer_features,
                                  p->n_writer_features, p->writer_features, err));
    return end_row(cols, CP_PROTOCOL, err);
}

static silt_status row_metadata(col_builder **cols, const dlog_metadata *md, silt_error *err)
{
    col_builder *b = cols[CP_METADATA], *format = col_builder_child(b, 3);
    SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 0), md->id, err));
    SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 1), md->name, err));
    SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 2), md->description, err));
    SILT_RETURN_IF_ERROR(put_str(col_builder_child(format, 0),
                                 md->format_provider ? md->format_provider : "parquet", err));
    SILT_RETURN_IF_ERROR(put_map(col_builder_child(format, 1), &md->format_options, err));
    SILT_RETURN_IF_ERROR(col_builder_append_struct(format, err));
    SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 4), md->schema_string, err));
    SILT_RETURN_IF_ERROR(put_strs(col_builder_child(b, 5), 1, md->n_partition_columns,
                                  md->partition_columns, err));
    SILT_RETURN_IF_ERROR(put_map(col_builder_child(b, 6), &md->configuration, err));
    SILT_RETURN_IF_ERROR(
        put_opt_int(col_builder_child(b, 7), md->has_created_time, md->created_time, err));
    return end_row(cols, CP_METADATA, err);
}

static silt_status row_txn(col_builder **cols, const dlog_txn *txn, silt_error *err)
{
    col_builder *b = cols[CP_TXN];
    SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 0), txn->app_id, err));
    SILT_RETURN_IF_ERROR(col_builder_append_int(col_builder_child(b, 1), txn->version, err));
    SILT_RETURN_IF_ERROR(
        put_opt_int(col_builder_child(b, 2), txn->has_last_updated, txn->last_updated, err));
    return end_row(cols, CP_TXN, err);
}

static silt_status row_add(col_builder **cols, const delta_file *f, silt_error *err)
{
    col_builder *b = cols[CP_ADD];
    dlog_map no_tags = {0, NULL};
    SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 0), f->path, err));
    SILT_RETURN_IF_ERROR(put_map(col_builder_child(b, 1), &f->partition_values, err));
    SILT_RETURN_IF_ERROR(col_builder_append_int(col_builder_child(b, 2), f->size, err));
    SILT_RETURN_IF_ERROR(
        col_builder_append_int(col_builder_child(b, 3), f->modification_time, err));
    /* PROTOCOL: Checkpoints: dataChange of a checkpointed add is false. */
    SILT_RETURN_IF_ERROR(col_builder_append_bool(col_builder_child(b, 4), 0, err));
    SILT_RETURN_IF_ERROR(put_map(col_builder_child(b, 5), &no_tags, err));
    SILT_RETURN_IF_ERROR(put_dv(col_builder_child(b, 6), &f->dv, err));
    SILT_RETURN_IF_ERROR(
        put_opt_int(col_builder_child(b, 7), f->has_base_row_id, f->base_row_id, err));
    SILT_RETURN_IF_ERROR(put_opt_int(col_builder_child(b, 8), f->has_default_row_commit_version,
                                     f->default_row_commit_version, err));
    SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 9), f->stats, err));
    return end_row(cols, CP_ADD, err);
}

static silt_status row_remove(col_builder **cols, const dlog_remove *rm, silt_error *err)
{
    col_builder *b = cols[CP_REMOVE];
    SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 0), rm->path, err));
    SILT_RETURN_IF_ERROR(put_opt_int(col_builder_child(b, 1), rm->has_deletion_timestamp,
                                     rm->deletion_timestamp, err));
    SILT_RETURN_IF_ERROR(col_builder_append_bool(col_builder_child(b, 2), 0, err));
    SILT_RETURN_IF_ERROR(
        col_builder_append_bool(col_builder_child(b, 3), rm->extended_file_metadata, err));
    if (rm->extended_file_metadata)
        SILT_RETURN_IF_ERROR(put_map(col_builder_child(b, 4), &rm->partition_values, err));
    else
        SILT_RETURN_IF_ERROR(col_builder_append_null(col_builder_child(b, 4), err));
    SILT_RETURN_IF_ERROR(put_opt_int(col_builder_child(b, 5), rm->has_size, rm->size, err));
    SILT_RETURN_IF_ERROR(put_dv(col_builder_child(b, 6), &rm->dv, err));
    SILT_RETURN_IF_ERROR(
        put_opt_int(col_builder_child(b, 7), rm->has_base_row_id, rm->base_row_id, err));
    SILT_RETURN_IF_ERROR(put_opt_int(col_builder_child(b, 8), rm->has_default_row_commit_version,
                                     rm->default_row_commit_version, err));
    return end_row(cols, CP_REMOVE, err);
}

static silt_status row_domain(col_builder **cols, const dlog_domain_metadata *dm, silt_error *err)
{
    col_builder *b = cols[CP_DOMAIN];
    SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 0), dm->domain, err));
    SILT_RETURN_IF_ERROR(put_str(col_builder_child(b, 1), dm->configuration, err));
    SILT_RETURN_IF_ERROR(col_builder_append_bool(col_builder_child(b, 2), dm->removed, err));
    return end_row(cols, CP_DOMAIN, err);
}

static silt_status fill_rows(col_builder **cols, const delta_snapshot *snap,
                             const dlog_remove *tombstones, size_t n_tombstones, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(row_protocol(cols, &snap->protocol, err));
    SILT_RETURN_IF_ERROR(row_metadata(cols, &snap->metadata, err));
    for (idx = 0; idx < snap->n_txns; idx++)
        SILT_RETURN_IF_ERROR(row_txn(cols, &snap->txns[idx], err));
    for (idx = 0; idx < snap->n_domains; idx++)
        SILT_RETURN_IF_ERROR(row_domain(cols, &snap->domains[idx], err));
    for (idx = 0; idx < snap->n_files; idx++)
        SILT_RETURN_IF_ERROR(row_add(cols, &snap->files[idx], err));
    for (idx = 0; idx < n_tombstones; idx++)
        SILT_RETURN_IF_ERROR(row_remove(cols, &tombstones[idx], err));
    return SILT_OK;
}

silt_status delta_checkpoint_batch(const delta_snapshot *snap, const dlog_remove *tombstones,
                                   size_t n_tombstones, arena *a, col_batch **out,
                                   silt_error *err)
{
    const col_type *schema = delta_checkpoint_schema(a);
    col_builder *cols[CP_N_COLS];
    col_batch *batch;
    size_t idx;
    if (schema == NULL)
        return err_nomem(err);
    for (idx = 0; idx < CP_N_COLS; idx++)
        SILT_RETURN_IF_ERROR(col_builder_new(&cols[idx], a, schema->fields[idx].type, err));
    SILT_RETURN_IF_ERROR(fill_rows(cols, snap, tombstones, n_tombstones, err));
    batch = arena_calloc(a, 1, sizeof(*batch));
    if (batch == NULL || (batch->cols = arena_calloc(a, CP_N_COLS, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    batch->schema = schema;
    batch->n_cols = CP_N_COLS;
    batch->n_rows = col_builder_length(cols[0]);
    for (idx = 0; idx < CP_N_COLS; idx++)
        SILT_RETURN_IF_ERROR(col_builder_finish(cols[idx], &batch->cols[idx], err));
    *out = batch;
    return SILT_OK;
}

/* ---- tombstones -------------------------------------------------------------------------- */

typedef struct tomb_ctx {
    const delta_snapshot *snap;
    hashmap live;     /* paths of live files */
    hashmap seen;     /* paths whose newest remove was taken (or that are live) */
    arena *a;
    int64_t min_deletion_ms;
    dlog_remove *items;
    size_t n, cap;
} tomb_ctx;

static silt_status copy_tomb_str(arena *a, const char *src, const char **dst, silt_error *err)
{
    *dst = NULL;
    if (src == NULL)
        return SILT_OK;
    *dst = arena_strdup(a, src);
    return *dst != NULL ? SILT_OK : err_nomem(err);
}

static silt_status copy_tomb_map(arena *a, const dlog_map *src, dlog_map *dst, silt_error *err)
{
    size_t idx;
    dlog_kv *items = arena_calloc(a, src->n + 1, sizeof(dlog_kv));
    if (items == NULL)
        return err_nomem(err);
    for (idx = 0; idx < src->n; idx++) {
        SILT_RETURN_IF_ERROR(copy_tomb_str(a, src->items[idx].key, &items[idx].key, err));
        SILT_RETURN_IF_ERROR(copy_tomb_str(a, src->items[idx].value, &items[idx].value, err));
    }
    dst->n = src->n;
    dst->items = items;
    return SILT_OK;
}

/* A remove whose strings live in a (they may come from a batch freed after the callback). */
static silt_status copy_remove(arena *a, const dlog_remove *rm, dlog_remove *out,
                               silt_error *err)
{
    *out = *rm;
    SILT_RETURN_IF_ERROR(copy_tomb_str(a, rm->path, &out->path, err));
    SILT_RETURN_IF_ERROR(copy_tomb_str(a, rm->raw_path, &out->raw_path, err));
    SILT_RETURN_IF_ERROR(copy_tomb_str(a, rm->stats, &out->stats, err));
    SILT_RETURN_IF_ERROR(copy_tomb_str(a, rm->dv.path_or_inline_dv, &out->dv.path_or_inline_dv,
                                       err));
    SILT_RETURN_IF_ERROR(copy_tomb_map(a, &rm->partition_values, &out->partition_values, err));
    return copy_tomb_map(a, &rm->tags, &out->tags, err);
}

static silt_status keep_tombstone(tomb_ctx *ctx, const dlog_remove *rm, silt_error *err)
{
    dlog_remove *grown;
    if (hashmap_get_str(&ctx->live, rm->path) != NULL ||
        hashmap_get_str(&ctx->seen, rm->path) != NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(hashmap_put_str(&ctx->seen, rm->path, ctx, err));
    /* PROTOCOL: Checkpoints: expired tombstones (and ones without a time) may be dropped. */
    if (!rm->has_deletion_timestamp || rm->deletion_timestamp <= ctx->min_deletion_ms)
        return SILT_OK;
    if (ctx->n == ctx->cap) {
        size_t cap = ctx->cap ? ctx->cap * 2 : 64;
        grown = arena_realloc(ctx->a, ctx->items, ctx->cap * sizeof(*grown), cap * sizeof(*grown));
        if (grown == NULL)
            return err_nomem(err);
        ctx->items = grown;
        ctx->cap = cap;
    }
    /* The built-in Parquet checkpoint reader frees a batch's actions with the batch: copy. */
    return copy_remove(ctx->a, rm, &ctx->items[ctx->n++], err);
}

static silt_status on_tomb_action(const dlog_action *act, void *payload, silt_error *err)
{
    if (act->type != DLOG_REMOVE)
        return SILT_OK;
    return keep_tombstone(payload, &act->u.remove, err);
}

/* Replays newest first, so the newest remove of a path is the one kept. */
static silt_status collect(tomb_ctx *ctx, io_store *store, silt_error *err)
{
    const delta_snapshot *snap = ctx->snap;
    int64_t version;
    buf data = BUF_INIT;
    char key[64];
    silt_status rc = SILT_OK;
    dlog_parquet_actions_fn reader = dlog_builtin_parquet_reader();
    for (version = snap->version; version > snap->checkpoint_version && rc == SILT_OK; version--) {
        buf_truncate(&data, 0);
        delta_commit_key(version, key, sizeof(key));
        rc = io_get(store, key, &data, err);
        if (rc == SILT_OK)
            rc = dlog_parse_commit(data.data ? data.data : "", data.len, key, ctx->a,
                                   on_tomb_action, ctx, err);
    }
    buf_clear(&data);
    if (rc == SILT_OK && snap->checkpoint_version >= 0 && reader != NULL &&
        snap->checkpoint_kind != NULL && strcmp(snap->checkpoint_kind, "classic") == 0) {
        snprintf(key, sizeof(key), DLOG_DIR "%020lld.checkpoint.parquet",
                 (long long)snap->checkpoint_version);
        rc = reader(store, key, ctx->a, on_tomb_action, ctx, err);
    }
    return rc;
}

silt_status delta_collect_tombstones(io_store *store, const delta_snapshot *snap,
                                     int64_t min_deletion_ms, arena *a, dlog_remove **out,
                                     size_t *n_out, silt_error *err)
{
    tomb_ctx ctx;
    size_t idx;
    silt_status rc = SILT_OK;
    memset(&ctx, 0, sizeof(ctx));
    ctx.snap = snap;
    ctx.a = a;
    ctx.min_deletion_ms = min_deletion_ms;
    for (idx = 0; idx < snap->n_files && rc == SILT_OK; idx++)
        rc = hashmap_put_str(&ctx.live, snap->files[idx].path, &ctx, err);
    if (rc == SILT_OK)
        rc = collect(&ctx, store, err);
    hashmap_clear(&ctx.live);
    hashmap_clear(&ctx.seen);
    if (rc == SILT_OK) {
        *out = ctx.items;
        *n_out = ctx.n;
    }
    return rc;
}

/* ---- writing ----------------------------------------------------------------------------- */

static silt_status write_last_checkpoint(io_store *store, const delta_snapshot *snap,
                                         int64_t n_rows, int64_t size, silt_error *err)
{
    buf text = BUF_INIT;
    silt_status rc;
    rc = buf_printf(&text, err,
                    "{\"version\":%lld,\"size\":%lld,\"sizeInBytes\":%lld,\"numOfAddFiles\":%lld}",
                    (long long)snap->version, (long long)n_rows, (long long)size,
                    (long long)snap->n_files);
    /* A plain put: _last_checkpoint is a hint that readers verify by listing. */
    if (rc == SILT_OK)
        rc = io_put(store, DLOG_DIR "_last_checkpoint", text.data, text.len, err);
    buf_clear(&text);
    return rc;
}

silt_status delta_checkpoint_write(io_store *store, const delta_snapshot *snap, arena *a,
                                   silt_error *err)
{
    const char *text = delta_snapshot_property(snap, "delta.deletedFileRetentionDuration");
    int64_t retention = INT64_C(7) * 86400000, size = 0;
    dlog_remove *tombstones = NULL;
    size_t n_tombstones = 0;
    col_batch *batch = NULL;
    char key[80];

    if (text != NULL)
        SILT_RETURN_IF_ERROR(delta_parse_interval_ms(text, &retention, err));
    SILT_RETURN_IF_ERROR(delta_collect_tombstones(store, snap, time_now_micros() / 1000 - retention,
                                                  a, &tombstones, &n_tombstones, err));
    SILT_RETURN_IF_ERROR(delta_checkpoint_batch(snap, tombstones, n_tombstones, a, &batch, err));
    snprintf(key, sizeof(key), DLOG_DIR "%020lld.checkpoint.parquet", (long long)snap->version);
    SILT_RETURN_IF_ERROR(delta_checkpoint_write_parquet(store, key, batch, &size, err));
    return write_last_checkpoint(store, snap, batch->n_rows, size, err);
}
