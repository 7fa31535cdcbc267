/*
 * exec_generated.c - Delta generated columns (PROTOCOL: Generated Columns):
 * `c type GENERATED ALWAYS AS (expr)` at CREATE TABLE, and the values
 * writers compute for them (docs/evolve.md).
 *
 * The field's metadata holds "delta.generationExpression" = the expression
 * as written. "When writing, writers must ... compute the generated column
 * values" where the statement does not give them, and a given value must
 * equal the expression's (Delta checks `c <=> (expr)` as a constraint named
 * "Generated Column", exec_constraints.c). INSERT with a column list, UPDATE
 * of a referenced column and MERGE's INSERT/UPDATE compute them here the way
 * Delta's GeneratedColumn rewrites its plans: the expression over the new
 * row's values.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/exec.h"

const char *sql_generation_expression(arena *a, const col_field *f)
{
    cJSON *meta, *g;
    const char *out = NULL;
    if (f->metadata_json == NULL || strstr(f->metadata_json, "delta.generationExpression") == NULL)
        return NULL;
    if ((meta = cJSON_Parse(f->metadata_json)) == NULL)
        return NULL;
    g = cJSON_GetObjectItemCaseSensitive(meta, "delta.generationExpression");
    if (cJSON_IsString(g))
        out = arena_strdup(a, g->valuestring);
    cJSON_Delete(meta);
    return out;
}

int sql_schema_has_generated(const col_type *schema)
{
    size_t idx;
    for (idx = 0; schema != NULL && idx < schema->n_fields; idx++)
        if (schema->fields[idx].metadata_json != NULL &&
            strstr(schema->fields[idx].metadata_json, "delta.generationExpression") != NULL)
            return 1;
    return 0;
}

/* The expression of field f bound over schema (column i = field i), cast to f's type. */
static silt_status bind_generation(binder *b, const col_type *schema, const col_field *f,
                                   const char *text, expr **out, silt_error *err)
{
    const char *saved = b->text;
    size_t saved_len = b->text_len;
    sql_expr *ast = NULL;
    bind_scope scope;
    bind_ctx bc = {NULL, NULL, NULL, NULL};
    silt_status rc = sql_constraint_parse(b->a, text, &ast, err);
    if (rc == SILT_OK)
        rc = sql_scope_from_schema(b->a, schema, NULL, &scope, err);
    if (rc == SILT_OK) {
        bc.scope = &scope;
        b->text = arena_sprintf(b->a, "SELECT %s", text);
        b->text_len = b->text ? strlen(b->text) : 0;
        rc = b->text ? sql_bind_expr(b, &bc, ast, out, err) : err_nomem(err);
        b->text = saved;
        b->text_len = saved_len;
    }
    if (rc == SILT_OK)
        rc = expr_coerce(out, b->a, f->type, err);
    if (rc != SILT_OK)
        return err_context(err, "while computing the generated column %s (%s)", f->name, text);
    return SILT_OK;
}

/*
 * A copy of e where column c reads vals[c] when it is set, else column c
 * (keep) or a NULL of its type (missing_null: the statement gives no such
 * value, INSERT).
 */
static silt_status substitute(binder *b, const expr *e, const col_type *schema, expr **vals,
                              int missing_null, expr **out, silt_error *err)
{
    expr *copy;
    size_t k;
    if (e->kind == EXPR_COLUMN && e->col_idx >= 0 && (size_t)e->col_idx < schema->n_fields) {
        if (vals[e->col_idx] != NULL) {
            *out = vals[e->col_idx];
            return SILT_OK;
        }
        if (missing_null)
            return expr_lit_null(out, b->a, e->type, err);
    }
    if ((copy = arena_alloc(b->a, sizeof(*copy))) == NULL)
        return err_nomem(err);
    *copy = *e;
    if (e->n_args > 0) {
        if ((copy->args = arena_calloc(b->a, e->n_args, sizeof(expr *))) == NULL)
            return err_nomem(err);
        for (k = 0; k < e->n_args; k++)
            SILT_RETURN_IF_ERROR(
                substitute(b, e->args[k], schema, vals, missing_null, &copy->args[k], err));
    }
    *out = copy;
    return SILT_OK;
}

/* 1 when e reads a column whose vals entry is set. */
static int reads_assigned(const expr *e, const col_type *schema, expr *const *vals)
{
    size_t k;
    if (e->kind == EXPR_COLUMN && e->col_idx >= 0 && (size_t)e->col_idx < schema->n_fields)
        return vals[e->col_idx] != NULL;
    for (k = 0; k < e->n_args; k++)
        if (reads_assigned(e->args[k], schema, vals))
            return 1;
    return 0;
}

silt_status sql_generated_fill(binder *b, const col_type *schema, expr **vals, int missing_null,
                               silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < schema->n_fields; idx++) {
        const char *text;
        expr *e;
        if (vals[idx] != NULL || (text = sql_generation_expression(b->a, &schema->fields[idx])) == NULL)
            continue;
        SILT_RETURN_IF_ERROR(bind_generation(b, schema, &schema->fields[idx], text, &e, err));
        if (!missing_null && !reads_assigned(e, schema, vals))
            continue; /* nothing it reads changes: the stored value stays right */
        SILT_RETURN_IF_ERROR(substitute(b, e, schema, vals, missing_null, &vals[idx], err));
    }
    return SILT_OK;
}

silt_status sql_generated_insert_project(binder *b, const col_type *table, plan *p,
                                         silt_error *err)
{
    size_t n_table = table->n_fields, idx, k, n;
    expr **vals, **exprs;
    const char **names;
    int missing = 0;
    sql_identity ident;
    if (!sql_schema_has_generated(table) && sql_schema_identity_column(table, &ident) < 0)
        return SILT_OK;
    vals = arena_calloc(b->a, n_table + 1, sizeof(expr *));
    exprs = arena_calloc(b->a, n_table + p->scope.n + 1, sizeof(expr *));
    names = arena_calloc(b->a, n_table + p->scope.n + 1, sizeof(char *));
    if (vals == NULL || exprs == NULL || names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_table; idx++) {
        const col_field *f = &table->fields[idx];
        for (k = 0; k < p->scope.n; k++)
            if (!p->scope.cols[k].hidden && util_str_casecmp(p->scope.cols[k].name, f->name) == 0)
                break;
        if (k < p->scope.n)
            SILT_RETURN_IF_ERROR(expr_column(&vals[idx], b->a, (int64_t)k, p->scope.cols[k].type,
                                             err));
        else if (sql_generation_expression(b->a, f) != NULL)
            missing = 1;
        else if (sql_identity_column(f, &ident) && (missing = 1))
            SILT_RETURN_IF_ERROR(expr_lit_null(&vals[idx], b->a, f->type, err)); /* filled later */
        else
            SILT_RETURN_IF_ERROR(expr_lit_null(&vals[idx], b->a, f->type, err));
    }
    if (!missing)
        return SILT_OK; /* every value given: the "Generated Column" constraint checks them */
    SILT_RETURN_IF_ERROR(sql_generated_fill(b, table, vals, 1, err));
    for (idx = 0; idx < n_table; idx++) {
        exprs[idx] = vals[idx];
        names[idx] = table->fields[idx].name;
    }
    n = n_table;
    for (k = 0; k < p->scope.n; k++) { /* columns schema evolution adds stay */
        for (idx = 0; idx < n_table; idx++)
            if (util_str_casecmp(p->scope.cols[k].name, table->fields[idx].name) == 0)
                break;
        if (idx < n_table || p->scope.cols[k].hidden)
            continue;
        SILT_RETURN_IF_ERROR(expr_column(&exprs[n], b->a, (int64_t)k, p->scope.cols[k].type, err));
        names[n++] = p->scope.cols[k].name;
    }
    return sql_plan_project(b, p, exprs, names, n, err);
}

/* ---- CREATE TABLE ---------------------------------------------------------------------- */

static void type_words(const col_type *t, buf *out, silt_error *err)
{
    buf tmp = BUF_INIT;
    size_t idx;
    if (col_type_format(t, &tmp, err) == SILT_OK) {
        for (idx = 0; idx < tmp.len; idx++)
            tmp.data[idx] = (char)toupper((unsigned char)tmp.data[idx]);
        const char *s = buf_cstr(&tmp);
        (void)buf_append_str(out, strcmp(s, "INTEGER") == 0 ? "INT"
                                  : strcmp(s, "LONG") == 0  ? "BIGINT"
                                  : strcmp(s, "SHORT") == 0 ? "SMALLINT"
                                  : strcmp(s, "BYTE") == 0  ? "TINYINT"
                                                            : s,
                             err);
    }
    buf_clear(&tmp);
}

static int nondeterministic_call(const sql_expr *e);

static int any_nondeterministic(const sql_expr *e)
{
    return e != NULL && nondeterministic_call(e);
}

/* Spark's nondeterministic built-ins (Nondeterministic expressions). */
static int nondeterministic_call(const sql_expr *e)
{
    static const char *const names[] = {"rand", "randn", "random", "uuid", "shuffle",
                                        "monotonically_increasing_id", "spark_partition_id",
                                        "input_file_name", "rand_str", NULL};
    const char *const *n;
    size_t k;
    switch (e->kind) {
    case SQL_EXPR_FUNC:
        for (n = names; *n != NULL; n++)
            if (e->u.func.name.n_parts == 1 &&
                util_str_casecmp(e->u.func.name.parts[0].name, *n) == 0)
                return 1;
        for (k = 0; k < e->u.func.args.n; k++)
            if (any_nondeterministic(e->u.func.args.items[k]))
                return 1;
        return 0;
    case SQL_EXPR_BINARY:
        return any_nondeterministic(e->u.op.left) || any_nondeterministic(e->u.op.right);
    case SQL_EXPR_UNARY: return any_nondeterministic(e->u.op.left);
    case SQL_EXPR_CAST: return any_nondeterministic(e->u.cast.arg);
    default: return 0;
    }
}

silt_status sql_generated_create_field(binder *b, const sql_column_list *cols, size_t at,
                                       const col_type *schema, col_field *f, silt_error *err)
{
    const sql_column_def *c = &cols->items[at];
    col_field *plain = arena_calloc(b->a, schema->n_fields + 1, sizeof(col_field));
    const col_type *others;
    size_t idx, n = 0, len;
    const char *text = c->generated_text;
    cJSON *meta;
    char *json;
    expr *e = NULL;
    silt_status rc;
    if (plain == NULL || text == NULL)
        return err_nomem(err);
    len = strlen(text);
    while (len > 0 && isspace((unsigned char)text[len - 1]))
        len--;
    while (len > 0 && isspace((unsigned char)*text)) {
        text++;
        len--;
    }
    if ((text = arena_strndup(b->a, text, len)) == NULL)
        return err_nomem(err);
    if (sql_bind_has_agg(c->generated))
        return sql_bind_error(b, err, c->name.pos, SILT_BIND, "[DELTA_AGGREGATE_IN_GENERATED_"
                              "COLUMN] Found %s. A generated column cannot use an aggregate "
                              "expression", sql_constraint_shown(b, c->generated));
    if (nondeterministic_call(c->generated))
        return sql_bind_error(b, err, c->name.pos, SILT_BIND, "[DELTA_NON_DETERMINISTIC_"
                              "EXPRESSION_IN_GENERATED_COLUMN] Found %s. A generated column "
                              "cannot use a non deterministic expression.",
                              sql_constraint_shown(b, c->generated));
    /* Over the other, non-generated columns only (PROTOCOL: may not reference generated ones) */
    for (idx = 0; idx < schema->n_fields; idx++)
        if (idx != at && cols->items[idx].generated == NULL)
            plain[n++] = schema->fields[idx];
    if ((others = col_type_struct(b->a, n, plain)) == NULL)
        return err_nomem(err);
    {
        bind_scope scope;
        bind_ctx bc = {NULL, NULL, NULL, NULL};
        silt_error inner = SILT_ERROR_INIT;
        rc = sql_scope_from_schema(b->a, others, NULL, &scope, err);
        SILT_RETURN_IF_ERROR(rc);
        bc.scope = &scope;
        rc = sql_bind_expr(b, &bc, c->generated, &e, &inner);
        if (rc != SILT_OK) {
            int unresolved = strstr(inner.message, "UNRESOLVED_COLUMN") != NULL;
            if (!unresolved) {
                *err = inner;
                return rc;
            }
            err_clear(&inner);
            return sql_bind_error(b, err, c->generated->pos, SILT_BIND, "[DELTA_INVALID_GENERATED_"
                                  "COLUMN_REFERENCES] A generated column cannot use a "
                                  "non-existent column or another generated column");
        }
    }
    if (!col_type_equal(e->type, f->type)) {
        buf et = BUF_INIT, ft = BUF_INIT;
        type_words(e->type, &et, err);
        type_words(f->type, &ft, err);
        rc = sql_bind_error(b, err, c->name.pos, SILT_BIND, "[DELTA_GENERATED_COLUMNS_EXPR_TYPE_"
                            "MISMATCH] The expression type of the generated column %s is %s, but "
                            "the column type is %s", f->name, buf_cstr(&et), buf_cstr(&ft));
        buf_clear(&et);
        buf_clear(&ft);
        return rc;
    }
    meta = f->metadata_json ? cJSON_Parse(f->metadata_json) : cJSON_CreateObject();
    if (meta == NULL || cJSON_AddStringToObject(meta, "delta.generationExpression", text) == NULL) {
        cJSON_Delete(meta);
        return err_nomem(err);
    }
    json = cJSON_PrintUnformatted(meta);
    cJSON_Delete(meta);
    if (json == NULL)
        return err_nomem(err);
    f->metadata_json = arena_strdup(b->a, json);
    cJSON_free(json);
    return f->metadata_json != NULL ? SILT_OK : err_nomem(err);
}

/* ---- identity columns (PROTOCOL: Identity Columns) ------------------------------------- */

/* A number of f's metadata (delta.identity.<key>); 0 when absent. */
static int meta_number(const col_field *f, const char *key, int64_t *out)
{
    cJSON *meta, *v;
    int found = 0;
    if (f->metadata_json == NULL || strstr(f->metadata_json, key) == NULL ||
        (meta = cJSON_Parse(f->metadata_json)) == NULL)
        return 0;
    v = cJSON_GetObjectItemCaseSensitive(meta, key);
    if (cJSON_IsNumber(v)) {
        *out = (int64_t)v->valuedouble;
        /* past 2^53 a double loses digits: read the printed number */
        if (v->valuestring == NULL) {
            char *text = cJSON_PrintUnformatted(v);
            if (text != NULL)
                *out = strtoll(text, NULL, 10);
            cJSON_free(text);
        }
        found = 1;
    }
    cJSON_Delete(meta);
    return found;
}

int sql_identity_column(const col_field *f, sql_identity *out)
{
    cJSON *meta, *allow;
    memset(out, 0, sizeof(*out));
    if (f->metadata_json == NULL || strstr(f->metadata_json, "delta.identity.start") == NULL)
        return 0;
    if (!meta_number(f, "delta.identity.start", &out->start) ||
        !meta_number(f, "delta.identity.step", &out->step))
        return 0;
    out->has_hwm = meta_number(f, "delta.identity.highWaterMark", &out->hwm);
    if ((meta = cJSON_Parse(f->metadata_json)) != NULL) {
        allow = cJSON_GetObjectItemCaseSensitive(meta, "delta.identity.allowExplicitInsert");
        out->allow_explicit = cJSON_IsTrue(allow);
        cJSON_Delete(meta);
    }
    return 1;
}

int64_t sql_schema_identity_column(const col_type *schema, sql_identity *out)
{
    size_t idx;
    for (idx = 0; schema != NULL && idx < schema->n_fields; idx++)
        if (sql_identity_column(&schema->fields[idx], out))
            return (int64_t)idx;
    return -1;
}

silt_status sql_identity_create_field(binder *b, const sql_column_def *c, col_field *f,
                                      silt_error *err)
{
    cJSON *meta;
    char *json;
    if (f->type->id != COL_LONG) {
        buf t = BUF_INIT;
        silt_status rc;
        type_words(f->type, &t, err);
        rc = sql_bind_error(b, err, c->name.pos, SILT_BIND, "[DELTA_IDENTITY_COLUMNS_UNSUPPORTED_"
                            "DATA_TYPE] DataType %s is not supported for IDENTITY columns.",
                            buf_cstr(&t));
        buf_clear(&t);
        return rc;
    }
    if (c->identity_step == 0)
        return sql_bind_error(b, err, c->name.pos, SILT_BIND, "[DELTA_IDENTITY_COLUMNS_ILLEGAL_"
                              "STEP] IDENTITY column step cannot be 0.");
    {
        /* raw numbers: exact past 2^53, as Delta writes longs */
        char start[32], step[32];
        snprintf(start, sizeof(start), "%lld", (long long)c->identity_start);
        snprintf(step, sizeof(step), "%lld", (long long)c->identity_step);
        meta = f->metadata_json ? cJSON_Parse(f->metadata_json) : cJSON_CreateObject();
        if (meta == NULL || cJSON_AddRawToObject(meta, "delta.identity.start", start) == NULL ||
            cJSON_AddRawToObject(meta, "delta.identity.step", step) == NULL ||
            cJSON_AddBoolToObject(meta, "delta.identity.allowExplicitInsert",
                                  !c->identity_always) == NULL) {
            cJSON_Delete(meta);
            return err_nomem(err);
        }
    }
    json = cJSON_PrintUnformatted(meta);
    cJSON_Delete(meta);
    if (json == NULL)
        return err_nomem(err);
    f->metadata_json = arena_strdup(b->a, json);
    cJSON_free(json);
    return f->metadata_json != NULL ? SILT_OK : err_nomem(err);
}

/* 1 when e reads column col. */
static int reads_column(const expr *e, int64_t col)
{
    size_t k;
    if (e->kind == EXPR_COLUMN)
        return e->col_idx == col;
    for (k = 0; k < e->n_args; k++)
        if (reads_column(e->args[k], col))
            return 1;
    return 0;
}

silt_status sql_generated_dependents(binder *b, const col_type *schema, const char *column,
                                     const char **out, silt_error *err)
{
    buf t = BUF_INIT;
    size_t idx;
    int64_t col = -1;
    silt_status rc = SILT_OK;
    *out = NULL;
    for (idx = 0; idx < schema->n_fields; idx++)
        if (util_str_casecmp(schema->fields[idx].name, column) == 0)
            col = (int64_t)idx;
    for (idx = 0; col >= 0 && rc == SILT_OK && idx < schema->n_fields; idx++) {
        const char *text = sql_generation_expression(b->a, &schema->fields[idx]);
        expr *e = NULL;
        if (text == NULL)
            continue;
        rc = bind_generation(b, schema, &schema->fields[idx], text, &e, err);
        if (rc == SILT_OK && reads_column(e, col))
            rc = buf_printf(&t, err, "%s%s -> %s", t.len ? "\n" : "", schema->fields[idx].name,
                            text);
    }
    if (rc == SILT_OK && t.len > 0 && (*out = arena_strdup(b->a, buf_cstr(&t))) == NULL)
        rc = err_nomem(err);
    buf_clear(&t);
    return rc;
}
