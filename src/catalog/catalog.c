/*
 * catalog.c - the warehouse catalog as a log of whole-state JSON snapshots.
 * See catalog.h for the model and docs/catalog.md for the file format.
 */
#include "catalog/catalog.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_int.h"
#include "io/digest.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/time.h"

#define CATALOG_LOG_PREFIX "_silt_catalog/log/"
#define CATALOG_FORMAT_VERSION 1
#define CATALOG_MAX_RETRIES 100
#define CATALOG_MAX_FILE_BYTES ((size_t)256 << 20)

silt_status catalog_open(catalog **out, io_store *store, silt_error *err)
{
    catalog *cat = mem_calloc(1, sizeof(*cat));
    if (cat == NULL)
        return err_nomem(err);
    cat->store = store;
    *out = cat;
    return SILT_OK;
}

void catalog_free(catalog *cat)
{
    if (cat == NULL)
        return;
    mem_free(cat->ref);
    mem_free(cat->hash);
    mem_free(cat);
}

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

static silt_status copy_segments(arena *a, const cat_table *src, cat_table *dst,
                                 silt_error *err)
{
    size_t idx;
    dst->on_ref = src->on_ref;
    dst->fork = src->fork;
    dst->pin = src->pin;
    dst->n_segments = src->n_segments;
    dst->segments = arena_calloc(a, src->n_segments + 1, sizeof(cat_segment));
    if (dst->segments == NULL)
        return err_nomem(err);
    for (idx = 0; idx < src->n_segments; idx++) {
        dst->segments[idx].last = src->segments[idx].last;
        dst->segments[idx].id = arena_strdup(a, src->segments[idx].id);
        if (dst->segments[idx].id == NULL)
            return err_nomem(err);
    }
    return SILT_OK;
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
    dst->view_schema = src->view_schema ? arena_strdup(a, src->view_schema) : NULL;
    dst->created_micros = src->created_micros ? src->created_micros : time_now_micros();
    dst->n_properties = src->n_properties;
    if (dst->database == NULL || dst->name == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(copy_segments(a, src, dst, err));
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
    kept = 0;
    for (idx = 0; idx < state->n_objects; idx++) {
        if (util_str_casecmp(state->objects[idx].database, name) == 0) {
            if (!cascade)
                return err_set(err, SILT_INVALID,
                               "[SCHEMA_NOT_EMPTY] Cannot drop a schema `%s` because it contains "
                               "objects; use DROP SCHEMA ... CASCADE",
                               name);
            continue;
        }
        state->objects[kept++] = state->objects[idx];
    }
    state->n_objects = kept;
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
    if (state->ref_id != NULL && table->kind != CAT_VIEW && !table->on_ref) {
        /* created on a branch: every version of it is branch-local */
        grown[state->n_tables].on_ref = 1;
        grown[state->n_tables].fork = -1;
        grown[state->n_tables].pin = -1;
    }
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
    cat_table merged = *table;
    if (!table->on_ref && old->on_ref) {
        /* a caller that rebuilt the entry keeps the table's state on the reference */
        merged.on_ref = 1;
        merged.fork = old->fork;
        merged.pin = old->pin;
        merged.n_segments = old->n_segments;
        merged.segments = old->segments;
    }
    return copy_table(state->arena, &merged, &state->tables[old - state->tables], err);
}

/* ---- external data sources and file formats (docs/serverless.md) ---------- */

const char *catalog_object_kind_name(cat_object_kind kind)
{
    return kind == CAT_DATA_SOURCE ? "EXTERNAL DATA SOURCE" : "EXTERNAL FILE FORMAT";
}

const cat_object *catalog_state_find_object(const cat_state *state, cat_object_kind kind,
                                            const char *database, const char *name)
{
    for (size_t idx = 0; idx < state->n_objects; idx++) {
        const cat_object *o = &state->objects[idx];
        if (o->kind == kind && util_str_casecmp(o->database, database) == 0 &&
            util_str_casecmp(o->name, name) == 0)
            return o;
    }
    return NULL;
}

const char *catalog_object_property(const cat_object *obj, const char *key)
{
    for (size_t idx = 0; idx < obj->n_properties; idx++)
        if (strcmp(obj->properties[idx].key, key) == 0)
            return obj->properties[idx].value;
    return NULL;
}

static silt_status copy_object(arena *a, const cat_object *src, cat_object *dst, silt_error *err)
{
    *dst = *src;
    dst->database = lower_dup(a, src->database);
    dst->name = arena_strdup(a, src->name);
    if (dst->database == NULL || dst->name == NULL)
        return err_nomem(err);
    return copy_properties(a, src->n_properties, src->properties, &dst->properties, err);
}

silt_status catalog_state_add_object(cat_state *state, const cat_object *obj, silt_error *err)
{
    cat_object *grown;
    if (!valid_name(obj->name))
        return err_set(err, SILT_INVALID, "name \"%s\" is not valid", obj->name ? obj->name : "");
    if (catalog_state_find_database(state, obj->database) == NULL)
        return err_set(err, SILT_NOTFOUND, "[SCHEMA_NOT_FOUND] The schema `%s` cannot be found",
                       obj->database);
    if (catalog_state_find_object(state, obj->kind, obj->database, obj->name) != NULL)
        return err_set(err, SILT_EXISTS, "there is already an %s named \"%s\" in database \"%s\"",
                       catalog_object_kind_name(obj->kind), obj->name, obj->database);
    grown = arena_realloc(state->arena, state->objects, state->n_objects * sizeof(*grown),
                          (state->n_objects + 1) * sizeof(*grown));
    if (grown == NULL)
        return err_nomem(err);
    state->objects = grown;
    SILT_RETURN_IF_ERROR(copy_object(state->arena, obj, &grown[state->n_objects], err));
    state->n_objects++;
    return SILT_OK;
}

silt_status catalog_state_drop_object(cat_state *state, cat_object_kind kind,
                                      const char *database, const char *name, silt_error *err)
{
    const cat_object *o = catalog_state_find_object(state, kind, database, name);
    size_t idx;
    if (o == NULL)
        return err_set(err, SILT_NOTFOUND, "%s \"%s\" does not exist in database \"%s\"",
                       catalog_object_kind_name(kind), name, database);
    idx = (size_t)(o - state->objects);
    memmove(&state->objects[idx], &state->objects[idx + 1],
            (state->n_objects - idx - 1) * sizeof(cat_object));
    state->n_objects--;
    return SILT_OK;
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

/* "branch": {"fork": F, "pin": P, "segments": [{"id": .., "last": ..}]} */
static int add_branch_json(cJSON *item, const cat_table *t)
{
    cJSON *br = cJSON_AddObjectToObject(item, "branch");
    cJSON *segs = br ? cJSON_AddArrayToObject(br, "segments") : NULL;
    size_t idx;
    int ok = segs != NULL && cJSON_AddNumberToObject(br, "fork", (double)t->fork) != NULL &&
             cJSON_AddNumberToObject(br, "pin", (double)t->pin) != NULL;
    for (idx = 0; ok && idx < t->n_segments; idx++) {
        cJSON *seg = cJSON_CreateObject();
        ok = seg != NULL && cJSON_AddStringToObject(seg, "id", t->segments[idx].id) != NULL &&
             cJSON_AddNumberToObject(seg, "last", (double)t->segments[idx].last) != NULL;
        if (seg != NULL)
            cJSON_AddItemToArray(segs, seg);
    }
    return ok;
}

/* "ref" (not on main) and "commit": who changed what, for SHOW LOG. */
static int add_ref_json(cJSON *root, const cat_state *state)
{
    cJSON *commit = cJSON_AddObjectToObject(root, "commit");
    cJSON *touched = commit ? cJSON_AddArrayToObject(commit, "tables") : NULL;
    const cat_commit_info *c = &state->commit;
    size_t idx;
    int ok = touched != NULL && add_opt_string(commit, "parent", c->parent) &&
             add_opt_string(commit, "author", c->author) &&
             add_opt_string(commit, "message", c->message) &&
             cJSON_AddNumberToObject(commit, "time", (double)c->time_ms) != NULL;
    for (idx = 0; ok && idx < c->n_touched; idx++)
        ok = cJSON_AddItemToArray(touched, cJSON_CreateString(c->touched[idx]));
    if (ok && state->ref_id != NULL) {
        cJSON *ref = cJSON_AddObjectToObject(root, "ref");
        ok = ref != NULL &&
             cJSON_AddStringToObject(ref, "type",
                                     state->ref_type == CAT_REF_TAG ? "TAG" : "BRANCH") != NULL &&
             cJSON_AddStringToObject(ref, "id", state->ref_id) != NULL &&
             cJSON_AddNumberToObject(ref, "base", (double)state->base_version) != NULL &&
             cJSON_AddBoolToObject(ref, "dropped", state->dropped) != NULL;
    }
    return ok;
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
        if (t->view_schema != NULL)
            ok = ok && add_opt_string(item, "viewSchema", t->view_schema);
        ok = ok && cJSON_AddNumberToObject(item, "createdTime", (double)(t->created_micros / 1000)) != NULL;
        if (ok)
            cJSON_AddItemToObject(item, "properties", props);
        else
            cJSON_Delete(props);
        ok = ok && (!t->on_ref || add_branch_json(item, t));
        if (item != NULL)
            cJSON_AddItemToArray(tables, item);
    }
    if (ok && state->n_objects > 0) {
        /* written only when there are some, so states without them stay as they were */
        cJSON *objs = cJSON_AddArrayToObject(root, "externalObjects");
        ok = objs != NULL;
        for (idx = 0; ok && idx < state->n_objects; idx++) {
            const cat_object *o = &state->objects[idx];
            cJSON *item = cJSON_CreateObject();
            cJSON *props = properties_to_json(o->n_properties, o->properties);
            ok = item != NULL && props != NULL;
            ok = ok && cJSON_AddStringToObject(item, "database", o->database) != NULL;
            ok = ok && cJSON_AddStringToObject(item, "name", o->name) != NULL;
            ok = ok && cJSON_AddStringToObject(item, "type", catalog_object_kind_name(o->kind)) != NULL;
            ok = ok && cJSON_AddNumberToObject(item, "createdTime", (double)(o->created_micros / 1000)) != NULL;
            if (ok)
                cJSON_AddItemToObject(item, "properties", props);
            else
                cJSON_Delete(props);
            if (item != NULL)
                cJSON_AddItemToArray(objs, item);
        }
    }
    ok = ok && add_ref_json(root, state);
    if (ok && state->n_pending > 0) {
        cJSON *pend = cJSON_AddArrayToObject(root, "pending");
        ok = pend != NULL;
        for (idx = 0; ok && idx < state->n_pending; idx++) {
            const cat_pending *p = &state->pending[idx];
            cJSON *item = cJSON_CreateObject();
            ok = item != NULL && cJSON_AddStringToObject(item, "table", p->table) != NULL &&
                 cJSON_AddStringToObject(item, "location", p->location) != NULL &&
                 cJSON_AddNumberToObject(item, "version", (double)p->version) != NULL &&
                 cJSON_AddStringToObject(item, "source", p->source) != NULL;
            if (item != NULL)
                cJSON_AddItemToArray(pend, item);
        }
    }
    if (ok && state->n_merged > 0) {
        cJSON *arr = cJSON_AddArrayToObject(root, "merged");
        ok = arr != NULL;
        for (idx = 0; ok && idx < state->n_merged; idx++) {
            const cat_merged *m = &state->merged[idx];
            cJSON *item = cJSON_CreateObject();
            ok = item != NULL && cJSON_AddStringToObject(item, "branch", m->branch) != NULL &&
                 cJSON_AddStringToObject(item, "id", m->id) != NULL &&
                 cJSON_AddStringToObject(item, "table", m->table) != NULL &&
                 cJSON_AddNumberToObject(item, "tip", (double)m->tip) != NULL &&
                 cJSON_AddNumberToObject(item, "main", (double)m->main) != NULL;
            if (item != NULL)
                cJSON_AddItemToArray(arr, item);
        }
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

static int64_t json_int(const cJSON *obj, const char *key, int64_t dflt)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(item) ? (int64_t)item->valuedouble : dflt;
}

static silt_status branch_from_json(arena *a, const cJSON *br, cat_table *t, silt_error *err)
{
    const cJSON *segs, *seg;
    if (br == NULL)
        return SILT_OK;
    segs = cJSON_GetObjectItemCaseSensitive(br, "segments");
    if (!cJSON_IsObject(br) || !cJSON_IsArray(segs))
        return err_set(err, SILT_CORRUPT, "catalog table %s.%s has a malformed branch state",
                       t->database, t->name);
    t->on_ref = 1;
    t->fork = json_int(br, "fork", -1);
    t->pin = json_int(br, "pin", -1);
    t->segments = arena_calloc(a, (size_t)cJSON_GetArraySize(segs) + 1, sizeof(cat_segment));
    if (t->segments == NULL)
        return err_nomem(err);
    cJSON_ArrayForEach(seg, segs)
    {
        cat_segment *out = &t->segments[t->n_segments++];
        out->id = arena_strdup(a, json_string(seg, "id"));
        out->last = json_int(seg, "last", -1);
        if (out->id == NULL)
            return err_set(err, SILT_CORRUPT, "catalog table %s.%s has a segment without id",
                           t->database, t->name);
    }
    return SILT_OK;
}

static silt_status ref_from_json(cat_state *state, const cJSON *root, silt_error *err)
{
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(root, "ref");
    const cJSON *commit = cJSON_GetObjectItemCaseSensitive(root, "commit");
    const cJSON *touched, *item;
    const char *hash = json_string(root, "hash");
    arena *a = state->arena;
    if (hash != NULL && strlen(hash) == 64)
        memcpy(state->hash, hash, 65);
    if (cJSON_IsObject(ref)) {
        const char *type = json_string(ref, "type");
        state->ref_type = type && strcmp(type, "TAG") == 0 ? CAT_REF_TAG : CAT_REF_BRANCH;
        state->ref_id = arena_strdup(a, json_string(ref, "id"));
        state->base_version = json_int(ref, "base", -1);
        state->dropped = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "dropped"));
        if (state->ref_id == NULL)
            return err_set(err, SILT_CORRUPT, "catalog reference state lacks its id");
    }
    if (!cJSON_IsObject(commit))
        return SILT_OK;
    state->commit.parent = arena_strdup(a, json_string(commit, "parent"));
    state->commit.author = arena_strdup(a, json_string(commit, "author"));
    state->commit.message = arena_strdup(a, json_string(commit, "message"));
    state->commit.time_ms = json_int(commit, "time", 0);
    touched = cJSON_GetObjectItemCaseSensitive(commit, "tables");
    state->commit.touched = arena_calloc(a, (size_t)cJSON_GetArraySize(touched) + 1,
                                         sizeof(char *));
    if (state->commit.touched == NULL)
        return err_nomem(err);
    cJSON_ArrayForEach(item, touched)
    {
        if (cJSON_IsString(item) &&
            (state->commit.touched[state->commit.n_touched++] =
                 arena_strdup(a, item->valuestring)) == NULL)
            return err_nomem(err);
    }
    return SILT_OK;
}

static silt_status objects_from_json(cat_state *state, const cJSON *objs, silt_error *err)
{
    const cJSON *item;
    if (objs == NULL)
        return SILT_OK;
    if (!cJSON_IsArray(objs))
        return err_set(err, SILT_CORRUPT, "catalog externalObjects is not an array");
    state->objects = arena_calloc(state->arena, (size_t)cJSON_GetArraySize(objs) + 1,
                                  sizeof(cat_object));
    if (state->objects == NULL)
        return err_nomem(err);
    cJSON_ArrayForEach(item, objs)
    {
        cat_object *o = &state->objects[state->n_objects];
        const char *type = json_string(item, "type");
        o->database = arena_strdup(state->arena, json_string(item, "database"));
        o->name = arena_strdup(state->arena, json_string(item, "name"));
        o->created_micros = json_int(item, "createdTime", 0) * 1000;
        if (o->database == NULL || o->name == NULL || type == NULL)
            return err_set(err, SILT_CORRUPT, "catalog external object lacks a database, name "
                           "or type");
        if (strcmp(type, catalog_object_kind_name(CAT_DATA_SOURCE)) == 0)
            o->kind = CAT_DATA_SOURCE;
        else if (strcmp(type, catalog_object_kind_name(CAT_FILE_FORMAT)) == 0)
            o->kind = CAT_FILE_FORMAT;
        else
            return err_set(err, SILT_CORRUPT, "catalog external object type \"%s\" is not one "
                           "silt knows", type);
        SILT_RETURN_IF_ERROR(properties_from_json(state->arena,
                                                  cJSON_GetObjectItemCaseSensitive(item, "properties"),
                                                  &o->n_properties, &o->properties, err));
        state->n_objects++;
    }
    return SILT_OK;
}

static silt_status merged_from_json(cat_state *state, const cJSON *arr, silt_error *err)
{
    const cJSON *item;
    if (!cJSON_IsArray(arr))
        return SILT_OK;
    state->merged = arena_calloc(state->arena, (size_t)cJSON_GetArraySize(arr) + 1,
                                 sizeof(cat_merged));
    if (state->merged == NULL)
        return err_nomem(err);
    cJSON_ArrayForEach(item, arr)
    {
        cat_merged *m = &state->merged[state->n_merged++];
        m->branch = arena_strdup(state->arena, json_string(item, "branch"));
        m->id = arena_strdup(state->arena, json_string(item, "id"));
        m->table = arena_strdup(state->arena, json_string(item, "table"));
        m->tip = json_int(item, "tip", -1);
        m->main = json_int(item, "main", -1);
        if (m->branch == NULL || m->id == NULL || m->table == NULL || m->tip < 0 || m->main < 0)
            return err_set(err, SILT_CORRUPT, "catalog state has a malformed merge record");
    }
    return SILT_OK;
}

const cat_merged *catalog_state_find_merged(const cat_state *state, const char *branch,
                                            const char *id, const char *table)
{
    size_t idx;
    if (id == NULL)
        return NULL;
    for (idx = 0; idx < state->n_merged; idx++) {
        const cat_merged *m = &state->merged[idx];
        if (strcmp(m->branch, branch) == 0 && strcmp(m->id, id) == 0 &&
            strcmp(m->table, table) == 0)
            return m;
    }
    return NULL;
}

silt_status catalog_state_set_merged(cat_state *state, const cat_merged *m, silt_error *err)
{
    cat_merged *grown = arena_calloc(state->arena, state->n_merged + 2, sizeof(cat_merged));
    size_t idx, n = 0;
    if (grown == NULL)
        return err_nomem(err);
    for (idx = 0; idx < state->n_merged; idx++) {
        const cat_merged *old = &state->merged[idx];
        if (strcmp(old->branch, m->branch) == 0 &&
            (strcmp(old->id, m->id) != 0 || strcmp(old->table, m->table) == 0))
            continue; /* an older id's record, or this table's previous one */
        grown[n++] = *old;
    }
    grown[n].branch = arena_strdup(state->arena, m->branch);
    grown[n].id = arena_strdup(state->arena, m->id);
    grown[n].table = arena_strdup(state->arena, m->table);
    grown[n].tip = m->tip;
    grown[n].main = m->main;
    if (grown[n].branch == NULL || grown[n].id == NULL || grown[n].table == NULL)
        return err_nomem(err);
    state->merged = grown;
    state->n_merged = n + 1;
    return SILT_OK;
}

static silt_status pending_from_json(cat_state *state, const cJSON *pend, silt_error *err)
{
    const cJSON *item;
    if (!cJSON_IsArray(pend))
        return SILT_OK;
    state->pending = arena_calloc(state->arena, (size_t)cJSON_GetArraySize(pend) + 1,
                                  sizeof(cat_pending));
    if (state->pending == NULL)
        return err_nomem(err);
    cJSON_ArrayForEach(item, pend)
    {
        cat_pending *p = &state->pending[state->n_pending++];
        p->table = arena_strdup(state->arena, json_string(item, "table"));
        p->location = arena_strdup(state->arena, json_string(item, "location"));
        p->source = arena_strdup(state->arena, json_string(item, "source"));
        p->version = json_int(item, "version", -1);
        if (p->table == NULL || p->location == NULL || p->source == NULL || p->version < 0)
            return err_set(err, SILT_CORRUPT, "catalog state has a malformed pending commit");
    }
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
        t->view_schema = arena_strdup(state->arena, json_string(item, "viewSchema"));
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
        if (rc == SILT_OK)
            rc = branch_from_json(state->arena, cJSON_GetObjectItemCaseSensitive(item, "branch"),
                                  t, err);
        state->n_tables++;
    }
    if (rc == SILT_OK)
        rc = objects_from_json(state, cJSON_GetObjectItemCaseSensitive(root, "externalObjects"), err);
    if (rc == SILT_OK)
        rc = ref_from_json(state, root, err);
    if (rc == SILT_OK)
        rc = pending_from_json(state, cJSON_GetObjectItemCaseSensitive(root, "pending"), err);
    if (rc == SILT_OK)
        rc = merged_from_json(state, cJSON_GetObjectItemCaseSensitive(root, "merged"), err);
    cJSON_Delete(root);
    return rc;
}

/* ---- loading and committing --------------------------------------------- */

silt_status catalog_new_state(cat_state **out, silt_error *err)
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
    state->base_version = -1;
    state->ref_name = CATALOG_MAIN;
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
    /* SHA-256 of nothing: main before its first commit */
    snprintf(state->hash, sizeof(state->hash), "%s",
             "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    return catalog_state_add_database(state, &db, err);
}

int catalog_is_main(const char *ref) { return ref == NULL || strcmp(ref, CATALOG_MAIN) == 0; }

/* A reference's log folder ("_silt_catalog/log/" for main), mem_alloc'd. */
static char *log_prefix(const char *ref)
{
    size_t len = catalog_is_main(ref) ? 0 : strlen(ref);
    char *out = mem_alloc(len + sizeof(CATALOG_REFS_PREFIX) + 2);
    if (out == NULL)
        return NULL;
    if (catalog_is_main(ref))
        snprintf(out, len + sizeof(CATALOG_REFS_PREFIX) + 2, "%s", CATALOG_LOG_PREFIX);
    else
        snprintf(out, len + sizeof(CATALOG_REFS_PREFIX) + 2, CATALOG_REFS_PREFIX "%s/", ref);
    return out;
}

static char *log_key(const char *ref, int64_t version)
{
    char *prefix = log_prefix(ref);
    char *out = prefix ? mem_alloc(strlen(prefix) + 32) : NULL;
    if (out != NULL)
        snprintf(out, strlen(prefix) + 32, "%s%020lld.json", prefix, (long long)version);
    mem_free(prefix);
    return out;
}

static silt_status parse_version(const char *key, size_t prefix_len, int64_t *out)
{
    const char *name = key + prefix_len;
    size_t len = strlen(name);
    if (len != 25 || strcmp(name + 20, ".json") != 0)
        return SILT_NOTFOUND;
    return util_str_to_int64(name, 20, out) ? SILT_OK : SILT_NOTFOUND;
}

silt_status catalog_log_newest(catalog *cat, const char *ref, int64_t *out, silt_error *err)
{
    io_listing listing = IO_LISTING_INIT;
    char *prefix = log_prefix(ref);
    size_t idx;
    silt_status rc = prefix ? io_list(cat->store, prefix, NULL, 0, &listing, err) : err_nomem(err);
    *out = -1;
    for (idx = 0; rc == SILT_OK && idx < listing.count; idx++) {
        int64_t version;
        if (parse_version(listing.items[idx].key, strlen(prefix), &version) == SILT_OK &&
            version > *out)
            *out = version;
    }
    if (rc == SILT_NOTFOUND) { /* no folder: an empty log */
        err_clear(err);
        rc = SILT_OK;
    }
    io_listing_clear(&listing);
    mem_free(prefix);
    return rc;
}

silt_status catalog_log_read(catalog *cat, const char *ref, int64_t version, cat_state **out,
                             silt_error *err)
{
    cat_state *state = NULL;
    buf text;
    char *key;
    silt_status rc;
    SILT_RETURN_IF_ERROR(catalog_new_state(&state, err));
    if (!catalog_is_main(ref) && (state->ref_name = arena_strdup(state->arena, ref)) == NULL) {
        catalog_state_free(state);
        return err_nomem(err);
    }
    if (version < 0 && catalog_is_main(ref)) {
        rc = initial_state(state, err);
    } else if (version < 0) {
        rc = err_set(err, SILT_NOTFOUND, "reference \"%s\" does not exist", ref);
    } else {
        key = log_key(ref, version);
        buf_init(&text, CATALOG_MAX_FILE_BYTES);
        rc = key ? io_get(cat->store, key, &text, err) : err_nomem(err);
        if (rc == SILT_OK)
            rc = state_from_json(state, buf_cstr(&text), text.len, err);
        /* written before commits carried their hash: the hash of the file */
        if (rc == SILT_OK && state->hash[0] == '\0')
            rc = io_sha256_hex(text.data, text.len, state->hash, err);
        if (rc != SILT_OK && rc != SILT_NOTFOUND)
            err_context(err, "while reading catalog version %lld of %s", (long long)version,
                        state->ref_name);
        buf_clear(&text);
        mem_free(key);
        state->version = version;
    }
    if (rc != SILT_OK) {
        catalog_state_free(state);
        return rc;
    }
    *out = state;
    return SILT_OK;
}

silt_status catalog_log_publish(catalog *cat, const char *ref, cat_state *state, int64_t next,
                                silt_error *err)
{
    char *text = NULL, *key = NULL, *file = NULL;
    char hash[65];
    size_t len;
    silt_status rc = state_to_json(state, next, &text, err);
    if (rc != SILT_OK)
        return rc;
    /*
     * The commit's hash is the SHA-256 of its state without the hash, and is
     * stored in the file, so that readers never hash (nor load libcrypto).
     */
    len = strlen(text);
    rc = io_sha256_hex(text, len, hash, err);
    if (rc == SILT_OK && (file = mem_alloc(len + 80)) == NULL)
        rc = err_nomem(err);
    if (rc == SILT_OK) {
        memcpy(file, text, len - 1); /* all but the closing brace */
        snprintf(file + len - 1, 81, ",\"hash\":\"%s\"}", hash);
        key = log_key(ref, next);
        rc = key ? io_put_if_absent(cat->store, key, file, strlen(file), err) : err_nomem(err);
    }
    if (rc == SILT_OK)
        memcpy(state->hash, hash, sizeof(hash));
    mem_free(key);
    mem_free(file);
    cJSON_free(text);
    return rc;
}

silt_status catalog_state_copy(const cat_state *src, cat_state **out, silt_error *err)
{
    cat_state *dst = NULL;
    size_t idx;
    silt_status rc;
    SILT_RETURN_IF_ERROR(catalog_new_state(&dst, err));
    rc = SILT_OK;
    dst->version = src->version;
    dst->ref_type = src->ref_type;
    dst->base_version = src->base_version;
    memcpy(dst->hash, src->hash, sizeof(dst->hash));
    dst->ref_name = arena_strdup(dst->arena, src->ref_name);
    dst->ref_id = src->ref_id ? arena_strdup(dst->arena, src->ref_id) : NULL;
    dst->databases = arena_calloc(dst->arena, src->n_databases + 1, sizeof(cat_database));
    dst->tables = arena_calloc(dst->arena, src->n_tables + 1, sizeof(cat_table));
    if (dst->ref_name == NULL || dst->databases == NULL || dst->tables == NULL)
        rc = err_nomem(err);
    for (idx = 0; rc == SILT_OK && idx < src->n_databases; idx++, dst->n_databases++)
        rc = copy_database(dst->arena, &src->databases[idx], &dst->databases[idx], err);
    for (idx = 0; rc == SILT_OK && idx < src->n_tables; idx++, dst->n_tables++)
        rc = copy_table(dst->arena, &src->tables[idx], &dst->tables[idx], err);
    if (rc == SILT_OK && src->n_objects > 0) {
        dst->objects = arena_calloc(dst->arena, src->n_objects, sizeof(cat_object));
        if (dst->objects == NULL)
            rc = err_nomem(err);
    }
    for (idx = 0; rc == SILT_OK && idx < src->n_objects; idx++, dst->n_objects++)
        rc = copy_object(dst->arena, &src->objects[idx], &dst->objects[idx], err);
    for (idx = 0; rc == SILT_OK && idx < src->n_merged; idx++)
        rc = catalog_state_set_merged(dst, &src->merged[idx], err);
    if (rc != SILT_OK) {
        catalog_state_free(dst);
        return rc;
    }
    *out = dst;
    return SILT_OK;
}

silt_status catalog_load(catalog *cat, cat_state **out, silt_error *err)
{
    return catalog_load_ref(cat, NULL, NULL, out, err);
}

/* One entry's JSON text, to tell which tables a change touched. */
static char *table_text(const cat_table *t)
{
    cat_state one;
    char *text = NULL;
    memset(&one, 0, sizeof(one));
    one.tables = (cat_table *)t;
    one.n_tables = 1;
    if (state_to_json(&one, 0, &text, NULL) != SILT_OK)
        return NULL;
    return text;
}

static int same_table(const cat_table *a, const cat_table *b)
{
    char *ta = table_text(a), *tb = table_text(b);
    int same = ta != NULL && tb != NULL && strcmp(ta, tb) == 0;
    cJSON_free(ta);
    cJSON_free(tb);
    return same;
}

static silt_status add_touched(cat_state *state, const cat_table *t, silt_error *err)
{
    const char **grown = arena_realloc(state->arena, state->commit.touched,
                                       state->commit.n_touched * sizeof(char *),
                                       (state->commit.n_touched + 1) * sizeof(char *));
    if (grown == NULL)
        return err_nomem(err);
    state->commit.touched = grown;
    grown[state->commit.n_touched] = arena_sprintf(state->arena, "%s.%s", t->database, t->name);
    return grown[state->commit.n_touched++] ? SILT_OK : err_nomem(err);
}

/* The commit record of a change from before to after: parent, author, time, tables. */
static silt_status fill_commit(const cat_state *before, cat_state *after, silt_error *err)
{
    const char *user = getenv("USER");
    size_t idx;
    after->commit.parent = before->version >= 0 || !catalog_is_main(before->ref_name)
                               ? arena_strdup(after->arena, before->hash) : NULL;
    after->commit.author = arena_strdup(after->arena, user && *user ? user : "silt");
    after->commit.time_ms = time_now_micros() / 1000;
    after->commit.n_touched = 0;
    after->commit.touched = NULL;
    for (idx = 0; idx < after->n_tables; idx++) {
        const cat_table *t = &after->tables[idx];
        const cat_table *old = catalog_state_find_table(before, t->database, t->name);
        if (old == NULL || !same_table(old, t))
            SILT_RETURN_IF_ERROR(add_touched(after, t, err));
    }
    for (idx = 0; idx < before->n_tables; idx++) {
        const cat_table *t = &before->tables[idx];
        if (catalog_state_find_table(after, t->database, t->name) == NULL)
            SILT_RETURN_IF_ERROR(add_touched(after, t, err));
    }
    if (after->commit.message == NULL)
        after->commit.message =
            after->commit.n_touched == 1
                ? arena_sprintf(after->arena, "update %s", after->commit.touched[0])
                : arena_sprintf(after->arena, "update %zu tables", after->commit.n_touched);
    return after->commit.message ? SILT_OK : err_nomem(err);
}

silt_status catalog_commit(catalog *cat, cat_change_fn change, void *payload,
                           int64_t *version_out, silt_error *err)
{
    if (cat->hash != NULL)
        return err_set(err, SILT_INVALID, "reference \"%s\" is in use at commit %s, which "
                       "cannot be written: USE REFERENCE %s without AT to write",
                       catalog_current_ref(cat), cat->hash, catalog_current_ref(cat));
    return catalog_commit_ref(cat, cat->ref, change, payload, version_out, err);
}

static silt_status commit_once(catalog *cat, const char *ref, cat_change_fn change,
                               void *payload, int64_t *next, int *lost, silt_error *err)
{
    cat_state *before = NULL, *state = NULL;
    silt_status rc;
    SILT_RETURN_IF_ERROR(catalog_log_newest(cat, ref, next, err));
    SILT_RETURN_IF_ERROR(catalog_log_read(cat, ref, *next, &before, err));
    if (before->n_pending > 0) {
        /* a merge not finished: finish it first, then replay the change on the result */
        catalog_state_free(before);
        SILT_RETURN_IF_ERROR(catalog_finish_pending(cat, err));
        *lost = 1;
        return err_set(err, SILT_EXISTS, "catalog version %lld had a merge to finish",
                       (long long)*next);
    }
    if (before->dropped || (before->ref_id != NULL && before->ref_type == CAT_REF_TAG)) {
        rc = before->dropped ? err_set(err, SILT_NOTFOUND, "[REFERENCE_NOT_FOUND] reference "
                                       "\"%s\" does not exist", ref)
                             : err_set(err, SILT_INVALID, "tag \"%s\" cannot be written: "
                                       "only branches take commits", ref);
        catalog_state_free(before);
        return rc;
    }
    rc = catalog_state_copy(before, &state, err);
    (*next)++;
    if (rc == SILT_OK)
        rc = change(state, payload, err);
    if (rc == SILT_OK)
        rc = fill_commit(before, state, err);
    if (rc == SILT_OK) {
        rc = catalog_log_publish(cat, ref, state, *next, err);
        *lost = rc == SILT_EXISTS;
    }
    catalog_state_free(before);
    catalog_state_free(state);
    return rc;
}

silt_status catalog_commit_ref(catalog *cat, const char *ref, cat_change_fn change,
                               void *payload, int64_t *version_out, silt_error *err)
{
    int attempt;
    for (attempt = 0; attempt < CATALOG_MAX_RETRIES; attempt++) {
        int64_t next = -1;
        int lost = 0;
        silt_status rc = commit_once(cat, ref, change, payload, &next, &lost, err);
        if (rc == SILT_OK) {
            if (version_out != NULL)
                *version_out = next;
            return SILT_OK;
        }
        if (!lost)
            return rc; /* the change refused, or the store failed */
        err_clear(err); /* another writer won version `next`: replay on its state */
    }
    return err_set(err, SILT_CONFLICT, "could not update the catalog: %d concurrent changes won "
                   "in a row", CATALOG_MAX_RETRIES);
}
