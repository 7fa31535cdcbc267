/*
 * Tests of the write statements (sql/exec_*.c) through sql_execute: the
 * status codes callers act on, and that a failed statement leaves the
 * table at the version it had.
 */
#include <stdio.h>
#include <string.h>

#include "delta/scan.h"
#include "delta/snapshot.h"
#include "sql/session.h"
#include "test.h"

static sql_session *s;
static silt_error err;
static char table[1024];
static char sql[4096];

void test_sql_dml__initialize(void)
{
    err_clear(&err);
    check_ok(sql_session_new(&s, NULL, &err), &err);
    snprintf(table, sizeof(table), "delta.`%s/t`", test_tmpdir());
}

void test_sql_dml__cleanup(void) { sql_session_free(s); }

/* Copies tmpl into sql with every "{t}" replaced by the test table's name. */
static const char *fill(const char *tmpl)
{
    size_t n = 0, tlen = strlen(table);
    while (*tmpl != '\0' && n + tlen + 1 < sizeof(sql)) {
        if (strncmp(tmpl, "{t}", 3) == 0) {
            memcpy(sql + n, table, tlen);
            n += tlen;
            tmpl += 3;
        } else {
            sql[n++] = *tmpl++;
        }
    }
    sql[n] = '\0';
    return sql;
}

static silt_status run(const char *tmpl)
{
    return sql_execute(s, fill(tmpl), NULL, &err);
}

/* The table's latest version, -1 when there is none. */
static int64_t version_of_table(void)
{
    char path[1024];
    io_store *store = NULL;
    delta_snapshot *snap = NULL;
    silt_error e = SILT_ERROR_INIT;
    int64_t v = -1;
    snprintf(path, sizeof(path), "%s/t", test_tmpdir());
    if (io_store_open(&store, path, 0, &e) == SILT_OK &&
        delta_snapshot_load(&snap, store, -1, &e) == SILT_OK)
        v = snap->version;
    delta_snapshot_free(snap);
    io_store_free(store);
    return v;
}

/* One LONG cell of the last statement of text. */
static int64_t scalar(const char *fmt)
{
    sql_result *res = NULL;
    col_batch *batch = NULL;
    int64_t v = -1;
    check_ok(sql_execute(s, fill(fmt), &res, &err), &err);
    if (res != NULL && sql_result_next(res, &batch, &err) == SILT_OK && batch != NULL &&
        batch->n_rows == 1)
        v = ((const int64_t *)batch->cols[0]->values)[0];
    sql_result_free(res);
    return v;
}

void test_sql_dml__ctas_insert_delete_update_versions(void)
{
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT id FROM range(10)"), &err);
    check_int(0, version_of_table());
    check_ok(run("INSERT INTO {t} SELECT id FROM range(10, 15)"), &err);
    check_ok(run("DELETE FROM {t} WHERE id % 2 = 0"), &err);
    check_ok(run("UPDATE {t} SET id = id * 100 WHERE id > 10"), &err);
    check_int(3, version_of_table());
    check_int(7, scalar("SELECT count(*) FROM {t}"));
    check_int(1300 + 1100 + 9 + 7 + 5 + 3 + 1, scalar("SELECT sum(id) FROM {t}"));
    check_int(10, scalar("SELECT count(*) FROM {t} VERSION AS OF 0"));
}

void test_sql_dml__statuses_callers_act_on(void)
{
    check_ok(run("CREATE TABLE {t} (a INT, b STRING) USING DELTA"), &err);
    check_fails(SILT_EXISTS, run("CREATE TABLE {t} (a INT) USING DELTA"));
    check_contains(err.message, "DELTA_TABLE_ALREADY_EXISTS");
    check_fails(SILT_NOTFOUND, run("DELETE FROM delta.`/nonexistent/silt/t`"));
    check_fails(SILT_BIND, run("INSERT INTO {t} VALUES (1)"));
    check_contains(err.message, "NOT_ENOUGH_DATA_COLUMNS");
    check_fails(SILT_BIND, run("UPDATE {t} SET nope = 1"));
    check_fails(SILT_BIND, run("DESCRIBE HISTORY {t} LIMIT -1"));
    check_fails(SILT_UNSUPPORTED, run("CREATE TABLE t2 (a INT) USING DELTA"));
    check_contains(err.message, "needs a warehouse");
    check_int(0, version_of_table());
}

void test_sql_dml__failed_statements_leave_the_table_unchanged(void)
{
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT 'a' AS s, 1 AS n"), &err);
    check_fails(SILT_RUNTIME, run("UPDATE {t} SET n = s"));
    check_contains(err.message, "CAST_INVALID_INPUT");
    check_fails(SILT_RUNTIME, run("INSERT INTO {t} SELECT 'x', CAST('y' AS INT)"));
    check_fails(SILT_INVALID, run("INSERT INTO {t} BY NAME SELECT 1 AS n, 2 AS extra"));
    check_fails(SILT_RUNTIME, run("MERGE INTO {t} t USING (SELECT 1 AS n UNION ALL SELECT 1) s "
                                  "ON t.n = s.n WHEN MATCHED THEN UPDATE SET n = 2"));
    check_contains(err.message, "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE");
    check_int(0, version_of_table());
    check_int(1, scalar("SELECT count(*) FROM {t}"));
}

void test_sql_dml__merge_counts_and_rows(void)
{
    sql_result *res = NULL;
    col_batch *batch = NULL;
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT id, id AS v FROM range(4)"), &err);
    check_ok(sql_execute(s, fill("MERGE INTO {t} t USING (SELECT id, id * 10 AS v FROM "
                                 "range(2, 6)) s ON t.id = s.id WHEN MATCHED AND s.id = 3 THEN "
                                 "DELETE WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED "
                                 "THEN INSERT *"), &res, &err), &err);
    check_ok(sql_result_next(res, &batch, &err), &err);
    check(batch != NULL && batch->n_cols == 4);
    if (batch != NULL && batch->n_cols == 4) {
        check_int(4, ((const int64_t *)batch->cols[0]->values)[0]); /* affected */
        check_int(1, ((const int64_t *)batch->cols[1]->values)[0]); /* updated */
        check_int(1, ((const int64_t *)batch->cols[2]->values)[0]); /* deleted */
        check_int(2, ((const int64_t *)batch->cols[3]->values)[0]); /* inserted */
    }
    sql_result_free(res);
    check_int(0 + 1 + 20 + 40 + 50, scalar("SELECT sum(v) FROM {t}"));
    check_int(1, version_of_table());
}

/* Removes from disk the data file version `version` added (the first add of its commit). */
static void remove_added_file(int64_t version)
{
    char path[2048], line[8192];
    FILE *f;
    const char *at = NULL, *end;
    snprintf(path, sizeof(path), "%s/t/_delta_log/%020lld.json", test_tmpdir(),
             (long long)version);
    f = fopen(path, "r");
    check(f != NULL);
    while (f != NULL && at == NULL && fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "{\"add\":{\"path\":\"", 16) == 0)
            at = line + 16;
    if (f != NULL)
        fclose(f);
    check(at != NULL);
    if (at == NULL)
        return;
    end = strchr(at, '"');
    snprintf(path, sizeof(path), "%s/t/%.*s", test_tmpdir(), (int)(end - at), at);
    check_int(0, remove(path));
}

/*
 * A DELETE removes a file whose statistics prove every row matches (here
 * min = max = the literal, no nulls) without reading it: the file is gone
 * from disk and the DELETE still succeeds. A file that holds a null, a
 * double column, or a string of 32 bytes or more (whose bounds writers
 * truncate) proves nothing and is read, so the same DELETE fails there.
 */
void test_sql_dml__delete_drops_fully_matching_file_unread(void)
{
    check_ok(run("CREATE TABLE {t} (d STRING, n BIGINT, x DOUBLE) USING DELTA"), &err);
    check_ok(run("INSERT INTO {t} VALUES ('NJ', 1, 1.0), ('NJ', 2, 1.0)"), &err);
    check_ok(run("INSERT INTO {t} VALUES ('NY', 3, 2.0), ('NJ', 4, 1.0)"), &err);
    remove_added_file(1);
    check_ok(run("DELETE FROM {t} WHERE d = 'NJ' AND n < 3"), &err);
    check_int(2, scalar("SELECT count(*) FROM {t}"));
    check_ok(run("DELETE FROM {t} WHERE d = 'NJ'"), &err);
    check_int(3, scalar("SELECT sum(n) FROM {t}"));

    check_ok(run("INSERT INTO {t} VALUES ('NJ', 5, 1.0), (NULL, 6, 1.0)"), &err);
    remove_added_file(5);
    check_fails(SILT_NOTFOUND, run("DELETE FROM {t} WHERE d = 'NJ'"));
    check_fails(SILT_NOTFOUND, run("DELETE FROM {t} WHERE x = 1.0"));
    check_ok(run("DELETE FROM {t} WHERE n >= 5"), &err); /* n has no null: proved */
    check_int(3, scalar("SELECT sum(n) FROM {t}"));
    check_int(6, version_of_table());
}

void test_sql_dml__delete_long_string_reads_file(void)
{
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT "
                 "'abcdefghijklmnopqrstuvwxyz0123456789' AS d, id FROM range(3)"), &err);
    remove_added_file(0);
    check_fails(SILT_NOTFOUND,
                run("DELETE FROM {t} WHERE d = 'abcdefghijklmnopqrstuvwxyz0123456789'"));
    check_int(0, version_of_table());
}

/* The LONG values of column 0 of a query, in the order the result gives them; their count. */
static size_t column_values(sql_session *sess, const char *tmpl, int64_t *out, size_t cap)
{
    sql_result *res = NULL;
    col_batch *batch = NULL;
    size_t n = 0;
    int64_t row;
    check_ok(sql_execute(sess, fill(tmpl), &res, &err), &err);
    while (res != NULL && sql_result_next(res, &batch, &err) == SILT_OK && batch != NULL)
        for (row = 0; row < batch->n_rows && n < cap; row++)
            out[n++] = ((const int64_t *)batch->cols[0]->values)[row];
    sql_result_free(res);
    return n;
}

/*
 * UPDATE rewrites a file with its rows where they were, as Spark does (the
 * updated rows do not move to the end): a one-file table read back in file
 * order shows every row at its position, every third one changed.
 */
void test_sql_dml__update_keeps_row_order(void)
{
    static int64_t ids[3000];
    size_t n, k;
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT id FROM range(3000)"), &err);
    check_int(1000, scalar("UPDATE {t} SET id = -id WHERE id % 3 = 1"));
    n = column_values(s, "SELECT id FROM {t}", ids, 3000);
    check_int(3000, (int64_t)n);
    for (k = 0; k < n; k++)
        check_int(k % 3 == 1 ? -(int64_t)k : (int64_t)k, ids[k]);
}

/*
 * On two threads: each file is rewritten by one worker, in its order, and
 * the counts are those of the serial run. Four files of 500 rows (ids
 * f * 1000 + k); the UPDATE touches three of them, the DELETE two (one
 * whole), and every original file's rows stay in order within what is read.
 */
void test_sql_dml__delete_update_on_two_threads(void)
{
    static int64_t ids[2000];
    sql_session_options so;
    sql_session *par = NULL;
    tpool *pool = NULL;
    int64_t last[4] = {-1, -1, -1, -1};
    size_t n, k;
    check_ok(tpool_new(&pool, 2, &err), &err);
    memset(&so, 0, sizeof(so));
    so.version = 1;
    so.pool = pool;
    check_ok(sql_session_new(&par, &so, &err), &err);
    check_ok(run("CREATE TABLE {t} (id BIGINT) USING DELTA"), &err);
    for (k = 0; k < 4; k++) {
        char text[256];
        snprintf(text, sizeof(text), "INSERT INTO {t} SELECT %zu * 1000 + id FROM range(500)", k);
        check_ok(run(text), &err);
    }
    check_ok(sql_execute(par, fill("UPDATE {t} SET id = id + 500 WHERE id < 3000 AND id % 2 = 0"),
                         NULL, &err), &err);
    check_ok(sql_execute(par, fill("DELETE FROM {t} WHERE id >= 3000 OR id % 5 = 0"), NULL, &err),
             &err);
    n = column_values(s, "SELECT id FROM {t}", ids, 2000); /* serial: files in turn */
    check_int(1200, (int64_t)n); /* 1500 left after the DELETE of file 3, 300 of them % 5 = 0 */
    for (k = 0; k < n; k++) {
        int64_t f = ids[k] / 1000, pos = ids[k] % 1000 % 500;
        check(f >= 0 && f < 3);
        check(pos > last[f]);
        last[f] = pos;
    }
    check_int(1200, scalar("SELECT count(*) FROM {t}"));
    /* a worker's error fails the statement and commits nothing */
    check_fails(SILT_RUNTIME, sql_execute(par, fill("UPDATE {t} SET id = id div (id - id)"), NULL,
                                          &err));
    check_contains(err.message, "DIVIDE_BY_ZERO");
    check_int(6, version_of_table());
    sql_session_free(par);
    tpool_free(pool);
}

/*
 * The scan's row identity: with row_index_column every row carries its position in its data
 * file (each file counts from 0), after the table's columns.
 */
void test_sql_dml__scan_row_index(void)
{
    char path[1024];
    io_store *store = NULL;
    delta_snapshot *snap = NULL;
    delta_scan *scan = NULL;
    delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
    arena *a = arena_new(NULL, "test");
    col_batch *b = NULL;
    int64_t seen = 0, next[2] = {0, 0};
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT id FROM range(5000)"), &err);
    check_ok(run("INSERT INTO {t} SELECT id + 10000 FROM range(3000)"), &err);
    snprintf(path, sizeof(path), "%s/t", test_tmpdir());
    check_ok(io_store_open(&store, path, 0, &err), &err);
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    so.row_index_column = "_pos";
    check_ok(delta_scan_open(&scan, store, snap, &so, &err), &err);
    check_int(2, (int64_t)delta_scan_schema(scan)->n_fields);
    check_str("_pos", delta_scan_schema(scan)->fields[1].name);
    while (delta_scan_next(scan, a, &b, &err) == SILT_OK && b != NULL) {
        int64_t row;
        for (row = 0; row < b->n_rows; row++) {
            int64_t id = ((const int64_t *)b->cols[0]->values)[row];
            int64_t pos = ((const int64_t *)b->cols[1]->values)[row];
            int f = id >= 10000;
            check_int(next[f], pos);
            check_int(id - (f ? 10000 : 0), pos);
            next[f]++;
            seen++;
        }
    }
    check_int(8000, seen);
    delta_scan_free(scan);
    delta_snapshot_free(snap);
    io_store_free(store);
    arena_free(a);
}
