/*
 * write_partition.c - partition values as text: partitionValues in the log
 * and Hive-style folder names.
 *
 * PROTOCOL: Partition Value Serialization gives the log's text forms; the
 * folder names are Spark's (ExternalCatalogUtils.escapePathName), because
 * other engines list and parse them the same way.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "delta/write_int.h"
#include "util/time.h"

silt_status dwrite_check_partition_type(const col_field *field, silt_error *err)
{
    col_type_id id = field->type->id;
    if (col_type_is_nested(id) || id == COL_BINARY || id == COL_NULL)
        return err_set(err, SILT_UNSUPPORTED,
                       "cannot partition by column \"%s\": a %s column cannot be a partition "
                       "column",
                       field->name, col_type_id_name(id));
    return SILT_OK;
}

static int must_escape(unsigned char c)
{
    /* Spark's charToEscape: control characters, DEL and "#%'*\/:=?\{[]^ */
    return c < 0x20 || c == 0x7F || (c != 0 && strchr("\"#%'*/:=?\\{[]^", c) != NULL);
}

silt_status dwrite_escape_path(const char *s, size_t len, buf *out, silt_error *err)
{
    size_t idx = 0, run;
    while (idx < len) {
        /* Characters that need no escape are copied a run at a time. */
        for (run = idx; run < len && !must_escape((unsigned char)s[run]); run++)
            ;
        if (run > idx)
            SILT_RETURN_IF_ERROR(buf_append(out, s + idx, run - idx, err));
        if (run < len)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "%%%02X", (unsigned char)s[run]));
        idx = run + 1;
    }
    return SILT_OK;
}

/* Java's Double.toString keeps ".0" on whole numbers; the shortest text that reads back. */
static silt_status format_double(double value, int is_float, buf *out, silt_error *err)
{
    char text[64];
    int digits;
    if (isnan(value))
        return buf_append_str(out, "NaN", err);
    if (isinf(value))
        return buf_append_str(out, value > 0 ? "Infinity" : "-Infinity", err);
    for (digits = is_float ? 6 : 15; digits <= 17; digits++) {
        double back;
        snprintf(text, sizeof(text), "%.*g", digits, value);
        if (!util_str_to_double(text, strlen(text), &back))
            continue;
        if (is_float ? (float)back == (float)value : back == value)
            break;
    }
    if (strpbrk(text, ".eEn") == NULL && strlen(text) + 2 < sizeof(text)) {
        size_t len = strlen(text);
        memcpy(text + len, ".0", 3);
    }
    return buf_append_str(out, text, err);
}

static silt_status format_decimal(col_int128 unscaled, int32_t scale, buf *out, silt_error *err)
{
    char digits[64];
    int n_digits = 0, negative = unscaled < 0, idx;
    unsigned __int128 mag = negative ? (unsigned __int128)(-(unscaled + 1)) + 1
                                     : (unsigned __int128)unscaled;
    do {
        digits[n_digits++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag != 0 && n_digits < 60);
    while (n_digits <= scale)
        digits[n_digits++] = '0';
    if (negative)
        SILT_RETURN_IF_ERROR(buf_append_char(out, '-', err));
    for (idx = n_digits - 1; idx >= 0; idx--) {
        SILT_RETURN_IF_ERROR(buf_append_char(out, digits[idx], err));
        if (idx == scale && scale > 0)
            SILT_RETURN_IF_ERROR(buf_append_char(out, '.', err));
    }
    return SILT_OK;
}

static silt_status format_time(const col_vec *v, int64_t row, buf *out, silt_error *err)
{
    char text[64];
    if (v->type->id == COL_DATE)
        time_format_date(((const int32_t *)v->values)[row], text, sizeof(text));
    else /* Delta's "2021-09-08 11:11:11[.ffffff]", UTC */
        time_format_timestamp_spark(((const int64_t *)v->values)[row], text, sizeof(text));
    return buf_append_str(out, text, err);
}

static int64_t int_at(const col_vec *v, int64_t row)
{
    switch (v->type->id) {
    case COL_BOOLEAN:
    case COL_BYTE: return ((const int8_t *)v->values)[row];
    case COL_SHORT: return ((const int16_t *)v->values)[row];
    case COL_INT: return ((const int32_t *)v->values)[row];
    default: return ((const int64_t *)v->values)[row];
    }
}

silt_status dwrite_partition_text(const col_vec *v, int64_t row, buf *out, int *is_null_out,
                                  silt_error *err)
{
    int32_t len;
    const char *bytes;
    *is_null_out = col_vec_is_null(v, row);
    if (*is_null_out)
        return SILT_OK;
    switch (v->type->id) {
    case COL_BOOLEAN: return buf_append_str(out, int_at(v, row) ? "true" : "false", err);
    case COL_BYTE:
    case COL_SHORT:
    case COL_INT:
    case COL_LONG: return buf_printf(out, err, "%lld", (long long)int_at(v, row));
    case COL_FLOAT: return format_double(((const float *)v->values)[row], 1, out, err);
    case COL_DOUBLE: return format_double(((const double *)v->values)[row], 0, out, err);
    case COL_DECIMAL:
        return format_decimal(((const col_int128 *)v->values)[row], v->type->scale, out, err);
    case COL_DATE:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: return format_time(v, row, out, err);
    case COL_STRING:
        bytes = col_vec_str(v, row, &len);
        *is_null_out = len == 0; /* Spark writes an empty string partition as null */
        return buf_append(out, bytes, (size_t)len, err);
    default:
        return err_set(err, SILT_UNSUPPORTED, "cannot write a %s value as a partition value",
                       col_type_id_name(v->type->id));
    }
}
