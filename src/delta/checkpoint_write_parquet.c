/*
 * checkpoint_write_parquet.c - the one place where a checkpoint batch
 * becomes a Parquet object.
 *
 * The Parquet writer of formats/ is built on another branch; until it is
 * wired in here, writing a checkpoint is SILT_UNSUPPORTED, and commits
 * treat that as a missed checkpoint (the log stays readable from its JSON
 * commits, only longer to replay).
 */
#include "delta/txn.h"

silt_status delta_checkpoint_write_parquet(io_store *store, const char *key,
                                           const col_batch *batch, int64_t *size_out,
                                           silt_error *err)
{
    (void)store;
    (void)batch;
    *size_out = 0;
    return err_set(err, SILT_UNSUPPORTED,
                   "could not write the checkpoint \"%s\": checkpoint writing needs the Parquet "
                   "writer",
                   key);
}
