/*
 * codec.h - Parquet page compression codecs, both directions (shared by the
 * reader and the writer).
 *
 * Codecs: UNCOMPRESSED, SNAPPY (raw snappy), GZIP (gzip framing; several
 * concatenated members are accepted), BROTLI, ZSTD (one or more frames),
 * LZ4 (the deprecated codec: Hadoop framing, with the raw LZ4 block that
 * some writers produced instead accepted as a fallback, as parquet-mr does)
 * and LZ4_RAW (a raw LZ4 block). LZO is not supported.
 */
#ifndef SILT_FORMATS_PARQUET_CODEC_H
#define SILT_FORMATS_PARQUET_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/*
 * Decompresses src into exactly dst_len bytes at dst (dst_len is the size
 * the page header declares). A different size, or bytes the codec rejects,
 * is SILT_CORRUPT; a codec silt does not implement is SILT_UNSUPPORTED.
 */
silt_status pq_decompress(int codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                          size_t dst_len, silt_error *err);

/* Compresses src and appends the result to out; level 0 = the codec's default. */
silt_status pq_compress(int codec, int level, const uint8_t *src, size_t src_len, buf *out,
                        silt_error *err);

/*
 * Decodes one Snappy block (snappy_decode.c) into exactly dst_len bytes at
 * dst; anything else (a different length, a truncated or inconsistent
 * block) is SILT_CORRUPT, and nothing outside dst[0, dst_len) is written.
 */
silt_status pq_snappy_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                             silt_error *err);

/* 1 when pq_decompress/pq_compress implement the codec. */
int pq_codec_supported(int codec);

#endif
