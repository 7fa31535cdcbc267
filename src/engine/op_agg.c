/*
 * op_agg.c - the hash aggregate operator (GROUP BY, grouping sets, global
 * aggregates), built on the aggregation table of agg_table.c.
 *
 * The operator drains its child on the first next(), then hands out the
 * groups in batches of ENGINE_BATCH_ROWS. Grouping sets run every input
 * batch once per set, with the keys outside the set replaced by NULL and
 * the grouping id as an extra hidden key, the way Spark's Expand does.
 * Under a memory limit the table stops taking new groups when it fills
 * half its room and the rows of other groups are partitioned to disk
 * (add_budgeted here, agg_spill.c); with grouping sets they go to a file
 * per set instead (sets_spill_*).
 */
#include "engine/agg_int.h"
#include "engine/spill_int.h"

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
    /* Partitioned aggregation (agg_spill.c): set once the table stops taking new groups. */
    agg_spill *spill;
    int spill_level;
    /* Grouping sets past the budget: per set, the child rows of its groups not in the table. */
    spill_file **set_files; /* n_sets entries, NULL until the table stops taking groups */
    size_t set_cur;
    engine_op *set_sub; /* the plain aggregate of set_files[set_cur] */
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

/* Whether this aggregate may stop taking groups and spill the others. */
static int spill_possible(const engine_op *op, const hagg_state *s)
{
    return op->ctx->mem_limit > 0 && s->n_keys > 0 && s->sets == NULL &&
           s->spill_level < SPILL_MAX_LEVEL;
}

/*
 * Grouping sets spill per set (sets_spill_*): once the table stops taking
 * groups, a row whose group of set j is not in the table goes, as it came
 * from the child, to set j's file; after the table's groups, each file is
 * aggregated by a plain hash aggregate with set j's keys (the others NULL),
 * which spills by partitions in turn. Exact for the reason agg_spill.c
 * gives: a (set, group) pair lives in the table or in its set's file.
 */
static int sets_spill_possible(const engine_op *op, const hagg_state *s)
{
    return op->ctx->mem_limit > 0 && s->sets != NULL;
}

static silt_status sets_spill_start(engine_op *op, hagg_state *s, silt_error *err)
{
    s->set_files = arena_calloc(op->op_arena, s->n_sets, sizeof(spill_file *));
    s->set_cur = 0;
    return s->set_files != NULL ? SILT_OK : err_nomem(err);
}

static silt_status sets_spill_write(engine_op *op, hagg_state *s, size_t set, const col_batch *b,
                                    const int32_t *rows, int64_t n, silt_error *err)
{
    if (n == 0)
        return SILT_OK;
    if (s->set_files[set] == NULL)
        SILT_RETURN_IF_ERROR(engine_spill_file_create(&s->set_files[set], op->ctx, op->op_arena,
                                               op->children[0]->schema, err));
    return engine_spill_file_write(s->set_files[set], b, rows, n, s->scratch, err);
}

/* A plain aggregate of set `set`'s file: the keys outside the set are NULL literals. */
static silt_status sets_spill_open(engine_op *op, hagg_state *s, size_t set, silt_error *err)
{
    arena *qa = op->ctx->query_arena;
    expr **keys = arena_calloc(qa, s->n_keys, sizeof(expr *));
    const char **names = arena_calloc(qa, s->n_keys, sizeof(char *));
    engine_op *scan;
    size_t idx;
    if (keys == NULL || names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < s->n_keys; idx++) {
        names[idx] = op->schema->fields[idx].name;
        if ((s->sets[set] >> idx) & 1)
            keys[idx] = s->keys[idx];
        else
            SILT_RETURN_IF_ERROR(expr_lit_null(&keys[idx], qa, s->keys[idx]->type, err));
    }
    SILT_RETURN_IF_ERROR(engine_spill_op_scan(&scan, op->ctx, s->set_files[set], err));
    SILT_RETURN_IF_ERROR(engine_op_hash_agg(&s->set_sub, op->ctx, scan, keys, names, s->n_keys,
                                            s->aggs, s->n_aggs, NULL, 0, err));
    return engine_op_open(s->set_sub, err);
}

/* The groups of the spilled sets in turn, with their grouping id appended; NULL at the end. */
static silt_status sets_spill_next(engine_op *op, hagg_state *s, engine_chunk **out,
                                   silt_error *err)
{
    *out = NULL;
    while (s->set_cur < s->n_sets) {
        size_t set = s->set_cur, n_cols = op->schema->n_fields, col;
        engine_chunk *in, *c;
        int64_t row, gid = grouping_id(s->sets[set], s->n_keys);
        if (s->set_files[set] == NULL) {
            s->set_cur++;
            continue;
        }
        if (s->set_sub == NULL)
            SILT_RETURN_IF_ERROR(sets_spill_open(op, s, set, err));
        SILT_RETURN_IF_ERROR(engine_op_next(s->set_sub, &in, err));
        if (in == NULL) {
            engine_op_close(s->set_sub);
            s->set_sub = NULL;
            engine_spill_file_remove(s->set_files[set]);
            s->set_cur++;
            continue;
        }
        /* the sub-aggregate's columns stay valid until its next call, which comes after ours */
        SILT_RETURN_IF_ERROR(engine_chunk_new(&c, op, n_cols, in->batch.n_rows, err));
        for (col = 0; col + 1 < n_cols; col++)
            c->batch.cols[col] = in->batch.cols[col];
        c->sel = in->sel;
        c->n_sel = in->n_sel;
        SILT_RETURN_IF_ERROR(vec_new(&c->batch.cols[n_cols - 1], op->batch_arena,
                                     col_type_primitive(COL_LONG), in->batch.n_rows, err));
        for (row = 0; row < in->batch.n_rows; row++)
            ((int64_t *)c->batch.cols[n_cols - 1]->values)[row] = gid;
        *out = c;
        return SILT_OK;
    }
    return SILT_OK;
}

/*
 * How many more groups the table can take within the budget: half the
 * room, because the slot and group arrays double in steps (the old copies
 * stay in the arena until it is reset), and operators above this one need
 * a little memory too.
 */
static int64_t groups_that_fit(engine_op *op, const hagg_state *s)
{
    int64_t held = (int64_t)arena_bytes_used(s->table_arena);
    int64_t per_group = s->table.n_groups > 256 ? held / s->table.n_groups + 64 : 512;
    int64_t fit = (engine_mem_room(op) / 2 - held) / (2 * per_group);
    return fit < 0 ? 0 : fit;
}

/*
 * Whether every row of a chunk may start a new group and the table still
 * fits: then the chunk is added as it is, without first probing which of
 * its groups the table has (one hash and probe per row instead of two).
 */
static int room_for_rows(engine_op *op, const hagg_state *s, int64_t n_rows)
{
    if (s->sets != NULL ? s->set_files != NULL : s->spill != NULL)
        return 0;
    return groups_that_fit(op, s) >= n_rows;
}

/*
 * Adds a chunk under the memory budget (agg_spill.c explains why this is
 * exact). Rows of groups in the table are always added. Rows of new groups
 * are added while the table's bytes (estimated per group, twice over for
 * a doubling slot array) still fit half the operator's room; from the first row
 * that does not fit on, the table takes no new groups, and the rows of
 * groups it does not have go to partition files. Rows are added in input
 * order within each group, so first/last/collect_list stay right.
 */
static silt_status add_budgeted(engine_op *op, hagg_state *s, const engine_chunk *in,
                                col_vec **key_vals, col_vec **args, col_vec **filters,
                                size_t set, silt_error *err)
{
    int grouping_sets = s->sets != NULL;
    const col_batch *b = &in->batch;
    int64_t n = in->n_sel + 1, n_found, n_missing, n_take = 0, k, j, m;
    int32_t *found = arena_alloc(s->scratch, sizeof(int32_t) * (size_t)n);
    int32_t *missing = arena_alloc(s->scratch, sizeof(int32_t) * (size_t)n);
    int32_t *take = arena_alloc(s->scratch, sizeof(int32_t) * (size_t)n);
    if (found == NULL || missing == NULL || take == NULL)
        return err_nomem(err);
    if (room_for_rows(op, s, in->n_sel))
        return engine_agg_table_add(&s->table, b->n_rows, in->sel, in->n_sel, key_vals, args, filters,
                             s->scratch, err);
    SILT_RETURN_IF_ERROR(engine_agg_table_find(&s->table, in->sel, in->n_sel, key_vals, s->scratch,
                                        found, &n_found, missing, &n_missing, err));
    if (grouping_sets ? s->set_files == NULL : s->spill == NULL) {
        int64_t fit = groups_that_fit(op, s);
        n_take = fit < 0 ? 0 : (fit < n_missing ? fit : n_missing);
        if (n_take < n_missing && grouping_sets)
            SILT_RETURN_IF_ERROR(sets_spill_start(op, s, err));
        else if (n_take < n_missing)
            SILT_RETURN_IF_ERROR(engine_agg_spill_new(&s->spill, op, s->spill_level, s->keys, s->n_keys,
                                               s->aggs, s->n_aggs, err));
    }
    /* The rows added now: found ones and the first n_take missing ones, in row order. */
    for (k = 0, j = 0, m = 0; k < n_found || j < n_take;)
        take[m++] = (j >= n_take || (k < n_found && found[k] < missing[j])) ? found[k++]
                                                                          : missing[j++];
    SILT_RETURN_IF_ERROR(engine_agg_table_add(&s->table, b->n_rows, take, m, key_vals, args, filters,
                                       s->scratch, err));
    if (n_take == n_missing)
        return SILT_OK;
    /* The rest: groups just added take their later rows, the others are spilled. */
    SILT_RETURN_IF_ERROR(engine_agg_table_find(&s->table, missing + n_take, n_missing - n_take,
                                        key_vals, s->scratch, found, &n_found, take, &m, err));
    if (grouping_sets)
        SILT_RETURN_IF_ERROR(sets_spill_write(op, s, set, b, take, m, err));
    else
        SILT_RETURN_IF_ERROR(engine_agg_spill_write(s->spill, b, take, m, key_vals, err));
    return engine_agg_table_add(&s->table, b->n_rows, found, n_found, key_vals, args, filters,
                         s->scratch, err);
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
    if (s->spill != NULL || (s->sets == NULL && spill_possible(op, s)))
        return add_budgeted(op, s, in, key_vals, args, filters, 0, err);
    if (s->sets == NULL)
        return engine_agg_table_add(&s->table, b->n_rows, in->sel, in->n_sel, key_vals, args, filters,
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
        if (sets_spill_possible(op, s))
            SILT_RETURN_IF_ERROR(add_budgeted(op, s, in, keys, args, filters, set, err));
        else
            SILT_RETURN_IF_ERROR(engine_agg_table_add(&s->table, b->n_rows, in->sel, in->n_sel, keys,
                                               args, filters, s->scratch, err));
    }
    return SILT_OK;
}

/*
 * The table's memory is the bytes its arena handed out; add_budgeted keeps
 * it under the operator's room when spilling is possible. What is kept
 * must fit, or the query fails with [OUT_OF_MEMORY] (global aggregates,
 * grouping sets, or state growing inside groups: collect_list).
 */
static silt_status agg_account(engine_op *op, hagg_state *s, silt_error *err)
{
    return engine_op_charge_to(op, (int64_t)arena_bytes_used(s->table_arena), "aggregation",
                               err);
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
        SILT_RETURN_IF_ERROR(agg_account(op, s, err));
    }
    arena_reset(s->scratch);
    if (s->n_keys == 0 && s->sets == NULL && s->table.n_groups == 0) {
        /* A global aggregate has one row even without input. */
        SILT_RETURN_IF_ERROR(
            engine_agg_table_add(&s->table, 0, NULL, 0, NULL, NULL, NULL, s->scratch, err));
    }
    s->result = arena_calloc(s->table_arena, n_cols ? n_cols : 1, sizeof(col_vec *));
    if (s->result == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(engine_agg_table_finish(&s->table, s->table_arena, s->result, err));
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
    s->spill = NULL;
    s->set_files = NULL;
    s->set_sub = NULL;
    return engine_agg_table_init(&s->table, op->ctx, s->table_arena, n_table_keys, key_types, s->aggs,
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
        if (s->spill == NULL && s->set_files == NULL)
            return SILT_OK;
        if (s->result != NULL) {
            /* The groups kept in memory are out: give their memory to the partitions. */
            engine_agg_table_clear(&s->table);
            memset(&s->table, 0, sizeof(s->table));
            arena_reset(s->table_arena);
            s->result = NULL;
            SILT_RETURN_IF_ERROR(engine_op_charge_to(op, 0, "aggregation", err));
        }
        if (s->set_files != NULL)
            return sets_spill_next(op, s, out, err);
        return engine_agg_spill_next(s->spill, out, err);
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
    engine_agg_spill_close(s->spill);
    engine_op_close(s->set_sub);
    s->set_sub = NULL;
    engine_agg_table_clear(&s->table);
    memset(&s->table, 0, sizeof(s->table));
}

void engine_agg_set_spill_level(engine_op *agg, int level)
{
    ((hagg_state *)agg->state)->spill_level = level;
}

static const engine_op_vtable hagg_vt = {"hash_aggregate", hagg_open, hagg_next, hagg_close, NULL};

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
