/*
 * parquet.c - the public Parquet inspection calls (include/silt/parquet.h):
 * schema, metadata and row dumps of one file, for `silt parquet`, formatted
 * into the caller's silt_text_fn. The file is opened through the
 * connection's database (its store options); errors are the connection's.
 *
 * The row formatter here writes the canonical JSON-lines row format of
 * ../shared/conformance/README.md and a plain CSV. It is a small local
 * stand-in: the shared value formatters (formats/text*) replace it when
 * they land, so keep it simple rather than clever.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/conn.h"
#include "api/options.h"
#include "api/output.h"
#include "formats/text.h"
#include "formats/parquet/parquet.h"
#include "silt/parquet.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/time.h"

/* Opens the store of the file's folder and the file in it. */
static silt_status open_path(silt_conn *conn, const char *path, io_store **store_out,
                             pq_file **file_out, silt_error *err)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    silt_status rc;
    *store_out = NULL;
    *file_out = NULL;
    if (path == NULL)
        return err_set(err, SILT_INVALID, "the Parquet calls need a file path");
    if (path[0] == '\0' || (slash != NULL && slash[1] == '\0'))
        return err_set(err, SILT_INVALID, "\"%s\" is not a file path", path);
    if (slash == NULL)
        dir = mem_strdup(".");
    else if (slash == path)
        dir = mem_strdup("/");
    else
        dir = mem_strndup(path, (size_t)(slash - path));
    if (dir == NULL)
        return err_nomem(err);
    rc = io_store_open_with(store_out, dir, 0, &conn->db->store, err);
    mem_free(dir);
    if (rc == SILT_OK)
        rc = pq_file_open(file_out, *store_out, slash != NULL ? slash + 1 : path, err);
    if (rc != SILT_OK) {
        io_store_free(*store_out);
        *store_out = NULL;
    }
    return rc;
}

/* A callback is needed before anything is opened. */
static silt_status check_fn(silt_text_fn fn, silt_error *err)
{
    return fn != NULL ? SILT_OK : err_set(err, SILT_INVALID, "the Parquet calls need a text "
                                          "callback");
}

/* ---- schema ---- */

static silt_status print_type_tree(buf *out, const col_type *type, int depth, silt_error *err);

static silt_status print_field(buf *out, const char *name, const col_type *type, int nullable,
                               const char *label, int depth, silt_error *err)
{
    buf tname = BUF_INIT;
    int idx;
    silt_status rc = SILT_OK;
    for (idx = 0; idx < depth; idx++)
        rc = rc == SILT_OK ? buf_append_str(out, " |   ", err) : rc;
    if (rc == SILT_OK) {
        if (col_type_is_nested(type->id))
            rc = buf_append_str(&tname, col_type_id_name(type->id), err);
        else
            rc = col_type_format(type, &tname, err);
    }
    /* Spark prints map keys without a nullability (they are never null). */
    if (rc == SILT_OK && label == NULL)
        rc = buf_printf(out, err, " |-- %s: %s\n", name, buf_cstr(&tname));
    else if (rc == SILT_OK)
        rc = buf_printf(out, err, " |-- %s: %s (%s = %s)\n", name, buf_cstr(&tname), label,
                        nullable ? "true" : "false");
    buf_clear(&tname);
    if (rc == SILT_OK)
        rc = print_type_tree(out, type, depth + 1, err);
    return rc;
}

/* The layout of Spark's StructType.treeString. */
static silt_status print_type_tree(buf *out, const col_type *type, int depth, silt_error *err)
{
    size_t idx;
    switch (type->id) {
    case COL_STRUCT:
        for (idx = 0; idx < type->n_fields; idx++)
            SILT_RETURN_IF_ERROR(print_field(out, type->fields[idx].name, type->fields[idx].type,
                                             type->fields[idx].nullable, "nullable", depth, err));
        return SILT_OK;
    case COL_ARRAY:
        return print_field(out, "element", type->fields[0].type, type->fields[0].nullable,
                           "containsNull", depth, err);
    case COL_MAP:
        SILT_RETURN_IF_ERROR(print_field(out, "key", type->fields[0].type, 0, NULL, depth, err));
        return print_field(out, "value", type->fields[1].type, type->fields[1].nullable,
                           "valueContainsNull", depth, err);
    default:
        return SILT_OK;
    }
}

SILT_API silt_status silt_parquet_format_schema(silt_conn *conn, const char *path,
                                                int parquet_layout, silt_text_fn fn,
                                                void *payload)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    pq_file *file = NULL;
    buf text = BUF_INIT;
    silt_status rc;
    if (conn == NULL)
        return SILT_INVALID;
    rc = check_fn(fn, &err);
    if (rc == SILT_OK)
        rc = open_path(conn, path, &store, &file, &err);
    if (rc == SILT_OK && parquet_layout)
        rc = pq_file_format_schema(file, &text, &err);
    else if (rc == SILT_OK)
        rc = buf_append_str(&text, "root\n", &err);
    if (rc == SILT_OK && !parquet_layout)
        rc = print_type_tree(&text, pq_file_schema(file), 0, &err);
    if (rc == SILT_OK)
        rc = api_emit(fn, payload, text.data, text.len, &err);
    buf_clear(&text);
    pq_file_free(file);
    io_store_free(store);
    return api_conn_error(conn, rc, &err);
}

/* ---- values (local stand-in for the shared formatters) ---- */

static silt_status split_columns(const char *list, arena *a, const char ***names_out,
                                 size_t *n_out, silt_error *err)
{
    size_t n = 1, k = 0;
    const char *p;
    const char **names;
    for (p = list; *p; p++)
        n += *p == ',';
    names = arena_calloc(a, n, sizeof(char *));
    if (names == NULL)
        return err_nomem(err);
    for (p = list;; p++) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len == 0)
            return err_set(err, SILT_INVALID, "column list \"%s\" has an empty name", list);
        names[k] = arena_strndup(a, p, len);
        if (names[k++] == NULL)
            return err_nomem(err);
        if (end == NULL)
            break;
        p = end;
    }
    *names_out = names;
    *n_out = k;
    return SILT_OK;
}

/* The first n rows of a batch (for --limit). */
static silt_status head_rows(col_batch **batch, arena *a, int64_t n, silt_error *err)
{
    uint8_t *keep = arena_calloc(a, (size_t)(*batch)->n_rows, 1);
    if (keep == NULL)
        return err_nomem(err);
    memset(keep, 1, (size_t)n);
    return col_batch_filter(batch, a, *batch, keep, err);
}

static silt_status cat_rows(silt_text_fn fn, void *payload, pq_file *file,
                            const silt_parquet_cat_options *opts, arena *a, silt_error *err)
{
    pq_read_options ro = PQ_READ_OPTIONS_INIT;
    silt_output_options oo = SILT_OUTPUT_OPTIONS_INIT;
    pq_reader *reader = NULL;
    api_printer *printer = NULL;
    arena *batch_arena = arena_new(a, "parquet cat batch");
    int64_t left = opts->limit < 0 ? INT64_MAX : opts->limit;
    silt_status rc = batch_arena != NULL ? SILT_OK : err_nomem(err);
    oo.format = opts->format;
    oo.max_rows = opts->limit < 0 ? 20 : opts->limit;
    if (rc == SILT_OK && opts->columns != NULL)
        rc = split_columns(opts->columns, a, (const char ***)&ro.columns, &ro.n_columns, err);
    if (rc == SILT_OK)
        rc = pq_reader_open(&reader, file, &ro, err);
    if (rc == SILT_OK)
        rc = api_printer_new(&printer, fn, payload, pq_reader_schema(reader), &oo, NULL,
                             err);
    while (rc == SILT_OK && left > 0 && !api_printer_full(printer)) {
        col_batch *batch = NULL;
        arena_reset(batch_arena);
        rc = pq_reader_next(reader, batch_arena, &batch, err);
        if (rc != SILT_OK || batch == NULL)
            break;
        if (batch->n_rows > left)
            rc = head_rows(&batch, batch_arena, left, err);
        if (rc == SILT_OK)
            rc = api_printer_add(printer, batch, err);
        left -= batch->n_rows;
    }
    if (rc == SILT_OK)
        rc = api_printer_finish(printer, err);
    api_printer_free(printer);
    pq_reader_free(reader);
    return rc;
}

static silt_status cat_options(silt_parquet_cat_options *out,
                               const silt_parquet_cat_options *given, silt_error *err)
{
    static const silt_parquet_cat_options defaults = SILT_PARQUET_CAT_OPTIONS_INIT;
    static const size_t sizes[SILT_PARQUET_CAT_OPTIONS_VERSION] = {
        sizeof(silt_parquet_cat_options)};
    return api_options(out, given, &defaults, sizes, SILT_PARQUET_CAT_OPTIONS_VERSION,
                       "Parquet row options", err);
}

SILT_API silt_status silt_parquet_format_rows(silt_conn *conn, const char *path,
                                              const silt_parquet_cat_options *opts,
                                              silt_text_fn fn, void *payload)
{
    silt_parquet_cat_options o;
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    pq_file *file = NULL;
    arena *a = NULL;
    silt_status rc;
    if (conn == NULL)
        return SILT_INVALID;
    rc = check_fn(fn, &err);
    if (rc == SILT_OK)
        rc = cat_options(&o, opts, &err);
    if (rc == SILT_OK)
        rc = open_path(conn, path, &store, &file, &err);
    if (rc == SILT_OK) {
        a = arena_new(NULL, "parquet cat");
        rc = a != NULL ? cat_rows(fn, payload, file, &o, a, &err) : err_nomem(&err);
    }
    arena_free(a);
    pq_file_free(file);
    io_store_free(store);
    return api_conn_error(conn, rc, &err);
}

/* ---- metadata ---- */

static silt_status fmt_stat(buf *out, const col_type *type, const pq_stat_value *value,
                            silt_error *err)
{
    char tmp[64];
    switch (type->id) {
    case COL_BOOLEAN: return buf_append_str(out, value->i ? "true" : "false", err);
    case COL_FLOAT:
        text_format_float_js((float)value->d, tmp);
        return buf_append_str(out, tmp, err);
    case COL_DOUBLE:
        text_format_double_js(value->d, tmp);
        return buf_append_str(out, tmp, err);
    case COL_DECIMAL:
        text_format_decimal(value->dec, type->scale, tmp);
        return buf_append_str(out, tmp, err);
    case COL_DATE:
        time_format_date((int32_t)value->i, tmp, sizeof(tmp));
        return buf_append_str(out, tmp, err);
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        time_format_timestamp(value->i, 'T', 6, type->id == COL_TIMESTAMP, tmp, sizeof(tmp));
        return buf_append_str(out, tmp, err);
    case COL_STRING:
        return text_json_string(out, value->bytes, value->len, err);
    case COL_BINARY: {
        size_t k;
        SILT_RETURN_IF_ERROR(buf_append_str(out, "0x", err));
        for (k = 0; k < value->len; k++)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "%02x", (unsigned char)value->bytes[k]));
        return SILT_OK;
    }
    default: return buf_printf(out, err, "%lld", (long long)value->i);
    }
}

static silt_status print_chunk(buf *out, const pq_file *file, const pq_column_chunk *cc,
                               size_t col_idx, silt_error *err)
{
    const pq_column_meta *cm = &cc->meta;
    const col_type *leaf_type = pq_file_leaf_type(file, col_idx);
    pq_leaf_stats st;
    size_t k;
    SILT_RETURN_IF_ERROR(buf_printf(out, err, "  column %s: %s, %s, encodings ",
                                    pq_file_leaf_path(file, col_idx), pq_physical_name(cm->type),
                                    pq_codec_name(cm->codec)));
    for (k = 0; k < cm->n_encodings; k++)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s%s", k > 0 ? "," : "",
                                        pq_encoding_name(cm->encodings[k])));
    SILT_RETURN_IF_ERROR(buf_printf(out, err, "\n    values %lld, compressed %lld bytes, "
                                    "uncompressed %lld bytes, data page at %lld",
                                    (long long)cm->num_values, (long long)cm->total_compressed_size,
                                    (long long)cm->total_uncompressed_size,
                                    (long long)cm->data_page_offset));
    if (cm->has_dictionary_page_offset)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, ", dictionary page at %lld",
                                        (long long)cm->dictionary_page_offset));
    SILT_RETURN_IF_ERROR(buf_append_char(out, '\n', err));
    if (cc->has_column_index || cc->has_offset_index || cm->has_bloom_filter_offset) {
        SILT_RETURN_IF_ERROR(buf_append_str(out, "    page index:", err));
        if (cc->has_column_index)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, " column index at %lld (%d bytes)",
                                            (long long)cc->column_index_offset,
                                            (int)cc->column_index_length));
        if (cc->has_offset_index)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s offset index at %lld (%d bytes)",
                                            cc->has_column_index ? "," : "",
                                            (long long)cc->offset_index_offset,
                                            (int)cc->offset_index_length));
        if (cm->has_bloom_filter_offset)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s bloom filter at %lld",
                                            cc->has_column_index || cc->has_offset_index ? "," : "",
                                            (long long)cm->bloom_filter_offset));
        SILT_RETURN_IF_ERROR(buf_append_char(out, '\n', err));
    }
    if (!cm->has_statistics)
        return SILT_OK;
    pq_file_chunk_stats(file, cc, col_idx, &st);
    SILT_RETURN_IF_ERROR(buf_append_str(out, "    statistics:", err));
    if (st.has_min_max) {
        SILT_RETURN_IF_ERROR(buf_append_str(out, " min ", err));
        SILT_RETURN_IF_ERROR(fmt_stat(out, leaf_type, &st.min, err));
        SILT_RETURN_IF_ERROR(buf_append_str(out, ", max ", err));
        SILT_RETURN_IF_ERROR(fmt_stat(out, leaf_type, &st.max, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
    }
    if (st.has_null_count)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, " nulls %lld", (long long)st.null_count));
    if (cm->statistics.has_distinct_count)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, ", distinct %lld",
                                        (long long)cm->statistics.distinct_count));
    return buf_append_char(out, '\n', err);
}

static silt_status print_meta(buf *out, const pq_file *file, silt_error *err)
{
    const pq_file_meta *meta = pq_file_metadata(file);
    size_t rg_idx, k;
    SILT_RETURN_IF_ERROR(buf_printf(out, err, "file: %s\nsize: %lld bytes\nversion: %d\n",
                                    pq_file_key(file), (long long)pq_file_size(file),
                                    (int)meta->version));
    SILT_RETURN_IF_ERROR(buf_printf(out, err, "created by: %s\nrows: %lld\nrow groups: %zu\n"
                                    "columns: %zu\n",
                                    meta->created_by != NULL ? meta->created_by : "(unknown)",
                                    (long long)pq_file_num_rows(file), meta->n_row_groups,
                                    pq_file_n_leaves(file)));
    for (k = 0; k < meta->n_kv; k++)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "metadata %s: %.200s%s\n", meta->kv[k].key,
                                        meta->kv[k].value != NULL ? meta->kv[k].value : "",
                                        meta->kv[k].value != NULL && strlen(meta->kv[k].value) > 200
                                            ? "..." : ""));
    for (rg_idx = 0; rg_idx < meta->n_row_groups; rg_idx++) {
        const pq_row_group *rg = &meta->row_groups[rg_idx];
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "row group %zu: rows %lld, total byte size "
                                        "%lld\n", rg_idx, (long long)rg->num_rows,
                                        (long long)rg->total_byte_size));
        for (k = 0; k < rg->n_columns; k++)
            SILT_RETURN_IF_ERROR(print_chunk(out, file, &rg->columns[k], k, err));
    }
    return SILT_OK;
}

SILT_API silt_status silt_parquet_format_meta(silt_conn *conn, const char *path, silt_text_fn fn,
                                              void *payload)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    pq_file *file = NULL;
    buf text = BUF_INIT;
    silt_status rc;
    if (conn == NULL)
        return SILT_INVALID;
    rc = check_fn(fn, &err);
    if (rc == SILT_OK)
        rc = open_path(conn, path, &store, &file, &err);
    if (rc == SILT_OK)
        rc = print_meta(&text, file, &err);
    if (rc == SILT_OK)
        rc = api_emit(fn, payload, text.data, text.len, &err);
    buf_clear(&text);
    pq_file_free(file);
    io_store_free(store);
    return api_conn_error(conn, rc, &err);
}
