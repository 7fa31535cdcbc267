/*
 * CSV schema inference in one pass (csv_scan.c): inference converts each
 * chunk with the chunk's own types and the read hands those rows out when
 * the final schema is the same. Reads with several chunk sizes, windows
 * and speculation budgets, on a pool (chunks finish out of order), must
 * give exactly the schema and rows of a serial two-pass read, whatever the
 * chunks disagree on; and when every chunk agrees the file is not read
 * again.
 */
#include <stdio.h>
#include <string.h>

#include "csvjson_render.h"
#include "formats/csv/csv.h"
#include "test.h"
#include "util/thread.h"

static io_store *store;
static silt_error err;
static arena *mem;
static tpool *pool;
static buf schema_text, rows_text;

void test_formats_csv_one_pass__initialize(void)
{
    err_clear(&err);
    store = NULL;
    pool = NULL;
    check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
    check_ok(tpool_new(&pool, 3, &err), &err);
    mem = arena_new(NULL, "test");
    buf_init(&schema_text, 0);
    buf_init(&rows_text, 0);
}

void test_formats_csv_one_pass__cleanup(void)
{
    buf_clear(&schema_text);
    buf_clear(&rows_text);
    tpool_free(pool);
    arena_free(mem);
    io_store_free(store);
}

typedef struct tuning {
    size_t chunk, window, budget;
    tpool *pool;
} tuning;

/* Opens the scan of text (header, inferSchema, the options kv) with the tuning. */
static silt_status open_tuned(const char *text, const char *const *kv, const tuning *tu,
                              csv_scan **out, silt_error *e)
{
    static const char *key = "in.csv";
    csv_options opts;
    check_ok(io_put(store, key, text, strlen(text), &err), &err);
    csv_options_init(&opts);
    opts.header = 1;
    opts.infer_schema = 1;
    opts.pool = tu->pool;
    opts.chunk_bytes = tu->chunk;
    opts.window_bytes = tu->window;
    opts.speculate_bytes = tu->budget;
    for (size_t idx = 0; kv != NULL && kv[idx] != NULL; idx += 2)
        check_ok(csv_options_set(&opts, mem, kv[idx], kv[idx + 1], &err), &err);
    return csv_scan_open(out, store, &key, 1, &opts, e);
}

/* Schema and rows (or the error) of a read into schema_text and rows_text. */
static void read_tuned(const char *text, const char *const *kv, const tuning *tu)
{
    csv_scan *scan = NULL;
    silt_error e = SILT_ERROR_INIT;
    silt_status rc = open_tuned(text, kv, tu, &scan, &e);
    buf_truncate(&schema_text, 0);
    buf_truncate(&rows_text, 0);
    if (rc == SILT_OK) {
        check_ok(col_type_format(csv_scan_schema(scan), &schema_text, &err), &err);
        rc = render_scan(&rows_text, scan, render_csv_next, mem, -1, &e);
    }
    if (rc != SILT_OK)
        check_ok(buf_printf(&rows_text, &err, "error %d: %s", (int)rc, e.message), &err);
    csv_scan_free(scan);
}

/* Reports the first differing line (check_str cuts long texts short). */
static void check_same_lines(const char *want, const char *got, const tuning *tu)
{
    size_t line = 1;
    while (*want != '\0' && *want == *got) {
        line += *want == '\n';
        want++;
        got++;
    }
    if (*want != *got)
        test_fail(__FILE__, __LINE__, "chunk %zu window %zu budget %zu: line %zu differs: "
                  "want \"%.60s\", got \"%.200s\"", tu->chunk, tu->window, tu->budget, line,
                  want, got);
}

/*
 * Every tuning gives the schema and rows of a two-pass read with the same
 * chunks, windows and pool (the rows before a FAILFAST error depend on the
 * chunks of a round); returns the schema.
 */
static const char *check_one_pass_matches_two(const char *text, const char *const *kv)
{
    static const size_t chunks[] = {97, 4096, (size_t)1 << 20};
    static const size_t windows[] = {0, 50000};
    static const size_t budgets[] = {1, 20000, (size_t)1 << 30};
    buf want_schema = BUF_INIT, want_rows = BUF_INIT;
    const char *schema = NULL;
    for (size_t c = 0; c < 3; c++)
        for (size_t w = 0; w < 2; w++) {
            tuning serial = {chunks[c], windows[w], 0, pool}; /* rounds of the same size */
            if (chunks[c] < 1000 && strlen(text) > 200000)
                continue; /* thousands of tiny chunks: slow, and nothing new */
            read_tuned(text, kv, &serial);
            buf_truncate(&want_schema, 0);
            buf_truncate(&want_rows, 0);
            check_ok(buf_append(&want_schema, schema_text.data, schema_text.len, &err), &err);
            check_ok(buf_append(&want_rows, rows_text.data, rows_text.len, &err), &err);
            if (schema == NULL)
                schema = arena_strdup(mem, buf_cstr(&want_schema));
            check_str(schema, buf_cstr(&want_schema));
            for (size_t b = 0; b < 3; b++) {
                tuning tu = {chunks[c], windows[w], budgets[b], pool};
                read_tuned(text, kv, &tu);
                check_str(buf_cstr(&want_schema), buf_cstr(&schema_text));
                check_same_lines(buf_cstr(&want_rows), buf_cstr(&rows_text), &tu);
            }
        }
    buf_clear(&want_schema);
    buf_clear(&want_rows);
    return schema;
}

/* An integer column for 100k rows, then a double: every chunk before it is re-read. */
void test_formats_csv_one_pass__int_then_double(void)
{
    buf text = BUF_INIT;
    check_ok(buf_append_str(&text, "id,v,s\n", &err), &err);
    for (int idx = 0; idx < 100000; idx++)
        check_ok(buf_printf(&text, &err, "%d,%s,r%d\n", idx, idx == 99990 ? "2.5" : "7",
                            idx % 7),
                 &err);
    check_str("struct<id:integer,v:double,s:string>",
              check_one_pass_matches_two(buf_cstr(&text), NULL));
    buf_clear(&text);
}

/* Int, then long, then a string in one late row; a decimal wider than a long. */
void test_formats_csv_one_pass__widening_to_long_decimal_and_string(void)
{
    buf text = BUF_INIT;
    check_ok(buf_append_str(&text, "a,b,c\n", &err), &err);
    for (int idx = 0; idx < 3000; idx++)
        check_ok(buf_printf(&text, &err, "%d,%s,%s\n", idx,
                            idx == 1500 ? "99999999999" : "12",
                            idx == 2900 ? "x" : (idx == 2000 ? "123456789012345678901" : "5")),
                 &err);
    check_str("struct<a:integer,b:long,c:string>",
              check_one_pass_matches_two(buf_cstr(&text), NULL));
    buf_truncate(&text, 0);
    check_ok(buf_append_str(&text, "d\n", &err), &err);
    for (int idx = 0; idx < 3000; idx++)
        check_ok(buf_printf(&text, &err, "%s\n", idx == 2500 ? "123456789012345678901" : "5"),
                 &err);
    check_str("struct<d:decimal(21,0)>", check_one_pass_matches_two(buf_cstr(&text), NULL));
    buf_clear(&text);
}

/* A column null (empty) for most chunks, then values; quoted empty fields among booleans. */
void test_formats_csv_one_pass__nulls_then_values(void)
{
    buf text = BUF_INIT;
    check_ok(buf_append_str(&text, "k,n,q\n", &err), &err);
    for (int idx = 0; idx < 2000; idx++)
        check_ok(buf_printf(&text, &err, "%d,%s,%s\n", idx, idx > 1800 ? "3" : "",
                            idx % 100 == 0 ? "\"\"" : "true"),
                 &err);
    check_str("struct<k:integer,n:integer,q:boolean>",
              check_one_pass_matches_two(buf_cstr(&text), NULL));
    buf_clear(&text);
}

/* Timestamps, then a date-only value late (timestamp stays), then a word (string). */
void test_formats_csv_one_pass__timestamps(void)
{
    buf text = BUF_INIT;
    check_ok(buf_append_str(&text, "t,u\n", &err), &err);
    for (int idx = 0; idx < 2000; idx++)
        check_ok(buf_printf(&text, &err, "2022-01-%02d 05:49:%02d,%s\n", idx % 28 + 1, idx % 60,
                            idx == 1700 ? "never" : "2021-12-31T23:59:59"),
                 &err);
    check_str("struct<t:timestamp,u:string>",
              check_one_pass_matches_two(buf_cstr(&text), NULL));
    buf_clear(&text);
}

/* Quoted fields with line breaks and escaped quotes, across chunk boundaries (multiLine). */
void test_formats_csv_one_pass__quoted_newlines_across_chunks(void)
{
    static const char *const multi[] = {"multiLine", "true", NULL};
    buf text = BUF_INIT;
    check_ok(buf_append_str(&text, "id,note,n\n", &err), &err);
    for (int idx = 0; idx < 1500; idx++)
        check_ok(buf_printf(&text, &err, "%d,\"line %d\nsecond, \\\"q\\\"\",%s\n", idx, idx,
                            idx == 1400 ? "1.5" : "4"),
                 &err);
    check_str("struct<id:integer,note:string,n:double>",
              check_one_pass_matches_two(buf_cstr(&text), multi));
    check_contains(buf_cstr(&rows_text), "second, \"q\"");
    buf_clear(&text);
}

/* Malformed records (a field too many or too few) in each mode. */
void test_formats_csv_one_pass__malformed_records_by_mode(void)
{
    static const char *const permissive[] = {"mode", "PERMISSIVE", NULL};
    static const char *const drop[] = {"mode", "DROPMALFORMED", NULL};
    static const char *const failfast[] = {"mode", "FAILFAST", NULL};
    buf text = BUF_INIT;
    check_ok(buf_append_str(&text, "a,b\n", &err), &err);
    for (int idx = 0; idx < 1200; idx++)
        check_ok(buf_printf(&text, &err, idx == 500 ? "%d,1,extra\n" : idx == 900 ? "%d\n"
                                                                                  : "%d,2\n",
                            idx),
                 &err);
    check_one_pass_matches_two(buf_cstr(&text), permissive);
    check_one_pass_matches_two(buf_cstr(&text), drop);
    check_one_pass_matches_two(buf_cstr(&text), failfast);
    check_contains(buf_cstr(&rows_text), "malformed CSV record at line 502");
    buf_clear(&text);
}

/*
 * When every chunk agrees with the final schema, all rows come from
 * inference: the file can be gone before the first batch is read. When a
 * chunk disagrees, the read pass reads the file again (and finds it gone).
 */
void test_formats_csv_one_pass__agreeing_chunks_read_the_file_once(void)
{
    /* windows: a file read whole would stay loaded for the read pass */
    tuning tu = {4096, 50000, (size_t)1 << 30, NULL};
    buf text = BUF_INIT;
    csv_scan *scan = NULL;
    silt_error e = SILT_ERROR_INIT;
    check_ok(buf_append_str(&text, "trip_id,tstamp,route_id,destination\n", &err), &err);
    for (int idx = 0; idx < 5000; idx++)
        check_ok(buf_printf(&text, &err, "%d,2022-01-31 05:49:39,%c,city %d\n", idx,
                            'A' + idx % 10, idx % 10),
                 &err);
    for (int with_pool = 0; with_pool < 2; with_pool++) {
        tu.pool = with_pool ? pool : NULL;
        check_ok(open_tuned(buf_cstr(&text), NULL, &tu, &scan, &err), &err);
        check_ok(io_delete(store, "in.csv", &err), &err);
        buf_truncate(&rows_text, 0);
        check_ok(render_scan(&rows_text, scan, render_csv_next, mem, -1, &err), &err);
        check_contains(buf_cstr(&rows_text), "4999|2022-01-31");
        csv_scan_free(scan);
        scan = NULL;
    }
    /* one late double: the chunks before it are parsed again, from the file */
    check_ok(buf_append_str(&text, "1.5,2022-01-31 05:49:39,A,x\n", &err), &err);
    check_ok(open_tuned(buf_cstr(&text), NULL, &tu, &scan, &err), &err);
    check_ok(io_delete(store, "in.csv", &err), &err);
    buf_truncate(&rows_text, 0);
    check_int(SILT_NOTFOUND, render_scan(&rows_text, scan, render_csv_next, mem, -1, &e));
    csv_scan_free(scan);
    buf_clear(&text);
}

/*
 * Every type the column-at-a-time conversion has a loop for (string, int,
 * timestamp) and the ones it converts with the row code (long, decimal,
 * double, boolean, date), with missing and extra fields, quoted empties,
 * non-ASCII and invalid UTF-8 text, CRLF lines and a nullValue: the one-pass
 * rows equal the two-pass rows of the row loop.
 */
void test_formats_csv_one_pass__column_conversion_matches_row_loop(void)
{
    static const char *const kv[] = {"nullValue", "NA", NULL};
    buf text = BUF_INIT;
    check_ok(buf_append_str(&text, "s,i,t,l,m,d,b,dt\r\n", &err), &err);
    for (int idx = 0; idx < 3000; idx++) {
        const char *s = idx % 7 == 0 ? "\"\"" : idx % 11 == 0 ? "\xc3\xa9" : idx % 13 == 0 ? "\xfe" : "w";
        char num[16];
        /* a quoted empty int is not null under nullValue NA: it fails to convert (null) */
        snprintf(num, sizeof(num), idx % 50 == 3 ? "\"\"" : "%d", idx % 9 == 0 ? -idx : idx);
        check_ok(buf_printf(&text, &err, "%s,%s,2022-%02d-%02d 05:49:%02d,%lld,%d%s,%d.5,%s,2022-03-%02d",
                            s, num, idx / 300 + 1, idx % 28 + 1, idx % 60,
                            (long long)idx * 3000000000LL, idx, idx == 2500 ? "1234567890123456789012" : "",
                            idx, idx % 2 ? "true" : "NA", idx % 28 + 1),
                 &err);
        if (idx % 97 == 0)
            check_ok(buf_append_str(&text, ",extra", &err), &err);
        check_ok(buf_append_str(&text, idx % 2 ? "\r\n" : "\n", &err), &err);
        if (idx % 101 == 0)
            check_ok(buf_append_str(&text, "short,1\n", &err), &err);
    }
    check_str("struct<s:string,i:integer,t:timestamp,l:long,m:decimal(26,0),d:double,b:boolean,"
              "dt:date>",
              check_one_pass_matches_two(buf_cstr(&text), kv));
    buf_clear(&text);
}

/*
 * Values kept while confirming a column's type (ints, timestamps) are used
 * only when the chunk's type stayed what they were parsed as: an int
 * column widened to long mid-chunk, dates then timestamps, timestamps
 * then a word, nulls and quoted empties between.
 */
void test_formats_csv_one_pass__values_kept_by_inference(void)
{
    static const char *const kv[] = {"nullValue", "NA", NULL};
    buf text = BUF_INIT;
    check_ok(buf_append_str(&text, "a,b,c,d\n", &err), &err);
    for (int idx = 0; idx < 9000; idx++) { /* more than two batches of 4096 rows */
        const char *b = idx < 40 ? "2022-03-04" : idx % 10 == 0 ? "" : "2022-03-04 10:11:12";
        char a[32], d[32];
        snprintf(a, sizeof(a), idx == 8700 ? "%d0000000000" : idx % 13 == 0 ? "NA" : "%d", idx);
        snprintf(d, sizeof(d), idx == 1400 || idx == 6000 ? "\"\"" : "%d", -idx);
        check_ok(buf_printf(&text, &err, "%s,%s,%s,%s\n", a, b,
                            idx == 8200 ? "later" : "2022-01-31 05:49:39", d),
                 &err);
    }
    check_str("struct<a:long,b:timestamp,c:string,d:integer>",
              check_one_pass_matches_two(buf_cstr(&text), kv));
    buf_clear(&text);
}
