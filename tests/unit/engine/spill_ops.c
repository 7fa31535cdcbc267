/*
 * Unit tests of the operators that spill (external sort, grace hash join,
 * partitioned aggregation): under a tiny memory_limit they must return
 * exactly what they return in memory, spill files must be gone when the
 * operator closes, and memory that cannot be met fails with [OUT_OF_MEMORY].
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdlib.h>

#include "engine/spill.h"
#include "engine_test.h"

static arena *qa;
static engine_ctx ctx;
static silt_error err;

void test_engine_spill_ops__initialize(void)
{
    qa = arena_new(NULL, "query");
    engine_ctx_init(&ctx, qa);
    ctx.temp_dir = test_tmpdir();
    err_clear(&err);
}

void test_engine_spill_ops__cleanup(void) { arena_free(qa); }

/*
 * Generated rows: k INT (keys repeat: n_keys distinct values, some NULL
 * when with_nulls), id LONG (the row number), s STRING (depends on id).
 */
typedef struct gen {
    int64_t n_rows, next, n_keys, salt;
    int with_nulls;
    const col_type *schema;
} gen;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static silt_status gen_next(void *payload, arena *a, col_batch **out, silt_error *e)
{
    gen *g = payload;
    int64_t n = g->n_rows - g->next < ENGINE_BATCH_ROWS ? g->n_rows - g->next : ENGINE_BATCH_ROWS;
    col_vec *k, *id, *s;
    col_batch *b;
    vec_str_writer w;
    int64_t row;
    *out = NULL;
    if (n <= 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&k, a, col_type_primitive(COL_INT), n, e));
    SILT_RETURN_IF_ERROR(vec_new(&id, a, col_type_primitive(COL_LONG), n, e));
    SILT_RETURN_IF_ERROR(vec_new(&s, a, col_type_primitive(COL_STRING), n, e));
    vec_str_begin(&w, s, a);
    for (row = 0; row < n; row++) {
        int64_t r = g->next + row;
        uint64_t h = mix((uint64_t)r * 31 + (uint64_t)g->salt);
        char text[32];
        int len = snprintf(text, sizeof(text), "v%lld", (long long)(mix(h) % 1000));
        ((int32_t *)k->values)[row] = (int32_t)(h % (uint64_t)g->n_keys);
        ((int64_t *)id->values)[row] = r;
        if (g->with_nulls && h % 97 == 0)
            vec_set_null(k, row);
        SILT_RETURN_IF_ERROR(vec_str_put(&w, row, text, len, e));
    }
    vec_str_end(&w);
    b = arena_calloc(a, 1, sizeof(*b));
    if (b == NULL || (b->cols = arena_calloc(a, 3, sizeof(col_vec *))) == NULL)
        return err_nomem(e);
    b->schema = g->schema;
    b->n_cols = 3;
    b->n_rows = n;
    b->cols[0] = k;
    b->cols[1] = id;
    b->cols[2] = s;
    g->next += n;
    *out = b;
    return SILT_OK;
}

static gen *new_gen(int64_t n_rows, int64_t n_keys, int64_t salt, int with_nulls)
{
    gen *g = arena_calloc(qa, 1, sizeof(*g));
    col_field f[3] = {{"k", col_type_primitive(COL_INT), 1, NULL, -1},
                      {"id", col_type_primitive(COL_LONG), 1, NULL, -1},
                      {"s", col_type_primitive(COL_STRING), 1, NULL, -1}};
    g->n_rows = n_rows;
    g->n_keys = n_keys;
    g->salt = salt;
    g->with_nulls = with_nulls;
    g->schema = col_type_struct(qa, 3, f);
    return g;
}

static engine_op *scan(gen *g)
{
    engine_op *op;
    g->next = 0;
    check_ok(engine_op_scan(&op, &ctx, g->schema, gen_next, g, &err), &err);
    return op;
}

static expr *colt(int64_t idx, col_type_id t)
{
    expr *e;
    check_ok(expr_column(&e, qa, idx, col_type_primitive(t), &err), &err);
    return e;
}

/* All rows of op as "a|b|c" lines joined by ';' (in output order). */
static const char *rows_text(engine_op *op)
{
    col_batch *out;
    check_ok(engine_collect(op, qa, &out, &err), &err);
    return batch_text(qa, out);
}

/* The same rows sorted as text lines (for operators whose order is unspecified). */
static int cmp_lines(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static const char *sorted_lines(const char *text)
{
    char *copy = arena_strdup(qa, text), *p = copy, **lines;
    size_t n = 1, idx = 0;
    buf b = BUF_INIT;
    const char *res;
    for (const char *q = text; *q; q++)
        n += *q == ';';
    lines = arena_calloc(qa, n, sizeof(char *));
    lines[idx++] = p;
    for (; *p; p++)
        if (*p == ';') {
            *p = '\0';
            lines[idx++] = p + 1;
        }
    qsort(lines, idx, sizeof(char *), cmp_lines);
    for (n = 0; n < idx; n++) {
        buf_append_str(&b, lines[n], NULL);
        buf_append_char(&b, ';', NULL);
    }
    res = arena_strdup(qa, buf_cstr(&b));
    buf_clear(&b);
    return res;
}

/* ---- sort ------------------------------------------------------------------------- */

static const char *sorted(gen *g, const engine_sort_key *keys, size_t n_keys, int64_t offset,
                          int64_t limit_bytes)
{
    engine_op *op;
    ctx.mem_limit = limit_bytes;
    ctx.spilled_bytes = 0;
    check_ok(engine_op_sort(&op, &ctx, scan(g), keys, n_keys, -1, offset, &err), &err);
    return rows_text(op);
}

void test_engine_spill_ops__sort_300k_rows_under_256kb(void)
{
    /*
     * 300k rows, 1000 distinct keys: many ties, which must keep input order.
     * 256 KiB makes dozens of runs, as 1M rows under 1 MB did, in a third
     * of the time (this suite also runs under ASan in CI).
     */
    gen *g = new_gen(300000, 1000, 1, 1);
    engine_sort_key key = engine_sort_key_default(0, 1);
    const char *mem = sorted(g, &key, 1, 0, 0), *disk;
    check_int(0, ctx.spilled_bytes);
    disk = sorted(g, &key, 1, 0, 1 << 18);
    check(ctx.spilled_bytes > 0);
    check(strcmp(mem, disk) == 0);
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
}

void test_engine_spill_ops__sort_two_keys_strings_offset(void)
{
    gen *g = new_gen(120000, 50, 2, 1);
    engine_sort_key keys[2] = {engine_sort_key_default(2, 0), engine_sort_key_default(0, 1)};
    const char *mem = sorted(g, keys, 2, 777, 0), *disk;
    /* 256 KiB: dozens of runs, and room to merge only a few at a time (several passes). */
    disk = sorted(g, keys, 2, 777, 256 << 10);
    check(ctx.spilled_bytes > 0);
    /*
     * 59 input chunks and at least two per run: at most 30 runs. More files
     * than that are the longer runs of merge passes.
     */
    check(ctx.spill_files > 30);
    check(strcmp(mem, disk) == 0);
    check_int(0, test_dir_entries(test_tmpdir()));
}

void test_engine_spill_ops__sort_chunk_bigger_than_limit_fails(void)
{
    gen *g = new_gen(10000, 10, 3, 0);
    engine_sort_key key = engine_sort_key_default(0, 0);
    engine_op *op;
    col_batch *out;
    ctx.mem_limit = 1000;
    check_ok(engine_op_sort(&op, &ctx, scan(g), &key, 1, -1, 0, &err), &err);
    check_fails(SILT_NOMEM, engine_collect(op, qa, &out, &err));
    check_contains(err.message, "[OUT_OF_MEMORY] sort needs more than the query memory limit");
    check_contains(err.hint, "SET memory_limit");
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
}

/* ---- top-N (ORDER BY ... LIMIT) ---------------------------------------------------- */

static const char *top_n(gen *g, const engine_sort_key *keys, size_t n_keys, int64_t limit,
                         int64_t offset, int64_t limit_bytes)
{
    engine_op *op;
    ctx.mem_limit = limit_bytes;
    ctx.spilled_bytes = 0;
    ctx.spill_files = 0;
    check_ok(engine_op_sort(&op, &ctx, scan(g), keys, n_keys, limit, offset, &err), &err);
    return rows_text(op);
}

void test_engine_spill_ops__top_n_bigger_than_limit_spills(void)
{
    /*
     * K = 60,000 + 5,000 of 200k rows with ties (1000 keys, NULLs first) do
     * not fit 256 KiB: runs of at most K rows go to disk, the K-th row of a
     * full run bounds later input, and the merge stops after the limit.
     */
    gen *g = new_gen(200000, 1000, 4, 1);
    engine_sort_key keys[2] = {engine_sort_key_default(0, 1), engine_sort_key_default(2, 0)};
    const char *mem = top_n(g, keys, 2, 60000, 5000, 0), *disk, *full;
    check_int(0, ctx.spilled_bytes);
    disk = top_n(g, keys, 2, 60000, 5000, 1 << 18);
    check(ctx.spilled_bytes > 0);
    check(ctx.spill_files > 1);
    check(strcmp(mem, disk) == 0);
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
    /* the same rows as the first 60,000 after 5,000 of the full sort */
    full = top_n(g, keys, 2, 60000, 5000, 1 << 30);
    check(strcmp(mem, full) == 0);
}

void test_engine_spill_ops__top_n_spilled_limit_cuts_inside_a_chunk(void)
{
    /* A limit that is no multiple of the batch size, one key, no offset. */
    gen *g = new_gen(100000, 100000, 5, 0);
    engine_sort_key key = engine_sort_key_default(1, 0);
    const char *mem, *disk;
    key.descending = 1;
    mem = top_n(g, &key, 1, 33333, 0, 0);
    disk = top_n(g, &key, 1, 33333, 0, 1 << 18);
    check(ctx.spilled_bytes > 0);
    check(strcmp(mem, disk) == 0);
    check_int(0, test_dir_entries(test_tmpdir()));
}

/* ---- join ------------------------------------------------------------------------- */

static const char *joined(engine_join_type type, int with_cond, int64_t limit_bytes)
{
    gen *l = new_gen(16000, 5000, 5, 1), *r = new_gen(12000, 6000, 6, 1);
    expr *lk = colt(0, COL_INT), *rk = colt(0, COL_INT), *cond = NULL;
    engine_op *op;
    col_batch *out;
    if (with_cond)
        check_ok(expr_compare(&cond, qa, EXPR_LT, colt(1, COL_LONG), colt(4, COL_LONG), &err),
                 &err);
    ctx.mem_limit = limit_bytes;
    ctx.spilled_bytes = 0;
    check_ok(engine_op_hash_join(&op, &ctx, scan(l), scan(r), type, &lk, &rk, 1, cond, &err),
             &err);
    check_ok(engine_collect(op, qa, &out, &err), &err);
    check(out->n_rows > 0);
    return sorted_lines(batch_text(qa, out));
}

static void check_join(engine_join_type type, int with_cond)
{
    const char *mem = joined(type, with_cond, 0), *disk, *deeper;
    check_int(0, ctx.spilled_bytes);
    disk = joined(type, with_cond, 256 << 10);
    check(ctx.spilled_bytes > 0);
    check(strcmp(mem, disk) == 0);
    /* 64 KiB: partitions spill again, one level down (more files than one level makes). */
    ctx.spill_files = 0;
    deeper = joined(type, with_cond, 64 << 10);
    check(ctx.spill_files > 2 * SPILL_PARTITIONS + 2);
    check(strcmp(mem, deeper) == 0);
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
}

void test_engine_spill_ops__join_inner(void) { check_join(JOIN_INNER, 0); }
void test_engine_spill_ops__join_left(void) { check_join(JOIN_LEFT, 0); }
void test_engine_spill_ops__join_right(void) { check_join(JOIN_RIGHT, 0); }
void test_engine_spill_ops__join_full(void) { check_join(JOIN_FULL, 0); }
void test_engine_spill_ops__join_semi(void) { check_join(JOIN_LEFT_SEMI, 0); }
void test_engine_spill_ops__join_anti(void) { check_join(JOIN_LEFT_ANTI, 0); }
void test_engine_spill_ops__join_full_with_condition(void) { check_join(JOIN_FULL, 1); }
void test_engine_spill_ops__join_anti_with_condition(void) { check_join(JOIN_LEFT_ANTI, 1); }

void test_engine_spill_ops__join_one_key_bigger_than_limit_fails(void)
{
    /* Every row has the same key: no partitioning can split the build side. */
    gen *l = new_gen(5000, 1, 7, 0), *r = new_gen(50000, 1, 8, 0);
    expr *lk = colt(0, COL_INT), *rk = colt(0, COL_INT);
    engine_op *op;
    col_batch *out;
    ctx.mem_limit = 256 << 10;
    check_ok(engine_op_hash_join(&op, &ctx, scan(l), scan(r), JOIN_INNER, &lk, &rk, 1, NULL,
                                 &err), &err);
    check_fails(SILT_NOMEM, engine_collect(op, qa, &out, &err));
    check_contains(err.message, "[OUT_OF_MEMORY] join build side needs more than the query "
                   "memory limit of 256.0 KiB");
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
}

/* ---- aggregation ------------------------------------------------------------------- */

static engine_agg agg_of(engine_agg_kind kind, expr *arg, int distinct, const char *name)
{
    engine_agg a;
    memset(&a, 0, sizeof(a));
    a.kind = kind;
    a.arg = arg;
    a.distinct = distinct;
    a.name = name;
    return a;
}

/* GROUP BY k, s with count(*), sum(id), min(s), first(id), count(DISTINCT s), collect_list. */
static const char *grouped(gen *g, int64_t limit_bytes)
{
    expr *keys[2] = {colt(0, COL_INT), colt(2, COL_STRING)};
    engine_agg aggs[6];
    engine_op *op;
    col_batch *out;
    aggs[0] = agg_of(AGG_COUNT_STAR, NULL, 0, "n");
    aggs[1] = agg_of(AGG_SUM, colt(1, COL_LONG), 0, "total");
    aggs[2] = agg_of(AGG_MIN, colt(2, COL_STRING), 0, "lo");
    aggs[3] = agg_of(AGG_FIRST, colt(1, COL_LONG), 0, "first_id");
    aggs[4] = agg_of(AGG_COUNT, colt(1, COL_LONG), 1, "ids");
    aggs[5] = agg_of(AGG_COLLECT_LIST, colt(1, COL_LONG), 0, "all_ids");
    ctx.mem_limit = limit_bytes;
    ctx.spilled_bytes = 0;
    check_ok(engine_op_hash_agg(&op, &ctx, scan(g), keys, NULL, 2, aggs, 6, NULL, 0, &err), &err);
    check_ok(engine_collect(op, qa, &out, &err), &err);
    return sorted_lines(batch_text(qa, out));
}

void test_engine_spill_ops__aggregation_many_groups(void)
{
    /* 150k rows, about 100k groups of (k, s): far more state than 512 KiB. */
    gen *g = new_gen(150000, 200, 9, 1);
    const char *mem = grouped(g, 0), *disk;
    check_int(0, ctx.spilled_bytes);
    disk = grouped(g, 1 << 19);
    check(ctx.spilled_bytes > 0);
    check(strcmp(mem, disk) == 0);
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
}

void test_engine_spill_ops__aggregation_one_int_key_recursive(void)
{
    /* One INT key (the table's fast path); 256 KiB makes partitions spill again. */
    gen *g = new_gen(200000, 150000, 10, 1);
    expr *keys[1] = {colt(0, COL_INT)};
    engine_agg aggs[2];
    engine_op *op;
    col_batch *out;
    const char *text[2];
    int pass;
    aggs[0] = agg_of(AGG_COUNT_STAR, NULL, 0, "n");
    aggs[1] = agg_of(AGG_MAX, colt(2, COL_STRING), 0, "hi");
    for (pass = 0; pass < 2; pass++) {
        ctx.mem_limit = pass == 0 ? 0 : 256 << 10;
        ctx.spill_files = 0;
        check_ok(engine_op_hash_agg(&op, &ctx, scan(g), keys, NULL, 1, aggs, 2, NULL, 0, &err),
                 &err);
        check_ok(engine_collect(op, qa, &out, &err), &err);
        text[pass] = sorted_lines(batch_text(qa, out));
    }
    check(ctx.spill_files > SPILL_PARTITIONS);
    check(strcmp(text[0], text[1]) == 0);
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
}

/* ---- allocation failures while spilling ---------------------------------------------- */

#include "util/mem.h"

/* join (spills) -> aggregate -> sort under 256 KiB; inputs made before any failure. */
typedef struct spill_inputs {
    gen *l, *r;
    expr *lk, *rk, *key;
} spill_inputs;

static silt_status spill_plan(spill_inputs *in, col_batch **out, silt_error *e)
{
    engine_agg aggs[1];
    engine_sort_key key = engine_sort_key_default(0, 0);
    engine_op *ls, *rs, *j, *g, *srt;
    aggs[0] = agg_of(AGG_COUNT_STAR, NULL, 0, "n");
    in->l->next = 0;
    in->r->next = 0;
    SILT_RETURN_IF_ERROR(engine_op_scan(&ls, &ctx, in->l->schema, gen_next, in->l, e));
    SILT_RETURN_IF_ERROR(engine_op_scan(&rs, &ctx, in->r->schema, gen_next, in->r, e));
    SILT_RETURN_IF_ERROR(engine_op_hash_join(&j, &ctx, ls, rs, JOIN_FULL, &in->lk, &in->rk, 1,
                                             NULL, e));
    SILT_RETURN_IF_ERROR(engine_op_hash_agg(&g, &ctx, j, &in->key, NULL, 1, aggs, 1, NULL, 0, e));
    SILT_RETURN_IF_ERROR(engine_op_sort(&srt, &ctx, g, &key, 1, -1, 0, e));
    return engine_collect(srt, qa, out, e);
}

void test_engine_spill_ops__allocation_failures_while_spilling(void)
{
    spill_inputs in;
    const char *expected;
    col_batch *out;
    long countdown;
    int succeeded = 0, runs = 0, fds = test_dir_entries("/proc/self/fd");
    in.l = new_gen(6000, 3000, 11, 1);
    in.r = new_gen(5000, 3000, 12, 1);
    in.lk = colt(0, COL_INT);
    in.rk = colt(0, COL_INT);
    in.key = colt(2, COL_STRING);
    ctx.mem_limit = 256 << 10;
    check_ok(spill_plan(&in, &out, &err), &err);
    expected = batch_text(qa, out);
    check(ctx.spilled_bytes > 0);
    /* Every allocation early on, then a sparser sample up to success. */
    for (countdown = 1; !succeeded && countdown < 2000000; countdown += 1 + countdown / 40) {
        silt_status rc;
        silt_error e = SILT_ERROR_INIT;
        mem_fail_after(countdown);
        rc = spill_plan(&in, &out, &e);
        mem_fail_reset();
        runs++;
        if (rc == SILT_OK) {
            check_str(expected, batch_text(qa, out));
            succeeded = 1;
        } else if (rc != SILT_NOMEM) {
            test_fail(__FILE__, __LINE__, "countdown %ld: expected NOMEM, got %d: %s", countdown,
                      (int)rc, e.message);
        }
        check_int(fds, test_dir_entries("/proc/self/fd")); /* no spill file left open */
        check_int(0, ctx.mem_used);
    }
    check(succeeded);
    check(runs > 50);
}

/* ---- window ---------------------------------------------------------------------- */

/*
 * Windows over k (NULL keys too) ordered by id: ranking, a ROWS frame sum,
 * lag with a default, first_value IGNORE NULLS over strings, ntile and a
 * running max. Rows as sorted text: a spilled window returns partitions in
 * another order.
 */
static const char *windowed(gen *g, int64_t limit_bytes, int n_part)
{
    int64_t parts[1] = {0};
    engine_sort_key order[1] = {engine_sort_key_default(1, 0)};
    engine_window_fn fns[6];
    engine_op *op;
    memset(fns, 0, sizeof(fns));
    fns[0].kind = WIN_ROW_NUMBER;
    fns[1].kind = WIN_AGG;
    fns[1].agg = AGG_SUM;
    fns[1].arg = colt(1, COL_LONG);
    fns[1].has_frame = 1;
    fns[1].frame.type = FRAME_ROWS;
    fns[1].frame.start = -2;
    fns[2].kind = WIN_LAG;
    fns[2].arg = colt(2, COL_STRING);
    fns[2].offset = 3;
    fns[3].kind = WIN_FIRST_VALUE;
    fns[3].arg = colt(2, COL_STRING);
    fns[3].ignore_nulls = 1;
    fns[4].kind = WIN_NTILE;
    fns[4].offset = 3;
    fns[5].kind = WIN_AGG;
    fns[5].agg = AGG_MAX;
    fns[5].arg = colt(2, COL_STRING);
    ctx.mem_limit = limit_bytes;
    ctx.spill_files = 0;
    check_ok(engine_op_window(&op, &ctx, scan(g), parts, (size_t)n_part, order, 1, fns, 6, &err),
             &err);
    return sorted_lines(rows_text(op));
}

void test_engine_spill_ops__window_many_partitions(void)
{
    gen *g = new_gen(120000, 3000, 13, 1);
    const char *mem = windowed(g, 0, 1), *disk;
    check_int(0, ctx.spill_files);
    disk = windowed(g, 1 << 20, 1);
    check(ctx.spill_files >= SPILL_PARTITIONS);
    check(strcmp(mem, disk) == 0);
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
}

void test_engine_spill_ops__window_recursive(void)
{
    /* 256 KiB: the first level's files do not fit either and spill one level deeper. */
    gen *g = new_gen(100000, 40000, 14, 1);
    const char *mem = windowed(g, 0, 1), *disk;
    disk = windowed(g, 256 << 10, 1);
    check(ctx.spill_files > SPILL_PARTITIONS);
    check(strcmp(mem, disk) == 0);
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
}

void test_engine_spill_ops__window_one_partition_bigger_than_limit_fails(void)
{
    /* Without PARTITION BY (and so for one huge partition) nothing can be split off. */
    gen *g = new_gen(100000, 10, 15, 0);
    int64_t parts[1] = {0};
    engine_sort_key order[1] = {engine_sort_key_default(1, 0)};
    engine_window_fn fn;
    engine_op *op;
    col_batch *out;
    memset(&fn, 0, sizeof(fn));
    fn.kind = WIN_ROW_NUMBER;
    ctx.mem_limit = 256 << 10;
    check_ok(engine_op_window(&op, &ctx, scan(g), parts, 0, order, 1, &fn, 1, &err), &err);
    check_fails(SILT_NOMEM, engine_collect(op, qa, &out, &err));
    check_contains(err.message, "OUT_OF_MEMORY");
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
}

/* ---- grouping sets ----------------------------------------------------------------- */

/*
 * CUBE (k, s) with count(*), sum(id), first(id), count(DISTINCT s), max(s)
 * (no collect_list: the () set's one group would hold every id).
 */
static const char *cubed(gen *g, int64_t limit_bytes)
{
    expr *keys[2] = {colt(0, COL_INT), colt(2, COL_STRING)};
    uint64_t sets[4];
    size_t n_sets = engine_cube_sets(2, sets);
    engine_agg aggs[5];
    engine_op *op;
    col_batch *out;
    aggs[0] = agg_of(AGG_COUNT_STAR, NULL, 0, "n");
    aggs[1] = agg_of(AGG_SUM, colt(1, COL_LONG), 0, "total");
    aggs[2] = agg_of(AGG_FIRST, colt(1, COL_LONG), 0, "first_id");
    aggs[3] = agg_of(AGG_COUNT, colt(2, COL_STRING), 1, "strings");
    aggs[4] = agg_of(AGG_MAX, colt(2, COL_STRING), 0, "hi");
    ctx.mem_limit = limit_bytes;
    ctx.spill_files = 0;
    check_ok(engine_op_hash_agg(&op, &ctx, scan(g), keys, NULL, 2, aggs, 5, sets, n_sets, &err),
             &err);
    check_ok(engine_collect(op, qa, &out, &err), &err);
    return sorted_lines(batch_text(qa, out));
}

void test_engine_spill_ops__grouping_sets_cube(void)
{
    /* 100k rows, about 80k groups of (k, s) plus the (k), (s) and () sets. */
    gen *g = new_gen(100000, 300, 16, 1);
    const char *mem = cubed(g, 0), *disk;
    check_int(0, ctx.spill_files);
    disk = cubed(g, 1 << 20);
    check(ctx.spill_files > 0);
    check(strcmp(mem, disk) == 0);
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
}

void test_engine_spill_ops__grouping_sets_files_spill_again(void)
{
    /* 256 KiB: a set's file is more than a plain aggregate holds, so it partitions too. */
    gen *g = new_gen(120000, 60000, 17, 1);
    const char *mem = cubed(g, 0), *disk;
    disk = cubed(g, 256 << 10);
    check(ctx.spill_files > SPILL_PARTITIONS);
    check(strcmp(mem, disk) == 0);
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
}

/* ---- cross join ---------------------------------------------------------------------- */

/*
 * l (300 rows) CROSS JOIN r (8000 rows), or INNER JOIN on l.id * 20 < r.id
 * only (no keys), grouped by the left id: count(*), sum(r.id), min and max
 * of r.s; 2.4M pairs summed per left row instead of printed.
 */
static const char *crossed(engine_join_type type, int64_t limit_bytes)
{
    gen *l = new_gen(300, 50, 18, 1), *r = new_gen(8000, 500, 19, 1);
    expr *cond = NULL, *key = colt(1, COL_LONG), *twenty;
    engine_agg aggs[4];
    engine_op *j, *op;
    col_batch *out;
    if (type == JOIN_INNER) {
        expr *scaled;
        check_ok(expr_lit_int(&twenty, qa, COL_LONG, 20, &err), &err);
        check_ok(expr_arith(&scaled, qa, EXPR_MUL, colt(1, COL_LONG), twenty, &err), &err);
        check_ok(expr_compare(&cond, qa, EXPR_LT, scaled, colt(4, COL_LONG), &err), &err);
    }
    aggs[0] = agg_of(AGG_COUNT_STAR, NULL, 0, "n");
    aggs[1] = agg_of(AGG_SUM, colt(4, COL_LONG), 0, "ids");
    aggs[2] = agg_of(AGG_MIN, colt(5, COL_STRING), 0, "lo");
    aggs[3] = agg_of(AGG_MAX, colt(5, COL_STRING), 0, "hi");
    ctx.mem_limit = limit_bytes;
    ctx.spill_files = 0;
    check_ok(engine_op_hash_join(&j, &ctx, scan(l), scan(r), type, NULL, NULL, 0, cond, &err),
             &err);
    check_ok(engine_op_hash_agg(&op, &ctx, j, &key, NULL, 1, aggs, 4, NULL, 0, &err), &err);
    check_ok(engine_collect(op, qa, &out, &err), &err);
    check(out->n_rows > 0);
    return sorted_lines(batch_text(qa, out));
}

static void check_cross(engine_join_type type)
{
    const char *mem = crossed(type, 0), *disk, *small;
    check_int(0, ctx.spill_files);
    disk = crossed(type, 1 << 20);
    check(ctx.spill_files >= 2);
    check(strcmp(mem, disk) == 0);
    /* 256 KiB: blocks smaller than a batch of the build file */
    small = crossed(type, 256 << 10);
    check(ctx.spill_files >= 2);
    check(strcmp(mem, small) == 0);
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
}

void test_engine_spill_ops__cross_join_blocks(void) { check_cross(JOIN_CROSS); }
void test_engine_spill_ops__inner_join_without_keys_blocks(void) { check_cross(JOIN_INNER); }

void test_engine_spill_ops__left_join_without_keys_still_fails(void)
{
    /* a LEFT join without keys needs each left row's matches over every block */
    gen *l = new_gen(300, 50, 20, 1), *r = new_gen(20000, 500, 21, 1);
    expr *cond;
    engine_op *j;
    col_batch *out;
    check_ok(expr_compare(&cond, qa, EXPR_LT, colt(1, COL_LONG), colt(4, COL_LONG), &err), &err);
    ctx.mem_limit = 256 << 10;
    check_ok(engine_op_hash_join(&j, &ctx, scan(l), scan(r), JOIN_LEFT, NULL, NULL, 0, cond, &err),
             &err);
    check_fails(SILT_NOMEM, engine_collect(j, qa, &out, &err));
    check_contains(err.message, "OUT_OF_MEMORY");
    check_int(0, ctx.mem_used);
    check_int(0, test_dir_entries(test_tmpdir()));
}

void test_engine_spill_ops__window_parallel_equals_serial(void)
{
    /* 3,000 partitions in tasks on two threads: the same rows as on the caller alone */
    gen *g = new_gen(60000, 3000, 22, 1);
    tpool *pool;
    const char *serial = windowed(g, 0, 1), *parallel;
    check_ok(tpool_new(&pool, 1, &err), &err);
    ctx.pool = pool;
    parallel = windowed(g, 0, 1);
    ctx.pool = NULL;
    tpool_free(pool);
    check(strcmp(serial, parallel) == 0);
    check_int(0, ctx.mem_used);
}
