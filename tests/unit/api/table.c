/* The public table API (include/silt/table.h). */
#include <string.h>

#include "io/store.h"
#include "silt.h"
#include "test.h"

static void put(io_store *store, const char *key, const char *text)
{
    silt_error err = SILT_ERROR_INIT;
    check_ok(io_put(store, key, text, strlen(text), &err), &err);
}

static void write_table(void)
{
    io_store *store = NULL;
    silt_error err = SILT_ERROR_INIT;
    check_ok(io_store_open(&store, test_tmpdir(), 1, &err), &err);
    put(store, "_delta_log/00000000000000000000.json",
        "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":[\"timestampNtz\"],"
        "\"writerFeatures\":[\"timestampNtz\",\"appendOnly\"]}}\n"
        "{\"metaData\":{\"id\":\"tid\",\"name\":\"sales\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
        "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"d\\\",\\\"type\\\":"
        "\\\"decimal(10,2)\\\",\\\"nullable\\\":false,\\\"metadata\\\":{}},{\\\"name\\\":\\\"p\\\",\\\"type\\\":"
        "\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[\"p\"],"
        "\"configuration\":{\"delta.appendOnly\":\"true\"}}}\n"
        "{\"add\":{\"path\":\"p=a/f.parquet\",\"partitionValues\":{\"p\":\"a\"},\"size\":100,"
        "\"modificationTime\":1,\"dataChange\":true}}\n");
    put(store, "_delta_log/00000000000000000001.json",
        "{\"commitInfo\":{\"inCommitTimestamp\":1}}\n"
        "{\"add\":{\"path\":\"p=b/g.parquet\",\"partitionValues\":{\"p\":\"b\"},\"size\":50,"
        "\"modificationTime\":1,\"dataChange\":true}}\n");
    io_store_free(store);
}

void test_api_table__open_and_describe(void)
{
    silt_table *table = NULL;
    const char *kind = "x";
    write_table();
    check_int(SILT_OK, silt_table_open(&table, test_tmpdir(), NULL));
    check_str("", silt_table_errmsg(table));
    check_int(1, silt_table_version(table));
    check_int(3, silt_table_min_reader_version(table));
    check_int(7, silt_table_min_writer_version(table));
    check_int(1, silt_table_feature_count(table, 0));
    check_str("appendOnly", silt_table_feature(table, 1, 1));
    check(silt_table_feature(table, 1, 2) == NULL);
    check_str("tid", silt_table_id(table));
    check_str("sales", silt_table_name(table));
    check_int(2, silt_table_column_count(table));
    check_str("d", silt_table_column_name(table, 0));
    check_str("decimal(10,2)", silt_table_column_type(table, 0));
    check_int(0, silt_table_column_nullable(table, 0));
    check(silt_table_column_name(table, 2) == NULL);
    check_int(1, silt_table_partition_column_count(table));
    check_str("p", silt_table_partition_column(table, 0));
    check_int(1, silt_table_property_count(table));
    check_str("delta.appendOnly", silt_table_property_key(table, 0));
    check_str("true", silt_table_property_value(table, 0));
    check_int(2, silt_table_file_count(table));
    check_int(150, silt_table_total_bytes(table));
    check_int(-1, silt_table_checkpoint_version(table, &kind));
    check(kind == NULL);
    check_int(-1, silt_table_skipped_checkpoint_version(table));
    silt_table_close(table);
}

void test_api_table__time_travel_and_errors(void)
{
    silt_table *table = NULL;
    silt_table_open_options opts = SILT_TABLE_OPEN_OPTIONS_INIT;
    int64_t micros = 0;
    write_table();
    opts.version_as_of = 0;
    check_int(SILT_OK, silt_table_open(&table, test_tmpdir(), &opts));
    check_int(1, silt_table_file_count(table));
    silt_table_close(table);

    opts.version_as_of = 7;
    check_int(SILT_NOTFOUND, silt_table_open(&table, test_tmpdir(), &opts));
    check_contains(silt_table_errmsg(table), "available versions are 0 to 1");
    check_int(-1, silt_table_version(table));
    check_int(0, silt_table_column_count(table));
    silt_table_close(table);

    opts.version = 99;
    check_int(SILT_INVALID, silt_table_open(&table, test_tmpdir(), &opts));
    silt_table_close(table);

    check_int(SILT_OK, silt_parse_timestamp("2024-05-01 12:00:00", &micros));
    check_int(SILT_PARSE, silt_parse_timestamp("noon", &micros));
    silt_table_close(NULL);
}
