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

/* ---- external sort (sort_spill.c) ---- */

typedef struct sort_spill sort_spill;
/* State in op's arena; keys must outlive it. */
silt_status engine_sort_spill_new(sort_spill **out, engine_op *op, const engine_sort_key *keys,
                           size_t n_keys, silt_error *err);
/* Writes n_rows sorted rows (columns of op's schema) as the next run. */
silt_status engine_sort_spill_add_run(sort_spill *sp, col_vec **cols, int64_t n_rows, silt_error *err);
size_t engine_sort_spill_runs(const sort_spill *sp);
/* After the last run: prepares the merge (merging passes when runs are many). */
silt_status engine_sort_spill_merge_open(sort_spill *sp, int64_t offset, silt_error *err);
/* The next merged chunk in op's batch arena; NULL at the end. */
silt_status engine_sort_spill_next(sort_spill *sp, engine_chunk **out, silt_error *err);

/* ---- grace hash join (join_spill.c) ---- */

typedef struct join_spill join_spill;
/*
 * Partition files for op (a hash join) at a recursion level; the keys and
 * the condition are the join's (coerced) ones.
 */
silt_status engine_join_spill_new(join_spill **out, engine_op *op, int level, engine_join_type type,
                           expr **lkeys, expr **rkeys, size_t n_keys, const expr *cond,
                           silt_error *err);
/* Writes build (right) rows to their partitions. */
silt_status engine_join_spill_add_build(join_spill *js, const col_batch *b, const int32_t *sel,
                                 int64_t n_sel, silt_error *err);
/* Partitions the left side on the first call, then joins partition pairs in turn. */
silt_status engine_join_spill_next(join_spill *js, engine_chunk **out, silt_error *err);
/* Closes the partition join in progress (the files go with the operator's arena). */
void engine_join_spill_close(join_spill *js);
/* Sets the recursion level of a hash join made by engine_op_hash_join (op_join.c). */
void engine_join_set_spill_level(engine_op *join, int level);

/* ---- partitioned aggregation (agg_spill.c) ---- */

typedef struct agg_spill agg_spill;
/* Partition files for op (a hash aggregate without grouping sets) at a level. */
silt_status engine_agg_spill_new(agg_spill **out, engine_op *op, int level, expr **keys, size_t n_keys,
                          const engine_agg *aggs, size_t n_aggs, silt_error *err);
/* Writes rows[0..n) of a child batch to the partitions of their keys (key_vals). */
silt_status engine_agg_spill_write(agg_spill *as, const col_batch *b, const int32_t *rows, int64_t n,
                            col_vec **key_vals, silt_error *err);
/* After the in-memory groups: the groups of each partition in turn; NULL at the end. */
silt_status engine_agg_spill_next(agg_spill *as, engine_chunk **out, silt_error *err);
void engine_agg_spill_close(agg_spill *as);
/* Sets the recursion level of a hash aggregate made by engine_op_hash_agg (op_agg.c). */
void engine_agg_set_spill_level(engine_op *agg, int level);

/* ---- block nested loop for joins without keys (cross_spill.c) ---- */

typedef struct cross_spill cross_spill;
/* Whether a join of this type and key count can run as a block nested loop (CROSS, INNER). */
int engine_cross_spill_supported(engine_join_type type, size_t n_keys);
/* Build and probe files for op (a join without keys). */
silt_status engine_cross_spill_new(cross_spill **out, engine_op *op, engine_join_type type,
                            const expr *cond, silt_error *err);
/* Writes build (right) rows to the build file; scratch takes temporary copies. */
silt_status engine_cross_spill_add_build(cross_spill *cs, const col_batch *b, const int32_t *sel,
                                  int64_t n_sel, arena *scratch, silt_error *err);
/* Writes the left side to its file on the first call, then joins block after block. */
silt_status engine_cross_spill_next(cross_spill *cs, engine_chunk **out, silt_error *err);
void engine_cross_spill_close(cross_spill *cs);

/* ---- partitioned window (window_spill.c) ---- */

typedef struct win_spill win_spill;
/* Partition files for op (a window with PARTITION BY part_cols) at a recursion level. */
silt_status engine_win_spill_new(win_spill **out, engine_op *op, int level, const int64_t *part_cols,
                          size_t n_part, silt_error *err);
/* Writes child rows (sel NULL = the first n_sel) to the partitions of their keys. */
silt_status engine_win_spill_write(win_spill *ws, const col_batch *b, const int32_t *sel, int64_t n_sel,
                            silt_error *err);
/* After the last write: the window's rows of each partition file in turn; NULL at the end. */
silt_status engine_win_spill_next(win_spill *ws, engine_chunk **out, silt_error *err);
void engine_win_spill_close(win_spill *ws);
/* Sets the recursion level of a window made by engine_op_window (op_window.c). */
void engine_window_set_spill_level(engine_op *win, int level);

#endif
