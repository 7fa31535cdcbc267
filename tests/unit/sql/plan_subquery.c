/*
 * Tests of uncorrelated subqueries as plan nodes (sql/plan_subquery.c):
 * EXPLAIN plans them and runs none, so no data file of the table they
 * scan is opened (counted through the session's wrap_table_store hook);
 * running the query runs each once, before the plan, with the values a
 * literal would have had. The logical plan (sql/plan.h) the same way:
 * EXPLAIN prints it and the operators lowered from it and reads no data,
 * and a prepared statement keeps it and lowers it again over the table as
 * it is at each execution.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/prepared.h"
#include "sql/session.h"
#include "test.h"
#include "util/mem.h"

/* A store that forwards everything and counts what it opens of data files. */
typedef struct counting_store {
    io_store base;
    io_store *inner;
} counting_store;

static long data_reads;
static sql_session *s;
static silt_error err;

static int is_data(const char *key) { return strstr(key, ".parquet") != NULL; }

static silt_status c_get_range(io_store *st, const char *key, int64_t off, int64_t len, buf *out,
                               silt_error *e)
{
    io_store *in = ((counting_store *)st)->inner;
    if (is_data(key))
        data_reads++;
    return in->ops->get_range(in, key, off, len, out, e);
}

static silt_status c_put(io_store *st, const char *key, const void *data, size_t len,
                         int if_absent, silt_error *e)
{
    io_store *in = ((counting_store *)st)->inner;
    return in->ops->put(in, key, data, len, if_absent, e);
}

static silt_status c_list(io_store *st, const char *prefix, const char *after, int rec,
                          io_listing *out, silt_error *e)
{
    io_store *in = ((counting_store *)st)->inner;
    return in->ops->list(in, prefix, after, rec, out, e);
}

static silt_status c_remove(io_store *st, const char *key, silt_error *e)
{
    io_store *in = ((counting_store *)st)->inner;
    return in->ops->remove(in, key, e);
}

static silt_status c_head(io_store *st, const char *key, io_object_info *out, silt_error *e)
{
    io_store *in = ((counting_store *)st)->inner;
    return in->ops->head(in, key, out, e);
}

static silt_status c_open_file(io_store *st, const char *key, io_file **out, silt_error *e)
{
    io_store *in = ((counting_store *)st)->inner;
    if (is_data(key))
        data_reads++;
    return in->ops->open_file(in, key, out, e);
}

static silt_status c_open_writer(io_store *st, const char *key, io_writer **out, silt_error *e)
{
    io_store *in = ((counting_store *)st)->inner;
    return in->ops->open_writer(in, key, out, e);
}

static void c_destroy(io_store *st)
{
    counting_store *cs = (counting_store *)st;
    io_store_free(cs->inner);
    free(cs);
}

static const io_store_ops counting_ops = {"count",  c_get_range, c_put,         c_list, c_remove,
                                          c_head,   c_open_file, c_open_writer, c_destroy};

static silt_status wrap(io_store **store, void *payload, silt_error *e)
{
    counting_store *cs = calloc(1, sizeof(*cs));
    if (cs == NULL)
        return err_nomem(e);
    cs->base.ops = &counting_ops;
    cs->base.root = (*store)->root;
    cs->inner = *store;
    *store = &cs->base;
    return SILT_OK;
}

static char big[1024];

/* tmpl with every {t} replaced by the big table's name. */
static const char *fill(const char *tmpl)
{
    static char sql[4096];
    size_t n = 0, tlen = strlen(big);
    while (*tmpl != '\0' && n + tlen + 1 < sizeof(sql)) {
        if (strncmp(tmpl, "{t}", 3) == 0) {
            memcpy(sql + n, big, tlen);
            n += tlen;
            tmpl += 3;
        } else {
            sql[n++] = *tmpl++;
        }
    }
    sql[n] = '\0';
    return sql;
}

void test_sql_plan_subquery__initialize(void)
{
    sql_session_options opts = SQL_SESSION_OPTIONS_INIT;
    err_clear(&err);
    opts.wrap_table_store = wrap;
    check_ok(sql_session_new(&s, &opts, &err), &err);
    snprintf(big, sizeof(big), "delta.`%s/big`", test_tmpdir());
    check_ok(sql_execute(s, fill("CREATE TABLE {t} USING DELTA AS SELECT id, id % 1000 AS k, "
                                 "concat('row', id) AS name FROM range(300000)"), NULL, &err),
             &err);
    data_reads = 0;
}

void test_sql_plan_subquery__cleanup(void) { sql_session_free(s); }

static const char *run_text(const char *tmpl, char *cell, size_t cap)
{
    sql_result *res = NULL;
    col_batch *b;
    const char *sql = fill(tmpl);
    int32_t len;
    const char *p;
    check_ok(sql_execute(s, sql, &res, &err), &err);
    check_ok(sql_result_next(res, &b, &err), &err);
    check(b != NULL && b->n_rows == 1);
    p = col_vec_str(b->cols[0], 0, &len);
    snprintf(cell, cap, "%.*s", (int)len, p);
    sql_result_free(res);
    return cell;
}

static int64_t run_long(const char *tmpl)
{
    sql_result *res = NULL;
    col_batch *b;
    const char *sql = fill(tmpl);
    int64_t v;
    check_ok(sql_execute(s, sql, &res, &err), &err);
    check_ok(sql_result_next(res, &b, &err), &err);
    check(b != NULL && b->n_rows == 1);
    v = vec_get_int(b->cols[0], 0);
    sql_result_free(res);
    return v;
}

void test_sql_plan_subquery__explain_opens_no_data_file(void)
{
    static char plan[16384];
    run_text("EXPLAIN SELECT count(*) FROM {t} WHERE id > (SELECT max(id) - 10 FROM {t}) OR k IN "
             "(SELECT k FROM {t} WHERE name = 'row7')", plan, sizeof(plan));
    check_int(0, data_reads);
    check_contains(plan, "== Subquery #1: scalar subquery (line 1, column ");
    check_contains(plan, "== Subquery #2: IN subquery");
    check_contains(plan, "run before the plan ==");
    check_contains(plan, "scalarsubquery()");
    /* the table was read for its log only: running the query reads its data */
    check_int(10 + 300, run_long("SELECT count(*) FROM {t} WHERE id > (SELECT max(id) - 10 FROM "
                                 "{t}) OR k IN (SELECT k FROM {t} WHERE name = 'row7')"));
    check(data_reads > 0);
}

void test_sql_plan_subquery__exists_and_describe_run_nothing(void)
{
    static char plan[16384];
    sql_result *res = NULL;
    run_text("EXPLAIN SELECT 1 AS one FROM {t} WHERE EXISTS (SELECT 1 FROM {t} WHERE id = 5) "
             "LIMIT (1)", plan, sizeof(plan));
    check_contains(plan, "EXISTS subquery");
    check_ok(sql_execute(s, fill("DESCRIBE QUERY SELECT (SELECT max(id) FROM {t}) AS m"), &res,
                         &err), &err);
    sql_result_free(res);
    check_int(0, data_reads);
}

void test_sql_plan_subquery__errors_come_when_it_runs(void)
{
    check_ok(sql_execute(s, fill("EXPLAIN SELECT (SELECT id FROM {t}) AS v"), NULL, &err), &err);
    check_fails(SILT_RUNTIME, sql_execute(s, fill("SELECT (SELECT id FROM {t}) AS v"), NULL, &err));
    check_contains(err.message, "SCALAR_SUBQUERY_TOO_MANY_ROWS");
    check_contains(err.message, "(line 1, column 8)");
}

/* Rows of a prepared statement's execution. */
static int64_t prepared_rows(sql_prepared *p)
{
    sql_result *res = NULL;
    col_batch *b;
    int64_t n = 0;
    check_ok(sql_prepared_execute(s, p, NULL, NULL, &res, &err), &err);
    for (;;) {
        check_ok(sql_result_next(res, &b, &err), &err);
        if (b == NULL)
            break;
        n += b->n_rows;
    }
    sql_result_free(res);
    return n;
}

void test_sql_plan_subquery__explain_shows_the_logical_and_the_physical_plan(void)
{
    static char plan[16384];
    const char *phys;
    run_text("EXPLAIN SELECT id, upper(name) AS u FROM {t} WHERE k = 3 AND id < 5000 LIMIT 4",
             plan, sizeof(plan));
    check_int(0, data_reads);
    check_contains(plan, "== Logical Plan ==\nlimit [id, u] 4 offset 0\n");
    check(strncmp(plan, "== Logical Plan ==", 18) == 0);
    check_contains(plan, "   +- project [id, u]\n");
    check_contains(plan, "      +- filter [id, k, name] ((k = 3) AND (id < 5000))\n");
    check_contains(plan, "         +- scan [id, k, name]\n");
    check_contains(plan, "offered for pruning: (k = 3), (id < 5000)\n");
    phys = strstr(plan, "== Physical Plan ==\n");
    check(phys != NULL);
    check_contains(phys, "DeltaScan PushedFilters: [k = 3, id < 5000]");
    check_contains(phys, "         +- scan [id, k, name]\n");
    check_int(4, run_long("SELECT count(*) FROM (SELECT id FROM {t} WHERE k = 3 LIMIT 4)"));
}

void test_sql_plan_subquery__kept_plan_sees_each_new_snapshot(void)
{
    sql_prepared *p;
    const void *kept;
    long before;
    check_ok(sql_prepare(s, fill("SELECT id, name FROM {t} WHERE id >= 299998"), &p, &err), &err);
    check(sql_prepared_plan(p) == NULL);
    check_int(2, prepared_rows(p));
    kept = sql_prepared_plan(p);
    check(kept != NULL);
    check(data_reads > 0);
    check_ok(sql_execute(s, fill("INSERT INTO {t} VALUES (300000, 0, 'new'), (300001, 1, 'new')"),
                         NULL, &err), &err);
    /* the same tree, lowered over the new version: its new file is read too */
    before = data_reads;
    check_int(4, prepared_rows(p));
    check(sql_prepared_plan(p) == kept);
    check(data_reads > before);
    check_ok(sql_execute(s, fill("DELETE FROM {t} WHERE id = 299999"), NULL, &err), &err);
    check_int(3, prepared_rows(p));
    check(sql_prepared_plan(p) == kept);
    sql_prepared_free(p);
}

void test_sql_plan_subquery__kept_plan_binds_again_when_it_must(void)
{
    sql_prepared *p;
    const void *kept;
    sql_result *res = NULL;
    col_batch *b;
    check_ok(sql_prepare(s, fill("SELECT * FROM {t} WHERE id = 7"), &p, &err), &err);
    check_int(1, prepared_rows(p));
    kept = sql_prepared_plan(p);
    check(kept != NULL);
    /* a new column: SELECT * is bound again and gives it */
    check_ok(sql_execute(s, fill("ALTER TABLE {t} ADD COLUMNS (extra INT)"), NULL, &err), &err);
    check_ok(sql_prepared_execute(s, p, NULL, NULL, &res, &err), &err);
    check_ok(sql_result_next(res, &b, &err), &err);
    check(b != NULL && b->n_rows == 1);
    check_int(4, b->n_cols);
    check(col_vec_is_null(b->cols[3], 0));
    sql_result_free(res);
    check(sql_prepared_plan(p) != kept);
    /* a setting changed: bound again under it */
    kept = sql_prepared_plan(p);
    check_ok(sql_execute(s, "SET spark.sql.ansi.enabled = false", NULL, &err), &err);
    check_int(1, prepared_rows(p));
    check(sql_prepared_plan(p) != kept);
    check_ok(sql_execute(s, "RESET spark.sql.ansi.enabled", NULL, &err), &err);
    sql_prepared_free(p);
}

void test_sql_plan_subquery__queries_the_plan_does_not_cover_are_not_kept(void)
{
    sql_prepared *p;
    check_ok(sql_prepare(s, fill("SELECT id FROM {t} WHERE id > (SELECT max(id) - 3 FROM {t})"),
                         &p, &err), &err);
    check_int(3, prepared_rows(p));
    check(sql_prepared_plan(p) == NULL);
    check_ok(sql_execute(s, fill("INSERT INTO {t} VALUES (300000, 0, 'new')"), NULL, &err), &err);
    /* bound again: the subquery and the outer scan both read the new version */
    check_int(3, prepared_rows(p));
    sql_prepared_free(p);
}

/* The first column of every row of sql (BIGINTs), into out; the row count. */
static size_t first_column(const char *tmpl, int64_t *out, size_t cap)
{
    sql_result *res = NULL;
    col_batch *b;
    size_t n = 0;
    int64_t row;
    check_ok(sql_execute(s, fill(tmpl), &res, &err), &err);
    for (;;) {
        check_ok(sql_result_next(res, &b, &err), &err);
        if (b == NULL)
            break;
        for (row = 0; row < b->n_rows && n < cap; row++)
            out[n++] = vec_get_int(b->cols[0], row);
    }
    sql_result_free(res);
    return n;
}

void test_sql_plan_subquery__order_by_select_items_in_the_logical_plan(void)
{
    static char plan[16384];
    int64_t ids[8];
    run_text("EXPLAIN SELECT id, k AS kk FROM {t} WHERE k = 3 ORDER BY id DESC LIMIT 3", plan,
             sizeof(plan));
    check_contains(plan, "== Logical Plan ==\nsort [id, kk] by id DESC NULLS LAST limit 3 "
                   "offset 0\n   +- project [id, kk]\n");
    check_contains(plan, "== Physical Plan ==\nsort [id, kk]");
    check_int(0, data_reads);
    check_int(3, first_column("SELECT id, k AS kk FROM {t} WHERE k = 3 ORDER BY id DESC LIMIT 3",
                              ids, 8));
    check_int(299003, ids[0]);
    check_int(298003, ids[1]);
    check_int(297003, ids[2]);
    /* an ordinal, an alias and an item's expression are keys of the select list */
    check_int(2, first_column("SELECT id + 1 AS n FROM {t} WHERE id < 5 ORDER BY 1 DESC LIMIT 2 "
                              "OFFSET 1", ids, 8));
    check_int(4, ids[0]);
    check_int(3, ids[1]);
    check_int(2, first_column("SELECT id % 7 FROM {t} WHERE id < 10 ORDER BY id % 7 DESC, 1 "
                              "LIMIT 2", ids, 8));
    check_int(6, ids[0]);
    check_int(5, ids[1]);
    /* a key that is not selected: the direct planner (no logical section) sorts by it */
    run_text("EXPLAIN SELECT id FROM {t} WHERE k = 3 ORDER BY name LIMIT 1", plan, sizeof(plan));
    check(strstr(plan, "== Logical Plan ==") == NULL);
    check_int(1, first_column("SELECT id FROM {t} WHERE k = 3 ORDER BY name LIMIT 1", ids, 8));
    check_int(100003, ids[0]);
    check_fails(SILT_BIND, sql_execute(s, fill("SELECT id FROM {t} ORDER BY 2"), NULL, &err));
    check_contains(err.message, "ORDER_BY_POS_OUT_OF_RANGE");
}
