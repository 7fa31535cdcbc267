/*
 * stmt.c - include/silt/stmt.h over sql/session.h: interrupting the
 * statement that runs on a connection.
 */
#include "api/conn.h"
#include "silt/stmt.h"
#include "sql/session.h"

SILT_API void silt_conn_interrupt(silt_conn *conn)
{
    /* one atomic store: safe from another thread and from a signal handler */
    if (conn != NULL)
        sql_session_interrupt(conn->session);
}
