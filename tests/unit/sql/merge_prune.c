/*
 * MERGE reads only the target files that can hold a matching key
 * (exec_merge.c plan_merge_pruning: the source keys' min/max against each
 * file's statistics). The proof does not time anything: every data file
 * that cannot match is deleted from disk before the MERGE, so reading one
 * would fail, and the commit must remove (rewrite) exactly one file.
 */
#include <stdio.h>
#include <string.h>

#include "delta/snapshot.h"
#include "sql/session.h"
#include "test.h"

static sql_session *s;
static silt_error err;
static char path[1024];
static char sql[4096];

void test_sql_merge_prune__initialize(void)
{
    err_clear(&err);
    check_ok(sql_session_new(&s, NULL, &err), &err);
    snprintf(path, sizeof(path), "%s/t", test_tmpdir());
}

void test_sql_merge_prune__cleanup(void) { sql_session_free(s); }

/* Deletes every data file except the one whose stats say its minimum id is keep_min. */
static int delete_other_files(long long keep_min)
{
    io_store *store = NULL;
    delta_snapshot *snap = NULL;
    char needle[64];
    size_t idx;
    int kept = 0;
    snprintf(needle, sizeof(needle), "\"minValues\":{\"id\":%lld", keep_min);
    check_ok(io_store_open(&store, path, 0, &err), &err);
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    for (idx = 0; snap != NULL && idx < snap->n_files; idx++) {
        const delta_file *f = &snap->files[idx];
        if (f->stats != NULL && strstr(f->stats, needle) != NULL)
            kept++;
        else
            check_ok(io_delete(store, f->path, &err), &err);
    }
    delta_snapshot_free(snap);
    io_store_free(store);
    return kept;
}

/*
 * Ten files of 200,000 rows each (ids k*1e6 .. k*1e6+199,999: 2,000,000
 * rows), then a MERGE of 10 source rows whose keys lie in file 5's range
 * or the gap after it: 5 match and are updated, 5 are new and inserted.
 */
void test_sql_merge_prune__ten_rows_into_two_million_read_one_file(void)
{
    sql_result *res = NULL;
    col_batch *batch = NULL;
    long long k;
    snprintf(sql, sizeof(sql), "CREATE TABLE delta.`%s` (id BIGINT, v BIGINT) USING DELTA", path);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    for (k = 0; k < 10; k++) {
        snprintf(sql, sizeof(sql), "INSERT INTO delta.`%s` SELECT id, 0 FROM range(%lld, %lld)",
                 path, k * 1000000, k * 1000000 + 200000);
        check_ok(sql_execute(s, sql, NULL, &err), &err);
    }
    check_int(1, delete_other_files(5000000));
    snprintf(sql, sizeof(sql),
             "MERGE INTO delta.`%s` t USING (SELECT id, 1 AS v FROM range(5000000, 5000005) "
             "UNION ALL SELECT id, 2 AS v FROM range(5500000, 5500005)) s ON t.id = s.id "
             "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *",
             path);
    check_ok(sql_execute(s, sql, &res, &err), &err);
    check_ok(sql_result_next(res, &batch, &err), &err);
    check(batch != NULL && batch->n_cols == 4);
    if (batch != NULL && batch->n_cols == 4) {
        check_int(10, ((const int64_t *)batch->cols[0]->values)[0]); /* affected */
        check_int(5, ((const int64_t *)batch->cols[1]->values)[0]);  /* updated */
        check_int(5, ((const int64_t *)batch->cols[3]->values)[0]);  /* inserted */
    }
    sql_result_free(res);
    res = NULL;
    /* The commit removed exactly the one file that held matches. */
    {
        io_store *store = NULL;
        buf data = BUF_INIT;
        check_ok(io_store_open(&store, path, 0, &err), &err);
        check_ok(io_get(store, "_delta_log/00000000000000000011.json", &data, &err), &err);
        check_ok(buf_append_char(&data, 0, &err), &err);
        check_contains(data.data, "\"numTargetFilesRemoved\":\"1\"");
        check_contains(data.data, "\"numTargetRowsCopied\":\"199995\"");
        buf_clear(&data);
        io_store_free(store);
    }
}
