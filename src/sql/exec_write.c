/*
 * exec_write.c - the tables a statement writes, CREATE TABLE [AS SELECT]
 * and INSERT.
 *
 * A target is `delta.`/path``, a path string, or a catalog table (managed
 * under the warehouse, or external at its LOCATION). Rows of a query reach
 * the Delta writer batch by batch, so a CTAS of millions of rows holds only
 * the writer's open row groups in memory.
 */
#include <string.h>

#include "delta/write.h"
#include "sql/exec.h"
#include "sql/settings.h"
#include "util/mem.h"
#include "util/time.h"

static void free_store(void *p) { io_store_free(p); }
static void free_snapshot(void *p) { delta_snapshot_free(p); }
static void free_writer(void *p) { delta_write_free(p); }

static silt_status keep(binder *b, void (*fn)(void *), void *obj, silt_error *err)
{
    if (arena_on_cleanup(b->a, fn, obj) == 0) {
        fn(obj);
        return err_nomem(err);
    }
    return SILT_OK;
}

int sql_exec_setting_true(const binder *b, const char *key)
{
    const char *v = sql_session_get(b->s, key);
    return v != NULL && util_str_casecmp(v, "true") == 0;
}

silt_status sql_exec_app_txn(binder *b, const delta_snapshot *snap, delta_app_txn *out,
                             int *skip, silt_error *err)
{
    const char *app = sql_session_get(b->s, SQL_SETTING_TXN_APP_ID);
    const char *version = sql_session_get(b->s, SQL_SETTING_TXN_VERSION);
    out->app_id = NULL;
    out->version = 0;
    *skip = 0;
    if (app == NULL && version == NULL)
        return SILT_OK;
    if (app == NULL || version == NULL)
        return err_set(err, SILT_INVALID, "[DELTA_INVALID_IDEMPOTENT_WRITES_OPTIONS] Invalid "
                       "options for idempotent Dataframe writes: Both %s and %s must be "
                       "specified for idempotent Delta writes", SQL_SETTING_TXN_APP_ID,
                       SQL_SETTING_TXN_VERSION);
    /* SET checked the number (sql_settings_normalize); a C API caller's value is checked here */
    if (!util_str_to_int64(version, strlen(version), &out->version))
        return err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE] the value '%s' of the config "
                       "\"%s\" is invalid: it must be a whole number", version,
                       SQL_SETTING_TXN_VERSION);
    out->app_id = app;
    *skip = delta_app_txn_done(snap, out);
    return SILT_OK;
}

/* The session's test hook (sql_session_options.wrap_table_store) over a just opened store. */
static silt_status wrap_store(binder *b, io_store **store, silt_error *err)
{
    silt_status rc;
    if (b->s->wrap_table_store == NULL)
        return SILT_OK;
    rc = b->s->wrap_table_store(store, b->s->wrap_payload, err);
    if (rc != SILT_OK) {
        io_store_free(*store);
        *store = NULL;
    }
    return rc;
}

/*
 * The file size a write aims at, from the session setting
 * silt.write.targetFileSize (a Spark byte string, quoted or not:
 * "134217728", '64m', '1g', powers of 1024; sql_settings_parse_size_as) when
 * the table has no delta.targetFileSize of its own (the table property
 * wins, as in Delta); 0 = the writer's default. A value that is not a
 * size, or more than 1 TiB, is refused, naming the setting.
 */
silt_status sql_exec_commit_retry_timeout(binder *b, int64_t *out, silt_error *err)
{
    const char *text = sql_session_get(b->s, SQL_SETTING_COMMIT_RETRY_TIMEOUT);
    size_t len;
    *out = 0;
    if (text == NULL)
        return SILT_OK;
    len = strlen(text);
    if (len > 2 && (text[0] == '\'' || text[0] == '"') && text[len - 1] == text[0]) {
        text = arena_strndup(b->a, text + 1, len - 2); /* SET keeps the raw text */
        if (text == NULL)
            return err_nomem(err);
    }
    if (delta_parse_interval_ms(text, out, err) != SILT_OK || *out <= 0)
        return err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE] The value '%s' in the config "
                       "\"%s\" is invalid: it must be a positive interval such as \"10 minutes\"",
                       text, SQL_SETTING_COMMIT_RETRY_TIMEOUT);
    return SILT_OK;
}

static silt_status session_target_size(binder *b, const dlog_map *table_conf, int64_t *out,
                                       silt_error *err)
{
    const char *raw = sql_session_get(b->s, "silt.write.targetFileSize"), *text = raw;
    size_t len;
    int64_t value = 0;
    *out = 0;
    if (text == NULL || (table_conf != NULL &&
                         dlog_map_get(table_conf, "delta.targetFileSize", NULL) != NULL))
        return SILT_OK;
    len = strlen(text);
    if (len > 2 && (text[0] == '\'' || text[0] == '"') && text[len - 1] == text[0]) {
        text = arena_strndup(b->a, text + 1, len - 2); /* SET keeps the raw text: '64m' */
        if (text == NULL)
            return err_nomem(err);
    }
    if (!sql_settings_parse_size_as(text, SETTINGS_SIZE_SPARK, &value) || value > (INT64_C(1) << 40))
        return err_set(err, SILT_INVALID,
                       "setting \"silt.write.targetFileSize\" has value \"%s\"; expected a "
                       "positive size in bytes, optionally with k, m or g",
                       raw);
    *out = value;
    return SILT_OK;
}

static silt_status open_store(binder *b, exec_target *t, int create, silt_error *err)
{
    if (t->store != NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(sql_session_store_open(b->s, t->path, create, &t->store, err));
    SILT_RETURN_IF_ERROR(wrap_store(b, &t->store, err));
    SILT_RETURN_IF_ERROR(sql_branch_wrap(t->view, &t->store, err));
    return keep(b, free_store, t->store, err);
}

/* Loads the latest snapshot when the folder holds a Delta table. */
static silt_status load_snapshot(binder *b, exec_target *t, silt_error *err)
{
    silt_error scratch = SILT_ERROR_INIT;
    silt_status rc;
    t->exists = 0;
    t->snap = NULL;
    if (t->store == NULL) {
        rc = sql_session_store_open(b->s, t->path, 0, &t->store, &scratch);
        if (rc == SILT_NOTFOUND || rc == SILT_IO) {
            t->store = NULL;
            return SILT_OK; /* no folder yet: no table */
        }
        if (rc != SILT_OK)
            return err_set(err, rc, "%s", scratch.message);
        SILT_RETURN_IF_ERROR(wrap_store(b, &t->store, err));
        SILT_RETURN_IF_ERROR(sql_branch_wrap(t->view, &t->store, err));
        SILT_RETURN_IF_ERROR(keep(b, free_store, t->store, err));
    }
    rc = delta_snapshot_load(&t->snap, t->store, -1, err);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        t->snap = NULL;
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(rc);
    t->exists = 1;
    return keep(b, free_snapshot, t->snap, err);
}

/* Delta's time travel written as @v<n> or @<yyyyMMddHHmmssSSS>. */
static int is_time_ref(const char *ref)
{
    int64_t v;
    if ((ref[0] == 'v' || ref[0] == 'V') && util_str_to_int64(ref + 1, strlen(ref + 1), &v))
        return 1;
    return strlen(ref) == 17 && util_str_to_int64(ref, 17, &v);
}

silt_status sql_exec_resolve_target(binder *b, const sql_name *n, exec_target *out, silt_error *err)
{
    memset(out, 0, sizeof(*out));
    if (b->target_ref != NULL &&
        (n->is_path || n->n_parts > 2 || b->s->cat == NULL ||
         (n->n_parts == 2 && (util_str_casecmp(n->parts[0].name, "delta") == 0 ||
                              util_str_casecmp(n->parts[0].name, "parquet") == 0))))
        return sql_bind_error(b, err, n->pos, SILT_BIND, "a branch or tag reference (@%s) names a "
                              "table of the warehouse's catalog, not a path", b->target_ref);
    if (n->is_path || (n->n_parts == 2 && util_str_casecmp(n->parts[0].name, "delta") == 0)) {
        out->path = io_location_local_path(n->parts[n->n_parts - 1].name);
        out->display = arena_sprintf(b->a, "delta.`%s`", out->path);
    } else if (n->n_parts == 2 && (util_str_casecmp(n->parts[0].name, "parquet") == 0 ||
                                   util_str_casecmp(n->parts[0].name, "csv") == 0 ||
                                   util_str_casecmp(n->parts[0].name, "json") == 0)) {
        return sql_bind_error(b, err, n->pos, SILT_UNSUPPORTED,
                          "[UNSUPPORTED_DATASOURCE] writing to %s.`%s` is not supported: silt "
                          "writes Delta tables only", n->parts[0].name, n->parts[1].name);
    } else if (n->n_parts > 2) {
        return sql_bind_error(b, err, n->pos, SILT_BIND, "[REQUIRES_SINGLE_PART_NAMESPACE] table "
                          "name \"%s\" has too many parts", n->parts[n->n_parts - 1].name);
    } else {
        cat_state *state;
        const cat_table *t;
        out->database = n->n_parts == 2 ? n->parts[0].name : b->s->database;
        out->name = n->parts[n->n_parts - 1].name;
        out->display = arena_sprintf(b->a, "%s.%s", out->database, out->name);
        {
            silt_error denied = SILT_ERROR_INIT;
            if (sql_session_check_database(b->s, out->database, &denied) != SILT_OK)
                return sql_bind_error(b, err, n->pos, SILT_INVALID, "%s", denied.message);
        }
        if (b->s->cat == NULL)
            return SILT_OK; /* not in a catalog: callers say "not found" or "needs a warehouse" */
        if (b->target_ref != NULL) {
            const char *hash = strchr(b->target_ref, '#');
            size_t len = hash ? (size_t)(hash - b->target_ref) : strlen(b->target_ref);
            char *ref = arena_strndup(b->a, b->target_ref, len);
            if (ref == NULL)
                return err_nomem(err);
            SILT_RETURN_IF_ERROR(catalog_load_ref(b->s->cat, ref, hash ? hash + 1 : NULL, &state,
                                                  err));
            if (hash != NULL && state->ref_id != NULL)
                state->ref_type = CAT_REF_TAG; /* a fixed commit: read-only, as a tag */
        } else {
            SILT_RETURN_IF_ERROR(catalog_load(b->s->cat, &state, err));
        }
        t = catalog_state_find_table(state, out->database, out->name);
        if (state->ref_id != NULL)
            out->ref = arena_strdup(b->a, state->ref_name);
        if (t != NULL && t->kind != CAT_VIEW) {
            const char *loc = t->location;
            silt_status vrc = sql_branch_view(b, state, t, sql_branch_state_is_head(b, state),
                                              (struct delta_branch_view **)&out->view, NULL, err);
            if (vrc != SILT_OK) {
                catalog_state_free(state);
                return vrc;
            }
            out->in_catalog = 1;
            out->managed = t->kind == CAT_MANAGED;
            out->path = catalog_location_path(b->a, io_store_root(b->s->warehouse), loc);
            if (t->provider != NULL && util_str_casecmp(t->provider, "delta") != 0) {
                silt_status rc = sql_bind_error(b, err, n->pos, SILT_UNSUPPORTED,
                                            "table %s uses provider \"%s\": silt writes Delta "
                                            "tables only", out->display, t->provider);
                catalog_state_free(state);
                return rc;
            }
        } else if (t != NULL) {
            catalog_state_free(state);
            return sql_bind_error(b, err, n->pos, SILT_BIND, "[EXPECT_TABLE_NOT_VIEW] %s is a view, "
                              "not a table", out->display);
        } else if (state->ref_id != NULL) {
            /* a table made on the reference: every version of it is branch-local */
            cat_table fresh;
            silt_status vrc;
            memset(&fresh, 0, sizeof(fresh));
            fresh.database = out->database;
            fresh.name = out->name;
            fresh.on_ref = 1;
            fresh.fork = -1;
            fresh.pin = -1;
            vrc = sql_branch_view(b, state, &fresh, sql_branch_state_is_head(b, state),
                                  (struct delta_branch_view **)&out->view, NULL, err);
            if (vrc != SILT_OK) {
                catalog_state_free(state);
                return vrc;
            }
        }
        catalog_state_free(state);
        if (out->path == NULL)
            return out->display ? SILT_OK : err_nomem(err);
    }
    if (out->display == NULL || out->path == NULL)
        return err_nomem(err);
    return load_snapshot(b, out, err);
}

silt_status sql_exec_resolve_target_at(binder *b, const sql_name *n, const sql_table_version *at,
                                       uint32_t pos, exec_target *out, silt_error *err)
{
    silt_status rc;
    if (at->version != NULL || at->timestamp != NULL || (at->ref != NULL && is_time_ref(at->ref)))
        return sql_bind_error(b, err, pos, SILT_BIND, "cannot change an old version of a table "
                              "(VERSION/TIMESTAMP AS OF, @v<n>)");
    b->target_ref = at->ref; /* INSERT INTO t@etl: the table on branch etl */
    rc = sql_exec_resolve_target(b, n, out, err);
    b->target_ref = NULL;
    return rc;
}

silt_status sql_exec_require_table(binder *b, const sql_name *n, const exec_target *t,
                               silt_error *err)
{
    if (t->exists)
        return SILT_OK;
    if (t->path != NULL && t->database == NULL)
        return sql_bind_error(b, err, n->pos, SILT_NOTFOUND, "[DELTA_MISSING_DELTA_TABLE] %s is not "
                          "a Delta table", t->display);
    if (t->in_catalog)
        return sql_bind_error(b, err, n->pos, SILT_NOTFOUND, "[DELTA_MISSING_DELTA_TABLE] table %s "
                          "has no Delta log at \"%s\"", t->display, t->path);
    return sql_bind_error(b, err, n->pos, SILT_NOTFOUND, "[TABLE_OR_VIEW_NOT_FOUND] The table or "
                      "view `%s`.`%s` cannot be found%s", t->database, t->name,
                      b->s->cat == NULL ? " (no warehouse is open: use --warehouse DIR, or "
                                          "delta.`/path`)" : "");
}

silt_status sql_exec_counts_result(binder *b, const char *const *names, const int64_t *values,
                               size_t n, exec_out *out, silt_error *err)
{
    col_field *fields = arena_calloc(b->a, n, sizeof(col_field));
    col_batch *batch = arena_calloc(b->a, 1, sizeof(col_batch));
    col_batch **list = arena_calloc(b->a, 1, sizeof(col_batch *));
    size_t idx;
    if (fields == NULL || batch == NULL || list == NULL ||
        (batch->cols = arena_calloc(b->a, n, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        col_builder *bld;
        fields[idx].name = names[idx];
        fields[idx].type = col_type_primitive(COL_LONG);
        fields[idx].nullable = 1;
        fields[idx].field_id = -1;
        SILT_RETURN_IF_ERROR(col_builder_new(&bld, b->a, fields[idx].type, err));
        if (values != NULL)
            SILT_RETURN_IF_ERROR(col_builder_append_int(bld, values[idx], err));
        SILT_RETURN_IF_ERROR(col_builder_finish(bld, &batch->cols[idx], err));
    }
    if ((out->schema = col_type_struct(b->a, n, fields)) == NULL)
        return err_nomem(err);
    batch->schema = out->schema;
    batch->n_rows = values != NULL ? 1 : 0;
    batch->n_cols = n;
    list[0] = batch;
    return engine_op_values(&out->op, b->ctx, out->schema, list, 1, err);
}

/* ---------------------------------------------------------------- query rows into a writer */

/*
 * Pulls every row of op into w, dense batch by batch. check (may be NULL)
 * is a predicate every row must satisfy (REPLACE WHERE).
 */
static silt_status check_rows(binder *b, const expr *check, const char *check_text,
                              const col_batch *batch, arena *a, silt_error *err)
{
    int32_t *sel = arena_alloc(a, (size_t)(batch->n_rows + 1) * sizeof(int32_t));
    int64_t n_out = 0;
    if (sel == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(expr_filter(check, b->ctx, batch, NULL, batch->n_rows, a, sel, &n_out,
                                     err));
    if (n_out != batch->n_rows)
        return err_set(err, SILT_RUNTIME, "[DELTA_REPLACE_WHERE_MISMATCH] Written data does not "
                       "conform to partial table overwrite condition or constraint '%s'",
                       check_text ? check_text : "");
    return SILT_OK;
}

/* INSERT into a table with an identity column the rows do not give: its values, in order. */
typedef struct ident_fill {
    int64_t col;   /* in the written rows */
    int64_t next;  /* the value of the next row */
    int64_t step;
    int64_t count; /* values assigned */
    int64_t last;  /* the last value assigned */
    int exhausted; /* the next value would overflow */
} ident_fill;

/* Replaces column idf->col of rows by the next identity values. */
static silt_status fill_identity(ident_fill *idf, col_batch *rows, arena *a, silt_error *err)
{
    col_vec **cols = arena_calloc(a, rows->n_cols + 1, sizeof(col_vec *));
    col_vec *v;
    int64_t r;
    if (cols == NULL)
        return err_nomem(err);
    memcpy(cols, rows->cols, rows->n_cols * sizeof(col_vec *));
    SILT_RETURN_IF_ERROR(col_vec_new(&v, a, col_type_primitive(COL_LONG), rows->n_rows, 0, err));
    for (r = 0; r < rows->n_rows; r++) {
        if (idf->exhausted)
            return err_set(err, SILT_RUNTIME, "[ARITHMETIC_OVERFLOW] the identity column's next "
                           "value overflows BIGINT");
        ((int64_t *)v->values)[r] = idf->next;
        idf->last = idf->next;
        idf->count++;
        idf->exhausted = __builtin_add_overflow(idf->next, idf->step, &idf->next);
    }
    cols[idf->col] = v;
    rows->cols = cols;
    return SILT_OK;
}

static silt_status pump_ident(binder *b, engine_op *op, const expr *check, const char *check_text,
                              delta_writer *w, ident_fill *idf, silt_error *err);

static silt_status pump(binder *b, engine_op *op, const expr *check, const char *check_text,
                        delta_writer *w, silt_error *err)
{
    return pump_ident(b, op, check, check_text, w, NULL, err);
}

static silt_status pump_ident(binder *b, engine_op *op, const expr *check, const char *check_text,
                              delta_writer *w, ident_fill *idf, silt_error *err)
{
    arena *scratch = arena_new(b->a, "write batch");
    silt_status rc;
    if (scratch == NULL)
        return err_nomem(err);
    rc = engine_op_open(op, err);
    while (rc == SILT_OK) {
        engine_chunk *chunk;
        col_batch dense;
        size_t idx;
        rc = engine_op_next(op, &chunk, err);
        if (rc != SILT_OK || chunk == NULL)
            break;
        if (chunk->n_sel == 0)
            continue;
        arena_reset(scratch);
        dense = chunk->batch;
        if (chunk->sel != NULL || chunk->n_sel != chunk->batch.n_rows) {
            dense.n_rows = chunk->n_sel;
            dense.cols = arena_calloc(scratch, dense.n_cols + 1, sizeof(col_vec *));
            if (dense.cols == NULL)
                rc = err_nomem(err);
            for (idx = 0; rc == SILT_OK && idx < dense.n_cols; idx++)
                rc = vec_compact(&dense.cols[idx], scratch, chunk->batch.cols[idx], chunk->sel,
                                 chunk->n_sel, err);
        }
        dense.schema = op->schema;
        if (rc == SILT_OK && idf != NULL)
            rc = fill_identity(idf, &dense, scratch, err);
        if (rc == SILT_OK && check != NULL)
            rc = check_rows(b, check, check_text, &dense, scratch, err);
        if (rc == SILT_OK)
            rc = delta_write_batch(w, &dense, err);
    }
    /* an interrupt after the last batch still stops the write before its commit */
    if (rc == SILT_OK)
        rc = engine_check_interrupt(b->ctx, err);
    engine_op_close(op);
    return rc;
}

/* Projects p to its visible columns (the planner's hidden ones are not rows to write). */
static silt_status visible_columns(binder *b, plan *p, silt_error *err)
{
    expr **exprs = arena_calloc(b->a, p->scope.n + 1, sizeof(expr *));
    const char **names = arena_calloc(b->a, p->scope.n + 1, sizeof(char *));
    size_t idx, n = 0;
    if (exprs == NULL || names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < p->scope.n; idx++) {
        if (p->scope.cols[idx].hidden)
            continue;
        SILT_RETURN_IF_ERROR(expr_column(&exprs[n], b->a, (int64_t)idx, p->scope.cols[idx].type,
                                         err));
        names[n++] = p->scope.cols[idx].name;
    }
    return sql_plan_project(b, p, exprs, names, n, err);
}

/* ---------------------------------------------------------------- CREATE TABLE */

/* Spark refuses a CTAS whose query names a column twice (case-insensitively,
 * as it resolves names) before anything is written. */
static silt_status check_query_names(binder *b, const sql_stmt *stmt, const col_type *schema,
                                     silt_error *err)
{
    size_t idx, other;
    for (idx = 1; idx < schema->n_fields; idx++)
        for (other = 0; other < idx; other++)
            if (util_str_casecmp(schema->fields[other].name, schema->fields[idx].name) == 0)
                return sql_bind_error(b, err, stmt->pos, SILT_BIND, "[COLUMN_ALREADY_EXISTS] The "
                                  "column `%s` already exists. Choose another name or rename "
                                  "the existing column", schema->fields[other].name);
    return SILT_OK;
}

typedef struct register_args {
    cat_table table;
} register_args;

static silt_status register_change(cat_state *state, void *payload, silt_error *err)
{
    return catalog_state_add_table(state, &((register_args *)payload)->table, err);
}

static silt_status properties_map(binder *b, const sql_kv_list *kv, dlog_map *out,
                                  silt_error *err)
{
    size_t idx;
    out->n = kv->n;
    out->items = arena_calloc(b->a, kv->n + 1, sizeof(dlog_kv));
    if (out->items == NULL)
        return err_nomem(err);
    for (idx = 0; idx < kv->n; idx++) {
        out->items[idx].key = (char *)kv->items[idx].key;
        out->items[idx].value = (char *)(kv->items[idx].value ? kv->items[idx].value : "");
    }
    return SILT_OK;
}

/*
 * Delta's mergeGlobalConfigs: every spark.databricks.delta.properties.defaults.<name>
 * of the session gives a new table delta.<name> unless its TBLPROPERTIES set that key.
 */
static silt_status add_property_defaults(binder *b, dlog_map *conf, silt_error *err)
{
    const size_t plen = strlen(SQL_SETTING_PROPERTY_DEFAULTS);
    const sql_setting *it;
    size_t n = 0;
    dlog_kv *items;
    for (it = b->s->settings; it != NULL; it = it->next)
        n += strncmp(it->key, SQL_SETTING_PROPERTY_DEFAULTS, plen) == 0;
    if (n == 0)
        return SILT_OK;
    items = arena_calloc(b->a, conf->n + n + 1, sizeof(dlog_kv));
    if (items == NULL)
        return err_nomem(err);
    memcpy(items, conf->items, conf->n * sizeof(dlog_kv));
    n = conf->n;
    for (it = b->s->settings; it != NULL; it = it->next) {
        char *key;
        int found = 0;
        if (strncmp(it->key, SQL_SETTING_PROPERTY_DEFAULTS, plen) != 0)
            continue;
        if ((key = arena_sprintf(b->a, "delta.%s", it->key + plen)) == NULL)
            return err_nomem(err);
        (void)dlog_map_get(conf, key, &found);
        if (found)
            continue; /* the table's own property wins */
        items[n].key = key;
        items[n++].value = it->value;
    }
    conf->items = items;
    conf->n = n;
    return SILT_OK;
}

static silt_status schema_of_columns(binder *b, const sql_column_list *cols, const col_type **out,
                                     silt_error *err)
{
    col_field *fields = arena_calloc(b->a, cols->n + 1, sizeof(col_field));
    size_t idx, other, n_identity = 0;
    if (fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < cols->n; idx++) {
        const sql_column_def *c = &cols->items[idx];
        if (c->default_value != NULL)
            return sql_bind_error(b, err, c->name.pos, SILT_UNSUPPORTED, "column defaults are not "
                              "supported yet (column \"%s\")", c->name.name);
        if (c->identity && n_identity++ > 0)
            return sql_bind_error(b, err, c->name.pos, SILT_UNSUPPORTED, "silt supports one "
                              "identity column per table (column \"%s\")", c->name.name);
        for (other = 0; other < idx; other++)
            if (util_str_casecmp(fields[other].name, c->name.name) == 0)
                return sql_bind_error(b, err, c->name.pos, SILT_BIND, "[COLUMN_ALREADY_EXISTS] The "
                                  "column `%s` already exists", c->name.name);
        fields[idx].name = c->name.name;
        fields[idx].type = c->type.type;
        fields[idx].nullable = !c->not_null;
        fields[idx].field_id = -1;
    }
    *out = col_type_struct(b->a, cols->n, fields);
    if (*out == NULL)
        return err_nomem(err);
    for (idx = 0; idx < cols->n; idx++)
        if (cols->items[idx].generated != NULL)
            SILT_RETURN_IF_ERROR(
                sql_generated_create_field(b, cols, idx, *out, (col_field *)&(*out)->fields[idx],
                                           err));
        else if (cols->items[idx].identity)
            SILT_RETURN_IF_ERROR(sql_identity_create_field(b, &cols->items[idx],
                                                           (col_field *)&(*out)->fields[idx], err));
    return SILT_OK;
}

static silt_status check_partition_columns(binder *b, const sql_ident_list *parts,
                                           const col_type *schema, silt_error *err)
{
    size_t idx, f;
    for (idx = 0; idx < parts->n; idx++) {
        for (f = 0; f < schema->n_fields; f++)
            if (util_str_casecmp(schema->fields[f].name, parts->items[idx].name) == 0)
                break;
        if (f == schema->n_fields)
            return sql_bind_error(b, err, parts->items[idx].pos, SILT_BIND,
                              "[DELTA_COLUMN_NOT_FOUND_IN_SCHEMA] partition column `%s` is not "
                              "a column of the table", parts->items[idx].name);
    }
    return SILT_OK;
}

/*
 * The location of a new catalog table, qualified as Spark's session catalog
 * does at CREATE: a relative LOCATION is joined to its database's location,
 * a file: URI becomes its path; a managed table goes to <database
 * location>/<table>. Locations under the default places stay relative to the
 * warehouse (so the folder can move); the rest are stored absolute.
 */
/* A location stored relative to the warehouse (a default place). */
static int is_relative(const char *location)
{
    return location[0] != '/' && strncmp(location, "file:", 5) != 0 &&
           strstr(location, "://") == NULL;
}

static silt_status table_location(binder *b, exec_target *t, const char *loc, uint32_t pos,
                                  int *managed, const char **cat_location, silt_error *err)
{
    const char *root = io_store_root(b->s->warehouse);
    const cat_database *db;
    cat_state *state;
    char *db_path = NULL, *qualified;
    /* Before any file is written: a table committed but not registered would block
     * the name's managed folder. */
    SILT_RETURN_IF_ERROR(catalog_load(b->s->cat, &state, err));
    db = catalog_state_find_database(state, t->database);
    if (db != NULL)
        db_path = catalog_location_path(b->a, root, db->location);
    if (db != NULL && loc == NULL && is_relative(db->location)) {
        char *rel = db->location[0] ? arena_sprintf(b->a, "%s/%s", db->location, t->name)
                                    : arena_strdup(b->a, t->name);
        if (rel != NULL)
            util_str_ascii_lower(rel + strlen(rel) - strlen(t->name), strlen(t->name));
        *cat_location = rel;
    }
    catalog_state_free(state);
    if (db == NULL)
        return sql_bind_error(b, err, pos, SILT_NOTFOUND, "[SCHEMA_NOT_FOUND] The schema `%s` "
                              "cannot be found", t->database);
    if (db_path == NULL)
        return err_nomem(err);
    *managed = loc == NULL;
    if (*cat_location != NULL) { /* managed, in a database at its default place */
        t->path = catalog_location_path(b->a, root, *cat_location);
        return t->path != NULL ? SILT_OK : err_nomem(err);
    }
    if (loc == NULL)
        loc = arena_sprintf(b->a, "%s", t->name);
    qualified = loc ? io_location_qualify(loc, db_path) : NULL;
    if (qualified == NULL)
        return err_nomem(err);
    t->path = arena_strdup(b->a, qualified);
    mem_free(qualified);
    if (t->path == NULL)
        return err_nomem(err);
    if (*managed) /* names are stored lower-case, and so are their folders */
        util_str_ascii_lower((char *)t->path + strlen(t->path) - strlen(t->name), strlen(t->name));
    *cat_location = t->path;
    return SILT_OK;
}

/* Where a new table goes: its path target, LOCATION, or the warehouse's managed folder. */
static silt_status create_target(binder *b, const sql_stmt *stmt, exec_target *t, int *managed,
                                 const char **cat_location, silt_error *err)
{
    const sql_name *n = &stmt->u.create_table.name;
    const char *loc = stmt->u.create_table.location;
    *managed = 0;
    *cat_location = NULL;
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, n, t, err));
    if (t->database == NULL) {
        if (loc != NULL)
            return sql_bind_error(b, err, stmt->pos, SILT_BIND, "LOCATION cannot be given for a "
                              "path table %s", t->display);
        return SILT_OK;
    }
    if (b->s->cat == NULL)
        return sql_bind_error(b, err, n->pos, SILT_UNSUPPORTED, "CREATE TABLE %s needs a warehouse "
                          "(silt sql --warehouse DIR); without one write to delta.`/path`",
                          t->display);
    if (t->in_catalog)
        return SILT_OK; /* IF NOT EXISTS / OR REPLACE decide */
    SILT_RETURN_IF_ERROR(table_location(b, t, loc, n->pos, managed, cat_location, err));
    if (t->path == NULL)
        return err_nomem(err);
    t->store = NULL;
    return load_snapshot(b, t, err);
}

static silt_status register_table(binder *b, const sql_stmt *stmt, const exec_target *t,
                                  int managed, const char *location, silt_error *err)
{
    register_args args;
    memset(&args, 0, sizeof(args));
    args.table.database = t->database;
    args.table.name = t->name;
    args.table.kind = managed ? CAT_MANAGED : CAT_EXTERNAL;
    args.table.provider = "delta";
    args.table.location = location;
    args.table.comment = stmt->u.create_table.comment;
    args.table.created_micros = time_now_micros();
    return catalog_commit(b->s->cat, register_change, &args, NULL, err);
}

static silt_status json_list(buf *out, const char *const *items, size_t n, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_append_char(out, '[', err));
    for (idx = 0; idx < n; idx++) {
        const char *c;
        SILT_RETURN_IF_ERROR(buf_append_str(out, idx ? ",\"" : "\"", err));
        for (c = items[idx]; *c != '\0'; c++) {
            if (*c == '"' || *c == '\\')
                SILT_RETURN_IF_ERROR(buf_append_char(out, '\\', err));
            SILT_RETURN_IF_ERROR(buf_append_char(out, *c, err));
        }
        SILT_RETURN_IF_ERROR(buf_append_char(out, '"', err));
    }
    return buf_append_char(out, ']', err);
}

/* Spark's properties parameter: a JSON object of the table's configuration. */
static silt_status props_json(buf *out, const dlog_map *conf, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_append_char(out, '{', err));
    for (idx = 0; idx < conf->n; idx++) {
        const char *pair[2];
        buf one = BUF_INIT;
        silt_status rc;
        pair[0] = conf->items[idx].key;
        pair[1] = conf->items[idx].value ? conf->items[idx].value : "";
        /* ["k","v"] -> "k":"v" */
        rc = json_list(&one, pair, 2, err);
        if (rc == SILT_OK) {
            char *text = (char *)buf_cstr(&one);
            char *comma = strstr(text, "\",\"");
            if (comma != NULL)
                comma[1] = ':';
            text[strlen(text) - 1] = '\0';
            rc = buf_printf(out, err, "%s%s", idx ? "," : "", text + 1);
        }
        buf_clear(&one);
        SILT_RETURN_IF_ERROR(rc);
    }
    return buf_append_char(out, '}', err);
}

/* The parameters Spark records for CREATE OR REPLACE / REPLACE TABLE. */
static silt_status replace_params(delta_txn *txn, const exec_target *t, const dlog_metadata *md,
                                  const buf *parts, buf *props, silt_error *err)
{
    SILT_RETURN_IF_ERROR(props_json(props, &md->configuration, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "isManaged", t->managed ? "true" : "false",
                                             err));
    SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "description", md->description, err));
    SILT_RETURN_IF_ERROR(delta_txn_set_param(txn, "partitionBy", buf_cstr(parts), err));
    return delta_txn_set_param(txn, "properties", buf_cstr(props), err);
}

/*
 * CREATE OR REPLACE / REPLACE TABLE over an existing table: one commit
 * that removes every live file, sets the new schema, partitioning and
 * properties (the table keeps its id) and adds the new rows' files.
 */
/* REPLACE keeps the table's protocol, upgraded as its protocol properties ask (never down). */
static silt_status replace_protocol(binder *b, delta_txn *txn, const exec_target *t,
                                    const dproto_request *req, silt_error *err)
{
    dlog_protocol p;
    int changed = 0;
    if (req == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(dproto_request_apply(&t->snap->protocol, req, b->a, &p, &changed, err));
    return changed ? delta_txn_set_protocol(txn, &p, err) : SILT_OK;
}

static silt_status replace_table(binder *b, const sql_stmt *stmt, exec_target *t,
                                 delta_writer *w, const delta_commit_options *co,
                                 silt_error *err)
{
    delta_write_output out;
    dlog_metadata md;
    delta_txn *txn;
    buf parts = BUF_INIT, props = BUF_INIT;
    const char *op;
    int64_t removed_bytes = 0;
    size_t idx;
    silt_status rc;
    int as_select = stmt->u.create_table.as_query != NULL;
    const char *save_mode = sql_session_get(b->s, SQL_SETTING_SAVE_MODE);
    const char *user_meta = sql_session_get(b->s, SQL_SETTING_USER_METADATA);
    if (save_mode != NULL && as_select)
        op = "WRITE"; /* the C API's overwriteSchema save, as Spark records it */
    else if (stmt->u.create_table.or_replace)
        op = as_select ? "CREATE OR REPLACE TABLE AS SELECT" : "CREATE OR REPLACE TABLE";
    else
        op = as_select ? "REPLACE TABLE AS SELECT" : "REPLACE TABLE";
    if (!as_select)
        save_mode = NULL;
    SILT_RETURN_IF_ERROR(delta_write_finish(w, &out, err));
    md = *out.metadata;
    md.id = t->snap->metadata.id;
    md.description = stmt->u.create_table.comment;
    SILT_RETURN_IF_ERROR(delta_txn_begin(&txn, t->store, t->snap, op, err));
    rc = delta_txn_read_whole_table(txn, err);
    if (rc == SILT_OK)
        rc = delta_txn_set_app(txn, &co->app_txn, err);
    if (rc == SILT_OK)
        rc = replace_protocol(b, txn, t, co->protocol_request, err);
    if (rc == SILT_OK)
        rc = delta_txn_set_metadata(txn, &md, err);
    for (idx = 0; rc == SILT_OK && idx < t->snap->n_files; idx++) {
        removed_bytes += t->snap->files[idx].size;
        rc = delta_txn_remove_file(txn, &t->snap->files[idx], 1, err);
    }
    for (idx = 0; rc == SILT_OK && idx < out.n_adds; idx++)
        rc = delta_txn_add_file(txn, &out.adds[idx], err);
    if (rc == SILT_OK)
        rc = json_list(&parts, md.partition_columns, md.n_partition_columns, err);
    if (rc == SILT_OK && user_meta != NULL)
        rc = delta_txn_set_user_metadata(txn, user_meta, err);
    if (rc == SILT_OK && save_mode != NULL) {
        /* Spark 4.1 + Delta 4.1's save with overwriteSchema (its canOverwriteSchema is a
         * JSON true; commitInfo parameters here are strings) */
        rc = delta_txn_set_param(txn, "mode", save_mode, err);
        if (rc == SILT_OK)
            rc = delta_txn_set_param(txn, "partitionBy", buf_cstr(&parts), err);
        if (rc == SILT_OK)
            rc = delta_txn_set_param(txn, "canOverwriteSchema", "true", err);
    } else if (rc == SILT_OK) {
        rc = replace_params(txn, t, &md, &parts, &props, err);
    }
    if (rc == SILT_OK && as_select) {
        rc = delta_txn_set_metric(txn, "numFiles", (int64_t)out.n_adds, err);
        if (rc == SILT_OK)
            rc = delta_txn_set_metric(txn, "numOutputRows", out.n_rows, err);
        if (rc == SILT_OK)
            rc = delta_txn_set_metric(txn, "numOutputBytes", out.n_bytes, err);
        if (rc == SILT_OK)
            rc = delta_txn_set_metric(txn, "numRemovedFiles", (int64_t)t->snap->n_files, err);
        if (rc == SILT_OK)
            rc = delta_txn_set_metric(txn, "numRemovedBytes", removed_bytes, err);
    }
    if (rc == SILT_OK)
        rc = delta_txn_commit(txn, NULL, err);
    delta_txn_free(txn);
    buf_clear(&parts);
    buf_clear(&props);
    return rc;
}

silt_status sql_exec_create_table(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    const sql_name *n = &stmt->u.create_table.name;
    exec_target t;
    int managed;
    const char *cat_location;
    const col_type *schema = NULL;
    plan p;
    delta_writer *w = NULL;
    delta_write_options wo = DELTA_WRITE_OPTIONS_INIT;
    delta_commit_options co = DELTA_COMMIT_OPTIONS_INIT;
    dlog_map conf;
    const char **part_names;
    size_t idx;
    int replacing, skip;
    dproto_request preq;
    (void)out;
    if (stmt->u.create_table.using_fmt != NULL &&
        util_str_casecmp(stmt->u.create_table.using_fmt, "delta") != 0)
        return sql_bind_error(b, err, stmt->pos, SILT_UNSUPPORTED, "CREATE TABLE USING %s is not "
                          "supported: silt creates Delta tables (USING DELTA)",
                          stmt->u.create_table.using_fmt);
    if (stmt->u.create_table.temporary || stmt->u.create_table.n_buckets > 0 ||
        stmt->u.create_table.cluster_by.n > 0)
        return sql_bind_error(b, err, stmt->pos, SILT_UNSUPPORTED, "CREATE TABLE with TEMPORARY, "
                          "CLUSTER BY or buckets is not supported yet");
    SILT_RETURN_IF_ERROR(create_target(b, stmt, &t, &managed, &cat_location, err));
    replacing = (stmt->u.create_table.or_replace || stmt->u.create_table.replace) && t.exists &&
                (t.in_catalog || t.database == NULL);
    if (stmt->u.create_table.replace && !stmt->u.create_table.or_replace && !replacing)
        return sql_bind_error(b, err, n->pos, SILT_NOTFOUND, "[DELTA_CANNOT_REPLACE_MISSING_TABLE] "
                          "Table %s cannot be replaced as it does not exist", t.display);
    if (stmt->u.create_table.location != NULL && t.in_catalog && replacing)
        return sql_bind_error(b, err, stmt->pos, SILT_UNSUPPORTED, "CREATE OR REPLACE with a new "
                          "LOCATION is not supported yet");
    if (!replacing && (t.in_catalog || (t.database == NULL && t.exists))) {
        if (stmt->u.create_table.if_not_exists)
            return SILT_OK;
        if (t.in_catalog)
            return sql_bind_error(b, err, n->pos, SILT_EXISTS, "[TABLE_OR_VIEW_ALREADY_EXISTS] "
                              "Cannot create table or view `%s`.`%s` because it already exists",
                              t.database, t.name);
        return sql_bind_error(b, err, n->pos, SILT_EXISTS, "[DELTA_TABLE_ALREADY_EXISTS] Table %s "
                          "already exists", t.display);
    }
    if (stmt->u.create_table.like.n_parts > 0 || stmt->u.create_table.clone) {
        /* DEEP CLONE / LIKE (exec_clone.c) into a new table */
        if (replacing)
            return sql_bind_error(b, err, stmt->pos, SILT_UNSUPPORTED, "CREATE OR REPLACE TABLE ... "
                              "CLONE or LIKE is not supported yet");
        if (t.exists)
            return sql_bind_error(b, err, n->pos, SILT_EXISTS, "[DELTA_TABLE_ALREADY_EXISTS] Table "
                              "%s already exists", t.display);
        SILT_RETURN_IF_ERROR(open_store(b, &t, 1, err));
        SILT_RETURN_IF_ERROR(sql_exec_create_copy(b, stmt, t.store, managed, out, err));
        return t.database != NULL ? register_table(b, stmt, &t, managed, cat_location, err)
                                  : SILT_OK;
    }
    if (t.exists && !replacing) {
        /* A catalog name over an existing Delta folder: register it, schema from its log. */
        if (stmt->u.create_table.as_query != NULL)
            return sql_bind_error(b, err, stmt->pos, SILT_EXISTS, "[DELTA_TABLE_ALREADY_EXISTS] "
                              "cannot create %s AS SELECT: \"%s\" already holds a Delta table",
                              t.display, t.path);
        if (stmt->u.create_table.columns.n > 0) {
            SILT_RETURN_IF_ERROR(schema_of_columns(b, &stmt->u.create_table.columns, &schema,
                                                   err));
            if (!col_type_equal(schema, t.snap->schema))
                return sql_bind_error(b, err, stmt->pos, SILT_INVALID, "[DELTA_CREATE_TABLE_SCHEME_"
                                  "MISMATCH] the specified schema does not match the existing "
                                  "schema at \"%s\"", t.path);
        }
        return register_table(b, stmt, &t, managed, cat_location, err);
    }
    if (stmt->u.create_table.as_query != NULL) {
        /* CTAS carries the idempotent write's txn action, and a replace is skipped as a
         * repeat like any write (Delta's WriteIntoDelta) */
        SILT_RETURN_IF_ERROR(
            sql_exec_app_txn(b, replacing ? t.snap : NULL, &co.app_txn, &skip, err));
        if (skip)
            return SILT_OK;
        if (stmt->u.create_table.columns.n > 0)
            return sql_bind_error(b, err, stmt->pos, SILT_BIND, "CREATE TABLE AS SELECT cannot "
                              "also list columns");
        SILT_RETURN_IF_ERROR(sql_plan_query(b, stmt->u.create_table.as_query, &p, err));
        SILT_RETURN_IF_ERROR(visible_columns(b, &p, err));
        schema = p.op->schema;
        SILT_RETURN_IF_ERROR(check_query_names(b, stmt, schema, err));
    } else {
        if (stmt->u.create_table.columns.n == 0)
            return sql_bind_error(b, err, stmt->pos, SILT_BIND, "[DELTA_SCHEMA_NOT_PROVIDED] CREATE "
                              "TABLE %s needs columns, AS SELECT, or an existing Delta table at "
                              "its LOCATION", t.display);
        SILT_RETURN_IF_ERROR(schema_of_columns(b, &stmt->u.create_table.columns, &schema, err));
    }
    SILT_RETURN_IF_ERROR(check_partition_columns(b, &stmt->u.create_table.partitioned_by, schema,
                                                 err));
    part_names = arena_calloc(b->a, stmt->u.create_table.partitioned_by.n + 1, sizeof(char *));
    if (part_names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < stmt->u.create_table.partitioned_by.n; idx++)
        part_names[idx] = stmt->u.create_table.partitioned_by.items[idx].name;
    SILT_RETURN_IF_ERROR(properties_map(b, &stmt->u.create_table.properties, &conf, err));
    SILT_RETURN_IF_ERROR(add_property_defaults(b, &conf, err));
    /* protocol properties change the protocol and are not stored (Delta) */
    SILT_RETURN_IF_ERROR(dproto_request_take(&conf, &preq, err));
    co.protocol_request = &preq;
    wo.n_partition_columns = stmt->u.create_table.partitioned_by.n;
    wo.partition_columns = part_names;
    wo.configuration = &conf;
    wo.pool = b->ctx->pool;
    SILT_RETURN_IF_ERROR(session_target_size(b, &conf, &wo.target_file_size, err));
    wo.compression = sql_session_get(b->s, SQL_SETTING_PARQUET_CODEC);
    SILT_RETURN_IF_ERROR(open_store(b, &t, 1, err));
    SILT_RETURN_IF_ERROR(delta_write_open(&w, t.store, NULL, schema, &wo, err));
    SILT_RETURN_IF_ERROR(keep(b, free_writer, w, err));
    if (stmt->u.create_table.as_query != NULL)
        SILT_RETURN_IF_ERROR(pump(b, p.op, NULL, NULL, w, err));
    if (replacing)
        return replace_table(b, stmt, &t, w, &co, err);
    co.is_managed = managed; /* Spark: true for a catalog table under the warehouse */
    co.description = stmt->u.create_table.comment;
    co.save_mode = sql_session_get(b->s, SQL_SETTING_SAVE_MODE);
    co.user_metadata = sql_session_get(b->s, SQL_SETTING_USER_METADATA);
    SILT_RETURN_IF_ERROR(sql_exec_commit_retry_timeout(b, &co.retry_timeout_ms, err));
    SILT_RETURN_IF_ERROR(delta_write_commit(w, t.store, NULL,
                                            stmt->u.create_table.as_query ? DELTA_MODE_CTAS
                                                                          : DELTA_MODE_CREATE,
                                            &co, NULL, err));
    if (t.database != NULL)
        return register_table(b, stmt, &t, managed, cat_location, err);
    return SILT_OK;
}

/* ---------------------------------------------------------------- INSERT */

static int64_t table_col(const col_type *schema, const char *name)
{
    size_t idx;
    for (idx = 0; idx < schema->n_fields; idx++)
        if (util_str_casecmp(schema->fields[idx].name, name) == 0)
            return (int64_t)idx;
    return -1;
}

/* The static value of partition column `name` in INSERT's PARTITION clause, or NULL. */
static const sql_expr *static_partition(const sql_stmt *stmt, const char *name)
{
    size_t idx;
    for (idx = 0; idx < stmt->u.insert.n_partition; idx++) {
        const sql_assignment *as = &stmt->u.insert.partition[idx];
        if (as->value != NULL &&
            util_str_casecmp(as->target.parts[as->target.n_parts - 1].name, name) == 0)
            return as->value;
    }
    return NULL;
}

/* Checks the PARTITION clause names partition columns, each once. */
static silt_status check_partition_clause(binder *b, const sql_stmt *stmt,
                                          const delta_snapshot *snap, silt_error *err)
{
    size_t idx, other, k;
    for (idx = 0; idx < stmt->u.insert.n_partition; idx++) {
        const sql_name *nm = &stmt->u.insert.partition[idx].target;
        const char *name = nm->parts[nm->n_parts - 1].name;
        for (k = 0; k < snap->metadata.n_partition_columns; k++)
            if (util_str_casecmp(snap->metadata.partition_columns[k], name) == 0)
                break;
        if (k == snap->metadata.n_partition_columns)
            return sql_bind_error(b, err, nm->pos, SILT_BIND, "[PARTITIONS_NOT_FOUND] `%s` is not a "
                              "partition column of the table", name);
        for (other = 0; other < idx; other++) {
            const sql_name *o = &stmt->u.insert.partition[other].target;
            if (util_str_casecmp(o->parts[o->n_parts - 1].name, name) == 0)
                return sql_bind_error(b, err, nm->pos, SILT_BIND, "[DUPLICATE_KEY] partition column "
                                  "`%s` is given twice", name);
        }
    }
    return SILT_OK;
}

/* Projects the mapped columns plus one literal column per static partition value. */
static silt_status add_static_partitions(binder *b, const sql_stmt *stmt, const col_type *table,
                                         plan *p, expr **exprs, const char **names, size_t n,
                                         silt_error *err)
{
    size_t f, total = n;
    expr **all = arena_calloc(b->a, n + table->n_fields + 1, sizeof(expr *));
    const char **all_names = arena_calloc(b->a, n + table->n_fields + 1, sizeof(char *));
    bind_scope empty = {0, NULL};
    bind_ctx bc = {&empty, NULL, NULL, NULL};
    if (all == NULL || all_names == NULL)
        return err_nomem(err);
    memcpy(all, exprs, n * sizeof(expr *));
    memcpy(all_names, names, n * sizeof(char *));
    for (f = 0; f < table->n_fields; f++) {
        const sql_expr *v = static_partition(stmt, table->fields[f].name);
        expr *e;
        if (v == NULL)
            continue;
        if (v->kind != SQL_EXPR_LITERAL)
            return sql_bind_error(b, err, v->pos, SILT_BIND, "a static partition value must be a "
                              "literal");
        SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, v, &e, err));
        SILT_RETURN_IF_ERROR(expr_coerce(&e, b->a, table->fields[f].type, err));
        all[total] = e;
        all_names[total++] = table->fields[f].name;
    }
    return sql_plan_project(b, p, all, all_names, total, err);
}

/*
 * Maps the query's columns onto table columns the way Spark's INSERT does:
 * by position (names from the table or the column list), or BY NAME; each
 * value is cast to its table column's type. New columns (only with schema
 * evolution) keep their name and type.
 */
static silt_status map_insert_columns(binder *b, const sql_stmt *stmt, const col_type *table,
                                      int evolve, plan *p, silt_error *err)
{
    const sql_ident_list *cols = &stmt->u.insert.columns;
    size_t n = p->scope.n, idx;
    expr **exprs = arena_calloc(b->a, n + 1, sizeof(expr *));
    const char **names = arena_calloc(b->a, n + 1, sizeof(char *));
    if (exprs == NULL || names == NULL)
        return err_nomem(err);
    if (stmt->u.insert.by_name) {
        for (idx = 0; idx < n; idx++)
            names[idx] = p->scope.cols[idx].name;
    } else if (cols->n > 0) {
        if (cols->n != n)
            return sql_bind_error(b, err, stmt->u.insert.query->pos, SILT_BIND,
                              "[INSERT_COLUMN_ARITY_MISMATCH.%s] Cannot write to %s: the column "
                              "list has %zu columns but the data has %zu",
                              n > cols->n ? "TOO_MANY_DATA_COLUMNS" : "NOT_ENOUGH_DATA_COLUMNS",
                              stmt->u.insert.table.parts[stmt->u.insert.table.n_parts - 1].name,
                              cols->n, n);
        for (idx = 0; idx < n; idx++)
            names[idx] = cols->items[idx].name;
    } else if (stmt->u.insert.n_partition > 0) {
        /* PARTITION (p = v, q): the data gives every column but the static ones, in order. */
        size_t want = 0, f;
        for (f = 0; f < table->n_fields; f++)
            if (!static_partition(stmt, table->fields[f].name))
                want++;
        if (n != want)
            return sql_bind_error(b, err, stmt->u.insert.query->pos, SILT_BIND,
                              "[INSERT_PARTITION_COLUMN_ARITY_MISMATCH] Cannot write to the "
                              "table: the data has %zu columns but %zu are expected besides the "
                              "static partition values", n, want);
        for (f = 0, idx = 0; f < table->n_fields; f++)
            if (!static_partition(stmt, table->fields[f].name))
                names[idx++] = table->fields[f].name;
    } else {
        if (n > table->n_fields && !evolve)
            return sql_bind_error(b, err, stmt->u.insert.query->pos, SILT_BIND,
                              "[INSERT_COLUMN_ARITY_MISMATCH.TOO_MANY_DATA_COLUMNS] Cannot write "
                              "to the table: too many data columns (table columns: %zu, data "
                              "columns: %zu)", table->n_fields, n);
        if (n < table->n_fields)
            return sql_bind_error(b, err, stmt->u.insert.query->pos, SILT_BIND,
                              "[INSERT_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS] Cannot "
                              "write to the table: not enough data columns (table columns: %zu, "
                              "data columns: %zu)", table->n_fields, n);
        for (idx = 0; idx < n; idx++)
            names[idx] = idx < table->n_fields ? table->fields[idx].name
                                               : p->scope.cols[idx].name;
    }
    for (idx = 0; idx < n; idx++) {
        int64_t tc = table_col(table, names[idx]);
        size_t other;
        for (other = 0; other < idx; other++)
            if (util_str_casecmp(names[other], names[idx]) == 0)
                return sql_bind_error(b, err, stmt->u.insert.query->pos, SILT_BIND,
                                  "[COLUMN_ALREADY_EXISTS] The column `%s` is given twice",
                                  names[idx]);
        SILT_RETURN_IF_ERROR(expr_column(&exprs[idx], b->a, (int64_t)idx, p->scope.cols[idx].type,
                                         err));
        if (tc >= 0) {
            const col_type *want = table->fields[tc].type;
            names[idx] = table->fields[tc].name;
            if (!col_type_equal(want, exprs[idx]->type)) {
                if (!expr_cast_allowed(exprs[idx]->type, want))
                    return sql_bind_error(b, err, stmt->u.insert.query->pos, SILT_BIND,
                                      "[INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST] Cannot "
                                      "write incompatible data for the table: cannot safely cast "
                                      "column `%s` to the table's type", names[idx]);
                SILT_RETURN_IF_ERROR(expr_cast(&exprs[idx], b->a, exprs[idx], want, 0, err));
            }
        }
    }
    return add_static_partitions(b, stmt, table, p, exprs, names, n, err);
}

/*
 * INSERT INTO t REPLACE WHERE pred: the files of the partitions pred
 * selects are replaced by the new rows, which must all satisfy pred.
 * Only predicates over partition columns are supported: those decide
 * whole files, as replace_where in delta_write_commit needs.
 */
static silt_status replace_where(binder *b, const sql_stmt *stmt, const sql_expr *where,
                                 exec_target *t, plan *p, delta_commit_options *co,
                                 const expr **check_out, silt_error *err)
{
    bind_scope table_scope;
    bind_ctx bc = {NULL, NULL, NULL, NULL};
    expr *on_table, *on_rows;
    size_t end = stmt->u.insert.query->pos;
    SILT_RETURN_IF_ERROR(sql_scope_from_schema(b->a, t->snap->schema, NULL, &table_scope, err));
    bc.scope = &table_scope;
    SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, where, &on_table, err));
    if (on_table->type->id != COL_BOOLEAN)
        return sql_bind_error(b, err, where->pos, SILT_BIND, "[DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN]"
                          " the REPLACE WHERE condition must be a boolean");
    SILT_RETURN_IF_ERROR(sql_exec_partition_filter(b, t->snap, where, on_table, &co->replace_where,
                                               &co->replace_where_payload, err));
    /* Over data columns too: the matching rows are deleted (their files rewritten), the
     * files the statistics rule out are left alone. */
    if (co->replace_where == NULL)
        SILT_RETURN_IF_ERROR(sql_exec_row_filter(b, t->snap, where, on_table, &co->replace_rows,
                                             &co->replace_rows_payload, &co->replace_where,
                                             &co->replace_where_payload, err));
    bc.scope = &p->scope;
    SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, where, &on_rows, err));
    while (end > where->pos && (b->text[end - 1] == ' ' || b->text[end - 1] == '\n' ||
                                b->text[end - 1] == '\t' || b->text[end - 1] == '\r'))
        end--;
    if (co->predicate_text == NULL)
        co->predicate_text = arena_strndup(b->a, b->text + where->pos, end - where->pos);
    if (co->predicate_text == NULL)
        return err_nomem(err);
    *check_out = on_rows;
    return SILT_OK;
}

/*
 * INSERT OVERWRITE t PARTITION (p = v, ...): with every partition column
 * static, only those partitions are replaced (Spark's static overwrite),
 * as REPLACE WHERE p = v AND ...; with dynamic ones too it follows
 * partitionOverwriteMode like a plain INSERT OVERWRITE.
 */
static silt_status overwrite_static(binder *b, const sql_stmt *stmt, exec_target *t, plan *p,
                                    delta_commit_options *co, const expr **check_out,
                                    delta_write_mode *mode, silt_error *err)
{
    sql_expr *pred = NULL;
    buf text = BUF_INIT;
    size_t idx;
    silt_status rc = SILT_OK;
    for (idx = 0; idx < stmt->u.insert.n_partition; idx++) {
        const sql_assignment *as = &stmt->u.insert.partition[idx];
        sql_expr *col, *eq;
        if (as->value == NULL)
            return SILT_OK; /* dynamic columns: a plain overwrite (or dynamic by setting) */
        col = arena_calloc(b->a, 1, sizeof(*col));
        eq = arena_calloc(b->a, 1, sizeof(*eq));
        if (col == NULL || eq == NULL)
            return err_nomem(err);
        col->kind = SQL_EXPR_COLUMN;
        col->pos = as->target.pos;
        col->u.column = as->target;
        eq->kind = SQL_EXPR_BINARY;
        eq->pos = as->target.pos;
        eq->u.op.op = SQL_OP_EQ;
        eq->u.op.left = col;
        eq->u.op.right = (sql_expr *)as->value;
        if (pred == NULL) {
            pred = eq;
        } else {
            sql_expr *and = arena_calloc(b->a, 1, sizeof(*and));
            if (and == NULL)
                return err_nomem(err);
            and->kind = SQL_EXPR_BINARY;
            and->pos = eq->pos;
            and->u.op.op = SQL_OP_AND;
            and->u.op.left = pred;
            and->u.op.right = eq;
            pred = and;
        }
        if (rc == SILT_OK)
            rc = buf_printf(&text, err, "%s%s = ", idx ? " AND " : "",
                            as->target.parts[as->target.n_parts - 1].name);
        if (rc == SILT_OK)
            rc = sql_expr_print(as->value, &text, err);
    }
    co->predicate_text = rc == SILT_OK ? arena_strdup(b->a, buf_cstr(&text)) : NULL;
    buf_clear(&text);
    SILT_RETURN_IF_ERROR(rc);
    if (co->predicate_text == NULL)
        return err_nomem(err);
    *mode = DELTA_MODE_OVERWRITE;
    return replace_where(b, stmt, pred, t, p, co, check_out, err);
}

static int given_column(const plan *p, const char *name)
{
    size_t k;
    for (k = 0; k < p->scope.n; k++)
        if (!p->scope.cols[k].hidden && util_str_casecmp(p->scope.cols[k].name, name) == 0)
            return 1;
    return 0;
}

/*
 * The identity values an INSERT assigns (PROTOCOL: Identity Columns): from the high-water
 * mark plus one step, or the start when no value was assigned yet, a step apart, in row
 * order. *use = 0 when the table has no identity column or the rows give it (BY DEFAULT).
 */
static silt_status identity_plan(binder *b, const col_type *table, const plan *p,
                                 ident_fill *idf, int *use, silt_error *err)
{
    sql_identity id;
    int64_t col = sql_schema_identity_column(table, &id);
    size_t k;
    memset(idf, 0, sizeof(*idf));
    if (!*use || col < 0) {
        *use = 0;
        return SILT_OK;
    }
    for (k = 0; k < p->scope.n; k++)
        if (util_str_casecmp(p->scope.cols[k].name, table->fields[col].name) == 0)
            break;
    if (k == p->scope.n)
        return err_set(err, SILT_INVALID, "the rows to insert lack the identity column %s",
                       table->fields[col].name);
    idf->col = (int64_t)k;
    idf->step = id.step;
    if (id.has_hwm && __builtin_add_overflow(id.hwm, id.step, &idf->next))
        return err_set(err, SILT_RUNTIME, "[ARITHMETIC_OVERFLOW] the identity column's next "
                       "value overflows BIGINT");
    if (!id.has_hwm)
        idf->next = id.start;
    (void)b;
    return SILT_OK;
}

silt_status sql_exec_insert(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    const sql_name *n = &stmt->u.insert.table;
    exec_target t;
    plan p;
    delta_writer *w;
    delta_write_options wo = DELTA_WRITE_OPTIONS_INIT;
    delta_write_mode mode = DELTA_MODE_APPEND;
    delta_commit_options co = DELTA_COMMIT_OPTIONS_INIT;
    const expr *check = NULL;
    ident_fill idf;
    int use_idf = 0;
    int64_t ident_col;
    sql_identity ident;
    int skip;
    int evolve = stmt->u.insert.schema_evolution ||
                 sql_exec_setting_true(b, "spark.databricks.delta.schema.autoMerge.enabled");
    (void)out;
    if (stmt->u.insert.if_not_exists)
        return sql_bind_error(b, err, stmt->pos, SILT_UNSUPPORTED, "INSERT ... IF NOT EXISTS is not "
                          "supported yet");
    if (stmt->u.insert.n_partition > 0 &&
        (stmt->u.insert.by_name || stmt->u.insert.columns.n > 0 ||
         stmt->u.insert.replace_where != NULL))
        return sql_bind_error(b, err, stmt->pos, SILT_UNSUPPORTED, "a PARTITION clause together "
                          "with a column list, BY NAME or REPLACE WHERE is not supported yet");
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target_at(b, n, &stmt->u.insert.at, stmt->pos, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, n, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_app_txn(b, t.snap, &co.app_txn, &skip, err));
    if (skip) /* Delta's idempotent write: this (appId, version) is already in the table */
        return SILT_OK;
    if (stmt->u.insert.overwrite) {
        const char *pom = sql_session_get(b->s, "spark.sql.sources.partitionOverwriteMode");
        mode = pom != NULL && util_str_casecmp(pom, "dynamic") == 0 &&
                       t.snap->metadata.n_partition_columns > 0
                   ? DELTA_MODE_OVERWRITE_PARTITIONS : DELTA_MODE_OVERWRITE;
    }
    SILT_RETURN_IF_ERROR(check_partition_clause(b, stmt, t.snap, err));
    SILT_RETURN_IF_ERROR(sql_plan_query(b, stmt->u.insert.query, &p, err));
    SILT_RETURN_IF_ERROR(visible_columns(b, &p, err));
    SILT_RETURN_IF_ERROR(map_insert_columns(b, stmt, t.snap->schema, evolve, &p, err));
    ident_col = sql_schema_identity_column(t.snap->schema, &ident);
    if (ident_col >= 0 && !ident.allow_explicit &&
        given_column(&p, t.snap->schema->fields[ident_col].name))
        return sql_bind_error(b, err, stmt->pos, SILT_BIND, "[DELTA_IDENTITY_COLUMNS_EXPLICIT_"
                              "INSERT_NOT_SUPPORTED] Providing values for GENERATED ALWAYS AS "
                              "IDENTITY column %s is not supported.",
                              t.snap->schema->fields[ident_col].name);
    use_idf = ident_col >= 0 && !given_column(&p, t.snap->schema->fields[ident_col].name);
    SILT_RETURN_IF_ERROR(sql_generated_insert_project(b, t.snap->schema, &p, err));
    if (stmt->u.insert.replace_where != NULL)
        SILT_RETURN_IF_ERROR(replace_where(b, stmt, stmt->u.insert.replace_where, &t, &p, &co,
                                           &check, err));
    else if (stmt->u.insert.overwrite && stmt->u.insert.n_partition > 0)
        SILT_RETURN_IF_ERROR(overwrite_static(b, stmt, &t, &p, &co, &check, &mode, err));
    if (check != NULL)
        mode = DELTA_MODE_OVERWRITE;
    wo.merge_schema = evolve;
    wo.pool = b->ctx->pool;
    SILT_RETURN_IF_ERROR(
        session_target_size(b, &t.snap->metadata.configuration, &wo.target_file_size, err));
    wo.compression = sql_session_get(b->s, SQL_SETTING_PARQUET_CODEC);
    {
        sql_constraints *cons = NULL; /* the table's CHECK constraints hold for every row */
        SILT_RETURN_IF_ERROR(sql_constraints_new(b, &t.snap->metadata, t.snap->schema, &cons,
                                                 err));
        wo.check = cons != NULL ? sql_constraints_check : NULL;
        wo.check_payload = cons;
    }
    SILT_RETURN_IF_ERROR(identity_plan(b, t.snap->schema, &p, &idf, &use_idf, err));
    SILT_RETURN_IF_ERROR(delta_write_open(&w, t.store, t.snap, p.op->schema, &wo, err));
    SILT_RETURN_IF_ERROR(keep(b, free_writer, w, err));
    SILT_RETURN_IF_ERROR(pump_ident(b, p.op, check, co.predicate_text, w, use_idf ? &idf : NULL,
                                    err));
    if (use_idf && idf.count > 0) { /* the high-water mark moves in the same commit */
        co.identity_column = t.snap->schema->fields[ident_col].name;
        co.identity_high_water_mark = idf.last;
    }
    co.user_metadata = sql_session_get(b->s, SQL_SETTING_USER_METADATA);
    SILT_RETURN_IF_ERROR(sql_exec_commit_retry_timeout(b, &co.retry_timeout_ms, err));
    SILT_RETURN_IF_ERROR(delta_write_commit(w, t.store, t.snap, mode, &co, NULL, err));
    b->s->rows_written += delta_write_rows(w);
    return SILT_OK;
}
