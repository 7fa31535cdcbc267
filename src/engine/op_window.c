/*
 * op_window.c - window functions (row_number, rank, dense_rank, lag, lead,
 * and count/sum/avg/min/max over ROWS or RANGE frames).
 *
 * The operator drains its child, keeping its columns and the evaluated
 * arguments, sorts the row numbers by partition keys (ASC NULLS FIRST) and
 * order keys (stable), then computes every function partition by partition
 * in sorted order. Sums, counts and averages use prefix sums, so any frame
 * costs O(1) per row; min and max scan their frame, which is O(frame) per
 * row except for frames starting at UNBOUNDED PRECEDING (running values).
 */
#include "engine/op_int.h"

#include <string.h>

typedef struct win_state {
    int64_t *part_cols;
    size_t n_part;
    engine_sort_key *order;
    size_t n_order;
    engine_window_fn *fns;
    size_t n_fns;
    size_t n_child;
    /* drained and computed */
    col_vec **cols;  /* child columns, then per function: argument, default */
    int64_t *idx;    /* sorted row numbers */
    int64_t n_rows, next_row;
    col_vec **results; /* per function, in sorted order */
    int drained;
} win_state;

static int is_int_like(col_type_id id)
{
    return id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG ||
           id == COL_DATE || id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ;
}

/* Whether sorted positions x and y have equal order keys (peers). */
static int peers(win_state *s, int64_t x, int64_t y)
{
    size_t k;
    for (k = 0; k < s->n_order; k++) {
        const col_vec *v = s->cols[s->order[k].col_idx];
        if (vec_compare_rows(v, s->idx[x], v, s->idx[y]) != 0)
            return 0;
    }
    return 1;
}

static int same_partition(win_state *s, int64_t x, int64_t y)
{
    size_t k;
    for (k = 0; k < s->n_part; k++) {
        const col_vec *v = s->cols[s->part_cols[k]];
        if (vec_compare_rows(v, s->idx[x], v, s->idx[y]) != 0)
            return 0;
    }
    return 1;
}

/* Numeric value of the single RANGE order key at sorted position p. */
static double range_key(win_state *s, int64_t p)
{
    const col_vec *v = s->cols[s->order[0].col_idx];
    if (v->type->id == COL_FLOAT || v->type->id == COL_DOUBLE)
        return vec_get_double(v, s->idx[p]);
    return (double)vec_get_int(v, s->idx[p]);
}

/* Frame [lo, hi) of sorted position p in partition [ps, pe). */
static void frame_of(win_state *s, const engine_frame *f, int64_t p, int64_t ps, int64_t pe,
                     int64_t *lo, int64_t *hi)
{
    if (f->type == FRAME_ROWS) {
        *lo = f->start_unbounded ? ps : p + f->start;
        *hi = f->end_unbounded ? pe : p + f->end + 1;
    } else if (f->start_unbounded || f->start == 0) {
        *lo = ps;
        if (!f->start_unbounded) {
            *lo = p;
            while (*lo > ps && peers(s, *lo - 1, p))
                (*lo)--;
        }
        goto range_end;
    } else {
        /* RANGE with an offset: rows whose key is within [key + start, key + end]. */
        int desc = s->order[0].descending;
        double key = range_key(s, p), want = key + (desc ? -(double)f->start : (double)f->start);
        int64_t a = ps, b = pe;
        while (a < b) { /* first row not before want */
            int64_t m = a + (b - a) / 2;
            double mk = range_key(s, m);
            if (desc ? mk > want : mk < want)
                a = m + 1;
            else
                b = m;
        }
        *lo = a;
        goto range_end;
    }
    goto clamp;
range_end:
    if (f->end_unbounded) {
        *hi = pe;
    } else if (f->end == 0) {
        *hi = p + 1;
        while (*hi < pe && peers(s, *hi, p))
            (*hi)++;
    } else {
        int desc = s->order[0].descending;
        double key = range_key(s, p), want = key + (desc ? -(double)f->end : (double)f->end);
        int64_t a = ps, b = pe;
        while (a < b) { /* first row after want */
            int64_t m = a + (b - a) / 2;
            double mk = range_key(s, m);
            if (desc ? mk >= want : mk <= want)
                a = m + 1;
            else
                b = m;
        }
        *hi = a;
    }
clamp:
    if (*lo < ps)
        *lo = ps;
    if (*hi > pe)
        *hi = pe;
    if (*hi < *lo)
        *hi = *lo;
}

static silt_status compute_ranking(win_state *s, const engine_window_fn *fn, col_vec *o,
                                   int64_t ps, int64_t pe)
{
    int64_t p, rank = 1, dense = 1;
    for (p = ps; p < pe; p++) {
        if (p > ps && !peers(s, p - 1, p)) {
            rank = p - ps + 1;
            dense++;
        }
        ((int32_t *)o->values)[p] = fn->kind == WIN_ROW_NUMBER ? (int32_t)(p - ps + 1)
                                    : fn->kind == WIN_RANK     ? (int32_t)rank
                                                               : (int32_t)dense;
    }
    return SILT_OK;
}

/* Sorted positions to take for lag/lead (-1 = default); done by one gather later. */
static void offset_rows(win_state *s, const engine_window_fn *fn, int64_t *take, int64_t ps,
                        int64_t pe)
{
    int64_t p;
    for (p = ps; p < pe; p++) {
        int64_t q = fn->kind == WIN_LAG ? p - fn->offset : p + fn->offset;
        take[p] = (q >= ps && q < pe) ? s->idx[q] : -1;
    }
}

typedef struct prefix {
    int64_t *cnt;    /* non-null values before position */
    double *dsum;
    int64_t *isum;
    col_int128 *dec;
} prefix;

static silt_status compute_agg(engine_op *op, win_state *s, const engine_window_fn *fn,
                               const col_vec *arg, col_vec *o, const engine_frame *f,
                               int64_t ps, int64_t pe, prefix *pre, silt_error *err)
{
    int64_t p;
    col_type_id in = arg ? arg->type->id : COL_NULL;
    int is_dec = in == COL_DECIMAL, is_int = is_int_like(in);
    /* prefix sums over the partition */
    pre->cnt[ps] = 0;
    pre->dsum[ps] = 0;
    pre->isum[ps] = 0;
    pre->dec[ps] = 0;
    for (p = ps; p < pe; p++) {
        int64_t r = s->idx[p];
        int valid = arg == NULL || vec_is_valid(arg, r);
        pre->cnt[p + 1] = pre->cnt[p] + valid;
        pre->dsum[p + 1] = pre->dsum[p];
        pre->isum[p + 1] = pre->isum[p];
        pre->dec[p + 1] = pre->dec[p];
        if (!valid || arg == NULL)
            continue;
        if (is_dec)
            pre->dec[p + 1] += vec_get_dec(arg, r);
        else if (is_int)
            pre->isum[p + 1] = (int64_t)((uint64_t)pre->isum[p + 1] + (uint64_t)vec_get_int(arg, r));
        else if (in == COL_FLOAT || in == COL_DOUBLE)
            pre->dsum[p + 1] += vec_get_double(arg, r);
    }
    for (p = ps; p < pe; p++) {
        int64_t lo, hi, n;
        frame_of(s, f, p, ps, pe, &lo, &hi);
        n = pre->cnt[hi] - pre->cnt[lo];
        switch (fn->agg) {
        case AGG_COUNT_STAR:
        case AGG_COUNT: ((int64_t *)o->values)[p] = fn->agg == AGG_COUNT_STAR ? hi - lo : n; break;
        case AGG_SUM:
        case AGG_AVG:
            if (n == 0) {
                vec_set_null(o, p);
            } else if (o->type->id == COL_DECIMAL) {
                col_int128 sum = pre->dec[hi] - pre->dec[lo], v = sum;
                if (fn->agg == AGG_AVG) {
                    int32_t shift = o->type->scale - arg->type->scale;
                    col_int128 num = sum * expr_pow10[shift], q = num / n, rem = num % n;
                    if ((rem < 0 ? -rem : rem) * 2 >= n)
                        q += num < 0 ? -1 : 1;
                    v = q;
                }
                if (!dec_fits(v, o->type->precision))
                    vec_set_null(o, p);
                else
                    vec_put_dec(o, p, v);
            } else if (o->type->id == COL_DOUBLE) {
                double sum = is_int ? (double)(pre->isum[hi] - pre->isum[lo])
                                    : pre->dsum[hi] - pre->dsum[lo];
                ((double *)o->values)[p] = fn->agg == AGG_AVG ? sum / (double)n : sum;
            } else {
                ((int64_t *)o->values)[p] = pre->isum[hi] - pre->isum[lo];
            }
            break;
        default: { /* MIN / MAX: scan the frame */
            int64_t best = -1, q;
            for (q = lo; q < hi; q++) {
                int64_t r = s->idx[q];
                int c;
                if (!vec_is_valid(arg, r))
                    continue;
                if (best < 0) {
                    best = r;
                    continue;
                }
                c = vec_compare_rows(arg, r, arg, best);
                if (fn->agg == AGG_MIN ? c < 0 : c > 0)
                    best = r;
            }
            ((int64_t *)o->values)[p] = best; /* gathered below */
            break;
        }
        }
    }
    (void)op;
    (void)err;
    return SILT_OK;
}

static silt_status win_drain(engine_op *op, win_state *s, silt_error *err)
{
    size_t n_acc = s->n_child + 2 * s->n_fns, col, f;
    vec_accum *acc = arena_calloc(op->op_arena, n_acc, sizeof(vec_accum));
    arena *scratch = arena_new(op->op_arena, "window_scratch");
    engine_sort_key *keys;
    int64_t k, ps;
    prefix pre;
    if (acc == NULL || scratch == NULL)
        return err_nomem(err);
    for (col = 0; col < s->n_child; col++)
        vec_accum_init(&acc[col], op->op_arena, op->children[0]->schema->fields[col].type);
    for (f = 0; f < s->n_fns; f++) {
        const engine_window_fn *fn = &s->fns[f];
        vec_accum_init(&acc[s->n_child + 2 * f], op->op_arena,
                       fn->arg ? fn->arg->type : col_type_primitive(COL_NULL));
        vec_accum_init(&acc[s->n_child + 2 * f + 1], op->op_arena,
                       fn->default_value ? fn->default_value->type : col_type_primitive(COL_NULL));
    }
    for (;;) {
        engine_chunk *in;
        SILT_RETURN_IF_ERROR(engine_op_next(op->children[0], &in, err));
        if (in == NULL)
            break;
        arena_reset(scratch);
        for (col = 0; col < s->n_child; col++)
            SILT_RETURN_IF_ERROR(vec_accum_add(&acc[col], in->batch.cols[col], in->sel, in->n_sel, err));
        for (f = 0; f < s->n_fns; f++) {
            const engine_window_fn *fn = &s->fns[f];
            expr *exprs[2] = {fn->arg, fn->default_value};
            int which;
            for (which = 0; which < 2; which++) {
                col_vec *v;
                if (exprs[which] == NULL)
                    continue;
                SILT_RETURN_IF_ERROR(expr_eval(exprs[which], op->ctx, &in->batch, in->sel,
                                               in->n_sel, scratch, &v, err));
                SILT_RETURN_IF_ERROR(vec_accum_add(&acc[s->n_child + 2 * f + which], v, in->sel,
                                                   in->n_sel, err));
            }
        }
        s->n_rows += in->n_sel;
        SILT_RETURN_IF_ERROR(engine_op_charge(op, in->n_sel * 16 * (int64_t)n_acc,
                                               "window", err));
    }
    arena_free(scratch);
    s->cols = arena_calloc(op->op_arena, n_acc, sizeof(col_vec *));
    s->idx = arena_alloc(op->op_arena, sizeof(int64_t) * (size_t)(s->n_rows + 1));
    keys = arena_calloc(op->op_arena, s->n_part + s->n_order + 1, sizeof(engine_sort_key));
    pre.cnt = arena_alloc(op->op_arena, sizeof(int64_t) * (size_t)(s->n_rows + 1));
    pre.dsum = arena_alloc(op->op_arena, sizeof(double) * (size_t)(s->n_rows + 1));
    pre.isum = arena_alloc(op->op_arena, sizeof(int64_t) * (size_t)(s->n_rows + 1));
    pre.dec = arena_alloc(op->op_arena, sizeof(col_int128) * (size_t)(s->n_rows + 1));
    s->results = arena_calloc(op->op_arena, s->n_fns ? s->n_fns : 1, sizeof(col_vec *));
    if (s->cols == NULL || s->idx == NULL || keys == NULL || pre.cnt == NULL ||
        pre.dsum == NULL || pre.isum == NULL || pre.dec == NULL || s->results == NULL)
        return err_nomem(err);
    for (col = 0; col < n_acc; col++) {
        if (acc[col].type->id == COL_NULL && acc[col].n_rows == 0)
            continue;
        SILT_RETURN_IF_ERROR(vec_accum_finish(&acc[col], &s->cols[col], err));
    }
    for (k = 0; k < (int64_t)s->n_part; k++)
        keys[k] = engine_sort_key_default(s->part_cols[k], 0);
    memcpy(keys + s->n_part, s->order, sizeof(engine_sort_key) * s->n_order);
    for (k = 0; k < s->n_rows; k++)
        s->idx[k] = k;
    SILT_RETURN_IF_ERROR(engine_sort_indices(keys, s->n_part + s->n_order, s->cols, s->idx,
                                             s->n_rows, op->op_arena, err));
    for (f = 0; f < s->n_fns; f++) {
        const engine_window_fn *fn = &s->fns[f];
        const col_type *t = op->schema->fields[s->n_child + f].type;
        col_vec *arg = s->cols[s->n_child + 2 * f];
        int64_t *take = NULL;
        engine_frame frame = fn->frame;
        if (!fn->has_frame) {
            frame.type = s->n_order > 0 ? FRAME_RANGE : FRAME_ROWS;
            frame.start_unbounded = 1;
            frame.end_unbounded = s->n_order == 0;
            frame.start = frame.end = 0;
        }
        if (fn->kind == WIN_LAG || fn->kind == WIN_LEAD ||
            (fn->kind == WIN_AGG && (fn->agg == AGG_MIN || fn->agg == AGG_MAX))) {
            take = arena_alloc(op->op_arena, sizeof(int64_t) * (size_t)(s->n_rows + 1));
            if (take == NULL)
                return err_nomem(err);
            SILT_RETURN_IF_ERROR(vec_new(&s->results[f], op->op_arena,
                                         col_type_primitive(COL_LONG), s->n_rows, err));
        } else {
            SILT_RETURN_IF_ERROR(vec_new(&s->results[f], op->op_arena, t, s->n_rows, err));
        }
        for (ps = 0; ps < s->n_rows;) {
            int64_t pe = ps + 1;
            while (pe < s->n_rows && same_partition(s, pe - 1, pe))
                pe++;
            if (fn->kind == WIN_ROW_NUMBER || fn->kind == WIN_RANK || fn->kind == WIN_DENSE_RANK)
                SILT_RETURN_IF_ERROR(compute_ranking(s, fn, s->results[f], ps, pe));
            else if (fn->kind == WIN_LAG || fn->kind == WIN_LEAD)
                offset_rows(s, fn, take, ps, pe);
            else
                SILT_RETURN_IF_ERROR(compute_agg(op, s, fn, arg, s->results[f], &frame, ps, pe,
                                                 &pre, err));
            ps = pe;
        }
        if (fn->kind == WIN_LAG || fn->kind == WIN_LEAD) {
            /* Rows outside the partition take the default (NULL without one). */
            col_vec *def = s->cols[s->n_child + 2 * f + 1];
            const col_vec **src = arena_calloc(op->op_arena, (size_t)(s->n_rows + 1), sizeof(col_vec *));
            col_vec *shifted, *defaults = NULL;
            int64_t *def_idx = arena_alloc(op->op_arena, sizeof(int64_t) * (size_t)(s->n_rows + 1));
            if (src == NULL || def_idx == NULL)
                return err_nomem(err);
            for (k = 0; k < s->n_rows; k++)
                def_idx[k] = s->idx[k];
            SILT_RETURN_IF_ERROR(vec_gather(&shifted, op->op_arena, arg, take, s->n_rows, err));
            if (def != NULL)
                SILT_RETURN_IF_ERROR(vec_gather(&defaults, op->op_arena, def, def_idx, s->n_rows, err));
            for (k = 0; k < s->n_rows; k++)
                src[k] = take[k] >= 0 ? shifted : defaults;
            SILT_RETURN_IF_ERROR(vec_merge(&s->results[f], op->op_arena, t, s->n_rows, NULL,
                                           s->n_rows, src, err));
        } else if (take != NULL) {
            /* min/max computed the winning row number per position */
            col_vec *rowv = s->results[f];
            for (k = 0; k < s->n_rows; k++)
                take[k] = ((int64_t *)rowv->values)[k];
            SILT_RETURN_IF_ERROR(vec_gather(&s->results[f], op->op_arena, arg, take, s->n_rows, err));
        }
    }
    s->next_row = 0;
    s->drained = 1;
    return SILT_OK;
}

static silt_status win_open(engine_op *op, silt_error *err)
{
    win_state *s = op->state;
    s->drained = 0;
    s->n_rows = 0;
    return SILT_OK;
}

static silt_status win_next(engine_op *op, engine_chunk **out, silt_error *err)
{
    win_state *s = op->state;
    engine_chunk *c;
    int64_t n, k, *rows, *pos;
    size_t col, f;
    if (!s->drained)
        SILT_RETURN_IF_ERROR(win_drain(op, s, err));
    if (s->next_row >= s->n_rows) {
        *out = NULL;
        return SILT_OK;
    }
    n = s->n_rows - s->next_row;
    if (n > ENGINE_BATCH_ROWS)
        n = ENGINE_BATCH_ROWS;
    rows = arena_alloc(op->batch_arena, sizeof(int64_t) * (size_t)n);
    pos = arena_alloc(op->batch_arena, sizeof(int64_t) * (size_t)n);
    if (rows == NULL || pos == NULL)
        return err_nomem(err);
    for (k = 0; k < n; k++) {
        pos[k] = s->next_row + k;
        rows[k] = s->idx[s->next_row + k];
    }
    SILT_RETURN_IF_ERROR(engine_chunk_new(&c, op, s->n_child + s->n_fns, n, err));
    for (col = 0; col < s->n_child; col++)
        SILT_RETURN_IF_ERROR(vec_gather(&c->batch.cols[col], op->batch_arena, s->cols[col], rows, n, err));
    for (f = 0; f < s->n_fns; f++)
        SILT_RETURN_IF_ERROR(vec_gather(&c->batch.cols[s->n_child + f], op->batch_arena,
                                        s->results[f], pos, n, err));
    s->next_row += n;
    *out = c;
    return SILT_OK;
}

static const engine_op_vtable win_vt = {"window", win_open, win_next, NULL};

/* Result type of a window function. */
static silt_status win_type(const col_type **out, arena *a, const engine_window_fn *fn,
                            silt_error *err)
{
    switch (fn->kind) {
    case WIN_ROW_NUMBER:
    case WIN_RANK:
    case WIN_DENSE_RANK: *out = col_type_primitive(COL_INT); return SILT_OK;
    case WIN_LAG:
    case WIN_LEAD:
        if (fn->arg == NULL)
            return err_set(err, SILT_BIND, "lag and lead need an argument");
        *out = fn->arg->type;
        return SILT_OK;
    default:
        if (fn->agg != AGG_COUNT_STAR && fn->agg != AGG_COUNT && fn->agg != AGG_SUM &&
            fn->agg != AGG_AVG && fn->agg != AGG_MIN && fn->agg != AGG_MAX)
            return err_set(err, SILT_UNSUPPORTED, "this aggregate is not supported as a window "
                           "function yet");
        return engine_agg_type_checked(out, a, fn->agg, fn->arg ? fn->arg->type : NULL, err);
    }
}

silt_status engine_op_window(engine_op **out, engine_ctx *ctx, engine_op *child,
                             const int64_t *partition_cols, size_t n_partition,
                             const engine_sort_key *order, size_t n_order,
                             const engine_window_fn *fns, size_t n_fns, silt_error *err)
{
    arena *qa = ctx->query_arena;
    size_t n_child = child->schema->n_fields, n_out = n_child + n_fns, idx;
    col_field *fields = arena_calloc(qa, n_out ? n_out : 1, sizeof(col_field));
    const col_type *schema;
    win_state *s;
    if (fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_partition; idx++)
        if (partition_cols[idx] < 0 || (size_t)partition_cols[idx] >= n_child)
            return err_set(err, SILT_INVALID, "partition column %lld is out of range",
                           (long long)partition_cols[idx]);
    for (idx = 0; idx < n_order; idx++)
        if (order[idx].col_idx < 0 || (size_t)order[idx].col_idx >= n_child)
            return err_set(err, SILT_INVALID, "order column %lld is out of range",
                           (long long)order[idx].col_idx);
    for (idx = 0; idx < n_child; idx++)
        fields[idx] = child->schema->fields[idx];
    for (idx = 0; idx < n_fns; idx++) {
        const engine_window_fn *fn = &fns[idx];
        SILT_RETURN_IF_ERROR(win_type(&fields[n_child + idx].type, qa, fn, err));
        fields[n_child + idx].name = fn->name ? arena_strdup(qa, fn->name)
                                              : arena_sprintf(qa, "w%zu", idx);
        if (fields[n_child + idx].name == NULL)
            return err_nomem(err);
        fields[n_child + idx].nullable = 1;
        fields[n_child + idx].field_id = -1;
        if ((fn->kind == WIN_LAG || fn->kind == WIN_LEAD) && fn->offset < 0)
            return err_set(err, SILT_BIND, "the offset of lag/lead must not be negative");
        if (fn->default_value != NULL && !col_type_equal(fn->default_value->type, fn->arg->type))
            return err_set(err, SILT_BIND, "the default of lag/lead must have the argument's type");
        if (fn->has_frame && fn->frame.type == FRAME_RANGE &&
            ((!fn->frame.start_unbounded && fn->frame.start != 0) ||
             (!fn->frame.end_unbounded && fn->frame.end != 0))) {
            const col_type *kt;
            if (n_order != 1)
                return err_set(err, SILT_BIND, "a RANGE frame with an offset needs exactly one "
                               "ORDER BY key");
            kt = child->schema->fields[order[0].col_idx].type;
            if (!is_int_like(kt->id) && kt->id != COL_FLOAT && kt->id != COL_DOUBLE)
                return err_set(err, SILT_BIND, "a RANGE frame with an offset needs a numeric or "
                               "date ORDER BY key, not \"%s\"", col_type_id_name(kt->id));
        }
    }
    schema = col_type_struct(qa, n_out, fields);
    if (schema == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(engine_op_new_internal(out, ctx, &win_vt, schema, sizeof(win_state),
                                                &child, 1, err));
    s = (*out)->state;
    s->n_child = n_child;
    s->part_cols = arena_memdup(qa, partition_cols ? (const void *)partition_cols : (const void *)"",
                                sizeof(int64_t) * n_partition);
    s->order = arena_memdup(qa, order ? (const void *)order : (const void *)"",
                            sizeof(engine_sort_key) * n_order);
    s->fns = arena_memdup(qa, fns ? (const void *)fns : (const void *)"",
                          sizeof(engine_window_fn) * n_fns);
    if (s->part_cols == NULL || s->order == NULL || s->fns == NULL)
        return err_nomem(err);
    s->n_part = n_partition;
    s->n_order = n_order;
    s->n_fns = n_fns;
    return SILT_OK;
}
