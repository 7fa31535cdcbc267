/*
 * modify.c - the modify sink's bookkeeping (modify.h): per-worker writers
 * and change data files, removes, history, one commit.
 */
#include <string.h>

#include "delta/dml_int.h"
#include "delta/modify.h"
#include "delta/write_int.h"
#include "util/mem.h"
#include "util/time.h"

typedef struct modify_worker {
    delta_writer *w; /* NULL until the worker wrote a row */
    dml_cdc cdc;
    arena *a; /* reset per call: the change rows' _change_type column */
    int64_t changed, copied;
    int64_t merge[DELTA_MERGE_N_COUNTS];
} modify_worker;

struct delta_modify {
    io_store *store;
    const delta_snapshot *snap;
    const col_type *schema; /* what is written: the snapshot's, or MERGE's evolved one */
    delta_modify_options o;
    delta_txn *txn;
    modify_worker *workers;
    size_t n_workers;
    int cdc_on;
    int64_t start_ns, scan_ns, rewrite_ns;
    int64_t n_removed, removed_bytes;
    int64_t source_rows, materialize_ns; /* MERGE */
    dml_dv *dv;        /* deletion vectors instead of rewrites (delta.enableDeletionVectors) */
    dml_dv_result dvr; /* what the commit's vectors did */
    int64_t dv_dropped; /* vectors removed with files delta_modify_remove removed */
    const char *ident_col; /* MERGE assigned identity values: the column, its new mark */
    int64_t ident_mark;
};

void delta_modify_set_identity_mark(delta_modify *m, const char *column, int64_t mark)
{
    m->ident_col = column;
    m->ident_mark = mark;
}

static const char *op_name(delta_modify_op op)
{
    return op == DELTA_MODIFY_UPDATE ? "UPDATE" : op == DELTA_MODIFY_MERGE ? "MERGE" : "DELETE";
}

silt_status delta_modify_begin(delta_modify **out, io_store *store, const delta_snapshot *snap,
                               const delta_modify_options *opts, silt_error *err)
{
    delta_modify *m = mem_calloc(1, sizeof(*m));
    const char *dv_prop;
    size_t idx;
    silt_status rc = SILT_OK;
    *out = NULL;
    if (m == NULL)
        return err_nomem(err);
    *out = m;
    m->store = store;
    m->snap = snap;
    m->schema = opts->schema != NULL ? opts->schema : snap->schema;
    m->o = *opts;
    m->start_ns = time_monotonic_nanos();
    m->n_workers = opts->n_workers ? opts->n_workers : 1;
    m->workers = mem_calloc(m->n_workers, sizeof(modify_worker));
    if (m->workers == NULL)
        return err_nomem(err);
    for (idx = 0; idx < m->n_workers && rc == SILT_OK; idx++) {
        delta_dml_cdc_init(&m->workers[idx].cdc, store, snap,
                           m->schema != snap->schema ? m->schema : NULL);
        m->workers[idx].a = arena_new(NULL, "modify worker");
        if (m->workers[idx].a == NULL)
            rc = err_nomem(err);
    }
    SILT_RETURN_IF_ERROR(rc);
    m->cdc_on = m->workers[0].cdc.on;
    /* PROTOCOL: Deletion Vectors: writers may mark rows deleted once the table turns them on. */
    dv_prop = dlog_map_get(&snap->metadata.configuration, "delta.enableDeletionVectors", NULL);
    if (dv_prop != NULL && util_str_casecmp(dv_prop, "true") == 0)
        SILT_RETURN_IF_ERROR(delta_dml_dv_new(&m->dv, snap, m->n_workers, err));
    SILT_RETURN_IF_ERROR(delta_check_writable(&snap->protocol, &snap->metadata,
                                              m->cdc_on ? DELTA_REMOVES_WITH_CDC : 1, err));
    SILT_RETURN_IF_ERROR(delta_txn_begin(&m->txn, store, snap, op_name(opts->op), err));
    if (opts->now_ms != NULL)
        delta_txn_set_clock(m->txn, opts->now_ms, opts->now_payload);
    if (opts->user_metadata != NULL)
        SILT_RETURN_IF_ERROR(delta_txn_set_user_metadata(m->txn, opts->user_metadata, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_app(m->txn, &opts->app_txn, err));
    if (opts->retry_timeout_ms > 0)
        delta_txn_set_retry_timeout_ms(m->txn, opts->retry_timeout_ms);
    /* A partition-only WHERE reads its partitions only: writers on others do not conflict. */
    if (opts->read_predicate != NULL)
        return delta_txn_read_predicate(m->txn, opts->read_predicate, opts->read_predicate_payload,
                                        err);
    return delta_txn_read_whole_table(m->txn, err);
}

int delta_modify_cdc_on(const delta_modify *m) { return m->cdc_on; }

int delta_modify_dv_on(const delta_modify *m) { return m->dv != NULL; }

silt_status delta_modify_mark_deleted(delta_modify *m, size_t worker, size_t file_idx,
                                      const int64_t *rows, const uint8_t *sel, size_t n_rows,
                                      silt_error *err)
{
    if (m->dv == NULL)
        return err_set(err, SILT_INVALID, "the table does not use deletion vectors");
    return delta_dml_dv_mark(m->dv, worker, file_idx, rows, sel, n_rows, err);
}

int64_t delta_modify_n_removed(const delta_modify *m) { return m->n_removed; }

int64_t delta_modify_n_changed(const delta_modify *m)
{
    int64_t n = 0;
    size_t wi;
    for (wi = 0; wi < m->n_workers; wi++)
        n += m->workers[wi].changed;
    return n;
}

silt_status delta_modify_remove(delta_modify *m, const delta_file *file, silt_error *err)
{
    m->n_removed++;
    m->removed_bytes += file->size;
    m->dv_dropped += file->dv.storage_type != 0;
    /* a file removed whole: rows marked in it before (a DELETE's pass 1) do not count */
    if (m->dv != NULL && file >= m->snap->files && file < m->snap->files + m->snap->n_files)
        delta_dml_dv_drop(m->dv, (size_t)(file - m->snap->files));
    return delta_txn_remove_file(m->txn, file, 1, err);
}

static silt_status worker_of(delta_modify *m, size_t worker, modify_worker **out,
                             silt_error *err)
{
    if (worker >= m->n_workers)
        return err_set(err, SILT_INVALID, "modify sink worker %zu of %zu", worker, m->n_workers);
    *out = &m->workers[worker];
    return SILT_OK;
}

/* rows relabelled with the table schema (the writer and the change files expect it). */
static silt_status as_table_rows(const delta_modify *m, const col_batch *rows, col_batch *out,
                                 silt_error *err)
{
    if (rows->n_cols != m->schema->n_fields)
        return err_set(err, SILT_INVALID, "the rewritten rows have %zu columns, the table %zu",
                       rows->n_cols, m->schema->n_fields);
    *out = *rows;
    out->schema = m->schema;
    return SILT_OK;
}

/* Each worker its own writer, encoding on its own thread (no pool). With an evolved schema
 * the writer appends the new columns and gives the new metadata. */
static silt_status open_writer(delta_modify *m, modify_worker *mw, silt_error *err)
{
    delta_write_options wo = DELTA_WRITE_OPTIONS_INIT;
    if (mw->w != NULL)
        return SILT_OK;
    wo.compression = m->o.compression;
    wo.merge_schema = m->schema != m->snap->schema;
    wo.check = m->o.check;
    wo.check_payload = m->o.check_payload;
    return delta_write_open(&mw->w, m->store, m->snap, m->schema, &wo, err);
}

silt_status delta_modify_write(delta_modify *m, size_t worker, const col_batch *rows,
                               silt_error *err)
{
    modify_worker *mw = NULL;
    col_batch b;
    if (rows->n_rows == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(worker_of(m, worker, &mw, err));
    SILT_RETURN_IF_ERROR(as_table_rows(m, rows, &b, err));
    SILT_RETURN_IF_ERROR(open_writer(m, mw, err));
    return delta_write_batch(mw->w, &b, err);
}

silt_status delta_modify_changes(delta_modify *m, size_t worker, const col_batch *rows,
                                 const char *change_type, silt_error *err)
{
    modify_worker *mw = NULL;
    col_batch b;
    if (!m->cdc_on || rows->n_rows == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(worker_of(m, worker, &mw, err));
    SILT_RETURN_IF_ERROR(as_table_rows(m, rows, &b, err));
    arena_reset(mw->a);
    return delta_dml_cdc_write(&mw->cdc, mw->a, &b, change_type, err);
}

void delta_modify_count(delta_modify *m, size_t worker, int64_t changed, int64_t copied)
{
    if (worker >= m->n_workers)
        return;
    m->workers[worker].changed += changed;
    m->workers[worker].copied += copied;
}

void delta_modify_count_merge(delta_modify *m, size_t worker, delta_merge_count what, int64_t n)
{
    if (worker < m->n_workers && what < DELTA_MERGE_N_COUNTS)
        m->workers[worker].merge[what] += n;
}

void delta_modify_set_source(delta_modify *m, int64_t n_rows, int64_t materialize_ns)
{
    m->source_rows = n_rows;
    m->materialize_ns = materialize_ns;
}

int64_t delta_modify_merge_changed(const delta_modify *m)
{
    int64_t n = 0;
    size_t wi;
    for (wi = 0; wi < m->n_workers; wi++)
        n += m->workers[wi].merge[DELTA_MERGE_MATCHED_UPDATED] +
             m->workers[wi].merge[DELTA_MERGE_MATCHED_DELETED] +
             m->workers[wi].merge[DELTA_MERGE_BY_SOURCE_UPDATED] +
             m->workers[wi].merge[DELTA_MERGE_BY_SOURCE_DELETED];
    return n;
}

void delta_modify_set_times(delta_modify *m, int64_t scan_ns, int64_t rewrite_ns)
{
    m->scan_ns = scan_ns;
    m->rewrite_ns = rewrite_ns;
}

/* Every worker's files into the transaction; totals into mt. */
static silt_status add_files(delta_modify *m, delta_dml_metrics *mt, int64_t *n_cdc,
                             silt_error *err)
{
    size_t wi, idx;
    int metadata_set = 0;
    const dlog_metadata *last_md = NULL;
    /* the new schema is committed even when no row was written */
    if (m->schema != m->snap->schema)
        SILT_RETURN_IF_ERROR(open_writer(m, &m->workers[0], err));
    for (wi = 0; wi < m->n_workers; wi++) {
        modify_worker *mw = &m->workers[wi];
        delta_write_output out;
        SILT_RETURN_IF_ERROR(delta_dml_cdc_commit(&mw->cdc, m->txn, err));
        *n_cdc += mw->cdc.n_files;
        if (m->o.op == DELTA_MODIFY_UPDATE)
            mt->num_updated_rows += mw->changed;
        else
            mt->num_deleted_rows += mw->changed;
        mt->num_copied_rows += mw->copied;
        if (mw->w == NULL)
            continue;
        SILT_RETURN_IF_ERROR(delta_write_finish(mw->w, &out, err));
        /* every worker's writer evolved the schema alike: one metaData action */
        if (out.metadata_changed && !metadata_set) {
            SILT_RETURN_IF_ERROR(delta_txn_set_metadata(m->txn, out.metadata, err));
            metadata_set = 1;
        }
        for (idx = 0; idx < out.n_adds; idx++)
            SILT_RETURN_IF_ERROR(delta_txn_add_file(m->txn, &out.adds[idx], err));
        mt->num_added_files += (int64_t)out.n_adds;
        mt->num_added_bytes += out.n_bytes;
        if (last_md == NULL || out.metadata_changed)
            last_md = out.metadata;
    }
    if (m->ident_col != NULL) { /* the high-water mark moves in this commit (a metaData) */
        dlog_metadata marked;
        arena *a = arena_new(NULL, "identity mark");
        silt_status rc = a ? delta_metadata_with_high_water_mark(
                                 last_md ? last_md : &m->snap->metadata,
                                 &m->snap->protocol, m->ident_col,
                                 m->ident_mark, a, &marked, err)
                           : err_nomem(err);
        if (rc == SILT_OK)
            rc = delta_txn_set_metadata(m->txn, &marked, err);
        arena_free(a);
        return rc;
    }
    return SILT_OK;
}

/* The removes counted, every worker's files added: the file metrics in mt. */
static silt_status finish_files(delta_modify *m, delta_dml_metrics *mt, int64_t *n_cdc,
                                silt_error *err)
{
    memset(mt, 0, sizeof(*mt));
    if (m->dv != NULL) {
        SILT_RETURN_IF_ERROR(delta_dml_dv_commit(m->dv, m->store, m->txn, &m->dvr, err));
        /* the change data feed reads a DELETE's rows from the vectors' difference */
        delta_txn_set_changes_are_files(m->txn);
        m->n_removed += m->dvr.n_removed_files;
        /* as the Spark peer counts: an UPDATE's files with a new vector are removed files,
         * a DELETE's and a MERGE's are not; no bytes are counted removed */
        if (m->o.op == DELTA_MODIFY_UPDATE)
            m->n_removed += m->dvr.n_touched;
        m->removed_bytes = 0;
    }
    m->dvr.n_dv_removed += m->dv_dropped;
    mt->num_removed_files = m->n_removed;
    mt->num_removed_bytes = m->removed_bytes;
    return add_files(m, mt, n_cdc, err);
}

static silt_status set_history(delta_modify *m, const delta_dml_metrics *mt, int64_t n_cdc,
                               silt_error *err)
{
    static const char *const dv_metrics[] = {"numDeletionVectorsAdded", "numDeletionVectorsRemoved",
                                             "numDeletionVectorsUpdated"};
    const int64_t dv_values[] = {m->dvr.n_dv_added, m->dvr.n_dv_removed, m->dvr.n_dv_updated};
    delta_txn *txn = m->txn;
    int64_t exec_ns = time_monotonic_nanos() - m->start_ns;
    size_t idx;
    SILT_RETURN_IF_ERROR(dwrite_predicate_param(txn, m->o.predicate_text, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numRemovedFiles", mt->num_removed_files, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numAddedFiles", mt->num_added_files, err));
    if (m->o.op == DELTA_MODIFY_DELETE)
        SILT_RETURN_IF_ERROR(
            delta_txn_set_metric(txn, "numDeletedRows", mt->num_deleted_rows, err));
    else
        SILT_RETURN_IF_ERROR(
            delta_txn_set_metric(txn, "numUpdatedRows", mt->num_updated_rows, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numCopiedRows", mt->num_copied_rows, err));
    for (idx = 0; idx < sizeof(dv_metrics) / sizeof(dv_metrics[0]); idx++)
        SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, dv_metrics[idx], dv_values[idx], err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numAddedChangeFiles", n_cdc, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numRemovedBytes", mt->num_removed_bytes, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numAddedBytes", mt->num_added_bytes, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "executionTimeMs", exec_ns / 1000000, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "scanTimeMs", m->scan_ns / 1000000, err));
    return delta_txn_set_metric(txn, "rewriteTimeMs", m->rewrite_ns / 1000000, err);
}

silt_status delta_modify_commit(delta_modify *m, delta_dml_metrics *metrics,
                                delta_commit_result *result, silt_error *err)
{
    delta_dml_metrics mt;
    int64_t n_cdc = 0;
    SILT_RETURN_IF_ERROR(finish_files(m, &mt, &n_cdc, err));
    SILT_RETURN_IF_ERROR(set_history(m, &mt, n_cdc, err));
    SILT_RETURN_IF_ERROR(delta_txn_commit(m->txn, result, err));
    if (metrics != NULL)
        *metrics = mt;
    return SILT_OK;
}

static silt_status merge_params(delta_modify *m, silt_error *err)
{
    const delta_modify_options *o = &m->o;
    SILT_RETURN_IF_ERROR(dwrite_predicate_param(m->txn, o->predicate_text, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_param(m->txn, "matchedPredicates",
                                             o->matched_json ? o->matched_json : "[]", err));
    SILT_RETURN_IF_ERROR(delta_txn_set_param(m->txn, "notMatchedPredicates",
                                             o->not_matched_json ? o->not_matched_json : "[]",
                                             err));
    return delta_txn_set_param(m->txn, "notMatchedBySourcePredicates",
                               o->not_matched_by_source_json ? o->not_matched_by_source_json
                                                             : "[]",
                               err);
}

static void merge_totals(const delta_modify *m, const delta_dml_metrics *mt,
                         delta_merge_metrics *mm)
{
    int64_t c[DELTA_MERGE_N_COUNTS] = {0};
    size_t wi, k;
    for (wi = 0; wi < m->n_workers; wi++)
        for (k = 0; k < DELTA_MERGE_N_COUNTS; k++)
            c[k] += m->workers[wi].merge[k];
    memset(mm, 0, sizeof(*mm));
    mm->num_source_rows = m->source_rows;
    mm->num_target_rows_matched_updated = c[DELTA_MERGE_MATCHED_UPDATED];
    mm->num_target_rows_matched_deleted = c[DELTA_MERGE_MATCHED_DELETED];
    mm->num_target_rows_not_matched_by_source_updated = c[DELTA_MERGE_BY_SOURCE_UPDATED];
    mm->num_target_rows_not_matched_by_source_deleted = c[DELTA_MERGE_BY_SOURCE_DELETED];
    mm->num_target_rows_updated = c[DELTA_MERGE_MATCHED_UPDATED] + c[DELTA_MERGE_BY_SOURCE_UPDATED];
    mm->num_target_rows_deleted = c[DELTA_MERGE_MATCHED_DELETED] + c[DELTA_MERGE_BY_SOURCE_DELETED];
    mm->num_target_rows_inserted = c[DELTA_MERGE_INSERTED];
    mm->num_target_rows_copied = c[DELTA_MERGE_COPIED];
    mm->num_output_rows = mm->num_target_rows_copied + mm->num_target_rows_updated +
                          mm->num_target_rows_inserted;
    mm->num_target_files_added = mt->num_added_files;
    mm->num_target_files_removed = mt->num_removed_files;
    mm->num_target_bytes_added = mt->num_added_bytes;
    mm->num_target_bytes_removed = mt->num_removed_bytes;
}

static silt_status merge_history(delta_modify *m, const delta_merge_metrics *mm, int64_t n_cdc,
                                 silt_error *err)
{
    struct {
        const char *key;
        int64_t value;
    } metrics[] = {
        {"numSourceRows", mm->num_source_rows},
        {"numTargetRowsInserted", mm->num_target_rows_inserted},
        {"numTargetRowsUpdated", mm->num_target_rows_updated},
        {"numTargetRowsMatchedUpdated", mm->num_target_rows_matched_updated},
        {"numTargetRowsNotMatchedBySourceUpdated",
         mm->num_target_rows_not_matched_by_source_updated},
        {"numTargetRowsDeleted", mm->num_target_rows_deleted},
        {"numTargetRowsMatchedDeleted", mm->num_target_rows_matched_deleted},
        {"numTargetRowsNotMatchedBySourceDeleted",
         mm->num_target_rows_not_matched_by_source_deleted},
        {"numTargetRowsCopied", mm->num_target_rows_copied},
        {"numOutputRows", mm->num_output_rows},
        {"numTargetFilesAdded", mm->num_target_files_added},
        {"numTargetFilesRemoved", mm->num_target_files_removed},
        {"numTargetChangeFilesAdded", n_cdc},
        {"numTargetBytesAdded", mm->num_target_bytes_added},
        {"numTargetBytesRemoved", mm->num_target_bytes_removed},
        {"numTargetDeletionVectorsAdded", m->dvr.n_dv_added},
        {"numTargetDeletionVectorsRemoved", m->dvr.n_dv_removed},
        {"numTargetDeletionVectorsUpdated", m->dvr.n_dv_updated},
        {"executionTimeMs", (time_monotonic_nanos() - m->start_ns) / 1000000},
        {"scanTimeMs", m->scan_ns / 1000000},
        {"rewriteTimeMs", m->rewrite_ns / 1000000},
        {"materializeSourceTimeMs", m->materialize_ns / 1000000},
    };
    size_t idx;
    SILT_RETURN_IF_ERROR(merge_params(m, err));
    for (idx = 0; idx < sizeof(metrics) / sizeof(metrics[0]); idx++)
        SILT_RETURN_IF_ERROR(delta_txn_set_metric(m->txn, metrics[idx].key, metrics[idx].value,
                                                  err));
    return SILT_OK;
}

silt_status delta_modify_commit_merge(delta_modify *m, delta_merge_metrics *metrics,
                                      delta_commit_result *result, silt_error *err)
{
    delta_dml_metrics mt;
    delta_merge_metrics mm;
    int64_t n_cdc = 0;
    SILT_RETURN_IF_ERROR(finish_files(m, &mt, &n_cdc, err));
    merge_totals(m, &mt, &mm);
    SILT_RETURN_IF_ERROR(merge_history(m, &mm, n_cdc, err));
    SILT_RETURN_IF_ERROR(delta_txn_commit(m->txn, result, err));
    if (metrics != NULL)
        *metrics = mm;
    return SILT_OK;
}

void delta_modify_free(delta_modify *m)
{
    size_t idx;
    if (m == NULL)
        return;
    for (idx = 0; m->workers != NULL && idx < m->n_workers; idx++) {
        delta_write_free(m->workers[idx].w);
        delta_dml_cdc_clear(&m->workers[idx].cdc);
        arena_free(m->workers[idx].a);
    }
    mem_free(m->workers);
    delta_dml_dv_free(m->dv);
    delta_txn_free(m->txn);
    mem_free(m);
}
