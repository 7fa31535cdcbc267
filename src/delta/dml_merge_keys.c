/*
 * dml_merge_keys.c - the hashed join keys of MERGE's source (dml_int.h).
 *
 * Column-at-a-time: a batch's key hashes are computed one key column after
 * the other into an array, then each row probes the table and compares its
 * key values with the candidate source row's, straight from the vectors.
 * The first version built each row's key bytes into a buffer and looked
 * them up in the generic byte-string hashmap (a copy and a malloc per
 * source key): 28 % of a MERGE's instructions. Values compare by their
 * bytes (as before: -0.0 and 0.0 differ, as do NaNs with other payloads),
 * strings by length and bytes, through a dictionary when there is one.
 */
#include <string.h>

#include "delta/dml_int.h"
#include "util/hashmap.h"
#include "util/mem.h"

/* The fixed-width value of row `row` as 64 bits (width <= 8), zero-extended. */
static inline uint64_t load_word(const unsigned char *base, size_t width, int64_t row)
{
    uint64_t word = 0;
    switch (width) {
    case 8: memcpy(&word, base + (size_t)row * 8, 8); break;
    case 4: { uint32_t x; memcpy(&x, base + (size_t)row * 4, 4); word = x; break; }
    case 2: { uint16_t x; memcpy(&x, base + (size_t)row * 2, 2); word = x; break; }
    default: word = base[row]; break;
    }
    return word;
}

static uint64_t value_hash(const col_vec *v, size_t width, int64_t row)
{
    if (width == 0) {
        int32_t len;
        const char *s = col_vec_str(v, row, &len);
        return util_hash_bytes(s, (size_t)len, 0);
    }
    if (width <= 8)
        return hash_mix64(load_word(v->values, width, row));
    return util_hash_bytes((const unsigned char *)v->values + (size_t)row * width, width, 0);
}

/* Folds one key column into the hashes of rows [0, n); a null value makes the row's hash 0
 * ("null key": it matches nothing) and 0 stays 0. A column of 8-byte values without nulls,
 * the usual id key, takes the short loop. */
static void hash_column(const col_vec *v, size_t width, int64_t n, uint64_t *h)
{
    int64_t row;
    if (width == 8 && v->validity == NULL) {
        const unsigned char *base = v->values;
        for (row = 0; row < n; row++) {
            uint64_t x = hash_mix64(h[row] ^ hash_mix64(load_word(base, 8, row)));
            h[row] = h[row] == 0 ? 0 : x + (x == 0);
        }
        return;
    }
    for (row = 0; row < n; row++) {
        uint64_t x;
        if (h[row] == 0)
            continue;
        if (col_vec_is_null(v, row)) {
            h[row] = 0;
            continue;
        }
        x = hash_mix64(h[row] ^ value_hash(v, width, row));
        h[row] = x + (x == 0);
    }
}

/* Hashes of rows [0, n) over the key columns into h; rows with a null key get 0. */
static void hash_rows(const dml_key_index *idx, const col_vec *const *cols, int64_t n,
                      uint64_t *h)
{
    size_t k;
    int64_t row;
    for (row = 0; row < n; row++)
        h[row] = 0x9e3779b97f4a7c15ULL;
    for (k = 0; k < idx->n_keys; k++)
        hash_column(cols[k], idx->width[k], n, h);
}

static inline int values_equal(const col_vec *x, int64_t xr, const col_vec *y, int64_t yr,
                               size_t width)
{
    if (width == 8)
        return load_word(x->values, 8, xr) == load_word(y->values, 8, yr);
    if (width == 0) {
        int32_t xl, yl;
        const char *xs = col_vec_str(x, xr, &xl), *ys = col_vec_str(y, yr, &yl);
        return xl == yl && memcmp(xs, ys, (size_t)xl) == 0;
    }
    return memcmp((const char *)x->values + (size_t)xr * width,
                  (const char *)y->values + (size_t)yr * width, width) == 0;
}

static inline int keys_equal(const dml_key_index *idx, const col_vec *const *cols, int64_t row,
                             int64_t src_row)
{
    size_t k;
    for (k = 0; k < idx->n_keys; k++)
        if (!values_equal(cols[k], row, idx->src[k], src_row, idx->width[k]))
            return 0;
    return 1;
}

/* The slot of key (cols, row, h): its own, or the empty one where it would go. */
static inline size_t find_slot(const dml_key_index *idx, const col_vec *const *cols, int64_t row,
                        uint64_t h)
{
    size_t at = (size_t)h & idx->mask;
    while (idx->slot[at] != 0 &&
           (idx->slot_hash[at] != h || !keys_equal(idx, cols, row, idx->slot[at] - 1)))
        at = (at + 1) & idx->mask;
    return at;
}

silt_status delta_dml_key_index_build(dml_key_index *idx, arena *a, const col_vec *const *src,
                                size_t n_keys, int64_t n_rows, silt_error *err)
{
    int64_t n = n_rows, row;
    size_t slots = 16;
    uint64_t *h;
    memset(idx, 0, sizeof(*idx));
    idx->n_keys = n_keys;
    idx->src = src;
    idx->width = arena_calloc(a, n_keys + 1, sizeof(size_t));
    if (idx->width == NULL)
        return err_nomem(err);
    for (size_t k = 0; k < n_keys; k++) {
        col_type_id id = src[k]->type->id;
        idx->width[k] = id == COL_STRING || id == COL_BINARY ? 0 : col_type_value_width(id);
    }
    while (slots < (size_t)n * 2)
        slots *= 2;
    idx->mask = slots - 1;
    idx->slot = arena_calloc(a, slots, sizeof(int64_t));
    idx->slot_hash = arena_alloc(a, slots * sizeof(uint64_t));
    idx->next = arena_calloc(a, (size_t)n + 1, sizeof(int64_t));
    /* the row hashes are needed only while building: heap, not the MERGE's arena */
    h = mem_alloc(((size_t)n + 1) * sizeof(uint64_t));
    if (idx->slot == NULL || idx->slot_hash == NULL || idx->next == NULL || h == NULL) {
        mem_free(h);
        return err_nomem(err);
    }
    hash_rows(idx, src, n, h);
    for (row = n - 1; row >= 0; row--) { /* backwards, so chains run in source order */
        size_t at;
        if (h[row] == 0)
            continue;
        at = find_slot(idx, src, row, h[row]);
        idx->next[row] = idx->slot[at];
        idx->slot[at] = row + 1;
        idx->slot_hash[at] = h[row];
    }
    mem_free(h);
    return SILT_OK;
}

silt_status delta_dml_key_index_probe(dml_key_index *idx, arena *a, const col_vec *const *probe,
                                int64_t n_rows, int64_t *first, silt_error *err)
{
    uint64_t *h = arena_alloc(a, ((size_t)n_rows + 1) * sizeof(uint64_t));
    int64_t row;
    if (h == NULL)
        return err_nomem(err);
    hash_rows(idx, probe, n_rows, h);
    for (row = 0; row < n_rows; row++)
        first[row] = h[row] == 0 ? 0 : idx->slot[find_slot(idx, probe, row, h[row])];
    return SILT_OK;
}
