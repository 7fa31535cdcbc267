/*
 * Unit tests of the JSON reader. Expected schemas and values were taken
 * from Spark 4 (pyspark, spark.read.json(path) and with .schema(...)) on
 * the same input text.
 */
#include <string.h>

#include "csvjson_render.h"
#include "formats/json/json.h"
#include "formats/json/json_int.h"
#include "scan_fixture.h"
#include "test.h"
#include "util/arena.h"
#include "util/mem.h"

void test_formats_json__initialize(void) { scan_fixture_init(); }

void test_formats_json__cleanup(void) { scan_fixture_clear(); }

static silt_status read_json_opts(const char *text, size_t len, const char *const *kv,
                                  const col_type *schema, size_t chunk_bytes)
{
    json_options opts;
    json_scan *scan = NULL;
    const char *key = "in.json";
    silt_status rc;
    buf_truncate(&schema_text, 0);
    buf_truncate(&rows_text, 0);
    check_ok(io_put(store, key, text, len, &err), &err);
    json_options_init(&opts);
    opts.schema = schema;
    opts.pool = pool;
    if (chunk_bytes)
        opts.chunk_bytes = chunk_bytes;
    for (size_t idx = 0; kv != NULL && kv[idx] != NULL; idx += 2)
        check_ok(json_options_set(&opts, mem, kv[idx], kv[idx + 1], &err), &err);
    rc = json_scan_open(&scan, store, &key, 1, &opts, &err);
    if (rc != SILT_OK)
        return rc;
    check_ok(col_type_format(json_scan_schema(scan), &schema_text, &err), &err);
    rc = render_scan(&rows_text, scan, render_json_next, mem, -1, &err);
    json_scan_free(scan);
    return rc;
}

static void expect(const char *text, const char *const *kv, const char *schema, const char *rows)
{
    check_ok(read_json_opts(text, strlen(text), kv, NULL, 0), &err);
    check_str(schema, buf_cstr(&schema_text));
    check_str(rows, buf_cstr(&rows_text));
}

void test_formats_json__trips_fields_sorted_by_name(void)
{
    expect("{\"trip_id\":1,\"tstamp\":\"2022-01-01 10:00:00\",\"route_id\":\"A\",\"destination\":"
           "\"Boston\"}\n{\"trip_id\":2,\"tstamp\":\"2022-01-01 11:00:00\",\"route_id\":\"B\","
           "\"destination\":\"NYC\"}\n",
           NULL, "struct<destination:string,route_id:string,trip_id:long,tstamp:string>",
           "Boston|A|1|2022-01-01 10:00:00\nNYC|B|2|2022-01-01 11:00:00");
}

void test_formats_json__type_conflicts_widen(void)
{
    expect("{\"a\":1,\"b\":1,\"c\":1,\"d\":{\"x\":1}}\n{\"a\":1.5,\"b\":\"s\",\"c\":true,\"d\":"
           "\"str\"}\n",
           NULL, "struct<a:double,b:string,c:string,d:string>",
           "1.0|1|1|{\"x\":1}\n1.5|s|true|str");
    expect("{\"a\":\"1\"}\n{\"a\":2}\n", NULL, "struct<a:string>", "1\n2");
    expect("{\"s\":{\"a\":1}}\n{\"s\":{\"a\":\"x\",\"b\":2.5}}\n", NULL,
           "struct<s:struct<a:string,b:double>>", "{1, null}\n{x, 2.5}");
}

void test_formats_json__big_integers(void)
{
    expect("{\"a\":12345678901234567890}\n{\"a\":1}\n", NULL, "struct<a:decimal(20,0)>",
           "12345678901234567890\n1");
    expect("{\"a\":12345678901234567890}\n{\"a\":1.5}\n", NULL, "struct<a:double>",
           "1.2345678901234567e+19\n1.5");
    expect("{\"a\":1e5,\"b\":-0,\"c\":1.0,\"d\":-1.5E-3}\n", NULL,
           "struct<a:double,b:long,c:double,d:double>", "100000.0|0|1.0|-0.0015");
    expect("{\"a\":NaN,\"b\":\"x\"}\n", NULL, "struct<a:double,b:string>", "NaN|x");
}

void test_formats_json__nested_structs_and_arrays(void)
{
    expect("{\"s\":{\"z\":1,\"a\":\"x\"},\"arr\":[1,2,3],\"e\":[],\"n\":null}\n{\"s\":{\"m\":"
           "true},\"arr\":[1.5]}\n",
           NULL, "struct<arr:array<double>,e:array<string>,n:string,s:struct<a:string,m:boolean,z:long>>",
           "[1.0, 2.0, 3.0]|[]|null|{x, null, 1}\n[1.5]|null|null|{null, true, null}");
    expect("{\"a\":[1,\"x\"],\"b\":[{\"q\":1},{\"p\":2}],\"c\":[[1],[2,3]]}\n", NULL,
           "struct<a:array<string>,b:array<struct<p:long,q:long>>,c:array<array<long>>>",
           "[1, x]|[{null, 1}, {2, null}]|[[1], [2, 3]]");
    expect("{\"a\":null}\n{\"a\":null}\n", NULL, "struct<a:string>", "null\nnull");
    expect("{}\n{\"a\":1}\n", NULL, "struct<a:long>", "null\n1");
    expect("{\"a\":1,\"e\":{}}\n", NULL, "struct<a:long>", "1");
}

void test_formats_json__corrupt_records_by_mode(void)
{
    const char *text = "{\"a\":1}\n{\"a\":\n{\"a\":3}\n";
    expect(text, NULL, "struct<_corrupt_record:string,a:long>", "null|1\n{\"a\":|null\nnull|3");
    static const char *const drop[] = {"mode", "DROPMALFORMED", NULL};
    expect(text, drop, "struct<a:long>", "1\n3");
    static const char *const fail[] = {"mode", "FAILFAST", NULL};
    check_fails(SILT_PARSE, read_json_opts(text, strlen(text), fail, NULL, 0));
    check_contains(err.message, "line 2, position 6 of \"in.json\"");
    check_contains(err.message, "expected a value");
    expect("1\n{\"a\":2}\n", NULL, "struct<_corrupt_record:string,a:long>", "1|null\nnull|2");
    static const char *const named[] = {"columnNameOfCorruptRecord", "bad", NULL};
    expect("{\"a\":1}\n{\"a\":\n", named, "struct<a:long,bad:string>", "1|null\nnull|{\"a\":");
}

void test_formats_json__lines_arrays_blank_lines_and_trailing_text(void)
{
    expect("[{\"a\":1},{\"a\":2}]\n{\"a\":3}\n", NULL, "struct<a:long>", "1\n2\n3");
    expect("{\"a\":1}\n\n   \n{\"a\":2}", NULL, "struct<a:long>", "1\n2");
    expect("{\"a\":1} x\n", NULL, "struct<a:long>", "1");
    expect("\xEF\xBB\xBF{\"a\":1}\n", NULL, "struct<a:long>", "1");
    expect("{\"a\":1}\r\n{\"a\":2}\r\n", NULL, "struct<a:long>", "1\n2");
    expect("", NULL, "struct<>", "");
}

void test_formats_json__multiline_documents(void)
{
    static const char *const ml[] = {"multiLine", "true", NULL};
    expect("[\n {\"a\":1, \"b\":\"x\"},\n {\"a\":2}\n]\n", ml, "struct<a:long,b:string>",
           "1|x\n2|null");
    expect("{\n \"a\": 1,\n \"b\": [1,2]\n}\n", ml, "struct<a:long,b:array<long>>", "1|[1, 2]");
}

void test_formats_json__strings_escapes_and_unicode(void)
{
    expect("{\"a\":\"q\\\"x\\\\y\\n\\u00e9\\ud83d\\ude00\"}\n", NULL, "struct<a:string>",
           "q\"x\\y\n\xC3\xA9\xF0\x9F\x98\x80");
    expect("{\"\xE5\x90\x8D\":\"\xC3\x85se\"}\n", NULL, "struct<\xE5\x90\x8D:string>",
           "\xC3\x85se");
    expect("{\"d\":{ \"x\" : [1, 2] }}\n{\"d\":\"s\"}\n", NULL, "struct<d:string>",
           "{ \"x\" : [1, 2] }\ns");
}

void test_formats_json__case_conflicting_columns_fail(void)
{
    check_fails(SILT_PARSE, read_json_opts("{\"a\":1,\"A\":2}\n", 14, NULL, NULL, 0));
    check_contains(err.message, "appears twice");
    check_fails(SILT_PARSE, read_json_opts("{\"a\":1,\"a\":2}\n", 14, NULL, NULL, 0));
    check_contains(err.message, "column \"a\" appears twice in one record");
    /* the same key in two records is fine */
    expect("{\"a\":1}\n{\"a\":2}\n", NULL, "struct<a:long>", "1\n2");
}

static const col_type *make_schema(size_t n, const col_field *fields)
{
    return col_type_struct(mem, n, fields);
}

void test_formats_json__explicit_schema_converts_values(void)
{
    col_field fields[6] = {
        {"t", col_type_primitive(COL_TIMESTAMP), 1, NULL, -1},
        {"d", col_type_primitive(COL_DATE), 1, NULL, -1},
        {"i", col_type_primitive(COL_INT), 1, NULL, -1},
        {"l", col_type_primitive(COL_LONG), 1, NULL, -1},
        {"f", col_type_primitive(COL_DOUBLE), 1, NULL, -1},
        {"b", col_type_primitive(COL_BOOLEAN), 1, NULL, -1},
    };
    const char *text = "{\"t\":\"2022-01-01 10:00:00\",\"d\":\"2022-01-02\",\"i\":\"5\",\"l\":7,"
                       "\"f\":1.5,\"b\":true}\n{\"t\":\"bad\",\"d\":\"x\",\"i\":3,\"l\":\"q\",\"f\":"
                       "\"1.5\",\"b\":\"true\"}\n";
    check_ok(read_json_opts(text, strlen(text), NULL, make_schema(6, fields), 0), &err);
    check_str("struct<t:timestamp,d:date,i:integer,l:long,f:double,b:boolean>",
              buf_cstr(&schema_text));
    check_str("2022-01-01 10:00:00|2022-01-02|null|7|1.5|true\nnull|null|3|null|null|null",
              buf_cstr(&rows_text));
    col_field tz[1] = {{"t", col_type_primitive(COL_TIMESTAMP), 1, NULL, -1}};
    text = "{\"t\":\"2022-01-01T10:00:00.5+02:00\"}\n";
    check_ok(read_json_opts(text, strlen(text), NULL, make_schema(1, tz), 0), &err);
    check_str("2022-01-01 08:00:00.5", buf_cstr(&rows_text));
    col_field small[1] = {{"i", col_type_primitive(COL_INT), 1, NULL, -1}};
    text = "{\"i\":3000000000}\n";
    check_ok(read_json_opts(text, strlen(text), NULL, make_schema(1, small), 0), &err);
    check_str("null", buf_cstr(&rows_text));
}

void test_formats_json__explicit_schema_modes(void)
{
    col_field with_corrupt[2] = {
        {"i", col_type_primitive(COL_INT), 1, NULL, -1},
        {"_corrupt_record", col_type_primitive(COL_STRING), 1, NULL, -1},
    };
    const char *text = "{\"i\":1}\n{\"i\":\"x\"}\n{\"i\":\n";
    check_ok(read_json_opts(text, strlen(text), NULL, make_schema(2, with_corrupt), 0), &err);
    check_str("1|null\nnull|{\"i\":\"x\"}\nnull|{\"i\":", buf_cstr(&rows_text));
    static const char *const drop[] = {"mode", "DROPMALFORMED", NULL};
    check_ok(read_json_opts(text, strlen(text), drop, make_schema(1, with_corrupt), 0), &err);
    check_str("1", buf_cstr(&rows_text));
    static const char *const fail[] = {"mode", "FAILFAST", NULL};
    text = "{\"i\":1}\n{\"i\":\"x\"}\n";
    check_fails(SILT_PARSE, read_json_opts(text, strlen(text), fail, make_schema(1, with_corrupt), 0));
    check_contains(err.message, "line 2 of \"in.json\"");
    check_contains(err.message, "field \"i\"");
}

void test_formats_json__nested_explicit_schema(void)
{
    col_field inner[1] = {{"a", col_type_primitive(COL_INT), 1, NULL, -1}};
    col_field fields[2] = {
        {"s", make_schema(1, inner), 1, NULL, -1},
        {"r", col_type_array(mem, col_type_primitive(COL_LONG), 1), 1, NULL, -1},
    };
    const char *text = "{\"s\":{\"a\":1,\"b\":\"x\"},\"r\":[1,2]}\n{\"r\":null,\"s\":null}\n";
    check_ok(read_json_opts(text, strlen(text), NULL, make_schema(2, fields), 0), &err);
    check_str("{1}|[1, 2]\nnull|null", buf_cstr(&rows_text));
}

void test_formats_json__parallel_chunks_match_sequential(void)
{
    buf text = BUF_INIT, expected = BUF_INIT;
    for (int idx = 0; idx < 20000; idx++)
        buf_printf(&text, &err,
                   "{\"trip_id\":%d,\"tstamp\":\"2022-01-%02d 10:00:00\",\"route_id\":\"%c\","
                   "\"destination\":\"City %d\"%s}\n",
                   idx, idx % 28 + 1, 'A' + idx % 5, idx % 13, idx == 15000 ? ",\"extra\":1.5" : "");
    check_ok(read_json_opts(text.data, text.len, NULL, NULL, 0), &err);
    check_str("struct<destination:string,extra:double,route_id:string,trip_id:long,tstamp:string>",
              buf_cstr(&schema_text));
    buf_append(&expected, rows_text.data, rows_text.len, &err);
    check_ok(tpool_new(&pool, 3, &err), &err);
    check_ok(read_json_opts(text.data, text.len, NULL, NULL, 5000), &err);
    check_str("struct<destination:string,extra:double,route_id:string,trip_id:long,tstamp:string>",
              buf_cstr(&schema_text));
    check(rows_text.len == expected.len && memcmp(rows_text.data, expected.data, expected.len) == 0);
    buf_clear(&text);
    buf_clear(&expected);
}

void test_formats_json__tape_rejects_malformed_values(void)
{
    static const char *const bad[] = {"{\"a\":01}", "{\"a\":+1}", "{\"a\":1.}", "{\"a\":\"\\x\"}",
                                      "{\"a\":\"\x01\"}", "{a:1}", "{\"a\":1,}", "[1 2]", "tru",
                                      "{\"a\":\"\\u12\"}", "\"abc"};
    json_tape t;
    json_tape_init(&t, 8);
    for (size_t idx = 0; idx < sizeof(bad) / sizeof(bad[0]); idx++) {
        int ok = 1, empty = 0;
        size_t end;
        check_ok(json_tape_parse(&t, bad[idx], strlen(bad[idx]), &ok, &empty, &end, &err), &err);
        if (ok)
            test_fail(__FILE__, __LINE__, "accepted malformed JSON %s", bad[idx]);
    }
    int ok = 1, empty = 0;
    size_t end;
    const char *deep = "[[[[[[[[[[1]]]]]]]]]]";
    check_ok(json_tape_parse(&t, deep, strlen(deep), &ok, &empty, &end, &err), &err);
    check_int(0, ok);
    check_contains(t.err_what, "nested");
    json_tape_clear(&t);
}

void test_formats_json__options_from_strings(void)
{
    json_options opts;
    json_options_init(&opts);
    check_ok(json_options_set(&opts, mem, "multiline", "true", &err), &err);
    check_int(1, opts.multi_line);
    check_ok(json_options_set(&opts, mem, "inferSchema", "true", &err), &err);
    check_ok(json_options_set(&opts, mem, "mode", "failfast", &err), &err);
    check_int(TEXT_MODE_FAILFAST, opts.mode);
    check_fails(SILT_UNSUPPORTED, json_options_set(&opts, mem, "allowComments", "true", &err));
    check_ok(json_options_set(&opts, mem, "dropFieldIfAllNull", "true", &err), &err);
    check_int(1, opts.drop_field_if_all_null);
    check_ok(json_options_set(&opts, mem, "inferTimestamp", "true", &err), &err);
    check_int(1, opts.infer_timestamp);
    check_fails(SILT_INVALID, json_options_set(&opts, mem, "nosuch", "1", &err));
    check_fails(SILT_INVALID, json_options_set(&opts, mem, "multiLine", "maybe", &err));
}

void test_formats_json__primitives_as_string_and_prefers_decimal(void)
{
    static const char *const pas[] = {"primitivesAsString", "true", NULL};
    expect("{\"a\":1,\"b\":true,\"c\":1.5}\n", pas, "struct<a:string,b:string,c:string>",
           "1|true|1.5");
    static const char *const pd[] = {"prefersDecimal", "true", NULL};
    expect("{\"a\":1.25}\n{\"a\":10}\n", pd, "struct<a:decimal(22,2)>", "1.25\n10.00");
}

void test_formats_json__more_spark_cases(void)
{
    expect("null\n{\"a\":1}\n", NULL, "struct<a:long>", "null\n1");
    expect("[1,{\"a\":1}]\n{\"a\":2}\n", NULL, "struct<_corrupt_record:string,a:long>",
           "[1,{\"a\":1}]|null\nnull|2");
    expect("{\"a\":[{}],\"b\":1}\n", NULL, "struct<b:long>", "1");
    expect("{\"\":1,\"b\":2}\n", NULL, "struct<b:long>", "2");
    expect("{\"b\":1,\"C\":2,\"a\":3}\n", NULL, "struct<C:long,a:long,b:long>", "2|3|1");
    expect("{\"a\":{\"x\":1}}\n{\"a\":[1]}\n", NULL, "struct<a:string>", "{\"x\":1}\n[1]");
    expect("{\"a\":true}\n{\"a\":null}\n", NULL, "struct<a:boolean>", "true\nnull");
    expect("{\"a\":-Infinity,\"b\":Infinity}\n", NULL, "struct<a:double,b:double>",
           "-Infinity|Infinity");
    static const char *const ml[] = {"multiLine", "true", NULL};
    expect("{\"a\":1}\n{\"a\":2}\n", ml, "struct<a:long>", "1");
    expect("{\"a\": 1 , \"b\" : \"x\" }\n", NULL, "struct<a:long,b:string>", "1|x");
    static const char *const its[] = {"inferTimestamp", "true", NULL};
    expect("{\"a\":\"2022-01-01T10:00:00\"}\n", its, "struct<a:timestamp>", "2022-01-01 10:00:00");
    expect("{\"a\":\"2022-01-01T10:00:00\"}\n", NULL, "struct<a:string>", "2022-01-01T10:00:00");
}

void test_formats_json__explicit_schema_edge_values(void)
{
    col_field s3[3] = {
        {"s", col_type_primitive(COL_STRING), 1, NULL, -1},
        {"t", col_type_primitive(COL_STRING), 1, NULL, -1},
        {"o", col_type_primitive(COL_STRING), 1, NULL, -1},
    };
    const char *text = "{\"s\":1.50,\"t\":true,\"o\":{ \"x\" : [1, 2] }}\n";
    check_ok(read_json_opts(text, strlen(text), NULL, make_schema(3, s3), 0), &err);
    check_str("1.50|true|{ \"x\" : [1, 2] }", buf_cstr(&rows_text));
    col_field d4[4] = {
        {"d", col_type_primitive(COL_DOUBLE), 1, NULL, -1},
        {"e", col_type_primitive(COL_DOUBLE), 1, NULL, -1},
        {"f", col_type_primitive(COL_DOUBLE), 1, NULL, -1},
        {"g", col_type_primitive(COL_DOUBLE), 1, NULL, -1},
    };
    text = "{\"d\":\"NaN\",\"e\":\"-INF\",\"f\":\"1.5\",\"g\":\"Infinity\"}\n";
    check_ok(read_json_opts(text, strlen(text), NULL, make_schema(4, d4), 0), &err);
    check_str("NaN|-Infinity|null|Infinity", buf_cstr(&rows_text));
    col_field dec[3] = {
        {"a", col_type_decimal(mem, 5, 2), 1, NULL, -1},
        {"b", col_type_decimal(mem, 5, 2), 1, NULL, -1},
        {"c", col_type_decimal(mem, 5, 2), 1, NULL, -1},
    };
    text = "{\"a\":1.255,\"b\":\"2.5\",\"c\":12345678901}\n";
    check_ok(read_json_opts(text, strlen(text), NULL, make_schema(3, dec), 0), &err);
    check_str("1.26|2.50|null", buf_cstr(&rows_text));
    col_field ts[1] = {{"t", col_type_primitive(COL_TIMESTAMP), 1, NULL, -1}};
    text = "{\"t\":1600000000}\n";
    check_ok(read_json_opts(text, strlen(text), NULL, make_schema(1, ts), 0), &err);
    check_str("2020-09-13 12:26:40", buf_cstr(&rows_text));
    col_field dates[2] = {
        {"d", col_type_primitive(COL_DATE), 1, NULL, -1},
        {"e", col_type_primitive(COL_DATE), 1, NULL, -1},
    };
    text = "{\"d\":\"2022-01-02 10:00:00\",\"e\":\"2022-1-2\"}\n";
    check_ok(read_json_opts(text, strlen(text), NULL, make_schema(2, dates), 0), &err);
    check_str("2022-01-02|2022-01-02", buf_cstr(&rows_text));
    col_field arr[2] = {
        {"r", col_type_array(mem, col_type_primitive(COL_LONG), 1), 1, NULL, -1},
        {"_corrupt_record", col_type_primitive(COL_STRING), 1, NULL, -1},
    };
    text = "{\"r\":[1,\"x\",3]}\n{\"r\":[4]}\n";
    check_ok(read_json_opts(text, strlen(text), NULL, make_schema(2, arr), 0), &err);
    check_str("null|{\"r\":[1,\"x\",3]}\n[4]|null", buf_cstr(&rows_text));
    col_field m[1] = {{"m", col_type_map(mem, col_type_primitive(COL_STRING),
                                         col_type_primitive(COL_LONG), 1), 1, NULL, -1}};
    text = "{\"m\":{\"a\":1,\"b\":2}}\n{\"m\":{\"a\":\"x\"}}\n";
    check_ok(read_json_opts(text, strlen(text), NULL, make_schema(1, m), 0), &err);
    check_str("{a -> 1, b -> 2}\nnull", buf_cstr(&rows_text));
    col_field i1[2] = {
        {"i", col_type_primitive(COL_INT), 1, NULL, -1},
        {"_corrupt_record", col_type_primitive(COL_STRING), 1, NULL, -1},
    };
    text = "{\"i\":1.0}\n{\"i\":\"\"}\n";
    check_ok(read_json_opts(text, strlen(text), NULL, make_schema(2, i1), 0), &err);
    check_str("null|{\"i\":1.0}\nnull|{\"i\":\"\"}", buf_cstr(&rows_text));
}

void test_formats_json__invalid_utf8_becomes_replacement_characters(void)
{
    expect("{\"k\xff\":\"v\xc3\"}\n{\"k\xff\":[\"\xe2\x82\"]\n", NULL,
           "struct<_corrupt_record:string,k\xEF\xBF\xBD:string>",
           "null|v\xEF\xBF\xBD\n{\"k\xEF\xBF\xBD\":[\"\xEF\xBF\xBD\"]|null");
}

void test_formats_json__nesting_limit_is_jacksons(void)
{
    buf text = BUF_INIT;
    for (int idx = 0; idx < 999; idx++)
        buf_append_char(&text, '[', &err);
    for (int idx = 0; idx < 999; idx++)
        buf_append_char(&text, ']', &err);
    /* 1000 levels (the object and 999 arrays) are fine, 1001 are not */
    buf ok_line = BUF_INIT;
    buf_printf(&ok_line, &err, "{\"a\":%s}\n", buf_cstr(&text));
    check_ok(read_json_opts(ok_line.data, ok_line.len, NULL, NULL, 0), &err);
    check_contains(buf_cstr(&schema_text), "struct<a:array<array<");
    buf too_deep = BUF_INIT;
    buf_printf(&too_deep, &err, "{\"a\":[%s]}\n", buf_cstr(&text));
    check_ok(read_json_opts(too_deep.data, too_deep.len, NULL, NULL, 0), &err);
    check_str("struct<_corrupt_record:string>", buf_cstr(&schema_text));
    buf_clear(&text);
    buf_clear(&ok_line);
    buf_clear(&too_deep);
}

void test_formats_json__drop_field_if_all_null(void)
{
    static const char *const drop[] = {"dropFieldIfAllNull", "true", NULL};
    expect("{\"a\":null,\"b\":1,\"c\":[],\"d\":{\"x\":null}}\n{\"a\":null,\"b\":2}\n", drop,
           "struct<b:long>", "1\n2");
    expect("{\"a\":null,\"b\":1,\"c\":[]}\n", NULL, "struct<a:string,b:long,c:array<string>>",
           "null|1|[]");
}

/*
 * The string scanner finds the end of a plain run 16 or 8 bytes at a time:
 * put a quote, an escape, a control byte or a multi-byte character at every
 * position of strings of every length up to three blocks, at every
 * alignment, ending at the very end of the buffer or followed by more text,
 * and check the token (length, escaped, ascii) or the error position.
 */
void test_formats_json__tape_strings_at_every_block_position(void)
{
    static const char *const specials[] = {"", "\\n", "\\\"", "\xc3\xa9", "\x01"};
    json_tape t;
    buf text = BUF_INIT;
    json_tape_init(&t, 8);
    for (size_t lead = 0; lead < 3; lead++)
        for (size_t body = 0; body <= 40; body++)
            for (size_t kind = 0; kind < 5; kind++)
                for (size_t at = 0; at <= body; at++) {
                    if (kind == 0 && at > 0)
                        break;
                    /* [ + lead spaces + "body with special at `at`" + , "é" or ] */
                    for (int tail = 0; tail < 2; tail++) {
                        int ok = 0, empty = 0;
                        size_t end, str_len = body + strlen(specials[kind]);
                        buf_truncate(&text, 0);
                        buf_append_char(&text, '[', &err);
                        for (size_t idx = 0; idx < lead; idx++)
                            buf_append_char(&text, ' ', &err);
                        buf_append_char(&text, '"', &err);
                        for (size_t idx = 0; idx < body; idx++) {
                            if (idx == at)
                                buf_append(&text, specials[kind], strlen(specials[kind]), &err);
                            buf_append_char(&text, (char)('a' + idx % 26), &err);
                        }
                        if (at == body)
                            buf_append(&text, specials[kind], strlen(specials[kind]), &err);
                        buf_append_char(&text, '"', &err);
                        if (tail)
                            buf_append(&text, ",\"\xc3\xa9\\\\\"]", 8, &err);
                        else
                            buf_append_char(&text, ']', &err);
                        check_ok(json_tape_parse(&t, text.data, text.len, &ok, &empty, &end, &err),
                                 &err);
                        if (kind == 4) {
                            check_int(0, ok);
                            check_int((int64_t)(2 + lead + at), (int64_t)t.err_pos);
                            continue;
                        }
                        check_int(1, ok);
                        check_int((int64_t)text.len, (int64_t)end);
                        check_int(JT_STRING, t.toks[1].kind);
                        check_int((int64_t)str_len, (int64_t)t.toks[1].len);
                        check_int(kind == 1 || kind == 2, t.toks[1].escaped);
                        check_int(kind != 3, t.toks[1].ascii);
                        if (tail) {
                            check_int(3, (int64_t)t.n);
                            check_int(1, t.toks[2].escaped);
                            check_int(0, t.toks[2].ascii);
                        }
                    }
                }
    json_tape_clear(&t);
    buf_clear(&text);
}

/* Inference and conversion guess a key's field from the same position in
 * the last record; changing key orders and fields added midway (which
 * shift the sorted fields under the guesses) must not mislead them. */
void test_formats_json__key_order_changes_between_records(void)
{
    expect("{\"b\":1,\"a\":\"x\",\"s\":{\"q\":1,\"p\":2}}\n"
           "{\"a\":\"y\",\"b\":2,\"s\":{\"p\":3,\"q\":4}}\n"
           "{\"c\":true,\"b\":3,\"a\":\"z\",\"s\":{\"o\":0,\"q\":5,\"p\":6}}\n"
           "{\"b\":4,\"a\":\"w\"}\n"
           "{\"a\":\"v\",\"b\":5,\"c\":false,\"aa\":1.5}\n",
           NULL, "struct<a:string,aa:double,b:long,c:boolean,s:struct<o:long,p:long,q:long>>",
           "x|null|1|null|{null, 2, 1}\ny|null|2|null|{null, 3, 4}\nz|null|3|true|{0, 6, 5}\n"
           "w|null|4|null|null\nv|1.5|5|false|null");
}

/*
 * One pass: inference converts each chunk with the chunk's own schema and
 * the read hands those rows out when the final schema is the same. Reads
 * with small chunks, windows and speculation budgets (several threads, so
 * chunks finish out of order) must give exactly the rows and schema of a
 * serial two-pass read, whatever the chunks disagree on.
 */
static void read_json_tuned(const char *text, const char *const *kv, size_t chunk_bytes,
                            size_t window_bytes, size_t speculate_bytes)
{
    json_options opts;
    json_scan *scan = NULL;
    const char *key = "in.json";
    buf_truncate(&schema_text, 0);
    buf_truncate(&rows_text, 0);
    check_ok(io_put(store, key, text, strlen(text), &err), &err);
    json_options_init(&opts);
    opts.pool = pool;
    opts.chunk_bytes = chunk_bytes;
    opts.window_bytes = window_bytes;
    opts.speculate_bytes = speculate_bytes;
    for (size_t idx = 0; kv != NULL && kv[idx] != NULL; idx += 2)
        check_ok(json_options_set(&opts, mem, kv[idx], kv[idx + 1], &err), &err);
    check_ok(json_scan_open(&scan, store, &key, 1, &opts, &err), &err);
    check_ok(col_type_format(json_scan_schema(scan), &schema_text, &err), &err);
    check_ok(render_scan(&rows_text, scan, render_json_next, mem, -1, &err), &err);
    json_scan_free(scan);
}

/* Reports the first differing line (the messages of check_str are cut short). */
static void check_same_lines(const char *want, const char *got, size_t chunk, size_t window,
                             size_t budget)
{
    size_t line = 1;
    while (*want != '\0' && *want == *got) {
        line += *want == '\n';
        want++;
        got++;
    }
    if (*want != *got)
        test_fail(__FILE__, __LINE__, "chunk %zu window %zu budget %zu: line %zu differs: "
                  "want \"%.60s\", got \"%.60s\"", chunk, window, budget, line, want, got);
}

static void check_one_pass_matches_two(const char *text, const char *const *kv)
{
    static const size_t chunks[] = {64, 300, 4096};
    static const size_t windows[] = {0, 1000};
    static const size_t budgets[] = {1, 700, (size_t)1 << 30};
    buf want_schema = BUF_INIT, want_rows = BUF_INIT;
    read_json_tuned(text, kv, (size_t)1 << 30, 0, 0);
    buf_append(&want_schema, schema_text.data, schema_text.len, &err);
    buf_append(&want_rows, rows_text.data, rows_text.len, &err);
    for (size_t c = 0; c < 3; c++)
        for (size_t w = 0; w < 2; w++)
            for (size_t b = 0; b < 3; b++) {
                read_json_tuned(text, kv, chunks[c], windows[w], budgets[b]);
                check_str(buf_cstr(&want_schema), buf_cstr(&schema_text));
                check_same_lines(buf_cstr(&want_rows), buf_cstr(&rows_text), chunks[c],
                                 windows[w], budgets[b]);
            }
    buf_clear(&want_schema);
    buf_clear(&want_rows);
}

void test_formats_json__one_pass_equals_two_passes(void)
{
    buf text = BUF_INIT;
    check_ok(tpool_new(&pool, 3, &err), &err);
    /* long in the first chunks, double in a later one: every chunk widens */
    for (int idx = 0; idx < 200; idx++)
        buf_printf(&text, &err, "{\"id\":%d,\"v\":%s,\"s\":\"r%d\"}\n", idx,
                   idx == 150 ? "2.5" : "7", idx % 7);
    check_one_pass_matches_two(buf_cstr(&text), NULL);
    /* a string in one chunk turns a number column into strings */
    buf_truncate(&text, 0);
    for (int idx = 0; idx < 200; idx++)
        buf_printf(&text, &err, "{\"n\":%s,\"k\":%d}\n", idx == 120 ? "\"x\"" : "12", idx);
    check_one_pass_matches_two(buf_cstr(&text), NULL);
    /* nested objects and arrays, a field only in some chunks, key orders */
    buf_truncate(&text, 0);
    for (int idx = 0; idx < 200; idx++)
        buf_printf(&text, &err, idx % 3 ? "{\"a\":{\"x\":%d,\"y\":[1,2]},\"b\":[{\"c\":true}]}\n"
                                        : "{\"b\":[],\"a\":{\"y\":[%d],\"z\":null}%s}\n",
                   idx, idx == 90 ? ",\"late\":\"yes\"" : "");
    check_one_pass_matches_two(buf_cstr(&text), NULL);
    /* every chunk agrees: all rows come from inference, the text is read once */
    buf_truncate(&text, 0);
    for (int idx = 0; idx < 300; idx++)
        buf_printf(&text, &err, "{\"trip_id\":%d,\"route_id\":\"%c\",\"d\":\"caf\u00e9 %d\"}\n",
                   idx, 'A' + idx % 10, idx % 3);
    check_one_pass_matches_two(buf_cstr(&text), NULL);
    buf_clear(&text);
}

void test_formats_json__one_pass_malformed_records_by_mode(void)
{
    static const char *const permissive[] = {"mode", "PERMISSIVE", NULL};
    static const char *const drop[] = {"mode", "DROPMALFORMED", NULL};
    buf text = BUF_INIT;
    check_ok(tpool_new(&pool, 3, &err), &err);
    for (int idx = 0; idx < 200; idx++) {
        if (idx == 77)
            buf_printf(&text, &err, "{\"id\":%d,\"s\":\"broken\n", idx);
        else if (idx == 140)
            buf_printf(&text, &err, "[{\"id\":%d},{\"id\":\"text\"}]\n", idx);
        else
            buf_printf(&text, &err, "{\"id\":%d,\"s\":\"caf\xc3\xa9 %d\"}\n", idx, idx);
    }
    check_one_pass_matches_two(buf_cstr(&text), permissive);
    check_contains(buf_cstr(&schema_text), "_corrupt_record");
    check_one_pass_matches_two(buf_cstr(&text), drop);
    check(strstr(buf_cstr(&rows_text), "broken") == NULL);
    buf_clear(&text);
}

void test_formats_json__one_pass_failfast_reports_the_same_error(void)
{
    static const char *const failfast[] = {"mode", "FAILFAST", NULL};
    buf text = BUF_INIT;
    check_ok(tpool_new(&pool, 3, &err), &err);
    for (int idx = 0; idx < 200; idx++)
        buf_printf(&text, &err, idx == 130 ? "{\"id\":%d,}\n" : "{\"id\":%d}\n", idx);
    for (size_t c = 0; c < 2; c++) {
        json_options opts;
        json_scan *scan = NULL;
        const char *key = "in.json";
        check_ok(io_put(store, key, text.data, text.len, &err), &err);
        json_options_init(&opts);
        opts.pool = pool;
        opts.chunk_bytes = (size_t)(c == 0 ? 64 : 1048576);
        check_ok(json_options_set(&opts, mem, failfast[0], failfast[1], &err), &err);
        check_fails(SILT_PARSE, json_scan_open(&scan, store, &key, 1, &opts, &err));
        check_contains(err.message, "line 131, position 11");
    }
    buf_clear(&text);
}

/*
 * Values the object loop parses itself (strings, plain integers) and the
 * ones it leaves to the general parser: kinds, lengths and error positions
 * must be the general parser's. Records are also cut short inside each
 * value, so the fast paths meet the end of the text.
 */
void test_formats_json__tape_values_in_the_container_loop(void)
{
    static const struct {
        const char *text;
        int ok;
        size_t err_pos; /* when !ok */
        jtok_kind kind; /* of the first value, when ok */
        size_t len;
    } cases[] = {
        {"{\"a\":1}", 1, 0, JT_INT, 1},
        {"{\"a\":123456789012345678901234567890}", 1, 0, JT_INT, 30},
        {"{\"a\":12.5}", 1, 0, JT_FLOAT, 4},
        {"{\"a\":12e5}", 1, 0, JT_FLOAT, 4},
        {"{\"a\":12E+5,\"b\":1}", 1, 0, JT_FLOAT, 5},
        {"{\"a\":-7}", 1, 0, JT_INT, 2},
        {"{\"a\":0}", 1, 0, JT_INT, 1},
        {"{\"a\" : 7 , \"b\" :\t\"x\" }", 1, 0, JT_INT, 1},
        {"{\"a\":12.}", 0, 8, JT_INT, 0},
        {"{\"a\":12x}", 0, 7, JT_INT, 0},
        {"{\"a\":012}", 0, 5, JT_INT, 0},
        {"{\"a\":12", 0, 7, JT_INT, 0},
        {"{\"a\":\"abc", 0, 9, JT_INT, 0},
        {"{\"a\":\"0123456789abcdef0123", 0, 26, JT_INT, 0},
        {"{\"a\":\"0123456789abcdef\x01\"}", 0, 22, JT_INT, 0},
        {"{\"a\":\"0123456789abcdef0123456789abcdef\"}", 1, 0, JT_STRING, 32},
        {"{\"a\":\"0123456789abcdef0123456789abcdefg\"}", 1, 0, JT_STRING, 33},
        {"{\"0123456789abcdef\":1}", 1, 0, JT_INT, 1},
        {"{\"a\":1\"b\":2}", 0, 6, JT_INT, 0},
        {"{\"a\" 1}", 0, 5, JT_INT, 0},
    };
    json_tape t;
    json_tape_init(&t, 8);
    for (size_t idx = 0; idx < sizeof(cases) / sizeof(cases[0]); idx++) {
        int ok = -1, empty = 0;
        size_t end;
        check_ok(json_tape_parse(&t, cases[idx].text, strlen(cases[idx].text), &ok, &empty, &end,
                                 &err),
                 &err);
        if (ok != cases[idx].ok)
            test_fail(__FILE__, __LINE__, "%s: ok %d", cases[idx].text, ok);
        else if (!ok && t.err_pos != cases[idx].err_pos)
            test_fail(__FILE__, __LINE__, "%s: error at %zu", cases[idx].text, t.err_pos);
        else if (ok && (t.toks[2].kind != cases[idx].kind || t.toks[2].len != cases[idx].len))
            test_fail(__FILE__, __LINE__, "%s: kind %d len %zu", cases[idx].text,
                      t.toks[2].kind, t.toks[2].len);
    }
    json_tape_clear(&t);
}

/* Writes n trips-like records with the given changes at some rows. */
static void trips_text(buf *out, size_t n)
{
    for (size_t row = 0; row < n; row++) {
        char line[160];
        if (row == 4500)
            snprintf(line, sizeof(line), "{\"id\":%zu,\"name\":null,\"tag\":\"A\"}\n", row);
        else if (row == 4700)
            snprintf(line, sizeof(line), "{\"id\":%zu,\"name\":\"n%zu\"}\n", row, row);
        else if (row == 4800)
            snprintf(line, sizeof(line), "{\"tag\":\"B\",\"name\":\"x\",\"id\":%zu}\n", row);
        else
            snprintf(line, sizeof(line), "{\"id\":%zu,\"name\":\"n%zu\",\"tag\":\"A\"}\n", row, row);
        buf_append_str(out, line, &err);
    }
}

/*
 * The conversion's fast path (every key where it was last time) and the
 * general path must give the same rows: nulls first seen after thousands
 * of rows (past a batch), a missing key, another key order, then records
 * the fast path must refuse (duplicate key, escaped key, non-ASCII key)
 * and values it leaves to the general conversion.
 */
void test_formats_json__conversion_fast_path_edges(void)
{
    buf text = BUF_INIT;
    trips_text(&text, 5000);
    buf_append_str(&text,
                   "{\"id\":9223372036854775807,\"name\":\"\\u00e9\\n\",\"tag\":\"\xc3\xa9\"}\n"
                   "{\"id\":1,\"name\":\"a\",\"tag\":\"c\",\"id\":2}\n"
                   "{\"i\\u0064\":3,\"name\":\"a\",\"tag\":\"c\"}\n"
                   "{\"id\":4,\"name\":5,\"tag\":{\"x\":1}}\n"
                   "{\"id\":9223372036854775808,\"name\":\"a\",\"tag\":\"c\"}\n"
                   "{\"id\":-123456789012345678,\"name\":\"a\",\"tag\":\"c\"}\n"
                   "{\"id\":1.5,\"name\":\"a\",\"tag\":\"c\"}\n"
                   "{\"id\":7,\"name\":\"a\",\"t\xc3\xa9g\":\"c\"}\n"
                   "{\"id\":8,\"name\":\"a\",\"tag\":\"c\"\n",
                   &err);
    col_field fields[4] = {
        {"id", col_type_primitive(COL_LONG), 1, NULL, -1},
        {"name", col_type_primitive(COL_STRING), 1, NULL, -1},
        {"tag", col_type_primitive(COL_STRING), 1, NULL, -1},
        {"_corrupt_record", col_type_primitive(COL_STRING), 1, NULL, -1},
    };
    check_ok(read_json_opts(text.data, text.len, NULL, make_schema(4, fields), 0), &err);
    const char *rows = buf_cstr(&rows_text);
    check_contains(rows, "4499|n4499|A|null\n4500|null|A|null\n4501|n4501|A|null\n");
    check_contains(rows, "4700|n4700|null|null\n4701|n4701|A|null\n");
    check_contains(rows, "4800|x|B|null\n4801|n4801|A|null\n");
    check_contains(rows, "4999|n4999|A|null\n"
                         "9223372036854775807|\xc3\xa9\n|\xc3\xa9|null\n"
                         "2|a|c|null\n"
                         "3|a|c|null\n"
                         "4|5|{\"x\":1}|null\n"
                         "null|a|c|{\"id\":9223372036854775808,\"name\":\"a\",\"tag\":\"c\"}\n"
                         "-123456789012345678|a|c|null\n"
                         "null|a|c|{\"id\":1.5,\"name\":\"a\",\"tag\":\"c\"}\n"
                         "7|a|null|null\n"
                         "null|null|null|{\"id\":8,\"name\":\"a\",\"tag\":\"c\"");
    /* the first 4500 rows have no null: one batch without a validity bitmap */
    check(strncmp(rows, "0|n0|A|null\n1|n1|A|null\n", 24) == 0);
    buf_clear(&text);
}

/* Reads in.json with small batches (several reserved, handed-over builders). */
static silt_status scan_small_batches(void)
{
    json_options opts;
    json_scan *scan = NULL;
    const char *key = "in.json";
    arena *a = arena_new(NULL, "oom");
    silt_status rc;
    if (a == NULL)
        return SILT_NOMEM;
    json_options_init(&opts);
    opts.batch_rows = 3;
    rc = json_scan_open(&scan, store, &key, 1, &opts, &err);
    for (col_batch b = {0}; rc == SILT_OK;) {
        rc = json_scan_next(scan, a, &b, &err);
        if (b.n_rows == 0)
            break;
    }
    json_scan_free(scan);
    arena_free(a);
    return rc;
}

/* The fast paths under allocation failures: every run ends in OK or NOMEM. */
void test_formats_json__allocation_failures_in_the_fast_paths(void)
{
    const char *text = "{\"id\":1,\"name\":\"a\",\"ts\":\"2022-01-31 05:49:39\"}\n"
                       "{\"id\":2,\"name\":\"b\",\"ts\":\"2022-01-31 05:49:40\"}\n"
                       "{\"id\":3,\"name\":\"c\",\"ts\":\"2022-01-31 05:49:41\"}\n"
                       "{\"id\":4,\"name\":\"d\",\"ts\":\"2022-01-31 05:49:42\"}\n"
                       "{\"id\":5,\"name\":null,\"ts\":\"2022-01-31 05:49:43\"}\n"
                       "{\"id\":6,\"name\":\"f\"}\n"
                       "{\"id\":7,\"name\":\"g\",\"ts\":\"2022-01-31 05:49:45\"}\n";
    int succeeded = 0;
    check_ok(io_put(store, "in.json", text, strlen(text), &err), &err);
    for (long countdown = 0; countdown < 5000 && !succeeded; countdown++) {
        mem_fail_after(countdown);
        silt_status rc = scan_small_batches();
        mem_fail_reset();
        if (rc != SILT_OK && rc != SILT_NOMEM)
            test_fail(__FILE__, __LINE__, "allocation %ld failed with %s: %s", countdown,
                      silt_status_name(rc), err.message);
        succeeded = rc == SILT_OK;
    }
    check(succeeded);
}
