/*
 * pages.c - decoding a column chunk: pages (dictionary, data v1, data v2;
 * CRCs are not checked) are decompressed and their levels and values
 * decoded straight into the leaf's Delta representation (leaf_data): for a
 * flat leaf page by page as batches need rows (pq_leaf_fill), for a leaf
 * under an array or map the whole chunk at once.
 *
 * PROTOCOL: parquet-format README (column chunks, pages), Encodings.md,
 * Compression.md.
 */
#include <stdatomic.h>
#include <string.h>

#include "formats/parquet/codec.h"
#include "formats/parquet/convert.h"
#include "formats/parquet/scan_int.h"
#include "util/mem.h"

static int level_bit_width(int max_level)
{
    int width = 0;
    while ((1 << width) <= max_level)
        width++;
    return width;
}

silt_status pq_leaf_reset(leaf_data *ld, silt_error *err)
{
    int64_t zero = 0;
    buf_truncate(&ld->def, 0);
    buf_truncate(&ld->rep, 0);
    buf_truncate(&ld->values, 0);
    buf_truncate(&ld->bin.offsets, 0);
    buf_truncate(&ld->bin.data, 0);
    buf_truncate(&ld->dict_values, 0);
    buf_truncate(&ld->dict_bin.offsets, 0);
    buf_truncate(&ld->dict_bin.data, 0);
    ld->n_levels = ld->n_values = ld->dict_count = 0;
    ld->has_dict = ld->dict_mode = ld->seen_data_page = 0;
    ld->level_pos = ld->value_pos = 0;
    buf_truncate(&ld->chunk, 0);
    ld->streaming = 0;
    ld->chunk_pos = 0;
    ld->chunk_values = ld->levels_done = 0;
    ld->level_bytes_guess = 0;
    ld->skip_levels = 0;
    SILT_RETURN_IF_ERROR(buf_append(&ld->bin.offsets, &zero, sizeof(zero), err));
    return buf_append(&ld->dict_bin.offsets, &zero, sizeof(zero), err);
}

void pq_leaf_clear(leaf_data *ld)
{
    buf_clear(&ld->def);
    buf_clear(&ld->rep);
    buf_clear(&ld->values);
    buf_clear(&ld->dict_values);
    pq_binary_clear(&ld->bin);
    pq_binary_clear(&ld->dict_bin);
    buf_clear(&ld->chunk);
}

static silt_status page_corrupt(silt_error *err, const char *why)
{
    return err_set(err, SILT_CORRUPT, "could not decode page: %s", why);
}

/* Appends n physical values (fixed width in r->scratch, or r->scratch_bin) to dst. */
static silt_status append_physical(pq_reader *r, const pq_vnode *v, size_t n, buf *dst_values,
                                   pq_binary *dst_bin, silt_error *err)
{
    size_t bytes;
    if (v->conv == PQ_CONV_NULL)
        return SILT_OK;
    if (v->out_width == 0) {
        /* Variable-width Delta values (string/binary). */
        if (v->phys_width == 0) {
            const int64_t *offs = pq_binary_offsets(&r->scratch_bin);
            size_t idx, base;
            if (n == 0)
                return SILT_OK;
            if (dst_bin->offsets.len == 0) {
                int64_t zero = 0;
                SILT_RETURN_IF_ERROR(buf_append(&dst_bin->offsets, &zero, 8, err));
            }
            base = dst_bin->data.len;
            SILT_RETURN_IF_ERROR(buf_append(&dst_bin->data, r->scratch_bin.data.data,
                                            (size_t)offs[n], err));
            SILT_RETURN_IF_ERROR(buf_reserve(&dst_bin->offsets, n * 8, err));
            for (idx = 1; idx <= n; idx++) {
                int64_t o = offs[idx] + (int64_t)base;
                memcpy(dst_bin->offsets.data + dst_bin->offsets.len, &o, 8);
                dst_bin->offsets.len += 8;
            }
            return SILT_OK;
        } else {
            size_t idx;
            for (idx = 0; idx < n; idx++)
                SILT_RETURN_IF_ERROR(pq_binary_append(
                    dst_bin, r->scratch.data + idx * v->phys_width, v->phys_width, err));
            return SILT_OK;
        }
    }
    if (!mem_mul_ok(n, v->out_width, &bytes))
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(buf_reserve(dst_values, bytes, err));
    if (v->phys_width == 0)
        SILT_RETURN_IF_ERROR(pq_convert_binary_to_fixed(
            v, pq_binary_offsets(&r->scratch_bin), r->scratch_bin.data.data, n,
            (uint8_t *)dst_values->data + dst_values->len, err));
    else
        SILT_RETURN_IF_ERROR(pq_convert_fixed(v, (const uint8_t *)r->scratch.data, n,
                                              (uint8_t *)dst_values->data + dst_values->len, err));
    dst_values->len += bytes;
    return SILT_OK;
}

/* Decodes n values with a non-dictionary encoding into r->scratch / r->scratch_bin. */
static silt_status decode_physical(pq_reader *r, const pq_vnode *v, int encoding,
                                   const uint8_t *data, size_t len, size_t n, silt_error *err)
{
    size_t bytes;
    pq_physical type = v->se->type;
    buf_truncate(&r->scratch, 0);
    buf_truncate(&r->scratch_bin.offsets, 0);
    buf_truncate(&r->scratch_bin.data, 0);
    if (type == PQ_BYTE_ARRAY) {
        switch (encoding) {
        case PQ_ENC_PLAIN:
            return pq_plain_byte_array(data, len, n, &r->scratch_bin, err);
        case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
            return pq_delta_length_byte_array(data, len, n, &r->scratch_bin, err);
        case PQ_ENC_DELTA_BYTE_ARRAY:
            return pq_delta_byte_array(data, len, n, &r->scratch_bin, err);
        default:
            goto unsupported;
        }
    }
    if (!mem_mul_ok(n, v->phys_width, &bytes))
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(buf_reserve(&r->scratch, bytes + 8, err));
    switch (encoding) {
    case PQ_ENC_PLAIN:
        if (type == PQ_BOOLEAN)
            SILT_RETURN_IF_ERROR(pq_plain_bool(data, len, n, (uint8_t *)r->scratch.data, err));
        else
            SILT_RETURN_IF_ERROR(pq_plain_fixed(data, len, v->phys_width, n, r->scratch.data, err));
        break;
    case PQ_ENC_RLE: {
        /* PROTOCOL: Encodings.md, RLE booleans carry a 4-byte length prefix. */
        uint32_t blen;
        uint32_t *tmp;
        size_t idx;
        if (type != PQ_BOOLEAN)
            goto unsupported;
        if (len < 4)
            return page_corrupt(err, "RLE boolean values lack their length");
        memcpy(&blen, data, 4);
        if (blen > len - 4)
            return page_corrupt(err, "RLE boolean length runs past the page");
        tmp = mem_alloc((n ? n : 1) * sizeof(uint32_t));
        if (tmp == NULL)
            return err_nomem(err);
        if (pq_rle_decode_u32(data + 4, blen, 1, n, tmp, NULL, err) != SILT_OK) {
            mem_free(tmp);
            return SILT_CORRUPT;
        }
        for (idx = 0; idx < n; idx++)
            r->scratch.data[idx] = (char)tmp[idx];
        mem_free(tmp);
        break;
    }
    case PQ_ENC_DELTA_BINARY_PACKED: {
        int64_t *tmp;
        size_t idx;
        if (type != PQ_INT32 && type != PQ_INT64)
            goto unsupported;
        tmp = mem_alloc((n ? n : 1) * sizeof(int64_t));
        if (tmp == NULL)
            return err_nomem(err);
        if (pq_delta_binary_decode(data, len, n, tmp, NULL, err) != SILT_OK) {
            mem_free(tmp);
            return SILT_CORRUPT;
        }
        if (type == PQ_INT64) {
            memcpy(r->scratch.data, tmp, n * 8);
        } else {
            for (idx = 0; idx < n; idx++) {
                int32_t v32 = (int32_t)(uint32_t)(uint64_t)tmp[idx];
                memcpy(r->scratch.data + idx * 4, &v32, 4);
            }
        }
        mem_free(tmp);
        break;
    }
    case PQ_ENC_BYTE_STREAM_SPLIT:
        if (type == PQ_BOOLEAN || type == PQ_INT96)
            goto unsupported;
        /* The streams span the whole value section, whose length fixes n. */
        if (len != bytes)
            return page_corrupt(err, "BYTE_STREAM_SPLIT section size does not match the values");
        SILT_RETURN_IF_ERROR(pq_byte_stream_split(data, len, v->phys_width, n,
                                                  (uint8_t *)r->scratch.data, err));
        break;
    case PQ_ENC_DELTA_BYTE_ARRAY: {
        size_t idx;
        if (type != PQ_FIXED_LEN_BYTE_ARRAY)
            goto unsupported;
        SILT_RETURN_IF_ERROR(pq_delta_byte_array(data, len, n, &r->scratch_bin, err));
        for (idx = 0; idx < n; idx++) {
            const int64_t *offs = pq_binary_offsets(&r->scratch_bin);
            if ((size_t)(offs[idx + 1] - offs[idx]) != v->phys_width)
                return page_corrupt(err, "DELTA_BYTE_ARRAY value has the wrong fixed length");
        }
        if (n > 0)
            memcpy(r->scratch.data, r->scratch_bin.data.data, bytes);
        break;
    }
    default:
        goto unsupported;
    }
    r->scratch.len = bytes;
    return SILT_OK;
unsupported:
    return err_set(err, SILT_UNSUPPORTED, "encoding %s (%d) is not supported for %s values",
                   pq_encoding_name(encoding), encoding, pq_physical_name(type));
}

/*
 * Ids of the dictionaries read in this process: batches carry the id with
 * their codes (col_vec.codes), and a consumer keeping state per dictionary
 * must never take a later dictionary (perhaps at the same address) for the
 * one it saw. An atomic counter: readers run on several threads.
 */
static atomic_uint_fast64_t next_dict_id;

static silt_status read_dictionary(pq_reader *r, leaf_data *ld, const pq_page_header *h,
                                   const uint8_t *data, size_t len, silt_error *err)
{
    const pq_vnode *v = ld->v;
    if (ld->has_dict)
        return page_corrupt(err, "a second dictionary page in one column chunk");
    if (!h->has_dictionary || h->dictionary.num_values < 0 ||
        h->dictionary.num_values > PQ_MAX_PAGE_VALUES)
        return page_corrupt(err, "dictionary page header is missing or has a negative count");
    if (h->dictionary.encoding != PQ_ENC_PLAIN && h->dictionary.encoding != PQ_ENC_PLAIN_DICTIONARY)
        return err_set(err, SILT_UNSUPPORTED, "dictionary page encoding %s is not supported",
                       pq_encoding_name(h->dictionary.encoding));
    SILT_RETURN_IF_ERROR(decode_physical(r, v, PQ_ENC_PLAIN, data, len,
                                         (size_t)h->dictionary.num_values, err));
    SILT_RETURN_IF_ERROR(append_physical(r, v, (size_t)h->dictionary.num_values,
                                         &ld->dict_values, &ld->dict_bin, err));
    ld->dict_count = (size_t)h->dictionary.num_values;
    ld->dict_id = atomic_fetch_add(&next_dict_id, 1) + 1;
    ld->has_dict = 1;
    return SILT_OK;
}

/*
 * Largest of n values: the checks of levels and dictionary indices run over
 * every value, so they are a reduction the compiler vectorizes rather than
 * a loop with an early exit.
 */
static int any_at_least_u32(const uint32_t *x, size_t n, uint32_t limit)
{
    /* Signed compares (SSE2 has them) while the limit fits; values past 2^31 show in `high`. */
    uint32_t bad = 0, high = 0;
    int32_t lim = (int32_t)limit;
    size_t k;
    if (limit > INT32_MAX) {
        for (k = 0; k < n; k++)
            bad |= x[k] >= limit;
        return bad != 0;
    }
    for (k = 0; k < n; k++) {
        bad |= (uint32_t)((int32_t)x[k] >= lim);
        high |= x[k];
    }
    return bad != 0 || (high >> 31) != 0;
}

static int max_u16(const uint16_t *x, size_t n)
{
    uint16_t m = 0;
    size_t k;
    for (k = 0; k < n; k++)
        m = x[k] > m ? x[k] : m;
    return m;
}

/* Gathers dictionary entries by index into the leaf's values. */
static silt_status gather_dictionary(leaf_data *ld, const uint32_t *idx, size_t n, silt_error *err)
{
    const pq_vnode *v = ld->v;
    size_t k;
    if (!ld->has_dict)
        return page_corrupt(err, "dictionary-encoded page without a dictionary page");
    if (ld->dict_count <= UINT32_MAX && any_at_least_u32(idx, n, (uint32_t)ld->dict_count))
        return page_corrupt(err, "dictionary index out of range");
    if (v->conv == PQ_CONV_NULL)
        return SILT_OK;
    if (v->out_width > 0) {
        size_t w = v->out_width;
        uint8_t *dst;
        const uint8_t *dict = (const uint8_t *)ld->dict_values.data;
        SILT_RETURN_IF_ERROR(buf_reserve(&ld->values, n * w, err));
        dst = (uint8_t *)ld->values.data + ld->values.len;
        switch (w) {
        case 1: for (k = 0; k < n; k++) dst[k] = dict[idx[k]]; break;
        case 4:
            for (k = 0; k < n; k++)
                memcpy(dst + k * 4, dict + (size_t)idx[k] * 4, 4);
            break;
        case 8:
            for (k = 0; k < n; k++)
                memcpy(dst + k * 8, dict + (size_t)idx[k] * 8, 8);
            break;
        default:
            for (k = 0; k < n; k++)
                memcpy(dst + k * w, dict + (size_t)idx[k] * w, w);
            break;
        }
        ld->values.len += n * w;
        return SILT_OK;
    } else {
        const int64_t *doff = pq_binary_offsets(&ld->dict_bin);
        size_t total = 0;
        for (k = 0; k < n; k++)
            total += (size_t)(doff[idx[k] + 1] - doff[idx[k]]);
        if (ld->bin.offsets.len == 0) {
            int64_t zero = 0;
            SILT_RETURN_IF_ERROR(buf_append(&ld->bin.offsets, &zero, 8, err));
        }
        SILT_RETURN_IF_ERROR(buf_reserve(&ld->bin.data, total, err));
        SILT_RETURN_IF_ERROR(buf_reserve(&ld->bin.offsets, n * 8, err));
        for (k = 0; k < n; k++) {
            size_t vlen = (size_t)(doff[idx[k] + 1] - doff[idx[k]]);
            int64_t end;
            if (vlen > 0)
                memcpy(ld->bin.data.data + ld->bin.data.len, ld->dict_bin.data.data + doff[idx[k]],
                       vlen);
            ld->bin.data.len += vlen;
            end = (int64_t)ld->bin.data.len;
            memcpy(ld->bin.offsets.data + ld->bin.offsets.len, &end, 8);
            ld->bin.offsets.len += 8;
        }
        return SILT_OK;
    }
}

/* Leaves dictionary mode: the indices gathered so far become plain values. */
static silt_status leave_dict_mode(leaf_data *ld, silt_error *err)
{
    buf indices = ld->values;
    silt_status rc;
    buf_init(&ld->values, indices.limit);
    ld->dict_mode = 0;
    rc = gather_dictionary(ld, (const uint32_t *)(const void *)indices.data,
                           indices.len / sizeof(uint32_t), err);
    buf_clear(&indices);
    return rc;
}

/*
 * Values whose Delta form is their physical form skip the scratch buffer:
 * PLAIN numbers are appended as they are, byte arrays decode straight into
 * the leaf. Returns 1 when it handled the page (*rc_out set).
 */
static int decode_direct(leaf_data *ld, int encoding, const uint8_t *data, size_t len, size_t n,
                         silt_error *err, silt_status *rc_out)
{
    const pq_vnode *v = ld->v;
    size_t bytes;
    if (v->conv == PQ_CONV_BINARY && v->se->type == PQ_BYTE_ARRAY) {
        if (encoding == PQ_ENC_PLAIN)
            *rc_out = pq_plain_byte_array(data, len, n, &ld->bin, err);
        else if (encoding == PQ_ENC_DELTA_LENGTH_BYTE_ARRAY)
            *rc_out = pq_delta_length_byte_array(data, len, n, &ld->bin, err);
        else if (encoding == PQ_ENC_DELTA_BYTE_ARRAY)
            *rc_out = pq_delta_byte_array(data, len, n, &ld->bin, err);
        else
            return 0;
    } else if (encoding == PQ_ENC_PLAIN &&
               (v->conv == PQ_CONV_I32 || v->conv == PQ_CONV_I64 || v->conv == PQ_CONV_FLOAT ||
                v->conv == PQ_CONV_DOUBLE)) {
        if (!mem_mul_ok(n, v->phys_width, &bytes) || bytes > len)
            *rc_out = page_corrupt(err, "PLAIN values run past the end of the page");
        else
            *rc_out = buf_append(&ld->values, data, bytes, err);
    } else {
        return 0;
    }
    if (*rc_out == SILT_OK)
        ld->n_values += n;
    return 1;
}

/* Decodes a page's values section (n non-null values) and appends them. */
static silt_status read_values(pq_reader *r, leaf_data *ld, int encoding, const uint8_t *data,
                               size_t len, size_t n, silt_error *err)
{
    int first_page = !ld->seen_data_page;
    silt_status rc;
    ld->seen_data_page = 1;
    if (encoding == PQ_ENC_PLAIN_DICTIONARY || encoding == PQ_ENC_RLE_DICTIONARY) {
        uint32_t *idx;
        /*
         * Indices are kept while every page is dictionary-encoded: strings
         * may leave the batch as a dictionary vector, fixed-width values are
         * gathered straight into the batch (one pass fewer over the values).
         */
        if (first_page && ld->v->conv != PQ_CONV_NULL)
            ld->dict_mode = 1;
        if (!ld->dict_mode) {
            idx = mem_alloc((n ? n : 1) * sizeof(uint32_t));
            if (idx == NULL)
                return err_nomem(err);
            rc = pq_dict_indices(data, len, n, idx, err);
            if (rc == SILT_OK)
                rc = gather_dictionary(ld, idx, n, err);
            mem_free(idx);
            ld->n_values += rc == SILT_OK ? n : 0;
            return rc;
        }
        /* Dictionary mode: the indices go straight into the values. */
        if (!ld->has_dict)
            return page_corrupt(err, "dictionary-encoded page without a dictionary page");
        SILT_RETURN_IF_ERROR(buf_reserve(&ld->values, n * sizeof(uint32_t), err));
        idx = (uint32_t *)(void *)(ld->values.data + ld->values.len);
        SILT_RETURN_IF_ERROR(pq_dict_indices(data, len, n, idx, err));
        if (ld->dict_count <= UINT32_MAX && any_at_least_u32(idx, n, (uint32_t)ld->dict_count))
            return page_corrupt(err, "dictionary index out of range");
        ld->values.len += n * sizeof(uint32_t);
        ld->n_values += n;
        return SILT_OK;
    }
    if (ld->dict_mode)
        SILT_RETURN_IF_ERROR(leave_dict_mode(ld, err));
    if (decode_direct(ld, encoding, data, len, n, err, &rc))
        return rc;
    SILT_RETURN_IF_ERROR(decode_physical(r, ld->v, encoding, data, len, n, err));
    SILT_RETURN_IF_ERROR(append_physical(r, ld->v, n, &ld->values, &ld->bin, err));
    ld->n_values += n;
    return SILT_OK;
}

/* Decodes levels into the leaf's level buffer; returns the bytes used in *used. */
static silt_status read_levels(buf *dst, int encoding, int max_level, const uint8_t *data,
                               size_t len, size_t n, int v1_prefix, size_t *used, silt_error *err)
{
    int width = level_bit_width(max_level);
    uint16_t *out;
    size_t consumed = 0;
    SILT_RETURN_IF_ERROR(buf_reserve(dst, n * 2, err));
    out = (uint16_t *)(void *)(dst->data + dst->len);
    if (encoding == PQ_ENC_BIT_PACKED) {
        SILT_RETURN_IF_ERROR(pq_bitpacked_levels(data, len, width, n, out, &consumed, err));
    } else if (encoding == PQ_ENC_RLE) {
        if (v1_prefix) {
            uint32_t rle_len;
            if (len < 4)
                return page_corrupt(err, "levels lack their length prefix");
            memcpy(&rle_len, data, 4);
            if (rle_len > len - 4)
                return page_corrupt(err, "levels length runs past the page");
            SILT_RETURN_IF_ERROR(pq_rle_decode_u16(data + 4, rle_len, width, n, out, NULL, err));
            consumed = 4 + (size_t)rle_len;
        } else {
            SILT_RETURN_IF_ERROR(pq_rle_decode_u16(data, len, width, n, out, NULL, err));
            consumed = len;
        }
    } else {
        return err_set(err, SILT_UNSUPPORTED, "level encoding %s is not supported",
                       pq_encoding_name(encoding));
    }
    if (max_u16(out, n) > max_level)
        return page_corrupt(err, "a level is above the column's maximum");
    dst->len += n * 2;
    *used = consumed;
    return SILT_OK;
}

size_t pq_leaf_count_defined(const leaf_data *ld, size_t from, size_t n)
{
    const uint16_t *def = (const uint16_t *)(const void *)ld->def.data;
    uint16_t max_def = (uint16_t)ld->v->max_def;
    size_t k, count = 0;
    if (ld->v->max_def == 0)
        return n;
    /* 16-bit partial counts, so that the compare-and-add runs 8 levels per vector op. */
    for (k = 0; k < n;) {
        size_t end = n - k > 65535 ? k + 65535 : n;
        uint16_t part = 0;
        for (; k < end; k++)
            part = (uint16_t)(part + (def[from + k] == max_def));
        count += part;
    }
    return count;
}

static silt_status check_page_values(int32_t num_values, silt_error *err)
{
    if (num_values < 0 || num_values > PQ_MAX_PAGE_VALUES)
        return page_corrupt(err, "value count out of range");
    return SILT_OK;
}

/*
 * Decodes the levels at the start of a v1 page body: *pos_out is where its
 * values begin, *n_defined_out how many of its slots hold a value.
 */
static silt_status read_levels_v1(leaf_data *ld, const pq_page_header *h, const uint8_t *data,
                                  size_t len, size_t *pos_out, size_t *n_defined_out,
                                  silt_error *err)
{
    const pq_vnode *v = ld->v;
    size_t n = (size_t)h->data.num_values, pos = 0, used;
    if (!h->has_data)
        return page_corrupt(err, "data page without its header");
    SILT_RETURN_IF_ERROR(check_page_values(h->data.num_values, err));
    if (v->max_rep > 0) {
        SILT_RETURN_IF_ERROR(read_levels(&ld->rep, h->data.rep_encoding, v->max_rep, data, len, n,
                                         1, &used, err));
        pos += used;
    }
    if (v->max_def > 0) {
        SILT_RETURN_IF_ERROR(read_levels(&ld->def, h->data.def_encoding, v->max_def, data + pos,
                                         len - pos, n, 1, &used, err));
        pos += used;
    }
    *n_defined_out = pq_leaf_count_defined(ld, ld->n_levels, n);
    ld->n_levels += n;
    *pos_out = pos;
    return SILT_OK;
}

static silt_status read_data_page_v1(pq_reader *r, leaf_data *ld, const pq_page_header *h,
                                     const uint8_t *data, size_t len, silt_error *err)
{
    size_t pos, n_defined;
    SILT_RETURN_IF_ERROR(read_levels_v1(ld, h, data, len, &pos, &n_defined, err));
    return read_values(r, ld, h->data.encoding, data + pos, len - pos, n_defined, err);
}

/* Longest levels section decompressed in place over the end of the values. */
#define PQ_LEVEL_GUESS_MAX 64

/*
 * A compressed v1 page of PLAIN numbers whose Delta form is their physical
 * form: the values are the page's bytes after the levels, so the page is
 * decompressed straight into the leaf's values instead of into r->page and
 * copied from there (on a snappy int64 column that copy was as many bytes
 * again as the decompression wrote).
 *
 * The page starts with its levels, whose length is known only after
 * decompressing. The page is therefore decompressed `guess` bytes before the
 * end of the values (the levels length of the leaf's previous such page;
 * full pages of one writer repeat it), over the last values, which are
 * saved first and put back after the levels are decoded. When the guess is
 * wrong the values are moved into place, as correct as a right guess and
 * one copy slower.
 */
static int plain_in_place_ok(const leaf_data *ld, int encoding, int codec)
{
    const pq_vnode *v = ld->v;
    return codec != PQ_CODEC_UNCOMPRESSED && encoding == PQ_ENC_PLAIN && !ld->dict_mode &&
           (v->conv == PQ_CONV_I32 || v->conv == PQ_CONV_I64 || v->conv == PQ_CONV_FLOAT ||
            v->conv == PQ_CONV_DOUBLE) &&
           v->phys_width == v->out_width;
}

static silt_status read_plain_page_in_place(leaf_data *ld, const pq_page_header *h, int codec,
                                            const uint8_t *page, size_t len, silt_error *err)
{
    size_t out_len = (size_t)h->uncompressed_size, guess = ld->level_bytes_guess, pos = 0;
    size_t n_defined = 0, bytes = 0;
    uint8_t saved[PQ_LEVEL_GUESS_MAX];
    uint8_t *base;
    silt_status rc;
    if (guess > ld->values.len || guess > out_len)
        guess = 0;
    /* The values end at most out_len bytes after the current end. */
    SILT_RETURN_IF_ERROR(buf_reserve(&ld->values, out_len, err));
    base = (uint8_t *)ld->values.data + ld->values.len - guess;
    memcpy(saved, base, guess);
    rc = pq_decompress(codec, page, len, base, out_len, err);
    if (rc == SILT_OK)
        rc = read_levels_v1(ld, h, base, out_len, &pos, &n_defined, err);
    if (rc == SILT_OK && (!mem_mul_ok(n_defined, ld->v->phys_width, &bytes) ||
                          bytes > out_len - pos))
        rc = page_corrupt(err, "PLAIN values run past the end of the page");
    if (rc == SILT_OK && pos != guess)
        memmove(ld->values.data + ld->values.len, base + pos, bytes);
    /* After the move: the saved bytes lie before the values' new place. */
    memcpy(base, saved, guess);
    if (rc != SILT_OK)
        return rc;
    ld->seen_data_page = 1;
    ld->values.len += bytes;
    ld->n_values += n_defined;
    ld->level_bytes_guess = pos <= PQ_LEVEL_GUESS_MAX ? pos : 0;
    return SILT_OK;
}

static silt_status read_data_page_v2(pq_reader *r, leaf_data *ld, const pq_page_header *h,
                                     const uint8_t *page, size_t page_len, int codec,
                                     silt_error *err)
{
    const pq_data_page_header_v2 *h2 = &h->data_v2;
    const pq_vnode *v = ld->v;
    size_t n = (size_t)h2->num_values, used, n_defined, levels_len, values_len, out_len;
    const uint8_t *values;
    if (!h->has_data_v2)
        return page_corrupt(err, "data page v2 without its header");
    SILT_RETURN_IF_ERROR(check_page_values(h2->num_values, err));
    if (h2->rep_byte_len < 0 || h2->def_byte_len < 0 ||
        (size_t)h2->rep_byte_len + (size_t)h2->def_byte_len > page_len ||
        (int64_t)h2->rep_byte_len + h2->def_byte_len > h->uncompressed_size)
        return page_corrupt(err, "level sections run past the page");
    levels_len = (size_t)h2->rep_byte_len + (size_t)h2->def_byte_len;
    if (v->max_rep > 0)
        SILT_RETURN_IF_ERROR(read_levels(&ld->rep, PQ_ENC_RLE, v->max_rep, page,
                                         (size_t)h2->rep_byte_len, n, 0, &used, err));
    if (v->max_def > 0)
        SILT_RETURN_IF_ERROR(read_levels(&ld->def, PQ_ENC_RLE, v->max_def,
                                         page + h2->rep_byte_len, (size_t)h2->def_byte_len, n, 0,
                                         &used, err));
    n_defined = pq_leaf_count_defined(ld, ld->n_levels, n);
    ld->n_levels += n;
    values_len = page_len - levels_len;
    out_len = (size_t)h->uncompressed_size - levels_len;
    values = page + levels_len;
    if (h2->is_compressed && out_len > 0 && plain_in_place_ok(ld, h2->encoding, codec)) {
        /* The levels sit outside the compressed section: no guess needed. */
        size_t bytes = 0;
        SILT_RETURN_IF_ERROR(buf_reserve(&ld->values, out_len, err));
        SILT_RETURN_IF_ERROR(pq_decompress(codec, values, values_len,
                                           (uint8_t *)ld->values.data + ld->values.len, out_len,
                                           err));
        if (!mem_mul_ok(n_defined, v->phys_width, &bytes) || bytes > out_len)
            return page_corrupt(err, "PLAIN values run past the end of the page");
        ld->seen_data_page = 1;
        ld->values.len += bytes;
        ld->n_values += n_defined;
        return SILT_OK;
    }
    if (h2->is_compressed && codec != PQ_CODEC_UNCOMPRESSED && (values_len > 0 || out_len > 0)) {
        buf_truncate(&r->page, 0);
        SILT_RETURN_IF_ERROR(buf_reserve(&r->page, out_len, err));
        SILT_RETURN_IF_ERROR(pq_decompress(codec, values, values_len, (uint8_t *)r->page.data,
                                           out_len, err));
        values = (const uint8_t *)r->page.data;
        values_len = out_len;
    }
    return read_values(r, ld, h2->encoding, values, values_len, n_defined, err);
}

/* Decompresses a whole page (v1 and dictionary pages) into r->page. */
static silt_status page_body(pq_reader *r, const pq_page_header *h, int codec,
                             const uint8_t *page, size_t len, const uint8_t **out,
                             size_t *out_len, silt_error *err)
{
    if (codec == PQ_CODEC_UNCOMPRESSED) {
        *out = page;
        *out_len = len;
        return SILT_OK;
    }
    buf_truncate(&r->page, 0);
    SILT_RETURN_IF_ERROR(buf_reserve(&r->page, (size_t)h->uncompressed_size, err));
    SILT_RETURN_IF_ERROR(pq_decompress(codec, page, len, (uint8_t *)r->page.data,
                                       (size_t)h->uncompressed_size, err));
    *out = (const uint8_t *)r->page.data;
    *out_len = (size_t)h->uncompressed_size;
    return SILT_OK;
}

static silt_status check_page_sizes(const pq_page_header *h, silt_error *err)
{
    /* Refuse headers that would make us allocate absurd amounts. */
    if (h->uncompressed_size > PQ_MAX_PAGE_BYTES)
        return err_set(err, SILT_UNSUPPORTED, "page of %d bytes is over the limit of %lld bytes",
                       h->uncompressed_size, (long long)PQ_MAX_PAGE_BYTES);
    if (h->uncompressed_size > (1 << 26) &&
        (int64_t)h->uncompressed_size > (int64_t)h->compressed_size * 100000)
        return page_corrupt(err, "uncompressed size is implausibly large");
    return SILT_OK;
}

int64_t pq_leaf_bytes(const leaf_data *ld)
{
    return (int64_t)(ld->def.len + ld->rep.len + ld->values.len + ld->bin.offsets.len +
                     ld->bin.data.len + ld->dict_values.len + ld->dict_bin.offsets.len +
                     ld->dict_bin.data.len + ld->chunk.len);
}

/*
 * Decodes the pages in data[0..len) into ld until it holds `want` levels
 * (or the bytes end); more than `max` levels is CORRUPT. *used is the
 * bytes of the pages decoded.
 */
static silt_status read_pages(pq_reader *r, leaf_data *ld, int codec, const uint8_t *data,
                              size_t len, int64_t want, int64_t max, size_t *used,
                              silt_error *err)
{
    size_t pos = 0;
    while (pos < len && (int64_t)ld->n_levels < want) {
        pq_page_header h;
        size_t hlen, body_len;
        const uint8_t *body;
        SILT_RETURN_IF_ERROR(pq_parse_page_header(&h, &hlen, data + pos, len - pos, err));
        pos += hlen;
        if ((size_t)h.compressed_size > len - pos)
            return err_set(err, SILT_CORRUPT, "page at byte %zu of the column chunk runs past its "
                           "end (%d bytes, %zu left)", pos - hlen, h.compressed_size, len - pos);
        SILT_RETURN_IF_ERROR(check_page_sizes(&h, err));
        switch (h.type) {
        case PQ_PAGE_DICTIONARY:
            SILT_RETURN_IF_ERROR(page_body(r, &h, codec, data + pos, (size_t)h.compressed_size,
                                           &body, &body_len, err));
            SILT_RETURN_IF_ERROR(read_dictionary(r, ld, &h, body, body_len, err));
            break;
        case PQ_PAGE_DATA:
            if (h.has_data && h.uncompressed_size > 0 &&
                plain_in_place_ok(ld, h.data.encoding, codec)) {
                SILT_RETURN_IF_ERROR(read_plain_page_in_place(ld, &h, codec, data + pos,
                                                              (size_t)h.compressed_size, err));
                r->pages_read++;
                break;
            }
            SILT_RETURN_IF_ERROR(page_body(r, &h, codec, data + pos, (size_t)h.compressed_size,
                                           &body, &body_len, err));
            SILT_RETURN_IF_ERROR(read_data_page_v1(r, ld, &h, body, body_len, err));
            r->pages_read++;
            break;
        case PQ_PAGE_DATA_V2:
            SILT_RETURN_IF_ERROR(read_data_page_v2(r, ld, &h, data + pos,
                                                   (size_t)h.compressed_size, codec, err));
            r->pages_read++;
            break;
        default:
            /* Index pages and page types from the future carry no values. */
            break;
        }
        if ((int64_t)ld->n_levels > max)
            return err_set(err, SILT_CORRUPT, "column chunk holds more values than its metadata "
                           "says (%lld)", (long long)(max + ld->levels_done));
        if (r->rg_bytes + pq_leaf_bytes(ld) > r->memory_limit)
            return err_set(err, SILT_NOMEM, "the decoded row group needs more than the memory "
                           "limit of %lld bytes", (long long)r->memory_limit);
        pos += (size_t)h.compressed_size;
    }
    *used = pos;
    return SILT_OK;
}

silt_status pq_leaf_read_pages(pq_reader *r, leaf_data *ld, int codec, const uint8_t *data,
                               size_t len, int64_t limit, silt_error *err)
{
    size_t used;
    return read_pages(r, ld, codec, data, len, limit, limit, &used, err);
}

/* The leaf holds as many values as its levels say are defined. */
static silt_status check_value_count(const leaf_data *ld, silt_error *err)
{
    if (ld->v->conv != PQ_CONV_NULL &&
        (ld->dict_mode              ? ld->values.len / sizeof(uint32_t)
         : ld->v->out_width > 0     ? ld->values.len / ld->v->out_width
                                    : pq_binary_count(&ld->bin)) != ld->n_values)
        return err_set(err, SILT_CORRUPT, "column chunk values do not match its levels");
    return SILT_OK;
}

/*
 * Drops the levels and values of a flat streaming leaf before its cursor,
 * so that it holds only what the next batches need.
 */
static void leaf_compact(leaf_data *ld)
{
    size_t lp = ld->level_pos, vp = ld->value_pos;
    size_t keep_l = ld->n_levels - lp, keep_v = ld->n_values - vp;
    if (lp == 0 && vp == 0)
        return;
    if (ld->v->max_def > 0) {
        memmove(ld->def.data, ld->def.data + lp * 2, keep_l * 2);
        ld->def.len = keep_l * 2;
    }
    ld->n_levels = keep_l;
    ld->levels_done += (int64_t)lp;
    ld->level_pos = 0;
    if (ld->v->conv != PQ_CONV_NULL && (ld->dict_mode || ld->v->out_width > 0)) {
        size_t w = ld->dict_mode ? sizeof(uint32_t) : ld->v->out_width;
        memmove(ld->values.data, ld->values.data + vp * w, keep_v * w);
        ld->values.len = keep_v * w;
    } else if (ld->v->conv != PQ_CONV_NULL) {
        int64_t *offs = (int64_t *)(void *)ld->bin.offsets.data;
        int64_t base = offs[vp];
        size_t k;
        memmove(ld->bin.data.data, ld->bin.data.data + base, (size_t)(offs[ld->n_values] - base));
        for (k = 0; k <= keep_v; k++)
            offs[k] = offs[vp + k] - base;
        ld->bin.offsets.len = (keep_v + 1) * sizeof(int64_t);
        ld->bin.data.len = (size_t)offs[keep_v];
    }
    ld->n_values = keep_v;
    ld->value_pos = 0;
}

/*
 * Bytes of whole pages at the start of data[0..len): what can be decoded
 * before the window must move (0 when the first page is cut off, or its
 * header does not parse: read_pages then reports a damaged one).
 */
static size_t whole_pages(const uint8_t *data, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        pq_page_header h;
        size_t hlen;
        silt_error scratch = SILT_ERROR_INIT;
        if (pq_parse_page_header(&h, &hlen, data + pos, len - pos, &scratch) != SILT_OK ||
            h.compressed_size < 0 || (size_t)h.compressed_size > len - pos - hlen)
            break;
        pos += hlen + (size_t)h.compressed_size;
    }
    return pos;
}

/* Reads the file's bytes [from, from + len) of a streaming leaf into its window. */
static silt_status window_load(pq_reader *r, leaf_data *ld, int64_t from, size_t len,
                               silt_error *err)
{
    buf_truncate(&ld->chunk, 0);
    SILT_RETURN_IF_ERROR(buf_reserve(&ld->chunk, len, err));
    SILT_RETURN_IF_ERROR(io_file_read_at(r->file->io, from, len, ld->chunk.data, err));
    ld->chunk.len = len;
    ld->win_start = from;
    ld->chunk_pos = 0;
    ld->win_whole = 0;
    return SILT_OK;
}

/* Starts streaming the file's bytes [start, end) of a flat leaf. */
static silt_status stream_begin(pq_reader *r, leaf_data *ld, int64_t start, int64_t end,
                                silt_error *err)
{
    int64_t len = end - start < PQ_STREAM_WINDOW ? end - start : PQ_STREAM_WINDOW;
    ld->stream_end = end;
    ld->streaming = 1;
    return window_load(r, ld, start, (size_t)len, err);
}

/*
 * Moves the window to the first undecoded page when the pages left in it
 * are not whole, growing it to hold that page when it is larger. Sets
 * *avail to the bytes read_pages may decode (all that is left at the end).
 */
static silt_status window_advance(pq_reader *r, leaf_data *ld, size_t *avail, silt_error *err)
{
    const uint8_t *data = (const uint8_t *)ld->chunk.data + ld->chunk_pos;
    size_t left = ld->chunk.len - ld->chunk_pos, want = PQ_STREAM_WINDOW;
    int64_t at = ld->win_start + (int64_t)ld->chunk_pos;
    for (;;) {
        if (at + (int64_t)left >= ld->stream_end) {
            *avail = left; /* the end of the chunk is in the window */
            return SILT_OK;
        }
        /* The pages are walked once per window, not once per batch. */
        if (ld->win_whole <= ld->chunk_pos)
            ld->win_whole = ld->chunk_pos + whole_pages(data, left);
        *avail = ld->win_whole - ld->chunk_pos;
        if (*avail > 0)
            return SILT_OK;
        if (left >= want)
            want = left * 2; /* one page bigger than the window */
        if ((int64_t)want > ld->stream_end - at)
            want = (size_t)(ld->stream_end - at);
        SILT_RETURN_IF_ERROR(window_load(r, ld, at, want, err));
        data = (const uint8_t *)ld->chunk.data;
        left = ld->chunk.len;
    }
}

silt_status pq_leaf_fill(pq_reader *r, leaf_data *ld, int64_t n, silt_error *err)
{
    size_t used = 1, avail;
    int64_t need = n + ld->skip_levels;
    if (!ld->streaming || (int64_t)(ld->n_levels - ld->level_pos) >= need)
        return SILT_OK;
    leaf_compact(ld);
    while ((int64_t)ld->n_levels < need && used > 0) {
        SILT_RETURN_IF_ERROR(window_advance(r, ld, &avail, err));
        SILT_RETURN_IF_ERROR(read_pages(r, ld, ld->codec,
                                        (const uint8_t *)ld->chunk.data + ld->chunk_pos, avail,
                                        need, ld->chunk_values - ld->levels_done, &used, err));
        ld->chunk_pos += used;
    }
    if ((int64_t)ld->n_levels < need)
        return err_set(err, SILT_CORRUPT, "column chunk holds %lld values but its metadata says "
                       "%lld", (long long)(ld->levels_done + (int64_t)ld->n_levels),
                       (long long)ld->chunk_values);
    SILT_RETURN_IF_ERROR(check_value_count(ld, err));
    if (ld->skip_levels > 0) {
        /* A range starting inside this page: its rows before the range are dropped. */
        ld->value_pos += pq_leaf_count_defined(ld, ld->level_pos, (size_t)ld->skip_levels);
        ld->level_pos += (size_t)ld->skip_levels;
        ld->skip_levels = 0;
    }
    return SILT_OK;
}

silt_status pq_leaf_check(const leaf_data *ld, int64_t expected_rows, silt_error *err)
{
    size_t rows = 0, k;
    if (ld->v->max_rep > 0) {
        const uint16_t *rep = (const uint16_t *)(const void *)ld->rep.data;
        for (k = 0; k < ld->n_levels; k++)
            rows += rep[k] == 0;
        if (ld->n_levels > 0 && rep[0] != 0)
            return err_set(err, SILT_CORRUPT, "column chunk does not start at a row boundary");
    } else {
        rows = ld->n_levels;
    }
    if ((int64_t)rows != expected_rows)
        return err_set(err, SILT_CORRUPT, "column chunk holds %zu rows but the row group has %lld",
                       rows, (long long)expected_rows);
    return check_value_count(ld, err);
}

silt_status pq_leaf_load(pq_reader *r, leaf_data *ld, const pq_row_group *rg, silt_error *err)
{
    const pq_column_chunk *cc = &rg->columns[ld->v->leaf_idx];
    const pq_column_meta *cm = &cc->meta;
    int64_t start = pq_chunk_start(cm), len;
    if (!pq_codec_supported(cm->codec))
        return err_set(err, SILT_UNSUPPORTED, "compression codec %s (%d) is not supported",
                       pq_codec_name(cm->codec), (int)cm->codec);
    SILT_RETURN_IF_ERROR(pq_leaf_reset(ld, err));
    buf_truncate(&r->chunk, 0);
    /* Offsets and sizes were checked against the file when it was opened. */
    if (cm->num_values > 0) {
        len = cm->total_compressed_size;
        len += r->file->data_end - (start + len) < r->file->chunk_padding
                   ? r->file->data_end - (start + len) : r->file->chunk_padding;
        if (ld->v->max_rep == 0 && cm->num_values == rg->num_rows) {
            /* Flat: a window of the compressed chunk, pages decoded as batches need them. */
            SILT_RETURN_IF_ERROR(stream_begin(r, ld, start, start + len, err));
            ld->codec = cm->codec;
            ld->chunk_values = cm->num_values;
            return SILT_OK;
        }
        SILT_RETURN_IF_ERROR(buf_reserve(&r->chunk, (size_t)len, err));
        SILT_RETURN_IF_ERROR(io_file_read_at(r->file->io, start, (size_t)len, r->chunk.data, err));
        SILT_RETURN_IF_ERROR(pq_leaf_read_pages(r, ld, cm->codec, (const uint8_t *)r->chunk.data,
                                                (size_t)len, cm->num_values, err));
        if ((int64_t)ld->n_levels != cm->num_values)
            return err_set(err, SILT_CORRUPT, "column chunk holds %zu values but its metadata "
                           "says %lld", ld->n_levels, (long long)cm->num_values);
    }
    return pq_leaf_check(ld, rg->num_rows, err);
}

/*
 * Where the pages of a flat chunk that a row range needs lie: the
 * dictionary (and any index pages) in [start, data_start), the data pages
 * overlapping the range in [first, end), holding rows [first_row, end_row)
 * of the row group.
 */
typedef struct range_pages {
    int64_t start, data_start;
    int64_t first, end;
    int64_t first_row, end_row;
} range_pages;

/* Adds a data page [offset, offset + size) holding rows [row, row_end) to the range's pages. */
static void range_pages_add(range_pages *rp, int64_t lo, int64_t hi, int64_t offset,
                            int64_t size, int64_t row, int64_t row_end)
{
    if (rp->data_start < 0)
        rp->data_start = offset;
    if (row_end <= lo || row >= hi)
        return;
    if (rp->first < 0) {
        rp->first = offset;
        rp->first_row = row;
    }
    rp->end = offset + size;
    rp->end_row = row_end;
}

static void range_pages_init(range_pages *rp, int64_t start)
{
    rp->start = start;
    rp->data_start = rp->first = rp->end = -1;
    rp->first_row = rp->end_row = 0;
}

/* The range's pages from the chunk's offset index (already checked against the chunk). */
static silt_status pages_from_offset_index(pq_reader *r, const pq_column_chunk *cc,
                                           int64_t num_rows, int64_t lo, int64_t hi,
                                           range_pages *rp, silt_error *err)
{
    pq_offset_index oi;
    size_t k;
    SILT_RETURN_IF_ERROR(pq_offset_index_load(r, cc, num_rows, &oi, err));
    for (k = 0; k < oi.n_pages && oi.pages[k].first_row_index < hi; k++)
        range_pages_add(rp, lo, hi, oi.pages[k].offset, oi.pages[k].compressed_page_size,
                        oi.pages[k].first_row_index,
                        k + 1 < oi.n_pages ? oi.pages[k + 1].first_row_index : num_rows);
    return SILT_OK;
}

/* First read of a page header; headers with long statistics get larger reads. */
#define PQ_HEADER_PROBE 256

/*
 * Reads and parses the page header at byte pos of the file, at most
 * `avail` bytes of the chunk remaining: a small read first, a larger one
 * when the header does not fit (the last attempt's error stands).
 */
static silt_status read_header_at(pq_reader *r, int64_t pos, int64_t avail, pq_page_header *h,
                                  size_t *hlen, silt_error *err)
{
    size_t size = avail < PQ_HEADER_PROBE ? (size_t)avail : PQ_HEADER_PROBE;
    for (;;) {
        silt_status rc;
        buf_truncate(&r->page, 0);
        SILT_RETURN_IF_ERROR(buf_reserve(&r->page, size, err));
        SILT_RETURN_IF_ERROR(io_file_read_at(r->file->io, pos, size, r->page.data, err));
        rc = pq_parse_page_header(h, hlen, (const uint8_t *)r->page.data, size, err);
        if (rc == SILT_OK || rc != SILT_CORRUPT || (int64_t)size >= avail)
            return rc;
        size = avail - (int64_t)size < (int64_t)size * 15 ? (size_t)avail : size * 16;
    }
}

/*
 * The range's pages found by walking the page headers from the chunk's
 * start: each header is read on its own, page bodies are not read. For a
 * flat column a v1 data page's num_values is its row count, a v2 page
 * carries num_rows.
 */
static silt_status pages_from_headers(pq_reader *r, int64_t start, int64_t len,
                                      int64_t num_rows, int64_t lo, int64_t hi, range_pages *rp,
                                      silt_error *err)
{
    int64_t pos = 0, row = 0;
    while (pos < len && row < hi) {
        pq_page_header h;
        size_t hlen;
        int64_t rows = -1;
        SILT_RETURN_IF_ERROR(read_header_at(r, start + pos, len - pos, &h, &hlen, err));
        if (h.compressed_size < 0 || (int64_t)h.compressed_size > len - pos - (int64_t)hlen)
            return err_set(err, SILT_CORRUPT, "page at byte %lld of the column chunk runs past "
                           "its end (%d bytes, %lld left)", (long long)pos, h.compressed_size,
                           (long long)(len - pos - (int64_t)hlen));
        if (h.type == PQ_PAGE_DATA && h.has_data)
            rows = h.data.num_values;
        else if (h.type == PQ_PAGE_DATA_V2 && h.has_data_v2)
            rows = h.data_v2.num_rows;
        else if (h.type == PQ_PAGE_DATA || h.type == PQ_PAGE_DATA_V2)
            return page_corrupt(err, "data page without its header");
        if (rows >= 0) {
            if (rows > PQ_MAX_PAGE_VALUES || rows > num_rows - row)
                return err_set(err, SILT_CORRUPT, "data page at byte %lld of the column chunk "
                               "claims %lld rows, past the row group's %lld",
                               (long long)pos, (long long)rows, (long long)num_rows);
            range_pages_add(rp, lo, hi, start + pos, (int64_t)hlen + h.compressed_size, row,
                            row + rows);
            row += rows;
        }
        pos += (int64_t)hlen + h.compressed_size;
    }
    return SILT_OK;
}

/* Decodes the pages in file bytes [start, end) (the dictionary, no data pages) into ld. */
static silt_status read_dictionary_region(pq_reader *r, leaf_data *ld, int codec, int64_t start,
                                          int64_t end, silt_error *err)
{
    size_t used;
    buf_truncate(&r->chunk, 0);
    SILT_RETURN_IF_ERROR(buf_reserve(&r->chunk, (size_t)(end - start), err));
    SILT_RETURN_IF_ERROR(io_file_read_at(r->file->io, start, (size_t)(end - start),
                                         r->chunk.data, err));
    return read_pages(r, ld, codec, (const uint8_t *)r->chunk.data, (size_t)(end - start),
                      INT64_MAX, 0, &used, err);
}

silt_status pq_leaf_load_range(pq_reader *r, leaf_data *ld, const pq_row_group *rg, int64_t lo,
                               int64_t hi, silt_error *err)
{
    const pq_column_chunk *cc = &rg->columns[ld->v->leaf_idx];
    const pq_column_meta *cm = &cc->meta;
    int64_t start = pq_chunk_start(cm), len = cm->total_compressed_size;
    range_pages rp;
    size_t rg_idx;
    int cached = 0, claimed = 0;
    if (ld->v->max_rep > 0 || cm->num_values != rg->num_rows || cm->num_values <= 0)
        return pq_leaf_load(r, ld, rg, err); /* a corrupt chunk: the whole load reports it */
    if (!pq_codec_supported(cm->codec))
        return err_set(err, SILT_UNSUPPORTED, "compression codec %s (%d) is not supported",
                       pq_codec_name(cm->codec), (int)cm->codec);
    SILT_RETURN_IF_ERROR(pq_leaf_reset(ld, err));
    /* Offsets and sizes were checked against the file when it was opened. */
    len += r->file->data_end - (start + len) < r->file->chunk_padding
               ? r->file->data_end - (start + len) : r->file->chunk_padding;
    range_pages_init(&rp, start);
    if (cc->has_offset_index)
        SILT_RETURN_IF_ERROR(pages_from_offset_index(r, cc, rg->num_rows, lo, hi, &rp, err));
    else
        SILT_RETURN_IF_ERROR(pages_from_headers(r, start, len, rg->num_rows, lo, hi, &rp, err));
    if (rp.first < 0 || rp.end_row < hi)
        return err_set(err, SILT_CORRUPT, "the data pages of the column chunk hold fewer rows "
                       "than its row group (%lld)", (long long)rg->num_rows);
    rg_idx = (size_t)(rg - r->file->meta.row_groups);
    if (rp.data_start > start)
        SILT_RETURN_IF_ERROR(pq_dict_cache_get(r->file, rg_idx, ld, &cached, &claimed, err));
    if (rp.data_start > start && !cached) {
        /* The dictionary page: decoded by the first range, copied by the next ones. */
        silt_status rc = read_dictionary_region(r, ld, cm->codec, start, rp.data_start, err);
        if (claimed)
            pq_dict_cache_put(r->file, rg_idx, ld, rc == SILT_OK);
        if (rc != SILT_OK)
            return rc;
    }
    SILT_RETURN_IF_ERROR(stream_begin(r, ld, rp.first, rp.end, err));
    ld->codec = cm->codec;
    ld->chunk_values = rp.end_row - rp.first_row;
    ld->skip_levels = lo - rp.first_row;
    return SILT_OK;
}

/*
 * Collects the first rows of the data pages of a flat chunk (into out, at
 * most max) from the offset index or the page headers: range_pages_add is
 * given every page (the range is the whole row group).
 */
silt_status pq_file_page_starts(pq_file *file, size_t rg_idx, size_t leaf_idx, int64_t *out,
                                size_t max, size_t *n_out, silt_error *err)
{
    const pq_row_group *rg;
    const pq_column_chunk *cc;
    pq_reader r;
    silt_status rc = SILT_OK;
    *n_out = 0;
    if (rg_idx >= file->meta.n_row_groups || leaf_idx >= file->n_leaves)
        return err_set(err, SILT_INVALID, "row group %zu or leaf %zu out of range", rg_idx,
                       leaf_idx);
    rg = &file->meta.row_groups[rg_idx];
    cc = &rg->columns[leaf_idx];
    if (file->leaves[leaf_idx].vnode->max_rep > 0 || cc->meta.num_values != rg->num_rows ||
        rg->num_rows <= 0)
        return SILT_OK; /* rows are not levels: no page starts to offer */
    memset(&r, 0, sizeof(r));
    r.file = file;
    buf_init(&r.page, 0);
    r.rg_arena = arena_new(NULL, "parquet page starts");
    if (r.rg_arena == NULL)
        return err_nomem(err);
    if (cc->has_offset_index) {
        pq_offset_index oi;
        size_t k;
        rc = pq_offset_index_load(&r, cc, rg->num_rows, &oi, err);
        for (k = 0; rc == SILT_OK && k < oi.n_pages && *n_out < max; k++)
            out[(*n_out)++] = oi.pages[k].first_row_index;
    } else {
        int64_t start = pq_chunk_start(&cc->meta), len = cc->meta.total_compressed_size;
        int64_t pos = 0, row = 0;
        while (rc == SILT_OK && pos < len && row < rg->num_rows && *n_out < max) {
            pq_page_header h;
            size_t hlen;
            rc = read_header_at(&r, start + pos, len - pos, &h, &hlen, err);
            if (rc != SILT_OK)
                break;
            if (h.compressed_size < 0 || (int64_t)h.compressed_size > len - pos - (int64_t)hlen) {
                rc = err_set(err, SILT_CORRUPT, "page at byte %lld of the column chunk runs past "
                             "its end", (long long)pos);
                break;
            }
            if ((h.type == PQ_PAGE_DATA && h.has_data) ||
                (h.type == PQ_PAGE_DATA_V2 && h.has_data_v2)) {
                int64_t rows = h.type == PQ_PAGE_DATA ? h.data.num_values : h.data_v2.num_rows;
                if (rows < 0 || rows > rg->num_rows - row) {
                    rc = err_set(err, SILT_CORRUPT, "data page at byte %lld of the column chunk "
                                 "claims %lld rows, past the row group's %lld", (long long)pos,
                                 (long long)rows, (long long)rg->num_rows);
                    break;
                }
                out[(*n_out)++] = row;
                row += rows;
            }
            pos += (int64_t)hlen + h.compressed_size;
        }
    }
    buf_clear(&r.page);
    arena_free(r.rg_arena);
    if (rc != SILT_OK)
        err_context(err, "while reading the pages of column \"%s\" of row group %zu of Parquet "
                    "file \"%s\"", file->leaves[leaf_idx].path, rg_idx, file->key);
    return rc;
}
