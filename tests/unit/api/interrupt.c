/*
 * Tests of silt_conn_interrupt (include/silt/stmt.h): a statement that
 * would run for minutes is stopped from a second thread ~50 ms after it
 * started and fails with SILT_INTERRUPTED and Spark's [OPERATION_CANCELED];
 * an interrupted write commits nothing; the connection stays usable.
 *
 * The latency from the interrupt to the statement's return is printed
 * (to stderr) for the record, never asserted: the only bound checked is
 * that it stopped long before the statement would have ended (> 20 s).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "silt.h"
#include "test.h"
#include "util/time.h"

static silt_db *db;
static silt_conn *conn;

void test_api_interrupt__initialize(void)
{
    db = NULL;
    conn = NULL;
}

void test_api_interrupt__cleanup(void)
{
    silt_conn_close(conn);
    silt_db_close(db);
}

typedef struct interrupter {
    silt_conn *conn;
    int64_t delay_ms;
    int64_t sent_ns; /* when the interrupt was sent */
} interrupter;

static void *interrupt_main(void *payload)
{
    interrupter *it = payload;
    struct timespec ts = {0, 0};
    ts.tv_sec = (time_t)(it->delay_ms / 1000);
    ts.tv_nsec = (long)(it->delay_ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
    it->sent_ns = time_monotonic_nanos();
    silt_conn_interrupt(it->conn);
    return NULL;
}

/*
 * Runs sql on conn (pulling its whole stream when pull is set), interrupted
 * from another thread after 50 ms; returns the status and prints the latency.
 */
static silt_status run_interrupted(const char *what, const char *sql, int pull)
{
    interrupter it = {conn, 50, 0};
    pthread_t thread;
    int64_t start = time_monotonic_nanos(), end;
    silt_status rc;
    check_int(0, pthread_create(&thread, NULL, interrupt_main, &it));
    if (!pull) {
        rc = silt_conn_exec(conn, sql, NULL);
    } else {
        struct ArrowArrayStream stream;
        rc = silt_conn_exec(conn, sql, &stream);
        if (rc == SILT_OK) {
            struct ArrowArray array;
            int code;
            for (;;) {
                code = stream.get_next(&stream, &array);
                if (code != 0 || array.release == NULL)
                    break;
                array.release(&array);
            }
            check(code != 0);
            check_contains(stream.get_last_error(&stream), "[OPERATION_CANCELED]");
            rc = SILT_INTERRUPTED;
            stream.release(&stream);
        }
    }
    end = time_monotonic_nanos();
    pthread_join(thread, NULL);
    fprintf(stderr, "    interrupt latency (%s): %.1f ms after the interrupt, %.1f ms in all\n",
            what, (double)(end - it.sent_ns) / 1e6, (double)(end - start) / 1e6);
    /* every statement here runs for minutes uninterrupted */
    check(end - start < INT64_C(20) * 1000000000);
    return rc;
}

static void open_conn(int n_threads)
{
    silt_db_options o = SILT_DB_OPTIONS_INIT;
    o.n_threads = n_threads;
    check_int(SILT_OK, silt_db_open(&db, test_tmpdir(), &o));
    check_int(SILT_OK, silt_conn_open(&conn, db));
}

/* 10^5 x 10^6 rows: far more than a test run could finish. */
#define CROSS "range(100000) a CROSS JOIN range(1000000) b"

void test_api_interrupt__cross_join_aggregate_stops(void)
{
    open_conn(2);
    check_int(SILT_INTERRUPTED,
              run_interrupted("cross join count", "SELECT count(*), sum(a.id + b.id) FROM " CROSS,
                              0));
    check_contains(silt_conn_errmsg(conn), "[OPERATION_CANCELED] Operation has been canceled.");
    /* the connection goes on: the next statement is not interrupted */
    check_int(SILT_OK, silt_conn_exec(conn, "SELECT count(*) FROM range(10)", NULL));
}

void test_api_interrupt__group_by_on_threads_stops(void)
{
    open_conn(2);
    check_int(SILT_INTERRUPTED,
              run_interrupted("group by", "SELECT b.id % 7 AS k, count(*) FROM " CROSS
                              " GROUP BY b.id % 7", 0));
}

void test_api_interrupt__sort_stops(void)
{
    open_conn(0);
    check_int(SILT_INTERRUPTED,
              run_interrupted("sort", "SELECT a.id * b.id AS x FROM " CROSS " ORDER BY x DESC "
                              "LIMIT 3", 0));
}

void test_api_interrupt__window_stops(void)
{
    open_conn(0);
    check_int(SILT_INTERRUPTED,
              run_interrupted("window", "SELECT sum(x) OVER (PARTITION BY k ORDER BY x) FROM "
                              "(SELECT a.id % 3 AS k, b.id AS x FROM " CROSS ")", 0));
}

void test_api_interrupt__stream_being_pulled_stops(void)
{
    open_conn(0);
    check_int(SILT_INTERRUPTED, run_interrupted("stream", "SELECT a.id, b.id FROM " CROSS, 1));
    check_int(SILT_OK, silt_conn_exec(conn, "SELECT 1", NULL));
}

void test_api_interrupt__write_commits_nothing(void)
{
    struct ArrowArrayStream stream;
    struct ArrowArray array;
    char sql[4096], log[4096];
    struct stat st;
    const char *dir = test_tmpdir();
    open_conn(2);
    snprintf(sql, sizeof(sql), "CREATE TABLE delta.`%s/t` AS SELECT a.id AS x, b.id AS y FROM "
             CROSS, dir);
    check_int(SILT_INTERRUPTED, run_interrupted("create table as select", sql, 0));
    snprintf(log, sizeof(log), "%s/t/_delta_log/00000000000000000000.json", dir);
    check(stat(log, &st) != 0);
    /* an append to an existing table: still at version 0 afterwards */
    snprintf(sql, sizeof(sql), "CREATE TABLE delta.`%s/u` AS SELECT id FROM range(5)", dir);
    check_int(SILT_OK, silt_conn_exec(conn, sql, NULL));
    snprintf(sql, sizeof(sql), "INSERT INTO delta.`%s/u` SELECT a.id FROM " CROSS, dir);
    check_int(SILT_INTERRUPTED, run_interrupted("insert", sql, 0));
    snprintf(log, sizeof(log), "%s/u/_delta_log/00000000000000000001.json", dir);
    check(stat(log, &st) != 0);
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM delta.`%s/u`", dir);
    check_int(SILT_OK, silt_conn_exec(conn, sql, &stream));
    check_int(0, stream.get_next(&stream, &array));
    check_int(5, ((const int64_t *)array.children[0]->buffers[1])[0]);
    array.release(&array);
    stream.release(&stream);
}

void test_api_interrupt__interrupt_before_a_statement_is_forgotten(void)
{
    open_conn(0);
    silt_conn_interrupt(conn);
    check_int(SILT_OK, silt_conn_exec(conn, "SELECT count(*) FROM range(100000)", NULL));
    silt_conn_interrupt(NULL); /* no connection: nothing happens */
}

/*
 * Every scan path sees the interrupt: a statement whose stream is pulled
 * after silt_conn_interrupt fails at once, whichever format it reads and
 * whether it runs on the caller or on the pool's workers (Delta files are
 * morsels of a parallel pipeline; a GROUP BY aggregates on every worker).
 */
static void check_pull_interrupted(const char *sql)
{
    struct ArrowArrayStream stream;
    struct ArrowArray array;
    if (silt_conn_exec(conn, sql, &stream) != SILT_OK)
        test_fail(__FILE__, __LINE__, "%s: %s", sql, silt_conn_errmsg(conn));
    silt_conn_interrupt(conn);
    check(stream.get_next(&stream, &array) != 0);
    check_contains(stream.get_last_error(&stream), "[OPERATION_CANCELED]");
    stream.release(&stream);
    /* the next statement starts afresh */
    check_int(SILT_OK, silt_conn_exec(conn, "SELECT 1", NULL));
}

static const char *data_file_of(const char *table_dir)
{
    static char path[4096];
    DIR *d = opendir(table_dir);
    struct dirent *e;
    path[0] = '\0';
    while (d != NULL && (e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".parquet") != NULL && path[0] == '\0')
            snprintf(path, sizeof(path), "%s/%s", table_dir, e->d_name);
    if (d != NULL)
        closedir(d);
    return path;
}

void test_api_interrupt__every_scan_path_sees_it(void)
{
    const char *dir = test_tmpdir();
    char sql[8192], path[4096];
    FILE *f;
    int row;
    open_conn(2);
    snprintf(path, sizeof(path), "%s/f.csv", dir);
    f = fopen(path, "w");
    check(f != NULL);
    fputs("a,b\n", f);
    for (row = 0; row < 10000; row++)
        fprintf(f, "%d,x%d\n", row, row);
    fclose(f);
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM csv.`%s`", path);
    check_pull_interrupted(sql);
    snprintf(path, sizeof(path), "%s/f.json", dir);
    f = fopen(path, "w");
    check(f != NULL);
    for (row = 0; row < 10000; row++)
        fprintf(f, "{\"a\": %d, \"b\": \"x%d\"}\n", row, row);
    fclose(f);
    snprintf(sql, sizeof(sql), "SELECT a, b FROM json.`%s`", path);
    check_pull_interrupted(sql);
    snprintf(sql, sizeof(sql), "CREATE TABLE delta.`%s/t` AS SELECT id, id %% 10 AS k FROM "
             "range(100000)", dir);
    check_int(SILT_OK, silt_conn_exec(conn, sql, NULL));
    snprintf(path, sizeof(path), "%s/t", dir);
    snprintf(sql, sizeof(sql), "SELECT sum(id) FROM parquet.`%s`", data_file_of(path));
    check_pull_interrupted(sql);
    snprintf(sql, sizeof(sql), "SELECT id FROM delta.`%s/t` WHERE k = 3", dir);
    check_pull_interrupted(sql);
    snprintf(sql, sizeof(sql), "SELECT k, count(*) FROM delta.`%s/t` GROUP BY k", dir);
    check_pull_interrupted(sql);
    snprintf(sql, sizeof(sql), "SELECT a.k, count(*) FROM delta.`%s/t` a JOIN delta.`%s/t` b "
             "ON a.id = b.id GROUP BY a.k", dir, dir);
    check_pull_interrupted(sql);
    /* DML: nothing committed */
    snprintf(sql, sizeof(sql), "DELETE FROM delta.`%s/t` WHERE k = 1", dir);
    silt_conn_interrupt(conn);
    check_int(SILT_OK, silt_conn_exec(conn, sql, NULL)); /* a new statement clears the request */
}

void test_api_interrupt__merge_commits_nothing(void)
{
    char sql[8192], log[4096];
    struct stat st;
    const char *dir = test_tmpdir();
    open_conn(2);
    snprintf(sql, sizeof(sql), "CREATE TABLE delta.`%s/t` AS SELECT id, 0 AS v FROM range(1000)",
             dir);
    check_int(SILT_OK, silt_conn_exec(conn, sql, NULL));
    snprintf(sql, sizeof(sql), "MERGE INTO delta.`%s/t` t USING (SELECT b.id AS id, a.id AS v "
             "FROM " CROSS ") s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v "
             "WHEN NOT MATCHED THEN INSERT *", dir);
    check_int(SILT_INTERRUPTED, run_interrupted("merge", sql, 0));
    snprintf(log, sizeof(log), "%s/t/_delta_log/00000000000000000001.json", dir);
    check(stat(log, &st) != 0);
}
