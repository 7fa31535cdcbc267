/*
 * snapshot.h - the state of a Delta table at one version.
 *
 * PROTOCOL: Action Reconciliation. A snapshot is built by replaying the log
 * segment of a version newest-first: the newest reference to a logical
 * file (path, deletion vector id) decides whether it is live, the newest
 * protocol and metaData win, txn is kept per appId and domainMetadata per
 * domain (removed ones are tombstones).
 *
 * Memory: everything a snapshot holds lives in its own arena, and partition
 * values are interned (one copy per distinct string), so a live file costs
 * its path, its stats text and a small struct. Stats stay raw JSON text and
 * are parsed on demand (delta/stats.h). A snapshot is immutable once
 * loaded and may be shared between threads for reading.
 */
#ifndef SILT_DELTA_SNAPSHOT_H
#define SILT_DELTA_SNAPSHOT_H

#include "delta/actions.h"
#include "delta/checkpoint.h"
#include "io/store.h"

/* A live data file of a snapshot. */
typedef struct delta_file {
    const char *path; /* decoded; relative to the table root unless absolute */
    dlog_map partition_values; /* raw strings as in the log (physical column names) */
    int64_t size;
    int64_t modification_time; /* ms */
    const char *stats;         /* raw JSON or NULL */
    dlog_dv dv;                /* storage_type 0 without a deletion vector */
    int has_base_row_id;
    int64_t base_row_id;
    int has_default_row_commit_version;
    int64_t default_row_commit_version;
} delta_file;

typedef struct delta_snapshot {
    arena *arena;
    int64_t version;
    dlog_protocol protocol;
    dlog_metadata metadata;
    const col_type *schema; /* = metadata.schema */
    size_t n_files;
    delta_file *files; /* in no particular order */
    int64_t total_size;
    int64_t n_tombstones; /* logical files removed (remove actions still in the log) */
    size_t n_txns;
    dlog_txn *txns;
    size_t n_domains;
    dlog_domain_metadata *domains;
    /* commitInfo of the commit at `version` (absent when only a checkpoint is left). */
    int has_commit_info;
    dlog_commit_info commit_info;
    /* Commit timestamp of `version` (ms): inCommitTimestamp when enabled, else file time. */
    int64_t timestamp_ms;
    int timestamp_is_in_commit;
    /* The checkpoint the replay started from: version -1 for none. */
    int64_t checkpoint_version;
    const char *checkpoint_kind; /* "classic", "multi-part", "v2", or NULL */
    /* A newer checkpoint passed over for want of a Parquet reader: its version, or -1. */
    int64_t skipped_checkpoint_version;
    size_t n_commits_replayed;
} delta_snapshot;

typedef struct delta_load_options {
    unsigned version;
    /*
     * Reader of Parquet checkpoints and sidecars. NULL means "the built-in
     * one" (dlog_builtin_parquet_reader()); when there is none either,
     * Parquet checkpoints are passed over and the state is replayed from the
     * JSON commits alone when they are all there.
     */
    dlog_parquet_actions_fn parquet_reader;
} delta_load_options;

#define DELTA_LOAD_OPTIONS_INIT {1, NULL}

/*
 * Loads the snapshot of version (-1 = latest) of the table whose root is
 * the root of store. Errors: SILT_NOTFOUND (no table, no such version),
 * SILT_CORRUPT (a malformed or incomplete log), SILT_UNSUPPORTED (a reader
 * feature silt lacks, or a Parquet checkpoint without a reader), SILT_IO.
 * The snapshot belongs to the caller (delta_snapshot_free).
 */
silt_status delta_snapshot_load(delta_snapshot **out, io_store *store, int64_t version,
                                silt_error *err);
silt_status delta_snapshot_load_ext(delta_snapshot **out, io_store *store, int64_t version,
                                    const delta_load_options *opts, silt_error *err);

/*
 * Loads the newest version whose commit timestamp is at or before
 * timestamp_micros (PROTOCOL: In-Commit Timestamps, Recommendations for
 * Readers): commit file times made monotonic as Delta does, or
 * inCommitTimestamp from the enablement version on. SILT_NOTFOUND when the
 * timestamp is before the first or after the last commit.
 */
silt_status delta_snapshot_load_at_timestamp(delta_snapshot **out, io_store *store,
                                             int64_t timestamp_micros,
                                             const delta_load_options *opts, silt_error *err);

void delta_snapshot_free(delta_snapshot *snap);

/*
 * The inCommitTimestamp (ms) of the commit file at key: its first action,
 * a commitInfo (PROTOCOL: In-Commit Timestamps). SILT_CORRUPT when the
 * commit does not start with one, SILT_NOTFOUND when it is gone.
 */
silt_status delta_snapshot_commit_ict(io_store *store, const char *key, int64_t *out,
                                      silt_error *err);

/*
 * Typed value of partition column `column` (logical name) of a file: the
 * raw string is looked up under the column's physical name when column
 * mapping is on, then parsed per PROTOCOL: Partition Value Serialization.
 * SILT_BIND when column is not a partition column; SILT_CORRUPT for a value
 * that does not parse. String values point into the snapshot.
 */
struct delta_value;
silt_status delta_snapshot_partition_value(const delta_snapshot *snap, const delta_file *file,
                                           const char *column, arena *a,
                                           struct delta_value *out, silt_error *err);

/* Value of a table property, or NULL. */
const char *delta_snapshot_property(const delta_snapshot *snap, const char *key);

#endif
