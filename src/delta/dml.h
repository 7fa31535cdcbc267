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

#endif
