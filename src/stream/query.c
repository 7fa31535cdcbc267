/*
 * query.c - a streaming query: its statement, source, sink and checkpoint,
 * and the micro-batch loop (docs/streaming.md).
 *
 * The statement is parsed once; its one STREAM reference is rewritten into
 * a reference to a bound source name, and every batch runs the statement's
 * query in the query's own session (a sibling of the caller's) with the
 * batch's input bound to that name:
 *
 *   - Delta sink: `INSERT INTO target <query>` under Delta's idempotent-write
 *     settings (txnAppId = the query id, txnVersion = the batch id), so the
 *     commit carries txn(appId, version) and a batch replayed after a crash
 *     finds its version in the table and writes nothing (delta_app_txn);
 *   - console sink: the query's rows printed as Spark's console sink does.
 *
 * Batch N (write-ahead): the source plans its range and records what it
 * must (sources/0/N); offsets/N is written (put-if-absent); the sink runs;
 * commits/N is written. A restart whose newest offsets/N has no commits/N
 * runs batch N again over exactly the recorded range.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "formats/text.h"
#include "sql/parser.h"
#include "sql/prepared.h"
#include "stream/stream_int.h"
#include "delta/txn.h"
#include "util/time.h"

#define BATCH_SOURCE "__silt_stream_batch"
#define TABLE_STATE "_silt_stream" /* a streaming table's definition and checkpoint */

enum { SINK_DELTA, SINK_CONSOLE };

struct stream_query {
    arena *a;
    sql_session *s;          /* the batches' session */
    char *text;
    size_t len;
    sql_stmt *stmt;          /* run by every batch */
    sql_table_ref *ref;      /* the rewritten STREAM reference */
    stream_source *src;
    stream_ckpt ckpt;
    stream_options o;
    int sink;
    char *sink_desc;
    char run_id[40];
    atomic_int stop;
    pthread_mutex_t mu;      /* guards progress */
    buf progress;
    int64_t last_end_ms;     /* when the previous batch ended, for inputRowsPerSecond */
    /* a stateful aggregation: its state and the statement each batch's output runs */
    sql_query *agg_query;
    stream_agg *agg;
    const sql_name *target;  /* the Delta sink's table */
    sql_stmt *out_stmt;
    char *out_text;
    int table;               /* a streaming table (its default output mode differs) */
    /* event time: the WATERMARK clause, the window, what the batch saw */
    stream_watermark wm;
    stream_window win;
    stream_evtime ev;
    int wm_key;              /* the group key the watermark bounds, -1: none */
    int64_t wm_ms;           /* the watermark the next batch runs with (batchWatermarkMs) */
    int need_nodata;         /* the watermark moved: evict in a batch without new data */
    int64_t wal_ns;          /* the last plan's offsets/N write (walCommit) */
    int64_t last_batch_wm;   /* batchWatermarkMs of the last committed batch (late rows) */
};

/* ---------------------------------------------------------------- helpers */

static char *name_sql(arena *a, const sql_name *n)
{
    buf b;
    size_t idx;
    const char *p;
    char *out = NULL;
    silt_status rc = SILT_OK;
    buf_init(&b, 0);
    for (idx = 0; rc == SILT_OK && idx < n->n_parts; idx++) {
        if (idx > 0)
            rc = buf_append_char(&b, '.', NULL);
        rc = rc == SILT_OK ? buf_append_char(&b, '`', NULL) : rc;
        for (p = n->parts[idx].name; rc == SILT_OK && *p != '\0'; p++)
            rc = *p == '`' ? buf_append_str(&b, "``", NULL) : buf_append_char(&b, *p, NULL);
        rc = rc == SILT_OK ? buf_append_char(&b, '`', NULL) : rc;
    }
    if (rc == SILT_OK)
        out = arena_strndup(a, b.data ? b.data : "", b.len);
    buf_clear(&b);
    return out;
}

/* delta.`/p` -> "/p"; NULL for a catalog name. */
static const char *delta_path(const sql_name *n)
{
    if (n->n_parts == 2 && util_str_casecmp(n->parts[0].name, "delta") == 0)
        return n->parts[1].name;
    return NULL;
}

/* The location of a table by name (DESCRIBE DETAIL), or NULL when it does not exist. */
silt_status stream_table_location(sql_session *s, arena *a, const sql_name *n, char **out,
                                  silt_error *err)
{
    const char *path = delta_path(n);
    sql_result *res = NULL;
    col_batch *batch = NULL;
    const col_type *schema;
    char *text;
    size_t idx;
    silt_status rc;
    *out = NULL;
    if (path != NULL) {
        io_store *st = NULL;
        io_listing l = IO_LISTING_INIT;
        rc = sql_session_store_open(s, path, 0, &st, err);
        if (rc == SILT_OK)
            rc = io_list(st, "_delta_log/", NULL, 0, &l, err);
        if (rc == SILT_NOTFOUND || (rc == SILT_OK && l.count == 0)) {
            err_clear(err);
            rc = SILT_OK;
        } else if (rc == SILT_OK) {
            *out = arena_strdup(a, io_location_local_path(path));
            rc = *out != NULL ? SILT_OK : err_nomem(err);
        }
        io_listing_clear(&l);
        io_store_free(st);
        return rc;
    }
    text = arena_sprintf(a, "DESCRIBE DETAIL %s", name_sql(a, n));
    if (text == NULL)
        return err_nomem(err);
    rc = sql_execute(s, text, &res, err);
    if (rc == SILT_NOTFOUND || (rc != SILT_OK && strstr(err->message, "TABLE_OR_VIEW_NOT_FOUND"))) {
        err_clear(err);
        return SILT_OK;
    }
    if (rc == SILT_OK)
        rc = sql_result_next(res, &batch, err);
    if (rc == SILT_OK && (batch == NULL || batch->n_rows < 1))
        rc = err_set(err, SILT_NOTFOUND, "DESCRIBE DETAIL %s gave no row", text);
    schema = rc == SILT_OK ? sql_result_schema(res) : NULL;
    for (idx = 0; schema != NULL && idx < schema->n_fields; idx++) {
        const col_vec *v = batch->cols[idx];
        const char *str;
        int32_t str_len;
        if (strcmp(schema->fields[idx].name, "location") != 0 || col_vec_is_null(v, 0))
            continue;
        str = col_vec_str(v, 0, &str_len);
        *out = arena_strndup(a, str, (size_t)str_len);
        if (*out == NULL)
            rc = err_nomem(err);
    }
    sql_result_free(res);
    if (rc == SILT_OK && *out != NULL)
        *out = arena_strdup(a, io_location_local_path(*out));
    return rc;
}

static silt_status table_location(stream_query *q, const sql_name *n, char **out,
                                  silt_error *err)
{
    return stream_table_location(q->s, q->a, n, out, err);
}

/* The arguments of a STREAM reference as name/value pairs (a positional first one: *pos). */
static silt_status ref_args(arena *a, const sql_table_ref *ref, const char **pos,
                            const char ***kv_out, size_t *n_out, silt_error *err)
{
    size_t idx, n = 0;
    const char **kv;
    *pos = NULL;
    if (ref->kind == SQL_TABLE_NAMED) {
        kv = arena_calloc(a, ref->stream_options.n * 2 + 1, sizeof(char *));
        if (kv == NULL)
            return err_nomem(err);
        for (idx = 0; idx < ref->stream_options.n; idx++) {
            kv[n * 2] = ref->stream_options.items[idx].key;
            kv[n * 2 + 1] = ref->stream_options.items[idx].value;
            if (kv[n * 2 + 1] == NULL)
                return err_set(err, SILT_BIND, "option \"%s\" of the stream needs a value",
                               kv[n * 2]);
            n++;
        }
        *kv_out = kv;
        *n_out = n;
        return SILT_OK;
    }
    kv = arena_calloc(a, ref->u.func.args.n * 2 + 1, sizeof(char *));
    if (kv == NULL)
        return err_nomem(err);
    for (idx = 0; idx < ref->u.func.args.n; idx++) {
        const sql_expr *e = ref->u.func.args.items[idx];
        const sql_expr *v = e->kind == SQL_EXPR_NAMED_ARG ? e->u.named.value : e;
        const char *text;
        if (v->kind != SQL_EXPR_LITERAL)
            return err_set(err, SILT_BIND, "the arguments of a streaming source must be "
                           "constants");
        if (v->u.lit.kind == SQL_LIT_STRING)
            text = arena_strndup(a, v->u.lit.str, v->u.lit.str_len);
        else if (v->u.lit.kind == SQL_LIT_BOOL)
            text = v->u.lit.i64 ? "true" : "false";
        else if (v->u.lit.kind >= SQL_LIT_BYTE && v->u.lit.kind <= SQL_LIT_LONG)
            text = arena_sprintf(a, "%lld", (long long)v->u.lit.i64);
        else if (v->u.lit.kind == SQL_LIT_DECIMAL || v->u.lit.kind == SQL_LIT_DOUBLE)
            text = arena_sprintf(a, "%.17g", v->u.lit.kind == SQL_LIT_DOUBLE ? v->u.lit.f64
                                                                               : 0.0);
        else
            return err_set(err, SILT_BIND, "the arguments of a streaming source must be strings, "
                           "numbers or booleans");
        if (text == NULL)
            return err_nomem(err);
        if (e->kind != SQL_EXPR_NAMED_ARG) {
            if (*pos != NULL || n > 0)
                return err_set(err, SILT_BIND, "read_files takes one path; name the other "
                               "arguments");
            *pos = text;
            continue;
        }
        kv[n * 2] = e->u.named.name.name;
        kv[n * 2 + 1] = text;
        n++;
    }
    *kv_out = kv;
    *n_out = n;
    return SILT_OK;
}

/* Finds the one STREAM reference of a query (FROM items, joins, subqueries, set operations). */
static void find_refs(sql_query *qr, sql_table_ref ***found, size_t *n, size_t cap);

static void find_in_ref(sql_table_ref **slot, sql_table_ref ***found, size_t *n, size_t cap)
{
    sql_table_ref *r = *slot;
    if (r->stream) {
        if (*n < cap)
            (*found)[*n] = r;
        (*n)++;
        return;
    }
    if (r->kind == SQL_TABLE_JOIN) {
        find_in_ref(&r->u.join.left, found, n, cap);
        find_in_ref(&r->u.join.right, found, n, cap);
    } else if (r->kind == SQL_TABLE_SUBQUERY) {
        find_refs(r->u.subquery.query, found, n, cap);
    }
}

static void find_refs(sql_query *qr, sql_table_ref ***found, size_t *n, size_t cap)
{
    size_t idx;
    if (qr == NULL)
        return;
    for (idx = 0; idx < qr->n_ctes; idx++)
        find_refs(qr->ctes[idx].query, found, n, cap);
    switch (qr->kind) {
    case SQL_QUERY_SELECT:
        for (idx = 0; idx < qr->u.select.n_from; idx++)
            find_in_ref(&qr->u.select.from[idx], found, n, cap);
        break;
    case SQL_QUERY_SETOP:
        find_refs(qr->u.setop.left, found, n, cap);
        find_refs(qr->u.setop.right, found, n, cap);
        break;
    case SQL_QUERY_NESTED: find_refs(qr->u.nested, found, n, cap); break;
    default: break;
    }
}

static int is_aggregate_name(const char *name)
{
    static const char *const aggs[] = {"count", "sum", "min", "max", "avg", "mean",
                                       "count_if", "any_value", "first", "last", NULL};
    size_t idx;
    for (idx = 0; aggs[idx] != NULL; idx++)
        if (util_str_casecmp(aggs[idx], name) == 0)
            return 1;
    return 0;
}

static int aggregates(const sql_query *qr)
{
    size_t idx;
    const sql_select *sel;
    if (qr->kind != SQL_QUERY_SELECT)
        return 0;
    sel = &qr->u.select;
    if (sel->n_group > 0 || sel->group_all)
        return 1;
    for (idx = 0; idx < sel->n_items; idx++) {
        const sql_expr *e = sel->items[idx].expr;
        if (e->kind == SQL_EXPR_ALIAS)
            e = e->u.named.value;
        if (e->kind == SQL_EXPR_FUNC && e->u.func.over == NULL && e->u.func.name.n_parts == 1 &&
            is_aggregate_name(e->u.func.name.parts[0].name))
            return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- opening */

silt_status stream_source_open(stream_source **out, sql_session *s, arena *a,
                               const sql_table_ref *ref, silt_error *err)
{
    const char *pos = NULL, **kv = NULL, *format = NULL;
    char *location = NULL;
    size_t n = 0, idx, k = 0;
    SILT_RETURN_IF_ERROR(ref_args(a, ref, &pos, &kv, &n, err));
    if (ref->kind == SQL_TABLE_FUNC) {
        const char *fn = ref->u.func.name.parts[ref->u.func.name.n_parts - 1].name;
        if (ref->u.func.name.n_parts == 1 && util_str_casecmp(fn, "rate") == 0) {
            if (pos != NULL)
                return err_set(err, SILT_BIND, "rate takes named arguments: rate(rowsPerSecond "
                               "=> 10)");
            return stream_rate_source_new(out, s, a, kv, n, err);
        }
        if (ref->u.func.name.n_parts != 1 || util_str_casecmp(fn, "read_files") != 0)
            return err_set(err, SILT_BIND, "[UNRESOLVABLE_TABLE_VALUED_FUNCTION] \"%s\" is not a "
                           "streaming source: STREAM takes read_files(...), rate(...) or a "
                           "Delta table", fn);
        if (pos == NULL)
            return err_set(err, SILT_BIND, "read_files needs a path");
        for (idx = 0; idx < n; idx++) {
            if (util_str_casecmp(kv[idx * 2], "format") == 0) {
                format = kv[idx * 2 + 1];
                continue;
            }
            kv[k * 2] = kv[idx * 2];
            kv[k * 2 + 1] = kv[idx * 2 + 1];
            k++;
        }
        if (format == NULL)
            format = util_str_ends_with(pos, ".json") ? "json"
                     : util_str_ends_with(pos, ".parquet") ? "parquet" : "csv";
        return stream_file_source_new(out, s, a, pos, format, kv, k, err);
    }
    if (ref->kind != SQL_TABLE_NAMED)
        return err_set(err, SILT_BIND, "STREAM takes a table, read_files(...) or rate(...)");
    if (ref->u.named.at.version != NULL || ref->u.named.at.timestamp != NULL ||
        ref->u.named.at.ref != NULL)
        return err_set(err, SILT_BIND, "a streaming Delta source does not travel in time: use "
                       "WITH (startingVersion = n) or WITH (startingTimestamp = '...')");
    SILT_RETURN_IF_ERROR(stream_table_location(s, a, &ref->u.named.name, &location, err));
    if (location == NULL)
        return err_set(err, SILT_NOTFOUND, "[TABLE_OR_VIEW_NOT_FOUND] The table or view %s "
                       "cannot be found", name_sql(a, &ref->u.named.name));
    return stream_delta_source_new(out, s, a, location, kv, n, err);
}

/* The GROUP BY item the watermark bounds: the window over its column, or the column. */
static int watermark_key(const stream_query *q, const sql_query *qr)
{
    size_t idx;
    if (!q->wm.active)
        return -1;
    if (q->win.size_us > 0)
        return util_str_casecmp(q->win.ts_name, q->wm.column) == 0 ? (int)q->win.group_idx : -1;
    for (idx = 0; idx < qr->u.select.n_group; idx++) {
        const sql_group_item *gi = &qr->u.select.group[idx];
        if (gi->kind == SQL_GROUP_EXPR && gi->expr->kind == SQL_EXPR_COLUMN &&
            util_str_casecmp(gi->expr->u.column.parts[gi->expr->u.column.n_parts - 1].name,
                             q->wm.column) == 0)
            return (int)idx;
    }
    return -1;
}

static silt_status check_mode(stream_query *q, sql_query *qr, silt_error *err)
{
    stream_output_mode m = q->o.mode;
    if (aggregates(qr)) {
        q->wm_key = qr->kind == SQL_QUERY_SELECT ? watermark_key(q, qr) : -1;
        /*
         * Spark's default is append, which an aggregation without a watermark
         * cannot use. A streaming table's statement has no output mode to
         * give, so one without a watermark replaces its rows (complete), as
         * silt's streaming tables always did (docs/streaming.md).
         */
        if (m == STREAM_MODE_DEFAULT)
            m = q->table && q->wm_key < 0 ? STREAM_MODE_COMPLETE : STREAM_MODE_APPEND;
        if (m == STREAM_MODE_APPEND && q->wm_key < 0)
            return err_set(err, SILT_BIND, "[STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION] "
                           "Invalid streaming output mode: append. This output mode is not "
                           "supported for streaming aggregations without watermark on "
                           "streaming DataFrames/DataSets.");
        if (m == STREAM_MODE_UPDATE && q->sink == SINK_DELTA)
            return err_set(err, SILT_UNSUPPORTED, "Data source delta does not support Update "
                           "output mode");
        q->o.mode = m;
        q->agg_query = qr;
        return stream_agg_open(&q->agg, q->s, q->a, qr, q->src, BATCH_SOURCE, q->text, q->len,
                               &q->win, err);
    }
    if (q->win.size_us > 0)
        return err_set(err, SILT_UNSUPPORTED, "window() over a stream needs a streaming "
                       "aggregation (GROUP BY window(...))");
    if (m == STREAM_MODE_COMPLETE)
        return err_set(err, SILT_BIND, "Complete output mode not supported when there are no "
                       "streaming aggregations on streaming DataFrames/Datasets");
    if (m == STREAM_MODE_UPDATE && q->sink == SINK_DELTA)
        return err_set(err, SILT_UNSUPPORTED, "Data source delta does not support Update output "
                       "mode");
    return SILT_OK;
}

/* Rewrites the STREAM reference into the bound name and opens its source. */
static silt_status take_source(stream_query *q, sql_query *qr, silt_error *err)
{
    sql_table_ref *refs[2], **found = refs;
    size_t n = 0;
    sql_ident *part;
    find_refs(qr, &found, &n, 2);
    if (n == 0)
        return err_set(err, SILT_BIND, "the statement reads no streaming source: write FROM "
                       "STREAM read_files(...), STREAM rate(...) or STREAM <table>");
    if (n > 1)
        return err_set(err, SILT_UNSUPPORTED, "a streaming query reads one streaming source; "
                       "this one reads %zu", n);
    q->ref = refs[0];
    SILT_RETURN_IF_ERROR(stream_source_open(&q->src, q->s, q->a, q->ref, err));
    if (q->ref->watermark != NULL && q->ref->watermark->kind == SQL_EXPR_ALIAS) {
        stream_source *inner = q->src;
        q->src = NULL;
        SILT_RETURN_IF_ERROR(stream_expr_source_new(&q->src, q->s, q->a, inner, q->ref, q->text,
                                                    err));
    }
    part = arena_calloc(q->a, 1, sizeof(*part));
    if (part == NULL)
        return err_nomem(err);
    part->name = BATCH_SOURCE;
    part->pos = q->ref->pos;
    if (q->ref->alias.name == NULL && q->ref->kind == SQL_TABLE_NAMED) {
        /* FROM STREAM delta.`p` keeps qualifying its columns as the table's name did */
        q->ref->alias.name = q->ref->u.named.name.parts[q->ref->u.named.name.n_parts - 1].name;
    }
    memset(&q->ref->u, 0, sizeof(q->ref->u));
    q->ref->kind = SQL_TABLE_NAMED;
    q->ref->u.named.name.n_parts = 1;
    q->ref->u.named.name.parts = part;
    q->ref->stream = 0;
    SILT_RETURN_IF_ERROR(stream_watermark_open(&q->wm, q->ref, q->src->schema, err));
    if (q->wm.active) {
        q->ev.col = q->wm.col;
        q->src->evtime = &q->ev;
    }
    if (aggregates(qr))
        SILT_RETURN_IF_ERROR(stream_window_rewrite(q->a, qr, q->ref, BATCH_SOURCE, &q->win, err));
    return check_mode(q, qr, err);
}

/* INSERT INTO target <query>: the statement every batch of a Delta sink runs. */
static silt_status insert_stmt(stream_query *q, const sql_name *target, sql_query *qr,
                               const sql_stmt *from, silt_error *err)
{
    sql_stmt *st = arena_calloc(q->a, 1, sizeof(*st));
    if (st == NULL)
        return err_nomem(err);
    st->kind = SQL_STMT_INSERT;
    st->pos = from->pos;
    st->end = from->end;
    st->u.insert.table = *target;
    st->u.insert.query = qr;
    q->stmt = st;
    q->target = &st->u.insert.table;
    return SILT_OK;
}

/* Creates the table of a streaming table from the query's columns (no rows). */
static silt_status create_target(stream_query *q, sql_stmt *create, silt_error *err)
{
    sql_stmt st = *create;
    silt_status rc;
    st.u.create_table.streaming = 0;
    st.u.create_table.or_replace = 0;
    if (st.u.create_table.columns.n > 0)
        st.u.create_table.as_query = NULL; /* the columns are given; batches insert by position */
    rc = q->src->ops->bind(q->src, q->s, BATCH_SOURCE, 1, err);
    if (rc == SILT_OK)
        rc = sql_session_run_parsed(q->s, &st, q->text, q->len, NULL, err);
    sql_session_unbind_source(q->s, BATCH_SOURCE);
    return rc;
}

static silt_status put_text(stream_query *q, const char *location, const char *key,
                            const char *data, silt_error *err)
{
    io_store *st = NULL;
    silt_status rc = sql_session_store_open(q->s, location, 0, &st, err);
    (void)q;
    if (rc == SILT_OK)
        rc = io_put(st, key, data, strlen(data), err);
    io_store_free(st);
    return rc;
}

/* The definition a streaming table keeps (its CREATE statement), NULL when it has none. */
static silt_status read_definition(stream_query *q, const char *location, char **out,
                                   silt_error *err)
{
    io_store *st = NULL;
    buf b;
    silt_status rc = sql_session_store_open(q->s, location, 0, &st, err);
    buf_init(&b, 0);
    *out = NULL;
    if (rc == SILT_OK)
        rc = io_get(st, TABLE_STATE "/definition.sql", &b, err);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        rc = SILT_OK;
    } else if (rc == SILT_OK && (*out = arena_strndup(q->a, b.data ? b.data : "", b.len)) == NULL) {
        rc = err_nomem(err);
    }
    buf_clear(&b);
    io_store_free(st);
    return rc;
}

static silt_status parse_one(stream_query *q, const char *text, sql_stmt **out, silt_error *err)
{
    sql_stmt_list *list;
    q->text = arena_strdup(q->a, text);
    if (q->text == NULL)
        return err_nomem(err);
    q->len = strlen(q->text);
    SILT_RETURN_IF_ERROR(sql_parse(q->a, q->text, &list, err));
    if (list->n != 1)
        return err_set(err, SILT_INVALID, "a stream runs one statement; this text has %zu",
                       list->n);
    *out = list->items[0];
    return SILT_OK;
}

static silt_status open_streaming_table(stream_query *q, sql_stmt *st, int refresh,
                                        const char **ckpt, silt_error *err)
{
    sql_name *name = &st->u.create_table.name;
    char *location = NULL, *had = NULL;
    const char *display = name_sql(q->a, name);
    if (q->o.checkpoint != NULL)
        return err_set(err, SILT_INVALID, "a streaming table keeps its checkpoint with the table; "
                       "--checkpoint is for INSERT INTO ... and SELECT streams");
    if (st->u.create_table.as_query == NULL)
        return err_set(err, SILT_PARSE, "CREATE STREAMING TABLE needs AS SELECT ... FROM STREAM "
                       "...");
    q->sink = SINK_DELTA;
    q->table = 1;
    SILT_RETURN_IF_ERROR(take_source(q, st->u.create_table.as_query, err));
    SILT_RETURN_IF_ERROR(table_location(q, name, &location, err));
    if (location != NULL)
        SILT_RETURN_IF_ERROR(read_definition(q, location, &had, err));
    if (location != NULL && had == NULL)
        return err_set(err, SILT_BIND, "[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create streaming "
                       "table %s because it already exists as a table that is not a streaming "
                       "table", display);
    if (location != NULL && !refresh && !st->u.create_table.or_replace)
        return err_set(err, SILT_BIND, "[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create streaming "
                       "table %s because it already exists. Use CREATE OR REFRESH STREAMING "
                       "TABLE or REFRESH STREAMING TABLE", display);
    if (location == NULL) {
        SILT_RETURN_IF_ERROR(create_target(q, st, err));
        SILT_RETURN_IF_ERROR(table_location(q, name, &location, err));
        if (location == NULL)
            return err_set(err, SILT_NOTFOUND, "streaming table %s was created but is not found",
                           display);
    }
    if (!refresh)
        SILT_RETURN_IF_ERROR(put_text(q, location, TABLE_STATE "/definition.sql", q->text, err));
    q->sink_desc = arena_sprintf(q->a, "DeltaSink[%s]", location);
    *ckpt = arena_sprintf(q->a, "%s/" TABLE_STATE "/checkpoint", location);
    if (q->sink_desc == NULL || *ckpt == NULL)
        return err_nomem(err);
    return insert_stmt(q, name, st->u.create_table.as_query, st, err);
}

static silt_status open_refresh(stream_query *q, sql_stmt *st, sql_stmt **def_out,
                                silt_error *err)
{
    char *location = NULL, *def = NULL;
    sql_stmt *d;
    const char *display = name_sql(q->a, &st->u.truncate.name);
    SILT_RETURN_IF_ERROR(table_location(q, &st->u.truncate.name, &location, err));
    if (location == NULL)
        return err_set(err, SILT_NOTFOUND, "[TABLE_OR_VIEW_NOT_FOUND] The table or view %s "
                       "cannot be found", display);
    SILT_RETURN_IF_ERROR(read_definition(q, location, &def, err));
    if (def == NULL)
        return err_set(err, SILT_BIND, "%s is not a streaming table: REFRESH STREAMING TABLE "
                       "refreshes tables made by CREATE STREAMING TABLE", display);
    SILT_RETURN_IF_ERROR(parse_one(q, def, &d, err));
    if (d->kind != SQL_STMT_CREATE_TABLE || !d->u.create_table.streaming)
        return err_set(err, SILT_CORRUPT, "the definition kept with %s is not a CREATE "
                       "STREAMING TABLE statement", display);
    *def_out = d;
    return SILT_OK;
}

static silt_status open_statement(stream_query *q, sql_stmt *st, const char **ckpt,
                                  silt_error *err)
{
    *ckpt = q->o.checkpoint;
    if (st->kind == SQL_STMT_REFRESH_STREAMING) {
        sql_stmt *def = NULL;
        SILT_RETURN_IF_ERROR(open_refresh(q, st, &def, err));
        return open_streaming_table(q, def, 1, ckpt, err);
    }
    if (st->kind == SQL_STMT_CREATE_TABLE && st->u.create_table.streaming)
        return open_streaming_table(q, st, 0, ckpt, err);
    if (st->kind == SQL_STMT_INSERT) {
        char *location = NULL;
        if (q->o.checkpoint == NULL)
            return err_set(err, SILT_INVALID, "checkpointLocation must be specified either "
                           "through option(\"checkpointLocation\", ...) or "
                           "SparkSession.conf.set(\"spark.sql.streaming.checkpointLocation\", "
                           "...): silt stream --checkpoint DIR");
        if (st->u.insert.overwrite)
            return err_set(err, SILT_UNSUPPORTED, "INSERT OVERWRITE of a stream: use "
                           "--output-mode complete with an aggregation");
        q->sink = SINK_DELTA;
        q->stmt = st;
        q->target = &st->u.insert.table;
        SILT_RETURN_IF_ERROR(take_source(q, st->u.insert.query, err));
        if (q->agg != NULL && (st->u.insert.columns.n > 0 || st->u.insert.by_name ||
                               st->u.insert.n_partition > 0 || st->u.insert.replace_where))
            return err_set(err, SILT_UNSUPPORTED, "INSERT INTO of a streaming aggregation "
                           "with a column list, BY NAME, PARTITION or REPLACE WHERE is not "
                           "supported yet");
        SILT_RETURN_IF_ERROR(table_location(q, &st->u.insert.table, &location, err));
        if (location == NULL)
            return err_set(err, SILT_NOTFOUND, "[TABLE_OR_VIEW_NOT_FOUND] The table or view %s "
                           "cannot be found: create it first, or use CREATE STREAMING TABLE",
                           name_sql(q->a, &st->u.insert.table));
        q->sink_desc = arena_sprintf(q->a, "DeltaSink[%s]", location);
        return q->sink_desc != NULL ? SILT_OK : err_nomem(err);
    }
    if (st->kind == SQL_STMT_QUERY) {
        q->sink = SINK_CONSOLE;
        q->stmt = st;
        q->sink_desc = "org.apache.spark.sql.execution.streaming.ConsoleTable$";
        return take_source(q, st->u.query, err);
    }
    return err_set(err, SILT_INVALID, "not a streaming statement: a stream runs CREATE [OR "
                   "REFRESH] STREAMING TABLE, REFRESH STREAMING TABLE, INSERT INTO ... SELECT "
                   "... FROM STREAM ... or SELECT ... FROM STREAM ...");
}

/*
 * The statement each batch of an aggregation runs over its state: the
 * query's rows into the console (the touched groups in update mode), or
 * INSERT OVERWRITE of the Delta sink's table (complete mode: Spark's
 * DeltaSink replaces the table's rows every batch).
 */
static silt_status agg_output_stmt(stream_query *q, silt_error *err)
{
    buf b;
    sql_stmt_list *list = NULL;
    silt_status rc = SILT_OK;
    buf_init(&b, 0);
    if (q->sink == SINK_DELTA)
        rc = buf_printf(&b, err, "INSERT %s %s ",
                        q->o.mode == STREAM_MODE_COMPLETE ? "OVERWRITE" : "INTO",
                        name_sql(q->a, q->target));
    if (rc == SILT_OK)
        rc = stream_agg_output_sql(q->agg, q->o.mode == STREAM_MODE_UPDATE, &b, err);
    if (rc == SILT_OK && (q->out_text = arena_strdup(q->a, buf_cstr(&b))) == NULL)
        rc = err_nomem(err);
    if (rc == SILT_OK)
        rc = sql_parse(q->a, q->out_text, &list, err);
    if (rc == SILT_OK)
        q->out_stmt = list->items[0];
    buf_clear(&b);
    return rc;
}

/* The watermark field of offsets/N ("batchWatermarkMs") or commits/N; 0 when absent. */
static silt_status read_wm(stream_query *q, const char *dir, int64_t n, const char *key,
                           int64_t *out, silt_error *err)
{
    buf b;
    silt_status rc;
    *out = 0;
    if (n < 0)
        return SILT_OK;
    buf_init(&b, 0);
    rc = stream_ckpt_read(&q->ckpt, dir, n, &b, err);
    if (rc == SILT_OK && buf_append_char(&b, '\0', err) == SILT_OK)
        stream_json_int(b.data, key, out);
    buf_clear(&b);
    return rc;
}

static int evicts(const stream_query *q)
{
    return q->agg != NULL && q->wm_key >= 0 && q->o.mode != STREAM_MODE_COMPLETE;
}

/*
 * After a restart: the watermark the last committed batch handed on
 * (commits/N nextBatchWatermarkMs, as Spark's MicroBatchExecution takes
 * it), and whether it moved past that batch's, so a batch without new data
 * still evicts.
 */
static silt_status restore_watermark(stream_query *q, silt_error *err)
{
    int64_t before = 0;
    if (q->ckpt.last_commit < 0 || q->ckpt.store == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(read_wm(q, "commits", q->ckpt.last_commit, "nextBatchWatermarkMs",
                                 &q->wm_ms, err));
    SILT_RETURN_IF_ERROR(read_wm(q, "offsets", q->ckpt.last_commit, "batchWatermarkMs", &before,
                                 err));
    q->need_nodata = evicts(q) && q->wm_ms > before;
    q->last_batch_wm = before;
    return SILT_OK;
}

silt_status stream_query_open(stream_query **out, sql_session *s, const char *text,
                              const stream_options *opts, silt_error *err)
{
    static const stream_options defaults = STREAM_OPTIONS_INIT;
    stream_query *q;
    arena *a = arena_new(NULL, "stream query");
    sql_stmt *st = NULL;
    const char *ckpt = NULL, *desc;
    silt_status rc;
    *out = NULL;
    if (a == NULL || (q = arena_calloc(a, 1, sizeof(*q))) == NULL) {
        arena_free(a);
        return err_nomem(err);
    }
    q->a = a;
    q->o = opts != NULL ? *opts : defaults;
    q->ckpt.lock_fd = -1;
    q->ev.col = -1;
    q->wm_key = -1;
    atomic_init(&q->stop, 0);
    pthread_mutex_init(&q->mu, NULL);
    buf_init(&q->progress, 0);
    rc = sql_session_new_sibling(s, &q->s, err);
    if (rc == SILT_OK)
        rc = delta_uuid_v4(q->run_id, err);
    if (rc == SILT_OK)
        rc = parse_one(q, text, &st, err);
    if (rc == SILT_OK)
        rc = open_statement(q, st, &ckpt, err);
    if (rc == SILT_OK && q->agg != NULL)
        rc = agg_output_stmt(q, err);
    if (rc == SILT_OK)
        q->src->until_now = q->o.trigger == STREAM_TRIGGER_AVAILABLE_NOW ||
                            q->o.trigger == STREAM_TRIGGER_ONCE;
    desc = rc == SILT_OK ? arena_sprintf(a, "%s -> %s", q->src->desc, q->sink_desc) : NULL;
    if (rc == SILT_OK && desc == NULL)
        rc = err_nomem(err);
    if (rc == SILT_OK)
        rc = stream_ckpt_open(&q->ckpt, q->s, ckpt, desc, err);
    if (rc == SILT_OK && q->agg != NULL)
        rc = stream_agg_load(q->agg, &q->ckpt, q->ckpt.last_commit, err);
    if (rc == SILT_OK)
        rc = restore_watermark(q, err);
    /* the first batch after a restart starts where the last committed one ended (Spark's
     * startOffset), not at "null" */
    if (rc == SILT_OK && q->ckpt.last_commit >= 0 && q->ckpt.store != NULL)
        rc = stream_ckpt_source_offset(&q->ckpt, q->ckpt.last_commit, q->a, &q->src->start_json,
                                       err);
    if (rc != SILT_OK) {
        stream_query_free(q);
        return rc;
    }
    *out = q;
    return SILT_OK;
}

void stream_query_free(stream_query *q)
{
    if (q == NULL)
        return;
    if (q->src != NULL)
        q->src->ops->release(q->src);
    stream_agg_free(q->agg);
    stream_ckpt_close(&q->ckpt);
    sql_session_free(q->s);
    buf_clear(&q->progress);
    pthread_mutex_destroy(&q->mu);
    arena_free(q->a);
}

void stream_query_stop(stream_query *q) { atomic_store(&q->stop, 1); }

silt_status stream_query_progress_json(stream_query *q, buf *out, silt_error *err)
{
    silt_status rc;
    pthread_mutex_lock(&q->mu);
    rc = buf_append(out, q->progress.data ? q->progress.data : "", q->progress.len, err);
    pthread_mutex_unlock(&q->mu);
    return rc;
}

/* ---------------------------------------------------------------- one batch */

/* The source offset of offsets/N: its third line (Spark's OffsetSeqLog, one source). */
static silt_status offset_line(const char *text, int64_t n, const char **out, silt_error *err)
{
    const char *l2 = strchr(text, '\n');
    const char *l3 = l2 != NULL ? strchr(l2 + 1, '\n') : NULL;
    if (!util_str_starts_with(text, "v1\n") || l3 == NULL || l3[1] == '\0')
        return err_set(err, SILT_CORRUPT, "offsets/%lld of the checkpoint is not v1 with a "
                       "metadata line and one source offset", (long long)n);
    *out = l3 + 1;
    return SILT_OK;
}

/* A batch's source offset equal to the one before it: a batch without new data. */
static silt_status same_as_previous(stream_query *q, int64_t batch, const char *line,
                                    int *out, silt_error *err)
{
    char *prev = NULL;
    *out = 0;
    if (batch == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(stream_ckpt_source_offset(&q->ckpt, batch - 1, q->a, &prev, err));
    *out = strncmp(prev, line, strcspn(line, "\n")) == 0 && prev[strcspn(line, "\n")] == '\0';
    return SILT_OK;
}

/*
 * Plans batch N: *nodata 1 for a batch without new input that runs because
 * the watermark moved (Spark's no-data batch: append and update modes
 * evict the windows it closed); its offset is the previous batch's.
 */
static silt_status plan_batch(stream_query *q, int64_t batch, int64_t now_ms, buf *end,
                              int *empty, int *nodata, silt_error *err)
{
    buf b;
    silt_status rc;
    const char *line = NULL;
    *nodata = 0;
    if (q->ckpt.last_offset >= batch) {
        /* planned before a crash and not committed: the same range again */
        buf_init(&b, 0);
        rc = stream_ckpt_read(&q->ckpt, "offsets", batch, &b, err);
        if (rc == SILT_OK)
            rc = offset_line(b.data, batch, &line, err);
        if (rc == SILT_OK)
            stream_json_int(b.data, "batchWatermarkMs", &q->wm_ms);
        if (rc == SILT_OK)
            rc = same_as_previous(q, batch, line, nodata, err);
        if (rc == SILT_OK && !*nodata)
            rc = q->src->ops->replan(q->src, &q->ckpt, batch, line, err);
        if (rc == SILT_OK) {
            buf_truncate(end, 0);
            rc = buf_append(end, line, strcspn(line, "\n"), err);
        }
        buf_clear(&b);
        *empty = 0;
        return rc;
    }
    SILT_RETURN_IF_ERROR(q->src->ops->plan(q->src, &q->ckpt, batch,
                                           q->o.trigger != STREAM_TRIGGER_ONCE, end, empty,
                                           err));
    if (*empty && q->need_nodata && batch > 0 && q->o.trigger != STREAM_TRIGGER_ONCE) {
        /* the previous batch's end offset (kept in memory: a console stream has no checkpoint) */
        buf_truncate(end, 0);
        SILT_RETURN_IF_ERROR(buf_append_str(end, q->src->start_json, err));
        *empty = 0;
        *nodata = 1;
    }
    if (*empty)
        return SILT_OK;
    buf_init(&b, 0);
    rc = buf_printf(&b, err, "v1\n{\"batchWatermarkMs\":%lld,\"batchTimestampMs\":%lld,"
                    "\"conf\":{}}\n%s\n", (long long)q->wm_ms, (long long)now_ms,
                    buf_cstr(end));
    q->wal_ns = time_monotonic_nanos();
    if (rc == SILT_OK)
        rc = stream_ckpt_write(&q->ckpt, "offsets", batch, b.data, b.len, 1, err);
    q->wal_ns = time_monotonic_nanos() - q->wal_ns;
    if (rc == SILT_OK)
        q->ckpt.last_offset = batch;
    buf_clear(&b);
    return rc;
}

static silt_status run_sink(stream_query *q, int64_t batch, silt_error *err)
{
    char version[32];
    sql_result *res = NULL;
    const sql_stmt *st = q->agg != NULL ? q->out_stmt : q->stmt;
    const char *text = q->agg != NULL ? q->out_text : q->text;
    size_t len = strlen(text);
    silt_status rc;
    if (q->sink == SINK_CONSOLE) {
        rc = sql_session_run_parsed(q->s, st, text, len, &res, err);
        if (rc == SILT_OK)
            rc = stream_console_batch(res, batch, q->o.console_rows, q->o.console, q->o.payload,
                                      err);
        sql_result_free(res);
        return rc;
    }
    snprintf(version, sizeof(version), "%lld", (long long)batch);
    rc = sql_session_set(q->s, SQL_SETTING_TXN_APP_ID, q->ckpt.id, err);
    if (rc == SILT_OK)
        rc = sql_session_set(q->s, SQL_SETTING_TXN_VERSION, version, err);
    if (rc == SILT_OK)
        rc = sql_session_run_parsed(q->s, st, text, len, NULL, err);
    sql_session_set(q->s, SQL_SETTING_TXN_APP_ID, NULL, NULL);
    sql_session_set(q->s, SQL_SETTING_TXN_VERSION, NULL, NULL);
    return rc;
}

static silt_status report(stream_query *q, stream_progress *p, silt_error *err)
{
    buf b;
    silt_status rc;
    buf_init(&b, 0);
    rc = stream_progress_json(p, &b, err);
    if (rc == SILT_OK) {
        pthread_mutex_lock(&q->mu);
        buf_truncate(&q->progress, 0);
        rc = buf_append(&q->progress, b.data, b.len, err);
        pthread_mutex_unlock(&q->mu);
    }
    buf_clear(&b);
    if (rc == SILT_OK && q->o.progress != NULL)
        q->o.progress(q->o.payload, p);
    return rc;
}

static silt_status run_batch(stream_query *q, int *ran, silt_error *err)
{
    int64_t batch = q->ckpt.last_commit + 1;
    int64_t t0 = time_monotonic_nanos(), now_ms = time_now_micros() / 1000, t1, t2, tb, tc;
    int64_t st_total = 0, st_updated = 0, st_removed = 0;
    stream_progress p;
    buf end;
    int empty = 0, nodata = 0;
    int64_t late_ms = 0, batch_wm, next_wm;
    char commit[96];
    silt_status rc;
    buf_init(&end, 0);
    *ran = 0;
    q->wal_ns = 0;
    rc = plan_batch(q, batch, now_ms, &end, &empty, &nodata, err);
    if (rc != SILT_OK || empty)
        goto done;
    batch_wm = q->wm_ms;
    /* late rows are judged by the previous batch's watermark (Spark's propagation) */
    if (evicts(q) && batch > 0)
        late_ms = q->last_batch_wm;
    if (q->agg != NULL)
        stream_agg_set_watermark(q->agg, q->o.mode, q->wm_key, late_ms * 1000, batch_wm * 1000);
    q->ev.seen = 0;
    q->ev.count = 0;
    q->ev.sum_ms = 0;
    t1 = time_monotonic_nanos();
    rc = q->src->ops->bind(q->src, q->s, BATCH_SOURCE, nodata, err);
    tb = time_monotonic_nanos();
    if (rc == SILT_OK && q->agg != NULL) {
        /* the state after this batch is in the checkpoint before the sink runs */
        rc = stream_agg_batch(q->agg, &q->ckpt, batch, err);
        if (rc == SILT_OK)
            stream_agg_stats(q->agg, &st_total, &st_updated, &st_removed);
        sql_session_unbind_source(q->s, BATCH_SOURCE);
        if (rc == SILT_OK)
            rc = stream_agg_bind_output(q->agg, err);
        if (rc == SILT_OK)
            rc = run_sink(q, batch, err);
        stream_agg_unbind_output(q->agg);
    } else if (rc == SILT_OK) {
        rc = run_sink(q, batch, err);
    }
    sql_session_unbind_source(q->s, BATCH_SOURCE);
    /* the next watermark: max event time seen - delay, never moving back (WatermarkTracker) */
    next_wm = batch_wm;
    if (q->wm.active && q->ev.seen && q->ev.max_us / 1000 - q->wm.delay_ms > next_wm)
        next_wm = q->ev.max_us / 1000 - q->wm.delay_ms;
    snprintf(commit, sizeof(commit), "v1\n{\"nextBatchWatermarkMs\":%lld}\n",
             (long long)next_wm);
    tc = time_monotonic_nanos();
    if (rc == SILT_OK)
        rc = stream_ckpt_write_commit(&q->ckpt, batch, commit, strlen(commit), err);
    if (rc != SILT_OK) {
        err_context(err, "while running batch %lld of the stream", (long long)batch);
        goto done;
    }
    t2 = time_monotonic_nanos();
    q->ckpt.last_commit = batch;
    if (!nodata)
        q->src->ops->commit(q->src);
    q->wm_ms = next_wm;
    q->last_batch_wm = batch_wm;
    q->need_nodata = evicts(q) && next_wm > batch_wm;
    *ran = 1;
    memset(&p, 0, sizeof(p));
    memcpy(p.id, q->ckpt.id, sizeof(p.id));
    memcpy(p.run_id, q->run_id, sizeof(p.run_id));
    p.batch_id = batch;
    p.timestamp_ms = now_ms;
    p.num_input_rows = q->src->ops->rows(q->src);
    p.duration_ms = (t2 - t0) / 1000000;
    p.plan_ms = (t1 - t0 - q->wal_ns) / 1000000; /* latestOffset without the walCommit */
    p.run_ms = (tc - tb) / 1000000;
    p.wal_ms = q->wal_ns / 1000000;
    p.get_batch_ms = (tb - t1) / 1000000;
    p.commit_ms = (t2 - tc) / 1000000;
    if (q->wm.active) {
        p.has_event_time = 1;
        p.watermark_ms = batch_wm;
        p.event_rows = q->ev.seen;
        p.evt_max_ms = q->ev.max_us / 1000;
        p.evt_min_ms = q->ev.min_us / 1000;
        p.evt_avg_ms = q->ev.count > 0 ? (int64_t)(q->ev.sum_ms / (double)q->ev.count) : 0;
    }
    if (q->agg != NULL) {
        p.has_state = 1;
        p.state_rows = st_total;
        p.state_updated = st_updated;
        p.state_removed = st_removed;
    }
    p.processed_rows_per_second = (double)p.num_input_rows * 1e9 / (double)(t2 - t0 + 1);
    p.input_rows_per_second =
        q->last_end_ms > 0 && now_ms > q->last_end_ms
            ? (double)p.num_input_rows * 1000.0 / (double)(now_ms - q->last_end_ms)
            : 0.0;
    p.source = q->src->desc;
    p.start_offset = q->src->start_json;
    p.end_offset = buf_cstr(&end);
    p.latest_offset = q->src->reports_latest ? p.end_offset : "null";
    p.sink = q->sink_desc;
    p.num_output_rows = q->sink == SINK_CONSOLE && q->agg == NULL ? p.num_input_rows : -1;
    rc = report(q, &p, err);
    q->src->start_json = arena_strdup(q->a, buf_cstr(&end));
    if (rc == SILT_OK && q->src->start_json == NULL)
        rc = err_nomem(err);
    q->last_end_ms = time_now_micros() / 1000;
done:
    buf_clear(&end);
    return rc;
}

/* Sleeps up to ms, waking early when stop is asked. */
static void pause_ms(stream_query *q, int64_t ms)
{
    while (ms > 0 && !atomic_load(&q->stop)) {
        int64_t step = ms < 50 ? ms : 50;
        struct timespec ts = {0, (long)step * 1000000L};
        nanosleep(&ts, NULL);
        ms -= step;
    }
}

silt_status stream_query_run(stream_query *q, silt_error *err)
{
    silt_status rc = SILT_OK;
    int ran;
    while (rc == SILT_OK && !atomic_load(&q->stop)) {
        int64_t start = time_monotonic_nanos() / 1000000, spent;
        rc = run_batch(q, &ran, err);
        if (rc != SILT_OK)
            break;
        if (q->o.trigger == STREAM_TRIGGER_ONCE)
            break;
        if (q->o.trigger == STREAM_TRIGGER_AVAILABLE_NOW && !ran)
            break;
        spent = time_monotonic_nanos() / 1000000 - start;
        if (q->o.trigger == STREAM_TRIGGER_PROCESSING_TIME)
            pause_ms(q, q->o.interval_ms - spent);
        else if (!ran && q->o.trigger == STREAM_TRIGGER_DEFAULT)
            pause_ms(q, 100); /* no input: poll again soon */
    }
    return rc;
}

/* ---------------------------------------------------------------- the SQL runner */

silt_status stream_run_statement(void *payload, sql_session *s, const sql_stmt *stmt,
                                 const char *text, size_t len, silt_error *err)
{
    stream_options o = STREAM_OPTIONS_INIT;
    stream_query *q = NULL;
    arena *a = arena_new(NULL, "stream statement");
    char *one;
    silt_status rc;
    (void)payload;
    (void)len;
    if (a == NULL)
        return err_nomem(err);
    one = arena_strndup(a, text + stmt->pos, stmt->end - stmt->pos);
    o.trigger = STREAM_TRIGGER_AVAILABLE_NOW;
    rc = one != NULL ? stream_query_open(&q, s, one, &o, err) : err_nomem(err);
    if (rc == SILT_OK)
        rc = stream_query_run(q, err);
    stream_query_free(q);
    arena_free(a);
    return rc;
}
