/* Unit tests of the parallel partial aggregation (engine_parallel_agg). */
#include "engine_test.h"

static arena *qa;
static engine_ctx ctx;
static silt_error err;
static tpool *pool;

void test_engine_parallel__initialize(void)
{
    qa = arena_new(NULL, "query");
    engine_ctx_init(&ctx, qa);
    err_clear(&err);
    pool = NULL;
}

void test_engine_parallel__cleanup(void)
{
    tpool_free(pool);
    arena_free(qa);
}

#define ROWS_PER_BATCH 1000
#define BATCHES_PER_MORSEL 3

/* Morsel m yields 3 batches: v = m * 3000 + i, k = v % 7 (NULL when v % 11 == 0), s = "g<k>". */
static silt_status gen_morsel(void *payload, size_t morsel, size_t *cursor, arena *a,
                              col_batch **out, silt_error *e)
{
    col_builder *kb, *vb, *sb;
    col_vec *cols[3];
    int64_t i;
    (void)payload;
    if (*cursor >= BATCHES_PER_MORSEL) {
        *out = NULL;
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(col_builder_new(&kb, a, col_type_primitive(COL_INT), e));
    SILT_RETURN_IF_ERROR(col_builder_new(&vb, a, col_type_primitive(COL_LONG), e));
    SILT_RETURN_IF_ERROR(col_builder_new(&sb, a, col_type_primitive(COL_STRING), e));
    for (i = 0; i < ROWS_PER_BATCH; i++) {
        int64_t v = (int64_t)morsel * ROWS_PER_BATCH * BATCHES_PER_MORSEL +
                    (int64_t)*cursor * ROWS_PER_BATCH + i;
        char s[8];
        if (v % 11 == 0)
            SILT_RETURN_IF_ERROR(col_builder_append_null(kb, e));
        else
            SILT_RETURN_IF_ERROR(col_builder_append_int(kb, v % 7, e));
        SILT_RETURN_IF_ERROR(col_builder_append_int(vb, v, e));
        snprintf(s, sizeof(s), "g%d", (int)(v % 3));
        SILT_RETURN_IF_ERROR(col_builder_append_bytes(sb, s, strlen(s), e));
    }
    SILT_RETURN_IF_ERROR(col_builder_finish(kb, &cols[0], e));
    SILT_RETURN_IF_ERROR(col_builder_finish(vb, &cols[1], e));
    SILT_RETURN_IF_ERROR(col_builder_finish(sb, &cols[2], e));
    {
        col_batch *b = arena_calloc(a, 1, sizeof(*b));
        b->n_cols = 3;
        b->n_rows = ROWS_PER_BATCH;
        b->cols = arena_memdup(a, cols, sizeof(cols));
        *out = b;
    }
    (*cursor)++;
    return SILT_OK;
}

/* Serial source over the same morsels, for the reference plan. */
typedef struct serial_src {
    size_t morsel, cursor, n_morsels;
} serial_src;

static silt_status serial_next(void *payload, arena *a, col_batch **out, silt_error *e)
{
    serial_src *s = payload;
    while (s->morsel < s->n_morsels) {
        SILT_RETURN_IF_ERROR(gen_morsel(NULL, s->morsel, &s->cursor, a, out, e));
        if (*out != NULL) {
            (*out)->schema = NULL;
            return SILT_OK;
        }
        s->morsel++;
        s->cursor = 0;
    }
    *out = NULL;
    return SILT_OK;
}

static const col_type *schema(void)
{
    col_field f[3];
    f[0] = (col_field){"k", col_type_primitive(COL_INT), 1, NULL, -1};
    f[1] = (col_field){"v", col_type_primitive(COL_LONG), 1, NULL, -1};
    f[2] = (col_field){"s", col_type_primitive(COL_STRING), 1, NULL, -1};
    return col_type_struct(qa, 3, f);
}

static const char *sorted_text(col_batch *b, size_t n_keys)
{
    engine_op *v, *s;
    col_batch *out;
    engine_sort_key keys[2] = {engine_sort_key_default(0, 0), engine_sort_key_default(1, 0)};
    check_ok(engine_op_values(&v, &ctx, b->schema, &b, 1, &err), &err);
    check_ok(engine_op_sort(&s, &ctx, v, keys, n_keys, -1, 0, &err), &err);
    check_ok(engine_collect(s, qa, &out, &err), &err);
    return batch_text(qa, out);
}

static void compare_with_serial(size_t n_morsels, size_t n_keys, int distinct)
{
    expr *k, *v, *s, *two, *zero, *mod, *filter, *keys[2];
    engine_agg aggs[6];
    col_batch *par, *ser;
    serial_src src = {0, 0, n_morsels};
    engine_op *scan, *f, *g;
    const col_type *sch = schema();
    check_ok(expr_column(&k, qa, 0, col_type_primitive(COL_INT), &err), &err);
    check_ok(expr_column(&v, qa, 1, col_type_primitive(COL_LONG), &err), &err);
    check_ok(expr_column(&s, qa, 2, col_type_primitive(COL_STRING), &err), &err);
    check_ok(expr_lit_int(&two, qa, COL_LONG, 2, &err), &err);
    check_ok(expr_lit_int(&zero, qa, COL_LONG, 0, &err), &err);
    check_ok(expr_arith(&mod, qa, EXPR_MOD, v, two, &err), &err);
    check_ok(expr_compare(&filter, qa, EXPR_EQ, mod, zero, &err), &err);
    keys[0] = k;
    keys[1] = s;
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT_STAR;
    aggs[1].kind = AGG_SUM;
    aggs[1].arg = v;
    aggs[2].kind = AGG_MIN;
    aggs[2].arg = s;
    aggs[3].kind = AGG_MAX;
    aggs[3].arg = v;
    aggs[4].kind = AGG_AVG;
    aggs[4].arg = v;
    aggs[5].kind = AGG_COUNT;
    aggs[5].arg = k;
    aggs[5].distinct = distinct;
    check_ok(engine_parallel_agg(&ctx, sch, gen_morsel, NULL, n_morsels, filter, keys, NULL,
                                 n_keys, aggs, 6, qa, &par, &err), &err);
    check_ok(engine_op_scan(&scan, &ctx, sch, serial_next, &src, &err), &err);
    check_ok(engine_op_filter(&f, &ctx, scan, filter, &err), &err);
    check_ok(engine_op_hash_agg(&g, &ctx, f, keys, NULL, n_keys, aggs, 6, NULL, 0, &err), &err);
    check_ok(engine_collect(g, qa, &ser, &err), &err);
    check_int(ser->n_rows, par->n_rows);
    check_str(sorted_text(ser, n_keys), sorted_text(par, n_keys));
    {
        int64_t row, total = 0;
        for (row = 0; row < par->n_rows; row++)
            total += vec_get_int(par->cols[n_keys], row);
        check_int(n_morsels * ROWS_PER_BATCH * BATCHES_PER_MORSEL / 2, total);
    }
}

void test_engine_parallel__matches_serial_plan(void)
{
    check_ok(tpool_new(&pool, 1, &err), &err);
    ctx.pool = pool;
    compare_with_serial(16, 2, 0);
    compare_with_serial(16, 0, 0);
    compare_with_serial(5, 1, 1);
}

void test_engine_parallel__exact_results(void)
{
    /* sum of even v over 4 morsels of 3000 rows = sum of 0, 2, ..., 11998 */
    expr *v, *keys[1];
    engine_agg aggs[2];
    col_batch *out;
    check_ok(tpool_new(&pool, 1, &err), &err);
    ctx.pool = pool;
    check_ok(expr_column(&v, qa, 1, col_type_primitive(COL_LONG), &err), &err);
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_SUM;
    aggs[0].arg = v;
    aggs[1].kind = AGG_COUNT_STAR;
    check_ok(engine_parallel_agg(&ctx, schema(), gen_morsel, NULL, 4, NULL, keys, NULL, 0, aggs,
                                 2, qa, &out, &err), &err);
    check_str("71994000|12000", batch_text(qa, out));
    /* variance merged from partials (Chan's formula) matches the closed form */
    aggs[0].kind = AGG_VAR_POP;
    check_ok(engine_parallel_agg(&ctx, schema(), gen_morsel, NULL, 4, NULL, keys, NULL, 0, aggs,
                                 1, qa, &out, &err), &err);
    {
        double n = 12000, expect = (n * n - 1) / 12, got = vec_get_double(out->cols[0], 0);
        check(got > expect * (1 - 1e-12) && got < expect * (1 + 1e-12));
    }
    /* no morsels at all: one row, count 0, sum NULL */
    check_ok(engine_parallel_agg(&ctx, schema(), gen_morsel, NULL, 0, NULL, keys, NULL, 0, aggs,
                                 2, qa, &out, &err), &err);
    check_str("NULL|0", batch_text(qa, out));
}

static silt_status failing_morsel(void *payload, size_t morsel, size_t *cursor, arena *a,
                                  col_batch **out, silt_error *e)
{
    if (morsel == 3)
        return err_set(e, SILT_IO, "could not read morsel %zu", morsel);
    return gen_morsel(payload, morsel, cursor, a, out, e);
}

void test_engine_parallel__errors_propagate(void)
{
    engine_agg aggs[1];
    col_batch *out;
    check_ok(tpool_new(&pool, 1, &err), &err);
    ctx.pool = pool;
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT_STAR;
    check_fails(SILT_IO, engine_parallel_agg(&ctx, schema(), failing_morsel, NULL, 8, NULL, NULL,
                                             NULL, 0, aggs, 1, qa, &out, &err));
    check_contains(err.message, "could not read morsel 3");
}

void test_engine_parallel__as_an_operator(void)
{
    /* count(*) GROUP BY s over 6 morsels, then sorted by an ordinary operator above it */
    expr *s, *keys[1];
    engine_agg aggs[1];
    engine_op *p, *srt;
    col_batch *out;
    engine_sort_key key = engine_sort_key_default(0, 0);
    check_ok(tpool_new(&pool, 1, &err), &err);
    ctx.pool = pool;
    check_ok(expr_column(&s, qa, 2, col_type_primitive(COL_STRING), &err), &err);
    keys[0] = s;
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT_STAR;
    aggs[0].name = "n";
    check_ok(engine_op_parallel_agg(&p, &ctx, schema(), gen_morsel, NULL, 6, NULL, keys,
                                    (const char *[]){"s"}, 1, aggs, 1, &err), &err);
    check_str("n", p->schema->fields[1].name);
    check_ok(engine_op_sort(&srt, &ctx, p, &key, 1, -1, 0, &err), &err);
    check_ok(engine_collect(srt, qa, &out, &err), &err);
    check_str("g0|6000;g1|6000;g2|6000", batch_text(qa, out));
}
