/*
 * sort_spill.c - the external part of ORDER BY: sorted runs on disk and
 * their k-way merge (spill_int.h).
 *
 * op_sort.c sorts what fits under the memory budget and hands each sorted
 * piece here as a run, in input order. The merge keeps one batch per run
 * in memory and a binary heap of the runs' current rows; ties go to the
 * earlier run, so the result is as stable as the in-memory sort (each run
 * is stable and runs are in input order). When more runs exist than the
 * budget has room for (one batch each), consecutive groups are first
 * merged into longer runs, which keeps that order.
 *
 * An output chunk takes rows from several runs: the rows taken from one
 * run are consecutive, so they are copied run by run (vec_accum_add with a
 * selection) and put in merge order with one gather. A chunk ends early
 * when some run's batch runs out, so no batch is replaced while rows of
 * the chunk still point into it.
 */
#include "engine/spill_int.h"

#include <string.h>

typedef struct run_cursor {
    spill_file *f;
    arena *a;          /* the current batch; reset when the next one loads */
    col_batch *batch;  /* NULL at the end of the run */
    int64_t row;
    int need_load;
} run_cursor;

typedef struct merger {
    sort_spill *sp;
    run_cursor *runs;
    size_t n_runs;
    size_t *heap;      /* run indexes; heap[0] has the smallest current row */
    size_t n_heap;
    int started;
} merger;

struct sort_spill {
    engine_op *op;
    const engine_sort_key *keys;
    size_t n_keys;
    arena *a;          /* run files and merge state; freed with the operator */
    spill_file **runs;
    size_t n_runs, cap_runs;
    merger m;
    int64_t skip;      /* OFFSET rows still to drop */
};

silt_status engine_sort_spill_new(sort_spill **out, engine_op *op, const engine_sort_key *keys,
                           size_t n_keys, silt_error *err)
{
    sort_spill *sp = arena_calloc(op->op_arena, 1, sizeof(*sp));
    if (sp == NULL || (sp->a = arena_new(op->op_arena, "sort_spill")) == NULL)
        return err_nomem(err);
    sp->op = op;
    sp->keys = keys;
    sp->n_keys = n_keys;
    *out = sp;
    return SILT_OK;
}

size_t engine_sort_spill_runs(const sort_spill *sp) { return sp ? sp->n_runs : 0; }

static silt_status push_run(sort_spill *sp, spill_file *f, silt_error *err)
{
    if (sp->n_runs == sp->cap_runs) {
        size_t cap = sp->cap_runs ? sp->cap_runs * 2 : 16;
        spill_file **runs = arena_realloc(sp->a, sp->runs, sizeof(*runs) * sp->cap_runs,
                                          sizeof(*runs) * cap);
        if (runs == NULL)
            return err_nomem(err);
        sp->runs = runs;
        sp->cap_runs = cap;
    }
    sp->runs[sp->n_runs++] = f;
    return SILT_OK;
}

silt_status engine_sort_spill_add_run(sort_spill *sp, col_vec **cols, int64_t n_rows, silt_error *err)
{
    engine_op *op = sp->op;
    arena *scratch = arena_new(sp->a, "sort_run_write");
    int32_t *sel;
    spill_file *f;
    col_batch b;
    int64_t start;
    silt_status rc;
    if (scratch == NULL)
        return err_nomem(err);
    rc = engine_spill_file_create(&f, op->ctx, sp->a, op->schema, err);
    b.schema = op->schema;
    b.n_cols = op->schema->n_fields;
    b.n_rows = n_rows;
    b.cols = cols;
    for (start = 0; rc == SILT_OK && start < n_rows; start += ENGINE_BATCH_ROWS) {
        int64_t n = n_rows - start < ENGINE_BATCH_ROWS ? n_rows - start : ENGINE_BATCH_ROWS, k;
        arena_reset(scratch);
        sel = arena_alloc(scratch, sizeof(int32_t) * ENGINE_BATCH_ROWS);
        if (sel == NULL)
            return err_nomem(err);
        for (k = 0; k < n; k++)
            sel[k] = (int32_t)(start + k);
        rc = engine_spill_file_write(f, &b, sel, n, scratch, err);
    }
    arena_free(scratch);
    if (rc == SILT_OK)
        rc = engine_spill_file_finish(f, err);
    if (rc == SILT_OK)
        rc = push_run(sp, f, err);
    return rc;
}

/* ---- merge ---------------------------------------------------------------------- */

/* Whether run x's current row goes before run y's (ties: the earlier run). */
static int run_before(const merger *m, size_t x, size_t y)
{
    const run_cursor *a = &m->runs[x], *b = &m->runs[y];
    int c = engine_compare_keys(m->sp->keys, m->sp->n_keys, a->batch->cols, a->row,
                                b->batch->cols, b->row);
    return c < 0 || (c == 0 && x < y);
}

static void sift_down(merger *m, size_t at)
{
    for (;;) {
        size_t l = 2 * at + 1, r = l + 1, best = at, t;
        if (l < m->n_heap && run_before(m, m->heap[l], m->heap[best]))
            best = l;
        if (r < m->n_heap && run_before(m, m->heap[r], m->heap[best]))
            best = r;
        if (best == at)
            return;
        t = m->heap[at];
        m->heap[at] = m->heap[best];
        m->heap[best] = t;
        at = best;
    }
}

/* Loads the next non-empty batch of a run (batch NULL at its end). */
static silt_status load(run_cursor *c, silt_error *err)
{
    arena_reset(c->a);
    c->row = 0;
    c->need_load = 0;
    do {
        SILT_RETURN_IF_ERROR(engine_spill_file_read(c->f, c->a, &c->batch, err));
    } while (c->batch != NULL && c->batch->n_rows == 0);
    return SILT_OK;
}

static silt_status merger_open(merger *m, sort_spill *sp, spill_file **runs, size_t n_runs,
                               arena *a, silt_error *err)
{
    size_t idx;
    memset(m, 0, sizeof(*m));
    m->sp = sp;
    m->runs = arena_calloc(a, n_runs ? n_runs : 1, sizeof(run_cursor));
    m->heap = arena_calloc(a, n_runs ? n_runs : 1, sizeof(size_t));
    if (m->runs == NULL || m->heap == NULL)
        return err_nomem(err);
    m->n_runs = n_runs;
    for (idx = 0; idx < n_runs; idx++) {
        m->runs[idx].f = runs[idx];
        m->runs[idx].a = arena_new(a, "sort_run_read");
        if (m->runs[idx].a == NULL)
            return err_nomem(err);
        engine_spill_file_rewind(runs[idx]);
        SILT_RETURN_IF_ERROR(load(&m->runs[idx], err));
        if (m->runs[idx].batch != NULL)
            m->heap[m->n_heap++] = idx;
    }
    for (idx = m->n_heap; idx-- > 0;)
        sift_down(m, idx);
    return SILT_OK;
}

/*
 * The next merged rows (at most ENGINE_BATCH_ROWS) as columns in arena a;
 * *n_out = 0 at the end.
 */
static silt_status merger_next(merger *m, arena *a, const col_type *schema, col_vec ***cols_out,
                               int64_t *n_out, silt_error *err)
{
    size_t n_cols = schema->n_fields, col, idx;
    int64_t *pick_run = arena_alloc(a, sizeof(int64_t) * ENGINE_BATCH_ROWS);
    int64_t *first = arena_alloc(a, sizeof(int64_t) * m->n_runs);
    int64_t *count = arena_calloc(a, m->n_runs ? m->n_runs : 1, sizeof(int64_t));
    int64_t *base = arena_alloc(a, sizeof(int64_t) * (m->n_runs ? m->n_runs : 1));
    int64_t *gidx = arena_alloc(a, sizeof(int64_t) * ENGINE_BATCH_ROWS);
    col_vec **cols = arena_calloc(a, n_cols ? n_cols : 1, sizeof(col_vec *));
    int64_t n = 0, k;
    *n_out = 0;
    if (pick_run == NULL || first == NULL || count == NULL || base == NULL || gidx == NULL ||
        cols == NULL)
        return err_nomem(err);
    /* Runs whose batch ran out in the previous chunk load their next one now. */
    for (idx = 0; idx < m->n_runs; idx++) {
        run_cursor *c = &m->runs[idx];
        if (!c->need_load)
            continue;
        SILT_RETURN_IF_ERROR(load(c, err));
        if (c->batch != NULL) {
            /* Back into the heap: it was left out while empty. */
            size_t at = m->n_heap++;
            m->heap[at] = idx;
            while (at > 0 && run_before(m, m->heap[at], m->heap[(at - 1) / 2])) {
                size_t parent = (at - 1) / 2, t = m->heap[at];
                m->heap[at] = m->heap[parent];
                m->heap[parent] = t;
                at = parent;
            }
        }
    }
    while (n < ENGINE_BATCH_ROWS && m->n_heap > 0) {
        size_t r = m->heap[0];
        run_cursor *c = &m->runs[r];
        if (count[r] == 0)
            first[r] = c->row;
        count[r]++;
        pick_run[n++] = (int64_t)r;
        if (++c->row < c->batch->n_rows) {
            sift_down(m, 0);
            continue;
        }
        /* This run's batch is used up: end the chunk here, reload on the next call. */
        c->need_load = 1;
        m->heap[0] = m->heap[--m->n_heap];
        sift_down(m, 0);
        break;
    }
    if (n == 0)
        return SILT_OK;
    {
        int64_t at = 0;
        for (idx = 0; idx < m->n_runs; idx++) {
            base[idx] = at;
            at += count[idx];
        }
    }
    {
        /* The j-th pick from run r is its row first[r] + j: place it at base[r] + j. */
        int64_t *seen = arena_calloc(a, m->n_runs ? m->n_runs : 1, sizeof(int64_t));
        if (seen == NULL)
            return err_nomem(err);
        for (k = 0; k < n; k++) {
            int64_t r = pick_run[k];
            gidx[k] = base[r] + seen[r]++;
        }
    }
    for (col = 0; col < n_cols; col++) {
        vec_accum acc;
        col_vec *all;
        vec_accum_init(&acc, a, schema->fields[col].type);
        for (idx = 0; idx < m->n_runs; idx++) {
            int32_t *sel;
            if (count[idx] == 0)
                continue;
            sel = arena_alloc(a, sizeof(int32_t) * (size_t)count[idx]);
            if (sel == NULL)
                return err_nomem(err);
            for (k = 0; k < count[idx]; k++)
                sel[k] = (int32_t)(first[idx] + k);
            SILT_RETURN_IF_ERROR(
                vec_accum_add(&acc, m->runs[idx].batch->cols[col], sel, count[idx], err));
        }
        SILT_RETURN_IF_ERROR(vec_accum_finish(&acc, &all, err));
        SILT_RETURN_IF_ERROR(vec_gather(&cols[col], a, all, gidx, n, err));
    }
    *cols_out = cols;
    *n_out = n;
    return SILT_OK;
}

/* Bytes one run needs while merging: a decoded batch and its frame. */
static int64_t run_cost(const sort_spill *sp)
{
    int64_t bytes = 0, rows = 0;
    size_t idx;
    for (idx = 0; idx < sp->n_runs; idx++) {
        bytes += engine_spill_file_bytes(sp->runs[idx]);
        rows += engine_spill_file_rows(sp->runs[idx]);
    }
    if (rows == 0)
        return 1;
    /* per batch: its bytes in the file, once decoded, once copied into the output */
    return 3 * (bytes / rows + 1) * ENGINE_BATCH_ROWS;
}

/* Merges runs [from, from + n) into one new run. */
static silt_status merge_group(sort_spill *sp, size_t from, size_t n, spill_file **out,
                               silt_error *err)
{
    engine_op *op = sp->op;
    arena *a = arena_new(sp->a, "sort_merge_pass"), *chunk = a ? arena_new(a, "chunk") : NULL;
    merger m;
    spill_file *f;
    silt_status rc;
    if (chunk == NULL)
        return err_nomem(err);
    rc = engine_spill_file_create(&f, op->ctx, sp->a, op->schema, err);
    if (rc == SILT_OK)
        rc = merger_open(&m, sp, sp->runs + from, n, a, err);
    while (rc == SILT_OK) {
        col_vec **cols;
        int64_t n_rows;
        col_batch b;
        arena_reset(chunk);
        rc = merger_next(&m, chunk, op->schema, &cols, &n_rows, err);
        if (rc != SILT_OK || n_rows == 0)
            break;
        b.schema = op->schema;
        b.n_cols = op->schema->n_fields;
        b.n_rows = n_rows;
        b.cols = cols;
        rc = engine_spill_file_write(f, &b, NULL, n_rows, chunk, err);
    }
    if (rc == SILT_OK)
        rc = engine_spill_file_finish(f, err);
    arena_free(a);
    if (rc == SILT_OK)
        *out = f;
    return rc;
}

silt_status engine_sort_spill_merge_open(sort_spill *sp, int64_t offset, silt_error *err)
{
    engine_op *op = sp->op;
    /* Half the room: the operators above the sort run while it merges. */
    int64_t cost = run_cost(sp), room = engine_mem_room(op) / 2;
    size_t fan_in = room / cost > 256 ? 256 : (size_t)(room / cost);
    if (fan_in < 2)
        fan_in = 2;
    /* Charging two runs' worth fails cleanly when not even that fits. */
    SILT_RETURN_IF_ERROR(engine_op_charge_to(op, cost * (int64_t)fan_in, "sort merge", err));
    while (sp->n_runs > fan_in) {
        /* One pass: consecutive groups of fan_in runs become one run each, in order. */
        size_t from = 0, n_new = 0;
        while (from < sp->n_runs) {
            size_t n = sp->n_runs - from < fan_in ? sp->n_runs - from : fan_in;
            spill_file *merged = NULL;
            size_t idx;
            SILT_RETURN_IF_ERROR(merge_group(sp, from, n, &merged, err));
            for (idx = from; idx < from + n; idx++)
                engine_spill_file_remove(sp->runs[idx]); /* merged: give the disk space back now */
            sp->runs[n_new++] = merged;
            from += n;
        }
        sp->n_runs = n_new;
    }
    sp->skip = offset;
    return merger_open(&sp->m, sp, sp->runs, sp->n_runs, sp->a, err);
}

silt_status engine_sort_spill_next(sort_spill *sp, engine_chunk **out, silt_error *err)
{
    engine_op *op = sp->op;
    *out = NULL;
    for (;;) {
        col_vec **cols;
        int64_t n, k;
        engine_chunk *c;
        SILT_RETURN_IF_ERROR(merger_next(&sp->m, op->batch_arena, op->schema, &cols, &n, err));
        if (n == 0)
            return SILT_OK;
        SILT_RETURN_IF_ERROR(engine_chunk_new(&c, op, op->schema->n_fields, n, err));
        memcpy(c->batch.cols, cols, sizeof(col_vec *) * op->schema->n_fields);
        if (sp->skip >= n) {
            sp->skip -= n;
            continue;
        }
        if (sp->skip > 0) {
            int32_t *sel = arena_alloc(op->batch_arena, sizeof(int32_t) * (size_t)n);
            if (sel == NULL)
                return err_nomem(err);
            for (k = sp->skip; k < n; k++)
                sel[k - sp->skip] = (int32_t)k;
            c->sel = sel;
            c->n_sel = n - sp->skip;
            sp->skip = 0;
        }
        *out = c;
        return SILT_OK;
    }
}
