/*
 * parquet.c - the public Parquet inspection calls (include/silt/parquet.h):
 * schema, metadata and row dumps of one file, for `silt parquet`.
 *
 * The row formatter here writes the canonical JSON-lines row format of
 * ../shared/conformance/README.md and a plain CSV. It is a small local
 * stand-in: the shared value formatters (formats/text*) replace it when
 * they land, so keep it simple rather than clever.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/parquet/parquet.h"
#include "silt/parquet.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/time.h"

/* Opens the store of the file's folder and the file in it. */
static silt_status open_path(const char *path, io_store **store_out, pq_file **file_out,
                             silt_error *err)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    silt_status rc;
    *store_out = NULL;
    *file_out = NULL;
    if (path[0] == '\0' || (slash != NULL && slash[1] == '\0'))
        return err_set(err, SILT_INVALID, "\"%s\" is not a file path", path);
    if (slash == NULL)
        dir = mem_strdup(".");
    else if (slash == path)
        dir = mem_strdup("/");
    else
        dir = mem_strndup(path, (size_t)(slash - path));
    if (dir == NULL)
        return err_nomem(err);
    rc = io_store_open(store_out, dir, 0, err);
    mem_free(dir);
    if (rc == SILT_OK)
        rc = pq_file_open(file_out, *store_out, slash != NULL ? slash + 1 : path, err);
    if (rc != SILT_OK) {
        io_store_free(*store_out);
        *store_out = NULL;
    }
    return rc;
}

static silt_status finish(silt_status rc, silt_error *err, char *errbuf, size_t errbuf_len)
{
    if (errbuf != NULL && errbuf_len > 0) {
        errbuf[0] = '\0';
        if (rc != SILT_OK)
            err_format(err, errbuf, errbuf_len);
    }
    return rc;
}

/* ---- schema ---- */

static silt_status print_type_tree(buf *out, const col_type *type, int depth, silt_error *err);

static silt_status print_field(buf *out, const char *name, const col_type *type, int nullable,
                               const char *label, int depth, silt_error *err)
{
    buf tname = BUF_INIT;
    int idx;
    silt_status rc = SILT_OK;
    for (idx = 0; idx < depth; idx++)
        rc = rc == SILT_OK ? buf_append_str(out, " |   ", err) : rc;
    if (rc == SILT_OK) {
        if (col_type_is_nested(type->id))
            rc = buf_append_str(&tname, col_type_id_name(type->id), err);
        else
            rc = col_type_format(type, &tname, err);
    }
    /* Spark prints map keys without a nullability (they are never null). */
    if (rc == SILT_OK && label == NULL)
        rc = buf_printf(out, err, " |-- %s: %s\n", name, buf_cstr(&tname));
    else if (rc == SILT_OK)
        rc = buf_printf(out, err, " |-- %s: %s (%s = %s)\n", name, buf_cstr(&tname), label,
                        nullable ? "true" : "false");
    buf_clear(&tname);
    if (rc == SILT_OK)
        rc = print_type_tree(out, type, depth + 1, err);
    return rc;
}

/* The layout of Spark's StructType.treeString. */
static silt_status print_type_tree(buf *out, const col_type *type, int depth, silt_error *err)
{
    size_t idx;
    switch (type->id) {
    case COL_STRUCT:
        for (idx = 0; idx < type->n_fields; idx++)
            SILT_RETURN_IF_ERROR(print_field(out, type->fields[idx].name, type->fields[idx].type,
                                             type->fields[idx].nullable, "nullable", depth, err));
        return SILT_OK;
    case COL_ARRAY:
        return print_field(out, "element", type->fields[0].type, type->fields[0].nullable,
                           "containsNull", depth, err);
    case COL_MAP:
        SILT_RETURN_IF_ERROR(print_field(out, "key", type->fields[0].type, 0, NULL, depth, err));
        return print_field(out, "value", type->fields[1].type, type->fields[1].nullable,
                           "valueContainsNull", depth, err);
    default:
        return SILT_OK;
    }
}

SILT_API silt_status silt_parquet_print_schema(FILE *out, const char *path, int parquet_layout,
                                               char *errbuf, size_t errbuf_len)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    pq_file *file = NULL;
    buf text = BUF_INIT;
    silt_status rc = open_path(path, &store, &file, &err);
    if (rc == SILT_OK && parquet_layout)
        rc = pq_file_format_schema(file, &text, &err);
    else if (rc == SILT_OK)
        rc = buf_append_str(&text, "root\n", &err);
    if (rc == SILT_OK && !parquet_layout)
        rc = print_type_tree(&text, pq_file_schema(file), 0, &err);
    if (rc == SILT_OK)
        fputs(buf_cstr(&text), out);
    buf_clear(&text);
    pq_file_free(file);
    io_store_free(store);
    return finish(rc, &err, errbuf, errbuf_len);
}

/* ---- values (local stand-in for the shared formatters) ---- */

static silt_status fmt_int128(buf *out, col_int128 value, int scale, silt_error *err)
{
    char digits[48];
    int n = 0, neg = value < 0;
    unsigned __int128 mag = neg ? (unsigned __int128)0 - (unsigned __int128)value
                                : (unsigned __int128)value;
    do {
        digits[n++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag != 0);
    while (n <= scale)
        digits[n++] = '0';
    if (neg)
        SILT_RETURN_IF_ERROR(buf_append_char(out, '-', err));
    while (n > 0) {
        if (n == scale)
            SILT_RETURN_IF_ERROR(buf_append_char(out, '.', err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, digits[--n], err));
    }
    return SILT_OK;
}

/* Shortest round-trip digits in the layout of JavaScript's Number#toString. */
static silt_status fmt_real(buf *out, double x, int is_float, int quote_special, silt_error *err)
{
    char tmp[40], digits[24];
    int prec, n_digits = 0, exp10, point;
    const char *p;
    if (isnan(x) || isinf(x)) {
        const char *name = isnan(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity";
        return quote_special ? buf_printf(out, err, "\"%s\"", name) : buf_append_str(out, name, err);
    }
    if (x == 0)
        return buf_append_str(out, signbit(x) ? "-0" : "0", err);
    for (prec = 1; prec <= 17; prec++) {
        double back;
        snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, x);
        back = strtod(tmp, NULL);
        if (is_float ? (float)back == (float)x : back == x)
            break;
    }
    p = tmp;
    if (*p == '-') {
        SILT_RETURN_IF_ERROR(buf_append_char(out, '-', err));
        p++;
    }
    for (; *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[n_digits++] = *p;
    while (n_digits > 1 && digits[n_digits - 1] == '0')
        n_digits--;
    exp10 = (int)strtol(p + 1, NULL, 10);
    point = exp10 + 1; /* digits d1d2.. times 10^(point - n_digits) */
    if (n_digits <= point && point <= 21) {
        SILT_RETURN_IF_ERROR(buf_append(out, digits, (size_t)n_digits, err));
        for (; n_digits < point; n_digits++)
            SILT_RETURN_IF_ERROR(buf_append_char(out, '0', err));
    } else if (0 < point && point <= 21) {
        SILT_RETURN_IF_ERROR(buf_append(out, digits, (size_t)point, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, '.', err));
        SILT_RETURN_IF_ERROR(buf_append(out, digits + point, (size_t)(n_digits - point), err));
    } else if (-6 < point && point <= 0) {
        SILT_RETURN_IF_ERROR(buf_append_str(out, "0.", err));
        for (; point < 0; point++)
            SILT_RETURN_IF_ERROR(buf_append_char(out, '0', err));
        SILT_RETURN_IF_ERROR(buf_append(out, digits, (size_t)n_digits, err));
    } else {
        SILT_RETURN_IF_ERROR(buf_append_char(out, digits[0], err));
        if (n_digits > 1) {
            SILT_RETURN_IF_ERROR(buf_append_char(out, '.', err));
            SILT_RETURN_IF_ERROR(buf_append(out, digits + 1, (size_t)(n_digits - 1), err));
        }
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "e%c%d", point - 1 >= 0 ? '+' : '-',
                                        abs(point - 1)));
    }
    return SILT_OK;
}

static silt_status fmt_json_string(buf *out, const char *s, size_t len, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_append_char(out, '"', err));
    for (idx = 0; idx < len; idx++) {
        unsigned char c = (unsigned char)s[idx];
        switch (c) {
        case '"': SILT_RETURN_IF_ERROR(buf_append_str(out, "\\\"", err)); break;
        case '\\': SILT_RETURN_IF_ERROR(buf_append_str(out, "\\\\", err)); break;
        case '\b': SILT_RETURN_IF_ERROR(buf_append_str(out, "\\b", err)); break;
        case '\f': SILT_RETURN_IF_ERROR(buf_append_str(out, "\\f", err)); break;
        case '\n': SILT_RETURN_IF_ERROR(buf_append_str(out, "\\n", err)); break;
        case '\r': SILT_RETURN_IF_ERROR(buf_append_str(out, "\\r", err)); break;
        case '\t': SILT_RETURN_IF_ERROR(buf_append_str(out, "\\t", err)); break;
        default:
            if (c < 0x20)
                SILT_RETURN_IF_ERROR(buf_printf(out, err, "\\u%04x", c));
            else
                SILT_RETURN_IF_ERROR(buf_append_char(out, (char)c, err));
        }
    }
    return buf_append_char(out, '"', err);
}

static silt_status fmt_json_value(buf *out, const col_vec *v, int64_t row, silt_error *err);

static int cmp_entries(const void *a, const void *b)
{
    const buf *x = *(const buf *const *)a, *y = *(const buf *const *)b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->data, y->data, n);
    return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

/* A map: [key, value] pairs ordered by the bytes of the serialized key. */
static silt_status fmt_json_map(buf *out, const col_vec *v, int64_t row, silt_error *err)
{
    int32_t start = v->offsets[row], end = v->offsets[row + 1], k;
    size_t n = (size_t)(end - start);
    buf *pairs = mem_calloc(n ? n : 1, sizeof(buf));
    buf **order = mem_calloc(n ? n : 1, sizeof(buf *));
    silt_status rc = pairs != NULL && order != NULL ? SILT_OK : err_nomem(err);
    for (k = 0; rc == SILT_OK && k < end - start; k++) {
        order[k] = &pairs[k];
        rc = buf_append_char(&pairs[k], '[', err);
        if (rc == SILT_OK)
            rc = fmt_json_value(&pairs[k], v->children[0], start + k, err);
        if (rc == SILT_OK)
            rc = buf_append_char(&pairs[k], ',', err);
        if (rc == SILT_OK)
            rc = fmt_json_value(&pairs[k], v->children[1], start + k, err);
        if (rc == SILT_OK)
            rc = buf_append_char(&pairs[k], ']', err);
    }
    if (rc == SILT_OK)
        qsort(order, n, sizeof(buf *), cmp_entries);
    if (rc == SILT_OK)
        rc = buf_append_char(out, '[', err);
    for (k = 0; rc == SILT_OK && (size_t)k < n; k++) {
        if (k > 0)
            rc = buf_append_char(out, ',', err);
        if (rc == SILT_OK)
            rc = buf_append(out, order[k]->data, order[k]->len, err);
    }
    if (rc == SILT_OK)
        rc = buf_append_char(out, ']', err);
    for (k = 0; pairs != NULL && (size_t)k < n; k++)
        buf_clear(&pairs[k]);
    mem_free(pairs);
    mem_free(order);
    return rc;
}

static silt_status fmt_json_value(buf *out, const col_vec *v, int64_t row, silt_error *err)
{
    char tmp[64];
    size_t idx;
    if (v->type->id == COL_NULL || col_vec_is_null(v, row))
        return buf_append_str(out, "null", err);
    switch (v->type->id) {
    case COL_BOOLEAN:
        return buf_append_str(out, ((const uint8_t *)v->values)[row] ? "true" : "false", err);
    case COL_BYTE: return buf_printf(out, err, "%d", ((const int8_t *)v->values)[row]);
    case COL_SHORT: return buf_printf(out, err, "%d", ((const int16_t *)v->values)[row]);
    case COL_INT: return buf_printf(out, err, "%d", ((const int32_t *)v->values)[row]);
    case COL_LONG:
        return buf_printf(out, err, "%lld", (long long)((const int64_t *)v->values)[row]);
    case COL_FLOAT: return fmt_real(out, ((const float *)v->values)[row], 1, 1, err);
    case COL_DOUBLE: return fmt_real(out, ((const double *)v->values)[row], 0, 1, err);
    case COL_DECIMAL: {
        col_int128 value;
        memcpy(&value, (const uint8_t *)v->values + row * 16, 16);
        SILT_RETURN_IF_ERROR(buf_append_char(out, '"', err));
        SILT_RETURN_IF_ERROR(fmt_int128(out, value, v->type->scale, err));
        return buf_append_char(out, '"', err);
    }
    case COL_STRING: {
        int32_t len;
        const char *s = col_vec_str(v, row, &len);
        return fmt_json_string(out, s, (size_t)len, err);
    }
    case COL_BINARY: {
        int32_t len, k;
        const char *s = col_vec_str(v, row, &len);
        SILT_RETURN_IF_ERROR(buf_append_char(out, '"', err));
        for (k = 0; k < len; k++)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "%02x", (unsigned char)s[k]));
        return buf_append_char(out, '"', err);
    }
    case COL_DATE:
        time_format_date(((const int32_t *)v->values)[row], tmp, sizeof(tmp));
        return buf_printf(out, err, "\"%s\"", tmp);
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        time_format_timestamp(((const int64_t *)v->values)[row], 'T', 6,
                              v->type->id == COL_TIMESTAMP, tmp, sizeof(tmp));
        return buf_printf(out, err, "\"%s\"", tmp);
    case COL_STRUCT:
        SILT_RETURN_IF_ERROR(buf_append_char(out, '{', err));
        for (idx = 0; idx < v->n_children; idx++) {
            if (idx > 0)
                SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
            SILT_RETURN_IF_ERROR(fmt_json_string(out, v->type->fields[idx].name,
                                                 strlen(v->type->fields[idx].name), err));
            SILT_RETURN_IF_ERROR(buf_append_char(out, ':', err));
            SILT_RETURN_IF_ERROR(fmt_json_value(out, v->children[idx], row, err));
        }
        return buf_append_char(out, '}', err);
    case COL_ARRAY: {
        int32_t k;
        SILT_RETURN_IF_ERROR(buf_append_char(out, '[', err));
        for (k = v->offsets[row]; k < v->offsets[row + 1]; k++) {
            if (k > v->offsets[row])
                SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
            SILT_RETURN_IF_ERROR(fmt_json_value(out, v->children[0], k, err));
        }
        return buf_append_char(out, ']', err);
    }
    case COL_MAP:
        return fmt_json_map(out, v, row, err);
    default:
        return err_set(err, SILT_UNSUPPORTED, "cannot format values of type %s",
                       col_type_id_name(v->type->id));
    }
}

static silt_status fmt_jsonl_row(buf *out, const col_batch *batch, int64_t row, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_append_char(out, '{', err));
    for (idx = 0; idx < batch->n_cols; idx++) {
        const char *name = batch->schema->fields[idx].name;
        if (idx > 0)
            SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
        SILT_RETURN_IF_ERROR(fmt_json_string(out, name, strlen(name), err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, ':', err));
        SILT_RETURN_IF_ERROR(fmt_json_value(out, batch->cols[idx], row, err));
    }
    return buf_append_str(out, "}\n", err);
}

static silt_status fmt_csv_field(buf *out, const char *s, size_t len, silt_error *err)
{
    size_t idx;
    if (len > 0 && strcspn(s, ",\"\r\n") >= len && s[0] != ' ' && s[len - 1] != ' ')
        return buf_append(out, s, len, err);
    SILT_RETURN_IF_ERROR(buf_append_char(out, '"', err));
    for (idx = 0; idx < len; idx++) {
        if (s[idx] == '"')
            SILT_RETURN_IF_ERROR(buf_append_char(out, '"', err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, s[idx], err));
    }
    return buf_append_char(out, '"', err);
}

/* CSV: null is an empty field, strings as they are, other values as in JSON without quotes. */
static silt_status fmt_csv_row(buf *out, const col_batch *batch, int64_t row, silt_error *err)
{
    size_t idx;
    buf cell = BUF_INIT;
    silt_status rc = SILT_OK;
    for (idx = 0; idx < batch->n_cols && rc == SILT_OK; idx++) {
        const col_vec *v = batch->cols[idx];
        if (idx > 0)
            rc = buf_append_char(out, ',', err);
        if (rc != SILT_OK || v->type->id == COL_NULL || col_vec_is_null(v, row))
            continue;
        buf_truncate(&cell, 0);
        if (v->type->id == COL_STRING) {
            int32_t len;
            const char *s = col_vec_str(v, row, &len);
            rc = buf_append(&cell, s, (size_t)len, err);
        } else if (v->type->id == COL_FLOAT || v->type->id == COL_DOUBLE) {
            double x = v->type->id == COL_FLOAT ? ((const float *)v->values)[row]
                                                : ((const double *)v->values)[row];
            rc = fmt_real(&cell, x, v->type->id == COL_FLOAT, 0, err);
        } else {
            rc = fmt_json_value(&cell, v, row, err);
            if (rc == SILT_OK && cell.len >= 2 && cell.data[0] == '"' && !col_type_is_nested(v->type->id)) {
                memmove(cell.data, cell.data + 1, cell.len - 2);
                buf_truncate(&cell, cell.len - 2);
            }
        }
        if (rc == SILT_OK)
            rc = fmt_csv_field(out, cell.data != NULL ? cell.data : "", cell.len, err);
    }
    buf_clear(&cell);
    if (rc == SILT_OK)
        rc = buf_append_char(out, '\n', err);
    return rc;
}

/* Splits "a,b.c" into an array of names (in arena a). */
static silt_status split_columns(const char *list, arena *a, const char ***names_out,
                                 size_t *n_out, silt_error *err)
{
    size_t n = 1, k = 0;
    const char *p;
    const char **names;
    for (p = list; *p; p++)
        n += *p == ',';
    names = arena_calloc(a, n, sizeof(char *));
    if (names == NULL)
        return err_nomem(err);
    for (p = list;; p++) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len == 0)
            return err_set(err, SILT_INVALID, "column list \"%s\" has an empty name", list);
        names[k] = arena_strndup(a, p, len);
        if (names[k++] == NULL)
            return err_nomem(err);
        if (end == NULL)
            break;
        p = end;
    }
    *names_out = names;
    *n_out = k;
    return SILT_OK;
}

static silt_status write_csv_header(buf *out, const col_type *schema, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < schema->n_fields; idx++) {
        if (idx > 0)
            SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
        SILT_RETURN_IF_ERROR(fmt_csv_field(out, schema->fields[idx].name,
                                           strlen(schema->fields[idx].name), err));
    }
    return buf_append_char(out, '\n', err);
}

static silt_status cat_rows(FILE *fp, pq_file *file, const silt_parquet_cat_options *opts,
                            arena *a, silt_error *err)
{
    pq_read_options ro = PQ_READ_OPTIONS_INIT;
    pq_reader *reader = NULL;
    arena *batch_arena = arena_new(a, "parquet cat batch");
    buf text = BUF_INIT;
    int64_t left = opts->limit < 0 ? INT64_MAX : opts->limit;
    silt_status rc = batch_arena != NULL ? SILT_OK : err_nomem(err);
    if (rc == SILT_OK && opts->columns != NULL)
        rc = split_columns(opts->columns, a, (const char ***)&ro.columns, &ro.n_columns, err);
    if (rc == SILT_OK)
        rc = pq_reader_open(&reader, file, &ro, err);
    if (rc == SILT_OK && opts->format == SILT_PARQUET_CSV)
        rc = write_csv_header(&text, pq_reader_schema(reader), err);
    while (rc == SILT_OK && left > 0) {
        col_batch *batch = NULL;
        int64_t row;
        arena_reset(batch_arena);
        rc = pq_reader_next(reader, batch_arena, &batch, err);
        if (rc != SILT_OK || batch == NULL)
            break;
        for (row = 0; row < batch->n_rows && left > 0 && rc == SILT_OK; row++, left--)
            rc = opts->format == SILT_PARQUET_CSV ? fmt_csv_row(&text, batch, row, err)
                                                  : fmt_jsonl_row(&text, batch, row, err);
        fwrite(text.data != NULL ? text.data : "", 1, text.len, fp);
        buf_truncate(&text, 0);
    }
    if (rc == SILT_OK && text.len > 0)
        fwrite(text.data, 1, text.len, fp);
    buf_clear(&text);
    pq_reader_free(reader);
    return rc;
}

SILT_API silt_status silt_parquet_cat(FILE *out, const char *path,
                                      const silt_parquet_cat_options *opts, char *errbuf,
                                      size_t errbuf_len)
{
    silt_parquet_cat_options defaults = SILT_PARQUET_CAT_OPTIONS_INIT;
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    pq_file *file = NULL;
    arena *a = NULL;
    silt_status rc;
    if (opts == NULL)
        opts = &defaults;
    if (opts->format == SILT_PARQUET_TABLE)
        return finish(err_set(&err, SILT_UNSUPPORTED, "the table format is not available yet; "
                              "use jsonl or csv"), &err, errbuf, errbuf_len);
    if (opts->format != SILT_PARQUET_JSONL && opts->format != SILT_PARQUET_CSV)
        return finish(err_set(&err, SILT_INVALID, "output format %d does not exist",
                              (int)opts->format), &err, errbuf, errbuf_len);
    rc = open_path(path, &store, &file, &err);
    if (rc == SILT_OK) {
        a = arena_new(NULL, "parquet cat");
        rc = a != NULL ? cat_rows(out, file, opts, a, &err) : err_nomem(&err);
    }
    arena_free(a);
    pq_file_free(file);
    io_store_free(store);
    return finish(rc, &err, errbuf, errbuf_len);
}

/* ---- metadata ---- */

static silt_status fmt_stat(buf *out, const col_type *type, const pq_stat_value *value,
                            silt_error *err)
{
    char tmp[64];
    switch (type->id) {
    case COL_BOOLEAN: return buf_append_str(out, value->i ? "true" : "false", err);
    case COL_FLOAT:
    case COL_DOUBLE: return fmt_real(out, value->d, type->id == COL_FLOAT, 0, err);
    case COL_DECIMAL: return fmt_int128(out, value->dec, type->scale, err);
    case COL_DATE:
        time_format_date((int32_t)value->i, tmp, sizeof(tmp));
        return buf_append_str(out, tmp, err);
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        time_format_timestamp(value->i, 'T', 6, type->id == COL_TIMESTAMP, tmp, sizeof(tmp));
        return buf_append_str(out, tmp, err);
    case COL_STRING:
        return fmt_json_string(out, value->bytes, value->len, err);
    case COL_BINARY: {
        size_t k;
        SILT_RETURN_IF_ERROR(buf_append_str(out, "0x", err));
        for (k = 0; k < value->len; k++)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "%02x", (unsigned char)value->bytes[k]));
        return SILT_OK;
    }
    default: return buf_printf(out, err, "%lld", (long long)value->i);
    }
}

static silt_status print_chunk(buf *out, const pq_file *file, const pq_column_chunk *cc,
                               size_t col_idx, silt_error *err)
{
    const pq_column_meta *cm = &cc->meta;
    const col_type *leaf_type = pq_file_leaf_type(file, col_idx);
    pq_leaf_stats st;
    size_t k;
    SILT_RETURN_IF_ERROR(buf_printf(out, err, "  column %s: %s, %s, encodings ",
                                    pq_file_leaf_path(file, col_idx), pq_physical_name(cm->type),
                                    pq_codec_name(cm->codec)));
    for (k = 0; k < cm->n_encodings; k++)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s%s", k > 0 ? "," : "",
                                        pq_encoding_name(cm->encodings[k])));
    SILT_RETURN_IF_ERROR(buf_printf(out, err, "\n    values %lld, compressed %lld bytes, "
                                    "uncompressed %lld bytes, data page at %lld",
                                    (long long)cm->num_values, (long long)cm->total_compressed_size,
                                    (long long)cm->total_uncompressed_size,
                                    (long long)cm->data_page_offset));
    if (cm->has_dictionary_page_offset)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, ", dictionary page at %lld",
                                        (long long)cm->dictionary_page_offset));
    SILT_RETURN_IF_ERROR(buf_append_char(out, '\n', err));
    if (cc->has_column_index || cc->has_offset_index || cm->has_bloom_filter_offset) {
        SILT_RETURN_IF_ERROR(buf_append_str(out, "    page index:", err));
        if (cc->has_column_index)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, " column index at %lld (%d bytes)",
                                            (long long)cc->column_index_offset,
                                            (int)cc->column_index_length));
        if (cc->has_offset_index)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s offset index at %lld (%d bytes)",
                                            cc->has_column_index ? "," : "",
                                            (long long)cc->offset_index_offset,
                                            (int)cc->offset_index_length));
        if (cm->has_bloom_filter_offset)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s bloom filter at %lld",
                                            cc->has_column_index || cc->has_offset_index ? "," : "",
                                            (long long)cm->bloom_filter_offset));
        SILT_RETURN_IF_ERROR(buf_append_char(out, '\n', err));
    }
    if (!cm->has_statistics)
        return SILT_OK;
    pq_file_chunk_stats(file, cc, col_idx, &st);
    SILT_RETURN_IF_ERROR(buf_append_str(out, "    statistics:", err));
    if (st.has_min_max) {
        SILT_RETURN_IF_ERROR(buf_append_str(out, " min ", err));
        SILT_RETURN_IF_ERROR(fmt_stat(out, leaf_type, &st.min, err));
        SILT_RETURN_IF_ERROR(buf_append_str(out, ", max ", err));
        SILT_RETURN_IF_ERROR(fmt_stat(out, leaf_type, &st.max, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
    }
    if (st.has_null_count)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, " nulls %lld", (long long)st.null_count));
    if (cm->statistics.has_distinct_count)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, ", distinct %lld",
                                        (long long)cm->statistics.distinct_count));
    return buf_append_char(out, '\n', err);
}

static silt_status print_meta(buf *out, const pq_file *file, silt_error *err)
{
    const pq_file_meta *meta = pq_file_metadata(file);
    size_t rg_idx, k;
    SILT_RETURN_IF_ERROR(buf_printf(out, err, "file: %s\nsize: %lld bytes\nversion: %d\n",
                                    pq_file_key(file), (long long)pq_file_size(file),
                                    (int)meta->version));
    SILT_RETURN_IF_ERROR(buf_printf(out, err, "created by: %s\nrows: %lld\nrow groups: %zu\n"
                                    "columns: %zu\n",
                                    meta->created_by != NULL ? meta->created_by : "(unknown)",
                                    (long long)pq_file_num_rows(file), meta->n_row_groups,
                                    pq_file_n_leaves(file)));
    for (k = 0; k < meta->n_kv; k++)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "metadata %s: %.200s%s\n", meta->kv[k].key,
                                        meta->kv[k].value != NULL ? meta->kv[k].value : "",
                                        meta->kv[k].value != NULL && strlen(meta->kv[k].value) > 200
                                            ? "..." : ""));
    for (rg_idx = 0; rg_idx < meta->n_row_groups; rg_idx++) {
        const pq_row_group *rg = &meta->row_groups[rg_idx];
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "row group %zu: rows %lld, total byte size "
                                        "%lld\n", rg_idx, (long long)rg->num_rows,
                                        (long long)rg->total_byte_size));
        for (k = 0; k < rg->n_columns; k++)
            SILT_RETURN_IF_ERROR(print_chunk(out, file, &rg->columns[k], k, err));
    }
    return SILT_OK;
}

SILT_API silt_status silt_parquet_print_meta(FILE *out, const char *path, char *errbuf,
                                             size_t errbuf_len)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    pq_file *file = NULL;
    buf text = BUF_INIT;
    silt_status rc = open_path(path, &store, &file, &err);
    if (rc == SILT_OK)
        rc = print_meta(&text, file, &err);
    if (rc == SILT_OK)
        fputs(buf_cstr(&text), out);
    buf_clear(&text);
    pq_file_free(file);
    io_store_free(store);
    return finish(rc, &err, errbuf, errbuf_len);
}
