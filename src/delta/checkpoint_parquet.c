/*
 * checkpoint_parquet.c - the one place where the log code calls the Parquet
 * reader: reads a checkpoint (or sidecar) file batch by batch and hands each
 * batch to dlog_actions_from_batch.
 *
 * Only the columns replay needs are read: the top-level action columns
 * (commitInfo and cdc never matter for a snapshot), and inside `add` every
 * field but the typed copies `stats_parsed` and `partitionValues_parsed`
 * when the string forms are there too (they are the widest columns of a
 * Spark checkpoint and replay keeps the strings). Batches get a short-lived child arena
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

static const col_field *find_field(const col_type *type, const char *name)
{
    size_t idx;
    for (idx = 0; idx < type->n_fields; idx++)
        if (strcmp(type->fields[idx].name, name) == 0)
            return &type->fields[idx];
    return NULL;
}

/* 1 when add.<name> is a typed copy whose string form is also in the file. */
static int redundant_add_field(const col_type *add, const char *name)
{
    return (strcmp(name, "stats_parsed") == 0 && find_field(add, "stats") != NULL) ||
           (strcmp(name, "partitionValues_parsed") == 0 &&
            find_field(add, "partitionValues") != NULL);
}

/*
 * The projection: action columns by name, and `add` field by field (as
 * "add.<field>") when it has a redundant typed copy to leave out.
 */
static silt_status pick_columns(const col_type *schema, arena *a, const char ***out,
                                size_t *n_out, silt_error *err)
{
    const col_field *add = find_field(schema, "add");
    size_t n_add = add && add->type->id == COL_STRUCT ? add->type->n_fields : 0;
    const char **columns = arena_calloc(a, N_ACTION_COLUMNS + n_add, sizeof(char *));
    size_t n = 0, idx, field;
    int split_add = 0;
    if (columns == NULL)
        return err_nomem(err);
    for (field = 0; field < n_add; field++)
        split_add |= redundant_add_field(add->type, add->type->fields[field].name);
    for (idx = 0; idx < N_ACTION_COLUMNS; idx++) {
        if (find_field(schema, action_columns[idx]) == NULL)
            continue;
        if (!(split_add && strcmp(action_columns[idx], "add") == 0)) {
            columns[n++] = action_columns[idx];
            continue;
        }
        for (field = 0; field < n_add; field++) {
            const char *name = add->type->fields[field].name;
            if (redundant_add_field(add->type, name))
                continue;
            columns[n] = arena_sprintf(a, "add.%s", name);
            if (columns[n++] == NULL)
                return err_nomem(err);
        }
    }
    *out = columns;
    *n_out = n;
    return SILT_OK;
}

static silt_status read_checkpoint(io_store *store, const char *key, arena *a, dlog_action_fn fn,
                                   void *payload, silt_error *err)
{
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    arena *batch_arena = NULL;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    arena *scratch = arena_new(a, "checkpoint projection");
    const char **columns = NULL;
    size_t n_columns = 0;
    silt_status rc;

    rc = scratch != NULL ? pq_file_open(&file, store, key, err) : err_nomem(err);
    if (rc != SILT_OK)
        goto done;
    /* The projection lives beside the batches, not in the caller's arena. */
    rc = pick_columns(pq_file_schema(file), scratch, &columns, &n_columns, err);
    if (rc != SILT_OK)
        goto done;
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
    arena_free(scratch);
    return rc;
}

dlog_parquet_actions_fn dlog_builtin_parquet_reader(void) { return read_checkpoint; }
