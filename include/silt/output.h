/*
 * silt/output.h - how the formatting calls (silt_conn_format,
 * silt_table_format_rows, silt_parquet_format_*) lay out text, and the
 * callback that receives it. The library writes to no FILE: the caller's
 * callback does the printing (the `silt` command writes to stdout).
 */
#ifndef SILT_OUTPUT_H
#define SILT_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "silt/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Output formats. Since 0.1. */
typedef enum silt_output_format {
    SILT_OUTPUT_TABLE = 0, /**< Spark's show(): borders, truncated cells */
    SILT_OUTPUT_CSV = 1,   /**< header line and RFC 4180 rows, as Spark writes CSV */
    SILT_OUTPUT_JSONL = 2, /**< canonical JSON lines (conformance README format) */
    SILT_OUTPUT_JSON = 3,  /**< Spark's JSON lines (toJSON): nulls left out */
    SILT_OUTPUT_VERTICAL = 4 /**< Spark's show(n, truncate, vertical = true). Since 0.1. */
} silt_output_format;

/**
 * Receives the formatted text piece by piece, in order (len bytes, not
 * NUL-terminated; a piece may hold several lines or part of one). Return 0
 * to go on; any other value stops the call, which fails with SILT_IO.
 * Since 0.1.
 */
typedef int (*silt_text_fn)(void *payload, const char *text, size_t len);

/** Formatting options; start from SILT_OUTPUT_OPTIONS_INIT. Since 0.1. */
typedef struct silt_output_options {
    unsigned version;          /**< SILT_OUTPUT_OPTIONS_VERSION (1 up to it is accepted) */
    silt_output_format format; /**< default SILT_OUTPUT_TABLE */
    int64_t max_rows;          /**< table and vertical formats: rows shown (default 20); < 0 = all */
    int32_t truncate;          /**< table and vertical formats: cut cells to this width (20); 0 = never */
} silt_output_options;

#define SILT_OUTPUT_OPTIONS_VERSION 1
#define SILT_OUTPUT_OPTIONS_INIT {SILT_OUTPUT_OPTIONS_VERSION, SILT_OUTPUT_TABLE, 20, 20}

/**
 * Parses a format name ("table", "vertical", "csv", "jsonl", "json").
 * @return SILT_OK, or SILT_INVALID for another name. Since 0.1.
 */
SILT_API silt_status silt_output_format_parse(const char *name, silt_output_format *out);

#ifdef __cplusplus
}
#endif
#endif
