/*
 * source_files.c - the files of a plain file source and the columns its
 * scan adds (source_files.h): Spark's file index over a path (listing and
 * partition discovery are text_files_discover's), the options that steer
 * it, pruning by partition values, and the assembly of output batches.
 *
 * Options, as Spark's FileIndexOptions: basePath (where partition folders
 * begin when the path points inside them or is a glob; it must hold the
 * path), recursiveFileLookup (every file below, no partition columns) and
 * pathGlobFilter (file names). spark.sql.sources.partitionColumnTypeInference
 * .enabled = false keeps partition values strings.
 *
 * A partition column that is also a column of the data files is Spark's
 * overlapping column: it stays at its data position, takes the partition's
 * type, and its values come from the folder, never from the file.
 *
 * Pruning: conjuncts over partition columns only (sql_pushdown_preds)
 * drop the files whose folder values cannot match, before any file is
 * opened but the first (its schema); the filter above still applies every
 * conjunct.
 */
#include <string.h>

#include "sql/source_files.h"
#include "util/hashmap.h"
#include "util/time_zone.h"

static void free_store(void *p) { io_store_free(p); }

/* 1 for "true", 0 for "false" (any case); -1 otherwise. */
static int bool_text(const char *v)
{
    if (v != NULL && util_str_casecmp(v, "true") == 0)
        return 1;
    if (v != NULL && util_str_casecmp(v, "false") == 0)
        return 0;
    return -1;
}

/* path without trailing slashes, in a. */
static char *trimmed(arena *a, const char *path)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    return arena_strndup(a, path, len);
}

/* basePath: the store is opened there and path becomes a key below it. */
static silt_status open_at_base(binder *b, const char *base, const char *path, io_store **store,
                                const char **key, silt_error *err)
{
    char *root = trimmed(b->a, io_location_local_path(base));
    char *full = trimmed(b->a, path);
    size_t n;
    if (root == NULL || full == NULL)
        return err_nomem(err);
    n = strlen(root);
    if (strncmp(full, root, n) != 0 || (full[n] != '\0' && full[n] != '/' && root[n - 1] != '/'))
        return err_set(err, SILT_INVALID, "Wrong basePath %s for the root path: %s", base, path);
    *key = full + n + (full[n] == '/');
    SILT_RETURN_IF_ERROR(sql_session_store_open(b->s, root, 0, store, err));
    if (arena_on_cleanup(b->a, free_store, *store) == 0) {
        io_store_free(*store);
        return err_nomem(err);
    }
    return SILT_OK;
}

silt_status sql_files_open(binder *b, const char *path, const char **kv, size_t n_kv,
                           const char ***rest, size_t *n_rest, sql_files **out,
                           silt_error *err)
{
    sql_files *f = arena_calloc(b->a, 1, sizeof(*f));
    text_files_options o;
    const char *base = NULL, *key, *infer;
    size_t idx;
    memset(&o, 0, sizeof(o));
    *rest = arena_calloc(b->a, n_kv + 1, sizeof(char *));
    if (f == NULL || *rest == NULL)
        return err_nomem(err);
    *n_rest = 0;
    for (idx = 0; idx + 1 < n_kv; idx += 2) {
        const char *k = kv[idx], *v = kv[idx + 1] ? kv[idx + 1] : "";
        if (util_str_casecmp(k, "path") == 0)
            continue;
        if (util_str_casecmp(k, "basePath") == 0) {
            base = v;
        } else if (util_str_casecmp(k, "recursiveFileLookup") == 0) {
            if ((o.recursive_lookup = bool_text(v)) < 0)
                return err_set(err, SILT_INVALID, "option \"recursiveFileLookup\" must be true "
                               "or false, not \"%s\"", v);
        } else if (util_str_casecmp(k, "pathGlobFilter") == 0) {
            o.glob_filter = v;
        } else {
            (*rest)[(*n_rest)++] = k;
            (*rest)[(*n_rest)++] = v;
        }
    }
    infer = sql_session_get(b->s, "spark.sql.sources.partitionColumnTypeInference.enabled");
    o.infer_types = bool_text(infer) != 0;
    o.zone = b->ctx != NULL ? b->ctx->zone : NULL;
    f->path = path;
    f->file_name_col = -1;
    if (base != NULL) {
        o.base_key = "";
        SILT_RETURN_IF_ERROR(open_at_base(b, base, path, &f->store, &key, err));
    } else {
        SILT_RETURN_IF_ERROR(sql_source_path_store(b, path, &f->store, &key, err));
    }
    SILT_RETURN_IF_ERROR(text_files_discover(f->store, key, &o, b->a, &f->found, err));
    f->keys = (const char *const *)f->found.keys;
    f->n_keys = f->found.n_keys;
    f->value_row = arena_calloc(b->a, f->n_keys + 1, sizeof(size_t));
    if (f->value_row == NULL)
        return err_nomem(err);
    for (idx = 0; idx < f->n_keys; idx++)
        f->value_row[idx] = idx;
    *out = f;
    return SILT_OK;
}

/* ---------------------------------------------------------------- pruning */

static int64_t part_index(const sql_files *f, const char *name)
{
    const col_type *p = f->found.parts;
    for (size_t idx = 0; p != NULL && idx < p->n_fields; idx++)
        if (util_str_casecmp(p->fields[idx].name, name) == 0)
            return (int64_t)idx;
    return -1;
}

/* 1 when every column pred names is a partition column. */
static int on_parts(const sql_files *f, const dpred *p)
{
    if (p->kind == DPRED_AND || p->kind == DPRED_OR)
        return on_parts(f, p->left) && on_parts(f, p->right);
    return part_index(f, p->column) >= 0;
}

static void value_of(const col_vec *v, int64_t row, delta_value *out)
{
    memset(out, 0, sizeof(*out));
    out->type = v->type->id;
    if (v->type->id == COL_NULL || col_vec_is_null(v, row)) {
        out->is_null = 1;
        return;
    }
    switch (v->type->id) {
    case COL_INT:
    case COL_DATE: out->v.i = ((const int32_t *)v->values)[row]; break;
    case COL_LONG:
    case COL_TIMESTAMP: out->v.i = ((const int64_t *)v->values)[row]; break;
    case COL_DOUBLE: out->v.d = ((const double *)v->values)[row]; break;
    case COL_DECIMAL:
        memcpy(&out->v.dec, (const char *)v->values + row * 16, 16);
        out->scale = 0;
        break;
    default: {
        int32_t len;
        out->v.s.ptr = col_vec_str(v, row, &len);
        out->v.s.len = (size_t)len;
    }
    }
}

/* 0 only when the folder values of row cannot make p true (dstats_bounds_may_match). */
static int row_may_match(const sql_files *f, const dpred *p, size_t row)
{
    dstats_bounds bounds;
    delta_value v;
    if (p->kind == DPRED_AND)
        return row_may_match(f, p->left, row) && row_may_match(f, p->right, row);
    if (p->kind == DPRED_OR)
        return row_may_match(f, p->left, row) || row_may_match(f, p->right, row);
    value_of(f->found.values[part_index(f, p->column)], (int64_t)row, &v);
    memset(&bounds, 0, sizeof(bounds));
    bounds.has_null_count = bounds.has_rows = 1;
    bounds.rows = 1;
    bounds.null_count = v.is_null;
    if (!v.is_null) {
        bounds.has_min = bounds.has_max = 1;
        bounds.min = bounds.max = v;
    }
    return dstats_bounds_may_match(p, &bounds);
}

static const char *pred_text(binder *b, const dpred *p)
{
    static const char *const ops[] = {"=", "!=", "<", "<=", ">", ">="};
    if (p->kind == DPRED_AND || p->kind == DPRED_OR)
        return arena_sprintf(b->a, "(%s %s %s)", pred_text(b, p->left),
                             p->kind == DPRED_AND ? "AND" : "OR", pred_text(b, p->right));
    if (p->kind == DPRED_IS_NULL || p->kind == DPRED_IS_NOT_NULL)
        return arena_sprintf(b->a, "%s(%s)", p->kind == DPRED_IS_NULL ? "isnull" : "isnotnull",
                             p->column);
    if (p->literal.type == COL_STRING)
        return arena_sprintf(b->a, "%s %s '%.*s'", p->column, ops[p->op], (int)p->literal.v.s.len,
                             p->literal.v.s.ptr);
    if (p->literal.type == COL_DOUBLE || p->literal.type == COL_FLOAT)
        return arena_sprintf(b->a, "%s %s %g", p->column, ops[p->op], p->literal.v.d);
    return arena_sprintf(b->a, "%s %s %lld", p->column, ops[p->op], (long long)p->literal.v.i);
}

/* Distinct folders of keys[0..n) (Spark's partitions), into *out. */
static silt_status count_dirs(const char *const *keys, size_t n, size_t *out, silt_error *err)
{
    hashmap seen = HASHMAP_INIT;
    silt_status rc = SILT_OK;
    size_t idx;
    *out = 0;
    for (idx = 0; idx < n && rc == SILT_OK; idx++) {
        const char *slash = strrchr(keys[idx], '/');
        /* the folder with its slash ("/" for the top): never an empty key */
        const char *dir = slash ? keys[idx] : "/";
        size_t len = slash ? (size_t)(slash - keys[idx]) + 1 : 1;
        if (!hashmap_get(&seen, dir, len, NULL)) {
            rc = hashmap_put(&seen, dir, len, NULL, NULL, err);
            (*out)++;
        }
    }
    hashmap_clear(&seen);
    return rc;
}

/* Keeps the files whose folder values every conjunct of preds may match. */
static silt_status prune(binder *b, sql_files *f, const char *what, const dpred *preds,
                         size_t n_preds, silt_error *err)
{
    const char **kept = arena_calloc(b->a, f->n_keys + 1, sizeof(char *));
    size_t *rows = arena_calloc(b->a, f->n_keys + 1, sizeof(size_t));
    size_t idx, p, n = 0, parts_all = 0, parts_kept = 0;
    buf t = BUF_INIT;
    if (kept == NULL || rows == NULL)
        return err_nomem(err);
    for (idx = 0; idx < f->n_keys; idx++) {
        int keep = 1;
        for (p = 0; p < n_preds && keep; p++)
            keep = row_may_match(f, &preds[p], f->value_row[idx]);
        if (keep) {
            kept[n] = f->keys[idx];
            rows[n++] = f->value_row[idx];
        }
    }
    SILT_RETURN_IF_ERROR(count_dirs(f->keys, f->n_keys, &parts_all, err));
    SILT_RETURN_IF_ERROR(count_dirs(kept, n, &parts_kept, err));
    for (p = 0; p < n_preds; p++)
        buf_printf(&t, NULL, "%s%s", p ? ", " : "", pred_text(b, &preds[p]));
    sql_bind_note(b, "%s PartitionFilters: [%s]", what, t.data ? buf_cstr(&t) : "");
    buf_clear(&t);
    sql_bind_note(b, "%s partitions: %zu of %zu read, %zu skipped (%zu of %zu files)", what,
                  parts_kept, parts_all, parts_all - parts_kept, n, f->n_keys);
    f->keys = kept;
    f->value_row = rows;
    f->n_keys = n;
    return SILT_OK;
}

/* ---------------------------------------------------------------- layout */

static int64_t field_index(const col_type *s, const char *name)
{
    for (size_t idx = 0; idx < s->n_fields; idx++)
        if (util_str_casecmp(s->fields[idx].name, name) == 0)
            return (int64_t)idx;
    return -1;
}

/*
 * The file: URI of a key, as Spark's input_file_name() gives it (Hadoop's
 * Path.toUri): the characters a URI path may not hold are %-encoded ('%'
 * itself, so a folder "s=a%20b" reads "s=a%2520b"), bytes of other
 * scripts are kept.
 */
const char *sql_file_uri(arena *a, const char *root, const char *key, int authority)
{
    const char *raw = key[0] == '/' ? key : arena_sprintf(a, "%s/%s", root, key);
    buf out = BUF_INIT;
    const char *res;
    if (raw == NULL)
        return NULL;
    if (raw[0] == '/')
        buf_printf(&out, NULL, authority ? "file://" : "file:");
    for (const unsigned char *c = (const unsigned char *)raw; *c != '\0'; c++) {
        if (*c < 0x21 || *c == 0x7F || strchr("%\"<>#?[]\\^`{|}", *c) != NULL)
            buf_printf(&out, NULL, "%%%02X", *c);
        else
            buf_printf(&out, NULL, "%c", *c);
    }
    res = out.data != NULL ? arena_strdup(a, buf_cstr(&out)) : NULL;
    buf_clear(&out);
    return res;
}

static const char *file_uri(binder *b, const sql_files *f, const char *key)
{
    return sql_file_uri(b->a, io_store_root(f->store), key, 1);
}

silt_status sql_file_name_column(arena *a, const char *uri, int64_t n_rows, col_vec **out,
                                 silt_error *err)
{
    text_files one;
    col_builder *bld;
    col_vec *name, *vals[1];
    col_field field;
    memset(&field, 0, sizeof(field));
    field.type = col_type_primitive(COL_STRING);
    SILT_RETURN_IF_ERROR(col_builder_new(&bld, a, field.type, err));
    SILT_RETURN_IF_ERROR(col_builder_append_bytes(bld, uri, strlen(uri), err));
    SILT_RETURN_IF_ERROR(col_builder_finish(bld, &name, err));
    vals[0] = name;
    memset(&one, 0, sizeof(one));
    one.parts = col_type_struct(a, 1, &field);
    one.values = vals;
    if (one.parts == NULL)
        return err_nomem(err);
    return text_files_fill(out, a, &one, 0, 0, n_rows, err);
}

silt_status sql_files_layout(binder *b, sql_files *f, const char *what,
                             const col_type *data_schema, const pushdown *pd,
                             const char ***read_cols, size_t *n_read_cols, dpred **data_preds,
                             size_t *n_data_preds, silt_error *err)
{
    const col_type *parts = f->found.parts;
    size_t n_parts = parts != NULL ? parts->n_fields : 0;
    size_t n_full = 0, idx, n_out = 0, n_read = 0, n_pp = 0, n_dp = 0;
    col_field *full = arena_calloc(b->a, data_schema->n_fields + n_parts + 2, sizeof(col_field));
    int32_t *full_part = arena_calloc(b->a, data_schema->n_fields + n_parts + 2, sizeof(int32_t));
    const char **proj, **reads;
    const col_type *full_schema;
    size_t n_proj = 0;
    dpred *preds = NULL, *pp, *dp;
    size_t n_preds;
    col_field *out_fields;
    int want_name = b->want_file_name;
    if (full == NULL || full_part == NULL)
        return err_nomem(err);
    *read_cols = NULL;
    *n_read_cols = 0;
    /* data columns, an overlapping one as the partition's; then the other partition columns */
    for (idx = 0; idx < data_schema->n_fields; idx++) {
        int64_t p = part_index(f, data_schema->fields[idx].name);
        full[n_full] = p >= 0 ? parts->fields[p] : data_schema->fields[idx];
        if (p >= 0)
            full[n_full].name = data_schema->fields[idx].name;
        full_part[n_full++] = (int32_t)p;
    }
    for (idx = 0; idx < n_parts; idx++)
        if (field_index(data_schema, parts->fields[idx].name) < 0) {
            full[n_full] = parts->fields[idx];
            full_part[n_full++] = (int32_t)idx;
        }
    full_schema = col_type_struct(b->a, n_full, full);
    if (full_schema == NULL)
        return err_nomem(err);
    /* conjuncts: those on partition columns prune files, the others go to the reader */
    n_preds = sql_pushdown_preds(b, pd, full_schema, &preds);
    pp = arena_calloc(b->a, n_preds + 1, sizeof(dpred));
    dp = arena_calloc(b->a, n_preds + 1, sizeof(dpred));
    if (pp == NULL || dp == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_preds; idx++) {
        if (n_parts > 0 && on_parts(f, &preds[idx]))
            pp[n_pp++] = preds[idx];
        else
            dp[n_dp++] = preds[idx];
    }
    if (n_parts > 0 && n_pp > 0)
        SILT_RETURN_IF_ERROR(prune(b, f, what, pp, n_pp, err));
    *data_preds = dp;
    *n_data_preds = n_dp;
    if (n_parts == 0 && !want_name) {
        f->schema = data_schema;
        return SILT_OK; /* nothing to add: the reader's batches are the scan's */
    }
    /* the output: the full schema projected, then the file name */
    proj = sql_source_projected(b, pd, full_schema, &n_proj);
    out_fields = arena_calloc(b->a, n_full + 2, sizeof(col_field));
    f->from_data = arena_calloc(b->a, n_full + 2, sizeof(int32_t));
    f->from_part = arena_calloc(b->a, n_full + 2, sizeof(int32_t));
    f->data_name = arena_calloc(b->a, n_full + 2, sizeof(char *));
    reads = arena_calloc(b->a, data_schema->n_fields + 1, sizeof(char *));
    if (out_fields == NULL || f->from_data == NULL || f->from_part == NULL || reads == NULL ||
        f->data_name == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_full; idx++) {
        size_t k;
        if (proj != NULL) {
            for (k = 0; k < n_proj && proj[k] != full_schema->fields[idx].name; k++)
                ;
            if (k == n_proj)
                continue;
        }
        out_fields[n_out] = full_schema->fields[idx];
        f->from_part[n_out] = full_part[idx];
        f->from_data[n_out] = -1;
        f->data_name[n_out] = NULL;
        if (full_part[idx] < 0) {
            f->data_name[n_out] = data_schema->fields[idx].name;
            f->from_data[n_out] = (int32_t)n_read;
            reads[n_read++] = data_schema->fields[idx].name; /* data fields come first, in order */
        }
        n_out++;
    }
    if (want_name) {
        out_fields[n_out].name = SQL_FILE_NAME_COL;
        out_fields[n_out].type = col_type_primitive(COL_STRING);
        out_fields[n_out].field_id = -1;
        f->from_data[n_out] = f->from_part[n_out] = -1;
        f->file_name_col = (int)n_out++;
        f->uris = arena_calloc(b->a, f->n_keys + 1, sizeof(char *));
        if (f->uris == NULL)
            return err_nomem(err);
        for (idx = 0; idx < f->n_keys; idx++)
            if ((f->uris[idx] = file_uri(b, f, f->keys[idx])) == NULL)
                return err_nomem(err);
    }
    /* the reader gives at least one column, so that its batches count the rows */
    if (n_read == 0 && data_schema->n_fields > 0)
        reads[n_read++] = data_schema->fields[0].name;
    if (n_read < data_schema->n_fields) {
        *read_cols = reads;
        *n_read_cols = n_read;
    }
    f->schema = col_type_struct(b->a, n_out, out_fields);
    f->adds = 1;
    return f->schema != NULL ? SILT_OK : err_nomem(err);
}

void sql_files_reindex(sql_files *f, const col_type *batch_schema)
{
    for (size_t idx = 0; idx < f->schema->n_fields; idx++)
        if (f->data_name[idx] != NULL)
            f->from_data[idx] = (int32_t)field_index(batch_schema, f->data_name[idx]);
}

silt_status sql_files_assemble(const sql_files *f, size_t key_idx, const col_batch *in, arena *a,
                               col_batch **out, silt_error *err)
{
    col_batch *o = arena_calloc(a, 1, sizeof(*o));
    size_t idx, n = f->schema->n_fields;
    if (o == NULL || (o->cols = arena_calloc(a, n + 1, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    o->schema = f->schema;
    o->n_rows = in->n_rows;
    o->n_cols = n;
    for (idx = 0; idx < n; idx++) {
        if (f->from_data[idx] >= 0) {
            o->cols[idx] = in->cols[f->from_data[idx]];
        } else if (f->from_part[idx] >= 0) {
            SILT_RETURN_IF_ERROR(text_files_fill(&o->cols[idx], a, &f->found,
                                                 (size_t)f->from_part[idx], f->value_row[key_idx],
                                                 in->n_rows, err));
        } else {
            SILT_RETURN_IF_ERROR(sql_file_name_column(a, f->uris[key_idx], in->n_rows,
                                                      &o->cols[idx], err));
        }
    }
    *out = o;
    return SILT_OK;
}

silt_status sql_files_scope(binder *b, const sql_files *f, const char *qual, bind_scope *out,
                            silt_error *err)
{
    SILT_RETURN_IF_ERROR(sql_scope_from_schema(b->a, f->schema, qual, out, err));
    if (f->file_name_col >= 0)
        out->cols[f->file_name_col].hidden = 1;
    return SILT_OK;
}
