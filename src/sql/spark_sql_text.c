/*
 * spark_sql_text.c - a parsed expression as Spark's Expression.sql prints the
 * same text after its own parser (what Delta shows in constraint messages),
 * and a constraint's text as Delta stores it.
 *
 * Delta stores a CHECK constraint as the tokens of its expression joined by
 * one space ("s . x > length ( b )"), and its violation message prints the
 * parsed, unresolved expression's sql: binary operators in parentheses
 * "(a > 0)", "(NOT x)", "(- a)", BETWEEN as the function "between(a, 1, 2)",
 * "(a IN (1, 2))", "b LIKE 'x%'", literals with Spark's suffixes (5L, 5.5BD,
 * 1000.0D), and AND/OR chains of one operator as the balanced tree Spark's
 * AstBuilder builds. The forms were taken from the Spark peer.
 *
 * A form silt does not know how Spark prints (window calls, subqueries,
 * lambdas) makes sql_expr_spark_sql fail; the caller then prints silt's own form.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/text.h"
#include "sql/exec.h"
#include "sql/lexer.h"

typedef struct sparker {
    buf *out;
    silt_error *err;
    silt_status rc;
} sparker;

static void put_s(sparker *w, const char *s)
{
    if (w->rc == SILT_OK)
        w->rc = buf_append_str(w->out, s, w->err);
}

static void put_c(sparker *w, char ch)
{
    if (w->rc == SILT_OK)
        w->rc = buf_append_char(w->out, ch, w->err);
}

/* s between before and after */
static void put3(sparker *w, const char *before, const char *s, const char *after)
{
    put_s(w, before);
    put_s(w, s);
    put_s(w, after);
}

static void spark_expr(sparker *w, const sql_expr *e);

/* Spark's quoteIfNeeded: plain identifiers as they are, others in backquotes. */
static void put_ident(sparker *w, const char *name)
{
    const char *c;
    int plain = name[0] != '\0' && !(name[0] >= '0' && name[0] <= '9');
    for (c = name; plain && *c; c++)
        plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                (*c >= '0' && *c <= '9') || *c == '_';
    if (plain) {
        put_s(w, name);
        return;
    }
    put_s(w, "`");
    for (c = name; *c; c++) {
        if (*c == '`')
            put_c(w, '`');
        put_c(w, *c);
    }
    put_s(w, "`");
}

static void put_name(sparker *w, const sql_name *n)
{
    size_t idx;
    for (idx = 0; idx < n->n_parts; idx++) {
        if (idx > 0)
            put_s(w, ".");
        put_ident(w, n->parts[idx].name);
    }
}

/* Scala's Double.toString: 1000.0, 1.0E10, 1.5E-5. */
static void put_double(sparker *w, double v, const char *suffix)
{
    char text[64], *e;
    double back = 0;
    int prec;
    if (isnan(v) || isinf(v)) {
        put3(w, "CAST('", isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity", "' AS DOUBLE)");
        return;
    }
    for (prec = 1; prec <= 17; prec++) {
        snprintf(text, sizeof(text), "%.*g", prec, v);
        if (util_str_to_double(text, strlen(text), &back) && back == v)
            break;
    }
    if (fabs(v) >= 1e-3 && fabs(v) < 1e7) {
        /* the shortest fixed form that reads back, at least one decimal */
        for (prec = 1; prec <= 17; prec++) {
            snprintf(text, sizeof(text), "%.*f", prec, v);
            if (util_str_to_double(text, strlen(text), &back) && back == v)
                break;
        }
    } else {
        char mant[64];
        int exp10;
        snprintf(text, sizeof(text), "%.*e", prec - 1, v);
        e = strchr(text, 'e');
        exp10 = e ? (int)strtol(e + 1, NULL, 10) : 0;
        if (e)
            *e = '\0';
        snprintf(mant, sizeof(mant), "%s%s", text, strchr(text, '.') ? "" : ".0");
        snprintf(text, sizeof(text), "%sE%d", mant, exp10);
    }
    put_s(w, text);
    put_s(w, suffix);
}

/* Spark's escapeSingleQuotedString: backslash and quote escaped. */
static void put_string(sparker *w, const char *s, size_t len)
{
    size_t idx;
    put_s(w, "'");
    for (idx = 0; idx < len; idx++) {
        if (s[idx] == '\\' || s[idx] == '\'')
            put_c(w, '\\');
        put_c(w, s[idx]);
    }
    put_s(w, "'");
}

static void spark_literal(sparker *w, const sql_literal *l, int negate)
{
    char text[64];
    switch (l->kind) {
    case SQL_LIT_NULL: put_s(w, "NULL"); break;
    case SQL_LIT_BOOL: put_s(w, l->i64 ? "true" : "false"); break;
    case SQL_LIT_BYTE:
    case SQL_LIT_SHORT:
    case SQL_LIT_INT:
    case SQL_LIT_LONG:
        snprintf(text, sizeof(text), "%lld%s", (long long)(negate ? -l->i64 : l->i64),
                 l->kind == SQL_LIT_BYTE ? "Y" : l->kind == SQL_LIT_SHORT ? "S"
                 : l->kind == SQL_LIT_LONG ? "L" : "");
        put_s(w, text);
        break;
    case SQL_LIT_DECIMAL: {
        size_t n = strlen(l->digits);
        int32_t scale = l->scale;
        put_s(w, (l->negative != 0) != (negate != 0) ? "-" : "");
        if (scale <= 0) {
            put_s(w, l->digits);
        } else {
            size_t whole = n > (size_t)scale ? n - (size_t)scale : 0;
            if (whole == 0)
                put_s(w, "0");
            else if (w->rc == SILT_OK)
                w->rc = buf_append(w->out, l->digits, whole, w->err);
            put_s(w, ".");
            for (; n < (size_t)scale; n++)
                put_s(w, "0");
            put_s(w, l->digits + whole);
        }
        put_s(w, "BD");
        break;
    }
    case SQL_LIT_DOUBLE: put_double(w, negate ? -l->f64 : l->f64, "D"); break;
    case SQL_LIT_FLOAT: put_double(w, negate ? -l->f64 : l->f64, "F"); break;
    case SQL_LIT_STRING: put_string(w, l->str, l->str_len); break;
    case SQL_LIT_DATE:
        text_format_date_spark((int32_t)l->i64, text);
        put3(w, "DATE '", text, "'");
        break;
    default:
        if (w->rc == SILT_OK)
            w->rc = err_set(w->err, SILT_UNSUPPORTED, "no Spark form for this literal");
        break;
    }
}

/* The operands of a chain of one AND/OR operator, left to right. */
static void chain(const sql_expr *e, sql_op op, const sql_expr **items, size_t *n, size_t cap)
{
    if (e->kind == SQL_EXPR_BINARY && e->u.op.op == op && *n + 1 < cap) {
        chain(e->u.op.left, op, items, n, cap);
        chain(e->u.op.right, op, items, n, cap);
        return;
    }
    if (*n < cap)
        items[(*n)++] = e;
}

/* Spark's AstBuilder reduceToExpressionTree: the middle splits a chain. */
static void balanced(sparker *w, const sql_expr **items, size_t low, size_t high, const char *sym)
{
    size_t mid;
    if (low == high) {
        spark_expr(w, items[low]);
        return;
    }
    mid = low + (high - low) / 2;
    put_s(w, "(");
    balanced(w, items, low, mid, sym);
    put3(w, " ", sym, " ");
    balanced(w, items, mid + 1, high, sym);
    put_s(w, ")");
}

static void spark_list(sparker *w, const sql_expr_list *l)
{
    size_t idx;
    for (idx = 0; idx < l->n; idx++) {
        if (idx > 0)
            put_s(w, ", ");
        spark_expr(w, l->items[idx]);
    }
}

static void spark_binary(sparker *w, const sql_expr *e)
{
    const char *sym = sql_op_spark_symbol(e->u.op.op);
    if (e->u.op.op == SQL_OP_AND || e->u.op.op == SQL_OP_OR) {
        const sql_expr *items[256];
        size_t n = 0;
        chain(e, e->u.op.op, items, &n, 256);
        balanced(w, items, 0, n - 1, sym);
        return;
    }
    if (e->u.op.op == SQL_OP_NEQ || e->u.op.op == SQL_OP_DISTINCT_FROM) {
        put_s(w, "(NOT (");
        spark_expr(w, e->u.op.left);
        put3(w, " ", e->u.op.op == SQL_OP_NEQ ? "=" : "<=>", " ");
        spark_expr(w, e->u.op.right);
        put_s(w, "))");
        return;
    }
    if (e->u.op.op == SQL_OP_CONCAT) {
        put_s(w, "concat(");
        spark_expr(w, e->u.op.left);
        put_s(w, ", ");
        spark_expr(w, e->u.op.right);
        put_s(w, ")");
        return;
    }
    if (e->u.op.op >= SQL_OP_SHL && e->u.op.op <= SQL_OP_USHR) {
        if (w->rc == SILT_OK)
            w->rc = err_set(w->err, SILT_UNSUPPORTED, "no Spark form for this operator");
        return;
    }
    put_s(w, "(");
    spark_expr(w, e->u.op.left);
    put3(w, " ", sym, " ");
    spark_expr(w, e->u.op.right);
    put_s(w, ")");
}

static void spark_unary(sparker *w, const sql_expr *e)
{
    const sql_expr *arg = e->u.op.left;
    switch (e->u.op.op) {
    case SQL_OP_NEG:
        if (arg->kind == SQL_EXPR_LITERAL &&
            (arg->u.lit.kind == SQL_LIT_INT || arg->u.lit.kind == SQL_LIT_LONG ||
             arg->u.lit.kind == SQL_LIT_DECIMAL || arg->u.lit.kind == SQL_LIT_DOUBLE ||
             arg->u.lit.kind == SQL_LIT_FLOAT || arg->u.lit.kind == SQL_LIT_BYTE ||
             arg->u.lit.kind == SQL_LIT_SHORT)) {
            spark_literal(w, &arg->u.lit, 1); /* Spark's number rule takes the sign */
            return;
        }
        put_s(w, "(- ");
        break;
    case SQL_OP_PLUS: put_s(w, "(+ "); break;
    case SQL_OP_NOT: put_s(w, "(NOT "); break;
    case SQL_OP_BITNOT:
        put_s(w, "~");
        spark_expr(w, arg);
        return;
    default:
        if (w->rc == SILT_OK)
            w->rc = err_set(w->err, SILT_UNSUPPORTED, "no Spark form for this operator");
        return;
    }
    spark_expr(w, arg);
    put_s(w, ")");
}

static void spark_is(sparker *w, const sql_expr *e)
{
    const char *neg = e->u.is.negated ? "(NOT " : "";
    switch (e->u.is.what) {
    case SQL_IS_NULL:
    case SQL_IS_UNKNOWN:
        put_s(w, "(");
        spark_expr(w, e->u.is.arg);
        put_s(w, e->u.is.negated ? " IS NOT NULL)" : " IS NULL)");
        return;
    case SQL_IS_TRUE:
    case SQL_IS_FALSE:
        put_s(w, neg);
        put_s(w, "(");
        spark_expr(w, e->u.is.arg);
        put_s(w, e->u.is.what == SQL_IS_TRUE ? " <=> true)" : " <=> false)");
        put_s(w, e->u.is.negated ? ")" : "");
        return;
    }
}

static void spark_case(sparker *w, const sql_expr *e)
{
    size_t idx;
    put_s(w, "CASE");
    for (idx = 0; idx < e->u.case_.n_whens; idx++) {
        put_s(w, " WHEN ");
        if (e->u.case_.operand != NULL) { /* Spark rewrites a simple CASE to equalities */
            put_s(w, "(");
            spark_expr(w, e->u.case_.operand);
            put_s(w, " = ");
            spark_expr(w, e->u.case_.whens[idx].cond);
            put_s(w, ")");
        } else {
            spark_expr(w, e->u.case_.whens[idx].cond);
        }
        put_s(w, " THEN ");
        spark_expr(w, e->u.case_.whens[idx].result);
    }
    if (e->u.case_.else_result != NULL) {
        put_s(w, " ELSE ");
        spark_expr(w, e->u.case_.else_result);
    }
    put_s(w, " END");
}

static void spark_cast(sparker *w, const sql_expr *e)
{
    buf type = BUF_INIT;
    char *c;
    put_s(w, e->u.cast.is_try ? "TRY_CAST(" : "CAST(");
    spark_expr(w, e->u.cast.arg);
    if (w->rc == SILT_OK)
        w->rc = sql_spark_type_name(e->u.cast.type.type, &type, w->err);
    if (w->rc == SILT_OK) {
        for (c = type.data; c != NULL && *c; c++)
            *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
        put3(w, " AS ", buf_cstr(&type), ")");
    }
    buf_clear(&type);
}

static void spark_func(sparker *w, const sql_expr *e)
{
    if (e->u.func.over != NULL || e->u.func.over_name != NULL || e->u.func.filter != NULL ||
        e->u.func.trim != 0 || e->u.func.nulls != 0) {
        if (w->rc == SILT_OK)
            w->rc = err_set(w->err, SILT_UNSUPPORTED, "no Spark form for this call");
        return;
    }
    put_name(w, &e->u.func.name);
    put_s(w, e->u.func.distinct ? "(DISTINCT " : "(");
    if (e->u.func.star)
        put_s(w, "*");
    spark_list(w, &e->u.func.args);
    put_s(w, ")");
}

static void spark_like(sparker *w, const sql_expr *e)
{
    if (e->u.like.like != SQL_LIKE || e->u.like.quant != SQL_QUANT_NONE ||
        e->u.like.patterns.n != 1) {
        if (w->rc == SILT_OK)
            w->rc = err_set(w->err, SILT_UNSUPPORTED, "no Spark form for this LIKE");
        return;
    }
    put_s(w, e->u.like.negated ? "(NOT " : "");
    spark_expr(w, e->u.like.arg);
    put_s(w, " LIKE ");
    spark_expr(w, e->u.like.patterns.items[0]);
    if (e->u.like.escape != NULL) {
        put_s(w, " ESCAPE ");
        spark_expr(w, e->u.like.escape);
    }
    put_s(w, e->u.like.negated ? ")" : "");
}

static void spark_expr(sparker *w, const sql_expr *e)
{
    if (w->rc != SILT_OK)
        return;
    switch (e->kind) {
    case SQL_EXPR_LITERAL: spark_literal(w, &e->u.lit, 0); break;
    case SQL_EXPR_COLUMN: put_name(w, &e->u.column); break;
    case SQL_EXPR_UNARY: spark_unary(w, e); break;
    case SQL_EXPR_BINARY: spark_binary(w, e); break;
    case SQL_EXPR_IS: spark_is(w, e); break;
    case SQL_EXPR_BETWEEN:
        put_s(w, e->u.between.negated ? "(NOT between(" : "between(");
        spark_expr(w, e->u.between.arg);
        put_s(w, ", ");
        spark_expr(w, e->u.between.low);
        put_s(w, ", ");
        spark_expr(w, e->u.between.high);
        put_s(w, e->u.between.negated ? "))" : ")");
        break;
    case SQL_EXPR_IN_LIST:
        put_s(w, e->u.in.negated ? "(NOT (" : "(");
        spark_expr(w, e->u.in.arg);
        put_s(w, " IN (");
        spark_list(w, &e->u.in.list);
        put_s(w, e->u.in.negated ? ")))" : "))");
        break;
    case SQL_EXPR_LIKE: spark_like(w, e); break;
    case SQL_EXPR_CASE: spark_case(w, e); break;
    case SQL_EXPR_CAST: spark_cast(w, e); break;
    case SQL_EXPR_FUNC: spark_func(w, e); break;
    default:
        w->rc = err_set(w->err, SILT_UNSUPPORTED, "no Spark form for this expression");
        break;
    }
}

silt_status sql_expr_spark_sql(const sql_expr *e, buf *out, silt_error *err)
{
    sparker w = {out, err, SILT_OK};
    spark_expr(&w, e);
    return w.rc;
}

const char *sql_constraint_tokens_text(arena *a, const char *text, size_t len)
{
    sql_token_list toks;
    buf out = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    const char *res = NULL;
    size_t idx;
    silt_status rc = sql_lex(a, text, len, &toks, NULL, &err);
    for (idx = 0; rc == SILT_OK && idx + 1 < toks.n_tokens; idx++) {
        if (idx > 0)
            rc = buf_append(&out, " ", 1, &err);
        if (rc == SILT_OK)
            rc = buf_append(&out, text + toks.tokens[idx].off, toks.tokens[idx].len, &err);
    }
    if (rc == SILT_OK)
        res = arena_strdup(a, buf_cstr(&out));
    buf_clear(&out);
    err_clear(&err);
    return res;
}
