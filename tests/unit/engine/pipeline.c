/*
 * Unit tests of the parallel pipelines above the scan (op_pipeline.c): a
 * join chain over 8 in-memory morsels run by a pool of workers must give
 * what the same plan gives on one thread, for inner, left, semi and anti
 * joins whose probe keys have NULLs and whose build keys have duplicates
 * and a NULL, into an aggregation and into a top-N.
 */
#include "engine_test.h"

#define N_MORSELS 8
#define MORSEL_ROWS 1000

static arena *qa;
static engine_ctx ctx;
static silt_error err;
static tpool *pool;
static col_batch *morsels[N_MORSELS];

/* Morsel i is batch i, once. */
static silt_status morsel_next(void *payload, size_t idx, size_t *cursor, arena *batch_arena,
                               col_batch **out, silt_error *e)
{
    (void)payload;
    (void)batch_arena;
    (void)e;
    *out = *cursor == 0 ? morsels[idx] : NULL;
    *cursor = 1;
    return SILT_OK;
}

/* The serial source: the morsels one after the other. */
typedef struct serial_src {
    size_t next;
} serial_src;

static silt_status serial_next(void *payload, arena *batch_arena, col_batch **out, silt_error *e)
{
    serial_src *s = payload;
    (void)batch_arena;
    (void)e;
    *out = s->next < N_MORSELS ? morsels[s->next++] : NULL;
    return SILT_OK;
}

void test_engine_pipeline__initialize(void)
{
    int m;
    qa = arena_new(NULL, "query");
    engine_ctx_init(&ctx, qa);
    err_clear(&err);
    check_ok(tpool_new(&pool, 2, &err), &err);
    ctx.pool = pool;
    /* k = i % 13, NULL every 11th row; v = i */
    for (m = 0; m < N_MORSELS; m++) {
        int64_t k[MORSEL_ROWS], v[MORSEL_ROWS], r;
        char nulls[MORSEL_ROWS + 1];
        col_vec *cols[2];
        for (r = 0; r < MORSEL_ROWS; r++) {
            int64_t i = m * MORSEL_ROWS + r;
            k[r] = i % 13;
            v[r] = i;
            nulls[r] = i % 11 == 0 ? 'n' : '.';
        }
        nulls[MORSEL_ROWS] = 0;
        cols[0] = mk_ints(qa, COL_LONG, MORSEL_ROWS, k, nulls);
        cols[1] = mk_ints(qa, COL_LONG, MORSEL_ROWS, v, NULL);
        morsels[m] = mk_batch(qa, 2, cols);
    }
}

void test_engine_pipeline__cleanup(void)
{
    arena_free(qa);
    tpool_free(pool);
}

static expr *colt(int64_t idx, col_type_id t)
{
    expr *e;
    check_ok(expr_column(&e, qa, idx, col_type_primitive(t), &err), &err);
    return e;
}

/* scan (with morsels when parallel) joined with the dimension: k 1, 3, 3, NULL, 5, 12, 40. */
static engine_op *join_chain(engine_join_type type, int parallel)
{
    serial_src *src = arena_calloc(qa, 1, sizeof(*src));
    engine_op *scan, *dim, *j;
    col_vec *dc[2];
    col_batch **db = arena_alloc(qa, sizeof(col_batch *)); /* borrowed by the values op */
    expr *lk[1], *rk[1];
    check_ok(engine_op_scan(&scan, &ctx, morsels[0]->schema, serial_next, src, &err), &err);
    if (parallel)
        engine_op_scan_set_morsels(scan, morsel_next, NULL, N_MORSELS);
    dc[0] = mk_ints(qa, COL_LONG, 7, (int64_t[]){1, 3, 3, 0, 5, 12, 40}, "...n...");
    dc[1] = mk_strs(qa, 7, (const char *[]){"one", "three", "drei", "null", "five", "twelve",
                                             "forty"});
    db[0] = mk_batch(qa, 2, dc);
    check_ok(engine_op_values(&dim, &ctx, db[0]->schema, db, 1, &err), &err);
    lk[0] = colt(0, COL_LONG);
    rk[0] = colt(0, COL_LONG);
    check_ok(engine_op_hash_join(&j, &ctx, scan, dim, type, lk, rk, 1, NULL, &err), &err);
    return j;
}

static const char *sorted_text(engine_op *op)
{
    engine_sort_key keys[4] = {engine_sort_key_default(0, 0), engine_sort_key_default(1, 0),
                               engine_sort_key_default(2, 0), engine_sort_key_default(3, 0)};
    engine_op *s;
    col_batch *out;
    size_t n = op->schema->n_fields < 4 ? op->schema->n_fields : 4;
    check_ok(engine_op_sort(&s, &ctx, op, keys, n, -1, 0, &err), &err);
    check_ok(engine_collect(s, qa, &out, &err), &err);
    return batch_text(qa, out);
}

/* GROUP BY the last column (name, or k for semi/anti): count(*), sum(v). */
static const char *grouped(engine_join_type type, int parallel)
{
    engine_op *j = join_chain(type, parallel), *agg;
    int left_only = type == JOIN_LEFT_SEMI || type == JOIN_LEFT_ANTI;
    expr *key = left_only ? colt(0, COL_LONG) : colt(3, COL_STRING);
    engine_agg aggs[2];
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT_STAR;
    aggs[1].kind = AGG_SUM;
    aggs[1].arg = colt(1, COL_LONG);
    check_int(parallel, engine_chain_parallel(j));
    if (parallel)
        check_ok(engine_op_chain_agg(&agg, &ctx, j, &key, NULL, 1, aggs, 2, &err), &err);
    else
        check_ok(engine_op_hash_agg(&agg, &ctx, j, &key, NULL, 1, aggs, 2, NULL, 0, &err), &err);
    return sorted_text(agg);
}

void test_engine_pipeline__join_aggregate_matches_serial(void)
{
    engine_join_type types[4] = {JOIN_INNER, JOIN_LEFT, JOIN_LEFT_SEMI, JOIN_LEFT_ANTI};
    int t;
    for (t = 0; t < 4; t++) {
        const char *serial = grouped(types[t], 0);
        check(strlen(serial) > 0);
        check_str(serial, grouped(types[t], 1));
    }
    /* inner: k = 3 matches twice ("three", "drei"); k NULL and 40 never */
    check_contains(grouped(JOIN_INNER, 1), "drei|");
}

void test_engine_pipeline__full_join_stays_serial(void)
{
    check_int(0, engine_chain_parallel(join_chain(JOIN_FULL, 1)));
    check_int(0, engine_chain_parallel(join_chain(JOIN_RIGHT, 1)));
}

/* ORDER BY v DESC (ties on name) LIMIT 7 OFFSET 2 over the left join. */
static const char *top(int parallel)
{
    engine_op *j = join_chain(JOIN_LEFT, parallel), *in = j, *s;
    engine_sort_key keys[2] = {engine_sort_key_default(1, 1), engine_sort_key_default(3, 0)};
    col_batch *out;
    if (parallel)
        check_ok(engine_op_chain_topn(&in, &ctx, j, keys, 2, 9, &err), &err);
    check_ok(engine_op_sort(&s, &ctx, in, keys, 2, 7, 2, &err), &err);
    check_ok(engine_collect(s, qa, &out, &err), &err);
    check_int(7, out->n_rows);
    return batch_text(qa, out);
}

void test_engine_pipeline__topn_matches_serial(void)
{
    check_str(top(0), top(1));
}
