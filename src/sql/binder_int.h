/*
 * binder_int.h - private to the SQL binder, planner and sources.
 *
 * The binder resolves names against scopes and builds the physical plan
 * directly: a query becomes an engine_op tree whose output columns are
 * described by a bind_scope (qualifier, name, type per column). There is no
 * separate logical plan yet; the one optimisation done is pushing simple
 * `column op literal` conjuncts of WHERE into the scan of a single table
 * (Delta file pruning, Parquet row-group skipping).
 *
 * Everything lives in the statement's query arena (binder.a).
 */
#ifndef SILT_SQL_BINDER_INT_H
#define SILT_SQL_BINDER_INT_H

#include "catalog/catalog.h"
#include "delta/stats.h"
#include "engine/op.h"
#include "sql/ast.h"
#include "sql/lexer.h"
#include "sql/session.h"
#include "util/buf.h"

/* A temporary view: a query text, or a source with options. */
typedef struct sql_view {
    const char *name;
    const char *query_text;  /* CREATE VIEW ... AS query: the query's text */
    const char *format;      /* USING fmt */
    size_t n_options;
    const char **options;    /* key, value, key, value ... */
    struct sql_view *next;
} sql_view;

/* A source of batches bound by the caller (sql_session_bind_source). */
typedef struct sql_bound_source {
    const char *name;
    const col_type *schema;
    sql_batch_fn fn;
    void *payload;
    sql_scan_open_fn open; /* NULL: every scan reads fn(payload) */
    struct sql_bound_source *next;
} sql_bound_source;

typedef struct sql_setting {
    char *key;
    char *value;
    struct sql_setting *next;
} sql_setting;

struct sql_session {
    sql_line_memo line_memo; /* positions in the script being run (reset per script) */
    arena *arena;            /* settings, views: live with the session */
    char *database;
    sql_setting *settings;
    sql_view *views;
    sql_bound_source *bound;  /* caller's sources, looked up before views */
    io_store *warehouse;     /* NULL without a catalog */
    catalog *cat;
    tpool *pool;
    silt_status (*wrap_table_store)(io_store **store, void *payload, silt_error *err);
    void *wrap_payload;
    /* The parameter values of the prepared statement being bound (prepared.c); NULL = none. */
    const struct sql_param_run *params;
    /*
     * The logical plan a prepared statement keeps (plan.h), set by
     * prepared.c for the time of one execution; NULL = none.
     */
    struct sql_plan_keep *keep;
    /* Counts SET and RESET: a kept plan bound under other settings is bound again. */
    uint64_t settings_gen;
    /* Set by sql_session_interrupt (any thread), seen by the statements' engine_ctx. */
    atomic_int interrupt;
    mem_budget *budget;     /* the database's (or own_budget) */
    mem_budget *own_budget; /* made when the session has no database */
    const io_store_options *store_opts; /* the database's, borrowed; NULL = none */
    /* sql_session_set_read_only: statements that write or change the catalog are refused. */
    int read_only;
    /* sql_session_set_databases: the only databases statements may name; n 0 = any. */
    char **allowed_dbs;
    size_t n_allowed_dbs;
    /* Rows INSERT statements wrote on the session, a running total (sql_session_rows_written). */
    int64_t rows_written;
    arena *parent;          /* sql_session_options.parent, for sql_session_new_sibling */
    /* Runs the streaming statements (sql_session_set_stream_runner); NULL = none. */
    sql_stream_fn stream_fn;
    void *stream_payload;
    /* The statement being run calls input_file_name() (session.c, binder.want_file_name). */
    int stmt_file_name;
};

typedef struct bind_col {
    const char *qual;        /* table alias or name, NULL when none */
    const char *name;
    const col_type *type;
    int hidden;              /* planner's own column: not in SELECT *, not nameable */
} bind_col;

typedef struct bind_scope {
    size_t n;
    bind_col *cols;
} bind_scope;

/*
 * A source that can also be read in parallel morsels (a Delta table: one
 * morsel per file). Valid only while plan.op is `top` (the scan itself,
 * or the WHERE filter right above it, whose predicate is `filter`).
 */
typedef struct plan_morsels {
    engine_op *top;
    engine_morsel_fn fn;
    void *payload;
    size_t n;
    const col_type *schema;
    const expr *filter;
} plan_morsels;

typedef struct plan {
    engine_op *op;
    bind_scope scope;
    plan_morsels morsels;
} plan;

typedef struct bind_cte {
    const sql_cte *cte;
    struct bind_cte *next;
} bind_cte;

/* What EXPLAIN prints about a scan: pushed filters, files and partitions skipped. */
typedef struct scan_note {
    const char *text;
    /*
     * The operator the note is about (a scan, a join, a parallel operator),
     * or NULL: EXPLAIN prints the note under it. A scan's notes also carry
     * its morsel source's payload, by which a parallel aggregate (whose
     * workers read the source without the scan operator) finds them.
     */
    const engine_op *op;
    const void *payload;
    int shown; /* printed in the tree by the EXPLAIN being written */
    struct scan_note *next;
} scan_note;

/*
 * An uncorrelated subquery of the statement: planned while binding, run
 * before the statement's operators open (the prologue of its root,
 * sql_plan_subqueries_attach), or at once while binding statements that
 * evaluate expressions themselves (DELETE, UPDATE, MERGE, INSERT).
 */
typedef enum bind_sq_kind {
    BIND_SQ_SCALAR, /* its one value, NULL over no rows */
    BIND_SQ_IN,     /* operand IN (its rows), SQL's three values */
    BIND_SQ_EXISTS
} bind_sq_kind;

typedef struct bind_subquery {
    bind_sq_kind kind;
    int negated;             /* NOT IN, NOT EXISTS */
    int id;                  /* subquery#id in EXPLAIN */
    const sql_expr *ast;     /* the SQL_EXPR_SUBQUERY / IN_QUERY / EXISTS, or NULL */
    const col_type *in_type; /* IN: the operand's type after coercion */
    engine_op *op;           /* its plan */
    expr_slot slot;          /* its value, once run */
    int line, col;           /* where it is, for errors raised when it runs */
    arena *a;                /* the statement arena: values and rows */
    struct bind_subquery *next;
} bind_subquery;

typedef struct binder {
    sql_session *s;
    arena *a;
    engine_ctx *ctx;
    const char *text;        /* the statement text (for positions and names) */
    size_t text_len;
    sql_line_memo *line_memo; /* the session's, for positions in text (may be NULL) */
    bind_cte *ctes;
    scan_note *notes;
    int depth;
    /* Views being expanded, innermost first: a view met again is a cycle. */
    struct view_frame *views;
    /* Correlated scalar subqueries already joined in: their value columns. */
    struct scalar_subst *substs;
    /* WINDOW w AS (...) of the SELECT being bound (OVER w). */
    size_t n_windows;
    const sql_named_window *windows;
    /*
     * Uncorrelated subqueries, in the order they must run (one inside
     * another comes first). With defer_subqueries they run when the plan
     * opens (EXPLAIN runs none); without, as soon as they are bound.
     */
    int defer_subqueries;
    bind_subquery *subqueries;
    int n_subqueries;
    /* The Delta snapshots this execution loaded (source.c): each table once per execution. */
    struct sql_snap_entry *snaps;
    /*
     * Where this execution's snapshots and stores live when a kept logical
     * plan is bound into an arena of its own (b->a); NULL: b->a.
     */
    arena *exec_a;
    /*
     * The columns the enclosing block names from the FROM subquery about to
     * be planned (plan_query.c), taken by that subquery's SELECT block: a
     * star there need not read the rest. NULL: every column.
     */
    const struct pushdown *derived_want;
    /* Branch-local commits this statement made (branch.c), recorded in the reference after it. */
    struct sql_branch_write *branch_writes;
    /* INSERT INTO t@ref[#hash]: the reference the target is resolved on (NULL: the session's) */
    const char *target_ref;
    /*
     * The statement calls input_file_name(): file sources and Delta scans
     * add their hidden file name column (source_files.h).
     */
    int want_file_name;
    /*
     * The catalog states this statement reads tables on, loaded once
     * (source.c, docs/branches.md "Readers"): the session's reference and
     * main's head, so every table of one statement comes from one state.
     */
    struct cat_state *cat_pin, *main_pin;
    struct sql_main_table *main_tables; /* the main tables resolved on them (source.c) */
} binder;

typedef struct scalar_subst {
    const sql_expr *node;    /* the SQL_EXPR_SUBQUERY */
    int64_t col;             /* its value column in the current scope */
    const col_type *type;
    /*
     * Scalar subquery: its value over no rows, read where the join found no
     * match (matched, the column after the value, is NULL); NULL for EXISTS,
     * which reads matched alone.
     */
    expr *empty;
    struct scalar_subst *next;
} scalar_subst;

/* Collects the SQL_EXPR_SUBQUERY and SQL_EXPR_EXISTS nodes of ast (not inside nested queries). */
silt_status sql_bind_find_subqueries(binder *b, const sql_expr *ast, const sql_expr ***list,
                                 size_t *n, size_t *cap, silt_error *err);
/* The same, only inside the arguments of aggregate calls (evaluated before the aggregation). */
silt_status sql_bind_find_agg_subqueries(binder *b, const sql_expr *ast, const sql_expr ***list,
                                     size_t *n, size_t *cap, silt_error *err);

typedef struct view_frame {
    const char *name;
    struct view_frame *next;
} view_frame;

/*
 * WHERE conjuncts offered to a single-table source: it keeps those of the
 * form `column op literal` (or IS [NOT] NULL) that name its own columns and
 * uses them to skip files and row groups. The filter above still applies
 * every conjunct, so a source may ignore any of them.
 */
typedef struct pushdown {
    size_t n;
    const sql_expr **conj;
    const char *qual; /* the table's alias or name, for qualified columns */
    /*
     * Columns the query names anywhere (last name part; a superset is
     * fine): a source reads only these. all_cols when a star or something
     * not analysed needs every column.
     */
    int all_cols;
    size_t n_cols;
    const char **cols;
    /*
     * WHERE conjuncts that a join may apply to its inputs before joining
     * (plan_join only; sources ignore them, the WHERE filter still runs).
     */
    size_t n_where;
    const sql_expr **where;
} pushdown;

/* ---- pushdown (pushdown.c) ---- */
/*
 * The conjuncts of pd that file or row-group statistics can refute, as
 * dpreds over schema's top-level columns (*out in the query arena; a
 * BETWEEN gives two). 0 when none fits (or memory ran out: pruning is
 * optional, the rows are filtered anyway).
 */
size_t sql_pushdown_preds(binder *b, const pushdown *pd, const col_type *schema, dpred **out);
/* Index of the top-level field named name (case-insensitive), -1 when absent. */
int64_t sql_pushdown_schema_col(const col_type *schema, const char *name);

/* The column names an expression mentions (for the scan's projection). */
typedef struct name_set {
    size_t n, cap;
    const char **names;
    int all;
} name_set;
silt_status sql_bind_collect_names(binder *b, const sql_expr *ast, name_set *set, silt_error *err);

#define SQL_BIND_MAX_DEPTH 400

/* ---- errors (binder.c) ---- */
silt_status sql_bind_error(binder *b, silt_error *err, uint32_t pos, silt_status code,
                       const char *fmt, ...) SILT_PRINTF(5, 6);
void sql_bind_note(binder *b, const char *fmt, ...) SILT_PRINTF(2, 3);
/* The last note made, or NULL (a mark for sql_bind_note_attach). */
scan_note *sql_bind_note_last(binder *b);
/* Attaches the notes made after mark (NULL: all) that have no operator yet to op. */
void sql_bind_note_attach(binder *b, scan_note *mark, const engine_op *op, const void *payload);
/* Attaches the last note made to op (the note just written about it). */
void sql_bind_note_on(binder *b, const engine_op *op);

/* ---- expressions (binder_expr.c) ---- */

/* Aggregation state of a SELECT: group keys and the aggregates found so far. */
typedef struct agg_key {
    const sql_expr *ast;
    const char *text;       /* canonical text of the AST, to match select items */
    expr *e;                /* over the input */
    int64_t input_col;      /* the input column when the key is a plain column, else -1 */
} agg_key;

typedef struct agg_call {
    const char *text;
    engine_agg agg;
    const col_type *type;
} agg_call;

typedef struct agg_state {
    const bind_scope *input;
    size_t n_keys;
    agg_key *keys;
    size_t n_aggs, cap_aggs;
    agg_call *aggs;
    int grouping_sets;      /* a spark_grouping_id column follows the aggregates */
    /* grouping()/grouping_id() read spark_grouping_id, whose index is known at the end. */
    size_t n_gid_refs, cap_gid_refs;
    expr **gid_refs;
    /* Select aliases HAVING may name (Spark resolves them after input columns). */
    size_t n_aliases;
    const char **alias_names;
    const sql_expr **alias_exprs;
} agg_state;

/* Window functions found while binding select items / ORDER BY. */
typedef struct win_call {
    const char *text;
    const sql_window *spec;
    engine_window_fn fn;
    expr **partition;       /* over the current scope */
    size_t n_partition;
    expr **order;
    engine_sort_key *order_keys;
    size_t n_order;
    expr *result;           /* the EXPR_COLUMN patched to the output column */
    const col_type *type;
} win_call;

typedef struct win_state {
    size_t n, cap;
    win_call *calls;
} win_state;

typedef struct bind_ctx {
    const bind_scope *scope; /* the columns an expression may name */
    agg_state *agg;          /* non-NULL: bind over the aggregation's output */
    win_state *win;          /* non-NULL: window functions allowed */
    const bind_scope *outer; /* unused: correlated subqueries are not supported */
} bind_ctx;

silt_status sql_bind_expr(binder *b, const bind_ctx *bc, const sql_expr *ast, expr **out,
                      silt_error *err);
/* Canonical text of an expression (for matching GROUP BY keys). */
const char *sql_bind_expr_text(binder *b, const sql_expr *ast);
/* A binary operator as Spark writes it in a name or an expression's sql ("+", "div", "AND"). */
const char *sql_op_spark_symbol(sql_op op);
/* Spark's generated column name for a select item without alias. */
const char *sql_bind_column_name(binder *b, const sql_expr *ast);
int sql_bind_is_agg_name(const char *name);
int sql_bind_has_agg(const sql_expr *ast);
int sql_bind_has_window(const sql_expr *ast);
/* 1 when ast holds a subquery (scalar, IN or EXISTS). */
int sql_bind_has_subquery(const sql_expr *ast);
/* Resolves a column name in scope: index or -1 with an error set. */
silt_status sql_bind_resolve_column(binder *b, const bind_scope *scope, const sql_name *name,
                                int64_t *idx_out, size_t *n_used_out, silt_error *err);
/* A literal expression from row `row` of vector v. */
silt_status sql_value_literal(arena *a, const col_vec *v, int64_t row, expr **out,
                              silt_error *err);
silt_status sql_bind_value_literal(binder *b, const col_vec *v, int64_t row, expr **out,
                               silt_error *err);

/* ---- uncorrelated subqueries (plan_subquery.c) ---- */
/*
 * The node reading the value of subquery ast when it was planned already
 * (the same select item bound again, for ORDER BY or a retried binding),
 * which then runs once; *out NULL when it was not. IN: arg is the operand.
 */
silt_status sql_plan_subquery_bound(binder *b, const sql_expr *ast, expr *arg, expr **out,
                                silt_error *err);
/*
 * Registers the plan op of an uncorrelated subquery (ast may be NULL: the
 * planner's own, such as a correlated subquery's value over no rows) and
 * makes *out, the node that reads its value. IN: arg is the operand.
 */
silt_status sql_plan_subquery_node(binder *b, bind_sq_kind kind, const sql_expr *ast, engine_op *op,
                               expr *arg, int negated, expr **out, silt_error *err);
/* Makes p's root run the deferred subqueries first, every time it opens. */
silt_status sql_plan_subqueries_attach(binder *b, plan *p, silt_error *err);
/* The subquery a node reads (EXPR_SUBQUERY), or NULL. */
const bind_subquery *sql_plan_subquery_of(const binder *b, const expr *e);

/* ---- queries (plan_query.c) ---- */
/*
 * A statement's query: sql_plan_query, then its deferred subqueries attached
 * to the root (what a query, EXPLAIN and DESCRIBE QUERY plan).
 */
silt_status sql_plan_statement_query(binder *b, const sql_query *q, plan *out, silt_error *err);
silt_status sql_plan_query(binder *b, const sql_query *q, plan *out, silt_error *err);
/* Projects p to exprs (names given); the new scope has no qualifier. */
silt_status sql_plan_project(binder *b, plan *p, expr **exprs, const char **names, size_t n,
                         silt_error *err);
silt_status sql_plan_select(binder *b, const sql_query *q, plan *out, silt_error *err);
/* A select item's column name: its alias, a column's own name, or Spark's generated one. */
const char *sql_plan_item_name(binder *b, const sql_select_item *it);
/*
 * The output column an ORDER BY item names among n select items (names,
 * and texts: each item's canonical text, NULL for a star's column): an
 * ordinal, a select item's name, or a select item's expression; -1 when
 * none (it sorts by a hidden key), -2 for an ordinal out of range.
 */
int64_t sql_plan_order_output_col(binder *b, const sql_expr *e, size_t n, const char *const *names,
                                  const char *const *texts);
/*
 * ORDER BY keys over p's columns (none: LIMIT/OFFSET only, or nothing) with
 * limit (-1: none) and offset: a sort (top-N, parallel per worker when
 * it is small and p's chain runs on every worker), or a limit.
 */
silt_status sql_plan_sort_limit(binder *b, plan *p, const engine_sort_key *keys, size_t n_keys,
                                int64_t limit, int64_t offset, silt_error *err);
/* LIMIT and OFFSET of q as constants (-1 and 0 when absent); negative or unfoldable ones refused. */
silt_status sql_plan_limit_values(binder *b, const sql_query *q, int64_t *limit, int64_t *offset,
                                  silt_error *err);
/*
 * WHERE over scope: conj[0..n_conj) bound and ANDed into *pred (the whole
 * where when n_conj is 0), skipping those skip marks (NULL: none); each
 * must be boolean. bound (NULL: not wanted) gets each conjunct's
 * expression. The caller has refused aggregates in WHERE.
 */
silt_status sql_plan_bind_where(binder *b, const bind_scope *scope, const sql_expr *where,
                                const sql_expr **conj, size_t n_conj, const uint8_t *skip,
                                expr **pred, expr **bound, silt_error *err);
/* ORDER BY / LIMIT / OFFSET of a non-SELECT query, over its output columns. */
silt_status sql_plan_order_limit(binder *b, const sql_query *q, plan *p, silt_error *err);
/* FROM items joined; conj are the WHERE conjuncts (pushdown and comma-join keys). */
silt_status sql_plan_from(binder *b, const sql_select *sel, const sql_expr **conj, size_t n_conj,
                      const name_set *want, plan *out, silt_error *err);
/* Distinct rows of p (a hash aggregate on every column). */
silt_status sql_plan_distinct(binder *b, plan *p, silt_error *err);
silt_status sql_plan_table_ref(binder *b, const sql_table_ref *ref, const pushdown *pd, plan *out,
                           silt_error *err);

/* ---- sources (source.c) ---- */
silt_status sql_source_named(binder *b, const sql_table_ref *ref, const pushdown *pd, plan *out,
                         silt_error *err);
/* A bound source named by ref (*found = 0 when there is none of that name). */
silt_status sql_source_bound(binder *b, const sql_table_ref *ref, plan *out, int *found,
                         silt_error *err);
/* pd (may be NULL): the columns the query names, so a CSV source reads only those */
/* T-SQL's OPENROWSET(BULK ...) [WITH (...)] (tsql.c, docs/serverless.md). */
silt_status sql_source_openrowset(binder *b, const sql_table_ref *ref, const pushdown *pd,
                                  plan *out, silt_error *err);
silt_status sql_source_function(binder *b, const sql_table_ref *ref, const pushdown *pd, plan *out,
                                silt_error *err);
/* A source over a format and path with string options (views USING, read_files). */
silt_status sql_source_path(binder *b, const char *format, const char *path, const char **kv,
                        size_t n_kv, const pushdown *pd, int64_t version, int64_t ts_micros,
                        plan *out, uint32_t pos, silt_error *err);
/* The change data feed options of a Delta source (readChangeFeed and its bounds). */
typedef struct sql_cdf_read {
    int on;                        /* readChangeFeed (or readChangeData) 'true' */
    int64_t start_version, end_version;  /* -1 when not given */
    const char *start_timestamp, *end_timestamp; /* the option texts, NULL when not given */
} sql_cdf_read;
/*
 * A Delta source's options (source_options.c): versionAsOf / timestampAsOf
 * into *version / *ts_micros (left as they are when absent), the change
 * data feed options into *cdf (Delta's checks of their values and
 * combinations), unknown ones refused.
 */
silt_status sql_source_delta_options(const char **kv, size_t n_kv, int64_t *version,
                                     int64_t *ts_micros, sql_cdf_read *cdf, silt_error *err);
/* The latest snapshot of the Delta table at path, through the execution's snapshot cache. */
silt_status sql_source_delta_snapshot(binder *b, const char *path, io_store **store_out,
                                      delta_snapshot **snap_out, silt_error *err);
/* ---- the change data feed (source_cdf.c) ---- */
struct delta_cdf_bound;
/* The bounds of cdf's options (timestamps read in the session time zone). */
silt_status sql_source_cdf_bounds(binder *b, const sql_cdf_read *cdf,
                                  struct delta_cdf_bound *start, struct delta_cdf_bound *end,
                                  silt_error *err);
/* A scan of the changes of the Delta table at path between the bounds (resolved as Delta). */
silt_status sql_source_cdf(binder *b, const char *path, const struct delta_cdf_bound *start,
                           const struct delta_cdf_bound *end, plan *out, const char *qual,
                           silt_error *err);
/* table_changes('t', start [, end]) / table_changes_by_path('/p', ...) (by_path 1). */
silt_status sql_source_table_changes(binder *b, const sql_table_ref *ref, int by_path, plan *out,
                                     silt_error *err);
/* A Parquet source's options: path only; any other is refused by name (none is read yet). */
silt_status sql_source_parquet_options(const char **kv, size_t n_kv, silt_error *err);
/*
 * The schema of the Delta table a FROM item names (`delta.`p``, a path
 * string, or a catalog table of provider delta, with its time travel),
 * through the execution's snapshot cache (the lowering of the same
 * execution reuses the snapshot); *schema NULL when ref is not such a
 * table (a view, a bound source, another format). *version_out: the
 * version read; *qual_out: what qualifies its columns.
 */
silt_status sql_source_delta_schema(binder *b, const sql_table_ref *ref, const col_type **schema,
                                   const char **path_out, int64_t *version_out,
                                   const char **qual_out, silt_error *err);
/* 1 when the session has a bound source of that name (sql_session_bind_source). */
int sql_source_bound_exists(const sql_session *s, const char *name);
/*
 * The top-level columns of schema the pushdown names, in schema order;
 * NULL (read all) when it does not know or names all. At least one column
 * is kept, so that count(*) still sees the rows.
 */
const char **sql_source_projected(binder *b, const pushdown *pd, const col_type *schema,
                                  size_t *n_out);
/* A Spark DDL schema string ('a INT, b STRING') as a STRUCT type in b's arena. */
silt_status sql_source_ddl_schema(binder *b, const char *ddl, const col_type **out,
                                  silt_error *err);
/* count/min/max from the Delta log when exact; *done_out 0 when not possible. */
silt_status sql_source_try_stats_agg(binder *b, const sql_select *sel, plan *out, int *done_out,
                                 silt_error *err);

/* ---- explain (explain.c) ---- */
silt_status sql_explain_plan(binder *b, const plan *p, buf *out, silt_error *err);
/* What running the plan gave, for EXPLAIN ANALYZE. */
typedef struct explain_run {
    int64_t rows;
    int64_t nanos;
} explain_run;
/* The plan after it ran with ctx->analyze set, closed: rows and time per operator. */
silt_status sql_explain_plan_analyzed(binder *b, const plan *p, const explain_run *run, buf *out,
                                  silt_error *err);

/* Schema of a scope as a STRUCT. */
const col_type *sql_scope_schema(arena *a, const bind_scope *scope);
silt_status sql_scope_from_schema(arena *a, const col_type *schema, const char *qual,
                              bind_scope *out, silt_error *err);

/* ---- branch.c: tables on a branch or tag (docs/branches.md) ---- */
struct delta_branch_view;
/*
 * How table t of catalog state looks on state's reference: *out NULL on main
 * (or for a view, or a table that is not Delta), else a view in b->a; writable
 * (commits recorded by sql_branch_record) when head is set and the reference
 * is a branch. *key_out names the reference and commit ("" on main) for caches.
 */
silt_status sql_branch_view(binder *b, const cat_state *state, const cat_table *t, int head,
                            struct delta_branch_view **out, const char **key_out, silt_error *err);
/* Wraps *store (owned) in view; nothing when view is NULL. */
silt_status sql_branch_wrap(const struct delta_branch_view *view, io_store **store,
                            silt_error *err);
/* Records this statement's branch-local commits in their references (one catalog commit each). */
silt_status sql_branch_record(binder *b, silt_error *err);
/* The snapshots of the table at `path` at the head of every branch and tag (VACUUM keeps
 * their files); in b->a. */
struct delta_snapshot;
silt_status sql_branch_snapshots(binder *b, const char *path,
                                 const struct delta_snapshot *const **out, size_t *n_out,
                                 silt_error *err);
/* *held 1 when a live branch or tag has a table at catalog location `location`. */
silt_status sql_branch_refs_hold(binder *b, const char *location, int *held, silt_error *err);
/* The session's catalog state at its reference: 1 when it is a branch head that takes commits. */
int sql_branch_state_is_head(const binder *b, const cat_state *state);

#endif
