/*
 * binder_names.c - Spark's generated column names and the canonical text of
 * expressions.
 *
 * A select item without an alias is named the way Spark prints the
 * resolved expression: `count(1)` for count(*), `max(trip_id)`, `(a + b)`,
 * `(NOT x)`, `CAST(a AS STRING)`, `upper(name)`, a literal's value. The same
 * printer gives the text used to match SELECT and ORDER BY expressions with
 * GROUP BY keys, aggregates and window calls.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sql/binder_int.h"

typedef struct namer {
    buf out;
    silt_error err;
    int failed;
    int depth; /* of name_expr: past NAME_MAX_DEPTH a name ends in "..." (issue 15) */
} namer;

/* Deeper than binding goes (SQL_BIND_MAX_DEPTH), so no name it keeps is cut; a flat chain of
 * 100,000 operators overflowed the stack here. */
#define NAME_MAX_DEPTH 1000

static void put(namer *w, const char *fmt, ...) SILT_PRINTF(2, 3);

static void put(namer *w, const char *fmt, ...)
{
    va_list ap;
    if (w->failed)
        return;
    va_start(ap, fmt);
    if (buf_vprintf(&w->out, &w->err, fmt, ap) != SILT_OK)
        w->failed = 1;
    va_end(ap);
}

static void name_expr(namer *w, const sql_expr *e);

static void name_list(namer *w, const sql_expr_list *list)
{
    size_t idx;
    for (idx = 0; idx < list->n; idx++) {
        if (idx > 0)
            put(w, ", ");
        name_expr(w, list->items[idx]);
    }
}

const char *sql_op_spark_symbol(sql_op op)
{
    switch (op) {
    case SQL_OP_ADD: return "+";
    case SQL_OP_SUB: return "-";
    case SQL_OP_MUL: return "*";
    case SQL_OP_DIV: return "/";
    case SQL_OP_MOD: return "%";
    case SQL_OP_INTDIV: return "div";
    case SQL_OP_BITAND: return "&";
    case SQL_OP_BITOR: return "|";
    case SQL_OP_BITXOR: return "^";
    case SQL_OP_EQ: return "=";
    case SQL_OP_NEQ: return "!=";
    case SQL_OP_LT: return "<";
    case SQL_OP_LE: return "<=";
    case SQL_OP_GT: return ">";
    case SQL_OP_GE: return ">=";
    case SQL_OP_NSEQ: return "<=>";
    case SQL_OP_AND: return "AND";
    case SQL_OP_OR: return "OR";
    default: return sql_op_name(op);
    }
}

static void name_literal(namer *w, const sql_literal *lit)
{
    switch (lit->kind) {
    case SQL_LIT_NULL: put(w, "NULL"); break;
    case SQL_LIT_BOOL: put(w, "%s", lit->i64 ? "true" : "false"); break;
    case SQL_LIT_BYTE:
    case SQL_LIT_SHORT:
    case SQL_LIT_INT:
    case SQL_LIT_LONG: put(w, "%lld", (long long)lit->i64); break;
    case SQL_LIT_DECIMAL: {
        size_t n = strlen(lit->digits);
        size_t int_digits = n > (size_t)lit->scale ? n - (size_t)lit->scale : 0;
        put(w, "%s", lit->negative ? "-" : "");
        if (lit->scale == 0) {
            put(w, "%s", lit->digits);
        } else if (int_digits == 0) {
            size_t zeros = (size_t)lit->scale - n;
            put(w, "0.");
            while (zeros-- > 0)
                put(w, "0");
            put(w, "%s", lit->digits);
        } else {
            put(w, "%.*s.%s", (int)int_digits, lit->digits, lit->digits + int_digits);
        }
        break;
    }
    case SQL_LIT_DOUBLE:
    case SQL_LIT_FLOAT: {
        char text[64];
        engine_format_double(lit->f64, lit->kind == SQL_LIT_FLOAT, text, sizeof(text));
        put(w, "%s", text);
        break;
    }
    case SQL_LIT_STRING: put(w, "%.*s", (int)lit->str_len, lit->str); break;
    case SQL_LIT_DATE: put(w, "DATE '%s'", lit->str ? lit->str : ""); break;
    case SQL_LIT_TIMESTAMP: put(w, "TIMESTAMP '%s'", lit->str ? lit->str : ""); break;
    case SQL_LIT_TIMESTAMP_NTZ: put(w, "TIMESTAMP_NTZ '%s'", lit->str ? lit->str : ""); break;
    default: put(w, "literal"); break;
    }
}

static void name_type(namer *w, const col_type *type)
{
    buf t = BUF_INIT;
    size_t idx;
    if (col_type_format(type, &t, &w->err) != SILT_OK) {
        w->failed = 1;
        buf_clear(&t);
        return;
    }
    for (idx = 0; idx < t.len; idx++)
        t.data[idx] = (char)toupper((unsigned char)t.data[idx]);
    if (strcmp(buf_cstr(&t), "INTEGER") == 0)
        put(w, "INT");
    else if (strcmp(buf_cstr(&t), "LONG") == 0)
        put(w, "BIGINT");
    else if (strcmp(buf_cstr(&t), "SHORT") == 0)
        put(w, "SMALLINT");
    else if (strcmp(buf_cstr(&t), "BYTE") == 0)
        put(w, "TINYINT");
    else
        put(w, "%s", buf_cstr(&t));
    buf_clear(&t);
}

static void name_window(namer *w, const sql_window *win)
{
    size_t idx;
    const char *sep = "";
    put(w, " OVER (");
    if (win->partition_by.n > 0) {
        put(w, "PARTITION BY ");
        name_list(w, &win->partition_by);
        sep = " ";
    }
    if (win->order_by.n > 0) {
        put(w, "%sORDER BY ", sep);
        for (idx = 0; idx < win->order_by.n; idx++) {
            const sql_order_item *it = &win->order_by.items[idx];
            int nulls_first = it->nulls ? it->nulls == 1 : !it->desc;
            if (idx > 0)
                put(w, ", ");
            name_expr(w, it->expr);
            put(w, " %s NULLS %s", it->desc ? "DESC" : "ASC", nulls_first ? "FIRST" : "LAST");
        }
        sep = " ";
    }
    if (win->frame == 0)
        put(w, "%s%s", sep, win->order_by.n > 0
                                ? "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
                                : "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING");
    else
        put(w, "%s%s BETWEEN ...", sep, win->frame == 1 ? "ROWS" : "RANGE");
    put(w, ")");
}

static void name_func(namer *w, const sql_expr *e)
{
    char lower[128];
    const char *name = e->u.func.name.parts[e->u.func.name.n_parts - 1].name;
    size_t idx;
    for (idx = 0; name[idx] != '\0' && idx + 1 < sizeof(lower); idx++)
        lower[idx] = (char)tolower((unsigned char)name[idx]);
    lower[idx] = '\0';
    if (strcmp(lower, "current_database") == 0)
        snprintf(lower, sizeof(lower), "current_schema"); /* Spark 4 names both so */
    if (e->u.func.star) {
        put(w, "%s(1)", lower);
    } else {
        put(w, "%s(%s", lower, e->u.func.distinct ? "DISTINCT " : "");
        name_list(w, &e->u.func.args);
        put(w, ")");
    }
    if (e->u.func.filter != NULL) {
        put(w, " FILTER (WHERE ");
        name_expr(w, e->u.func.filter);
        put(w, ")");
    }
    if (e->u.func.over != NULL)
        name_window(w, e->u.func.over);
    else if (e->u.func.over_name != NULL)
        put(w, " OVER %s", e->u.func.over_name);
}

static void name_expr_node(namer *w, const sql_expr *e);

static void name_expr(namer *w, const sql_expr *e)
{
    if (w->depth >= NAME_MAX_DEPTH) {
        put(w, "...");
        return;
    }
    w->depth++;
    name_expr_node(w, e);
    w->depth--;
}

static void name_expr_node(namer *w, const sql_expr *e)
{
    size_t idx;
    if (e == NULL)
        return;
    switch (e->kind) {
    case SQL_EXPR_LITERAL: name_literal(w, &e->u.lit); break;
    case SQL_EXPR_COLUMN:
        put(w, "%s", e->u.column.parts[e->u.column.n_parts - 1].name);
        break;
    case SQL_EXPR_STAR: put(w, "*"); break;
    case SQL_EXPR_UNARY:
        if (e->u.op.op == SQL_OP_NOT)
            put(w, "(NOT ");
        else
            put(w, "(%s ", e->u.op.op == SQL_OP_NEG ? "-" : e->u.op.op == SQL_OP_PLUS ? "+" : "~");
        name_expr(w, e->u.op.left);
        put(w, ")");
        break;
    case SQL_EXPR_BINARY:
        if (e->u.op.op == SQL_OP_CONCAT) {
            put(w, "concat(");
            name_expr(w, e->u.op.left);
            put(w, ", ");
            name_expr(w, e->u.op.right);
            put(w, ")");
            break;
        }
        put(w, "(");
        name_expr(w, e->u.op.left);
        if (e->u.op.op == SQL_OP_DISTINCT_FROM)
            put(w, " IS DISTINCT FROM ");
        else
            put(w, " %s ", sql_op_spark_symbol(e->u.op.op));
        name_expr(w, e->u.op.right);
        put(w, ")");
        break;
    case SQL_EXPR_IS: {
        static const char *const what[] = {"NULL", "TRUE", "FALSE", "UNKNOWN"};
        put(w, "(");
        name_expr(w, e->u.is.arg);
        put(w, " IS %s%s)", e->u.is.negated ? "NOT " : "", what[e->u.is.what]);
        break;
    }
    case SQL_EXPR_BETWEEN:
        put(w, "(");
        name_expr(w, e->u.between.arg);
        put(w, " %sBETWEEN ", e->u.between.negated ? "NOT " : "");
        name_expr(w, e->u.between.low);
        put(w, " AND ");
        name_expr(w, e->u.between.high);
        put(w, ")");
        break;
    case SQL_EXPR_IN_LIST:
        put(w, "(%s", e->u.in.negated ? "NOT " : "");
        name_expr(w, e->u.in.arg);
        put(w, " IN (");
        name_list(w, &e->u.in.list);
        put(w, "))");
        break;
    case SQL_EXPR_IN_QUERY: put(w, "(%sIN (listquery()))", e->u.in.negated ? "NOT " : ""); break;
    case SQL_EXPR_EXISTS: put(w, "%sexists()", e->u.in.negated ? "NOT " : ""); break;
    case SQL_EXPR_SUBQUERY: put(w, "scalarsubquery()"); break;
    case SQL_EXPR_LIKE:
        name_expr(w, e->u.like.arg);
        put(w, " %s%s ", e->u.like.negated ? "NOT " : "",
            e->u.like.like == SQL_LIKE ? "LIKE" : e->u.like.like == SQL_ILIKE ? "ILIKE" : "RLIKE");
        name_list(w, &e->u.like.patterns);
        break;
    case SQL_EXPR_CASE:
        put(w, "CASE");
        if (e->u.case_.operand != NULL) {
            put(w, " ");
            name_expr(w, e->u.case_.operand);
        }
        for (idx = 0; idx < e->u.case_.n_whens; idx++) {
            put(w, " WHEN ");
            name_expr(w, e->u.case_.whens[idx].cond);
            put(w, " THEN ");
            name_expr(w, e->u.case_.whens[idx].result);
        }
        if (e->u.case_.else_result != NULL) {
            put(w, " ELSE ");
            name_expr(w, e->u.case_.else_result);
        }
        put(w, " END");
        break;
    case SQL_EXPR_CAST:
        put(w, "%s(", e->u.cast.is_try ? "TRY_CAST" : "CAST");
        name_expr(w, e->u.cast.arg);
        put(w, " AS ");
        name_type(w, e->u.cast.type.type);
        put(w, ")");
        break;
    case SQL_EXPR_FUNC: name_func(w, e); break;
    case SQL_EXPR_EXTRACT:
        put(w, "extract(%s FROM ", e->u.extract.field.name);
        name_expr(w, e->u.extract.arg);
        put(w, ")");
        break;
    case SQL_EXPR_FIELD:
        name_expr(w, e->u.access.base);
        put(w, ".%s", e->u.access.field.name);
        break;
    case SQL_EXPR_SUBSCRIPT:
        name_expr(w, e->u.access.base);
        put(w, "[");
        name_expr(w, e->u.access.index);
        put(w, "]");
        break;
    case SQL_EXPR_ROW:
        put(w, "named_struct(");
        name_list(w, &e->u.row);
        put(w, ")");
        break;
    case SQL_EXPR_ALIAS:
    case SQL_EXPR_NAMED_ARG: name_expr(w, e->u.named.value); break;
    default: put(w, "expr"); break;
    }
}

const char *sql_bind_column_name(binder *b, const sql_expr *ast)
{
    namer w = {BUF_INIT, SILT_ERROR_INIT, 0, 0};
    const char *out;
    name_expr(&w, ast);
    out = w.failed ? "col" : arena_strdup(b->a, buf_cstr(&w.out));
    buf_clear(&w.out);
    return out != NULL ? out : "col";
}

const char *sql_bind_expr_text(binder *b, const sql_expr *ast)
{
    buf t = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    const char *out = NULL;
    if (sql_expr_print(ast, &t, &err) == SILT_OK)
        out = arena_strdup(b->a, buf_cstr(&t));
    buf_clear(&t);
    return out != NULL ? out : "";
}
