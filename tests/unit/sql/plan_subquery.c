/*
 * Tests of uncorrelated subqueries as plan nodes (sql/plan_subquery.c):
 * EXPLAIN plans them and runs none, so no data file of the table they
 * scan is opened (counted through the session's wrap_table_store hook);
 * running the query runs each once, before the plan, with the values a
 * literal would have had.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
