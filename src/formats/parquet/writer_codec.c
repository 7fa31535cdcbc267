/*
 * writer_codec.c - page compression for the Parquet writer.
 *
 * Codecs as parquet.thrift names them: UNCOMPRESSED, SNAPPY (raw snappy
 * block format, not framed), GZIP (a gzip member, as parquet-mr writes it:
 * zlib with gzip framing) and ZSTD (a zstd frame). The reader side has its
 * own codec.c; the two are to be unified, so everything here is pqw_.
 */
#include "formats/parquet/writer_int.h"

#include <limits.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

static silt_status compress_gzip(const void *src, size_t len, int level, buf *out,
                                 silt_error *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    /* windowBits 15 + 16 asks zlib for gzip framing instead of a zlib header. */
    if (deflateInit2(&zs, level > 0 ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return err_set(err, SILT_NOMEM, "could not start gzip compression");
    silt_status rc = SILT_OK;
    uLong bound = deflateBound(&zs, (uLong)len);
    rc = buf_reserve(out, bound, err);
    if (rc == SILT_OK) {
        zs.next_in = (Bytef *)(uintptr_t)src;
        zs.avail_in = (uInt)len;
        zs.next_out = (Bytef *)out->data + out->len;
        zs.avail_out = (uInt)bound;
        if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
            rc = err_set(err, SILT_IO, "could not compress a page with gzip");
        else
            out->len += zs.total_out;
    }
    deflateEnd(&zs);
    return rc;
}

silt_status pqw_compress(int codec, int level, const void *src, size_t len, buf *out,
                         silt_error *err)
{
    if (len > INT32_MAX)
        return err_set(err, SILT_INVALID, "could not compress a page of %zu bytes: pages are "
                       "limited to 2 GiB", len);
    switch (codec) {
    case PQW_CODEC_UNCOMPRESSED:
        return buf_append(out, src, len, err);
    case PQW_CODEC_SNAPPY: {
        size_t cap = snappy_max_compressed_length(len);
        SILT_RETURN_IF_ERROR(buf_reserve(out, cap, err));
        if (snappy_compress(src, len, out->data + out->len, &cap) != SNAPPY_OK)
            return err_set(err, SILT_IO, "could not compress a page with snappy");
        out->len += cap;
        return SILT_OK;
    }
    case PQW_CODEC_GZIP:
        return compress_gzip(src, len, level, out, err);
    case PQW_CODEC_ZSTD: {
        size_t cap = ZSTD_compressBound(len);
        SILT_RETURN_IF_ERROR(buf_reserve(out, cap, err));
        size_t n = ZSTD_compress(out->data + out->len, cap, src, len, level > 0 ? level : 3);
        if (ZSTD_isError(n))
            return err_set(err, SILT_IO, "could not compress a page with zstd: %s",
                           ZSTD_getErrorName(n));
        out->len += n;
        return SILT_OK;
    }
    default:
        return err_set(err, SILT_UNSUPPORTED, "could not compress a page: codec %d is not "
                       "supported by the writer", codec);
    }
}
