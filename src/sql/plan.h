/*
 * plan.h - the logical plan of a query: what it computes, with names and
 * types resolved, but tied to no snapshot, file list or operator.
 *
 *   parse -> sql_lplan_bind (names and types; a table's schema through the
 *   execution's snapshot cache, nothing else) -> sql_lplan_optimize (passes
 *   that return a new tree) -> sql_lplan_lower (engine operators, built
 *   fresh for each execution: the snapshot, the file pruning and the scan
 *   units are decided here) -> run.
 *
 * The tree is read-only once built: nodes, scopes and engine expressions
 * (engine/expr.h, typed and coerced by their constructors) are shared by
 * every lowering, so a kept plan (a prepared statement) runs again with a
 * fresh snapshot and new operators, never with state of an earlier run.
 *
 * Built today for one shape (docs/plan.md): SELECT over one Delta table
 * (by path, or a catalog table), with WHERE, a select list without
 * aggregates, windows or subqueries, ORDER BY of select items, and
 * LIMIT/OFFSET. sql_lplan_bind answers no tree for any
 * other query, which the binder then plans as before (plan_*.c).
 */
#ifndef SILT_SQL_PLAN_H
#define SILT_SQL_PLAN_H

#include "sql/binder_int.h"

typedef enum lp_kind {
    LP_SCAN,    /* a table: what it is named, the columns read, the conjuncts offered */
    LP_FILTER,  /* rows where the predicate is true */
    LP_PROJECT, /* expressions over the child's columns */
    LP_LIMIT,   /* LIMIT / OFFSET */
    LP_SORT     /* ORDER BY over the child's columns, with LIMIT / OFFSET (top-N) */
} lp_kind;

typedef struct lp_node lp_node;

typedef struct lp_scan {
    const sql_table_ref *ref; /* the FROM item (lowering opens it again) */
    const char *path;         /* the table's location */
    int64_t version;          /* the version it had when bound (EXPLAIN) */
    const char *qual;         /* what qualifies its columns in the query */
    size_t n_cols;            /* the columns read (NULL cols: every column) */
    const char **cols;
    /*
     * WHERE conjuncts offered to the scan for pruning (files by partition
     * values and statistics, row groups, pages), put here by the pushdown
     * pass; the filter above still applies them all. bound: the same,
     * bound, for EXPLAIN (NULL entries for conjuncts bound elsewhere).
     */
    size_t n_conj;
    const sql_expr **conj;
    expr **bound;
} lp_scan;

struct lp_node {
    lp_kind kind;
    const lp_node *child; /* NULL for a scan */
    bind_scope scope;     /* output columns */
    union {
        lp_scan scan;
        struct {
            expr *pred;
            size_t n_conj;          /* its conjuncts, as written and bound */
            const sql_expr **conj;
            expr **bound;
        } filter;
        struct {
            expr **exprs;
            const char **names;
            const char **texts; /* each item's canonical SQL text, NULL for a star's column */
            size_t n;
        } project;
        struct {
            int64_t limit; /* -1: none */
            int64_t offset;
        } limit;
        struct {
            engine_sort_key *keys;
            size_t n_keys;
            int64_t limit; /* -1: none */
            int64_t offset;
        } sort;
    } u;
};

/*
 * A logical plan kept across executions (a prepared statement without
 * parameters): its arena and root, and the session's settings_gen when it
 * was bound (settings may change how names and types resolve).
 */
typedef struct sql_plan_keep {
    arena *a;
    const lp_node *root;
    uint64_t settings_gen;
    int bound; /* 1 once the statement was tried: root NULL then means "not this shape" */
} sql_plan_keep;

/*
 * Binds q into a logical tree in b->a (*out), or *out = NULL when q is not
 * a shape the logical plan covers yet. Errors are the binder's.
 */
silt_status sql_lplan_bind(binder *b, const sql_query *q, const lp_node **out, silt_error *err);

/* The optimizer passes (predicate pushdown into the scan): a new tree in b->a. */
silt_status sql_lplan_optimize(binder *b, const lp_node *root, const lp_node **out,
                               silt_error *err);

/*
 * Engine operators for root, made in b->a with the tables as they are now.
 * *stale = 1 (and no plan) when a table's columns no longer match the
 * plan's (its schema changed since it was bound): the caller binds again.
 */
silt_status sql_lplan_lower(binder *b, const lp_node *root, plan *out, int *stale,
                            silt_error *err);

/*
 * A statement's query, the way queries and EXPLAIN plan it: through the
 * logical tree when it covers q (*logical: the optimized tree; the
 * session's kept plan, b->s->keep, is used and filled), else through the
 * direct planner (*logical NULL). Subqueries are attached either way.
 */
silt_status sql_plan_statement_logical(binder *b, const sql_query *q, plan *out,
                                       const lp_node **logical, silt_error *err);

/* EXPLAIN: the logical tree, one node a line, as "== Logical Plan ==" (explain.c). */
silt_status sql_explain_logical(const lp_node *root, buf *out, silt_error *err);

#endif
