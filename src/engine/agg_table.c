/*
 * agg_table.c - the aggregation hash table (agg_int.h): group ids for
 * serialized keys, aggregate state arrays and their update, merge and
 * finish steps.
 *
 * Aggregate semantics are Spark's: count(x) and the other aggregates skip
 * NULL inputs (first/last keep them unless ignoreNulls); sum of integers is
 * a long (overflow is [ARITHMETIC_OVERFLOW] in ANSI mode, wraps otherwise),
 * sum of decimal(p,s) is decimal(p+10,s), avg of decimal(p,s) is
 * decimal(p+4,s+4), the rest of avg/stddev/variance are doubles;
 * an aggregate over no rows is NULL (count is 0); stddev_samp/var_samp of
 * one row is NULL. approx_count_distinct is HyperLogLog with 2^9 registers
 * (Spark's default relative error 0.05); its hash is silt's, so estimates
 * are close to Spark's but not bit-identical.
 *
 * percentile and median (exact, interpolated), max_by and min_by keep
 * their group's values like collect_list and answer at finish
 * (finish_percentile_exact, finish_by); they take memory in proportion to
 * their input (charged to the query's limit, not spilled per aggregate).
 */
#include "engine/agg_int.h"
#include "engine/op_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Result type of an aggregate over an argument type (Spark's rules). */
static const col_type *engine_agg_type(arena *a, engine_agg_kind kind, const col_type *arg);

#define HLL_BITS 9

/* Aggregates that keep every value of their group until finish. */
static int keeps_values(engine_agg_kind kind)
{
    return kind == AGG_COLLECT_LIST || kind == AGG_COLLECT_SET || kind == AGG_PERCENTILE_APPROX ||
           kind == AGG_PERCENTILE || kind == AGG_MAX_BY || kind == AGG_MIN_BY ||
           kind == AGG_PERCENTILE_ARRAY || kind == AGG_PERCENTILE_APPROX_ARRAY;
}

static int is_numeric_id(col_type_id id)
{
    return id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG ||
           id == COL_FLOAT || id == COL_DOUBLE || id == COL_DECIMAL;
}
#define HLL_REGS (1 << HLL_BITS)

static const col_type *engine_agg_type(arena *a, engine_agg_kind kind, const col_type *arg)
{
    col_type_id id = arg ? arg->id : COL_NULL;
    switch (kind) {
    case AGG_COUNT_STAR:
    case AGG_COUNT:
    case AGG_APPROX_COUNT_DISTINCT: return col_type_primitive(COL_LONG);
    case AGG_SUM:
        if (id == COL_DECIMAL)
            return col_type_decimal(a, arg->precision + 10 > 38 ? 38 : arg->precision + 10,
                                    arg->scale);
        if (id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG)
            return col_type_primitive(COL_LONG);
        if (id == COL_FLOAT || id == COL_DOUBLE || id == COL_NULL)
            return col_type_primitive(COL_DOUBLE);
        return NULL;
    case AGG_AVG:
        if (id == COL_DECIMAL)
            return col_type_decimal(a, arg->precision + 4 > 38 ? 38 : arg->precision + 4,
                                    arg->scale + 4 > 38 ? 38 : arg->scale + 4);
        if (id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG ||
            id == COL_FLOAT || id == COL_DOUBLE || id == COL_NULL)
            return col_type_primitive(COL_DOUBLE);
        return NULL;
    case AGG_STDDEV_SAMP:
    case AGG_STDDEV_POP:
    case AGG_VAR_SAMP:
    case AGG_VAR_POP:
        if (id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG ||
            id == COL_FLOAT || id == COL_DOUBLE || id == COL_DECIMAL || id == COL_NULL)
            return col_type_primitive(COL_DOUBLE);
        return NULL;
    case AGG_COLLECT_LIST:
    case AGG_COLLECT_SET:
        return arg ? col_type_array(a, arg, 0) : NULL;
    case AGG_PERCENTILE:
        return is_numeric_id(id) || id == COL_NULL ? col_type_primitive(COL_DOUBLE) : NULL;
    case AGG_PERCENTILE_ARRAY:
        return is_numeric_id(id) || id == COL_NULL
                   ? col_type_array(a, col_type_primitive(COL_DOUBLE), 1) : NULL;
    case AGG_PERCENTILE_APPROX_ARRAY: {
        const col_type *one = engine_agg_type(a, AGG_PERCENTILE_APPROX, arg);
        return one != NULL ? col_type_array(a, one, 1) : NULL;
    }
    case AGG_MAX_BY:
    case AGG_MIN_BY:
        /* struct(ordering, value): orderings of a nested type are not comparable here */
        if (id != COL_STRUCT || arg->n_fields != 2 || col_type_is_nested(arg->fields[0].type->id))
            return NULL;
        return arg->fields[1].type;
    case AGG_PERCENTILE_APPROX:
        if (id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG ||
            id == COL_FLOAT || id == COL_DOUBLE || id == COL_DECIMAL || id == COL_DATE ||
            id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ)
            return arg;
        return NULL;
    default: /* min, max, first, last */
        if (arg == NULL || col_type_is_nested(id))
            return NULL;
        return arg;
    }
}

silt_status engine_agg_type_checked(const col_type **out, arena *a, engine_agg_kind kind,
                                    const col_type *arg, silt_error *err)
{
    static const char *const names[] = {
        "count", "count", "sum", "avg", "min", "max", "first", "last", "stddev_samp",
        "stddev_pop", "var_samp", "var_pop", "collect_list", "collect_set",
        "approx_count_distinct", "percentile_approx", "percentile", "max_by", "min_by",
        "percentile", "percentile_approx"};
    const col_type *t = engine_agg_type(a, kind, arg);
    if (t != NULL) {
        *out = t;
        return SILT_OK;
    }
    /* Only the array types of collect_* are allocated: a NULL there is memory. */
    if ((kind == AGG_COLLECT_LIST || kind == AGG_COLLECT_SET) && arg != NULL)
        return err_nomem(err);
    if ((kind == AGG_PERCENTILE_ARRAY && arg != NULL &&
         (is_numeric_id(arg->id) || arg->id == COL_NULL)) ||
        (kind == AGG_PERCENTILE_APPROX_ARRAY && engine_agg_type(a, AGG_PERCENTILE_APPROX, arg)))
        return err_nomem(err);
    if ((kind == AGG_MAX_BY || kind == AGG_MIN_BY) && arg != NULL && arg->id == COL_STRUCT &&
        arg->n_fields == 2)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.INVALID_ORDERING_TYPE] function \"%s\" "
                       "cannot order by a value of type \"%s\"", names[kind],
                       col_type_id_name(arg->fields[0].type->id));
    return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH] function \"%s\" cannot take an argument "
                   "of type \"%s\"", names[kind], arg ? col_type_id_name(arg->id) : "none");
}

/* ---- setup ---------------------------------------------------------------------- */

/* The percentages of a percentile aggregate are within 0.0 .. 1.0 (the array ones non-empty). */
static silt_status check_percentages(const engine_agg *spec, silt_error *err)
{
    int array = spec->kind == AGG_PERCENTILE_ARRAY || spec->kind == AGG_PERCENTILE_APPROX_ARRAY;
    size_t idx, n = array ? spec->n_percentages : 1;
    const double *ps = array ? spec->percentages : &spec->percentage;
    if (spec->kind != AGG_PERCENTILE && spec->kind != AGG_PERCENTILE_APPROX && !array)
        return SILT_OK;
    if (array && (n == 0 || ps == NULL))
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH] the array of percentages is empty");
    for (idx = 0; idx < n; idx++)
        if (!(ps[idx] >= 0.0 && ps[idx] <= 1.0))
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] the percentage "
                           "of %s must be between 0.0 and 1.0",
                           spec->kind == AGG_PERCENTILE || spec->kind == AGG_PERCENTILE_ARRAY
                               ? "percentile" : "percentile_approx");
    return SILT_OK;
}

silt_status engine_agg_table_init(agg_table *t, engine_ctx *ctx, arena *a, size_t n_keys,
                           const col_type **key_types, const engine_agg *aggs, size_t n_aggs,
                           silt_error *err)
{
    size_t idx;
    memset(t, 0, sizeof(*t));
    t->ctx = ctx;
    t->a = a;
    t->n_keys = n_keys;
    t->key_types = key_types;
    t->key_acc = arena_calloc(a, n_keys ? n_keys : 1, sizeof(vec_accum));
    t->aggs = arena_calloc(a, n_aggs ? n_aggs : 1, sizeof(agg_state));
    if (t->key_acc == NULL || t->aggs == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_keys; idx++) {
        if (col_type_is_nested(key_types[idx]->id))
            return err_set(err, SILT_UNSUPPORTED, "grouping by a value of type \"%s\" is not "
                           "supported yet", col_type_id_name(key_types[idx]->id));
        vec_accum_init(&t->key_acc[idx], a, key_types[idx]);
    }
    t->fast = n_keys == 1 && col_type_value_width(key_types[0]->id) > 0 &&
              col_type_value_width(key_types[0]->id) <= 8;
    t->fast_width = n_keys == 1 ? col_type_value_width(key_types[0]->id) : 0;
    t->n_aggs = n_aggs;
    for (idx = 0; idx < n_aggs; idx++) {
        agg_state *s = &t->aggs[idx];
        s->spec = aggs[idx];
        s->in_type = aggs[idx].arg ? aggs[idx].arg->type : NULL;
        /* Types outlive the table: result vectors point at them. */
        SILT_RETURN_IF_ERROR(engine_agg_type_checked(&s->out_type, ctx->query_arena,
                                                     aggs[idx].kind, s->in_type, err));
        if (keeps_values(s->spec.kind))
            vec_accum_init(&s->elems, a, s->in_type);
        SILT_RETURN_IF_ERROR(check_percentages(&s->spec, err));
    }
    t->cap_slots = 1024;
    t->slot_hash = arena_alloc(a, sizeof(uint64_t) * t->cap_slots);
    t->slot_gid = arena_alloc(a, sizeof(int32_t) * t->cap_slots);
    if (t->slot_hash == NULL || t->slot_gid == NULL)
        return err_nomem(err);
    memset(t->slot_gid, 0xff, sizeof(int32_t) * t->cap_slots);
    return SILT_OK;
}

void engine_agg_table_clear(agg_table *t)
{
    size_t idx;
    if (t->ctx != NULL)
        engine_mem_release(t->ctx, t->charged);
    t->charged = 0;
    for (idx = 0; idx < t->n_aggs; idx++)
        hashmap_clear(&t->aggs[idx].distinct);
}

/* Grows an array kept in the table arena from old_n to new_n elements. */
static int grow(arena *a, void **p, size_t elem, int64_t old_n, int64_t new_n, int zero)
{
    void *np;
    if (*p == NULL && !zero)
        zero = 1;
    np = arena_realloc(a, *p, elem * (size_t)old_n, elem * (size_t)new_n);
    if (np == NULL)
        return 0;
    memset((char *)np + elem * (size_t)old_n, 0, elem * (size_t)(new_n - old_n));
    *p = np;
    return 1;
}

static silt_status grow_groups(agg_table *t, silt_error *err)
{
    int64_t old = t->cap_groups, cap = old ? old * 2 : 256;
    size_t idx;
    int ok = grow(t->a, (void **)&t->gkey, sizeof(*t->gkey), old, cap, 1) &&
             grow(t->a, (void **)&t->gkey_len, sizeof(*t->gkey_len), old, cap, 1) &&
             (!t->fast || (grow(t->a, (void **)&t->gval, 8, old, cap, 1) &&
                           grow(t->a, (void **)&t->gvalid, 1, old, cap, 1)));
    for (idx = 0; idx < t->n_aggs && ok; idx++) {
        agg_state *s = &t->aggs[idx];
        size_t width = s->in_type ? col_type_value_width(s->in_type->id) : 0;
        switch (s->spec.kind) {
        case AGG_COUNT_STAR:
        case AGG_COUNT: ok = grow(t->a, (void **)&s->cnt, 8, old, cap, 1); break;
        case AGG_SUM:
        case AGG_AVG:
            ok = grow(t->a, (void **)&s->cnt, 8, old, cap, 1) &&
                 grow(t->a, (void **)&s->isum, 8, old, cap, 1) &&
                 grow(t->a, (void **)&s->dsum, 8, old, cap, 1) &&
                 grow(t->a, (void **)&s->dec, 16, old, cap, 1);
            break;
        case AGG_STDDEV_SAMP:
        case AGG_STDDEV_POP:
        case AGG_VAR_SAMP:
        case AGG_VAR_POP:
            ok = grow(t->a, (void **)&s->cnt, 8, old, cap, 1) &&
                 grow(t->a, (void **)&s->dsum, 8, old, cap, 1) &&
                 grow(t->a, (void **)&s->m2, 8, old, cap, 1);
            break;
        case AGG_APPROX_COUNT_DISTINCT:
            ok = grow(t->a, (void **)&s->hll, HLL_REGS, old, cap, 1);
            break;
        case AGG_COLLECT_LIST:
        case AGG_COLLECT_SET:
        case AGG_PERCENTILE_APPROX: break;
        default:
            ok = grow(t->a, (void **)&s->has, 1, old, cap, 1) &&
                 grow(t->a, (void **)&s->isnull, 1, old, cap, 1) &&
                 (width == 0 || grow(t->a, (void **)&s->val, width, old, cap, 1)) &&
                 grow(t->a, (void **)&s->sptr, sizeof(char *), old, cap, 1) &&
                 grow(t->a, (void **)&s->slen, 4, old, cap, 1);
            break;
        }
    }
    if (!ok)
        return err_nomem(err);
    t->cap_groups = cap;
    return SILT_OK;
}

static silt_status grow_slots(agg_table *t, silt_error *err)
{
    size_t cap = t->cap_slots * 2, mask = cap - 1, idx;
    uint64_t *hashes = arena_alloc(t->a, sizeof(uint64_t) * cap);
    int32_t *gids = arena_alloc(t->a, sizeof(int32_t) * cap);
    if (hashes == NULL || gids == NULL)
        return err_nomem(err);
    memset(gids, 0xff, sizeof(int32_t) * cap);
    for (idx = 0; idx < t->cap_slots; idx++) {
        size_t slot;
        if (t->slot_gid[idx] < 0)
            continue;
        slot = t->slot_hash[idx] & mask;
        while (gids[slot] >= 0)
            slot = (slot + 1) & mask;
        gids[slot] = t->slot_gid[idx];
        hashes[slot] = t->slot_hash[idx];
    }
    t->slot_hash = hashes;
    t->slot_gid = gids;
    t->cap_slots = cap;
    return SILT_OK;
}

/* ---- keys ---------------------------------------------------------------------- */

static int is_varlen(col_type_id id) { return id == COL_STRING || id == COL_BINARY; }

/* Bytes of a fixed-width value with floats normalized (-0.0 = 0.0, one NaN). */
static void fixed_bytes(const col_vec *v, int64_t row, size_t width, uint8_t *dst)
{
    if (v->type->id == COL_DOUBLE) {
        double d = ((const double *)v->values)[row];
        if (d == 0)
            d = 0;
        if (d != d)
            d = __builtin_nan("");
        memcpy(dst, &d, 8);
    } else if (v->type->id == COL_FLOAT) {
        float f = ((const float *)v->values)[row];
        if (f == 0)
            f = 0;
        if (f != f)
            f = __builtin_nanf("");
        memcpy(dst, &f, 4);
    } else {
        memcpy(dst, (const char *)v->values + width * (size_t)row, width);
    }
}

/* Finds or adds the group of a serialized key; *is_new tells which. */
/* Hash of a fast-mode key: its value and whether it is set (inline: it runs per row). */
static inline uint64_t fast_hash(int64_t value, int valid)
{
    uint64_t h = (uint64_t)value * 0x9E3779B97F4A7C15ull + (uint64_t)valid;
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    return h;
}

/* The 64-bit value of a serialized fast-mode key (1 + width bytes, or 1 for NULL). */
static int64_t fast_value(const agg_table *t, const uint8_t *key, int32_t len)
{
    int64_t v = 0;
    if (len > 1)
        memcpy(&v, key + 1, t->fast_width);
    return v;
}

/*
 * Several keys (or one string/decimal key) hash column by column: a hash
 * per key value, combined in key order, so that a batch's rows hash one
 * column at a time (multi_hashes) and a serialized key (merge, find,
 * dictionary entries) hashes to the same value by walking its columns.
 */
#define NULL_KEY_HASH 0x2545F4914F6CDD1Dull

static inline uint64_t hash_combine(uint64_t h, uint64_t c)
{
    h = (h ^ c) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 32);
}

/* Hash of one fixed-width key value given as its (normalized) bytes. */
static inline uint64_t fixed_key_hash(const uint8_t *p, size_t width)
{
    uint64_t x = 0;
    if (width > 8)
        return util_hash_bytes(p, width, 0x5eed);
    memcpy(&x, p, width);
    return fast_hash((int64_t)x, 1);
}

static inline uint64_t str_key_hash(const char *p, int32_t len)
{
    return util_hash_bytes(p, (size_t)len, 0x5eed);
}

/* The column-wise hash of a serialized key (as serialize writes it). */
static uint64_t serialized_hash(const agg_table *t, const uint8_t *key, int32_t len)
{
    uint64_t h = (uint64_t)t->n_keys;
    size_t col, pos = 0;
    for (col = 0; col < t->n_keys && pos < (size_t)len; col++) {
        col_type_id id = t->key_types[col]->id;
        if (key[pos++] == 0) {
            h = hash_combine(h, NULL_KEY_HASH);
        } else if (is_varlen(id)) {
            int32_t sl;
            memcpy(&sl, key + pos, 4);
            h = hash_combine(h, str_key_hash((const char *)key + pos + 4, sl));
            pos += 4 + (size_t)sl;
        } else {
            size_t width = col_type_value_width(id);
            h = hash_combine(h, fixed_key_hash(key + pos, width));
            pos += width;
        }
    }
    return h;
}

static uint64_t key_hash(const agg_table *t, const uint8_t *key, int32_t len)
{
    if (t->fast)
        return fast_hash(fast_value(t, key, len), len > 1);
    return serialized_hash(t, key, len);
}

static silt_status new_group(agg_table *t, const uint8_t *key, int32_t len, uint64_t h,
                             size_t slot, int32_t *gid_out, silt_error *err);

static silt_status find_group(agg_table *t, const uint8_t *key, int32_t len, int32_t *gid_out,
                              int *is_new, silt_error *err)
{
    uint64_t h = key_hash(t, key, len);
    size_t mask = t->cap_slots - 1, slot = h & mask;
    int32_t gid;
    while ((gid = t->slot_gid[slot]) >= 0) {
        if (t->slot_hash[slot] == h && t->gkey_len[gid] == len &&
            memcmp(t->gkey[gid], key, (size_t)len) == 0) {
            *gid_out = gid;
            *is_new = 0;
            return SILT_OK;
        }
        slot = (slot + 1) & mask;
    }
    *is_new = 1;
    return new_group(t, key, len, h, slot, gid_out, err);
}

/* Adds a group for a key not in the table; slot is its free probe slot. */
static silt_status new_group(agg_table *t, const uint8_t *key, int32_t len, uint64_t h,
                             size_t slot, int32_t *gid_out, silt_error *err)
{
    int32_t gid;
    if (t->n_groups >= INT32_MAX - 1)
        return err_set(err, SILT_NOMEM, "aggregation has more than %d groups", INT32_MAX - 1);
    if (t->n_groups == t->cap_groups)
        SILT_RETURN_IF_ERROR(grow_groups(t, err));
    gid = (int32_t)t->n_groups++;
    t->gkey[gid] = arena_memdup(t->a, key, (size_t)(len ? len : 1));
    if (t->gkey[gid] == NULL)
        return err_nomem(err);
    t->gkey_len[gid] = len;
    if (t->fast) {
        t->gval[gid] = fast_value(t, key, len);
        t->gvalid[gid] = len > 1;
    }
    t->slot_gid[slot] = gid;
    t->slot_hash[slot] = h;
    SILT_RETURN_IF_ERROR(engine_mem_charge(t->ctx, len + 64, "aggregation", err));
    t->charged += len + 64;
    if ((size_t)t->n_groups * 2 > t->cap_slots)
        SILT_RETURN_IF_ERROR(grow_slots(t, err));
    *gid_out = gid;
    return SILT_OK;
}

/*
 * Group ids of one fixed-width key column: hash and compare the value as
 * an int64, with no serialization. New groups still store their bytes so
 * that merging and finishing treat both modes alike.
 */
/* Probes one value; -1 when it is not in the table yet (*slot_out = its free slot). */
static inline int32_t fast_probe(const agg_table *t, int64_t x, int valid, uint64_t h,
                                 size_t *slot_out)
{
    size_t mask = t->cap_slots - 1, slot = h & mask;
    int32_t g;
    while ((g = t->slot_gid[slot]) >= 0) {
        if (t->slot_hash[slot] == h && t->gval[g] == x && t->gvalid[g] == valid)
            break;
        slot = (slot + 1) & mask;
    }
    *slot_out = slot;
    return g;
}

static silt_status fast_insert(agg_table *t, int64_t x, int valid, uint64_t h, size_t slot,
                               int32_t *g, silt_error *err)
{
    uint8_t key[9];
    key[0] = (uint8_t)valid;
    memcpy(key + 1, &x, t->fast_width);
    return new_group(t, key, valid ? 1 + (int32_t)t->fast_width : 1, h, slot, g, err);
}

/*
 * The common INT/LONG key without NULLs: small non-negative values go
 * through the direct map, the others through the hash table.
 */
#define FAST_LOOP(T, CAST)                                                                         \
    do {                                                                                           \
        const T *kvals = kv->values;                                                               \
        for (k = 0; k < n_sel; k++) {                                                              \
            int64_t row = ENGINE_ROW(sel, k), x = (int64_t)(CAST)kvals[row];                       \
            uint64_t h;                                                                            \
            size_t slot;                                                                           \
            int32_t g;                                                                             \
            if ((uint64_t)x < AGG_DIRECT_KEYS && (g = t->direct[x]) >= 0) {                        \
                gid[row] = g;                                                                      \
                continue;                                                                          \
            }                                                                                      \
            h = fast_hash(x, 1);                                                                   \
            g = fast_probe(t, x, 1, h, &slot);                                                     \
            if (g < 0) {                                                                           \
                SILT_RETURN_IF_ERROR(fast_insert(t, x, 1, h, slot, &g, err));                      \
                new_rows[(*n_new)++] = (int32_t)row;                                               \
            }                                                                                      \
            if ((uint64_t)x < AGG_DIRECT_KEYS)                                                     \
                t->direct[x] = g;                                                                  \
            gid[row] = g;                                                                          \
        }                                                                                          \
    } while (0)

static silt_status fast_groups(agg_table *t, const col_vec *kv, const int32_t *sel,
                               int64_t n_sel, int32_t *gid, int32_t *new_rows, int64_t *n_new,
                               arena *scratch, silt_error *err)
{
    int64_t k;
    col_type_id id = kv->type->id;
    (void)scratch;
    int no_nulls = kv->validity == NULL || kv->null_count == 0;
    if (t->direct == NULL && no_nulls) {
        t->direct = arena_alloc(t->a, sizeof(int32_t) * AGG_DIRECT_KEYS);
        if (t->direct == NULL)
            return err_nomem(err);
        memset(t->direct, 0xff, sizeof(int32_t) * AGG_DIRECT_KEYS);
    }
    if (no_nulls && (id == COL_INT || id == COL_DATE)) {
        FAST_LOOP(int32_t, uint32_t);
        return SILT_OK;
    }
    if (no_nulls && (id == COL_LONG || id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ)) {
        FAST_LOOP(int64_t, int64_t);
        return SILT_OK;
    }
    for (k = 0; k < n_sel; k++) {
        int64_t row = ENGINE_ROW(sel, k), x = 0;
        int valid = vec_is_valid(kv, row);
        uint64_t h;
        size_t mask = t->cap_slots - 1, slot;
        int32_t g;
        if (valid) {
            if (id == COL_INT || id == COL_DATE)
                x = (uint32_t)((const int32_t *)kv->values)[row];
            else if (id == COL_LONG || id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ)
                x = ((const int64_t *)kv->values)[row];
            else
                fixed_bytes(kv, row, t->fast_width, (uint8_t *)&x);
        }
        h = fast_hash(x, valid);
        slot = h & mask;
        while ((g = t->slot_gid[slot]) >= 0) {
            if (t->slot_hash[slot] == h && t->gval[g] == x && t->gvalid[g] == valid)
                break;
            slot = (slot + 1) & mask;
        }
        if (g < 0) {
            uint8_t key[9];
            key[0] = (uint8_t)valid;
            memcpy(key + 1, &x, t->fast_width);
            SILT_RETURN_IF_ERROR(new_group(t, key, valid ? 1 + (int32_t)t->fast_width : 1, h,
                                           slot, &g, err));
            new_rows[(*n_new)++] = (int32_t)row;
        }
        gid[row] = g;
    }
    return SILT_OK;
}

/* The group of dictionary entry c (first used by row), found by its serialized bytes. */
static silt_status dict_entry_group(agg_table *t, const col_vec *d, int32_t c, int64_t row,
                                    int32_t *dmap, int32_t *g, int32_t *new_rows, int64_t *n_new,
                                    arena *scratch, silt_error *err)
{
    int32_t len = d->offsets[c + 1] - d->offsets[c];
    uint8_t *key = arena_alloc(scratch, (size_t)len + 5);
    int is_new;
    if (key == NULL)
        return err_nomem(err);
    key[0] = 1;
    memcpy(key + 1, &len, 4);
    if (len > 0)
        memcpy(key + 5, d->data + d->offsets[c], (size_t)len);
    SILT_RETURN_IF_ERROR(find_group(t, key, len + 5, g, &is_new, err));
    if (is_new)
        new_rows[(*n_new)++] = (int32_t)row;
    dmap[c] = *g;
    return SILT_OK;
}

/*
 * One dictionary-encoded STRING/BINARY key: an entry's group is looked up
 * (by its serialized bytes, as for plain vectors, so both kinds of batch
 * share groups) on the first row that uses it, and every other row takes
 * its code's group. The dictionary belongs to the batch, so the map does too.
 */
static silt_status dict_groups(agg_table *t, const col_vec *kv, const int32_t *sel,
                               int64_t n_sel, int dense, int32_t *gid, int32_t *new_rows,
                               int64_t *n_new, arena *scratch, silt_error *err)
{
    const col_vec *d = kv->dictionary;
    const int32_t *codes = kv->values;
    int32_t *dmap = arena_alloc(scratch, sizeof(int32_t) * (size_t)(d->length ? d->length : 1));
    int has_nulls = kv->validity != NULL && kv->null_count != 0;
    int32_t null_g = -1;
    int64_t k;
    if (dmap == NULL)
        return err_nomem(err);
    memset(dmap, 0xff, sizeof(int32_t) * (size_t)(d->length ? d->length : 1));
    if (!has_nulls) {
        /* Codes checked in one pass; then a row costs a load, a lookup and a store. */
        uint32_t bad = 0, len = (uint32_t)d->length;
        if (dense) /* all rows live: a straight pass the compiler vectorizes */
            for (k = 0; k < n_sel; k++)
                bad |= (uint32_t)codes[k] >= len;
        else
            for (k = 0; k < n_sel; k++)
                bad |= (uint32_t)codes[sel[k]] >= len;
        for (k = 0; k < n_sel && !bad; k++) {
            int64_t row = sel[k];
            int32_t g = dmap[codes[row]];
            if (g < 0)
                SILT_RETURN_IF_ERROR(dict_entry_group(t, d, codes[row], row, dmap, &g,
                                                      new_rows, n_new, scratch, err));
            gid[row] = g;
        }
        if (!bad)
            return SILT_OK;
    }
    for (k = 0; k < n_sel; k++) {
        int64_t row = ENGINE_ROW(sel, k);
        int32_t c, g;
        int is_new = 0;
        if (has_nulls && !col_bit_get(kv->validity, row)) {
            if (null_g < 0) {
                SILT_RETURN_IF_ERROR(find_group(t, (const uint8_t *)"", 1, &null_g, &is_new, err));
                if (is_new)
                    new_rows[(*n_new)++] = (int32_t)row;
            }
            gid[row] = null_g;
            continue;
        }
        c = codes[row];
        if (c < 0 || c >= d->length)
            return err_set(err, SILT_INVALID, "dictionary code %d of row %lld is outside a "
                           "dictionary of %lld entries", c, (long long)row, (long long)d->length);
        g = dmap[c];
        if (g < 0)
            SILT_RETURN_IF_ERROR(dict_entry_group(t, d, c, row, dmap, &g, new_rows, n_new,
                                                  scratch, err));
        gid[row] = g;
    }
    return SILT_OK;
}

/* ---- aggregation by dictionary code ------------------------------------------------ */

/*
 * Largest dictionary the code path sums into: its per-code arrays are
 * zeroed per batch, so they stay small next to the batch (and in cache).
 */
#define AGG_CODE_MAX_ENTRIES 4096

/* Whether aggregate idx of t can be summed per dictionary code (code_aggregate). */
static int code_agg_fits(const agg_state *s, const col_vec *arg, const col_vec *filter)
{
    if (s->spec.distinct || filter != NULL)
        return 0;
    if (arg != NULL && arg->validity != NULL && arg->null_count != 0)
        return 0;
    switch (s->spec.kind) {
    case AGG_COUNT_STAR:
    case AGG_COUNT: return 1;
    case AGG_SUM:
    case AGG_AVG: return arg != NULL && arg->type->id == COL_DOUBLE && arg->dictionary == NULL;
    default: return 0;
    }
}

/* The live row k of a batch: its selection entry, or k itself without one. */
#define CODE_ROW(sel, k) ((sel) != NULL ? (int64_t)(sel)[k] : (int64_t)(k))

/*
 * The live rows of a batch counted per dictionary code into cnt (n_codes
 * entries), and first[u] the first row of the u-th code used, in row order
 * (so groups keep their order of first appearance). Two halves of cnt
 * (n_codes + 1 entries each: the last takes codes outside the dictionary
 * without a branch) count alternate rows, so consecutive rows with one code
 * do not wait on each other's store. Returns 0 when a code is outside the
 * dictionary (the row path then reports it).
 */
static int count_codes(const int32_t *codes, uint32_t n_codes, const int32_t *sel, int64_t n_sel,
                       int64_t *cnt, uint8_t *seen, int32_t *first, int64_t *n_first)
{
    int64_t *c0 = cnt, *c1 = cnt + n_codes + 1, k, n_used = 0;
    uint32_t c;
    for (k = 0; k + 2 <= n_sel; k += 2) {
        uint32_t x = (uint32_t)codes[CODE_ROW(sel, k)];
        uint32_t y = (uint32_t)codes[CODE_ROW(sel, k + 1)];
        c0[x < n_codes ? x : n_codes]++;
        c1[y < n_codes ? y : n_codes]++;
    }
    if (k < n_sel) {
        uint32_t x = (uint32_t)codes[CODE_ROW(sel, k)];
        c0[x < n_codes ? x : n_codes]++;
    }
    if (c0[n_codes] != 0 || c1[n_codes] != 0)
        return 0;
    for (c = 0; c < n_codes; c++) {
        c0[c] += c1[c];
        n_used += c0[c] != 0;
    }
    /* The first rows of the codes used: a prefix of the batch in practice. */
    *n_first = 0;
    for (k = 0; k < n_sel && *n_first < n_used; k++) {
        int64_t row = CODE_ROW(sel, k);
        c = (uint32_t)codes[row];
        if (!seen[c]) {
            seen[c] = 1;
            first[(*n_first)++] = (int32_t)row;
        }
    }
    return 1;
}

/*
 * Sums of a double argument per code into sum (2 * n_codes entries: two
 * halves for alternate rows, as in count_codes), codes already checked.
 */
static void sum_codes(const int32_t *codes, int64_t n_codes, const double *xv,
                      const int32_t *sel, int64_t n_sel, double *sum)
{
    double *s0 = sum, *s1 = sum + n_codes;
    int64_t k;
    for (k = 0; k + 2 <= n_sel; k += 2) {
        int64_t x = CODE_ROW(sel, k), y = CODE_ROW(sel, k + 1);
        s0[codes[x]] += xv[x];
        s1[codes[y]] += xv[y];
    }
    if (k < n_sel)
        s0[codes[CODE_ROW(sel, k)]] += xv[CODE_ROW(sel, k)];
    for (k = 0; k < n_codes; k++)
        s0[k] += s1[k];
}

/*
 * One dictionary-encoded STRING/BINARY key without NULLs, and only
 * count(*), count(x) and sum/avg of doubles, none with NULL arguments,
 * FILTER or DISTINCT: the rows of a batch are counted and summed per
 * dictionary code into small arrays (no group id per row), and each code
 * used touches the table once. A code's partial sum is added to its
 * group's as one term: the order of the additions changes, as it does
 * between Spark's partitions. *done is 0 when the batch does not qualify
 * and nothing was added.
 */
static silt_status code_aggregate(agg_table *t, const col_vec *kv, const int32_t *sel,
                                  int64_t n_sel, col_vec **args, col_vec **filters,
                                  arena *scratch, int *done, silt_error *err)
{
    const col_vec *d = kv->dictionary;
    int64_t n_codes = d->length, n_first = 0, n_new = 0, u;
    int64_t *cnt;
    int32_t *first, *dmap, *new_rows;
    uint8_t *seen;
    double **sums;
    size_t idx;
    *done = 0;
    if (n_codes == 0 || n_codes > AGG_CODE_MAX_ENTRIES || n_codes > n_sel ||
        (kv->validity != NULL && kv->null_count != 0))
        return SILT_OK;
    for (idx = 0; idx < t->n_aggs; idx++)
        if (!code_agg_fits(&t->aggs[idx], args ? args[idx] : NULL,
                           filters ? filters[idx] : NULL))
            return SILT_OK;
    cnt = arena_calloc(scratch, 2 * (size_t)n_codes + 2, sizeof(int64_t));
    seen = arena_calloc(scratch, (size_t)n_codes, 1);
    first = arena_alloc(scratch, sizeof(int32_t) * (size_t)n_codes);
    dmap = arena_alloc(scratch, sizeof(int32_t) * (size_t)n_codes);
    new_rows = arena_alloc(scratch, sizeof(int32_t) * (size_t)n_codes);
    sums = arena_calloc(scratch, t->n_aggs ? t->n_aggs : 1, sizeof(double *));
    if (cnt == NULL || seen == NULL || first == NULL || dmap == NULL || new_rows == NULL ||
        sums == NULL)
        return err_nomem(err);
    if (!count_codes(kv->values, (uint32_t)n_codes, sel, n_sel, cnt, seen, first, &n_first))
        return SILT_OK;
    for (idx = 0; idx < t->n_aggs; idx++) {
        if (t->aggs[idx].spec.kind != AGG_SUM && t->aggs[idx].spec.kind != AGG_AVG)
            continue;
        sums[idx] = arena_calloc(scratch, 2 * (size_t)n_codes, sizeof(double));
        if (sums[idx] == NULL)
            return err_nomem(err);
        sum_codes(kv->values, n_codes, args[idx]->values, sel, n_sel, sums[idx]);
    }
    *done = 1;
    for (u = 0; u < n_first; u++) {
        int32_t row = first[u], c = ((const int32_t *)kv->values)[row], g;
        SILT_RETURN_IF_ERROR(
            dict_entry_group(t, d, c, row, dmap, &g, new_rows, &n_new, scratch, err));
        for (idx = 0; idx < t->n_aggs; idx++) {
            agg_state *s = &t->aggs[idx];
            s->cnt[g] += cnt[c];
            if (sums[idx] != NULL)
                s->dsum[g] += sums[idx][c];
        }
    }
    return vec_accum_add(&t->key_acc[0], kv, new_rows, n_new, err);
}

/* ---- several keys ----------------------------------------------------------------- */

/*
 * Combines key column v's hash into h[k] for every live row. A dictionary
 * string column hashes each entry once when the batch uses most of them.
 */
static silt_status column_hashes(const col_vec *v, const int32_t *sel, int64_t n_sel,
                                 uint64_t *h, arena *scratch, silt_error *err)
{
    col_type_id id = v->type->id;
    size_t width = col_type_value_width(id);
    int nulls = v->validity != NULL && v->null_count != 0;
    int64_t k;
    if (nulls && v->null_count >= v->length) { /* a key outside a grouping set */
        for (k = 0; k < n_sel; k++)
            h[k] = hash_combine(h[k], NULL_KEY_HASH);
        return SILT_OK;
    }
    if (is_varlen(id) && v->dictionary != NULL) {
        const col_vec *d = v->dictionary;
        const int32_t *codes = v->values;
        uint64_t *dh = NULL;
        if (d->length <= n_sel) {
            dh = arena_alloc(scratch, sizeof(uint64_t) * (size_t)(d->length ? d->length : 1));
            if (dh == NULL)
                return err_nomem(err);
            for (k = 0; k < d->length; k++)
                dh[k] = str_key_hash(d->data + d->offsets[k], d->offsets[k + 1] - d->offsets[k]);
        }
        for (k = 0; k < n_sel; k++) {
            int64_t row = ENGINE_ROW(sel, k);
            int32_t c = codes[row];
            if (nulls && !col_bit_get(v->validity, row)) {
                h[k] = hash_combine(h[k], NULL_KEY_HASH);
                continue;
            }
            if (c < 0 || c >= d->length)
                return err_set(err, SILT_INVALID, "dictionary code %d of row %lld is outside a "
                               "dictionary of %lld entries", c, (long long)row,
                               (long long)d->length);
            h[k] = hash_combine(h[k], dh != NULL ? dh[c]
                                      : str_key_hash(d->data + d->offsets[c],
                                                     d->offsets[c + 1] - d->offsets[c]));
        }
        return SILT_OK;
    }
    for (k = 0; k < n_sel; k++) {
        int64_t row = ENGINE_ROW(sel, k);
        uint64_t c;
        if (nulls && !col_bit_get(v->validity, row)) {
            c = NULL_KEY_HASH;
        } else if (id == COL_INT || id == COL_DATE) {
            c = fast_hash((int64_t)(uint32_t)((const int32_t *)v->values)[row], 1);
        } else if (id == COL_LONG || id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ) {
            c = fast_hash(((const int64_t *)v->values)[row], 1);
        } else if (is_varlen(id)) {
            c = str_key_hash(v->data + v->offsets[row], v->offsets[row + 1] - v->offsets[row]);
        } else {
            uint8_t tmp[16];
            fixed_bytes(v, row, width, tmp);
            c = fixed_key_hash(tmp, width);
        }
        h[k] = hash_combine(h[k], c);
    }
    return SILT_OK;
}

/* Whether row `row` of the key columns equals a group's serialized key, compared typed. */
static int keys_equal(const agg_table *t, col_vec **keys, int64_t row, const uint8_t *key,
                      int32_t len)
{
    size_t col, pos = 0;
    for (col = 0; col < t->n_keys; col++) {
        const col_vec *v = keys[col];
        col_type_id id = v->type->id;
        if (pos >= (size_t)len)
            return 0;
        if (!vec_is_valid(v, row)) {
            if (key[pos++] != 0)
                return 0;
            continue;
        }
        if (key[pos++] != 1)
            return 0;
        if (id == COL_INT || id == COL_DATE) {
            int32_t x;
            memcpy(&x, key + pos, 4);
            if (x != ((const int32_t *)v->values)[row])
                return 0;
            pos += 4;
        } else if (id == COL_LONG || id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ) {
            int64_t x;
            memcpy(&x, key + pos, 8);
            if (x != ((const int64_t *)v->values)[row])
                return 0;
            pos += 8;
        } else if (is_varlen(id)) {
            int32_t sl, kl;
            const char *s = col_vec_str(v, row, &sl);
            memcpy(&kl, key + pos, 4);
            if (kl != sl || (sl > 0 && memcmp(key + pos + 4, s, (size_t)sl) != 0))
                return 0;
            pos += 4 + (size_t)sl;
        } else {
            size_t width = col_type_value_width(id);
            uint8_t tmp[16];
            fixed_bytes(v, row, width, tmp);
            if (memcmp(key + pos, tmp, width) != 0)
                return 0;
            pos += width;
        }
    }
    return pos == (size_t)len;
}

/* Serializes one row's keys (the bytes serialize writes) for a new group. */
static silt_status serialize_row(const agg_table *t, col_vec **keys, int64_t row, buf *out,
                                 silt_error *err)
{
    size_t col;
    buf_truncate(out, 0);
    for (col = 0; col < t->n_keys; col++) {
        const col_vec *v = keys[col];
        uint8_t head[1 + 16];
        size_t width = col_type_value_width(v->type->id);
        if (!vec_is_valid(v, row)) {
            head[0] = 0;
            SILT_RETURN_IF_ERROR(buf_append(out, head, 1, err));
        } else if (is_varlen(v->type->id)) {
            int32_t sl;
            const char *s = col_vec_str(v, row, &sl);
            head[0] = 1;
            memcpy(head + 1, &sl, 4);
            SILT_RETURN_IF_ERROR(buf_append(out, head, 5, err));
            SILT_RETURN_IF_ERROR(buf_append(out, s, (size_t)sl, err));
        } else {
            head[0] = 1;
            fixed_bytes(v, row, width, head + 1);
            SILT_RETURN_IF_ERROR(buf_append(out, head, 1 + width, err));
        }
    }
    return SILT_OK;
}

/*
 * Group ids of several key columns (or one that is neither fixed-width nor
 * dictionary-encoded): hashes column by column, probes, compares the row's
 * values with the group's key typed, and serializes a row's keys only when
 * it starts a new group.
 */
static silt_status multi_groups(agg_table *t, col_vec **keys, const int32_t *sel, int64_t n_sel,
                                int32_t *gid, int32_t *new_rows, int64_t *n_new, arena *scratch,
                                silt_error *err)
{
    uint64_t *h = arena_alloc(scratch, sizeof(uint64_t) * (size_t)(n_sel ? n_sel : 1));
    int64_t k;
    size_t col;
    buf key;
    silt_status st = SILT_OK;
    if (h == NULL)
        return err_nomem(err);
    for (k = 0; k < n_sel; k++)
        h[k] = (uint64_t)t->n_keys;
    for (col = 0; col < t->n_keys; col++)
        SILT_RETURN_IF_ERROR(column_hashes(keys[col], sel, n_sel, h, scratch, err));
    buf_init(&key, BUF_DEFAULT_LIMIT);
    for (k = 0; k < n_sel && st == SILT_OK; k++) {
        int64_t row = ENGINE_ROW(sel, k);
        size_t mask = t->cap_slots - 1, slot = h[k] & mask;
        int32_t g;
        while ((g = t->slot_gid[slot]) >= 0) {
            if (t->slot_hash[slot] == h[k] && keys_equal(t, keys, row, t->gkey[g], t->gkey_len[g]))
                break;
            slot = (slot + 1) & mask;
        }
        if (g < 0) {
            st = serialize_row(t, keys, row, &key, err);
            if (st == SILT_OK)
                st = new_group(t, (const uint8_t *)key.data, (int32_t)key.len, h[k], slot, &g,
                               err);
            new_rows[(*n_new)++] = (int32_t)row;
        }
        gid[row] = g;
    }
    buf_clear(&key);
    return st;
}

/* ---- updates ------------------------------------------------------------------- */

/* Bytes identifying a value, for DISTINCT and HyperLogLog. */
static const void *value_key(const col_vec *v, int64_t row, uint8_t *tmp, int32_t *len_out)
{
    if (is_varlen(v->type->id))
        return col_vec_str(v, row, len_out);
    *len_out = (int32_t)col_type_value_width(v->type->id);
    fixed_bytes(v, row, (size_t)*len_out, tmp);
    return tmp;
}

/* A fixed-width value of at most 8 bytes goes into the agg_state's own set. */
static int dset_fits(const col_type *t)
{
    size_t w = col_type_value_width(t->id);
    return !is_varlen(t->id) && w > 0 && w <= 8;
}

static inline uint64_t norm_double_bits(double d)
{
    uint64_t x;
    if (d == 0)
        d = 0;
    if (d != d)
        d = __builtin_nan("");
    memcpy(&x, &d, 8);
    return x;
}

/* The value bits of row r, floats normalized as for group keys (-0.0 = 0.0, one NaN). */
static inline uint64_t dset_bits(const col_vec *v, int64_t r, size_t w)
{
    uint64_t x = 0;
    if (v->type->id == COL_DOUBLE) {
        x = norm_double_bits(((const double *)v->values)[r]);
    } else {
        fixed_bytes(v, r, w, (uint8_t *)&x);
    }
    return x;
}

static inline uint64_t dset_hash(uint64_t x, int32_t g)
{
    return fast_hash((int64_t)(x ^ ((uint64_t)(uint32_t)g * 0xC2B2AE3D27D4EB4Full)), 1);
}

static silt_status dset_grow(agg_table *t, agg_state *s, silt_error *err)
{
    size_t cap = s->dset_cap ? s->dset_cap * 2 : 1024, mask = cap - 1, idx;
    agg_dslot *slots = arena_alloc(t->a, sizeof(agg_dslot) * cap);
    int64_t bytes = (int64_t)(cap * sizeof(agg_dslot));
    if (slots == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(engine_mem_charge(t->ctx, bytes, "count(DISTINCT)", err));
    t->charged += bytes;
    for (idx = 0; idx < cap; idx++)
        slots[idx].gid = -1;
    for (idx = 0; idx < s->dset_cap; idx++) {
        size_t slot;
        if (s->dset[idx].gid < 0)
            continue;
        slot = dset_hash(s->dset[idx].val, s->dset[idx].gid) & mask;
        while (slots[slot].gid >= 0)
            slot = (slot + 1) & mask;
        slots[slot] = s->dset[idx];
    }
    s->dset = slots;
    s->dset_cap = cap;
    return SILT_OK;
}

/* Adds (g, x) to the set; *is_new = 0 when it was there already. */
static inline silt_status dset_insert(agg_table *t, agg_state *s, uint64_t x, int32_t g,
                                      int *is_new, silt_error *err)
{
    size_t mask, slot;
    if ((s->dset_n + 1) * 2 > s->dset_cap)
        SILT_RETURN_IF_ERROR(dset_grow(t, s, err));
    mask = s->dset_cap - 1;
    slot = dset_hash(x, g) & mask;
    while (s->dset[slot].gid >= 0) {
        if (s->dset[slot].val == x && s->dset[slot].gid == g) {
            *is_new = 0;
            return SILT_OK;
        }
        slot = (slot + 1) & mask;
    }
    s->dset[slot].gid = g;
    s->dset[slot].val = x;
    s->dset_n++;
    *is_new = 1;
    return SILT_OK;
}

/*
 * The probe loop of dset_filter, per value type. The set grows (at half
 * full) only when a value is new, which is the rare case when values repeat.
 */
#define DSET_LOOP(BITS)                                                                            \
    for (k = 0; k < n; k++) {                                                                      \
        int64_t row = rows[k];                                                                     \
        int32_t g = gid[row], sg;                                                                  \
        uint64_t x = BITS;                                                                         \
        size_t slot = dset_hash(x, g) & mask;                                                      \
        while ((sg = slots[slot].gid) >= 0 && !(slots[slot].val == x && sg == g))                  \
            slot = (slot + 1) & mask;                                                              \
        if (sg >= 0)                                                                               \
            continue;                                                                              \
        if ((s->dset_n + 1) * 2 > s->dset_cap) {                                                   \
            if (dset_grow(t, s, err) != SILT_OK)                                                   \
                return -1;                                                                         \
            slots = s->dset;                                                                       \
            mask = s->dset_cap - 1;                                                                \
            slot = dset_hash(x, g) & mask;                                                         \
            while (slots[slot].gid >= 0)                                                           \
                slot = (slot + 1) & mask;                                                          \
        }                                                                                          \
        slots[slot].gid = g;                                                                       \
        slots[slot].val = x;                                                                       \
        s->dset_n++;                                                                               \
        rows[m++] = (int32_t)row;                                                                  \
    }

/* Keeps the rows whose (group, value) the fixed-width set lacks; -1 (err set) on failure. */
static int64_t dset_filter(agg_table *t, agg_state *s, const col_vec *arg, const int32_t *gid,
                           int32_t *rows, int64_t n, silt_error *err)
{
    int64_t k, m = 0;
    size_t mask, w = col_type_value_width(arg->type->id);
    agg_dslot *slots;
    if (s->dset_cap == 0 && dset_grow(t, s, err) != SILT_OK)
        return -1;
    mask = s->dset_cap - 1;
    slots = s->dset;
    if (arg->type->id == COL_DOUBLE) {
        const double *xv = arg->values;
        DSET_LOOP(norm_double_bits(xv[row]))
    } else if (w == 8) {
        const uint64_t *xv = arg->values;
        DSET_LOOP(xv[row])
    } else if (arg->type->id == COL_INT || arg->type->id == COL_DATE) {
        const uint32_t *xv = arg->values;
        DSET_LOOP((uint64_t)xv[row])
    } else {
        DSET_LOOP(dset_bits(arg, row, w))
    }
    return m;
}

/* The key of a (group, value) pair in the byte-keyed set: the group's 4 bytes, then the value. */
static silt_status distinct_key(buf *key, int32_t g, const void *p, int32_t len, silt_error *err)
{
    buf_truncate(key, 0);
    SILT_RETURN_IF_ERROR(buf_append(key, &g, 4, err));
    return buf_append(key, p, (size_t)len, err);
}

/* Dictionaries larger than this are not tracked by code (a byte per entry per reset). */
#define AGG_MAX_SEEN_CODES (1 << 20)

/*
 * count(DISTINCT x) without groups over a dictionary-encoded column (a
 * Parquet scan's vector with codes, columnar.h): of the rows sharing a
 * code only the first can hold a value new to the set, so the others are
 * dropped before the probe. A batch of another dictionary starts afresh
 * (its values may repeat those of the last one; the set sorts that out).
 * The table runs on one thread, so seen_code needs no lock.
 */
static silt_status distinct_codes(agg_table *t, agg_state *s, const col_vec *arg,
                                  int32_t *rows, int64_t *n, silt_error *err)
{
    const uint32_t *codes = arg->codes;
    uint8_t *seen;
    int64_t k, m = 0;
    if (s->seen_dict != arg->codes_dict) {
        if (arg->codes_card > s->seen_cap) {
            int64_t cap = arg->codes_card > 4096 ? arg->codes_card : 4096;
            s->seen_code = arena_alloc(t->a, (size_t)cap);
            if (s->seen_code == NULL)
                return err_nomem(err);
            SILT_RETURN_IF_ERROR(engine_mem_charge(t->ctx, cap, "count(DISTINCT)", err));
            t->charged += cap;
            s->seen_cap = cap;
        }
        memset(s->seen_code, 0, (size_t)arg->codes_card);
        s->seen_dict = arg->codes_dict;
    }
    seen = s->seen_code;
    for (k = 0; k < *n; k++) {
        int32_t row = rows[k];
        uint32_t c = codes[row];
        rows[m] = row;
        m += !seen[c];
        seen[c] = 1;
    }
    *n = m;
    return SILT_OK;
}

/* Whether a DISTINCT argument's rows can be narrowed by their dictionary codes first. */
static int distinct_by_codes(const agg_table *t, const col_vec *arg)
{
    return t->n_keys == 0 && arg->codes != NULL && arg->codes_dict != 0 &&
           arg->codes_card > 0 && arg->codes_card <= AGG_MAX_SEEN_CODES;
}

/* Keeps only rows whose (group, value) was not seen before. */
static silt_status distinct_rows(agg_table *t, agg_state *s, const col_vec *arg,
                                 const int32_t *gid, int32_t *rows, int64_t *n, silt_error *err)
{
    int64_t k, m = 0;
    buf key = BUF_INIT;
    silt_status rc = SILT_OK;
    if (distinct_by_codes(t, arg)) {
        SILT_RETURN_IF_ERROR(distinct_codes(t, s, arg, rows, n, err));
        if (*n == 0)
            return SILT_OK;
    }
    if (dset_fits(arg->type)) {
        *n = dset_filter(t, s, arg, gid, rows, *n, err);
        return *n < 0 ? err->code : SILT_OK;
    }
    for (k = 0; k < *n && rc == SILT_OK; k++) {
        int64_t row = rows[k];
        uint8_t tmp[16];
        int32_t len;
        const void *p = value_key(arg, row, tmp, &len);
        void *old;
        rc = distinct_key(&key, gid[row], p, len, err);
        if (rc == SILT_OK && !hashmap_get(&s->distinct, key.data, key.len, &old)) {
            rc = hashmap_put(&s->distinct, key.data, key.len, NULL, NULL, err);
            rows[m++] = (int32_t)row;
        }
    }
    buf_clear(&key);
    *n = m;
    return rc;
}

#define SUM_LOOP(T)                                                                                \
    do {                                                                                           \
        const T *xv = arg->values;                                                                 \
        if (global) {                                                                              \
            /* One group: accumulate in a register. */                                             \
            int64_t acc = s->isum[0];                                                              \
            for (k = 0; k < n; k++)                                                                \
                ovf |= __builtin_add_overflow(acc, (int64_t)xv[rows[k]], &acc);                    \
            s->isum[0] = acc;                                                                      \
            s->cnt[0] += n;                                                                        \
            break;                                                                                 \
        }                                                                                          \
        for (k = 0; k < n; k++) {                                                                  \
            int64_t r = rows[k];                                                                   \
            int32_t g = gid[r];                                                                    \
            ovf |= __builtin_add_overflow(s->isum[g], (int64_t)xv[r], &s->isum[g]);                \
            s->cnt[g]++;                                                                           \
        }                                                                                          \
    } while (0)

static silt_status update_sum(agg_table *t, agg_state *s, const col_vec *arg, const int32_t *gid,
                              const int32_t *rows, int64_t n, silt_error *err)
{
    int64_t k;
    int ovf = 0;
    col_type_id id = arg->type->id;
    int as_double = s->spec.kind == AGG_AVG && id != COL_DECIMAL;
    int global = t->n_keys == 0;
    if (id == COL_DECIMAL) {
        for (k = 0; k < n; k++) {
            int32_t g = gid[rows[k]];
            ovf |= __builtin_add_overflow(s->dec[g], vec_get_dec(arg, rows[k]), &s->dec[g]);
            s->cnt[g]++;
        }
    } else if (id == COL_DOUBLE && global) {
        /*
         * Four partial sums: one chain of dependent additions waits on the
         * adder's latency for every row. The order of additions changes,
         * as it does between Spark's partitions.
         */
        const double *xv = arg->values;
        double acc = s->dsum[0], p0 = 0, p1 = 0, p2 = 0, p3 = 0;
        for (k = 0; k + 4 <= n; k += 4) {
            p0 += xv[rows[k]];
            p1 += xv[rows[k + 1]];
            p2 += xv[rows[k + 2]];
            p3 += xv[rows[k + 3]];
        }
        for (; k < n; k++)
            p0 += xv[rows[k]];
        acc += (p0 + p1) + (p2 + p3);
        s->dsum[0] = acc;
        s->cnt[0] += n;
    } else if (id == COL_DOUBLE) {
        const double *xv = arg->values;
        for (k = 0; k < n; k++) {
            int64_t r = rows[k];
            int32_t g = gid[r];
            s->dsum[g] += xv[r];
            s->cnt[g]++;
        }
    } else if (id == COL_DOUBLE || id == COL_FLOAT || as_double) {
        for (k = 0; k < n; k++) {
            int64_t r = rows[k];
            int32_t g = gid[r];
            s->dsum[g] += id == COL_DOUBLE ? ((const double *)arg->values)[r]
                          : id == COL_FLOAT ? ((const float *)arg->values)[r]
                                            : (double)vec_get_int(arg, r);
            s->cnt[g]++;
        }
    } else if (id == COL_LONG) {
        SUM_LOOP(int64_t);
    } else if (id == COL_INT) {
        SUM_LOOP(int32_t);
    } else if (id == COL_SHORT) {
        SUM_LOOP(int16_t);
    } else if (id == COL_BYTE) {
        SUM_LOOP(int8_t);
    } else if (id == COL_NULL) {
        return SILT_OK;
    }
    if (ovf && t->ctx->ansi)
        return err_set(err, SILT_RUNTIME, "[ARITHMETIC_OVERFLOW] sum overflows \"%s\"",
                       col_type_id_name(id == COL_DECIMAL ? COL_DECIMAL : COL_LONG));
    return SILT_OK;
}

static int keep_value(agg_state *s, int cmp_result)
{
    return s->spec.kind == AGG_MIN ? cmp_result < 0 : cmp_result > 0;
}

/* Stores row r of arg as the value of group g (min/max/first/last). */
static silt_status store_value(agg_table *t, agg_state *s, const col_vec *arg, int64_t r,
                               int32_t g, silt_error *err)
{
    s->has[g] = 1;
    if (!vec_is_valid(arg, r)) {
        s->isnull[g] = 1;
        return SILT_OK;
    }
    s->isnull[g] = 0;
    if (is_varlen(arg->type->id)) {
        int32_t len;
        const char *p = col_vec_str(arg, r, &len);
        char *copy = arena_memdup(t->a, p, (size_t)(len ? len : 1));
        if (copy == NULL)
            return err_nomem(err);
        s->sptr[g] = copy;
        s->slen[g] = len;
    } else {
        size_t width = col_type_value_width(arg->type->id);
        memcpy(s->val + width * (size_t)g, (const char *)arg->values + width * (size_t)r, width);
    }
    return SILT_OK;
}

/* Compares row r of arg with the stored value of group g. */
static int compare_stored(const agg_state *s, const col_vec *arg, int64_t r, int32_t g)
{
    col_type_id id = arg->type->id;
    size_t width = col_type_value_width(id);
    const void *stored = s->val + width * (size_t)g;
    switch (id) {
    case COL_STRING:
    case COL_BINARY: {
        int32_t len;
        const char *p = col_vec_str(arg, r, &len);
        int32_t m = len < s->slen[g] ? len : s->slen[g];
        int c = m > 0 ? memcmp(p, s->sptr[g], (size_t)m) : 0;
        return c != 0 ? c : (len > s->slen[g]) - (len < s->slen[g]);
    }
    case COL_FLOAT: {
        float f;
        memcpy(&f, stored, 4);
        return engine_cmp_double(((const float *)arg->values)[r], f);
    }
    case COL_DOUBLE: {
        double d;
        memcpy(&d, stored, 8);
        return engine_cmp_double(((const double *)arg->values)[r], d);
    }
    case COL_DECIMAL: {
        col_int128 x = vec_get_dec(arg, r), y;
        memcpy(&y, stored, 16);
        return (x > y) - (x < y);
    }
    default: {
        int64_t x = vec_get_int(arg, r), y = 0;
        switch (width) {
        case 1: y = *(const int8_t *)stored; break;
        case 2: y = *(const int16_t *)stored; break;
        case 4: y = *(const int32_t *)stored; break;
        default: memcpy(&y, stored, 8); break;
        }
        return (x > y) - (x < y);
    }
    }
}

static silt_status update_minmax(agg_table *t, agg_state *s, const col_vec *arg,
                                 const int32_t *gid, const int32_t *rows, int64_t n,
                                 silt_error *err)
{
    int64_t k;
    col_type_id id = arg->type->id;
    if (id == COL_LONG || id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ) {
        /* The common case gets its own loop. */
        const int64_t *xv = arg->values;
        int64_t *val = (int64_t *)(void *)s->val;
        int is_min = s->spec.kind == AGG_MIN;
        for (k = 0; k < n; k++) {
            int64_t r = rows[k], x = xv[r];
            int32_t g = gid[r];
            if (!s->has[g] || (is_min ? x < val[g] : x > val[g])) {
                val[g] = x;
                s->has[g] = 1;
            }
        }
        return SILT_OK;
    }
    if (id == COL_DOUBLE && t->n_keys == 0) {
        /*
         * Spark's order makes NaN the largest value: max is NaN once any NaN
         * was seen, min is NaN only when nothing else was. Written with
         * selects rather than branches, since the data decides them.
         */
        const double *xv = arg->values;
        double *val = (double *)(void *)s->val;
        int had = s->has[0], had_nan = had && val[0] != val[0];
        if (s->spec.kind == AGG_MAX) {
            double best = had && !had_nan ? val[0] : -__builtin_inf();
            int any_nan = had_nan;
            for (k = 0; k < n; k++) {
                double x = xv[rows[k]];
                any_nan |= x != x;
                best = x > best ? x : best;
            }
            val[0] = any_nan ? __builtin_nan("") : best;
        } else {
            double best = had && !had_nan ? val[0] : __builtin_inf();
            int only_nan = !had || had_nan;
            for (k = 0; k < n; k++) {
                double x = xv[rows[k]];
                only_nan &= x != x;
                best = x < best ? x : best;
            }
            val[0] = only_nan ? __builtin_nan("") : best;
        }
        s->has[0] = 1;
        return SILT_OK;
    }
    if (id == COL_DOUBLE) {
        const double *xv = arg->values;
        double *val = (double *)(void *)s->val;
        int want = s->spec.kind == AGG_MIN ? -1 : 1;
        for (k = 0; k < n; k++) {
            int64_t r = rows[k];
            int32_t g = gid[r];
            if (!s->has[g] || engine_cmp_double(xv[r], val[g]) == want) {
                val[g] = xv[r];
                s->has[g] = 1;
            }
        }
        return SILT_OK;
    }
    for (k = 0; k < n; k++) {
        int64_t r = rows[k];
        int32_t g = gid[r];
        if (!s->has[g] || keep_value(s, compare_stored(s, arg, r, g)))
            SILT_RETURN_IF_ERROR(store_value(t, s, arg, r, g, err));
    }
    return SILT_OK;
}

static double as_double(const col_vec *v, int64_t r)
{
    switch (v->type->id) {
    case COL_FLOAT:
    case COL_DOUBLE: return vec_get_double(v, r);
    case COL_DECIMAL: {
        col_int128 x = vec_get_dec(v, r);
        return (double)x / pow(10, v->type->scale);
    }
    default: return (double)vec_get_int(v, r);
    }
}

static uint8_t hll_rho(uint64_t w)
{
    /* Position of the first 1 bit in the 64 - HLL_BITS remaining bits. */
    int rho = w == 0 ? 64 - HLL_BITS + 1 : __builtin_clzll(w) + 1;
    return (uint8_t)(rho > 64 - HLL_BITS + 1 ? 64 - HLL_BITS + 1 : rho);
}

/* Folds rows[0..n) of arg into the state (DISTINCT already applied). */
static silt_status update_values(agg_table *t, agg_state *s, const col_vec *arg,
                                 const int32_t *gid, const int32_t *rows, int64_t n,
                                 silt_error *err)
{
    int64_t k;
    if (n == 0)
        return SILT_OK;
    switch (s->spec.kind) {
    case AGG_COUNT_STAR:
    case AGG_COUNT:
        if (t->n_keys == 0) {
            s->cnt[0] += n;
            return SILT_OK;
        }
        for (k = 0; k < n; k++)
            s->cnt[gid[rows[k]]]++;
        return SILT_OK;
    case AGG_SUM:
    case AGG_AVG: return update_sum(t, s, arg, gid, rows, n, err);
    case AGG_MIN:
    case AGG_MAX: return update_minmax(t, s, arg, gid, rows, n, err);
    case AGG_FIRST:
        for (k = 0; k < n; k++)
            if (!s->has[gid[rows[k]]])
                SILT_RETURN_IF_ERROR(store_value(t, s, arg, rows[k], gid[rows[k]], err));
        return SILT_OK;
    case AGG_LAST:
        for (k = 0; k < n; k++)
            SILT_RETURN_IF_ERROR(store_value(t, s, arg, rows[k], gid[rows[k]], err));
        return SILT_OK;
    case AGG_STDDEV_SAMP:
    case AGG_STDDEV_POP:
    case AGG_VAR_SAMP:
    case AGG_VAR_POP:
        /* Welford's update: numerically stable and mergeable (Chan et al.). */
        for (k = 0; k < n; k++) {
            int32_t g = gid[rows[k]];
            double x = as_double(arg, rows[k]), delta;
            s->cnt[g]++;
            delta = x - s->dsum[g];
            s->dsum[g] += delta / (double)s->cnt[g];
            s->m2[g] += delta * (x - s->dsum[g]);
        }
        return SILT_OK;
    case AGG_APPROX_COUNT_DISTINCT:
        for (k = 0; k < n; k++) {
            /* Spark's hash and seed, so that the registers (and estimates) are Spark's. */
            uint64_t h = engine_spark_xxhash64(arg, rows[k], 42);
            uint8_t *regs = s->hll + (size_t)gid[rows[k]] * HLL_REGS;
            size_t idx = (size_t)(h >> (64 - HLL_BITS));
            uint8_t rho = hll_rho(h << HLL_BITS);
            if (rho > regs[idx])
                regs[idx] = rho;
        }
        return SILT_OK;
    case AGG_COLLECT_LIST:
    case AGG_COLLECT_SET:
    case AGG_PERCENTILE_APPROX:
    case AGG_PERCENTILE:
    case AGG_PERCENTILE_ARRAY:
    case AGG_PERCENTILE_APPROX_ARRAY:
    case AGG_MAX_BY:
    case AGG_MIN_BY: {
        if (s->n_elems + n > s->cap_elems) {
            int64_t cap = s->cap_elems ? s->cap_elems : 1024;
            while (cap < s->n_elems + n)
                cap *= 2;
            if (!grow(t->a, (void **)&s->elem_gid, 4, s->cap_elems, cap, 0))
                return err_nomem(err);
            s->cap_elems = cap;
        }
        for (k = 0; k < n; k++)
            s->elem_gid[s->n_elems + k] = gid[rows[k]];
        s->n_elems += n;
        SILT_RETURN_IF_ERROR(engine_mem_charge(t->ctx, 16 * n, "collect_list", err));
        t->charged += 16 * n;
        return vec_accum_add(&s->elems, arg, rows, n, err);
    }
    }
    return SILT_OK;
}

static silt_status update_agg(agg_table *t, agg_state *s, const col_vec *arg, const int32_t *gid,
                              int32_t *rows, int64_t n, silt_error *err)
{
    if (n > 0 && s->spec.distinct && arg != NULL)
        SILT_RETURN_IF_ERROR(distinct_rows(t, s, arg, gid, rows, &n, err));
    return update_values(t, s, arg, gid, rows, n, err);
}

/*
 * Without keys every row is in group 0: one zeroed array, kept by the table
 * and grown to the largest batch, serves every batch instead of a fresh one.
 */
static silt_status global_gids(agg_table *t, int64_t n_rows, int32_t **gid, silt_error *err)
{
    if (n_rows > t->cap_zero_gid) {
        int64_t cap = n_rows > 4096 ? n_rows : 4096;
        t->zero_gid = arena_calloc(t->a, (size_t)cap, sizeof(int32_t));
        if (t->zero_gid == NULL)
            return err_nomem(err);
        t->cap_zero_gid = cap;
    }
    *gid = t->zero_gid;
    return SILT_OK;
}

silt_status engine_agg_table_add(agg_table *t, int64_t n_rows, const int32_t *sel, int64_t n_sel,
                          col_vec **keys, col_vec **args, col_vec **filters, arena *scratch,
                          silt_error *err)
{
    int64_t k, n_new = 0;
    int32_t *gid = arena_alloc(scratch, sizeof(int32_t) * (size_t)(n_rows ? n_rows : 1));
    int32_t *new_rows = arena_alloc(scratch, sizeof(int32_t) * (size_t)(n_sel ? n_sel : 1));
    int32_t *rows = arena_alloc(scratch, sizeof(int32_t) * (size_t)(n_sel ? n_sel : 1));
    size_t idx;
    if (gid == NULL || new_rows == NULL || rows == NULL)
        return err_nomem(err);
    if (t->n_keys == 1 && keys[0]->dictionary != NULL && is_varlen(keys[0]->type->id)) {
        int done;
        SILT_RETURN_IF_ERROR(
            code_aggregate(t, keys[0], sel, n_sel, args, filters, scratch, &done, err));
        if (done)
            return SILT_OK;
    }
    int dense = sel == NULL;
    if (sel == NULL && n_sel > 0) {
        /* Every row is live: one identity selection serves all the aggregates below. */
        int32_t *all = arena_alloc(scratch, sizeof(int32_t) * (size_t)n_sel);
        if (all == NULL)
            return err_nomem(err);
        for (k = 0; k < n_sel; k++)
            all[k] = (int32_t)k;
        sel = all;
    }
    if (t->n_keys == 0) {
        if (t->n_groups == 0) {
            int is_new;
            int32_t g;
            SILT_RETURN_IF_ERROR(find_group(t, (const uint8_t *)"", 0, &g, &is_new, err));
        }
        SILT_RETURN_IF_ERROR(global_gids(t, n_rows, &gid, err));
    } else if (t->n_keys == 1 && keys[0]->dictionary != NULL && is_varlen(keys[0]->type->id)) {
        SILT_RETURN_IF_ERROR(
            dict_groups(t, keys[0], sel, n_sel, dense, gid, new_rows, &n_new, scratch, err));
        SILT_RETURN_IF_ERROR(vec_accum_add(&t->key_acc[0], keys[0], new_rows, n_new, err));
    } else if (t->fast) {
        SILT_RETURN_IF_ERROR(
            fast_groups(t, keys[0], sel, n_sel, gid, new_rows, &n_new, scratch, err));
        SILT_RETURN_IF_ERROR(vec_accum_add(&t->key_acc[0], keys[0], new_rows, n_new, err));
    } else {
        SILT_RETURN_IF_ERROR(
            multi_groups(t, keys, sel, n_sel, gid, new_rows, &n_new, scratch, err));
        for (idx = 0; idx < t->n_keys; idx++)
            SILT_RETURN_IF_ERROR(vec_accum_add(&t->key_acc[idx], keys[idx], new_rows, n_new, err));
    }
    for (idx = 0; idx < t->n_aggs; idx++) {
        agg_state *s = &t->aggs[idx];
        const col_vec *arg = args ? args[idx] : NULL;
        const col_vec *f = filters ? filters[idx] : NULL;
        int keep_nulls = (s->spec.kind == AGG_FIRST || s->spec.kind == AGG_LAST) &&
                         !s->spec.ignore_nulls;
        int64_t n = 0;
        if (f == NULL && sel != NULL && !s->spec.distinct &&
            (arg == NULL || keep_nulls || arg->validity == NULL || arg->null_count == 0)) {
            /* Every live row counts: use the selection as it is. */
            SILT_RETURN_IF_ERROR(update_agg(t, s, arg, gid, (int32_t *)sel, n_sel, err));
            continue;
        }
        if (f == NULL && (arg == NULL || keep_nulls || arg->validity == NULL ||
                          arg->null_count == 0)) {
            /* Every live row counts, but DISTINCT filters the list in place: a copy. */
            if (n_sel > 0)
                memcpy(rows, sel, sizeof(int32_t) * (size_t)n_sel);
            SILT_RETURN_IF_ERROR(update_agg(t, s, arg, gid, rows, n_sel, err));
            continue;
        }
        for (k = 0; k < n_sel; k++) {
            int64_t row = ENGINE_ROW(sel, k);
            if (f != NULL && !(vec_is_valid(f, row) && ((const uint8_t *)f->values)[row]))
                continue;
            if (arg != NULL && !keep_nulls && !vec_is_valid(arg, row))
                continue;
            rows[n++] = (int32_t)row;
        }
        SILT_RETURN_IF_ERROR(update_agg(t, s, arg, gid, rows, n, err));
    }
    return SILT_OK;
}

/*
 * Probes the table for the group of each live row without adding: the
 * column-wise hash and typed comparison of multi_groups, or the one-value
 * hash of the fast mode, so a row finds the group its keys would make.
 */
silt_status engine_agg_table_find(agg_table *t, const int32_t *sel, int64_t n_sel, col_vec **keys,
                           arena *scratch, int32_t *found, int64_t *n_found, int32_t *missing,
                           int64_t *n_missing, silt_error *err)
{
    uint64_t *h = arena_alloc(scratch, sizeof(uint64_t) * (size_t)(n_sel ? n_sel : 1));
    int64_t k;
    size_t col;
    *n_found = 0;
    *n_missing = 0;
    if (h == NULL)
        return err_nomem(err);
    if (t->fast) {
        for (k = 0; k < n_sel; k++) {
            int64_t row = ENGINE_ROW(sel, k), x = 0;
            int valid = vec_is_valid(keys[0], row);
            if (valid)
                fixed_bytes(keys[0], row, t->fast_width, (uint8_t *)&x);
            h[k] = fast_hash(x, valid);
        }
    } else {
        for (k = 0; k < n_sel; k++)
            h[k] = (uint64_t)t->n_keys;
        for (col = 0; col < t->n_keys; col++)
            SILT_RETURN_IF_ERROR(column_hashes(keys[col], sel, n_sel, h, scratch, err));
    }
    for (k = 0; k < n_sel; k++) {
        int64_t row = ENGINE_ROW(sel, k);
        size_t mask = t->cap_slots - 1, slot = h[k] & mask;
        int32_t gid;
        while ((gid = t->slot_gid[slot]) >= 0) {
            if (t->slot_hash[slot] == h[k] &&
                keys_equal(t, keys, row, t->gkey[gid], t->gkey_len[gid]))
                break;
            slot = (slot + 1) & mask;
        }
        if (gid >= 0)
            found[(*n_found)++] = (int32_t)row;
        else
            missing[(*n_missing)++] = (int32_t)row;
    }
    return SILT_OK;
}

/* ---- merge ------------------------------------------------------------------------- */

static silt_status merge_state(agg_table *t, agg_state *d, agg_table *src, agg_state *s,
                               const int32_t *map, silt_error *err)
{
    int64_t g;
    for (g = 0; g < src->n_groups; g++) {
        int32_t dg = map[g];
        switch (s->spec.kind) {
        case AGG_COUNT_STAR:
        case AGG_COUNT: d->cnt[dg] += s->cnt[g]; break;
        case AGG_SUM:
        case AGG_AVG:
            if (__builtin_add_overflow(d->isum[dg], s->isum[g], &d->isum[dg]) && t->ctx->ansi)
                return err_set(err, SILT_RUNTIME, "[ARITHMETIC_OVERFLOW] sum overflows \"long\"");
            d->dsum[dg] += s->dsum[g];
            d->dec[dg] += s->dec[g];
            d->cnt[dg] += s->cnt[g];
            break;
        case AGG_STDDEV_SAMP:
        case AGG_STDDEV_POP:
        case AGG_VAR_SAMP:
        case AGG_VAR_POP: {
            double na = (double)d->cnt[dg], nb = (double)s->cnt[g], n = na + nb, delta;
            if (nb == 0)
                break;
            delta = s->dsum[g] - d->dsum[dg];
            d->dsum[dg] += delta * nb / n;
            d->m2[dg] += s->m2[g] + delta * delta * na * nb / n;
            d->cnt[dg] += s->cnt[g];
            break;
        }
        case AGG_APPROX_COUNT_DISTINCT: {
            size_t idx;
            uint8_t *dr = d->hll + (size_t)dg * HLL_REGS, *sr = s->hll + (size_t)g * HLL_REGS;
            for (idx = 0; idx < HLL_REGS; idx++)
                if (sr[idx] > dr[idx])
                    dr[idx] = sr[idx];
            break;
        }
        case AGG_COLLECT_LIST:
        case AGG_COLLECT_SET:
        case AGG_PERCENTILE_APPROX:
        case AGG_PERCENTILE:
        case AGG_PERCENTILE_ARRAY:
        case AGG_PERCENTILE_APPROX_ARRAY:
        case AGG_MAX_BY:
        case AGG_MIN_BY: break; /* below, all at once */
        default: {
            int take;
            if (!s->has[g])
                break;
            if (s->spec.kind == AGG_FIRST)
                take = !d->has[dg];
            else if (s->spec.kind == AGG_LAST)
                take = 1;
            else if (!d->has[dg])
                take = 1;
            else if (is_varlen(s->in_type->id)) {
                int32_t m = s->slen[g] < d->slen[dg] ? s->slen[g] : d->slen[dg];
                int c = m > 0 ? memcmp(s->sptr[g], d->sptr[dg], (size_t)m) : 0;
                if (c == 0)
                    c = (s->slen[g] > d->slen[dg]) - (s->slen[g] < d->slen[dg]);
                take = keep_value(s, c);
            } else {
                /* Compare through a one-row view of the source value. */
                col_vec view;
                memset(&view, 0, sizeof(view));
                view.type = s->in_type;
                view.length = 1;
                view.values = s->val + col_type_value_width(s->in_type->id) * (size_t)g;
                take = keep_value(s, compare_stored(d, &view, 0, dg));
            }
            if (take) {
                size_t width = col_type_value_width(s->in_type->id);
                d->has[dg] = 1;
                d->isnull[dg] = s->isnull[g];
                if (width > 0)
                    memcpy(d->val + width * (size_t)dg, s->val + width * (size_t)g, width);
                d->sptr[dg] = s->sptr[g];
                d->slen[dg] = s->slen[g];
            }
            break;
        }
        }
    }
    if (keeps_values(s->spec.kind)) {
        col_vec *elems;
        int64_t k;
        SILT_RETURN_IF_ERROR(vec_accum_finish(&s->elems, &elems, err));
        if (d->n_elems + s->n_elems > d->cap_elems) {
            int64_t cap = d->cap_elems ? d->cap_elems : 1024;
            while (cap < d->n_elems + s->n_elems)
                cap *= 2;
            if (!grow(t->a, (void **)&d->elem_gid, 4, d->cap_elems, cap, 0))
                return err_nomem(err);
            d->cap_elems = cap;
        }
        for (k = 0; k < s->n_elems; k++)
            d->elem_gid[d->n_elems + k] = map[s->elem_gid[k]];
        d->n_elems += s->n_elems;
        SILT_RETURN_IF_ERROR(vec_accum_add(&d->elems, elems, NULL, elems->length, err));
    }
    return SILT_OK;
}

/*
 * A DISTINCT aggregate's state is a function of its (group, value) set, so
 * the source's state is ignored: the pairs of src's set that d lacks are
 * added to d's set and folded into d's state, as if d had seen them.
 */
static silt_status merge_distinct(agg_table *t, agg_state *d, agg_state *s, const int32_t *map,
                                  arena *scratch, silt_error *err)
{
    int64_t cap = (int64_t)(dset_fits(s->in_type) ? s->dset_n : s->distinct.count), n = 0, k;
    size_t w = col_type_value_width(s->in_type->id), idx;
    int32_t *gids = arena_alloc(scratch, sizeof(int32_t) * (size_t)(cap ? cap : 1));
    int32_t *rows = arena_alloc(scratch, sizeof(int32_t) * (size_t)(cap ? cap : 1));
    col_vec *vals;
    int is_new;
    if (gids == NULL || rows == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(vec_new(&vals, scratch, s->in_type, cap, err));
    if (dset_fits(s->in_type)) {
        for (idx = 0; idx < s->dset_cap; idx++) {
            int32_t g = s->dset[idx].gid;
            if (g < 0)
                continue;
            SILT_RETURN_IF_ERROR(dset_insert(t, d, s->dset[idx].val, map[g], &is_new, err));
            if (!is_new)
                continue;
            memcpy((char *)vals->values + w * (size_t)n, &s->dset[idx].val, w);
            gids[n++] = map[g];
        }
    } else {
        const hashmap_entry *e;
        buf key = BUF_INIT;
        vec_str_writer sw;
        silt_status rc = SILT_OK;
        size_t it = 0;
        if (is_varlen(s->in_type->id))
            vec_str_begin(&sw, vals, scratch);
        while (rc == SILT_OK && hashmap_next(&s->distinct, &it, &e)) {
            int32_t g;
            void *old;
            memcpy(&g, e->key, 4);
            rc = distinct_key(&key, map[g], e->key + 4, (int32_t)(e->key_len - 4), err);
            if (rc != SILT_OK || hashmap_get(&d->distinct, key.data, key.len, &old))
                continue;
            rc = hashmap_put(&d->distinct, key.data, key.len, NULL, NULL, err);
            if (rc == SILT_OK && is_varlen(s->in_type->id))
                rc = vec_str_put(&sw, n, e->key + 4, (int64_t)(e->key_len - 4), err);
            else if (rc == SILT_OK)
                memcpy((char *)vals->values + w * (size_t)n, e->key + 4, w);
            gids[n++] = map[g];
        }
        if (is_varlen(s->in_type->id))
            vec_str_end(&sw);
        buf_clear(&key);
        SILT_RETURN_IF_ERROR(rc);
    }
    for (k = 0; k < n; k++)
        rows[k] = (int32_t)k;
    vals->length = n;
    return update_values(t, d, vals, gids, rows, n, err);
}

silt_status engine_agg_table_merge(agg_table *t, agg_table *src, arena *scratch, silt_error *err)
{
    int32_t *map = arena_alloc(scratch, sizeof(int32_t) * (size_t)(src->n_groups ? src->n_groups : 1));
    int32_t *new_rows = arena_alloc(scratch, sizeof(int32_t) * (size_t)(src->n_groups ? src->n_groups : 1));
    int64_t g, n_new = 0;
    size_t idx;
    if (map == NULL || new_rows == NULL)
        return err_nomem(err);
    for (g = 0; g < src->n_groups; g++) {
        int is_new;
        SILT_RETURN_IF_ERROR(find_group(t, src->gkey[g], src->gkey_len[g], &map[g], &is_new, err));
        if (is_new)
            new_rows[n_new++] = (int32_t)g;
    }
    for (idx = 0; idx < t->n_keys; idx++) {
        col_vec *keys;
        SILT_RETURN_IF_ERROR(vec_accum_finish(&src->key_acc[idx], &keys, err));
        SILT_RETURN_IF_ERROR(vec_accum_add(&t->key_acc[idx], keys, new_rows, n_new, err));
    }
    for (idx = 0; idx < t->n_aggs; idx++) {
        if (t->aggs[idx].spec.distinct && t->aggs[idx].spec.arg != NULL)
            SILT_RETURN_IF_ERROR(merge_distinct(t, &t->aggs[idx], &src->aggs[idx], map, scratch,
                                                err));
        else
            SILT_RETURN_IF_ERROR(merge_state(t, &t->aggs[idx], src, &src->aggs[idx], map, err));
    }
    return SILT_OK;
}

/* ---- finish -------------------------------------------------------------------------- */

static double hll_estimate(const uint8_t *regs)
{
    double m = HLL_REGS, sum = 0, est;
    int zeros = 0, idx;
    for (idx = 0; idx < HLL_REGS; idx++) {
        sum += 1.0 / (double)((uint64_t)1 << regs[idx]);
        zeros += regs[idx] == 0;
    }
    est = (0.7213 / (1 + 1.079 / m)) * m * m / sum;
    /*
     * Linear counting for small sets: up to 400 as Spark's HLL++ (whose
     * estimate is then the same); above, Spark corrects the raw estimate's
     * bias from tables silt does not have, and linear counting stays the
     * closer of the two up to 2.5 m.
     */
    if (zeros > 0 && (m * log(m / zeros) <= 400 || est <= 2.5 * m))
        est = m * log(m / zeros);
    return est;
}

static silt_status finish_collect(agg_table *t, agg_state *s, arena *a, col_vec *o,
                                  silt_error *err)
{
    /* Counting sort of the values by group keeps each group's input order. */
    int64_t *start = arena_calloc(a, (size_t)t->n_groups + 1, sizeof(int64_t));
    int64_t *idx = arena_alloc(a, sizeof(int64_t) * (size_t)(s->n_elems ? s->n_elems : 1));
    int64_t g, k, n_out = 0;
    col_vec *elems;
    hashmap seen = HASHMAP_INIT;
    silt_status rc = SILT_OK;
    if (start == NULL || idx == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(vec_accum_finish(&s->elems, &elems, err));
    for (k = 0; k < s->n_elems; k++)
        start[s->elem_gid[k] + 1]++;
    for (g = 0; g < t->n_groups; g++)
        start[g + 1] += start[g];
    {
        int64_t *cur = arena_alloc(a, sizeof(int64_t) * (size_t)(t->n_groups ? t->n_groups : 1));
        if (cur == NULL)
            return err_nomem(err);
        memcpy(cur, start, sizeof(int64_t) * (size_t)t->n_groups);
        for (k = 0; k < s->n_elems; k++)
            idx[cur[s->elem_gid[k]]++] = k;
    }
    o->offsets[0] = 0;
    for (g = 0; g < t->n_groups && rc == SILT_OK; g++) {
        for (k = start[g]; k < start[g + 1] && rc == SILT_OK; k++) {
            if (s->spec.kind == AGG_COLLECT_SET) {
                uint8_t tmp[16];
                int32_t len;
                const void *p = value_key(elems, idx[k], tmp, &len);
                buf key = BUF_INIT;
                void *old;
                rc = buf_append(&key, &g, sizeof(g), err);
                if (rc == SILT_OK)
                    rc = buf_append(&key, p, (size_t)len, err);
                if (rc == SILT_OK && hashmap_get(&seen, key.data, key.len, &old)) {
                    buf_clear(&key);
                    continue;
                }
                if (rc == SILT_OK)
                    rc = hashmap_put(&seen, key.data, key.len, NULL, NULL, err);
                buf_clear(&key);
            }
            idx[n_out++] = idx[k];
        }
        if (n_out > INT32_MAX)
            rc = err_set(err, SILT_NOMEM, "collected lists exceed one vector's limit");
        o->offsets[g + 1] = (int32_t)n_out;
    }
    hashmap_clear(&seen);
    if (rc != SILT_OK)
        return rc;
    return vec_gather(&o->children[0], a, elems, idx, n_out, err);
}

/*
 * percentile_approx as Spark answers it. Spark feeds a group's values to a
 * Greenwald-Khanna quantile summary (relative error 1 / accuracy, 10000
 * by default): values gather in a buffer of 50000, which is sorted and
 * merged into the samples (value, g, delta) whenever it fills and at the
 * end; each new sample gets delta = floor(2 * error * count) except the
 * first and last of the summary; then neighbours merge while g + g' +
 * delta' < 2 * error * count (the last and the first sample always stay).
 * A query for p returns the first sample whose rank range lies within
 * (max(g + delta) / 2) of ceil(p * n), the first sample for p <= error
 * and the last for p >= 1 - error. silt replays exactly this over the
 * group's values in the order it read them, so for a group that Spark
 * reads in one partition the answer is Spark's (below 1 / (2 * error)
 * values, 5000 by default, it is the exact ceil(p * n)-th value); when
 * Spark merges summaries of several partitions its answer can differ by
 * the summary's error bound (a few ranks).
 */
static silt_status group_elements(agg_table *t, agg_state *s, arena *a, int64_t **start_out,
                                  int64_t **idx_out, silt_error *err);

typedef struct gk_sample {
    double val;
    int64_t elem; /* element index of the value */
    int64_t g, delta;
} gk_sample;

#define GK_HEAD_SIZE 50000
#define GK_COMPRESS_THRESHOLD 10000

/* Merges neighbours as described above; returns the new length. */
static int64_t gk_compress(gk_sample *smp, int64_t n, double threshold)
{
    int64_t i, out;
    gk_sample head;
    if (n <= 1)
        return n;
    /* walk from the end, writing the kept samples backwards into smp[out..n) */
    head = smp[n - 1];
    out = n;
    for (i = n - 2; i >= 1; i--) {
        if ((double)(smp[i].g + head.g + head.delta) < threshold) {
            head.g += smp[i].g;
        } else {
            smp[--out] = head;
            head = smp[i];
        }
    }
    smp[--out] = head;
    if (smp[0].val <= head.val)
        smp[--out] = smp[0];
    memmove(smp, smp + out, sizeof(gk_sample) * (size_t)(n - out));
    return n - out;
}

/* Merges the sorted buffer buf[0..n_buf) into the samples (into tmp), as Spark's insert. */
static int64_t gk_insert(gk_sample *smp, int64_t n_smp, const gk_sample *head, int64_t n_buf,
                         gk_sample *tmp, int64_t *count, double eps)
{
    int64_t si = 0, bi, n = 0;
    for (bi = 0; bi < n_buf; bi++) {
        while (si < n_smp && smp[si].val <= head[bi].val)
            tmp[n++] = smp[si++];
        (*count)++;
        tmp[n] = head[bi];
        tmp[n].g = 1;
        tmp[n].delta = n == 0 || (si == n_smp && bi == n_buf - 1)
                           ? 0 : (int64_t)floor(2 * eps * (double)*count);
        n++;
    }
    while (si < n_smp)
        tmp[n++] = smp[si++];
    memcpy(smp, tmp, sizeof(gk_sample) * (size_t)n);
    return n;
}

static int cmp_gk(const void *x, const void *y)
{
    const gk_sample *a = x, *b = y;
    return (a->val > b->val) - (a->val < b->val);
}

/* Spark's summary of the group's values elem[0..n) (input order) into smp; returns its length. */
static int64_t gk_build(const col_vec *elems, const int64_t *elem, int64_t n, double eps,
                        gk_sample *smp, gk_sample *tmp, gk_sample *head)
{
    int64_t n_smp = 0, count = 0, done = 0, k;
    int compressed = 0;
    while (done < n) {
        int64_t n_buf = n - done < GK_HEAD_SIZE ? n - done : GK_HEAD_SIZE;
        for (k = 0; k < n_buf; k++) {
            head[k].elem = elem[done + k];
            head[k].val = as_double(elems, head[k].elem);
        }
        /* equal values are interchangeable: any order of them gives the same answer */
        qsort(head, (size_t)n_buf, sizeof(gk_sample), cmp_gk);
        n_smp = gk_insert(smp, n_smp, head, n_buf, tmp, &count, eps);
        done += n_buf;
        compressed = 0;
        /* a full buffer is merged in as it fills, and compressed once the samples are many */
        if (n_buf == GK_HEAD_SIZE && n_smp >= GK_COMPRESS_THRESHOLD) {
            n_smp = gk_compress(smp, n_smp, 2 * eps * (double)count);
            compressed = 1;
        }
    }
    if (!compressed)
        n_smp = gk_compress(smp, n_smp, 2 * eps * (double)count);
    return n_smp;
}

/* The element index the summary smp[0..n_smp) of count values answers for percentage p. */
static int64_t gk_query(const gk_sample *smp, int64_t n_smp, int64_t count, double p, double eps)
{
    int64_t k, rank, min_rank = 0, target = 0;
    if (p <= eps)
        return smp[0].elem;
    if (p >= 1 - eps)
        return smp[n_smp - 1].elem;
    rank = (int64_t)ceil(p * (double)count);
    for (k = 0; k < n_smp; k++)
        if (smp[k].g + smp[k].delta > target)
            target = smp[k].g + smp[k].delta;
    target /= 2;
    for (k = 0; k < n_smp - 1; k++) {
        min_rank += smp[k].g;
        if (min_rank + smp[k].delta - target <= rank && rank <= min_rank + target)
            return smp[k].elem;
    }
    return smp[n_smp - 1].elem;
}

/* The percentages of a percentile aggregate: its one, or its array's. */
static const double *percentages(const agg_state *s, size_t *n)
{
    if (s->spec.kind == AGG_PERCENTILE_ARRAY || s->spec.kind == AGG_PERCENTILE_APPROX_ARRAY) {
        *n = s->spec.n_percentages;
        return s->spec.percentages;
    }
    *n = 1;
    return &s->spec.percentage;
}

/*
 * Makes the result of a percentile aggregate: one value per group (pick or
 * dv) or, for an array of percentages, a list of n_p values per group
 * (pick or dv holding n_p per group); a group without values is NULL.
 */
static silt_status percentile_result(agg_table *t, agg_state *s, arena *a, const col_vec *elems,
                                     const int64_t *pick, const double *dv, const uint8_t *none,
                                     size_t n_p, col_vec **out, silt_error *err)
{
    int64_t g, n_groups = t->n_groups, n_vals = n_groups * (int64_t)n_p, k;
    col_vec *o, *vals;
    int array = s->spec.kind == AGG_PERCENTILE_ARRAY || s->spec.kind == AGG_PERCENTILE_APPROX_ARRAY;
    const col_type *elem_type = array ? s->out_type->fields[0].type : s->out_type;
    if (n_vals > INT32_MAX)
        return err_set(err, SILT_NOMEM, "percentile arrays exceed one vector's limit");
    if (pick != NULL) {
        SILT_RETURN_IF_ERROR(vec_gather(&vals, a, elems, pick, n_vals, err));
    } else {
        SILT_RETURN_IF_ERROR(vec_new(&vals, a, elem_type, n_vals, err));
        for (k = 0; k < n_vals; k++) {
            if (none[k / (int64_t)n_p])
                vec_set_null(vals, k);
            else
                ((double *)vals->values)[k] = dv[k];
        }
    }
    if (!array) {
        *out = vals;
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(vec_new(&o, a, s->out_type, n_groups, err));
    o->offsets[0] = 0;
    for (g = 0; g < n_groups; g++) {
        o->offsets[g + 1] = (int32_t)((g + 1) * (int64_t)n_p);
        if (none[g])
            vec_set_null(o, g);
    }
    o->children[0] = vals;
    *out = o;
    return SILT_OK;
}

static silt_status finish_percentile(agg_table *t, agg_state *s, arena *a, col_vec **out,
                                     silt_error *err)
{
    int64_t *start, *idx, *pick, g, most = 1;
    double eps = 1.0 / (double)(s->spec.accuracy > 0 ? s->spec.accuracy : 10000);
    size_t n_p, p;
    const double *ps = percentages(s, &n_p);
    gk_sample *smp, *tmp, *head;
    uint8_t *none;
    col_vec *elems;
    SILT_RETURN_IF_ERROR(vec_accum_finish(&s->elems, &elems, err));
    SILT_RETURN_IF_ERROR(group_elements(t, s, a, &start, &idx, err));
    pick = arena_alloc(a, sizeof(int64_t) * (size_t)(t->n_groups ? t->n_groups : 1) * n_p);
    none = arena_calloc(a, (size_t)(t->n_groups ? t->n_groups : 1), 1);
    for (g = 0; g < t->n_groups; g++)
        if (start[g + 1] - start[g] > most)
            most = start[g + 1] - start[g];
    /* the samples of one group at a time: at most its values plus one buffer */
    smp = arena_alloc(a, sizeof(gk_sample) * (size_t)(most + GK_HEAD_SIZE));
    tmp = arena_alloc(a, sizeof(gk_sample) * (size_t)(most + GK_HEAD_SIZE));
    head = arena_alloc(a, sizeof(gk_sample) * (size_t)(most < GK_HEAD_SIZE ? most : GK_HEAD_SIZE));
    if (pick == NULL || none == NULL || smp == NULL || tmp == NULL || head == NULL)
        return err_nomem(err);
    for (g = 0; g < t->n_groups; g++) {
        int64_t n = start[g + 1] - start[g], n_smp = 0;
        none[g] = n == 0;
        if (n > 0)
            n_smp = gk_build(elems, idx + start[g], n, eps, smp, tmp, head);
        for (p = 0; p < n_p; p++)
            pick[g * (int64_t)n_p + (int64_t)p] =
                n == 0 ? -1 : gk_query(smp, n_smp, n, ps[p], eps);
    }
    return percentile_result(t, s, a, elems, pick, NULL, none, n_p, out, err);
}

/* Each group's element indices, in input order: idx[start[g] .. start[g + 1]). */
static silt_status group_elements(agg_table *t, agg_state *s, arena *a, int64_t **start_out,
                                  int64_t **idx_out, silt_error *err)
{
    int64_t *start = arena_calloc(a, (size_t)t->n_groups + 1, sizeof(int64_t));
    int64_t *idx = arena_alloc(a, sizeof(int64_t) * (size_t)(s->n_elems ? s->n_elems : 1));
    int64_t *cur = arena_alloc(a, sizeof(int64_t) * (size_t)(t->n_groups ? t->n_groups : 1));
    int64_t g, k;
    if (start == NULL || idx == NULL || cur == NULL)
        return err_nomem(err);
    for (k = 0; k < s->n_elems; k++)
        start[s->elem_gid[k] + 1]++;
    for (g = 0; g < t->n_groups; g++)
        start[g + 1] += start[g];
    memcpy(cur, start, sizeof(int64_t) * (size_t)t->n_groups);
    for (k = 0; k < s->n_elems; k++)
        idx[cur[s->elem_gid[k]]++] = k;
    *start_out = start;
    *idx_out = idx;
    return SILT_OK;
}

/*
 * percentile(x, p) and median(x) as Spark computes them: the values sorted,
 * position p * (n - 1), and a linear interpolation between the values at
 * its floor and ceiling; NULL for a group without values.
 */
static silt_status finish_percentile_exact(agg_table *t, agg_state *s, arena *a, col_vec **out,
                                           silt_error *err)
{
    engine_sort_key key = engine_sort_key_default(0, 0);
    int64_t *start, *idx, g;
    size_t n_p, p;
    const double *ps = percentages(s, &n_p);
    double *dv;
    uint8_t *none;
    col_vec *elems;
    SILT_RETURN_IF_ERROR(vec_accum_finish(&s->elems, &elems, err));
    SILT_RETURN_IF_ERROR(group_elements(t, s, a, &start, &idx, err));
    dv = arena_alloc(a, sizeof(double) * (size_t)(t->n_groups ? t->n_groups : 1) * n_p);
    none = arena_calloc(a, (size_t)(t->n_groups ? t->n_groups : 1), 1);
    if (dv == NULL || none == NULL)
        return err_nomem(err);
    for (g = 0; g < t->n_groups; g++) {
        int64_t n = start[g + 1] - start[g];
        if (n == 0 || elems->type->id == COL_NULL) {
            none[g] = 1;
            continue;
        }
        SILT_RETURN_IF_ERROR(engine_sort_indices(&key, 1, &elems, idx + start[g], n, a, err));
        for (p = 0; p < n_p; p++) {
            double pos = ps[p] * (double)(n - 1), lo_val, hi_val;
            int64_t lo = (int64_t)floor(pos), hi = (int64_t)ceil(pos);
            lo_val = as_double(elems, idx[start[g] + lo]);
            hi_val = as_double(elems, idx[start[g] + hi]);
            dv[g * (int64_t)n_p + (int64_t)p] =
                lo == hi ? lo_val : (double)(hi - pos) * lo_val + (double)(pos - lo) * hi_val;
        }
    }
    return percentile_result(t, s, a, elems, NULL, dv, none, n_p, out, err);
}

/*
 * max_by(x, y) / min_by(x, y): x of the row with the largest (smallest) y;
 * rows whose y is NULL are ignored, x may be NULL. Of rows with equal y
 * the last in input order wins, as in Spark 4.1 over one partition (across
 * partitions Spark's choice among ties depends on their order too).
 */
static silt_status finish_by(agg_table *t, agg_state *s, arena *a, col_vec **out,
                             silt_error *err)
{
    int64_t *start, *idx, *pick, g, k;
    col_vec *elems, *ord;
    int sign = s->spec.kind == AGG_MAX_BY ? 1 : -1;
    SILT_RETURN_IF_ERROR(vec_accum_finish(&s->elems, &elems, err));
    SILT_RETURN_IF_ERROR(group_elements(t, s, a, &start, &idx, err));
    pick = arena_alloc(a, sizeof(int64_t) * (size_t)(t->n_groups ? t->n_groups : 1));
    if (pick == NULL)
        return err_nomem(err);
    ord = elems->children[0];
    for (g = 0; g < t->n_groups; g++) {
        pick[g] = -1;
        for (k = start[g]; k < start[g + 1]; k++) {
            int64_t r = idx[k];
            if (!vec_is_valid(ord, r))
                continue;
            if (pick[g] < 0 || sign * vec_compare_rows(ord, r, ord, pick[g]) >= 0)
                pick[g] = r;
        }
    }
    return vec_gather(out, a, elems->children[1], pick, t->n_groups, err);
}

static silt_status finish_agg(agg_table *t, agg_state *s, arena *a, col_vec **out,
                              silt_error *err)
{
    col_vec *o;
    int64_t g, n = t->n_groups;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, s->out_type, n, err));
    switch (s->spec.kind) {
    case AGG_COUNT_STAR:
    case AGG_COUNT:
        if (n > 0)
            memcpy(o->values, s->cnt, sizeof(int64_t) * (size_t)n);
        break;
    case AGG_APPROX_COUNT_DISTINCT:
        for (g = 0; g < n; g++)
            ((int64_t *)o->values)[g] = (int64_t)llround(hll_estimate(s->hll + (size_t)g * HLL_REGS));
        break;
    case AGG_SUM:
    case AGG_AVG:
        /* A sum has a value once it counted one (no separate flag: one store less per row). */
        for (g = 0; g < n; g++) {
            if (s->cnt[g] == 0) {
                vec_set_null(o, g);
            } else if (s->out_type->id == COL_DECIMAL) {
                col_int128 v = s->dec[g];
                if (s->spec.kind == AGG_AVG) {
                    /* sum at scale s / count, at scale s + 4, HALF_UP */
                    int32_t shift = s->out_type->scale - s->in_type->scale;
                    col_int128 num, q, rem, cnt = s->cnt[g];
                    if (__builtin_mul_overflow(v, expr_pow10[shift], &num)) {
                        vec_set_null(o, g);
                        continue;
                    }
                    q = num / cnt;
                    rem = num % cnt;
                    if ((rem < 0 ? -rem : rem) * 2 >= cnt)
                        q += num < 0 ? -1 : 1;
                    v = q;
                }
                if (!engine_dec_fits(v, s->out_type->precision)) {
                    if (t->ctx->ansi)
                        return err_set(err, SILT_RUNTIME, "[NUMERIC_VALUE_OUT_OF_RANGE] the sum "
                                       "does not fit decimal(%d,%d)", s->out_type->precision,
                                       s->out_type->scale);
                    vec_set_null(o, g);
                    continue;
                }
                vec_put_dec(o, g, v);
            } else if (s->out_type->id == COL_DOUBLE) {
                ((double *)o->values)[g] =
                    s->spec.kind == AGG_AVG ? s->dsum[g] / (double)s->cnt[g] : s->dsum[g];
            } else {
                ((int64_t *)o->values)[g] = s->isum[g];
            }
        }
        break;
    case AGG_STDDEV_SAMP:
    case AGG_STDDEV_POP:
    case AGG_VAR_SAMP:
    case AGG_VAR_POP: {
        int samp = s->spec.kind == AGG_STDDEV_SAMP || s->spec.kind == AGG_VAR_SAMP;
        int root = s->spec.kind == AGG_STDDEV_SAMP || s->spec.kind == AGG_STDDEV_POP;
        for (g = 0; g < n; g++) {
            double var;
            if (s->cnt[g] == 0 || (samp && s->cnt[g] == 1)) {
                vec_set_null(o, g);
                continue;
            }
            var = s->m2[g] / (double)(samp ? s->cnt[g] - 1 : s->cnt[g]);
            ((double *)o->values)[g] = root ? sqrt(var) : var;
        }
        break;
    }
    case AGG_COLLECT_LIST:
    case AGG_COLLECT_SET: SILT_RETURN_IF_ERROR(finish_collect(t, s, a, o, err)); break;
    case AGG_PERCENTILE_APPROX:
    case AGG_PERCENTILE_APPROX_ARRAY: return finish_percentile(t, s, a, out, err);
    case AGG_PERCENTILE:
    case AGG_PERCENTILE_ARRAY: return finish_percentile_exact(t, s, a, out, err);
    case AGG_MAX_BY:
    case AGG_MIN_BY: return finish_by(t, s, a, out, err);
    default: {
        size_t width = col_type_value_width(s->out_type->id);
        vec_str_writer w;
        int varlen = is_varlen(s->out_type->id);
        if (varlen)
            vec_str_begin(&w, o, a);
        for (g = 0; g < n; g++) {
            if (!s->has[g] || s->isnull[g]) {
                vec_set_null(o, g);
            } else if (varlen) {
                SILT_RETURN_IF_ERROR(vec_str_put(&w, g, s->sptr[g], s->slen[g], err));
            }
        }
        if (varlen)
            vec_str_end(&w);
        else if (width > 0 && n > 0)
            memcpy(o->values, s->val, width * (size_t)n);
        break;
    }
    }
    *out = o;
    return SILT_OK;
}

silt_status engine_agg_table_finish(agg_table *t, arena *a, col_vec **cols, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < t->n_keys; idx++)
        SILT_RETURN_IF_ERROR(vec_accum_finish(&t->key_acc[idx], &cols[idx], err));
    for (idx = 0; idx < t->n_aggs; idx++)
        SILT_RETURN_IF_ERROR(finish_agg(t, &t->aggs[idx], a, &cols[t->n_keys + idx], err));
    return SILT_OK;
}
