/*
 * silt/stmt.h - controlling statements on a connection: interrupting the
 * one that runs.
 *
 * See docs/api-statements.md for the rules and examples.
 */
#ifndef SILT_STMT_H
#define SILT_STMT_H

#include <stddef.h>
#include <stdint.h>

#include "silt/arrow.h"
#include "silt/common.h"
#include "silt/sql.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Asks the statement running on conn to stop, like sqlite3_interrupt or
 * Spark's interruptAll. Callable from any thread and from a signal
 * handler (it only sets a flag); conn must stay open during the call.
 *
 * The running statement (or the result stream still being pulled) stops
 * at its next batch boundary and fails with SILT_INTERRUPTED and
 * "[OPERATION_CANCELED] Operation has been canceled."; an interrupted
 * write commits nothing. The request holds until the next statement
 * starts on conn (silt_conn_exec, silt_conn_print, silt_conn_write_arrow,
 * silt_stmt_execute), which clears it: an interrupt while nothing runs
 * has no effect on later statements. Since 0.1.
 */
SILT_API void silt_conn_interrupt(silt_conn *conn);

#ifdef __cplusplus
}
#endif

#endif
