/*
 * session.h - running SQL text: sessions, statements and their results.
 *
 * A session holds what Spark keeps per SparkSession: the current database,
 * `SET key = value` settings (spark.sql.ansi.enabled drives the engine's
 * ANSI mode), temporary views, and the warehouse catalog when one is given.
 * sql_execute parses a text of one or more statements, binds and plans each
 * one (binder.c, plan_*.c, source.c) and runs it; a query gives a result
 * whose batches are pulled one at a time.
 *
 * Memory: arenas form the tree database -> session -> statement: every
 * statement gets a query arena, a child of the session's, freed with its
 * result (so results must be freed before their session); sources register
 * their open files and snapshots as cleanups of that arena, so freeing a
 * result releases everything. Every statement reserves from the memory
 * budget of the tree (sql_session_options.parent): SET memory_limit sets
 * that budget's limit, for every session of the database.
 * Threading: a session is used by one thread at a time; sessions of one
 * database may run on different threads.
 */
#ifndef SILT_SQL_SESSION_H
#define SILT_SQL_SESSION_H

#include <stdio.h>

#include "engine/op.h"
#include "sql/ast.h"
#include "io/store.h"
#include "util/error.h"
#include "util/thread.h"
#include "util/time_zone.h"

typedef struct sql_session sql_session;
typedef struct sql_result sql_result;

typedef struct sql_session_options {
    unsigned version;
    const char *warehouse; /* folder of the catalog, or NULL for none */
    tpool *pool;           /* borrowed, may be NULL */
    /* Tests only: replaces the store of every Delta table a statement reads or writes by
     * name or path with *store wrapped (a fault store taking ownership); NULL = none. */
    silt_status (*wrap_table_store)(io_store **store, void *payload, silt_error *err);
    void *wrap_payload;
    /*
     * The arena of the database (a shared arena, arena_new_shared) under
     * which the session's arena hangs, or NULL for a root. The memory
     * budget every statement reserves from is arena_budget(parent); with
     * none the session makes its own (80% of RAM), so a session alone
     * still has one budget for all its statements.
     */
    arena *parent;
    /* The database's store options (credentials, endpoints), borrowed; NULL = none. */
    const io_store_options *store;
} sql_session_options;

#define SQL_SESSION_OPTIONS_INIT {1, NULL, NULL, NULL, NULL, NULL, NULL}

silt_status sql_session_new(sql_session **out, const sql_session_options *opts, silt_error *err);
void sql_session_free(sql_session *s);
/*
 * Opens the store of a location with the database's store options and then
 * the session's SET fs.s3a.* keys (a later key wins), as every store a
 * statement reads or writes is opened (docs/object-storage.md).
 */
silt_status sql_session_store_open(sql_session *s, const char *location, int create_root,
                                   io_store **out, silt_error *err);
/* The budget the session's statements reserve from (never NULL). */
mem_budget *sql_session_budget(const sql_session *s);

/* The session time zone's key, and its zone (the machine's until SET; docs/time.md). */
#define SQL_SESSION_TIME_ZONE "spark.sql.session.timeZone"
const time_zone *sql_session_zone(const sql_session *s);

/* Value of a setting (NULL when not set). Keys are case-sensitive as in Spark. */
const char *sql_session_get(const sql_session *s, const char *key);

/*
 * Sets a setting (value != NULL) or removes it (value NULL), as SET and
 * RESET do, without their checks: for callers that run statements under
 * settings of their own and restore them afterwards (the C API's write).
 */
silt_status sql_session_set(sql_session *s, const char *key, const char *value,
                            silt_error *err);

/* How long a commit retries after losing races to other writers ("10 minutes", "30 s" in
 * Delta's interval syntax; default 10 minutes): every commit of the session. */
#define SQL_SETTING_COMMIT_RETRY_TIMEOUT "silt.commit.retryTimeout"
/* commitInfo.userMetadata of the session's INSERT, CTAS and REPLACE commits (Spark's conf). */
#define SQL_SETTING_USER_METADATA "spark.databricks.delta.commitInfo.userMetadata"
/*
 * Set by the C API's write around its statement: Spark's SaveMode name
 * (ErrorIfExists, Append, Overwrite, Ignore). A table that statement
 * creates or replaces is recorded as df.write.save(path) records it,
 * WRITE {mode, partitionBy}, not as CREATE [OR REPLACE] TABLE AS SELECT.
 */
#define SQL_SETTING_SAVE_MODE "silt.api.saveMode"
/*
 * Delta's idempotent writes: with both set, every INSERT, CTAS, UPDATE,
 * DELETE and MERGE (and the C API's write) commits a txn action (appId,
 * version) and is skipped when the table already records that appId at
 * that version or a newer one (delta_app_txn). One of them alone fails
 * the write, as in Delta ([DELTA_INVALID_IDEMPOTENT_WRITES_OPTIONS]).
 */
#define SQL_SETTING_TXN_APP_ID "spark.databricks.delta.write.txnAppId"
#define SQL_SETTING_TXN_VERSION "spark.databricks.delta.write.txnVersion"
/*
 * Delta's defaults of new tables' properties: spark.databricks.delta.properties.defaults.X
 * = v gives every table created afterwards delta.X = v unless it sets delta.X itself.
 */
#define SQL_SETTING_PROPERTY_DEFAULTS "spark.databricks.delta.properties.defaults."
/* Codec of the Parquet files the session's writes produce (Spark's conf; default snappy). */
#define SQL_SETTING_PARQUET_CODEC "spark.sql.parquet.compression.codec"

/*
 * Interrupt: sql_session_interrupt sets the session's flag, which every
 * running statement of the session (and every result still being pulled)
 * checks at its batch boundaries: they fail with SILT_INTERRUPTED and
 * "[OPERATION_CANCELED] ...", and a write commits nothing. Callable from
 * any thread and from a signal handler (one lock-free atomic store). The
 * flag stays set until sql_session_clear_interrupt, which the C API calls
 * when it starts a statement.
 */
void sql_session_interrupt(sql_session *s);
void sql_session_clear_interrupt(sql_session *s);

/*
 * Read-only sessions (the server's read-only users): from then on every
 * statement that writes a table or changes the catalog (CREATE, DROP,
 * ALTER, INSERT, UPDATE, DELETE, MERGE, RESTORE, VACUUM, OPTIMIZE,
 * GENERATE, CONVERT, TRUNCATE, branch statements, persistent views) fails
 * with SILT_INVALID and "cannot execute <statement> in a read-only
 * session" before it reads anything. Queries, EXPLAIN, DESCRIBE, SHOW,
 * SET, USE and temporary views still run.
 */
void sql_session_set_read_only(sql_session *s, int on);

/*
 * The rows that INSERT statements (and INSERT OVERWRITE) committed on s, a
 * running total: the server reports a statement's count (INSERT 0 n) as the
 * difference before and after it. Spark's INSERT gives no result to read it from.
 */
int64_t sql_session_rows_written(const sql_session *s);

/*
 * Limits s to databases (n names, copied; n 0 lifts the limit): a catalog
 * table or view of another database, read or written, directly or through a
 * view, fails with SILT_INVALID and "permission denied for database "x"".
 * silt serve sets it for its users with databases=.
 */
silt_status sql_session_set_databases(sql_session *s, const char *const *names, size_t n,
                                      silt_error *err);
/* SILT_OK when s may use database db, else the error above set on err. */
silt_status sql_session_check_database(const sql_session *s, const char *db, silt_error *err);

/*
 * Binds a source of batches to a table name for the statements run next,
 * until sql_session_unbind_source: `FROM name` reads it through fn, which
 * gives batches of schema (a STRUCT, borrowed until unbound) in
 * batch_arena, *out = NULL at the end. A bound name hides a temporary
 * view or table of the same one-part name. The source is read as the
 * statement pulls it, once: the caller makes sure a statement reads it at
 * most once. This is how the C API writes a caller's Arrow stream through
 * the INSERT and CREATE TABLE AS SELECT code.
 */
typedef silt_status (*sql_batch_fn)(void *payload, arena *batch_arena, col_batch **out,
                                     silt_error *err);
silt_status sql_session_bind_source(sql_session *s, const char *name, const col_type *schema,
                                    sql_batch_fn fn, void *payload, silt_error *err);
void sql_session_unbind_source(sql_session *s, const char *name);

/*
 * The same with a scan of its own for every `FROM name` of a statement:
 * open(payload, a, &fn, &scan_payload) is called when the statement is
 * bound, with the statement's arena a (cleanups registered on it run when
 * the statement is freed), and the scan reads fn(scan_payload). This is
 * how a source read once (the C API's registered Arrow streams) tells a
 * second scan from the first.
 */
typedef silt_status (*sql_scan_open_fn)(void *payload, arena *a, sql_batch_fn *fn,
                                        void **scan_payload, silt_error *err);
silt_status sql_session_bind_scans(sql_session *s, const char *name, const col_type *schema,
                                   sql_scan_open_fn open, void *payload, silt_error *err);

/*
 * Runs every statement of text in order. *out (may be NULL) receives the
 * result of the last statement; earlier results are run to the end and
 * dropped. Errors carry the statement's position in their context.
 * Callback form: when each_fn is not NULL it is called for every statement's
 * result (the callback consumes it, the session frees it afterwards).
 */
typedef silt_status (*sql_result_fn)(sql_result *res, void *payload, silt_error *err);
silt_status sql_execute(sql_session *s, const char *text, sql_result **out, silt_error *err);
silt_status sql_execute_each(sql_session *s, const char *text, sql_result_fn each_fn,
                             void *payload, silt_error *err);

/*
 * Streaming statements (CREATE [OR REFRESH] STREAMING TABLE, REFRESH
 * STREAMING TABLE) belong to the stream layer above this one: the layer
 * that opens sessions (api/) hands its runner here, and the statements
 * fail as unsupported in a session without one. The runner is called with
 * the session, the parsed statement and the whole text; it runs its
 * micro-batches in sessions of its own (sql_session_new_sibling), never in
 * s while s is running the statement.
 */
typedef silt_status (*sql_stream_fn)(void *payload, sql_session *s, const sql_stmt *stmt,
                                     const char *text, size_t len, silt_error *err);
void sql_session_set_stream_runner(sql_session *s, sql_stream_fn fn, void *payload);
/*
 * A new session of the same database as s: its warehouse, pool, store
 * options, budget, test hooks, stream runner, current database and SET
 * settings (copied now; temporary views are not). Freed with
 * sql_session_free.
 */
silt_status sql_session_new_sibling(sql_session *s, sql_session **out, silt_error *err);
/*
 * A schema written as Spark's DDL string ('a INT, b STRING') as a STRUCT in
 * arena a; SILT_PARSE naming the text when it is not a column list.
 */
silt_status sql_parse_ddl_schema(arena *a, const char *ddl, const col_type **out,
                                 silt_error *err);

/* The STRUCT type of a result's rows (Spark's column names). */
const col_type *sql_result_schema(const sql_result *res);
/* 1 for a query (or a statement that returns rows to show), 0 for a status only. */
int sql_result_has_rows(const sql_result *res);
/* 1 when the result is text to print as is (EXPLAIN): one STRING column. */
int sql_result_is_text(const sql_result *res);
/* The session time zone the statement ran in (how its TIMESTAMPs are shown). */
const time_zone *sql_result_zone(const sql_result *res);
/*
 * Next batch (dense, no selection) in *out, or *out = NULL at the end. The
 * batch lives until the next call. For an Arrow export,
 * sql_result_next_owned gives in *owner_out an arena, owned by the caller,
 * that holds the batch: the root operator's batch arena itself when the
 * whole batch was made in it (no copy), else a copy of the live rows.
 */
silt_status sql_result_next(sql_result *res, col_batch **out, silt_error *err);
silt_status sql_result_next_owned(sql_result *res, col_batch **out, arena **owner_out,
                                  silt_error *err);
void sql_result_free(sql_result *res);

#endif
