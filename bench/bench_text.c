/*
 * bench_text.c - throughput of the CSV and JSON readers on trips-like data.
 *
 * Usage: bench_text [megabytes (default 200)] [threads (default: all cores)]
 *
 * Generates trips records (trip_id, tstamp, route_id, destination) as JSON
 * lines and as CSV with a header, then times schema inference (the scan's
 * open, one pass) and the parse into batches (a second pass) and prints
 * MB/s for each. When a Python with duckdb is found (SILT_BENCH_PYTHON, or
 * .peers/venv/bin/python of the repository), the same files are loaded with
 * DuckDB's read_json_auto/read_csv_auto into a table and the ratio printed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formats/csv/csv.h"
#include "formats/csv/csv_int.h"
#include "formats/json/json.h"
#include "formats/json/json_int.h"
#include "util/time.h"

static const char *const cities[] = {"Boston", "New York", "Philadelphia", "Syracuse",
                                     "Washington", "Baltimore", "Albany", "Providence"};

static void die(const char *what, const silt_error *err)
{
    char msg[2048];
    err_format(err, msg, sizeof(msg));
    fprintf(stderr, "bench_text: %s: %s\n", what, msg);
    exit(1);
}

static void generate(const char *dir, size_t target_bytes)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/trips.json", dir);
    FILE *json = fopen(path, "wb");
    snprintf(path, sizeof(path), "%s/trips.csv", dir);
    FILE *csv = fopen(path, "wb");
    if (json == NULL || csv == NULL) {
        perror("bench_text: cannot create the data files");
        exit(1);
    }
    fputs("trip_id,tstamp,route_id,destination\n", csv);
    uint64_t seed = 42;
    size_t written = 0;
    for (long id = 1; written < target_bytes; id++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        char ts[64];
        time_format_timestamp(INT64_C(1640995200000000) + (int64_t)(seed >> 40) * 1000000, ' ', 0,
                              0, ts, sizeof(ts));
        char route = (char)('A' + (seed >> 20) % 6);
        const char *dest = cities[(seed >> 12) % 8];
        int n = fprintf(json,
                        "{\"trip_id\":%ld,\"tstamp\":\"%s\",\"route_id\":\"%c\",\"destination\":\"%s\"}\n",
                        id, ts, route, dest);
        fprintf(csv, "%ld,%s,%c,%s\n", id, ts, route, dest);
        written += (size_t)n;
    }
    fclose(json);
    fclose(csv);
}

static double seconds_since(int64_t start) { return (double)(time_monotonic_nanos() - start) / 1e9; }

/* CPU seconds of the whole process (all threads): the machine may be shared,
 * so throughput per CPU second says more than wall time. */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct result {
    double infer_s, parse_s, infer_cpu, parse_cpu;
    int64_t rows;
    int64_t bytes;
} result;

static result run_csv(io_store *store, tpool *pool)
{
    silt_error err = SILT_ERROR_INIT;
    io_object_info info = {0};
    csv_options opts;
    csv_scan *scan = NULL;
    const char *key = "trips.csv";
    result r = {0};
    csv_options_init(&opts);
    opts.header = 1;
    opts.infer_schema = 1;
    opts.pool = pool;
    if (io_head(store, key, &info, &err) != SILT_OK)
        die("head", &err);
    r.bytes = info.size;
    io_object_info_clear(&info);
    int64_t start = time_monotonic_nanos();
    double cpu = cpu_seconds();
    if (csv_scan_open(&scan, store, &key, 1, &opts, &err) != SILT_OK)
        die("csv open", &err);
    r.infer_s = seconds_since(start);
    r.infer_cpu = cpu_seconds() - cpu;
    start = time_monotonic_nanos();
    cpu = cpu_seconds();
    arena *a = arena_new(NULL, "bench");
    for (;;) {
        col_batch b;
        if (csv_scan_next(scan, a, &b, &err) != SILT_OK)
            die("csv next", &err);
        if (b.n_rows == 0)
            break;
        r.rows += b.n_rows;
        arena_reset(a);
    }
    r.parse_s = seconds_since(start);
    r.parse_cpu = cpu_seconds() - cpu;
    arena_free(a);
    csv_scan_free(scan);
    return r;
}

static result run_json(io_store *store, tpool *pool)
{
    silt_error err = SILT_ERROR_INIT;
    io_object_info info = {0};
    json_options opts;
    json_scan *scan = NULL;
    const char *key = "trips.json";
    result r = {0};
    json_options_init(&opts);
    opts.pool = pool;
    if (io_head(store, key, &info, &err) != SILT_OK)
        die("head", &err);
    r.bytes = info.size;
    io_object_info_clear(&info);
    int64_t start = time_monotonic_nanos();
    double cpu = cpu_seconds();
    if (json_scan_open(&scan, store, &key, 1, &opts, &err) != SILT_OK)
        die("json open", &err);
    r.infer_s = seconds_since(start);
    r.infer_cpu = cpu_seconds() - cpu;
    start = time_monotonic_nanos();
    cpu = cpu_seconds();
    arena *a = arena_new(NULL, "bench");
    for (;;) {
        col_batch b;
        if (json_scan_next(scan, a, &b, &err) != SILT_OK)
            die("json next", &err);
        if (b.n_rows == 0)
            break;
        r.rows += b.n_rows;
        arena_reset(a);
    }
    r.parse_s = seconds_since(start);
    r.parse_cpu = cpu_seconds() - cpu;
    arena_free(a);
    json_scan_free(scan);
    return r;
}

/* One thread, no conversion: how fast records and fields are found. */
static void tokenize_only(io_store *store)
{
    silt_error err = SILT_ERROR_INIT;
    buf data = BUF_INIT;
    csv_options opts;
    csv_tokenizer t;
    json_tape tape;
    int got = 1;
    int64_t fields = 0, records = 0;
    if (io_get(store, "trips.csv", &data, &err) != SILT_OK)
        die("read csv", &err);
    csv_options_init(&opts);
    csv_tokenizer_init(&t, &opts, data.data, data.len);
    double cpu = cpu_seconds();
    while (csv_tokenizer_next(&t, &got, &err) == SILT_OK && got)
        fields += (int64_t)t.n_fields;
    cpu = cpu_seconds() - cpu;
    printf("csv tokenizer only, 1 thread: %lld fields, %7.1f MB per CPU s\n", (long long)fields,
           (double)data.len / 1e6 / cpu);
    csv_tokenizer_clear(&t);
    buf_clear(&data);
    if (io_get(store, "trips.json", &data, &err) != SILT_OK)
        die("read json", &err);
    json_tape_init(&tape, 0);
    cpu = cpu_seconds();
    for (size_t pos = 0; pos < data.len;) {
        size_t end = json_line_end(data.data, data.len, pos), value_end;
        int ok, empty;
        if (json_tape_parse(&tape, data.data + pos, end - pos, &ok, &empty, &value_end, &err) !=
                SILT_OK)
            die("tape", &err);
        records += ok;
        pos = end;
    }
    cpu = cpu_seconds() - cpu;
    printf("json tape only, 1 thread:     %lld records, %7.1f MB per CPU s\n", (long long)records,
           (double)data.len / 1e6 / cpu);
    json_tape_clear(&tape);
    buf_clear(&data);
}

static void report(const char *name, result r)
{
    double mb = (double)r.bytes / 1e6;
    printf("%-5s %8.1f MB %10lld rows  infer %6.3f s (%7.1f MB/s, %7.1f MB per CPU s)  "
           "parse %6.3f s (%7.1f MB/s, %7.1f MB per CPU s)  total %7.1f MB/s\n",
           name, mb, (long long)r.rows, r.infer_s, mb / r.infer_s, mb / r.infer_cpu, r.parse_s,
           mb / r.parse_s, mb / r.parse_cpu, mb / (r.infer_s + r.parse_s));
}

/* Seconds DuckDB takes to load a file into a table, or a negative number. */
static double duckdb_seconds(const char *python, const char *path, const char *reader)
{
    char cmd[8192], line[512];
    double secs = -1;
    snprintf(cmd, sizeof(cmd),
             "%s -c \"import duckdb,time; c=duckdb.connect(); c.execute('SET threads=%ld'); "
             "c.execute('SET enable_progress_bar=false'); "
             "t=time.time(); c.execute(\\\"CREATE TABLE t AS SELECT * FROM %s('%s')\\\"); "
             "print('SECONDS', time.time()-t)\" 2>&1",
             python, sysconf(_SC_NPROCESSORS_ONLN), reader, path);
    FILE *p = popen(cmd, "r");
    if (p == NULL)
        return -1;
    /* Only a line starting with the marker counts: anything else is DuckDB
     * or Python complaining, shown so a failed comparison is visible. */
    while (fgets(line, sizeof(line), p) != NULL) {
        if (strncmp(line, "SECONDS ", 8) == 0)
            secs = strtod(line + 8, NULL);
        else if (secs < 0)
            fprintf(stderr, "duckdb %s: %s", reader, line);
    }
    pclose(p);
    return secs;
}

int main(int argc, char **argv)
{
    size_t mb = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 200;
    size_t threads = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : tpool_core_count();
    silt_error err = SILT_ERROR_INIT;
    char dir[] = "/tmp/silt-bench-text-XXXXXX";
    io_store *store = NULL;
    tpool *pool = NULL;
    if (mkdtemp(dir) == NULL) {
        perror("bench_text: mkdtemp");
        return 1;
    }
    generate(dir, mb * 1000000);
    if (io_store_open(&store, dir, 0, &err) != SILT_OK)
        die("store", &err);
    if (threads > 1 && tpool_new(&pool, threads - 1, &err) != SILT_OK)
        die("pool", &err);
    printf("silt CSV/JSON readers, %zu thread(s), data in %s\n", threads, dir);
    tokenize_only(store);
    result csv = run_csv(store, pool);
    report("csv", csv);
    result json = run_json(store, pool);
    report("json", json);

    const char *python = getenv("SILT_BENCH_PYTHON");
    char venv[4096];
    if (python == NULL) {
        snprintf(venv, sizeof(venv), "%s/.peers/venv/bin/python", SILT_SOURCE_DIR);
        python = access(venv, X_OK) == 0 ? venv : NULL;
    }
    if (python != NULL) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/trips.csv", dir);
        double d_csv = duckdb_seconds(python, path, "read_csv_auto");
        snprintf(path, sizeof(path), "%s/trips.json", dir);
        double d_json = duckdb_seconds(python, path, "read_json_auto");
        if (d_csv > 0)
            printf("duckdb csv  %6.3f s (%7.1f MB/s)  silt/duckdb time ratio %.2f\n", d_csv,
                   (double)csv.bytes / 1e6 / d_csv, (csv.infer_s + csv.parse_s) / d_csv);
        if (d_json > 0)
            printf("duckdb json %6.3f s (%7.1f MB/s)  silt/duckdb time ratio %.2f\n", d_json,
                   (double)json.bytes / 1e6 / d_json, (json.infer_s + json.parse_s) / d_json);
    } else {
        printf("duckdb: no python with duckdb (set SILT_BENCH_PYTHON)\n");
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/trips.csv", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/trips.json", dir);
    unlink(path);
    rmdir(dir);
    tpool_free(pool);
    io_store_free(store);
    return 0;
}
