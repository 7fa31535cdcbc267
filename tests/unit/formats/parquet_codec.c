/* Page codecs: round trips, framing variants, and corrupt input. */
#include <string.h>

#include <lz4.h>

#include "formats/parquet/codec.h"
#include "formats/parquet/metadata.h"
#include "test.h"
#include "util/mem.h"

static void fill(uint8_t *data, size_t len)
{
    size_t idx;
    for (idx = 0; idx < len; idx++)
        data[idx] = (uint8_t)((idx % 17) * (idx % 5) + (idx / 300));
}

void test_formats_parquet_codec__round_trips(void)
{
    static const int codecs[] = {PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY, PQ_CODEC_GZIP,
                                 PQ_CODEC_BROTLI, PQ_CODEC_LZ4, PQ_CODEC_ZSTD, PQ_CODEC_LZ4_RAW};
    static const size_t sizes[] = {0, 1, 1000, 100000};
    silt_error err = SILT_ERROR_INIT;
    size_t c, s;
    for (c = 0; c < sizeof(codecs) / sizeof(codecs[0]); c++) {
        for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            uint8_t *src = mem_alloc(sizes[s] + 1), *back = mem_alloc(sizes[s] + 1);
            buf packed = BUF_INIT;
            fill(src, sizes[s]);
            check(pq_codec_supported(codecs[c]));
            check_ok(pq_compress(codecs[c], 0, src, sizes[s], &packed, &err), &err);
            check_ok(pq_decompress(codecs[c], (const uint8_t *)packed.data, packed.len, back,
                                   sizes[s], &err), &err);
            check(memcmp(src, back, sizes[s]) == 0);
            /* A declared size that is wrong is corruption. */
            if (sizes[s] > 0)
                check_fails(SILT_CORRUPT, pq_decompress(codecs[c], (const uint8_t *)packed.data,
                                                        packed.len, back, sizes[s] - 1, &err));
            buf_clear(&packed);
            mem_free(src);
            mem_free(back);
        }
    }
}

void test_formats_parquet_codec__garbage_is_corrupt(void)
{
    static const int codecs[] = {PQ_CODEC_SNAPPY, PQ_CODEC_GZIP, PQ_CODEC_BROTLI, PQ_CODEC_LZ4,
                                 PQ_CODEC_ZSTD, PQ_CODEC_LZ4_RAW};
    uint8_t garbage[64], out[256];
    silt_error err = SILT_ERROR_INIT;
    size_t c;
    memset(garbage, 0xff, sizeof(garbage));
    for (c = 0; c < sizeof(codecs) / sizeof(codecs[0]); c++) {
        check_fails(SILT_CORRUPT, pq_decompress(codecs[c], garbage, sizeof(garbage), out,
                                                sizeof(out), &err));
        check_contains(err.message, "could not decompress");
    }
}

void test_formats_parquet_codec__lzo_is_unsupported(void)
{
    uint8_t out[4];
    silt_error err = SILT_ERROR_INIT;
    check(!pq_codec_supported(PQ_CODEC_LZO));
    check_fails(SILT_UNSUPPORTED, pq_decompress(PQ_CODEC_LZO, out, 4, out, 4, &err));
    check_contains(err.message, "LZO");
}

void test_formats_parquet_codec__lz4_without_hadoop_framing(void)
{
    /* Some writers put a raw LZ4 block under the LZ4 codec; it is accepted. */
    uint8_t src[5000], back[5000];
    buf packed = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    fill(src, sizeof(src));
    check_ok(pq_compress(PQ_CODEC_LZ4_RAW, 0, src, sizeof(src), &packed, &err), &err);
    check_ok(pq_decompress(PQ_CODEC_LZ4, (const uint8_t *)packed.data, packed.len, back,
                           sizeof(back), &err), &err);
    check(memcmp(src, back, sizeof(src)) == 0);
    buf_clear(&packed);
}

void test_formats_parquet_codec__gzip_concatenated_members(void)
{
    uint8_t src[3000], back[3000];
    buf packed = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    fill(src, sizeof(src));
    check_ok(pq_compress(PQ_CODEC_GZIP, 0, src, 1000, &packed, &err), &err);
    check_ok(pq_compress(PQ_CODEC_GZIP, 0, src + 1000, 2000, &packed, &err), &err);
    check_ok(pq_decompress(PQ_CODEC_GZIP, (const uint8_t *)packed.data, packed.len, back,
                           sizeof(back), &err), &err);
    check(memcmp(src, back, sizeof(src)) == 0);
    /* Truncated gzip data. */
    check_fails(SILT_CORRUPT, pq_decompress(PQ_CODEC_GZIP, (const uint8_t *)packed.data,
                                            packed.len - 5, back, sizeof(back), &err));
    buf_clear(&packed);
}

/*
 * Data shapes that give every kind of Snappy element (snappy_decode.c):
 * ascending 8-byte integers (short copies 8 back), zeros (long copies 1
 * back), patterns of 2 to 23 bytes (copies below 8, 8-15 and 16+ back),
 * pseudo-random bytes (long literals with 1-2 length bytes), and each size
 * from 0 to 200 (elements near the ends of input and output).
 */
static void fill_shape(uint8_t *data, size_t len, int shape, uint32_t seed)
{
    size_t idx;
    uint32_t x = seed * 2654435761u + 1;
    for (idx = 0; idx < len; idx++) {
        switch (shape) {
        case 0: data[idx] = (uint8_t)((idx / 8 + seed) >> (8 * (idx % 8) % 32)); break;
        case 1: data[idx] = 0; break;
        case 2: data[idx] = (uint8_t)(idx % (2 + seed % 22) * 37); break;
        case 3:
            x = x * 1103515245u + 12345u;
            data[idx] = (uint8_t)(x >> 16);
            break;
        default: data[idx] = (uint8_t)(idx % 64 < 40 ? idx % 7 : (x = x * 69069u + 1) >> 24); break;
        }
    }
}

static void snappy_round_trip(size_t len, int shape, uint32_t seed)
{
    silt_error err = SILT_ERROR_INIT;
    uint8_t *src = mem_alloc(len + 1), *back = mem_alloc(len + 1);
    buf packed = BUF_INIT;
    fill_shape(src, len, shape, seed);
    check_ok(pq_compress(PQ_CODEC_SNAPPY, 0, src, len, &packed, &err), &err);
    memset(back, 0xa5, len + 1);
    check_ok(pq_snappy_decode((const uint8_t *)packed.data, packed.len, back, len, &err), &err);
    check(memcmp(src, back, len) == 0);
    check_int(0xa5, back[len]); /* nothing written past the end */
    buf_clear(&packed);
    mem_free(src);
    mem_free(back);
}

void test_formats_parquet_codec__snappy_shapes(void)
{
    static const size_t big[] = {1000, 4096, 65536 + 17, 300000};
    size_t len, b;
    int shape;
    for (shape = 0; shape < 5; shape++) {
        for (len = 0; len <= 200; len++)
            snappy_round_trip(len, shape, (uint32_t)len);
        for (b = 0; b < sizeof(big) / sizeof(big[0]); b++)
            snappy_round_trip(big[b], shape, 7);
    }
}

/* Hand-made blocks: a copy with a 4-byte offset, and each kind of inconsistency. */
void test_formats_parquet_codec__snappy_elements(void)
{
    /* 8 bytes: literal "abcd", then copy 4 bytes from 4 back (4-byte offset) */
    static const uint8_t copy4[] = {8, 3 << 2, 'a', 'b', 'c', 'd', (3 << 2) | 3, 4, 0, 0, 0};
    static const uint8_t offset0[] = {8, 3 << 2, 'a', 'b', 'c', 'd', (3 << 2) | 2, 0, 0};
    static const uint8_t too_far[] = {8, 3 << 2, 'a', 'b', 'c', 'd', (3 << 2) | 2, 5, 0};
    static const uint8_t past_end[] = {4, 3 << 2, 'a', 'b', 'c', 'd', (3 << 2) | 2, 4, 0};
    static const uint8_t literal_long[] = {4, 60 << 2, 3, 'a', 'b', 'c', 'd'};
    static const uint8_t literal_cut[] = {4, 61 << 2, 3};
    static const uint8_t short_out[] = {8, 3 << 2, 'a', 'b', 'c', 'd'};
    static const uint8_t preamble[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    static const uint8_t pattern[] = {9, 0, 'z', (7 << 2) | 2, 1, 0};
    uint8_t out[16];
    silt_error err = SILT_ERROR_INIT;
    check_ok(pq_snappy_decode(copy4, sizeof(copy4), out, 8, &err), &err);
    check(memcmp(out, "abcdabcd", 8) == 0);
    check_ok(pq_snappy_decode(literal_long, sizeof(literal_long), out, 4, &err), &err);
    check(memcmp(out, "abcd", 4) == 0);
    check_ok(pq_snappy_decode(pattern, sizeof(pattern), out, 9, &err), &err);
    check(memcmp(out, "zzzzzzzzz", 9) == 0);
    check_fails(SILT_CORRUPT, pq_snappy_decode(offset0, sizeof(offset0), out, 8, &err));
    check_contains(err.message, "copy from before the start");
    check_fails(SILT_CORRUPT, pq_snappy_decode(too_far, sizeof(too_far), out, 8, &err));
    check_fails(SILT_CORRUPT, pq_snappy_decode(past_end, sizeof(past_end), out, 4, &err));
    check_contains(err.message, "past the end");
    check_fails(SILT_CORRUPT, pq_snappy_decode(literal_cut, sizeof(literal_cut), out, 4, &err));
    check_fails(SILT_CORRUPT, pq_snappy_decode(short_out, sizeof(short_out), out, 8, &err));
    check_contains(err.message, "decompressed to 4 bytes, the header says 8");
    check_fails(SILT_CORRUPT, pq_snappy_decode(preamble, sizeof(preamble), out, 1, &err));
    check_contains(err.message, "length preamble");
    check_fails(SILT_CORRUPT, pq_snappy_decode(copy4, sizeof(copy4), out, 9, &err));
}

/* Every prefix of a block, and the block with each byte changed, fails cleanly or decodes. */
void test_formats_parquet_codec__snappy_damaged(void)
{
    silt_error err = SILT_ERROR_INIT;
    size_t len = 3000, cut, at;
    uint8_t *src = mem_alloc(len), *back = mem_alloc(len + 64), *bad;
    buf packed = BUF_INIT;
    fill_shape(src, len, 4, 3);
    check_ok(pq_compress(PQ_CODEC_SNAPPY, 0, src, len, &packed, &err), &err);
    bad = mem_alloc(packed.len);
    for (cut = 0; cut < packed.len; cut++)
        check_fails(SILT_CORRUPT,
                    pq_snappy_decode((const uint8_t *)packed.data, cut, back, len, &err));
    for (at = 0; at < packed.len; at++) {
        silt_status rc;
        memcpy(bad, packed.data, packed.len);
        bad[at] ^= 0x5a;
        back[len] = 0xa5;
        rc = pq_snappy_decode(bad, packed.len, back, len, &err);
        check(rc == SILT_OK || rc == SILT_CORRUPT);
        check_int(0xa5, back[len]);
    }
    buf_clear(&packed);
    mem_free(bad);
    mem_free(src);
    mem_free(back);
}
