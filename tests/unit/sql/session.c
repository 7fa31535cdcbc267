/*
 * Tests of sql/session.h below the public API: settings, statuses of
 * statements without rows, the pull interface and owned batches.
 */
#include <string.h>

#include "sql/session.h"
#include "test.h"

static sql_session *s;
static silt_error err;

void test_sql_session__initialize(void)
{
    err_clear(&err);
    check_ok(sql_session_new(&s, NULL, &err), &err);
}

void test_sql_session__cleanup(void) { sql_session_free(s); }

void test_sql_session__settings_are_kept_and_drive_ansi_mode(void)
{
    sql_result *res = NULL;
    col_batch *batch;
    check(sql_session_get(s, "spark.sql.ansi.enabled") == NULL);
    check_ok(sql_execute(s, "SET spark.sql.ansi.enabled = false; SET my.key = x y", NULL, &err),
             &err);
    check_str("false", sql_session_get(s, "spark.sql.ansi.enabled"));
    check_str("x y", sql_session_get(s, "my.key"));
    check_ok(sql_execute(s, "SELECT 1 / 0 AS q", &res, &err), &err);
    check_ok(sql_result_next(res, &batch, &err), &err);
    check(batch != NULL);
    check_int(1, batch->n_rows);
    check(col_vec_is_null(batch->cols[0], 0));
    sql_result_free(res);
    check_ok(sql_execute(s, "RESET spark.sql.ansi.enabled", NULL, &err), &err);
    check(sql_session_get(s, "spark.sql.ansi.enabled") == NULL);
    check_fails(SILT_RUNTIME, sql_execute(s, "SELECT 1 / 0", NULL, &err));
    check_contains(err.message, "DIVIDE_BY_ZERO");
}

void test_sql_session__statements_without_rows(void)
{
    sql_result *res = NULL;
    col_batch *batch = (col_batch *)&batch;
    check_ok(sql_execute(s, "CREATE TEMPORARY VIEW v AS SELECT 1 AS a", &res, &err), &err);
    check_int(0, sql_result_has_rows(res));
    check_ok(sql_result_next(res, &batch, &err), &err);
    check(batch == NULL);
    sql_result_free(res);
}

void test_sql_session__pulls_batches_and_owned_copies(void)
{
    sql_result *res = NULL;
    col_batch *batch;
    arena *owner = NULL;
    int64_t rows = 0, sum = 0, idx;
    const col_type *schema;
    check_ok(sql_execute(s, "SELECT id AS n FROM range(10000) WHERE id % 2 = 0", &res, &err), &err);
    schema = sql_result_schema(res);
    check_int(1, (int64_t)schema->n_fields);
    check_str("n", schema->fields[0].name);
    for (;;) {
        check_ok(sql_result_next_owned(res, &batch, &owner, &err), &err);
        if (batch == NULL)
            break;
        check(owner != NULL);
        for (idx = 0; idx < batch->n_rows; idx++)
            sum += ((const int64_t *)batch->cols[0]->values)[idx];
        rows += batch->n_rows;
        arena_free(owner);
    }
    check_int(5000, rows);
    check_int(24995000, sum);
    sql_result_free(res);
}

void test_sql_session__errors_carry_positions(void)
{
    check_fails(SILT_BIND, sql_execute(s, "SELECT 1;\n  SELECT x FROM range(1)", NULL, &err));
    check_contains(err.message, "(line 2, column 10)");
    check_fails(SILT_PARSE, sql_execute(s, "SELECT (", NULL, &err));
    check_fails(SILT_NOTFOUND, sql_execute(s, "DELETE FROM t WHERE x = 1", NULL, &err));
    check_contains(err.message, "(line 1, column 13)");
    check_fails(SILT_UNSUPPORTED, sql_execute(s, "CACHE TABLE t", NULL, &err));
    check_contains(err.message, "CACHE statements are not supported");
    check_contains(err.context, "line 1, column 1");
}
