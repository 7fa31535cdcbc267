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

/*
 * A run of branch-local commits of a table (docs/branches.md): versions after
 * the previous run (or the fork) up to `last`, kept in
 * `_delta_log/_staged_commits/<id>/`.
 */
typedef struct cat_segment {
    const char *id;
    int64_t last;
} cat_segment;

typedef struct cat_table {
    const char *database;
    const char *name;
    cat_table_kind kind;
    const char *provider;  /* "delta", "parquet", ... ; NULL for views */
    const char *location;  /* managed: relative to the warehouse; external: as given */
    const char *comment;
    const char *view_text; /* views only: the query */
    /* views only: what Spark keeps of a view besides its text, as a JSON object
     * (sql's exec_view.c: columns, their types and comments, the namespace) */
    const char *view_schema;
    size_t n_properties;
    cat_property *properties;
    int64_t created_micros;
    /*
     * The table's Delta state on a branch or tag (docs/branches.md). On main
     * on_ref is 0: the table is its `_delta_log/` as any Delta reader sees it.
     * Elsewhere: versions up to fork come from `_delta_log/` (-1: the table
     * was created off main), later ones from the segments, and the
     * reference reads version pin (-1: the newest there is).
     */
    int on_ref;
    int64_t fork;
    int64_t pin;
    size_t n_segments;
    cat_segment *segments;
} cat_table;

/*
 * T-SQL's database-scoped objects (docs/serverless.md): an external data
 * source (property LOCATION) or an external file format (FORMAT_TYPE and
 * its FORMAT_OPTIONS.*), kept as they were written, keys upper-case.
 */
typedef enum cat_object_kind { CAT_DATA_SOURCE = 0, CAT_FILE_FORMAT = 1 } cat_object_kind;

typedef struct cat_object {
    const char *database;
    const char *name;
    cat_object_kind kind;
    size_t n_properties;
    cat_property *properties;
    int64_t created_micros;
} cat_object;

typedef enum cat_ref_type { CAT_REF_BRANCH = 0, CAT_REF_TAG = 1 } cat_ref_type;

/* What a reference commit records (SHOW LOG). */
typedef struct cat_commit_info {
    const char *parent;  /* hash of the previous commit of the reference, NULL for the first */
    const char *author;
    const char *message;
    int64_t time_ms;
    size_t n_touched;
    const char **touched; /* "db.table" names the commit changed */
} cat_commit_info;

/*
 * A Delta commit a MERGE BRANCH published into main's catalog but may not
 * have copied into the table's log yet (docs/branches.md, "Merging"): the
 * bytes of `source` (a key under the table's root) become
 * `_delta_log/<version>.json` with put-if-absent.
 */
typedef struct cat_pending {
    const char *table;    /* "db.t", for messages */
    const char *location; /* as the catalog stores it */
    int64_t version;
    const char *source;
} cat_pending;

/*
 * Main only: how far a branch's table is already in main (docs/branches.md,
 * "Merging"): version `tip` of the table on branch `branch` (while its
 * reference id is `id`) became main's version `main`. The next merge of the
 * branch judges only what came after tip, from main's version main, even
 * when the branch could not start again from main (it took commits while
 * being merged, or the merger died before) or two merges of it raced.
 */
typedef struct cat_merged {
    const char *branch, *id, *table; /* table: "db.t" */
    int64_t tip, main;
} cat_merged;

/* An immutable state of the catalog. Everything lives in its arena. */
typedef struct cat_state {
    arena *arena;
    int64_t version; /* -1 before the first commit */
    /* The reference this state is the head (or a commit) of. */
    const char *ref_name; /* "main" for the warehouse's own log */
    cat_ref_type ref_type;
    /* NULL on main; else the id of the reference's own segments, new on CREATE and ASSIGN */
    const char *ref_id;
    int64_t base_version; /* the main catalog version the reference was made from (-1: none) */
    char hash[65];        /* SHA-256 of the published state file */
    int dropped;          /* a reference's tombstone: DROP BRANCH/TAG */
    /* what the next commit records; a change function may set message */
    cat_commit_info commit;
    size_t n_databases;
    cat_database *databases;
    size_t n_tables;
    cat_table *tables;
    size_t n_objects; /* "externalObjects" in the state file; absent in older ones */
    cat_object *objects;
    /* main only: a merge's commits still to copy (finished by the next load or commit) */
    size_t n_pending;
    cat_pending *pending;
    size_t n_merged;
    cat_merged *merged;
} cat_state;

typedef struct catalog catalog;

/* Opens the store of a table's folder (a merge's pending copies: catalog_finish_pending). */
typedef silt_status (*cat_store_open_fn)(void *payload, const char *location, io_store **out,
                                         silt_error *err);

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

/* External data sources and file formats (names compared case-insensitively). */
const cat_object *catalog_state_find_object(const cat_state *state, cat_object_kind kind,
                                            const char *database, const char *name);
/* SILT_EXISTS when one of that kind and name is in the database already. */
silt_status catalog_state_add_object(cat_state *state, const cat_object *obj, silt_error *err);
/* SILT_NOTFOUND when there is none. */
silt_status catalog_state_drop_object(cat_state *state, cat_object_kind kind,
                                      const char *database, const char *name, silt_error *err);
/* The value of key in obj (compared exactly), NULL when absent. */
const char *catalog_object_property(const cat_object *obj, const char *key);
const char *catalog_object_kind_name(cat_object_kind kind); /* "EXTERNAL DATA SOURCE", ... */

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

/* ---- references: branches and tags (docs/branches.md) --------------------------------- */

#define CATALOG_MAIN "main"

/*
 * Makes ref (NULL or "main": the warehouse's own catalog) the reference
 * that catalog_load and catalog_commit use from now on, at its head or,
 * with hash, at that commit of it (read-only then). SILT_NOTFOUND when the
 * reference or the hash does not exist.
 */
silt_status catalog_use_ref(catalog *cat, const char *ref, const char *hash, silt_error *err);
/* The reference in use ("main" by default) and its pinned hash (NULL: the head). */
const char *catalog_current_ref(const catalog *cat);
const char *catalog_current_hash(const catalog *cat);

/* Loads a reference's head (hash NULL) or one of its commits. NULL ref: the one in use. */
silt_status catalog_load_ref(catalog *cat, const char *ref, const char *hash, cat_state **out,
                             silt_error *err);
/* Version `version` of a reference's log (main: -1 is the empty initial state). */
silt_status catalog_load_version(catalog *cat, const char *ref, int64_t version, cat_state **out,
                                 silt_error *err);
/* catalog_commit on a named reference (a branch; tags and main-at-a-hash are read-only). */
silt_status catalog_commit_ref(catalog *cat, const char *ref, cat_change_fn change,
                               void *payload, int64_t *version_out, silt_error *err);

/*
 * The newest version of the Delta table at a catalog location, -1 when it
 * has no log yet: a new reference pins every table of main at it, so the
 * reference keeps reading what main had when it was made.
 */
typedef silt_status (*cat_pin_fn)(const cat_table *table, int64_t *version, void *payload,
                                  silt_error *err);

/*
 * CREATE BRANCH|TAG name FROM from [AT hash]: a new reference whose first
 * commit is from's state (main's tables pinned through pin_fn). SILT_EXISTS
 * when the name is taken (nothing done with if_not_exists: *created 0).
 * The new head is returned in *out (free it) when out is not NULL.
 */
silt_status catalog_ref_create(catalog *cat, cat_ref_type type, const char *name,
                               const char *from, const char *hash, int if_not_exists,
                               cat_pin_fn pin_fn, void *pin_payload, int *created,
                               cat_state **out, silt_error *err);
/* DROP BRANCH|TAG: SILT_NOTFOUND when there is none of that type (nothing with if_exists). */
silt_status catalog_ref_drop(catalog *cat, cat_ref_type type, const char *name, int if_exists,
                             silt_error *err);
/* ASSIGN BRANCH|TAG name TO to [AT hash]: name's head becomes to's state. */
silt_status catalog_ref_assign(catalog *cat, cat_ref_type type, const char *name,
                               const char *to, const char *hash, cat_pin_fn pin_fn,
                               void *pin_payload, cat_state **out, silt_error *err);

typedef struct cat_ref_info {
    const char *name;
    cat_ref_type type;
    char hash[65];
} cat_ref_info;

/* Every reference, main included, sorted by name; in arena a. */
silt_status catalog_ref_list(catalog *cat, arena *a, cat_ref_info **out, size_t *n_out,
                             silt_error *err);

typedef struct cat_log_entry {
    char hash[65];
    cat_commit_info commit;
    int64_t version;
} cat_log_entry;

/* A reference's commits, newest first; in arena a. */
silt_status catalog_ref_log(catalog *cat, const char *ref, arena *a, cat_log_entry **out,
                            size_t *n_out, silt_error *err);

/* The record of how far branch's table db.t (at reference id) is in main; NULL: none. */
const cat_merged *catalog_state_find_merged(const cat_state *state, const char *branch,
                                            const char *id, const char *table);
/* Records (or moves) it; the branch's records under other ids are dropped. */
silt_status catalog_state_set_merged(cat_state *state, const cat_merged *m, silt_error *err);

/* Sets a change's pending commits (copied into state's arena). */
silt_status catalog_state_set_pending(cat_state *state, const cat_pending *items, size_t n,
                                      silt_error *err);
/*
 * Finishes a merge main's head records as pending: copies each commit into
 * its table's log (put-if-absent; a copy already there with the same bytes
 * counts as done) and publishes main's next state without them. Loading or
 * committing main does this first, so a merge killed after its catalog
 * commit is completed by whoever comes next, and one killed before it left
 * nothing behind but unreferenced staged files. SILT_CONFLICT when another
 * writer took one of the versions (the merge cannot complete).
 */
silt_status catalog_finish_pending(catalog *cat, silt_error *err);
/*
 * How catalog_finish_pending opens a table's folder: with the session's
 * store options (S3 credentials, endpoint), as every other table access.
 */
void catalog_set_store_opener(catalog *cat, cat_store_open_fn fn, void *payload);

/*
 * A reader's cross-table isolation on main (docs/branches.md, "Readers"): a
 * statement pins main's catalog version `pinned` once; a merge published
 * after it (in versions pinned+1 onwards) may be copying its commits into
 * the tables' logs while the statement reads. *cap is the newest version of
 * the table at `location` the pinned state holds: one before the first
 * version a later merge publishes in it, -1 when no later merge touches it
 * (read its newest). Costs one failed read when main's catalog did not move.
 */
silt_status catalog_main_cap(catalog *cat, int64_t pinned, const char *location, int64_t *cap,
                             silt_error *err);

/* SILT_INVALID unless name can name a reference (letters, digits, _ - . and no "main"
 * confusion); the message names it. */
silt_status catalog_check_ref_name(const char *name, silt_error *err);

#endif
