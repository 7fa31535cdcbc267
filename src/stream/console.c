/*
 * console.c - Spark's console sink: every batch as
 *
 *   -------------------------------------------
 *   Batch: N
 *   -------------------------------------------
 *   <show() of the batch: numRows 20, truncate 20>
 *
 * and a bound source that counts the rows it hands out.
 */
#include <stdio.h>
#include <string.h>

#include "formats/text.h"
#include "stream/stream_int.h"

/* The event times of a batch's column (Spark's EventTimeStats: max, min, avg; nulls skipped). */
static void observe(stream_evtime *ev, const col_vec *v, int64_t n_rows)
{
    const int64_t *vals = v->values;
    int64_t row;
    if (v->dictionary != NULL || vals == NULL)
        return;
    for (row = 0; row < n_rows && row < v->length; row++) {
        if (col_vec_is_null(v, row))
            continue;
        if (!ev->seen || vals[row] > ev->max_us)
            ev->max_us = vals[row];
        if (!ev->seen || vals[row] < ev->min_us)
            ev->min_us = vals[row];
        ev->sum_ms += (double)(vals[row] / 1000);
        ev->count++;
        ev->seen = 1;
    }
}

silt_status stream_counted_next(void *payload, arena *batch_arena, col_batch **out,
                                silt_error *err)
{
    stream_counted *c = payload;
    SILT_RETURN_IF_ERROR(c->fn(c->payload, batch_arena, out, err));
    if (*out != NULL)
        c->rows += (*out)->n_rows;
    if (*out != NULL && c->ev != NULL && c->ev->col >= 0 && (size_t)c->ev->col < (*out)->n_cols)
        observe(c->ev, (*out)->cols[c->ev->col], (*out)->n_rows);
    return SILT_OK;
}

static void to_stdout(const char *text, size_t len)
{
    fwrite(text, 1, len, stdout);
    fflush(stdout);
}

silt_status stream_console_batch(sql_result *res, int64_t batch_id, int64_t max_rows,
                                 stream_text_fn out, void *payload, silt_error *err)
{
    text_table *t = NULL;
    buf b;
    col_batch *batch;
    silt_status rc;
    buf_init(&b, 0);
    rc = buf_printf(&b, err, "-------------------------------------------\nBatch: %lld\n"
                    "-------------------------------------------\n", (long long)batch_id);
    if (rc == SILT_OK)
        rc = text_table_new(&t, sql_result_schema(res), max_rows, 20, err);
    if (rc == SILT_OK)
        text_table_set_zone(t, sql_result_zone(res));
    while (rc == SILT_OK) {
        rc = sql_result_next(res, &batch, err);
        if (rc != SILT_OK || batch == NULL)
            break;
        rc = text_table_add_batch(t, batch, err);
    }
    if (rc == SILT_OK)
        rc = text_table_finish(t, &b, err);
    if (rc == SILT_OK && buf_append_char(&b, '\n', err) == SILT_OK) {
        if (out != NULL)
            out(payload, b.data, b.len);
        else
            to_stdout(b.data, b.len);
    }
    text_table_free(t);
    buf_clear(&b);
    return rc;
}
