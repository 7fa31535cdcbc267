/*
 * dv.h - deletion vectors: locating, reading and decoding them.
 *
 * PROTOCOL: Deletion Vectors, Deletion Vector Format, Deletion Vector File
 * Storage Format. A descriptor (dlog_dv) points at a RoaringBitmapArray:
 * inline in the log ('i', Z85 text), in `<prefix>/deletion_vector_<uuid>.bin`
 * next to the data ('u', the UUID Z85-encoded in the last 20 characters), or
 * at an absolute path ('p'). Decoded vectors answer "is row i deleted" with
 * one bucket search plus a roaring lookup.
 */
#ifndef SILT_DELTA_DV_H
#define SILT_DELTA_DV_H

#include <stddef.h>
#include <stdint.h>

#include "delta/actions.h"
#include "io/store.h"
#include "util/buf.h"
#include "util/error.h"

#define DDV_MAGIC 1681511377u

typedef struct ddv_bitmap ddv_bitmap;

/*
 * Decodes Z85 (ZeroMQ base85) text into out (len must be a multiple of 5;
 * out gets len / 5 * 4 bytes). SILT_CORRUPT names the bad character's position.
 */
silt_status ddv_z85_decode(const char *text, size_t len, uint8_t *out, silt_error *err);

/* The store key of an on-disk DV ('u' or 'p' under the table root) into out. */
silt_status ddv_file_key(const dlog_dv *dv, const char *table_root, buf *out, silt_error *err);

/*
 * Decodes a serialised RoaringBitmapArray (magic number, then the portable
 * 64-bit roaring format). SILT_CORRUPT for anything malformed.
 */
silt_status ddv_decode(ddv_bitmap **out, const void *data, size_t len, silt_error *err);

/*
 * Loads the deletion vector of a descriptor: decodes an inline one, reads
 * an on-disk one from store (rooted at the table) and checks its size and
 * CRC-32, then checks the cardinality against the descriptor.
 */
silt_status ddv_load(ddv_bitmap **out, io_store *store, const dlog_dv *dv, silt_error *err);

void ddv_free(ddv_bitmap *dv);
int64_t ddv_cardinality(const ddv_bitmap *dv);
/* 1 when row index `row` of the data file is deleted. */
int ddv_contains(const ddv_bitmap *dv, uint64_t row);
/* Sets deleted_out[i] = 1 for each deleted row start_row + i, i < n_rows (0 otherwise);
 * returns how many were set. */
size_t ddv_mark_range(const ddv_bitmap *dv, uint64_t start_row, size_t n_rows,
                      uint8_t *deleted_out);

/* ---- writing (PROTOCOL: Deletion Vector Format, Deletion Vector File Storage Format) ------ */

/* Z85 text of len bytes (a multiple of 4) into out (len / 4 * 5 characters and a NUL). */
void ddv_z85_encode(const uint8_t *data, size_t len, char *out);

/* An empty vector, to fill with ddv_add (ddv_free frees it). */
silt_status ddv_new(ddv_bitmap **out, silt_error *err);
/* Marks rows deleted: rows[i] for each i < n_rows with sel == NULL or sel[i] != 0. */
silt_status ddv_add_rows(ddv_bitmap *dv, const int64_t *rows, const uint8_t *sel, size_t n_rows,
                         silt_error *err);
/* dst |= src. */
silt_status ddv_union(ddv_bitmap *dst, const ddv_bitmap *src, silt_error *err);
/* The serialised RoaringBitmapArray (magic, bucket count, buckets by key) appended to out. */
silt_status ddv_serialize(const ddv_bitmap *dv, buf *out, silt_error *err);
/*
 * Appends dv to a deletion vector file being built in file (the version byte first when file
 * is empty): its size (big-endian), the bitmap, its CRC-32 (big-endian). The descriptor's
 * offset and sizeInBytes come back in offset_out and size_out.
 */
silt_status ddv_file_append(buf *file, const ddv_bitmap *dv, int64_t *offset_out,
                            int32_t *size_out, silt_error *err);
/* "deletion_vector_<uuid>.bin" of a 'u' descriptor's 16 UUID bytes, and its 20-character
 * pathOrInlineDv (Z85 of the bytes, no prefix). name needs 56 bytes, z85 21. */
void ddv_file_name(const uint8_t uuid[16], char *name, char *z85);

#endif
