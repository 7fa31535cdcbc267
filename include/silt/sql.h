/*
 * silt/sql.h - running Spark SQL: databases, connections, results.
 *
 * A silt_db is an open warehouse (or none: paths only); a silt_conn is a
 * session on it with its own current database, settings (SET k = v) and
 * temporary views. Statements are Spark SQL; results leave as Arrow C
 * streams or are formatted like Spark's show() into a caller's callback.
 *
 * Memory: the statements of all connections of a silt_db share one
 * memory budget, the database's memory_limit (silt_db_options.memory_limit,
 * or SET memory_limit = '2GB' in any connection, which changes it for all,
 * as DuckDB's global setting does; default 80% of physical RAM); sorts,
 * joins and aggregations that would pass it spill to files in
 * temp_directory (SET temp_directory = '/path'; default $TMPDIR or /tmp),
 * which are gone when the stream is released. A statement that cannot fit
 * even so fails with SILT_NOMEM and an "[OUT_OF_MEMORY]" message.
 */
#ifndef SILT_SQL_H
#define SILT_SQL_H

#include <stddef.h>
#include <stdint.h>

#include "silt/arrow.h"
#include "silt/common.h"
#include "silt/output.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An open warehouse. Opaque. Since 0.1. */
typedef struct silt_db silt_db;
/** A session on a silt_db. Opaque. Since 0.1. */
typedef struct silt_conn silt_conn;

/** A key and its value (store options of silt_db_options). Since 0.1. */
typedef struct silt_option {
    const char *key;
    const char *value;
} silt_option;

/** Options of silt_db_open; start from SILT_DB_OPTIONS_INIT. Since 0.1. */
typedef struct silt_db_options {
    unsigned version;  /**< SILT_DB_OPTIONS_VERSION (1 up to it is accepted) */
    int n_threads;     /**< worker threads for scans (0 = run on the caller only) */
    /**
     * Options version 2: store options set at open, as silt_db_set_option
     * sets them one by one (copied; NULL with 0 = none).
     */
    const silt_option *store_options;
    size_t n_store_options;
    /**
     * Options version 2: bytes the statements of all connections may hold
     * together before they spill (0 = 80% of physical RAM); SET memory_limit
     * in any connection changes it, RESET goes back to this value (a
     * version 1 struct gets the default).
     */
    int64_t memory_limit;
} silt_db_options;

#define SILT_DB_OPTIONS_VERSION 2
#define SILT_DB_OPTIONS_INIT {SILT_DB_OPTIONS_VERSION, 0, NULL, 0, 0}

/**
 * Opens a database. warehouse is the folder of the catalog (databases and
 * tables by name), or NULL to query paths only (delta.`/p`, csv.`/p`...).
 * opts may be NULL.
 *
 * Like sqlite3_open, *out gets a handle even on failure (unless memory
 * runs out), so that silt_db_errmsg() can say why; close it in every case.
 *
 * @return SILT_OK; SILT_IO or SILT_CORRUPT (the warehouse could not be
 *         read), SILT_NOMEM. Since 0.1.
 */
SILT_API silt_status silt_db_open(silt_db **out, const char *warehouse,
                                  const silt_db_options *opts);

/** The error of the last failed call on db, or "". Borrowed. Since 0.1. */
SILT_API const char *silt_db_errmsg(const silt_db *db);

/**
 * The structured error of the last call on db (silt_db_open,
 * silt_db_set_option; silt_conn_open records only its failures, since
 * connections may be opened from several threads): its status (SILT_OK
 * after success), its Spark error class ("" when it has none) and its
 * primary message (without detail, hint and context lines; "" after
 * success). Strings are borrowed until the next call on db. Since 0.1.
 */
SILT_API silt_status silt_db_errcode(const silt_db *db);
SILT_API const char *silt_db_error_class(const silt_db *db);
SILT_API const char *silt_db_error_message(const silt_db *db);

/**
 * Sets a store option of db: how its tables and files are reached
 * (credentials, endpoints), for every store the database opens from then
 * on. A key no back end of this build acts on is refused by name with
 * SILT_INVALID (nothing accepted is ignored); the local file system takes
 * no options and object-store back ends do not exist yet, so today every
 * key is refused (docs/api.md, "Store options"). One thread at a time, with
 * no connection running a statement. Since 0.1.
 */
SILT_API silt_status silt_db_set_option(silt_db *db, const char *key, const char *value);

/** Closes a database; its connections must be closed first. NULL is fine. Since 0.1. */
SILT_API void silt_db_close(silt_db *db);

/**
 * Opens a connection (a session: current database "default", no
 * settings, no temporary views). A connection is used by one thread at a
 * time; several connections may share a db.
 * @return SILT_OK, SILT_NOMEM or SILT_INVALID (db is NULL). Since 0.1.
 */
SILT_API silt_status silt_conn_open(silt_conn **out, silt_db *db);

/** Closes a connection. Streams it returned must be released first. NULL is fine. Since 0.1. */
SILT_API void silt_conn_close(silt_conn *conn);

/**
 * Makes conn read-only (on != 0) or read-write again: while it is read-only,
 * every statement that writes a table or changes the catalog (CREATE,
 * DROP, ALTER, INSERT, UPDATE, DELETE, MERGE, RESTORE, VACUUM, OPTIMIZE,
 * GENERATE, CONVERT, TRUNCATE, branch and tag statements, persistent
 * views) fails with SILT_INVALID and the message "cannot execute
 * <STATEMENT> in a read-only session", before it reads or writes
 * anything; queries, EXPLAIN, DESCRIBE, SHOW, SET, USE and temporary views
 * run. silt serve uses it for its read-only users. Since 0.1.
 */
SILT_API void silt_conn_set_read_only(silt_conn *conn, int on);

/**
 * Limits conn to the n databases named (copied; n 0 lifts the limit): a
 * statement that reads or writes a catalog table or view of another
 * database, also through a view, fails with SILT_INVALID and "permission
 * denied for database "x"". silt serve uses it for its users with
 * databases= (docs/server.md). Since 0.1.
 * @return SILT_OK, or SILT_NOMEM.
 */
SILT_API silt_status silt_conn_set_databases(silt_conn *conn, const char *const *names,
                                             size_t n);

/**
 * Runs every statement of sql (separated by ';') in order. When out is
 * not NULL it receives the result of the last statement as an Arrow
 * stream (rows are computed as the consumer pulls them; a statement
 * without rows gives a stream of zero columns and no batches); the
 * consumer releases it before closing the connection. Earlier
 * statements run to completion.
 *
 * @return SILT_OK; SILT_PARSE (syntax), SILT_BIND (a name or type that
 *         does not resolve), SILT_NOTFOUND (a table or file), SILT_RUNTIME
 *         (a run-time error on the data such as [DIVIDE_BY_ZERO]),
 *         SILT_INVALID (API misuse, an invalid setting or option),
 *         SILT_UNSUPPORTED, SILT_IO, SILT_CORRUPT, SILT_NOMEM. The message,
 *         with the line and column of the statement, is in
 *         silt_conn_errmsg(); its parts in silt_conn_errcode(),
 *         silt_conn_error_class(), silt_conn_error_message() and
 *         silt_conn_error_position(). Since 0.1.
 */
SILT_API silt_status silt_conn_exec(silt_conn *conn, const char *sql,
                                    struct ArrowArrayStream *out);

/**
 * Runs every statement of sql and formats each result that has rows into
 * fn like Spark's show() (or CSV / JSON lines, per opts; NULL = defaults;
 * EXPLAIN's text as it is). Errors as silt_conn_exec, and SILT_IO when fn
 * stops; the results of the statements before a failing one are given to
 * fn. Since 0.1.
 */
SILT_API silt_status silt_conn_format(silt_conn *conn, const char *sql,
                                      const silt_output_options *opts, silt_text_fn fn,
                                      void *payload);

/**
 * The error of the last call on conn, formatted for a person (message,
 * DETAIL, HINT and CONTEXT lines), or "" after success. Borrowed until the
 * next call on conn. Since 0.1.
 */
SILT_API const char *silt_conn_errmsg(const silt_conn *conn);

/**
 * The status of the last call on conn: SILT_OK after success, else what that
 * call returned. Like sqlite3_errcode. Since 0.1.
 */
SILT_API silt_status silt_conn_errcode(const silt_conn *conn);

/**
 * The Spark error class of the last error on conn ("DIVIDE_BY_ZERO",
 * "TABLE_OR_VIEW_NOT_FOUND", "PARSE_SYNTAX_ERROR", ...; a sub-class is
 * written "CLASS.SUBCLASS"), or "" when the error has none or there is no
 * error. Borrowed until the next call on conn. Since 0.1.
 */
SILT_API const char *silt_conn_error_class(const silt_conn *conn);

/**
 * The primary message of the last error on conn: one line, as it starts
 * silt_conn_errmsg ("[DIVIDE_BY_ZERO] division by zero in ..."), or "".
 * Borrowed until the next call on conn. Since 0.1.
 */
SILT_API const char *silt_conn_error_message(const silt_conn *conn);

/**
 * Where in the SQL text given to the failed call the error is: byte offset
 * from the start of that text (over all its statements), 1-based line and
 * column (in bytes). Returns 1 when a position is known; else 0, with
 * offset -1 and line and column 0. Any out pointer may be NULL. Since 0.1.
 */
SILT_API int silt_conn_error_position(const silt_conn *conn, int64_t *offset, int *line,
                                      int *column);

#ifdef __cplusplus
}
#endif

#endif
