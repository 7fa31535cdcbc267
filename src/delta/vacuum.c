/*
 * vacuum.c - VACUUM (maint.h), following Delta 4's VacuumCommand.
 *
 * The files kept are those some version within the retention may read:
 * the live adds and the removes whose deletionTimestamp is after
 * now - retention (a reader of an older snapshot inside the retention still
 * finds them), with their deletion vector files. Everything else under the
 * root that is older than the retention goes, outside `_delta_log/` and the
 * hidden folders and files (a `_` or `.` prefix, except `_change_data`,
 * `_delta_index` and partition folders `col=value`, as
 * DeltaTableUtils.isHiddenDirectory): the files of expired versions, the
 * orphans of failed or killed writers, change data files past the
 * retention. Files younger than the retention are never deleted, so a
 * writer still writing its files before its commit is safe whatever the
 * log says. Folders are counted, and the empty ones removed as Delta's
 * VACUUM removes them (find_folders, docs/maintenance.md).
 */
#include <stdio.h>
#include <string.h>

#include "delta/dv.h"
#include "delta/log.h"
#include "delta/maint.h"
#include "util/hashmap.h"
#include "util/time.h"

void delta_vacuum_result_clear(delta_vacuum_result *r)
{
    if (r != NULL)
    {
        io_listing_clear(&r->files);
        io_listing_clear(&r->folders);
    }
}

silt_status delta_deleted_file_retention_ms(const delta_snapshot *snap, int64_t *out,
                                            silt_error *err)
{
    const char *text = delta_snapshot_property(snap, "delta.deletedFileRetentionDuration");
    *out = DELTA_DEFAULT_DELETED_FILE_RETENTION_MS;
    if (text == NULL)
        return SILT_OK;
    return delta_parse_interval_ms(text, out, err);
}

/* A path of the log made a key under the root; NULL when it lies outside the table. */
static const char *relative_key(const char *path, const char *root)
{
    size_t root_len = strlen(root);
    if (util_str_starts_with(path, "file://"))
        path += strlen("file://");
    else if (util_str_starts_with(path, "file:"))
        path += strlen("file:");
    if (strstr(path, "://") != NULL)
        return NULL;
    if (path[0] != '/')
        return path;
    if (strncmp(path, root, root_len) == 0 && path[root_len] == '/')
        return path + root_len + 1;
    return NULL;
}

typedef struct vacuum_ctx {
    io_store *store;
    const delta_snapshot *snap;
    const char *root;
    hashmap keep;
    arena *a;
    size_t n_also_keep;
    const delta_snapshot *const *also_keep;
} vacuum_ctx;

static silt_status keep_path(vacuum_ctx *ctx, const char *path, const dlog_dv *dv,
                             silt_error *err)
{
    const char *key = relative_key(path, ctx->root);
    if (key != NULL)
        SILT_RETURN_IF_ERROR(hashmap_put_str(&ctx->keep, key, (void *)key, err));
    if (dv->storage_type == 'p' && relative_key(dv->path_or_inline_dv, ctx->root) == NULL)
        return SILT_OK; /* a shallow clone's vector, in the source table: never vacuumed here */
    if (dv->storage_type == 'u' || dv->storage_type == 'p') {
        buf dv_key = BUF_INIT;
        silt_status rc = ddv_file_key(dv, ctx->root, &dv_key, err);
        const char *copy = rc == SILT_OK ? arena_strndup(ctx->a, dv_key.data, dv_key.len) : NULL;
        buf_clear(&dv_key);
        if (rc != SILT_OK)
            return rc;
        if (copy == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(hashmap_put_str(&ctx->keep, copy, (void *)copy, err));
    }
    return SILT_OK;
}

static silt_status collect_keep(vacuum_ctx *ctx, int64_t delete_before_ms, silt_error *err)
{
    dlog_remove *tombstones = NULL;
    size_t n_tombstones = 0, idx;
    for (idx = 0; idx < ctx->snap->n_files; idx++)
        SILT_RETURN_IF_ERROR(
            keep_path(ctx, ctx->snap->files[idx].path, &ctx->snap->files[idx].dv, err));
    SILT_RETURN_IF_ERROR(delta_collect_tombstones(ctx->store, ctx->snap, delete_before_ms, ctx->a,
                                                  &tombstones, &n_tombstones, err));
    for (idx = 0; idx < n_tombstones; idx++)
        SILT_RETURN_IF_ERROR(keep_path(ctx, tombstones[idx].path, &tombstones[idx].dv, err));
    /* every branch and tag of the catalog holding the table (docs/branches.md): a file a
     * reference reads is live, whatever main's log says of it */
    for (idx = 0; idx < ctx->n_also_keep; idx++) {
        const delta_snapshot *other = ctx->also_keep[idx];
        size_t f;
        for (f = 0; f < other->n_files; f++)
            SILT_RETURN_IF_ERROR(keep_path(ctx, other->files[f].path, &other->files[f].dv, err));
    }
    return SILT_OK;
}

/* DeltaTableUtils.isHiddenDirectory, for one path segment. */
static int hidden_name(const dlog_metadata *md, const char *name, size_t len)
{
    size_t idx;
    if (len == 0 || (name[0] != '_' && name[0] != '.'))
        return 0;
    if ((len >= 12 && strncmp(name, "_change_data", 12) == 0) ||
        (len >= 12 && strncmp(name, "_delta_index", 12) == 0))
        return 0;
    for (idx = 0; idx < md->n_partition_columns; idx++) {
        size_t n = strlen(md->partition_columns[idx]);
        if (len > n && strncmp(name, md->partition_columns[idx], n) == 0 && name[n] == '=')
            return 0;
    }
    return 1;
}

/* Whether a key lies in (or is) a hidden folder or file; counts its folders in `dirs`. */
static int hidden_key(const dlog_metadata *md, const char *key)
{
    const char *seg = key;
    for (;;) {
        const char *slash = strchr(seg, '/');
        size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
        if (hidden_name(md, seg, len))
            return 1;
        if (slash == NULL)
            return 0;
        seg = slash + 1;
    }
}

/* Each folder of the listing once (Delta's numVacuumedDirectories counts them, root too). */
static silt_status count_dirs(const char *key, hashmap *dirs, arena *a, int64_t *n,
                              silt_error *err)
{
    const char *slash = strrchr(key, '/');
    while (slash != NULL) {
        char *dir = arena_strndup(a, key, (size_t)(slash - key));
        if (dir == NULL)
            return err_nomem(err);
        if (hashmap_get_str(dirs, dir) != NULL)
            return SILT_OK;
        SILT_RETURN_IF_ERROR(hashmap_put_str(dirs, dir, dir, err));
        (*n)++;
        slash = strrchr(dir, '/');
        key = dir;
    }
    return SILT_OK;
}


/*
 * The folders to delete, as Delta 4's VacuumCommand.gc finds them: every
 * listed folder outside hidden ones counts in numVacuumedDirectories (with
 * the root), and a folder goes when nothing holds it, that is when no file
 * older than the horizon lies anywhere under it (an old file, kept or not,
 * counts for each folder above it) and no file the log keeps (added, or
 * removed within the retention, whether on disk or not) lies under it. So a
 * folder is deleted when it is already empty as VACUUM lists it; one that
 * this VACUUM's own deletes empty stays until the next, as in Delta. Files
 * younger than the horizon do not hold a folder (Delta filters them before
 * counting): removing it then fails, as it does for a folder holding hidden
 * files only, and it is neither deleted nor counted.
 */
static silt_status find_folders(vacuum_ctx *ctx, const io_listing *all, int64_t delete_before_ms,
                                delta_vacuum_result *out, silt_error *err)
{
    io_listing folders = IO_LISTING_INIT;
    hashmap busy = HASHMAP_INIT, seen = HASHMAP_INIT;
    const hashmap_entry *entry;
    int64_t ignored = 0;
    size_t idx, it = 0;
    silt_status rc = io_list_folders(ctx->store, &folders, err);
    for (idx = 0; rc == SILT_OK && idx < all->count; idx++)
        if (all->items[idx].mtime_micros / 1000 < delete_before_ms)
            rc = count_dirs(all->items[idx].key, &busy, ctx->a, &ignored, err);
    while (rc == SILT_OK && hashmap_next(&ctx->keep, &it, &entry))
        rc = count_dirs((const char *)entry->value, &busy, ctx->a, &ignored, err);
    for (idx = 0; rc == SILT_OK && idx < folders.count; idx++) {
        const char *key = folders.items[idx].key;
        char *slashed;
        if (util_str_starts_with(key, "_delta_log") || hidden_key(&ctx->snap->metadata, key))
            continue;
        /* "dir/x" names dir and its parents for count_dirs */
        slashed = arena_alloc(ctx->a, strlen(key) + 3);
        if (slashed == NULL) {
            rc = err_nomem(err);
            break;
        }
        snprintf(slashed, strlen(key) + 3, "%s/x", key);
        rc = count_dirs(slashed, &seen, ctx->a, &out->n_dirs, err);
        if (rc == SILT_OK && hashmap_get_str(&busy, key) == NULL)
            rc = io_listing_add(&out->folders, key, 0, folders.items[idx].mtime_micros, err);
    }
    hashmap_clear(&busy);
    hashmap_clear(&seen);
    io_listing_clear(&folders);
    return rc;
}

/* The files to delete: listed, not hidden, not kept, older than the horizon. */
static silt_status find_garbage(vacuum_ctx *ctx, int64_t delete_before_ms,
                                delta_vacuum_result *out, silt_error *err)
{
    io_listing all = IO_LISTING_INIT, visible = IO_LISTING_INIT;
    hashmap dirs = HASHMAP_INIT;
    size_t idx;
    silt_status rc = io_list(ctx->store, "", NULL, 1, &all, err);
    out->n_dirs = 1;
    for (idx = 0; rc == SILT_OK && idx < all.count; idx++) {
        const io_object_info *item = &all.items[idx];
        if (util_str_starts_with(item->key, DLOG_DIR) || hidden_key(&ctx->snap->metadata, item->key))
            continue;
        rc = count_dirs(item->key, &dirs, ctx->a, &out->n_dirs, err);
        if (rc == SILT_OK)
            rc = io_listing_add(&visible, item->key, item->size, item->mtime_micros, err);
        if (rc != SILT_OK || hashmap_get_str(&ctx->keep, item->key) != NULL ||
            item->mtime_micros / 1000 >= delete_before_ms)
            continue;
        rc = io_listing_add(&out->files, item->key, item->size, item->mtime_micros, err);
        out->bytes += item->size;
    }
    hashmap_clear(&dirs);
    /* A local store lists its folders: count them all, as Delta, and find the empty ones. */
    if (rc == SILT_OK) {
        out->n_dirs = 1;
        rc = find_folders(ctx, &visible, delete_before_ms, out, err);
    }
    io_listing_clear(&visible);
    io_listing_clear(&all);
    return rc;
}

static silt_status check_retention(const delta_vacuum_options *o, int64_t table_ms,
                                   silt_error *err)
{
    if (!o->has_retention)
        return SILT_OK;
    if (o->retention_ms < 0)
        return err_set(err, SILT_INVALID, "requirement failed: Retention for Vacuum can't be "
                       "less than 0.");
    if (o->check_retention && o->retention_ms < table_ms)
        return err_set(err, SILT_INVALID,
                       "[DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT] The specified VACUUM retention "
                       "period is too low and may corrupt this Delta table if any writes are in "
                       "progress. If no operations (insert, upsert, delete, optimize) are "
                       "running, you can disable this safety check by setting: "
                       "delta.retentionDurationCheck.enabled = false Otherwise, use a retention "
                       "period of at least %lld hours.",
                       (long long)(table_ms / 3600000));
    return SILT_OK;
}

/* The commitInfo-only commits Delta 4 writes around the deletes. */
static silt_status log_start(io_store *store, const delta_snapshot *snap,
                             const delta_vacuum_options *o, int64_t table_ms,
                             const delta_vacuum_result *r, int64_t *version_out, silt_error *err)
{
    delta_commit_result result;
    delta_txn *txn = NULL;
    char text[32];
    silt_status rc = delta_txn_begin(&txn, store, snap, "VACUUM START", err);
    if (rc == SILT_OK)
        rc = delta_txn_set_param(txn, "retentionCheckEnabled", o->check_retention ? "true" : "false",
                                 err);
    if (rc == SILT_OK && o->has_retention) {
        snprintf(text, sizeof(text), "%lld", (long long)o->retention_ms);
        rc = delta_txn_set_param(txn, "specifiedRetentionMillis", text, err);
    }
    if (rc == SILT_OK) {
        snprintf(text, sizeof(text), "%lld", (long long)table_ms);
        rc = delta_txn_set_param(txn, "defaultRetentionMillis", text, err);
    }
    if (rc == SILT_OK)
        rc = delta_txn_set_metric(txn, "numFilesToDelete",
                                  (int64_t)(r->files.count + r->folders.count), err);
    if (rc == SILT_OK)
        rc = delta_txn_set_metric(txn, "sizeOfDataToDelete", r->bytes, err);
    if (rc == SILT_OK)
        rc = delta_txn_commit(txn, &result, err);
    if (rc == SILT_OK)
        *version_out = result.version;
    delta_txn_free(txn);
    return rc;
}

/* VACUUM END reads the version VACUUM START wrote, as Delta's does. */
static silt_status log_end(io_store *store, int64_t start_version, int64_t n_deleted,
                           int64_t n_dirs, silt_error *err)
{
    delta_snapshot *snap = NULL;
    delta_txn *txn = NULL;
    silt_status rc = delta_snapshot_load(&snap, store, start_version, err);
    if (rc == SILT_OK)
        rc = delta_txn_begin(&txn, store, snap, "VACUUM END", err);
    if (rc == SILT_OK)
        rc = delta_txn_set_param(txn, "status", "COMPLETED", err);
    if (rc == SILT_OK)
        rc = delta_txn_set_metric(txn, "numDeletedFiles", n_deleted, err);
    if (rc == SILT_OK)
        rc = delta_txn_set_metric(txn, "numVacuumedDirectories", n_dirs, err);
    if (rc == SILT_OK)
        rc = delta_txn_commit(txn, NULL, err);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
    return rc;
}

static silt_status delete_files(io_store *store, const io_listing *files, int64_t *n_deleted,
                                silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < files->count; idx++) {
        silt_status rc = io_delete(store, files->items[idx].key, err);
        if (rc == SILT_NOTFOUND) { /* a concurrent VACUUM got there first */
            err_clear(err);
            continue;
        }
        SILT_RETURN_IF_ERROR(rc);
        (*n_deleted)++;
    }
    return SILT_OK;
}

/*
 * Deletes the files, then the empty folders (deepest first, so a folder
 * holding only empty folders goes too); a folder that is not empty any more
 * stays and is not counted, as Delta's tryDeleteNonRecursive.
 */
static silt_status delete_all(io_store *store, const delta_vacuum_result *r, int64_t *n_deleted,
                              silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(delete_files(store, &r->files, n_deleted, err));
    for (idx = r->folders.count; idx > 0; idx--)
        *n_deleted += io_remove_empty_folder(store, r->folders.items[idx - 1].key);
    return SILT_OK;
}

silt_status delta_vacuum(io_store *store, const delta_snapshot *snap,
                         const delta_vacuum_options *opts, delta_vacuum_result *out,
                         silt_error *err)
{
    vacuum_ctx ctx;
    int64_t table_ms, now_ms, retention_ms, n_deleted = 0, start_version = -1;
    size_t n_garbage;
    silt_status rc;
    SILT_RETURN_IF_ERROR(delta_deleted_file_retention_ms(snap, &table_ms, err));
    SILT_RETURN_IF_ERROR(check_retention(opts, table_ms, err));
    retention_ms = opts->has_retention ? opts->retention_ms : table_ms;
    now_ms = opts->now_ms != 0 ? opts->now_ms : time_now_micros() / 1000;
    memset(&ctx, 0, sizeof(ctx));
    ctx.store = store;
    ctx.snap = snap;
    ctx.n_also_keep = opts->n_also_keep;
    ctx.also_keep = opts->also_keep;
    ctx.root = io_store_root(store);
    if (util_str_starts_with(ctx.root, "file://"))
        ctx.root += strlen("file://");
    ctx.a = arena_new(NULL, "vacuum");
    if (ctx.a == NULL)
        return err_nomem(err);
    rc = collect_keep(&ctx, now_ms - retention_ms, err);
    if (rc == SILT_OK)
        rc = find_garbage(&ctx, now_ms - retention_ms, out, err);
    n_garbage = out->files.count;
    if (rc == SILT_OK)
        rc = io_sweep_dead_temps(store, 1, &out->files, err);
    if (rc == SILT_OK)
        out->n_temps = (int64_t)(out->files.count - n_garbage);
    if (rc == SILT_OK && !opts->dry_run) {
        rc = log_start(store, snap, opts, table_ms, out, &start_version, err);
        if (rc == SILT_OK)
            rc = delete_all(store, out, &n_deleted, err);
        if (rc == SILT_OK)
            rc = log_end(store, start_version, n_deleted, out->n_dirs, err);
    }
    hashmap_clear(&ctx.keep);
    arena_free(ctx.a);
    return rc;
}
