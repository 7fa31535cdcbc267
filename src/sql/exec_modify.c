/*
 * exec_modify.c - DELETE and UPDATE as engine pipelines over a target scan
 * whose rows carry their file, into the Delta modify sink (docs/dml.md).
 *
 * Two passes, as Spark's copy-on-write:
 *   1. find: the candidate files (after partition and stats pruning) are
 *      scanned in parallel morsels, one per file, each row tagged with its
 *      file; a sink on every worker counts per file the rows WHERE holds
 *      for and all rows. A file with no match is left alone; a file whose
 *      every row a DELETE removes goes without a rewrite.
 *   2. rewrite: the touched files are scanned again, one morsel per file,
 *      under a projection that adds whether WHERE holds. Every worker's copy
 *      of the chain feeds the modify sink, which drops the matched rows
 *      (DELETE) or evaluates the SET values over the matched rows only and
 *      puts them back at their rows (UPDATE), and writes the rows, in their
 *      file's order, through the worker's own Delta writer (delta/modify.h).
 * Files the stats prove fully matched skip pass 1 (a DELETE drops them
 * unread when their row count is known).
 */
#include <string.h>

#include "delta/modify.h"
#include "delta/scan.h"
#include "delta/stats.h"
#include "engine/engine.h"
#include "sql/exec.h"
#include "sql/modify_int.h"
#include "util/time.h"

/*
 * ---- the target scan: the table's columns and _file (the row's file, by index into the
 * snapshot). Copy-on-write DELETE and UPDATE need no row positions (a file's rows reach one
 * worker in order); MERGE's join and deletion vectors will add them with the scan's
 * row_index_column.
 */

struct sql_target_scan {
    io_store *store;
    const delta_snapshot *snap;
    const size_t *files; /* per morsel: index into snap->files */
    size_t n;
    delta_snapshot *one; /* per morsel: the snapshot with that one file */
    delta_scan **scans;  /* per morsel, open while it is read */
    const col_type *schema;
    int row_index;       /* _row_index before _file */
    size_t serial_morsel, serial_cursor;
    /* Deletion vectors: skip what the conjuncts refute, read only these columns (the
     * others are nulls; NULL = all). */
    const dpred *preds;
    size_t n_preds;
    const char *const *columns;
    size_t n_columns;
    int64_t *col_at; /* per table column: its index among columns, -1 = not read */
};

typedef sql_target_scan target_scan;

static void target_scan_free(void *p)
{
    target_scan *ts = p;
    size_t idx;
    for (idx = 0; idx < ts->n; idx++) {
        delta_scan_free(ts->scans[idx]);
        ts->scans[idx] = NULL;
    }
}

static silt_status target_schema(arena *a, const col_type *table, int row_index,
                                 const col_type **out, silt_error *err)
{
    size_t n = table->n_fields;
    col_field *fields = arena_calloc(a, n + 3, sizeof(col_field));
    if (fields == NULL)
        return err_nomem(err);
    memcpy(fields, table->fields, sizeof(col_field) * n);
    if (row_index) {
        fields[n].name = "_row_index";
        fields[n++].type = col_type_primitive(COL_LONG);
    }
    fields[n].name = "_file";
    fields[n].type = col_type_primitive(COL_LONG);
    *out = col_type_struct(a, n + 1, fields);
    return *out ? SILT_OK : err_nomem(err);
}

/* In b's arena: the open scans are freed with it when a statement fails half-way. */
silt_status sql_target_scan_new(binder *b, sql_target_scan **out, io_store *store,
                                const delta_snapshot *snap, const size_t *files, size_t n,
                                int row_index, silt_error *err)
{
    target_scan *ts = arena_calloc(b->a, 1, sizeof(*ts));
    size_t idx;
    if (ts == NULL)
        return err_nomem(err);
    *out = ts;
    ts->store = store;
    ts->snap = snap;
    ts->files = files;
    ts->n = n;
    ts->row_index = row_index;
    ts->one = arena_calloc(b->a, n + 1, sizeof(delta_snapshot));
    ts->scans = arena_calloc(b->a, n + 1, sizeof(delta_scan *));
    if (ts->one == NULL || ts->scans == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        ts->one[idx] = *snap;
        ts->one[idx].files = &snap->files[files[idx]];
        ts->one[idx].n_files = 1;
    }
    if (arena_on_cleanup(b->a, target_scan_free, ts) == 0)
        return err_nomem(err);
    return target_schema(b->a, snap->schema, row_index, &ts->schema, err);
}

const col_type *sql_target_scan_schema(const sql_target_scan *ts) { return ts->schema; }

void sql_target_scan_set_preds(sql_target_scan *ts, const dpred *preds, size_t n)
{
    ts->preds = preds;
    ts->n_preds = n;
}

/*
 * A scan that reads less, for the deletion-vector paths only: rows it does not read stay in
 * their file as they are. Row groups and pages the conjuncts refute are skipped (the row
 * index still counts them); with columns, only those are read and the rest are nulls.
 */
static silt_status target_scan_prune(binder *b, target_scan *ts, const dml_job *job,
                                     int columns, silt_error *err)
{
    const col_type *schema = job->snap->schema;
    size_t idx, k;
    ts->preds = job->scan_preds;
    ts->n_preds = job->n_scan_preds;
    if (!columns || job->pred_columns == NULL)
        return SILT_OK;
    ts->col_at = arena_calloc(b->a, schema->n_fields + 1, sizeof(int64_t));
    if (ts->col_at == NULL)
        return err_nomem(err);
    for (idx = 0; idx < schema->n_fields; idx++) {
        ts->col_at[idx] = -1;
        for (k = 0; k < job->n_pred_columns; k++)
            if (util_str_casecmp(job->pred_columns[k], schema->fields[idx].name) == 0)
                ts->col_at[idx] = (int64_t)k;
    }
    ts->columns = job->pred_columns;
    ts->n_columns = job->n_pred_columns;
    return SILT_OK;
}

/* The pruned scan's batch widened to the table's columns: the unread ones all null. */
static silt_status widen(const target_scan *ts, col_batch *src, arena *a, silt_error *err)
{
    size_t n_table = ts->snap->schema->n_fields, idx, extra = src->n_cols - ts->n_columns;
    col_vec **cols = arena_calloc(a, n_table + extra + 1, sizeof(col_vec *));
    if (cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_table; idx++) {
        if (ts->col_at[idx] >= 0)
            cols[idx] = src->cols[ts->col_at[idx]];
        else
            SILT_RETURN_IF_ERROR(col_vec_new_nulls(&cols[idx], a, ts->snap->schema->fields[idx].type,
                                                   src->n_rows, err));
    }
    for (idx = 0; idx < extra; idx++) /* _row_index */
        cols[n_table + idx] = src->cols[ts->n_columns + idx];
    src->cols = cols;
    src->n_cols = n_table + extra;
    return SILT_OK;
}

/* A file's batches with its index appended as the _file column. */
static silt_status target_morsel(void *payload, size_t m, size_t *cursor, arena *batch_arena,
                                 col_batch **out, silt_error *err)
{
    target_scan *ts = payload;
    delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
    col_batch *src, *b;
    col_vec *fv;
    int64_t *fidx, k;
    *out = NULL;
    if (ts->row_index)
        so.row_index_column = "_row_index";
    so.preds = ts->preds;
    so.n_preds = ts->n_preds;
    so.columns = ts->columns;
    so.n_columns = ts->n_columns;
    if (*cursor == 0) {
        *cursor = 1;
        delta_scan_free(ts->scans[m]);
        ts->scans[m] = NULL;
        SILT_RETURN_IF_ERROR(delta_scan_open(&ts->scans[m], ts->store, &ts->one[m], &so, err));
    }
    if (ts->scans[m] == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(delta_scan_next(ts->scans[m], batch_arena, &src, err));
    if (src == NULL) {
        delta_scan_free(ts->scans[m]);
        ts->scans[m] = NULL;
        return SILT_OK;
    }
    if (ts->columns != NULL)
        SILT_RETURN_IF_ERROR(widen(ts, src, batch_arena, err));
    b = arena_calloc(batch_arena, 1, sizeof(*b));
    fv = arena_calloc(batch_arena, 1, sizeof(*fv));
    fidx = arena_alloc(batch_arena, sizeof(int64_t) * (size_t)src->n_rows);
    if (b == NULL || fv == NULL || fidx == NULL ||
        (b->cols = arena_calloc(batch_arena, src->n_cols + 2, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    for (k = 0; k < src->n_rows; k++)
        fidx[k] = (int64_t)ts->files[m];
    fv->type = col_type_primitive(COL_LONG);
    fv->length = src->n_rows;
    fv->values = fidx;
    memcpy(b->cols, src->cols, sizeof(col_vec *) * src->n_cols);
    b->cols[src->n_cols] = fv;
    b->n_cols = src->n_cols + 1;
    b->n_rows = src->n_rows;
    b->schema = ts->schema;
    if (b->n_cols != ts->schema->n_fields)
        return err_set(err, SILT_CORRUPT, "the scan of \"%s\" produced %zu columns, not %zu",
                       ts->one[m].files[0].path, b->n_cols, ts->schema->n_fields);
    *out = b;
    return SILT_OK;
}

/* The scan read on one thread: morsel after morsel. */
static silt_status target_serial(void *payload, arena *batch_arena, col_batch **out,
                                 silt_error *err)
{
    target_scan *ts = payload;
    for (; ts->serial_morsel < ts->n; ts->serial_morsel++, ts->serial_cursor = 0) {
        SILT_RETURN_IF_ERROR(target_morsel(ts, ts->serial_morsel, &ts->serial_cursor,
                                           batch_arena, out, err));
        if (*out != NULL)
            return SILT_OK;
    }
    *out = NULL;
    return SILT_OK;
}

silt_status sql_target_scan_op(binder *b, sql_target_scan *ts, engine_op **out,
                               silt_error *err)
{
    SILT_RETURN_IF_ERROR(engine_op_scan(out, b->ctx, ts->schema, target_serial, ts, err));
    engine_op_scan_set_morsels(*out, target_morsel, ts, ts->n);
    return SILT_OK;
}

/* ---- the workers' own engine contexts ------------------------------------------------- */

/*
 * Expressions the sinks evaluate run on the workers: each gets a copy of the statement's
 * context with a root arena of its own (arenas are not thread-safe) and an equal share of
 * the memory the statement has left, as the engine's pipelines do.
 */
typedef sql_worker_ctxs worker_ctxs;

static void worker_ctxs_free(void *p)
{
    worker_ctxs *wc = p;
    size_t w;
    for (w = 0; w < wc->width; w++) {
        arena_free(wc->ctx[w].query_arena);
        wc->ctx[w].query_arena = NULL;
    }
}

silt_status sql_worker_ctxs_new(binder *b, size_t width, sql_worker_ctxs **out, silt_error *err)
{
    worker_ctxs *wc = arena_calloc(b->a, 1, sizeof(*wc));
    size_t w;
    if (wc == NULL || (wc->ctx = arena_calloc(b->a, width, sizeof(engine_ctx))) == NULL ||
        (wc->scratch = arena_calloc(b->a, width, sizeof(arena *))) == NULL ||
        arena_on_cleanup(b->a, worker_ctxs_free, wc) == 0)
        return err_nomem(err);
    for (w = 0; w < width; w++) {
        wc->ctx[w] = *b->ctx;
        wc->ctx[w].pool = NULL;
        wc->ctx[w].mem_used = 0;
        if (b->ctx->mem_limit > 0) {
            int64_t left = b->ctx->mem_limit - b->ctx->mem_used;
            wc->ctx[w].mem_limit = left > (int64_t)width ? left / (int64_t)width : 1;
        }
        wc->ctx[w].query_arena = arena_new(NULL, "modify worker");
        if (wc->ctx[w].query_arena == NULL)
            return err_nomem(err);
        wc->width = w + 1;
        wc->scratch[w] = arena_new(wc->ctx[w].query_arena, "modify batch");
        if (wc->scratch[w] == NULL)
            return err_nomem(err);
    }
    *out = wc;
    return SILT_OK;
}

/* Whether the row matched: WHERE itself (a null is no match, match_mask says so). */
static silt_status matched_expr(binder *b, const dml_job *job, expr **out, silt_error *err)
{
    if (job->pred == NULL)
        return expr_lit_bool(out, b->a, 1, err);
    *out = (expr *)job->pred;
    return SILT_OK;
}

/* The chain of both passes: the target scan under [table columns, matched, _file]. */
static silt_status target_chain(binder *b, const dml_job *job, target_scan *ts, engine_op **out,
                                silt_error *err)
{
    size_t n = job->snap->schema->n_fields, col;
    expr **e = arena_calloc(b->a, n + 3, sizeof(expr *));
    engine_op *scan;
    if (e == NULL)
        return err_nomem(err);
    for (col = 0; col < n; col++)
        SILT_RETURN_IF_ERROR(expr_column(&e[col], b->a, (int64_t)col,
                                         job->snap->schema->fields[col].type, err));
    SILT_RETURN_IF_ERROR(matched_expr(b, job, &e[n], err));
    SILT_RETURN_IF_ERROR(expr_column(&e[n + 1], b->a, (int64_t)ts->schema->n_fields - 1,
                                     col_type_primitive(COL_LONG), err));
    if (ts->row_index) /* deletion vectors: the row's position in its data file */
        SILT_RETURN_IF_ERROR(expr_column(&e[n + 2], b->a, (int64_t)ts->schema->n_fields - 2,
                                         col_type_primitive(COL_LONG), err));
    SILT_RETURN_IF_ERROR(sql_target_scan_op(b, ts, &scan, err));
    return engine_op_project(out, b->ctx, scan, e, NULL, n + 2 + (size_t)ts->row_index, err);
}

/* Per row of b: matched (out), their count. */
static int64_t match_mask(const col_batch *b, size_t n_cols, uint8_t *match)
{
    const col_vec *flag = b->cols[n_cols];
    const int8_t *v = flag->values;
    int64_t row, n = 0;
    for (row = 0; row < b->n_rows; row++) {
        match[row] = (uint8_t)(v[row] != 0 && vec_is_valid(flag, row));
        n += match[row];
    }
    return n;
}

/* ---- pass 1: rows matched per file ---------------------------------------------------- */

typedef struct file_counts {
    int64_t *match, *rows; /* per snapshot file */
} file_counts;

typedef struct count_sink {
    file_counts *fc;
    size_t n_cols, n_files;
    worker_ctxs *wc;
    delta_modify *m; /* a DELETE with deletion vectors marks its rows here, in one pass */
    int pruned;      /* pages were skipped: the rows read are not the file's */
} count_sink;

static silt_status count_marks(count_sink *cs, size_t worker, const col_batch *b,
                               const uint8_t *match, silt_error *err);

/* A batch comes from one file (one morsel), which one worker reads: its counters are its own. */
static silt_status count_batch(void *arg, size_t worker, const col_batch *b, silt_error *err)
{
    count_sink *cs = arg;
    uint8_t *match;
    int64_t f;
    if (worker >= cs->wc->width || b->n_rows == 0)
        return worker >= cs->wc->width ? err_set(err, SILT_INVALID, "count sink: worker %zu",
                                                 worker)
                                       : SILT_OK;
    f = vec_get_int(b->cols[cs->n_cols + 1], 0);
    if (f < 0 || (size_t)f >= cs->n_files)
        return err_set(err, SILT_INVALID, "a DML scan row names file %lld", (long long)f);
    arena_reset(cs->wc->scratch[worker]);
    if ((match = arena_alloc(cs->wc->scratch[worker], (size_t)b->n_rows)) == NULL)
        return err_nomem(err);
    cs->fc->match[f] += match_mask(b, cs->n_cols, match);
    if (!cs->pruned) /* else the vectors' commit removes a file left without a live row */
        cs->fc->rows[f] += b->n_rows;
    return cs->m != NULL ? count_marks(cs, worker, b, match, err) : SILT_OK;
}

/* A DELETE with deletion vectors: pass 1 marks the rows too, and there is no pass 2. */
static int marks_in_pass1(const dml_job *job, const delta_modify *m)
{
    return !job->update && delta_modify_dv_on(m);
}

static silt_status count_matches(binder *b, const dml_job *job, delta_modify *m,
                                 const size_t *files, size_t n, file_counts *fc, silt_error *err)
{
    target_scan *ts;
    engine_op *top;
    count_sink cs;
    int marks = marks_in_pass1(job, m);
    if (n == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(sql_target_scan_new(b, &ts, job->store, job->snap, files, n, marks,
                                             err));
    if (marks) /* a DELETE with deletion vectors reads only what can match */
        SILT_RETURN_IF_ERROR(target_scan_prune(b, ts, job, 1, err));
    SILT_RETURN_IF_ERROR(target_chain(b, job, ts, &top, err));
    cs.m = marks ? m : NULL;
    cs.pruned = ts->n_preds > 0;
    cs.fc = fc;
    cs.n_cols = job->snap->schema->n_fields;
    cs.n_files = job->snap->n_files;
    SILT_RETURN_IF_ERROR(sql_worker_ctxs_new(b, engine_chain_width(top), &cs.wc, err));
    return engine_run_chain(top, count_batch, &cs, err);
}

/* ---- pass 2: the modify sink ---------------------------------------------------------- */

/*
 * Whether the statement writes change data files. A DELETE with deletion vectors writes none,
 * as the Spark peer: the change data feed reads its deleted rows from the vectors' difference
 * (and a removed file's rows as deletes); an UPDATE writes its pre- and post-images.
 */
static int writes_changes(const dml_job *job, const delta_modify *m)
{
    return delta_modify_cdc_on(m) && (job->update || !delta_modify_dv_on(m));
}

typedef struct modify_sink {
    const dml_job *job;
    delta_modify *m;
    size_t n_cols; /* table columns */
    int cdc;
    int dv; /* mark the removed rows in deletion vectors, write only the updated rows */
    worker_ctxs *wc;
} modify_sink;

/* Deletion vectors: the matched rows of b (one file's) marked deleted by their position. */
static silt_status mark_rows(delta_modify *m, size_t n_cols, size_t worker, const col_batch *b,
                             const uint8_t *match, silt_error *err)
{
    const col_vec *pos = b->cols[n_cols + 2];
    int64_t f = vec_get_int(b->cols[n_cols + 1], 0);
    if (pos->type->id != COL_LONG || pos->dictionary != NULL)
        return err_set(err, SILT_INVALID, "the DML scan's row positions are not plain longs");
    return delta_modify_mark_deleted(m, worker, (size_t)f, pos->values, match,
                                     (size_t)b->n_rows, err);
}

static silt_status mark_matched(modify_sink *ms, size_t worker, const col_batch *b,
                                const uint8_t *match, silt_error *err)
{
    return mark_rows(ms->m, ms->n_cols, worker, b, match, err);
}

static silt_status count_marks(count_sink *cs, size_t worker, const col_batch *b,
                               const uint8_t *match, silt_error *err)
{
    int64_t row;
    for (row = 0; row < b->n_rows; row++)
        if (match[row])
            return mark_rows(cs->m, cs->n_cols, worker, b, match, err);
    return SILT_OK;
}

static col_batch *table_part(arena *a, const col_batch *b, size_t n_cols)
{
    col_batch *t = arena_alloc(a, sizeof(*t));
    if (t == NULL)
        return NULL;
    *t = *b;
    t->n_cols = n_cols;
    return t;
}

/* patch_column for a flat fixed-width column: a copy of old, the matched rows overwritten. */
static silt_status patch_fixed(arena *a, const col_vec *old, const col_vec *upd,
                               const uint8_t *match, int64_t n_rows, size_t width,
                               col_vec **out, silt_error *err)
{
    col_vec *dst;
    int64_t row, k = 0;
    SILT_RETURN_IF_ERROR(vec_new(&dst, a, old->type, n_rows, err));
    memcpy(dst->values, old->values, width * (size_t)n_rows);
    for (row = 0; row < n_rows; row++) {
        if (!match[row]) {
            if (!vec_is_valid(old, row))
                vec_set_null(dst, row);
            continue;
        }
        if (vec_is_valid(upd, k))
            memcpy((char *)dst->values + width * (size_t)row,
                   (const char *)upd->values + width * (size_t)k, width);
        else
            vec_set_null(dst, row);
        k++;
    }
    *out = dst;
    return SILT_OK;
}

/*
 * Column old with the matched rows (match, in order) replaced by the rows of upd: both in
 * one vector, then gathered in the file's order. Any type, nested ones included.
 */
silt_status sql_modify_patch_column(arena *a, const col_vec *old, const col_vec *upd,
                                    const uint8_t *match, int64_t n_rows, col_vec **out,
                                    silt_error *err)
{
    vec_accum acc;
    col_vec *both;
    int64_t *idx = arena_alloc(a, sizeof(int64_t) * (size_t)(n_rows ? n_rows : 1));
    int64_t row, k = 0;
    size_t width = col_type_value_width(old->type->id);
    if (idx == NULL)
        return err_nomem(err);
    if (width > 0 && !col_type_is_nested(old->type->id) && old->dictionary == NULL &&
        upd->dictionary == NULL && old->children == NULL && upd->type->id == old->type->id)
        return patch_fixed(a, old, upd, match, n_rows, width, out, err);
    vec_accum_init(&acc, a, old->type);
    SILT_RETURN_IF_ERROR(vec_accum_add(&acc, old, NULL, old->length, err));
    SILT_RETURN_IF_ERROR(vec_accum_add(&acc, upd, NULL, upd->length, err));
    SILT_RETURN_IF_ERROR(vec_accum_finish(&acc, &both, err));
    for (row = 0; row < n_rows; row++)
        idx[row] = match[row] ? n_rows + k++ : row;
    return vec_gather(out, a, both, idx, n_rows, err);
}

/*
 * UPDATE: the SET values are evaluated over the matched rows only (as Spark, an
 * expression that would fail on another row does not run there) and put back at
 * their rows, so the file keeps its order.
 */
static silt_status update_batch(modify_sink *ms, size_t worker, arena *a, col_batch *rows,
                                const uint8_t *match, int64_t n_match, silt_error *err)
{
    col_batch *matched, *post, *out;
    size_t col;
    if (n_match == 0)
        return ms->dv ? SILT_OK : delta_modify_write(ms->m, worker, rows, err);
    SILT_RETURN_IF_ERROR(col_batch_filter(&matched, a, rows, match, err));
    post = table_part(a, matched, ms->n_cols);
    out = table_part(a, rows, ms->n_cols);
    if (post == NULL || out == NULL ||
        (post->cols = arena_calloc(a, ms->n_cols + 1, sizeof(col_vec *))) == NULL ||
        (out->cols = arena_calloc(a, ms->n_cols + 1, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    for (col = 0; col < ms->n_cols; col++) {
        const expr *v = ms->job->values[col];
        post->cols[col] = matched->cols[col];
        out->cols[col] = rows->cols[col];
        if (v == NULL)
            continue;
        SILT_RETURN_IF_ERROR(expr_eval(v, &ms->wc->ctx[worker], matched, NULL, matched->n_rows,
                                       a, &post->cols[col], err));
        if (!ms->dv)
            SILT_RETURN_IF_ERROR(sql_modify_patch_column(a, rows->cols[col], post->cols[col], match,
                                          rows->n_rows, &out->cols[col], err));
    }
    /* with deletion vectors the old rows stay in their file, marked; the new ones go apart */
    SILT_RETURN_IF_ERROR(delta_modify_write(ms->m, worker, ms->dv ? post : out, err));
    if (!ms->cdc)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(delta_modify_changes(ms->m, worker, matched, "update_preimage", err));
    return delta_modify_changes(ms->m, worker, post, "update_postimage", err);
}

static silt_status sink_batch(void *arg, size_t worker, const col_batch *b, silt_error *err)
{
    modify_sink *ms = arg;
    arena *a;
    uint8_t *match, *keep;
    col_batch *rows, *sel;
    int64_t row, n_match;
    if (worker >= ms->wc->width)
        return err_set(err, SILT_INVALID, "modify sink: worker %zu of %zu", worker,
                       ms->wc->width);
    a = ms->wc->scratch[worker];
    arena_reset(a);
    match = arena_alloc(a, (size_t)b->n_rows + 1);
    keep = arena_alloc(a, (size_t)b->n_rows + 1);
    rows = table_part(a, b, ms->n_cols);
    if (match == NULL || keep == NULL || rows == NULL)
        return err_nomem(err);
    n_match = match_mask(b, ms->n_cols, match);
    delta_modify_count(ms->m, worker, n_match, ms->dv ? 0 : b->n_rows - n_match);
    if (ms->dv && n_match > 0)
        SILT_RETURN_IF_ERROR(mark_matched(ms, worker, b, match, err));
    if (ms->job->update)
        return update_batch(ms, worker, a, rows, match, n_match, err);
    for (row = 0; row < b->n_rows && !ms->dv; row++)
        keep[row] = !match[row];
    if (!ms->dv) {
        SILT_RETURN_IF_ERROR(col_batch_filter(&sel, a, rows, keep, err));
        SILT_RETURN_IF_ERROR(delta_modify_write(ms->m, worker, sel, err));
    }
    if (!ms->cdc || n_match == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(col_batch_filter(&sel, a, rows, match, err));
    return delta_modify_changes(ms->m, worker, sel, "delete", err);
}

static silt_status rewrite_files(binder *b, const dml_job *job, delta_modify *m,
                                 const size_t *files, size_t n, silt_error *err)
{
    target_scan *ts;
    modify_sink ms;
    engine_op *top;
    if (n == 0)
        return SILT_OK;
    memset(&ms, 0, sizeof(ms));
    ms.job = job;
    ms.m = m;
    ms.n_cols = job->snap->schema->n_fields;
    ms.cdc = writes_changes(job, m);
    ms.dv = delta_modify_dv_on(m);
    SILT_RETURN_IF_ERROR(sql_target_scan_new(b, &ts, job->store, job->snap, files, n, ms.dv,
                                             err));
    if (ms.dv) /* an UPDATE with deletion vectors writes the matched rows only */
        SILT_RETURN_IF_ERROR(target_scan_prune(b, ts, job, 0, err));
    SILT_RETURN_IF_ERROR(target_chain(b, job, ts, &top, err));
    SILT_RETURN_IF_ERROR(sql_worker_ctxs_new(b, engine_chain_width(top), &ms.wc, err));
    return engine_run_chain(top, sink_batch, &ms, err);
}

/* ---- the statement --------------------------------------------------------------------- */

/* Rows of a file from its stats; -1 when they do not say (or a deletion vector hides some). */
static int64_t stats_rows(binder *b, const delta_snapshot *snap, const delta_file *file)
{
    dstats st;
    dproto_mapping_mode mode = DPROTO_MAPPING_NONE;
    silt_error e = SILT_ERROR_INIT;
    int64_t rows = -1;
    if (file->stats != NULL && file->dv.storage_type == 0 &&
        dproto_get_mapping_mode(&snap->metadata, &mode, &e) == SILT_OK &&
        dstats_parse(&st, b->a, file->stats, snap->schema, mode, &e) == SILT_OK &&
        st.has_num_records)
        rows = st.num_records;
    err_clear(&e);
    return rows;
}

typedef struct file_plan {
    size_t *look, *rewrite; /* files for pass 1 / pass 2 */
    size_t n_look, n_rewrite;
    file_counts fc;
} file_plan;

/*
 * Sorts the candidate files: dropped whole now (a DELETE of a file every row of which
 * matches, without change data), looked at in pass 1, or rewritten directly.
 */
static silt_status plan_files(binder *b, const dml_job *job, delta_modify *m, file_plan *fp,
                              silt_error *err)
{
    const delta_snapshot *snap = job->snap;
    const delta_dml_options *o = job->o;
    int whole = job->pred == NULL || o->partition_only;
    int cdc = writes_changes(job, m);
    size_t idx, n = snap->n_files;
    fp->look = arena_calloc(b->a, n + 1, sizeof(size_t));
    fp->rewrite = arena_calloc(b->a, n + 1, sizeof(size_t));
    fp->fc.match = arena_calloc(b->a, n + 1, sizeof(int64_t));
    fp->fc.rows = arena_calloc(b->a, n + 1, sizeof(int64_t));
    if (fp->look == NULL || fp->rewrite == NULL || fp->fc.match == NULL || fp->fc.rows == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        const delta_file *file = &snap->files[idx];
        int all;
        int64_t rows;
        if (o->file_filter != NULL && !o->file_filter(snap, file, o->file_filter_payload))
            continue;
        all = whole || (o->file_all_match != NULL &&
                        o->file_all_match(snap, file, o->file_all_match_payload));
        if (all && (job->update || cdc)) {
            fp->rewrite[fp->n_rewrite++] = idx;
            continue;
        }
        rows = all ? stats_rows(b, snap, file) : -1;
        if (rows < 0) {
            fp->look[fp->n_look++] = idx;
            continue;
        }
        delta_modify_count(m, 0, rows, 0);
        SILT_RETURN_IF_ERROR(delta_modify_remove(m, file, err));
    }
    return SILT_OK;
}

/* After pass 1: files without a match stay; fully deleted ones go unread. */
static silt_status after_count(const dml_job *job, delta_modify *m, file_plan *fp,
                               silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < fp->n_look; idx++) {
        size_t f = fp->look[idx];
        if (fp->fc.match[f] == 0)
            continue;
        if (!job->update && !writes_changes(job, m) && fp->fc.match[f] == fp->fc.rows[f]) {
            delta_modify_count(m, 0, fp->fc.rows[f], 0);
            SILT_RETURN_IF_ERROR(delta_modify_remove(m, &job->snap->files[f], err));
            continue;
        }
        if (marks_in_pass1(job, m)) /* its rows are marked already */
            delta_modify_count(m, 0, fp->fc.match[f], 0);
        fp->rewrite[fp->n_rewrite++] = f;
    }
    return SILT_OK;
}

/*
 * An UPDATE with deletion vectors in one pass over the candidate files: the sink marks the
 * matched rows and writes their new values; a file without a match gets no vector, and
 * nothing matched commits nothing (unless a txn action asks, as below).
 */
static silt_status update_with_dv(binder *b, const dml_job *job, delta_modify *m,
                                  const file_plan *fp, delta_dml_metrics *metrics,
                                  silt_error *err)
{
    size_t n = fp->n_look + fp->n_rewrite;
    size_t *files = arena_calloc(b->a, n + 1, sizeof(size_t));
    int64_t t0 = time_monotonic_nanos();
    if (files == NULL)
        return err_nomem(err);
    memcpy(files, fp->look, fp->n_look * sizeof(size_t));
    memcpy(files + fp->n_look, fp->rewrite, fp->n_rewrite * sizeof(size_t));
    SILT_RETURN_IF_ERROR(rewrite_files(b, job, m, files, n, err));
    if (delta_modify_n_changed(m) == 0 && job->app_txn.app_id == NULL)
        return SILT_OK;
    delta_modify_set_times(m, 0, time_monotonic_nanos() - t0);
    return delta_modify_commit(m, metrics, NULL, err);
}

static silt_status run_job(binder *b, const dml_job *job, delta_modify *m,
                           delta_dml_metrics *metrics, silt_error *err)
{
    file_plan fp;
    size_t idx;
    int64_t t0, t1;
    memset(&fp, 0, sizeof(fp));
    SILT_RETURN_IF_ERROR(plan_files(b, job, m, &fp, err));
    if (job->update && delta_modify_dv_on(m))
        return update_with_dv(b, job, m, &fp, metrics, err);
    t0 = time_monotonic_nanos();
    SILT_RETURN_IF_ERROR(count_matches(b, job, m, fp.look, fp.n_look, &fp.fc, err));
    SILT_RETURN_IF_ERROR(after_count(job, m, &fp, err));
    t1 = time_monotonic_nanos();
    /* with deletion vectors the commit removes the touched files (delta_modify_dv_on) */
    for (idx = 0; idx < fp.n_rewrite && !delta_modify_dv_on(m); idx++)
        SILT_RETURN_IF_ERROR(delta_modify_remove(m, &job->snap->files[fp.rewrite[idx]], err));
    /* No row matched: Delta commits nothing, except for an UPDATE that carries an idempotent
     * write's txn action (what the Spark peer does; its DELETE commits nothing even then). */
    if (delta_modify_n_removed(m) == 0 && fp.n_rewrite == 0 &&
        (!job->update || job->app_txn.app_id == NULL))
        return SILT_OK;
    if (!marks_in_pass1(job, m))
        SILT_RETURN_IF_ERROR(rewrite_files(b, job, m, fp.rewrite, fp.n_rewrite, err));
    delta_modify_set_times(m, t1 - t0, time_monotonic_nanos() - t1);
    return delta_modify_commit(m, metrics, NULL, err);
}

silt_status sql_exec_modify(binder *b, const dml_job *job, delta_dml_metrics *metrics,
                        silt_error *err)
{
    delta_modify_options mo = DELTA_MODIFY_OPTIONS_INIT;
    delta_modify *m = NULL;
    silt_status rc;
    mo.op = job->update ? DELTA_MODIFY_UPDATE : DELTA_MODIFY_DELETE;
    mo.predicate_text = job->o->predicate_text;
    mo.user_metadata = job->o->user_metadata;
    mo.compression = job->o->compression;
    mo.app_txn = job->app_txn;
    mo.now_ms = job->o->now_ms;
    mo.now_payload = job->o->now_payload;
    mo.retry_timeout_ms = job->o->retry_timeout_ms;
    mo.read_predicate = job->o->read_predicate;
    mo.read_predicate_payload = job->o->read_predicate_payload;
    mo.n_workers = b->ctx->pool != NULL ? tpool_width(b->ctx->pool) : 1;
    memset(metrics, 0, sizeof(*metrics));
    if (mo.op == DELTA_MODIFY_UPDATE) { /* updated rows obey the CHECK constraints */
        sql_constraints *cons = NULL;
        SILT_RETURN_IF_ERROR(sql_constraints_new(b, &job->snap->metadata, job->snap->schema,
                                                 &cons, err));
        mo.check = cons != NULL ? sql_constraints_check : NULL;
        mo.check_payload = cons;
    }
    rc = delta_modify_begin(&m, job->store, job->snap, &mo, err);
    if (rc == SILT_OK)
        rc = run_job(b, job, m, metrics, err);
    delta_modify_free(m);
    return rc;
}
