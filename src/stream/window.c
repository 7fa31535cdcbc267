/*
 * window.c - event time over a stream: the WATERMARK clause of a STREAM
 * source (Databricks SQL: `STREAM src WATERMARK ts DELAY OF INTERVAL 10
 * MINUTES`) and time windows in a streaming GROUP BY (`window(ts, '10
 * minutes' [, slide [, startTime]])`), docs/streaming.md "Windows and
 * watermarks".
 *
 * A window is Spark's TimeWindowing rewritten into the query:
 *
 *   - the STREAM reference becomes a subquery over the batch that adds the
 *     window's start as __silt_wstart (a TIMESTAMP): lastStart = ts -
 *     pmod(ts - startTime, slide), and for a sliding window one row per
 *     overlapping window i in [0, ceil(size / slide)) (a cross join with
 *     VALUES), start = lastStart - i * slide; rows are kept when ts is not
 *     null (size a multiple of slide) or ts in [start, start + size), as
 *     Spark's Expand and Filter do;
 *   - `window(...)` in GROUP BY becomes __silt_wstart (the engine groups by
 *     a timestamp, not by a struct), and in the select list
 *     named_struct('start', __silt_wstart, 'end', __silt_wstart + size),
 *     named `window` when it has no alias, as Spark names it.
 *
 * The aggregation (aggregate.c) keeps the start as the group key and knows
 * the window's size, so a group's window end is key + size.
 */
#include <stdio.h>
#include <string.h>

#include "sql/parser.h"
#include "stream/stream_int.h"

#define WSTART "__silt_wstart"

/* ---------------------------------------------------------------- durations */

static int unit_micros(const char *u, size_t n, int64_t *out)
{
    static const struct { const char *name; int64_t us; } units[] = {
        {"week", 7LL * 86400 * 1000000}, {"day", 86400LL * 1000000},
        {"hour", 3600LL * 1000000},      {"minute", 60LL * 1000000},
        {"second", 1000000},             {"millisecond", 1000},
        {"microsecond", 1},              {"min", 60LL * 1000000},
        {"sec", 1000000},                {"ms", 1000},
        {"us", 1}};
    size_t idx;
    if (n > 1 && u[n - 1] == 's' && !(n == 2 && (u[0] == 'm' || u[0] == 'u')))
        n--; /* plural */
    for (idx = 0; idx < sizeof(units) / sizeof(units[0]); idx++)
        if (strlen(units[idx].name) == n && util_str_ncasecmp(units[idx].name, u, n) == 0) {
            *out = units[idx].us;
            return 1;
        }
    return 0;
}

/*
 * A duration as Spark's interval strings write it ('10 minutes', '1 hour 30
 * minutes', 'interval 5 seconds') in microseconds; months and years are
 * refused, as Spark refuses them in windows and watermark delays.
 */
silt_status stream_duration_micros(const char *text, const char *what, int64_t *out,
                                   silt_error *err)
{
    const char *p = text;
    int64_t total = 0;
    int parts = 0;
    while (*p == ' ')
        p++;
    if (util_str_ncasecmp(p, "interval", 8) == 0 && (p[8] == ' ' || p[8] == '\0'))
        p += 8;
    for (;;) {
        int64_t n = 0, us;
        const char *u;
        int digits = 0;
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        while (*p >= '0' && *p <= '9' && digits < 15) {
            n = n * 10 + (*p++ - '0');
            digits++;
        }
        while (*p == ' ')
            p++;
        for (u = p; (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'); p++)
            ;
        if (digits == 0 || p == u)
            return err_set(err, SILT_BIND, "The provided interval (%s) for %s is not valid: "
                           "write a number and a unit ('10 minutes')", text, what);
        if (!unit_micros(u, (size_t)(p - u), &us))
            return err_set(err, SILT_BIND, "The provided interval (%s) for %s is not valid: "
                           "\"%.*s\" is not a unit of weeks, days, hours, minutes, seconds, "
                           "milliseconds or microseconds (months and years are not supported)",
                           text, what, (int)(p - u), u);
        total += n * us;
        parts++;
    }
    if (parts == 0)
        return err_set(err, SILT_BIND, "The provided interval (%s) for %s is empty", text, what);
    *out = total;
    return SILT_OK;
}

/* INTERVAL 10 MINUTES / INTERVAL '10' MINUTE / INTERVAL '10 minutes' in microseconds. */
static silt_status interval_micros(const sql_expr *e, int64_t *out, silt_error *err)
{
    size_t idx;
    int64_t total = 0;
    if (e->kind != SQL_EXPR_LITERAL || e->u.lit.kind != SQL_LIT_INTERVAL || e->u.lit.to_unit)
        return err_set(err, SILT_BIND, "the delay of a WATERMARK clause must be an interval "
                       "literal (DELAY OF INTERVAL 10 MINUTES)");
    for (idx = 0; idx < e->u.lit.n_parts; idx++) {
        const sql_interval_part *part = &e->u.lit.parts[idx];
        int64_t us;
        char text[96];
        if (part->unit == NULL) {
            SILT_RETURN_IF_ERROR(stream_duration_micros(part->value, "the watermark delay", &us,
                                                        err));
        } else {
            snprintf(text, sizeof(text), "%s %s", part->value, part->unit);
            if (part->value[0] == '-')
                return err_set(err, SILT_BIND, "the watermark delay must be positive: %s",
                               text);
            SILT_RETURN_IF_ERROR(stream_duration_micros(text, "the watermark delay", &us, err));
        }
        total += us;
    }
    if (total <= 0)
        return err_set(err, SILT_BIND, "the watermark delay must be positive");
    *out = total;
    return SILT_OK;
}

/* ---------------------------------------------------------------- the watermark */

silt_status stream_watermark_open(stream_watermark *w, const sql_table_ref *ref,
                                  const col_type *schema, silt_error *err)
{
    const sql_expr *e = ref->watermark;
    const char *name;
    int64_t delay_us = 0;
    size_t idx;
    memset(w, 0, sizeof(*w));
    w->col = -1;
    if (e == NULL)
        return SILT_OK;
    if (e->kind != SQL_EXPR_COLUMN && e->kind != SQL_EXPR_ALIAS)
        return err_set(err, SILT_BIND, "[REQUIRES_EXPLICIT_NAME_IN_WATERMARK_CLAUSE] The "
                       "watermark clause requires an explicit name if expression is specified");
    /* expr AS name: the source already carries the column name (source_expr.c) */
    name = e->kind == SQL_EXPR_ALIAS ? e->u.named.name.name
                                     : e->u.column.parts[e->u.column.n_parts - 1].name;
    for (idx = 0; idx < schema->n_fields; idx++)
        if (util_str_casecmp(schema->fields[idx].name, name) == 0)
            break;
    if (idx == schema->n_fields)
        return err_set(err, SILT_BIND, "[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, "
                       "variable, or function parameter with name `%s` cannot be resolved "
                       "(the WATERMARK clause's event time)", name);
    if (schema->fields[idx].type->id != COL_TIMESTAMP)
        return err_set(err, SILT_BIND, "[EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE] The event time "
                       "`%s` has the invalid type \"%s\", but expected \"TIMESTAMP\"", name,
                       col_type_id_name(schema->fields[idx].type->id));
    SILT_RETURN_IF_ERROR(interval_micros(ref->watermark_delay, &delay_us, err));
    w->active = 1;
    w->col = (int)idx;
    w->column = schema->fields[idx].name;
    /* Spark's delayMs: the interval in milliseconds */
    w->delay_ms = delay_us / 1000;
    return SILT_OK;
}

/* ---------------------------------------------------------------- windows */

static int is_window_call(const sql_expr *e)
{
    return e->kind == SQL_EXPR_FUNC && e->u.func.name.n_parts == 1 && e->u.func.over == NULL &&
           util_str_casecmp(e->u.func.name.parts[0].name, "window") == 0;
}

static silt_status str_arg(const sql_expr *e, const char **out, silt_error *err)
{
    if (e->kind != SQL_EXPR_LITERAL || e->u.lit.kind != SQL_LIT_STRING)
        return err_set(err, SILT_BIND, "the durations of window() over a stream must be string "
                       "literals ('10 minutes')");
    *out = e->u.lit.str;
    return SILT_OK;
}

static silt_status append_name(buf *b, const sql_name *n, silt_error *err)
{
    size_t idx;
    const char *p;
    for (idx = 0; idx < n->n_parts; idx++) {
        if (idx > 0)
            SILT_RETURN_IF_ERROR(buf_append_char(b, '.', err));
        SILT_RETURN_IF_ERROR(buf_append_char(b, '`', err));
        for (p = n->parts[idx].name; *p != '\0'; p++)
            SILT_RETURN_IF_ERROR(*p == '`' ? buf_append_str(b, "``", err)
                                           : buf_append_char(b, *p, err));
        SILT_RETURN_IF_ERROR(buf_append_char(b, '`', err));
    }
    return SILT_OK;
}

/* The window's time column, durations and start; the first call sets w, later ones must match. */
static silt_status read_window(const sql_expr *e, stream_window *w, arena *a, silt_error *err)
{
    const sql_expr *ts;
    const char *size = NULL, *slide = NULL, *start = NULL;
    int64_t size_us, slide_us, start_us = 0;
    buf b;
    char *text;
    silt_status rc;
    if (e->u.func.args.n < 2 || e->u.func.args.n > 4)
        return err_set(err, SILT_BIND, "[WRONG_NUM_ARGS] window() takes 2 to 4 arguments: "
                       "window(timeColumn, windowDuration[, slideDuration[, startTime]])");
    ts = e->u.func.args.items[0];
    if (ts->kind != SQL_EXPR_COLUMN)
        return err_set(err, SILT_UNSUPPORTED, "window() over a stream takes a column as its "
                       "time (an expression is not supported yet)");
    SILT_RETURN_IF_ERROR(str_arg(e->u.func.args.items[1], &size, err));
    if (e->u.func.args.n > 2)
        SILT_RETURN_IF_ERROR(str_arg(e->u.func.args.items[2], &slide, err));
    if (e->u.func.args.n > 3)
        SILT_RETURN_IF_ERROR(str_arg(e->u.func.args.items[3], &start, err));
    SILT_RETURN_IF_ERROR(stream_duration_micros(size, "windowDuration", &size_us, err));
    slide_us = size_us;
    if (slide != NULL)
        SILT_RETURN_IF_ERROR(stream_duration_micros(slide, "slideDuration", &slide_us, err));
    if (start != NULL)
        SILT_RETURN_IF_ERROR(stream_duration_micros(start, "startTime", &start_us, err));
    if (size_us <= 0)
        return err_set(err, SILT_BIND, "The window duration (%s) must be greater than 0.", size);
    if (slide_us <= 0)
        return err_set(err, SILT_BIND, "The slide duration (%s) must be greater than 0.", slide);
    if (slide_us > size_us)
        return err_set(err, SILT_BIND, "The slide duration (%s) must be less than or equal to "
                       "the windowDuration (%s).", slide, size);
    if (start_us >= slide_us)
        return err_set(err, SILT_BIND, "The absolute value of start time (%s) must be less "
                       "than the slideDuration (%s).", start, slide ? slide : size);
    buf_init(&b, 0);
    rc = append_name(&b, &ts->u.column, err);
    text = rc == SILT_OK ? arena_strdup(a, buf_cstr(&b)) : NULL;
    buf_clear(&b);
    if (rc == SILT_OK && text == NULL)
        rc = err_nomem(err);
    SILT_RETURN_IF_ERROR(rc);
    if (w->size_us == 0) {
        w->size_us = size_us;
        w->slide_us = slide_us;
        w->start_us = start_us;
        w->ts_sql = text;
        w->ts_name = ts->u.column.parts[ts->u.column.n_parts - 1].name;
        return SILT_OK;
    }
    if (w->size_us != size_us || w->slide_us != slide_us || w->start_us != start_us ||
        util_str_casecmp(w->ts_sql, text) != 0)
        return err_set(err, SILT_UNSUPPORTED, "Multiple time/session window expressions would "
                       "result in a cartesian product of rows, therefore they are currently not "
                       "supported.");
    return SILT_OK;
}

static silt_status parse_select(arena *a, const char *sql, sql_query **out, silt_error *err)
{
    sql_stmt_list *list;
    SILT_RETURN_IF_ERROR(sql_parse(a, sql, &list, err));
    if (list->n != 1 || list->items[0]->kind != SQL_STMT_QUERY ||
        list->items[0]->u.query->kind != SQL_QUERY_SELECT)
        return err_set(err, SILT_RUNTIME, "the window's statement is not one SELECT: %s", sql);
    *out = list->items[0]->u.query;
    return SILT_OK;
}

/* An expression from SQL text (the first item of SELECT <text>). */
static silt_status parse_expr(arena *a, const char *text, sql_expr **out, silt_error *err)
{
    sql_query *qr = NULL;
    char *sql = arena_sprintf(a, "SELECT %s", text);
    if (sql == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(parse_select(a, sql, &qr, err));
    *out = qr->u.select.items[0].expr;
    return SILT_OK;
}

/* The STREAM reference (already the bound batch) as the subquery that adds __silt_wstart. */
static silt_status window_source(arena *a, sql_table_ref *ref, const char *batch_name,
                                 const stream_window *w, silt_error *err)
{
    int64_t n_windows = (w->size_us + w->slide_us - 1) / w->slide_us, idx;
    const char *alias = ref->alias.name;
    buf b, q;
    sql_query *qr = NULL;
    silt_status rc;
    buf_init(&b, 0);
    buf_init(&q, 0);
    rc = SILT_OK;
    if (alias != NULL) {
        sql_name n;
        sql_ident part;
        part.name = alias;
        part.pos = 0;
        n.n_parts = 1;
        n.parts = &part;
        rc = buf_append_str(&q, " AS ", err);
        if (rc == SILT_OK)
            rc = append_name(&q, &n, err);
    }
    /* lastStart - i * slide, as Spark's TimeWindowing.getWindow (pmod keeps it below ts) */
    if (rc == SILT_OK)
        rc = buf_printf(&b, err, "SELECT * FROM (SELECT *, timestamp_micros(unix_micros(%s) - "
                        "pmod(unix_micros(%s) - %lld, %lld)%s) AS " WSTART " FROM %s%s",
                        w->ts_sql, w->ts_sql, (long long)w->start_us, (long long)w->slide_us,
                        n_windows > 1 ? arena_sprintf(a, " - __silt_w.__silt_wi * %lld",
                                                      (long long)w->slide_us)
                                      : "",
                        batch_name, buf_cstr(&q));
    if (rc == SILT_OK && n_windows > 1) {
        rc = buf_append_str(&b, " CROSS JOIN (VALUES ", err);
        for (idx = 0; rc == SILT_OK && idx < n_windows; idx++)
            rc = buf_printf(&b, err, "%s(%lld)", idx > 0 ? ", " : "", (long long)idx);
        if (rc == SILT_OK)
            rc = buf_append_str(&b, ") AS __silt_w(__silt_wi)", err);
    }
    if (rc == SILT_OK)
        rc = buf_printf(&b, err, ")%s WHERE ", buf_cstr(&q));
    if (rc == SILT_OK && w->size_us % w->slide_us == 0)
        rc = buf_printf(&b, err, "%s IS NOT NULL", w->ts_sql);
    else if (rc == SILT_OK)
        rc = buf_printf(&b, err, "%s >= " WSTART " AND %s < timestamp_micros(unix_micros("
                        WSTART ") + %lld)", w->ts_sql, w->ts_sql, (long long)w->size_us);
    if (rc == SILT_OK) {
        char *sql = arena_sprintf(a, "SELECT * FROM (%s)%s", buf_cstr(&b), buf_cstr(&q));
        rc = sql != NULL ? parse_select(a, sql, &qr, err) : err_nomem(err);
    }
    if (rc == SILT_OK) {
        sql_table_ref *sub = qr->u.select.from[0];
        sub->watermark = ref->watermark;
        sub->watermark_delay = ref->watermark_delay;
        *ref = *sub;
    }
    buf_clear(&b);
    buf_clear(&q);
    return rc;
}

silt_status stream_window_rewrite(arena *a, sql_query *qr, sql_table_ref *ref,
                                  const char *batch_name, stream_window *w, silt_error *err)
{
    sql_select *sel;
    size_t idx, n_items = 0, n_group = 0;
    char *text;
    memset(w, 0, sizeof(*w));
    if (qr->kind != SQL_QUERY_SELECT)
        return SILT_OK;
    sel = &qr->u.select;
    for (idx = 0; idx < sel->n_items; idx++) {
        sql_expr *e = sel->items[idx].expr;
        if (e->kind == SQL_EXPR_ALIAS)
            e = e->u.named.value;
        if (is_window_call(e)) {
            SILT_RETURN_IF_ERROR(read_window(e, w, a, err));
            n_items++;
        }
    }
    for (idx = 0; idx < sel->n_group; idx++)
        if (sel->group[idx].kind == SQL_GROUP_EXPR && is_window_call(sel->group[idx].expr)) {
            SILT_RETURN_IF_ERROR(read_window(sel->group[idx].expr, w, a, err));
            n_group++;
        }
    if (w->size_us == 0)
        return SILT_OK;
    if (n_group != 1)
        return err_set(err, SILT_UNSUPPORTED, "window() over a stream must be in the GROUP BY "
                       "of a streaming aggregation (once)");
    if (sel->n_from != 1 || sel->from[0] != ref)
        return err_set(err, SILT_UNSUPPORTED, "window() over a stream that is joined with other "
                       "tables is not supported yet");
    w->items = arena_calloc(a, n_items + 1, sizeof(*w->items));
    if (w->items == NULL)
        return err_nomem(err);
    text = arena_sprintf(a, "named_struct('start', " WSTART ", 'end', timestamp_micros("
                         "unix_micros(" WSTART ") + %lld))", (long long)w->size_us);
    if (text == NULL)
        return err_nomem(err);
    for (idx = 0; idx < sel->n_items; idx++) {
        sql_expr *e = sel->items[idx].expr, *repl;
        if (e->kind == SQL_EXPR_ALIAS)
            e = e->u.named.value;
        if (!is_window_call(e))
            continue;
        SILT_RETURN_IF_ERROR(parse_expr(a, text, &repl, err));
        *e = *repl; /* in place: the node's address marks it for aggregate.c */
        w->items[w->n_items++] = e;
        if (sel->items[idx].alias == NULL && sel->items[idx].expr == e)
            sel->items[idx].alias = "window";
    }
    for (idx = 0; idx < sel->n_group; idx++)
        if (sel->group[idx].kind == SQL_GROUP_EXPR && is_window_call(sel->group[idx].expr)) {
            SILT_RETURN_IF_ERROR(parse_expr(a, WSTART, &sel->group[idx].expr, err));
            w->group_idx = idx;
        }
    return window_source(a, ref, batch_name, w, err);
}
