/* Unit tests of the operators (engine/op.h), over hand-built plans. */
#include "engine_test.h"

static arena *qa;
static engine_ctx ctx;
static silt_error err;

void test_engine_op__initialize(void)
{
    qa = arena_new(NULL, "query");
    engine_ctx_init(&ctx, qa);
    err_clear(&err);
}

void test_engine_op__cleanup(void) { arena_free(qa); }

static expr *col(const col_batch *b, int64_t idx)
{
    expr *e;
    check_ok(expr_column(&e, qa, idx, b->cols[idx]->type, &err), &err);
    return e;
}

static expr *colt(int64_t idx, col_type_id t)
{
    expr *e;
    check_ok(expr_column(&e, qa, idx, col_type_primitive(t), &err), &err);
    return e;
}

static expr *lit_int(int64_t v)
{
    expr *e;
    check_ok(expr_lit_int(&e, qa, COL_INT, v, &err), &err);
    return e;
}

static expr *cmp(expr_op op, expr *l, expr *r)
{
    expr *e;
    check_ok(expr_compare(&e, qa, op, l, r, &err), &err);
    return e;
}

/* A values operator over the batches (all with the schema of the first). */
static engine_op *values(size_t n, col_batch **batches)
{
    engine_op *op;
    check_ok(engine_op_values(&op, &ctx, batches[0]->schema, batches, n, &err), &err);
    return op;
}

static const char *run(engine_op *op)
{
    col_batch *out;
    check_ok(engine_collect(op, qa, &out, &err), &err);
    return batch_text(qa, out);
}

/* k: 1, 2, NULL, 1, 2, NULL ; v: 10, 20, 30, 40, NULL, 60 ; s: a, b, a, NULL, b, c */
static col_batch *sample(void)
{
    col_vec *cols[3];
    cols[0] = mk_ints(qa, COL_INT, 6, (int64_t[]){1, 2, 0, 1, 2, 0}, "..n..n");
    cols[1] = mk_ints(qa, COL_LONG, 6, (int64_t[]){10, 20, 30, 40, 0, 60}, "....n.");
    cols[2] = mk_strs(qa, 6, (const char *[]){"a", "b", "a", NULL, "b", "c"});
    return mk_batch(qa, 3, cols);
}

void test_engine_op__filter_project_limit(void)
{
    col_batch *b = sample();
    engine_op *scan = values(1, &b), *f, *p, *l;
    expr *sum, *exprs[2];
    check_ok(engine_op_filter(&f, &ctx, scan, cmp(EXPR_GT, col(b, 1), lit_int(15)), &err), &err);
    check_ok(expr_arith(&sum, qa, EXPR_ADD, col(b, 1), col(b, 0), &err), &err);
    exprs[0] = col(b, 2);
    exprs[1] = sum;
    check_ok(engine_op_project(&p, &ctx, f, exprs, (const char *[]){"s", "total"}, 2, &err), &err);
    check_str("s", p->schema->fields[0].name);
    check_str("b|22;a|NULL;NULL|41;c|NULL", run(p));
    /* LIMIT 2 OFFSET 1 over the same plan */
    scan = values(1, &b);
    check_ok(engine_op_filter(&f, &ctx, scan, cmp(EXPR_GT, col(b, 1), lit_int(15)), &err), &err);
    check_ok(engine_op_limit(&l, &ctx, f, 2, 1, &err), &err);
    check_str("NULL|30|a;1|40|NULL", run(l));
    check_ok(engine_op_limit(&l, &ctx, values(1, &b), 0, 0, &err), &err);
    check_str("", run(l));
    check_ok(engine_op_limit(&l, &ctx, values(1, &b), -1, 5, &err), &err);
    check_str("NULL|60|c", run(l));
    check_fails(SILT_BIND, engine_op_filter(&f, &ctx, values(1, &b), lit_int(1), &err));
}

void test_engine_op__union_all(void)
{
    col_batch *b = sample();
    col_batch *bs[2] = {b, b};
    engine_op *kids[2] = {values(1, &b), values(2, bs)}, *u, *l;
    check_ok(engine_op_union_all(&u, &ctx, kids, 2, &err), &err);
    check_ok(engine_op_limit(&l, &ctx, u, -1, 16, &err), &err);
    check_str("2|NULL|b;NULL|60|c", run(l));
    {
        col_vec *c = mk_ints(qa, COL_LONG, 1, (int64_t[]){1}, NULL);
        col_batch *other = mk_batch(qa, 1, &c);
        engine_op *bad[2] = {values(1, &b), values(1, &other)};
        check_fails(SILT_BIND, engine_op_union_all(&u, &ctx, bad, 2, &err));
    }
}

static engine_agg agg(engine_agg_kind kind, expr *arg, const char *name)
{
    engine_agg a;
    memset(&a, 0, sizeof(a));
    a.kind = kind;
    a.arg = arg;
    a.name = name;
    return a;
}

void test_engine_op__group_by_with_null_group(void)
{
    col_batch *b = sample();
    engine_op *g, *s;
    expr *keys[1];
    engine_agg aggs[6];
    keys[0] = col(b, 0);
    aggs[0] = agg(AGG_COUNT_STAR, NULL, "n");
    aggs[1] = agg(AGG_COUNT, col(b, 1), "nv");
    aggs[2] = agg(AGG_SUM, col(b, 1), "sum");
    aggs[3] = agg(AGG_AVG, col(b, 1), "avg");
    aggs[4] = agg(AGG_MIN, col(b, 2), "min");
    aggs[5] = agg(AGG_MAX, col(b, 1), "max");
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b), keys, (const char *[]){"k"}, 1, aggs, 6,
                                NULL, 0, &err), &err);
    check_int(COL_LONG, g->schema->fields[3].type->id);
    check_int(COL_DOUBLE, g->schema->fields[4].type->id);
    {
        engine_sort_key key = engine_sort_key_default(0, 0);
        check_ok(engine_op_sort(&s, &ctx, g, &key, 1, -1, 0, &err), &err);
    }
    /* NULL keys form one group, sorted first */
    check_str("NULL|2|2|90|45|a|60;1|2|2|50|25|a|40;2|2|1|20|20|b|20", run(s));
}

void test_engine_op__global_aggregate_on_empty_input(void)
{
    col_batch *b = sample();
    engine_op *f, *g;
    engine_agg aggs[5];
    check_ok(engine_op_filter(&f, &ctx, values(1, &b), cmp(EXPR_GT, col(b, 1), lit_int(1000)), &err), &err);
    aggs[0] = agg(AGG_COUNT_STAR, NULL, "n");
    aggs[1] = agg(AGG_SUM, col(b, 1), "s");
    aggs[2] = agg(AGG_MAX, col(b, 2), "m");
    aggs[3] = agg(AGG_COLLECT_LIST, col(b, 0), "l");
    aggs[4] = agg(AGG_STDDEV_SAMP, col(b, 1), "sd");
    check_ok(engine_op_hash_agg(&g, &ctx, f, NULL, NULL, 0, aggs, 5, NULL, 0, &err), &err);
    check_str("0|NULL|NULL|[]|NULL", run(g));
    /* GROUP BY over empty input has no rows */
    {
        expr *keys[1] = {col(b, 0)};
        check_ok(engine_op_filter(&f, &ctx, values(1, &b), cmp(EXPR_GT, col(b, 1), lit_int(1000)), &err), &err);
        check_ok(engine_op_hash_agg(&g, &ctx, f, keys, NULL, 1, aggs, 1, NULL, 0, &err), &err);
        check_str("", run(g));
    }
}

void test_engine_op__distinct_filter_and_statistics(void)
{
    col_batch *b = sample();
    engine_op *g;
    engine_agg aggs[8];
    expr *big = cmp(EXPR_GE, col(b, 1), lit_int(30));
    aggs[0] = agg(AGG_COUNT, col(b, 2), "cs");
    aggs[1] = agg(AGG_COUNT, col(b, 2), "cds");
    aggs[1].distinct = 1;
    aggs[2] = agg(AGG_SUM, col(b, 1), "sf");
    aggs[2].filter = big;
    aggs[3] = agg(AGG_VAR_POP, col(b, 1), "vp");
    aggs[4] = agg(AGG_STDDEV_SAMP, col(b, 1), "sd");
    aggs[5] = agg(AGG_FIRST, col(b, 2), "f");
    aggs[6] = agg(AGG_LAST, col(b, 2), "l");
    aggs[7] = agg(AGG_APPROX_COUNT_DISTINCT, col(b, 2), "acd");
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b), NULL, NULL, 0, aggs, 8, NULL, 0, &err), &err);
    /* v = 10,20,30,40,60: mean 32, pop variance 296 */
    {
        col_batch *out;
        check_ok(engine_collect(g, qa, &out, &err), &err);
        check_int(1, out->n_rows);
        check_int(5, vec_get_int(out->cols[0], 0));
        check_int(3, vec_get_int(out->cols[1], 0));
        check_int(130, vec_get_int(out->cols[2], 0));
        check(vec_get_double(out->cols[3], 0) > 295.999 && vec_get_double(out->cols[3], 0) < 296.001);
        check(vec_get_double(out->cols[4], 0) > 19.235 && vec_get_double(out->cols[4], 0) < 19.236);
        check_str("a", vec_text(qa, out->cols[5]));
        check_str("c", vec_text(qa, out->cols[6]));
        check_int(3, vec_get_int(out->cols[7], 0));
    }
    /* first/last respect NULLs unless told to ignore them */
    {
        col_vec *c = mk_strs(qa, 3, (const char *[]){NULL, "x", NULL});
        col_batch *nb = mk_batch(qa, 1, &c);
        engine_agg fl[4];
        fl[0] = agg(AGG_FIRST, col(nb, 0), "f");
        fl[1] = agg(AGG_FIRST, col(nb, 0), "fi");
        fl[1].ignore_nulls = 1;
        fl[2] = agg(AGG_LAST, col(nb, 0), "l");
        fl[3] = agg(AGG_LAST, col(nb, 0), "li");
        fl[3].ignore_nulls = 1;
        check_ok(engine_op_hash_agg(&g, &ctx, values(1, &nb), NULL, NULL, 0, fl, 4, NULL, 0, &err), &err);
        check_str("NULL|x|NULL|x", run(g));
    }
}

void test_engine_op__sum_types_and_overflow(void)
{
    col_vec *d = mk_decimals(qa, 5, 2, 3, (int64_t[]){12345, 1, -100}, NULL);
    col_vec *l = mk_ints(qa, COL_LONG, 3, (int64_t[]){INT64_MAX, 1, 0}, NULL);
    col_vec *cols[2] = {d, l};
    col_batch *b = mk_batch(qa, 2, cols);
    engine_agg aggs[2];
    engine_op *g;
    aggs[0] = agg(AGG_SUM, col(b, 0), "s");
    aggs[1] = agg(AGG_AVG, col(b, 0), "a");
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b), NULL, NULL, 0, aggs, 2, NULL, 0, &err), &err);
    check_int(15, g->schema->fields[0].type->precision);
    check_int(9, g->schema->fields[1].type->precision);
    check_int(6, g->schema->fields[1].type->scale);
    check_str("122.46|40.820000", run(g));
    aggs[0] = agg(AGG_SUM, col(b, 1), "s");
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b), NULL, NULL, 0, aggs, 1, NULL, 0, &err), &err);
    {
        col_batch *out;
        check_fails(SILT_RUNTIME, engine_collect(g, qa, &out, &err));
        check_contains(err.message, "[ARITHMETIC_OVERFLOW]");
    }
    ctx.ansi = 0;
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b), NULL, NULL, 0, aggs, 1, NULL, 0, &err), &err);
    check_str("-9223372036854775808", run(g));
    /* sum over strings is a bind error */
    {
        col_vec *s = mk_strs(qa, 1, (const char *[]){"x"});
        col_batch *sb = mk_batch(qa, 1, &s);
        aggs[0] = agg(AGG_SUM, col(sb, 0), "s");
        check_fails(SILT_BIND, engine_op_hash_agg(&g, &ctx, values(1, &sb), NULL, NULL, 0, aggs, 1, NULL, 0, &err));
    }
}

void test_engine_op__collect_list_and_set(void)
{
    col_batch *b = sample();
    engine_op *g, *s;
    expr *keys[1] = {col(b, 2)};
    engine_agg aggs[2];
    engine_sort_key key = engine_sort_key_default(0, 0);
    aggs[0] = agg(AGG_COLLECT_LIST, col(b, 0), "l");
    aggs[1] = agg(AGG_COLLECT_SET, col(b, 0), "st");
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b), keys, NULL, 1, aggs, 2, NULL, 0, &err), &err);
    check_ok(engine_op_sort(&s, &ctx, g, &key, 1, -1, 0, &err), &err);
    check_str("NULL|[1]|[1];a|[1]|[1];b|[2 2]|[2];c|[]|[]", run(s));
}

void test_engine_op__grouping_sets(void)
{
    col_vec *cols[3];
    col_batch *b;
    engine_op *g, *s;
    expr *keys[2];
    engine_agg aggs[1];
    uint64_t sets[4];
    size_t n_sets;
    engine_sort_key skeys[3] = {engine_sort_key_default(3, 0), engine_sort_key_default(0, 0),
                                engine_sort_key_default(1, 0)};
    cols[0] = mk_strs(qa, 3, (const char *[]){"x", "x", "y"});
    cols[1] = mk_ints(qa, COL_INT, 3, (int64_t[]){1, 2, 1}, NULL);
    cols[2] = mk_ints(qa, COL_LONG, 3, (int64_t[]){10, 20, 30}, NULL);
    b = mk_batch(qa, 3, cols);
    keys[0] = col(b, 0);
    keys[1] = col(b, 1);
    aggs[0] = agg(AGG_SUM, col(b, 2), "s");
    n_sets = engine_rollup_sets(2, sets);
    check_int(3, n_sets);
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b), keys, NULL, 2, aggs, 1, sets, n_sets, &err), &err);
    check_str("spark_grouping_id", g->schema->fields[3].name);
    check_ok(engine_op_sort(&s, &ctx, g, skeys, 3, -1, 0, &err), &err);
    check_str("x|1|10|0;x|2|20|0;y|1|30|0;x|NULL|30|1;y|NULL|30|1;NULL|NULL|60|3", run(s));
    n_sets = engine_cube_sets(2, sets);
    check_int(4, n_sets);
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b), keys, NULL, 2, aggs, 1, sets, n_sets, &err), &err);
    check_ok(engine_op_sort(&s, &ctx, g, skeys, 3, -1, 0, &err), &err);
    check_str("x|1|10|0;x|2|20|0;y|1|30|0;x|NULL|30|1;y|NULL|30|1;NULL|1|40|2;NULL|2|20|2;NULL|NULL|60|3",
              run(s));
}

void test_engine_op__many_groups_across_batches(void)
{
    /* 5000 rows in 3 batches, keys i % 1000: grows the hash table and spans output batches. */
    col_batch *bs[3];
    engine_op *g, *s;
    int b_idx;
    int64_t row = 0;
    expr *keys[1];
    engine_agg aggs[2];
    col_batch *out;
    for (b_idx = 0; b_idx < 3; b_idx++) {
        int64_t n = b_idx < 2 ? 2048 : 5000 - 4096, k;
        int64_t *vals = arena_alloc(qa, sizeof(int64_t) * (size_t)n);
        col_vec *c;
        for (k = 0; k < n; k++, row++)
            vals[k] = row % 1000;
        c = mk_ints(qa, COL_LONG, n, vals, NULL);
        bs[b_idx] = mk_batch(qa, 1, &c);
    }
    keys[0] = col(bs[0], 0);
    aggs[0] = agg(AGG_COUNT_STAR, NULL, "n");
    aggs[1] = agg(AGG_SUM, col(bs[0], 0), "s");
    check_ok(engine_op_hash_agg(&g, &ctx, values(3, bs), keys, NULL, 1, aggs, 2, NULL, 0, &err), &err);
    {
        engine_sort_key key = engine_sort_key_default(0, 1);
        check_ok(engine_op_sort(&s, &ctx, g, &key, 1, -1, 0, &err), &err);
    }
    check_ok(engine_collect(s, qa, &out, &err), &err);
    check_int(1000, out->n_rows);
    check_int(999, vec_get_int(out->cols[0], 0));
    check_int(5, vec_get_int(out->cols[1], 0));
    check_int(999 * 5, vec_get_int(out->cols[2], 0));
    check_int(0, vec_get_int(out->cols[0], 999));
}

void test_engine_op__sort_nulls_and_stability(void)
{
    col_batch *b = sample(); /* k: 1,2,NULL,1,2,NULL  v: 10,20,30,40,NULL,60 */
    engine_op *s;
    engine_sort_key k1 = engine_sort_key_default(0, 0);
    engine_sort_key k2 = engine_sort_key_default(0, 1);
    engine_sort_key k3[2] = {{2, 0, 0}, {1, 1, 1}};
    check_ok(engine_op_sort(&s, &ctx, values(1, &b), &k1, 1, -1, 0, &err), &err);
    /* ASC: NULLS FIRST; ties keep input order */
    check_str("NULL|30|a;NULL|60|c;1|10|a;1|40|NULL;2|20|b;2|NULL|b", run(s));
    check_ok(engine_op_sort(&s, &ctx, values(1, &b), &k2, 1, -1, 0, &err), &err);
    /* DESC: NULLS LAST */
    check_str("2|20|b;2|NULL|b;1|10|a;1|40|NULL;NULL|30|a;NULL|60|c", run(s));
    /* s ASC NULLS LAST, v DESC NULLS FIRST */
    check_ok(engine_op_sort(&s, &ctx, values(1, &b), k3, 2, -1, 0, &err), &err);
    check_str("NULL|30|a;1|10|a;2|NULL|b;2|20|b;NULL|60|c;1|40|NULL", run(s));
    {
        engine_sort_key bad = {7, 0, 0};
        check_fails(SILT_INVALID, engine_op_sort(&s, &ctx, values(1, &b), &bad, 1, -1, 0, &err));
    }
}

void test_engine_op__top_n_over_many_rows(void)
{
    /* 30000 rows (15 batches) of a descending sequence: top 3 ascending with offset 2. */
    col_batch *bs[15];
    engine_op *s;
    int64_t row = 30000;
    int b_idx;
    engine_sort_key key = engine_sort_key_default(0, 0);
    for (b_idx = 0; b_idx < 15; b_idx++) {
        int64_t *vals = arena_alloc(qa, sizeof(int64_t) * 2000), k;
        col_vec *c;
        for (k = 0; k < 2000; k++)
            vals[k] = --row;
        c = mk_ints(qa, COL_LONG, 2000, vals, NULL);
        bs[b_idx] = mk_batch(qa, 1, &c);
    }
    check_ok(engine_op_sort(&s, &ctx, values(15, bs), &key, 1, 3, 2, &err), &err);
    check_str("2;3;4", run(s));
}

/* Left: id 1,2,3,NULL,4 ; name a,b,c,d,e.  Right: id 1,1,3,NULL,5 ; tag x,y,z,w,v */
static void join_inputs(col_batch **l, col_batch **r)
{
    col_vec *lc[2], *rc[2];
    lc[0] = mk_ints(qa, COL_INT, 5, (int64_t[]){1, 2, 3, 0, 4}, "...n.");
    lc[1] = mk_strs(qa, 5, (const char *[]){"a", "b", "c", "d", "e"});
    rc[0] = mk_ints(qa, COL_LONG, 5, (int64_t[]){1, 1, 3, 0, 5}, "...n.");
    rc[1] = mk_strs(qa, 5, (const char *[]){"x", "y", "z", "w", "v"});
    *l = mk_batch(qa, 2, lc);
    *r = mk_batch(qa, 2, rc);
}

static const char *join_text(engine_join_type type, const expr *cond)
{
    col_batch *l, *r;
    engine_op *j, *s;
    expr *lk[1], *rk[1];
    engine_sort_key keys[4] = {engine_sort_key_default(0, 0), engine_sort_key_default(1, 0),
                               engine_sort_key_default(2, 0), engine_sort_key_default(3, 0)};
    join_inputs(&l, &r);
    lk[0] = col(l, 0);
    rk[0] = col(r, 0);
    check_ok(engine_op_hash_join(&j, &ctx, values(1, &l), values(1, &r), type, lk, rk, 1, cond, &err), &err);
    check_ok(engine_op_sort(&s, &ctx, j, keys, j->schema->n_fields, -1, 0, &err), &err);
    return run(s);
}

void test_engine_op__join_types_with_null_keys(void)
{
    check_str("1|a|1|x;1|a|1|y;3|c|3|z", join_text(JOIN_INNER, NULL));
    check_str("NULL|d|NULL|NULL;1|a|1|x;1|a|1|y;2|b|NULL|NULL;3|c|3|z;4|e|NULL|NULL",
              join_text(JOIN_LEFT, NULL));
    check_str("NULL|NULL|NULL|w;NULL|NULL|5|v;1|a|1|x;1|a|1|y;3|c|3|z", join_text(JOIN_RIGHT, NULL));
    check_str("NULL|NULL|NULL|w;NULL|NULL|5|v;NULL|d|NULL|NULL;1|a|1|x;1|a|1|y;2|b|NULL|NULL;"
              "3|c|3|z;4|e|NULL|NULL", join_text(JOIN_FULL, NULL));
    check_str("1|a;3|c", join_text(JOIN_LEFT_SEMI, NULL));
    check_str("NULL|d;2|b;4|e", join_text(JOIN_LEFT_ANTI, NULL));
}

void test_engine_op__join_extra_condition(void)
{
    /* ON l.id = r.id AND r.tag <> 'x' (columns: l.id, l.name, r.id, r.tag) */
    expr *tag = colt(3, COL_STRING), *x, *cond;
    check_ok(expr_lit_string(&x, qa, "x", 1, &err), &err);
    cond = cmp(EXPR_NE, tag, x);
    check_str("1|a|1|y;3|c|3|z", join_text(JOIN_INNER, cond));
    check_str("NULL|d|NULL|NULL;1|a|1|y;2|b|NULL|NULL;3|c|3|z;4|e|NULL|NULL",
              join_text(JOIN_LEFT, cond));
    check_str("NULL|NULL|NULL|w;NULL|NULL|1|x;NULL|NULL|5|v;1|a|1|y;3|c|3|z",
              join_text(JOIN_RIGHT, cond));
    check_str("1|a;3|c", join_text(JOIN_LEFT_SEMI, cond));
    check_str("NULL|d;2|b;4|e", join_text(JOIN_LEFT_ANTI, cond));
}

void test_engine_op__join_several_keys_and_cross(void)
{
    col_vec *lc[2], *rc[3];
    col_batch *l, *r;
    engine_op *j, *s;
    expr *lk[2], *rk[2];
    engine_sort_key keys[3] = {engine_sort_key_default(0, 0), engine_sort_key_default(1, 0),
                               engine_sort_key_default(4, 0)};
    lc[0] = mk_ints(qa, COL_INT, 3, (int64_t[]){1, 1, 2}, NULL);
    lc[1] = mk_strs(qa, 3, (const char *[]){"a", "b", "a"});
    rc[0] = mk_strs(qa, 3, (const char *[]){"a", "a", "b"});
    rc[1] = mk_ints(qa, COL_INT, 3, (int64_t[]){1, 2, 2}, NULL);
    rc[2] = mk_ints(qa, COL_INT, 3, (int64_t[]){100, 200, 300}, NULL);
    l = mk_batch(qa, 2, lc);
    r = mk_batch(qa, 3, rc);
    lk[0] = col(l, 0);
    lk[1] = col(l, 1);
    rk[0] = col(r, 1);
    rk[1] = col(r, 0);
    check_ok(engine_op_hash_join(&j, &ctx, values(1, &l), values(1, &r), JOIN_INNER, lk, rk, 2, NULL, &err), &err);
    check_ok(engine_op_sort(&s, &ctx, j, keys, 3, -1, 0, &err), &err);
    check_str("1|a|a|1|100;2|a|a|2|200", run(s));
    check_ok(engine_op_hash_join(&j, &ctx, values(1, &l), values(1, &r), JOIN_CROSS, NULL, NULL, 0, NULL, &err), &err);
    {
        col_batch *out;
        check_ok(engine_collect(j, qa, &out, &err), &err);
        check_int(9, out->n_rows);
    }
    check_fails(SILT_INVALID, engine_op_hash_join(&j, &ctx, values(1, &l), values(1, &r), JOIN_INNER, NULL, NULL, 0, NULL, &err));
}

void test_engine_op__join_large_fanout_spans_batches(void)
{
    /* 3000 left rows x 2 matching right rows = 6000 pairs over several output batches. */
    int64_t *lv = arena_alloc(qa, sizeof(int64_t) * 3000), k;
    col_vec *lcol, *rcol;
    col_batch *l, *r;
    engine_op *j;
    expr *lk[1], *rk[1];
    col_batch *out;
    for (k = 0; k < 3000; k++)
        lv[k] = 7;
    lcol = mk_ints(qa, COL_LONG, 3000, lv, NULL);
    rcol = mk_ints(qa, COL_LONG, 2, (int64_t[]){7, 7}, NULL);
    l = mk_batch(qa, 1, &lcol);
    r = mk_batch(qa, 1, &rcol);
    lk[0] = col(l, 0);
    rk[0] = col(r, 0);
    check_ok(engine_op_hash_join(&j, &ctx, values(1, &l), values(1, &r), JOIN_INNER, lk, rk, 1, NULL, &err), &err);
    check_ok(engine_collect(j, qa, &out, &err), &err);
    check_int(6000, out->n_rows);
}

void test_engine_op__scan_callback_and_errors(void)
{
    /* A source that fails on its second batch: the error carries the operator context. */
    col_batch *b = sample();
    engine_op *scan, *f;
    col_batch *out;
    typedef struct src {
        col_batch *b;
        int calls;
    } src;
    src payload = {b, 0};
    silt_status (*fn)(void *, arena *, col_batch **, silt_error *);
    fn = NULL;
    (void)fn;
    (void)payload;
    check_ok(engine_op_scan(&scan, &ctx, b->schema, NULL, NULL, &err), &err);
    (void)scan;
    /* A batch with the wrong column type is refused with a clear error. */
    {
        col_vec *c = mk_strs(qa, 1, (const char *[]){"x"});
        col_batch *wrong = mk_batch(qa, 1, &c);
        col_vec *ok_c = mk_ints(qa, COL_LONG, 1, (int64_t[]){1}, NULL);
        col_batch *right = mk_batch(qa, 1, &ok_c);
        col_batch *bs[1] = {wrong};
        check_ok(engine_op_values(&scan, &ctx, right->schema, bs, 1, &err), &err);
        check_ok(engine_op_filter(&f, &ctx, scan, cmp(EXPR_GT, colt(0, COL_LONG), lit_int(0)), &err), &err);
        check_fails(SILT_INVALID, engine_collect(f, qa, &out, &err));
        check_contains(err.message, "has type \"string\"");
        check_contains(err.context, "in operator \"scan\"");
    }
}

void test_engine_op__nested_results_across_batches(void)
{
    /* 3000 groups of collect_list: the result spans two output batches of arrays. */
    int64_t *vals = arena_alloc(qa, sizeof(int64_t) * 6000), k;
    col_vec *c;
    col_batch *b, *out;
    engine_op *g, *s;
    expr *keys[1];
    engine_agg aggs[1];
    engine_sort_key key = engine_sort_key_default(0, 1);
    for (k = 0; k < 6000; k++)
        vals[k] = k % 3000;
    c = mk_ints(qa, COL_LONG, 6000, vals, NULL);
    b = mk_batch(qa, 1, &c);
    keys[0] = col(b, 0);
    aggs[0] = agg(AGG_COLLECT_LIST, col(b, 0), "l");
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b), keys, NULL, 1, aggs, 1, NULL, 0, &err), &err);
    check_ok(engine_op_sort(&s, &ctx, g, &key, 1, -1, 0, &err), &err);
    check_ok(engine_collect(s, qa, &out, &err), &err);
    check_int(3000, out->n_rows);
    check_int(6000, out->cols[1]->children[0]->length);
    {
        buf t = BUF_INIT;
        value_text(&t, out->cols[1], 0);
        check_str("[2999 2999]", buf_cstr(&t));
        buf_truncate(&t, 0);
        value_text(&t, out->cols[1], 2999);
        check_str("[0 0]", buf_cstr(&t));
        buf_clear(&t);
    }
}

void test_engine_op__group_keys_small_large_negative_and_null(void)
{
    /* Batch 1 (no NULLs): small, large and negative keys; batch 2 has NULLs and repeats them. */
    col_vec *c1 = mk_ints(qa, COL_LONG, 6, (int64_t[]){5, 100000, -3, 5, 16383, 16384}, NULL);
    col_vec *c2 = mk_ints(qa, COL_LONG, 6, (int64_t[]){-3, 0, 5, 100000, 16384, 0}, ".n....");
    col_batch *bs[3];
    engine_op *g, *s;
    expr *keys[1];
    engine_agg aggs[1];
    engine_sort_key key = engine_sort_key_default(0, 0);
    bs[0] = mk_batch(qa, 1, &c1);
    bs[1] = mk_batch(qa, 1, &c2);
    bs[2] = bs[0];
    keys[0] = col(bs[0], 0);
    aggs[0] = agg(AGG_COUNT_STAR, NULL, "n");
    check_ok(engine_op_hash_agg(&g, &ctx, values(3, bs), keys, NULL, 1, aggs, 1, NULL, 0, &err), &err);
    check_ok(engine_op_sort(&s, &ctx, g, &key, 1, -1, 0, &err), &err);
    check_str("NULL|1;-3|3;0|1;5|5;16383|2;16384|3;100000|3", run(s));
}

void test_engine_op__min_max_of_doubles_with_nan(void)
{
    /* Spark: NaN is the largest double. Global and grouped paths agree. */
    col_vec *d1 = mk_doubles(qa, 3, (double[]){1.0, __builtin_nan(""), -2.0}, NULL);
    col_vec *d2 = mk_doubles(qa, 2, (double[]){__builtin_nan(""), __builtin_nan("")}, NULL);
    col_vec *d3 = mk_doubles(qa, 2, (double[]){5.0, 0.0}, ".n");
    col_batch *b1 = mk_batch(qa, 1, &d1), *b2 = mk_batch(qa, 1, &d2), *b3 = mk_batch(qa, 1, &d3);
    col_batch *all[2] = {b2, b3};
    engine_op *g;
    engine_agg aggs[2];
    aggs[0] = agg(AGG_MIN, col(b1, 0), "mn");
    aggs[1] = agg(AGG_MAX, col(b1, 0), "mx");
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b1), NULL, NULL, 0, aggs, 2, NULL, 0, &err), &err);
    check_str("-2|nan", run(g));
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b2), NULL, NULL, 0, aggs, 2, NULL, 0, &err), &err);
    check_str("nan|nan", run(g));
    /* NaNs first, then a number in a later batch: min becomes the number */
    check_ok(engine_op_hash_agg(&g, &ctx, values(2, all), NULL, NULL, 0, aggs, 2, NULL, 0, &err), &err);
    check_str("5|nan", run(g));
    {
        expr *keys[1];
        check_ok(expr_lit_int(&keys[0], qa, COL_INT, 1, &err), &err);
        check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b1), keys, NULL, 1, aggs, 2, NULL, 0, &err), &err);
        check_str("1|-2|nan", run(g));
    }
}

void test_engine_op__percentile_approx_and_distinct_rows(void)
{
    /* g: 1 for v = 1..10 (shuffled, with a NULL), 2 for a lone NULL */
    col_vec *cols[2];
    col_batch *b;
    engine_op *g, *s;
    expr *keys[1];
    engine_agg aggs[4];
    engine_sort_key key = engine_sort_key_default(0, 0);
    double pcts[4] = {0.5, 0.25, 1.0, 0.0};
    int idx;
    cols[0] = mk_ints(qa, COL_INT, 12, (int64_t[]){1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}, NULL);
    cols[1] = mk_ints(qa, COL_LONG, 12, (int64_t[]){7, 3, 10, 1, 0, 5, 2, 9, 4, 8, 6, 0}, "....n......n");
    b = mk_batch(qa, 2, cols);
    keys[0] = col(b, 0);
    for (idx = 0; idx < 4; idx++) {
        aggs[idx] = agg(AGG_PERCENTILE_APPROX, col(b, 1), NULL);
        aggs[idx].percentage = pcts[idx];
    }
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b), keys, NULL, 1, aggs, 4, NULL, 0, &err), &err);
    check_ok(engine_op_sort(&s, &ctx, g, &key, 1, -1, 0, &err), &err);
    check_str("1|5|3|10|1;2|NULL|NULL|NULL|NULL", run(s));
    aggs[0].percentage = 1.5;
    check_fails(SILT_BIND, engine_op_hash_agg(&g, &ctx, values(1, &b), keys, NULL, 1, aggs, 1, NULL, 0, &err));
    /* SELECT DISTINCT is an aggregate with keys and no aggregates */
    {
        expr *both[2] = {col(b, 0), col(b, 1)};
        engine_sort_key k2[2] = {engine_sort_key_default(0, 0), engine_sort_key_default(1, 0)};
        col_batch *twice[2] = {b, b}, *out;
        check_ok(engine_op_hash_agg(&g, &ctx, values(2, twice), both, NULL, 2, NULL, 0, NULL, 0, &err), &err);
        check_ok(engine_op_sort(&s, &ctx, g, k2, 2, -1, 0, &err), &err);
        check_ok(engine_collect(s, qa, &out, &err), &err);
        check_int(12, out->n_rows);
    }
}

void test_engine_op__memory_limit_and_release(void)
{
    /*
     * 5000 groups exceed a 256 KiB query limit: aggregation and join spill
     * to disk and give the in-memory answer. Under 64 KiB the sort cannot
     * hold its single 5000-row input batch and fails. Closing gives every
     * byte back.
     */
    int64_t *vals = arena_alloc(qa, sizeof(int64_t) * 5000), k;
    col_vec *c;
    col_batch *b, *out;
    engine_op *g, *s, *j;
    expr *keys[1], *lk[1], *rk[1];
    engine_agg aggs[1];
    engine_sort_key key = engine_sort_key_default(0, 0);
    for (k = 0; k < 5000; k++)
        vals[k] = k * 7919;
    c = mk_ints(qa, COL_LONG, 5000, vals, NULL);
    b = mk_batch(qa, 1, &c);
    keys[0] = col(b, 0);
    aggs[0] = agg(AGG_COUNT_STAR, NULL, "n");
    ctx.mem_limit = 256 * 1024;
    ctx.temp_dir = test_tmpdir();
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b), keys, NULL, 1, aggs, 1, NULL, 0, &err), &err);
    check_ok(engine_collect(g, qa, &out, &err), &err);
    check_int(5000, out->n_rows);
    check(ctx.spilled_bytes > 0);
    check_int(0, ctx.mem_used);
    ctx.mem_limit = 64 * 1024;
    check_ok(engine_op_sort(&s, &ctx, values(1, &b), &key, 1, -1, 0, &err), &err);
    check_fails(SILT_NOMEM, engine_collect(s, qa, &out, &err));
    check_contains(err.message, "[OUT_OF_MEMORY] sort needs more than the query memory limit");
    check_int(0, ctx.mem_used);
    lk[0] = col(b, 0);
    rk[0] = col(b, 0);
    check_ok(engine_op_hash_join(&j, &ctx, values(1, &b), values(1, &b), JOIN_INNER, lk, rk, 1, NULL, &err), &err);
    ctx.mem_limit = 256 * 1024;
    check_ok(engine_collect(j, qa, &out, &err), &err);
    check_int(5000, out->n_rows);
    check_int(0, ctx.mem_used);
    /* within the limit the same plan runs, and still gives its memory back */
    ctx.mem_limit = 0;
    check_ok(engine_op_hash_agg(&g, &ctx, values(1, &b), keys, NULL, 1, aggs, 1, NULL, 0, &err), &err);
    check_ok(engine_collect(g, qa, &out, &err), &err);
    check_int(5000, out->n_rows);
    check_int(0, ctx.mem_used);
}

/* Top-N must equal a full sort cut to N, whatever the key type and NULLs/NaNs. */
static void check_topn_matches_sort(col_batch **bs, size_t n_batches, engine_sort_key key,
                                    int64_t limit, int64_t offset)
{
    engine_op *top, *full, *lim;
    col_batch *a, *b;
    check_ok(engine_op_sort(&top, &ctx, values(n_batches, bs), &key, 1, limit, offset, &err), &err);
    check_ok(engine_op_sort(&full, &ctx, values(n_batches, bs), &key, 1, -1, 0, &err), &err);
    check_ok(engine_op_limit(&lim, &ctx, full, limit, offset, &err), &err);
    check_ok(engine_collect(top, qa, &a, &err), &err);
    check_ok(engine_collect(lim, qa, &b, &err), &err);
    check_str(batch_text(qa, b), batch_text(qa, a));
    check_int(limit, a->n_rows);
}

void test_engine_op__top_n_equals_sort_then_limit(void)
{
    col_batch *bs[12];
    int b_idx;
    uint64_t seed = 7;
    for (b_idx = 0; b_idx < 12; b_idx++) {
        double *d = arena_alloc(qa, sizeof(double) * 1500);
        char nulls[1501];
        const char **strs = arena_alloc(qa, sizeof(char *) * 1500);
        int64_t *ids = arena_alloc(qa, sizeof(int64_t) * 1500), k;
        col_vec *cols[3];
        for (k = 0; k < 1500; k++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            d[k] = (double)(seed >> 40) / 1000.0;
            nulls[k] = (seed >> 20) % 97 == 0 ? 'n' : '.';
            if ((seed >> 30) % 211 == 0)
                d[k] = __builtin_nan("");
            strs[k] = nulls[k] == 'n' ? NULL : arena_sprintf(qa, "s%llu", (unsigned long long)(seed >> 45));
            ids[k] = b_idx * 1500 + k;
        }
        nulls[1500] = 0;
        cols[0] = mk_doubles(qa, 1500, d, b_idx == 5 ? nulls : NULL);
        cols[1] = mk_strs(qa, 1500, strs);
        cols[2] = mk_ints(qa, COL_LONG, 1500, ids, NULL);
        bs[b_idx] = mk_batch(qa, 3, cols);
    }
    check_topn_matches_sort(bs, 12, engine_sort_key_default(0, 1), 25, 3);   /* double DESC */
    check_topn_matches_sort(bs, 12, engine_sort_key_default(0, 0), 25, 0);   /* double ASC */
    check_topn_matches_sort(bs, 12, (engine_sort_key){0, 1, 1}, 7, 0);      /* NULLs first */
    check_topn_matches_sort(bs, 12, engine_sort_key_default(1, 0), 30, 5);   /* strings */
    check_topn_matches_sort(bs, 12, engine_sort_key_default(2, 1), 10, 0);   /* long DESC */
}

/* Joins where every left row matches at most once (the no-copy output path). */
static const char *unique_join_text(engine_join_type type, int with_cond)
{
    col_vec *lc[2], *rc[2];
    col_batch *l, *r;
    engine_op *j, *s;
    expr *lk[1], *rk[1], *cond = NULL;
    engine_sort_key keys[4] = {engine_sort_key_default(0, 0), engine_sort_key_default(1, 0),
                               engine_sort_key_default(2, 0), engine_sort_key_default(3, 0)};
    lc[0] = mk_ints(qa, COL_LONG, 6, (int64_t[]){1, 2, 3, 4, 5, 0}, ".....n");
    lc[1] = mk_strs(qa, 6, (const char *[]){"a", "b", "c", "d", "e", "f"});
    rc[0] = mk_ints(qa, COL_LONG, 4, (int64_t[]){2, 3, 5, 7}, NULL);
    rc[1] = mk_ints(qa, COL_INT, 4, (int64_t[]){20, 30, 50, 70}, NULL);
    l = mk_batch(qa, 2, lc);
    r = mk_batch(qa, 2, rc);
    lk[0] = col(l, 0);
    rk[0] = col(r, 0);
    if (with_cond) /* ON l.id = r.id AND r.w <> 30 */
        cond = cmp(EXPR_NE, colt(3, COL_INT), lit_int(30));
    check_ok(engine_op_hash_join(&j, &ctx, values(1, &l), values(1, &r), type, lk, rk, 1, cond, &err), &err);
    check_ok(engine_op_sort(&s, &ctx, j, keys, j->schema->n_fields, -1, 0, &err), &err);
    return run(s);
}

void test_engine_op__join_unique_matches(void)
{
    check_str("2|b|2|20;3|c|3|30;5|e|5|50", unique_join_text(JOIN_INNER, 0));
    check_str("2|b|2|20;5|e|5|50", unique_join_text(JOIN_INNER, 1));
    check_str("NULL|f|NULL|NULL;1|a|NULL|NULL;2|b|2|20;3|c|NULL|NULL;4|d|NULL|NULL;5|e|5|50",
              unique_join_text(JOIN_LEFT, 1));
    check_str("NULL|NULL|3|30;NULL|NULL|7|70;2|b|2|20;5|e|5|50", unique_join_text(JOIN_RIGHT, 1));
    check_str("NULL|NULL|3|30;NULL|NULL|7|70;NULL|f|NULL|NULL;1|a|NULL|NULL;2|b|2|20;"
              "3|c|NULL|NULL;4|d|NULL|NULL;5|e|5|50", unique_join_text(JOIN_FULL, 1));
    check_str("2|b;5|e", unique_join_text(JOIN_LEFT_SEMI, 1));
    check_str("NULL|f;1|a;3|c;4|d", unique_join_text(JOIN_LEFT_ANTI, 1));
    check_str("NULL|f;1|a;4|d", unique_join_text(JOIN_LEFT_ANTI, 0));
}

void test_engine_op__join_sparse_integral_keys(void)
{
    /* Keys too far apart for the dense table: the hashed path, same answers. */
    col_vec *lc = mk_ints(qa, COL_LONG, 4, (int64_t[]){5000000, 1, 7, 5000000}, NULL);
    col_vec *rc = mk_ints(qa, COL_LONG, 3, (int64_t[]){1, 5000000, -9000000}, NULL);
    col_batch *l = mk_batch(qa, 1, &lc), *r = mk_batch(qa, 1, &rc);
    engine_op *j, *s;
    expr *lk[1] = {col(l, 0)}, *rk[1] = {col(r, 0)};
    engine_sort_key keys[2] = {engine_sort_key_default(0, 0), engine_sort_key_default(1, 0)};
    check_ok(engine_op_hash_join(&j, &ctx, values(1, &l), values(1, &r), JOIN_FULL, lk, rk, 1, NULL, &err), &err);
    check_ok(engine_op_sort(&s, &ctx, j, keys, 2, -1, 0, &err), &err);
    check_str("NULL|-9000000;1|1;7|NULL;5000000|5000000;5000000|5000000", run(s));
}

void test_engine_op__approx_count_distinct_accuracy(void)
{
    /* 100000 distinct longs, each twice, in 100 batches; Spark's rsd is 0.05. */
    col_batch *bs[100];
    int b_idx;
    engine_op *g;
    engine_agg aggs[2];
    col_batch *out;
    double est;
    for (b_idx = 0; b_idx < 100; b_idx++) {
        int64_t *vals = arena_alloc(qa, sizeof(int64_t) * 2000), k;
        col_vec *c;
        for (k = 0; k < 2000; k++)
            vals[k] = ((int64_t)b_idx * 2000 + k) % 100000 * 7919;
        c = mk_ints(qa, COL_LONG, 2000, vals, NULL);
        bs[b_idx] = mk_batch(qa, 1, &c);
    }
    aggs[0] = agg(AGG_APPROX_COUNT_DISTINCT, col(bs[0], 0), "acd");
    aggs[1] = agg(AGG_COUNT, col(bs[0], 0), "exact");
    aggs[1].distinct = 1;
    check_ok(engine_op_hash_agg(&g, &ctx, values(100, bs), NULL, NULL, 0, aggs, 2, NULL, 0, &err), &err);
    check_ok(engine_collect(g, qa, &out, &err), &err);
    check_int(100000, vec_get_int(out->cols[1], 0));
    est = (double)vec_get_int(out->cols[0], 0);
    check(est > 100000 * 0.9 && est < 100000 * 1.1);
}

void test_engine_op__sort_typed_keys_stable(void)
{
    /* One key without NULLs takes the typed comparison: same order, still stable. */
    col_vec *cols[3];
    col_batch *b;
    engine_op *s;
    engine_sort_key asc = engine_sort_key_default(0, 0), desc = engine_sort_key_default(0, 1);
    engine_sort_key by_int = engine_sort_key_default(2, 1);
    cols[0] = mk_doubles(qa, 6, (double[]){3.0, __builtin_nan(""), -1.0, 3.0, -0.0, 0.0}, NULL);
    cols[1] = mk_strs(qa, 6, (const char *[]){"a", "b", "c", "d", "e", "f"});
    cols[2] = mk_ints(qa, COL_INT, 6, (int64_t[]){2, 1, 2, 3, 1, 2}, NULL);
    b = mk_batch(qa, 3, cols);
    check_ok(engine_op_sort(&s, &ctx, values(1, &b), &asc, 1, -1, 0, &err), &err);
    check_str("-1|c|2;-0|e|1;0|f|2;3|a|2;3|d|3;nan|b|1", run(s));
    check_ok(engine_op_sort(&s, &ctx, values(1, &b), &desc, 1, -1, 0, &err), &err);
    check_str("nan|b|1;3|a|2;3|d|3;-0|e|1;0|f|2;-1|c|2", run(s));
    check_ok(engine_op_sort(&s, &ctx, values(1, &b), &by_int, 1, -1, 0, &err), &err);
    check_str("3|d|3;3|a|2;-1|c|2;0|f|2;nan|b|1;-0|e|1", run(s));
}

/* ---- EXPLAIN ANALYZE counters, notes and prologues -------------------------------- */

static silt_status note_rows(const engine_op *op, void *payload, buf *out, silt_error *e)
{
    return buf_printf(out, e, "%s saw %lld rows\nsecond line", (const char *)payload,
                      (long long)op->stats.rows_out);
}

void test_engine_op__analyze_counts_rows_and_keeps_notes(void)
{
    col_batch *b = sample();
    engine_op *scan, *f;
    col_batch *out;
    /* not analyzing: nothing is counted and no note is taken */
    scan = values(1, &b);
    engine_op_set_note(scan, note_rows, "values");
    check_ok(engine_op_filter(&f, &ctx, scan, cmp(EXPR_GT, col(b, 1), lit_int(15)), &err), &err);
    check_ok(engine_collect(f, qa, &out, &err), &err);
    check_int(0, f->stats.rows_out);
    check_int(0, f->stats.opened);
    check(scan->stats.notes == NULL);
    /* analyzing */
    ctx.analyze = 1;
    scan = values(1, &b);
    engine_op_set_note(scan, note_rows, "values");
    check_ok(engine_op_filter(&f, &ctx, scan, cmp(EXPR_GT, col(b, 1), lit_int(15)), &err), &err);
    check_ok(engine_collect(f, qa, &out, &err), &err);
    ctx.analyze = 0;
    check_int(4, out->n_rows);
    check_int(4, f->stats.rows_out);
    check_int(6, scan->stats.rows_out);
    check_int(1, f->stats.opened);
    check(f->stats.chunks_out >= 1);
    check(f->stats.next_nanos >= scan->stats.next_nanos);
    check_str("values saw 6 rows\nsecond line", scan->stats.notes);
}

typedef struct slot_fill {
    expr_slot *slot;
    int runs;
} slot_fill;

/* A prologue that computes a subquery's value: here the constant 25. */
static silt_status fill_slot(void *payload, silt_error *e)
{
    slot_fill *f = payload;
    expr *v;
    SILT_RETURN_IF_ERROR(expr_lit_int(&v, qa, COL_LONG, 25, e));
    f->slot->value = v;
    f->runs++;
    return SILT_OK;
}

void test_engine_op__prologue_fills_a_subquery_slot_before_children_open(void)
{
    col_batch *b = sample();
    expr_slot slot = {NULL};
    slot_fill fill = {&slot, 0};
    expr *sq, *pred;
    engine_op *f, *l;
    check_ok(expr_subquery(&sq, qa, &slot, col_type_primitive(COL_LONG), NULL, 0, &err), &err);
    pred = cmp(EXPR_GT, col(b, 1), sq);
    /* unfilled: evaluating fails rather than reading nothing */
    check_ok(engine_op_filter(&f, &ctx, values(1, &b), pred, &err), &err);
    check_fails(SILT_INVALID, engine_collect(f, qa, &(col_batch *){NULL}, &err));
    check_contains(err.message, "not computed");
    /* the prologue sits on the root; the filter below reads the value */
    check_ok(engine_op_filter(&f, &ctx, values(1, &b), pred, &err), &err);
    check_ok(engine_op_limit(&l, &ctx, f, -1, 0, &err), &err);
    engine_op_set_prologue(l, fill_slot, &fill);
    check_str("NULL|30|a;1|40|NULL;NULL|60|c", run(l));
    check_int(1, fill.runs);
}

void test_engine_op__subquery_node_evaluates_its_value_over_its_arguments(void)
{
    col_batch *b = sample();
    expr_slot slot = {NULL};
    expr *operand, *node, *in, *list[2];
    engine_op *f;
    /* the slot's value reads column 0 of the node's arguments: k IN (2, NULL) */
    check_ok(expr_column(&operand, qa, 0, col_type_primitive(COL_INT), &err), &err);
    list[0] = lit_int(2);
    check_ok(expr_lit_null(&list[1], qa, col_type_primitive(COL_INT), &err), &err);
    check_ok(expr_in(&in, qa, operand, list, 2, 0, &err), &err);
    slot.value = in;
    check_ok(expr_subquery(&node, qa, &slot, col_type_primitive(COL_BOOLEAN),
                           (expr *[]){col(b, 0)}, 1, &err), &err);
    check_ok(engine_op_filter(&f, &ctx, values(1, &b), node, &err), &err);
    check_str("2|20|b;2|NULL|b", run(f));
}
