/*
 * output.h - printing batches in the formats of silt/output.h. Used by every
 * public call that prints rows (table scan, parquet cat, later SQL results),
 * so that all of them look the same.
 */
#ifndef SILT_API_OUTPUT_H
#define SILT_API_OUTPUT_H

#include <stdio.h>

#include "formats/columnar.h"
#include "silt/output.h"
#include "util/error.h"

typedef struct api_printer api_printer;

/* Starts printing rows of `schema` to out. Nothing is written yet. */
silt_status api_printer_new(api_printer **out, FILE *file, const col_type *schema,
                            const silt_output_options *opts, silt_error *err);
/* Prints (or, for the table format, collects) a batch. */
silt_status api_printer_add(api_printer *p, const col_batch *batch, silt_error *err);
/* Writes what is left (the table and its footer) and flushes. */
silt_status api_printer_finish(api_printer *p, silt_error *err);
/* 1 when no more rows are wanted (the table has max_rows + 1 rows already). */
int api_printer_full(const api_printer *p);
void api_printer_free(api_printer *p);

#endif
