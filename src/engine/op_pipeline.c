/*
 * op_pipeline.c - morsel-driven parallel pipelines above the scan.
 *
 * A chain is the operators between a scan that also reads in morsels (a
 * Delta table: one per file; Parquet: one per row group;
 * engine_op_scan_set_morsels) and a top:
 * filters, projections and the probe sides of inner, left, semi and anti
 * hash joins. Every worker of the pool runs its own copy of the chain over
 * morsels it takes from a shared counter; the joins' build tables are built
 * once, on the caller, and the copies only read them. A chain ends in a
 * sink:
 *   - a partial aggregation per worker (engine_parallel_agg, merged),
 *   - a top-N per worker (a sort with a limit), whose rows are collected
 *     for the final sort above,
 *   - a WindowGroupLimit per worker (the limited window operator, its
 *     function columns dropped), whose rows feed the final window above.
 * The last two are exact because each keeps a superset of what the final
 * operator keeps from the union. Each worker has its own engine_ctx copy
 * whose query arena is a root arena: arenas are not thread-safe, so no two
 * workers allocate under one parent, and whose memory limit is an equal
 * share of what the query has left. Expressions are shared (immutable).
 */
#include "engine/op_int.h"

#include <stdatomic.h>
#include <string.h>

typedef enum pipe_sink { SINK_AGG, SINK_TOPN, SINK_WINDOW, SINK_COLLECT, SINK_CALL } pipe_sink;

/* A worker's scan: morsels taken one at a time from the shared counter. */
typedef struct chain_src {
    atomic_size_t *next;
    engine_morsel_fn fn;
    void *payload;
    size_t n;
    int64_t cur; /* morsel being read, -1 = take the next */
    size_t cursor;
} chain_src;

typedef struct pipe_state {
    pipe_sink sink;
    engine_op *top, *leaf;
    engine_morsel_fn fn;
    void *payload;
    size_t n_morsels;
    /* SINK_AGG */
    expr **keys;
    const char *const *key_names;
    size_t n_keys;
    const engine_agg *aggs;
    size_t n_aggs;
    /* SINK_TOPN */
    engine_sort_key *sort_keys;
    size_t n_sort_keys;
    int64_t keep;
    /* SINK_WINDOW: the limited window operator this pipeline feeds */
    const engine_op *win;
    /*
     * SINK_COLLECT: a window's input. Every worker also evaluates extras
     * (NULL entries: none) into accumulators after the chain's columns,
     * tags each chunk it keeps with its morsel (the window puts the chunks
     * back in the serial scan's order), and stops once its accumulators
     * hold more than budget bytes (0: no budget); the chains' rows left
     * are then handed out serially by pipe_next.
     */
    expr **extras;
    size_t n_extras;
    int64_t budget;
    atomic_int stop;
    arena **acc_arenas;
    engine_collect_hook hook;
    void *hook_arg;
    void ***notes; /* per worker, per kept chunk: what the hook returned */
    int64_t **tags;
    size_t *n_tags, *cap_tags;
    uint8_t *done;
    size_t serial_w;
    int collected;
    /* SINK_CALL: every worker's dense batches go to call(call_arg, worker, batch) */
    engine_batch_sink_fn call;
    void *call_arg;
    /* while running */
    size_t width;
    atomic_size_t next;
    arena **roots;
    engine_ctx *wctx;
    chain_src *srcs;
    engine_op **tops;
    vec_accum **accs;
    col_batch *result;
    int64_t next_row;
} pipe_state;

/* The scan with morsels at the bottom of top's chain, or NULL when top has no such chain. */
static engine_op *chain_leaf(engine_op *top, engine_morsel_fn *fn, void **payload, size_t *n)
{
    engine_op *op = top;
    for (;;) {
        if (engine_op_scan_morsels(op, fn, payload, n))
            return *n > 0 ? op : NULL;
        if (!engine_op_is_row_op(op) && !engine_join_probe_only(op))
            return NULL;
        op = op->children[0];
    }
}

int engine_chain_parallel(engine_op *top)
{
    engine_morsel_fn fn;
    void *payload;
    size_t n;
    return top->ctx->pool != NULL && tpool_width(top->ctx->pool) > 1 &&
           chain_leaf(top, &fn, &payload, &n) != NULL;
}

static silt_status chain_src_next(void *payload, arena *batch_arena, col_batch **out,
                                  silt_error *err)
{
    chain_src *c = payload;
    for (;;) {
        if (c->cur < 0) {
            size_t m = atomic_fetch_add(c->next, 1);
            if (m >= c->n) {
                *out = NULL;
                return SILT_OK;
            }
            c->cur = (int64_t)m;
            c->cursor = 0;
        }
        SILT_RETURN_IF_ERROR(c->fn(c->payload, (size_t)c->cur, &c->cursor, batch_arena, out, err));
        if (*out != NULL)
            return SILT_OK;
        c->cur = -1;
    }
}

/* A copy of the chain from op down to the leaf, for one worker. */
static silt_status clone_chain(pipe_state *s, engine_ctx *ctx, engine_op *op, chain_src *src,
                               engine_op **out, silt_error *err)
{
    engine_op *child;
    if (op == s->leaf)
        SILT_RETURN_IF_ERROR(engine_op_scan(out, ctx, op->schema, chain_src_next, src, err));
    else {
        SILT_RETURN_IF_ERROR(clone_chain(s, ctx, op->children[0], src, &child, err));
        if (engine_join_probe_only(op))
            SILT_RETURN_IF_ERROR(engine_join_clone_probe(out, ctx, op, child, err));
        else
            SILT_RETURN_IF_ERROR(engine_op_clone_row_op(out, ctx, op, child, err));
    }
    (*out)->origin = op;
    return SILT_OK;
}

/* EXPLAIN ANALYZE: what a worker's copies did, added to the chain's operators they copy. */
static void fold_stats(engine_op *copy)
{
    for (; copy != NULL; copy = copy->n_children > 0 ? copy->children[0] : NULL) {
        engine_op_stats *to;
        if (copy->origin == NULL)
            continue;
        to = &copy->origin->stats;
        to->rows_out += copy->stats.rows_out;
        to->chunks_out += copy->stats.chunks_out;
        to->open_nanos += copy->stats.open_nanos;
        to->next_nanos += copy->stats.next_nanos;
        to->opened |= copy->stats.opened;
        to->workers++;
    }
}

/* The worker's own last step: top-N, or the limited window without its function columns. */
static silt_status add_finisher(pipe_state *s, engine_ctx *ctx, engine_op **top, silt_error *err)
{
    engine_op *w, *p;
    expr **cols;
    size_t n = s->top->schema->n_fields, idx;
    if (s->sink == SINK_TOPN)
        return engine_op_sort(top, ctx, *top, s->sort_keys, s->n_sort_keys, s->keep, 0, err);
    if (s->sink != SINK_WINDOW)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(engine_window_clone(&w, ctx, s->win, *top, err));
    cols = arena_calloc(ctx->query_arena, n + 1, sizeof(expr *));
    if (cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++)
        SILT_RETURN_IF_ERROR(expr_column(&cols[idx], ctx->query_arena, (int64_t)idx,
                                         s->top->schema->fields[idx].type, err));
    SILT_RETURN_IF_ERROR(engine_op_project(&p, ctx, w, cols, NULL, n, err));
    *top = p;
    return SILT_OK;
}

/* Frees the workers' accumulated rows (SINK_COLLECT), once the window copied them. */
static void release_rows(pipe_state *s)
{
    size_t w;
    if (s->acc_arenas == NULL)
        return;
    for (w = 0; w < s->width; w++) {
        arena_free(s->acc_arenas[w]);
        s->acc_arenas[w] = NULL;
    }
}

static void pipe_teardown(pipe_state *s)
{
    size_t w;
    release_rows(s);
    if (s->roots == NULL)
        return;
    for (w = 0; w < s->width; w++) {
        if (s->tops != NULL && s->tops[w] != NULL && s->tops[w]->ctx->analyze)
            fold_stats(s->tops[w]);
        arena_free(s->roots[w]); /* the worker's operators and rows */
    }
    s->roots = NULL;
    /* the serial chain is never run: this frees the shared build tables and their memory charge */
    engine_op_close(s->top);
}

/* SINK_COLLECT's per-worker arrays: accumulator arenas (roots), chunk tags. */
static silt_status collect_setup(engine_op *op, pipe_state *s, silt_error *err)
{
    size_t w;
    atomic_init(&s->stop, 0);
    s->serial_w = 0;
    s->acc_arenas = arena_calloc(op->op_arena, s->width, sizeof(arena *));
    s->tags = arena_calloc(op->op_arena, s->width, sizeof(int64_t *));
    s->notes = arena_calloc(op->op_arena, s->width, sizeof(void **));
    s->n_tags = arena_calloc(op->op_arena, s->width, sizeof(size_t));
    s->cap_tags = arena_calloc(op->op_arena, s->width, sizeof(size_t));
    s->done = arena_calloc(op->op_arena, s->width, 1);
    if (s->acc_arenas == NULL || s->tags == NULL || s->notes == NULL || s->n_tags == NULL ||
        s->cap_tags == NULL || s->done == NULL)
        return err_nomem(err);
    for (w = 0; w < s->width; w++)
        if ((s->acc_arenas[w] = arena_new(NULL, "window_input_worker")) == NULL)
            return err_nomem(err);
    return SILT_OK;
}

/* On the caller: builds the joins' tables and one chain per worker. */
static silt_status pipe_setup(engine_op *op, pipe_state *s, silt_error *err)
{
    engine_op *o;
    arena *acc_a;
    size_t w, col, n_cols = s->top->schema->n_fields;
    s->width = op->ctx->pool != NULL ? tpool_width(op->ctx->pool) : 1;
    for (o = s->top; o != s->leaf; o = o->children[0])
        if (engine_join_probe_only(o))
            SILT_RETURN_IF_ERROR(engine_join_build_shared(o, err));
    atomic_init(&s->next, 0);
    s->roots = arena_calloc(op->op_arena, s->width, sizeof(arena *));
    s->wctx = arena_calloc(op->op_arena, s->width, sizeof(engine_ctx));
    s->srcs = arena_calloc(op->op_arena, s->width, sizeof(chain_src));
    s->tops = arena_calloc(op->op_arena, s->width, sizeof(engine_op *));
    s->accs = arena_calloc(op->op_arena, s->width, sizeof(vec_accum *));
    if (s->roots == NULL || s->wctx == NULL || s->srcs == NULL || s->tops == NULL ||
        s->accs == NULL)
        return err_nomem(err);
    if (s->sink == SINK_COLLECT)
        SILT_RETURN_IF_ERROR(collect_setup(op, s, err));
    for (w = 0; w < s->width; w++) {
        s->roots[w] = arena_new(NULL, "pipeline_worker");
        if (s->roots[w] == NULL)
            return err_nomem(err);
        s->wctx[w] = *op->ctx;
        s->wctx[w].query_arena = s->roots[w];
        s->wctx[w].pool = NULL;
        s->wctx[w].mem_used = 0;
        /* each worker gets an equal share of what the query may still use */
        if (op->ctx->mem_limit > 0) {
            int64_t left = engine_mem_free(op->ctx);
            s->wctx[w].mem_limit = left > (int64_t)s->width ? left / (int64_t)s->width : 1;
        }
        s->srcs[w].next = &s->next;
        s->srcs[w].fn = s->fn;
        s->srcs[w].payload = s->payload;
        s->srcs[w].n = s->n_morsels;
        s->srcs[w].cur = -1;
        SILT_RETURN_IF_ERROR(clone_chain(s, &s->wctx[w], s->top, &s->srcs[w], &s->tops[w], err));
        SILT_RETURN_IF_ERROR(add_finisher(s, &s->wctx[w], &s->tops[w], err));
        acc_a = s->sink == SINK_COLLECT ? s->acc_arenas[w] : s->roots[w];
        s->accs[w] = arena_calloc(acc_a, n_cols + s->n_extras + 1, sizeof(vec_accum));
        if (s->accs[w] == NULL)
            return err_nomem(err);
        for (col = 0; col < n_cols; col++)
            vec_accum_init(&s->accs[w][col], acc_a, s->top->schema->fields[col].type);
        for (col = 0; col < s->n_extras; col++)
            vec_accum_init(&s->accs[w][n_cols + col], acc_a,
                           s->extras[col] ? s->extras[col]->type : col_type_primitive(COL_NULL));
    }
    return SILT_OK;
}

/*
 * The live rows of v as a dense vector. A dictionary-encoded string keeps
 * its dictionary (only the codes move), where vec_compact would copy bytes.
 */
static silt_status compact_vec(col_vec **out, arena *a, const col_vec *v, const int32_t *sel,
                               int64_t n, silt_error *err)
{
    col_vec *d;
    int32_t *codes;
    int64_t k;
    if (v->dictionary == NULL)
        return vec_compact(out, a, v, sel, n, err);
    d = arena_calloc(a, 1, sizeof(*d));
    codes = arena_alloc(a, sizeof(int32_t) * (size_t)(n ? n : 1));
    if (d == NULL || codes == NULL)
        return err_nomem(err);
    *d = *v;
    d->length = n;
    d->values = codes;
    d->validity = NULL;
    d->null_count = 0;
    for (k = 0; k < n; k++)
        codes[k] = ((const int32_t *)v->values)[sel[k]];
    if (v->validity != NULL && v->null_count != 0) {
        size_t bytes = (size_t)(n + 7) / 8;
        d->validity = arena_alloc(a, bytes);
        if (d->validity == NULL)
            return err_nomem(err);
        memset(d->validity, 0xff, bytes);
        for (k = 0; k < n; k++)
            if (!vec_is_valid(v, sel[k]))
                vec_set_null(d, k);
    }
    *out = d;
    return SILT_OK;
}

/*
 * SINK_AGG: engine_parallel_agg's morsel t is worker chain t, read to its
 * end; its chunks are handed over as dense batches.
 */
static silt_status dense_batch(engine_chunk *c, arena *batch_arena, col_batch **out,
                               silt_error *err);

static silt_status chain_morsel(void *payload, size_t t, size_t *cursor, arena *batch_arena,
                                col_batch **out, silt_error *err)
{
    pipe_state *s = payload;
    engine_chunk *c;
    if (*cursor == 0) {
        *cursor = 1;
        SILT_RETURN_IF_ERROR(engine_op_open(s->tops[t], err));
    }
    SILT_RETURN_IF_ERROR(engine_op_next(s->tops[t], &c, err));
    if (c == NULL) {
        *out = NULL;
        return SILT_OK;
    }
    return dense_batch(c, batch_arena, out, err);
}

/* The live rows of chunk c as a dense batch (c's own batch when every row is live). */
static silt_status dense_batch(engine_chunk *c, arena *batch_arena, col_batch **out,
                               silt_error *err)
{
    col_batch *b;
    size_t col;
    if (c->sel == NULL) {
        *out = &c->batch;
        return SILT_OK;
    }
    b = arena_alloc(batch_arena, sizeof(*b));
    if (b == NULL)
        return err_nomem(err);
    *b = c->batch;
    b->n_rows = c->n_sel;
    b->cols = arena_calloc(batch_arena, b->n_cols + 1, sizeof(col_vec *));
    if (b->cols == NULL)
        return err_nomem(err);
    for (col = 0; col < b->n_cols; col++)
        SILT_RETURN_IF_ERROR(compact_vec(&b->cols[col], batch_arena, c->batch.cols[col], c->sel,
                                         c->n_sel, err));
    *out = b;
    return SILT_OK;
}

/* Appends the morsel that worker t's chunk came from to its tags. */
static silt_status push_tag(pipe_state *s, size_t t, silt_error *err)
{
    if (s->n_tags[t] == s->cap_tags[t]) {
        size_t cap = s->cap_tags[t] ? s->cap_tags[t] * 2 : 64;
        int64_t *grown = arena_realloc(s->acc_arenas[t], s->tags[t],
                                       sizeof(int64_t) * s->cap_tags[t], sizeof(int64_t) * cap);
        void **notes = arena_realloc(s->acc_arenas[t], s->notes[t],
                                     sizeof(void *) * s->cap_tags[t], sizeof(void *) * cap);
        if (grown == NULL || notes == NULL)
            return err_nomem(err);
        s->tags[t] = grown;
        s->notes[t] = notes;
        s->cap_tags[t] = cap;
    }
    s->notes[t][s->n_tags[t]] = NULL;
    /* a chain's chunk comes from the batch its scan returned last: the current morsel */
    s->tags[t][s->n_tags[t]++] = s->srcs[t].cur;
    return SILT_OK;
}

/*
 * SINK_COLLECT: worker t keeps chunk c (its live rows, the extras
 * evaluated over them) with its morsel's tag; 1 in *full once the worker's
 * share of the budget is used up.
 */
static silt_status collect_chunk(pipe_state *s, size_t t, engine_chunk *c, arena *scratch,
                                 int *full, silt_error *err)
{
    size_t col, n_cols = s->top->schema->n_fields;
    if (c->batch.n_cols < n_cols)
        return err_set(err, SILT_INVALID, "a worker's chunk has %zu columns, the window expects "
                       "%zu", c->batch.n_cols, n_cols);
    SILT_RETURN_IF_ERROR(push_tag(s, t, err));
    for (col = 0; col < n_cols; col++)
        SILT_RETURN_IF_ERROR(vec_accum_add(&s->accs[t][col], c->batch.cols[col], c->sel,
                                           c->n_sel, err));
    for (col = 0; col < s->n_extras; col++) {
        col_vec *v;
        if (s->extras[col] == NULL)
            continue;
        SILT_RETURN_IF_ERROR(expr_eval(s->extras[col], &s->wctx[t], &c->batch, c->sel, c->n_sel,
                                       scratch, &v, err));
        SILT_RETURN_IF_ERROR(vec_accum_add(&s->accs[t][n_cols + col], v, c->sel, c->n_sel, err));
    }
    if (s->hook != NULL)
        SILT_RETURN_IF_ERROR(s->hook(s->hook_arg, c->batch.cols, c->sel, c->n_sel,
                                     s->acc_arenas[t], &s->notes[t][s->n_tags[t] - 1], err));
    *full = s->budget > 0 &&
            (int64_t)arena_bytes_used(s->acc_arenas[t]) * (int64_t)s->width > s->budget;
    return SILT_OK;
}

static silt_status collect_window_input(pipe_state *s, size_t t, silt_error *err)
{
    arena *scratch = arena_new(s->roots[t], "window_input_scratch");
    silt_status rc = SILT_OK;
    if (scratch == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(engine_op_open(s->tops[t], err));
    while (rc == SILT_OK && !atomic_load(&s->stop)) {
        engine_chunk *c;
        int full = 0;
        rc = engine_op_next(s->tops[t], &c, err);
        if (rc != SILT_OK)
            break;
        if (c == NULL) {
            s->done[t] = 1;
            break;
        }
        if (c->n_sel == 0)
            continue;
        arena_reset(scratch);
        rc = collect_chunk(s, t, c, scratch, &full, err);
        if (rc == SILT_OK && full)
            atomic_store(&s->stop, 1); /* every worker stops: the window will spill */
    }
    arena_free(scratch);
    return rc;
}

/* SINK_CALL: worker chain t's rows go to the callback, batch by batch in the chain's order. */
static silt_status call_task(pipe_state *s, size_t t, silt_error *err)
{
    arena *scratch = arena_new(s->roots[t], "pipeline_sink_scratch");
    silt_status rc;
    if (scratch == NULL)
        return err_nomem(err);
    rc = engine_op_open(s->tops[t], err);
    while (rc == SILT_OK) {
        engine_chunk *c;
        col_batch *b;
        rc = engine_op_next(s->tops[t], &c, err);
        if (rc != SILT_OK || c == NULL)
            break;
        if (c->n_sel == 0)
            continue;
        arena_reset(scratch);
        rc = dense_batch(c, scratch, &b, err);
        if (rc == SILT_OK)
            rc = s->call(s->call_arg, t, b, err);
    }
    arena_free(scratch);
    return rc;
}

/* SINK_TOPN / SINK_WINDOW: worker chain t's rows are kept in its accumulators. */
static silt_status collect_task(void *payload, size_t t, size_t worker_idx, silt_error *err)
{
    pipe_state *s = payload;
    size_t col;
    (void)worker_idx;
    if (s->sink == SINK_COLLECT)
        return collect_window_input(s, t, err);
    if (s->sink == SINK_CALL)
        return call_task(s, t, err);
    SILT_RETURN_IF_ERROR(engine_op_open(s->tops[t], err));
    for (;;) {
        engine_chunk *c;
        SILT_RETURN_IF_ERROR(engine_op_next(s->tops[t], &c, err));
        if (c == NULL)
            return SILT_OK;
        for (col = 0; col < c->batch.n_cols; col++)
            SILT_RETURN_IF_ERROR(vec_accum_add(&s->accs[t][col], c->batch.cols[col], c->sel,
                                               c->n_sel, err));
    }
}

/* The workers' rows as one batch in the operator's arena. */
static silt_status gather_collected(engine_op *op, pipe_state *s, silt_error *err)
{
    size_t n_cols = op->schema->n_fields, col, w;
    col_batch *r = arena_calloc(op->op_arena, 1, sizeof(*r));
    if (r == NULL)
        return err_nomem(err);
    r->schema = op->schema;
    r->n_cols = n_cols;
    r->cols = arena_calloc(op->op_arena, n_cols + 1, sizeof(col_vec *));
    if (r->cols == NULL)
        return err_nomem(err);
    for (col = 0; col < n_cols; col++) {
        vec_accum all;
        vec_accum_init(&all, op->op_arena, op->schema->fields[col].type);
        for (w = 0; w < s->width; w++) {
            col_vec *part;
            SILT_RETURN_IF_ERROR(vec_accum_finish(&s->accs[w][col], &part, err));
            SILT_RETURN_IF_ERROR(vec_accum_add(&all, part, NULL, s->accs[w][col].n_rows, err));
        }
        SILT_RETURN_IF_ERROR(vec_accum_finish(&all, &r->cols[col], err));
        r->n_rows = all.n_rows;
    }
    s->result = r;
    return SILT_OK;
}

static silt_status pipe_run(engine_op *op, pipe_state *s, silt_error *err)
{
    silt_status rc = pipe_setup(op, s, err);
    if (rc == SILT_OK && s->sink == SINK_AGG)
        rc = engine_parallel_agg(op->ctx, s->top->schema, chain_morsel, s, s->width, NULL, s->keys,
                                 s->key_names, s->n_keys, s->aggs, s->n_aggs, op->op_arena,
                                 &s->result, err);
    else if (rc == SILT_OK)
        rc = tpool_run(op->ctx->pool, s->width, collect_task, s, err);
    if (rc == SILT_OK && s->sink != SINK_AGG)
        rc = gather_collected(op, s, err);
    pipe_teardown(s);
    return rc;
}

static silt_status pipe_open(engine_op *op, silt_error *err)
{
    pipe_state *s = op->state;
    if (s->sink == SINK_COLLECT)
        pipe_teardown(s); /* opened again: the workers of the last run go */
    s->result = NULL;
    s->next_row = 0;
    s->collected = 0;
    return SILT_OK;
}

/* SINK_COLLECT after engine_pipeline_collect: the rows the workers left, chain after chain. */
static silt_status collect_rest(pipe_state *s, engine_chunk **out, silt_error *err)
{
    for (; s->serial_w < s->width; s->serial_w++) {
        if (s->done[s->serial_w])
            continue;
        SILT_RETURN_IF_ERROR(engine_op_next(s->tops[s->serial_w], out, err));
        if (*out != NULL)
            return SILT_OK;
        s->done[s->serial_w] = 1;
    }
    *out = NULL;
    return SILT_OK;
}

static silt_status pipe_next(engine_op *op, engine_chunk **out, silt_error *err)
{
    pipe_state *s = op->state;
    if (s->sink == SINK_COLLECT) {
        if (!s->collected)
            return err_set(err, SILT_INVALID, "a window's parallel input was read before it "
                           "was collected");
        return collect_rest(s, out, err);
    }
    if (s->result == NULL)
        SILT_RETURN_IF_ERROR(pipe_run(op, s, err));
    return engine_chunk_of_rows(op, s->result->cols, op->schema->n_fields, s->result->n_rows,
                                &s->next_row, out, err);
}

/* Frees the workers' arenas when the query stops before the pipeline finished. */
static void pipe_close(engine_op *op) { pipe_teardown(op->state); }

static const engine_op_vtable agg_vt = {"parallel_pipeline_aggregate", pipe_open, pipe_next,
                                        pipe_close, NULL};
static const engine_op_vtable collect_vt = {"parallel_pipeline", pipe_open, pipe_next, pipe_close,
                                            NULL};

int engine_pipeline_info(const engine_op *op, engine_parallel_info *info)
{
    const pipe_state *s;
    if (op->vt != &agg_vt && op->vt != &collect_vt)
        return 0;
    s = op->state;
    memset(info, 0, sizeof(*info));
    info->sink = s->sink == SINK_AGG       ? ENGINE_SINK_PARTIAL_AGG
                 : s->sink == SINK_TOPN    ? ENGINE_SINK_TOPN
                 : s->sink == SINK_COLLECT ? ENGINE_SINK_WINDOW_INPUT
                                           : ENGINE_SINK_WINDOW_LIMIT;
    info->chain = s->top;
    info->leaf = s->leaf;
    info->morsel_payload = s->payload;
    info->n_morsels = s->n_morsels;
    info->width = op->ctx->pool != NULL ? tpool_width(op->ctx->pool) : 1;
    info->key_names = s->key_names;
    info->n_keys = s->n_keys;
    info->aggs = s->aggs;
    info->n_aggs = s->n_aggs;
    info->keep = s->keep;
    return 1;
}

static silt_status pipe_new(engine_op **out, engine_ctx *ctx, const engine_op_vtable *vt,
                            const col_type *schema, engine_op *top, pipe_sink sink,
                            silt_error *err)
{
    pipe_state *s;
    engine_morsel_fn fn;
    void *payload;
    size_t n;
    engine_op *leaf = chain_leaf(top, &fn, &payload, &n);
    if (leaf == NULL)
        return err_set(err, SILT_INVALID, "operator \"%s\" does not top a chain over morsels",
                       top->vt->name);
    SILT_RETURN_IF_ERROR(engine_op_new_internal(out, ctx, vt, schema, sizeof(pipe_state), NULL, 0,
                                                err));
    s = (*out)->state;
    s->sink = sink;
    s->top = top;
    s->leaf = leaf;
    s->fn = fn;
    s->payload = payload;
    s->n_morsels = n;
    return SILT_OK;
}

silt_status engine_op_chain_agg(engine_op **out, engine_ctx *ctx, engine_op *top, expr **keys,
                                const char *const *key_names, size_t n_keys,
                                const engine_agg *aggs, size_t n_aggs, silt_error *err)
{
    arena *qa = ctx->query_arena;
    size_t n_cols = n_keys + n_aggs, idx;
    const col_type **types = arena_calloc(qa, n_cols + 1, sizeof(col_type *));
    const char **names = arena_calloc(qa, n_cols + 1, sizeof(char *));
    const col_type *schema;
    pipe_state *s;
    if (types == NULL || names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_keys; idx++) {
        types[idx] = keys[idx]->type;
        names[idx] = key_names && key_names[idx] ? key_names[idx] : arena_sprintf(qa, "k%zu", idx);
    }
    for (idx = 0; idx < n_aggs; idx++) {
        SILT_RETURN_IF_ERROR(engine_agg_type_checked(&types[n_keys + idx], qa, aggs[idx].kind,
                                                     aggs[idx].arg ? aggs[idx].arg->type : NULL,
                                                     err));
        names[n_keys + idx] = aggs[idx].name ? aggs[idx].name : arena_sprintf(qa, "agg%zu", idx);
    }
    SILT_RETURN_IF_ERROR(engine_make_schema(&schema, qa, names, types, n_cols, err));
    SILT_RETURN_IF_ERROR(pipe_new(out, ctx, &agg_vt, schema, top, SINK_AGG, err));
    s = (*out)->state;
    /* Copied, so callers may pass arrays that die before the operator runs. */
    s->keys = arena_memdup(qa, keys ? (const void *)keys : (const void *)"", sizeof(expr *) * n_keys);
    s->key_names = names;
    s->n_keys = n_keys;
    s->aggs = arena_memdup(qa, aggs ? (const void *)aggs : (const void *)"",
                           sizeof(engine_agg) * n_aggs);
    s->n_aggs = n_aggs;
    if (s->keys == NULL || s->aggs == NULL)
        return err_nomem(err);
    return SILT_OK;
}

silt_status engine_op_chain_topn(engine_op **out, engine_ctx *ctx, engine_op *top,
                                 const engine_sort_key *keys, size_t n_keys, int64_t keep,
                                 silt_error *err)
{
    pipe_state *s;
    if (keep < 0)
        return err_set(err, SILT_INVALID, "a parallel top-N needs a limit");
    SILT_RETURN_IF_ERROR(pipe_new(out, ctx, &collect_vt, top->schema, top, SINK_TOPN, err));
    s = (*out)->state;
    s->sort_keys = arena_memdup(ctx->query_arena, keys ? (const void *)keys : (const void *)"",
                                sizeof(engine_sort_key) * n_keys);
    if (s->sort_keys == NULL)
        return err_nomem(err);
    s->n_sort_keys = n_keys;
    s->keep = keep;
    return SILT_OK;
}

int engine_window_parallel_input(engine_op *win)
{
    engine_op *p;
    silt_error err = SILT_ERROR_INIT;
    if (win->n_children != 1)
        return 0;
    if (engine_pipeline_is_collect(win->children[0])) {
        /* the window's input already runs on every worker: it now ends in the limited window */
        pipe_state *s = win->children[0]->state;
        s->sink = SINK_WINDOW;
        s->win = win;
        s->n_extras = 0;
        s->hook = NULL;
        return 1;
    }
    if (!engine_chain_parallel(win->children[0]))
        return 0;
    if (pipe_new(&p, win->ctx, &collect_vt, win->children[0]->schema, win->children[0],
                 SINK_WINDOW, &err) != SILT_OK) {
        err_clear(&err);
        return 0; /* the serial input stays: same rows */
    }
    ((pipe_state *)p->state)->win = win;
    win->children[0] = p;
    return 1;
}

int engine_pipeline_is_collect(const engine_op *op)
{
    return op->vt == &collect_vt && ((const pipe_state *)op->state)->sink == SINK_COLLECT;
}

silt_status engine_op_window_input(engine_op **out, engine_ctx *ctx, engine_op *top,
                                   expr *const *extras, size_t n_extras, engine_collect_hook hook,
                                   void *hook_arg, silt_error *err)
{
    pipe_state *s;
    SILT_RETURN_IF_ERROR(pipe_new(out, ctx, &collect_vt, top->schema, top, SINK_COLLECT, err));
    s = (*out)->state;
    s->extras = arena_memdup(ctx->query_arena, extras ? (const void *)extras : (const void *)"",
                             sizeof(expr *) * n_extras);
    if (s->extras == NULL)
        return err_nomem(err);
    s->n_extras = n_extras;
    s->hook = hook;
    s->hook_arg = hook_arg;
    return SILT_OK;
}

silt_status engine_pipeline_collect(engine_op *op, int64_t budget, engine_collected *out,
                                    silt_error *err)
{
    pipe_state *s = op->state;
    size_t w;
    silt_status rc;
    if (!engine_pipeline_is_collect(op))
        return err_set(err, SILT_INVALID, "operator \"%s\" is not a window's parallel input",
                       op->vt->name);
    s->budget = budget;
    rc = pipe_setup(op, s, err);
    if (rc == SILT_OK)
        rc = tpool_run(op->ctx->pool, s->width, collect_task, s, err);
    if (rc != SILT_OK) {
        pipe_teardown(s);
        return rc;
    }
    s->collected = 1;
    memset(out, 0, sizeof(*out));
    out->width = s->width;
    out->accs = s->accs;
    out->tags = (const int64_t *const *)s->tags;
    out->notes = (void *const *const *)s->notes;
    out->n_tags = s->n_tags;
    out->stopped = atomic_load(&s->stop);
    for (w = 0; w < s->width; w++)
        out->bytes += (int64_t)arena_bytes_used(s->acc_arenas[w]);
    return SILT_OK;
}

void engine_pipeline_release_rows(engine_op *op)
{
    if (engine_pipeline_is_collect(op))
        release_rows(op->state);
}

/* The serial form of engine_run_chain: top on the caller, as worker 0. */
static silt_status run_serial(engine_op *top, engine_batch_sink_fn fn, void *arg,
                              silt_error *err)
{
    arena *scratch = arena_new(top->ctx->query_arena, "chain_sink_scratch");
    silt_status rc;
    if (scratch == NULL)
        return err_nomem(err);
    rc = engine_op_open(top, err);
    while (rc == SILT_OK) {
        engine_chunk *c;
        col_batch *b;
        rc = engine_op_next(top, &c, err);
        if (rc != SILT_OK || c == NULL)
            break;
        if (c->n_sel == 0)
            continue;
        arena_reset(scratch);
        rc = dense_batch(c, scratch, &b, err);
        if (rc == SILT_OK)
            rc = fn(arg, 0, b, err);
    }
    engine_op_close(top);
    arena_free(scratch);
    return rc;
}

size_t engine_chain_width(engine_op *top)
{
    return engine_chain_parallel(top) ? tpool_width(top->ctx->pool) : 1;
}

silt_status engine_run_chain(engine_op *top, engine_batch_sink_fn fn, void *arg, silt_error *err)
{
    engine_op *op;
    pipe_state *s;
    silt_status rc;
    if (!engine_chain_parallel(top))
        return run_serial(top, fn, arg, err);
    /* A build side that went to disk is a grace join, which only the chain itself can run
     * (its partitions read the probe side it owns): then the chain runs on the caller. */
    for (op = top; op->n_children > 0; op = op->children[0])
        if (engine_join_probe_only(op)) {
            SILT_RETURN_IF_ERROR(engine_join_build_shared(op, err));
            if (engine_join_spilled(op))
                return run_serial(top, fn, arg, err);
        }
    SILT_RETURN_IF_ERROR(pipe_new(&op, top->ctx, &collect_vt, top->schema, top, SINK_CALL, err));
    s = op->state;
    s->call = fn;
    s->call_arg = arg;
    rc = pipe_setup(op, s, err);
    if (rc == SILT_OK)
        rc = tpool_run(op->ctx->pool, s->width, collect_task, s, err);
    pipe_teardown(s);
    engine_op_close(op);
    return rc;
}
