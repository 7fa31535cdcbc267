/*
 * op.c - the operator base (open/next/close, arenas) and the simple
 * operators: scan from a callback, values, filter, project, limit, union all,
 * and engine_collect.
 */
#include "engine/op_int.h"

#include <string.h>

#include "util/time.h"

/* ---- base ------------------------------------------------------------------------ */

/* Makes an operator with its arenas under the query arena. */
static silt_status op_new(engine_op **out, engine_ctx *ctx, const engine_op_vtable *vt,
                          const col_type *schema, size_t state_size, silt_error *err)
{
    engine_op *op = arena_calloc(ctx->query_arena, 1, sizeof(*op));
    if (op == NULL)
        return err_nomem(err);
    op->vt = vt;
    op->ctx = ctx;
    op->schema = schema;
    op->op_arena = arena_new(ctx->query_arena, vt->name);
    op->batch_arena = op->op_arena ? arena_new(op->op_arena, "batch") : NULL;
    op->state = arena_calloc(ctx->query_arena, 1, state_size ? state_size : 1);
    if (op->op_arena == NULL || op->batch_arena == NULL || op->state == NULL)
        return err_nomem(err);
    *out = op;
    return SILT_OK;
}

silt_status engine_op_new_internal(engine_op **out, engine_ctx *ctx, const engine_op_vtable *vt,
                                   const col_type *schema, size_t state_size, engine_op **children,
                                   size_t n_children, silt_error *err)
{
    engine_op *op = NULL;
    SILT_RETURN_IF_ERROR(op_new(&op, ctx, vt, schema, state_size, err));
    if (n_children > 0) {
        op->children = arena_calloc(ctx->query_arena, n_children, sizeof(engine_op *));
        if (op->children == NULL)
            return err_nomem(err);
        memcpy(op->children, children, n_children * sizeof(engine_op *));
        op->n_children = n_children;
    }
    *out = op;
    return SILT_OK;
}

void engine_op_set_prologue(engine_op *op, engine_prologue_fn fn, void *payload)
{
    op->prologue = fn;
    op->prologue_payload = payload;
}

void engine_op_set_note(engine_op *op, engine_op_note_fn fn, void *payload)
{
    op->note_fn = fn;
    op->note_payload = payload;
}

static silt_status op_open(engine_op *op, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < op->n_children; idx++)
        SILT_RETURN_IF_ERROR(engine_op_open(op->children[idx], err));
    if (op->vt->open != NULL)
        return op->vt->open(op, err);
    return SILT_OK;
}

silt_status engine_op_open(engine_op *op, silt_error *err)
{
    int64_t start;
    silt_status rc;
    /* the subqueries are counted in their own plans, not in op's time */
    if (op->prologue != NULL)
        SILT_RETURN_IF_ERROR(op->prologue(op->prologue_payload, err));
    if (!op->ctx->analyze)
        return op_open(op, err);
    start = time_monotonic_nanos();
    rc = op_open(op, err);
    op->stats.open_nanos += time_monotonic_nanos() - start;
    op->stats.opened = 1;
    return rc;
}

/* engine_op_next under EXPLAIN ANALYZE: the same, counted. */
static silt_status next_counted(engine_op *op, engine_chunk **out, silt_error *err)
{
    int64_t start = time_monotonic_nanos();
    silt_status rc = op->vt->next(op, out, err);
    op->stats.next_nanos += time_monotonic_nanos() - start;
    if (rc == SILT_OK && *out != NULL) {
        op->stats.rows_out += (*out)->n_sel;
        op->stats.chunks_out++;
    }
    return rc;
}

silt_status engine_op_next(engine_op *op, engine_chunk **out, silt_error *err)
{
    silt_status rc;
    *out = NULL;
    /* every operator passes here for every batch: the interrupt's batch boundary */
    SILT_RETURN_IF_ERROR(engine_check_interrupt(op->ctx, err));
    arena_reset(op->batch_arena);
    rc = op->ctx->analyze ? next_counted(op, out, err) : op->vt->next(op, out, err);
    if (rc != SILT_OK && rc != SILT_INTERRUPTED)
        err_context(err, "in operator \"%s\"", op->vt->name);
    return rc;
}

arena *engine_op_take_batch_arena(engine_op *op)
{
    arena *taken = op->batch_arena, *fresh = arena_new(op->op_arena, "batch");
    if (fresh == NULL)
        return NULL;
    arena_detach(taken);
    op->batch_arena = fresh;
    return taken;
}

silt_status engine_op_charge(engine_op *op, int64_t bytes, const char *what, silt_error *err)
{
    SILT_RETURN_IF_ERROR(engine_mem_charge(op->ctx, bytes, what, err));
    op->mem_charged += bytes;
    return SILT_OK;
}

/* The operator's own notes, kept past its close for EXPLAIN ANALYZE. */
static void take_notes(engine_op *op)
{
    buf text = BUF_INIT;
    if (op->note_fn(op, op->note_payload, &text, NULL) == SILT_OK && text.len > 0)
        op->stats.notes = arena_strndup(op->ctx->query_arena, text.data, text.len);
    buf_clear(&text);
}

void engine_op_close(engine_op *op)
{
    size_t idx;
    if (op == NULL)
        return;
    if (op->ctx->analyze && op->note_fn != NULL && op->op_arena != NULL)
        take_notes(op);
    if (op->vt->close != NULL)
        op->vt->close(op);
    engine_mem_release(op->ctx, op->mem_charged);
    op->mem_charged = 0;
    for (idx = 0; idx < op->n_children; idx++)
        engine_op_close(op->children[idx]);
    arena_free(op->op_arena);
    op->op_arena = NULL;
    op->batch_arena = NULL;
}

/* A chunk of columns in the batch arena. */
silt_status engine_chunk_new(engine_chunk **out, engine_op *op, size_t n_cols, int64_t n_rows,
                             silt_error *err)
{
    engine_chunk *c = arena_calloc(op->batch_arena, 1, sizeof(*c));
    if (c == NULL)
        return err_nomem(err);
    c->batch.schema = op->schema;
    c->batch.n_cols = n_cols;
    c->batch.n_rows = n_rows;
    c->batch.cols = arena_calloc(op->batch_arena, n_cols ? n_cols : 1, sizeof(col_vec *));
    if (c->batch.cols == NULL)
        return err_nomem(err);
    c->n_sel = n_rows;
    *out = c;
    return SILT_OK;
}

/*
 * The next chunk of rows [*next_row, n_rows) of columns cols (at most
 * ENGINE_BATCH_ROWS), copied into the batch arena: how operators that hold
 * their whole result (sort, parallel aggregates, pipelines) hand it out.
 * *out = NULL once every row went.
 */
silt_status engine_chunk_of_rows(engine_op *op, col_vec *const *cols, size_t n_cols,
                                 int64_t n_rows, int64_t *next_row, engine_chunk **out,
                                 silt_error *err)
{
    engine_chunk *c = NULL;
    int64_t n = n_rows - *next_row, k, *idx;
    size_t col;
    *out = NULL;
    if (n <= 0)
        return SILT_OK;
    if (n > ENGINE_BATCH_ROWS)
        n = ENGINE_BATCH_ROWS;
    idx = arena_alloc(op->batch_arena, sizeof(int64_t) * (size_t)n);
    if (idx == NULL)
        return err_nomem(err);
    for (k = 0; k < n; k++)
        idx[k] = *next_row + k;
    SILT_RETURN_IF_ERROR(engine_chunk_new(&c, op, n_cols, n, err));
    for (col = 0; col < n_cols; col++)
        SILT_RETURN_IF_ERROR(
            vec_gather(&c->batch.cols[col], op->batch_arena, cols[col], idx, n, err));
    *next_row += n;
    *out = c;
    return SILT_OK;
}

silt_status engine_collect(engine_op *op, arena *a, col_batch **out, silt_error *err)
{
    size_t n_cols = op->schema->n_fields, col;
    vec_accum *acc = arena_calloc(a, n_cols ? n_cols : 1, sizeof(vec_accum));
    col_batch *batch = arena_calloc(a, 1, sizeof(*batch));
    silt_status rc;
    int64_t n_rows = 0;
    if (acc == NULL || batch == NULL)
        return err_nomem(err);
    for (col = 0; col < n_cols; col++)
        vec_accum_init(&acc[col], a, op->schema->fields[col].type);
    rc = engine_op_open(op, err);
    while (rc == SILT_OK) {
        engine_chunk *c;
        rc = engine_op_next(op, &c, err);
        if (rc != SILT_OK || c == NULL)
            break;
        for (col = 0; col < n_cols && rc == SILT_OK; col++)
            rc = vec_accum_add(&acc[col], c->batch.cols[col], c->sel, c->n_sel, err);
        n_rows += c->n_sel;
    }
    engine_op_close(op);
    if (rc != SILT_OK)
        return rc;
    batch->schema = op->schema;
    batch->n_cols = n_cols;
    batch->n_rows = n_rows;
    batch->cols = arena_calloc(a, n_cols ? n_cols : 1, sizeof(col_vec *));
    if (batch->cols == NULL)
        return err_nomem(err);
    for (col = 0; col < n_cols; col++)
        SILT_RETURN_IF_ERROR(vec_accum_finish(&acc[col], &batch->cols[col], err));
    *out = batch;
    return SILT_OK;
}

/* ---- scan ----------------------------------------------------------------------------- */

typedef struct scan_state {
    engine_source_fn fn;
    void *payload;
    col_batch **batches; /* values: borrowed batches */
    size_t n_batches, next_batch;
    /* The same source in morsels, for parallel pipelines (op_pipeline.c). */
    engine_morsel_fn morsel_fn;
    void *morsel_payload;
    size_t n_morsels;
} scan_state;

static silt_status check_batch(const engine_op *op, const col_batch *b, silt_error *err)
{
    size_t col;
    if (b->n_cols != op->schema->n_fields)
        return err_set(err, SILT_INVALID, "the source produced %zu columns, the plan expects %zu",
                       b->n_cols, op->schema->n_fields);
    for (col = 0; col < b->n_cols; col++) {
        if (b->cols[col]->length < b->n_rows)
            return err_set(err, SILT_INVALID, "column %zu of the source has %lld rows, not %lld",
                           col, (long long)b->cols[col]->length, (long long)b->n_rows);
        if (b->cols[col]->type->id != op->schema->fields[col].type->id)
            return err_set(err, SILT_INVALID, "column \"%s\" of the source has type \"%s\", the "
                           "plan expects \"%s\"", op->schema->fields[col].name,
                           col_type_id_name(b->cols[col]->type->id),
                           col_type_id_name(op->schema->fields[col].type->id));
    }
    return SILT_OK;
}

static silt_status scan_next(engine_op *op, engine_chunk **out, silt_error *err)
{
    scan_state *s = op->state;
    engine_chunk *c;
    col_batch *b = NULL;
    for (;;) {
        if (s->fn != NULL) {
            SILT_RETURN_IF_ERROR(s->fn(s->payload, op->batch_arena, &b, err));
        } else {
            b = s->next_batch < s->n_batches ? s->batches[s->next_batch++] : NULL;
        }
        if (b == NULL) {
            *out = NULL;
            return SILT_OK;
        }
        if (b->n_rows > 0)
            break;
    }
    SILT_RETURN_IF_ERROR(check_batch(op, b, err));
    c = arena_calloc(op->batch_arena, 1, sizeof(*c));
    if (c == NULL)
        return err_nomem(err);
    c->batch = *b;
    c->sel = NULL;
    c->n_sel = b->n_rows;
    *out = c;
    return SILT_OK;
}

static silt_status scan_open(engine_op *op, silt_error *err)
{
    scan_state *s = op->state;
    s->next_batch = 0;
    return SILT_OK;
}

static const engine_op_vtable scan_vt = {"scan", scan_open, scan_next, NULL, NULL};

silt_status engine_op_scan(engine_op **out, engine_ctx *ctx, const col_type *schema,
                           engine_source_fn fn, void *payload, silt_error *err)
{
    scan_state *s;
    SILT_RETURN_IF_ERROR(
        engine_op_new_internal(out, ctx, &scan_vt, schema, sizeof(scan_state), NULL, 0, err));
    s = (*out)->state;
    s->fn = fn;
    s->payload = payload;
    return SILT_OK;
}

void engine_op_scan_set_morsels(engine_op *scan, engine_morsel_fn fn, void *payload,
                                size_t n_morsels)
{
    scan_state *s;
    if (scan->vt != &scan_vt)
        return;
    s = scan->state;
    s->morsel_fn = fn;
    s->morsel_payload = payload;
    s->n_morsels = n_morsels;
}

int engine_op_scan_morsels(const engine_op *op, engine_morsel_fn *fn, void **payload,
                           size_t *n_morsels)
{
    const scan_state *s;
    if (op->vt != &scan_vt)
        return 0;
    s = op->state;
    if (s->morsel_fn == NULL || s->fn == NULL)
        return 0;
    *fn = s->morsel_fn;
    *payload = s->morsel_payload;
    *n_morsels = s->n_morsels;
    return 1;
}

silt_status engine_op_values(engine_op **out, engine_ctx *ctx, const col_type *schema,
                             col_batch **batches, size_t n_batches, silt_error *err)
{
    scan_state *s;
    SILT_RETURN_IF_ERROR(
        engine_op_new_internal(out, ctx, &scan_vt, schema, sizeof(scan_state), NULL, 0, err));
    s = (*out)->state;
    s->batches = batches;
    s->n_batches = n_batches;
    return SILT_OK;
}

/* ---- filter ------------------------------------------------------------------------- */

typedef struct filter_state {
    const expr *pred;
} filter_state;

static silt_status filter_next(engine_op *op, engine_chunk **out, silt_error *err)
{
    filter_state *s = op->state;
    for (;;) {
        engine_chunk *in, *c;
        int32_t *sel;
        int64_t n;
        SILT_RETURN_IF_ERROR(engine_op_next(op->children[0], &in, err));
        if (in == NULL) {
            *out = NULL;
            return SILT_OK;
        }
        sel = arena_alloc(op->batch_arena, sizeof(int32_t) * (size_t)(in->n_sel ? in->n_sel : 1));
        if (sel == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(expr_filter(s->pred, op->ctx, &in->batch, in->sel, in->n_sel,
                                         op->batch_arena, sel, &n, err));
        if (n == 0)
            continue;
        c = arena_calloc(op->batch_arena, 1, sizeof(*c));
        if (c == NULL)
            return err_nomem(err);
        /* The child's chunk stays valid until we call its next() again. */
        c->batch = in->batch;
        c->sel = n == in->batch.n_rows ? NULL : sel;
        c->n_sel = n;
        *out = c;
        return SILT_OK;
    }
}

static const engine_op_vtable filter_vt = {"filter", NULL, filter_next, NULL, NULL};

silt_status engine_op_filter(engine_op **out, engine_ctx *ctx, engine_op *child,
                             const expr *predicate, silt_error *err)
{
    if (predicate->type->id != COL_BOOLEAN)
        return err_set(err, SILT_BIND, "a filter condition must be boolean, not \"%s\"",
                       col_type_id_name(predicate->type->id));
    SILT_RETURN_IF_ERROR(engine_op_new_internal(out, ctx, &filter_vt, child->schema,
                                                sizeof(filter_state), &child, 1, err));
    ((filter_state *)(*out)->state)->pred = predicate;
    return SILT_OK;
}

/* ---- project ------------------------------------------------------------------------- */

typedef struct project_state {
    expr **exprs;
    size_t n_exprs;
} project_state;

static silt_status project_next(engine_op *op, engine_chunk **out, silt_error *err)
{
    project_state *s = op->state;
    engine_chunk *in, *c = NULL;
    size_t idx;
    SILT_RETURN_IF_ERROR(engine_op_next(op->children[0], &in, err));
    if (in == NULL) {
        *out = NULL;
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(engine_chunk_new(&c, op, s->n_exprs, in->batch.n_rows, err));
    for (idx = 0; idx < s->n_exprs; idx++)
        SILT_RETURN_IF_ERROR(expr_eval(s->exprs[idx], op->ctx, &in->batch, in->sel, in->n_sel,
                                       op->batch_arena, &c->batch.cols[idx], err));
    c->sel = in->sel;
    c->n_sel = in->n_sel;
    *out = c;
    return SILT_OK;
}

static const engine_op_vtable project_vt = {"project", NULL, project_next, NULL, NULL};

/* A STRUCT schema from names and types (names NULL: c0, c1, ...). */
silt_status engine_make_schema(const col_type **out, arena *a, const char *const *names,
                               const col_type *const *types, size_t n, silt_error *err)
{
    col_field *fields = arena_calloc(a, n ? n : 1, sizeof(col_field));
    size_t idx;
    const col_type *t;
    if (fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        fields[idx].name = names && names[idx] ? arena_strdup(a, names[idx])
                                               : arena_sprintf(a, "c%zu", idx);
        fields[idx].type = types[idx];
        fields[idx].nullable = 1;
        fields[idx].field_id = -1;
        if (fields[idx].name == NULL)
            return err_nomem(err);
    }
    t = col_type_struct(a, n, fields);
    if (t == NULL)
        return err_nomem(err);
    *out = t;
    return SILT_OK;
}

silt_status engine_op_project(engine_op **out, engine_ctx *ctx, engine_op *child,
                              expr **exprs, const char *const *names, size_t n_exprs,
                              silt_error *err)
{
    const col_type **types = arena_calloc(ctx->query_arena, n_exprs ? n_exprs : 1,
                                          sizeof(col_type *));
    const col_type *schema;
    project_state *s;
    size_t idx;
    if (types == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_exprs; idx++)
        types[idx] = exprs[idx]->type;
    SILT_RETURN_IF_ERROR(engine_make_schema(&schema, ctx->query_arena, names, types, n_exprs, err));
    SILT_RETURN_IF_ERROR(engine_op_new_internal(out, ctx, &project_vt, schema,
                                                sizeof(project_state), &child, 1, err));
    s = (*out)->state;
    s->exprs = arena_memdup(ctx->query_arena, exprs, sizeof(expr *) * (n_exprs ? n_exprs : 1));
    if (s->exprs == NULL)
        return err_nomem(err);
    s->n_exprs = n_exprs;
    if (child->vt->note_project != NULL)
        child->vt->note_project(child, exprs, n_exprs);
    return SILT_OK;
}

/* ---- limit ----------------------------------------------------------------------------- */

typedef struct limit_state {
    int64_t limit, offset;
    int64_t skipped, emitted;
} limit_state;

static silt_status limit_open(engine_op *op, silt_error *err)
{
    limit_state *s = op->state;
    s->skipped = 0;
    s->emitted = 0;
    return SILT_OK;
}

static silt_status limit_next(engine_op *op, engine_chunk **out, silt_error *err)
{
    limit_state *s = op->state;
    for (;;) {
        engine_chunk *in, *c;
        int64_t start = 0, take, k;
        int32_t *sel;
        if (s->limit >= 0 && s->emitted >= s->limit) {
            *out = NULL; /* stop pulling: the child need not produce more */
            return SILT_OK;
        }
        SILT_RETURN_IF_ERROR(engine_op_next(op->children[0], &in, err));
        if (in == NULL) {
            *out = NULL;
            return SILT_OK;
        }
        if (s->skipped < s->offset) {
            start = s->offset - s->skipped < in->n_sel ? s->offset - s->skipped : in->n_sel;
            s->skipped += start;
        }
        take = in->n_sel - start;
        if (s->limit >= 0 && take > s->limit - s->emitted)
            take = s->limit - s->emitted;
        if (take <= 0)
            continue;
        sel = arena_alloc(op->batch_arena, sizeof(int32_t) * (size_t)take);
        c = arena_calloc(op->batch_arena, 1, sizeof(*c));
        if (sel == NULL || c == NULL)
            return err_nomem(err);
        for (k = 0; k < take; k++)
            sel[k] = (int32_t)ENGINE_ROW(in->sel, start + k);
        c->batch = in->batch;
        c->sel = sel;
        c->n_sel = take;
        s->emitted += take;
        *out = c;
        return SILT_OK;
    }
}

static const engine_op_vtable limit_vt = {"limit", limit_open, limit_next, NULL, NULL};

silt_status engine_op_limit(engine_op **out, engine_ctx *ctx, engine_op *child, int64_t limit,
                            int64_t offset, silt_error *err)
{
    limit_state *s;
    if (offset < 0)
        return err_set(err, SILT_BIND, "OFFSET must not be negative, got %lld", (long long)offset);
    SILT_RETURN_IF_ERROR(engine_op_new_internal(out, ctx, &limit_vt, child->schema,
                                                sizeof(limit_state), &child, 1, err));
    s = (*out)->state;
    s->limit = limit;
    s->offset = offset;
    return SILT_OK;
}

/* ---- union all ------------------------------------------------------------------------ */

typedef struct union_state {
    size_t current;
} union_state;

static silt_status union_open(engine_op *op, silt_error *err)
{
    ((union_state *)op->state)->current = 0;
    return SILT_OK;
}

static silt_status union_next(engine_op *op, engine_chunk **out, silt_error *err)
{
    union_state *s = op->state;
    while (s->current < op->n_children) {
        engine_chunk *in;
        SILT_RETURN_IF_ERROR(engine_op_next(op->children[s->current], &in, err));
        if (in != NULL) {
            engine_chunk *c = arena_calloc(op->batch_arena, 1, sizeof(*c));
            if (c == NULL)
                return err_nomem(err);
            *c = *in;
            c->batch.schema = op->schema;
            *out = c;
            return SILT_OK;
        }
        s->current++;
    }
    *out = NULL;
    return SILT_OK;
}

static const engine_op_vtable union_vt = {"union_all", union_open, union_next, NULL, NULL};

silt_status engine_op_union_all(engine_op **out, engine_ctx *ctx, engine_op **children,
                                size_t n_children, silt_error *err)
{
    size_t idx, col;
    if (n_children == 0)
        return err_set(err, SILT_INVALID, "UNION ALL needs at least one input");
    for (idx = 1; idx < n_children; idx++) {
        const col_type *a = children[0]->schema, *b = children[idx]->schema;
        if (a->n_fields != b->n_fields)
            return err_set(err, SILT_BIND, "[NUM_COLUMNS_MISMATCH] UNION ALL inputs have %zu and "
                           "%zu columns", a->n_fields, b->n_fields);
        for (col = 0; col < a->n_fields; col++)
            if (!col_type_equal(a->fields[col].type, b->fields[col].type))
                return err_set(err, SILT_BIND, "[INCOMPATIBLE_COLUMN_TYPE] column %zu of UNION "
                               "ALL input %zu has another type than the first input", col + 1,
                               idx + 1);
    }
    return engine_op_new_internal(out, ctx, &union_vt, children[0]->schema, sizeof(union_state),
                                  children, n_children, err);
}

/* ---- column origins (the window's rank limits, op_window.c) -------------------------- */

/*
 * Follows column col of op down through projections (plain column
 * references) and filters to the operator that computes it.
 */
engine_op *engine_op_column_origin(engine_op *op, int64_t *col)
{
    for (;;) {
        if (op->vt == &project_vt) {
            const project_state *s = op->state;
            const expr *e;
            if (*col < 0 || (size_t)*col >= s->n_exprs)
                return NULL;
            e = s->exprs[*col];
            if (e->kind != EXPR_COLUMN)
                return op;
            *col = e->col_idx;
            op = op->children[0];
        } else if (op->vt == &filter_vt) {
            op = op->children[0];
        } else {
            return op;
        }
    }
}

/* ---- clones for parallel pipelines ------------------------------------------------ */

const expr *engine_op_filter_predicate(const engine_op *op)
{
    return op->vt == &filter_vt ? ((const filter_state *)op->state)->pred : NULL;
}

int engine_op_is_row_op(const engine_op *op)
{
    return op->vt == &filter_vt || op->vt == &project_vt;
}

silt_status engine_op_clone_row_op(engine_op **out, engine_ctx *ctx, const engine_op *op,
                                   engine_op *child, silt_error *err)
{
    if (op->vt == &filter_vt)
        return engine_op_filter(out, ctx, child, ((const filter_state *)op->state)->pred, err);
    if (op->vt == &project_vt) {
        const project_state *s = op->state;
        const char **names = arena_calloc(ctx->query_arena, s->n_exprs + 1, sizeof(char *));
        size_t idx;
        if (names == NULL)
            return err_nomem(err);
        for (idx = 0; idx < s->n_exprs; idx++)
            names[idx] = op->schema->fields[idx].name;
        return engine_op_project(out, ctx, child, s->exprs, names, s->n_exprs, err);
    }
    return err_set(err, SILT_INVALID, "operator \"%s\" cannot be cloned", op->vt->name);
}
