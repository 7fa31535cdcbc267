/*
 * maint.h - table maintenance: VACUUM (vacuum.c), OPTIMIZE [ZORDER BY]
 * (optimize.c) and symlink format manifests (manifest.c), as Delta 4 does
 * them (docs/maintenance.md).
 */
#ifndef SILT_DELTA_MAINT_H
#define SILT_DELTA_MAINT_H

#include "delta/txn.h"
#include "io/store.h"

/* ---- VACUUM ------------------------------------------------------------------------------ */

#define DELTA_DEFAULT_DELETED_FILE_RETENTION_MS (INT64_C(7) * 86400000)

typedef struct delta_vacuum_options {
    unsigned version;
    int has_retention;   /* RETAIN n HOURS given */
    int64_t retention_ms; /* its value */
    int dry_run;
    int check_retention; /* spark.databricks.delta.retentionDurationCheck.enabled */
    int64_t now_ms;      /* 0 = the wall clock */
} delta_vacuum_options;

#define DELTA_VACUUM_OPTIONS_INIT {1, 0, 0, 0, 1, 0}

typedef struct delta_vacuum_result {
    io_listing files;       /* what was (dry run: would be) deleted, keys under the root */
    int64_t bytes;          /* their size */
    int64_t n_dirs;         /* directories listed, the root included (Delta's count) */
    int64_t n_temps;        /* of files: dead `.silt-tmp-*` files of killed writers */
} delta_vacuum_result;

#define DELTA_VACUUM_RESULT_INIT {IO_LISTING_INIT, 0, 0, 0}
void delta_vacuum_result_clear(delta_vacuum_result *r);

/* The table's delta.deletedFileRetentionDuration in ms (7 days when unset). */
silt_status delta_deleted_file_retention_ms(const delta_snapshot *snap, int64_t *out,
                                            silt_error *err);

/*
 * VACUUM: deletes the files under the table root that no version within the
 * retention references (live adds, removes whose deletionTimestamp is
 * inside it, their deletion vectors) and that are older than the retention,
 * never in `_delta_log/` or a hidden folder or file (`_`/`.` prefix) other
 * than `_change_data` and partition folders; plus the provably dead temp
 * files of killed writers (io_sweep_dead_temps). A retention below the
 * table's with check_retention is SILT_INVALID
 * "[DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT] ...". Unless dry_run, commits
 * "VACUUM START" before deleting and "VACUUM END" after (commitInfo only),
 * as Delta 4 does.
 */
silt_status delta_vacuum(io_store *store, const delta_snapshot *snap,
                         const delta_vacuum_options *opts, delta_vacuum_result *out,
                         silt_error *err);

#endif
