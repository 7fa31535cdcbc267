/*
 * Tests of include/silt/sql.h: databases, connections, Arrow streams of
 * results, printing, errors, and catalog tables by name in a warehouse.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/catalog.h"
#include "io/store.h"
#include "silt.h"
#include "test.h"

/* silt_text_fn: appends the formatted text to the FILE *payload. */
static int to_file(void *payload, const char *text, size_t len)
{
    return fwrite(text, 1, len, (FILE *)payload) == len ? 0 : 1;
}

static silt_db *db;
static silt_conn *conn;

void test_api_sql__initialize(void)
{
    db = NULL;
    conn = NULL;
}

void test_api_sql__cleanup(void)
{
    silt_conn_close(conn);
    silt_db_close(db);
}

static char *table_path(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof(path), "%s/conformance/tables/%s", test_shared_dir(), name);
    return path;
}

void test_api_sql__arrow_stream_of_a_query(void)
{
    struct ArrowArrayStream stream;
    struct ArrowSchema schema;
    struct ArrowArray array;
    char sql[8192];
    int64_t rows = 0, sum = 0;
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    snprintf(sql, sizeof(sql), "SELECT id, id * 2 AS twice FROM delta.`%s` WHERE id > 4",
             table_path("simple_table"));
    check_int(SILT_OK, silt_conn_exec(conn, sql, &stream));
    check(stream.release != NULL);
    check_int(0, stream.get_schema(&stream, &schema));
    check_int(2, schema.n_children);
    check_str("id", schema.children[0]->name);
    check_str("twice", schema.children[1]->name);
    check_str("l", schema.children[1]->format);
    schema.release(&schema);
    for (;;) {
        int64_t idx;
        check_int(0, stream.get_next(&stream, &array));
        if (array.release == NULL)
            break;
        check_int(2, array.n_children);
        for (idx = 0; idx < array.length; idx++)
            sum += ((const int64_t *)array.children[1]->buffers[1])[idx + array.children[1]->offset];
        rows += array.length;
        array.release(&array);
    }
    stream.release(&stream);
    check_int(3, rows);       /* ids 5, 7, 9 remain at the latest version */
    check_int(42, sum);
}

void test_api_sql__errors_are_kept_on_the_connection(void)
{
    struct ArrowArrayStream stream;
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    check_int(SILT_BIND, silt_conn_exec(conn, "SELECT 1 AS a;\nSELECT b FROM (SELECT 1 AS a)",
                                        &stream));
    check(stream.release == NULL);
    check_contains(silt_conn_errmsg(conn), "[UNRESOLVED_COLUMN.WITH_SUGGESTION]");
    check_contains(silt_conn_errmsg(conn), "(line 2, column 8)");
    check_int(SILT_PARSE, silt_conn_exec(conn, "SELEC 1", NULL));
    check_contains(silt_conn_errmsg(conn), "PARSE_SYNTAX_ERROR");
    check_int(SILT_OK, silt_conn_exec(conn, "SELECT 1", NULL));
    check_str("", silt_conn_errmsg(conn));
    check_int(SILT_INVALID, silt_conn_exec(NULL, "SELECT 1", NULL));
}

void test_api_sql__print_shows_every_result(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    silt_output_options opts = SILT_OUTPUT_OPTIONS_INIT;
    check(mem != NULL);
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    opts.format = SILT_OUTPUT_CSV;
    check_int(SILT_OK, silt_conn_format(conn, "CREATE TEMPORARY VIEW v AS SELECT 2 AS x; "
                                              "SELECT x + 1 AS y FROM v; SELECT 'a' AS z", &opts,
                                        to_file, mem));
    fclose(mem);
    check_str("y\n3\nz\na\n", text);
    free(text);
}

void test_api_sql__format_vertical(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    silt_output_options opts = SILT_OUTPUT_OPTIONS_INIT;
    silt_output_format parsed;
    check(mem != NULL);
    check_int(SILT_OK, silt_output_format_parse("vertical", &parsed));
    check_int(SILT_OUTPUT_VERTICAL, parsed);
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    opts.format = SILT_OUTPUT_VERTICAL;
    opts.max_rows = 1;
    check_int(SILT_OK, silt_conn_format(conn, "SELECT id, 'x' AS s FROM range(3)", &opts,
                                        to_file, mem));
    fclose(mem);
    check_str("-RECORD 0--\n id  | 0   \n s   | x   \nonly showing top 1 row\n", text);
    free(text);
}

static silt_status add_trips(cat_state *state, void *payload, silt_error *e)
{
    cat_table table;
    memset(&table, 0, sizeof(table));
    table.database = "default";
    table.name = "trips";
    table.kind = CAT_EXTERNAL;
    table.provider = "delta";
    table.location = payload;
    return catalog_state_add_table(state, &table, e);
}

void test_api_sql__catalog_tables_by_name(void)
{
    char warehouse[] = "/tmp/silt-api-sql-XXXXXX";
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    catalog *cat = NULL;
    struct ArrowArrayStream stream;
    struct ArrowArray array;
    check(mkdtemp(warehouse) != NULL);
    check_ok(io_store_open(&store, warehouse, 0, &err), &err);
    check_ok(catalog_open(&cat, store, &err), &err);
    check_ok(catalog_commit(cat, add_trips, table_path("simple_table"), NULL, &err), &err);
    catalog_free(cat);
    io_store_free(store);

    check_int(SILT_OK, silt_db_open(&db, warehouse, NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    check_int(SILT_OK, silt_conn_exec(conn, "SELECT count(*) FROM default.trips t WHERE t.id >= 7",
                                      &stream));
    check_int(0, stream.get_next(&stream, &array));
    check_int(1, array.length);
    check_int(2, ((const int64_t *)array.children[0]->buffers[1])[0]);
    array.release(&array);
    stream.release(&stream);
    check_int(SILT_OK, silt_conn_exec(conn, "USE default; SELECT max(id) FROM TRIPS VERSION AS OF 0",
                                      NULL));
    {
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        silt_output_options opts = SILT_OUTPUT_OPTIONS_INIT;
        opts.format = SILT_OUTPUT_CSV;
        check(mem != NULL);
        check_int(SILT_OK, silt_conn_format(conn, "SHOW TABLES; DESCRIBE trips", &opts, to_file, mem));
        fclose(mem);
        check_str("namespace,tableName,isTemporary\ndefault,trips,false\n"
                  "col_name,data_type,comment\nid,bigint,\n", text);
        free(text);
    }
    check_int(SILT_NOTFOUND, silt_conn_exec(conn, "SELECT * FROM default.nope", NULL));
    check_contains(silt_conn_errmsg(conn), "[TABLE_OR_VIEW_NOT_FOUND]");
    check_int(SILT_NOTFOUND, silt_conn_exec(conn, "USE nodb", NULL));
    check_contains(silt_conn_errmsg(conn), "[SCHEMA_NOT_FOUND]");
}

void test_api_sql__open_fails_on_a_warehouse_that_is_not_a_folder(void)
{
    check(silt_db_open(&db, "/dev/null", NULL) != SILT_OK);
    check(db != NULL);
    check_contains(silt_db_errmsg(db), "is not a folder");
}

/* Spark creates a missing warehouse folder (spark-warehouse) rather than failing. */
void test_api_sql__open_creates_a_missing_warehouse(void)
{
    char root[] = "/tmp/silt-api-wh-XXXXXX";
    char path[128];
    struct stat st;
    check(mkdtemp(root) != NULL);
    snprintf(path, sizeof(path), "%s/new/warehouse", root);
    check_int(SILT_OK, silt_db_open(&db, path, NULL));
    check(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

void test_api_sql__structured_errors(void)
{
    int64_t offset;
    int line, column;
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    check_int(SILT_OK, silt_conn_errcode(conn));
    check_str("", silt_conn_error_class(conn));
    check_int(0, silt_conn_error_position(conn, &offset, &line, &column));
    check_int(-1, offset);

    /* A run-time error on the data has its own status, class and position. */
    check_int(SILT_RUNTIME, silt_conn_exec(conn, "SELECT 1;\nSELECT 2, 10 / (id - 3) FROM range(5)",
                                           NULL));
    check_int(SILT_RUNTIME, silt_conn_errcode(conn));
    check_str("DIVIDE_BY_ZERO", silt_conn_error_class(conn));
    check_contains(silt_conn_error_message(conn), "[DIVIDE_BY_ZERO] division by zero");
    check(strchr(silt_conn_error_message(conn), '\n') == NULL);
    check_contains(silt_conn_errmsg(conn), "HINT: ");
    check_int(1, silt_conn_error_position(conn, &offset, &line, &column));
    check_int(2, line);
    check_int(11, column);
    check_int(20, offset); /* "SELECT 1;\n" is 10 bytes, "10 / ..." starts 10 further */

    check_int(SILT_PARSE, silt_conn_exec(conn, "SELECT 1;\n  SELEC 2", NULL));
    check_str("PARSE_SYNTAX_ERROR", silt_conn_error_class(conn));
    check_int(1, silt_conn_error_position(conn, &offset, &line, &column));
    check_int(2, line);
    check_int(3, column);
    check_int(12, offset);

    check_int(SILT_NOTFOUND, silt_conn_exec(conn, "SELECT * FROM no_such_table", NULL));
    check_str("TABLE_OR_VIEW_NOT_FOUND", silt_conn_error_class(conn));
    check_int(1, silt_conn_error_position(conn, NULL, &line, &column));
    check_int(1, line);
    check_int(15, column);

    check_int(SILT_RUNTIME, silt_conn_exec(conn, "SELECT CAST('x' AS INT)", NULL));
    check_str("CAST_INVALID_INPUT", silt_conn_error_class(conn));

    /* API misuse stays SILT_INVALID, with a message but no class. */
    check_int(SILT_INVALID, silt_conn_exec(conn, NULL, NULL));
    check_int(SILT_INVALID, silt_conn_errcode(conn));
    check_str("", silt_conn_error_class(conn));
    check_contains(silt_conn_errmsg(conn), "needs a statement");
    check_int(0, silt_conn_error_position(conn, NULL, NULL, NULL));

    check_int(SILT_OK, silt_conn_exec(conn, "SELECT 1", NULL));
    check_int(SILT_OK, silt_conn_errcode(conn));
    check_str("", silt_conn_error_message(conn));
    check_int(SILT_OK, silt_db_errcode(db));
    check_str("", silt_db_error_class(db));
}

/* silt_db_options as options version 1 laid it out. */
typedef struct db_options_v1 {
    unsigned version;
    int n_threads;
} db_options_v1;

void test_api_sql__old_db_options_and_versions(void)
{
    db_options_v1 *v1 = calloc(1, sizeof(*v1)); /* exactly version 1's size (ASan checks) */
    silt_db_options future = SILT_DB_OPTIONS_INIT;
    struct ArrowArrayStream stream;
    check(v1 != NULL);
    v1->version = 1;
    v1->n_threads = 2;
    check_int(SILT_OK, silt_db_open(&db, NULL, (const silt_db_options *)v1));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    check_int(SILT_OK, silt_conn_exec(conn, "SELECT sum(id) FROM range(100000)", &stream));
    stream.release(&stream);
    silt_conn_close(conn);
    conn = NULL;
    silt_db_close(db);
    db = NULL;
    free(v1);

    future.version = SILT_DB_OPTIONS_VERSION + 1;
    check_int(SILT_INVALID, silt_db_open(&db, NULL, &future));
    check_int(SILT_INVALID, silt_db_errcode(db));
    check_contains(silt_db_errmsg(db), "database options have version 3; this library takes "
                                       "versions 1 to 2");
    silt_db_close(db);
    db = NULL;

    {
        silt_output_options out = SILT_OUTPUT_OPTIONS_INIT;
        check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
        check_int(SILT_OK, silt_conn_open(&conn, db));
        out.version = 0;
        check_int(SILT_INVALID, silt_conn_format(conn, "SELECT 1", &out, to_file, stdout));
        check_contains(silt_conn_errmsg(conn), "output options have version 0");
    }
}

void test_api_sql__store_options_are_refused_by_name(void)
{
    silt_option given[1] = {{"fs.s3a.acess.key", "AKIA"}};
    silt_db_options opts = SILT_DB_OPTIONS_INIT;
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
    /* The S3 back end's keys are taken, under both spellings; others are refused by name. */
    check_int(SILT_OK, silt_db_set_option(db, "fs.s3a.endpoint", "http://localhost:9000"));
    check_int(SILT_OK, silt_db_set_option(db, "spark.hadoop.fs.s3a.path.style.access", "true"));
    check_int(SILT_OK, silt_db_set_option(db, "fs.s3a.bucket.my.bucket.access.key", "AKIA"));
    check_int(SILT_INVALID, silt_db_set_option(db, "azure.account.key", "x"));
    check_contains(silt_db_errmsg(db), "store option \"azure.account.key\" is not known");
    check_contains(silt_db_errmsg(db), "the Azure store fs.azure.* keys");
    /* The Azure and GCS back ends' keys (Hadoop ABFS and GCS connector names). */
    check_int(SILT_OK, silt_db_set_option(db, "fs.azure.account.key.acct.blob.core.windows.net",
                                          "a2V5"));
    check_int(SILT_OK, silt_db_set_option(db, "spark.hadoop.fs.gs.storage.root.url",
                                          "http://127.0.0.1:4443"));
    check_int(SILT_INVALID, silt_db_set_option(db, "fs.azure.acount.key", "x"));
    check_contains(silt_db_errmsg(db), "store option \"fs.azure.acount.key\" is not known");
    check_int(SILT_INVALID, silt_db_set_option(db, "fs.gs.http.max.retry", "many"));
    check_contains(silt_db_errmsg(db), "expected a count from 0 to 100");
    check_int(SILT_INVALID, silt_db_set_option(db, "fs.azure.write.request.size", "1k"));
    check_contains(silt_db_errmsg(db), "a size of 64k or more");
    check_int(SILT_INVALID, silt_db_set_option(db, "fs.s3a.multipart.size", "1k"));
    check_contains(silt_db_errmsg(db), "expected a size from 5M to 5G");
    check_int(SILT_INVALID, silt_db_set_option(db, "fs.s3a.path.style.access", "yes"));
    check_contains(silt_db_errmsg(db), "expected true or false");
    check_int(SILT_INVALID, silt_db_set_option(db, "fs.s3a.retry.interval", "soon"));
    check_int(SILT_INVALID, silt_db_set_option(db, NULL, "x"));
    check_int(SILT_INVALID, silt_db_set_option(NULL, "k", "v"));
    silt_db_close(db);
    db = NULL;
    opts.store_options = given;
    opts.n_store_options = 1;
    check_int(SILT_INVALID, silt_db_open(&db, NULL, &opts));
    check_contains(silt_db_error_message(db), "store option \"fs.s3a.acess.key\" is not known");
    check_contains(silt_db_error_message(db), "the S3 store acts on fs.s3a.access.key");
}

/* silt_conn_set_read_only: writes and catalog changes are refused, reads and temp views run. */
void test_api_sql__read_only_connection(void)
{
    check_int(SILT_OK, silt_db_open(&db, test_tmpdir(), NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    check_int(SILT_OK, silt_conn_exec(conn, "CREATE TABLE t USING delta AS SELECT 1 AS id", NULL));
    silt_conn_set_read_only(conn, 1);
    check_int(SILT_INVALID, silt_conn_exec(conn, "INSERT INTO t VALUES (2)", NULL));
    check_contains(silt_conn_error_message(conn), "in a read-only session");
    check_int(SILT_INVALID, silt_conn_exec(conn, "DROP TABLE t", NULL));
    check_int(SILT_INVALID, silt_conn_exec(conn, "CREATE VIEW v AS SELECT 1", NULL));
    check_int(SILT_OK, silt_conn_exec(conn, "CREATE TEMPORARY VIEW tv AS SELECT * FROM t", NULL));
    check_int(SILT_OK, silt_conn_exec(conn, "SELECT count(*) FROM tv", NULL));
    silt_conn_set_read_only(conn, 0);
    check_int(SILT_OK, silt_conn_exec(conn, "INSERT INTO t VALUES (2)", NULL));
}

/* silt_conn_set_databases: tables and views of other databases refused, through views too. */
void test_api_sql__database_limit(void)
{
    static const char *const only[] = {"default"};
    check_int(SILT_OK, silt_db_open(&db, test_tmpdir(), NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    check_int(SILT_OK, silt_conn_exec(conn, "CREATE DATABASE other; CREATE TABLE other.t (a INT) "
                                            "USING delta; CREATE TABLE t (a INT) USING delta; "
                                            "CREATE VIEW v AS SELECT * FROM other.t", NULL));
    check_int(SILT_OK, silt_conn_set_databases(conn, only, 1));
    check_int(SILT_OK, silt_conn_exec(conn, "SELECT count(*) FROM t", NULL));
    check_int(SILT_INVALID, silt_conn_exec(conn, "SELECT count(*) FROM other.t", NULL));
    check_contains(silt_conn_error_message(conn), "permission denied for database \"other\"");
    check_int(SILT_INVALID, silt_conn_exec(conn, "SELECT count(*) FROM v", NULL));
    check_int(SILT_INVALID, silt_conn_exec(conn, "INSERT INTO other.t VALUES (1)", NULL));
    check_int(SILT_OK, silt_conn_set_databases(conn, NULL, 0));
    check_int(SILT_OK, silt_conn_exec(conn, "SELECT count(*) FROM v", NULL));
}

/* silt_conn_rows_written: the running total of rows INSERT committed (the server's INSERT 0 n). */
void test_api_sql__rows_written(void)
{
    check_int(SILT_OK, silt_db_open(&db, test_tmpdir(), NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    check(silt_conn_rows_written(conn) == 0);
    check_int(SILT_OK, silt_conn_exec(conn, "CREATE TABLE t (a INT) USING delta", NULL));
    check_int(SILT_OK, silt_conn_exec(conn, "INSERT INTO t VALUES (1), (2), (3)", NULL));
    check(silt_conn_rows_written(conn) == 3);
    check_int(SILT_OK, silt_conn_exec(conn, "INSERT INTO t SELECT id FROM range(10)", NULL));
    check(silt_conn_rows_written(conn) == 13);
    /* UPDATE and DELETE report theirs in their result, not here; a failed INSERT adds none */
    check_int(SILT_OK, silt_conn_exec(conn, "DELETE FROM t WHERE a = 1", NULL));
    check(silt_conn_rows_written(conn) == 13);
    check(silt_conn_exec(conn, "INSERT INTO t VALUES (1, 2)", NULL) != SILT_OK);
    check(silt_conn_rows_written(conn) == 13);
    check(silt_conn_rows_written(NULL) == 0);
}

/* The change data feed is a query: table_changes through silt_conn_exec (docs/cdf.md). */
void test_api_sql__change_data_feed(void)
{
    struct ArrowArrayStream stream;
    struct ArrowSchema schema;
    struct ArrowArray array;
    char sql[8192];
    int64_t rows = 0, deletes = 0;
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    snprintf(sql, sizeof(sql), "SELECT * FROM table_changes_by_path('%s', 0, 4)",
             table_path("cdf-table-with-dv"));
    check_int(SILT_OK, silt_conn_exec(conn, sql, &stream));
    check_int(0, stream.get_schema(&stream, &schema));
    check_int(4, schema.n_children);
    check_str("value", schema.children[0]->name);
    check_str("_change_type", schema.children[1]->name);
    check_str("_commit_version", schema.children[2]->name);
    check_str("l", schema.children[2]->format);
    check_str("_commit_timestamp", schema.children[3]->name);
    check(strncmp(schema.children[3]->format, "tsu:", 4) == 0);
    schema.release(&schema);
    for (;;) {
        check_int(0, stream.get_next(&stream, &array));
        if (array.release == NULL)
            break;
        rows += array.length;
        array.release(&array);
    }
    stream.release(&stream);
    check_int(20, rows); /* inserts and deletes of the deletion vector updates, versions 0..4 */
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM table_changes_by_path('%s', 0, 4) "
             "WHERE _change_type = 'delete'", table_path("cdf-table-with-dv"));
    check_int(SILT_OK, silt_conn_exec(conn, sql, &stream));
    check_int(0, stream.get_next(&stream, &array));
    deletes = ((const int64_t *)array.children[0]->buffers[1])[array.children[0]->offset];
    array.release(&array);
    stream.release(&stream);
    check_int(6, deletes);
    /* A start after the latest version: Delta's error class on the connection. */
    snprintf(sql, sizeof(sql), "SELECT * FROM table_changes_by_path('%s', 99)",
             table_path("cdf-table-with-dv"));
    check(silt_conn_exec(conn, sql, NULL) != SILT_OK);
    check_str("DELTA_INVALID_CDC_RANGE", silt_conn_error_class(conn));
}
