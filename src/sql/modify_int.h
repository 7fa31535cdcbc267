/*
 * modify_int.h - the pieces DELETE / UPDATE (exec_modify.c) and MERGE
 * (exec_merge_run.c) share: the target scan whose rows carry their
 * identity, the workers' own engine contexts, and putting new values back
 * at their rows (docs/dml.md).
 */
#ifndef SILT_SQL_MODIFY_INT_H
#define SILT_SQL_MODIFY_INT_H

#include "delta/snapshot.h"
#include "engine/engine.h"
#include "sql/binder_int.h"

/*
 * A scan of the given snapshot files (indexes into snap->files), one morsel per file: the
 * table's columns, then _row_index (the row's position in its data file, when row_index),
 * then _file (the file's index). Lives in b's arena.
 */
typedef struct sql_target_scan sql_target_scan;

silt_status sql_target_scan_new(binder *b, sql_target_scan **out, io_store *store,
                                const delta_snapshot *snap, const size_t *files, size_t n,
                                int row_index, silt_error *err);
const col_type *sql_target_scan_schema(const sql_target_scan *ts);
/* Deletion vectors only: skips the row groups and pages preds (a conjunction, borrowed)
 * refute; their rows stay in their files untouched. */
void sql_target_scan_set_preds(sql_target_scan *ts, const dpred *preds, size_t n);
/* The scan as an operator readable in morsels (one chain copy per worker). */
silt_status sql_target_scan_op(binder *b, sql_target_scan *ts, engine_op **out,
                               silt_error *err);

/*
 * Expressions a sink evaluates run on the workers: each gets a copy of the statement's
 * context with a root arena of its own (arenas are not thread-safe) and an equal share of
 * the memory the statement has left, as the engine's pipelines do.
 */
typedef struct sql_worker_ctxs {
    engine_ctx *ctx;
    arena **scratch; /* per worker: reset per batch */
    size_t width;
} sql_worker_ctxs;

silt_status sql_worker_ctxs_new(binder *b, size_t width, sql_worker_ctxs **out,
                                silt_error *err);

/*
 * Column old (n_rows) with the rows where match is set replaced, in order, by the rows of
 * upd: a patched copy (flat fixed-width) or a gather (any other type).
 */
silt_status sql_modify_patch_column(arena *a, const col_vec *old, const col_vec *upd,
                                    const uint8_t *match, int64_t n_rows, col_vec **out,
                                    silt_error *err);

#endif
