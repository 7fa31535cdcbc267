/*
 * conn.h - the handles of silt/sql.h, shared by the files that implement
 * calls on them (sql.c: open, exec, print; write.c: writes of Arrow streams).
 */
#ifndef SILT_API_CONN_H
#define SILT_API_CONN_H

#include "io/store.h"
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
    silt_error last; /* the last failed call's error, for silt_db_errcode and friends */
    /* Store options (silt_db_set_option): owned keys and values, and the view of
     * them given to every store db opens. */
    char **store_keys;
    char **store_values;
    io_store_options store;
};

struct silt_conn {
    silt_db *db;
    sql_session *session;
    struct silt_stmt *stmts;       /* prepared statements, finalized ones too (stmt.c) */
    struct api_registered *registered; /* Arrow streams queried by name (register.c) */
    char errmsg[ERRMSG_MAX];
    silt_error last; /* the last failed call's error, for silt_conn_errcode and friends */
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

/*
 * Keeps the error of a call on conn (or db): formatted in errmsg and whole in
 * last, both cleared when rc is SILT_OK; returns rc. err may be NULL or
 * unset (a bare code): the message is then the status name.
 */
silt_status api_conn_error(silt_conn *conn, silt_status rc, const silt_error *err);
silt_status api_db_error(silt_db *db, silt_status rc, const silt_error *err);
/* Keeps rc and err in last (cleared for SILT_OK); the one rule behind the two above. */
void api_keep_last(silt_error *last, silt_status rc, const silt_error *err);

#endif
