/*
 * expr.c - construction and typing of expressions (expr.h).
 *
 * Type coercion follows Spark SQL: numeric operands widen along
 * byte < short < int < long < decimal < float < double (an integral type
 * meeting a decimal becomes decimal(3|5|10|20, 0)); DATE meets TIMESTAMP as
 * TIMESTAMP; a STRING compared with another type is cast to that type; an
 * untyped NULL takes the other side's type. Integral division is done in
 * DOUBLE, and decimal results take Spark's precision and scale rules with
 * precision loss allowed (spark.sql.decimalOperations.allowPrecisionLoss).
 */
#include "engine/expr.h"

#include <stdio.h>
#include <string.h>

#include "util/buf.h"

static silt_status expr_nullif(expr **out, arena *a, expr *left, expr *right, silt_error *err);

static expr *node(arena *a, expr_kind kind, const col_type *type, size_t n_args)
{
    expr *e = arena_calloc(a, 1, sizeof(*e));
    if (e == NULL)
        return NULL;
    e->kind = kind;
    e->type = type;
    e->pos = -1;
    e->n_args = n_args;
    if (n_args > 0) {
        e->args = arena_calloc(a, n_args, sizeof(expr *));
        if (e->args == NULL)
            return NULL;
    }
    return e;
}

silt_status expr_subquery(expr **out, arena *a, expr_slot *slot, const col_type *type,
                          expr **args, size_t n_args, silt_error *err)
{
    expr *e = node(a, EXPR_SUBQUERY, type, n_args);
    if (e == NULL)
        return err_nomem(err);
    if (n_args > 0)
        memcpy(e->args, args, n_args * sizeof(expr *));
    e->slot = slot;
    *out = e;
    return SILT_OK;
}

void expr_set_source(expr *e, const char *text, int64_t pos)
{
    e->text = text;
    e->pos = pos;
}

void expr_set_source_line(expr *e, int32_t line, int32_t col)
{
    e->line = line;
    e->col = col;
}

static silt_status type_name(const col_type *t, char *out, size_t cap)
{
    buf b = BUF_INIT;
    silt_status rc = col_type_format(t, &b, NULL);
    size_t n = b.len < cap - 1 ? b.len : cap - 1;
    memcpy(out, buf_cstr(&b), n);
    out[n] = 0;
    buf_clear(&b);
    return rc;
}

static silt_status type_error(silt_error *err, const char *what, const col_type *x,
                              const col_type *y)
{
    char xn[128], yn[128] = "";
    type_name(x, xn, sizeof(xn));
    if (y != NULL)
        type_name(y, yn, sizeof(yn));
    if (y != NULL)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH] cannot apply %s to \"%s\" and \"%s\"",
                       what, xn, yn);
    return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH] cannot apply %s to \"%s\"", what, xn);
}

static int is_numeric(col_type_id id);

/*
 * expr_common_type returns NULL both when the types have no common type
 * and when a decimal type could not be allocated: numbers always have one.
 */
static silt_status no_common_type(silt_error *err, const char *what, const col_type *x,
                                  const col_type *y)
{
    if (is_numeric(x->id) && is_numeric(y->id))
        return err_nomem(err);
    return type_error(err, what, x, y);
}

/* ---- literals ----------------------------------------------------------- */

silt_status expr_column(expr **out, arena *a, int64_t col_idx, const col_type *type,
                        silt_error *err)
{
    expr *e = node(a, EXPR_COLUMN, type, 0);
    if (e == NULL)
        return err_nomem(err);
    e->col_idx = col_idx;
    *out = e;
    return SILT_OK;
}

silt_status expr_lit_null(expr **out, arena *a, const col_type *type, silt_error *err)
{
    expr *e = node(a, EXPR_LITERAL, type ? type : col_type_primitive(COL_NULL), 0);
    if (e == NULL)
        return err_nomem(err);
    e->lit.is_null = 1;
    *out = e;
    return SILT_OK;
}

silt_status expr_lit_bool(expr **out, arena *a, int value, silt_error *err)
{
    expr *e = node(a, EXPR_LITERAL, col_type_primitive(COL_BOOLEAN), 0);
    if (e == NULL)
        return err_nomem(err);
    e->lit.i = value != 0;
    *out = e;
    return SILT_OK;
}

silt_status expr_lit_int(expr **out, arena *a, col_type_id type, int64_t value, silt_error *err)
{
    expr *e;
    if (col_type_value_width(type) == 0 || type == COL_FLOAT || type == COL_DOUBLE ||
        type == COL_DECIMAL)
        return err_set(err, SILT_INVALID, "an integer literal cannot have type \"%s\"",
                       col_type_id_name(type));
    e = node(a, EXPR_LITERAL, col_type_primitive(type), 0);
    if (e == NULL)
        return err_nomem(err);
    e->lit.i = value;
    *out = e;
    return SILT_OK;
}

silt_status expr_lit_double(expr **out, arena *a, col_type_id type, double value,
                            silt_error *err)
{
    expr *e;
    if (type != COL_FLOAT && type != COL_DOUBLE)
        return err_set(err, SILT_INVALID, "a floating-point literal cannot have type \"%s\"",
                       col_type_id_name(type));
    e = node(a, EXPR_LITERAL, col_type_primitive(type), 0);
    if (e == NULL)
        return err_nomem(err);
    e->lit.d = type == COL_FLOAT ? (double)(float)value : value;
    *out = e;
    return SILT_OK;
}

silt_status expr_lit_decimal(expr **out, arena *a, int32_t precision, int32_t scale,
                             col_int128 unscaled, silt_error *err)
{
    col_type *t;
    expr *e;
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision)
        return err_set(err, SILT_BIND, "decimal(%d,%d) is not a valid decimal type", precision,
                       scale);
    if (!engine_dec_fits(unscaled, precision))
        return err_set(err, SILT_BIND, "decimal literal does not fit decimal(%d,%d)", precision,
                       scale);
    t = col_type_decimal(a, precision, scale);
    e = t ? node(a, EXPR_LITERAL, t, 0) : NULL;
    if (e == NULL)
        return err_nomem(err);
    e->lit.dec = unscaled;
    *out = e;
    return SILT_OK;
}

silt_status expr_lit_string(expr **out, arena *a, const char *s, size_t len, silt_error *err)
{
    expr *e = node(a, EXPR_LITERAL, col_type_primitive(COL_STRING), 0);
    if (e == NULL || len > INT32_MAX)
        return err_nomem(err);
    e->lit.str = arena_memdup(a, s, len ? len : 1);
    if (e->lit.str == NULL)
        return err_nomem(err);
    e->lit.str_len = (int32_t)len;
    *out = e;
    return SILT_OK;
}

/* ---- coercion ----------------------------------------------------------- */

static int is_integral(col_type_id id)
{
    return id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG;
}

static int is_numeric(col_type_id id)
{
    return is_integral(id) || id == COL_FLOAT || id == COL_DOUBLE || id == COL_DECIMAL;
}

static int numeric_rank(col_type_id id)
{
    switch (id) {
    case COL_BYTE: return 1;
    case COL_SHORT: return 2;
    case COL_INT: return 3;
    case COL_LONG: return 4;
    case COL_DECIMAL: return 5;
    case COL_FLOAT: return 6;
    case COL_DOUBLE: return 7;
    default: return 0;
    }
}

/* The decimal type an integral type converts to without loss. */
static const col_type *decimal_of(arena *a, const col_type *t)
{
    switch (t->id) {
    case COL_BYTE: return col_type_decimal(a, 3, 0);
    case COL_SHORT: return col_type_decimal(a, 5, 0);
    case COL_INT: return col_type_decimal(a, 10, 0);
    case COL_LONG: return col_type_decimal(a, 20, 0);
    default: return t;
    }
}

static const col_type *wider_decimal(arena *a, const col_type *x, const col_type *y)
{
    int32_t scale = x->scale > y->scale ? x->scale : y->scale;
    int32_t range = (x->precision - x->scale) > (y->precision - y->scale)
                        ? x->precision - x->scale
                        : y->precision - y->scale;
    int32_t precision = range + scale;
    if (precision > 38) {
        precision = 38;
        if (scale > 38 - range)
            scale = 38 - range < 0 ? 0 : 38 - range;
    }
    return col_type_decimal(a, precision, scale);
}

/*
 * The common type of two arrays, two maps or two structs (of as many fields
 * with the same names): that of their parts, as Spark's findWiderCommonType
 * goes into complex types; the values are then cast part by part (eval_cast.c).
 */
static const col_type *nested_common_type(arena *a, const col_type *x, const col_type *y)
{
    col_field *fields;
    size_t idx;
    if (x->n_fields != y->n_fields)
        return NULL;
    fields = arena_calloc(a, x->n_fields + 1, sizeof(col_field));
    if (fields == NULL)
        return NULL;
    for (idx = 0; idx < x->n_fields; idx++) {
        if (x->id == COL_STRUCT && util_str_casecmp(x->fields[idx].name, y->fields[idx].name) != 0)
            return NULL;
        fields[idx] = x->fields[idx];
        fields[idx].type = expr_common_type(a, x->fields[idx].type, y->fields[idx].type);
        if (fields[idx].type == NULL)
            return NULL;
        fields[idx].nullable = x->fields[idx].nullable || y->fields[idx].nullable;
    }
    if (x->id == COL_ARRAY)
        return col_type_array(a, fields[0].type, fields[0].nullable);
    if (x->id == COL_MAP)
        return col_type_map(a, fields[0].type, fields[1].type, fields[1].nullable);
    return col_type_struct(a, x->n_fields, fields);
}

const col_type *expr_common_type(arena *a, const col_type *x, const col_type *y)
{
    if (x->id == COL_NULL)
        return y;
    if (y->id == COL_NULL)
        return x;
    if (x->id == COL_DECIMAL && y->id == COL_DECIMAL)
        return wider_decimal(a, x, y);
    if (col_type_equal(x, y))
        return x;
    if (is_numeric(x->id) && is_numeric(y->id)) {
        if (x->id == COL_DECIMAL && is_integral(y->id))
            return wider_decimal(a, x, decimal_of(a, y));
        if (y->id == COL_DECIMAL && is_integral(x->id))
            return wider_decimal(a, decimal_of(a, x), y);
        return numeric_rank(x->id) >= numeric_rank(y->id) ? x : y;
    }
    if ((x->id == COL_DATE || x->id == COL_TIMESTAMP || x->id == COL_TIMESTAMP_NTZ) &&
        (y->id == COL_DATE || y->id == COL_TIMESTAMP || y->id == COL_TIMESTAMP_NTZ)) {
        if (x->id == COL_TIMESTAMP || y->id == COL_TIMESTAMP)
            return col_type_primitive(COL_TIMESTAMP);
        return col_type_primitive(COL_TIMESTAMP_NTZ);
    }
    if (x->id == COL_STRING && !col_type_is_nested(y->id))
        return y;
    if (y->id == COL_STRING && !col_type_is_nested(x->id))
        return x;
    if (x->id == y->id && col_type_is_nested(x->id))
        return nested_common_type(a, x, y);
    return NULL;
}

silt_status expr_resolve_args(expr *e, arena *a, const col_type_id *arg_types, size_t n_types,
                              col_type_id result, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < n_types && idx < e->n_args; idx++)
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[idx], a, col_type_primitive(arg_types[idx]), err));
    e->type = col_type_primitive(result);
    return SILT_OK;
}

silt_status expr_coerce(expr **inout, arena *a, const col_type *type, silt_error *err)
{
    expr *e = *inout;
    if (col_type_equal(e->type, type))
        return SILT_OK;
    if (e->kind == EXPR_LITERAL && e->lit.is_null) {
        /* A NULL literal simply takes the type. */
        expr *n = NULL;
        SILT_RETURN_IF_ERROR(expr_lit_null(&n, a, type, err));
        *inout = n;
        return SILT_OK;
    }
    return expr_cast(inout, a, e, type, 0, err);
}

/* ---- arithmetic and comparison ----------------------------------------- */

/* Spark's DecimalType.adjustPrecisionScale with precision loss allowed. */
static const col_type *adjust_decimal(arena *a, int32_t precision, int32_t scale)
{
    if (precision <= 38)
        return col_type_decimal(a, precision, scale);
    {
        int32_t int_digits = precision - scale;
        int32_t min_scale = scale < 6 ? scale : 6;
        int32_t adj = 38 - int_digits > min_scale ? 38 - int_digits : min_scale;
        return col_type_decimal(a, 38, adj);
    }
}

static const col_type *decimal_result(arena *a, expr_op op, const col_type *x, const col_type *y)
{
    int32_t p1 = x->precision, s1 = x->scale, p2 = y->precision, s2 = y->scale;
    int32_t smax = s1 > s2 ? s1 : s2;
    int32_t rmax = (p1 - s1) > (p2 - s2) ? p1 - s1 : p2 - s2;
    int32_t rmin = (p1 - s1) < (p2 - s2) ? p1 - s1 : p2 - s2;
    switch (op) {
    case EXPR_ADD:
    case EXPR_SUB: return adjust_decimal(a, rmax + smax + 1, smax);
    case EXPR_MUL: return adjust_decimal(a, p1 + p2 + 1, s1 + s2);
    case EXPR_DIV: {
        int32_t scale = 6 > s1 + p2 + 1 ? 6 : s1 + p2 + 1;
        return adjust_decimal(a, p1 - s1 + s2 + scale, scale);
    }
    default: return adjust_decimal(a, rmin + smax, smax);
    }
}

static const char *op_name(expr_op op)
{
    static const char *names[] = {"+", "-", "*", "/", "%", "=", "<>", "<", "<=", ">", ">=", "<=>"};
    return names[op];
}

/*
 * What a string becomes next to a number in arithmetic: Spark 4's ANSI
 * coercion makes it a bigint beside an integer ('3' + 1 is 4, '2.5' * 2 an
 * invalid cast) and a double otherwise.
 */
static const col_type *string_arith_type(col_type_id other)
{
    int integral = other == COL_BYTE || other == COL_SHORT || other == COL_INT || other == COL_LONG;
    return col_type_primitive(integral ? COL_LONG : COL_DOUBLE);
}

/* The types Spark adds to a date as a number of days. */
static int is_days(col_type_id id)
{
    return id == COL_BYTE || id == COL_SHORT || id == COL_INT;
}

silt_status expr_arith(expr **out, arena *a, expr_op op, expr *left, expr *right,
                       silt_error *err)
{
    const col_type *common, *result;
    expr *e;
    char what[32];
    if (op > EXPR_MOD)
        return err_set(err, SILT_INVALID, "operator %d is not arithmetic", (int)op);
    snprintf(what, sizeof(what), "operator \"%s\"", op_name(op));
    /* As in Spark: date + n and n + date are date_add, date - n is date_sub. */
    if (op == EXPR_ADD || op == EXPR_SUB) {
        int l_date = left->type->id == COL_DATE, r_date = right->type->id == COL_DATE;
        if (l_date && is_days(right->type->id)) {
            expr *args[2] = {left, right};
            return expr_func(out, a, op == EXPR_ADD ? "date_add" : "date_sub", args, 2, err);
        }
        if (op == EXPR_ADD && r_date && is_days(left->type->id)) {
            expr *args[2] = {right, left};
            return expr_func(out, a, "date_add", args, 2, err);
        }
    }
    if (left->type->id == COL_STRING && is_numeric(right->type->id))
        SILT_RETURN_IF_ERROR(expr_coerce(&left, a, string_arith_type(right->type->id), err));
    if (right->type->id == COL_STRING && is_numeric(left->type->id))
        SILT_RETURN_IF_ERROR(expr_coerce(&right, a, string_arith_type(left->type->id), err));
    if (left->type->id == COL_NULL && right->type->id == COL_NULL)
        common = col_type_primitive(COL_DOUBLE);
    else
        common = expr_common_type(a, left->type, right->type);
    if (common == NULL)
        return no_common_type(err, what, left->type, right->type);
    if (!is_numeric(common->id))
        return type_error(err, what, left->type, right->type);
    if (common->id == COL_DECIMAL) {
        const col_type *lt = left->type->id == COL_NULL ? common : decimal_of(a, left->type);
        const col_type *rt = right->type->id == COL_NULL ? common : decimal_of(a, right->type);
        if (lt == NULL || rt == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(expr_coerce(&left, a, lt, err));
        SILT_RETURN_IF_ERROR(expr_coerce(&right, a, rt, err));
        result = decimal_result(a, op, lt, rt);
    } else {
        if (op == EXPR_DIV)
            common = col_type_primitive(COL_DOUBLE);
        SILT_RETURN_IF_ERROR(expr_coerce(&left, a, common, err));
        SILT_RETURN_IF_ERROR(expr_coerce(&right, a, common, err));
        result = common;
    }
    e = result ? node(a, EXPR_ARITH, result, 2) : NULL;
    if (e == NULL)
        return err_nomem(err);
    e->op = op;
    e->args[0] = left;
    e->args[1] = right;
    *out = e;
    return SILT_OK;
}

silt_status expr_compare(expr **out, arena *a, expr_op op, expr *left, expr *right,
                         silt_error *err)
{
    const col_type *common;
    expr *e;
    char what[32];
    if (op < EXPR_EQ || op > EXPR_EQ_NULL_SAFE)
        return err_set(err, SILT_INVALID, "operator %d is not a comparison", (int)op);
    snprintf(what, sizeof(what), "operator \"%s\"", op_name(op));
    common = expr_common_type(a, left->type, right->type);
    if (common == NULL)
        return no_common_type(err, what, left->type, right->type);
    if (common->id == COL_MAP)
        return type_error(err, what, left->type, right->type);
    if (common->id == COL_NULL)
        common = col_type_primitive(COL_BOOLEAN);
    SILT_RETURN_IF_ERROR(expr_coerce(&left, a, common, err));
    SILT_RETURN_IF_ERROR(expr_coerce(&right, a, common, err));
    e = node(a, EXPR_COMPARE, col_type_primitive(COL_BOOLEAN), 2);
    if (e == NULL)
        return err_nomem(err);
    e->op = op;
    e->args[0] = left;
    e->args[1] = right;
    *out = e;
    return SILT_OK;
}

/* ---- logic --------------------------------------------------------------- */

static silt_status to_boolean(expr **inout, arena *a, const char *what, silt_error *err)
{
    if ((*inout)->type->id == COL_BOOLEAN)
        return SILT_OK;
    if ((*inout)->type->id == COL_NULL)
        return expr_coerce(inout, a, col_type_primitive(COL_BOOLEAN), err);
    return type_error(err, what, (*inout)->type, NULL);
}

static silt_status logic(expr **out, arena *a, expr_kind kind, expr *left, expr *right,
                         silt_error *err)
{
    const char *what = kind == EXPR_AND ? "AND" : "OR";
    expr *e;
    SILT_RETURN_IF_ERROR(to_boolean(&left, a, what, err));
    SILT_RETURN_IF_ERROR(to_boolean(&right, a, what, err));
    e = node(a, kind, col_type_primitive(COL_BOOLEAN), 2);
    if (e == NULL)
        return err_nomem(err);
    e->args[0] = left;
    e->args[1] = right;
    *out = e;
    return SILT_OK;
}

silt_status expr_and(expr **out, arena *a, expr *left, expr *right, silt_error *err)
{
    return logic(out, a, EXPR_AND, left, right, err);
}

silt_status expr_or(expr **out, arena *a, expr *left, expr *right, silt_error *err)
{
    return logic(out, a, EXPR_OR, left, right, err);
}

silt_status expr_not(expr **out, arena *a, expr *arg, silt_error *err)
{
    expr *e;
    SILT_RETURN_IF_ERROR(to_boolean(&arg, a, "NOT", err));
    e = node(a, EXPR_NOT, col_type_primitive(COL_BOOLEAN), 1);
    if (e == NULL)
        return err_nomem(err);
    e->args[0] = arg;
    *out = e;
    return SILT_OK;
}

silt_status expr_is_null(expr **out, arena *a, expr *arg, int negate, silt_error *err)
{
    expr *e = node(a, EXPR_IS_NULL, col_type_primitive(COL_BOOLEAN), 1);
    if (e == NULL)
        return err_nomem(err);
    e->op = negate != 0;
    e->args[0] = arg;
    *out = e;
    return SILT_OK;
}

silt_status expr_distinct_from(expr **out, arena *a, expr *left, expr *right, int negate,
                               silt_error *err)
{
    expr *eq = NULL;
    SILT_RETURN_IF_ERROR(expr_compare(&eq, a, EXPR_EQ_NULL_SAFE, left, right, err));
    if (negate) {
        *out = eq;
        return SILT_OK;
    }
    return expr_not(out, a, eq, err);
}

silt_status expr_in(expr **out, arena *a, expr *arg, expr **list, size_t n_list, int negate,
                    silt_error *err)
{
    /*
     * One node rather than a chain of ORs: long generated lists neither
     * recurse deeply nor compare row by row against every element. SQL's
     * rule: TRUE on a match, else NULL if the value or an element is NULL.
     */
    const col_type *type = arg->type;
    expr *e;
    size_t idx;
    if (n_list == 0)
        return err_set(err, SILT_BIND, "IN needs at least one value");
    for (idx = 0; idx < n_list; idx++) {
        const col_type *t = expr_common_type(a, type, list[idx]->type);
        if (t == NULL)
            return no_common_type(err, "IN", type, list[idx]->type);
        type = t;
    }
    if (type->id == COL_MAP)
        return type_error(err, "IN", type, NULL);
    if (type->id == COL_NULL)
        type = col_type_primitive(COL_BOOLEAN);
    e = node(a, EXPR_IN, col_type_primitive(COL_BOOLEAN), n_list + 1);
    if (e == NULL)
        return err_nomem(err);
    e->op = negate != 0;
    e->args[0] = arg;
    SILT_RETURN_IF_ERROR(expr_coerce(&e->args[0], a, type, err));
    for (idx = 0; idx < n_list; idx++) {
        e->args[idx + 1] = list[idx];
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[idx + 1], a, type, err));
    }
    SILT_RETURN_IF_ERROR(expr_eval_in_prepare(e, a, err));
    *out = e;
    return SILT_OK;
}

silt_status expr_between(expr **out, arena *a, expr *arg, expr *lo, expr *hi, int negate,
                         silt_error *err)
{
    expr *ge = NULL, *le = NULL, *both = NULL;
    SILT_RETURN_IF_ERROR(expr_compare(&ge, a, EXPR_GE, arg, lo, err));
    SILT_RETURN_IF_ERROR(expr_compare(&le, a, EXPR_LE, arg, hi, err));
    SILT_RETURN_IF_ERROR(expr_and(&both, a, ge, le, err));
    if (negate)
        return expr_not(out, a, both, err);
    *out = both;
    return SILT_OK;
}

/* ---- conditionals -------------------------------------------------------- */

silt_status expr_case(expr **out, arena *a, size_t n_when, expr **conds, expr **vals,
                      expr *else_val, silt_error *err)
{
    const col_type *type = col_type_primitive(COL_NULL);
    expr *e;
    size_t idx;
    if (n_when == 0)
        return err_set(err, SILT_BIND, "CASE needs at least one WHEN");
    for (idx = 0; idx < n_when; idx++) {
        const col_type *t = expr_common_type(a, type, vals[idx]->type);
        if (t == NULL)
            return no_common_type(err, "CASE", type, vals[idx]->type);
        type = t;
    }
    if (else_val != NULL) {
        const col_type *t = expr_common_type(a, type, else_val->type);
        if (t == NULL)
            return no_common_type(err, "CASE", type, else_val->type);
        type = t;
    }
    e = node(a, EXPR_CASE, type, 2 * n_when + 1);
    if (e == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_when; idx++) {
        e->args[2 * idx] = conds[idx];
        SILT_RETURN_IF_ERROR(to_boolean(&e->args[2 * idx], a, "CASE WHEN", err));
        e->args[2 * idx + 1] = vals[idx];
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[2 * idx + 1], a, type, err));
    }
    if (else_val == NULL)
        SILT_RETURN_IF_ERROR(expr_lit_null(&else_val, a, type, err));
    e->args[2 * n_when] = else_val;
    SILT_RETURN_IF_ERROR(expr_coerce(&e->args[2 * n_when], a, type, err));
    *out = e;
    return SILT_OK;
}

silt_status expr_case_simple(expr **out, arena *a, expr *operand, size_t n_when, expr **matches,
                             expr **vals, expr *else_val, silt_error *err)
{
    expr **conds = arena_calloc(a, n_when ? n_when : 1, sizeof(expr *));
    size_t idx;
    if (conds == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_when; idx++)
        SILT_RETURN_IF_ERROR(expr_compare(&conds[idx], a, EXPR_EQ, operand, matches[idx], err));
    return expr_case(out, a, n_when, conds, vals, else_val, err);
}

silt_status expr_coalesce(expr **out, arena *a, expr **args, size_t n_args, silt_error *err)
{
    const col_type *type = col_type_primitive(COL_NULL);
    expr *e;
    size_t idx;
    if (n_args == 0)
        return err_set(err, SILT_BIND, "coalesce needs at least one argument");
    for (idx = 0; idx < n_args; idx++) {
        const col_type *t = expr_common_type(a, type, args[idx]->type);
        if (t == NULL)
            return no_common_type(err, "coalesce", type, args[idx]->type);
        type = t;
    }
    e = node(a, EXPR_COALESCE, type, n_args);
    if (e == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_args; idx++) {
        e->args[idx] = args[idx];
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[idx], a, type, err));
    }
    *out = e;
    return SILT_OK;
}

static silt_status expr_nullif(expr **out, arena *a, expr *left, expr *right, silt_error *err)
{
    expr *eq, *null_lit;
    SILT_RETURN_IF_ERROR(expr_compare(&eq, a, EXPR_EQ, left, right, err));
    SILT_RETURN_IF_ERROR(expr_lit_null(&null_lit, a, left->type, err));
    return expr_case(out, a, 1, &eq, &null_lit, left, err);
}

silt_status expr_cast(expr **out, arena *a, expr *arg, const col_type *type, int try_cast,
                      silt_error *err)
{
    expr *e;
    if (!expr_cast_allowed(arg->type, type)) {
        char from[128], to[128];
        type_name(arg->type, from, sizeof(from));
        type_name(type, to, sizeof(to));
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION] cannot cast "
                       "\"%s\" to \"%s\"", from, to);
    }
    e = node(a, EXPR_CAST, type, 1);
    if (e == NULL)
        return err_nomem(err);
    e->op = try_cast != 0;
    e->args[0] = arg;
    *out = e;
    return SILT_OK;
}

silt_status expr_like(expr **out, arena *a, expr *arg, expr *pattern, char escape, int ilike,
                      int negate, silt_error *err)
{
    expr *e;
    SILT_RETURN_IF_ERROR(expr_coerce(&arg, a, col_type_primitive(COL_STRING), err));
    SILT_RETURN_IF_ERROR(expr_coerce(&pattern, a, col_type_primitive(COL_STRING), err));
    e = node(a, EXPR_LIKE, col_type_primitive(COL_BOOLEAN), 2);
    if (e == NULL)
        return err_nomem(err);
    e->op = (ilike ? 1 : 0) | (negate ? 2 : 0);
    e->lit.i = escape ? (unsigned char)escape : '\\';
    e->args[0] = arg;
    e->args[1] = pattern;
    *out = e;
    return SILT_OK;
}

silt_status expr_func(expr **out, arena *a, const char *name, expr **args, size_t n_args,
                      silt_error *err)
{
    const expr_func_def *def;
    expr *e;
    size_t idx;
    if (util_str_casecmp(name, "coalesce") == 0 || util_str_casecmp(name, "nvl") == 0 ||
        util_str_casecmp(name, "ifnull") == 0) {
        if (util_str_casecmp(name, "coalesce") != 0 && n_args != 2)
            return err_set(err, SILT_BIND, "function \"%s\" takes 2 arguments, not %zu", name,
                           n_args);
        return expr_coalesce(out, a, args, n_args, err);
    }
    if (util_str_casecmp(name, "nullif") == 0) {
        if (n_args != 2)
            return err_set(err, SILT_BIND, "function \"nullif\" takes 2 arguments, not %zu",
                           n_args);
        return expr_nullif(out, a, args[0], args[1], err);
    }
    {
        /* try_add & co.: the operator, with NULL instead of the ANSI errors. */
        static const struct { const char *name; expr_op op; } tries[] = {
            {"try_add", EXPR_ADD}, {"try_subtract", EXPR_SUB}, {"try_multiply", EXPR_MUL},
            {"try_divide", EXPR_DIV}, {"try_mod", EXPR_MOD}};
        for (idx = 0; idx < sizeof(tries) / sizeof(tries[0]); idx++) {
            if (util_str_casecmp(name, tries[idx].name) != 0)
                continue;
            if (n_args != 2)
                return err_set(err, SILT_BIND, "[WRONG_NUM_ARGS] function \"%s\" takes 2 "
                               "arguments, not %zu", tries[idx].name, n_args);
            SILT_RETURN_IF_ERROR(expr_arith(out, a, tries[idx].op, args[0], args[1], err));
            (*out)->lit.i = 1;
            return SILT_OK;
        }
    }
    def = expr_func_lookup(name);
    if (def == NULL) {
        err_set(err, SILT_BIND, "[UNRESOLVED_ROUTINE] function \"%s\" does not exist", name);
        return SILT_BIND;
    }
    if ((int)n_args < def->min_args || (def->max_args >= 0 && (int)n_args > def->max_args)) {
        if (def->min_args == def->max_args)
            return err_set(err, SILT_BIND, "[WRONG_NUM_ARGS] function \"%s\" takes %d "
                           "argument%s, not %zu", def->name, def->min_args,
                           def->min_args == 1 ? "" : "s", n_args);
        return err_set(err, SILT_BIND, "[WRONG_NUM_ARGS] function \"%s\" takes %d to %d "
                       "arguments, not %zu", def->name, def->min_args, def->max_args, n_args);
    }
    e = node(a, EXPR_FUNC, NULL, n_args);
    if (e == NULL)
        return err_nomem(err);
    e->func = def;
    for (idx = 0; idx < n_args; idx++)
        e->args[idx] = args[idx];
    SILT_RETURN_IF_ERROR(def->resolve(e, a, err));
    *out = e;
    return SILT_OK;
}
