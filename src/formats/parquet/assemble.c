/*
 * assemble.c - cutting batches out of a decoded row group: each leaf's
 * definition/repetition levels for the batch's rows are assembled into
 * Arrow-layout vectors (validity, list offsets, values) in the caller's
 * arena.
 *
 * PROTOCOL: the Dremel record shredding model of parquet-format (definition
 * and repetition levels), read back into nested vectors.
 */
#include <string.h>

#include "formats/parquet/scan_int.h"
#include "util/mem.h"

/*
 * Vectors on the path from a column to a leaf: a parquet node can give two
 * (an unannotated repeated group is a list and its element).
 */
#define PQ_MAX_PATH (2 * PQ_MAX_SCHEMA_DEPTH + 4)

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
    SRC_DICT_FLAT, /* dictionary indices expanded into bytes */
    SRC_DICT_FIXED /* dictionary indices gathered into fixed-width values */
} src_mode;

typedef struct leaf_src {
    src_mode mode;
    size_t w;            /* SRC_FIXED: bytes per value */
    const char *fixed;   /* SRC_FIXED: values of the row group; SRC_DICT_FIXED: the dictionary */
    const int64_t *offs; /* SRC_VAR: offsets of the row group; SRC_DICT_FLAT: of the dictionary */
    const char *bytes;   /* SRC_VAR: bytes of the row group; SRC_DICT_FLAT: of the dictionary */
    int64_t base;        /* SRC_VAR: offset of the batch's first value */
    const uint32_t *idx; /* SRC_DICT_FLAT, SRC_DICT_FIXED: indices of the row group */
    int32_t cursor;      /* SRC_DICT_FLAT: bytes written so far */
} leaf_src;

/* Per-batch state of one top-level column's assembly. */
typedef struct assembly {
    pq_reader *r;
    arena *a;
    const rnode *top; /* the top-level column being assembled */
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
    case SRC_DICT_FIXED:
        memcpy((char *)vec->values + (size_t)slot * src->w, src->fixed + src->idx[vi] * src->w,
               src->w);
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

/* A buffer that assemble_flat fills completely (or zeroes itself): not zeroed here. */
static void *alloc_buffer_unzeroed(arena *a, size_t bytes)
{
    return arena_alloc_aligned(a, bytes ? bytes : 1, 64);
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
    if (ld->dict_mode && ld->v->out_width > 0) {
        src->mode = SRC_DICT_FIXED;
        src->w = ld->v->out_width;
        src->fixed = ld->dict_values.data;
        src->idx = (const uint32_t *)(const void *)ld->values.data;
        vec->values = rn == as->top && ld->v->max_rep == 0
                          ? alloc_buffer_unzeroed(as->a, cap * src->w)
                          : alloc_buffer(as->a, cap * src->w);
        return vec->values != NULL ? SILT_OK : err_nomem(err);
    }
    if (ld->dict_mode) {
        const int64_t *doffs = pq_binary_offsets(&ld->dict_bin);
        const uint32_t *idx = (const uint32_t *)(const void *)ld->values.data;
        int64_t dict_cost = doffs[ld->dict_count] + (int64_t)ld->dict_count * 4;
        size_t k;
        /* Counting stops once the dictionary is known to be the cheaper. */
        for (k = br->v0; k < br->v1 && bytes < dict_cost; k++)
            bytes += doffs[idx[k] + 1] - doffs[idx[k]];
        if (dict_cost <= bytes && dict_cost <= INT32_MAX) {
            src->mode = SRC_FIXED;
            src->w = 4;
            src->fixed = ld->values.data;
            vec->values = rn == as->top && ld->v->max_rep == 0
                              ? alloc_buffer_unzeroed(as->a, cap * 4)
                              : alloc_buffer(as->a, cap * 4);
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
        /* A flat column's values are all written (nulls zeroed) by assemble_flat. */
        if (rn == as->top && ld->v->max_rep == 0)
            vec->values = alloc_buffer_unzeroed(as->a, cap * src->w);
        else
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

/*
 * Dictionary indices of a flat column gathered into its values: straight
 * when every row is defined, else scattered to the defined rows (the others
 * zeroed) with the validity bits built alongside.
 */
#define GATHER_LOOP(W)                                                                             \
    do {                                                                                           \
        if (dense && codes != NULL) {                                                              \
            for (k = 0; k < n; k++) {                                                              \
                uint32_t c = idx[k];                                                               \
                codes[k] = c;                                                                      \
                memcpy(dst + k * (W), dict + (size_t)c * (W), (W));                                \
            }                                                                                      \
        } else if (dense) {                                                                        \
            for (k = 0; k < n; k++)                                                                \
                memcpy(dst + k * (W), dict + (size_t)idx[k] * (W), (W));                           \
        } else {                                                                                   \
            memset(dst, 0, n * (W));                                                               \
            for (k = 0; k < n; k++) {                                                              \
                if (def[k] == max_def) {                                                           \
                    col_bit_set(vec->validity, (int64_t)k);                                        \
                    memcpy(dst + k * (W), dict + (size_t)idx[vi] * (W), (W));                      \
                    vi++;                                                                          \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* codes (dense only, may be NULL) receives the indices as well (col_vec.codes). */
static void gather_fixed(const leaf_src *src, size_t v0, const uint16_t *def, uint16_t max_def,
                         size_t n, int dense, col_vec *vec, uint32_t *codes)
{
    const uint32_t *idx = src->idx + v0;
    const char *dict = src->fixed;
    char *dst = vec->values;
    size_t k, vi = 0;
    if (dense)
        memset(vec->validity, 0xff, (n + 7) / 8);
    switch (src->w) {
    case 4: GATHER_LOOP(4); break;
    case 8: GATHER_LOOP(8); break;
    default: GATHER_LOOP(src->w); break;
    }
}

/*
 * A dictionary-encoded batch without nulls also keeps its indices as the
 * vector's codes (columnar.h), written by the gather into the batch arena
 * (the row group's buffers are reused for the next one while the batch may
 * live on).
 */
static silt_status gather_with_codes(assembly *as, const leaf_data *ld, const leaf_src *src,
                                     const batch_range *br, const uint16_t *def,
                                     uint16_t max_def, col_vec *vec, silt_error *err)
{
    size_t n = br->v1 - br->v0;
    uint32_t *codes = alloc_buffer_unzeroed(as->a, n * sizeof(uint32_t));
    if (codes == NULL)
        return err_nomem(err);
    gather_fixed(src, br->v0, def, max_def, n, 1, vec, codes);
    vec->codes = codes;
    vec->codes_dict = ld->dict_id;
    vec->codes_card = (int64_t)ld->dict_count;
    return SILT_OK;
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
    if (src->mode == SRC_DICT_FIXED) {
        if (br->v1 - br->v0 == n)
            return gather_with_codes(as, ld, src, br, def, max_def, vec, err);
        gather_fixed(src, br->v0, def, max_def, n, v->max_def == 0, vec, NULL);
        return SILT_OK;
    }
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
    if (src->mode == SRC_FIXED && br->v1 - br->v0 == n) {
        /* Optional but without a null in this batch: values are rows, as if required. */
        memcpy(vec->values, src->fixed + br->v0 * src->w, n * src->w);
        memset(vec->validity, 0xff, (n + 7) / 8);
        return SILT_OK;
    }
    if (src->mode == SRC_FIXED) {
        memset(vec->values, 0, n * src->w);
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
    as->top = top;
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
            if (rc == SILT_OK && top->leaf_slot >= 0 && top->type->id != COL_NULL) {
                /* A top-level leaf: its nulls are the undefined levels, already counted. */
                vec->null_count = vec->length - (int64_t)(br->v1 - br->v0);
                if (vec->null_count == 0)
                    vec->validity = NULL;
                *out = vec;
                return SILT_OK;
            }
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
    br->v1 = br->v0 + pq_leaf_count_defined(ld, br->l0, br->l1 - br->l0);
    if (br->v1 > ld->n_values)
        return assembly_corrupt(ld->v, err, "more defined levels than values");
    return SILT_OK;
}

silt_status pq_assemble_batch(pq_reader *r, arena *a, int64_t n, col_batch *batch,
                              silt_error *err)
{
    assembly as;
    size_t k;
    silt_status rc = SILT_OK;
    memset(&as, 0, sizeof(as));
    as.r = r;
    as.a = a;
    as.ranges = arena_calloc(a, r->n_leaves ? r->n_leaves : 1, sizeof(batch_range));
    as.srcs = arena_calloc(a, r->n_leaves ? r->n_leaves : 1, sizeof(leaf_src));
    if (as.ranges == NULL || as.srcs == NULL)
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
        return rc;
    for (k = 0; k < r->n_leaves; k++) {
        r->leaves[k].level_pos = as.ranges[k].l1;
        r->leaves[k].value_pos = as.ranges[k].v1;
    }
    return SILT_OK;
}
