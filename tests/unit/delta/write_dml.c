/*
 * DELETE, UPDATE and RESTORE through the C machinery: rows read back,
 * which files were rewritten or kept, history contents, a failed DELETE.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <sys/stat.h>

#include "write_util.h"
#include "util/time.h"

#include "delta/dml.h"
#include "delta/stats.h"

static arena *a;
static io_store *store;
static silt_error err;

void test_delta_write_dml__initialize(void)
{
    a = arena_new(NULL, "test");
    err_clear(&err);
    check_ok(io_local_store_open(&store, test_tmpdir(), 1, &err), &err);
}

void test_delta_write_dml__cleanup(void)
{
    io_store_free(store);
    store = NULL;
    arena_free(a);
}

static int has_path(const delta_snapshot *snap, const char *path)
{
    size_t idx;
    for (idx = 0; idx < snap->n_files; idx++)
        if (strcmp(snap->files[idx].path, path) == 0)
            return 1;
    return 0;
}

/* id is even */
static silt_status even_id(const col_batch *b, uint8_t *match, void *payload, silt_error *e)
{
    int64_t row;
    (void)payload;
    (void)e;
    for (row = 0; row < b->n_rows; row++)
        match[row] = !col_vec_is_null(b->cols[0], row) &&
                     ((const int64_t *)b->cols[0]->values)[row] % 2 == 0;
    return SILT_OK;
}

/* p = 'b' from partition values. */
static int partition_b(const delta_snapshot *snap, const delta_file *file, void *payload)
{
    const char *value = dlog_map_get(&file->partition_values, "p", NULL);
    (void)snap;
    (void)payload;
    return value != NULL && strcmp(value, "b") == 0;
}

void test_delta_write_dml__delete_rewrites_only_matching_files(void)
{
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    delta_dml_metrics m;
    delta_snapshot *before, *after;
    const char *c_path = NULL;
    size_t idx;
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    for (idx = 0; idx < before->n_files; idx++)
        if (util_str_starts_with(before->files[idx].path, "p=c/"))
            c_path = before->files[idx].path;
    check(c_path != NULL);
    opts.predicate = even_id;
    opts.predicate_text = "((id % 2) = 0)";
    check_ok(delta_delete(store, before, &opts, &m, NULL, &err), &err);
    check_str("1|one|a;3|three|a;5|five|b", wt_read(a, store, -1));
    check_int(3, m.num_files_read);
    check_int(3, m.num_removed_files); /* a and b rewritten; c had only id 6 */
    check_int(2, m.num_added_files);
    check_int(3, m.num_deleted_rows);
    check_int(3, m.num_copied_rows);
    after = wt_latest(store, &err);
    check_int(2, after->n_files);
    check(!has_path(after, c_path));
    delta_snapshot_free(after);
    delta_snapshot_free(before);
    check_str("DELETE", wt_commit_info(a, store, 1, "operation"));
    check_str("[\"((id % 2) = 0)\"]", wt_commit_info(a, store, 1, "operationParameters.predicate"));
    check_str("3", wt_commit_info(a, store, 1, "operationMetrics.numDeletedRows"));
    check_str("3", wt_commit_info(a, store, 1, "operationMetrics.numCopiedRows"));
    check_str("3", wt_commit_info(a, store, 1, "operationMetrics.numRemovedFiles"));
    check_str("2", wt_commit_info(a, store, 1, "operationMetrics.numAddedFiles"));
    check_str("0", wt_commit_info(a, store, 1, "operationMetrics.numAddedChangeFiles"));
    check(strcmp("<absent>", wt_commit_info(a, store, 1, "operationMetrics.scanTimeMs")) != 0);
}

void test_delta_write_dml__delete_keeps_files_without_matches(void)
{
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    delta_dml_metrics m;
    delta_snapshot *before, *after;
    size_t idx;
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    opts.predicate = even_id;
    opts.file_filter = partition_b; /* caller's pruning: only p = b can match */
    check_ok(delta_delete(store, before, &opts, &m, NULL, &err), &err);
    check_int(1, m.num_files_read);
    check_int(1, m.num_removed_files);
    check_int(1, m.num_added_files);
    check_str("1|one|a;2|two|a;3|three|a;5|five|b;6|six|c", wt_read(a, store, -1));
    after = wt_latest(store, &err);
    for (idx = 0; idx < before->n_files; idx++)
        if (!util_str_starts_with(before->files[idx].path, "p=b/"))
            check(has_path(after, before->files[idx].path));
    check_int(3, after->n_files);
    delta_snapshot_free(after);
    delta_snapshot_free(before);
}

void test_delta_write_dml__delete_partition_only_removes_whole_files(void)
{
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    delta_dml_metrics m;
    delta_snapshot *before;
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    opts.predicate = even_id; /* never called: the filter is exact */
    opts.file_filter = partition_b;
    opts.partition_only = 1;
    opts.predicate_text = "(p = 'b')";
    check_ok(delta_delete(store, before, &opts, &m, NULL, &err), &err);
    check_int(0, m.num_files_read);
    check_int(1, m.num_removed_files);
    check_int(0, m.num_added_files);
    check_int(2, m.num_deleted_rows); /* from the file's stats */
    check_str("1|one|a;2|two|a;3|three|a;6|six|c", wt_read(a, store, -1));
    delta_snapshot_free(before);
}

void test_delta_write_dml__delete_all(void)
{
    delta_dml_metrics m;
    delta_snapshot *before;
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    check_ok(delta_delete(store, before, NULL, &m, NULL, &err), &err);
    check_int(3, m.num_removed_files);
    check_int(6, m.num_deleted_rows);
    check_str("", wt_read(a, store, -1));
    check_str("[\"true\"]", wt_commit_info(a, store, 1, "operationParameters.predicate"));
    delta_snapshot_free(before);
}

/* name = upper-case "X" + old name */
static silt_status rename_rows(const col_batch *matched, arena *ar, col_batch **out, void *payload,
                               silt_error *e)
{
    col_batch *b = arena_memdup(ar, matched, sizeof(*matched));
    col_builder *bld = NULL;
    int64_t row;
    (void)payload;
    b->cols = arena_memdup(ar, matched->cols, matched->n_cols * sizeof(col_vec *));
    SILT_RETURN_IF_ERROR(col_builder_new(&bld, ar, col_type_primitive(COL_STRING), e));
    for (row = 0; row < matched->n_rows; row++) {
        int32_t len;
        const char *s = col_vec_str(matched->cols[1], row, &len);
        char text[64];
        int n = snprintf(text, sizeof(text), "X%.*s", (int)len, s);
        SILT_RETURN_IF_ERROR(col_builder_append_bytes(bld, text, (size_t)n, e));
    }
    SILT_RETURN_IF_ERROR(col_builder_finish(bld, &b->cols[1], e));
    *out = b;
    return SILT_OK;
}

void test_delta_write_dml__update(void)
{
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    delta_dml_metrics m;
    delta_snapshot *before;
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    opts.predicate = even_id;
    opts.predicate_text = "((id % 2) = 0)";
    check_ok(delta_update(store, before, &opts, rename_rows, NULL, &m, NULL, &err), &err);
    check_str("1|one|a;2|Xtwo|a;3|three|a;4|Xfour|b;5|five|b;6|Xsix|c", wt_read(a, store, -1));
    check_int(3, m.num_updated_rows);
    check_int(3, m.num_copied_rows);
    check_int(3, m.num_removed_files);
    check_int(3, m.num_added_files);
    check_str("UPDATE", wt_commit_info(a, store, 1, "operation"));
    check_str("[\"((id % 2) = 0)\"]",
              wt_commit_info(a, store, 1, "operationParameters.predicate"));
    check_str("0", wt_commit_info(a, store, 1, "operationMetrics.numDeletionVectorsAdded"));
    check_str("3", wt_commit_info(a, store, 1, "operationMetrics.numUpdatedRows"));
    delta_snapshot_free(before);
}

void test_delta_write_dml__restore_version(void)
{
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    delta_snapshot *snap;
    delta_commit_result res;
    wt_make_abc_table(a, store, &err);
    snap = wt_latest(store, &err);
    opts.predicate = even_id;
    check_ok(delta_delete(store, snap, &opts, NULL, NULL, &err), &err);
    delta_snapshot_free(snap);
    snap = wt_latest(store, &err);
    check_ok(delta_restore(store, snap, 0, -1, NULL, &res, &err), &err);
    check_int(2, res.version);
    delta_snapshot_free(snap);
    check_str("1|one|a;2|two|a;3|three|a;4|four|b;5|five|b;6|six|c", wt_read(a, store, -1));
    check_str("RESTORE", wt_commit_info(a, store, 2, "operation"));
    check_str("0", wt_commit_info(a, store, 2, "operationParameters.version"));
    check_str("null", wt_commit_info(a, store, 2, "operationParameters.timestamp"));
    check_str("3", wt_commit_info(a, store, 2, "operationMetrics.numOfFilesAfterRestore"));
    check_str("3", wt_commit_info(a, store, 2, "operationMetrics.numRestoredFiles"));
    check_str("2", wt_commit_info(a, store, 2, "operationMetrics.numRemovedFiles"));
    snap = wt_latest(store, &err);
    check_int(3, snap->n_files);
    /* Restoring to the newest state changes no file. */
    check_ok(delta_restore(store, snap, 2, -1, NULL, &res, &err), &err);
    check_str("0", wt_commit_info(a, store, 3, "operationMetrics.numRestoredFiles"));
    delta_snapshot_free(snap);
    snap = wt_latest(store, &err);
    check_fails(SILT_INVALID, delta_restore(store, snap, 9, -1, NULL, NULL, &err));
    check_fails(SILT_INVALID, delta_restore(store, snap, -1, -1, NULL, NULL, &err));
    delta_snapshot_free(snap);
}

void test_delta_write_dml__restore_missing_file_refused(void)
{
    delta_snapshot *snap, *v0;
    wt_make_abc_table(a, store, &err);
    v0 = wt_latest(store, &err);
    check_ok(delta_delete(store, v0, NULL, NULL, NULL, &err), &err);
    check_ok(io_delete(store, v0->files[0].path, &err), &err); /* as VACUUM would */
    snap = wt_latest(store, &err);
    check_fails(SILT_NOTFOUND, delta_restore(store, snap, 0, -1, NULL, NULL, &err));
    check_contains(err.message, "no longer exists");
    delta_snapshot_free(snap);
    snap = wt_latest(store, &err);
    check_int(1, snap->version);
    delta_snapshot_free(snap);
    delta_snapshot_free(v0);
}

void test_delta_write_dml__failed_delete_leaves_table(void)
{
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    long nth;
    wt_make_abc_table(a, store, &err);
    opts.predicate = even_id;
    /* Writes: the rewritten files of p=a and p=b, then the commit; the 4th try succeeds. */
    for (nth = 1; nth <= 4; nth++) {
        io_fault_plan plan = IO_FAULT_PLAN_INIT;
        io_store *faulty = NULL, *inner = NULL;
        delta_snapshot *snap = wt_latest(store, &err);
        plan.fail_write_nth = nth;
        plan.fail_all_after = 1;
        check_ok(io_local_store_open(&inner, test_tmpdir(), 0, &err), &err);
        check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err); /* owns inner */
        check_int(nth == 4 ? SILT_OK : SILT_IO, delta_delete(faulty, snap, &opts, NULL, NULL, &err));
        io_store_free(faulty);
        delta_snapshot_free(snap);
        snap = wt_latest(store, &err);
        check_int(nth == 4 ? 1 : 0, snap->version);
        delta_snapshot_free(snap);
        if (nth == 3)
            check_str("1|one|a;2|two|a;3|three|a;4|four|b;5|five|b;6|six|c",
                      wt_read(a, store, -1));
    }
    check_str("1|one|a;3|three|a;5|five|b", wt_read(a, store, -1));
}

static void set_mtime(const char *key, int64_t seconds_ago)
{
    char path[1024];
    struct timespec times[2];
    snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), key);
    times[0].tv_sec = times[1].tv_sec = (time_t)(time_now_micros() / 1000000 - seconds_ago);
    times[0].tv_nsec = times[1].tv_nsec = 0;
    check(utimensat(AT_FDCWD, path, times, 0) == 0);
}

void test_delta_write_dml__restore_timestamp(void)
{
    delta_snapshot *snap;
    char expected[64];
    int64_t cut = (time_now_micros() / 1000000 - 50) * 1000000;
    wt_make_abc_table(a, store, &err);
    snap = wt_latest(store, &err);
    check_ok(delta_delete(store, snap, NULL, NULL, NULL, &err), &err);
    delta_snapshot_free(snap);
    set_mtime("_delta_log/00000000000000000000.json", 100);
    snap = wt_latest(store, &err);
    check_ok(delta_restore(store, snap, -1, cut, NULL, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_str("1|one|a;2|two|a;3|three|a;4|four|b;5|five|b;6|six|c", wt_read(a, store, -1));
    time_format_timestamp_spark(cut, expected, sizeof(expected));
    check_str(expected, wt_commit_info(a, store, 2, "operationParameters.timestamp"));
    check_str("null", wt_commit_info(a, store, 2, "operationParameters.version"));
    /* Before the first commit there is nothing to restore. */
    snap = wt_latest(store, &err);
    check(delta_restore(store, snap, -1, cut - INT64_C(3600) * 1000000, NULL, NULL, &err) != SILT_OK);
    delta_snapshot_free(snap);
}

/* Two DELETEs from the same snapshot rewriting the same file: the second is refused. */
void test_delta_write_dml__concurrent_deletes_conflict(void)
{
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    delta_snapshot *snap;
    wt_make_abc_table(a, store, &err);
    snap = wt_latest(store, &err);
    opts.predicate = even_id;
    check_ok(delta_delete(store, snap, &opts, NULL, NULL, &err), &err);
    check_fails(SILT_CONFLICT, delta_delete(store, snap, &opts, NULL, NULL, &err));
    check_contains(err.message, "Concurrent");
    delta_snapshot_free(snap);
    snap = wt_latest(store, &err);
    check_int(1, snap->version);
    delta_snapshot_free(snap);
}

/* A blind append that lands first does not conflict with a DELETE (WriteSerializable). */
void test_delta_write_dml__delete_after_concurrent_append(void)
{
    static const char *const rows[] = {"8|eight|d"};
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    delta_snapshot *snap, *snap2;
    delta_writer *w = NULL;
    delta_commit_result res;
    wt_make_abc_table(a, store, &err);
    snap = wt_latest(store, &err);
    snap2 = wt_latest(store, &err);
    check_ok(delta_write_open(&w, store, snap2, wt_schema3(a), NULL, &err), &err);
    check_ok(delta_write_batch(w, wt_batch(a, wt_schema3(a), rows, 1), &err), &err);
    check_ok(delta_write_commit(w, store, snap2, DELTA_MODE_APPEND, NULL, NULL, &err), &err);
    delta_write_free(w);
    opts.predicate = even_id;
    check_ok(delta_delete(store, snap, &opts, NULL, &res, &err), &err);
    check_int(2, res.version);
    check_int(2, res.attempts);
    /* The appended row was not read by the DELETE, so it stays, as in Delta. */
    check_str("1|one|a;3|three|a;5|five|b;8|eight|d", wt_read(a, store, -1));
    delta_snapshot_free(snap);
    delta_snapshot_free(snap2);
}

void test_delta_write_dml__column_mapping_table(void)
{
    static const char *const rows[] = {"1|one|a", "2|two|a", "4|four|b"};
    static const char *const parts[] = {"p"};
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    dlog_kv kv = {"delta.columnMapping.mode", "id"};
    dlog_map config = {1, &kv};
    delta_writer *w = NULL;
    delta_snapshot *snap;
    wopts.n_partition_columns = 1;
    wopts.partition_columns = parts;
    wopts.configuration = &config;
    check_ok(delta_write_open(&w, store, NULL, wt_schema3(a), &wopts, &err), &err);
    check_ok(delta_write_batch(w, wt_batch(a, wt_schema3(a), rows, 3), &err), &err);
    check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, &err), &err);
    delta_write_free(w);
    snap = wt_latest(store, &err);
    opts.predicate = even_id;
    check_ok(delta_update(store, snap, &opts, rename_rows, NULL, NULL, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_str("1|one|a;2|Xtwo|a;4|Xfour|b", wt_read(a, store, -1));
    snap = wt_latest(store, &err);
    check_ok(delta_delete(store, snap, &opts, NULL, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_str("1|one|a", wt_read(a, store, -1));
}

/* The abc table with the change data feed on (protocol (1,4)). */
static void make_cdf_table(void) { wt_make_cdf_table(a, store, &err); }

static const char *commit_text(int64_t version) { return wt_commit_text(a, store, version); }

/*
 * PROTOCOL: Change Data Files. With the change data feed on, UPDATE and
 * DELETE write cdc files next to the rewritten data (one per touched
 * partition, under _change_data/), and a partition-only DELETE reads its
 * files instead of dropping them blindly, since a commit with cdc actions is
 * read from them alone. (Their rows are checked against delta-rs's and
 * Spark's change data feed in the conformance.delta_write ctest.)
 */
void test_delta_write_dml__change_data_files(void)
{
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    delta_dml_metrics m;
    delta_snapshot *snap;
    const char *text;
    make_cdf_table();
    snap = wt_latest(store, &err);
    opts.predicate = even_id;
    opts.predicate_text = "((id % 2) = 0)";
    check_ok(delta_update(store, snap, &opts, rename_rows, NULL, &m, NULL, &err), &err);
    delta_snapshot_free(snap);
    text = commit_text(1);
    check_contains(text, "{\"cdc\":{\"path\":\"_change_data/p=a/cdc-");
    check_contains(text, "\"dataChange\":false}}");
    check_str("3", wt_commit_info(a, store, 1, "operationMetrics.numAddedChangeFiles"));
    check_str("1|one|a;2|Xtwo|a;3|three|a;4|Xfour|b;5|five|b;6|Xsix|c", wt_read(a, store, -1));

    snap = wt_latest(store, &err);
    memset(&opts, 0, sizeof(opts));
    opts.version = 1;
    opts.predicate = even_id;
    opts.file_filter = partition_b;
    opts.partition_only = 1;
    opts.predicate_text = "(p = 'b')";
    check_ok(delta_delete(store, snap, &opts, &m, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_int(1, m.num_files_read);
    check_int(2, m.num_deleted_rows);
    text = commit_text(2);
    check_contains(text, "{\"cdc\":{\"path\":\"_change_data/p=b/cdc-");
    check_str("1", wt_commit_info(a, store, 2, "operationMetrics.numAddedChangeFiles"));
    check_str("1|one|a;2|Xtwo|a;3|three|a;6|Xsix|c", wt_read(a, store, -1));
}

/* DELETE without a predicate on a table with the change data feed on: every row is a
 * change (three files read, three cdc files); without the feed no file is read. */
void test_delta_write_dml__delete_all_with_change_data_feed(void)
{
    delta_dml_metrics m;
    delta_snapshot *snap;
    make_cdf_table();
    snap = wt_latest(store, &err);
    check_ok(delta_delete(store, snap, NULL, &m, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_int(3, m.num_files_read);
    check_int(6, m.num_deleted_rows);
    check_str("", wt_read(a, store, -1));
    check_str("3", wt_commit_info(a, store, 1, "operationMetrics.numAddedChangeFiles"));
}

/* RESTORE on a table with the change data feed on is allowed and writes no cdc files, as
 * Delta's: readers of the feed take its removes as deletes and its adds as inserts. */
void test_delta_write_dml__restore_with_change_data_feed(void)
{
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    delta_snapshot *snap;
    const char *text;
    make_cdf_table();
    snap = wt_latest(store, &err);
    opts.predicate = even_id;
    check_ok(delta_delete(store, snap, &opts, NULL, NULL, &err), &err);
    delta_snapshot_free(snap);
    snap = wt_latest(store, &err);
    check_ok(delta_restore(store, snap, 0, -1, NULL, NULL, &err), &err);
    delta_snapshot_free(snap);
    text = commit_text(2);
    check(strstr(text, "{\"cdc\":") == NULL);
    check_contains(text, "{\"remove\":");
    check_contains(text, "\"dataChange\":true");
    check_str("RESTORE", wt_commit_info(a, store, 2, "operation"));
    check_str("1|one|a;2|two|a;3|three|a;4|four|b;5|five|b;6|six|c", wt_read(a, store, -1));
}

/* p = 'a' from partition values. */
static int partition_a(const delta_snapshot *snap, const delta_file *file, void *payload)
{
    const char *value = dlog_map_get(&file->partition_values, "p", NULL);
    (void)snap;
    (void)payload;
    return value != NULL && strcmp(value, "a") == 0;
}

/*
 * Two writers interleaved: the first DELETE's commit clock runs, before its
 * commit is written, a second statement (`inner`) from the same snapshot,
 * which wins the version. Issue 15 defect 5.
 */
typedef struct interleave {
    const delta_snapshot *snap;
    delta_file_filter_fn inner_filter; /* the partition the inner statement deletes */
    int update;                        /* the inner statement is an UPDATE (rewrites) */
    int ran;
    silt_status inner_rc;
} interleave;

static silt_status set_x(const col_batch *matched, arena *ar, col_batch **out, void *payload,
                         silt_error *e)
{
    (void)ar;
    (void)payload;
    (void)e;
    *out = (col_batch *)matched; /* the same rows again: a rewrite is all that counts here */
    return SILT_OK;
}

static int64_t run_inner(void *payload)
{
    interleave *il = payload;
    if (!il->ran) {
        delta_dml_options o = DELTA_DML_OPTIONS_INIT;
        delta_dml_metrics m;
        silt_error e = SILT_ERROR_INIT;
        il->ran = 1;
        o.file_filter = il->inner_filter;
        o.read_predicate = il->inner_filter;
        o.predicate = even_id; /* WHERE p = '..' AND id % 2 = 0: the read predicate is p's */
        il->inner_rc = il->update ? delta_update(store, il->snap, &o, set_x, NULL, &m, NULL, &e)
                                  : delta_delete(store, il->snap, &o, &m, NULL, &e);
    }
    return time_now_micros() / 1000;
}

void test_delta_write_dml__disjoint_partitions_do_not_conflict(void)
{
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    delta_dml_metrics m;
    delta_commit_result res;
    delta_snapshot *before;
    interleave il;
    int round;
    for (round = 0; round < 2; round++) {
        /* round 0: DELETE WHERE p = 'b' AND id % 2 = 0 against the same DELETE in p = 'a'
         * (each rewrites a file of its partition); round 1: against an UPDATE in p = 'a'. */
        delta_snapshot *snap;
        memset(&il, 0, sizeof(il));
        if (round == 0)
            wt_make_abc_table(a, store, &err);
        before = wt_latest(store, &err);
        il.snap = before;
        il.inner_filter = partition_a;
        il.update = round;
        opts.predicate = even_id;
        opts.file_filter = partition_b;
        opts.read_predicate = partition_b;
        opts.now_ms = run_inner;
        opts.now_payload = &il;
        check_ok(delta_delete(store, before, &opts, &m, &res, &err), &err);
        check(il.ran);
        check_int(SILT_OK, il.inner_rc);
        check_int(before->version + 2, res.version); /* rebased past the other writer */
        snap = wt_latest(store, &err);
        check_int(before->version + 2, snap->version);
        delta_snapshot_free(snap);
        delta_snapshot_free(before);
    }
    check_str("1|one|a;3|three|a;5|five|b;6|six|c", wt_read(a, store, -1));
    check_int(4, res.version);
}

/* The same partition: the loser gets Delta's named conflict, and writes nothing. */
void test_delta_write_dml__same_partition_conflicts(void)
{
    delta_dml_options opts = DELTA_DML_OPTIONS_INIT;
    delta_dml_metrics m;
    delta_snapshot *before, *after;
    interleave il;
    memset(&il, 0, sizeof(il));
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    il.snap = before;
    il.inner_filter = partition_b;
    il.update = 1; /* rewrites p = b: removes the file this DELETE read */
    opts.predicate = even_id;
    opts.file_filter = partition_b;
    opts.read_predicate = partition_b;
    opts.partition_only = 1;
    opts.now_ms = run_inner;
    opts.now_payload = &il;
    check_fails(SILT_CONFLICT, delta_delete(store, before, &opts, &m, NULL, &err));
    check_contains(err.message, "Concurrent");
    check_int(SILT_OK, il.inner_rc);
    after = wt_latest(store, &err);
    check_int(before->version + 1, after->version);
    delta_snapshot_free(after);
    delta_snapshot_free(before);
}
