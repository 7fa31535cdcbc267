/*
 * Tests of include/silt/sql.h: databases, connections, Arrow streams of
 * results, printing, errors, and catalog tables by name in a warehouse.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "io/store.h"
#include "silt.h"
#include "test.h"

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
    check_int(SILT_OK, silt_conn_print(conn, "CREATE TEMPORARY VIEW v AS SELECT 2 AS x; "
                                             "SELECT x + 1 AS y FROM v; SELECT 'a' AS z", mem,
                                       &opts));
    fclose(mem);
    check_str("y\n3\nz\na\n", text);
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
    return cat_state_add_table(state, &table, e);
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
        check_int(SILT_OK, silt_conn_print(conn, "SHOW TABLES; DESCRIBE trips", mem, &opts));
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
    check(silt_db_open(&db, "/nonexistent/warehouse/x", NULL) != SILT_OK);
    check(db != NULL);
    check(strlen(silt_db_errmsg(db)) > 0);
}
