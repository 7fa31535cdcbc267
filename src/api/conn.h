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
    /* The root of the arena tree db -> connection -> statement (shared by
     * the connections' threads) and the memory budget all statements share. */
    arena *arena;
    mem_budget *budget;
    char errmsg[ERRMSG_MAX];
};

struct silt_conn {
    silt_db *db;
    sql_session *session;
    char errmsg[ERRMSG_MAX];
};

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
