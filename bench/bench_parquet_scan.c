/*
 * parquet_scan.c - times a full scan of Parquet files with the reader
 * (decoding and batch assembly only, no formatting), for comparisons with
 * DuckDB's `SELECT ... FROM read_parquet(...)` on one thread.
 *
 *     bench_parquet_scan FILE [COLUMN...]
 *
 * Prints rows, batches, seconds and rows per second. Never a test: timings
 * depend on the machine (DESIGN.md, Tests).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "formats/parquet/parquet.h"
#include "util/mem.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    arena *a = arena_new(NULL, "bench");
    const char *path, *slash;
    char *dir;
    long long rows = 0, batches = 0;
    double start, seconds;
    silt_status rc;
    if (argc < 2) {
        fprintf(stderr, "usage: bench_parquet_scan FILE [COLUMN...]\n");
        return 2;
    }
    path = argv[1];
    slash = strrchr(path, '/');
    dir = slash != NULL ? mem_strndup(path, (size_t)(slash - path)) : mem_strdup(".");
    if (argc > 2) {
        opts.columns = (const char *const *)(argv + 2);
        opts.n_columns = (size_t)(argc - 2);
    }
    start = now_seconds();
    rc = io_local_store_open(&store, slash == path ? "/" : dir, 0, &err);
    if (rc == SILT_OK)
        rc = pq_file_open(&file, store, slash != NULL ? slash + 1 : path, &err);
    if (rc == SILT_OK)
        rc = pq_reader_open(&reader, file, &opts, &err);
    while (rc == SILT_OK) {
        col_batch *batch = NULL;
        arena_reset(a);
        rc = pq_reader_next(reader, a, &batch, &err);
        if (rc != SILT_OK || batch == NULL)
            break;
        rows += batch->n_rows;
        batches++;
    }
    seconds = now_seconds() - start;
    if (rc != SILT_OK) {
        char msg[2048];
        err_format(&err, msg, sizeof(msg));
        fprintf(stderr, "bench_parquet_scan: %s\n", msg);
    } else {
        printf("%lld rows in %lld batches, %.3f s, %.1f M rows/s\n", rows, batches, seconds,
               (double)rows / seconds / 1e6);
    }
    pq_reader_free(reader);
    pq_file_free(file);
    io_store_free(store);
    arena_free(a);
    mem_free(dir);
    return rc == SILT_OK ? 0 : 1;
}
