/*
 * reader.c - scanning a Parquet file into column batches.
 *
 * A reader works one row group at a time. Loading a row group reads the
 * byte range of each projected column chunk (one range read per chunk),
 * walks its pages (dictionary, data v1, data v2; CRCs are not checked),
 * decompresses them and decodes levels and values straight into the leaf's
 * Delta representation (leaf_data). Batches are then cut from the decoded
 * row group: each leaf's definition/repetition levels of the batch's rows
 * are assembled into Arrow-layout vectors (validity, list offsets, values).
 *
 * PROTOCOL: parquet-format README (column chunks, pages), Encodings.md,
 * and the Dremel record shredding model for definition/repetition levels.
 *
 * Memory: decoded row-group data lives in heap buffers owned by the reader
 * and is dropped when the next row group loads; batch vectors are copied out
 * into the caller's arena, so a batch stays valid after the reader moves on.
 */
#include <string.h>

#include "formats/parquet/codec.h"
#include "formats/parquet/convert.h"
#include "formats/parquet/decode.h"
#include "formats/parquet/reader_int.h"
#include "util/mem.h"

#define PQ_DEFAULT_BATCH_ROWS 8192
/* A page may not claim more values or bytes than this (hostile headers). */
#define PQ_MAX_PAGE_VALUES ((int64_t)1 << 26)
#define PQ_MAX_PAGE_BYTES ((int64_t)1 << 30)
/*
 * Vectors on the path from a column to a leaf: a parquet node can give two
 * (an unannotated repeated group is a list and its element).
 */
#define PQ_MAX_PATH (2 * PQ_MAX_SCHEMA_DEPTH + 4)

/* One projected node of the output (a possibly pruned copy of a vnode). */
typedef struct rnode {
    const pq_vnode *v;
    const col_type *type;
    size_t n_children;
    struct rnode **children;
    int leaf_slot; /* index into reader->leaves, -1 for inner nodes */
} rnode;

/* Decoded data of one leaf in the current row group. */
typedef struct leaf_data {
    const pq_vnode *v;
    buf def;   /* uint16 levels, when max_def > 0 */
    buf rep;   /* uint16 levels, when max_rep > 0 */
    size_t n_levels;
    buf values;    /* fixed-width Delta values */
    pq_binary bin; /* variable-width values */
    size_t n_values;
    /*
     * Dictionary of the current chunk, already converted. While every data
     * page of a string/binary chunk is dictionary-encoded, values holds the
     * int32 indices (dict_mode) and batches may keep the dictionary.
     */
    int has_dict;
    int dict_mode;
    int seen_data_page;
    buf dict_values;
    pq_binary dict_bin;
    size_t dict_count;
    /* Batch cursor. */
    size_t level_pos, value_pos;
} leaf_data;

struct pq_reader {
    pq_file *file;
    rnode *root;
    const col_type *schema;
    size_t n_leaves;
    leaf_data *leaves;
    int64_t batch_rows;
    pq_row_group_filter filter;
    void *filter_payload;
    size_t next_rg, end_rg;
    int rg_loaded;
    size_t cur_rg;
    int64_t rg_rows, rg_row_pos;
    size_t skipped;
    int64_t memory_limit;
    int64_t rg_bytes; /* decoded bytes of the leaves already loaded in this row group */
    arena *arena; /* projection tree */
    /* Scratch reused across pages. */
    buf chunk, page, scratch;
    pq_binary scratch_bin;
};

static int level_bit_width(int max_level)
{
    int width = 0;
    while ((1 << width) <= max_level)
        width++;
    return width;
}

/* ---- projection ---- */

static silt_status wrap_whole(pq_reader *r, const pq_vnode *v, rnode **out, silt_error *err);

static rnode *rnode_new(pq_reader *r, const pq_vnode *v, const col_type *type, size_t n_children)
{
    rnode *rn = arena_calloc(r->arena, 1, sizeof(*rn));
    if (rn == NULL)
        return NULL;
    rn->v = v;
    rn->type = type;
    rn->n_children = n_children;
    rn->leaf_slot = -1;
    rn->children = arena_calloc(r->arena, n_children ? n_children : 1, sizeof(rnode *));
    return rn->children != NULL ? rn : NULL;
}

static silt_status wrap_whole(pq_reader *r, const pq_vnode *v, rnode **out, silt_error *err)
{
    size_t idx;
    rnode *rn = rnode_new(r, v, v->type, v->n_children);
    if (rn == NULL)
        return err_nomem(err);
    for (idx = 0; idx < v->n_children; idx++)
        SILT_RETURN_IF_ERROR(wrap_whole(r, v->children[idx], &rn->children[idx], err));
    *out = rn;
    return SILT_OK;
}

/*
 * Marks requested nodes: sel[k] for the vnode reached by columns[k]. A node
 * is kept whole when selected; a struct is pruned to its kept children.
 */
static silt_status prune(pq_reader *r, const pq_vnode *v, const pq_vnode **sel, size_t n_sel,
                         rnode **out, silt_error *err)
{
    size_t idx, kept = 0;
    col_field *fields;
    rnode *rn;
    *out = NULL;
    for (idx = 0; idx < n_sel; idx++)
        if (sel[idx] == v)
            return wrap_whole(r, v, out, err);
    if (v->kind != PQ_VN_STRUCT)
        return SILT_OK;
    rn = rnode_new(r, v, NULL, v->n_children);
    fields = arena_calloc(r->arena, v->n_children ? v->n_children : 1, sizeof(col_field));
    if (rn == NULL || fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < v->n_children; idx++) {
        rnode *child;
        SILT_RETURN_IF_ERROR(prune(r, v->children[idx], sel, n_sel, &child, err));
        if (child == NULL)
            continue;
        rn->children[kept] = child;
        fields[kept] = v->type->fields[idx];
        fields[kept].type = child->type;
        kept++;
    }
    if (kept == 0)
        return SILT_OK;
    rn->n_children = kept;
    rn->type = col_type_struct(r->arena, kept, fields);
    if (rn->type == NULL)
        return err_nomem(err);
    *out = rn;
    return SILT_OK;
}

/* Finds the vnode of a dotted name: a top-level column, then struct fields. */
static silt_status resolve_column(const pq_file *file, const char *name, const pq_vnode **out,
                                  silt_error *err)
{
    const pq_vnode *cur = file->vroot;
    const char *seg = name;
    for (;;) {
        const char *dot = strchr(seg, '.');
        size_t len = dot != NULL ? (size_t)(dot - seg) : strlen(seg);
        size_t idx;
        const pq_vnode *next = NULL;
        if (cur->kind == PQ_VN_STRUCT) {
            for (idx = 0; idx < cur->n_children; idx++) {
                const char *child = cur->children[idx]->name;
                if (strlen(child) == len && strncmp(child, seg, len) == 0) {
                    next = cur->children[idx];
                    break;
                }
            }
        }
        if (next == NULL)
            return err_set(err, SILT_NOTFOUND, "column \"%s\" does not exist in Parquet file "
                           "\"%s\"", name, file->key);
        cur = next;
        if (dot == NULL)
            break;
        seg = dot + 1;
    }
    *out = cur;
    return SILT_OK;
}

/* Position of the first request naming top-level column v (n_sel when none). */
static size_t first_request(const pq_file *file, const pq_vnode *v, const pq_read_options *opts)
{
    size_t k, len = strlen(v->name);
    (void)file;
    for (k = 0; k < opts->n_columns; k++) {
        const char *name = opts->columns[k];
        if (strncmp(name, v->name, len) == 0 && (name[len] == '\0' || name[len] == '.'))
            return k;
    }
    return opts->n_columns;
}

/*
 * Puts the projected top-level columns in the order they were first asked
 * for, as a SELECT list does; fields inside a struct keep the file's order.
 */
static silt_status order_as_requested(pq_reader *r, const pq_read_options *opts, silt_error *err)
{
    rnode *root = r->root;
    size_t n = root->n_children, idx, pos;
    size_t *rank = arena_calloc(r->arena, n ? n : 1, sizeof(size_t));
    col_field *fields = arena_calloc(r->arena, n ? n : 1, sizeof(col_field));
    if (rank == NULL || fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        rank[idx] = first_request(r->file, root->children[idx]->v, opts);
        fields[idx] = root->type->fields[idx];
    }
    /* Insertion sort: a handful of columns, and stable. */
    for (idx = 1; idx < n; idx++) {
        size_t key = rank[idx];
        rnode *child = root->children[idx];
        col_field field = fields[idx];
        for (pos = idx; pos > 0 && rank[pos - 1] > key; pos--) {
            rank[pos] = rank[pos - 1];
            root->children[pos] = root->children[pos - 1];
            fields[pos] = fields[pos - 1];
        }
        rank[pos] = key;
        root->children[pos] = child;
        fields[pos] = field;
    }
    root->type = col_type_struct(r->arena, n, fields);
    return root->type != NULL ? SILT_OK : err_nomem(err);
}

static silt_status collect_leaves(pq_reader *r, rnode *rn, silt_error *err)
{
    size_t idx;
    if (rn->v->kind == PQ_VN_LEAF) {
        leaf_data *ld;
        if (r->n_leaves >= r->file->n_leaves)
            return err_set(err, SILT_INVALID, "a column was selected twice");
        rn->leaf_slot = (int)r->n_leaves;
        ld = &r->leaves[r->n_leaves++];
        ld->v = rn->v;
        return SILT_OK;
    }
    for (idx = 0; idx < rn->n_children; idx++)
        SILT_RETURN_IF_ERROR(collect_leaves(r, rn->children[idx], err));
    return SILT_OK;
}

static silt_status build_projection(pq_reader *r, const pq_read_options *opts, silt_error *err)
{
    const pq_vnode **sel = NULL;
    size_t n_sel = 0, idx;
    silt_status rc = SILT_OK;
    if (opts != NULL && opts->columns != NULL) {
        sel = arena_calloc(r->arena, opts->n_columns ? opts->n_columns : 1, sizeof(*sel));
        if (sel == NULL)
            return err_nomem(err);
        for (idx = 0; idx < opts->n_columns && rc == SILT_OK; idx++)
            rc = resolve_column(r->file, opts->columns[idx], &sel[idx], err);
        n_sel = opts->n_columns;
        if (rc != SILT_OK)
            return rc;
        rc = prune(r, r->file->vroot, sel, n_sel, &r->root, err);
        if (rc == SILT_OK && r->root != NULL)
            rc = order_as_requested(r, opts, err);
        if (rc == SILT_OK && r->root == NULL) {
            /* Nothing selected: a batch of no columns, rows still counted. */
            r->root = rnode_new(r, r->file->vroot, col_type_struct(r->arena, 0, NULL), 0);
            if (r->root == NULL || r->root->type == NULL)
                rc = err_nomem(err);
        }
    } else {
        rc = wrap_whole(r, r->file->vroot, &r->root, err);
    }
    if (rc != SILT_OK)
        return rc;
    r->schema = r->root->type;
    r->leaves = mem_calloc(r->file->n_leaves ? r->file->n_leaves : 1, sizeof(leaf_data));
    if (r->leaves == NULL)
        return err_nomem(err);
    for (idx = 0; idx < r->file->n_leaves; idx++) {
        leaf_data *ld = &r->leaves[idx];
        size_t limit = (size_t)r->memory_limit;
        buf_init(&ld->def, limit);
        buf_init(&ld->rep, limit);
        buf_init(&ld->values, limit);
        buf_init(&ld->dict_values, limit);
        pq_binary_init(&ld->bin);
        pq_binary_init(&ld->dict_bin);
        ld->bin.offsets.limit = ld->bin.data.limit = limit;
        ld->dict_bin.offsets.limit = ld->dict_bin.data.limit = limit;
    }
    return collect_leaves(r, r->root, err);
}

silt_status pq_reader_open(pq_reader **out, pq_file *file, const pq_read_options *opts,
                           silt_error *err)
{
    pq_reader *r;
    silt_status rc;
    *out = NULL;
    r = mem_calloc(1, sizeof(*r));
    if (r == NULL)
        return err_nomem(err);
    r->file = file;
    r->arena = arena_new(NULL, "parquet reader");
    buf_init(&r->chunk, 0);
    buf_init(&r->page, 0);
    buf_init(&r->scratch, 0);
    pq_binary_init(&r->scratch_bin);
    r->batch_rows = opts != NULL && opts->batch_rows > 0 ? opts->batch_rows : PQ_DEFAULT_BATCH_ROWS;
    if (r->batch_rows > (1 << 24))
        r->batch_rows = 1 << 24;
    r->memory_limit = opts != NULL && opts->memory_limit > 0 ? opts->memory_limit
                                                             : PQ_DEFAULT_MEMORY_LIMIT;
    r->end_rg = file->meta.n_row_groups;
    if (opts != NULL) {
        r->next_rg = opts->first_row_group < r->end_rg ? opts->first_row_group : r->end_rg;
        if (opts->n_row_groups > 0 && opts->n_row_groups < r->end_rg - r->next_rg)
            r->end_rg = r->next_rg + opts->n_row_groups;
    }
    if (opts != NULL) {
        r->filter = opts->filter;
        r->filter_payload = opts->filter_payload;
    }
    if (r->arena == NULL)
        rc = err_nomem(err);
    else
        rc = build_projection(r, opts, err);
    if (rc != SILT_OK) {
        err_context(err, "while opening a reader of Parquet file \"%s\"", file->key);
        pq_reader_free(r);
        return rc;
    }
    *out = r;
    return SILT_OK;
}

/* Empties a leaf for the next chunk; binary offsets start with their 0. */
static silt_status leaf_reset(leaf_data *ld, silt_error *err)
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
    SILT_RETURN_IF_ERROR(buf_append(&ld->bin.offsets, &zero, sizeof(zero), err));
    return buf_append(&ld->dict_bin.offsets, &zero, sizeof(zero), err);
}

static void leaf_clear(leaf_data *ld)
{
    buf_clear(&ld->def);
    buf_clear(&ld->rep);
    buf_clear(&ld->values);
    buf_clear(&ld->dict_values);
    pq_binary_clear(&ld->bin);
    pq_binary_clear(&ld->dict_bin);
}

void pq_reader_free(pq_reader *r)
{
    size_t idx;
    if (r == NULL)
        return;
    if (r->leaves != NULL)
        for (idx = 0; idx < r->file->n_leaves; idx++)
            leaf_clear(&r->leaves[idx]);
    mem_free(r->leaves);
    buf_clear(&r->chunk);
    buf_clear(&r->page);
    buf_clear(&r->scratch);
    pq_binary_clear(&r->scratch_bin);
    arena_free(r->arena);
    mem_free(r);
}

const col_type *pq_reader_schema(const pq_reader *r) { return r->schema; }
size_t pq_reader_skipped_row_groups(const pq_reader *r) { return r->skipped; }

/* ---- page decoding ---- */

static silt_status page_corrupt(silt_error *err, const char *why)
{
    return err_set(err, SILT_CORRUPT, "page is malformed: %s", why);
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
    ld->has_dict = 1;
    return SILT_OK;
}

/* Gathers dictionary entries by index into the leaf's values. */
static silt_status gather_dictionary(leaf_data *ld, const uint32_t *idx, size_t n, silt_error *err)
{
    const pq_vnode *v = ld->v;
    size_t k;
    if (!ld->has_dict)
        return page_corrupt(err, "dictionary-encoded page without a dictionary page");
    for (k = 0; k < n; k++)
        if (idx[k] >= ld->dict_count)
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

/* Decodes a page's values section (n non-null values) and appends them. */
static int is_variable(const pq_vnode *v) { return v->conv != PQ_CONV_NULL && v->out_width == 0; }

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
        size_t k;
        if (first_page && is_variable(ld->v))
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
        for (k = 0; k < n; k++)
            if (idx[k] >= ld->dict_count)
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
    size_t k, consumed = 0;
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
    for (k = 0; k < n; k++)
        if (out[k] > max_level)
            return page_corrupt(err, "a level is above the column's maximum");
    dst->len += n * 2;
    *used = consumed;
    return SILT_OK;
}

static size_t count_defined(const leaf_data *ld, size_t from, size_t n)
{
    const uint16_t *def = (const uint16_t *)(const void *)ld->def.data;
    uint16_t max_def = (uint16_t)ld->v->max_def;
    size_t k, count = 0;
    if (ld->v->max_def == 0)
        return n;
    for (k = 0; k < n; k++)
        count += def[from + k] == max_def;
    return count;
}

static silt_status check_page_values(int32_t num_values, silt_error *err)
{
    if (num_values < 0 || num_values > PQ_MAX_PAGE_VALUES)
        return page_corrupt(err, "value count out of range");
    return SILT_OK;
}

static silt_status read_data_page_v1(pq_reader *r, leaf_data *ld, const pq_page_header *h,
                                     const uint8_t *data, size_t len, silt_error *err)
{
    const pq_vnode *v = ld->v;
    size_t n = (size_t)h->data.num_values, pos = 0, used, n_defined;
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
    n_defined = count_defined(ld, ld->n_levels, n);
    ld->n_levels += n;
    return read_values(r, ld, h->data.encoding, data + pos, len - pos, n_defined, err);
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
    n_defined = count_defined(ld, ld->n_levels, n);
    ld->n_levels += n;
    values_len = page_len - levels_len;
    out_len = (size_t)h->uncompressed_size - levels_len;
    values = page + levels_len;
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

/* Bytes a leaf's decoded data holds. */
static int64_t leaf_bytes(const leaf_data *ld)
{
    return (int64_t)(ld->def.len + ld->rep.len + ld->values.len + ld->bin.offsets.len +
                     ld->bin.data.len + ld->dict_values.len + ld->dict_bin.offsets.len +
                     ld->dict_bin.data.len);
}

static silt_status read_chunk_pages(pq_reader *r, leaf_data *ld, const pq_column_meta *cm,
                                    const uint8_t *chunk, size_t chunk_len, silt_error *err)
{
    size_t pos = 0;
    while (pos < chunk_len && (int64_t)ld->n_levels < cm->num_values) {
        pq_page_header h;
        size_t hlen, body_len;
        const uint8_t *body;
        SILT_RETURN_IF_ERROR(pq_parse_page_header(&h, &hlen, chunk + pos, chunk_len - pos, err));
        pos += hlen;
        if ((size_t)h.compressed_size > chunk_len - pos)
            return err_set(err, SILT_CORRUPT, "page at byte %zu of the column chunk runs past its "
                           "end (%d bytes, %zu left)", pos - hlen, h.compressed_size,
                           chunk_len - pos);
        SILT_RETURN_IF_ERROR(check_page_sizes(&h, err));
        switch (h.type) {
        case PQ_PAGE_DICTIONARY:
            SILT_RETURN_IF_ERROR(page_body(r, &h, cm->codec, chunk + pos, (size_t)h.compressed_size,
                                           &body, &body_len, err));
            SILT_RETURN_IF_ERROR(read_dictionary(r, ld, &h, body, body_len, err));
            break;
        case PQ_PAGE_DATA:
            SILT_RETURN_IF_ERROR(page_body(r, &h, cm->codec, chunk + pos, (size_t)h.compressed_size,
                                           &body, &body_len, err));
            SILT_RETURN_IF_ERROR(read_data_page_v1(r, ld, &h, body, body_len, err));
            break;
        case PQ_PAGE_DATA_V2:
            SILT_RETURN_IF_ERROR(read_data_page_v2(r, ld, &h, chunk + pos,
                                                   (size_t)h.compressed_size, cm->codec, err));
            break;
        default:
            /* Index pages and page types from the future carry no values. */
            break;
        }
        if ((int64_t)ld->n_levels > cm->num_values)
            return err_set(err, SILT_CORRUPT, "column chunk holds more values than its metadata "
                           "says (%lld)", (long long)cm->num_values);
        if (r->rg_bytes + leaf_bytes(ld) > r->memory_limit)
            return err_set(err, SILT_NOMEM, "the decoded row group needs more than the memory "
                           "limit of %lld bytes", (long long)r->memory_limit);
        pos += (size_t)h.compressed_size;
    }
    if ((int64_t)ld->n_levels != cm->num_values)
        return err_set(err, SILT_CORRUPT, "column chunk holds %zu values but its metadata says "
                       "%lld", ld->n_levels, (long long)cm->num_values);
    return SILT_OK;
}

static silt_status load_leaf(pq_reader *r, leaf_data *ld, const pq_row_group *rg,
                             silt_error *err)
{
    const pq_column_chunk *cc = &rg->columns[ld->v->leaf_idx];
    const pq_column_meta *cm = &cc->meta;
    int64_t start = pq_chunk_start(cm), len;
    size_t rows = 0, k;
    if (!pq_codec_supported(cm->codec))
        return err_set(err, SILT_UNSUPPORTED, "compression codec %s (%d) is not supported",
                       pq_codec_name(cm->codec), (int)cm->codec);
    SILT_RETURN_IF_ERROR(leaf_reset(ld, err));
    buf_truncate(&r->chunk, 0);
    /* Offsets and sizes were checked against the file when it was opened. */
    if (cm->num_values > 0) {
        len = cm->total_compressed_size;
        len += r->file->data_end - (start + len) < r->file->chunk_padding
                   ? r->file->data_end - (start + len) : r->file->chunk_padding;
        SILT_RETURN_IF_ERROR(buf_reserve(&r->chunk, (size_t)len, err));
        SILT_RETURN_IF_ERROR(io_file_read_at(r->file->io, start, (size_t)len, r->chunk.data, err));
        SILT_RETURN_IF_ERROR(read_chunk_pages(r, ld, cm, (const uint8_t *)r->chunk.data,
                                              (size_t)len, err));
    }
    if (ld->v->max_rep > 0) {
        const uint16_t *rep = (const uint16_t *)(const void *)ld->rep.data;
        for (k = 0; k < ld->n_levels; k++)
            rows += rep[k] == 0;
        if (ld->n_levels > 0 && rep[0] != 0)
            return err_set(err, SILT_CORRUPT, "column chunk does not start at a row boundary");
    } else {
        rows = ld->n_levels;
    }
    if ((int64_t)rows != rg->num_rows)
        return err_set(err, SILT_CORRUPT, "column chunk holds %zu rows but the row group has %lld",
                       rows, (long long)rg->num_rows);
    if (ld->v->conv != PQ_CONV_NULL &&
        (ld->dict_mode              ? ld->values.len / sizeof(uint32_t)
         : ld->v->out_width > 0     ? ld->values.len / ld->v->out_width
                                    : pq_binary_count(&ld->bin)) != ld->n_values)
        return err_set(err, SILT_CORRUPT, "column chunk values do not match its levels");
    return SILT_OK;
}

static int row_group_wanted(pq_reader *r, const pq_row_group *rg, silt_error *err, int *nomem)
{
    pq_leaf_stats *stats;
    size_t k;
    int keep;
    *nomem = 0;
    if (r->filter == NULL)
        return 1;
    stats = mem_calloc(r->n_leaves ? r->n_leaves : 1, sizeof(*stats));
    if (stats == NULL) {
        *nomem = 1;
        err_nomem(err);
        return 0;
    }
    for (k = 0; k < r->n_leaves; k++)
        pq_leaf_stats_fill(r->file, r->leaves[k].v, &rg->columns[r->leaves[k].v->leaf_idx],
                           &stats[k]);
    keep = r->filter(stats, r->n_leaves, rg->num_rows, r->filter_payload);
    mem_free(stats);
    return keep;
}

/* Loads the next wanted row group; *done_out = 1 when there is none. */
static silt_status load_next_row_group(pq_reader *r, int *done_out, silt_error *err)
{
    const pq_file_meta *meta = &r->file->meta;
    *done_out = 0;
    while (r->next_rg < r->end_rg) {
        size_t rg_idx = r->next_rg++;
        const pq_row_group *rg = &meta->row_groups[rg_idx];
        size_t k;
        int nomem;
        if (rg->num_rows == 0)
            continue;
        if (!row_group_wanted(r, rg, err, &nomem)) {
            if (nomem)
                return SILT_NOMEM;
            r->skipped++;
            continue;
        }
        r->rg_bytes = 0;
        for (k = 0; k < r->n_leaves; k++) {
            silt_status rc = load_leaf(r, &r->leaves[k], rg, err);
            r->rg_bytes += leaf_bytes(&r->leaves[k]);
            if (rc != SILT_OK)
                return err_context(err, "while reading column \"%s\" of row group %zu",
                                   r->file->leaves[r->leaves[k].v->leaf_idx].path, rg_idx);
        }
        buf_truncate(&r->chunk, 0);
        r->cur_rg = rg_idx;
        r->rg_rows = rg->num_rows;
        r->rg_row_pos = 0;
        r->rg_loaded = 1;
        return SILT_OK;
    }
    *done_out = 1;
    return SILT_OK;
}

/* ---- assembly: levels to Arrow-layout vectors ---- */

/* One node on the path from a top-level column down to a leaf. */
typedef struct path_step {
    const rnode *rn;
    int space; /* index of the slot space: lists above this node */
    int build; /* this leaf fills the node's validity/offsets */
    col_vec *vec;
} path_step;

typedef struct batch_range {
    size_t l0, l1; /* levels */
    size_t v0, v1; /* values */
} batch_range;

/* Where a leaf's values come from in one batch, and how they are written. */
typedef enum src_mode {
    SRC_NONE,      /* the null type: no values */
    SRC_FIXED,     /* fixed-width values copied (also dictionary indices kept as such) */
    SRC_VAR,       /* variable-width values: bytes copied in one block, offsets rebased */
    SRC_DICT_FLAT  /* dictionary indices expanded into bytes */
} src_mode;

typedef struct leaf_src {
    src_mode mode;
    size_t w;            /* SRC_FIXED: bytes per value */
    const char *fixed;   /* SRC_FIXED: values of the row group */
    const int64_t *offs; /* SRC_VAR: offsets of the row group; SRC_DICT_FLAT: of the dictionary */
    const char *bytes;   /* SRC_VAR: bytes of the row group; SRC_DICT_FLAT: of the dictionary */
    int64_t base;        /* SRC_VAR: offset of the batch's first value */
    const uint32_t *idx; /* SRC_DICT_FLAT: indices of the row group */
    int32_t cursor;      /* SRC_DICT_FLAT: bytes written so far */
} leaf_src;

/* Per-batch state of one top-level column's assembly. */
typedef struct assembly {
    pq_reader *r;
    arena *a;
    batch_range *ranges; /* per reader leaf slot */
    leaf_src *srcs;      /* per reader leaf slot */
    path_step path[PQ_MAX_PATH];
} assembly;

/* Writes value vi of a leaf into slot `slot` of its vector (the slot is valid). */
static inline void put_value(leaf_src *src, col_vec *vec, int64_t slot, size_t vi)
{
    switch (src->mode) {
    case SRC_FIXED:
        if (src->w == 4)
            memcpy((char *)vec->values + slot * 4, src->fixed + vi * 4, 4);
        else if (src->w == 8)
            memcpy((char *)vec->values + slot * 8, src->fixed + vi * 8, 8);
        else if (src->w == 1)
            ((char *)vec->values)[slot] = src->fixed[vi];
        else
            memcpy((char *)vec->values + (size_t)slot * src->w, src->fixed + vi * src->w, src->w);
        break;
    case SRC_DICT_FLAT: {
        uint32_t d = src->idx[vi];
        int32_t len = (int32_t)(src->offs[d + 1] - src->offs[d]);
        if (len > 0) {
            memcpy(vec->data + src->cursor, src->bytes + src->offs[d], (size_t)len);
            src->cursor += len;
        }
        break;
    }
    default:
        break;
    }
}

/* Closes slot `slot` of a variable-width vector; next_vi is the leaf's next value. */
static inline void end_slot(const leaf_src *src, col_vec *vec, int64_t slot, size_t next_vi)
{
    if (src->mode == SRC_VAR)
        vec->offsets[slot + 1] = (int32_t)(src->offs[next_vi] - src->base);
    else if (src->mode == SRC_DICT_FLAT)
        vec->offsets[slot + 1] = src->cursor;
}

static void *alloc_buffer(arena *a, size_t bytes)
{
    void *p = arena_alloc_aligned(a, bytes ? bytes : 1, 64);
    if (p != NULL)
        memset(p, 0, bytes ? bytes : 1);
    return p;
}

static int first_leaf(const rnode *rn)
{
    while (rn->leaf_slot < 0) {
        if (rn->n_children == 0)
            return -1;
        rn = rn->children[0];
    }
    return rn->leaf_slot;
}

/* A copy of a leaf's dictionary as a STRING/BINARY vector without nulls, in the batch arena. */
static silt_status dictionary_vector(assembly *as, const leaf_data *ld, const col_type *type,
                                     col_vec **out, silt_error *err)
{
    const int64_t *offs = pq_binary_offsets(&ld->dict_bin);
    col_vec *dict = arena_calloc(as->a, 1, sizeof(*dict));
    size_t k;
    if (dict == NULL)
        return err_nomem(err);
    dict->type = type;
    dict->length = (int64_t)ld->dict_count;
    dict->offsets = alloc_buffer(as->a, (ld->dict_count + 1) * sizeof(int32_t));
    dict->data = alloc_buffer(as->a, (size_t)offs[ld->dict_count]);
    dict->data_len = offs[ld->dict_count];
    if (dict->offsets == NULL || dict->data == NULL)
        return err_nomem(err);
    for (k = 0; k <= ld->dict_count; k++)
        dict->offsets[k] = (int32_t)offs[k];
    if (offs[ld->dict_count] > 0)
        memcpy(dict->data, ld->dict_bin.data.data, (size_t)offs[ld->dict_count]);
    *out = dict;
    return SILT_OK;
}

/*
 * Sets up a leaf vector's buffers and its value source. A dictionary-mode
 * string column keeps its dictionary (values are int32 indices) when copying
 * the dictionary costs less than the batch's expanded bytes; else it is
 * expanded.
 */
static silt_status alloc_leaf_values(assembly *as, const rnode *rn, col_vec *vec, size_t cap,
                                     silt_error *err)
{
    const leaf_data *ld = &as->r->leaves[rn->leaf_slot];
    const batch_range *br = &as->ranges[rn->leaf_slot];
    leaf_src *src = &as->srcs[rn->leaf_slot];
    int64_t bytes = 0;
    memset(src, 0, sizeof(*src));
    if (ld->dict_mode) {
        const int64_t *doffs = pq_binary_offsets(&ld->dict_bin);
        const uint32_t *idx = (const uint32_t *)(const void *)ld->values.data;
        int64_t dict_cost = doffs[ld->dict_count] + (int64_t)ld->dict_count * 4;
        size_t k;
        for (k = br->v0; k < br->v1; k++)
            bytes += doffs[idx[k] + 1] - doffs[idx[k]];
        if (dict_cost <= bytes && dict_cost <= INT32_MAX) {
            src->mode = SRC_FIXED;
            src->w = 4;
            src->fixed = ld->values.data;
            vec->values = alloc_buffer(as->a, cap * 4);
            if (vec->values == NULL)
                return err_nomem(err);
            return dictionary_vector(as, ld, rn->type, &vec->dictionary, err);
        }
        src->mode = SRC_DICT_FLAT;
        src->offs = doffs;
        src->bytes = ld->dict_bin.data.data;
        src->idx = idx;
    } else if (ld->v->out_width == 0) {
        const int64_t *offs = pq_binary_offsets(&ld->bin);
        src->mode = SRC_VAR;
        src->offs = offs;
        src->bytes = ld->bin.data.data;
        src->base = offs[br->v0];
        bytes = offs[br->v1] - offs[br->v0];
    } else {
        src->mode = SRC_FIXED;
        src->w = ld->v->out_width;
        src->fixed = ld->values.data;
        vec->values = alloc_buffer(as->a, cap * src->w);
        return vec->values != NULL ? SILT_OK : err_nomem(err);
    }
    if (bytes > INT32_MAX)
        return err_set(err, SILT_UNSUPPORTED, "a batch of column \"%s\" holds over 2 GiB of values",
                       rn->v->name);
    if (bytes > as->r->memory_limit)
        return err_set(err, SILT_NOMEM, "a batch of column \"%s\" needs more than the memory "
                       "limit of %lld bytes", rn->v->name, (long long)as->r->memory_limit);
    vec->offsets = alloc_buffer(as->a, (cap + 1) * sizeof(int32_t));
    vec->data = alloc_buffer(as->a, (size_t)bytes);
    vec->data_len = bytes;
    if (vec->offsets == NULL || vec->data == NULL)
        return err_nomem(err);
    /* Variable-width bytes are contiguous in the row group: one copy. */
    if (src->mode == SRC_VAR && bytes > 0)
        memcpy(vec->data, src->bytes + src->base, (size_t)bytes);
    return SILT_OK;
}

/* Allocates the vectors of a subtree, each with room for the entries of its first leaf. */
static silt_status alloc_vectors(assembly *as, const rnode *rn, col_vec **out, silt_error *err)
{
    col_vec *vec = arena_calloc(as->a, 1, sizeof(*vec));
    int leaf = first_leaf(rn);
    size_t cap, idx;
    if (vec == NULL)
        return err_nomem(err);
    cap = leaf >= 0 ? as->ranges[leaf].l1 - as->ranges[leaf].l0 : 0;
    vec->type = rn->type;
    vec->validity = alloc_buffer(as->a, (cap + 7) / 8);
    if (vec->validity == NULL)
        return err_nomem(err);
    switch (rn->type->id) {
    case COL_STRUCT:
    case COL_ARRAY:
    case COL_MAP:
        if (rn->type->id != COL_STRUCT) {
            vec->offsets = alloc_buffer(as->a, (cap + 1) * sizeof(int32_t));
            if (vec->offsets == NULL)
                return err_nomem(err);
        }
        vec->n_children = rn->n_children;
        vec->children = arena_calloc(as->a, rn->n_children ? rn->n_children : 1, sizeof(col_vec *));
        if (vec->children == NULL)
            return err_nomem(err);
        for (idx = 0; idx < rn->n_children; idx++)
            SILT_RETURN_IF_ERROR(alloc_vectors(as, rn->children[idx], &vec->children[idx], err));
        break;
    case COL_NULL:
        as->srcs[rn->leaf_slot].mode = SRC_NONE;
        break;
    default:
        if (rn->leaf_slot >= 0) {
            SILT_RETURN_IF_ERROR(alloc_leaf_values(as, rn, vec, cap, err));
            break;
        }
        vec->values = alloc_buffer(as->a, cap * col_type_value_width(rn->type->id));
        if (vec->values == NULL)
            return err_nomem(err);
        break;
    }
    *out = vec;
    return SILT_OK;
}

/* Finds the path to a leaf slot below step `depth`; returns the path length or 0. */
static size_t find_path(assembly *as, const rnode *rn, col_vec *vec, int space, size_t depth,
                        int leaf_slot)
{
    path_step *st = &as->path[depth];
    size_t idx;
    if (depth >= PQ_MAX_PATH)
        return 0;
    st->rn = rn;
    st->vec = vec;
    st->space = space;
    st->build = first_leaf(rn) == leaf_slot;
    if (rn->leaf_slot >= 0)
        return rn->leaf_slot == leaf_slot ? depth + 1 : 0;
    for (idx = 0; idx < rn->n_children; idx++) {
        int child_space = rn->v->kind == PQ_VN_STRUCT ? space : space + 1;
        size_t len = find_path(as, rn->children[idx], vec->children[idx], child_space, depth + 1,
                               leaf_slot);
        if (len > 0)
            return len;
    }
    return 0;
}

static silt_status assembly_corrupt(const pq_vnode *leaf, silt_error *err, const char *why)
{
    return err_set(err, SILT_CORRUPT, "levels of column \"%s\" are inconsistent: %s", leaf->name,
                   why);
}

/*
 * Scatters the defined values of an optional flat column: validity bits
 * are built a byte at a time, and the width is a constant in each copy of
 * the loop so the copies compile to plain moves. leaf_range guarantees that
 * the defined levels and the values of the batch match in number.
 */
#define DEFINE_SCATTER(NAME, W)                                                                    \
    static void NAME(const uint16_t *def, uint16_t max_def, size_t n, const char *vals,            \
                     char *dst, uint8_t *validity)                                                 \
    {                                                                                              \
        size_t k, vi = 0;                                                                          \
        for (k = 0; k < n; k += 8) {                                                               \
            size_t end = k + 8 < n ? k + 8 : n, j;                                                 \
            unsigned bits = 0;                                                                     \
            for (j = k; j < end; j++) {                                                            \
                unsigned valid = def[j] == max_def;                                                \
                bits |= valid << (j - k);                                                          \
                if (valid) {                                                                       \
                    memcpy(dst + j * (W), vals + vi * (W), (W));                                   \
                    vi++;                                                                          \
                }                                                                                  \
            }                                                                                      \
            validity[k >> 3] = (uint8_t)bits;                                                      \
        }                                                                                          \
    }

DEFINE_SCATTER(scatter_1, 1)
DEFINE_SCATTER(scatter_2, 2)
DEFINE_SCATTER(scatter_4, 4)
DEFINE_SCATTER(scatter_8, 8)
DEFINE_SCATTER(scatter_16, 16)

static void scatter_fixed(const uint16_t *def, uint16_t max_def, size_t n, const char *vals,
                          size_t w, char *dst, uint8_t *validity)
{
    size_t k, vi = 0;
    switch (w) {
    case 1: scatter_1(def, max_def, n, vals, dst, validity); return;
    case 2: scatter_2(def, max_def, n, vals, dst, validity); return;
    case 4: scatter_4(def, max_def, n, vals, dst, validity); return;
    case 8: scatter_8(def, max_def, n, vals, dst, validity); return;
    case 16: scatter_16(def, max_def, n, vals, dst, validity); return;
    default:
        for (k = 0; k < n; k++) {
            if (def[k] == max_def) {
                col_bit_set(validity, (int64_t)k);
                memcpy(dst + k * w, vals + vi * w, w);
                vi++;
            }
        }
    }
}

/* Flat column (a top-level leaf outside any list): rows are levels. */
static silt_status assemble_flat(assembly *as, const leaf_data *ld, const batch_range *br,
                                 col_vec *vec, silt_error *err)
{
    const pq_vnode *v = ld->v;
    leaf_src *src = &as->srcs[ld - as->r->leaves];
    size_t n = br->l1 - br->l0, k, vi = br->v0;
    const uint16_t *def = (const uint16_t *)(const void *)ld->def.data + br->l0;
    uint16_t max_def = (uint16_t)v->max_def;
    (void)err;
    if (src->mode == SRC_NONE)
        return SILT_OK;
    if (v->max_def == 0) {
        /* Required: values are rows. */
        if (src->mode == SRC_FIXED) {
            memcpy(vec->values, src->fixed + br->v0 * src->w, n * src->w);
        } else if (src->mode == SRC_VAR) {
            for (k = 0; k <= n; k++)
                vec->offsets[k] = (int32_t)(src->offs[br->v0 + k] - src->base);
        } else {
            for (k = 0; k < n; k++) {
                put_value(src, vec, (int64_t)k, br->v0 + k);
                vec->offsets[k + 1] = src->cursor;
            }
        }
        memset(vec->validity, 0xff, (n + 7) / 8);
        return SILT_OK;
    }
    if (src->mode == SRC_FIXED) {
        scatter_fixed(def, max_def, n, src->fixed + br->v0 * src->w, src->w, vec->values,
                      vec->validity);
        return SILT_OK;
    }
    if (src->mode == SRC_VAR) {
        const int64_t *offs = src->offs;
        int64_t base = src->base;
        int32_t *out = vec->offsets;
        for (k = 0; k < n; k++) {
            if (def[k] == max_def) {
                col_bit_set(vec->validity, (int64_t)k);
                vi++;
            }
            out[k + 1] = (int32_t)(offs[vi] - base);
        }
        return SILT_OK;
    }
    for (k = 0; k < n; k++) {
        if (def[k] == max_def) {
            col_bit_set(vec->validity, (int64_t)k);
            put_value(src, vec, (int64_t)k, vi);
            vi++;
        }
        end_slot(src, vec, (int64_t)k, vi);
    }
    return SILT_OK;
}

static silt_status assemble_leaf(assembly *as, size_t depth, const leaf_data *ld,
                                 const batch_range *br, int64_t *counts, silt_error *err)
{
    const pq_vnode *v = ld->v;
    int n_spaces = v->max_rep + 1, s;
    const uint16_t *def = v->max_def > 0 ? (const uint16_t *)(const void *)ld->def.data : NULL;
    const uint16_t *rep = v->max_rep > 0 ? (const uint16_t *)(const void *)ld->rep.data : NULL;
    int elem_def[PQ_MAX_PATH + 1];
    size_t space_begin[PQ_MAX_PATH + 2];
    size_t e, k, vi = br->v0;
    leaf_src *src = &as->srcs[ld - as->r->leaves];
    int variable = src->mode == SRC_VAR || src->mode == SRC_DICT_FLAT;
    if (depth == 0 || as->path[depth - 1].space != v->max_rep || n_spaces > PQ_MAX_PATH)
        return assembly_corrupt(v, err, "nesting does not match the repetition level");
    /* Steps are top-down, so each space's steps are contiguous. */
    for (s = 0, k = 0; s <= n_spaces; s++) {
        while (k < depth && as->path[k].space < s)
            k++;
        space_begin[s] = k;
    }
    elem_def[0] = 0;
    for (k = 0; k < depth; k++)
        if (as->path[k].rn->v->kind == PQ_VN_LIST || as->path[k].rn->v->kind == PQ_VN_MAP)
            elem_def[as->path[k].space + 1] = as->path[k].rn->v->elem_def;
    for (s = 0; s < n_spaces; s++)
        counts[s] = 0;
    for (e = br->l0; e < br->l1; e++) {
        int d = def != NULL ? def[e] : 0;
        int rp = rep != NULL ? rep[e] : 0;
        for (s = rp; s < n_spaces; s++) {
            int64_t slot = counts[s];
            if (s > 0 && d < elem_def[s]) {
                if (s == rp)
                    return assembly_corrupt(v, err, "a repeated entry is not defined");
                break;
            }
            for (k = space_begin[s]; k < space_begin[s + 1]; k++) {
                const path_step *st = &as->path[k];
                const pq_vnode *nv = st->rn->v;
                if (nv->kind == PQ_VN_LEAF) {
                    if (d >= v->max_def) {
                        if (vi >= br->v1)
                            return assembly_corrupt(v, err, "more defined levels than values");
                        col_bit_set(st->vec->validity, slot);
                        put_value(src, st->vec, slot, vi);
                        vi++;
                    }
                    if (variable)
                        end_slot(src, st->vec, slot, vi);
                } else if (st->build) {
                    if (d >= nv->def_null)
                        col_bit_set(st->vec->validity, slot);
                    if (nv->kind != PQ_VN_STRUCT)
                        st->vec->offsets[slot] = (int32_t)counts[s + 1];
                }
            }
            counts[s]++;
        }
    }
    if (vi != br->v1)
        return assembly_corrupt(v, err, "fewer defined levels than values");
    for (k = 0; k < depth; k++) {
        path_step *st = &as->path[k];
        if (!st->build && st->rn->v->kind != PQ_VN_LEAF)
            continue;
        st->vec->length = counts[st->space];
        if (st->rn->v->kind == PQ_VN_LIST || st->rn->v->kind == PQ_VN_MAP)
            st->vec->offsets[counts[st->space]] = (int32_t)counts[st->space + 1];
    }
    return SILT_OK;
}

/* Sets null counts and drops all-valid bitmaps, bottom-up. */
static void finish_vectors(col_vec *vec)
{
    size_t idx;
    if (vec->type->id == COL_NULL) {
        memset(vec->validity, 0, (size_t)(vec->length + 7) / 8);
        vec->null_count = vec->length;
    } else {
        vec->null_count = col_validity_count_nulls(vec->validity, vec->length);
        if (vec->null_count == 0)
            vec->validity = NULL;
    }
    for (idx = 0; idx < vec->n_children; idx++)
        finish_vectors(vec->children[idx]);
}

static void collect_slots(const rnode *rn, int *slots, size_t *n)
{
    size_t idx;
    if (rn->leaf_slot >= 0) {
        slots[(*n)++] = rn->leaf_slot;
        return;
    }
    for (idx = 0; idx < rn->n_children; idx++)
        collect_slots(rn->children[idx], slots, n);
}

static silt_status assemble_column(assembly *as, const rnode *top, col_vec **out,
                                   silt_error *err)
{
    int *slots;
    size_t n_slots = 0, idx;
    int64_t counts[PQ_MAX_PATH + 1];
    col_vec *vec;
    SILT_RETURN_IF_ERROR(alloc_vectors(as, top, &vec, err));
    slots = arena_calloc(as->a, as->r->n_leaves ? as->r->n_leaves : 1, sizeof(int));
    if (slots == NULL)
        return err_nomem(err);
    collect_slots(top, slots, &n_slots);
    for (idx = 0; idx < n_slots; idx++) {
        const leaf_data *ld = &as->r->leaves[slots[idx]];
        const batch_range *br = &as->ranges[slots[idx]];
        size_t depth = find_path(as, top, vec, 0, 0, slots[idx]);
        silt_status rc;
        if (depth == 1 && ld->v->max_rep == 0) {
            rc = assemble_flat(as, ld, br, vec, err);
            vec->length = (int64_t)(br->l1 - br->l0);
        } else {
            rc = assemble_leaf(as, depth, ld, br, counts, err);
        }
        if (rc != SILT_OK)
            return rc;
    }
    finish_vectors(vec);
    *out = vec;
    return SILT_OK;
}

/* Finds the levels and values of the next n rows of a leaf. */
static silt_status leaf_range(const leaf_data *ld, int64_t n, batch_range *br, silt_error *err)
{
    size_t e = ld->level_pos;
    br->l0 = ld->level_pos;
    br->v0 = ld->value_pos;
    if (ld->v->max_rep == 0) {
        e += (size_t)n;
    } else {
        const uint16_t *rep = (const uint16_t *)(const void *)ld->rep.data;
        int64_t rows = 0;
        while (e < ld->n_levels) {
            if (rep[e] == 0) {
                if (rows == n)
                    break;
                rows++;
            }
            e++;
        }
    }
    if (e > ld->n_levels)
        return assembly_corrupt(ld->v, err, "fewer rows than the row group");
    br->l1 = e;
    br->v1 = br->v0 + count_defined(ld, br->l0, br->l1 - br->l0);
    if (br->v1 > ld->n_values)
        return assembly_corrupt(ld->v, err, "more defined levels than values");
    return SILT_OK;
}

silt_status pq_reader_next(pq_reader *r, arena *a, col_batch **out, silt_error *err)
{
    assembly as;
    col_batch *batch;
    int64_t n;
    size_t k;
    silt_status rc = SILT_OK;
    *out = NULL;
    while (!r->rg_loaded || r->rg_row_pos >= r->rg_rows) {
        int done;
        r->rg_loaded = 0;
        rc = load_next_row_group(r, &done, err);
        if (rc != SILT_OK)
            return err_context(err, "while reading Parquet file \"%s\"", r->file->key);
        if (done)
            return SILT_OK;
    }
    n = r->rg_rows - r->rg_row_pos;
    if (n > r->batch_rows)
        n = r->batch_rows;
    memset(&as, 0, sizeof(as));
    as.r = r;
    as.a = a;
    as.ranges = arena_calloc(a, r->n_leaves ? r->n_leaves : 1, sizeof(batch_range));
    as.srcs = arena_calloc(a, r->n_leaves ? r->n_leaves : 1, sizeof(leaf_src));
    batch = arena_calloc(a, 1, sizeof(*batch));
    if (as.ranges == NULL || as.srcs == NULL || batch == NULL)
        return err_nomem(err);
    for (k = 0; k < r->n_leaves && rc == SILT_OK; k++)
        rc = leaf_range(&r->leaves[k], n, &as.ranges[k], err);
    batch->schema = r->schema;
    batch->n_rows = n;
    batch->n_cols = r->root->n_children;
    batch->cols = arena_calloc(a, batch->n_cols ? batch->n_cols : 1, sizeof(col_vec *));
    if (rc == SILT_OK && batch->cols == NULL)
        rc = err_nomem(err);
    for (k = 0; k < batch->n_cols && rc == SILT_OK; k++) {
        rc = assemble_column(&as, r->root->children[k], &batch->cols[k], err);
        if (rc == SILT_OK && batch->cols[k]->length != n)
            rc = err_set(err, SILT_CORRUPT, "column \"%s\" assembled %lld rows instead of %lld",
                         r->root->children[k]->v->name, (long long)batch->cols[k]->length,
                         (long long)n);
    }
    if (rc != SILT_OK)
        return err_context(err, "while reading row group %zu of Parquet file \"%s\"", r->cur_rg,
                           r->file->key);
    for (k = 0; k < r->n_leaves; k++) {
        r->leaves[k].level_pos = as.ranges[k].l1;
        r->leaves[k].value_pos = as.ranges[k].v1;
    }
    r->rg_row_pos += n;
    *out = batch;
    return SILT_OK;
}
