/*
 * Tests of prepared statements (include/silt/stmt.h): parameters by
 * position (?) and by name (:name), re-execution with new values, INSERT
 * with parameters, the types values bind as, type errors, wrong counts,
 * unbound parameters and use after finalize; re-executions over a table
 * that changed (a kept logical plan, a subquery, pruning by each value).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "silt.h"
#include "test.h"

static silt_db *db;
static silt_conn *conn;
static char table[4096];

void test_api_stmt__initialize(void)
{
    char sql[8192];
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    snprintf(table, sizeof(table), "delta.`%s/t`", test_tmpdir());
    snprintf(sql, sizeof(sql), "CREATE TABLE %s AS SELECT id, id * 10 AS v, "
             "concat('n', CAST(id AS STRING)) AS name FROM range(100)", table);
    check_int(SILT_OK, silt_conn_exec(conn, sql, NULL));
}

void test_api_stmt__cleanup(void)
{
    silt_conn_close(conn);
    silt_db_close(db);
}

/* The first batch of a stream (which must have one), released by the caller; the stream too. */
static void first_batch(struct ArrowArrayStream *stream, struct ArrowArray *array)
{
    check_int(0, stream->get_next(stream, array));
    check(array->release != NULL);
}

static int64_t int64_at(const struct ArrowArray *array, int col, int64_t row)
{
    return ((const int64_t *)array->children[col]->buffers[1])[row];
}

static int is_null_at(const struct ArrowArray *array, int col, int64_t row)
{
    const uint8_t *valid = array->children[col]->buffers[0];
    return array->children[col]->null_count != 0 && valid != NULL &&
           !(valid[row / 8] & (1u << (row % 8)));
}

/* Runs stmt and checks the one row of two BIGINTs it gives. */
static void check_two(silt_stmt *stmt, int64_t a, int64_t b)
{
    struct ArrowArrayStream stream;
    struct ArrowArray array;
    if (silt_stmt_execute(stmt, &stream) != SILT_OK)
        test_fail(__FILE__, __LINE__, "execute: %s", silt_conn_errmsg(conn));
    first_batch(&stream, &array);
    check_int(1, array.length);
    check_int(a, int64_at(&array, 0, 0));
    check_int(b, int64_at(&array, 1, 0));
    array.release(&array);
    stream.release(&stream);
}

void test_api_stmt__reexecuted_with_new_values(void)
{
    silt_stmt *stmt;
    char sql[8192];
    snprintf(sql, sizeof(sql), "SELECT count(*), sum(v) FROM %s WHERE id < ? AND v >= ?", table);
    check_int(SILT_OK, silt_stmt_prepare(conn, sql, &stmt));
    check_int(2, silt_stmt_param_count(stmt));
    check(silt_stmt_param_name(stmt, 1) == NULL);
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, 1, 10));
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, 2, 0));
    check_two(stmt, 10, 450);
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, 1, 50));
    check_two(stmt, 50, 12250);
    check_int(SILT_OK, silt_stmt_bind_int32(stmt, 2, 200));
    check_two(stmt, 30, 10350);
    /* a new execution reads the table's latest version */
    snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (1, 1000, 'x')", table);
    check_int(SILT_OK, silt_conn_exec(conn, sql, NULL));
    check_two(stmt, 31, 11350);
    check_int(SILT_OK, silt_stmt_finalize(stmt));
}

void test_api_stmt__named_parameters(void)
{
    silt_stmt *stmt;
    check_int(SILT_OK, silt_stmt_prepare(conn, "SELECT :a + :b, :a * 2 - :b", &stmt));
    check_int(2, silt_stmt_param_count(stmt));
    check_str("a", silt_stmt_param_name(stmt, 1));
    check_str("b", silt_stmt_param_name(stmt, 2));
    check_int(2, silt_stmt_param_index(stmt, ":b"));
    check_int(1, silt_stmt_param_index(stmt, "a"));
    check_int(0, silt_stmt_param_index(stmt, "c"));
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, silt_stmt_param_index(stmt, "a"), 7));
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, silt_stmt_param_index(stmt, "b"), 3));
    check_two(stmt, 10, 11);
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, 2, -3));
    check_two(stmt, 4, 17);
    check_int(SILT_OK, silt_stmt_finalize(stmt));
}

void test_api_stmt__insert_with_parameters(void)
{
    struct ArrowArrayStream stream;
    struct ArrowArray array;
    silt_stmt *ins, *sel;
    char sql[8192];
    int64_t k;
    const int32_t *offsets;
    const char *chars;
    snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (?, ? * 2, ?)", table);
    check_int(SILT_OK, silt_stmt_prepare(conn, sql, &ins));
    check_int(3, silt_stmt_param_count(ins));
    for (k = 0; k < 3; k++) {
        char name[16];
        snprintf(name, sizeof(name), "new%d", (int)k);
        check_int(SILT_OK, silt_stmt_bind_int64(ins, 1, 1000 + k));
        check_int(SILT_OK, silt_stmt_bind_int64(ins, 2, k));
        check_int(SILT_OK, silt_stmt_bind_text(ins, 3, name, -1));
        if (silt_stmt_execute(ins, NULL) != SILT_OK)
            test_fail(__FILE__, __LINE__, "insert: %s", silt_conn_errmsg(conn));
    }
    /* a NULL into a nullable column */
    check_int(SILT_OK, silt_stmt_bind_null(ins, 3));
    check_int(SILT_OK, silt_stmt_execute(ins, NULL));
    check_int(SILT_OK, silt_stmt_finalize(ins));
    snprintf(sql, sizeof(sql), "SELECT id, v, name FROM %s WHERE id >= :lo ORDER BY id, name",
             table);
    check_int(SILT_OK, silt_stmt_prepare(conn, sql, &sel));
    check_int(SILT_OK, silt_stmt_bind_int64(sel, 1, 1000));
    check_int(SILT_OK, silt_stmt_execute(sel, &stream));
    first_batch(&stream, &array);
    check_int(4, array.length);
    check_int(1000, int64_at(&array, 0, 0));
    check_int(1002, int64_at(&array, 0, 3));
    check_int(4, int64_at(&array, 1, 3));
    offsets = array.children[2]->buffers[1];
    chars = array.children[2]->buffers[2];
    check_int(4, offsets[1] - offsets[0]);
    check(memcmp(chars + offsets[0], "new0", 4) == 0);
    /* ORDER BY name puts the NULL first among the id 1002 rows */
    check(is_null_at(&array, 2, 2));
    check(memcmp(chars + offsets[3], "new2", 4) == 0);
    array.release(&array);
    stream.release(&stream);
    check_int(SILT_OK, silt_stmt_finalize(sel));
}

void test_api_stmt__values_bind_as_their_literals(void)
{
    struct ArrowArrayStream stream;
    struct ArrowSchema schema;
    struct ArrowArray array;
    silt_stmt *stmt;
    static const char bytes[3] = {'a', 0, 'b'};
    /* the Arrow type of each column is the type of the literal the value binds as */
    static const char *const want[] = {"b", "i", "l", "g", "u", "z", "tdD", "tsu:UTC", "n"};
    int col;
    check_int(SILT_OK, silt_stmt_prepare(conn, "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                               "length(?), ? IS NULL", &stmt));
    check_int(11, silt_stmt_param_count(stmt));
    check_int(SILT_OK, silt_stmt_bind_bool(stmt, 1, 1));
    check_int(SILT_OK, silt_stmt_bind_int32(stmt, 2, -7));
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, 3, INT64_C(1) << 40));
    check_int(SILT_OK, silt_stmt_bind_double(stmt, 4, 1.5));
    check_int(SILT_OK, silt_stmt_bind_text(stmt, 5, "abc", 2));
    check_int(SILT_OK, silt_stmt_bind_blob(stmt, 6, bytes, sizeof(bytes)));
    check_int(SILT_OK, silt_stmt_bind_date(stmt, 7, 19000));
    check_int(SILT_OK, silt_stmt_bind_timestamp(stmt, 8, 1234567));
    check_int(SILT_OK, silt_stmt_bind_null(stmt, 9));
    check_int(SILT_OK, silt_stmt_bind_blob(stmt, 10, bytes, sizeof(bytes)));
    check_int(SILT_OK, silt_stmt_bind_null(stmt, 11));
    if (silt_stmt_execute(stmt, &stream) != SILT_OK)
        test_fail(__FILE__, __LINE__, "execute: %s", silt_conn_errmsg(conn));
    check_int(0, stream.get_schema(&stream, &schema));
    for (col = 0; col < 9; col++)
        check_str(want[col], schema.children[col]->format);
    schema.release(&schema);
    first_batch(&stream, &array);
    check(((const uint8_t *)array.children[0]->buffers[1])[0] & 1);
    check_int(-7, ((const int32_t *)array.children[1]->buffers[1])[0]);
    check_int(INT64_C(1) << 40, int64_at(&array, 2, 0));
    check(((const double *)array.children[3]->buffers[1])[0] == 1.5);
    {
        const int32_t *off = array.children[4]->buffers[1];
        check_int(2, off[1] - off[0]);
        check(memcmp((const char *)array.children[4]->buffers[2] + off[0], "ab", 2) == 0);
        off = array.children[5]->buffers[1];
        check_int(3, off[1] - off[0]);
        check(memcmp((const char *)array.children[5]->buffers[2] + off[0], bytes, 3) == 0);
    }
    check_int(19000, ((const int32_t *)array.children[6]->buffers[1])[0]);
    check_int(1234567, int64_at(&array, 7, 0));
    check_int(3, ((const int32_t *)array.children[9]->buffers[1])[0]);
    check(((const uint8_t *)array.children[10]->buffers[1])[0] & 1);
    array.release(&array);
    stream.release(&stream);
    check_int(SILT_OK, silt_stmt_finalize(stmt));
}

void test_api_stmt__type_errors(void)
{
    silt_stmt *stmt;
    /* a STRING that is no number, in ANSI arithmetic: Spark's cast error at run time */
    check_int(SILT_OK, silt_stmt_prepare(conn, "SELECT ? + 1", &stmt));
    check_int(SILT_OK, silt_stmt_bind_text(stmt, 1, "abc", -1));
    check_int(SILT_RUNTIME, silt_stmt_execute(stmt, NULL));
    check_contains(silt_conn_errmsg(conn), "CAST_INVALID_INPUT");
    /* the same statement runs once the value fits */
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, 1, 41));
    check_int(SILT_OK, silt_stmt_execute(stmt, NULL));
    check_int(SILT_OK, silt_stmt_finalize(stmt));
    /* a BIGINT where a BOOLEAN must be: a bind error naming the mismatch */
    check_int(SILT_OK, silt_stmt_prepare(conn, "SELECT 1 WHERE ?", &stmt));
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, 1, 1));
    check_int(SILT_BIND, silt_stmt_execute(stmt, NULL));
    check_contains(silt_conn_errmsg(conn), "DATATYPE_MISMATCH");
    check_int(SILT_OK, silt_stmt_bind_bool(stmt, 1, 1));
    check_int(SILT_OK, silt_stmt_execute(stmt, NULL));
    check_int(SILT_OK, silt_stmt_finalize(stmt));
}

void test_api_stmt__wrong_counts_and_unbound_parameters(void)
{
    silt_stmt *stmt;
    struct ArrowArrayStream stream;
    check_int(SILT_OK, silt_stmt_prepare(conn, "SELECT ?, ?", &stmt));
    check_int(SILT_INVALID, silt_stmt_bind_int64(stmt, 0, 1));
    check_contains(silt_conn_errmsg(conn), "parameter index 0 is out of range");
    check_int(SILT_INVALID, silt_stmt_bind_int64(stmt, 3, 1));
    check_contains(silt_conn_errmsg(conn), "has 2 parameters");
    check_int(0, silt_stmt_param_index(stmt, "a"));
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, 1, 1));
    /* the second ? (at byte 10) has no value: Spark's name for it is _10 */
    check_int(SILT_BIND, silt_stmt_execute(stmt, &stream));
    check(stream.release == NULL);
    check_contains(silt_conn_errmsg(conn), "[UNBOUND_SQL_PARAMETER] Found the unbound parameter: _10.");
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, 2, 2));
    check_int(SILT_OK, silt_stmt_execute(stmt, NULL));
    check_int(SILT_OK, silt_stmt_clear_bindings(stmt));
    check_int(SILT_BIND, silt_stmt_execute(stmt, NULL));
    check_contains(silt_conn_errmsg(conn), "_7");
    check_int(SILT_OK, silt_stmt_finalize(stmt));
    /* named: the missing one is named */
    check_int(SILT_OK, silt_stmt_prepare(conn, "SELECT :x + :y", &stmt));
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, 1, 1));
    check_int(SILT_BIND, silt_stmt_execute(stmt, NULL));
    check_contains(silt_conn_errmsg(conn), "Found the unbound parameter: y.");
    check_int(SILT_OK, silt_stmt_finalize(stmt));
    /* markers run without a statement have no values at all */
    check_int(SILT_BIND, silt_conn_exec(conn, "SELECT :p", NULL));
    check_contains(silt_conn_errmsg(conn), "[UNBOUND_SQL_PARAMETER] Found the unbound parameter: p.");
    /* refused at prepare: mixed markers, not one statement, a syntax error */
    check_int(SILT_BIND, silt_stmt_prepare(conn, "SELECT ?, :a", &stmt));
    check(stmt == NULL);
    check_contains(silt_conn_errmsg(conn), "[INVALID_QUERY_MIXED_QUERY_PARAMETERS]");
    check_int(SILT_INVALID, silt_stmt_prepare(conn, "SELECT 1; SELECT 2", &stmt));
    check_contains(silt_conn_errmsg(conn), "one statement");
    check_int(SILT_INVALID, silt_stmt_prepare(conn, "", &stmt));
    check_int(SILT_PARSE, silt_stmt_prepare(conn, "SELEC ?", &stmt));
    check_int(SILT_INVALID, silt_stmt_prepare(conn, NULL, &stmt));
    check_int(SILT_UNSUPPORTED, silt_stmt_prepare(conn, "CREATE TEMPORARY VIEW v AS SELECT ?",
                                                  &stmt));
    /* no parameters at all is a statement like any other */
    check_int(SILT_OK, silt_stmt_prepare(conn, "SELECT 1L, 2L", &stmt));
    check_int(0, silt_stmt_param_count(stmt));
    check_int(SILT_INVALID, silt_stmt_bind_int64(stmt, 1, 1));
    check_two(stmt, 1, 2);
    check_int(SILT_OK, silt_stmt_finalize(stmt));
}

void test_api_stmt__use_after_finalize_is_refused(void)
{
    struct ArrowArrayStream stream;
    struct ArrowArray array;
    silt_stmt *stmt;
    check_int(SILT_OK, silt_stmt_prepare(conn, "SELECT ? * 2, ? * 3", &stmt));
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, 1, 5));
    check_int(SILT_OK, silt_stmt_bind_int64(stmt, 2, 5));
    check_int(SILT_OK, silt_stmt_execute(stmt, &stream));
    check_int(SILT_OK, silt_stmt_finalize(stmt));
    /* the stream outlives its statement */
    first_batch(&stream, &array);
    check_int(10, int64_at(&array, 0, 0));
    check_int(15, int64_at(&array, 1, 0));
    array.release(&array);
    stream.release(&stream);
    check_int(SILT_INVALID, silt_stmt_execute(stmt, &stream));
    check_contains(silt_conn_errmsg(conn), "finalized");
    check(stream.release == NULL);
    check_int(SILT_INVALID, silt_stmt_bind_int64(stmt, 1, 1));
    check_int(SILT_INVALID, silt_stmt_bind_text(stmt, 1, "a", -1));
    check_int(SILT_INVALID, silt_stmt_clear_bindings(stmt));
    check_int(SILT_INVALID, silt_stmt_finalize(stmt));
    check_int(0, silt_stmt_param_count(stmt));
    check(silt_stmt_param_name(stmt, 1) == NULL);
    check_int(SILT_OK, silt_stmt_finalize(NULL));
    /* a statement never finalized is freed by silt_conn_close (ASan would tell) */
    check_int(SILT_OK, silt_stmt_prepare(conn, "SELECT ?", &stmt));
}

void test_api_stmt__parameters_in_update_delete_and_limit(void)
{
    silt_stmt *upd, *del, *lim;
    struct ArrowArrayStream stream;
    struct ArrowArray array;
    char sql[8192];
    int64_t want[2];
    snprintf(sql, sizeof(sql), "UPDATE %s SET v = :value WHERE id BETWEEN :lo AND :lo + 4",
             table);
    check_int(SILT_OK, silt_stmt_prepare(conn, sql, &upd));
    check_int(2, silt_stmt_param_count(upd));
    check_int(SILT_OK, silt_stmt_bind_int64(upd, silt_stmt_param_index(upd, "value"), -1));
    check_int(SILT_OK, silt_stmt_bind_int64(upd, silt_stmt_param_index(upd, "lo"), 10));
    if (silt_stmt_execute(upd, NULL) != SILT_OK)
        test_fail(__FILE__, __LINE__, "update: %s", silt_conn_errmsg(conn));
    check_int(SILT_OK, silt_stmt_bind_int64(upd, silt_stmt_param_index(upd, "lo"), 90));
    check_int(SILT_OK, silt_stmt_execute(upd, NULL));
    check_int(SILT_OK, silt_stmt_finalize(upd));
    snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE id < ?", table);
    check_int(SILT_OK, silt_stmt_prepare(conn, sql, &del));
    check_int(SILT_OK, silt_stmt_bind_int64(del, 1, 5));
    check_int(SILT_OK, silt_stmt_execute(del, NULL));
    check_int(SILT_OK, silt_stmt_finalize(del));
    snprintf(sql, sizeof(sql), "SELECT count(*), sum(v) FROM %s WHERE v = -1", table);
    {
        silt_stmt *q;
        check_int(SILT_OK, silt_stmt_prepare(conn, sql, &q));
        check_two(q, 10, -10);
        check_int(SILT_OK, silt_stmt_finalize(q));
    }
    /* 95 rows left (ids 5..99); LIMIT takes a marker too */
    snprintf(sql, sizeof(sql), "SELECT id FROM %s ORDER BY id LIMIT ? OFFSET ?", table);
    check_int(SILT_OK, silt_stmt_prepare(conn, sql, &lim));
    check_int(SILT_OK, silt_stmt_bind_int32(lim, 1, 3));
    check_int(SILT_OK, silt_stmt_bind_int32(lim, 2, 1));
    check_int(SILT_OK, silt_stmt_execute(lim, &stream));
    check_int(0, stream.get_next(&stream, &array));
    check_int(3, array.length);
    want[0] = ((const int64_t *)array.children[0]->buffers[1])[0];
    want[1] = ((const int64_t *)array.children[0]->buffers[1])[2];
    check_int(6, want[0]);
    check_int(8, want[1]);
    array.release(&array);
    stream.release(&stream);
    check_int(SILT_OK, silt_stmt_bind_int32(lim, 1, -1));
    check_int(SILT_BIND, silt_stmt_execute(lim, NULL));
    check_contains(silt_conn_errmsg(conn), "INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE");
    check_int(SILT_OK, silt_stmt_clear_bindings(lim));
    check_int(SILT_BIND, silt_stmt_execute(lim, NULL));
    check_contains(silt_conn_errmsg(conn), "UNBOUND_SQL_PARAMETER");
    check_int(SILT_OK, silt_stmt_finalize(lim));
}

/* Rows of one execution of stmt. */
static int64_t count_rows(silt_stmt *stmt)
{
    struct ArrowArrayStream stream;
    struct ArrowArray array;
    int64_t n = 0;
    if (silt_stmt_execute(stmt, &stream) != SILT_OK)
        test_fail(__FILE__, __LINE__, "execute: %s", silt_conn_errmsg(conn));
    for (;;) {
        check_int(0, stream.get_next(&stream, &array));
        if (array.release == NULL)
            break;
        n += array.length;
        array.release(&array);
    }
    stream.release(&stream);
    return n;
}

/* The one string cell of an execution (EXPLAIN's plan) into out. */
static void string_cell(silt_stmt *stmt, char *out, size_t cap)
{
    struct ArrowArrayStream stream;
    struct ArrowArray array;
    const int32_t *offsets;
    if (silt_stmt_execute(stmt, &stream) != SILT_OK)
        test_fail(__FILE__, __LINE__, "execute: %s", silt_conn_errmsg(conn));
    first_batch(&stream, &array);
    check_int(1, array.length);
    offsets = array.children[0]->buffers[1];
    snprintf(out, cap, "%.*s", (int)(offsets[1] - offsets[0]),
             (const char *)array.children[0]->buffers[2] + offsets[0]);
    array.release(&array);
    stream.release(&stream);
}

void test_api_stmt__subquery_rerun_sees_changed_table(void)
{
    silt_stmt *stmt;
    char sql[8192];
    snprintf(sql, sizeof(sql), "SELECT count(*), max(id) FROM %s WHERE id > (SELECT max(id) - 5 "
             "FROM %s)", table, table);
    check_int(SILT_OK, silt_stmt_prepare(conn, sql, &stmt));
    check_two(stmt, 5, 99);
    snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (100, 1000, 'x'), (101, 1010, 'y')", table);
    check_int(SILT_OK, silt_conn_exec(conn, sql, NULL));
    /* the subquery and the outer scan both read the new version */
    check_two(stmt, 5, 101);
    check_int(SILT_OK, silt_stmt_finalize(stmt));
}

void test_api_stmt__kept_plan_reruns_over_the_latest_version(void)
{
    silt_stmt *stmt;
    char sql[8192];
    snprintf(sql, sizeof(sql), "SELECT id, v FROM %s WHERE id >= 98 LIMIT 10", table);
    check_int(SILT_OK, silt_stmt_prepare(conn, sql, &stmt));
    check_int(2, count_rows(stmt));
    snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (100, 1000, 'x')", table);
    check_int(SILT_OK, silt_conn_exec(conn, sql, NULL));
    check_int(3, count_rows(stmt));
    snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE id = 98", table);
    check_int(SILT_OK, silt_conn_exec(conn, sql, NULL));
    check_int(2, count_rows(stmt));
    /* a table that is gone fails at the execution, with the binder's error */
    snprintf(sql, sizeof(sql), "SELECT id FROM delta.`%s/gone` WHERE id = 1", test_tmpdir());
    check_int(SILT_OK, silt_stmt_finalize(stmt));
    check(silt_stmt_prepare(conn, sql, &stmt) == SILT_OK);
    check(silt_stmt_execute(stmt, NULL) != SILT_OK);
    check_contains(silt_conn_errmsg(conn), "gone");
    check_int(SILT_OK, silt_stmt_finalize(stmt));
}

void test_api_stmt__partition_pruning_follows_each_value(void)
{
    silt_stmt *stmt, *query;
    char sql[8192], plan[16384], parts[4096];
    snprintf(parts, sizeof(parts), "delta.`%s/parts`", test_tmpdir());
    snprintf(sql, sizeof(sql), "CREATE TABLE %s USING DELTA PARTITIONED BY (p) AS SELECT id, "
             "id %% 4 AS p FROM range(40)", parts);
    check_int(SILT_OK, silt_conn_exec(conn, sql, NULL));
    snprintf(sql, sizeof(sql), "EXPLAIN SELECT id FROM %s WHERE p = ?", parts);
    check_int(SILT_OK, silt_stmt_prepare(conn, sql, &stmt));
    snprintf(sql, sizeof(sql), "SELECT id FROM %s WHERE p = ?", parts);
    check_int(SILT_OK, silt_stmt_prepare(conn, sql, &query));
    check_int(SILT_OK, silt_stmt_bind_int32(stmt, 1, 1));
    string_cell(stmt, plan, sizeof(plan));
    check_contains(plan, "DeltaScan PushedFilters: [p = 1]");
    check_contains(plan, "DeltaScan partitions: 1 of 4 read, 3 skipped");
    check_int(SILT_OK, silt_stmt_bind_int32(query, 1, 1));
    check_int(10, count_rows(query));
    /* a new partition value: the next execution prunes by it, over the new version */
    snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (100, 7), (101, 7)", parts);
    check_int(SILT_OK, silt_conn_exec(conn, sql, NULL));
    check_int(SILT_OK, silt_stmt_bind_int32(stmt, 1, 7));
    string_cell(stmt, plan, sizeof(plan));
    check_contains(plan, "DeltaScan PushedFilters: [p = 7]");
    check_contains(plan, "DeltaScan partitions: 1 of 5 read, 4 skipped");
    check_int(SILT_OK, silt_stmt_bind_int32(query, 1, 7));
    check_int(2, count_rows(query));
    check_int(SILT_OK, silt_stmt_finalize(stmt));
    check_int(SILT_OK, silt_stmt_finalize(query));
}
