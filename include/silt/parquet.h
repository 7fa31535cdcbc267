/*
 * silt/parquet.h - inspecting and dumping Parquet files (behind the
 * `silt parquet` command).
 *
 * These calls open a local Parquet file by path, do their work and close it;
 * they keep no state between calls and are safe to call from several
 * threads at once. Errors are returned as a status code, with the full
 * message (context lines included) written into errbuf when errbuf_len > 0.
 */
#ifndef SILT_PARQUET_H
#define SILT_PARQUET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "silt/common.h"
#include "silt/output.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of silt_parquet_cat; initialise with SILT_PARQUET_CAT_OPTIONS_INIT. */
typedef struct silt_parquet_cat_options {
    unsigned version;          /**< 1 */
    const char *columns;       /**< comma-separated column names or dotted struct paths; NULL = all */
    int64_t limit;             /**< at most this many rows; negative = all */
    silt_output_format format; /**< silt/output.h; table shows at most `limit` (or 20) rows */
} silt_parquet_cat_options;

#define SILT_PARQUET_CAT_OPTIONS_INIT {1, NULL, -1, SILT_OUTPUT_JSONL}

/**
 * Prints the schema of the Parquet file at path to out: the Delta types
 * silt reads it as, in the tree layout of Spark's printSchema(); with
 * parquet_layout set, the Parquet schema itself (physical types,
 * repetition, annotations, field ids).
 *
 * @return SILT_OK; SILT_NOTFOUND when the file does not exist; SILT_CORRUPT
 *         when it is not valid Parquet; SILT_UNSUPPORTED (e.g. encrypted).
 * Since 0.1.
 */
SILT_API silt_status silt_parquet_print_schema(FILE *out, const char *path, int parquet_layout,
                                               char *errbuf, size_t errbuf_len);

/**
 * Prints the metadata of the Parquet file at path to out: writer, rows,
 * key/value metadata, and per row group its column chunks with codec,
 * encodings, value counts, sizes, page offsets and statistics.
 *
 * @return as silt_parquet_print_schema. Since 0.1.
 */
SILT_API silt_status silt_parquet_print_meta(FILE *out, const char *path, char *errbuf,
                                             size_t errbuf_len);

/**
 * Prints the rows of the Parquet file at path to out in the chosen format.
 * opts may be NULL (all columns, all rows, JSON lines).
 *
 * @return as silt_parquet_print_schema; SILT_NOTFOUND also for a column
 *         that does not exist; SILT_INVALID for invalid options;
 *         SILT_UNSUPPORTED for a format this build does not provide.
 * Since 0.1.
 */
SILT_API silt_status silt_parquet_cat(FILE *out, const char *path,
                                      const silt_parquet_cat_options *opts, char *errbuf,
                                      size_t errbuf_len);

#ifdef __cplusplus
}
#endif
#endif
