/*
 * silt/sql.h - running Spark SQL: databases, connections, results.
 *
 * A silt_db is an open warehouse (or none: paths only); a silt_conn is a
 * session on it with its own current database, settings (SET k = v) and
 * temporary views. Statements are Spark SQL; results leave as Arrow C
 * streams or are printed like Spark's show().
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

#include <stdint.h>
#include <stdio.h>

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

/** Options of silt_db_open; start from SILT_DB_OPTIONS_INIT. Since 0.1. */
typedef struct silt_db_options {
    unsigned version;  /**< SILT_DB_OPTIONS_VERSION */
    int n_threads;     /**< worker threads for scans (0 = run on the caller only) */
    /**
     * Bytes the statements of all connections may hold together before
     * they spill (0 = 80% of physical RAM); SET memory_limit in any
     * connection changes it, RESET goes back to this value. Since 0.2
     * (version 2; a version 1 struct gets the default).
     */
    int64_t memory_limit;
} silt_db_options;

#define SILT_DB_OPTIONS_VERSION 2
#define SILT_DB_OPTIONS_INIT {SILT_DB_OPTIONS_VERSION, 0, 0}

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
 * Runs every statement of sql (separated by ';') in order. When out is
 * not NULL it receives the result of the last statement as an Arrow
 * stream (rows are computed as the consumer pulls them; a statement
 * without rows gives a stream of zero columns and no batches); the
 * consumer releases it before closing the connection. Earlier
 * statements run to completion.
 *
 * @return SILT_OK; SILT_PARSE (syntax), SILT_BIND (a name or type that
 *         does not resolve), SILT_NOTFOUND (a table or file), SILT_INVALID
 *         (a runtime error such as [DIVIDE_BY_ZERO]), SILT_UNSUPPORTED,
 *         SILT_IO, SILT_CORRUPT, SILT_NOMEM. The message, with the line
 *         and column of the statement, is in silt_conn_errmsg(). Since 0.1.
 */
SILT_API silt_status silt_conn_exec(silt_conn *conn, const char *sql,
                                    struct ArrowArrayStream *out);

/**
 * Runs every statement of sql and prints each result that has rows to
 * file like Spark's show() (or CSV / JSON lines, per opts; NULL =
 * defaults). Errors as silt_conn_exec; results of the statements before a
 * failing one are printed. Since 0.1.
 */
SILT_API silt_status silt_conn_print(silt_conn *conn, const char *sql, FILE *file,
                                     const silt_output_options *opts);

/** The error of the last failed call on conn, formatted for a person, or "". Since 0.1. */
SILT_API const char *silt_conn_errmsg(const silt_conn *conn);

#ifdef __cplusplus
}
#endif

#endif
