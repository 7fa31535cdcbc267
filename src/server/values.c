/*
 * values.c - Arrow result columns as PostgreSQL values (values.h).
 *
 * FORMATS: PostgreSQL's output functions (boolout, int8out, float8out with
 * extra_float_digits = 1, numeric_out, byteaout in hex, date_out and
 * timestamp(tz)_out in ISO style) for text; their send functions for
 * binary (big-endian integers and IEEE floats, numeric as base-10000
 * digits, dates as days and timestamps as microseconds since 2000-01-01).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/values.h"
#include "util/time.h"

/* Days and microseconds from 1970-01-01 (Arrow) to 2000-01-01 (PostgreSQL). */
#define PG_EPOCH_DAYS 10957
#define PG_EPOCH_MICROS (INT64_C(10957) * TIME_MICROS_PER_DAY)

silt_status srv_kind_of_format(const char *f, srv_kind *out, int *precision, int *scale,
                               silt_error *err)
{
    static const struct {
        const char *format;
        srv_kind kind;
    } simple[] = {
        {"n", SRV_K_NULL},      {"b", SRV_K_BOOL},           {"c", SRV_K_INT8},
        {"s", SRV_K_INT16},     {"i", SRV_K_INT32},          {"l", SRV_K_INT64},
        {"f", SRV_K_FLOAT},     {"g", SRV_K_DOUBLE},         {"u", SRV_K_STRING},
        {"z", SRV_K_BINARY},    {"tdD", SRV_K_DATE},         {"tsu:UTC", SRV_K_TIMESTAMP},
        {"tsu:", SRV_K_TIMESTAMP_NTZ}, {"+s", SRV_K_STRUCT}, {"+l", SRV_K_LIST},
        {"+m", SRV_K_MAP},
    };
    *precision = *scale = 0;
    for (size_t idx = 0; idx < sizeof(simple) / sizeof(simple[0]); idx++)
        if (strcmp(f, simple[idx].format) == 0) {
            *out = simple[idx].kind;
            return SILT_OK;
        }
    if (sscanf(f, "d:%d,%d", precision, scale) == 2) {
        *out = SRV_K_DECIMAL;
        return SILT_OK;
    }
    return err_set(err, SILT_UNSUPPORTED, "result column of Arrow format \"%s\" has no "
                   "PostgreSQL type in silt serve", f);
}

silt_status srv_column_from_schema(const struct ArrowSchema *field, srv_column *col,
                                   silt_error *err)
{
    static const struct {
        uint32_t oid;
        int16_t len;
    } pg[] = {
        [SRV_K_NULL] = {SRV_OID_TEXT, -1},      [SRV_K_BOOL] = {SRV_OID_BOOL, 1},
        [SRV_K_INT8] = {SRV_OID_INT2, 2},       [SRV_K_INT16] = {SRV_OID_INT2, 2},
        [SRV_K_INT32] = {SRV_OID_INT4, 4},      [SRV_K_INT64] = {SRV_OID_INT8, 8},
        [SRV_K_FLOAT] = {SRV_OID_FLOAT4, 4},    [SRV_K_DOUBLE] = {SRV_OID_FLOAT8, 8},
        [SRV_K_DECIMAL] = {SRV_OID_NUMERIC, -1}, [SRV_K_STRING] = {SRV_OID_TEXT, -1},
        [SRV_K_BINARY] = {SRV_OID_BYTEA, -1},   [SRV_K_DATE] = {SRV_OID_DATE, 4},
        [SRV_K_TIMESTAMP] = {SRV_OID_TIMESTAMPTZ, 8}, [SRV_K_TIMESTAMP_NTZ] = {SRV_OID_TIMESTAMP, 8},
        [SRV_K_STRUCT] = {SRV_OID_JSON, -1},    [SRV_K_LIST] = {SRV_OID_JSON, -1},
        [SRV_K_MAP] = {SRV_OID_JSON, -1},
    };
    memset(col, 0, sizeof(*col));
    col->name = field->name != NULL ? field->name : "";
    SILT_RETURN_IF_ERROR(srv_kind_of_format(field->format, &col->kind, &col->precision,
                                            &col->scale, err));
    col->oid = pg[col->kind].oid;
    col->typlen = pg[col->kind].len;
    col->typmod = col->kind == SRV_K_DECIMAL ? ((col->precision << 16) | col->scale) + 4 : -1;
    return SILT_OK;
}

/* ------------------------------------------------------------------ access */

static int is_null(const struct ArrowArray *a, int64_t row)
{
    const uint8_t *valid = a->n_buffers > 0 ? a->buffers[0] : NULL;
    int64_t i = a->offset + row;
    if (a->n_buffers == 0) /* the null type has no buffers */
        return 1;
    return valid != NULL && !(valid[i >> 3] & (1u << (i & 7)));
}

#define VALUE_AT(type, a, row) (((const type *)(a)->buffers[1])[(a)->offset + (row)])

static int get_bool(const struct ArrowArray *a, int64_t row)
{
    const uint8_t *bits = a->buffers[1];
    int64_t i = a->offset + row;
    return (bits[i >> 3] >> (i & 7)) & 1;
}

static int64_t get_int(const struct ArrowArray *a, srv_kind kind, int64_t row)
{
    switch (kind) {
    case SRV_K_INT8: return VALUE_AT(int8_t, a, row);
    case SRV_K_INT16: return VALUE_AT(int16_t, a, row);
    case SRV_K_INT32:
    case SRV_K_DATE: return VALUE_AT(int32_t, a, row);
    default: return VALUE_AT(int64_t, a, row);
    }
}

/* Decimal digits of v into out (24 bytes); the length. printf costs 10x this per value. */
static size_t format_int(int64_t v, char *out)
{
    char rev[24];
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    size_t n = 0, k = 0;
    do {
        rev[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        out[k++] = '-';
    while (n > 0)
        out[k++] = rev[--n];
    return k;
}

/* Length (big-endian Int32) and bytes, with one reserve. */
static silt_status put_sized(buf *b, const char *data, size_t len, silt_error *err)
{
    uint8_t *p;
    SILT_RETURN_IF_ERROR(buf_reserve(b, 4 + len, err));
    p = (uint8_t *)b->data + b->len;
    p[0] = (uint8_t)(len >> 24);
    p[1] = (uint8_t)(len >> 16);
    p[2] = (uint8_t)(len >> 8);
    p[3] = (uint8_t)len;
    if (len > 0)
        memcpy(p + 4, data, len);
    b->len += 4 + len;
    b->data[b->len] = '\0';
    return SILT_OK;
}

/* Bytes of a string or binary value. */
static const char *get_bytes(const struct ArrowArray *a, int64_t row, size_t *len)
{
    const int32_t *offsets = a->buffers[1];
    const char *data = a->buffers[2];
    int64_t i = a->offset + row;
    *len = (size_t)(offsets[i + 1] - offsets[i]);
    return data + offsets[i];
}

/* ------------------------------------------------------------------ numbers */

/*
 * The shortest digits that read back as v, as printf's %e gives them:
 * digits (no point) and the decimal exponent of the first digit.
 */
static int shortest_digits(double v, int is_float, char *digits, int *exp_out)
{
    char tmp[40];
    int max = is_float ? 9 : 17;
    for (int prec = 1; prec <= max; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, v);
        if (prec == max || (is_float ? strtof(tmp, NULL) == (float)v : strtod(tmp, NULL) == v))
            break;
    }
    /* tmp is "d.ddde[+-]XX" (or "de[+-]XX") */
    int n = 0;
    const char *p = tmp;
    if (*p == '-')
        p++;
    for (; *p != 'e'; p++)
        if (*p != '.')
            digits[n++] = *p;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    *exp_out = (int)strtol(p + 1, NULL, 10);
    return n;
}

/* float8out/float4out: fixed notation for exponents -4 .. 14 (float4: 5), else d.ddde+XX. */
static size_t format_float(double v, int is_float, char *out, size_t cap)
{
    char digits[24];
    char text[64];
    size_t len = 0;
    int exp, n;
    if (isnan(v))
        return (size_t)snprintf(out, cap, "NaN");
    if (isinf(v))
        return (size_t)snprintf(out, cap, v < 0 ? "-Infinity" : "Infinity");
    if (v == 0)
        return (size_t)snprintf(out, cap, signbit(v) ? "-0" : "0");
    n = shortest_digits(v, is_float, digits, &exp);
    if (v < 0)
        text[len++] = '-';
    if (exp < -4 || exp >= (is_float ? 6 : 15)) {
        text[len++] = digits[0];
        if (n > 1) {
            text[len++] = '.';
            memcpy(text + len, digits + 1, (size_t)n - 1);
            len += (size_t)n - 1;
        }
        len += (size_t)snprintf(text + len, sizeof(text) - len, "e%c%02d", exp < 0 ? '-' : '+',
                                exp < 0 ? -exp : exp);
    } else if (exp < 0) {
        text[len++] = '0';
        text[len++] = '.';
        for (int idx = -1; idx > exp; idx--)
            text[len++] = '0';
        memcpy(text + len, digits, (size_t)n);
        len += (size_t)n;
    } else {
        for (int idx = 0; idx <= exp || idx < n; idx++) {
            if (idx == exp + 1)
                text[len++] = '.';
            text[len++] = idx < n ? digits[idx] : '0';
        }
    }
    text[len] = '\0';
    return (size_t)snprintf(out, cap, "%s", text);
}

size_t srv_format_double(double v, char *out, size_t cap) { return format_float(v, 0, out, cap); }

size_t srv_format_float(float v, char *out, size_t cap) { return format_float(v, 1, out, cap); }

/* The unscaled value of a decimal128 (little-endian two's complement) in decimal digits. */
static size_t decimal_digits(const uint8_t *le, char *out, int *negative)
{
    uint32_t limb[4];
    char rev[48];
    size_t n = 0;
    for (int idx = 0; idx < 4; idx++)
        limb[idx] = (uint32_t)le[idx * 4] | ((uint32_t)le[idx * 4 + 1] << 8) |
                    ((uint32_t)le[idx * 4 + 2] << 16) | ((uint32_t)le[idx * 4 + 3] << 24);
    *negative = (limb[3] >> 31) != 0;
    if (*negative) { /* two's complement negation */
        uint64_t carry = 1;
        for (int idx = 0; idx < 4; idx++) {
            uint64_t s = (uint64_t)(uint32_t)~limb[idx] + carry;
            limb[idx] = (uint32_t)s;
            carry = s >> 32;
        }
    }
    do {
        uint64_t rem = 0;
        for (int idx = 3; idx >= 0; idx--) {
            uint64_t cur = (rem << 32) | limb[idx];
            limb[idx] = (uint32_t)(cur / 10);
            rem = cur % 10;
        }
        rev[n++] = (char)('0' + rem);
    } while (limb[0] | limb[1] | limb[2] | limb[3]);
    for (size_t idx = 0; idx < n; idx++)
        out[idx] = rev[n - 1 - idx];
    out[n] = '\0';
    return n;
}

/* numeric_out: the digits with the point scale places from the right. */
static size_t format_decimal(const uint8_t *le, int scale, char *out)
{
    char digits[48];
    int negative;
    size_t n = decimal_digits(le, digits, &negative), len = 0;
    if (negative)
        out[len++] = '-';
    if ((int)n <= scale) {
        out[len++] = '0';
        out[len++] = '.';
        for (int idx = 0; idx < scale - (int)n; idx++)
            out[len++] = '0';
        memcpy(out + len, digits, n);
        len += n;
    } else {
        memcpy(out + len, digits, n - (size_t)scale);
        len += n - (size_t)scale;
        if (scale > 0) {
            out[len++] = '.';
            memcpy(out + len, digits + n - (size_t)scale, (size_t)scale);
            len += (size_t)scale;
        }
    }
    out[len] = '\0';
    return len;
}

static silt_status put_be(buf *b, uint64_t v, int bytes, silt_error *err)
{
    uint8_t p[8];
    for (int idx = 0; idx < bytes; idx++)
        p[idx] = (uint8_t)(v >> (8 * (bytes - 1 - idx)));
    return buf_append(b, p, (size_t)bytes, err);
}

/* numeric_send: ndigits, weight, sign, dscale, then base-10000 digits. */
static silt_status put_numeric_binary(buf *b, const uint8_t *le, int scale, silt_error *err)
{
    char digits[48], padded[112];
    int negative;
    int n = (int)decimal_digits(le, digits, &negative);
    int int_len = n > scale ? n - scale : 0;
    int int_pad = (4 - int_len % 4) % 4;
    int frac_pad = (4 - scale % 4) % 4;
    int len = 0, first, last, weight;
    int16_t groups[28];
    int n_groups;
    memset(padded, '0', sizeof(padded));
    /* int_pad zeros, the integer digits, the scale fraction digits (left-padded), frac_pad zeros */
    len = int_pad;
    if (int_len > 0)
        memcpy(padded + len, digits, (size_t)int_len);
    len += int_len;
    memcpy(padded + len + (scale - (n - int_len)), digits + int_len, (size_t)(n - int_len));
    len += scale + frac_pad;
    n_groups = len / 4;
    for (int idx = 0; idx < n_groups; idx++)
        groups[idx] = (int16_t)((padded[idx * 4] - '0') * 1000 + (padded[idx * 4 + 1] - '0') * 100 +
                                (padded[idx * 4 + 2] - '0') * 10 + (padded[idx * 4 + 3] - '0'));
    weight = (int_pad + int_len) / 4 - 1;
    for (first = 0; first < n_groups && groups[first] == 0; first++)
        weight--;
    for (last = n_groups; last > first && groups[last - 1] == 0; last--)
        ;
    if (first == last) { /* zero */
        weight = 0;
        negative = 0;
    }
    SILT_RETURN_IF_ERROR(put_be(b, (uint64_t)(uint16_t)(last - first), 2, err));
    SILT_RETURN_IF_ERROR(put_be(b, (uint64_t)(uint16_t)weight, 2, err));
    SILT_RETURN_IF_ERROR(put_be(b, negative ? 0x4000 : 0, 2, err));
    SILT_RETURN_IF_ERROR(put_be(b, (uint64_t)(uint16_t)scale, 2, err));
    for (int idx = first; idx < last; idx++)
        SILT_RETURN_IF_ERROR(put_be(b, (uint64_t)(uint16_t)groups[idx], 2, err));
    return SILT_OK;
}

/* ------------------------------------------------------------------ dates */

/* date_out: YYYY-MM-DD, years before 1 as "YYYY-MM-DD BC" (year 0 is 1 BC). */
static size_t format_date(int64_t days, char *out, size_t cap)
{
    int64_t year;
    unsigned month, day;
    time_civil_from_days(days, &year, &month, &day);
    if (year <= 0)
        return (size_t)snprintf(out, cap, "%04lld-%02u-%02u BC", (long long)(1 - year), month, day);
    return (size_t)snprintf(out, cap, "%04lld-%02u-%02u", (long long)year, month, day);
}

/* timestamp_out: "YYYY-MM-DD HH:MM:SS[.ffffff]" (trailing zeros cut), then "+00" with a zone. */
static size_t format_timestamp(int64_t micros, int with_zone, char *out, size_t cap)
{
    int64_t days = time_floor_div(micros, TIME_MICROS_PER_DAY);
    int64_t of_day = time_floor_mod(micros, TIME_MICROS_PER_DAY);
    int64_t secs = of_day / TIME_MICROS_PER_SECOND, frac = of_day % TIME_MICROS_PER_SECOND;
    int64_t year;
    unsigned month, day;
    char fraction[16] = "";
    int bc;
    time_civil_from_days(days, &year, &month, &day);
    bc = year <= 0;
    if (frac != 0) {
        int width = 6;
        while (frac % 10 == 0) {
            frac /= 10;
            width--;
        }
        snprintf(fraction, sizeof(fraction), ".%0*lld", width, (long long)frac);
    }
    return (size_t)snprintf(out, cap, "%04lld-%02u-%02u %02lld:%02lld:%02lld%s%s%s",
                            (long long)(bc ? 1 - year : year), month, day,
                            (long long)(secs / 3600), (long long)(secs / 60 % 60),
                            (long long)(secs % 60), fraction, with_zone ? "+00" : "",
                            bc ? " BC" : "");
}

/* ------------------------------------------------------------------ JSON */

static silt_status put_json(buf *b, const struct ArrowSchema *s, const struct ArrowArray *a,
                            int64_t row, silt_error *err);

static silt_status put_json_string(buf *b, const char *p, size_t len, silt_error *err)
{
    SILT_RETURN_IF_ERROR(buf_append_char(b, '"', err));
    for (size_t idx = 0; idx < len; idx++) {
        unsigned char c = (unsigned char)p[idx];
        if (c == '"' || c == '\\') {
            SILT_RETURN_IF_ERROR(buf_append_char(b, '\\', err));
            SILT_RETURN_IF_ERROR(buf_append_char(b, (char)c, err));
        } else if (c < 0x20) {
            SILT_RETURN_IF_ERROR(buf_printf(b, err, "\\u%04x", c));
        } else {
            SILT_RETURN_IF_ERROR(buf_append_char(b, (char)c, err));
        }
    }
    return buf_append_char(b, '"', err);
}

/* Text of a scalar value (not NULL) into b; JSON strings quoted when quote. */
static silt_status put_scalar_text(buf *b, srv_kind kind, int scale, const struct ArrowArray *a,
                                   int64_t row, int quote, silt_error *err)
{
    char text[96];
    size_t len;
    const char *bytes;
    switch (kind) {
    case SRV_K_BOOL:
        if (quote)
            return buf_append_str(b, get_bool(a, row) ? "true" : "false", err);
        return buf_append_char(b, get_bool(a, row) ? 't' : 'f', err);
    case SRV_K_INT8:
    case SRV_K_INT16:
    case SRV_K_INT32:
    case SRV_K_INT64:
        len = format_int(get_int(a, kind, row), text);
        return buf_append(b, text, len, err);
    case SRV_K_FLOAT:
    case SRV_K_DOUBLE: {
        double v = kind == SRV_K_FLOAT ? VALUE_AT(float, a, row) : VALUE_AT(double, a, row);
        len = kind == SRV_K_FLOAT ? srv_format_float((float)v, text, sizeof(text))
                                  : srv_format_double(v, text, sizeof(text));
        if (quote && !isfinite(v))
            return put_json_string(b, text, len, err);
        return buf_append(b, text, len, err);
    }
    case SRV_K_DECIMAL:
        len = format_decimal((const uint8_t *)a->buffers[1] + 16 * (a->offset + row), scale, text);
        return buf_append(b, text, len, err);
    case SRV_K_STRING:
        bytes = get_bytes(a, row, &len);
        return quote ? put_json_string(b, bytes, len, err) : buf_append(b, bytes, len, err);
    case SRV_K_BINARY:
        bytes = get_bytes(a, row, &len);
        SILT_RETURN_IF_ERROR(buf_append_str(b, quote ? "\"\\\\x" : "\\x", err));
        for (size_t idx = 0; idx < len; idx++)
            SILT_RETURN_IF_ERROR(buf_printf(b, err, "%02x", (unsigned char)bytes[idx]));
        return quote ? buf_append_char(b, '"', err) : SILT_OK;
    case SRV_K_DATE: len = format_date(get_int(a, kind, row), text, sizeof(text)); break;
    case SRV_K_TIMESTAMP:
    case SRV_K_TIMESTAMP_NTZ:
        len = format_timestamp(VALUE_AT(int64_t, a, row), kind == SRV_K_TIMESTAMP, text,
                               sizeof(text));
        break;
    default: return err_set(err, SILT_INVALID, "not a scalar kind %d", (int)kind);
    }
    return quote ? put_json_string(b, text, len, err) : buf_append(b, text, len, err);
}

static silt_status put_json_list(buf *b, const struct ArrowSchema *s, const struct ArrowArray *a,
                                 int64_t row, silt_error *err)
{
    const int32_t *offsets = a->buffers[1];
    int64_t i = a->offset + row;
    int is_map = s->format[1] == 'm';
    const struct ArrowSchema *cs = s->children[0];
    const struct ArrowArray *ca = a->children[0];
    SILT_RETURN_IF_ERROR(buf_append_char(b, is_map ? '{' : '[', err));
    for (int64_t e = offsets[i]; e < offsets[i + 1]; e++) {
        if (e > offsets[i])
            SILT_RETURN_IF_ERROR(buf_append_char(b, ',', err));
        if (is_map) {
            /* keys are written as JSON strings, as Spark's to_json does */
            buf key = BUF_INIT;
            silt_status rc = put_json(&key, cs->children[0], ca->children[0], ca->offset + e, err);
            if (rc == SILT_OK)
                rc = key.len > 0 && key.data[0] == '"'
                         ? buf_append(b, key.data, key.len, err)
                         : put_json_string(b, key.data, key.len, err);
            buf_clear(&key);
            SILT_RETURN_IF_ERROR(rc);
            SILT_RETURN_IF_ERROR(buf_append_char(b, ':', err));
            SILT_RETURN_IF_ERROR(put_json(b, cs->children[1], ca->children[1], ca->offset + e,
                                          err));
        } else {
            SILT_RETURN_IF_ERROR(put_json(b, cs, ca, e, err));
        }
    }
    return buf_append_char(b, is_map ? '}' : ']', err);
}

/* A value as JSON (Spark's to_json: null struct fields left out). */
static silt_status put_json(buf *b, const struct ArrowSchema *s, const struct ArrowArray *a,
                            int64_t row, silt_error *err)
{
    srv_kind kind = SRV_K_NULL;
    int precision, scale;
    SILT_RETURN_IF_ERROR(srv_kind_of_format(s->format, &kind, &precision, &scale, err));
    if (is_null(a, row))
        return buf_append_str(b, "null", err);
    if (kind == SRV_K_LIST || kind == SRV_K_MAP)
        return put_json_list(b, s, a, row, err);
    if (kind == SRV_K_STRUCT) {
        int first = 1;
        SILT_RETURN_IF_ERROR(buf_append_char(b, '{', err));
        for (int64_t c = 0; c < s->n_children; c++) {
            int64_t child_row = a->offset + row;
            if (is_null(a->children[c], child_row))
                continue;
            if (!first)
                SILT_RETURN_IF_ERROR(buf_append_char(b, ',', err));
            first = 0;
            SILT_RETURN_IF_ERROR(put_json_string(b, s->children[c]->name,
                                                 strlen(s->children[c]->name), err));
            SILT_RETURN_IF_ERROR(buf_append_char(b, ':', err));
            SILT_RETURN_IF_ERROR(put_json(b, s->children[c], a->children[c], child_row, err));
        }
        return buf_append_char(b, '}', err);
    }
    return put_scalar_text(b, kind, scale, a, row, 1, err);
}

/* ------------------------------------------------------------------ fields */

static silt_status put_binary(buf *b, const srv_column *col, const struct ArrowArray *a,
                              int64_t row, silt_error *err)
{
    size_t len;
    const char *bytes;
    switch (col->kind) {
    case SRV_K_BOOL: return buf_append_char(b, (char)get_bool(a, row), err);
    case SRV_K_INT8:
    case SRV_K_INT16: return put_be(b, (uint64_t)get_int(a, col->kind, row), 2, err);
    case SRV_K_INT32: return put_be(b, (uint64_t)get_int(a, col->kind, row), 4, err);
    case SRV_K_INT64: return put_be(b, (uint64_t)get_int(a, col->kind, row), 8, err);
    case SRV_K_FLOAT: {
        uint32_t u;
        float v = VALUE_AT(float, a, row);
        memcpy(&u, &v, 4);
        return put_be(b, u, 4, err);
    }
    case SRV_K_DOUBLE: {
        uint64_t u;
        double v = VALUE_AT(double, a, row);
        memcpy(&u, &v, 8);
        return put_be(b, u, 8, err);
    }
    case SRV_K_DECIMAL:
        return put_numeric_binary(b, (const uint8_t *)a->buffers[1] + 16 * (a->offset + row),
                                  col->scale, err);
    case SRV_K_STRING:
    case SRV_K_BINARY:
        bytes = get_bytes(a, row, &len);
        return buf_append(b, bytes, len, err);
    case SRV_K_DATE:
        return put_be(b, (uint64_t)(get_int(a, col->kind, row) - PG_EPOCH_DAYS), 4, err);
    case SRV_K_TIMESTAMP:
    case SRV_K_TIMESTAMP_NTZ:
        return put_be(b, (uint64_t)(VALUE_AT(int64_t, a, row) - PG_EPOCH_MICROS), 8, err);
    default: return SILT_OK; /* json: the text is the binary form too; written by the caller */
    }
}

silt_status srv_put_field(buf *b, const srv_column *col, const struct ArrowSchema *schema,
                          const struct ArrowArray *array, int64_t row, int format,
                          silt_error *err)
{
    size_t start = b->len;
    uint8_t *p;
    uint32_t n;
    if (col->kind == SRV_K_NULL || is_null(array, row))
        return put_be(b, 0xffffffffu, 4, err);
    /* the common text cases straight into the buffer (the streaming path, docs/server.md) */
    if (format == 0) {
        char text[24];
        size_t len;
        const char *bytes;
        switch (col->kind) {
        case SRV_K_INT8: case SRV_K_INT16: case SRV_K_INT32: case SRV_K_INT64:
            len = format_int(get_int(array, col->kind, row), text);
            return put_sized(b, text, len, err);
        case SRV_K_STRING:
            bytes = get_bytes(array, row, &len);
            return put_sized(b, bytes, len, err);
        default:
            break;
        }
    }
    SILT_RETURN_IF_ERROR(put_be(b, 0, 4, err));
    if (col->kind == SRV_K_STRUCT || col->kind == SRV_K_LIST || col->kind == SRV_K_MAP)
        SILT_RETURN_IF_ERROR(put_json(b, schema, array, row, err));
    else if (format == 1)
        SILT_RETURN_IF_ERROR(put_binary(b, col, array, row, err));
    else
        SILT_RETURN_IF_ERROR(put_scalar_text(b, col->kind, col->scale, array, row, 0, err));
    n = (uint32_t)(b->len - start - 4);
    p = (uint8_t *)b->data + start;
    p[0] = (uint8_t)(n >> 24);
    p[1] = (uint8_t)(n >> 16);
    p[2] = (uint8_t)(n >> 8);
    p[3] = (uint8_t)n;
    return SILT_OK;
}
