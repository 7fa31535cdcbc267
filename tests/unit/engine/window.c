/* Unit tests of the window operator (engine_op_window). */
#include "engine_test.h"

static arena *qa;
static engine_ctx ctx;
static silt_error err;

void test_engine_window__initialize(void)
{
    qa = arena_new(NULL, "query");
    engine_ctx_init(&ctx, qa);
    err_clear(&err);
}

void test_engine_window__cleanup(void) { arena_free(qa); }

/* g: a,a,a,b,b,NULL ; o: 3,1,1,5,2,7 ; v: 10,20,30,NULL,50,60 */
static col_batch *sample(void)
{
    col_vec *cols[3];
    cols[0] = mk_strs(qa, 6, (const char *[]){"a", "a", "a", "b", "b", NULL});
    cols[1] = mk_ints(qa, COL_INT, 6, (int64_t[]){3, 1, 1, 5, 2, 7}, NULL);
    cols[2] = mk_ints(qa, COL_LONG, 6, (int64_t[]){10, 20, 30, 0, 50, 60}, "...n..");
    return mk_batch(qa, 3, cols);
}

static expr *colt(int64_t idx, col_type_id t)
{
    expr *e;
    check_ok(expr_column(&e, qa, idx, col_type_primitive(t), &err), &err);
    return e;
}

static engine_window_fn wfn(engine_win_kind kind, engine_agg_kind agg, expr *arg)
{
    engine_window_fn f;
    memset(&f, 0, sizeof(f));
    f.kind = kind;
    f.agg = agg;
    f.arg = arg;
    f.offset = 1;
    return f;
}

static const char *run_window(const engine_window_fn *fns, size_t n, int with_order)
{
    col_batch *b = sample(), *out;
    engine_op *v, *w, *p;
    int64_t part[1] = {0};
    engine_sort_key order = engine_sort_key_default(1, 0);
    expr **cols = arena_calloc(qa, 2 + n, sizeof(expr *));
    size_t idx;
    check_ok(engine_op_values(&v, &ctx, b->schema, &b, 1, &err), &err);
    check_ok(engine_op_window(&w, &ctx, v, part, 1, &order, with_order ? 1 : 0, fns, n, &err), &err);
    /* keep g, o and the window columns */
    cols[0] = colt(0, COL_STRING);
    cols[1] = colt(1, COL_INT);
    for (idx = 0; idx < n; idx++)
        check_ok(expr_column(&cols[2 + idx], qa, 3 + (int64_t)idx,
                             w->schema->fields[3 + idx].type, &err), &err);
    check_ok(engine_op_project(&p, &ctx, w, cols, NULL, 2 + n, &err), &err);
    check_ok(engine_collect(p, qa, &out, &err), &err);
    return batch_text(qa, out);
}

void test_engine_window__ranking(void)
{
    engine_window_fn fns[3] = {wfn(WIN_ROW_NUMBER, 0, NULL), wfn(WIN_RANK, 0, NULL),
                               wfn(WIN_DENSE_RANK, 0, NULL)};
    /* NULL partition first; within a: o = 1, 1, 3 (stable), b: 2, 5 */
    check_str("NULL|7|1|1|1;a|1|1|1|1;a|1|2|1|1;a|3|3|3|2;b|2|1|1|1;b|5|2|2|2",
              run_window(fns, 3, 1));
}

void test_engine_window__lag_lead(void)
{
    engine_window_fn fns[3] = {wfn(WIN_LAG, 0, colt(2, COL_LONG)), wfn(WIN_LEAD, 0, colt(2, COL_LONG)),
                               wfn(WIN_LAG, 0, colt(2, COL_LONG))};
    fns[2].offset = 2;
    check_ok(expr_lit_int(&fns[2].default_value, qa, COL_LONG, -1, &err), &err);
    /* a rows in order: v 20, 30, 10 ; b rows: 50, NULL */
    check_str("NULL|7|NULL|NULL|-1;a|1|NULL|30|-1;a|1|20|10|-1;a|3|30|NULL|20;b|2|NULL|NULL|-1;"
              "b|5|50|NULL|-1", run_window(fns, 3, 1));
}

void test_engine_window__default_frames(void)
{
    engine_window_fn fns[3] = {wfn(WIN_AGG, AGG_SUM, colt(2, COL_LONG)),
                               wfn(WIN_AGG, AGG_COUNT_STAR, NULL),
                               wfn(WIN_AGG, AGG_MAX, colt(2, COL_LONG))};
    /* with ORDER BY: RANGE UNBOUNDED PRECEDING .. CURRENT ROW, so peers (o = 1, 1) share */
    check_str("NULL|7|60|1|60;a|1|50|2|30;a|1|50|2|30;a|3|60|3|30;b|2|50|1|50;b|5|50|2|50",
              run_window(fns, 3, 1));
    /* without ORDER BY: the whole partition */
    check_str("NULL|7|60|1|60;a|3|60|3|30;a|1|60|3|30;a|1|60|3|30;b|5|50|2|50;b|2|50|2|50",
              run_window(fns, 3, 0));
}

void test_engine_window__explicit_frames(void)
{
    engine_window_fn fns[4] = {wfn(WIN_AGG, AGG_SUM, colt(2, COL_LONG)),
                               wfn(WIN_AGG, AGG_AVG, colt(2, COL_LONG)),
                               wfn(WIN_AGG, AGG_MIN, colt(2, COL_LONG)),
                               wfn(WIN_AGG, AGG_SUM, colt(2, COL_LONG))};
    /* ROWS BETWEEN 1 PRECEDING AND CURRENT ROW */
    fns[0].has_frame = fns[1].has_frame = fns[2].has_frame = 1;
    fns[0].frame = (engine_frame){FRAME_ROWS, 0, 0, -1, 0};
    fns[1].frame = fns[0].frame;
    fns[2].frame = (engine_frame){FRAME_ROWS, 0, 1, 0, 0}; /* CURRENT ROW .. UNBOUNDED FOLLOWING */
    /* RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING over o */
    fns[3].has_frame = 1;
    fns[3].frame = (engine_frame){FRAME_RANGE, 0, 0, -1, 1};
    check_str("NULL|7|60|60|60|60;a|1|20|20|10|50;a|1|50|25|10|50;a|3|40|20|10|10;"
              "b|2|50|50|50|50;b|5|50|50|NULL|NULL", run_window(fns, 4, 1));
}

void test_engine_window__bad_plans(void)
{
    col_batch *b = sample();
    engine_op *v, *w;
    engine_window_fn f = wfn(WIN_AGG, AGG_SUM, colt(2, COL_LONG));
    engine_sort_key two[2] = {engine_sort_key_default(1, 0), engine_sort_key_default(2, 0)};
    int64_t bad_part = 9;
    check_ok(engine_op_values(&v, &ctx, b->schema, &b, 1, &err), &err);
    f.has_frame = 1;
    f.frame = (engine_frame){FRAME_RANGE, 0, 0, -1, 0};
    check_fails(SILT_BIND, engine_op_window(&w, &ctx, v, NULL, 0, two, 2, &f, 1, &err));
    check_contains(err.message, "exactly one");
    check_fails(SILT_INVALID, engine_op_window(&w, &ctx, v, &bad_part, 1, NULL, 0, &f, 1, &err));
    f = wfn(WIN_AGG, AGG_COLLECT_LIST, colt(2, COL_LONG));
    check_fails(SILT_UNSUPPORTED, engine_op_window(&w, &ctx, v, NULL, 0, NULL, 0, &f, 1, &err));
}

/* ---- WindowGroupLimit --------------------------------------------------------------- */

/*
 * Batch b of 4 (2000 rows each): g dictionary-encoded over p, q, r with a
 * NULL every 13th row; o = (i * 7919) % 1000 (many ties), NULL every 97th
 * row of the last batch; id = i.
 */
static col_batch *limit_batch(int b)
{
    static const char *const entries[] = {"r", "p", "q"};
    int32_t *codes = arena_alloc(qa, sizeof(int32_t) * 2000);
    int64_t *o = arena_alloc(qa, sizeof(int64_t) * 2000), *id = arena_alloc(qa, sizeof(int64_t) * 2000);
    char *onull = arena_alloc(qa, 2001);
    col_vec *cols[3], *g = arena_calloc(qa, 1, sizeof(col_vec));
    int64_t k;
    for (k = 0; k < 2000; k++) {
        int64_t i = b * 2000 + k;
        codes[k] = (int32_t)((i * 5) % 3);
        o[k] = (i * 7919) % 1000;
        id[k] = i;
        onull[k] = b == 3 && k % 97 == 0 ? 'n' : '.';
    }
    onull[2000] = 0;
    g->type = col_type_primitive(COL_STRING);
    g->length = 2000;
    g->values = codes;
    g->dictionary = mk_strs(qa, 3, entries);
    g->validity = arena_alloc(qa, 250);
    memset(g->validity, 0xff, 250);
    for (k = 0; k < 2000; k++)
        if ((b * 2000 + k) % 13 == 0)
            vec_set_null(g, k);
    cols[0] = g;
    cols[1] = mk_ints(qa, COL_LONG, 2000, o, onull);
    cols[2] = mk_ints(qa, COL_LONG, 2000, id, NULL);
    return mk_batch(qa, 3, cols);
}

/* window(kind) over limit_batch, filtered on the rank <= k; pushed or not. */
static const char *limited(engine_win_kind kind, int descending, int64_t k, int push)
{
    col_batch *bs[4], *out;
    engine_op *v, *w, *f, *s;
    int64_t part[1] = {0};
    engine_sort_key order = {1, descending, !descending};
    engine_sort_key keys[4] = {engine_sort_key_default(0, 0), engine_sort_key_default(3, 0),
                               engine_sort_key_default(2, 0), engine_sort_key_default(1, 0)};
    engine_window_fn fn = wfn(kind, 0, NULL);
    expr *rank, *bound, *pred;
    int b;
    for (b = 0; b < 4; b++)
        bs[b] = limit_batch(b);
    check_ok(engine_op_values(&v, &ctx, bs[0]->schema, bs, 4, &err), &err);
    check_ok(engine_op_window(&w, &ctx, v, part, 1, &order, 1, &fn, 1, &err), &err);
    rank = colt(3, COL_INT);
    check_ok(expr_lit_int(&bound, qa, COL_INT, k, &err), &err);
    check_ok(expr_compare(&pred, qa, EXPR_LE, rank, bound, &err), &err);
    if (push)
        check_int(1, engine_push_rank_limit(w, pred));
    check_ok(engine_op_filter(&f, &ctx, w, pred, &err), &err);
    check_ok(engine_op_sort(&s, &ctx, f, keys, 4, -1, 0, &err), &err);
    check_ok(engine_collect(s, qa, &out, &err), &err);
    return batch_text(qa, out);
}

void test_engine_window__group_limit_matches_full_window(void)
{
    engine_win_kind kinds[3] = {WIN_ROW_NUMBER, WIN_RANK, WIN_DENSE_RANK};
    int64_t ks[4] = {0, 1, 3, 40};
    int kind, k, desc;
    for (kind = 0; kind < 3; kind++)
        for (k = 0; k < 4; k++)
            for (desc = 0; desc < 2; desc++) {
                const char *want = limited(kinds[kind], desc, ks[k], 0);
                check_str(want, limited(kinds[kind], desc, ks[k], 1));
                if (ks[k] > 0)
                    check(strlen(want) > 0);
            }
}

void test_engine_window__group_limit_not_pushed(void)
{
    col_batch *b = sample();
    engine_op *v, *w;
    int64_t part[1] = {0};
    engine_sort_key order = engine_sort_key_default(1, 0);
    engine_window_fn fns[2] = {wfn(WIN_ROW_NUMBER, 0, NULL), wfn(WIN_AGG, AGG_SUM, colt(2, COL_LONG))};
    expr *rn = colt(3, COL_INT), *three, *le, *ten, *or_pred, *other;
    check_ok(engine_op_values(&v, &ctx, b->schema, &b, 1, &err), &err);
    check_ok(engine_op_window(&w, &ctx, v, part, 1, &order, 1, fns, 2, &err), &err);
    check_ok(expr_lit_int(&three, qa, COL_INT, 3, &err), &err);
    check_ok(expr_compare(&le, qa, EXPR_LE, rn, three, &err), &err);
    /* a sum over the partition needs every row: no limit */
    check_int(0, engine_push_rank_limit(w, le));
    check_ok(engine_op_window(&w, &ctx, v, part, 1, &order, 1, fns, 1, &err), &err);
    /* rn <= 3 OR o = 10 keeps rows past the limit */
    check_ok(expr_lit_int(&ten, qa, COL_INT, 10, &err), &err);
    check_ok(expr_compare(&other, qa, EXPR_EQ, colt(1, COL_INT), ten, &err), &err);
    check_ok(expr_or(&or_pred, qa, le, other, &err), &err);
    check_int(0, engine_push_rank_limit(w, or_pred));
    /* rn >= 3 and a comparison on a child column are no limits either */
    check_ok(expr_compare(&other, qa, EXPR_GE, rn, three, &err), &err);
    check_int(0, engine_push_rank_limit(w, other));
    check_ok(expr_compare(&other, qa, EXPR_LE, colt(1, COL_INT), three, &err), &err);
    check_int(0, engine_push_rank_limit(w, other));
    check_int(1, engine_push_rank_limit(w, le));
}
