/*
 * exec_view.c - persistent views: CREATE [OR REPLACE] VIEW [IF NOT EXISTS]
 * db.v [(cols)] [COMMENT] [TBLPROPERTIES] AS query, kept in the catalog
 * (visible to every later session and process), DROP VIEW, and what
 * DESCRIBE and SHOW CREATE TABLE print of them, as Spark 4 does.
 *
 * A view keeps its query text, and (cat_table.view_schema, a JSON object)
 * the columns Spark keeps: their names, types and comments, the query's own
 * output names and the namespace the text is resolved in (the current
 * database at CREATE, Spark's "View Catalog and Namespace"). Reading a view
 * binds its text again in that namespace and renames the output columns.
 */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <string.h>
#include <time.h>

#include "silt/common.h"
#include "sql/exec.h"
#include "sql/parser.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/time.h"

typedef struct view_args {
    cat_table table;
    int or_replace;
} view_args;

static silt_status add_view_change(cat_state *state, void *payload, silt_error *err)
{
    view_args *v = payload;
    const cat_table *old = catalog_state_find_table(state, v->table.database, v->table.name);
    if (old != NULL && v->or_replace && old->kind == CAT_VIEW)
        return catalog_state_replace_table(state, &v->table, err);
    if (old != NULL && old->kind != CAT_VIEW && v->or_replace)
        return err_set(err, SILT_EXISTS, "[EXPECT_VIEW_NOT_TABLE.NO_ALTERNATIVE] The table "
                       "`spark_catalog`.`%s`.`%s` is not a view", old->database, old->name);
    return catalog_state_add_table(state, &v->table, err);
}

/* The view_schema object: columns (name, type, comment), queryColumns, namespace. */
static silt_status view_schema_json(binder *b, const sql_stmt *stmt, const plan *p,
                                    char **out, silt_error *err)
{
    const sql_ident_list *cols = &stmt->u.create_view.columns;
    cJSON *root = cJSON_CreateObject(), *columns = cJSON_CreateArray(),
          *query_cols = cJSON_CreateArray();
    size_t idx;
    int ok = root != NULL && columns != NULL && query_cols != NULL;
    silt_status rc = SILT_OK;
    for (idx = 0; ok && idx < p->scope.n; idx++) {
        cJSON *col = cJSON_CreateObject();
        buf type = BUF_INIT;
        const char *comment = NULL;
        rc = sql_spark_type_name(p->scope.cols[idx].type, &type, err);
        if (cols->n > 0 && stmt->u.create_view.column_comments != NULL)
            comment = stmt->u.create_view.column_comments[idx];
        ok = rc == SILT_OK && col != NULL &&
             cJSON_AddStringToObject(col, "name", cols->n > 0 ? cols->items[idx].name
                                                               : p->scope.cols[idx].name) &&
             cJSON_AddStringToObject(col, "type", buf_cstr(&type)) &&
             (comment == NULL || cJSON_AddStringToObject(col, "comment", comment)) &&
             cJSON_AddItemToArray(columns, col) &&
             cJSON_AddItemToArray(query_cols, cJSON_CreateString(p->scope.cols[idx].name));
        buf_clear(&type);
        if (!ok && col != NULL && rc == SILT_OK)
            cJSON_Delete(col);
    }
    ok = ok && cJSON_AddStringToObject(root, "namespace", b->s->database) &&
         cJSON_AddItemToObject(root, "columns", columns) &&
         cJSON_AddItemToObject(root, "queryColumns", query_cols);
    if (ok) {
        char *text = cJSON_PrintUnformatted(root);
        *out = text ? arena_strdup(b->a, text) : NULL;
        cJSON_free(text);
        ok = *out != NULL;
    } else {
        if (!cJSON_IsArray(cJSON_GetObjectItem(root, "columns")))
            cJSON_Delete(columns);
        if (!cJSON_IsArray(cJSON_GetObjectItem(root, "queryColumns")))
            cJSON_Delete(query_cols);
    }
    cJSON_Delete(root);
    if (rc != SILT_OK)
        return rc;
    return ok ? SILT_OK : err_nomem(err);
}

silt_status sql_exec_create_view(binder *b, const sql_stmt *stmt, silt_error *err)
{
    const sql_name *n = &stmt->u.create_view.name;
    const sql_kv_list *props = &stmt->u.create_view.properties;
    view_args v;
    plan p;
    size_t idx;
    uint32_t qpos;
    silt_status rc;
    if (stmt->u.create_view.query == NULL)
        return sql_bind_error(b, err, stmt->pos, SILT_BIND, "CREATE VIEW ... USING needs "
                              "TEMPORARY: only temporary views read files directly");
    if (b->s->cat == NULL)
        return sql_bind_error(b, err, stmt->pos, SILT_UNSUPPORTED, "CREATE VIEW needs a "
                              "warehouse: run silt with --warehouse DIR, or write CREATE "
                              "TEMPORARY VIEW");
    if (n->n_parts > 2)
        return sql_bind_error(b, err, n->pos, SILT_BIND, "[REQUIRES_SINGLE_PART_NAMESPACE] view "
                              "name \"%s\" has too many parts", n->parts[n->n_parts - 1].name);
    if (stmt->u.create_view.or_replace && stmt->u.create_view.if_not_exists)
        return sql_bind_error(b, err, stmt->pos, SILT_BIND, "[INVALID_SQL_SYNTAX."
                              "CREATE_ROUTINE_WITH_IF_NOT_EXISTS_AND_REPLACE] CREATE VIEW cannot "
                              "take both OR REPLACE and IF NOT EXISTS");
    memset(&v, 0, sizeof(v));
    v.or_replace = stmt->u.create_view.or_replace;
    v.table.database = n->n_parts == 2 ? n->parts[0].name : b->s->database;
    v.table.name = n->parts[n->n_parts - 1].name;
    v.table.kind = CAT_VIEW;
    v.table.comment = stmt->u.create_view.comment;
    v.table.created_micros = time_now_micros();
    {
        /* Checked now, as Spark does: a broken view fails at CREATE. */
        view_frame self = {v.table.name, b->views};
        b->views = &self;
        b->defer_subqueries = 1;
        rc = sql_plan_statement_query(b, stmt->u.create_view.query, &p, err);
        b->views = self.next;
        SILT_RETURN_IF_ERROR(rc);
    }
    if (stmt->u.create_view.columns.n > 0 && stmt->u.create_view.columns.n != p.scope.n)
        return sql_bind_error(b, err, n->pos, SILT_BIND, "[CREATE_VIEW_COLUMN_ARITY_MISMATCH.%s] "
                              "Cannot create view `spark_catalog`.`%s`.`%s`: the view has %zu "
                              "columns and the query %zu",
                              stmt->u.create_view.columns.n > p.scope.n
                                  ? "NOT_ENOUGH_DATA_COLUMNS" : "TOO_MANY_DATA_COLUMNS",
                              v.table.database, v.table.name, stmt->u.create_view.columns.n,
                              p.scope.n);
    qpos = stmt->u.create_view.query->pos;
    v.table.view_text = arena_strndup(b->a, b->text + qpos, stmt->end - qpos);
    if (v.table.view_text == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(view_schema_json(b, stmt, &p, (char **)&v.table.view_schema, err));
    v.table.n_properties = props->n;
    v.table.properties = arena_calloc(b->a, props->n + 1, sizeof(cat_property));
    if (v.table.properties == NULL)
        return err_nomem(err);
    for (idx = 0; idx < props->n; idx++) {
        v.table.properties[idx].key = props->items[idx].key;
        v.table.properties[idx].value = props->items[idx].value ? props->items[idx].value : "";
    }
    rc = catalog_commit(b->s->cat, add_view_change, &v, NULL, err);
    if (rc == SILT_EXISTS && stmt->u.create_view.if_not_exists) {
        err_clear(err);
        return SILT_OK;
    }
    return rc;
}

typedef struct drop_view_args {
    const char *database, *name;
} drop_view_args;

static silt_status drop_view_change(cat_state *state, void *payload, silt_error *err)
{
    drop_view_args *d = payload;
    return catalog_state_drop_table(state, d->database, d->name, err);
}

silt_status sql_exec_drop_view(binder *b, const sql_stmt *stmt, int *found, silt_error *err)
{
    const sql_name *n = &stmt->u.drop.name;
    drop_view_args d;
    cat_state *state;
    const cat_table *t;
    int kind = -1;
    *found = 0;
    if (b->s->cat == NULL || n->n_parts > 2)
        return SILT_OK;
    d.database = n->n_parts == 2 ? n->parts[0].name : b->s->database;
    d.name = n->parts[n->n_parts - 1].name;
    SILT_RETURN_IF_ERROR(catalog_load(b->s->cat, &state, err));
    t = catalog_state_find_table(state, d.database, d.name);
    if (t != NULL)
        kind = (int)t->kind;
    catalog_state_free(state);
    if (kind < 0)
        return SILT_OK;
    *found = 1;
    if (kind != CAT_VIEW)
        return sql_bind_error(b, err, n->pos, SILT_BIND, "[WRONG_COMMAND_FOR_OBJECT_TYPE] The "
                              "operation DROP VIEW requires a VIEW. But spark_catalog.%s.%s is a "
                              "%s. Use DROP TABLE instead", d.database, d.name,
                              catalog_table_kind_name((cat_table_kind)kind));
    return catalog_commit(b->s->cat, drop_view_change, &d, NULL, err);
}

/* ---------------------------------------------------------------- reading the stored schema */

typedef struct view_col {
    const char *name, *type, *comment;
} view_col;

static silt_status parse_schema(binder *b, const cat_table *view, view_col **cols, size_t *n,
                                const char ***query_cols, const char **ns, silt_error *err)
{
    cJSON *root = view->view_schema ? cJSON_Parse(view->view_schema) : NULL;
    const cJSON *item, *arr, *qarr;
    size_t idx = 0;
    *cols = NULL;
    *n = 0;
    *ns = "default";
    if (query_cols != NULL)
        *query_cols = NULL;
    if (root == NULL)
        return SILT_OK; /* a view without a stored schema: its query's own columns */
    arr = cJSON_GetObjectItemCaseSensitive(root, "columns");
    qarr = cJSON_GetObjectItemCaseSensitive(root, "queryColumns");
    item = cJSON_GetObjectItemCaseSensitive(root, "namespace");
    if (cJSON_IsString(item))
        *ns = arena_strdup(b->a, item->valuestring);
    *cols = arena_calloc(b->a, (size_t)cJSON_GetArraySize(arr) + 1, sizeof(view_col));
    if (query_cols != NULL)
        *query_cols = arena_calloc(b->a, (size_t)cJSON_GetArraySize(qarr) + 1, sizeof(char *));
    if (*cols == NULL || *ns == NULL || (query_cols != NULL && *query_cols == NULL)) {
        cJSON_Delete(root);
        return err_nomem(err);
    }
    cJSON_ArrayForEach(item, arr)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(item, "name");
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(item, "type");
        const cJSON *comment = cJSON_GetObjectItemCaseSensitive(item, "comment");
        (*cols)[idx].name = arena_strdup(b->a, cJSON_IsString(name) ? name->valuestring : "");
        (*cols)[idx].type = arena_strdup(b->a, cJSON_IsString(type) ? type->valuestring : "");
        (*cols)[idx].comment =
            cJSON_IsString(comment) ? arena_strdup(b->a, comment->valuestring) : NULL;
        idx++;
    }
    *n = idx;
    idx = 0;
    if (query_cols != NULL)
        cJSON_ArrayForEach(item, qarr)(*query_cols)[idx++] =
            arena_strdup(b->a, cJSON_IsString(item) ? item->valuestring : "");
    cJSON_Delete(root);
    return SILT_OK;
}

silt_status sql_exec_view_columns(binder *b, const cat_table *view, const char ***names_out,
                                  size_t *n_out, const char **namespace_out, silt_error *err)
{
    view_col *cols;
    size_t n, idx;
    SILT_RETURN_IF_ERROR(parse_schema(b, view, &cols, &n, NULL, namespace_out, err));
    *names_out = arena_calloc(b->a, n + 1, sizeof(char *));
    if (*names_out == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++)
        (*names_out)[idx] = cols[idx].name;
    *n_out = n;
    return SILT_OK;
}

/* ---------------------------------------------------------------- DESCRIBE and SHOW CREATE */

typedef struct rows3 {
    arena *a;
    const char **v;
    size_t n, cap; /* rows */
} rows3;

static silt_status row3(rows3 *r, const char *a, const char *b2, const char *c, silt_error *err)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 32;
        const char **grown = arena_calloc(r->a, cap * 3 + 3, sizeof(char *));
        if (grown == NULL)
            return err_nomem(err);
        if (r->n > 0)
            memcpy(grown, r->v, r->n * 3 * sizeof(char *));
        r->v = grown;
        r->cap = cap;
    }
    r->v[3 * r->n] = a;
    r->v[3 * r->n + 1] = b2;
    r->v[3 * r->n + 2] = c;
    r->n++;
    return a != NULL && b2 != NULL ? SILT_OK : err_nomem(err);
}

/* Java's Date.toString in UTC: "Thu Dec 03 05:39:05 UTC 2026". */
static const char *java_date(arena *a, int64_t micros)
{
    char text[64];
    time_t secs = (time_t)(micros / 1000000);
    struct tm tm;
    if (gmtime_r(&secs, &tm) == NULL || strftime(text, sizeof(text), "%a %b %d %H:%M:%S UTC %Y",
                                                 &tm) == 0)
        return arena_strdup(a, "UNKNOWN");
    return arena_strdup(a, text);
}

static silt_status view_detail(binder *b, const cat_table *view, const char *ns,
                               const char *const *query_cols, size_t n_query, rows3 *r,
                               silt_error *err)
{
    buf text = BUF_INIT;
    size_t idx;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(row3(r, "", "", "", err));
    SILT_RETURN_IF_ERROR(row3(r, "# Detailed Table Information", "", "", err));
    SILT_RETURN_IF_ERROR(row3(r, "Catalog", "spark_catalog", "", err));
    SILT_RETURN_IF_ERROR(row3(r, "Database", view->database, "", err));
    SILT_RETURN_IF_ERROR(row3(r, "Table", view->name, "", err));
    SILT_RETURN_IF_ERROR(row3(r, "Created Time", java_date(b->a, view->created_micros), "", err));
    SILT_RETURN_IF_ERROR(row3(r, "Last Access", "UNKNOWN", "", err));
    SILT_RETURN_IF_ERROR(row3(r, "Created By", "silt " SILT_VERSION, "", err));
    SILT_RETURN_IF_ERROR(row3(r, "Type", "VIEW", "", err));
    if (view->comment != NULL)
        SILT_RETURN_IF_ERROR(row3(r, "Comment", view->comment, "", err));
    SILT_RETURN_IF_ERROR(row3(r, "View Text", view->view_text, "", err));
    SILT_RETURN_IF_ERROR(row3(r, "View Original Text", view->view_text, "", err));
    SILT_RETURN_IF_ERROR(row3(r, "View Schema Mode", "COMPENSATION", "", err));
    SILT_RETURN_IF_ERROR(row3(r, "View Catalog and Namespace",
                              arena_sprintf(b->a, "spark_catalog.%s", ns), "", err));
    rc = buf_append_char(&text, '[', err);
    for (idx = 0; rc == SILT_OK && idx < n_query; idx++)
        rc = buf_printf(&text, err, "%s`%s`", idx ? ", " : "", query_cols[idx]);
    if (rc == SILT_OK)
        rc = buf_append_char(&text, ']', err);
    if (rc == SILT_OK)
        rc = row3(r, "View Query Output Columns", arena_strdup(b->a, buf_cstr(&text)), "", err);
    buf_truncate(&text, 0);
    if (rc == SILT_OK && view->n_properties > 0) {
        rc = buf_append_char(&text, '[', err);
        for (idx = 0; rc == SILT_OK && idx < view->n_properties; idx++)
            rc = buf_printf(&text, err, "%s%s=%s", idx ? ", " : "", view->properties[idx].key,
                            view->properties[idx].value);
        if (rc == SILT_OK)
            rc = buf_append_char(&text, ']', err);
        if (rc == SILT_OK)
            rc = row3(r, "Table Properties", arena_strdup(b->a, buf_cstr(&text)), "", err);
    }
    buf_clear(&text);
    return rc;
}

silt_status sql_exec_view_describe(binder *b, const sql_stmt *stmt, const cat_table *view,
                                   const char ***rows, size_t *n_rows, silt_error *err)
{
    view_col *cols;
    const char **query_cols;
    const char *ns;
    size_t n, idx;
    rows3 r;
    SILT_RETURN_IF_ERROR(parse_schema(b, view, &cols, &n, &query_cols, &ns, err));
    memset(&r, 0, sizeof(r));
    r.a = b->a;
    for (idx = 0; idx < n; idx++)
        SILT_RETURN_IF_ERROR(row3(&r, cols[idx].name, cols[idx].type, cols[idx].comment, err));
    if (n == 0) /* no stored schema: the bound columns */
        for (idx = 0; idx < *n_rows; idx++)
            SILT_RETURN_IF_ERROR(row3(&r, (*rows)[3 * idx], (*rows)[3 * idx + 1],
                                      (*rows)[3 * idx + 2], err));
    if (stmt->u.describe.extended)
        SILT_RETURN_IF_ERROR(view_detail(b, view, ns, query_cols, n, &r, err));
    *rows = r.v;
    *n_rows = r.n;
    return SILT_OK;
}

/* Spark's escapeSingleQuotedString: ' becomes \'. */
static silt_status quoted(buf *out, const char *s, silt_error *err)
{
    SILT_RETURN_IF_ERROR(buf_append_char(out, '\'', err));
    for (; *s != '\0'; s++) {
        if (*s == '\'')
            SILT_RETURN_IF_ERROR(buf_append_char(out, '\\', err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, *s, err));
    }
    return buf_append_char(out, '\'', err);
}

/* ShowCreateTableCommand's view text: columns, COMMENT, TBLPROPERTIES, schema mode, AS. */
silt_status sql_exec_view_create_text(binder *b, const cat_table *view, arena *a,
                                      const char ***cells, size_t *n_cells, silt_error *err)
{
    view_col *cols;
    const char *ns;
    size_t n, idx;
    buf out = BUF_INIT;
    silt_status rc;
    SILT_RETURN_IF_ERROR(parse_schema(b, view, &cols, &n, NULL, &ns, err));
    rc = buf_printf(&out, err, "CREATE VIEW %s.%s ", view->database, view->name);
    for (idx = 0; rc == SILT_OK && idx < n; idx++) {
        rc = buf_printf(&out, err, "%s%s", idx ? ",\n  " : "(\n  ", cols[idx].name);
        if (rc == SILT_OK && cols[idx].comment != NULL) {
            rc = buf_append_str(&out, " COMMENT ", err);
            if (rc == SILT_OK)
                rc = quoted(&out, cols[idx].comment, err);
        }
    }
    if (rc == SILT_OK && n > 0)
        rc = buf_append_str(&out, ")\n", err);
    if (rc == SILT_OK && view->comment != NULL) {
        rc = buf_append_str(&out, "COMMENT ", err);
        if (rc == SILT_OK)
            rc = quoted(&out, view->comment, err);
        if (rc == SILT_OK)
            rc = buf_append_char(&out, '\n', err);
    }
    for (idx = 0; rc == SILT_OK && idx < view->n_properties; idx++) {
        rc = buf_append_str(&out, idx ? ",\n  " : "TBLPROPERTIES (\n  ", err);
        if (rc == SILT_OK)
            rc = quoted(&out, view->properties[idx].key, err);
        if (rc == SILT_OK)
            rc = buf_append_str(&out, " = ", err);
        if (rc == SILT_OK)
            rc = quoted(&out, view->properties[idx].value, err);
        if (rc == SILT_OK && idx + 1 == view->n_properties)
            rc = buf_append_str(&out, ")\n", err);
    }
    if (rc == SILT_OK)
        rc = buf_printf(&out, err, "WITH SCHEMA COMPENSATION\nAS %s\n", view->view_text);
    if (rc == SILT_OK) {
        *cells = arena_calloc(a, 2, sizeof(char *));
        if (*cells == NULL || ((*cells)[0] = arena_strdup(a, buf_cstr(&out))) == NULL)
            rc = err_nomem(err);
        *n_cells = 1;
    }
    buf_clear(&out);
    return rc;
}
