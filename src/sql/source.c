/*
 * source.c - table sources of a query: `delta.`path`` (with VERSION AS
 * OF, TIMESTAMP AS OF and t@v<n>), `parquet.`path``, `csv.`path``,
 * `json.`path`` (files, folders, globs), read_files(...), temporary views
 * and catalog tables. The files of a plain file source and their partition
 * columns are Spark's file index (source_files.c, formats/text/text_files.c):
 * partition values, and the hidden input_file_name() column of a statement
 * that calls it, are added to the reader's batches.
 *
 * Pushdown: WHERE conjuncts `column op literal`, `column BETWEEN a AND b`
 * and `column IS [NOT] NULL` over the source's own columns become dpred
 * predicates (sql_pushdown_preds in pushdown.c, shared with DELETE/UPDATE). A
 * Delta scan keeps only the files dstats_prune_files cannot rule out
 * (partition values and min/max/null count statistics), by scanning a
 * shallow copy of the snapshot with the pruned file list; then Delta data
 * files and Parquet sources alike skip the row groups and pages whose
 * statistics rule them out (dscan_filter), and are cut into the same
 * units of parallel work (source_scan.c). Pruning never drops a matching
 * row; the filter above still evaluates every conjunct.
 *
 * Open files, scans, snapshots and stores are released by cleanups of the
 * query arena (registered store first, so they are freed in reverse).
 */
#include <string.h>

#include "delta/cdf.h"
#include "formats/csv/csv.h"
#include "formats/json/json.h"
#include "formats/parquet/parquet.h"
#include "formats/text/text_source.h"
#include "sql/binder_int.h"
#include "sql/exec.h"
#include "sql/lexer.h"
#include "sql/parser.h"
#include "sql/source_files.h"
#include "sql/source_int.h"
#include "util/hashmap.h"
#include "util/time.h"

/* ---------------------------------------------------------------- cleanups */

static void free_store(void *p) { io_store_free(p); }
static void free_snapshot(void *p) { delta_snapshot_free(p); }
static void free_delta_scan(void *p) { delta_scan_free(p); }
static void free_csv(void *p) { csv_scan_free(p); }
static void free_json(void *p) { json_scan_free(p); }

static silt_status on_cleanup(binder *b, void (*fn)(void *), void *obj, silt_error *err)
{
    if (arena_on_cleanup(b->a, fn, obj) == 0) {
        fn(obj);
        return err_nomem(err);
    }
    return SILT_OK;
}

/* Opens a store for a path: its folder (before any glob) is the root, the rest the key. */
silt_status sql_source_path_store(binder *b, const char *path, io_store **store_out,
                                  const char **key_out, silt_error *err)
{
    const char *glob = strpbrk(path, "*?[");
    size_t limit = glob ? (size_t)(glob - path) : strlen(path);
    size_t cut = 0, idx;
    char *root;
    for (idx = 0; idx < limit; idx++)
        if (path[idx] == '/')
            cut = idx + 1;
    /* A trailing slash: the folder itself is the key. */
    while (limit > 1 && glob == NULL && path[limit - 1] == '/')
        limit--;
    if (glob == NULL) {
        cut = 0;
        for (idx = 0; idx < limit; idx++)
            if (path[idx] == '/')
                cut = idx + 1;
    }
    root = cut == 0 ? arena_strdup(b->a, ".") : arena_strndup(b->a, path, cut > 1 ? cut - 1 : 1);
    if (root == NULL)
        return err_nomem(err);
    *key_out = arena_strndup(b->a, path + cut, (glob ? strlen(path) : limit) - cut);
    if (*key_out == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(sql_session_store_open(b->s, root, 0, store_out, err));
    return on_cleanup(b, free_store, *store_out, err);
}

/* ---------------------------------------------------------------- pushdown */

static const char *dpred_text(binder *b, const dpred *p)
{
    static const char *const ops[] = {"=", "!=", "<", "<=", ">", ">="};
    if (p->kind == DPRED_IS_NULL)
        return arena_sprintf(b->a, "isnull(%s)", p->column);
    if (p->kind == DPRED_IS_NOT_NULL)
        return arena_sprintf(b->a, "isnotnull(%s)", p->column);
    switch (p->literal.type) {
    case COL_STRING:
        return arena_sprintf(b->a, "%s %s '%.*s'", p->column, ops[p->op], (int)p->literal.v.s.len,
                             p->literal.v.s.ptr);
    case COL_FLOAT:
    case COL_DOUBLE: return arena_sprintf(b->a, "%s %s %g", p->column, ops[p->op], p->literal.v.d);
    default:
        return arena_sprintf(b->a, "%s %s %lld", p->column, ops[p->op],
                             (long long)p->literal.v.i);
    }
}

static void note_pushed(binder *b, const char *what, const dpred *preds, size_t n)
{
    buf t = BUF_INIT;
    size_t idx;
    if (n == 0)
        return;
    for (idx = 0; idx < n; idx++)
        buf_printf(&t, NULL, "%s%s", idx ? ", " : "", dpred_text(b, &preds[idx]));
    sql_bind_note(b, "%s PushedFilters: [%s]", what, t.data ? buf_cstr(&t) : "");
    buf_clear(&t);
}

/*
 * The top-level columns of schema the query names, in schema order; NULL
 * (read all) when the pushdown does not know. At least one column is kept,
 * so that count(*) still sees the rows.
 */
const char **sql_source_projected(binder *b, const pushdown *pd, const col_type *schema,
                                  size_t *n_out)
{
    const char **cols;
    size_t idx, k, n = 0;
    *n_out = 0;
    if (pd == NULL || pd->all_cols || schema->n_fields == 0)
        return NULL;
    cols = arena_calloc(b->a, schema->n_fields, sizeof(char *));
    if (cols == NULL)
        return NULL;
    for (idx = 0; idx < schema->n_fields; idx++)
        for (k = 0; k < pd->n_cols; k++)
            if (util_str_casecmp(schema->fields[idx].name, pd->cols[k]) == 0) {
                cols[n++] = schema->fields[idx].name;
                break;
            }
    if (n == schema->n_fields)
        return NULL;
    if (n == 0)
        cols[n++] = schema->fields[0].name;
    *n_out = n;
    return cols;
}

/* ---------------------------------------------------------------- Delta */

typedef struct delta_src {
    delta_scan *scan;
    const dscan_counters *morsels; /* the morsels' counts, when the scan has morsels */
    /* input_file_name(): the scan's schema with the hidden file name column after it */
    const col_type *named;
    const char *root; /* the table's folder */
} delta_src;

/* The input_file_name() column after a Delta batch: the URI of the file the scan is reading. */
static silt_status delta_add_name(const delta_src *src, const delta_scan *scan, arena *a,
                                  col_batch **out, silt_error *err)
{
    const char *path = delta_scan_current_path(scan), *uri;
    col_batch *o = arena_calloc(a, 1, sizeof(*o));
    size_t n = (*out)->n_cols;
    if (o == NULL || path == NULL || (o->cols = arena_calloc(a, n + 1, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    if (strncmp(path, "file:", 5) == 0)
        path = io_location_local_path(path); /* a shallow clone's absolute path */
    uri = sql_file_uri(a, src->root, path, 0);
    if (uri == NULL)
        return err_nomem(err);
    memcpy(o->cols, (*out)->cols, n * sizeof(col_vec *));
    SILT_RETURN_IF_ERROR(sql_file_name_column(a, uri, (*out)->n_rows, &o->cols[n], err));
    o->n_cols = n + 1;
    o->n_rows = (*out)->n_rows;
    o->schema = src->named;
    *out = o;
    return SILT_OK;
}

static silt_status delta_next(void *payload, arena *batch_arena, col_batch **out, silt_error *err)
{
    delta_src *src = payload;
    SILT_RETURN_IF_ERROR(delta_scan_next(src->scan, batch_arena, out, err));
    if (*out != NULL && src->named != NULL)
        return delta_add_name(src, src->scan, batch_arena, out, err);
    return SILT_OK;
}

/*
 * Morsels of a Delta scan: scan units (source_int.h), each read through a
 * delta_scan over a one-file copy of the snapshot with the unit's span.
 * A table with files enough for the threads gets one unit per file (no
 * footer is read at plan time); one with fewer files has its footers read
 * here and its files cut into row groups and row ranges, as a Parquet
 * source's. Each morsel is read by one worker at a time; its open scan
 * waits in scans[morsel] between calls.
 */
typedef struct delta_morsels {
    const delta_src *src;
    io_store *store;
    delta_snapshot *one; /* one-file snapshots, one per file */
    size_t n_files;
    pq_file **files;     /* open footers, when units are cut from them */
    scan_unit *units;
    size_t n;
    delta_scan_options opts;
    delta_scan **scans;
    dscan_counters counters; /* of the morsels finished */
} delta_morsels;

static void free_delta_morsels(void *p)
{
    delta_morsels *m = p;
    size_t idx;
    for (idx = 0; m->scans != NULL && idx < m->n; idx++)
        delta_scan_free(m->scans[idx]);
    for (idx = 0; m->files != NULL && idx < m->n_files; idx++)
        pq_file_free(m->files[idx]);
}

static void delta_morsel_done(delta_morsels *m, size_t morsel_idx)
{
    dscan_counters c;
    if (m->scans[morsel_idx] == NULL)
        return;
    delta_scan_get_counters(m->scans[morsel_idx], &c);
    /* A file cut into units is counted once, by the unit holding its first row. */
    c.files = m->units[morsel_idx].span.first_row_group == 0 &&
              m->units[morsel_idx].span.first_row == 0;
    sql_scan_counters_merge(&m->counters, &c);
    delta_scan_free(m->scans[morsel_idx]);
    m->scans[morsel_idx] = NULL;
}

static silt_status delta_morsel_next(void *payload, size_t morsel_idx, size_t *cursor,
                                     arena *batch_arena, col_batch **out, silt_error *err)
{
    delta_morsels *m = payload;
    if (*cursor == 0) {
        const scan_unit *u = &m->units[morsel_idx];
        delta_scan_options so = m->opts;
        /* A morsel may be read again from its start (a spilling rerun): drop the old scan. */
        delta_scan_free(m->scans[morsel_idx]);
        m->scans[morsel_idx] = NULL;
        *cursor = 1;
        so.span = u->span;
        so.file = m->files != NULL ? m->files[u->file_idx] : NULL;
        SILT_RETURN_IF_ERROR(delta_scan_open(&m->scans[morsel_idx], m->store,
                                             &m->one[u->file_idx], &so, err));
    }
    SILT_RETURN_IF_ERROR(delta_scan_next(m->scans[morsel_idx], batch_arena, out, err));
    if (*out == NULL)
        delta_morsel_done(m, morsel_idx);
    else if (m->src->named != NULL)
        return delta_add_name(m->src, m->scans[morsel_idx], batch_arena, out, err);
    return SILT_OK;
}

/* Cuts the files of m into row-group units from their footers (few files for the threads). */
static silt_status delta_units_split(binder *b, delta_morsels *m, silt_error *err)
{
    size_t idx, n_split = 0;
    m->files = arena_calloc(b->a, m->n_files + 1, sizeof(pq_file *));
    if (m->files == NULL)
        return err_nomem(err);
    for (idx = 0; idx < m->n_files; idx++) {
        io_store *store;
        const char *key;
        SILT_RETURN_IF_ERROR(delta_file_locate(m->store, m->one[idx].files[0].path, &store, &key,
                                               err));
        SILT_RETURN_IF_ERROR(delta_scan_missing_file(pq_file_open(&m->files[idx], store, key,
                                                                  err),
                                                     m->one[idx].version, err));
    }
    SILT_RETURN_IF_ERROR(sql_scan_units_split(b->a, tpool_width(b->ctx->pool), m->files, m->n_files,
                                          NULL, 0, &m->units, &m->n, &n_split, err));
    if (m->n != m->n_files)
        sql_bind_note(b, "DeltaScan morsels: %zu from %zu file%s (%zu row group%s split into row "
                  "ranges)", m->n, m->n_files, m->n_files == 1 ? "" : "s", n_split,
                  n_split == 1 ? "" : "s");
    return SILT_OK;
}

static silt_status delta_morsels_new(binder *b, io_store *store, const delta_snapshot *snap,
                                     const delta_scan_options *opts, delta_src *src, plan *out,
                                     silt_error *err)
{
    delta_morsels *m = arena_calloc(b->a, 1, sizeof(*m));
    size_t idx, width = tpool_width(b->ctx->pool);
    if (m == NULL)
        return err_nomem(err);
    m->src = src;
    m->store = store;
    m->n_files = snap->n_files;
    m->opts = *opts;
    m->one = arena_calloc(b->a, m->n_files + 1, sizeof(delta_snapshot));
    if (m->one == NULL)
        return err_nomem(err);
    for (idx = 0; idx < m->n_files; idx++) {
        m->one[idx] = *snap;
        m->one[idx].files = &snap->files[idx];
        m->one[idx].n_files = 1;
    }
    SILT_RETURN_IF_ERROR(on_cleanup(b, free_delta_morsels, m, err));
    if (m->n_files < width * SCAN_UNITS_PER_THREAD)
        SILT_RETURN_IF_ERROR(delta_units_split(b, m, err));
    if (m->units == NULL) {
        m->units = arena_calloc(b->a, m->n_files + 1, sizeof(scan_unit));
        if (m->units == NULL)
            return err_nomem(err);
        for (idx = 0; idx < m->n_files; idx++)
            m->units[idx].file_idx = idx;
        m->n = m->n_files;
    }
    if (m->n <= 1 && m->n_files <= 1)
        return SILT_OK; /* one unit: the serial scan is that unit */
    m->scans = arena_calloc(b->a, m->n + 1, sizeof(delta_scan *));
    if (m->scans == NULL)
        return err_nomem(err);
    src->morsels = &m->counters;
    out->morsels.top = out->op;
    out->morsels.fn = delta_morsel_next;
    out->morsels.payload = m;
    out->morsels.n = m->n;
    out->morsels.schema = out->op->schema;
    out->morsels.filter = NULL;
    return SILT_OK;
}

/* Number of distinct partitions (partition value sets) among files, for EXPLAIN. */
static silt_status count_partitions(const delta_file *files, size_t n_files, size_t *out,
                                    silt_error *err)
{
    hashmap seen = HASHMAP_INIT;
    buf key = BUF_INIT;
    size_t idx, kv;
    silt_status rc = SILT_OK;
    *out = 0;
    for (idx = 0; idx < n_files && rc == SILT_OK; idx++) {
        const dlog_map *pv = &files[idx].partition_values;
        buf_truncate(&key, 0);
        for (kv = 0; kv < pv->n && rc == SILT_OK; kv++)
            rc = buf_printf(&key, err, "%s=%s%c", pv->items[kv].key,
                            pv->items[kv].value ? pv->items[kv].value : "\x01null", 0);
        if (rc == SILT_OK && key.len == 0)
            rc = buf_append_char(&key, 0, err);
        if (rc == SILT_OK && !hashmap_get(&seen, key.data, key.len, NULL)) {
            rc = hashmap_put(&seen, key.data, key.len, NULL, NULL, err);
            (*out)++;
        }
    }
    hashmap_clear(&seen);
    buf_clear(&key);
    return rc;
}

/* A shallow copy of snap holding only the files the predicates may match. */
static silt_status prune_files(binder *b, const delta_snapshot *snap, const dpred *preds,
                               size_t n_preds, delta_snapshot **out, silt_error *err)
{
    delta_snapshot *copy = arena_alloc(b->a, sizeof(*copy));
    uint8_t *keep = arena_alloc(b->a, snap->n_files + 1);
    size_t idx, kept = 0;
    if (copy == NULL || keep == NULL)
        return err_nomem(err);
    *copy = *snap;
    copy->files = arena_calloc(b->a, snap->n_files + 1, sizeof(delta_file));
    if (copy->files == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(dstats_prune_files(snap, preds, n_preds, keep, &kept, err));
    kept = 0;
    for (idx = 0; idx < snap->n_files; idx++)
        if (keep[idx])
            copy->files[kept++] = snap->files[idx];
    copy->n_files = kept;
    sql_bind_note(b, "DeltaScan files: %zu of %zu read, %zu skipped by partition values and stats",
              kept, snap->n_files, snap->n_files - kept);
    if (snap->metadata.n_partition_columns > 0) {
        size_t all = 0, left = 0;
        SILT_RETURN_IF_ERROR(count_partitions(snap->files, snap->n_files, &all, err));
        SILT_RETURN_IF_ERROR(count_partitions(copy->files, kept, &left, err));
        sql_bind_note(b, "DeltaScan partitions: %zu of %zu read, %zu skipped", left, all, all - left);
    }
    *out = copy;
    return SILT_OK;
}

/*
 * The Delta tables of one execution, each loaded once (the catalog-like
 * lookup the logical binder calls for a schema, then the lowering of the
 * same execution for the files): a kept plan that runs again gets a new
 * execution and so fresh snapshots.
 */
typedef struct sql_snap_entry {
    const char *path;
    const char *view_key; /* the reference and commit the table is read on; "" main */
    int64_t version, ts_micros;
    io_store *store;
    delta_snapshot *snap;
    struct sql_snap_entry *next;
} sql_snap_entry;

/*
 * A table of main this statement resolved on its pinned catalog state
 * (docs/branches.md, "Readers"): a merge published after that state may be
 * copying its commits into several tables while the statement opens them.
 */
typedef struct sql_main_table {
    const char *path, *location;
    int64_t pinned; /* main's catalog version the statement reads */
    struct sql_main_table *next;
} sql_main_table;

static silt_status note_main_table(binder *b, const char *path, const char *location,
                                   int64_t pinned, silt_error *err)
{
    arena *a = b->exec_a != NULL ? b->exec_a : b->a;
    sql_main_table *t;
    for (t = b->main_tables; t != NULL; t = t->next)
        if (strcmp(t->path, path) == 0)
            return SILT_OK;
    t = arena_calloc(a, 1, sizeof(*t));
    if (t == NULL || (t->path = arena_strdup(a, path)) == NULL ||
        (t->location = arena_strdup(a, location)) == NULL)
        return err_nomem(err);
    t->pinned = pinned;
    t->next = b->main_tables;
    b->main_tables = t;
    return SILT_OK;
}

/*
 * The newest snapshot of a main table, as the statement's pinned catalog
 * state has it. Checked after the log was listed: a merge's copy the
 * listing saw was published in the catalog before it, so a later merge in
 * this table is always found and the table is read at the version before it
 * (each table of the statement on the same side of every merge).
 */
static silt_status cap_snapshot(binder *b, const char *path, io_store *store,
                                delta_snapshot **snap, silt_error *err)
{
    const sql_main_table *t;
    delta_snapshot *older = NULL;
    int64_t cap = -1;
    for (t = b->main_tables; t != NULL && strcmp(t->path, path) != 0; t = t->next)
        ;
    if (t == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(catalog_main_cap(b->s->cat, t->pinned, t->location, &cap, err));
    if (cap < 0 || cap >= (*snap)->version)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(delta_snapshot_load(&older, store, cap, err));
    delta_snapshot_free(*snap);
    *snap = older;
    return SILT_OK;
}

static silt_status delta_snapshot_of(binder *b, const char *path,
                                     const struct delta_branch_view *view, const char *view_key,
                                     int64_t version, int64_t ts_micros, io_store **store_out,
                                     delta_snapshot **snap_out, silt_error *err)
{
    arena *a = b->exec_a != NULL ? b->exec_a : b->a;
    sql_snap_entry *e;
    io_store *store;
    delta_snapshot *snap = NULL;
    for (e = b->snaps; e != NULL; e = e->next)
        if (e->version == version && e->ts_micros == ts_micros && strcmp(e->path, path) == 0 &&
            strcmp(e->view_key, view_key) == 0) {
            *store_out = e->store;
            *snap_out = e->snap;
            return SILT_OK;
        }
    e = arena_calloc(a, 1, sizeof(*e));
    if (e == NULL || (e->path = arena_strdup(a, path)) == NULL ||
        (e->view_key = arena_strdup(a, view_key)) == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(sql_session_store_open(b->s, path, 0, &store, err));
    if (b->s->wrap_table_store != NULL &&
        b->s->wrap_table_store(&store, b->s->wrap_payload, err) != SILT_OK) {
        io_store_free(store);
        return err->code;
    }
    SILT_RETURN_IF_ERROR(sql_branch_wrap(view, &store, err));
    if (arena_on_cleanup(a, free_store, store) == 0) {
        io_store_free(store);
        return err_nomem(err);
    }
    if (ts_micros != INT64_MIN)
        SILT_RETURN_IF_ERROR(delta_snapshot_load_at_timestamp(&snap, store, ts_micros, NULL, err));
    else
        SILT_RETURN_IF_ERROR(delta_snapshot_load(&snap, store, version, err));
    if (view == NULL && version < 0 && ts_micros == INT64_MIN) {
        silt_status rc = cap_snapshot(b, path, store, &snap, err);
        if (rc != SILT_OK) {
            delta_snapshot_free(snap);
            return rc;
        }
    }
    if (arena_on_cleanup(a, free_snapshot, snap) == 0) {
        delta_snapshot_free(snap);
        return err_nomem(err);
    }
    e->version = version;
    e->ts_micros = ts_micros;
    e->store = store;
    e->snap = snap;
    e->next = b->snaps;
    b->snaps = e;
    *store_out = store;
    *snap_out = snap;
    return SILT_OK;
}

silt_status sql_source_delta_snapshot(binder *b, const char *path, io_store **store_out,
                                      delta_snapshot **snap_out, silt_error *err)
{
    return delta_snapshot_of(b, path, NULL, "", -1, INT64_MIN, store_out, snap_out, err);
}

/* The scan's schema with the hidden input_file_name() column after it (source_files.h). */
static silt_status delta_named_schema(binder *b, delta_src *src, io_store *store, silt_error *err)
{
    const col_type *s = delta_scan_schema(src->scan);
    col_field *fields = arena_calloc(b->a, s->n_fields + 1, sizeof(col_field));
    if (fields == NULL)
        return err_nomem(err);
    memcpy(fields, s->fields, s->n_fields * sizeof(col_field));
    fields[s->n_fields].name = SQL_FILE_NAME_COL;
    fields[s->n_fields].type = col_type_primitive(COL_STRING);
    fields[s->n_fields].field_id = -1;
    src->named = col_type_struct(b->a, s->n_fields + 1, fields);
    src->root = io_store_root(store);
    return src->named != NULL ? SILT_OK : err_nomem(err);
}

static silt_status open_delta(binder *b, const char *path, const struct delta_branch_view *view,
                              const char *view_key, int64_t version, int64_t ts_micros,
                              const pushdown *pd, plan *out, const char *qual, silt_error *err)
{
    io_store *store;
    delta_snapshot *snap = NULL;
    const delta_snapshot *use;
    delta_src *src = arena_calloc(b->a, 1, sizeof(*src));
    dpred *preds;
    size_t n_preds;
    if (src == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(delta_snapshot_of(b, path, view, view_key, version, ts_micros, &store,
                                           &snap, err));
    use = snap;
    sql_bind_note(b, "DeltaScan delta.`%s` version %lld", path, (long long)snap->version);
    n_preds = sql_pushdown_preds(b, pd, snap->schema, &preds);
    if (n_preds > 0) {
        delta_snapshot *pruned = NULL;
        note_pushed(b, "DeltaScan", preds, n_preds);
        SILT_RETURN_IF_ERROR(prune_files(b, snap, preds, n_preds, &pruned, err));
        use = pruned;
    }
    {
        delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
        so.columns = sql_source_projected(b, pd, snap->schema, &so.n_columns);
        so.preds = preds;
        so.n_preds = n_preds;
        if (so.columns != NULL)
            sql_bind_note(b, "DeltaScan reads %zu of %zu columns", so.n_columns,
                      snap->schema->n_fields);
        SILT_RETURN_IF_ERROR(delta_scan_open(&src->scan, store, use, &so, err));
        SILT_RETURN_IF_ERROR(on_cleanup(b, free_delta_scan, src->scan, err));
        if (b->want_file_name)
            SILT_RETURN_IF_ERROR(delta_named_schema(b, src, store, err));
        SILT_RETURN_IF_ERROR(engine_op_scan(&out->op, b->ctx,
                                            src->named ? src->named : delta_scan_schema(src->scan),
                                            delta_next, src, err));
        engine_op_set_note(out->op, sql_source_delta_note, src);
        memset(&out->morsels, 0, sizeof(out->morsels));
        if (b->ctx->pool != NULL && use->n_files > 0)
            SILT_RETURN_IF_ERROR(delta_morsels_new(b, store, use, &so, src, out, err));
    }
    if (src->named != NULL) {
        SILT_RETURN_IF_ERROR(sql_scope_from_schema(b->a, src->named, qual, &out->scope, err));
        out->scope.cols[out->scope.n - 1].hidden = 1;
        return SILT_OK;
    }
    return sql_scope_from_schema(b->a, delta_scan_schema(src->scan), qual, &out->scope, err);
}

/* ---------------------------------------------------------------- Parquet */

typedef struct pq_src {
    io_store *store;
    sql_files *files; /* the keys, their partition values and what the scan adds */
    int first_read;   /* first is keys[0] (pruning may have dropped the schema's file) */
    const char *const *keys;
    size_t n_keys, next_key;
    pq_file *first;  /* kept open: the schema lives in it */
    pq_file *file;   /* the file being read when not the first */
    pq_reader *reader;
    const col_type *schema;
    const dscan_counters *morsels; /* the morsels' counts, when the source has morsels */
    size_t n_preds;
    dscan_filter filter;     /* the pushed conjuncts (sql_pushdown_preds) on the files' leaves */
    dscan_counters counters; /* of the readers finished */
    const char **cols; /* projection, NULL = all */
    size_t n_cols;
    const col_type *file_schema;
} pq_src;

static void free_pq_src(void *p)
{
    pq_src *src = p;
    pq_reader_free(src->reader);
    pq_file_free(src->file);
    pq_file_free(src->first);
}

static silt_status pq_open_next(pq_src *src, silt_error *err)
{
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    size_t key_idx = src->next_key++;
    const char *key = src->keys[key_idx];
    pq_file *file = src->first;
    delta_scan_counters_add_reader(&src->counters, src->reader);
    pq_reader_free(src->reader);
    src->reader = NULL;
    pq_file_free(src->file);
    src->file = NULL;
    if (key_idx > 0 || !src->first_read) {
        SILT_RETURN_IF_ERROR(pq_file_open(&src->file, src->store, key, err));
        file = src->file;
        if (!col_type_equal(pq_file_schema(file), src->file_schema))
            return err_set(err, SILT_BIND, "Parquet file \"%s\" has a schema different from "
                           "the first file's; merging schemas is not supported yet", key);
    }
    src->counters.files++;
    sql_scan_set_filters(&opts, &src->filter);
    opts.columns = src->cols;
    opts.n_columns = src->n_cols;
    return pq_reader_open(&src->reader, file, &opts, err);
}

static silt_status pq_next(void *payload, arena *batch_arena, col_batch **out, silt_error *err)
{
    pq_src *src = payload;
    for (;;) {
        if (src->reader != NULL) {
            SILT_RETURN_IF_ERROR(pq_reader_next(src->reader, batch_arena, out, err));
            if (*out != NULL && src->files->adds)
                return sql_files_assemble(src->files, src->next_key - 1, *out, batch_arena, out,
                                          err);
            if (*out != NULL)
                return SILT_OK;
        }
        if (src->next_key >= src->n_keys) {
            *out = NULL;
            return SILT_OK;
        }
        SILT_RETURN_IF_ERROR(pq_open_next(src, err));
    }
}

/*
 * Morsels of a Parquet source: its files cut into scan units
 * (source_int.h). Every file is opened once (footers read at plan time); a
 * morsel's reader is opened on the shared pq_file, which supports several
 * readers over one file. Morsels follow the files' row order, so the
 * serial replay of the morsels reads the rows as a plain scan does.
 */
typedef struct pq_morsels {
    pq_src *src;
    pq_file **files;
    size_t n_files;
    scan_unit *units;
    size_t n;
    pq_reader **readers;
    dscan_counters counters; /* of the morsels finished */
} pq_morsels;

static void free_pq_morsels(void *p)
{
    pq_morsels *m = p;
    size_t idx;
    for (idx = 0; m->readers != NULL && idx < m->n; idx++)
        pq_reader_free(m->readers[idx]);
    for (idx = m->src->first_read; idx < m->n_files; idx++) /* files[0] may be the source's first */
        pq_file_free(m->files[idx]);
}

static void pq_morsel_done(pq_morsels *m, size_t morsel_idx)
{
    dscan_counters c;
    memset(&c, 0, sizeof(c));
    /* A file is counted once, by the unit holding its first row. */
    c.files = m->units[morsel_idx].span.first_row_group == 0 &&
              m->units[morsel_idx].span.first_row == 0;
    delta_scan_counters_add_reader(&c, m->readers[morsel_idx]);
    sql_scan_counters_merge(&m->counters, &c);
    pq_reader_free(m->readers[morsel_idx]);
    m->readers[morsel_idx] = NULL;
}

static silt_status pq_morsel_next(void *payload, size_t morsel_idx, size_t *cursor,
                                  arena *batch_arena, col_batch **out, silt_error *err)
{
    pq_morsels *m = payload;
    if (*cursor == 0) {
        pq_read_options opts = PQ_READ_OPTIONS_INIT;
        const scan_unit *u = &m->units[morsel_idx];
        *cursor = 1;
        opts.columns = m->src->cols;
        opts.n_columns = m->src->n_cols;
        sql_scan_set_filters(&opts, &m->src->filter);
        opts.first_row_group = u->span.first_row_group;
        opts.n_row_groups = u->span.n_row_groups;
        opts.first_row = u->span.first_row;
        opts.n_rows = u->span.n_rows;
        /* A morsel may be read again from its start (a spilling rerun): drop the old reader. */
        pq_reader_free(m->readers[morsel_idx]);
        m->readers[morsel_idx] = NULL;
        SILT_RETURN_IF_ERROR(pq_reader_open(&m->readers[morsel_idx], m->files[u->file_idx],
                                            &opts, err));
    }
    SILT_RETURN_IF_ERROR(pq_reader_next(m->readers[morsel_idx], batch_arena, out, err));
    if (*out == NULL)
        pq_morsel_done(m, morsel_idx);
    else if (m->src->files->adds)
        return sql_files_assemble(m->src->files, m->units[morsel_idx].file_idx, *out, batch_arena,
                                  out, err);
    return SILT_OK;
}

static silt_status pq_morsels_new(binder *b, pq_src *src, plan *out, silt_error *err)
{
    pq_morsels *m = arena_calloc(b->a, 1, sizeof(*m));
    size_t idx, n_split = 0;
    if (m == NULL)
        return err_nomem(err);
    m->src = src;
    m->files = arena_calloc(b->a, src->n_keys, sizeof(pq_file *));
    if (m->files == NULL)
        return err_nomem(err);
    if (src->first_read)
        m->files[0] = src->first;
    SILT_RETURN_IF_ERROR(on_cleanup(b, free_pq_morsels, m, err));
    for (idx = 0; idx < src->n_keys; idx++) {
        if (idx > 0 || !src->first_read) {
            SILT_RETURN_IF_ERROR(pq_file_open(&m->files[idx], src->store, src->keys[idx], err));
            m->n_files = idx + 1;
            if (!col_type_equal(pq_file_schema(m->files[idx]), src->file_schema))
                return err_set(err, SILT_BIND, "Parquet file \"%s\" has a schema different from "
                               "the first file's; merging schemas is not supported yet",
                               src->keys[idx]);
        }
        m->n_files = idx + 1;
    }
    SILT_RETURN_IF_ERROR(sql_scan_units_split(b->a, tpool_width(b->ctx->pool), m->files, m->n_files,
                                          src->cols, src->n_cols, &m->units, &m->n, &n_split,
                                          err));
    m->readers = arena_calloc(b->a, m->n + 1, sizeof(pq_reader *));
    if (m->readers == NULL)
        return err_nomem(err);
    src->morsels = &m->counters;
    if (n_split > 0)
        sql_bind_note(b, "ParquetScan morsels: %zu (%zu row group%s split into row ranges)", m->n,
                  n_split, n_split == 1 ? "" : "s");
    out->morsels.top = out->op;
    out->morsels.fn = pq_morsel_next;
    out->morsels.payload = m;
    out->morsels.n = m->n;
    out->morsels.schema = out->op->schema;
    out->morsels.filter = NULL;
    return SILT_OK;
}

static silt_status open_parquet(binder *b, const char *path, const char **kv, size_t n_kv,
                                const pushdown *pd, plan *out, const char *qual, silt_error *err)
{
    pq_src *src = arena_calloc(b->a, 1, sizeof(*src));
    const char **rest;
    size_t n_rest;
    dpred *preds;
    if (src == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(sql_files_open(b, path, kv, n_kv, &rest, &n_rest, &src->files, err));
    SILT_RETURN_IF_ERROR(sql_source_parquet_options(rest, n_rest, err));
    src->store = src->files->store;
    SILT_RETURN_IF_ERROR(on_cleanup(b, free_pq_src, src, err));
    SILT_RETURN_IF_ERROR(pq_file_open(&src->first, src->store, src->files->keys[0], err));
    src->file_schema = pq_file_schema(src->first);
    SILT_RETURN_IF_ERROR(sql_files_layout(b, src->files, "ParquetScan", src->file_schema, pd,
                                          &src->cols, &src->n_cols, &preds, &src->n_preds, err));
    src->keys = src->files->keys;
    src->n_keys = src->files->n_keys;
    src->first_read = src->n_keys > 0 && src->keys[0] == src->files->found.keys[0];
    if (!src->files->adds)
        src->cols = sql_source_projected(b, pd, src->file_schema, &src->n_cols);
    src->schema = src->file_schema;
    if (src->cols != NULL) {
        col_field *fields = arena_calloc(b->a, src->n_cols, sizeof(col_field));
        size_t idx, k = 0;
        if (fields == NULL)
            return err_nomem(err);
        for (idx = 0; idx < src->file_schema->n_fields && k < src->n_cols; idx++)
            if (src->file_schema->fields[idx].name == src->cols[k])
                fields[k++] = src->file_schema->fields[idx];
        src->schema = col_type_struct(b->a, k, fields);
        if (src->schema == NULL)
            return err_nomem(err);
    }
    src->filter.preds = preds;
    src->filter.n_preds = src->n_preds;
    if (src->n_preds > 0) {
        const char **leaves = arena_calloc(b->a, src->n_preds, sizeof(char *));
        size_t p;
        if (leaves == NULL)
            return err_nomem(err);
        for (p = 0; p < src->n_preds; p++)
            leaves[p] = preds[p].column; /* plain files: the column is the leaf */
        src->filter.leaves = leaves;
    }
    sql_bind_note(b, "ParquetScan parquet.`%s`: %zu file%s", path, src->n_keys,
              src->n_keys == 1 ? "" : "s");
    note_pushed(b, "ParquetScan", preds, src->n_preds);
    SILT_RETURN_IF_ERROR(engine_op_scan(&out->op, b->ctx,
                                        src->files->adds ? src->files->schema : src->schema,
                                        pq_next, src, err));
    engine_op_set_note(out->op, sql_source_parquet_note, src);
    memset(&out->morsels, 0, sizeof(out->morsels));
    if (b->ctx->pool != NULL && src->n_keys > 0)
        SILT_RETURN_IF_ERROR(pq_morsels_new(b, src, out, err));
    if (src->files->adds)
        return sql_files_scope(b, src->files, qual, &out->scope, err);
    return sql_scope_from_schema(b->a, src->schema, qual, &out->scope, err);
}

/* ---------------------------------------------------------------- run-time notes */

static silt_status counters_note(dscan_counters c, const dscan_counters *morsels, buf *out,
                                 silt_error *err)
{
    if (morsels != NULL) {
        c.files += morsels->files;
        c.row_groups_read += morsels->row_groups_read;
        c.row_groups_skipped += morsels->row_groups_skipped;
        c.pages_read += morsels->pages_read;
        c.pages_skipped += morsels->pages_skipped;
    }
    return delta_scan_counters_note(&c, out, err);
}

/*
 * The run-time notes of a Delta scan (payload: the delta_src of its scan
 * operator), of the engine_op_note_fn shape: what its serial scan and its
 * morsels read, one line.
 */
silt_status sql_source_delta_note(const engine_op *op, void *payload, buf *out, silt_error *err)
{
    const delta_src *src = payload;
    dscan_counters c;
    (void)op;
    delta_scan_get_counters(src->scan, &c);
    return counters_note(c, src->morsels, out, err);
}

/* The same for a Parquet source (payload: its pq_src). */
silt_status sql_source_parquet_note(const engine_op *op, void *payload, buf *out, silt_error *err)
{
    const pq_src *src = payload;
    dscan_counters c = src->counters;
    (void)op;
    delta_scan_counters_add_reader(&c, src->reader);
    return counters_note(c, src->morsels, out, err);
}

/* ---------------------------------------------------------------- CSV / JSON */

typedef struct text_src {
    csv_scan *csv;
    json_scan *json;
    sql_files *files; /* partition values and the file name, when the scan adds them */
    int empty;        /* partition pruning kept no file */
    /* The columns the query reads, when the CSV reader was told to skip the others. */
    const col_type *schema;
    size_t *pick;
} text_src;

static silt_status text_next(void *payload, arena *batch_arena, col_batch **out, silt_error *err)
{
    text_src *src = payload;
    col_batch *batch = arena_calloc(batch_arena, 1, sizeof(col_batch));
    if (batch == NULL)
        return err_nomem(err);
    if (src->empty) {
        *out = NULL;
        return SILT_OK;
    }
    if (src->csv != NULL)
        SILT_RETURN_IF_ERROR(csv_scan_next(src->csv, batch_arena, batch, err));
    else
        SILT_RETURN_IF_ERROR(json_scan_next(src->json, batch_arena, batch, err));
    if (src->files != NULL && batch->n_rows > 0) {
        size_t key = src->csv != NULL ? csv_scan_batch_key(src->csv)
                                      : json_scan_batch_key(src->json);
        return sql_files_assemble(src->files, key, batch, batch_arena, out, err);
    }
    if (src->pick != NULL && batch->n_rows > 0) {
        col_vec **cols = arena_calloc(batch_arena, src->schema->n_fields + 1, sizeof(col_vec *));
        if (cols == NULL)
            return err_nomem(err);
        for (size_t idx = 0; idx < src->schema->n_fields; idx++)
            cols[idx] = batch->cols[src->pick[idx]];
        batch->cols = cols;
        batch->n_cols = src->schema->n_fields;
        batch->schema = src->schema;
    }
    *out = batch->n_rows > 0 ? batch : NULL;
    return SILT_OK;
}

/*
 * The CSV scan's columns the query reads (pd), as a schema and the index
 * of each in the scan's: the scope then names only those, so a column the
 * pushdown missed is an unknown column, never a column of nulls.
 */
static silt_status project_text(binder *b, text_src *src, const pushdown *pd,
                                const col_type **schema, silt_error *err)
{
    size_t n = 0, idx, k = 0;
    const char **names = sql_source_projected(b, pd, *schema, &n);
    col_field *fields;
    if (names == NULL)
        return SILT_OK;
    fields = arena_calloc(b->a, n, sizeof(col_field));
    src->pick = arena_calloc(b->a, n, sizeof(size_t));
    if (fields == NULL || src->pick == NULL)
        return err_nomem(err);
    for (idx = 0; idx < (*schema)->n_fields && k < n; idx++)
        if ((*schema)->fields[idx].name == names[k]) {
            fields[k] = (*schema)->fields[idx];
            src->pick[k++] = idx;
        }
    src->schema = col_type_struct(b->a, n, fields);
    if (src->schema == NULL)
        return err_nomem(err);
    *schema = src->schema;
    return SILT_OK;
}

/*
 * A schema written as Spark's DDL string ('a INT, b STRING'), as the schema
 * option of read_files and of a text view takes it: the column list of a
 * CREATE TABLE, parsed by the same grammar.
 */
silt_status sql_source_ddl_schema(binder *b, const char *ddl, const col_type **out,
                                  silt_error *err)
{
    return sql_parse_ddl_schema(b->a, ddl, out, err);
}

silt_status sql_parse_ddl_schema(arena *a, const char *ddl, const col_type **out,
                                 silt_error *err)
{
    const char *text = arena_sprintf(a, "CREATE TABLE t (%s) USING delta", ddl);
    sql_stmt_list *stmts;
    const sql_column_list *cols;
    col_field *fields;
    size_t idx;
    if (text == NULL)
        return err_nomem(err);
    if (sql_parse(a, text, &stmts, err) != SILT_OK || stmts->n != 1 ||
        stmts->items[0]->kind != SQL_STMT_CREATE_TABLE) {
        err_clear(err);
        return err_set(err, SILT_PARSE, "[PARSE_SYNTAX_ERROR] the schema \"%s\" is not a "
                       "list of columns such as 'a INT, b STRING'", ddl);
    }
    cols = &stmts->items[0]->u.create_table.columns;
    fields = arena_calloc(a, cols->n + 1, sizeof(col_field));
    if (fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < cols->n; idx++) {
        fields[idx].name = cols->items[idx].name.name;
        fields[idx].type = cols->items[idx].type.type;
        fields[idx].nullable = !cols->items[idx].not_null;
        fields[idx].field_id = -1;
    }
    *out = col_type_struct(a, cols->n, fields);
    return *out != NULL ? SILT_OK : err_nomem(err);
}

/*
 * Opens the scan of src again over the files partition pruning kept, with
 * the schema inferred over all of them (as Spark infers it before pruning).
 */
static silt_status text_scan_reopen(binder *b, int is_csv, text_src *src, io_store *store,
                                    const sql_files *files, const char **kv, size_t n_kv,
                                    const col_type *given, const char *const *read_cols,
                                    size_t n_read_cols, silt_error *err)
{
    const col_type *schema = is_csv ? csv_scan_schema(src->csv) : json_scan_schema(src->json);
    if (given == NULL && (schema = col_type_copy(b->a, schema)) == NULL)
        return err_nomem(err);
    if (given != NULL)
        schema = given;
    if (is_csv) {
        SILT_RETURN_IF_ERROR(csv_scan_open_keys(&src->csv, store, files->keys, files->n_keys, kv,
                                                n_kv / 2, schema, read_cols, n_read_cols,
                                                b->s->pool, err));
        return on_cleanup(b, free_csv, src->csv, err);
    }
    SILT_RETURN_IF_ERROR(json_scan_open_keys(&src->json, store, files->keys, files->n_keys, kv,
                                             n_kv / 2, schema, b->s->pool, err));
    return on_cleanup(b, free_json, src->json, err);
}

static silt_status open_text(binder *b, int is_csv, const char *path, const char **kv,
                             size_t n_kv, const pushdown *pd, plan *out, const char *qual,
                             silt_error *err)
{
    /* The CSV reader skips the columns the query never names (csv_options.read_columns);
     * count(*) names none, and NULL would mean all. */
    static const char *const no_columns[1] = {NULL};
    const char *const *read_cols = NULL;
    size_t n_read_cols = 0;
    if (pd != NULL && !pd->all_cols) {
        read_cols = pd->n_cols > 0 ? pd->cols : no_columns;
        n_read_cols = pd->n_cols;
    }
    text_src *src = arena_calloc(b->a, 1, sizeof(*src));
    const char **opts = arena_calloc(b->a, n_kv + 3, sizeof(char *));
    size_t n_opts = 0, idx;
    io_store *store;
    const col_type *schema;
    sql_files *files;
    const char **rest;
    size_t n_rest;
    if (src == NULL || opts == NULL)
        return err_nomem(err);
    const col_type *given = NULL;
    /* `path` is the view's, not the reader's; `schema` is Spark's DataFrameReader.schema. */
    for (idx = 0; idx + 1 < n_kv; idx += 2) {
        if (util_str_casecmp(kv[idx], "path") == 0)
            continue;
        if (util_str_casecmp(kv[idx], "schema") == 0) {
            SILT_RETURN_IF_ERROR(sql_source_ddl_schema(b, kv[idx + 1], &given, err));
            continue;
        }
        opts[n_opts++] = kv[idx];
        opts[n_opts++] = kv[idx + 1];
    }
    /* Spark's readers read timestamps without a zone in the session time zone unless told */
    for (idx = 0; idx < n_opts && util_str_casecmp(opts[idx], "timeZone") != 0; idx += 2)
        ;
    if (idx >= n_opts) {
        opts[n_opts++] = "timeZone";
        opts[n_opts++] = time_zone_id(b->ctx->zone);
    }
    kv = opts;
    n_kv = n_opts;
    SILT_RETURN_IF_ERROR(sql_files_open(b, path, kv, n_kv, &rest, &n_rest, &files, err));
    store = files->store;
    if (is_csv) {
        SILT_RETURN_IF_ERROR(csv_scan_open_keys(&src->csv, store, (const char *const *)files->found.keys,
                                                files->found.n_keys, rest, n_rest / 2, given,
                                                read_cols, n_read_cols, b->s->pool, err));
        SILT_RETURN_IF_ERROR(on_cleanup(b, free_csv, src->csv, err));
        schema = csv_scan_schema(src->csv);
    } else {
        SILT_RETURN_IF_ERROR(json_scan_open_keys(&src->json, store, (const char *const *)files->found.keys,
                                                 files->found.n_keys, rest, n_rest / 2, given,
                                                 b->s->pool, err));
        SILT_RETURN_IF_ERROR(on_cleanup(b, free_json, src->json, err));
        schema = json_scan_schema(src->json);
    }
    {
        const char **cols;
        size_t n_cols, n_preds;
        dpred *preds;
        SILT_RETURN_IF_ERROR(sql_files_layout(b, files, is_csv ? "CsvScan" : "JsonScan", schema,
                                              pd, &cols, &n_cols, &preds, &n_preds, err));
        if (files->adds) {
            if (files->n_keys < files->found.n_keys && files->n_keys > 0)
                SILT_RETURN_IF_ERROR(text_scan_reopen(b, is_csv, src, store, files, rest, n_rest,
                                                      given, read_cols, n_read_cols, err));
            if (files->n_keys == 0)
                src->empty = 1;
            src->files = files;
            schema = files->schema;
            /* the CSV reader's own projection picks by the data schema, not the output */
            sql_files_reindex(files, is_csv ? csv_scan_schema(src->csv)
                                            : json_scan_schema(src->json));
        } else if (is_csv && read_cols != NULL) {
            SILT_RETURN_IF_ERROR(project_text(b, src, pd, &schema, err));
        }
    }
    sql_bind_note(b, "%sScan %s.`%s`", is_csv ? "Csv" : "Json", is_csv ? "csv" : "json", path);
    SILT_RETURN_IF_ERROR(engine_op_scan(&out->op, b->ctx, schema, text_next, src, err));
    if (files->adds)
        return sql_files_scope(b, files, qual, &out->scope, err);
    return sql_scope_from_schema(b->a, schema, qual, &out->scope, err);
}

static silt_status view_source(binder *b, const sql_view *v, const sql_table_ref *ref,
                               const pushdown *pd, plan *out, silt_error *err);

/*
 * A view of the catalog: its text bound again in the namespace it was made
 * in (Spark's "View Catalog and Namespace"), its columns renamed to the names
 * it was created with.
 */
static silt_status catalog_view_source(binder *b, const cat_table *t, const sql_table_ref *ref,
                                       const pushdown *pd, plan *out, silt_error *err)
{
    sql_view v;
    const char **names;
    const char *ns;
    char *saved_db = b->s->database;
    size_t n, idx;
    silt_status rc;
    if (ref->u.named.at.version != NULL || ref->u.named.at.timestamp != NULL ||
        ref->u.named.at.ref != NULL)
        return sql_bind_error(b, err, ref->pos, SILT_BIND, "[UNSUPPORTED_FEATURE.TIME_TRAVEL] "
                              "Time travel on the view `spark_catalog`.`%s`.`%s`", t->database,
                              t->name);
    memset(&v, 0, sizeof(v));
    v.name = arena_strdup(b->a, t->name);
    v.query_text = t->view_text ? arena_strdup(b->a, t->view_text) : NULL;
    if (v.name == NULL || v.query_text == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(sql_exec_view_columns(b, t, &names, &n, &ns, err));
    b->s->database = arena_strdup(b->a, ns);
    if (b->s->database == NULL) {
        b->s->database = saved_db;
        return err_nomem(err);
    }
    rc = view_source(b, &v, ref, pd, out, err);
    b->s->database = saved_db;
    SILT_RETURN_IF_ERROR(rc);
    if (n > 0 && n != out->scope.n)
        return sql_bind_error(b, err, ref->pos, SILT_BIND, "[INCOMPATIBLE_VIEW_SCHEMA_CHANGE] The "
                              "SQL query of view `spark_catalog`.`%s`.`%s` now gives %zu columns "
                              "where it was created with %zu", t->database, t->name,
                              out->scope.n, n);
    for (idx = 0; idx < n; idx++)
        out->scope.cols[idx].name = names[idx];
    if (ref->alias.name != NULL)
        for (idx = 0; idx < out->scope.n; idx++)
            out->scope.cols[idx].qual = ref->alias.name;
    return SILT_OK;
}

/* ---------------------------------------------------------------- dispatch */

static int is_format(const char *name)
{
    return util_str_casecmp(name, "delta") == 0 || util_str_casecmp(name, "parquet") == 0 ||
           util_str_casecmp(name, "csv") == 0 || util_str_casecmp(name, "json") == 0;
}

/* Says where a source that failed to open is named in the statement, as binder errors do. */
static silt_status source_context(binder *b, silt_status rc, const char *format, const char *path,
                                  uint32_t pos, silt_error *err)
{
    int line = 1, col = 1;
    if (rc == SILT_OK || rc == SILT_NOMEM || err == NULL)
        return rc;
    if (b->text != NULL && pos <= b->text_len)
        sql_line_col_memo(b->line_memo, b->text, b->text_len, pos, &line, &col);
    if (strstr(err->context, path) == NULL)
        err_context(err, "while opening %s source \"%s\" (line %d, column %d)", format, path,
                    line, col);
    else
        err_context(err, "in the %s source at line %d, column %d", format, line, col);
    return rc;
}

silt_status sql_source_path(binder *b, const char *format, const char *path, const char **kv,
                        size_t n_kv, const pushdown *pd, int64_t version, int64_t ts_micros,
                        plan *out, uint32_t pos, silt_error *err)
{
    const char *qual = pd != NULL ? pd->qual : NULL;
    silt_status rc;
    path = io_location_local_path(path); /* file:/p and file:///p, as Spark takes them */
    if (util_str_casecmp(format, "delta") == 0) {
        sql_cdf_read cdf;
        rc = sql_source_delta_options(kv, n_kv, &version, &ts_micros, &cdf, err);
        if (rc == SILT_OK && cdf.on) {
            delta_cdf_bound start, end;
            rc = sql_source_cdf_bounds(b, &cdf, &start, &end, err);
            if (rc == SILT_OK)
                rc = sql_source_cdf(b, path, &start, &end, out, qual, err);
        } else if (rc == SILT_OK) {
            rc = open_delta(b, path, NULL, "", version, ts_micros, pd, out, qual, err);
        }
    }
    else if (version >= 0 || ts_micros != INT64_MIN)
        return sql_bind_error(b, err, pos, SILT_BIND,
                          "time travel (VERSION/TIMESTAMP AS OF) needs a Delta table");
    else if (util_str_casecmp(format, "parquet") == 0) {
        rc = open_parquet(b, path, kv, n_kv, pd, out, qual, err);
    }
    else if (util_str_casecmp(format, "csv") == 0)
        rc = open_text(b, 1, path, kv, n_kv, pd, out, qual, err);
    else if (util_str_casecmp(format, "json") == 0)
        rc = open_text(b, 0, path, kv, n_kv, pd, out, qual, err);
    else
        return sql_bind_error(b, err, pos, SILT_UNSUPPORTED,
                          "[UNSUPPORTED_DATASOURCE] data source \"%s\" is not supported", format);
    return source_context(b, rc, format, path, pos, err);
}

/* Delta's @yyyyMMddHHmmssSSS suffix of a path: a UTC timestamp to the millisecond. */
static silt_status ref_timestamp(binder *b, const char *digits, int64_t *ts, silt_error *err)
{
    char text[32];
    int has_zone;
    (void)b;
    snprintf(text, sizeof(text), "%.4s-%.2s-%.2s %.2s:%.2s:%.2s.%.3s", digits, digits + 4,
             digits + 6, digits + 8, digits + 10, digits + 12, digits + 14);
    if (!time_parse_timestamp(text, strlen(text), ts, &has_zone))
        return err_set(err, SILT_BIND, "[INVALID_TIME_TRAVEL_TIMESTAMP_EXPR] \"@%s\" is not "
                       "a timestamp in the form yyyyMMddHHmmssSSS", digits);
    return SILT_OK;
}

/* VERSION AS OF n / TIMESTAMP AS OF '...' / t@v<n>. */
static silt_status time_travel(binder *b, const sql_table_version *at, int64_t *version,
                               int64_t *ts, silt_error *err)
{
    *version = -1;
    *ts = INT64_MIN;
    if (at->version != NULL) {
        const sql_expr *v = at->version;
        if (v->kind != SQL_EXPR_LITERAL ||
            (v->u.lit.kind != SQL_LIT_INT && v->u.lit.kind != SQL_LIT_LONG) || v->u.lit.i64 < 0)
            return sql_bind_error(b, err, v->pos, SILT_BIND,
                              "[INVALID_TIME_TRAVEL_SPEC] VERSION AS OF needs a non-negative "
                              "integer");
        *version = v->u.lit.i64;
    }
    if (at->timestamp != NULL) {
        const sql_expr *t = at->timestamp;
        int has_zone;
        if (t->kind == SQL_EXPR_LITERAL && t->u.lit.kind == SQL_LIT_STRING &&
            time_parse_timestamp(t->u.lit.str, t->u.lit.str_len, ts, &has_zone)) {
            /* Spark reads the text in the session time zone */
            if (b->ctx != NULL)
                time_string_to_timestamp(t->u.lit.str, t->u.lit.str_len, b->ctx->zone,
                                         b->ctx->now_micros, ts);
            return SILT_OK;
        }
        if (t->kind == SQL_EXPR_LITERAL && t->u.lit.kind == SQL_LIT_TIMESTAMP) {
            *ts = t->u.lit.i64;
            if (t->u.lit.str != NULL && b->ctx != NULL)
                time_string_to_timestamp(t->u.lit.str, t->u.lit.str_len, b->ctx->zone,
                                         b->ctx->now_micros, ts);
            return SILT_OK;
        }
        if (t->kind == SQL_EXPR_LITERAL && t->u.lit.kind == SQL_LIT_DATE) {
            *ts = t->u.lit.i64 * 86400000000LL;
            return SILT_OK;
        }
        return sql_bind_error(b, err, t->pos, SILT_BIND,
                          "[INVALID_TIME_TRAVEL_TIMESTAMP_EXPR] TIMESTAMP AS OF needs a "
                          "timestamp literal such as '2024-01-01 00:00:00'");
    }
    if (at->ref != NULL) {
        int64_t v;
        if ((at->ref[0] == 'v' || at->ref[0] == 'V') &&
            util_str_to_int64(at->ref + 1, strlen(at->ref + 1), &v) && v >= 0) {
            *version = v;
            return SILT_OK;
        }
        if (strlen(at->ref) == 17 && util_str_to_int64(at->ref, 17, &v))
            return ref_timestamp(b, at->ref, ts, err);
        /* a branch or tag: catalog_location reads the table on it */
    }
    return SILT_OK;
}

/* The branch or tag an @ref names (t@etl, `t@etl#1a2b3c4d`); NULL for none or time travel. */
static const char *branch_ref(const sql_table_version *at)
{
    int64_t v;
    if (at->ref == NULL)
        return NULL;
    if ((at->ref[0] == 'v' || at->ref[0] == 'V') &&
        util_str_to_int64(at->ref + 1, strlen(at->ref + 1), &v) && v >= 0)
        return NULL;
    if (strlen(at->ref) == 17 && util_str_to_int64(at->ref, 17, &v))
        return NULL;
    return at->ref;
}

static silt_status not_catalog_ref(binder *b, const sql_table_ref *ref, silt_error *err)
{
    return sql_bind_error(b, err, ref->pos, SILT_BIND, "a branch or tag reference (@%s) names a "
                          "table of the warehouse's catalog, not a path, a file source or a "
                          "temporary view", ref->u.named.at.ref);
}

static silt_status view_source(binder *b, const sql_view *v, const sql_table_ref *ref,
                               const pushdown *pd, plan *out, silt_error *err)
{
    pushdown vpd;
    if (v->format != NULL) {
        const char *path = NULL;
        size_t idx;
        for (idx = 0; idx + 1 < v->n_options * 2; idx += 2)
            if (util_str_casecmp(v->options[idx], "path") == 0)
                path = v->options[idx + 1];
        if (path == NULL)
            return sql_bind_error(b, err, ref->pos, SILT_BIND,
                              "temporary view \"%s\" has no path option", v->name);
        if (pd != NULL) {
            vpd = *pd;
            if (vpd.qual == NULL)
                vpd.qual = v->name;
            pd = &vpd;
        }
        return sql_source_path(b, v->format, path, v->options, v->n_options * 2, pd, -1, INT64_MIN,
                           out, ref->pos, err);
    }
    {
        sql_stmt_list *stmts;
        const char *saved_text = b->text;
        size_t saved_len = b->text_len;
        bind_cte *saved_ctes = b->ctes;
        view_frame frame = {v->name, b->views}, *f;
        silt_status rc;
        for (f = b->views; f != NULL; f = f->next)
            if (util_str_casecmp(f->name, v->name) == 0)
                return sql_bind_error(b, err, ref->pos, SILT_BIND,
                                  "[RECURSIVE_VIEW] Recursive view `%s` detected", v->name);
        rc = sql_parse(b->a, v->query_text, &stmts, err);
        if (rc == SILT_OK && (stmts->n != 1 || stmts->items[0]->kind != SQL_STMT_QUERY))
            rc = err_set(err, SILT_CORRUPT, "view \"%s\" does not hold a query", v->name);
        if (rc == SILT_OK) {
            b->text = v->query_text;
            b->text_len = strlen(v->query_text);
            b->ctes = NULL;
            b->views = &frame;
            /* As a FROM subquery: a star in the view reads what the outer block names. */
            b->derived_want = pd != NULL && !pd->all_cols ? pd : NULL;
            rc = sql_plan_query(b, stmts->items[0]->u.query, out, err);
            b->derived_want = NULL;
            b->views = frame.next;
            b->text = saved_text;
            b->text_len = saved_len;
            b->ctes = saved_ctes;
        }
        if (rc != SILT_OK)
            return err_context(err, "while expanding view \"%s\"", v->name);
    }
    {
        size_t idx;
        for (idx = 0; idx < out->scope.n; idx++)
            out->scope.cols[idx].qual = v->name;
    }
    return SILT_OK;
}

static const sql_view *find_view(const sql_session *s, const char *name)
{
    const sql_view *v;
    for (v = s->views; v != NULL; v = v->next)
        if (util_str_casecmp(v->name, name) == 0)
            return v;
    return NULL;
}

static void free_cat_state(void *p) { catalog_state_free(p); }

/* Keeps a state for the rest of the statement (freed with the binder's arena). */
static silt_status keep_pin(binder *b, cat_state *state, cat_state **slot, silt_error *err)
{
    /* the execution's arena: a kept plan's arena outlives many executions */
    if (arena_on_cleanup(b->exec_a != NULL ? b->exec_a : b->a, free_cat_state, state) == 0) {
        catalog_state_free(state);
        return err_nomem(err);
    }
    *slot = state;
    return SILT_OK;
}

/*
 * The catalog state a table of this statement is resolved on: the session's
 * reference (ref NULL) or main's head are loaded once per statement and kept
 * (*owned 0), so a merge published while the statement binds is seen by all
 * of its tables or by none; any other reference is loaded now (*owned 1).
 */
static silt_status statement_state(binder *b, const char *ref, const char *hash,
                                   cat_state **out, int *owned, silt_error *err)
{
    int session_main = strcmp(catalog_current_ref(b->s->cat), CATALOG_MAIN) == 0 &&
                       catalog_current_hash(b->s->cat) == NULL;
    *owned = 0;
    if (ref == NULL || (hash == NULL && strcmp(ref, CATALOG_MAIN) == 0 && session_main)) {
        if (b->cat_pin == NULL) {
            cat_state *state = NULL;
            SILT_RETURN_IF_ERROR(catalog_load(b->s->cat, &state, err));
            SILT_RETURN_IF_ERROR(keep_pin(b, state, &b->cat_pin, err));
        }
        *out = b->cat_pin;
        return SILT_OK;
    }
    if (hash == NULL && strcmp(ref, CATALOG_MAIN) == 0) {
        if (b->main_pin == NULL) {
            cat_state *state = NULL;
            SILT_RETURN_IF_ERROR(catalog_load_ref(b->s->cat, CATALOG_MAIN, NULL, &state, err));
            SILT_RETURN_IF_ERROR(keep_pin(b, state, &b->main_pin, err));
        }
        *out = b->main_pin;
        return SILT_OK;
    }
    *owned = 1;
    return catalog_load_ref(b->s->cat, ref, hash, out, err);
}

/*
 * The catalog table ref names (one or two parts): its location (under the
 * warehouse when relative) and provider (NULL: delta); *found 0 when the
 * catalog has no table of that name (views included). A table of main read
 * on the statement's pinned state is noted for delta_snapshot_of's cap.
 */
static silt_status catalog_location(binder *b, const sql_table_ref *ref, const char **location,
                                    const char **provider, const char ***kv_out, size_t *n_kv,
                                    int *found, const struct delta_branch_view **view,
                                    const char **view_key, silt_error *err)
{
    const sql_name *n = &ref->u.named.name;
    const char *db = n->n_parts == 2 ? n->parts[0].name : b->s->database;
    const char *at_ref = branch_ref(&ref->u.named.at);
    cat_state *state = NULL;
    const cat_table *t;
    silt_status rc;
    int head, owned;
    *found = 0;
    *view = NULL;
    *view_key = "";
    if (b->s->cat == NULL || n->n_parts > 2)
        return SILT_OK;
    if (at_ref != NULL) {
        /* t@ref or t@ref#hash: the table on that reference, whatever the session uses */
        const char *hash = strchr(at_ref, '#');
        char *name = arena_strndup(b->a, at_ref, hash ? (size_t)(hash - at_ref) : strlen(at_ref));
        if (name == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(statement_state(b, name, hash ? hash + 1 : NULL, &state, &owned,
                                             err));
        head = hash == NULL;
    } else {
        SILT_RETURN_IF_ERROR(statement_state(b, NULL, NULL, &state, &owned, err));
        head = catalog_current_hash(b->s->cat) == NULL;
    }
    t = catalog_state_find_table(state, db, n->parts[n->n_parts - 1].name);
    if (t == NULL || t->kind == CAT_VIEW) {
        if (owned)
            catalog_state_free(state);
        return SILT_OK;
    }
    *found = 1;
    *provider = t->provider ? arena_strdup(b->a, t->provider) : NULL;
    /* a file table's reader options (CSV of a T-SQL external table: docs/serverless.md) */
    *kv_out = arena_calloc(b->a, 2 * t->n_properties + 1, sizeof(char *));
    if (*kv_out == NULL) {
        if (owned)
            catalog_state_free(state);
        return err_nomem(err);
    }
    *n_kv = 0;
    for (size_t idx = 0; idx < t->n_properties; idx++) {
        if (strncmp(t->properties[idx].key, "option.", 7) != 0)
            continue;
        (*kv_out)[(*n_kv)++] = arena_strdup(b->a, t->properties[idx].key + 7);
        (*kv_out)[(*n_kv)++] = arena_strdup(b->a, t->properties[idx].value);
    }
    *location = catalog_location_path(b->a, io_store_root(b->s->warehouse), t->location);
    rc = sql_branch_view(b, state, t, head, (struct delta_branch_view **)view, view_key, err);
    if (rc == SILT_OK && state->ref_id == NULL && !owned && *location != NULL)
        rc = note_main_table(b, *location, t->location, state->version, err);
    if (owned)
        catalog_state_free(state);
    SILT_RETURN_IF_ERROR(rc);
    return *location != NULL ? SILT_OK : err_nomem(err);
}

/* A view of the catalog named by ref (catalog_location skips views); *found 0 when none. */
static silt_status catalog_view(binder *b, const sql_table_ref *ref, const char *db,
                                const char *name, const pushdown *pd, plan *out, int *found,
                                silt_error *err)
{
    cat_state *state = NULL;
    const cat_table *t;
    int owned;
    if (b->s->cat == NULL || ref->u.named.name.n_parts > 2)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(statement_state(b, NULL, NULL, &state, &owned, err));
    t = catalog_state_find_table(state, db, name);
    if (t != NULL && t->kind == CAT_VIEW) {
        *found = 1;
        return catalog_view_source(b, t, ref, pd, out, err);
    }
    return SILT_OK;
}

static silt_status catalog_source(binder *b, const sql_table_ref *ref, const pushdown *pd,
                                  int64_t version, int64_t ts, plan *out, int *found,
                                  silt_error *err)
{
    const sql_name *n = &ref->u.named.name;
    const char *db = n->n_parts == 2 ? n->parts[0].name : b->s->database;
    const char *name = n->parts[n->n_parts - 1].name;
    const char *location = NULL, *provider = NULL, *view_key = "";
    /* a session limited to some databases (a server user's databases=), views' bodies too */
    if (b->s->cat != NULL && n->n_parts <= 2) {
        silt_error denied = SILT_ERROR_INIT;
        if (sql_session_check_database(b->s, db, &denied) != SILT_OK)
            return sql_bind_error(b, err, n->pos, SILT_INVALID, "%s", denied.message);
    }
    const struct delta_branch_view *view = NULL;
    const char **kv = NULL;
    size_t n_kv = 0;
    silt_status rc;
    SILT_RETURN_IF_ERROR(catalog_location(b, ref, &location, &provider, &kv, &n_kv, found, &view,
                                          &view_key, err));
    if (!*found) {
        if (branch_ref(&ref->u.named.at) != NULL)
            return SILT_OK; /* views are read on the session's reference only */
        return catalog_view(b, ref, db, name, pd, out, found, err);
    }
    if (provider == NULL || util_str_casecmp(provider, "delta") == 0) {
        rc = open_delta(b, location, view, view_key, version, ts, pd, out,
                        ref->alias.name ? ref->alias.name : name, err);
    } else {
        pushdown local;
        memset(&local, 0, sizeof(local));
        local.all_cols = 1;
        if (pd != NULL)
            local = *pd;
        local.qual = ref->alias.name ? ref->alias.name : name;
        rc = sql_source_path(b, provider, location, kv, n_kv, &local, version, ts, out, ref->pos,
                             err);
    }
    if (rc != SILT_OK)
        err_context(err, "while reading table \"%s.%s\"", db, name);
    return rc;
}

silt_status sql_source_named(binder *b, const sql_table_ref *ref, const pushdown *pd, plan *out,
                         silt_error *err)
{
    const sql_name *n = &ref->u.named.name;
    int64_t version, ts;
    int found;
    SILT_RETURN_IF_ERROR(time_travel(b, &ref->u.named.at, &version, &ts, err));
    if (ref->sample != NULL)
        return sql_bind_error(b, err, ref->pos, SILT_UNSUPPORTED, "TABLESAMPLE is not supported yet");
    if (branch_ref(&ref->u.named.at) != NULL &&
        (n->is_path || n->n_parts > 2 || (n->n_parts == 2 && is_format(n->parts[0].name)) ||
         b->s->cat == NULL))
        return not_catalog_ref(b, ref, err);
    if (n->n_parts == 2 && is_format(n->parts[0].name)) {
        pushdown local;
        if (pd != NULL) {
            local = *pd;
            local.qual = ref->alias.name;
            pd = &local;
        }
        SILT_RETURN_IF_ERROR(sql_source_path(b, n->parts[0].name, n->parts[1].name, NULL, 0, pd,
                                         version, ts, out, ref->pos, err));
        if (ref->alias.name != NULL) {
            size_t idx;
            for (idx = 0; idx < out->scope.n; idx++)
                out->scope.cols[idx].qual = ref->alias.name;
        }
        return SILT_OK;
    }
    if (n->is_path)
        return sql_source_path(b, "delta", n->parts[0].name, NULL, 0, pd, version, ts, out, ref->pos,
                           err);
    if (n->n_parts == 1 && branch_ref(&ref->u.named.at) == NULL) {
        const sql_view *v = find_view(b->s, n->parts[0].name);
        SILT_RETURN_IF_ERROR(sql_source_bound(b, ref, out, &found, err));
        if (found)
            return SILT_OK;
        if (v != NULL) {
            SILT_RETURN_IF_ERROR(view_source(b, v, ref, pd, out, err));
            if (ref->alias.name != NULL) {
                size_t idx;
                for (idx = 0; idx < out->scope.n; idx++)
                    out->scope.cols[idx].qual = ref->alias.name;
            }
            return SILT_OK;
        }
    }
    SILT_RETURN_IF_ERROR(sql_source_meta(b, ref, out, &found, err));
    if (found)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(catalog_source(b, ref, pd, version, ts, out, &found, err));
    if (found)
        return SILT_OK;
    {
        buf full = BUF_INIT;
        size_t idx;
        silt_status rc;
        for (idx = 0; idx < n->n_parts; idx++)
            buf_printf(&full, NULL, "%s`%s`", idx ? "." : "", n->parts[idx].name);
        rc = sql_bind_error(b, err, n->pos, SILT_NOTFOUND,
                        "[TABLE_OR_VIEW_NOT_FOUND] The table or view %s cannot be found. Verify "
                        "the spelling and correctness of the schema and catalog",
                        full.data ? buf_cstr(&full) : "");
        buf_clear(&full);
        return rc;
    }
}

silt_status sql_source_delta_schema(binder *b, const sql_table_ref *ref, const col_type **schema,
                                   const char **path_out, int64_t *version_out,
                                   const char **qual_out, silt_error *err)
{
    const sql_name *n = &ref->u.named.name;
    io_store *store;
    delta_snapshot *snap;
    int64_t version, ts;
    int in_catalog = 0;
    const struct delta_branch_view *view = NULL;
    const char *view_key = "";
    silt_status rc;
    *schema = NULL;
    if (ref->kind != SQL_TABLE_NAMED || ref->sample != NULL)
        return SILT_OK;
    *qual_out = ref->alias.name;
    SILT_RETURN_IF_ERROR(time_travel(b, &ref->u.named.at, &version, &ts, err));
    if (n->is_path) {
        *path_out = n->parts[0].name;
        if (ref->alias.name == NULL)
            *qual_out = n->parts[0].name;
    } else if (n->n_parts == 2 && is_format(n->parts[0].name)) {
        if (util_str_casecmp(n->parts[0].name, "delta") != 0)
            return SILT_OK;
        *path_out = n->parts[1].name;
    } else {
        const char *provider = NULL;
        const char **kv = NULL;
        size_t n_kv = 0;
        int found = 0;
        /* a bound source or a temporary view of that name comes first (sql_source_named) */
        if (n->n_parts == 1 && branch_ref(&ref->u.named.at) == NULL &&
            (find_view(b->s, n->parts[0].name) != NULL ||
                                sql_source_bound_exists(b->s, n->parts[0].name)))
            return SILT_OK;
        SILT_RETURN_IF_ERROR(catalog_location(b, ref, path_out, &provider, &kv, &n_kv, &found,
                                              &view, &view_key, err));
        if (!found || (provider != NULL && util_str_casecmp(provider, "delta") != 0))
            return SILT_OK;
        if (ref->alias.name == NULL)
            *qual_out = n->parts[n->n_parts - 1].name;
        in_catalog = 1;
    }
    if (branch_ref(&ref->u.named.at) != NULL && !in_catalog)
        return not_catalog_ref(b, ref, err);
    rc = delta_snapshot_of(b, *path_out, view, view_key, version, ts, &store, &snap, err);
    if (rc != SILT_OK && in_catalog)
        return err_context(err, "while reading table \"%s.%s\"",
                           n->n_parts == 2 ? n->parts[0].name : b->s->database,
                           n->parts[n->n_parts - 1].name);
    SILT_RETURN_IF_ERROR(source_context(b, rc, "delta", *path_out, ref->pos, err));
    *schema = snap->schema;
    *version_out = snap->version;
    return SILT_OK;
}

/* range(end) / range(start, end[, step]): one LONG column "id", as Spark's. */
typedef struct range_src {
    int64_t next, end, step;
    int done;
    const col_type *schema;
} range_src;

static silt_status range_next(void *payload, arena *batch_arena, col_batch **out, silt_error *err)
{
    range_src *r = payload;
    col_batch *batch;
    col_vec *v;
    int64_t n = 0, *vals;
    *out = NULL;
    if (r->done)
        return SILT_OK;
    batch = arena_calloc(batch_arena, 1, sizeof(*batch));
    if (batch == NULL || (batch->cols = arena_calloc(batch_arena, 1, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(vec_new(&v, batch_arena, col_type_primitive(COL_LONG),
                                 ENGINE_BATCH_ROWS, err));
    vals = v->values;
    while (n < ENGINE_BATCH_ROWS && (r->step > 0 ? r->next < r->end : r->next > r->end)) {
        vals[n++] = r->next;
        if (__builtin_add_overflow(r->next, r->step, &r->next)) {
            r->done = 1;
            break;
        }
    }
    if (n == 0) {
        r->done = 1;
        return SILT_OK;
    }
    v->length = n;
    v->validity = NULL;
    v->null_count = 0;
    batch->n_rows = n;
    batch->n_cols = 1;
    batch->cols[0] = v;
    batch->schema = r->schema;
    *out = batch;
    return SILT_OK;
}

static silt_status source_range(binder *b, const sql_table_ref *ref, plan *out, silt_error *err)
{
    const sql_expr_list *args = &ref->u.func.args;
    range_src *r = arena_calloc(b->a, 1, sizeof(*r));
    int64_t v[3] = {0, 0, 1};
    col_field field;
    const col_type *schema;
    size_t idx;
    if (r == NULL)
        return err_nomem(err);
    if (args->n < 1 || args->n > 3)
        return sql_bind_error(b, err, ref->pos, SILT_BIND,
                          "[WRONG_NUM_ARGS] range takes 1 to 3 arguments, not %zu", args->n);
    for (idx = 0; idx < args->n; idx++) {
        const sql_expr *a = args->items[idx];
        int neg = 0;
        if (a->kind == SQL_EXPR_UNARY && a->u.op.op == SQL_OP_NEG) {
            neg = 1;
            a = a->u.op.left;
        }
        if (a->kind != SQL_EXPR_LITERAL ||
            (a->u.lit.kind != SQL_LIT_INT && a->u.lit.kind != SQL_LIT_LONG))
            return sql_bind_error(b, err, a->pos, SILT_BIND,
                              "range arguments must be integer constants");
        v[idx + (args->n == 1 ? 1 : 0)] = neg ? -a->u.lit.i64 : a->u.lit.i64;
    }
    if (v[2] == 0)
        return sql_bind_error(b, err, ref->pos, SILT_BIND,
                          "[FAILED_FUNCTION_CALL] range step must not be 0");
    r->next = v[0];
    r->end = v[1];
    r->step = v[2];
    memset(&field, 0, sizeof(field));
    field.name = "id";
    field.type = col_type_primitive(COL_LONG);
    field.field_id = -1;
    schema = col_type_struct(b->a, 1, &field);
    if (schema == NULL)
        return err_nomem(err);
    r->schema = schema;
    SILT_RETURN_IF_ERROR(engine_op_scan(&out->op, b->ctx, schema, range_next, r, err));
    memset(&out->morsels, 0, sizeof(out->morsels));
    return sql_scope_from_schema(b->a, schema, NULL, &out->scope, err);
}

/* read_files('path', format => 'csv', header => true, ...) */
silt_status sql_source_function(binder *b, const sql_table_ref *ref, const pushdown *pd, plan *out,
                                silt_error *err)
{
    pushdown cols;
    const sql_name *n = &ref->u.func.name;
    const sql_expr_list *args = &ref->u.func.args;
    const char *path = NULL, *format = NULL;
    const char **kv;
    size_t n_kv = 0, idx;
    if (ref->u.func.rowset)
        return sql_source_openrowset(b, ref, pd, out, err);
    if (n->n_parts == 1 && util_str_casecmp(n->parts[0].name, "range") == 0)
        return source_range(b, ref, out, err);
    if (n->n_parts == 1 && util_str_casecmp(n->parts[0].name, "table_changes") == 0)
        return sql_source_table_changes(b, ref, 0, out, err);
    if (n->n_parts == 1 && util_str_casecmp(n->parts[0].name, "table_changes_by_path") == 0)
        return sql_source_table_changes(b, ref, 1, out, err);
    if (n->n_parts != 1 || util_str_casecmp(n->parts[0].name, "read_files") != 0)
        return sql_bind_error(b, err, ref->pos, SILT_BIND,
                          "[UNRESOLVABLE_TABLE_VALUED_FUNCTION] table function \"%s\" does not "
                          "exist", n->parts[n->n_parts - 1].name);
    kv = arena_calloc(b->a, args->n * 2 + 1, sizeof(char *));
    if (kv == NULL)
        return err_nomem(err);
    for (idx = 0; idx < args->n; idx++) {
        const sql_expr *a = args->items[idx];
        const sql_expr *v = a->kind == SQL_EXPR_NAMED_ARG ? a->u.named.value : a;
        const char *text;
        if (v->kind != SQL_EXPR_LITERAL)
            return sql_bind_error(b, err, v->pos, SILT_BIND,
                              "read_files arguments must be constants");
        if (v->u.lit.kind == SQL_LIT_STRING)
            text = arena_strndup(b->a, v->u.lit.str, v->u.lit.str_len);
        else
            text = sql_bind_column_name(b, v);
        if (text == NULL)
            return err_nomem(err);
        if (a->kind != SQL_EXPR_NAMED_ARG) {
            if (path != NULL)
                return sql_bind_error(b, err, a->pos, SILT_BIND,
                                  "read_files takes one path; name the other arguments");
            path = text;
        } else if (util_str_casecmp(a->u.named.name.name, "format") == 0) {
            format = text;
        } else {
            kv[n_kv++] = a->u.named.name.name;
            kv[n_kv++] = text;
        }
    }
    if (path == NULL)
        return sql_bind_error(b, err, ref->pos, SILT_BIND, "read_files needs a path");
    if (format == NULL) {
        /* Spark infers the format from the extension. */
        if (util_str_ends_with(path, ".csv"))
            format = "csv";
        else if (util_str_ends_with(path, ".json") || util_str_ends_with(path, ".jsonl"))
            format = "json";
        else
            format = "parquet";
    }
    /* Only the column names: the alias is applied by the caller, and no filter is pushed here. */
    memset(&cols, 0, sizeof(cols));
    if (pd != NULL) {
        cols.all_cols = pd->all_cols;
        cols.n_cols = pd->n_cols;
        cols.cols = pd->cols;
    }
    return sql_source_path(b, format, path, kv, n_kv, pd != NULL ? &cols : NULL, -1, INT64_MIN,
                           out, ref->pos, err);
}

/* ---------------------------------------------------------------- answers from statistics */

/*
 * count(*), count(col), min(col), max(col) over a whole Delta table come
 * from the log when they are exact: every file has numRecords, no deletion
 * vector, and for min/max the column is a number or a date (string bounds
 * may be truncated prefixes and timestamp bounds are rounded to
 * milliseconds, so neither is exact) with a bound or an all-null count per
 * file. Partition columns are not answered this way.
 */
typedef struct stat_item {
    int kind; /* 0 count(*), 1 count(col), 2 min, 3 max */
    int64_t col;
    const char *name;
} stat_item;

static int stats_item_of(binder *b, const sql_select_item *it, const col_type *schema,
                         const dlog_metadata *meta, stat_item *out)
{
    const sql_expr *e = it->expr;
    const char *fn;
    size_t p;
    if (e->kind != SQL_EXPR_FUNC || e->u.func.over != NULL || e->u.func.over_name != NULL ||
        e->u.func.filter != NULL || e->u.func.distinct || e->u.func.name.n_parts != 1)
        return 0;
    fn = e->u.func.name.parts[0].name;
    out->name = it->alias ? it->alias : sql_bind_column_name(b, e);
    if (util_str_casecmp(fn, "count") == 0 && (e->u.func.star ||
                                          (e->u.func.args.n == 1 &&
                                           e->u.func.args.items[0]->kind == SQL_EXPR_LITERAL &&
                                           e->u.func.args.items[0]->u.lit.kind != SQL_LIT_NULL))) {
        out->kind = 0;
        return 1;
    }
    if (e->u.func.args.n != 1 || e->u.func.args.items[0]->kind != SQL_EXPR_COLUMN ||
        e->u.func.args.items[0]->u.column.n_parts != 1)
        return 0;
    out->col = sql_pushdown_schema_col(schema, e->u.func.args.items[0]->u.column.parts[0].name);
    if (out->col < 0)
        return 0;
    for (p = 0; p < meta->n_partition_columns; p++)
        if (util_str_casecmp(meta->partition_columns[p], schema->fields[out->col].name) == 0)
            return 0;
    if (util_str_casecmp(fn, "count") == 0) {
        out->kind = 1;
        return 1;
    }
    switch (schema->fields[out->col].type->id) {
    case COL_BYTE:
    case COL_SHORT:
    case COL_INT:
    case COL_LONG:
    case COL_DATE:
    case COL_DECIMAL: break;
    default: return 0; /* floats: NaN handling in stats is not reliable; others inexact */
    }
    if (util_str_casecmp(fn, "min") == 0)
        out->kind = 2;
    else if (util_str_casecmp(fn, "max") == 0)
        out->kind = 3;
    else
        return 0;
    return 1;
}

typedef struct stat_acc {
    int64_t count;
    int has;
    delta_value best;
} stat_acc;

/* Folds one file into the accumulators; 0 when the file's stats are not exact enough. */
static int stats_fold(const dstats *st, const col_type *schema, const stat_item *items,
                      size_t n, stat_acc *acc)
{
    size_t idx;
    for (idx = 0; idx < n; idx++) {
        const dstats_column *c;
        const delta_value *v;
        int cmp;
        if (items[idx].kind == 0) {
            acc[idx].count += st->num_records;
            continue;
        }
        c = dstats_find(st, schema->fields[items[idx].col].name);
        if (c == NULL || !c->has_null_count)
            return 0;
        if (items[idx].kind == 1) {
            acc[idx].count += st->num_records - c->null_count;
            continue;
        }
        if (c->null_count == st->num_records)
            continue; /* only nulls: no bound, nothing to fold */
        if ((items[idx].kind == 2 && !c->has_min) || (items[idx].kind == 3 && !c->has_max))
            return 0;
        v = items[idx].kind == 2 ? &c->min : &c->max;
        if (!acc[idx].has) {
            acc[idx].best = *v;
            acc[idx].has = 1;
            continue;
        }
        if (delta_value_compare(v, &acc[idx].best, &cmp, NULL) != SILT_OK)
            return 0;
        if ((items[idx].kind == 2 && cmp < 0) || (items[idx].kind == 3 && cmp > 0))
            acc[idx].best = *v;
    }
    return 1;
}

static silt_status stats_value_vec(binder *b, const col_type *t, const stat_acc *acc,
                                   col_vec **out, silt_error *err)
{
    if (!acc->has)
        return col_vec_new_nulls(out, b->a, t, 1, err);
    return delta_value_fill(out, b->a, t, &acc->best, 1, err);
}

silt_status sql_source_try_stats_agg(binder *b, const sql_select *sel, plan *out, int *done_out,
                                 silt_error *err)
{
    const sql_table_ref *ref = sel->from[0];
    const sql_name *n;
    const delta_snapshot *snap;
    delta_snapshot *loaded = NULL;
    io_store *store = NULL;
    stat_item *items;
    stat_acc *acc;
    arena *scratch;
    size_t idx, f;
    int64_t version, ts;
    col_field *fields;
    col_batch *batch, **list;
    dproto_mapping_mode mode;
    *done_out = 0;
    if (ref->kind != SQL_TABLE_NAMED || sel->n_group > 0 || sel->group_all ||
        sel->having != NULL || sel->n_items == 0 || ref->sample != NULL)
        return SILT_OK;
    n = &ref->u.named.name;
    if (n->n_parts != 2 || util_str_casecmp(n->parts[0].name, "delta") != 0)
        return SILT_OK;
    for (idx = 0; idx < sel->n_items; idx++) {
        const sql_expr *e = sel->items[idx].expr;
        if (e->kind != SQL_EXPR_FUNC || e->u.func.name.n_parts != 1)
            return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(time_travel(b, &ref->u.named.at, &version, &ts, err));
    if (branch_ref(&ref->u.named.at) != NULL)
        return SILT_OK; /* the ordinary scan path refuses it */
    /* Failures to open are reported by the ordinary scan path: just decline here. */
    if (sql_session_store_open(b->s, n->parts[1].name, 0, &store, NULL) != SILT_OK)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(on_cleanup(b, free_store, store, err));
    if ((ts != INT64_MIN ? delta_snapshot_load_at_timestamp(&loaded, store, ts, NULL, NULL)
                         : delta_snapshot_load(&loaded, store, version, NULL)) != SILT_OK)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(on_cleanup(b, free_snapshot, loaded, err));
    snap = loaded;
    items = arena_calloc(b->a, sel->n_items, sizeof(stat_item));
    acc = arena_calloc(b->a, sel->n_items, sizeof(stat_acc));
    fields = arena_calloc(b->a, sel->n_items, sizeof(col_field));
    batch = arena_calloc(b->a, 1, sizeof(col_batch));
    list = arena_calloc(b->a, 1, sizeof(col_batch *));
    scratch = arena_new(b->a, "stats");
    if (items == NULL || acc == NULL || fields == NULL || batch == NULL || list == NULL ||
        scratch == NULL)
        return err_nomem(err);
    for (idx = 0; idx < sel->n_items; idx++)
        if (!stats_item_of(b, &sel->items[idx], snap->schema, &snap->metadata, &items[idx]))
            return SILT_OK;
    if (dproto_get_mapping_mode(&snap->metadata, &mode, NULL) != SILT_OK)
        return SILT_OK;
    for (f = 0; f < snap->n_files; f++) {
        const delta_file *file = &snap->files[f];
        dstats st;
        int ok;
        if (file->dv.storage_type != 0 || file->stats == NULL)
            return SILT_OK;
        if (dstats_parse(&st, scratch, file->stats, snap->schema, mode, NULL) != SILT_OK ||
            !st.has_num_records)
            return SILT_OK;
        ok = stats_fold(&st, snap->schema, items, sel->n_items, acc);
        if (!ok)
            return SILT_OK;
        /* Bounds point into the scratch arena: copy string-free values only (numbers, dates). */
    }
    batch->cols = arena_calloc(b->a, sel->n_items, sizeof(col_vec *));
    if (batch->cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < sel->n_items; idx++) {
        const col_type *t;
        if (items[idx].kind <= 1) {
            col_builder *bld;
            t = col_type_primitive(COL_LONG);
            SILT_RETURN_IF_ERROR(col_builder_new(&bld, b->a, t, err));
            SILT_RETURN_IF_ERROR(col_builder_append_int(bld, acc[idx].count, err));
            SILT_RETURN_IF_ERROR(col_builder_finish(bld, &batch->cols[idx], err));
        } else {
            t = snap->schema->fields[items[idx].col].type;
            SILT_RETURN_IF_ERROR(stats_value_vec(b, t, &acc[idx], &batch->cols[idx], err));
        }
        fields[idx].name = items[idx].name;
        fields[idx].type = t;
        fields[idx].nullable = 1;
        fields[idx].field_id = -1;
    }
    batch->schema = col_type_struct(b->a, sel->n_items, fields);
    if (batch->schema == NULL)
        return err_nomem(err);
    batch->n_rows = 1;
    batch->n_cols = sel->n_items;
    list[0] = batch;
    sql_bind_note(b, "LocalTableScan: answered from the Delta log statistics of version %lld "
              "(%zu files, no data file read)", (long long)snap->version, snap->n_files);
    SILT_RETURN_IF_ERROR(engine_op_values(&out->op, b->ctx, batch->schema, list, 1, err));
    SILT_RETURN_IF_ERROR(sql_scope_from_schema(b->a, batch->schema, NULL, &out->scope, err));
    *done_out = 1;
    return SILT_OK;
}
