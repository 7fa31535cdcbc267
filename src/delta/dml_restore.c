/*
 * dml_restore.c - RESTORE TABLE to an earlier version or timestamp (dml.h).
 *
 * As Spark's RestoreTableCommand: the files live at the target version and
 * not now are added back (dataChange true), the files live now that the
 * target did not have are removed, and the target's metadata comes back
 * when it differs (the protocol is never lowered). Every file to re-add
 * must still exist: one that VACUUM deleted makes the restore fail before
 * anything is written, rather than commit a table with holes.
 */
#include <stdio.h>
#include <string.h>

#include "delta/dml.h"
#include "util/hashmap.h"
#include "util/time.h"

typedef struct restore_ctx {
    io_store *store;
    const delta_snapshot *now, *target;
    delta_txn *txn;
    int64_t removed_n, removed_bytes, restored_n, restored_bytes, after_bytes;
} restore_ctx;

static silt_status index_files(const delta_snapshot *snap, hashmap *out, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < snap->n_files; idx++)
        SILT_RETURN_IF_ERROR(hashmap_put_str(out, snap->files[idx].path,
                                             (void *)&snap->files[idx], err));
    return SILT_OK;
}

static silt_status check_exists(restore_ctx *ctx, const delta_file *file, silt_error *err)
{
    io_object_info info;
    if (strstr(file->path, "://") != NULL || file->path[0] == '/')
        return SILT_OK; /* absolute paths live outside this store */
    if (io_head(ctx->store, file->path, &info, err) != SILT_OK)
        return err_set(err, SILT_NOTFOUND,
                       "cannot restore the table: the data file \"%s\" of version %lld no "
                       "longer exists (removed by VACUUM?)",
                       file->path, (long long)ctx->target->version);
    io_object_info_clear(&info);
    return SILT_OK;
}

static silt_status restore_file(restore_ctx *ctx, const delta_file *file, silt_error *err)
{
    dlog_add add;
    SILT_RETURN_IF_ERROR(check_exists(ctx, file, err));
    memset(&add, 0, sizeof(add));
    add.path = file->path;
    add.partition_values = file->partition_values;
    add.size = file->size;
    add.modification_time = file->modification_time;
    add.data_change = 1;
    add.stats = file->stats;
    add.dv = file->dv;
    ctx->restored_n++;
    ctx->restored_bytes += file->size;
    return delta_txn_add_file(ctx->txn, &add, err);
}

static silt_status stage_files(restore_ctx *ctx, silt_error *err)
{
    hashmap live = HASHMAP_INIT, old = HASHMAP_INIT;
    size_t idx;
    silt_status rc = index_files(ctx->now, &live, err);
    if (rc == SILT_OK)
        rc = index_files(ctx->target, &old, err);
    for (idx = 0; rc == SILT_OK && idx < ctx->target->n_files; idx++) {
        const delta_file *file = &ctx->target->files[idx];
        ctx->after_bytes += file->size;
        if (hashmap_get_str(&live, file->path) == NULL)
            rc = restore_file(ctx, file, err);
    }
    for (idx = 0; rc == SILT_OK && idx < ctx->now->n_files; idx++) {
        const delta_file *file = &ctx->now->files[idx];
        if (hashmap_get_str(&old, file->path) != NULL)
            continue;
        ctx->removed_n++;
        ctx->removed_bytes += file->size;
        rc = delta_txn_remove_file(ctx->txn, file, 1, err);
    }
    hashmap_clear(&live);
    hashmap_clear(&old);
    return rc;
}

static int same_metadata(const dlog_metadata *a, const dlog_metadata *b)
{
    size_t idx;
    if (strcmp(a->schema_string, b->schema_string) != 0 ||
        a->n_partition_columns != b->n_partition_columns || a->configuration.n != b->configuration.n)
        return 0;
    for (idx = 0; idx < a->configuration.n; idx++) {
        const char *other = dlog_map_get(&b->configuration, a->configuration.items[idx].key, NULL);
        const char *mine = a->configuration.items[idx].value;
        if ((mine == NULL) != (other == NULL) || (mine != NULL && strcmp(mine, other) != 0))
            return 0;
    }
    return 1;
}

static silt_status stage(restore_ctx *ctx, int64_t timestamp_micros, silt_error *err)
{
    char text[64];
    delta_txn *txn = ctx->txn;
    SILT_RETURN_IF_ERROR(delta_txn_read_whole_table(txn, err));
    if (!same_metadata(&ctx->now->metadata, &ctx->target->metadata))
        SILT_RETURN_IF_ERROR(delta_txn_set_metadata(txn, &ctx->target->metadata, err));
    SILT_RETURN_IF_ERROR(stage_files(ctx, err));
    if (timestamp_micros < 0) {
        snprintf(text, sizeof(text), "%lld", (long long)ctx->target->version);
        SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "version", text, err));
        SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "timestamp", NULL, err));
    } else {
        time_format_timestamp_spark(timestamp_micros, text, sizeof(text));
        SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "version", NULL, err));
        SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "timestamp", text, err));
    }
    SILT_RETURN_IF_ERROR(
        delta_txn_set_metric(txn, "numRestoredFiles", ctx->restored_n, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "removedFilesSize", ctx->removed_bytes, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numRemovedFiles", ctx->removed_n, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "restoredFilesSize", ctx->restored_bytes, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_metric(txn, "numOfFilesAfterRestore",
                                              (int64_t)ctx->target->n_files, err));
    return delta_txn_set_metric(txn, "tableSizeAfterRestore", ctx->after_bytes, err);
}

silt_status delta_restore(io_store *store, const delta_snapshot *snap, int64_t version,
                          int64_t timestamp_micros, const char *user_metadata,
                          delta_commit_result *result, silt_error *err)
{
    restore_ctx ctx;
    delta_snapshot *target = NULL;
    silt_status rc;
    if ((version < 0) == (timestamp_micros < 0))
        return err_set(err, SILT_INVALID,
                       "RESTORE needs exactly one of a version and a timestamp");
    if (version > snap->version)
        return err_set(err, SILT_INVALID,
                       "cannot restore the table to version %lld: the newest version is %lld",
                       (long long)version, (long long)snap->version);
    rc = version >= 0 ? delta_snapshot_load(&target, store, version, err)
                      : delta_snapshot_load_at_timestamp(&target, store, timestamp_micros, NULL,
                                                         err);
    if (rc != SILT_OK)
        return err_context(err, "while loading the version to restore");
    memset(&ctx, 0, sizeof(ctx));
    ctx.store = store;
    ctx.now = snap;
    ctx.target = target;
    /* PROTOCOL: Change Data Files. Delta's RESTORE writes no cdc files even with the change
     * data feed on: its removes and adds (dataChange true) are read as deletes and inserts. */
    rc = delta_check_writable(&snap->protocol, &snap->metadata, DELTA_REMOVES_WITH_CDC, err);
    if (rc == SILT_OK)
        rc = delta_txn_begin(&ctx.txn, store, snap, "RESTORE", err);
    if (rc == SILT_OK)
        delta_txn_set_changes_are_files(ctx.txn);
    if (rc == SILT_OK && user_metadata != NULL)
        rc = delta_txn_set_user_metadata(ctx.txn, user_metadata, err);
    if (rc == SILT_OK)
        rc = stage(&ctx, timestamp_micros, err);
    if (rc == SILT_OK)
        rc = delta_txn_commit(ctx.txn, result, err);
    delta_txn_free(ctx.txn);
    delta_snapshot_free(target);
    return rc;
}
