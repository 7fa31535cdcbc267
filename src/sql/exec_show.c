/*
 * exec_show.c - the catalog's read-only statements as Spark 4 with Delta 4
 * prints them: SHOW TBLPROPERTIES, SHOW COLUMNS, SHOW CREATE TABLE, SHOW
 * PARTITIONS, DESCRIBE DATABASE, and the partition and detail rows of
 * DESCRIBE [EXTENDED]. Each answers string cells (row-major) that the
 * session turns into a result; the texts were taken from the Spark peer
 * (pyspark 4.1 with Delta 4.1, tests/interop/spark_catalog.py compares).
 */
#define _POSIX_C_SOURCE 200809L
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sql/exec.h"
#include "util/buf.h"

typedef struct cells {
    arena *a;
    const char **v;
    size_t n, cap; /* strings, not rows */
} cells;

static silt_status put(cells *c, const char *s, silt_error *err)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 48;
        const char **grown = arena_calloc(c->a, cap + 1, sizeof(char *));
        if (grown == NULL)
            return err_nomem(err);
        if (c->n > 0)
            memcpy(grown, c->v, c->n * sizeof(char *));
        c->v = grown;
        c->cap = cap;
    }
    c->v[c->n++] = s;
    return SILT_OK;
}

static silt_status put3(cells *c, const char *a, const char *b, const char *comment,
                        silt_error *err)
{
    if (a == NULL || b == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(put(c, a, err));
    SILT_RETURN_IF_ERROR(put(c, b, err));
    return put(c, comment, err);
}

/* ---------------------------------------------------------------- properties */

static int cmp_key(const void *l, const void *r)
{
    return strcmp(((const cat_property *)l)->key, ((const cat_property *)r)->key);
}

static silt_status add_prop(arena *a, cat_property **items, size_t *n, size_t *cap,
                            const char *key, const char *value, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < *n; idx++)
        if (strcmp((*items)[idx].key, key) == 0)
            return SILT_OK;
    if (*n == *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 16;
        cat_property *grown = arena_calloc(a, grown_cap, sizeof(*grown));
        if (grown == NULL)
            return err_nomem(err);
        if (*n > 0)
            memcpy(grown, *items, *n * sizeof(*grown));
        *items = grown;
        *cap = grown_cap;
    }
    (*items)[*n].key = key;
    (*items)[(*n)++].value = value ? value : "";
    return key != NULL ? SILT_OK : err_nomem(err);
}

/*
 * A Delta table's properties as DeltaTableV2 reports them: the configuration,
 * delta.minReaderVersion and delta.minWriterVersion, and for a protocol with
 * table features delta.feature.<name> = supported; sorted by key as Spark's
 * DESCRIBE and SHOW TBLPROPERTIES print them.
 */
silt_status sql_exec_table_properties(binder *b, const exec_target *t, cat_property **out,
                                      size_t *n_out, silt_error *err)
{
    const dlog_metadata *md = &t->snap->metadata;
    const dlog_protocol *pr = &t->snap->protocol;
    cat_property *items = NULL;
    size_t n = 0, cap = 0, idx;
    for (idx = 0; idx < md->configuration.n; idx++)
        SILT_RETURN_IF_ERROR(add_prop(b->a, &items, &n, &cap, md->configuration.items[idx].key,
                                      md->configuration.items[idx].value, err));
    for (idx = 0; idx < pr->n_reader_features; idx++)
        SILT_RETURN_IF_ERROR(add_prop(b->a, &items, &n, &cap,
                                      arena_sprintf(b->a, "delta.feature.%s",
                                                    pr->reader_features[idx]),
                                      "supported", err));
    for (idx = 0; idx < pr->n_writer_features; idx++)
        SILT_RETURN_IF_ERROR(add_prop(b->a, &items, &n, &cap,
                                      arena_sprintf(b->a, "delta.feature.%s",
                                                    pr->writer_features[idx]),
                                      "supported", err));
    SILT_RETURN_IF_ERROR(add_prop(b->a, &items, &n, &cap, "delta.minReaderVersion",
                                  arena_sprintf(b->a, "%d", pr->min_reader_version), err));
    SILT_RETURN_IF_ERROR(add_prop(b->a, &items, &n, &cap, "delta.minWriterVersion",
                                  arena_sprintf(b->a, "%d", pr->min_writer_version), err));
    for (idx = 0; idx < n; idx++)
        if (items[idx].value == NULL)
            return err_nomem(err);
    qsort(items, n, sizeof(*items), cmp_key);
    *out = items;
    *n_out = n;
    return SILT_OK;
}

/* ---------------------------------------------------------------- look-ups */

/* The catalog entry of a one- or two-part name, copied into b's arena; NULL when none. */
static silt_status find_entry(binder *b, const sql_name *n, cat_table **out, silt_error *err)
{
    cat_state *state;
    const cat_table *t;
    const char *db = n->n_parts == 2 ? n->parts[0].name : b->s->database;
    *out = NULL;
    if (b->s->cat == NULL || n->is_path || n->n_parts > 2 ||
        (n->n_parts == 2 && util_str_casecmp(n->parts[0].name, "delta") == 0))
        return SILT_OK;
    SILT_RETURN_IF_ERROR(catalog_load(b->s->cat, &state, err));
    t = catalog_state_find_table(state, db, n->parts[n->n_parts - 1].name);
    if (t != NULL) {
        cat_table *copy = arena_calloc(b->a, 1, sizeof(*copy));
        size_t idx;
        if (copy != NULL) {
            *copy = *t;
            copy->database = arena_strdup(b->a, t->database);
            copy->name = arena_strdup(b->a, t->name);
            copy->location = t->location ? arena_strdup(b->a, t->location) : NULL;
            copy->comment = t->comment ? arena_strdup(b->a, t->comment) : NULL;
            copy->view_text = t->view_text ? arena_strdup(b->a, t->view_text) : NULL;
            copy->view_schema = t->view_schema ? arena_strdup(b->a, t->view_schema) : NULL;
            copy->provider = t->provider ? arena_strdup(b->a, t->provider) : NULL;
            copy->properties = arena_calloc(b->a, t->n_properties + 1, sizeof(cat_property));
            for (idx = 0; copy->properties != NULL && idx < t->n_properties; idx++) {
                copy->properties[idx].key = arena_strdup(b->a, t->properties[idx].key);
                copy->properties[idx].value = arena_strdup(b->a, t->properties[idx].value);
            }
        }
        *out = copy;
        catalog_state_free(state);
        return copy != NULL ? SILT_OK : err_nomem(err);
    }
    catalog_state_free(state);
    return SILT_OK;
}

static const char *quoted_name(binder *b, const sql_name *n)
{
    buf full = BUF_INIT;
    size_t idx;
    const char *out;
    for (idx = 0; idx < n->n_parts; idx++)
        buf_printf(&full, NULL, "%s`%s`", idx ? "." : "", n->parts[idx].name);
    out = arena_strdup(b->a, full.data ? buf_cstr(&full) : "");
    buf_clear(&full);
    return out;
}

static silt_status not_found(binder *b, const sql_name *n, silt_error *err)
{
    return sql_bind_error(b, err, n->pos, SILT_NOTFOUND, "[TABLE_OR_VIEW_NOT_FOUND] The table or "
                          "view %s cannot be found. Verify the spelling and correctness of the "
                          "schema and catalog", quoted_name(b, n));
}

/* A Delta table by name or path; *found 0 when the name is no Delta table. */
static silt_status delta_target(binder *b, const sql_name *n, exec_target *t, int *found,
                                silt_error *err)
{
    *found = 0;
    if (n->n_parts == 2 && !n->is_path && util_str_casecmp(n->parts[0].name, "delta") != 0 &&
        (util_str_casecmp(n->parts[0].name, "parquet") == 0 ||
         util_str_casecmp(n->parts[0].name, "csv") == 0 ||
         util_str_casecmp(n->parts[0].name, "json") == 0))
        return SILT_OK;
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, n, t, err));
    *found = t->exists;
    return SILT_OK;
}

/* Spark's name of a Delta table in messages and DESCRIBE: spark_catalog.db.t or delta.`file:/p`. */
static const char *spark_name(binder *b, const exec_target *t)
{
    if (t->database != NULL)
        return arena_sprintf(b->a, "spark_catalog.%s.%s", t->database, t->name);
    return arena_sprintf(b->a, "delta.`%s%s`", t->path[0] == '/' ? "file:" : "", t->path);
}

/* ---------------------------------------------------------------- SHOW TBLPROPERTIES */

static silt_status show_tblproperties(binder *b, const sql_stmt *stmt, cells *c, silt_error *err)
{
    const sql_name *n = &stmt->u.show.name;
    const char *key = stmt->u.show.key;
    cat_property *props = NULL;
    size_t n_props = 0, idx;
    const char *owner = NULL;
    cat_table *entry;
    exec_target t;
    int found;
    SILT_RETURN_IF_ERROR(find_entry(b, n, &entry, err));
    if (entry != NULL && entry->kind == CAT_VIEW) {
        props = entry->properties;
        n_props = entry->n_properties;
        owner = arena_sprintf(b->a, "spark_catalog.%s.%s", entry->database, entry->name);
    } else {
        SILT_RETURN_IF_ERROR(delta_target(b, n, &t, &found, err));
        if (!found)
            return not_found(b, n, err);
        SILT_RETURN_IF_ERROR(sql_exec_table_properties(b, &t, &props, &n_props, err));
        owner = spark_name(b, &t);
    }
    for (idx = 0; idx < n_props; idx++) {
        if (key != NULL && strcmp(props[idx].key, key) != 0)
            continue;
        SILT_RETURN_IF_ERROR(put(c, props[idx].key, err));
        SILT_RETURN_IF_ERROR(put(c, props[idx].value, err));
        if (key != NULL)
            return SILT_OK;
    }
    if (key != NULL) { /* Spark answers a row that says so, not an error */
        SILT_RETURN_IF_ERROR(put(c, key, err));
        return put(c, arena_sprintf(b->a, "Table %s does not have property: %s", owner, key), err);
    }
    return SILT_OK;
}

/* ---------------------------------------------------------------- SHOW COLUMNS */

static silt_status show_columns(binder *b, const sql_stmt *stmt, cells *c, silt_error *err)
{
    sql_name n = stmt->u.show.name;
    const sql_name *in = &stmt->u.show.in;
    sql_table_ref ref;
    plan p;
    size_t idx;
    if (in->n_parts > 0) {
        const char *db = in->parts[in->n_parts - 1].name;
        if (n.n_parts == 2 && !n.is_path && util_str_casecmp(n.parts[0].name, db) != 0)
            return sql_bind_error(b, err, in->pos, SILT_BIND, "[SHOW_COLUMNS_WITH_CONFLICT_NAMESPACE] "
                                  "SHOW COLUMNS with conflicting namespaces: `%s` != `%s`", db,
                                  n.parts[0].name);
        if (n.n_parts == 1) {
            sql_ident *parts = arena_calloc(b->a, 2, sizeof(sql_ident));
            if (parts == NULL)
                return err_nomem(err);
            parts[0] = in->parts[in->n_parts - 1];
            parts[1] = n.parts[0];
            n.parts = parts;
            n.n_parts = 2;
        }
    }
    memset(&ref, 0, sizeof(ref));
    ref.kind = SQL_TABLE_NAMED;
    ref.pos = n.pos;
    ref.u.named.name = n;
    SILT_RETURN_IF_ERROR(sql_plan_table_ref(b, &ref, NULL, &p, err));
    for (idx = 0; idx < p.scope.n; idx++)
        SILT_RETURN_IF_ERROR(put(c, p.scope.cols[idx].name, err));
    return SILT_OK;
}

/* ---------------------------------------------------------------- SHOW CREATE TABLE / PARTITIONS */

static silt_status show_partitions(binder *b, const sql_stmt *stmt, silt_error *err)
{
    const sql_name *n = &stmt->u.show.name;
    cat_table *entry;
    exec_target t;
    int found;
    SILT_RETURN_IF_ERROR(find_entry(b, n, &entry, err));
    if (entry != NULL && entry->kind == CAT_VIEW)
        return sql_bind_error(b, err, n->pos, SILT_BIND, "[EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE] "
                              "'SHOW PARTITIONS' expects a table but `spark_catalog`.`%s`.`%s` is "
                              "a view", entry->database, entry->name);
    SILT_RETURN_IF_ERROR(delta_target(b, n, &t, &found, err));
    if (!found)
        return not_found(b, n, err);
    /* Delta keeps no partitions in the catalog, and Spark says so for every Delta table. */
    return sql_bind_error(b, err, n->pos, SILT_BIND,
                          "[INVALID_PARTITION_OPERATION.PARTITION_MANAGEMENT_IS_UNSUPPORTED] The "
                          "partition command is invalid. Table `spark_catalog`.`%s`.`%s` does not "
                          "support partition management",
                          t.database ? t.database : "delta", t.database ? t.name : t.path);
}

static silt_status show_create_table(binder *b, const sql_stmt *stmt, cells *c, silt_error *err)
{
    const sql_name *n = &stmt->u.show.name;
    cat_table *entry;
    exec_target t;
    int found;
    SILT_RETURN_IF_ERROR(find_entry(b, n, &entry, err));
    if (entry != NULL && entry->kind == CAT_VIEW)
        return sql_exec_view_create_text(b, entry, c->a, &c->v, &c->n, err);
    SILT_RETURN_IF_ERROR(delta_target(b, n, &t, &found, err));
    if (!found)
        return not_found(b, n, err);
    (void)c;
    return sql_bind_error(b, err, n->pos, SILT_UNSUPPORTED, "[DELTA_OPERATION_NOT_ALLOWED] "
                          "Operation not allowed: `SHOW CREATE TABLE` is not supported for Delta "
                          "tables");
}

/* ---------------------------------------------------------------- DESCRIBE DATABASE */

/* Spark's owner of a database: the user running it (Java's user.name). */
static const char *user_name(binder *b)
{
    struct passwd *pw = getpwuid(geteuid());
    const char *name = pw != NULL ? pw->pw_name : getenv("USER");
    return arena_strdup(b->a, name != NULL ? name : "");
}

static silt_status describe_database(binder *b, const sql_stmt *stmt, cells *c, silt_error *err)
{
    const sql_name *n = &stmt->u.describe.name;
    const char *name = n->parts[n->n_parts - 1].name;
    cat_state *state = NULL;
    const cat_database *db;
    buf props = BUF_INIT;
    const char *comment, *location;
    silt_status rc = SILT_OK;
    size_t idx;
    if (b->s->cat != NULL)
        SILT_RETURN_IF_ERROR(catalog_load(b->s->cat, &state, err));
    db = state != NULL ? catalog_state_find_database(state, name) : NULL;
    if (db == NULL) {
        catalog_state_free(state);
        return sql_bind_error(b, err, n->pos, SILT_NOTFOUND, "[SCHEMA_NOT_FOUND] The schema "
                              "`spark_catalog`.`%s` cannot be found. Verify the spelling and "
                              "correctness of the schema and catalog", name);
    }
    comment = arena_strdup(b->a, db->comment ? db->comment : "");
    location = catalog_location_uri(b->a, io_store_root(b->s->warehouse), db->location);
    /* Spark prints the sorted pairs as a Scala Seq of tuples: ((a,1), (b,2)). */
    rc = buf_append_char(&props, '(', err);
    {
        cat_property *sorted = arena_calloc(b->a, db->n_properties + 1, sizeof(*sorted));
        if (sorted == NULL)
            rc = err_nomem(err);
        for (idx = 0; rc == SILT_OK && idx < db->n_properties; idx++)
            sorted[idx] = db->properties[idx];
        if (rc == SILT_OK)
            qsort(sorted, db->n_properties, sizeof(*sorted), cmp_key);
        for (idx = 0; rc == SILT_OK && idx < db->n_properties; idx++)
            rc = buf_printf(&props, err, "%s(%s,%s)", idx ? ", " : "", sorted[idx].key,
                            sorted[idx].value ? sorted[idx].value : "");
    }
    if (rc == SILT_OK)
        rc = buf_append_char(&props, ')', err);
    name = arena_strdup(b->a, db->name);
    catalog_state_free(state);
    {
        const char *pairs[12] = {"Catalog Name", "spark_catalog", "Namespace Name", name,
                                 "Comment", comment, "Location", location, "Owner",
                                 user_name(b), "Properties", NULL};
        size_t n_pairs = stmt->u.describe.extended ? 12 : 10;
        if (rc == SILT_OK && stmt->u.describe.extended)
            pairs[11] = arena_strdup(b->a, buf_cstr(&props));
        for (idx = 0; rc == SILT_OK && idx < n_pairs; idx++)
            rc = put(c, pairs[idx], err);
    }
    buf_clear(&props);
    for (idx = 0; rc == SILT_OK && idx < c->n; idx++)
        if (c->v[idx] == NULL)
            rc = err_nomem(err);
    return rc;
}

/* ---------------------------------------------------------------- DESCRIBE TABLE */

/* The comment of a column in its Delta field metadata, NULL when none. */
static const char *field_comment(binder *b, const col_type *schema, const char *name)
{
    size_t idx;
    for (idx = 0; schema != NULL && idx < schema->n_fields; idx++) {
        const char *md = schema->fields[idx].metadata_json, *at, *end;
        buf text = BUF_INIT;
        const char *out;
        if (strcmp(schema->fields[idx].name, name) != 0 || md == NULL)
            continue;
        at = strstr(md, "\"comment\":\"");
        if (at == NULL)
            return NULL;
        at += strlen("\"comment\":\"");
        for (end = at; *end != '\0' && *end != '"'; end++) {
            if (*end == '\\' && end[1] != '\0')
                end++;
            buf_append_char(&text, *end, NULL);
        }
        out = arena_strdup(b->a, text.data ? buf_cstr(&text) : "");
        buf_clear(&text);
        return out;
    }
    return NULL;
}

static silt_status detail_rows(binder *b, const exec_target *t, const cat_table *entry, cells *c,
                               silt_error *err)
{
    cat_property *props;
    size_t n_props, idx;
    buf text = BUF_INIT;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(put3(c, "", "", "", err));
    SILT_RETURN_IF_ERROR(put3(c, "# Detailed Table Information", "", "", err));
    SILT_RETURN_IF_ERROR(put3(c, "Name", spark_name(b, t), "", err));
    /* Spark calls a path table MANAGED: it has no catalog entry to say otherwise. */
    SILT_RETURN_IF_ERROR(put3(c, "Type", entry != NULL && entry->kind == CAT_EXTERNAL
                                             ? "EXTERNAL" : "MANAGED", "", err));
    /* Delta keeps the table's comment as its metadata's description. */
    if (t->snap->metadata.description != NULL)
        SILT_RETURN_IF_ERROR(put3(c, "Comment", t->snap->metadata.description, "", err));
    else if (entry != NULL && entry->comment != NULL)
        SILT_RETURN_IF_ERROR(put3(c, "Comment", entry->comment, "", err));
    SILT_RETURN_IF_ERROR(put3(c, "Location", entry != NULL
                                                 ? arena_sprintf(b->a, "file:%s", t->path)
                                                 : t->path, "", err));
    SILT_RETURN_IF_ERROR(put3(c, "Provider", "delta", "", err));
    SILT_RETURN_IF_ERROR(sql_exec_table_properties(b, t, &props, &n_props, err));
    rc = buf_append_char(&text, '[', err);
    for (idx = 0; rc == SILT_OK && idx < n_props; idx++)
        rc = buf_printf(&text, err, "%s%s=%s", idx ? "," : "", props[idx].key, props[idx].value);
    if (rc == SILT_OK)
        rc = buf_append_char(&text, ']', err);
    if (rc == SILT_OK)
        rc = put3(c, "Table Properties", arena_strdup(b->a, buf_cstr(&text)), "", err);
    buf_clear(&text);
    return rc;
}

silt_status sql_exec_describe_more(binder *b, const sql_stmt *stmt, const char ***rows,
                                   size_t *n_rows, silt_error *err)
{
    const sql_name *n = &stmt->u.describe.name;
    const dlog_metadata *md;
    cat_table *entry = NULL;
    exec_target t;
    cells c;
    size_t idx;
    int found;
    if (stmt->u.describe.what != SQL_DESCRIBE_TABLE || stmt->u.describe.column.n_parts > 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(find_entry(b, n, &entry, err));
    if (entry != NULL && entry->kind == CAT_VIEW)
        return sql_exec_view_describe(b, stmt, entry, rows, n_rows, err);
    if (entry == NULL && n->n_parts == 1 && !n->is_path && b->s->cat != NULL) {
        /* a temporary view or a bound source of that name: no Delta rows */
        return SILT_OK;
    }
    if (delta_target(b, n, &t, &found, err) != SILT_OK) {
        err_clear(err);
        return SILT_OK;
    }
    if (!found)
        return SILT_OK;
    memset(&c, 0, sizeof(c));
    c.a = b->a;
    for (idx = 0; idx < *n_rows * 3; idx++)
        SILT_RETURN_IF_ERROR(put(&c, (*rows)[idx], err));
    md = &t.snap->metadata;
    for (idx = 0; idx < *n_rows; idx++) /* the column comments of the Delta schema */
        if (c.v[3 * idx + 2] == NULL)
            c.v[3 * idx + 2] = field_comment(b, md->schema, c.v[3 * idx]);
    if (md->n_partition_columns > 0) {
        SILT_RETURN_IF_ERROR(put3(&c, "# Partition Information", "", "", err));
        SILT_RETURN_IF_ERROR(put3(&c, "# col_name", "data_type", "comment", err));
        for (idx = 0; idx < md->n_partition_columns; idx++) {
            size_t row;
            for (row = 0; row < *n_rows; row++)
                if (util_str_casecmp((*rows)[3 * row], md->partition_columns[idx]) == 0)
                    break;
            if (row == *n_rows)
                continue;
            SILT_RETURN_IF_ERROR(put3(&c, c.v[3 * row], c.v[3 * row + 1], c.v[3 * row + 2], err));
        }
    }
    if (stmt->u.describe.extended)
        SILT_RETURN_IF_ERROR(detail_rows(b, &t, entry, &c, err));
    *rows = c.v;
    *n_rows = c.n / 3;
    return SILT_OK;
}

/* ---------------------------------------------------------------- dispatch */

silt_status sql_exec_show(binder *b, const sql_stmt *stmt, const char *const **names,
                          size_t *n_cols, const char ***rows, size_t *n_rows, silt_error *err)
{
    static const char *const prop_cols[] = {"key", "value"};
    static const char *const column_cols[] = {"col_name"};
    static const char *const create_cols[] = {"createtab_stmt"};
    static const char *const db_cols[] = {"info_name", "info_value"};
    cells c;
    silt_status rc;
    memset(&c, 0, sizeof(c));
    c.a = b->a;
    if (stmt->kind == SQL_STMT_DESCRIBE) {
        *names = db_cols;
        *n_cols = 2;
        rc = describe_database(b, stmt, &c, err);
    } else {
        switch (stmt->u.show.what) {
        case SQL_SHOW_TBLPROPERTIES:
            *names = prop_cols;
            *n_cols = 2;
            rc = show_tblproperties(b, stmt, &c, err);
            break;
        case SQL_SHOW_COLUMNS:
            *names = column_cols;
            *n_cols = 1;
            rc = show_columns(b, stmt, &c, err);
            break;
        case SQL_SHOW_CREATE_TABLE:
            *names = create_cols;
            *n_cols = 1;
            rc = show_create_table(b, stmt, &c, err);
            break;
        case SQL_SHOW_PARTITIONS: return show_partitions(b, stmt, err);
        default:
            return err_set(err, SILT_UNSUPPORTED, "SHOW FUNCTIONS is not supported by the query "
                           "engine yet");
        }
    }
    SILT_RETURN_IF_ERROR(rc);
    *rows = c.v;
    *n_rows = c.n / *n_cols;
    return SILT_OK;
}
