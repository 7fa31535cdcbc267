/*
 * encode.c - RLE/bit-packed hybrid, boolean bit-packing and the column
 * chunk dictionary (Encodings.md of apache/parquet-format).
 *
 * Hybrid layout: a sequence of runs, each starting with a ULEB128 header.
 * header = (count << 1) for an RLE run of `count` repeats of one value
 * stored in ceil(bit_width / 8) little-endian bytes; header =
 * (groups << 1) | 1 for a bit-packed run of groups * 8 values, packed LSB
 * first, bit_width bytes per group.
 */
#include "formats/parquet/encode.h"

#include <string.h>

#include "util/hashmap.h"
#include "util/mem.h"

int pqw_bit_width(uint32_t max_value)
{
    int width = 0;
    while (max_value != 0) {
        width++;
        max_value >>= 1;
    }
    return width;
}

static size_t put_uleb(uint8_t *dst, uint64_t value)
{
    size_t n = 0;
    while (value >= 0x80) {
        dst[n++] = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    dst[n++] = (uint8_t)value;
    return n;
}

/*
 * One implementation for both level (uint16) and index (uint32) inputs.
 * The output is reserved for the worst case up front: bit-packing every
 * value costs n * bit_width / 8 bytes plus one header per run and one
 * group of padding, and an RLE run never costs more than the groups it
 * replaces, so the loop appends without checks.
 */
#define PQW_DEFINE_RLE(NAME, T)                                                                    \
    silt_status NAME(buf *out, const T *values, size_t n, int bit_width, silt_error *err)          \
    {                                                                                              \
        size_t value_bytes = ((size_t)bit_width + 7) / 8;                                          \
        size_t worst = (n / 8 + 2) * ((size_t)bit_width + 10) + n / 4 + 16;                        \
        SILT_RETURN_IF_ERROR(buf_reserve(out, worst, err));                                        \
        uint8_t *dst = (uint8_t *)out->data + out->len;                                            \
        size_t pos = 0;                                                                            \
        while (pos < n) {                                                                          \
            size_t run_end = pos + 1;                                                              \
            while (run_end < n && values[run_end] == values[pos])                                  \
                run_end++;                                                                         \
            if (run_end - pos >= 8) {                                                              \
                uint64_t v = values[pos];                                                          \
                dst += put_uleb(dst, (uint64_t)(run_end - pos) << 1);                              \
                for (size_t b = 0; b < value_bytes; b++)                                           \
                    *dst++ = (uint8_t)(v >> (8 * b));                                              \
                pos = run_end;                                                                     \
                continue;                                                                          \
            }                                                                                      \
            /* Bit-packed groups until a run of 8 equal values starts a group. */                  \
            size_t start = pos, groups = 0;                                                        \
            while (pos < n) {                                                                      \
                if (groups > 0) {                                                                  \
                    size_t probe = pos + 1;                                                        \
                    while (probe < n && probe - pos < 8 && values[probe] == values[pos])           \
                        probe++;                                                                   \
                    if (probe - pos >= 8)                                                          \
                        break;                                                                     \
                }                                                                                  \
                pos = pos + 8 < n ? pos + 8 : n;                                                   \
                groups++;                                                                          \
            }                                                                                      \
            dst += put_uleb(dst, ((uint64_t)groups << 1) | 1);                                     \
            uint64_t acc = 0;                                                                      \
            int acc_bits = 0;                                                                      \
            for (size_t idx = start; idx < start + groups * 8; idx++) {                            \
                uint64_t v = idx < n ? (uint64_t)values[idx] : 0;                                  \
                acc |= v << acc_bits;                                                              \
                acc_bits += bit_width;                                                             \
                while (acc_bits >= 8) {                                                            \
                    *dst++ = (uint8_t)acc;                                                         \
                    acc >>= 8;                                                                     \
                    acc_bits -= 8;                                                                 \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        out->len = (size_t)(dst - (uint8_t *)out->data);                                           \
        SILT_ASSERT(out->len <= out->cap);                                                         \
        return SILT_OK;                                                                            \
    }

PQW_DEFINE_RLE(pqw_rle_encode_u16, uint16_t)
PQW_DEFINE_RLE(pqw_rle_encode_u32, uint32_t)

silt_status pqw_plain_bools(buf *out, const uint8_t *values, size_t n, silt_error *err)
{
    SILT_RETURN_IF_ERROR(buf_reserve(out, (n + 7) / 8, err));
    uint8_t *dst = (uint8_t *)out->data + out->len;
    memset(dst, 0, (n + 7) / 8);
    for (size_t idx = 0; idx < n; idx++)
        dst[idx >> 3] |= (uint8_t)((values[idx] != 0) << (idx & 7));
    out->len += (n + 7) / 8;
    return SILT_OK;
}

/* ---- dictionary ---- */

void pqw_dict_init(pqw_dict *d, size_t width)
{
    memset(d, 0, sizeof(*d));
    d->width = width;
    buf_init(&d->plain, 0);
}

void pqw_dict_reset(pqw_dict *d)
{
    buf_truncate(&d->plain, 0);
    if (d->slots != NULL && d->count > 0)
        memset(d->slots, 0, d->n_slots * sizeof(uint32_t));
    d->count = 0;
}

void pqw_dict_clear(pqw_dict *d)
{
    buf_clear(&d->plain);
    mem_free(d->slots);
    mem_free(d->entry_off);
    mem_free(d->entry_hash);
    size_t width = d->width;
    memset(d, 0, sizeof(*d));
    d->width = width;
}

/* Keeps the table at most half full; rehashes from the stored hashes. */
static silt_status dict_grow(pqw_dict *d, silt_error *err)
{
    if (d->count + 1 > d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 1024;
        uint32_t *off = mem_realloc(d->entry_off, cap * sizeof(uint32_t));
        if (off == NULL)
            return err_nomem(err);
        d->entry_off = off;
        uint64_t *hashes = mem_realloc(d->entry_hash, cap * sizeof(uint64_t));
        if (hashes == NULL)
            return err_nomem(err);
        d->entry_hash = hashes;
        d->cap = cap;
    }
    if ((d->count + 1) * 2 > d->n_slots) {
        /* small at first: a file of a few rows (an append, a partition of a MERGE)
         * has tiny dictionaries, and zeroing 2048 slots per column and chunk was
         * a sixth of a 20-row append's instructions */
        size_t n_slots = d->n_slots ? d->n_slots * 2 : 64;
        uint32_t *slots = mem_calloc(n_slots, sizeof(uint32_t));
        if (slots == NULL)
            return err_nomem(err);
        for (size_t e = 0; e < d->count; e++) {
            size_t s = (size_t)d->entry_hash[e] & (n_slots - 1);
            while (slots[s] != 0)
                s = (s + 1) & (n_slots - 1);
            slots[s] = (uint32_t)e + 1;
        }
        mem_free(d->slots);
        d->slots = slots;
        d->n_slots = n_slots;
    }
    return SILT_OK;
}

/* Adds a value known to be absent, with its hash. */
static silt_status dict_insert(pqw_dict *d, const void *value, size_t len, uint64_t h,
                               uint32_t *idx_out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(dict_grow(d, err));
    uint32_t e = (uint32_t)d->count;
    d->entry_off[e] = (uint32_t)d->plain.len;
    d->entry_hash[e] = h;
    if (d->width == 0) {
        uint32_t l = (uint32_t)len;
        SILT_RETURN_IF_ERROR(buf_append(&d->plain, &l, 4, err));
    }
    SILT_RETURN_IF_ERROR(buf_append(&d->plain, value, len, err));
    size_t s = (size_t)h & (d->n_slots - 1);
    while (d->slots[s] != 0)
        s = (s + 1) & (d->n_slots - 1);
    d->slots[s] = e + 1;
    d->count++;
    *idx_out = e;
    return SILT_OK;
}

/* Hash of a byte array, a word at a time (values are short and hashed once per row). */
static inline uint64_t hash_value(const void *value, size_t len)
{
    const char *p = value;
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)len;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ hash_mix64(w)) * 0x9E3779B97F4A7C15ULL;
        p += 8;
        len -= 8;
    }
    uint64_t w = 0;
    if (len > 0)
        memcpy(&w, p, len);
    return hash_mix64(h ^ w);
}

static silt_status dict_add(pqw_dict *d, const void *value, size_t len, uint32_t *idx_out,
                            silt_error *err)
{
    uint64_t h = hash_value(value, len);
    if (d->n_slots > 0) {
        size_t s = (size_t)h & (d->n_slots - 1);
        while (d->slots[s] != 0) {
            uint32_t e = d->slots[s] - 1;
            if (d->entry_hash[e] == h) {
                const char *entry;
                size_t entry_len;
                if (d->width != 0) {
                    entry = d->plain.data + (size_t)e * d->width;
                    entry_len = d->width;
                } else {
                    uint32_t l;
                    memcpy(&l, d->plain.data + d->entry_off[e], 4);
                    entry = d->plain.data + d->entry_off[e] + 4;
                    entry_len = l;
                }
                if (entry_len == len && mem_eq(entry, value, len)) {
                    *idx_out = e;
                    return SILT_OK;
                }
            }
            s = (s + 1) & (d->n_slots - 1);
        }
    }
    return dict_insert(d, value, len, h, idx_out, err);
}

/*
 * 4- and 8-byte values (ints, floats, small decimals) are compared as
 * integers, bit for bit, so NaN payloads and -0.0 keep their own entries.
 * The lookup is inlined here because it runs once per value; a value equal
 * to the one before takes its index without hashing (a constant or
 * clustered column, the usual case once rows are split by partition).
 */
#define PQW_DICT_FIXED(T)                                                                          \
    T prev = 0;                                                                                    \
    for (size_t idx = 0; idx < n; idx++) {                                                         \
        T x;                                                                                       \
        memcpy(&x, values + idx * sizeof(T), sizeof(T));                                           \
        if (idx > 0 && x == prev) {                                                                \
            idx_out[idx] = idx_out[idx - 1];                                                       \
            continue;                                                                              \
        }                                                                                          \
        prev = x;                                                                                  \
        uint64_t h = hash_mix64((uint64_t)x);                                                      \
        int found = 0;                                                                             \
        if (d->n_slots > 0) {                                                                      \
            size_t mask = d->n_slots - 1, s = (size_t)h & mask;                                    \
            while (d->slots[s] != 0) {                                                             \
                uint32_t e = d->slots[s] - 1;                                                      \
                T y;                                                                               \
                memcpy(&y, d->plain.data + (size_t)e * sizeof(T), sizeof(T));                      \
                if (y == x) {                                                                      \
                    idx_out[idx] = e;                                                              \
                    found = 1;                                                                     \
                    break;                                                                         \
                }                                                                                  \
                s = (s + 1) & mask;                                                                \
            }                                                                                      \
        }                                                                                          \
        if (!found)                                                                                \
            SILT_RETURN_IF_ERROR(dict_insert(d, &x, sizeof(T), h, &idx_out[idx], err));            \
    }

silt_status pqw_dict_add_fixed(pqw_dict *d, const uint8_t *values, size_t n, uint32_t *idx_out,
                               silt_error *err)
{
    if (d->width == 4) {
        PQW_DICT_FIXED(uint32_t)
        return SILT_OK;
    }
    if (d->width == 8) {
        PQW_DICT_FIXED(uint64_t)
        return SILT_OK;
    }
    for (size_t idx = 0; idx < n; idx++)
        SILT_RETURN_IF_ERROR(dict_add(d, values + idx * d->width, d->width, &idx_out[idx], err));
    return SILT_OK;
}

/*
 * A value equal to the one before it takes its index without hashing:
 * strings repeat in runs far more often than at random (a constant column,
 * rows clustered or partitioned by a correlated column), and comparing
 * with the previous value costs a fraction of a hash and a probe.
 */
silt_status pqw_dict_add_bytes(pqw_dict *d, const char *const *ptrs, const int32_t *lens,
                               size_t n, uint32_t *idx_out, silt_error *err)
{
    for (size_t idx = 0; idx < n; idx++) {
        if (idx > 0 && lens[idx] == lens[idx - 1] &&
            (ptrs[idx] == ptrs[idx - 1] || mem_eq(ptrs[idx], ptrs[idx - 1], (size_t)lens[idx]))) {
            idx_out[idx] = idx_out[idx - 1];
            continue;
        }
        SILT_RETURN_IF_ERROR(dict_add(d, ptrs[idx], (size_t)lens[idx], &idx_out[idx], err));
    }
    return SILT_OK;
}
