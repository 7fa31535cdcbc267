/*
 * silt/output.h - how results are printed by the inspection calls and the
 * `silt` command.
 */
#ifndef SILT_OUTPUT_H
#define SILT_OUTPUT_H

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
    SILT_OUTPUT_JSON = 3   /**< Spark's JSON lines (toJSON): nulls left out */
} silt_output_format;

/** Printing options; start from SILT_OUTPUT_OPTIONS_INIT. Since 0.1. */
typedef struct silt_output_options {
    unsigned version;          /**< 1 */
    silt_output_format format; /**< default SILT_OUTPUT_TABLE */
    int64_t max_rows;          /**< table format: rows shown (default 20); < 0 = all */
    int32_t truncate;          /**< table format: cut cells to this width (20); 0 = never */
} silt_output_options;

#define SILT_OUTPUT_OPTIONS_INIT {1, SILT_OUTPUT_TABLE, 20, 20}

/**
 * Parses a format name ("table", "csv", "jsonl", "json").
 * @return SILT_OK, or SILT_INVALID for another name. Since 0.1.
 */
SILT_API silt_status silt_output_format_parse(const char *name, silt_output_format *out);

#ifdef __cplusplus
}
#endif
#endif
