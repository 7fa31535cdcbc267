/*
 * eval_cast.c - CAST between Delta's types with Spark SQL's rules.
 *
 *   string -> number/boolean/date/timestamp: the text is trimmed; text that
 *     does not parse is [CAST_INVALID_INPUT] in ANSI mode, NULL otherwise
 *     (and always NULL for TRY_CAST). Non-ANSI mode also accepts "1.9" as
 *     an integer (truncated), as Spark 3's default does.
 *   number -> narrower integer: out of range is [CAST_OVERFLOW] in ANSI
 *     mode, wraps (two's complement) otherwise; float -> integer truncates.
 *   -> decimal(p,s): rounds HALF_UP; too many digits is [CAST_OVERFLOW] in
 *     ANSI mode, NULL otherwise.
 *   number/date/timestamp -> string: Spark's text forms (doubles as Java's
 *     Double.toString: "1.0", "1.0E10"; timestamps "2024-01-02 03:04:05.5").
 *   timestamp -> date floors to the UTC day; date -> timestamp is midnight.
 *   timestamp <-> number: seconds since the epoch.
 */
#include "engine/expr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/text.h"
#include "util/time.h"
#include "util/time_zone.h"

static int is_integral(col_type_id id)
{
    return id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG;
}

static int is_numeric(col_type_id id)
{
    return is_integral(id) || id == COL_FLOAT || id == COL_DOUBLE || id == COL_DECIMAL;
}

static int is_datetime(col_type_id id)
{
    return id == COL_DATE || id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ;
}

int expr_cast_allowed(const col_type *from, const col_type *to)
{
    col_type_id f = from->id, t = to->id;
    if (f == COL_NULL || col_type_equal(from, to))
        return 1;
    if (col_type_is_nested(f) && t == COL_STRING)
        return 1; /* Spark's "[1, 2]", "{a -> 1}", "{1, x}" */
    if (col_type_is_nested(f) && f == t && from->n_fields == to->n_fields) {
        size_t idx;
        for (idx = 0; idx < from->n_fields; idx++)
            if (!expr_cast_allowed(from->fields[idx].type, to->fields[idx].type))
                return 0;
        return 1; /* part by part, as Spark's Cast.canCast */
    }
    if (col_type_is_nested(f) || col_type_is_nested(t) || t == COL_NULL)
        return 0;
    if (t == COL_STRING)
        return 1;
    if (f == COL_STRING)
        return 1;
    if (is_numeric(f) && is_numeric(t))
        return 1;
    if ((f == COL_BOOLEAN && is_numeric(t)) || (is_numeric(f) && t == COL_BOOLEAN))
        return 1;
    if (is_datetime(f) && is_datetime(t))
        return 1;
    if ((f == COL_TIMESTAMP && is_numeric(t)) || (is_numeric(f) && t == COL_TIMESTAMP))
        return 1;
    return 0;
}

static int type_text(const col_type *t, char *out, size_t cap)
{
    if (t->id == COL_DECIMAL)
        return snprintf(out, cap, "decimal(%d,%d)", t->precision, t->scale);
    return snprintf(out, cap, "%s", col_type_id_name(t->id));
}

typedef struct cast_run {
    const expr *e;
    engine_ctx *ctx;
    const col_vec *src;
    col_vec *out;
    int lenient; /* failures give NULL */
} cast_run;

/* A row that does not cast: NULL when lenient, else the error. */
static silt_status cast_fail(cast_run *c, int64_t row, const char *cls, silt_error *err)
{
    char from[64], to[64], value[96];
    if (c->lenient) {
        vec_set_null(c->out, row);
        return SILT_OK;
    }
    type_text(c->src->type, from, sizeof(from));
    type_text(c->e->type, to, sizeof(to));
    if (c->src->type->id == COL_STRING || c->src->type->id == COL_BINARY) {
        int32_t len;
        const char *s = col_vec_str(c->src, row, &len);
        snprintf(value, sizeof(value), "'%.*s'%s", len > 64 ? 64 : (int)len, s,
                 len > 64 ? "..." : "");
    } else if (c->src->type->id == COL_FLOAT || c->src->type->id == COL_DOUBLE) {
        snprintf(value, sizeof(value), "%.17g", vec_get_double(c->src, row));
    } else if (c->src->type->id == COL_DECIMAL) {
        engine_dec_format(vec_get_dec(c->src, row), c->src->type->scale, value, sizeof(value));
    } else {
        snprintf(value, sizeof(value), "%lld", (long long)vec_get_int(c->src, row));
    }
    if (strcmp(cls, "CAST_INVALID_INPUT") == 0)
        expr_eval_error(c->e, err, SILT_RUNTIME, cls, "the value %s of the type \"%s\" cannot be "
                   "cast to \"%s\" because it is malformed", value, from, to);
    else
        expr_eval_error(c->e, err, SILT_RUNTIME, cls, "the value %s of the type \"%s\" cannot be "
                   "cast to \"%s\" due to an overflow", value, from, to);
    err_hint(err, "use try_cast to tolerate malformed input and return NULL instead");
    return SILT_RUNTIME;
}

/* ---- string parsing ------------------------------------------------------ */

static void trim(const char **s, int32_t *len)
{
    const char *p = *s;
    int32_t n = *len;
    while (n > 0 && (unsigned char)*p <= ' ') {
        p++;
        n--;
    }
    while (n > 0 && (unsigned char)p[n - 1] <= ' ')
        n--;
    *s = p;
    *len = n;
}

/* 1 ok, 0 malformed, -1 overflow (of int64). */
static int parse_long(const char *s, int32_t len, int allow_fraction, int64_t *out)
{
    int32_t pos = 0;
    int neg = 0, any = 0;
    uint64_t v = 0;
    trim(&s, &len);
    if (pos < len && (s[pos] == '+' || s[pos] == '-'))
        neg = s[pos++] == '-';
    for (; pos < len && s[pos] >= '0' && s[pos] <= '9'; pos++, any = 1) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[pos] - '0');
    }
    if (allow_fraction && pos < len && s[pos] == '.') {
        for (pos++; pos < len && s[pos] >= '0' && s[pos] <= '9'; pos++)
            any = 1;
    }
    if (!any || pos != len)
        return 0;
    if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 1;
}

static int parse_double(const char *s, int32_t len, double *out)
{
    char tmp[64];
    trim(&s, &len);
    if (len == 0 || len >= (int32_t)sizeof(tmp))
        return 0;
    memcpy(tmp, s, (size_t)len);
    tmp[len] = 0;
    if (strcmp(tmp, "NaN") == 0) {
        *out = NAN;
        return 1;
    }
    if (strcmp(tmp, "Infinity") == 0 || strcmp(tmp, "+Infinity") == 0 ||
        util_str_casecmp(tmp, "inf") == 0 || util_str_casecmp(tmp, "+inf") == 0) {
        *out = INFINITY;
        return 1;
    }
    if (strcmp(tmp, "-Infinity") == 0 || util_str_casecmp(tmp, "-inf") == 0) {
        *out = -INFINITY;
        return 1;
    }
    /* strtod would also take hex, "nan(...)" and "infinity" spellings Spark rejects. */
    {
        int32_t pos;
        for (pos = 0; pos < len; pos++) {
            char ch = tmp[pos];
            if (!((ch >= '0' && ch <= '9') || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' ||
                  ch == '-'))
                return (pos == len - 1 && (ch == 'd' || ch == 'D' || ch == 'f' || ch == 'F'))
                           ? util_str_to_double(tmp, (size_t)pos, out)
                           : 0;
        }
    }
    return util_str_to_double(tmp, (size_t)len, out);
}

static int parse_bool(const char *s, int32_t len, int *out)
{
    static const char *const yes[] = {"t", "true", "y", "yes", "1"};
    static const char *const no[] = {"f", "false", "n", "no", "0"};
    char tmp[8];
    size_t idx;
    trim(&s, &len);
    if (len <= 0 || len >= (int32_t)sizeof(tmp))
        return 0;
    memcpy(tmp, s, (size_t)len);
    tmp[len] = 0;
    for (idx = 0; idx < 5; idx++) {
        if (util_str_casecmp(tmp, yes[idx]) == 0) {
            *out = 1;
            return 1;
        }
        if (util_str_casecmp(tmp, no[idx]) == 0) {
            *out = 0;
            return 1;
        }
    }
    return 0;
}

/* ---- number formatting --------------------------------------------------- */

/* Java's Double.toString / Float.toString: shortest round-trip digits. */
size_t engine_format_double(double d, int is_float, char *out, size_t cap)
{
    char tmp[64], digits[32];
    int prec, exp10 = 0, n_digits = 0, idx;
    size_t len = 0;
    if (d != d)
        return (size_t)snprintf(out, cap, "NaN");
    if (isinf(d))
        return (size_t)snprintf(out, cap, d > 0 ? "Infinity" : "-Infinity");
    if (d == 0)
        return (size_t)snprintf(out, cap, signbit(d) ? "-0.0" : "0.0");
    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, d);
        if (is_float ? (float)strtod(tmp, NULL) == (float)d : strtod(tmp, NULL) == d)
            break;
    }
    /* tmp is "-d.ddde+XX" */
    {
        const char *p = tmp;
        if (*p == '-')
            p++;
        for (; *p && *p != 'e'; p++)
            if (*p >= '0' && *p <= '9')
                digits[n_digits++] = *p;
        if (*p == 'e')
            exp10 = (int)strtol(p + 1, NULL, 10);
        while (n_digits > 1 && digits[n_digits - 1] == '0')
            n_digits--;
    }
#define PUT(ch)                                                                                    \
    do {                                                                                           \
        if (len + 1 < cap)                                                                         \
            out[len] = (ch);                                                                       \
        len++;                                                                                     \
    } while (0)
    if (d < 0)
        PUT('-');
    if (exp10 >= -3 && exp10 < 7) {
        if (exp10 < 0) {
            PUT('0');
            PUT('.');
            for (idx = 0; idx < -exp10 - 1; idx++)
                PUT('0');
            for (idx = 0; idx < n_digits; idx++)
                PUT(digits[idx]);
        } else {
            for (idx = 0; idx <= exp10; idx++)
                PUT(idx < n_digits ? digits[idx] : '0');
            PUT('.');
            if (n_digits <= exp10 + 1)
                PUT('0');
            for (idx = exp10 + 1; idx < n_digits; idx++)
                PUT(digits[idx]);
        }
    } else {
        char e[16];
        PUT(digits[0]);
        PUT('.');
        if (n_digits == 1)
            PUT('0');
        for (idx = 1; idx < n_digits; idx++)
            PUT(digits[idx]);
        snprintf(e, sizeof(e), "E%d", exp10);
        for (idx = 0; e[idx]; idx++)
            PUT(e[idx]);
    }
#undef PUT
    if (cap > 0)
        out[len < cap ? len : cap - 1] = 0;
    return len;
}

/* ---- the cast loops --------------------------------------------------------- */

static int64_t int_min_of(col_type_id id)
{
    switch (id) {
    case COL_BYTE: return INT8_MIN;
    case COL_SHORT: return INT16_MIN;
    case COL_INT: return INT32_MIN;
    default: return INT64_MIN;
    }
}

static int64_t int_max_of(col_type_id id)
{
    switch (id) {
    case COL_BYTE: return INT8_MAX;
    case COL_SHORT: return INT16_MAX;
    case COL_INT: return INT32_MAX;
    default: return INT64_MAX;
    }
}

/* Any source value as an int64 for an integral target; 0 = out of range/malformed. */
static silt_status to_integral(cast_run *c, int64_t row, silt_error *err)
{
    col_type_id f = c->src->type->id, t = c->e->type->id;
    int64_t v = 0;
    int ok = 1;
    const char *cls = "CAST_OVERFLOW";
    if (f == COL_STRING || f == COL_BINARY) {
        int32_t len;
        const char *s = col_vec_str(c->src, row, &len);
        int rc = parse_long(s, len, !c->ctx->ansi, &v);
        if (rc == 0)
            cls = "CAST_INVALID_INPUT";
        ok = rc == 1;
    } else if (f == COL_FLOAT || f == COL_DOUBLE) {
        double d = vec_get_double(c->src, row);
        if (d != d || d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
            ok = 0;
            if (c->lenient && !c->e->op) {
                /* Java's narrowing: NaN -> 0, saturate to long. */
                v = d != d ? 0 : (d > 0 ? INT64_MAX : INT64_MIN);
                ok = 1;
            }
        } else {
            v = (int64_t)d;
        }
    } else if (f == COL_DECIMAL) {
        col_int128 x = vec_get_dec(c->src, row) / expr_pow10[c->src->type->scale];
        ok = x >= INT64_MIN && x <= INT64_MAX;
        v = (int64_t)x;
    } else if (f == COL_TIMESTAMP) {
        v = time_floor_div(vec_get_int(c->src, row), TIME_MICROS_PER_SECOND);
    } else {
        v = vec_get_int(c->src, row);
    }
    if (ok && (v < int_min_of(t) || v > int_max_of(t))) {
        if (c->lenient && !c->e->op && f != COL_STRING)
            ok = 1; /* wraps on the store below, as Java's narrowing does */
        else
            ok = 0;
    }
    if (!ok)
        return cast_fail(c, row, cls, err);
    vec_put_int(c->out, row, v);
    return SILT_OK;
}

static silt_status to_floating(cast_run *c, int64_t row, silt_error *err)
{
    col_type_id f = c->src->type->id;
    double d;
    if (f == COL_STRING || f == COL_BINARY) {
        int32_t len;
        const char *s = col_vec_str(c->src, row, &len);
        if (!parse_double(s, len, &d))
            return cast_fail(c, row, "CAST_INVALID_INPUT", err);
    } else if (f == COL_FLOAT || f == COL_DOUBLE) {
        d = vec_get_double(c->src, row);
    } else if (f == COL_DECIMAL) {
        char tmp[64];
        engine_dec_format(vec_get_dec(c->src, row), c->src->type->scale, tmp, sizeof(tmp));
        d = strtod(tmp, NULL);
    } else if (f == COL_TIMESTAMP) {
        d = (double)vec_get_int(c->src, row) / 1e6;
    } else {
        d = (double)vec_get_int(c->src, row);
    }
    if (c->e->type->id == COL_FLOAT)
        ((float *)c->out->values)[row] = (float)d;
    else
        ((double *)c->out->values)[row] = d;
    return SILT_OK;
}

static silt_status to_decimal(cast_run *c, int64_t row, silt_error *err)
{
    col_type_id f = c->src->type->id;
    int32_t p = c->e->type->precision, s = c->e->type->scale;
    col_int128 v = 0;
    int ok;
    const char *cls = "CAST_OVERFLOW";
    if (f == COL_STRING || f == COL_BINARY) {
        int32_t len;
        const char *str = col_vec_str(c->src, row, &len);
        int rc = engine_dec_parse(str, (size_t)len, p, s, &v);
        if (rc == 0)
            cls = "CAST_INVALID_INPUT";
        ok = rc == 1;
    } else if (f == COL_FLOAT || f == COL_DOUBLE) {
        double d = vec_get_double(c->src, row);
        char tmp[64];
        size_t n;
        if (d != d || isinf(d)) {
            ok = 0;
        } else {
            n = engine_format_double(d, f == COL_FLOAT, tmp, sizeof(tmp));
            ok = engine_dec_parse(tmp, n, p, s, &v) == 1;
        }
    } else if (f == COL_DECIMAL) {
        ok = engine_dec_rescale(vec_get_dec(c->src, row), c->src->type->scale, s, p, &v);
    } else if (f == COL_TIMESTAMP) {
        ok = engine_dec_rescale(vec_get_int(c->src, row), 6, s, p, &v);
    } else {
        ok = engine_dec_rescale(vec_get_int(c->src, row), 0, s, p, &v);
    }
    if (!ok)
        return cast_fail(c, row, cls, err);
    vec_put_dec(c->out, row, v);
    return SILT_OK;
}

static silt_status to_boolean(cast_run *c, int64_t row, silt_error *err)
{
    col_type_id f = c->src->type->id;
    int b;
    if (f == COL_STRING || f == COL_BINARY) {
        int32_t len;
        const char *s = col_vec_str(c->src, row, &len);
        if (!parse_bool(s, len, &b))
            return cast_fail(c, row, "CAST_INVALID_INPUT", err);
    } else if (f == COL_FLOAT || f == COL_DOUBLE) {
        b = vec_get_double(c->src, row) != 0;
    } else if (f == COL_DECIMAL) {
        b = vec_get_dec(c->src, row) != 0;
    } else {
        b = vec_get_int(c->src, row) != 0;
    }
    ((uint8_t *)c->out->values)[row] = (uint8_t)b;
    return SILT_OK;
}

static silt_status to_datetime(cast_run *c, int64_t row, silt_error *err)
{
    col_type_id f = c->src->type->id, t = c->e->type->id;
    int64_t micros = 0;
    if (f == COL_STRING || f == COL_BINARY) {
        int32_t len;
        const char *s = col_vec_str(c->src, row, &len);
        int has_zone, ok;
        if (t == COL_DATE) {
            int32_t days;
            if (!time_string_to_date(s, (size_t)len, &days))
                return cast_fail(c, row, "CAST_INVALID_INPUT", err);
            vec_put_int(c->out, row, days);
            return SILT_OK;
        }
        ok = t == COL_TIMESTAMP_NTZ
                 ? time_string_to_timestamp_ntz(s, (size_t)len, c->ctx->now_micros, &has_zone, &micros)
                 : time_string_to_timestamp(s, (size_t)len, c->ctx->zone, c->ctx->now_micros, &micros);
        if (!ok)
            return cast_fail(c, row, "CAST_INVALID_INPUT", err);
        vec_put_int(c->out, row, micros);
        return SILT_OK;
    } else if (f == COL_DATE) {
        /* a date is its midnight on the session's wall clock (an NTZ one on no zone's) */
        micros = vec_get_int(c->src, row) * TIME_MICROS_PER_DAY;
        if (t == COL_TIMESTAMP)
            micros = time_zone_from_local(c->ctx->zone, micros);
    } else if (f == COL_TIMESTAMP || f == COL_TIMESTAMP_NTZ) {
        /* between an instant and a wall clock (or a date) the session zone decides */
        micros = vec_get_int(c->src, row);
        if (f == COL_TIMESTAMP && t != COL_TIMESTAMP)
            micros = time_zone_to_local(c->ctx->zone, micros);
        else if (f == COL_TIMESTAMP_NTZ && t == COL_TIMESTAMP)
            micros = time_zone_from_local(c->ctx->zone, micros);
    } else if (f == COL_FLOAT || f == COL_DOUBLE) {
        double d = vec_get_double(c->src, row) * 1e6;
        if (d != d || d >= 9.2e18 || d <= -9.2e18)
            return cast_fail(c, row, "CAST_OVERFLOW", err);
        micros = (int64_t)d;
    } else if (f == COL_DECIMAL) {
        col_int128 v;
        if (!engine_dec_rescale(vec_get_dec(c->src, row), c->src->type->scale, 6, 38, &v) ||
            v > INT64_MAX || v < INT64_MIN)
            return cast_fail(c, row, "CAST_OVERFLOW", err);
        micros = (int64_t)v;
    } else {
        int64_t secs = vec_get_int(c->src, row);
        if (__builtin_mul_overflow(secs, TIME_MICROS_PER_SECOND, &micros))
            return cast_fail(c, row, "CAST_OVERFLOW", err);
    }
    if (t == COL_DATE)
        vec_put_int(c->out, row, time_floor_div(micros, TIME_MICROS_PER_DAY));
    else
        vec_put_int(c->out, row, micros);
    return SILT_OK;
}

/* Appends the string form of one value, nested ones as Spark 3+ prints them. */
static silt_status append_text(buf *b, const col_vec *v, int64_t row, const time_zone *zone,
                               silt_error *err)
{
    char tmp[96];
    size_t len;
    if (!vec_is_valid(v, row))
        return buf_append_str(b, "null", err);
    switch (v->type->id) {
    case COL_STRING:
    case COL_BINARY: {
        int32_t n;
        const char *s = col_vec_str(v, row, &n);
        return buf_append(b, s, (size_t)n, err);
    }
    case COL_BOOLEAN: return buf_append_str(b, vec_get_int(v, row) ? "true" : "false", err);
    case COL_FLOAT:
    case COL_DOUBLE:
        engine_format_double(vec_get_double(v, row), v->type->id == COL_FLOAT, tmp, sizeof(tmp));
        return buf_append_str(b, tmp, err);
    case COL_DECIMAL: len = engine_dec_format(vec_get_dec(v, row), v->type->scale, tmp, sizeof(tmp)); break;
    case COL_DATE: len = text_format_date_spark((int32_t)vec_get_int(v, row), tmp); break;
    case COL_TIMESTAMP:
        len = text_format_timestamp_spark(time_zone_to_local(zone, vec_get_int(v, row)), ' ', -1, 0, tmp);
        break;
    case COL_TIMESTAMP_NTZ: len = text_format_timestamp_spark(vec_get_int(v, row), ' ', -1, 0, tmp); break;
    case COL_STRUCT: {
        size_t f;
        SILT_RETURN_IF_ERROR(buf_append_char(b, '{', err));
        for (f = 0; f < v->n_children; f++) {
            if (f > 0)
                SILT_RETURN_IF_ERROR(buf_append_str(b, ", ", err));
            SILT_RETURN_IF_ERROR(append_text(b, v->children[f], row, zone, err));
        }
        return buf_append_char(b, '}', err);
    }
    case COL_ARRAY:
    case COL_MAP: {
        int32_t e;
        int is_map = v->type->id == COL_MAP;
        SILT_RETURN_IF_ERROR(buf_append_char(b, is_map ? '{' : '[', err));
        for (e = v->offsets[row]; e < v->offsets[row + 1]; e++) {
            if (e > v->offsets[row])
                SILT_RETURN_IF_ERROR(buf_append_str(b, ", ", err));
            SILT_RETURN_IF_ERROR(append_text(b, v->children[0], e, zone, err));
            if (is_map) {
                SILT_RETURN_IF_ERROR(buf_append_str(b, " -> ", err));
                SILT_RETURN_IF_ERROR(append_text(b, v->children[1], e, zone, err));
            }
        }
        return buf_append_char(b, is_map ? '}' : ']', err);
    }
    default: len = (size_t)snprintf(tmp, sizeof(tmp), "%lld", (long long)vec_get_int(v, row)); break;
    }
    return buf_append(b, tmp, len, err);
}

static silt_status to_string(cast_run *c, vec_str_writer *w, int64_t row, silt_error *err)
{
    if (col_type_is_nested(c->src->type->id)) {
        buf b = BUF_INIT;
        silt_status rc = append_text(&b, c->src, row, c->ctx->zone, err);
        if (rc == SILT_OK)
            rc = vec_str_put(w, row, b.data ? b.data : "", (int64_t)b.len, err);
        buf_clear(&b);
        return rc;
    }
    char tmp[96];
    size_t len;
    const col_vec *src = c->src;
    switch (src->type->id) {
    case COL_STRING:
    case COL_BINARY: {
        int32_t n;
        const char *s = col_vec_str(src, row, &n);
        return vec_str_put(w, row, s, n, err);
    }
    case COL_BOOLEAN:
        return vec_str_put(w, row, vec_get_int(src, row) ? "true" : "false",
                           vec_get_int(src, row) ? 4 : 5, err);
    case COL_FLOAT:
    case COL_DOUBLE:
        len = engine_format_double(vec_get_double(src, row), src->type->id == COL_FLOAT, tmp,
                                   sizeof(tmp));
        break;
    case COL_DECIMAL: len = engine_dec_format(vec_get_dec(src, row), src->type->scale, tmp, sizeof(tmp)); break;
    case COL_DATE: len = text_format_date_spark((int32_t)vec_get_int(src, row), tmp); break;
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        /* Spark's form: "+10000-01-01 00:00:00" past year 9999, fraction digits as needed */
        len = text_format_timestamp_spark(src->type->id == COL_TIMESTAMP
                                              ? time_zone_to_local(c->ctx->zone, vec_get_int(src, row))
                                              : vec_get_int(src, row),
                                          ' ', -1, 0, tmp);
        break;
    default: len = (size_t)snprintf(tmp, sizeof(tmp), "%lld", (long long)vec_get_int(src, row)); break;
    }
    return vec_str_put(w, row, tmp, (int64_t)len, err);
}

/* Integral widening and integral -> double: the casts coercion inserts most. */
static int cast_fast(const col_vec *src, col_vec *o, const int32_t *sel, int64_t n)
{
    col_type_id f = src->type->id, t = o->type->id;
    int64_t k;
    if (t == COL_LONG && (f == COL_INT || f == COL_SHORT || f == COL_BYTE)) {
        int64_t *ov = o->values;
        for (k = 0; k < n; k++) {
            int64_t r = ENGINE_ROW(sel, k);
            ov[r] = vec_get_int(src, r);
        }
        return 1;
    }
    if (t == COL_DOUBLE && (is_integral(f) || f == COL_FLOAT)) {
        double *ov = o->values;
        if (f == COL_INT) {
            const int32_t *iv = src->values;
            for (k = 0; k < n; k++) {
                int64_t r = ENGINE_ROW(sel, k);
                ov[r] = iv[r];
            }
        } else if (f == COL_LONG) {
            const int64_t *iv = src->values;
            for (k = 0; k < n; k++) {
                int64_t r = ENGINE_ROW(sel, k);
                ov[r] = (double)iv[r];
            }
        } else {
            for (k = 0; k < n; k++) {
                int64_t r = ENGINE_ROW(sel, k);
                ov[r] = f == COL_FLOAT ? vec_get_double(src, r) : (double)vec_get_int(src, r);
            }
        }
        return 1;
    }
    return 0;
}

/*
 * An array, map or struct cast to another of its kind: the same rows and
 * offsets over children cast to the target's parts (every element of an
 * array or map, the live rows of a struct's fields).
 */
static silt_status cast_nested(const expr *e, engine_ctx *ctx, const col_vec *src,
                               const int32_t *sel, int64_t n_sel, arena *a, col_vec **out,
                               silt_error *err)
{
    col_vec *o = arena_alloc(a, sizeof(*o));
    col_vec **kids = arena_calloc(a, src->n_children + 1, sizeof(col_vec *));
    size_t idx;
    if (o == NULL || kids == NULL)
        return err_nomem(err);
    *o = *src;
    o->type = e->type;
    o->children = kids;
    for (idx = 0; idx < src->n_children; idx++) {
        expr part = *e;
        const col_vec *child = src->children[idx];
        part.type = e->type->fields[idx].type;
        if (src->type->id == COL_STRUCT)
            SILT_RETURN_IF_ERROR(expr_eval_cast(&part, ctx, child, sel, n_sel, a, &kids[idx], err));
        else
            SILT_RETURN_IF_ERROR(expr_eval_cast(&part, ctx, child, NULL, child->length, a,
                                                &kids[idx], err));
    }
    *out = o;
    return SILT_OK;
}

silt_status expr_eval_cast(const expr *e, engine_ctx *ctx, const col_vec *src, const int32_t *sel,
                      int64_t n_sel, arena *a, col_vec **out, silt_error *err)
{
    cast_run c;
    col_vec *o;
    col_type_id t = e->type->id;
    int64_t k, n_rows = src->length;
    vec_str_writer w;
    if (col_type_equal(src->type, e->type)) {
        *out = (col_vec *)src;
        return SILT_OK;
    }
    if (col_type_is_nested(t) && src->type->id == t)
        return cast_nested(e, ctx, src, sel, n_sel, a, out, err);
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    if (src->type->id == COL_NULL) {
        memset(o->validity, 0, (size_t)(n_rows + 7) / 8);
        o->null_count = n_rows;
        if (t == COL_STRING || t == COL_BINARY) {
            vec_str_begin(&w, o, a);
            vec_str_end(&w);
        }
        *out = o;
        return SILT_OK;
    }
    if (src->validity != NULL)
        memcpy(o->validity, src->validity, (size_t)(n_rows + 7) / 8);
    o->null_count = src->null_count;
    c.e = e;
    c.ctx = ctx;
    c.src = src;
    c.out = o;
    c.lenient = e->op || !ctx->ansi;
    if (cast_fast(src, o, sel, n_sel)) {
        *out = o;
        return SILT_OK;
    }
    if (t == COL_STRING || t == COL_BINARY)
        vec_str_begin(&w, o, a);
    for (k = 0; k < n_sel; k++) {
        int64_t row = ENGINE_ROW(sel, k);
        silt_status rc = SILT_OK;
        if (!vec_is_valid(src, row))
            continue;
        if (is_integral(t))
            rc = to_integral(&c, row, err);
        else if (t == COL_FLOAT || t == COL_DOUBLE)
            rc = to_floating(&c, row, err);
        else if (t == COL_DECIMAL)
            rc = to_decimal(&c, row, err);
        else if (t == COL_BOOLEAN)
            rc = to_boolean(&c, row, err);
        else if (is_datetime(t))
            rc = to_datetime(&c, row, err);
        else if (t == COL_STRING || t == COL_BINARY)
            rc = to_string(&c, &w, row, err);
        else
            rc = err_set(err, SILT_UNSUPPORTED, "cast to \"%s\" is not supported",
                         col_type_id_name(t));
        if (rc != SILT_OK)
            return rc;
    }
    if (t == COL_STRING || t == COL_BINARY)
        vec_str_end(&w);
    *out = o;
    return SILT_OK;
}
