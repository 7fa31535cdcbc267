/*
 * op_sort.c - ORDER BY and top-N (ORDER BY ... LIMIT).
 *
 * Rows are kept column-wise; an index array is sorted with a bottom-up
 * merge sort, which is stable, so ties keep their input order (Spark's sort
 * is not guaranteed stable; stable is a safe refinement). Nulls go first or
 * last per key (Spark: ASC NULLS FIRST, DESC NULLS LAST by default); NaN is
 * larger than any other double.
 *
 * Top-N keeps memory bounded: whenever more than max(4K, 2048) rows are
 * held (K = limit + offset) they are sorted and cut to K. A full sort
 * whose rows outgrow half its memory room writes them as sorted runs and
 * merges the runs at the end (sort_spill.c). So does a top-N whose K rows
 * do not fit: each run holds at most K rows, the K-th row of a full run
 * bounds what later input can still make it, and the merge stops after K
 * rows.
 */
#include "engine/spill_int.h"

#include <string.h>


typedef struct sort_state {
    engine_sort_key *keys;
    size_t n_keys;
    int64_t limit, offset;
    arena *rows_arena;  /* the rows held, replaced on every top-N cut */
    arena *scratch;     /* per input chunk (top-N selections) */
    vec_accum *acc;     /* one per column */
    col_vec **cols;     /* sorted result */
    int64_t n_rows, next_row;
    int drained;
    /* External sort (sort_spill.c): sorted runs on disk once rows outgrow memory. */
    sort_spill *spill;
    int64_t chunks_held; /* input chunks in the rows held since the last run */
    /*
     * Top-N: row brow of bcols is a K-th row seen so far (none yet: NULL);
     * only rows before it can make the result. After a cut it is the K-th
     * row held; after a full run went to disk, a copy of the run's K-th row
     * in bound_arena.
     */
    col_vec **bcols;
    int64_t brow;
    arena *bound_arena;
    int64_t emit_left; /* top-N read back from runs: rows still to return */
} sort_state;

typedef struct sort_cmp sort_cmp;
struct sort_cmp {
    const engine_sort_key *keys;
    size_t n_keys;
    col_vec **cols;
    /*
     * A first key without NULLs: its values, compared without the generic
     * path; the other keys (rest) only break its ties.
     */
    const int64_t *ikey;
    const int32_t *i32key;
    const double *dkey;
    int rest;
};

/* Compares row x of columns xc with row y of columns yc by the sort keys. */
int engine_compare_keys(const engine_sort_key *keys, size_t n_keys, col_vec *const *xc,
                        int64_t x, col_vec *const *yc, int64_t y)
{
    size_t k;
    for (k = 0; k < n_keys; k++) {
        const col_vec *v = xc[keys[k].col_idx], *w = yc[keys[k].col_idx];
        int xn = !vec_is_valid(v, x), yn = !vec_is_valid(w, y), r;
        if (xn || yn) {
            if (xn && yn)
                continue;
            r = xn ? -1 : 1;
            return keys[k].nulls_first ? r : -r;
        }
        r = vec_compare_rows(v, x, w, y);
        if (r != 0)
            return keys[k].descending ? -r : r;
    }
    return 0;
}

static int compare_rows(const sort_cmp *c, int64_t x, int64_t y)
{
    int r;
    if (c->ikey != NULL)
        r = (c->ikey[x] > c->ikey[y]) - (c->ikey[x] < c->ikey[y]);
    else if (c->i32key != NULL)
        r = (c->i32key[x] > c->i32key[y]) - (c->i32key[x] < c->i32key[y]);
    else if (c->dkey != NULL)
        r = engine_cmp_double(c->dkey[x], c->dkey[y]);
    else
        return engine_compare_keys(c->keys, c->n_keys, c->cols, x, c->cols, y);
    if (r != 0 || !c->rest)
        return c->keys[0].descending ? -r : r;
    return engine_compare_keys(c->keys + 1, c->n_keys - 1, c->cols, x, c->cols, y);
}

/* Fills the typed first key when its column has no NULLs. */
static void fast_key(sort_cmp *c)
{
    const col_vec *v;
    c->ikey = NULL;
    c->i32key = NULL;
    c->dkey = NULL;
    c->rest = c->n_keys > 1;
    if (c->n_keys == 0)
        return;
    v = c->cols[c->keys[0].col_idx];
    if (v->validity != NULL && v->null_count != 0)
        return;
    switch (v->type->id) {
    case COL_LONG:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: c->ikey = v->values; break;
    case COL_INT:
    case COL_DATE: c->i32key = v->values; break;
    case COL_DOUBLE: c->dkey = v->values; break;
    default: break;
    }
}

/* Stable bottom-up merge sort of idx[0..n). */
static silt_status merge_sort(const sort_cmp *c, int64_t *idx, int64_t n, arena *a,
                              silt_error *err)
{
    int64_t *tmp = arena_alloc(a, sizeof(int64_t) * (size_t)(n ? n : 1));
    int64_t width, *src = idx, *dst = tmp;
    if (tmp == NULL)
        return err_nomem(err);
    for (width = 1; width < n; width *= 2) {
        int64_t lo;
        for (lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n;
            int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                dst[o++] = compare_rows(c, src[j], src[i]) < 0 ? src[j++] : src[i++];
            while (i < mid)
                dst[o++] = src[i++];
            while (j < hi)
                dst[o++] = src[j++];
        }
        {
            int64_t *t = src;
            src = dst;
            dst = t;
        }
    }
    if (src != idx)
        memcpy(idx, src, sizeof(int64_t) * (size_t)n);
    return SILT_OK;
}

/* Sorts the held rows and keeps the first `keep` (all when keep < 0) in a fresh arena. */
static silt_status sort_held(engine_op *op, sort_state *s, int64_t keep, silt_error *err)
{
    size_t n_cols = op->schema->n_fields, col;
    col_vec **cols = arena_calloc(op->op_arena, n_cols ? n_cols : 1, sizeof(col_vec *));
    int64_t *idx, n, k;
    sort_cmp c;
    arena *fresh;
    if (cols == NULL)
        return err_nomem(err);
    for (col = 0; col < n_cols; col++)
        SILT_RETURN_IF_ERROR(vec_accum_finish(&s->acc[col], &cols[col], err));
    n = s->acc[0].n_rows;
    if (n_cols == 0)
        n = 0;
    idx = arena_alloc(s->rows_arena, sizeof(int64_t) * (size_t)(n ? n : 1));
    if (idx == NULL)
        return err_nomem(err);
    for (k = 0; k < n; k++)
        idx[k] = k;
    c.keys = s->keys;
    c.n_keys = s->n_keys;
    c.cols = cols;
    fast_key(&c);
    SILT_RETURN_IF_ERROR(merge_sort(&c, idx, n, s->rows_arena, err));
    if (keep >= 0 && keep < n)
        n = keep;
    fresh = arena_new(op->op_arena, "sort_rows");
    if (fresh == NULL)
        return err_nomem(err);
    s->cols = arena_calloc(fresh, n_cols ? n_cols : 1, sizeof(col_vec *));
    if (s->cols == NULL)
        return err_nomem(err);
    for (col = 0; col < n_cols; col++) {
        SILT_RETURN_IF_ERROR(vec_gather(&s->cols[col], fresh, cols[col], idx, n, err));
        vec_accum_init(&s->acc[col], fresh, op->schema->fields[col].type);
        SILT_RETURN_IF_ERROR(vec_accum_add(&s->acc[col], s->cols[col], NULL, n, err));
    }
    arena_free(s->rows_arena);
    s->rows_arena = fresh;
    s->n_rows = n;
    return SILT_OK;
}

/*
 * The loops of topn_filter_first_key for one value type T. A first pass
 * lists the candidates, rows before the bound or tied with it on the first
 * key (CAND(x), without a branch); a second pass over those few keeps the
 * rows before it and the tied rows that sort before the bound on the other
 * keys. Both lists are in row order. BEFORE(x) is the direction's strict
 * test; the bound is no NaN.
 */
#define FIRST_KEY_LOOP(T, CAND, BEFORE)                                                            \
    do {                                                                                           \
        const T *xv = v->values;                                                                   \
        const T bound = ((const T *)bv->values)[b];                                                \
        if (in_sel == NULL) {                                                                      \
            for (k = 0; k < n_in; k++) {                                                           \
                sel[n] = (int32_t)k;                                                               \
                n += CAND(xv[k], bound);                                                           \
            }                                                                                      \
        } else {                                                                                   \
            for (k = 0; k < n_in; k++) {                                                           \
                int32_t row = in_sel[k];                                                           \
                sel[n] = row;                                                                      \
                n += CAND(xv[row], bound);                                                         \
            }                                                                                      \
        }                                                                                          \
        for (k = 0; k < n; k++) {                                                                  \
            int32_t row = sel[k];                                                                  \
            if (BEFORE(xv[row], bound) ||                                                          \
                engine_compare_keys(s->keys + 1, s->n_keys - 1, in->batch.cols, row, s->bcols,     \
                                    s->brow) < 0)                                                  \
                sel[m++] = row;                                                                    \
        }                                                                                          \
    } while (0)

#define ASC_BEFORE(x, bound) ((x) < (bound))
#define ASC_CAND(x, bound) ((x) <= (bound))
#define DESC_BEFORE(x, bound) ((x) > (bound))
#define DESC_CAND(x, bound) ((x) >= (bound))
/* NaN is the largest double: before any other bound in descending order (one compare). */
#define DESC_BEFORE_NAN(x, bound) (!((x) <= (bound)))
#define DESC_CAND_NAN(x, bound) (!((x) < (bound)))

/*
 * topn_filter for several keys whose first is a DOUBLE, LONG or INT without
 * NULLs (the boundary's too, and a double boundary is no NaN): the first
 * key decides almost every row inline; only rows equal to the boundary on
 * it take the full comparison. Returns 0 (nothing done) when the keys do
 * not fit.
 */
static int topn_filter_first_key(sort_state *s, engine_chunk *in, int32_t *sel, int64_t *n_out)
{
    const col_vec *v = in->batch.cols[s->keys[0].col_idx];
    const col_vec *bv = s->bcols[s->keys[0].col_idx];
    int64_t b = s->brow;
    col_type_id id = v->type->id;
    int desc = s->keys[0].descending;
    int64_t k, n = 0, m = 0, n_in = in->n_sel;
    const int32_t *in_sel = in->sel; /* locals: the stores to sel could alias the chunk */
    if ((id != COL_DOUBLE && id != COL_LONG && id != COL_INT) ||
        (v->validity != NULL && v->null_count != 0) || !vec_is_valid(bv, b))
        return 0;
    if (id == COL_DOUBLE) {
        double bd = ((const double *)bv->values)[b];
        if (bd != bd)
            return 0;
        if (desc)
            FIRST_KEY_LOOP(double, DESC_CAND_NAN, DESC_BEFORE_NAN);
        else
            FIRST_KEY_LOOP(double, ASC_CAND, ASC_BEFORE);
    } else if (id == COL_LONG) {
        if (desc)
            FIRST_KEY_LOOP(int64_t, DESC_CAND, DESC_BEFORE);
        else
            FIRST_KEY_LOOP(int64_t, ASC_CAND, ASC_BEFORE);
    } else if (desc) {
        FIRST_KEY_LOOP(int32_t, DESC_CAND, DESC_BEFORE);
    } else {
        FIRST_KEY_LOOP(int32_t, ASC_CAND, ASC_BEFORE);
    }
    in->sel = sel;
    in->n_sel = m;
    *n_out = m;
    return 1;
}

/* Narrows a chunk to the rows that sort before the K-th row held. */
static silt_status topn_filter(engine_op *op, sort_state *s, engine_chunk *in, int64_t keep,
                               silt_error *err)
{
    int32_t *sel;
    int64_t k, n = 0;
    arena_reset(s->scratch);
    sel = arena_alloc(s->scratch, sizeof(int32_t) * (size_t)(in->n_sel ? in->n_sel : 1));
    if (sel == NULL)
        return err_nomem(err);
    if (keep == 0) {
        in->n_sel = 0;
        return SILT_OK;
    }
    if (s->n_keys == 1 && vec_is_valid(s->bcols[s->keys[0].col_idx], s->brow)) {
        /* One key and a non-NULL boundary: a branch-free loop on the raw values. */
        const col_vec *v = in->batch.cols[s->keys[0].col_idx];
        const col_vec *bv = s->bcols[s->keys[0].col_idx];
        int desc = s->keys[0].descending;
        if ((v->type->id == COL_DOUBLE || v->type->id == COL_LONG) &&
            (v->validity == NULL || v->null_count == 0)) {
            if (v->type->id == COL_DOUBLE) {
                const double *xv = v->values;
                double bound = ((const double *)bv->values)[s->brow];
                if (bound == bound) { /* NaN boundaries take the general path */
                    for (k = 0; k < in->n_sel; k++) {
                        int64_t row = ENGINE_ROW(in->sel, k);
                        double x = xv[row];
                        sel[n] = (int32_t)row;
                        /* NaN is the largest double: it passes a DESC bound */
                        n += desc ? ((x > bound) | (x != x)) : (x < bound);
                    }
                    in->sel = sel;
                    in->n_sel = n;
                    return SILT_OK;
                }
            } else {
                const int64_t *xv = v->values;
                int64_t bound = ((const int64_t *)bv->values)[s->brow];
                for (k = 0; k < in->n_sel; k++) {
                    int64_t row = ENGINE_ROW(in->sel, k);
                    sel[n] = (int32_t)row;
                    n += desc ? xv[row] > bound : xv[row] < bound;
                }
                in->sel = sel;
                in->n_sel = n;
                return SILT_OK;
            }
        }
    }
    if (s->n_keys > 1 && topn_filter_first_key(s, in, sel, &n))
        return SILT_OK;
    for (k = 0; k < in->n_sel; k++) {
        int64_t row = ENGINE_ROW(in->sel, k);
        if (engine_compare_keys(s->keys, s->n_keys, in->batch.cols, row, s->bcols, s->brow) < 0)
            sel[n++] = (int32_t)row;
    }
    in->sel = sel;
    in->n_sel = n;
    return SILT_OK;
}

/* Keeps a copy of row `row` of cols as the top-N bound (it outlives the rows held). */
static silt_status keep_bound(engine_op *op, sort_state *s, col_vec **cols, int64_t row,
                              silt_error *err)
{
    size_t n_cols = op->schema->n_fields, col;
    arena *a = arena_new(op->op_arena, "sort_bound");
    col_vec **b = a != NULL ? arena_calloc(a, n_cols ? n_cols : 1, sizeof(col_vec *)) : NULL;
    if (b == NULL) {
        arena_free(a);
        return err_nomem(err);
    }
    for (col = 0; col < n_cols; col++) {
        silt_status rc = vec_gather(&b[col], a, cols[col], &row, 1, err);
        if (rc != SILT_OK) {
            arena_free(a);
            return rc;
        }
    }
    arena_free(s->bound_arena);
    s->bound_arena = a;
    s->bcols = b;
    s->brow = 0;
    return SILT_OK;
}

/*
 * Sorts the rows held, writes them (the first `keep` of them for a top-N;
 * all when keep < 0) as a run on disk and starts holding afresh.
 */
static silt_status spill_run(engine_op *op, sort_state *s, int64_t keep, silt_error *err)
{
    size_t n_cols = op->schema->n_fields, col;
    if (s->spill == NULL)
        SILT_RETURN_IF_ERROR(engine_sort_spill_new(&s->spill, op, s->keys, s->n_keys, err));
    if (s->bcols != NULL && s->bcols == s->cols)
        s->bcols = NULL; /* a bound among the rows held dies with them */
    SILT_RETURN_IF_ERROR(sort_held(op, s, keep, err));
    SILT_RETURN_IF_ERROR(engine_sort_spill_add_run(s->spill, s->cols, s->n_rows, err));
    /* The run's K-th row is at least as tight as any earlier bound: it passed that bound. */
    if (keep > 0 && s->n_rows >= keep)
        SILT_RETURN_IF_ERROR(keep_bound(op, s, s->cols, keep - 1, err));
    arena_free(s->rows_arena);
    s->rows_arena = arena_new(op->op_arena, "sort_rows");
    if (s->rows_arena == NULL)
        return err_nomem(err);
    for (col = 0; col < n_cols; col++)
        vec_accum_init(&s->acc[col], s->rows_arena, op->schema->fields[col].type);
    s->cols = NULL;
    s->n_rows = 0;
    s->chunks_held = 0;
    return SILT_OK;
}

/*
 * Memory of a sort: sorting needs the rows held twice (the sorted copy)
 * and two index arrays. When that outgrows the operator's room the rows
 * go to disk as a sorted run (of at most keep rows for a top-N); a single
 * chunk that does not fit alone fails with [OUT_OF_MEMORY].
 */
static silt_status sort_account(engine_op *op, sort_state *s, int64_t keep, silt_error *err)
{
    int64_t n = op->schema->n_fields > 0 ? s->acc[0].n_rows : 0;
    int64_t need = 2 * (int64_t)arena_bytes_used(s->rows_arena) + 16 * n;
    s->chunks_held++;
    /* Half the room: the operators above run while this one still holds its rows. */
    if (op->ctx->mem_limit > 0 && need > engine_mem_room(op) / 2 && s->chunks_held > 1) {
        SILT_RETURN_IF_ERROR(spill_run(op, s, keep, err));
        need = 0;
    }
    return engine_op_charge_to(op, need, "sort", err);
}

static silt_status sort_drain(engine_op *op, sort_state *s, silt_error *err)
{
    size_t n_cols = op->schema->n_fields, col;
    int64_t keep = s->limit >= 0 ? s->limit + s->offset : -1;
    int64_t cut_at = keep >= 0 ? (4 * keep > 2048 ? 4 * keep : 2048) : -1;
    for (;;) {
        engine_chunk *in;
        SILT_RETURN_IF_ERROR(engine_op_next(op->children[0], &in, err));
        if (in == NULL)
            break;
        if (keep >= 0 && s->bcols != NULL) {
            /*
             * Top-N after a cut or a full run: only rows before the K-th can
             * make it (ties lose to the rows already kept, which came first).
             */
            SILT_RETURN_IF_ERROR(topn_filter(op, s, in, keep, err));
            if (in->n_sel == 0)
                continue;
        }
        for (col = 0; col < n_cols; col++)
            SILT_RETURN_IF_ERROR(
                vec_accum_add(&s->acc[col], in->batch.cols[col], in->sel, in->n_sel, err));
        SILT_RETURN_IF_ERROR(sort_account(op, s, keep, err));
        if (cut_at >= 0 && n_cols > 0 && s->acc[0].n_rows > cut_at) {
            if (s->bcols == s->cols)
                s->bcols = NULL; /* the cut replaces the rows held */
            SILT_RETURN_IF_ERROR(sort_held(op, s, keep, err));
            if (s->n_rows >= keep) {
                s->bcols = s->cols;
                s->brow = keep - 1;
            }
        }
    }
    s->drained = 1;
    if (engine_sort_spill_runs(s->spill) > 0) {
        /* The rest becomes the last run; the merge reads every run from disk. */
        if (n_cols > 0 && s->acc[0].n_rows > 0)
            SILT_RETURN_IF_ERROR(spill_run(op, s, keep, err));
        SILT_RETURN_IF_ERROR(engine_op_charge_to(op, 0, "sort", err));
        s->emit_left = s->limit;
        return engine_sort_spill_merge_open(s->spill, s->offset, err);
    }
    SILT_RETURN_IF_ERROR(sort_held(op, s, keep, err));
    s->next_row = s->offset < s->n_rows ? s->offset : s->n_rows;
    return SILT_OK;
}

static silt_status sort_open(engine_op *op, silt_error *err)
{
    sort_state *s = op->state;
    size_t n_cols = op->schema->n_fields, col;
    s->rows_arena = arena_new(op->op_arena, "sort_rows");
    s->scratch = arena_new(op->op_arena, "sort_scratch");
    s->acc = arena_calloc(op->op_arena, n_cols ? n_cols : 1, sizeof(vec_accum));
    s->cols = NULL;
    s->n_rows = 0;
    if (s->rows_arena == NULL || s->scratch == NULL || s->acc == NULL)
        return err_nomem(err);
    for (col = 0; col < n_cols; col++)
        vec_accum_init(&s->acc[col], s->rows_arena, op->schema->fields[col].type);
    s->drained = 0;
    s->spill = NULL;
    s->chunks_held = 0;
    s->bcols = NULL;
    s->bound_arena = NULL;
    s->emit_left = -1;
    return SILT_OK;
}

/* The merged runs; a top-N stops after its limit (OFFSET rows are skipped by the merge). */
static silt_status spilled_next(engine_op *op, sort_state *s, engine_chunk **out, silt_error *err)
{
    engine_chunk *c;
    int64_t k;
    *out = NULL;
    if (s->emit_left == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(engine_sort_spill_next(s->spill, &c, err));
    if (c == NULL || s->emit_left < 0) {
        *out = c;
        return SILT_OK;
    }
    if (c->n_sel > s->emit_left) {
        /* The first emit_left live rows, as a selection: a dense chunk is read whole. */
        int32_t *sel = arena_alloc(op->batch_arena, sizeof(int32_t) * (size_t)s->emit_left + 1);
        if (sel == NULL)
            return err_nomem(err);
        for (k = 0; k < s->emit_left; k++)
            sel[k] = (int32_t)ENGINE_ROW(c->sel, k);
        c->sel = sel;
        c->n_sel = s->emit_left;
    }
    s->emit_left -= c->n_sel;
    *out = c;
    return SILT_OK;
}

static silt_status sort_next(engine_op *op, engine_chunk **out, silt_error *err)
{
    sort_state *s = op->state;
    if (!s->drained)
        SILT_RETURN_IF_ERROR(sort_drain(op, s, err));
    if (s->spill != NULL)
        return spilled_next(op, s, out, err);
    return engine_chunk_of_rows(op, s->cols, op->schema->n_fields, s->n_rows, &s->next_row, out,
                                err);
}

static const engine_op_vtable sort_vt = {"sort", sort_open, sort_next, NULL, NULL};

silt_status engine_sort_indices(const engine_sort_key *keys, size_t n_keys, col_vec **cols,
                                int64_t *idx, int64_t n, arena *a, silt_error *err)
{
    sort_cmp c;
    c.keys = keys;
    c.n_keys = n_keys;
    c.cols = cols;
    fast_key(&c);
    return merge_sort(&c, idx, n, a, err);
}

silt_status engine_op_sort(engine_op **out, engine_ctx *ctx, engine_op *child,
                           const engine_sort_key *keys, size_t n_keys, int64_t limit,
                           int64_t offset, silt_error *err)
{
    sort_state *s;
    size_t idx;
    for (idx = 0; idx < n_keys; idx++) {
        const col_type *t;
        if (keys[idx].col_idx < 0 || (size_t)keys[idx].col_idx >= child->schema->n_fields)
            return err_set(err, SILT_INVALID, "sort key %zu refers to column %lld of %zu", idx,
                           (long long)keys[idx].col_idx, child->schema->n_fields);
        t = child->schema->fields[keys[idx].col_idx].type;
        if (t->id == COL_MAP)
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.INVALID_ORDERING_TYPE] cannot "
                           "sort by a value of type \"map\"");
    }
    if (offset < 0)
        return err_set(err, SILT_BIND, "OFFSET must not be negative, got %lld", (long long)offset);
    SILT_RETURN_IF_ERROR(engine_op_new_internal(out, ctx, &sort_vt, child->schema,
                                                sizeof(sort_state), &child, 1, err));
    s = (*out)->state;
    s->keys = arena_memdup(ctx->query_arena, keys ? (const void *)keys : (const void *)"",
                           sizeof(engine_sort_key) * n_keys);
    if (s->keys == NULL)
        return err_nomem(err);
    s->n_keys = n_keys;
    s->limit = limit;
    s->offset = offset;
    return SILT_OK;
}
