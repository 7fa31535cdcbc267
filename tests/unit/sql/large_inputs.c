/*
 * Inputs of 100,000 pieces that took 20 to 40 seconds while some step was
 * quadratic (issue 15 defect 6): a script of 100,000 statements (every bound
 * expression rescanned the script for its line), an IN list of 100,000
 * values, a JSON object of 100,000 keys (a pairwise check of the names).
 * Each must just run; no timing is asserted (bench/ measures).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "sql/session.h"
#include "test.h"
#include "util/buf.h"

#define N_PIECES 100000

static sql_session *s;
static silt_error err;

void test_sql_large_inputs__initialize(void)
{
    sql_session_options so = SQL_SESSION_OPTIONS_INIT;
    err_clear(&err);
    check_ok(sql_session_new(&s, &so, &err), &err);
}

void test_sql_large_inputs__cleanup(void) { sql_session_free(s); }

typedef struct counter {
    long statements;
    int64_t rows;
} counter;

static silt_status count_result(sql_result *res, void *payload, silt_error *e)
{
    counter *c = payload;
    col_batch *batch = NULL;
    silt_status rc;
    c->statements++;
    while ((rc = sql_result_next(res, &batch, e)) == SILT_OK && batch != NULL)
        c->rows += batch->n_rows;
    return rc;
}

/* The single LONG of a one-row result. */
static int64_t one_long(const char *sql)
{
    sql_result *res = NULL;
    col_batch *batch = NULL;
    int64_t v = -1;
    check_ok(sql_execute(s, sql, &res, &err), &err);
    check_ok(sql_result_next(res, &batch, &err), &err);
    check(batch != NULL && batch->n_rows == 1);
    v = ((const int64_t *)batch->cols[0]->values)[0];
    sql_result_free(res);
    return v;
}

void test_sql_large_inputs__script_of_many_statements(void)
{
    buf text = BUF_INIT;
    counter c = {0, 0};
    long idx;
    for (idx = 0; idx < N_PIECES; idx++)
        check_ok(buf_printf(&text, &err, "SELECT %ld + 1;\n", idx), &err);
    check_ok(sql_execute_each(s, text.data, count_result, &c, &err), &err);
    check_int(N_PIECES, c.statements);
    check_int(N_PIECES, c.rows);
    /* positions stay right at the end of a long script */
    check_ok(buf_append_str(&text, "SELECT nope;", &err), &err);
    check_fails(SILT_BIND, sql_execute_each(s, text.data, count_result, &c, &err));
    check_contains(err.message, "(line 100001, column 8)");
    buf_clear(&text);
}

void test_sql_large_inputs__in_list_of_many_values(void)
{
    buf text = BUF_INIT;
    long idx;
    check_ok(buf_append_str(&text, "SELECT count(*) FROM range(200000) WHERE id IN (", &err), &err);
    for (idx = 0; idx < N_PIECES; idx++)
        check_ok(buf_printf(&text, &err, "%s%ld", idx ? ", " : "", idx * 2), &err);
    check_ok(buf_append_str(&text, ")", &err), &err);
    check_int(N_PIECES, one_long(text.data));
    buf_clear(&text);
}

void test_sql_large_inputs__json_object_of_many_keys(void)
{
    buf text = BUF_INIT;
    char path[1024], sql[1200];
    FILE *f;
    long idx;
    check_ok(buf_append_str(&text, "{", &err), &err);
    for (idx = 0; idx < N_PIECES; idx++)
        check_ok(buf_printf(&text, &err, "%s\"k%ld\": %ld", idx ? ", " : "", idx, idx), &err);
    check_ok(buf_append_str(&text, "}\n", &err), &err);
    snprintf(path, sizeof(path), "%s/wide.json", test_tmpdir());
    f = fopen(path, "w");
    check(f != NULL);
    check(fwrite(text.data, 1, text.len, f) == text.len);
    fclose(f);
    snprintf(sql, sizeof(sql), "SELECT k99999 FROM json.`%s`", path);
    check_int(99999, one_long(sql));
    buf_clear(&text);
}

/* Issue 15 defect 2: a flat chain of 100,000 operators is a tree as deep; every walk over
 * it before binding (names, aggregates, subqueries, the printers) overflowed the stack.
 * It is refused by name, like a chain of 10,000. */
void test_sql_large_inputs__flat_operator_chains(void)
{
    buf text = BUF_INIT;
    long idx;
    check_ok(buf_append_str(&text, "SELECT 1", &err), &err);
    for (idx = 1; idx < N_PIECES; idx++)
        check_ok(buf_append_str(&text, " + 1", &err), &err);
    check_fails(SILT_BIND, sql_execute(s, text.data, NULL, &err));
    check_contains(err.message, "expression nested too deeply");
    buf_truncate(&text, 0);
    check_ok(buf_append_str(&text, "SELECT count(*) FROM range(3) WHERE id >= 0", &err), &err);
    for (idx = 1; idx < N_PIECES; idx++)
        check_ok(buf_append_str(&text, " AND id >= 0", &err), &err);
    check_fails(SILT_BIND, sql_execute(s, text.data, NULL, &err));
    check_contains(err.message, "expression nested too deeply");
    buf_clear(&text);
}
