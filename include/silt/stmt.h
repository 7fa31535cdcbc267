/*
 * silt/stmt.h - statements on a connection: interrupting the one that
 * runs, prepared statements with parameters, and a caller's Arrow stream
 * queried as a table.
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

/**
 * The rows that INSERT statements committed on conn since it was opened, a
 * running total (read it before and after a statement for that statement's
 * count, as the server's `INSERT 0 n` does). UPDATE, DELETE and MERGE report
 * theirs in their result (num_affected_rows). Since 0.1.
 */
SILT_API int64_t silt_conn_rows_written(const silt_conn *conn);

/* ---- a caller's Arrow stream as a table ----------------------------------------- */

/**
 * Makes stream queryable by name on conn (`SELECT ... FROM name`, joins
 * with tables included) until silt_conn_unregister or silt_conn_close.
 * name is one part (no dots needed; matched case-insensitively) and hides
 * a temporary view or table of the same name, as Spark's
 * createOrReplaceTempView would; EXPLAIN and DESCRIBE see its schema.
 *
 * Ownership: the library takes the stream in every case, success or
 * failure: *stream is moved (its release set to NULL, like the Arrow
 * "move" convention) and silt releases it exactly once: when a scan has
 * read it to its end, or at unregister / close if it was not, or at once
 * when this call fails. Each record batch is copied as the query pulls it
 * and released at once; the producer's callbacks run on the thread that
 * runs the statement.
 *
 * One read: an Arrow stream can be consumed once, so the first scan that
 * pulls rows from it owns it, and any later scan (a second statement, or
 * a second `FROM name` in the same one, as in a self-join) fails with
 * SILT_INVALID naming the stream. To query the rows again, register a
 * new stream, or copy them first into a table (CREATE TABLE ... AS
 * SELECT * FROM name) or write them with silt_conn_write_arrow.
 *
 * @return SILT_OK; SILT_EXISTS (a stream of that name is registered),
 *         SILT_INVALID (NULL or released stream, empty name, a malformed
 *         schema), SILT_UNSUPPORTED (an Arrow type silt does not read),
 *         SILT_IO (get_schema failed), SILT_NOMEM. Since 0.1.
 */
SILT_API silt_status silt_conn_register_arrow(silt_conn *conn, const char *name,
                                              struct ArrowArrayStream *stream);

/**
 * Drops the registration of name, releasing its stream if it was not
 * released yet. Results still reading it keep it alive until they are
 * released. @return SILT_OK, SILT_NOTFOUND. Since 0.1.
 */
SILT_API silt_status silt_conn_unregister(silt_conn *conn, const char *name);

/* ---- prepared statements ------------------------------------------------------ */

/**
 * A statement parsed once and run many times with new parameter values,
 * in the manner of sqlite3_stmt. Opaque. Since 0.1.
 *
 * Parameter markers are Spark's parameterized SQL's: positional `?` or
 * named `:name`, not both in one statement. Parameters are numbered from
 * 1: the k-th `?` of the text, or the k-th distinct name in the order the
 * names first appear (a name may be used several times; it is one
 * parameter). Each marker stands for a literal of its bound value, as in
 * spark.sql(text, args): a value bound with silt_stmt_bind_int64 is a
 * BIGINT, with silt_stmt_bind_text a STRING, and so on; use CAST(? AS
 * type) for another type. A parameter without a value fails the
 * execution with SILT_BIND and "[UNBOUND_SQL_PARAMETER]".
 *
 * A statement belongs to its connection and is used by the connection's
 * thread. Errors of the calls below are in silt_conn_errmsg() of that
 * connection. After silt_stmt_finalize every call on the handle fails with
 * SILT_INVALID (the handle is a small tombstone of the connection until it
 * closes); silt_conn_close finalizes the statements left.
 */
typedef struct silt_stmt silt_stmt;

/**
 * Parses sql, which must be one statement, into *out (NULL on failure).
 * @return SILT_OK; SILT_PARSE, SILT_BIND ([INVALID_QUERY_MIXED_QUERY_PARAMETERS]
 *         when ? and :name are mixed), SILT_INVALID (not exactly one
 *         statement, NULL arguments), SILT_UNSUPPORTED, SILT_NOMEM. Since 0.1.
 */
SILT_API silt_status silt_stmt_prepare(silt_conn *conn, const char *sql, silt_stmt **out);

/** Number of parameters (0 for a finalized or NULL statement). Since 0.1. */
SILT_API int silt_stmt_param_count(const silt_stmt *stmt);

/** Name of parameter index (1-based) without its colon; NULL for a `?` or out of range. Since 0.1. */
SILT_API const char *silt_stmt_param_name(const silt_stmt *stmt, int index);

/** Index (1-based) of the named parameter "name" (or ":name"); 0 when there is none. Since 0.1. */
SILT_API int silt_stmt_param_index(const silt_stmt *stmt, const char *name);

/**
 * Binds a value to parameter index (1-based) until it is bound again or
 * cleared; the value is copied (text and bytes too). Each returns SILT_OK,
 * SILT_INVALID (index out of range, finalized statement) or SILT_NOMEM.
 * Types: bool BOOLEAN, int32 INT, int64 BIGINT, double DOUBLE, text STRING
 * (len bytes of UTF-8, or up to the NUL when len < 0), blob BINARY, date
 * DATE (days since 1970-01-01), timestamp TIMESTAMP (microseconds since
 * 1970-01-01 00:00:00 UTC), null a NULL of no type (Spark's void). Since 0.1.
 */
SILT_API silt_status silt_stmt_bind_null(silt_stmt *stmt, int index);
SILT_API silt_status silt_stmt_bind_bool(silt_stmt *stmt, int index, int value);
SILT_API silt_status silt_stmt_bind_int32(silt_stmt *stmt, int index, int32_t value);
SILT_API silt_status silt_stmt_bind_int64(silt_stmt *stmt, int index, int64_t value);
SILT_API silt_status silt_stmt_bind_double(silt_stmt *stmt, int index, double value);
SILT_API silt_status silt_stmt_bind_text(silt_stmt *stmt, int index, const char *text,
                                         int64_t len);
SILT_API silt_status silt_stmt_bind_blob(silt_stmt *stmt, int index, const void *bytes,
                                         size_t len);
SILT_API silt_status silt_stmt_bind_date(silt_stmt *stmt, int index, int32_t days);
SILT_API silt_status silt_stmt_bind_timestamp(silt_stmt *stmt, int index, int64_t micros);

/** Unbinds every parameter. Since 0.1. */
SILT_API silt_status silt_stmt_clear_bindings(silt_stmt *stmt);

/**
 * Runs the statement with the values bound now: it is bound again and
 * gets fresh operators, so the same statement gives new results for new
 * values (and sees the tables' latest versions). out receives the result
 * as silt_conn_exec gives it (the same Arrow C stream; it may outlive the
 * statement, not the connection), or is NULL to run to the end. Starting
 * clears a pending silt_conn_interrupt.
 * @return as silt_conn_exec; SILT_BIND with [UNBOUND_SQL_PARAMETER] for a
 *         parameter without a value; SILT_INVALID for a finalized statement.
 *         Since 0.1.
 */
SILT_API silt_status silt_stmt_execute(silt_stmt *stmt, struct ArrowArrayStream *out);

/**
 * Frees the statement's parse tree and values. NULL is fine; finalizing
 * twice is refused (SILT_INVALID). Streams it returned stay valid. Since 0.1.
 */
SILT_API silt_status silt_stmt_finalize(silt_stmt *stmt);

#ifdef __cplusplus
}
#endif

#endif
