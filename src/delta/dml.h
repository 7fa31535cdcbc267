/*
 * dml.h - DELETE and UPDATE on a Delta table, independent of any engine,
 * and RESTORE.
 *
 * The caller brings the predicate as callbacks (the SQL layer passes an
 * engine expression through them; tests pass C functions):
 *   - a file filter that says, from partition values and stats, whether a
 *     file may hold matching rows (dstats_file_may_match does that for
 *     simple predicates); files it rejects are neither read nor rewritten;
 *   - a row predicate over logical batches that fills a match mask.
 * Copy-on-write, as Spark without deletion vectors: a candidate file
 * without a matching row stays untouched; one with matches is removed and
 * its other rows (and, for UPDATE, the updated rows) are written into new
 * files. When the predicate reads only partition columns (partition_only)
 * the files the filter selects are removed whole, without being read; with
 * no predicate at all every file goes. Each operation is one transaction
 * with Spark's commitInfo:
 *   DELETE {predicate: ["..."]}  numRemovedFiles, numAddedFiles,
 *          numDeletedRows, numCopiedRows, numRemovedBytes, numAddedBytes,
 *          numAddedChangeFiles, numDeletionVectors{Added,Removed,Updated} (0),
 *          executionTimeMs, scanTimeMs, rewriteTimeMs ("true" as the predicate
 *          when there is none, as Spark)
 *   UPDATE {predicate: ["..."]}  numRemovedFiles, numAddedFiles,
 *          numUpdatedRows, numCopiedRows, numRemovedBytes, numAddedBytes,
 *          numAddedChangeFiles, executionTimeMs, scanTimeMs, rewriteTimeMs
 *   RESTORE {version, timestamp} tableSizeAfterRestore,   (no cdc files
 *          even with the change data feed on, as Delta: adds and removes are the changes)
 *          numOfFilesAfterRestore, numRemovedFiles, numRestoredFiles,
 *          removedFilesSize, restoredFilesSize
 * On any error the table is unchanged (new files may stay as orphans).
 */
#ifndef SILT_DELTA_DML_H
#define SILT_DELTA_DML_H

#include "delta/stats.h"
#include "delta/write.h"

/* delta_row_predicate_fn (write.h): the row predicate of DELETE and UPDATE. */

/*
 * UPDATE: the new rows for `matched` (only rows that matched, in the
 * table's logical schema) as a batch of the same schema and row count,
 * allocated in a.
 */
typedef silt_status (*delta_row_update_fn)(const col_batch *matched, arena *a, col_batch **out,
                                           void *payload, silt_error *err);

typedef struct delta_dml_options {
    unsigned version;
    const char *predicate_text; /* SQL text for history; NULL = no predicate */
    delta_row_predicate_fn predicate; /* NULL = every row matches */
    void *predicate_payload;
    delta_file_filter_fn file_filter; /* NULL = every file is a candidate */
    void *file_filter_payload;
    int partition_only; /* the predicate reads only partition columns: file_filter is exact */
    /* Files whose every row matches (from partition values and stats: a DELETE removes them
     * unread, an UPDATE skips looking for matches); NULL = none known. */
    delta_file_filter_fn file_all_match;
    void *file_all_match_payload;
    int64_t (*now_ms)(void *payload); /* commit clock for tests; NULL = wall clock */
    void *now_payload;
    const char *user_metadata; /* commitInfo.userMetadata; NULL = none */
    int64_t retry_timeout_ms; /* delta_txn_set_retry_timeout_ms; 0 = the default */
    /* What the statement read, for conflicts (delta_txn_read_predicate): the WHERE's
     * partition predicate, exact for any file of the table, also one added later. NULL =
     * the whole table was read. */
    delta_file_filter_fn read_predicate;
    void *read_predicate_payload;
    const char *compression; /* codec of the rewritten files (delta_write_options) */
} delta_dml_options;

#define DELTA_DML_OPTIONS_INIT                                                                    \
    {1, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL}

typedef struct delta_dml_metrics {
    int64_t num_removed_files, num_added_files;
    int64_t num_deleted_rows, num_updated_rows, num_copied_rows;
    int64_t num_removed_bytes, num_added_bytes;
    int64_t num_files_read; /* candidate files scanned */
} delta_dml_metrics;

/*
 * Sets *out to 1 when the file's partition values and statistics prove that
 * every row satisfies all n_preds predicates (a conjunction of comparisons
 * with literals, IS NULL, IS NOT NULL); 0 when they do not or cannot (no
 * stats, nulls, float columns, long strings, deletion vectors). Parsed
 * stats go to scratch. dml_stats.c.
 */
silt_status delta_file_all_rows_match(const dpred *preds, size_t n_preds,
                                      const delta_snapshot *snap, const delta_file *file,
                                      arena *scratch, int *out, silt_error *err);

/* DELETE FROM table [WHERE predicate]. metrics and result may be NULL. */
silt_status delta_delete(io_store *store, const delta_snapshot *snap, const delta_dml_options *opts,
                         delta_dml_metrics *metrics, delta_commit_result *result, silt_error *err);

/* UPDATE table SET ... [WHERE predicate]; update gives the new rows. */
silt_status delta_update(io_store *store, const delta_snapshot *snap, const delta_dml_options *opts,
                         delta_row_update_fn update, void *update_payload,
                         delta_dml_metrics *metrics, delta_commit_result *result, silt_error *err);

/*
 * RESTORE TABLE ... TO VERSION AS OF version (timestamp_micros < 0) or TO
 * TIMESTAMP AS OF timestamp_micros (version < 0). One commit that re-adds
 * the files of that version that are not live (dataChange true) and
 * removes the live files it did not have. SILT_NOTFOUND when the version
 * cannot be loaded; SILT_INVALID when neither or both are given.
 * user_metadata (NULL = none) becomes commitInfo.userMetadata.
 */
silt_status delta_restore(io_store *store, const delta_snapshot *snap, int64_t version,
                          int64_t timestamp_micros, const char *user_metadata,
                          delta_commit_result *result, silt_error *err);

/* ---- MERGE ------------------------------------------------------------------------------- */

typedef enum delta_merge_action {
    DELTA_MERGE_KEEP = 0, /* no clause applies: the row stays as it is */
    DELTA_MERGE_UPDATE,
    DELTA_MERGE_DELETE
} delta_merge_action;

/*
 * WHEN MATCHED (and WHEN NOT MATCHED BY SOURCE, with source NULL) clauses,
 * evaluated in order by the caller: for target rows (the table's logical
 * schema) and the source row each matched (same count), fills action[row]
 * with a delta_merge_action and, when some row is updated, *updated_out
 * with a batch of the table schema and the same row count whose UPDATE
 * rows hold the new values (other rows are ignored). Allocated in a.
 */
typedef silt_status (*delta_merge_rows_fn)(const col_batch *target, const col_batch *source,
                                           uint8_t *action, arena *a, col_batch **updated_out,
                                           void *payload, silt_error *err);

/* WHEN NOT MATCHED THEN INSERT: the rows to insert (table schema, any count) for source rows
 * that matched no target row. */
typedef silt_status (*delta_merge_insert_fn)(const col_batch *source, arena *a,
                                             col_batch **rows_out, void *payload,
                                             silt_error *err);

/*
 * A condition over pairs: target->n_rows == source->n_rows, row k of each form pair k; sets
 * match[k] to 1 where the condition is true (0 when false or null). Allocated in a.
 */
typedef silt_status (*delta_merge_pair_fn)(const col_batch *target, const col_batch *source,
                                           uint8_t *match, arena *a, void *payload,
                                           silt_error *err);

typedef struct delta_merge_spec {
    unsigned version;
    const col_batch *source;         /* the whole source, in memory */
    size_t n_keys;                   /* ON target.k1 = source.k1 AND ... (equality, nulls never match) */
    const char *const *target_keys;  /* table columns */
    const size_t *source_keys;       /* source columns */
    delta_merge_rows_fn matched;     /* NULL: no WHEN MATCHED clause */
    void *matched_payload;
    delta_merge_rows_fn not_matched_by_source; /* NULL: none */
    void *not_matched_by_source_payload;
    delta_merge_insert_fn insert;    /* NULL: no WHEN NOT MATCHED clause */
    void *insert_payload;
    delta_file_filter_fn file_filter; /* target files that may match; NULL = all */
    void *file_filter_payload;
    /* History: the ON condition, and the clauses as JSON lists ([{"actionType":"update"}]). */
    const char *predicate_text;
    const char *matched_json, *not_matched_json, *not_matched_by_source_json;
    /* The rest of the ON condition besides the key equalities (NULL = none): sets match[row]
     * for the (target row, source row) pairs it holds for. With no keys at all every source
     * row is a candidate for every target row (a nested loop). */
    delta_merge_pair_fn on_rest;
    void *on_rest_payload;
    /* Several source rows may match one target row (the only WHEN MATCHED clause is an
     * unconditional DELETE, as Delta allows); otherwise that is the multiple-match error. */
    int multiple_matches_ok;
    /* Schema evolution: the table schema with new columns appended (NULL = unchanged). Target
     * rows reach the clauses with the new columns null; the commit sets the new schema. */
    const col_type *evolved_schema;
    /* Bytes of a target file's decoded batches held while none of them changes (0 = 64 MB);
     * past it, a file whose first change comes later is read a second time (tests set it). */
    size_t hold_bytes;
    const char *user_metadata; /* commitInfo.userMetadata; NULL = none */
    int64_t retry_timeout_ms; /* delta_txn_set_retry_timeout_ms; 0 = the default */
    const char *compression;  /* codec of the written files (delta_write_options) */
    delta_app_txn app_txn;    /* the commit's txn action (delta_app_txn); none by default */
} delta_merge_spec;

#define DELTA_MERGE_SPEC_INIT {1, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, 0, NULL, DELTA_APP_TXN_NONE}

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

/*
 * MERGE INTO table USING source ON keys WHEN ... as one MERGE commit
 * (history: {predicate: ["..."], matchedPredicates, notMatchedPredicates,
 * notMatchedBySourcePredicates} and Delta's numTarget.../numSourceRows
 * metrics, as delta_merge_metrics lists, plus zero DV counts). With the
 * change data feed on, a MERGE that changes target rows writes cdc files of
 * its deletes, update pre/post images and inserts (numTargetChangeFilesAdded);
 * an insert-only MERGE writes none, as Delta (its adds are its changes). The
 * source keys are hashed; the candidate target files are read once and
 * only those where a clause changes a row are rewritten (from the batches
 * already decoded; see hold_bytes). A target row matched by
 * more than one source row while there is a WHEN MATCHED clause fails with
 * SILT_INVALID "[DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE]",
 * before anything is committed.
 */
silt_status delta_merge(io_store *store, const delta_snapshot *snap, const delta_merge_spec *spec,
                        delta_merge_metrics *metrics, delta_commit_result *result,
                        silt_error *err);

#endif
