/*
 * checkpoint_parquet.c - the one place where the log code calls the Parquet
 * reader.
 *
 * The Parquet reader (formats/parquet) is being written on another branch.
 * When it is merged, this file opens the checkpoint with pq_file_open, pulls
 * batches with pq_reader_next and hands each one to dlog_actions_from_batch;
 * nothing else in delta/ needs to change. Until then there is no built-in
 * reader, and the snapshot loader replays JSON commits instead or reports
 * that the table needs the Parquet checkpoint reader.
 */
#include "delta/checkpoint.h"

dlog_parquet_actions_fn dlog_builtin_parquet_reader(void) { return NULL; }
