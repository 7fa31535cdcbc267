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
 *   - rows marked in the file's deletion vector are dropped.
 * Tables that need a reader feature silt lacks are refused before reading.
 */
#ifndef SILT_DELTA_SCAN_H
#define SILT_DELTA_SCAN_H

#include "delta/snapshot.h"
#include "formats/columnar.h"

typedef struct delta_scan delta_scan;

typedef struct delta_scan_options {
    unsigned version;
    /* Logical top-level columns to produce, in this order; NULL = all of them. */
    const char *const *columns;
    size_t n_columns;
    int64_t batch_rows; /* 0 = the reader's default */
    /* Row identity (Spark's _metadata.row_index): a LONG column of this name appended after
     * the columns, each row's position in its data file counted before the deletion vector
     * drops rows; NULL = none. DML keys its rewrites and (later) deletion vectors on it. */
    const char *row_index_column;
} delta_scan_options;

#define DELTA_SCAN_OPTIONS_INIT {1, NULL, 0, 0, NULL}

/* store and snap are borrowed and must outlive the scan. */
silt_status delta_scan_open(delta_scan **out, io_store *store, const delta_snapshot *snap,
                            const delta_scan_options *opts, silt_error *err);
/* The STRUCT type of the batches (logical names). */
const col_type *delta_scan_schema(const delta_scan *scan);
/* Next non-empty batch in *out (allocated in a), or *out = NULL at the end. */
silt_status delta_scan_next(delta_scan *scan, arena *a, col_batch **out, silt_error *err);
/* Files opened so far. */
size_t delta_scan_files_read(const delta_scan *scan);
void delta_scan_free(delta_scan *scan);

#endif
