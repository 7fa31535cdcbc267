/*
 * exec_maint.c - the table maintenance statements (delta/maint.h): VACUUM,
 * OPTIMIZE and GENERATE, with Spark's result rows (docs/maintenance.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "delta/maint.h"
#include "sql/exec.h"
#include "sql/session.h"
#include "sql/settings.h"
#include "util/budget.h"
#include "util/time.h"

/* Spark shows local paths as file:/..., others (s3://...) as they are. */
static const char *scheme_of(const char *path) { return strstr(path, "://") ? "" : "file:"; }

#define SETTING_RETENTION_CHECK "spark.databricks.delta.retentionDurationCheck.enabled"

silt_status sql_exec_strings_op(arena *a, engine_ctx *ctx, const char *const *names,
                                size_t n_cols, const char *const *cells, size_t n_rows,
                                const col_type **schema_out, engine_op **op_out, silt_error *err)
{
    col_field *fields = arena_calloc(a, n_cols, sizeof(col_field));
    col_batch *batch = arena_calloc(a, 1, sizeof(col_batch));
    col_batch **list = arena_calloc(a, 1, sizeof(col_batch *));
    size_t c, r;
    if (fields == NULL || batch == NULL || list == NULL ||
        (batch->cols = arena_calloc(a, n_cols, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    for (c = 0; c < n_cols; c++) {
        col_builder *bld;
        fields[c].name = names[c];
        fields[c].type = col_type_primitive(COL_STRING);
        fields[c].nullable = 1;
        fields[c].field_id = -1;
        SILT_RETURN_IF_ERROR(col_builder_new(&bld, a, fields[c].type, err));
        for (r = 0; r < n_rows; r++) {
            const char *v = cells[r * n_cols + c];
            SILT_RETURN_IF_ERROR(v == NULL ? col_builder_append_null(bld, err)
                                           : col_builder_append_bytes(bld, v, strlen(v), err));
        }
        SILT_RETURN_IF_ERROR(col_builder_finish(bld, &batch->cols[c], err));
    }
    if ((*schema_out = col_type_struct(a, n_cols, fields)) == NULL)
        return err_nomem(err);
    batch->schema = *schema_out;
    batch->n_rows = (int64_t)n_rows;
    batch->n_cols = n_cols;
    list[0] = batch;
    return engine_op_values(op_out, ctx, *schema_out, list, 1, err);
}

static silt_status strings_result(binder *b, const char *const *names, size_t n_cols,
                                  const char *const *cells, size_t n_rows, exec_out *out,
                                  silt_error *err)
{
    return sql_exec_strings_op(b->a, b->ctx, names, n_cols, cells, n_rows, &out->schema,
                               &out->op, err);
}

/* A boolean session setting: def when unset; SILT_INVALID for another value. */
static silt_status bool_setting(binder *b, const char *key, int def, int *out, silt_error *err)
{
    const char *v = sql_session_get(b->s, key);
    *out = def;
    if (v == NULL)
        return SILT_OK;
    if (util_str_casecmp(v, "true") == 0)
        *out = 1;
    else if (util_str_casecmp(v, "false") == 0)
        *out = 0;
    else
        return err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE.TYPE_MISMATCH] The value '%s' in "
                       "the config \"%s\" is invalid. It should be a boolean.", v, key);
    return SILT_OK;
}

/* RETAIN n HOURS: Spark's grammar takes a number (sign allowed), rounded to whole hours. */
static silt_status retain_hours(binder *b, const sql_expr *e, int64_t *ms_out, silt_error *err)
{
    int negative = 0;
    double hours;
    if (e->kind == SQL_EXPR_UNARY && e->u.op.op == SQL_OP_NEG) {
        negative = 1;
        e = e->u.op.left;
    }
    if (e->kind != SQL_EXPR_LITERAL)
        goto bad;
    switch (e->u.lit.kind) {
    case SQL_LIT_BYTE:
    case SQL_LIT_SHORT:
    case SQL_LIT_INT:
    case SQL_LIT_LONG: hours = (double)e->u.lit.i64; break;
    case SQL_LIT_DOUBLE:
    case SQL_LIT_FLOAT: hours = e->u.lit.f64; break;
    case SQL_LIT_DECIMAL: {
        const char *text = sql_bind_expr_text(b, e);
        hours = text != NULL ? atof(text) : 0;
        break;
    }
    default: goto bad;
    }
    if (negative)
        hours = -hours;
    if (!(fabs(hours) < 2.5e12))
        goto bad;
    *ms_out = (int64_t)llround(hours) * 3600000;
    return SILT_OK;
bad:
    return sql_bind_error(b, err, e->pos, SILT_BIND, "VACUUM ... RETAIN needs a number of hours");
}

silt_status sql_exec_vacuum(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    static const char *const names[] = {"path"};
    delta_vacuum_options o = DELTA_VACUUM_OPTIONS_INIT;
    delta_vacuum_result r = DELTA_VACUUM_RESULT_INIT;
    exec_target t;
    const char **cells;
    size_t idx;
    silt_status rc;
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, &stmt->u.vacuum.name, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, &stmt->u.vacuum.name, &t, err));
    if (t.ref != NULL)
        return sql_bind_error(b, err, stmt->u.vacuum.name.pos, SILT_UNSUPPORTED, "VACUUM on "
                              "reference '%s' is not supported: a branch's files may be main's "
                              "or another reference's; VACUUM the table on main, which keeps "
                              "every file a branch or tag reads", t.ref);
    if (t.in_catalog)
        SILT_RETURN_IF_ERROR(sql_branch_snapshots(b, t.path, &o.also_keep, &o.n_also_keep, err));
    SILT_RETURN_IF_ERROR(bool_setting(b, SETTING_RETENTION_CHECK, 1, &o.check_retention, err));
    if (stmt->u.vacuum.retain_hours != NULL) {
        o.has_retention = 1;
        SILT_RETURN_IF_ERROR(retain_hours(b, stmt->u.vacuum.retain_hours, &o.retention_ms, err));
    }
    o.dry_run = stmt->u.vacuum.dry_run;
    rc = delta_vacuum(t.store, t.snap, &o, &r, err);
    if (rc != SILT_OK)
        goto done;
    /* Spark: DRY RUN lists the files it would delete, VACUUM answers the table's path. */
    if (!o.dry_run) {
        const char *cell = arena_sprintf(b->a, "%s%s", scheme_of(t.path), t.path);
        rc = cell ? strings_result(b, names, 1, &cell, 1, out, err) : err_nomem(err);
        goto done;
    }
    /* the files, then the empty folders, as Delta's DRY RUN lists both */
    cells = arena_calloc(b->a, r.files.count + r.folders.count + 1, sizeof(char *));
    if (cells == NULL) {
        rc = err_nomem(err);
        goto done;
    }
    for (idx = 0; idx < r.files.count + r.folders.count; idx++) {
        const io_listing *from = idx < r.files.count ? &r.files : &r.folders;
        size_t at = idx < r.files.count ? idx : idx - r.files.count;
        if ((cells[idx] = arena_sprintf(b->a, "%s%s/%s", scheme_of(t.path), t.path,
                                        from->items[at].key)) == NULL)
            rc = err_nomem(err);
    }
    if (rc == SILT_OK)
        rc = strings_result(b, names, 1, cells, r.files.count + r.folders.count, out, err);
done:
    delta_vacuum_result_clear(&r);
    return rc;
}

/* ---------------------------------------------------------------- OPTIMIZE */

/*
 * Spark's OPTIMIZE result: path, and the metrics struct of Delta's
 * OptimizeMetrics, written as a compact type: name:L (bigint), name:D
 * (double), name:B (boolean), name:S (string), name:{...} (struct), fields
 * separated by ','.
 */
static const char *const optimize_metrics_type =
    "numFilesAdded:L,numFilesRemoved:L,"
    "filesAdded:{min:L,max:L,avg:D,totalFiles:L,totalSize:L},"
    "filesRemoved:{min:L,max:L,avg:D,totalFiles:L,totalSize:L},"
    "partitionsOptimized:L,"
    "zOrderStats:{strategyName:S,inputCubeFiles:{num:L,size:L},inputOtherFiles:{num:L,size:L},"
    "inputNumCubes:L,mergedFiles:{num:L,size:L},numOutputCubes:L,mergedNumCubes:L},"
    "clusteringStats:{inputZCubeFiles:{numFiles:L,size:L},inputOtherFiles:{numFiles:L,size:L},"
    "inputNumZCubes:L,mergedFiles:{numFiles:L,size:L},numOutputZCubes:L},"
    "numBins:L,numBatches:L,totalConsideredFiles:L,totalFilesSkipped:L,"
    "preserveInsertionOrder:B,numFilesSkippedToReduceWriteAmplification:L,"
    "numBytesSkippedToReduceWriteAmplification:L,startTimeMs:L,endTimeMs:L,"
    "totalClusterParallelism:L,totalScheduledTasks:L,"
    "autoCompactParallelismStats:{maxClusterActiveParallelism:L,minClusterActiveParallelism:L,"
    "maxSessionActiveParallelism:L,minSessionActiveParallelism:L},"
    "deletionVectorStats:{numDeletionVectorsRemoved:L,numDeletionVectorRowsRemoved:L},"
    "numTableColumns:L,numTableColumnsWithStats:L";

/* Parses the compact type at *p up to '}' or the end into a STRUCT. */
static col_type *compact_struct(arena *a, const char **p)
{
    col_field fields[32];
    size_t n = 0;
    while (**p != '\0' && **p != '}' && n < 32) {
        const char *colon = strchr(*p, ':');
        col_field *f = &fields[n++];
        if (colon == NULL)
            return NULL;
        memset(f, 0, sizeof(*f));
        f->name = arena_strndup(a, *p, (size_t)(colon - *p));
        f->nullable = 1;
        f->field_id = -1;
        *p = colon + 1;
        switch (*(*p)++) {
        case 'L': f->type = col_type_primitive(COL_LONG); break;
        case 'D': f->type = col_type_primitive(COL_DOUBLE); break;
        case 'B': f->type = col_type_primitive(COL_BOOLEAN); break;
        case 'S': f->type = col_type_primitive(COL_STRING); break;
        case '{':
            f->type = compact_struct(a, p);
            if (**p != '}')
                return NULL;
            (*p)++;
            break;
        default: return NULL;
        }
        if (f->name == NULL || f->type == NULL)
            return NULL;
        if (**p == ',')
            (*p)++;
    }
    return col_type_struct(a, n, fields);
}

/* One value of the metrics row, in the order of the type's leaves; a null struct is one. */
typedef struct mval {
    char kind; /* 'L', 'D', 'B', 'S', 'N' (null: this leaf or the whole struct here) */
    int64_t i;
    double d;
    const char *s;
} mval;

static silt_status put_value(col_builder *bld, const col_type *type, const mval **v,
                             silt_error *err)
{
    size_t idx;
    if ((*v)->kind == 'N') {
        (*v)++;
        return col_builder_append_null(bld, err);
    }
    if (type->id == COL_STRUCT) {
        for (idx = 0; idx < type->n_fields; idx++)
            SILT_RETURN_IF_ERROR(put_value(col_builder_child(bld, idx), type->fields[idx].type, v,
                                           err));
        return col_builder_append_struct(bld, err);
    }
    switch ((*v)++->kind) {
    case 'D': return col_builder_append_double(bld, (*v - 1)->d, err);
    case 'B': return col_builder_append_bool(bld, (int)(*v - 1)->i, err);
    case 'S': return col_builder_append_bytes(bld, (*v - 1)->s, strlen((*v - 1)->s), err);
    default: return col_builder_append_int(bld, (*v - 1)->i, err);
    }
}

#define ML(x) {'L', (x), 0, NULL}
#define MNULL {'N', 0, 0, NULL}

static void set_stats(mval *v, const delta_file_set_stats *s)
{
    mval vals[5] = {ML(s->min), ML(s->max), {'D', 0, 0, NULL}, ML(s->total_files),
                    ML(s->total_size)};
    vals[2].d = s->total_files > 0 ? (double)s->total_size / (double)s->total_files : 0;
    memcpy(v, vals, sizeof(vals));
}

/* The values of the metrics row, leaves in optimize_metrics_type's order. */
static size_t metrics_values(const delta_optimize_metrics *m, int zorder, int64_t end_ms,
                             mval *v)
{
    size_t n = 0;
    v[n++] = (mval)ML(m->added.total_files);
    v[n++] = (mval)ML(m->removed.total_files);
    set_stats(v + n, &m->added);
    n += 5;
    set_stats(v + n, &m->removed);
    n += 5;
    v[n++] = (mval)ML(m->partitions_optimized);
    if (zorder) {
        /* Delta OSS's z-order rewrites every file of a partition: strategy "all" */
        v[n++] = (mval){'S', 0, 0, "all"};
        v[n++] = (mval)ML(0);
        v[n++] = (mval)ML(0);
        v[n++] = (mval)ML(m->removed.total_files);
        v[n++] = (mval)ML(m->removed.total_size);
        v[n++] = (mval)ML(0);
        v[n++] = (mval)ML(m->removed.total_files);
        v[n++] = (mval)ML(m->removed.total_size);
        v[n++] = (mval)ML(m->partitions_optimized);
        v[n++] = (mval)MNULL;
    } else {
        v[n++] = (mval)MNULL;
    }
    v[n++] = (mval)MNULL; /* clusteringStats */
    v[n++] = (mval)ML(m->num_bins);
    v[n++] = (mval)ML(m->num_bins > 0);
    v[n++] = (mval)ML(m->total_considered_files);
    v[n++] = (mval)ML(m->total_files_skipped);
    v[n++] = (mval){'B', 0, 0, NULL};
    v[n++] = (mval)ML(0);
    v[n++] = (mval)ML(0);
    v[n++] = (mval)ML(m->start_ms);
    v[n++] = (mval)ML(end_ms);
    v[n++] = (mval)ML(1);
    v[n++] = (mval)ML(m->num_bins);
    v[n++] = (mval)MNULL; /* autoCompactParallelismStats */
    if (m->dv_removed > 0) {
        v[n++] = (mval)ML(m->dv_removed);
        v[n++] = (mval)ML(m->dv_rows_removed);
    } else {
        v[n++] = (mval)MNULL;
    }
    v[n++] = (mval)ML(m->num_table_columns);
    v[n++] = (mval)ML(m->num_table_columns_with_stats);
    return n;
}

static silt_status optimize_result(binder *b, const exec_target *t,
                                   const delta_optimize_metrics *m, int zorder, exec_out *out,
                                   silt_error *err)
{
    const char *p = optimize_metrics_type;
    col_type *metrics_type = compact_struct(b->a, &p);
    col_field *fields = arena_calloc(b->a, 2, sizeof(col_field));
    col_batch *batch = arena_calloc(b->a, 1, sizeof(col_batch));
    col_batch **list = arena_calloc(b->a, 1, sizeof(col_batch *));
    const char *path = arena_sprintf(b->a, "%s%s", scheme_of(t->path), t->path);
    col_builder *path_b, *metrics_b;
    mval values[64];
    const mval *cursor = values;
    if (metrics_type == NULL || fields == NULL || batch == NULL || list == NULL || path == NULL ||
        (batch->cols = arena_calloc(b->a, 2, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    metrics_values(m, zorder, time_now_micros() / 1000, values);
    fields[0].name = "path";
    fields[0].type = col_type_primitive(COL_STRING);
    fields[1].name = "metrics";
    fields[1].type = metrics_type;
    fields[0].nullable = fields[1].nullable = 1;
    fields[0].field_id = fields[1].field_id = -1;
    SILT_RETURN_IF_ERROR(col_builder_new(&path_b, b->a, fields[0].type, err));
    SILT_RETURN_IF_ERROR(col_builder_new(&metrics_b, b->a, metrics_type, err));
    SILT_RETURN_IF_ERROR(col_builder_append_bytes(path_b, path, strlen(path), err));
    SILT_RETURN_IF_ERROR(put_value(metrics_b, metrics_type, &cursor, err));
    SILT_RETURN_IF_ERROR(col_builder_finish(path_b, &batch->cols[0], err));
    SILT_RETURN_IF_ERROR(col_builder_finish(metrics_b, &batch->cols[1], err));
    if ((out->schema = col_type_struct(b->a, 2, fields)) == NULL)
        return err_nomem(err);
    batch->schema = out->schema;
    batch->n_rows = 1;
    batch->n_cols = 2;
    list[0] = batch;
    return engine_op_values(&out->op, b->ctx, out->schema, list, 1, err);
}

/* A Spark byte size setting (bytesConf: "1073741824", "128m", quoted or not); 0 when unset. */
static silt_status size_setting(binder *b, const char *key, int64_t *out, silt_error *err)
{
    const char *raw = sql_session_get(b->s, key), *text = raw;
    size_t len;
    *out = 0;
    if (raw == NULL)
        return SILT_OK;
    len = strlen(text);
    if (len > 2 && (text[0] == '\'' || text[0] == '"') && text[len - 1] == text[0] &&
        (text = arena_strndup(b->a, text + 1, len - 2)) == NULL)
        return err_nomem(err);
    if (!sql_settings_parse_size_as(text, SETTINGS_SIZE_SPARK, out))
        return err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE] The value '%s' in the config "
                       "\"%s\" is invalid: it must be a size in bytes such as 1073741824 or 1g",
                       raw, key);
    return SILT_OK;
}

/*
 * The bin and file size: the table's delta.targetFileSize, else the session's
 * spark.databricks.delta.optimize.maxFileSize, else Delta's 1 GiB; files from
 * spark.databricks.delta.optimize.minFileSize on are left alone (default: the max).
 */
static silt_status optimize_sizes(binder *b, const delta_snapshot *snap,
                                  delta_optimize_options *o, silt_error *err)
{
    const char *target = delta_snapshot_property(snap, "delta.targetFileSize");
    SILT_RETURN_IF_ERROR(size_setting(b, "spark.databricks.delta.optimize.maxFileSize",
                                      &o->max_file_size, err));
    SILT_RETURN_IF_ERROR(size_setting(b, "spark.databricks.delta.optimize.minFileSize",
                                      &o->min_file_size, err));
    if (target != NULL &&
        !sql_settings_parse_size_as(target, SETTINGS_SIZE_SPARK, &o->max_file_size))
        return err_set(err, SILT_INVALID, "the table property delta.targetFileSize has value "
                       "\"%s\"; expected a size in bytes", target);
    return SILT_OK;
}

/* The WHERE's text as written, for history: up to ZORDER BY, APPLY or the statement's end. */
static const char *where_text(binder *b, const sql_stmt *stmt, const sql_expr *where)
{
    size_t end = stmt->end, at;
    const sql_ident_list *z = &stmt->u.optimize.zorder_by;
    if (end > b->text_len || where->pos >= end)
        return arena_strdup(b->a, "");
    if (z->n > 0 && z->items[0].pos < end)
        for (at = z->items[0].pos; at > where->pos + 6; at--)
            if (util_str_ncasecmp(b->text + at - 6, "ZORDER", 6) == 0) {
                end = at - 6;
                break;
            }
    for (at = end; stmt->u.optimize.purge && at > where->pos + 5; at--) /* REORG: ... APPLY */
        if (util_str_ncasecmp(b->text + at - 5, "APPLY", 5) == 0) {
            end = at - 5;
            break;
        }
    while (end > where->pos && (b->text[end - 1] == ' ' || b->text[end - 1] == '\n' ||
                                b->text[end - 1] == '\t' || b->text[end - 1] == '\r'))
        end--;
    return arena_strndup(b->a, b->text + where->pos, end - where->pos);
}

static silt_status optimize_where(binder *b, const sql_stmt *stmt, const exec_target *t,
                                  delta_optimize_options *o, silt_error *err)
{
    const sql_expr *where = stmt->u.optimize.where;
    bind_scope scope;
    bind_ctx bc = {NULL, NULL, NULL, NULL};
    expr *pred;
    if (where == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(sql_scope_from_schema(b->a, t->snap->schema, NULL, &scope, err));
    bc.scope = &scope;
    SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, where, &pred, err));
    if (pred->type->id != COL_BOOLEAN)
        return sql_bind_error(b, err, where->pos, SILT_BIND, "[DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN] "
                          "the OPTIMIZE WHERE condition must be a boolean");
    SILT_RETURN_IF_ERROR(sql_exec_partition_filter(b, t->snap, where, pred, &o->file_filter,
                                                   &o->file_filter_payload, err));
    if (o->file_filter == NULL)
        return sql_bind_error(b, err, where->pos, SILT_BIND, "[DELTA_NON_PARTITION_COLUMN_REFERENCE] "
                          "Predicate references non-partition column. Only the partition "
                          "columns may be referenced: OPTIMIZE ... WHERE takes a predicate on "
                          "partition columns only");
    o->predicate_text = where_text(b, stmt, where);
    return o->predicate_text != NULL ? SILT_OK : err_nomem(err);
}

silt_status sql_exec_optimize(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    delta_optimize_options o = DELTA_OPTIMIZE_OPTIONS_INIT;
    delta_optimize_metrics m;
    const sql_ident_list *z = &stmt->u.optimize.zorder_by;
    const char **names = arena_calloc(b->a, z->n + 1, sizeof(char *));
    exec_target t;
    size_t idx;
    if (names == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, &stmt->u.optimize.name, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, &stmt->u.optimize.name, &t, err));
    for (idx = 0; idx < z->n; idx++)
        names[idx] = z->items[idx].name;
    o.n_zorder = z->n;
    o.zorder = names;
    SILT_RETURN_IF_ERROR(optimize_where(b, stmt, &t, &o, err));
    SILT_RETURN_IF_ERROR(optimize_sizes(b, t.snap, &o, err));
    SILT_RETURN_IF_ERROR(sql_exec_commit_retry_timeout(b, &o.retry_timeout_ms, err));
    o.compression = sql_session_get(b->s, SQL_SETTING_PARQUET_CODEC);
    o.user_metadata = sql_session_get(b->s, SQL_SETTING_USER_METADATA);
    o.pool = b->ctx->pool;
    o.purge = stmt->u.optimize.purge;
    /* ZORDER's rows are bounded by half the memory limit (docs/maintenance.md) */
    o.zorder_memory = mem_budget_limit(sql_session_budget(b->s)) / 2;
    SILT_RETURN_IF_ERROR(delta_optimize(t.store, t.snap, &o, &m, err));
    return optimize_result(b, &t, &m, z->n > 0, out, err);
}

/* ---------------------------------------------------------------- GENERATE */

/* GENERATE symlink_format_manifest FOR TABLE t: Spark answers no rows (an empty schema). */
silt_status sql_exec_generate(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    exec_target t;
    if (util_str_casecmp(stmt->u.generate.mode, "symlink_format_manifest") != 0)
        return sql_bind_error(b, err, stmt->pos, SILT_UNSUPPORTED,
                          "[DELTA_MODE_NOT_SUPPORTED] Specified mode '%s' is not supported. "
                          "Supported modes are: symlink_format_manifest",
                          stmt->u.generate.mode);
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, &stmt->u.generate.name, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, &stmt->u.generate.name, &t, err));
    (void)out;
    return delta_manifest_generate(t.store, t.snap, err);
}
