/*
 * The files SQL writes: sizes near the target (delta.targetFileSize, or the
 * session's silt.write.targetFileSize), statistics that match the files'
 * rows, rewrites by UPDATE/DELETE of the same size, and a checkpoint after
 * the tenth commit.
 *
 * The target is compared with the rows' in-memory size (docs/delta-write.md):
 * two BIGINT columns are 16 bytes a row, so a 4 MiB target makes files of
 * 262,144 rows and a little more (the rows of the batch that crossed it).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "delta/snapshot.h"
#include "sql/session.h"
#include "test.h"

#define ROW_BYTES 16
#define TARGET ((int64_t)4 << 20)

static sql_session *s;
static silt_error err;
static char path[1024];
static char sql[4096];

void test_sql_write_files__initialize(void)
{
    err_clear(&err);
    check_ok(sql_session_new(&s, NULL, &err), &err);
    snprintf(path, sizeof(path), "%s/t", test_tmpdir());
}

void test_sql_write_files__cleanup(void) { sql_session_free(s); }

static delta_snapshot *latest(void)
{
    io_store *store = NULL;
    delta_snapshot *snap = NULL;
    check_ok(io_store_open(&store, path, 0, &err), &err);
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    io_store_free(store);
    return snap;
}

/* One LONG cell of a query. */
static int64_t scalar(const char *text)
{
    sql_result *res = NULL;
    col_batch *batch = NULL;
    int64_t v = -1;
    check_ok(sql_execute(s, text, &res, &err), &err);
    if (res != NULL && sql_result_next(res, &batch, &err) == SILT_OK && batch != NULL &&
        batch->n_rows == 1)
        v = ((const int64_t *)batch->cols[0]->values)[0];
    sql_result_free(res);
    return v;
}

static int64_t stat_of(const cJSON *stats, const char *group, const char *column)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(stats, group);
    const cJSON *v = column ? cJSON_GetObjectItemCaseSensitive(g, column) : g;
    check(cJSON_IsNumber(v));
    return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : -1;
}

/*
 * Every file's stats against its own rows (read back from the Parquet file):
 * numRecords, min/max of id and v, no nulls. Returns the rows of all files;
 * *n_small_out counts files below the target (one per table at most).
 */
static int64_t check_files(const delta_snapshot *snap, int *n_small_out)
{
    size_t idx;
    int64_t total = 0;
    *n_small_out = 0;
    for (idx = 0; idx < snap->n_files; idx++) {
        const delta_file *f = &snap->files[idx];
        cJSON *st = f->stats ? cJSON_Parse(f->stats) : NULL;
        int64_t n = stat_of(st, "numRecords", NULL);
        char file[2048];
        check(st != NULL);
        snprintf(file, sizeof(file), "parquet.`%s/%s`", path, f->path);
        snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", file);
        check_int(n, scalar(sql));
        snprintf(sql, sizeof(sql), "SELECT min(id) FROM %s", file);
        check_int(stat_of(st, "minValues", "id"), scalar(sql));
        snprintf(sql, sizeof(sql), "SELECT max(id) FROM %s", file);
        check_int(stat_of(st, "maxValues", "id"), scalar(sql));
        snprintf(sql, sizeof(sql), "SELECT max(v) FROM %s", file);
        check_int(stat_of(st, "maxValues", "v"), scalar(sql));
        check_int(0, stat_of(st, "nullCount", "id"));
        check_int(0, stat_of(st, "nullCount", "v"));
        /* Near the target: at least it, at most it and one more batch of rows. */
        if (n * ROW_BYTES < TARGET)
            (*n_small_out)++;
        check(n * ROW_BYTES < TARGET + TARGET / 4);
        total += n;
        cJSON_Delete(st);
    }
    return total;
}

void test_sql_write_files__ctas_files_near_target_with_true_stats(void)
{
    delta_snapshot *snap;
    int n_small = 0;
    snprintf(sql, sizeof(sql),
             "CREATE TABLE delta.`%s` USING DELTA TBLPROPERTIES ('delta.targetFileSize' = "
             "'%lld') AS SELECT id, id %% 7 AS v FROM range(2000000)",
             path, (long long)TARGET);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    snap = latest();
    /* 32,000,000 bytes of rows: seven files at the target and the rest. */
    check(snap->n_files >= 7 && snap->n_files <= 9);
    check_int(2000000, check_files(snap, &n_small));
    check(n_small <= 2); /* the last file; a thread's remainder */
    delta_snapshot_free(snap);

    /* A rewrite keeps the file's size: UPDATE of rows of one file, DELETE of others. */
    snprintf(sql, sizeof(sql), "UPDATE delta.`%s` SET v = 6 WHERE id < 1000", path);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    snprintf(sql, sizeof(sql), "DELETE FROM delta.`%s` WHERE id >= 1999000", path);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    snap = latest();
    check(snap->n_files >= 7 && snap->n_files <= 10);
    check_int(1999000, check_files(snap, &n_small));
    delta_snapshot_free(snap);
}

/* The session setting sets the target when the table has none; a bad value is refused. */
void test_sql_write_files__session_target_size(void)
{
    delta_snapshot *snap;
    int n_small = 0;
    snprintf(sql, sizeof(sql), "CREATE TABLE delta.`%s` (id BIGINT, v BIGINT) USING DELTA",
             path);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    check_ok(sql_execute(s, "SET silt.write.targetFileSize = '4m'", NULL, &err), &err);
    snprintf(sql, sizeof(sql),
             "INSERT INTO delta.`%s` SELECT id, id %% 5 AS v FROM range(1000000)", path);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    snap = latest();
    check(snap->n_files >= 3 && snap->n_files <= 5); /* 16,000,000 bytes of rows */
    check_int(1000000, check_files(snap, &n_small));
    delta_snapshot_free(snap);

    check_ok(sql_execute(s, "SET silt.write.targetFileSize = lots", NULL, &err), &err);
    snprintf(sql, sizeof(sql), "INSERT INTO delta.`%s` VALUES (1, 1)", path);
    check_fails(SILT_INVALID, sql_execute(s, sql, NULL, &err));
    check_contains(err.message, "silt.write.targetFileSize");
}

/* PROTOCOL: Checkpoints. The tenth commit leaves a checkpoint that the log points to. */
void test_sql_write_files__checkpoint_after_ten_commits(void)
{
    io_store *store = NULL;
    io_object_info info;
    delta_snapshot *snap;
    int k;
    snprintf(sql, sizeof(sql), "CREATE TABLE delta.`%s` (id BIGINT, v BIGINT) USING DELTA",
             path);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    for (k = 1; k <= 10; k++) {
        snprintf(sql, sizeof(sql), "INSERT INTO delta.`%s` VALUES (%d, %d)", path, k, k);
        check_ok(sql_execute(s, sql, NULL, &err), &err);
    }
    check_ok(io_store_open(&store, path, 0, &err), &err);
    check_ok(io_head(store, "_delta_log/00000000000000000010.checkpoint.parquet", &info, &err),
             &err);
    io_object_info_clear(&info);
    check_fails(SILT_NOTFOUND,
                io_head(store, "_delta_log/00000000000000000009.checkpoint.parquet", &info, &err));
    io_store_free(store);
    snap = latest();
    check_int(10, snap->version);
    check_int(10, snap->n_files);
    delta_snapshot_free(snap);
}
