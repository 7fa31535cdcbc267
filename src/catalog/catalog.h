/*
 * catalog.h - databases, tables and views of a warehouse, stored
 * transactionally in the warehouse itself.
 *
 * Storage (docs/catalog.md): the catalog is a log of whole-state snapshots,
 * `_silt_catalog/log/<20-digit version>.json`. A change reads the newest
 * state N, applies itself to a copy, and publishes N+1 with put-if-absent;
 * when another process published N+1 first, the change is re-applied to the
 * new state and retried. A state is one file, so a reader sees either all of
 * a change or none of it, and a crash never leaves the catalog half-written.
 *
 * Names of databases and tables are case-insensitive and stored lower-case,
 * as Spark's session catalog does. The database "default" always exists.
 * Managed tables live under the warehouse (`<table>` for the default
 * database, `<db>.db/<table>` otherwise); their location is kept relative to
 * the warehouse root. External tables keep the location they were given.
 */
#ifndef SILT_CATALOG_H
#define SILT_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "io/store.h"
#include "util/arena.h"
#include "util/error.h"

typedef enum cat_table_kind { CAT_MANAGED = 0, CAT_EXTERNAL = 1, CAT_VIEW = 2 } cat_table_kind;

typedef struct cat_property {
    const char *key;
    const char *value;
} cat_property;

typedef struct cat_database {
    const char *name;
    const char *location; /* relative to the warehouse root, or an absolute path/URI */
    const char *comment;  /* NULL when none */
    size_t n_properties;
    cat_property *properties;
    int64_t created_micros;
} cat_database;

typedef struct cat_table {
    const char *database;
    const char *name;
    cat_table_kind kind;
    const char *provider;  /* "delta", "parquet", ... ; NULL for views */
    const char *location;  /* managed: relative to the warehouse; external: as given */
    const char *comment;
    const char *view_text; /* views only: the query */
    size_t n_properties;
    cat_property *properties;
    int64_t created_micros;
} cat_table;

/* An immutable state of the catalog. Everything lives in its arena. */
typedef struct cat_state {
    arena *arena;
    int64_t version; /* -1 before the first commit */
    size_t n_databases;
    cat_database *databases;
    size_t n_tables;
    cat_table *tables;
} cat_state;

typedef struct catalog catalog;

/* Opens the catalog of the warehouse behind store (borrowed; must outlive it). */
silt_status catalog_open(catalog **out, io_store *store, silt_error *err);
void catalog_free(catalog *cat);

/* Loads the newest state. The caller frees it with catalog_state_free. */
silt_status catalog_load(catalog *cat, cat_state **out, silt_error *err);
void catalog_state_free(cat_state *state);

/*
 * A change: modifies `state` (a private copy of the newest state, allocate
 * in state->arena) or fails with an error that is returned as is (e.g.
 * "table already exists"). It may run several times, once per retry, so it
 * must not have side effects outside state.
 */
typedef silt_status (*cat_change_fn)(cat_state *state, void *payload, silt_error *err);

/*
 * Applies a change and publishes it atomically; retries on lost races (up to
 * a bound, then SILT_CONFLICT). On success the new version is in
 * *version_out (may be NULL).
 */
silt_status catalog_commit(catalog *cat, cat_change_fn change, void *payload,
                           int64_t *version_out, silt_error *err);

/* Look-ups (names compared case-insensitively). NULL when absent. */
const cat_database *catalog_state_find_database(const cat_state *state, const char *name);
const cat_table *catalog_state_find_table(const cat_state *state, const char *database,
                                      const char *name);

/* Editing helpers for change functions. Names are lower-cased on the way in. */
silt_status catalog_state_add_database(cat_state *state, const cat_database *db, silt_error *err);
silt_status catalog_state_drop_database(cat_state *state, const char *name, int cascade,
                                    silt_error *err);
silt_status catalog_state_add_table(cat_state *state, const cat_table *table, silt_error *err);
silt_status catalog_state_drop_table(cat_state *state, const char *database, const char *name,
                                 silt_error *err);
/* Replaces the table of the same name (kept in place). */
silt_status catalog_state_replace_table(cat_state *state, const cat_table *table, silt_error *err);

/* Default location of a managed table or a database, relative to the warehouse. */
char *catalog_default_table_location(arena *a, const char *database, const char *table);
char *catalog_default_database_location(arena *a, const char *database);

/*
 * A stored location as a path silt opens: relative ones (managed tables and
 * databases at their default place) are joined to the warehouse root, file:
 * URIs become their path, anything else is returned as it is.
 */
char *catalog_location_path(arena *a, const char *warehouse_root, const char *location);
/* The same as Spark prints it: "file:/abs" for a local path, other URIs as they are. */
char *catalog_location_uri(arena *a, const char *warehouse_root, const char *location);

const char *catalog_table_kind_name(cat_table_kind kind); /* "MANAGED", "EXTERNAL", "VIEW" */

#endif
