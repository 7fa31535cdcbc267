/*
 * op_agg.c - the hash aggregate operator (GROUP BY, grouping sets, global
 * aggregates), built on the aggregation table of agg_table.c.
 *
 * The operator drains its child on the first next(), then hands out the
 * groups in batches of ENGINE_BATCH_ROWS. Grouping sets run every input
 * batch once per set, with the keys outside the set replaced by NULL and
 * the grouping id as an extra hidden key, the way Spark's Expand does.
 */
#include "engine/agg_int.h"
#include "engine/op_int.h"

#include <string.h>

typedef struct hagg_state {
    expr **keys;
    size_t n_keys;
    engine_agg *aggs;
    size_t n_aggs;
    uint64_t *sets; /* NULL = one set of all keys, no grouping id column */
    size_t n_sets;
    agg_table table;
    arena *table_arena;
    arena *scratch;
    col_vec **result; /* all groups, once drained */
    int64_t n_groups, next_group;
    int drained;
} hagg_state;

size_t engine_rollup_sets(size_t n_keys, uint64_t *sets)
{
    size_t idx;
    /* (a, b, c), (a, b), (a), () */
    for (idx = 0; idx <= n_keys; idx++)
        sets[idx] = (n_keys - idx) >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << (n_keys - idx)) - 1);
    return n_keys + 1;
}

size_t engine_cube_sets(size_t n_keys, uint64_t *sets)
{
    size_t n = (size_t)1 << n_keys, idx;
    /* Every subset, the full set first, as Spark lists them. */
    for (idx = 0; idx < n; idx++)
        sets[idx] = (n - 1) & ~(uint64_t)idx;
    return n;
}

/* Spark's grouping id: bit (n_keys - 1 - i) set when key i is NOT grouped. */
static int64_t grouping_id(uint64_t set, size_t n_keys)
{
    int64_t gid = 0;
    size_t idx;
    for (idx = 0; idx < n_keys; idx++)
        if (!((set >> idx) & 1))
            gid |= (int64_t)1 << (n_keys - 1 - idx);
    return gid;
}

static silt_status add_chunk(engine_op *op, hagg_state *s, const engine_chunk *in, silt_error *err)
{
    const col_batch *b = &in->batch;
    size_t n_table_keys = s->table.n_keys, idx, set;
    col_vec **keys = arena_calloc(s->scratch, n_table_keys ? n_table_keys : 1, sizeof(col_vec *));
    col_vec **key_vals = arena_calloc(s->scratch, s->n_keys ? s->n_keys : 1, sizeof(col_vec *));
    col_vec **args = arena_calloc(s->scratch, s->n_aggs ? s->n_aggs : 1, sizeof(col_vec *));
    col_vec **filters = arena_calloc(s->scratch, s->n_aggs ? s->n_aggs : 1, sizeof(col_vec *));
    if (keys == NULL || key_vals == NULL || args == NULL || filters == NULL)
        return err_nomem(err);
    for (idx = 0; idx < s->n_keys; idx++)
        SILT_RETURN_IF_ERROR(expr_eval(s->keys[idx], op->ctx, b, in->sel, in->n_sel, s->scratch,
                                       &key_vals[idx], err));
    for (idx = 0; idx < s->n_aggs; idx++) {
        if (s->aggs[idx].arg != NULL)
            SILT_RETURN_IF_ERROR(expr_eval(s->aggs[idx].arg, op->ctx, b, in->sel, in->n_sel,
                                           s->scratch, &args[idx], err));
        if (s->aggs[idx].filter != NULL)
            SILT_RETURN_IF_ERROR(expr_eval(s->aggs[idx].filter, op->ctx, b, in->sel, in->n_sel,
                                           s->scratch, &filters[idx], err));
    }
    if (s->sets == NULL)
        return agg_table_add(&s->table, b->n_rows, in->sel, in->n_sel, key_vals, args, filters,
                             s->scratch, err);
    for (set = 0; set < s->n_sets; set++) {
        col_vec *gid_vec;
        int64_t row;
        for (idx = 0; idx < s->n_keys; idx++) {
            if ((s->sets[set] >> idx) & 1)
                keys[idx] = key_vals[idx];
            else
                SILT_RETURN_IF_ERROR(col_vec_new_nulls(&keys[idx], s->scratch,
                                                       s->keys[idx]->type, b->n_rows, err));
        }
        SILT_RETURN_IF_ERROR(vec_new(&gid_vec, s->scratch, col_type_primitive(COL_LONG),
                                     b->n_rows, err));
        for (row = 0; row < b->n_rows; row++)
            ((int64_t *)gid_vec->values)[row] = grouping_id(s->sets[set], s->n_keys);
        keys[s->n_keys] = gid_vec;
        SILT_RETURN_IF_ERROR(agg_table_add(&s->table, b->n_rows, in->sel, in->n_sel, keys, args,
                                           filters, s->scratch, err));
    }
    return SILT_OK;
}

static silt_status drain(engine_op *op, hagg_state *s, silt_error *err)
{
    size_t n_cols = op->schema->n_fields;
    for (;;) {
        engine_chunk *in;
        SILT_RETURN_IF_ERROR(engine_op_next(op->children[0], &in, err));
        if (in == NULL)
            break;
        arena_reset(s->scratch);
        SILT_RETURN_IF_ERROR(add_chunk(op, s, in, err));
    }
    arena_reset(s->scratch);
    if (s->n_keys == 0 && s->sets == NULL && s->table.n_groups == 0) {
        /* A global aggregate has one row even without input. */
        SILT_RETURN_IF_ERROR(
            agg_table_add(&s->table, 0, NULL, 0, NULL, NULL, NULL, s->scratch, err));
    }
    s->result = arena_calloc(s->table_arena, n_cols ? n_cols : 1, sizeof(col_vec *));
    if (s->result == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(agg_table_finish(&s->table, s->table_arena, s->result, err));
    if (s->sets != NULL) {
        /* The table's hidden grouping-id key goes last in the output. */
        col_vec *gid = s->result[s->n_keys];
        memmove(&s->result[s->n_keys], &s->result[s->n_keys + 1], sizeof(col_vec *) * s->n_aggs);
        s->result[n_cols - 1] = gid;
    }
    s->n_groups = s->table.n_groups;
    s->next_group = 0;
    s->drained = 1;
    return SILT_OK;
}

static silt_status hagg_open(engine_op *op, silt_error *err)
{
    hagg_state *s = op->state;
    const col_type **key_types;
    size_t n_table_keys = s->n_keys + (s->sets != NULL), idx;
    s->table_arena = arena_new(op->op_arena, "agg_table");
    s->scratch = arena_new(op->op_arena, "agg_scratch");
    key_types = s->table_arena ? arena_calloc(s->table_arena, n_table_keys ? n_table_keys : 1,
                                              sizeof(col_type *))
                               : NULL;
    if (s->scratch == NULL || key_types == NULL)
        return err_nomem(err);
    for (idx = 0; idx < s->n_keys; idx++)
        key_types[idx] = s->keys[idx]->type;
    if (s->sets != NULL)
        key_types[s->n_keys] = col_type_primitive(COL_LONG);
    s->drained = 0;
    return agg_table_init(&s->table, op->ctx, s->table_arena, n_table_keys, key_types, s->aggs,
                          s->n_aggs, err);
}

static silt_status hagg_next(engine_op *op, engine_chunk **out, silt_error *err)
{
    hagg_state *s = op->state;
    size_t n_cols = op->schema->n_fields, col;
    engine_chunk *c;
    int64_t n, k, *idx;
    if (!s->drained)
        SILT_RETURN_IF_ERROR(drain(op, s, err));
    if (s->next_group >= s->n_groups) {
        *out = NULL;
        return SILT_OK;
    }
    n = s->n_groups - s->next_group;
    if (n > ENGINE_BATCH_ROWS)
        n = ENGINE_BATCH_ROWS;
    idx = arena_alloc(op->batch_arena, sizeof(int64_t) * (size_t)n);
    if (idx == NULL)
        return err_nomem(err);
    for (k = 0; k < n; k++)
        idx[k] = s->next_group + k;
    SILT_RETURN_IF_ERROR(engine_chunk_new(&c, op, n_cols, n, err));
    for (col = 0; col < n_cols; col++)
        SILT_RETURN_IF_ERROR(vec_gather(&c->batch.cols[col], op->batch_arena, s->result[col],
                                        idx, n, err));
    s->next_group += n;
    *out = c;
    return SILT_OK;
}

static void hagg_close(engine_op *op)
{
    hagg_state *s = op->state;
    agg_table_clear(&s->table);
    memset(&s->table, 0, sizeof(s->table));
}

static const engine_op_vtable hagg_vt = {"hash_aggregate", hagg_open, hagg_next, hagg_close};

silt_status engine_op_hash_agg(engine_op **out, engine_ctx *ctx, engine_op *child,
                               expr **keys, const char *const *key_names, size_t n_keys,
                               const engine_agg *aggs, size_t n_aggs, const uint64_t *sets,
                               size_t n_sets, silt_error *err)
{
    arena *qa = ctx->query_arena;
    size_t n_cols = n_keys + n_aggs + (n_sets > 0), idx;
    const col_type **types = arena_calloc(qa, n_cols ? n_cols : 1, sizeof(col_type *));
    const char **names = arena_calloc(qa, n_cols ? n_cols : 1, sizeof(char *));
    const col_type *schema;
    hagg_state *s;
    if (types == NULL || names == NULL)
        return err_nomem(err);
    if (n_sets > 0 && n_keys > 63)
        return err_set(err, SILT_UNSUPPORTED, "grouping sets over more than 63 keys");
    for (idx = 0; idx < n_keys; idx++) {
        types[idx] = keys[idx]->type;
        names[idx] = key_names && key_names[idx] ? key_names[idx] : arena_sprintf(qa, "k%zu", idx);
    }
    for (idx = 0; idx < n_aggs; idx++) {
        SILT_RETURN_IF_ERROR(engine_agg_type_checked(&types[n_keys + idx], qa, aggs[idx].kind,
                                                     aggs[idx].arg ? aggs[idx].arg->type : NULL,
                                                     err));
        if (aggs[idx].kind == AGG_PERCENTILE_APPROX &&
            !(aggs[idx].percentage >= 0.0 && aggs[idx].percentage <= 1.0))
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] the percentage "
                           "of percentile_approx must be between 0.0 and 1.0");
        if ((aggs[idx].kind == AGG_COUNT_STAR) != (aggs[idx].arg == NULL))
            return err_set(err, SILT_INVALID, "count(*) takes no argument; other aggregates one");
        if (aggs[idx].filter != NULL && aggs[idx].filter->type->id != COL_BOOLEAN)
            return err_set(err, SILT_BIND, "a FILTER condition must be boolean");
        names[n_keys + idx] = aggs[idx].name ? aggs[idx].name : arena_sprintf(qa, "agg%zu", idx);
    }
    if (n_sets > 0) {
        types[n_cols - 1] = col_type_primitive(COL_LONG);
        names[n_cols - 1] = "spark_grouping_id";
    }
    SILT_RETURN_IF_ERROR(engine_make_schema(&schema, qa, names, types, n_cols, err));
    SILT_RETURN_IF_ERROR(engine_op_new_internal(out, ctx, &hagg_vt, schema, sizeof(hagg_state),
                                                &child, 1, err));
    s = (*out)->state;
    s->keys = arena_memdup(qa, keys ? (const void *)keys : (const void *)"", sizeof(expr *) * n_keys);
    s->aggs = arena_memdup(qa, aggs ? (const void *)aggs : (const void *)"", sizeof(engine_agg) * n_aggs);
    s->n_keys = n_keys;
    s->n_aggs = n_aggs;
    if (n_sets > 0) {
        s->sets = arena_memdup(qa, sets, sizeof(uint64_t) * n_sets);
        s->n_sets = n_sets;
    }
    if (s->keys == NULL || s->aggs == NULL || (n_sets > 0 && s->sets == NULL))
        return err_nomem(err);
    return SILT_OK;
}
