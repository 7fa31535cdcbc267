/*
 * Row ranges inside a row group (pq_read_options.first_row/n_rows): every
 * split of every row group into 1, 2, 3 and 7 ranges, ranges on, around and
 * inside page boundaries, must give exactly the slice of a whole-row-group
 * read. Files: silt's writer with small pages (offset index), a pyarrow file
 * with v2 pages and no page index (page headers walked), parquet-testing's
 * data files (nested ones fall back to a whole read and a skip).
 */
#include <stdio.h>
#include <string.h>

#include "formats/parquet/parquet.h"
#include "formats/parquet/scan_int.h"
#include "formats/parquet/thrift.h"
#include "formats/parquet/writer.h"
#include "formats/text.h"
#include "test.h"
#include "util/mem.h"
#include "util/buf.h"

static silt_error err;
static arena *a;
static io_store *tmp;

void test_formats_parquet_ranges__initialize(void)
{
    err_clear(&err);
    a = arena_new(NULL, "test");
    tmp = NULL;
    check_ok(io_store_open(&tmp, test_tmpdir(), 0, &err), &err);
}

void test_formats_parquet_ranges__cleanup(void)
{
    io_store_free(tmp);
    arena_free(a);
}

static io_store *open_dir(const char *dir)
{
    io_store *st = NULL;
    check_ok(io_local_store_open(&st, dir, 0, &err), &err);
    return st;
}

/* Rows of a read as canonical JSON lines; returns the status of the read. */
static silt_status read_text(pq_file *file, const pq_read_options *opts, buf *out,
                             size_t *pages_read)
{
    pq_reader *reader = NULL;
    text_writer *tw = NULL;
    text_writer_options to = TEXT_WRITER_OPTIONS_INIT;
    arena *ba = arena_new(NULL, "batches");
    silt_status rc = pq_reader_open(&reader, file, opts, &err);
    to.format = TEXT_FORMAT_JSONL;
    if (rc == SILT_OK)
        rc = text_writer_new(&tw, pq_reader_schema(reader), &to, &err);
    while (rc == SILT_OK) {
        col_batch *batch;
        rc = pq_reader_next(reader, ba, &batch, &err);
        if (rc != SILT_OK || batch == NULL)
            break;
        if (batch->n_cols == 0) {
            /* No columns: one line per row still shows the row count. */
            for (int64_t row = 0; row < batch->n_rows && rc == SILT_OK; row++)
                rc = buf_append_str(out, "{}\n", &err);
        } else {
            rc = text_writer_add_batch(tw, batch, out, &err);
        }
        arena_reset(ba);
    }
    if (pages_read != NULL && reader != NULL)
        *pages_read = pq_reader_pages_read(reader);
    text_writer_free(tw);
    pq_reader_free(reader);
    arena_free(ba);
    return rc;
}

/* Byte offsets of the line starts of text (n_lines + 1 entries, the last = its length). */
static size_t *line_starts(const buf *text, size_t *n_lines)
{
    size_t n = 0, cap = 16, pos;
    size_t *starts = mem_alloc(cap * sizeof(size_t));
    check(starts != NULL);
    starts[n++] = 0;
    for (pos = 0; pos < text->len; pos++) {
        if (text->data[pos] != '\n')
            continue;
        if (n == cap) {
            cap *= 2;
            starts = mem_realloc(starts, cap * sizeof(size_t));
            check(starts != NULL);
        }
        starts[n++] = pos + 1;
    }
    *n_lines = n - 1;
    return starts;
}

typedef struct split_case {
    const char *key;
    const char *const *cols;
    size_t n_cols;
    int64_t batch_rows;
} split_case;

/* Reads rows [lo, hi) of row group g and checks them against the whole read's lines. */
static void check_range(pq_file *file, const split_case *sc, size_t g, int64_t lo, int64_t hi,
                        const buf *whole, const size_t *starts)
{
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    buf part = BUF_INIT;
    size_t want_len = starts[hi] - starts[lo];
    opts.columns = sc->cols;
    opts.n_columns = sc->n_cols;
    opts.batch_rows = sc->batch_rows;
    opts.first_row_group = g;
    opts.n_row_groups = 1;
    opts.first_row = lo;
    opts.n_rows = hi - lo;
    if (read_text(file, &opts, &part, NULL) != SILT_OK) {
        char msg[2048];
        err_format(&err, msg, sizeof(msg));
        test_fail(__FILE__, __LINE__, "%s row group %zu rows [%lld, %lld): %s", sc->key, g,
                  (long long)lo, (long long)hi, msg);
    }
    if (part.len != want_len || memcmp(part.data, whole->data + starts[lo], want_len) != 0)
        test_fail(__FILE__, __LINE__, "%s row group %zu rows [%lld, %lld): %zu bytes differ "
                  "from the whole read's %zu", sc->key, g, (long long)lo, (long long)hi,
                  part.len, want_len);
    buf_clear(&part);
}

/*
 * First rows of the data pages of leaf `leaf` in row group g, from the page
 * headers read here independently (at most max).
 */
static size_t page_first_rows(io_store *st, pq_file *file, size_t g, size_t leaf, int64_t *rows,
                              size_t max)
{
    const pq_column_chunk *cc = &pq_file_metadata(file)->row_groups[g].columns[leaf];
    int64_t start = cc->meta.data_page_offset, row = 0;
    buf bytes = BUF_INIT;
    size_t pos = 0, n = 0;
    if (cc->meta.has_dictionary_page_offset && cc->meta.dictionary_page_offset > 0 &&
        cc->meta.dictionary_page_offset < start)
        start = cc->meta.dictionary_page_offset;
    check_ok(io_get_range(st, pq_file_key(file), start, cc->meta.total_compressed_size, &bytes,
                          &err), &err);
    while (pos < bytes.len && n < max) {
        pq_page_header h;
        size_t hlen;
        if (pq_parse_page_header(&h, &hlen, (const uint8_t *)bytes.data + pos, bytes.len - pos,
                                 &err) != SILT_OK)
            break;
        if (h.type == PQ_PAGE_DATA || h.type == PQ_PAGE_DATA_V2) {
            rows[n++] = row;
            row += h.type == PQ_PAGE_DATA ? h.data.num_values : h.data_v2.num_rows;
        }
        pos += hlen + (size_t)h.compressed_size;
    }
    buf_clear(&bytes);
    return n;
}

/*
 * Every split of every row group of sc->key into 1, 2, 3 and 7 ranges,
 * then ranges on, around and inside the page boundaries of the first leaf.
 * Returns the number of ranges checked.
 */
static size_t check_splits(io_store *st, const split_case *sc)
{
    static const int64_t splits[] = {1, 2, 3, 7};
    pq_file *file = NULL;
    size_t g, n_checked = 0;
    check_ok(pq_file_open(&file, st, sc->key, &err), &err);
    for (g = 0; g < pq_file_metadata(file)->n_row_groups; g++) {
        pq_read_options opts = PQ_READ_OPTIONS_INIT;
        int64_t n_rows = pq_file_metadata(file)->row_groups[g].num_rows, firsts[64];
        buf whole = BUF_INIT;
        size_t n_lines, *starts, s, p, n_pages;
        opts.columns = sc->cols;
        opts.n_columns = sc->n_cols;
        opts.first_row_group = g;
        opts.n_row_groups = 1;
        check_ok(read_text(file, &opts, &whole, NULL), &err);
        starts = line_starts(&whole, &n_lines);
        check_int(n_rows, (int64_t)n_lines);
        for (s = 0; s < sizeof(splits) / sizeof(splits[0]); s++)
            for (int64_t k = 0; k < splits[s]; k++) {
                int64_t lo = n_rows * k / splits[s], hi = n_rows * (k + 1) / splits[s];
                if (lo < hi) {
                    check_range(file, sc, g, lo, hi, &whole, starts);
                    n_checked++;
                }
            }
        n_pages = pq_file_n_leaves(file) > 0 ? page_first_rows(st, file, g, 0, firsts, 64) : 0;
        for (p = 1; p < n_pages; p++) {
            int64_t b = firsts[p], next = p + 1 < n_pages ? firsts[p + 1] : n_rows;
            int64_t cases[][2] = {{b, next},     /* exactly one page */
                                  {b, b + 1},    /* the first row of a page */
                                  {b - 1, b},    /* the last row of the page before */
                                  {b - 1, b + 1}, /* across the boundary */
                                  {b, n_rows}};  /* from a boundary to the end */
            for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
                if (cases[c][0] >= 0 && cases[c][1] <= n_rows && cases[c][0] < cases[c][1]) {
                    check_range(file, sc, g, cases[c][0], cases[c][1], &whole, starts);
                    n_checked++;
                }
            if (next - b >= 3) { /* inside one page */
                check_range(file, sc, g, b + 1, next - 1, &whole, starts);
                n_checked++;
            }
        }
        mem_free(starts);
        buf_clear(&whole);
    }
    pq_file_free(file);
    return n_checked;
}

static col_vec *finish(col_builder *b)
{
    col_vec *v;
    check_ok(col_builder_finish(b, &v, &err), &err);
    return v;
}

#define N_ROWS 5000

/*
 * id long (in order), s string (distinct, every 5th null), k string (3
 * values: dictionary), n int (every 7th null), d double; row groups of
 * 2000 rows, pages of about 1 KiB.
 */
static void write_silt_file(const char *key, int codec, int dictionary)
{
    static const char *const names[] = {"id", "s", "k", "n", "d"};
    col_field *f = arena_calloc(a, 5, sizeof(col_field));
    col_builder *b[5];
    col_batch batch;
    pqw_options wo = PQW_OPTIONS_INIT;
    pqw_writer *w = NULL;
    char text[64];
    const col_type *types[5] = {col_type_primitive(COL_LONG), col_type_primitive(COL_STRING),
                                col_type_primitive(COL_STRING), col_type_primitive(COL_INT),
                                col_type_primitive(COL_DOUBLE)};
    for (int c = 0; c < 5; c++) {
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
        check_ok(col_builder_append_double(b[4], (double)r * 0.25, &err), &err);
    }
    memset(&batch, 0, sizeof(batch));
    batch.schema = col_type_struct(a, 5, f);
    batch.n_rows = N_ROWS;
    batch.n_cols = 5;
    batch.cols = arena_calloc(a, 5, sizeof(col_vec *));
    for (int c = 0; c < 5; c++)
        batch.cols[c] = finish(b[c]);
    wo.codec = codec;
    wo.dictionary = dictionary;
    wo.page_bytes = 1024;
    wo.row_group_rows = 2000;
    check_ok(pqw_writer_open(&w, tmp, key, batch.schema, &wo, &err), &err);
    check_ok(pqw_writer_write_batch(w, &batch, &err), &err);
    check_ok(pqw_writer_close(w, NULL, &err), &err);
}

void test_formats_parquet_ranges__silt_files_every_split(void)
{
    static const char *const one[] = {"s"}, *const two[] = {"d", "k"};
    static const int codecs[] = {PQW_CODEC_SNAPPY, PQW_CODEC_UNCOMPRESSED, PQW_CODEC_ZSTD};
    size_t n = 0;
    for (size_t c = 0; c < 3; c++)
        for (int dict = 0; dict <= 1; dict++) {
            char key[64];
            split_case sc = {key, NULL, 0, 100};
            snprintf(key, sizeof(key), "ranges-%zu-%d.parquet", c, dict);
            write_silt_file(key, codecs[c], dict);
            n += check_splits(tmp, &sc);
            sc.cols = one;
            sc.n_cols = 1;
            sc.batch_rows = 0;
            n += check_splits(tmp, &sc);
            sc.cols = two;
            sc.n_cols = 2;
            sc.batch_rows = 333;
            n += check_splits(tmp, &sc);
        }
    check(n > 500);
}

/* Columns: none at all still counts the range's rows. */
void test_formats_parquet_ranges__no_columns(void)
{
    static const char *const none[] = {NULL};
    split_case sc = {"ranges-none.parquet", none, 0, 64};
    write_silt_file(sc.key, PQW_CODEC_SNAPPY, 1);
    check(check_splits(tmp, &sc) > 10);
}

static char *data_path(const char *name)
{
    size_t len = strlen(test_source_dir()) + strlen(name) + 40;
    char *path = mem_alloc(len);
    check(path != NULL);
    snprintf(path, len, "%s/tests/unit/formats/data/%s", test_source_dir(), name);
    return path;
}

/* pyarrow, data pages v2, zstd, no page index: pages found by their headers. */
void test_formats_parquet_ranges__v2_pages_without_page_index(void)
{
    char *dir = data_path("");
    io_store *st = open_dir(dir);
    split_case sc = {"ranges_v2.parquet", NULL, 0, 50};
    static const char *const cols[] = {"n", "id"};
    pq_file *file = NULL;
    check_ok(pq_file_open(&file, st, sc.key, &err), &err);
    check(!pq_file_metadata(file)->row_groups[0].columns[0].has_offset_index);
    check(pq_file_metadata(file)->n_row_groups == 3);
    pq_file_free(file);
    check(check_splits(st, &sc) > 100);
    sc.cols = cols;
    sc.n_cols = 2;
    sc.batch_rows = 0;
    check(check_splits(st, &sc) > 100);
    io_store_free(st);
    mem_free(dir);
}

/* A range near the end decodes only the pages it needs. */
static void check_pages_skipped(io_store *st, const char *key, const char *col)
{
    const char *const cols[] = {col};
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    pq_file *file = NULL;
    buf text = BUF_INIT;
    size_t whole_pages = 0, range_pages = 0;
    int64_t n_rows;
    check_ok(pq_file_open(&file, st, key, &err), &err);
    n_rows = pq_file_metadata(file)->row_groups[0].num_rows;
    opts.columns = cols;
    opts.n_columns = 1;
    opts.n_row_groups = 1;
    check_ok(read_text(file, &opts, &text, &whole_pages), &err);
    opts.first_row = n_rows - 10;
    opts.n_rows = 10;
    buf_truncate(&text, 0);
    check_ok(read_text(file, &opts, &text, &range_pages), &err);
    check(whole_pages >= 8);
    check(range_pages >= 1 && range_pages <= 2);
    buf_clear(&text);
    pq_file_free(file);
}

void test_formats_parquet_ranges__pages_before_and_after_are_not_decoded(void)
{
    char *dir = data_path("");
    io_store *st = open_dir(dir);
    write_silt_file("skip.parquet", PQW_CODEC_SNAPPY, 0);
    check_pages_skipped(tmp, "skip.parquet", "id");   /* offset index */
    check_pages_skipped(st, "ranges_v2.parquet", "s"); /* page headers */
    io_store_free(st);
    mem_free(dir);
}

/* Every readable file of parquet-testing/data, every column (nested ones fall back). */
void test_formats_parquet_ranges__parquet_testing_data(void)
{
    char *dir = mem_alloc(strlen(test_shared_dir()) + 64);
    io_store *st;
    io_listing listing = IO_LISTING_INIT;
    size_t idx, n_files = 0, n_split = 0;
    check(dir != NULL);
    snprintf(dir, strlen(test_shared_dir()) + 64, "%s/parquet-testing/data", test_shared_dir());
    st = open_dir(dir);
    check_ok(io_list(st, "", NULL, 0, &listing, &err), &err);
    for (idx = 0; idx < listing.count; idx++) {
        const char *key = listing.items[idx].key;
        split_case sc = {key, NULL, 0, 0};
        pq_file *file = NULL;
        pq_reader *reader = NULL;
        col_batch *batch = NULL;
        silt_status rc;
        if (!util_str_ends_with(key, ".parquet") ||
            strcmp(key, "large_string_map.brotli.parquet") == 0)
            continue;
        err_clear(&err);
        /* Only files the reader reads whole (the others are parquet_files.c's business). */
        rc = pq_file_open(&file, st, key, &err);
        if (rc == SILT_OK)
            rc = pq_reader_open(&reader, file, NULL, &err);
        while (rc == SILT_OK) {
            rc = pq_reader_next(reader, a, &batch, &err);
            if (batch == NULL)
                break;
        }
        if (file != NULL)
            n_split += pq_file_splittable(file, NULL, 0);
        pq_reader_free(reader);
        pq_file_free(file);
        arena_reset(a);
        if (rc != SILT_OK)
            continue;
        sc.batch_rows = 7;
        check_splits(st, &sc);
        n_files++;
    }
    printf("    %zu files split (%zu of them flat)\n", n_files, n_split);
    check(n_files >= 55);
    io_listing_clear(&listing);
    io_store_free(st);
    mem_free(dir);
}

void test_formats_parquet_ranges__nested_is_not_splittable(void)
{
    char *dir = mem_alloc(strlen(test_shared_dir()) + 64);
    io_store *st;
    pq_file *file = NULL;
    static const char *const flat[] = {"a", "c"}, *const nested[] = {"e"};
    check(dir != NULL);
    snprintf(dir, strlen(test_shared_dir()) + 64, "%s/parquet-testing/data", test_shared_dir());
    st = open_dir(dir);
    check_ok(pq_file_open(&file, st, "nested_lists.snappy.parquet", &err), &err);
    check_int(0, pq_file_splittable(file, NULL, 0));
    pq_file_free(file);
    check_ok(pq_file_open(&file, st, "datapage_v2.snappy.parquet", &err), &err);
    check_int(1, pq_file_splittable(file, flat, 1));
    check_int(0, pq_file_splittable(file, NULL, 0));
    check_int(0, pq_file_splittable(file, nested, 1));
    pq_file_free(file);
    io_store_free(st);
    mem_free(dir);
}

/*
 * A page header broken inside a page that the range skips: the header walk
 * still reads it, and the read fails with CORRUPT naming the column.
 */
void test_formats_parquet_ranges__malformed_header_in_skipped_page(void)
{
    char *dir = data_path("");
    io_store *st = open_dir(dir);
    static const char *const cols[] = {"id"};
    buf bytes = BUF_INIT, text = BUF_INIT;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    pq_file *file = NULL;
    int64_t firsts[64];
    size_t n_pages, hlen, pos;
    const pq_column_chunk *cc;
    pq_page_header h;
    check_ok(io_get(st, "ranges_v2.parquet", &bytes, &err), &err);
    check_ok(io_put(tmp, "broken.parquet", bytes.data, bytes.len, &err), &err);
    check_ok(pq_file_open(&file, tmp, "broken.parquet", &err), &err);
    n_pages = page_first_rows(tmp, file, 0, 0, firsts, 64);
    check(n_pages >= 4);
    /* Find the third data page of column "id" and break its header's first byte. */
    cc = &pq_file_metadata(file)->row_groups[0].columns[0];
    pos = (size_t)cc->meta.dictionary_page_offset;
    for (int data_pages = 0;;) {
        check_ok(pq_parse_page_header(&h, &hlen, (const uint8_t *)bytes.data + pos,
                                      bytes.len - pos, &err), &err);
        if (h.type == PQ_PAGE_DATA_V2 && ++data_pages == 3)
            break;
        pos += hlen + (size_t)h.compressed_size;
    }
    bytes.data[pos] = (char)0xff;
    bytes.data[pos + 1] = (char)0xff;
    pq_file_free(file);
    check_ok(io_put(tmp, "broken.parquet", bytes.data, bytes.len, &err), &err);
    check_ok(pq_file_open(&file, tmp, "broken.parquet", &err), &err);
    opts.columns = cols;
    opts.n_columns = 1;
    opts.first_row_group = 0;
    opts.n_row_groups = 1;
    opts.first_row = firsts[n_pages - 1];
    opts.n_rows = 1;
    check_fails(SILT_CORRUPT, read_text(file, &opts, &text, NULL));
    check_contains(err.context, "\"id\"");
    check_contains(err.context, "broken.parquet");
    /* A range before the broken page never reaches it. */
    err_clear(&err);
    buf_truncate(&text, 0);
    opts.first_row = 0;
    opts.n_rows = firsts[1];
    check_ok(read_text(file, &opts, &text, NULL), &err);
    pq_file_free(file);
    buf_clear(&bytes);
    buf_clear(&text);
    io_store_free(st);
    mem_free(dir);
}

/* Keeps pages (and row groups) whose "id" bounds meet [lo, hi]. */
typedef struct id_range {
    int64_t lo, hi;
} id_range;

static int stats_meet(const pq_leaf_stats *st, const id_range *q)
{
    if (strcmp(st->path, "id") != 0 || !st->has_min_max)
        return 1;
    return !(st->max.i < q->lo || st->min.i > q->hi);
}

static int page_meets(const pq_leaf_stats *st, int64_t first_row, void *payload)
{
    (void)first_row;
    return stats_meet(st, payload);
}

static int group_meets(const pq_leaf_stats *stats, size_t n, int64_t num_rows, void *payload)
{
    (void)num_rows;
    for (size_t k = 0; k < n; k++)
        if (!stats_meet(&stats[k], payload))
            return 0;
    return 1;
}

/* Ids (the first field of each JSON line) in text, as a comma list. */
static void ids_of(const buf *text, int64_t lo, int64_t hi, buf *out)
{
    const char *p = text->data, *end = text->data + text->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *colon = memchr(p, ':', (size_t)(nl - p));
        long long id = 0;
        check(colon != NULL && sscanf(colon + 1, "%lld", &id) == 1);
        if (id >= lo && id <= hi)
            check_ok(buf_printf(out, &err, "%lld,", id), &err);
        p = nl + 1;
    }
}

/*
 * The page filter and the row-group filter with a range: the rows read are
 * those of the range whose pages may match, and every matching row of the
 * range is among them.
 */
void test_formats_parquet_ranges__filters_with_ranges(void)
{
    static const char *const cols[] = {"id", "s"};
    pq_file *file = NULL;
    id_range q = {700, 760};
    write_silt_file("filtered.parquet", PQW_CODEC_SNAPPY, 0); /* PLAIN: pages of 128 ids */
    check_ok(pq_file_open(&file, tmp, "filtered.parquet", &err), &err);
    for (int64_t lo = 0; lo < 2000; lo += 250) {
        pq_read_options opts = PQ_READ_OPTIONS_INIT;
        buf plain = BUF_INIT, filtered = BUF_INIT, want = BUF_INIT, got = BUF_INIT;
        size_t pages_plain = 0, pages_filtered = 0;
        opts.columns = cols;
        opts.n_columns = 2;
        opts.n_row_groups = 1;
        opts.first_row = lo;
        opts.n_rows = 500;
        check_ok(read_text(file, &opts, &plain, &pages_plain), &err);
        opts.page_filter = page_meets;
        opts.page_filter_payload = &q;
        opts.filter = group_meets;
        opts.filter_payload = &q;
        check_ok(read_text(file, &opts, &filtered, &pages_filtered), &err);
        ids_of(&plain, q.lo, q.hi, &want);
        ids_of(&filtered, q.lo, q.hi, &got);
        check_str(buf_cstr(&want), buf_cstr(&got));
        check(filtered.len <= plain.len);
        if (lo + 500 <= q.lo || lo > q.hi)
            check_int(0, (int64_t)filtered.len);
        else
            check(pages_filtered < pages_plain);
        buf_clear(&plain);
        buf_clear(&filtered);
        buf_clear(&want);
        buf_clear(&got);
    }
    /* The row-group filter still skips a whole row group with a range. */
    {
        pq_read_options opts = PQ_READ_OPTIONS_INIT;
        buf text = BUF_INIT;
        id_range far = {4500, 4600};
        opts.filter = group_meets;
        opts.filter_payload = &far;
        opts.n_row_groups = 1;
        opts.first_row = 10;
        opts.n_rows = 100;
        check_ok(read_text(file, &opts, &text, NULL), &err);
        check_int(0, (int64_t)text.len);
        buf_clear(&text);
    }
    pq_file_free(file);
}

/* codes_dict of the first batch of rows [lo, lo + n) of column d (no nulls, dictionary-encoded) in row group rg (0: no codes). */
static uint64_t dict_of_range(pq_file *file, size_t rg, int64_t lo, int64_t n)
{
    static const char *const cols[] = {"d"};
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    pq_reader *reader = NULL;
    col_batch *batch = NULL;
    uint64_t id;
    opts.columns = cols;
    opts.n_columns = 1;
    opts.first_row_group = rg;
    opts.n_row_groups = 1;
    opts.first_row = lo;
    opts.n_rows = n;
    check_ok(pq_reader_open(&reader, file, &opts, &err), &err);
    check_ok(pq_reader_next(reader, a, &batch, &err), &err);
    check(batch != NULL && batch->n_rows == n);
    id = batch->cols[0]->codes != NULL ? batch->cols[0]->codes_dict : 0;
    pq_reader_free(reader);
    return id;
}

/*
 * Ranges of one chunk share its decoded dictionary (the file's cache): the
 * batches name the same dictionary; another row group's chunk another one.
 */
void test_formats_parquet_ranges__ranges_share_the_dictionary(void)
{
    pq_file *file = NULL;
    uint64_t first;
    write_silt_file("shared_dict.parquet", PQW_CODEC_SNAPPY, 1);
    check_ok(pq_file_open(&file, tmp, "shared_dict.parquet", &err), &err);
    first = dict_of_range(file, 0, 0, 100);
    check(first != 0);
    check(dict_of_range(file, 0, 300, 100) == first);
    check(dict_of_range(file, 0, 600, 50) == first); /* the dictionary holds the first 704 values */
    /* Row group 1: its own dictionary. */
    check(dict_of_range(file, 1, 0, 100) != first);
    check(dict_of_range(file, 1, 0, 100) != 0);
    pq_file_free(file);
}

/* pq_file_page_starts against the page headers read here, with and without an offset index. */
static void check_page_starts(io_store *st, const char *key)
{
    pq_file *file = NULL;
    check_ok(pq_file_open(&file, st, key, &err), &err);
    for (size_t g = 0; g < pq_file_metadata(file)->n_row_groups; g++)
        for (size_t leaf = 0; leaf < pq_file_n_leaves(file); leaf++) {
            int64_t want[256], got[256];
            size_t n_want = page_first_rows(st, file, g, leaf, want, 256), n_got = 0;
            check_ok(pq_file_page_starts(file, g, leaf, got, 256, &n_got, &err), &err);
            check_int((int64_t)n_want, (int64_t)n_got);
            check(n_got >= 1 && got[0] == 0);
            for (size_t k = 0; k < n_got && k < n_want; k++)
                check_int(want[k], got[k]);
        }
    pq_file_free(file);
}

void test_formats_parquet_ranges__page_starts(void)
{
    char *dir = data_path("");
    io_store *st = open_dir(dir);
    int64_t few[2];
    size_t n = 0;
    pq_file *file = NULL;
    write_silt_file("starts.parquet", PQW_CODEC_SNAPPY, 1);
    check_page_starts(tmp, "starts.parquet");      /* offset index */
    check_page_starts(st, "ranges_v2.parquet");    /* page headers */
    /* At most max starts. */
    check_ok(pq_file_open(&file, st, "ranges_v2.parquet", &err), &err);
    check_ok(pq_file_page_starts(file, 0, 0, few, 2, &n, &err), &err);
    check_int(2, (int64_t)n);
    check_fails(SILT_INVALID, pq_file_page_starts(file, 9, 0, few, 2, &n, &err));
    pq_file_free(file);
    io_store_free(st);
    mem_free(dir);
}

/*
 * A row group of 24 MB of compressed longs (3M rows, one row group, no
 * dictionary) is read in windows: with pages of 1 MiB the reader never
 * holds more than a few windows of it; with pages of 3 MiB (larger than a
 * window) each page gets a window of its own. Every row comes back, whole
 * or as a row range.
 */
static void check_windows(int64_t page_bytes)
{
    static const char *const names[] = {"x"};
    col_field f = {0};
    pqw_options wo = PQW_OPTIONS_INIT;
    pqw_writer *w = NULL;
    pq_file *file = NULL;
    int64_t total = 3000000, r, expected = 0, base;
    uint64_t state = 88172645463325252ull;
    int pass;
    f.name = names[0];
    f.type = col_type_primitive(COL_LONG);
    f.field_id = -1;
    wo.dictionary = 0;
    wo.page_bytes = page_bytes;
    wo.row_group_bytes = (int64_t)1 << 30;
    char key[64];
    snprintf(key, sizeof(key), "windows-%lld.parquet", (long long)page_bytes);
    check_ok(pqw_writer_open(&w, tmp, key, col_type_struct(a, 1, &f), &wo, &err), &err);
    for (base = 0; base < total; base += 100000) {
        arena *ba = arena_new(NULL, "rows");
        col_builder *b;
        col_batch batch;
        col_vec *v;
        check_ok(col_builder_new(&b, ba, f.type, &err), &err);
        for (r = 0; r < 100000; r++) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            check_ok(col_builder_append_int(b, (int64_t)(state >> 20), &err), &err);
            expected += (int64_t)(state >> 20) & 0xffff;
        }
        check_ok(col_builder_finish(b, &v, &err), &err);
        memset(&batch, 0, sizeof(batch));
        batch.schema = col_type_struct(ba, 1, &f);
        batch.n_rows = 100000;
        batch.n_cols = 1;
        batch.cols = &v;
        check_ok(pqw_writer_write_batch(w, &batch, &err), &err);
        arena_free(ba);
    }
    check_ok(pqw_writer_close(w, NULL, &err), &err);
    check_ok(pq_file_open(&file, tmp, key, &err), &err);
    check_int(1, (int64_t)file->meta.n_row_groups);
    check(file->meta.row_groups[0].columns[0].meta.total_compressed_size > (16 << 20));
    for (pass = 0; pass < 2; pass++) {
        pq_read_options ro = PQ_READ_OPTIONS_INIT;
        pq_reader *reader = NULL;
        arena *ba = arena_new(NULL, "batches");
        int64_t rows = 0, sum = 0, held = 0;
        if (pass == 1) { /* a row range in the middle: pages skipped, then windows */
            ro.first_row = 1000000;
            ro.n_rows = total;
        }
        check_ok(pq_reader_open(&reader, file, &ro, &err), &err);
        for (;;) {
            col_batch *batch;
            check_ok(pq_reader_next(reader, ba, &batch, &err), &err);
            if (batch == NULL)
                break;
            if (pq_reader_held_bytes(reader) > held)
                held = pq_reader_held_bytes(reader);
            for (r = 0; r < batch->n_rows; r++)
                sum += ((const int64_t *)batch->cols[0]->values)[r] & 0xffff;
            rows += batch->n_rows;
            arena_reset(ba);
        }
        check_int(pass == 0 ? total : total - 1000000, rows);
        if (pass == 0)
            check_int(expected, sum);
        check(held > 0);
        if (page_bytes < PQ_STREAM_WINDOW)
            check(held < 4 * PQ_STREAM_WINDOW);
        pq_reader_free(reader);
        arena_free(ba);
    }
    pq_file_free(file);
}

void test_formats_parquet_ranges__large_row_group_is_read_in_windows(void)
{
    check_windows((int64_t)1 << 20);
    check_windows((int64_t)3 << 20);
}
