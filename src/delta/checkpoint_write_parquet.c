/*
 * checkpoint_write_parquet.c - the one place where a checkpoint batch
 * becomes a Parquet object.
 *
 * PROTOCOL: Checkpoints. A classic checkpoint is one Parquet file with the
 * rows delta_checkpoint_batch builds, snappy-compressed as Spark writes it.
 *
 * Decision: the file is published with put-if-absent, not overwritten.
 * Spark overwrites checkpoint files because a checkpoint of a version is
 * idempotent (its rows are a function of the log up to that version); by
 * the same argument a checkpoint that already exists (another writer, or a
 * crash after the Parquet file but before `_last_checkpoint`) is as good as
 * ours, and keeping it means a reader that is reading it never sees the
 * object change under it. So SILT_EXISTS counts as written, and the size
 * reported is that of the file in place.
 */
#include "delta/txn.h"
#include "formats/parquet/writer.h"

/* Row groups of a checkpoint stay small so that readers can stream them. */
#define CHECKPOINT_ROW_GROUP_BYTES ((int64_t)32 << 20)

static silt_status existing_size(io_store *store, const char *key, int64_t *size_out,
                                 silt_error *err)
{
    io_object_info info;
    SILT_RETURN_IF_ERROR(io_head(store, key, &info, err));
    *size_out = info.size;
    io_object_info_clear(&info);
    return SILT_OK;
}

silt_status delta_checkpoint_write_parquet(io_store *store, const char *key,
                                           const col_batch *batch, int64_t *size_out,
                                           silt_error *err)
{
    pqw_options opts = PQW_OPTIONS_INIT;
    pqw_file_stats stats = PQW_FILE_STATS_INIT;
    pqw_writer *w = NULL;
    silt_status rc;

    *size_out = 0;
    opts.row_group_bytes = CHECKPOINT_ROW_GROUP_BYTES;
    rc = pqw_writer_open(&w, store, key, batch->schema, &opts, err);
    if (rc == SILT_OK) {
        rc = pqw_writer_write_batch(w, batch, err);
        if (rc != SILT_OK)
            pqw_writer_abort(w);
        else
            rc = pqw_writer_close(w, &stats, err);
    }
    if (rc == SILT_OK)
        *size_out = stats.file_bytes;
    pqw_file_stats_clear(&stats);
    if (rc == SILT_EXISTS) {
        err_clear(err);
        return existing_size(store, key, size_out, err);
    }
    if (rc != SILT_OK)
        return err_context(err, "could not write the checkpoint \"%s\"", key);
    return SILT_OK;
}
