/*
 * spill_int.h - the hooks by which sort, join and aggregation spill to disk
 * (sort_spill.c, join_spill.c, agg_spill.c). Not for other layers.
 *
 * Each operator keeps its in-memory path unchanged and calls into these
 * files only when engine_mem_room (spill.h) says its state no longer fits.
 */
#ifndef SILT_ENGINE_SPILL_INT_H
#define SILT_ENGINE_SPILL_INT_H

#include "engine/op_int.h"
#include "engine/spill.h"

/* Compares row x of columns xc with row y of columns yc by sort keys (op_sort.c). */
int engine_sort_compare(const engine_sort_key *keys, size_t n_keys, col_vec *const *xc,
                        int64_t x, col_vec *const *yc, int64_t y);

/* ---- external sort (sort_spill.c) ---- */

typedef struct sort_spill sort_spill;
/* State in op's arena; keys must outlive it. */
silt_status sort_spill_new(sort_spill **out, engine_op *op, const engine_sort_key *keys,
                           size_t n_keys, silt_error *err);
/* Writes n_rows sorted rows (columns of op's schema) as the next run. */
silt_status sort_spill_add_run(sort_spill *sp, col_vec **cols, int64_t n_rows, silt_error *err);
size_t sort_spill_runs(const sort_spill *sp);
/* After the last run: prepares the merge (merging passes when runs are many). */
silt_status sort_spill_merge_open(sort_spill *sp, int64_t offset, silt_error *err);
/* The next merged chunk in op's batch arena; NULL at the end. */
silt_status sort_spill_next(sort_spill *sp, engine_chunk **out, silt_error *err);

#endif
