/*
 * eval_int.h - what the function registry's files (eval_func.c,
 * eval_time.c, eval_random.c, eval_scalar.c) share: the kernel signature
 * and the loop over a call's live rows. Internal to engine/.
 */
#ifndef SILT_ENGINE_EVAL_INT_H
#define SILT_ENGINE_EVAL_INT_H

#include "engine/expr.h"

/* Runs the body once for each live row, with r the row (sel and n_sel in scope). */
#define LIVE_LOOP(...)                                                                             \
    for (int64_t k_ = 0; k_ < n_sel; k_++) {                                                       \
        const int64_t r = ENGINE_ROW(sel, k_);                                                     \
        __VA_ARGS__                                                                                \
    }

/* The parameters of an expr_func_eval_fn, and passing them on. */
#define FN_ARGS                                                                                    \
    const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel, int64_t n_sel,             \
        int64_t n_rows, arena *a, col_vec **out, silt_error *err
#define FN_PASS e, ctx, args, sel, n_sel, n_rows, a, out, err

/* Murmur3 x86_32 of a long as two little-endian words, low first (Spark's hashLong; eval_func.c). */
uint32_t expr_murmur3_long(uint64_t v, uint32_t seed);

/* The function tables of the registry's files (looked up by expr_func_lookup in eval_func.c). */
extern const expr_func_def engine_time_funcs[];
extern const size_t engine_n_time_funcs;
extern const expr_func_def engine_random_funcs[];
extern const size_t engine_n_random_funcs;
extern const expr_func_def engine_scalar_funcs[];
extern const size_t engine_n_scalar_funcs;
extern const expr_func_def engine_codec_funcs[];
extern const size_t engine_n_codec_funcs;
extern const expr_func_def engine_text_funcs[];
extern const size_t engine_n_text_funcs;
extern const expr_func_def engine_cond_funcs[];
extern const size_t engine_n_cond_funcs;
extern const expr_func_def engine_array_funcs[];
extern const size_t engine_n_array_funcs;
/* The codec, text and cond tables by name (eval_cond.c); NULL if none has it. */
const expr_func_def *expr_func_lookup_more(const char *name);

#endif
