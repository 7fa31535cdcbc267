/*
 * table.c - the public table API (include/silt/table.h) over delta/.
 *
 * A thin facade: a handle owns a delta_snapshot and the strings it hands
 * out (type names are formatted once, at open). Errors are kept formatted
 * in the handle, as sqlite3_errmsg does.
 */
#include "silt/table.h"

#include <stddef.h>
#include <string.h>

#include "api/conn.h"
#include "api/options.h"
#include "api/output.h"
#include "delta/scan.h"
#include "delta/snapshot.h"
#include "io/store.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

struct silt_table {
    io_store *store; /* kept for reading rows */
    delta_snapshot *snap;
    char **column_types; /* formatted once per top-level column */
    silt_status last_code;  /* of the last call on the handle (silt_table_errcode) */
    char errmsg[2048];
};

/* Keeps the outcome of a call on table; returns rc. */
static silt_status table_error(silt_table *table, silt_status rc, const silt_error *err)
{
    table->last_code = rc;
    if (rc == SILT_OK)
        table->errmsg[0] = '\0';
    else
        err_format(err, table->errmsg, sizeof(table->errmsg));
    return rc;
}

static silt_status format_types(silt_table *table, silt_error *err)
{
    const col_type *schema = table->snap->schema;
    size_t idx;
    table->column_types = mem_calloc(schema->n_fields ? schema->n_fields : 1, sizeof(char *));
    if (table->column_types == NULL)
        return err_nomem(err);
    for (idx = 0; idx < schema->n_fields; idx++) {
        buf text = BUF_INIT;
        SILT_RETURN_IF_ERROR(col_type_format(schema->fields[idx].type, &text, err));
        table->column_types[idx] = buf_detach(&text, NULL);
        if (table->column_types[idx] == NULL)
            table->column_types[idx] = mem_strdup("");
        if (table->column_types[idx] == NULL)
            return err_nomem(err);
    }
    return SILT_OK;
}

static silt_status open_options(silt_table_open_options *out,
                                const silt_table_open_options *given, silt_error *err)
{
    static const silt_table_open_options defaults = SILT_TABLE_OPEN_OPTIONS_INIT;
    static const size_t sizes[SILT_TABLE_OPEN_OPTIONS_VERSION] = {
        sizeof(silt_table_open_options)};
    return api_options(out, given, &defaults, sizes, SILT_TABLE_OPEN_OPTIONS_VERSION,
                       "table open options", err);
}

silt_status silt_table_open(silt_table **out, silt_db *db, const char *location,
                            const silt_table_open_options *opts)
{
    silt_table_open_options o;
    silt_table *table;
    io_store *store = NULL;
    silt_error err = SILT_ERROR_INIT;
    silt_status rc;

    if (out == NULL)
        return SILT_INVALID;
    *out = table = mem_calloc(1, sizeof(*table));
    if (table == NULL)
        return SILT_NOMEM;
    if (db == NULL || location == NULL)
        rc = err_set(&err, SILT_INVALID, "silt_table_open needs a database and a location");
    else
        rc = open_options(&o, opts, &err);
    if (rc == SILT_OK)
        rc = io_store_open_with(&store, location, 0, &db->store, &err);
    if (rc == SILT_OK && o.has_timestamp)
        rc = delta_snapshot_load_at_timestamp(&table->snap, store, o.timestamp_micros, NULL,
                                              &err);
    else if (rc == SILT_OK)
        rc = delta_snapshot_load(&table->snap, store, o.version_as_of, &err);
    if (rc == SILT_OK)
        rc = format_types(table, &err);
    table->store = store;
    return table_error(table, rc, &err);
}

void silt_table_close(silt_table *table)
{
    size_t idx;
    if (table == NULL)
        return;
    if (table->column_types != NULL)
        for (idx = 0; idx < table->snap->schema->n_fields; idx++)
            mem_free(table->column_types[idx]);
    mem_free(table->column_types);
    delta_snapshot_free(table->snap);
    io_store_free(table->store);
    mem_free(table);
}

silt_status silt_table_format_rows(silt_table *table, const silt_output_options *opts,
                                   silt_text_fn fn, void *payload)
{
    delta_scan *scan = NULL;
    api_printer *printer = NULL;
    arena *batch_arena = NULL;
    silt_error err = SILT_ERROR_INIT;
    silt_status rc;
    if (table == NULL)
        return SILT_INVALID;
    if (table->snap == NULL || fn == NULL) {
        rc = err_set(&err, SILT_INVALID, "silt_table_format_rows needs an open table and a text "
                     "callback");
        goto done;
    }
    batch_arena = arena_new(NULL, "table rows");
    if (batch_arena == NULL) {
        rc = err_nomem(&err);
        goto done;
    }
    rc = delta_scan_open(&scan, table->store, table->snap, NULL, &err);
    if (rc == SILT_OK)
        rc = api_printer_new(&printer, fn, payload, delta_scan_schema(scan), opts, NULL,
                             &err);
    while (rc == SILT_OK && !api_printer_full(printer)) {
        col_batch *batch = NULL;
        arena_reset(batch_arena);
        rc = delta_scan_next(scan, batch_arena, &batch, &err);
        if (rc != SILT_OK || batch == NULL)
            break;
        rc = api_printer_add(printer, batch, &err);
    }
    if (rc == SILT_OK)
        rc = api_printer_finish(printer, &err);
done:
    table_error(table, rc, &err);
    api_printer_free(printer);
    delta_scan_free(scan);
    arena_free(batch_arena);
    return rc;
}

const char *silt_table_errmsg(const silt_table *table)
{
    return table != NULL ? table->errmsg : "out of memory";
}

silt_status silt_table_errcode(const silt_table *table)
{
    return table != NULL ? table->last_code : SILT_NOMEM;
}

/* Accessors: a handle whose open failed answers as an empty table. */
#define SNAP(t) ((t) != NULL ? (t)->snap : NULL)

int64_t silt_table_version(const silt_table *table)
{
    return SNAP(table) ? table->snap->version : -1;
}

int64_t silt_table_timestamp_ms(const silt_table *table, int *in_commit_out)
{
    if (in_commit_out != NULL)
        *in_commit_out = SNAP(table) ? table->snap->timestamp_is_in_commit : 0;
    return SNAP(table) ? table->snap->timestamp_ms : 0;
}

int silt_table_min_reader_version(const silt_table *table)
{
    return SNAP(table) ? table->snap->protocol.min_reader_version : 0;
}

int silt_table_min_writer_version(const silt_table *table)
{
    return SNAP(table) ? table->snap->protocol.min_writer_version : 0;
}

size_t silt_table_feature_count(const silt_table *table, int writer)
{
    if (!SNAP(table))
        return 0;
    return writer ? table->snap->protocol.n_writer_features : table->snap->protocol.n_reader_features;
}

const char *silt_table_feature(const silt_table *table, int writer, size_t idx)
{
    if (idx >= silt_table_feature_count(table, writer))
        return NULL;
    return writer ? table->snap->protocol.writer_features[idx]
                  : table->snap->protocol.reader_features[idx];
}

const char *silt_table_id(const silt_table *table)
{
    return SNAP(table) ? table->snap->metadata.id : NULL;
}

const char *silt_table_name(const silt_table *table)
{
    return SNAP(table) ? table->snap->metadata.name : NULL;
}

size_t silt_table_column_count(const silt_table *table)
{
    return SNAP(table) ? table->snap->schema->n_fields : 0;
}

const char *silt_table_column_name(const silt_table *table, size_t idx)
{
    return idx < silt_table_column_count(table) ? table->snap->schema->fields[idx].name : NULL;
}

const char *silt_table_column_type(const silt_table *table, size_t idx)
{
    return idx < silt_table_column_count(table) ? table->column_types[idx] : NULL;
}

int silt_table_column_nullable(const silt_table *table, size_t idx)
{
    return idx < silt_table_column_count(table) ? table->snap->schema->fields[idx].nullable : 0;
}

size_t silt_table_partition_column_count(const silt_table *table)
{
    return SNAP(table) ? table->snap->metadata.n_partition_columns : 0;
}

const char *silt_table_partition_column(const silt_table *table, size_t idx)
{
    return idx < silt_table_partition_column_count(table)
               ? table->snap->metadata.partition_columns[idx]
               : NULL;
}

size_t silt_table_property_count(const silt_table *table)
{
    return SNAP(table) ? table->snap->metadata.configuration.n : 0;
}

const char *silt_table_property_key(const silt_table *table, size_t idx)
{
    return idx < silt_table_property_count(table)
               ? table->snap->metadata.configuration.items[idx].key
               : NULL;
}

const char *silt_table_property_value(const silt_table *table, size_t idx)
{
    return idx < silt_table_property_count(table)
               ? table->snap->metadata.configuration.items[idx].value
               : NULL;
}

int64_t silt_table_file_count(const silt_table *table)
{
    return SNAP(table) ? (int64_t)table->snap->n_files : 0;
}

int64_t silt_table_total_bytes(const silt_table *table)
{
    return SNAP(table) ? table->snap->total_size : 0;
}

int64_t silt_table_checkpoint_version(const silt_table *table, const char **kind_out)
{
    if (kind_out != NULL)
        *kind_out = SNAP(table) ? table->snap->checkpoint_kind : NULL;
    return SNAP(table) ? table->snap->checkpoint_version : -1;
}

int64_t silt_table_skipped_checkpoint_version(const silt_table *table)
{
    return SNAP(table) ? table->snap->skipped_checkpoint_version : -1;
}

silt_status silt_parse_timestamp(const char *text, int64_t *micros_out)
{
    if (text == NULL || micros_out == NULL)
        return SILT_INVALID;
    return time_parse_timestamp(text, strlen(text), micros_out, NULL) ? SILT_OK : SILT_PARSE;
}
