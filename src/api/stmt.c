/*
 * stmt.c - include/silt/stmt.h over sql/session.h and sql/prepared.h:
 * interrupting the statement that runs on a connection, and prepared
 * statements.
 *
 * A silt_stmt holds the parsed statement and one value slot per
 * parameter (text and bytes copied into the slot). Statements hang on
 * their connection's list; finalize frees what a statement holds and
 * leaves the small handle on the list as a tombstone, so that a later call
 * on it is refused (SILT_INVALID) instead of touching freed memory; the
 * connection frees the handles when it closes. Errors go to the
 * connection's message, as sqlite3_errmsg reports a statement's.
 */
#include <string.h>

#include "api/conn.h"
#include "silt/stmt.h"
#include "sql/prepared.h"
#include "sql/session.h"
#include "util/mem.h"

SILT_API void silt_conn_interrupt(silt_conn *conn)
{
    /* one atomic store: safe from another thread and from a signal handler */
    if (conn != NULL)
        sql_session_interrupt(conn->session);
}

SILT_API int64_t silt_conn_rows_written(const silt_conn *conn)
{
    return conn != NULL ? sql_session_rows_written(conn->session) : 0;
}

/* ---------------------------------------------------------------- prepared statements */

struct silt_stmt {
    silt_conn *conn;
    sql_prepared *prep; /* NULL once finalized */
    size_t n;
    sql_literal *values;
    uint8_t *set;
    char **owned; /* per parameter: the copy of its text or bytes, or NULL */
    struct silt_stmt *next;
};

static void free_values(silt_stmt *st)
{
    size_t idx;
    for (idx = 0; st->owned != NULL && idx < st->n; idx++)
        mem_free(st->owned[idx]);
    mem_free(st->owned);
    mem_free(st->values);
    mem_free(st->set);
    st->owned = NULL;
    st->values = NULL;
    st->set = NULL;
}

void api_conn_release(silt_conn *conn)
{
    api_conn_free_registered(conn);
    while (conn->stmts != NULL) {
        silt_stmt *st = conn->stmts;
        conn->stmts = st->next;
        sql_prepared_free(st->prep);
        free_values(st);
        mem_free(st);
    }
}

static silt_status fail(silt_conn *conn, silt_status rc, const char *msg)
{
    silt_error err = SILT_ERROR_INIT;
    err_set(&err, rc, "%s", msg);
    return api_conn_error(conn, rc, &err);
}

SILT_API silt_status silt_stmt_prepare(silt_conn *conn, const char *sql, silt_stmt **out)
{
    silt_error err = SILT_ERROR_INIT;
    silt_stmt *st;
    silt_status rc;
    if (out != NULL)
        *out = NULL;
    if (conn == NULL || sql == NULL || out == NULL)
        return conn ? fail(conn, SILT_INVALID, "silt_stmt_prepare needs SQL text "
                           "and a place for the statement") : SILT_INVALID;
    st = mem_calloc(1, sizeof(*st));
    if (st == NULL)
        return api_conn_error(conn, err_nomem(&err), &err);
    st->conn = conn;
    rc = sql_prepare(conn->session, sql, &st->prep, &err);
    if (rc == SILT_OK) {
        st->n = sql_prepared_n_params(st->prep);
        st->values = mem_calloc(st->n + 1, sizeof(sql_literal));
        st->set = mem_calloc(st->n + 1, 1);
        st->owned = mem_calloc(st->n + 1, sizeof(char *));
        if (st->values == NULL || st->set == NULL || st->owned == NULL)
            rc = err_nomem(&err);
    }
    if (rc != SILT_OK) {
        sql_prepared_free(st->prep);
        free_values(st);
        mem_free(st);
        return api_conn_error(conn, rc, &err);
    }
    st->next = conn->stmts;
    conn->stmts = st;
    *out = st;
    return api_conn_error(conn, SILT_OK, &err);
}

SILT_API int silt_stmt_param_count(const silt_stmt *stmt)
{
    return stmt != NULL && stmt->prep != NULL ? (int)stmt->n : 0;
}

SILT_API const char *silt_stmt_param_name(const silt_stmt *stmt, int index)
{
    if (stmt == NULL || stmt->prep == NULL || index < 1 || (size_t)index > stmt->n)
        return NULL;
    return sql_prepared_param_name(stmt->prep, (size_t)index - 1);
}

SILT_API int silt_stmt_param_index(const silt_stmt *stmt, const char *name)
{
    size_t idx;
    if (stmt == NULL || stmt->prep == NULL || name == NULL)
        return 0;
    if (name[0] == ':')
        name++;
    for (idx = 0; idx < stmt->n; idx++) {
        const char *have = sql_prepared_param_name(stmt->prep, idx);
        if (have != NULL && strcmp(have, name) == 0)
            return (int)idx + 1;
    }
    return 0;
}

/* The slot of parameter index, emptied; NULL (error kept on the connection) when there is none. */
static sql_literal *slot(silt_stmt *st, int index)
{
    silt_error err = SILT_ERROR_INIT;
    if (st == NULL)
        return NULL;
    if (st->prep == NULL) {
        fail(st->conn, SILT_INVALID, "the statement was finalized");
        return NULL;
    }
    if (index < 1 || (size_t)index > st->n) {
        err_set(&err, SILT_INVALID, "parameter index %d is out of range: the statement has %zu "
                "parameter%s (numbered from 1)", index, st->n, st->n == 1 ? "" : "s");
        api_conn_error(st->conn, SILT_INVALID, &err);
        return NULL;
    }
    mem_free(st->owned[index - 1]);
    st->owned[index - 1] = NULL;
    memset(&st->values[index - 1], 0, sizeof(sql_literal));
    st->set[index - 1] = 1;
    api_conn_error(st->conn, SILT_OK, NULL);
    return &st->values[index - 1];
}

static silt_status bind_int(silt_stmt *st, int index, sql_lit_kind kind, int64_t v)
{
    sql_literal *lit = slot(st, index);
    if (lit == NULL)
        return SILT_INVALID;
    lit->kind = kind;
    lit->i64 = v;
    return SILT_OK;
}

SILT_API silt_status silt_stmt_bind_null(silt_stmt *stmt, int index)
{
    return bind_int(stmt, index, SQL_LIT_NULL, 0);
}

SILT_API silt_status silt_stmt_bind_bool(silt_stmt *stmt, int index, int value)
{
    return bind_int(stmt, index, SQL_LIT_BOOL, value != 0);
}

SILT_API silt_status silt_stmt_bind_int32(silt_stmt *stmt, int index, int32_t value)
{
    return bind_int(stmt, index, SQL_LIT_INT, value);
}

SILT_API silt_status silt_stmt_bind_int64(silt_stmt *stmt, int index, int64_t value)
{
    return bind_int(stmt, index, SQL_LIT_LONG, value);
}

SILT_API silt_status silt_stmt_bind_date(silt_stmt *stmt, int index, int32_t days)
{
    return bind_int(stmt, index, SQL_LIT_DATE, days);
}

SILT_API silt_status silt_stmt_bind_timestamp(silt_stmt *stmt, int index, int64_t micros)
{
    return bind_int(stmt, index, SQL_LIT_TIMESTAMP, micros);
}

SILT_API silt_status silt_stmt_bind_double(silt_stmt *stmt, int index, double value)
{
    sql_literal *lit = slot(stmt, index);
    if (lit == NULL)
        return SILT_INVALID;
    lit->kind = SQL_LIT_DOUBLE;
    lit->f64 = value;
    return SILT_OK;
}

static silt_status bind_bytes(silt_stmt *st, int index, sql_lit_kind kind, const void *bytes,
                              size_t len)
{
    silt_error err = SILT_ERROR_INIT;
    sql_literal *lit;
    char *copy;
    if (st != NULL && bytes == NULL && len > 0)
        return fail(st->conn, SILT_INVALID, "bound bytes are NULL");
    lit = slot(st, index);
    if (lit == NULL)
        return SILT_INVALID;
    copy = mem_alloc(len + 1);
    if (copy == NULL) {
        st->set[index - 1] = 0;
        return api_conn_error(st->conn, err_nomem(&err), &err);
    }
    if (len > 0)
        memcpy(copy, bytes, len);
    copy[len] = '\0';
    st->owned[index - 1] = copy;
    lit->kind = kind;
    lit->str = copy;
    lit->str_len = len;
    return SILT_OK;
}

SILT_API silt_status silt_stmt_bind_text(silt_stmt *stmt, int index, const char *text,
                                         int64_t len)
{
    if (text == NULL)
        return stmt ? fail(stmt->conn, SILT_INVALID, "bound text is NULL; bind a NULL "
                           "with silt_stmt_bind_null") : SILT_INVALID;
    return bind_bytes(stmt, index, SQL_LIT_STRING, text, len < 0 ? strlen(text) : (size_t)len);
}

SILT_API silt_status silt_stmt_bind_blob(silt_stmt *stmt, int index, const void *bytes,
                                         size_t len)
{
    return bind_bytes(stmt, index, SQL_LIT_BINARY, bytes, len);
}

SILT_API silt_status silt_stmt_clear_bindings(silt_stmt *stmt)
{
    size_t idx;
    if (stmt == NULL)
        return SILT_INVALID;
    if (stmt->prep == NULL)
        return fail(stmt->conn, SILT_INVALID, "the statement was finalized");
    for (idx = 0; idx < stmt->n; idx++) {
        mem_free(stmt->owned[idx]);
        stmt->owned[idx] = NULL;
        stmt->set[idx] = 0;
    }
    api_conn_error(stmt->conn, SILT_OK, NULL);
    return SILT_OK;
}

SILT_API silt_status silt_stmt_execute(silt_stmt *stmt, struct ArrowArrayStream *out)
{
    silt_error err = SILT_ERROR_INIT;
    sql_result *res = NULL;
    silt_status rc;
    if (out != NULL)
        memset(out, 0, sizeof(*out));
    if (stmt == NULL)
        return SILT_INVALID;
    if (stmt->prep == NULL)
        return fail(stmt->conn, SILT_INVALID, "the statement was finalized");
    rc = sql_prepared_execute(stmt->conn->session, stmt->prep, stmt->values, stmt->set,
                              out != NULL ? &res : NULL, &err);
    if (rc == SILT_OK && out != NULL)
        rc = api_stream_from_result(out, res, &err);
    return api_conn_error(stmt->conn, rc, &err);
}

SILT_API silt_status silt_stmt_finalize(silt_stmt *stmt)
{
    if (stmt == NULL)
        return SILT_OK;
    if (stmt->prep == NULL)
        return fail(stmt->conn, SILT_INVALID, "the statement was finalized already");
    sql_prepared_free(stmt->prep);
    stmt->prep = NULL;
    free_values(stmt);
    return SILT_OK;
}
