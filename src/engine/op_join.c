/*
 * op_join.c - hash join (inner, left, right, full outer, left semi, left
 * anti, cross) with several keys and an optional extra condition.
 *
 * The right child is drained into a build table (all its columns, its key
 * values and a chained hash table over rows whose keys are all non-NULL:
 * NULL keys never match). A bucket chains one leader row per distinct key
 * (next_key), and each leader chains the rows with its key (next_in_chain),
 * so a probe compares keys once per distinct key and then takes every
 * duplicate without comparing. A probe key that arrives dictionary-encoded
 * (Parquet) is looked up once per dictionary entry, not once per row. A
 * small build side hands out its string columns as dictionaries over the
 * build rows, so output rows copy an index instead of the bytes. Left chunks are probed row by
 * row, producing (left row, build row) pairs up to the chunk's rows (at least
 * ENGINE_BATCH_ROWS) at a time, so one left chunk with many matches is returned over several
 * next() calls, and one with a match per row in one. The
 * extra condition is evaluated on the joined pairs. Unmatched rows of the
 * outer sides are emitted after their chunk (left) or at the end (right).
 * A build side that outgrows half its memory room turns the join into a
 * grace hash join over partition files (join_spill.c).
 */
#include "engine/spill_int.h"

#include <string.h>

typedef struct join_state {
    engine_join_type type;
    expr **lkeys, **rkeys;
    size_t n_keys;
    const expr *cond;
    size_t n_left, n_right;
    /* build side */
    arena *build_arena;
    col_vec **bcols, **bkeys;
    int64_t n_build;
    int64_t *heads, *next_in_chain;
    int64_t *next_key;  /* hash path: the next key's leader row in the bucket */
    uint64_t *bhash;
    col_vec **bdict;    /* per build column: a dictionary for the output, or NULL */
    int64_t *bkv;       /* one integral key: its values, build side */
    /*
     * Dense integral keys (ids of a dimension table): dense_head[key - dense_min]
     * starts the chain of build rows with that key, so probing needs no
     * hashing and no key comparison.
     */
    int64_t *dense_head;
    int64_t dense_min, dense_range;
    size_t n_heads;
    uint8_t *bmatched;
    int built;
    /* probe side */
    arena *probe_arena;
    engine_chunk *cur;
    col_vec **cur_keys;
    int64_t *cur_kv;    /* one integral key: its values, probe side */
    uint64_t *cur_hash;
    const int32_t *cur_codes; /* dictionary-encoded key: each row's entry */
    int64_t *dict_first;      /* dictionary entry -> leader build row, -1 = none */
    int dict_unique;          /* no entry of dict_first has a second build row */
    uint8_t *lmatched;
    int64_t cur_k;      /* next live row of cur to probe */
    int64_t chain;      /* next build row of the current row's chain, -1 = start */
    int finishing;      /* 1: emitting unmatched build rows */
    int64_t next_unmatched;
    int done;
    /* Grace join (join_spill.c): set when the build side went to disk. */
    join_spill *spill;
    int spill_level;
    /* Block nested loop (cross_spill.c): a join without keys whose build side went to disk. */
    cross_spill *cross;
    /* engine_join_set_ordered: a LEFT join's rows come out in probe order, unmatched ones in
     * their place (emit_k: the chunk's rows before it are out). */
    int ordered;
    int64_t emit_k;
    int keep_built; /* engine_join_build_shared built the table: the next open keeps it */
} join_state;

/* One integral key (the usual id join): hashed and compared as an int64. */
static int int_key(col_vec **keys, size_t n_keys)
{
    col_type_id id = n_keys == 1 ? keys[0]->type->id : COL_NULL;
    return id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG ||
           id == COL_DATE || id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ;
}

static inline uint64_t int_hash(int64_t v)
{
    uint64_t h = (uint64_t)v * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

/* Values of an integral key column as int64, one typed loop (live rows only). */
static int64_t *int_values(arena *a, const col_vec *v, const int32_t *sel, int64_t n_sel,
                           int64_t n_rows)
{
    int64_t *out = arena_alloc(a, sizeof(int64_t) * (size_t)(n_rows ? n_rows : 1)), k;
    if (out == NULL)
        return NULL;
    switch (v->type->id) {
    case COL_INT:
    case COL_DATE: {
        const int32_t *x = v->values;
        for (k = 0; k < n_sel; k++) {
            int64_t r = ENGINE_ROW(sel, k);
            out[r] = x[r];
        }
        break;
    }
    case COL_LONG:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: {
        const int64_t *x = v->values;
        for (k = 0; k < n_sel; k++) {
            int64_t r = ENGINE_ROW(sel, k);
            out[r] = x[r];
        }
        break;
    }
    default:
        for (k = 0; k < n_sel; k++) {
            int64_t r = ENGINE_ROW(sel, k);
            out[r] = vec_get_int(v, r);
        }
        break;
    }
    return out;
}

static uint64_t key_hash(col_vec **keys, size_t n_keys, int64_t row, int *has_null)
{
    uint64_t h = 0x10f;
    size_t k;
    *has_null = 0;
    if (int_key(keys, n_keys)) {
        *has_null = !vec_is_valid(keys[0], row);
        return int_hash(vec_get_int(keys[0], row));
    }
    for (k = 0; k < n_keys; k++) {
        if (!vec_is_valid(keys[k], row))
            *has_null = 1;
        h = vec_hash_row(keys[k], row, h);
    }
    return h;
}

/* Sets up dense_head when the build keys span a small range. */
static silt_status build_dense(join_state *s, silt_error *err)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN, row, limit;
    const col_vec *kv = s->bkeys[0];
    for (row = 0; row < s->n_build; row++) {
        if (!vec_is_valid(kv, row))
            continue;
        if (s->bkv[row] < lo)
            lo = s->bkv[row];
        if (s->bkv[row] > hi)
            hi = s->bkv[row];
    }
    limit = 2 * s->n_build > 1024 ? 2 * s->n_build : 1024;
    if (lo > hi || (uint64_t)hi - (uint64_t)lo >= (uint64_t)limit || hi - lo >= (1 << 24))
        return SILT_OK;
    s->dense_min = lo;
    s->dense_range = hi - lo + 1;
    s->dense_head = arena_alloc(s->build_arena, sizeof(int64_t) * (size_t)s->dense_range);
    if (s->dense_head == NULL)
        return err_nomem(err);
    memset(s->dense_head, 0xff, sizeof(int64_t) * (size_t)s->dense_range);
    /* Reverse order keeps each chain in input order; chains hold one key each. */
    for (row = s->n_build - 1; row >= 0; row--) {
        int64_t slot;
        if (!vec_is_valid(kv, row))
            continue;
        slot = s->bkv[row] - lo;
        s->next_in_chain[row] = s->dense_head[slot];
        s->dense_head[slot] = row;
    }
    return SILT_OK;
}

/*
 * Memory of the build side: its rows (copied once more when the parts are
 * concatenated) and about 40 bytes a row of hash table. Over the room, a
 * join with keys moves its build side to partition files (grace join), a
 * cross or inner join without keys to one file joined block by block
 * (cross_spill.c); other joins without keys cannot be split and fail.
 */
static silt_status build_account(engine_op *op, join_state *s, vec_accum *cols,
                                 silt_error *err)
{
    int64_t need = 2 * (int64_t)arena_bytes_used(s->build_arena) + 40 * s->n_build;
    int blocks = engine_cross_spill_supported(s->type, s->n_keys);
    size_t part, col;
    /* Half the room: the operators above run while the build side is held. */
    if (op->ctx->mem_limit <= 0 || need <= engine_mem_room(op) / 2 ||
        (s->n_keys == 0 && !blocks) || s->spill_level >= SPILL_MAX_LEVEL)
        return engine_op_charge_to(op, need, "join build side", err);
    if (blocks)
        SILT_RETURN_IF_ERROR(engine_cross_spill_new(&s->cross, op, s->type, s->cond, err));
    else
        SILT_RETURN_IF_ERROR(engine_join_spill_new(&s->spill, op, s->spill_level, s->type, s->lkeys,
                                            s->rkeys, s->n_keys, s->cond, err));
    /* Every add made one part per column: part i of all columns is one batch. */
    for (part = 0; s->n_right > 0 && part < cols[0].n_parts; part++) {
        col_batch b;
        col_vec **pc = arena_calloc(s->probe_arena, s->n_right, sizeof(col_vec *));
        if (pc == NULL)
            return err_nomem(err);
        for (col = 0; col < s->n_right; col++)
            pc[col] = cols[col].parts[part];
        b.schema = op->children[1]->schema;
        b.n_cols = s->n_right;
        b.n_rows = pc[0]->length;
        b.cols = pc;
        if (s->cross != NULL)
            SILT_RETURN_IF_ERROR(engine_cross_spill_add_build(s->cross, &b, NULL, b.n_rows,
                                                       s->probe_arena, err));
        else
            SILT_RETURN_IF_ERROR(engine_join_spill_add_build(s->spill, &b, NULL, b.n_rows, err));
        arena_reset(s->probe_arena);
    }
    arena_reset(s->build_arena);
    return engine_op_charge_to(op, 0, "join build side", err);
}

static int build_keys_equal(const join_state *s, int64_t x, int64_t y)
{
    size_t k;
    if (s->bkv != NULL)
        return s->bkv[x] == s->bkv[y];
    for (k = 0; k < s->n_keys; k++)
        if (vec_compare_rows(s->bkeys[k], x, s->bkeys[k], y) != 0)
            return 0;
    return 1;
}

/*
 * Fills the hash table. Rows go in in reverse, each to the front of its
 * key's chain, so chains list build rows in input order; the row then
 * takes its key's place in the bucket's list of leaders.
 */
static void insert_build_rows(join_state *s)
{
    int64_t row;
    for (row = s->n_build - 1; row >= 0; row--) {
        int has_null;
        uint64_t h = key_hash(s->bkeys, s->n_keys, row, &has_null);
        size_t b = h & (s->n_heads - 1);
        int64_t g = s->heads[b], prev = -1;
        s->bhash[row] = h;
        s->next_in_chain[row] = -1;
        s->next_key[row] = -1;
        if (has_null)
            continue;
        while (g >= 0 && !(s->bhash[g] == h && build_keys_equal(s, g, row))) {
            prev = g;
            g = s->next_key[g];
        }
        if (g < 0) { /* a new key: the bucket's first leader */
            s->next_key[row] = s->heads[b];
            s->heads[b] = row;
            continue;
        }
        /* row takes over g's place in the bucket's list of leaders */
        s->next_in_chain[row] = g;
        s->next_key[row] = s->next_key[g];
        if (prev < 0)
            s->heads[b] = row;
        else
            s->next_key[prev] = row;
    }
}

/*
 * Build sides up to this many rows hand out their string columns as
 * dictionaries (int32 row numbers into the build column) instead of
 * copying the bytes into every output row.
 */
#define JOIN_DICT_MAX_ROWS 65536

static silt_status build_dictionaries(join_state *s, silt_error *err)
{
    size_t col;
    s->bdict = NULL;
    if (s->n_build == 0 || s->n_build > JOIN_DICT_MAX_ROWS)
        return SILT_OK;
    s->bdict = arena_calloc(s->build_arena, s->n_right ? s->n_right : 1, sizeof(col_vec *));
    if (s->bdict == NULL)
        return err_nomem(err);
    for (col = 0; col < s->n_right; col++) {
        col_vec *flat, *d;
        col_type_id id = s->bcols[col]->type->id;
        if (id != COL_STRING && id != COL_BINARY)
            continue;
        SILT_RETURN_IF_ERROR(col_vec_flatten(&flat, s->build_arena, s->bcols[col], err));
        d = arena_alloc(s->build_arena, sizeof(*d));
        if (d == NULL)
            return err_nomem(err);
        /* A dictionary has no NULLs: the output's own validity marks them. */
        *d = *flat;
        d->validity = NULL;
        d->null_count = 0;
        s->bdict[col] = d;
    }
    return SILT_OK;
}

/* Build column col at rows[0..n) (-1 = NULL) as a new vector in the batch arena. */
static silt_status gather_build(engine_op *op, join_state *s, size_t col, const int64_t *rows,
                                int64_t n, col_vec **out, silt_error *err)
{
    const col_vec *src = s->bcols[col];
    col_vec *v;
    int32_t *codes;
    int64_t k;
    if (s->bdict == NULL || s->bdict[col] == NULL)
        return vec_gather(out, op->batch_arena, src, rows, n, err);
    v = arena_calloc(op->batch_arena, 1, sizeof(*v));
    codes = arena_alloc(op->batch_arena, sizeof(int32_t) * (size_t)(n ? n : 1));
    if (v == NULL || codes == NULL)
        return err_nomem(err);
    v->type = src->type;
    v->length = n;
    v->values = codes;
    v->dictionary = s->bdict[col];
    if (src->validity == NULL || src->null_count == 0) {
        /* No NULL build values: only rows without a build row (-1) need the bitmap. */
        int64_t missing = 0;
        for (k = 0; k < n; k++) {
            int64_t r = rows[k];
            codes[k] = r < 0 ? 0 : (int32_t)r;
            missing += r < 0;
        }
        if (missing == 0) {
            *out = v;
            return SILT_OK;
        }
    }
    for (k = 0; k < n; k++) {
        int64_t r = rows[k];
        codes[k] = r < 0 ? 0 : (int32_t)r;
        if (r >= 0 && vec_is_valid(src, r))
            continue;
        if (v->validity == NULL) {
            size_t bytes = (size_t)(n + 7) / 8;
            v->validity = arena_alloc(op->batch_arena, bytes);
            if (v->validity == NULL)
                return err_nomem(err);
            memset(v->validity, 0xff, bytes);
        }
        vec_set_null(v, k);
    }
    *out = v;
    return SILT_OK;
}

/*
 * Dictionary build column col beside a left chunk of nr rows: row lrows[i]
 * gets build row brows[i]. Only those rows are live; the others point at
 * entry 0, which is safe to read.
 */
static silt_status scatter_build(engine_op *op, join_state *s, size_t col, int64_t nr,
                                 const int64_t *lrows, const int64_t *brows, int64_t n,
                                 col_vec **out, silt_error *err)
{
    const col_vec *src = s->bcols[col];
    col_vec *v = arena_calloc(op->batch_arena, 1, sizeof(*v));
    int32_t *codes = arena_calloc(op->batch_arena, (size_t)(nr ? nr : 1), sizeof(int32_t));
    int64_t i;
    if (v == NULL || codes == NULL)
        return err_nomem(err);
    v->type = src->type;
    v->length = nr;
    v->values = codes;
    v->dictionary = s->bdict[col];
    for (i = 0; i < n; i++)
        codes[lrows[i]] = (int32_t)brows[i];
    if (src->validity != NULL && src->null_count != 0) {
        size_t bytes = (size_t)(nr + 7) / 8;
        v->validity = arena_alloc(op->batch_arena, bytes);
        if (v->validity == NULL)
            return err_nomem(err);
        memset(v->validity, 0xff, bytes);
        for (i = 0; i < n; i++)
            if (!vec_is_valid(src, brows[i]))
                vec_set_null(v, lrows[i]);
    }
    *out = v;
    return SILT_OK;
}

static silt_status build(engine_op *op, join_state *s, silt_error *err)
{
    engine_op *right = op->children[1];
    vec_accum *cols = arena_calloc(s->build_arena, s->n_right ? s->n_right : 1, sizeof(vec_accum));
    vec_accum *keys = arena_calloc(s->build_arena, s->n_keys ? s->n_keys : 1, sizeof(vec_accum));
    arena *scratch = arena_new(op->op_arena, "join_build_scratch");
    size_t idx;
    if (cols == NULL || keys == NULL || scratch == NULL)
        return err_nomem(err);
    for (idx = 0; idx < s->n_right; idx++)
        vec_accum_init(&cols[idx], s->build_arena, right->schema->fields[idx].type);
    for (idx = 0; idx < s->n_keys; idx++)
        vec_accum_init(&keys[idx], s->build_arena, s->rkeys[idx]->type);
    for (;;) {
        engine_chunk *in;
        SILT_RETURN_IF_ERROR(engine_op_next(right, &in, err));
        if (in == NULL)
            break;
        arena_reset(scratch);
        if (s->cross != NULL) {
            SILT_RETURN_IF_ERROR(engine_cross_spill_add_build(s->cross, &in->batch, in->sel, in->n_sel,
                                                       scratch, err));
            continue;
        }
        if (s->spill != NULL) {
            SILT_RETURN_IF_ERROR(engine_join_spill_add_build(s->spill, &in->batch, in->sel, in->n_sel,
                                                      err));
            continue;
        }
        for (idx = 0; idx < s->n_right; idx++)
            SILT_RETURN_IF_ERROR(vec_accum_add(&cols[idx], in->batch.cols[idx], in->sel, in->n_sel, err));
        for (idx = 0; idx < s->n_keys; idx++) {
            col_vec *kv;
            SILT_RETURN_IF_ERROR(expr_eval(s->rkeys[idx], op->ctx, &in->batch, in->sel,
                                           in->n_sel, scratch, &kv, err));
            SILT_RETURN_IF_ERROR(vec_accum_add(&keys[idx], kv, in->sel, in->n_sel, err));
        }
        s->n_build += in->n_sel;
        SILT_RETURN_IF_ERROR(build_account(op, s, cols, err));
    }
    if (s->spill != NULL || s->cross != NULL) {
        arena_free(scratch);
        s->built = 1;
        return SILT_OK;
    }
    arena_free(scratch);
    s->bcols = arena_calloc(s->build_arena, s->n_right ? s->n_right : 1, sizeof(col_vec *));
    s->bkeys = arena_calloc(s->build_arena, s->n_keys ? s->n_keys : 1, sizeof(col_vec *));
    if (s->bcols == NULL || s->bkeys == NULL)
        return err_nomem(err);
    for (idx = 0; idx < s->n_right; idx++)
        SILT_RETURN_IF_ERROR(vec_accum_finish(&cols[idx], &s->bcols[idx], err));
    for (idx = 0; idx < s->n_keys; idx++)
        SILT_RETURN_IF_ERROR(vec_accum_finish(&keys[idx], &s->bkeys[idx], err));
    s->n_heads = 16;
    while (s->n_heads < (size_t)s->n_build * 2)
        s->n_heads *= 2;
    s->heads = arena_alloc(s->build_arena, sizeof(int64_t) * s->n_heads);
    s->next_in_chain = arena_alloc(s->build_arena, sizeof(int64_t) * (size_t)(s->n_build ? s->n_build : 1));
    s->bhash = arena_alloc(s->build_arena, sizeof(uint64_t) * (size_t)(s->n_build ? s->n_build : 1));
    s->bmatched = arena_calloc(s->build_arena, (size_t)(s->n_build ? s->n_build : 1), 1);
    s->next_key = arena_alloc(s->build_arena, sizeof(int64_t) * (size_t)(s->n_build ? s->n_build : 1));
    if (s->heads == NULL || s->next_in_chain == NULL || s->bhash == NULL || s->bmatched == NULL ||
        s->next_key == NULL)
        return err_nomem(err);
    memset(s->heads, 0xff, sizeof(int64_t) * s->n_heads);
    s->bkv = NULL;
    s->dense_head = NULL;
    if (int_key(s->bkeys, s->n_keys)) {
        s->bkv = int_values(s->build_arena, s->bkeys[0], NULL, s->n_build, s->n_build);
        if (s->bkv == NULL)
            return err_nomem(err);
        if (s->type != JOIN_CROSS)
            SILT_RETURN_IF_ERROR(build_dense(s, err));
    }
    if (s->type != JOIN_CROSS && s->dense_head == NULL)
        insert_build_rows(s);
    SILT_RETURN_IF_ERROR(build_dictionaries(s, err));
    s->built = 1;
    return SILT_OK;
}

static int keys_equal(join_state *s, int64_t lrow, int64_t brow)
{
    size_t k;
    if (s->cur_kv != NULL)
        return s->cur_kv[lrow] == s->bkv[brow];
    for (k = 0; k < s->n_keys; k++)
        if (vec_compare_rows(s->cur_keys[k], lrow, s->bkeys[k], brow) != 0)
            return 0;
    return 1;
}

/* The first build row whose key equals probe row's, or -1. */
static int64_t find_key(const join_state *s, int64_t row)
{
    int64_t g;
    if (s->dict_first != NULL)
        return s->dict_first[s->cur_codes[row]];
    g = s->heads[s->cur_hash[row] & (s->n_heads - 1)];
    while (g >= 0 && !(s->bhash[g] == s->cur_hash[row] && keys_equal((join_state *)s, row, g)))
        g = s->next_key[g];
    return g;
}

/*
 * A probe key that is dictionary-encoded with no more entries than live
 * rows: finds each entry's build rows once (dict_first) instead of hashing
 * and comparing every row. Returns 0 when the key does not qualify.
 */
static int probe_by_dictionary(join_state *s, engine_chunk *in, silt_error *err, silt_status *rc)
{
    const col_vec *kv, *d;
    int64_t e, i;
    int unique = 1;
    *rc = SILT_OK;
    if (s->n_keys != 1 || s->type == JOIN_CROSS || s->dense_head != NULL)
        return 0;
    kv = s->cur_keys[0];
    d = kv->dictionary;
    if (d == NULL || d->length > in->n_sel)
        return 0;
    s->dict_first = arena_alloc(s->probe_arena, sizeof(int64_t) * (size_t)(d->length ? d->length : 1));
    if (s->dict_first == NULL) {
        *rc = err_nomem(err);
        return 1;
    }
    for (e = 0; e < d->length; e++) {
        /* key_hash of a one-column key, which the build side used */
        uint64_t h = vec_hash_row(d, e, 0x10f);
        int64_t g = s->heads[h & (s->n_heads - 1)];
        while (g >= 0 && !(s->bhash[g] == h && vec_compare_rows(d, e, s->bkeys[0], g) == 0))
            g = s->next_key[g];
        s->dict_first[e] = g;
        if (g >= 0 && s->next_in_chain[g] >= 0)
            unique = 0;
    }
    s->dict_unique = unique;
    s->cur_codes = kv->values;
    for (i = 0; kv->validity != NULL && kv->null_count != 0 && i < in->n_sel; i++) {
        int64_t row = ENGINE_ROW(in->sel, i);
        if (!vec_is_valid(kv, row))
            s->lmatched[row] |= 2;
    }
    return 1;
}

/* Starts probing a new left chunk. */
static silt_status start_chunk(engine_op *op, join_state *s, engine_chunk *in, silt_error *err)
{
    size_t k;
    int64_t i;
    arena_reset(s->probe_arena);
    s->cur = in;
    s->cur_k = 0;
    s->emit_k = 0;
    s->chain = -1;
    s->cur_keys = arena_calloc(s->probe_arena, s->n_keys ? s->n_keys : 1, sizeof(col_vec *));
    s->cur_hash = arena_alloc(s->probe_arena, sizeof(uint64_t) * (size_t)(in->batch.n_rows ? in->batch.n_rows : 1));
    s->lmatched = arena_calloc(s->probe_arena, (size_t)(in->batch.n_rows ? in->batch.n_rows : 1), 1);
    if (s->cur_keys == NULL || s->cur_hash == NULL || s->lmatched == NULL)
        return err_nomem(err);
    for (k = 0; k < s->n_keys; k++)
        SILT_RETURN_IF_ERROR(expr_eval(s->lkeys[k], op->ctx, &in->batch, in->sel, in->n_sel,
                                       s->probe_arena, &s->cur_keys[k], err));
    s->cur_kv = NULL;
    s->dict_first = NULL;
    if (s->bkv != NULL && int_key(s->cur_keys, s->n_keys)) {
        const col_vec *kv = s->cur_keys[0];
        s->cur_kv = int_values(s->probe_arena, kv, in->sel, in->n_sel, in->batch.n_rows);
        if (s->cur_kv == NULL)
            return err_nomem(err);
        for (i = 0; i < in->n_sel; i++) {
            int64_t row = ENGINE_ROW(in->sel, i);
            if (s->dense_head == NULL) /* the dense table needs no hash */
                s->cur_hash[row] = int_hash(s->cur_kv[row]);
            if (!vec_is_valid(kv, row))
                s->lmatched[row] |= 2;
        }
        return SILT_OK;
    }
    {
        silt_status rc;
        if (probe_by_dictionary(s, in, err, &rc))
            return rc;
    }
    for (i = 0; i < in->n_sel; i++) {
        int64_t row = ENGINE_ROW(in->sel, i);
        int has_null;
        uint64_t h = key_hash(s->cur_keys, s->n_keys, row, &has_null);
        /* A NULL key can never match: mark with a hash no bucket walk will accept. */
        s->cur_hash[row] = h;
        if (has_null && s->type != JOIN_CROSS)
            s->lmatched[row] |= 2;
    }
    return SILT_OK;
}

/* Collects up to max pairs from the current chunk. */
static int64_t collect_pairs(join_state *s, int64_t *lrows, int64_t *brows, int64_t max)
{
    int64_t n = 0;
    int stop_at_first = (s->type == JOIN_LEFT_SEMI || s->type == JOIN_LEFT_ANTI) && s->cond == NULL;
    while (s->cur_k < s->cur->n_sel && n < max) {
        int64_t row = ENGINE_ROW(s->cur->sel, s->cur_k);
        int64_t b;
        if (s->lmatched[row] & 2) {
            s->cur_k++;
            continue;
        }
        if (s->type == JOIN_CROSS) {
            b = s->chain < 0 ? 0 : s->chain;
            while (b < s->n_build && n < max) {
                lrows[n] = row;
                brows[n++] = b++;
            }
            if (b < s->n_build) {
                s->chain = b;
                return n;
            }
        } else if (s->dense_head != NULL) {
            int64_t x = s->cur_kv[row] - s->dense_min;
            b = s->chain >= 0 ? s->chain
                : ((uint64_t)x < (uint64_t)s->dense_range ? s->dense_head[x] : -1);
            while (b >= 0 && n < max) {
                lrows[n] = row;
                brows[n++] = b;
                b = stop_at_first ? -1 : s->next_in_chain[b];
            }
            if (b >= 0) {
                s->chain = b;
                return n;
            }
        } else {
            b = s->chain >= 0 ? s->chain : find_key(s, row);
            while (b >= 0 && n < max) {
                lrows[n] = row;
                brows[n++] = b;
                b = stop_at_first ? -1 : s->next_in_chain[b];
            }
            if (b >= 0) {
                s->chain = b;
                return n;
            }
        }
        s->chain = -1;
        s->cur_k++;
    }
    return n;
}

/* Output chunk of n rows: left columns from lrows, right from brows (-1 = NULL). */
static silt_status joined_chunk(engine_op *op, join_state *s, const int64_t *lrows,
                                const int64_t *brows, int64_t n, engine_chunk **out,
                                silt_error *err)
{
    engine_chunk *c;
    size_t col;
    SILT_RETURN_IF_ERROR(engine_chunk_new(&c, op, s->n_left + s->n_right, n, err));
    for (col = 0; col < s->n_left; col++) {
        if (lrows == NULL)
            SILT_RETURN_IF_ERROR(col_vec_new_nulls(&c->batch.cols[col], op->batch_arena,
                                                   op->children[0]->schema->fields[col].type, n, err));
        else
            SILT_RETURN_IF_ERROR(vec_gather(&c->batch.cols[col], op->batch_arena,
                                            s->cur->batch.cols[col], lrows, n, err));
    }
    for (col = 0; col < s->n_right; col++) {
        if (brows == NULL)
            SILT_RETURN_IF_ERROR(col_vec_new_nulls(&c->batch.cols[s->n_left + col], op->batch_arena,
                                                   op->schema->fields[s->n_left + col].type, n,
                                                   err));
        else
            SILT_RETURN_IF_ERROR(gather_build(op, s, col, brows, n, &c->batch.cols[s->n_left + col],
                                              err));
    }
    c->batch.schema = NULL; /* set by the caller for the output schema */
    *out = c;
    return SILT_OK;
}

/* Rows of the current chunk left over at its end: unmatched (left/full/anti) or matched (semi). */
static silt_status chunk_leftovers(engine_op *op, join_state *s, engine_chunk **out,
                                   silt_error *err)
{
    int want_matched = s->type == JOIN_LEFT_SEMI;
    int64_t i, n = 0;
    int32_t *sel = arena_alloc(op->batch_arena, sizeof(int32_t) * (size_t)(s->cur->n_sel ? s->cur->n_sel : 1));
    *out = NULL;
    if (sel == NULL)
        return err_nomem(err);
    for (i = 0; i < s->cur->n_sel; i++) {
        int64_t row = ENGINE_ROW(s->cur->sel, i);
        if (((s->lmatched[row] & 1) != 0) == want_matched)
            sel[n++] = (int32_t)row;
    }
    if (n == 0)
        return SILT_OK;
    if (s->type == JOIN_LEFT_SEMI || s->type == JOIN_LEFT_ANTI) {
        engine_chunk *c = arena_calloc(op->batch_arena, 1, sizeof(*c));
        if (c == NULL)
            return err_nomem(err);
        c->batch = s->cur->batch;
        c->sel = sel;
        c->n_sel = n;
        *out = c;
    } else {
        int64_t *lrows = arena_alloc(op->batch_arena, sizeof(int64_t) * (size_t)n);
        if (lrows == NULL)
            return err_nomem(err);
        for (i = 0; i < n; i++)
            lrows[i] = sel[i];
        SILT_RETURN_IF_ERROR(joined_chunk(op, s, lrows, NULL, n, out, err));
        /* right columns must be NULL: joined_chunk with brows NULL did that */
    }
    return SILT_OK;
}

static silt_status emit_unmatched_build(engine_op *op, join_state *s, engine_chunk **out,
                                        silt_error *err)
{
    int64_t *brows = arena_alloc(op->batch_arena, sizeof(int64_t) * ENGINE_BATCH_ROWS);
    int64_t n = 0;
    *out = NULL;
    if (brows == NULL)
        return err_nomem(err);
    while (s->next_unmatched < s->n_build && n < ENGINE_BATCH_ROWS) {
        if (!s->bmatched[s->next_unmatched])
            brows[n++] = s->next_unmatched;
        s->next_unmatched++;
    }
    if (n == 0)
        return SILT_OK;
    return joined_chunk(op, s, NULL, brows, n, out, err);
}

/* Whether every left row appears at most once, in ascending order. */
static int pairs_unique(const int64_t *lrows, int64_t n)
{
    int64_t i;
    for (i = 1; i < n; i++)
        if (lrows[i] <= lrows[i - 1])
            return 0;
    return 1;
}

/*
 * The pairs of a left chunk whose rows match at most once: the output
 * keeps the left columns as they are (no copy) with the matched rows as
 * its selection, and places the build rows beside them.
 */
static silt_status scatter_pairs(engine_op *op, join_state *s, const int64_t *lrows,
                                 const int64_t *brows, int64_t n, engine_chunk **out,
                                 int *emitted, silt_error *err)
{
    int64_t nr = s->cur->batch.n_rows, i, n_pass = n;
    int64_t *bidx = arena_alloc(op->batch_arena, sizeof(int64_t) * (size_t)(nr ? nr : 1));
    int32_t *sel = arena_alloc(op->batch_arena, sizeof(int32_t) * (size_t)n);
    int32_t *pass = sel;
    engine_chunk *c;
    size_t col;
    int whole;
    *emitted = 0;
    if (bidx == NULL || sel == NULL)
        return err_nomem(err);
    for (i = 0; i < nr; i++)
        bidx[i] = -1;
    for (i = 0; i < n; i++) {
        bidx[lrows[i]] = brows[i];
        sel[i] = (int32_t)lrows[i];
    }
    /* An ordered LEFT join without a condition whose chunk is done: its unmatched rows are
     * live too, with NULL build columns (gather_build, not scatter_build's entry 0). */
    whole = s->ordered && s->type == JOIN_LEFT && s->cond == NULL && s->cur_k >= s->cur->n_sel;
    SILT_RETURN_IF_ERROR(engine_chunk_new(&c, op, s->n_left + s->n_right, nr, err));
    for (col = 0; col < s->n_left; col++)
        c->batch.cols[col] = s->cur->batch.cols[col];
    for (col = 0; col < s->n_right; col++) {
        if (s->bdict != NULL && s->bdict[col] != NULL && !whole)
            SILT_RETURN_IF_ERROR(scatter_build(op, s, col, nr, lrows, brows, n,
                                               &c->batch.cols[s->n_left + col], err));
        else
            SILT_RETURN_IF_ERROR(gather_build(op, s, col, bidx, nr, &c->batch.cols[s->n_left + col],
                                              err));
    }
    if (s->cond != NULL) {
        pass = arena_alloc(op->batch_arena, sizeof(int32_t) * (size_t)n);
        if (pass == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(expr_filter(s->cond, op->ctx, &c->batch, sel, n, op->batch_arena,
                                         pass, &n_pass, err));
    }
    /* Only outer, semi and anti joins read the marks (chunk_leftovers, emit_unmatched_build). */
    for (i = 0; s->type != JOIN_INNER && i < n_pass; i++) {
        s->lmatched[pass[i]] |= 1;
        s->bmatched[bidx[pass[i]]] = 1;
    }
    if (whole) {
        c->sel = s->cur->sel;
        c->n_sel = s->cur->n_sel;
        c->batch.schema = op->schema;
        s->emit_k = s->cur->n_sel;
        *out = c;
        *emitted = 1;
        return SILT_OK;
    }
    if (s->type == JOIN_LEFT_SEMI || s->type == JOIN_LEFT_ANTI || n_pass == 0)
        return SILT_OK;
    /* every row matched: ascending distinct rows of [0, nr) are all of them */
    c->sel = n_pass == nr ? NULL : pass;
    c->n_sel = n_pass;
    c->batch.schema = op->schema;
    *out = c;
    *emitted = 1;
    return SILT_OK;
}

/*
 * An inner join without a condition whose probe key is dictionary-encoded
 * and whose matched build keys each have one row (a dimension table): every
 * left row has at most one pair, so the chunk is joined in one pass over
 * its rows (build row per row, then the matched rows as the selection)
 * instead of collecting pairs. Sets *emitted when the chunk had a match;
 * either way the chunk is done.
 */
static silt_status probe_unique_chunk(engine_op *op, join_state *s, engine_chunk **out,
                                      int *emitted, silt_error *err)
{
    engine_chunk *in = s->cur, *c;
    const col_vec *kv = s->cur_keys[0];
    int64_t nr = in->batch.n_rows, n_entries = kv->dictionary->length, row, k, e, n = 0;
    int64_t *bidx = NULL;
    int32_t *ecode = arena_alloc(op->batch_arena, sizeof(int32_t) * (size_t)(n_entries + 1));
    int32_t *codes = arena_alloc(op->batch_arena, sizeof(int32_t) * (size_t)(nr ? nr : 1));
    const int32_t *sel = in->sel;
    int all_match = kv->validity == NULL || kv->null_count == 0;
    size_t col;
    *emitted = 0;
    if (ecode == NULL || codes == NULL)
        return err_nomem(err);
    /*
     * Per dictionary entry its build row (0 when none: still a valid code),
     * so a row's build row is one lookup; codes of rows outside the
     * selection or NULL are valid entries too (columnar.h).
     */
    for (e = 0; e < n_entries; e++) {
        int64_t b = s->dict_first[e];
        ecode[e] = b < 0 ? 0 : (int32_t)b;
        all_match &= b >= 0;
    }
    for (row = 0; row < nr; row++)
        codes[row] = ecode[s->cur_codes[row]];
    s->cur_k = in->n_sel;
    if (all_match) {
        /* every entry has its build row and no key is NULL: every live row matches */
        n = in->n_sel;
    } else {
        int32_t *keep = arena_alloc(op->batch_arena, sizeof(int32_t) * (size_t)(nr ? nr : 1));
        if (keep == NULL)
            return err_nomem(err);
        for (k = 0; k < in->n_sel; k++) {
            row = ENGINE_ROW(in->sel, k);
            keep[n] = (int32_t)row;
            n += (s->dict_first[s->cur_codes[row]] >= 0) & !(s->lmatched[row] & 2);
        }
        /* ascending distinct rows of [0, nr), n of them: all rows when n == nr */
        sel = n == nr ? NULL : keep;
    }
    if (n == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(engine_chunk_new(&c, op, s->n_left + s->n_right, nr, err));
    for (col = 0; col < s->n_left; col++)
        c->batch.cols[col] = in->batch.cols[col];
    for (col = 0; col < s->n_right; col++) {
        const col_vec *src = s->bcols[col];
        col_vec *v;
        if (s->bdict != NULL && s->bdict[col] != NULL &&
            (src->validity == NULL || src->null_count == 0)) {
            /* A dictionary column without NULLs: the build rows are its codes, shared. */
            v = arena_calloc(op->batch_arena, 1, sizeof(*v));
            if (v == NULL)
                return err_nomem(err);
            v->type = src->type;
            v->length = nr;
            v->values = codes;
            v->dictionary = s->bdict[col];
            c->batch.cols[s->n_left + col] = v;
            continue;
        }
        if (bidx == NULL) {
            bidx = arena_alloc(op->batch_arena, sizeof(int64_t) * (size_t)(nr ? nr : 1));
            if (bidx == NULL)
                return err_nomem(err);
            for (row = 0; row < nr; row++)
                bidx[row] = s->dict_first[s->cur_codes[row]];
        }
        SILT_RETURN_IF_ERROR(
            gather_build(op, s, col, bidx, nr, &c->batch.cols[s->n_left + col], err));
    }
    c->sel = sel;
    c->n_sel = n;
    c->batch.schema = op->schema;
    *out = c;
    *emitted = 1;
    return SILT_OK;
}

/*
 * An ordered LEFT join's output for the rows of the current chunk finished so far (positions
 * emit_k .. cur_k) and the passed pairs (lrows/brows at pass, or all n_pass): each row's pairs,
 * or the row with NULL build columns when it matched nothing, in probe order. The pairs of a
 * row still in progress (at cur_k) come last; its later pairs follow in the next call.
 */
static silt_status ordered_left(engine_op *op, join_state *s, const int64_t *lrows,
                                const int64_t *brows, const int32_t *pass, int64_t n_pass,
                                engine_chunk **out, silt_error *err)
{
    int64_t end = s->cur_k, max = n_pass + (end - s->emit_k) + 1, n = 0, i = 0;
    int64_t *ol = arena_alloc(op->batch_arena, sizeof(int64_t) * (size_t)max);
    int64_t *ob = arena_alloc(op->batch_arena, sizeof(int64_t) * (size_t)max);
    *out = NULL;
    if (ol == NULL || ob == NULL)
        return err_nomem(err);
    for (; s->emit_k < end; s->emit_k++) {
        int64_t r = ENGINE_ROW(s->cur->sel, s->emit_k);
        for (; i < n_pass && lrows[pass ? pass[i] : i] == r; i++) {
            ol[n] = r;
            ob[n++] = brows[pass ? pass[i] : i];
        }
        if (!(s->lmatched[r] & 1)) {
            ol[n] = r;
            ob[n++] = -1;
        }
    }
    for (; i < n_pass; i++) {
        ol[n] = lrows[pass ? pass[i] : i];
        ob[n++] = brows[pass ? pass[i] : i];
    }
    if (n == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(joined_chunk(op, s, ol, ob, n, out, err));
    (*out)->batch.schema = op->schema;
    return SILT_OK;
}

static silt_status join_next(engine_op *op, engine_chunk **out, silt_error *err)
{
    join_state *s = op->state;
    int outer_right = s->type == JOIN_RIGHT || s->type == JOIN_FULL;
    int outer_left = s->type == JOIN_LEFT || s->type == JOIN_FULL;
    int ordered = s->ordered && s->type == JOIN_LEFT;
    if (!s->built)
        SILT_RETURN_IF_ERROR(build(op, s, err));
    if (s->spill != NULL)
        return engine_join_spill_next(s->spill, out, err);
    if (s->cross != NULL)
        return engine_cross_spill_next(s->cross, out, err);
    for (;;) {
        int64_t *lrows, *brows, n, i, max_pairs;
        engine_chunk *c;
        if (s->finishing) {
            SILT_RETURN_IF_ERROR(emit_unmatched_build(op, s, out, err));
            if (*out != NULL)
                (*out)->batch.schema = op->schema;
            return SILT_OK;
        }
        if (s->cur == NULL) {
            engine_chunk *in;
            SILT_RETURN_IF_ERROR(engine_op_next(op->children[0], &in, err));
            if (in == NULL) {
                if (outer_right) {
                    s->finishing = 1;
                    continue;
                }
                *out = NULL;
                return SILT_OK;
            }
            SILT_RETURN_IF_ERROR(start_chunk(op, s, in, err));
            if (s->type == JOIN_INNER && s->cond == NULL && s->dict_first != NULL &&
                s->dict_unique) {
                int emitted;
                SILT_RETURN_IF_ERROR(probe_unique_chunk(op, s, out, &emitted, err));
                s->cur = NULL;
                if (emitted)
                    return SILT_OK;
                continue;
            }
        }
        /*
         * Up to a probe chunk's rows at a time (at least ENGINE_BATCH_ROWS):
         * scatter_pairs spends O(chunk rows) per call, so a chunk of 8192
         * rows with one match each takes one call, not four.
         */
        max_pairs = s->cur->batch.n_rows > ENGINE_BATCH_ROWS ? s->cur->batch.n_rows
                                                             : ENGINE_BATCH_ROWS;
        lrows = arena_alloc(op->batch_arena, sizeof(int64_t) * (size_t)max_pairs);
        brows = arena_alloc(op->batch_arena, sizeof(int64_t) * (size_t)max_pairs);
        if (lrows == NULL || brows == NULL)
            return err_nomem(err);
        n = collect_pairs(s, lrows, brows, max_pairs);
        if (n > 0 && pairs_unique(lrows, n) &&
            (!ordered || (s->cond == NULL && s->cur_k >= s->cur->n_sel))) {
            int emitted = 0;
            SILT_RETURN_IF_ERROR(scatter_pairs(op, s, lrows, brows, n, &c, &emitted, err));
            if (emitted) {
                *out = c;
                return SILT_OK;
            }
        } else if (n > 0) {
            int32_t *pass = NULL;
            int64_t n_pass = n;
            SILT_RETURN_IF_ERROR(joined_chunk(op, s, lrows, brows, n, &c, err));
            if (s->cond != NULL) {
                pass = arena_alloc(op->batch_arena, sizeof(int32_t) * (size_t)n);
                if (pass == NULL)
                    return err_nomem(err);
                SILT_RETURN_IF_ERROR(expr_filter(s->cond, op->ctx, &c->batch, NULL, n,
                                                 op->batch_arena, pass, &n_pass, err));
            }
            for (i = 0; i < n_pass; i++) {
                int64_t p = pass ? pass[i] : i;
                s->lmatched[lrows[p]] |= 1;
                s->bmatched[brows[p]] = 1;
            }
            if (ordered) {
                SILT_RETURN_IF_ERROR(ordered_left(op, s, lrows, brows, pass, n_pass, &c, err));
                if (c != NULL) {
                    *out = c;
                    return SILT_OK;
                }
            } else if (s->type != JOIN_LEFT_SEMI && s->type != JOIN_LEFT_ANTI && n_pass > 0) {
                c->sel = pass;
                c->n_sel = n_pass;
                c->batch.schema = op->schema;
                *out = c;
                return SILT_OK;
            }
        }
        if (s->cur_k >= s->cur->n_sel) {
            engine_chunk *rest = NULL;
            if (ordered)
                SILT_RETURN_IF_ERROR(ordered_left(op, s, NULL, NULL, NULL, 0, &rest, err));
            else if (outer_left || s->type == JOIN_LEFT_SEMI || s->type == JOIN_LEFT_ANTI)
                SILT_RETURN_IF_ERROR(chunk_leftovers(op, s, &rest, err));
            s->cur = NULL;
            if (rest != NULL) {
                rest->batch.schema = op->schema;
                *out = rest;
                return SILT_OK;
            }
        }
    }
}

static silt_status join_open(engine_op *op, silt_error *err)
{
    join_state *s = op->state;
    if (s->keep_built) { /* engine_run_chain's serial fallback after a shared build */
        s->keep_built = 0;
        return SILT_OK;
    }
    s->build_arena = arena_new(op->op_arena, "join_build");
    s->probe_arena = arena_new(op->op_arena, "join_probe");
    if (s->build_arena == NULL || s->probe_arena == NULL)
        return err_nomem(err);
    s->built = 0;
    s->cur = NULL;
    s->finishing = 0;
    s->next_unmatched = 0;
    s->n_build = 0;
    s->spill = NULL;
    s->cross = NULL;
    return SILT_OK;
}

static void join_close(engine_op *op)
{
    join_state *s = op->state;
    engine_join_spill_close(s->spill);
    engine_cross_spill_close(s->cross);
}

static const engine_op_vtable join_vt = {"hash_join", join_open, join_next, join_close, NULL};

void engine_join_set_spill_level(engine_op *join, int level)
{
    ((join_state *)join->state)->spill_level = level;
}

silt_status engine_op_hash_join(engine_op **out, engine_ctx *ctx, engine_op *left,
                                engine_op *right, engine_join_type type, expr **left_keys,
                                expr **right_keys, size_t n_keys, const expr *condition,
                                silt_error *err)
{
    arena *qa = ctx->query_arena;
    size_t n_left = left->schema->n_fields, n_right = right->schema->n_fields, idx;
    int left_only = type == JOIN_LEFT_SEMI || type == JOIN_LEFT_ANTI;
    size_t n_out = left_only ? n_left : n_left + n_right;
    col_field *fields = arena_calloc(qa, n_out ? n_out : 1, sizeof(col_field));
    const col_type *schema;
    join_state *s;
    engine_op *children[2] = {left, right};
    if (fields == NULL)
        return err_nomem(err);
    if (type == JOIN_CROSS && n_keys > 0)
        return err_set(err, SILT_INVALID, "a cross join takes no keys");
    if (type != JOIN_CROSS && n_keys == 0 && condition == NULL)
        return err_set(err, SILT_INVALID, "a hash join needs keys; use a cross join");
    if (condition != NULL && condition->type->id != COL_BOOLEAN)
        return err_set(err, SILT_BIND, "a join condition must be boolean");
    s = NULL;
    for (idx = 0; idx < n_out; idx++) {
        const col_field *f = idx < n_left ? &left->schema->fields[idx]
                                          : &right->schema->fields[idx - n_left];
        fields[idx] = *f;
        /* Outer joins make the other side nullable. */
        if ((idx < n_left && (type == JOIN_RIGHT || type == JOIN_FULL)) ||
            (idx >= n_left && (type == JOIN_LEFT || type == JOIN_FULL)))
            fields[idx].nullable = 1;
    }
    schema = col_type_struct(qa, n_out, fields);
    if (schema == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(engine_op_new_internal(out, ctx, &join_vt, schema, sizeof(join_state),
                                                children, 2, err));
    s = (*out)->state;
    s->type = type;
    s->n_keys = n_keys;
    s->cond = condition;
    s->n_left = n_left;
    s->n_right = n_right;
    s->lkeys = arena_calloc(qa, n_keys ? n_keys : 1, sizeof(expr *));
    s->rkeys = arena_calloc(qa, n_keys ? n_keys : 1, sizeof(expr *));
    if (s->lkeys == NULL || s->rkeys == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_keys; idx++) {
        /* Both sides of a key compare in their common type. */
        const col_type *t = expr_common_type(qa, left_keys[idx]->type, right_keys[idx]->type);
        if (t == NULL || col_type_is_nested(t->id))
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH] join key %zu compares \"%s\" "
                           "with \"%s\"", idx + 1, col_type_id_name(left_keys[idx]->type->id),
                           col_type_id_name(right_keys[idx]->type->id));
        s->lkeys[idx] = left_keys[idx];
        s->rkeys[idx] = right_keys[idx];
        SILT_RETURN_IF_ERROR(expr_coerce(&s->lkeys[idx], qa, t, err));
        SILT_RETURN_IF_ERROR(expr_coerce(&s->rkeys[idx], qa, t, err));
    }
    return SILT_OK;
}

/* ---- shared build side (parallel pipelines) ------------------------------------- */

int engine_join_probe_only(const engine_op *op)
{
    const join_state *s;
    if (op->vt != &join_vt)
        return 0;
    s = op->state;
    return s->type == JOIN_INNER || s->type == JOIN_LEFT || s->type == JOIN_LEFT_SEMI ||
           s->type == JOIN_LEFT_ANTI;
}

silt_status engine_join_build_shared(engine_op *join, silt_error *err)
{
    join_state *s = join->state;
    engine_op *right = join->children[1];
    silt_status rc;
    if (s->built)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(join_open(join, err));
    SILT_RETURN_IF_ERROR(engine_op_open(right, err));
    rc = build(join, s, err);
    engine_op_close(right);
    s->keep_built = rc == SILT_OK;
    return rc;
}

int engine_join_spilled(const engine_op *join)
{
    const join_state *s = join->state;
    return join->vt == &join_vt && (s->spill != NULL || s->cross != NULL);
}

void engine_join_set_ordered(engine_op *join)
{
    if (join->vt == &join_vt)
        ((join_state *)join->state)->ordered = 1;
}

/* A probe clone starts with the shared build table and its own probe state. */
static silt_status clone_open(engine_op *op, silt_error *err)
{
    join_state *s = op->state;
    s->probe_arena = arena_new(op->op_arena, "join_probe");
    /* matches of build rows are not needed by these join types; kept per clone */
    s->bmatched = arena_calloc(op->op_arena, (size_t)(s->n_build ? s->n_build : 1), 1);
    if (s->probe_arena == NULL || s->bmatched == NULL)
        return err_nomem(err);
    s->cur = NULL;
    s->finishing = 0;
    s->next_unmatched = 0;
    return SILT_OK;
}

static const engine_op_vtable clone_vt = {"hash_join", clone_open, join_next, NULL, NULL};

silt_status engine_join_clone_probe(engine_op **out, engine_ctx *ctx, engine_op *join,
                                    engine_op *left, silt_error *err)
{
    join_state *s;
    if (!engine_join_probe_only(join) || !((join_state *)join->state)->built)
        return err_set(err, SILT_INVALID, "only a built inner, left, semi or anti join can be "
                       "probed in parallel");
    SILT_RETURN_IF_ERROR(engine_op_new_internal(out, ctx, &clone_vt, join->schema,
                                                sizeof(join_state), &left, 1, err));
    s = (*out)->state;
    *s = *(join_state *)join->state;
    return SILT_OK;
}
