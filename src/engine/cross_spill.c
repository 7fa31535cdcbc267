/*
 * cross_spill.c - cross joins (and inner joins with only a non-equi
 * condition) beyond the memory budget: a block nested loop (spill_int.h).
 *
 * Without join keys nothing can be partitioned: every left row meets every
 * build row. When the build side (the right child) outgrows half its room,
 * it goes to one spill file, and so does the whole left side. The build
 * file is then read in blocks that fit the room; for each block an
 * ordinary in-memory join (the same type and condition) holds the block
 * and streams the left file past it. Memory stays at one block plus a
 * batch, and the left file is read once per block: a small left side
 * costs little to re-read, and a small build side never gets here (it is
 * held in memory and the left side streams once, as before).
 *
 * Only join types whose result is the union of the results of the blocks
 * take this path: CROSS and INNER. (LEFT/RIGHT/FULL/SEMI/ANTI without keys
 * would need a row's matches across all blocks and still fail with
 * [OUT_OF_MEMORY].) The rows come out block by block, in no promised order.
 */
#include "engine/spill_int.h"

struct cross_spill {
    engine_op *op; /* the join that spilled */
    engine_join_type type;
    const expr *cond;
    arena *a;
    spill_file *build, *probe;
    int probed;
    int64_t block_rows; /* build rows per block */
    int64_t block_left; /* build rows the current block may still take */
    int build_done;     /* the build file is read to its end */
    /* A build batch read but only partly given to a block (a block may end inside a batch). */
    arena *hold;
    col_batch *pending;
    int64_t pending_off;
    engine_op *sub;     /* the join of the current block, open */
};

int engine_cross_spill_supported(engine_join_type type, size_t n_keys)
{
    return n_keys == 0 && (type == JOIN_CROSS || type == JOIN_INNER);
}

silt_status engine_cross_spill_new(cross_spill **out, engine_op *op, engine_join_type type,
                            const expr *cond, silt_error *err)
{
    cross_spill *cs = arena_calloc(op->op_arena, 1, sizeof(*cs));
    if (cs == NULL || (cs->a = arena_new(op->op_arena, "cross_spill")) == NULL ||
        (cs->hold = arena_new(cs->a, "cross_spill_hold")) == NULL)
        return err_nomem(err);
    cs->op = op;
    cs->type = type;
    cs->cond = cond;
    SILT_RETURN_IF_ERROR(engine_spill_file_create(&cs->build, op->ctx, cs->a, op->children[1]->schema,
                                           err));
    SILT_RETURN_IF_ERROR(engine_spill_file_create(&cs->probe, op->ctx, cs->a, op->children[0]->schema,
                                           err));
    *out = cs;
    return SILT_OK;
}

silt_status engine_cross_spill_add_build(cross_spill *cs, const col_batch *b, const int32_t *sel,
                                  int64_t n_sel, arena *scratch, silt_error *err)
{
    return engine_spill_file_write(cs->build, b, sel, n_sel, scratch, err);
}

/*
 * Drains the left child to its file and sizes the blocks: half the room
 * (operators above run too), at six times the build side's bytes per row
 * in the file (the join holds its rows twice, concatenating their parts,
 * and the accumulator's copies and index make a row 2-3 times its bytes
 * in the file) plus its table.
 */
static silt_status write_probe(cross_spill *cs, silt_error *err)
{
    arena *scratch = arena_new(cs->a, "cross_spill_scratch");
    int64_t rows, per_row;
    if (scratch == NULL)
        return err_nomem(err);
    for (;;) {
        engine_chunk *in;
        silt_status rc;
        SILT_RETURN_IF_ERROR(engine_op_next(cs->op->children[0], &in, err));
        if (in == NULL)
            break;
        rc = engine_spill_file_write(cs->probe, &in->batch, in->sel, in->n_sel, scratch, err);
        arena_reset(scratch);
        SILT_RETURN_IF_ERROR(rc);
    }
    arena_free(scratch);
    SILT_RETURN_IF_ERROR(engine_spill_file_finish(cs->build, err));
    SILT_RETURN_IF_ERROR(engine_spill_file_finish(cs->probe, err));
    rows = engine_spill_file_rows(cs->build);
    per_row = 6 * (rows > 0 ? engine_spill_file_bytes(cs->build) / rows : 64) + 64;
    cs->block_rows = engine_mem_room(cs->op) / 2 / per_row;
    if (cs->block_rows < 64)
        cs->block_rows = 64; /* below that the join's fixed costs dominate anyway */
    cs->build_done = rows == 0 || engine_spill_file_rows(cs->probe) == 0;
    cs->probed = 1;
    return SILT_OK;
}

/* Rows [off, off + n) of batch b, copied into arena a. */
static silt_status slice_batch(const col_batch *b, int64_t off, int64_t n, arena *a,
                               col_batch **out, silt_error *err)
{
    col_batch *s = arena_calloc(a, 1, sizeof(*s));
    int64_t *idx = arena_alloc(a, sizeof(int64_t) * (size_t)(n ? n : 1)), k;
    size_t col;
    if (s == NULL || idx == NULL ||
        (s->cols = arena_calloc(a, b->n_cols ? b->n_cols : 1, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    for (k = 0; k < n; k++)
        idx[k] = off + k;
    s->schema = b->schema;
    s->n_cols = b->n_cols;
    s->n_rows = n;
    for (col = 0; col < b->n_cols; col++)
        SILT_RETURN_IF_ERROR(vec_gather(&s->cols[col], a, b->cols[col], idx, n, err));
    *out = s;
    return SILT_OK;
}

/*
 * The build side of a block join: rows of the build file until the block
 * has block_rows of them; a batch that straddles two blocks is held and
 * its rest starts the next block. The join copies what it is given before
 * asking again, so a whole batch is handed over without copying.
 */
static silt_status block_source(void *payload, arena *a, col_batch **out, silt_error *err)
{
    cross_spill *cs = payload;
    int64_t n;
    *out = NULL;
    if (cs->block_left <= 0 || cs->build_done)
        return SILT_OK;
    if (cs->pending == NULL) {
        arena_reset(cs->hold);
        SILT_RETURN_IF_ERROR(engine_spill_file_read(cs->build, cs->hold, &cs->pending, err));
        cs->pending_off = 0;
        if (cs->pending == NULL) {
            cs->build_done = 1;
            return SILT_OK;
        }
    }
    n = cs->pending->n_rows - cs->pending_off;
    if (n > cs->block_left)
        n = cs->block_left;
    if (n == cs->pending->n_rows)
        *out = cs->pending;
    else
        SILT_RETURN_IF_ERROR(slice_batch(cs->pending, cs->pending_off, n, a, out, err));
    cs->block_left -= n;
    cs->pending_off += n;
    if (cs->pending_off == cs->pending->n_rows)
        cs->pending = NULL;
    return SILT_OK;
}

static silt_status open_block(cross_spill *cs, silt_error *err)
{
    engine_ctx *ctx = cs->op->ctx;
    engine_op *left, *right, *sub;
    cs->block_left = cs->block_rows;
    SILT_RETURN_IF_ERROR(engine_spill_op_scan(&left, ctx, cs->probe, err));
    SILT_RETURN_IF_ERROR(engine_op_scan(&right, ctx, cs->op->children[1]->schema, block_source,
                                        cs, err));
    SILT_RETURN_IF_ERROR(engine_op_hash_join(&sub, ctx, left, right, cs->type, NULL, NULL, 0,
                                             cs->cond, err));
    /* a block fits by construction: the block's join never spills again */
    engine_join_set_spill_level(sub, SPILL_MAX_LEVEL);
    cs->sub = sub;
    return engine_op_open(sub, err);
}

void engine_cross_spill_close(cross_spill *cs)
{
    if (cs == NULL)
        return;
    engine_op_close(cs->sub);
    cs->sub = NULL;
}

silt_status engine_cross_spill_next(cross_spill *cs, engine_chunk **out, silt_error *err)
{
    *out = NULL;
    if (!cs->probed)
        SILT_RETURN_IF_ERROR(write_probe(cs, err));
    for (;;) {
        if (cs->sub == NULL) {
            if (cs->build_done)
                break;
            SILT_RETURN_IF_ERROR(open_block(cs, err));
        }
        SILT_RETURN_IF_ERROR(engine_op_next(cs->sub, out, err));
        if (*out != NULL) {
            (*out)->batch.schema = cs->op->schema;
            return SILT_OK;
        }
        engine_cross_spill_close(cs);
    }
    engine_spill_file_remove(cs->build);
    engine_spill_file_remove(cs->probe);
    return SILT_OK;
}
