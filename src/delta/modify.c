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
} modify_worker;

struct delta_modify {
    io_store *store;
    const delta_snapshot *snap;
    delta_modify_options o;
    delta_txn *txn;
    modify_worker *workers;
    size_t n_workers;
    int cdc_on;
    int64_t start_ns, scan_ns, rewrite_ns;
    int64_t n_removed, removed_bytes;
};

silt_status delta_modify_begin(delta_modify **out, io_store *store, const delta_snapshot *snap,
                               const delta_modify_options *opts, silt_error *err)
{
    delta_modify *m = mem_calloc(1, sizeof(*m));
    size_t idx;
    silt_status rc = SILT_OK;
    *out = NULL;
    if (m == NULL)
        return err_nomem(err);
    *out = m;
    m->store = store;
    m->snap = snap;
    m->o = *opts;
    m->start_ns = time_monotonic_nanos();
    m->n_workers = opts->n_workers ? opts->n_workers : 1;
    m->workers = mem_calloc(m->n_workers, sizeof(modify_worker));
    if (m->workers == NULL)
        return err_nomem(err);
    for (idx = 0; idx < m->n_workers && rc == SILT_OK; idx++) {
        delta_dml_cdc_init(&m->workers[idx].cdc, store, snap, NULL);
        m->workers[idx].a = arena_new(NULL, "modify worker");
        if (m->workers[idx].a == NULL)
            rc = err_nomem(err);
    }
    SILT_RETURN_IF_ERROR(rc);
    m->cdc_on = m->workers[0].cdc.on;
    SILT_RETURN_IF_ERROR(delta_check_writable(&snap->protocol, &snap->metadata,
                                              m->cdc_on ? DELTA_REMOVES_WITH_CDC : 1, err));
    SILT_RETURN_IF_ERROR(delta_txn_begin(&m->txn, store, snap,
                                         opts->op == DELTA_MODIFY_UPDATE ? "UPDATE" : "DELETE",
                                         err));
    if (opts->now_ms != NULL)
        delta_txn_set_clock(m->txn, opts->now_ms, opts->now_payload);
    if (opts->user_metadata != NULL)
        SILT_RETURN_IF_ERROR(delta_txn_set_user_metadata(m->txn, opts->user_metadata, err));
    if (opts->retry_timeout_ms > 0)
        delta_txn_set_retry_timeout_ms(m->txn, opts->retry_timeout_ms);
    /* A partition-only WHERE reads its partitions only: writers on others do not conflict. */
    if (opts->read_predicate != NULL)
        return delta_txn_read_predicate(m->txn, opts->read_predicate, opts->read_predicate_payload,
                                        err);
    return delta_txn_read_whole_table(m->txn, err);
}

int delta_modify_cdc_on(const delta_modify *m) { return m->cdc_on; }

silt_status delta_modify_remove(delta_modify *m, const delta_file *file, silt_error *err)
{
    m->n_removed++;
    m->removed_bytes += file->size;
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
    if (rows->n_cols != m->snap->schema->n_fields)
        return err_set(err, SILT_INVALID, "the rewritten rows have %zu columns, the table %zu",
                       rows->n_cols, m->snap->schema->n_fields);
    *out = *rows;
    out->schema = m->snap->schema;
    return SILT_OK;
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
    /* each worker its own writer, encoding on its own thread (no pool) */
    if (mw->w == NULL) {
        delta_write_options wo = DELTA_WRITE_OPTIONS_INIT;
        wo.compression = m->o.compression;
        SILT_RETURN_IF_ERROR(delta_write_open(&mw->w, m->store, m->snap, m->snap->schema, &wo,
                                              err));
    }
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
        for (idx = 0; idx < out.n_adds; idx++)
            SILT_RETURN_IF_ERROR(delta_txn_add_file(m->txn, &out.adds[idx], err));
        mt->num_added_files += (int64_t)out.n_adds;
        mt->num_added_bytes += out.n_bytes;
    }
    return SILT_OK;
}

static silt_status set_history(delta_modify *m, const delta_dml_metrics *mt, int64_t n_cdc,
                               silt_error *err)
{
    static const char *const dv_metrics[] = {"numDeletionVectorsAdded", "numDeletionVectorsRemoved",
                                             "numDeletionVectorsUpdated"};
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
        SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, dv_metrics[idx], 0, err));
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
    memset(&mt, 0, sizeof(mt));
    mt.num_removed_files = m->n_removed;
    mt.num_removed_bytes = m->removed_bytes;
    SILT_RETURN_IF_ERROR(add_files(m, &mt, &n_cdc, err));
    SILT_RETURN_IF_ERROR(set_history(m, &mt, n_cdc, err));
    SILT_RETURN_IF_ERROR(delta_txn_commit(m->txn, result, err));
    if (metrics != NULL)
        *metrics = mt;
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
    delta_txn_free(m->txn);
    mem_free(m);
}
