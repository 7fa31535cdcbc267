/*
 * The trips tutorial's data shape at C level: 2,000,000 rows written
 * partitioned by route_id, then DELETE WHERE destination = 'New Jersey'
 * (1,800,000 rows left), counted back through delta_scan. Stats pruning
 * (dstats_file_may_match) keeps the delete to the files of route C.
 */
#include "write_util.h"

#include "delta/dml.h"
#include "delta/stats.h"
#include "trips_data.h"

#define TRIPS_ROWS 2000000
#define TRIPS_BATCH 100000

static arena *a;
static io_store *store;
static silt_error err;

void test_delta_write_trips__initialize(void)
{
    a = arena_new(NULL, "test");
    err_clear(&err);
    check_ok(io_local_store_open(&store, test_tmpdir(), 1, &err), &err);
}

void test_delta_write_trips__cleanup(void)
{
    io_store_free(store);
    store = NULL;
    arena_free(a);
}

/* Rows of the newest version, and how many have destination 'New Jersey'. */
static void count_rows(int64_t *rows_out, int64_t *new_jersey_out)
{
    static const char *const cols[] = {"destination"};
    delta_scan_options opts = DELTA_SCAN_OPTIONS_INIT;
    delta_snapshot *snap = NULL;
    delta_scan *scan = NULL;
    arena *scratch = arena_new(NULL, "count");
    col_batch *b = NULL;
    uint8_t *match = NULL;
    opts.columns = cols;
    opts.n_columns = 1;
    *rows_out = *new_jersey_out = 0;
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_ok(delta_scan_open(&scan, store, snap, &opts, &err), &err);
    for (;;) {
        int64_t row;
        check_ok(delta_scan_next(scan, scratch, &b, &err), &err);
        if (b == NULL)
            break;
        match = arena_alloc(scratch, (size_t)b->n_rows);
        check_ok(trips_is_new_jersey(b, match, NULL, &err), &err);
        for (row = 0; row < b->n_rows; row++)
            *new_jersey_out += match[row];
        *rows_out += b->n_rows;
        arena_reset(scratch);
    }
    delta_scan_free(scan);
    delta_snapshot_free(snap);
    arena_free(scratch);
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
        return 1; /* unknown: a candidate */
    return may;
}

void test_delta_write_trips__write_then_delete_new_jersey(void)
{
    static const char *const parts[] = {"route_id"};
    const col_type *schema = trips_schema(a);
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    delta_dml_options dopts = DELTA_DML_OPTIONS_INIT;
    delta_dml_metrics m;
    delta_writer *w = NULL;
    delta_snapshot *snap = NULL;
    arena *batch_a = arena_new(NULL, "batch");
    prune p;
    int64_t start, rows = 0, new_jersey = 0;
    size_t idx;

    wopts.n_partition_columns = 1;
    wopts.partition_columns = parts;
    check_ok(delta_write_open(&w, store, NULL, schema, &wopts, &err), &err);
    for (start = 0; start < TRIPS_ROWS; start += TRIPS_BATCH) {
        col_batch *b = NULL;
        check_ok(trips_batch(batch_a, schema, start, TRIPS_BATCH, &b, &err), &err);
        check_ok(delta_write_batch(w, b, &err), &err);
        arena_reset(batch_a);
    }
    check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, &err), &err);
    delta_write_free(w);
    arena_free(batch_a);
    count_rows(&rows, &new_jersey);
    check_int(2000000, rows);
    check_int(200000, new_jersey);

    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_int(10, snap->n_files); /* one file per route: 200,000 rows stay under 128 MiB */
    for (idx = 0; idx < snap->n_files; idx++)
        check(util_str_starts_with(snap->files[idx].path, "route_id="));
    memset(&p, 0, sizeof(p));
    p.scratch = a;
    p.pred.kind = DPRED_CMP;
    p.pred.op = DPRED_EQ;
    p.pred.column = "destination";
    p.pred.literal.type = COL_STRING;
    p.pred.literal.v.s.ptr = "New Jersey";
    p.pred.literal.v.s.len = 10;
    dopts.predicate = trips_is_new_jersey;
    dopts.predicate_text = "(destination = 'New Jersey')";
    dopts.file_filter = may_match;
    dopts.file_filter_payload = &p;
    check_ok(delta_delete(store, snap, &dopts, &m, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_int(1, m.num_files_read); /* only route C's file can hold New Jersey */
    check_int(1, m.num_removed_files);
    check_int(0, m.num_added_files); /* every row of it matched */
    check_int(200000, m.num_deleted_rows);
    count_rows(&rows, &new_jersey);
    check_int(1800000, rows);
    check_int(0, new_jersey);
    check_str("[\"(destination = 'New Jersey')\"]",
              wt_commit_info(a, store, 1, "operationParameters.predicate"));
}
