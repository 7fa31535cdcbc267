/*
 * partition.c - partition values: parsing, comparing, constant columns.
 *
 * PROTOCOL: Partition Value Serialization. Invariants: a null or empty
 * string is a null of any type; a decimal keeps its unscaled value exactly
 * (no floating point); a value with more fraction digits than the scale is
 * refused unless the extra digits are zeros.
 */
#include "delta/partition.h"

#include <math.h>
#include <string.h>

#include "util/buf.h"
#include "util/time.h"

static silt_status bad_value(const char *text, const char *column, const col_type *type,
                             silt_error *err)
{
    return err_set(err, SILT_CORRUPT, "partition value \"%s\" of column \"%s\" is not a valid %s",
                   text, column ? column : "?", col_type_id_name(type->id));
}

static int parse_decimal(const char *text, int32_t precision, int32_t scale, col_int128 *out)
{
    size_t len = strlen(text), pos = 0;
    int negative = 0, frac_digits = 0, seen_point = 0, n_digits = 0;
    col_int128 value = 0, limit = 1;
    int32_t idx;
    /* limit = 10^precision; every step below checks value < limit before it grows. */
    for (idx = 0; idx < precision; idx++)
        limit *= 10;
    if (pos < len && (text[pos] == '-' || text[pos] == '+'))
        negative = text[pos++] == '-';
    for (; pos < len; pos++) {
        char c = text[pos];
        if (c == '.' && !seen_point) {
            seen_point = 1;
            continue;
        }
        if (c < '0' || c > '9')
            return 0;
        n_digits++;
        if (seen_point && frac_digits >= scale) {
            if (c != '0')
                return 0; /* would need rounding: not a value of this decimal type */
            continue;
        }
        if (value > (limit - 1 - (c - '0')) / 10)
            return 0; /* value * 10 + digit would reach 10^precision */
        value = value * 10 + (c - '0');
        if (seen_point)
            frac_digits++;
    }
    if (n_digits == 0)
        return 0;
    for (; frac_digits < scale; frac_digits++) {
        if (value > (limit - 1) / 10)
            return 0;
        value *= 10;
    }
    *out = negative ? -value : value;
    return 1;
}

static int parse_int_range(const char *text, int64_t lo, int64_t hi, int64_t *out)
{
    int64_t value;
    const char *p = text;
    if (*p == '+')
        p++;
    if (!util_str_to_int64(p, strlen(p), &value) || value < lo || value > hi)
        return 0;
    *out = value;
    return 1;
}

static int parse_float(const char *text, double *out)
{
    if (strcmp(text, "NaN") == 0) {
        *out = NAN;
        return 1;
    }
    if (strcmp(text, "Infinity") == 0 || strcmp(text, "+Infinity") == 0) {
        *out = INFINITY;
        return 1;
    }
    if (strcmp(text, "-Infinity") == 0) {
        *out = -INFINITY;
        return 1;
    }
    return util_str_to_double(text, strlen(text), out);
}

silt_status delta_value_parse(delta_value *out, const col_type *type, const char *text,
                              const char *column, silt_error *err)
{
    int ok = 1;
    memset(out, 0, sizeof(*out));
    out->type = type->id;
    out->scale = type->scale;
    /* PROTOCOL: an empty string for any type is a null partition value. */
    if (text == NULL || text[0] == '\0') {
        out->is_null = 1;
        return SILT_OK;
    }
    switch (type->id) {
    case COL_BOOLEAN:
        if (util_str_casecmp(text, "true") == 0)
            out->v.i = 1;
        else if (util_str_casecmp(text, "false") == 0)
            out->v.i = 0;
        else
            ok = 0;
        break;
    case COL_BYTE: ok = parse_int_range(text, INT8_MIN, INT8_MAX, &out->v.i); break;
    case COL_SHORT: ok = parse_int_range(text, INT16_MIN, INT16_MAX, &out->v.i); break;
    case COL_INT: ok = parse_int_range(text, INT32_MIN, INT32_MAX, &out->v.i); break;
    case COL_LONG: ok = parse_int_range(text, INT64_MIN, INT64_MAX, &out->v.i); break;
    case COL_FLOAT:
    case COL_DOUBLE: ok = parse_float(text, &out->v.d); break;
    case COL_DECIMAL: ok = parse_decimal(text, type->precision, type->scale, &out->v.dec); break;
    case COL_STRING:
    case COL_BINARY:
        out->v.s.ptr = text;
        out->v.s.len = strlen(text);
        break;
    case COL_DATE: {
        int32_t days;
        ok = time_parse_date(text, strlen(text), &days);
        out->v.i = days;
        break;
    }
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        /* Without an offset the text is read as UTC (silt's session zone); NTZ keeps wall time. */
        ok = time_parse_timestamp(text, strlen(text), &out->v.i, NULL);
        break;
    default:
        return err_set(err, SILT_UNSUPPORTED, "column \"%s\" of type %s cannot be a partition "
                       "column", column ? column : "?", col_type_id_name(type->id));
    }
    return ok ? SILT_OK : bad_value(text, column, type, err);
}

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int cmp_double(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b); /* NaN is the largest value, equal to itself */
    return (a > b) - (a < b);
}

/* a * 10^k compared with b, without overflow: compare a with b / 10^k, then the remainder. */
static int cmp_scaled(col_int128 a, int32_t k, col_int128 b)
{
    col_int128 quotient = b, remainder = 0, pow10 = 1;
    int32_t idx;
    for (idx = 0; idx < k && idx < 38; idx++)
        pow10 *= 10;
    quotient = b / pow10;
    remainder = b % pow10; /* same sign as b */
    if (a != quotient)
        return (a > quotient) - (a < quotient);
    return (remainder < 0) - (remainder > 0);
}

static int cmp_decimal(col_int128 a, int32_t a_scale, col_int128 b, int32_t b_scale)
{
    if (a_scale < b_scale)
        return cmp_scaled(a, b_scale - a_scale, b);
    if (b_scale < a_scale)
        return -cmp_scaled(b, a_scale - b_scale, a);
    return (a > b) - (a < b);
}

silt_status delta_value_compare(const delta_value *a, const delta_value *b, int *cmp_out,
                                silt_error *err)
{
    if (a->type != b->type)
        return err_set(err, SILT_INVALID, "cannot compare a %s with a %s",
                       col_type_id_name(a->type), col_type_id_name(b->type));
    switch (a->type) {
    case COL_FLOAT:
    case COL_DOUBLE: *cmp_out = cmp_double(a->v.d, b->v.d); break;
    case COL_DECIMAL: *cmp_out = cmp_decimal(a->v.dec, a->scale, b->v.dec, b->scale); break;
    case COL_STRING:
    case COL_BINARY: {
        size_t n = a->v.s.len < b->v.s.len ? a->v.s.len : b->v.s.len;
        int c = n ? memcmp(a->v.s.ptr, b->v.s.ptr, n) : 0;
        *cmp_out = c != 0 ? (c > 0) - (c < 0) : cmp_i64((int64_t)a->v.s.len, (int64_t)b->v.s.len);
        break;
    }
    default: *cmp_out = cmp_i64(a->v.i, b->v.i); break;
    }
    return SILT_OK;
}

static silt_status fill_string(col_vec *v, arena *a, const col_type *type, const delta_value *value,
                               silt_error *err)
{
    col_vec *dict = NULL;
    SILT_RETURN_IF_ERROR(col_vec_new(&dict, a, type, 1, 0, err));
    SILT_RETURN_IF_ERROR(col_vec_alloc_data(dict, a, (int64_t)value->v.s.len, err));
    if (value->v.s.len > 0)
        memcpy(dict->data, value->v.s.ptr, value->v.s.len);
    dict->offsets[0] = 0;
    dict->offsets[1] = (int32_t)value->v.s.len;
    /* All rows point at entry 0: values is zero-filled int32 indices. */
    v->dictionary = dict;
    return SILT_OK;
}

silt_status delta_value_fill(col_vec **out, arena *a, const col_type *type,
                             const delta_value *value, int64_t n_rows, silt_error *err)
{
    col_vec *v = NULL;
    int64_t row;
    if (value->is_null)
        return col_vec_new_nulls(out, a, type, n_rows, err);
    if (type->id == COL_STRING || type->id == COL_BINARY) {
        if (value->v.s.len > INT32_MAX)
            return err_set(err, SILT_INVALID, "partition value is too long");
        /* The int32 index buffer of a dictionary vector, zero-filled: every row is entry 0. */
        SILT_RETURN_IF_ERROR(col_vec_new(&v, a, col_type_primitive(COL_INT), n_rows, 0, err));
        v->type = type;
        SILT_RETURN_IF_ERROR(fill_string(v, a, type, value, err));
        *out = v;
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(col_vec_new(&v, a, type, n_rows, 0, err));
    for (row = 0; row < n_rows; row++) {
        switch (type->id) {
        case COL_BOOLEAN: ((uint8_t *)v->values)[row] = (uint8_t)value->v.i; break;
        case COL_BYTE: ((int8_t *)v->values)[row] = (int8_t)value->v.i; break;
        case COL_SHORT: ((int16_t *)v->values)[row] = (int16_t)value->v.i; break;
        case COL_INT:
        case COL_DATE: ((int32_t *)v->values)[row] = (int32_t)value->v.i; break;
        case COL_LONG:
        case COL_TIMESTAMP:
        case COL_TIMESTAMP_NTZ: ((int64_t *)v->values)[row] = value->v.i; break;
        case COL_FLOAT: ((float *)v->values)[row] = (float)value->v.d; break;
        case COL_DOUBLE: ((double *)v->values)[row] = value->v.d; break;
        case COL_DECIMAL: memcpy((char *)v->values + row * 16, &value->v.dec, 16); break;
        default:
            return err_set(err, SILT_UNSUPPORTED, "cannot make a constant column of type %s",
                           col_type_id_name(type->id));
        }
    }
    *out = v;
    return SILT_OK;
}
