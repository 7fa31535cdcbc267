/*
 * op.h - physical operators: a pull-based tree of engine_op.
 *
 * Every operator has open / next / close. next() hands out one chunk (a
 * batch plus an optional selection vector) or NULL at the end. A chunk and
 * everything in it live in the operator's batch arena, which is reset at
 * the start of the following next(): consumers that keep rows (sort, join
 * build, aggregation state) copy them into their own operator arena.
 *
 * Operators are built by the planner over typed expressions (expr.h) whose
 * column references index the child's output columns. Output schemas are
 * STRUCT types whose fields name the columns.
 *
 * Threading: one operator tree is driven by one thread. Parallelism comes
 * from running several pipelines over morsels of a source and merging
 * (engine_parallel_agg, op_parallel.c; op_pipeline.c copies the filters,
 * projections and join probes above a scan once per worker), which is how
 * the interface grows into morsel-driven execution without changing
 * operators.
 */
#ifndef SILT_ENGINE_OP_H
#define SILT_ENGINE_OP_H

#include "engine/expr.h"
#include "util/buf.h"

typedef struct engine_chunk {
    col_batch batch;    /* columns of batch.n_rows rows */
    const int32_t *sel; /* ascending live rows; NULL = all rows live */
    int64_t n_sel;      /* number of live rows */
} engine_chunk;

typedef struct engine_op engine_op;

typedef struct engine_op_vtable {
    const char *name;
    silt_status (*open)(engine_op *op, silt_error *err);
    silt_status (*next)(engine_op *op, engine_chunk **out, silt_error *err);
    void (*close)(engine_op *op);
    /*
     * Optional (NULL): told the expressions of a projection built over op,
     * so op can leave out the columns nobody reads (the window does).
     */
    void (*note_project)(engine_op *op, expr *const *exprs, size_t n_exprs);
} engine_op_vtable;

/*
 * Runs before an operator and its children open (engine_op_set_prologue):
 * computes what the plan's expressions read from slots, the uncorrelated
 * subqueries of sql/, once per execution.
 */
typedef silt_status (*engine_prologue_fn)(void *payload, silt_error *err);

/*
 * An operator's own run-time notes for EXPLAIN ANALYZE (a scan's row groups
 * read and skipped, say), appended to out as lines without indentation.
 */
typedef silt_status (*engine_op_note_fn)(const engine_op *op, void *payload, buf *out,
                                         silt_error *err);

/*
 * What one operator did, counted only when ctx->analyze is set. Times
 * include the children's, as the operator pulls them (wall clock, ns).
 */
typedef struct engine_op_stats {
    int64_t rows_out;   /* live rows of the chunks it returned */
    int64_t chunks_out;
    int64_t open_nanos; /* in engine_op_open, children included */
    int64_t next_nanos; /* in engine_op_next, children included */
    int opened;
    int workers;        /* > 0: the sums of this many workers' copies (op_pipeline.c) */
    const char *notes;  /* its note_fn's lines, taken when it closed (query arena) */
} engine_op_stats;

struct engine_op {
    const engine_op_vtable *vt;
    engine_ctx *ctx;
    const col_type *schema; /* STRUCT: the output columns */
    arena *op_arena;        /* state that lives until close */
    arena *batch_arena;     /* reset before every next() */
    engine_op **children;
    size_t n_children;
    void *state;
    int64_t mem_charged; /* bytes charged to ctx, given back on close */
    engine_prologue_fn prologue; /* NULL: none */
    void *prologue_payload;
    engine_op_note_fn note_fn;   /* NULL: none */
    void *note_payload;
    engine_op_stats stats;
    /* A worker's copy of a parallel chain's operator: the one it copies (its stats add up there). */
    engine_op *origin;
};

/* fn(payload) runs every time op is opened, before its children open. */
void engine_op_set_prologue(engine_op *op, engine_prologue_fn fn, void *payload);
/*
 * Under EXPLAIN ANALYZE, fn(op, payload, ...) gives op's run-time notes
 * when op closes (its state is still there), kept in op->stats.notes.
 */
void engine_op_set_note(engine_op *op, engine_op_note_fn fn, void *payload);

/* Opens children, then the operator. */
silt_status engine_op_open(engine_op *op, silt_error *err);
/* Produces the next chunk, or *out = NULL at the end of the data. */
silt_status engine_op_next(engine_op *op, engine_chunk **out, silt_error *err);
/*
 * Takes op's batch arena, with the batch its last next() made in it, and
 * gives op a fresh one: the caller owns the result (a root) and frees it.
 * NULL on OOM (op keeps its arena). This is how a result batch leaves
 * without a copy (Arrow export, sql/session.c).
 */
arena *engine_op_take_batch_arena(engine_op *op);
/* Closes the operator and its children and frees their arenas; NULL is fine. */
void engine_op_close(engine_op *op);

/*
 * Runs op to the end and returns all its rows as one dense batch in arena
 * a (for tests, the API's small results and subqueries). Opens and closes op.
 */
silt_status engine_collect(engine_op *op, arena *a, col_batch **out, silt_error *err);

/* ---- sources ------------------------------------------------------------------ */

/*
 * A source callback: fills *out with the next batch (allocated in
 * batch_arena) or NULL at the end. This is where the Parquet/Delta scan plugs in.
 */
typedef silt_status (*engine_source_fn)(void *payload, arena *batch_arena, col_batch **out,
                                        silt_error *err);
silt_status engine_op_scan(engine_op **out, engine_ctx *ctx, const col_type *schema,
                           engine_source_fn fn, void *payload, silt_error *err);
/* A source over batches already in memory (borrowed; they must outlive the op). */
silt_status engine_op_values(engine_op **out, engine_ctx *ctx, const col_type *schema,
                             col_batch **batches, size_t n_batches, silt_error *err);

/* ---- row operators ------------------------------------------------------------ */

silt_status engine_op_filter(engine_op **out, engine_ctx *ctx, engine_op *child,
                             const expr *predicate, silt_error *err);
/* names may be NULL (columns are then called c0, c1, ...). */
silt_status engine_op_project(engine_op **out, engine_ctx *ctx, engine_op *child,
                              expr **exprs, const char *const *names, size_t n_exprs,
                              silt_error *err);
/* LIMIT n OFFSET m; limit < 0 means no limit. */
silt_status engine_op_limit(engine_op **out, engine_ctx *ctx, engine_op *child, int64_t limit,
                            int64_t offset, silt_error *err);
/* UNION ALL of children with equal column types. */
silt_status engine_op_union_all(engine_op **out, engine_ctx *ctx, engine_op **children,
                                size_t n_children, silt_error *err);

/* ---- sort --------------------------------------------------------------------- */

typedef struct engine_sort_key {
    int64_t col_idx;  /* column of the child's output */
    int descending;
    int nulls_first;  /* Spark: ASC -> NULLS FIRST, DESC -> NULLS LAST */
} engine_sort_key;

/* Spark's default null placement for a direction. */
static inline engine_sort_key engine_sort_key_default(int64_t col_idx, int descending)
{
    engine_sort_key k = {col_idx, descending, !descending};
    return k;
}

/*
 * ORDER BY keys (stable: ties keep input order). limit >= 0 makes it a
 * top-N that keeps only limit + offset rows in memory; offset rows are skipped.
 */
silt_status engine_op_sort(engine_op **out, engine_ctx *ctx, engine_op *child,
                           const engine_sort_key *keys, size_t n_keys, int64_t limit,
                           int64_t offset, silt_error *err);

/* ---- aggregation -------------------------------------------------------------- */

typedef enum engine_agg_kind {
    AGG_COUNT_STAR,
    AGG_COUNT,
    AGG_SUM,
    AGG_AVG,
    AGG_MIN,
    AGG_MAX,
    AGG_FIRST,
    AGG_LAST,
    AGG_STDDEV_SAMP,
    AGG_STDDEV_POP,
    AGG_VAR_SAMP,
    AGG_VAR_POP,
    AGG_COLLECT_LIST,
    AGG_COLLECT_SET,
    AGG_APPROX_COUNT_DISTINCT,
    AGG_PERCENTILE_APPROX,
    AGG_PERCENTILE, /* exact, interpolated (percentile, median): a double */
    AGG_MAX_BY,     /* arg: struct(ordering, value); the value at the largest ordering */
    AGG_MIN_BY,
    AGG_PERCENTILE_ARRAY,        /* percentile(x, array(...)): array<double> */
    AGG_PERCENTILE_APPROX_ARRAY  /* percentile_approx(x, array(...)): array of x's type */
} engine_agg_kind;

typedef struct engine_agg {
    engine_agg_kind kind;
    expr *arg;         /* NULL for count(*) */
    int distinct;      /* count(DISTINCT x), sum(DISTINCT x), ... */
    expr *filter;      /* FILTER (WHERE ...), or NULL */
    int ignore_nulls;  /* first/last(x, true) */
    double percentage; /* percentile_approx, percentile: 0.0 .. 1.0 */
    int64_t accuracy;  /* percentile_approx: its third argument, 0 = Spark's default 10000 */
    const double *percentages; /* the *_ARRAY percentiles: n_percentages of 0.0 .. 1.0 */
    size_t n_percentages;
    const char *name;  /* output column name, or NULL */
} engine_agg;

/*
 * Result type of an aggregate over an argument type (Spark's rules);
 * SILT_BIND (naming the aggregate) or SILT_NOMEM.
 */
silt_status engine_agg_type_checked(const col_type **out, arena *a, engine_agg_kind kind,
                                    const col_type *arg, silt_error *err);

/*
 * GROUP BY keys with aggregates. Output: the keys, then the aggregates.
 * With no keys there is exactly one output row, even for empty input
 * (count 0, sum NULL). NULL keys form one group.
 *
 * Grouping sets: n_sets > 0 gives the sets as bit masks over the keys (bit
 * i = key i is grouped); keys outside a set are NULL in its rows, and a
 * last column "spark_grouping_id" (LONG) holds Spark's grouping id (bit
 * set = key NOT grouped, first key the highest bit). ROLLUP and CUBE are
 * expanded into sets by engine_rollup_sets / engine_cube_sets.
 */
silt_status engine_op_hash_agg(engine_op **out, engine_ctx *ctx, engine_op *child,
                               expr **keys, const char *const *key_names, size_t n_keys,
                               const engine_agg *aggs, size_t n_aggs, const uint64_t *sets,
                               size_t n_sets, silt_error *err);
/* Fills sets (room for n_keys + 1 / 2^n_keys) and returns their count. */
size_t engine_rollup_sets(size_t n_keys, uint64_t *sets);
size_t engine_cube_sets(size_t n_keys, uint64_t *sets);

/* ---- join ----------------------------------------------------------------------- */

typedef enum engine_join_type {
    JOIN_INNER,
    JOIN_LEFT,
    JOIN_RIGHT,
    JOIN_FULL,
    JOIN_LEFT_SEMI,
    JOIN_LEFT_ANTI,
    JOIN_CROSS
} engine_join_type;

/*
 * Hash join: the right child is the build side, the left is probed.
 * left_keys[i] (over left columns) = right_keys[i] (over right columns);
 * NULL keys never match. condition (may be NULL) is an extra predicate
 * over the joined row: left columns then right columns. Output: left
 * columns then right columns, except semi/anti joins (left only).
 */
silt_status engine_op_hash_join(engine_op **out, engine_ctx *ctx, engine_op *left,
                                engine_op *right, engine_join_type type, expr **left_keys,
                                expr **right_keys, size_t n_keys, const expr *condition,
                                silt_error *err);

/*
 * A LEFT join's rows in the order of its probe side: each left row's matches, or the row
 * with NULL build columns, in its place (instead of a chunk's unmatched rows after its
 * matched ones). MERGE's rewrite keeps a file's row order this way. Not kept when the build
 * side spills (grace join: rows come out by partition).
 */
void engine_join_set_ordered(engine_op *join);

/* ---- window functions -------------------------------------------------------- */

typedef enum engine_win_kind {
    WIN_ROW_NUMBER,
    WIN_RANK,
    WIN_DENSE_RANK,
    WIN_LAG,
    WIN_LEAD,
    WIN_AGG, /* count/sum/avg/min/max over a frame */
    WIN_FIRST_VALUE, /* first_value / last_value / nth_value: a row of the frame */
    WIN_LAST_VALUE,
    WIN_NTH_VALUE,
    WIN_NTILE,        /* ntile(offset buckets) */
    WIN_PERCENT_RANK, /* (rank - 1) / (rows in partition - 1) */
    WIN_CUME_DIST     /* rows up to the current row's last peer / rows in partition */
} engine_win_kind;

typedef enum engine_frame_type { FRAME_ROWS, FRAME_RANGE } engine_frame_type;

/*
 * A frame: bounds relative to the current row (negative = PRECEDING,
 * 0 = CURRENT ROW, positive = FOLLOWING) unless unbounded. RANGE offsets
 * other than 0 need one numeric or date ORDER BY key.
 */
typedef struct engine_frame {
    engine_frame_type type;
    int start_unbounded, end_unbounded;
    int64_t start, end;
} engine_frame;

typedef struct engine_window_fn {
    engine_win_kind kind;
    engine_agg_kind agg;      /* WIN_AGG: AGG_COUNT_STAR, COUNT, SUM, AVG, MIN, MAX */
    expr *arg;                /* lag/lead/aggregate argument */
    int64_t offset;           /* lag/lead distance (default 1), nth_value's n, ntile's buckets */
    expr *default_value;      /* lag/lead default, or NULL */
    int ignore_nulls;         /* first/last/nth_value: skip NULL values of the frame */
    int has_frame;            /* 0: Spark's default frame */
    engine_frame frame;
    const char *name;
} engine_window_fn;

/*
 * Window functions sharing one PARTITION BY (child columns) and ORDER BY.
 * Output: the child's columns, then one column per function, ordered by
 * partition and order keys. Default frame as Spark: with ORDER BY, RANGE
 * BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW; without, the whole partition.
 */
silt_status engine_op_window(engine_op **out, engine_ctx *ctx, engine_op *child,
                             const int64_t *partition_cols, size_t n_partition,
                             const engine_sort_key *order, size_t n_order,
                             const engine_window_fn *fns, size_t n_fns, silt_error *err);

/*
 * WindowGroupLimit (Spark 3.5): pred is a filter placed over top. When one
 * of its AND-ed conjuncts is `r <= k`, `r < k` or `r = k` on a
 * row_number/rank/dense_rank column that top passes through unchanged from
 * a window operator holding only ranking functions, that operator is told
 * to keep per partition only the rows whose rank can be <= k (a per-partition
 * top-k instead of a full sort). The filter must stay: the window then
 * returns a superset of the rows it passes. Returns 1 when a limit was set.
 */
int engine_push_rank_limit(engine_op *top, const expr *pred);

/* ---- parallel aggregation --------------------------------------------------------- */

/*
 * A morsel source for parallel pipelines: produces the batches of morsel
 * morsel_idx (a file, a row group, a range) one by one; NULL at its end.
 * Called from several threads at once with different morsels.
 */
typedef silt_status (*engine_morsel_fn)(void *payload, size_t morsel_idx, size_t *cursor,
                                        arena *batch_arena, col_batch **out, silt_error *err);

/*
 * Scan + filter + aggregate over n_morsels morsels on ctx->pool: every
 * worker aggregates its morsels into its own partial hash table, and the
 * partials are merged at the end. The result is the same as
 * filter -> engine_op_hash_agg over all the morsels' rows, returned as one
 * batch in arena a (group order unspecified). filter may be NULL.
 */
silt_status engine_parallel_agg(engine_ctx *ctx, const col_type *schema, engine_morsel_fn fn,
                                void *payload, size_t n_morsels, const expr *filter,
                                expr **keys, const char *const *key_names, size_t n_keys,
                                const engine_agg *aggs, size_t n_aggs, arena *a,
                                col_batch **out, silt_error *err);

/*
 * The same as a leaf operator for plans: runs engine_parallel_agg on its
 * first next() and hands out the groups in batches. The arrays are copied;
 * the expressions and the payload must outlive the operator.
 */
silt_status engine_op_parallel_agg(engine_op **out, engine_ctx *ctx, const col_type *schema,
                                   engine_morsel_fn fn, void *payload, size_t n_morsels,
                                   const expr *filter, expr **keys, const char *const *key_names,
                                   size_t n_keys, const engine_agg *aggs, size_t n_aggs,
                                   silt_error *err);

/* ---- parallel pipelines above the scan (op_pipeline.c) ----------------------------- */

/*
 * Marks a scan made by engine_op_scan as also readable in morsels (the
 * planner does this for sources that have them), so that the operators
 * above it can run on every worker.
 */
void engine_op_scan_set_morsels(engine_op *scan, engine_morsel_fn fn, void *payload,
                                size_t n_morsels);

/*
 * Whether top's rows come from a chain that can run once per worker: a
 * scan with morsels under filters, projections and the probe sides of
 * inner, left, semi and anti hash joins, with a pool wider than one thread.
 */
int engine_chain_parallel(engine_op *top);

/*
 * GROUP BY over top's chain: every worker runs its own copy of the chain
 * (the joins' build tables are built once and shared) into a partial
 * aggregation; the partials are merged. Same output as engine_op_hash_agg
 * without grouping sets (group order unspecified). top must pass
 * engine_chain_parallel and is never opened itself.
 */
silt_status engine_op_chain_agg(engine_op **out, engine_ctx *ctx, engine_op *top, expr **keys,
                                const char *const *key_names, size_t n_keys,
                                const engine_agg *aggs, size_t n_aggs, silt_error *err);

/*
 * The rows of top's chain that can be among the first keep by keys: every
 * worker runs its copy of the chain into a top-N of keep rows; their union
 * (at most width * keep rows, order unspecified) is the output, for the
 * final engine_op_sort above.
 */
silt_status engine_op_chain_topn(engine_op **out, engine_ctx *ctx, engine_op *top,
                                 const engine_sort_key *keys, size_t n_keys, int64_t keep,
                                 silt_error *err);

/*
 * A sink at the end of a chain: gets every row of the chain as dense batches (borrowed until
 * it returns), worker in [0, engine_chain_width(top)). One worker's calls never overlap; the
 * batches of one morsel all reach one worker, in the morsel's order, before its next morsel.
 */
typedef silt_status (*engine_batch_sink_fn)(void *arg, size_t worker, const col_batch *batch,
                                            silt_error *err);

/* Workers engine_run_chain will use for top: the pool's width when the chain is parallel, 1. */
size_t engine_chain_width(engine_op *top);

/*
 * Runs top's chain to its end into fn: on every worker (its own copy of the chain, the joins'
 * build tables shared) when engine_chain_parallel(top), else top itself on the caller as
 * worker 0. top is closed (and must not be opened) by the call. How DML's modify sink gets
 * the target's rows.
 */
silt_status engine_run_chain(engine_op *top, engine_batch_sink_fn fn, void *arg,
                             silt_error *err);

/* ---- EXPLAIN -------------------------------------------------------------------- */

/*
 * What a parallel operator runs on every worker, for EXPLAIN: a pipeline
 * (op_pipeline.c) copies the chain below it (chain: its top; leaf: the
 * scan whose morsels the workers share) and ends it in a sink; a parallel
 * aggregate (op_parallel.c) scans, filters and aggregates partially.
 * Everything is borrowed from the operator.
 */
typedef enum engine_sink_kind {
    ENGINE_SINK_PARTIAL_AGG,
    ENGINE_SINK_TOPN,
    ENGINE_SINK_WINDOW_LIMIT,
    ENGINE_SINK_WINDOW_INPUT
} engine_sink_kind;

typedef struct engine_parallel_info {
    engine_sink_kind sink;
    const engine_op *chain;      /* NULL for a parallel aggregate */
    const engine_op *leaf;       /* the chain's scan */
    const void *morsel_payload;  /* the morsel source's payload (identifies the scan) */
    size_t n_morsels;
    size_t width;                /* workers (1 without a pool) */
    const expr *filter;          /* a parallel aggregate's filter, or NULL */
    const char *const *key_names; /* SINK_PARTIAL_AGG: keys and aggregates */
    size_t n_keys;
    const engine_agg *aggs;
    size_t n_aggs;
    int64_t keep;                /* SINK_TOPN: rows each worker keeps */
} engine_parallel_info;

/* Fills info when op is a pipeline (1); 0 otherwise. */
int engine_pipeline_info(const engine_op *op, engine_parallel_info *info);
/* Fills info when op is a parallel aggregate (1); 0 otherwise. */
int engine_parallel_agg_info(const engine_op *op, engine_parallel_info *info);
/* A filter's predicate, or NULL when op is not a filter. */
const expr *engine_op_filter_predicate(const engine_op *op);

#endif
