/*
 * Unit tests of the CSV reader. Expected schemas and values were taken
 * from Spark 4 (pyspark, spark.read.option("header", True)
 * .option("inferSchema", True).csv(path)) on the same input text.
 */
#include <string.h>

#include "csvjson_render.h"
#include "formats/csv/csv.h"
#include "formats/csv/csv_int.h"
#include "formats/json/json.h"
#include "formats/text/text_source.h"
#include "scan_fixture.h"
#include "test.h"
#include "util/arena.h"

void test_formats_csv__initialize(void) { scan_fixture_init(); }

void test_formats_csv__cleanup(void) { scan_fixture_clear(); }

/* Reads text with header+inferSchema plus the given key/value options. */
static silt_status read_csv_opts(const char *text, size_t len, const char *const *kv,
                                 const col_type *schema, size_t chunk_bytes)
{
    csv_options opts;
    csv_scan *scan = NULL;
    const char *key = "in.csv";
    silt_status rc;
    buf_truncate(&schema_text, 0);
    buf_truncate(&rows_text, 0);
    check_ok(io_put(store, key, text, len, &err), &err);
    csv_options_init(&opts);
    opts.header = 1;
    opts.infer_schema = 1;
    opts.schema = schema;
    opts.pool = pool;
    if (chunk_bytes)
        opts.chunk_bytes = chunk_bytes;
    for (size_t idx = 0; kv != NULL && kv[idx] != NULL; idx += 2)
        check_ok(csv_options_set(&opts, mem, kv[idx], kv[idx + 1], &err), &err);
    rc = csv_scan_open(&scan, store, &key, 1, &opts, &err);
    if (rc != SILT_OK)
        return rc;
    check_ok(col_type_format(csv_scan_schema(scan), &schema_text, &err), &err);
    rc = render_scan(&rows_text, scan, render_csv_next, mem, opts.batch_rows, &err);
    csv_scan_free(scan);
    return rc;
}

static void expect(const char *text, const char *const *kv, const char *schema, const char *rows)
{
    check_ok(read_csv_opts(text, strlen(text), kv, NULL, 0), &err);
    check_str(schema, buf_cstr(&schema_text));
    check_str(rows, buf_cstr(&rows_text));
}

void test_formats_csv__integers_and_longs(void)
{
    expect("a,b\n1,2\n3,4\n", NULL, "struct<a:integer,b:integer>", "1|2\n3|4");
    expect("a\n1\n3000000000\n", NULL, "struct<a:long>", "1\n3000000000");
    expect("a\n+1\n007\n", NULL, "struct<a:integer>", "1\n7");
}

void test_formats_csv__long_overflow_goes_decimal_then_double(void)
{
    expect("a\n12345678901234567890\n1\n", NULL, "struct<a:decimal(20,0)>",
           "12345678901234567890\n1");
    expect("a\n12345678901234567890\n5\n", NULL, "struct<a:decimal(20,0)>",
           "12345678901234567890\n5");
    expect("a\n123456789012345678901234567890123456789\n", NULL, "struct<a:double>",
           "1.2345678901234568e+38");
    expect("a\n-12345678901234567890\n1.5\n", NULL, "struct<a:double>",
           "-1.2345678901234567e+19\n1.5");
}

void test_formats_csv__doubles_follow_java_parsing(void)
{
    expect("a\n1.5\n2\n", NULL, "struct<a:double>", "1.5\n2.0");
    expect("a,b,c,d,e,f,g\n1.5d,NaN,Infinity, 1,+1,1e5,123.\n", NULL,
           "struct<a:double,b:double,c:double,d:double,e:integer,f:double,g:decimal(3,0)>",
           "1.5|NaN|Infinity|1.0|1|100000.0|123");
    expect("a\n-Inf\nInf\n1.0\n", NULL, "struct<a:double>", "-Infinity\nInfinity\n1.0");
    expect("a\n1e400\n", NULL, "struct<a:double>", "Infinity");
}

void test_formats_csv__booleans_and_mixed_types(void)
{
    expect("a\nTRUE\nfalse\n", NULL, "struct<a:boolean>", "true\nfalse");
    expect("a\n1\ntrue\n", NULL, "struct<a:string>", "1\ntrue");
    expect("a\ntrue\n1\n", NULL, "struct<a:string>", "true\n1");
    expect("a,b\n x , y \n", NULL, "struct<a:string,b:string>", " x | y ");
}

void test_formats_csv__dates_and_timestamps(void)
{
    expect("a\n2022-01-01 10:00:00\n2022-01-02T11:00:00Z\n", NULL, "struct<a:timestamp>",
           "2022-01-01 10:00:00\n2022-01-02 11:00:00");
    expect("a\n2022-01-01T10:00:00.123+02:00\n", NULL, "struct<a:timestamp>",
           "2022-01-01 08:00:00.123");
    expect("a\n2022-01-01\n2022-01-02\n", NULL, "struct<a:date>", "2022-01-01\n2022-01-02");
    expect("a\n2022-01-01\n2022-01-02 10:00:00\n", NULL, "struct<a:timestamp>",
           "2022-01-01 00:00:00\n2022-01-02 10:00:00");
    expect("a\n2022-01\n", NULL, "struct<a:timestamp>", "2022-01-01 00:00:00");
    expect("a\n2022-01-01 10:00:00\n2022\n", NULL, "struct<a:timestamp>",
           "2022-01-01 10:00:00\n2022-01-01 00:00:00");
}

void test_formats_csv__timestamp_fast_path_agrees_with_parser(void)
{
    static const char *const samples[] = {"2022-01-01 10:00:00", "2022-12-31T23:59:59",
                                          "1969-12-31 23:59:59", "2024-02-29 00:00:00",
                                          "0001-01-01 00:00:00", "9999-12-31 23:59:59"};
    static const char *const rejected[] = {"2023-02-29 00:00:00", "2022-01-01 24:00:00",
                                           "2022-13-01 00:00:00", "2022-01-01 10:60:00"};
    csv_options opts;
    csv_options_init(&opts);
    for (size_t idx = 0; idx < sizeof(samples) / sizeof(samples[0]); idx++) {
        int64_t fast = 0, slow = 1;
        check(csv_parse_timestamp(&opts, samples[idx], strlen(samples[idx]), &fast));
        check(time_parse_timestamp(samples[idx], strlen(samples[idx]), &slow, NULL));
        check_int(slow, fast);
    }
    for (size_t idx = 0; idx < sizeof(rejected) / sizeof(rejected[0]); idx++) {
        int64_t v;
        check(!csv_parse_timestamp(&opts, rejected[idx], strlen(rejected[idx]), &v));
    }
}

void test_formats_csv__nulls_and_empty_values(void)
{
    expect("a,b\n,1\n2,\n", NULL, "struct<a:integer,b:integer>", "null|1\n2|null");
    static const char *const na[] = {"nullValue", "NA", NULL};
    expect("a,b\nNA,1\n2,NA\n", na, "struct<a:integer,b:integer>", "null|1\n2|null");
    expect("a,b\n\"\",1\n,2\n", NULL, "struct<a:string,b:integer>", "null|1\nnull|2");
    static const char *const ev[] = {"emptyValue", "EMPTY", NULL};
    expect("a,b\n\"\",1\n,2\n", ev, "struct<a:string,b:integer>", "EMPTY|1\nnull|2");
}

void test_formats_csv__quotes_and_escapes(void)
{
    expect("a,b\n\"x,y\",\"he said \\\"hi\\\"\"\n", NULL, "struct<a:string,b:string>",
           "x,y|he said \"hi\"");
    /* With Spark's default escape (backslash) doubled quotes are not an
     * escape: the field is kept raw up to the separator. */
    expect("a\n\"a \"\"b\"\" c\"\n", NULL, "struct<a:string>", "\"a \"\"b\"\" c\"");
    static const char *const rfc[] = {"escape", "\"", NULL};
    expect("a\n\"a \"\"b\"\" c\"\n", rfc, "struct<a:string>", "a \"b\" c");
    expect("a,b\nab\"c,1\n", NULL, "struct<a:string,b:integer>", "ab\"c|1");
    expect("a,b\n\"abc,1\n2,3\n", NULL, "struct<a:string,b:integer>", "abc,1|null\n2|3");
}

void test_formats_csv__quote_off_and_rfc_escape(void)
{
    static const char *const noquote[] = {"quote", "", NULL};
    expect("a,b\n\"x,y\"\n", noquote, "struct<a:string,b:string>", "\"x|y\"");
    static const char *const rfc[] = {"escape", "\"", "multiLine", "true", NULL};
    expect("a,b\n\"say \"\"hi\"\"\nnow\",2\n", rfc, "struct<a:string,b:integer>",
           "say \"hi\"\nnow|2");
    static const char *const semi[] = {"sep", ";", "header", "false", NULL};
    expect("1;2,5;x\n", semi, "struct<_c0:integer,_c1:string,_c2:string>", "1|2,5|x");
}

void test_formats_csv__multiline(void)
{
    static const char *const ml[] = {"multiLine", "true", NULL};
    expect("a,b\n\"line1\nline2\",2\n3,4\n", ml, "struct<a:string,b:integer>",
           "line1\nline2|2\n3|4");
    expect("a,b\r\n\"x\r\ny\",1\r\n", ml, "struct<a:string,b:integer>", "x\ny|1");
    expect("a,b\n\"line1\nline2\",2\n3,4\n", NULL, "struct<a:string,b:integer>",
           "line1|null\nline2\"|2\n3|4");
}

void test_formats_csv__header_names(void)
{
    expect("a,a,b,A\n1,2,3,4\n", NULL, "struct<a0:integer,a1:integer,b:integer,A3:integer>",
           "1|2|3|4");
    expect(",b,\n1,2,3\n", NULL, "struct<_c0:integer,b:integer,_c2:integer>", "1|2|3");
    static const char *const nh[] = {"header", "false", NULL};
    expect("1,x\n2,y\n", nh, "struct<_c0:integer,_c1:string>", "1|x\n2|y");
    static const char *const ni[] = {"inferSchema", "false", NULL};
    expect("a,b\n1,2\n", ni, "struct<a:string,b:string>", "1|2");
}

void test_formats_csv__empty_inputs(void)
{
    expect("", NULL, "struct<>", "");
    expect("a,b\n", NULL, "struct<a:string,b:string>", "");
    expect("a,b", NULL, "struct<a:string,b:string>", "");
    expect("a,b\n\n\n1,2\n\n", NULL, "struct<a:integer,b:integer>", "1|2");
    expect("a,b\n  \n1,2\n\t\n", NULL, "struct<a:integer,b:integer>", "1|2");
    static const char *const comment[] = {"comment", "#", NULL};
    expect("#x\na\n1\n#c\n2\n", comment, "struct<a:integer>", "1\n2");
}

void test_formats_csv__carriage_return_only_line_breaks(void)
{
    expect("a,b\r1,2\r3,4\r", NULL, "struct<a:integer,b:integer>", "1|2\n3|4");
}

void test_formats_csv__more_spark_inference_cases(void)
{
    expect("a\n2022-10-01T\n", NULL, "struct<a:string>", "2022-10-01T");
    expect("a\n2016-06-19 14:02:57 +0200\n", NULL, "struct<a:timestamp>", "2016-06-19 12:02:57");
    expect("a\n2022-1-5\n", NULL, "struct<a:timestamp>", "2022-01-05 00:00:00");
    expect("a\n2022/01/05\n", NULL, "struct<a:string>", "2022/01/05");
    expect("a\n2022-01-01\n5\n", NULL, "struct<a:string>", "2022-01-01\n5");
    expect("a\n1\n1.5\ntrue\n", NULL, "struct<a:string>", "1\n1.5\ntrue");
    expect("a\n1E+2\n", NULL, "struct<a:double>", "100.0");
    expect("a\n-9223372036854775809\n", NULL, "struct<a:decimal(19,0)>", "-9223372036854775809");
    expect("a\n\"1\"\n\"2\"\n", NULL, "struct<a:integer>", "1\n2");
    expect("\"a,b\",c\n1,2\n", NULL, "struct<a,b:integer,c:integer>", "1|2");
    static const char *const na[] = {"nullValue", "NA", NULL};
    expect("a,NA\n1,2\n", na, "struct<a:integer,_c1:integer>", "1|2");
}

void test_formats_csv__bom_crlf_unicode_and_separators(void)
{
    expect("\xEF\xBB\xBF" "a,b\n1,2\n", NULL, "struct<a:integer,b:integer>", "1|2");
    expect("a,b\r\n1,2\r\n3,4", NULL, "struct<a:integer,b:integer>", "1|2\n3|4");
    expect("\xE5\x90\x8D\xE5\x89\x8D,b\n\xC3\x85se,2\n", NULL,
           "struct<\xE5\x90\x8D\xE5\x89\x8D:string,b:integer>", "\xC3\x85se|2");
    static const char *const tab[] = {"sep", "\\t", NULL};
    expect("a\tb\n1\tx\n", tab, "struct<a:integer,b:string>", "1|x");
}

void test_formats_csv__ragged_rows_by_mode(void)
{
    expect("a,b,c\n1,2\n1,2,3,4\n5,6,7\n", NULL, "struct<a:integer,b:integer,c:integer>",
           "1|2|null\n1|2|3\n5|6|7");
    static const char *const drop[] = {"mode", "DROPMALFORMED", NULL};
    expect("a,b,c\n1,2\n1,2,3,4\n5,6,7\n", drop, "struct<a:integer,b:integer,c:integer>",
           "5|6|7");
    static const char *const fail[] = {"mode", "FAILFAST", NULL};
    check_fails(SILT_PARSE, read_csv_opts("a,b,c\n5,6,7\n1,2\n", 17, fail, NULL, 0));
    check_contains(err.message, "line 3");
    check_contains(err.message, "\"in.csv\"");
    check_contains(err.message, "too few fields");
}

static const col_type *schema_ab_corrupt(int with_corrupt)
{
    col_field fields[3] = {
        {"a", col_type_primitive(COL_INT), 1, NULL, -1},
        {"b", col_type_primitive(COL_INT), 1, NULL, -1},
        {"_corrupt_record", col_type_primitive(COL_STRING), 1, NULL, -1},
    };
    return col_type_struct(mem, with_corrupt ? 3 : 2, fields);
}

void test_formats_csv__explicit_schema_and_modes(void)
{
    const char *text = "a,b\n1,x\n2,3\n";
    check_ok(read_csv_opts(text, strlen(text), NULL, schema_ab_corrupt(0), 0), &err);
    check_str("1|null\n2|3", buf_cstr(&rows_text));
    check_ok(read_csv_opts(text, strlen(text), NULL, schema_ab_corrupt(1), 0), &err);
    check_str("struct<a:integer,b:integer,_corrupt_record:string>", buf_cstr(&schema_text));
    check_str("1|null|1,x\n2|3|null", buf_cstr(&rows_text));
    static const char *const drop[] = {"mode", "DROPMALFORMED", NULL};
    check_ok(read_csv_opts(text, strlen(text), drop, schema_ab_corrupt(0), 0), &err);
    check_str("2|3", buf_cstr(&rows_text));
    static const char *const fail[] = {"mode", "FAILFAST", NULL};
    check_fails(SILT_PARSE, read_csv_opts(text, strlen(text), fail, schema_ab_corrupt(0), 0));
    check_contains(err.message, "line 2");
    check_contains(err.message, "field 2 (\"b\") value \"x\" is not a valid integer");
    text = "a,b\n1\n";
    check_ok(read_csv_opts(text, strlen(text), NULL, schema_ab_corrupt(1), 0), &err);
    check_str("1|null|1", buf_cstr(&rows_text));
}

void test_formats_csv__explicit_timestamp_date_decimal(void)
{
    col_field fields[3] = {
        {"a", col_type_primitive(COL_TIMESTAMP), 1, NULL, -1},
        {"b", col_type_primitive(COL_DATE), 1, NULL, -1},
        {"c", col_type_decimal(mem, 10, 2), 1, NULL, -1},
    };
    const char *text = "a,b,c\n2022-01-01 10:00:00,2022-01-02,1.25\n,,-3\n,,1.005\n,,123456789\n";
    check_ok(read_csv_opts(text, strlen(text), NULL, col_type_struct(mem, 3, fields), 0), &err);
    check_str("2022-01-01 10:00:00|2022-01-02|1.25\nnull|null|-3.00\nnull|null|1.01\nnull|null|null",
              buf_cstr(&rows_text));
}

void test_formats_csv__parallel_chunks_match_sequential(void)
{
    buf text = BUF_INIT, expected = BUF_INIT;
    buf_append_str(&text, "id,name,score,when\n", &err);
    for (int idx = 0; idx < 20000; idx++)
        buf_printf(&text, &err, "%d,\"n,%d\",%d.5,2022-01-%02d 10:00:00\n", idx, idx, idx % 97,
                   idx % 28 + 1);
    buf_append_str(&text, "99999999999,\"q\",1,2022-02-01\n", &err);
    check_ok(read_csv_opts(text.data, text.len, NULL, NULL, 0), &err);
    buf_append(&expected, rows_text.data, rows_text.len, &err);
    check_str("struct<id:long,name:string,score:double,when:timestamp>", buf_cstr(&schema_text));
    check_ok(tpool_new(&pool, 3, &err), &err);
    check_ok(read_csv_opts(text.data, text.len, NULL, NULL, 4096), &err);
    check_str("struct<id:long,name:string,score:double,when:timestamp>", buf_cstr(&schema_text));
    check(rows_text.len == expected.len && memcmp(rows_text.data, expected.data, expected.len) == 0);
    static const char *const ml[] = {"multiLine", "true", NULL};
    check_ok(read_csv_opts(text.data, text.len, ml, NULL, 1000), &err);
    check(rows_text.len == expected.len && memcmp(rows_text.data, expected.data, expected.len) == 0);
    buf_clear(&text);
    buf_clear(&expected);
}

void test_formats_csv__options_from_strings(void)
{
    csv_options opts;
    csv_options_init(&opts);
    check_ok(csv_options_set(&opts, mem, "HEADER", "true", &err), &err);
    check_int(1, opts.header);
    check_ok(csv_options_set(&opts, mem, "delimiter", ";", &err), &err);
    check_int(';', opts.sep);
    check_ok(csv_options_set(&opts, mem, "samplingRatio", "0.5", &err), &err);
    check_fails(SILT_INVALID, csv_options_set(&opts, mem, "header", "yes", &err));
    check_contains(err.message, "\"header\"");
    check_fails(SILT_INVALID, csv_options_set(&opts, mem, "sep", ";;", &err));
    check_fails(SILT_INVALID, csv_options_set(&opts, mem, "mode", "LENIENT", &err));
    check_fails(SILT_INVALID, csv_options_set(&opts, mem, "nosuch", "1", &err));
    check_ok(csv_options_set(&opts, mem, "timestampFormat", "dd/MM/yyyy", &err), &err);
    check_fails(SILT_UNSUPPORTED, csv_options_set(&opts, mem, "dateFormat", "yyyy-ww", &err));
}

void test_formats_csv__infer_text_in_memory(void)
{
    csv_options opts;
    const col_type *schema = NULL;
    buf out = BUF_INIT;
    csv_options_init(&opts);
    opts.header = 1;
    opts.infer_schema = 1;
    check_ok(csv_infer_text("x,y\n1,a\n", 8, &opts, mem, &schema, &err), &err);
    check_ok(col_type_format(schema, &out, &err), &err);
    check_str("struct<x:integer,y:string>", buf_cstr(&out));
    buf_clear(&out);
}

void test_formats_csv__many_batches(void)
{
    buf text = BUF_INIT;
    static const char *const small[] = {"batchRows", "7", NULL};
    buf_append_str(&text, "n\n", &err);
    for (int idx = 0; idx < 100; idx++)
        buf_printf(&text, &err, "%d\n", idx);
    check_ok(read_csv_opts(text.data, text.len, small, NULL, 0), &err);
    check_int(100, 1 + (int)(strrchr(buf_cstr(&rows_text), '\n') - buf_cstr(&rows_text) > 0 ? 99 : 0));
    check(strncmp(buf_cstr(&rows_text), "0\n1\n2\n", 6) == 0);
    check(util_str_ends_with(buf_cstr(&rows_text), "\n98\n99"));
    buf_clear(&text);
}

void test_formats_csv__too_many_columns_is_an_error_not_an_allocation(void)
{
    buf text = BUF_INIT;
    for (int idx = 0; idx < 30000; idx++)
        buf_append_str(&text, idx ? ",x" : "x", &err);
    buf_append_str(&text, "\n", &err);
    check_fails(SILT_PARSE, read_csv_opts(text.data, text.len, NULL, NULL, 0));
    check_contains(err.message, "30000 columns, more than maxColumns (20480)");
    static const char *const wide[] = {"maxColumns", "40000", NULL};
    check_ok(read_csv_opts(text.data, text.len, wide, NULL, 0), &err);
    buf_clear(&text);
}

void test_formats_csv__invalid_utf8_becomes_replacement_characters(void)
{
    expect("n\xff,b\nA\xc3,x\xe2\x82\n", NULL, "struct<n\xEF\xBF\xBD:string,b:string>",
           "A\xEF\xBF\xBD|x\xEF\xBF\xBD");
    check(text_utf8_valid("\xC3\xA9t\xC3\xA9 ascii only here", 22));
    check(!text_utf8_valid("\xC0\x80", 2));       /* overlong */
    check(!text_utf8_valid("\xED\xA0\x80", 3));   /* surrogate */
    check(!text_utf8_valid("\xF4\x90\x80\x80", 4)); /* beyond U+10FFFF */
}

/* batchRows and maxColumns (CSV) and batchRows (JSON) share one range check. */
void test_formats_csv__row_and_column_limits_are_checked(void)
{
    csv_options copts;
    json_options jopts;
    csv_options_init(&copts);
    json_options_init(&jopts);
    check_fails(SILT_INVALID, csv_options_set(&copts, mem, "BATCHROWS", "0", &err));
    check_str("option \"batchRows\" must be in 1..1048576", err.message);
    check_fails(SILT_INVALID, csv_options_set(&copts, mem, "maxColumns", "16777217", &err));
    check_str("option \"maxColumns\" must be in 1..16777216", err.message);
    check_fails(SILT_INVALID, csv_options_set(&copts, mem, "batchRows", "-3", &err));
    check_contains(err.message, "must be a non-negative integer, not \"-3\"");
    check_fails(SILT_INVALID, json_options_set(&jopts, mem, "batchRows", "1048577", &err));
    check_str("option \"batchRows\" must be in 1..1048576", err.message);
    check_int(CSV_DEFAULT_BATCH_ROWS, copts.batch_rows);
    check_ok(csv_options_set(&copts, mem, "maxColumns", "16777216", &err), &err);
    check_int(16777216, copts.max_columns);
    check_ok(json_options_set(&jopts, mem, "batchRows", "1", &err), &err);
    check_int(1, jopts.batch_rows);
}

/*
 * The column-at-a-time conversion of one-pass reads (PERMISSIVE, no corrupt
 * column): missing fields, extra fields, a value of the wrong type, quoted
 * empties, non-ASCII and invalid UTF-8 text, and dates that change between
 * rows give the values Spark gives (same as the row loop, csv_one_pass.c).
 */
void test_formats_csv__column_conversion_edges(void)
{
    expect("i,t,s\n"
           "1,2022-01-31 05:49:39,\xc3\xa9t\xc3\xa9\n"
           ",2022-01-31 23:59:59,\"\"\n"
           "-999999999,2022-02-01 00:00:00,x,extra\n"
           "2147483647\n"
           "-2147483648,,\"a,b\"\n"
           "7,2024-02-29 12:00:00,\xff\n",
           NULL, "struct<i:integer,t:timestamp,s:string>",
           "1|2022-01-31 05:49:39|\xc3\xa9t\xc3\xa9\n"
           "null|2022-01-31 23:59:59|null\n"
           "-999999999|2022-02-01 00:00:00|x\n"
           "2147483647|null|null\n"
           "-2147483648|null|a,b\n"
           "7|2024-02-29 12:00:00|\xef\xbf\xbd");
    static const char *const na[] = {"nullValue", "NA", "emptyValue", "E", NULL};
    expect("i,s\nNA,\"\"\n2,NA\n3,\n", na, "struct<i:integer,s:string>", "null|E\n2|null\n3|null");
}
