/*
 * The Parquet reader: type mapping, nested assembly, projection, the
 * row-group filter, batch boundaries, and errors from files and stores.
 */
#include <stdio.h>
#include <string.h>

#include "formats/parquet/parquet.h"
#include "test.h"
#include "util/mem.h"
#include "util/thread.h"

static io_store *data_store(void)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/parquet-testing/data", test_shared_dir());
    check_ok(io_local_store_open(&store, dir, 0, &err), &err);
    return store;
}

static void check_type(const char *expected, const col_type *type)
{
    silt_error err = SILT_ERROR_INIT;
    buf text = BUF_INIT;
    check_ok(col_type_format(type, &text, &err), &err);
    check_str(expected, buf_cstr(&text));
    buf_clear(&text);
}

/* Renders one value compactly ("null", numbers, strings, [..], {..}) for comparisons. */
static void render(buf *out, const col_vec *v, int64_t row)
{
    silt_error err = SILT_ERROR_INIT;
    size_t idx;
    if (v->type->id == COL_NULL || col_vec_is_null(v, row)) {
        check_ok(buf_append_str(out, "null", &err), &err);
        return;
    }
    switch (v->type->id) {
    case COL_BOOLEAN:
    case COL_BYTE:
        check_ok(buf_printf(out, &err, "%d", ((int8_t *)v->values)[row]), &err);
        break;
    case COL_SHORT:
        check_ok(buf_printf(out, &err, "%d", ((int16_t *)v->values)[row]), &err);
        break;
    case COL_INT:
    case COL_DATE:
        check_ok(buf_printf(out, &err, "%d", ((int32_t *)v->values)[row]), &err);
        break;
    case COL_LONG:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        check_ok(buf_printf(out, &err, "%lld", (long long)((int64_t *)v->values)[row]), &err);
        break;
    case COL_FLOAT:
        check_ok(buf_printf(out, &err, "%g", ((float *)v->values)[row]), &err);
        break;
    case COL_DOUBLE:
        check_ok(buf_printf(out, &err, "%g", ((double *)v->values)[row]), &err);
        break;
    case COL_DECIMAL: {
        col_int128 d;
        memcpy(&d, (uint8_t *)v->values + row * 16, 16);
        check_ok(buf_printf(out, &err, "%lldE-%d", (long long)d, v->type->scale), &err);
        break;
    }
    case COL_STRING:
    case COL_BINARY: {
        int32_t len;
        const char *s = col_vec_str(v, row, &len);
        check_ok(buf_printf(out, &err, "'%.*s'", (int)len, s), &err);
        break;
    }
    case COL_STRUCT:
        check_ok(buf_append_char(out, '{', &err), &err);
        for (idx = 0; idx < v->n_children; idx++) {
            if (idx > 0)
                check_ok(buf_append_char(out, ',', &err), &err);
            render(out, v->children[idx], row);
        }
        check_ok(buf_append_char(out, '}', &err), &err);
        break;
    case COL_ARRAY:
    case COL_MAP: {
        int32_t k;
        check_ok(buf_append_char(out, '[', &err), &err);
        for (k = v->offsets[row]; k < v->offsets[row + 1]; k++) {
            if (k > v->offsets[row])
                check_ok(buf_append_char(out, ',', &err), &err);
            render(out, v->children[0], k);
            if (v->type->id == COL_MAP) {
                check_ok(buf_append_char(out, ':', &err), &err);
                render(out, v->children[1], k);
            }
        }
        check_ok(buf_append_char(out, ']', &err), &err);
        break;
    }
    default:
        test_fail(__FILE__, __LINE__, "cannot render %s", col_type_id_name(v->type->id));
    }
}

/* Reads a file into one line per row ("v1|v2|...\n"). */
static void read_lines(const char *key, const pq_read_options *opts, buf *out)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = data_store();
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    arena *a = arena_new(NULL, "test");
    check_ok(pq_file_open(&file, store, key, &err), &err);
    check_ok(pq_reader_open(&reader, file, opts, &err), &err);
    for (;;) {
        col_batch *batch = NULL;
        int64_t row;
        size_t col;
        arena_reset(a);
        check_ok(pq_reader_next(reader, a, &batch, &err), &err);
        if (batch == NULL)
            break;
        if (opts != NULL && opts->batch_rows > 0)
            check(batch->n_rows <= opts->batch_rows);
        for (row = 0; row < batch->n_rows; row++) {
            for (col = 0; col < batch->n_cols; col++) {
                if (col > 0)
                    check_ok(buf_append_char(out, '|', &err), &err);
                render(out, batch->cols[col], row);
            }
            check_ok(buf_append_char(out, '\n', &err), &err);
        }
    }
    pq_reader_free(reader);
    pq_file_free(file);
    arena_free(a);
    io_store_free(store);
}

static void check_schema_of(const char *key, const char *expected)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = data_store();
    pq_file *file = NULL;
    check_ok(pq_file_open(&file, store, key, &err), &err);
    check_type(expected, pq_file_schema(file));
    pq_file_free(file);
    io_store_free(store);
}

void test_formats_parquet_reader__type_mapping(void)
{
    check_schema_of("alltypes_plain.parquet",
                    "struct<id:integer,bool_col:boolean,tinyint_col:integer,smallint_col:integer,"
                    "int_col:integer,bigint_col:long,float_col:float,double_col:double,"
                    "date_string_col:binary,string_col:binary,timestamp_col:timestamp>");
    check_schema_of("int32_decimal.parquet", "struct<value:decimal(4,2)>");
    check_schema_of("int64_decimal.parquet", "struct<value:decimal(10,2)>");
    check_schema_of("fixed_length_decimal_legacy.parquet", "struct<value:decimal(13,2)>");
    check_schema_of("byte_array_decimal.parquet", "struct<value:decimal(4,2)>");
    check_schema_of("float16_zeros_and_nans.parquet", "struct<x:float>");
    check_schema_of("int96_from_spark.parquet", "struct<a:timestamp>");
    check_schema_of("old_list_structure.parquet", "struct<a:array<array<integer>>>");
    check_schema_of("nested_maps.snappy.parquet",
                    "struct<a:map<string,map<integer,boolean>>,b:integer,c:double>");
    check_schema_of("repeated_primitive_no_list.parquet",
                    "struct<Int32_list:array<integer>,String_list:array<string>,"
                    "group_of_lists:struct<Int32_list_in_group:array<integer>,"
                    "String_list_in_group:array<string>>>");
}

void test_formats_parquet_reader__values_of_scalar_types(void)
{
    buf out = BUF_INIT;
    read_lines("int96_from_spark.parquet", NULL, &out);
    /* 2024-01-01T20:34:56.123456Z, ... a null in row 4 */
    check(util_str_starts_with(buf_cstr(&out), "1704141296123456\n"));
    check_contains(buf_cstr(&out), "\nnull\n");
    buf_truncate(&out, 0);
    read_lines("byte_array_decimal.parquet", NULL, &out);
    check(util_str_starts_with(buf_cstr(&out), "100E-2\n200E-2\n"));
    buf_truncate(&out, 0);
    read_lines("float16_nonzeros_and_nans.parquet", NULL, &out);
    check(util_str_starts_with(buf_cstr(&out), "null\n1\n-2\nnan\n0\n-1\n-0\n2\n"));
    buf_clear(&out);
}

void test_formats_parquet_reader__nested_lists_maps_structs(void)
{
    buf out = BUF_INIT;
    const char *text;
    read_lines("nullable.impala.parquet", NULL, &out);
    text = buf_cstr(&out);
    /* Row 2: lists with null elements, empty and null lists, maps with null values. */
    check_contains(text, "\n2|[null,1,2,null,3,null]|[[null,1,2,null],[3,null,4],[],null]|"
                         "['k1':2,'k2':null]|[['k3':null,'k1':1],null,[]]|");
    check_contains(text, "{null,[null],{[[{null,null},{10,'aaa'},{null,null},{-10,'bbb'},"
                         "{null,null}],[{11,'c'},null],[],null]}");
    /* Row 3: empty lists and lists of nulls; row 6: everything null. */
    check_contains(text, "\n3|[]|[null]|[]|[null,null]|{null,null,{[]},[]}\n");
    check_contains(text, "\n6|null|null|null|null|null\n");
    buf_truncate(&out, 0);
    read_lines("repeated_no_annotation.parquet", NULL, &out);
    check_contains(buf_cstr(&out), "4|{[{5555555555,null}]}\n");
    check_contains(buf_cstr(&out), "6|{[{1111111111,'home'},{2222222222,null},{3333333333,'mobile'}]}\n");
    buf_clear(&out);
}

void test_formats_parquet_reader__small_batches_keep_rows_whole(void)
{
    static const char *const files[] = {"nullable.impala.parquet", "nested_lists.snappy.parquet",
                                        "nested_maps.snappy.parquet", "alltypes_tiny_pages.parquet",
                                        "repeated_primitive_no_list.parquet"};
    size_t idx;
    for (idx = 0; idx < sizeof(files) / sizeof(files[0]); idx++) {
        pq_read_options opts = PQ_READ_OPTIONS_INIT;
        buf whole = BUF_INIT, pieces = BUF_INIT;
        read_lines(files[idx], NULL, &whole);
        opts.batch_rows = 2;
        read_lines(files[idx], &opts, &pieces);
        check_str(buf_cstr(&whole), buf_cstr(&pieces));
        buf_clear(&whole);
        buf_clear(&pieces);
    }
}

void test_formats_parquet_reader__projection(void)
{
    static const char *const cols[] = {"nested_struct.C", "id", "nested_struct.A"};
    silt_error err = SILT_ERROR_INIT;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    io_store *store = data_store();
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    buf out = BUF_INIT;
    opts.columns = cols;
    opts.n_columns = 3;
    check_ok(pq_file_open(&file, store, "nullable.impala.parquet", &err), &err);
    check_ok(pq_reader_open(&reader, file, &opts, &err), &err);
    /* Requested order at the top; the struct keeps only the selected fields, in its own order. */
    check_type("struct<nested_struct:struct<A:integer,C:struct<d:array<array<struct<E:"
               "integer,F:string>>>>>,id:long>",
               pq_reader_schema(reader));
    pq_reader_free(reader);
    read_lines("nullable.impala.parquet", &opts, &out);
    check(util_str_starts_with(buf_cstr(&out), "{1,{[[{10,'aaa'},{-10,'bbb'}],[{11,'c'}]]}}|1\n"));
    buf_clear(&out);
    pq_file_free(file);
    io_store_free(store);
}

void test_formats_parquet_reader__unknown_column_is_notfound(void)
{
    static const char *const cols[] = {"id", "nested_struct.nope"};
    silt_error err = SILT_ERROR_INIT;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    io_store *store = data_store();
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    opts.columns = cols;
    opts.n_columns = 2;
    check_ok(pq_file_open(&file, store, "nullable.impala.parquet", &err), &err);
    check_fails(SILT_NOTFOUND, pq_reader_open(&reader, file, &opts, &err));
    check_contains(err.message, "\"nested_struct.nope\"");
    check(reader == NULL);
    pq_file_free(file);
    io_store_free(store);
}

typedef struct filter_state {
    int calls;
    double first_min, first_max;
    int64_t first_nulls;
    int first_has_min_max;
} filter_state;

/* Keeps every other row group and records the statistics of the first. */
static int keep_even(const pq_leaf_stats *stats, size_t n_stats, int64_t num_rows, void *payload)
{
    filter_state *st = payload;
    check_int(1, n_stats);
    check_int(10, num_rows);
    check_str("double_ieee754", stats[0].path);
    if (st->calls == 0) {
        st->first_has_min_max = stats[0].has_min_max;
        st->first_min = stats[0].min.d;
        st->first_max = stats[0].max.d;
        st->first_nulls = stats[0].has_null_count ? stats[0].null_count : -1;
    }
    return st->calls++ % 2 == 0;
}

void test_formats_parquet_reader__row_group_filter(void)
{
    static const char *const cols[] = {"double_ieee754"};
    silt_error err = SILT_ERROR_INIT;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    filter_state st = {0, 0, 0, 0, 0};
    io_store *store = data_store();
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    arena *a = arena_new(NULL, "test");
    int64_t rows = 0;
    opts.columns = cols;
    opts.n_columns = 1;
    opts.filter = keep_even;
    opts.filter_payload = &st;
    check_ok(pq_file_open(&file, store, "floating_orders_nan_count.parquet", &err), &err);
    check_int(5, pq_file_metadata(file)->n_row_groups);
    check_ok(pq_reader_open(&reader, file, &opts, &err), &err);
    for (;;) {
        col_batch *batch = NULL;
        check_ok(pq_reader_next(reader, a, &batch, &err), &err);
        if (batch == NULL)
            break;
        rows += batch->n_rows;
    }
    check_int(5, st.calls);
    check_int(30, rows);
    check_int(2, pq_reader_skipped_row_groups(reader));
    check(st.first_has_min_max);
    check(st.first_min == -2.0);
    check(st.first_max == 5.0);
    check_int(0, st.first_nulls);
    pq_reader_free(reader);
    pq_file_free(file);
    arena_free(a);
    io_store_free(store);
}

static void write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[1024];
    FILE *fp;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fp = fopen(path, "wb");
    check(fp != NULL);
    check_int(len, fwrite(data, 1, len, fp));
    fclose(fp);
}

void test_formats_parquet_reader__not_parquet_truncated_and_missing(void)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *src = data_store(), *tmp = NULL;
    buf bytes = BUF_INIT;
    pq_file *file = NULL;
    check_ok(io_local_store_open(&tmp, test_tmpdir(), 0, &err), &err);
    write_file(test_tmpdir(), "text.parquet", "this is not a parquet file", 26);
    check_fails(SILT_CORRUPT, pq_file_open(&file, tmp, "text.parquet", &err));
    check_contains(err.message, "\"PAR1\"");
    check_contains(err.context, "text.parquet");
    write_file(test_tmpdir(), "tiny.parquet", "PAR1", 4);
    check_fails(SILT_CORRUPT, pq_file_open(&file, tmp, "tiny.parquet", &err));
    check_contains(err.message, "too small");
    /* A real file whose footer length points before the start. */
    check_ok(io_get(src, "alltypes_plain.parquet", &bytes, &err), &err);
    bytes.data[bytes.len - 5] = 0x7f;
    write_file(test_tmpdir(), "badlen.parquet", bytes.data, bytes.len);
    check_fails(SILT_CORRUPT, pq_file_open(&file, tmp, "badlen.parquet", &err));
    check_contains(err.message, "footer length");
    /* Cut in the middle of the data: the footer is gone. */
    write_file(test_tmpdir(), "cut.parquet", bytes.data, bytes.len / 2);
    check_fails(SILT_CORRUPT, pq_file_open(&file, tmp, "cut.parquet", &err));
    check_fails(SILT_NOTFOUND, pq_file_open(&file, tmp, "missing.parquet", &err));
    check(file == NULL);
    buf_clear(&bytes);
    io_store_free(tmp);
    io_store_free(src);
}

void test_formats_parquet_reader__every_footer_byte_flip_is_handled(void)
{
    /* Flip each footer byte in turn: open and read must succeed or fail cleanly. */
    silt_error err = SILT_ERROR_INIT;
    io_store *src = data_store(), *tmp = NULL;
    buf bytes = BUF_INIT;
    arena *a = arena_new(NULL, "test");
    size_t footer_len, pos;
    check_ok(io_local_store_open(&tmp, test_tmpdir(), 0, &err), &err);
    check_ok(io_get(src, "nested_lists.snappy.parquet", &bytes, &err), &err);
    memcpy(&footer_len, bytes.data + bytes.len - 8, 4);
    footer_len &= 0xffffffffu;
    for (pos = bytes.len - 8 - footer_len; pos < bytes.len - 8; pos++) {
        pq_file *file = NULL;
        pq_reader *reader = NULL;
        char saved = bytes.data[pos];
        silt_status rc;
        bytes.data[pos] = (char)(saved ^ 0x5a);
        write_file(test_tmpdir(), "flip.parquet", bytes.data, bytes.len);
        rc = pq_file_open(&file, tmp, "flip.parquet", &err);
        if (rc == SILT_OK)
            rc = pq_reader_open(&reader, file, NULL, &err);
        while (rc == SILT_OK) {
            col_batch *batch = NULL;
            arena_reset(a);
            rc = pq_reader_next(reader, a, &batch, &err);
            if (batch == NULL)
                break;
        }
        check(rc == SILT_OK || rc == SILT_CORRUPT || rc == SILT_UNSUPPORTED);
        pq_reader_free(reader);
        pq_file_free(file);
        bytes.data[pos] = saved;
    }
    arena_free(a);
    buf_clear(&bytes);
    io_store_free(tmp);
    io_store_free(src);
}

void test_formats_parquet_reader__store_failures_propagate(void)
{
    silt_error err = SILT_ERROR_INIT;
    io_fault_plan plan = IO_FAULT_PLAN_INIT;
    io_store *faulty = NULL;
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    arena *a = arena_new(NULL, "test");
    col_batch *batch = NULL;
    long reads;
    /* Opening takes a few reads; the first chunk read after it fails. */
    check_ok(io_fault_store_wrap(&faulty, data_store(), &plan, &err), &err);
    check_ok(pq_file_open(&file, faulty, "alltypes_plain.parquet", &err), &err);
    io_fault_store_counts(faulty, NULL, &reads);
    pq_file_free(file);
    io_store_free(faulty);
    plan.fail_read_nth = reads + 1;
    check_ok(io_fault_store_wrap(&faulty, data_store(), &plan, &err), &err);
    check_ok(pq_file_open(&file, faulty, "alltypes_plain.parquet", &err), &err);
    check_ok(pq_reader_open(&reader, file, NULL, &err), &err);
    check_fails(SILT_IO, pq_reader_next(reader, a, &batch, &err));
    check_contains(err.context, "alltypes_plain.parquet");
    pq_reader_free(reader);
    pq_file_free(file);
    io_store_free(faulty);
    arena_free(a);
}

void test_formats_parquet_reader__page_index(void)
{
    /* alltypes_tiny_pages has many small pages and a column and offset index per chunk. */
    silt_error err = SILT_ERROR_INIT;
    io_store *store = data_store();
    pq_file *file = NULL;
    arena *a = arena_new(NULL, "test");
    const pq_column_chunk *cc;
    pq_offset_index oi;
    pq_column_index ci;
    buf bytes = BUF_INIT;
    size_t idx;
    check_ok(pq_file_open(&file, store, "alltypes_tiny_pages.parquet", &err), &err);
    cc = &pq_file_metadata(file)->row_groups[0].columns[0];
    check(cc->has_offset_index && cc->has_column_index);
    check_ok(io_get_range(store, "alltypes_tiny_pages.parquet", cc->offset_index_offset,
                          cc->offset_index_length, &bytes, &err), &err);
    check_ok(pq_parse_offset_index(&oi, (const uint8_t *)bytes.data, bytes.len, a, &err), &err);
    check(oi.n_pages > 10);
    check_int(cc->meta.data_page_offset, oi.pages[0].offset);
    check_int(0, oi.pages[0].first_row_index);
    for (idx = 1; idx < oi.n_pages; idx++) {
        check(oi.pages[idx].first_row_index > oi.pages[idx - 1].first_row_index);
        check_int(oi.pages[idx - 1].offset + oi.pages[idx - 1].compressed_page_size,
                  oi.pages[idx].offset);
    }
    buf_truncate(&bytes, 0);
    check_ok(io_get_range(store, "alltypes_tiny_pages.parquet", cc->column_index_offset,
                          cc->column_index_length, &bytes, &err), &err);
    check_ok(pq_parse_column_index(&ci, (const uint8_t *)bytes.data, bytes.len, a, &err), &err);
    check_int(oi.n_pages, ci.n_pages);
    check_int(4, ci.min_values[0].len); /* INT32 id column */
    check(!ci.null_pages[0]);
    /* A truncated index is refused. */
    check_fails(SILT_CORRUPT, pq_parse_column_index(&ci, (const uint8_t *)bytes.data,
                                                    bytes.len / 2, a, &err));
    buf_clear(&bytes);
    arena_free(a);
    pq_file_free(file);
    io_store_free(store);
}

static int record_string_stats(const pq_leaf_stats *stats, size_t n_stats, int64_t num_rows,
                               void *payload)
{
    buf *out = payload;
    silt_error err = SILT_ERROR_INIT;
    size_t idx;
    for (idx = 0; idx < n_stats; idx++) {
        if (stats[idx].type->id == COL_STRING && stats[idx].has_min_max)
            check_ok(buf_printf(out, &err, "%s:%.*s..%.*s;", stats[idx].path,
                                (int)stats[idx].min.len, stats[idx].min.bytes,
                                (int)stats[idx].max.len, stats[idx].max.bytes), &err);
        else if (stats[idx].has_min_max)
            check_ok(buf_printf(out, &err, "%s:%lld..%lld,nulls %lld;", stats[idx].path,
                                (long long)stats[idx].min.i, (long long)stats[idx].max.i,
                                (long long)stats[idx].null_count), &err);
    }
    check_ok(buf_printf(out, &err, "rows %lld|", (long long)num_rows), &err);
    return 1;
}

void test_formats_parquet_reader__typed_statistics(void)
{
    silt_error err = SILT_ERROR_INIT;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    io_store *store = data_store();
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    arena *a = arena_new(NULL, "test");
    buf seen = BUF_INIT;
    col_batch *batch = NULL;
    opts.filter = record_string_stats;
    opts.filter_payload = &seen;
    check_ok(pq_file_open(&file, store, "sort_columns.parquet", &err), &err);
    check_ok(pq_reader_open(&reader, file, &opts, &err), &err);
    do {
        check_ok(pq_reader_next(reader, a, &batch, &err), &err);
    } while (batch != NULL);
    check_str("a:1..2,nulls 1;b:a..c;rows 3|a:1..2,nulls 1;b:a..c;rows 3|", buf_cstr(&seen));
    buf_clear(&seen);
    pq_reader_free(reader);
    pq_file_free(file);
    arena_free(a);
    io_store_free(store);
}

void test_formats_parquet_reader__memory_limit(void)
{
    /* 7300 rows of 13 columns take far more than 64 KiB once decoded. */
    silt_error err = SILT_ERROR_INIT;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    io_store *store = data_store();
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    arena *a = arena_new(NULL, "test");
    col_batch *batch = NULL;
    opts.memory_limit = 64 << 10;
    check_ok(pq_file_open(&file, store, "alltypes_tiny_pages.parquet", &err), &err);
    check_ok(pq_reader_open(&reader, file, &opts, &err), &err);
    check_fails(SILT_NOMEM, pq_reader_next(reader, a, &batch, &err));
    check_contains(err.message, "memory limit");
    pq_reader_free(reader);
    opts.memory_limit = 0;
    check_ok(pq_reader_open(&reader, file, &opts, &err), &err);
    check_ok(pq_reader_next(reader, a, &batch, &err), &err);
    check(batch != NULL);
    pq_reader_free(reader);
    pq_file_free(file);
    arena_free(a);
    io_store_free(store);
}

void test_formats_parquet_reader__field_ids_and_timestamp_ntz(void)
{
    /* A column-mapping table in id mode: Parquet field ids, TIMESTAMP(isAdjustedToUTC=false). */
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    io_listing listing = IO_LISTING_INIT;
    pq_file *file = NULL;
    const col_type *schema;
    char dir[1024];
    size_t idx;
    const char *key = NULL;
    snprintf(dir, sizeof(dir), "%s/conformance/tables", test_shared_dir());
    check_ok(io_local_store_open(&store, dir, 0, &err), &err);
    check_ok(io_list(store, "data-reader-timestamp_ntz-id-mode/", NULL, 1, &listing, &err), &err);
    for (idx = 0; idx < listing.count && key == NULL; idx++)
        if (util_str_ends_with(listing.items[idx].key, ".parquet") &&
            strstr(listing.items[idx].key, "_delta_log") == NULL)
            key = listing.items[idx].key;
    check(key != NULL);
    check_ok(pq_file_open(&file, store, key, &err), &err);
    schema = pq_file_schema(file);
    check_int(2, schema->n_fields);
    check_int(1, schema->fields[0].field_id);
    check_int(2, schema->fields[1].field_id);
    check_int(COL_INT, schema->fields[0].type->id);
    check_int(COL_TIMESTAMP_NTZ, schema->fields[1].type->id);
    pq_file_free(file);
    io_listing_clear(&listing);
    io_store_free(store);
}

static int64_t count_rows(pq_file *file, size_t first, size_t n)
{
    silt_error err = SILT_ERROR_INIT;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    pq_reader *reader = NULL;
    arena *a = arena_new(NULL, "test");
    int64_t rows = 0;
    col_batch *batch = NULL;
    opts.first_row_group = first;
    opts.n_row_groups = n;
    check_ok(pq_reader_open(&reader, file, &opts, &err), &err);
    do {
        check_ok(pq_reader_next(reader, a, &batch, &err), &err);
        rows += batch != NULL ? batch->n_rows : 0;
    } while (batch != NULL);
    pq_reader_free(reader);
    arena_free(a);
    return rows;
}

void test_formats_parquet_reader__row_group_ranges(void)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = data_store();
    pq_file *file = NULL;
    check_ok(pq_file_open(&file, store, "floating_orders_nan_count.parquet", &err), &err);
    check_int(50, count_rows(file, 0, 0));
    check_int(10, count_rows(file, 2, 1));
    check_int(20, count_rows(file, 3, 0));
    check_int(20, count_rows(file, 3, 99));
    check_int(0, count_rows(file, 7, 1));
    pq_file_free(file);
    io_store_free(store);
}

typedef struct split_scan {
    pq_file *file;
    int64_t rows[5];
} split_scan;

/* One task per row group, each with its own reader over the shared file. */
static silt_status scan_one_row_group(void *payload, size_t task_idx, size_t worker_idx,
                                      silt_error *err)
{
    split_scan *scan = payload;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    pq_reader *reader = NULL;
    arena *a = arena_new(NULL, "task");
    col_batch *batch = NULL;
    silt_status rc;
    (void)worker_idx;
    opts.first_row_group = task_idx;
    opts.n_row_groups = 1;
    rc = a != NULL ? pq_reader_open(&reader, scan->file, &opts, err) : err_nomem(err);
    while (rc == SILT_OK) {
        arena_reset(a);
        rc = pq_reader_next(reader, a, &batch, err);
        if (rc != SILT_OK || batch == NULL)
            break;
        scan->rows[task_idx] += batch->n_rows;
    }
    pq_reader_free(reader);
    arena_free(a);
    return rc;
}

void test_formats_parquet_reader__readers_share_a_file_across_threads(void)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = data_store();
    tpool *pool = NULL;
    split_scan scan;
    size_t idx;
    memset(&scan, 0, sizeof(scan));
    check_ok(pq_file_open(&scan.file, store, "floating_orders_nan_count.parquet", &err), &err);
    check_ok(tpool_new(&pool, 3, &err), &err);
    check_ok(tpool_run(pool, 5, scan_one_row_group, &scan, &err), &err);
    for (idx = 0; idx < 5; idx++)
        check_int(10, scan.rows[idx]);
    tpool_free(pool);
    pq_file_free(scan.file);
    io_store_free(store);
}

/*
 * Checks col_vec.codes on every batch of a file: indices below the
 * dictionary's size, equal codes of one dictionary carry equal value bytes,
 * and ids never go back to an earlier dictionary's. Returns the number of
 * vectors that carried codes.
 */
static int check_codes_of(const char *key)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = data_store();
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    arena *a = arena_new(NULL, "test");
    col_batch *batch = NULL;
    uint64_t last_id[64] = {0};
    int with_codes = 0;
    check_ok(pq_file_open(&file, store, key, &err), &err);
    check_ok(pq_reader_open(&reader, file, NULL, &err), &err);
    for (;;) {
        size_t col;
        check_ok(pq_reader_next(reader, a, &batch, &err), &err);
        if (batch == NULL)
            break;
        for (col = 0; col < batch->n_cols && col < 64; col++) {
            const col_vec *v = batch->cols[col];
            size_t w = col_type_value_width(v->type->id);
            int64_t row, other;
            if (v->codes == NULL)
                continue;
            with_codes++;
            check(w > 0 && v->null_count == 0);
            check(v->codes_dict != 0 && v->codes_card > 0);
            check(v->codes_dict >= last_id[col]); /* ids only grow: a later dictionary, a new id */
            last_id[col] = v->codes_dict;
            for (row = 0; row < v->length; row++) {
                check((int64_t)v->codes[row] < v->codes_card);
                for (other = 0; other < row; other++)
                    if (v->codes[other] == v->codes[row])
                        check(memcmp((const char *)v->values + (size_t)other * w,
                                     (const char *)v->values + (size_t)row * w, w) == 0);
            }
        }
    }
    pq_reader_free(reader);
    pq_file_free(file);
    io_store_free(store);
    arena_free(a);
    return with_codes;
}

void test_formats_parquet_reader__dictionary_codes(void)
{
    check(check_codes_of("alltypes_dictionary.parquet") > 0);
    check_codes_of("alltypes_plain.parquet");
    check_codes_of("floating_orders_nan_count.parquet");
    check_codes_of("rle-dict-snappy-checksum.parquet");
}
