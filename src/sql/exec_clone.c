/*
 * exec_clone.c - CONVERT TO DELTA, CREATE TABLE ... SHALLOW | DEEP CLONE and
 * CREATE TABLE ... LIKE (delta/maint.h; docs/maintenance.md).
 */
#include <string.h>

#include "delta/maint.h"
#include "sql/exec.h"
#include "sql/session.h"
#include "util/time.h"

static void free_snapshot(void *snap) { delta_snapshot_free(snap); }

/* The source table of a clone or LIKE at the version asked for. */
static silt_status copy_source(binder *b, const sql_name *name, const sql_table_version *at,
                               exec_target *src, const delta_snapshot **snap, silt_error *err)
{
    delta_snapshot *old = NULL;
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, name, src, err));
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, name, src, err));
    *snap = src->snap;
    if (at == NULL || (at->version == NULL && at->timestamp == NULL))
        return SILT_OK;
    if (at->version != NULL) {
        const sql_expr *v = at->version;
        if (v->kind != SQL_EXPR_LITERAL ||
            (v->u.lit.kind != SQL_LIT_INT && v->u.lit.kind != SQL_LIT_LONG) || v->u.lit.i64 < 0)
            return sql_bind_error(b, err, v->pos, SILT_BIND, "[INVALID_TIME_TRAVEL_SPEC] CLONE ... "
                              "VERSION AS OF needs a non-negative integer");
        SILT_RETURN_IF_ERROR(delta_snapshot_load(&old, src->store, v->u.lit.i64, err));
    } else {
        const sql_expr *e = at->timestamp;
        int64_t ts = 0;
        int has_zone;
        if (!(e->kind == SQL_EXPR_LITERAL && e->u.lit.kind == SQL_LIT_STRING &&
              time_parse_timestamp(e->u.lit.str, e->u.lit.str_len, &ts, &has_zone)) &&
            !(e->kind == SQL_EXPR_LITERAL && e->u.lit.kind == SQL_LIT_TIMESTAMP &&
              (ts = e->u.lit.i64, 1)))
            return sql_bind_error(b, err, e->pos, SILT_BIND, "[INVALID_TIME_TRAVEL_TIMESTAMP_EXPR] "
                              "CLONE ... TIMESTAMP AS OF needs a timestamp literal");
        SILT_RETURN_IF_ERROR(delta_snapshot_load_at_timestamp(&old, src->store, ts, NULL, err));
    }
    if (arena_on_cleanup(b->a, free_snapshot, old) == 0) {
        delta_snapshot_free(old);
        return err_nomem(err);
    }
    *snap = old;
    return SILT_OK;
}

silt_status sql_exec_create_copy(binder *b, const sql_stmt *stmt, io_store *target, int managed,
                                 exec_out *out, silt_error *err)
{
    static const char *const names[] = {"source_table_size", "source_num_of_files",
                                        "num_removed_files", "num_copied_files",
                                        "removed_files_size", "copied_files_size"};
    delta_clone_options o = {1, 0, 0, NULL, NULL, 0};
    delta_clone_metrics m;
    const sql_kv_list *kv = &stmt->u.create_table.properties;
    dlog_map props;
    exec_target src;
    const delta_snapshot *snap = NULL;
    int64_t values[6];
    size_t idx;
    o.like = stmt->u.create_table.like.n_parts > 0;
    o.shallow = stmt->u.create_table.clone == 1;
    if (stmt->u.create_table.partitioned_by.n > 0 || stmt->u.create_table.columns.n > 0)
        return sql_bind_error(b, err, stmt->pos, SILT_BIND, "CREATE TABLE ... %s takes its columns "
                          "and partitioning from the source table", o.like ? "LIKE" : "CLONE");
    SILT_RETURN_IF_ERROR(copy_source(b, o.like ? &stmt->u.create_table.like
                                               : &stmt->u.create_table.clone_source,
                                     o.like ? NULL : &stmt->u.create_table.clone_at, &src, &snap,
                                     err));
    props.n = kv->n;
    props.items = arena_calloc(b->a, kv->n + 1, sizeof(dlog_kv));
    if (props.items == NULL)
        return err_nomem(err);
    for (idx = 0; idx < kv->n; idx++) {
        props.items[idx].key = (char *)kv->items[idx].key;
        props.items[idx].value = (char *)(kv->items[idx].value ? kv->items[idx].value : "");
    }
    if (o.shallow && (strstr(io_store_root(src.store), "://") != NULL ||
                      strstr(io_store_root(target), "://") != NULL))
        return sql_bind_error(b, err, stmt->pos, SILT_UNSUPPORTED, "SHALLOW CLONE of or into a "
                          "table on object storage is not supported yet: silt reads absolute "
                          "paths on the local file system only (docs/maintenance.md); use DEEP "
                          "CLONE");
    o.properties = &props;
    o.source_name = src.display;
    o.is_managed = managed;
    SILT_RETURN_IF_ERROR(delta_clone(target, src.store, snap, &o, &m, err));
    if (o.like)
        return SILT_OK;
    values[0] = m.source_table_size;
    values[1] = m.source_num_of_files;
    values[2] = 0;
    values[3] = m.num_copied_files;
    values[4] = 0;
    values[5] = m.copied_files_size;
    return sql_exec_counts_result(b, names, values, 6, out, err);
}

silt_status sql_exec_convert(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    const sql_name *n = &stmt->u.convert.name;
    const sql_column_list *parts = &stmt->u.convert.partitioned_by;
    delta_convert_options o = {1, 0, NULL, NULL, 1};
    const char **names = arena_calloc(b->a, parts->n + 1, sizeof(char *));
    const col_type **types = arena_calloc(b->a, parts->n + 1, sizeof(col_type *));
    io_store *store = NULL;
    int64_t n_files = 0;
    size_t idx;
    silt_status rc;
    (void)out;
    if (names == NULL || types == NULL)
        return err_nomem(err);
    if (n->n_parts != 2 || util_str_casecmp(n->parts[0].name, "parquet") != 0)
        return sql_bind_error(b, err, n->pos, SILT_UNSUPPORTED, "[DELTA_CONVERSION_UNSUPPORTED_"
                          "SOURCE] CONVERT TO DELTA takes parquet.`/path` (silt converts folders "
                          "of Parquet files; catalog tables and Iceberg are not supported yet)");
    for (idx = 0; idx < parts->n; idx++) {
        names[idx] = parts->items[idx].name.name;
        types[idx] = parts->items[idx].type.type;
    }
    o.n_partition_columns = parts->n;
    o.partition_columns = names;
    o.partition_types = types;
    o.collect_stats = 1; /* spark.databricks.delta.stats.collect is not a setting silt takes (docs/settings.md) */
    rc = sql_session_store_open(b->s, n->parts[1].name, 0, &store, err);
    if (rc == SILT_OK)
        rc = delta_convert_parquet(store, &o, &n_files, err);
    io_store_free(store);
    return rc;
}
