/*
 * SQL over a Delta table of one data file of 200 sorted row groups, and
 * over the same file read as plain Parquet: one scan path, so the answers
 * are the same serial and parallel, the pushed filters reach the Parquet
 * reader for the Delta file too, and with threads the one file is cut into
 * row-group units (EXPLAIN notes them as for a Parquet source). Deletion
 * vectors are applied per unit (table-with-dv-large, serial vs parallel).
 */
#include <stdio.h>
#include <string.h>

#include "../delta/scan_table.h"
#include "sql/session.h"
#include "test.h"
#include "util/thread.h"

static arena *a;
static silt_error err;
static io_store *store;
static tpool *pool;

void test_sql_scan_delta__initialize(void)
{
    err_clear(&err);
    a = arena_new(NULL, "test");
    store = NULL;
    pool = NULL;
}

void test_sql_scan_delta__cleanup(void)
{
    io_store_free(store);
    tpool_free(pool);
    arena_free(a);
}

/* Every row of a query as "a|b|...\n" text (integers only). */
static const char *rows_of(sql_session *s, const char *sql)
{
    sql_result *res = NULL;
    col_batch *batch;
    buf out = BUF_INIT;
    const char *text;
    check_ok(sql_execute(s, sql, &res, &err), &err);
    for (;;) {
        check_ok(sql_result_next(res, &batch, &err), &err);
        if (batch == NULL)
            break;
        for (int64_t row = 0; row < batch->n_rows; row++) {
            for (size_t c = 0; c < batch->n_cols; c++) {
                const col_vec *v = batch->cols[c];
                int32_t len;
                if (c > 0)
                    buf_append_char(&out, '|', NULL);
                if (col_vec_is_null(v, row))
                    buf_append_str(&out, "NULL", NULL);
                else if (v->type->id == COL_STRING) {
                    const char *str = col_vec_str(v, row, &len);
                    buf_append(&out, str, (size_t)len, NULL);
                } else if (v->type->id == COL_INT)
                    buf_printf(&out, NULL, "%d", ((const int32_t *)v->values)[row]);
                else
                    buf_printf(&out, NULL, "%lld", (long long)((const int64_t *)v->values)[row]);
            }
            buf_append_char(&out, '\n', NULL);
        }
    }
    text = arena_strdup(a, buf_cstr(&out));
    buf_clear(&out);
    sql_result_free(res);
    return text;
}

static sql_session *session(int threads)
{
    sql_session_options so = SQL_SESSION_OPTIONS_INIT;
    sql_session *s = NULL;
    if (threads && pool == NULL)
        check_ok(tpool_new(&pool, 1, &err), &err);
    so.pool = threads ? pool : NULL;
    check_ok(sql_session_new(&s, &so, &err), &err);
    return s;
}

static const char *const wheres[] = {
    "k = 123456",
    "k BETWEEN 1500 AND 150000",
    "m < 1",
    "m < 1 AND k > 90000",
    "k > 1000000",
    "k IS NULL",
    "k >= 0",
};

/* The same answers for the Delta table and its file as Parquet, serial and parallel. */
void test_sql_scan_delta__same_answers_as_parquet(void)
{
    sql_session *serial, *parallel;
    const char *dir = test_tmpdir();
    scan_table_write(a, &store);
    serial = session(0);
    parallel = session(1);
    for (size_t q = 0; q < sizeof(wheres) / sizeof(wheres[0]); q++) {
        const char *as_parquet = rows_of(
            serial, arena_sprintf(a, "SELECT count(*), sum(k), min(m), max(k) FROM "
                                     "parquet.`%s/part-0.parquet` WHERE %s", dir, wheres[q]));
        const char *sql = arena_sprintf(a, "SELECT count(*), sum(k), min(m), max(k) FROM "
                                           "delta.`%s` WHERE %s", dir, wheres[q]);
        check_str(as_parquet, rows_of(serial, sql));
        check_str(as_parquet, rows_of(parallel, sql));
    }
    check_str("1|123456|1|123456\n",
              rows_of(parallel, arena_sprintf(a, "SELECT count(*), sum(k), min(m), max(k) FROM "
                                                 "delta.`%s` WHERE k = 123456", dir)));
    sql_session_free(serial);
    sql_session_free(parallel);
}

/* With threads the one file becomes 200 row-group units, noted as a Parquet source's split. */
void test_sql_scan_delta__one_file_split_into_row_groups(void)
{
    sql_session *s;
    const char *plan;
    scan_table_write(a, &store);
    s = session(1);
    plan = rows_of(s, arena_sprintf(a, "EXPLAIN SELECT count(*), sum(m) FROM delta.`%s` "
                                       "WHERE k = 123456", test_tmpdir()));
    check_contains(plan, "DeltaScan morsels: 200 from 1 file");
    check_contains(plan, "DeltaScan PushedFilters: [k = 123456]");
    sql_session_free(s);
}

/* Deletion vectors with morsels: the parallel answers are the serial ones. */
void test_sql_scan_delta__deletion_vectors_parallel(void)
{
    static const char *const queries[] = {
        "SELECT count(*), sum(value), min(value), max(value) FROM delta.`%s`",
        "SELECT count(*), sum(value) FROM delta.`%s` WHERE value < 500",
        "SELECT value FROM delta.`%s` WHERE value BETWEEN 100 AND 130 ORDER BY value",
    };
    const char *dir = arena_sprintf(a, "%s/conformance/tables/table-with-dv-large",
                                    test_shared_dir());
    sql_session *serial = session(0), *parallel = session(1);
    for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
        const char *hole = strstr(queries[q], "%s");
        const char *sql = arena_sprintf(a, "%.*s%s%s", (int)(hole - queries[q]), queries[q], dir,
                                        hole + 2);
        const char *want = rows_of(serial, sql);
        check(strlen(want) > 0);
        check_str(want, rows_of(parallel, sql));
    }
    sql_session_free(serial);
    sql_session_free(parallel);
}
