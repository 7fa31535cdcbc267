/*
 * spill.h - temporary files of column batches for operators that outgrow
 * the query's memory limit (external sort, grace hash join, partitioned
 * aggregation), and the memory budget those operators ask before growing.
 *
 * A spill file holds a sequence of batches of one schema, written once and
 * then read back in order, one batch at a time. It is made in the query's
 * temp directory (engine_ctx.temp_dir; $TMPDIR or /tmp when unset) and
 * unlinked at once, so the name is gone even if the process is killed; its
 * descriptor is closed (and the disk space given back) by a cleanup
 * callback of the arena it was created in, when the operator closes: at
 * the end of the query, on an error and when a caller stops reading a
 * result early.
 *
 * File format (native byte order: the file never leaves the process):
 *   frame  = "SPLB" u32 | body_len u64 | checksum u64 | body
 *   body   = n_rows i64 | n_cols u32 | vec * n_cols
 *   vec    = type_id u8 | length i64 | has_validity u8 | [validity]
 *            | [values] | [offsets] | [data_len i64 | data] | children
 * Every length and offset is checked against the schema and the bytes
 * actually there before use; a truncated or damaged file fails with
 * SILT_CORRUPT naming the file and the byte offset.
 */
#ifndef SILT_ENGINE_SPILL_H
#define SILT_ENGINE_SPILL_H

#include "engine/op.h"

typedef struct spill_file spill_file;

/*
 * Creates an empty spill file for batches of schema (a STRUCT) in the
 * query's temp directory. The file belongs to arena owner: it is closed
 * and unlinked when owner is reset or freed. Errors: SILT_IO (the directory
 * is missing or not writable), SILT_NOMEM.
 */
silt_status engine_spill_file_create(spill_file **out, engine_ctx *ctx, arena *owner,
                              const col_type *schema, silt_error *err);

/*
 * Appends the live rows of a batch (sel NULL = all n_sel first rows).
 * scratch receives temporary copies (compacted vectors); the caller resets
 * it. Errors: SILT_IO (disk full), SILT_NOMEM.
 */
silt_status engine_spill_file_write(spill_file *f, const col_batch *batch, const int32_t *sel,
                             int64_t n_sel, arena *scratch, silt_error *err);

/* Flushes buffered writes; after this the file is read with engine_spill_file_read. */
silt_status engine_spill_file_finish(spill_file *f, silt_error *err);

/*
 * Reads the next batch into arena a (*out = NULL at the end). The first
 * read after engine_spill_file_finish starts at the beginning; reading restarts
 * with engine_spill_file_rewind. Errors: SILT_CORRUPT, SILT_IO, SILT_NOMEM.
 */
silt_status engine_spill_file_read(spill_file *f, arena *a, col_batch **out, silt_error *err);
void engine_spill_file_rewind(spill_file *f);

/* Closes and removes the file now rather than with its arena (no reads after this). */
void engine_spill_file_remove(spill_file *f);

int64_t engine_spill_file_rows(const spill_file *f);
int64_t engine_spill_file_bytes(const spill_file *f);
/* The name the file was created under (for messages; already unlinked). */
const char *engine_spill_file_path(const spill_file *f);
/* Its descriptor, -1 before the first flush and after removal (for tests). */
int engine_spill_file_fd(const spill_file *f);

/*
 * A scan operator reading a finished spill file (the input of the
 * per-partition operators of a grace join or a partitioned aggregation).
 */
silt_status engine_spill_op_scan(engine_op **out, engine_ctx *ctx, spill_file *f, silt_error *err);

/* ---- memory budget ------------------------------------------------------------ */

/*
 * Bytes operator op may hold before it must spill: the query's limit minus
 * what everything else in the query holds. INT64_MAX when there is no limit.
 */
int64_t engine_mem_room(const engine_op *op);

/*
 * Sets op's charge to bytes (what it holds now), charging or releasing the
 * difference. Fails with [OUT_OF_MEMORY] (SILT_NOMEM) when the query goes
 * over its limit.
 */
silt_status engine_op_charge_to(engine_op *op, int64_t bytes, const char *what,
                                silt_error *err);

/* Deepest recursion of partitioned operators (each level splits 16 ways). */
#define SPILL_MAX_LEVEL 5
#define SPILL_PARTITIONS 16

/* Partition (0..SPILL_PARTITIONS) of a key hash at a recursion level. */
static inline size_t spill_partition_of(uint64_t hash, int level)
{
    /* Each level uses other bits than the hash table inside (low bits). */
    return (size_t)((hash >> (60 - 4 * level)) & (SPILL_PARTITIONS - 1));
}

#endif
