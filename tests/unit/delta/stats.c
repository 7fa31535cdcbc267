#include <string.h>

#include "delta/scan.h"
#include "delta/stats.h"
#include "test.h"

static io_store *store;
static delta_snapshot *snap;
static arena *a;

#define SCHEMA                                                                                     \
    "{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["                                                \
    "{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}," \
    "{\\\"name\\\":\\\"s\\\",\\\"type\\\":{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"t\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]},\\\"nullable\\\":true,\\\"metadata\\\":{}}," \
    "{\\\"name\\\":\\\"ts\\\",\\\"type\\\":\\\"timestamp\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}," \
    "{\\\"name\\\":\\\"p\\\",\\\"type\\\":\\\"integer\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}"

#define ADD(path, p, stats)                                                                        \
    "{\"add\":{\"path\":\"" path "\",\"partitionValues\":{\"p\":" p "},\"size\":1,"                \
    "\"modificationTime\":1,\"dataChange\":true,\"stats\":\"" stats "\"}}\n"

void test_delta_stats__initialize(void)
{
    const char *commit =
        "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
        "{\"metaData\":{\"id\":\"x\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
        "\"schemaString\":\"" SCHEMA "\",\"partitionColumns\":[\"p\"],\"configuration\":{}}}\n"
        ADD("f0", "\"1\"", "{\\\"numRecords\\\":10,\\\"minValues\\\":{\\\"id\\\":1,\\\"s\\\":{\\\"t\\\":\\\"apple\\\"},\\\"ts\\\":\\\"2021-01-01T00:00:00.000Z\\\"},\\\"maxValues\\\":{\\\"id\\\":100,\\\"s\\\":{\\\"t\\\":\\\"melon\\\"},\\\"ts\\\":\\\"2021-01-02T00:00:00.000Z\\\"},\\\"nullCount\\\":{\\\"id\\\":0,\\\"s\\\":{\\\"t\\\":2},\\\"ts\\\":0}}")
        ADD("f1", "null", "{\\\"numRecords\\\":5,\\\"minValues\\\":{},\\\"maxValues\\\":{},\\\"nullCount\\\":{\\\"id\\\":5}}")
        ADD("f2", "\"2\"", "");
    silt_error err = SILT_ERROR_INIT;
    a = arena_new(NULL, "test");
    check_ok(io_store_open(&store, test_tmpdir(), 1, &err), &err);
    check_ok(io_put(store, "_delta_log/00000000000000000000.json", commit, strlen(commit), &err), &err);
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
}

void test_delta_stats__cleanup(void)
{
    delta_snapshot_free(snap);
    io_store_free(store);
    arena_free(a);
}

static const delta_file *file(const char *path)
{
    size_t idx;
    for (idx = 0; idx < snap->n_files; idx++)
        if (strcmp(snap->files[idx].path, path) == 0)
            return &snap->files[idx];
    test_fail(__FILE__, __LINE__, "no file %s", path);
}

void test_delta_stats__parse_nested(void)
{
    dstats stats;
    const dstats_column *col;
    silt_error err = SILT_ERROR_INIT;
    check_ok(dstats_parse(&stats, a, file("f0")->stats, snap->schema, DPROTO_MAPPING_NONE, &err), &err);
    check_int(10, stats.num_records);
    check_int(1, stats.tight_bounds);
    col = dstats_find(&stats, "s.t");
    check(col != NULL && col->has_min && col->has_max);
    check_int(5, col->min.v.s.len);
    check_int(2, col->null_count);
    col = dstats_find(&stats, "id");
    check_int(100, col->max.v.i);
    check(dstats_find(&stats, "p") != NULL);
    check_fails(SILT_CORRUPT, dstats_parse(&stats, a, "{nope", snap->schema, DPROTO_MAPPING_NONE, &err));
}

static dpred cmp(const char *column, dpred_op op, const col_type *type, const char *literal)
{
    dpred p;
    memset(&p, 0, sizeof(p));
    p.kind = DPRED_CMP;
    p.op = op;
    p.column = column;
    check_ok(delta_value_parse(&p.literal, type, literal, column, NULL), NULL);
    return p;
}

static int may(const dpred *p, const char *path)
{
    int result = -1;
    silt_error err = SILT_ERROR_INIT;
    check_ok(dstats_file_may_match(p, snap, file(path), a, &result, &err), &err);
    return result;
}

void test_delta_stats__prune_with_stats_and_partitions(void)
{
    const col_type *lng = col_type_primitive(COL_LONG), *str = col_type_primitive(COL_STRING);
    dpred p = cmp("id", DPRED_EQ, lng, "50"), q, both;
    check_int(1, may(&p, "f0"));
    check_int(0, may(&p, "f1")); /* all nulls */
    check_int(1, may(&p, "f2")); /* no stats */
    p = cmp("id", DPRED_GT, lng, "100");
    check_int(0, may(&p, "f0"));
    p = cmp("id", DPRED_GE, lng, "100");
    check_int(1, may(&p, "f0"));
    p = cmp("id", DPRED_LT, lng, "1");
    check_int(0, may(&p, "f0"));
    p = cmp("s.t", DPRED_EQ, str, "zebra");
    check_int(0, may(&p, "f0"));
    p = cmp("s.t", DPRED_LE, str, "banana");
    check_int(1, may(&p, "f0"));
    p = cmp("ts", DPRED_GT, col_type_primitive(COL_TIMESTAMP), "2021-01-02 00:00:00.000500");
    check_int(1, may(&p, "f0")); /* max is cut to milliseconds */
    p = cmp("ts", DPRED_GT, col_type_primitive(COL_TIMESTAMP), "2021-01-02 00:00:01");
    check_int(0, may(&p, "f0"));

    p = cmp("p", DPRED_EQ, col_type_primitive(COL_INT), "2");
    check_int(0, may(&p, "f0"));
    check_int(0, may(&p, "f1"));
    check_int(1, may(&p, "f2"));
    memset(&q, 0, sizeof(q));
    q.kind = DPRED_IS_NULL;
    q.column = "p";
    check_int(1, may(&q, "f1"));
    check_int(0, may(&q, "f0"));
    q.column = "id";
    check_int(0, may(&q, "f0"));
    check_int(1, may(&q, "f1"));
    q.kind = DPRED_IS_NOT_NULL;
    check_int(0, may(&q, "f1"));

    p = cmp("p", DPRED_EQ, col_type_primitive(COL_INT), "1");
    q = cmp("id", DPRED_GT, lng, "500");
    memset(&both, 0, sizeof(both));
    both.kind = DPRED_AND;
    both.left = &p;
    both.right = &q;
    check_int(0, may(&both, "f0"));
    both.kind = DPRED_OR;
    check_int(1, may(&both, "f0"));
    check_int(0, may(&both, "f1"));
}

static dstats_bounds long_bounds(int has_min, int64_t lo, int has_max, int64_t hi)
{
    dstats_bounds b;
    memset(&b, 0, sizeof(b));
    b.has_min = has_min;
    b.has_max = has_max;
    b.min.type = b.max.type = COL_LONG;
    b.min.v.i = lo;
    b.max.v.i = hi;
    b.has_null_count = 1;
    b.null_count = 0;
    b.has_rows = 1;
    b.rows = 10;
    return b;
}

/* The one min/max test: each bound on its own, nulls, and other types. */
void test_delta_stats__bounds_may_match(void)
{
    const col_type *lng = col_type_primitive(COL_LONG);
    dstats_bounds b = long_bounds(1, 10, 1, 20);
    dpred p = cmp("id", DPRED_EQ, lng, "15");
    check_int(1, dstats_bounds_may_match(&p, &b));
    p = cmp("id", DPRED_EQ, lng, "21");
    check_int(0, dstats_bounds_may_match(&p, &b));
    p = cmp("id", DPRED_NE, lng, "10");
    check_int(1, dstats_bounds_may_match(&p, &b));
    b = long_bounds(1, 10, 1, 10);
    check_int(0, dstats_bounds_may_match(&p, &b)); /* every row is 10 */
    /* Only a min known: what the min refutes is still refuted. */
    b = long_bounds(1, 10, 0, 0);
    p = cmp("id", DPRED_LT, lng, "10");
    check_int(0, dstats_bounds_may_match(&p, &b));
    p = cmp("id", DPRED_GT, lng, "1000");
    check_int(1, dstats_bounds_may_match(&p, &b));
    /* Only a max known. */
    b = long_bounds(0, 0, 1, 20);
    check_int(0, dstats_bounds_may_match(&p, &b));
    p = cmp("id", DPRED_LE, lng, "-5");
    check_int(1, dstats_bounds_may_match(&p, &b));
    /* Bounds of another type prove nothing (a widened column's file stats). */
    b = long_bounds(1, 10, 1, 20);
    b.min.type = b.max.type = COL_INT;
    p = cmp("id", DPRED_EQ, lng, "50");
    check_int(1, dstats_bounds_may_match(&p, &b));
    /* Only nulls: no comparison holds, IS NOT NULL neither. */
    b = long_bounds(0, 0, 0, 0);
    b.null_count = 10;
    check_int(0, dstats_bounds_may_match(&p, &b));
    p.kind = DPRED_IS_NOT_NULL;
    check_int(0, dstats_bounds_may_match(&p, &b));
    p.kind = DPRED_IS_NULL;
    check_int(1, dstats_bounds_may_match(&p, &b));
    b.null_count = 0;
    check_int(0, dstats_bounds_may_match(&p, &b));
    b.has_null_count = 0;
    check_int(1, dstats_bounds_may_match(&p, &b));
}

/*
 * `col = NULL` (and every comparison with a NULL literal) is NULL in
 * Spark, never true, so no file, row group or page can match it: the Delta
 * file test and the Parquet row-group test (once two copies that differed
 * here) now give the same answer.
 */
void test_delta_stats__null_literal_matches_nothing(void)
{
    const col_type *lng = col_type_primitive(COL_LONG);
    dstats_bounds b = long_bounds(1, 10, 1, 20);
    dpred p = cmp("id", DPRED_EQ, lng, "15");
    pq_leaf_stats st;
    const char *leaf = "id";
    dscan_filter f = {&p, &leaf, 1};
    p.literal.is_null = 1;
    check_int(0, dstats_bounds_may_match(&p, &b));
    check_int(0, may(&p, "f0"));
    check_int(0, may(&p, "f2")); /* even without stats */
    memset(&st, 0, sizeof(st));
    st.path = "id";
    st.type = lng;
    st.has_min_max = 1;
    st.min.i = 10;
    st.max.i = 20;
    st.has_null_count = 1;
    check_int(0, delta_scan_row_group_filter(&st, 1, 10, &f));
    check_int(0, delta_scan_page_filter(&st, 0, &f));
    p.literal.is_null = 0;
    check_int(1, delta_scan_row_group_filter(&st, 1, 10, &f));
    p.op = DPRED_GT;
    p.literal.v.i = 20;
    check_int(0, delta_scan_row_group_filter(&st, 1, 10, &f));
}
