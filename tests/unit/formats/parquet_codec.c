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
