/*
 * merge_int.h - MERGE bound (exec_merge.c) and run on the engine
 * (exec_merge_run.c; docs/dml.md "MERGE").
 *
 * The rows the clauses read are the engine's join of the target scan and
 * the materialised source, laid out as
 *   [table columns (n_table; columns the schema evolution adds are NULL),
 *    _file, _row_index,                       -- the target row's identity
 *    source columns (n_source), _src_row]     -- the source row's identity
 * WHEN MATCHED conditions and values are bound over that whole layout,
 * WHEN NOT MATCHED BY SOURCE over its first n_table columns, WHEN NOT
 * MATCHED over the source's own rows [source columns, _src_row].
 */
#ifndef SILT_SQL_MERGE_INT_H
#define SILT_SQL_MERGE_INT_H

#include "delta/modify.h"
#include "sql/binder_int.h"
#include "sql/exec.h"

/* The clauses of one kind, first match wins: one searched CASE per output. */
typedef struct sql_merge_side {
    expr *action;     /* INT: 0 no clause applies, else a delta_merge_action (1 = insert) */
    int const_action; /* the action when the first clause has no condition, else -1 */
    expr **values;    /* per table column; NULL = the target's value stays (matched, by source) */
} sql_merge_side;

typedef struct sql_merge_plan {
    binder *b;
    exec_target *t;
    const col_type *table; /* the table's schema after the MERGE (evolved or the snapshot's) */
    size_t n_table;
    size_t n_old;          /* columns of the snapshot's schema: the ones the files hold */
    engine_op *source;     /* the source's plan: its visible columns */
    size_t n_source;
    /* ON target.k = source.k AND ...: key i is table column target_key[i] and source_key[i]
     * over the source's row (cast to the target column's type when the types differ). */
    size_t n_keys;
    size_t *target_key;
    expr **source_key;
    expr *on_rest;         /* the whole ON condition over the join layout, when it has more */
    sql_merge_side matched, by_source, insert;
    int has_matched, has_by_source, has_insert;
    int multiple_matches_ok; /* the only WHEN MATCHED clause is an unconditional DELETE */
    delta_modify_options mo; /* history texts, codec, user metadata, retry bound, schema */
    /* Inserted rows get identity values in column ident_col (-1 = none): ident_first, then a
     * step apart, reserved batch by batch by the workers. */
    int64_t ident_col, ident_first, ident_step;
} sql_merge_plan;

/* Layout of the joined row (above). */
#define SQL_MERGE_FILE_COL(p) ((p)->n_table)
#define SQL_MERGE_ROW_INDEX_COL(p) ((p)->n_table + 1)
#define SQL_MERGE_SOURCE_COL(p, j) ((p)->n_table + 2 + (j))
#define SQL_MERGE_SRC_ROW_COL(p) ((p)->n_table + 2 + (p)->n_source)

/* Runs the MERGE and commits it; metrics for the statement's result. */
silt_status sql_merge_run(sql_merge_plan *p, delta_merge_metrics *metrics, silt_error *err);

#endif
