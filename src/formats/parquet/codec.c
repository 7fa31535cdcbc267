/*
 * codec.c - page compression (see codec.h).
 *
 * PROTOCOL: parquet-format Compression.md. The decoded size is always known
 * from the page header, so every decompressor writes into a caller buffer of
 * that size and any other outcome is corruption: no codec can make us
 * allocate more than the header says.
 */
#include "formats/parquet/codec.h"

#include <string.h>

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/parquet/metadata.h"

static silt_status size_mismatch(const char *codec, size_t got, size_t want, silt_error *err)
{
    return err_set(err, SILT_CORRUPT,
                   "could not decompress %s page: it decompressed to %zu bytes, the header says %zu",
                   codec, got, want);
}

static silt_status codec_failed(const char *codec, const char *why, silt_error *err)
{
    return err_set(err, SILT_CORRUPT, "could not decompress %s page: %s", codec, why);
}

/* Inflates one or more concatenated gzip members into dst. */
static silt_status gzip_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                               silt_error *err)
{
    z_stream zs;
    int zrc;
    silt_status rc = SILT_OK;
    memset(&zs, 0, sizeof(zs));
    /* 16 + MAX_WBITS: gzip framing only (32 would also take zlib framing). */
    if (inflateInit2(&zs, 32 + MAX_WBITS) != Z_OK)
        return err_nomem(err);
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.next_out = dst;
    for (;;) {
        size_t in_left = src_len - (size_t)((const uint8_t *)zs.next_in - src);
        size_t out_left = dst_len - (size_t)(zs.next_out - dst);
        /* uInt chunks keep sizes above 4 GiB correct. */
        zs.avail_in = in_left > UINT32_MAX ? UINT32_MAX : (uInt)in_left;
        zs.avail_out = out_left > UINT32_MAX ? UINT32_MAX : (uInt)out_left;
        zrc = inflate(&zs, Z_NO_FLUSH);
        if (zrc == Z_STREAM_END) {
            in_left = src_len - (size_t)((const uint8_t *)zs.next_in - src);
            if (in_left == 0)
                break;
            /* Another gzip member follows. */
            if (inflateReset(&zs) != Z_OK) {
                rc = codec_failed("GZIP", "could not reset the inflater", err);
                break;
            }
            continue;
        }
        if (zrc == Z_OK && (zs.avail_out > 0 || zs.avail_in > 0))
            continue;
        if (zrc == Z_BUF_ERROR && (size_t)(zs.next_out - dst) == dst_len) {
            rc = size_mismatch("GZIP", dst_len + 1, dst_len, err);
            break;
        }
        rc = codec_failed("GZIP", zs.msg != NULL ? zs.msg : "truncated or invalid data", err);
        break;
    }
    if (rc == SILT_OK && (size_t)(zs.next_out - dst) != dst_len)
        rc = size_mismatch("GZIP", (size_t)(zs.next_out - dst), dst_len, err);
    inflateEnd(&zs);
    return rc;
}

static silt_status zstd_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                               silt_error *err)
{
    size_t got = ZSTD_decompress(dst, dst_len, src, src_len);
    if (ZSTD_isError(got))
        return codec_failed("ZSTD", ZSTD_getErrorName(got), err);
    if (got != dst_len)
        return size_mismatch("ZSTD", got, dst_len, err);
    return SILT_OK;
}

static silt_status brotli_decode(const uint8_t *src, size_t src_len, uint8_t *dst,
                                 size_t dst_len, silt_error *err)
{
    size_t got = dst_len;
    BrotliDecoderResult res = BrotliDecoderDecompress(src_len, src, &got, dst);
    if (res != BROTLI_DECODER_RESULT_SUCCESS)
        return codec_failed("BROTLI", "invalid or truncated brotli data", err);
    if (got != dst_len)
        return size_mismatch("BROTLI", got, dst_len, err);
    return SILT_OK;
}

static silt_status lz4_raw_decode(const char *name, const uint8_t *src, size_t src_len,
                                  uint8_t *dst, size_t dst_len, silt_error *err)
{
    int got;
    if (src_len > INT32_MAX || dst_len > INT32_MAX)
        return err_set(err, SILT_UNSUPPORTED, "could not decompress %s page: pages over 2 GiB "
                       "are not supported", name);
    got = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
    if (got < 0)
        return codec_failed(name, "invalid lz4 block", err);
    if ((size_t)got != dst_len)
        return size_mismatch(name, (size_t)got, dst_len, err);
    return SILT_OK;
}

static uint32_t load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/*
 * Hadoop's BlockCompressorStream framing: repeated [be32 decompressed size]
 * then blocks of [be32 compressed size][lz4 block] until that size is
 * produced. Returns 0 when the bytes do not follow the framing exactly.
 */
static int lz4_hadoop_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
    size_t in = 0, out = 0;
    while (in < src_len) {
        uint32_t chunk_out, produced = 0;
        if (src_len - in < 4)
            return 0;
        chunk_out = load_be32(src + in);
        in += 4;
        if (chunk_out > dst_len - out)
            return 0;
        /* do-while: an empty chunk still carries one (empty) block. */
        do {
            uint32_t block_in;
            int got;
            if (src_len - in < 4)
                return 0;
            block_in = load_be32(src + in);
            in += 4;
            if (block_in > src_len - in || block_in > INT32_MAX)
                return 0;
            got = LZ4_decompress_safe((const char *)src + in, (char *)dst + out + produced,
                                      (int)block_in, (int)(chunk_out - produced));
            if (got < 0 || (got == 0 && chunk_out > 0))
                return 0;
            produced += (uint32_t)got;
            in += block_in;
        } while (produced < chunk_out);
        out += chunk_out;
    }
    return out == dst_len;
}

silt_status pq_decompress(int codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                          size_t dst_len, silt_error *err)
{
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED:
        if (src_len != dst_len)
            return size_mismatch("UNCOMPRESSED", src_len, dst_len, err);
        if (dst_len > 0)
            memcpy(dst, src, dst_len);
        return SILT_OK;
    case PQ_CODEC_SNAPPY:
        return pq_snappy_decode(src, src_len, dst, dst_len, err);
    case PQ_CODEC_GZIP:
        return gzip_decode(src, src_len, dst, dst_len, err);
    case PQ_CODEC_ZSTD:
        return zstd_decode(src, src_len, dst, dst_len, err);
    case PQ_CODEC_BROTLI:
        return brotli_decode(src, src_len, dst, dst_len, err);
    case PQ_CODEC_LZ4_RAW:
        return lz4_raw_decode("LZ4_RAW", src, src_len, dst, dst_len, err);
    case PQ_CODEC_LZ4:
        /* PROTOCOL: Compression.md, LZ4 (deprecated): Hadoop framing, else a raw block. */
        if (lz4_hadoop_decode(src, src_len, dst, dst_len))
            return SILT_OK;
        return lz4_raw_decode("LZ4", src, src_len, dst, dst_len, err);
    default:
        return err_set(err, SILT_UNSUPPORTED, "could not decompress page: compression codec %s "
                       "(%d) is not supported", pq_codec_name(codec), codec);
    }
}

int pq_codec_supported(int codec)
{
    return codec >= PQ_CODEC_UNCOMPRESSED && codec <= PQ_CODEC_LZ4_RAW && codec != PQ_CODEC_LZO;
}

/* Marks n bytes written after the end of out (room made by buf_reserve). */
static void buf_commit(buf *out, size_t n)
{
    out->len += n;
    out->data[out->len] = '\0';
}

static silt_status gzip_encode(const uint8_t *src, size_t src_len, int level, buf *out,
                               silt_error *err)
{
    z_stream zs;
    uLong bound;
    silt_status rc;
    memset(&zs, 0, sizeof(zs));
    if (src_len > UINT32_MAX)
        return err_set(err, SILT_UNSUPPORTED, "could not compress page: over 4 GiB");
    if (deflateInit2(&zs, level > 0 ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return err_nomem(err);
    bound = deflateBound(&zs, (uLong)src_len) + 32;
    rc = buf_reserve(out, bound, err);
    if (rc == SILT_OK) {
        zs.next_in = (Bytef *)(uintptr_t)src;
        zs.avail_in = (uInt)src_len;
        zs.next_out = (Bytef *)out->data + out->len;
        zs.avail_out = (uInt)bound;
        if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
            rc = err_set(err, SILT_IO, "could not compress page with GZIP");
        else
            buf_commit(out, zs.total_out);
    }
    deflateEnd(&zs);
    return rc;
}

silt_status pq_compress(int codec, int level, const uint8_t *src, size_t src_len, buf *out,
                        silt_error *err)
{
    size_t bound, got;
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED:
        return buf_append(out, src, src_len, err);
    case PQ_CODEC_SNAPPY:
        bound = snappy_max_compressed_length(src_len);
        SILT_RETURN_IF_ERROR(buf_reserve(out, bound, err));
        got = bound;
        if (snappy_compress((const char *)src, src_len, out->data + out->len, &got) != SNAPPY_OK)
            return err_set(err, SILT_IO, "could not compress page with SNAPPY");
        buf_commit(out, got);
        return SILT_OK;
    case PQ_CODEC_GZIP:
        return gzip_encode(src, src_len, level, out, err);
    case PQ_CODEC_ZSTD:
        bound = ZSTD_compressBound(src_len);
        SILT_RETURN_IF_ERROR(buf_reserve(out, bound, err));
        got = ZSTD_compress(out->data + out->len, bound, src, src_len, level > 0 ? level : 3);
        if (ZSTD_isError(got))
            return err_set(err, SILT_IO, "could not compress page with ZSTD: %s",
                           ZSTD_getErrorName(got));
        buf_commit(out, got);
        return SILT_OK;
    case PQ_CODEC_BROTLI:
        bound = BrotliEncoderMaxCompressedSize(src_len);
        if (bound == 0)
            bound = src_len + 1024;
        SILT_RETURN_IF_ERROR(buf_reserve(out, bound, err));
        got = bound;
        if (!BrotliEncoderCompress(level > 0 ? level : 5, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, src_len, src,
                                   &got, (uint8_t *)out->data + out->len))
            return err_set(err, SILT_IO, "could not compress page with BROTLI");
        buf_commit(out, got);
        return SILT_OK;
    case PQ_CODEC_LZ4:
    case PQ_CODEC_LZ4_RAW: {
        /* LZ4 gets Hadoop framing (one chunk of one block) so every reader takes it. */
        size_t header = codec == PQ_CODEC_LZ4 ? 8 : 0;
        int n;
        if (src_len > (size_t)LZ4_MAX_INPUT_SIZE)
            return err_set(err, SILT_UNSUPPORTED, "could not compress page: too large for LZ4");
        bound = (size_t)LZ4_compressBound((int)src_len);
        SILT_RETURN_IF_ERROR(buf_reserve(out, bound + header, err));
        n = LZ4_compress_default((const char *)src, out->data + out->len + header, (int)src_len,
                                 (int)bound);
        if (n <= 0)
            return err_set(err, SILT_IO, "could not compress page with LZ4");
        if (header) {
            uint8_t *h = (uint8_t *)out->data + out->len;
            uint32_t sizes[2] = {(uint32_t)src_len, (uint32_t)n};
            int idx;
            for (idx = 0; idx < 2; idx++) {
                h[idx * 4 + 0] = (uint8_t)(sizes[idx] >> 24);
                h[idx * 4 + 1] = (uint8_t)(sizes[idx] >> 16);
                h[idx * 4 + 2] = (uint8_t)(sizes[idx] >> 8);
                h[idx * 4 + 3] = (uint8_t)sizes[idx];
            }
        }
        buf_commit(out, header + (size_t)n);
        return SILT_OK;
    }
    default:
        return err_set(err, SILT_UNSUPPORTED, "could not compress page: compression codec %s "
                       "(%d) is not supported", pq_codec_name(codec), codec);
    }
}
