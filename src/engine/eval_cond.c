/*
 * eval_cond.c - Spark's conditional and bit functions: nvl2, zeroifnull,
 * nullifzero, equal_null, negative, positive (which Spark itself replaces
 * by CASE, COALESCE, <=> and arithmetic: here the resolver builds the same
 * expression and the kernel hands its value on), factorial, shiftleft,
 * shiftright, shiftrightunsigned, bit_count and bit_get/getbit.
 * Also expr_func_lookup_more, the lookup over the newer tables.
 */
#include "engine/eval_int.h"

#include <math.h>
#include <string.h>

#include "util/buf.h"

/* ---- replaced by another expression ---------------------------------------------------- */

/* The call's value is that of its one (rewritten) argument. */
static silt_status fn_pass(FN_ARGS)
{
    (void)ctx, (void)sel, (void)n_sel, (void)n_rows, (void)a, (void)err;
    *out = args[0];
    return SILT_OK;
}

static silt_status replace_with(expr *e, expr *by)
{
    e->args[0] = by;
    e->n_args = 1;
    e->type = by->type;
    return SILT_OK;
}

/* nvl2(x, a, b): CASE WHEN x IS NOT NULL THEN a ELSE b END. */
static silt_status res_nvl2(expr *e, arena *a, silt_error *err)
{
    expr *test, *by;
    SILT_RETURN_IF_ERROR(expr_is_null(&test, a, e->args[0], 1, err));
    SILT_RETURN_IF_ERROR(expr_case(&by, a, 1, &test, &e->args[1], e->args[2], err));
    return replace_with(e, by);
}

/* zeroifnull(x): coalesce(x, 0). */
static silt_status res_zeroifnull(expr *e, arena *a, silt_error *err)
{
    expr *pair[2], *by;
    pair[0] = e->args[0];
    SILT_RETURN_IF_ERROR(expr_lit_int(&pair[1], a, COL_INT, 0, err));
    SILT_RETURN_IF_ERROR(expr_coalesce(&by, a, pair, 2, err));
    return replace_with(e, by);
}

/* nullifzero(x): CASE WHEN x = 0 THEN NULL ELSE x END, of x's type. */
static silt_status res_nullifzero(expr *e, arena *a, silt_error *err)
{
    expr *zero, *test, *null_val, *by;
    SILT_RETURN_IF_ERROR(expr_lit_int(&zero, a, COL_INT, 0, err));
    SILT_RETURN_IF_ERROR(expr_compare(&test, a, EXPR_EQ, e->args[0], zero, err));
    SILT_RETURN_IF_ERROR(expr_lit_null(&null_val, a, e->args[0]->type, err));
    SILT_RETURN_IF_ERROR(expr_case(&by, a, 1, &test, &null_val, e->args[0], err));
    return replace_with(e, by);
}

/* equal_null(a, b): a <=> b. */
static silt_status res_equal_null(expr *e, arena *a, silt_error *err)
{
    expr *by;
    SILT_RETURN_IF_ERROR(expr_distinct_from(&by, a, e->args[0], e->args[1], 1, err));
    return replace_with(e, by);
}

static int is_integral(col_type_id id)
{
    return id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG;
}

/* negative and positive take numbers; a STRING is cast to DOUBLE as Spark does. */
static silt_status numeric_only(expr *e, arena *a, silt_error *err)
{
    col_type_id id = e->args[0]->type->id;
    if (id == COL_STRING || id == COL_NULL)
        return expr_coerce(&e->args[0], a, col_type_primitive(COL_DOUBLE), err);
    if (!is_integral(id) && id != COL_FLOAT && id != COL_DOUBLE && id != COL_DECIMAL)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve "
                       "\"%s\" due to data type mismatch: The first parameter requires the "
                       "(\"NUMERIC\" or \"INTERVAL DAY TO SECOND\" or \"INTERVAL YEAR TO MONTH\" "
                       "or \"INTERVAL\") type, however it has the type \"%s\".", e->func->name,
                       col_type_id_name(id));
    return SILT_OK;
}

/* negative(x): x * -1 in x's own type (so -0.0 stays Java's, and MIN overflows as in Spark). */
static silt_status res_negative(expr *e, arena *a, silt_error *err)
{
    const col_type *t;
    expr *minus_one, *by;
    SILT_RETURN_IF_ERROR(numeric_only(e, a, err));
    t = e->args[0]->type;
    if (is_integral(t->id))
        SILT_RETURN_IF_ERROR(expr_lit_int(&minus_one, a, t->id, -1, err));
    else if (t->id == COL_DECIMAL)
        SILT_RETURN_IF_ERROR(expr_lit_decimal(&minus_one, a, 1, 0, -1, err));
    else
        SILT_RETURN_IF_ERROR(expr_lit_double(&minus_one, a, t->id, -1.0, err));
    SILT_RETURN_IF_ERROR(expr_arith(&by, a, EXPR_MUL, e->args[0], minus_one, err));
    SILT_RETURN_IF_ERROR(expr_coerce(&by, a, t, err));
    return replace_with(e, by);
}

static silt_status res_positive(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(numeric_only(e, a, err));
    return replace_with(e, e->args[0]);
}

/* ---- casts by a type's name, typeof, like / ilike ------------------------------------------ */

/* int(x), bigint(x), ... : CAST(x AS type), one argument, as Spark's cast aliases. */
static silt_status cast_to(expr *e, arena *a, const col_type *t, silt_error *err)
{
    expr *by;
    if (t == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(expr_cast(&by, a, e->args[0], t, 0, err));
    return replace_with(e, by);
}

#define CAST_FN(NAME, ID)                                                                          \
    static silt_status NAME(expr *e, arena *a, silt_error *err)                                    \
    {                                                                                              \
        return cast_to(e, a, col_type_primitive(ID), err);                                         \
    }
CAST_FN(res_cast_boolean, COL_BOOLEAN)
CAST_FN(res_cast_tinyint, COL_BYTE)
CAST_FN(res_cast_smallint, COL_SHORT)
CAST_FN(res_cast_int, COL_INT)
CAST_FN(res_cast_bigint, COL_LONG)
CAST_FN(res_cast_float, COL_FLOAT)
CAST_FN(res_cast_double, COL_DOUBLE)
CAST_FN(res_cast_string, COL_STRING)
CAST_FN(res_cast_binary, COL_BINARY)
CAST_FN(res_cast_date, COL_DATE)
CAST_FN(res_cast_timestamp, COL_TIMESTAMP)

/* decimal(x): DECIMAL(10,0), Spark's DecimalType.USER_DEFAULT. */
static silt_status res_cast_decimal(expr *e, arena *a, silt_error *err)
{
    return cast_to(e, a, col_type_decimal(a, 10, 0), err);
}

/* Spark's DataType.simpleString: int, bigint, decimal(10,2), array<int>, struct<a:int> ... */
static silt_status simple_string(const col_type *t, buf *out, silt_error *err)
{
    size_t idx;
    switch (t->id) {
    case COL_NULL: return buf_append_str(out, "void", err);
    case COL_BYTE: return buf_append_str(out, "tinyint", err);
    case COL_SHORT: return buf_append_str(out, "smallint", err);
    case COL_INT: return buf_append_str(out, "int", err);
    case COL_LONG: return buf_append_str(out, "bigint", err);
    case COL_DECIMAL: return buf_printf(out, err, "decimal(%d,%d)", t->precision, t->scale);
    case COL_ARRAY:
        SILT_RETURN_IF_ERROR(buf_append_str(out, "array<", err));
        SILT_RETURN_IF_ERROR(simple_string(t->fields[0].type, out, err));
        return buf_append_char(out, '>', err);
    case COL_MAP:
        SILT_RETURN_IF_ERROR(buf_append_str(out, "map<", err));
        SILT_RETURN_IF_ERROR(simple_string(t->fields[0].type, out, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
        SILT_RETURN_IF_ERROR(simple_string(t->fields[1].type, out, err));
        return buf_append_char(out, '>', err);
    case COL_STRUCT:
        SILT_RETURN_IF_ERROR(buf_append_str(out, "struct<", err));
        for (idx = 0; idx < t->n_fields; idx++) {
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s%s:", idx ? "," : "", t->fields[idx].name));
            SILT_RETURN_IF_ERROR(simple_string(t->fields[idx].type, out, err));
        }
        return buf_append_char(out, '>', err);
    default: return buf_append_str(out, col_type_id_name(t->id), err);
    }
}

/* typeof(x): the type's name, known when the call is bound (x is not evaluated). */
static silt_status res_typeof(expr *e, arena *a, silt_error *err)
{
    buf b = BUF_INIT;
    expr *by = NULL;
    silt_status rc = simple_string(e->args[0]->type, &b, err);
    if (rc == SILT_OK)
        rc = expr_lit_string(&by, a, b.data != NULL ? b.data : "", b.len, err);
    buf_clear(&b);
    return rc != SILT_OK ? rc : replace_with(e, by);
}

/* like(s, pattern[, escape]) and ilike: the operators, the escape a one-character constant. */
static silt_status like_fn(expr *e, arena *a, int ilike, silt_error *err)
{
    expr *by;
    char escape = 0;
    if (e->n_args > 2) {
        const expr *x = e->args[2];
        if (x->kind != EXPR_LITERAL || x->type->id != COL_STRING || x->lit.is_null ||
            x->lit.str_len != 1)
            return err_set(err, SILT_BIND, "[INVALID_ESCAPE_CHAR] The escape character of %s must "
                           "be a string literal of length one", e->func->name);
        escape = x->lit.str[0];
    }
    SILT_RETURN_IF_ERROR(expr_like(&by, a, e->args[0], e->args[1], escape, ilike, 0, err));
    return replace_with(e, by);
}

static silt_status res_like(expr *e, arena *a, silt_error *err) { return like_fn(e, a, 0, err); }
static silt_status res_ilike(expr *e, arena *a, silt_error *err) { return like_fn(e, a, 1, err); }

/*
 * date_part(field, x) / datepart: the function of the field, with Spark's
 * synonyms (YEARS, Y, MON, DOW, ...). The field must be a string constant.
 * SECOND (a DECIMAL(8,6) with the fraction in Spark) is refused by name
 * until silt has it.
 */
static silt_status res_date_part(expr *e, arena *a, silt_error *err)
{
    static const struct { const char *names; const char *func; } fields[] = {
        {"|year|y|years|yr|yrs|", "year"},          {"|quarter|qtr|", "quarter"},
        {"|month|mon|mons|months|", "month"},       {"|week|w|weeks|", "weekofyear"},
        {"|day|d|days|", "day"},                    {"|dayofweek|dow|", "dayofweek"},
        {"|doy|", "dayofyear"},                     {"|hour|h|hours|hr|hrs|", "hour"},
        {"|minute|m|min|mins|minutes|", "minute"},
    };
    const expr *f = e->args[0];
    char key[40];
    size_t idx;
    expr *by;
    if (f->kind != EXPR_LITERAL || f->type->id != COL_STRING || f->lit.is_null)
        return err_set(err, SILT_BIND, "[NON_FOLDABLE_ARGUMENT] The function `%s` requires the "
                       "parameter `field` to be a foldable expression of the type \"STRING\"",
                       e->func->name);
    if (f->lit.str_len > 0 && (size_t)f->lit.str_len + 3 <= sizeof(key)) {
        key[0] = '|';
        for (idx = 0; idx < (size_t)f->lit.str_len; idx++)
            key[idx + 1] = (char)(f->lit.str[idx] >= 'A' && f->lit.str[idx] <= 'Z'
                                      ? f->lit.str[idx] + 32 : f->lit.str[idx]);
        key[idx + 1] = '|';
        key[idx + 2] = 0;
        for (idx = 0; idx < sizeof(fields) / sizeof(fields[0]); idx++)
            if (strstr(fields[idx].names, key) != NULL) {
                SILT_RETURN_IF_ERROR(expr_func(&by, a, fields[idx].func, &e->args[1], 1, err));
                return replace_with(e, by);
            }
    }
    return err_set(err, SILT_BIND, "[INVALID_EXTRACT_FIELD] Cannot extract %.*s from the %s "
                   "(silt's %s knows YEAR, QUARTER, MONTH, WEEK, DAY, DAYOFWEEK, DOY, HOUR and "
                   "MINUTE; SECOND is not supported yet).", (int)f->lit.str_len, f->lit.str,
                   col_type_id_name(e->args[1]->type->id), e->func->name);
}

/* ---- factorial and bits ------------------------------------------------------------------ */

static silt_status res_factorial(expr *e, arena *a, silt_error *err)
{
    static const col_type_id types[] = {COL_INT};
    return expr_resolve_args(e, a, types, 1, COL_LONG, err);
}

/* factorial(n): BIGINT for 0..20, NULL otherwise. */
static silt_status fn_factorial(FN_ARGS)
{
    col_vec *o;
    (void)ctx;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int64_t n = vec_get_int(args[0], r), f = 1, k;
        if (n < 0 || n > 20) {
            vec_set_null(o, r);
            continue;
        }
        for (k = 2; k <= n; k++)
            f *= k;
        vec_put_int(o, r, f);
    });
    *out = o;
    return SILT_OK;
}

/* shiftleft & co.: a BIGINT stays one, anything else is an INT; the amount is an INT. */
static silt_status res_shift(expr *e, arena *a, silt_error *err)
{
    col_type_id id = e->args[0]->type->id == COL_LONG ? COL_LONG : COL_INT;
    col_type_id types[2] = {COL_INT, COL_INT};
    types[0] = id;
    return expr_resolve_args(e, a, types, 2, id, err);
}

enum { SHIFT_LEFT, SHIFT_RIGHT, SHIFT_RIGHT_UNSIGNED };

/* Java's shifts: the amount is taken modulo the width. */
static int64_t java_shift(int64_t x, int64_t n, int is_long, int which)
{
    if (is_long) {
        uint64_t u = (uint64_t)x;
        unsigned s = (unsigned)(n & 63);
        if (which == SHIFT_LEFT)
            return (int64_t)(u << s);
        if (which == SHIFT_RIGHT_UNSIGNED)
            return (int64_t)(u >> s);
        return x < 0 ? (int64_t)~(~u >> s) : (int64_t)(u >> s);
    } else {
        uint32_t u = (uint32_t)(int32_t)x;
        unsigned s = (unsigned)(n & 31);
        if (which == SHIFT_LEFT)
            return (int32_t)(u << s);
        if (which == SHIFT_RIGHT_UNSIGNED)
            return (int32_t)(u >> s);
        return (int32_t)x < 0 ? (int32_t)~(~u >> s) : (int32_t)(u >> s);
    }
}

static silt_status shift_fn(FN_ARGS, int which)
{
    col_vec *o;
    int is_long = e->type->id == COL_LONG;
    (void)ctx;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP(vec_put_int(o, r, java_shift(vec_get_int(args[0], r), vec_get_int(args[1], r),
                                           is_long, which)););
    *out = o;
    return SILT_OK;
}

static silt_status fn_shiftleft(FN_ARGS) { return shift_fn(FN_PASS, SHIFT_LEFT); }
static silt_status fn_shiftright(FN_ARGS) { return shift_fn(FN_PASS, SHIFT_RIGHT); }
static silt_status fn_shiftrightunsigned(FN_ARGS) { return shift_fn(FN_PASS, SHIFT_RIGHT_UNSIGNED); }

static silt_status integral_arg(expr *e, int allow_bool)
{
    col_type_id id = e->args[0]->type->id;
    if (is_integral(id) || id == COL_NULL || (allow_bool && id == COL_BOOLEAN))
        return SILT_OK;
    return SILT_BIND;
}

static silt_status res_bit_count(expr *e, arena *a, silt_error *err)
{
    if (integral_arg(e, 1) != SILT_OK)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve "
                       "\"bit_count\" due to data type mismatch: The first parameter requires the "
                       "(\"INTEGRAL\" or \"BOOLEAN\") type, however it has the type \"%s\".",
                       col_type_id_name(e->args[0]->type->id));
    if (e->args[0]->type->id == COL_NULL)
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[0], a, col_type_primitive(COL_LONG), err));
    e->type = col_type_primitive(COL_INT);
    return SILT_OK;
}

/* bit_count(x): Long.bitCount of x widened to a long (so -1 of any width has 64). */
static silt_status fn_bit_count(FN_ARGS)
{
    col_vec *o;
    (void)ctx;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        uint64_t u = (uint64_t)vec_get_int(args[0], r);
        int bits = 0;
        while (u != 0) {
            u &= u - 1;
            bits++;
        }
        vec_put_int(o, r, bits);
    });
    *out = o;
    return SILT_OK;
}

static silt_status res_bit_get(expr *e, arena *a, silt_error *err)
{
    if (integral_arg(e, 0) != SILT_OK)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve "
                       "\"%s\" due to data type mismatch: The first parameter requires the "
                       "\"INTEGRAL\" type, however it has the type \"%s\".", e->func->name,
                       col_type_id_name(e->args[0]->type->id));
    if (e->args[0]->type->id == COL_NULL)
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[0], a, col_type_primitive(COL_LONG), err));
    SILT_RETURN_IF_ERROR(expr_coerce(&e->args[1], a, col_type_primitive(COL_INT), err));
    e->type = col_type_primitive(COL_BYTE);
    return SILT_OK;
}

/* bit_get(x, pos): bit pos of x; pos outside the width is an error even without ANSI. */
static silt_status fn_bit_get(FN_ARGS)
{
    col_vec *o;
    col_type_id id = e->args[0]->type->id;
    int64_t width = id == COL_BYTE ? 8 : id == COL_SHORT ? 16 : id == COL_INT ? 32 : 64;
    (void)ctx;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int64_t pos = vec_get_int(args[1], r);
        if (pos < 0 || pos >= width)
            return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE",
                                   "The value of parameter(s) `pos` in `%s` is invalid: expects "
                                   "an integer value in [0, %lld), but got %lld.", e->func->name,
                                   (long long)width, (long long)pos);
        vec_put_int(o, r, (int64_t)(((uint64_t)vec_get_int(args[0], r) >> pos) & 1));
    });
    *out = o;
    return SILT_OK;
}

/* bin(x): Long.toBinaryString of x as a BIGINT (two's complement, no leading zeros). */
static silt_status res_bin(expr *e, arena *a, silt_error *err)
{
    static const col_type_id types[] = {COL_LONG};
    return expr_resolve_args(e, a, types, 1, COL_STRING, err);
}

static silt_status fn_bin(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    (void)ctx;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        uint64_t u = (uint64_t)vec_get_int(args[0], r);
        char text[64];
        int n = 0, k;
        do {
            text[63 - n++] = (char)('0' + (u & 1));
            u >>= 1;
        } while (u != 0);
        k = 64 - n;
        rc = vec_str_put(&w, r, text + k, n, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

static silt_status res_width_bucket(expr *e, arena *a, silt_error *err)
{
    static const col_type_id types[] = {COL_DOUBLE, COL_DOUBLE, COL_DOUBLE, COL_LONG};
    return expr_resolve_args(e, a, types, 4, COL_LONG, err);
}

/* Spark's WidthBucket.computeBucketNumber: NULL for no buckets, equal or non-finite bounds, NaN. */
static int width_bucket(double v, double lo, double hi, int64_t n, int64_t *out)
{
    double lower = lo < hi ? lo : hi, upper = lo < hi ? hi : lo;
    if (n <= 0 || n == INT64_MAX || isnan(v) || lo == hi || !isfinite(lo) || !isfinite(hi))
        return 0;
    if (lo < hi)
        *out = v < lower ? 0 : v >= upper ? n + 1
                             : (int64_t)((double)n * (v - lower) / (upper - lower)) + 1;
    else
        *out = v > upper ? 0 : v <= lower ? n + 1
                             : (int64_t)((double)n * (upper - v) / (upper - lower)) + 1;
    return 1;
}

static silt_status fn_width_bucket(FN_ARGS)
{
    col_vec *o;
    (void)ctx;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int64_t b;
        if (width_bucket(vec_get_double(args[0], r), vec_get_double(args[1], r),
                         vec_get_double(args[2], r), vec_get_int(args[3], r), &b))
            vec_put_int(o, r, b);
        else
            vec_set_null(o, r);
    });
    *out = o;
    return SILT_OK;
}

/* ---- conv ---------------------------------------------------------------------------------- */

static silt_status res_conv(expr *e, arena *a, silt_error *err)
{
    static const col_type_id types[] = {COL_STRING, COL_INT, COL_INT};
    return expr_resolve_args(e, a, types, 3, COL_STRING, err);
}

static int digit_of(unsigned char c, int radix)
{
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'z' ? c - 'a' + 10
          : c >= 'A' && c <= 'Z' ? c - 'A' + 10 : 99;
    return d < radix ? d : -1;
}

/* Spark's NumberConverter.encode: the leading digits of s as an unsigned 64-bit value; 1 on overflow. */
static int conv_encode(const char *s, int32_t len, int radix, uint64_t *out)
{
    uint64_t v = 0, bound = (UINT64_MAX - (uint64_t)radix) / (uint64_t)radix;
    int32_t i;
    for (i = 0; i < len; i++) {
        int d = digit_of((unsigned char)s[i], radix);
        if (d < 0)
            break;
        if (v >= bound && (UINT64_MAX - (uint64_t)d) / (uint64_t)radix < v)
            return 1;
        v = v * (uint64_t)radix + (uint64_t)d;
    }
    *out = v;
    return 0;
}

/* conv(s, from, to): s read in base from, written in base |to| (signed when to < 0). */
static silt_status fn_conv(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t len;
        const char *s = col_vec_str(args[0], r, &len);
        int64_t from = vec_get_int(args[1], r), to = vec_get_int(args[2], r), v;
        uint64_t u = 0;
        int64_t radix = to < 0 ? -to : to;
        int negative, k = 66;
        uint64_t q;
        char text[66];
        while (len > 0 && s[0] == ' ') { /* Spark trims the spaces first */
            s++;
            len--;
        }
        while (len > 0 && s[len - 1] == ' ')
            len--;
        if (from < 2 || from > 36 || radix < 2 || radix > 36 || len == 0) {
            vec_set_null(o, r);
            continue;
        }
        negative = s[0] == '-';
        if (conv_encode(s + negative, len - negative, (int)from, &u)) {
            if (ctx->ansi) {
                rc = expr_eval_error(e, err, SILT_RUNTIME, "ARITHMETIC_OVERFLOW",
                                     "Overflow in function conv(). If necessary set "
                                     "\"spark.sql.ansi.enabled\" to \"false\" to bypass this error.");
                break;
            }
            u = UINT64_MAX;
        }
        v = (int64_t)u;
        if (negative && to > 0)
            v = v < 0 ? -1 : -v;
        if (to < 0 && v < 0) {
            v = (int64_t)(0 - (uint64_t)v);
            negative = 1;
        }
        q = (uint64_t)v;
        do {
            text[--k] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[q % (uint64_t)radix];
            q /= (uint64_t)radix;
        } while (q != 0);
        if (negative && to < 0)
            text[--k] = '-';
        rc = vec_str_put(&w, r, text + k, 66 - k, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

const expr_func_def engine_cond_funcs[] = {
    {"nvl2", 3, 3, res_nvl2, fn_pass, 1},
    {"zeroifnull", 1, 1, res_zeroifnull, fn_pass, 1},
    {"nullifzero", 1, 1, res_nullifzero, fn_pass, 1},
    {"equal_null", 2, 2, res_equal_null, fn_pass, 1},
    {"negative", 1, 1, res_negative, fn_pass, 1},
    {"positive", 1, 1, res_positive, fn_pass, 1},
    {"boolean", 1, 1, res_cast_boolean, fn_pass, 1},
    {"tinyint", 1, 1, res_cast_tinyint, fn_pass, 1},
    {"smallint", 1, 1, res_cast_smallint, fn_pass, 1},
    {"int", 1, 1, res_cast_int, fn_pass, 1},
    {"bigint", 1, 1, res_cast_bigint, fn_pass, 1},
    {"float", 1, 1, res_cast_float, fn_pass, 1},
    {"double", 1, 1, res_cast_double, fn_pass, 1},
    {"decimal", 1, 1, res_cast_decimal, fn_pass, 1},
    {"string", 1, 1, res_cast_string, fn_pass, 1},
    {"binary", 1, 1, res_cast_binary, fn_pass, 1},
    {"date", 1, 1, res_cast_date, fn_pass, 1},
    {"timestamp", 1, 1, res_cast_timestamp, fn_pass, 1},
    {"typeof", 1, 1, res_typeof, fn_pass, 1},
    {"date_part", 2, 2, res_date_part, fn_pass, 1},
    {"datepart", 2, 2, res_date_part, fn_pass, 1},
    {"like", 2, 3, res_like, fn_pass, 1},
    {"ilike", 2, 3, res_ilike, fn_pass, 1},
    {"factorial", 1, 1, res_factorial, fn_factorial, 0},
    {"shiftleft", 2, 2, res_shift, fn_shiftleft, 0},
    {"shiftright", 2, 2, res_shift, fn_shiftright, 0},
    {"shiftrightunsigned", 2, 2, res_shift, fn_shiftrightunsigned, 0},
    {"bit_count", 1, 1, res_bit_count, fn_bit_count, 0},
    {"bit_get", 2, 2, res_bit_get, fn_bit_get, 0},
    {"getbit", 2, 2, res_bit_get, fn_bit_get, 0},
    {"bin", 1, 1, res_bin, fn_bin, 0},
    {"conv", 3, 3, res_conv, fn_conv, 0},
    {"width_bucket", 4, 4, res_width_bucket, fn_width_bucket, 0},
};
const size_t engine_n_cond_funcs = sizeof(engine_cond_funcs) / sizeof(engine_cond_funcs[0]);

const expr_func_def *expr_func_lookup_more(const char *name)
{
    static const struct { const expr_func_def *defs; const size_t *n; } tables[] = {
        {engine_codec_funcs, &engine_n_codec_funcs},
        {engine_text_funcs, &engine_n_text_funcs},
        {engine_cond_funcs, &engine_n_cond_funcs},
        {engine_array_funcs, &engine_n_array_funcs},
    };
    size_t t, idx;
    for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
        for (idx = 0; idx < *tables[t].n; idx++)
            if (util_str_casecmp(tables[t].defs[idx].name, name) == 0)
                return &tables[t].defs[idx];
    return NULL;
}
