/*
 * op_int.h - helpers shared by the operator implementations (not for other
 * layers).
 */
#ifndef SILT_ENGINE_OP_INT_H
#define SILT_ENGINE_OP_INT_H

#include "engine/op.h"

silt_status engine_op_new_internal(engine_op **out, engine_ctx *ctx, const engine_op_vtable *vt,
                                   const col_type *schema, size_t state_size, engine_op **children,
                                   size_t n_children, silt_error *err);
silt_status engine_chunk_new(engine_chunk **out, engine_op *op, size_t n_cols, int64_t n_rows,
                             silt_error *err);
/* Rows [*next_row, ...) of a held result as the next chunk (op.c); NULL at the end. */
silt_status engine_chunk_of_rows(engine_op *op, col_vec *const *cols, size_t n_cols,
                                 int64_t n_rows, int64_t *next_row, engine_chunk **out,
                                 silt_error *err);
silt_status engine_make_schema(const col_type **out, arena *a, const char *const *names,
                               const col_type *const *types, size_t n, silt_error *err);

/*
 * Sorts idx[0..n) (row numbers of cols) by the keys, stably; scratch
 * memory comes from a.
 */
silt_status engine_sort_indices(const engine_sort_key *keys, size_t n_keys, col_vec **cols,
                                int64_t *idx, int64_t n, arena *a, silt_error *err);

/*
 * Compares row x of columns xc with row y of columns yc by the sort keys
 * (direction and null placement applied): <0, 0, >0.
 */
int engine_compare_keys(const engine_sort_key *keys, size_t n_keys, col_vec *const *xc,
                        int64_t x, col_vec *const *yc, int64_t y);

/*
 * Follows column *col of op down through projections (plain column
 * references) and filters to the operator that computes it, updating *col
 * (a projection when the column is computed there); NULL when out of range.
 */
engine_op *engine_op_column_origin(engine_op *op, int64_t *col);

/* Charges bytes to the query for this operator; released by engine_op_close. */
silt_status engine_op_charge(engine_op *op, int64_t bytes, const char *what, silt_error *err);

/* ---- parallel pipelines (op_pipeline.c) --------------------------------------- */

/* The morsels of a scan (engine_op_scan_set_morsels); 0 when it has none. */
int engine_op_scan_morsels(const engine_op *op, engine_morsel_fn *fn, void **payload,
                           size_t *n_morsels);
/* Whether op is a filter or a projection, which engine_op_clone_row_op copies. */
int engine_op_is_row_op(const engine_op *op);
silt_status engine_op_clone_row_op(engine_op **out, engine_ctx *ctx, const engine_op *op,
                                   engine_op *child, silt_error *err);
/* Whether op is a hash join that only probes (inner, left, semi, anti): its probe side can be split. */
int engine_join_probe_only(const engine_op *op);
/* Drains the build side of join now (on the caller), once. */
silt_status engine_join_build_shared(engine_op *join, silt_error *err);
/* Whether a built join's build side went to disk (its probe then cannot be cloned). */
int engine_join_spilled(const engine_op *join);
/* A join over left probing the build table of join (built), which it only reads. */
silt_status engine_join_clone_probe(engine_op **out, engine_ctx *ctx, engine_op *join,
                                    engine_op *left, silt_error *err);
/* A window operator over child with the parameters and the rank limit of win. */
silt_status engine_window_clone(engine_op **out, engine_ctx *ctx, const engine_op *win,
                                engine_op *child, silt_error *err);
/*
 * Runs the input of window op win (limited) on every worker when it can; 1
 * when done. A window input pipeline below win (engine_op_window_input)
 * becomes one that ends in the limited window.
 */
int engine_window_parallel_input(engine_op *win);

/*
 * A window's input over top's chain (engine_chain_parallel): every worker
 * runs its copy of the chain and keeps the rows, and the values of extras
 * (the window functions' arguments; NULL entries: none) after the chain's
 * columns (hook, if any, runs on every chunk kept). The window takes them
 * with engine_pipeline_collect; only rows the
 * workers left (when they stopped at the budget) come out of engine_op_next.
 */
/*
 * Called by a worker of a window input for every chunk it keeps, with the
 * chunk's columns and its live rows (sel, NULL: all; n of them; a
 * dictionary is still there, where the kept copy may have lost it): what
 * it stores in *note (allocated from a, the worker's) comes back with the
 * chunk.
 */
typedef silt_status (*engine_collect_hook)(void *arg, col_vec *const *cols, const int32_t *sel,
                                           int64_t n, arena *a, void **note, silt_error *err);
silt_status engine_op_window_input(engine_op **out, engine_ctx *ctx, engine_op *top,
                                   expr *const *extras, size_t n_extras, engine_collect_hook hook,
                                   void *hook_arg, silt_error *err);
/* Whether op is a window input made by engine_op_window_input (not turned into a limited one). */
int engine_pipeline_is_collect(const engine_op *op);

/* What the workers of a window input kept. */
typedef struct engine_collected {
    size_t width;
    /*
     * accs[w][col]: worker w's columns (the chain's, then the extras'); part
     * k of every column that has parts is the worker's k-th chunk, taken from
     * morsel tags[w][k]; n_tags[w] chunks.
     */
    vec_accum **accs;
    const int64_t *const *tags;
    void *const *const *notes; /* notes[w][k]: the hook's note of that chunk */
    const size_t *n_tags;
    int stopped; /* the budget was reached: rows are left for engine_op_next */
    int64_t bytes; /* held by the accumulators */
} engine_collected;

/*
 * Runs the workers of window input op until the chain ends or the
 * accumulators hold more than budget bytes together (0: no budget).
 */
silt_status engine_pipeline_collect(engine_op *op, int64_t budget, engine_collected *out,
                                    silt_error *err);
/* Frees the rows engine_pipeline_collect kept, once the window holds its own copy. */
void engine_pipeline_release_rows(engine_op *op);

#endif
