/*
 * text_csv.c - rows as CSV, the way Spark's df.write.option("header",
 * true).csv() writes them, with RFC 4180 quoting.
 *
 * Checked against pyspark 4 (session time zone UTC):
 *   1,9223372036854775807,1.0,0.1,1.50,hello,2021-09-08,2021-09-08T11:11:11.000Z,true
 * Spark's defaults followed: nulls are empty fields, an empty string is
 * written "" (emptyValue), numbers as Java prints them, dates yyyy-MM-dd,
 * timestamps with the default timestampFormat yyyy-MM-dd'T'HH:mm:ss.SSSXXX
 * (milliseconds, "Z" in UTC) and timestamp_ntz yyyy-MM-dd'T'HH:mm:ss.SSS.
 * Where silt departs from Spark, on purpose:
 *   - quoting is RFC 4180: a field with ',', '"', CR or LF is quoted and its
 *     quotes doubled ("q""q"); Spark escapes with a backslash ("q\"q"),
 *     which RFC readers (DuckDB, Python's csv) do not undo by default;
 *   - leading and trailing spaces are kept (Spark trims them when writing);
 *   - decimals are plain ("0.000000000000000000"); Spark writes Java's
 *     BigDecimal.toString ("0E-18");
 *   - binary, which Spark refuses in CSV, is lowercase hex; nested values,
 *     also refused by Spark, are their canonical JSON.
 */
#include "formats/text.h"

#include <string.h>


silt_status text_append_plain(buf *out, const col_vec *v, int64_t row, int *done,
                              silt_error *err)
{
    char text[TEXT_NUM_MAX];
    size_t len;
    int32_t str_len;
    const char *str;
    SILT_RETURN_IF_ERROR(text_append_integral(out, v, row, done, err));
    if (*done)
        return SILT_OK;
    *done = 1;
    switch (v->type->id) {
    case COL_FLOAT:
        len = text_format_float_java(((const float *)v->values)[row], text);
        return buf_append(out, text, len, err);
    case COL_DOUBLE:
        len = text_format_double_java(((const double *)v->values)[row], text);
        return buf_append(out, text, len, err);
    case COL_DECIMAL:
        len = text_format_decimal(((const col_int128 *)v->values)[row], v->type->scale, text);
        return buf_append(out, text, len, err);
    case COL_STRING:
        str = col_vec_str(v, row, &str_len);
        return buf_append(out, str, (size_t)str_len, err);
    default:
        *done = 0;
        return SILT_OK;
    }
}

/* The unquoted text of a non-null value. */
static silt_status csv_text(buf *out, const col_vec *v, int64_t row, const time_zone *zone,
                            silt_error *err)
{
    char text[TEXT_NUM_MAX];
    size_t len;
    int32_t str_len;
    const char *str;
    int done;
    SILT_RETURN_IF_ERROR(text_append_plain(out, v, row, &done, err));
    if (done)
        return SILT_OK;
    switch (v->type->id) {
    case COL_BINARY:
        str = col_vec_str(v, row, &str_len);
        return text_append_hex(out, str, (size_t)str_len, err);
    case COL_DATE:
        len = text_format_date_spark(((const int32_t *)v->values)[row], text);
        return buf_append(out, text, len, err);
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        len = v->type->id == COL_TIMESTAMP
                  ? text_format_instant_spark(((const int64_t *)v->values)[row], zone, text)
                  : text_format_timestamp_spark(((const int64_t *)v->values)[row], 'T', 3, 0, text);
        return buf_append(out, text, len, err);
    default:
        return text_json_value(out, v, row, err);
    }
}

/*
 * Quotes the field that starts at `start` in out when it needs it (RFC
 * 4180), in place: the text is shifted right from its end, doubling quotes.
 */
static silt_status csv_quote_from(buf *out, size_t start, int force, silt_error *err)
{
    size_t pos, quotes = 0, src, dst;
    int needs = force;
    for (pos = start; pos < out->len; pos++) {
        char c = out->data[pos];
        if (c == '"')
            quotes++;
        if (c == '"' || c == ',' || c == '\n' || c == '\r')
            needs = 1;
    }
    if (!needs)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(buf_reserve(out, quotes + 2, err));
    src = out->len;
    dst = out->len + quotes + 2;
    out->data[dst] = '\0';
    out->data[--dst] = '"';
    while (src > start) {
        char c = out->data[--src];
        out->data[--dst] = c;
        if (c == '"')
            out->data[--dst] = '"';
    }
    out->data[--dst] = '"';
    out->len += quotes + 2;
    return SILT_OK;
}

static silt_status csv_field(buf *out, const col_vec *v, int64_t row, const time_zone *zone,
                             silt_error *err)
{
    size_t start = out->len;
    if (v->type->id == COL_NULL || col_vec_is_null(v, row))
        return SILT_OK;
    SILT_RETURN_IF_ERROR(csv_text(out, v, row, zone, err));
    /* An empty string is "" so that it stays distinct from a null. */
    return csv_quote_from(out, start, out->len == start, err);
}

silt_status text_csv_write_header(buf *out, const col_type *schema, silt_error *err)
{
    size_t col;
    for (col = 0; col < schema->n_fields; col++) {
        size_t start;
        if (col > 0)
            SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
        start = out->len;
        SILT_RETURN_IF_ERROR(buf_append_str(out, schema->fields[col].name, err));
        SILT_RETURN_IF_ERROR(csv_quote_from(out, start, 0, err));
    }
    return buf_append_char(out, '\n', err);
}

silt_status text_csv_write_batch(buf *out, const col_batch *batch, silt_error *err)
{
    return text_csv_write_batch_in(out, batch, NULL, err);
}

silt_status text_csv_write_batch_in(buf *out, const col_batch *batch, const time_zone *zone,
                                    silt_error *err)
{
    int64_t row;
    size_t col;
    for (row = 0; row < batch->n_rows; row++) {
        for (col = 0; col < batch->n_cols; col++) {
            if (col > 0)
                SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
            SILT_RETURN_IF_ERROR(csv_field(out, batch->cols[col], row, zone, err));
        }
        SILT_RETURN_IF_ERROR(buf_append_char(out, '\n', err));
    }
    return SILT_OK;
}
