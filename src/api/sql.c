/*
 * sql.c - include/silt/sql.h over sql/session.h: databases, connections,
 * Arrow streams of results and printing.
 *
 * Handles keep the formatted error of their last failed call (STYLE.md,
 * section 3). An Arrow stream owns its sql_result; each exported batch is
 * a copy in its own arena, freed when the consumer releases the array.
 */
#include <string.h>

#include "api/conn.h"
#include "api/output.h"
#include "formats/arrow.h"
#include "silt/sql.h"
#include "sql/session.h"
#include "sql/settings.h"
#include "util/mem.h"

static silt_status keep_error(char *dst, silt_status rc, const silt_error *err)
{
    return api_keep_error(dst, rc, err);
}

/* The database's arena and memory budget (memory_limit since options version 2). */
static silt_status db_memory(silt_db *db, const silt_db_options *opts, silt_error *err)
{
    int64_t limit = settings_default_memory_limit();
    if (opts != NULL && opts->version >= 2 && opts->memory_limit > 0)
        limit = opts->memory_limit;
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
    silt_db *db;
    silt_status rc = SILT_OK;
    if (out == NULL)
        return SILT_INVALID;
    *out = NULL;
    db = mem_calloc(1, sizeof(*db));
    if (db == NULL)
        return SILT_NOMEM;
    *out = db;
    if (warehouse != NULL && (db->warehouse = mem_strdup(warehouse)) == NULL)
        rc = err_nomem(&err);
    if (rc == SILT_OK)
        rc = db_memory(db, opts, &err);
    if (rc == SILT_OK && opts != NULL && opts->n_threads > 0)
        rc = tpool_new(&db->pool, (size_t)opts->n_threads, &err);
    if (rc == SILT_OK && warehouse != NULL) {
        /* Check the warehouse now, so that a wrong folder fails at open. */
        sql_session *probe;
        sql_session_options so = SQL_SESSION_OPTIONS_INIT;
        so.warehouse = warehouse;
        rc = sql_session_new(&probe, &so, &err);
        if (rc == SILT_OK)
            sql_session_free(probe);
    }
    return keep_error(db->errmsg, rc, &err);
}

SILT_API const char *silt_db_errmsg(const silt_db *db) { return db ? db->errmsg : ""; }

SILT_API void silt_db_close(silt_db *db)
{
    if (db == NULL)
        return;
    tpool_free(db->pool);
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
    so.pool = db->pool;
    so.parent = db->arena;
    rc = sql_session_new(&conn->session, &so, &err);
    if (rc != SILT_OK) {
        keep_error(db->errmsg, rc, &err);
        mem_free(conn);
        return rc;
    }
    *out = conn;
    return SILT_OK;
}

SILT_API void silt_conn_close(silt_conn *conn)
{
    if (conn == NULL)
        return;
    sql_session_free(conn->session);
    mem_free(conn);
}

SILT_API const char *silt_conn_errmsg(const silt_conn *conn) { return conn ? conn->errmsg : ""; }

/* ---------------------------------------------------------------- Arrow stream */

typedef struct stream_state {
    sql_result *res;
    char errmsg[ERRMSG_MAX];
} stream_state;

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    stream_state *st = s->private_data;
    silt_error err = SILT_ERROR_INIT;
    silt_status rc = arrow_export_schema(out, sql_result_schema(st->res), &err);
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
    stream_state *st;
    silt_status rc;
    if (conn == NULL || sql == NULL)
        return SILT_INVALID;
    if (out != NULL)
        memset(out, 0, sizeof(*out));
    rc = sql_execute(conn->session, sql, out != NULL ? &res : NULL, &err);
    if (rc != SILT_OK || out == NULL || res == NULL)
        return keep_error(conn->errmsg, rc, &err);
    st = mem_calloc(1, sizeof(*st));
    if (st == NULL) {
        sql_result_free(res);
        return keep_error(conn->errmsg, err_nomem(&err), &err);
    }
    st->res = res;
    out->get_schema = stream_get_schema;
    out->get_next = stream_get_next;
    out->get_last_error = stream_last_error;
    out->release = stream_release;
    out->private_data = st;
    return keep_error(conn->errmsg, SILT_OK, &err);
}

/* ---------------------------------------------------------------- printing */

typedef struct print_ctx {
    FILE *file;
    const silt_output_options *opts;
    int n_printed;
} print_ctx;

/* EXPLAIN and friends: the text of each row as it is, as spark-sql prints it. */
static silt_status print_text(sql_result *res, FILE *file, silt_error *err)
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
            fwrite(s, 1, (size_t)len, file);
            if (len == 0 || s[len - 1] != '\n')
                fputc('\n', file);
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
        return print_text(res, pc->file, err);
    rc = api_printer_new(&p, pc->file, sql_result_schema(res), pc->opts, err);
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

SILT_API silt_status silt_conn_print(silt_conn *conn, const char *sql, FILE *file,
                                     const silt_output_options *opts)
{
    silt_error err = SILT_ERROR_INIT;
    silt_output_options defaults = SILT_OUTPUT_OPTIONS_INIT;
    print_ctx pc;
    if (conn == NULL || sql == NULL || file == NULL)
        return SILT_INVALID;
    pc.file = file;
    pc.opts = opts != NULL ? opts : &defaults;
    pc.n_printed = 0;
    return keep_error(conn->errmsg, sql_execute_each(conn->session, sql, print_result, &pc, &err),
                      &err);
}
