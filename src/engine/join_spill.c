/*
 * join_spill.c - grace hash join: when the build side (the right child) of
 * a hash join outgrows the memory budget, both sides are split by a hash
 * of their join keys into SPILL_PARTITIONS files each, and every pair of
 * partitions is then joined by an ordinary in-memory hash join over two
 * spill scans (spill_int.h).
 *
 * Why this keeps every join type right: rows with equal keys land in the
 * same partition on both sides, so each left row meets all the build rows
 * it can match inside one partition pair, and each build row all its left
 * rows. Unmatched rows are therefore decided per partition: LEFT/FULL/ANTI
 * emit the unmatched left rows of each partition, RIGHT/FULL the unmatched
 * build rows. Rows with a NULL key never match: they are dropped, or, when
 * the join type keeps unmatched rows of their side, written to a file of
 * their own and streamed out at the end with NULLs for the other side (a
 * partition could not hold them: they would all land in one). The extra
 * non-equi condition is evaluated by the partition's join as before.
 *
 * A partition whose build side still does not fit spills again inside its
 * own join, one level deeper, splitting on other hash bits; past
 * SPILL_MAX_LEVEL (one key value bigger than the budget) it fails with
 * [OUT_OF_MEMORY].
 */
#include "engine/spill_int.h"

#include <string.h>

#include "util/hashmap.h"

struct join_spill {
    engine_op *op;        /* the join that spilled */
    int level;
    engine_join_type type;
    expr **lkeys, **rkeys;
    size_t n_keys;
    const expr *cond;
    arena *a;             /* partition files; freed with the operator */
    arena *scratch;
    spill_file *build[SPILL_PARTITIONS];
    spill_file *probe[SPILL_PARTITIONS];
    spill_file *null_build, *null_probe; /* NULL-key rows the join type emits */
    int nulls_done;
    int probed;           /* the left side is partitioned */
    size_t part;          /* partition being joined */
    engine_op *sub;       /* its join, open; NULL between partitions */
};

silt_status engine_join_spill_new(join_spill **out, engine_op *op, int level, engine_join_type type,
                           expr **lkeys, expr **rkeys, size_t n_keys, const expr *cond,
                           silt_error *err)
{
    join_spill *js = arena_calloc(op->op_arena, 1, sizeof(*js));
    size_t p;
    if (js == NULL || (js->a = arena_new(op->op_arena, "join_spill")) == NULL ||
        (js->scratch = arena_new(js->a, "join_spill_scratch")) == NULL)
        return err_nomem(err);
    js->op = op;
    js->level = level;
    js->type = type;
    js->lkeys = lkeys;
    js->rkeys = rkeys;
    js->n_keys = n_keys;
    js->cond = cond;
    for (p = 0; p < SPILL_PARTITIONS; p++) {
        SILT_RETURN_IF_ERROR(
            engine_spill_file_create(&js->build[p], op->ctx, js->a, op->children[1]->schema, err));
        SILT_RETURN_IF_ERROR(
            engine_spill_file_create(&js->probe[p], op->ctx, js->a, op->children[0]->schema, err));
    }
    SILT_RETURN_IF_ERROR(
        engine_spill_file_create(&js->null_build, op->ctx, js->a, op->children[1]->schema, err));
    SILT_RETURN_IF_ERROR(
        engine_spill_file_create(&js->null_probe, op->ctx, js->a, op->children[0]->schema, err));
    *out = js;
    return SILT_OK;
}

/* Whether unmatched rows of a side are part of the result. */
static int keeps_unmatched(engine_join_type type, int build_side)
{
    if (build_side)
        return type == JOIN_RIGHT || type == JOIN_FULL;
    return type == JOIN_LEFT || type == JOIN_FULL || type == JOIN_LEFT_ANTI;
}

/*
 * Writes the live rows of a batch to the partitions of their key hashes.
 * keys are the key expressions over the batch's columns.
 */
#define NULL_PART SPILL_PARTITIONS /* rows with a NULL key */

static silt_status partition_rows(join_spill *js, expr **keys, spill_file **files,
                                  spill_file *nulls, const col_batch *b, const int32_t *sel,
                                  int64_t n_sel, silt_error *err)
{
    arena *a = js->scratch;
    col_vec **kv = arena_calloc(a, js->n_keys ? js->n_keys : 1, sizeof(col_vec *));
    int32_t *rows = arena_alloc(a, sizeof(int32_t) * (size_t)(n_sel ? n_sel : 1));
    uint8_t *part = arena_alloc(a, (size_t)(n_sel ? n_sel : 1));
    int64_t count[SPILL_PARTITIONS + 1] = {0}, k;
    size_t idx, p;
    if (kv == NULL || rows == NULL || part == NULL)
        return err_nomem(err);
    for (idx = 0; idx < js->n_keys; idx++)
        SILT_RETURN_IF_ERROR(expr_eval(keys[idx], js->op->ctx, b, sel, n_sel, a, &kv[idx], err));
    for (k = 0; k < n_sel; k++) {
        int64_t row = ENGINE_ROW(sel, k);
        uint64_t h = 0x10f;
        int has_null = 0;
        for (idx = 0; idx < js->n_keys; idx++) {
            has_null |= !vec_is_valid(kv[idx], row);
            h = vec_hash_row(kv[idx], row, h);
        }
        part[k] = has_null ? NULL_PART : (uint8_t)spill_partition_of(util_hash_u64(h), js->level);
        count[part[k]]++;
    }
    for (p = 0; p <= SPILL_PARTITIONS; p++) {
        spill_file *f = p == NULL_PART ? nulls : files[p];
        int64_t n = 0;
        if (count[p] == 0 || f == NULL)
            continue;
        for (k = 0; k < n_sel; k++)
            if (part[k] == p)
                rows[n++] = (int32_t)ENGINE_ROW(sel, k);
        SILT_RETURN_IF_ERROR(engine_spill_file_write(f, b, rows, n, a, err));
    }
    return SILT_OK;
}

silt_status engine_join_spill_add_build(join_spill *js, const col_batch *b, const int32_t *sel,
                                 int64_t n_sel, silt_error *err)
{
    spill_file *nulls = keeps_unmatched(js->type, 1) ? js->null_build : NULL;
    silt_status rc = partition_rows(js, js->rkeys, js->build, nulls, b, sel, n_sel, err);
    arena_reset(js->scratch);
    return rc;
}

/* Drains the left child into the probe partitions. */
static silt_status partition_probe(join_spill *js, silt_error *err)
{
    size_t p;
    for (;;) {
        engine_chunk *in;
        silt_status rc;
        SILT_RETURN_IF_ERROR(engine_op_next(js->op->children[0], &in, err));
        if (in == NULL)
            break;
        rc = partition_rows(js, js->lkeys, js->probe,
                            keeps_unmatched(js->type, 0) ? js->null_probe : NULL, &in->batch,
                            in->sel, in->n_sel, err);
        arena_reset(js->scratch);
        SILT_RETURN_IF_ERROR(rc);
    }
    for (p = 0; p < SPILL_PARTITIONS; p++) {
        SILT_RETURN_IF_ERROR(engine_spill_file_finish(js->build[p], err));
        SILT_RETURN_IF_ERROR(engine_spill_file_finish(js->probe[p], err));
    }
    SILT_RETURN_IF_ERROR(engine_spill_file_finish(js->null_build, err));
    SILT_RETURN_IF_ERROR(engine_spill_file_finish(js->null_probe, err));
    js->probed = 1;
    return SILT_OK;
}

/* Whether a partition pair can produce rows for this join type. */
static int partition_matters(const join_spill *js, size_t p)
{
    int has_build = engine_spill_file_rows(js->build[p]) > 0;
    int has_probe = engine_spill_file_rows(js->probe[p]) > 0;
    switch (js->type) {
    case JOIN_LEFT:
    case JOIN_LEFT_ANTI: return has_probe;
    case JOIN_RIGHT: return has_build;
    case JOIN_FULL: return has_build || has_probe;
    default: return has_build && has_probe;
    }
}

static silt_status open_partition(join_spill *js, size_t p, silt_error *err)
{
    engine_ctx *ctx = js->op->ctx;
    engine_op *left, *right, *sub;
    SILT_RETURN_IF_ERROR(engine_spill_op_scan(&left, ctx, js->probe[p], err));
    SILT_RETURN_IF_ERROR(engine_spill_op_scan(&right, ctx, js->build[p], err));
    SILT_RETURN_IF_ERROR(engine_op_hash_join(&sub, ctx, left, right, js->type, js->lkeys,
                                             js->rkeys, js->n_keys, js->cond, err));
    engine_join_set_spill_level(sub, js->level + 1);
    js->sub = sub;
    return engine_op_open(sub, err);
}

void engine_join_spill_close(join_spill *js)
{
    if (js == NULL)
        return;
    engine_op_close(js->sub);
    js->sub = NULL;
}

/*
 * The next batch of NULL-key rows: left rows (with NULL right columns
 * unless the join returns left columns only), then build rows with NULL
 * left columns. *out = NULL when both files are read.
 */
static silt_status next_null_rows(join_spill *js, engine_chunk **out, silt_error *err)
{
    engine_op *op = js->op;
    size_t n_left = op->children[0]->schema->n_fields, n_out = op->schema->n_fields, col;
    col_batch *b = NULL;
    int left = 1;
    engine_chunk *c;
    *out = NULL;
    SILT_RETURN_IF_ERROR(engine_spill_file_read(js->null_probe, op->batch_arena, &b, err));
    if (b == NULL) {
        left = 0;
        SILT_RETURN_IF_ERROR(engine_spill_file_read(js->null_build, op->batch_arena, &b, err));
        if (b == NULL)
            return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(engine_chunk_new(&c, op, n_out, b->n_rows, err));
    for (col = 0; col < n_out; col++) {
        int from_left = col < n_left;
        if (from_left == left)
            c->batch.cols[col] = b->cols[left ? col : col - n_left];
        else
            SILT_RETURN_IF_ERROR(col_vec_new_nulls(&c->batch.cols[col], op->batch_arena,
                                                   op->schema->fields[col].type, b->n_rows,
                                                   err));
    }
    *out = c;
    return SILT_OK;
}

silt_status engine_join_spill_next(join_spill *js, engine_chunk **out, silt_error *err)
{
    *out = NULL;
    if (!js->probed)
        SILT_RETURN_IF_ERROR(partition_probe(js, err));
    while (js->part < SPILL_PARTITIONS) {
        if (js->sub == NULL) {
            if (!partition_matters(js, js->part)) {
                js->part++;
                continue;
            }
            SILT_RETURN_IF_ERROR(open_partition(js, js->part, err));
        }
        SILT_RETURN_IF_ERROR(engine_op_next(js->sub, out, err));
        if (*out != NULL) {
            (*out)->batch.schema = js->op->schema;
            return SILT_OK;
        }
        /* This pair is done: its operators and its files go now. */
        engine_join_spill_close(js);
        engine_spill_file_remove(js->build[js->part]);
        engine_spill_file_remove(js->probe[js->part]);
        js->part++;
    }
    if (!js->nulls_done) {
        SILT_RETURN_IF_ERROR(next_null_rows(js, out, err));
        js->nulls_done = *out == NULL;
    }
    return SILT_OK;
}
