/*
 * encode.h - Parquet value and level encoders (writer side).
 *
 * Follows Encodings.md of apache/parquet-format:
 *   - the RLE / bit-packing hybrid for definition and repetition levels and
 *     for dictionary indices,
 *   - PLAIN bit-packing of booleans,
 *   - the dictionary of a column chunk (PLAIN-encoded entries for the
 *     dictionary page, indices for RLE_DICTIONARY data pages).
 * Other PLAIN encodings are plain little-endian copies done by the writer
 * straight from the vector buffers.
 */
#ifndef SILT_FORMATS_PARQUET_ENCODE_H
#define SILT_FORMATS_PARQUET_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* Bits needed for values 0..max_value (0 for max_value 0). */
int pqw_bit_width(uint32_t max_value);

/*
 * Appends the RLE/bit-packed hybrid encoding of n values, each below
 * 2^bit_width (bit_width 0..32), without the 4-byte length prefix. Runs of
 * 8 or more equal values become RLE runs, the rest bit-packed groups of 8
 * (the last group padded with zeros).
 */
silt_status pqw_rle_encode_u16(buf *out, const uint16_t *values, size_t n, int bit_width,
                               silt_error *err);
silt_status pqw_rle_encode_u32(buf *out, const uint32_t *values, size_t n, int bit_width,
                               silt_error *err);

/* Appends n booleans (bytes 0/1) bit-packed LSB first (PLAIN for BOOLEAN). */
silt_status pqw_plain_bools(buf *out, const uint8_t *values, size_t n, silt_error *err);

/*
 * The dictionary of one column chunk. Entries are kept PLAIN-encoded in
 * `plain` (fixed width: `width` bytes each; byte arrays: 4-byte length and
 * bytes), which is the body of the dictionary page. A hash table of entry
 * indices finds duplicates.
 */
typedef struct pqw_dict {
    size_t width;      /* bytes per entry, 0 for byte arrays */
    buf plain;         /* the entries, PLAIN-encoded */
    uint32_t *slots;   /* hash table: entry index + 1, 0 = empty */
    size_t n_slots;    /* power of two */
    uint32_t *entry_off; /* byte arrays: offset of each entry's length prefix */
    uint64_t *entry_hash;
    size_t count;
    size_t cap;
} pqw_dict;

void pqw_dict_init(pqw_dict *d, size_t width);
/* Forgets all entries but keeps the memory. */
void pqw_dict_reset(pqw_dict *d);
void pqw_dict_clear(pqw_dict *d);
/* Looks up (adding when absent) n fixed-width values; writes their indices. */
silt_status pqw_dict_add_fixed(pqw_dict *d, const uint8_t *values, size_t n, uint32_t *idx_out,
                               silt_error *err);
/* The same for n byte arrays given as pointers and lengths. */
silt_status pqw_dict_add_bytes(pqw_dict *d, const char *const *ptrs, const int32_t *lens,
                               size_t n, uint32_t *idx_out, silt_error *err);

#endif
