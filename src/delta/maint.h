/*
 * maint.h - table maintenance: VACUUM (vacuum.c), OPTIMIZE [ZORDER BY]
 * (optimize.c) and symlink format manifests (manifest.c), as Delta 4 does
 * them (docs/maintenance.md).
 */
#ifndef SILT_DELTA_MAINT_H
#define SILT_DELTA_MAINT_H

#include "delta/txn.h"
#include "delta/write.h"
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
    /* the table's states on the catalog's branches and tags: their files are kept too */
    size_t n_also_keep;
    const struct delta_snapshot *const *also_keep;
} delta_vacuum_options;

#define DELTA_VACUUM_OPTIONS_INIT {1, 0, 0, 0, 1, 0, 0, NULL}

typedef struct delta_vacuum_result {
    io_listing files;       /* what was (dry run: would be) deleted, keys under the root */
    int64_t bytes;          /* their size */
    int64_t n_dirs;         /* directories listed, the root included (Delta's count) */
    int64_t n_temps;        /* of files: dead `.silt-tmp-*` files of killed writers */
    io_listing folders;     /* the empty folders deleted (dry run: to delete), sorted */
} delta_vacuum_result;

#define DELTA_VACUUM_RESULT_INIT {IO_LISTING_INIT, 0, 0, 0, IO_LISTING_INIT}
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

/* ---- OPTIMIZE ---------------------------------------------------------------------------- */

/* Delta's spark.databricks.delta.optimize.maxFileSize and minFileSize defaults (1 GiB). */
#define DELTA_OPTIMIZE_DEFAULT_FILE_SIZE (INT64_C(1) << 30)

typedef struct delta_optimize_options {
    unsigned version;
    /* WHERE over partition columns: an exact filter of the files (NULL = all). */
    delta_file_filter_fn file_filter;
    void *file_filter_payload;
    const char *predicate_text; /* for history; NULL = none */
    size_t n_zorder;            /* ZORDER BY columns (logical names), 0 = bin-packing */
    const char *const *zorder;
    int64_t max_file_size; /* bin size and output file size; 0 = the default */
    int64_t min_file_size; /* files at least this big are left alone; 0 = max_file_size */
    const char *compression;
    tpool *pool;
    int64_t retry_timeout_ms;
    const char *user_metadata;
    /* REORG ... APPLY (PURGE): only the files with a deletion vector, each rewritten without
     * it whatever its size (bins as OPTIMIZE's); operation REORG, {predicate, applyPurge} */
    int purge;
    /*
     * ZORDER BY: the most bytes of decoded rows one pass over a bin holds
     * (0 = DELTA_ZORDER_MEMORY_DEFAULT). A bin larger than this is ordered
     * in several passes, each reading the bin again (optimize.c).
     */
    int64_t zorder_memory;
} delta_optimize_options;

#define DELTA_OPTIMIZE_OPTIONS_INIT {1, NULL, NULL, NULL, 0, NULL, 0, 0, NULL, NULL, 0, NULL, 0, 0}
#define DELTA_ZORDER_MEMORY_DEFAULT (INT64_C(256) << 20)

typedef struct delta_file_set_stats {
    int64_t min, max, total_files, total_size; /* min/max 0 when no file */
} delta_file_set_stats;

typedef struct delta_optimize_metrics {
    delta_file_set_stats added, removed;
    int64_t partitions_optimized, num_bins, total_considered_files, total_files_skipped;
    int64_t dv_removed, dv_rows_removed;
    int64_t num_table_columns, num_table_columns_with_stats;
    int64_t start_ms, version; /* version -1 when nothing was committed */
    int64_t zorder_passes;     /* ZORDER BY: passes over bins that wrote files */
} delta_optimize_metrics;

/*
 * OPTIMIZE [WHERE] [ZORDER BY]: per partition, the files smaller than
 * min_file_size (or with a deletion vector) are packed into bins of at most
 * max_file_size and each bin of two files or more (or one with a deletion
 * vector) is rewritten as one file; with ZORDER BY every file of a
 * partition is rewritten, rows ordered by the interleaved bits of the
 * columns' ranks, into files of max_file_size. One commit, operation
 * OPTIMIZE, dataChange false, SnapshotIsolation: only the files it
 * rewrites are read, so concurrent appends never conflict. Nothing to do:
 * no commit (metrics->version -1). Deletion vectors are applied.
 */
silt_status delta_optimize(io_store *store, const delta_snapshot *snap,
                           const delta_optimize_options *opts, delta_optimize_metrics *metrics,
                           silt_error *err);

/* ---- symlink format manifests ------------------------------------------------------------ */

#define DELTA_MANIFEST_DIR "_symlink_format_manifest/"
#define DELTA_MANIFEST_PROPERTY "delta.compatibility.symlinkFormatManifest.enabled"

/*
 * GENERATE symlink_format_manifest: `_symlink_format_manifest/<partition
 * folder>/manifest` (or `_symlink_format_manifest/manifest` unpartitioned)
 * listing the absolute paths (`file:/...`, one a line) of the snapshot's
 * live files of that partition; manifests of partitions without files are
 * deleted. Refused, by Delta's names, for tables with deletion vectors or
 * column mapping, which manifest readers cannot read right.
 */
silt_status delta_manifest_generate(io_store *store, const delta_snapshot *snap, silt_error *err);

/*
 * The same for the partitions of the given partition values only (the files a
 * commit touched): each gets its manifest rewritten, or deleted when it has no
 * live file left.
 */
silt_status delta_manifest_update(io_store *store, const delta_snapshot *snap,
                                  const dlog_map *const *touched, size_t n_touched,
                                  silt_error *err);

/* Whether a table's metadata asks for the manifests to follow every commit. */
int delta_manifest_auto_update(const dlog_metadata *metadata);

/* ---- CONVERT TO DELTA ---------------------------------------------------------------------- */

typedef struct delta_convert_options {
    unsigned version;
    size_t n_partition_columns; /* PARTITIONED BY (col type, ...) */
    const char *const *partition_columns;
    const col_type *const *partition_types;
    int collect_stats; /* statistics from the Parquet footers (Delta's default) */
} delta_convert_options;

/*
 * CONVERT TO DELTA parquet.`root` in place: one commit (version 0, operation
 * CONVERT) adding every Parquet file under the root outside hidden folders,
 * with partition values from its `col=value` folders (which must name the
 * partition columns, in order: Delta's DELTA_UNEXPECTED_... errors
 * otherwise) and statistics from its footer. *n_files_out is the number of
 * files, -1 when the folder is a Delta table already (nothing is done, as in
 * Delta). Files of another schema than the first are refused.
 */
silt_status delta_convert_parquet(io_store *store, const delta_convert_options *opts,
                                  int64_t *n_files_out, silt_error *err);

/* ---- CLONE and LIKE ------------------------------------------------------------------------ */

typedef struct delta_clone_options {
    unsigned version;
    int like;                 /* CREATE TABLE ... LIKE: metadata only */
    int shallow;              /* SHALLOW CLONE: the adds name the source's files, nothing copied */
    const char *source_name;  /* for history (CLONE's "source") */
    const dlog_map *properties; /* TBLPROPERTIES of the statement, over the source's; may be NULL */
    int is_managed;
} delta_clone_options;

typedef struct delta_clone_metrics {
    int64_t source_table_size, source_num_of_files, num_copied_files, copied_files_size;
} delta_clone_metrics;

/*
 * DEEP CLONE (like = 0), SHALLOW CLONE (shallow = 1) or LIKE of snapshot src
 * (of the table at source) into a new table at target: one commit at version
 * 0 (see clone.c).
 */
silt_status delta_clone(io_store *target, io_store *source, const delta_snapshot *src,
                        const delta_clone_options *o, delta_clone_metrics *m, silt_error *err);

#endif
