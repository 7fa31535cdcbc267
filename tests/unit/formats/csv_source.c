/*
 * Unit tests of path resolution (file, folder, glob) shared by the CSV and
 * JSON readers, and of scans over several files.
 */
#include <string.h>

#include "csvjson_render.h"
#include "formats/csv/csv.h"
#include "formats/json/json.h"
#include "formats/text/text_source.h"
#include "test.h"
#include "util/mem.h"

static io_store *store;
static silt_error err;
static arena *mem;

void test_formats_csv_source__initialize(void)
{
    err_clear(&err);
    store = NULL;
    check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
    mem = arena_new(NULL, "test");
    static const char *const files[] = {"raw/v1/a.csv", "raw/v1/b.csv",    "raw/v1/_SUCCESS",
                                        "raw/v1/.a.csv.crc", "raw/v1/sub/c.csv", "raw/v2/a.csv",
                                        "raw/v1/c.txt"};
    for (size_t idx = 0; idx < sizeof(files) / sizeof(files[0]); idx++) {
        char text[64];
        int n = snprintf(text, sizeof(text), "name,n\n%s,%zu\n", files[idx], idx);
        check_ok(io_put(store, files[idx], text, (size_t)n, &err), &err);
    }
}

void test_formats_csv_source__cleanup(void)
{
    arena_free(mem);
    io_store_free(store);
}

static const char *resolve(const char *path)
{
    char **keys = NULL;
    size_t n = 0;
    static buf out;
    buf_clear(&out);
    check_ok(text_resolve_path(store, path, mem, &keys, &n, &err), &err);
    for (size_t idx = 0; idx < n; idx++)
        buf_printf(&out, &err, "%s%s", idx ? " " : "", keys[idx]);
    return buf_cstr(&out);
}

void test_formats_csv_source__file_folder_and_glob(void)
{
    check_str("raw/v1/a.csv", resolve("raw/v1/a.csv"));
    check_str("raw/v1/a.csv raw/v1/b.csv raw/v1/c.txt", resolve("raw/v1"));
    check_str("raw/v1/a.csv raw/v1/b.csv raw/v1/c.txt", resolve("raw/v1/"));
    check_str("raw/v1/a.csv raw/v1/b.csv", resolve("raw/v1/*.csv"));
    check_str("raw/v1/a.csv raw/v2/a.csv", resolve("raw/v?/a.csv"));
    check_str("raw/v1/b.csv", resolve("raw/v1/[!a].csv"));
    check_str("raw/v1/a.csv raw/v1/b.csv", resolve("raw/v1/[a-b].csv"));
    check_str("raw/v1/a.csv raw/v1/b.csv raw/v2/a.csv", resolve("raw/*/*.csv"));
    check_fails(SILT_NOTFOUND, text_resolve_path(store, "raw/v3", mem, &(char **){NULL},
                                                 &(size_t){0}, &err));
    check_contains(err.message, "\"raw/v3\" matches no files");
    check_fails(SILT_NOTFOUND, text_resolve_path(store, "raw/*.json", mem, &(char **){NULL},
                                                 &(size_t){0}, &err));
}

void test_formats_csv_source__glob_matcher(void)
{
    check(text_glob_match("*", 1, "abc", 3));
    check(!text_glob_match("*", 1, "a/b", 3));
    check(text_glob_match("a*c", 3, "abbbc", 5));
    check(!text_glob_match("a*c", 3, "abbbd", 5));
    check(text_glob_match("a?c", 3, "abc", 3));
    check(text_glob_match("[", 1, "[", 1)); /* an unclosed bracket is literal */
    check(!text_glob_match("a", 1, "", 0));
    check(text_glob_match("**", 2, "", 0));
    /* a double star crosses folders (as in Synapse), a single one does not */
    check(text_glob_match("d/**", 4, "d/a/b.parquet", 13));
    check(text_glob_match("d/**.csv", 8, "d/x/y.csv", 9));
    check(!text_glob_match("d/**.csv", 8, "d/x/y.txt", 9));
    check(!text_glob_match("d/*", 3, "d/a/b", 5));
}

void test_formats_csv_source__csv_scan_over_a_folder_skips_each_header(void)
{
    char **keys = NULL;
    size_t n = 0;
    csv_options opts;
    csv_scan *scan = NULL;
    buf rows = BUF_INIT, schema = BUF_INIT;
    check_ok(text_resolve_path(store, "raw/*/*.csv", mem, &keys, &n, &err), &err);
    csv_options_init(&opts);
    opts.header = 1;
    opts.infer_schema = 1;
    check_ok(csv_scan_open(&scan, store, (const char *const *)keys, n, &opts, &err), &err);
    check_ok(col_type_format(csv_scan_schema(scan), &schema, &err), &err);
    check_str("struct<name:string,n:integer>", buf_cstr(&schema));
    check_ok(render_scan(&rows, scan, render_csv_next, mem, -1, &err), &err);
    check_str("raw/v1/a.csv|0\nraw/v1/b.csv|1\nraw/v2/a.csv|5", buf_cstr(&rows));
    csv_scan_free(scan);
    buf_clear(&rows);
    buf_clear(&schema);
}

void test_formats_csv_source__json_scan_over_files_merges_schemas(void)
{
    const char *keys[] = {"j/1.json", "j/2.json"};
    json_options opts;
    json_scan *scan = NULL;
    buf rows = BUF_INIT, schema = BUF_INIT;
    check_ok(io_put(store, keys[0], "{\"a\":1}\n", 8, &err), &err);
    check_ok(io_put(store, keys[1], "{\"b\":\"x\",\"a\":2.5}\n", 18, &err), &err);
    json_options_init(&opts);
    check_ok(json_scan_open(&scan, store, keys, 2, &opts, &err), &err);
    check_ok(col_type_format(json_scan_schema(scan), &schema, &err), &err);
    check_str("struct<a:double,b:string>", buf_cstr(&schema));
    check_ok(render_scan(&rows, scan, render_json_next, mem, -1, &err), &err);
    check_str("1.0|null\n2.5|x", buf_cstr(&rows));
    json_scan_free(scan);
    buf_clear(&rows);
    buf_clear(&schema);
}

void test_formats_csv_source__missing_file_is_notfound_with_context(void)
{
    const char *key = "nope.csv";
    csv_options opts;
    csv_scan *scan = NULL;
    csv_options_init(&opts);
    opts.header = 1;
    check_fails(SILT_NOTFOUND, csv_scan_open(&scan, store, &key, 1, &opts, &err));
    check_contains(err.context, "nope.csv");
}

void test_formats_csv_source__sampling_ratio_is_deterministic(void)
{
    buf text = BUF_INIT, first = BUF_INIT, second = BUF_INIT;
    const char *key = "s.csv";
    buf_append_str(&text, "a\n", &err);
    for (int idx = 0; idx < 1000; idx++)
        buf_printf(&text, &err, "%d\n", idx);
    buf_append_str(&text, "x\n", &err); /* rarely sampled: may or may not make a string */
    check_ok(io_put(store, key, text.data, text.len, &err), &err);
    for (int round = 0; round < 2; round++) {
        csv_options opts;
        csv_scan *scan = NULL;
        csv_options_init(&opts);
        opts.header = 1;
        opts.infer_schema = 1;
        check_ok(csv_options_set(&opts, mem, "samplingRatio", "0.1", &err), &err);
        check_ok(csv_scan_open(&scan, store, &key, 1, &opts, &err), &err);
        check_ok(col_type_format(csv_scan_schema(scan), round ? &second : &first, &err), &err);
        csv_scan_free(scan);
    }
    check_str(buf_cstr(&first), buf_cstr(&second));
    buf_clear(&text);
    buf_clear(&first);
    buf_clear(&second);
}

/* Many small objects: rounds of parallel work span object boundaries. */
void test_formats_csv_source__many_small_files_in_parallel_keep_order(void)
{
    tpool *pool = NULL;
    char **keys = NULL;
    size_t n = 0;
    buf expected = BUF_INIT, rows = BUF_INIT;
    check_ok(tpool_new(&pool, 3, &err), &err);
    for (int file = 0; file < 40; file++) {
        char key[64], text[512], json[512];
        int len = snprintf(text, sizeof(text), "id,v\n%d,a\n\n%d,b\n%d,c\n", file * 3,
                           file * 3 + 1, file * 3 + 2);
        snprintf(key, sizeof(key), "many/f%02d.csv", file);
        check_ok(io_put(store, key, text, (size_t)len, &err), &err);
        len = snprintf(json, sizeof(json), "[\n{\"id\":%d,\"v\":\"a\"},\n{\"id\":%d,\"v\":\"b\"}]\n",
                       file * 2, file * 2 + 1);
        snprintf(key, sizeof(key), "many/j%02d.json", file);
        check_ok(io_put(store, key, json, (size_t)len, &err), &err);
        buf_printf(&expected, &err, "%s%d|a\n%d|b\n%d|c", file ? "\n" : "", file * 3,
                   file * 3 + 1, file * 3 + 2);
    }
    /* an empty file in the middle changes nothing */
    check_ok(io_put(store, "many/f20a.csv", "", 0, &err), &err);
    check_ok(text_resolve_path(store, "many/f*.csv", mem, &keys, &n, &err), &err);
    check_int(41, n);
    csv_options copts;
    csv_scan *cscan = NULL;
    csv_options_init(&copts);
    copts.header = 1;
    copts.infer_schema = 1;
    copts.pool = pool;
    copts.chunk_bytes = 8;
    check_ok(csv_scan_open(&cscan, store, (const char *const *)keys, n, &copts, &err), &err);
    check_ok(render_scan(&rows, cscan, render_csv_next, mem, -1, &err), &err);
    csv_scan_free(cscan);
    check_str(buf_cstr(&expected), buf_cstr(&rows));

    buf_truncate(&expected, 0);
    buf_truncate(&rows, 0);
    for (int idx = 0; idx < 80; idx++)
        buf_printf(&expected, &err, "%s%d|%s", idx ? "\n" : "", idx, idx % 2 ? "b" : "a");
    check_ok(text_resolve_path(store, "many/j*.json", mem, &keys, &n, &err), &err);
    json_options jopts;
    json_scan *jscan = NULL;
    json_options_init(&jopts);
    jopts.multi_line = 1;
    jopts.pool = pool;
    check_ok(json_scan_open(&jscan, store, (const char *const *)keys, n, &jopts, &err), &err);
    check_ok(render_scan(&rows, jscan, render_json_next, mem, -1, &err), &err);
    json_scan_free(jscan);
    check_str(buf_cstr(&expected), buf_cstr(&rows));
    buf_clear(&expected);
    buf_clear(&rows);
    tpool_free(pool);
}

void test_formats_csv_source__failfast_names_the_file_among_many(void)
{
    const char *keys[] = {"m/a.json", "m/b.json", "m/c.json"};
    json_options opts;
    json_scan *scan = NULL;
    check_ok(io_put(store, keys[0], "{\"a\":1}\n", 8, &err), &err);
    check_ok(io_put(store, keys[1], "{\"a\":2}\n{\"a\":\n", 14, &err), &err);
    check_ok(io_put(store, keys[2], "{\"a\":3}\n", 8, &err), &err);
    json_options_init(&opts);
    opts.mode = TEXT_MODE_FAILFAST;
    check_fails(SILT_PARSE, json_scan_open(&scan, store, keys, 3, &opts, &err));
    check_contains(err.message, "line 2, position 6 of \"m/b.json\"");
    check_contains(err.context, "while inferring the schema of JSON file \"m/b.json\"");
}

static void scan_csv_text(const char *text, size_t window, int multi_line, buf *schema, buf *rows)
{
    const char *key = "w/in.csv";
    csv_options opts;
    csv_scan *scan = NULL;
    check_ok(io_put(store, key, text, strlen(text), &err), &err);
    csv_options_init(&opts);
    opts.header = 1;
    opts.infer_schema = 1;
    opts.multi_line = multi_line;
    opts.window_bytes = window;
    opts.chunk_bytes = 16;
    check_ok(csv_scan_open(&scan, store, &key, 1, &opts, &err), &err);
    check_ok(col_type_format(csv_scan_schema(scan), schema, &err), &err);
    check_ok(render_scan(rows, scan, render_csv_next, mem, -1, &err), &err);
    csv_scan_free(scan);
}

/* Files are read through bounded windows; records never split across them. */
void test_formats_csv_source__windows_give_the_same_rows(void)
{
    buf text = BUF_INIT;
    buf_append_str(&text, "\xEF\xBB\xBFid,note,when\r\n", &err);
    for (int idx = 0; idx < 300; idx++)
        buf_printf(&text, &err, "%d,\"line %d\r\nsecond, \\\"q\\\"\",2022-01-%02d\r\n", idx, idx,
                   idx % 28 + 1);
    for (int multi = 0; multi < 2; multi++) {
        buf whole_schema = BUF_INIT, whole_rows = BUF_INIT;
        scan_csv_text(buf_cstr(&text), 0, multi, &whole_schema, &whole_rows);
        static const size_t windows[] = {1, 7, 64, 1000};
        for (size_t w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
            buf schema = BUF_INIT, rows = BUF_INIT;
            scan_csv_text(buf_cstr(&text), windows[w], multi, &schema, &rows);
            check_str(buf_cstr(&whole_schema), buf_cstr(&schema));
            check_str(buf_cstr(&whole_rows), buf_cstr(&rows));
            buf_clear(&schema);
            buf_clear(&rows);
        }
        if (multi)
            check_str("struct<id:integer,note:string,when:date>", buf_cstr(&whole_schema));
        buf_clear(&whole_schema);
        buf_clear(&whole_rows);
    }
    buf_clear(&text);
}

void test_formats_csv_source__json_windows_and_line_numbers(void)
{
    const char *key = "w/in.json";
    buf text = BUF_INIT, first = BUF_INIT;
    for (int idx = 0; idx < 200; idx++)
        buf_printf(&text, &err, "{\"id\":%d,\"s\":\"%*d\"}\n", idx, idx % 50, idx);
    buf_append_str(&text, "{\"id\":\n", &err);
    check_ok(io_put(store, key, text.data, text.len, &err), &err);
    static const size_t windows[] = {0, 5, 100};
    for (size_t w = 0; w < 3; w++) {
        json_options opts;
        json_scan *scan = NULL;
        buf rows = BUF_INIT;
        json_options_init(&opts);
        opts.window_bytes = windows[w];
        opts.chunk_bytes = 50;
        check_ok(json_scan_open(&scan, store, &key, 1, &opts, &err), &err);
        check_ok(render_scan(&rows, scan, render_json_next, mem, -1, &err), &err);
        json_scan_free(scan);
        if (w == 0)
            buf_append(&first, rows.data, rows.len, &err);
        else
            check_str(buf_cstr(&first), buf_cstr(&rows));
        buf_clear(&rows);
        opts.mode = TEXT_MODE_FAILFAST;
        check_fails(SILT_PARSE, json_scan_open(&scan, store, &key, 1, &opts, &err));
        check_contains(err.message, "line 201, position 7");
    }
    buf_clear(&text);
    buf_clear(&first);
}

/* Runs a whole scan; returns its status (batches are dropped with the arena). */
static silt_status scan_all(int json, const char *key, int multi_line)
{
    silt_status rc;
    arena *a = arena_new(NULL, "fault");
    if (a == NULL)
        return SILT_NOMEM;
    if (json) {
        json_options opts;
        json_scan *scan = NULL;
        json_options_init(&opts);
        opts.multi_line = multi_line;
        opts.chunk_bytes = 16;
        rc = json_scan_open(&scan, store, &key, 1, &opts, &err);
        for (col_batch b = {0}; rc == SILT_OK;) {
            rc = json_scan_next(scan, a, &b, &err);
            if (b.n_rows == 0)
                break;
        }
        json_scan_free(scan);
    } else {
        csv_options opts;
        csv_scan *scan = NULL;
        csv_options_init(&opts);
        opts.header = 1;
        opts.infer_schema = 1;
        opts.multi_line = multi_line;
        opts.chunk_bytes = 16;
        opts.window_bytes = 32;
        rc = csv_scan_open(&scan, store, &key, 1, &opts, &err);
        for (col_batch b = {0}; rc == SILT_OK;) {
            rc = csv_scan_next(scan, a, &b, &err);
            if (b.n_rows == 0)
                break;
        }
        csv_scan_free(scan);
    }
    arena_free(a);
    return rc;
}

/* Every allocation fails in turn: each run ends in OK or NOMEM, never a crash or a leak. */
void test_formats_csv_source__allocation_failures_are_clean(void)
{
    const char *csv = "a,b,c\n1,\"x,y\",2022-01-01\n2,\"q\",2022-01-02\n3,,\n";
    const char *json = "{\"a\":1,\"s\":{\"x\":[1,2]},\"t\":\"u\"}\n{\"a\":2.5,\"b\":null}\nbad\n";
    check_ok(io_put(store, "fault.csv", csv, strlen(csv), &err), &err);
    check_ok(io_put(store, "fault.json", json, strlen(json), &err), &err);
    for (int kind = 0; kind < 2; kind++) {
        int succeeded = 0;
        for (long countdown = 0; countdown < 5000 && !succeeded; countdown++) {
            mem_fail_after(countdown);
            silt_status rc = scan_all(kind, kind ? "fault.json" : "fault.csv", 0);
            mem_fail_reset();
            if (rc != SILT_OK && rc != SILT_NOMEM)
                test_fail(__FILE__, __LINE__, "allocation %ld failed with %s: %s", countdown,
                          silt_status_name(rc), err.message);
            succeeded = rc == SILT_OK;
        }
        check(succeeded);
    }
}

/* A store that fails reads: the error is IO and names the file. */
void test_formats_csv_source__store_failures_name_the_file(void)
{
    io_store *inner = NULL, *faulty = NULL;
    io_fault_plan plan = IO_FAULT_PLAN_INIT;
    const char *key = "f.csv";
    csv_options opts;
    csv_scan *scan = NULL;
    check_ok(io_store_open(&inner, test_tmpdir(), 0, &err), &err);
    check_ok(io_put(inner, key, "a\n1\n", 4, &err), &err);
    plan.fail_read_nth = 1;
    plan.fail_all_after = 1;
    check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err);
    csv_options_init(&opts);
    opts.header = 1;
    check_fails(SILT_IO, csv_scan_open(&scan, faulty, &key, 1, &opts, &err));
    check_contains(err.context, "while reading CSV file \"f.csv\"");
    io_store_free(faulty);
}

void test_formats_csv_source__open_by_path_with_string_options(void)
{
    static const char *const csv_kv[] = {"header", "true", "inferSchema", "true",
                                         "timestampFormat", "dd/MM/yyyy"};
    static const char *const json_kv[] = {"mode", "DROPMALFORMED"};
    csv_scan *cscan = NULL;
    json_scan *jscan = NULL;
    buf schema = BUF_INIT, rows = BUF_INIT;
    check_ok(io_put(store, "p/a.csv", "d,n\n05/01/2022,1\n", 17, &err), &err);
    check_ok(io_put(store, "p/b.csv", "d,n\n06/01/2022,2\n", 17, &err), &err);
    check_ok(csv_scan_open_path(&cscan, store, "p", csv_kv, 3, NULL, NULL, 0, NULL, &err), &err);
    check_ok(col_type_format(csv_scan_schema(cscan), &schema, &err), &err);
    check_str("struct<d:timestamp,n:integer>", buf_cstr(&schema));
    check_ok(render_scan(&rows, cscan, render_csv_next, mem, -1, &err), &err);
    check_str("2022-01-05 00:00:00|1\n2022-01-06 00:00:00|2", buf_cstr(&rows));
    csv_scan_free(cscan);
    check_ok(io_put(store, "q/a.json", "{\"x\":1}\n{\"x\":\n", 14, &err), &err);
    buf_truncate(&schema, 0);
    check_ok(json_scan_open_path(&jscan, store, "q/*.json", json_kv, 1, NULL, NULL, &err), &err);
    check_ok(col_type_format(json_scan_schema(jscan), &schema, &err), &err);
    check_str("struct<x:long>", buf_cstr(&schema));
    json_scan_free(jscan);
    static const char *const bad_kv[] = {"header", "maybe"};
    check_fails(SILT_INVALID,
                csv_scan_open_path(&cscan, store, "p", bad_kv, 1, NULL, NULL, 0, NULL, &err));
    check_fails(SILT_NOTFOUND, csv_scan_open_path(&cscan, store, "nothing/*.csv", NULL, 0, NULL,
                                                  NULL, 0, NULL, &err));
    buf_clear(&schema);
    buf_clear(&rows);
}
