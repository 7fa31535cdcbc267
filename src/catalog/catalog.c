/*
 * catalog.c - the warehouse catalog as a log of whole-state JSON snapshots.
 * See catalog.h for the model and docs/catalog.md for the file format.
 */
#include "catalog/catalog.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/mem.h"
#include "util/time.h"

#define CATALOG_LOG_PREFIX "_silt_catalog/log/"
#define CATALOG_FORMAT_VERSION 1
#define CATALOG_MAX_RETRIES 100
#define CATALOG_MAX_FILE_BYTES ((size_t)256 << 20)

struct catalog {
    io_store *store;
};

silt_status catalog_open(catalog **out, io_store *store, silt_error *err)
{
    catalog *cat = mem_calloc(1, sizeof(*cat));
    if (cat == NULL)
        return err_nomem(err);
    cat->store = store;
    *out = cat;
    return SILT_OK;
}

void catalog_free(catalog *cat) { mem_free(cat); }

void catalog_state_free(cat_state *state)
{
    if (state != NULL)
        arena_free(state->arena); /* the state itself lives in its arena */
}

const char *catalog_table_kind_name(cat_table_kind kind)
{
    switch (kind) {
    case CAT_MANAGED: return "MANAGED";
    case CAT_EXTERNAL: return "EXTERNAL";
    case CAT_VIEW: return "VIEW";
    }
    return "?";
}

static char *lower_dup(arena *a, const char *s)
{
    char *copy = arena_strdup(a, s);
    char *p;
    if (copy == NULL)
        return NULL;
    for (p = copy; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p + 32);
    return copy;
}

char *catalog_default_database_location(arena *a, const char *database)
{
    if (util_str_casecmp(database, "default") == 0)
        return arena_strdup(a, "");
    return arena_sprintf(a, "%s.db", database);
}

char *catalog_location_path(arena *a, const char *warehouse_root, const char *location)
{
    const char *path = io_location_local_path(location);
    if (path[0] == '/' || strstr(path, "://") != NULL)
        return arena_strdup(a, path);
    if (path[0] == '\0')
        return arena_strdup(a, warehouse_root);
    return arena_sprintf(a, "%s/%s", warehouse_root, path);
}

char *catalog_location_uri(arena *a, const char *warehouse_root, const char *location)
{
    char *path = catalog_location_path(a, warehouse_root, location);
    if (path == NULL || path[0] != '/')
        return path;
    return arena_sprintf(a, "file:%s", path);
}

char *catalog_default_table_location(arena *a, const char *database, const char *table)
{
    if (util_str_casecmp(database, "default") == 0)
        return lower_dup(a, table);
    {
        char *raw = arena_sprintf(a, "%s.db/%s", database, table);
        return raw ? lower_dup(a, raw) : NULL;
    }
}

const cat_database *catalog_state_find_database(const cat_state *state, const char *name)
{
    size_t idx;
    for (idx = 0; idx < state->n_databases; idx++)
        if (util_str_casecmp(state->databases[idx].name, name) == 0)
            return &state->databases[idx];
    return NULL;
}

const cat_table *catalog_state_find_table(const cat_state *state, const char *database,
                                      const char *name)
{
    size_t idx;
    for (idx = 0; idx < state->n_tables; idx++)
        if (util_str_casecmp(state->tables[idx].database, database) == 0 &&
            util_str_casecmp(state->tables[idx].name, name) == 0)
            return &state->tables[idx];
    return NULL;
}

static silt_status copy_properties(arena *a, size_t n, const cat_property *src,
                                   cat_property **out, silt_error *err)
{
    size_t idx;
    cat_property *props = arena_calloc(a, n ? n : 1, sizeof(*props));
    if (props == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        props[idx].key = arena_strdup(a, src[idx].key);
        props[idx].value = arena_strdup(a, src[idx].value ? src[idx].value : "");
        if (props[idx].key == NULL || props[idx].value == NULL)
            return err_nomem(err);
    }
    *out = props;
    return SILT_OK;
}

static silt_status copy_database(arena *a, const cat_database *src, cat_database *dst,
                                 silt_error *err)
{
    memset(dst, 0, sizeof(*dst));
    dst->name = lower_dup(a, src->name);
    dst->location = src->location ? arena_strdup(a, src->location)
                                  : catalog_default_database_location(a, dst->name ? dst->name : "");
    dst->comment = src->comment ? arena_strdup(a, src->comment) : NULL;
    dst->created_micros = src->created_micros ? src->created_micros : time_now_micros();
    dst->n_properties = src->n_properties;
    if (dst->name == NULL || dst->location == NULL)
        return err_nomem(err);
    return copy_properties(a, src->n_properties, src->properties, &dst->properties, err);
}

static silt_status copy_table(arena *a, const cat_table *src, cat_table *dst, silt_error *err)
{
    memset(dst, 0, sizeof(*dst));
    dst->database = lower_dup(a, src->database);
    dst->name = lower_dup(a, src->name);
    dst->kind = src->kind;
    dst->provider = src->provider ? lower_dup(a, src->provider) : NULL;
    dst->location = src->location ? arena_strdup(a, src->location) : NULL;
    dst->comment = src->comment ? arena_strdup(a, src->comment) : NULL;
    dst->view_text = src->view_text ? arena_strdup(a, src->view_text) : NULL;
    dst->created_micros = src->created_micros ? src->created_micros : time_now_micros();
    dst->n_properties = src->n_properties;
    if (dst->database == NULL || dst->name == NULL)
        return err_nomem(err);
    return copy_properties(a, src->n_properties, src->properties, &dst->properties, err);
}

static int valid_name(const char *name)
{
    const char *p;
    if (name == NULL || name[0] == '\0')
        return 0;
    for (p = name; *p; p++)
        if (*p == '/' || *p == '\\' || (unsigned char)*p < 0x20)
            return 0;
    return strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

silt_status catalog_state_add_database(cat_state *state, const cat_database *db, silt_error *err)
{
    cat_database *grown;
    if (!valid_name(db->name))
        return err_set(err, SILT_INVALID, "database name \"%s\" is not valid",
                       db->name ? db->name : "");
    if (catalog_state_find_database(state, db->name) != NULL)
        return err_set(err, SILT_EXISTS,
                       "[SCHEMA_ALREADY_EXISTS] Cannot create schema `%s` because it already exists",
                       db->name);
    grown = arena_realloc(state->arena, state->databases, state->n_databases * sizeof(*grown),
                          (state->n_databases + 1) * sizeof(*grown));
    if (grown == NULL)
        return err_nomem(err);
    state->databases = grown;
    SILT_RETURN_IF_ERROR(copy_database(state->arena, db, &grown[state->n_databases], err));
    state->n_databases++;
    return SILT_OK;
}

silt_status catalog_state_drop_database(cat_state *state, const char *name, int cascade,
                                    silt_error *err)
{
    size_t idx, kept = 0;
    const cat_database *db = catalog_state_find_database(state, name);
    if (db == NULL)
        return err_set(err, SILT_NOTFOUND, "[SCHEMA_NOT_FOUND] The schema `%s` cannot be found",
                       name);
    if (util_str_casecmp(name, "default") == 0)
        return err_set(err, SILT_INVALID, "cannot drop the default database");
    for (idx = 0; idx < state->n_tables; idx++) {
        if (util_str_casecmp(state->tables[idx].database, name) == 0) {
            if (!cascade)
                return err_set(err, SILT_INVALID,
                               "[SCHEMA_NOT_EMPTY] Cannot drop a schema `%s` because it contains "
                               "objects; use DROP SCHEMA ... CASCADE",
                               name);
            continue;
        }
        state->tables[kept++] = state->tables[idx];
    }
    state->n_tables = kept;
    idx = (size_t)(db - state->databases);
    memmove(&state->databases[idx], &state->databases[idx + 1],
            (state->n_databases - idx - 1) * sizeof(cat_database));
    state->n_databases--;
    return SILT_OK;
}

silt_status catalog_state_add_table(cat_state *state, const cat_table *table, silt_error *err)
{
    cat_table *grown;
    if (!valid_name(table->name))
        return err_set(err, SILT_INVALID, "table name \"%s\" is not valid",
                       table->name ? table->name : "");
    if (catalog_state_find_database(state, table->database) == NULL)
        return err_set(err, SILT_NOTFOUND, "[SCHEMA_NOT_FOUND] The schema `%s` cannot be found",
                       table->database);
    if (catalog_state_find_table(state, table->database, table->name) != NULL)
        return err_set(err, SILT_EXISTS,
                       "[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view `%s`.`%s` "
                       "because it already exists",
                       table->database, table->name);
    grown = arena_realloc(state->arena, state->tables, state->n_tables * sizeof(*grown),
                          (state->n_tables + 1) * sizeof(*grown));
    if (grown == NULL)
        return err_nomem(err);
    state->tables = grown;
    SILT_RETURN_IF_ERROR(copy_table(state->arena, table, &grown[state->n_tables], err));
    state->n_tables++;
    return SILT_OK;
}

silt_status catalog_state_drop_table(cat_state *state, const char *database, const char *name,
                                 silt_error *err)
{
    const cat_table *table = catalog_state_find_table(state, database, name);
    size_t idx;
    if (table == NULL)
        return err_set(err, SILT_NOTFOUND,
                       "[TABLE_OR_VIEW_NOT_FOUND] The table or view `%s`.`%s` cannot be found",
                       database, name);
    idx = (size_t)(table - state->tables);
    memmove(&state->tables[idx], &state->tables[idx + 1],
            (state->n_tables - idx - 1) * sizeof(cat_table));
    state->n_tables--;
    return SILT_OK;
}

silt_status catalog_state_replace_table(cat_state *state, const cat_table *table, silt_error *err)
{
    const cat_table *old = catalog_state_find_table(state, table->database, table->name);
    if (old == NULL)
        return err_set(err, SILT_NOTFOUND,
                       "[TABLE_OR_VIEW_NOT_FOUND] The table or view `%s`.`%s` cannot be found",
                       table->database, table->name);
    return copy_table(state->arena, table, &state->tables[old - state->tables], err);
}

/* ---- serialisation ----------------------------------------------------- */

static cJSON *properties_to_json(size_t n, const cat_property *props)
{
    cJSON *obj = cJSON_CreateObject();
    size_t idx;
    for (idx = 0; obj != NULL && idx < n; idx++)
        if (cJSON_AddStringToObject(obj, props[idx].key, props[idx].value) == NULL) {
            cJSON_Delete(obj);
            return NULL;
        }
    return obj;
}

static int add_opt_string(cJSON *obj, const char *key, const char *value)
{
    return value ? cJSON_AddStringToObject(obj, key, value) != NULL
                 : cJSON_AddNullToObject(obj, key) != NULL;
}

static silt_status state_to_json(const cat_state *state, int64_t version, char **out,
                                 silt_error *err)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *dbs = root ? cJSON_AddArrayToObject(root, "databases") : NULL;
    cJSON *tables = root ? cJSON_AddArrayToObject(root, "tables") : NULL;
    size_t idx;
    int ok = dbs != NULL && tables != NULL;
    ok = ok && cJSON_AddNumberToObject(root, "formatVersion", CATALOG_FORMAT_VERSION) != NULL;
    ok = ok && cJSON_AddNumberToObject(root, "version", (double)version) != NULL;
    for (idx = 0; ok && idx < state->n_databases; idx++) {
        const cat_database *db = &state->databases[idx];
        cJSON *item = cJSON_CreateObject();
        cJSON *props = properties_to_json(db->n_properties, db->properties);
        ok = item != NULL && props != NULL;
        ok = ok && cJSON_AddStringToObject(item, "name", db->name) != NULL;
        ok = ok && cJSON_AddStringToObject(item, "location", db->location) != NULL;
        ok = ok && add_opt_string(item, "comment", db->comment);
        ok = ok && cJSON_AddNumberToObject(item, "createdTime", (double)(db->created_micros / 1000)) != NULL;
        if (ok)
            cJSON_AddItemToObject(item, "properties", props);
        else
            cJSON_Delete(props);
        if (item != NULL)
            cJSON_AddItemToArray(dbs, item);
    }
    for (idx = 0; ok && idx < state->n_tables; idx++) {
        const cat_table *t = &state->tables[idx];
        cJSON *item = cJSON_CreateObject();
        cJSON *props = properties_to_json(t->n_properties, t->properties);
        ok = item != NULL && props != NULL;
        ok = ok && cJSON_AddStringToObject(item, "database", t->database) != NULL;
        ok = ok && cJSON_AddStringToObject(item, "name", t->name) != NULL;
        ok = ok && cJSON_AddStringToObject(item, "type", catalog_table_kind_name(t->kind)) != NULL;
        ok = ok && add_opt_string(item, "provider", t->provider);
        ok = ok && add_opt_string(item, "location", t->location);
        ok = ok && add_opt_string(item, "comment", t->comment);
        ok = ok && add_opt_string(item, "viewText", t->view_text);
        ok = ok && cJSON_AddNumberToObject(item, "createdTime", (double)(t->created_micros / 1000)) != NULL;
        if (ok)
            cJSON_AddItemToObject(item, "properties", props);
        else
            cJSON_Delete(props);
        if (item != NULL)
            cJSON_AddItemToArray(tables, item);
    }
    if (ok)
        *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!ok || *out == NULL)
        return err_nomem(err);
    return SILT_OK;
}

static const char *json_string(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

static silt_status properties_from_json(arena *a, const cJSON *obj, size_t *n_out,
                                        cat_property **out, silt_error *err)
{
    const cJSON *item;
    size_t n = 0;
    cat_property *props;
    if (obj != NULL && !cJSON_IsObject(obj))
        return err_set(err, SILT_CORRUPT, "catalog properties are not an object");
    cJSON_ArrayForEach(item, obj) n++;
    props = arena_calloc(a, n ? n : 1, sizeof(*props));
    if (props == NULL)
        return err_nomem(err);
    n = 0;
    cJSON_ArrayForEach(item, obj)
    {
        if (!cJSON_IsString(item))
            return err_set(err, SILT_CORRUPT, "catalog property \"%s\" is not a string",
                           item->string);
        props[n].key = arena_strdup(a, item->string);
        props[n].value = arena_strdup(a, item->valuestring);
        if (props[n].key == NULL || props[n].value == NULL)
            return err_nomem(err);
        n++;
    }
    *n_out = n;
    *out = props;
    return SILT_OK;
}

static silt_status kind_from_name(const char *name, cat_table_kind *out, silt_error *err)
{
    if (name != NULL && strcmp(name, "MANAGED") == 0)
        *out = CAT_MANAGED;
    else if (name != NULL && strcmp(name, "EXTERNAL") == 0)
        *out = CAT_EXTERNAL;
    else if (name != NULL && strcmp(name, "VIEW") == 0)
        *out = CAT_VIEW;
    else
        return err_set(err, SILT_CORRUPT, "catalog table type \"%s\" is not one silt knows",
                       name ? name : "(missing)");
    return SILT_OK;
}

static silt_status state_from_json(cat_state *state, const char *text, size_t len,
                                   silt_error *err)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *dbs, *tables, *item;
    silt_status rc = SILT_OK;
    if (root == NULL || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return err_set(err, SILT_CORRUPT, "catalog state is not a JSON object");
    }
    dbs = cJSON_GetObjectItemCaseSensitive(root, "databases");
    tables = cJSON_GetObjectItemCaseSensitive(root, "tables");
    if (!cJSON_IsArray(dbs) || !cJSON_IsArray(tables)) {
        cJSON_Delete(root);
        return err_set(err, SILT_CORRUPT, "catalog state lacks its databases or tables");
    }
    state->databases = arena_calloc(state->arena, (size_t)cJSON_GetArraySize(dbs) + 1,
                                    sizeof(cat_database));
    state->tables = arena_calloc(state->arena, (size_t)cJSON_GetArraySize(tables) + 1,
                                 sizeof(cat_table));
    if (state->databases == NULL || state->tables == NULL)
        rc = err_nomem(err);
    cJSON_ArrayForEach(item, dbs)
    {
        cat_database *db = &state->databases[state->n_databases];
        const cJSON *created = cJSON_GetObjectItemCaseSensitive(item, "createdTime");
        if (rc != SILT_OK)
            break;
        db->name = arena_strdup(state->arena, json_string(item, "name"));
        db->location = arena_strdup(state->arena, json_string(item, "location"));
        db->comment = arena_strdup(state->arena, json_string(item, "comment"));
        db->created_micros = cJSON_IsNumber(created) ? (int64_t)created->valuedouble * 1000 : 0;
        if (db->name == NULL || db->location == NULL) {
            rc = err_set(err, SILT_CORRUPT, "catalog database entry lacks a name or location");
            break;
        }
        rc = properties_from_json(state->arena, cJSON_GetObjectItemCaseSensitive(item, "properties"),
                                  &db->n_properties, &db->properties, err);
        state->n_databases++;
    }
    cJSON_ArrayForEach(item, tables)
    {
        cat_table *t = &state->tables[state->n_tables];
        const cJSON *created = cJSON_GetObjectItemCaseSensitive(item, "createdTime");
        if (rc != SILT_OK)
            break;
        t->database = arena_strdup(state->arena, json_string(item, "database"));
        t->name = arena_strdup(state->arena, json_string(item, "name"));
        t->provider = arena_strdup(state->arena, json_string(item, "provider"));
        t->location = arena_strdup(state->arena, json_string(item, "location"));
        t->comment = arena_strdup(state->arena, json_string(item, "comment"));
        t->view_text = arena_strdup(state->arena, json_string(item, "viewText"));
        t->created_micros = cJSON_IsNumber(created) ? (int64_t)created->valuedouble * 1000 : 0;
        if (t->database == NULL || t->name == NULL) {
            rc = err_set(err, SILT_CORRUPT, "catalog table entry lacks a database or name");
            break;
        }
        rc = kind_from_name(json_string(item, "type"), &t->kind, err);
        if (rc == SILT_OK)
            rc = properties_from_json(state->arena,
                                      cJSON_GetObjectItemCaseSensitive(item, "properties"),
                                      &t->n_properties, &t->properties, err);
        state->n_tables++;
    }
    cJSON_Delete(root);
    return rc;
}

/* ---- loading and committing --------------------------------------------- */

static silt_status new_state(cat_state **out, silt_error *err)
{
    arena *a = arena_new(NULL, "catalog state");
    cat_state *state;
    if (a == NULL)
        return err_nomem(err);
    state = arena_calloc(a, 1, sizeof(*state));
    if (state == NULL) {
        arena_free(a);
        return err_nomem(err);
    }
    state->arena = a;
    state->version = -1;
    *out = state;
    return SILT_OK;
}

/* The state every warehouse starts from: just the default database. */
static silt_status initial_state(cat_state *state, silt_error *err)
{
    cat_database db;
    memset(&db, 0, sizeof(db));
    db.name = "default";
    db.location = "";
    db.comment = "default database";
    return catalog_state_add_database(state, &db, err);
}

static silt_status parse_version(const char *key, int64_t *out)
{
    const char *name = key + strlen(CATALOG_LOG_PREFIX);
    size_t len = strlen(name);
    if (len != 25 || strcmp(name + 20, ".json") != 0)
        return SILT_NOTFOUND;
    return util_str_to_int64(name, 20, out) ? SILT_OK : SILT_NOTFOUND;
}

static silt_status newest_version(catalog *cat, int64_t *out, silt_error *err)
{
    io_listing listing = IO_LISTING_INIT;
    size_t idx;
    silt_status rc = io_list(cat->store, CATALOG_LOG_PREFIX, NULL, 0, &listing, err);
    *out = -1;
    for (idx = 0; rc == SILT_OK && idx < listing.count; idx++) {
        int64_t version;
        if (parse_version(listing.items[idx].key, &version) == SILT_OK && version > *out)
            *out = version;
    }
    io_listing_clear(&listing);
    return rc;
}

static silt_status load_version(catalog *cat, int64_t version, cat_state **out, silt_error *err)
{
    cat_state *state = NULL;
    buf text;
    char key[64];
    silt_status rc;
    SILT_RETURN_IF_ERROR(new_state(&state, err));
    if (version < 0) {
        rc = initial_state(state, err);
    } else {
        snprintf(key, sizeof(key), CATALOG_LOG_PREFIX "%020lld.json", (long long)version);
        buf_init(&text, CATALOG_MAX_FILE_BYTES);
        rc = io_get(cat->store, key, &text, err);
        if (rc == SILT_OK)
            rc = state_from_json(state, buf_cstr(&text), text.len, err);
        if (rc != SILT_OK)
            err_context(err, "while reading catalog version %lld", (long long)version);
        buf_clear(&text);
        state->version = version;
    }
    if (rc != SILT_OK) {
        catalog_state_free(state);
        return rc;
    }
    *out = state;
    return SILT_OK;
}

silt_status catalog_load(catalog *cat, cat_state **out, silt_error *err)
{
    int64_t version;
    SILT_RETURN_IF_ERROR(newest_version(cat, &version, err));
    return load_version(cat, version, out, err);
}

silt_status catalog_commit(catalog *cat, cat_change_fn change, void *payload,
                           int64_t *version_out, silt_error *err)
{
    int attempt;
    for (attempt = 0; attempt < CATALOG_MAX_RETRIES; attempt++) {
        cat_state *state = NULL;
        char *text = NULL;
        char key[64];
        int64_t next;
        silt_status rc = catalog_load(cat, &state, err);
        if (rc != SILT_OK)
            return rc;
        next = state->version + 1;
        rc = change(state, payload, err);
        if (rc == SILT_OK)
            rc = state_to_json(state, next, &text, err);
        catalog_state_free(state);
        if (rc != SILT_OK)
            return rc;
        snprintf(key, sizeof(key), CATALOG_LOG_PREFIX "%020lld.json", (long long)next);
        rc = io_put_if_absent(cat->store, key, text, strlen(text), err);
        cJSON_free(text);
        if (rc == SILT_OK) {
            if (version_out != NULL)
                *version_out = next;
            return SILT_OK;
        }
        if (rc != SILT_EXISTS)
            return err_context(err, "while publishing catalog version %lld", (long long)next);
        err_clear(err); /* another writer won version `next`: replay on its state */
    }
    return err_set(err, SILT_CONFLICT, "could not update the catalog: %d concurrent changes won "
                   "in a row", CATALOG_MAX_RETRIES);
}
