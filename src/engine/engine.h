/*
 * engine.h - the vectorized execution engine: query context, selection
 * vectors and the vector helpers shared by expressions and operators.
 *
 * Data flows as col_batch (formats/columnar.h) of at most ENGINE_BATCH_ROWS
 * rows, optionally with a selection vector: an ascending array of the row
 * indices that are live. Filters narrow the selection instead of copying;
 * operators that must keep rows (sort, join build, aggregation) compact them.
 *
 * Memory (STYLE.md, section 4): a query arena in engine_ctx owns plans and
 * long-lived state; each operator has its own child arena, and a per-batch
 * arena that is reset before the operator produces its next batch. A batch
 * returned by an operator is therefore valid until the next call on it.
 *
 * The engine knows nothing of SQL text or of the Delta log (DESIGN.md).
 */
#ifndef SILT_ENGINE_ENGINE_H
#define SILT_ENGINE_ENGINE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/columnar.h"
#include "util/arena.h"
#include "util/budget.h"
#include "util/error.h"
#include "util/thread.h"
#include "util/time_zone.h"

/* Rows per batch: small enough that a batch of a few columns stays in L2. */
#define ENGINE_BATCH_ROWS 2048

/*
 * Session flags and per-query state. ansi follows spark.sql.ansi.enabled,
 * which is on by default as in Spark 4: overflow, division by zero and
 * invalid casts are errors rather than NULL (docs/engine.md).
 */
typedef struct engine_ctx {
    arena *query_arena;   /* owns plans, expressions and operator arenas */
    int ansi;             /* 1 = ANSI mode (default) */
    int64_t now_micros;   /* current_timestamp(), fixed for the whole query */
    /*
     * spark.sql.session.timeZone: the zone of casts between TIMESTAMP and
     * strings or dates, of the date/time functions and of display (NULL =
     * UTC; zones live for the process, util/time_zone.h).
     */
    const time_zone *zone;
    tpool *pool;          /* may be NULL: everything runs on the caller */
    /*
     * Memory accounting for operators that grow with their input (hash
     * tables, sort buffers): they add what they keep to mem_used, which may
     * not pass mem_limit (0 = none; the statement's own cap, e.g. a pipeline
     * worker's share), and reserve the same bytes from budget (NULL = none),
     * the database's memory budget shared by every statement of every
     * connection. Operators that can spill do so when either gets short
     * (engine_mem_room); a charge neither can take fails with SILT_NOMEM.
     */
    int64_t mem_used;
    int64_t mem_limit;
    mem_budget *budget;
    /*
     * Spilling (spill.h): sort, join and aggregation write what does not fit
     * under mem_limit to files in temp_dir (NULL = $TMPDIR or /tmp), removed
     * when the operator closes. spilled_bytes counts what was written.
     */
    const char *temp_dir;
    int64_t spilled_bytes;
    int64_t spill_files;
    /*
     * EXPLAIN ANALYZE: operators count their output rows and the time
     * spent in their open and next (engine_op.stats); 0 = not counted.
     */
    int analyze;
    /*
     * Set to nonzero from another thread (or a signal handler) to stop the
     * query: operators check it at batch boundaries and in their long loops
     * (engine_check_interrupt) and fail with SILT_INTERRUPTED. Borrowed from
     * whoever runs the query (the SQL session); NULL = cannot be interrupted.
     * Copies of the context on the thread pool's workers share it.
     */
    const atomic_int *interrupt;
} engine_ctx;

/*
 * Sets defaults: ANSI on, now = wall clock, no pool, no memory limit of its
 * own, and the budget of query_arena's tree (arena_budget), if any.
 */
void engine_ctx_init(engine_ctx *ctx, arena *query_arena);

/* Spark's message of a cancelled operation (error class OPERATION_CANCELED, SQLSTATE HY008). */
#define ENGINE_INTERRUPTED_MESSAGE "[OPERATION_CANCELED] Operation has been canceled."

/* SILT_INTERRUPTED (with the message above) once the query's interrupt flag is set. */
silt_status engine_interrupted(const engine_ctx *ctx, silt_error *err);
static inline silt_status engine_check_interrupt(const engine_ctx *ctx, silt_error *err)
{
    if (ctx->interrupt == NULL || atomic_load_explicit(ctx->interrupt, memory_order_relaxed) == 0)
        return SILT_OK;
    return engine_interrupted(ctx, err);
}

/*
 * Adds bytes to the query's account and reserves them from its budget;
 * SILT_NOMEM when over the statement's limit or the budget's, and then
 * nothing is charged (the caller counts the bytes as its own only on
 * SILT_OK).
 */
silt_status engine_mem_charge(engine_ctx *ctx, int64_t bytes, const char *what, silt_error *err);
/* Gives back bytes charged before (when the memory is freed). */
void engine_mem_release(engine_ctx *ctx, int64_t bytes);
/* Bytes the query may still charge: the smaller of its own and its budget's room. */
int64_t engine_mem_free(const engine_ctx *ctx);
/* Formats a byte count the way memory_limit is written ("1.5 GiB", "512.0 KiB"). */
void engine_format_bytes(int64_t bytes, char *out, size_t cap);

/* ---- vector helpers (vec.c) ------------------------------------------- */

/* Row of the k-th live entry. */
#define ENGINE_ROW(sel, k) ((sel) != NULL ? (int64_t)(sel)[k] : (int64_t)(k))

/* A vector of n_rows rows with an all-valid bitmap, in arena a. */
silt_status vec_new(col_vec **out, arena *a, const col_type *type, int64_t n_rows,
                    silt_error *err);
/* Marks row null (the vector must have a validity bitmap). */
static inline void vec_set_null(col_vec *v, int64_t row)
{
    if (col_bit_get(v->validity, row)) {
        col_bit_clear(v->validity, row);
        v->null_count++;
    }
}
static inline int vec_is_valid(const col_vec *v, int64_t row)
{
    return v->validity == NULL || col_bit_get(v->validity, row);
}

/*
 * Appends strings in ascending row order into a STRING/BINARY vector made by
 * vec_new: rows skipped are empty. Finish with vec_str_end.
 */
typedef struct vec_str_writer {
    col_vec *v;
    arena *a;
    int64_t cap;
    int64_t used;
    int64_t next_row;
} vec_str_writer;
void vec_str_begin(vec_str_writer *w, col_vec *v, arena *a);
silt_status vec_str_put(vec_str_writer *w, int64_t row, const char *bytes, int64_t len,
                        silt_error *err);
/* Reserves len bytes for row and returns where to write them (then vec_str_commit). */
silt_status vec_str_reserve(vec_str_writer *w, int64_t len, char **out, silt_error *err);
silt_status vec_str_commit(vec_str_writer *w, int64_t row, int64_t len, silt_error *err);
void vec_str_end(vec_str_writer *w);

/* Value readers for the paths that are not hot loops. */
int64_t vec_get_int(const col_vec *v, int64_t row);       /* integral, date, timestamp, bool */
double vec_get_double(const col_vec *v, int64_t row);      /* FLOAT/DOUBLE */
static inline col_int128 vec_get_dec(const col_vec *v, int64_t row)
{
    col_int128 x;
    __builtin_memcpy(&x, (const char *)v->values + 16 * row, 16);
    return x;
}
static inline void vec_put_dec(col_vec *v, int64_t row, col_int128 x)
{
    __builtin_memcpy((char *)v->values + 16 * row, &x, 16);
}
void vec_put_int(col_vec *v, int64_t row, int64_t x);

/*
 * Gathers rows idx[0..n) of src into a new dense vector of n rows; an index
 * of -1 gives NULL. Works for every type (nested ones included).
 */
silt_status vec_gather(col_vec **out, arena *a, const col_vec *src, const int64_t *idx,
                       int64_t n, silt_error *err);
/* Same for a selection (int32 rows; NULL = the first n rows). */
silt_status vec_compact(col_vec **out, arena *a, const col_vec *src, const int32_t *sel,
                        int64_t n, silt_error *err);
/*
 * Takes, for each live row r, the value of row r of src_of_row[r] (NULL
 * source = NULL value) into a new vector of n_rows rows: how CASE and
 * COALESCE put together the results of their branches.
 */
silt_status vec_merge(col_vec **out, arena *a, const col_type *type, int64_t n_rows,
                      const int32_t *sel, int64_t n_sel, const col_vec *const *src_of_row,
                      silt_error *err);

/*
 * Appends-only column store used by operators that keep rows (sort, join
 * build side, collect): a builder fed with whole vectors.
 */
typedef struct vec_accum {
    const col_type *type;
    arena *a;
    col_vec **parts;
    int64_t *part_rows;
    size_t n_parts, cap_parts;
    int64_t n_rows;
} vec_accum;
void vec_accum_init(vec_accum *acc, arena *a, const col_type *type);
/* Copies the live rows of v into the accumulator's arena. */
silt_status vec_accum_add(vec_accum *acc, const col_vec *v, const int32_t *sel, int64_t n,
                          silt_error *err);
/*
 * Appends part as it is, not copied: its memory must outlive the
 * accumulator's use (rows kept in another arena, e.g. a window's workers').
 */
silt_status vec_accum_push(vec_accum *acc, col_vec *part, silt_error *err);
/* One dense vector of all rows added. */
silt_status vec_accum_finish(vec_accum *acc, col_vec **out, silt_error *err);

/* Compares row ra of a with row rb of b (same type); nulls compare equal to each other. */
int vec_compare_rows(const col_vec *a, int64_t ra, const col_vec *b, int64_t rb);
/* Hash of a row's value (nulls hash to a constant), combined with seed. */
uint64_t vec_hash_row(const col_vec *v, int64_t row, uint64_t seed);
/* Spark's ordering of doubles: NaN above everything, -0.0 == 0.0. */
static inline int engine_cmp_double(double x, double y)
{
    if (x < y)
        return -1;
    if (x > y)
        return 1;
    if (x == y)
        return 0;
    return (x != x) ? ((y != y) ? 0 : 1) : -1;
}

#endif
