/*
 * text_spec.c - chunks converted during inference, kept for the read pass
 * of the CSV and JSON scans (see text_spec.h).
 */
#include "formats/text/text_spec.h"

#include "util/arena.h"

#include <string.h>

#include "util/mem.h"

silt_status text_spec_converted(silt_status rc, int *converted, text_batch_list *batches,
                                silt_error *err)
{
    *converted = rc == SILT_OK;
    if (rc != SILT_OK)
        text_batch_list_clear(batches);
    return rc == SILT_NOMEM ? err_nomem(err) : SILT_OK;
}

int text_spec_has_room(const text_spec *sp, size_t budget_bytes)
{
    return sp->held_bytes < budget_bytes;
}

void text_spec_mark_partial(text_spec *sp) { sp->partial = 1; }

silt_status text_spec_keep(text_spec *sp, const text_chunk *chunk, int converted, arena **a,
                           const col_type *schema, text_batch_list *batches, silt_error *err)
{
    text_spec_chunk *c;
    if (!converted) {
        sp->partial = 1;
        return SILT_OK;
    }
    if (sp->n == sp->cap) {
        size_t cap = sp->cap ? sp->cap * 2 : 64;
        text_spec_chunk *grown = mem_realloc(sp->items, cap * sizeof(text_spec_chunk));
        if (grown == NULL)
            return err_nomem(err);
        sp->items = grown;
        sp->cap = cap;
    }
    c = &sp->items[sp->n++];
    c->key_idx = chunk->obj->key_idx;
    c->start = chunk->obj->offset + (int64_t)chunk->start;
    c->end = chunk->obj->offset + (int64_t)chunk->end;
    c->kept = 1;
    c->a = *a;
    c->schema = schema;
    c->batches = *batches;
    *a = NULL;
    memset(batches, 0, sizeof(*batches));
    /* The budget is the memory the rows hold, not their text: a read of a few of many
     * columns (CSV column pruning) keeps far less than it parsed. */
    sp->held_bytes += c->a != NULL ? arena_bytes_used(c->a) : 0;
    for (size_t idx = 0; idx < c->batches.n; idx++)
        sp->held_bytes += c->batches.items[idx].a != NULL ? arena_bytes_used(c->batches.items[idx].a) : 0;
    (void)chunk;
    return SILT_OK;
}

static void drop_chunk(text_spec_chunk *c)
{
    text_batch_list_clear(&c->batches);
    arena_free(c->a);
    c->a = NULL;
    c->kept = 0;
}

/* The batches were converted under an equal schema: they take the final one's name. */
static void relabel(text_batch_list *l, const col_type *schema)
{
    for (size_t idx = 0; idx < l->n; idx++)
        l->items[idx].batch.schema = schema;
}

/* Leaves r with no objects to read, as it was set up otherwise. */
static void empty_reader(text_reader *r)
{
    text_reader keep = *r;
    text_reader_clear(r);
    text_reader_init(r, keep.store, keep.keys, 0, keep.what, keep.split, keep.split_payload,
                     keep.window_bytes);
}

silt_status text_spec_settle(text_spec *sp, const col_type *schema, text_batch_queue *q,
                             text_reader *r, silt_error *err)
{
    int all_kept = !sp->partial;
    for (size_t idx = 0; idx < sp->n; idx++) {
        if (sp->items[idx].kept && !col_type_equal(sp->items[idx].schema, schema))
            drop_chunk(&sp->items[idx]);
        all_kept = all_kept && sp->items[idx].kept;
    }
    if (!all_kept)
        return SILT_OK;
    for (size_t idx = 0; idx < sp->n; idx++) {
        text_spec_chunk *c = &sp->items[idx];
        relabel(&c->batches, schema);
        SILT_RETURN_IF_ERROR(text_batch_queue_append(q, &c->batches, err));
        text_batch_list_clear(&c->batches);
        c->kept = 0; /* c->a stays: the batches' vectors point into it */
    }
    sp->next = sp->n;
    empty_reader(r);
    return SILT_OK;
}

int text_spec_take(text_spec *sp, const text_chunk *chunk, const col_type *schema,
                   text_batch_list *out)
{
    text_spec_chunk *c;
    if (sp->next >= sp->n)
        return 0;
    c = &sp->items[sp->next];
    if (c->key_idx != chunk->obj->key_idx ||
        c->start != chunk->obj->offset + (int64_t)chunk->start ||
        c->end != chunk->obj->offset + (int64_t)chunk->end)
        return 0;
    sp->next++;
    if (!c->kept)
        return 0;
    relabel(&c->batches, schema);
    *out = c->batches;
    memset(&c->batches, 0, sizeof(c->batches));
    c->kept = 0; /* c->a stays until text_spec_clear, as in text_spec_settle */
    return 1;
}

void text_spec_clear(text_spec *sp)
{
    for (size_t idx = 0; idx < sp->n; idx++)
        drop_chunk(&sp->items[idx]);
    mem_free(sp->items);
    memset(sp, 0, sizeof(*sp));
}
