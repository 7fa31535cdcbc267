/* Unit tests of the warehouse catalog: changes, persistence, races, corruption. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "test.h"

static io_store *store;
static catalog *cat;
static silt_error err;

void test_catalog_catalog__initialize(void)
{
    err_clear(&err);
    check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
    check_ok(catalog_open(&cat, store, &err), &err);
}

void test_catalog_catalog__cleanup(void)
{
    catalog_free(cat);
    io_store_free(store);
}

typedef struct add_table_args {
    const char *database;
    const char *name;
    cat_table_kind kind;
    const char *location;
} add_table_args;

static silt_status add_table(cat_state *state, void *payload, silt_error *e)
{
    add_table_args *args = payload;
    cat_table table;
    cat_property prop = {"delta.appendOnly", "false"};
    memset(&table, 0, sizeof(table));
    table.database = args->database;
    table.name = args->name;
    table.kind = args->kind;
    table.provider = "DELTA";
    table.location = args->location ? args->location
                                    : catalog_default_table_location(state->arena, args->database,
                                                                 args->name);
    table.n_properties = 1;
    table.properties = &prop;
    return catalog_state_add_table(state, &table, e);
}

static silt_status add_database(cat_state *state, void *payload, silt_error *e)
{
    cat_database db;
    memset(&db, 0, sizeof(db));
    db.name = payload;
    return catalog_state_add_database(state, &db, e);
}

static silt_status drop_table(cat_state *state, void *payload, silt_error *e)
{
    return catalog_state_drop_table(state, "default", payload, e);
}

void test_catalog_catalog__fresh_warehouse_has_default_database(void)
{
    cat_state *state = NULL;
    check_ok(catalog_load(cat, &state, &err), &err);
    check_int(-1, state->version);
    check_int(1, state->n_databases);
    check_str("default", state->databases[0].name);
    check(catalog_state_find_database(state, "DEFAULT") != NULL);
    catalog_state_free(state);
}

void test_catalog_catalog__tables_persist_across_opens(void)
{
    add_table_args managed = {"default", "Trips", CAT_MANAGED, NULL};
    add_table_args external = {"sales", "orders", CAT_EXTERNAL, "/data/orders"};
    cat_state *state = NULL;
    const cat_table *t;
    int64_t version = -1;
    catalog *again = NULL;
    check_ok(catalog_commit(cat, add_table, &managed, &version, &err), &err);
    check_int(0, version);
    check_fails(SILT_NOTFOUND, catalog_commit(cat, add_table, &external, NULL, &err));
    check_contains(err.message, "SCHEMA_NOT_FOUND");
    check_ok(catalog_commit(cat, add_database, "Sales", &version, &err), &err);
    check_ok(catalog_commit(cat, add_table, &external, &version, &err), &err);
    check_int(2, version);

    check_ok(catalog_open(&again, store, &err), &err);
    check_ok(catalog_load(again, &state, &err), &err);
    check_int(2, state->version);
    t = catalog_state_find_table(state, "default", "TRIPS");
    check(t != NULL);
    check_str("trips", t->name);
    check_str("trips", t->location);
    check_str("delta", t->provider);
    check_int(CAT_MANAGED, t->kind);
    check_int(1, t->n_properties);
    check_str("delta.appendOnly", t->properties[0].key);
    t = catalog_state_find_table(state, "sales", "orders");
    check(t != NULL);
    check_str("EXTERNAL", catalog_table_kind_name(t->kind));
    check_str("/data/orders", t->location);
    check_str("sales.db", catalog_state_find_database(state, "sales")->location);
    catalog_state_free(state);
    catalog_free(again);
}

void test_catalog_catalog__duplicates_and_missing_are_named_errors(void)
{
    add_table_args managed = {"default", "t", CAT_MANAGED, NULL};
    check_ok(catalog_commit(cat, add_table, &managed, NULL, &err), &err);
    check_fails(SILT_EXISTS, catalog_commit(cat, add_table, &managed, NULL, &err));
    check_contains(err.message, "TABLE_OR_VIEW_ALREADY_EXISTS");
    check_fails(SILT_EXISTS, catalog_commit(cat, add_database, "default", NULL, &err));
    check_ok(catalog_commit(cat, drop_table, "T", NULL, &err), &err);
    check_fails(SILT_NOTFOUND, catalog_commit(cat, drop_table, "t", NULL, &err));
    check_contains(err.message, "TABLE_OR_VIEW_NOT_FOUND");
    check_fails(SILT_INVALID, catalog_commit(cat, add_database, "a/b", NULL, &err));
}

static silt_status drop_database(cat_state *state, void *payload, silt_error *e)
{
    return catalog_state_drop_database(state, "sales", payload != NULL, e);
}

void test_catalog_catalog__drop_database_needs_cascade_when_not_empty(void)
{
    add_table_args t = {"sales", "orders", CAT_MANAGED, NULL};
    cat_state *state = NULL;
    check_ok(catalog_commit(cat, add_database, "sales", NULL, &err), &err);
    check_ok(catalog_commit(cat, add_table, &t, NULL, &err), &err);
    check_fails(SILT_INVALID, catalog_commit(cat, drop_database, NULL, NULL, &err));
    check_contains(err.message, "SCHEMA_NOT_EMPTY");
    check_ok(catalog_commit(cat, drop_database, "cascade", NULL, &err), &err);
    check_ok(catalog_load(cat, &state, &err), &err);
    check(catalog_state_find_database(state, "sales") == NULL);
    check_int(0, state->n_tables);
    catalog_state_free(state);
}

void test_catalog_catalog__corrupt_state_is_reported(void)
{
    cat_state *state = NULL;
    check_ok(io_put(store, "_silt_catalog/log/00000000000000000000.json", "{\"databases\":", 13,
                    &err), &err);
    check_fails(SILT_CORRUPT, catalog_load(cat, &state, &err));
    check_contains(err.context, "catalog version 0");
    check_ok(io_put(store, "_silt_catalog/log/00000000000000000000.json",
                    "{\"databases\":[],\"tables\":[{\"database\":\"default\",\"name\":\"x\","
                    "\"type\":\"WEIRD\"}]}", 77, &err), &err);
    check_fails(SILT_CORRUPT, catalog_load(cat, &state, &err));
    check_contains(err.message, "WEIRD");
}

#define WRITERS 8

void test_catalog_catalog__concurrent_writers_lose_nothing(void)
{
    pid_t pids[WRITERS];
    int idx;
    cat_state *state = NULL;
    const char *root = test_tmpdir();
    for (idx = 0; idx < WRITERS; idx++) {
        pids[idx] = fork();
        check(pids[idx] >= 0);
        if (pids[idx] == 0) {
            io_store *s = NULL;
            catalog *c = NULL;
            silt_error e = SILT_ERROR_INIT;
            char name[32];
            int table;
            if (io_store_open(&s, root, 0, &e) != SILT_OK || catalog_open(&c, s, &e) != SILT_OK)
                _exit(2);
            for (table = 0; table < 5; table++) {
                add_table_args args = {"default", name, CAT_MANAGED, NULL};
                snprintf(name, sizeof(name), "t_%d_%d", idx, table);
                if (catalog_commit(c, add_table, &args, NULL, &e) != SILT_OK)
                    _exit(3);
            }
            _exit(0);
        }
    }
    for (idx = 0; idx < WRITERS; idx++) {
        int status = 0;
        check(waitpid(pids[idx], &status, 0) == pids[idx]);
        check(WIFEXITED(status));
        check_int(0, WEXITSTATUS(status));
    }
    check_ok(catalog_load(cat, &state, &err), &err);
    check_int(WRITERS * 5, state->n_tables);
    check_int(WRITERS * 5 - 1, state->version);
    catalog_state_free(state);
}
