/*
 * ast.c - prints syntax trees as S-expressions.
 *
 * The output is deterministic and covers every field of the tree, so the
 * parser tests compare it verbatim (tests/sql/parse/NAME.txt). Conventions:
 * identifiers print as written, backquoted when they were quoted; strings
 * print in single quotes with \' \\ \n \t \xNN escapes; optional parts are
 * printed only when present.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sql/ast.h"

typedef struct printer {
    buf *out;
    silt_error *err;
    silt_status rc;
    int depth; /* of pr_expr: a tree deeper than SQL_PRINT_MAX_DEPTH prints "..." below */
} printer;

/* As deep as binding goes (SQL_BIND_MAX_DEPTH is 400): a flat chain of 100,000 operators
 * overflowed the stack here (issue 15); the binder refuses such a statement anyway. */
#define SQL_PRINT_MAX_DEPTH 1000

static void pr(printer *w, const char *fmt, ...) SILT_PRINTF(2, 3);

static void pr(printer *w, const char *fmt, ...)
{
    va_list ap;
    if (w->rc != SILT_OK)
        return;
    va_start(ap, fmt);
    w->rc = buf_vprintf(w->out, w->err, fmt, ap);
    va_end(ap);
}

static void pr_str(printer *w, const char *s, size_t len)
{
    pr(w, "'");
    for (size_t idx = 0; idx < len; idx++) {
        unsigned char c = (unsigned char)s[idx];
        if (c == '\'' || c == '\\')
            pr(w, "\\%c", c);
        else if (c == '\n')
            pr(w, "\\n");
        else if (c == '\t')
            pr(w, "\\t");
        else if (c < 0x20 || c == 0x7f)
            pr(w, "\\x%02x", c);
        else
            pr(w, "%c", c);
    }
    pr(w, "'");
}

static void pr_cstr(printer *w, const char *s) { pr_str(w, s, strlen(s)); }

static void pr_ident(printer *w, const sql_ident *id)
{
    if (!id->quoted) {
        pr(w, "%s", id->name);
        return;
    }
    pr(w, "`");
    for (const char *c = id->name; *c != '\0'; c++)
        pr(w, *c == '`' ? "``" : "%c", *c);
    pr(w, "`");
}

/* A name kept as a plain string (aliases, CTE names): backquoted unless a simple word. */
static void pr_word(printer *w, const char *name)
{
    sql_ident id = {name, 0, 0};
    for (const char *c = name; *c != '\0'; c++) {
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_'))
            id.quoted = 1;
    }
    pr_ident(w, &id);
}

static void pr_name(printer *w, const sql_name *n)
{
    if (n->is_path && n->n_parts == 1) {
        pr(w, "(path ");
        pr_cstr(w, n->parts[0].name);
        pr(w, ")");
        return;
    }
    for (size_t idx = 0; idx < n->n_parts; idx++) {
        if (idx > 0)
            pr(w, ".");
        pr_ident(w, &n->parts[idx]);
    }
}

static void pr_idents(printer *w, const sql_ident_list *l)
{
    pr(w, "(");
    for (size_t idx = 0; idx < l->n; idx++) {
        if (idx > 0)
            pr(w, " ");
        pr_ident(w, &l->items[idx]);
    }
    pr(w, ")");
}

static void pr_type(printer *w, const sql_type *t)
{
    if (t->is_char) {
        pr(w, "%s(%d)", t->is_char == 1 ? "varchar" : "char", (int)t->char_len);
        return;
    }
    if (w->rc == SILT_OK)
        w->rc = col_type_format(t->type, w->out, w->err);
}

static void pr_expr(printer *w, const sql_expr *e);
static void pr_query(printer *w, const sql_query *q);
static void pr_stmt(printer *w, const sql_stmt *s);

static void pr_exprs(printer *w, const sql_expr_list *l)
{
    for (size_t idx = 0; idx < l->n; idx++) {
        pr(w, " ");
        pr_expr(w, l->items[idx]);
    }
}

const char *sql_op_name(sql_op op)
{
    static const char *const names[] = {
        "?", "neg", "pos", "~", "not", "+", "-", "*", "/", "%", "div", "||", "&", "|", "^",
        "<<", ">>", ">>>", "=", "<>", "<", "<=", ">", ">=", "<=>", "distinct-from", "and", "or"};
    return (size_t)op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

/* The shortest of %.15g/%.17g that reads back as the same double. */
static void pr_double(printer *w, const char *kind, double v)
{
    char text[64];
    double back = 0;
    snprintf(text, sizeof(text), "%.15g", v);
    if (!util_str_to_double(text, strlen(text), &back) || back != v)
        snprintf(text, sizeof(text), "%.17g", v);
    pr(w, "(%s %s)", kind, text);
}

static void pr_literal(printer *w, const sql_literal *l)
{
    switch (l->kind) {
    case SQL_LIT_NULL: pr(w, "null"); break;
    case SQL_LIT_BOOL: pr(w, "%s", l->i64 ? "true" : "false"); break;
    case SQL_LIT_BYTE: pr(w, "(byte %lld)", (long long)l->i64); break;
    case SQL_LIT_SHORT: pr(w, "(short %lld)", (long long)l->i64); break;
    case SQL_LIT_INT: pr(w, "%lld", (long long)l->i64); break;
    case SQL_LIT_LONG: pr(w, "(long %lld)", (long long)l->i64); break;
    case SQL_LIT_DECIMAL: {
        size_t n = strlen(l->digits);
        pr(w, "(decimal(%d,%d) %s", (int)l->precision, (int)l->scale, l->negative ? "-" : "");
        if ((size_t)l->scale >= n) {
            pr(w, "0.");
            for (size_t idx = n; idx < (size_t)l->scale; idx++)
                pr(w, "0");
            pr(w, "%s", l->digits);
        } else if (l->scale > 0) {
            pr(w, "%.*s.%s", (int)(n - (size_t)l->scale), l->digits,
               l->digits + n - (size_t)l->scale);
        } else {
            pr(w, "%s", l->digits);
        }
        pr(w, ")");
        break;
    }
    case SQL_LIT_DOUBLE: pr_double(w, "double", l->f64); break;
    case SQL_LIT_FLOAT: pr_double(w, "float", l->f64); break;
    case SQL_LIT_STRING: pr_str(w, l->str, l->str_len); break;
    case SQL_LIT_BINARY:
        pr(w, "(binary X'");
        for (size_t idx = 0; idx < l->str_len; idx++)
            pr(w, "%02X", (unsigned char)l->str[idx]);
        pr(w, "')");
        break;
    case SQL_LIT_DATE: pr(w, "(date "); pr_cstr(w, l->str); pr(w, " %lld)", (long long)l->i64); break;
    case SQL_LIT_TIMESTAMP:
    case SQL_LIT_TIMESTAMP_NTZ:
        pr(w, "(%s ", l->kind == SQL_LIT_TIMESTAMP ? "timestamp" : "timestamp_ntz");
        pr_cstr(w, l->str);
        pr(w, " %lld)", (long long)l->i64);
        break;
    case SQL_LIT_INTERVAL:
        pr(w, "(interval");
        for (size_t idx = 0; idx < l->n_parts; idx++) {
            pr(w, " ");
            pr_cstr(w, l->parts[idx].value);
            if (l->parts[idx].unit != NULL)
                pr(w, " %s", l->parts[idx].unit);
        }
        if (l->to_unit != NULL)
            pr(w, " to %s", l->to_unit);
        pr(w, ")");
        break;
    }
}

static void pr_order(printer *w, const char *head, const sql_order_list *o)
{
    if (o->n == 0)
        return;
    pr(w, " (%s", head);
    for (size_t idx = 0; idx < o->n; idx++) {
        const sql_order_item *it = &o->items[idx];
        pr(w, " (");
        pr_expr(w, it->expr);
        pr(w, "%s%s)", it->desc ? " desc" : " asc",
           it->nulls == 1 ? " nulls-first" : it->nulls == 2 ? " nulls-last" : "");
    }
    pr(w, ")");
}

static void pr_bound(printer *w, const sql_frame_bound *b)
{
    static const char *const names[] = {"", "unbounded-preceding", "preceding", "current-row",
                                        "following", "unbounded-following"};
    if (b->offset != NULL) {
        pr(w, " (%s ", names[b->kind]);
        pr_expr(w, b->offset);
        pr(w, ")");
    } else {
        pr(w, " %s", names[b->kind]);
    }
}

static void pr_window(printer *w, const sql_window *win)
{
    pr(w, "(window");
    if (win->base_name != NULL)
        pr(w, " %s", win->base_name);
    if (win->partition_by.n > 0) {
        pr(w, " (partition-by");
        pr_exprs(w, &win->partition_by);
        pr(w, ")");
    }
    pr_order(w, "order-by", &win->order_by);
    if (win->frame != 0) {
        pr(w, " (%s", win->frame == 1 ? "rows" : "range");
        pr_bound(w, &win->start);
        if (win->end.kind != SQL_BOUND_NONE)
            pr_bound(w, &win->end);
        pr(w, ")");
    }
    pr(w, ")");
}

static void pr_func(printer *w, const sql_expr *e)
{
    pr(w, "(call ");
    pr_name(w, &e->u.func.name);
    if (e->u.func.distinct)
        pr(w, " distinct");
    if (e->u.func.star)
        pr(w, " *");
    if (e->u.func.trim != 0)
        pr(w, " %s", e->u.func.trim == 1 ? "both" : e->u.func.trim == 2 ? "leading" : "trailing");
    pr_exprs(w, &e->u.func.args);
    if (e->u.func.nulls != 0)
        pr(w, " %s", e->u.func.nulls == 1 ? "ignore-nulls" : "respect-nulls");
    if (e->u.func.filter != NULL) {
        pr(w, " (filter ");
        pr_expr(w, e->u.func.filter);
        pr(w, ")");
    }
    if (e->u.func.over != NULL) {
        pr(w, " (over ");
        pr_window(w, e->u.func.over);
        pr(w, ")");
    }
    if (e->u.func.over_name != NULL)
        pr(w, " (over %s)", e->u.func.over_name);
    pr(w, ")");
}

static void pr_expr_node(printer *w, const sql_expr *e);

static void pr_expr(printer *w, const sql_expr *e)
{
    if (w->depth >= SQL_PRINT_MAX_DEPTH) {
        pr(w, "...");
        return;
    }
    w->depth++;
    pr_expr_node(w, e);
    w->depth--;
}

static void pr_expr_node(printer *w, const sql_expr *e)
{
    static const char *const is_names[] = {"null", "true", "false", "unknown"};
    static const char *const like_names[] = {"like", "ilike", "rlike"};
    if (e == NULL) {
        pr(w, "<null>");
        return;
    }
    switch (e->kind) {
    case SQL_EXPR_LITERAL: pr_literal(w, &e->u.lit); break;
    case SQL_EXPR_COLUMN: pr_name(w, &e->u.column); break;
    case SQL_EXPR_STAR:
        if (e->u.column.n_parts > 0) {
            pr_name(w, &e->u.column);
            pr(w, ".");
        }
        pr(w, "*");
        break;
    case SQL_EXPR_UNARY:
        pr(w, "(%s ", sql_op_name(e->u.op.op));
        pr_expr(w, e->u.op.left);
        pr(w, ")");
        break;
    case SQL_EXPR_BINARY:
        pr(w, "(%s ", sql_op_name(e->u.op.op));
        pr_expr(w, e->u.op.left);
        pr(w, " ");
        pr_expr(w, e->u.op.right);
        pr(w, ")");
        break;
    case SQL_EXPR_IS:
        pr(w, "(is-%s%s ", e->u.is.negated ? "not-" : "", is_names[e->u.is.what]);
        pr_expr(w, e->u.is.arg);
        pr(w, ")");
        break;
    case SQL_EXPR_BETWEEN:
        pr(w, "(%sbetween ", e->u.between.negated ? "not-" : "");
        pr_expr(w, e->u.between.arg);
        pr(w, " ");
        pr_expr(w, e->u.between.low);
        pr(w, " ");
        pr_expr(w, e->u.between.high);
        pr(w, ")");
        break;
    case SQL_EXPR_IN_LIST:
        pr(w, "(%sin ", e->u.in.negated ? "not-" : "");
        pr_expr(w, e->u.in.arg);
        pr(w, " (list");
        pr_exprs(w, &e->u.in.list);
        pr(w, "))");
        break;
    case SQL_EXPR_IN_QUERY:
        pr(w, "(%sin ", e->u.in.negated ? "not-" : "");
        pr_expr(w, e->u.in.arg);
        pr(w, " ");
        pr_query(w, e->u.in.query);
        pr(w, ")");
        break;
    case SQL_EXPR_EXISTS:
    case SQL_EXPR_SUBQUERY:
        pr(w, "(%s ", e->kind == SQL_EXPR_EXISTS ? "exists" : "subquery");
        pr_query(w, e->u.in.query);
        pr(w, ")");
        break;
    case SQL_EXPR_LIKE:
        pr(w, "(%s%s%s ", e->u.like.negated ? "not-" : "", like_names[e->u.like.like],
           e->u.like.quant == SQL_QUANT_ANY ? "-any" : e->u.like.quant == SQL_QUANT_ALL ? "-all" : "");
        pr_expr(w, e->u.like.arg);
        pr_exprs(w, &e->u.like.patterns);
        if (e->u.like.escape != NULL) {
            pr(w, " (escape ");
            pr_expr(w, e->u.like.escape);
            pr(w, ")");
        }
        pr(w, ")");
        break;
    case SQL_EXPR_CASE:
        pr(w, "(case");
        if (e->u.case_.operand != NULL) {
            pr(w, " ");
            pr_expr(w, e->u.case_.operand);
        }
        for (size_t idx = 0; idx < e->u.case_.n_whens; idx++) {
            pr(w, " (when ");
            pr_expr(w, e->u.case_.whens[idx].cond);
            pr(w, " ");
            pr_expr(w, e->u.case_.whens[idx].result);
            pr(w, ")");
        }
        if (e->u.case_.else_result != NULL) {
            pr(w, " (else ");
            pr_expr(w, e->u.case_.else_result);
            pr(w, ")");
        }
        pr(w, ")");
        break;
    case SQL_EXPR_CAST:
        pr(w, "(%s ", e->u.cast.is_try ? "try_cast" : "cast");
        pr_expr(w, e->u.cast.arg);
        pr(w, " ");
        pr_type(w, &e->u.cast.type);
        pr(w, ")");
        break;
    case SQL_EXPR_FUNC: pr_func(w, e); break;
    case SQL_EXPR_FIELD:
        pr(w, "(field ");
        pr_expr(w, e->u.access.base);
        pr(w, " ");
        pr_ident(w, &e->u.access.field);
        pr(w, ")");
        break;
    case SQL_EXPR_SUBSCRIPT:
        pr(w, "(subscript ");
        pr_expr(w, e->u.access.base);
        pr(w, " ");
        pr_expr(w, e->u.access.index);
        pr(w, ")");
        break;
    case SQL_EXPR_LAMBDA:
        pr(w, "(lambda ");
        pr_idents(w, &e->u.lambda.params);
        pr(w, " ");
        pr_expr(w, e->u.lambda.body);
        pr(w, ")");
        break;
    case SQL_EXPR_ROW:
        pr(w, "(row");
        pr_exprs(w, &e->u.row);
        pr(w, ")");
        break;
    case SQL_EXPR_NAMED_ARG:
        pr(w, "(=> ");
        pr_ident(w, &e->u.named.name);
        pr(w, " ");
        pr_expr(w, e->u.named.value);
        pr(w, ")");
        break;
    case SQL_EXPR_ALIAS:
        pr(w, "(as ");
        pr_expr(w, e->u.named.value);
        pr(w, " ");
        pr_ident(w, &e->u.named.name);
        pr(w, ")");
        break;
    case SQL_EXPR_EXTRACT:
        pr(w, "(extract ");
        pr_ident(w, &e->u.extract.field);
        pr(w, " ");
        pr_expr(w, e->u.extract.arg);
        pr(w, ")");
        break;
    case SQL_EXPR_PARAM:
        if (e->u.param.name != NULL)
            pr(w, "(param :%s)", e->u.param.name);
        else
            pr(w, "(param ?)");
        break;
    }
}

/* ------------------------------------------------------------------ queries */

static void pr_alias(printer *w, const sql_alias *a)
{
    if (a->name == NULL)
        return;
    pr(w, " (as ");
    pr_word(w, a->name);
    if (a->columns.n > 0) {
        pr(w, " ");
        pr_idents(w, &a->columns);
    }
    pr(w, ")");
}

static void pr_version(printer *w, const sql_table_version *at)
{
    if (at->ref != NULL)
        pr(w, " @%s", at->ref);
    if (at->version != NULL) {
        pr(w, " (version-as-of ");
        pr_expr(w, at->version);
        pr(w, ")");
    }
    if (at->timestamp != NULL) {
        pr(w, " (timestamp-as-of ");
        pr_expr(w, at->timestamp);
        pr(w, ")");
    }
}

static void pr_columns(printer *w, const char *head, const sql_column_list *l);

static void pr_table(printer *w, const sql_table_ref *r)
{
    static const char *const joins[] = {"inner", "left", "right", "full", "cross", "semi", "anti"};
    if (r->stream)
        pr(w, "(stream ");
    switch (r->kind) {
    case SQL_TABLE_NAMED:
        pr(w, "(table ");
        pr_name(w, &r->u.named.name);
        pr_version(w, &r->u.named.at);
        break;
    case SQL_TABLE_FUNC:
        pr(w, "(tvf ");
        pr_name(w, &r->u.func.name);
        pr_exprs(w, &r->u.func.args);
        if (r->u.func.with_cols != NULL)
            pr_columns(w, "with", r->u.func.with_cols);
        break;
    case SQL_TABLE_SUBQUERY:
        pr(w, "(derived%s ", r->u.subquery.lateral ? " lateral" : "");
        pr_query(w, r->u.subquery.query);
        break;
    case SQL_TABLE_PIVOT:
        pr(w, "(pivot ");
        pr_table(w, r->u.pivot.source);
        pr(w, " (aggregates");
        pr_exprs(w, &r->u.pivot.aggregates);
        pr(w, ") (for ");
        pr_idents(w, &r->u.pivot.columns);
        pr(w, ") (in");
        pr_exprs(w, &r->u.pivot.values);
        pr(w, ")");
        break;
    case SQL_TABLE_UNPIVOT:
        pr(w, "(unpivot%s ", r->u.unpivot.include_nulls ? " include-nulls" : "");
        pr_table(w, r->u.unpivot.source);
        pr(w, " (values ");
        pr_idents(w, &r->u.unpivot.value_columns);
        pr(w, ") (for ");
        pr_ident(w, &r->u.unpivot.name_column);
        pr(w, ") (in");
        pr_exprs(w, &r->u.unpivot.columns);
        pr(w, ")");
        break;
    case SQL_TABLE_JOIN:
        pr(w, "(join %s%s ", r->u.join.natural ? "natural-" : "", joins[r->u.join.join]);
        pr_table(w, r->u.join.left);
        pr(w, " ");
        pr_table(w, r->u.join.right);
        if (r->u.join.on != NULL) {
            pr(w, " (on ");
            pr_expr(w, r->u.join.on);
            pr(w, ")");
        }
        if (r->u.join.using_cols.n > 0) {
            pr(w, " (using ");
            pr_idents(w, &r->u.join.using_cols);
            pr(w, ")");
        }
        break;
    }
    if (r->sample != NULL) {
        static const char *const kinds[] = {"percent", "rows", "bucket"};
        pr(w, " (tablesample %s ", kinds[r->sample->kind]);
        pr_expr(w, r->sample->amount);
        if (r->sample->out_of != NULL) {
            pr(w, " ");
            pr_expr(w, r->sample->out_of);
        }
        if (r->sample->seed != NULL) {
            pr(w, " (repeatable ");
            pr_expr(w, r->sample->seed);
            pr(w, ")");
        }
        pr(w, ")");
    }
    pr_alias(w, &r->alias);
    pr(w, ")");
    if (r->stream) {
        size_t idx;
        for (idx = 0; idx < r->stream_options.n; idx++)
            pr(w, " (%s %s)", r->stream_options.items[idx].key,
               r->stream_options.items[idx].value ? r->stream_options.items[idx].value : "");
        pr(w, ")");
    }
}

static void pr_select(printer *w, const sql_select *s)
{
    pr(w, "select%s", s->distinct ? " distinct" : "");
    for (size_t idx = 0; idx < s->n_items; idx++) {
        pr(w, " ");
        if (s->items[idx].alias != NULL)
            pr(w, "(as ");
        pr_expr(w, s->items[idx].expr);
        if (s->items[idx].alias != NULL) {
            pr(w, " ");
            pr_word(w, s->items[idx].alias);
            pr(w, ")");
        }
    }
    if (s->n_from > 0) {
        pr(w, " (from");
        for (size_t idx = 0; idx < s->n_from; idx++) {
            pr(w, " ");
            pr_table(w, s->from[idx]);
        }
        pr(w, ")");
    }
    for (size_t idx = 0; idx < s->n_lateral_views; idx++) {
        const sql_lateral_view *lv = &s->lateral_views[idx];
        pr(w, " (lateral-view%s ", lv->outer ? " outer" : "");
        pr_expr(w, lv->func);
        pr(w, " ");
        pr_word(w, lv->table_alias);
        if (lv->columns.n > 0) {
            pr(w, " ");
            pr_idents(w, &lv->columns);
        }
        pr(w, ")");
    }
    if (s->where != NULL) {
        pr(w, " (where ");
        pr_expr(w, s->where);
        pr(w, ")");
    }
    if (s->group_all)
        pr(w, " (group-by all)");
    if (s->n_group > 0) {
        pr(w, " (group-by");
        for (size_t idx = 0; idx < s->n_group; idx++) {
            const sql_group_item *g = &s->group[idx];
            static const char *const kinds[] = {"", "rollup", "cube", "grouping-sets"};
            pr(w, " ");
            if (g->kind == SQL_GROUP_EXPR) {
                pr_expr(w, g->expr);
                continue;
            }
            pr(w, "(%s", kinds[g->kind]);
            for (size_t set = 0; set < g->n_sets; set++) {
                pr(w, " (");
                for (size_t item = 0; item < g->sets[set].n; item++) {
                    if (item > 0)
                        pr(w, " ");
                    pr_expr(w, g->sets[set].items[item]);
                }
                pr(w, ")");
            }
            pr(w, ")");
        }
        pr(w, ")");
    }
    if (s->having != NULL) {
        pr(w, " (having ");
        pr_expr(w, s->having);
        pr(w, ")");
    }
    for (size_t idx = 0; idx < s->n_windows; idx++) {
        pr(w, " (define-window %s ", s->windows[idx].name);
        pr_window(w, s->windows[idx].window);
        pr(w, ")");
    }
    if (s->qualify != NULL) {
        pr(w, " (qualify ");
        pr_expr(w, s->qualify);
        pr(w, ")");
    }
}

static void pr_ctes(printer *w, size_t n_ctes, const sql_cte *ctes)
{
    if (n_ctes == 0)
        return;
    pr(w, " (with");
    for (size_t idx = 0; idx < n_ctes; idx++) {
        pr(w, " (cte ");
        pr_word(w, ctes[idx].name);
        if (ctes[idx].columns.n > 0) {
            pr(w, " ");
            pr_idents(w, &ctes[idx].columns);
        }
        pr(w, " ");
        pr_query(w, ctes[idx].query);
        pr(w, ")");
    }
    pr(w, ")");
}

static void pr_query(printer *w, const sql_query *q)
{
    static const char *const setops[] = {"union", "intersect", "except"};
    pr(w, "(");
    switch (q->kind) {
    case SQL_QUERY_SELECT: pr_select(w, &q->u.select); break;
    case SQL_QUERY_SETOP:
        pr(w, "%s%s ", setops[q->u.setop.op], q->u.setop.all ? "-all" : "");
        pr_query(w, q->u.setop.left);
        pr(w, " ");
        pr_query(w, q->u.setop.right);
        break;
    case SQL_QUERY_VALUES:
        pr(w, "values");
        for (size_t idx = 0; idx < q->u.values.n_rows; idx++) {
            pr(w, " (");
            for (size_t col = 0; col < q->u.values.rows[idx].n; col++) {
                if (col > 0)
                    pr(w, " ");
                pr_expr(w, q->u.values.rows[idx].items[col]);
            }
            pr(w, ")");
        }
        break;
    case SQL_QUERY_TABLE:
        pr(w, "table ");
        pr_name(w, &q->u.table);
        break;
    case SQL_QUERY_NESTED:
        pr(w, "query ");
        pr_query(w, q->u.nested);
        break;
    }
    pr_ctes(w, q->n_ctes, q->ctes);
    pr_order(w, "order-by", &q->order_by);
    if (q->cluster_by.n > 0) {
        pr(w, " (cluster-by");
        pr_exprs(w, &q->cluster_by);
        pr(w, ")");
    }
    if (q->distribute_by.n > 0) {
        pr(w, " (distribute-by");
        pr_exprs(w, &q->distribute_by);
        pr(w, ")");
    }
    pr_order(w, "sort-by", &q->sort_by);
    if (q->limit != NULL) {
        pr(w, " (limit ");
        pr_expr(w, q->limit);
        pr(w, ")");
    }
    if (q->offset != NULL) {
        pr(w, " (offset ");
        pr_expr(w, q->offset);
        pr(w, ")");
    }
    pr(w, ")");
}

/* ------------------------------------------------------------------ statements */

static void pr_flag(printer *w, int on, const char *name)
{
    if (on)
        pr(w, " %s", name);
}

static void pr_opt_str(printer *w, const char *head, const char *s)
{
    if (s == NULL)
        return;
    pr(w, " (%s ", head);
    pr_cstr(w, s);
    pr(w, ")");
}

static void pr_opt_name(printer *w, const char *head, const sql_name *n)
{
    if (n->n_parts == 0)
        return;
    pr(w, " (%s ", head);
    pr_name(w, n);
    pr(w, ")");
}

static void pr_opt_idents(printer *w, const char *head, const sql_ident_list *l)
{
    if (l->n == 0)
        return;
    pr(w, " (%s ", head);
    pr_idents(w, l);
    pr(w, ")");
}

static void pr_opt_expr(printer *w, const char *head, const sql_expr *e)
{
    if (e == NULL)
        return;
    pr(w, " (%s ", head);
    pr_expr(w, e);
    pr(w, ")");
}

static void pr_opt_query(printer *w, const char *head, const sql_query *q)
{
    if (q == NULL)
        return;
    pr(w, " (%s ", head);
    pr_query(w, q);
    pr(w, ")");
}

static void pr_kvs(printer *w, const char *head, const sql_kv_list *l)
{
    if (l->n == 0)
        return;
    pr(w, " (%s", head);
    for (size_t idx = 0; idx < l->n; idx++) {
        pr(w, " (");
        pr_cstr(w, l->items[idx].key);
        if (l->items[idx].value != NULL) {
            pr(w, " ");
            pr_cstr(w, l->items[idx].value);
        }
        pr(w, ")");
    }
    pr(w, ")");
}

static void pr_position(printer *w, const sql_column_def *c)
{
    if (c->position == SQL_POSITION_FIRST) {
        pr(w, " first");
    } else if (c->position == SQL_POSITION_AFTER) {
        pr(w, " (after ");
        pr_ident(w, &c->after);
        pr(w, ")");
    }
}

static void pr_columns(printer *w, const char *head, const sql_column_list *l)
{
    if (l->n == 0)
        return;
    pr(w, " (%s", head);
    for (size_t idx = 0; idx < l->n; idx++) {
        const sql_column_def *c = &l->items[idx];
        pr(w, " (");
        if (c->parent.n_parts > 0) {
            pr_name(w, &c->parent);
            pr(w, ".");
        }
        pr_ident(w, &c->name);
        pr(w, " ");
        pr_type(w, &c->type);
        pr_flag(w, c->not_null, "not-null");
        pr_opt_str(w, "comment", c->comment);
        pr_opt_expr(w, "generated", c->generated);
        pr_opt_expr(w, "default", c->default_value);
        if (c->identity)
            pr(w, " (identity %s %lld %lld)", c->identity_always ? "always" : "by-default",
               (long long)c->identity_start, (long long)c->identity_step);
        pr_position(w, c);
        pr_opt_str(w, "collate", c->collate);
        if (c->ordinal > 0)
            pr(w, " (ordinal %d)", (int)c->ordinal);
        pr_opt_str(w, "path", c->json_path);
        pr(w, ")");
    }
    pr(w, ")");
}

static void pr_assignments(printer *w, const char *head, const sql_assignment *items, size_t n)
{
    pr(w, " (%s", head);
    for (size_t idx = 0; idx < n; idx++) {
        pr(w, " (");
        pr_name(w, &items[idx].target);
        if (items[idx].value != NULL) {
            pr(w, " ");
            pr_expr(w, items[idx].value);
        }
        pr(w, ")");
    }
    pr(w, ")");
}

static void pr_merge(printer *w, const sql_stmt *s)
{
    static const char *const matches[] = {"matched", "not-matched", "not-matched-by-source"};
    static const char *const actions[] = {"update", "update-all", "delete", "insert",
                                          "insert-all"};
    pr(w, "merge");
    pr_flag(w, s->u.merge.schema_evolution, "with-schema-evolution");
    pr(w, " ");
    pr_table(w, s->u.merge.target);
    pr(w, " (using ");
    pr_table(w, s->u.merge.source);
    pr(w, ")");
    pr_opt_expr(w, "on", s->u.merge.on);
    for (size_t idx = 0; idx < s->u.merge.n_clauses; idx++) {
        const sql_merge_clause *c = &s->u.merge.clauses[idx];
        pr(w, " (when-%s", matches[c->match]);
        pr_opt_expr(w, "and", c->cond);
        pr(w, " (%s", actions[c->action]);
        if (c->action == SQL_MERGE_UPDATE)
            pr_assignments(w, "set", c->set.items, c->set.n);
        if (c->action == SQL_MERGE_INSERT) {
            if (c->insert_cols.n > 0) {
                pr(w, " ");
                pr_idents(w, &c->insert_cols);
            }
            pr(w, " (values");
            pr_exprs(w, &c->insert_values);
            pr(w, ")");
        }
        pr(w, "))");
    }
}

static void pr_create_table(printer *w, const sql_stmt *s)
{
    pr(w, "%s", s->u.create_table.replace ? "replace-table" : "create-table");
    pr_flag(w, s->u.create_table.or_replace, "or-replace");
    pr_flag(w, s->u.create_table.streaming, "streaming");
    pr_flag(w, s->u.create_table.temporary, "temporary");
    pr_flag(w, s->u.create_table.external, "external");
    pr_flag(w, s->u.create_table.if_not_exists, "if-not-exists");
    pr(w, " ");
    pr_name(w, &s->u.create_table.name);
    pr_opt_name(w, "like", &s->u.create_table.like);
    if (s->u.create_table.clone != 0) {
        pr(w, " (%s-clone ", s->u.create_table.clone == 1 ? "shallow" : "deep");
        pr_name(w, &s->u.create_table.clone_source);
        pr_version(w, &s->u.create_table.clone_at);
        pr(w, ")");
    }
    pr_columns(w, "columns", &s->u.create_table.columns);
    if (s->u.create_table.using_fmt != NULL)
        pr(w, " (using %s)", s->u.create_table.using_fmt);
    pr_opt_idents(w, "partitioned-by", &s->u.create_table.partitioned_by);
    pr_opt_idents(w, "cluster-by", &s->u.create_table.cluster_by);
    if (s->u.create_table.n_buckets > 0) {
        pr(w, " (clustered-by ");
        pr_idents(w, &s->u.create_table.bucket_by);
        pr_order(w, "sorted-by", &s->u.create_table.bucket_sort);
        pr(w, " (buckets %lld))", (long long)s->u.create_table.n_buckets);
    }
    pr_opt_str(w, "location", s->u.create_table.location);
    pr_opt_str(w, "comment", s->u.create_table.comment);
    pr_kvs(w, "tblproperties", &s->u.create_table.properties);
    pr_kvs(w, "options", &s->u.create_table.options);
    pr_opt_query(w, "as", s->u.create_table.as_query);
}

static void pr_create_view(printer *w, const sql_stmt *s)
{
    pr(w, "create-view");
    pr_flag(w, s->u.create_view.or_replace, "or-replace");
    pr_flag(w, s->u.create_view.global, "global");
    pr_flag(w, s->u.create_view.temporary, "temporary");
    pr_flag(w, s->u.create_view.if_not_exists, "if-not-exists");
    pr(w, " ");
    pr_name(w, &s->u.create_view.name);
    if (s->u.create_view.columns.n > 0) {
        pr(w, " (");
        for (size_t idx = 0; idx < s->u.create_view.columns.n; idx++) {
            const char *comment = s->u.create_view.column_comments[idx];
            pr(w, idx > 0 ? " " : "");
            if (comment != NULL)
                pr(w, "(");
            pr_ident(w, &s->u.create_view.columns.items[idx]);
            if (comment != NULL) {
                pr(w, " (comment ");
                pr_cstr(w, comment);
                pr(w, "))");
            }
        }
        pr(w, ")");
    }
    if (s->u.create_view.using_fmt != NULL)
        pr(w, " (using %s)", s->u.create_view.using_fmt);
    pr_kvs(w, "options", &s->u.create_view.options);
    pr_opt_str(w, "comment", s->u.create_view.comment);
    pr_kvs(w, "tblproperties", &s->u.create_view.properties);
    pr_opt_query(w, "as", s->u.create_view.query);
}

static void pr_show(printer *w, const sql_stmt *s)
{
    static const char *const what[] = {"databases", "tables", "views", "columns",
                                       "tblproperties", "create-table", "partitions",
                                       "functions"};
    pr(w, "show %s", what[s->u.show.what]);
    if (s->u.show.name.n_parts > 0) {
        pr(w, " ");
        pr_name(w, &s->u.show.name);
    }
    pr_opt_name(w, "in", &s->u.show.in);
    pr_opt_str(w, "like", s->u.show.like);
    pr_opt_str(w, "key", s->u.show.key);
}

static void pr_describe(printer *w, const sql_stmt *s)
{
    static const char *const what[] = {"table", "history", "detail", "database", "query"};
    pr(w, "describe %s", what[s->u.describe.what]);
    pr_flag(w, s->u.describe.extended, "extended");
    if (s->u.describe.name.n_parts > 0) {
        pr(w, " ");
        pr_name(w, &s->u.describe.name);
    }
    pr_opt_name(w, "column", &s->u.describe.column);
    pr_opt_expr(w, "limit", s->u.describe.limit);
    if (s->u.describe.query != NULL) {
        pr(w, " ");
        pr_query(w, s->u.describe.query);
    }
}

static void pr_insert(printer *w, const sql_stmt *s)
{
    pr(w, "insert");
    pr_flag(w, s->u.insert.schema_evolution, "with-schema-evolution");
    pr(w, " %s ", s->u.insert.overwrite ? "overwrite" : "into");
    pr_name(w, &s->u.insert.table);
    pr_version(w, &s->u.insert.at);
    if (s->u.insert.n_partition > 0)
        pr_assignments(w, "partition", s->u.insert.partition, s->u.insert.n_partition);
    pr_flag(w, s->u.insert.if_not_exists, "if-not-exists");
    pr_flag(w, s->u.insert.by_name, "by-name");
    if (s->u.insert.columns.n > 0) {
        pr(w, " ");
        pr_idents(w, &s->u.insert.columns);
    }
    pr_opt_expr(w, "replace-where", s->u.insert.replace_where);
    pr(w, " ");
    pr_query(w, s->u.insert.query);
}

static void pr_alter(printer *w, const sql_stmt *s)
{
    static const char *const what[] = {"add-columns", "drop-columns", "rename-column",
                                       "alter-column", "set-tblproperties", "unset-tblproperties",
                                       "rename-to", "set-location", "add-constraint",
                                       "drop-constraint"};
    static const char *const change[] = {"", "type", "comment", "set-not-null", "drop-not-null",
                                         "position", "set-default", "drop-default"};
    pr(w, "alter-table ");
    pr_name(w, &s->u.alter.name);
    pr(w, " (%s", what[s->u.alter.what]);
    pr_flag(w, s->u.alter.if_exists, "if-exists");
    if (s->u.alter.column.n_parts > 0) {
        pr(w, " ");
        pr_name(w, &s->u.alter.column);
    }
    if (s->u.alter.what == SQL_ALTER_ALTER_COLUMN) {
        const sql_column_def *c = &s->u.alter.columns.items[0];
        pr(w, " %s", change[s->u.alter.column_change]);
        if (s->u.alter.column_change == SQL_CHANGE_TYPE) {
            pr(w, " ");
            pr_type(w, &c->type);
        } else if (s->u.alter.column_change == SQL_CHANGE_COMMENT) {
            pr(w, " ");
            pr_cstr(w, c->comment);
        } else if (s->u.alter.column_change == SQL_CHANGE_SET_DEFAULT) {
            pr(w, " ");
            pr_expr(w, c->default_value);
        }
        pr_position(w, c);
    } else {
        pr_columns(w, "columns", &s->u.alter.columns);
    }
    if (s->u.alter.drop_columns.n > 0) {
        pr(w, " (");
        for (size_t k = 0; k < s->u.alter.drop_columns.n; k++) {
            if (k > 0)
                pr(w, " ");
            pr_name(w, &s->u.alter.drop_paths[k]);
        }
        pr(w, ")");
    }
    if (s->u.alter.new_name.n_parts > 0) {
        pr(w, " ");
        pr_name(w, &s->u.alter.new_name);
    }
    pr_kvs(w, "properties", &s->u.alter.properties);
    pr_opt_str(w, "location", s->u.alter.location);
    if (s->u.alter.constraint != NULL) {
        pr(w, " ");
        pr_word(w, s->u.alter.constraint);
    }
    pr_opt_expr(w, "check", s->u.alter.check);
    pr(w, ")");
}

static void pr_ref(printer *w, const char *head, const sql_stmt *s)
{
    static const char *const what[] = {"table", "view", "database", "branch", "tag", "reference"};
    pr(w, "%s %s", head, what[s->u.ref.what]);
    pr_flag(w, s->u.ref.if_not_exists, "if-not-exists");
    if (s->u.ref.name.n_parts > 0) {
        pr(w, " ");
        pr_name(w, &s->u.ref.name);
    }
    pr_opt_name(w, "from", &s->u.ref.from);
    pr_opt_name(w, "into", &s->u.ref.into);
    pr_opt_name(w, "in", &s->u.ref.in);
    pr_opt_str(w, "at", s->u.ref.hash);
    pr_flag(w, s->u.ref.dry_run, "dry-run");
}

static void pr_stmt_body(printer *w, const sql_stmt *s)
{
    static const char *const objs[] = {"table", "view", "database", "branch", "tag", "reference",
                                       "external-data-source", "external-file-format"};
    static const char *const explain[] = {"", " extended", " formatted", " codegen", " cost",
                                          " analyze"};
    switch (s->kind) {
    case SQL_STMT_QUERY:
        pr(w, "query ");
        pr_query(w, s->u.query);
        break;
    case SQL_STMT_CREATE_TABLE: pr_create_table(w, s); break;
    case SQL_STMT_CREATE_VIEW: pr_create_view(w, s); break;
    case SQL_STMT_CREATE_DATABASE:
        pr(w, "create-database");
        pr_flag(w, s->u.create_database.if_not_exists, "if-not-exists");
        pr(w, " ");
        pr_name(w, &s->u.create_database.name);
        pr_opt_str(w, "location", s->u.create_database.location);
        pr_opt_str(w, "comment", s->u.create_database.comment);
        pr_kvs(w, "properties", &s->u.create_database.properties);
        break;
    case SQL_STMT_CREATE_EXTERNAL:
        pr(w, "create-external %s ", s->u.create_external.what == SQL_OBJ_TABLE
                                         ? "table" : objs[s->u.create_external.what]);
        pr_name(w, &s->u.create_external.name);
        pr_columns(w, "columns", &s->u.create_external.columns);
        pr_kvs(w, "with", &s->u.create_external.with);
        break;
    case SQL_STMT_DROP:
    case SQL_STMT_DROP_REF:
        pr(w, "drop %s", objs[s->u.drop.what]);
        pr_flag(w, s->u.drop.if_exists, "if-exists");
        pr(w, " ");
        pr_name(w, &s->u.drop.name);
        pr_flag(w, s->u.drop.cascade, "cascade");
        pr_flag(w, s->u.drop.purge, "purge");
        pr_opt_name(w, "in", &s->u.drop.in);
        break;
    case SQL_STMT_USE:
        pr(w, "use ");
        pr_name(w, &s->u.use.name);
        break;
    case SQL_STMT_SHOW: pr_show(w, s); break;
    case SQL_STMT_DESCRIBE: pr_describe(w, s); break;
    case SQL_STMT_INSERT: pr_insert(w, s); break;
    case SQL_STMT_UPDATE:
        pr(w, "update ");
        pr_table(w, s->u.update.table);
        pr_assignments(w, "set", s->u.update.set.items, s->u.update.set.n);
        pr_opt_expr(w, "where", s->u.update.where);
        break;
    case SQL_STMT_DELETE:
        pr(w, "delete ");
        pr_table(w, s->u.delete_.table);
        pr_opt_expr(w, "where", s->u.delete_.where);
        break;
    case SQL_STMT_MERGE: pr_merge(w, s); break;
    case SQL_STMT_ALTER_TABLE: pr_alter(w, s); break;
    case SQL_STMT_RESTORE:
        pr(w, "restore ");
        pr_name(w, &s->u.restore.name);
        pr_version(w, &s->u.restore.at);
        break;
    case SQL_STMT_VACUUM:
        pr(w, "vacuum ");
        pr_name(w, &s->u.vacuum.name);
        pr_opt_expr(w, "retain-hours", s->u.vacuum.retain_hours);
        pr_flag(w, s->u.vacuum.dry_run, "dry-run");
        break;
    case SQL_STMT_OPTIMIZE:
        pr(w, "optimize ");
        pr_name(w, &s->u.optimize.name);
        pr_opt_expr(w, "where", s->u.optimize.where);
        pr_opt_idents(w, "zorder-by", &s->u.optimize.zorder_by);
        pr_flag(w, s->u.optimize.purge, "purge");
        break;
    case SQL_STMT_GENERATE:
        pr(w, "generate %s ", s->u.generate.mode);
        pr_name(w, &s->u.generate.name);
        break;
    case SQL_STMT_CONVERT:
        pr(w, "convert-to-delta ");
        pr_name(w, &s->u.convert.name);
        pr_columns(w, "partitioned-by", &s->u.convert.partitioned_by);
        break;
    case SQL_STMT_SET:
    case SQL_STMT_RESET:
        pr(w, "%s", s->kind == SQL_STMT_SET ? "set" : "reset");
        if (s->u.set.key != NULL) {
            pr(w, " ");
            pr_cstr(w, s->u.set.key);
        }
        if (s->u.set.value != NULL) {
            pr(w, " ");
            pr_cstr(w, s->u.set.value);
        }
        break;
    case SQL_STMT_EXPLAIN:
        pr(w, "explain%s ", explain[s->u.explain.mode]);
        pr_stmt(w, s->u.explain.stmt);
        break;
    case SQL_STMT_CACHE:
    case SQL_STMT_UNCACHE:
        pr(w, "%s", s->kind == SQL_STMT_CACHE ? "cache" : "uncache");
        pr_flag(w, s->u.cache.lazy, "lazy");
        pr_flag(w, s->u.cache.if_exists, "if-exists");
        pr(w, " ");
        pr_name(w, &s->u.cache.name);
        pr_opt_query(w, "as", s->u.cache.query);
        break;
    case SQL_STMT_CREATE_REF: pr_ref(w, "create", s); break;
    case SQL_STMT_USE_REF: pr_ref(w, "use", s); break;
    case SQL_STMT_LIST_REFS: pr_ref(w, "list", s); break;
    case SQL_STMT_MERGE_BRANCH: pr_ref(w, "merge", s); break;
    case SQL_STMT_ASSIGN_REF: pr_ref(w, "assign", s); break;
    case SQL_STMT_SHOW_REF: pr_ref(w, "show", s); break;
    case SQL_STMT_SHOW_LOG: pr_ref(w, "log", s); break;
    case SQL_STMT_REFRESH:
    case SQL_STMT_TRUNCATE:
    case SQL_STMT_REFRESH_STREAMING:
        pr(w, "%s ", s->kind == SQL_STMT_REFRESH ? "refresh" : s->kind == SQL_STMT_TRUNCATE
                                                                  ? "truncate"
                                                                  : "refresh-streaming-table");
        pr_name(w, &s->u.truncate.name);
        if (s->u.truncate.n_partition > 0)
            pr_assignments(w, "partition", s->u.truncate.partition, s->u.truncate.n_partition);
        break;
    }
}

static void pr_stmt(printer *w, const sql_stmt *s)
{
    pr(w, "(");
    pr_stmt_body(w, s);
    pr_ctes(w, s->n_ctes, s->ctes);
    pr(w, ")");
}

silt_status sql_stmt_print(const sql_stmt *stmt, buf *out, silt_error *err)
{
    printer w = {out, err, SILT_OK, 0};
    pr_stmt(&w, stmt);
    return w.rc;
}

silt_status sql_expr_print(const sql_expr *expr, buf *out, silt_error *err)
{
    printer w = {out, err, SILT_OK, 0};
    pr_expr(&w, expr);
    return w.rc;
}

void sql_split_and(const sql_expr *e, const sql_expr **out, size_t *n, size_t cap)
{
    if (e->kind == SQL_EXPR_BINARY && e->u.op.op == SQL_OP_AND) {
        sql_split_and(e->u.op.left, out, n, cap);
        sql_split_and(e->u.op.right, out, n, cap);
        return;
    }
    if (*n < cap)
        out[(*n)++] = e;
}
