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
 * PROTOCOL: Deletion Vectors (dml_dv.c). The rows a DELETE, UPDATE or MERGE removes from the
 * files of its snapshot, marked by position per worker, and turned at the commit into
 * remove(old add) + add(same path, the or-ed vector), or a plain remove when no live row is
 * left. Threads: _mark from the workers (each its own index), the rest on the caller.
 */
typedef struct dml_dv dml_dv;

typedef struct dml_dv_result {
    /* Delta's numDeletionVectors* (the Spark peer): every vector written is added, every old
     * one replaced or dropped with its file removed, a file whose vector was replaced updated */
    int64_t n_dv_added, n_dv_updated, n_dv_removed;
    int64_t n_touched;    /* files that got a (new) vector */
    int64_t n_dv_rows;    /* rows newly marked deleted in the vectors written */
    int64_t n_removed_files, removed_bytes; /* files removed whole */
} dml_dv_result;

silt_status delta_dml_dv_new(dml_dv **out, const delta_snapshot *snap, size_t n_workers,
                             silt_error *err);
/* Marks rows[i] (positions in snapshot file file_idx) for i < n_rows with sel NULL or set. */
silt_status delta_dml_dv_mark(dml_dv *d, size_t worker, size_t file_idx, const int64_t *rows,
                              const uint8_t *sel, size_t n_rows, silt_error *err);
/* The file is removed whole by the statement: its marks are ignored. */
void delta_dml_dv_drop(dml_dv *d, size_t file_idx);
/* Writes the vector file and adds the removes and adds to txn; counts into res. */
silt_status delta_dml_dv_commit(dml_dv *d, io_store *store, delta_txn *txn, dml_dv_result *res,
                                silt_error *err);
void delta_dml_dv_free(dml_dv *d);

#endif
