/*
 * scan_table.h - a Delta table of one data file of many sorted row groups
 * with small pages and a page index, for the scan tests of delta/ and sql/.
 */
#ifndef SILT_TEST_SCAN_TABLE_H
#define SILT_TEST_SCAN_TABLE_H

#include <string.h>

#include "formats/parquet/writer.h"
#include "io/store.h"
#include "test.h"

#define SCAN_TABLE_ROWS 200000
#define SCAN_TABLE_RG_ROWS 1000

/*
 * One data file of SCAN_TABLE_ROWS rows in row groups of SCAN_TABLE_RG_ROWS: k = row (sorted),
 * m = (row / 50) % 4; small PLAIN pages (no dictionary) with a page index. The table's log is
 * written by hand (protocol, metaData, one add without stats), so only
 * the Parquet statistics can skip anything.
 */
static void scan_table_write(arena *a, io_store **store_out)
{
    static const char *const names[] = {"k", "m"};
    const col_type *types[2] = {col_type_primitive(COL_LONG), col_type_primitive(COL_LONG)};
    col_field *f = arena_calloc(a, 2, sizeof(col_field));
    col_builder *b[2];
    col_batch batch;
    pqw_options wo = PQW_OPTIONS_INIT;
    pqw_writer *w = NULL;
    const char *log =
        "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
        "{\"metaData\":{\"id\":\"t\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
        "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
        "{\\\"name\\\":\\\"k\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
        "{\\\"name\\\":\\\"m\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}"
        "]}\",\"partitionColumns\":[],\"configuration\":{}}}\n"
        "{\"add\":{\"path\":\"part-0.parquet\",\"partitionValues\":{},\"size\":1,"
        "\"modificationTime\":1,\"dataChange\":true}}\n";
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    check_ok(io_store_open(&store, test_tmpdir(), 1, &err), &err);
    *store_out = store;
    for (int c = 0; c < 2; c++) {
        f[c].name = names[c];
        f[c].type = types[c];
        f[c].nullable = 1;
        f[c].field_id = -1;
        check_ok(col_builder_new(&b[c], a, types[c], &err), &err);
    }
    for (int64_t r = 0; r < SCAN_TABLE_ROWS; r++) {
        check_ok(col_builder_append_int(b[0], r, &err), &err);
        check_ok(col_builder_append_int(b[1], (r / 50) % 4, &err), &err);
    }
    memset(&batch, 0, sizeof(batch));
    batch.schema = col_type_struct(a, 2, f);
    batch.n_rows = SCAN_TABLE_ROWS;
    batch.n_cols = 2;
    batch.cols = arena_calloc(a, 2, sizeof(col_vec *));
    for (int c = 0; c < 2; c++)
        check_ok(col_builder_finish(b[c], &batch.cols[c], &err), &err);
    wo.page_bytes = 1024;
    wo.dictionary = 0;
    wo.row_group_rows = SCAN_TABLE_RG_ROWS;
    check_ok(pqw_writer_open(&w, store, "part-0.parquet", batch.schema, &wo, &err), &err);
    check_ok(pqw_writer_write_batch(w, &batch, &err), &err);
    check_ok(pqw_writer_close(w, NULL, &err), &err);
    check_ok(io_put(store, "_delta_log/00000000000000000000.json", log, strlen(log), &err), &err);
}

#endif
