/*
 * exec_alter.c - ALTER TABLE statements that change a Delta table's schema
 * or constraints: ADD COLUMNS (FIRST/AFTER, nested), DROP COLUMN(S),
 * RENAME COLUMN, ALTER COLUMN (TYPE, COMMENT, SET/DROP NOT NULL,
 * FIRST/AFTER), ADD/DROP CONSTRAINT, and the column mapping upgrade of SET
 * TBLPROPERTIES (docs/evolve.md).
 *
 * Each is one metadata commit, named and parameterised in commitInfo as
 * Delta names them, and with the protocol upgrade it needs in the same
 * commit (dproto_request_apply: the lowest protocol allowing it, as the
 * Spark peer chooses). Rename and drop need column mapping (PROTOCOL:
 * Column Mapping): data files keep the physical names, so only the schema
 * changes. A type change follows PROTOCOL: Type Widening (the change
 * recorded in the field's delta.typeChanges; readers widen older files).
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <string.h>

#include "delta/protocol.h"
#include "formats/text.h"
#include "sql/exec.h"
#include "sql/modify_int.h"

/* ---------------------------------------------------------------- schema helpers */

static silt_status schema_json(binder *b, dlog_metadata *md, const col_type *schema,
                               silt_error *err)
{
    buf json = BUF_INIT;
    silt_status rc = delta_schema_to_json(schema, &json, err);
    md->schema = schema;
    if (rc == SILT_OK && (md->schema_string = arena_strdup(b->a, buf_cstr(&json))) == NULL)
        rc = err_nomem(err);
    buf_clear(&json);
    return rc;
}

/* One field as Delta writes it in a schema ({"name":..,"type":..,...}), in b's arena. */
static const char *field_json(binder *b, const col_field *f, silt_error *err)
{
    buf json = BUF_INIT;
    const col_type *one = col_type_struct(b->a, 1, f);
    const char *start, *end, *out = NULL;
    if (one != NULL && delta_schema_to_json(one, &json, err) == SILT_OK) {
        start = strchr(buf_cstr(&json), '[');
        end = strrchr(buf_cstr(&json), ']');
        if (start != NULL && end != NULL && end > start)
            out = arena_strndup(b->a, start + 1, (size_t)(end - start - 1));
    }
    buf_clear(&json);
    if (out == NULL && err->code == SILT_OK)
        err_nomem(err);
    return out;
}

static int64_t field_index(const col_type *st, const char *name)
{
    size_t idx;
    for (idx = 0; st != NULL && idx < st->n_fields; idx++)
        if (util_str_casecmp(st->fields[idx].name, name) == 0)
            return (int64_t)idx;
    return -1;
}

static silt_status unresolved(binder *b, const sql_ident *id, const col_type *st,
                              silt_error *err)
{
    buf names = BUF_INIT;
    size_t idx;
    silt_status rc = SILT_OK;
    for (idx = 0; rc == SILT_OK && st != NULL && idx < st->n_fields; idx++)
        rc = buf_printf(&names, err, "%s`%s`", idx ? ", " : "", st->fields[idx].name);
    if (rc == SILT_OK)
        rc = sql_bind_error(b, err, id->pos, SILT_BIND, "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A "
                            "column, variable, or function parameter with name `%s` cannot be "
                            "resolved. Did you mean one of the following? [%s].", id->name,
                            buf_cstr(&names));
    buf_clear(&names);
    return rc;
}

/*
 * An edit of the fields of one struct: fields is a copy (room for one more)
 * the edit may change, *n its count; at is the named field (-1 = missing).
 */
typedef silt_status (*fields_edit_fn)(binder *b, void *payload, col_field *fields, size_t *n,
                                      int64_t at, silt_error *err);

/*
 * A copy of st with the edit applied to the struct that holds parts[n-1]
 * (each earlier part a struct field). Missing parents are UNRESOLVED_COLUMN.
 */
static silt_status edit_at(binder *b, const col_type *st, const sql_ident *parts, size_t n_parts,
                           fields_edit_fn fn, void *payload, const col_type **out,
                           silt_error *err)
{
    col_field *fields = arena_calloc(b->a, st->n_fields + 2, sizeof(col_field));
    size_t n = st->n_fields;
    int64_t at = field_index(st, parts[0].name);
    if (fields == NULL)
        return err_nomem(err);
    if (st->n_fields > 0) /* memcpy from a NULL source is undefined even for 0 bytes */
        memcpy(fields, st->fields, st->n_fields * sizeof(col_field));
    if (n_parts == 1) {
        SILT_RETURN_IF_ERROR(fn(b, payload, fields, &n, at, err));
    } else {
        if (at < 0 || fields[at].type->id != COL_STRUCT)
            return unresolved(b, &parts[0], st, err);
        SILT_RETURN_IF_ERROR(edit_at(b, fields[at].type, parts + 1, n_parts - 1, fn, payload,
                                     &fields[at].type, err));
    }
    *out = col_type_struct(b->a, n, fields);
    return *out ? SILT_OK : err_nomem(err);
}

static const char *dotted(binder *b, const sql_ident *parts, size_t n_parts)
{
    buf t = BUF_INIT;
    silt_error e = SILT_ERROR_INIT;
    const char *out = NULL;
    size_t idx;
    for (idx = 0; idx < n_parts; idx++)
        if (buf_printf(&t, &e, "%s%s", idx ? "." : "", parts[idx].name) != SILT_OK)
            break;
    if (idx == n_parts)
        out = arena_strdup(b->a, buf_cstr(&t));
    buf_clear(&t);
    return out ? out : "";
}

static int is_partition_column(const delta_snapshot *snap, const char *name)
{
    size_t idx;
    for (idx = 0; idx < snap->metadata.n_partition_columns; idx++)
        if (util_str_casecmp(snap->metadata.partition_columns[idx], name) == 0)
            return 1;
    return 0;
}

static int mapped(const exec_target *t)
{
    dproto_mapping_mode mode = DPROTO_MAPPING_NONE;
    silt_error e = SILT_ERROR_INIT;
    return dproto_get_mapping_mode(&t->snap->metadata, &mode, &e) == SILT_OK &&
           mode != DPROTO_MAPPING_NONE;
}

/* The table as Delta names it in constraint messages: delta.`file:/p`, or the catalog name. */
static const char *table_words(binder *b, const exec_target *t)
{
    if (t->in_catalog)
        return t->display;
    return arena_sprintf(b->a, "delta.`file:%s`", t->path);
}

/* 1 when a CHECK constraint of the table reads top-level column col (by its bound refs). */
static silt_status constraint_on_column(binder *b, const exec_target *t, const char *col,
                                        const char **name_out, silt_error *err)
{
    size_t idx;
    *name_out = NULL;
    for (idx = 0; idx < t->snap->metadata.configuration.n; idx++) {
        const dlog_kv *kv = &t->snap->metadata.configuration.items[idx];
        sql_expr *ast = NULL;
        expr *e = NULL;
        if (util_str_ncasecmp(kv->key, "delta.constraints.", 18) != 0 || kv->value == NULL)
            continue;
        SILT_RETURN_IF_ERROR(sql_constraint_parse(b->a, kv->value, &ast, err));
        {
            const char *saved = b->text;
            size_t saved_len = b->text_len;
            silt_status rc;
            b->text = arena_sprintf(b->a, "SELECT %s", kv->value);
            b->text_len = b->text ? strlen(b->text) : 0;
            rc = sql_constraint_bind(b, t->snap->schema, kv->key + 18, kv->value, ast, &e, err);
            b->text = saved;
            b->text_len = saved_len;
            SILT_RETURN_IF_ERROR(rc);
        }
        {
            /* a reference to the column anywhere in the expression */
            const expr *stack[64];
            size_t n = 0;
            int64_t want = field_index(t->snap->schema, col);
            stack[n++] = e;
            while (n > 0) {
                const expr *x = stack[--n];
                size_t k;
                if (x->kind == EXPR_COLUMN && x->col_idx == want) {
                    *name_out = kv->key + 18;
                    return SILT_OK;
                }
                for (k = 0; k < x->n_args && n < 64; k++)
                    stack[n++] = x->args[k];
            }
        }
    }
    return SILT_OK;
}

/* A column a generation expression reads cannot be renamed or dropped (Delta's error). */
static silt_status generated_dependents(binder *b, const exec_target *t, const char *col,
                                        uint32_t pos, silt_error *err)
{
    const char *deps = NULL;
    SILT_RETURN_IF_ERROR(sql_generated_dependents(b, t->snap->schema, col, &deps, err));
    if (deps == NULL)
        return SILT_OK;
    return sql_bind_error(b, err, pos, SILT_BIND, "[DELTA_GENERATED_COLUMNS_DEPENDENT_COLUMN_"
                          "CHANGE] Cannot alter column %s because this column is referenced by "
                          "the following generated column(s):\n%s", col, deps);
}

/* ---------------------------------------------------------------- RENAME COLUMN */

typedef struct rename_edit {
    const sql_ident *to;
    const sql_ident *from;
} rename_edit;

static silt_status rename_fields(binder *b, void *payload, col_field *fields, size_t *n,
                                 int64_t at, silt_error *err)
{
    rename_edit *re = payload;
    size_t idx;
    if (at < 0) {
        const col_type *st = col_type_struct(b->a, *n, fields);
        return unresolved(b, re->from, st, err);
    }
    for (idx = 0; idx < *n; idx++)
        if ((int64_t)idx != at && util_str_casecmp(fields[idx].name, re->to->name) == 0)
            return sql_bind_error(b, err, re->to->pos, SILT_BIND, "[FIELD_ALREADY_EXISTS] Cannot "
                                  "rename column, because `%s` already exists", re->to->name);
    fields[at].name = re->to->name;
    return SILT_OK;
}

static silt_status alter_rename(binder *b, const sql_stmt *stmt, exec_target *t,
                                silt_error *err)
{
    const sql_name *col = &stmt->u.alter.column, *to = &stmt->u.alter.new_name;
    dlog_metadata md = t->snap->metadata;
    rename_edit re;
    const col_type *schema;
    const char *p[4], *dep = NULL;
    size_t idx;
    if (!mapped(t))
        return sql_bind_error(b, err, stmt->pos, SILT_BIND, "[DELTA_UNSUPPORTED_RENAME_COLUMN] "
                              "Column rename is not supported for your Delta table. Please "
                              "enable column mapping (ALTER TABLE ... SET TBLPROPERTIES "
                              "('delta.columnMapping.mode' = 'name')).");
    re.to = &to->parts[to->n_parts - 1];
    re.from = &col->parts[col->n_parts - 1];
    if (col->n_parts == 1)
        SILT_RETURN_IF_ERROR(constraint_on_column(b, t, col->parts[0].name, &dep, err));
    if (dep != NULL)
        return sql_bind_error(b, err, col->pos, SILT_BIND, "[DELTA_CONSTRAINT_DEPENDENT_COLUMN_"
                              "CHANGE] Cannot rename column %s because this column is referenced "
                              "by the following check constraint(s): %s", col->parts[0].name, dep);
    if (col->n_parts == 1)
        SILT_RETURN_IF_ERROR(generated_dependents(b, t, col->parts[0].name, col->pos, err));
    SILT_RETURN_IF_ERROR(edit_at(b, t->snap->schema, col->parts, col->n_parts, rename_fields,
                                 &re, &schema, err));
    SILT_RETURN_IF_ERROR(schema_json(b, &md, schema, err));
    if (col->n_parts == 1 && is_partition_column(t->snap, col->parts[0].name)) {
        const char **parts = arena_calloc(b->a, md.n_partition_columns + 1, sizeof(char *));
        if (parts == NULL)
            return err_nomem(err);
        for (idx = 0; idx < md.n_partition_columns; idx++)
            parts[idx] = util_str_casecmp(md.partition_columns[idx], col->parts[0].name) == 0
                             ? re.to->name
                             : md.partition_columns[idx];
        md.partition_columns = parts;
    }
    p[0] = "oldColumnPath";
    p[1] = dotted(b, col->parts, col->n_parts);
    p[2] = "newColumnPath";
    p[3] = col->n_parts > 1
               ? arena_sprintf(b->a, "%s.%s", dotted(b, col->parts, col->n_parts - 1),
                               re.to->name)
               : re.to->name;
    if (p[3] == NULL)
        return err_nomem(err);
    return sql_exec_commit_metadata(t, &md, NULL, "RENAME COLUMN", p, 2, err);
}

/* ---------------------------------------------------------------- DROP COLUMNS */

typedef struct drop_edit {
    const sql_ident *name;
    int if_exists;
    int dropped;
} drop_edit;

static silt_status drop_fields(binder *b, void *payload, col_field *fields, size_t *n,
                               int64_t at, silt_error *err)
{
    drop_edit *de = payload;
    if (at < 0) {
        if (de->if_exists)
            return SILT_OK;
        return unresolved(b, de->name, col_type_struct(b->a, *n, fields), err);
    }
    memmove(&fields[at], &fields[at + 1], (*n - (size_t)at - 1) * sizeof(col_field));
    (*n)--;
    de->dropped = 1;
    return SILT_OK;
}

/* UNRESOLVED_COLUMN for a nested path, as Delta words it: `s`.`nope`, the top-level names. */
static silt_status unresolved_path(binder *b, const sql_name *path, const col_type *top,
                                   silt_error *err)
{
    buf names = BUF_INIT, shown = BUF_INIT;
    size_t idx;
    silt_status rc = SILT_OK;
    for (idx = 0; rc == SILT_OK && idx < path->n_parts; idx++)
        rc = buf_printf(&shown, err, "%s`%s`", idx ? "." : "", path->parts[idx].name);
    for (idx = 0; rc == SILT_OK && idx < top->n_fields; idx++)
        rc = buf_printf(&names, err, "%s`%s`", idx ? ", " : "", top->fields[idx].name);
    if (rc == SILT_OK)
        rc = sql_bind_error(b, err, path->pos, SILT_BIND, "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A "
                            "column, variable, or function parameter with name %s cannot be "
                            "resolved. Did you mean one of the following? [%s].",
                            buf_cstr(&shown), buf_cstr(&names));
    buf_clear(&names);
    buf_clear(&shown);
    return rc;
}

/*
 * DROP COLUMN s.y: the field goes from its struct. A struct would be left without
 * fields: refused as Delta refuses it (DELTA_DROP_COLUMN_ON_SINGLE_FIELD_SCHEMA).
 * With IF EXISTS a missing field or parent drops nothing.
 */
static silt_status drop_nested(binder *b, const sql_name *path, drop_edit *de,
                               const col_type **schema, silt_error *err)
{
    const col_type *st = *schema;
    size_t k;
    for (k = 0; k < path->n_parts; k++) {
        int64_t at = field_index(st, path->parts[k].name);
        if (at < 0 || (k + 1 < path->n_parts && st->fields[at].type->id != COL_STRUCT)) {
            if (de->if_exists)
                return SILT_OK;
            return unresolved_path(b, path, *schema, err);
        }
        if (k + 1 < path->n_parts)
            st = st->fields[at].type;
    }
    if (st->n_fields == 1)
        return sql_bind_error(b, err, path->pos, SILT_BIND, "[DELTA_DROP_COLUMN_ON_SINGLE_FIELD_"
                              "SCHEMA] Cannot drop column from a schema with a single column. "
                              "Schema: struct<%s>", st->fields[0].name);
    return edit_at(b, *schema, path->parts, path->n_parts, drop_fields, de, schema, err);
}

/* What keeps a top-level column from being dropped: a partition column, a CHECK constraint
 * or a generated column reading it, each refused with Delta's error. */
static silt_status drop_checks(binder *b, const exec_target *t, const sql_ident *id,
                               silt_error *err)
{
    const char *dep = NULL;
    if (is_partition_column(t->snap, id->name))
        return sql_bind_error(b, err, id->pos, SILT_BIND, "[DELTA_UNSUPPORTED_DROP_PARTITION_"
                              "COLUMN] Dropping partition columns (%s) is not allowed.", id->name);
    SILT_RETURN_IF_ERROR(constraint_on_column(b, t, id->name, &dep, err));
    if (dep != NULL)
        return sql_bind_error(b, err, id->pos, SILT_BIND, "[DELTA_CONSTRAINT_DEPENDENT_COLUMN"
                              "_CHANGE] Cannot drop column %s because this column is "
                              "referenced by the following check constraint(s): %s",
                              id->name, dep);
    return generated_dependents(b, t, id->name, id->pos, err);
}

static silt_status alter_drop(binder *b, const sql_stmt *stmt, exec_target *t, silt_error *err)
{
    const sql_ident_list *cols = &stmt->u.alter.drop_columns;
    dlog_metadata md = t->snap->metadata;
    const col_type *schema = t->snap->schema;
    buf params = BUF_INIT;
    const char *p[2];
    size_t idx, n_dropped = 0;
    silt_status rc = SILT_OK;
    if (!mapped(t))
        return sql_bind_error(b, err, stmt->pos, SILT_BIND, "[DELTA_UNSUPPORTED_DROP_COLUMN] "
                              "DROP COLUMN is not supported for your Delta table. Please enable "
                              "column mapping (ALTER TABLE ... SET TBLPROPERTIES "
                              "('delta.columnMapping.mode' = 'name')).");
    for (idx = 0; idx < cols->n; idx++) {
        const sql_name *path = &stmt->u.alter.drop_paths[idx];
        const sql_ident *id = &path->parts[path->n_parts - 1];
        const char *shown = dotted(b, path->parts, path->n_parts);
        drop_edit de = {id, stmt->u.alter.if_exists, 0};
        if (path->n_parts > 1) {
            SILT_RETURN_IF_ERROR(drop_nested(b, path, &de, &schema, err));
        } else {
            SILT_RETURN_IF_ERROR(drop_checks(b, t, id, err));
            SILT_RETURN_IF_ERROR(edit_at(b, schema, id, 1, drop_fields, &de, &schema, err));
        }
        if (!de.dropped)
            continue;
        if (n_dropped > 0)
            rc = buf_append_char(&params, ',', err);
        if (rc == SILT_OK)
            rc = text_spark_json_string(&params, shown, strlen(shown), err);
        n_dropped++;
        if (rc != SILT_OK)
            break;
    }
    p[0] = "columns";
    p[1] = rc == SILT_OK ? arena_sprintf(b->a, "[%s]", buf_cstr(&params)) : NULL;
    buf_clear(&params);
    SILT_RETURN_IF_ERROR(rc);
    if (n_dropped == 0)
        return SILT_OK; /* IF EXISTS and none there: Delta commits nothing */
    if (p[1] == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(schema_json(b, &md, schema, err));
    return sql_exec_commit_metadata(t, &md, NULL, "DROP COLUMNS", p, 1, err);
}

/* ---------------------------------------------------------------- positions */

/* Moves fields[from] to FIRST or AFTER `after` among fields[0..n). */
static silt_status move_field(binder *b, col_field *fields, size_t n, size_t from,
                              const sql_column_def *c, silt_error *err)
{
    col_field moving = fields[from];
    int64_t after;
    size_t to;
    memmove(&fields[from], &fields[from + 1], (n - from - 1) * sizeof(col_field));
    if (c->position == SQL_POSITION_FIRST) {
        to = 0;
    } else {
        after = field_index(col_type_struct(b->a, n - 1, fields), c->after.name);
        if (after < 0)
            return unresolved(b, &c->after, col_type_struct(b->a, n - 1, fields), err);
        to = (size_t)after + 1;
    }
    memmove(&fields[to + 1], &fields[to], (n - 1 - to) * sizeof(col_field));
    fields[to] = moving;
    return SILT_OK;
}

static const char *position_text(binder *b, const sql_column_def *c)
{
    if (c->position == SQL_POSITION_FIRST)
        return "FIRST";
    return arena_sprintf(b->a, "AFTER %s", c->after.name);
}

/* ---------------------------------------------------------------- ADD COLUMNS */

typedef struct add_edit {
    const sql_column_def *c;
    col_field field;
} add_edit;

static silt_status add_fields(binder *b, void *payload, col_field *fields, size_t *n,
                              int64_t at, silt_error *err)
{
    add_edit *ae = payload;
    if (at >= 0)
        return sql_bind_error(b, err, ae->c->name.pos, SILT_BIND, "[FIELD_ALREADY_EXISTS] Cannot "
                              "add column, because `%s` already exists", ae->c->name.name);
    fields[(*n)++] = ae->field;
    if (ae->c->position != SQL_POSITION_DEFAULT)
        return move_field(b, fields, *n, *n - 1, ae->c, err);
    return SILT_OK;
}

static silt_status new_field(binder *b, const sql_column_def *c, col_field *out, silt_error *err)
{
    memset(out, 0, sizeof(*out));
    if (c->generated || c->default_value || c->identity)
        return sql_bind_error(b, err, c->name.pos, SILT_UNSUPPORTED, "ADD COLUMNS with a default "
                              "value, a generation expression or an identity is not supported");
    if (c->not_null)
        return sql_bind_error(b, err, c->name.pos, SILT_BIND, "[DELTA_NOT_NULL_COLUMN_NOT_"
                              "ALLOWED] cannot add NOT NULL column `%s` to an existing table",
                              c->name.name);
    out->name = c->name.name;
    out->type = c->type.type;
    out->nullable = 1;
    out->field_id = -1;
    if (c->comment != NULL) {
        cJSON *meta = cJSON_CreateObject();
        char *text;
        if (meta == NULL)
            return err_nomem(err);
        cJSON_AddStringToObject(meta, "comment", c->comment);
        text = cJSON_PrintUnformatted(meta);
        cJSON_Delete(meta);
        out->metadata_json = text ? arena_strdup(b->a, text) : NULL;
        cJSON_free(text);
        if (out->metadata_json == NULL)
            return err_nomem(err);
    }
    return SILT_OK;
}

/* Ids and physical names for the new fields of a mapped table, maxColumnId raised. */
static silt_status map_new_fields(binder *b, exec_target *t, dlog_metadata *md,
                                  const col_type **schema, silt_error *err)
{
    const char *max = dlog_map_get(&md->configuration, "delta.columnMapping.maxColumnId", NULL);
    int64_t max_id = 0;
    dlog_kv *items;
    size_t idx;
    if (max != NULL && !util_str_to_int64(max, strlen(max), &max_id))
        return err_set(err, SILT_CORRUPT, "delta.columnMapping.maxColumnId is \"%s\"", max);
    (void)t;
    SILT_RETURN_IF_ERROR(delta_mapping_assign(b->a, *schema, 0, &max_id, schema, err));
    items = arena_calloc(b->a, md->configuration.n + 1, sizeof(dlog_kv));
    if (items == NULL)
        return err_nomem(err);
    if (md->configuration.n > 0) /* memcpy from a NULL source is undefined even for 0 bytes */
        memcpy(items, md->configuration.items, md->configuration.n * sizeof(dlog_kv));
    for (idx = 0; idx < md->configuration.n &&
                  strcmp(items[idx].key, "delta.columnMapping.maxColumnId") != 0;
         idx++)
        ;
    items[idx].key = "delta.columnMapping.maxColumnId";
    items[idx].value = arena_sprintf(b->a, "%lld", (long long)max_id);
    if (idx == md->configuration.n)
        md->configuration.n++;
    md->configuration.items = items;
    return items[idx].value ? SILT_OK : err_nomem(err);
}

static silt_status alter_add(binder *b, const sql_stmt *stmt, exec_target *t, silt_error *err)
{
    const sql_column_list *cols = &stmt->u.alter.columns;
    dlog_metadata md = t->snap->metadata;
    const col_type *schema = t->snap->schema;
    buf params = BUF_INIT;
    const char *p[2];
    size_t idx;
    silt_status rc = SILT_OK;
    for (idx = 0; idx < cols->n; idx++) {
        const sql_column_def *c = &cols->items[idx];
        add_edit ae;
        sql_ident *path = arena_calloc(b->a, c->parent.n_parts + 1, sizeof(sql_ident));
        if (path == NULL)
            return err_nomem(err);
        if (c->parent.n_parts > 0) /* memcpy from a NULL source is undefined even for 0 bytes */
            memcpy(path, c->parent.parts, c->parent.n_parts * sizeof(sql_ident));
        path[c->parent.n_parts] = c->name;
        ae.c = c;
        SILT_RETURN_IF_ERROR(new_field(b, c, &ae.field, err));
        SILT_RETURN_IF_ERROR(edit_at(b, schema, path, c->parent.n_parts + 1, add_fields, &ae,
                                     &schema, err));
    }
    if (mapped(t))
        SILT_RETURN_IF_ERROR(map_new_fields(b, t, &md, &schema, err));
    SILT_RETURN_IF_ERROR(schema_json(b, &md, schema, err));
    /* History: [{"column":{field}[,"position":"FIRST"]}], the field as given (no mapping). */
    rc = buf_append_char(&params, '[', err);
    for (idx = 0; rc == SILT_OK && idx < cols->n; idx++) {
        const sql_column_def *c = &cols->items[idx];
        col_field f;
        const char *fj;
        rc = new_field(b, c, &f, err);
        fj = rc == SILT_OK ? field_json(b, &f, err) : NULL;
        if (fj == NULL)
            break;
        rc = buf_printf(&params, err, "%s{\"column\":%s", idx ? "," : "", fj);
        if (rc == SILT_OK && c->position != SQL_POSITION_DEFAULT)
            rc = buf_printf(&params, err, ",\"position\":\"%s\"", position_text(b, c));
        if (rc == SILT_OK)
            rc = buf_append_char(&params, '}', err);
    }
    if (rc == SILT_OK && err->code != SILT_OK)
        rc = err->code;
    if (rc == SILT_OK)
        rc = buf_append_char(&params, ']', err);
    p[0] = "columns";
    p[1] = rc == SILT_OK ? arena_strdup(b->a, buf_cstr(&params)) : NULL;
    buf_clear(&params);
    SILT_RETURN_IF_ERROR(rc);
    if (p[1] == NULL)
        return err_nomem(err);
    return sql_exec_commit_metadata(t, &md, NULL, "ADD COLUMNS", p, 1, err);
}

/* ---------------------------------------------------------------- ALTER COLUMN */

/* PROTOCOL: Type Widening, the supported changes. */
static int widens(const col_type *from, const col_type *to)
{
    static const col_type_id ints[] = {COL_BYTE, COL_SHORT, COL_INT, COL_LONG};
    int rank_from = -1, rank_to = -1, idx;
    for (idx = 0; idx < 4; idx++) {
        if (ints[idx] == from->id)
            rank_from = idx;
        if (ints[idx] == to->id)
            rank_to = idx;
    }
    if (rank_from >= 0 && rank_to > rank_from)
        return 1;
    if (from->id == COL_FLOAT && to->id == COL_DOUBLE)
        return 1;
    if (rank_from >= 0 && rank_from < 3 && to->id == COL_DOUBLE)
        return 1;
    if (from->id == COL_DATE && to->id == COL_TIMESTAMP_NTZ)
        return 1;
    if (from->id == COL_DECIMAL && to->id == COL_DECIMAL)
        return to->scale >= from->scale &&
               to->precision - to->scale >= from->precision - from->scale &&
               !(to->precision == from->precision && to->scale == from->scale);
    if (rank_from >= 0 && to->id == COL_DECIMAL) {
        static const int digits[] = {3, 5, 10, 20};
        return to->precision - to->scale >= digits[rank_from];
    }
    return 0;
}

static const char *spark_type(binder *b, const col_type *type)
{
    buf t = BUF_INIT;
    silt_error e = SILT_ERROR_INIT;
    const char *out = NULL;
    char *s;
    if (sql_spark_type_name(type, &t, &e) == SILT_OK && (s = arena_strdup(b->a, buf_cstr(&t))))
    {
        char *c;
        for (c = s; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        out = s;
    }
    buf_clear(&t);
    return out ? out : "?";
}

/* The metadata JSON with key set to a JSON value (value_json NULL: removed). */
static silt_status set_meta(binder *b, const char *meta_json, const char *key, cJSON *value,
                            const char **out, silt_error *err)
{
    cJSON *meta = meta_json ? cJSON_Parse(meta_json) : cJSON_CreateObject();
    char *text;
    if (meta == NULL) {
        cJSON_Delete(value);
        return err_nomem(err);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(meta, key);
    if (value != NULL)
        cJSON_AddItemToObject(meta, key, value);
    text = cJSON_PrintUnformatted(meta);
    cJSON_Delete(meta);
    *out = text ? arena_strdup(b->a, text) : NULL;
    cJSON_free(text);
    return *out ? SILT_OK : err_nomem(err);
}

/* delta.typeChanges gets {"toType":..,"fromType":..} appended. */
static silt_status add_type_change(binder *b, col_field *f, const col_type *to, silt_error *err)
{
    cJSON *meta = f->metadata_json ? cJSON_Parse(f->metadata_json) : cJSON_CreateObject();
    cJSON *list, *change;
    buf tt = BUF_INIT, ft = BUF_INIT;
    char *text;
    silt_status rc;
    if (meta == NULL)
        return err_nomem(err);
    list = cJSON_GetObjectItemCaseSensitive(meta, "delta.typeChanges");
    if (!cJSON_IsArray(list)) {
        cJSON_DeleteItemFromObjectCaseSensitive(meta, "delta.typeChanges");
        list = cJSON_AddArrayToObject(meta, "delta.typeChanges");
    }
    rc = col_type_format(to, &tt, err);
    if (rc == SILT_OK)
        rc = col_type_format(f->type, &ft, err);
    change = cJSON_CreateObject();
    if (rc == SILT_OK && (list == NULL || change == NULL))
        rc = err_nomem(err);
    if (rc == SILT_OK) {
        cJSON_AddStringToObject(change, "toType", buf_cstr(&tt));
        cJSON_AddStringToObject(change, "fromType", buf_cstr(&ft));
        cJSON_AddItemToArray(list, change);
        change = NULL;
    }
    cJSON_Delete(change);
    buf_clear(&tt);
    buf_clear(&ft);
    text = rc == SILT_OK ? cJSON_PrintUnformatted(meta) : NULL;
    cJSON_Delete(meta);
    if (rc == SILT_OK && (text == NULL || (f->metadata_json = arena_strdup(b->a, text)) == NULL))
        rc = err_nomem(err);
    cJSON_free(text);
    return rc;
}

typedef struct change_edit {
    const sql_stmt *stmt;
    exec_target *t;
    int changed;
    col_field shown; /* the field for history (before a type change's record) */
} change_edit;

static silt_status change_type(binder *b, change_edit *ce, col_field *f, silt_error *err)
{
    const col_type *to = ce->stmt->u.alter.columns.items[0].type.type;
    const char *widening = dlog_map_get(&ce->t->snap->metadata.configuration,
                                        "delta.enableTypeWidening", NULL);
    if (col_type_equal(f->type, to))
        return SILT_OK;
    if (!widens(f->type, to))
        return sql_bind_error(b, err, ce->stmt->pos, SILT_BIND, "[NOT_SUPPORTED_CHANGE_COLUMN] "
                              "ALTER TABLE ALTER/CHANGE COLUMN is not supported for changing %s's "
                              "column `%s` with type \"%s\" to `%s` with type \"%s\".",
                              ce->t->display, f->name, spark_type(b, f->type), f->name,
                              spark_type(b, to));
    if (widening == NULL || util_str_casecmp(widening, "true") != 0)
        return sql_bind_error(b, err, ce->stmt->pos, SILT_BIND, "[DELTA_UNSUPPORTED_ALTER_TABLE_"
                              "CHANGE_COL_OP] ALTER TABLE CHANGE COLUMN is not supported for "
                              "changing column %s from %s to %s", f->name, spark_type(b, f->type),
                              spark_type(b, to));
    if (is_partition_column(ce->t->snap, f->name))
        return sql_bind_error(b, err, ce->stmt->pos, SILT_UNSUPPORTED, "changing the type of the "
                              "partition column `%s` is not supported", f->name);
    ce->shown = *f;
    ce->shown.type = to;
    SILT_RETURN_IF_ERROR(add_type_change(b, f, to, err));
    f->type = to;
    ce->changed = 1;
    return SILT_OK;
}

static silt_status change_fields(binder *b, void *payload, col_field *fields, size_t *n,
                                 int64_t at, silt_error *err)
{
    change_edit *ce = payload;
    const sql_column_def *c = &ce->stmt->u.alter.columns.items[0];
    const sql_name *col = &ce->stmt->u.alter.column;
    col_field *f;
    if (at < 0)
        return unresolved(b, &col->parts[col->n_parts - 1], col_type_struct(b->a, *n, fields),
                          err);
    f = &fields[at];
    switch (ce->stmt->u.alter.column_change) {
    case SQL_CHANGE_TYPE:
        SILT_RETURN_IF_ERROR(change_type(b, ce, f, err));
        return SILT_OK;
    case SQL_CHANGE_COMMENT:
        SILT_RETURN_IF_ERROR(set_meta(b, f->metadata_json, "comment",
                                      cJSON_CreateString(c->comment ? c->comment : ""),
                                      &f->metadata_json, err));
        ce->changed = 1;
        break;
    case SQL_CHANGE_SET_NOT_NULL:
        if (f->nullable)
            return sql_bind_error(b, err, ce->stmt->pos, SILT_BIND, "Cannot change nullable "
                                  "column to non-nullable: %s.", f->name);
        break;
    case SQL_CHANGE_DROP_NOT_NULL:
        ce->changed = !f->nullable;
        f->nullable = 1;
        break;
    case SQL_CHANGE_POSITION:
        ce->shown = *f;
        ce->changed = 1;
        return move_field(b, fields, *n, (size_t)at, c, err);
    default:
        return sql_bind_error(b, err, ce->stmt->pos, SILT_UNSUPPORTED, "ALTER COLUMN SET/DROP "
                              "DEFAULT is not supported (the table feature allowColumnDefaults)");
    }
    ce->shown = *f;
    return SILT_OK;
}

static silt_status alter_change(binder *b, const sql_stmt *stmt, exec_target *t,
                                silt_error *err)
{
    const sql_name *col = &stmt->u.alter.column;
    dlog_metadata md = t->snap->metadata;
    const col_type *schema;
    change_edit ce;
    const char *p[4];
    memset(&ce, 0, sizeof(ce));
    ce.stmt = stmt;
    ce.t = t;
    SILT_RETURN_IF_ERROR(edit_at(b, t->snap->schema, col->parts, col->n_parts, change_fields,
                                 &ce, &schema, err));
    if (!ce.changed)
        return SILT_OK; /* already so: Delta commits nothing */
    SILT_RETURN_IF_ERROR(schema_json(b, &md, schema, err));
    p[0] = "column";
    p[1] = field_json(b, &ce.shown, err);
    p[2] = "position";
    p[3] = position_text(b, &stmt->u.alter.columns.items[0]);
    if (p[1] == NULL || p[3] == NULL)
        return err->code != SILT_OK ? err->code : err_nomem(err);
    return sql_exec_commit_metadata(t, &md, NULL, "CHANGE COLUMN", p,
                                    stmt->u.alter.column_change == SQL_CHANGE_POSITION ? 2 : 1,
                                    err);
}

/* ---------------------------------------------------------------- constraints */

/* The CHECK text as Delta stores it, its tokens joined by one space: from the expression to
 * the parenthesis closing CHECK (. */
static const char *check_text(binder *b, const sql_expr *e)
{
    size_t at = e->pos, end;
    int depth = 0;
    char quote = 0;
    for (end = at; end < b->text_len; end++) {
        char ch = b->text[end];
        if (quote != 0) {
            if (ch == quote)
                quote = 0;
        } else if (ch == '\'' || ch == '"' || ch == '`') {
            quote = ch;
        } else if (ch == '(') {
            depth++;
        } else if (ch == ')' && depth-- == 0) {
            break;
        }
    }
    return sql_constraint_tokens_text(b->a, b->text + at, end - at);
}

/* Rows of the table where e is not TRUE. */
static silt_status count_violations(binder *b, exec_target *t, const expr *e, int64_t *out,
                                    silt_error *err)
{
    size_t *files = arena_calloc(b->a, t->snap->n_files + 1, sizeof(size_t));
    sql_target_scan *ts;
    engine_op *op;
    arena *scratch = arena_new(b->a, "constraint scan");
    size_t idx;
    silt_status rc;
    *out = 0;
    if (files == NULL || scratch == NULL)
        return err_nomem(err);
    for (idx = 0; idx < t->snap->n_files; idx++)
        files[idx] = idx;
    SILT_RETURN_IF_ERROR(sql_target_scan_new(b, &ts, t->store, t->snap, files, t->snap->n_files,
                                             0, err));
    SILT_RETURN_IF_ERROR(sql_target_scan_op(b, ts, &op, err));
    rc = engine_op_open(op, err);
    while (rc == SILT_OK) {
        engine_chunk *chunk;
        int32_t *sel;
        int64_t n_true = 0;
        rc = engine_op_next(op, &chunk, err);
        if (rc != SILT_OK || chunk == NULL)
            break;
        arena_reset(scratch);
        sel = arena_alloc(scratch, (size_t)(chunk->batch.n_rows + 1) * sizeof(int32_t));
        if (sel == NULL) {
            rc = err_nomem(err);
            break;
        }
        rc = expr_filter(e, b->ctx, &chunk->batch, chunk->sel, chunk->n_sel, scratch, sel,
                         &n_true, err);
        *out += chunk->n_sel - n_true;
    }
    engine_op_close(op);
    return rc;
}

static const char *constraint_key(binder *b, const char *name)
{
    char *key = arena_sprintf(b->a, "delta.constraints.%s", name), *c;
    for (c = key ? key + 18 : NULL; c != NULL && *c; c++)
        *c = (char)tolower((unsigned char)*c);
    return key;
}

static silt_status with_config(binder *b, dlog_metadata *md, const char *key, const char *value,
                               silt_error *err)
{
    const dlog_map *old = &md->configuration;
    dlog_kv *items = arena_calloc(b->a, old->n + 1, sizeof(dlog_kv));
    size_t idx, n = 0;
    if (items == NULL)
        return err_nomem(err);
    for (idx = 0; idx < old->n; idx++)
        if (util_str_casecmp(old->items[idx].key, key) != 0)
            items[n++] = old->items[idx];
    if (value != NULL) {
        items[n].key = key;
        items[n++].value = value;
    }
    md->configuration.items = items;
    md->configuration.n = n;
    return SILT_OK;
}

static silt_status alter_add_constraint(binder *b, const sql_stmt *stmt, exec_target *t,
                                        silt_error *err)
{
    const char *name = stmt->u.alter.constraint, *key = constraint_key(b, name);
    const char *text = check_text(b, stmt->u.alter.check), *p[4];
    dlog_metadata md = t->snap->metadata;
    dproto_request req;
    dlog_protocol *protocol = arena_calloc(b->a, 1, sizeof(*protocol));
    int changed = 0;
    int64_t bad = 0;
    expr *e = NULL;
    if (key == NULL || text == NULL || protocol == NULL)
        return err_nomem(err);
    if (dlog_map_get(&md.configuration, key, NULL) != NULL)
        return sql_bind_error(b, err, stmt->pos, SILT_BIND, "[DELTA_CONSTRAINT_ALREADY_EXISTS] "
                              "Constraint '%s' already exists. Please delete the old constraint "
                              "first.", name);
    SILT_RETURN_IF_ERROR(sql_constraint_bind(b, t->snap->schema, name, text, stmt->u.alter.check,
                                             &e, err));
    SILT_RETURN_IF_ERROR(count_violations(b, t, e, &bad, err));
    if (bad > 0)
        return sql_bind_error(b, err, stmt->pos, SILT_RUNTIME, "[DELTA_NEW_CHECK_CONSTRAINT_"
                              "VIOLATION] %lld rows in %s violate the new CHECK constraint (%s)",
                              (long long)bad, table_words(b, t), text);
    SILT_RETURN_IF_ERROR(with_config(b, &md, key, text, err));
    memset(&req, 0, sizeof(req));
    req.any = 1;
    req.features[req.n_features++] = "checkConstraints";
    SILT_RETURN_IF_ERROR(dproto_request_apply(&t->snap->protocol, &req, b->a, protocol, &changed,
                                              err));
    p[0] = "name";
    p[1] = name;
    p[2] = "expr";
    p[3] = text;
    return sql_exec_commit_metadata(t, &md, changed ? protocol : NULL, "ADD CONSTRAINT", p, 2,
                                    err);
}

static silt_status alter_drop_constraint(binder *b, const sql_stmt *stmt, exec_target *t,
                                         silt_error *err)
{
    const char *name = stmt->u.alter.constraint, *key = constraint_key(b, name), *p[6];
    dlog_metadata md = t->snap->metadata;
    const char *old;
    if (key == NULL)
        return err_nomem(err);
    old = dlog_map_get(&md.configuration, key, NULL);
    if (old == NULL && !stmt->u.alter.if_exists)
        return sql_bind_error(b, err, stmt->pos, SILT_BIND, "[DELTA_CONSTRAINT_DOES_NOT_EXIST] "
                              "Cannot drop nonexistent constraint %s from table %s. To avoid "
                              "throwing an error, provide the parameter IF EXISTS or set the SQL "
                              "session configuration spark.databricks.delta.constraints."
                              "assumesDropIfExists.enabled to true.", name, table_words(b, t));
    SILT_RETURN_IF_ERROR(with_config(b, &md, key, NULL, err));
    p[0] = "name";
    p[1] = name;
    p[2] = old ? "expr" : "existed";
    p[3] = old ? old : "false";
    p[4] = "existed";
    p[5] = "true";
    return sql_exec_commit_metadata(t, &md, NULL, "DROP CONSTRAINT", p, old ? 3 : 2, err);
}

/* ---------------------------------------------------------------- column mapping upgrade */

silt_status sql_exec_mapping_upgrade(binder *b, exec_target *t, const char *mode,
                                     dlog_metadata *md, dlog_map *conf, int *changed,
                                     silt_error *err)
{
    const char *old = dlog_map_get(&t->snap->metadata.configuration,
                                   "delta.columnMapping.mode", NULL);
    const col_type *schema;
    int64_t max_id = 0;
    *changed = 0;
    if (old == NULL)
        old = "none";
    if (mode == NULL || (util_str_casecmp(mode, "none") != 0 &&
                         util_str_casecmp(mode, "name") != 0 && util_str_casecmp(mode, "id") != 0))
        return err_set(err, SILT_INVALID, "[DELTA_MODE_NOT_SUPPORTED] Specified mode '%s' is not "
                       "supported. Supported modes are: none, id, name", mode ? mode : "");
    if (util_str_casecmp(old, mode) == 0)
        return SILT_OK;
    if (util_str_casecmp(old, "none") != 0 || util_str_casecmp(mode, "name") != 0)
        return err_set(err, SILT_UNSUPPORTED, "[DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE] "
                       "Changing column mapping mode from '%s' to '%s' is not supported.", old,
                       mode);
    /* Delta's upgrade: the files hold the logical names, so they become the physical ones. */
    SILT_RETURN_IF_ERROR(delta_mapping_assign(b->a, t->snap->schema, 1, &max_id, &schema, err));
    SILT_RETURN_IF_ERROR(schema_json(b, md, schema, err));
    conf->items = arena_calloc(b->a, 1, sizeof(dlog_kv));
    if (conf->items == NULL)
        return err_nomem(err);
    conf->items[0].key = "delta.columnMapping.maxColumnId";
    conf->items[0].value = arena_sprintf(b->a, "%lld", (long long)max_id);
    conf->n = 1;
    *changed = 1;
    return conf->items[0].value ? SILT_OK : err_nomem(err);
}

silt_status sql_exec_alter_schema(binder *b, const sql_stmt *stmt, exec_target *t,
                                  silt_error *err)
{
    switch (stmt->u.alter.what) {
    case SQL_ALTER_ADD_COLUMNS: return alter_add(b, stmt, t, err);
    case SQL_ALTER_DROP_COLUMNS: return alter_drop(b, stmt, t, err);
    case SQL_ALTER_RENAME_COLUMN: return alter_rename(b, stmt, t, err);
    case SQL_ALTER_ALTER_COLUMN: return alter_change(b, stmt, t, err);
    case SQL_ALTER_ADD_CONSTRAINT: return alter_add_constraint(b, stmt, t, err);
    case SQL_ALTER_DROP_CONSTRAINT: return alter_drop_constraint(b, stmt, t, err);
    default:
        return sql_bind_error(b, err, stmt->pos, SILT_UNSUPPORTED, "this ALTER TABLE is not "
                              "supported");
    }
}
