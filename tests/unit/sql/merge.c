/*
 * MERGE through SQL (sql/exec_merge*.c on the engine, docs/dml.md): the
 * clause kinds, the multiple-match error, non-equi ON conditions, schema
 * evolution, change data files, row order, two threads and a memory limit
 * that makes the source and the join spill. These were the C-level cases
 * of delta/dml_merge.c before MERGE moved onto the engine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/snapshot.h"
#include "sql/session.h"
#include "test.h"

static sql_session *s;
static silt_error err;
static char root[1024];
static char table[1100];
static char sql[8192];

void test_sql_merge__initialize(void)
{
    err_clear(&err);
    check_ok(sql_session_new(&s, NULL, &err), &err);
    snprintf(root, sizeof(root), "%s/t", test_tmpdir());
    snprintf(table, sizeof(table), "delta.`%s`", root);
}

void test_sql_merge__cleanup(void) { sql_session_free(s); }

/* tmpl with "{t}" replaced by the test table's name, "{cdc}" by its change data files. */
static const char *fill(const char *tmpl)
{
    static char cdc[1200];
    size_t n = 0, tlen = strlen(table), clen;
    snprintf(cdc, sizeof(cdc), "parquet.`%s/_change_data`", root);
    clen = strlen(cdc);
    while (*tmpl != '\0' && n + tlen + clen + 1 < sizeof(sql)) {
        if (strncmp(tmpl, "{t}", 3) == 0) {
            memcpy(sql + n, table, tlen);
            n += tlen;
            tmpl += 3;
        } else if (strncmp(tmpl, "{cdc}", 5) == 0) { /* the change data files */
            memcpy(sql + n, cdc, clen);
            n += clen;
            tmpl += 5;
        } else {
            sql[n++] = *tmpl++;
        }
    }
    sql[n] = '\0';
    return sql;
}

static silt_status run(const char *tmpl) { return sql_execute(s, fill(tmpl), NULL, &err); }

/* One LONG cell of the last statement of tmpl (-1 when there is none). */
static int64_t scalar_in(sql_session *sess, const char *tmpl)
{
    sql_result *res = NULL;
    col_batch *batch = NULL;
    int64_t v = -1;
    check_ok(sql_execute(sess, fill(tmpl), &res, &err), &err);
    if (res != NULL && sql_result_next(res, &batch, &err) == SILT_OK && batch != NULL &&
        batch->n_rows >= 1 && !col_vec_is_null(batch->cols[0], 0))
        v = vec_get_int(batch->cols[0], 0);
    sql_result_free(res);
    return v;
}

static int64_t scalar(const char *tmpl) { return scalar_in(s, tmpl); }

/* The four counts a MERGE returns: affected, updated, deleted, inserted. */
static void merge_counts(sql_session *sess, const char *tmpl, int64_t out[4])
{
    sql_result *res = NULL;
    col_batch *batch = NULL;
    size_t k;
    memset(out, 0xff, 4 * sizeof(int64_t));
    check_ok(sql_execute(sess, fill(tmpl), &res, &err), &err);
    if (res != NULL && sql_result_next(res, &batch, &err) == SILT_OK && batch != NULL &&
        batch->n_cols == 4 && batch->n_rows == 1)
        for (k = 0; k < 4; k++)
            out[k] = vec_get_int(batch->cols[k], 0);
    sql_result_free(res);
}

static void check_counts(const int64_t got[4], int64_t affected, int64_t updated,
                         int64_t deleted, int64_t inserted)
{
    check_int(affected, got[0]);
    check_int(updated, got[1]);
    check_int(deleted, got[2]);
    check_int(inserted, got[3]);
}

/* The text of commit `version` of the table (static buffer). */
static const char *commit_text(int64_t version)
{
    static char text[65536];
    char path[1200];
    FILE *f;
    size_t n;
    snprintf(path, sizeof(path), "%s/_delta_log/%020lld.json", root, (long long)version);
    text[0] = '\0';
    if ((f = fopen(path, "rb")) == NULL)
        return text;
    n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static int64_t version_of_table(void)
{
    io_store *store = NULL;
    delta_snapshot *snap = NULL;
    silt_error e = SILT_ERROR_INIT;
    int64_t v = -1;
    if (io_store_open(&store, root, 0, &e) == SILT_OK &&
        delta_snapshot_load(&snap, store, -1, &e) == SILT_OK)
        v = snap->version;
    delta_snapshot_free(snap);
    io_store_free(store);
    return v;
}

/* How many times needle occurs in hay. */
static int occurrences(const char *hay, const char *needle)
{
    int n = 0;
    for (hay = strstr(hay, needle); hay != NULL; hay = strstr(hay + 1, needle))
        n++;
    return n;
}

void test_sql_merge__upsert_counts_rows_and_history(void)
{
    int64_t c[4];
    const char *log;
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT id, concat('n', id) AS name FROM "
                 "range(5)"), &err);
    merge_counts(s, "MERGE INTO {t} t USING (SELECT id, concat('s', id) AS name FROM range(3, 8)) "
                    "s ON t.id = s.id WHEN MATCHED THEN UPDATE SET name = s.name "
                    "WHEN NOT MATCHED THEN INSERT *", c);
    check_counts(c, 5, 2, 0, 3);
    check_int(8, scalar("SELECT count(*) FROM {t}"));
    check_int(2, scalar("SELECT count(*) FROM {t} WHERE name LIKE 's%' AND id < 5"));
    check_int(3, scalar("SELECT count(*) FROM {t} WHERE id >= 5 AND name = concat('s', id)"));
    log = commit_text(1);
    check_contains(log, "\"operation\":\"MERGE\"");
    check_contains(log, "\"numSourceRows\":\"5\"");
    check_contains(log, "\"numTargetRowsMatchedUpdated\":\"2\"");
    check_contains(log, "\"numTargetRowsInserted\":\"3\"");
    check_contains(log, "\"numTargetRowsCopied\":\"3\"");
    check_contains(log, "\"numOutputRows\":\"8\"");
    check_contains(log, "\"numTargetFilesRemoved\":\"1\"");
    check_contains(log, "\"matchedPredicates\":\"[{\\\"actionType\\\":\\\"update\\\"}]\"");
}

void test_sql_merge__deletes_matched_and_not_matched_by_source(void)
{
    int64_t c[4];
    check_ok(run("CREATE TABLE {t} USING DELTA PARTITIONED BY (p) AS SELECT id, "
                 "CASE WHEN id < 5 THEN 'a' ELSE 'b' END AS p FROM range(10)"), &err);
    merge_counts(s, "MERGE INTO {t} t USING (SELECT id FROM range(2)) s ON t.id = s.id "
                    "WHEN MATCHED THEN DELETE WHEN NOT MATCHED BY SOURCE AND p = 'b' THEN DELETE",
                 c);
    check_counts(c, 7, 0, 7, 0);
    check_int(3, scalar("SELECT count(*) FROM {t}"));
    check_int(2, scalar("SELECT min(id) FROM {t}"));
    check_contains(commit_text(1), "\"numTargetRowsNotMatchedBySourceDeleted\":\"5\"");
    check_contains(commit_text(1), "\"numTargetRowsMatchedDeleted\":\"2\"");
}

void test_sql_merge__multiple_source_rows_refused_unless_only_deleting(void)
{
    int64_t c[4];
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT id FROM range(4)"), &err);
    check_fails(SILT_RUNTIME, run("MERGE INTO {t} t USING (SELECT id % 2 AS id FROM range(4)) s "
                                  "ON t.id = s.id WHEN MATCHED THEN UPDATE SET id = s.id + 10"));
    check_contains(err.message, "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE");
    check_int(0, version_of_table());
    /* several matches are fine when all a match can do is delete, as Delta */
    merge_counts(s, "MERGE INTO {t} t USING (SELECT id % 2 AS id FROM range(4)) s "
                    "ON t.id = s.id WHEN MATCHED THEN DELETE", c);
    check_counts(c, 2, 0, 2, 0);
    check_int(2, scalar("SELECT count(*) FROM {t}"));
    check_int(2, scalar("SELECT min(id) FROM {t}"));
}

void test_sql_merge__no_change_touches_no_file(void)
{
    int64_t c[4];
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT id FROM range(10)"), &err);
    merge_counts(s, "MERGE INTO {t} t USING (SELECT id FROM range(3)) s ON t.id = s.id "
                    "WHEN MATCHED AND s.id > 100 THEN DELETE", c);
    check_counts(c, 0, 0, 0, 0);
    check_contains(commit_text(1), "\"numTargetFilesRemoved\":\"0\"");
    check_contains(commit_text(1), "\"numTargetFilesAdded\":\"0\"");
}

void test_sql_merge__bad_keys_and_clauses_refused(void)
{
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT id, 'x' AS s FROM range(3)"), &err);
    check_fails(SILT_BIND, run("MERGE INTO {t} t USING (SELECT array(1) AS a) s ON t.id = s.a "
                               "WHEN MATCHED THEN DELETE"));
    check_fails(SILT_BIND, run("MERGE INTO {t} t USING (SELECT 1 AS id) s ON t.id = s.id "
                               "WHEN MATCHED THEN UPDATE SET nope = 1"));
    check_contains(err.message, "DELTA_MERGE_UNRESOLVED_EXPRESSION");
    check_fails(SILT_BIND, run("MERGE INTO {t} t USING (SELECT 1 AS id) s ON t.id = s.id "
                               "WHEN NOT MATCHED THEN INSERT *"));
    check_contains(err.message, "DELTA_MERGE_UNRESOLVED_EXPRESSION");
    check_int(0, version_of_table());
}

/* ON without a key equality: the join's condition over every pair (a nested loop). */
void test_sql_merge__non_equi_on_condition(void)
{
    int64_t c[4];
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT id, 0 AS v FROM range(10)"), &err);
    merge_counts(s, "MERGE INTO {t} t USING (SELECT * FROM VALUES (2L), (6L) AS x(id)) s "
                    "ON t.id BETWEEN s.id AND s.id + 1 WHEN MATCHED THEN UPDATE SET v = s.id", c);
    check_counts(c, 4, 4, 0, 0);
    check_int(16, scalar("SELECT sum(v) FROM {t}"));
    /* overlapping ranges: target row 3 matched by source rows 2 and 3 */
    check_fails(SILT_RUNTIME, run("MERGE INTO {t} t USING (SELECT * FROM VALUES (2L), (3L) AS "
                                  "x(id)) s ON t.id BETWEEN s.id AND s.id + 1 WHEN MATCHED THEN "
                                  "UPDATE SET v = 0"));
    check_contains(err.message, "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE");
}

/* Many candidate pairs: 300 x 300 rows through a keyless join. */
void test_sql_merge__non_equi_many_pairs(void)
{
    int64_t c[4];
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT id, 0L AS v FROM range(300)"), &err);
    merge_counts(s, "MERGE INTO {t} t USING (SELECT id FROM range(300)) s ON t.id + s.id = 299 "
                    "WHEN MATCHED THEN UPDATE SET v = s.id", c);
    check_counts(c, 300, 300, 0, 0);
    check_int(300, scalar("SELECT count(*) FROM {t} WHERE id + v = 299"));
}

/* Keys and a residual condition: ON t.id = s.id AND t.v < s.v. */
void test_sql_merge__keys_and_residual_condition(void)
{
    int64_t c[4];
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT id, id AS v FROM range(6)"), &err);
    merge_counts(s, "MERGE INTO {t} t USING (SELECT id, 3L AS v FROM range(6)) s "
                    "ON t.id = s.id AND t.v < s.v WHEN MATCHED THEN UPDATE SET v = 100 "
                    "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id + 10, -1)", c);
    check_counts(c, 6, 3, 0, 3);
    check_int(300 + 3 + 4 + 5 - 3, scalar("SELECT sum(v) FROM {t}"));
}

void test_sql_merge__string_keys(void)
{
    int64_t c[4];
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT concat('k', id % 5) AS name, "
                 "CAST(id AS STRING) AS p FROM range(20)"), &err);
    merge_counts(s, "MERGE INTO {t} t USING (SELECT 'k1' AS name, '6' AS p UNION ALL "
                    "SELECT 'k2', '7' UNION ALL SELECT 'k9', '1') s "
                    "ON t.name = s.name AND t.p = s.p WHEN MATCHED THEN DELETE", c);
    check_counts(c, 2, 0, 2, 0);
    check_int(18, scalar("SELECT count(*) FROM {t}"));
}

/* UPDATE SET * and INSERT * with schema evolution: the new column is null in old rows. */
void test_sql_merge__evolved_schema(void)
{
    int64_t c[4];
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT id, 'old' AS name FROM range(4)"), &err);
    check_ok(run("SET spark.databricks.delta.schema.autoMerge.enabled = true"), &err);
    merge_counts(s, "MERGE INTO {t} t USING (SELECT id, 'new' AS name, id * 10 AS extra FROM "
                    "range(2, 6)) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * "
                    "WHEN NOT MATCHED THEN INSERT *", c);
    check_counts(c, 4, 2, 0, 2);
    check_int(2, scalar("SELECT count(*) FROM {t} WHERE extra IS NULL AND name = 'old'"));
    check_int(20 + 30 + 40 + 50, scalar("SELECT sum(extra) FROM {t}"));
    check_contains(commit_text(1), "\"metaData\"");
    /* a MERGE that changes no row still commits the new schema */
    merge_counts(s, "MERGE INTO {t} t USING (SELECT 99 AS id, 1 AS more) s ON t.id = s.id "
                    "WHEN MATCHED THEN UPDATE SET *", c);
    check_counts(c, 0, 0, 0, 0);
    check_int(0, scalar("SELECT count(more) FROM {t}"));
}

/*
 * With the change data feed on: deletes and pre/post images, inserts as change rows once a
 * target row changed; an insert-only MERGE writes no cdc file (its adds are its changes).
 */
void test_sql_merge__change_data_files(void)
{
    int64_t c[4];
    check_ok(run("CREATE TABLE {t} USING DELTA TBLPROPERTIES (delta.enableChangeDataFeed = true) "
                 "AS SELECT id, 0 AS v FROM range(6)"), &err);
    merge_counts(s, "MERGE INTO {t} t USING (SELECT id FROM range(4, 8)) s ON t.id = s.id "
                    "WHEN MATCHED AND s.id = 4 THEN DELETE WHEN MATCHED THEN UPDATE SET v = 1 "
                    "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 2)", c);
    check_counts(c, 4, 1, 1, 2);
    check_int(1, scalar("SELECT count(*) FROM {cdc} WHERE _change_type = 'delete' AND id = 4"));
    check_int(1, scalar("SELECT count(*) FROM {cdc} WHERE _change_type = 'update_preimage' AND "
                        "v = 0 AND id = 5"));
    check_int(1, scalar("SELECT count(*) FROM {cdc} WHERE _change_type = 'update_postimage' AND "
                        "v = 1 AND id = 5"));
    check_int(2, scalar("SELECT count(*) FROM {cdc} WHERE _change_type = 'insert' AND v = 2"));
    check(occurrences(commit_text(1), "\"cdc\"") >= 1);
    merge_counts(s, "MERGE INTO {t} t USING (SELECT 100 AS id) s ON t.id = s.id "
                    "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 3)", c);
    check_counts(c, 1, 0, 0, 1);
    check_int(0, occurrences(commit_text(2), "\"cdc\""));
    check_int(5, scalar("SELECT count(*) FROM {cdc}")); /* nothing new */
}

/* The LONG values of column 0 of a query in result order; their count. */
static size_t column_values(sql_session *sess, const char *tmpl, int64_t *out, size_t cap)
{
    sql_result *res = NULL;
    col_batch *batch = NULL;
    size_t n = 0;
    int64_t row;
    check_ok(sql_execute(sess, fill(tmpl), &res, &err), &err);
    while (res != NULL && sql_result_next(res, &batch, &err) == SILT_OK && batch != NULL)
        for (row = 0; row < batch->n_rows && n < cap; row++)
            out[n++] = vec_get_int(batch->cols[0], row);
    sql_result_free(res);
    return n;
}

/*
 * A file keeps its row order through the rewrite (the ordered LEFT join), with updates,
 * deletes and rows no source row matches interleaved, unique and duplicate-free keys alike,
 * on one thread and two; over several scan batches (30000 rows in one file).
 */
static void check_order_kept(sql_session *sess, const char *on_extra)
{
    static int64_t ids[30000];
    char text[1024];
    size_t n, k;
    int64_t prev = -1, c[4];
    check_ok(run("CREATE OR REPLACE TABLE {t} USING DELTA AS SELECT id, 0L AS v FROM "
                 "range(30000)"), &err);
    snprintf(text, sizeof(text),
             "MERGE INTO {t} t USING (SELECT id FROM range(30000) WHERE id %% 3 <> 0) s "
             "ON t.id = s.id%s WHEN MATCHED AND s.id %% 3 = 1 THEN UPDATE SET v = 1 "
             "WHEN MATCHED THEN DELETE", on_extra);
    merge_counts(sess, text, c);
    check_counts(c, 20000, 10000, 10000, 0);
    n = column_values(s, "SELECT id FROM {t}", ids, 30000);
    check_int(20000, (int64_t)n);
    for (k = 0; k < n; k++) {
        check(ids[k] > prev && ids[k] % 3 != 2);
        prev = ids[k];
    }
}

void test_sql_merge__keeps_row_order(void)
{
    sql_session_options so;
    sql_session *par = NULL;
    tpool *pool = NULL;
    check_order_kept(s, "");
    check_order_kept(s, " AND t.v = 0"); /* a join condition: the general probe path */
    check_ok(tpool_new(&pool, 2, &err), &err);
    memset(&so, 0, sizeof(so));
    so.version = 1;
    so.pool = pool;
    check_ok(sql_session_new(&par, &so, &err), &err);
    check_order_kept(par, "");
    check_order_kept(par, " AND t.v = 0");
    sql_session_free(par);
    tpool_free(pool);
}

/*
 * On two threads: four files, each read and rewritten by one worker; counts as on one thread;
 * a worker's error fails the statement and commits nothing.
 */
void test_sql_merge__on_two_threads(void)
{
    sql_session_options so;
    sql_session *par = NULL;
    tpool *pool = NULL;
    int64_t c[4];
    size_t k;
    check_ok(tpool_new(&pool, 2, &err), &err);
    memset(&so, 0, sizeof(so));
    so.version = 1;
    so.pool = pool;
    check_ok(sql_session_new(&par, &so, &err), &err);
    check_ok(run("CREATE TABLE {t} (id BIGINT, v BIGINT) USING DELTA"), &err);
    for (k = 0; k < 4; k++) {
        char text[256];
        snprintf(text, sizeof(text), "INSERT INTO {t} SELECT %zu * 1000 + id, 0 FROM range(500)",
                 k);
        check_ok(run(text), &err);
    }
    merge_counts(par, "MERGE INTO {t} t USING (SELECT id * 2 AS id FROM range(2000)) s "
                      "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 1 "
                      "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 2) "
                      "WHEN NOT MATCHED BY SOURCE THEN DELETE", c);
    check_counts(c, 1000 + 1000 + 1000, 1000, 1000, 1000);
    check_int(2000, scalar("SELECT count(*) FROM {t}"));
    check_int(1000 + 2000, scalar("SELECT sum(v) FROM {t}"));
    check_fails(SILT_RUNTIME, sql_execute(par, fill("MERGE INTO {t} t USING (SELECT id FROM "
                                                    "range(4000)) s ON t.id = s.id WHEN MATCHED "
                                                    "THEN UPDATE SET v = s.id div (s.id - s.id)"),
                                          NULL, &err));
    check_contains(err.message, "DIVIDE_BY_ZERO");
    check_int(5, version_of_table());
    sql_session_free(par);
    tpool_free(pool);
}

/*
 * Under a small memory_limit the source goes to a spill file and the join's build side to
 * partition files (a grace join, run on the caller): the result is the same.
 */
void test_sql_merge__spills_under_memory_limit(void)
{
    sql_session_options so;
    sql_session *par = NULL;
    tpool *pool = NULL;
    int64_t c[4];
    char text[2048];
    check_ok(tpool_new(&pool, 2, &err), &err);
    memset(&so, 0, sizeof(so));
    so.version = 1;
    so.pool = pool;
    check_ok(sql_session_new(&par, &so, &err), &err);
    check_ok(run("CREATE TABLE {t} USING DELTA AS SELECT id, 0L AS v FROM range(200000)"), &err);
    snprintf(text, sizeof(text), "SET memory_limit = '2MB'; SET temp_directory = '%s'",
             test_tmpdir());
    check_ok(sql_execute(par, text, NULL, &err), &err);
    merge_counts(par, "MERGE INTO {t} t USING (SELECT id * 2 AS id, id AS w FROM range(150000)) s "
                      "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.w "
                      "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, -1)", c);
    check_counts(c, 150000, 100000, 0, 50000);
    check_int(250000, scalar("SELECT count(*) FROM {t}"));
    check_int(100000, scalar("SELECT count(*) FROM {t} WHERE v * 2 = id"));
    check_int(50000, scalar("SELECT count(*) FROM {t} WHERE v = -1 AND id >= 200000"));
    sql_session_free(par);
    tpool_free(pool);
}
