/*
 * text_batch.c - per-chunk batch lists and the queue of parsed batches
 * shared by the CSV and JSON scans (see text_batch.h).
 */
#include "formats/text/text_batch.h"

#include <string.h>

#include "util/mem.h"

silt_status text_batch_list_add(text_batch_list *l, const char *arena_name, text_batch **out,
                                silt_error *err)
{
    text_batch *tb;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        text_batch *grown = mem_realloc(l->items, cap * sizeof(text_batch));
        if (grown == NULL)
            return err_nomem(err);
        l->items = grown;
        l->cap = cap;
    }
    tb = &l->items[l->n];
    memset(tb, 0, sizeof(*tb));
    tb->a = arena_new(NULL, arena_name);
    if (tb->a == NULL)
        return err_nomem(err);
    l->n++;
    *out = tb;
    return SILT_OK;
}

void text_batch_list_drop_last(text_batch_list *l)
{
    arena_free(l->items[l->n - 1].a);
    l->n--;
}

void text_batch_list_clear(text_batch_list *l)
{
    for (size_t idx = 0; idx < l->n; idx++)
        arena_free(l->items[idx].a);
    mem_free(l->items);
    memset(l, 0, sizeof(*l));
}

silt_status text_batch_queue_append(text_batch_queue *q, text_batch_list *l, silt_error *err)
{
    for (size_t idx = 0; idx < l->n; idx++) {
        if (q->len == q->cap) {
            size_t cap = q->cap ? q->cap * 2 : 16;
            text_batch *grown = mem_realloc(q->items, cap * sizeof(text_batch));
            if (grown == NULL)
                return err_nomem(err);
            q->items = grown;
            q->cap = cap;
        }
        q->items[q->len++] = l->items[idx];
        l->items[idx].a = NULL;
    }
    return SILT_OK;
}

/* Parses the next round of chunks into the (empty) queue; sets *eof at the end. */
static silt_status fill(text_batch_queue *q, text_reader *r, size_t round_chunks,
                        text_round_fn round, void *payload, int *eof, silt_error *err)
{
    text_chunk chunks[256];
    size_t max = round_chunks, n = 0;
    silt_status rc;
    *eof = 0;
    if (max > 256)
        max = 256;
    SILT_RETURN_IF_ERROR(text_reader_take(r, max, chunks, &n, err));
    if (n == 0) {
        *eof = 1;
        return SILT_OK;
    }
    q->len = q->pos = 0;
    rc = round(payload, chunks, n, q, err);
    text_reader_release(r);
    return rc;
}

static void free_arena_cb(void *payload) { arena_free(payload); }

silt_status text_batch_queue_next(text_batch_queue *q, text_reader *r, size_t round_chunks,
                                  text_round_fn round, void *payload, const col_type *schema,
                                  arena *a, col_batch *out, silt_error *err)
{
    memset(out, 0, sizeof(*out));
    out->schema = schema;
    out->n_cols = schema->n_fields;
    while (q->pos >= q->len) {
        int eof = 0;
        SILT_RETURN_IF_ERROR(fill(q, r, round_chunks, round, payload, &eof, err));
        if (eof)
            return SILT_OK;
    }
    text_batch *tb = &q->items[q->pos];
    if (!arena_on_cleanup(a, free_arena_cb, tb->a))
        return err_nomem(err);
    *out = tb->batch;
    q->last_key_idx = tb->key_idx;
    tb->a = NULL;
    q->pos++;
    return SILT_OK;
}

void text_batch_queue_clear(text_batch_queue *q)
{
    for (size_t idx = q->pos; idx < q->len; idx++)
        arena_free(q->items[idx].a);
    mem_free(q->items);
    memset(q, 0, sizeof(*q));
}
