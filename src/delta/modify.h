/*
 * modify.h - the Delta side of DELETE, UPDATE and MERGE run by an engine: the
 * file and commit bookkeeping of a copy-on-write rewrite (docs/dml.md).
 *
 * The engine decides which rows of which files change; this module removes
 * the files it is told to, writes the rows it is handed into new files (one
 * writer per engine worker, so workers never share one), writes change data
 * files when the table has the change data feed on, and commits one
 * transaction with Spark's commitInfo for the operation (dml.h lists the
 * metrics). A file's rows handed to one worker in their order keep that
 * order in the new files, as Spark's rewrite does.
 *
 * Threads: delta_modify_begin, _remove, _commit and _free on the caller;
 * _write, _changes and _count from the workers, each with its own worker
 * index (below n_workers), never two calls with the same index at once.
 */
#ifndef SILT_DELTA_MODIFY_H
#define SILT_DELTA_MODIFY_H

#include "delta/dml.h"

typedef struct delta_modify delta_modify;

typedef enum delta_modify_op {
    DELTA_MODIFY_DELETE = 0,
    DELTA_MODIFY_UPDATE,
    DELTA_MODIFY_MERGE
} delta_modify_op;

typedef struct delta_modify_options {
    unsigned version;
    delta_modify_op op;
    const char *predicate_text; /* SQL text for history; NULL = no predicate ("true") */
    size_t n_workers;           /* 0 = 1 */
    int64_t (*now_ms)(void *payload); /* commit clock for tests; NULL = wall clock */
    void *now_payload;
    const char *user_metadata; /* commitInfo.userMetadata; NULL = none */
    const char *compression;   /* codec of the rewritten files (delta_write_options) */
    int64_t retry_timeout_ms;  /* delta_txn_set_retry_timeout_ms; 0 = the default */
    /* What the statement read, for conflicts (delta_txn_read_predicate), as in
     * delta_dml_options; NULL = the whole table. */
    delta_file_filter_fn read_predicate;
    void *read_predicate_payload;
    delta_app_txn app_txn;     /* the commit's txn action (delta_app_txn); none by default */
    /* MERGE: the table's schema after it (schema evolution: new columns appended, committed
     * even when no row is written; NULL = the snapshot's), and its clauses for history as JSON
     * lists ([{"actionType":"update"}]; NULL = []). */
    const col_type *schema;
    const char *matched_json, *not_matched_json, *not_matched_by_source_json;
    /* The rows written pass this check first (delta_write_options.check); NULL = none. */
    delta_batch_check_fn check;
    void *check_payload;
} delta_modify_options;

#define DELTA_MODIFY_OPTIONS_INIT                                                                 \
    {1, DELTA_MODIFY_DELETE, NULL, 0, NULL, NULL, NULL, NULL, 0, NULL, NULL, DELTA_APP_TXN_NONE, NULL, NULL, NULL, NULL, NULL, NULL}

/* ---- MERGE ------------------------------------------------------------------------------- */

/* What a MERGE clause does to a target row. */
typedef enum delta_merge_action {
    DELTA_MERGE_KEEP = 0, /* no clause applies: the row stays as it is */
    DELTA_MERGE_UPDATE,
    DELTA_MERGE_DELETE
} delta_merge_action;

/* Row counts a MERGE's workers add up (delta_modify_count_merge). */
typedef enum delta_merge_count {
    DELTA_MERGE_MATCHED_UPDATED = 0,
    DELTA_MERGE_MATCHED_DELETED,
    DELTA_MERGE_BY_SOURCE_UPDATED,
    DELTA_MERGE_BY_SOURCE_DELETED,
    DELTA_MERGE_COPIED,
    DELTA_MERGE_INSERTED,
    DELTA_MERGE_N_COUNTS
} delta_merge_count;

/* Delta's MERGE metrics (commitInfo.operationMetrics, camel-cased there). */
typedef struct delta_merge_metrics {
    int64_t num_source_rows;
    int64_t num_target_rows_inserted, num_target_rows_updated, num_target_rows_deleted;
    int64_t num_target_rows_matched_updated, num_target_rows_matched_deleted;
    int64_t num_target_rows_not_matched_by_source_updated;
    int64_t num_target_rows_not_matched_by_source_deleted;
    int64_t num_target_rows_copied, num_output_rows;
    int64_t num_target_files_added, num_target_files_removed;
    int64_t num_target_bytes_added, num_target_bytes_removed;
} delta_merge_metrics;

/* Starts the transaction on snap; for conflict checks it read opts->read_predicate's
 * files, or the whole table without one. */
silt_status delta_modify_begin(delta_modify **out, io_store *store, const delta_snapshot *snap,
                               const delta_modify_options *opts, silt_error *err);

/* Whether change rows are wanted (the table's delta.enableChangeDataFeed). */
int delta_modify_cdc_on(const delta_modify *m);

/*
 * Whether the statement marks removed rows in deletion vectors instead of rewriting their
 * files (the table's delta.enableDeletionVectors). Then a touched file is not passed to
 * delta_modify_remove: its removed rows are marked, by position in the data file, and the
 * commit writes remove + add(same path, new vector), or a remove when no row is left.
 */
int delta_modify_dv_on(const delta_modify *m);
/* Marks rows[i] (i < n_rows, sel NULL or set) of snapshot file file_idx deleted. */
silt_status delta_modify_mark_deleted(delta_modify *m, size_t worker, size_t file_idx,
                                      const int64_t *rows, const uint8_t *sel, size_t n_rows,
                                      silt_error *err);

/* Removes a data file of the snapshot (rewritten or dropped whole). */
silt_status delta_modify_remove(delta_modify *m, const delta_file *file, silt_error *err);

/* MERGE inserted rows with identity values up to mark: the commit's metaData sets the
 * column's delta.identity.highWaterMark (column borrowed until the commit). */
void delta_modify_set_identity_mark(delta_modify *m, const char *column, int64_t mark);

/* Writes rows of the table's logical schema (matched by position) into new files. */
silt_status delta_modify_write(delta_modify *m, size_t worker, const col_batch *rows,
                               silt_error *err);

/* Change rows of one kind ("delete", "update_preimage", "update_postimage"); nothing with the
 * change data feed off. */
silt_status delta_modify_changes(delta_modify *m, size_t worker, const col_batch *rows,
                                 const char *change_type, silt_error *err);

/* Counts rows: changed (deleted or updated) and copied unchanged into new files. */
void delta_modify_count(delta_modify *m, size_t worker, int64_t changed, int64_t copied);

/* Rows counted changed so far, all workers (caller thread, between passes). */
int64_t delta_modify_n_changed(const delta_modify *m);
/* How many files the statement removed so far (0: it changes nothing). */
int64_t delta_modify_n_removed(const delta_modify *m);
/* MERGE: adds n to a count of the worker's. */
void delta_modify_count_merge(delta_modify *m, size_t worker, delta_merge_count what, int64_t n);

/* MERGE: the source's rows and the time it took to materialise them. */
void delta_modify_set_source(delta_modify *m, int64_t n_rows, int64_t materialize_ns);

/*
 * MERGE: changed rows so far, all workers (caller thread, between passes): an insert is a
 * change row too once a target row changed (a commit with cdc files is read from them alone).
 */
int64_t delta_modify_merge_changed(const delta_modify *m);

/* Time spent finding the rows (scanTimeMs) and rewriting files (rewriteTimeMs). */
void delta_modify_set_times(delta_modify *m, int64_t scan_ns, int64_t rewrite_ns);

/* Finishes the files, adds them, sets the history and commits. metrics/result may be NULL. */
silt_status delta_modify_commit(delta_modify *m, delta_dml_metrics *metrics,
                                delta_commit_result *result, silt_error *err);

/* MERGE's commit: history {predicate, matchedPredicates, notMatchedPredicates,
 * notMatchedBySourcePredicates} and Delta's MERGE metrics. metrics/result may be NULL. */
silt_status delta_modify_commit_merge(delta_modify *m, delta_merge_metrics *metrics,
                                      delta_commit_result *result, silt_error *err);

/* Frees everything; files written by a statement that did not commit stay as orphans. */
void delta_modify_free(delta_modify *m);

#endif
