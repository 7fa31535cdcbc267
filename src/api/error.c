/*
 * error.c - structured errors of the handles (include/silt/sql.h): the last
 * failed call's status, Spark error class, message and statement position,
 * kept whole in the handle next to its formatted text, as sqlite3_errcode
 * sits next to sqlite3_errmsg.
 */
#include <string.h>

#include "api/conn.h"

void api_keep_last(silt_error *last, silt_status rc, const silt_error *err)
{
    err_clear(last);
    if (rc == SILT_OK)
        return;
    if (err != NULL && err->message[0] != '\0')
        err_copy(last, err);
    last->code = rc; /* the returned code is the call's answer, even if err was set otherwise */
}

static void format_last(char *dst, const silt_error *last)
{
    if (last->code == SILT_OK)
        dst[0] = '\0';
    else
        err_format(last, dst, ERRMSG_MAX);
}

silt_status api_conn_error(silt_conn *conn, silt_status rc, const silt_error *err)
{
    if (conn == NULL)
        return rc;
    api_keep_last(&conn->last, rc, err);
    format_last(conn->errmsg, &conn->last);
    return rc;
}

silt_status api_db_error(silt_db *db, silt_status rc, const silt_error *err)
{
    if (db == NULL)
        return rc;
    api_keep_last(&db->last, rc, err);
    format_last(db->errmsg, &db->last);
    return rc;
}

static int position(const silt_error *last, int64_t *offset, int *line, int *column)
{
    int known = last->line > 0;
    if (offset != NULL)
        *offset = known ? last->offset : -1;
    if (line != NULL)
        *line = known ? last->line : 0;
    if (column != NULL)
        *column = known ? last->column : 0;
    return known;
}

SILT_API silt_status silt_conn_errcode(const silt_conn *conn)
{
    return conn != NULL ? conn->last.code : SILT_INVALID;
}

SILT_API const char *silt_conn_error_class(const silt_conn *conn)
{
    return conn != NULL ? conn->last.error_class : "";
}

SILT_API const char *silt_conn_error_message(const silt_conn *conn)
{
    if (conn == NULL)
        return "";
    if (conn->last.code != SILT_OK && conn->last.message[0] == '\0')
        return silt_status_name(conn->last.code);
    return conn->last.message;
}

SILT_API int silt_conn_error_position(const silt_conn *conn, int64_t *offset, int *line,
                                      int *column)
{
    static const silt_error none = SILT_ERROR_INIT;
    return position(conn != NULL ? &conn->last : &none, offset, line, column);
}

SILT_API silt_status silt_db_errcode(const silt_db *db)
{
    return db != NULL ? db->last.code : SILT_INVALID;
}

SILT_API const char *silt_db_error_class(const silt_db *db)
{
    return db != NULL ? db->last.error_class : "";
}

SILT_API const char *silt_db_error_message(const silt_db *db)
{
    if (db == NULL)
        return "";
    if (db->last.code != SILT_OK && db->last.message[0] == '\0')
        return silt_status_name(db->last.code);
    return db->last.message;
}
