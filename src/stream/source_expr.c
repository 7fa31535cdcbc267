/*
 * source_expr.c - `STREAM src WATERMARK expr AS name DELAY OF ...`
 * (Databricks SQL's watermark clause over an expression): the source's rows
 * with one more column, name = expr, which is the event time the watermark
 * tracks (docs/streaming.md, "Windows and watermarks").
 *
 * The inner source is bound on a session of its own under RAW_NAME, and
 * the batch's rows are the result of `SELECT *, expr AS name FROM RAW_NAME`
 * run there, pulled as the query's statement pulls them (two sessions: the
 * query's statement is running on the first while this one is read). The
 * plan, the offsets and the commit are the inner source's.
 */
#include <string.h>

#include "stream/stream_int.h"

#define RAW_NAME "__silt_stream_raw"

typedef struct expr_src {
    stream_source base;
    stream_source *inner;
    sql_session *s2;     /* runs the projection over the inner source */
    char *sql;
    sql_result *res;
    stream_counted cnt;
} expr_src;

static void close_result(expr_src *x)
{
    sql_result_free(x->res);
    x->res = NULL;
    sql_session_unbind_source(x->s2, RAW_NAME);
}

static silt_status expr_plan(stream_source *src, stream_ckpt *c, int64_t batch_id, int limit,
                             buf *end, int *empty, silt_error *err)
{
    expr_src *x = (expr_src *)src;
    return x->inner->ops->plan(x->inner, c, batch_id, limit, end, empty, err);
}

static silt_status expr_replan(stream_source *src, stream_ckpt *c, int64_t batch_id,
                               const char *offset_json, silt_error *err)
{
    expr_src *x = (expr_src *)src;
    return x->inner->ops->replan(x->inner, c, batch_id, offset_json, err);
}

static void expr_commit(stream_source *src)
{
    expr_src *x = (expr_src *)src;
    x->inner->ops->commit(x->inner);
}

/* The projection's next batch, copied into the caller's arena (the result's lives one pull). */
static silt_status expr_next(void *payload, arena *a, col_batch **out, silt_error *err)
{
    expr_src *x = payload;
    col_batch *b = NULL, *copy;
    int64_t *rows, idx;
    size_t col;
    *out = NULL;
    if (x->res == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(sql_result_next(x->res, &b, err));
    if (b == NULL)
        return SILT_OK;
    copy = arena_calloc(a, 1, sizeof(*copy));
    rows = arena_calloc(a, (size_t)b->n_rows + 1, sizeof(int64_t));
    if (copy == NULL || rows == NULL ||
        (copy->cols = arena_calloc(a, b->n_cols + 1, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    for (idx = 0; idx < b->n_rows; idx++)
        rows[idx] = idx;
    for (col = 0; col < b->n_cols; col++)
        SILT_RETURN_IF_ERROR(col_vec_take(&copy->cols[col], a, b->cols[col], rows, b->n_rows,
                                          err));
    copy->schema = x->base.schema;
    copy->n_rows = b->n_rows;
    copy->n_cols = b->n_cols;
    *out = copy;
    return SILT_OK;
}

static silt_status expr_bind(stream_source *src, sql_session *s, const char *name,
                             int empty_range, silt_error *err)
{
    expr_src *x = (expr_src *)src;
    close_result(x);
    SILT_RETURN_IF_ERROR(x->inner->ops->bind(x->inner, x->s2, RAW_NAME, empty_range, err));
    SILT_RETURN_IF_ERROR(sql_execute(x->s2, x->sql, &x->res, err));
    x->cnt.fn = expr_next;
    x->cnt.payload = x;
    x->cnt.rows = 0;
    x->cnt.ev = x->base.evtime;
    return sql_session_bind_source(s, name, x->base.schema, stream_counted_next, &x->cnt, err);
}

static int64_t expr_rows(stream_source *src) { return ((expr_src *)src)->cnt.rows; }

static void expr_release(stream_source *src)
{
    expr_src *x = (expr_src *)src;
    close_result(x);
    x->inner->ops->release(x->inner);
    sql_session_free(x->s2);
}

static const stream_source_ops expr_ops = {"WatermarkExpression", expr_plan, expr_replan,
                                           expr_commit, expr_bind, expr_rows, expr_release};

/* The expression's text: from its first token up to the AS before the name. */
static char *expr_text(arena *a, const char *text, const sql_expr *alias)
{
    size_t from = alias->u.named.value->pos, to = alias->u.named.name.pos;
    while (to > from && (text[to - 1] == ' ' || text[to - 1] == '\n' || text[to - 1] == '\t'))
        to--;
    if (to >= from + 2 && util_str_ncasecmp(text + to - 2, "AS", 2) == 0)
        to -= 2;
    return arena_strndup(a, text + from, to - from);
}

silt_status stream_expr_source_new(stream_source **out, sql_session *s, arena *a,
                                   stream_source *inner, const sql_table_ref *ref,
                                   const char *text, silt_error *err)
{
    expr_src *x = arena_calloc(a, 1, sizeof(*x));
    const sql_expr *alias = ref->watermark;
    char *expr_sql;
    silt_status rc;
    if (x == NULL || (expr_sql = expr_text(a, text, alias)) == NULL) {
        inner->ops->release(inner);
        return err_nomem(err);
    }
    x->base.ops = &expr_ops;
    x->inner = inner;
    x->base.desc = inner->desc;
    x->base.start_json = inner->start_json;
    x->base.reports_latest = inner->reports_latest;
    x->sql = arena_sprintf(a, "SELECT *, %s AS `%s` FROM " RAW_NAME "%s%s%s", expr_sql,
                           alias->u.named.name.name, ref->alias.name ? " AS `" : "",
                           ref->alias.name ? ref->alias.name : "", ref->alias.name ? "`" : "");
    rc = x->sql != NULL ? sql_session_new_sibling(s, &x->s2, err) : err_nomem(err);
    if (rc != SILT_OK) {
        inner->ops->release(inner);
        return rc;
    }
    /* the schema: the projection over the source bound empty */
    rc = inner->ops->bind(inner, x->s2, RAW_NAME, 1, err);
    if (rc == SILT_OK)
        rc = sql_execute(x->s2, x->sql, &x->res, err);
    if (rc == SILT_OK)
        x->base.schema = col_type_copy(a, sql_result_schema(x->res));
    if (rc == SILT_OK && x->base.schema == NULL)
        rc = err_nomem(err);
    close_result(x);
    if (rc != SILT_OK) {
        err_context(err, "in the WATERMARK clause's expression %s", expr_sql);
        expr_release(&x->base);
        return rc;
    }
    *out = &x->base;
    return SILT_OK;
}
