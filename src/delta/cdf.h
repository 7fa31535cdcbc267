/*
 * cdf.h - reading the change data feed of a Delta table.
 *
 * PROTOCOL: Change Data Files, Add CDC File. The changes of commits
 * start..end (inclusive), read commit by commit as Delta's CDCReader does:
 *   - a commit with cdc actions is read from those files alone (their
 *     `_change_type` column: insert, update_preimage, update_postimage, delete);
 *   - otherwise its add actions with dataChange are inserts and its remove
 *     actions with dataChange deletes (each file's own deletion vector applied);
 *     an add and a remove of one path with other deletion vectors are a
 *     deletion vector update: the rows the new vector deletes and the old did
 *     not are deletes, the rows the old vector deleted and the new does not
 *     are inserts (a restore), the other rows no change;
 *   - commits whose actions have dataChange false give nothing.
 * Rows have the columns of the given schema snapshot (the latest one for a
 * batch read, as Delta's default), read by physical name or field id under
 * column mapping, with partition values, then `_change_type` STRING,
 * `_commit_version` LONG, `_commit_timestamp` TIMESTAMP. The timestamp is the
 * commit's inCommitTimestamp where in-commit timestamps apply, else the
 * commit file's modification time made monotonic over the range as Delta's
 * DeltaHistoryManager.getCommits does.
 *
 * Errors carry Delta's names: [DELTA_MISSING_CHANGE_DATA] when the feed was
 * not enabled at the start version or was disabled by a commit in the range,
 * [DELTA_INVALID_CDC_RANGE] for a start after the latest version or an end
 * before the start, [DELTA_TIMESTAMP_GREATER_THAN_COMMIT] for a starting
 * timestamp after the latest commit, and the time travel error of the log
 * when the start version's log was cleaned up.
 *
 * Used by table_changes() and the readChangeFeed reader option (sql/), and
 * by the streaming Delta source's readChangeFeed (stream/): open a reader for
 * a resolved range, pull batches, free it. One commit is read at a time, and
 * within it one file at a time: memory is a commit's actions plus one batch.
 */
#ifndef SILT_DELTA_CDF_H
#define SILT_DELTA_CDF_H

#include "delta/snapshot.h"
#include "formats/columnar.h"
#include "io/store.h"

/* The three columns a change row adds to the table's. */
#define DELTA_CDF_CHANGE_TYPE "_change_type"
#define DELTA_CDF_COMMIT_VERSION "_commit_version"
#define DELTA_CDF_COMMIT_TIMESTAMP "_commit_timestamp"

/* One end of a range as a reader option gives it: a version, a timestamp or nothing. */
typedef enum delta_cdf_bound_kind {
    DELTA_CDF_BOUND_NONE = 0,
    DELTA_CDF_BOUND_VERSION,
    DELTA_CDF_BOUND_TIMESTAMP
} delta_cdf_bound_kind;

typedef struct delta_cdf_bound {
    delta_cdf_bound_kind kind;
    int64_t version;   /* BOUND_VERSION, >= 0 */
    int64_t ts_micros; /* BOUND_TIMESTAMP, UTC */
} delta_cdf_bound;

#define DELTA_CDF_BOUND_INIT {DELTA_CDF_BOUND_NONE, 0, 0}

/*
 * Resolves the bounds of a batch read to versions as Delta's
 * CDCReader.getCDCRelation does, against latest (the table's newest
 * snapshot): a starting timestamp is the first commit at or after it
 * ([DELTA_TIMESTAMP_GREATER_THAN_COMMIT] after the latest commit), an ending
 * timestamp the last commit at or before it (the earliest commit when before
 * all, the latest when after all); no start is [DELTA_NO_START_FOR_CDC_READ];
 * a start after the latest version or an end before the start is
 * [DELTA_INVALID_CDC_RANGE]; an end after the latest version reads to the
 * latest. SILT_INVALID for those, SILT_IO/SILT_CORRUPT from the log.
 */
silt_status delta_cdf_resolve(io_store *store, const delta_snapshot *latest,
                              const delta_cdf_bound *start, const delta_cdf_bound *end,
                              int64_t *start_out, int64_t *end_out, silt_error *err);

typedef struct delta_cdf_options {
    unsigned version;
    int64_t start_version; /* first commit read, >= 0 */
    int64_t end_version;   /* last commit read (inclusive), >= start_version */
    int64_t batch_rows;    /* 0 = the Parquet reader's default */
} delta_cdf_options;

#define DELTA_CDF_OPTIONS_INIT {1, 0, 0, 0}

typedef struct delta_cdf delta_cdf;

/*
 * Opens a reader of the changes of commits start_version..end_version of the
 * table at the root of store, with the columns of schema_snap (borrowed, as
 * is store; both must outlive the reader; normally the latest snapshot,
 * whose version must be >= end_version). Checks that the change data feed
 * was enabled at start_version (its snapshot is loaded) and that every
 * commit of the range is in the log; commits are read when the reader gets
 * to them. The reader belongs to the caller (delta_cdf_free).
 */
silt_status delta_cdf_open(delta_cdf **out, io_store *store, const delta_snapshot *schema_snap,
                           const delta_cdf_options *opts, silt_error *err);

/* The STRUCT type of the batches: schema_snap's columns, then the three change columns. */
const col_type *delta_cdf_schema(const delta_cdf *cdf);

/*
 * The next non-empty batch of change rows in *out (allocated in a), or
 * *out = NULL after the last commit. Batches come in commit order, and
 * within a commit in the order of its actions. Errors: the ones of
 * delta_cdf_open for a commit that disables the feed, SILT_NOTFOUND for a
 * data or change file that is gone (VACUUM), SILT_CORRUPT, SILT_IO.
 */
silt_status delta_cdf_next(delta_cdf *cdf, arena *a, col_batch **out, silt_error *err);

/* Data and change files read so far. */
size_t delta_cdf_files_read(const delta_cdf *cdf);

void delta_cdf_free(delta_cdf *cdf);

/*
 * The STRUCT type of change rows over a table schema: its fields, then
 * _change_type STRING, _commit_version LONG, _commit_timestamp TIMESTAMP
 * (allocated in a), for binders that need the shape before a reader exists.
 */
silt_status delta_cdf_row_schema(arena *a, const col_type *table_schema, const col_type **out,
                                 silt_error *err);

#endif
