/*
 * output.h - formatting batches in the formats of silt/output.h into a
 * caller's silt_text_fn. Used by every public call that formats rows
 * (table rows, Parquet rows, SQL results), so that all of them look the
 * same.
 */
#ifndef SILT_API_OUTPUT_H
#define SILT_API_OUTPUT_H

#include "formats/columnar.h"
#include "silt/output.h"
#include "util/error.h"
#include "util/time_zone.h"

typedef struct api_printer api_printer;

/* Starts formatting rows of `schema` into fn. Nothing is given to fn yet. */
silt_status api_printer_new(api_printer **out, silt_text_fn fn, void *payload,
                            const col_type *schema, const silt_output_options *opts,
                            const time_zone *zone, silt_error *err);
/* Prints (or, for the table format, collects) a batch. */
silt_status api_printer_add(api_printer *p, const col_batch *batch, silt_error *err);
/* Gives fn what is left (the table and its footer). */
silt_status api_printer_finish(api_printer *p, silt_error *err);
/* 1 when no more rows are wanted (the table has max_rows + 1 rows already). */
int api_printer_full(const api_printer *p);
void api_printer_free(api_printer *p);

/* Gives text to fn; SILT_IO when fn stops. */
silt_status api_emit(silt_text_fn fn, void *payload, const char *text, size_t len,
                     silt_error *err);

/* Fills out from the caller's output options (NULL = defaults), by the version rule. */
silt_status api_output_options(silt_output_options *out, const silt_output_options *given,
                               silt_error *err);

#endif
