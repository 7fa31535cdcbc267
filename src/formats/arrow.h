/*
 * arrow.h - column vectors through the Arrow C data interface: export (arrow.c)
 * and import (arrow_import.c).
 *
 * Results leave silt as Arrow arrays without copying the fixed-width and
 * variable-width buffers: the exported structures point into the vectors'
 * arena, and the arena is freed when the consumer has released every
 * exported node (the root and any children it moved out). Only booleans
 * (bytes in silt, bits in Arrow), dictionary-encoded strings (flattened) and
 * maps (which gain Arrow's "entries" struct level) are converted.
 */
#ifndef SILT_FORMATS_ARROW_H
#define SILT_FORMATS_ARROW_H

#include "formats/columnar.h"
#include "silt/arrow.h"

/*
 * Exports a batch as a struct array. Takes ownership of `owner`, the arena
 * the batch's vectors live in (it must hold nothing else that must outlive
 * the export): it is freed when the last exported node is released, also on
 * failure. The array's top-level fields are the batch's columns.
 */
silt_status arrow_export_batch(struct ArrowArray *out, const col_batch *batch, arena *owner,
                               silt_error *err);

/* Exports a STRUCT type as an Arrow schema (owned by the consumer). */
silt_status arrow_export_schema(struct ArrowSchema *out, const col_type *schema,
                                silt_error *err);

/*
 * Import (arrow_import.c): the caller's Arrow data becomes silt vectors.
 *
 * arrow_import_schema turns a stream's schema (a struct, "+s") into a
 * STRUCT col_type in arena a: booleans, int8-64 (uint8-32 widened),
 * float, double, decimal128, utf8/large_utf8 (string), binary/large_binary,
 * date32/date64 (date), timestamp s/ms/us/ns (with a zone: timestamp;
 * without: timestamp_ntz), struct, list/large_list, map; dictionary-encoded
 * columns take their dictionary's type. Other formats give SILT_UNSUPPORTED,
 * a malformed schema SILT_INVALID. The schema is not released.
 *
 * arrow_import_batch copies rows [start, start + n_rows) (n_rows -1: to
 * the end) of one record batch (a struct array of that schema, as
 * produced by get_next) into a col_batch in arena a, checking
 * it on the way (SILT_INVALID naming the column: negative lengths, wrong
 * buffer or child counts, missing buffers, offsets out of order or past
 * their child, dictionary indexes out of range, null rows). Nothing of the
 * array is referenced afterwards: the caller releases it (this function
 * never calls a release callback).
 */
silt_status arrow_import_schema(const col_type **out, arena *a, const struct ArrowSchema *schema,
                                silt_error *err);
silt_status arrow_import_batch(col_batch **out, arena *a, const col_type *schema,
                               const struct ArrowSchema *arrow_schema,
                               const struct ArrowArray *array, int64_t start, int64_t n_rows,
                               silt_error *err);

/* Arrow format string of a type ("l", "d:10,2", "tsu:UTC", "+s", ...). */
silt_status arrow_format_string(const col_type *type, buf *out, silt_error *err);

#endif
