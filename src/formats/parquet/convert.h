/*
 * convert.h - physical Parquet values to Delta values (convert.c).
 */
#ifndef SILT_FORMATS_PARQUET_CONVERT_H
#define SILT_FORMATS_PARQUET_CONVERT_H

#include "formats/parquet/reader_int.h"

/* Converts n fixed-width physical values (leaf->phys_width each) into dst (leaf->out_width each). */
silt_status pq_convert_fixed(const pq_vnode *leaf, const uint8_t *src, size_t n, uint8_t *dst,
                             silt_error *err);
/* Converts n BYTE_ARRAY decimals into 16-byte values at dst. */
silt_status pq_convert_binary_to_fixed(const pq_vnode *leaf, const int64_t *offsets,
                                       const char *data, size_t n, uint8_t *dst, silt_error *err);

#endif
