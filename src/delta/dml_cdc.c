/*
 * dml_cdc.c - change data files of DELETE, UPDATE and MERGE (dml_int.h).
 *
 * PROTOCOL: Change Data Files. A commit that carries cdc actions is read by
 * change data feed readers from those files alone, so a statement that
 * writes any must write every row it changes there (inserts included); a
 * commit without them is read from its add and remove files (an insert-only
 * MERGE, a RESTORE), which is why those write none, as Delta does.
 */
#include <string.h>

#include "delta/dml_int.h"
#include "delta/write_int.h"

void delta_dml_cdc_init(dml_cdc *c, io_store *store, const delta_snapshot *snap,
                  const col_type *schema)
{
    const char *prop =
        dlog_map_get(&snap->metadata.configuration, "delta.enableChangeDataFeed", NULL);
    memset(c, 0, sizeof(*c));
    c->store = store;
    c->snap = snap;
    c->schema = schema != NULL ? schema : snap->schema;
    c->on = prop != NULL && util_str_casecmp(prop, "true") == 0;
}

/* A STRING vector of n_rows copies of text (the _change_type column). */
static silt_status const_string(arena *a, const char *text, int64_t n_rows, col_vec **out,
                                silt_error *err)
{
    size_t len = strlen(text);
    col_vec *v = arena_calloc(a, 1, sizeof(*v));
    int64_t row;
    if (v == NULL)
        return err_nomem(err);
    v->type = col_type_primitive(COL_STRING);
    v->length = n_rows;
    v->offsets = arena_alloc(a, (size_t)(n_rows + 1) * sizeof(int32_t));
    v->data = arena_alloc(a, len * (size_t)n_rows + 1);
    v->data_len = (int64_t)len * n_rows;
    if (v->offsets == NULL || v->data == NULL)
        return err_nomem(err);
    for (row = 0; row <= n_rows; row++)
        v->offsets[row] = (int32_t)(row * (int64_t)len);
    for (row = 0; row < n_rows; row++)
        memcpy(v->data + row * (int64_t)len, text, len);
    *out = v;
    return SILT_OK;
}

/* The writer, on first use; the snapshot it gets carries the statement's schema (MERGE with
 * schema evolution writes its new columns into the change rows too). */
static silt_status open_writer(dml_cdc *c, silt_error *err)
{
    delta_snapshot evolved;
    if (c->w != NULL)
        return SILT_OK;
    evolved = *c->snap;
    evolved.schema = c->schema;
    evolved.metadata.schema = c->schema;
    return dwrite_open_cdc(&c->w, c->store, &evolved, err);
}

silt_status delta_dml_cdc_write(dml_cdc *c, arena *a, const col_batch *b, const char *change_type,
                          silt_error *err)
{
    col_batch changes;
    col_vec **cols;
    if (!c->on || b->n_rows == 0)
        return SILT_OK;
    if (b->n_cols != c->schema->n_fields)
        return err_set(err, SILT_INVALID, "change rows of %zu columns for a table of %zu",
                       b->n_cols, c->schema->n_fields);
    SILT_RETURN_IF_ERROR(open_writer(c, err));
    cols = arena_calloc(a, b->n_cols + 1, sizeof(*cols));
    if (cols == NULL)
        return err_nomem(err);
    memcpy(cols, b->cols, b->n_cols * sizeof(*cols));
    SILT_RETURN_IF_ERROR(const_string(a, change_type, b->n_rows, &cols[b->n_cols], err));
    changes.schema = delta_write_table_schema(c->w);
    changes.n_rows = b->n_rows;
    changes.n_cols = b->n_cols + 1;
    changes.cols = cols;
    return delta_write_batch(c->w, &changes, err);
}

silt_status delta_dml_cdc_commit(dml_cdc *c, delta_txn *txn, silt_error *err)
{
    delta_write_output out;
    size_t idx;
    if (c->w == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(delta_write_finish(c->w, &out, err));
    for (idx = 0; idx < out.n_adds; idx++) {
        dlog_cdc cdc;
        memset(&cdc, 0, sizeof(cdc));
        cdc.path = out.adds[idx].path;
        cdc.partition_values = out.adds[idx].partition_values;
        cdc.size = out.adds[idx].size;
        SILT_RETURN_IF_ERROR(delta_txn_add_cdc(txn, &cdc, err));
    }
    c->n_files = (int64_t)out.n_adds;
    return SILT_OK;
}

void delta_dml_cdc_clear(dml_cdc *c)
{
    if (c == NULL)
        return;
    delta_write_free(c->w);
    c->w = NULL;
}
