/*
 * dml_merge.c - MERGE INTO by copy-on-write (dml.h).
 *
 * The source is small next to the table in the common upsert, so it is
 * held in memory and its join keys are hashed once (key bytes -> first
 * source row, with a chain for duplicate keys). Each candidate target file
 * is read into a per-file arena; per batch every row is looked up, the
 * caller's clauses decide keep/update/delete, and only a file in which
 * some row changes is removed and written back (kept rows as they were,
 * updated rows with their new values). Source rows no target row matched
 * go to the insert clause at the end. Nothing is committed before every
 * file was processed, so a failure (or the multiple-match error) leaves
 * the table as it was.
 */
#include <string.h>

#include "delta/dml_int.h"
#include "delta/scan.h"
#include "delta/write_int.h"
#include "util/mem.h"
#include "util/time.h"

#define MULTI_MATCH                                                                                \
    "[DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE] Cannot perform Merge as multiple "   \
    "source rows matched and attempted to modify the same target row in the Delta table in "      \
    "possibly conflicting ways"

typedef struct merge_ctx {
    io_store *store;
    const delta_snapshot *snap;
    const delta_merge_spec *spec;
    size_t *target_cols;   /* table column of each key */
    dml_key_index keys;    /* the source's join keys */
    const col_vec **probe; /* the key columns of the target batch being matched */
    uint8_t *source_matched;
    delta_txn *txn;
    delta_writer *w;
    dml_cdc cdc; /* change data files, when the change data feed is on */
    const col_type *schema; /* the table's schema after the MERGE (evolved or the snapshot's) */
    struct pair_buf *pairs; /* with a residual ON condition: pairs waiting for it (heap) */
    arena *a, *pair_a;
    arena *file_a;          /* where the current batch lives: stream_a or hold_a */
    arena *stream_a, *hold_a;
    delta_merge_metrics m;
    int64_t scan_ns, rewrite_ns;
} merge_ctx;

/* ---- keys -------------------------------------------------------------------------------- */

static silt_status check_keys(merge_ctx *ctx, silt_error *err)
{
    const delta_merge_spec *spec = ctx->spec;
    const col_type *schema = ctx->snap->schema;
    size_t idx, col;
    if (spec->source == NULL || (spec->n_keys == 0 && spec->on_rest == NULL))
        return err_set(err, SILT_INVALID, "MERGE needs a source and an ON condition");
    ctx->target_cols = arena_calloc(ctx->a, spec->n_keys, sizeof(size_t));
    if (ctx->target_cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < spec->n_keys; idx++) {
        const col_type *st;
        for (col = 0; col < schema->n_fields; col++)
            if (util_str_casecmp(schema->fields[col].name, spec->target_keys[idx]) == 0)
                break;
        if (col == schema->n_fields)
            return err_set(err, SILT_BIND, "MERGE key \"%s\" is not a column of the table",
                           spec->target_keys[idx]);
        if (spec->source_keys[idx] >= spec->source->n_cols)
            return err_set(err, SILT_INVALID, "MERGE source key %zu is out of range",
                           spec->source_keys[idx]);
        st = spec->source->cols[spec->source_keys[idx]]->type;
        if (!col_type_equal(st, schema->fields[col].type) || col_type_is_nested(st->id))
            return err_set(err, SILT_INVALID,
                           "MERGE key \"%s\": the source column has another type (or is nested)",
                           spec->target_keys[idx]);
        ctx->target_cols[idx] = col;
    }
    return SILT_OK;
}

static silt_status hash_source(merge_ctx *ctx, silt_error *err)
{
    const delta_merge_spec *spec = ctx->spec;
    const col_vec **cols;
    size_t k;
    ctx->source_matched = arena_calloc(ctx->a, (size_t)spec->source->n_rows + 1, 1);
    cols = arena_calloc(ctx->a, spec->n_keys + 1, sizeof(*cols));
    ctx->probe = arena_calloc(ctx->a, spec->n_keys + 1, sizeof(*ctx->probe));
    if (ctx->source_matched == NULL || cols == NULL || ctx->probe == NULL)
        return err_nomem(err);
    if (spec->n_keys == 0)
        return SILT_OK; /* a nested loop: every source row is a candidate */
    for (k = 0; k < spec->n_keys; k++)
        cols[k] = spec->source->cols[spec->source_keys[k]];
    return delta_dml_key_index_build(&ctx->keys, ctx->a, cols, spec->n_keys, spec->source->n_rows,
                               err);
}

/* ---- one target batch -------------------------------------------------------------------- */

static silt_status take_batch(arena *a, const col_batch *b, const int64_t *rows, int64_t n,
                              col_batch **out, silt_error *err)
{
    col_batch *t = arena_calloc(a, 1, sizeof(*t));
    size_t col;
    if (t == NULL || (t->cols = arena_calloc(a, b->n_cols + 1, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    t->schema = b->schema;
    t->n_rows = n;
    t->n_cols = b->n_cols;
    for (col = 0; col < b->n_cols; col++)
        SILT_RETURN_IF_ERROR(col_vec_take(&t->cols[col], a, b->cols[col], rows, n, err));
    *out = t;
    return SILT_OK;
}

/* What happens to each row of a target batch, and the new values of updated rows. */
typedef struct batch_plan {
    const col_batch *target;
    uint8_t *action;         /* per target row */
    const col_batch *upd[2]; /* updated batches of the matched / unmatched rows */
    int64_t *upd_rows[2];    /* target row of each row of upd[k] */
    int64_t n_upd[2];
    int changes;
} batch_plan;

/* Decoded batches (and plans) of one file held while none of them changes (merge_file). */
#define MERGE_HOLD_BYTES ((size_t)64 << 20)

typedef enum pass_mode {
    PASS_HOLD = 0, /* no change yet: batches are held */
    PASS_REWRITE,  /* the file changes: batches are written back as they come */
    PASS_SCAN      /* no change yet, too much to hold: batches are only looked at */
} pass_mode;

typedef struct file_pass {
    pass_mode mode;
    batch_plan *held;
    size_t n_held, cap_held;
    int reread; /* PASS_SCAN met a change: the file is read again to be rewritten */
} file_pass;

/* Runs one clause set over target rows `rows` (and their source rows, or none). */
static silt_status run_clauses(merge_ctx *ctx, batch_plan *plan, int kind, const int64_t *rows,
                               const int64_t *src_rows, int64_t n, silt_error *err)
{
    const delta_merge_spec *spec = ctx->spec;
    delta_merge_rows_fn fn = kind == 0 ? spec->matched : spec->not_matched_by_source;
    void *payload = kind == 0 ? spec->matched_payload : spec->not_matched_by_source_payload;
    col_batch *tgt = NULL, *src = NULL, *updated = NULL;
    uint8_t *action;
    int64_t idx;
    if (fn == NULL || n == 0)
        return SILT_OK;
    action = arena_calloc(ctx->file_a, (size_t)n, 1);
    if (action == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(take_batch(ctx->file_a, plan->target, rows, n, &tgt, err));
    if (kind == 0)
        SILT_RETURN_IF_ERROR(take_batch(ctx->file_a, spec->source, src_rows, n, &src, err));
    SILT_RETURN_IF_ERROR(fn(tgt, src, action, ctx->file_a, &updated, payload, err));
    for (idx = 0; idx < n; idx++) {
        if (action[idx] > DELTA_MERGE_DELETE)
            return err_set(err, SILT_INVALID, "a MERGE clause returned an unknown action %d",
                           action[idx]);
        plan->action[rows[idx]] = action[idx];
        plan->changes += action[idx] != DELTA_MERGE_KEEP;
        if (action[idx] == DELTA_MERGE_UPDATE &&
            (updated == NULL || updated->n_rows != n ||
             !col_type_equal(updated->schema, ctx->schema)))
            return err_set(err, SILT_INVALID,
                           "a MERGE clause updated rows without giving their new values in "
                           "the table's schema");
    }
    plan->upd[kind] = updated;
    plan->upd_rows[kind] = (int64_t *)rows;
    plan->n_upd[kind] = n;
    return SILT_OK;
}

/*
 * Which source rows match each target row: first[row] is the first one (in source order),
 * count[row] how many. Without a residual ON condition that is the key's hash chain.
 */
typedef struct row_matches {
    int64_t *first;
    int64_t *count;
} row_matches;

/* Pairs waiting for the residual ON condition; evaluated PAIR_CHUNK at a time. */
#define PAIR_CHUNK 65536

typedef struct pair_buf {
    int64_t t[PAIR_CHUNK], s[PAIR_CHUNK];
    int64_t n;
} pair_buf;

static silt_status flush_pairs(merge_ctx *ctx, const col_batch *target, pair_buf *pb,
                               row_matches *rm, silt_error *err)
{
    col_batch *tb = NULL, *sb = NULL;
    uint8_t *match;
    int64_t k;
    if (pb->n == 0)
        return SILT_OK;
    match = arena_calloc(ctx->pair_a, (size_t)pb->n, 1);
    if (match == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(take_batch(ctx->pair_a, target, pb->t, pb->n, &tb, err));
    SILT_RETURN_IF_ERROR(take_batch(ctx->pair_a, ctx->spec->source, pb->s, pb->n, &sb, err));
    SILT_RETURN_IF_ERROR(ctx->spec->on_rest(tb, sb, match, ctx->pair_a,
                                            ctx->spec->on_rest_payload, err));
    for (k = 0; k < pb->n; k++) {
        if (!match[k])
            continue;
        if (rm->count[pb->t[k]]++ == 0)
            rm->first[pb->t[k]] = pb->s[k];
        ctx->source_matched[pb->s[k]] = 1;
    }
    pb->n = 0;
    arena_reset(ctx->pair_a);
    return SILT_OK;
}

static silt_status add_pair(merge_ctx *ctx, const col_batch *target, pair_buf *pb,
                            row_matches *rm, int64_t t_row, int64_t s_row, silt_error *err)
{
    if (pb->n == PAIR_CHUNK)
        SILT_RETURN_IF_ERROR(flush_pairs(ctx, target, pb, rm, err));
    pb->t[pb->n] = t_row;
    pb->s[pb->n++] = s_row;
    return SILT_OK;
}

/* Matches of target row `row`, whose first source row with an equal key is first - 1 (0 =
 * none): all of them, or the pairs to check. */
static silt_status match_row(merge_ctx *ctx, const col_batch *target, int64_t row, int64_t first,
                             pair_buf *pb, row_matches *rm, silt_error *err)
{
    int64_t src;
    if (ctx->spec->n_keys == 0) {
        for (src = 0; src < ctx->spec->source->n_rows; src++)
            SILT_RETURN_IF_ERROR(add_pair(ctx, target, pb, rm, row, src, err));
        return SILT_OK;
    }
    for (src = first; src != 0; src = ctx->keys.next[src - 1]) {
        if (pb != NULL) {
            SILT_RETURN_IF_ERROR(add_pair(ctx, target, pb, rm, row, src - 1, err));
            continue;
        }
        if (rm->count[row]++ == 0)
            rm->first[row] = src - 1;
        ctx->source_matched[src - 1] = 1;
    }
    return SILT_OK;
}

static silt_status find_matches(merge_ctx *ctx, const col_batch *target, row_matches *rm,
                                silt_error *err)
{
    int64_t n = target->n_rows, row;
    pair_buf *pb = NULL;
    int64_t *first = arena_calloc(ctx->file_a, (size_t)n + 1, sizeof(int64_t));
    size_t k;
    rm->first = arena_alloc(ctx->file_a, (size_t)(n + 1) * sizeof(int64_t));
    rm->count = arena_calloc(ctx->file_a, (size_t)n + 1, sizeof(int64_t));
    if (rm->first == NULL || rm->count == NULL || first == NULL)
        return err_nomem(err);
    if (ctx->spec->n_keys > 0) {
        for (k = 0; k < ctx->spec->n_keys; k++)
            ctx->probe[k] = target->cols[ctx->target_cols[k]];
        SILT_RETURN_IF_ERROR(delta_dml_key_index_probe(&ctx->keys, ctx->file_a, ctx->probe, n, first,
                                                 err));
    }
    if (ctx->spec->on_rest != NULL) {
        if (ctx->pairs == NULL && (ctx->pairs = mem_alloc(sizeof(pair_buf))) == NULL)
            return err_nomem(err);
        pb = ctx->pairs;
        pb->n = 0;
    }
    for (row = 0; row < n; row++)
        SILT_RETURN_IF_ERROR(match_row(ctx, target, row, first[row], pb, rm, err));
    return pb != NULL ? flush_pairs(ctx, target, pb, rm, err) : SILT_OK;
}

/* Looks up every target row; splits them into matched (with their source row) and unmatched. */
static silt_status plan_batch(merge_ctx *ctx, batch_plan *plan, silt_error *err)
{
    int64_t n = plan->target->n_rows, row, n_m = 0, n_u = 0;
    int64_t *m_rows = arena_alloc(ctx->file_a, (size_t)(n + 1) * sizeof(int64_t));
    int64_t *m_src = arena_alloc(ctx->file_a, (size_t)(n + 1) * sizeof(int64_t));
    int64_t *u_rows = arena_alloc(ctx->file_a, (size_t)(n + 1) * sizeof(int64_t));
    row_matches rm;
    plan->action = arena_calloc(ctx->file_a, (size_t)n + 1, 1);
    if (m_rows == NULL || m_src == NULL || u_rows == NULL || plan->action == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(find_matches(ctx, plan->target, &rm, err));
    for (row = 0; row < n; row++) {
        if (rm.count[row] == 0) {
            u_rows[n_u++] = row;
            continue;
        }
        /* PROTOCOL (Delta MERGE): a target row two source rows match is an error, except
         * when the only WHEN MATCHED clause deletes unconditionally. */
        if (rm.count[row] > 1 && ctx->spec->matched != NULL && !ctx->spec->multiple_matches_ok)
            return err_set(err, SILT_RUNTIME, MULTI_MATCH);
        m_rows[n_m] = row;
        m_src[n_m++] = rm.first[row];
    }
    SILT_RETURN_IF_ERROR(run_clauses(ctx, plan, 0, m_rows, m_src, n_m, err));
    return run_clauses(ctx, plan, 1, u_rows, NULL, n_u, err);
}

static silt_status ensure_writer(merge_ctx *ctx, silt_error *err)
{
    delta_write_options wo = DELTA_WRITE_OPTIONS_INIT;
    if (ctx->w != NULL)
        return SILT_OK;
    /* With an evolved schema the writer appends the new columns and gives the new metadata. */
    wo.merge_schema = ctx->schema != ctx->snap->schema;
    wo.compression = ctx->spec->compression;
    return delta_write_open(&ctx->w, ctx->store, ctx->snap, ctx->schema, &wo, err);
}

static silt_status write_relabelled(merge_ctx *ctx, const col_batch *b, silt_error *err)
{
    col_batch copy = *b;
    copy.schema = ctx->schema;
    SILT_RETURN_IF_ERROR(ensure_writer(ctx, err));
    return delta_write_batch(ctx->w, &copy, err);
}

/*
 * PROTOCOL: Change Data Files. The old values of the target rows a clause
 * deleted ("delete") or updated ("update_preimage"); the new values go out
 * with the updated rows (write_plan).
 */
static silt_status plan_changes(merge_ctx *ctx, const batch_plan *plan, silt_error *err)
{
    static const struct {
        uint8_t action;
        const char *change_type;
    } kinds[] = {{DELTA_MERGE_DELETE, "delete"}, {DELTA_MERGE_UPDATE, "update_preimage"}};
    int64_t n = plan->target->n_rows, row;
    size_t k;
    if (!ctx->cdc.on || plan->changes == 0)
        return SILT_OK;
    for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        uint8_t *mask = arena_alloc(ctx->file_a, (size_t)n + 1);
        col_batch *rows = NULL;
        if (mask == NULL)
            return err_nomem(err);
        for (row = 0; row < n; row++)
            mask[row] = plan->action[row] == kinds[k].action;
        SILT_RETURN_IF_ERROR(col_batch_filter(&rows, ctx->file_a, plan->target, mask, err));
        SILT_RETURN_IF_ERROR(delta_dml_cdc_write(&ctx->cdc, ctx->file_a, rows, kinds[k].change_type,
                                           err));
    }
    return SILT_OK;
}

/* The rows of a batch no clause changed. */
static silt_status write_kept(merge_ctx *ctx, const batch_plan *plan, silt_error *err)
{
    int64_t n = plan->target->n_rows, row;
    uint8_t *keep = arena_alloc(ctx->file_a, (size_t)n + 1);
    col_batch *kept = NULL;
    if (keep == NULL)
        return err_nomem(err);
    for (row = 0; row < n; row++)
        keep[row] = plan->action[row] == DELTA_MERGE_KEEP;
    SILT_RETURN_IF_ERROR(col_batch_filter(&kept, ctx->file_a, plan->target, keep, err));
    return kept->n_rows > 0 ? write_relabelled(ctx, kept, err) : SILT_OK;
}

/*
 * A batch without deletes on an unpartitioned table with only flat
 * fixed-width columns is written back in place: the updated rows' new
 * values are copied over the old ones in the decoded batch (which belongs
 * to this MERGE), so the kept rows, usually most of them, are not copied
 * into a new batch first. Row order stays as it was.
 */
static int patchable(const merge_ctx *ctx, const batch_plan *plan)
{
    int64_t row;
    size_t col;
    int kind;
    if (ctx->snap->metadata.n_partition_columns > 0)
        return 0;
    for (row = 0; row < plan->target->n_rows; row++)
        if (plan->action[row] == DELTA_MERGE_DELETE)
            return 0;
    for (col = 0; col < plan->target->n_cols; col++) {
        const col_vec *v = plan->target->cols[col];
        if (col_type_is_nested(v->type->id) || col_type_value_width(v->type->id) == 0 ||
            v->dictionary != NULL || v->values == NULL)
            return 0;
        for (kind = 0; kind < 2; kind++)
            if (plan->upd[kind] != NULL && plan->upd[kind]->cols[col]->dictionary != NULL)
                return 0;
    }
    return 1;
}

/* Row `row` of t takes row `from` of u (same fixed-width type); validity follows. */
static silt_status patch_value(arena *a, col_vec *t, int64_t row, const col_vec *u, int64_t from,
                               silt_error *err)
{
    size_t width = col_type_value_width(t->type->id);
    int was_null = col_vec_is_null(t, row);
    if (col_vec_is_null(u, from)) {
        if (t->validity == NULL) {
            size_t bytes = (size_t)(t->length + 7) / 8;
            if ((t->validity = arena_alloc(a, bytes + 1)) == NULL)
                return err_nomem(err);
            memset(t->validity, 0xff, bytes + 1);
        }
        col_bit_clear(t->validity, row);
        t->null_count += !was_null;
        return SILT_OK;
    }
    memcpy((char *)t->values + (size_t)row * width, (const char *)u->values + (size_t)from * width,
           width);
    if (was_null) {
        col_bit_set(t->validity, row);
        t->null_count--;
    }
    return SILT_OK;
}

static silt_status patch_batch(merge_ctx *ctx, const batch_plan *plan, silt_error *err)
{
    col_batch *t = (col_batch *)plan->target; /* decoded for this MERGE: ours to change */
    int kind;
    int64_t idx;
    size_t col;
    for (kind = 0; kind < 2; kind++)
        for (idx = 0; idx < plan->n_upd[kind]; idx++) {
            int64_t row = plan->upd_rows[kind][idx];
            if (plan->action[row] != DELTA_MERGE_UPDATE)
                continue;
            for (col = 0; col < t->n_cols; col++)
                SILT_RETURN_IF_ERROR(patch_value(ctx->file_a, t->cols[col], row,
                                                 plan->upd[kind]->cols[col], idx, err));
        }
    return write_relabelled(ctx, t, err);
}

/* Counts the updates and deletes of one clause kind; fills upd_keep (its rows updated). */
static void count_kind(merge_ctx *ctx, const batch_plan *plan, int kind, uint8_t *upd_keep,
                       int64_t *n_upd_out)
{
    int64_t idx, n_upd = 0, n_del = 0;
    for (idx = 0; idx < plan->n_upd[kind]; idx++) {
        uint8_t act = plan->action[plan->upd_rows[kind][idx]];
        upd_keep[idx] = act == DELTA_MERGE_UPDATE;
        n_upd += act == DELTA_MERGE_UPDATE;
        n_del += act == DELTA_MERGE_DELETE;
    }
    if (kind == 0) {
        ctx->m.num_target_rows_matched_updated += n_upd;
        ctx->m.num_target_rows_matched_deleted += n_del;
    } else {
        ctx->m.num_target_rows_not_matched_by_source_updated += n_upd;
        ctx->m.num_target_rows_not_matched_by_source_deleted += n_del;
    }
    *n_upd_out = n_upd;
}

/*
 * Writes a changed batch back and counts the metrics: in place (patchable),
 * or the kept rows and then the updated ones. The change data (old values
 * first) is written before the batch is patched.
 */
static silt_status write_plan(merge_ctx *ctx, const batch_plan *plan, silt_error *err)
{
    int64_t n = plan->target->n_rows, row, n_changed = 0;
    int patch = patchable(ctx, plan);
    int kind;
    SILT_RETURN_IF_ERROR(plan_changes(ctx, plan, err));
    for (kind = 0; kind < 2; kind++) {
        uint8_t *upd_keep;
        col_batch *upd = NULL;
        int64_t n_upd = 0;
        if (plan->n_upd[kind] == 0)
            continue;
        upd_keep = arena_calloc(ctx->file_a, (size_t)plan->n_upd[kind] + 1, 1);
        if (upd_keep == NULL)
            return err_nomem(err);
        count_kind(ctx, plan, kind, upd_keep, &n_upd);
        if (n_upd == 0 || (patch && !ctx->cdc.on))
            continue;
        SILT_RETURN_IF_ERROR(col_batch_filter(&upd, ctx->file_a, plan->upd[kind], upd_keep, err));
        SILT_RETURN_IF_ERROR(
            delta_dml_cdc_write(&ctx->cdc, ctx->file_a, upd, "update_postimage", err));
        if (!patch)
            SILT_RETURN_IF_ERROR(write_relabelled(ctx, upd, err));
    }
    for (row = 0; row < n; row++)
        n_changed += plan->action[row] != DELTA_MERGE_KEEP;
    ctx->m.num_target_rows_copied += n - n_changed;
    if (patch)
        return patch_batch(ctx, plan, err);
    return write_kept(ctx, plan, err);
}

/* ---- files ------------------------------------------------------------------------------- */

/* Schema evolution: the new columns appended to a target batch, all null (old rows). */
static silt_status widen(merge_ctx *ctx, col_batch *b, silt_error *err)
{
    size_t n = ctx->schema->n_fields, col;
    col_vec **cols = arena_calloc(ctx->file_a, n + 1, sizeof(col_vec *));
    int64_t row;
    if (cols == NULL)
        return err_nomem(err);
    memcpy(cols, b->cols, b->n_cols * sizeof(col_vec *));
    for (col = b->n_cols; col < n; col++) {
        col_builder *bld;
        SILT_RETURN_IF_ERROR(col_builder_new(&bld, ctx->file_a, ctx->schema->fields[col].type,
                                             err));
        for (row = 0; row < b->n_rows; row++)
            SILT_RETURN_IF_ERROR(col_builder_append_null(bld, err));
        SILT_RETURN_IF_ERROR(col_builder_finish(bld, &cols[col], err));
    }
    b->cols = cols;
    b->n_cols = n;
    b->schema = ctx->schema;
    return SILT_OK;
}

/* The next batch of a target file and its plan, in ctx->file_a; plan->target NULL at the end. */
static silt_status next_plan(merge_ctx *ctx, delta_scan *scan, const delta_file *file,
                             batch_plan *plan, silt_error *err)
{
    col_batch *b = NULL;
    memset(plan, 0, sizeof(*plan));
    SILT_RETURN_IF_ERROR(delta_scan_next(scan, ctx->file_a, &b, err));
    if (b == NULL)
        return SILT_OK;
    if (!col_type_equal(b->schema, ctx->snap->schema))
        return err_set(err, SILT_CORRUPT, "the scan of \"%s\" produced another schema",
                       file->path);
    b->schema = ctx->snap->schema; /* the scan's copy dies with it */
    if (ctx->schema != ctx->snap->schema)
        SILT_RETURN_IF_ERROR(widen(ctx, b, err));
    plan->target = b;
    return plan_batch(ctx, plan, err);
}

/* A scan of one file; *one (the one-file snapshot it reads) must outlive it. */
static silt_status open_file_scan(merge_ctx *ctx, const delta_file *file, delta_snapshot *one,
                                  delta_scan **out, silt_error *err)
{
    *one = *ctx->snap;
    one->files = (delta_file *)file;
    one->n_files = 1;
    return delta_scan_open(out, ctx->store, one, NULL, err);
}

/* The fallback second read: every batch planned again and written back. */
static silt_status rewrite_again(merge_ctx *ctx, const delta_file *file, silt_error *err)
{
    delta_snapshot one;
    delta_scan *scan = NULL;
    int64_t start = time_monotonic_nanos();
    silt_status rc;
    ctx->m.num_target_files_removed++;
    ctx->m.num_target_bytes_removed += file->size;
    rc = delta_txn_remove_file(ctx->txn, file, 1, err);
    if (rc == SILT_OK)
        rc = open_file_scan(ctx, file, &one, &scan, err);
    while (rc == SILT_OK) {
        batch_plan plan;
        arena_reset(ctx->file_a);
        rc = next_plan(ctx, scan, file, &plan, err);
        if (rc != SILT_OK || plan.target == NULL)
            break;
        rc = write_plan(ctx, &plan, err);
    }
    delta_scan_free(scan);
    ctx->rewrite_ns += time_monotonic_nanos() - start;
    return rc;
}

/* The file is rewritten: removed from the table, its held plans written back in order. */
static silt_status start_rewrite(merge_ctx *ctx, const delta_file *file, file_pass *fp,
                                 silt_error *err)
{
    size_t idx;
    ctx->m.num_target_files_removed++;
    ctx->m.num_target_bytes_removed += file->size;
    SILT_RETURN_IF_ERROR(delta_txn_remove_file(ctx->txn, file, 1, err));
    for (idx = 0; idx < fp->n_held; idx++)
        SILT_RETURN_IF_ERROR(write_plan(ctx, &fp->held[idx], err));
    fp->n_held = 0;
    fp->mode = PASS_REWRITE;
    return SILT_OK;
}

/* Keeps a plan of a file without changes so far; past the budget, holds none any more. */
static silt_status hold_plan(merge_ctx *ctx, file_pass *fp, const batch_plan *plan,
                             silt_error *err)
{
    size_t budget = ctx->spec->hold_bytes ? ctx->spec->hold_bytes : MERGE_HOLD_BYTES;
    if (arena_bytes_used(ctx->hold_a) > budget) {
        /* let the held batches go (this one too: it changes nothing) */
        fp->mode = PASS_SCAN;
        fp->held = NULL;
        fp->n_held = fp->cap_held = 0;
        arena_reset(ctx->hold_a);
        return SILT_OK;
    }
    if (fp->n_held == fp->cap_held) {
        size_t cap = fp->cap_held ? fp->cap_held * 2 : 16;
        batch_plan *grown = arena_realloc(ctx->hold_a, fp->held, fp->cap_held * sizeof(*grown),
                                          cap * sizeof(*grown));
        if (grown == NULL)
            return err_nomem(err);
        fp->held = grown;
        fp->cap_held = cap;
    }
    fp->held[fp->n_held++] = *plan;
    return SILT_OK;
}

/* One batch of the single pass: held, written back, or (PASS_SCAN) only looked at. */
static silt_status step_batch(merge_ctx *ctx, const delta_file *file, file_pass *fp,
                              const batch_plan *plan, silt_error *err)
{
    if (fp->mode == PASS_REWRITE)
        return write_plan(ctx, plan, err);
    if (plan->changes == 0)
        return fp->mode == PASS_HOLD ? hold_plan(ctx, fp, plan, err) : SILT_OK;
    if (fp->mode == PASS_SCAN) {
        fp->reread = 1; /* a change after the held batches were let go */
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(start_rewrite(ctx, file, fp, err));
    return write_plan(ctx, plan, err);
}

/*
 * One read of a candidate file, a batch at a time. Its batches and their
 * plans are held (in ctx->hold_a) until the first one in which a clause
 * changes a row; then the file is removed, the held batches are written
 * back, and every later batch is written as soon as it is planned, in a
 * per-batch arena (memory: the source, its key hash, one batch). A file
 * without changes is left alone. Only when a file's first change comes
 * after MERGE_HOLD_BYTES of unchanged batches were let go is it read a
 * second time to be rewritten (rewrite_again). The first version read
 * every changed file twice, which cost 40 % of a MERGE's CPU when every
 * file changes; holding whole files instead cost memory in proportion to
 * the matched files (650 MB for 1M source rows into 10M).
 */
static silt_status merge_file(merge_ctx *ctx, const delta_file *file, silt_error *err)
{
    file_pass fp;
    delta_snapshot one;
    delta_scan *scan = NULL;
    int64_t start = time_monotonic_nanos();
    silt_status rc;
    memset(&fp, 0, sizeof(fp));
    rc = open_file_scan(ctx, file, &one, &scan, err);
    while (rc == SILT_OK && !fp.reread) {
        batch_plan plan;
        ctx->file_a = fp.mode == PASS_HOLD ? ctx->hold_a : ctx->stream_a;
        arena_reset(ctx->stream_a);
        rc = next_plan(ctx, scan, file, &plan, err);
        if (rc != SILT_OK || plan.target == NULL)
            break;
        rc = step_batch(ctx, file, &fp, &plan, err);
    }
    delta_scan_free(scan);
    ctx->file_a = ctx->stream_a;
    arena_reset(ctx->hold_a);
    /* a file that changes counts as rewrite time, one that does not as scan time */
    if (fp.mode == PASS_REWRITE)
        ctx->rewrite_ns += time_monotonic_nanos() - start;
    else
        ctx->scan_ns += time_monotonic_nanos() - start;
    if (rc == SILT_OK && fp.reread)
        rc = rewrite_again(ctx, file, err);
    return rc;
}

static silt_status insert_unmatched(merge_ctx *ctx, silt_error *err)
{
    const col_batch *src = ctx->spec->source;
    uint8_t *keep;
    col_batch *unmatched = NULL, *rows = NULL;
    int64_t row;
    if (ctx->spec->insert == NULL)
        return SILT_OK;
    keep = arena_alloc(ctx->file_a, (size_t)src->n_rows + 1);
    if (keep == NULL)
        return err_nomem(err);
    for (row = 0; row < src->n_rows; row++)
        keep[row] = !ctx->source_matched[row];
    SILT_RETURN_IF_ERROR(col_batch_filter(&unmatched, ctx->file_a, src, keep, err));
    if (unmatched->n_rows == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(
        ctx->spec->insert(unmatched, ctx->file_a, &rows, ctx->spec->insert_payload, err));
    if (rows == NULL || rows->n_rows == 0)
        return SILT_OK;
    if (!col_type_equal(rows->schema, ctx->schema))
        return err_set(err, SILT_INVALID,
                       "the MERGE insert clause gave rows that are not of the table's schema");
    ctx->m.num_target_rows_inserted += rows->n_rows;
    /* A commit with cdc files is read from them alone, so once the MERGE changed a target row
     * its inserts are change rows too; an insert-only MERGE writes none and its add files are
     * its changes, as Delta's. */
    if (ctx->cdc.w != NULL)
        SILT_RETURN_IF_ERROR(delta_dml_cdc_write(&ctx->cdc, ctx->file_a, rows, "insert", err));
    return write_relabelled(ctx, rows, err);
}

/* ---- commit ------------------------------------------------------------------------------ */

static silt_status set_history(merge_ctx *ctx, int64_t exec_ns, silt_error *err)
{
    const delta_merge_spec *spec = ctx->spec;
    delta_merge_metrics *m = &ctx->m;
    delta_txn *txn = ctx->txn;
    struct {
        const char *key;
        int64_t value;
    } metrics[] = {
        {"numSourceRows", m->num_source_rows},
        {"numTargetRowsInserted", m->num_target_rows_inserted},
        {"numTargetRowsUpdated", m->num_target_rows_updated},
        {"numTargetRowsMatchedUpdated", m->num_target_rows_matched_updated},
        {"numTargetRowsNotMatchedBySourceUpdated", m->num_target_rows_not_matched_by_source_updated},
        {"numTargetRowsDeleted", m->num_target_rows_deleted},
        {"numTargetRowsMatchedDeleted", m->num_target_rows_matched_deleted},
        {"numTargetRowsNotMatchedBySourceDeleted", m->num_target_rows_not_matched_by_source_deleted},
        {"numTargetRowsCopied", m->num_target_rows_copied},
        {"numOutputRows", m->num_output_rows},
        {"numTargetFilesAdded", m->num_target_files_added},
        {"numTargetFilesRemoved", m->num_target_files_removed},
        {"numTargetChangeFilesAdded", ctx->cdc.n_files},
        {"numTargetBytesAdded", m->num_target_bytes_added},
        {"numTargetBytesRemoved", m->num_target_bytes_removed},
        {"numTargetDeletionVectorsAdded", 0},
        {"numTargetDeletionVectorsRemoved", 0},
        {"numTargetDeletionVectorsUpdated", 0},
        {"executionTimeMs", exec_ns / 1000000},
        {"scanTimeMs", ctx->scan_ns / 1000000},
        {"rewriteTimeMs", ctx->rewrite_ns / 1000000},
        {"materializeSourceTimeMs", 0}, /* the source comes materialised */
    };
    size_t idx;
    SILT_RETURN_IF_ERROR(dwrite_predicate_param(txn, spec->predicate_text, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_param(
        txn, "matchedPredicates", spec->matched_json ? spec->matched_json : "[]", err));
    SILT_RETURN_IF_ERROR(delta_txn_set_param(
        txn, "notMatchedPredicates", spec->not_matched_json ? spec->not_matched_json : "[]", err));
    SILT_RETURN_IF_ERROR(delta_txn_set_param(
        txn, "notMatchedBySourcePredicates",
        spec->not_matched_by_source_json ? spec->not_matched_by_source_json : "[]", err));
    for (idx = 0; idx < sizeof(metrics) / sizeof(metrics[0]); idx++)
        SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, metrics[idx].key, metrics[idx].value, err));
    return SILT_OK;
}

static silt_status add_written(merge_ctx *ctx, silt_error *err)
{
    delta_write_output out;
    size_t idx;
    delta_merge_metrics *m = &ctx->m;
    m->num_target_rows_updated =
        m->num_target_rows_matched_updated + m->num_target_rows_not_matched_by_source_updated;
    m->num_target_rows_deleted =
        m->num_target_rows_matched_deleted + m->num_target_rows_not_matched_by_source_deleted;
    m->num_output_rows =
        m->num_target_rows_copied + m->num_target_rows_updated + m->num_target_rows_inserted;
    SILT_RETURN_IF_ERROR(delta_dml_cdc_commit(&ctx->cdc, ctx->txn, err));
    if (ctx->w == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(delta_write_finish(ctx->w, &out, err));
    if (out.metadata_changed)
        SILT_RETURN_IF_ERROR(delta_txn_set_metadata(ctx->txn, out.metadata, err));
    for (idx = 0; idx < out.n_adds; idx++)
        SILT_RETURN_IF_ERROR(delta_txn_add_file(ctx->txn, &out.adds[idx], err));
    m->num_target_files_added = (int64_t)out.n_adds;
    m->num_target_bytes_added = out.n_bytes;
    return SILT_OK;
}

static silt_status run(merge_ctx *ctx, delta_commit_result *result, silt_error *err)
{
    const delta_merge_spec *spec = ctx->spec;
    int64_t start = time_monotonic_nanos();
    size_t idx;
    delta_dml_cdc_init(&ctx->cdc, ctx->store, ctx->snap, ctx->schema);
    SILT_RETURN_IF_ERROR(delta_check_writable(&ctx->snap->protocol, &ctx->snap->metadata,
                                              ctx->cdc.on ? DELTA_REMOVES_WITH_CDC : 1, err));
    SILT_RETURN_IF_ERROR(check_keys(ctx, err));
    SILT_RETURN_IF_ERROR(hash_source(ctx, err));
    ctx->m.num_source_rows = spec->source->n_rows;
    SILT_RETURN_IF_ERROR(delta_txn_begin(&ctx->txn, ctx->store, ctx->snap, "MERGE", err));
    if (spec->user_metadata != NULL)
        SILT_RETURN_IF_ERROR(delta_txn_set_user_metadata(ctx->txn, spec->user_metadata, err));
    if (spec->retry_timeout_ms > 0)
        delta_txn_set_retry_timeout_ms(ctx->txn, spec->retry_timeout_ms);
    SILT_RETURN_IF_ERROR(delta_txn_set_app(ctx->txn, &spec->app_txn, err));
    SILT_RETURN_IF_ERROR(delta_txn_read_whole_table(ctx->txn, err));
    if (ctx->schema != ctx->snap->schema) /* the new schema is committed even without rows */
        SILT_RETURN_IF_ERROR(ensure_writer(ctx, err));
    for (idx = 0; idx < ctx->snap->n_files; idx++) {
        const delta_file *file = &ctx->snap->files[idx];
        if (spec->file_filter != NULL &&
            !spec->file_filter(ctx->snap, file, spec->file_filter_payload))
            continue;
        SILT_RETURN_IF_ERROR(merge_file(ctx, file, err));
        arena_reset(ctx->file_a);
    }
    SILT_RETURN_IF_ERROR(insert_unmatched(ctx, err));
    SILT_RETURN_IF_ERROR(add_written(ctx, err));
    SILT_RETURN_IF_ERROR(set_history(ctx, time_monotonic_nanos() - start, err));
    return delta_txn_commit(ctx->txn, result, err);
}

silt_status delta_merge(io_store *store, const delta_snapshot *snap, const delta_merge_spec *spec,
                        delta_merge_metrics *metrics, delta_commit_result *result,
                        silt_error *err)
{
    merge_ctx ctx;
    silt_status rc;
    memset(&ctx, 0, sizeof(ctx));
    ctx.store = store;
    ctx.snap = snap;
    ctx.spec = spec;
    ctx.schema = spec->evolved_schema != NULL ? spec->evolved_schema : snap->schema;
    ctx.a = arena_new(NULL, "merge");
    ctx.stream_a = ctx.a ? arena_new(NULL, "merge batch") : NULL;
    ctx.hold_a = ctx.stream_a ? arena_new(NULL, "merge held batches") : NULL;
    ctx.file_a = ctx.stream_a;
    ctx.pair_a = ctx.hold_a ? arena_new(NULL, "merge pairs") : NULL;
    rc = ctx.pair_a ? run(&ctx, result, err) : err_nomem(err);
    if (rc == SILT_OK && metrics != NULL)
        *metrics = ctx.m;
    delta_write_free(ctx.w);
    delta_dml_cdc_clear(&ctx.cdc);
    delta_txn_free(ctx.txn);
    mem_free(ctx.pairs);
    arena_free(ctx.pair_a);
    arena_free(ctx.hold_a);
    arena_free(ctx.stream_a);
    arena_free(ctx.a);
    return rc;
}
