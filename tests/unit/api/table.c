/* The public table API (include/silt/table.h). */
#include <stdio.h>
#include <string.h>

#include "io/store.h"
#include "silt.h"
#include "test.h"

static silt_db *db;

void test_api_table__initialize(void)
{
    db = NULL;
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
}

void test_api_table__cleanup(void) { silt_db_close(db); }

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
    check_int(SILT_OK, silt_table_open(&table, db, test_tmpdir(), NULL));
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
    check_int(SILT_OK, silt_table_open(&table, db, test_tmpdir(), &opts));
    check_int(1, silt_table_file_count(table));
    silt_table_close(table);

    opts.version_as_of = 7;
    check_int(SILT_NOTFOUND, silt_table_open(&table, db, test_tmpdir(), &opts));
    check_contains(silt_table_errmsg(table), "Available versions: [0, 1].");
    check_int(-1, silt_table_version(table));
    check_int(0, silt_table_column_count(table));
    silt_table_close(table);

    opts.version = 99;
    check_int(SILT_INVALID, silt_table_open(&table, db, test_tmpdir(), &opts));
    silt_table_close(table);

    check_int(SILT_OK, silt_parse_timestamp("2024-05-01 12:00:00", &micros));
    check_int(SILT_PARSE, silt_parse_timestamp("noon", &micros));
    silt_table_close(NULL);
}

void test_api_table__needs_a_database_and_formats_rows(void)
{
    silt_table *table = NULL;
    write_table();
    check_int(SILT_INVALID, silt_table_open(&table, NULL, test_tmpdir(), NULL));
    check_int(SILT_INVALID, silt_table_errcode(table));
    check_contains(silt_table_errmsg(table), "needs a database");
    silt_table_close(table);
    table = NULL;
    check_int(SILT_OK, silt_table_open(&table, db, test_tmpdir(), NULL));
    check_int(SILT_OK, silt_table_errcode(table));
    check_int(SILT_INVALID, silt_table_format_rows(table, NULL, NULL, NULL));
    check_int(SILT_INVALID, silt_table_errcode(table));
    check_contains(silt_table_errmsg(table), "text callback");
    silt_table_close(table);
}

/* silt_text_fn: appends to a fixed buffer (payload). */
typedef struct text_sink {
    char text[4096];
    size_t len;
    int calls;
} text_sink;

static int to_sink(void *payload, const char *text, size_t len)
{
    text_sink *sink = payload;
    sink->calls++;
    if (sink->len + len >= sizeof(sink->text))
        return 1;
    memcpy(sink->text + sink->len, text, len);
    sink->len += len;
    sink->text[sink->len] = '\0';
    return 0;
}

static int refuse(void *payload, const char *text, size_t len) { return 1; }

void test_api_table__rows_are_formatted_into_the_callback(void)
{
    silt_table *table = NULL;
    silt_output_options out = SILT_OUTPUT_OPTIONS_INIT;
    text_sink sink;
    char path[4096];
    memset(&sink, 0, sizeof(sink));
    snprintf(path, sizeof(path), "%s/conformance/tables/simple_table", test_shared_dir());
    check_int(SILT_OK, silt_table_open(&table, db, path, NULL));
    out.format = SILT_OUTPUT_CSV;
    check_int(SILT_OK, silt_table_format_rows(table, &out, to_sink, &sink));
    check(sink.calls > 0);
    check(strncmp(sink.text, "id\n", 3) == 0);
    check_int(SILT_IO, silt_table_format_rows(table, &out, refuse, NULL));
    check_contains(silt_table_errmsg(table), "could not write the output");
    silt_table_close(table);
}
