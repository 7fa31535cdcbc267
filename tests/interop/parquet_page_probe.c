/*
 * parquet_page_probe.c - reads a Parquet file with a page filter, for the
 * page-index interop test (tests/interop/parquet_page_index.py).
 *
 * Usage: parquet_page_probe FILE COLUMN LO HI
 *
 * The page filter keeps the pages of leaf COLUMN (an integer column) whose
 * [min, max] meets [LO, HI] and that are not all null. Prints every row
 * read, columns separated by tabs (integers, doubles as %.17g, strings,
 * "null"), then "pages_read N" and "pages_skipped N". The file must have a
 * column named "row" holding each row's index in the file: the probe also
 * reads the ColumnIndex/OffsetIndex of COLUMN itself and exits 1 unless the
 * rows read are exactly those of the pages it expects to be kept.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/parquet/parquet.h"
#include "io/store.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/mem.h"

static silt_error err;

static void die(const char *what)
{
    char msg[2048];
    err_format(&err, msg, sizeof(msg));
    fprintf(stderr, "parquet_page_probe: %s: %s\n", what, msg);
    exit(1);
}

#define OK(expr)                                                                                   \
    do {                                                                                           \
        if ((expr) != SILT_OK)                                                                     \
            die(#expr);                                                                            \
    } while (0)

typedef struct query {
    const char *column;
    int64_t lo, hi;
} query;

static int keep_page(const pq_leaf_stats *st, int64_t first_row, void *payload)
{
    const query *q = payload;
    (void)first_row;
    if (strcmp(st->path, q->column) != 0)
        return 1;
    if (st->has_null_count && st->null_count == st->num_values)
        return 0;
    if (!st->has_min_max)
        return 1;
    return !(st->max.i < q->lo || st->min.i > q->hi);
}

static void print_value(const col_vec *v, int64_t row)
{
    int32_t len;
    const char *s;
    if (col_vec_is_null(v, row)) {
        fputs("null", stdout);
        return;
    }
    switch (v->type->id) {
    case COL_INT:
        printf("%" PRId32, ((const int32_t *)v->values)[row]);
        break;
    case COL_LONG:
        printf("%" PRId64, ((const int64_t *)v->values)[row]);
        break;
    case COL_DOUBLE:
        printf("%.17g", ((const double *)v->values)[row]);
        break;
    case COL_STRING:
        s = col_vec_str(v, row, &len);
        fwrite(s, 1, (size_t)len, stdout);
        break;
    default:
        fputs("?", stdout);
        break;
    }
}

static int64_t le_int(const pq_bytes *b)
{
    int32_t v32;
    int64_t v64;
    if (b->len == 4) {
        memcpy(&v32, b->data, 4);
        return v32;
    }
    if (b->len != 8) {
        fprintf(stderr, "parquet_page_probe: bound of %zu bytes\n", b->len);
        exit(1);
    }
    memcpy(&v64, b->data, 8);
    return v64;
}

/* Marks in want[] the rows of the pages of `column` the filter must keep. */
static void expected_rows(io_store *store, pq_file *file, const char *key, const query *q,
                          char *want)
{
    const pq_file_meta *meta = pq_file_metadata(file);
    arena *a = arena_new(NULL, "probe index");
    size_t leaf = 0, g, k;
    int64_t base = 0;
    while (leaf < pq_file_n_leaves(file) && strcmp(pq_file_leaf_path(file, leaf), q->column) != 0)
        leaf++;
    if (leaf == pq_file_n_leaves(file) || a == NULL) {
        fprintf(stderr, "parquet_page_probe: no column %s\n", q->column);
        exit(1);
    }
    for (g = 0; g < meta->n_row_groups; g++) {
        const pq_row_group *rg = &meta->row_groups[g];
        const pq_column_chunk *cc = &rg->columns[leaf];
        buf bytes = BUF_INIT;
        pq_offset_index oi;
        pq_column_index ci;
        if (!cc->has_offset_index || !cc->has_column_index) {
            fprintf(stderr, "parquet_page_probe: row group %zu has no page index\n", g);
            exit(1);
        }
        OK(io_get_range(store, key, cc->offset_index_offset, cc->offset_index_length, &bytes,
                        &err));
        OK(pq_parse_offset_index(&oi, (const uint8_t *)bytes.data, bytes.len, a, &err));
        buf_truncate(&bytes, 0);
        OK(io_get_range(store, key, cc->column_index_offset, cc->column_index_length, &bytes,
                        &err));
        OK(pq_parse_column_index(&ci, (const uint8_t *)bytes.data, bytes.len, a, &err));
        buf_clear(&bytes);
        for (k = 0; k < oi.n_pages; k++) {
            int64_t first = oi.pages[k].first_row_index, row;
            int64_t end = k + 1 < oi.n_pages ? oi.pages[k + 1].first_row_index : rg->num_rows;
            if (ci.null_pages[k] || le_int(&ci.max_values[k]) < q->lo ||
                le_int(&ci.min_values[k]) > q->hi)
                continue;
            for (row = first; row < end; row++)
                want[base + row] = 1;
        }
        base += rg->num_rows;
    }
    arena_free(a);
}

int main(int argc, char **argv)
{
    io_store *store = NULL;
    pq_file *file = NULL;
    pq_reader *reader = NULL;
    pq_read_options opts = PQ_READ_OPTIONS_INIT;
    arena *a = arena_new(NULL, "probe batches");
    query q;
    char dir[4096], *slash, *want, *got;
    const char *key;
    col_batch *batch;
    int64_t n_rows, row, mismatches = 0;
    size_t row_col = 0, c;
    if (argc != 5 || a == NULL) {
        fprintf(stderr, "usage: parquet_page_probe FILE COLUMN LO HI\n");
        return 2;
    }
    snprintf(dir, sizeof(dir), "%s", argv[1]);
    slash = strrchr(dir, '/');
    key = slash != NULL ? argv[1] + (slash - dir) + 1 : argv[1];
    if (slash != NULL)
        *slash = '\0';
    else
        snprintf(dir, sizeof(dir), ".");
    q.column = argv[2];
    q.lo = strtoll(argv[3], NULL, 10);
    q.hi = strtoll(argv[4], NULL, 10);
    OK(io_local_store_open(&store, dir, 0, &err));
    OK(pq_file_open(&file, store, key, &err));
    n_rows = pq_file_num_rows(file);
    want = mem_calloc((size_t)n_rows + 1, 1);
    got = mem_calloc((size_t)n_rows + 1, 1);
    if (want == NULL || got == NULL)
        return 1;
    expected_rows(store, file, key, &q, want);
    opts.page_filter = keep_page;
    opts.page_filter_payload = &q;
    opts.batch_rows = 1000;
    OK(pq_reader_open(&reader, file, &opts, &err));
    while (pq_reader_schema(reader)->n_fields > row_col &&
           strcmp(pq_reader_schema(reader)->fields[row_col].name, "row") != 0)
        row_col++;
    if (row_col == pq_reader_schema(reader)->n_fields) {
        fprintf(stderr, "parquet_page_probe: the file has no \"row\" column\n");
        return 1;
    }
    for (;;) {
        OK(pq_reader_next(reader, a, &batch, &err));
        if (batch == NULL)
            break;
        for (row = 0; row < batch->n_rows; row++) {
            int64_t idx = ((const int64_t *)batch->cols[row_col]->values)[row];
            if (idx < 0 || idx >= n_rows || got[idx])
                mismatches++;
            else
                got[idx] = 1;
            for (c = 0; c < batch->n_cols; c++) {
                if (c > 0)
                    fputc('\t', stdout);
                print_value(batch->cols[c], row);
            }
            fputc('\n', stdout);
        }
        arena_reset(a);
    }
    for (row = 0; row < n_rows; row++)
        mismatches += want[row] != got[row];
    printf("pages_read %zu\npages_skipped %zu\n", pq_reader_pages_read(reader),
           pq_reader_skipped_pages(reader));
    pq_reader_free(reader);
    pq_file_free(file);
    io_store_free(store);
    arena_free(a);
    mem_free(want);
    mem_free(got);
    if (mismatches > 0) {
        fprintf(stderr, "parquet_page_probe: %lld rows differ from the pages the index keeps\n",
                (long long)mismatches);
        return 1;
    }
    return 0;
}
