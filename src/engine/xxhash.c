/*
 * xxhash.c - XXH64, and Spark's xxhash64 of a column value.
 *
 * Spark hashes values for approx_count_distinct (HyperLogLog++, seed 42)
 * and for its xxhash64() function with XXH64 over the value's bytes, little
 * endian: an int-like value (boolean, byte, short, int, date, float bits)
 * as 4 bytes, a long-like value (long, timestamp, double bits, decimal of
 * up to 18 digits as its unscaled long) as 8, a string or binary as its
 * bytes, a wider decimal as its unscaled value's minimal two's complement
 * big-endian bytes (BigInteger.toByteArray). -0.0 hashes as 0.0, and NaN
 * as the canonical NaN. Equal hashes are what make silt's estimates equal
 * Spark's.
 */
#include <string.h>

#include "engine/expr.h"

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t read64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = (v << 8) | p[k];
    return v;
}

static uint32_t read32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t round64(uint64_t acc, uint64_t lane)
{
    acc += lane * P2;
    return rotl(acc, 31) * P1;
}

static uint64_t merge64(uint64_t h, uint64_t v)
{
    h ^= round64(0, v);
    return h * P1 + P4;
}

uint64_t engine_xxh64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data, *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        while (p + 32 <= end) {
            v1 = round64(v1, read64(p));
            v2 = round64(v2, read64(p + 8));
            v3 = round64(v3, read64(p + 16));
            v4 = round64(v4, read64(p + 24));
            p += 32;
        }
        h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
        h = merge64(h, v1);
        h = merge64(h, v2);
        h = merge64(h, v3);
        h = merge64(h, v4);
    } else {
        h = seed + P5;
    }
    h += (uint64_t)len;
    while (p + 8 <= end) {
        h ^= round64(0, read64(p));
        h = rotl(h, 27) * P1 + P4;
        p += 8;
    }
    if (p + 4 <= end) {
        h ^= (uint64_t)read32(p) * P1;
        h = rotl(h, 23) * P2 + P3;
        p += 4;
    }
    while (p < end) {
        h ^= (uint64_t)*p * P5;
        h = rotl(h, 11) * P1;
        p++;
    }
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

static uint64_t xxh_u32(uint32_t v, uint64_t seed)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    return engine_xxh64(b, 4, seed);
}

static uint64_t xxh_u64(uint64_t v, uint64_t seed)
{
    unsigned char b[8];
    for (int k = 0; k < 8; k++)
        b[k] = (unsigned char)(v >> (8 * k));
    return engine_xxh64(b, 8, seed);
}

uint64_t engine_spark_xxhash64(const col_vec *v, int64_t row, uint64_t seed)
{
    switch (v->type->id) {
    case COL_LONG:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: return xxh_u64((uint64_t)vec_get_int(v, row), seed);
    case COL_FLOAT: {
        float f = (float)vec_get_double(v, row);
        uint32_t bits = 0x7fc00000u;
        if (f == 0)
            f = 0;
        if (f == f)
            memcpy(&bits, &f, 4);
        return xxh_u32(bits, seed);
    }
    case COL_DOUBLE: {
        double d = vec_get_double(v, row);
        uint64_t bits = 0x7ff8000000000000ull;
        if (d == 0)
            d = 0;
        if (d == d)
            memcpy(&bits, &d, 8);
        return xxh_u64(bits, seed);
    }
    case COL_DECIMAL: {
        col_int128 x = vec_get_dec(v, row);
        unsigned char bytes[16];
        int n = 16, first = 0;
        if (v->type->precision <= 18)
            return xxh_u64((uint64_t)(int64_t)x, seed);
        for (int k = 0; k < 16; k++)
            bytes[15 - k] = (unsigned char)((unsigned __int128)x >> (8 * k));
        /* Drop sign-only leading bytes, as BigInteger.toByteArray does. */
        while (n > 1 && ((bytes[first] == 0 && !(bytes[first + 1] & 0x80)) ||
                         (bytes[first] == 0xff && (bytes[first + 1] & 0x80)))) {
            first++;
            n--;
        }
        return engine_xxh64(bytes + first, (size_t)n, seed);
    }
    case COL_STRING:
    case COL_BINARY: {
        int32_t len;
        const char *s = col_vec_str(v, row, &len);
        return engine_xxh64(s, (size_t)len, seed);
    }
    default: return xxh_u32((uint32_t)vec_get_int(v, row), seed);
    }
}
