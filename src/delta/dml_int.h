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

#endif
