/*
 * checkpoint_parquet.c - the one place where the log code calls the Parquet
 * reader: reads a checkpoint (or sidecar) file batch by batch and hands each
 * batch to dlog_actions_from_batch.
 *
 * Only the top-level action columns replay needs are read (commitInfo and
 * cdc never matter for a snapshot). Batches get a short-lived child arena
 * that is reset after each one; the actions of a batch live there too
 * (dlog_parquet_actions_fn: fn copies what it keeps).
 */
#include <string.h>

#include "delta/checkpoint.h"
#include "formats/parquet/parquet.h"

static const char *const action_columns[] = {
    "add",          "remove",  "metaData",           "protocol", "txn",
    "domainMetadata", "checkpointMetadata", "sidecar",
};

#define N_ACTION_COLUMNS (sizeof(action_columns) / sizeof(action_columns[0]))

static int file_has_column(const col_type *schema, const char *name)
{
    size_t idx;
    for (idx = 0; idx < schema->n_fields; idx++)
        if (strcmp(schema->fields[idx].name, name) == 0)
            return 1;
    return 0;
}

static silt_status read_checkpoint(io_store *store, const char *key, arena *a, dlog_action_fn fn,
                                   void *payload, silt_error *err)
{
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    arena *batch_arena = NULL;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    const char *columns[N_ACTION_COLUMNS];
    size_t n_columns = 0, idx;
    silt_status rc;

    rc = pq_file_open(&file, store, key, err);
    if (rc != SILT_OK)
        goto done;
    for (idx = 0; idx < N_ACTION_COLUMNS; idx++)
        if (file_has_column(pq_file_schema(file), action_columns[idx]))
            columns[n_columns++] = action_columns[idx];
    if (n_columns == 0) {
        rc = err_set(err, SILT_CORRUPT, "checkpoint \"%s\" has none of the action columns", key);
        goto done;
    }
    opts.columns = columns;
    opts.n_columns = n_columns;
    rc = pq_reader_open(&reader, file, &opts, err);
    if (rc != SILT_OK)
        goto done;
    batch_arena = arena_new(a, "checkpoint batch");
    if (batch_arena == NULL) {
        rc = err_nomem(err);
        goto done;
    }
    for (;;) {
        col_batch *batch = NULL;
        arena_reset(batch_arena);
        rc = pq_reader_next(reader, batch_arena, &batch, err);
        if (rc != SILT_OK || batch == NULL)
            break;
        /* fn copies what it keeps, so the actions die with their batch: copying
         * them into `a` would hold every action of the file until it ends. */
        rc = dlog_actions_from_batch(batch, batch_arena, fn, payload, err);
        if (rc != SILT_OK)
            break;
    }
done:
    if (rc != SILT_OK)
        err_context(err, "while reading checkpoint \"%s\"", key);
    arena_free(batch_arena);
    pq_reader_free(reader);
    pq_file_free(file);
    return rc;
}

dlog_parquet_actions_fn dlog_builtin_parquet_reader(void) { return read_checkpoint; }
