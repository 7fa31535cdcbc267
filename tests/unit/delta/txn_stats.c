/* delta_stats_to_json: layout, truncation, formats, indexed columns; read back with dstats_parse. */
#include <string.h>

#include "delta/stats.h"
#include "delta/txn.h"
#include "test.h"

static arena *a;
static silt_error err;

void test_delta_txn_stats__initialize(void) { a = arena_new(NULL, "test"); }
void test_delta_txn_stats__cleanup(void) { arena_free(a); }

static col_field fld(const char *name, const col_type *type)
{
    col_field f;
    memset(&f, 0, sizeof(f));
    f.name = name;
    f.type = type;
    f.nullable = 1;
    f.field_id = -1;
    return f;
}

static delta_value ival(col_type_id type, int64_t v)
{
    delta_value out;
    memset(&out, 0, sizeof(out));
    out.type = type;
    out.v.i = v;
    return out;
}

static delta_value sval(const char *s)
{
    delta_value out;
    memset(&out, 0, sizeof(out));
    out.type = COL_STRING;
    out.v.s.ptr = s;
    out.v.s.len = strlen(s);
    return out;
}

static delta_col_stats col(const char *path, col_type_id type, delta_value min, delta_value max,
                           int64_t nulls)
{
    delta_col_stats st;
    memset(&st, 0, sizeof(st));
    st.path = path;
    st.type = col_type_primitive(type);
    st.has_min_max = 1;
    st.min = min;
    st.max = max;
    st.has_null_count = 1;
    st.null_count = nulls;
    return st;
}

static const col_type *schema(void)
{
    col_field inner[] = {fld("x", col_type_primitive(COL_DATE)),
                         fld("y", col_type_primitive(COL_BOOLEAN))};
    col_field top[] = {fld("id", col_type_primitive(COL_LONG)),
                       fld("name", col_type_primitive(COL_STRING)),
                       fld("ts", col_type_primitive(COL_TIMESTAMP)),
                       fld("s", col_type_struct(a, 2, arena_memdup(a, inner, sizeof(inner)))),
                       fld("d", col_type_decimal(a, 10, 2))};
    return col_type_struct(a, 5, arena_memdup(a, top, sizeof(top)));
}

void test_delta_txn_stats__nested_layout_and_formats(void)
{
    buf out = BUF_INIT;
    delta_value dmin, dmax;
    delta_col_stats cols[5];
    dstats parsed;
    const dstats_column *c;
    memset(&dmin, 0, sizeof(dmin));
    dmin.type = dmax.type = COL_DECIMAL;
    dmin.scale = 2;
    dmin.v.dec = -5; /* -0.05 */
    dmax = dmin;
    dmax.v.dec = 1234567; /* 12345.67 */
    cols[0] = col("id", COL_LONG, ival(COL_LONG, -9007199254740993), ival(COL_LONG, 42), 0);
    cols[1] = col("name", COL_STRING, sval("alice"), sval("zed \"q\""), 1);
    cols[2] = col("ts", COL_TIMESTAMP, ival(COL_TIMESTAMP, 1631099471000000),
                  ival(COL_TIMESTAMP, 1631099471123999), 0);
    cols[3] = col("s.x", COL_DATE, ival(COL_DATE, 0), ival(COL_DATE, 18878), 2);
    cols[4] = col("d", COL_DECIMAL, dmin, dmax, 0);
    check_ok(delta_stats_to_json(10, schema(), 32, cols, 5, &out, &err), &err);
    check_str("{\"numRecords\":10,"
              "\"minValues\":{\"id\":-9007199254740993,\"name\":\"alice\","
              "\"ts\":\"2021-09-08T11:11:11.000Z\",\"s\":{\"x\":\"1970-01-01\"},\"d\":-0.05},"
              "\"maxValues\":{\"id\":42,\"name\":\"zed \\\"q\\\"\","
              "\"ts\":\"2021-09-08T11:11:11.123Z\",\"s\":{\"x\":\"2021-09-08\"},\"d\":12345.67},"
              "\"nullCount\":{\"id\":0,\"name\":1,\"ts\":0,\"s\":{\"x\":2},\"d\":0}}",
              out.data);
    /* The reading side understands it. */
    check_ok(dstats_parse(&parsed, a, out.data, schema(), DPROTO_MAPPING_NONE, &err), &err);
    check_int(10, parsed.num_records);
    c = dstats_find(&parsed, "s.x");
    check(c != NULL && c->has_max);
    check_int(18878, c->max.v.i);
    c = dstats_find(&parsed, "ts");
    check(c != NULL && c->max.v.i >= 1631099471123999);
    buf_clear(&out);
}

void test_delta_txn_stats__indexed_columns_and_booleans(void)
{
    buf out = BUF_INIT;
    delta_col_stats cols[3];
    cols[0] = col("id", COL_LONG, ival(COL_LONG, 1), ival(COL_LONG, 2), 0);
    cols[1] = col("name", COL_STRING, sval("a"), sval("b"), 0);
    cols[2] = col("s.y", COL_BOOLEAN, ival(COL_BOOLEAN, 0), ival(COL_BOOLEAN, 1), 3);
    /* Only the first leaf is indexed. */
    check_ok(delta_stats_to_json(2, schema(), 1, cols, 3, &out, &err), &err);
    check_str("{\"numRecords\":2,\"minValues\":{\"id\":1},\"maxValues\":{\"id\":2},"
              "\"nullCount\":{\"id\":0}}",
              out.data);
    buf_truncate(&out, 0);
    /* Booleans get a null count only; all leaves with -1. */
    check_ok(delta_stats_to_json(2, schema(), -1, cols + 2, 1, &out, &err), &err);
    check_str("{\"numRecords\":2,\"minValues\":{},\"maxValues\":{},\"nullCount\":{\"s\":{\"y\":3}}}",
              out.data);
    buf_clear(&out);
}

void test_delta_txn_stats__string_truncation(void)
{
    buf out = BUF_INIT;
    delta_col_stats st;
    const char *long_min = "aaaaaaaaaabbbbbbbbbbccccccccccddEXTRA";
    const char *long_max = "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\xc3\xa9\xc3\xa9MORE"; /* 30 z + 2 é */
    col_field top[] = {fld("name", col_type_primitive(COL_STRING))};
    const col_type *sch = col_type_struct(a, 1, top);
    st = col("name", COL_STRING, sval(long_min), sval(long_max), 0);
    check_ok(delta_stats_to_json(1, sch, 32, &st, 1, &out, &err), &err);
    check_contains(out.data, "\"minValues\":{\"name\":\"aaaaaaaaaabbbbbbbbbbccccccccccdd\"}");
    /* 32 characters (not bytes), then U+10FFFF. */
    check_contains(out.data,
                   "\"maxValues\":{\"name\":\"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\xc3\xa9\xc3\xa9"
                   "\xf4\x8f\xbf\xbf\"}");
    buf_truncate(&out, 0);
    /* A string of exactly 32 characters is kept whole, without tie-breaker. */
    st.max = sval("0123456789012345678901234567890x");
    check_ok(delta_stats_to_json(1, sch, 32, &st, 1, &out, &err), &err);
    check_contains(out.data, "\"maxValues\":{\"name\":\"0123456789012345678901234567890x\"}");
    buf_clear(&out);
}

void test_delta_txn_stats__nan_and_mismatch(void)
{
    buf out = BUF_INIT;
    delta_col_stats st;
    delta_value nan_v;
    col_field top[] = {fld("v", col_type_primitive(COL_DOUBLE))};
    const col_type *sch = col_type_struct(a, 1, top);
    memset(&nan_v, 0, sizeof(nan_v));
    nan_v.type = COL_DOUBLE;
    nan_v.v.d = 0.0 / 0.0;
    st = col("v", COL_DOUBLE, nan_v, nan_v, 0);
    check_ok(delta_stats_to_json(1, sch, 32, &st, 1, &out, &err), &err);
    check_str("{\"numRecords\":1,\"minValues\":{},\"maxValues\":{},\"nullCount\":{\"v\":0}}",
              out.data);
    st = col("v", COL_DOUBLE, ival(COL_LONG, 1), ival(COL_LONG, 2), 0);
    check_fails(SILT_INVALID, delta_stats_to_json(1, sch, 32, &st, 1, &out, &err));
    check_contains(err.message, "\"v\"");
    buf_clear(&out);
}

void test_delta_txn_stats__indexed_cols_property(void)
{
    dlog_metadata md;
    dlog_kv items[1] = {{"delta.dataSkippingNumIndexedCols", "5"}};
    memset(&md, 0, sizeof(md));
    check_int(32, delta_stats_indexed_cols(&md));
    check_int(32, delta_stats_indexed_cols(NULL));
    md.configuration.n = 1;
    md.configuration.items = items;
    check_int(5, delta_stats_indexed_cols(&md));
    items[0].value = "-1";
    check_int(-1, delta_stats_indexed_cols(&md));
    items[0].value = "many";
    check_int(32, delta_stats_indexed_cols(&md));
}
