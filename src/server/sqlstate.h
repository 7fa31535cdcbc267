/*
 * sqlstate.h - the SQLSTATE of an ErrorResponse for a silt error: Spark's
 * sqlState of the error class where Spark gives one that PostgreSQL
 * clients read the same way, PostgreSQL's own code where clients act on
 * it (57014 for a cancelled statement, 25006 for a write in a read-only
 * session), else a code of the error's silt_status.
 */
#ifndef SILT_SERVER_SQLSTATE_H
#define SILT_SERVER_SQLSTATE_H

#include "silt.h"

/* error_class as silt_conn_error_class gives it ("" for none); message the primary message. */
const char *srv_sqlstate(silt_status code, const char *error_class, const char *message);

#endif
