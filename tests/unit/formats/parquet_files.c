/*
 * Conformance of the Parquet reader with real files: every file of
 * ../shared/parquet-testing/data is read fully (all columns, all rows) or
 * refused with a clear error for the few known-unsupported ones; files with
 * an *_expect.csv are compared value by value; every file of bad_data is
 * rejected; every Parquet file (data and checkpoints) of the Delta
 * conformance tables is read.
 */
#include <stdio.h>
#include <string.h>

#include "formats/parquet/parquet.h"
#include "test.h"
#include "util/mem.h"

/* Checks the Arrow-layout invariants of a vector and its children. */
static void check_vector(const col_vec *v, int64_t length)
{
    size_t idx;
    check_int(length, v->length);
    check_int(col_validity_count_nulls(v->validity, v->length), v->null_count);
    switch (v->type->id) {
    case COL_STRING:
    case COL_BINARY: {
        int64_t row;
        if (v->dictionary != NULL) {
            /* Dictionary-encoded: indices within a dictionary without nulls. */
            check_vector(v->dictionary, v->dictionary->length);
            check_int(0, v->dictionary->null_count);
            for (row = 0; row < length; row++)
                check(col_vec_is_null(v, row) || (((const int32_t *)v->values)[row] >= 0 &&
                                                  ((const int32_t *)v->values)[row] <
                                                      v->dictionary->length));
            break;
        }
        check(v->offsets != NULL);
        check_int(0, v->offsets[0]);
        for (row = 0; row < length; row++)
            check(v->offsets[row] <= v->offsets[row + 1]);
        check(v->offsets[length] <= v->data_len);
        break;
    }
    case COL_ARRAY:
    case COL_MAP: {
        int64_t row;
        check_int(0, v->offsets[0]);
        for (row = 0; row < length; row++)
            check(v->offsets[row] <= v->offsets[row + 1]);
        for (idx = 0; idx < v->n_children; idx++)
            check_vector(v->children[idx], v->offsets[length]);
        break;
    }
    case COL_STRUCT:
        check_int(v->type->n_fields, v->n_children);
        for (idx = 0; idx < v->n_children; idx++)
            check_vector(v->children[idx], length);
        break;
    default:
        break;
    }
}

/* Reads every row of a file; returns the status and the number of rows read. */
static silt_status read_all(io_store *store, const char *key, int64_t *rows_out,
                            int64_t *expected_rows_out, silt_error *err)
{
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    arena *a = arena_new(NULL, "test batch");
    silt_status rc;
    *rows_out = 0;
    *expected_rows_out = -1;
    rc = pq_file_open(&file, store, key, err);
    if (rc == SILT_OK) {
        /* The row groups' counts: some writers leave the footer's total at 0. */
        const pq_file_meta *meta = pq_file_metadata(file);
        size_t rg;
        *expected_rows_out = 0;
        for (rg = 0; rg < meta->n_row_groups; rg++)
            *expected_rows_out += meta->row_groups[rg].num_rows;
        rc = pq_reader_open(&reader, file, NULL, err);
    }
    while (rc == SILT_OK) {
        col_batch *batch = NULL;
        size_t idx;
        arena_reset(a);
        rc = pq_reader_next(reader, a, &batch, err);
        if (rc != SILT_OK || batch == NULL)
            break;
        check(batch->n_rows > 0);
        check_int(pq_reader_schema(reader)->n_fields, batch->n_cols);
        for (idx = 0; idx < batch->n_cols; idx++)
            check_vector(batch->cols[idx], batch->n_rows);
        *rows_out += batch->n_rows;
    }
    pq_reader_free(reader);
    pq_file_free(file);
    arena_free(a);
    return rc;
}

static char *path_join(const char *a, const char *b)
{
    size_t len = strlen(a) + strlen(b) + 2;
    char *out = mem_alloc(len);
    check(out != NULL);
    snprintf(out, len, "%s/%s", a, b);
    return out;
}

static io_store *open_shared(const char *sub)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    char *dir = path_join(test_shared_dir(), sub);
    check_ok(io_local_store_open(&store, dir, 0, &err), &err);
    mem_free(dir);
    return store;
}

/* Files that are refused on purpose, with the status they get. */
static int known_unsupported(const char *key)
{
    /* A dictionary page of 2 GiB: over the page size limit. */
    return strcmp(key, "large_string_map.brotli.parquet") == 0;
}

void test_formats_parquet_files__parquet_testing_data(void)
{
    io_store *store = open_shared("parquet-testing/data");
    io_listing listing = IO_LISTING_INIT;
    silt_error err = SILT_ERROR_INIT;
    size_t idx, n_read = 0, n_refused = 0;
    check_ok(io_list(store, "", NULL, 0, &listing, &err), &err);
    check(listing.count > 40);
    for (idx = 0; idx < listing.count; idx++) {
        const char *key = listing.items[idx].key;
        int64_t rows, expected;
        silt_status rc;
        if (!util_str_ends_with(key, ".parquet") && !util_str_ends_with(key, ".parquet.encrypted"))
            continue;
        err_clear(&err);
        rc = read_all(store, key, &rows, &expected, &err);
        if (util_str_ends_with(key, ".encrypted")) {
            check_int(SILT_UNSUPPORTED, rc);
            check_str("encrypted Parquet is not supported", err.message);
            check_contains(err.context, key);
            n_refused++;
        } else if (known_unsupported(key)) {
            check_int(SILT_UNSUPPORTED, rc);
            check_contains(err.context, key);
            n_refused++;
        } else {
            if (rc != SILT_OK) {
                char msg[2048];
                err_format(&err, msg, sizeof(msg));
                test_fail(__FILE__, __LINE__, "could not read %s: %s", key, msg);
            }
            if (expected != rows)
                test_fail(__FILE__, __LINE__, "%s: read %lld rows, expected %lld", key,
                          (long long)rows, (long long)expected);
            n_read++;
        }
    }
    printf("    parquet-testing/data: %zu read fully, %zu refused\n", n_read, n_refused);
    check(n_read >= 60);
    io_listing_clear(&listing);
    io_store_free(store);
}

/* One CSV field: *null_out when empty and unquoted. Advances *pos past the separator. */
static void csv_field(const char *text, size_t len, size_t *pos, buf *out, int *null_out)
{
    silt_error err = SILT_ERROR_INIT;
    buf_truncate(out, 0);
    *null_out = 0;
    if (*pos < len && text[*pos] == '"') {
        (*pos)++;
        while (*pos < len) {
            if (text[*pos] == '"') {
                if (*pos + 1 < len && text[*pos + 1] == '"') {
                    check_ok(buf_append_char(out, '"', &err), &err);
                    *pos += 2;
                    continue;
                }
                (*pos)++;
                break;
            }
            check_ok(buf_append_char(out, text[(*pos)++], &err), &err);
        }
    } else {
        while (*pos < len && text[*pos] != ',' && text[*pos] != '\n' && text[*pos] != '\r')
            check_ok(buf_append_char(out, text[(*pos)++], &err), &err);
        *null_out = out->len == 0;
    }
    if (*pos < len && text[*pos] == '\r')
        (*pos)++;
    if (*pos < len && (text[*pos] == ',' || text[*pos] == '\n'))
        (*pos)++;
}

static void format_cell(const col_vec *v, int64_t row, buf *out)
{
    silt_error err = SILT_ERROR_INIT;
    buf_truncate(out, 0);
    switch (v->type->id) {
    case COL_BYTE: check_ok(buf_printf(out, &err, "%d", ((int8_t *)v->values)[row]), &err); break;
    case COL_SHORT: check_ok(buf_printf(out, &err, "%d", ((int16_t *)v->values)[row]), &err); break;
    case COL_INT: check_ok(buf_printf(out, &err, "%d", ((int32_t *)v->values)[row]), &err); break;
    case COL_LONG:
        check_ok(buf_printf(out, &err, "%lld", (long long)((int64_t *)v->values)[row]), &err);
        break;
    case COL_STRING:
    case COL_BINARY: {
        int32_t len;
        const char *s = col_vec_str(v, row, &len);
        check_ok(buf_append(out, s, (size_t)len, &err), &err);
        break;
    }
    default:
        test_fail(__FILE__, __LINE__, "no CSV comparison for type %s", col_type_id_name(v->type->id));
    }
}

/* Compares a file with its *_expect.csv (header line, then one line per row). */
static void compare_with_csv(io_store *store, const char *key, const char *csv_key)
{
    silt_error err = SILT_ERROR_INIT;
    buf csv = BUF_INIT, field = BUF_INIT, cell = BUF_INIT;
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    arena *a = arena_new(NULL, "test");
    size_t pos = 0;
    int64_t rows = 0;
    int is_null;
    check_ok(io_get(store, csv_key, &csv, &err), &err);
    while (pos < csv.len && csv.data[pos] != '\n')
        pos++;
    pos++;
    check_ok(pq_file_open(&file, store, key, &err), &err);
    check_ok(pq_reader_open(&reader, file, NULL, &err), &err);
    for (;;) {
        col_batch *batch = NULL;
        int64_t row;
        size_t col;
        check_ok(pq_reader_next(reader, a, &batch, &err), &err);
        if (batch == NULL)
            break;
        for (row = 0; row < batch->n_rows; row++, rows++) {
            for (col = 0; col < batch->n_cols; col++) {
                const col_vec *v = batch->cols[col];
                check(pos < csv.len);
                csv_field(csv.data, csv.len, &pos, &field, &is_null);
                if (col_vec_is_null(v, row)) {
                    if (!is_null)
                        test_fail(__FILE__, __LINE__, "%s row %lld column %zu: null, expected \"%s\"",
                                  key, (long long)rows, col, buf_cstr(&field));
                    continue;
                }
                format_cell(v, row, &cell);
                if (is_null || strcmp(buf_cstr(&cell), buf_cstr(&field)) != 0)
                    test_fail(__FILE__, __LINE__, "%s row %lld column %zu: \"%s\", expected \"%s\"",
                              key, (long long)rows, col, buf_cstr(&cell),
                              is_null ? "(null)" : buf_cstr(&field));
            }
        }
    }
    while (pos < csv.len && (csv.data[pos] == '\n' || csv.data[pos] == '\r'))
        pos++;
    check_int(csv.len, pos);
    check(rows > 0);
    pq_reader_free(reader);
    pq_file_free(file);
    arena_free(a);
    buf_clear(&csv);
    buf_clear(&field);
    buf_clear(&cell);
}

void test_formats_parquet_files__expected_values(void)
{
    io_store *store = open_shared("parquet-testing/data");
    io_listing listing = IO_LISTING_INIT;
    silt_error err = SILT_ERROR_INIT;
    size_t idx, compared = 0;
    check_ok(io_list(store, "", NULL, 0, &listing, &err), &err);
    for (idx = 0; idx < listing.count; idx++) {
        const char *key = listing.items[idx].key;
        char parquet_key[512];
        size_t stem;
        if (!util_str_ends_with(key, "_expect.csv"))
            continue;
        stem = strlen(key) - strlen("_expect.csv");
        snprintf(parquet_key, sizeof(parquet_key), "%.*s.parquet", (int)stem, key);
        compare_with_csv(store, parquet_key, key);
        compared++;
    }
    printf("    parquet-testing/data: %zu files compared with their expected values\n", compared);
    check(compared >= 4);
    io_listing_clear(&listing);
    io_store_free(store);
}

void test_formats_parquet_files__bad_data_is_rejected(void)
{
    io_store *store = open_shared("parquet-testing/bad_data");
    io_listing listing = IO_LISTING_INIT;
    silt_error err = SILT_ERROR_INIT;
    size_t idx, rejected = 0;
    check_ok(io_list(store, "", NULL, 1, &listing, &err), &err);
    for (idx = 0; idx < listing.count; idx++) {
        const char *key = listing.items[idx].key;
        int64_t rows, expected;
        silt_status rc;
        if (!util_str_ends_with(key, ".parquet"))
            continue;
        err_clear(&err);
        rc = read_all(store, key, &rows, &expected, &err);
        if (strcmp(key, "ARROW-GH-43605.parquet") == 0) {
            /*
             * Dictionary indices with bit width 0 against a one-entry
             * dictionary: valid (every index is 0), written by Polars, and
             * read by pyarrow and DuckDB alike. silt reads it too.
             */
            check_ok(rc, &err);
            check_int(expected, rows);
            continue;
        }
        if (rc != SILT_CORRUPT && rc != SILT_UNSUPPORTED)
            test_fail(__FILE__, __LINE__, "%s: expected CORRUPT or UNSUPPORTED, got %s", key,
                      silt_status_name(rc));
        check(err.message[0] != '\0');
        check_contains(err.context, key);
        rejected++;
    }
    printf("    parquet-testing/bad_data: %zu rejected\n", rejected);
    check(rejected >= 7);
    io_listing_clear(&listing);
    io_store_free(store);
}

void test_formats_parquet_files__delta_conformance_tables(void)
{
    io_store *store = open_shared("conformance/tables");
    io_listing listing = IO_LISTING_INIT;
    silt_error err = SILT_ERROR_INIT;
    size_t idx, n_read = 0;
    int64_t total = 0;
    check_ok(io_list(store, "", NULL, 1, &listing, &err), &err);
    for (idx = 0; idx < listing.count; idx++) {
        const char *key = listing.items[idx].key;
        int64_t rows, expected;
        if (!util_str_ends_with(key, ".parquet"))
            continue;
        err_clear(&err);
        if (read_all(store, key, &rows, &expected, &err) != SILT_OK) {
            char msg[2048];
            err_format(&err, msg, sizeof(msg));
            test_fail(__FILE__, __LINE__, "could not read %s: %s", key, msg);
        }
        check_int(expected, rows);
        total += rows;
        n_read++;
    }
    printf("    conformance/tables: %zu Parquet files read, %lld rows\n", n_read, (long long)total);
    check(n_read >= 100);
    io_listing_clear(&listing);
    io_store_free(store);
}
