/*
 * bench_engine.c - micro-benchmark of the engine's filter + aggregate path.
 *
 *   bench_engine [rows] [threads] [query: 1 or 2, default both]
 *
 * Generates `rows` rows (default 10M) of (k int: 1000 groups, v long,
 * x double in [0,1)) as batches of ENGINE_BATCH_ROWS, then times
 *   Q1: SELECT k, count(*), sum(v), avg(x) FROM t WHERE x > 0.5 GROUP BY k
 *   Q2: SELECT sum(v), min(x), max(x) FROM t WHERE v % 3 = 0
 *   Q3: SELECT * FROM t ORDER BY x DESC LIMIT 10 (top-N; serial only)
 *   Q4: SELECT d.g, count(*), sum(t.v) FROM t JOIN d ON t.k = d.k GROUP BY d.g
 *       (d: 1000 rows, g = k % 10; serial only)
 * serially (operator tree) and with engine_parallel_agg over `threads`
 * workers (default: all cores). The data lives in memory; the time is the
 * engine's, without any file reading.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/op.h"
#include "util/time.h"

typedef struct data {
    col_batch **batches;
    size_t n_batches;
    size_t next;
    size_t per_morsel;
} data;

static silt_status gen(data *d, arena *a, int64_t rows, silt_error *err)
{
    uint64_t seed = 42;
    int64_t done = 0;
    size_t idx = 0;
    d->n_batches = (size_t)((rows + ENGINE_BATCH_ROWS - 1) / ENGINE_BATCH_ROWS);
    d->batches = arena_calloc(a, d->n_batches, sizeof(col_batch *));
    if (d->batches == NULL)
        return err_nomem(err);
    for (idx = 0; idx < d->n_batches; idx++) {
        int64_t n = rows - done < ENGINE_BATCH_ROWS ? rows - done : ENGINE_BATCH_ROWS, r;
        col_batch *b = arena_calloc(a, 1, sizeof(*b));
        col_vec *k, *v, *x;
        SILT_RETURN_IF_ERROR(col_vec_new(&k, a, col_type_primitive(COL_INT), n, 0, err));
        SILT_RETURN_IF_ERROR(col_vec_new(&v, a, col_type_primitive(COL_LONG), n, 0, err));
        SILT_RETURN_IF_ERROR(col_vec_new(&x, a, col_type_primitive(COL_DOUBLE), n, 0, err));
        for (r = 0; r < n; r++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            ((int32_t *)k->values)[r] = (int32_t)((seed >> 33) % 1000);
            ((int64_t *)v->values)[r] = (int64_t)(done + r);
            ((double *)x->values)[r] = (double)(seed >> 11) / 9007199254740992.0;
        }
        b->n_rows = n;
        b->n_cols = 3;
        b->cols = arena_calloc(a, 3, sizeof(col_vec *));
        b->cols[0] = k;
        b->cols[1] = v;
        b->cols[2] = x;
        d->batches[idx] = b;
        done += n;
    }
    return SILT_OK;
}

static silt_status morsel(void *payload, size_t m, size_t *cursor, arena *a, col_batch **out,
                          silt_error *err)
{
    data *d = payload;
    size_t idx = m * d->per_morsel + *cursor;
    (void)a;
    (void)err;
    *out = (*cursor < d->per_morsel && idx < d->n_batches) ? d->batches[idx] : NULL;
    (*cursor)++;
    return SILT_OK;
}

typedef struct query {
    expr *filter;
    expr *keys[1];
    size_t n_keys;
    engine_agg aggs[3];
} query;

static silt_status build_queries(arena *a, query *q1, query *q2, silt_error *err)
{
    expr *k, *v, *x, *half, *three, *zero, *mod;
    SILT_RETURN_IF_ERROR(expr_column(&k, a, 0, col_type_primitive(COL_INT), err));
    SILT_RETURN_IF_ERROR(expr_column(&v, a, 1, col_type_primitive(COL_LONG), err));
    SILT_RETURN_IF_ERROR(expr_column(&x, a, 2, col_type_primitive(COL_DOUBLE), err));
    SILT_RETURN_IF_ERROR(expr_lit_double(&half, a, COL_DOUBLE, 0.5, err));
    SILT_RETURN_IF_ERROR(expr_lit_int(&three, a, COL_LONG, 3, err));
    SILT_RETURN_IF_ERROR(expr_lit_int(&zero, a, COL_LONG, 0, err));
    memset(q1, 0, sizeof(*q1));
    memset(q2, 0, sizeof(*q2));
    SILT_RETURN_IF_ERROR(expr_compare(&q1->filter, a, EXPR_GT, x, half, err));
    q1->keys[0] = k;
    q1->n_keys = 1;
    q1->aggs[0].kind = AGG_COUNT_STAR;
    q1->aggs[1].kind = AGG_SUM;
    q1->aggs[1].arg = v;
    q1->aggs[2].kind = AGG_AVG;
    q1->aggs[2].arg = x;
    SILT_RETURN_IF_ERROR(expr_arith(&mod, a, EXPR_MOD, v, three, err));
    SILT_RETURN_IF_ERROR(expr_compare(&q2->filter, a, EXPR_EQ, mod, zero, err));
    q2->aggs[0].kind = AGG_SUM;
    q2->aggs[0].arg = v;
    q2->aggs[1].kind = AGG_MIN;
    q2->aggs[1].arg = x;
    q2->aggs[2].kind = AGG_MAX;
    q2->aggs[2].arg = x;
    return SILT_OK;
}

static const col_type *schema(arena *a)
{
    col_field f[3];
    f[0] = (col_field){"k", col_type_primitive(COL_INT), 0, NULL, -1};
    f[1] = (col_field){"v", col_type_primitive(COL_LONG), 0, NULL, -1};
    f[2] = (col_field){"x", col_type_primitive(COL_DOUBLE), 0, NULL, -1};
    return col_type_struct(a, 3, f);
}

static silt_status run_serial(engine_ctx *ctx, data *d, const query *q, int64_t *groups,
                              silt_error *err)
{
    engine_op *scan, *f, *g;
    col_batch *out;
    arena *a = arena_new(ctx->query_arena, "run");
    SILT_RETURN_IF_ERROR(engine_op_values(&scan, ctx, schema(ctx->query_arena), d->batches,
                                          d->n_batches, err));
    SILT_RETURN_IF_ERROR(engine_op_filter(&f, ctx, scan, q->filter, err));
    SILT_RETURN_IF_ERROR(engine_op_hash_agg(&g, ctx, f, (expr **)q->keys, NULL, q->n_keys,
                                            q->aggs, 3, NULL, 0, err));
    SILT_RETURN_IF_ERROR(engine_collect(g, a, &out, err));
    *groups = out->n_rows;
    arena_free(a);
    return SILT_OK;
}

static silt_status run_topn(engine_ctx *ctx, data *d, int64_t *rows_out, silt_error *err)
{
    engine_op *scan, *s;
    col_batch *out;
    engine_sort_key key = engine_sort_key_default(2, 1);
    arena *a = arena_new(ctx->query_arena, "run");
    SILT_RETURN_IF_ERROR(engine_op_values(&scan, ctx, schema(ctx->query_arena), d->batches,
                                          d->n_batches, err));
    SILT_RETURN_IF_ERROR(engine_op_sort(&s, ctx, scan, &key, 1, 10, 0, err));
    SILT_RETURN_IF_ERROR(engine_collect(s, a, &out, err));
    *rows_out = out->n_rows;
    arena_free(a);
    return SILT_OK;
}

static silt_status run_join(engine_ctx *ctx, data *d, int64_t *rows_out, silt_error *err)
{
    engine_op *scan, *dim, *j, *g;
    col_batch *out, *dim_batch;
    col_vec *dk, *dg;
    col_field f[2];
    expr *tk, *dkey, *gcol, *v, *lk[1], *rk[1], *keys[1];
    engine_agg aggs[2];
    int64_t r;
    arena *a = arena_new(ctx->query_arena, "run");
    SILT_RETURN_IF_ERROR(col_vec_new(&dk, a, col_type_primitive(COL_INT), 1000, 0, err));
    SILT_RETURN_IF_ERROR(col_vec_new(&dg, a, col_type_primitive(COL_INT), 1000, 0, err));
    for (r = 0; r < 1000; r++) {
        ((int32_t *)dk->values)[r] = (int32_t)r;
        ((int32_t *)dg->values)[r] = (int32_t)(r % 10);
    }
    f[0] = (col_field){"k", dk->type, 0, NULL, -1};
    f[1] = (col_field){"g", dg->type, 0, NULL, -1};
    dim_batch = arena_calloc(a, 1, sizeof(*dim_batch));
    dim_batch->schema = col_type_struct(a, 2, f);
    dim_batch->n_rows = 1000;
    dim_batch->n_cols = 2;
    dim_batch->cols = arena_calloc(a, 2, sizeof(col_vec *));
    dim_batch->cols[0] = dk;
    dim_batch->cols[1] = dg;
    SILT_RETURN_IF_ERROR(engine_op_values(&scan, ctx, schema(ctx->query_arena), d->batches,
                                          d->n_batches, err));
    SILT_RETURN_IF_ERROR(engine_op_values(&dim, ctx, dim_batch->schema, &dim_batch, 1, err));
    SILT_RETURN_IF_ERROR(expr_column(&tk, a, 0, col_type_primitive(COL_INT), err));
    SILT_RETURN_IF_ERROR(expr_column(&dkey, a, 0, col_type_primitive(COL_INT), err));
    SILT_RETURN_IF_ERROR(expr_column(&gcol, a, 4, col_type_primitive(COL_INT), err));
    SILT_RETURN_IF_ERROR(expr_column(&v, a, 1, col_type_primitive(COL_LONG), err));
    lk[0] = tk;
    rk[0] = dkey;
    SILT_RETURN_IF_ERROR(engine_op_hash_join(&j, ctx, scan, dim, JOIN_INNER, lk, rk, 1, NULL, err));
    keys[0] = gcol;
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT_STAR;
    aggs[1].kind = AGG_SUM;
    aggs[1].arg = v;
    SILT_RETURN_IF_ERROR(engine_op_hash_agg(&g, ctx, j, keys, NULL, 1, aggs, 2, NULL, 0, err));
    SILT_RETURN_IF_ERROR(engine_collect(g, a, &out, err));
    *rows_out = out->n_rows;
    arena_free(a);
    return SILT_OK;
}

static silt_status run_parallel(engine_ctx *ctx, data *d, const query *q, int64_t *groups,
                                silt_error *err)
{
    col_batch *out;
    arena *a = arena_new(NULL, "run");
    size_t n_morsels;
    d->per_morsel = 16;
    n_morsels = (d->n_batches + d->per_morsel - 1) / d->per_morsel;
    SILT_RETURN_IF_ERROR(engine_parallel_agg(ctx, schema(ctx->query_arena), morsel, d, n_morsels,
                                             q->filter, (expr **)q->keys, NULL, q->n_keys,
                                             q->aggs, 3, a, &out, err));
    *groups = out->n_rows;
    arena_free(a);
    return SILT_OK;
}

int main(int argc, char **argv)
{
    int64_t rows = argc > 1 ? strtoll(argv[1], NULL, 10) : 10000000;
    long threads = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    long only = argc > 3 ? strtol(argv[3], NULL, 10) : 0;
    silt_error err = SILT_ERROR_INIT;
    arena *qa = arena_new(NULL, "bench");
    engine_ctx ctx;
    data d;
    query q[2];
    tpool *pool = NULL;
    int qi, rep;
    char msg[1024];
    memset(&d, 0, sizeof(d));
    engine_ctx_init(&ctx, qa);
    if (gen(&d, qa, rows, &err) != SILT_OK || build_queries(qa, &q[0], &q[1], &err) != SILT_OK ||
        tpool_new(&pool, threads > 0 ? (size_t)threads - 1 : 0, &err) != SILT_OK)
        goto fail;
    printf("rows=%lld batch=%d threads=%zu\n", (long long)rows, ENGINE_BATCH_ROWS,
           tpool_width(pool));
    for (qi = 0; qi < 2; qi++) {
        if (only > 0 && only != qi + 1)
            continue;
        for (rep = 0; rep < 3; rep++) {
            int64_t groups = 0, t0, t1, t2;
            clock_t c0, c1;
            ctx.pool = pool;
            c0 = clock();
            t0 = time_monotonic_nanos();
            if (run_serial(&ctx, &d, &q[qi], &groups, &err) != SILT_OK)
                goto fail;
            t1 = time_monotonic_nanos();
            c1 = clock();
            if (run_parallel(&ctx, &d, &q[qi], &groups, &err) != SILT_OK)
                goto fail;
            t2 = time_monotonic_nanos();
            printf("Q%d run %d: serial %.1f ms wall, %.1f ms cpu (%.0f Mrows/s per core); "
                   "parallel %.1f ms wall (%.0f Mrows/s); %lld groups\n", qi + 1, rep + 1,
                   (t1 - t0) / 1e6, (double)(c1 - c0) * 1e3 / CLOCKS_PER_SEC,
                   rows / ((double)(c1 - c0) * 1e6 / CLOCKS_PER_SEC), (t2 - t1) / 1e6,
                   rows / ((t2 - t1) / 1e3), (long long)groups);
        }
    }
    if (only == 0 || only == 3) {
        for (rep = 0; rep < 3; rep++) {
            int64_t n = 0, t0, t1;
            clock_t c0 = clock(), c1;
            t0 = time_monotonic_nanos();
            if (run_topn(&ctx, &d, &n, &err) != SILT_OK)
                goto fail;
            t1 = time_monotonic_nanos();
            c1 = clock();
            printf("Q3 run %d: serial %.1f ms wall, %.1f ms cpu; %lld rows\n", rep + 1,
                   (t1 - t0) / 1e6, (double)(c1 - c0) * 1e3 / CLOCKS_PER_SEC, (long long)n);
        }
    }
    if (only == 0 || only == 4) {
        for (rep = 0; rep < 3; rep++) {
            int64_t n = 0, t0, t1;
            clock_t c0 = clock(), c1;
            t0 = time_monotonic_nanos();
            if (run_join(&ctx, &d, &n, &err) != SILT_OK)
                goto fail;
            t1 = time_monotonic_nanos();
            c1 = clock();
            printf("Q4 run %d: serial %.1f ms wall, %.1f ms cpu; %lld groups\n", rep + 1,
                   (t1 - t0) / 1e6, (double)(c1 - c0) * 1e3 / CLOCKS_PER_SEC, (long long)n);
        }
    }
    tpool_free(pool);
    arena_free(qa);
    return 0;
fail:
    err_format(&err, msg, sizeof(msg));
    fprintf(stderr, "bench_engine: %s\n", msg);
    tpool_free(pool);
    arena_free(qa);
    return 1;
}
