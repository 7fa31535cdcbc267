/*
 * dml.c - DELETE and UPDATE by copy-on-write (dml.h).
 *
 * A candidate file is scanned a batch at a time to see whether a row
 * matches; only then is it removed and scanned again to write the rest
 * back through one delta_writer (which recomputes each row's partition
 * folder from the partition columns the scan filled in, so rewritten rows
 * land in the partition they came from). Memory holds one batch of the
 * file and the writer's open row groups, never a whole file.
 */
#include <string.h>

#include "delta/dml_int.h"
#include "delta/scan.h"
#include "delta/stats.h"
#include "delta/write_int.h"
#include "formats/text.h"
#include "util/time.h"

typedef struct dml_ctx {
    io_store *store;
    const delta_snapshot *snap;
    const delta_dml_options *opts;
    delta_row_update_fn update; /* NULL for DELETE */
    void *update_payload;
    delta_txn *txn;
    delta_writer *w;
    dml_cdc cdc; /* change data files, when the change data feed is on */
    arena *file_a;
    delta_dml_metrics m;
    int64_t scan_ns, rewrite_ns;
} dml_ctx;

typedef struct file_batch {
    col_batch *batch;
    uint8_t *match;
    int64_t n_match;
} file_batch;

/* Rows of a file from its stats, or by reading it when the stats do not say. */
static silt_status file_rows(dml_ctx *ctx, const delta_file *file, int64_t *out, silt_error *err)
{
    dstats st;
    dproto_mapping_mode mode = DPROTO_MAPPING_NONE;
    delta_snapshot one = *ctx->snap;
    delta_scan *scan = NULL;
    col_batch *b = NULL;
    silt_status rc;
    *out = 0;
    SILT_RETURN_IF_ERROR(dproto_get_mapping_mode(&ctx->snap->metadata, &mode, err));
    if (file->stats != NULL &&
        dstats_parse(&st, ctx->file_a, file->stats, ctx->snap->schema, mode, err) == SILT_OK &&
        st.has_num_records && file->dv.storage_type == 0) {
        *out = st.num_records;
        return SILT_OK;
    }
    err_clear(err);
    one.files = (delta_file *)file;
    one.n_files = 1;
    rc = delta_scan_open(&scan, ctx->store, &one, NULL, err);
    while (rc == SILT_OK && (rc = delta_scan_next(scan, ctx->file_a, &b, err)) == SILT_OK &&
           b != NULL)
        *out += b->n_rows;
    delta_scan_free(scan);
    return rc;
}

static silt_status remove_file(dml_ctx *ctx, const delta_file *file, silt_error *err)
{
    ctx->m.num_removed_files++;
    ctx->m.num_removed_bytes += file->size;
    return delta_txn_remove_file(ctx->txn, file, 1, err);
}

/* The match mask of one batch of a candidate file (in ctx->file_a). */
static silt_status match_batch(dml_ctx *ctx, col_batch *b, file_batch *fb, silt_error *err)
{
    int64_t row;
    fb->batch = b;
    fb->match = arena_alloc(ctx->file_a, (size_t)b->n_rows + 1);
    if (fb->match == NULL)
        return err_nomem(err);
    memset(fb->match, 1, (size_t)b->n_rows);
    /* partition_only: the file filter is exact, every row of the file matches */
    if (ctx->opts->predicate != NULL && !ctx->opts->partition_only)
        SILT_RETURN_IF_ERROR(ctx->opts->predicate(b, fb->match, ctx->opts->predicate_payload,
                                                  err));
    fb->n_match = 0;
    for (row = 0; row < b->n_rows; row++)
        fb->n_match += fb->match[row] != 0;
    return SILT_OK;
}

static silt_status rewrite_batch(dml_ctx *ctx, const file_batch *fb, silt_error *err);

/*
 * One pass over a candidate file, a batch at a time (ctx->file_a is reset
 * after each batch, so memory holds one batch, never the file). Without
 * `rewrite` it only counts the matching rows into *n_match_out; with it,
 * every batch is written back through rewrite_batch.
 */
static silt_status pass_file(dml_ctx *ctx, const delta_file *file, int rewrite,
                             int64_t *n_match_out, int64_t *n_rows_out, silt_error *err)
{
    delta_snapshot one = *ctx->snap;
    delta_scan *scan = NULL;
    silt_status rc;
    int64_t start = time_monotonic_nanos();
    one.files = (delta_file *)file;
    one.n_files = 1;
    *n_match_out = 0;
    *n_rows_out = 0;
    rc = delta_scan_open(&scan, ctx->store, &one, NULL, err);
    while (rc == SILT_OK) {
        col_batch *b = NULL;
        file_batch fb = {NULL, NULL, 0};
        arena_reset(ctx->file_a);
        rc = delta_scan_next(scan, ctx->file_a, &b, err);
        if (rc != SILT_OK || b == NULL)
            break;
        if (!col_type_equal(b->schema, ctx->snap->schema)) {
            rc = err_set(err, SILT_CORRUPT, "the scan of \"%s\" produced rows of another schema",
                         file->path);
            break;
        }
        b->schema = ctx->snap->schema; /* the scan's schema dies with the scan */
        rc = match_batch(ctx, b, &fb, err);
        if (rc == SILT_OK) {
            *n_match_out += fb.n_match;
            *n_rows_out += b->n_rows;
        }
        if (rc == SILT_OK && rewrite)
            rc = rewrite_batch(ctx, &fb, err);
    }
    delta_scan_free(scan);
    if (rewrite)
        ctx->rewrite_ns += time_monotonic_nanos() - start;
    else
        ctx->scan_ns += time_monotonic_nanos() - start;
    if (rc != SILT_OK)
        return err_context(err, "while %s \"%s\"", rewrite ? "rewriting" : "reading", file->path);
    return SILT_OK;
}

static silt_status ensure_writer(dml_ctx *ctx, silt_error *err)
{
    delta_write_options wo = DELTA_WRITE_OPTIONS_INIT;
    if (ctx->w != NULL)
        return SILT_OK;
    wo.compression = ctx->opts->compression;
    return delta_write_open(&ctx->w, ctx->store, ctx->snap, ctx->snap->schema, &wo, err);
}

/* Writes one batch through the writer, relabelled with the table schema the writer expects. */
static silt_status write_batch(dml_ctx *ctx, col_batch *b, silt_error *err)
{
    col_batch relabelled = *b;
    if (!col_type_equal(b->schema, ctx->snap->schema))
        return err_set(err, SILT_INVALID,
                       "cannot write back rows whose schema differs from the table's");
    relabelled.schema = ctx->snap->schema;
    return delta_write_batch(ctx->w, &relabelled, err);
}

/* PROTOCOL: Change Data Files: the rows of b as changes of one kind. */
static silt_status write_changes(dml_ctx *ctx, const col_batch *b, const char *change_type,
                                 silt_error *err)
{
    return delta_dml_cdc_write(&ctx->cdc, ctx->file_a, b, change_type, err);
}

/* The rows of fb that stay (DELETE: unmatched; UPDATE: unmatched, then the updated ones). */
static silt_status rewrite_batch(dml_ctx *ctx, const file_batch *fb, silt_error *err)
{
    col_batch *kept = NULL, *matched = NULL, *updated = NULL;
    uint8_t *keep = arena_alloc(ctx->file_a, (size_t)fb->batch->n_rows + 1);
    int64_t row;
    if (keep == NULL)
        return err_nomem(err);
    for (row = 0; row < fb->batch->n_rows; row++)
        keep[row] = !fb->match[row];
    SILT_RETURN_IF_ERROR(col_batch_filter(&kept, ctx->file_a, fb->batch, keep, err));
    if (kept->n_rows > 0)
        SILT_RETURN_IF_ERROR(write_batch(ctx, kept, err));
    ctx->m.num_copied_rows += kept->n_rows;
    if (fb->n_match == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(col_batch_filter(&matched, ctx->file_a, fb->batch, fb->match, err));
    if (ctx->update == NULL) {
        ctx->m.num_deleted_rows += fb->n_match;
        return write_changes(ctx, matched, "delete", err);
    }
    SILT_RETURN_IF_ERROR(ctx->update(matched, ctx->file_a, &updated, ctx->update_payload, err));
    if (updated == NULL || updated->n_rows != matched->n_rows)
        return err_set(err, SILT_INVALID,
                       "the update produced a different number of rows than it was given");
    ctx->m.num_updated_rows += updated->n_rows;
    SILT_RETURN_IF_ERROR(write_changes(ctx, matched, "update_preimage", err));
    if (ctx->cdc.on) {
        col_batch relabelled = *updated;
        relabelled.schema = ctx->snap->schema;
        SILT_RETURN_IF_ERROR(write_changes(ctx, &relabelled, "update_postimage", err));
    }
    return write_batch(ctx, updated, err);
}

/*
 * A candidate file is read twice when it holds a match: first to find out
 * (a file without matches is left alone and nothing is written), then to
 * write it back batch by batch. Reading twice costs the scan of the files
 * that change; holding a whole file's rows would cost memory in proportion
 * to the file (several times its decoded size with the rewrite's copies).
 * The first read is skipped when every row is known to match (all_match:
 * stats or a partition-only predicate), and the second when the first
 * found that every row matches a DELETE (nothing to write back).
 */
static silt_status rewrite_file(dml_ctx *ctx, const delta_file *file, int all_match,
                                silt_error *err)
{
    int64_t n_match = 0, n_rows = 0;
    ctx->m.num_files_read++;
    if (!all_match) {
        SILT_RETURN_IF_ERROR(pass_file(ctx, file, 0, &n_match, &n_rows, err));
        if (n_match == 0)
            return SILT_OK; /* untouched */
        if (n_match == n_rows && ctx->update == NULL && !ctx->cdc.on) {
            ctx->m.num_deleted_rows += n_rows; /* nothing to write back */
            return remove_file(ctx, file, err);
        }
    }
    SILT_RETURN_IF_ERROR(remove_file(ctx, file, err));
    SILT_RETURN_IF_ERROR(ensure_writer(ctx, err));
    return pass_file(ctx, file, 1, &n_match, &n_rows, err);
}

/* A whole file matches (no predicate, or a partition-only one): removed without rewriting. */
static silt_status drop_file(dml_ctx *ctx, const delta_file *file, silt_error *err)
{
    int64_t rows = 0;
    if (ctx->update != NULL)
        return rewrite_file(ctx, file, 1, err); /* UPDATE must still write the new rows */
    SILT_RETURN_IF_ERROR(file_rows(ctx, file, &rows, err));
    ctx->m.num_deleted_rows += rows;
    return remove_file(ctx, file, err);
}

static silt_status process(dml_ctx *ctx, silt_error *err)
{
    const delta_dml_options *o = ctx->opts;
    size_t idx;
    /* With the change data feed on, whole files are read too: their rows are the changes
     * (a commit with cdc actions is read from them alone). */
    int whole = (o->predicate == NULL || o->partition_only) && !ctx->cdc.on;
    for (idx = 0; idx < ctx->snap->n_files; idx++) {
        const delta_file *file = &ctx->snap->files[idx];
        if (o->file_filter != NULL && !o->file_filter(ctx->snap, file, o->file_filter_payload))
            continue;
        int all = whole || (o->file_all_match != NULL &&
                            o->file_all_match(ctx->snap, file, o->file_all_match_payload));
        if (all && ctx->update == NULL && !ctx->cdc.on)
            SILT_RETURN_IF_ERROR(drop_file(ctx, file, err));
        else
            SILT_RETURN_IF_ERROR(rewrite_file(ctx, file, all, err));
        arena_reset(ctx->file_a);
    }
    return SILT_OK;
}

/* Spark writes DELETE's, UPDATE's and MERGE's predicate as a JSON list of SQL texts. */
silt_status dwrite_predicate_param(delta_txn *txn, const char *text, silt_error *err)
{
    buf param = BUF_INIT;
    silt_status rc = buf_append_char(&param, '[', err);
    if (text == NULL)
        text = "true";
    if (rc == SILT_OK)
        rc = text_spark_json_string(&param, text, strlen(text), err);
    if (rc == SILT_OK)
        rc = buf_append_char(&param, ']', err);
    if (rc == SILT_OK)
        rc = delta_txn_set_param(txn, "predicate", buf_cstr(&param), err);
    buf_clear(&param);
    return rc;
}

static silt_status set_history(dml_ctx *ctx, int64_t exec_ns, silt_error *err)
{
    static const char *const dv_metrics[] = {"numDeletionVectorsAdded", "numDeletionVectorsRemoved",
                                             "numDeletionVectorsUpdated"};
    delta_txn *txn = ctx->txn;
    const delta_dml_metrics *m = &ctx->m;
    size_t idx;
    SILT_RETURN_IF_ERROR(dwrite_predicate_param(txn, ctx->opts->predicate_text, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numRemovedFiles", m->num_removed_files, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numAddedFiles", m->num_added_files, err));
    if (ctx->update == NULL)
        SILT_RETURN_IF_ERROR(
            delta_txn_set_metric(txn, "numDeletedRows", m->num_deleted_rows, err));
    else
        SILT_RETURN_IF_ERROR(
            delta_txn_set_metric(txn, "numUpdatedRows", m->num_updated_rows, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numCopiedRows", m->num_copied_rows, err));
    for (idx = 0; idx < sizeof(dv_metrics) / sizeof(dv_metrics[0]); idx++)
        SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, dv_metrics[idx], 0, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numAddedChangeFiles", ctx->cdc.n_files, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numRemovedBytes", m->num_removed_bytes, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numAddedBytes", m->num_added_bytes, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "executionTimeMs", exec_ns / 1000000, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "scanTimeMs", ctx->scan_ns / 1000000, err));
    return delta_txn_set_metric(txn, "rewriteTimeMs", ctx->rewrite_ns / 1000000, err);
}

static silt_status add_written(dml_ctx *ctx, silt_error *err)
{
    delta_write_output out;
    size_t idx;
    SILT_RETURN_IF_ERROR(delta_dml_cdc_commit(&ctx->cdc, ctx->txn, err));
    if (ctx->w == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(delta_write_finish(ctx->w, &out, err));
    for (idx = 0; idx < out.n_adds; idx++)
        SILT_RETURN_IF_ERROR(delta_txn_add_file(ctx->txn, &out.adds[idx], err));
    ctx->m.num_added_files = (int64_t)out.n_adds;
    ctx->m.num_added_bytes = out.n_bytes;
    return SILT_OK;
}

static silt_status run(dml_ctx *ctx, delta_commit_result *result, silt_error *err)
{
    int64_t start = time_monotonic_nanos();
    delta_dml_cdc_init(&ctx->cdc, ctx->store, ctx->snap, NULL);
    SILT_RETURN_IF_ERROR(delta_check_writable(&ctx->snap->protocol, &ctx->snap->metadata,
                                              ctx->cdc.on ? DELTA_REMOVES_WITH_CDC : 1, err));
    SILT_RETURN_IF_ERROR(delta_txn_begin(&ctx->txn, ctx->store, ctx->snap,
                                         ctx->update ? "UPDATE" : "DELETE", err));
    if (ctx->opts->now_ms != NULL)
        delta_txn_set_clock(ctx->txn, ctx->opts->now_ms, ctx->opts->now_payload);
    if (ctx->opts->user_metadata != NULL)
        SILT_RETURN_IF_ERROR(delta_txn_set_user_metadata(ctx->txn, ctx->opts->user_metadata, err));
    if (ctx->opts->retry_timeout_ms > 0)
        delta_txn_set_retry_timeout_ms(ctx->txn, ctx->opts->retry_timeout_ms);
    if (ctx->opts->read_predicate != NULL)
        SILT_RETURN_IF_ERROR(delta_txn_read_predicate(ctx->txn, ctx->opts->read_predicate,
                                                      ctx->opts->read_predicate_payload, err));
    else
        SILT_RETURN_IF_ERROR(delta_txn_read_whole_table(ctx->txn, err));
    ctx->file_a = arena_new(NULL, "dml file");
    if (ctx->file_a == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(process(ctx, err));
    SILT_RETURN_IF_ERROR(add_written(ctx, err));
    SILT_RETURN_IF_ERROR(set_history(ctx, time_monotonic_nanos() - start, err));
    return delta_txn_commit(ctx->txn, result, err);
}

static silt_status run_dml(dml_ctx *ctx, delta_dml_metrics *metrics, delta_commit_result *result,
                           silt_error *err)
{
    static const delta_dml_options defaults = DELTA_DML_OPTIONS_INIT;
    silt_status rc;
    if (ctx->opts == NULL)
        ctx->opts = &defaults;
    rc = run(ctx, result, err);
    if (rc == SILT_OK && metrics != NULL)
        *metrics = ctx->m;
    delta_write_free(ctx->w);
    delta_dml_cdc_clear(&ctx->cdc);
    delta_txn_free(ctx->txn);
    arena_free(ctx->file_a);
    return rc;
}

silt_status delta_delete(io_store *store, const delta_snapshot *snap, const delta_dml_options *opts,
                         delta_dml_metrics *metrics, delta_commit_result *result, silt_error *err)
{
    dml_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.store = store;
    ctx.snap = snap;
    ctx.opts = opts;
    return run_dml(&ctx, metrics, result, err);
}

silt_status delta_update(io_store *store, const delta_snapshot *snap, const delta_dml_options *opts,
                         delta_row_update_fn update, void *update_payload,
                         delta_dml_metrics *metrics, delta_commit_result *result, silt_error *err)
{
    dml_ctx ctx;
    if (update == NULL)
        return err_set(err, SILT_INVALID, "UPDATE needs a function giving the new rows");
    memset(&ctx, 0, sizeof(ctx));
    ctx.store = store;
    ctx.snap = snap;
    ctx.opts = opts;
    ctx.update = update;
    ctx.update_payload = update_payload;
    return run_dml(&ctx, metrics, result, err);
}

silt_status dwrite_delete_rows(delta_txn *txn, io_store *store, const delta_snapshot *snap,
                               delta_file_filter_fn file_filter, void *file_filter_payload,
                               delta_row_predicate_fn predicate, void *predicate_payload,
                               delta_dml_metrics *metrics, silt_error *err)
{
    delta_dml_options o = DELTA_DML_OPTIONS_INIT;
    dml_ctx ctx;
    silt_status rc;
    memset(&ctx, 0, sizeof(ctx));
    o.file_filter = file_filter;
    o.file_filter_payload = file_filter_payload;
    o.predicate = predicate;
    o.predicate_payload = predicate_payload;
    ctx.store = store;
    ctx.snap = snap;
    ctx.opts = &o;
    ctx.txn = txn;
    rc = delta_txn_read_whole_table(txn, err);
    if (rc == SILT_OK)
        rc = (ctx.file_a = arena_new(NULL, "replace where file")) ? SILT_OK : err_nomem(err);
    if (rc == SILT_OK)
        rc = process(&ctx, err);
    if (rc == SILT_OK)
        rc = add_written(&ctx, err);
    if (rc == SILT_OK)
        *metrics = ctx.m;
    delta_write_free(ctx.w);
    arena_free(ctx.file_a);
    return rc;
}
