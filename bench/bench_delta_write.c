/*
 * bench_delta_write - times writing the trips table (2,000,000 rows
 * partitioned by route_id, as in ../shared/tutorials/001_*.txt) and the
 * DELETE WHERE destination = 'New Jersey' on it, then a DELETE that must
 * rewrite every file (trip_id % 7 = 0). Prints one line per step.
 *
 *   bench_delta_write [rows] [dir]   (defaults: 2000000, a fresh temp dir)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/unit/delta/trips_data.h"
#include "delta/dml.h"
#include "delta/scan.h"
#include "delta/stats.h"
#include "util/time.h"

#define BATCH_ROWS 100000

static int fail(const char *step, const silt_error *err)
{
    char text[2048];
    err_format(err, text, sizeof(text));
    fprintf(stderr, "bench_delta_write: %s: %s\n", step, text);
    return 1;
}

static double secs_since(int64_t start_ns) { return (double)(time_monotonic_nanos() - start_ns) / 1e9; }

static silt_status write_table(io_store *store, int64_t n_rows, silt_error *err)
{
    static const char *const parts[] = {"route_id"};
    arena *a = arena_new(NULL, "bench");
    const col_type *schema = trips_schema(a);
    delta_write_options opts = DELTA_WRITE_OPTIONS_INIT;
    delta_writer *w = NULL;
    arena *batch_a = arena_new(a, "batch");
    int64_t start;
    silt_status rc;
    opts.n_partition_columns = 1;
    opts.partition_columns = parts;
    rc = delta_write_open(&w, store, NULL, schema, &opts, err);
    for (start = 0; rc == SILT_OK && start < n_rows; start += BATCH_ROWS) {
        col_batch *b = NULL;
        int64_t n = n_rows - start < BATCH_ROWS ? n_rows - start : BATCH_ROWS;
        rc = trips_batch(batch_a, schema, start, n, &b, err);
        if (rc == SILT_OK)
            rc = delta_write_batch(w, b, err);
        arena_reset(batch_a);
    }
    if (rc == SILT_OK)
        rc = delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, err);
    delta_write_free(w);
    arena_free(a);
    return rc;
}

typedef struct prune {
    dpred pred;
    arena *scratch;
} prune;

static int may_match(const delta_snapshot *snap, const delta_file *file, void *payload)
{
    prune *p = payload;
    int may = 1;
    silt_error e = SILT_ERROR_INIT;
    if (dstats_file_may_match(&p->pred, snap, file, p->scratch, &may, &e) != SILT_OK)
        return 1;
    return may;
}

static silt_status every_seventh(const col_batch *b, uint8_t *match, void *payload,
                                 silt_error *err)
{
    int64_t row;
    (void)payload;
    (void)err;
    for (row = 0; row < b->n_rows; row++)
        match[row] = ((const int64_t *)b->cols[2]->values)[row] % 7 == 0;
    return SILT_OK;
}

static silt_status run_delete(io_store *store, int prune_new_jersey, delta_dml_metrics *m,
                              silt_error *err)
{
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    delta_snapshot *snap = NULL;
    prune p;
    silt_status rc;
    memset(&p, 0, sizeof(p));
    p.scratch = arena_new(NULL, "prune");
    p.pred.kind = DPRED_CMP;
    p.pred.op = DPRED_EQ;
    p.pred.column = "destination";
    p.pred.literal.type = COL_STRING;
    p.pred.literal.v.s.ptr = "New Jersey";
    p.pred.literal.v.s.len = 10;
    if (prune_new_jersey) {
        opts.predicate = trips_is_new_jersey;
        opts.file_filter = may_match;
        opts.file_filter_payload = &p;
    } else {
        opts.predicate = every_seventh;
    }
    rc = delta_snapshot_load(&snap, store, -1, err);
    if (rc == SILT_OK)
        rc = delta_delete(store, snap, &opts, m, NULL, err);
    delta_snapshot_free(snap);
    arena_free(p.scratch);
    return rc;
}

int main(int argc, char **argv)
{
    int64_t n_rows = argc > 1 ? strtoll(argv[1], NULL, 10) : 2000000, start;
    char dir[512];
    io_store *store = NULL;
    silt_error err = SILT_ERROR_INIT;
    delta_dml_metrics m;
    if (argc > 2)
        snprintf(dir, sizeof(dir), "%s", argv[2]);
    else {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof(dir), "%s/silt-bench-write-XXXXXX", tmp ? tmp : "/tmp");
        if (mkdtemp(dir) == NULL)
            return 1;
    }
    if (io_local_store_open(&store, dir, 1, &err) != SILT_OK)
        return fail("open", &err);
    start = time_monotonic_nanos();
    if (write_table(store, n_rows, &err) != SILT_OK)
        return fail("write", &err);
    printf("write %lld rows partitioned by route_id: %.3f s\n", (long long)n_rows,
           secs_since(start));
    start = time_monotonic_nanos();
    if (run_delete(store, 1, &m, &err) != SILT_OK)
        return fail("delete", &err);
    printf("delete where destination = 'New Jersey': %.3f s (%lld rows, %lld files read)\n",
           secs_since(start), (long long)m.num_deleted_rows, (long long)m.num_files_read);
    start = time_monotonic_nanos();
    if (run_delete(store, 0, &m, &err) != SILT_OK)
        return fail("delete", &err);
    printf("delete where trip_id %% 7 = 0 (rewrites every file): %.3f s (%lld rows deleted, "
           "%lld copied)\n",
           secs_since(start), (long long)m.num_deleted_rows, (long long)m.num_copied_rows);
    printf("table: %s\n", dir);
    io_store_free(store);
    return 0;
}
