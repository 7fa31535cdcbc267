/*
 * snappy_decode.c - decoder of the Snappy block format (codec.h).
 *
 * PROTOCOL: google/snappy format_description.txt. A block is the varint
 * length of the decoded bytes, then elements; an element's tag byte says
 * in its low two bits what follows:
 *   00 literal: length - 1 in the upper six bits (below 60), or in the next
 *      1-4 bytes (little endian) when they say 60-63; then the bytes;
 *   01 copy: length 4-11 (bits 2-4), offset of 11 bits (bits 5-7, then a byte);
 *   10 copy: length 1-64 (upper six bits + 1), offset in the next 2 bytes;
 *   11 copy: the same with a 4-byte offset.
 * A copy repeats `length` bytes starting `offset` bytes back, byte by byte,
 * so an offset below the length repeats a pattern.
 *
 * Why not libsnappy's decoder: Parquet pages of integers (ids, timestamps)
 * compress into one short copy and a short literal every few bytes, and
 * the system's libsnappy (1.1.9) calls memmove for every copy; here a copy
 * or literal of at most 16 bytes is one or two fixed-size moves.
 *
 * Invariants: nothing is read before src or at/after src + src_len, nothing
 * written outside dst[0, dst_len) (fixed-size moves that overshoot a short
 * element are taken only when the room is there; what they write past the
 * element is overwritten by the next ones), and the block must decode to
 * exactly dst_len bytes. Every other input is SILT_CORRUPT.
 */
#include "formats/parquet/codec.h"

#include <string.h>

static silt_status snappy_corrupt(const char *why, size_t at, silt_error *err)
{
    return err_set(err, SILT_CORRUPT, "could not decompress SNAPPY page: %s at byte %zu", why,
                   at);
}

/* The preamble: the decoded length as a varint of at most 32 bits. */
static silt_status read_length(const uint8_t *src, size_t src_len, size_t *len_out,
                               size_t *used, silt_error *err)
{
    uint64_t v = 0;
    size_t k;
    for (k = 0; k < 5 && k < src_len; k++) {
        v |= (uint64_t)(src[k] & 0x7f) << (7 * k);
        if ((src[k] & 0x80) == 0) {
            if (v > UINT32_MAX)
                break;
            *len_out = (size_t)v;
            *used = k + 1;
            return SILT_OK;
        }
    }
    return snappy_corrupt("invalid length preamble", k, err);
}

/* Little-endian unsigned integer of n (1-4) bytes. */
static inline size_t read_le(const uint8_t *p, size_t n)
{
    size_t v = 0, k;
    for (k = 0; k < n; k++)
        v |= (size_t)p[k] << (8 * k);
    return v;
}

/*
 * Copies len bytes from offset bytes back (offset <= bytes written, len <=
 * room). With 16 bytes of room beyond len, steps of 8 or 16 bytes that are
 * already written (the last may overshoot len); a pattern shorter than 8
 * bytes is first written byte by byte up to a whole number of periods
 * p >= 8, and then repeats from p back (equal bytes, as the pattern
 * repeats every offset bytes). Without the room, byte by byte.
 */
static inline void copy_back(uint8_t *op, size_t offset, size_t len, size_t room)
{
    const uint8_t *from = op - offset;
    size_t k = 0, p;
    if (room >= len + 16) {
        if (offset >= 16) {
            for (; k < len; k += 16)
                memcpy(op + k, from + k, 16);
            return;
        }
        if (offset >= 8 && len <= 8) {
            /*
             * Byte moves: the 8 bytes from 8-15 back were mostly written by
             * the last two elements, and one load spanning two stores waits
             * for them to reach the cache (ascending ids: 17% of a top-N's
             * time); a byte load is served from its one store.
             */
            op[0] = from[0];
            op[1] = from[1];
            op[2] = from[2];
            op[3] = from[3];
            op[4] = from[4];
            op[5] = from[5];
            op[6] = from[6];
            op[7] = from[7];
            return;
        }
        if (offset >= 8) {
            for (; k < len; k += 8)
                memcpy(op + k, from + k, 8);
            return;
        }
        p = offset * ((8 + offset - 1) / offset);
        for (; k < len && k < p; k++)
            op[k] = from[k];
        for (; k < len; k += 8)
            memcpy(op + k, op + k - p, 8);
        return;
    }
    for (; k < len; k++)
        op[k] = from[k];
}

/*
 * Elements far from both ends (21 bytes of input, 80 of output left): no
 * short literal or copy can cross an end, so only the copy's offset is
 * checked. Stops at a long literal or near an end, where the checked loop of
 * pq_snappy_decode takes over.
 */
static silt_status decode_fast(const uint8_t **ip_io, const uint8_t *ip_end, uint8_t **op_io,
                               uint8_t *dst, uint8_t *op_end, const uint8_t *src,
                               silt_error *err)
{
    const uint8_t *ip = *ip_io, *ip_limit;
    uint8_t *op = *op_io, *op_limit;
    if (ip_end - ip < 21 || op_end - op < 80)
        return SILT_OK;
    ip_limit = ip_end - 21;
    op_limit = op_end - 80;
    while (ip <= ip_limit && op <= op_limit) {
        uint8_t tag = ip[0];
        size_t len, offset;
        if ((tag & 3) == 0) {
            len = (size_t)(tag >> 2) + 1;
            if (len > 16)
                break;
            memcpy(op, ip + 1, 16);
            ip += 1 + len;
            op += len;
            continue;
        }
        if ((tag & 3) == 1) {
            len = 4 + ((tag >> 2) & 7);
            offset = ((size_t)(tag >> 5) << 8) | ip[1];
            ip += 2;
        } else if ((tag & 3) == 2) {
            len = (size_t)(tag >> 2) + 1;
            offset = read_le(ip + 1, 2);
            ip += 3;
        } else {
            len = (size_t)(tag >> 2) + 1;
            offset = read_le(ip + 1, 4);
            ip += 5;
        }
        if (offset == 0 || offset > (size_t)(op - dst)) {
            *ip_io = ip;
            return snappy_corrupt("copy from before the start", (size_t)(ip - src), err);
        }
        copy_back(op, offset, len, (size_t)(op_end - op));
        op += len;
    }
    *ip_io = ip;
    *op_io = op;
    return SILT_OK;
}

silt_status pq_snappy_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                             silt_error *err)
{
    const uint8_t *ip, *ip_end = src + src_len;
    uint8_t *op = dst, *op_end = dst + dst_len;
    size_t want = 0, used = 0;
    SILT_RETURN_IF_ERROR(read_length(src, src_len, &want, &used, err));
    if (want != dst_len)
        return err_set(err, SILT_CORRUPT,
                       "could not decompress SNAPPY page: it decompresses to %zu bytes, the "
                       "header says %zu",
                       want, dst_len);
    ip = src + used;
    for (;;) {
        SILT_RETURN_IF_ERROR(decode_fast(&ip, ip_end, &op, dst, op_end, src, err));
        if (ip >= ip_end)
            break;
        uint8_t tag = *ip++;
        size_t len, offset, in_left, room = (size_t)(op_end - op);
        if ((tag & 3) == 0) {
            len = (size_t)(tag >> 2) + 1;
            if (len > 60) {
                size_t n_bytes = len - 60;
                if ((size_t)(ip_end - ip) < n_bytes)
                    return snappy_corrupt("truncated literal length", (size_t)(ip - src), err);
                len = read_le(ip, n_bytes) + 1;
                ip += n_bytes;
            }
            in_left = (size_t)(ip_end - ip);
            if (len > in_left || len > room)
                return snappy_corrupt("literal runs past the end", (size_t)(ip - src), err);
            if (len <= 16 && in_left >= 16 && room >= 16)
                memcpy(op, ip, 16);
            else
                memcpy(op, ip, len);
            op += len;
            ip += len;
            continue;
        }
        in_left = (size_t)(ip_end - ip);
        if ((tag & 3) == 1) {
            if (in_left < 1)
                return snappy_corrupt("truncated copy", (size_t)(ip - src), err);
            len = 4 + ((tag >> 2) & 7);
            offset = ((size_t)(tag >> 5) << 8) | ip[0];
            ip += 1;
        } else if ((tag & 3) == 2) {
            if (in_left < 2)
                return snappy_corrupt("truncated copy", (size_t)(ip - src), err);
            len = (size_t)(tag >> 2) + 1;
            offset = read_le(ip, 2);
            ip += 2;
        } else {
            if (in_left < 4)
                return snappy_corrupt("truncated copy", (size_t)(ip - src), err);
            len = (size_t)(tag >> 2) + 1;
            offset = read_le(ip, 4);
            ip += 4;
        }
        if (offset == 0 || offset > (size_t)(op - dst))
            return snappy_corrupt("copy from before the start", (size_t)(ip - src), err);
        if (len > room)
            return snappy_corrupt("copy runs past the end", (size_t)(ip - src), err);
        copy_back(op, offset, len, room);
        op += len;
    }
    if (op != op_end)
        return err_set(err, SILT_CORRUPT,
                       "could not decompress SNAPPY page: it decompressed to %zu bytes, the "
                       "header says %zu",
                       (size_t)(op - dst), dst_len);
    return SILT_OK;
}
