/*
 * writer_stats.c - column statistics of the Parquet writer.
 *
 * Parquet side (parquet.thrift, Statistics and ColumnOrder): min_value and
 * max_value in the type-defined order (signed for integers and decimals,
 * unsigned bytewise for strings and binary), PLAIN-encoded, except that
 * decimals in FIXED_LEN_BYTE_ARRAY are big-endian two's complement. NaN
 * never enters a float bound and a zero min is written as -0.0, a zero max
 * as +0.0, as the spec asks. Long string bounds are truncated and marked
 * inexact (is_min_value_exact / is_max_value_exact).
 *
 * Delta side: the same bounds as typed values for the Delta layer's stats
 * JSON (minValues, maxValues, nullCount).
 */
#include "formats/parquet/writer_int.h"

void pqw_minmax_init(pqw_minmax *mm)
{
    memset(mm, 0, sizeof(*mm));
    buf_init(&mm->bmin, 0);
    buf_init(&mm->bmax, 0);
}

void pqw_minmax_clear(pqw_minmax *mm)
{
    buf_clear(&mm->bmin);
    buf_clear(&mm->bmax);
    mm->has = 0;
}

void pqw_minmax_reset(pqw_minmax *mm)
{
    buf_truncate(&mm->bmin, 0);
    buf_truncate(&mm->bmax, 0);
    mm->has = 0;
}

static int bytes_cmp(const char *a, size_t a_len, const char *b, size_t b_len)
{
    size_t n = a_len < b_len ? a_len : b_len;
    int c = n > 0 ? memcmp(a, b, n) : 0;
    if (c != 0)
        return c;
    return a_len < b_len ? -1 : a_len > b_len;
}

static silt_status buf_set(buf *b, const char *data, size_t len, silt_error *err)
{
    buf_truncate(b, 0);
    return buf_append(b, data, len, err);
}

silt_status pqw_minmax_bytes(pqw_minmax *mm, const char *min, int32_t min_len, const char *max,
                             int32_t max_len, silt_error *err)
{
    if (!mm->has || bytes_cmp(min, (size_t)min_len, mm->bmin.data, mm->bmin.len) < 0)
        SILT_RETURN_IF_ERROR(buf_set(&mm->bmin, min, (size_t)min_len, err));
    if (!mm->has || bytes_cmp(max, (size_t)max_len, mm->bmax.data, mm->bmax.len) > 0)
        SILT_RETURN_IF_ERROR(buf_set(&mm->bmax, max, (size_t)max_len, err));
    mm->has = 1;
    return SILT_OK;
}

silt_status pqw_minmax_merge(pqw_minmax *dst, const pqw_minmax *src, int stat_kind,
                             silt_error *err)
{
    if (!src->has)
        return SILT_OK;
    switch (stat_kind) {
    case PQW_SK_INT:
        if (!dst->has || src->imin < dst->imin)
            dst->imin = src->imin;
        if (!dst->has || src->imax > dst->imax)
            dst->imax = src->imax;
        break;
    case PQW_SK_DOUBLE:
        if (!dst->has || src->dmin < dst->dmin)
            dst->dmin = src->dmin;
        if (!dst->has || src->dmax > dst->dmax)
            dst->dmax = src->dmax;
        break;
    case PQW_SK_DEC:
        if (!dst->has || src->qmin < dst->qmin)
            dst->qmin = src->qmin;
        if (!dst->has || src->qmax > dst->qmax)
            dst->qmax = src->qmax;
        break;
    default:
        return pqw_minmax_bytes(dst, src->bmin.data, (int32_t)src->bmin.len, src->bmax.data,
                                (int32_t)src->bmax.len, err);
    }
    dst->has = 1;
    return SILT_OK;
}

/* Length of the longest prefix of at most max_bytes that ends on a UTF-8 boundary. */
static size_t utf8_prefix(const char *value, size_t len, size_t max_bytes)
{
    size_t n = len < max_bytes ? len : max_bytes;
    while (n > 0 && n < len && ((uint8_t)value[n] & 0xC0) == 0x80)
        n--;
    return n;
}

size_t pqw_truncate_min(const char *value, size_t len, size_t max_bytes, int utf8,
                        int *exact_out)
{
    if (len <= max_bytes) {
        *exact_out = 1;
        return len;
    }
    *exact_out = 0;
    return utf8 ? utf8_prefix(value, len, max_bytes) : max_bytes;
}

/* Start of the UTF-8 character that ends at end (exclusive). */
static size_t utf8_last_start(const uint8_t *s, size_t end)
{
    size_t start = end - 1;
    while (start > 0 && (s[start] & 0xC0) == 0x80 && end - start < 4)
        start--;
    return start;
}

static uint32_t utf8_decode(const uint8_t *s, size_t len)
{
    if (len == 1)
        return s[0];
    uint32_t cp = s[0] & (0xFF >> (len + 1));
    for (size_t idx = 1; idx < len; idx++)
        cp = (cp << 6) | (s[idx] & 0x3F);
    return cp;
}

static size_t utf8_encode(uint32_t cp, uint8_t *dst)
{
    if (cp < 0x80) {
        dst[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (uint8_t)(0xC0 | (cp >> 6));
        dst[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (uint8_t)(0xE0 | (cp >> 12));
        dst[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        dst[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    dst[0] = (uint8_t)(0xF0 | (cp >> 18));
    dst[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    dst[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    dst[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

silt_status pqw_truncate_max(const char *value, size_t len, size_t max_bytes, int utf8, buf *out,
                             int *exact_out, silt_error *err)
{
    buf_truncate(out, 0);
    if (len > max_bytes) {
        size_t n = utf8 ? utf8_prefix(value, len, max_bytes) : max_bytes;
        SILT_RETURN_IF_ERROR(buf_append(out, value, n, err));
        uint8_t *d = (uint8_t *)out->data;
        /*
         * Increment the last byte (binary) or character (string); one that
         * cannot grow (0xFF, U+10FFFF) is dropped and the one before it is
         * tried, like carrying in an addition.
         */
        while (n > 0) {
            if (!utf8) {
                if (d[n - 1] != 0xFF) {
                    d[n - 1]++;
                    buf_truncate(out, n);
                    *exact_out = 0;
                    return SILT_OK;
                }
                n--;
                continue;
            }
            size_t start = utf8_last_start(d, n);
            uint32_t cp = utf8_decode(d + start, n - start) + 1;
            if (cp == 0xD800)
                cp = 0xE000; /* surrogates are not characters */
            if (cp <= 0x10FFFF) {
                uint8_t enc[4];
                size_t enc_len = utf8_encode(cp, enc);
                buf_truncate(out, start);
                SILT_RETURN_IF_ERROR(buf_append(out, enc, enc_len, err));
                *exact_out = 0;
                return SILT_OK;
            }
            n = start;
        }
        buf_truncate(out, 0);
    }
    /* Short enough, or nothing shorter bounds it: keep the whole value. */
    *exact_out = 1;
    return buf_append(out, value, len, err);
}

static void put_le(uint8_t *dst, uint64_t v, size_t n)
{
    for (size_t b = 0; b < n; b++)
        dst[b] = (uint8_t)(v >> (8 * b));
}

static void put_be128(uint8_t *dst, col_int128 v, size_t n)
{
    for (size_t b = 0; b < n; b++)
        dst[n - 1 - b] = (uint8_t)(v >> (8 * b));
}

/* PLAIN bytes of one bound (or big-endian for FIXED_LEN_BYTE_ARRAY decimals). */
static silt_status encode_bound(const pqw_leaf *leaf, int64_t iv, double dv, col_int128 qv,
                                int is_max, arena *a, const uint8_t **out, size_t *len_out,
                                silt_error *err)
{
    size_t n = leaf->phys == PQW_BOOLEAN ? 1 : leaf->width;
    uint8_t *dst = arena_alloc(a, n);
    if (dst == NULL)
        return err_nomem(err);
    switch (leaf->phys) {
    case PQW_BOOLEAN:
        dst[0] = (uint8_t)(iv != 0);
        break;
    case PQW_INT32:
    case PQW_INT64:
        put_le(dst, leaf->stat_kind == PQW_SK_DEC ? (uint64_t)(int64_t)qv : (uint64_t)iv, n);
        break;
    case PQW_FLOAT: {
        float f = (float)dv;
        if (f == 0.0f)
            f = is_max ? 0.0f : -0.0f;
        memcpy(dst, &f, 4);
        break;
    }
    case PQW_DOUBLE: {
        double d = dv;
        if (d == 0.0)
            d = is_max ? 0.0 : -0.0;
        memcpy(dst, &d, 8);
        break;
    }
    default: /* FIXED_LEN_BYTE_ARRAY decimal */
        put_be128(dst, qv, n);
        break;
    }
    *out = dst;
    *len_out = n;
    return SILT_OK;
}

silt_status pqw_stats_encode(const pqw_leaf *leaf, const pqw_minmax *mm, int64_t null_count,
                             size_t max_bytes, arena *a, pqw_stats_meta *out, silt_error *err)
{
    memset(out, 0, sizeof(*out));
    out->has_null_count = 1;
    out->null_count = null_count;
    /* INT96 has no defined sort order (parquet.thrift, ColumnOrder): no bounds. */
    if (!mm->has || leaf->phys == PQW_INT96)
        return SILT_OK;
    out->has_min_max = 1;
    if (leaf->stat_kind == PQW_SK_BYTES) {
        int utf8 = leaf->tid == COL_STRING;
        size_t min_len = pqw_truncate_min(mm->bmin.data, mm->bmin.len, max_bytes, utf8,
                                          &out->min_exact);
        out->min_value = arena_memdup(a, mm->bmin.data, min_len ? min_len : 1);
        out->min_len = min_len;
        buf tmp = BUF_INIT;
        silt_status rc = pqw_truncate_max(mm->bmax.data, mm->bmax.len, max_bytes, utf8, &tmp,
                                          &out->max_exact, err);
        if (rc == SILT_OK) {
            out->max_value = arena_memdup(a, tmp.data ? tmp.data : "", tmp.len ? tmp.len : 1);
            out->max_len = tmp.len;
        }
        buf_clear(&tmp);
        if (rc != SILT_OK)
            return rc;
        if (out->min_value == NULL || out->max_value == NULL)
            return err_nomem(err);
        return SILT_OK;
    }
    out->min_exact = out->max_exact = 1;
    SILT_RETURN_IF_ERROR(
        encode_bound(leaf, mm->imin, mm->dmin, mm->qmin, 0, a, &out->min_value, &out->min_len, err));
    return encode_bound(leaf, mm->imax, mm->dmax, mm->qmax, 1, a, &out->max_value, &out->max_len,
                        err);
}

silt_status pqw_stats_typed(const pqw_leaf *leaf, size_t max_bytes, arena *a,
                            pqw_leaf_stats *out, silt_error *err)
{
    const pqw_minmax *mm = &leaf->file_mm;
    memset(out, 0, sizeof(*out));
    out->type = leaf->type;
    out->in_repeated = leaf->in_repeated;
    out->null_count = leaf->file_nulls;
    const char **path = arena_alloc(a, leaf->lpath_len * sizeof(char *));
    if (path == NULL)
        return err_nomem(err);
    for (size_t idx = 0; idx < leaf->lpath_len; idx++)
        if ((path[idx] = arena_strdup(a, leaf->lpath[idx])) == NULL)
            return err_nomem(err);
    out->path = path;
    out->path_len = leaf->lpath_len;
    out->has_min_max = mm->has;
    if (!mm->has)
        return SILT_OK;
    out->min_exact = out->max_exact = 1;
    switch (leaf->stat_kind) {
    case PQW_SK_INT:
        out->min.i = mm->imin;
        out->max.i = mm->imax;
        break;
    case PQW_SK_DOUBLE:
        out->min.d = mm->dmin;
        out->max.d = mm->dmax;
        break;
    case PQW_SK_DEC:
        out->min.dec = mm->qmin;
        out->max.dec = mm->qmax;
        break;
    default: {
        int utf8 = leaf->tid == COL_STRING;
        size_t min_len = pqw_truncate_min(mm->bmin.data, mm->bmin.len, max_bytes, utf8,
                                          &out->min_exact);
        out->min.bytes = arena_strndup(a, mm->bmin.data ? mm->bmin.data : "", min_len);
        out->min.len = (int32_t)min_len;
        buf tmp = BUF_INIT;
        silt_status rc = pqw_truncate_max(mm->bmax.data, mm->bmax.len, max_bytes, utf8, &tmp,
                                          &out->max_exact, err);
        if (rc == SILT_OK) {
            out->max.bytes = arena_strndup(a, tmp.data ? tmp.data : "", tmp.len);
            out->max.len = (int32_t)tmp.len;
        }
        buf_clear(&tmp);
        if (rc != SILT_OK)
            return rc;
        if (out->min.bytes == NULL || out->max.bytes == NULL)
            return err_nomem(err);
        break;
    }
    }
    return SILT_OK;
}
