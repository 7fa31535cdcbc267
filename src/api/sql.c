/*
 * sql.c - include/silt/sql.h over sql/session.h: databases and their store
 * options, connections, Arrow streams of results and formatted results.
 *
 * Handles keep the formatted error of their last failed call (STYLE.md,
 * section 3). An Arrow stream owns its sql_result; each exported batch is
 * a copy in its own arena, freed when the consumer releases the array.
 */
#include <stddef.h>
#include <string.h>

#include "api/conn.h"
#include "api/options.h"
#include "api/output.h"
#include "formats/arrow.h"
#include "io/store.h"
#include "silt/sql.h"
#include "sql/session.h"
#include "sql/settings.h"
#include "stream/stream.h"
#include "util/mem.h"

static silt_status keep_error(char *dst, silt_status rc, const silt_error *err)
{
    return api_keep_error(dst, rc, err);
}

static silt_status conn_error(silt_conn *conn, silt_status rc, const silt_error *err)
{
    return api_conn_error(conn, rc, err);
}

/* ---------------------------------------------------------------- store options */

/* Keeps key = value in db's store options (a key set again takes the new value). */
static silt_status keep_store_option(silt_db *db, const char *key, const char *value,
                                     silt_error *err)
{
    size_t idx, n = db->store.n;
    char **keys, **values;
    char *k, *v;
    SILT_RETURN_IF_ERROR(io_store_check_option(key, value, err));
    if (value == NULL)
        return err_set(err, SILT_INVALID, "store option \"%s\" needs a value", key);
    if ((v = mem_strdup(value)) == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        if (strcmp(db->store_keys[idx], key) == 0) {
            mem_free(db->store_values[idx]);
            db->store_values[idx] = v;
            return SILT_OK;
        }
    }
    if ((keys = mem_realloc(db->store_keys, (n + 1) * sizeof(char *))) != NULL)
        db->store_keys = keys;
    if (keys != NULL && (values = mem_realloc(db->store_values, (n + 1) * sizeof(char *))) != NULL)
        db->store_values = values;
    if (keys == NULL || values == NULL || (k = mem_strdup(key)) == NULL) {
        mem_free(v);
        return err_nomem(err);
    }
    keys[n] = k;
    values[n] = v;
    db->store.keys = (const char *const *)keys;
    db->store.values = (const char *const *)values;
    db->store.n = n + 1;
    return SILT_OK;
}

static void free_store_options(silt_db *db)
{
    size_t idx;
    for (idx = 0; idx < db->store.n; idx++) {
        mem_free(db->store_keys[idx]);
        mem_free(db->store_values[idx]);
    }
    mem_free(db->store_keys);
    mem_free(db->store_values);
}

SILT_API silt_status silt_db_set_option(silt_db *db, const char *key, const char *value)
{
    silt_error err = SILT_ERROR_INIT;
    if (db == NULL)
        return SILT_INVALID;
    return api_db_error(db, keep_store_option(db, key, value, &err), &err);
}

/* ---------------------------------------------------------------- databases */

static silt_status db_options(silt_db_options *out, const silt_db_options *given, silt_error *err)
{
    static const silt_db_options defaults = SILT_DB_OPTIONS_INIT;
    static const size_t sizes[SILT_DB_OPTIONS_VERSION] = {
        offsetof(silt_db_options, store_options), sizeof(silt_db_options)};
    SILT_RETURN_IF_ERROR(api_options(out, given, &defaults, sizes, SILT_DB_OPTIONS_VERSION,
                                     "database options", err));
    if (out->n_threads < 0)
        return err_set(err, SILT_INVALID, "database options ask for %d threads", out->n_threads);
    if (out->n_store_options > 0 && out->store_options == NULL)
        return err_set(err, SILT_INVALID, "database options have %zu store options but no array",
                       out->n_store_options);
    return SILT_OK;
}

/* The database's arena and memory budget (memory_limit since options version 2). */
static silt_status db_memory(silt_db *db, const silt_db_options *opts, silt_error *err)
{
    int64_t limit = sql_settings_default_memory_limit();
    if (opts->memory_limit > 0)
        limit = opts->memory_limit;
    if (opts->memory_limit < 0)
        return err_set(err, SILT_INVALID, "database options ask for a memory_limit of %lld bytes",
                       (long long)opts->memory_limit);
    db->arena = arena_new_shared("silt db");
    db->budget = mem_budget_new(limit);
    if (db->arena == NULL || db->budget == NULL)
        return err_nomem(err);
    arena_set_budget(db->arena, db->budget);
    return SILT_OK;
}

SILT_API silt_status silt_db_open(silt_db **out, const char *warehouse,
                                  const silt_db_options *opts)
{
    silt_error err = SILT_ERROR_INIT;
    silt_db_options o;
    silt_db *db;
    silt_status rc = SILT_OK;
    size_t idx;
    if (out == NULL)
        return SILT_INVALID;
    *out = NULL;
    db = mem_calloc(1, sizeof(*db));
    if (db == NULL)
        return SILT_NOMEM;
    *out = db;
    rc = db_options(&o, opts, &err);
    for (idx = 0; rc == SILT_OK && idx < o.n_store_options; idx++)
        rc = keep_store_option(db, o.store_options[idx].key, o.store_options[idx].value, &err);
    /* Qualified now, as Spark does at start: a later chdir does not move it. */
    if (rc == SILT_OK && warehouse != NULL &&
        (db->warehouse = io_location_qualify(warehouse, NULL)) == NULL)
        rc = err_nomem(&err);
    if (rc == SILT_OK)
        rc = db_memory(db, &o, &err);
    if (rc == SILT_OK && o.n_threads > 0)
        rc = tpool_new(&db->pool, (size_t)o.n_threads, &err);
    if (rc == SILT_OK && warehouse != NULL) {
        /* Check the warehouse now, so that a wrong folder fails at open. */
        sql_session *probe;
        sql_session_options so = SQL_SESSION_OPTIONS_INIT;
        so.warehouse = db->warehouse;
        so.store = &db->store;
        rc = sql_session_new(&probe, &so, &err);
        if (rc == SILT_OK)
            sql_session_free(probe);
    }
    return api_db_error(db, rc, &err);
}

SILT_API const char *silt_db_errmsg(const silt_db *db) { return db ? db->errmsg : ""; }

SILT_API void silt_db_close(silt_db *db)
{
    if (db == NULL)
        return;
    tpool_free(db->pool);
    free_store_options(db);
    arena_free(db->arena);
    mem_budget_free(db->budget);
    mem_free(db->warehouse);
    mem_free(db);
}

SILT_API silt_status silt_conn_open(silt_conn **out, silt_db *db)
{
    silt_error err = SILT_ERROR_INIT;
    sql_session_options so = SQL_SESSION_OPTIONS_INIT;
    silt_conn *conn;
    silt_status rc;
    if (out == NULL || db == NULL)
        return SILT_INVALID;
    *out = NULL;
    conn = mem_calloc(1, sizeof(*conn));
    if (conn == NULL)
        return SILT_NOMEM;
    conn->db = db;
    so.warehouse = db->warehouse;
    so.store = &db->store;
    so.pool = db->pool;
    so.parent = db->arena;
    rc = sql_session_new(&conn->session, &so, &err);
    if (rc != SILT_OK) {
        api_db_error(db, rc, &err);
        mem_free(conn);
        return rc;
    }
    /* CREATE STREAMING TABLE and REFRESH STREAMING TABLE run in stream/ */
    sql_session_set_stream_runner(conn->session, stream_run_statement, NULL);
    *out = conn;
    return SILT_OK;
}

SILT_API void silt_conn_close(silt_conn *conn)
{
    if (conn == NULL)
        return;
    api_conn_release(conn);
    sql_session_free(conn->session);
    mem_free(conn);
}

SILT_API const char *silt_conn_errmsg(const silt_conn *conn) { return conn ? conn->errmsg : ""; }

SILT_API void silt_conn_set_read_only(silt_conn *conn, int on)
{
    if (conn != NULL)
        sql_session_set_read_only(conn->session, on);
}

SILT_API silt_status silt_conn_set_databases(silt_conn *conn, const char *const *names,
                                             size_t n)
{
    silt_error err = SILT_ERROR_INIT;
    if (conn == NULL)
        return SILT_INVALID;
    return api_keep_error(conn->errmsg, sql_session_set_databases(conn->session, names, n, &err),
                          &err);
}

/* ---------------------------------------------------------------- Arrow stream */

typedef struct stream_state {
    sql_result *res;
    char errmsg[ERRMSG_MAX];
} stream_state;

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    stream_state *st = s->private_data;
    silt_error err = SILT_ERROR_INIT;
    /* A statement without rows (DDL, INSERT) has no schema: it is a stream of
     * zero columns (silt_conn_exec's contract), not a NULL type. */
    static const col_type no_columns = {COL_STRUCT, 0, 0, 0, NULL};
    const col_type *schema = sql_result_schema(st->res);
    silt_status rc = arrow_export_schema(out, schema != NULL ? schema : &no_columns, &err);
    keep_error(st->errmsg, rc, &err);
    return rc == SILT_OK ? 0 : (rc == SILT_NOMEM ? 12 /* ENOMEM */ : 5 /* EIO */);
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    stream_state *st = s->private_data;
    silt_error err = SILT_ERROR_INIT;
    col_batch *batch;
    arena *owner;
    silt_status rc = sql_result_next_owned(st->res, &batch, &owner, &err);
    if (rc == SILT_OK && batch == NULL) {
        memset(out, 0, sizeof(*out));
        out->release = NULL;
        return 0;
    }
    if (rc == SILT_OK)
        rc = arrow_export_batch(out, batch, owner, &err);
    keep_error(st->errmsg, rc, &err);
    return rc == SILT_OK ? 0 : (rc == SILT_NOMEM ? 12 : 5);
}

static const char *stream_last_error(struct ArrowArrayStream *s)
{
    stream_state *st = s->private_data;
    return st->errmsg[0] ? st->errmsg : NULL;
}

static void stream_release(struct ArrowArrayStream *s)
{
    stream_state *st = s->private_data;
    if (st != NULL) {
        sql_result_free(st->res);
        mem_free(st);
    }
    s->release = NULL;
    s->private_data = NULL;
}

SILT_API silt_status silt_conn_exec(silt_conn *conn, const char *sql,
                                    struct ArrowArrayStream *out)
{
    silt_error err = SILT_ERROR_INIT;
    sql_result *res = NULL;
    silt_status rc;
    if (conn == NULL)
        return SILT_INVALID;
    if (out != NULL)
        memset(out, 0, sizeof(*out));
    if (sql == NULL)
        return conn_error(conn, err_set(&err, SILT_INVALID, "silt_conn_exec needs a statement"),
                          &err);
    rc = sql_execute(conn->session, sql, out != NULL ? &res : NULL, &err);
    if (rc != SILT_OK || out == NULL || res == NULL)
        return conn_error(conn, rc, &err);
    return conn_error(conn, api_stream_from_result(out, res, &err), &err);
}

silt_status api_stream_from_result(struct ArrowArrayStream *out, sql_result *res,
                                   silt_error *err)
{
    stream_state *st = mem_calloc(1, sizeof(*st));
    if (st == NULL) {
        sql_result_free(res);
        return err_nomem(err);
    }
    st->res = res;
    out->get_schema = stream_get_schema;
    out->get_next = stream_get_next;
    out->get_last_error = stream_last_error;
    out->release = stream_release;
    out->private_data = st;
    return SILT_OK;
}

/* ---------------------------------------------------------------- formatting */

typedef struct print_ctx {
    silt_text_fn fn;
    void *payload;
    const silt_output_options *opts;
    int n_printed;
} print_ctx;

/* EXPLAIN and friends: the text of each row as it is, as spark-sql prints it. */
static silt_status print_text(sql_result *res, print_ctx *pc, silt_error *err)
{
    col_batch *batch;
    int64_t row;
    for (;;) {
        SILT_RETURN_IF_ERROR(sql_result_next(res, &batch, err));
        if (batch == NULL)
            return SILT_OK;
        for (row = 0; row < batch->n_rows; row++) {
            int32_t len;
            const char *s;
            if (col_vec_is_null(batch->cols[0], row))
                continue;
            s = col_vec_str(batch->cols[0], row, &len);
            SILT_RETURN_IF_ERROR(api_emit(pc->fn, pc->payload, s, (size_t)len, err));
            if (len == 0 || s[len - 1] != '\n')
                SILT_RETURN_IF_ERROR(api_emit(pc->fn, pc->payload, "\n", 1, err));
        }
    }
}

static silt_status print_result(sql_result *res, void *payload, silt_error *err)
{
    print_ctx *pc = payload;
    api_printer *p = NULL;
    col_batch *batch;
    silt_status rc;
    if (!sql_result_has_rows(res))
        return SILT_OK;
    if (sql_result_is_text(res) && pc->opts->format == SILT_OUTPUT_TABLE)
        return print_text(res, pc, err);
    rc = api_printer_new(&p, pc->fn, pc->payload, sql_result_schema(res), pc->opts,
                         sql_result_zone(res), err);
    while (rc == SILT_OK) {
        rc = sql_result_next(res, &batch, err);
        if (rc != SILT_OK || batch == NULL)
            break;
        rc = api_printer_add(p, batch, err);
        if (rc == SILT_OK && api_printer_full(p))
            break;
    }
    if (rc == SILT_OK)
        rc = api_printer_finish(p, err);
    api_printer_free(p);
    pc->n_printed++;
    return rc;
}

SILT_API silt_status silt_conn_format(silt_conn *conn, const char *sql,
                                      const silt_output_options *opts, silt_text_fn fn,
                                      void *payload)
{
    silt_error err = SILT_ERROR_INIT;
    silt_output_options o;
    print_ctx pc;
    if (conn == NULL)
        return SILT_INVALID;
    if (sql == NULL || fn == NULL)
        return conn_error(conn, err_set(&err, SILT_INVALID, "silt_conn_format needs a statement "
                                        "and a text callback"), &err);
    if (api_output_options(&o, opts, &err) != SILT_OK)
        return conn_error(conn, SILT_INVALID, &err);
    pc.fn = fn;
    pc.payload = payload;
    pc.opts = &o;
    pc.n_printed = 0;
    return conn_error(conn, sql_execute_each(conn->session, sql, print_result, &pc, &err), &err);
}
