/*
 * source_int.h - what the scans of Delta tables and of Parquet files share
 * (source.c, source_scan.c): their unit of parallel work and its sizing,
 * the pushed filters on a reader, and their run-time counters.
 */
#ifndef SILT_SQL_SOURCE_INT_H
#define SILT_SQL_SOURCE_INT_H

#include "delta/scan.h"
#include "engine/op.h"
#include "formats/parquet/parquet.h"
#include "util/buf.h"

/*
 * A unit of a parallel scan (a morsel): a row group of a file, a range of
 * rows of one (when row groups are few or large for the threads), or a
 * whole file (span all zero). Delta data files and plain Parquet files are
 * cut the same way; a Delta unit is read by a delta_scan over a one-file
 * snapshot with delta_scan_options.span, so its deletion vector applies by
 * row position and a row index column can be produced (row identity).
 */
typedef struct scan_unit {
    size_t file_idx;
    pq_span span;
} scan_unit;

/*
 * Cuts files (open footers) into units for a pool of width threads, in
 * the files' row order: at least SCAN_UNITS_PER_THREAD units per thread
 * when the rows allow it, no row range under SCAN_UNIT_MIN_ROWS rows, row
 * ranges only in files whose projected columns (cols, NULL = all) are
 * flat, cut at page starts of the largest projected column. *n_split is
 * the number of row groups split into ranges. Units live in a.
 */
#define SCAN_UNITS_PER_THREAD 4
#define SCAN_UNIT_MIN_ROWS ((int64_t)1 << 17)
silt_status sql_scan_units_split(arena *a, size_t width, pq_file *const *files, size_t n_files,
                             const char *const *cols, size_t n_cols, scan_unit **out,
                             size_t *n_out, size_t *n_split, silt_error *err);

/* Sets the row-group and page filters of opts from f (nothing when f has no conjunct). */
void sql_scan_set_filters(pq_read_options *opts, dscan_filter *f);

/* dst += src, safe against other workers adding at once. */
void sql_scan_counters_merge(dscan_counters *dst, const dscan_counters *src);

/*
 * Run-time notes of a scan operator for EXPLAIN ANALYZE, in the shape of
 * an operator note callback: files, row groups read and skipped, pages
 * read and skipped, of the serial scan and its morsels together (one line,
 * delta_scan_counters_note). Payload: the scan operator's own payload (the
 * Delta source, or the Parquet source, source.c).
 */
silt_status sql_source_delta_note(const engine_op *op, void *payload, buf *out, silt_error *err);
silt_status sql_source_parquet_note(const engine_op *op, void *payload, buf *out, silt_error *err);

#endif
