/*
 * Unit tests of Spark datetime patterns (timestampFormat, dateFormat) and
 * of their use by the CSV and JSON readers.
 */
#include <string.h>

#include "csvjson_render.h"
#include "formats/csv/csv.h"
#include "formats/json/json.h"
#include "formats/text/text_datetime.h"
#include "test.h"

static silt_error err;
static arena *mem;
static io_store *store;

void test_formats_csv_datetime__initialize(void)
{
    err_clear(&err);
    mem = arena_new(NULL, "test");
    store = NULL;
    check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
}

void test_formats_csv_datetime__cleanup(void)
{
    arena_free(mem);
    io_store_free(store);
}

static const char *ts(const char *pattern, const char *value)
{
    static char out[64];
    const text_dt_pattern *p = NULL;
    int64_t micros;
    check_ok(text_dt_compile(pattern, mem, &p, &err), &err);
    if (!text_dt_parse_timestamp(p, value, strlen(value), &micros))
        return "fail";
    time_format_timestamp_spark(micros, out, sizeof(out));
    return out;
}

void test_formats_csv_datetime__patterns(void)
{
    check_str("2022-01-05 10:30:00", ts("dd/MM/yyyy HH:mm", "05/01/2022 10:30"));
    check_str("fail", ts("dd/MM/yyyy HH:mm", "2022-01-05 10:30:00"));
    check_str("2022-01-05 00:00:00", ts("yyyyMMdd", "20220105"));
    check_str("2022-01-05 00:00:00", ts("dd-MMM-yyyy", "05-Jan-2022"));
    check_str("2022-01-05 00:00:00", ts("dd-MMM-yyyy", "05-JAN-2022"));
    check_str("2022-01-05 00:00:00", ts("MMMM d, yyyy", "January 5, 2022"));
    check_str("2022-01-05 13:30:00", ts("yyyy-MM-dd hh:mm a", "2022-01-05 01:30 PM"));
    check_str("2022-01-05 00:30:00", ts("yyyy-MM-dd hh:mm a", "2022-01-05 12:30 AM"));
    check_str("2022-01-05 09:30:00.123", ts("yyyy-MM-dd'T'HH:mm:ss.SSSZ", "2022-01-05T10:30:00.123+0100"));
    check_str("2022-01-05 10:30:00", ts("yyyy-MM-dd HH:mm[:ss]", "2022-01-05 10:30"));
    check_str("2022-01-05 10:30:15", ts("yyyy-MM-dd HH:mm[:ss]", "2022-01-05 10:30:15"));
    check_str("2022-01-05 10:30:00", ts("yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]", "2022-01-05T10:30:00Z"));
    check_str("2022-01-05 08:30:00", ts("yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]", "2022-01-05T10:30:00+02:00"));
    check_str("2022-01-05 00:00:00", ts("d/M/yyyy", "5/1/2022"));
    check_str("2022-01-05 00:00:00", ts("EEE, dd MMM yyyy", "Wed, 05 Jan 2022"));
    check_str("fail", ts("dd/MM/yyyy", "31/02/2022"));
    check_str("fail", ts("dd/MM/yyyy", "05/01/2022 extra"));
    check_str("2022-01-05 00:00:00", ts("yy-MM-dd", "22-01-05"));
    check_str("2022-01-05 00:00:00", ts("'it''s' yyyy-MM-dd", "it's 2022-01-05"));
}

void test_formats_csv_datetime__bad_patterns_are_refused(void)
{
    const text_dt_pattern *p;
    check_fails(SILT_UNSUPPORTED, text_dt_compile("yyyy-ww", mem, &p, &err));
    check_contains(err.message, "letter 'w' at position 6");
    check_fails(SILT_INVALID, text_dt_compile("yyyy'-MM", mem, &p, &err));
    check_fails(SILT_INVALID, text_dt_compile("yyyy]", mem, &p, &err));
    check_fails(SILT_INVALID, text_dt_compile("[yyyy", mem, &p, &err));
    csv_options opts;
    csv_options_init(&opts);
    check_fails(SILT_UNSUPPORTED, csv_options_set(&opts, mem, "timestampFormat", "GGGG", &err));
}

static void read_csv(const char *text, const char *const *kv, const char *schema,
                     const char *rows)
{
    csv_options opts;
    csv_scan *scan = NULL;
    const char *key = "f.csv";
    buf s = BUF_INIT, r = BUF_INIT;
    check_ok(io_put(store, key, text, strlen(text), &err), &err);
    csv_options_init(&opts);
    opts.header = 1;
    opts.infer_schema = 1;
    for (size_t idx = 0; kv[idx] != NULL; idx += 2)
        check_ok(csv_options_set(&opts, mem, kv[idx], kv[idx + 1], &err), &err);
    check_ok(csv_scan_open(&scan, store, &key, 1, &opts, &err), &err);
    check_ok(col_type_format(csv_scan_schema(scan), &s, &err), &err);
    check_ok(render_scan(&r, scan, render_csv_next, mem, -1, &err), &err);
    csv_scan_free(scan);
    check_str(schema, buf_cstr(&s));
    check_str(rows, buf_cstr(&r));
    buf_clear(&s);
    buf_clear(&r);
}

void test_formats_csv_datetime__csv_inference_with_formats(void)
{
    static const char *const tsf[] = {"timestampFormat", "dd/MM/yyyy HH:mm", NULL};
    read_csv("a,b\n05/01/2022 10:30,1\n31/12/2021 23:59,2\n", tsf, "struct<a:timestamp,b:integer>",
             "2022-01-05 10:30:00|1\n2021-12-31 23:59:00|2");
    read_csv("a\n2022-01-05 10:30:00\n", tsf, "struct<a:string>", "2022-01-05 10:30:00");
    static const char *const df[] = {"dateFormat", "MM/dd/yyyy", NULL};
    read_csv("a\n01/05/2022\n12/31/2021\n", df, "struct<a:date>", "2022-01-05\n2021-12-31");
    static const char *const compact[] = {"dateFormat", "yyyyMMdd", NULL};
    read_csv("a\n20220105\n", compact, "struct<a:integer>", "20220105");
}

void test_formats_csv_datetime__json_schema_with_formats(void)
{
    col_field fields[2] = {
        {"t", col_type_primitive(COL_TIMESTAMP), 1, NULL, -1},
        {"d", col_type_primitive(COL_DATE), 1, NULL, -1},
    };
    json_options opts;
    json_scan *scan = NULL;
    const char *key = "f.json";
    const char *text = "{\"t\":\"05/01/2022 10:30\",\"d\":\"01/05/2022\"}\n{\"t\":\"2022-01-05\"}\n";
    buf r = BUF_INIT;
    check_ok(io_put(store, key, text, strlen(text), &err), &err);
    json_options_init(&opts);
    check_ok(json_options_set(&opts, mem, "timestampFormat", "dd/MM/yyyy HH:mm", &err), &err);
    check_ok(json_options_set(&opts, mem, "dateFormat", "MM/dd/yyyy", &err), &err);
    opts.schema = col_type_struct(mem, 2, fields);
    check_ok(json_scan_open(&scan, store, &key, 1, &opts, &err), &err);
    check_ok(render_scan(&r, scan, render_json_next, mem, -1, &err), &err);
    json_scan_free(scan);
    check_str("2022-01-05 10:30:00|2022-01-05\nnull|null", buf_cstr(&r));
    buf_clear(&r);
}
