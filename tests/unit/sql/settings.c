/*
 * Tests of memory_limit and temp_directory (sql/settings.h) through SQL:
 * sizes parse like DuckDB's, SET shows effective values, and queries under
 * a tiny limit spill into temp_directory, return the in-memory answers and
 * leave the directory empty, also when the caller stops reading early.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>

#include "sql/session.h"
#include "sql/settings.h"
#include "test.h"

static sql_session *s;
static silt_error err;

void test_sql_settings__initialize(void)
{
    err_clear(&err);
    check_ok(sql_session_new(&s, NULL, &err), &err);
}

void test_sql_settings__cleanup(void) { sql_session_free(s); }

/* The first cell of the first row of a statement, as text (integers and strings). */
static const char *first_cell(const char *sql, char *out, size_t cap)
{
    sql_result *res = NULL;
    col_batch *b;
    check_ok(sql_execute(s, sql, &res, &err), &err);
    check_ok(sql_result_next(res, &b, &err), &err);
    check(b != NULL && b->n_rows > 0);
    if (b->cols[0]->type->id == COL_STRING) {
        int32_t len;
        const char *p = col_vec_str(b->cols[0], 0, &len);
        snprintf(out, cap, "%.*s", (int)len, p);
    } else {
        snprintf(out, cap, "%lld", (long long)((const int64_t *)b->cols[0]->values)[0]);
    }
    sql_result_free(res);
    return out;
}

/* The value column of SET key. */
static const char *shown(const char *sql, char *out, size_t cap)
{
    sql_result *res = NULL;
    col_batch *b;
    int32_t len;
    const char *p;
    check_ok(sql_execute(s, sql, &res, &err), &err);
    check_ok(sql_result_next(res, &b, &err), &err);
    p = col_vec_str(b->cols[1], 0, &len);
    snprintf(out, cap, "%.*s", (int)len, p);
    sql_result_free(res);
    return out;
}

void test_sql_settings__sizes(void)
{
    int64_t x;
    check(sql_settings_parse_size("2GB", &x) && x == 2000000000);
    check(sql_settings_parse_size("1.5 GiB", &x) && x == ((int64_t)3 << 29));
    check(sql_settings_parse_size("512mib", &x) && x == ((int64_t)512 << 20));
    check(sql_settings_parse_size("100000", &x) && x == 100000);
    check(sql_settings_parse_size("10KB", &x) && x == 10000);
    check(sql_settings_parse_size("50%", &x) && x > 0 && x < sql_settings_physical_ram());
    check(!sql_settings_parse_size("", &x));
    check(!sql_settings_parse_size("abc", &x));
    check(!sql_settings_parse_size("-1GB", &x));
    check(!sql_settings_parse_size("2 parsecs", &x));
    check(!sql_settings_parse_size("0", &x));
    check(!sql_settings_parse_size("150%", &x));
    check(sql_settings_default_memory_limit() > 0);
}

/* One parser, two conventions: Spark's byte strings are powers of 1024, integers, no spaces. */
void test_sql_settings__sizes_in_spark_convention(void)
{
    int64_t x;
    check(sql_settings_parse_size_as("64m", SETTINGS_SIZE_SPARK, &x) && x == ((int64_t)64 << 20));
    check(sql_settings_parse_size_as("64MB", SETTINGS_SIZE_SPARK, &x) && x == ((int64_t)64 << 20));
    check(sql_settings_parse_size_as("1g", SETTINGS_SIZE_SPARK, &x) && x == ((int64_t)1 << 30));
    check(sql_settings_parse_size_as("3k", SETTINGS_SIZE_SPARK, &x) && x == 3072);
    check(sql_settings_parse_size_as("1t", SETTINGS_SIZE_SPARK, &x) && x == ((int64_t)1 << 40));
    check(sql_settings_parse_size_as("100b", SETTINGS_SIZE_SPARK, &x) && x == 100);
    check(sql_settings_parse_size_as("134217728", SETTINGS_SIZE_SPARK, &x) && x == 134217728);
    check(!sql_settings_parse_size_as("1.5g", SETTINGS_SIZE_SPARK, &x));
    check(!sql_settings_parse_size_as("64 m", SETTINGS_SIZE_SPARK, &x));
    check(!sql_settings_parse_size_as(" 64m", SETTINGS_SIZE_SPARK, &x));
    check(!sql_settings_parse_size_as("50%", SETTINGS_SIZE_SPARK, &x));
    check(!sql_settings_parse_size_as("64mib", SETTINGS_SIZE_SPARK, &x));
    check(!sql_settings_parse_size_as("0k", SETTINGS_SIZE_SPARK, &x));
    check(!sql_settings_parse_size_as("-1m", SETTINGS_SIZE_SPARK, &x));
    check(!sql_settings_parse_size_as("m", SETTINGS_SIZE_SPARK, &x));
    check(!sql_settings_parse_size_as("", SETTINGS_SIZE_SPARK, &x));
    /* The same text, read by each convention. */
    check(sql_settings_parse_size_as("1k", SETTINGS_SIZE_DUCKDB, &x) && x == 1000);
    check(sql_settings_parse_size_as("1k", SETTINGS_SIZE_SPARK, &x) && x == 1024);
    check(sql_settings_parse_size_as("2MB", SETTINGS_SIZE_DUCKDB, &x) && x == 2000000);
    check(sql_settings_parse_size_as("2MB", SETTINGS_SIZE_SPARK, &x) && x == ((int64_t)2 << 20));
}

void test_sql_settings__set_and_show(void)
{
    char v[128];
    char expected[32];
    /* Default: 80% of physical RAM, formatted. */
    snprintf(expected, sizeof(expected), "%.1f GiB",
             (double)sql_settings_default_memory_limit() / (1024.0 * 1024 * 1024));
    check_str(expected, shown("SET memory_limit", v, sizeof(v)));
    check_ok(sql_execute(s, "SET memory_limit = '2GiB'", NULL, &err), &err);
    check_str("2GiB", sql_session_get(s, "memory_limit"));
    check_str("2.0 GiB", shown("SET memory_limit", v, sizeof(v)));
    /* The silt. prefix names the same setting. */
    check_ok(sql_execute(s, "SET silt.memory_limit = '512MiB'", NULL, &err), &err);
    check_str("512.0 MiB", shown("SET memory_limit", v, sizeof(v)));
    check_str("512.0 MiB", shown("SET silt.memory_limit", v, sizeof(v)));
    check_fails(SILT_INVALID, sql_execute(s, "SET memory_limit = 'lots'", NULL, &err));
    check_contains(err.message, "[INVALID_CONF_VALUE]");
    check_contains(err.message, "'lots'");
    check_str("512MiB", sql_session_get(s, "memory_limit")); /* unchanged */
    check_ok(sql_execute(s, "SET temp_directory = '/var/tmp'", NULL, &err), &err);
    check_str("/var/tmp", shown("SET temp_directory", v, sizeof(v)));
    check_str("memory_limit", first_cell("SET -v", v, sizeof(v)));
    check_ok(sql_execute(s, "RESET silt.memory_limit", NULL, &err), &err);
    check(sql_session_get(s, "memory_limit") == NULL);
    check_str(expected, shown("SET memory_limit", v, sizeof(v)));
}

static void set_tiny(const char *limit, const char *dir)
{
    char sql[512];
    snprintf(sql, sizeof(sql), "SET memory_limit = '%s'; SET temp_directory = '%s'", limit, dir);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
}

void test_sql_settings__queries_spill_under_a_tiny_limit(void)
{
    static const char *const queries[] = {
        "SELECT count(*) || ',' || sum(n) FROM (SELECT id % 100000 AS k, count(*) AS n "
        "FROM range(300000) GROUP BY id % 100000)",
        "SELECT count(*) || ',' || sum(a.id) FROM range(200000) a JOIN range(200000) b "
        "ON a.id = b.id * 2",
        "SELECT count(*) || ',' || sum(b.id) FROM range(100000) a FULL JOIN range(100000) b "
        "ON a.id = b.id + 50000",
        "SELECT max(r) || ',' || min(r) || ',' || count(*) FROM (SELECT id * 7 % 1000003 AS r "
        "FROM range(300000) ORDER BY r DESC)",
        /* windows, grouping sets and cross joins (block nested loop) */
        "SELECT count(*) || ',' || sum(rn) || ',' || sum(s) || ',' || sum(l) || ',' || "
        "sum(nt) FROM (SELECT row_number() OVER (PARTITION BY id % 1000 ORDER BY id DESC) rn, "
        "sum(id) OVER (PARTITION BY id % 1000 ORDER BY id) s, lag(id, 2) OVER (PARTITION BY "
        "id % 1000 ORDER BY id) l, ntile(4) OVER (PARTITION BY id % 1000 ORDER BY id) nt "
        "FROM range(300000))",
        "SELECT count(*) || ',' || sum(n) || ',' || sum(coalesce(a, -1)) || ',' || sum(g) "
        "FROM (SELECT id % 50000 a, id % 7 b, count(*) n, grouping_id() g FROM range(300000) "
        "GROUP BY CUBE(id % 50000, id % 7))",
        "SELECT count(*) || ',' || sum(a.id * 3 + b.id) || ',' || sum(length(b.s)) FROM "
        "range(500) a CROSS JOIN (SELECT id, repeat('x', id % 50) s FROM range(30000)) b",
        "SELECT count(*) || ',' || sum(a.id + b.id) FROM range(600) a JOIN range(30000) b "
        "ON a.id * 50 > b.id"};
    const char *dir = test_tmpdir();
    size_t q;
    for (q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
        char mem[128], disk[128];
        set_tiny("4GB", dir);
        first_cell(queries[q], mem, sizeof(mem));
        set_tiny("1MB", dir);
        first_cell(queries[q], disk, sizeof(disk));
        check_str(mem, disk);
        check_int(0, test_dir_entries(dir));
        /* Proof that the tiny limit spills: without a temp directory it cannot. */
        set_tiny("1MB", "/nonexistent/silt-temp");
        check_fails(SILT_IO, sql_execute(s, queries[q], NULL, &err));
        check_contains(err.message, "could not create a spill file in temp_directory");
    }
}

void test_sql_settings__result_freed_early_removes_spill_files(void)
{
    const char *dir = test_tmpdir();
    sql_result *res = NULL;
    col_batch *b;
    int before = test_dir_entries("/proc/self/fd");
    set_tiny("1MB", dir);
    check_ok(sql_execute(s, "SELECT id * 7 % 1000003 AS r FROM range(300000) ORDER BY r",
                         &res, &err), &err);
    check_ok(sql_result_next(res, &b, &err), &err);
    check(b != NULL);
    /* The runs are open (already unlinked) while the sort is read ... */
    check(test_dir_entries("/proc/self/fd") > before);
    check_int(0, test_dir_entries(dir));
    sql_result_free(res);
    /* ... and closed when the caller stops early. */
    check_int(before, test_dir_entries("/proc/self/fd"));
    check_int(0, test_dir_entries(dir));
}

void test_sql_settings__limit_too_small_is_out_of_memory(void)
{
    set_tiny("10KB", test_tmpdir());
    check_fails(SILT_NOMEM, sql_execute(s, "SELECT id FROM range(100000) ORDER BY id DESC",
                                        NULL, &err));
    check_contains(err.message, "[OUT_OF_MEMORY]");
    check_contains(err.message, "9.8 KiB");
    check_contains(err.hint, "SET memory_limit");
    check_int(0, test_dir_entries(test_tmpdir()));
}

void test_sql_settings__parallel_aggregate_falls_back_to_spilling(void)
{
    /* A Delta table of two files: GROUP BY over it plans a parallel aggregate. */
    char wh[1024], dir[1024], mem[128], disk[128], plan[2048];
    sql_session *w = NULL;
    sql_session_options opts = SQL_SESSION_OPTIONS_INIT;
    tpool *pool = NULL;
    const char *q = "SELECT count(*) || ',' || sum(n) || ',' || sum(m) FROM (SELECT k, count(*) "
                    "AS n, sum(id) AS m FROM t GROUP BY k)";
    snprintf(wh, sizeof(wh), "%s/wh", test_tmpdir());
    snprintf(dir, sizeof(dir), "%s/spill", test_tmpdir());
    check(mkdir(wh, 0700) == 0 && mkdir(dir, 0700) == 0);
    check_ok(tpool_new(&pool, 2, &err), &err);
    opts.warehouse = wh;
    opts.pool = pool;
    check_ok(sql_session_new(&w, &opts, &err), &err);
    sql_session_free(s);
    s = w;
    check_ok(sql_execute(s, "CREATE TABLE t USING DELTA AS SELECT id, id % 60000 AS k FROM "
                         "range(150000); INSERT INTO t SELECT id, id % 50000 FROM range(100000)",
                         NULL, &err), &err);
    snprintf(plan, sizeof(plan), "EXPLAIN %s", q);
    check_contains(first_cell(plan, plan, sizeof(plan)), "parallel_aggregate");
    set_tiny("4GB", dir);
    first_cell(q, mem, sizeof(mem));
    set_tiny("1MB", dir);
    first_cell(q, disk, sizeof(disk));
    check_str(mem, disk);
    check_str("60000,250000,16249875000", disk);
    check_int(0, test_dir_entries(dir));
    set_tiny("1MB", "/nonexistent/silt-temp");
    check_fails(SILT_IO, sql_execute(s, q, NULL, &err));
    sql_session_free(s);
    s = NULL;
    tpool_free(pool);
    check_ok(sql_session_new(&s, NULL, &err), &err);
}

void test_sql_settings__error_after_spilling_removes_spill_files(void)
{
    const char *dir = test_tmpdir();
    int before = test_dir_entries("/proc/self/fd");
    set_tiny("1MB", dir);
    /* The sort spills its runs, then a row of the merge divides by zero. */
    check_fails(SILT_RUNTIME, sql_execute(s, "SELECT 10 / (r - 500) FROM (SELECT id * 7 % "
                                          "1000003 AS r FROM range(300000) ORDER BY r)", NULL,
                                          &err));
    check_contains(err.message, "DIVIDE_BY_ZERO");
    check_int(0, test_dir_entries(dir));
    check_int(before, test_dir_entries("/proc/self/fd")); /* every run closed */
    set_tiny("1MB", "/nonexistent/silt-temp");
    check_fails(SILT_IO, sql_execute(s, "SELECT 10 / (r - 500) FROM (SELECT id * 7 % "
                                     "1000003 AS r FROM range(300000) ORDER BY r)", NULL, &err));
}
