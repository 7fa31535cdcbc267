/*
 * agg_spill.c - hash aggregation beyond the memory budget (spill_int.h).
 *
 * When the aggregation table outgrows its room, op_agg.c stops adding
 * groups: rows of groups already in the table keep being aggregated in
 * memory, and rows of any other group are written, as they came from the
 * child, to one of SPILL_PARTITIONS files chosen by a hash of their group
 * keys. After the in-memory groups are returned, each file is aggregated by
 * a fresh hash aggregate over a spill scan, which may spill again one level
 * deeper (other hash bits).
 *
 * Why this is exact for every aggregate (first/last, collect_list,
 * DISTINCT, percentile included): a group lives in exactly one place. Its
 * rows before the table stopped growing, and all its later rows, are in
 * memory; a group first seen later has all its rows in one partition, in
 * input order. No partial state is ever written or merged.
 *
 * Global aggregates do not spill (they have one group). Grouping sets
 * spill by set rather than by partition (op_agg.c, sets_spill_*): each
 * set's file is then aggregated by a plain hash aggregate, which spills
 * here.
 */
#include "engine/spill_int.h"

#include <string.h>

#include "util/hashmap.h"

struct agg_spill {
    engine_op *op;
    int level;
    expr **keys;
    size_t n_keys;
    const engine_agg *aggs;
    size_t n_aggs;
    arena *a, *scratch;
    spill_file *part[SPILL_PARTITIONS];
    size_t cur;
    engine_op *sub;
};

silt_status engine_agg_spill_new(agg_spill **out, engine_op *op, int level, expr **keys, size_t n_keys,
                          const engine_agg *aggs, size_t n_aggs, silt_error *err)
{
    agg_spill *as = arena_calloc(op->op_arena, 1, sizeof(*as));
    size_t p;
    if (as == NULL || (as->a = arena_new(op->op_arena, "agg_spill")) == NULL ||
        (as->scratch = arena_new(as->a, "agg_spill_scratch")) == NULL)
        return err_nomem(err);
    as->op = op;
    as->level = level;
    as->keys = keys;
    as->n_keys = n_keys;
    as->aggs = aggs;
    as->n_aggs = n_aggs;
    for (p = 0; p < SPILL_PARTITIONS; p++)
        SILT_RETURN_IF_ERROR(
            engine_spill_file_create(&as->part[p], op->ctx, as->a, op->children[0]->schema, err));
    *out = as;
    return SILT_OK;
}

silt_status engine_agg_spill_write(agg_spill *as, const col_batch *b, const int32_t *rows, int64_t n,
                            col_vec **key_vals, silt_error *err)
{
    arena *a = as->scratch;
    int32_t *sel = arena_alloc(a, sizeof(int32_t) * (size_t)(n ? n : 1));
    uint8_t *part = arena_alloc(a, (size_t)(n ? n : 1));
    int64_t count[SPILL_PARTITIONS] = {0}, k;
    size_t idx, p;
    silt_status rc = SILT_OK;
    if (sel == NULL || part == NULL)
        return err_nomem(err);
    for (k = 0; k < n; k++) {
        uint64_t h = 0x2f1;
        for (idx = 0; idx < as->n_keys; idx++)
            h = vec_hash_row(key_vals[idx], rows[k], h);
        part[k] = (uint8_t)spill_partition_of(util_hash_u64(h), as->level);
        count[part[k]]++;
    }
    for (p = 0; p < SPILL_PARTITIONS && rc == SILT_OK; p++) {
        int64_t m = 0;
        if (count[p] == 0)
            continue;
        for (k = 0; k < n; k++)
            if (part[k] == p)
                sel[m++] = rows[k];
        rc = engine_spill_file_write(as->part[p], b, sel, m, a, err);
    }
    arena_reset(a);
    return rc;
}

void engine_agg_spill_close(agg_spill *as)
{
    if (as == NULL)
        return;
    engine_op_close(as->sub);
    as->sub = NULL;
}

static silt_status open_partition(agg_spill *as, size_t p, silt_error *err)
{
    engine_op *op = as->op, *scan, *sub;
    const char **names = arena_calloc(as->a, as->n_keys ? as->n_keys : 1, sizeof(char *));
    size_t idx;
    if (names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < as->n_keys; idx++)
        names[idx] = op->schema->fields[idx].name;
    SILT_RETURN_IF_ERROR(engine_spill_op_scan(&scan, op->ctx, as->part[p], err));
    SILT_RETURN_IF_ERROR(engine_op_hash_agg(&sub, op->ctx, scan, as->keys, names, as->n_keys,
                                            as->aggs, as->n_aggs, NULL, 0, err));
    engine_agg_set_spill_level(sub, as->level + 1);
    as->sub = sub;
    return engine_op_open(sub, err);
}

silt_status engine_agg_spill_next(agg_spill *as, engine_chunk **out, silt_error *err)
{
    *out = NULL;
    while (as->cur < SPILL_PARTITIONS) {
        if (as->sub == NULL) {
            SILT_RETURN_IF_ERROR(engine_spill_file_finish(as->part[as->cur], err));
            if (engine_spill_file_rows(as->part[as->cur]) == 0) {
                as->cur++;
                continue;
            }
            SILT_RETURN_IF_ERROR(open_partition(as, as->cur, err));
        }
        SILT_RETURN_IF_ERROR(engine_op_next(as->sub, out, err));
        if (*out != NULL) {
            (*out)->batch.schema = as->op->schema;
            return SILT_OK;
        }
        engine_agg_spill_close(as);
        engine_spill_file_remove(as->part[as->cur]);
        as->cur++;
    }
    return SILT_OK;
}
