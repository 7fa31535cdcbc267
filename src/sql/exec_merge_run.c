/*
 * exec_merge_run.c - MERGE on the engine (docs/dml.md "MERGE"): the
 * target scan, carrying each row's file and position, joined with the
 * source by the engine's hash join (the source is the build side, shared
 * by every worker's copy of the chain), into sinks that feed the Delta
 * modify sink (delta/modify.h).
 *
 *   source: run once and kept (in memory, or in a spill file when it
 *           would take more than a quarter of what the statement may
 *           still use), each row numbered (_src_row), so that every pass
 *           reads the same rows and a byte per source row can say whether
 *           it matched;
 *   find:   candidate files JOIN source (LEFT JOIN with WHEN NOT MATCHED
 *           BY SOURCE) into a sink that marks the matched source rows,
 *           fails on a target row matched twice
 *           (DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE; a
 *           probe row's matches come out together, on one worker) and
 *           counts per file the rows a clause changes;
 *   rewrite: the files with a change LEFT JOIN source (ordered: each file's
 *           rows in their order), the clauses' CASEs over each batch, into
 *           the modify sink's writers;
 *   insert: the source rows not marked, through WHEN NOT MATCHED.
 * Nothing is committed before every pass finished: a failure (the
 * multiple-match error included) leaves the table as it was.
 */
#include <stdatomic.h>
#include <string.h>

#include "delta/stats.h"
#include "engine/spill.h"
#include "sql/merge_int.h"
#include "sql/modify_int.h"
#include "util/time.h"

#define MULTI_MATCH                                                                                \
    "[DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE] Cannot perform Merge as multiple "   \
    "source rows matched and attempted to modify the same target row in the Delta table in "      \
    "possibly conflicting ways"

/* ---- the source, materialised --------------------------------------------------------- */

#define FEW_KEYS 64

typedef struct key_range {
    int kind;           /* 0 unusable type, -1 every value null so far, 1 lo/hi hold */
    delta_value lo, hi;
    /* the non-null values themselves while there are at most FEW_KEYS (page skipping) */
    delta_value *few;
    size_t n_few;
    int many;
} key_range;

typedef struct src_store {
    const col_type *schema; /* the source's columns, then _src_row */
    arena *a;               /* the batches while in memory (a root: freed when spilled) */
    col_batch **batches;
    size_t n, cap;
    spill_file *file;       /* set once the source went to disk */
    int64_t n_rows, charged;
    key_range *ranges;      /* per key: the source key values' range (file pruning) */
    /* deletion vectors: the target scans skip pages no source key can be in (NULL = none) */
    const dpred *scan_pred;
} src_store;

static void src_store_free(void *p)
{
    src_store *st = p;
    arena_free(st->a);
    st->a = NULL;
}

static silt_status store_schema(binder *b, const col_type *src, const col_type **out,
                                silt_error *err)
{
    size_t n = src->n_fields;
    col_field *fields = arena_calloc(b->a, n + 2, sizeof(col_field));
    if (fields == NULL)
        return err_nomem(err);
    memcpy(fields, src->fields, n * sizeof(col_field));
    fields[n].name = "_src_row";
    fields[n].type = col_type_primitive(COL_LONG);
    *out = col_type_struct(b->a, n + 1, fields);
    return *out != NULL ? SILT_OK : err_nomem(err);
}

/* Byte-wise order of two strings (Delta's order for string statistics). */
static int bytes_cmp(const char *a, size_t a_len, const char *b, size_t b_len)
{
    int c = memcmp(a, b, a_len < b_len ? a_len : b_len);
    if (c != 0)
        return c;
    return a_len < b_len ? -1 : a_len > b_len;
}

static int range_type(col_type_id id)
{
    return id == COL_STRING || id == COL_BYTE || id == COL_SHORT || id == COL_INT ||
           id == COL_LONG || id == COL_DATE || id == COL_TIMESTAMP || id == COL_TIMESTAMP_NTZ;
}

/* Keeps row's value of v among r's few values (until there are more than FEW_KEYS). */
static silt_status few_add(binder *b, key_range *r, const col_vec *v, int64_t row,
                           silt_error *err)
{
    delta_value *x;
    if (r->many)
        return SILT_OK;
    if (r->n_few == FEW_KEYS) {
        r->many = 1;
        return SILT_OK;
    }
    if (r->few == NULL && (r->few = arena_calloc(b->a, FEW_KEYS, sizeof(delta_value))) == NULL)
        return err_nomem(err);
    x = &r->few[r->n_few++];
    x->type = r->lo.type;
    if (v->type->id == COL_STRING) {
        int32_t len;
        const char *s = col_vec_str(v, row, &len);
        if ((x->v.s.ptr = arena_strndup(b->a, s, (size_t)len)) == NULL)
            return err_nomem(err);
        x->v.s.len = (size_t)len;
    } else {
        x->v.i = vec_get_int(v, row);
    }
    return SILT_OK;
}

/*
 * With deletion vectors and no WHEN NOT MATCHED BY SOURCE: the target rows a MERGE changes
 * have one of the few source key values, so the scans may skip the row groups and pages
 * whose statistics hold none of them (key = v1 OR key = v2 ...); their rows stay as they are.
 */
static silt_status plan_scan_pred(sql_merge_plan *p, src_store *st, silt_error *err)
{
    size_t k, i;
    for (k = 0; k < p->n_keys; k++) {
        const key_range *r = &st->ranges[k];
        dpred *chain = NULL;
        if (r->kind != 1 || r->many || r->n_few == 0)
            continue;
        for (i = 0; i < r->n_few; i++) {
            dpred *eq = arena_calloc(p->b->a, 1, sizeof(*eq));
            if (eq == NULL)
                return err_nomem(err);
            eq->kind = DPRED_CMP;
            eq->op = DPRED_EQ;
            eq->column = p->table->fields[p->target_key[k]].name;
            eq->literal = r->few[i];
            if (chain != NULL) {
                dpred *or = arena_calloc(p->b->a, 1, sizeof(*or));
                if (or == NULL)
                    return err_nomem(err);
                or->kind = DPRED_OR;
                or->column = eq->column; /* one column: pages can refute it */
                or->left = chain;
                or->right = eq;
                eq = or;
            }
            chain = eq;
        }
        st->scan_pred = chain;
        return SILT_OK;
    }
    return SILT_OK;
}

/* Widens r by the non-null values of v (strings copied into a when they become a bound). */
static silt_status range_add(binder *b, key_range *r, const col_vec *v, int64_t n_rows,
                             silt_error *err)
{
    int64_t row;
    int is_str = v->type->id == COL_STRING;
    if (r->kind == 0)
        return SILT_OK;
    for (row = 0; row < n_rows; row++) {
        int first = r->kind < 0;
        if (col_vec_is_null(v, row))
            continue;
        if (is_str) {
            int32_t len;
            const char *s = col_vec_str(v, row, &len);
            if (first || bytes_cmp(s, (size_t)len, r->lo.v.s.ptr, r->lo.v.s.len) < 0) {
                if ((r->lo.v.s.ptr = arena_strndup(b->a, s, (size_t)len)) == NULL)
                    return err_nomem(err);
                r->lo.v.s.len = (size_t)len;
            }
            if (first || bytes_cmp(s, (size_t)len, r->hi.v.s.ptr, r->hi.v.s.len) > 0) {
                if ((r->hi.v.s.ptr = arena_strndup(b->a, s, (size_t)len)) == NULL)
                    return err_nomem(err);
                r->hi.v.s.len = (size_t)len;
            }
        } else {
            int64_t x = vec_get_int(v, row);
            if (first || x < r->lo.v.i)
                r->lo.v.i = x;
            if (first || x > r->hi.v.i)
                r->hi.v.i = x;
        }
        r->kind = 1;
        SILT_RETURN_IF_ERROR(few_add(b, r, v, row, err));
    }
    return SILT_OK;
}

/* Moves the batches held so far into a spill file; later ones go there directly. */
static silt_status store_to_disk(binder *b, src_store *st, silt_error *err)
{
    arena *scratch = arena_new(b->a, "merge source spill");
    size_t idx;
    silt_status rc;
    if (scratch == NULL)
        return err_nomem(err);
    rc = engine_spill_file_create(&st->file, b->ctx, b->a, st->schema, err);
    for (idx = 0; idx < st->n && rc == SILT_OK; idx++) {
        arena_reset(scratch);
        rc = engine_spill_file_write(st->file, st->batches[idx], NULL, st->batches[idx]->n_rows,
                                     scratch, err);
    }
    arena_free(scratch);
    SILT_RETURN_IF_ERROR(rc);
    arena_free(st->a);
    st->a = NULL;
    st->batches = NULL;
    st->n = st->cap = 0;
    engine_mem_release(b->ctx, st->charged);
    st->charged = 0;
    return SILT_OK;
}

/* Keeps one dense batch of the source (columns and _src_row), in memory or on disk. */
static silt_status store_add(binder *b, src_store *st, col_batch *batch, silt_error *err)
{
    int64_t bytes;
    if (st->file != NULL) {
        arena *scratch = arena_new(b->a, "merge source batch");
        silt_status rc;
        if (scratch == NULL)
            return err_nomem(err);
        rc = engine_spill_file_write(st->file, batch, NULL, batch->n_rows, scratch, err);
        arena_free(scratch);
        return rc;
    }
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 64;
        col_batch **grown = arena_realloc(st->a, st->batches, st->cap * sizeof(*grown),
                                          cap * sizeof(*grown));
        if (grown == NULL)
            return err_nomem(err);
        st->batches = grown;
        st->cap = cap;
    }
    st->batches[st->n++] = batch;
    /* the source's memory is the statement's: past a quarter of what is left it goes to disk
     * (the join's build side needs room too) */
    bytes = (int64_t)arena_bytes_used(st->a);
    if (b->ctx->mem_limit > 0 && bytes - st->charged > engine_mem_free(b->ctx) / 4)
        return store_to_disk(b, st, err);
    SILT_RETURN_IF_ERROR(engine_mem_charge(b->ctx, bytes - st->charged, "MERGE source", err));
    st->charged = bytes;
    return SILT_OK;
}

/* A chunk of the source plan as a dense batch in st->a (or a scratch arena when spilled). */
static silt_status dense_source(src_store *st, arena *a, const engine_chunk *c, col_batch **out,
                                silt_error *err)
{
    col_batch *d = arena_calloc(a, 1, sizeof(*d));
    size_t n = st->schema->n_fields - 1, col;
    col_vec *rowv;
    int64_t *ids, *idx = arena_alloc(a, sizeof(int64_t) * (size_t)(c->n_sel + 1)), k;
    if (d == NULL || idx == NULL || (d->cols = arena_calloc(a, n + 2, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    for (k = 0; k < c->n_sel; k++)
        idx[k] = ENGINE_ROW(c->sel, k);
    /* a copy: the chunk's vectors are the operator's until its next call */
    for (col = 0; col < n; col++)
        SILT_RETURN_IF_ERROR(vec_gather(&d->cols[col], a, c->batch.cols[col], idx, c->n_sel,
                                        err));
    SILT_RETURN_IF_ERROR(vec_new(&rowv, a, col_type_primitive(COL_LONG), c->n_sel, err));
    ids = rowv->values;
    for (k = 0; k < c->n_sel; k++)
        ids[k] = st->n_rows + k;
    d->cols[n] = rowv;
    d->n_cols = n + 1;
    d->n_rows = c->n_sel;
    d->schema = st->schema;
    *out = d;
    return SILT_OK;
}

static silt_status store_chunk(sql_merge_plan *p, src_store *st, arena *scratch,
                               const engine_chunk *c, silt_error *err)
{
    col_batch *d = NULL;
    size_t k, n_rows;
    arena_reset(scratch);
    SILT_RETURN_IF_ERROR(dense_source(st, st->file != NULL ? scratch : st->a, c, &d, err));
    for (k = 0; k < p->n_keys; k++) {
        col_vec *kv;
        SILT_RETURN_IF_ERROR(expr_eval(p->source_key[k], p->b->ctx, d, NULL, d->n_rows, scratch,
                                       &kv, err));
        SILT_RETURN_IF_ERROR(range_add(p->b, &st->ranges[k], kv, d->n_rows, err));
    }
    n_rows = d->n_rows; /* store_add may spill and free d's arena (store_to_disk) */
    SILT_RETURN_IF_ERROR(store_add(p->b, st, d, err));
    st->n_rows += n_rows;
    return SILT_OK;
}

/* Runs the source's plan once into the store. */
static silt_status materialize(sql_merge_plan *p, src_store **out, silt_error *err)
{
    binder *b = p->b;
    arena *scratch;
    size_t k;
    silt_status rc;
    src_store *st = *out = arena_calloc(b->a, 1, sizeof(*st)); /* its cleanup runs with b->a */
    if (st == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(store_schema(b, p->source->schema, &st->schema, err));
    st->ranges = arena_calloc(b->a, p->n_keys + 1, sizeof(key_range));
    st->a = arena_new(NULL, "merge source");
    if (st->ranges == NULL || st->a == NULL || arena_on_cleanup(b->a, src_store_free, st) == 0) {
        arena_free(st->a);
        st->a = NULL;
        return err_nomem(err);
    }
    for (k = 0; k < p->n_keys; k++) {
        col_type_id id = p->source_key[k]->type->id;
        st->ranges[k].kind = range_type(id) ? -1 : 0;
        st->ranges[k].lo.type = st->ranges[k].hi.type = id;
    }
    if ((scratch = arena_new(b->a, "merge source scratch")) == NULL)
        return err_nomem(err);
    rc = engine_op_open(p->source, err);
    while (rc == SILT_OK) {
        engine_chunk *c;
        rc = engine_op_next(p->source, &c, err);
        if (rc != SILT_OK || c == NULL)
            break;
        if (c->n_sel > 0)
            rc = store_chunk(p, st, scratch, c, err);
    }
    engine_op_close(p->source);
    arena_free(scratch);
    if (rc == SILT_OK && st->file != NULL)
        rc = engine_spill_file_finish(st->file, err);
    return rc;
}

/* ---- reading the store: a scan operator (morsels = batches while in memory) ------------- */

typedef struct store_scan {
    src_store *st;
    size_t next;
} store_scan;

static silt_status store_morsel(void *payload, size_t m, size_t *cursor, arena *batch_arena,
                                col_batch **out, silt_error *err)
{
    store_scan *ss = payload;
    (void)batch_arena;
    (void)err;
    *out = NULL;
    if (*cursor != 0 || m >= ss->st->n)
        return SILT_OK;
    *cursor = 1;
    *out = ss->st->batches[m]; /* read-only: the join and the sinks copy what they keep */
    return SILT_OK;
}

static silt_status store_serial(void *payload, arena *batch_arena, col_batch **out,
                                silt_error *err)
{
    store_scan *ss = payload;
    if (ss->st->file != NULL)
        return engine_spill_file_read(ss->st->file, batch_arena, out, err);
    *out = ss->next < ss->st->n ? ss->st->batches[ss->next++] : NULL;
    return SILT_OK;
}

/* A fresh scan of the whole store (each pass reads it from its start). */
static silt_status store_op(binder *b, src_store *st, engine_op **out, silt_error *err)
{
    store_scan *ss = arena_calloc(b->a, 1, sizeof(*ss));
    if (ss == NULL)
        return err_nomem(err);
    ss->st = st;
    if (st->file != NULL)
        engine_spill_file_rewind(st->file);
    SILT_RETURN_IF_ERROR(engine_op_scan(out, b->ctx, st->schema, store_serial, ss, err));
    if (st->file == NULL)
        engine_op_scan_set_morsels(*out, store_morsel, ss, st->n);
    return SILT_OK;
}

/* ---- the join chain ------------------------------------------------------------------- */

/*
 * target scan [old columns, _row_index, _file] -> project [table columns (new ones NULL),
 * _file, _row_index] -> hash join (build: the store) on the keys and the rest of ON.
 */
static silt_status join_chain(sql_merge_plan *p, src_store *st, const size_t *files, size_t n,
                              engine_join_type type, engine_op **out, silt_error *err)
{
    binder *b = p->b;
    sql_target_scan *ts;
    engine_op *scan, *left, *right;
    expr **e = arena_calloc(b->a, p->n_table + 3, sizeof(expr *));
    expr **lk = arena_calloc(b->a, p->n_keys + 1, sizeof(expr *));
    size_t col, k;
    const col_type *sch;
    if (e == NULL || lk == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(sql_target_scan_new(b, &ts, p->t->store, p->t->snap, files, n, 1, err));
    if (st->scan_pred != NULL)
        sql_target_scan_set_preds(ts, st->scan_pred, 1);
    sch = sql_target_scan_schema(ts);
    for (col = 0; col < p->n_table; col++) {
        const col_type *ct = p->table->fields[col].type;
        if (col < p->n_old)
            SILT_RETURN_IF_ERROR(expr_column(&e[col], b->a, (int64_t)col, ct, err));
        else /* schema evolution: old rows have no value */
            SILT_RETURN_IF_ERROR(expr_lit_null(&e[col], b->a, ct, err));
    }
    SILT_RETURN_IF_ERROR(expr_column(&e[p->n_table], b->a, (int64_t)p->n_old + 1,
                                     sch->fields[p->n_old + 1].type, err));
    SILT_RETURN_IF_ERROR(expr_column(&e[p->n_table + 1], b->a, (int64_t)p->n_old,
                                     sch->fields[p->n_old].type, err));
    SILT_RETURN_IF_ERROR(sql_target_scan_op(b, ts, &scan, err));
    SILT_RETURN_IF_ERROR(engine_op_project(&left, b->ctx, scan, e, NULL, p->n_table + 2, err));
    for (k = 0; k < p->n_keys; k++)
        SILT_RETURN_IF_ERROR(expr_column(&lk[k], b->a, (int64_t)p->target_key[k],
                                         p->table->fields[p->target_key[k]].type, err));
    SILT_RETURN_IF_ERROR(store_op(b, st, &right, err));
    SILT_RETURN_IF_ERROR(engine_op_hash_join(out, b->ctx, left, right, type, lk, p->source_key,
                                             p->n_keys, p->on_rest, err));
    if (type == JOIN_LEFT)
        engine_join_set_ordered(*out);
    return SILT_OK;
}

/* The batch's rows as the clauses' input: dense, the rows where keep is set. */
static silt_status rows_where(arena *a, const col_batch *b, const uint8_t *keep, int64_t n_keep,
                              col_batch **out, silt_error *err)
{
    if (n_keep == b->n_rows) {
        *out = (col_batch *)b;
        return SILT_OK;
    }
    return col_batch_filter(out, a, b, keep, err);
}

/* Each row's action from one side's CASE (rows where want is set; others untouched). */
static silt_status side_actions(const sql_merge_side *side, engine_ctx *ctx, arena *a,
                                const col_batch *b, const uint8_t *want, int64_t n_want,
                                uint8_t *action, silt_error *err)
{
    col_batch *in;
    col_vec *v;
    int64_t row, k = 0;
    if (n_want == 0)
        return SILT_OK;
    if (side->const_action >= 0) {
        for (row = 0; row < b->n_rows; row++)
            if (want[row])
                action[row] = (uint8_t)side->const_action;
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(rows_where(a, b, want, n_want, &in, err));
    SILT_RETURN_IF_ERROR(expr_eval(side->action, ctx, in, NULL, in->n_rows, a, &v, err));
    for (row = 0; row < b->n_rows; row++) {
        int32_t code;
        if (!want[row])
            continue;
        code = col_vec_is_null(v, k) ? 0 : ((const int32_t *)v->values)[k];
        k++;
        if (code < 0 || code > DELTA_MERGE_DELETE)
            return err_set(err, SILT_INVALID, "a MERGE clause gave the unknown action %d",
                           (int)code);
        action[row] = (uint8_t)code;
    }
    return SILT_OK;
}

/* Per worker: the last matched target row seen (a probe row's matches come out together). */
typedef struct last_row {
    int64_t file, row;
} last_row;

typedef struct merge_run {
    sql_merge_plan *p;
    src_store *st;
    delta_modify *m;
    sql_worker_ctxs *wc;
    last_row *last;          /* per worker */
    atomic_uchar *src_matched; /* per source row */
    int64_t *changed;        /* per snapshot file: rows a clause changes (find) */
    int cdc, insert_cdc;
    int dv; /* deletion vectors: mark changed rows, write only the updated ones */
    atomic_llong ident_used; /* identity values reserved so far */
} merge_run;

/*
 * Marks which rows are matched and which repeat the previous row (the same target row matched
 * by another source row): match[row], dup[row]. Marks the matched source rows.
 */
static silt_status mark_rows(merge_run *r, size_t worker, const col_batch *b, uint8_t *match,
                             uint8_t *dup, silt_error *err)
{
    const sql_merge_plan *p = r->p;
    const col_vec *sr = b->cols[SQL_MERGE_SRC_ROW_COL(p)];
    const col_vec *fv = b->cols[SQL_MERGE_FILE_COL(p)];
    const col_vec *ri = b->cols[SQL_MERGE_ROW_INDEX_COL(p)];
    last_row *last = &r->last[worker];
    int64_t row;
    for (row = 0; row < b->n_rows; row++) {
        int64_t f = vec_get_int(fv, row), i = vec_get_int(ri, row), s;
        match[row] = (uint8_t)vec_is_valid(sr, row);
        dup[row] = (uint8_t)(match[row] && f == last->file && i == last->row);
        if (!match[row])
            continue;
        last->file = f;
        last->row = i;
        s = vec_get_int(sr, row);
        if (s < 0 || s >= r->st->n_rows)
            return err_set(err, SILT_INVALID, "a MERGE join row names source row %lld",
                           (long long)s);
        atomic_store_explicit(&r->src_matched[s], 1, memory_order_relaxed);
        /* PROTOCOL (Delta MERGE): a target row two source rows match is an error, except
         * when the only WHEN MATCHED clause deletes unconditionally. */
        if (dup[row] && p->has_matched && !p->multiple_matches_ok)
            return err_set(err, SILT_RUNTIME, MULTI_MATCH);
    }
    return SILT_OK;
}

/* What happens to each row: matched rows by WHEN MATCHED, the others by NOT MATCHED BY SOURCE;
 * a repeated row keeps KEEP (it is dropped). n_of[k] counts rows per side wanted. */
static silt_status batch_actions(merge_run *r, size_t worker, const col_batch *b,
                                 const uint8_t *match, const uint8_t *dup, uint8_t *action,
                                 silt_error *err)
{
    const sql_merge_plan *p = r->p;
    arena *a = r->wc->scratch[worker];
    uint8_t *want_m = arena_calloc(a, (size_t)b->n_rows + 1, 1);
    uint8_t *want_s = arena_calloc(a, (size_t)b->n_rows + 1, 1);
    int64_t row, n_m = 0, n_s = 0;
    if (want_m == NULL || want_s == NULL)
        return err_nomem(err);
    memset(action, DELTA_MERGE_KEEP, (size_t)b->n_rows);
    for (row = 0; row < b->n_rows; row++) {
        want_m[row] = (uint8_t)(p->has_matched && match[row] && !dup[row]);
        want_s[row] = (uint8_t)(p->has_by_source && !match[row]);
        n_m += want_m[row];
        n_s += want_s[row];
    }
    SILT_RETURN_IF_ERROR(side_actions(&p->matched, &r->wc->ctx[worker], a, b, want_m, n_m,
                                      action, err));
    return side_actions(&p->by_source, &r->wc->ctx[worker], a, b, want_s, n_s, action, err);
}

/*
 * What both passes' sinks do first with a worker's batch: check the worker and the
 * interrupt, reset its scratch arena, and mark the batch's matched and duplicated rows
 * (mark_rows); action gets room for batch_actions.
 */
static silt_status sink_begin(merge_run *r, size_t worker, const col_batch *b, const char *what,
                               arena **a_out, uint8_t **match, uint8_t **dup, uint8_t **action,
                               silt_error *err)
{
    arena *a;
    if (worker >= r->wc->width)
        return err_set(err, SILT_INVALID, "MERGE %s sink: worker %zu", what, worker);
    SILT_RETURN_IF_ERROR(engine_check_interrupt(&r->wc->ctx[worker], err));
    a = *a_out = r->wc->scratch[worker];
    arena_reset(a);
    *match = arena_alloc(a, (size_t)b->n_rows + 1);
    *dup = arena_alloc(a, (size_t)b->n_rows + 1);
    *action = arena_alloc(a, (size_t)b->n_rows + 1);
    if (*match == NULL || *dup == NULL || *action == NULL)
        return err_nomem(err);
    return mark_rows(r, worker, b, *match, *dup, err);
}

/* ---- find: matches, the multiple-match check, changes per file ------------------------- */

static silt_status find_batch(void *arg, size_t worker, const col_batch *b, silt_error *err)
{
    merge_run *r = arg;
    const sql_merge_plan *p = r->p;
    arena *a;
    uint8_t *match, *dup, *action;
    int64_t row;
    SILT_RETURN_IF_ERROR(sink_begin(r, worker, b, "find", &a, &match, &dup, &action, err));
    if (!p->has_matched && !p->has_by_source)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(batch_actions(r, worker, b, match, dup, action, err));
    for (row = 0; row < b->n_rows; row++) {
        int64_t f;
        if (action[row] == DELTA_MERGE_KEEP)
            continue;
        f = vec_get_int(b->cols[SQL_MERGE_FILE_COL(p)], row);
        if (f < 0 || (size_t)f >= p->t->snap->n_files)
            return err_set(err, SILT_INVALID, "a MERGE join row names file %lld", (long long)f);
        r->changed[f]++; /* a file's rows reach one worker */
    }
    return SILT_OK;
}

static silt_status run_sink_chain(merge_run *r, engine_op *top, engine_batch_sink_fn fn,
                                  silt_error *err)
{
    size_t w, width = engine_chain_width(top);
    SILT_RETURN_IF_ERROR(sql_worker_ctxs_new(r->p->b, width, &r->wc, err));
    r->last = arena_calloc(r->p->b->a, width, sizeof(last_row));
    if (r->last == NULL)
        return err_nomem(err);
    for (w = 0; w < width; w++)
        r->last[w].file = r->last[w].row = -1;
    return engine_run_chain(top, fn, r, err);
}

/* ---- rewrite: the changed files, each row kept, updated or dropped in its place -------- */

static silt_status table_rows(arena *a, const col_batch *b, const col_type *table,
                              col_batch **out, silt_error *err)
{
    size_t n_cols = table->n_fields;
    col_batch *t = arena_alloc(a, sizeof(*t));
    if (t == NULL || (t->cols = arena_calloc(a, n_cols + 1, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    t->schema = table;
    t->n_rows = b->n_rows;
    t->n_cols = n_cols;
    memcpy(t->cols, b->cols, n_cols * sizeof(col_vec *));
    *out = t;
    return SILT_OK;
}

/* The new values of one side's updated rows (upd) put back at their rows of out. */
static silt_status patch_side(merge_run *r, size_t worker, const sql_merge_side *side,
                              const col_batch *b, const uint8_t *upd, int64_t n_upd,
                              col_batch *out, silt_error *err)
{
    arena *a = r->wc->scratch[worker];
    col_batch *in;
    size_t col;
    if (n_upd == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(rows_where(a, b, upd, n_upd, &in, err));
    for (col = 0; col < r->p->n_table; col++) {
        col_vec *v;
        if (side->values[col] == NULL)
            continue;
        SILT_RETURN_IF_ERROR(expr_eval(side->values[col], &r->wc->ctx[worker], in, NULL,
                                       in->n_rows, a, &v, err));
        SILT_RETURN_IF_ERROR(sql_modify_patch_column(a, out->cols[col], v, upd, out->n_rows,
                                                     &out->cols[col], err));
    }
    return SILT_OK;
}

typedef struct row_masks {
    uint8_t *upd_m, *upd_s, *upd, *del, *keep;
    int64_t n_upd_m, n_upd_s, n_upd, n_del, n_keep, n_copied;
} row_masks;

static silt_status masks_of(arena *a, int64_t n, const uint8_t *match, const uint8_t *dup,
                            const uint8_t *action, row_masks *rm, silt_error *err)
{
    int64_t row;
    memset(rm, 0, sizeof(*rm));
    rm->upd_m = arena_alloc(a, (size_t)n + 1);
    rm->upd_s = arena_alloc(a, (size_t)n + 1);
    rm->upd = arena_alloc(a, (size_t)n + 1);
    rm->del = arena_alloc(a, (size_t)n + 1);
    rm->keep = arena_alloc(a, (size_t)n + 1);
    if (rm->upd_m == NULL || rm->upd_s == NULL || rm->upd == NULL || rm->del == NULL ||
        rm->keep == NULL)
        return err_nomem(err);
    for (row = 0; row < n; row++) {
        int u = action[row] == DELTA_MERGE_UPDATE && !dup[row];
        rm->upd_m[row] = (uint8_t)(u && match[row]);
        rm->upd_s[row] = (uint8_t)(u && !match[row]);
        rm->upd[row] = (uint8_t)u;
        rm->del[row] = (uint8_t)(action[row] == DELTA_MERGE_DELETE && !dup[row]);
        rm->keep[row] = (uint8_t)(!dup[row] && !rm->del[row]);
        rm->n_upd_m += rm->upd_m[row];
        rm->n_upd_s += rm->upd_s[row];
        rm->n_del += rm->del[row];
        rm->n_keep += rm->keep[row];
    }
    rm->n_upd = rm->n_upd_m + rm->n_upd_s;
    rm->n_copied = rm->n_keep - rm->n_upd;
    return SILT_OK;
}

static void count_rewrite(merge_run *r, size_t worker, const col_batch *b, const uint8_t *match,
                          const row_masks *rm)
{
    int64_t row, del_m = 0;
    for (row = 0; row < b->n_rows; row++)
        del_m += rm->del[row] && match[row];
    delta_modify_count_merge(r->m, worker, DELTA_MERGE_MATCHED_UPDATED, rm->n_upd_m);
    delta_modify_count_merge(r->m, worker, DELTA_MERGE_BY_SOURCE_UPDATED, rm->n_upd_s);
    delta_modify_count_merge(r->m, worker, DELTA_MERGE_MATCHED_DELETED, del_m);
    delta_modify_count_merge(r->m, worker, DELTA_MERGE_BY_SOURCE_DELETED, rm->n_del - del_m);
    delta_modify_count_merge(r->m, worker, DELTA_MERGE_COPIED, rm->n_copied);
}

/* PROTOCOL: Change Data Files: the old values of deleted rows and of updated rows (pre-image),
 * the new values of updated rows (post-image). */
static silt_status rewrite_changes(merge_run *r, size_t worker, const col_batch *old,
                                   const col_batch *out, const row_masks *rm, silt_error *err)
{
    arena *a = r->wc->scratch[worker];
    col_batch *sel;
    if (!r->cdc)
        return SILT_OK;
    if (rm->n_del > 0) {
        SILT_RETURN_IF_ERROR(col_batch_filter(&sel, a, old, rm->del, err));
        SILT_RETURN_IF_ERROR(delta_modify_changes(r->m, worker, sel, "delete", err));
    }
    if (rm->n_upd == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(col_batch_filter(&sel, a, old, rm->upd, err));
    SILT_RETURN_IF_ERROR(delta_modify_changes(r->m, worker, sel, "update_preimage", err));
    SILT_RETURN_IF_ERROR(col_batch_filter(&sel, a, out, rm->upd, err));
    return delta_modify_changes(r->m, worker, sel, "update_postimage", err);
}

/*
 * Deletion vectors: the target rows a clause updates or deletes marked by their position in
 * their file (_file and _row_index after the table columns), a run of one file at a time.
 */
static silt_status mark_changed(merge_run *r, size_t worker, const col_batch *b,
                                const row_masks *rm, uint8_t *chg, silt_error *err)
{
    const col_vec *fv = b->cols[r->p->n_table], *pv = b->cols[r->p->n_table + 1];
    int64_t row, start = 0;
    if (pv->type->id != COL_LONG || pv->dictionary != NULL || fv->dictionary != NULL)
        return err_set(err, SILT_INVALID, "the MERGE scan's row positions are not plain longs");
    for (row = 0; row < b->n_rows; row++)
        chg[row] = (uint8_t)(rm->upd[row] || rm->del[row]);
    for (row = 1; row <= b->n_rows; row++) {
        int64_t f = vec_get_int(fv, start);
        if (row < b->n_rows && vec_get_int(fv, row) == f)
            continue;
        SILT_RETURN_IF_ERROR(delta_modify_mark_deleted(r->m, worker, (size_t)f,
                                                       (const int64_t *)pv->values + start,
                                                       chg + start, (size_t)(row - start), err));
        start = row;
    }
    return SILT_OK;
}

static silt_status rewrite_batch(void *arg, size_t worker, const col_batch *b, silt_error *err)
{
    merge_run *r = arg;
    const sql_merge_plan *p = r->p;
    arena *a;
    uint8_t *match, *dup, *action;
    col_batch *old = NULL, *out = NULL, *kept = NULL;
    row_masks rm;
    SILT_RETURN_IF_ERROR(sink_begin(r, worker, b, "rewrite", &a, &match, &dup, &action, err));
    SILT_RETURN_IF_ERROR(batch_actions(r, worker, b, match, dup, action, err));
    SILT_RETURN_IF_ERROR(masks_of(a, b->n_rows, match, dup, action, &rm, err));
    SILT_RETURN_IF_ERROR(table_rows(a, b, p->table, &old, err));
    SILT_RETURN_IF_ERROR(table_rows(a, b, p->table, &out, err));
    SILT_RETURN_IF_ERROR(patch_side(r, worker, &p->matched, b, rm.upd_m, rm.n_upd_m, out, err));
    SILT_RETURN_IF_ERROR(patch_side(r, worker, &p->by_source, b, rm.upd_s, rm.n_upd_s, out, err));
    if (r->dv) { /* the old rows stay in their files, marked; only the updated ones are new */
        uint8_t *chg = arena_alloc(a, (size_t)b->n_rows + 1);
        if (chg == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(mark_changed(r, worker, b, &rm, chg, err));
        rm.keep = rm.upd;
        rm.n_keep = rm.n_upd;
        rm.n_copied = 0;
    }
    count_rewrite(r, worker, b, match, &rm);
    SILT_RETURN_IF_ERROR(rewrite_changes(r, worker, old, out, &rm, err));
    SILT_RETURN_IF_ERROR(rows_where(a, out, rm.keep, rm.n_keep, &kept, err));
    return delta_modify_write(r->m, worker, kept, err);
}

/* ---- insert: the source rows no target row matched ------------------------------------ */

/* The identity values of one batch of inserted rows: a range reserved for it (workers insert
 * at once; values are unique, a step apart, as Delta's are per task). */
static silt_status assign_identity(merge_run *r, col_batch *rows, arena *a, silt_error *err)
{
    const sql_merge_plan *p = r->p;
    long long base = atomic_fetch_add(&r->ident_used, (long long)rows->n_rows);
    col_vec *v;
    int64_t k, value;
    SILT_RETURN_IF_ERROR(col_vec_new(&v, a, col_type_primitive(COL_LONG), rows->n_rows, 0, err));
    for (k = 0; k < rows->n_rows; k++) {
        if (__builtin_mul_overflow((int64_t)base + k, p->ident_step, &value) ||
            __builtin_add_overflow(value, p->ident_first, &value))
            return err_set(err, SILT_RUNTIME, "[ARITHMETIC_OVERFLOW] the identity column's next "
                           "value overflows BIGINT");
        ((int64_t *)v->values)[k] = value;
    }
    rows->cols[p->ident_col] = v;
    return SILT_OK;
}

static silt_status insert_batch(void *arg, size_t worker, const col_batch *b, silt_error *err)
{
    merge_run *r = arg;
    const sql_merge_plan *p = r->p;
    const col_vec *sr = b->cols[b->n_cols - 1];
    arena *a;
    uint8_t *keep, *all, *action;
    col_batch *in, *rows;
    int64_t row, n_keep = 0, n_ins = 0;
    size_t col;
    if (worker >= r->wc->width)
        return err_set(err, SILT_INVALID, "MERGE insert sink: worker %zu", worker);
    SILT_RETURN_IF_ERROR(engine_check_interrupt(&r->wc->ctx[worker], err));
    a = r->wc->scratch[worker];
    arena_reset(a);
    keep = arena_alloc(a, (size_t)b->n_rows + 1);
    if (keep == NULL)
        return err_nomem(err);
    for (row = 0; row < b->n_rows; row++) {
        keep[row] = !atomic_load_explicit(&r->src_matched[vec_get_int(sr, row)],
                                          memory_order_relaxed);
        n_keep += keep[row];
    }
    if (n_keep == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(rows_where(a, b, keep, n_keep, &in, err));
    action = arena_calloc(a, (size_t)in->n_rows + 1, 1);
    all = arena_alloc(a, (size_t)in->n_rows + 1);
    if (action == NULL || all == NULL)
        return err_nomem(err);
    memset(all, 1, (size_t)in->n_rows);
    SILT_RETURN_IF_ERROR(side_actions(&p->insert, &r->wc->ctx[worker], a, in, all, in->n_rows,
                                      action, err));
    for (row = 0; row < in->n_rows; row++)
        n_ins += action[row] != 0;
    if (n_ins == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(rows_where(a, in, action, n_ins, &in, err));
    rows = arena_calloc(a, 1, sizeof(*rows));
    if (rows == NULL || (rows->cols = arena_calloc(a, p->n_table + 1, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    rows->schema = p->table;
    rows->n_rows = in->n_rows;
    rows->n_cols = p->n_table;
    for (col = 0; col < p->n_table; col++)
        SILT_RETURN_IF_ERROR(expr_eval(p->insert.values[col], &r->wc->ctx[worker], in, NULL,
                                       in->n_rows, a, &rows->cols[col], err));
    if (p->ident_col >= 0)
        SILT_RETURN_IF_ERROR(assign_identity(r, rows, a, err));
    delta_modify_count_merge(r->m, worker, DELTA_MERGE_INSERTED, rows->n_rows);
    /* A commit with cdc files is read from them alone, so once the MERGE changed a target row
     * its inserts are change rows too; an insert-only MERGE writes none and its add files are
     * its changes, as Delta's. */
    if (r->insert_cdc)
        SILT_RETURN_IF_ERROR(delta_modify_changes(r->m, worker, rows, "insert", err));
    return delta_modify_write(r->m, worker, rows, err);
}

/* ---- which files ---------------------------------------------------------------------- */

/*
 * Without WHEN NOT MATCHED BY SOURCE only target rows a source row matches change, so a
 * target file whose key statistics lie outside the source keys' range is neither read nor
 * rewritten. keep[f] says which files are candidates.
 */
static silt_status prune_files(sql_merge_plan *p, const src_store *st, uint8_t *keep,
                               silt_error *err)
{
    dpred preds[2 * 8];
    size_t n = 0, k, kept;
    const delta_snapshot *snap = p->t->snap;
    memset(keep, 1, snap->n_files);
    if (p->has_by_source)
        return SILT_OK;
    for (k = 0; k < p->n_keys && k < 8; k++) {
        const key_range *r = &st->ranges[k];
        if (r->kind == 0)
            continue;
        memset(&preds[n], 0, 2 * sizeof(dpred));
        preds[n].kind = preds[n + 1].kind = DPRED_CMP;
        preds[n].column = preds[n + 1].column = p->table->fields[p->target_key[k]].name;
        preds[n].op = DPRED_GE;
        preds[n + 1].op = DPRED_LE;
        preds[n].literal = r->lo;
        preds[n + 1].literal = r->hi;
        if (r->kind < 0) { /* every source key is null (or no source row): nothing can match */
            preds[n].kind = DPRED_IS_NULL;
            preds[n + 1].kind = DPRED_IS_NOT_NULL;
        }
        n += 2;
    }
    if (n == 0)
        return SILT_OK;
    return dstats_prune_files(snap, preds, n, keep, &kept, err);
}

static silt_status files_where(binder *b, const uint8_t *keep, const int64_t *changed,
                               size_t n_files, size_t **out, size_t *n_out, silt_error *err)
{
    size_t f;
    *n_out = 0;
    if ((*out = arena_calloc(b->a, n_files + 1, sizeof(size_t))) == NULL)
        return err_nomem(err);
    for (f = 0; f < n_files; f++)
        if (keep != NULL ? keep[f] != 0 : changed[f] > 0)
            (*out)[(*n_out)++] = f;
    return SILT_OK;
}

/* ---- the statement -------------------------------------------------------------------- */

static silt_status find_pass(merge_run *r, const size_t *files, size_t n, silt_error *err)
{
    engine_op *top;
    /* an empty source matches nothing, but NOT MATCHED BY SOURCE still sees every row */
    if (n == 0 || (r->st->n_rows == 0 && !r->p->has_by_source))
        return SILT_OK;
    SILT_RETURN_IF_ERROR(join_chain(r->p, r->st, files, n,
                                    r->p->has_by_source ? JOIN_LEFT : JOIN_INNER, &top, err));
    return run_sink_chain(r, top, find_batch, err);
}

static silt_status rewrite_pass(merge_run *r, const size_t *files, size_t n, silt_error *err)
{
    engine_op *top;
    size_t idx;
    if (n == 0)
        return SILT_OK;
    /* with deletion vectors the commit removes the touched files (delta_modify_dv_on) */
    for (idx = 0; idx < n && !r->dv; idx++)
        SILT_RETURN_IF_ERROR(delta_modify_remove(r->m, &r->p->t->snap->files[files[idx]], err));
    SILT_RETURN_IF_ERROR(join_chain(r->p, r->st, files, n, JOIN_LEFT, &top, err));
    return run_sink_chain(r, top, rewrite_batch, err);
}

static silt_status insert_pass(merge_run *r, silt_error *err)
{
    engine_op *top;
    if (!r->p->has_insert || r->st->n_rows == 0)
        return SILT_OK;
    r->insert_cdc = r->cdc && delta_modify_merge_changed(r->m) > 0;
    SILT_RETURN_IF_ERROR(store_op(r->p->b, r->st, &top, err));
    return run_sink_chain(r, top, insert_batch, err);
}

static silt_status run_passes(merge_run *r, silt_error *err)
{
    sql_merge_plan *p = r->p;
    binder *b = p->b;
    size_t n_files = p->t->snap->n_files, n_look, n_touch;
    size_t *look, *touch;
    uint8_t *keep = arena_calloc(b->a, n_files + 1, 1);
    int64_t t0, t1;
    r->changed = arena_calloc(b->a, n_files + 1, sizeof(int64_t));
    r->src_matched = arena_calloc(b->a, (size_t)r->st->n_rows + 1, sizeof(atomic_uchar));
    if (keep == NULL || r->changed == NULL || r->src_matched == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(prune_files(p, r->st, keep, err));
    if (r->dv && !p->has_by_source)
        SILT_RETURN_IF_ERROR(plan_scan_pred(p, r->st, err));
    SILT_RETURN_IF_ERROR(files_where(b, keep, NULL, n_files, &look, &n_look, err));
    t0 = time_monotonic_nanos();
    SILT_RETURN_IF_ERROR(find_pass(r, look, n_look, err));
    t1 = time_monotonic_nanos();
    SILT_RETURN_IF_ERROR(files_where(b, NULL, r->changed, n_files, &touch, &n_touch, err));
    SILT_RETURN_IF_ERROR(rewrite_pass(r, touch, n_touch, err));
    SILT_RETURN_IF_ERROR(insert_pass(r, err));
    delta_modify_set_times(r->m, t1 - t0, time_monotonic_nanos() - t1);
    return SILT_OK;
}

silt_status sql_merge_run(sql_merge_plan *p, delta_merge_metrics *metrics, silt_error *err)
{
    binder *b = p->b;
    src_store *st;
    merge_run r;
    delta_modify *m = NULL;
    int64_t t0 = time_monotonic_nanos();
    silt_status rc;
    memset(&r, 0, sizeof(r));
    memset(metrics, 0, sizeof(*metrics));
    p->mo.op = DELTA_MODIFY_MERGE;
    p->mo.n_workers = b->ctx->pool != NULL ? tpool_width(b->ctx->pool) : 1;
    SILT_RETURN_IF_ERROR(materialize(p, &st, err));
    rc = delta_modify_begin(&m, p->t->store, p->t->snap, &p->mo, err);
    if (rc == SILT_OK) {
        delta_modify_set_source(m, st->n_rows, time_monotonic_nanos() - t0);
        r.p = p;
        r.st = st;
        r.m = m;
        r.cdc = delta_modify_cdc_on(m);
        r.dv = delta_modify_dv_on(m);
        rc = run_passes(&r, err);
    }
    if (rc == SILT_OK && p->ident_col >= 0 && atomic_load(&r.ident_used) > 0)
        delta_modify_set_identity_mark(m, p->table->fields[p->ident_col].name,
                                       p->ident_first +
                                           (int64_t)(atomic_load(&r.ident_used) - 1) *
                                               p->ident_step);
    if (rc == SILT_OK)
        rc = delta_modify_commit_merge(m, metrics, NULL, err);
    delta_modify_free(m);
    return rc;
}
