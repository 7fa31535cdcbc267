/*
 * optimize.c - OPTIMIZE [WHERE] [ZORDER BY] (maint.h), as Delta's
 * OptimizeExecutor: files grouped by partition, sorted by size and packed
 * into bins of at most maxFileSize; each bin is read (deletion vectors
 * applied by the scan) and written back through the table writer, which
 * computes fresh statistics. The commit removes the bin's files and adds
 * the new ones, all with dataChange = false.
 *
 * ZORDER BY: each column's values get an order-preserving 64-bit key,
 * rows are ranked per column, and the ranks (scaled to 64 / n bits) are
 * interleaved bit by bit, most significant first: rows close in every
 * column land close in the order, so each output file covers a small box
 * of the columns' space and min/max statistics prune on any of them. The
 * z-curve of a partition is cut into ranges of equal (sampled) row counts,
 * one file each, as many as the partition's bytes make files of
 * maxFileSize; the rows are ordered in passes that each hold a bounded part
 * of them (zorder_bin; docs/maintenance.md).
 */
#include <stdlib.h>
#include <string.h>

#include "delta/maint.h"
#include "delta/scan.h"
#include "delta/stats.h"
#include "util/hashmap.h"
#include "util/mem.h"
#include "util/time.h"

typedef struct opt_bin {
    size_t n_files;
    const delta_file **files;
    int64_t bytes;
} opt_bin;

typedef struct opt_group {
    const char *key;
    size_t n_files, cap_files;
    const delta_file **files;
} opt_group;

typedef struct opt_ctx {
    io_store *store;
    const delta_snapshot *snap;
    const delta_optimize_options *o;
    delta_optimize_metrics *m;
    delta_txn *txn;
    arena *a;      /* the statement's bookkeeping */
    int64_t max_size, min_size;
    size_t n_groups, cap_groups;
    opt_group *groups;
    int64_t *added_sizes;
    size_t n_added, cap_added;
    int *zcol; /* ZORDER BY columns: index in the table schema */
} opt_ctx;

static silt_status grow(void **items, size_t *cap, size_t n, size_t elem, silt_error *err)
{
    void *fresh;
    size_t new_cap;
    if (n < *cap)
        return SILT_OK;
    new_cap = *cap ? *cap * 2 : 16;
    fresh = mem_realloc(*items, new_cap * elem);
    if (fresh == NULL)
        return err_nomem(err);
    *items = fresh;
    *cap = new_cap;
    return SILT_OK;
}

/* A partition's files under one key (its partition values, in the table's column order). */
static silt_status group_files(opt_ctx *ctx, hashmap *index, silt_error *err)
{
    const dlog_metadata *md = &ctx->snap->metadata;
    buf key = BUF_INIT;
    size_t idx, col;
    silt_status rc = SILT_OK;
    for (idx = 0; rc == SILT_OK && idx < ctx->snap->n_files; idx++) {
        const delta_file *file = &ctx->snap->files[idx];
        opt_group *g;
        void *found;
        if (ctx->o->file_filter != NULL &&
            !ctx->o->file_filter(ctx->snap, file, ctx->o->file_filter_payload))
            continue;
        buf_truncate(&key, 0);
        /* the partition columns in the table's order; \x01 for a null (no folder name has it) */
        for (col = 0; rc == SILT_OK && col < md->n_partition_columns; col++) {
            const char *v = dlog_map_get(&file->partition_values, md->partition_columns[col], NULL);
            rc = buf_printf(&key, err, "%s\x02", v ? v : "\x01");
        }
        if (rc != SILT_OK)
            break;
        found = hashmap_get_str(index, buf_cstr(&key));
        if (found == NULL) {
            rc = grow((void **)&ctx->groups, &ctx->cap_groups, ctx->n_groups, sizeof(opt_group),
                      err);
            if (rc != SILT_OK)
                break;
            g = &ctx->groups[ctx->n_groups];
            memset(g, 0, sizeof(*g));
            g->key = arena_strdup(ctx->a, buf_cstr(&key));
            if (g->key == NULL) {
                rc = err_nomem(err);
                break;
            }
            ctx->n_groups++;
            rc = hashmap_put_str(index, g->key, (void *)(uintptr_t)ctx->n_groups, err);
        } else {
            g = &ctx->groups[(uintptr_t)found - 1];
        }
        if (rc == SILT_OK)
            rc = grow((void **)&g->files, &g->cap_files, g->n_files, sizeof(*g->files), err);
        if (rc == SILT_OK)
            g->files[g->n_files++] = file;
    }
    buf_clear(&key);
    return rc;
}

static int by_size(const void *a, const void *b)
{
    const delta_file *x = *(const delta_file *const *)a, *y = *(const delta_file *const *)b;
    return x->size < y->size ? -1 : x->size > y->size ? 1 : strcmp(x->path, y->path);
}

/* Adds the statistics of a set of file sizes. */
static void stats_add(delta_file_set_stats *s, int64_t size)
{
    if (s->total_files == 0 || size < s->min)
        s->min = size;
    if (s->total_files == 0 || size > s->max)
        s->max = size;
    s->total_files++;
    s->total_size += size;
}

/* ---- reading a bin ------------------------------------------------------------------------ */

typedef struct opt_rows {
    size_t n_batches, cap;
    col_batch **batches;
    int64_t n_rows;
} opt_rows;

/* ---- Z-order ------------------------------------------------------------------------------ */

#define SIGN64 (UINT64_C(1) << 63)

/* An order-preserving unsigned key of a value (nulls first: 0). */
static uint64_t value_key(const col_vec *v, int64_t row)
{
    uint64_t bits;
    if (col_vec_is_null(v, row))
        return 0;
    switch (v->type->id) {
    case COL_BOOLEAN: return 1 + ((const uint8_t *)v->values)[row];
    case COL_BYTE: return (uint64_t)(int64_t)((const int8_t *)v->values)[row] ^ SIGN64;
    case COL_SHORT: return (uint64_t)(int64_t)((const int16_t *)v->values)[row] ^ SIGN64;
    case COL_INT:
    case COL_DATE: return (uint64_t)(int64_t)((const int32_t *)v->values)[row] ^ SIGN64;
    case COL_LONG:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: return (uint64_t)((const int64_t *)v->values)[row] ^ SIGN64;
    case COL_FLOAT: {
        double d = ((const float *)v->values)[row];
        memcpy(&bits, &d, sizeof(bits));
        return (bits & SIGN64) ? ~bits : bits | SIGN64;
    }
    case COL_DOUBLE:
        memcpy(&bits, &((const double *)v->values)[row], sizeof(bits));
        return (bits & SIGN64) ? ~bits : bits | SIGN64;
    case COL_DECIMAL: {
        col_int128 x;
        memcpy(&x, (const char *)v->values + 16 * row, sizeof(x));
        if (x > (col_int128)INT64_MAX)
            x = INT64_MAX;
        if (x < (col_int128)INT64_MIN)
            x = INT64_MIN;
        return (uint64_t)(int64_t)x ^ SIGN64;
    }
    case COL_STRING:
    case COL_BINARY: {
        int32_t len = 0, idx;
        const char *s = col_vec_str(v, row, &len);
        bits = 0;
        for (idx = 0; idx < 8; idx++)
            bits = (bits << 8) | (idx < len ? (uint8_t)s[idx] : 0);
        return bits;
    }
    default: return 0;
    }
}

typedef struct zrow {
    uint64_t key;
    int64_t row;
} zrow;

static int by_key(const void *a, const void *b)
{
    const zrow *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* Row g of the collected batches: its batch and row in it (binary search over starts). */
static void locate(const int64_t *starts, size_t n, int64_t g, size_t *batch, int64_t *row)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (starts[mid] <= g)
            lo = mid;
        else
            hi = mid;
    }
    *batch = lo;
    *row = g - starts[lo];
}

/* A row of the z-ordered range being written: its batch, its row there, its z rank. */
typedef struct zpick {
    size_t batch;
    int64_t row, pos;
} zpick;

static int by_batch(const void *a, const void *b)
{
    const zpick *x = a, *y = b;
    if (x->batch != y->batch)
        return x->batch < y->batch ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static silt_status stage_outputs(opt_ctx *ctx, const delta_write_output *wo, silt_error *err);

/* Writes picks (sorted by batch) as one file: a gather per source batch. */
static silt_status write_range(opt_ctx *ctx, const opt_rows *rows, const zpick *picks,
                               int64_t n, arena *a, silt_error *err)
{
    delta_write_options wo = DELTA_WRITE_OPTIONS_INIT;
    delta_write_output out;
    delta_writer *w = NULL;
    int64_t *take = arena_alloc(a, (size_t)(n + 1) * sizeof(int64_t)), at = 0;
    silt_status rc;
    if (take == NULL)
        return err_nomem(err);
    wo.target_file_size = INT64_C(1) << 62; /* one file per range: the range is the file */
    wo.compression = ctx->o->compression;
    rc = delta_write_open(&w, ctx->store, ctx->snap, ctx->snap->schema, &wo, err);
    while (rc == SILT_OK && at < n) {
        const col_batch *src = rows->batches[picks[at].batch];
        col_batch part = *src;
        int64_t k = 0;
        size_t col;
        while (at + k < n && picks[at + k].batch == picks[at].batch) {
            take[k] = picks[at + k].row;
            k++;
        }
        part.n_rows = k;
        part.cols = arena_calloc(a, src->n_cols + 1, sizeof(col_vec *));
        if (part.cols == NULL)
            rc = err_nomem(err);
        for (col = 0; rc == SILT_OK && col < src->n_cols; col++)
            rc = col_vec_take(&part.cols[col], a, src->cols[col], take, k, err);
        if (rc == SILT_OK)
            rc = delta_write_batch(w, &part, err);
        at += k;
    }
    if (rc == SILT_OK)
        rc = delta_write_finish(w, &out, err);
    if (rc == SILT_OK)
        rc = stage_outputs(ctx, &out, err);
    delta_write_free(w);
    return rc;
}

/*
 * Z-order in bounded memory. Pass one reads the bin and keeps a uniform
 * sample of the rows' z-order keys (reservoir sampling, at most ZSAMPLE
 * rows); each column's sorted sample gives a row's rank in that column
 * (the position of its key among the sample's, as Delta's range ids come
 * from sampled range boundaries; with a sample of every row it is the
 * exact rank), and the sample's z-values give the cuts between the output
 * files, at equal sample counts. Then every pass reads the bin again and
 * keeps only the rows of a run of consecutive ranges, as many as the memory
 * bound holds (estimated from pass one's decoded bytes per row), orders
 * them by z-value and writes each range as one file. So memory is bounded
 * by zorder_memory plus the sample (ZSAMPLE x columns x 16 bytes), whatever
 * the size of the partition; a big bin costs more passes, not more memory.
 */
#define ZSAMPLE (1 << 17)

typedef silt_status (*batch_fn)(void *payload, const col_batch *b, arena *batch_a,
                                silt_error *err);

typedef struct zplan {
    opt_ctx *ctx;
    size_t n_cols;
    uint64_t *sample; /* n_sample tuples of n_cols keys */
    uint64_t *sorted; /* per column, its n_sample keys sorted */
    size_t n_sample;
    int64_t n_rows, decoded_bytes;
    uint64_t rng;
    uint64_t *cuts; /* range i holds z in [cuts[i], cuts[i + 1]); cuts[0] = 0 */
    int64_t n_ranges, lo, hi; /* the ranges of the current pass: [lo, hi) */
    opt_rows rows;            /* the pass's rows, compacted */
    uint64_t *z;              /* their z-values */
    size_t n_z, cap_z;
    arena *pass_a;
} zplan;

static uint64_t splitmix(uint64_t *state)
{
    uint64_t x = (*state += UINT64_C(0x9E3779B97F4A7C15));
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/* Reads the bin's files batch by batch (each in a fresh arena) through fn. */
static silt_status scan_each(opt_ctx *ctx, const opt_bin *bin, arena *a, batch_fn fn,
                             void *payload, silt_error *err)
{
    delta_snapshot one = *ctx->snap;
    delta_file *files = arena_calloc(a, bin->n_files, sizeof(delta_file));
    arena *batch_a = arena_new(a, "zorder batch");
    delta_scan *scan = NULL;
    size_t idx;
    silt_status rc;
    if (files == NULL || batch_a == NULL)
        return err_nomem(err);
    for (idx = 0; idx < bin->n_files; idx++)
        files[idx] = *bin->files[idx];
    one.files = files;
    one.n_files = bin->n_files;
    rc = delta_scan_open(&scan, ctx->store, &one, NULL, err);
    while (rc == SILT_OK) {
        col_batch *b = NULL;
        arena_reset(batch_a);
        rc = delta_scan_next(scan, batch_a, &b, err);
        if (rc != SILT_OK || b == NULL)
            break;
        b->schema = ctx->snap->schema;
        rc = fn(payload, b, batch_a, err);
    }
    delta_scan_free(scan);
    arena_free(batch_a);
    return rc;
}

/* scan_each's callback that writes each batch of a bin being compacted (payload: the writer). */
static silt_status write_each(void *payload, const col_batch *b, arena *batch_a, silt_error *err)
{
    (void)batch_a;
    return delta_write_batch(payload, b, err);
}

static silt_status sample_batch(void *payload, const col_batch *b, arena *batch_a,
                                silt_error *err)
{
    zplan *p = payload;
    int64_t row;
    size_t col;
    (void)err;
    for (row = 0; row < b->n_rows; row++) {
        int64_t seen = p->n_rows++;
        uint64_t slot = seen < ZSAMPLE ? (uint64_t)seen : splitmix(&p->rng) % (uint64_t)(seen + 1);
        if (slot >= ZSAMPLE)
            continue;
        for (col = 0; col < p->n_cols; col++)
            p->sample[slot * p->n_cols + col] = value_key(b->cols[p->ctx->zcol[col]], row);
    }
    p->decoded_bytes += (int64_t)arena_bytes_used(batch_a);
    return SILT_OK;
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Keys before key in a sorted array (the rank of key; ties share the lowest). */
static size_t lower_bound(const uint64_t *sorted, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The z-value of a row's keys: ranks scaled to 64 / n bits, interleaved from the top. */
static uint64_t z_of(const zplan *p, const uint64_t *keys)
{
    unsigned width = (unsigned)(64 / p->n_cols), bit;
    long double top = width == 64 ? 18446744073709551615.0L
                                  : (long double)((UINT64_C(1) << width) - 1);
    uint64_t z = 0;
    size_t col;
    for (col = 0; col < p->n_cols; col++) {
        size_t rank = lower_bound(p->sorted + col * p->n_sample, p->n_sample, keys[col]);
        uint64_t scaled = (uint64_t)((long double)rank / (long double)p->n_sample * top);
        for (bit = 0; bit < width; bit++)
            if ((scaled >> (width - 1 - bit)) & 1)
                z |= UINT64_C(1) << (63 - (bit * p->n_cols + col));
    }
    return z;
}

static uint64_t row_z(const zplan *p, const col_batch *b, int64_t row)
{
    uint64_t keys[64];
    size_t col;
    for (col = 0; col < p->n_cols; col++)
        keys[col] = value_key(b->cols[p->ctx->zcol[col]], row);
    return z_of(p, keys);
}

/* The range of a z-value: the last i with cuts[i] <= z. */
static int64_t range_of(const zplan *p, uint64_t z)
{
    int64_t lo = 0, hi = p->n_ranges;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (p->cuts[mid] <= z)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The sorted columns of the sample and the cuts between the n_ranges files. */
static silt_status plan_cuts(zplan *p, int64_t bin_bytes, silt_error *err)
{
    size_t n = p->n_sample, col, idx;
    uint64_t *zs;
    p->sorted = mem_alloc((n * p->n_cols + 1) * sizeof(uint64_t));
    zs = mem_alloc((n + 1) * sizeof(uint64_t));
    if (p->sorted == NULL || zs == NULL) {
        mem_free(zs);
        return err_nomem(err);
    }
    for (col = 0; col < p->n_cols; col++) {
        for (idx = 0; idx < n; idx++)
            p->sorted[col * n + idx] = p->sample[idx * p->n_cols + col];
        qsort(p->sorted + col * n, n, sizeof(uint64_t), by_u64);
    }
    for (idx = 0; idx < n; idx++)
        zs[idx] = z_of(p, p->sample + idx * p->n_cols);
    qsort(zs, n, sizeof(uint64_t), by_u64);
    p->n_ranges = bin_bytes / p->ctx->max_size + (bin_bytes % p->ctx->max_size != 0);
    if (p->n_ranges < 1)
        p->n_ranges = 1;
    if (p->n_ranges > p->n_rows)
        p->n_ranges = p->n_rows;
    p->cuts = mem_alloc((size_t)(p->n_ranges + 1) * sizeof(uint64_t));
    if (p->cuts == NULL) {
        mem_free(zs);
        return err_nomem(err);
    }
    p->cuts[0] = 0;
    for (idx = 1; idx < (size_t)p->n_ranges; idx++)
        p->cuts[idx] = zs[idx * n / (size_t)p->n_ranges];
    mem_free(zs);
    return SILT_OK;
}

/* Gives a taken vector its own values: dictionaries (kept by col_vec_take) die with the batch. */
static silt_status own_values(col_vec **v, arena *a, silt_error *err)
{
    size_t idx;
    if ((*v)->dictionary != NULL)
        SILT_RETURN_IF_ERROR(col_vec_flatten(v, a, *v, err));
    for (idx = 0; idx < (*v)->n_children; idx++)
        SILT_RETURN_IF_ERROR(own_values(&(*v)->children[idx], a, err));
    return SILT_OK;
}

/* Keeps the rows of the pass's ranges, compacted into the pass arena, with their z-values. */
static silt_status collect_batch(void *payload, const col_batch *b, arena *batch_a,
                                 silt_error *err)
{
    zplan *p = payload;
    int64_t *take = arena_alloc(batch_a, (size_t)(b->n_rows + 1) * sizeof(int64_t)), row, k = 0;
    col_batch *kept;
    size_t col;
    if (take == NULL)
        return err_nomem(err);
    for (row = 0; row < b->n_rows; row++) {
        uint64_t z = row_z(p, b, row);
        int64_t r = range_of(p, z);
        if (r < p->lo || r >= p->hi)
            continue;
        take[k++] = row;
        SILT_RETURN_IF_ERROR(grow((void **)&p->z, &p->cap_z, p->n_z, sizeof(uint64_t), err));
        p->z[p->n_z++] = z;
    }
    if (k == 0)
        return SILT_OK;
    kept = arena_calloc(p->pass_a, 1, sizeof(*kept));
    if (kept == NULL || (kept->cols = arena_calloc(p->pass_a, b->n_cols + 1,
                                                   sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    *kept = (col_batch){.schema = b->schema, .n_rows = k, .n_cols = b->n_cols,
                        .cols = kept->cols};
    for (col = 0; col < b->n_cols; col++) {
        SILT_RETURN_IF_ERROR(col_vec_take(&kept->cols[col], p->pass_a, b->cols[col], take, k, err));
        SILT_RETURN_IF_ERROR(own_values(&kept->cols[col], p->pass_a, err));
    }
    SILT_RETURN_IF_ERROR(
        grow((void **)&p->rows.batches, &p->rows.cap, p->rows.n_batches, sizeof(col_batch *), err));
    p->rows.batches[p->rows.n_batches++] = kept;
    p->rows.n_rows += k;
    return SILT_OK;
}

/* Orders the pass's rows by z-value and writes each of its ranges as one file. */
static silt_status write_pass(zplan *p, arena *a, silt_error *err)
{
    int64_t n = p->rows.n_rows, idx, from, total = 0;
    int64_t *starts = arena_calloc(a, p->rows.n_batches + 1, sizeof(int64_t));
    zrow *order = mem_alloc((size_t)(n + 1) * sizeof(zrow));
    zpick *picks = mem_alloc((size_t)(n + 1) * sizeof(zpick));
    arena *range_a = arena_new(a, "zorder range");
    size_t b;
    silt_status rc = SILT_OK;
    if (starts == NULL || order == NULL || picks == NULL || range_a == NULL)
        rc = err_nomem(err);
    for (b = 0; rc == SILT_OK && b < p->rows.n_batches; b++) {
        starts[b] = total;
        total += p->rows.batches[b]->n_rows;
    }
    for (idx = 0; rc == SILT_OK && idx < n; idx++) {
        order[idx].key = p->z[idx];
        order[idx].row = idx;
    }
    if (rc == SILT_OK)
        qsort(order, (size_t)n, sizeof(zrow), by_key);
    for (from = 0; rc == SILT_OK && from < n;) {
        int64_t r = range_of(p, order[from].key), to = from;
        while (to < n && range_of(p, order[to].key) == r)
            to++;
        for (idx = from; idx < to; idx++) {
            locate(starts, p->rows.n_batches, order[idx].row, &picks[idx - from].batch,
                   &picks[idx - from].row);
            picks[idx - from].pos = idx;
        }
        qsort(picks, (size_t)(to - from), sizeof(zpick), by_batch);
        arena_reset(range_a);
        rc = write_range(p->ctx, &p->rows, picks, to - from, range_a, err);
        from = to;
    }
    mem_free(order);
    mem_free(picks);
    return rc;
}

/* How many consecutive ranges one pass holds within the memory bound (at least one). */
static int64_t ranges_per_pass(const zplan *p)
{
    int64_t bound = p->ctx->o->zorder_memory > 0 ? p->ctx->o->zorder_memory
                                                 : DELTA_ZORDER_MEMORY_DEFAULT;
    int64_t row_bytes = p->decoded_bytes / (p->n_rows > 0 ? p->n_rows : 1) + 32;
    int64_t rows_per_range = p->n_rows / p->n_ranges + 1;
    int64_t n = bound / row_bytes / rows_per_range;
    return n < 1 ? 1 : n;
}

static silt_status zorder_bin(opt_ctx *ctx, const opt_bin *bin, arena *a, silt_error *err)
{
    zplan p;
    int64_t step;
    silt_status rc;
    memset(&p, 0, sizeof(p));
    p.ctx = ctx;
    p.n_cols = ctx->o->n_zorder;
    p.rng = UINT64_C(0x5EED);
    p.sample = mem_alloc((size_t)ZSAMPLE * p.n_cols * sizeof(uint64_t));
    p.pass_a = arena_new(a, "zorder pass");
    if (p.sample == NULL || p.pass_a == NULL) {
        mem_free(p.sample);
        return err_nomem(err);
    }
    rc = scan_each(ctx, bin, a, sample_batch, &p, err);
    p.n_sample = p.n_rows < ZSAMPLE ? (size_t)p.n_rows : ZSAMPLE;
    if (rc == SILT_OK && p.n_rows > 0)
        rc = plan_cuts(&p, bin->bytes, err);
    step = rc == SILT_OK && p.n_rows > 0 ? ranges_per_pass(&p) : 0;
    for (p.lo = 0; rc == SILT_OK && p.n_rows > 0 && p.lo < p.n_ranges; p.lo += step) {
        p.hi = p.lo + step < p.n_ranges ? p.lo + step : p.n_ranges;
        ctx->m->zorder_passes++;
        arena_reset(p.pass_a);
        p.rows.n_batches = 0;
        p.rows.n_rows = 0;
        p.n_z = 0;
        rc = scan_each(ctx, bin, a, collect_batch, &p, err);
        if (rc == SILT_OK && p.rows.n_rows > 0)
            rc = write_pass(&p, a, err);
    }
    mem_free(p.sample);
    mem_free(p.sorted);
    mem_free(p.cuts);
    mem_free(p.z);
    mem_free(p.rows.batches);
    return rc;
}

/* ---- a bin -------------------------------------------------------------------------------- */

static silt_status stage_outputs(opt_ctx *ctx, const delta_write_output *wo, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < wo->n_adds; idx++) {
        dlog_add add = wo->adds[idx];
        add.data_change = 0;
        stats_add(&ctx->m->added, add.size);
        SILT_RETURN_IF_ERROR(
            grow((void **)&ctx->added_sizes, &ctx->cap_added, ctx->n_added, sizeof(int64_t), err));
        ctx->added_sizes[ctx->n_added++] = add.size;
        SILT_RETURN_IF_ERROR(delta_txn_add_file(ctx->txn, &add, err));
    }
    return SILT_OK;
}

static silt_status rewrite_bin(opt_ctx *ctx, const opt_bin *bin, silt_error *err)
{
    delta_write_options wo = DELTA_WRITE_OPTIONS_INIT;
    delta_write_output out;
    delta_writer *w = NULL;
    arena *a = arena_new(NULL, "optimize bin");
    size_t idx;
    silt_status rc;
    if (a == NULL)
        return err_nomem(err);
    wo.target_file_size = ctx->max_size;
    wo.compression = ctx->o->compression;
    wo.pool = ctx->o->pool;
    if (ctx->o->n_zorder > 0) {
        rc = zorder_bin(ctx, bin, a, err);
    } else {
        rc = delta_write_open(&w, ctx->store, ctx->snap, ctx->snap->schema, &wo, err);
        if (rc == SILT_OK)
            rc = scan_each(ctx, bin, a, write_each, w, err);
        if (rc == SILT_OK)
            rc = delta_write_finish(w, &out, err);
        if (rc == SILT_OK)
            rc = stage_outputs(ctx, &out, err);
    }
    for (idx = 0; rc == SILT_OK && idx < bin->n_files; idx++) {
        const delta_file *file = bin->files[idx];
        stats_add(&ctx->m->removed, file->size);
        if (file->dv.storage_type != 0) {
            ctx->m->dv_removed++;
            ctx->m->dv_rows_removed += file->dv.cardinality;
        }
        rc = delta_txn_read_file(ctx->txn, file->path, err);
        if (rc == SILT_OK)
            rc = delta_txn_remove_file(ctx->txn, file, 0, err);
    }
    delta_write_free(w);
    arena_free(a);
    return rc;
}

/* The bins of one partition (Delta's groupFilesIntoBins). */
static silt_status optimize_group(opt_ctx *ctx, opt_group *g, silt_error *err)
{
    opt_bin bin = {0, NULL, 0};
    size_t idx, n_cand = 0, n_bins_before = (size_t)ctx->m->num_bins;
    const delta_file **cand = arena_calloc(ctx->a, g->n_files + 1, sizeof(*cand));
    silt_status rc = SILT_OK;
    if (cand == NULL)
        return err_nomem(err);
    for (idx = 0; idx < g->n_files; idx++) {
        const delta_file *f = g->files[idx];
        ctx->m->total_considered_files++;
        if (ctx->o->purge ? f->dv.storage_type != 0
                          : ctx->o->n_zorder > 0 || f->size < ctx->min_size ||
                                f->dv.storage_type != 0)
            cand[n_cand++] = f;
        else
            ctx->m->total_files_skipped++;
    }
    qsort(cand, n_cand, sizeof(*cand), by_size);
    bin.files = cand;
    for (idx = 0; rc == SILT_OK && idx <= n_cand; idx++) {
        int full = idx == n_cand ||
                   (ctx->o->n_zorder == 0 && bin.n_files > 0 &&
                    bin.bytes + cand[idx]->size > ctx->max_size);
        if (full && bin.n_files > 0) {
            int worth = bin.n_files > 1 || ctx->o->n_zorder > 0 ||
                        bin.files[0]->dv.storage_type != 0;
            if (worth) {
                ctx->m->num_bins++;
                rc = rewrite_bin(ctx, &bin, err);
            } else {
                ctx->m->total_files_skipped++;
            }
            bin.files = cand + idx;
            bin.n_files = 0;
            bin.bytes = 0;
        }
        if (idx < n_cand) {
            bin.n_files++;
            bin.bytes += cand[idx]->size;
        }
    }
    if ((size_t)ctx->m->num_bins > n_bins_before)
        ctx->m->partitions_optimized++;
    return rc;
}

/* ---- the commit --------------------------------------------------------------------------- */

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Spark's percentile of the added file sizes (the nearest rank below). */
static int64_t percentile(const int64_t *sorted, size_t n, int pct)
{
    if (n == 0)
        return 0;
    return sorted[(size_t)((double)(n - 1) * pct / 100.0 + 0.5)];
}

static silt_status json_names(opt_ctx *ctx, buf *out, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_append_str(out, "[", err));
    for (idx = 0; idx < ctx->o->n_zorder; idx++)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s\"%s\"", idx ? "," : "", ctx->o->zorder[idx]));
    return buf_append_str(out, "]", err);
}

static silt_status optimize_metrics(opt_ctx *ctx, delta_txn *txn, const delta_optimize_metrics *m,
                                    silt_error *err);

static silt_status history(opt_ctx *ctx, silt_error *err)
{
    delta_txn *txn = ctx->txn;
    const delta_optimize_metrics *m = ctx->m;
    buf text = BUF_INIT;
    silt_status rc;
    qsort(ctx->added_sizes, ctx->n_added, sizeof(int64_t), by_value);
    if (ctx->o->predicate_text != NULL)
        rc = buf_printf(&text, err, "[\"%s\"]", ctx->o->predicate_text);
    else
        rc = buf_append_str(&text, "[]", err);
    if (rc == SILT_OK)
        rc = delta_txn_set_param(txn, "predicate", buf_cstr(&text), err);
    if (rc == SILT_OK && ctx->o->purge) {
        buf_clear(&text);
        SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "applyPurge", "true", err));
        return optimize_metrics(ctx, txn, m, err);
    }
    buf_truncate(&text, 0);
    if (rc == SILT_OK)
        rc = json_names(ctx, &text, err);
    if (rc == SILT_OK)
        rc = delta_txn_set_param(txn, "zOrderBy", buf_cstr(&text), err);
    if (rc == SILT_OK)
        rc = delta_txn_set_param(txn, "clusterBy", "[]", err);
    if (rc == SILT_OK)
        rc = delta_txn_set_param(txn, "auto", "false", err);
    buf_clear(&text);
    SILT_RETURN_IF_ERROR(rc);
    return optimize_metrics(ctx, txn, m, err);
}

/* The metrics of OPTIMIZE and REORG (the Spark peer writes the same set for both). */
static silt_status optimize_metrics(opt_ctx *ctx, delta_txn *txn, const delta_optimize_metrics *m,
                                    silt_error *err)
{
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numRemovedFiles", m->removed.total_files, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numRemovedBytes", m->removed.total_size, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "p25FileSize",
                                              percentile(ctx->added_sizes, ctx->n_added, 25), err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numDeletionVectorsRemoved", m->dv_removed, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "minFileSize", m->added.min, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "p75FileSize",
                                              percentile(ctx->added_sizes, ctx->n_added, 75), err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "p50FileSize",
                                              percentile(ctx->added_sizes, ctx->n_added, 50), err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numAddedBytes", m->added.total_size, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numAddedFiles", m->added.total_files, err));
    return delta_txn_set_metric(txn, "maxFileSize", m->added.max, err);
}

static silt_status resolve_zorder(opt_ctx *ctx, silt_error *err)
{
    const col_type *schema = ctx->snap->schema;
    const dlog_metadata *md = &ctx->snap->metadata;
    size_t idx, f, p;
    ctx->zcol = arena_calloc(ctx->a, ctx->o->n_zorder + 1, sizeof(int));
    if (ctx->zcol == NULL)
        return err_nomem(err);
    if (ctx->o->n_zorder > 64) /* each column gets 64 / n bits of the z-value: at least one */
        return err_set(err, SILT_UNSUPPORTED, "ZORDER BY takes at most 64 columns (%zu given): "
                       "silt interleaves one bit or more of each", ctx->o->n_zorder);
    for (idx = 0; idx < ctx->o->n_zorder; idx++) {
        const char *name = ctx->o->zorder[idx];
        for (p = 0; p < md->n_partition_columns; p++)
            if (util_str_casecmp(md->partition_columns[p], name) == 0)
                return err_set(err, SILT_INVALID,
                               "[DELTA_ZORDERING_ON_PARTITION_COLUMN] %s is a partition column. "
                               "Z-Ordering can only be performed on data columns", name);
        for (f = 0; f < schema->n_fields && util_str_casecmp(schema->fields[f].name, name) != 0; f++)
            ;
        if (f == schema->n_fields)
            return err_set(err, SILT_NOTFOUND,
                           "[DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST] Z-Ordering column %s does not "
                           "exist in data schema", name);
        if (col_type_is_nested(schema->fields[f].type->id))
            return err_set(err, SILT_UNSUPPORTED,
                           "[DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS] Z-Ordering on %s will be "
                           "ineffective, because silt collects no min/max statistics for a "
                           "column of type %s", name, col_type_id_name(schema->fields[f].type->id));
        ctx->zcol[idx] = (int)f;
    }
    return SILT_OK;
}

static silt_status run(opt_ctx *ctx, silt_error *err)
{
    hashmap index = HASHMAP_INIT;
    size_t idx;
    silt_status rc = group_files(ctx, &index, err);
    hashmap_clear(&index);
    if (rc == SILT_OK)
        rc = delta_txn_begin(&ctx->txn, ctx->store, ctx->snap,
                             ctx->o->purge ? "REORG" : "OPTIMIZE", err);
    if (rc != SILT_OK)
        return rc;
    delta_txn_set_isolation(ctx->txn, DELTA_SNAPSHOT_ISOLATION);
    if (ctx->o->retry_timeout_ms > 0)
        delta_txn_set_retry_timeout_ms(ctx->txn, ctx->o->retry_timeout_ms);
    if (ctx->o->user_metadata != NULL)
        SILT_RETURN_IF_ERROR(delta_txn_set_user_metadata(ctx->txn, ctx->o->user_metadata, err));
    for (idx = 0; rc == SILT_OK && idx < ctx->n_groups; idx++)
        rc = optimize_group(ctx, &ctx->groups[idx], err);
    if (rc != SILT_OK || ctx->m->num_bins == 0)
        return rc;
    SILT_RETURN_IF_ERROR(history(ctx, err));
    {
        delta_commit_result result;
        SILT_RETURN_IF_ERROR(delta_txn_commit(ctx->txn, &result, err));
        ctx->m->version = result.version;
    }
    return SILT_OK;
}

silt_status delta_optimize(io_store *store, const delta_snapshot *snap,
                           const delta_optimize_options *opts, delta_optimize_metrics *metrics,
                           silt_error *err)
{
    opt_ctx ctx;
    size_t idx;
    silt_status rc;
    memset(metrics, 0, sizeof(*metrics));
    metrics->version = -1;
    metrics->start_ms = time_now_micros() / 1000;
    metrics->num_table_columns = (int64_t)snap->schema->n_fields;
    metrics->num_table_columns_with_stats = delta_stats_indexed_cols(&snap->metadata);
    if (metrics->num_table_columns_with_stats < 0 ||
        metrics->num_table_columns_with_stats > metrics->num_table_columns)
        metrics->num_table_columns_with_stats = metrics->num_table_columns;
    /* PROTOCOL: dataChange false adds and removes need no change data files. */
    SILT_RETURN_IF_ERROR(delta_check_writable(&snap->protocol, &snap->metadata, 0, err));
    memset(&ctx, 0, sizeof(ctx));
    ctx.store = store;
    ctx.snap = snap;
    ctx.o = opts;
    ctx.m = metrics;
    ctx.max_size = opts->max_file_size > 0 ? opts->max_file_size : DELTA_OPTIMIZE_DEFAULT_FILE_SIZE;
    ctx.min_size = opts->min_file_size > 0 ? opts->min_file_size : ctx.max_size;
    ctx.a = arena_new(NULL, "optimize");
    if (ctx.a == NULL)
        return err_nomem(err);
    rc = opts->n_zorder > 0 ? resolve_zorder(&ctx, err) : SILT_OK;
    if (rc == SILT_OK)
        rc = run(&ctx, err);
    delta_txn_free(ctx.txn);
    for (idx = 0; idx < ctx.n_groups; idx++)
        mem_free(ctx.groups[idx].files);
    mem_free(ctx.groups);
    mem_free(ctx.added_sizes);
    arena_free(ctx.a);
    return rc;
}
