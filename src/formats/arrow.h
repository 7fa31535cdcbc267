/*
 * arrow.h - export of column vectors through the Arrow C data interface.
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

/* Arrow format string of a type ("l", "d:10,2", "tsu:UTC", "+s", ...). */
silt_status arrow_format_string(const col_type *type, buf *out, silt_error *err);

#endif
