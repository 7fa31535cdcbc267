/*
 * text_writer.c - one entry point for the text output formats, so that the
 * command line and the API choose a format by name and stream batches
 * through it without knowing which of them keeps rows (only the table does).
 */
#include "formats/text.h"

#include "util/mem.h"

struct text_writer {
    text_format format;
    const col_type *schema;
    int header_done;
    text_table *table; /* TABLE only */
};

silt_status text_format_parse(const char *name, text_format *out, silt_error *err)
{
    static const struct {
        const char *name;
        text_format format;
    } names[] = {{"table", TEXT_FORMAT_TABLE},
                 {"csv", TEXT_FORMAT_CSV},
                 {"json", TEXT_FORMAT_JSON},
                 {"jsonl", TEXT_FORMAT_JSONL},
                 {"vertical", TEXT_FORMAT_VERTICAL}};
    size_t idx;
    for (idx = 0; idx < sizeof(names) / sizeof(names[0]); idx++) {
        if (util_str_casecmp(name, names[idx].name) == 0) {
            *out = names[idx].format;
            return SILT_OK;
        }
    }
    err_set(err, SILT_INVALID, "output format \"%s\" is not one silt writes", name);
    err_hint(err, "use table, vertical, csv, json or jsonl");
    return SILT_INVALID;
}

silt_status text_writer_new(text_writer **out, const col_type *schema,
                            const text_writer_options *opts, silt_error *err)
{
    text_writer_options defaults = TEXT_WRITER_OPTIONS_INIT;
    text_writer *w;
    silt_status rc;
    if (opts == NULL)
        opts = &defaults;
    if (schema == NULL || schema->id != COL_STRUCT || (unsigned)opts->format > TEXT_FORMAT_VERTICAL)
        return err_set(err, SILT_INVALID, "cannot write results with %s",
                       schema == NULL || schema->id != COL_STRUCT ? "a schema that is not a struct"
                                                                  : "an output format out of range");
    w = mem_calloc(1, sizeof(*w));
    if (w == NULL)
        return err_nomem(err);
    w->format = opts->format;
    w->schema = schema;
    if (w->format == TEXT_FORMAT_TABLE || w->format == TEXT_FORMAT_VERTICAL) {
        rc = text_table_new(&w->table, schema, opts->max_rows, opts->truncate, err);
        if (rc != SILT_OK) {
            mem_free(w);
            return rc;
        }
        if (w->format == TEXT_FORMAT_VERTICAL)
            text_table_set_vertical(w->table);
    }
    *out = w;
    return SILT_OK;
}

silt_status text_writer_add_batch(text_writer *w, const col_batch *batch, buf *out,
                                  silt_error *err)
{
    if (batch->n_cols != w->schema->n_fields)
        return err_set(err, SILT_INVALID, "cannot write a batch of %zu columns as results of %zu",
                       batch->n_cols, w->schema->n_fields);
    switch (w->format) {
    case TEXT_FORMAT_TABLE:
    case TEXT_FORMAT_VERTICAL: return text_table_add_batch(w->table, batch, err);
    case TEXT_FORMAT_CSV:
        if (!w->header_done) {
            SILT_RETURN_IF_ERROR(text_csv_write_header(out, w->schema, err));
            w->header_done = 1;
        }
        return text_csv_write_batch(out, batch, err);
    case TEXT_FORMAT_JSON: return text_spark_json_write_batch(out, batch, err);
    default: return text_jsonl_write_batch(out, batch, err);
    }
}

silt_status text_writer_finish(text_writer *w, buf *out, silt_error *err)
{
    if (w->table != NULL)
        return text_table_finish(w->table, out, err);
    if (w->format == TEXT_FORMAT_CSV && !w->header_done) {
        w->header_done = 1;
        return text_csv_write_header(out, w->schema, err);
    }
    return SILT_OK;
}

void text_writer_free(text_writer *w)
{
    if (w == NULL)
        return;
    text_table_free(w->table);
    mem_free(w);
}
