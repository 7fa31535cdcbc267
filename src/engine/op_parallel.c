/*
 * op_parallel.c - morsel-driven parallel scan + filter + aggregate.
 *
 * Every worker of the thread pool takes morsels (files, row groups, ranges)
 * one at a time from tpool_run's counter, filters their batches and adds
 * them to its own partial aggregation table: no locks on the hot path. The
 * partial tables are merged into the first at the end, on the caller.
 * DISTINCT aggregates merge too: each worker keeps its (group, value) set,
 * and the merge folds in only the pairs the first table had not seen.
 */
#include "engine/agg_int.h"
#include "engine/op_int.h"

#include <string.h>

typedef struct par_worker {
    arena *table_arena;
    arena *batch_arena;
    agg_table table;
} par_worker;

typedef struct par_job {
    engine_ctx *ctx;
    const col_type *schema;
    engine_morsel_fn fn;
    void *payload;
    const expr *filter;
    expr **keys;
    size_t n_keys;
    const engine_agg *aggs;
    size_t n_aggs;
    par_worker *workers;
} par_job;

static silt_status add_batch(par_job *job, par_worker *w, const col_batch *b, silt_error *err)
{
    arena *a = w->batch_arena;
    int32_t *sel = NULL;
    int64_t n_sel = b->n_rows;
    col_vec **keys = arena_calloc(a, job->n_keys ? job->n_keys : 1, sizeof(col_vec *));
    col_vec **args = arena_calloc(a, job->n_aggs ? job->n_aggs : 1, sizeof(col_vec *));
    col_vec **filters = arena_calloc(a, job->n_aggs ? job->n_aggs : 1, sizeof(col_vec *));
    size_t idx;
    if (keys == NULL || args == NULL || filters == NULL)
        return err_nomem(err);
    if (b->n_cols != job->schema->n_fields)
        return err_set(err, SILT_INVALID, "a morsel produced %zu columns, the plan expects %zu",
                       b->n_cols, job->schema->n_fields);
    if (job->filter != NULL) {
        sel = arena_alloc(a, sizeof(int32_t) * (size_t)(b->n_rows ? b->n_rows : 1));
        if (sel == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(expr_filter(job->filter, job->ctx, b, NULL, b->n_rows, a, sel,
                                         &n_sel, err));
        if (n_sel == 0)
            return SILT_OK;
    }
    for (idx = 0; idx < job->n_keys; idx++)
        SILT_RETURN_IF_ERROR(expr_eval(job->keys[idx], job->ctx, b, sel, n_sel, a, &keys[idx], err));
    for (idx = 0; idx < job->n_aggs; idx++) {
        if (job->aggs[idx].arg != NULL)
            SILT_RETURN_IF_ERROR(expr_eval(job->aggs[idx].arg, job->ctx, b, sel, n_sel, a,
                                           &args[idx], err));
        if (job->aggs[idx].filter != NULL)
            SILT_RETURN_IF_ERROR(expr_eval(job->aggs[idx].filter, job->ctx, b, sel, n_sel, a,
                                           &filters[idx], err));
    }
    return engine_agg_table_add(&w->table, b->n_rows, sel, n_sel, keys, args, filters, a, err);
}

static silt_status run_morsel(void *payload, size_t task_idx, size_t worker_idx, silt_error *err)
{
    par_job *job = payload;
    par_worker *w = &job->workers[worker_idx];
    size_t cursor = 0;
    for (;;) {
        col_batch *b = NULL;
        SILT_RETURN_IF_ERROR(engine_check_interrupt(job->ctx, err));
        arena_reset(w->batch_arena);
        SILT_RETURN_IF_ERROR(job->fn(job->payload, task_idx, &cursor, w->batch_arena, &b, err));
        if (b == NULL)
            return SILT_OK;
        SILT_RETURN_IF_ERROR(add_batch(job, w, b, err));
    }
}

silt_status engine_parallel_agg(engine_ctx *ctx, const col_type *schema, engine_morsel_fn fn,
                                void *payload, size_t n_morsels, const expr *filter,
                                expr **keys, const char *const *key_names, size_t n_keys,
                                const engine_agg *aggs, size_t n_aggs, arena *a,
                                col_batch **out, silt_error *err)
{
    par_job job;
    size_t width = tpool_width(ctx->pool), idx, n_cols = n_keys + n_aggs;
    tpool *pool = ctx->pool;
    const col_type **key_types = arena_calloc(a, n_keys ? n_keys : 1, sizeof(col_type *));
    const col_type **types = arena_calloc(a, n_cols ? n_cols : 1, sizeof(col_type *));
    const char **names = arena_calloc(a, n_cols ? n_cols : 1, sizeof(char *));
    col_batch *result = arena_calloc(a, 1, sizeof(*result));
    arena *scratch = NULL;
    silt_status rc = SILT_OK;
    if (key_types == NULL || types == NULL || names == NULL || result == NULL)
        return err_nomem(err);
    if (pool == NULL)
        width = 1;
    for (idx = 0; idx < n_keys; idx++) {
        key_types[idx] = types[idx] = keys[idx]->type;
        names[idx] = key_names && key_names[idx] ? arena_strdup(a, key_names[idx])
                                                 : arena_sprintf(a, "k%zu", idx);
        if (names[idx] == NULL)
            return err_nomem(err);
    }
    for (idx = 0; idx < n_aggs; idx++) {
        SILT_RETURN_IF_ERROR(engine_agg_type_checked(&types[n_keys + idx], a, aggs[idx].kind,
                                                     aggs[idx].arg ? aggs[idx].arg->type : NULL,
                                                     err));
        names[n_keys + idx] = aggs[idx].name ? arena_strdup(a, aggs[idx].name)
                                             : arena_sprintf(a, "agg%zu", idx);
        if (names[n_keys + idx] == NULL)
            return err_nomem(err);
    }
    memset(&job, 0, sizeof(job));
    job.ctx = ctx;
    job.schema = schema;
    job.fn = fn;
    job.payload = payload;
    job.filter = filter;
    job.keys = keys;
    job.n_keys = n_keys;
    job.aggs = aggs;
    job.n_aggs = n_aggs;
    /* Worker arenas are roots: arenas are not thread-safe, so none shares a parent. */
    job.workers = arena_calloc(a, width, sizeof(par_worker));
    scratch = arena_new(NULL, "parallel_agg_merge");
    if (job.workers == NULL || scratch == NULL) {
        rc = err_nomem(err);
        goto done;
    }
    for (idx = 0; idx < width && rc == SILT_OK; idx++) {
        par_worker *w = &job.workers[idx];
        w->table_arena = arena_new(NULL, "parallel_agg_table");
        w->batch_arena = arena_new(NULL, "parallel_agg_batch");
        if (w->table_arena == NULL || w->batch_arena == NULL)
            rc = err_nomem(err);
        else
            rc = engine_agg_table_init(&w->table, ctx, w->table_arena, n_keys, key_types, aggs, n_aggs, err);
    }
    if (rc == SILT_OK)
        rc = tpool_run(pool, n_morsels, run_morsel, &job, err);
    for (idx = 1; idx < width && rc == SILT_OK; idx++) {
        arena_reset(scratch);
        rc = engine_agg_table_merge(&job.workers[0].table, &job.workers[idx].table, scratch, err);
    }
    if (rc == SILT_OK && n_keys == 0 && job.workers[0].table.n_groups == 0)
        rc = engine_agg_table_add(&job.workers[0].table, 0, NULL, 0, NULL, NULL, NULL, scratch, err);
    if (rc == SILT_OK) {
        result->n_cols = n_cols;
        result->n_rows = job.workers[0].table.n_groups;
        result->cols = arena_calloc(a, n_cols ? n_cols : 1, sizeof(col_vec *));
        if (result->cols == NULL)
            rc = err_nomem(err);
    }
    if (rc == SILT_OK)
        rc = engine_agg_table_finish(&job.workers[0].table, a, result->cols, err);
    if (rc == SILT_OK) {
        /* The finished key columns may live in the worker arena: copy them out. */
        for (idx = 0; idx < n_keys && rc == SILT_OK; idx++) {
            col_vec *copy;
            int64_t *all = arena_alloc(a, sizeof(int64_t) * (size_t)(result->n_rows ? result->n_rows : 1));
            int64_t r;
            if (all == NULL) {
                rc = err_nomem(err);
                break;
            }
            for (r = 0; r < result->n_rows; r++)
                all[r] = r;
            rc = vec_gather(&copy, a, result->cols[idx], all, result->n_rows, err);
            result->cols[idx] = copy;
        }
    }
    if (rc == SILT_OK) {
        const col_type *st;
        col_field *fields = arena_calloc(a, n_cols ? n_cols : 1, sizeof(col_field));
        if (fields == NULL) {
            rc = err_nomem(err);
            goto done;
        }
        for (idx = 0; idx < n_cols; idx++) {
            fields[idx].name = names[idx];
            fields[idx].type = types[idx];
            fields[idx].nullable = 1;
            fields[idx].field_id = -1;
        }
        st = col_type_struct(a, n_cols, fields);
        if (st == NULL) {
            rc = err_nomem(err);
            goto done;
        }
        result->schema = st;
        *out = result;
    }
done:
    if (job.workers != NULL) {
        for (idx = 0; idx < width; idx++) {
            engine_agg_table_clear(&job.workers[idx].table);
            arena_free(job.workers[idx].table_arena);
            arena_free(job.workers[idx].batch_arena);
        }
    }
    arena_free(scratch);
    return rc;
}

/* ---- as an operator --------------------------------------------------------------- */

typedef struct pagg_state {
    const col_type *in_schema;
    engine_morsel_fn fn;
    void *payload;
    size_t n_morsels;
    const expr *filter;
    expr **keys;
    const char *const *key_names;
    size_t n_keys;
    const engine_agg *aggs;
    size_t n_aggs;
    col_batch *result;
    int64_t next_row;
    /*
     * When the partial tables outgrow memory_limit, the query runs again
     * on one thread as scan -> filter -> hash aggregate, which spills
     * (agg_spill.c): partial tables cannot, their groups overlap.
     */
    engine_op *serial;
    size_t morsel, cursor;
} pagg_state;

/* The morsels one after the other, as one source for the serial plan. */
static silt_status serial_source(void *payload, arena *batch_arena, col_batch **out,
                                 silt_error *err)
{
    pagg_state *s = payload;
    *out = NULL;
    while (s->morsel < s->n_morsels) {
        SILT_RETURN_IF_ERROR(s->fn(s->payload, s->morsel, &s->cursor, batch_arena, out, err));
        if (*out != NULL)
            return SILT_OK;
        s->morsel++;
        s->cursor = 0;
    }
    return SILT_OK;
}

static silt_status open_serial(engine_op *op, pagg_state *s, silt_error *err)
{
    engine_op *scan, *top;
    s->morsel = 0;
    s->cursor = 0;
    SILT_RETURN_IF_ERROR(engine_op_scan(&scan, op->ctx, s->in_schema, serial_source, s, err));
    top = scan;
    if (s->filter != NULL)
        SILT_RETURN_IF_ERROR(engine_op_filter(&top, op->ctx, scan, s->filter, err));
    SILT_RETURN_IF_ERROR(engine_op_hash_agg(&s->serial, op->ctx, top, s->keys, s->key_names,
                                            s->n_keys, s->aggs, s->n_aggs, NULL, 0, err));
    return engine_op_open(s->serial, err);
}

static silt_status pagg_open(engine_op *op, silt_error *err)
{
    pagg_state *s = op->state;
    s->result = NULL;
    s->next_row = 0;
    s->serial = NULL;
    return SILT_OK;
}

static silt_status pagg_next(engine_op *op, engine_chunk **out, silt_error *err)
{
    pagg_state *s = op->state;
    if (s->serial != NULL) {
        SILT_RETURN_IF_ERROR(engine_op_next(s->serial, out, err));
        if (*out != NULL)
            (*out)->batch.schema = op->schema;
        return SILT_OK;
    }
    if (s->result == NULL) {
        silt_status rc = engine_parallel_agg(op->ctx, s->in_schema, s->fn, s->payload,
                                             s->n_morsels, s->filter, s->keys, s->key_names,
                                             s->n_keys, s->aggs, s->n_aggs, op->op_arena,
                                             &s->result, err);
        if (rc == SILT_NOMEM && op->ctx->mem_limit > 0 && s->n_keys > 0) {
            err_clear(err);
            SILT_RETURN_IF_ERROR(open_serial(op, s, err));
            return pagg_next(op, out, err);
        }
        SILT_RETURN_IF_ERROR(rc);
    }
    return engine_chunk_of_rows(op, s->result->cols, s->result->n_cols, s->result->n_rows,
                                &s->next_row, out, err);
}

static void pagg_close(engine_op *op)
{
    pagg_state *s = op->state;
    engine_op_close(s->serial);
    s->serial = NULL;
}

static const engine_op_vtable pagg_vt = {"parallel_aggregate", pagg_open, pagg_next, pagg_close,
                                         NULL};

int engine_parallel_agg_info(const engine_op *op, engine_parallel_info *info)
{
    const pagg_state *s;
    if (op->vt != &pagg_vt)
        return 0;
    s = op->state;
    memset(info, 0, sizeof(*info));
    info->sink = ENGINE_SINK_PARTIAL_AGG;
    info->morsel_payload = s->payload;
    info->n_morsels = s->n_morsels;
    info->width = op->ctx->pool != NULL ? tpool_width(op->ctx->pool) : 1;
    info->filter = s->filter;
    info->key_names = s->key_names;
    info->n_keys = s->n_keys;
    info->aggs = s->aggs;
    info->n_aggs = s->n_aggs;
    return 1;
}

silt_status engine_op_parallel_agg(engine_op **out, engine_ctx *ctx, const col_type *schema,
                                   engine_morsel_fn fn, void *payload, size_t n_morsels,
                                   const expr *filter, expr **keys, const char *const *key_names,
                                   size_t n_keys, const engine_agg *aggs, size_t n_aggs,
                                   silt_error *err)
{
    arena *qa = ctx->query_arena;
    size_t n_cols = n_keys + n_aggs, idx;
    const col_type **types = arena_calloc(qa, n_cols ? n_cols : 1, sizeof(col_type *));
    const char **names = arena_calloc(qa, n_cols ? n_cols : 1, sizeof(char *));
    const col_type *out_schema;
    pagg_state *s;
    if (types == NULL || names == NULL)
        return err_nomem(err);
    if (filter != NULL && filter->type->id != COL_BOOLEAN)
        return err_set(err, SILT_BIND, "a filter condition must be boolean, not \"%s\"",
                       col_type_id_name(filter->type->id));
    for (idx = 0; idx < n_keys; idx++) {
        types[idx] = keys[idx]->type;
        names[idx] = key_names && key_names[idx] ? arena_strdup(qa, key_names[idx])
                                                 : arena_sprintf(qa, "k%zu", idx);
        if (names[idx] == NULL)
            return err_nomem(err);
    }
    for (idx = 0; idx < n_aggs; idx++) {
        SILT_RETURN_IF_ERROR(engine_agg_type_checked(&types[n_keys + idx], qa, aggs[idx].kind,
                                                     aggs[idx].arg ? aggs[idx].arg->type : NULL,
                                                     err));
        names[n_keys + idx] = aggs[idx].name ? aggs[idx].name : arena_sprintf(qa, "agg%zu", idx);
    }
    SILT_RETURN_IF_ERROR(engine_make_schema(&out_schema, qa, names, types, n_cols, err));
    SILT_RETURN_IF_ERROR(engine_op_new_internal(out, ctx, &pagg_vt, out_schema,
                                                sizeof(pagg_state), NULL, 0, err));
    s = (*out)->state;
    s->in_schema = schema;
    s->fn = fn;
    s->payload = payload;
    s->n_morsels = n_morsels;
    s->filter = filter;
    /* Copied, so callers may pass arrays that die before the operator runs. */
    s->keys = arena_memdup(qa, keys ? (const void *)keys : (const void *)"", sizeof(expr *) * n_keys);
    s->key_names = names;
    s->n_keys = n_keys;
    s->aggs = arena_memdup(qa, aggs ? (const void *)aggs : (const void *)"", sizeof(engine_agg) * n_aggs);
    s->n_aggs = n_aggs;
    if (s->keys == NULL || s->aggs == NULL)
        return err_nomem(err);
    return SILT_OK;
}
