/*
 * decode.c - Parquet encodings, decoding side (see decode.h).
 *
 * PROTOCOL: parquet-format Encodings.md. Hot loops avoid per-value calls:
 * bit unpacking loads 8 bytes at a time and shifts (no per-bit loop), RLE
 * runs are filled in one go, PLAIN fixed-width values are one memcpy.
 */
#include "formats/parquet/decode.h"

#include <string.h>

#include "util/mem.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the Parquet decoders assume a little-endian host"
#endif

static silt_status corrupt(silt_error *err, const char *encoding, const char *why, size_t pos)
{
    return err_set(err, SILT_CORRUPT, "could not decode %s values: %s at byte %zu of the page data",
                   encoding, why, pos);
}

void pq_binary_init(pq_binary *b)
{
    buf_init(&b->offsets, 0);
    buf_init(&b->data, 0);
}

void pq_binary_clear(pq_binary *b)
{
    buf_clear(&b->offsets);
    buf_clear(&b->data);
}

size_t pq_binary_count(const pq_binary *b)
{
    return b->offsets.len < sizeof(int64_t) ? 0 : b->offsets.len / sizeof(int64_t) - 1;
}

static silt_status binary_start(pq_binary *b, size_t n_more, silt_error *err)
{
    if (b->offsets.len == 0) {
        int64_t zero = 0;
        SILT_RETURN_IF_ERROR(buf_append(&b->offsets, &zero, sizeof(zero), err));
    }
    return buf_reserve(&b->offsets, n_more * sizeof(int64_t), err);
}

/* Appends one offset; room was reserved by binary_start. */
static void binary_push_offset(pq_binary *b)
{
    int64_t end = (int64_t)b->data.len;
    memcpy(b->offsets.data + b->offsets.len, &end, sizeof(end));
    b->offsets.len += sizeof(end);
}

silt_status pq_binary_append(pq_binary *b, const void *data, size_t len, silt_error *err)
{
    SILT_RETURN_IF_ERROR(binary_start(b, 1, err));
    SILT_RETURN_IF_ERROR(buf_append(&b->data, data, len, err));
    binary_push_offset(b);
    return SILT_OK;
}

static uint64_t load64(const uint8_t *p, size_t avail)
{
    uint64_t v = 0;
    memcpy(&v, p, avail >= 8 ? 8 : avail);
    return v;
}

/*
 * Groups of 8 values of W bits (W bytes each group) with W a constant, so
 * that every shift and mask is an immediate: the loop of dictionary indices
 * and levels. Each value is one 8-byte load; the caller guarantees W + 8
 * readable bytes per group.
 */
#define DEFINE_UNPACK8(W)                                                                              static void unpack8_##W(const uint8_t *src, size_t groups, uint32_t *out)                          {                                                                                                      const uint64_t mask = (W) >= 32 ? 0xffffffffu : (((uint64_t)1 << (W)) - 1);                        size_t g;                                                                                          int i;                                                                                             for (g = 0; g < groups; g++, src += (W), out += 8) {                                                   for (i = 0; i < 8; i++) {                                                                              uint64_t word;                                                                                     memcpy(&word, src + (i * (W)) / 8, 8);                                                             out[i] = (uint32_t)((word >> ((i * (W)) % 8)) & mask);                                         }                                                                                              }                                                                                              }

DEFINE_UNPACK8(1)
DEFINE_UNPACK8(2)
DEFINE_UNPACK8(3)
DEFINE_UNPACK8(4)
DEFINE_UNPACK8(5)
DEFINE_UNPACK8(6)
DEFINE_UNPACK8(7)
DEFINE_UNPACK8(8)
DEFINE_UNPACK8(9)
DEFINE_UNPACK8(10)
DEFINE_UNPACK8(11)
DEFINE_UNPACK8(12)
DEFINE_UNPACK8(13)
DEFINE_UNPACK8(14)
DEFINE_UNPACK8(15)
DEFINE_UNPACK8(16)
DEFINE_UNPACK8(17)
DEFINE_UNPACK8(18)
DEFINE_UNPACK8(19)
DEFINE_UNPACK8(20)
DEFINE_UNPACK8(21)
DEFINE_UNPACK8(22)
DEFINE_UNPACK8(23)
DEFINE_UNPACK8(24)

typedef void (*unpack8_fn)(const uint8_t *src, size_t groups, uint32_t *out);

static const unpack8_fn unpack8[25] = {
    NULL,        unpack8_1,  unpack8_2,  unpack8_3,  unpack8_4,  unpack8_5,  unpack8_6,
    unpack8_7,   unpack8_8,  unpack8_9,  unpack8_10, unpack8_11, unpack8_12, unpack8_13,
    unpack8_14,  unpack8_15, unpack8_16, unpack8_17, unpack8_18, unpack8_19, unpack8_20,
    unpack8_21,  unpack8_22, unpack8_23, unpack8_24};

void pq_unpack_u32(const uint8_t *src, size_t src_len, int bit_width, size_t n, uint32_t *out)
{
    uint64_t mask = bit_width >= 32 ? 0xffffffffu : ((uint64_t)1 << bit_width) - 1;
    size_t idx = 0, bit = 0;
    if (bit_width == 0) {
        memset(out, 0, n * sizeof(*out));
        return;
    }
    if (bit_width <= 24 && src_len >= (size_t)bit_width + 8) {
        /* Whole groups whose loads stay inside the input (W + 8 bytes from each group's start). */
        size_t groups = (src_len - 8) / (size_t)bit_width;
        if (groups > n / 8)
            groups = n / 8;
        unpack8[bit_width](src, groups, out);
        idx = groups * 8;
        bit = idx * (size_t)bit_width;
    }
    /* Values whose 8-byte window lies inside the input take the branch-free loop. */
    if (src_len >= 8) {
        size_t n_fast = ((src_len - 8) * 8) / (size_t)bit_width + 1;
        if (n_fast > n)
            n_fast = n;
        for (; idx < n_fast; idx++, bit += (size_t)bit_width) {
            uint64_t word;
            /* shift + width <= 7 + 32 bits: one 8-byte load holds the value. */
            memcpy(&word, src + (bit >> 3), 8);
            out[idx] = (uint32_t)((word >> (bit & 7)) & mask);
        }
    }
    for (; idx < n; idx++, bit += (size_t)bit_width) {
        size_t byte = bit >> 3;
        uint64_t word = load64(src + byte, src_len - byte);
        out[idx] = (uint32_t)((word >> (bit & 7)) & mask);
    }
}

/* Unpacks values of up to 64 bits (DELTA_BINARY_PACKED miniblocks). */
static void unpack_u64(const uint8_t *src, size_t src_len, int bit_width, size_t n, uint64_t *out)
{
    uint64_t mask = bit_width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bit_width) - 1;
    size_t idx, bit = 0;
    if (bit_width == 0) {
        memset(out, 0, n * sizeof(*out));
        return;
    }
    for (idx = 0; idx < n; idx++, bit += (size_t)bit_width) {
        size_t byte = bit >> 3;
        unsigned shift = (unsigned)(bit & 7);
        uint64_t word = load64(src + byte, src_len - byte) >> shift;
        if (shift + (unsigned)bit_width > 64 && byte + 8 < src_len)
            word |= (uint64_t)src[byte + 8] << (64 - shift);
        out[idx] = word & mask;
    }
}

static silt_status read_uleb(const uint8_t *data, size_t len, size_t *pos, uint64_t *out,
                             const char *encoding, silt_error *err)
{
    uint64_t value = 0;
    unsigned shift = 0;
    for (;;) {
        uint8_t byte;
        if (*pos >= len)
            return corrupt(err, encoding, "unexpected end of data in a varint", *pos);
        byte = data[(*pos)++];
        if (shift > 63 || (shift == 63 && (byte & 0x7e) != 0))
            return corrupt(err, encoding, "varint longer than 64 bits", *pos);
        value |= (uint64_t)(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0)
            break;
        shift += 7;
    }
    *out = value;
    return SILT_OK;
}

/*
 * The hybrid decoder, instantiated for 32-bit (indices, booleans) and
 * 16-bit (levels) outputs. A bit-packed run shorter than its header says
 * (a truncated last run) yields the values its bytes hold.
 */
#define DEFINE_RLE_DECODE(NAME, T)                                                                 \
    silt_status NAME(const uint8_t *data, size_t len, int bit_width, size_t n, T *out,            \
                     size_t *consumed_out, silt_error *err)                                        \
    {                                                                                              \
        size_t pos = 0, done = 0;                                                                  \
        size_t value_bytes = (size_t)(bit_width + 7) / 8;                                          \
        uint32_t tmp[256];                                                                         \
        if (bit_width < 0 || bit_width > 32)                                                       \
            return corrupt(err, "RLE", "bit width out of range", 0);                               \
        while (done < n) {                                                                         \
            uint64_t header;                                                                       \
            SILT_RETURN_IF_ERROR(read_uleb(data, len, &pos, &header, "RLE", err));                 \
            if (header & 1) {                                                                      \
                uint64_t groups = header >> 1;                                                     \
                size_t avail_bytes = len - pos, run_bytes, run_values, take, idx;                  \
                if (groups > ((uint64_t)1 << 40))                                                  \
                    return corrupt(err, "RLE", "bit-packed run too long", pos);                    \
                run_bytes = (size_t)groups * (size_t)bit_width;                                    \
                run_values = (size_t)groups * 8;                                                   \
                if (run_bytes > avail_bytes) {                                                     \
                    run_values = bit_width ? avail_bytes * 8 / (size_t)bit_width : run_values;     \
                    run_bytes = avail_bytes;                                                       \
                }                                                                                  \
                if (run_values == 0)                                                               \
                    return corrupt(err, "RLE", "empty bit-packed run", pos);                       \
                take = run_values < n - done ? run_values : n - done;                              \
                if (sizeof(T) == sizeof(uint32_t)) {                                               \
                    /* 32-bit output: unpack in place. */                                          \
                    pq_unpack_u32(data + pos, run_bytes, bit_width, take,                          \
                                  (uint32_t *)(void *)(out + done));                               \
                }                                                                                  \
                for (idx = sizeof(T) == sizeof(uint32_t) ? take : 0; idx < take;) {                \
                    /* Groups of 8 values start on byte boundaries: chunks of 256 do too. */       \
                    size_t chunk = take - idx < 256 ? take - idx : 256, k;                         \
                    size_t byte0 = idx * (size_t)bit_width / 8;                                    \
                    pq_unpack_u32(data + pos + byte0, run_bytes - byte0, bit_width, chunk, tmp);   \
                    for (k = 0; k < chunk; k++)                                                    \
                        out[done + idx + k] = (T)tmp[k];                                           \
                    idx += chunk;                                                                  \
                }                                                                                  \
                done += take;                                                                      \
                pos += run_bytes;                                                                  \
            } else {                                                                               \
                uint64_t count = header >> 1;                                                      \
                uint32_t value = 0;                                                                \
                size_t take, idx;                                                                  \
                if (value_bytes > len - pos)                                                       \
                    return corrupt(err, "RLE", "run value past the end of data", pos);             \
                for (idx = 0; idx < value_bytes; idx++)                                            \
                    value |= (uint32_t)data[pos + idx] << (8 * idx);                               \
                pos += value_bytes;                                                                \
                if (bit_width < 32 && (value >> bit_width) != 0)                                   \
                    return corrupt(err, "RLE", "run value wider than the bit width", pos);         \
                take = count < (uint64_t)(n - done) ? (size_t)count : n - done;                    \
                for (idx = 0; idx < take; idx++)                                                   \
                    out[done + idx] = (T)value;                                                    \
                done += take;                                                                      \
            }                                                                                      \
        }                                                                                          \
        if (consumed_out != NULL)                                                                  \
            *consumed_out = pos;                                                                   \
        return SILT_OK;                                                                            \
    }

DEFINE_RLE_DECODE(pq_rle_decode_u32, uint32_t)
DEFINE_RLE_DECODE(pq_rle_decode_u16, uint16_t)

silt_status pq_bitpacked_levels(const uint8_t *data, size_t len, int bit_width, size_t n,
                                uint16_t *out, size_t *consumed_out, silt_error *err)
{
    /* PROTOCOL: Encodings.md, BIT_PACKED: packed from the most significant bit. */
    size_t need_bits, idx, bit = 0;
    if (bit_width < 0 || bit_width > 16)
        return corrupt(err, "BIT_PACKED", "bit width out of range", 0);
    if (!mem_mul_ok(n, (size_t)bit_width, &need_bits) || (need_bits + 7) / 8 > len)
        return corrupt(err, "BIT_PACKED", "levels run past the end of data", len);
    for (idx = 0; idx < n; idx++, bit += (size_t)bit_width) {
        /* Big-endian 32-bit window: (bit & 7) + width <= 23 bits fit in it. */
        size_t byte = bit >> 3, k;
        uint32_t window = 0;
        for (k = 0; k < 4; k++)
            window = (window << 8) | (byte + k < len ? data[byte + k] : 0);
        out[idx] = bit_width == 0 ? 0
                                  : (uint16_t)((window >> (32 - (bit & 7) - (size_t)bit_width)) &
                                               ((1u << bit_width) - 1));
    }
    if (consumed_out != NULL)
        *consumed_out = (need_bits + 7) / 8;
    return SILT_OK;
}

silt_status pq_plain_bool(const uint8_t *data, size_t len, size_t n, uint8_t *out,
                          silt_error *err)
{
    size_t idx;
    if ((n + 7) / 8 > len)
        return corrupt(err, "PLAIN boolean", "values run past the end of data", len);
    for (idx = 0; idx < n; idx++)
        out[idx] = (data[idx >> 3] >> (idx & 7)) & 1;
    return SILT_OK;
}

silt_status pq_plain_fixed(const uint8_t *data, size_t len, size_t width, size_t n, void *out,
                           silt_error *err)
{
    size_t bytes;
    if (!mem_mul_ok(width, n, &bytes) || bytes > len)
        return corrupt(err, "PLAIN", "values run past the end of data", len);
    if (bytes > 0)
        memcpy(out, data, bytes);
    return SILT_OK;
}

silt_status pq_plain_byte_array(const uint8_t *data, size_t len, size_t n, pq_binary *out,
                                silt_error *err)
{
    size_t pos = 0, idx, total = 0;
    /* First pass: validate lengths and size the data once. */
    for (idx = 0; idx < n; idx++) {
        uint32_t vlen;
        if (len - pos < 4)
            return corrupt(err, "PLAIN byte array", "length past the end of data", pos);
        memcpy(&vlen, data + pos, 4);
        pos += 4;
        if (vlen > len - pos)
            return corrupt(err, "PLAIN byte array", "value runs past the end of data", pos);
        pos += vlen;
        total += vlen;
    }
    SILT_RETURN_IF_ERROR(binary_start(out, n, err));
    SILT_RETURN_IF_ERROR(buf_reserve(&out->data, total, err));
    pos = 0;
    for (idx = 0; idx < n; idx++) {
        uint32_t vlen;
        memcpy(&vlen, data + pos, 4);
        pos += 4;
        memcpy(out->data.data + out->data.len, data + pos, vlen);
        out->data.len += vlen;
        pos += vlen;
        binary_push_offset(out);
    }
    out->data.data[out->data.len] = '\0';
    return SILT_OK;
}

silt_status pq_dict_indices(const uint8_t *data, size_t len, size_t n, uint32_t *out,
                            silt_error *err)
{
    if (n == 0)
        return SILT_OK;
    if (len < 1)
        return corrupt(err, "RLE_DICTIONARY", "missing bit width", 0);
    if (data[0] > 32)
        return corrupt(err, "RLE_DICTIONARY", "bit width over 32", 0);
    return pq_rle_decode_u32(data + 1, len - 1, data[0], n, out, NULL, err);
}

typedef struct delta_header {
    uint64_t block_size, n_miniblocks, total;
    int64_t first;
} delta_header;

static silt_status delta_read_header(const uint8_t *data, size_t len, size_t *pos,
                                     delta_header *h, silt_error *err)
{
    uint64_t zz;
    const char *enc = "DELTA_BINARY_PACKED";
    SILT_RETURN_IF_ERROR(read_uleb(data, len, pos, &h->block_size, enc, err));
    SILT_RETURN_IF_ERROR(read_uleb(data, len, pos, &h->n_miniblocks, enc, err));
    SILT_RETURN_IF_ERROR(read_uleb(data, len, pos, &h->total, enc, err));
    SILT_RETURN_IF_ERROR(read_uleb(data, len, pos, &zz, enc, err));
    h->first = (int64_t)(zz >> 1) ^ -(int64_t)(zz & 1);
    if (h->block_size == 0 || h->block_size % 128 != 0 || h->block_size > (1u << 20) ||
        h->n_miniblocks == 0 || h->block_size % h->n_miniblocks != 0 ||
        (h->block_size / h->n_miniblocks) % 32 != 0)
        return corrupt(err, enc, "block or miniblock size not a multiple of 128/32", *pos);
    return SILT_OK;
}

silt_status pq_delta_binary_count(const uint8_t *data, size_t len, size_t *count_out,
                                  silt_error *err)
{
    size_t pos = 0;
    delta_header h;
    SILT_RETURN_IF_ERROR(delta_read_header(data, len, &pos, &h, err));
    if (h.total > len * 64 + 1)
        return corrupt(err, "DELTA_BINARY_PACKED", "value count larger than the data allows", pos);
    *count_out = (size_t)h.total;
    return SILT_OK;
}

silt_status pq_delta_binary_decode(const uint8_t *data, size_t len, size_t n, int64_t *out,
                                   size_t *consumed_out, silt_error *err)
{
    const char *enc = "DELTA_BINARY_PACKED";
    size_t pos = 0, done;
    delta_header h;
    uint64_t per_mini;
    uint64_t tmp[128];
    uint64_t last;
    SILT_RETURN_IF_ERROR(delta_read_header(data, len, &pos, &h, err));
    if (h.total < n)
        return corrupt(err, enc, "fewer values than the page holds", pos);
    per_mini = h.block_size / h.n_miniblocks;
    last = (uint64_t)h.first;
    if (n > 0)
        out[0] = h.first;
    done = h.total > 0 ? 1 : 0;
    /* Values beyond n still have to be walked to find the end of the data. */
    while ((uint64_t)done < h.total) {
        uint64_t zz, mb;
        uint64_t min_delta;
        size_t widths_pos;
        SILT_RETURN_IF_ERROR(read_uleb(data, len, &pos, &zz, enc, err));
        min_delta = (uint64_t)((int64_t)(zz >> 1) ^ -(int64_t)(zz & 1));
        if (h.n_miniblocks > len - pos)
            return corrupt(err, enc, "miniblock bit widths past the end of data", pos);
        widths_pos = pos;
        pos += (size_t)h.n_miniblocks;
        for (mb = 0; mb < h.n_miniblocks && (uint64_t)done < h.total; mb++) {
            int width = data[widths_pos + mb];
            size_t mini_bytes = (size_t)(per_mini * (uint64_t)width / 8), avail, in_mini, k, off;
            if (width > 64)
                return corrupt(err, enc, "miniblock bit width over 64", widths_pos + mb);
            in_mini = (size_t)(h.total - done < per_mini ? h.total - done : per_mini);
            avail = len - pos;
            /* The last miniblock may be cut short after its last value. */
            if ((in_mini * (size_t)width + 7) / 8 > avail)
                return corrupt(err, enc, "miniblock past the end of data", pos);
            for (off = 0; off < in_mini; off += 128) {
                size_t chunk = in_mini - off < 128 ? in_mini - off : 128;
                size_t byte0 = off * (size_t)width / 8;
                unpack_u64(data + pos + byte0, avail - byte0, width, chunk, tmp);
                for (k = 0; k < chunk; k++) {
                    last += min_delta + tmp[k];
                    if (done < n)
                        out[done] = (int64_t)last;
                    done++;
                }
            }
            pos += mini_bytes < avail ? mini_bytes : avail;
        }
    }
    if (consumed_out != NULL)
        *consumed_out = pos;
    return SILT_OK;
}

static silt_status delta_lengths(const uint8_t *data, size_t len, size_t n, int64_t **lens_out,
                                 buf *storage, size_t *consumed, silt_error *err)
{
    size_t bytes;
    if (!mem_mul_ok(n ? n : 1, sizeof(int64_t), &bytes))
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(buf_reserve(storage, bytes, err));
    *lens_out = (int64_t *)(void *)storage->data;
    return pq_delta_binary_decode(data, len, n, *lens_out, consumed, err);
}

silt_status pq_delta_length_byte_array(const uint8_t *data, size_t len, size_t n,
                                       pq_binary *out, silt_error *err)
{
    buf storage = BUF_INIT;
    int64_t *lens = NULL;
    size_t pos = 0, idx, total = 0;
    silt_status rc;
    rc = delta_lengths(data, len, n, &lens, &storage, &pos, err);
    for (idx = 0; rc == SILT_OK && idx < n; idx++) {
        if (lens[idx] < 0 || (uint64_t)lens[idx] > len - pos - total)
            rc = corrupt(err, "DELTA_LENGTH_BYTE_ARRAY", "value runs past the end of data", pos);
        else
            total += (size_t)lens[idx];
    }
    if (rc == SILT_OK)
        rc = binary_start(out, n, err);
    if (rc == SILT_OK)
        rc = buf_reserve(&out->data, total, err);
    for (idx = 0; rc == SILT_OK && idx < n; idx++) {
        memcpy(out->data.data + out->data.len, data + pos, (size_t)lens[idx]);
        out->data.len += (size_t)lens[idx];
        pos += (size_t)lens[idx];
        binary_push_offset(out);
    }
    if (rc == SILT_OK && out->data.data != NULL)
        out->data.data[out->data.len] = '\0';
    buf_clear(&storage);
    return rc;
}

silt_status pq_delta_byte_array(const uint8_t *data, size_t len, size_t n, pq_binary *out,
                                silt_error *err)
{
    buf storage = BUF_INIT;
    pq_binary suffixes;
    int64_t *prefix = NULL;
    size_t pos = 0, idx;
    silt_status rc;
    pq_binary_init(&suffixes);
    rc = delta_lengths(data, len, n, &prefix, &storage, &pos, err);
    if (rc == SILT_OK)
        rc = pq_delta_length_byte_array(data + pos, len - pos, n, &suffixes, err);
    if (rc == SILT_OK)
        rc = binary_start(out, n, err);
    for (idx = 0; rc == SILT_OK && idx < n; idx++) {
        const int64_t *soff = pq_binary_offsets(&suffixes);
        size_t prev_start = 0, prev_len = 0;
        if (idx > 0) {
            const int64_t *ooff = pq_binary_offsets(out);
            size_t count = pq_binary_count(out);
            prev_start = (size_t)ooff[count - 1];
            prev_len = (size_t)ooff[count] - prev_start;
        }
        if (prefix[idx] < 0 || (uint64_t)prefix[idx] > prev_len) {
            rc = corrupt(err, "DELTA_BYTE_ARRAY", "prefix longer than the previous value", pos);
            break;
        }
        rc = buf_reserve(&out->data, (size_t)prefix[idx] + (size_t)(soff[idx + 1] - soff[idx]),
                         err);
        if (rc != SILT_OK)
            break;
        /* The previous value lies in out->data itself: reserve first, then copy. */
        memmove(out->data.data + out->data.len, out->data.data + prev_start, (size_t)prefix[idx]);
        out->data.len += (size_t)prefix[idx];
        if (soff[idx + 1] > soff[idx])
            memcpy(out->data.data + out->data.len, suffixes.data.data + soff[idx],
                   (size_t)(soff[idx + 1] - soff[idx]));
        out->data.len += (size_t)(soff[idx + 1] - soff[idx]);
        binary_push_offset(out);
    }
    pq_binary_clear(&suffixes);
    buf_clear(&storage);
    return rc;
}

silt_status pq_byte_stream_split(const uint8_t *data, size_t len, size_t width, size_t n,
                                 uint8_t *out, silt_error *err)
{
    size_t bytes, stream, idx;
    if (!mem_mul_ok(width, n, &bytes) || bytes > len)
        return corrupt(err, "BYTE_STREAM_SPLIT", "values run past the end of data", len);
    for (stream = 0; stream < width; stream++) {
        const uint8_t *src = data + stream * n;
        uint8_t *dst = out + stream;
        for (idx = 0; idx < n; idx++)
            dst[idx * width] = src[idx];
    }
    return SILT_OK;
}
