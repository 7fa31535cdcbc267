/*
 * engine_test.h - helpers for the engine's unit tests: building vectors and
 * batches from C arrays, and printing results as "1,NULL,abc" text so a
 * whole column is checked with one check_str.
 */
#ifndef SILT_TEST_ENGINE_TEST_H
#define SILT_TEST_ENGINE_TEST_H

#include <stdio.h>
#include <string.h>

#include "engine/expr.h"
#include "engine/op.h"
#include "test.h"
#include "util/buf.h"
#include "util/time.h"

/* Integers (any integral, date or timestamp type); nulls: 'n' marks a NULL row. */
static inline col_vec *mk_ints(arena *a, col_type_id type, int64_t n, const int64_t *vals,
                               const char *nulls)
{
    silt_error err = SILT_ERROR_INIT;
    col_builder *b;
    col_vec *v;
    int64_t idx;
    check_ok(col_builder_new(&b, a, col_type_primitive(type), &err), &err);
    for (idx = 0; idx < n; idx++) {
        if (nulls != NULL && nulls[idx] == 'n')
            check_ok(col_builder_append_null(b, &err), &err);
        else if (type == COL_BOOLEAN)
            check_ok(col_builder_append_bool(b, (int)vals[idx], &err), &err);
        else
            check_ok(col_builder_append_int(b, vals[idx], &err), &err);
    }
    check_ok(col_builder_finish(b, &v, &err), &err);
    return v;
}

static inline col_vec *mk_doubles(arena *a, int64_t n, const double *vals, const char *nulls)
{
    silt_error err = SILT_ERROR_INIT;
    col_builder *b;
    col_vec *v;
    int64_t idx;
    check_ok(col_builder_new(&b, a, col_type_primitive(COL_DOUBLE), &err), &err);
    for (idx = 0; idx < n; idx++) {
        if (nulls != NULL && nulls[idx] == 'n')
            check_ok(col_builder_append_null(b, &err), &err);
        else
            check_ok(col_builder_append_double(b, vals[idx], &err), &err);
    }
    check_ok(col_builder_finish(b, &v, &err), &err);
    return v;
}

static inline col_vec *mk_decimals(arena *a, int32_t p, int32_t s, int64_t n,
                                   const int64_t *unscaled, const char *nulls)
{
    silt_error err = SILT_ERROR_INIT;
    col_builder *b;
    col_vec *v;
    int64_t idx;
    check_ok(col_builder_new(&b, a, col_type_decimal(a, p, s), &err), &err);
    for (idx = 0; idx < n; idx++) {
        if (nulls != NULL && nulls[idx] == 'n')
            check_ok(col_builder_append_null(b, &err), &err);
        else
            check_ok(col_builder_append_decimal(b, unscaled[idx], &err), &err);
    }
    check_ok(col_builder_finish(b, &v, &err), &err);
    return v;
}

/* Strings; a NULL pointer is a NULL row. */
static inline col_vec *mk_strs(arena *a, int64_t n, const char *const *vals)
{
    silt_error err = SILT_ERROR_INIT;
    col_builder *b;
    col_vec *v;
    int64_t idx;
    check_ok(col_builder_new(&b, a, col_type_primitive(COL_STRING), &err), &err);
    for (idx = 0; idx < n; idx++) {
        if (vals[idx] == NULL)
            check_ok(col_builder_append_null(b, &err), &err);
        else
            check_ok(col_builder_append_bytes(b, vals[idx], strlen(vals[idx]), &err), &err);
    }
    check_ok(col_builder_finish(b, &v, &err), &err);
    return v;
}

/* A batch of the given columns, named c0, c1, ... */
static inline col_batch *mk_batch(arena *a, size_t n_cols, col_vec **cols)
{
    col_batch *batch = arena_calloc(a, 1, sizeof(*batch));
    col_field *fields = arena_calloc(a, n_cols ? n_cols : 1, sizeof(col_field));
    size_t idx;
    for (idx = 0; idx < n_cols; idx++) {
        fields[idx].name = arena_sprintf(a, "c%zu", idx);
        fields[idx].type = cols[idx]->type;
        fields[idx].nullable = 1;
        fields[idx].field_id = -1;
    }
    batch->schema = col_type_struct(a, n_cols, fields);
    batch->n_cols = n_cols;
    batch->n_rows = n_cols ? cols[0]->length : 0;
    batch->cols = arena_calloc(a, n_cols ? n_cols : 1, sizeof(col_vec *));
    for (idx = 0; idx < n_cols; idx++)
        batch->cols[idx] = cols[idx];
    return batch;
}

/* Appends one value as text (NULL for nulls). */
static inline void value_text(buf *out, const col_vec *v, int64_t row)
{
    char tmp[128];
    if (!vec_is_valid(v, row)) {
        buf_append_str(out, "NULL", NULL);
        return;
    }
    switch (v->type->id) {
    case COL_BOOLEAN: buf_append_str(out, vec_get_int(v, row) ? "true" : "false", NULL); break;
    case COL_FLOAT:
    case COL_DOUBLE: buf_printf(out, NULL, "%g", vec_get_double(v, row)); break;
    case COL_DECIMAL:
        engine_dec_format(vec_get_dec(v, row), v->type->scale, tmp, sizeof(tmp));
        buf_append_str(out, tmp, NULL);
        break;
    case COL_STRING:
    case COL_BINARY: {
        int32_t len;
        const char *s = col_vec_str(v, row, &len);
        buf_append(out, s, (size_t)len, NULL);
        break;
    }
    case COL_DATE:
        time_format_date((int32_t)vec_get_int(v, row), tmp, sizeof(tmp));
        buf_append_str(out, tmp, NULL);
        break;
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        time_format_timestamp_spark(vec_get_int(v, row), tmp, sizeof(tmp));
        buf_append_str(out, tmp, NULL);
        break;
    case COL_ARRAY: {
        int32_t e;
        buf_append_char(out, '[', NULL);
        for (e = v->offsets[row]; e < v->offsets[row + 1]; e++) {
            if (e > v->offsets[row])
                buf_append_char(out, ' ', NULL);
            value_text(out, v->children[0], e);
        }
        buf_append_char(out, ']', NULL);
        break;
    }
    default: buf_printf(out, NULL, "%lld", (long long)vec_get_int(v, row)); break;
    }
}

/* Column as "a,b,c" text in arena a. */
static inline const char *vec_text(arena *a, const col_vec *v)
{
    buf b = BUF_INIT;
    int64_t row;
    char *s;
    for (row = 0; row < v->length; row++) {
        if (row > 0)
            buf_append_char(&b, ',', NULL);
        value_text(&b, v, row);
    }
    s = arena_strdup(a, buf_cstr(&b));
    buf_clear(&b);
    return s;
}

/* Evaluates e over all rows of batch and returns the result as text. */
static inline const char *eval_text(engine_ctx *ctx, const expr *e, const col_batch *batch)
{
    silt_error err = SILT_ERROR_INIT;
    col_vec *out;
    check_ok(expr_eval(e, ctx, batch, NULL, batch->n_rows, ctx->query_arena, &out, &err), &err);
    check_int(batch->n_rows, out->length);
    return vec_text(ctx->query_arena, out);
}

/* Batch rows as "a|b;c|d" text. */
static inline const char *batch_text(arena *a, const col_batch *batch)
{
    buf b = BUF_INIT;
    int64_t row;
    size_t col;
    char *s;
    for (row = 0; row < batch->n_rows; row++) {
        if (row > 0)
            buf_append_char(&b, ';', NULL);
        for (col = 0; col < batch->n_cols; col++) {
            if (col > 0)
                buf_append_char(&b, '|', NULL);
            value_text(&b, batch->cols[col], row);
        }
    }
    s = arena_strdup(a, buf_cstr(&b));
    buf_clear(&b);
    return s;
}

#endif
