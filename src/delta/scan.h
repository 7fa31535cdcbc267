/*
 * scan.h - reading the rows of a Delta snapshot: the meeting point of the
 * log and the Parquet reader (DESIGN.md, Layers).
 *
 * A scan walks the snapshot's active files and turns each Parquet file into
 * batches of the table's logical schema:
 *   - column mapping: data files are read by physical name (name mode) or
 *     field id (id mode), at every nesting level; output uses logical names;
 *   - partition columns are filled from the file's partitionValues;
 *   - columns absent from an older file read as null;
 *   - widened types (PROTOCOL: Type Widening) are converted to the table's;
 *   - rows marked in the file's deletion vector are dropped, by row position;
 *   - pushed conjuncts skip Parquet row groups and pages (the same filters
 *     plain Parquet scans use), and a scan may read one unit of a file.
 * Tables that need a reader feature silt lacks are refused before reading.
 */
#ifndef SILT_DELTA_SCAN_H
#define SILT_DELTA_SCAN_H

#include "delta/snapshot.h"
#include "delta/stats.h"
#include "formats/columnar.h"
#include "formats/parquet/parquet.h"
#include "util/buf.h"

typedef struct delta_scan delta_scan;

typedef struct delta_scan_options {
    unsigned version;
    /* Logical top-level columns to produce, in this order; NULL = all of them. */
    const char *const *columns;
    size_t n_columns;
    int64_t batch_rows; /* 0 = the reader's default */
    /*
     * Row identity (Spark's _metadata.row_index): a LONG column of this
     * name appended after the columns, each row's position in its data file
     * (0 = the file's first row) counted before the deletion vector drops
     * rows (row groups, ranges and pages left unread are counted too);
     * NULL = none. DML keys its rewrites (and later deletion vectors) on it.
     */
    const char *row_index_column;
    /*
     * Pushed conjuncts on logical columns (sql_pushdown_preds): the Parquet row
     * groups and pages whose statistics refute one are not read. Rows are
     * not filtered by them; the caller still evaluates its WHERE.
     */
    const dpred *preds;
    size_t n_preds;
    /* The part of each file to read: a scan unit of a one-file snapshot. All zero: whole files. */
    pq_span span;
    /* The open footer of the one file of the snapshot, shared by its units (borrowed), or NULL. */
    pq_file *file;
} delta_scan_options;

#define DELTA_SCAN_OPTIONS_INIT {1, NULL, 0, 0, NULL, NULL, 0, {0, 0, 0, 0}, NULL}

/*
 * What a scan read: files, Parquet row groups read and skipped (by
 * statistics or the page index), data pages decoded and skipped. The plain
 * Parquet scan of sql/ counts into the same struct.
 */
typedef struct dscan_counters {
    size_t files, row_groups_read, row_groups_skipped, pages_read, pages_skipped;
} dscan_counters;

/* Adds a finished reader's counts to c. */
void delta_scan_counters_add_reader(dscan_counters *c, const pq_reader *reader);
/* Appends the counters as one note line ("files: 1, row groups: 1 read, 9 skipped, ..."). */
silt_status delta_scan_counters_note(const dscan_counters *c, buf *out, silt_error *err);

/*
 * Pushed conjuncts as the Parquet reader's row-group and page filters
 * (payload: a dscan_filter). leaves[p] is the file's leaf path preds[p] is
 * about (NULL: none, so it skips nothing). The filters only read it, so
 * readers in several threads may share one.
 */
typedef struct dscan_filter {
    const dpred *preds;
    const char *const *leaves;
    size_t n_preds;
} dscan_filter;

int delta_scan_row_group_filter(const pq_leaf_stats *stats, size_t n_stats, int64_t num_rows,
                           void *payload);
int delta_scan_page_filter(const pq_leaf_stats *stats, int64_t first_row, void *payload);

/* store and snap are borrowed and must outlive the scan. */
silt_status delta_scan_open(delta_scan **out, io_store *store, const delta_snapshot *snap,
                            const delta_scan_options *opts, silt_error *err);
/* The STRUCT type of the batches (logical names). */
const col_type *delta_scan_schema(const delta_scan *scan);
/* Next non-empty batch in *out (allocated in a), or *out = NULL at the end. */
silt_status delta_scan_next(delta_scan *scan, arena *a, col_batch **out, silt_error *err);
/* Files opened so far. */
size_t delta_scan_files_read(const delta_scan *scan);
/* The data file the last batch came from (its log path, decoded), or NULL before the first. */
const char *delta_scan_current_path(const delta_scan *scan);
/* The counters so far (files finished and the one being read). */
void delta_scan_get_counters(const delta_scan *scan, dscan_counters *out);
void delta_scan_free(delta_scan *scan);

/*
 * A data file the log lists is gone (rc SILT_NOTFOUND from opening it): says so with the
 * version read, the usual cause being VACUUM after the version's files fell out of the
 * retention (Spark: FAILED_READ_FILE.FILE_NOT_EXIST). Returns rc.
 */
silt_status delta_scan_missing_file(silt_status rc, int64_t version, silt_error *err);

/* Whether an action's path is absolute ("/x", "file:/x", "s3://b/x"): not a key of the table. */
int delta_path_is_absolute(const char *path);

/*
 * Where the file an action names lives (paths.c): *store and *key to read it
 * with. A relative path is a key of table; an absolute local path ("/x",
 * "file:/x", "file:///x") a key of table when it lies in the table's folder,
 * else of the local root store (a shallow clone's source files), when the
 * table is local; "." and ".." segments are refused either way, and absolute
 * URIs of other stores are refused by name. *key points into path.
 */
silt_status delta_file_locate(io_store *table, const char *path, io_store **store,
                              const char **key, silt_error *err);

/* A Parquet statistic as a delta_value of the leaf's type; 0 for types pruning does not use. */
int delta_scan_stat_value(const pq_stat_value *s, const col_type *t, delta_value *out);

#endif
