/*
 * dml_dv.c - the deletion vectors DELETE, UPDATE and MERGE write instead of
 * rewriting files (dml_int.h, docs/dv.md).
 *
 * PROTOCOL: Deletion Vectors, Deletion Vector File Storage Format. The
 * workers mark the positions of the rows a statement removes (the scan's
 * row index: the row's position in its data file, before any deletion
 * vector); each worker keeps its own vector per snapshot file, so workers
 * never share one. At the commit, per touched file: the workers' vectors
 * and the file's old one are or-ed; a file left without a live row is
 * removed; otherwise the new vector is appended to one
 * `deletion_vector_<uuid>.bin` at the table root (storage type 'u', as
 * the Spark peer writes them) and the commit gets a remove of the old add
 * (with its old vector) and an add of the same path with the new vector,
 * numRecords unchanged and tightBounds false in its stats. The vector file
 * is written before the commit: a statement that fails or is killed
 * leaves it unreferenced, for VACUUM.
 */
#include <cjson/cJSON.h>
#include <string.h>

#include "delta/dml_int.h"
#include "delta/dv.h"
#include "util/mem.h"

struct dml_dv {
    const delta_snapshot *snap;
    size_t n_workers;
    ddv_bitmap ***marks; /* [worker][snapshot file], NULL until marked */
    uint8_t *gone;       /* per snapshot file: removed whole by the statement */
};

silt_status delta_dml_dv_new(dml_dv **out, const delta_snapshot *snap, size_t n_workers,
                             silt_error *err)
{
    dml_dv *d = mem_calloc(1, sizeof(*d));
    *out = d;
    if (d == NULL)
        return err_nomem(err);
    d->snap = snap;
    d->n_workers = n_workers;
    d->marks = mem_calloc(n_workers, sizeof(ddv_bitmap **));
    d->gone = mem_calloc(snap->n_files + 1, 1);
    return d->marks != NULL && d->gone != NULL ? SILT_OK : err_nomem(err);
}

void delta_dml_dv_free(dml_dv *d)
{
    size_t w, f;
    if (d == NULL)
        return;
    for (w = 0; d->marks != NULL && w < d->n_workers; w++) {
        for (f = 0; d->marks[w] != NULL && f < d->snap->n_files; f++)
            ddv_free(d->marks[w][f]);
        mem_free(d->marks[w]);
    }
    mem_free(d->marks);
    mem_free(d->gone);
    mem_free(d);
}

silt_status delta_dml_dv_mark(dml_dv *d, size_t worker, size_t file_idx, const int64_t *rows,
                              const uint8_t *sel, size_t n_rows, silt_error *err)
{
    ddv_bitmap **slot;
    if (worker >= d->n_workers || file_idx >= d->snap->n_files)
        return err_set(err, SILT_INVALID, "deletion vector marks for worker %zu, file %zu",
                       worker, file_idx);
    if (d->marks[worker] == NULL &&
        (d->marks[worker] = mem_calloc(d->snap->n_files + 1, sizeof(ddv_bitmap *))) == NULL)
        return err_nomem(err);
    slot = &d->marks[worker][file_idx];
    if (*slot == NULL)
        SILT_RETURN_IF_ERROR(ddv_new(slot, err));
    return ddv_add_rows(*slot, rows, sel, n_rows, err);
}

void delta_dml_dv_drop(dml_dv *d, size_t file_idx)
{
    if (d != NULL && file_idx < d->snap->n_files)
        d->gone[file_idx] = 1;
}

/* numRecords of a file's stats, or -1. */
static int64_t num_records(const char *stats)
{
    cJSON *root = stats != NULL ? cJSON_Parse(stats) : NULL;
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(root, "numRecords");
    int64_t rows = cJSON_IsNumber(n) && n->valuedouble >= 0 ? (int64_t)n->valuedouble : -1;
    cJSON_Delete(root);
    return rows;
}

/* The file's stats with tightBounds false (the bounds may belong to deleted rows), in out. */
static silt_status loose_stats(const char *stats, buf *out, silt_error *err)
{
    cJSON *root = stats != NULL ? cJSON_Parse(stats) : NULL;
    char *text;
    silt_status rc;
    buf_truncate(out, 0);
    if (root == NULL)
        return SILT_OK;
    cJSON_DeleteItemFromObjectCaseSensitive(root, "tightBounds");
    if (cJSON_AddBoolToObject(root, "tightBounds", 0) == NULL) {
        cJSON_Delete(root);
        return err_nomem(err);
    }
    text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (text == NULL)
        return err_nomem(err);
    rc = buf_append_str(out, text, err);
    cJSON_free(text);
    return rc;
}

/* The rows of file f the statement deletes, or-ed with its old vector, in *out (NULL: none). */
static silt_status file_vector(dml_dv *d, io_store *store, size_t f, ddv_bitmap **out,
                               silt_error *err)
{
    const delta_file *file = &d->snap->files[f];
    ddv_bitmap *all = NULL, *old = NULL;
    size_t w;
    silt_status rc = SILT_OK;
    *out = NULL;
    for (w = 0; w < d->n_workers && rc == SILT_OK; w++) {
        if (d->marks[w] == NULL || d->marks[w][f] == NULL)
            continue;
        if (all == NULL && (rc = ddv_new(&all, err)) != SILT_OK)
            break;
        rc = ddv_union(all, d->marks[w][f], err);
    }
    if (rc == SILT_OK && all != NULL && file->dv.storage_type != 0) {
        rc = ddv_load(&old, store, &file->dv, err);
        if (rc == SILT_OK)
            rc = ddv_union(all, old, err);
    }
    ddv_free(old);
    if (rc != SILT_OK) {
        ddv_free(all);
        return rc;
    }
    *out = all;
    return SILT_OK;
}

/* remove(old add, with its vector) + add(same file, new vector) for file f. */
static silt_status replace_file(dml_dv *d, delta_txn *txn, size_t f, const ddv_bitmap *dv,
                                buf *dv_file, const char *z85, dml_dv_result *res,
                                silt_error *err)
{
    const delta_file *file = &d->snap->files[f];
    dlog_add add;
    buf stats = BUF_INIT;
    silt_status rc;
    memset(&add, 0, sizeof(add));
    add.path = file->path;
    add.partition_values = file->partition_values;
    add.size = file->size;
    add.modification_time = file->modification_time;
    add.data_change = 1;
    add.has_base_row_id = file->has_base_row_id;
    add.base_row_id = file->base_row_id;
    add.has_default_row_commit_version = file->has_default_row_commit_version;
    add.default_row_commit_version = file->default_row_commit_version;
    add.dv.storage_type = 'u';
    add.dv.path_or_inline_dv = z85;
    add.dv.cardinality = ddv_cardinality(dv);
    add.dv.max_row_index = -1;
    rc = ddv_file_append(dv_file, dv, &add.dv.offset, &add.dv.size_in_bytes, err);
    if (rc == SILT_OK)
        rc = loose_stats(file->stats, &stats, err);
    if (rc == SILT_OK) {
        add.stats = stats.len > 0 ? buf_cstr(&stats) : NULL;
        rc = delta_txn_remove_file(txn, file, 1, err);
    }
    if (rc == SILT_OK)
        rc = delta_txn_add_file(txn, &add, err);
    buf_clear(&stats);
    if (rc != SILT_OK)
        return rc;
    res->n_dv_added++;
    res->n_touched++;
    if (file->dv.storage_type != 0) {
        res->n_dv_updated++;
        res->n_dv_removed++;
    }
    res->n_dv_rows += ddv_cardinality(dv) - file->dv.cardinality;
    return SILT_OK;
}

/* Each touched file's action(s); the vectors into dv_file. */
static silt_status touched_files(dml_dv *d, io_store *store, delta_txn *txn, buf *dv_file,
                                 const char *z85, dml_dv_result *res, silt_error *err)
{
    size_t f;
    silt_status rc = SILT_OK;
    for (f = 0; f < d->snap->n_files && rc == SILT_OK; f++) {
        const delta_file *file = &d->snap->files[f];
        ddv_bitmap *dv = NULL;
        int64_t rows;
        if (d->gone[f])
            continue;
        SILT_RETURN_IF_ERROR(file_vector(d, store, f, &dv, err));
        if (dv == NULL)
            continue;
        rows = num_records(file->stats);
        if (rows >= 0 && ddv_cardinality(dv) >= rows) {
            /* no live row left: the file goes, its vector with it */
            rc = delta_txn_remove_file(txn, file, 1, err);
            res->n_removed_files++;
            res->removed_bytes += file->size;
            res->n_dv_removed += file->dv.storage_type != 0;
        } else {
            rc = replace_file(d, txn, f, dv, dv_file, z85, res, err);
        }
        ddv_free(dv);
    }
    return rc;
}

silt_status delta_dml_dv_commit(dml_dv *d, io_store *store, delta_txn *txn, dml_dv_result *res,
                                silt_error *err)
{
    uint8_t uuid[16];
    char name[64], z85[24], text[37];
    buf dv_file = BUF_INIT;
    size_t idx;
    silt_status rc;
    memset(res, 0, sizeof(*res));
    SILT_RETURN_IF_ERROR(delta_uuid_v4(text, err));
    for (idx = 0; idx < 16; idx++) { /* the UUID's bytes, from its hex text */
        const char *hex = text + idx * 2 + (idx >= 4) + (idx >= 6) + (idx >= 8) + (idx >= 10);
        unsigned hi = (unsigned)(hex[0] <= '9' ? hex[0] - '0' : hex[0] - 'a' + 10);
        unsigned lo = (unsigned)(hex[1] <= '9' ? hex[1] - '0' : hex[1] - 'a' + 10);
        uuid[idx] = (uint8_t)(hi << 4 | lo);
    }
    ddv_file_name(uuid, name, z85);
    rc = touched_files(d, store, txn, &dv_file, z85, res, err);
    if (rc == SILT_OK && dv_file.len > 0) {
        rc = io_put(store, name, dv_file.data, dv_file.len, err);
        if (rc != SILT_OK)
            err_context(err, "while writing deletion vector file \"%s\"", name);
    }
    buf_clear(&dv_file);
    return rc;
}
