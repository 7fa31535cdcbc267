/*
 * dml_int.h - private to the DML modules (dml*.c): the change data files
 * DELETE, UPDATE and MERGE write when the change data feed is on.
 */
#ifndef SILT_DELTA_DML_INT_H
#define SILT_DELTA_DML_INT_H

#include "delta/dml.h"
#include "util/arena.h"

/*
 * PROTOCOL: Change Data Files. One statement's change rows: the table's
 * columns (of `schema`, the table schema after the statement) and
 * "_change_type", written under _change_data/ by a writer opened on the
 * first row and committed as `cdc` actions. `on` is the table's
 * delta.enableChangeDataFeed; with it off every call does nothing.
 */
typedef struct dml_cdc {
    io_store *store;
    const delta_snapshot *snap;
    const col_type *schema;
    delta_writer *w; /* NULL until a change row was written */
    int on;
    int64_t n_files; /* cdc files committed by delta_dml_cdc_commit */
} dml_cdc;

/* Sets up c for a statement on snap; schema NULL = the snapshot's. Nothing is allocated. */
void delta_dml_cdc_init(dml_cdc *c, io_store *store, const delta_snapshot *snap,
                  const col_type *schema);

/* The rows of b (columns of c->schema) as changes of one kind ("delete", "insert",
 * "update_preimage", "update_postimage"); the _change_type column is built in a. */
silt_status delta_dml_cdc_write(dml_cdc *c, arena *a, const col_batch *b, const char *change_type,
                          silt_error *err);

/* Finishes the change data files and adds them to txn as cdc actions (none when no row was
 * written). */
silt_status delta_dml_cdc_commit(dml_cdc *c, delta_txn *txn, silt_error *err);

/* Frees the writer (its files stay as orphans when the statement failed). Accepts NULL. */
void delta_dml_cdc_clear(dml_cdc *c);

/*
 * The join keys of MERGE's source, hashed once (dml_merge_keys.c): an
 * open-addressing table of source rows (one slot per distinct key, linear
 * probing) with the rows of equal keys chained in source order. Keys are
 * hashed and compared column by column from the vectors, never copied into
 * per-row key strings. A null key value matches nothing (SQL equality).
 */
typedef struct dml_key_index {
    size_t n_keys;
    const col_vec *const *src; /* the source's key columns */
    size_t *width;             /* per key column: value bytes, 0 for strings and binaries */
    int64_t *slot;             /* 1 + first source row of a key, 0 = empty */
    uint64_t *slot_hash;
    size_t mask;               /* slots - 1 (a power of two) */
    int64_t *next;             /* per source row: 1 + next row with the same key, 0 = none */
} dml_key_index;

/* Hashes rows [0, n_rows) of the n_keys columns src into idx; memory from a (idx borrows
 * src until it dies). */
silt_status delta_dml_key_index_build(dml_key_index *idx, arena *a, const col_vec *const *src,
                                size_t n_keys, int64_t n_rows, silt_error *err);

/* For rows [0, n_rows) of the probe columns `probe` (types equal to the source's): first[row]
 * = 1 + the first source row with an equal key, 0 when none (or a key value is null). first
 * and the hash scratch come from a. Follow the chain with idx->next. */
silt_status delta_dml_key_index_probe(dml_key_index *idx, arena *a, const col_vec *const *probe,
                                int64_t n_rows, int64_t *first, silt_error *err);

#endif
