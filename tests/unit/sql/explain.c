/*
 * Tests of EXPLAIN (sql/explain.c) on a pool of two workers: parallel
 * operators open up into what every worker runs (partial aggregation,
 * top-N, filters, join probes, the shared scan), the scans' notes (pushed
 * filters, skipped files and partitions) follow their scan, a join's build
 * side is marked as built once, and the plans without a pool stay serial.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sql/session.h"
#include "test.h"

static sql_session *s;
static tpool *pool;
static silt_error err;
static char plan_text[16384];

void test_sql_explain__initialize(void)
{
    sql_session_options opts = SQL_SESSION_OPTIONS_INIT;
    char wh[512];
    err_clear(&err);
    s = NULL;
    pool = NULL;
    snprintf(wh, sizeof(wh), "%s/wh", test_tmpdir());
    check(mkdir(wh, 0700) == 0);
    check_ok(tpool_new(&pool, 2, &err), &err);
    opts.warehouse = wh;
    opts.pool = pool;
    check_ok(sql_session_new(&s, &opts, &err), &err);
    /* a partitioned fact table of several files and a small dimension */
    check_ok(sql_execute(s, "CREATE TABLE t USING DELTA PARTITIONED BY (p) AS SELECT id, id % 7 "
                         "AS k, id % 3 AS p, CAST(id AS DOUBLE) * 1.5 AS v FROM range(3000); "
                         "INSERT INTO t SELECT id, id % 5, id % 3, 2.0 FROM range(100); "
                         "CREATE TABLE d USING DELTA AS SELECT id AS k, concat('n', id) AS name "
                         "FROM range(7)", NULL, &err), &err);
}

void test_sql_explain__cleanup(void)
{
    sql_session_free(s);
    tpool_free(pool);
}

static const char *explain(const char *sql)
{
    sql_result *res = NULL;
    col_batch *b;
    char text[1024];
    int32_t len;
    const char *p;
    snprintf(text, sizeof(text), "EXPLAIN %s", sql);
    check_ok(sql_execute(s, text, &res, &err), &err);
    check_ok(sql_result_next(res, &b, &err), &err);
    check(b != NULL && b->n_rows == 1);
    p = col_vec_str(b->cols[0], 0, &len);
    snprintf(plan_text, sizeof(plan_text), "%.*s", (int)len, p);
    sql_result_free(res);
    return plan_text;
}

/* needle occurs in the plan after the text of after (line order). */
static void check_after(const char *plan, const char *after, const char *needle)
{
    const char *a = strstr(plan, after);
    check_contains(plan, after);
    check_contains(plan, needle);
    if (a != NULL)
        check_contains(a, needle);
}

void test_sql_explain__parallel_aggregate_shows_its_workers(void)
{
    const char *plan = explain("SELECT k, count(*), sum(v) FROM t WHERE id > 100 GROUP BY k");
    check_contains(plan, "parallel_aggregate [k, count(1), sum(v)] on ");
    check_after(plan, "parallel_aggregate", "partial_aggregate (every worker) keys [k] "
                "aggregates [count(1), sum(v)]");
    check_after(plan, "partial_aggregate", "filter (every worker) (id > 100)");
    check_after(plan, "filter (every worker)", "scan (every worker)");
    check_after(plan, "scan (every worker)", "DeltaScan PushedFilters: [id > 100]");
    check_after(plan, "scan (every worker)", "DeltaScan partitions: 3 of 3 read, 0 skipped");
    /* every note has its operator: nothing is left for the notes section */
    check(strstr(plan, "== Notes ==") == NULL);
}

void test_sql_explain__pipeline_aggregate_over_a_join(void)
{
    const char *plan = explain("SELECT t.k, name, count(*) FROM t JOIN d ON t.k = d.k WHERE "
                               "v > 10 GROUP BY t.k, name");
    check_contains(plan, "parallel_pipeline_aggregate [k, name, count(1)] on ");
    check_after(plan, "parallel_pipeline_aggregate", "partial_aggregate (every worker) keys "
                "[k, name] aggregates [count(1)]");
    check_after(plan, "partial_aggregate", "hash_join (every worker)");
    check_after(plan, "hash_join (every worker)", "HashJoin inner on 1 key");
    check_after(plan, "HashJoin inner", "scan (every worker) [k, v], morsels shared by the "
                "workers");
    check_after(plan, "morsels shared", "scan (build side, built once and shared) [k, name]");
    check_after(plan, "build side", "DeltaScan delta.`");
}

void test_sql_explain__parallel_top_n(void)
{
    const char *plan = explain("SELECT id, v FROM t WHERE p = 2 ORDER BY v DESC LIMIT 5");
    check_contains(plan, "sort [id, v]");
    check_after(plan, "sort", "parallel_pipeline [id, v] on ");
    check_after(plan, "parallel_pipeline", "top_n (every worker) keeps its first 5 rows");
    check_after(plan, "top_n", "filter (every worker) [id, p, v] (p = 2)");
    check_after(plan, "filter (every worker)", "DeltaScan files: 2 of 6 read, 4 skipped by "
                "partition values and stats");
    check_after(plan, "DeltaScan files", "DeltaScan partitions: 1 of 3 read, 2 skipped");
}

void test_sql_explain__correlated_subqueries_name_their_joins(void)
{
    const char *plan = explain("SELECT d.k, (SELECT count(*) FROM t WHERE t.k = d.k) FROM d "
                               "WHERE d.k > 2 OR EXISTS (SELECT 1 FROM t WHERE t.id = d.k)");
    check_after(plan, "hash_join", "LeftOuter join for a correlated scalar subquery on 1 key");
    check_contains(plan, "LeftOuter join for a correlated EXISTS on 1 key");
    check_contains(plan, "filter [");
    check_contains(plan, "exists()");
}

void test_sql_explain__serial_plan_without_a_pool(void)
{
    sql_session *serial = NULL;
    sql_session_options opts = SQL_SESSION_OPTIONS_INIT;
    sql_result *res = NULL;
    col_batch *b;
    char wh[512];
    int32_t len;
    const char *p;
    snprintf(wh, sizeof(wh), "%s/wh", test_tmpdir());
    opts.warehouse = wh;
    check_ok(sql_session_new(&serial, &opts, &err), &err);
    check_ok(sql_execute(serial, "EXPLAIN SELECT id FROM t WHERE p = 1 AND id < 10", &res, &err),
             &err);
    check_ok(sql_result_next(res, &b, &err), &err);
    p = col_vec_str(b->cols[0], 0, &len);
    snprintf(plan_text, sizeof(plan_text), "%.*s", (int)len, p);
    check(strstr(plan_text, "every worker") == NULL);
    check_after(plan_text, "filter [", "scan [");
    check_after(plan_text, "scan [", "DeltaScan partitions: 1 of 3 read, 2 skipped");
    sql_result_free(res);
    sql_session_free(serial);
}

/* WHERE terms about one side of a join prune its files (not the null-supplying side's). */
void test_sql_explain__join_sides_prune_their_files(void)
{
    const char *plan = explain("SELECT name, count(*) FROM t JOIN d ON t.k = d.k WHERE t.p = 1 "
                               "GROUP BY name");
    check_contains(plan, "DeltaScan PushedFilters: [p = 1]");
    check_contains(plan, "DeltaScan partitions: 1 of 3 read, 2 skipped");
    plan = explain("SELECT count(*) FROM d LEFT JOIN t ON t.k = d.k WHERE t.p IS NULL");
    check(strstr(plan, "PushedFilters") == NULL);
    plan = explain("SELECT count(*) FROM t, d WHERE t.k = d.k AND t.p = 2");
    check_contains(plan, "DeltaScan partitions: 1 of 3 read, 2 skipped");
}

void test_sql_explain__window_input_runs_on_every_worker(void)
{
    const char *plan = explain("SELECT k, sum(v) OVER (PARTITION BY k ORDER BY id) FROM t "
                               "WHERE id > 10");
    check_after(plan, "window [", "parallel_pipeline [");
    check_after(plan, "parallel_pipeline", "collect (every worker) keeps the window's input rows");
    check_after(plan, "collect (every worker)", "filter (every worker) [id, k, v] (id > 10)");
    check_after(plan, "filter (every worker)", "scan (every worker)");
}

void test_sql_explain__window_over_a_full_join_stays_serial(void)
{
    /* a FULL join is not a chain the workers can copy: the window reads it on the caller */
    const char *plan = explain("SELECT t.k, row_number() OVER (PARTITION BY name ORDER BY id) "
                               "FROM t FULL JOIN d ON t.k = d.k");
    check_contains(plan, "window [");
    check(strstr(plan, "collect (every worker)") == NULL);
    check(strstr(plan, "parallel_pipeline") == NULL);
}

void test_sql_explain__window_rank_limit_keeps_its_worker_limit(void)
{
    /* the window input pipeline becomes one that ends in the limited window */
    const char *plan = explain("SELECT * FROM (SELECT k, id, row_number() OVER (PARTITION BY k "
                               "ORDER BY id) AS rn FROM t) WHERE rn <= 2");
    check_contains(plan, "window_group_limit (every worker)");
    check(strstr(plan, "collect (every worker)") == NULL);
}

void test_sql_explain__analyze_runs_and_counts_rows_per_operator(void)
{
    const char *plan = explain("ANALYZE SELECT k, count(*) FROM t WHERE id > 100 GROUP BY k");
    check_contains(plan, "parallel_aggregate [k, count(1)] on ");
    check_after(plan, "parallel_aggregate", "(actual rows 7, ");
    check_contains(plan, "== Run ==\n7 rows in ");
    /* a serial chain: every operator has its own count */
    plan = explain("ANALYZE SELECT id FROM t WHERE id < 10 AND p = 1 ORDER BY id DESC LIMIT 2");
    check_contains(plan, "sort [id] (actual rows 2, ");
    check_contains(plan, "== Run ==\n2 rows in ");
}

void test_sql_explain__analyze_counts_the_subqueries_it_ran(void)
{
    const char *plan = explain("ANALYZE SELECT count(*) FROM d WHERE k > (SELECT max(k) - 3 "
                               "FROM d)");
    check_contains(plan, "== Subquery #1: scalar subquery (line 1, column ");
    check_after(plan, "== Subquery #1", "(actual rows 1, ");
    check_contains(plan, "== Run ==\n1 rows in ");
}

void test_sql_explain__analyze_sums_what_the_workers_of_a_chain_did(void)
{
    const char *plan = explain("ANALYZE SELECT id, v FROM t WHERE p = 2 ORDER BY v DESC LIMIT 5");
    check_contains(plan, "sort [id, v] (actual rows 5, ");
    check_after(plan, "top_n (every worker)", "filter (every worker) [id, p, v] (p = 2) (actual "
                "rows 1033, ");
    check_contains(plan, "(actual rows 1033, ");
    check_contains(plan, " workers)");
    check_after(plan, "scan (every worker)", "summed over ");
}

void test_sql_explain__catalog_table_in_the_logical_plan(void)
{
    const char *plan = explain("SELECT id, v FROM t WHERE p = 1 AND id < 300 ORDER BY id DESC "
                               "LIMIT 3");
    sql_result *res = NULL;
    col_batch *b;
    check_contains(plan, "== Logical Plan ==\nsort [id, v] by id DESC NULLS LAST limit 3 "
                   "offset 0\n   +- project [id, v]\n      +- filter [id, p, v] ((p = 1) AND "
                   "(id < 300))\n         +- scan [id, p, v]\n");
    check_contains(plan, "/wh/");
    check_contains(plan, "offered for pruning: (p = 1), (id < 300)\n");
    check_after(plan, "== Physical Plan ==", "sort [id, v]");
    check_after(plan, "== Physical Plan ==", "DeltaScan partitions: 1 of 3 read, 2 skipped");
    check_ok(sql_execute(s, "SELECT t.id FROM t WHERE p = 1 AND id < 300 ORDER BY id DESC LIMIT 3",
                         &res, &err), &err);
    check_ok(sql_result_next(res, &b, &err), &err);
    check(b != NULL && b->n_rows == 3);
    check_int(298, vec_get_int(b->cols[0], 0));
    check_int(295, vec_get_int(b->cols[0], 1));
    check_int(292, vec_get_int(b->cols[0], 2));
    sql_result_free(res);
    /* a temporary view of the same name comes first: it is not the table */
    check_ok(sql_execute(s, "CREATE TEMPORARY VIEW t AS SELECT 7 AS id", NULL, &err), &err);
    plan = explain("SELECT id FROM t");
    check(strstr(plan, "== Logical Plan ==") == NULL);
    check_ok(sql_execute(s, "DROP VIEW t", NULL, &err), &err);
    plan = explain("SELECT id FROM default.t LIMIT 1");
    check_contains(plan, "== Logical Plan ==\nlimit [id] 1 offset 0\n");
}
