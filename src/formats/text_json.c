/*
 * text_json.c - values as canonical JSON (the conformance corpus's row
 * format, /work/shared/conformance/README.md "Canonical row format") and as
 * JSON lines.
 *
 * The canonical form is made for byte comparison: no whitespace, integers
 * with all digits, floats with the shortest round-trip digits in the
 * JavaScript layout, decimals and temporal values as strings, maps as
 * arrays of [key, value] pairs sorted by the bytes of the serialized key.
 */
#include "formats/text.h"

#include <string.h>

#include "util/mem.h"
#include "util/time.h"

static const char hex_lower[] = "0123456789abcdef";

/*
 * A JSON string of raw bytes: only '"', '\\' and control characters are
 * escaped, other controls as \u00XX in the given hex digits (the canonical
 * form and Spark's writer differ only in their case).
 */
static silt_status json_escaped(buf *out, const char *s, size_t len, const char *hex_digits,
                                silt_error *err)
{
    size_t pos, run = 0;
    SILT_RETURN_IF_ERROR(buf_reserve(out, len + 2, err));
    out->data[out->len++] = '"';
    for (pos = 0; pos < len; pos++) {
        unsigned char c = (unsigned char)s[pos];
        char esc[8];
        size_t esc_len = 2;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        SILT_RETURN_IF_ERROR(buf_append(out, s + run, pos - run, err));
        run = pos + 1;
        esc[0] = '\\';
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex_digits[c >> 4];
            esc[5] = hex_digits[c & 15];
            esc_len = 6;
        }
        SILT_RETURN_IF_ERROR(buf_append(out, esc, esc_len, err));
    }
    SILT_RETURN_IF_ERROR(buf_append(out, s + run, len - run, err));
    return buf_append_char(out, '"', err);
}

/* README: everything but '"', '\\' and controls, '/' and non-ASCII included, is raw. */
silt_status text_json_string(buf *out, const char *s, size_t len, silt_error *err)
{
    return json_escaped(out, s, len, hex_lower, err);
}

static silt_status json_hex(buf *out, const char *s, size_t len, silt_error *err)
{
    SILT_RETURN_IF_ERROR(buf_reserve(out, len * 2 + 2, err));
    SILT_RETURN_IF_ERROR(buf_append_char(out, '"', err));
    SILT_RETURN_IF_ERROR(text_append_hex(out, s, len, err));
    return buf_append_char(out, '"', err);
}

/* A number text, quoted when it is NaN or an infinity. */
static silt_status json_number(buf *out, const char *text, size_t len, silt_error *err)
{
    if (text[0] == 'N' || text[0] == 'I' || (text[0] == '-' && text[1] == 'I')) {
        SILT_RETURN_IF_ERROR(buf_append_char(out, '"', err));
        SILT_RETURN_IF_ERROR(buf_append(out, text, len, err));
        return buf_append_char(out, '"', err);
    }
    return buf_append(out, text, len, err);
}

static silt_status json_quoted(buf *out, const char *text, size_t len, silt_error *err)
{
    SILT_RETURN_IF_ERROR(buf_reserve(out, len + 2, err));
    out->data[out->len++] = '"';
    memcpy(out->data + out->len, text, len);
    out->len += len;
    out->data[out->len++] = '"';
    out->data[out->len] = '\0';
    return SILT_OK;
}

static silt_status json_struct(buf *out, const col_vec *v, int64_t row, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_append_char(out, '{', err));
    for (idx = 0; idx < v->n_children; idx++) {
        if (idx > 0)
            SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
        SILT_RETURN_IF_ERROR(text_json_string(out, v->type->fields[idx].name,
                                         strlen(v->type->fields[idx].name), err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, ':', err));
        SILT_RETURN_IF_ERROR(text_json_value(out, v->children[idx], row, err));
    }
    return buf_append_char(out, '}', err);
}

static silt_status json_array(buf *out, const col_vec *v, int64_t row, silt_error *err)
{
    int64_t elem;
    SILT_RETURN_IF_ERROR(buf_append_char(out, '[', err));
    for (elem = v->offsets[row]; elem < v->offsets[row + 1]; elem++) {
        if (elem > v->offsets[row])
            SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
        SILT_RETURN_IF_ERROR(text_json_value(out, v->children[0], elem, err));
    }
    return buf_append_char(out, ']', err);
}

/* One serialized map entry "[key,value]" inside out: where it starts, its key's length. */
typedef struct map_entry {
    size_t start;
    size_t len;
    size_t key_len;
} map_entry;

static int entry_less(const char *base, const map_entry *a, const map_entry *b)
{
    size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int cmp = memcmp(base + a->start + 1, base + b->start + 1, n);
    return cmp < 0 || (cmp == 0 && a->key_len < b->key_len);
}

typedef int (*entry_less_fn)(const char *base, const map_entry *a, const map_entry *b);

/* Stable merge sort of entries (equal keys keep their order); tmp holds n entries. */
static void sort_entries(const char *base, map_entry *items, map_entry *tmp, size_t n,
                         entry_less_fn less)
{
    size_t mid = n / 2, left = 0, right = mid, pos = 0;
    if (n < 2)
        return;
    sort_entries(base, items, tmp, mid, less);
    sort_entries(base, items + mid, tmp, n - mid, less);
    while (left < mid && right < n)
        tmp[pos++] = less(base, &items[right], &items[left]) ? items[right++] : items[left++];
    while (left < mid)
        tmp[pos++] = items[left++];
    while (right < n)
        tmp[pos++] = items[right++];
    memcpy(items, tmp, n * sizeof(*items));
}

/*
 * Maps: the entries are serialized at the end of out, then sorted by key
 * bytes and copied back in order. This is the one place that allocates
 * (the entry table and a copy of the serialized entries).
 */
static silt_status json_map(buf *out, const col_vec *v, int64_t row, silt_error *err)
{
    int64_t first = v->offsets[row], count = v->offsets[row + 1] - first, idx;
    size_t region = out->len, region_len, pos;
    map_entry *entries = NULL;
    char *copy = NULL;
    silt_status rc = SILT_OK;
    if (count <= 0)
        return buf_append_str(out, "[]", err);
    entries = mem_alloc(sizeof(*entries) * (size_t)count * 2);
    if (entries == NULL)
        return err_nomem(err);
    for (idx = 0; idx < count && rc == SILT_OK; idx++) {
        entries[idx].start = out->len;
        rc = buf_append_char(out, '[', err);
        if (rc == SILT_OK)
            rc = text_json_value(out, v->children[0], first + idx, err);
        entries[idx].key_len = out->len - entries[idx].start - 1;
        if (rc == SILT_OK)
            rc = buf_append_char(out, ',', err);
        if (rc == SILT_OK)
            rc = text_json_value(out, v->children[1], first + idx, err);
        if (rc == SILT_OK)
            rc = buf_append_char(out, ']', err);
        entries[idx].len = out->len - entries[idx].start;
    }
    if (rc != SILT_OK)
        goto done;
    region_len = out->len - region;
    copy = mem_alloc(region_len);
    if (copy == NULL) {
        rc = err_nomem(err);
        goto done;
    }
    memcpy(copy, out->data + region, region_len);
    for (idx = 0; idx < count; idx++)
        entries[idx].start -= region;
    sort_entries(copy, entries, entries + count, (size_t)count, entry_less);
    /* The sorted text is longer than the entries by '[' ']' and count - 1 commas. */
    buf_truncate(out, region);
    rc = buf_reserve(out, region_len + (size_t)count + 1, err);
    if (rc != SILT_OK)
        goto done;
    pos = region;
    out->data[pos++] = '[';
    for (idx = 0; idx < count; idx++) {
        if (idx > 0)
            out->data[pos++] = ',';
        memcpy(out->data + pos, copy + entries[idx].start, entries[idx].len);
        pos += entries[idx].len;
    }
    out->data[pos++] = ']';
    out->data[pos] = '\0';
    out->len = pos;
done:
    mem_free(copy);
    mem_free(entries);
    return rc;
}

static silt_status json_scalar(buf *out, const col_vec *v, int64_t row, silt_error *err)
{
    char text[TEXT_NUM_MAX];
    size_t len;
    int32_t str_len;
    const char *str;
    int done;
    SILT_RETURN_IF_ERROR(text_append_integral(out, v, row, &done, err));
    if (done)
        return SILT_OK;
    switch (v->type->id) {
    case COL_FLOAT:
        len = text_format_float_js(((const float *)v->values)[row], text);
        return json_number(out, text, len, err);
    case COL_DOUBLE:
        len = text_format_double_js(((const double *)v->values)[row], text);
        return json_number(out, text, len, err);
    case COL_DECIMAL:
        len = text_format_decimal(((const col_int128 *)v->values)[row], v->type->scale, text);
        return json_quoted(out, text, len, err);
    case COL_STRING:
        str = col_vec_str(v, row, &str_len);
        return text_json_string(out, str, (size_t)str_len, err);
    case COL_BINARY:
        str = col_vec_str(v, row, &str_len);
        return json_hex(out, str, (size_t)str_len, err);
    case COL_DATE:
        len = time_format_date(((const int32_t *)v->values)[row], text, sizeof(text));
        return json_quoted(out, text, len, err);
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        len = time_format_timestamp(((const int64_t *)v->values)[row], 'T', 6,
                                    v->type->id == COL_TIMESTAMP, text, sizeof(text));
        return json_quoted(out, text, len, err);
    default:
        return buf_append_str(out, "null", err);
    }
}

silt_status text_json_value(buf *out, const col_vec *v, int64_t row, silt_error *err)
{
    if (v->type->id == COL_NULL || col_vec_is_null(v, row))
        return buf_append_str(out, "null", err);
    switch (v->type->id) {
    case COL_STRUCT: return json_struct(out, v, row, err);
    case COL_ARRAY: return json_array(out, v, row, err);
    case COL_MAP: return json_map(out, v, row, err);
    default: return json_scalar(out, v, row, err);
    }
}

silt_status text_json_row(buf *out, const col_batch *batch, int64_t row, silt_error *err)
{
    size_t col;
    SILT_RETURN_IF_ERROR(buf_append_char(out, '{', err));
    for (col = 0; col < batch->n_cols; col++) {
        const char *name = batch->schema->fields[col].name;
        if (col > 0)
            SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
        SILT_RETURN_IF_ERROR(text_json_string(out, name, strlen(name), err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, ':', err));
        SILT_RETURN_IF_ERROR(text_json_value(out, batch->cols[col], row, err));
    }
    return buf_append_char(out, '}', err);
}

/* Lines reuse map_entry (start, len): whole lines compare. */
static int line_less(const char *base, const map_entry *a, const map_entry *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int cmp = memcmp(base + a->start, base + b->start, n);
    return cmp < 0 || (cmp == 0 && a->len < b->len);
}

silt_status text_lines_sort(buf *text, silt_error *err)
{
    size_t n_lines = 0, pos, idx, start = 0;
    map_entry *lines = NULL;
    buf sorted = BUF_INIT;
    silt_status rc = SILT_OK;
    if (text->len == 0)
        return SILT_OK;
    if (text->data[text->len - 1] != '\n')
        SILT_RETURN_IF_ERROR(buf_append_char(text, '\n', err));
    for (pos = 0; pos < text->len; pos++)
        n_lines += text->data[pos] == '\n';
    lines = mem_alloc(sizeof(*lines) * n_lines * 2);
    if (lines == NULL)
        return err_nomem(err);
    for (pos = 0, idx = 0; pos < text->len; pos++) {
        if (text->data[pos] != '\n')
            continue;
        lines[idx].start = start;
        lines[idx].len = pos - start; /* without the '\n' */
        lines[idx].key_len = 0;
        idx++;
        start = pos + 1;
    }
    sort_entries(text->data, lines, lines + n_lines, n_lines, line_less);
    buf_init(&sorted, text->limit);
    rc = buf_reserve(&sorted, text->len, err);
    for (idx = 0; idx < n_lines && rc == SILT_OK; idx++) {
        memcpy(sorted.data + sorted.len, text->data + lines[idx].start, lines[idx].len);
        sorted.len += lines[idx].len;
        sorted.data[sorted.len++] = '\n';
    }
    if (rc == SILT_OK) {
        sorted.data[sorted.len] = '\0';
        buf_clear(text);
        *text = sorted;
    }
    mem_free(lines);
    return rc;
}

silt_status text_jsonl_write_batch(buf *out, const col_batch *batch, silt_error *err)
{
    int64_t row;
    for (row = 0; row < batch->n_rows; row++) {
        SILT_RETURN_IF_ERROR(text_json_row(out, batch, row, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, '\n', err));
    }
    return SILT_OK;
}

/* ---- Spark's JSON lines ---------------------------------------------------- */

/*
 * Spark writes JSON through Jackson: strings escape '"', '\\' and control
 * characters (\b \t \n \f \r, others \u00XX with uppercase hex); binary is
 * base64; null fields of structs are left out (ignoreNullFields), nulls in
 * arrays and map values stay.
 */
silt_status text_spark_json_string(buf *out, const char *s, size_t len, silt_error *err)
{
    return json_escaped(out, s, len, "0123456789ABCDEF", err);
}

static silt_status spark_json_base64(buf *out, const unsigned char *s, size_t len,
                                     silt_error *err)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t pos;
    char *dst;
    SILT_RETURN_IF_ERROR(buf_reserve(out, (len + 2) / 3 * 4 + 2, err));
    dst = out->data + out->len;
    *dst++ = '"';
    for (pos = 0; pos + 2 < len; pos += 3) {
        uint32_t v = (uint32_t)s[pos] << 16 | (uint32_t)s[pos + 1] << 8 | s[pos + 2];
        *dst++ = alphabet[v >> 18];
        *dst++ = alphabet[(v >> 12) & 63];
        *dst++ = alphabet[(v >> 6) & 63];
        *dst++ = alphabet[v & 63];
    }
    if (pos < len) {
        uint32_t v = (uint32_t)s[pos] << 16 | (pos + 1 < len ? (uint32_t)s[pos + 1] << 8 : 0);
        *dst++ = alphabet[v >> 18];
        *dst++ = alphabet[(v >> 12) & 63];
        *dst++ = pos + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        *dst++ = '=';
    }
    *dst++ = '"';
    out->len = (size_t)(dst - out->data);
    out->data[out->len] = '\0';
    return SILT_OK;
}

static silt_status spark_json_value(buf *out, const col_vec *v, int64_t row, const time_zone *zone,
                                    silt_error *err);

/* Fields of a struct (or the top-level row) with their nulls left out. */
static silt_status spark_json_fields(buf *out, const col_field *fields, col_vec *const *children,
                                     size_t n_fields, int64_t row, const time_zone *zone,
                                     silt_error *err)
{
    size_t idx;
    int first = 1;
    SILT_RETURN_IF_ERROR(buf_append_char(out, '{', err));
    for (idx = 0; idx < n_fields; idx++) {
        const col_vec *child = children[idx];
        if (child->type->id == COL_NULL || col_vec_is_null(child, row))
            continue;
        if (!first)
            SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
        first = 0;
        SILT_RETURN_IF_ERROR(text_spark_json_string(out, fields[idx].name, strlen(fields[idx].name), err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, ':', err));
        SILT_RETURN_IF_ERROR(spark_json_value(out, child, row, zone, err));
    }
    return buf_append_char(out, '}', err);
}

/* A map's key as an object key: strings as they are, other types as Spark casts them. */
static silt_status spark_json_key(buf *out, const col_vec *keys, int64_t idx, const time_zone *zone,
                                    silt_error *err)
{
    size_t start = out->len, len;
    char *copy;
    silt_status rc;
    if (keys->type->id == COL_STRING) {
        int32_t str_len;
        const char *str = col_vec_str(keys, idx, &str_len);
        return text_spark_json_string(out, str, (size_t)str_len, err);
    }
    SILT_RETURN_IF_ERROR(text_spark_value_in(out, keys, idx, zone, err));
    /* The key text was written raw at the end of out; move it into a quoted string. */
    len = out->len - start;
    copy = mem_alloc(len ? len : 1);
    if (copy == NULL)
        return err_nomem(err);
    memcpy(copy, out->data + start, len);
    buf_truncate(out, start);
    rc = text_spark_json_string(out, copy, len, err);
    mem_free(copy);
    return rc;
}

static silt_status spark_json_nested(buf *out, const col_vec *v, int64_t row, const time_zone *zone,
                                    silt_error *err)
{
    int64_t first = v->type->id == COL_STRUCT ? 0 : v->offsets[row];
    int64_t end = v->type->id == COL_STRUCT ? 0 : v->offsets[row + 1], idx;
    if (v->type->id == COL_STRUCT)
        return spark_json_fields(out, v->type->fields, v->children, v->n_children, row, zone,
                                 err);
    SILT_RETURN_IF_ERROR(buf_append_char(out, v->type->id == COL_ARRAY ? '[' : '{', err));
    for (idx = first; idx < end; idx++) {
        if (idx > first)
            SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
        if (v->type->id == COL_MAP) {
            SILT_RETURN_IF_ERROR(spark_json_key(out, v->children[0], idx, zone, err));
            SILT_RETURN_IF_ERROR(buf_append_char(out, ':', err));
            SILT_RETURN_IF_ERROR(spark_json_value(out, v->children[1], idx, zone, err));
        } else {
            SILT_RETURN_IF_ERROR(spark_json_value(out, v->children[0], idx, zone, err));
        }
    }
    return buf_append_char(out, v->type->id == COL_ARRAY ? ']' : '}', err);
}

static silt_status spark_json_value(buf *out, const col_vec *v, int64_t row, const time_zone *zone,
                                    silt_error *err)
{
    char text[TEXT_NUM_MAX];
    size_t len;
    int32_t str_len;
    const char *str;
    if (v->type->id == COL_NULL || col_vec_is_null(v, row))
        return buf_append_str(out, "null", err);
    switch (v->type->id) {
    case COL_FLOAT:
        len = text_format_float_java(((const float *)v->values)[row], text);
        return json_number(out, text, len, err);
    case COL_DOUBLE:
        len = text_format_double_java(((const double *)v->values)[row], text);
        return json_number(out, text, len, err);
    case COL_DECIMAL:
        len = text_format_decimal_java(((const col_int128 *)v->values)[row], v->type->scale, text);
        return buf_append(out, text, len, err);
    case COL_STRING:
        str = col_vec_str(v, row, &str_len);
        return text_spark_json_string(out, str, (size_t)str_len, err);
    case COL_BINARY:
        str = col_vec_str(v, row, &str_len);
        return spark_json_base64(out, (const unsigned char *)str, (size_t)str_len, err);
    case COL_DATE:
        len = text_format_date_spark(((const int32_t *)v->values)[row], text);
        return json_quoted(out, text, len, err);
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        /* Spark's default timestampFormat keeps milliseconds: yyyy-MM-dd'T'HH:mm:ss.SSSXXX */
        len = v->type->id == COL_TIMESTAMP
                  ? text_format_instant_spark(((const int64_t *)v->values)[row], zone, text)
                  : text_format_timestamp_spark(((const int64_t *)v->values)[row], 'T', 3, 0, text);
        return json_quoted(out, text, len, err);
    case COL_STRUCT:
    case COL_ARRAY:
    case COL_MAP: return spark_json_nested(out, v, row, zone, err);
    default: return json_scalar(out, v, row, err); /* booleans and integers */
    }
}

silt_status text_spark_json_write_batch(buf *out, const col_batch *batch, silt_error *err)
{
    return text_spark_json_write_batch_in(out, batch, NULL, err);
}

silt_status text_spark_json_write_batch_in(buf *out, const col_batch *batch,
                                           const time_zone *zone, silt_error *err)
{
    int64_t row;
    for (row = 0; row < batch->n_rows; row++) {
        SILT_RETURN_IF_ERROR(spark_json_fields(out, batch->schema->fields, batch->cols,
                                               batch->n_cols, row, zone, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, '\n', err));
    }
    return SILT_OK;
}
