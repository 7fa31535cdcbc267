/*
 * writer.c - the Parquet writer: shredding batches into levels and values,
 * pages, column chunks, row groups and the footer.
 *
 * File layout (parquet.thrift, "File format"): "PAR1", the row groups, each
 * a column chunk per leaf (an optional dictionary page, then data pages,
 * each a Thrift PageHeader and the compressed body), the page index (every
 * ColumnIndex, then every OffsetIndex; PageIndex.md), then the
 * FileMetaData, its 4-byte little-endian length and "PAR1".
 *
 * A data page (v1) body is: repetition levels (4-byte length + RLE hybrid)
 * when the leaf is under a list or map, definition levels (the same) when
 * anything on its path is optional, then the values (PLAIN, or one byte of
 * bit width and the RLE-hybrid dictionary indices).
 *
 * Batches are cut into slices of rows (1024, halved while one slice
 * overshoots the page target twice over); a slice is shredded for every
 * leaf and pages, row groups are closed only between slices, so a page
 * always starts at a row boundary (readers that skip pages rely on it).
 * Slices are also cut so that a top-level string column brings at most a
 * page of bytes.
 *
 * The dictionary of a chunk is abandoned (PLAIN from the next page on) when
 * its first dictionary page is not smaller than PLAIN would be, or once it
 * passes dictionary_max_bytes or dictionary_max_entries. Each row group
 * starts a new dictionary.
 *
 * Shredding follows the Dremel scheme of the spec: a top-level primitive
 * column and a top-level list or map of primitives have loops of their own;
 * deeper nesting walks each value down its chain of vectors.
 */
#include "formats/parquet/writer_int.h"
#include "formats/parquet/codec.h"

#include <limits.h>

#include "util/mem.h"

#define PQW_SLICE_ROWS 1024

static const char PQW_MAGIC[4] = {'P', 'A', 'R', '1'};

/* ---- output ---- */

static silt_status file_write(pqw_writer *w, const void *data, size_t len, silt_error *err)
{
    SILT_RETURN_IF_ERROR(io_writer_write(w->out, data, len, err));
    w->offset += (int64_t)len;
    return SILT_OK;
}

/* Reserves room for n more 16-bit levels. */
static inline silt_status level_reserve(buf *b, size_t n, silt_error *err)
{
    if (b->cap - b->len <= n * 2)
        return buf_reserve(b, n * 2 + 4096, err);
    return SILT_OK;
}

/* ---- shredding: vectors to levels and value positions ---- */

typedef struct shred_ctx {
    pqw_leaf *leaf;
    silt_error *err;
    silt_status rc;
} shred_ctx;

static void emit(shred_ctx *ctx, int16_t def, int16_t rep, int64_t pos)
{
    pqw_leaf *leaf = ctx->leaf;
    if (ctx->rc != SILT_OK)
        return;
    if (leaf->max_def > 0) {
        if ((ctx->rc = level_reserve(&leaf->def, 1, ctx->err)) != SILT_OK)
            return;
        uint16_t v = (uint16_t)def;
        memcpy(leaf->def.data + leaf->def.len, &v, 2);
        leaf->def.len += 2;
    }
    if (leaf->max_rep > 0) {
        if ((ctx->rc = level_reserve(&leaf->rep, 1, ctx->err)) != SILT_OK)
            return;
        uint16_t v = (uint16_t)rep;
        memcpy(leaf->rep.data + leaf->rep.len, &v, 2);
        leaf->rep.len += 2;
    }
    leaf->page_values++;
    if (def < leaf->max_def) {
        leaf->chunk_nulls++;
        return;
    }
    if (leaf->pos.cap - leaf->pos.len <= 8 &&
        (ctx->rc = buf_reserve(&leaf->pos, 8 * 1024, ctx->err)) != SILT_OK)
        return;
    memcpy(leaf->pos.data + leaf->pos.len, &pos, 8);
    leaf->pos.len += 8;
}

static silt_status null_in_required(const pqw_leaf *leaf, size_t k, silt_error *err)
{
    return err_set(err, SILT_INVALID, "could not write column \"%s\": field \"%s\" is not "
                   "nullable but has a null value", leaf->steps[0].name, leaf->steps[k].name);
}

/* Walks one value of node k (vector v, row idx) down to the leaf. */
static void shred_value(shred_ctx *ctx, size_t k, const col_vec *v, int64_t idx, int16_t def,
                        int16_t rep)
{
    const pqw_step *step = &ctx->leaf->steps[k];
    if (ctx->rc != SILT_OK)
        return;
    if (col_vec_is_null(v, idx)) {
        if (!step->nullable) {
            ctx->rc = null_in_required(ctx->leaf, k, ctx->err);
            return;
        }
        emit(ctx, def, rep, -1);
        return;
    }
    if (step->nullable)
        def++;
    switch (step->kind) {
    case PQW_STEP_LEAF:
        emit(ctx, def, rep, idx);
        return;
    case PQW_STEP_STRUCT:
        shred_value(ctx, k + 1, v->children[step->child], idx, def, rep);
        return;
    default: {
        int32_t start = v->offsets[idx], end = v->offsets[idx + 1];
        const col_vec *child = v->children[step->child];
        if (start < 0 || end < start || end > child->length) {
            ctx->rc = err_set(ctx->err, SILT_INVALID, "could not write column \"%s\": offsets "
                              "%d..%d of row %lld are outside the %lld child values",
                              ctx->leaf->steps[0].name, (int)start, (int)end, (long long)idx,
                              (long long)child->length);
            return;
        }
        if (start == end) {
            emit(ctx, def, rep, -1); /* empty list or map: defined up to here */
            return;
        }
        for (int32_t e = start; e < end && ctx->rc == SILT_OK; e++)
            shred_value(ctx, k + 1, child, e, (int16_t)(def + 1), e == start ? rep : step->rep_level);
        return;
    }
    }
}

/* The vector of the leaf under a top-level column (the same for every row). */
static const col_vec *leaf_vector(const pqw_leaf *leaf, const col_vec *top)
{
    const col_vec *v = top;
    for (size_t k = 0; k + 1 < leaf->n_steps; k++)
        v = v->children[leaf->steps[k].child];
    return v;
}

/*
 * The common nested case without recursion: a top-level array or map whose
 * elements (keys, values) are primitive. Levels: 0 for a null list, d for an
 * empty one (d = 1 when the list is optional), d + 1 for a null element and
 * d + 1 (+ 1 when elements are optional) for a present one; repetition 0 on
 * a row's first entry, 1 after.
 */
static silt_status shred_list_of_leaves(pqw_leaf *leaf, const col_vec *top, int64_t row,
                                        int64_t n, silt_error *err)
{
    const pqw_step *list = &leaf->steps[0], *elem = &leaf->steps[1];
    const col_vec *child = top->children[list->child];
    const int32_t *off = top->offsets;
    size_t most = (size_t)n + (size_t)(off[row + n] - off[row]);
    SILT_RETURN_IF_ERROR(level_reserve(&leaf->def, most, err));
    SILT_RETURN_IF_ERROR(level_reserve(&leaf->rep, most, err));
    SILT_RETURN_IF_ERROR(buf_reserve(&leaf->pos, most * 8, err));
    uint16_t *def = (uint16_t *)(void *)(leaf->def.data + leaf->def.len);
    uint16_t *rep = (uint16_t *)(void *)(leaf->rep.data + leaf->rep.len);
    int64_t *pos = (int64_t *)(void *)leaf->pos.data;
    uint16_t d_list = (uint16_t)list->nullable, d_elem = (uint16_t)(d_list + 1);
    uint16_t d_value = (uint16_t)(d_elem + elem->nullable);
    size_t n_levels = 0, n_pos = 0;
    for (int64_t r = row; r < row + n; r++) {
        if (col_vec_is_null(top, r)) {
            if (!list->nullable)
                return null_in_required(leaf, 0, err);
            def[n_levels] = 0;
            rep[n_levels++] = 0;
            continue;
        }
        int32_t start = off[r], end = off[r + 1];
        if (start == end) {
            def[n_levels] = d_list;
            rep[n_levels++] = 0;
            continue;
        }
        for (int32_t e = start; e < end; e++) {
            rep[n_levels] = e == start ? 0 : 1;
            if (col_vec_is_null(child, e)) {
                if (!elem->nullable)
                    return null_in_required(leaf, 1, err);
                def[n_levels++] = d_elem;
                continue;
            }
            def[n_levels++] = d_value;
            pos[n_pos++] = e;
        }
    }
    leaf->def.len += n_levels * 2;
    leaf->rep.len += n_levels * 2;
    leaf->pos.len = n_pos * 8;
    leaf->page_values += (int64_t)n_levels;
    leaf->chunk_nulls += (int64_t)(n_levels - n_pos);
    return SILT_OK;
}

/*
 * Levels and value positions for rows [row, row + n) of a leaf. A top-level
 * primitive column takes the fast path straight from its validity bitmap;
 * *contiguous_out is set when its values are simply rows row..row+n-1.
 */
static silt_status shred_slice(pqw_leaf *leaf, const col_vec *top, int64_t row, int64_t n,
                               int *contiguous_out, silt_error *err)
{
    buf_truncate(&leaf->pos, 0);
    *contiguous_out = 0;
    if (leaf->n_steps == 1) {
        if (top->validity == NULL || top->null_count == 0) {
            if (leaf->max_def > 0) {
                SILT_RETURN_IF_ERROR(level_reserve(&leaf->def, (size_t)n, err));
                uint16_t *dst = (uint16_t *)(void *)(leaf->def.data + leaf->def.len);
                for (int64_t r = 0; r < n; r++)
                    dst[r] = 1;
                leaf->def.len += (size_t)n * 2;
            }
            leaf->page_values += n;
            *contiguous_out = 1;
            return SILT_OK;
        }
        if (!leaf->steps[0].nullable)
            return null_in_required(leaf, 0, err);
        SILT_RETURN_IF_ERROR(level_reserve(&leaf->def, (size_t)n, err));
        SILT_RETURN_IF_ERROR(buf_reserve(&leaf->pos, (size_t)n * 8, err));
        uint16_t *dst = (uint16_t *)(void *)(leaf->def.data + leaf->def.len);
        int64_t *pos = (int64_t *)(void *)leaf->pos.data;
        size_t n_pos = 0;
        for (int64_t r = 0; r < n; r++) {
            int present = col_bit_get(top->validity, row + r);
            dst[r] = (uint16_t)present;
            pos[n_pos] = row + r;
            n_pos += (size_t)present;
        }
        leaf->def.len += (size_t)n * 2;
        leaf->pos.len = n_pos * 8;
        leaf->page_values += n;
        leaf->chunk_nulls += n - (int64_t)n_pos;
        return SILT_OK;
    }
    if (leaf->n_steps == 2 && leaf->steps[0].kind == PQW_STEP_LIST)
        return shred_list_of_leaves(leaf, top, row, n, err);
    shred_ctx ctx = {leaf, err, SILT_OK};
    for (int64_t r = row; r < row + n && ctx.rc == SILT_OK; r++)
        shred_value(&ctx, 0, top, r, 0, 0);
    return ctx.rc;
}

/* ---- values: gather, statistics, PLAIN or dictionary ---- */

/*
 * Gathers the present values of a fixed-width leaf as PLAIN bytes into dst
 * and updates the chunk min/max. One loop per type keeps the hot path free
 * of per-value calls.
 */
#define GATHER_INT(SRC_T, DST_T)                                                                   \
    do {                                                                                           \
        const SRC_T *src = (const SRC_T *)v->values;                                               \
        DST_T *out = (DST_T *)(void *)(dst->data + dst->len);                                      \
        int64_t lo = mm->has ? mm->imin : INT64_MAX, hi = mm->has ? mm->imax : INT64_MIN;          \
        for (size_t idx = 0; idx < n; idx++) {                                                     \
            SRC_T x = src[pos ? pos[idx] : first + (int64_t)idx];                                  \
            out[idx] = (DST_T)x;                                                                   \
            lo = x < lo ? x : lo;                                                                  \
            hi = x > hi ? x : hi;                                                                  \
        }                                                                                          \
        if (n > 0) {                                                                               \
            mm->imin = lo;                                                                         \
            mm->imax = hi;                                                                         \
            mm->has = 1;                                                                           \
        }                                                                                          \
    } while (0)

#define GATHER_FLOAT(T)                                                                            \
    do {                                                                                           \
        const T *src = (const T *)v->values;                                                       \
        T *out = (T *)(void *)(dst->data + dst->len);                                              \
        for (size_t idx = 0; idx < n; idx++) {                                                     \
            T x = src[pos ? pos[idx] : first + (int64_t)idx];                                      \
            out[idx] = x;                                                                          \
            if (x != x)                                                                            \
                continue; /* NaN is never a bound */                                               \
            if (!mm->has || x < mm->dmin)                                                          \
                mm->dmin = x;                                                                      \
            if (!mm->has || x > mm->dmax)                                                          \
                mm->dmax = x;                                                                      \
            mm->has = 1;                                                                           \
        }                                                                                          \
    } while (0)

static void gather_decimal(const pqw_leaf *leaf, const col_vec *v, const int64_t *pos,
                           int64_t first, size_t n, buf *dst, pqw_minmax *mm)
{
    const col_int128 *src = (const col_int128 *)v->values;
    uint8_t *out = (uint8_t *)dst->data + dst->len;
    size_t width = leaf->width;
    for (size_t idx = 0; idx < n; idx++) {
        col_int128 x = src[pos ? pos[idx] : first + (int64_t)idx];
        if (!mm->has || x < mm->qmin)
            mm->qmin = x;
        if (!mm->has || x > mm->qmax)
            mm->qmax = x;
        mm->has = 1;
        if (leaf->phys == PQW_INT32) {
            int32_t y = (int32_t)x;
            memcpy(out + idx * 4, &y, 4);
        } else if (leaf->phys == PQW_INT64) {
            int64_t y = (int64_t)x;
            memcpy(out + idx * 8, &y, 8);
        } else {
            /* FIXED_LEN_BYTE_ARRAY: big-endian two's complement (LogicalTypes.md, DECIMAL). */
            uint8_t *d = out + idx * width;
            for (size_t b = 0; b < width; b++)
                d[width - 1 - b] = (uint8_t)(x >> (8 * b));
        }
    }
}

/*
 * INT96 timestamps: 8 bytes of nanoseconds within the day, then 4 bytes of
 * Julian day number, both little-endian (the layout Impala and Spark use).
 */
static void gather_int96(const col_vec *v, const int64_t *pos, int64_t first, size_t n, buf *dst,
                         pqw_minmax *mm)
{
    const int64_t micros_per_day = INT64_C(86400000000);
    const int64_t *src = (const int64_t *)v->values;
    uint8_t *out = (uint8_t *)dst->data + dst->len;
    for (size_t idx = 0; idx < n; idx++) {
        int64_t x = src[pos ? pos[idx] : first + (int64_t)idx];
        int64_t day = x / micros_per_day, rem = x % micros_per_day;
        if (rem < 0) {
            rem += micros_per_day;
            day--;
        }
        uint64_t nanos = (uint64_t)rem * 1000;
        uint32_t julian = (uint32_t)(day + 2440588); /* 1970-01-01 is Julian day 2440588 */
        memcpy(out + idx * 12, &nanos, 8);
        memcpy(out + idx * 12 + 8, &julian, 4);
        if (!mm->has || x < mm->imin)
            mm->imin = x;
        if (!mm->has || x > mm->imax)
            mm->imax = x;
        mm->has = 1;
    }
}

static silt_status gather_fixed(pqw_leaf *leaf, const col_vec *v, const int64_t *pos,
                                int64_t first, size_t n, buf *dst, silt_error *err)
{
    SILT_RETURN_IF_ERROR(buf_reserve(dst, n * leaf->width + 8, err));
    pqw_minmax *mm = &leaf->page_mm;
    switch (leaf->tid) {
    case COL_BOOLEAN:
        GATHER_INT(uint8_t, uint8_t);
        break;
    case COL_BYTE:
        GATHER_INT(int8_t, int32_t);
        break;
    case COL_SHORT:
        GATHER_INT(int16_t, int32_t);
        break;
    case COL_INT:
    case COL_DATE:
        GATHER_INT(int32_t, int32_t);
        break;
    case COL_TIMESTAMP:
        if (leaf->phys == PQW_INT96) {
            gather_int96(v, pos, first, n, dst, mm);
            break;
        }
        GATHER_INT(int64_t, int64_t);
        break;
    case COL_LONG:
    case COL_TIMESTAMP_NTZ:
        GATHER_INT(int64_t, int64_t);
        break;
    case COL_FLOAT:
        GATHER_FLOAT(float);
        break;
    case COL_DOUBLE:
        GATHER_FLOAT(double);
        break;
    case COL_DECIMAL:
        gather_decimal(leaf, v, pos, first, n, dst, mm);
        break;
    default:
        SILT_ASSERT(0 && "not a fixed-width leaf");
        break;
    }
    dst->len += n * leaf->width;
    return SILT_OK;
}

/*
 * The present byte-array values and their min/max: as pointers and lengths
 * in leaf->ptrs/lens for PLAIN (idx_out NULL), or straight into dictionary
 * indices (idx_out, n entries), without the pointer arrays. A value equal to
 * the one before (runs are common: a constant or clustered column) moves no
 * bound and takes the index before it, decided with one comparison.
 */
static silt_status gather_bytes(pqw_leaf *leaf, const col_vec *v, const int64_t *pos,
                                int64_t first, size_t n, uint32_t *idx_out, silt_error *err)
{
    const char **ptrs = NULL;
    int32_t *lens = NULL;
    if (idx_out == NULL) {
        buf_truncate(&leaf->ptrs, 0);
        buf_truncate(&leaf->lens, 0);
        SILT_RETURN_IF_ERROR(buf_reserve(&leaf->ptrs, n * sizeof(char *), err));
        SILT_RETURN_IF_ERROR(buf_reserve(&leaf->lens, n * sizeof(int32_t), err));
        ptrs = (const char **)(void *)leaf->ptrs.data;
        lens = (int32_t *)(void *)leaf->lens.data;
    }
    const char *min = NULL, *max = NULL, *prev = NULL;
    int32_t min_len = 0, max_len = 0, prev_len = -1;
    int64_t raw = 0;
    for (size_t idx = 0; idx < n; idx++) {
        int32_t len;
        const char *p = col_vec_str(v, pos ? pos[idx] : first + (int64_t)idx, &len);
        raw += 4 + len;
        if (ptrs != NULL) {
            ptrs[idx] = p;
            lens[idx] = len;
        }
        if (len == prev_len && (p == prev || mem_eq(p, prev, (size_t)len))) {
            if (idx_out != NULL)
                idx_out[idx] = idx_out[idx - 1];
            continue;
        }
        prev = p;
        prev_len = len;
        if (idx_out != NULL)
            SILT_RETURN_IF_ERROR(pqw_dict_add_bytes(&leaf->dict, &p, &len, 1, &idx_out[idx], err));
        if (min == NULL) {
            min = max = p;
            min_len = max_len = len;
            continue;
        }
        int32_t common = len < min_len ? len : min_len;
        int c = memcmp(p, min, (size_t)common);
        if (c < 0 || (c == 0 && len < min_len)) {
            min = p;
            min_len = len;
        }
        common = len < max_len ? len : max_len;
        c = memcmp(p, max, (size_t)common);
        if (c > 0 || (c == 0 && len > max_len)) {
            max = p;
            max_len = len;
        }
    }
    if (ptrs != NULL) {
        leaf->ptrs.len = n * sizeof(char *);
        leaf->lens.len = n * sizeof(int32_t);
    }
    leaf->page_raw += raw;
    if (min != NULL)
        return pqw_minmax_bytes(&leaf->page_mm, min, min_len, max, max_len, err);
    return SILT_OK;
}

static silt_status plain_bytes(pqw_leaf *leaf, size_t n, silt_error *err)
{
    const char **ptrs = (const char **)(void *)leaf->ptrs.data;
    const int32_t *lens = (const int32_t *)(void *)leaf->lens.data;
    size_t total = 0;
    for (size_t idx = 0; idx < n; idx++)
        total += 4 + (size_t)lens[idx];
    SILT_RETURN_IF_ERROR(buf_reserve(&leaf->vals, total, err));
    char *out = leaf->vals.data + leaf->vals.len;
    for (size_t idx = 0; idx < n; idx++) {
        uint32_t len = (uint32_t)lens[idx];
        memcpy(out, &len, 4);
        memcpy(out + 4, ptrs[idx], len);
        out += 4 + len;
    }
    leaf->vals.len += total;
    return SILT_OK;
}

/* Values of one shredded slice into the page (PLAIN or dictionary indices). */
static silt_status add_values(pqw_leaf *leaf, const col_vec *v, int contiguous, int64_t row,
                              int64_t n_rows, silt_error *err)
{
    const int64_t *pos = contiguous ? NULL : (const int64_t *)(void *)leaf->pos.data;
    size_t n = contiguous ? (size_t)n_rows : leaf->pos.len / 8;
    int64_t first = contiguous ? row : 0;
    if (leaf->phys == PQW_BYTE_ARRAY) {
        if (!leaf->dict_mode) {
            SILT_RETURN_IF_ERROR(gather_bytes(leaf, v, pos, first, n, NULL, err));
            return plain_bytes(leaf, n, err);
        }
        SILT_RETURN_IF_ERROR(buf_reserve(&leaf->vals, n * 4, err));
        SILT_RETURN_IF_ERROR(gather_bytes(leaf, v, pos, first, n,
                                          (uint32_t *)(void *)(leaf->vals.data + leaf->vals.len),
                                          err));
        leaf->vals.len += n * 4;
        leaf->dict_added += (int64_t)n;
        return SILT_OK;
    }
    if (!leaf->dict_mode)
        return gather_fixed(leaf, v, pos, first, n, &leaf->vals, err);
    buf_truncate(&leaf->gather, 0);
    leaf->page_raw += (int64_t)(n * leaf->width);
    SILT_RETURN_IF_ERROR(gather_fixed(leaf, v, pos, first, n, &leaf->gather, err));
    SILT_RETURN_IF_ERROR(buf_reserve(&leaf->vals, n * 4, err));
    SILT_RETURN_IF_ERROR(pqw_dict_add_fixed(&leaf->dict, (const uint8_t *)leaf->gather.data, n,
                                            (uint32_t *)(void *)(leaf->vals.data + leaf->vals.len),
                                            err));
    leaf->vals.len += n * 4;
    leaf->dict_added += (int64_t)n;
    return SILT_OK;
}

/* ---- pages ---- */

static silt_status append_page(pqw_writer *w, pqw_leaf *leaf, const pqw_page_header *ph_in,
                               silt_error *err)
{
    pqw_page_header ph = *ph_in;
    buf_truncate(&w->comp, 0);
    buf_truncate(&w->hdr, 0);
    if (w->page.len > INT32_MAX)
        return err_set(err, SILT_INVALID, "could not compress a page of %zu bytes: pages are "
                       "limited to 2 GiB", w->page.len);
    SILT_RETURN_IF_ERROR(pq_compress(w->opts.codec, w->opts.compression_level,
                                     (const uint8_t *)w->page.data, w->page.len, &w->comp, err));
    if (w->comp.len > INT32_MAX)
        return err_set(err, SILT_INVALID, "could not write a page of column \"%s\": %zu bytes "
                       "is over the 2 GiB page limit", leaf->steps[0].name, w->comp.len);
    ph.uncompressed_size = (int32_t)w->page.len;
    ph.compressed_size = (int32_t)w->comp.len;
    SILT_RETURN_IF_ERROR(pqw_thrift_page_header(&w->hdr, &ph, err));
    SILT_RETURN_IF_ERROR(buf_append(&leaf->chunk, w->hdr.data, w->hdr.len, err));
    SILT_RETURN_IF_ERROR(buf_append(&leaf->chunk, w->comp.data, w->comp.len, err));
    leaf->chunk_uncomp += (int64_t)(w->hdr.len + w->page.len);
    leaf->chunk_comp += (int64_t)(w->hdr.len + w->comp.len);
    return SILT_OK;
}

/* Appends 4-byte length + RLE hybrid levels to the page body. */
static silt_status put_levels(buf *page, const buf *levels, int16_t max_level, silt_error *err)
{
    size_t len_at = page->len;
    uint32_t len = 0;
    SILT_RETURN_IF_ERROR(buf_append(page, &len, 4, err));
    SILT_RETURN_IF_ERROR(pqw_rle_encode_u16(page, (const uint16_t *)(void *)levels->data,
                                            levels->len / 2, pqw_bit_width((uint32_t)max_level),
                                            err));
    len = (uint32_t)(page->len - len_at - 4);
    memcpy(page->data + len_at, &len, 4);
    return SILT_OK;
}

/*
 * Remembers a data page for the page index (its offset still relative to
 * the chunk) and folds its bounds into the chunk's.
 */
static silt_status record_page(pqw_writer *w, pqw_leaf *leaf, size_t page_at, silt_error *err)
{
    pqw_page_loc pl;
    pqw_stats_meta st;
    memset(&pl, 0, sizeof(pl));
    pl.offset = (int64_t)page_at;
    pl.size = (int32_t)(leaf->chunk.len - page_at);
    pl.first_row = leaf->page_first_row;
    pl.null_count = leaf->chunk_nulls - leaf->page_nulls_start;
    pl.null_page = pl.null_count == leaf->page_values;
    if (!pl.null_page) {
        SILT_RETURN_IF_ERROR(pqw_stats_encode(leaf, &leaf->page_mm, pl.null_count,
                                              w->opts.stats_max_bytes, w->meta, &st, err));
        /* Only NaN (or INT96, which has no order): no bounds, so no ColumnIndex. */
        if (!st.has_min_max)
            leaf->page_bounds_ok = 0;
        pl.min_value = st.min_value;
        pl.min_len = st.min_len;
        pl.max_value = st.max_value;
        pl.max_len = st.max_len;
    }
    SILT_RETURN_IF_ERROR(buf_append(&leaf->pages, &pl, sizeof(pl), err));
    SILT_RETURN_IF_ERROR(pqw_minmax_merge(&leaf->chunk_mm, &leaf->page_mm, leaf->stat_kind, err));
    pqw_minmax_reset(&leaf->page_mm);
    leaf->page_first_row = leaf->chunk_rows;
    leaf->page_nulls_start = leaf->chunk_nulls;
    return SILT_OK;
}

static silt_status flush_page(pqw_writer *w, pqw_leaf *leaf, silt_error *err)
{
    if (leaf->page_values == 0)
        return SILT_OK;
    if (leaf->page_values > INT32_MAX)
        return err_set(err, SILT_INVALID, "could not write a page of column \"%s\": more than "
                       "2^31 values", leaf->steps[0].name);
    buf *page = &w->page;
    buf_truncate(page, 0);
    if (leaf->max_rep > 0)
        SILT_RETURN_IF_ERROR(put_levels(page, &leaf->rep, leaf->max_rep, err));
    if (leaf->max_def > 0)
        SILT_RETURN_IF_ERROR(put_levels(page, &leaf->def, leaf->max_def, err));
    int encoding;
    if (leaf->dict_mode && leaf->dict.count > 0) {
        size_t values_at = page->len;
        uint8_t width = (uint8_t)pqw_bit_width((uint32_t)(leaf->dict.count - 1));
        SILT_RETURN_IF_ERROR(buf_append(page, &width, 1, err));
        SILT_RETURN_IF_ERROR(pqw_rle_encode_u32(page, (const uint32_t *)(void *)leaf->vals.data,
                                                leaf->vals.len / 4, width, err));
        encoding = PQW_ENC_RLE_DICTIONARY;
        leaf->dict_used = 1;
        /*
         * Weigh the dictionary once, on the chunk's first dictionary page (as
         * parquet-mr does): when dictionary and indices are not smaller than
         * the PLAIN values, the column has too many distinct values and the
         * rest of the chunk is written PLAIN.
         */
        if (!leaf->dict_checked) {
            leaf->dict_checked = 1;
            if ((int64_t)(page->len - values_at + leaf->dict.plain.len) >= leaf->page_raw)
                leaf->dict_mode = 0;
        }
    } else if (leaf->phys == PQW_BOOLEAN) {
        SILT_RETURN_IF_ERROR(pqw_plain_bools(page, (const uint8_t *)leaf->vals.data,
                                             leaf->vals.len, err));
        encoding = PQW_ENC_PLAIN;
    } else {
        SILT_RETURN_IF_ERROR(buf_append(page, leaf->vals.data, leaf->vals.len, err));
        encoding = PQW_ENC_PLAIN;
    }
    pqw_page_header ph = {PQW_PAGE_DATA, 0, 0, (int32_t)leaf->page_values, encoding,
                          PQW_ENC_RLE, PQW_ENC_RLE};
    size_t page_at = leaf->chunk.len;
    SILT_RETURN_IF_ERROR(append_page(w, leaf, &ph, err));
    SILT_RETURN_IF_ERROR(record_page(w, leaf, page_at, err));
    leaf->encodings |= (1u << encoding) | (1u << PQW_ENC_RLE);
    leaf->chunk_values += leaf->page_values;
    leaf->page_values = 0;
    leaf->page_raw = 0;
    buf_truncate(&leaf->def, 0);
    buf_truncate(&leaf->rep, 0);
    buf_truncate(&leaf->vals, 0);
    return SILT_OK;
}

/* Bytes the page would take before compression, roughly. */
static int64_t page_estimate(const pqw_leaf *leaf)
{
    int64_t levels = (int64_t)(leaf->def.len + leaf->rep.len) / 8;
    if (leaf->dict_mode) {
        int width = pqw_bit_width(leaf->dict.count > 0 ? (uint32_t)(leaf->dict.count - 1) : 0);
        return levels + (int64_t)(leaf->vals.len / 4) * width / 8;
    }
    if (leaf->phys == PQW_BOOLEAN)
        return levels + (int64_t)leaf->vals.len / 8;
    return levels + (int64_t)leaf->vals.len;
}

/* ---- row groups ---- */

static silt_status grow_row_groups(pqw_writer *w, silt_error *err)
{
    if (w->n_rgs < w->cap_rgs)
        return SILT_OK;
    size_t cap = w->cap_rgs ? w->cap_rgs * 2 : 4;
    pqw_row_group_meta *rgs = mem_realloc(w->rgs, cap * sizeof(*rgs));
    if (rgs == NULL)
        return err_nomem(err);
    w->rgs = rgs;
    w->cap_rgs = cap;
    return SILT_OK;
}

static silt_status write_chunk(pqw_writer *w, pqw_leaf *leaf, pqw_chunk_meta *cm,
                               silt_error *err)
{
    memset(cm, 0, sizeof(*cm));
    cm->dictionary_page_offset = -1;
    if (leaf->dict_used) {
        /* The dictionary page goes first, so it is written from its own buffer. */
        buf_truncate(&w->page, 0);
        SILT_RETURN_IF_ERROR(buf_append(&w->page, leaf->dict.plain.data, leaf->dict.plain.len,
                                        err));
        size_t chunk_len = leaf->chunk.len;
        pqw_page_header ph = {PQW_PAGE_DICTIONARY, 0, 0, (int32_t)leaf->dict.count,
                              PQW_ENC_PLAIN_DICTIONARY, 0, 0};
        SILT_RETURN_IF_ERROR(append_page(w, leaf, &ph, err));
        cm->dictionary_page_offset = w->offset;
        SILT_RETURN_IF_ERROR(file_write(w, leaf->chunk.data + chunk_len,
                                        leaf->chunk.len - chunk_len, err));
        buf_truncate(&leaf->chunk, chunk_len);
        leaf->encodings |= 1u << PQW_ENC_PLAIN_DICTIONARY;
    }
    cm->data_page_offset = w->offset;
    SILT_RETURN_IF_ERROR(file_write(w, leaf->chunk.data, leaf->chunk.len, err));
    cm->n_pages = leaf->pages.len / sizeof(pqw_page_loc);
    pqw_page_loc *pages = arena_memdup(w->meta, leaf->pages.data, leaf->pages.len + 1);
    if (pages == NULL)
        return err_nomem(err);
    for (size_t p = 0; p < cm->n_pages; p++)
        pages[p].offset += cm->data_page_offset;
    cm->pages = pages;
    cm->has_column_index = leaf->page_bounds_ok && leaf->phys != PQW_INT96;
    cm->type = leaf->phys;
    cm->encodings = leaf->encodings;
    cm->path = leaf->path;
    cm->path_len = leaf->path_len;
    cm->codec = w->opts.codec;
    cm->num_values = leaf->chunk_values;
    cm->total_uncompressed_size = leaf->chunk_uncomp;
    cm->total_compressed_size = leaf->chunk_comp;
    cm->has_stats = 1;
    SILT_RETURN_IF_ERROR(pqw_stats_encode(leaf, &leaf->chunk_mm, leaf->chunk_nulls,
                                          w->opts.stats_max_bytes, w->meta, &cm->stats, err));
    SILT_RETURN_IF_ERROR(pqw_minmax_merge(&leaf->file_mm, &leaf->chunk_mm, leaf->stat_kind, err));
    leaf->file_nulls += leaf->chunk_nulls;

    /* A fresh chunk: new dictionary, counters and bounds. */
    buf_truncate(&leaf->chunk, 0);
    pqw_dict_reset(&leaf->dict);
    leaf->dict_mode = w->opts.dictionary && leaf->phys != PQW_BOOLEAN;
    leaf->dict_used = 0;
    leaf->dict_checked = 0;
    leaf->dict_added = 0;
    leaf->chunk_values = leaf->chunk_nulls = leaf->chunk_uncomp = leaf->chunk_comp = 0;
    leaf->encodings = 0;
    pqw_minmax_reset(&leaf->chunk_mm);
    buf_truncate(&leaf->pages, 0);
    leaf->page_bounds_ok = 1;
    leaf->chunk_rows = leaf->page_first_row = leaf->page_nulls_start = 0;
    return SILT_OK;
}

static silt_status flush_row_group(pqw_writer *w, silt_error *err)
{
    if (w->rg_rows == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(grow_row_groups(w, err));
    pqw_chunk_meta *chunks = arena_calloc(w->meta, w->n_leaves, sizeof(*chunks));
    if (chunks == NULL)
        return err_nomem(err);
    pqw_row_group_meta *rg = &w->rgs[w->n_rgs];
    memset(rg, 0, sizeof(*rg));
    rg->file_offset = w->offset;
    for (size_t l = 0; l < w->n_leaves; l++) {
        pqw_leaf *leaf = &w->leaves[l];
        SILT_RETURN_IF_ERROR(flush_page(w, leaf, err));
        SILT_RETURN_IF_ERROR(write_chunk(w, leaf, &chunks[l], err));
        rg->total_byte_size += chunks[l].total_uncompressed_size;
        rg->total_compressed_size += chunks[l].total_compressed_size;
    }
    if (w->n_rgs >= INT16_MAX)
        return err_set(err, SILT_INVALID, "could not write more than %d row groups", INT16_MAX);
    rg->chunks = chunks;
    rg->n_chunks = w->n_leaves;
    rg->num_rows = w->rg_rows;
    rg->ordinal = (int16_t)w->n_rgs;
    w->n_rgs++;
    w->rg_rows = 0;
    return SILT_OK;
}

static int64_t row_group_estimate(const pqw_writer *w)
{
    int64_t total = 0;
    for (size_t l = 0; l < w->n_leaves; l++) {
        const pqw_leaf *leaf = &w->leaves[l];
        total += leaf->chunk_comp + page_estimate(leaf) + (int64_t)leaf->dict.plain.len;
    }
    return total;
}

/* ---- batches ---- */

static silt_status bad_vector(const char *name, const char *why, silt_error *err)
{
    return err_set(err, SILT_INVALID, "could not write column \"%s\": %s", name, why);
}

/* Offsets [0, length] must not decrease and stay within limit. */
static int offsets_ok(const int32_t *offsets, int64_t length, int64_t limit)
{
    if (offsets == NULL || offsets[0] < 0)
        return 0;
    for (int64_t r = 0; r < length; r++)
        if (offsets[r + 1] < offsets[r])
            return 0;
    return offsets[length] <= limit;
}

/*
 * Checks that the first `length` rows of a vector can be read without going
 * out of bounds: child lengths, offsets and dictionary indices. Values are
 * vectors handed in through the API, so they get an error, not an assert.
 */
static silt_status check_vec(const char *name, const col_vec *v, int64_t length,
                             silt_error *err)
{
    const col_type *t = v->type;
    if (v->length < length)
        return bad_vector(name, "a vector is shorter than its parent", err);
    switch (t->id) {
    case COL_STRING:
    case COL_BINARY:
        if (v->dictionary != NULL) {
            const col_vec *d = v->dictionary;
            const int32_t *idx = v->values;
            if (idx == NULL && length > 0)
                return bad_vector(name, "dictionary indices are missing", err);
            if (d->dictionary != NULL || !offsets_ok(d->offsets, d->length, d->data_len))
                return bad_vector(name, "its dictionary is malformed", err);
            for (int64_t r = 0; r < length; r++)
                if ((uint64_t)(uint32_t)idx[r] >= (uint64_t)d->length && !col_vec_is_null(v, r))
                    return bad_vector(name, "a dictionary index is out of range", err);
            return SILT_OK;
        }
        if (!offsets_ok(v->offsets, length, v->data_len))
            return bad_vector(name, "string offsets are out of order or past the data", err);
        return SILT_OK;
    case COL_STRUCT:
        if (v->n_children != t->n_fields)
            return bad_vector(name, "a struct vector has the wrong number of children", err);
        for (size_t f = 0; f < t->n_fields; f++)
            SILT_RETURN_IF_ERROR(check_vec(name, v->children[f], length, err));
        return SILT_OK;
    case COL_ARRAY:
    case COL_MAP: {
        size_t n_children = t->id == COL_MAP ? 2 : 1;
        if (v->n_children != n_children)
            return bad_vector(name, "a list vector has the wrong number of children", err);
        if (!offsets_ok(v->offsets, length, v->children[0]->length))
            return bad_vector(name, "list offsets are out of order or past the elements", err);
        for (size_t c = 0; c < n_children; c++)
            SILT_RETURN_IF_ERROR(check_vec(name, v->children[c], v->offsets[length], err));
        return SILT_OK;
    }
    default:
        if (v->values == NULL && length > 0)
            return bad_vector(name, "a vector has no values", err);
        return SILT_OK;
    }
}

static silt_status check_batch(const pqw_writer *w, const col_batch *batch, silt_error *err)
{
    const col_type *schema = w->schema;
    if (batch->n_cols != schema->n_fields)
        return err_set(err, SILT_INVALID, "could not write a batch of %zu columns to a Parquet "
                       "file of %zu columns", batch->n_cols, schema->n_fields);
    for (size_t col = 0; col < batch->n_cols; col++) {
        const col_vec *v = batch->cols[col];
        const char *name = schema->fields[col].name;
        if (v == NULL || v->length < batch->n_rows)
            return err_set(err, SILT_INVALID, "could not write column \"%s\": it has fewer rows "
                           "than the batch (%lld)", name, (long long)batch->n_rows);
        if (!col_type_equal(v->type, schema->fields[col].type))
            return err_set(err, SILT_INVALID, "could not write column \"%s\": its vector type "
                           "differs from the file schema", name);
        SILT_RETURN_IF_ERROR(check_vec(name, v, batch->n_rows, err));
    }
    return SILT_OK;
}

/*
 * A key-like column: the first PQW_DICT_PROBE values of the chunk were all
 * different. Its dictionary would fail the first page's weighing anyway
 * (dictionary plus indices are bigger than PLAIN when nothing repeats),
 * but only after a megabyte of entries, and filling a table that size for
 * every chunk cost 10% of a JSON ingest in cache misses (trip_id of the
 * trips tutorial). Stopping early changes only the encoding of the first
 * page; a column whose values start repeating later loses its dictionary
 * for this chunk, the price of deciding early.
 */
#define PQW_DICT_PROBE 8192

static int all_distinct(const pqw_leaf *leaf)
{
    return !leaf->dict_checked && leaf->dict_added >= PQW_DICT_PROBE &&
           (int64_t)leaf->dict.count == leaf->dict_added;
}

static silt_status write_slice(pqw_writer *w, const col_batch *batch, int64_t row, int64_t n,
                               silt_error *err)
{
    for (size_t l = 0; l < w->n_leaves; l++) {
        pqw_leaf *leaf = &w->leaves[l];
        const col_vec *top = batch->cols[leaf->top_col];
        int contiguous;
        SILT_RETURN_IF_ERROR(shred_slice(leaf, top, row, n, &contiguous, err));
        SILT_RETURN_IF_ERROR(add_values(leaf, leaf_vector(leaf, top), contiguous, row, n, err));
        leaf->chunk_rows += n;
        if (leaf->dict_mode &&
            ((int64_t)leaf->dict.plain.len > w->opts.dictionary_max_bytes ||
             (int64_t)leaf->dict.count > w->opts.dictionary_max_entries || all_distinct(leaf))) {
            /* Too many distinct values to pay off: PLAIN from the next page on. */
            SILT_RETURN_IF_ERROR(flush_page(w, leaf, err));
            leaf->dict_mode = 0;
        } else if (page_estimate(leaf) >= w->opts.page_bytes ||
                   (w->opts.page_rows > 0 &&
                    leaf->chunk_rows - leaf->page_first_row >= w->opts.page_rows)) {
            /* Wide values overshoot the page target: check more often. */
            if (page_estimate(leaf) > 2 * w->opts.page_bytes && w->slice_rows > 1)
                w->slice_rows /= 2;
            SILT_RETURN_IF_ERROR(flush_page(w, leaf, err));
        }
    }
    w->rg_rows += n;
    w->total_rows += n;
    if ((w->opts.row_group_rows > 0 && w->rg_rows >= w->opts.row_group_rows) ||
        row_group_estimate(w) >= w->opts.row_group_bytes)
        return flush_row_group(w, err);
    return SILT_OK;
}

/*
 * Shrinks a slice so that no top-level string or binary column brings more
 * than a page worth of bytes: a page can then be cut near its target even
 * when single values are large. (Nested wide values rely on the slice
 * halving in write_slice.)
 */
static int64_t fit_slice(const pqw_writer *w, const col_batch *batch, int64_t row, int64_t n)
{
    for (size_t col = 0; col < batch->n_cols; col++) {
        const col_vec *v = batch->cols[col];
        col_type_id id = v->type->id;
        if ((id != COL_STRING && id != COL_BINARY) || v->dictionary != NULL)
            continue;
        while (n > 1 && (int64_t)v->offsets[row + n] - v->offsets[row] > w->opts.page_bytes)
            n /= 2;
    }
    return n;
}

silt_status pqw_writer_write_batch(pqw_writer *w, const col_batch *batch, silt_error *err)
{
    silt_status rc = SILT_OK;
    if (w->failed)
        return err_set(err, SILT_INVALID, "could not write to Parquet file \"%s\": an earlier "
                       "write failed", w->key);
    rc = check_batch(w, batch, err);
    for (int64_t row = 0; rc == SILT_OK && row < batch->n_rows;) {
        int64_t n = batch->n_rows - row;
        if (n > w->slice_rows)
            n = w->slice_rows;
        if (w->opts.row_group_rows > 0 && n > w->opts.row_group_rows - w->rg_rows)
            n = w->opts.row_group_rows - w->rg_rows;
        n = fit_slice(w, batch, row, n);
        rc = write_slice(w, batch, row, n, err);
        row += n;
    }
    if (rc != SILT_OK) {
        w->failed = 1;
        err_context(err, "while writing Parquet file \"%s\"", w->key);
    }
    return rc;
}

/* ---- codec names ---- */

/*
 * Spark's short names (ParquetCompressionCodec): "none" is UNCOMPRESSED,
 * "lz4" the deprecated Hadoop-framed LZ4 (parquet-mr's CompressionCodecName.LZ4),
 * "lz4_raw" LZ4_RAW. The extension is CompressionCodecName.getExtension,
 * which Spark puts before ".parquet" in a data file's name.
 */
static const struct {
    const char *name;
    int codec;
    const char *ext;
} spark_codecs[] = {
    {"none", PQW_CODEC_UNCOMPRESSED, ""}, {"uncompressed", PQW_CODEC_UNCOMPRESSED, ""},
    {"snappy", PQW_CODEC_SNAPPY, ".snappy"}, {"gzip", PQW_CODEC_GZIP, ".gz"},
    {"lzo", PQW_CODEC_LZO, ".lzo"},          {"brotli", PQW_CODEC_BROTLI, ".br"},
    {"lz4", PQW_CODEC_LZ4, ".lz4"},          {"zstd", PQW_CODEC_ZSTD, ".zstd"},
    {"lz4_raw", PQW_CODEC_LZ4_RAW, ".lz4raw"}};

#define N_SPARK_CODECS (sizeof(spark_codecs) / sizeof(spark_codecs[0]))

int pqw_codec_by_spark_name(const char *name)
{
    for (size_t idx = 0; name != NULL && idx < N_SPARK_CODECS; idx++)
        if (util_str_casecmp(name, spark_codecs[idx].name) == 0)
            return spark_codecs[idx].codec;
    return -1;
}

const char *pqw_codec_spark_names(void)
{
    return "none, uncompressed, snappy, gzip, lzo, brotli, lz4, lz4_raw, zstd";
}

const char *pqw_codec_extension(int codec)
{
    for (size_t idx = 1; idx < N_SPARK_CODECS; idx++)
        if (spark_codecs[idx].codec == codec)
            return spark_codecs[idx].ext;
    return "";
}

/* ---- open, close, abort ---- */

static silt_status check_options(const pqw_options *o, silt_error *err)
{
    if (o->codec < PQW_CODEC_UNCOMPRESSED || o->codec > PQW_CODEC_LZ4_RAW ||
        o->codec == PQW_CODEC_LZO)
        return err_set(err, SILT_INVALID, "could not open a Parquet writer: codec %d is not "
                       "one of UNCOMPRESSED, SNAPPY, GZIP, BROTLI, LZ4, ZSTD, LZ4_RAW", o->codec);
    if (o->row_group_bytes <= 0 || o->page_bytes <= 0 || o->row_group_rows < 0 ||
        o->page_rows < 0 ||
        o->dictionary_max_bytes < 0 || o->dictionary_max_entries < 0)
        return err_set(err, SILT_INVALID, "could not open a Parquet writer: sizes must be "
                       "positive");
    if (o->stats_max_bytes == 0)
        return err_set(err, SILT_INVALID, "could not open a Parquet writer: statistics need "
                       "at least one byte of a string bound");
    if (o->n_kv > 0 && o->kv == NULL)
        return err_set(err, SILT_INVALID, "could not open a Parquet writer: %zu key-value "
                       "pairs given without an array", o->n_kv);
    for (size_t idx = 0; idx < o->n_kv; idx++)
        if (o->kv[idx].key == NULL)
            return err_set(err, SILT_INVALID, "could not open a Parquet writer: key-value pair "
                           "%zu has no key", idx);
    /* Dictionary entries and page values are addressed with 32-bit offsets. */
    if (o->dictionary_max_bytes > (int64_t)1 << 30 || o->page_bytes > (int64_t)1 << 30)
        return err_set(err, SILT_INVALID, "could not open a Parquet writer: pages and "
                       "dictionaries are limited to 1 GiB");
    return SILT_OK;
}

static void writer_free(pqw_writer *w)
{
    if (w == NULL)
        return;
    for (size_t l = 0; l < w->n_leaves; l++) {
        pqw_leaf *leaf = &w->leaves[l];
        buf_clear(&leaf->def);
        buf_clear(&leaf->rep);
        buf_clear(&leaf->vals);
        buf_clear(&leaf->pos);
        buf_clear(&leaf->gather);
        buf_clear(&leaf->ptrs);
        buf_clear(&leaf->lens);
        buf_clear(&leaf->chunk);
        pqw_dict_clear(&leaf->dict);
        pqw_minmax_clear(&leaf->chunk_mm);
        pqw_minmax_clear(&leaf->page_mm);
        buf_clear(&leaf->pages);
        pqw_minmax_clear(&leaf->file_mm);
    }
    mem_free(w->leaves);
    mem_free(w->elems);
    mem_free(w->rgs);
    mem_free(w->key);
    buf_clear(&w->page);
    buf_clear(&w->comp);
    buf_clear(&w->hdr);
    io_writer_abort(w->out);
    arena_free(w->meta);
    mem_free(w);
}

silt_status pqw_writer_open(pqw_writer **out, io_store *store, const char *key,
                            const col_type *schema, const pqw_options *opts, silt_error *err)
{
    static const pqw_options defaults = PQW_OPTIONS_INIT;
    pqw_writer *w = NULL;
    silt_status rc;
    *out = NULL;
    if (opts == NULL)
        opts = &defaults;
    rc = check_options(opts, err);
    if (rc != SILT_OK)
        goto done;
    w = mem_calloc(1, sizeof(*w));
    if (w == NULL) {
        rc = err_nomem(err);
        goto done;
    }
    w->opts = *opts;
    w->schema = schema;
    w->slice_rows = PQW_SLICE_ROWS;
    w->key = mem_strdup(key);
    w->meta = arena_new(NULL, "parquet writer metadata");
    if (w->key == NULL || w->meta == NULL) {
        rc = err_nomem(err);
        goto done;
    }
    buf_init(&w->page, 0);
    buf_init(&w->comp, 0);
    buf_init(&w->hdr, 0);
    /* Copy the key-value metadata: the caller's may not live until close. */
    if (opts->n_kv > 0) {
        w->kv = arena_calloc(w->meta, opts->n_kv, sizeof(pqw_kv));
        if (w->kv == NULL) {
            rc = err_nomem(err);
            goto done;
        }
        for (size_t idx = 0; idx < opts->n_kv; idx++) {
            w->kv[idx].key = arena_strdup(w->meta, opts->kv[idx].key);
            w->kv[idx].value = opts->kv[idx].value ? arena_strdup(w->meta, opts->kv[idx].value)
                                                   : NULL;
            if (w->kv[idx].key == NULL || (opts->kv[idx].value && !w->kv[idx].value)) {
                rc = err_nomem(err);
                goto done;
            }
        }
        w->opts.kv = w->kv;
    }
    w->opts.created_by = arena_strdup(w->meta, opts->created_by ? opts->created_by
                                                                : "silt version " SILT_VERSION);
    if (w->opts.created_by == NULL) {
        rc = err_nomem(err);
        goto done;
    }
    rc = pqw_schema_build(w, err);
    if (rc != SILT_OK)
        goto done;
    rc = io_writer_open(store, key, &w->out, err);
    if (rc != SILT_OK)
        goto done;
    rc = file_write(w, PQW_MAGIC, 4, err);
    if (rc != SILT_OK)
        goto done;
    *out = w;
    w = NULL;
done:
    if (rc != SILT_OK)
        err_context(err, "while opening Parquet file \"%s\" for writing", key);
    writer_free(w);
    return rc;
}

static silt_status file_stats(pqw_writer *w, pqw_file_stats *stats, silt_error *err)
{
    memset(stats, 0, sizeof(*stats));
    stats->arena = arena_new(NULL, "parquet file stats");
    if (stats->arena == NULL)
        return err_nomem(err);
    stats->num_records = w->total_rows;
    stats->file_bytes = w->offset;
    stats->n_row_groups = (int64_t)w->n_rgs;
    stats->leaves = arena_calloc(stats->arena, w->n_leaves, sizeof(pqw_leaf_stats));
    if (stats->leaves == NULL)
        return err_nomem(err);
    stats->n_leaves = w->n_leaves;
    for (size_t l = 0; l < w->n_leaves; l++)
        SILT_RETURN_IF_ERROR(pqw_stats_typed(&w->leaves[l], w->opts.stats_max_bytes,
                                             stats->arena, &stats->leaves[l], err));
    return SILT_OK;
}

/*
 * The page index goes between the row groups and the footer: every
 * ColumnIndex, then every OffsetIndex (PageIndex.md), each recorded in its
 * ColumnChunk.
 */
static silt_status write_page_index(pqw_writer *w, silt_error *err)
{
    buf out = BUF_INIT;
    silt_status rc = SILT_OK;
    for (int pass = 0; pass < 2 && rc == SILT_OK; pass++) {
        for (size_t g = 0; g < w->n_rgs && rc == SILT_OK; g++) {
            pqw_chunk_meta *chunks = (pqw_chunk_meta *)(uintptr_t)w->rgs[g].chunks;
            for (size_t c = 0; c < w->rgs[g].n_chunks && rc == SILT_OK; c++) {
                pqw_chunk_meta *cm = &chunks[c];
                if (cm->n_pages == 0 || (pass == 0 && !cm->has_column_index))
                    continue;
                buf_truncate(&out, 0);
                rc = pass == 0 ? pqw_thrift_column_index(&out, cm, err)
                               : pqw_thrift_offset_index(&out, cm, err);
                if (rc == SILT_OK && out.len > INT32_MAX)
                    rc = err_set(err, SILT_INVALID, "could not write a page index of %zu bytes",
                                 out.len);
                if (rc != SILT_OK)
                    break;
                if (pass == 0) {
                    cm->column_index_offset = w->offset;
                    cm->column_index_length = (int32_t)out.len;
                } else {
                    cm->offset_index_offset = w->offset;
                    cm->offset_index_length = (int32_t)out.len;
                }
                rc = file_write(w, out.data, out.len, err);
            }
        }
    }
    buf_clear(&out);
    return rc;
}

static silt_status write_footer(pqw_writer *w, silt_error *err)
{
    pqw_file_meta fm = {1, w->elems, w->n_elems, w->total_rows, w->rgs, w->n_rgs, w->opts.kv,
                        w->opts.n_kv, w->opts.created_by, w->n_leaves};
    buf footer = BUF_INIT;
    silt_status rc = pqw_thrift_file_meta(&footer, &fm, err);
    if (rc == SILT_OK && footer.len > INT32_MAX)
        rc = err_set(err, SILT_INVALID, "could not write a footer of %zu bytes", footer.len);
    if (rc == SILT_OK) {
        uint32_t len = (uint32_t)footer.len;
        uint8_t tail[8];
        for (int b = 0; b < 4; b++)
            tail[b] = (uint8_t)(len >> (8 * b));
        memcpy(tail + 4, PQW_MAGIC, 4);
        rc = buf_append(&footer, tail, 8, err);
    }
    if (rc == SILT_OK)
        rc = file_write(w, footer.data, footer.len, err);
    buf_clear(&footer);
    return rc;
}

silt_status pqw_writer_close(pqw_writer *w, pqw_file_stats *stats_out, silt_error *err)
{
    silt_status rc = SILT_OK;
    pqw_file_stats stats = PQW_FILE_STATS_INIT;
    if (w->failed)
        rc = err_set(err, SILT_INVALID, "could not finish Parquet file \"%s\": an earlier "
                     "write failed", w->key);
    if (rc == SILT_OK)
        rc = flush_row_group(w, err);
    if (rc == SILT_OK)
        rc = write_page_index(w, err);
    if (rc == SILT_OK)
        rc = write_footer(w, err);
    if (rc == SILT_OK && stats_out != NULL)
        rc = file_stats(w, &stats, err);
    if (rc == SILT_OK) {
        /* Data files have unique names: never replace an existing one. */
        rc = io_writer_commit(w->out, 1, err);
        w->out = NULL;
    }
    if (rc != SILT_OK) {
        err_context(err, "while finishing Parquet file \"%s\"", w->key);
        pqw_file_stats_clear(&stats);
    } else if (stats_out != NULL) {
        *stats_out = stats;
    }
    writer_free(w);
    return rc;
}

void pqw_writer_abort(pqw_writer *w) { writer_free(w); }

void pqw_file_stats_clear(pqw_file_stats *stats)
{
    if (stats == NULL)
        return;
    arena_free(stats->arena);
    memset(stats, 0, sizeof(*stats));
}
