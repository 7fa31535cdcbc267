/*
 * output.c - printing batches as a Spark show() table, CSV, canonical JSON
 * lines or Spark JSON lines, writing each batch out as it comes (only the
 * table format holds rows, at most max_rows of them).
 */
#include "api/output.h"

#include <string.h>

#include "formats/text.h"
#include "util/buf.h"
#include "util/mem.h"

struct api_printer {
    FILE *file;
    silt_output_options opts;
    const col_type *schema;
    text_table *table;
    buf text;
};

silt_status silt_output_format_parse(const char *name, silt_output_format *out)
{
    if (strcmp(name, "table") == 0)
        *out = SILT_OUTPUT_TABLE;
    else if (strcmp(name, "csv") == 0)
        *out = SILT_OUTPUT_CSV;
    else if (strcmp(name, "jsonl") == 0)
        *out = SILT_OUTPUT_JSONL;
    else if (strcmp(name, "json") == 0)
        *out = SILT_OUTPUT_JSON;
    else
        return SILT_INVALID;
    return SILT_OK;
}

static silt_status flush_text(api_printer *p, silt_error *err)
{
    if (p->text.len > 0 && fwrite(p->text.data, 1, p->text.len, p->file) != p->text.len)
        return err_set(err, SILT_IO, "could not write the output");
    buf_truncate(&p->text, 0);
    return SILT_OK;
}

silt_status api_printer_new(api_printer **out, FILE *file, const col_type *schema,
                            const silt_output_options *opts, silt_error *err)
{
    silt_output_options defaults = SILT_OUTPUT_OPTIONS_INIT;
    api_printer *p = mem_calloc(1, sizeof(*p));
    silt_status rc = SILT_OK;
    if (p == NULL)
        return err_nomem(err);
    p->file = file;
    p->opts = opts ? *opts : defaults;
    p->schema = schema;
    buf_init(&p->text, 0);
    if (p->opts.format == SILT_OUTPUT_TABLE) {
        int64_t max_rows = p->opts.max_rows < 0 ? INT64_MAX / 2 : p->opts.max_rows;
        rc = text_table_new(&p->table, schema, max_rows, p->opts.truncate, err);
    } else if (p->opts.format == SILT_OUTPUT_CSV) {
        rc = text_csv_write_header(&p->text, schema, err);
    } else if (p->opts.format != SILT_OUTPUT_JSONL && p->opts.format != SILT_OUTPUT_JSON) {
        rc = err_set(err, SILT_INVALID, "output format %d does not exist", (int)p->opts.format);
    }
    if (rc != SILT_OK) {
        api_printer_free(p);
        return rc;
    }
    *out = p;
    return SILT_OK;
}

int api_printer_full(const api_printer *p)
{
    return p->table != NULL && p->opts.max_rows >= 0 &&
           text_table_rows_seen(p->table) > p->opts.max_rows;
}

silt_status api_printer_add(api_printer *p, const col_batch *batch, silt_error *err)
{
    switch (p->opts.format) {
    case SILT_OUTPUT_TABLE:
        return text_table_add_batch(p->table, batch, err);
    case SILT_OUTPUT_CSV:
        SILT_RETURN_IF_ERROR(text_csv_write_batch(&p->text, batch, err));
        break;
    case SILT_OUTPUT_JSONL:
        SILT_RETURN_IF_ERROR(text_jsonl_write_batch(&p->text, batch, err));
        break;
    case SILT_OUTPUT_JSON:
        SILT_RETURN_IF_ERROR(text_spark_json_write_batch(&p->text, batch, err));
        break;
    }
    return flush_text(p, err);
}

silt_status api_printer_finish(api_printer *p, silt_error *err)
{
    if (p->table != NULL)
        SILT_RETURN_IF_ERROR(text_table_finish(p->table, &p->text, err));
    SILT_RETURN_IF_ERROR(flush_text(p, err));
    if (fflush(p->file) != 0)
        return err_set(err, SILT_IO, "could not write the output");
    return SILT_OK;
}

void api_printer_free(api_printer *p)
{
    if (p == NULL)
        return;
    text_table_free(p->table);
    buf_clear(&p->text);
    mem_free(p);
}
