/*
 * agg_int.h - the aggregation hash table shared by the hash aggregate
 * operator (op_agg.c) and the parallel aggregation (op_parallel.c).
 *
 * A group's keys are stored serialized (per key a null byte, then the
 * value: fixed width bytes, or a 4-byte length and the bytes of a string),
 * written once when the group starts. Rows hash column by column (a hash
 * per key value, combined in key order) and compare typed against those
 * bytes, so a row's keys are never serialized just to be looked up; one
 * fixed-width key has its own faster mode (fast, direct), and one
 * dictionary-encoded string key with count and sum/avg of doubles sums a
 * batch per dictionary code before it touches the table (code_aggregate). Groups get
 * dense ids in order of first appearance; aggregate states are arrays
 * indexed by group id, updated column-at-a-time per batch.
 */
#ifndef SILT_ENGINE_AGG_INT_H
#define SILT_ENGINE_AGG_INT_H

#include "engine/op.h"
#include "util/hashmap.h"

typedef struct agg_dslot {
    uint64_t val;
    int32_t gid;
    int32_t unused;
} agg_dslot;

typedef struct agg_state {
    engine_agg spec;
    const col_type *in_type;  /* argument type (NULL for count(*)) */
    const col_type *out_type;
    int64_t *cnt;
    int64_t *isum;
    double *dsum;
    double *m2;
    col_int128 *dec;
    uint8_t *has;
    uint8_t *isnull;
    uint8_t *val;        /* fixed-width min/max/first/last values */
    const char **sptr;   /* string min/max/first/last values (owned by the table arena) */
    int32_t *slen;
    uint8_t *hll;        /* approx_count_distinct registers */
    vec_accum elems;     /* collect_list/set: values */
    int32_t *elem_gid;   /* collect_list/set: group of each value */
    int64_t n_elems, cap_elems;
    hashmap distinct;    /* (group, value) pairs already seen: values of 9+ bytes */
    /*
     * DISTINCT over a fixed-width value of at most 8 bytes: an open
     * addressing set of (group, normalized value bits), gid -1 = empty; a
     * slot holds both, so a probe touches one cache line.
     */
    agg_dslot *dset;
    size_t dset_cap, dset_n;
    /*
     * DISTINCT without groups over dictionary codes (col_vec.codes):
     * seen_code[c] = 1 once the value of code c of dictionary seen_dict is
     * in the set, so later rows with that code skip the probe.
     */
    uint8_t *seen_code;
    int64_t seen_cap;
    uint64_t seen_dict;
} agg_state;

typedef struct agg_table {
    engine_ctx *ctx;
    arena *a;              /* owns everything below */
    size_t n_keys;         /* serialized key columns (grouping id included) */
    const col_type **key_types;
    vec_accum *key_acc;    /* key values per group, in group order */
    size_t n_aggs;
    agg_state *aggs;
    /* hash table */
    uint64_t *slot_hash;
    int32_t *slot_gid;     /* -1 = empty */
    size_t cap_slots;
    /* groups */
    int64_t n_groups, cap_groups;
    const uint8_t **gkey;
    int32_t *gkey_len;
    /*
     * One fixed-width key (the common GROUP BY id): rows are hashed and
     * compared as one 64-bit value instead of serialized bytes.
     */
    int fast;
    size_t fast_width;
    int64_t *gval;
    uint8_t *gvalid;
    /*
     * Small non-negative keys (ids, years, codes) skip hashing altogether:
     * direct[x] is the group of value x below AGG_DIRECT_KEYS, -1 unknown.
     */
    int32_t *direct;
    int32_t *zero_gid; /* group ids of a batch without keys: all 0 (global_gids) */
    int64_t cap_zero_gid;
    int64_t charged; /* bytes charged to ctx; given back by engine_agg_table_clear */
} agg_table;

#define AGG_DIRECT_KEYS 16384

silt_status engine_agg_table_init(agg_table *t, engine_ctx *ctx, arena *a, size_t n_keys,
                           const col_type **key_types, const engine_agg *aggs, size_t n_aggs,
                           silt_error *err);
void engine_agg_table_clear(agg_table *t);
/*
 * Adds the live rows of a batch: keys are the key vectors (n_rows rows),
 * args the evaluated aggregate arguments (NULL entries for count(*)),
 * filters the evaluated FILTER predicates (NULL when none).
 */
silt_status engine_agg_table_add(agg_table *t, int64_t n_rows, const int32_t *sel, int64_t n_sel,
                          col_vec **keys, col_vec **args, col_vec **filters, arena *scratch,
                          silt_error *err);
/*
 * Splits the live rows into those whose group is in the table (found) and
 * those whose group is not (missing), adding nothing: how a partitioned
 * aggregation keeps its groups in memory once it stops taking new ones
 * (agg_spill.c). found and missing have room for n_sel rows.
 */
silt_status engine_agg_table_find(agg_table *t, const int32_t *sel, int64_t n_sel, col_vec **keys,
                           arena *scratch, int32_t *found, int64_t *n_found, int32_t *missing,
                           int64_t *n_missing, silt_error *err);
/*
 * Merges another table's groups and states into t (same layout). A DISTINCT
 * aggregate merges its (group, value) sets and folds in only the values t
 * had not seen, so partial tables of several workers merge exactly.
 */
silt_status engine_agg_table_merge(agg_table *t, agg_table *src, arena *scratch, silt_error *err);
/* Builds the result columns: keys then aggregates, n_groups rows each, in arena a. */
silt_status engine_agg_table_finish(agg_table *t, arena *a, col_vec **cols, silt_error *err);

#endif
