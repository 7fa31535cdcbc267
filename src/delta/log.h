/*
 * log.h - the files of `_delta_log/` and the log segment of a version.
 *
 * PROTOCOL: Delta Log Entries, Checkpoints, Checkpoint Naming Scheme, Log
 * Compaction Files, Last Checkpoint File. A table's state at version V is
 * the newest complete checkpoint at or below V plus the commits after it up
 * to V (the "log segment"). This module lists the log through io_store,
 * recognises every file name the protocol defines, and picks that segment:
 *
 *   NNNNNNNNNNNNNNNNNNNN.json                 commit
 *   N.checkpoint.parquet                      classic checkpoint
 *   N.checkpoint.K.M.parquet                  part K of M (used only when all M exist)
 *   N.checkpoint.<uuid>.json|parquet          V2 (UUID-named) checkpoint
 *   X.Y.compacted.json                        log compaction (recognised, not used:
 *                                             the commits it covers are read instead)
 *   N.crc, _last_checkpoint, anything else    not part of the segment
 *
 * The segment owns its strings (mem_alloc); free with dlog_segment_clear.
 */
#ifndef SILT_DELTA_LOG_H
#define SILT_DELTA_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "delta/actions.h"
#include "io/store.h"
#include "util/error.h"

#define DLOG_DIR "_delta_log/"

typedef enum dlog_file_kind {
    DLOG_FILE_OTHER = 0,
    DLOG_FILE_COMMIT,
    DLOG_FILE_CHECKPOINT,      /* classic single file */
    DLOG_FILE_CHECKPOINT_PART, /* multi-part */
    DLOG_FILE_CHECKPOINT_V2,   /* UUID-named */
    DLOG_FILE_COMPACTION,
    DLOG_FILE_CRC,
    DLOG_FILE_LAST_CHECKPOINT
} dlog_file_kind;

typedef struct dlog_file {
    char *key; /* full store key, "_delta_log/..." (owned) */
    dlog_file_kind kind;
    int64_t version;
    int64_t end_version; /* compaction only */
    int32_t part, n_parts; /* multi-part only */
    int is_json;           /* checkpoint format: 1 JSON, 0 Parquet */
    int64_t size;
    int64_t mtime_micros;
} dlog_file;

/*
 * Recognises a file name (the part after "_delta_log/"). Fills kind and the
 * numbers; returns the kind (DLOG_FILE_OTHER for names that are not log files).
 */
dlog_file_kind dlog_classify(const char *name, dlog_file *out);

/* A checkpoint: one file, or all parts of a multi-part one, in part order. */
typedef struct dlog_checkpoint {
    int64_t version; /* -1 = none */
    dlog_file_kind kind;
    size_t n_files;
    dlog_file *files; /* borrowed from the listing that made it */
} dlog_checkpoint;

/* Everything in `_delta_log/`, classified and sorted by (version, name). */
typedef struct dlog_listing {
    size_t n_files;
    dlog_file *files;
    int64_t latest_version;   /* newest version that can be read; -1 = none */
    int64_t earliest_version; /* oldest version that can be read; -1 = none */
} dlog_listing;

#define DLOG_LISTING_INIT {0, NULL, -1, -1}

/*
 * Lists `_delta_log/` (all of it when start_after_version < 0, else only
 * entries sorting after that version's commit name). SILT_NOTFOUND when the
 * folder holds no log files ("not a Delta table").
 */
silt_status dlog_list(dlog_listing *out, io_store *store, int64_t start_after_version,
                      silt_error *err);
void dlog_listing_clear(dlog_listing *listing);

/*
 * The commit times Delta reads from a listing, in ms: each commit file's
 * modification time, made monotonic in version order as Delta's history
 * does when file times go backwards (a copied table): max(own, previous
 * commit's + 1). out_ms[i] is for listing->files[i] (INT64_MIN for entries
 * that are not commits). DESCRIBE HISTORY and TIMESTAMP AS OF both use it.
 */
void dlog_listing_commit_times(const dlog_listing *listing, int64_t *out_ms);

/* Commit file of a version in a listing, or NULL. */
const dlog_file *dlog_listing_commit(const dlog_listing *listing, int64_t version);

/*
 * Newest complete checkpoint at or below max_version (and not above it)
 * into out (version -1 when there is none). When skip_parquet is set,
 * checkpoints whose top-level file is Parquet are passed over.
 */
void dlog_newest_checkpoint(const dlog_listing *listing, int64_t max_version, int skip_parquet,
                            dlog_checkpoint *out);

/* The files to replay for one version. Borrowed from a dlog_listing. */
typedef struct dlog_segment {
    int64_t version;
    dlog_checkpoint checkpoint; /* version -1 when replay starts at commit 0 */
    size_t n_commits;
    const dlog_file **commits; /* ascending, checkpoint.version+1 .. version (owned array) */
} dlog_segment;

#define DLOG_SEGMENT_INIT {-1, {-1, DLOG_FILE_OTHER, 0, NULL}, 0, NULL}

/*
 * Picks the segment for version (-1 = latest). SILT_NOTFOUND when the
 * version does not exist or was cleaned up (Delta's "[DELTA_VERSION_NOT_FOUND]
 * ... Available versions: [A, B]."), SILT_CORRUPT when a commit between the checkpoint and the version is
 * missing (naming it). With use_checkpoints = 0 the segment is all commits
 * 0..version (for readers without a Parquet checkpoint reader).
 */
silt_status dlog_segment_build(dlog_segment *out, const dlog_listing *listing, int64_t version,
                               int use_checkpoints, silt_error *err);
void dlog_segment_clear(dlog_segment *seg);

/*
 * Reads a JSON log file (commit, JSON checkpoint, compaction) in chunks and
 * parses it line by line, calling fn for every action: memory stays at one
 * chunk plus the longest line (at most DLOG_MAX_LINE bytes, else
 * SILT_CORRUPT), however big the commit. SILT_NOTFOUND when the file is gone.
 */
#define DLOG_MAX_LINE ((size_t)1 << 30)
silt_status dlog_read_json_file(io_store *store, const char *key, arena *a, dlog_action_fn fn,
                                void *payload, silt_error *err);

/*
 * Reads `_delta_log/_last_checkpoint` (PROTOCOL: Last Checkpoint File).
 * Returns SILT_OK with *version_out = -1 when it is missing or cannot be
 * parsed: the file is only a hint, and a corrupt one is ignored so that the
 * caller falls back to listing. Store failures are returned.
 */
silt_status dlog_read_last_checkpoint(io_store *store, int64_t *version_out, silt_error *err);

#endif
