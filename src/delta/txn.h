/*
 * txn.h - writing to a Delta table: transactions, conflict checks, new
 * tables, statistics JSON, checkpoints and log cleanup.
 *
 * PROTOCOL: Delta Log Entries, Commit Provenance Information, Table
 * Features, In-Commit Timestamps, Checkpoints, Metadata Cleanup. A
 * transaction reads one snapshot, records what it read (the whole table,
 * some partitions, some files) and what it writes (actions), and commits
 * with a put-if-absent of `_delta_log/<readVersion+1>.json`
 * (DESIGN.md, Storage). When another writer took that version, the winning
 * commits are read one by one and checked with Delta's optimistic
 * concurrency rules (docs.delta.io, Concurrency control: isolation levels
 * and write conflicts); without a conflict the commit is retried at the
 * next free version, with a conflict it fails with SILT_CONFLICT and a
 * message that starts with the exception name Delta uses
 * ("ConcurrentAppendException: ...").
 *
 * Nothing is written before every check passed: a transaction that is
 * refused (an unsupported writer feature, a conflict, a store failure)
 * leaves the table exactly as it was. Data files are written by the caller
 * before the commit; a failed commit leaves them unreferenced, for VACUUM.
 *
 * Memory: a transaction copies everything it is given into its own arena,
 * so the caller's actions may die right after a call. The read snapshot is
 * borrowed and must outlive the transaction.
 */
#ifndef SILT_DELTA_TXN_H
#define SILT_DELTA_TXN_H

#include "delta/actions.h"
#include "delta/partition.h"
#include "delta/snapshot.h"
#include "io/store.h"

/* Commit file key of a version: "_delta_log/" + 20 digits + ".json" (cap >= 48). */
void delta_commit_key(int64_t version, char *out, size_t cap);

/* A random (version 4) UUID in its 36-character text form. SILT_IO when no randomness. */
silt_status delta_uuid_v4(char out[37], silt_error *err);

/*
 * Serialises a STRUCT col_type as a Delta schema string (PROTOCOL: Schema
 * Serialization Format), keeping each field's metadata JSON. The inverse of
 * dlog_parse_schema. SILT_INVALID for a type that is not a STRUCT at the top
 * or has no Delta name (COL_NULL).
 */
silt_status delta_schema_to_json(const col_type *schema, buf *out, silt_error *err);

/* ---- table features for writers ---------------------------------------------------------- */

/* The writer features silt can write tables with (when their conditions hold), NULL-ended. */
const char *const *delta_writer_features(void);

/*
 * SILT_OK when silt may commit to a table with this protocol and metadata;
 * SILT_UNSUPPORTED naming the feature (and why) otherwise. removes_data
 * tells whether the commit removes data (dataChange removes): 0 no, 1 yes
 * (a table with the change data feed on then needs `cdc` files, so it is
 * refused), DELTA_REMOVES_WITH_CDC yes and the commit carries change data
 * files for every row it changes (DELETE and UPDATE write them).
 */
#define DELTA_REMOVES_WITH_CDC 2
silt_status delta_check_writable(const dlog_protocol *protocol, const dlog_metadata *metadata,
                                 int removes_data, silt_error *err);

/*
 * SILT_OK when the protocol supports every feature the metadata turns on
 * (delta.appendOnly, delta.enableChangeDataFeed, delta.enableDeletionVectors,
 * delta.enableInCommitTimestamps, column mapping, timestamp_ntz columns,
 * CHECK constraints) and domain metadata when uses_domains; otherwise
 * SILT_UNSUPPORTED naming the property and the feature. A commit checks
 * this whenever it writes metadata or a protocol, so that no table ever
 * claims a feature its protocol lacks.
 */
silt_status delta_check_protocol_covers(const dlog_protocol *protocol,
                                        const dlog_metadata *metadata, int uses_domains,
                                        silt_error *err);

/*
 * The protocol a new table with this metadata needs, as Delta 4.1 writes
 * it (PROTOCOL: Table Features): (1,2) normally; else table features
 * listing appendOnly, invariants and what is needed: (1,7) for the change
 * data feed, in-commit timestamps or domain metadata, (2,7) for column
 * mapping alone, (3,7) with reader features for timestamp_ntz columns and
 * deletion vectors. Lists live in arena a.
 * SILT_UNSUPPORTED for properties silt cannot honour (CHECK constraints,
 * row tracking, ...).
 */
silt_status delta_protocol_for_new_table(const dlog_metadata *metadata, int uses_domains,
                                         arena *a, dlog_protocol *out, silt_error *err);

/*
 * Fills a metaData action for a new table: a fresh id, format parquet,
 * schemaString from schema, the partition columns (which must be top-level
 * columns of the schema: SILT_INVALID otherwise) and the configuration
 * (copied). createdTime is now. With delta.columnMapping.mode = name or id
 * every field gets a column id and a physical name, and
 * delta.columnMapping.maxColumnId is set. Strings live in arena a.
 */
silt_status delta_metadata_for_new_table(dlog_metadata *out, arena *a, const col_type *schema,
                                         size_t n_partition_columns,
                                         const char *const *partition_columns,
                                         const dlog_map *configuration, silt_error *err);

/*
 * Column mapping ids and physical names for every field of schema that has
 * none yet (PROTOCOL: Column Mapping, Writer Requirements), numbered in
 * preorder from *max_id + 1 (*max_id is left at the last one). Physical
 * names are "col-<uuid>", or the logical name with keep_names (how Delta
 * upgrades an existing table, whose files hold the logical names).
 */
silt_status delta_mapping_assign(arena *a, const col_type *schema, int keep_names,
                                 int64_t *max_id, const col_type **out, silt_error *err);

/* The version of the newest txn action of app_id in a snapshot, or -1 (PROTOCOL: Transaction
 * Identifiers). A streaming sink skips a batch whose id is not above it. */
int64_t delta_txn_app_version(const delta_snapshot *snap, const char *app_id);

/*
 * Delta's idempotent writes (spark.databricks.delta.write.txnAppId and
 * txnVersion, the txnAppId/txnVersion write options): a write carrying an
 * application's transaction identifier commits a txn action (appId,
 * version, lastUpdated) with its data, and is skipped altogether, writing
 * nothing, when the table already records that appId at this version or a
 * newer one. app_id NULL = a write without one.
 */
typedef struct delta_app_txn {
    const char *app_id;
    int64_t version;
} delta_app_txn;

#define DELTA_APP_TXN_NONE {NULL, 0}

/* 1 when snap (NULL = a new table) records t's appId at t's version or newer: skip the write. */
int delta_app_txn_done(const delta_snapshot *snap, const delta_app_txn *t);

/* ---- transactions ------------------------------------------------------------------------ */

typedef enum delta_isolation {
    DELTA_WRITE_SERIALIZABLE = 0, /* Delta's default */
    DELTA_SERIALIZABLE,
    /* OPTIMIZE's: it changes no data, so others' appends never conflict with it */
    DELTA_SNAPSHOT_ISOLATION
} delta_isolation;

typedef struct delta_txn delta_txn;

/* What a commit did; filled by delta_txn_commit. */
typedef struct delta_commit_result {
    int64_t version;      /* the version written */
    int attempts;         /* 1 when the first try won */
    int64_t n_winning_commits; /* concurrent commits checked and rebased over */
    /* Checkpoint after the commit (every delta.checkpointInterval versions). */
    int checkpoint_attempted;
    silt_status checkpoint_status; /* SILT_OK when written */
    char checkpoint_message[SILT_ERROR_MESSAGE_MAX];
    size_t n_log_files_deleted; /* by log cleanup after a checkpoint */
} delta_commit_result;

/*
 * Starts a transaction on the table rooted at table_store. read_snapshot is
 * the state the transaction read (borrowed), or NULL to create a new table
 * at version 0 (then delta_txn_set_metadata is required). operation is the
 * name history shows ("WRITE", "DELETE", "CREATE TABLE", ...). Fails with
 * SILT_UNSUPPORTED, before anything is written, when the table has a
 * writer feature silt cannot honour. The transaction belongs to the caller
 * (delta_txn_free).
 */
silt_status delta_txn_begin(delta_txn **out, io_store *table_store,
                            const delta_snapshot *read_snapshot, const char *operation,
                            silt_error *err);
void delta_txn_free(delta_txn *txn);

/* The read version (-1 for a new table). */
int64_t delta_txn_read_version(const delta_txn *txn);

void delta_txn_set_isolation(delta_txn *txn, delta_isolation level);
/* How many times a commit is tried in all (at least 1; by default the
 * count is not bounded, only the time: delta_txn_set_retry_timeout_ms). */
void delta_txn_set_max_attempts(delta_txn *txn, int attempts);
/*
 * The time a commit may spend retrying after losing the race for a version
 * to other writers (DELTA_TXN_DEFAULT_RETRY_TIMEOUT_MS when not set; at
 * least 1 ms). A lost race without a conflict is retried at the next free
 * version, with a growing randomised pause after the second loss, until
 * the commit wins or this much time went by since its first attempt: a
 * blind append never fails for contention alone before that. The SQL
 * setting silt.commit.retryTimeout sets it.
 */
#define DELTA_TXN_DEFAULT_RETRY_TIMEOUT_MS INT64_C(600000)
void delta_txn_set_retry_timeout_ms(delta_txn *txn, int64_t timeout_ms);
/* The clock for commit timestamps in ms (tests); NULL = the wall clock. */
void delta_txn_set_clock(delta_txn *txn, int64_t (*now_ms)(void *payload), void *payload);

/*
 * The commit's data-changing adds and removes are its changes, needing no
 * change data files even when the change data feed is on: RESTORE, whose
 * commit Delta writes without cdc actions (readers of the feed take its
 * removed files as deletes and its added files as inserts).
 */
void delta_txn_set_changes_are_files(delta_txn *txn);

/* What the transaction read, for conflict checks. */
silt_status delta_txn_read_whole_table(delta_txn *txn, silt_error *err);
/* One partition read, as a map of partition column -> serialised value (NULL = null). */
silt_status delta_txn_read_partition(delta_txn *txn, const dlog_map *partition_values,
                                     silt_error *err);
silt_status delta_txn_read_file(delta_txn *txn, const char *path, silt_error *err);
/*
 * PROTOCOL/Delta conflict detection: the read predicate. The transaction
 * read the files of the table that `fn` accepts, a predicate on partition
 * values that is exact for any file of the table, including files added
 * after the read snapshot (fn gets the read snapshot and a file whose
 * partition_values are set; it returns 1 when the file may hold rows the
 * transaction read, and 1 when in doubt). A winner's data-changing add
 * that fn accepts is a ConcurrentAppendException, a winner's remove of a
 * snapshot file that fn accepts a ConcurrentDeleteReadException; files on
 * other partitions never conflict. fn and payload must stay valid until
 * the commit returns. Several predicates are or-ed.
 */
typedef int (*delta_txn_read_fn)(const delta_snapshot *snap, const delta_file *file,
                                 void *payload);
silt_status delta_txn_read_predicate(delta_txn *txn, delta_txn_read_fn fn, void *payload,
                                     silt_error *err);

/* Actions; everything is copied. */
silt_status delta_txn_add_file(delta_txn *txn, const dlog_add *add, silt_error *err);
/*
 * Removes a live file of the read snapshot the way Spark does: the current
 * time as deletionTimestamp, extendedFileMetadata with partitionValues,
 * size, stats, tags and the deletion vector of the file.
 */
silt_status delta_txn_remove_file(delta_txn *txn, const delta_file *file, int data_change,
                                  silt_error *err);
/* A remove action as given (deletionTimestamp 0/absent becomes now). */
silt_status delta_txn_remove(delta_txn *txn, const dlog_remove *remove, silt_error *err);
/* A change data file (PROTOCOL: Add CDC File; dataChange is written false). */
silt_status delta_txn_add_cdc(delta_txn *txn, const dlog_cdc *cdc, silt_error *err);
silt_status delta_txn_set_metadata(delta_txn *txn, const dlog_metadata *metadata,
                                   silt_error *err);
silt_status delta_txn_set_protocol(delta_txn *txn, const dlog_protocol *protocol,
                                   silt_error *err);
/* A txn action (appId, version) with lastUpdated = now; one per appId. */
silt_status delta_txn_set_app_txn(delta_txn *txn, const char *app_id, int64_t version,
                                  silt_error *err);
/* delta_txn_set_app_txn for t when it names an application; nothing otherwise. */
silt_status delta_txn_set_app(delta_txn *txn, const delta_app_txn *t, silt_error *err);
silt_status delta_txn_set_domain(delta_txn *txn, const char *domain, const char *configuration,
                                 int removed, silt_error *err);
/* operationParameters: value is written as a JSON string ("Append", "[]", "[\"p\"]"); NULL as
 * JSON null. */
silt_status delta_txn_set_param(delta_txn *txn, const char *key, const char *value,
                                silt_error *err);
/* operationMetrics: written as a string of the number, as Spark does. */
silt_status delta_txn_set_metric(delta_txn *txn, const char *key, int64_t value,
                                 silt_error *err);
silt_status delta_txn_set_user_metadata(delta_txn *txn, const char *text, silt_error *err);

/*
 * Commits. On success the version is in result (which may be NULL) and
 * the transaction may only be freed. Errors: SILT_CONFLICT (a concurrent
 * commit conflicts, message "<ExceptionName>: ..."; or no free version
 * after the maximum number of attempts), SILT_UNSUPPORTED (a writer
 * feature), SILT_INVALID (misuse: a new table without metadata, an append-
 * only table losing data), SILT_IO, SILT_CORRUPT (a winning commit cannot
 * be parsed). A checkpoint that cannot be written does not fail the commit:
 * result says so.
 */
silt_status delta_txn_commit(delta_txn *txn, delta_commit_result *result, silt_error *err);

/* 1 when the commit happened or, after a failure, may have (its outcome is unknown, or it is
 * visible with its durability unknown); 0 when it certainly did not, so the files written
 * for it are referenced by nothing. */
int delta_txn_maybe_committed(const delta_txn *txn);

/* ---- statistics -------------------------------------------------------------------------- */

/* Statistics of one leaf column of a written file. */
typedef struct delta_col_stats {
    const char *path;    /* physical names joined with '.', e.g. "a.b" */
    const col_type *type; /* a primitive type */
    int has_min_max;      /* min/max are known (not all null) */
    delta_value min, max;
    int has_null_count;
    int64_t null_count;
} delta_col_stats;

#define DELTA_STATS_STRING_PREFIX 32

/*
 * Stats JSON of a file (PROTOCOL: Per-file Statistics): numRecords and,
 * for the first n_indexed_cols leaf columns of schema (< 0 = all, the
 * table's delta.dataSkippingNumIndexedCols, 32 by default), minValues,
 * maxValues and nullCount nested like the schema. columns are matched by
 * path; leaf columns without an entry are left out. Strings are cut to 32
 * characters (max gets a U+10FFFF tie-breaker so it still bounds);
 * timestamps are written as "2021-09-08T11:11:11.000Z"; binary, nested
 * arrays and maps get only a null count. Appended to out.
 */
silt_status delta_stats_to_json(int64_t num_records, const col_type *schema,
                                 int n_indexed_cols, const delta_col_stats *columns,
                                 size_t n_columns, buf *out, silt_error *err);

/* delta.dataSkippingNumIndexedCols of a table: 32 when unset or not a number, -1 = all. */
int delta_stats_indexed_cols(const dlog_metadata *metadata);

/* ---- checkpoints and cleanup ------------------------------------------------------------- */

/* The schema of a classic checkpoint as Spark writes it (STRUCT, in arena a). */
const col_type *delta_checkpoint_schema(arena *a);

/*
 * The rows of a classic checkpoint of snap (PROTOCOL: Checkpoints):
 * protocol, metaData, txn per appId, every live add, domainMetadata, and
 * the remove tombstones given (already filtered by the caller to those not
 * yet expired). Lives in arena a.
 */
silt_status delta_checkpoint_batch(const delta_snapshot *snap, const dlog_remove *tombstones,
                                   size_t n_tombstones, arena *a, col_batch **out,
                                   silt_error *err);

/*
 * The remove tombstones of snap that a checkpoint keeps: removes in the
 * commits of its log segment (and in its checkpoint, when the Parquet
 * reader exists) whose file is not live again and whose deletionTimestamp
 * is after min_deletion_ms. In arena a.
 */
silt_status delta_collect_tombstones(io_store *store, const delta_snapshot *snap,
                                     int64_t min_deletion_ms, arena *a, dlog_remove **out,
                                     size_t *n_out, silt_error *err);

/*
 * Writes the checkpoint file for a version and then `_last_checkpoint`.
 * The Parquet file is published with put-if-absent; one already there (a
 * checkpoint of a version is idempotent) counts as written.
 */
silt_status delta_checkpoint_write(io_store *store, const delta_snapshot *snap, arena *a,
                                   silt_error *err);

/* The one place a checkpoint batch becomes a Parquet object (checkpoint_write_parquet.c). */
silt_status delta_checkpoint_write_parquet(io_store *store, const char *key,
                                           const col_batch *batch, int64_t *size_out,
                                           silt_error *err);

/*
 * PROTOCOL: Metadata Cleanup. Deletes the commits, checkpoints and
 * checksum files of versions before the newest checkpoint whose commit is
 * older than now_ms - retention_ms, so that every version from that
 * checkpoint on stays readable. Compaction files ending before it go too.
 */
silt_status delta_log_cleanup(io_store *store, int64_t retention_ms, int64_t now_ms,
                              size_t *n_deleted_out, silt_error *err);

/* Parses a Delta interval property ("interval 30 days", "7 days", "1 week") into ms. */
silt_status delta_parse_interval_ms(const char *text, int64_t *out, silt_error *err);

#endif
