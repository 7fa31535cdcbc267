/*
 * text_spec.h - one pass for the CSV and JSON scans: rows converted while
 * inferring the schema, kept for the read pass.
 *
 * Both scans infer over all records before they read any (as Spark does).
 * While inferring, a chunk may also convert its records under the schema
 * inferred from that chunk alone (how is each scan's business: csv_scan.c
 * and json_scan.c, "one pass"). This module holds those converted chunks
 * in reader order and decides what becomes of them once the final schema
 * is known: a chunk converted under an equal schema has exactly the rows
 * the read pass would give, any other is dropped and parsed again.
 *
 * A chunk is identified by its object and byte range, which the read
 * pass's windows reproduce exactly. Each kept chunk owns the arena of its
 * schema; its batches' nested vector types point into it, so the arena
 * lives until text_spec_clear, after the batches were handed out.
 */
#ifndef SILT_FORMATS_TEXT_SPEC_H
#define SILT_FORMATS_TEXT_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "formats/columnar.h"
#include "formats/text/text_batch.h"
#include "formats/text/text_source.h"
#include "util/arena.h"
#include "util/error.h"

/* A chunk converted during inference: its place in the input and its rows. */
typedef struct text_spec_chunk {
    size_t key_idx;
    int64_t start, end; /* byte range in the object */
    int kept;           /* converted under the final schema (so far) */
    arena *a;           /* owns schema */
    const col_type *schema;
    text_batch_list batches;
} text_spec_chunk;

/* The converted chunks of one scan, in reader order. Zero-initialised is empty. */
typedef struct text_spec {
    text_spec_chunk *items;
    size_t n, cap;
    size_t next;       /* read pass: the first chunk not yet matched */
    size_t held_bytes; /* memory of the rows held (their arenas) */
    int partial;       /* some text was inferred without being converted */
} text_spec;

/*
 * Ends the conversion of a chunk during inference, whose result is rc:
 * SILT_OK, the batches are the chunk's rows (*converted = 1); otherwise
 * they are dropped and only SILT_NOMEM is returned (in err): a malformed
 * record is reported by the read pass, where it always was.
 */
silt_status text_spec_converted(silt_status rc, int *converted, text_batch_list *batches,
                                silt_error *err);

/* 1 while the rows held take less than budget_bytes of memory. */
int text_spec_has_room(const text_spec *sp, size_t budget_bytes);

/*
 * Records a chunk of an inference round, in reader order. Converted, the
 * chunk's schema arena (*a, set to NULL) and batches (emptied) move into
 * sp; not converted, sp only notes that some text must be read again.
 */
silt_status text_spec_keep(text_spec *sp, const text_chunk *chunk, int converted, arena **a,
                           const col_type *schema, text_batch_list *batches, silt_error *err);

/* Notes that some text was not converted (inference skipped it). */
void text_spec_mark_partial(text_spec *sp);

/*
 * With the final schema known, drops the rows converted under another
 * one. When all the text was converted under it (nothing partial), all
 * rows go to q now, relabelled with schema, and reader r (the scan's,
 * rewound after inference) is emptied: the read pass has nothing left to
 * parse, and the text is not read a second time (that read was 60% of a
 * JSON ingest's page faults).
 */
silt_status text_spec_settle(text_spec *sp, const col_type *schema, text_batch_queue *q,
                             text_reader *r, silt_error *err);

/*
 * Read pass, chunks in reader order: when the chunk is the next one
 * inference converted under the final schema, moves its rows (relabelled
 * with schema) into *out and returns 1; otherwise returns 0 and the caller
 * parses the chunk.
 */
int text_spec_take(text_spec *sp, const text_chunk *chunk, const col_type *schema,
                   text_batch_list *out);

/* Frees every chunk held, their arenas and the list. */
void text_spec_clear(text_spec *sp);

#endif
