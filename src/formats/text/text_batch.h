/*
 * text_batch.h - batches parsed by the CSV and JSON scans, from the chunk
 * that writes them to the caller that takes them.
 *
 * Every batch lives in its own arena, so a batch handed out is freed with
 * the caller's arena (see text_batch_queue_next) and a batch never handed
 * out is freed with its list or queue.
 */
#ifndef SILT_FORMATS_TEXT_BATCH_H
#define SILT_FORMATS_TEXT_BATCH_H

#include <stddef.h>

#include "formats/columnar.h"
#include "formats/text/text_source.h"
#include "util/arena.h"
#include "util/error.h"

typedef struct text_batch {
    col_batch batch;
    arena *a; /* owns the batch; NULL once handed on */
    size_t key_idx; /* the object its rows come from (a batch never spans two) */
} text_batch;

/* The batches one chunk writes, in order. Zero-initialised is empty. */
typedef struct text_batch_list {
    text_batch *items;
    size_t n, cap;
} text_batch_list;

/*
 * Appends a zeroed batch with a fresh arena called arena_name and points
 * *out at it (valid until the next add).
 */
silt_status text_batch_list_add(text_batch_list *l, const char *arena_name, text_batch **out,
                                silt_error *err);
/* Frees the last batch (one that got no rows). */
void text_batch_list_drop_last(text_batch_list *l);
/* Frees every batch still owned and the list. */
void text_batch_list_clear(text_batch_list *l);

/* Batches parsed and not yet handed out. Zero-initialised is empty. */
typedef struct text_batch_queue {
    text_batch *items;
    size_t len, pos, cap;
    size_t last_key_idx; /* key_idx of the batch handed out last */
} text_batch_queue;

/* Moves the batches of a list to the end of the queue (the list keeps none it moved). */
silt_status text_batch_queue_append(text_batch_queue *q, text_batch_list *l, silt_error *err);

/* Parses a round of chunks, appending their batches in order to q. */
typedef silt_status (*text_round_fn)(void *payload, const text_chunk *chunks, size_t n,
                                     text_batch_queue *q, silt_error *err);

/*
 * Hands out the next batch. While the queue is empty it takes up to
 * round_chunks chunks (at most 256) from the reader and parses them with
 * round; at the end *out is an empty batch of the schema. The batch's
 * arena is freed with arena a.
 */
silt_status text_batch_queue_next(text_batch_queue *q, text_reader *r, size_t round_chunks,
                                  text_round_fn round, void *payload, const col_type *schema,
                                  arena *a, col_batch *out, silt_error *err);
/* Frees the batches not handed out and the queue. */
void text_batch_queue_clear(text_batch_queue *q);

#endif
