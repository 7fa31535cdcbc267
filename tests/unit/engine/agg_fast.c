/*
 * Unit tests of the aggregation table's fast paths (agg_int.h): groups by
 * dictionary code, the fixed-width DISTINCT set, merging DISTINCT
 * aggregates of partial tables (what parallel workers do), and several
 * keys hashed column by column.
 */
#include "engine/agg_int.h"
#include "engine/op_int.h"
#include "engine_test.h"

static arena *qa;
static engine_ctx ctx;
static silt_error err;

void test_engine_agg_fast__initialize(void)
{
    qa = arena_new(NULL, "query");
    engine_ctx_init(&ctx, qa);
    err_clear(&err);
}

void test_engine_agg_fast__cleanup(void) { arena_free(qa); }

/* A dictionary-encoded STRING vector: codes index dict; 'n' in nulls marks a NULL row. */
static col_vec *mk_dict(int64_t n, const int32_t *codes, const char *nulls, size_t n_dict,
                        const char *const *dict)
{
    col_vec *v = arena_calloc(qa, 1, sizeof(*v));
    int64_t k;
    v->type = col_type_primitive(COL_STRING);
    v->length = n;
    v->values = arena_memdup(qa, codes, sizeof(int32_t) * (size_t)n);
    v->dictionary = mk_strs(qa, (int64_t)n_dict, dict);
    if (nulls != NULL) {
        v->validity = arena_alloc(qa, (size_t)(n + 7) / 8);
        memset(v->validity, 0xff, (size_t)(n + 7) / 8);
        for (k = 0; k < n; k++)
            if (nulls[k] == 'n') {
                col_bit_clear(v->validity, k);
                v->null_count++;
            }
    }
    return v;
}

static void table_init(agg_table *t, arena *a, size_t n_keys, const col_type *key_type,
                       engine_agg *aggs, size_t n_aggs)
{
    const col_type **kt = arena_calloc(qa, 1, sizeof(col_type *));
    kt[0] = key_type;
    check_ok(engine_agg_table_init(t, &ctx, a, n_keys, kt, aggs, n_aggs, &err), &err);
}

/* Adds all rows of a batch: keys[0] (when n_keys) and the same argument for every aggregate but count(*). */
static void add(agg_table *t, size_t n_keys, col_vec *key, col_vec *arg, size_t n_aggs)
{
    col_vec *keys[1] = {key};
    col_vec *args[4] = {arg, arg, arg, arg};
    int64_t n = key != NULL ? key->length : arg->length;
    size_t idx;
    for (idx = 0; idx < n_aggs && idx < 4; idx++)
        if (t->aggs[idx].spec.kind == AGG_COUNT_STAR)
            args[idx] = NULL;
    check_ok(engine_agg_table_add(t, n, NULL, n, n_keys ? keys : NULL, args, NULL, qa, &err), &err);
}

/* The finished table as sorted "k|a|b" text. */
static const char *finish_sorted(agg_table *t, size_t n_cols)
{
    col_vec **cols = arena_calloc(qa, n_cols, sizeof(col_vec *));
    col_batch b;
    const char **names = arena_calloc(qa, n_cols, sizeof(char *));
    const col_type **types = arena_calloc(qa, n_cols, sizeof(col_type *));
    engine_op *v, *s;
    col_batch *out, *bp = &b;
    engine_sort_key key = engine_sort_key_default(0, 0);
    size_t idx;
    check_ok(engine_agg_table_finish(t, qa, cols, &err), &err);
    for (idx = 0; idx < n_cols; idx++) {
        names[idx] = arena_sprintf(qa, "c%zu", idx);
        types[idx] = cols[idx]->type;
    }
    memset(&b, 0, sizeof(b));
    b.n_cols = n_cols;
    b.n_rows = t->n_groups;
    b.cols = cols;
    check_ok(engine_make_schema(&b.schema, qa, names, types, n_cols, &err), &err);
    check_ok(engine_op_values(&v, &ctx, b.schema, &bp, 1, &err), &err);
    check_ok(engine_op_sort(&s, &ctx, v, &key, 1, -1, 0, &err), &err);
    check_ok(engine_collect(s, qa, &out, &err), &err);
    return batch_text(qa, out);
}

void test_engine_agg_fast__group_by_dictionary_codes(void)
{
    /*
     * Three batches: two dictionaries that differ (order and entries, one
     * entry unused) and one plain vector; a, b and NULL must each be one group.
     */
    static const char *const d1[] = {"b", "a", "unused", "c"};
    static const char *const d2[] = {"a", "z"};
    static const char *const plain[] = {"a", NULL, "b", "z"};
    static const int32_t c1[] = {0, 1, 1, 3, 0, 2};
    static const int32_t c2[] = {1, 0, 0, 1};
    engine_agg aggs[2];
    agg_table t;
    arena *ta = arena_new(NULL, "table");
    expr *x;
    check_ok(expr_column(&x, qa, 0, col_type_primitive(COL_STRING), &err), &err);
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT_STAR;
    aggs[1].kind = AGG_COUNT;
    aggs[1].arg = x;
    table_init(&t, ta, 1, col_type_primitive(COL_STRING), aggs, 2);
    /* row 5 (code 2, "unused") is NULL: its code must not make a group */
    {
        col_vec *k1 = mk_dict(6, c1, ".....n", 4, d1);
        add(&t, 1, k1, k1, 2);
    }
    {
        col_vec *k2 = mk_dict(4, c2, NULL, 2, d2);
        add(&t, 1, k2, k2, 2);
    }
    {
        col_vec *k3 = mk_strs(qa, 4, plain);
        add(&t, 1, k3, k3, 2);
    }
    check_int(5, t.n_groups);
    check_str("NULL|2|0;a|5|5;b|3|3;c|1|1;z|3|3", finish_sorted(&t, 3));
    engine_agg_table_clear(&t);
    arena_free(ta);
}

/* Adds the rows of sel (NULL: all n) with args per aggregate and no FILTER. */
static void add_sel(agg_table *t, col_vec *key, int64_t n, const int32_t *sel, int64_t n_sel,
                    col_vec **args)
{
    col_vec *keys[1] = {key};
    check_ok(engine_agg_table_add(t, n, sel, n_sel, keys, args, NULL, qa, &err), &err);
}

/*
 * The per-code path (count, sum and avg of doubles counted per dictionary
 * code): a selection that leaves out the only row of an entry (no group for
 * it), two dictionaries with different codes for one string, an odd number
 * of rows, a batch whose argument has NULLs (the per-row path) and a batch
 * with fewer rows than entries; groups keep their order of first appearance.
 */
void test_engine_agg_fast__group_by_codes_sums(void)
{
    static const char *const d1[] = {"b", "a", "c", "unused"};
    static const char *const d2[] = {"x", "a", "b"};
    static const int32_t c1[] = {1, 0, 2, 1, 0, 1, 0};
    static const double x1[] = {0.5, 1.0, 100.0, 0.25, 2.0, 4.0, 8.0};
    static const int32_t sel1[] = {0, 1, 3, 4, 5, 6}; /* row 2, the only "c", is out */
    static const int32_t c2[] = {2, 1, 1, 0, 2};
    static const double x2[] = {16.0, 32.0, 64.0, 128.0, 256.0};
    static const int32_t c3[] = {0, 1, 2, 1};
    static const double x3[] = {1024.0, 0, 2048.0, 512.0};
    static const int32_t c4[] = {2};
    static const double x4[] = {4096.0};
    engine_agg aggs[4];
    agg_table t;
    arena *ta = arena_new(NULL, "table");
    col_vec *args[4], **cols;
    expr *x;
    check_ok(expr_column(&x, qa, 1, col_type_primitive(COL_DOUBLE), &err), &err);
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT_STAR;
    aggs[1].kind = AGG_SUM;
    aggs[1].arg = x;
    aggs[2].kind = AGG_AVG;
    aggs[2].arg = x;
    aggs[3].kind = AGG_COUNT;
    aggs[3].arg = x;
    table_init(&t, ta, 1, col_type_primitive(COL_STRING), aggs, 4);
    args[0] = NULL;
    args[1] = args[2] = args[3] = mk_doubles(qa, 7, x1, NULL);
    add_sel(&t, mk_dict(7, c1, NULL, 4, d1), 7, sel1, 6, args);
    check_int(2, t.n_groups); /* "a" then "b": no group for "c" nor "unused" */
    args[1] = args[2] = args[3] = mk_doubles(qa, 5, x2, NULL);
    add_sel(&t, mk_dict(5, c2, NULL, 3, d2), 5, NULL, 5, args);
    args[1] = args[2] = args[3] = mk_doubles(qa, 4, x3, ".n..");
    add_sel(&t, mk_dict(4, c3, NULL, 3, d2), 4, NULL, 4, args);
    args[1] = args[2] = args[3] = mk_doubles(qa, 1, x4, NULL);
    add_sel(&t, mk_dict(1, c4, NULL, 3, d2), 1, NULL, 1, args);
    check_int(3, t.n_groups);
    cols = arena_calloc(qa, 5, sizeof(col_vec *));
    check_ok(engine_agg_table_finish(&t, qa, cols, &err), &err);
    {
        int32_t len;
        const char *p = col_vec_str(cols[0], 0, &len);
        check(len == 1 && p[0] == 'a');
        p = col_vec_str(cols[0], 2, &len);
        check(len == 1 && p[0] == 'x');
    }
    check_str("a|7|612.75|102.125|6;b|7|6427|918.143|7;x|2|1152|576|2",
              finish_sorted(&t, 5));
    engine_agg_table_clear(&t);
    arena_free(ta);
}

void test_engine_agg_fast__dictionary_code_out_of_range(void)
{
    static const char *const d[] = {"a"};
    static const int32_t c[] = {0, 7};
    engine_agg aggs[1];
    agg_table t;
    arena *ta = arena_new(NULL, "table");
    col_vec *k, *keys[1];
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT_STAR;
    table_init(&t, ta, 1, col_type_primitive(COL_STRING), aggs, 1);
    k = mk_dict(2, c, NULL, 1, d);
    keys[0] = k;
    check_fails(SILT_INVALID, engine_agg_table_add(&t, 2, NULL, 2, keys, NULL, NULL, qa, &err));
    check_contains(err.message, "dictionary code 7");
    engine_agg_table_clear(&t);
    arena_free(ta);
}

/*
 * count(DISTINCT x) and sum(DISTINCT x) over doubles in two partial tables,
 * merged: -0.0 and 0.0 are one value, NaN is one value, NULL is skipped
 * (Spark normalizes floats for grouping and DISTINCT).
 */
void test_engine_agg_fast__distinct_doubles_merge(void)
{
    static const double a[] = {1.0, -0.0, 0, 0, 2.0, 1.0};
    static const double b[] = {0.0, 0, 3.0, 1.0, 0, -0.0};
    engine_agg aggs[3];
    agg_table t1, t2;
    arena *a1 = arena_new(NULL, "t1"), *a2 = arena_new(NULL, "t2"), *scratch = arena_new(NULL, "s");
    expr *x;
    col_vec *va, *vb;
    double nan = __builtin_nan("");
    double av[6], bv[6];
    memcpy(av, a, sizeof(av));
    memcpy(bv, b, sizeof(bv));
    av[2] = nan;
    bv[1] = -nan;
    va = mk_doubles(qa, 6, av, "...n..");
    vb = mk_doubles(qa, 6, bv, "....n.");
    check_ok(expr_column(&x, qa, 0, col_type_primitive(COL_DOUBLE), &err), &err);
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT;
    aggs[0].arg = x;
    aggs[0].distinct = 1;
    aggs[1].kind = AGG_MAX;
    aggs[1].arg = x;
    aggs[1].distinct = 1;
    aggs[2].kind = AGG_COUNT;
    aggs[2].arg = x;
    table_init(&t1, a1, 0, NULL, aggs, 3);
    table_init(&t2, a2, 0, NULL, aggs, 3);
    add(&t1, 0, NULL, va, 3);
    add(&t2, 0, NULL, vb, 3);
    /* t1 alone: 1, 0, NaN, 2 */
    check_int(4, t1.aggs[0].dset_n);
    check_ok(engine_agg_table_merge(&t1, &t2, scratch, &err), &err);
    /* 1, 0, NaN, 2, 3; max is NaN (largest in Spark's order); count(x) counts all 10 */
    {
        col_vec *cols[3];
        check_ok(engine_agg_table_finish(&t1, qa, cols, &err), &err);
        check_int(5, vec_get_int(cols[0], 0));
        check(vec_get_double(cols[1], 0) != vec_get_double(cols[1], 0));
        check_int(10, vec_get_int(cols[2], 0));
    }
    engine_agg_table_clear(&t1);
    engine_agg_table_clear(&t2);
    arena_free(a1);
    arena_free(a2);
    arena_free(scratch);
}

/* Grouped DISTINCT merge: groups are matched by key, not by group id. */
void test_engine_agg_fast__distinct_grouped_merge(void)
{
    static const int64_t k1[] = {1, 1, 2, 2, 2};
    static const int64_t x1[] = {10, 10, 10, 20, 0};
    static const int64_t k2[] = {2, 3, 1, 2};
    static const int64_t x2[] = {20, 5, 11, 30};
    engine_agg aggs[2];
    agg_table t1, t2;
    arena *a1 = arena_new(NULL, "t1"), *a2 = arena_new(NULL, "t2"), *scratch = arena_new(NULL, "s");
    expr *x;
    col_vec *args[2], *keys[1];
    check_ok(expr_column(&x, qa, 1, col_type_primitive(COL_LONG), &err), &err);
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT;
    aggs[0].arg = x;
    aggs[0].distinct = 1;
    aggs[1].kind = AGG_SUM;
    aggs[1].arg = x;
    aggs[1].distinct = 1;
    table_init(&t1, a1, 1, col_type_primitive(COL_LONG), aggs, 2);
    table_init(&t2, a2, 1, col_type_primitive(COL_LONG), aggs, 2);
    keys[0] = mk_ints(qa, COL_LONG, 5, k1, NULL);
    args[0] = args[1] = mk_ints(qa, COL_LONG, 5, x1, "....n");
    check_ok(engine_agg_table_add(&t1, 5, NULL, 5, keys, args, NULL, qa, &err), &err);
    keys[0] = mk_ints(qa, COL_LONG, 4, k2, NULL);
    args[0] = args[1] = mk_ints(qa, COL_LONG, 4, x2, NULL);
    check_ok(engine_agg_table_add(&t2, 4, NULL, 4, keys, args, NULL, qa, &err), &err);
    check_ok(engine_agg_table_merge(&t1, &t2, scratch, &err), &err);
    /* 1: {10, 11}; 2: {10, 20, 30} (NULL skipped); 3: {5} */
    check_str("1|2|21;2|3|60;3|1|5", finish_sorted(&t1, 3));
    engine_agg_table_clear(&t1);
    engine_agg_table_clear(&t2);
    arena_free(a1);
    arena_free(a2);
    arena_free(scratch);
}

/* Strings take the byte-keyed set; merging it builds a string vector of the new values. */
void test_engine_agg_fast__distinct_strings_merge(void)
{
    static const char *const s1[] = {"x", "y", NULL, "x", ""};
    static const char *const s2[] = {"y", "z", "", NULL};
    engine_agg aggs[2];
    agg_table t1, t2;
    arena *a1 = arena_new(NULL, "t1"), *a2 = arena_new(NULL, "t2"), *scratch = arena_new(NULL, "s");
    expr *x;
    check_ok(expr_column(&x, qa, 0, col_type_primitive(COL_STRING), &err), &err);
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT;
    aggs[0].arg = x;
    aggs[0].distinct = 1;
    aggs[1].kind = AGG_MAX;
    aggs[1].arg = x;
    aggs[1].distinct = 1;
    table_init(&t1, a1, 0, NULL, aggs, 2);
    table_init(&t2, a2, 0, NULL, aggs, 2);
    add(&t1, 0, NULL, mk_strs(qa, 5, s1), 2);
    add(&t2, 0, NULL, mk_strs(qa, 4, s2), 2);
    check_ok(engine_agg_table_merge(&t1, &t2, scratch, &err), &err);
    {
        col_vec *cols[2];
        check_ok(engine_agg_table_finish(&t1, qa, cols, &err), &err);
        check_int(4, vec_get_int(cols[0], 0));
        check_str("z", vec_text(qa, cols[1]));
    }
    engine_agg_table_clear(&t1);
    engine_agg_table_clear(&t2);
    arena_free(a1);
    arena_free(a2);
    arena_free(scratch);
}

/* The set grows in the middle of a batch (from 1024 slots) and across a merge. */
void test_engine_agg_fast__distinct_set_grows(void)
{
    enum { N = 6000 };
    static int64_t x1[N], x2[N];
    engine_agg aggs[2];
    agg_table t1, t2;
    arena *a1 = arena_new(NULL, "t1"), *a2 = arena_new(NULL, "t2"), *scratch = arena_new(NULL, "s");
    expr *x;
    int64_t k;
    for (k = 0; k < N; k++) {
        x1[k] = (k * 7919) % 4000;        /* 4000 distinct values, repeated */
        x2[k] = 2000 + (k * 104729) % 5000; /* 2000..6999: 3000 new ones */
    }
    check_ok(expr_column(&x, qa, 0, col_type_primitive(COL_LONG), &err), &err);
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT;
    aggs[0].arg = x;
    aggs[0].distinct = 1;
    aggs[1].kind = AGG_SUM;
    aggs[1].arg = x;
    aggs[1].distinct = 1;
    table_init(&t1, a1, 0, NULL, aggs, 2);
    table_init(&t2, a2, 0, NULL, aggs, 2);
    add(&t1, 0, NULL, mk_ints(qa, COL_LONG, N, x1, NULL), 2);
    add(&t2, 0, NULL, mk_ints(qa, COL_LONG, N, x2, NULL), 2);
    check_int(4000, t1.aggs[0].dset_n);
    check_int(5000, t2.aggs[0].dset_n);
    check_ok(engine_agg_table_merge(&t1, &t2, scratch, &err), &err);
    {
        col_vec *cols[2];
        check_ok(engine_agg_table_finish(&t1, qa, cols, &err), &err);
        check_int(7000, vec_get_int(cols[0], 0));
        check_int(7000 * 6999 / 2, vec_get_int(cols[1], 0));
    }
    engine_agg_table_clear(&t1);
    engine_agg_table_clear(&t2);
    arena_free(a1);
    arena_free(a2);
    arena_free(scratch);
}

/* ---- several keys (multi_groups): column-wise hashes, typed comparison ---- */

static void table_init_keys(agg_table *t, arena *a, size_t n_keys, const col_type **kt,
                            engine_agg *aggs, size_t n_aggs)
{
    check_ok(engine_agg_table_init(t, &ctx, a, n_keys, kt, aggs, n_aggs, &err), &err);
}

/*
 * A string key (dictionary-encoded in one batch, plain in the other), an
 * int key and a double key, each with NULLs: equal values make one group
 * whatever the vector's encoding, NULL is a value of its own in each
 * column, and -0.0 groups with 0.0.
 */
void test_engine_agg_fast__multi_keys_nulls_and_encodings(void)
{
    static const char *const dict[] = {"b", "a"};
    static const int32_t codes[] = {1, 1, 0, 0, 1, 0};
    static const int64_t i1[] = {1, 1, 2, 0, 1, 2};
    static const double d1[] = {0.0, -0.0, 1.5, 1.5, 0.0, 1.5};
    static const char *const s2[] = {"a", NULL, "b", "a", NULL};
    static const int64_t i2[] = {1, 0, 2, 1, 0};
    static const double d2[] = {-0.0, 0.0, 1.5, 0.0, 0.0};
    const col_type *kt[3];
    engine_agg aggs[1];
    agg_table t;
    arena *ta = arena_new(NULL, "table");
    col_vec *keys[3];
    int32_t found[8], missing[8];
    int64_t n_found, n_missing;
    kt[0] = col_type_primitive(COL_STRING);
    kt[1] = col_type_primitive(COL_INT);
    kt[2] = col_type_primitive(COL_DOUBLE);
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT_STAR;
    table_init_keys(&t, ta, 3, kt, aggs, 1);
    /* batch 1: rows 0, 1, 4 are (a, 1, 0); row 3's int is NULL; row 5's string is NULL */
    keys[0] = mk_dict(6, codes, ".....n", 2, dict);
    keys[1] = mk_ints(qa, COL_INT, 6, i1, "...n..");
    keys[2] = mk_doubles(qa, 6, d1, NULL);
    check_ok(engine_agg_table_add(&t, 6, NULL, 6, keys, NULL, NULL, qa, &err), &err);
    check_int(4, t.n_groups);
    /* batch 2, plain strings: (a,1,-0.0) and (a,1,0) join group (a,1,0) */
    keys[0] = mk_strs(qa, 5, s2);
    keys[1] = mk_ints(qa, COL_INT, 5, i2, ".n..n");
    keys[2] = mk_doubles(qa, 5, d2, NULL);
    /* before adding: rows 0, 2 and 3 have groups, the two (NULL, NULL, 0.0) rows do not */
    check_ok(engine_agg_table_find(&t, NULL, 5, keys, qa, found, &n_found, missing, &n_missing, &err),
             &err);
    check_int(3, n_found);
    check_int(0, found[0]);
    check_int(2, found[1]);
    check_int(3, found[2]);
    check_int(2, n_missing);
    check_int(1, missing[0]);
    check_int(4, missing[1]);
    check_ok(engine_agg_table_add(&t, 5, NULL, 5, keys, NULL, NULL, qa, &err), &err);
    check_str("NULL|2|1.5|1;NULL|NULL|0|2;a|1|0|5;b|2|1.5|2;b|NULL|1.5|1",
              finish_sorted(&t, 4));
    engine_agg_table_clear(&t);
    arena_free(ta);
}

/*
 * Two integer keys over 30,000 groups added in batches (the slot and group
 * arrays grow many times), and a second table's groups merged in: groups
 * are matched by their key values across tables.
 */
void test_engine_agg_fast__multi_keys_grow_and_merge(void)
{
    enum { N = 10000, BATCHES = 3 };
    static int64_t a[N], b[N];
    const col_type *kt[2];
    engine_agg aggs[1];
    agg_table t1, t2;
    arena *a1 = arena_new(NULL, "t1"), *a2 = arena_new(NULL, "t2"), *scratch = arena_new(NULL, "s");
    col_vec *keys[2], *cols[3];
    int64_t k, batch, g, total = 0;
    kt[0] = col_type_primitive(COL_LONG);
    kt[1] = col_type_primitive(COL_INT);
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT_STAR;
    table_init_keys(&t1, a1, 2, kt, aggs, 1);
    table_init_keys(&t2, a2, 2, kt, aggs, 1);
    for (batch = 0; batch < BATCHES; batch++) {
        for (k = 0; k < N; k++) {
            int64_t i = batch * N + k;
            a[k] = i / 3;           /* 10,000 values */
            b[k] = i % 3 - 1;       /* -1, 0, 1: with a, 30,000 distinct pairs */
        }
        keys[0] = mk_ints(qa, COL_LONG, N, a, NULL);
        keys[1] = mk_ints(qa, COL_INT, N, b, NULL);
        check_ok(engine_agg_table_add(&t1, N, NULL, N, keys, NULL, NULL, qa, &err), &err);
        /* t2 sees every pair of this batch twice over one batch */
        if (batch == 1) {
            check_ok(engine_agg_table_add(&t2, N, NULL, N, keys, NULL, NULL, qa, &err), &err);
            check_ok(engine_agg_table_add(&t2, N, NULL, N, keys, NULL, NULL, qa, &err), &err);
        }
    }
    check_int(N * BATCHES, t1.n_groups);
    check_int(N, t2.n_groups);
    check_ok(engine_agg_table_merge(&t1, &t2, scratch, &err), &err);
    check_int(N * BATCHES, t1.n_groups);
    check_ok(engine_agg_table_finish(&t1, qa, cols, &err), &err);
    for (g = 0; g < t1.n_groups; g++) {
        int64_t pair = vec_get_int(cols[0], g) * 3 + vec_get_int(cols[1], g) + 1;
        int64_t want = pair >= N && pair < 2 * N ? 3 : 1;
        check_int(want, vec_get_int(cols[2], g));
        total += vec_get_int(cols[2], g);
    }
    check_int(N * BATCHES + 2 * N, total);
    engine_agg_table_clear(&t1);
    engine_agg_table_clear(&t2);
    arena_free(a1);
    arena_free(a2);
    arena_free(scratch);
}
