/*
 * log_cleanup.c - removing expired log files.
 *
 * PROTOCOL: Metadata Cleanup. With cutOff = now - delta.logRetentionDuration:
 * the newest commit at or before cutOff is the cut-off commit; the newest
 * complete checkpoint at or below it is the cut-off checkpoint. Every
 * commit, checkpoint and checksum file of a version below the cut-off
 * checkpoint is deleted (and compaction files that end below it), oldest
 * first. The cut-off checkpoint and everything after it stay, so every
 * version from it on remains readable at every moment of the cleanup, and
 * a reader that listed the log before us finds at worst an older version
 * gone (SILT_NOTFOUND from its own read), never a wrong state.
 *
 * Commit times are the files' modification times, as Delta uses them.
 */
#include <string.h>

#include "delta/log.h"
#include "delta/txn.h"

static int deletable(const dlog_file *file, int64_t cp_version)
{
    switch (file->kind) {
    case DLOG_FILE_COMMIT:
    case DLOG_FILE_CHECKPOINT:
    case DLOG_FILE_CHECKPOINT_PART:
    case DLOG_FILE_CHECKPOINT_V2:
    case DLOG_FILE_CRC: return file->version < cp_version;
    case DLOG_FILE_COMPACTION: return file->end_version < cp_version;
    default: return 0;
    }
}

/* dlog_list leaves checksum files out: they are listed here. */
static silt_status delete_checksums(io_store *store, int64_t cp_version, size_t *n_deleted,
                                    silt_error *err)
{
    io_listing raw = IO_LISTING_INIT;
    size_t idx;
    silt_status rc = io_list(store, DLOG_DIR, NULL, 0, &raw, err);
    for (idx = 0; rc == SILT_OK && idx < raw.count; idx++) {
        dlog_file file;
        const char *key = raw.items[idx].key;
        if (!util_str_starts_with(key, DLOG_DIR) ||
            dlog_classify(key + strlen(DLOG_DIR), &file) != DLOG_FILE_CRC ||
            file.version >= cp_version)
            continue;
        rc = io_delete(store, key, err);
        if (rc == SILT_NOTFOUND) {
            err_clear(err);
            rc = SILT_OK;
        } else if (rc == SILT_OK) {
            (*n_deleted)++;
        }
    }
    io_listing_clear(&raw);
    return rc;
}

silt_status delta_log_cleanup(io_store *store, int64_t retention_ms, int64_t now_ms,
                              size_t *n_deleted_out, silt_error *err)
{
    dlog_listing listing = DLOG_LISTING_INIT;
    dlog_checkpoint cp;
    int64_t cutoff_micros = (now_ms - retention_ms) * 1000, cutoff_version = -1;
    size_t idx;
    silt_status rc;

    *n_deleted_out = 0;
    rc = dlog_list(&listing, store, -1, err);
    if (rc != SILT_OK)
        goto done;
    for (idx = 0; idx < listing.n_files; idx++) {
        const dlog_file *file = &listing.files[idx];
        if (file->kind == DLOG_FILE_COMMIT && file->mtime_micros <= cutoff_micros &&
            file->version > cutoff_version)
            cutoff_version = file->version;
    }
    if (cutoff_version < 0)
        goto done;
    dlog_newest_checkpoint(&listing, cutoff_version, 0, &cp);
    if (cp.version <= 0)
        goto done;
    /* The listing is sorted by version: oldest files go first. */
    for (idx = 0; idx < listing.n_files; idx++) {
        const dlog_file *file = &listing.files[idx];
        if (!deletable(file, cp.version))
            continue;
        rc = io_delete(store, file->key, err);
        if (rc == SILT_NOTFOUND) { /* a concurrent cleanup got there first */
            err_clear(err);
            rc = SILT_OK;
            continue;
        }
        if (rc != SILT_OK) {
            err_context(err, "while cleaning up the log of versions before %lld",
                        (long long)cp.version);
            goto done;
        }
        (*n_deleted_out)++;
    }
    rc = delete_checksums(store, cp.version, n_deleted_out, err);
done:
    dlog_listing_clear(&listing);
    return rc;
}
