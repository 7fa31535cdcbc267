/*
 * exec.h - statements that change tables: CREATE TABLE [AS SELECT],
 * INSERT, DELETE, UPDATE, MERGE, RESTORE, DESCRIBE HISTORY/DETAIL, and the
 * catalog statements CREATE/DROP DATABASE, DROP TABLE, ALTER TABLE (exec_*.c).
 *
 * Private to the sql layer. Each function runs one statement with the
 * binder of its query arena; a statement that returns rows (DESCRIBE
 * HISTORY, the affected-row counts of DML) sets out->op and out->schema.
 * On any error the table is left as it was: the delta layer commits each
 * statement as one transaction, and data files of a failed one are
 * orphans that VACUUM removes.
 */
#ifndef SILT_SQL_EXEC_H
#define SILT_SQL_EXEC_H

#include "delta/dml.h"
#include "delta/write.h"
#include "sql/binder_int.h"

typedef struct exec_out {
    engine_op *op;          /* NULL: no rows */
    const col_type *schema;
} exec_out;

/* The table a statement writes: a Delta path, or a catalog table. */
typedef struct exec_target {
    const char *path;       /* the table's root folder */
    const char *display;    /* for messages: delta.`/p` or db.t */
    const char *database;   /* catalog tables only, else NULL */
    const char *name;
    int in_catalog;         /* the catalog lists the table */
    int exists;             /* the path holds a Delta table (snapshot loaded) */
    int managed;            /* a managed catalog table */
    io_store *store;        /* owned by the binder's arena */
    delta_snapshot *snap;   /* latest version when exists; owned by the arena */
} exec_target;

/* Resolves a table name and loads its latest snapshot when there is one. */
silt_status sql_exec_resolve_target(binder *b, const sql_name *name, exec_target *out,
                                silt_error *err);
/* SILT_NOTFOUND in Spark's words when the target is not a Delta table. */
silt_status sql_exec_require_table(binder *b, const sql_name *name, const exec_target *t,
                               silt_error *err);

silt_status sql_exec_create_table(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
silt_status sql_exec_insert(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
silt_status sql_exec_delete(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
silt_status sql_exec_update(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
silt_status sql_exec_merge(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
silt_status sql_exec_create_database(binder *b, const sql_stmt *stmt, exec_out *out,
                                 silt_error *err);
silt_status sql_exec_drop(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
silt_status sql_exec_restore(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
silt_status sql_exec_alter_table(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
/* Table maintenance (exec_maint.c, docs/maintenance.md). */
silt_status sql_exec_vacuum(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
silt_status sql_exec_describe_detail(binder *b, const sql_stmt *stmt, exec_out *out,
                                 silt_error *err);
/* DESCRIBE EXTENDED of a Delta table: appends Spark's detail rows (col_name, data_type,
 * comment triples) to the column rows in *cells. */
silt_status sql_exec_describe_extended(binder *b, const sql_stmt *stmt, const char ***cells,
                                   size_t *n_rows, silt_error *err);
silt_status sql_exec_describe_history(binder *b, const sql_stmt *stmt, exec_out *out,
                                  silt_error *err);

/*
 * The session's silt.commit.retryTimeout in ms (0 when
 * unset: the transaction's default). SILT_INVALID naming the setting for a
 * value that is not an interval.
 */
silt_status sql_exec_commit_retry_timeout(binder *b, int64_t *out, silt_error *err);

/*
 * A file filter exact for a predicate that reads only partition columns
 * (pred is where bound over snap's schema): *fn_out NULL when where reads
 * other columns too.
 */
silt_status sql_exec_partition_filter(binder *b, const delta_snapshot *snap, const sql_expr *where,
                                  const expr *pred, delta_file_filter_fn *fn_out,
                                  void **payload_out, silt_error *err);

/*
 * A row predicate for pred (where bound over snap's schema) for the delta layer, and a file
 * filter from the statistics of the conjuncts that can be pushed down (*file_fn_out NULL
 * when none can). Lives in b's arena.
 */
silt_status sql_exec_row_filter(binder *b, const delta_snapshot *snap, const sql_expr *where,
                            const expr *pred, delta_row_predicate_fn *fn_out,
                            void **payload_out, delta_file_filter_fn *file_fn_out,
                            void **file_payload_out, silt_error *err);

/*
 * DELETE (update 0) or UPDATE of a Delta table, run on the engine (exec_modify.c): pred and
 * values are bound over snap's schema; o carries the pruning (file_filter, file_all_match,
 * partition_only) and the history fields (predicate_text, user_metadata, now_ms).
 */
typedef struct dml_job {
    io_store *store;
    const delta_snapshot *snap;
    const expr *pred; /* NULL: every row */
    int update;
    expr **values; /* UPDATE: per table column the new value, NULL = unchanged */
    const delta_dml_options *o;
} dml_job;

silt_status sql_exec_modify(binder *b, const dml_job *job, delta_dml_metrics *metrics,
                        silt_error *err);

/* Reads operationMetrics keys of commit `version` as numbers (0 when absent). */
silt_status sql_exec_commit_metrics(binder *b, io_store *store, int64_t version,
                                const char *const *keys, int64_t *values, size_t n,
                                silt_error *err);

/* A one-row result of LONG columns (DML's num_affected_rows ...). */
silt_status sql_exec_counts_result(binder *b, const char *const *names, const int64_t *values,
                               size_t n, exec_out *out, silt_error *err);
/* A one-batch result of string columns (cells row-major, NULL = null) in arena a. */
silt_status sql_exec_strings_op(arena *a, engine_ctx *ctx, const char *const *names,
                                size_t n_cols, const char *const *cells, size_t n_rows,
                                const col_type **schema_out, engine_op **op_out, silt_error *err);
/* Whether a session setting is "true" (case-insensitive). */
int sql_exec_setting_true(const binder *b, const char *key);

#endif
