/*
 * checkpoint.h - reading checkpoint contents as actions.
 *
 * PROTOCOL: Checkpoints, Checkpoint Schema, V2 Spec, Sidecar Files. A
 * Parquet checkpoint (classic, one part of a multi-part one, a V2 top-level
 * file or a sidecar) is a table with one struct column per action type;
 * each row has exactly one of them non-null. dlog_actions_from_batch turns
 * a batch of such rows (as the Parquet reader produces it) into actions.
 *
 * The only call into Parquet is behind dlog_parquet_actions_fn: the
 * snapshot loader gets a reader through its options, and
 * dlog_builtin_parquet_reader() (checkpoint_parquet.c) is the one place
 * that wires in the Parquet reader of formats/. Until then it returns NULL
 * and tables whose state needs a Parquet checkpoint are reported as
 * SILT_UNSUPPORTED ("needs the Parquet checkpoint reader").
 */
#ifndef SILT_DELTA_CHECKPOINT_H
#define SILT_DELTA_CHECKPOINT_H

#include "delta/actions.h"
#include "formats/columnar.h"
#include "io/store.h"

/*
 * Reads the Parquet file `key` of store and calls fn for each action in
 * it. Actions may live in `a` (or in memory of the reader's own that stays
 * valid until fn returns; fn copies what it keeps).
 */
typedef silt_status (*dlog_parquet_actions_fn)(io_store *store, const char *key, arena *a,
                                               dlog_action_fn fn, void *payload,
                                               silt_error *err);

/* The Parquet checkpoint reader built into silt, or NULL when there is none yet. */
dlog_parquet_actions_fn dlog_builtin_parquet_reader(void);

/*
 * Turns the rows of a checkpoint batch into actions, calling fn for each
 * non-null action column of each row. The batch schema is the checkpoint
 * schema (struct columns add, remove, metaData, protocol, txn,
 * domainMetadata, checkpointMetadata, sidecar, commitInfo, cdc; any may be
 * missing, unknown columns are ignored). add.stats_parsed is turned into
 * stats JSON when add.stats is absent (decimal and binary bounds are left
 * out of that conversion). Strings are copied into a. SILT_CORRUPT when a
 * column has a type the checkpoint schema does not allow or a required
 * field is null.
 */
silt_status dlog_actions_from_batch(const col_batch *batch, arena *a, dlog_action_fn fn,
                                    void *payload, silt_error *err);

#endif
