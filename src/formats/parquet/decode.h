/*
 * decode.h - Parquet value and level encodings (decoding side).
 *
 * Follows parquet-format Encodings.md: PLAIN, the RLE/bit-packing hybrid
 * (levels, dictionary indices, RLE booleans), the deprecated BIT_PACKED
 * levels, dictionary indices (PLAIN_DICTIONARY / RLE_DICTIONARY),
 * DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
 * BYTE_STREAM_SPLIT.
 *
 * Every decoder reads a bounded input (data, len), writes a known number of
 * values into caller memory and reports SILT_CORRUPT, naming the encoding
 * and byte position, when the input is too short or inconsistent. Variable-
 * width values go to a pq_binary accumulator: int64 offsets plus bytes.
 * Multi-byte values are little-endian on disk; silt assumes a little-endian
 * host (checked at compile time).
 */
#ifndef SILT_FORMATS_PARQUET_DECODE_H
#define SILT_FORMATS_PARQUET_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* Byte-array values: offsets (int64, count + 1 entries once started) and bytes. */
typedef struct pq_binary {
    buf offsets; /* int64_t entries; offsets[0] = 0 */
    buf data;
} pq_binary;

void pq_binary_init(pq_binary *b);
void pq_binary_clear(pq_binary *b);
/* Number of values held. */
size_t pq_binary_count(const pq_binary *b);
static inline const int64_t *pq_binary_offsets(const pq_binary *b)
{
    return (const int64_t *)(const void *)b->offsets.data;
}
silt_status pq_binary_append(pq_binary *b, const void *data, size_t len, silt_error *err);

/*
 * RLE/bit-packed hybrid without length prefix: decodes exactly n values of
 * bit_width (0..32) bits. *consumed_out (may be NULL) gets the bytes used.
 */
silt_status pq_rle_decode_u32(const uint8_t *data, size_t len, int bit_width, size_t n,
                              uint32_t *out, size_t *consumed_out, silt_error *err);
silt_status pq_rle_decode_u16(const uint8_t *data, size_t len, int bit_width, size_t n,
                              uint16_t *out, size_t *consumed_out, silt_error *err);
/* Deprecated BIT_PACKED levels (most significant bit first). */
silt_status pq_bitpacked_levels(const uint8_t *data, size_t len, int bit_width, size_t n,
                                uint16_t *out, size_t *consumed_out, silt_error *err);
/* Unpacks n values of bit_width (<= 32) bits, LSB first, from exactly enough bytes. */
void pq_unpack_u32(const uint8_t *src, size_t src_len, int bit_width, size_t n, uint32_t *out);

/* PLAIN */
silt_status pq_plain_bool(const uint8_t *data, size_t len, size_t n, uint8_t *out,
                          silt_error *err);
/* Fixed-width values (INT32/INT64/INT96/FLOAT/DOUBLE/FIXED_LEN_BYTE_ARRAY). */
silt_status pq_plain_fixed(const uint8_t *data, size_t len, size_t width, size_t n, void *out,
                           silt_error *err);
silt_status pq_plain_byte_array(const uint8_t *data, size_t len, size_t n, pq_binary *out,
                                silt_error *err);

/* Dictionary indices: a bit-width byte then the hybrid encoding. */
silt_status pq_dict_indices(const uint8_t *data, size_t len, size_t n, uint32_t *out,
                            silt_error *err);

/*
 * DELTA_BINARY_PACKED: decodes exactly n values (the header's total count
 * must be at least n) as int64; int32 columns narrow the result (the
 * arithmetic wraps identically). *consumed_out gets the bytes used.
 */
silt_status pq_delta_binary_decode(const uint8_t *data, size_t len, size_t n, int64_t *out,
                                   size_t *consumed_out, silt_error *err);
/* Reads only the header's total value count. */
silt_status pq_delta_binary_count(const uint8_t *data, size_t len, size_t *count_out,
                                  silt_error *err);
silt_status pq_delta_length_byte_array(const uint8_t *data, size_t len, size_t n,
                                       pq_binary *out, silt_error *err);
silt_status pq_delta_byte_array(const uint8_t *data, size_t len, size_t n, pq_binary *out,
                                silt_error *err);

/* BYTE_STREAM_SPLIT of n values of `width` bytes. */
silt_status pq_byte_stream_split(const uint8_t *data, size_t len, size_t width, size_t n,
                                 uint8_t *out, silt_error *err);

#endif
