/*
 * Scan units of a Delta table (delta_scan_options.span, preds,
 * row_index_column): a data file read in parts gives the rows of the whole
 * file with its deletion vector applied by row position; pushed conjuncts
 * reach the Parquet row-group and page filters of a Delta data file exactly
 * as they do for the same file read as plain Parquet; the row index column
 * is each row's position in its file, also when pages were skipped.
 */
#include <stdio.h>
#include <string.h>

#include "delta/dv.h"
#include "delta/scan.h"
#include "scan_table.h"
#include "test.h"

static arena *a;
static silt_error err;
static io_store *store;
static delta_snapshot *snap;

void test_delta_scan_units__initialize(void)
{
    err_clear(&err);
    a = arena_new(NULL, "test");
    store = NULL;
    snap = NULL;
}

void test_delta_scan_units__cleanup(void)
{
    delta_snapshot_free(snap);
    io_store_free(store);
    arena_free(a);
}

/* Reads the scan to its end: the LONG row index column (last) and the first column's ints. */
static size_t read_all(delta_scan *scan, int64_t *pos, int64_t *val, size_t cap)
{
    size_t n = 0;
    for (;;) {
        col_batch *batch;
        check_ok(delta_scan_next(scan, a, &batch, &err), &err);
        if (batch == NULL)
            return n;
        for (int64_t r = 0; r < batch->n_rows; r++) {
            const col_vec *first = batch->cols[0], *idx = batch->cols[batch->n_cols - 1];
            check(n < cap);
            pos[n] = ((const int64_t *)idx->values)[r];
            val[n] = first->type->id == COL_INT ? ((const int32_t *)first->values)[r]
                                                 : ((const int64_t *)first->values)[r];
            n++;
        }
    }
}

static size_t scan_file(const delta_snapshot *one, pq_span span, const dpred *preds,
                        size_t n_preds, int64_t *pos, int64_t *val, size_t cap,
                        dscan_counters *counters)
{
    delta_scan_options so = DELTA_SCAN_OPTIONS_INIT;
    delta_scan *scan = NULL;
    size_t n;
    so.row_index_column = "_row_index";
    so.span = span;
    so.preds = preds;
    so.n_preds = n_preds;
    check_ok(delta_scan_open(&scan, store, one, &so, &err), &err);
    n = read_all(scan, pos, val, cap);
    if (counters != NULL)
        delta_scan_get_counters(scan, counters);
    delta_scan_free(scan);
    return n;
}

/*
 * table-with-dv-large (Spark-written, files of 100 and 2 rows with
 * deletion vectors): every file read whole and as three row ranges of its one row
 * group gives the same rows, none of them deleted, with positions in order.
 */
void test_delta_scan_units__deletion_vectors_by_row_position(void)
{
    const char *dir = arena_sprintf(a, "%s/conformance/tables/table-with-dv-large",
                                    test_shared_dir());
    size_t with_dv = 0;
    check_ok(io_store_open(&store, dir, 0, &err), &err);
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    for (size_t f = 0; f < snap->n_files; f++) {
        delta_snapshot one = *snap;
        int64_t pos[256], val[256], ppos[256], pval[256];
        const pq_span whole = {0, 0, 0, 0};
        const pq_span parts[3] = {{0, 1, 0, 30}, {0, 1, 30, 40}, {0, 1, 70, 1000}};
        ddv_bitmap *dv = NULL;
        size_t n, m = 0;
        one.files = &snap->files[f];
        one.n_files = 1;
        n = scan_file(&one, whole, NULL, 0, pos, val, 256, NULL);
        for (int k = 0; k < 3; k++)
            m += scan_file(&one, parts[k], NULL, 0, ppos + m, pval + m, 256 - m, NULL);
        check_int((int64_t)n, (int64_t)m);
        for (size_t r = 0; r < n; r++) {
            check_int(pos[r], ppos[r]);
            check_int(val[r], pval[r]);
            check(r == 0 || pos[r] > pos[r - 1]);
        }
        if (one.files[0].dv.storage_type == 0)
            continue;
        with_dv++;
        check_ok(ddv_load(&dv, store, &one.files[0].dv, &err), &err);
        for (size_t r = 0; r < n; r++)
            check(!ddv_contains(dv, (uint64_t)pos[r]));
        {
            pq_file *pq = NULL;
            check_ok(pq_file_open(&pq, store, one.files[0].path, &err), &err);
            check_int(pq_file_num_rows(pq) - ddv_cardinality(dv), (int64_t)n);
            pq_file_free(pq);
        }
        ddv_free(dv);
    }
    check(with_dv >= 2);
}

static dpred cmp(const char *column, dpred_op op, int64_t v)
{
    dpred p;
    memset(&p, 0, sizeof(p));
    p.kind = DPRED_CMP;
    p.op = op;
    p.column = column;
    p.literal.type = COL_LONG;
    p.literal.v.i = v;
    return p;
}

/* WHERE k = 123456 on one Delta file of 200 sorted row groups reads one row group. */
void test_delta_scan_units__point_query_reads_one_row_group(void)
{
    static int64_t pos[SCAN_TABLE_RG_ROWS], val[SCAN_TABLE_RG_ROWS];
    const pq_span whole = {0, 0, 0, 0};
    dpred p;
    dscan_counters c;
    size_t n;
    scan_table_write(a, &store);
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    p = cmp("k", DPRED_EQ, 123456);
    n = scan_file(snap, whole, &p, 1, pos, val, SCAN_TABLE_RG_ROWS, &c);
    /* Rows of the one page that may hold it; the caller's filter picks the one. */
    check(n > 0 && n < SCAN_TABLE_RG_ROWS);
    check(val[0] <= 123456 && val[n - 1] >= 123456);
    for (size_t r = 0; r < n; r++)
        check_int(val[r], pos[r]);
    check(c.pages_skipped > 0);
    check_int(1, (int64_t)c.files);
    check_int(1, (int64_t)c.row_groups_read);
    check_int(SCAN_TABLE_ROWS / SCAN_TABLE_RG_ROWS - 1, (int64_t)c.row_groups_skipped);
    {
        buf note = BUF_INIT;
        check_ok(delta_scan_counters_note(&c, &note, &err), &err);
        check_contains(buf_cstr(&note), "files: 1, row groups: 1 read, 199 skipped");
        buf_clear(&note);
    }
    /* The same file as plain Parquet, through the same filter. */
    {
        pq_file *file = NULL;
        pq_reader *r = NULL;
        pq_read_options ro = PQ_READ_OPTIONS_INIT;
        const char *leaf = "k";
        dscan_filter filter = {&p, &leaf, 1};
        col_batch *batch;
        int64_t rows = 0;
        check_ok(pq_file_open(&file, store, "part-0.parquet", &err), &err);
        ro.filter = delta_scan_row_group_filter;
        ro.filter_payload = &filter;
        ro.page_filter = delta_scan_page_filter;
        ro.page_filter_payload = &filter;
        check_ok(pq_reader_open(&r, file, &ro, &err), &err);
        do {
            check_ok(pq_reader_next(r, a, &batch, &err), &err);
            rows += batch ? batch->n_rows : 0;
        } while (batch != NULL);
        check_int(1, (int64_t)pq_reader_row_groups_read(r));
        check_int(SCAN_TABLE_ROWS / SCAN_TABLE_RG_ROWS - 1, (int64_t)pq_reader_skipped_row_groups(r));
        check(rows <= SCAN_TABLE_RG_ROWS);
        pq_reader_free(r);
        pq_file_free(file);
    }
}

/*
 * m < 1 holds in rows [200j, 200j + 50): the page index keeps some pages
 * of every row group (about 128 rows each), so batches hold rows of
 * several disjoint ranges. The row index column must still be each row's
 * position (= k), over the whole file and over units of row groups.
 */
void test_delta_scan_units__row_index_with_pages_skipped(void)
{
    static int64_t pos[SCAN_TABLE_ROWS], val[SCAN_TABLE_ROWS];
    const pq_span spans[3] = {{0, 0, 0, 0}, {3, 7, 0, 0}, {5, 1, 10, 500}};
    dpred p;
    scan_table_write(a, &store);
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    p = cmp("m", DPRED_LT, 1);
    for (int s = 0; s < 3; s++) {
        dscan_counters c;
        size_t n = scan_file(snap, spans[s], &p, 1, pos, val, SCAN_TABLE_ROWS, &c), hits = 0;
        check(n > 0 && n < SCAN_TABLE_ROWS);
        for (size_t r = 0; r < n; r++) {
            check_int(val[r], pos[r]);
            check(r == 0 || pos[r] > pos[r - 1]);
            hits += (val[r] / 50) % 4 == 0;
        }
        check(hits > 0);
        check(c.pages_skipped > 0);
        if (s == 2) { /* rows [5010, 5510) of the file */
            check_int(5010, pos[0]);
            check(pos[n - 1] < 5510);
        }
    }
}
