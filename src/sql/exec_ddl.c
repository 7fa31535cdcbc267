/*
 * exec_ddl.c - catalog and table statements: CREATE/DROP DATABASE, DROP
 * TABLE, RESTORE, DESCRIBE DETAIL, ALTER TABLE ADD COLUMNS and SET/UNSET
 * TBLPROPERTIES.
 *
 * DROP TABLE of a managed table removes the catalog entry first and then
 * the table's files: a failure half way leaves orphan files under the
 * warehouse, never a catalog entry that points at a half-deleted table.
 * External tables keep their files.
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "delta/dml.h"
#include "delta/protocol.h"
#include "formats/text.h"
#include "sql/exec.h"
#include "util/mem.h"
#include "util/time.h"

static silt_status need_catalog(binder *b, uint32_t pos, const char *what, silt_error *err)
{
    if (b->s->cat != NULL)
        return SILT_OK;
    return sql_bind_error(b, err, pos, SILT_UNSUPPORTED, "%s needs a warehouse: run silt with "
                      "--warehouse DIR", what);
}

/* ---------------------------------------------------------------- databases */

static silt_status add_db_change(cat_state *state, void *payload, silt_error *err)
{
    return catalog_state_add_database(state, payload, err);
}

silt_status sql_exec_create_database(binder *b, const sql_stmt *stmt, exec_out *out,
                                 silt_error *err)
{
    const sql_name *n = &stmt->u.create_database.name;
    cat_database db;
    silt_status rc;
    (void)out;
    SILT_RETURN_IF_ERROR(need_catalog(b, stmt->pos, "CREATE DATABASE", err));
    if (n->n_parts != 1)
        return sql_bind_error(b, err, n->pos, SILT_BIND, "[REQUIRES_SINGLE_PART_NAMESPACE] database "
                          "name must be a single name");
    memset(&db, 0, sizeof(db));
    db.name = n->parts[0].name;
    if (stmt->u.create_database.location != NULL) {
        /* Spark qualifies a database's LOCATION against the warehouse at CREATE. */
        char *q = io_location_qualify(stmt->u.create_database.location,
                                      io_store_root(b->s->warehouse));
        db.location = q ? arena_strdup(b->a, q) : NULL;
        mem_free(q);
    } else {
        db.location = catalog_default_database_location(b->a, db.name);
    }
    db.comment = stmt->u.create_database.comment;
    db.created_micros = time_now_micros();
    db.n_properties = stmt->u.create_database.properties.n;
    db.properties = arena_calloc(b->a, db.n_properties + 1, sizeof(cat_property));
    if (db.properties == NULL)
        return err_nomem(err);
    {
        size_t idx;
        for (idx = 0; idx < db.n_properties; idx++) {
            db.properties[idx].key = stmt->u.create_database.properties.items[idx].key;
            db.properties[idx].value = stmt->u.create_database.properties.items[idx].value
                                           ? stmt->u.create_database.properties.items[idx].value
                                           : "";
        }
    }
    if (db.location == NULL)
        return err_nomem(err);
    rc = catalog_commit(b->s->cat, add_db_change, &db, NULL, err);
    if (rc == SILT_EXISTS && stmt->u.create_database.if_not_exists) {
        err_clear(err);
        return SILT_OK;
    }
    return rc;
}

typedef struct drop_args {
    const char *database, *name;
    int cascade;
} drop_args;

static silt_status drop_db_change(cat_state *state, void *payload, silt_error *err)
{
    drop_args *d = payload;
    return catalog_state_drop_database(state, d->name, d->cascade, err);
}

static silt_status drop_table_change(cat_state *state, void *payload, silt_error *err)
{
    drop_args *d = payload;
    return catalog_state_drop_table(state, d->database, d->name, err);
}

/* Deletes every object under a managed table's folder. */
static silt_status delete_table_files(binder *b, const char *path, silt_error *err)
{
    io_store *store;
    io_listing listing;
    size_t idx;
    silt_status rc;
    memset(&listing, 0, sizeof(listing));
    SILT_RETURN_IF_ERROR(sql_session_store_open(b->s, path, 0, &store, err));
    rc = io_list(store, "", NULL, 1, &listing, err);
    for (idx = 0; rc == SILT_OK && idx < listing.count; idx++) {
        rc = io_delete(store, listing.items[idx].key, err);
        if (rc == SILT_NOTFOUND) {
            err_clear(err);
            rc = SILT_OK;
        }
    }
    /* Local folders (partitions, _delta_log, the table's own) would stay behind empty. */
    if (rc == SILT_OK)
        rc = io_prune_empty_folders(store, err);
    io_listing_clear(&listing);
    io_store_free(store);
    (void)b;
    if (rc != SILT_OK)
        err_context(err, "while deleting the files of a dropped managed table at \"%s\"", path);
    return rc;
}

silt_status sql_exec_drop(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    const sql_name *n = &stmt->u.drop.name;
    drop_args d;
    silt_status rc;
    (void)out;
    memset(&d, 0, sizeof(d));
    if (stmt->u.drop.what == SQL_OBJ_DATABASE) {
        SILT_RETURN_IF_ERROR(need_catalog(b, stmt->pos, "DROP DATABASE", err));
        d.name = n->parts[n->n_parts - 1].name;
        d.cascade = stmt->u.drop.cascade;
        rc = catalog_commit(b->s->cat, drop_db_change, &d, NULL, err);
        if (rc == SILT_NOTFOUND && stmt->u.drop.if_exists) {
            err_clear(err);
            return SILT_OK;
        }
        if (rc == SILT_OK && util_str_casecmp(b->s->database, d.name) == 0)
            b->s->database = arena_strdup(b->s->arena, "default");
        return rc;
    }
    {
        exec_target t;
        cat_state *state;
        const cat_table *ct;
        int managed = 0;
        if (n->is_path || (n->n_parts == 2 && util_str_casecmp(n->parts[0].name, "delta") == 0))
            return sql_bind_error(b, err, n->pos, SILT_BIND, "DROP TABLE needs a catalog table, not "
                              "a path; delete the folder to remove a path table");
        SILT_RETURN_IF_ERROR(need_catalog(b, stmt->pos, "DROP TABLE", err));
        if (n->n_parts <= 2) {
            int is_view;
            SILT_RETURN_IF_ERROR(catalog_load(b->s->cat, &state, err));
            ct = catalog_state_find_table(state, n->n_parts == 2 ? n->parts[0].name
                                                                 : b->s->database,
                                          n->parts[n->n_parts - 1].name);
            is_view = ct != NULL && ct->kind == CAT_VIEW;
            if (ct != NULL && ct->kind == CAT_EXTERNAL && ct->provider != NULL &&
                util_str_casecmp(ct->provider, "delta") != 0) {
                /* an external table of files (CSV, Parquet): the entry goes, the files stay */
                d.database = arena_strdup(b->a, ct->database);
                d.name = arena_strdup(b->a, ct->name);
                catalog_state_free(state);
                if (d.database == NULL || d.name == NULL)
                    return err_nomem(err);
                return catalog_commit(b->s->cat, drop_table_change, &d, NULL, err);
            }
            catalog_state_free(state);
            if (is_view)
                return sql_bind_error(b, err, n->pos, SILT_BIND, "[WRONG_COMMAND_FOR_OBJECT_TYPE] "
                                      "The operation DROP TABLE requires a EXTERNAL or MANAGED. "
                                      "But spark_catalog.%s.%s is a VIEW. Use DROP VIEW instead",
                                      n->n_parts == 2 ? n->parts[0].name : b->s->database,
                                      n->parts[n->n_parts - 1].name);
        }
        SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, n, &t, err));
        if (!t.in_catalog) {
            if (stmt->u.drop.if_exists)
                return SILT_OK;
            return sql_bind_error(b, err, n->pos, SILT_NOTFOUND, "[TABLE_OR_VIEW_NOT_FOUND] The "
                              "table or view `%s`.`%s` cannot be found", t.database, t.name);
        }
        SILT_RETURN_IF_ERROR(catalog_load(b->s->cat, &state, err));
        ct = catalog_state_find_table(state, t.database, t.name);
        managed = ct != NULL && ct->kind == CAT_MANAGED;
        if (managed && state->ref_id != NULL)
            managed = 0; /* on a branch: the files are main's, or other references' */
        else if (managed) {
            /* a branch or tag holding the table keeps its files (docs/branches.md) */
            int held = 0;
            silt_status hrc = sql_branch_refs_hold(b, ct->location, &held, err);
            if (hrc != SILT_OK) {
                catalog_state_free(state);
                return hrc;
            }
            managed = !held;
        }
        catalog_state_free(state);
        d.database = t.database;
        d.name = t.name;
        SILT_RETURN_IF_ERROR(catalog_commit(b->s->cat, drop_table_change, &d, NULL, err));
        if (managed)
            return delete_table_files(b, t.path, err);
        return SILT_OK;
    }
}

/* ---------------------------------------------------------------- RESTORE */

silt_status sql_exec_restore(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    const sql_table_version *at = &stmt->u.restore.at;
    static const char *const names[] = {
        "table_size_after_restore", "num_of_files_after_restore", "num_removed_files",
        "num_restored_files", "removed_files_size", "restored_files_size"};
    static const char *const keys[] = {
        "tableSizeAfterRestore", "numOfFilesAfterRestore", "numRemovedFiles",
        "numRestoredFiles", "removedFilesSize", "restoredFilesSize"};
    exec_target t;
    delta_commit_result result;
    int64_t values[6];
    int64_t version = -1, ts = -1;
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, &stmt->u.restore.name, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, &stmt->u.restore.name, &t, err));
    if (at->version != NULL) {
        const sql_expr *v = at->version;
        if (v->kind != SQL_EXPR_LITERAL ||
            (v->u.lit.kind != SQL_LIT_INT && v->u.lit.kind != SQL_LIT_LONG) || v->u.lit.i64 < 0)
            return sql_bind_error(b, err, v->pos, SILT_BIND, "[INVALID_TIME_TRAVEL_SPEC] RESTORE "
                              "... VERSION AS OF needs a non-negative integer");
        version = v->u.lit.i64;
    } else if (at->timestamp != NULL) {
        const sql_expr *e = at->timestamp;
        int has_zone;
        if (e->kind == SQL_EXPR_LITERAL && e->u.lit.kind == SQL_LIT_STRING &&
            time_parse_timestamp(e->u.lit.str, e->u.lit.str_len, &ts, &has_zone))
            ;
        else if (e->kind == SQL_EXPR_LITERAL && e->u.lit.kind == SQL_LIT_TIMESTAMP)
            ts = e->u.lit.i64;
        else if (e->kind == SQL_EXPR_LITERAL && e->u.lit.kind == SQL_LIT_DATE)
            ts = e->u.lit.i64 * 86400000000LL;
        else
            return sql_bind_error(b, err, e->pos, SILT_BIND, "[INVALID_TIME_TRAVEL_TIMESTAMP_EXPR] "
                              "RESTORE ... TIMESTAMP AS OF needs a timestamp literal such as "
                              "'2024-01-01 00:00:00'");
    } else {
        return sql_bind_error(b, err, stmt->pos, SILT_BIND, "RESTORE needs VERSION AS OF or "
                          "TIMESTAMP AS OF");
    }
    SILT_RETURN_IF_ERROR(delta_restore(t.store, t.snap, version, version >= 0 ? -1 : ts,
                                       sql_session_get(b->s, SQL_SETTING_USER_METADATA),
                                       &result, err));
    /* Spark's RESTORE result: the commit's metrics as one row. */
    SILT_RETURN_IF_ERROR(sql_exec_commit_metrics(b, t.store, result.version, keys, values, 6, err));
    return sql_exec_counts_result(b, names, values, 6, out, err);
}

/* ---------------------------------------------------------------- DESCRIBE DETAIL */

enum {
    D_FORMAT, D_ID, D_NAME, D_DESCRIPTION, D_LOCATION, D_CREATED, D_MODIFIED, D_PARTITIONS,
    D_CLUSTERING, D_NUM_FILES, D_SIZE, D_PROPERTIES, D_MIN_READER, D_MIN_WRITER, D_FEATURES, D_N
};

static silt_status detail_schema(arena *a, const col_type **out, silt_error *err)
{
    static const char *const names[D_N] = {
        "format", "id", "name", "description", "location", "createdAt", "lastModified",
        "partitionColumns", "clusteringColumns", "numFiles", "sizeInBytes", "properties",
        "minReaderVersion", "minWriterVersion", "tableFeatures"};
    const col_type *str = col_type_primitive(COL_STRING);
    const col_type *list = col_type_array(a, str, 1);
    const col_type *map = col_type_map(a, str, str, 1);
    col_field *fields = arena_calloc(a, D_N, sizeof(col_field));
    size_t idx;
    if (list == NULL || map == NULL || fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < D_N; idx++) {
        fields[idx].name = names[idx];
        fields[idx].type = str;
        fields[idx].nullable = 1;
        fields[idx].field_id = -1;
    }
    fields[D_CREATED].type = col_type_primitive(COL_TIMESTAMP);
    fields[D_MODIFIED].type = col_type_primitive(COL_TIMESTAMP);
    fields[D_PARTITIONS].type = list;
    fields[D_CLUSTERING].type = list;
    fields[D_FEATURES].type = list;
    fields[D_NUM_FILES].type = col_type_primitive(COL_LONG);
    fields[D_SIZE].type = col_type_primitive(COL_LONG);
    fields[D_MIN_READER].type = col_type_primitive(COL_INT);
    fields[D_MIN_WRITER].type = col_type_primitive(COL_INT);
    fields[D_PROPERTIES].type = map;
    *out = col_type_struct(a, D_N, fields);
    return *out ? SILT_OK : err_nomem(err);
}

static silt_status put_str(col_builder *bld, const char *s, silt_error *err)
{
    if (s == NULL)
        return col_builder_append_null(bld, err);
    return col_builder_append_bytes(bld, s, strlen(s), err);
}

static silt_status put_list(col_builder *bld, const char *const *items, size_t n,
                            silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < n; idx++)
        SILT_RETURN_IF_ERROR(put_str(col_builder_child(bld, 0), items[idx], err));
    return col_builder_append_list(bld, (int64_t)n, err);
}


/* The logical name of the field whose physical name is phys (column mapping), or NULL. */
static const col_field *field_by_physical(binder *b, const col_type *t, dproto_mapping_mode mode,
                                          const char *phys, silt_error *err)
{
    size_t idx;
    for (idx = 0; t != NULL && t->id == COL_STRUCT && idx < t->n_fields; idx++) {
        const char *name = NULL;
        if (dproto_physical_name(&t->fields[idx], mode, b->a, &name, err) != SILT_OK) {
            err_clear(err);
            continue;
        }
        if (strcmp(name, phys) == 0)
            return &t->fields[idx];
    }
    return NULL;
}

/*
 * DESCRIBE DETAIL's clusteringColumns: the delta.clustering domain's
 * clusteringColumns (physical name paths, as Delta stores them) in logical
 * dotted names, as Spark shows them; none without the domain.
 */
static silt_status clustering_columns(binder *b, const delta_snapshot *snap, const char ***out,
                                      size_t *n_out, silt_error *err)
{
    const char *text = NULL;
    dproto_mapping_mode mode;
    cJSON *root, *cols, *path;
    size_t idx;
    *out = NULL;
    *n_out = 0;
    for (idx = 0; idx < snap->n_domains; idx++)
        if (strcmp(snap->domains[idx].domain, "delta.clustering") == 0 && !snap->domains[idx].removed)
            text = snap->domains[idx].configuration;
    if (text == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(dproto_get_mapping_mode(&snap->metadata, &mode, err));
    root = cJSON_Parse(text);
    cols = cJSON_GetObjectItemCaseSensitive(root, "clusteringColumns");
    *out = arena_calloc(b->a, (size_t)cJSON_GetArraySize(cols) + 1, sizeof(char *));
    if (*out == NULL) {
        cJSON_Delete(root);
        return err_nomem(err);
    }
    cJSON_ArrayForEach(path, cols) {
        buf name = BUF_INIT;
        const col_type *t = snap->schema;
        cJSON *seg;
        silt_status rc = SILT_OK;
        cJSON_ArrayForEach(seg, path) {
            const col_field *f = cJSON_IsString(seg)
                                     ? field_by_physical(b, t, mode, seg->valuestring, err) : NULL;
            rc = buf_printf(&name, err, "%s%s", name.len ? "." : "",
                            f ? f->name : cJSON_IsString(seg) ? seg->valuestring : "?");
            t = f ? f->type : NULL;
            if (rc != SILT_OK)
                break;
        }
        if (rc == SILT_OK && ((*out)[*n_out] = arena_strdup(b->a, buf_cstr(&name))) == NULL)
            rc = err_nomem(err);
        buf_clear(&name);
        if (rc != SILT_OK) {
            cJSON_Delete(root);
            return rc;
        }
        (*n_out)++;
    }
    cJSON_Delete(root);
    return SILT_OK;
}

static silt_status detail_row(binder *b, const exec_target *t, col_builder **c, silt_error *err)
{
    const delta_snapshot *snap = t->snap;
    const dlog_metadata *md = &snap->metadata;
    const dlog_protocol *pr = &snap->protocol;
    size_t idx, n_features = 0;
    const char **features = arena_calloc(b->a, pr->n_reader_features + pr->n_writer_features + 16,
                                         sizeof(char *));
    if (features == NULL)
        return err_nomem(err);
    /* a legacy protocol names no features: Spark lists those its versions imply */
    if (pr->min_writer_version < 7 && pr->min_reader_version < 3)
        n_features = dproto_legacy_features(pr->min_reader_version, pr->min_writer_version,
                                            features, 15);
    for (idx = 0; idx < pr->n_writer_features; idx++)
        features[n_features++] = pr->writer_features[idx];
    for (idx = 0; idx < pr->n_reader_features; idx++) {
        size_t k;
        for (k = 0; k < n_features && strcmp(features[k], pr->reader_features[idx]) != 0; k++)
            ;
        if (k == n_features)
            features[n_features++] = pr->reader_features[idx];
    }
    SILT_RETURN_IF_ERROR(put_str(c[D_FORMAT], "delta", err));
    SILT_RETURN_IF_ERROR(put_str(c[D_ID], md->id, err));
    SILT_RETURN_IF_ERROR(put_str(c[D_NAME], t->database ? t->display : NULL, err));
    SILT_RETURN_IF_ERROR(put_str(c[D_DESCRIPTION], md->description, err));
    SILT_RETURN_IF_ERROR(put_str(c[D_LOCATION], arena_sprintf(b->a, "file:%s", t->path), err));
    if (md->has_created_time)
        SILT_RETURN_IF_ERROR(col_builder_append_int(c[D_CREATED], md->created_time * 1000, err));
    else
        SILT_RETURN_IF_ERROR(col_builder_append_null(c[D_CREATED], err));
    SILT_RETURN_IF_ERROR(col_builder_append_int(c[D_MODIFIED], snap->timestamp_ms * 1000, err));
    SILT_RETURN_IF_ERROR(put_list(c[D_PARTITIONS], md->partition_columns,
                                  md->n_partition_columns, err));
    {
        const char **clustering;
        size_t n_clustering;
        SILT_RETURN_IF_ERROR(clustering_columns(b, snap, &clustering, &n_clustering, err));
        SILT_RETURN_IF_ERROR(put_list(c[D_CLUSTERING], clustering, n_clustering, err));
    }
    SILT_RETURN_IF_ERROR(col_builder_append_int(c[D_NUM_FILES], (int64_t)snap->n_files, err));
    SILT_RETURN_IF_ERROR(col_builder_append_int(c[D_SIZE], snap->total_size, err));
    for (idx = 0; idx < md->configuration.n; idx++) {
        SILT_RETURN_IF_ERROR(put_str(col_builder_child(c[D_PROPERTIES], 0),
                                     md->configuration.items[idx].key, err));
        SILT_RETURN_IF_ERROR(put_str(col_builder_child(c[D_PROPERTIES], 1),
                                     md->configuration.items[idx].value, err));
    }
    SILT_RETURN_IF_ERROR(col_builder_append_list(c[D_PROPERTIES], (int64_t)md->configuration.n,
                                                 err));
    SILT_RETURN_IF_ERROR(col_builder_append_int(c[D_MIN_READER], pr->min_reader_version, err));
    SILT_RETURN_IF_ERROR(col_builder_append_int(c[D_MIN_WRITER], pr->min_writer_version, err));
    return put_list(c[D_FEATURES], features, n_features, err);
}

silt_status sql_exec_describe_detail(binder *b, const sql_stmt *stmt, exec_out *out,
                                 silt_error *err)
{
    exec_target t;
    col_builder *c[D_N];
    col_batch *batch = arena_calloc(b->a, 1, sizeof(*batch));
    col_batch **list = arena_calloc(b->a, 1, sizeof(*list));
    size_t idx;
    if (batch == NULL || list == NULL ||
        (batch->cols = arena_calloc(b->a, D_N, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, &stmt->u.describe.name, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, &stmt->u.describe.name, &t, err));
    SILT_RETURN_IF_ERROR(detail_schema(b->a, &out->schema, err));
    for (idx = 0; idx < D_N; idx++)
        SILT_RETURN_IF_ERROR(col_builder_new(&c[idx], b->a, out->schema->fields[idx].type, err));
    SILT_RETURN_IF_ERROR(detail_row(b, &t, c, err));
    for (idx = 0; idx < D_N; idx++)
        SILT_RETURN_IF_ERROR(col_builder_finish(c[idx], &batch->cols[idx], err));
    batch->schema = out->schema;
    batch->n_rows = 1;
    batch->n_cols = D_N;
    list[0] = batch;
    return engine_op_values(&out->op, b->ctx, out->schema, list, 1, err);
}

/* ---------------------------------------------------------------- ALTER TABLE */

/* Commits a metadata change as one transaction with the given operation. */
silt_status sql_exec_commit_metadata(exec_target *t, const dlog_metadata *md,
                                     const dlog_protocol *protocol, const char *op,
                                     const char *const *params, size_t n_params,
                                     silt_error *err)
{
    delta_txn *txn;
    silt_status rc;
    size_t idx;
    SILT_RETURN_IF_ERROR(delta_txn_begin(&txn, t->store, t->snap, op, err));
    rc = delta_txn_set_metadata(txn, md, err);
    if (rc == SILT_OK && protocol != NULL)
        rc = delta_txn_set_protocol(txn, protocol, err);
    for (idx = 0; rc == SILT_OK && idx < n_params; idx++)
        rc = delta_txn_set_param(txn, params[2 * idx], params[2 * idx + 1], err);
    if (rc == SILT_OK)
        rc = delta_txn_commit(txn, NULL, err);
    delta_txn_free(txn);
    return rc;
}

/*
 * The features the properties being set turn on join the request, so that
 * enabling one upgrades the protocol in the same commit, as Delta does
 * (the Spark peer: delta.enableChangeDataFeed = true on (1,2) gives (1,7)
 * with appendOnly, invariants and changeDataFeed).
 */
static void enabled_features(const dlog_map *props, dproto_request *req)
{
    static const char *const by_property[][2] = {
        {"delta.appendOnly", "appendOnly"},
        {"delta.enableChangeDataFeed", "changeDataFeed"},
        {"delta.enableDeletionVectors", "deletionVectors"},
        {"delta.enableTypeWidening", "typeWidening"}};
    size_t idx;
    for (idx = 0; idx < sizeof(by_property) / sizeof(by_property[0]); idx++) {
        const char *v = dlog_map_get(props, by_property[idx][0], NULL);
        if (v == NULL || util_str_casecmp(v, "true") != 0 || req->n_features >= DPROTO_MAX_FEATURES)
            continue;
        req->features[req->n_features++] = by_property[idx][1];
        req->any = 1;
    }
}

/*
 * SET TBLPROPERTIES' protocol properties (dproto_request_take): the
 * protocol they ask for, in *out (NULL when it stays), and the other
 * properties in *rest.
 */
static silt_status protocol_properties(binder *b, const sql_kv_list *kv, exec_target *t,
                                       int mapping_on, dlog_map *rest,
                                       const dlog_protocol **out, silt_error *err)
{
    dproto_request req;
    dlog_protocol *p = arena_calloc(b->a, 1, sizeof(*p));
    size_t idx;
    int changed = 0;
    *out = NULL;
    rest->n = kv->n;
    rest->items = arena_calloc(b->a, kv->n + 1, sizeof(dlog_kv));
    if (p == NULL || rest->items == NULL)
        return err_nomem(err);
    for (idx = 0; idx < kv->n; idx++) {
        rest->items[idx].key = kv->items[idx].key;
        rest->items[idx].value = kv->items[idx].value ? kv->items[idx].value : "";
    }
    SILT_RETURN_IF_ERROR(dproto_request_take(rest, &req, err));
    enabled_features(rest, &req);
    if (mapping_on && req.n_features < DPROTO_MAX_FEATURES) {
        req.features[req.n_features++] = "columnMapping";
        req.any = 1;
    }
    SILT_RETURN_IF_ERROR(dproto_request_apply(&t->snap->protocol, &req, b->a, p, &changed, err));
    if (changed)
        *out = p;
    return SILT_OK;
}

static silt_status alter_properties(binder *b, const sql_stmt *stmt, exec_target *t,
                                    silt_error *err)
{
    const sql_kv_list *kv = &stmt->u.alter.properties;
    int set = stmt->u.alter.what == SQL_ALTER_SET_PROPERTIES;
    dlog_metadata md = t->snap->metadata;
    const dlog_map *old = &t->snap->metadata.configuration;
    dlog_kv *items = arena_calloc(b->a, old->n + kv->n + 2, sizeof(dlog_kv));
    size_t n = 0, idx, k;
    buf params = BUF_INIT;
    const char *p[4];
    const dlog_protocol *protocol = NULL;
    dlog_map rest = {0, NULL}, extra = {0, NULL};
    int mapping_on = 0;
    silt_status rc = SILT_OK;
    if (items == NULL)
        return err_nomem(err);
    for (idx = 0; idx < old->n; idx++) {
        for (k = 0; k < kv->n && strcmp(kv->items[k].key, old->items[idx].key) != 0; k++)
            ;
        if (k == kv->n)
            items[n++] = old->items[idx];
    }
    if (!set && !stmt->u.alter.if_exists) {
        for (k = 0; k < kv->n; k++)
            if (dlog_map_get(old, kv->items[k].key, NULL) == NULL)
                return sql_bind_error(b, err, kv->items[k].pos, SILT_BIND,
                                  "[UNSET_NONEXISTENT_PROPERTIES] Attempted to unset non-existent "
                                  "properties [`%s`] in table %s", kv->items[k].key, t->display);
    }
    for (k = 0; set && k < kv->n; k++)
        if (strcmp(kv->items[k].key, "delta.columnMapping.mode") == 0)
            SILT_RETURN_IF_ERROR(sql_exec_mapping_upgrade(b, t, kv->items[k].value, &md,
                                                          &extra, &mapping_on, err));
    if (set)
        SILT_RETURN_IF_ERROR(protocol_properties(b, kv, t, mapping_on, &rest, &protocol, err));
    for (k = 0; set && k < rest.n; k++)
        items[n++] = rest.items[k];
    for (k = 0; k < extra.n; k++) { /* maxColumnId after the mode, as Delta writes them */
        for (idx = 0; idx < n && strcmp(items[idx].key, extra.items[k].key) != 0; idx++)
            ;
        items[idx] = extra.items[k];
        if (idx == n)
            n++;
    }
    rc = buf_append_char(&params, set ? '{' : '[', err);
    for (k = 0; rc == SILT_OK && k < kv->n; k++) {
        if (k > 0)
            rc = buf_append_char(&params, ',', err);
        if (rc == SILT_OK)
            rc = text_spark_json_string(&params, kv->items[k].key, strlen(kv->items[k].key), err);
        if (rc == SILT_OK && set) {
            const char *value = kv->items[k].value ? kv->items[k].value : "";
            rc = buf_append_char(&params, ':', err);
            if (rc == SILT_OK)
                rc = text_spark_json_string(&params, value, strlen(value), err);
        }
    }
    if (rc == SILT_OK)
        rc = buf_append_char(&params, set ? '}' : ']', err);
    md.configuration.n = n;
    md.configuration.items = items;
    p[0] = "properties";
    p[1] = rc == SILT_OK ? arena_strdup(b->a, buf_cstr(&params)) : NULL;
    p[2] = "ifExists";
    p[3] = stmt->u.alter.if_exists ? "true" : "false";
    buf_clear(&params);
    SILT_RETURN_IF_ERROR(rc);
    if (p[1] == NULL)
        return err_nomem(err);
    return sql_exec_commit_metadata(t, &md, protocol,
                                    set ? "SET TBLPROPERTIES" : "UNSET TBLPROPERTIES", p,
                                    set ? 1 : 2, err);
}

silt_status sql_exec_alter_table(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    exec_target t;
    sql_alter_kind what = stmt->u.alter.what;
    (void)out;
    if (what == SQL_ALTER_RENAME_TO || what == SQL_ALTER_SET_LOCATION)
        return sql_bind_error(b, err, stmt->pos, SILT_UNSUPPORTED, "ALTER TABLE %s is not "
                          "supported yet", what == SQL_ALTER_RENAME_TO ? "RENAME TO"
                                                                        : "SET LOCATION");
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, &stmt->u.alter.name, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, &stmt->u.alter.name, &t, err));
    if (what == SQL_ALTER_SET_PROPERTIES || what == SQL_ALTER_UNSET_PROPERTIES)
        return alter_properties(b, stmt, &t, err);
    return sql_exec_alter_schema(b, stmt, &t, err);
}
