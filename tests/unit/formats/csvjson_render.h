/*
 * csvjson_render.h - test helper for the CSV and JSON reader tests: renders
 * batches as text ("v|v|v" per row, rows joined by '\n') so that a test
 * states its expected values in one readable string. Nested values render
 * as Spark's show() does: structs {a, b}, arrays [x, y].
 */
#ifndef SILT_TEST_CSVJSON_RENDER_H
#define SILT_TEST_CSVJSON_RENDER_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/columnar.h"
#include "formats/csv/csv.h"
#include "formats/json/json.h"
#include "test.h"
#include "util/buf.h"
#include "util/time.h"

static void render_value(buf *out, const col_vec *v, int64_t row)
{
    char tmp[128];
    if (col_vec_is_null(v, row)) {
        buf_append_str(out, "null", NULL);
        return;
    }
    switch (v->type->id) {
    case COL_BOOLEAN: buf_append_str(out, ((uint8_t *)v->values)[row] ? "true" : "false", NULL); break;
    case COL_BYTE: buf_printf(out, NULL, "%d", ((int8_t *)v->values)[row]); break;
    case COL_SHORT: buf_printf(out, NULL, "%d", ((int16_t *)v->values)[row]); break;
    case COL_INT: buf_printf(out, NULL, "%d", ((int32_t *)v->values)[row]); break;
    case COL_LONG: buf_printf(out, NULL, "%lld", (long long)((int64_t *)v->values)[row]); break;
    case COL_FLOAT:
    case COL_DOUBLE: {
        double d = v->type->id == COL_FLOAT ? ((float *)v->values)[row] : ((double *)v->values)[row];
        if (isnan(d)) { buf_append_str(out, "NaN", NULL); break; }
        if (isinf(d)) { buf_append_str(out, d > 0 ? "Infinity" : "-Infinity", NULL); break; }
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
            if (strtod(tmp, NULL) == d)
                break;
        }
        if (strpbrk(tmp, ".e") == NULL)
            strncat(tmp, ".0", sizeof(tmp) - strlen(tmp) - 1);
        buf_append_str(out, tmp, NULL);
        break;
    }
    case COL_DECIMAL: {
        col_int128 x;
        char digits[64];
        int n = 0, neg;
        memcpy(&x, (char *)v->values + row * 16, 16);
        neg = x < 0;
        if (neg) x = -x;
        do { digits[n++] = (char)('0' + (int)(x % 10)); x /= 10; } while (x != 0 || n <= v->type->scale);
        if (neg) buf_append_char(out, '-', NULL);
        for (int idx = n - 1; idx >= 0; idx--) {
            buf_append_char(out, digits[idx], NULL);
            if (idx == v->type->scale && idx != 0) buf_append_char(out, '.', NULL);
        }
        break;
    }
    case COL_STRING:
    case COL_BINARY: {
        int32_t len;
        const char *s = col_vec_str(v, row, &len);
        buf_append(out, s, (size_t)len, NULL);
        break;
    }
    case COL_DATE: time_format_date(((int32_t *)v->values)[row], tmp, sizeof(tmp)); buf_append_str(out, tmp, NULL); break;
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        time_format_timestamp_spark(((int64_t *)v->values)[row], tmp, sizeof(tmp));
        buf_append_str(out, tmp, NULL);
        break;
    case COL_STRUCT:
        buf_append_char(out, '{', NULL);
        for (size_t idx = 0; idx < v->n_children; idx++) {
            if (idx) buf_append_str(out, ", ", NULL);
            render_value(out, v->children[idx], row);
        }
        buf_append_char(out, '}', NULL);
        break;
    case COL_ARRAY:
        buf_append_char(out, '[', NULL);
        for (int32_t idx = v->offsets[row]; idx < v->offsets[row + 1]; idx++) {
            if (idx > v->offsets[row]) buf_append_str(out, ", ", NULL);
            render_value(out, v->children[0], idx);
        }
        buf_append_char(out, ']', NULL);
        break;
    case COL_MAP:
        buf_append_char(out, '{', NULL);
        for (int32_t idx = v->offsets[row]; idx < v->offsets[row + 1]; idx++) {
            if (idx > v->offsets[row]) buf_append_str(out, ", ", NULL);
            render_value(out, v->children[0], idx);
            buf_append_str(out, " -> ", NULL);
            render_value(out, v->children[1], idx);
        }
        buf_append_char(out, '}', NULL);
        break;
    default: buf_append_str(out, "?", NULL); break;
    }
}

/* Appends the rows of a batch to out. */
static void render_batch(buf *out, const col_batch *b)
{
    for (int64_t row = 0; row < b->n_rows; row++) {
        if (out->len) buf_append_char(out, '\n', NULL);
        for (size_t col = 0; col < b->n_cols; col++) {
            if (col) buf_append_char(out, '|', NULL);
            check_int(b->n_rows, b->cols[col]->length);
            render_value(out, b->cols[col], row);
        }
    }
}

/* The next batch of a CSV or a JSON scan, so that one loop renders both. */
typedef silt_status (*render_next_fn)(void *scan, arena *a, col_batch *out, silt_error *err);

static inline silt_status render_csv_next(void *scan, arena *a, col_batch *out, silt_error *err)
{
    return csv_scan_next(scan, a, out, err);
}

static inline silt_status render_json_next(void *scan, arena *a, col_batch *out, silt_error *err)
{
    return json_scan_next(scan, a, out, err);
}

/*
 * Appends the rows of every batch of a scan to out until the scan ends or
 * fails, and returns its status. Checks that no batch has more than
 * max_rows rows (-1: no limit).
 */
static inline silt_status render_scan(buf *out, void *scan, render_next_fn next, arena *a,
                                      int64_t max_rows, silt_error *err)
{
    for (;;) {
        col_batch batch;
        silt_status rc = next(scan, a, &batch, err);
        if (rc != SILT_OK || batch.n_rows == 0)
            return rc;
        if (max_rows >= 0)
            check(batch.n_rows <= max_rows);
        render_batch(out, &batch);
    }
}

#endif
