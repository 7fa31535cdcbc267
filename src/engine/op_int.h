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
silt_status engine_make_schema(const col_type **out, arena *a, const char *const *names,
                               const col_type *const *types, size_t n, silt_error *err);

/*
 * Sorts idx[0..n) (row numbers of cols) by the keys, stably; scratch
 * memory comes from a.
 */
silt_status engine_sort_indices(const engine_sort_key *keys, size_t n_keys, col_vec **cols,
                                int64_t *idx, int64_t n, arena *a, silt_error *err);

/* Charges bytes to the query for this operator; released by engine_op_close. */
silt_status engine_op_charge(engine_op *op, int64_t bytes, const char *what, silt_error *err);

#endif
