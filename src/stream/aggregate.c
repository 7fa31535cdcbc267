/*
 * aggregate.c - stateful streaming aggregation: a streaming GROUP BY with
 * count, sum, min, max and avg in complete and update output modes
 * (docs/streaming.md, "Aggregation").
 *
 * The query `SELECT k, count(*), avg(x) FROM STREAM s WHERE ... GROUP BY k`
 * runs each batch in three steps, all through the engine:
 *
 *   partial  P: SELECT <GROUP BY exprs> AS __g0.., <plain items> AS __s0..,
 *               count(*) AS __p0, sum(CAST(x AS DOUBLE)) AS __p1, count(x)
 *               AS __p2 FROM <the batch> WHERE ... GROUP BY <the same>
 *   merge    M: the state so far UNION ALL P, grouped again by __g/__s with
 *               sum of counts and sums, min of mins, max of maxes (and
 *               __new = 1 for the groups this batch touched)
 *   output   F: the query's columns from M (avg = sum / count), all rows in
 *               complete mode, the touched ones in update mode.
 *
 * The state (M without __new) is kept in memory and written to the
 * checkpoint as state/N (a Parquet file of the state after batch N) before
 * the sink runs, so commits/N always has its state; a restart loads the
 * state of the last committed batch and a replayed batch recomputes the
 * same state from it.
 */
#include <stdio.h>
#include <string.h>

#include "formats/parquet/parquet.h"
#include "formats/parquet/writer.h"
#include "sql/parser.h"
#include "sql/prepared.h"
#include "stream/stream_int.h"
#include "util/mem.h"

#define STATE_NAME "__silt_stream_state"
#define PART_NAME "__silt_stream_part"

enum { SA_COUNT, SA_SUM, SA_MIN, SA_MAX, SA_AVG };

typedef struct out_col {
    int is_window; /* the window's struct over key __g<first> */
    int is_agg;
    int kind;      /* SA_* */
    size_t first;  /* the partial column (__p), or the plain one (__s) */
} out_col;

/* Rows kept between statements: batches copied into an arena, bound as a source. */
typedef struct rowset {
    arena *a;
    col_batch **items;
    size_t n, cap;
} rowset;

typedef struct rowset_cursor {
    const rowset *rows;
    const col_type *schema; /* may have fewer columns than the batches (the state without __new) */
    size_t next;
} rowset_cursor;

struct stream_agg {
    arena *a;
    sql_session *s;
    const char *text;
    size_t len;
    sql_stmt *partial;       /* P over the bound batch */
    size_t n_keys, n_plain, n_parts;
    int *part_kind;          /* the merge of each partial */
    size_t n_out;
    out_col *out;
    const col_type *state_schema;  /* __g.., __s.., __p.. */
    const col_type *full_schema;   /* the same and __new */
    const col_type *out_schema;    /* the query's columns (names and types) */
    char *merge_sql;
    rowset state;            /* M's rows, __new included */
    rowset part;
    rowset_cursor state_cur, part_cur;
    /* event time (append and update modes with a watermark) */
    const stream_window *win;
    stream_output_mode mode;
    int wm_key;              /* the key the watermark bounds, -1: none */
    int64_t late_us, evict_us;
    rowset kept;             /* the state after eviction (what state/N holds) */
    rowset emit;             /* append: the evicted groups, the batch's output */
    int split;               /* kept and emit are set for this batch */
};

/* ---------------------------------------------------------------- rowsets */

static void rowset_clear(rowset *r)
{
    arena_free(r->a);
    memset(r, 0, sizeof(*r));
}

/* Appends rows (indexes into b; NULL: all of them) of b to r, copied. */
static silt_status rowset_add_rows(rowset *r, const col_batch *b, const int64_t *pick,
                                   int64_t n_pick, silt_error *err)
{
    col_batch *copy;
    int64_t *rows, idx, n = pick != NULL ? n_pick : b->n_rows;
    size_t c;
    if (n == 0)
        return SILT_OK;
    if (r->a == NULL && (r->a = arena_new(NULL, "stream state")) == NULL)
        return err_nomem(err);
    if (r->n == r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 16;
        col_batch **p = arena_realloc(r->a, r->items, r->cap * sizeof(*p), ncap * sizeof(*p));
        if (p == NULL)
            return err_nomem(err);
        r->items = p;
        r->cap = ncap;
    }
    copy = arena_calloc(r->a, 1, sizeof(*copy));
    rows = arena_alloc(r->a, (size_t)n * sizeof(int64_t));
    if (copy == NULL || rows == NULL ||
        (copy->cols = arena_calloc(r->a, b->n_cols, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++)
        rows[idx] = pick != NULL ? pick[idx] : idx;
    for (c = 0; c < b->n_cols; c++) {
        col_vec *flat;
        /* a deep copy: the result's (or the file's) buffers do not outlive the statement */
        SILT_RETURN_IF_ERROR(col_vec_flatten(&flat, r->a, b->cols[c], err));
        SILT_RETURN_IF_ERROR(col_vec_take(&copy->cols[c], r->a, flat, rows, n, err));
    }
    copy->schema = NULL; /* the binder or the writer gives each use its schema */
    copy->n_rows = n;
    copy->n_cols = b->n_cols;
    r->items[r->n++] = copy;
    return SILT_OK;
}

static silt_status rowset_add(rowset *r, const col_batch *b, silt_error *err)
{
    return rowset_add_rows(r, b, NULL, 0, err);
}

/*
 * Splits in by the watermark: rows whose key's end (key + size) is at most
 * limit_us go to past (when not NULL), the others to rest (when not NULL).
 * A null key is never past (Spark's predicate is then null, not true).
 */
static silt_status rowset_split(const rowset *in, size_t key, int64_t size_us, int64_t limit_us,
                                rowset *rest, rowset *past, silt_error *err)
{
    size_t idx;
    int64_t *a_rows = NULL, *b_rows = NULL, cap = 0;
    silt_status rc = SILT_OK;
    for (idx = 0; rc == SILT_OK && idx < in->n; idx++) {
        const col_batch *b = in->items[idx];
        const col_vec *v = b->cols[key];
        const int64_t *vals = v->values;
        int64_t row, n_a = 0, n_b = 0;
        if (b->n_rows > cap) {
            mem_free(a_rows);
            mem_free(b_rows);
            cap = b->n_rows;
            a_rows = mem_alloc((size_t)cap * sizeof(int64_t));
            b_rows = mem_alloc((size_t)cap * sizeof(int64_t));
            if (a_rows == NULL || b_rows == NULL) {
                rc = err_nomem(err);
                break;
            }
        }
        for (row = 0; row < b->n_rows; row++) {
            if (!col_vec_is_null(v, row) && vals[row] + size_us <= limit_us)
                b_rows[n_b++] = row;
            else
                a_rows[n_a++] = row;
        }
        if (rest != NULL && n_a > 0)
            rc = rowset_add_rows(rest, b, a_rows, n_a, err);
        if (rc == SILT_OK && past != NULL && n_b > 0)
            rc = rowset_add_rows(past, b, b_rows, n_b, err);
    }
    mem_free(a_rows);
    mem_free(b_rows);
    return rc;
}

static silt_status rowset_next(void *payload, arena *a, col_batch **out, silt_error *err)
{
    rowset_cursor *cur = payload;
    col_batch *b;
    *out = NULL;
    if (cur->next >= cur->rows->n)
        return SILT_OK;
    b = arena_calloc(a, 1, sizeof(*b));
    if (b == NULL)
        return err_nomem(err);
    *b = *cur->rows->items[cur->next++];
    b->schema = cur->schema;
    b->n_cols = cur->schema->n_fields;
    *out = b;
    return SILT_OK;
}

static silt_status bind_rows(stream_agg *g, rowset_cursor *cur, const rowset *rows,
                             const char *name, const col_type *schema, silt_error *err)
{
    cur->rows = rows;
    cur->schema = schema;
    cur->next = 0;
    return sql_session_bind_source(g->s, name, schema, rowset_next, cur, err);
}

/* Runs a parsed statement into rows (NULL: only its schema into *schema). */
static silt_status run_into(stream_agg *g, const sql_stmt *st, rowset *rows,
                            const col_type **schema, silt_error *err)
{
    sql_result *res = NULL;
    col_batch *b = NULL;
    silt_status rc = sql_session_run_parsed(g->s, st, g->text, g->len, &res, err);
    if (rc == SILT_OK && schema != NULL)
        *schema = col_type_copy(g->a, sql_result_schema(res));
    while (rc == SILT_OK && rows != NULL) {
        rc = sql_result_next(res, &b, err);
        if (rc != SILT_OK || b == NULL)
            break;
        rc = rowset_add(rows, b, err);
    }
    sql_result_free(res);
    return rc;
}

static silt_status parse_query(stream_agg *g, const char *sql, sql_stmt **out, silt_error *err)
{
    sql_stmt_list *list;
    SILT_RETURN_IF_ERROR(sql_parse(g->a, sql, &list, err));
    if (list->n != 1 || list->items[0]->kind != SQL_STMT_QUERY)
        return err_set(err, SILT_RUNTIME, "the aggregation's statement is not one query: %s", sql);
    *out = list->items[0];
    return SILT_OK;
}

/* ---------------------------------------------------------------- the query's shape */

static int agg_kind(const sql_expr *e)
{
    static const char *const names[] = {"count", "sum", "min", "max", "avg", "mean"};
    static const int kinds[] = {SA_COUNT, SA_SUM, SA_MIN, SA_MAX, SA_AVG, SA_AVG};
    size_t idx;
    if (e->kind != SQL_EXPR_FUNC || e->u.func.name.n_parts != 1)
        return -1;
    for (idx = 0; idx < sizeof(names) / sizeof(names[0]); idx++)
        if (util_str_casecmp(e->u.func.name.parts[0].name, names[idx]) == 0)
            return kinds[idx];
    return -1;
}

static sql_expr *new_func(arena *a, const char *name, const sql_expr *like, sql_expr *arg)
{
    sql_expr *e = arena_calloc(a, 1, sizeof(*e));
    sql_ident *part = arena_calloc(a, 1, sizeof(*part));
    sql_expr **args = arena_calloc(a, 1, sizeof(*args));
    if (e == NULL || part == NULL || args == NULL)
        return NULL;
    part->name = name;
    part->pos = like->pos;
    e->kind = SQL_EXPR_FUNC;
    e->pos = like->pos;
    e->u.func.name.n_parts = 1;
    e->u.func.name.parts = part;
    e->u.func.filter = like->u.func.filter;
    args[0] = arg;
    e->u.func.args.n = 1;
    e->u.func.args.items = args;
    return e;
}

/* avg(x): the partials sum(CAST(x AS DOUBLE)) and count(x), as Spark's Average keeps them. */
static silt_status avg_partials(arena *a, const sql_expr *e, sql_expr **sum, sql_expr **cnt,
                                silt_error *err)
{
    sql_expr *cast = arena_calloc(a, 1, sizeof(*cast));
    if (cast == NULL)
        return err_nomem(err);
    cast->kind = SQL_EXPR_CAST;
    cast->pos = e->pos;
    cast->u.cast.arg = e->u.func.args.items[0];
    cast->u.cast.type.type = col_type_primitive(COL_DOUBLE);
    cast->u.cast.type.char_len = -1;
    cast->u.cast.type.pos = e->pos;
    *sum = new_func(a, "sum", e, cast);
    *cnt = new_func(a, "count", e, e->u.func.args.items[0]);
    return *sum != NULL && *cnt != NULL ? SILT_OK : err_nomem(err);
}

static silt_status check_shape(const sql_query *qr, silt_error *err)
{
    const sql_select *sel = &qr->u.select;
    size_t idx;
    if (qr->kind != SQL_QUERY_SELECT)
        return err_set(err, SILT_UNSUPPORTED, "a streaming aggregation must be one SELECT ... "
                       "GROUP BY (set operations over it are not supported yet)");
    if (sel->distinct)
        return err_set(err, SILT_UNSUPPORTED, "SELECT DISTINCT over a stream is not supported "
                       "yet");
    if (sel->having != NULL || sel->qualify != NULL || sel->n_windows > 0 ||
        sel->n_lateral_views > 0)
        return err_set(err, SILT_UNSUPPORTED, "HAVING, QUALIFY, WINDOW and LATERAL VIEW in a "
                       "streaming aggregation are not supported yet");
    if (qr->order_by.n > 0 || qr->sort_by.n > 0 || qr->distribute_by.n > 0 ||
        qr->cluster_by.n > 0 || qr->limit != NULL || qr->offset != NULL)
        return err_set(err, SILT_UNSUPPORTED, "ORDER BY, SORT BY, DISTRIBUTE BY, CLUSTER BY, "
                       "LIMIT and OFFSET on a streaming aggregation are not supported yet");
    if (sel->group_all)
        return err_set(err, SILT_UNSUPPORTED, "GROUP BY ALL over a stream is not supported yet: "
                       "name the grouping columns");
    for (idx = 0; idx < sel->n_group; idx++) {
        const sql_group_item *gi = &sel->group[idx];
        if (gi->kind != SQL_GROUP_EXPR)
            return err_set(err, SILT_UNSUPPORTED, "ROLLUP, CUBE and GROUPING SETS over a stream "
                           "are not supported yet");
        if (gi->expr->kind == SQL_EXPR_LITERAL)
            return err_set(err, SILT_UNSUPPORTED, "GROUP BY an ordinal over a stream is not "
                           "supported yet: name the grouping column");
    }
    return SILT_OK;
}

static const sql_expr *item_expr(const sql_select_item *it)
{
    const sql_expr *e = it->expr;
    return e->kind == SQL_EXPR_ALIAS ? e->u.named.value : e;
}

static silt_status check_agg(const sql_expr *e, int kind, silt_error *err)
{
    if (e->u.func.distinct)
        return err_set(err, SILT_UNSUPPORTED, "Distinct aggregations are not supported on "
                       "streaming DataFrames/Datasets. Consider using approx_count_distinct() "
                       "instead.");
    if (e->u.func.over != NULL || e->u.func.over_name != NULL)
        return err_set(err, SILT_UNSUPPORTED, "[NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING] "
                       "Window function is not supported on streaming DataFrames/Datasets");
    if (!(kind == SA_COUNT && e->u.func.star) && e->u.func.args.n != 1)
        return err_set(err, SILT_UNSUPPORTED, "%s over a stream takes one argument",
                       e->u.func.name.parts[0].name);
    return SILT_OK;
}

/* An item that holds an aggregate below its top (count(*) + 1): not supported yet. */
static int has_agg_below(const sql_expr *e)
{
    switch (e->kind) {
    case SQL_EXPR_UNARY: case SQL_EXPR_BINARY:
        return agg_kind(e->u.op.left) >= 0 || has_agg_below(e->u.op.left) ||
               (e->u.op.right != NULL &&
                (agg_kind(e->u.op.right) >= 0 || has_agg_below(e->u.op.right)));
    case SQL_EXPR_CAST:
        return agg_kind(e->u.cast.arg) >= 0 || has_agg_below(e->u.cast.arg);
    case SQL_EXPR_FUNC: {
        size_t idx;
        for (idx = 0; idx < e->u.func.args.n; idx++)
            if (agg_kind(e->u.func.args.items[idx]) >= 0 ||
                has_agg_below(e->u.func.args.items[idx]))
                return 1;
        return 0;
    }
    default:
        return 0;
    }
}

/* ---------------------------------------------------------------- building the statements */

static char *col_name(arena *a, const char *prefix, size_t n)
{
    return arena_sprintf(a, "%s%zu", prefix, n);
}

static silt_status add_item(stream_agg *g, sql_select_item **items, size_t *n, sql_expr *e,
                            const char *prefix, size_t k, silt_error *err)
{
    (*items)[*n].expr = e;
    (*items)[*n].alias = col_name(g->a, prefix, k);
    if ((*items)[*n].alias == NULL)
        return err_nomem(err);
    (*n)++;
    return SILT_OK;
}

static int is_window_item(const stream_agg *g, const sql_expr *e)
{
    size_t idx;
    for (idx = 0; g->win != NULL && idx < g->win->n_items; idx++)
        if (g->win->items[idx] == e)
            return 1;
    return 0;
}

/* P: the batch's partial aggregates by every GROUP BY expression and plain item. */
static silt_status build_partial(stream_agg *g, const sql_query *qr, silt_error *err)
{
    const sql_select *sel = &qr->u.select;
    sql_query *p = arena_alloc(g->a, sizeof(*p));
    sql_select_item *items = arena_calloc(g->a, sel->n_group + sel->n_items * 2 + 1,
                                          sizeof(*items));
    size_t n = 0, idx;
    g->out = arena_calloc(g->a, sel->n_items + 1, sizeof(*g->out));
    g->part_kind = arena_calloc(g->a, sel->n_items * 2 + 1, sizeof(int));
    g->partial = arena_calloc(g->a, 1, sizeof(*g->partial));
    if (p == NULL || items == NULL || g->out == NULL || g->part_kind == NULL ||
        g->partial == NULL)
        return err_nomem(err);
    for (idx = 0; idx < sel->n_group; idx++)
        SILT_RETURN_IF_ERROR(add_item(g, &items, &n, sel->group[idx].expr, "__g", g->n_keys++,
                                      err));
    for (idx = 0; idx < sel->n_items; idx++) {
        const sql_expr *e = item_expr(&sel->items[idx]);
        int kind = agg_kind(e);
        out_col *o = &g->out[g->n_out++];
        if (e->kind == SQL_EXPR_STAR)
            return err_set(err, SILT_UNSUPPORTED, "* in a streaming aggregation's select list "
                           "is not supported");
        if (is_window_item(g, e)) {
            /* shown from the key (the window's start), not kept as a value of its own */
            o->is_window = 1;
            o->first = g->win->group_idx;
            continue;
        }
        if (kind < 0 && has_agg_below(e))
            return err_set(err, SILT_UNSUPPORTED, "an expression over aggregates in a streaming "
                           "aggregation is not supported yet: select the aggregates themselves "
                           "(count, sum, min, max, avg)");
        if (kind < 0) {
            o->first = g->n_plain;
            SILT_RETURN_IF_ERROR(add_item(g, &items, &n, sel->items[idx].expr, "__s",
                                          g->n_plain++, err));
            continue;
        }
        SILT_RETURN_IF_ERROR(check_agg(e, kind, err));
        o->is_agg = 1;
        o->kind = kind;
        o->first = g->n_parts;
        if (kind == SA_AVG) {
            sql_expr *sum = NULL, *cnt = NULL;
            SILT_RETURN_IF_ERROR(avg_partials(g->a, e, &sum, &cnt, err));
            g->part_kind[g->n_parts] = SA_SUM;
            SILT_RETURN_IF_ERROR(add_item(g, &items, &n, sum, "__p", g->n_parts++, err));
            g->part_kind[g->n_parts] = SA_COUNT;
            SILT_RETURN_IF_ERROR(add_item(g, &items, &n, cnt, "__p", g->n_parts++, err));
        } else {
            g->part_kind[g->n_parts] = kind;
            SILT_RETURN_IF_ERROR(add_item(g, &items, &n, (sql_expr *)e, "__p", g->n_parts++,
                                          err));
        }
    }
    *p = *qr;
    p->u.select.items = items;
    p->u.select.n_items = n;
    g->partial->kind = SQL_STMT_QUERY;
    g->partial->u.query = p;
    return SILT_OK;
}

static silt_status append_keys(stream_agg *g, buf *b, silt_error *err)
{
    size_t idx;
    const char *sep = "";
    for (idx = 0; idx < g->n_keys; idx++, sep = ", ")
        SILT_RETURN_IF_ERROR(buf_printf(b, err, "%s__g%zu", sep, idx));
    for (idx = 0; idx < g->n_plain; idx++, sep = ", ")
        SILT_RETURN_IF_ERROR(buf_printf(b, err, "%s__s%zu", sep, idx));
    return SILT_OK;
}

/* M: the state and the batch's partials grouped again. */
static silt_status build_merge(stream_agg *g, silt_error *err)
{
    static const char *const merge_fn[] = {"sum", "sum", "min", "max"};
    buf b, t;
    size_t idx, keys = g->n_keys + g->n_plain;
    silt_status rc;
    buf_init(&b, 0);
    buf_init(&t, 0);
    rc = buf_append_str(&b, "SELECT ", err);
    if (rc == SILT_OK && keys > 0)
        rc = append_keys(g, &b, err);
    for (idx = 0; rc == SILT_OK && idx < g->n_parts; idx++) {
        const col_type *type = g->state_schema->fields[keys + idx].type;
        const char *sep = keys + idx > 0 ? ", " : "";
        if (type->id == COL_DECIMAL) {
            /* a sum of decimal sums keeps the partial's type (Spark's state does) */
            buf_truncate(&t, 0);
            rc = col_type_format(type, &t, err);
            if (rc == SILT_OK)
                rc = buf_printf(&b, err, "%sCAST(%s(__p%zu) AS %s) AS __p%zu", sep,
                                merge_fn[g->part_kind[idx]], idx, buf_cstr(&t), idx);
        } else {
            rc = buf_printf(&b, err, "%s%s(__p%zu) AS __p%zu", sep, merge_fn[g->part_kind[idx]],
                            idx, idx);
        }
    }
    if (rc == SILT_OK)
        rc = buf_printf(&b, err, ", max(__new) AS __new FROM (SELECT *, 0 AS __new FROM "
                        STATE_NAME " UNION ALL SELECT *, 1 AS __new FROM " PART_NAME ")");
    if (rc == SILT_OK && keys > 0) {
        rc = buf_append_str(&b, " GROUP BY ", err);
        if (rc == SILT_OK)
            rc = append_keys(g, &b, err);
    }
    if (rc == SILT_OK && (g->merge_sql = arena_strdup(g->a, buf_cstr(&b))) == NULL)
        rc = err_nomem(err);
    buf_clear(&b);
    buf_clear(&t);
    return rc;
}

static silt_status append_quoted(buf *b, const char *name, silt_error *err)
{
    const char *p;
    SILT_RETURN_IF_ERROR(buf_append_char(b, '`', err));
    for (p = name; *p != '\0'; p++)
        SILT_RETURN_IF_ERROR(*p == '`' ? buf_append_str(b, "``", err)
                                       : buf_append_char(b, *p, err));
    return buf_append_char(b, '`', err);
}

silt_status stream_agg_output_sql(stream_agg *g, int touched_only, buf *out, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_append_str(out, "SELECT ", err));
    for (idx = 0; idx < g->n_out; idx++) {
        const out_col *o = &g->out[idx];
        if (idx > 0)
            SILT_RETURN_IF_ERROR(buf_append_str(out, ", ", err));
        if (o->is_window)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "named_struct('start', __g%zu, 'end', "
                                            "timestamp_micros(unix_micros(__g%zu) + %lld))",
                                            o->first, o->first, (long long)g->win->size_us));
        else if (!o->is_agg)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "__s%zu", o->first));
        else if (o->kind == SA_AVG)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "CASE WHEN __p%zu = 0 THEN CAST(NULL AS "
                                            "DOUBLE) ELSE __p%zu / __p%zu END", o->first + 1,
                                            o->first, o->first + 1));
        else
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "__p%zu", o->first));
        SILT_RETURN_IF_ERROR(buf_append_str(out, " AS ", err));
        SILT_RETURN_IF_ERROR(append_quoted(out, g->out_schema->fields[idx].name, err));
    }
    SILT_RETURN_IF_ERROR(buf_append_str(out, " FROM " STATE_NAME, err));
    return touched_only ? buf_append_str(out, " WHERE __new = 1", err) : SILT_OK;
}

/* ---------------------------------------------------------------- opening */

static const col_type *with_new(arena *a, const col_type *st)
{
    col_field *f = arena_calloc(a, st->n_fields + 1, sizeof(*f));
    if (f == NULL)
        return NULL;
    memcpy(f, st->fields, st->n_fields * sizeof(*f));
    f[st->n_fields].name = "__new";
    f[st->n_fields].type = col_type_primitive(COL_INT);
    f[st->n_fields].nullable = 1;
    f[st->n_fields].field_id = -1;
    return col_type_struct(a, st->n_fields + 1, f);
}

silt_status stream_agg_open(stream_agg **out, sql_session *s, arena *a, sql_query *qr,
                            stream_source *src, const char *batch_name, const char *text,
                            size_t len, const stream_window *win, silt_error *err)
{
    stream_agg *g = arena_calloc(a, 1, sizeof(*g));
    sql_stmt whole;
    size_t idx;
    silt_status rc;
    *out = NULL;
    if (g == NULL)
        return err_nomem(err);
    g->a = a;
    g->s = s;
    g->text = text;
    g->len = len;
    g->win = win != NULL && win->size_us > 0 ? win : NULL;
    g->wm_key = -1;
    SILT_RETURN_IF_ERROR(check_shape(qr, err));
    SILT_RETURN_IF_ERROR(build_partial(g, qr, err));
    /* the schemas: P's (the state's) and the query's own, from an empty batch */
    memset(&whole, 0, sizeof(whole));
    whole.kind = SQL_STMT_QUERY;
    whole.u.query = qr;
    rc = src->ops->bind(src, s, batch_name, 1, err);
    if (rc == SILT_OK)
        rc = run_into(g, g->partial, NULL, &g->state_schema, err);
    if (rc == SILT_OK)
        rc = run_into(g, &whole, NULL, &g->out_schema, err);
    sql_session_unbind_source(s, batch_name);
    SILT_RETURN_IF_ERROR(rc);
    if (g->state_schema == NULL || g->out_schema == NULL ||
        (g->full_schema = with_new(a, g->state_schema)) == NULL)
        return err_nomem(err);
    if (g->out_schema->n_fields != g->n_out)
        return err_set(err, SILT_RUNTIME, "the streaming aggregation has %zu columns, its "
                       "query %zu", g->n_out, g->out_schema->n_fields);
    for (idx = 0; idx < g->n_out; idx++)
        if (g->out[idx].is_agg && g->out[idx].kind == SA_AVG &&
            g->out_schema->fields[idx].type->id == COL_DECIMAL)
            return err_set(err, SILT_UNSUPPORTED, "avg of a DECIMAL over a stream is not "
                           "supported yet (its state would lose Spark's decimal result)");
    SILT_RETURN_IF_ERROR(build_merge(g, err));
    *out = g;
    return SILT_OK;
}

void stream_agg_free(stream_agg *g)
{
    if (g == NULL)
        return;
    rowset_clear(&g->state);
    rowset_clear(&g->part);
    rowset_clear(&g->kept);
    rowset_clear(&g->emit);
}

int stream_agg_watermark_key(const stream_agg *g, const stream_watermark *wm,
                             const stream_window *win)
{
    (void)g;
    if (!wm->active)
        return -1;
    if (win != NULL && win->size_us > 0)
        return util_str_casecmp(win->ts_name, wm->column) == 0 ? (int)win->group_idx : -1;
    return -2; /* the caller looks for the column among the GROUP BY items */
}

void stream_agg_set_watermark(stream_agg *g, stream_output_mode mode, int key, int64_t late_us,
                              int64_t evict_us)
{
    g->mode = mode;
    g->wm_key = key;
    g->late_us = late_us;
    g->evict_us = evict_us;
}

static int64_t key_size(const stream_agg *g)
{
    return g->win != NULL && (size_t)g->wm_key == g->win->group_idx ? g->win->size_us : 0;
}

/* ---------------------------------------------------------------- the state in the checkpoint */

static silt_status write_state(stream_agg *g, stream_ckpt *c, int64_t batch, silt_error *err)
{
    char key[48];
    pqw_writer *w = NULL;
    size_t idx;
    silt_status rc;
    if (c->store == NULL)
        return SILT_OK; /* no checkpoint: the state lives as long as the stream */
    snprintf(key, sizeof(key), "state/%lld", (long long)batch);
    /* a batch replayed after a crash writes its state again (the same rows) */
    rc = io_delete(c->store, key, err);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        rc = SILT_OK;
    }
    if (rc == SILT_OK)
        rc = pqw_writer_open(&w, c->store, key, g->state_schema, NULL, err);
    for (idx = 0; rc == SILT_OK && idx < (g->split ? g->kept.n : g->state.n); idx++) {
        col_batch b = *(g->split ? g->kept.items[idx] : g->state.items[idx]);
        b.schema = g->state_schema;
        b.n_cols = g->state_schema->n_fields;
        rc = pqw_writer_write_batch(w, &b, err);
    }
    if (rc == SILT_OK)
        return pqw_writer_close(w, NULL, err);
    pqw_writer_abort(w);
    return rc;
}

/* Gives the loaded state the __new column (0), so it is M's shape. */
static silt_status mark_old(stream_agg *g, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < g->state.n; idx++) {
        col_batch *b = g->state.items[idx];
        col_vec **cols = arena_calloc(g->state.a, b->n_cols + 1, sizeof(*cols));
        if (cols == NULL)
            return err_nomem(err);
        memcpy(cols, b->cols, b->n_cols * sizeof(*cols));
        SILT_RETURN_IF_ERROR(col_vec_new(&cols[b->n_cols], g->state.a,
                                         col_type_primitive(COL_INT), b->n_rows, 0, err));
        b->cols = cols;
        b->n_cols++;
        b->schema = g->full_schema;
    }
    return SILT_OK;
}

silt_status stream_agg_load(stream_agg *g, stream_ckpt *c, int64_t batch, silt_error *err)
{
    char key[48];
    pq_file *f = NULL;
    pq_reader *r = NULL;
    arena *tmp;
    col_batch *b = NULL;
    silt_status rc;
    rowset_clear(&g->state);
    if (batch < 0 || c->store == NULL)
        return SILT_OK;
    snprintf(key, sizeof(key), "state/%lld", (long long)batch);
    if ((tmp = arena_new(NULL, "stream state file")) == NULL)
        return err_nomem(err);
    rc = pq_file_open(&f, c->store, key, err);
    if (rc == SILT_NOTFOUND)
        rc = err_set(err, SILT_CORRUPT, "the checkpoint commits batch %lld but has no state/%lld "
                     "for its aggregation", (long long)batch, (long long)batch);
    if (rc == SILT_OK && !col_type_equal(pq_file_schema(f), g->state_schema))
        rc = err_set(err, SILT_INVALID, "state/%lld of the checkpoint has another schema than "
                     "this aggregation's: the query changed; give it a new checkpoint",
                     (long long)batch);
    if (rc == SILT_OK)
        rc = pq_reader_open(&r, f, NULL, err);
    while (rc == SILT_OK) {
        rc = pq_reader_next(r, tmp, &b, err);
        if (rc != SILT_OK || b == NULL)
            break;
        rc = rowset_add(&g->state, b, err);
        arena_reset(tmp);
    }
    pq_reader_free(r);
    pq_file_free(f);
    arena_free(tmp);
    if (rc != SILT_OK)
        return rc;
    return mark_old(g, err);
}

/* ---------------------------------------------------------------- one batch */

silt_status stream_agg_batch(stream_agg *g, stream_ckpt *c, int64_t batch, silt_error *err)
{
    rowset merged;
    sql_stmt *m = NULL;
    silt_status rc;
    memset(&merged, 0, sizeof(merged));
    rowset_clear(&g->part);
    rowset_clear(&g->kept);
    rowset_clear(&g->emit);
    g->split = 0;
    rc = run_into(g, g->partial, &g->part, NULL, err);
    if (rc == SILT_OK && g->wm_key >= 0 && g->mode != STREAM_MODE_COMPLETE) {
        /* late rows: the groups the previous batch's watermark closed (Spark drops them) */
        rowset fresh;
        memset(&fresh, 0, sizeof(fresh));
        rc = rowset_split(&g->part, (size_t)g->wm_key, key_size(g), g->late_us, &fresh, NULL,
                          err);
        rowset_clear(&g->part);
        g->part = fresh;
    }
    if (rc == SILT_OK)
        rc = parse_query(g, g->merge_sql, &m, err);
    if (rc == SILT_OK)
        rc = bind_rows(g, &g->state_cur, &g->state, STATE_NAME, g->state_schema, err);
    if (rc == SILT_OK)
        rc = bind_rows(g, &g->part_cur, &g->part, PART_NAME, g->state_schema, err);
    if (rc == SILT_OK)
        rc = run_into(g, m, &merged, NULL, err);
    sql_session_unbind_source(g->s, STATE_NAME);
    sql_session_unbind_source(g->s, PART_NAME);
    rowset_clear(&g->part);
    if (rc != SILT_OK) {
        rowset_clear(&merged);
        return rc;
    }
    rowset_clear(&g->state);
    g->state = merged;
    if (g->wm_key >= 0 && g->mode != STREAM_MODE_COMPLETE) {
        /* eviction: the groups this batch's watermark closed leave the state */
        rc = rowset_split(&g->state, (size_t)g->wm_key, key_size(g), g->evict_us, &g->kept,
                          g->mode == STREAM_MODE_APPEND ? &g->emit : NULL, err);
        if (rc != SILT_OK)
            return rc;
        g->split = 1;
    }
    return write_state(g, c, batch, err);
}

static int64_t rowset_rows(const rowset *r)
{
    int64_t n = 0;
    size_t idx;
    for (idx = 0; idx < r->n; idx++)
        n += r->items[idx]->n_rows;
    return n;
}

void stream_agg_stats(const stream_agg *g, int64_t *total, int64_t *updated, int64_t *removed)
{
    size_t idx, col = g->full_schema->n_fields - 1; /* __new */
    int64_t row;
    *updated = 0;
    for (idx = 0; idx < g->state.n; idx++) {
        const col_batch *b = g->state.items[idx];
        const col_vec *v = col < b->n_cols ? b->cols[col] : NULL;
        if (v == NULL || v->values == NULL || v->dictionary != NULL || v->type->id != COL_INT)
            continue;
        for (row = 0; row < b->n_rows; row++)
            *updated += !col_vec_is_null(v, row) && ((const int32_t *)v->values)[row] == 1;
    }
    *total = g->split ? rowset_rows(&g->kept) : rowset_rows(&g->state);
    *removed = g->split ? rowset_rows(&g->state) - *total : 0;
}

silt_status stream_agg_bind_output(stream_agg *g, silt_error *err)
{
    /* append with a watermark: the evicted groups are the output, each once */
    const rowset *rows = g->split && g->mode == STREAM_MODE_APPEND ? &g->emit : &g->state;
    return bind_rows(g, &g->state_cur, rows, STATE_NAME, g->full_schema, err);
}

void stream_agg_unbind_output(stream_agg *g)
{
    sql_session_unbind_source(g->s, STATE_NAME);
    if (g->split) {
        /* the state goes on without the evicted groups */
        rowset_clear(&g->state);
        rowset_clear(&g->emit);
        g->state = g->kept;
        memset(&g->kept, 0, sizeof(g->kept));
        g->split = 0;
    }
}
