/*
 * Page skipping with the Parquet page index: files written by silt's
 * writer and by other writers (parquet-testing), checked against the
 * ColumnIndex/OffsetIndex read independently and against a full read.
 */
#include <stdio.h>
#include <string.h>

#include "formats/parquet/parquet.h"
#include "formats/parquet/writer.h"
#include "test.h"
#include "util/mem.h"

static silt_error err;
static arena *a;
static io_store *store;

void test_formats_parquet_pages__initialize(void)
{
    err_clear(&err);
    a = arena_new(NULL, "test");
    store = NULL;
    check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
}

void test_formats_parquet_pages__cleanup(void)
{
    io_store_free(store);
    arena_free(a);
}

/* Keeps pages of leaf `path` whose [min, max] meets [lo, hi]. */
typedef struct id_range {
    const char *path;
    int64_t lo, hi;
    int calls;
} id_range;

static int page_meets_range(const pq_leaf_stats *st, int64_t first_row, void *payload)
{
    id_range *q = payload;
    check(first_row >= 0);
    check(st->num_values > 0);
    if (strcmp(st->path, q->path) != 0)
        return 1;
    q->calls++;
    if (st->has_null_count && st->null_count == st->num_values)
        return 0; /* only nulls: no value is in the range */
    if (!st->has_min_max)
        return 1;
    return !(st->max.i < q->lo || st->min.i > q->hi);
}

static void render(buf *out, const col_vec *v, int64_t row)
{
    int32_t len;
    const char *s;
    if (col_vec_is_null(v, row)) {
        check_ok(buf_append_str(out, "null", &err), &err);
        return;
    }
    switch (v->type->id) {
    case COL_INT:
        check_ok(buf_printf(out, &err, "%d", ((const int32_t *)v->values)[row]), &err);
        break;
    case COL_LONG:
        check_ok(buf_printf(out, &err, "%lld", (long long)((const int64_t *)v->values)[row]),
                 &err);
        break;
    case COL_STRING:
        s = col_vec_str(v, row, &len);
        check_ok(buf_append(out, s, (size_t)len, &err), &err);
        break;
    default:
        check(0);
    }
}

/* Reads key with opts; one line per row, columns separated by '|'. Returns the reader's stats. */
static void read_rows(io_store *st, const char *key, const pq_read_options *opts, buf *out,
                      size_t *pages_read, size_t *pages_skipped)
{
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    arena *ba = arena_new(NULL, "batches");
    col_batch *batch;
    check_ok(pq_file_open(&file, st, key, &err), &err);
    check_ok(pq_reader_open(&reader, file, opts, &err), &err);
    for (;;) {
        check_ok(pq_reader_next(reader, ba, &batch, &err), &err);
        if (batch == NULL)
            break;
        for (int64_t row = 0; row < batch->n_rows; row++) {
            for (size_t c = 0; c < batch->n_cols; c++) {
                if (c > 0)
                    check_ok(buf_append_char(out, '|', &err), &err);
                render(out, batch->cols[c], row);
            }
            check_ok(buf_append_char(out, '\n', &err), &err);
        }
        arena_reset(ba);
    }
    *pages_read = pq_reader_pages_read(reader);
    *pages_skipped = pq_reader_skipped_pages(reader);
    pq_reader_free(reader);
    pq_file_free(file);
    arena_free(ba);
}

/* Splits text into lines (pointers into text, which is modified). */
static size_t split_lines(char *text, char **lines, size_t max)
{
    size_t n = 0;
    char *p = text;
    while (*p != '\0' && n < max) {
        char *nl = strchr(p, '\n');
        lines[n++] = p;
        if (nl == NULL)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    return n;
}

/*
 * Rows (global indexes) of the pages of leaf 0 whose INT64 or INT32
 * min/max meets [lo, hi], read from the page index directly.
 */
static size_t expected_rows(io_store *st, const char *key, size_t leaf, int64_t lo, int64_t hi,
                            int64_t *rows, size_t max, size_t *n_pages)
{
    pq_file *file = NULL;
    size_t n = 0, g, k;
    int64_t base = 0;
    check_ok(pq_file_open(&file, st, key, &err), &err);
    *n_pages = 0;
    for (g = 0; g < pq_file_metadata(file)->n_row_groups; g++) {
        const pq_row_group *rg = &pq_file_metadata(file)->row_groups[g];
        const pq_column_chunk *cc = &rg->columns[leaf];
        buf bytes = BUF_INIT;
        pq_offset_index oi;
        pq_column_index ci;
        check(cc->has_offset_index && cc->has_column_index);
        check_ok(io_get_range(st, key, cc->offset_index_offset, cc->offset_index_length, &bytes,
                              &err), &err);
        check_ok(pq_parse_offset_index(&oi, (const uint8_t *)bytes.data, bytes.len, a, &err),
                 &err);
        buf_truncate(&bytes, 0);
        check_ok(io_get_range(st, key, cc->column_index_offset, cc->column_index_length, &bytes,
                              &err), &err);
        check_ok(pq_parse_column_index(&ci, (const uint8_t *)bytes.data, bytes.len, a, &err),
                 &err);
        buf_clear(&bytes);
        for (k = 0; k < oi.n_pages; k++) {
            int64_t first = oi.pages[k].first_row_index;
            int64_t end = k + 1 < oi.n_pages ? oi.pages[k + 1].first_row_index : rg->num_rows;
            int64_t mn = 0, mx = 0;
            (*n_pages)++;
            if (ci.null_pages[k])
                continue;
            if (ci.min_values[k].len == 4) {
                int32_t v32;
                memcpy(&v32, ci.min_values[k].data, 4);
                mn = v32;
                memcpy(&v32, ci.max_values[k].data, 4);
                mx = v32;
            } else {
                check_int(8, ci.min_values[k].len);
                memcpy(&mn, ci.min_values[k].data, 8);
                memcpy(&mx, ci.max_values[k].data, 8);
            }
            if (mx < lo || mn > hi)
                continue;
            for (int64_t row = first; row < end && n < max; row++)
                rows[n++] = base + row;
        }
        base += rg->num_rows;
    }
    pq_file_free(file);
    return n;
}

static col_vec *finish(col_builder *b)
{
    col_vec *v;
    check_ok(col_builder_finish(b, &v, &err), &err);
    return v;
}

#define N_ROWS 20000

/*
 * id long (0.. in order), s string (distinct, every 5th null), k string (3
 * values: dictionary), n int (every 7th null); 3 row groups, small pages.
 */
static void write_test_file_opts(const char *key, int64_t dict_entries);

static void write_test_file(const char *key) { write_test_file_opts(key, 0); }

static void write_test_file_opts(const char *key, int64_t dict_entries)
{
    static const char *const names[] = {"id", "s", "k", "n"};
    col_field *f = arena_calloc(a, 4, sizeof(col_field));
    col_builder *b[4];
    col_batch batch;
    pqw_options wo = PQW_OPTIONS_INIT;
    pqw_writer *w = NULL;
    char text[64];
    const col_type *types[4] = {col_type_primitive(COL_LONG), col_type_primitive(COL_STRING),
                                col_type_primitive(COL_STRING), col_type_primitive(COL_INT)};
    for (int c = 0; c < 4; c++) {
        f[c].name = names[c];
        f[c].type = types[c];
        f[c].nullable = c > 0;
        f[c].field_id = -1;
        check_ok(col_builder_new(&b[c], a, types[c], &err), &err);
    }
    for (int64_t r = 0; r < N_ROWS; r++) {
        int len = snprintf(text, sizeof(text), "value-%lld-%.*s", (long long)r, (int)(r % 13),
                           "abcdefghijklm");
        check_ok(col_builder_append_int(b[0], r, &err), &err);
        if (r % 5 == 0)
            check_ok(col_builder_append_null(b[1], &err), &err);
        else
            check_ok(col_builder_append_bytes(b[1], text, (size_t)len, &err), &err);
        check_ok(col_builder_append_bytes(b[2], r % 3 == 0 ? "zero" : r % 3 == 1 ? "one" : "two",
                                          r % 3 == 0 ? 4 : 3, &err), &err);
        if (r % 7 == 0)
            check_ok(col_builder_append_null(b[3], &err), &err);
        else
            check_ok(col_builder_append_int(b[3], r * 3, &err), &err);
    }
    memset(&batch, 0, sizeof(batch));
    batch.schema = col_type_struct(a, 4, f);
    batch.n_rows = N_ROWS;
    batch.n_cols = 4;
    batch.cols = arena_calloc(a, 4, sizeof(col_vec *));
    for (int c = 0; c < 4; c++)
        batch.cols[c] = finish(b[c]);
    wo.page_bytes = 2048;
    wo.row_group_rows = 8000;
    if (dict_entries > 0)
        wo.dictionary_max_entries = dict_entries;
    check_ok(pqw_writer_open(&w, store, key, batch.schema, &wo, &err), &err);
    check_ok(pqw_writer_write_batch(w, &batch, &err), &err);
    check_ok(pqw_writer_close(w, NULL, &err), &err);
}

/* Lines of text whose first field (an integer) lies in [lo, hi], concatenated. */
static void filter_lines(const char *text, int64_t lo, int64_t hi, buf *out)
{
    const char *p = text;
    while (*p != '\0') {
        const char *nl = strchr(p, '\n');
        long long id = 0;
        size_t len = nl != NULL ? (size_t)(nl - p + 1) : strlen(p);
        if (sscanf(p, "%lld", &id) == 1 && id >= lo && id <= hi)
            check_ok(buf_append(out, p, len, &err), &err);
        p += len;
    }
}

/*
 * Reads key fully and with the page filter on leaf `leaf` (named path) in
 * [lo, hi]; checks the filtered read is exactly the rows of the matching
 * pages and that the rest of the pages were skipped.
 */
static void check_page_skipping(io_store *st, const char *key, const char *const *cols,
                                size_t n_cols, const char *path, size_t leaf, int64_t lo,
                                int64_t hi)
{
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    id_range q = {path, lo, hi, 0};
    buf full = BUF_INIT, part = BUF_INIT, want = BUF_INIT, f1 = BUF_INIT, f2 = BUF_INIT;
    size_t full_read, full_skipped, part_read, part_skipped, n_pages, n_full, n_part, n_rows;
    static char *full_lines[N_ROWS + 1], *part_lines[N_ROWS + 1];
    static int64_t rows[N_ROWS];
    opts.columns = cols;
    opts.n_columns = n_cols;
    opts.batch_rows = 100; /* batches cross page and range boundaries */
    read_rows(st, key, &opts, &full, &full_read, &full_skipped);
    check_int(0, full_skipped);
    opts.page_filter = page_meets_range;
    opts.page_filter_payload = &q;
    read_rows(st, key, &opts, &part, &part_read, &part_skipped);
    check(q.calls > 0);
    /* Same rows as a full read filtered afterwards. */
    filter_lines(buf_cstr(&full), lo, hi, &f1);
    filter_lines(buf_cstr(&part), lo, hi, &f2);
    check(f1.len > 0);
    check_str(buf_cstr(&f1), buf_cstr(&f2));
    /* Exactly the rows of the matching pages, from the index read independently. */
    n_rows = expected_rows(st, key, leaf, lo, hi, rows, N_ROWS, &n_pages);
    n_full = split_lines(full.data, full_lines, N_ROWS + 1);
    for (size_t k = 0; k < n_rows; k++) {
        check(rows[k] < (int64_t)n_full);
        check_ok(buf_append_str(&want, full_lines[rows[k]], &err), &err);
        check_ok(buf_append_char(&want, '\n', &err), &err);
    }
    check_str(buf_cstr(&want), buf_cstr(&part));
    n_part = split_lines(part.data, part_lines, N_ROWS + 1);
    check_int(n_rows, n_part);
    check(n_rows < n_full);
    /* Pages were really skipped, in every column. */
    check(part_skipped > 0);
    check(part_read < full_read);
    check_int(full_read, part_read + part_skipped);
    (void)n_pages;
    buf_clear(&full);
    buf_clear(&part);
    buf_clear(&want);
    buf_clear(&f1);
    buf_clear(&f2);
}

void test_formats_parquet_pages__silt_writer(void)
{
    static const char *const cols[] = {"id", "s", "k", "n"};
    write_test_file("pages.parquet");
    check_page_skipping(store, "pages.parquet", cols, 4, "id", 0, 9000, 9300);
    /* Ranges at the start and end of the file, and a single row. */
    check_page_skipping(store, "pages.parquet", cols, 4, "id", 0, 0, 3);
    check_page_skipping(store, "pages.parquet", cols, 4, "id", 0, N_ROWS - 2, N_ROWS + 5);
    check_page_skipping(store, "pages.parquet", cols, 4, "id", 0, 12345, 12345);
}

void test_formats_parquet_pages__filter_on_unprojected_order(void)
{
    /* The filtered column comes last in the projection; the others are read by its ranges. */
    static const char *const cols[] = {"n", "s", "id"};
    buf out = BUF_INIT;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    id_range q = {"id", 5000, 5001, 0};
    size_t pages_read, pages_skipped;
    write_test_file("pages2.parquet");
    opts.columns = cols;
    opts.n_columns = 3;
    opts.page_filter = page_meets_range;
    opts.page_filter_payload = &q;
    read_rows(store, "pages2.parquet", &opts, &out, &pages_read, &pages_skipped);
    check_contains(buf_cstr(&out), "15003|value-5001-abcdefghi|5001\n");
    check_contains(buf_cstr(&out), "15000|null|5000\n");
    check(pages_skipped > pages_read);
    buf_clear(&out);
}

static int reject_all(const pq_leaf_stats *st, int64_t first_row, void *payload)
{
    (void)st;
    (void)first_row;
    (void)payload;
    return 0;
}

void test_formats_parquet_pages__no_page_matches(void)
{
    buf out = BUF_INIT;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    size_t pages_read, pages_skipped;
    write_test_file("pages3.parquet");
    opts.page_filter = reject_all;
    read_rows(store, "pages3.parquet", &opts, &out, &pages_read, &pages_skipped);
    check_int(0, out.len);
    check_int(0, pages_read);
    check(pages_skipped > 12);
    buf_clear(&out);
}

static io_store *data_store(void)
{
    io_store *st = NULL;
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/parquet-testing/data", test_shared_dir());
    check_ok(io_local_store_open(&st, dir, 0, &err), &err);
    return st;
}

void test_formats_parquet_pages__other_writer(void)
{
    /* alltypes_tiny_pages: many small pages with a page index in every chunk. */
    static const char *const cols[] = {"id", "int_col", "string_col", "bigint_col"};
    io_store *st = data_store();
    check_page_skipping(st, "alltypes_tiny_pages.parquet", cols, 4, "id", 0, 3000, 3100);
    io_store_free(st);
}

void test_formats_parquet_pages__null_pages(void)
{
    /* int32_with_null_pages: some pages hold only nulls; a range predicate skips them. */
    static const char *const cols[] = {"int32_field"};
    io_store *st = data_store();
    check_page_skipping(st, "int32_with_null_pages.parquet", cols, 1, "int32_field", 0,
                        -100000000, 100000000);
    io_store_free(st);
}

/* Opens key and reads it with the page filter on id in [lo, hi]; returns the status. */
static silt_status try_read(const char *key, int64_t lo, int64_t hi, int64_t *rows)
{
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    id_range q = {"id", lo, hi, 0};
    arena *ba = arena_new(NULL, "batches");
    col_batch *batch = NULL;
    silt_status rc;
    opts.page_filter = page_meets_range;
    opts.page_filter_payload = &q;
    *rows = 0;
    err_clear(&err);
    rc = pq_file_open(&file, store, key, &err);
    if (rc == SILT_OK)
        rc = pq_reader_open(&reader, file, &opts, &err);
    while (rc == SILT_OK) {
        rc = pq_reader_next(reader, ba, &batch, &err);
        if (rc != SILT_OK || batch == NULL)
            break;
        *rows += batch->n_rows;
        arena_reset(ba);
    }
    pq_reader_free(reader);
    pq_file_free(file);
    arena_free(ba);
    return rc;
}

/* Skips a varint at p[*pos], returning where it started. */
static size_t skip_varint(const uint8_t *p, size_t *pos)
{
    size_t start = *pos;
    while (p[*pos] & 0x80)
        (*pos)++;
    (*pos)++;
    return start;
}

void test_formats_parquet_pages__corrupt_offset_index(void)
{
    buf file = BUF_INIT;
    pq_file *pf = NULL;
    const pq_column_chunk *cc;
    uint8_t *oi;
    size_t pos, row_at, row_end, k;
    int64_t rows;
    write_test_file("good.parquet");
    check_ok(io_get(store, "good.parquet", &file, &err), &err);
    check_ok(pq_file_open(&pf, store, "good.parquet", &err), &err);
    cc = &pq_file_metadata(pf)->row_groups[0].columns[0];
    check(cc->has_offset_index);
    oi = (uint8_t *)file.data + cc->offset_index_offset;
    /* OffsetIndex: field 1, a list of PageLocation {1: offset, 2: size, 3: first row}. */
    check_int(0x19, oi[0]);
    pos = 1;
    if ((oi[1] & 0xF0) == 0xF0) {
        pos++;
        skip_varint(oi, &pos);
    } else {
        pos++;
    }
    for (k = 0; k < 2; k++) {
        check_int(0x16, oi[pos++]);
        skip_varint(oi, &pos);
        check_int(0x15, oi[pos++]);
        skip_varint(oi, &pos);
        check_int(0x16, oi[pos++]);
        row_at = skip_varint(oi, &pos);
        row_end = pos;
        check_int(0, oi[pos++]);
    }
    /* The second page now claims to start at row 0 too (an over-long varint 0). */
    for (k = row_at; k + 1 < row_end; k++)
        oi[k] = 0x80;
    oi[row_end - 1] = 0;
    check_ok(io_put(store, "bad.parquet", file.data, file.len, &err), &err);
    check_fails(SILT_CORRUPT, try_read("bad.parquet", 100, 200, &rows));
    check_contains(err.message, "offset index page 1 starts at row 0");
    check_contains(err.context, "\"id\"");
    check_contains(err.context, "bad.parquet");
    pq_file_free(pf);
    buf_clear(&file);
}

void test_formats_parquet_pages__damaged_offset_index_bytes(void)
{
    /* Any damage to the index ends in a clear error or a read of whole pages, never a crash. */
    buf file = BUF_INIT, damaged = BUF_INIT;
    pq_file *pf = NULL;
    const pq_column_chunk *cc;
    int64_t at, len, rows;
    size_t k, corrupt = 0;
    write_test_file("good2.parquet");
    check_ok(io_get(store, "good2.parquet", &file, &err), &err);
    check_ok(pq_file_open(&pf, store, "good2.parquet", &err), &err);
    cc = &pq_file_metadata(pf)->row_groups[1].columns[2];
    at = cc->offset_index_offset;
    len = cc->offset_index_length;
    for (k = 0; k < (size_t)len && k < 48; k++) {
        silt_status rc;
        buf_truncate(&damaged, 0);
        check_ok(buf_append(&damaged, file.data, file.len, &err), &err);
        damaged.data[at + (int64_t)k] ^= (char)(k % 2 ? 0x7F : 0x01);
        check_ok(io_put(store, "damaged.parquet", damaged.data, damaged.len, &err), &err);
        rc = try_read("damaged.parquet", 9000, 9300, &rows);
        check(rc == SILT_OK || rc == SILT_CORRUPT || rc == SILT_UNSUPPORTED);
        if (rc != SILT_OK)
            corrupt++;
        else
            check(rows >= 301);
        check_ok(io_delete(store, "damaged.parquet", &err), &err);
    }
    check(corrupt > 0);
    pq_file_free(pf);
    buf_clear(&file);
    buf_clear(&damaged);
}

/* The value line write_test_file_opts wrote for row r (id|s|k|n). */
static void expected_line(int64_t r, buf *out)
{
    if (r % 5 == 0)
        check_ok(buf_printf(out, &err, "%lld|null|", (long long)r), &err);
    else
        check_ok(buf_printf(out, &err, "%lld|value-%lld-%.*s|", (long long)r, (long long)r,
                            (int)(r % 13), "abcdefghijklm"), &err);
    check_ok(buf_append_str(out, r % 3 == 0 ? "zero" : r % 3 == 1 ? "one" : "two", &err), &err);
    if (r % 7 == 0)
        check_ok(buf_append_str(out, "|null\n", &err), &err);
    else
        check_ok(buf_printf(out, &err, "|%lld\n", (long long)(r * 3)), &err);
}

/* Bit 1: some data page of leaf `leaf` in row group 0 is dictionary-encoded; bit 2: some is not. */
static int data_page_encodings(const char *key, size_t leaf)
{
    pq_file *file = NULL;
    const pq_column_chunk *cc;
    buf bytes = BUF_INIT;
    pq_offset_index oi;
    int seen = 0;
    check_ok(pq_file_open(&file, store, key, &err), &err);
    cc = &pq_file_metadata(file)->row_groups[0].columns[leaf];
    check_ok(io_get_range(store, key, cc->offset_index_offset, cc->offset_index_length, &bytes,
                          &err), &err);
    check_ok(pq_parse_offset_index(&oi, (const uint8_t *)bytes.data, bytes.len, a, &err), &err);
    for (size_t k = 0; k < oi.n_pages; k++) {
        pq_page_header h;
        size_t hlen;
        int enc;
        buf_truncate(&bytes, 0);
        check_ok(io_get_range(store, key, oi.pages[k].offset, oi.pages[k].compressed_page_size,
                              &bytes, &err), &err);
        check_ok(pq_parse_page_header(&h, &hlen, (const uint8_t *)bytes.data, bytes.len, &err),
                 &err);
        enc = h.has_data ? h.data.encoding : h.data_v2.encoding;
        seen |= enc == PQ_ENC_RLE_DICTIONARY || enc == PQ_ENC_PLAIN_DICTIONARY ? 1 : 2;
    }
    buf_clear(&bytes);
    pq_file_free(file);
    return seen;
}

void test_formats_parquet_pages__decoded_page_by_page(void)
{
    /*
     * Flat columns are decoded as batches need them: after the first small
     * batch only a few pages are decoded. The writer's dictionary for "s"
     * (at most 300 entries here) fills up, so its chunks switch from
     * dictionary to plain pages between batches (checked first).
     */
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    arena *ba = arena_new(NULL, "batches");
    col_batch *batch;
    buf got = BUF_INIT, want = BUF_INIT;
    size_t first_pages;
    int64_t r;
    write_test_file_opts("stream.parquet", 300);
    opts.batch_rows = 100;
    check_ok(pq_file_open(&file, store, "stream.parquet", &err), &err);
    check(data_page_encodings("stream.parquet", 1) == 3); /* "s": dictionary, then plain */
    /* fixed-width "id" and nullable "n" too: their indices are gathered, then plain values */
    check(data_page_encodings("stream.parquet", 0) == 3);
    check(data_page_encodings("stream.parquet", 3) == 3);
    check_ok(pq_reader_open(&reader, file, &opts, &err), &err);
    check_ok(pq_reader_next(reader, ba, &batch, &err), &err);
    check(batch != NULL);
    first_pages = pq_reader_pages_read(reader);
    check(first_pages >= 4);
    check(first_pages <= 8);
    do {
        for (int64_t row = 0; row < batch->n_rows; row++) {
            for (size_t c = 0; c < batch->n_cols; c++) {
                if (c > 0)
                    check_ok(buf_append_char(&got, '|', &err), &err);
                render(&got, batch->cols[c], row);
            }
            check_ok(buf_append_char(&got, '\n', &err), &err);
        }
        arena_reset(ba);
        check_ok(pq_reader_next(reader, ba, &batch, &err), &err);
    } while (batch != NULL);
    check(pq_reader_pages_read(reader) > first_pages * 10);
    for (r = 0; r < N_ROWS; r++)
        expected_line(r, &want);
    check_str(buf_cstr(&want), buf_cstr(&got));
    pq_reader_free(reader);
    pq_file_free(file);
    arena_free(ba);
    buf_clear(&got);
    buf_clear(&want);
}

void test_formats_parquet_pages__corrupt_page_found_while_streaming(void)
{
    /* A damaged page header deep in a chunk fails the batch that needs it, naming the column. */
    buf file = BUF_INIT;
    pq_file *pf = NULL;
    pq_reader *reader = NULL;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    arena *ba = arena_new(NULL, "batches");
    col_batch *batch = NULL;
    const pq_column_chunk *cc;
    buf bytes = BUF_INIT;
    pq_offset_index oi;
    silt_status rc = SILT_OK;
    int batches = 0;
    write_test_file("clean.parquet");
    check_ok(io_get(store, "clean.parquet", &file, &err), &err);
    check_ok(pq_file_open(&pf, store, "clean.parquet", &err), &err);
    cc = &pq_file_metadata(pf)->row_groups[0].columns[3];
    check_ok(io_get_range(store, "clean.parquet", cc->offset_index_offset, cc->offset_index_length,
                          &bytes, &err), &err);
    check_ok(pq_parse_offset_index(&oi, (const uint8_t *)bytes.data, bytes.len, a, &err), &err);
    check(oi.n_pages > 4);
    /* The page header's first field (type) becomes an invalid field header. */
    memset(file.data + oi.pages[oi.n_pages - 2].offset, 0xFF, 4);
    pq_file_free(pf);
    check_ok(io_put(store, "broken.parquet", file.data, file.len, &err), &err);
    opts.batch_rows = 100;
    check_ok(pq_file_open(&pf, store, "broken.parquet", &err), &err);
    check_ok(pq_reader_open(&reader, pf, &opts, &err), &err);
    while ((rc = pq_reader_next(reader, ba, &batch, &err)) == SILT_OK && batch != NULL) {
        batches++;
        arena_reset(ba);
    }
    check_int(SILT_CORRUPT, rc);
    check(batches > 10);
    check_contains(err.context, "column \"n\" of row group 0");
    check_contains(err.context, "broken.parquet");
    pq_reader_free(reader);
    pq_file_free(pf);
    arena_free(ba);
    buf_clear(&bytes);
    buf_clear(&file);
}

/*
 * A dictionary index past the dictionary's end is corruption, for string
 * columns kept as indices and for fixed-width columns gathered at once.
 * The file is written uncompressed, then the bit-packed indices of its
 * data page (after the all-defined level run of 100 rows, c8 01 01, and
 * the bit width 2) are overwritten with 0xff: every index becomes 3 of a
 * 3-entry dictionary.
 */
static void check_bad_index(const char *key, const col_type *type, int is_string)
{
    col_field f = {"c", type, 1, NULL, -1};
    col_builder *b;
    col_batch batch, *out = NULL;
    pqw_options wo = PQW_OPTIONS_INIT;
    pqw_writer *w = NULL;
    buf bytes = BUF_INIT;
    pq_file *file = NULL;
    pq_reader *r = NULL;
    static const uint8_t pattern[] = {0xc8, 0x01, 0x01, 0x02};
    size_t at = 0, k;
    silt_status rc = SILT_OK;
    check_ok(col_builder_new(&b, a, type, &err), &err);
    for (k = 0; k < 100; k++) {
        if (is_string) {
            const char *s = k % 3 == 0 ? "aa" : k % 3 == 1 ? "bb" : "cc";
            check_ok(col_builder_append_bytes(b, s, 2, &err), &err);
        } else {
            check_ok(col_builder_append_int(b, (int64_t)(k % 3) * 1000, &err), &err);
        }
    }
    memset(&batch, 0, sizeof(batch));
    batch.schema = col_type_struct(a, 1, &f);
    batch.n_rows = 100;
    batch.n_cols = 1;
    batch.cols = arena_calloc(a, 1, sizeof(col_vec *));
    batch.cols[0] = finish(b);
    wo.codec = PQW_CODEC_UNCOMPRESSED;
    check_ok(pqw_writer_open(&w, store, key, batch.schema, &wo, &err), &err);
    check_ok(pqw_writer_write_batch(w, &batch, &err), &err);
    check_ok(pqw_writer_close(w, NULL, &err), &err);
    check_ok(io_get(store, key, &bytes, &err), &err);
    for (at = 0; at + sizeof(pattern) < bytes.len; at++)
        if (memcmp(bytes.data + at, pattern, sizeof(pattern)) == 0)
            break;
    check(at + sizeof(pattern) + 27 < bytes.len);
    /* 13 groups of 8 two-bit indices: run header 0x1b, then 26 bytes */
    check_int(0x1b, (uint8_t)bytes.data[at + sizeof(pattern)]);
    memset(bytes.data + at + sizeof(pattern) + 1, 0xff, 26);
    check_ok(io_put(store, key, bytes.data, bytes.len, &err), &err);
    check_ok(pq_file_open(&file, store, key, &err), &err);
    check_ok(pq_reader_open(&r, file, NULL, &err), &err);
    while (rc == SILT_OK) {
        rc = pq_reader_next(r, a, &out, &err);
        if (rc == SILT_OK && out == NULL)
            break;
    }
    check_int(SILT_CORRUPT, rc);
    check_contains(err.message, "dictionary index out of range");
    pq_reader_free(r);
    pq_file_free(file);
    buf_clear(&bytes);
}

void test_formats_parquet_pages__dictionary_index_out_of_range(void)
{
    check_bad_index("badidx_s.parquet", col_type_primitive(COL_STRING), 1);
    err_clear(&err);
    check_bad_index("badidx_l.parquet", col_type_primitive(COL_LONG), 0);
}
