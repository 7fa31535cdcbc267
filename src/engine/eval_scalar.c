/*
 * eval_scalar.c - more of Spark's built-in scalar functions: trigonometry
 * and the other double functions (with Spark's formulas where Spark does
 * not call java.lang.Math: acosh, asinh, atanh, cot, sec, csc; log1p is
 * NULL at and below -1), NaN and NULL tests, string predicates and
 * slices, and date/time conversions (unix_date, unix_seconds,
 * timestamp_seconds, dayname, next_day, try_to_timestamp, ...).
 * docs/functions.md lists what Spark has and silt does not.
 */
#include "engine/eval_int.h"

#include <math.h>
#include <string.h>

#include "util/time.h"
#include "util/time_zone.h"

/* java.lang.Math.PI and E (C11 has no SPARK_PI) */
#define SPARK_PI 3.14159265358979323846
#define SPARK_E 2.7182818284590452354


static silt_status res_args(expr *e, arena *a, col_type_id arg, col_type_id result, silt_error *err)
{
    col_type_id types[4] = {arg, arg, arg, arg};
    return expr_resolve_args(e, a, types, e->n_args < 4 ? e->n_args : 4, result, err);
}

/* ---- doubles ---------------------------------------------------------------------- */

static silt_status res_double(expr *e, arena *a, silt_error *err)
{
    return res_args(e, a, COL_DOUBLE, COL_DOUBLE, err);
}

enum {
    D_ACOS, D_ASIN, D_ATAN, D_COS, D_SIN, D_TAN, D_COSH, D_SINH, D_TANH, D_CBRT, D_EXPM1,
    D_LOG1P, D_DEGREES, D_RADIANS, D_RINT, D_ACOSH, D_ASINH, D_ATANH, D_COT, D_SEC, D_CSC,
    D_ATAN2, D_HYPOT
};

static double apply(int which, double x, double y, int *null)
{
    switch (which) {
    case D_ACOS: return acos(x);
    case D_ASIN: return asin(x);
    case D_ATAN: return atan(x);
    case D_COS: return cos(x);
    case D_SIN: return sin(x);
    case D_TAN: return tan(x);
    case D_COSH: return cosh(x);
    case D_SINH: return sinh(x);
    case D_TANH: return tanh(x);
    case D_CBRT: { /* glibc's cbrt is 1 ulp off at times (27 -> 3.0000000000000004): one Newton step */
        double c = cbrt(x);
        return c == 0 || !isfinite(c) ? c : c - (c * c * c - x) / (3 * c * c);
    }
    case D_EXPM1: return expm1(x);
    case D_LOG1P: *null = x <= -1.0; return log1p(x);
    case D_DEGREES: return x * (180.0 / SPARK_PI);
    case D_RADIANS: return x / 180.0 * SPARK_PI;
    case D_RINT: return rint(x);
    case D_ACOSH: return log(x + sqrt(x * x - 1.0));
    case D_ASINH: return isinf(x) && x < 0 ? x : log(x + sqrt(x * x + 1.0));
    case D_ATANH: return 0.5 * (log1p(x) - log1p(-x));
    case D_COT: return 1.0 / tan(x);
    case D_SEC: return 1.0 / cos(x);
    case D_CSC: return 1.0 / sin(x);
    case D_ATAN2: return atan2(x + 0.0, y + 0.0); /* Spark adds 0.0 to turn -0.0 into 0.0 */
    default: return hypot(x, y);
    }
}

static silt_status double_fn(FN_ARGS, int which)
{
    col_vec *o;
    double *ov;
    const double *x = args[0]->values, *y = e->n_args > 1 ? args[1]->values : NULL;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP({
        int null = 0;
        ov[r] = apply(which, x[r], y != NULL ? y[r] : 0, &null);
        if (null)
            vec_set_null(o, r);
    });
    *out = o;
    return SILT_OK;
}

#define DOUBLE_FN(NAME, WHICH)                                                                     \
    static silt_status NAME(FN_ARGS) { return double_fn(FN_PASS, WHICH); }
DOUBLE_FN(fn_acos, D_ACOS)
DOUBLE_FN(fn_asin, D_ASIN)
DOUBLE_FN(fn_atan, D_ATAN)
DOUBLE_FN(fn_cos, D_COS)
DOUBLE_FN(fn_sin, D_SIN)
DOUBLE_FN(fn_tan, D_TAN)
DOUBLE_FN(fn_cosh, D_COSH)
DOUBLE_FN(fn_sinh, D_SINH)
DOUBLE_FN(fn_tanh, D_TANH)
DOUBLE_FN(fn_cbrt, D_CBRT)
DOUBLE_FN(fn_expm1, D_EXPM1)
DOUBLE_FN(fn_log1p, D_LOG1P)
DOUBLE_FN(fn_degrees, D_DEGREES)
DOUBLE_FN(fn_radians, D_RADIANS)
DOUBLE_FN(fn_rint, D_RINT)
DOUBLE_FN(fn_acosh, D_ACOSH)
DOUBLE_FN(fn_asinh, D_ASINH)
DOUBLE_FN(fn_atanh, D_ATANH)
DOUBLE_FN(fn_cot, D_COT)
DOUBLE_FN(fn_sec, D_SEC)
DOUBLE_FN(fn_csc, D_CSC)
DOUBLE_FN(fn_atan2, D_ATAN2)
DOUBLE_FN(fn_hypot, D_HYPOT)

static silt_status res_const_double(expr *e, arena *a, silt_error *err)
{
    e->type = col_type_primitive(COL_DOUBLE);
    return SILT_OK;
}

static silt_status const_double(FN_ARGS, double v)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP(((double *)o->values)[r] = v;);
    *out = o;
    return SILT_OK;
}

static silt_status fn_pi(FN_ARGS) { return const_double(FN_PASS, SPARK_PI); }
static silt_status fn_e(FN_ARGS) { return const_double(FN_PASS, SPARK_E); }

/* isnan(x): false for NULL (Spark's IsNaN); nanvl(x, y): y where x is NaN. */
static silt_status res_isnan(expr *e, arena *a, silt_error *err)
{
    return res_args(e, a, COL_DOUBLE, COL_BOOLEAN, err);
}

static silt_status fn_isnan(FN_ARGS)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        double v = ((const double *)args[0]->values)[r];
        vec_put_int(o, r, vec_is_valid(args[0], r) && v != v);
    });
    *out = o;
    return SILT_OK;
}

static silt_status fn_nanvl(FN_ARGS)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        double x = ((const double *)args[0]->values)[r];
        int pick = vec_is_valid(args[0], r) && x != x;
        const col_vec *src = pick ? args[1] : args[0];
        if (!vec_is_valid(src, r))
            vec_set_null(o, r);
        else
            ((double *)o->values)[r] = ((const double *)src->values)[r];
    });
    *out = o;
    return SILT_OK;
}

/* isnull(x) / isnotnull(x): never NULL themselves. */
static silt_status res_is_null(expr *e, arena *a, silt_error *err)
{
    e->type = col_type_primitive(COL_BOOLEAN);
    return SILT_OK;
}

static silt_status null_test(FN_ARGS, int want_null)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP(vec_put_int(o, r, args[0]->type->id == COL_NULL || !vec_is_valid(args[0], r)
                                    ? want_null : !want_null););
    *out = o;
    return SILT_OK;
}

static silt_status fn_isnull(FN_ARGS) { return null_test(FN_PASS, 1); }
static silt_status fn_isnotnull(FN_ARGS) { return null_test(FN_PASS, 0); }

/* ---- strings ---------------------------------------------------------------------- */

static silt_status res_str_pred(expr *e, arena *a, silt_error *err)
{
    return res_args(e, a, COL_STRING, COL_BOOLEAN, err);
}

enum { S_STARTS, S_ENDS, S_CONTAINS };

static silt_status str_pred(FN_ARGS, int which)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int32_t sl, pl;
        const char *s = col_vec_str(args[0], r, &sl), *p = col_vec_str(args[1], r, &pl);
        int v = 0;
        if (pl == 0)
            v = 1;
        else if (pl <= sl && which == S_STARTS)
            v = memcmp(s, p, (size_t)pl) == 0;
        else if (pl <= sl && which == S_ENDS)
            v = memcmp(s + sl - pl, p, (size_t)pl) == 0;
        else if (pl <= sl) {
            int32_t i;
            for (i = 0; i + pl <= sl && !v; i++)
                v = memcmp(s + i, p, (size_t)pl) == 0;
        }
        vec_put_int(o, r, v);
    });
    *out = o;
    return SILT_OK;
}

static silt_status fn_startswith(FN_ARGS) { return str_pred(FN_PASS, S_STARTS); }
static silt_status fn_endswith(FN_ARGS) { return str_pred(FN_PASS, S_ENDS); }
static silt_status fn_contains(FN_ARGS) { return str_pred(FN_PASS, S_CONTAINS); }

static silt_status res_str_int(expr *e, arena *a, silt_error *err)
{
    static const col_type_id types[] = {COL_STRING, COL_INT};
    return expr_resolve_args(e, a, types, 2, COL_STRING, err);
}

/* Byte offset of UTF-8 character idx of s (len bytes); len when past the end. */
static int32_t char_offset(const char *s, int32_t len, int64_t idx)
{
    int32_t pos = 0;
    while (pos < len && idx > 0) {
        pos++;
        while (pos < len && ((unsigned char)s[pos] & 0xC0) == 0x80)
            pos++;
        idx--;
    }
    return pos;
}

static int64_t char_count(const char *s, int32_t len)
{
    int64_t n = 0;
    int32_t i;
    for (i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/* left(s, n) / right(s, n): the first or last n characters ("" for n <= 0). */
static silt_status slice(FN_ARGS, int from_right)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t len;
        const char *s = col_vec_str(args[0], r, &len);
        int64_t n = vec_get_int(args[1], r), chars = char_count(s, len);
        int32_t start = 0, end = 0;
        if (n > 0) {
            if (n > chars)
                n = chars;
            start = from_right ? char_offset(s, len, chars - n) : 0;
            end = from_right ? len : char_offset(s, len, n);
        }
        rc = vec_str_put(&w, r, s + start, end - start, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

static silt_status fn_left(FN_ARGS) { return slice(FN_PASS, 0); }
static silt_status fn_right(FN_ARGS) { return slice(FN_PASS, 1); }

static silt_status res_str_len(expr *e, arena *a, silt_error *err)
{
    return res_args(e, a, COL_STRING, COL_INT, err);
}

static silt_status byte_len(FN_ARGS, int bits)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int32_t len;
        col_vec_str(args[0], r, &len);
        vec_put_int(o, r, (int64_t)len * bits);
    });
    *out = o;
    return SILT_OK;
}

static silt_status fn_octet_length(FN_ARGS) { return byte_len(FN_PASS, 1); }
static silt_status fn_bit_length(FN_ARGS) { return byte_len(FN_PASS, 8); }

static silt_status res_space(expr *e, arena *a, silt_error *err)
{
    return res_args(e, a, COL_INT, COL_STRING, err);
}

static silt_status fn_space(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int64_t n = vec_get_int(args[0], r);
        char *dst;
        if (n < 0)
            n = 0;
        rc = vec_str_reserve(&w, n, &dst, err);
        if (rc == SILT_OK) {
            memset(dst, ' ', (size_t)n);
            rc = vec_str_commit(&w, r, n, err);
        }
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

/* ---- dates and times ----------------------------------------------------------- */

static silt_status res_date_to_int(expr *e, arena *a, silt_error *err)
{
    return res_args(e, a, COL_DATE, COL_INT, err);
}

static silt_status res_int_to_date(expr *e, arena *a, silt_error *err)
{
    return res_args(e, a, COL_INT, COL_DATE, err);
}

static silt_status res_ts_to_long(expr *e, arena *a, silt_error *err)
{
    return res_args(e, a, COL_TIMESTAMP, COL_LONG, err);
}

static silt_status res_long_to_ts(expr *e, arena *a, silt_error *err)
{
    col_type_id id = e->args[0]->type->id;
    if (id == COL_FLOAT || id == COL_DOUBLE || id == COL_DECIMAL)
        return err_set(err, SILT_UNSUPPORTED, "%s of a fractional number is not supported yet; "
                       "cast the argument to BIGINT", e->func->name);
    return res_args(e, a, COL_LONG, COL_TIMESTAMP, err);
}

/* unix_date(d) / date_from_unix_date(n): the day number itself. */
static silt_status fn_same_int(FN_ARGS)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP(vec_put_int(o, r, vec_get_int(args[0], r)););
    *out = o;
    return SILT_OK;
}

/* unix_seconds / unix_millis / unix_micros: floor division, as Spark's Math.floorDiv. */
static silt_status ts_units(FN_ARGS, int64_t unit)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP(vec_put_int(o, r, time_floor_div(vec_get_int(args[0], r), unit)););
    *out = o;
    return SILT_OK;
}

static silt_status fn_unix_seconds(FN_ARGS) { return ts_units(FN_PASS, TIME_MICROS_PER_SECOND); }
static silt_status fn_unix_millis(FN_ARGS) { return ts_units(FN_PASS, 1000); }
static silt_status fn_unix_micros(FN_ARGS) { return ts_units(FN_PASS, 1); }

/* timestamp_seconds / _millis / _micros of an integer: [ARITHMETIC_OVERFLOW] past the range. */
static silt_status from_units(FN_ARGS, int64_t unit)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int64_t v;
        if (__builtin_mul_overflow(vec_get_int(args[0], r), unit, &v))
            return expr_eval_error(e, err, SILT_RUNTIME, "ARITHMETIC_OVERFLOW",
                                   "long overflow");
        vec_put_int(o, r, v);
    });
    *out = o;
    return SILT_OK;
}

static silt_status fn_timestamp_seconds(FN_ARGS) { return from_units(FN_PASS, TIME_MICROS_PER_SECOND); }
static silt_status fn_timestamp_millis(FN_ARGS) { return from_units(FN_PASS, 1000); }
static silt_status fn_timestamp_micros(FN_ARGS) { return from_units(FN_PASS, 1); }

static silt_status res_date_to_str(expr *e, arena *a, silt_error *err)
{
    return res_args(e, a, COL_DATE, COL_STRING, err);
}

static const char *const day_abbr[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
static const char *const month_abbr[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/* dayname(d) "Mon".."Sun", monthname(d) "Jan".."Dec" (Spark 4's three letters). */
static silt_status names_of(FN_ARGS, int month)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int64_t days = vec_get_int(args[0], r), y;
        unsigned m, d;
        time_civil_from_days(days, &y, &m, &d);
        rc = vec_str_put(&w, r, month ? month_abbr[m - 1] : day_abbr[time_floor_mod(days + 3, 7)], 3,
                         err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

static silt_status fn_dayname(FN_ARGS) { return names_of(FN_PASS, 0); }
static silt_status fn_monthname(FN_ARGS) { return names_of(FN_PASS, 1); }

static silt_status res_next_day(expr *e, arena *a, silt_error *err)
{
    static const col_type_id types[] = {COL_DATE, COL_STRING};
    return expr_resolve_args(e, a, types, 2, COL_DATE, err);
}

/* Spark's getDayOfWeekFromString: SU, SUN, SUNDAY, ... (any case); 0 = Monday, -1 = none. */
static int day_of_week(const char *s, int32_t len)
{
    static const char *const full[] = {"MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY",
                                       "FRIDAY", "SATURDAY", "SUNDAY"};
    int idx;
    for (idx = 0; idx < 7; idx++) {
        size_t fl = strlen(full[idx]);
        if ((len == 2 || len == 3 || (size_t)len == fl) && util_str_ncasecmp(s, full[idx], (size_t)len) == 0)
            return idx;
    }
    return -1;
}

/* next_day(d, dow): the first such day after d; an unknown day is [ILLEGAL_DAY_OF_WEEK] (ANSI). */
static silt_status fn_next_day(FN_ARGS)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int32_t len;
        const char *s = col_vec_str(args[1], r, &len);
        int64_t days = vec_get_int(args[0], r);
        int want = day_of_week(s, len), have = (int)time_floor_mod(days + 3, 7);
        if (want < 0) {
            if (ctx->ansi)
                return expr_eval_error(e, err, SILT_RUNTIME, "ILLEGAL_DAY_OF_WEEK",
                                       "Illegal input for day of week: %.*s",
                                       (int)(len > 32 ? 32 : len), s);
            vec_set_null(o, r);
            continue;
        }
        vec_put_int(o, r, days + 1 + time_floor_mod(want - have - 1, 7));
    });
    *out = o;
    return SILT_OK;
}

/* try_to_timestamp / try_to_date: to_timestamp / to_date with NULL for what fails to parse. */
static silt_status try_parse(FN_ARGS, const char *name)
{
    const expr_func_def *def = expr_func_lookup(name);
    engine_ctx lenient = *ctx;
    lenient.ansi = 0;
    return def->eval(e, &lenient, args, sel, n_sel, n_rows, a, out, err);
}

static silt_status res_try_ts(expr *e, arena *a, silt_error *err)
{
    return expr_func_lookup("to_timestamp")->resolve(e, a, err);
}

static silt_status res_try_date(expr *e, arena *a, silt_error *err)
{
    return expr_func_lookup("to_date")->resolve(e, a, err);
}

static silt_status fn_try_to_timestamp(FN_ARGS) { return try_parse(FN_PASS, "to_timestamp"); }
static silt_status fn_try_to_date(FN_ARGS) { return try_parse(FN_PASS, "to_date"); }

const expr_func_def engine_scalar_funcs[] = {
    {"acos", 1, 1, res_double, fn_acos, 0},
    {"asin", 1, 1, res_double, fn_asin, 0},
    {"atan", 1, 1, res_double, fn_atan, 0},
    {"cos", 1, 1, res_double, fn_cos, 0},
    {"sin", 1, 1, res_double, fn_sin, 0},
    {"tan", 1, 1, res_double, fn_tan, 0},
    {"cosh", 1, 1, res_double, fn_cosh, 0},
    {"sinh", 1, 1, res_double, fn_sinh, 0},
    {"tanh", 1, 1, res_double, fn_tanh, 0},
    {"cbrt", 1, 1, res_double, fn_cbrt, 0},
    {"expm1", 1, 1, res_double, fn_expm1, 0},
    {"log1p", 1, 1, res_double, fn_log1p, 0},
    {"degrees", 1, 1, res_double, fn_degrees, 0},
    {"radians", 1, 1, res_double, fn_radians, 0},
    {"rint", 1, 1, res_double, fn_rint, 0},
    {"acosh", 1, 1, res_double, fn_acosh, 0},
    {"asinh", 1, 1, res_double, fn_asinh, 0},
    {"atanh", 1, 1, res_double, fn_atanh, 0},
    {"cot", 1, 1, res_double, fn_cot, 0},
    {"sec", 1, 1, res_double, fn_sec, 0},
    {"csc", 1, 1, res_double, fn_csc, 0},
    {"atan2", 2, 2, res_double, fn_atan2, 0},
    {"hypot", 2, 2, res_double, fn_hypot, 0},
    {"pi", 0, 0, res_const_double, fn_pi, 0},
    {"e", 0, 0, res_const_double, fn_e, 0},
    {"isnan", 1, 1, res_isnan, fn_isnan, 1},
    {"nanvl", 2, 2, res_double, fn_nanvl, 1},
    {"isnull", 1, 1, res_is_null, fn_isnull, 1},
    {"isnotnull", 1, 1, res_is_null, fn_isnotnull, 1},
    {"startswith", 2, 2, res_str_pred, fn_startswith, 0},
    {"endswith", 2, 2, res_str_pred, fn_endswith, 0},
    {"contains", 2, 2, res_str_pred, fn_contains, 0},
    {"left", 2, 2, res_str_int, fn_left, 0},
    {"right", 2, 2, res_str_int, fn_right, 0},
    {"octet_length", 1, 1, res_str_len, fn_octet_length, 0},
    {"bit_length", 1, 1, res_str_len, fn_bit_length, 0},
    {"space", 1, 1, res_space, fn_space, 0},
    {"unix_date", 1, 1, res_date_to_int, fn_same_int, 0},
    {"date_from_unix_date", 1, 1, res_int_to_date, fn_same_int, 0},
    {"unix_seconds", 1, 1, res_ts_to_long, fn_unix_seconds, 0},
    {"unix_millis", 1, 1, res_ts_to_long, fn_unix_millis, 0},
    {"unix_micros", 1, 1, res_ts_to_long, fn_unix_micros, 0},
    {"timestamp_seconds", 1, 1, res_long_to_ts, fn_timestamp_seconds, 0},
    {"timestamp_millis", 1, 1, res_long_to_ts, fn_timestamp_millis, 0},
    {"timestamp_micros", 1, 1, res_long_to_ts, fn_timestamp_micros, 0},
    {"dayname", 1, 1, res_date_to_str, fn_dayname, 0},
    {"monthname", 1, 1, res_date_to_str, fn_monthname, 0},
    {"next_day", 2, 2, res_next_day, fn_next_day, 0},
    {"try_to_timestamp", 1, 2, res_try_ts, fn_try_to_timestamp, 0},
    {"try_to_date", 1, 2, res_try_date, fn_try_to_date, 0},
};
const size_t engine_n_scalar_funcs = sizeof(engine_scalar_funcs) / sizeof(engine_scalar_funcs[0]);
