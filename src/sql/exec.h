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
    /* the table on the session's branch or tag (branch.c); NULL on main */
    const struct delta_branch_view *view;
    const char *ref;        /* the reference the target is on, NULL: main */
} exec_target;

/* Resolves a table name and loads its latest snapshot when there is one. */
silt_status sql_exec_resolve_target(binder *b, const sql_name *name, exec_target *out,
                                silt_error *err);
/* The target of a write with its @ref (t@etl: on that branch); time travel is refused. */
silt_status sql_exec_resolve_target_at(binder *b, const sql_name *name,
                                       const sql_table_version *at, uint32_t pos,
                                       exec_target *out, silt_error *err);
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
/* T-SQL (tsql.c, docs/serverless.md): CREATE EXTERNAL DATA SOURCE | FILE FORMAT | TABLE, and
 * DROP EXTERNAL DATA SOURCE | FILE FORMAT */
silt_status sql_exec_create_external(binder *b, const sql_stmt *stmt, exec_out *out,
                                     silt_error *err);
silt_status sql_exec_drop_external(binder *b, const sql_stmt *stmt, exec_out *out,
                                   silt_error *err);
silt_status sql_exec_restore(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
silt_status sql_exec_alter_table(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);

/* ---- table evolution (exec_alter.c, docs/evolve.md) ---- */
/* Commits md (and protocol when not NULL) as one transaction of operation op with
 * params (name, value pairs) in its commitInfo.operationParameters. */
silt_status sql_exec_commit_metadata(exec_target *t, const dlog_metadata *md,
                                     const dlog_protocol *protocol, const char *op,
                                     const char *const *params, size_t n_params,
                                     silt_error *err);
/* ALTER TABLE ADD/DROP COLUMNS, RENAME COLUMN, ALTER COLUMN, ADD/DROP CONSTRAINT. */
silt_status sql_exec_alter_schema(binder *b, const sql_stmt *stmt, exec_target *t,
                                  silt_error *err);
/* SET TBLPROPERTIES of delta.columnMapping.mode: the schema md gets (ids, physical names
 * kept as the logical ones, maxColumnId in conf), or a refusal in Delta's words; *changed
 * = 0 when the mode stays. */
silt_status sql_exec_mapping_upgrade(binder *b, exec_target *t, const char *mode,
                                     dlog_metadata *md, dlog_map *conf, int *changed,
                                     silt_error *err);

/* ---- CHECK constraints (exec_constraints.c) ---- */
typedef struct sql_constraints sql_constraints;
/* The expression of a constraint's text, parsed in a. */
silt_status sql_constraint_parse(arena *a, const char *text, sql_expr **out, silt_error *err);
/* Binds ast over schema; [DELTA_NON_BOOLEAN_CHECK_CONSTRAINT] unless it is BOOLEAN. */
silt_status sql_constraint_bind(binder *b, const col_type *schema, const char *name,
                                const char *text, const sql_expr *ast, expr **out,
                                silt_error *err);
/* The table's delta.constraints.* bound over schema (the writer's table schema); *out =
 * NULL when there is none. Lives with the binder's arena. */
silt_status sql_constraints_new(binder *b, const dlog_metadata *md, const col_type *schema,
                                sql_constraints **out, silt_error *err);
/* delta_batch_check_fn: [DELTA_VIOLATE_CONSTRAINT_WITH_VALUES] at the first violating row. */
silt_status sql_constraints_check(void *payload, const col_batch *batch, silt_error *err);
/* The constraint's expression as Delta's messages print it (Spark's sql form). */
const char *sql_constraint_shown(binder *b, const sql_expr *ast);
/* spark_sql_text.c: e as Spark's Expression.sql prints it after Spark's parser; SILT_UNSUPPORTED
 * for a form whose Spark text silt does not know. */
silt_status sql_expr_spark_sql(const sql_expr *e, buf *out, silt_error *err);
/* A constraint's text as Delta stores it: its tokens joined by one space; NULL on a lexical
 * error or no memory. */
const char *sql_constraint_tokens_text(arena *a, const char *text, size_t len);
/* ---- generated columns (exec_generated.c) ---- */
/* Field f's delta.generationExpression in a, or NULL when f is not generated. */
const char *sql_generation_expression(arena *a, const col_field *f);
int sql_schema_has_generated(const col_type *schema);
/* The generated columns that read top-level `column`, as Delta lists them ("b -> a * 2", one
 * a line), or *out = NULL. */
silt_status sql_generated_dependents(binder *b, const col_type *schema, const char *column,
                                     const char **out, silt_error *err);
/* vals[i] = the new value of column i of schema (NULL = none given); each generated column
 * without one gets its expression over the new values: columns without a value read NULL
 * (missing_null, an insert) or their old value (column i of the row, an update; a generated
 * column none of whose inputs change keeps its value). */
silt_status sql_generated_fill(binder *b, const col_type *schema, expr **vals, int missing_null,
                               silt_error *err);
/* INSERT with a column list: p becomes the table's columns with the generated ones computed
 * (and the unlisted others NULL) when a generated column is not listed. */
silt_status sql_generated_insert_project(binder *b, const col_type *table, plan *p,
                                         silt_error *err);
/* CREATE TABLE: checks column `at`'s generation expression as Delta does and records it in
 * f's metadata. */
silt_status sql_generated_create_field(binder *b, const sql_column_list *cols, size_t at,
                                       const col_type *schema, col_field *f, silt_error *err);
/* An identity column's metadata (delta.identity.*). */
typedef struct sql_identity {
    int64_t start, step, hwm;
    int has_hwm;        /* delta.identity.highWaterMark present */
    int allow_explicit; /* GENERATED BY DEFAULT */
} sql_identity;
/* 1 and *out when f is an identity column. */
int sql_identity_column(const col_field *f, sql_identity *out);
/* The first identity column of schema and its metadata, or -1. */
int64_t sql_schema_identity_column(const col_type *schema, sql_identity *out);
/* CREATE TABLE: checks an IDENTITY column as Delta does and records it in f's metadata. */
silt_status sql_identity_create_field(binder *b, const sql_column_def *c, col_field *f,
                                      silt_error *err);
/* Table maintenance (exec_maint.c, docs/maintenance.md). */
silt_status sql_exec_vacuum(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
silt_status sql_exec_optimize(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
silt_status sql_exec_generate(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
/* exec_clone.c: CONVERT TO DELTA; CREATE TABLE ... DEEP CLONE / LIKE into the new table's store. */
silt_status sql_exec_convert(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
silt_status sql_exec_create_copy(binder *b, const sql_stmt *stmt, io_store *target, int managed,
                                 exec_out *out, silt_error *err);
silt_status sql_exec_describe_detail(binder *b, const sql_stmt *stmt, exec_out *out,
                                 silt_error *err);
silt_status sql_exec_describe_history(binder *b, const sql_stmt *stmt, exec_out *out,
                                  silt_error *err);

/* ---- exec_show.c: the catalog's read-only statements, as string cells (row-major) */

/* Spark's simpleString of a type (int, decimal(10,2), struct<a:int>); session.c. */
silt_status sql_spark_type_name(const col_type *t, buf *out, silt_error *err);
/* A Delta table's properties as Spark lists them (configuration, protocol), sorted by key. */
silt_status sql_exec_table_properties(binder *b, const exec_target *t, cat_property **out,
                                      size_t *n_out, silt_error *err);
/* SHOW TBLPROPERTIES / COLUMNS / CREATE TABLE / PARTITIONS and DESCRIBE DATABASE. */
silt_status sql_exec_show(binder *b, const sql_stmt *stmt, const char *const **names,
                          size_t *n_cols, const char ***rows, size_t *n_rows, silt_error *err);
/* DESCRIBE [EXTENDED] t: adds the partition and detail rows to the column rows. */
silt_status sql_exec_describe_more(binder *b, const sql_stmt *stmt, const char ***rows,
                                   size_t *n_rows, silt_error *err);

/* ---- exec_view.c: views kept in the catalog */

silt_status sql_exec_create_view(binder *b, const sql_stmt *stmt, silt_error *err);
/* DROP VIEW of a catalog view; *found 0 (nothing done) when there is none. */
silt_status sql_exec_drop_view(binder *b, const sql_stmt *stmt, int *found, silt_error *err);
silt_status sql_exec_view_describe(binder *b, const sql_stmt *stmt, const cat_table *view,
                                   const char ***rows, size_t *n_rows, silt_error *err);
silt_status sql_exec_view_create_text(binder *b, const cat_table *view, arena *a,
                                      const char ***cells, size_t *n_cells, silt_error *err);
/* The stored column names of a view, in order (n_out 0 when the entry has none). */
silt_status sql_exec_view_columns(binder *b, const cat_table *view, const char ***names_out,
                                  size_t *n_out, const char **namespace_out, silt_error *err);

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
    delta_app_txn app_txn; /* the commit's txn action (sql_exec_app_txn) */
    /* With deletion vectors only (rows left unread stay in their file): the WHERE conjuncts
     * the scan may skip row groups and pages by, and for a DELETE the columns the WHERE
     * reads (the others are not read; NULL = all). */
    const dpred *scan_preds;
    size_t n_scan_preds;
    const char *const *pred_columns;
    size_t n_pred_columns;
} dml_job;

silt_status sql_exec_modify(binder *b, const dml_job *job, delta_dml_metrics *metrics,
                        silt_error *err);

/* Reads operationMetrics keys of commit `version` as numbers (0 when absent). */
silt_status sql_exec_commit_metrics(binder *b, io_store *store, int64_t version,
                                const char *const *keys, int64_t *values, size_t n,
                                silt_error *err);

/* A one-row result of LONG columns (DML's num_affected_rows ...); values NULL = no row, what
 * Delta returns for a DML skipped as already done (sql_exec_app_txn). */
silt_status sql_exec_counts_result(binder *b, const char *const *names, const int64_t *values,
                               size_t n, exec_out *out, silt_error *err);
/* A one-batch result of string columns (cells row-major, NULL = null) in arena a. */
silt_status sql_exec_strings_op(arena *a, engine_ctx *ctx, const char *const *names,
                                size_t n_cols, const char *const *cells, size_t n_rows,
                                const col_type **schema_out, engine_op **op_out, silt_error *err);
/*
 * The session's idempotent-write identifier (SQL_SETTING_TXN_APP_ID and
 * SQL_SETTING_TXN_VERSION, both set; otherwise none) for a write to a
 * table whose snapshot is snap (NULL = a new table): *skip is 1 when the
 * table already has it, and the statement then writes nothing.
 */
silt_status sql_exec_app_txn(binder *b, const delta_snapshot *snap, delta_app_txn *out,
                             int *skip, silt_error *err);
/* Whether a session setting is "true" (case-insensitive). */
int sql_exec_setting_true(const binder *b, const char *key);

/* ---- exec_refs.c: CREATE/DROP/ASSIGN BRANCH|TAG, USE/SHOW REFERENCE, LIST REFERENCES,
 * SHOW LOG, MERGE BRANCH (docs/branches.md) ---- */
silt_status sql_exec_ref(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err);
/* exec_branch_merge.c: MERGE BRANCH b [INTO main] [DRY RUN]. */
silt_status sql_exec_merge_branch(binder *b, const sql_stmt *stmt, exec_out *out,
                                  silt_error *err);

/* source_meta.c: db.t.history, .files, .snapshots, .refs; *found 0 when ref names none. */
silt_status sql_source_meta(binder *b, const sql_table_ref *ref, plan *out, int *found,
                            silt_error *err);

#endif
