/*
 * op_window.c - window functions (row_number, rank, dense_rank, ntile,
 * percent_rank, cume_dist, lag, lead, first_value, last_value, nth_value,
 * and count/sum/avg/min/max over ROWS or RANGE frames).
 *
 * The operator drains its child, keeping its columns and the evaluated
 * arguments, numbers the rows by partition with a hash table (partitions
 * in key order, ASC NULLS FIRST; rows in input order; one string key is
 * numbered while draining, per dictionary entry when it is encoded), then
 * sorts each partition by the order keys (stable) and computes its
 * functions; the partitions run as tasks on the thread pool (win_compute),
 * and each task also makes its output chunks (make_output). Sums, counts
 * and averages use prefix sums, so any frame costs O(1) per row; running
 * frames read their end, and running min/max carry their best row; other
 * min/max frames are scanned. Peer groups are found once per partition.
 * With PARTITION BY, an input that outgrows the memory room is partitioned
 * to disk instead (win_should_spill, window_spill.c).
 *
 * Output: the child's columns and one column per function, partition by
 * partition; nothing above relies on that order (ORDER BY is its own sort).
 * A text partition key is dictionary-encoded per chunk (one entry per
 * partition); columns the projection above does not read are NULLs.
 */
#include "engine/op_int.h"
#include "engine/spill_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"

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
    /*
     * The output, made by the tasks: segment t's chunks of at most
     * ENGINE_BATCH_ROWS rows, chunk c's columns out[t][c] (child columns,
     * then the functions') with out_rows[t][c] rows, in out_arenas[t].
     */
    col_vec ****out;
    int64_t **out_rows;
    int64_t *out_n;
    arena **out_arenas;
    size_t n_segs, cur_seg;
    int64_t cur_chunk;
    int drained;
    /*
     * WindowGroupLimit: keep only rows whose limit_kind rank can be <=
     * limit_k (-1: no limit). rows_arena holds the child columns drained so
     * far; every compaction sorts them, keeps the rows within the limit
     * (surv, sorted) and indexes each partition's last kept row in slots,
     * against which later rows are checked before they are kept.
     */
    int64_t limit_k;
    engine_win_kind limit_kind;
    arena *rows_arena;
    col_vec **surv;
    int64_t n_surv;
    struct wgl_slot *slots;
    size_t n_slots; /* power of two; 0 = no compaction yet */
    int64_t charged;
    /* sorted positions: partitions [part_start[i], part_start[i + 1]), peer groups */
    int64_t *part_start, n_parts;
    /*
     * Peer groups of the partition a task computes, in its worker's
     * scratch: peer_lo[p - peer_base] (win_task sets these in its own copy
     * of the state, so a partition's peers never take n_rows-sized arrays).
     */
    int64_t *peer_lo, *peer_hi, peer_base;
    /*
     * One string PARTITION BY key, no limit: partitions are numbered while
     * draining (drain_parts), where a dictionary-encoded key is looked up
     * once per dictionary entry, not hashed and compared per row. pmap
     * maps key bytes to partition + 1; dpart[row] is the row's partition,
     * drep[partition] its first row; null_part is the NULL key's (-1: none).
     */
    /* per child column: 0 = no operator reads it (win_note_project); NULL = all */
    uint8_t *used;
    int by_dict;
    hashmap pmap;
    arena *part_arena; /* a root arena for dpart and drep: rows_arena is replaced midway */
    int32_t *dpart;
    int64_t *drep, dpart_cap, drep_cap, n_dparts, null_part;
    /* Partitioned by the PARTITION BY keys to disk (window_spill.c) once the input outgrew the room. */
    win_spill *spill;
    int spill_level;
    /* bytes of the rows the workers of a parallel input hold for this window (not in rows_arena) */
    int64_t pipe_bytes;
} win_state;

typedef struct wgl_slot {
    uint64_t hash;
    int64_t row; /* last kept row of the partition in surv; -1 = empty slot */
    int full;    /* no row ordered after it can get a rank <= limit_k */
    int has_bound; /* one non-NULL integral or double order key: its value below */
    int64_t ibound;
    double dbound;
} wgl_slot;

/*
 * A WindowGroupLimit compacts its rows first after this many, later when
 * they outnumber the kept rows four times. Small, because until the first
 * compaction no row is filtered, and each compaction sorts what it holds:
 * with few partitions the first one already fills them all.
 */
#define WGL_FIRST_COMPACT 256

static int win_is_value(engine_win_kind k)
{
    return k == WIN_FIRST_VALUE || k == WIN_LAST_VALUE || k == WIN_NTH_VALUE;
}

static int is_int_like(col_type_id id)
{
    return id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG ||
           id == COL_DATE || id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ;
}

/* Whether sorted positions x and y have equal order keys (peers). */
static int peers(const win_state *s, int64_t x, int64_t y)
{
    size_t k;
    for (k = 0; k < s->n_order; k++) {
        const col_vec *v = s->cols[s->order[k].col_idx];
        if (vec_compare_rows(v, s->idx[x], v, s->idx[y]) != 0)
            return 0;
    }
    return 1;
}

/* The values of a single integral order key without NULLs (both NULL otherwise). */
static void order_key_values(const win_state *s, const int64_t **ik, const int32_t **ik32)
{
    const col_vec *v;
    col_type_id id;
    *ik = NULL;
    *ik32 = NULL;
    if (s->n_order != 1)
        return;
    v = s->cols[s->order[0].col_idx];
    id = v->type->id;
    if ((v->validity != NULL && v->null_count != 0) || v->dictionary != NULL)
        return;
    if (id == COL_LONG || id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ)
        *ik = v->values;
    else if (id == COL_INT || id == COL_DATE)
        *ik32 = v->values;
}

/*
 * Whether positions [ps, pe) are already in order, as rows of time-ordered
 * input often are: then the partition needs no sort. Stops at the first
 * pair out of order, so unordered input costs little.
 */
static int already_sorted(const win_state *s, int64_t ps, int64_t pe)
{
    const int64_t *ik;
    const int32_t *ik32;
    int desc = s->order[0].descending;
    int64_t p;
    order_key_values(s, &ik, &ik32);
    for (p = ps + 1; p < pe; p++) {
        int64_t x = s->idx[p - 1], y = s->idx[p];
        int c = ik != NULL     ? (ik[x] > ik[y]) - (ik[x] < ik[y])
                : ik32 != NULL ? (ik32[x] > ik32[y]) - (ik32[x] < ik32[y])
                               : engine_compare_keys(s->order, s->n_order, s->cols, x, s->cols, y);
        if ((ik != NULL || ik32 != NULL) && desc)
            c = -c;
        if (c > 0)
            return 0;
    }
    return 1;
}

/*
 * The peer group [peer_lo, peer_hi) of every position of a sorted
 * partition [ps, pe): found once, so that RANGE frames ending at CURRENT
 * ROW, rank and cume_dist cost O(1) per row even when many rows tie. One
 * integral order key without NULLs is compared inline.
 */
static void compute_peers(win_state *s, int64_t ps, int64_t pe)
{
    const int64_t *ik = NULL;
    const int32_t *ik32 = NULL;
    int64_t p, g = ps, b = s->peer_base;
    order_key_values(s, &ik, &ik32);
    for (p = ps; p < pe; p++) {
        if (p > ps) {
            int64_t x = s->idx[p - 1], y = s->idx[p];
            int same = ik != NULL ? ik[x] == ik[y] : ik32 != NULL ? ik32[x] == ik32[y]
                                                                  : peers(s, p - 1, p);
            if (!same)
                g = p;
        }
        s->peer_lo[p - b] = g;
    }
    for (p = pe - 1; p >= ps; p--)
        s->peer_hi[p - b] = (p == pe - 1 || s->peer_lo[p + 1 - b] != s->peer_lo[p - b])
                                ? p + 1
                                : s->peer_hi[p + 1 - b];
}

/* Numeric value of the single RANGE order key at sorted position p. */
static double range_key(const win_state *s, int64_t p)
{
    const col_vec *v = s->cols[s->order[0].col_idx];
    if (v->type->id == COL_FLOAT || v->type->id == COL_DOUBLE)
        return vec_get_double(v, s->idx[p]);
    return (double)vec_get_int(v, s->idx[p]);
}

/* First position of [a, b) whose RANGE key is not before want (after: past it). */
static int64_t range_search(const win_state *s, int64_t a, int64_t b, double want, int after)
{
    int desc = s->order[0].descending;
    while (a < b) {
        int64_t m = a + (b - a) / 2;
        double mk = range_key(s, m);
        int before = after ? (desc ? mk >= want : mk <= want) : (desc ? mk > want : mk < want);
        if (before)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* Frame [lo, hi) of sorted position p in partition [ps, pe). */
static void frame_of(const win_state *s, const engine_frame *f, int64_t p, int64_t ps,
                     int64_t pe, int64_t *lo, int64_t *hi)
{
    int desc = s->n_order > 0 && s->order[0].descending;
    if (f->type == FRAME_ROWS) {
        *lo = f->start_unbounded ? ps : p + f->start;
        *hi = f->end_unbounded ? pe : p + f->end + 1;
    } else {
        /* RANGE: CURRENT ROW is the peer group; an offset, the rows whose key is within it */
        if (f->start_unbounded)
            *lo = ps;
        else if (f->start == 0)
            *lo = s->peer_lo[p - s->peer_base];
        else
            *lo = range_search(s, ps, pe,
                               range_key(s, p) + (desc ? -(double)f->start : (double)f->start), 0);
        if (f->end_unbounded)
            *hi = pe;
        else if (f->end == 0)
            *hi = s->peer_hi[p - s->peer_base];
        else
            *hi = range_search(s, ps, pe,
                               range_key(s, p) + (desc ? -(double)f->end : (double)f->end), 1);
    }
    if (*lo < ps)
        *lo = ps;
    if (*hi > pe)
        *hi = pe;
    if (*hi < *lo)
        *hi = *lo;
}

/*
 * Per-partition scratch of one worker, indexed from the partition's start:
 * cnt[i] counts the non-NULL values of positions ps .. ps + i - 1, the sums
 * likewise; nn lists the positions of non-NULL values (IGNORE NULLS).
 */
typedef struct prefix {
    int64_t *cnt;
    double *dsum;
    int64_t *isum;
    col_int128 *dec;
    int64_t *nn;
} prefix;

static void compute_ranking(const win_state *s, const engine_window_fn *fn, col_vec *o,
                            int64_t ps, int64_t pe)
{
    int64_t p, dense = 1;
    int32_t *out = o->values;
    for (p = ps; p < pe; p++) {
        if (p > ps && s->peer_lo[p - s->peer_base] == p)
            dense++;
        out[p] = fn->kind == WIN_ROW_NUMBER ? (int32_t)(p - ps + 1)
                 : fn->kind == WIN_RANK     ? (int32_t)(s->peer_lo[p - s->peer_base] - ps + 1)
                                            : (int32_t)dense;
    }
}

/*
 * ntile, percent_rank and cume_dist, which depend on the partition's size.
 * ntile(n) gives the first size % n buckets one row more than the others
 * (Spark's NTile); percent_rank is (rank - 1) / (size - 1), 0 for a
 * partition of one row; cume_dist counts the rows up to the current row's
 * last peer.
 */
static void compute_distribution(const win_state *s, const engine_window_fn *fn, col_vec *o,
                                 int64_t ps, int64_t pe)
{
    int64_t n = pe - ps, p;
    if (fn->kind == WIN_NTILE) {
        int64_t size = n / fn->offset, rem = n % fn->offset, big = rem * (size + 1);
        for (p = ps; p < pe; p++) {
            int64_t i = p - ps;
            /* i >= big only when size > 0: big == n when the buckets outnumber the rows */
            ((int32_t *)o->values)[p] = (int32_t)(i < big ? i / (size + 1) + 1
                                                          : rem + (i - big) / size + 1);
        }
        return;
    }
    for (p = ps; p < pe; p++)
        ((double *)o->values)[p] = fn->kind == WIN_CUME_DIST
                                       ? (double)(s->peer_hi[p - s->peer_base] - ps) / (double)n
                                   : n > 1 ? (double)(s->peer_lo[p - s->peer_base] - ps) / (double)(n - 1)
                                           : 0.0;
}

/*
 * first_value, last_value and nth_value: the row of the frame whose value
 * is taken (-1 = NULL: an empty frame, or fewer than n rows). With IGNORE
 * NULLS only rows with a non-NULL argument count (pre->cnt and pre->nn), so
 * each row costs O(1) whatever its frame.
 */
static void compute_value(const win_state *s, const engine_window_fn *fn, const col_vec *arg,
                          int64_t *take, const engine_frame *f, int64_t ps, int64_t pe,
                          prefix *pre)
{
    int64_t p, n_nn = 0;
    if (fn->ignore_nulls) {
        pre->cnt[0] = 0;
        for (p = ps; p < pe; p++) {
            int valid = vec_is_valid(arg, s->idx[p]);
            pre->cnt[p - ps + 1] = pre->cnt[p - ps] + valid;
            if (valid)
                pre->nn[n_nn++] = p;
        }
    }
    for (p = ps; p < pe; p++) {
        int64_t lo, hi, q = -1, a, b;
        frame_of(s, f, p, ps, pe, &lo, &hi);
        if (fn->ignore_nulls) {
            a = pre->cnt[lo - ps];
            b = pre->cnt[hi - ps];
        } else {
            a = lo - ps;
            b = hi - ps;
        }
        if (a < b) {
            int64_t i = fn->kind == WIN_FIRST_VALUE  ? a
                        : fn->kind == WIN_LAST_VALUE ? b - 1
                        : fn->offset <= b - a        ? a + fn->offset - 1
                                                     : -1;
            if (i >= 0)
                q = fn->ignore_nulls ? pre->nn[i] : ps + i;
        }
        take[p] = q >= 0 ? s->idx[q] : -1;
    }
}

/* Sorted positions to take for lag/lead (-1 = default); done by one gather later. */
static void offset_rows(const win_state *s, const engine_window_fn *fn, int64_t *take,
                        int64_t ps, int64_t pe)
{
    int64_t p;
    for (p = ps; p < pe; p++) {
        int64_t q = fn->kind == WIN_LAG ? p - fn->offset : p + fn->offset;
        take[p] = (q >= ps && q < pe) ? s->idx[q] : -1;
    }
}

/*
 * prefix_sums for an argument without NULLs of type double, long or int:
 * one typed loop (this runs for every row of every running sum). Returns 0
 * when the argument is of another kind.
 */
static int prefix_sums_dense(const win_state *s, const col_vec *arg, int64_t ps, int64_t pe,
                             prefix *pre)
{
    const int64_t *idx = s->idx + ps;
    int64_t i, n = pe - ps;
    col_type_id in = arg->type->id;
    if ((arg->validity != NULL && arg->null_count != 0) || arg->dictionary != NULL)
        return 0;
    if (in == COL_DOUBLE) {
        const double *x = arg->values;
        double acc = 0;
        pre->dsum[0] = 0;
        for (i = 0; i < n; i++)
            pre->dsum[i + 1] = acc += x[idx[i]];
    } else if (in == COL_LONG || in == COL_INT) {
        const int64_t *x64 = arg->values;
        const int32_t *x32 = arg->values;
        uint64_t acc = 0; /* wraps as the general loop does */
        pre->isum[0] = 0;
        for (i = 0; i < n; i++)
            pre->isum[i + 1] = (int64_t)(acc += (uint64_t)(in == COL_LONG ? x64[idx[i]]
                                                                           : x32[idx[i]]));
    } else {
        return 0;
    }
    for (i = 0; i <= n; i++)
        pre->cnt[i] = i;
    return 1;
}

/* Prefix counts and sums of the argument over partition [ps, pe). */
static void prefix_sums(const win_state *s, const col_vec *arg, int64_t ps, int64_t pe,
                        prefix *pre)
{
    col_type_id in = arg ? arg->type->id : COL_NULL;
    int is_dec = in == COL_DECIMAL, is_int = is_int_like(in);
    int64_t p;
    if (arg != NULL && prefix_sums_dense(s, arg, ps, pe, pre))
        return;
    pre->cnt[0] = 0;
    pre->dsum[0] = 0;
    pre->isum[0] = 0;
    pre->dec[0] = 0;
    for (p = ps; p < pe; p++) {
        int64_t r = s->idx[p], i = p - ps;
        int valid = arg == NULL || vec_is_valid(arg, r);
        pre->cnt[i + 1] = pre->cnt[i] + valid;
        pre->dsum[i + 1] = pre->dsum[i];
        pre->isum[i + 1] = pre->isum[i];
        pre->dec[i + 1] = pre->dec[i];
        if (!valid || arg == NULL)
            continue;
        if (is_dec)
            pre->dec[i + 1] += vec_get_dec(arg, r);
        else if (is_int)
            pre->isum[i + 1] = (int64_t)((uint64_t)pre->isum[i + 1] + (uint64_t)vec_get_int(arg, r));
        else if (in == COL_FLOAT || in == COL_DOUBLE)
            pre->dsum[i + 1] += vec_get_double(arg, r);
    }
}

/* Row r if its value beats best's for min/max (best -1: none yet), else best; NULLs never win. */
static inline int64_t better_row(const engine_window_fn *fn, const col_vec *arg, int64_t r,
                                 int64_t best)
{
    int c;
    if (!vec_is_valid(arg, r))
        return best;
    if (best < 0)
        return r;
    c = vec_compare_rows(arg, r, arg, best);
    return (fn->agg == AGG_MIN ? c < 0 : c > 0) ? r : best;
}

/* The row of the minimum or maximum of the frame (-1: no non-NULL value). */
static int64_t frame_best(const win_state *s, const engine_window_fn *fn, const col_vec *arg,
                          int64_t lo, int64_t hi)
{
    int64_t best = -1, q;
    for (q = lo; q < hi; q++)
        best = better_row(fn, arg, s->idx[q], best);
    return best;
}

/*
 * Whether a frame starts at the partition's first row and ends at the
 * current row (ROWS), its last peer (RANGE) or the partition's end: the
 * frames of running aggregates (Spark's default with ORDER BY) and of
 * whole partitions, whose end only moves forward and needs no search.
 */
static int running_frame(const engine_frame *f)
{
    return f->start_unbounded && (f->end_unbounded || f->end == 0);
}

/* The end of a running frame (running_frame) at sorted position p. */
static inline int64_t running_hi(const win_state *s, const engine_frame *f, int64_t p,
                                 int64_t pe)
{
    return f->end_unbounded ? pe : f->type == FRAME_ROWS ? p + 1 : s->peer_hi[p - s->peer_base];
}

/*
 * min/max over running frames: the best row of [ps, hi) is carried from
 * one row to the next as hi moves forward, O(1) a row where frame_best
 * would rescan the frame.
 */
static void running_best(const win_state *s, const engine_window_fn *fn, const col_vec *arg,
                         col_vec *o, const engine_frame *f, int64_t ps, int64_t pe)
{
    int64_t p, q = ps, best = -1;
    for (p = ps; p < pe; p++) {
        int64_t hi = running_hi(s, f, p, pe);
        for (; q < hi; q++)
            best = better_row(fn, arg, s->idx[q], best);
        ((int64_t *)o->values)[p] = best;
    }
}

/*
 * count/sum/avg (not decimal) over running frames from prefix sums, one
 * loop per kind of result: the frame's end is read, not searched.
 */
static void running_agg(const win_state *s, const engine_window_fn *fn, int is_int, col_vec *o,
                        uint8_t *nulls, const engine_frame *f, int64_t ps, int64_t pe,
                        const prefix *pre)
{
    int64_t p;
    const int64_t *cnt = pre->cnt; /* indexed from the partition's start */
    if (fn->agg == AGG_COUNT_STAR || fn->agg == AGG_COUNT) {
        int64_t *out = o->values;
        for (p = ps; p < pe; p++) {
            int64_t hi = running_hi(s, f, p, pe);
            out[p] = fn->agg == AGG_COUNT_STAR ? hi - ps : cnt[hi - ps];
        }
    } else if (o->type->id == COL_DOUBLE) {
        double *out = o->values;
        for (p = ps; p < pe; p++) {
            int64_t b = running_hi(s, f, p, pe) - ps, n = cnt[b];
            double sum = is_int ? (double)pre->isum[b] : pre->dsum[b];
            if (n == 0)
                nulls[p] = 1;
            else
                out[p] = fn->agg == AGG_AVG ? sum / (double)n : sum;
        }
    } else {
        int64_t *out = o->values;
        for (p = ps; p < pe; p++) {
            int64_t b = running_hi(s, f, p, pe) - ps;
            if (cnt[b] == 0)
                nulls[p] = 1;
            else
                out[p] = pre->isum[b];
        }
    }
}

/*
 * count/sum/avg over each row's frame from prefix sums (O(1) a row), and
 * min/max by scanning the frame (their row goes to o, gathered later). A
 * NULL result is marked in nulls[p], not in o: partitions of one vector
 * are computed by several workers, and validity bits are shared bytes.
 */
static void compute_agg(const win_state *s, const engine_window_fn *fn, const col_vec *arg,
                        col_vec *o, uint8_t *nulls, const engine_frame *f, int64_t ps,
                        int64_t pe, prefix *pre)
{
    int64_t p;
    int is_int = arg != NULL && is_int_like(arg->type->id);
    if (running_frame(f) && (fn->agg == AGG_MIN || fn->agg == AGG_MAX)) {
        running_best(s, fn, arg, o, f, ps, pe);
        return;
    }
    if (fn->agg != AGG_MIN && fn->agg != AGG_MAX)
        prefix_sums(s, arg, ps, pe, pre);
    if (running_frame(f) && o->type->id != COL_DECIMAL) {
        running_agg(s, fn, is_int, o, nulls, f, ps, pe, pre);
        return;
    }
    for (p = ps; p < pe; p++) {
        int64_t lo, hi, n, a, b;
        frame_of(s, f, p, ps, pe, &lo, &hi);
        a = lo - ps;
        b = hi - ps;
        if (fn->agg == AGG_MIN || fn->agg == AGG_MAX) {
            ((int64_t *)o->values)[p] = frame_best(s, fn, arg, lo, hi);
            continue;
        }
        n = pre->cnt[b] - pre->cnt[a];
        if (fn->agg == AGG_COUNT_STAR || fn->agg == AGG_COUNT) {
            ((int64_t *)o->values)[p] = fn->agg == AGG_COUNT_STAR ? hi - lo : n;
        } else if (n == 0) {
            nulls[p] = 1;
        } else if (o->type->id == COL_DECIMAL) {
            col_int128 sum = pre->dec[b] - pre->dec[a], v = sum;
            if (fn->agg == AGG_AVG) {
                int32_t shift = o->type->scale - arg->type->scale;
                col_int128 num = sum * expr_pow10[shift], q = num / n, rem = num % n;
                if ((rem < 0 ? -rem : rem) * 2 >= n)
                    q += num < 0 ? -1 : 1;
                v = q;
            }
            if (!engine_dec_fits(v, o->type->precision))
                nulls[p] = 1;
            else
                vec_put_dec(o, p, v);
        } else if (o->type->id == COL_DOUBLE) {
            double sum = is_int ? (double)(pre->isum[b] - pre->isum[a])
                                : pre->dsum[b] - pre->dsum[a];
            ((double *)o->values)[p] = fn->agg == AGG_AVG ? sum / (double)n : sum;
        } else {
            ((int64_t *)o->values)[p] = pre->isum[b] - pre->isum[a];
        }
    }
}

/* ---- WindowGroupLimit ------------------------------------------------------------- */

static inline uint64_t wgl_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static inline uint64_t wgl_str_hash(const char *x, int32_t len, uint64_t h)
{
    h ^= (uint64_t)len * 0x9e3779b97f4a7c15ull;
    for (; len >= 8; x += 8, len -= 8) {
        uint64_t w;
        memcpy(&w, x, 8);
        h = (h ^ w) * 0x100000001b3ull;
    }
    if (len > 0) {
        uint64_t w = 0;
        int32_t i;
        for (i = 0; i < len; i++)
            w |= (uint64_t)(uint8_t)x[i] << (8 * i);
        h = (h ^ w) * 0x100000001b3ull;
    }
    return wgl_mix(h);
}

/*
 * Hashes of the partition keys of rows sel[0..n) (NULL sel: rows 0..n)
 * into h[0..n), one typed loop per key column: this runs for every input
 * row. Strings and integers are hashed inline; other types take
 * vec_hash_row, which also makes -0.0 and 0.0 one partition. The hashes
 * are only compared with each other.
 */
static void part_hashes(const win_state *s, col_vec *const *cols, const int32_t *sel, int64_t n,
                        uint64_t *h)
{
    size_t k;
    int64_t i;
    for (i = 0; i < n; i++)
        h[i] = 0x5bd1e995u;
    for (k = 0; k < s->n_part; k++) {
        const col_vec *v = cols[s->part_cols[k]];
        col_type_id id = v->type->id;
        for (i = 0; i < n; i++) {
            int64_t row = ENGINE_ROW(sel, i);
            if (!vec_is_valid(v, row)) {
                h[i] = wgl_mix(h[i] ^ 0x9e3779b97f4a7c15ull);
            } else if (id == COL_STRING || id == COL_BINARY) {
                int32_t len;
                const char *x = col_vec_str(v, row, &len);
                h[i] = wgl_str_hash(x, len, h[i]);
            } else if (id == COL_INT || id == COL_DATE) {
                h[i] = wgl_mix(h[i] ^ (uint64_t)((const int32_t *)v->values)[row]);
            } else if (id == COL_LONG || id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ) {
                h[i] = wgl_mix(h[i] ^ (uint64_t)((const int64_t *)v->values)[row]);
            } else {
                h[i] = vec_hash_row(v, row, h[i]);
            }
        }
    }
}

/*
 * Whether rows x and y of one plain (not dictionary-encoded) string vector
 * are equal, NULLs equal: read straight from the offsets, as partition keys
 * are compared once per input row.
 */
static inline int plain_str_equal(const col_vec *v, int64_t x, int64_t y)
{
    const int32_t *off = v->offsets;
    int32_t len = off[x + 1] - off[x], i;
    const char *xs = v->data + off[x], *ys = v->data + off[y];
    if (v->validity != NULL) {
        int vx = col_bit_get(v->validity, x), vy = col_bit_get(v->validity, y);
        if (!vx || !vy)
            return vx == vy;
    }
    if (len != off[y + 1] - off[y])
        return 0;
    if (len > 16)
        return memcmp(xs, ys, (size_t)len) == 0;
    for (i = 0; i < len; i++) /* partition keys are short: no call */
        if (xs[i] != ys[i])
            return 0;
    return 1;
}

/* Whether row x of xc and row y of yc have equal partition keys (NULLs are equal). */
static int same_part_keys(const win_state *s, col_vec *const *xc, int64_t x, col_vec *const *yc,
                          int64_t y)
{
    size_t k;
    if (xc == yc && s->n_part == 1 && xc[s->part_cols[0]]->type->id == COL_STRING &&
        xc[s->part_cols[0]]->dictionary == NULL)
        return plain_str_equal(xc[s->part_cols[0]], x, y);
    for (k = 0; k < s->n_part; k++) {
        const col_vec *v = xc[s->part_cols[k]], *w = yc[s->part_cols[k]];
        if (v->type->id == COL_STRING && vec_is_valid(v, x) && vec_is_valid(w, y)) {
            int32_t xl, yl, i;
            const char *xs = col_vec_str(v, x, &xl), *ys = col_vec_str(w, y, &yl);
            if (xl != yl)
                return 0;
            for (i = 0; i < xl; i++) /* partition keys are short: no call */
                if (xs[i] != ys[i])
                    return 0;
        } else if (vec_compare_rows(v, x, w, y) != 0) {
            return 0;
        }
    }
    return 1;
}

/* Whether row x of xc and row y of yc agree on the columns listed (NULLs agree). */
static int rows_agree(const int64_t *col_of, const engine_sort_key *keys, size_t n,
                      col_vec *const *xc, int64_t x, col_vec *const *yc, int64_t y)
{
    size_t k;
    for (k = 0; k < n; k++) {
        int64_t c = col_of ? col_of[k] : keys[k].col_idx;
        if (vec_compare_rows(xc[c], x, yc[c], y) != 0)
            return 0;
    }
    return 1;
}

/* The slot of row's partition, or NULL when no row of it was kept. */
static const wgl_slot *wgl_find(const win_state *s, col_vec *const *cols, int64_t row,
                                uint64_t h)
{
    size_t mask = s->n_slots - 1, b = (size_t)h & mask;
    for (;; b = (b + 1) & mask) {
        const wgl_slot *slot = &s->slots[b];
        if (slot->row < 0)
            return NULL;
        if (slot->hash == h && same_part_keys(s, cols, row, s->surv, slot->row))
            return slot;
    }
}

/* The slot of a one-string-key partition, or NULL (wgl_find for a dictionary entry). */
static const wgl_slot *wgl_find_str(const win_state *s, const char *x, int32_t len, uint64_t h)
{
    const col_vec *kept = s->surv[s->part_cols[0]];
    size_t mask = s->n_slots - 1, b = (size_t)h & mask;
    for (;; b = (b + 1) & mask) {
        const wgl_slot *slot = &s->slots[b];
        int32_t klen;
        const char *k;
        if (slot->row < 0)
            return NULL;
        if (slot->hash != h || !vec_is_valid(kept, slot->row))
            continue;
        k = col_vec_str(kept, slot->row, &klen);
        if (klen == len && memcmp(k, x, (size_t)len) == 0)
            return slot;
    }
}

/*
 * Each live row's partition slot (NULL: no row of it kept yet). A single
 * partition key that arrives dictionary-encoded (Parquet) is looked up
 * once per dictionary entry instead of hashed and compared per row.
 */
static silt_status wgl_slots_of(const win_state *s, engine_chunk *in, arena *a,
                                const wgl_slot ***out, silt_error *err)
{
    const wgl_slot **slots = arena_alloc(a, sizeof(*slots) * (size_t)(in->n_sel ? in->n_sel : 1));
    const col_vec *pv = s->n_part == 1 ? in->batch.cols[s->part_cols[0]] : NULL;
    uint64_t *hashes;
    int64_t k;
    if (slots == NULL)
        return err_nomem(err);
    *out = slots;
    if (pv != NULL && pv->dictionary != NULL && pv->dictionary->length <= in->n_sel) {
        const col_vec *d = pv->dictionary;
        const int32_t *codes = pv->values;
        const wgl_slot **by_entry = arena_alloc(a, sizeof(*by_entry) *
                                                       (size_t)(d->length ? d->length : 1));
        if (by_entry == NULL)
            return err_nomem(err);
        for (k = 0; k < d->length; k++) {
            int32_t len;
            const char *x = col_vec_str(d, k, &len);
            /* part_hashes of a one-string key */
            by_entry[k] = wgl_find_str(s, x, len, wgl_str_hash(x, len, 0x5bd1e995u));
        }
        for (k = 0; k < in->n_sel; k++) {
            int64_t row = ENGINE_ROW(in->sel, k);
            if (vec_is_valid(pv, row)) {
                slots[k] = by_entry[codes[row]];
            } else {
                int32_t r32 = (int32_t)row;
                uint64_t h;
                part_hashes(s, in->batch.cols, &r32, 1, &h);
                slots[k] = wgl_find(s, in->batch.cols, row, h);
            }
        }
        return SILT_OK;
    }
    hashes = arena_alloc(a, sizeof(uint64_t) * (size_t)(in->n_sel ? in->n_sel : 1));
    if (hashes == NULL)
        return err_nomem(err);
    part_hashes(s, in->batch.cols, in->sel, in->n_sel, hashes);
    for (k = 0; k < in->n_sel; k++)
        slots[k] = wgl_find(s, in->batch.cols, ENGINE_ROW(in->sel, k), hashes[k]);
    return SILT_OK;
}

/*
 * The physical type by which a single order key without NULLs in cols can
 * be compared inline: COL_INT (32-bit), COL_LONG (64-bit), COL_DOUBLE, or
 * COL_NULL for the general comparison.
 */
static col_type_id wgl_fast_key(const win_state *s, col_vec *const *cols)
{
    const col_vec *v;
    if (s->n_order != 1)
        return COL_NULL;
    v = cols[s->order[0].col_idx];
    if (v->validity != NULL && v->null_count != 0)
        return COL_NULL;
    switch (v->type->id) {
    case COL_INT:
    case COL_DATE: return COL_INT;
    case COL_LONG:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: return COL_LONG;
    case COL_DOUBLE: return COL_DOUBLE;
    default: return COL_NULL;
    }
}

/*
 * wgl_select's common case in one loop: a single partition key that is
 * dictionary-encoded without NULLs (a Parquet string column) and a single
 * integral order key without NULLs. Each dictionary entry's slot is found
 * once; a row then costs a code, a slot and one comparison. *done = 0
 * when the chunk is not of this kind.
 */
static silt_status wgl_select_dict(win_state *s, engine_chunk *in, arena *a, col_type_id fast,
                                   int32_t *sel, int *done, silt_error *err)
{
    const col_vec *pv = s->n_part == 1 ? in->batch.cols[s->part_cols[0]] : NULL;
    const col_vec *ov = in->batch.cols[s->order[0].col_idx];
    const wgl_slot **by_entry;
    const int32_t *codes;
    int64_t k, n = 0, e;
    int strict = s->limit_kind == WIN_ROW_NUMBER, desc = s->order[0].descending;
    *done = 0;
    if (pv == NULL || pv->dictionary == NULL || (pv->validity != NULL && pv->null_count != 0) ||
        pv->dictionary->length > in->n_sel || ov->dictionary != NULL)
        return SILT_OK;
    codes = pv->values;
    by_entry = arena_alloc(a, sizeof(*by_entry) * (size_t)(pv->dictionary->length + 1));
    if (by_entry == NULL)
        return err_nomem(err);
    for (e = 0; e < pv->dictionary->length; e++) {
        int32_t len;
        const char *x = col_vec_str(pv->dictionary, e, &len);
        const wgl_slot *slot = wgl_find_str(s, x, len, wgl_str_hash(x, len, 0x5bd1e995u));
        /* only full partitions with an inline bound filter; the others keep every row */
        by_entry[e] = slot != NULL && slot->full && slot->has_bound ? slot : NULL;
    }
    for (k = 0; k < in->n_sel; k++) {
        int64_t row = ENGINE_ROW(in->sel, k);
        const wgl_slot *slot = by_entry[codes[row]];
        if (slot != NULL) {
            int64_t x = fast == COL_LONG ? ((const int64_t *)ov->values)[row]
                                         : ((const int32_t *)ov->values)[row];
            int c = (x > slot->ibound) - (x < slot->ibound);
            if (desc)
                c = -c;
            if (strict ? c >= 0 : c > 0)
                continue;
        }
        sel[n++] = (int32_t)row;
    }
    in->sel = sel;
    in->n_sel = n;
    *done = 1;
    return SILT_OK;
}

/*
 * Narrows a chunk to the rows that may still get a rank <= limit_k: rows
 * of partitions not full yet, and rows ordered before (row_number) or not
 * after (rank, dense_rank: ties share the rank) their partition's last
 * kept row. Later rows lose ties to kept ones, as in a stable sort.
 */
static silt_status wgl_select(win_state *s, engine_chunk *in, arena *a, silt_error *err)
{
    int32_t *sel;
    int64_t k, n = 0;
    int strict = s->limit_kind == WIN_ROW_NUMBER;
    col_type_id fast;
    const wgl_slot **slots = NULL;
    if (s->limit_k == 0) {
        in->n_sel = 0;
        return SILT_OK;
    }
    if (s->n_slots == 0)
        return SILT_OK;
    sel = arena_alloc(a, sizeof(int32_t) * (size_t)(in->n_sel ? in->n_sel : 1));
    if (sel == NULL)
        return err_nomem(err);
    fast = wgl_fast_key(s, in->batch.cols);
    if (fast == COL_LONG || fast == COL_INT) {
        int done = 0;
        SILT_RETURN_IF_ERROR(wgl_select_dict(s, in, a, fast, sel, &done, err));
        if (done)
            return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(wgl_slots_of(s, in, a, &slots, err));
    for (k = 0; k < in->n_sel; k++) {
        int64_t row = ENGINE_ROW(in->sel, k);
        const wgl_slot *slot = slots[k];
        int c;
        if (slot != NULL && slot->full) {
            if (fast != COL_NULL && slot->has_bound) {
                const col_vec *v = in->batch.cols[s->order[0].col_idx];
                if (fast == COL_DOUBLE) {
                    c = engine_cmp_double(((const double *)v->values)[row], slot->dbound);
                } else {
                    int64_t x = fast == COL_INT ? ((const int32_t *)v->values)[row]
                                                : ((const int64_t *)v->values)[row];
                    c = (x > slot->ibound) - (x < slot->ibound);
                }
                if (s->order[0].descending)
                    c = -c;
            } else {
                c = engine_compare_keys(s->order, s->n_order, in->batch.cols, row, s->surv,
                                        slot->row);
            }
            if (strict ? c >= 0 : c > 0)
                continue;
        }
        sel[n++] = (int32_t)row;
    }
    in->sel = sel;
    in->n_sel = n;
    return SILT_OK;
}

/* Indexes the last kept row of every partition of surv (sorted) in s->slots. */
static silt_status wgl_index(win_state *s, arena *a, const int64_t *last, const int *full,
                             int64_t n_parts, silt_error *err)
{
    int64_t p;
    /* The kept rows have no NULL order key (one key): bounds can be read inline. */
    col_type_id fast = wgl_fast_key(s, s->surv);
    s->n_slots = 16;
    while (s->n_slots < (size_t)n_parts * 2)
        s->n_slots *= 2;
    s->slots = arena_alloc(a, sizeof(wgl_slot) * s->n_slots);
    if (s->slots == NULL)
        return err_nomem(err);
    memset(s->slots, 0xff, sizeof(wgl_slot) * s->n_slots);
    for (p = 0; p < n_parts; p++) {
        int32_t row = (int32_t)last[p];
        uint64_t h;
        size_t b;
        part_hashes(s, s->surv, &row, 1, &h);
        b = (size_t)h & (s->n_slots - 1);
        while (s->slots[b].row >= 0)
            b = (b + 1) & (s->n_slots - 1);
        s->slots[b].hash = h;
        s->slots[b].row = last[p];
        s->slots[b].full = full[p];
        s->slots[b].has_bound = fast != COL_NULL;
        if (fast == COL_DOUBLE)
            s->slots[b].dbound = ((const double *)s->surv[s->order[0].col_idx]->values)[last[p]];
        else if (fast != COL_NULL)
            s->slots[b].ibound = vec_get_int(s->surv[s->order[0].col_idx], last[p]);
    }
    return SILT_OK;
}

/*
 * Sorts the rows held in acc (child columns), keeps those whose rank is
 * within the limit, and starts acc anew in a fresh arena holding them.
 */
static silt_status wgl_compact(engine_op *op, win_state *s, vec_accum *acc, silt_error *err)
{
    size_t n_cols = s->n_child, col;
    int64_t n = acc[0].n_rows, ps, n_kept = 0, n_parts = 0, k;
    col_vec **cols = arena_calloc(s->rows_arena, n_cols, sizeof(col_vec *));
    int64_t *idx = arena_alloc(s->rows_arena, sizeof(int64_t) * (size_t)(n ? n : 1));
    int64_t *kept = arena_alloc(s->rows_arena, sizeof(int64_t) * (size_t)(n ? n : 1));
    int64_t *last = arena_alloc(s->rows_arena, sizeof(int64_t) * (size_t)(n ? n : 1));
    int *full = arena_alloc(s->rows_arena, sizeof(int) * (size_t)(n ? n : 1));
    engine_sort_key *keys = arena_calloc(s->rows_arena, s->n_part + s->n_order + 1,
                                         sizeof(engine_sort_key));
    arena *fresh = arena_new(op->op_arena, "window_rows");
    if (cols == NULL || idx == NULL || kept == NULL || last == NULL || full == NULL ||
        keys == NULL || fresh == NULL)
        return err_nomem(err);
    for (col = 0; col < n_cols; col++)
        SILT_RETURN_IF_ERROR(vec_accum_finish(&acc[col], &cols[col], err));
    for (k = 0; k < (int64_t)s->n_part; k++)
        keys[k] = engine_sort_key_default(s->part_cols[k], 0);
    memcpy(keys + s->n_part, s->order, sizeof(engine_sort_key) * s->n_order);
    for (k = 0; k < n; k++)
        idx[k] = k;
    SILT_RETURN_IF_ERROR(engine_sort_indices(keys, s->n_part + s->n_order, cols, idx, n,
                                             s->rows_arena, err));
    for (ps = 0; ps < n;) {
        int64_t p = ps, rank = 1, dense = 1, in_part = 0;
        for (; p < n && (p == ps || rows_agree(s->part_cols, NULL, s->n_part, cols, idx[p],
                                                cols, idx[ps])); p++) {
            if (p > ps && !rows_agree(NULL, s->order, s->n_order, cols, idx[p - 1], cols, idx[p])) {
                rank = p - ps + 1;
                dense++;
            }
            if ((s->limit_kind == WIN_ROW_NUMBER ? p - ps + 1
                 : s->limit_kind == WIN_RANK     ? rank
                                                 : dense) <= s->limit_k) {
                kept[n_kept++] = idx[p];
                in_part++;
            }
        }
        if (in_part > 0) {
            last[n_parts] = n_kept - 1;
            full[n_parts++] = s->limit_kind == WIN_DENSE_RANK ? dense >= s->limit_k
                                                              : in_part >= s->limit_k;
        }
        ps = p;
    }
    s->surv = arena_calloc(fresh, n_cols, sizeof(col_vec *));
    if (s->surv == NULL)
        return err_nomem(err);
    for (col = 0; col < n_cols; col++) {
        SILT_RETURN_IF_ERROR(vec_gather(&s->surv[col], fresh, cols[col], kept, n_kept, err));
        vec_accum_init(&acc[col], fresh, op->children[0]->schema->fields[col].type);
        SILT_RETURN_IF_ERROR(vec_accum_add(&acc[col], s->surv[col], NULL, n_kept, err));
    }
    s->n_surv = n_kept;
    SILT_RETURN_IF_ERROR(wgl_index(s, fresh, last, full, n_parts, err));
    arena_free(s->rows_arena);
    s->rows_arena = fresh;
    if (n_kept * 16 * (int64_t)n_cols > s->charged) {
        SILT_RETURN_IF_ERROR(engine_op_charge(op, n_kept * 16 * (int64_t)n_cols - s->charged,
                                               "window", err));
        s->charged = n_kept * 16 * (int64_t)n_cols;
    }
    return SILT_OK;
}

/* ---- partitions and their computation ------------------------------------------------ */

typedef struct part_slot {
    uint64_t hash;
    int64_t part; /* -1: empty */
} part_slot;

/* Doubles the slot array of group_partitions, re-placing every partition by its hash. */
static silt_status grow_part_slots(arena *a, part_slot **slots, size_t *cap, const uint64_t *h,
                                   const int64_t *rep, int64_t n_parts, silt_error *err)
{
    size_t n = *cap * 2, mask = n - 1, b;
    part_slot *fresh = arena_alloc(a, sizeof(part_slot) * n);
    int64_t part;
    if (fresh == NULL)
        return err_nomem(err);
    for (b = 0; b < n; b++)
        fresh[b].part = -1;
    for (part = 0; part < n_parts; part++) {
        for (b = (size_t)h[rep[part]] & mask; fresh[b].part >= 0; b = (b + 1) & mask)
            ;
        fresh[b].hash = h[rep[part]];
        fresh[b].part = part;
    }
    *slots = fresh;
    *cap = n;
    return SILT_OK;
}

/*
 * Numbers the partitions: part_of[r] for every row, rep[i] the first row of
 * partition i (in order of first appearance). One hash probe per row
 * instead of comparing partition keys inside an n log n sort.
 */
static silt_status number_partitions(win_state *s, arena *a, int64_t *part_of, int64_t *rep,
                                     int64_t *n_out, silt_error *err)
{
    uint64_t *h = arena_alloc(a, sizeof(uint64_t) * (size_t)(s->n_rows + 1));
    size_t cap = 1024, mask;
    part_slot *slots = NULL;
    int64_t r, n_parts = 0;
    if (h == NULL)
        return err_nomem(err);
    part_hashes(s, s->cols, NULL, s->n_rows, h);
    SILT_RETURN_IF_ERROR(grow_part_slots(a, &slots, &cap, h, rep, 0, err));
    mask = cap - 1;
    for (r = 0; r < s->n_rows; r++) {
        size_t b;
        for (b = (size_t)h[r] & mask; slots[b].part >= 0; b = (b + 1) & mask)
            if (slots[b].hash == h[r] && same_part_keys(s, s->cols, r, s->cols, rep[slots[b].part]))
                break;
        if (slots[b].part >= 0) {
            part_of[r] = slots[b].part;
            continue;
        }
        rep[n_parts] = r;
        part_of[r] = n_parts;
        slots[b].hash = h[r];
        slots[b].part = n_parts++;
        if ((size_t)n_parts * 2 > cap) {
            SILT_RETURN_IF_ERROR(grow_part_slots(a, &slots, &cap, h, rep, n_parts, err));
            mask = cap - 1;
        }
    }
    *n_out = n_parts;
    return SILT_OK;
}

/*
 * Orders s->idx so that every partition's rows are contiguous, partitions
 * in ascending key order (NULLs first) and rows in input order, and fills
 * s->part_start. Only the partitions' first rows are sorted by key.
 */
static silt_status group_partitions(engine_op *op, win_state *s, arena *a, silt_error *err)
{
    int64_t n = s->n_rows, *part_of = NULL, *rep, *rank, *pos, n_parts = 0, k;
    const int32_t *part32 = NULL;
    engine_sort_key *keys;
    s->part_start = arena_alloc(op->op_arena, sizeof(int64_t) * (size_t)(n + 2));
    if (s->part_start == NULL)
        return err_nomem(err);
    if (s->n_part == 0 || n == 0) {
        for (k = 0; k < n; k++)
            s->idx[k] = k;
        s->part_start[0] = 0;
        s->part_start[1] = n;
        s->n_parts = n > 0;
        return SILT_OK;
    }
    /* rep and part_of are sized by the rows, touched by the partitions and rows used */
    rep = arena_alloc(a, sizeof(int64_t) * (size_t)n);
    keys = arena_calloc(a, s->n_part, sizeof(engine_sort_key));
    if (rep == NULL || keys == NULL)
        return err_nomem(err);
    if (s->by_dict) {
        part32 = s->dpart; /* numbered while draining */
        n_parts = s->n_dparts;
        memcpy(rep, s->drep, sizeof(int64_t) * (size_t)n_parts);
    } else {
        part_of = arena_alloc(a, sizeof(int64_t) * (size_t)n);
        if (part_of == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(number_partitions(s, a, part_of, rep, &n_parts, err));
    }
    rank = arena_alloc(a, sizeof(int64_t) * (size_t)(n_parts + 1));
    pos = arena_calloc(a, (size_t)n_parts + 2, sizeof(int64_t));
    if (rank == NULL || pos == NULL)
        return err_nomem(err);
    for (k = 0; k < (int64_t)s->n_part; k++)
        keys[k] = engine_sort_key_default(s->part_cols[k], 0);
    /* rep becomes the first rows in key order; rank[partition] its place */
    SILT_RETURN_IF_ERROR(engine_sort_indices(keys, s->n_part, s->cols, rep, n_parts, a, err));
    for (k = 0; k < n_parts; k++)
        rank[part32 ? part32[rep[k]] : part_of[rep[k]]] = k;
    for (k = 0; k < n; k++)
        pos[rank[part32 ? part32[k] : part_of[k]] + 1]++;
    for (k = 0; k < n_parts; k++)
        pos[k + 1] += pos[k];
    memcpy(s->part_start, pos, sizeof(int64_t) * (size_t)(n_parts + 1));
    for (k = 0; k < n; k++)
        s->idx[pos[rank[part32 ? part32[k] : part_of[k]]]++] = k;
    s->n_parts = n_parts;
    return SILT_OK;
}

/* Forgets the drain's partition numbers; with on, numbers the next drain's rows (by_dict). */
static void drain_parts_reset(win_state *s, int on)
{
    hashmap_clear(&s->pmap);
    arena_free(s->part_arena);
    s->part_arena = NULL;
    s->by_dict = on;
    s->dpart = NULL;
    s->drep = NULL;
    s->dpart_cap = s->drep_cap = s->n_dparts = 0;
    s->null_part = -1;
}

/* What the workers share: each task computes the partitions [seg[t], seg[t + 1]). */
typedef struct win_job {
    win_state *s;
    engine_op *op;
    const int64_t *seg;
    arena **arenas; /* per worker, reset by each task */
    const engine_frame *frames;
    int64_t **take;  /* per function: the rows to gather, or NULL */
    uint8_t **nulls; /* per function: positions whose result is NULL, or NULL */
} win_job;

/*
 * Positions [lo, lo + n) of a computed result (fixed width; its own
 * validity is never written, see compute_agg) as a vector that shares its
 * values: no copy. NULLs come from the marks in nulls (NULL: none).
 */
static silt_status result_view(const col_vec *res, const uint8_t *nulls, int64_t lo, int64_t n,
                               arena *a, col_vec **out, silt_error *err)
{
    col_vec *v = arena_calloc(a, 1, sizeof(*v));
    size_t width = col_type_value_width(res->type->id);
    int64_t k;
    if (v == NULL)
        return err_nomem(err);
    v->type = res->type;
    v->length = n;
    v->values = (char *)res->values + width * (size_t)lo;
    for (k = 0; nulls != NULL && k < n; k++) {
        if (!nulls[lo + k])
            continue;
        if (v->validity == NULL) {
            size_t bytes = (size_t)(n + 7) / 8;
            v->validity = arena_alloc(a, bytes);
            if (v->validity == NULL)
                return err_nomem(err);
            memset(v->validity, 0xff, bytes);
        }
        vec_set_null(v, k);
    }
    *out = v;
    return SILT_OK;
}

/*
 * Function f's output for sorted positions [lo, lo + n) into a (the
 * segment's arena): a view of the results with their NULL marks, or the
 * gathers of lag/lead, value functions and min/max.
 */
static silt_status finish_result(engine_op *op, const win_state *s, const win_job *j, size_t f,
                                 int64_t lo, int64_t n, arena *a, col_vec **out,
                                 silt_error *err)
{
    const engine_window_fn *fn = &s->fns[f];
    const col_type *t = op->schema->fields[s->n_child + f].type;
    col_vec *arg = s->cols[s->n_child + 2 * f];
    const int64_t *take = j->take[f] != NULL ? j->take[f] + lo : NULL;
    int64_t k;
    if (j->nulls[f] != NULL || (take == NULL && fn->kind != WIN_LAG && fn->kind != WIN_LEAD &&
                                !(fn->kind == WIN_AGG &&
                                  (fn->agg == AGG_MIN || fn->agg == AGG_MAX))))
        return result_view(s->results[f], j->nulls[f], lo, n, a, out, err);
    if (fn->kind == WIN_LAG || fn->kind == WIN_LEAD) {
        /* Rows outside the partition take the default (NULL without one). */
        col_vec *def = s->cols[s->n_child + 2 * f + 1];
        const col_vec **src = arena_calloc(a, (size_t)(n + 1), sizeof(col_vec *));
        col_vec *shifted, *defaults = NULL;
        if (src == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(vec_gather(&shifted, a, arg, take, n, err));
        if (def != NULL)
            SILT_RETURN_IF_ERROR(vec_gather(&defaults, a, def, s->idx + lo, n, err));
        for (k = 0; k < n; k++)
            src[k] = take[k] >= 0 ? shifted : defaults;
        return vec_merge(out, a, t, n, NULL, n, src, err);
    }
    if (take != NULL)
        return vec_gather(out, a, arg, take, n, err);
    /* min/max computed the winning row number per position */
    return vec_gather(out, a, arg, (const int64_t *)s->results[f]->values + lo, n, err);
}

/* Whether child column col is a PARTITION BY key of type STRING or BINARY. */
static int is_text_part_key(const win_state *s, size_t col)
{
    size_t k;
    col_type_id id = s->cols[col]->type->id;
    if (id != COL_STRING && id != COL_BINARY)
        return 0;
    for (k = 0; k < s->n_part; k++)
        if ((size_t)s->part_cols[k] == col)
            return 1;
    return 0;
}

/*
 * Partition key column col of positions [from, from + n), which lie in
 * partitions first .. first + n_entries - 1 (codes[k]: row k's, counted
 * from first), dictionary-encoded: one entry per partition, as the key is
 * constant within one. Saves copying the key's bytes per row, and an
 * aggregation above groups by dictionary entry (agg_table.c).
 */
static silt_status part_key_dict(const win_state *s, size_t col, int64_t first,
                                 int64_t n_entries, const int32_t *codes, int64_t n, arena *a,
                                 col_vec **out, silt_error *err)
{
    int64_t *reps = arena_alloc(a, sizeof(int64_t) * (size_t)(n_entries + 1)), e, k;
    col_vec *v = arena_calloc(a, 1, sizeof(*v)), *dict;
    if (reps == NULL || v == NULL)
        return err_nomem(err);
    for (e = 0; e < n_entries; e++)
        reps[e] = s->idx[s->part_start[first + e]];
    SILT_RETURN_IF_ERROR(vec_gather(&dict, a, s->cols[col], reps, n_entries, err));
    v->type = s->cols[col]->type;
    v->length = n;
    v->values = (void *)codes;
    v->dictionary = dict;
    if (dict->validity != NULL && dict->null_count != 0) {
        size_t bytes = (size_t)(n + 7) / 8;
        v->validity = arena_alloc(a, bytes ? bytes : 1);
        if (v->validity == NULL)
            return err_nomem(err);
        memset(v->validity, 0xff, bytes ? bytes : 1);
        for (k = 0; k < n; k++)
            if (!vec_is_valid(dict, codes[k]))
                vec_set_null(v, k);
    }
    *out = v;
    return SILT_OK;
}

/*
 * The output chunks of task t's positions [lo, hi), made on its worker:
 * the child columns gathered in sorted order and every function's column,
 * in the segment's own arena (arenas are not thread-safe).
 */
static silt_status make_output(win_job *j, size_t t, int64_t lo, int64_t hi, silt_error *err)
{
    win_state *s = j->s;
    arena *a = s->out_arenas[t];
    size_t n_out = s->n_child + s->n_fns, col, f;
    int64_t n_chunks = (hi - lo + ENGINE_BATCH_ROWS - 1) / ENGINE_BATCH_ROWS, c, k;
    int64_t part = j->seg[t];
    col_vec **blank = arena_calloc(a, s->n_child + 1, sizeof(col_vec *));
    s->out[t] = arena_calloc(a, (size_t)n_chunks + 1, sizeof(col_vec **));
    s->out_rows[t] = arena_calloc(a, (size_t)n_chunks + 1, sizeof(int64_t));
    if (blank == NULL || s->out[t] == NULL || s->out_rows[t] == NULL)
        return err_nomem(err);
    for (c = 0; c < n_chunks; c++) {
        int64_t from = lo + c * ENGINE_BATCH_ROWS, n = hi - from, first, q;
        int32_t *codes = NULL;
        col_vec **cols = arena_calloc(a, n_out + 1, sizeof(col_vec *));
        if (cols == NULL)
            return err_nomem(err);
        if (n > ENGINE_BATCH_ROWS)
            n = ENGINE_BATCH_ROWS;
        /* the chunk's rows by partition: codes[k] counts from the chunk's first partition */
        while (s->part_start[part + 1] <= from)
            part++;
        first = q = part;
        if (s->n_part > 0) {
            codes = arena_alloc(a, sizeof(int32_t) * (size_t)n);
            if (codes == NULL)
                return err_nomem(err);
            for (k = 0; k < n; k++) {
                while (s->part_start[q + 1] <= from + k)
                    q++;
                codes[k] = (int32_t)(q - first);
            }
        }
        for (col = 0; col < s->n_child; col++) {
            const col_type *ct = s->cols[col]->type;
            if (s->used != NULL && !s->used[col] && !col_type_is_nested(ct->id)) {
                /* not read: one vector of NULLs serves every full chunk of the segment */
                if (n < ENGINE_BATCH_ROWS)
                    SILT_RETURN_IF_ERROR(col_vec_new_nulls(&cols[col], a, ct, n, err));
                else if (blank[col] == NULL)
                    SILT_RETURN_IF_ERROR(col_vec_new_nulls(&blank[col], a, ct, n, err));
                if (n == ENGINE_BATCH_ROWS)
                    cols[col] = blank[col];
            } else if (codes != NULL && 2 * (q - first + 1) <= n && is_text_part_key(s, col))
                SILT_RETURN_IF_ERROR(part_key_dict(s, col, first, q - first + 1, codes, n, a,
                                                   &cols[col], err));
            else
                SILT_RETURN_IF_ERROR(vec_gather(&cols[col], a, s->cols[col], s->idx + from, n,
                                                err));
        }
        for (f = 0; f < s->n_fns; f++)
            SILT_RETURN_IF_ERROR(finish_result(j->op, s, j, f, from, n, a,
                                               &cols[s->n_child + f], err));
        s->out[t][c] = cols;
        s->out_rows[t][c] = n;
    }
    s->out_n[t] = n_chunks;
    return SILT_OK;
}

static silt_status win_task(void *payload, size_t task, size_t worker, silt_error *err)
{
    win_job *j = payload;
    win_state local = *j->s, *s = &local; /* with this task's own peer arrays */
    arena *a = j->arenas[worker];
    int64_t part, longest = 1;
    size_t f;
    prefix pre;
    arena_reset(a);
    for (part = j->seg[task]; part < j->seg[task + 1]; part++)
        if (s->part_start[part + 1] - s->part_start[part] > longest)
            longest = s->part_start[part + 1] - s->part_start[part];
    local.peer_lo = arena_alloc(a, sizeof(int64_t) * (size_t)(longest + 1));
    local.peer_hi = arena_alloc(a, sizeof(int64_t) * (size_t)(longest + 1));
    if (local.peer_lo == NULL || local.peer_hi == NULL)
        return err_nomem(err);
    pre.cnt = arena_alloc(a, sizeof(int64_t) * (size_t)(longest + 1));
    pre.dsum = arena_alloc(a, sizeof(double) * (size_t)(longest + 1));
    pre.isum = arena_alloc(a, sizeof(int64_t) * (size_t)(longest + 1));
    pre.dec = arena_alloc(a, sizeof(col_int128) * (size_t)(longest + 1));
    pre.nn = arena_alloc(a, sizeof(int64_t) * (size_t)(longest + 1));
    if (pre.cnt == NULL || pre.dsum == NULL || pre.isum == NULL || pre.dec == NULL ||
        pre.nn == NULL)
        return err_nomem(err);
    for (part = j->seg[task]; part < j->seg[task + 1]; part++) {
        int64_t ps = s->part_start[part], pe = s->part_start[part + 1];
        SILT_RETURN_IF_ERROR(engine_check_interrupt(j->op->ctx, err));
        if (s->n_order > 0 && pe - ps > 1 && !already_sorted(s, ps, pe))
            SILT_RETURN_IF_ERROR(engine_sort_indices(s->order, s->n_order, s->cols, s->idx + ps,
                                                     pe - ps, a, err));
        local.peer_base = ps;
        compute_peers(s, ps, pe);
        for (f = 0; f < s->n_fns; f++) {
            const engine_window_fn *fn = &s->fns[f];
            const col_vec *arg = s->cols[s->n_child + 2 * f];
            if (fn->kind == WIN_ROW_NUMBER || fn->kind == WIN_RANK || fn->kind == WIN_DENSE_RANK)
                compute_ranking(s, fn, s->results[f], ps, pe);
            else if (fn->kind == WIN_LAG || fn->kind == WIN_LEAD)
                offset_rows(s, fn, j->take[f], ps, pe);
            else if (win_is_value(fn->kind))
                compute_value(s, fn, arg, j->take[f], &j->frames[f], ps, pe, &pre);
            else if (fn->kind != WIN_AGG)
                compute_distribution(s, fn, s->results[f], ps, pe);
            else
                compute_agg(s, fn, arg, s->results[f], j->nulls[f], &j->frames[f], ps, pe, &pre);
        }
    }
    return make_output(j, task, s->part_start[j->seg[task]], s->part_start[j->seg[task + 1]],
                       err);
}

/*
 * Tasks of whole partitions, about a quarter of a worker's share of the
 * rows each (at least 4,096), so that a few big partitions still spread.
 */
static int64_t *make_segments(arena *a, const win_state *s, size_t width, size_t *n_out)
{
    int64_t *seg = arena_alloc(a, sizeof(int64_t) * (size_t)(s->n_parts + 2));
    int64_t target = s->n_rows / (int64_t)(4 * width) + 1, acc = 0, part;
    size_t n = 0;
    if (seg == NULL)
        return NULL;
    if (target < 4096)
        target = 4096;
    seg[0] = 0;
    for (part = 0; part < s->n_parts; part++) {
        acc += s->part_start[part + 1] - s->part_start[part];
        if (acc >= target || part == s->n_parts - 1) {
            seg[++n] = part + 1;
            acc = 0;
        }
    }
    *n_out = n;
    return seg;
}

/* The frame a function uses: its own, or Spark's default for its window. */
static engine_frame frame_for(const win_state *s, const engine_window_fn *fn)
{
    engine_frame frame = fn->frame;
    if (!fn->has_frame) {
        frame.type = s->n_order > 0 ? FRAME_RANGE : FRAME_ROWS;
        frame.start_unbounded = 1;
        frame.end_unbounded = s->n_order == 0;
        frame.start = frame.end = 0;
    }
    return frame;
}

/* Result vectors and the per-function arrays the tasks write into. */
static silt_status prepare_results(engine_op *op, win_state *s, win_job *j, silt_error *err)
{
    engine_frame *frames = arena_calloc(op->op_arena, s->n_fns + 1, sizeof(engine_frame));
    size_t f;
    j->take = arena_calloc(op->op_arena, s->n_fns + 1, sizeof(int64_t *));
    j->nulls = arena_calloc(op->op_arena, s->n_fns + 1, sizeof(uint8_t *));
    s->results = arena_calloc(op->op_arena, s->n_fns + 1, sizeof(col_vec *));
    if (frames == NULL || j->take == NULL || j->nulls == NULL || s->results == NULL)
        return err_nomem(err);
    j->frames = frames;
    for (f = 0; f < s->n_fns; f++) {
        const engine_window_fn *fn = &s->fns[f];
        const col_type *t = op->schema->fields[s->n_child + f].type;
        frames[f] = frame_for(s, fn);
        if (fn->kind == WIN_LAG || fn->kind == WIN_LEAD || win_is_value(fn->kind)) {
            j->take[f] = arena_alloc(op->op_arena, sizeof(int64_t) * (size_t)(s->n_rows + 1));
            if (j->take[f] == NULL)
                return err_nomem(err);
            continue;
        }
        if (fn->kind == WIN_AGG && (fn->agg == AGG_MIN || fn->agg == AGG_MAX))
            t = col_type_primitive(COL_LONG); /* the winning rows, gathered after */
        SILT_RETURN_IF_ERROR(vec_new(&s->results[f], op->op_arena, t, s->n_rows, err));
        if (fn->kind == WIN_AGG && (fn->agg == AGG_SUM || fn->agg == AGG_AVG)) {
            j->nulls[f] = arena_calloc(op->op_arena, (size_t)s->n_rows + 1, 1);
            if (j->nulls[f] == NULL)
                return err_nomem(err);
        }
    }
    return SILT_OK;
}

/* Room for every segment's output chunks, and an arena per segment. */
static silt_status prepare_output(engine_op *op, win_state *s, size_t n_segs, silt_error *err)
{
    size_t t;
    s->n_segs = n_segs;
    s->cur_seg = 0;
    s->cur_chunk = 0;
    s->out = arena_calloc(op->op_arena, n_segs + 1, sizeof(col_vec ***));
    s->out_rows = arena_calloc(op->op_arena, n_segs + 1, sizeof(int64_t *));
    s->out_n = arena_calloc(op->op_arena, n_segs + 1, sizeof(int64_t));
    s->out_arenas = arena_calloc(op->op_arena, n_segs + 1, sizeof(arena *));
    if (s->out == NULL || s->out_rows == NULL || s->out_n == NULL || s->out_arenas == NULL)
        return err_nomem(err);
    for (t = 0; t < n_segs; t++)
        if ((s->out_arenas[t] = arena_new(op->op_arena, "window_output")) == NULL)
            return err_nomem(err);
    return SILT_OK;
}

/*
 * Groups the drained rows by partition, then sorts and computes the
 * partitions as tasks on the query's thread pool (on the caller alone
 * without one), then finishes each function's column.
 */
static silt_status win_compute(engine_op *op, win_state *s, silt_error *err)
{
    tpool *pool = op->ctx->pool;
    size_t width = pool != NULL ? tpool_width(pool) : 1, w, n_segs;
    arena *a = arena_new(op->op_arena, "window_compute");
    win_job job;
    silt_status rc;
    memset(&job, 0, sizeof(job));
    job.s = s;
    s->idx = arena_alloc(op->op_arena, sizeof(int64_t) * (size_t)(s->n_rows + 1));
    job.arenas = arena_calloc(op->op_arena, width, sizeof(arena *));
    if (a == NULL || s->idx == NULL ||
        job.arenas == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(group_partitions(op, s, a, err));
    arena_free(a);
    SILT_RETURN_IF_ERROR(prepare_results(op, s, &job, err));
    for (w = 0; w < width; w++)
        if ((job.arenas[w] = arena_new(op->op_arena, "window_worker")) == NULL)
            return err_nomem(err);
    job.seg = make_segments(op->op_arena, s, width, &n_segs);
    if (job.seg == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(prepare_output(op, s, n_segs, err));
    job.op = op;
    rc = tpool_run(n_segs > 1 ? pool : NULL, n_segs, win_task, &job, err);
    for (w = 0; w < width; w++)
        arena_free(job.arenas[w]);
    SILT_RETURN_IF_ERROR(rc);
    /* the output holds copies of everything: the drained rows go */
    arena_free(s->rows_arena);
    s->rows_arena = NULL;
    s->cols = NULL;
    drain_parts_reset(s, 0);
    return SILT_OK;
}

/* The partition of key bytes x (NULL x: the NULL key), numbered anew at first sight. */
static silt_status part_of_key(win_state *s, const char *x, int32_t len, int64_t row,
                               int32_t *out, silt_error *err)
{
    void *v = NULL;
    if (x == NULL ? s->null_part >= 0 : hashmap_get(&s->pmap, x, (size_t)len, &v)) {
        *out = x == NULL ? (int32_t)s->null_part : (int32_t)((intptr_t)v - 1);
        return SILT_OK;
    }
    if (s->n_dparts >= INT32_MAX)
        return err_set(err, SILT_NOMEM, "a window has more than %d partitions", INT32_MAX);
    if (s->n_dparts == s->drep_cap) {
        int64_t cap = s->drep_cap ? s->drep_cap * 2 : 64;
        int64_t *grown = arena_realloc(s->part_arena, s->drep, sizeof(int64_t) * (size_t)s->drep_cap,
                                       sizeof(int64_t) * (size_t)cap);
        if (grown == NULL)
            return err_nomem(err);
        s->drep = grown;
        s->drep_cap = cap;
    }
    if (x == NULL)
        s->null_part = s->n_dparts;
    else
        SILT_RETURN_IF_ERROR(hashmap_put(&s->pmap, x, (size_t)len,
                                         (void *)(intptr_t)(s->n_dparts + 1), NULL, err));
    s->drep[s->n_dparts] = row;
    *out = (int32_t)s->n_dparts++;
    return SILT_OK;
}

/* Room in dpart for need rows. */
static silt_status dpart_reserve(win_state *s, int64_t need, silt_error *err)
{
    if (s->part_arena == NULL && (s->part_arena = arena_new(NULL, "window_partitions")) == NULL)
        return err_nomem(err);
    if (need > s->dpart_cap) {
        int64_t cap = s->dpart_cap ? s->dpart_cap : 4096;
        int32_t *grown;
        while (cap < need)
            cap *= 2;
        grown = arena_realloc(s->part_arena, s->dpart, sizeof(int32_t) * (size_t)s->dpart_cap,
                              sizeof(int32_t) * (size_t)cap);
        if (grown == NULL)
            return err_nomem(err);
        s->dpart = grown;
        s->dpart_cap = cap;
    }
    return SILT_OK;
}

/*
 * A chunk's partition keys numbered by a worker of a parallel input
 * (number_chunk): row r has local key codes[r]; local key j first appears
 * at row first[j]. The window maps each local key to its partition once.
 */
typedef struct chunk_keys {
    int32_t *codes;
    int64_t *first;
    int32_t n_keys, cap_keys;
} chunk_keys;

/* A new local key first seen at row r: its code in *code. */
static silt_status chunk_key_new(chunk_keys *ck, arena *a, int64_t r, int32_t *code,
                                 silt_error *err)
{
    if (ck->n_keys == ck->cap_keys) {
        int32_t cap = ck->cap_keys ? ck->cap_keys * 2 : 16;
        int64_t *grown = arena_realloc(a, ck->first, sizeof(int64_t) * (size_t)ck->cap_keys,
                                       sizeof(int64_t) * (size_t)cap);
        if (grown == NULL)
            return err_nomem(err);
        ck->first = grown;
        ck->cap_keys = cap;
    }
    ck->first[ck->n_keys] = r;
    *code = ck->n_keys++;
    return SILT_OK;
}

/* Local keys of a dictionary-encoded chunk: one per entry used (and NULL). */
static silt_status number_dict_chunk(const col_vec *v, const int32_t *sel, int64_t n, arena *a,
                                     chunk_keys *ck, silt_error *err)
{
    const int32_t *in = v->values;
    int32_t *by_entry = arena_alloc(a, sizeof(int32_t) * (size_t)(v->dictionary->length + 1));
    int32_t null_code = -1;
    int64_t r, e;
    if (by_entry == NULL)
        return err_nomem(err);
    for (e = 0; e < v->dictionary->length; e++)
        by_entry[e] = -1;
    for (r = 0; r < n; r++) {
        int64_t row = ENGINE_ROW(sel, r);
        int32_t *code = vec_is_valid(v, row) ? &by_entry[in[row]] : &null_code;
        if (*code < 0)
            SILT_RETURN_IF_ERROR(chunk_key_new(ck, a, r, code, err));
        ck->codes[r] = *code;
    }
    return SILT_OK;
}

/* Local keys of a plain string chunk: runs reuse the previous row's, others are hashed. */
static silt_status number_plain_chunk(const col_vec *v, const int32_t *sel, int64_t n, arena *a,
                                      chunk_keys *ck, silt_error *err)
{
    size_t cap = 64, mask = cap - 1, b;
    int32_t *slots = arena_alloc(a, sizeof(int32_t) * cap);
    int64_t r;
    if (slots == NULL)
        return err_nomem(err);
    memset(slots, 0xff, sizeof(int32_t) * cap);
    for (r = 0; r < n; r++) {
        uint64_t h;
        int64_t row = ENGINE_ROW(sel, r);
        if (r > 0 && plain_str_equal(v, row, ENGINE_ROW(sel, r - 1))) {
            ck->codes[r] = ck->codes[r - 1];
            continue;
        }
        h = vec_is_valid(v, row) ? wgl_str_hash(v->data + v->offsets[row],
                                                v->offsets[row + 1] - v->offsets[row], 0)
                                 : 0x5bd1e995u;
        for (b = (size_t)h & mask; slots[b] >= 0; b = (b + 1) & mask)
            if (plain_str_equal(v, row, ENGINE_ROW(sel, ck->first[slots[b]])))
                break;
        if (slots[b] < 0) {
            SILT_RETURN_IF_ERROR(chunk_key_new(ck, a, r, &slots[b], err));
            if ((size_t)ck->n_keys * 2 > cap) { /* rehash into twice the slots */
                int32_t *fresh = arena_alloc(a, sizeof(int32_t) * cap * 2), j;
                if (fresh == NULL)
                    return err_nomem(err);
                memset(fresh, 0xff, sizeof(int32_t) * cap * 2);
                cap *= 2;
                mask = cap - 1;
                for (j = 0; j < ck->n_keys; j++) {
                    int64_t f = ENGINE_ROW(sel, ck->first[j]);
                    uint64_t hj = vec_is_valid(v, f)
                                      ? wgl_str_hash(v->data + v->offsets[f],
                                                     v->offsets[f + 1] - v->offsets[f], 0)
                                      : 0x5bd1e995u;
                    for (b = (size_t)hj & mask; fresh[b] >= 0; b = (b + 1) & mask)
                        ;
                    fresh[b] = j;
                }
                slots = fresh;
            }
            ck->codes[r] = ck->n_keys - 1;
            continue;
        }
        ck->codes[r] = slots[b];
    }
    return SILT_OK;
}

/*
 * engine_collect_hook of a window whose one string partition key is
 * numbered while draining: a worker numbers its chunk's keys locally, so
 * that the window's serial part is one lookup per key and chunk.
 */
static silt_status number_chunk(void *arg, col_vec *const *cols, const int32_t *sel, int64_t n,
                                arena *a, void **note, silt_error *err)
{
    const win_state *s = arg;
    const col_vec *v = cols[s->part_cols[0]];
    chunk_keys *ck = arena_calloc(a, 1, sizeof(*ck));
    if (ck == NULL)
        return err_nomem(err);
    ck->codes = arena_alloc(a, sizeof(int32_t) * (size_t)(n ? n : 1));
    if (ck->codes == NULL)
        return err_nomem(err);
    if (v->type->id != COL_STRING || n > INT32_MAX)
        return SILT_OK; /* no note: the window numbers the chunk itself */
    if (v->dictionary != NULL)
        SILT_RETURN_IF_ERROR(number_dict_chunk(v, sel, n, a, ck, err));
    else
        SILT_RETURN_IF_ERROR(number_plain_chunk(v, sel, n, a, ck, err));
    *note = ck;
    return SILT_OK;
}

/* Partitions of a chunk of n rows a worker numbered: its local keys looked up, then mapped. */
static silt_status take_chunk_keys(win_state *s, const chunk_keys *ck, const col_vec *v, int64_t n,
                                   arena *scratch, silt_error *err)
{
    int32_t *map = arena_alloc(scratch, sizeof(int32_t) * (size_t)(ck->n_keys + 1)), j;
    int32_t *dst;
    int64_t r;
    if (map == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(dpart_reserve(s, s->n_rows + n, err));
    if (s->part_arena == NULL)
        return err_nomem(err);
    for (j = 0; j < ck->n_keys; j++) {
        int64_t f = ck->first[j];
        int32_t len = 0;
        const char *x = vec_is_valid(v, f) ? col_vec_str(v, f, &len) : NULL;
        SILT_RETURN_IF_ERROR(part_of_key(s, x, len, s->n_rows + f, &map[j], err));
    }
    dst = s->dpart + s->n_rows;
    for (r = 0; r < n; r++)
        dst[r] = map[ck->codes[r]];
    return SILT_OK;
}

/*
 * Numbers the partitions of a chunk's live rows as they are drained (one
 * string key, by_dict): rows s->n_rows .. get their partitions in dpart.
 * A dictionary no larger than the chunk is looked up once per entry.
 */
static silt_status drain_parts(win_state *s, const engine_chunk *in, arena *scratch,
                               silt_error *err)
{
    const col_vec *v = in->batch.cols[s->part_cols[0]];
    int32_t *by_entry = NULL, prev_len = 0, prev_part = 0;
    const char *prev = NULL;
    int64_t k, need = s->n_rows + in->n_sel;
    SILT_RETURN_IF_ERROR(dpart_reserve(s, need, err));
    if (v->dictionary != NULL && v->dictionary->length <= in->n_sel) {
        const col_vec *d = v->dictionary;
        by_entry = arena_alloc(scratch, sizeof(int32_t) * (size_t)(d->length ? d->length : 1));
        if (by_entry == NULL)
            return err_nomem(err);
        for (k = 0; k < d->length; k++)
            by_entry[k] = -1; /* looked up when first used: the row numbers a new partition */
    }
    for (k = 0; k < in->n_sel; k++) {
        int64_t row = ENGINE_ROW(in->sel, k);
        int32_t *slot = &s->dpart[s->n_rows + k], len = 0;
        const char *x = NULL;
        if (by_entry != NULL && vec_is_valid(v, row) &&
            by_entry[((const int32_t *)v->values)[row]] >= 0) {
            *slot = by_entry[((const int32_t *)v->values)[row]];
            continue;
        }
        if (vec_is_valid(v, row))
            x = col_vec_str(v, row, &len);
        if (x != NULL && prev != NULL && len == prev_len && memcmp(x, prev, (size_t)len) == 0) {
            /* a run of one key (a Delta partition value, sorted data): no hash */
            *slot = prev_part;
            continue;
        }
        SILT_RETURN_IF_ERROR(part_of_key(s, x, len, s->n_rows + k, slot, err));
        prev = x;
        prev_len = len;
        prev_part = *slot;
        if (by_entry != NULL && x != NULL)
            by_entry[((const int32_t *)v->values)[row]] = *slot;
    }
    return SILT_OK;
}

/*
 * Whether the input, with n_more rows of the next batch, no longer fits and
 * the window should partition it to disk: only with PARTITION BY keys (a
 * partition is never split) and without a WindowGroupLimit (which keeps
 * little). The estimate counts the rows held twice (the columns are
 * concatenated before sorting, and gathered on output) plus the sort index,
 * prefix sums and results per row; the running charge must fit too.
 */
static int win_should_spill(const engine_op *op, const win_state *s, int64_t n_more,
                            int64_t charge_more)
{
    int64_t held, rows = s->n_rows + n_more, per_row, room;
    if (op->ctx->mem_limit <= 0 || s->n_part == 0 || s->limit_k >= 0 ||
        s->spill_level >= SPILL_MAX_LEVEL)
        return 0;
    room = engine_mem_room(op);
    if (op->mem_charged + charge_more > room)
        return 1;
    held = (int64_t)arena_bytes_used(s->rows_arena) + s->pipe_bytes;
    per_row = s->n_rows > 0 ? held / s->n_rows : 64;
    return rows * (2 * per_row + 64 + 24 * (int64_t)s->n_fns) > room;
}

/*
 * Switches to partitioning: the child rows drained so far (one accumulator
 * part per input batch, aligned across columns) go to the partition files,
 * and their memory (function arguments included: the windows over the
 * files evaluate them again) is given back.
 */
static silt_status win_start_spill(engine_op *op, win_state *s, vec_accum *acc, silt_error *err)
{
    col_batch b;
    size_t part, col;
    SILT_RETURN_IF_ERROR(engine_win_spill_new(&s->spill, op, s->spill_level, s->part_cols, s->n_part,
                                       err));
    memset(&b, 0, sizeof(b));
    b.schema = op->children[0]->schema;
    b.n_cols = s->n_child;
    b.cols = arena_calloc(op->op_arena, s->n_child ? s->n_child : 1, sizeof(col_vec *));
    if (b.cols == NULL)
        return err_nomem(err);
    for (part = 0; s->n_child > 0 && part < acc[0].n_parts; part++) {
        for (col = 0; col < s->n_child; col++)
            b.cols[col] = acc[col].parts[part];
        b.n_rows = b.cols[0]->length;
        SILT_RETURN_IF_ERROR(engine_win_spill_write(s->spill, &b, NULL, b.n_rows, err));
    }
    arena_free(s->rows_arena);
    s->rows_arena = arena_new(op->op_arena, "window_rows");
    if (s->rows_arena == NULL)
        return err_nomem(err);
    s->n_rows = 0;
    drain_parts_reset(s, 0); /* the partition files are numbered by their own windows */
    return engine_op_charge_to(op, 0, "window", err);
}

/* Cuts chunk in after its first WGL_FIRST_COMPACT live rows; rest gets the others. */
static silt_status split_chunk(engine_chunk *in, engine_chunk *rest, arena *a, silt_error *err)
{
    int64_t k;
    *rest = *in;
    rest->n_sel = in->n_sel - WGL_FIRST_COMPACT;
    if (in->sel != NULL) {
        rest->sel = in->sel + WGL_FIRST_COMPACT;
    } else {
        int32_t *sel = arena_alloc(a, sizeof(int32_t) * (size_t)rest->n_sel);
        if (sel == NULL)
            return err_nomem(err);
        for (k = 0; k < rest->n_sel; k++)
            sel[k] = (int32_t)(WGL_FIRST_COMPACT + k);
        rest->sel = sel;
    }
    in->n_sel = WGL_FIRST_COMPACT;
    return SILT_OK;
}

/* The child column that is function fn's argument as it is, or -1 (an expression, or none). */
static int64_t arg_column(const win_state *s, const engine_window_fn *fn)
{
    const expr *e = fn->arg;
    if (e == NULL || e->kind != EXPR_COLUMN || e->col_idx < 0 || (size_t)e->col_idx >= s->n_child)
        return -1;
    return e->col_idx;
}

typedef struct concat_job {
    vec_accum *acc;
    col_vec **cols;
} concat_job;

/* Column t of the drained rows as one vector, in its own arena. */
static silt_status concat_task(void *payload, size_t t, size_t worker, silt_error *err)
{
    concat_job *j = payload;
    (void)worker;
    if (j->acc[t].type->id == COL_NULL && j->acc[t].n_rows == 0)
        return SILT_OK;
    return vec_accum_finish(&j->acc[t], &j->cols[t], err);
}

/*
 * The drained columns, each one vector. Without a limit, the batches'
 * copies are concatenated into a fresh arena and their arena is freed
 * (several parts in every column), so that the memory is used again for
 * the output instead of new pages: page faults were the larger part of a
 * big window's CPU time.
 */
static silt_status finish_columns(engine_op *op, win_state *s, vec_accum *acc, size_t n_acc,
                                  silt_error *err)
{
    arena *fresh = NULL;
    size_t col;
    int all_parts = s->limit_k < 0;
    for (col = 0; col < n_acc; col++)
        if (!(acc[col].type->id == COL_NULL && acc[col].n_rows == 0) && acc[col].n_parts <= 1)
            all_parts = 0; /* a single part is used as it is, where it is */
    if (all_parts && n_acc > 0) {
        fresh = arena_new(op->op_arena, "window_rows");
        if (fresh == NULL)
            return err_nomem(err);
    }
    for (col = 0; col < n_acc; col++) {
        if (acc[col].type->id == COL_NULL && acc[col].n_rows == 0)
            continue;
        if (fresh != NULL && op->ctx->pool != NULL) {
            /* one arena per column, so that the pool concatenates the columns at once */
            if ((acc[col].a = arena_new(fresh, "window_column")) == NULL)
                return err_nomem(err);
            continue;
        }
        if (fresh != NULL)
            acc[col].a = fresh;
        SILT_RETURN_IF_ERROR(vec_accum_finish(&acc[col], &s->cols[col], err));
    }
    if (fresh != NULL && op->ctx->pool != NULL) {
        concat_job job = {acc, s->cols};
        SILT_RETURN_IF_ERROR(tpool_run(op->ctx->pool, n_acc, concat_task, &job, err));
    }
    if (fresh != NULL) {
        arena_free(s->rows_arena);
        s->rows_arena = fresh;
        /* every column is copied: the rows the workers collected can go */
        engine_pipeline_release_rows(op->children[0]);
        s->pipe_bytes = 0;
    }
    return SILT_OK;
}

/* A chunk of a worker: worker w's part k, read from morsel tag. */
typedef struct win_piece {
    int64_t tag;
    size_t w, k;
} win_piece;

static int piece_cmp(const void *x, const void *y)
{
    const win_piece *a = x, *b = y;
    if (a->tag != b->tag)
        return a->tag < b->tag ? -1 : 1;
    if (a->w != b->w)
        return a->w < b->w ? -1 : 1;
    return a->k < b->k ? -1 : (a->k > b->k ? 1 : 0);
}

/* The workers' chunks in the order a serial scan reads them: by morsel, then as read. */
static silt_status order_pieces(const engine_collected *got, arena *a, win_piece **out,
                                size_t *n_out, silt_error *err)
{
    size_t n = 0, w, k, at = 0;
    win_piece *p;
    for (w = 0; w < got->width; w++)
        n += got->n_tags[w];
    p = arena_alloc(a, sizeof(win_piece) * (n ? n : 1));
    if (p == NULL)
        return err_nomem(err);
    for (w = 0; w < got->width; w++)
        for (k = 0; k < got->n_tags[w]; k++) {
            p[at].tag = got->tags[w][k];
            p[at].w = w;
            p[at++].k = k;
        }
    qsort(p, n, sizeof(win_piece), piece_cmp);
    *out = p;
    *n_out = n;
    return SILT_OK;
}

/*
 * A parallel input (engine_op_window_input): the workers scan, filter and
 * project their morsels and keep the rows and the functions' arguments;
 * their chunks become the accumulators' parts here, in the serial scan's
 * order (so that results are the serial path's), without a copy. The
 * partitions of a string key are numbered chunk by chunk as when draining.
 * When the workers stopped at the memory budget, the window spills.
 */
static silt_status win_take_parallel(engine_op *op, win_state *s, vec_accum *acc, size_t n_acc,
                                     arena *scratch, silt_error *err)
{
    engine_collected got;
    win_piece *pieces = NULL;
    size_t n_pieces = 0, i, col;
    int64_t room = engine_mem_room(op), budget = 0;
    col_vec **cols = arena_calloc(scratch, n_acc + 1, sizeof(col_vec *));
    if (cols == NULL)
        return err_nomem(err);
    if (op->ctx->mem_limit > 0 && s->n_part > 0)
        budget = room > 6 ? room / 3 : 1; /* rows are held about twice more (win_should_spill) */
    SILT_RETURN_IF_ERROR(engine_pipeline_collect(op->children[0], budget, &got, err));
    SILT_RETURN_IF_ERROR(order_pieces(&got, scratch, &pieces, &n_pieces, err));
    for (i = 0; i < n_pieces; i++) {
        const win_piece *p = &pieces[i];
        engine_chunk c;
        int64_t rows = -1;
        for (col = 0; col < n_acc; col++) {
            const vec_accum *wa = &got.accs[p->w][col];
            cols[col] = NULL;
            if (wa->n_parts == 0)
                continue; /* an argument that is a child column, or no default */
            if (p->k >= wa->n_parts)
                return err_set(err, SILT_INVALID, "a window input worker kept %zu parts of "
                               "column %zu, not %zu", wa->n_parts, col, got.n_tags[p->w]);
            cols[col] = wa->parts[p->k];
            rows = cols[col]->length;
            SILT_RETURN_IF_ERROR(vec_accum_push(&acc[col], cols[col], err));
        }
        if (rows < 0)
            continue;
        if (s->by_dict && got.notes[p->w][p->k] != NULL) {
            SILT_RETURN_IF_ERROR(take_chunk_keys(s, got.notes[p->w][p->k],
                                                 cols[s->part_cols[0]], rows, scratch, err));
        } else if (s->by_dict) {
            memset(&c, 0, sizeof(c));
            c.batch.cols = cols;
            c.batch.n_cols = s->n_child;
            c.batch.n_rows = rows;
            c.n_sel = rows;
            SILT_RETURN_IF_ERROR(drain_parts(s, &c, scratch, err));
        }
        s->n_rows += rows;
    }
    s->pipe_bytes = got.bytes;
    if (got.stopped || win_should_spill(op, s, 0, s->n_rows * 16 * (int64_t)n_acc)) {
        SILT_RETURN_IF_ERROR(win_start_spill(op, s, acc, err));
        engine_pipeline_release_rows(op->children[0]);
        s->pipe_bytes = 0;
        return SILT_OK;
    }
    return engine_op_charge(op, s->n_rows * 16 * (int64_t)n_acc, "window", err);
}

static silt_status win_drain(engine_op *op, win_state *s, silt_error *err)
{
    size_t n_acc = s->n_child + 2 * s->n_fns, col, f;
    vec_accum *acc = arena_calloc(op->op_arena, n_acc, sizeof(vec_accum));
    arena *scratch = arena_new(op->op_arena, "window_scratch");
    engine_chunk rest;
    int has_rest = 0;
    if (acc == NULL || scratch == NULL)
        return err_nomem(err);
    /* without a limit, the rows and arguments all live in rows_arena (freed when spilling) */
    for (col = 0; col < s->n_child; col++)
        vec_accum_init(&acc[col], s->rows_arena, op->children[0]->schema->fields[col].type);
    for (f = 0; f < s->n_fns; f++) {
        const engine_window_fn *fn = &s->fns[f];
        arena *fa = s->limit_k >= 0 ? op->op_arena : s->rows_arena;
        /* an argument that is a child column is that column (not held twice): NULL type here */
        vec_accum_init(&acc[s->n_child + 2 * f], fa,
                       fn->arg && arg_column(s, fn) < 0 ? fn->arg->type
                                                        : col_type_primitive(COL_NULL));
        vec_accum_init(&acc[s->n_child + 2 * f + 1], fa,
                       fn->default_value ? fn->default_value->type : col_type_primitive(COL_NULL));
    }
    if (s->limit_k < 0 && engine_pipeline_is_collect(op->children[0]))
        SILT_RETURN_IF_ERROR(win_take_parallel(op, s, acc, n_acc, scratch, err));
    for (;;) {
        engine_chunk *in;
        if (has_rest) {
            in = &rest;
            has_rest = 0;
        } else {
            SILT_RETURN_IF_ERROR(engine_op_next(op->children[0], &in, err));
            if (in == NULL)
                break;
            arena_reset(scratch);
        }
        if (s->limit_k >= 0 && s->n_slots == 0 && in->n_sel > WGL_FIRST_COMPACT) {
            /* the first rows alone, compacted, so that the limit filters the rest */
            SILT_RETURN_IF_ERROR(split_chunk(in, &rest, scratch, err));
            has_rest = 1;
        }
        if (s->limit_k >= 0) {
            SILT_RETURN_IF_ERROR(wgl_select(s, in, scratch, err));
            if (in->n_sel == 0)
                continue;
        }
        if (s->spill == NULL &&
            win_should_spill(op, s, in->n_sel, in->n_sel * 16 * (int64_t)n_acc))
            SILT_RETURN_IF_ERROR(win_start_spill(op, s, acc, err));
        if (s->spill != NULL) {
            SILT_RETURN_IF_ERROR(engine_win_spill_write(s->spill, &in->batch, in->sel, in->n_sel, err));
            continue;
        }
        if (s->by_dict)
            SILT_RETURN_IF_ERROR(drain_parts(s, in, scratch, err));
        for (col = 0; col < s->n_child; col++)
            SILT_RETURN_IF_ERROR(vec_accum_add(&acc[col], in->batch.cols[col], in->sel, in->n_sel, err));
        for (f = 0; f < s->n_fns; f++) {
            const engine_window_fn *fn = &s->fns[f];
            expr *exprs[2] = {arg_column(s, fn) < 0 ? fn->arg : NULL, fn->default_value};
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
        if (s->limit_k < 0)
            SILT_RETURN_IF_ERROR(engine_op_charge(op, in->n_sel * 16 * (int64_t)n_acc,
                                                   "window", err));
        else if (acc[0].n_rows >= (4 * s->n_surv > WGL_FIRST_COMPACT ? 4 * s->n_surv
                                                                       : WGL_FIRST_COMPACT))
            SILT_RETURN_IF_ERROR(wgl_compact(op, s, acc, err));
    }
    arena_free(scratch);
    if (s->spill != NULL) {
        s->n_rows = s->next_row = 0;
        s->drained = 1;
        return SILT_OK;
    }
    if (s->limit_k >= 0)
        s->n_rows = acc[0].n_rows;
    s->cols = arena_calloc(op->op_arena, n_acc, sizeof(col_vec *));
    if (s->cols == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(finish_columns(op, s, acc, n_acc, err));
    for (f = 0; f < s->n_fns; f++)
        if (arg_column(s, &s->fns[f]) >= 0)
            s->cols[s->n_child + 2 * f] = s->cols[arg_column(s, &s->fns[f])];
    SILT_RETURN_IF_ERROR(win_compute(op, s, err));
    s->next_row = 0;
    s->drained = 1;
    return SILT_OK;
}

static silt_status win_open(engine_op *op, silt_error *err)
{
    win_state *s = op->state;
    s->drained = 0;
    s->n_rows = 0;
    s->n_surv = 0;
    s->n_slots = 0;
    s->charged = 0;
    s->spill = NULL;
    s->pipe_bytes = 0;
    s->n_segs = s->cur_seg = 0;
    s->cur_chunk = 0;
    drain_parts_reset(s, s->n_part == 1 && s->limit_k < 0 &&
                             op->children[0]->schema->fields[s->part_cols[0]].type->id ==
                                 COL_STRING);
    s->rows_arena = arena_new(op->op_arena, "window_rows");
    if (s->rows_arena == NULL)
        return err_nomem(err);
    return SILT_OK;
}

/* Hands out the chunks the tasks made, segment by segment; a segment's arena goes when done. */
static silt_status win_next(engine_op *op, engine_chunk **out, silt_error *err)
{
    win_state *s = op->state;
    engine_chunk *c;
    size_t col, n_out = s->n_child + s->n_fns;
    if (!s->drained)
        SILT_RETURN_IF_ERROR(win_drain(op, s, err));
    if (s->spill != NULL)
        return engine_win_spill_next(s->spill, out, err);
    while (s->cur_seg < s->n_segs && s->cur_chunk >= s->out_n[s->cur_seg]) {
        arena_free(s->out_arenas[s->cur_seg]);
        s->out_arenas[s->cur_seg++] = NULL;
        s->cur_chunk = 0;
    }
    if (s->cur_seg >= s->n_segs) {
        *out = NULL;
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(engine_chunk_new(&c, op, n_out, s->out_rows[s->cur_seg][s->cur_chunk],
                                          err));
    for (col = 0; col < n_out; col++)
        c->batch.cols[col] = s->out[s->cur_seg][s->cur_chunk][col];
    s->cur_chunk++;
    *out = c;
    return SILT_OK;
}

static void win_close(engine_op *op)
{
    win_state *s = op->state;
    engine_win_spill_close(s->spill);
    drain_parts_reset(s, 0);
}

static void win_note_project(engine_op *op, expr *const *exprs, size_t n_exprs);
static const engine_op_vtable win_vt = {"window", win_open, win_next, win_close,
                                        win_note_project};

void engine_window_set_spill_level(engine_op *win, int level)
{
    ((win_state *)win->state)->spill_level = level;
}

/*
 * Makes window operator op keep only rows whose ranking function at output
 * column col can be <= k (see engine_push_rank_limit). 0 when op is not a
 * window, col is not a ranking function, or another function of op needs
 * rows past the limit.
 */
static int window_set_limit(engine_op *op, int64_t col, int64_t k)
{
    win_state *s;
    size_t f;
    if (op->vt != &win_vt)
        return 0;
    s = op->state;
    if (col < (int64_t)s->n_child || col >= (int64_t)(s->n_child + s->n_fns) || s->n_child == 0)
        return 0;
    for (f = 0; f < s->n_fns; f++)
        if (s->fns[f].kind != WIN_ROW_NUMBER && s->fns[f].kind != WIN_RANK &&
            s->fns[f].kind != WIN_DENSE_RANK)
            return 0;
    if (s->limit_k >= 0 && (s->limit_kind != s->fns[col - s->n_child].kind || s->limit_k <= k))
        return 1; /* a limit is there already; either one alone is correct */
    s->limit_k = k;
    s->limit_kind = s->fns[col - s->n_child].kind;
    return 1;
}

/* ---- rank limits (WindowGroupLimit) ------------------------------------------------ */

/* Strips casts to wider integral types, which keep a rank's value. */
static const expr *strip_int_cast(const expr *e)
{
    while (e->kind == EXPR_CAST && e->n_args == 1 &&
           (e->type->id == COL_INT || e->type->id == COL_LONG) &&
           (e->args[0]->type->id == COL_INT || e->args[0]->type->id == COL_LONG))
        e = e->args[0];
    return e;
}

/*
 * The largest rank a row can have and still pass cmp (rank <op> literal),
 * or -1 when cmp is not of that form. Literal on the left is mirrored.
 */
static int64_t rank_bound(const expr *cmp, int64_t *col)
{
    const expr *l, *r;
    int op;
    int64_t v;
    if (cmp->kind != EXPR_COMPARE || cmp->n_args != 2)
        return -1;
    l = strip_int_cast(cmp->args[0]);
    r = strip_int_cast(cmp->args[1]);
    op = cmp->op;
    if (l->kind == EXPR_LITERAL && r->kind == EXPR_COLUMN) {
        const expr *t = l;
        l = r;
        r = t;
        op = op == EXPR_LT ? EXPR_GT : op == EXPR_LE ? EXPR_GE
             : op == EXPR_GT ? EXPR_LT : op == EXPR_GE ? EXPR_LE : op;
    }
    if (l->kind != EXPR_COLUMN || r->kind != EXPR_LITERAL || r->lit.is_null ||
        (r->type->id != COL_INT && r->type->id != COL_LONG && r->type->id != COL_SHORT &&
         r->type->id != COL_BYTE))
        return -1;
    v = r->lit.i;
    *col = l->col_idx;
    switch (op) {
    case EXPR_LE:
    case EXPR_EQ: return v < 0 ? 0 : v;
    case EXPR_LT: return v <= 0 ? 0 : v - 1;
    default: return -1;
    }
}

int engine_push_rank_limit(engine_op *top, const expr *pred)
{
    int64_t col = -1, k;
    engine_op *origin;
    if (pred->kind == EXPR_AND && pred->n_args == 2)
        return engine_push_rank_limit(top, pred->args[0]) |
               engine_push_rank_limit(top, pred->args[1]);
    k = rank_bound(pred, &col);
    if (k < 0)
        return 0;
    origin = engine_op_column_origin(top, &col);
    if (origin == NULL || !window_set_limit(origin, col, k))
        return 0;
    /* each worker keeps its own top-k per partition; the window keeps the final ones */
    engine_window_parallel_input(origin);
    return 1;
}


/* Marks the child columns (below n_child) that e reads. */
static void mark_used(const expr *e, uint8_t *used, size_t n_child)
{
    size_t k;
    if (e == NULL)
        return;
    if (e->kind == EXPR_COLUMN && e->col_idx >= 0 && (size_t)e->col_idx < n_child)
        used[e->col_idx] = 1;
    for (k = 0; k < e->n_args; k++)
        mark_used(e->args[k], used, n_child);
}

/* The window's note_project: the child columns the projection reads. */
static void win_note_project(engine_op *op, expr *const *exprs, size_t n_exprs)
{
    win_state *s;
    uint8_t *used;
    size_t k;
    if (op->vt != &win_vt)
        return;
    s = op->state;
    used = arena_calloc(op->ctx->query_arena, s->n_child + 1, 1);
    if (used == NULL)
        return; /* every column stays: the same rows */
    for (k = 0; k < n_exprs; k++)
        mark_used(exprs[k], used, s->n_child);
    s->used = used;
}

/* Result type of a window function. */
static silt_status win_type(const col_type **out, arena *a, const engine_window_fn *fn,
                            silt_error *err)
{
    switch (fn->kind) {
    case WIN_ROW_NUMBER:
    case WIN_RANK:
    case WIN_DENSE_RANK: *out = col_type_primitive(COL_INT); return SILT_OK;
    case WIN_NTILE:
        if (fn->offset <= 0 || fn->offset > INT32_MAX)
            return err_set(err, SILT_BIND, "the buckets of ntile must be between 1 and %d, not "
                           "%lld", INT32_MAX, (long long)fn->offset);
        *out = col_type_primitive(COL_INT);
        return SILT_OK;
    case WIN_PERCENT_RANK:
    case WIN_CUME_DIST: *out = col_type_primitive(COL_DOUBLE); return SILT_OK;
    case WIN_NTH_VALUE:
        if (fn->offset <= 0)
            return err_set(err, SILT_BIND, "the offset of nth_value must be positive, not %lld",
                           (long long)fn->offset);
        /* fall through */
    case WIN_FIRST_VALUE:
    case WIN_LAST_VALUE:
    case WIN_LAG:
    case WIN_LEAD:
        if (fn->arg == NULL)
            return err_set(err, SILT_BIND, "lag, lead, first_value, last_value and nth_value "
                           "need an argument");
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

/*
 * Puts a window input pipeline under window op: every worker scans, filters
 * and projects its morsels and evaluates the functions' arguments (those
 * that are not child columns) and defaults, which the drain would do.
 */
static silt_status parallel_input(engine_op *op, win_state *s, silt_error *err)
{
    expr **extras = arena_calloc(op->ctx->query_arena, 2 * s->n_fns + 1, sizeof(expr *));
    engine_op *pipe;
    size_t f;
    if (extras == NULL)
        return err_nomem(err);
    for (f = 0; f < s->n_fns; f++) {
        extras[2 * f] = arg_column(s, &s->fns[f]) < 0 ? s->fns[f].arg : NULL;
        extras[2 * f + 1] = s->fns[f].default_value;
    }
    /* one string key: the workers number each chunk's keys (drain_parts' work) */
    int by_dict = s->n_part == 1 &&
                  op->children[0]->schema->fields[s->part_cols[0]].type->id == COL_STRING;
    SILT_RETURN_IF_ERROR(engine_op_window_input(&pipe, op->ctx, op->children[0], extras,
                                                2 * s->n_fns, by_dict ? number_chunk : NULL,
                                                (void *)s, err));
    op->children[0] = pipe;
    return SILT_OK;
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
    s->limit_k = -1;
    if (engine_chain_parallel(child))
        return parallel_input(*out, s, err);
    return SILT_OK;
}

silt_status engine_window_clone(engine_op **out, engine_ctx *ctx, const engine_op *win,
                                engine_op *child, silt_error *err)
{
    const win_state *s = win->state;
    win_state *c;
    if (win->vt != &win_vt)
        return err_set(err, SILT_INVALID, "operator \"%s\" is not a window", win->vt->name);
    SILT_RETURN_IF_ERROR(engine_op_window(out, ctx, child, s->part_cols, s->n_part, s->order,
                                          s->n_order, s->fns, s->n_fns, err));
    c = (*out)->state;
    c->limit_k = s->limit_k;
    c->limit_kind = s->limit_kind;
    c->used = s->used; /* immutable; a projection over the clone replaces it */
    return SILT_OK;
}
