/*
 * convert.c - CONVERT TO DELTA of a folder of Parquet files (maint.h), in
 * place, as Delta's ConvertToDeltaCommand: every Parquet file under the
 * root outside hidden folders becomes an add of version 0, its partition
 * values read from the `col=value` folders of its path (typed by the
 * PARTITIONED BY list), its statistics from the Parquet footer (row count,
 * and per column min/max/null count aggregated over the row groups). No
 * data file is read or written.
 */
#include <string.h>

#include "delta/log.h"
#include "delta/maint.h"
#include "delta/partition.h"
#include "delta/scan.h"
#include <stdio.h>
#include "formats/parquet/parquet.h"
#include "util/time.h"

typedef struct conv_ctx {
    io_store *store;
    const delta_convert_options *o;
    arena *a;
    const col_type *file_schema; /* the files' schemas merged (Delta's mergeSchemas) */
    delta_txn *txn;
    int64_t n_files;
} conv_ctx;

static int hidden_segment(const char *key)
{
    const char *seg = key;
    for (;;) {
        if (seg[0] == '_' || seg[0] == '.')
            return 1;
        seg = strchr(seg, '/');
        if (seg == NULL)
            return 0;
        seg++;
    }
}

/* %XX-unescaped copy of s[0..len) (Spark's unescapePathName). */
static char *unescape(arena *a, const char *s, size_t len)
{
    char *out = arena_alloc(a, len + 1);
    size_t i, n = 0;
    if (out == NULL)
        return NULL;
    for (i = 0; i < len; i++) {
        unsigned hi, lo;
        if (s[i] == '%' && i + 2 < len && sscanf(s + i + 1, "%1x%1x", &hi, &lo) == 2) {
            out[n++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            out[n++] = s[i];
        }
    }
    out[n] = '\0';
    return out;
}

/* The partition values of a file from its folders, checked against PARTITIONED BY. */
static silt_status partition_values(conv_ctx *ctx, const char *key, dlog_map *out,
                                    silt_error *err)
{
    const delta_convert_options *o = ctx->o;
    const char *seg = key, *slash;
    size_t n = 0, n_folders = 0;
    memset(out, 0, sizeof(*out));
    for (slash = strchr(key, '/'); slash != NULL; slash = strchr(slash + 1, '/'))
        n_folders++;
    if (n_folders != o->n_partition_columns)
        return err_set(err, SILT_INVALID,
                       "[DELTA_UNEXPECTED_NUM_PARTITION_COLUMNS_FROM_FILE_NAME] Expecting %zu "
                       "partition column(s), but found %zu partition column(s) from parsing the "
                       "file name: %s", o->n_partition_columns, n_folders, key);
    out->items = arena_calloc(ctx->a, o->n_partition_columns + 1, sizeof(dlog_kv));
    if (out->items == NULL)
        return err_nomem(err);
    while ((slash = strchr(seg, '/')) != NULL) {
        const char *eq = memchr(seg, '=', (size_t)(slash - seg));
        delta_value check;
        char *value;
        if (eq == NULL || n >= o->n_partition_columns ||
            (size_t)(eq - seg) != strlen(o->partition_columns[n]) ||
            util_str_ncasecmp(seg, o->partition_columns[n], (size_t)(eq - seg)) != 0)
            return err_set(err, SILT_INVALID,
                           "[DELTA_UNEXPECTED_PARTITION_COLUMN_FROM_FILE_NAME] Expecting partition "
                           "column %s, but found partition column %.*s from parsing the file "
                           "name: %s", n < o->n_partition_columns ? o->partition_columns[n] : "(none)",
                           eq ? (int)(eq - seg) : (int)(slash - seg), seg, key);
        value = unescape(ctx->a, eq + 1, (size_t)(slash - eq - 1));
        if (value == NULL)
            return err_nomem(err);
        if (strcmp(value, "__HIVE_DEFAULT_PARTITION__") == 0)
            value = NULL;
        else if (delta_value_parse(&check, o->partition_types[n], value, o->partition_columns[n],
                                   err) != SILT_OK)
            return err_context(err, "in the partition folder of \"%s\"", key);
        out->items[n].key = o->partition_columns[n];
        out->items[n].value = value;
        n++;
        seg = slash + 1;
    }
    if (n != o->n_partition_columns)
        return err_set(err, SILT_INVALID,
                       "[DELTA_UNEXPECTED_NUM_PARTITION_COLUMNS_FROM_FILE_NAME] Expecting %zu "
                       "partition column(s), but found %zu partition column(s) from parsing the "
                       "file name: %s", o->n_partition_columns, n, key);
    out->n = n;
    return SILT_OK;
}

/*
 * Delta's SchemaMergingUtils.mergeSchemas, as ConvertUtils.mergeSchemasInParallel
 * folds it over the files' schemas (made nullable): struct fields matched by
 * name ignoring case keep the first file's name and place, new fields come
 * after them; arrays and maps merge their parts; byte, short and int widen to
 * the wider; any other pair of different types fails by Delta's name.
 */
static int int_rank(col_type_id id)
{
    return id == COL_BYTE ? 1 : id == COL_SHORT ? 2 : id == COL_INT ? 3 : 0;
}

static silt_status merge_type(arena *a, const char *name, const col_type *cur,
                              const col_type *upd, const col_type **out, silt_error *err);

static silt_status merge_struct(arena *a, const col_type *cur, const col_type *upd,
                                const col_type **out, silt_error *err)
{
    size_t n = 0, i, j;
    col_field *fields = arena_calloc(a, cur->n_fields + upd->n_fields + 1, sizeof(col_field));
    if (fields == NULL)
        return err_nomem(err);
    for (i = 0; i < cur->n_fields; i++) {
        fields[n] = cur->fields[i];
        fields[n].nullable = 1;
        for (j = 0; j < upd->n_fields; j++)
            if (util_str_casecmp(cur->fields[i].name, upd->fields[j].name) == 0)
                SILT_RETURN_IF_ERROR(merge_type(a, cur->fields[i].name, cur->fields[i].type,
                                                upd->fields[j].type, &fields[n].type, err));
        n++;
    }
    for (j = 0; j < upd->n_fields; j++) {
        for (i = 0; i < cur->n_fields; i++)
            if (util_str_casecmp(cur->fields[i].name, upd->fields[j].name) == 0)
                break;
        if (i < cur->n_fields)
            continue;
        fields[n] = upd->fields[j];
        fields[n].nullable = 1;
        fields[n].metadata_json = NULL;
        fields[n].field_id = -1;
        n++;
    }
    *out = col_type_struct(a, n, fields);
    return *out ? SILT_OK : err_nomem(err);
}

static silt_status merge_type(arena *a, const char *name, const col_type *cur,
                              const col_type *upd, const col_type **out, silt_error *err)
{
    const col_type *k, *v;
    *out = cur;
    if (cur->id == COL_STRUCT && upd->id == COL_STRUCT)
        return merge_struct(a, cur, upd, out, err);
    if (cur->id == COL_ARRAY && upd->id == COL_ARRAY) {
        SILT_RETURN_IF_ERROR(merge_type(a, name, cur->fields[0].type, upd->fields[0].type, &v,
                                        err));
        *out = col_type_array(a, v, 1);
        return *out ? SILT_OK : err_nomem(err);
    }
    if (cur->id == COL_MAP && upd->id == COL_MAP) {
        SILT_RETURN_IF_ERROR(merge_type(a, name, cur->fields[0].type, upd->fields[0].type, &k,
                                        err));
        SILT_RETURN_IF_ERROR(merge_type(a, name, cur->fields[1].type, upd->fields[1].type, &v,
                                        err));
        *out = col_type_map(a, k, v, 1);
        return *out ? SILT_OK : err_nomem(err);
    }
    if (int_rank(cur->id) && int_rank(upd->id)) {
        *out = int_rank(cur->id) >= int_rank(upd->id) ? cur : upd;
        return SILT_OK;
    }
    if (col_type_equal(cur, upd))
        return SILT_OK;
    return err_set(err, SILT_INVALID, "[DELTA_FAILED_TO_MERGE_FIELDS] Failed to merge fields "
                   "'%s' and '%s'", name, name);
}

/* Pass one: every file's footer schema folded into ctx->file_schema. */
static silt_status merge_file_schema(conv_ctx *ctx, const char *key, silt_error *err)
{
    pq_file *file = NULL;
    const col_type *merged = NULL, *own, *cur = ctx->file_schema;
    silt_status rc = pq_file_open(&file, ctx->store, key, err);
    if (rc != SILT_OK)
        return err_context(err, "while converting \"%s\" to Delta", key);
    /* copied: the file's schema lives in its arena, freed below */
    own = col_type_copy(ctx->a, pq_file_schema(file));
    if (cur == NULL)
        cur = col_type_struct(ctx->a, 0, NULL);
    rc = own == NULL || cur == NULL ? err_nomem(err)
                                    : merge_struct(ctx->a, cur, own, &merged, err);
    if (rc == SILT_OK)
        ctx->file_schema = merged;
    else
        err_context(err, "while merging the schema of \"%s\" into the files' schema", key);
    pq_file_free(file);
    return rc;
}

/*
 * The table's spelling and type of a file's leaf path ("S.x" -> "s.x"):
 * names match ignoring case, as the merged schema took them. NULL when a
 * segment is not a field of a struct (the leaf gets no statistics then).
 */
static const char *table_leaf(arena *a, const col_type *schema, const char *file_path,
                              const col_type **type_out)
{
    buf out = BUF_INIT;
    silt_error ignored = SILT_ERROR_INIT;
    const col_type *t = schema;
    const char *seg = file_path, *res = NULL;
    for (;;) {
        const char *dot = strchr(seg, '.');
        size_t len = dot ? (size_t)(dot - seg) : strlen(seg), idx;
        if (t == NULL || t->id != COL_STRUCT)
            break;
        for (idx = 0; idx < t->n_fields; idx++)
            if (strlen(t->fields[idx].name) == len &&
                util_str_ncasecmp(t->fields[idx].name, seg, len) == 0)
                break;
        if (idx == t->n_fields)
            break;
        if (buf_printf(&out, &ignored, "%s%s", out.len ? "." : "", t->fields[idx].name) !=
            SILT_OK)
            break;
        t = t->fields[idx].type;
        if (dot == NULL) {
            *type_out = t;
            res = arena_strdup(a, buf_cstr(&out));
            break;
        }
        seg = dot + 1;
    }
    buf_clear(&out);
    return res;
}

/* Byte/short leaves of a file whose merged column is wider take the column's type. */
static int conform_stat(delta_col_stats *c, const col_type *table_type)
{
    if (table_type == NULL || col_type_is_nested(table_type->id))
        return 0;
    if (c->type->id != table_type->id) {
        if (!int_rank(c->type->id) || !int_rank(table_type->id))
            return 0;
        c->min.type = c->max.type = table_type->id;
    }
    c->type = table_type;
    return 1;
}

/*
 * Leaves of the merged schema the file lacks: all null, as Delta's stats of
 * a converted file count them (nullCount = numRecords, no min/max).
 */
static silt_status absent_leaves(arena *a, const col_type *t, buf *path, delta_col_stats *cols,
                                 size_t *n, size_t cap, int64_t n_rows, silt_error *err)
{
    size_t idx, k, at = path->len;
    for (idx = 0; idx < t->n_fields; idx++) {
        const col_type *ft = t->fields[idx].type;
        SILT_RETURN_IF_ERROR(buf_printf(path, err, "%s%s", at ? "." : "", t->fields[idx].name));
        if (ft->id == COL_STRUCT) {
            SILT_RETURN_IF_ERROR(absent_leaves(a, ft, path, cols, n, cap, n_rows, err));
        } else if (!col_type_is_nested(ft->id) && *n < cap) {
            for (k = 0; k < *n; k++)
                if (strcmp(cols[k].path, buf_cstr(path)) == 0)
                    break;
            if (k == *n) {
                memset(&cols[*n], 0, sizeof(cols[*n]));
                cols[*n].path = arena_strdup(a, buf_cstr(path));
                if (cols[*n].path == NULL)
                    return err_nomem(err);
                cols[*n].type = ft;
                cols[*n].has_null_count = 1;
                cols[*n].null_count = n_rows;
                (*n)++;
            }
        }
        buf_truncate(path, at);
    }
    return SILT_OK;
}

static size_t count_leaves(const col_type *t)
{
    size_t idx, n = 0;
    for (idx = 0; idx < t->n_fields; idx++)
        n += t->fields[idx].type->id == COL_STRUCT ? count_leaves(t->fields[idx].type) : 1;
    return n;
}

/* Footer statistics of every flat leaf, aggregated over the row groups. */
static silt_status footer_stats(conv_ctx *ctx, pq_file *file, const char **out, silt_error *err)
{
    const pq_file_meta *meta = pq_file_metadata(file);
    size_t n_leaves = pq_file_n_leaves(file), leaf, rg, n = 0;
    size_t cap = n_leaves + count_leaves(ctx->file_schema) + 1;
    delta_col_stats *cols = arena_calloc(ctx->a, cap, sizeof(*cols));
    buf path = BUF_INIT;
    buf text = BUF_INIT;
    silt_status rc;
    if (cols == NULL)
        return err_nomem(err);
    for (leaf = 0; leaf < n_leaves; leaf++) {
        delta_col_stats *c = &cols[n];
        int ok = pq_file_leaf_max_rep(file, leaf) == 0 && meta->n_row_groups > 0;
        c->path = pq_file_leaf_path(file, leaf);
        c->type = pq_file_leaf_type(file, leaf);
        int seen = 0;
        c->has_null_count = c->has_min_max = ok;
        for (rg = 0; ok && rg < meta->n_row_groups; rg++) {
            pq_leaf_stats st;
            delta_value mn, mx;
            int cmp = 0;
            pq_file_chunk_stats(file, &meta->row_groups[rg].columns[leaf], leaf, &st);
            if (!st.has_null_count)
                c->has_null_count = 0;
            c->null_count += st.null_count;
            if (!st.has_min_max) {
                /* a chunk of nulls only says nothing of min/max; others unknown */
                if (!(st.has_null_count && st.null_count == st.num_values))
                    c->has_min_max = 0;
                continue;
            }
            if (!delta_scan_stat_value(&st.min, st.type, &mn) ||
                !delta_scan_stat_value(&st.max, st.type, &mx)) {
                c->has_min_max = 0;
                continue;
            }
            if (!seen) {
                seen = 1;
                c->min = mn;
                c->max = mx;
                continue;
            }
            if (delta_value_compare(&mn, &c->min, &cmp, err) == SILT_OK && cmp < 0)
                c->min = mn;
            if (delta_value_compare(&mx, &c->max, &cmp, err) == SILT_OK && cmp > 0)
                c->max = mx;
            err_clear(err);
        }
        if (!seen)
            c->has_min_max = 0;
        if (ok && c->path != NULL && c->type != NULL) {
            const col_type *table_type = NULL;
            c->path = table_leaf(ctx->a, ctx->file_schema, c->path, &table_type);
            ok = c->path != NULL && conform_stat(c, table_type);
        }
        if (ok)
            n++;
        else
            memset(c, 0, sizeof(*c));
    }
    rc = absent_leaves(ctx->a, ctx->file_schema, &path, cols, &n, cap, pq_file_num_rows(file),
                       err);
    buf_clear(&path);
    if (rc == SILT_OK)
        rc = delta_stats_to_json(pq_file_num_rows(file), ctx->file_schema, -1, cols, n, &text, err);
    if (rc == SILT_OK && (*out = arena_strdup(ctx->a, buf_cstr(&text))) == NULL)
        rc = err_nomem(err);
    buf_clear(&text);
    return rc;
}

static silt_status add_file(conv_ctx *ctx, const io_object_info *item, silt_error *err)
{
    pq_file *file = NULL;
    dlog_add add;
    silt_status rc;
    memset(&add, 0, sizeof(add));
    SILT_RETURN_IF_ERROR(partition_values(ctx, item->key, &add.partition_values, err));
    rc = pq_file_open(&file, ctx->store, item->key, err);
    if (rc != SILT_OK)
        return err_context(err, "while converting \"%s\" to Delta", item->key);
    add.path = item->key;
    add.size = item->size;
    add.modification_time = item->mtime_micros / 1000;
    add.data_change = 1;
    if (rc == SILT_OK && ctx->o->collect_stats)
        rc = footer_stats(ctx, file, &add.stats, err);
    if (rc == SILT_OK)
        rc = delta_txn_add_file(ctx->txn, &add, err);
    ctx->n_files++;
    pq_file_free(file);
    return rc;
}

/* The table schema: the files' columns, then the partition columns. */
static silt_status table_schema(conv_ctx *ctx, const col_type **out, silt_error *err)
{
    const col_type *fs = ctx->file_schema;
    size_t n_file = fs ? fs->n_fields : 0, idx, k;
    col_field *fields = arena_calloc(ctx->a, n_file + ctx->o->n_partition_columns + 1,
                                     sizeof(col_field));
    if (fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_file; idx++)
        fields[idx] = fs->fields[idx];
    for (k = 0; k < ctx->o->n_partition_columns; k++) {
        for (idx = 0; idx < n_file; idx++)
            if (util_str_casecmp(fs->fields[idx].name, ctx->o->partition_columns[k]) == 0)
                return err_set(err, SILT_INVALID,
                               "[DELTA_DUPLICATE_COLUMNS_FOUND] the partition column %s is also "
                               "a column of the Parquet files", ctx->o->partition_columns[k]);
        fields[n_file + k].name = ctx->o->partition_columns[k];
        fields[n_file + k].type = ctx->o->partition_types[k];
        fields[n_file + k].nullable = 1;
        fields[n_file + k].field_id = -1;
    }
    *out = col_type_struct(ctx->a, n_file + ctx->o->n_partition_columns, fields);
    return *out ? SILT_OK : err_nomem(err);
}

static silt_status stage(conv_ctx *ctx, const io_listing *files, silt_error *err)
{
    dlog_metadata md;
    dlog_protocol protocol;
    const col_type *schema = NULL;
    char text[32];
    buf parts = BUF_INIT;
    size_t idx;
    silt_status rc = SILT_OK;
    /* Two passes: the statistics are written against the merged schema. */
    for (idx = 0; rc == SILT_OK && idx < files->count; idx++)
        if (!hidden_segment(files->items[idx].key))
            rc = merge_file_schema(ctx, files->items[idx].key, err);
    for (idx = 0; rc == SILT_OK && idx < files->count; idx++)
        if (!hidden_segment(files->items[idx].key))
            rc = add_file(ctx, &files->items[idx], err);
    if (rc == SILT_OK && ctx->file_schema == NULL)
        return err_set(err, SILT_INVALID, "[DELTA_EMPTY_DIRECTORY] No file found in the directory: "
                       "%s", io_store_root(ctx->store));
    if (rc == SILT_OK)
        rc = table_schema(ctx, &schema, err);
    if (rc == SILT_OK)
        rc = delta_metadata_for_new_table(&md, ctx->a, schema, ctx->o->n_partition_columns,
                                          ctx->o->partition_columns, NULL, err);
    if (rc == SILT_OK)
        rc = delta_protocol_for_new_table(&md, 0, ctx->a, &protocol, err);
    if (rc == SILT_OK)
        rc = delta_txn_set_protocol(ctx->txn, &protocol, err);
    if (rc == SILT_OK)
        rc = delta_txn_set_metadata(ctx->txn, &md, err);
    snprintf(text, sizeof(text), "%lld", (long long)ctx->n_files);
    if (rc == SILT_OK)
        rc = delta_txn_set_param(ctx->txn, "numFiles", text, err);
    for (idx = 0; rc == SILT_OK && idx <= ctx->o->n_partition_columns; idx++)
        rc = idx == ctx->o->n_partition_columns
                 ? buf_append_str(&parts, "]", err)
                 : buf_printf(&parts, err, "%s\"%s\"", idx ? "," : "[",
                              ctx->o->partition_columns[idx]);
    if (rc == SILT_OK)
        rc = delta_txn_set_param(ctx->txn, "partitionedBy",
                                 ctx->o->n_partition_columns ? buf_cstr(&parts) : "[]", err);
    if (rc == SILT_OK)
        rc = delta_txn_set_param(ctx->txn, "collectStats",
                                 ctx->o->collect_stats ? "true" : "false", err);
    buf_clear(&parts);
    return rc;
}

silt_status delta_convert_parquet(io_store *store, const delta_convert_options *opts,
                                  int64_t *n_files_out, silt_error *err)
{
    conv_ctx ctx;
    io_listing files = IO_LISTING_INIT, log = IO_LISTING_INIT;
    silt_status rc;
    memset(&ctx, 0, sizeof(ctx));
    *n_files_out = -1;
    /* A Delta table already: Delta's CONVERT does nothing then. */
    rc = io_list(store, DLOG_DIR, NULL, 0, &log, err);
    if (rc != SILT_OK || log.count > 0) {
        io_listing_clear(&log);
        return rc;
    }
    ctx.store = store;
    ctx.o = opts;
    ctx.a = arena_new(NULL, "convert");
    if (ctx.a == NULL)
        return err_nomem(err);
    rc = io_list(store, "", NULL, 1, &files, err);
    if (rc == SILT_OK)
        rc = delta_txn_begin(&ctx.txn, store, NULL, "CONVERT", err);
    if (rc == SILT_OK)
        rc = stage(&ctx, &files, err);
    if (rc == SILT_OK)
        rc = delta_txn_commit(ctx.txn, NULL, err);
    if (rc == SILT_OK)
        *n_files_out = ctx.n_files;
    delta_txn_free(ctx.txn);
    io_listing_clear(&files);
    arena_free(ctx.a);
    return rc;
}
