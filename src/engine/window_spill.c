/*
 * window_spill.c - window functions beyond the memory budget (spill_int.h).
 *
 * A window function only looks at the rows of its own partition, so a
 * window whose input outgrows its room splits the input by a hash of the
 * PARTITION BY keys into SPILL_PARTITIONS files (the child's columns as they
 * came, every row of a partition in one file) and then runs a fresh window
 * operator over each file in turn. That operator sorts and computes in
 * memory, or spills again one level deeper (other hash bits) when its file
 * still does not fit. A single partition larger than the room cannot be
 * split this way and fails with [OUT_OF_MEMORY], as does a window without
 * PARTITION BY (op_window.c does not spill those).
 *
 * The output is grouped by partition but the partitions of different
 * files are not in key order; nothing above a window relies on its order
 * (an ORDER BY is always planned as its own sort).
 */
#include "engine/spill_int.h"

#include "util/hashmap.h"

struct win_spill {
    engine_op *op; /* the window operator that spills */
    int level;
    const int64_t *part_cols;
    size_t n_part;
    arena *a, *scratch;
    spill_file *part[SPILL_PARTITIONS];
    size_t cur;
    engine_op *sub;
};

silt_status engine_win_spill_new(win_spill **out, engine_op *op, int level, const int64_t *part_cols,
                          size_t n_part, silt_error *err)
{
    win_spill *ws = arena_calloc(op->op_arena, 1, sizeof(*ws));
    size_t p;
    if (ws == NULL || (ws->a = arena_new(op->op_arena, "window_spill")) == NULL ||
        (ws->scratch = arena_new(ws->a, "window_spill_scratch")) == NULL)
        return err_nomem(err);
    ws->op = op;
    ws->level = level;
    ws->part_cols = part_cols;
    ws->n_part = n_part;
    for (p = 0; p < SPILL_PARTITIONS; p++)
        SILT_RETURN_IF_ERROR(
            engine_spill_file_create(&ws->part[p], op->ctx, ws->a, op->children[0]->schema, err));
    *out = ws;
    return SILT_OK;
}

silt_status engine_win_spill_write(win_spill *ws, const col_batch *b, const int32_t *sel, int64_t n_sel,
                            silt_error *err)
{
    arena *a = ws->scratch;
    int32_t *rows = arena_alloc(a, sizeof(int32_t) * (size_t)(n_sel ? n_sel : 1));
    uint8_t *part = arena_alloc(a, (size_t)(n_sel ? n_sel : 1));
    int64_t count[SPILL_PARTITIONS] = {0}, k;
    size_t idx, p;
    silt_status rc = SILT_OK;
    if (rows == NULL || part == NULL)
        return err_nomem(err);
    for (k = 0; k < n_sel; k++) {
        int64_t row = ENGINE_ROW(sel, k);
        uint64_t h = 0x3c1;
        for (idx = 0; idx < ws->n_part; idx++)
            h = vec_hash_row(b->cols[ws->part_cols[idx]], row, h);
        part[k] = (uint8_t)spill_partition_of(util_hash_u64(h), ws->level);
        count[part[k]]++;
    }
    for (p = 0; p < SPILL_PARTITIONS && rc == SILT_OK; p++) {
        int64_t m = 0;
        if (count[p] == 0)
            continue;
        for (k = 0; k < n_sel; k++)
            if (part[k] == p)
                rows[m++] = (int32_t)ENGINE_ROW(sel, k);
        rc = engine_spill_file_write(ws->part[p], b, rows, m, a, err);
    }
    arena_reset(a);
    return rc;
}

void engine_win_spill_close(win_spill *ws)
{
    if (ws == NULL)
        return;
    engine_op_close(ws->sub);
    ws->sub = NULL;
}

/* A window like ws->op (same keys, functions and limit) over partition file p. */
static silt_status open_partition(win_spill *ws, size_t p, silt_error *err)
{
    engine_op *scan, *sub;
    SILT_RETURN_IF_ERROR(engine_spill_op_scan(&scan, ws->op->ctx, ws->part[p], err));
    SILT_RETURN_IF_ERROR(engine_window_clone(&sub, ws->op->ctx, ws->op, scan, err));
    engine_window_set_spill_level(sub, ws->level + 1);
    ws->sub = sub;
    return engine_op_open(sub, err);
}

silt_status engine_win_spill_next(win_spill *ws, engine_chunk **out, silt_error *err)
{
    *out = NULL;
    while (ws->cur < SPILL_PARTITIONS) {
        if (ws->sub == NULL) {
            SILT_RETURN_IF_ERROR(engine_spill_file_finish(ws->part[ws->cur], err));
            if (engine_spill_file_rows(ws->part[ws->cur]) == 0) {
                engine_spill_file_remove(ws->part[ws->cur]);
                ws->cur++;
                continue;
            }
            SILT_RETURN_IF_ERROR(open_partition(ws, ws->cur, err));
        }
        SILT_RETURN_IF_ERROR(engine_op_next(ws->sub, out, err));
        if (*out != NULL) {
            (*out)->batch.schema = ws->op->schema;
            return SILT_OK;
        }
        engine_win_spill_close(ws);
        engine_spill_file_remove(ws->part[ws->cur]);
        ws->cur++;
    }
    return SILT_OK;
}
