/*
 * Tests of the database-wide memory budget through include/silt/sql.h:
 * memory_limit is one value per silt_db (its option, or SET in any
 * connection), and the statements of concurrent connections share it.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "api/conn.h"
#include "silt.h"
#include "test.h"

static silt_db *db;
static silt_conn *conn_a, *conn_b;

void test_api_memory__initialize(void)
{
    db = NULL;
    conn_a = conn_b = NULL;
}

void test_api_memory__cleanup(void)
{
    silt_conn_close(conn_a);
    silt_conn_close(conn_b);
    silt_db_close(db);
}

/* The first column of the first row of the last statement of sql, as text. */
static silt_status first_cell(silt_conn *conn, const char *sql, char *out, size_t cap)
{
    struct ArrowArrayStream stream;
    struct ArrowArray array;
    silt_status rc = silt_conn_exec(conn, sql, &stream);
    out[0] = '\0';
    if (rc != SILT_OK)
        return rc;
    if (stream.get_next(&stream, &array) != 0) {
        stream.release(&stream);
        return SILT_IO;
    }
    if (array.release != NULL) {
        const struct ArrowArray *col = array.children[0];
        const int32_t *offsets = col->buffers[1];
        const char *bytes = col->buffers[2];
        int32_t len = offsets[col->offset + 1] - offsets[col->offset];
        snprintf(out, cap, "%.*s", (int)len, bytes + offsets[col->offset]);
        array.release(&array);
    }
    stream.release(&stream);
    return SILT_OK;
}

/* The value column of SET key. */
static void shown(silt_conn *conn, const char *key, char *out, size_t cap)
{
    struct ArrowArrayStream stream;
    struct ArrowArray array;
    char sql[256];
    snprintf(sql, sizeof(sql), "SET %s", key);
    out[0] = '\0';
    check_int(SILT_OK, silt_conn_exec(conn, sql, &stream));
    check_int(0, stream.get_next(&stream, &array));
    check(array.release != NULL);
    {
        const struct ArrowArray *col = array.children[1];
        const int32_t *offsets = col->buffers[1];
        snprintf(out, cap, "%.*s", (int)(offsets[1] - offsets[0]),
                 (const char *)col->buffers[2] + offsets[0]);
    }
    array.release(&array);
    stream.release(&stream);
}

void test_api_memory__db_option_sets_the_limit(void)
{
    silt_db_options opts = SILT_DB_OPTIONS_INIT;
    char v[64];
    opts.memory_limit = 8 << 20;
    check_int(SILT_OK, silt_db_open(&db, NULL, &opts));
    check_int(SILT_OK, silt_conn_open(&conn_a, db));
    check_int(8 << 20, mem_budget_limit(db->budget));
    shown(conn_a, "memory_limit", v, sizeof(v));
    check_str("8.0 MiB", v);
    /* RESET goes back to the option's value, not to 80% of RAM. */
    check_int(SILT_OK, silt_conn_exec(conn_a, "SET memory_limit = '1GB'", NULL));
    check_int(SILT_OK, silt_conn_exec(conn_a, "RESET memory_limit", NULL));
    check_int(8 << 20, mem_budget_limit(db->budget));
}

void test_api_memory__version_1_options_get_the_default(void)
{
    silt_db_options opts = SILT_DB_OPTIONS_INIT;
    opts.version = 1;
    opts.memory_limit = 8 << 20; /* not a field of version 1: ignored */
    check_int(SILT_OK, silt_db_open(&db, NULL, &opts));
    check(mem_budget_limit(db->budget) > (8 << 20));
}

void test_api_memory__set_memory_limit_is_database_wide(void)
{
    char v[64], defaults[64];
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
    check_int(SILT_OK, silt_conn_open(&conn_a, db));
    check_int(SILT_OK, silt_conn_open(&conn_b, db));
    shown(conn_b, "memory_limit", defaults, sizeof(defaults));
    check_int(SILT_OK, silt_conn_exec(conn_a, "SET memory_limit = '64MiB'", NULL));
    check_int(64 << 20, mem_budget_limit(db->budget));
    /* The other connection sees (and runs under) the new limit ... */
    shown(conn_b, "memory_limit", v, sizeof(v));
    check_str("64.0 MiB", v);
    shown(conn_b, "silt.memory_limit", v, sizeof(v));
    check_str("64.0 MiB", v);
    /* ... and its RESET puts back the database's default for both. */
    check_int(SILT_OK, silt_conn_exec(conn_b, "RESET memory_limit", NULL));
    shown(conn_a, "memory_limit", v, sizeof(v));
    check_str(defaults, v);
    check_int(SILT_OK, silt_conn_exec(conn_b, "SET memory_limit = '1GB'", NULL));
    check_int(SILT_OK, silt_conn_exec(conn_a, "RESET", NULL));
    shown(conn_b, "memory_limit", v, sizeof(v));
    check_str(defaults, v);
}

/* Queries that hold memory in proportion to their input: aggregation,
 * sort, join, window. Under the small limit they must spill. */
static const char *const heavy[] = {
    "SELECT count(*) || ',' || sum(n) FROM (SELECT id % 100000 AS k, count(*) AS n "
    "FROM range(300000) GROUP BY id % 100000)",
    "SELECT max(r) || ',' || min(r) || ',' || count(*) FROM (SELECT id * 7 % 1000003 AS r "
    "FROM range(300000) ORDER BY r DESC)",
    "SELECT count(*) || ',' || sum(a.id) FROM range(200000) a JOIN range(200000) b "
    "ON a.id = b.id * 2",
    "SELECT count(*) || ',' || sum(rn) FROM (SELECT row_number() OVER (PARTITION BY id % 1000 "
    "ORDER BY id DESC) rn FROM range(200000))"};
#define N_HEAVY (sizeof(heavy) / sizeof(heavy[0]))

typedef struct runner {
    silt_conn *conn;
    int offset; /* where in heavy[] this connection starts */
    char answers[N_HEAVY][128];
    silt_status rc[N_HEAVY];
    char errmsg[N_HEAVY][256];
} runner;

static void *run_heavy(void *payload)
{
    runner *r = payload;
    int round, q;
    for (round = 0; round < 2; round++) {
        for (q = 0; q < (int)N_HEAVY; q++) {
            int idx = (q + r->offset) % (int)N_HEAVY;
            r->rc[idx] = first_cell(r->conn, heavy[idx], r->answers[idx],
                                    sizeof(r->answers[idx]));
            snprintf(r->errmsg[idx], sizeof(r->errmsg[idx]), "%s", silt_conn_errmsg(r->conn));
            if (r->rc[idx] != SILT_OK)
                return NULL;
        }
    }
    return NULL;
}

/*
 * Two connections on two threads run spilling queries at the same time
 * under a 2 MB database limit: each gets the in-memory answer (or fails
 * cleanly with [OUT_OF_MEMORY]), and together they never hold more than
 * the budget (its peak counter, not RSS).
 */
void test_api_memory__concurrent_connections_share_the_budget(void)
{
    silt_db_options opts = SILT_DB_OPTIONS_INIT;
    char expected[N_HEAVY][128], set_dir[512];
    runner runners[2];
    pthread_t threads[2];
    size_t q;
    int t, finished = 0;
    check_int(SILT_OK, silt_db_open(&db, NULL, &opts));
    check_int(SILT_OK, silt_conn_open(&conn_a, db));
    check_int(SILT_OK, silt_conn_open(&conn_b, db));
    for (q = 0; q < N_HEAVY; q++)
        check_int(SILT_OK, first_cell(conn_a, heavy[q], expected[q], sizeof(expected[q])));
    snprintf(set_dir, sizeof(set_dir), "SET temp_directory = '%s'", test_tmpdir());
    check_int(SILT_OK, silt_conn_exec(conn_a, set_dir, NULL));
    check_int(SILT_OK, silt_conn_exec(conn_b, set_dir, NULL));
    check_int(SILT_OK, silt_conn_exec(conn_a, "SET memory_limit = '2MB'", NULL));
    mem_budget_reset_peak(db->budget);
    memset(runners, 0, sizeof(runners));
    for (t = 0; t < 2; t++) {
        runners[t].conn = t == 0 ? conn_a : conn_b;
        runners[t].offset = t;
        check_int(0, pthread_create(&threads[t], NULL, run_heavy, &runners[t]));
    }
    for (t = 0; t < 2; t++)
        pthread_join(threads[t], NULL);
    for (t = 0; t < 2; t++) {
        for (q = 0; q < N_HEAVY; q++) {
            if (runners[t].rc[q] == SILT_OK) {
                check_str(expected[q], runners[t].answers[q]);
                finished++;
            } else {
                check_int(SILT_NOMEM, runners[t].rc[q]);
                check_contains(runners[t].errmsg[q], "[OUT_OF_MEMORY]");
            }
        }
    }
    check(finished > 0);
    check(mem_budget_peak(db->budget) <= 2000000);
    check(mem_budget_peak(db->budget) > 500000); /* the queries did hold memory */
    check_int(0, mem_budget_used(db->budget));
    check_int(0, test_dir_entries(test_tmpdir()));
}

/*
 * A GROUP BY over a Delta table whose one file is one large row group
 * (1.5M rows, about 20 MB), on 2 threads under an 8 MB database limit:
 * the aggregation spills, the answer is the in-memory one, and the budget
 * never passes the limit (the readers hold windows of the chunks, not the
 * chunks: formats/parquet).
 */
void test_api_memory__group_by_over_a_large_row_group_stays_in_the_budget(void)
{
    silt_db_options opts = SILT_DB_OPTIONS_INIT;
    char sql[1024], in_memory[128], spilled[128];
    opts.n_threads = 2;
    check_int(SILT_OK, silt_db_open(&db, NULL, &opts));
    check_int(SILT_OK, silt_conn_open(&conn_a, db));
    snprintf(sql, sizeof(sql), "SET silt.write.targetFileSize = '1g'; CREATE TABLE "
             "delta.`%s/big` AS SELECT id, id * 7919 %% 400000 AS k, id %% 1000 AS x "
             "FROM range(1500000)", test_tmpdir());
    check_int(SILT_OK, silt_conn_exec(conn_a, sql, NULL));
    snprintf(sql, sizeof(sql), "SELECT count(*) || ',' || sum(n) || ',' || sum(s) FROM (SELECT "
             "k, count(*) AS n, sum(x) AS s FROM delta.`%s/big` GROUP BY k)", test_tmpdir());
    check_int(SILT_OK, first_cell(conn_a, sql, in_memory, sizeof(in_memory)));
    check_str("400000,1500000,749250000", in_memory);
    check_int(SILT_OK, silt_conn_exec(conn_a, "SET memory_limit = '8MB'", NULL));
    mem_budget_reset_peak(db->budget);
    check_int(SILT_OK, first_cell(conn_a, sql, spilled, sizeof(spilled)));
    check_str(in_memory, spilled);
    check(mem_budget_peak(db->budget) <= 8000000);
    check(mem_budget_peak(db->budget) > 1000000);
    check_int(0, mem_budget_used(db->budget));
}
