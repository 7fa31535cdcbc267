/*
 * silt/parquet.h - inspecting and dumping Parquet files (behind the
 * `silt parquet` command).
 *
 * These calls open a Parquet file by path through the connection's
 * database (its store options), format what is asked into the caller's
 * silt_text_fn and close the file; they keep no state between calls. As
 * every call on a connection, one thread at a time per connection. Errors
 * are the connection's (silt_conn_errmsg, silt_conn_errcode, ...).
 */
#ifndef SILT_PARQUET_H
#define SILT_PARQUET_H

#include <stddef.h>
#include <stdint.h>

#include "silt/common.h"
#include "silt/output.h"
#include "silt/sql.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of silt_parquet_format_rows; start from SILT_PARQUET_CAT_OPTIONS_INIT. Since 0.1. */
typedef struct silt_parquet_cat_options {
    unsigned version;          /**< SILT_PARQUET_CAT_OPTIONS_VERSION (1 up to it is accepted) */
    const char *columns;       /**< comma-separated column names or dotted struct paths; NULL = all */
    int64_t limit;             /**< at most this many rows; negative = all */
    silt_output_format format; /**< silt/output.h; table shows at most `limit` (or 20) rows */
} silt_parquet_cat_options;

#define SILT_PARQUET_CAT_OPTIONS_VERSION 1
#define SILT_PARQUET_CAT_OPTIONS_INIT {SILT_PARQUET_CAT_OPTIONS_VERSION, NULL, -1, SILT_OUTPUT_JSONL}

/**
 * Formats the schema of the Parquet file at path into fn: the Delta types
 * silt reads it as, in the tree layout of Spark's printSchema(); with
 * parquet_layout set, the Parquet schema itself (physical types,
 * repetition, annotations, field ids).
 *
 * @return SILT_OK; SILT_NOTFOUND when the file does not exist; SILT_CORRUPT
 *         when it is not valid Parquet; SILT_UNSUPPORTED (e.g. encrypted);
 *         SILT_IO when fn stops; SILT_INVALID (NULL arguments, not a file
 *         path). Nothing is given to fn when the call fails before the
 *         text is complete. Since 0.1.
 */
SILT_API silt_status silt_parquet_format_schema(silt_conn *conn, const char *path,
                                                int parquet_layout, silt_text_fn fn,
                                                void *payload);

/**
 * Formats the metadata of the Parquet file at path into fn: writer, rows,
 * key/value metadata, and per row group its column chunks with codec,
 * encodings, value counts, sizes, page offsets and statistics.
 *
 * @return as silt_parquet_format_schema. Since 0.1.
 */
SILT_API silt_status silt_parquet_format_meta(silt_conn *conn, const char *path, silt_text_fn fn,
                                              void *payload);

/**
 * Formats the rows of the Parquet file at path into fn in the chosen
 * format, batch by batch. opts may be NULL (all columns, all rows, JSON
 * lines).
 *
 * @return as silt_parquet_format_schema; SILT_NOTFOUND also for a column
 *         that does not exist; SILT_INVALID for invalid options. Rows given
 *         to fn before an error stay given. Since 0.1.
 */
SILT_API silt_status silt_parquet_format_rows(silt_conn *conn, const char *path,
                                              const silt_parquet_cat_options *opts,
                                              silt_text_fn fn, void *payload);

#ifdef __cplusplus
}
#endif
#endif
