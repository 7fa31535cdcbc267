/*
 * convert.c - physical Parquet values to Delta values (the conversions that
 * schema.c chose per leaf), and statistics decoding.
 *
 * PROTOCOL: LogicalTypes.md (DECIMAL: big-endian two's complement unscaled
 * value; TIMESTAMP units; FLOAT16: IEEE half, little-endian) and the INT96
 * timestamp of Impala/Spark: 8 bytes nanoseconds of the day, then 4 bytes
 * Julian day number, both little-endian.
 */
#include <math.h>
#include <string.h>

#include "formats/parquet/convert.h"

/* Big-endian two's complement to int128; 0 when it does not fit. */
static int pq_decimal_from_be(const uint8_t *bytes, size_t len, col_int128 *out);

#define JULIAN_UNIX_EPOCH 2440588LL
#define MICROS_PER_DAY 86400000000LL

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    float out;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;
    } else {
        /* Subnormal half: value = mant * 2^-24. */
        float value = (float)mant / 16777216.0f;
        return sign ? -value : value;
    }
    memcpy(&out, &bits, sizeof(out));
    return out;
}

/* Big-endian two's complement bytes to int128; 0 when the value does not fit. */
static int pq_decimal_from_be(const uint8_t *bytes, size_t len, col_int128 *out)
{
    size_t idx, skip = 0;
    unsigned __int128 acc;
    int negative = len > 0 && (bytes[0] & 0x80);
    if (len > 16) {
        skip = len - 16;
        for (idx = 0; idx < skip; idx++)
            if (bytes[idx] != (negative ? 0xff : 0x00))
                return 0;
        if (((bytes[skip] & 0x80) != 0) != negative)
            return 0;
    }
    acc = negative ? ~(unsigned __int128)0 : 0;
    for (idx = skip; idx < len; idx++)
        acc = (acc << 8) | bytes[idx];
    *out = (col_int128)acc;
    return 1;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* One loop per conversion (the switch is outside the loops), reading unaligned sources safely. */
#define CONVERT_LOOP(SRC_T, DST_T, EXPR)                                                           \
    for (idx = 0; idx < n; idx++) {                                                                \
        SRC_T x;                                                                                   \
        DST_T y;                                                                                   \
        memcpy(&x, src + idx * sizeof(SRC_T), sizeof(SRC_T));                                     \
        y = (EXPR);                                                                                \
        memcpy(dst + idx * sizeof(DST_T), &y, sizeof(DST_T));                                     \
    }

silt_status pq_convert_fixed(const pq_vnode *leaf, const uint8_t *src, size_t n, uint8_t *dst,
                             silt_error *err)
{
    size_t idx;
    size_t w = leaf->phys_width;
    int64_t scale = leaf->scale_factor;
    switch (leaf->conv) {
    case PQ_CONV_BOOL:
    case PQ_CONV_I32:
    case PQ_CONV_I64:
    case PQ_CONV_FLOAT:
    case PQ_CONV_DOUBLE:
        if (n > 0)
            memcpy(dst, src, n * w);
        return SILT_OK;
    case PQ_CONV_NULL:
        return SILT_OK;
    case PQ_CONV_I32_I8:
        CONVERT_LOOP(int32_t, int8_t, (int8_t)x)
        return SILT_OK;
    case PQ_CONV_I32_I16:
        CONVERT_LOOP(int32_t, int16_t, (int16_t)x)
        return SILT_OK;
    case PQ_CONV_U8_I16:
        CONVERT_LOOP(int32_t, int16_t, (int16_t)(uint8_t)x)
        return SILT_OK;
    case PQ_CONV_U16_I32:
        CONVERT_LOOP(int32_t, int32_t, (int32_t)(uint16_t)x)
        return SILT_OK;
    case PQ_CONV_U32_I64:
        CONVERT_LOOP(int32_t, int64_t, (int64_t)(uint32_t)x)
        return SILT_OK;
    case PQ_CONV_I32_I64_MUL:
        CONVERT_LOOP(int32_t, int64_t, (int64_t)x * scale)
        return SILT_OK;
    case PQ_CONV_I64_MUL:
        /* Wrap instead of overflowing: such timestamps are garbage anyway. */
        CONVERT_LOOP(int64_t, int64_t, (int64_t)((uint64_t)x * (uint64_t)scale))
        return SILT_OK;
    case PQ_CONV_I64_DIV:
        CONVERT_LOOP(int64_t, int64_t, floor_div(x, scale))
        return SILT_OK;
    case PQ_CONV_U64_DEC:
        CONVERT_LOOP(uint64_t, col_int128, (col_int128)x)
        return SILT_OK;
    case PQ_CONV_DEC_I32:
        CONVERT_LOOP(int32_t, col_int128, (col_int128)x)
        return SILT_OK;
    case PQ_CONV_DEC_I64:
        CONVERT_LOOP(int64_t, col_int128, (col_int128)x)
        return SILT_OK;
    case PQ_CONV_FLOAT16:
        CONVERT_LOOP(uint16_t, float, half_to_float(x))
        return SILT_OK;
    case PQ_CONV_INT96_TS:
        for (idx = 0; idx < n; idx++) {
            uint64_t nanos;
            uint32_t julian;
            int64_t micros;
            memcpy(&nanos, src + idx * 12, 8);
            memcpy(&julian, src + idx * 12 + 8, 4);
            /* Unsigned arithmetic: out-of-range days wrap instead of overflowing. */
            micros = (int64_t)((uint64_t)((int64_t)julian - JULIAN_UNIX_EPOCH) *
                                   (uint64_t)MICROS_PER_DAY +
                               nanos / 1000);
            memcpy(dst + idx * 8, &micros, 8);
        }
        return SILT_OK;
    case PQ_CONV_DEC_BYTES:
        for (idx = 0; idx < n; idx++) {
            col_int128 d;
            if (!pq_decimal_from_be(src + idx * w, w, &d))
                return err_set(err, SILT_CORRUPT, "decimal value of column \"%s\" does not fit "
                               "in 38 digits", leaf->name);
            memcpy(dst + idx * 16, &d, 16);
        }
        return SILT_OK;
    default:
        return err_set(err, SILT_CORRUPT, "column \"%s\" has fixed-width values where "
                       "variable-width ones were expected", leaf->name);
    }
}

silt_status pq_convert_binary_to_fixed(const pq_vnode *leaf, const int64_t *offsets,
                                       const char *data, size_t n, uint8_t *dst, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < n; idx++) {
        col_int128 d;
        if (leaf->conv != PQ_CONV_DEC_BYTES ||
            !pq_decimal_from_be((const uint8_t *)data + offsets[idx],
                                (size_t)(offsets[idx + 1] - offsets[idx]), &d))
            return err_set(err, SILT_CORRUPT, "decimal value of column \"%s\" does not fit in 38 "
                           "digits", leaf->name);
        memcpy(dst + idx * 16, &d, 16);
    }
    return SILT_OK;
}

/* PROTOCOL: parquet.thrift, Statistics: min_value/max_value use the column order. */
int pq_stat_decode(const pq_vnode *leaf, const pq_bytes *raw, pq_stat_value *out)
{
    uint8_t tmp[16];
    silt_error ignored = SILT_ERROR_INIT;
    memset(out, 0, sizeof(*out));
    if (leaf->out_width == 0) {
        if (leaf->conv != PQ_CONV_BINARY)
            return 0;
        out->bytes = (const char *)raw->data;
        out->len = raw->len;
        return 1;
    }
    if (leaf->se->type == PQ_BYTE_ARRAY) {
        int64_t offs[2] = {0, (int64_t)raw->len};
        if (pq_convert_binary_to_fixed(leaf, offs, (const char *)raw->data, 1, tmp, &ignored) !=
            SILT_OK)
            return 0;
    } else {
        if (raw->len != leaf->phys_width)
            return 0;
        if (pq_convert_fixed(leaf, raw->data, 1, tmp, &ignored) != SILT_OK)
            return 0;
    }
    switch (leaf->type->id) {
    case COL_BOOLEAN: out->i = tmp[0]; break;
    case COL_BYTE: out->i = (int8_t)tmp[0]; break;
    case COL_SHORT: { int16_t v; memcpy(&v, tmp, 2); out->i = v; break; }
    case COL_INT:
    case COL_DATE: { int32_t v; memcpy(&v, tmp, 4); out->i = v; break; }
    case COL_LONG:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: memcpy(&out->i, tmp, 8); break;
    case COL_FLOAT: { float v; memcpy(&v, tmp, 4); out->d = v; if (isnan(out->d)) return 0; break; }
    case COL_DOUBLE: memcpy(&out->d, tmp, 8); if (isnan(out->d)) return 0; break;
    case COL_DECIMAL: memcpy(&out->dec, tmp, 16); break;
    default: return 0;
    }
    return 1;
}

/* Legacy min/max (fields 1, 2) are only trusted where their signed order is the type's order. */
static int legacy_stats_usable(const pq_vnode *leaf)
{
    switch (leaf->conv) {
    case PQ_CONV_BOOL:
    case PQ_CONV_I32:
    case PQ_CONV_I32_I8:
    case PQ_CONV_I32_I16:
    case PQ_CONV_I64:
    case PQ_CONV_I64_MUL:
    case PQ_CONV_I64_DIV:
    case PQ_CONV_I32_I64_MUL:
    case PQ_CONV_FLOAT:
    case PQ_CONV_DOUBLE:
    case PQ_CONV_DEC_I32:
    case PQ_CONV_DEC_I64:
        return 1;
    default:
        return 0;
    }
}

void pq_leaf_stats_fill(const pq_file *file, const pq_vnode *leaf, const pq_column_chunk *cc,
                        pq_leaf_stats *out)
{
    const pq_statistics *st = &cc->meta.statistics;
    memset(out, 0, sizeof(*out));
    out->path = file->leaves[leaf->leaf_idx].path;
    out->type = leaf->type;
    out->num_values = cc->meta.num_values;
    if (!cc->meta.has_statistics)
        return;
    out->has_null_count = st->has_null_count;
    out->null_count = st->null_count;
    if (st->has_min_value && st->has_max_value) {
        out->has_min_max = pq_stat_decode(leaf, &st->min_value, &out->min) &&
                           pq_stat_decode(leaf, &st->max_value, &out->max);
    } else if (st->has_min && st->has_max && legacy_stats_usable(leaf)) {
        out->has_min_max = pq_stat_decode(leaf, &st->min, &out->min) &&
                           pq_stat_decode(leaf, &st->max, &out->max);
    }
}
