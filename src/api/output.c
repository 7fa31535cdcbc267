/*
 * output.c - formatting batches into a silt_text_fn in the formats of
 * silt/output.h, on top of formats/text_writer: each batch's text is given
 * out as it comes (only the table format holds rows, at most max_rows of
 * them).
 */
#include "api/output.h"

#include <stddef.h>
#include <string.h>

#include "api/options.h"

#include "formats/text.h"
#include "util/buf.h"
#include "util/mem.h"

struct api_printer {
    silt_text_fn fn;
    void *payload;
    silt_output_options opts;
    text_writer *writer;
    int64_t rows_seen;
    buf text;
};

silt_status silt_output_format_parse(const char *name, silt_output_format *out)
{
    text_format format;
    if (name == NULL || out == NULL || text_format_parse(name, &format, NULL) != SILT_OK)
        return SILT_INVALID;
    switch (format) {
    case TEXT_FORMAT_TABLE: *out = SILT_OUTPUT_TABLE; break;
    case TEXT_FORMAT_CSV: *out = SILT_OUTPUT_CSV; break;
    case TEXT_FORMAT_JSON: *out = SILT_OUTPUT_JSON; break;
    case TEXT_FORMAT_JSONL: *out = SILT_OUTPUT_JSONL; break;
    case TEXT_FORMAT_VERTICAL: *out = SILT_OUTPUT_VERTICAL; break;
    }
    return SILT_OK;
}

silt_status api_emit(silt_text_fn fn, void *payload, const char *text, size_t len,
                     silt_error *err)
{
    if (len > 0 && fn(payload, text, len) != 0)
        return err_set(err, SILT_IO, "could not write the output");
    return SILT_OK;
}

silt_status api_output_options(silt_output_options *out, const silt_output_options *given,
                               silt_error *err)
{
    static const silt_output_options defaults = SILT_OUTPUT_OPTIONS_INIT;
    static const size_t sizes[SILT_OUTPUT_OPTIONS_VERSION] = {sizeof(silt_output_options)};
    return api_options(out, given, &defaults, sizes, SILT_OUTPUT_OPTIONS_VERSION,
                       "output options", err);
}

static silt_status flush_text(api_printer *p, silt_error *err)
{
    SILT_RETURN_IF_ERROR(api_emit(p->fn, p->payload, p->text.data, p->text.len, err));
    buf_truncate(&p->text, 0);
    return SILT_OK;
}

silt_status api_printer_new(api_printer **out, silt_text_fn fn, void *payload,
                            const col_type *schema, const silt_output_options *opts,
                            silt_error *err)
{
    text_writer_options wopts = TEXT_WRITER_OPTIONS_INIT;
    api_printer *p = mem_calloc(1, sizeof(*p));
    silt_status rc;
    if (p == NULL)
        return err_nomem(err);
    p->fn = fn;
    p->payload = payload;
    buf_init(&p->text, 0);
    rc = api_output_options(&p->opts, opts, err);
    if (rc != SILT_OK) {
        api_printer_free(p);
        return rc;
    }
    switch (p->opts.format) {
    case SILT_OUTPUT_TABLE: wopts.format = TEXT_FORMAT_TABLE; break;
    case SILT_OUTPUT_CSV: wopts.format = TEXT_FORMAT_CSV; break;
    case SILT_OUTPUT_JSONL: wopts.format = TEXT_FORMAT_JSONL; break;
    case SILT_OUTPUT_JSON: wopts.format = TEXT_FORMAT_JSON; break;
    case SILT_OUTPUT_VERTICAL: wopts.format = TEXT_FORMAT_VERTICAL; break;
    default:
        api_printer_free(p);
        return err_set(err, SILT_INVALID, "output format %d does not exist", (int)p->opts.format);
    }
    wopts.max_rows = p->opts.max_rows < 0 ? INT64_MAX / 2 : p->opts.max_rows;
    wopts.truncate = p->opts.truncate;
    rc = text_writer_new(&p->writer, schema, &wopts, err);
    if (rc != SILT_OK) {
        api_printer_free(p);
        return rc;
    }
    *out = p;
    return SILT_OK;
}

int api_printer_full(const api_printer *p)
{
    return (p->opts.format == SILT_OUTPUT_TABLE || p->opts.format == SILT_OUTPUT_VERTICAL) &&
           p->opts.max_rows >= 0 &&
           p->rows_seen > p->opts.max_rows;
}

silt_status api_printer_add(api_printer *p, const col_batch *batch, silt_error *err)
{
    p->rows_seen += batch->n_rows;
    SILT_RETURN_IF_ERROR(text_writer_add_batch(p->writer, batch, &p->text, err));
    return flush_text(p, err);
}

silt_status api_printer_finish(api_printer *p, silt_error *err)
{
    SILT_RETURN_IF_ERROR(text_writer_finish(p->writer, &p->text, err));
    return flush_text(p, err);
}

void api_printer_free(api_printer *p)
{
    if (p == NULL)
        return;
    text_writer_free(p->writer);
    buf_clear(&p->text);
    mem_free(p);
}
