/*
 * write_commit.c - the write operations as one transaction each, with the
 * commitInfo Spark writes for them (DESCRIBE HISTORY shows the same
 * operation, operationParameters and operationMetrics keys):
 *
 *   WRITE                     {mode: Append|Overwrite, partitionBy: [...],
 *                              predicate (replaceWhere, plain text),
 *                              isDynamicPartitionOverwrite}
 *                             numFiles, numOutputRows, numOutputBytes;
 *                             overwrites numRemovedFiles, numRemovedBytes;
 *                             replaceWhere numDeletedRows, numCopiedRows,
 *                             numAddedChangeFiles
 *   CREATE TABLE AS SELECT    {partitionBy, description, properties,
 *                              clusterBy, isManaged}
 *                             numFiles, numOutputRows, numOutputBytes
 *   CREATE TABLE              {the same}
 * (checked against Delta 4.1's DESCRIBE HISTORY for the same operations)
 *
 * A CTAS made for a DataFrameWriter save (opts->save_mode, the C API's
 * write) is recorded as Spark's df.write.save(path) records it: WRITE
 * {mode: ErrorIfExists|Append|Overwrite|Ignore, partitionBy} with the
 * WRITE metrics. opts->user_metadata becomes commitInfo.userMetadata.
 *
 * A replaceWhere here is a filter over files by their partition values:
 * the files it selects are removed. Spark also checks that every new row
 * satisfies the predicate; the caller (the SQL layer, which has the
 * expression) does that check.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "delta/dml.h"
#include "delta/stats.h"
#include "delta/write_int.h"

/* A JSON array of strings ("[\"a\",\"b\"]") or object of the map, as text in arena a. */
static silt_status json_text(cJSON *item, arena *a, const char **out, silt_error *err)
{
    char *text = item ? cJSON_PrintUnformatted(item) : NULL;
    if (text == NULL) {
        cJSON_Delete(item);
        return err_nomem(err);
    }
    *out = arena_strdup(a, text);
    cJSON_free(text);
    cJSON_Delete(item);
    return *out ? SILT_OK : err_nomem(err);
}

static silt_status names_json(const char *const *names, size_t n, arena *a, const char **out,
                              silt_error *err)
{
    cJSON *arr = cJSON_CreateArray();
    size_t idx;
    for (idx = 0; arr != NULL && idx < n; idx++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(names[idx]));
    return json_text(arr, a, out, err);
}

static silt_status properties_json(const dlog_metadata *md, arena *a, const char **out,
                                   silt_error *err)
{
    cJSON *obj = cJSON_CreateObject();
    size_t idx;
    for (idx = 0; obj != NULL && idx < md->configuration.n; idx++) {
        const dlog_kv *kv = &md->configuration.items[idx];
        cJSON_AddItemToObject(obj, kv->key,
                              kv->value ? cJSON_CreateString(kv->value) : cJSON_CreateNull());
    }
    return json_text(obj, a, out, err);
}

static const char *operation_name(delta_write_mode mode, const delta_commit_options *opts)
{
    if (mode == DELTA_MODE_CTAS && opts->save_mode != NULL)
        return "WRITE";
    switch (mode) {
    case DELTA_MODE_CREATE: return "CREATE TABLE";
    case DELTA_MODE_CTAS: return "CREATE TABLE AS SELECT";
    default: return "WRITE";
    }
}

/*
 * Spark's parameters: CREATE/CTAS show the table's partitioning; WRITE shows
 * the partitionBy the writer was given ("[]" for a plain append), and a
 * replaceWhere predicate as plain text (DELETE's is a JSON list).
 */
static silt_status set_params(delta_txn *txn, delta_write_mode mode, const delta_writer *w,
                              const dlog_metadata *md, const delta_commit_options *opts,
                              arena *a, silt_error *err)
{
    const char *parts = NULL, *props = NULL;
    size_t n_by = 0;
    const char *const *by = dwrite_partition_by(w, &n_by);
    if (mode == DELTA_MODE_CTAS && opts->save_mode != NULL) {
        SILT_RETURN_IF_ERROR(names_json((const char *const *)md->partition_columns,
                                        md->n_partition_columns, a, &parts, err));
        SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "mode", opts->save_mode, err));
        return delta_txn_set_param(txn, "partitionBy", parts, err);
    }
    if (mode == DELTA_MODE_CREATE || mode == DELTA_MODE_CTAS) {
        SILT_RETURN_IF_ERROR(names_json((const char *const *)md->partition_columns,
                                        md->n_partition_columns, a, &parts, err));
        SILT_RETURN_IF_ERROR(properties_json(md, a, &props, err));
        SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "partitionBy", parts, err));
        SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "description", md->description, err));
        SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "properties", props, err));
        SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "clusterBy", "[]", err));
        return delta_txn_set_param(txn, "isManaged", opts->is_managed ? "true" : "false", err);
    }
    SILT_RETURN_IF_ERROR(names_json(by, n_by, a, &parts, err));
    SILT_RETURN_IF_ERROR(
        delta_txn_set_param(txn, "mode", mode == DELTA_MODE_APPEND ? "Append" : "Overwrite", err));
    SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "partitionBy", parts, err));
    if (mode == DELTA_MODE_OVERWRITE && opts->predicate_text != NULL)
        SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "predicate", opts->predicate_text, err));
    if (mode == DELTA_MODE_OVERWRITE_PARTITIONS)
        SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "isDynamicPartitionOverwrite", "true", err));
    return SILT_OK;
}

static int same_partition(const dlog_map *a, const dlog_map *b)
{
    size_t idx;
    if (a->n != b->n)
        return 0;
    for (idx = 0; idx < a->n; idx++) {
        const char *other = dlog_map_get(b, a->items[idx].key, NULL);
        const char *mine = a->items[idx].value;
        if ((mine == NULL) != (other == NULL) || (mine != NULL && strcmp(mine, other) != 0))
            return 0;
    }
    return 1;
}

/* A live file that the overwrite replaces. */
static int replaced(const delta_snapshot *snap, const delta_file *file, delta_write_mode mode,
                    const delta_commit_options *opts, const delta_write_output *out)
{
    size_t idx;
    if (mode == DELTA_MODE_OVERWRITE)
        return opts->replace_where == NULL ||
               opts->replace_where(snap, file, opts->replace_where_payload);
    for (idx = 0; idx < out->n_adds; idx++)
        if (same_partition(&file->partition_values, &out->adds[idx].partition_values))
            return 1;
    return 0;
}

typedef struct removed_totals {
    int64_t files, bytes, rows;
} removed_totals;

/* numRecords of a file's stats, 0 when unknown (Spark's numDeletedRows counts what it knows). */
static int64_t file_records(const delta_snapshot *snap, const delta_file *file, arena *a)
{
    dstats st;
    dproto_mapping_mode mode = DPROTO_MAPPING_NONE;
    silt_error ignored = SILT_ERROR_INIT;
    if (file->stats == NULL || dproto_get_mapping_mode(&snap->metadata, &mode, &ignored) != SILT_OK ||
        dstats_parse(&st, a, file->stats, snap->schema, mode, &ignored) != SILT_OK ||
        !st.has_num_records)
        return 0;
    return st.num_records - (file->dv.storage_type ? file->dv.cardinality : 0);
}

static silt_status remove_replaced(delta_txn *txn, const delta_snapshot *snap,
                                   delta_write_mode mode, const delta_commit_options *opts,
                                   const delta_write_output *out, arena *a, removed_totals *tot,
                                   silt_error *err)
{
    size_t idx;
    if (mode == DELTA_MODE_OVERWRITE && opts->replace_where == NULL)
        SILT_RETURN_IF_ERROR(delta_txn_read_whole_table(txn, err));
    for (idx = 0; idx < snap->n_files; idx++) {
        const delta_file *file = &snap->files[idx];
        if (!replaced(snap, file, mode, opts, out))
            continue;
        if (opts->replace_where != NULL || mode == DELTA_MODE_OVERWRITE_PARTITIONS)
            SILT_RETURN_IF_ERROR(delta_txn_read_partition(txn, &file->partition_values, err));
        SILT_RETURN_IF_ERROR(delta_txn_remove_file(txn, file, 1, err));
        tot->files++;
        tot->bytes += file->size;
        tot->rows += file_records(snap, file, a);
    }
    return SILT_OK;
}

/* Spark's overwrite metrics: removed files and bytes; replaceWhere also deleted/copied rows. */
static silt_status overwrite_metrics(delta_txn *txn, delta_write_mode mode,
                                     const delta_commit_options *opts, const removed_totals *tot,
                                     silt_error *err)
{
    if (mode == DELTA_MODE_APPEND)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numRemovedFiles", tot->files, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numRemovedBytes", tot->bytes, err));
    if (opts->replace_where == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numDeletedRows", tot->rows, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numCopiedRows", 0, err));
    return delta_txn_set_metric(txn, "numAddedChangeFiles", 0, err);
}

/*
 * replaceWhere over data columns (Delta's arbitrary replaceWhere): the matching rows are
 * deleted as DELETE would (files rewritten with their other rows) in this commit. Spark's
 * metrics: numRemovedFiles/Bytes, numDeletedRows, numCopiedRows; the rewritten files and
 * their copied rows count in numFiles, numOutputRows and numOutputBytes next to the new
 * rows' (checked against Delta 4.1 on a one-file table).
 */
static silt_status replace_rows(delta_txn *txn, io_store *store, const delta_snapshot *snap,
                                const delta_commit_options *opts, const delta_write_output *out,
                                silt_error *err)
{
    delta_dml_metrics m;
    memset(&m, 0, sizeof(m));
    SILT_RETURN_IF_ERROR(dwrite_delete_rows(txn, store, snap, opts->replace_where,
                                            opts->replace_where_payload, opts->replace_rows,
                                            opts->replace_rows_payload, &m, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numFiles",
                                              (int64_t)out->n_adds + m.num_added_files, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numOutputRows",
                                              out->n_rows + m.num_copied_rows, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numOutputBytes",
                                              out->n_bytes + m.num_added_bytes, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numRemovedFiles", m.num_removed_files, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numRemovedBytes", m.num_removed_bytes, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numDeletedRows", m.num_deleted_rows, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numCopiedRows", m.num_copied_rows, err));
    return delta_txn_set_metric(txn, "numAddedChangeFiles", 0, err);
}

static silt_status stage(delta_txn *txn, io_store *store, const delta_snapshot *snap,
                         const delta_writer *w, delta_write_mode mode,
                         const delta_commit_options *opts, const delta_write_output *out,
                         arena *a, silt_error *err)
{
    removed_totals tot = {0, 0, 0};
    int rows = snap != NULL && mode == DELTA_MODE_OVERWRITE && opts->replace_rows != NULL;
    size_t idx;
    if (snap == NULL) {
        dlog_protocol proto, asked;
        int changed = 0;
        SILT_RETURN_IF_ERROR(delta_protocol_for_new_table(out->metadata, 0, a, &proto, err));
        if (opts->protocol_request != NULL)
            SILT_RETURN_IF_ERROR(
                dproto_request_apply(&proto, opts->protocol_request, a, &asked, &changed, err));
        SILT_RETURN_IF_ERROR(delta_txn_set_protocol(txn, changed ? &asked : &proto, err));
    }
    if (opts->identity_column != NULL) {
        dlog_metadata marked;
        SILT_RETURN_IF_ERROR(delta_metadata_with_high_water_mark(
            out->metadata, snap != NULL ? &snap->protocol : NULL, opts->identity_column,
            opts->identity_high_water_mark, a, &marked, err));
        SILT_RETURN_IF_ERROR(delta_txn_set_metadata(txn, &marked, err));
    }
    else if (out->metadata_changed)
        SILT_RETURN_IF_ERROR(delta_txn_set_metadata(txn, out->metadata, err));
    if (snap != NULL && mode != DELTA_MODE_APPEND && !rows)
        SILT_RETURN_IF_ERROR(remove_replaced(txn, snap, mode, opts, out, a, &tot, err));
    for (idx = 0; idx < out->n_adds; idx++)
        SILT_RETURN_IF_ERROR(delta_txn_add_file(txn, &out->adds[idx], err));
    SILT_RETURN_IF_ERROR(set_params(txn, mode, w, out->metadata, opts, a, err));
    if (mode == DELTA_MODE_CREATE)
        return SILT_OK;
    if (rows)
        return replace_rows(txn, store, snap, opts, out, err);
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numFiles", (int64_t)out->n_adds, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numOutputRows", out->n_rows, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numOutputBytes", out->n_bytes, err));
    return snap != NULL ? overwrite_metrics(txn, mode, opts, &tot, err) : SILT_OK;
}

static silt_status check_mode(const delta_snapshot *snap, delta_write_mode mode,
                              const delta_write_output *out, silt_error *err)
{
    int creates = mode == DELTA_MODE_CREATE || mode == DELTA_MODE_CTAS;
    if (creates && snap != NULL)
        return err_set(err, SILT_EXISTS,
                       "cannot create the table: a Delta table exists at that location "
                       "(version %lld)",
                       (long long)snap->version);
    if (!creates && snap == NULL)
        return err_set(err, SILT_INVALID,
                       "cannot write to the table: it does not exist (create it first)");
    if (mode == DELTA_MODE_CREATE && out->n_rows > 0)
        return err_set(err, SILT_INVALID, "CREATE TABLE writes no rows: use CTAS for rows");
    return SILT_OK;
}

/*
 * The data files of a write whose commit certainly failed (an I/O error, a
 * conflict) are referenced by nothing: removed now, best effort, so a
 * failed CTAS leaves no files in a folder with no table, and a failed
 * INSERT none for VACUUM to find. Files of a commit that may have happened
 * are kept.
 */
static void remove_uncommitted(io_store *store, const delta_write_output *out, arena *a)
{
    size_t idx;
    for (idx = 0; idx < out->n_adds; idx++) {
        silt_error ignored = SILT_ERROR_INIT;
        const char *key = NULL;
        const char *path = out->adds[idx].path;
        if (dlog_uri_decode(a, path, strlen(path), &key, &ignored) == SILT_OK)
            (void)io_delete(store, key, &ignored);
    }
}

silt_status delta_write_commit(delta_writer *w, io_store *store, const delta_snapshot *snap,
                               delta_write_mode mode, const delta_commit_options *opts,
                               delta_commit_result *result, silt_error *err)
{
    static const delta_commit_options defaults = DELTA_COMMIT_OPTIONS_INIT;
    delta_write_output out;
    delta_txn *txn = NULL;
    arena *a;
    silt_status rc;
    if (opts == NULL)
        opts = &defaults;
    dlog_metadata described;
    SILT_RETURN_IF_ERROR(delta_write_finish(w, &out, err));
    a = arena_new(NULL, "write commit");
    if (a == NULL)
        return err_nomem(err);
    rc = check_mode(snap, mode, &out, err);
    if (rc == SILT_OK && opts->description != NULL &&
        (mode == DELTA_MODE_CREATE || mode == DELTA_MODE_CTAS) && out.metadata != NULL) {
        described = *out.metadata;
        described.description = opts->description;
        out.metadata = &described;
    }
    if (rc == SILT_OK)
        rc = delta_txn_begin(&txn, store, snap, operation_name(mode, opts), err);
    if (rc == SILT_OK && opts->now_ms != NULL)
        delta_txn_set_clock(txn, opts->now_ms, opts->now_payload);
    if (rc == SILT_OK && opts->user_metadata != NULL)
        rc = delta_txn_set_user_metadata(txn, opts->user_metadata, err);
    if (rc == SILT_OK && opts->retry_timeout_ms > 0)
        delta_txn_set_retry_timeout_ms(txn, opts->retry_timeout_ms);
    if (rc == SILT_OK)
        rc = delta_txn_set_app(txn, &opts->app_txn, err);
    if (rc == SILT_OK)
        rc = stage(txn, store, snap, w, mode, opts, &out, a, err);
    if (rc == SILT_OK)
        rc = delta_txn_commit(txn, result, err);
    if (rc != SILT_OK && (txn == NULL || !delta_txn_maybe_committed(txn)))
        remove_uncommitted(store, &out, a);
    delta_txn_free(txn);
    arena_free(a);
    return rc;
}
