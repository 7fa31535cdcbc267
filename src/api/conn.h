/*
 * conn.h - the handles of silt/sql.h, shared by the files that implement
 * calls on them (sql.c: open, exec, print; write.c: writes of Arrow streams).
 */
#ifndef SILT_API_CONN_H
#define SILT_API_CONN_H

#include "silt/sql.h"
#include "sql/session.h"
#include "util/error.h"

#define ERRMSG_MAX 4096

struct silt_db {
    char *warehouse;
    tpool *pool;
    char errmsg[ERRMSG_MAX];
};

struct silt_conn {
    silt_db *db;
    sql_session *session;
    struct silt_stmt *stmts;       /* prepared statements, finalized ones too (stmt.c) */
    struct api_registered *registered; /* Arrow streams queried by name (register.c) */
    char errmsg[ERRMSG_MAX];
};

/* Hands res out as an Arrow C stream (sql.c); res is freed on failure. */
silt_status api_stream_from_result(struct ArrowArrayStream *out, sql_result *res,
                                   silt_error *err);
/* Frees what stmt.c and register.c keep on a connection, at silt_conn_close. */
void api_conn_release(silt_conn *conn);
void api_conn_free_registered(silt_conn *conn);

/* Keeps err formatted in dst (ERRMSG_MAX bytes), or clears dst when rc is SILT_OK; returns rc. */
static inline silt_status api_keep_error(char *dst, silt_status rc, const silt_error *err)
{
    if (rc == SILT_OK)
        dst[0] = '\0';
    else
        err_format(err, dst, ERRMSG_MAX);
    return rc;
}

#endif
