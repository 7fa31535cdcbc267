/*
 * binder_expr.c - SQL expressions to typed engine expressions.
 *
 * Names are resolved case-insensitively against the scope of the FROM
 * clause (or, inside an aggregation, against its keys and aggregates).
 * Engine constructors apply Spark's coercion; this file only maps syntax
 * to them. Uncorrelated subqueries are planned here and become nodes that
 * read their value (scalar), a literal IN list (IN) or a boolean (EXISTS)
 * computed before the plan runs (plan_subquery.c): for an uncorrelated
 * subquery that is what a semi join would compute, with the three-valued
 * IN semantics the engine already has. Correlated ones are joins
 * (plan_select.c) or fail to resolve.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/binder_int.h"
#include "sql/lexer.h"
#include "sql/prepared.h"
#include "util/time.h"

static silt_status bind_sub(binder *b, const bind_ctx *bc, const sql_expr *ast, expr **out,
                            silt_error *err);

/* ---------------------------------------------------------------- AST walks */

static size_t ast_children(const sql_expr *e, const sql_expr **kids, size_t cap)
{
    size_t n = 0, idx;
#define KID(x)                                                                                     \
    do {                                                                                           \
        if ((x) != NULL && n < cap)                                                                \
            kids[n++] = (x);                                                                       \
    } while (0)
    switch (e->kind) {
    case SQL_EXPR_UNARY: KID(e->u.op.left); break;
    case SQL_EXPR_BINARY: KID(e->u.op.left); KID(e->u.op.right); break;
    case SQL_EXPR_IS: KID(e->u.is.arg); break;
    case SQL_EXPR_BETWEEN: KID(e->u.between.arg); KID(e->u.between.low); KID(e->u.between.high); break;
    case SQL_EXPR_IN_LIST:
        KID(e->u.in.arg);
        for (idx = 0; idx < e->u.in.list.n; idx++)
            KID(e->u.in.list.items[idx]);
        break;
    case SQL_EXPR_IN_QUERY: KID(e->u.in.arg); break;
    case SQL_EXPR_LIKE:
        KID(e->u.like.arg);
        for (idx = 0; idx < e->u.like.patterns.n; idx++)
            KID(e->u.like.patterns.items[idx]);
        break;
    case SQL_EXPR_CASE:
        KID(e->u.case_.operand);
        for (idx = 0; idx < e->u.case_.n_whens; idx++) {
            KID(e->u.case_.whens[idx].cond);
            KID(e->u.case_.whens[idx].result);
        }
        KID(e->u.case_.else_result);
        break;
    case SQL_EXPR_CAST: KID(e->u.cast.arg); break;
    case SQL_EXPR_FUNC:
        for (idx = 0; idx < e->u.func.args.n; idx++)
            KID(e->u.func.args.items[idx]);
        KID(e->u.func.filter);
        if (e->u.func.over != NULL) {
            for (idx = 0; idx < e->u.func.over->partition_by.n; idx++)
                KID(e->u.func.over->partition_by.items[idx]);
            for (idx = 0; idx < e->u.func.over->order_by.n; idx++)
                KID(e->u.func.over->order_by.items[idx].expr);
        }
        break;
    case SQL_EXPR_FIELD:
    case SQL_EXPR_SUBSCRIPT: KID(e->u.access.base); KID(e->u.access.index); break;
    case SQL_EXPR_ROW:
        for (idx = 0; idx < e->u.row.n; idx++)
            KID(e->u.row.items[idx]);
        break;
    case SQL_EXPR_ALIAS:
    case SQL_EXPR_NAMED_ARG: KID(e->u.named.value); break;
    case SQL_EXPR_EXTRACT: KID(e->u.extract.arg); break;
    default: break;
    }
#undef KID
    return n;
}

static const char *func_name(const sql_expr *e)
{
    return e->u.func.name.parts[e->u.func.name.n_parts - 1].name;
}

static const char *const agg_names[] = {
    "count", "sum", "avg", "mean", "min", "max", "first", "first_value", "last", "last_value",
    "any_value", "stddev", "std", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop",
    "collect_list", "array_agg", "collect_set", "approx_count_distinct", "percentile_approx",
    "approx_percentile", "count_if", "bool_and", "every", "bool_or", "some", "any", "max_by", "min_by",
    "median", "percentile", NULL};

int sql_bind_is_agg_name(const char *name)
{
    size_t idx;
    for (idx = 0; agg_names[idx] != NULL; idx++)
        if (util_str_casecmp(agg_names[idx], name) == 0)
            return 1;
    return 0;
}

static int is_agg_call(const sql_expr *e)
{
    return e->kind == SQL_EXPR_FUNC && e->u.func.over == NULL && e->u.func.over_name == NULL &&
           e->u.func.name.n_parts == 1 && sql_bind_is_agg_name(func_name(e));
}

/*
 * The walks below run before binding, which refuses a tree deeper than
 * SQL_BIND_MAX_DEPTH ("expression nested too deeply"); they stop at that
 * depth too, so that a flat chain of 100,000 operators (a tree as deep)
 * cannot overflow the stack before that error is given (issue 15). What
 * they answer past it does not matter: the statement is refused.
 */
static int has_agg(const sql_expr *ast, int depth)
{
    const sql_expr *kids[64];
    size_t n, idx;
    if (ast == NULL || depth > SQL_BIND_MAX_DEPTH)
        return 0;
    if (is_agg_call(ast))
        return 1;
    n = ast_children(ast, kids, 64);
    for (idx = 0; idx < n; idx++)
        if (has_agg(kids[idx], depth + 1))
            return 1;
    return 0;
}

int sql_bind_has_agg(const sql_expr *ast) { return has_agg(ast, 0); }

static int has_window(const sql_expr *ast, int depth)
{
    const sql_expr *kids[64];
    size_t n, idx;
    if (ast == NULL || depth > SQL_BIND_MAX_DEPTH)
        return 0;
    if (ast->kind == SQL_EXPR_FUNC && (ast->u.func.over != NULL || ast->u.func.over_name != NULL))
        return 1;
    n = ast_children(ast, kids, 64);
    for (idx = 0; idx < n; idx++)
        if (has_window(kids[idx], depth + 1))
            return 1;
    return 0;
}

int sql_bind_has_window(const sql_expr *ast) { return has_window(ast, 0); }

static int has_subquery(const sql_expr *ast, int depth)
{
    const sql_expr *kids[64];
    size_t n, idx;
    if (ast == NULL || depth > SQL_BIND_MAX_DEPTH)
        return 0;
    if (ast->kind == SQL_EXPR_SUBQUERY || ast->kind == SQL_EXPR_EXISTS ||
        ast->kind == SQL_EXPR_IN_QUERY)
        return 1;
    n = ast_children(ast, kids, 64);
    for (idx = 0; idx < n; idx++)
        if (has_subquery(kids[idx], depth + 1))
            return 1;
    return 0;
}

int sql_bind_has_subquery(const sql_expr *ast) { return has_subquery(ast, 0); }

static silt_status find_subqueries(binder *b, const sql_expr *ast, const sql_expr ***list,
                                   size_t *n, size_t *cap, int depth, silt_error *err)
{
    const sql_expr *kids[64];
    size_t k, idx;
    if (ast == NULL || depth > SQL_BIND_MAX_DEPTH)
        return SILT_OK;
    if (ast->kind == SQL_EXPR_SUBQUERY || ast->kind == SQL_EXPR_EXISTS) {
        if (*n == *cap) {
            size_t grown_cap = *cap ? *cap * 2 : 4;
            const sql_expr **grown = arena_realloc(b->a, *list, *cap * sizeof(sql_expr *),
                                                   grown_cap * sizeof(sql_expr *));
            if (grown == NULL)
                return err_nomem(err);
            *list = grown;
            *cap = grown_cap;
        }
        (*list)[(*n)++] = ast;
        return SILT_OK;
    }
    k = ast_children(ast, kids, 64);
    for (idx = 0; idx < k; idx++)
        SILT_RETURN_IF_ERROR(find_subqueries(b, kids[idx], list, n, cap, depth + 1, err));
    return SILT_OK;
}

silt_status sql_bind_find_subqueries(binder *b, const sql_expr *ast, const sql_expr ***list,
                                 size_t *n, size_t *cap, silt_error *err)
{
    return find_subqueries(b, ast, list, n, cap, 0, err);
}

static silt_status find_agg_subqueries(binder *b, const sql_expr *ast, const sql_expr ***list,
                                       size_t *n, size_t *cap, int depth, silt_error *err)
{
    const sql_expr *kids[64];
    size_t k, idx;
    if (ast == NULL || ast->kind == SQL_EXPR_SUBQUERY || ast->kind == SQL_EXPR_EXISTS ||
        ast->kind == SQL_EXPR_IN_QUERY || depth > SQL_BIND_MAX_DEPTH)
        return SILT_OK;
    k = ast_children(ast, kids, 64);
    for (idx = 0; idx < k; idx++)
        SILT_RETURN_IF_ERROR(is_agg_call(ast)
                                 ? find_subqueries(b, kids[idx], list, n, cap, depth + 1, err)
                                 : find_agg_subqueries(b, kids[idx], list, n, cap, depth + 1, err));
    return SILT_OK;
}

silt_status sql_bind_find_agg_subqueries(binder *b, const sql_expr *ast, const sql_expr ***list,
                                     size_t *n, size_t *cap, silt_error *err)
{
    return find_agg_subqueries(b, ast, list, n, cap, 0, err);
}

/*
 * Bounded like binding itself: past SQL_BIND_MAX_DEPTH levels the set is
 * "all" (read every column) and the walk stops, and binding the expression
 * then refuses it as nested too deeply. A flat chain of 100,000 operators is
 * a tree that deep, which overflowed the stack here before any check ran.
 */
static silt_status collect_names(binder *b, const sql_expr *ast, name_set *set, int depth,
                                 silt_error *err)
{
    const sql_expr *kids[64];
    size_t n, idx;
    if (ast == NULL || set->all)
        return SILT_OK;
    if (depth > SQL_BIND_MAX_DEPTH) {
        set->all = 1;
        return SILT_OK;
    }
    if (ast->kind == SQL_EXPR_STAR || ast->kind == SQL_EXPR_EXISTS ||
        ast->kind == SQL_EXPR_IN_QUERY || ast->kind == SQL_EXPR_SUBQUERY) {
        /* A subquery may name outer columns: read them all. */
        set->all = 1;
        return SILT_OK;
    }
    if (ast->kind == SQL_EXPR_COLUMN) {
        if (set->n == set->cap) {
            size_t cap = set->cap ? set->cap * 2 : 16;
            const char **grown = arena_realloc(b->a, set->names, set->cap * sizeof(char *),
                                               cap * sizeof(char *));
            if (grown == NULL)
                return err_nomem(err);
            set->names = grown;
            set->cap = cap;
        }
        /* Every part: `a.b` may be table.column or column.field. */
        for (idx = 0; idx < ast->u.column.n_parts && set->n < set->cap; idx++)
            set->names[set->n++] = ast->u.column.parts[idx].name;
        return SILT_OK;
    }
    n = ast_children(ast, kids, 64);
    if (n == 64)
        set->all = 1; /* too wide to list: read everything */
    for (idx = 0; idx < n; idx++)
        SILT_RETURN_IF_ERROR(collect_names(b, kids[idx], set, depth + 1, err));
    return SILT_OK;
}

silt_status sql_bind_collect_names(binder *b, const sql_expr *ast, name_set *set, silt_error *err)
{
    return collect_names(b, ast, set, 0, err);
}

/* ---------------------------------------------------------------- columns */

static int name_eq(const char *x, const char *y)
{
    return x != NULL && y != NULL && util_str_casecmp(x, y) == 0;
}

static silt_status unresolved(binder *b, const bind_scope *scope, const sql_name *name,
                              silt_error *err)
{
    buf sugg = BUF_INIT;
    buf full = BUF_INIT;
    size_t idx;
    silt_status rc;
    for (idx = 0; idx < name->n_parts; idx++)
        buf_printf(&full, NULL, "%s`%s`", idx ? "." : "", name->parts[idx].name);
    for (idx = 0; idx < scope->n && idx < 5; idx++)
        buf_printf(&sugg, NULL, "%s`%s`", idx ? ", " : "", scope->cols[idx].name);
    if (scope->n == 0)
        rc = sql_bind_error(b, err, name->pos, SILT_BIND,
                        "[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, variable, or function "
                        "parameter with name %s cannot be resolved",
                        full.data ? buf_cstr(&full) : "");
    else
        rc = sql_bind_error(b, err, name->pos, SILT_BIND,
                        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function "
                        "parameter with name %s cannot be resolved. Did you mean one of the "
                        "following? [%s]",
                        full.data ? buf_cstr(&full) : "", sugg.data ? buf_cstr(&sugg) : "");
    buf_clear(&sugg);
    buf_clear(&full);
    return rc;
}

silt_status sql_bind_resolve_column(binder *b, const bind_scope *scope, const sql_name *name,
                                int64_t *idx_out, size_t *n_used_out, silt_error *err)
{
    int64_t found = -1;
    size_t n_found = 0, idx;
    size_t n = name->n_parts;
    if (n >= 2) {
        const char *qual = name->parts[n - 2].name;
        const char *col = name->parts[n - 1].name;
        for (idx = 0; idx < scope->n; idx++) {
            if (scope->cols[idx].hidden)
                continue;
            if (name_eq(scope->cols[idx].qual, qual) && name_eq(scope->cols[idx].name, col)) {
                if (n_found++ == 0)
                    found = (int64_t)idx;
            }
        }
        if (n_found == 0)
            return unresolved(b, scope, name, err);
    } else {
        for (idx = 0; idx < scope->n; idx++) {
            if (scope->cols[idx].hidden)
                continue;
            if (name_eq(scope->cols[idx].name, name->parts[0].name)) {
                if (n_found++ == 0)
                    found = (int64_t)idx;
            }
        }
        if (n_found == 0)
            return unresolved(b, scope, name, err);
    }
    if (n_found > 1) {
        buf cands = BUF_INIT;
        silt_status rc;
        size_t k = 0;
        for (idx = 0; idx < scope->n; idx++) {
            if (!name_eq(scope->cols[idx].name, name->parts[n - 1].name))
                continue;
            if (scope->cols[idx].qual != NULL)
                buf_printf(&cands, NULL, "%s`%s`.`%s`", k ? ", " : "", scope->cols[idx].qual,
                           scope->cols[idx].name);
            else
                buf_printf(&cands, NULL, "%s`%s`", k ? ", " : "", scope->cols[idx].name);
            k++;
        }
        rc = sql_bind_error(b, err, name->pos, SILT_BIND,
                        "[AMBIGUOUS_REFERENCE] Reference `%s` is ambiguous, could be: [%s]",
                        name->parts[n - 1].name, cands.data ? buf_cstr(&cands) : "");
        buf_clear(&cands);
        return rc;
    }
    *idx_out = found;
    if (n_used_out != NULL)
        *n_used_out = n;
    return SILT_OK;
}

/*
 * Struct field access (s.f, t.s.f, expr.f): a function node of the binder's
 * own. The result shares the child vector's buffers; only the validity is
 * new, because the engine marks the rows of NULL structs in it.
 */
static silt_status field_eval(const expr *e, engine_ctx *ctx, col_vec **args,
                              const int32_t *sel, int64_t n_sel, int64_t n_rows, arena *a,
                              col_vec **out, silt_error *err)
{
    const col_vec *child = args[0]->children[e->lit.i];
    col_vec *v = arena_alloc(a, sizeof(*v));
    size_t bytes = (size_t)(n_rows + 7) / 8 + 1;
    (void)ctx;
    (void)sel;
    (void)n_sel;
    if (v == NULL)
        return err_nomem(err);
    *v = *child;
    v->validity = arena_alloc(a, bytes);
    if (v->validity == NULL)
        return err_nomem(err);
    if (child->validity != NULL)
        memcpy(v->validity, child->validity, (size_t)(n_rows + 7) / 8);
    else
        memset(v->validity, 0xff, bytes);
    v->null_count = col_validity_count_nulls(v->validity, n_rows);
    *out = v;
    return SILT_OK;
}

static silt_status field_resolve(expr *e, arena *a, silt_error *err)
{
    (void)e;
    (void)a;
    (void)err;
    return SILT_OK; /* typed when built */
}

static const expr_func_def field_def = {"get_field", 1, 1, field_resolve, field_eval, 0};

static silt_status bind_field(binder *b, expr *base, const sql_ident *field, expr **out,
                              silt_error *err)
{
    const col_type *t = base->type;
    size_t idx;
    expr *e;
    if (t->id != COL_STRUCT)
        return sql_bind_error(b, err, field->pos, SILT_BIND,
                          "[INVALID_EXTRACT_BASE_FIELD_TYPE] cannot extract field `%s` from a "
                          "value of type \"%s\"", field->name, col_type_id_name(t->id));
    for (idx = 0; idx < t->n_fields; idx++)
        if (util_str_casecmp(t->fields[idx].name, field->name) == 0)
            break;
    if (idx == t->n_fields)
        return sql_bind_error(b, err, field->pos, SILT_BIND,
                          "[FIELD_NOT_FOUND] No such struct field `%s`", field->name);
    e = arena_calloc(b->a, 1, sizeof(*e));
    if (e == NULL || (e->args = arena_calloc(b->a, 1, sizeof(expr *))) == NULL)
        return err_nomem(err);
    e->kind = EXPR_FUNC;
    e->type = t->fields[idx].type;
    e->func = &field_def;
    e->n_args = 1;
    e->args[0] = base;
    e->lit.i = (int64_t)idx;
    e->pos = -1;
    *out = e;
    return SILT_OK;
}

/*
 * arr[i] (0-based), element_at(arr, i) (1-based, negative from the end) and
 * map[k] / element_at(map, k). Out-of-range array indexes are
 * [INVALID_ARRAY_INDEX] ([INVALID_ARRAY_INDEX_IN_ELEMENT_AT] for
 * element_at) in ANSI mode and NULL otherwise, as in Spark; a missing map
 * key is NULL. e->lit.i: 0 for [], 1 for element_at, 2 for try_element_at
 * (1-based, NULL out of range, index 0 still refused), 3 for get
 * (0-based, NULL out of range).
 */
static silt_status subscript_eval(const expr *e, engine_ctx *ctx, col_vec **args,
                                  const int32_t *sel, int64_t n_sel, int64_t n_rows, arena *a,
                                  col_vec **out, silt_error *err)
{
    const col_vec *c = args[0];
    int64_t *idx = arena_alloc(a, sizeof(int64_t) * (size_t)(n_rows ? n_rows : 1));
    int64_t k;
    if (idx == NULL)
        return err_nomem(err);
    for (k = 0; k < n_rows; k++)
        idx[k] = -1;
    for (k = 0; k < n_sel; k++) {
        int64_t row = ENGINE_ROW(sel, k);
        int64_t start = c->offsets[row], len = c->offsets[row + 1] - start;
        if (c->type->id == COL_MAP) {
            int64_t entry;
            for (entry = 0; entry < len; entry++)
                if (vec_compare_rows(c->children[0], start + entry, args[1], row) == 0) {
                    idx[row] = start + entry;
                    break;
                }
            continue;
        }
        {
            int64_t i = vec_get_int(args[1], row);
            if (e->lit.i == 1 || e->lit.i == 2) {
                if (i == 0)
                    return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_INDEX_OF_ZERO",
                                      "the index 0 is invalid: element_at counts from 1");
                i = i > 0 ? i - 1 : len + i;
            }
            if (i >= 0 && i < len)
                idx[row] = start + i;
            else if (ctx->ansi && e->lit.i < 2)
                return expr_eval_error(e, err, SILT_RUNTIME, e->lit.i == 1
                                  ? "INVALID_ARRAY_INDEX_IN_ELEMENT_AT" : "INVALID_ARRAY_INDEX",
                                  "the index %lld is out of bounds: the array has %lld elements",
                                  (long long)vec_get_int(args[1], row), (long long)len);
        }
    }
    return vec_gather(out, a, c->children[c->type->id == COL_MAP ? 1 : 0], idx, n_rows, err);
}

static const expr_func_def subscript_def = {"element_at", 2, 2, field_resolve, subscript_eval, 0};

static silt_status bind_subscript(binder *b, expr *base, expr *index, int one_based, uint32_t pos,
                                  expr **out, silt_error *err)
{
    const col_type *t = base->type;
    expr *e;
    if (t->id == COL_ARRAY) {
        SILT_RETURN_IF_ERROR(expr_cast(&index, b->a, index, col_type_primitive(COL_INT), 0, err));
    } else if (t->id == COL_MAP) {
        SILT_RETURN_IF_ERROR(expr_coerce(&index, b->a, t->fields[0].type, err));
    } else {
        return sql_bind_error(b, err, pos, SILT_BIND,
                          "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] cannot index a value of type "
                          "\"%s\": an array or a map is needed", col_type_id_name(t->id));
    }
    e = arena_calloc(b->a, 1, sizeof(*e));
    if (e == NULL || (e->args = arena_calloc(b->a, 2, sizeof(expr *))) == NULL)
        return err_nomem(err);
    e->kind = EXPR_FUNC;
    e->type = t->id == COL_ARRAY ? t->fields[0].type : t->fields[1].type;
    e->func = &subscript_def;
    e->n_args = 2;
    e->args[0] = base;
    e->args[1] = index;
    e->lit.i = one_based;
    e->pos = -1;
    *out = e;
    return SILT_OK;
}

static int scope_has(const bind_scope *scope, const char *qual, const char *name)
{
    size_t idx;
    for (idx = 0; idx < scope->n; idx++)
        if ((qual == NULL || name_eq(scope->cols[idx].qual, qual)) &&
            name_eq(scope->cols[idx].name, name))
            return 1;
    return 0;
}

/* The hidden input_file_name() column of scope (source_files.h): its index, -1 none, -2 several. */
static int64_t file_name_col(const bind_scope *scope)
{
    int64_t found = -1;
    for (size_t idx = 0; scope != NULL && idx < scope->n; idx++)
        if (scope->cols[idx].hidden && strcmp(scope->cols[idx].name, "input_file_name()") == 0)
            found = found == -1 ? (int64_t)idx : -2;
    return found;
}

/*
 * Spark 4's _metadata.file_path of a file source or Delta table: the file
 * name column's URI in its "file:/path" form. The other _metadata fields
 * are refused by name.
 */
static silt_status bind_metadata(binder *b, const bind_scope *scope, const sql_name *n,
                                 expr **out, silt_error *err)
{
    int64_t col = file_name_col(scope);
    const char *field = n->parts[n->n_parts - 1].name;
    expr *args[3], *name;
    if (util_str_casecmp(field, "file_path") != 0)
        return sql_bind_error(b, err, n->pos, SILT_UNSUPPORTED, "_metadata.%s is not supported "
                              "(of the _metadata fields silt gives file_path)", field);
    if (col < 0)
        return sql_bind_error(b, err, n->pos, SILT_UNSUPPORTED, "_metadata.file_path is "
                              "supported only over one file source or Delta table read directly "
                              "in FROM");
    /* input_file_name() is file:///p, file_path file:/p */
    SILT_RETURN_IF_ERROR(expr_column(&name, b->a, col, scope->cols[col].type, err));
    args[0] = name;
    SILT_RETURN_IF_ERROR(expr_lit_string(&args[1], b->a, "^file://", 8, err));
    SILT_RETURN_IF_ERROR(expr_lit_string(&args[2], b->a, "file:", 5, err));
    return expr_func(out, b->a, "regexp_replace", args, 3, err);
}

static silt_status bind_column(binder *b, const bind_scope *scope, const sql_expr *ast,
                               expr **out, silt_error *err)
{
    const sql_name *n = &ast->u.column;
    sql_name base = *n;
    size_t first_field = n->n_parts, idx;
    int64_t col;
    expr *e;
    if (n->n_parts == 2 && util_str_casecmp(n->parts[0].name, "_metadata") == 0 &&
        !scope_has(scope, NULL, n->parts[0].name))
        return bind_metadata(b, scope, n, out, err);
    /* a.b.c: table a, column b, field c; or column a with fields b.c. */
    if (n->n_parts > 2 && scope_has(scope, n->parts[0].name, n->parts[1].name)) {
        base.n_parts = 2;
        first_field = 2;
    } else if (n->n_parts >= 2 && !scope_has(scope, n->parts[0].name, n->parts[1].name) &&
               scope_has(scope, NULL, n->parts[0].name)) {
        base.n_parts = 1;
        first_field = 1;
    }
    SILT_RETURN_IF_ERROR(sql_bind_resolve_column(b, scope, &base, &col, NULL, err));
    SILT_RETURN_IF_ERROR(expr_column(&e, b->a, col, scope->cols[col].type, err));
    for (idx = first_field; idx < n->n_parts; idx++)
        SILT_RETURN_IF_ERROR(bind_field(b, e, &n->parts[idx], &e, err));
    *out = e;
    return SILT_OK;
}

/* ---------------------------------------------------------------- literals */

static silt_status bind_literal(binder *b, const sql_expr *ast, expr **out, silt_error *err)
{
    const sql_literal *lit = &ast->u.lit;
    switch (lit->kind) {
    case SQL_LIT_NULL: return expr_lit_null(out, b->a, col_type_primitive(COL_NULL), err);
    case SQL_LIT_BOOL: return expr_lit_bool(out, b->a, (int)lit->i64, err);
    case SQL_LIT_BYTE: return expr_lit_int(out, b->a, COL_BYTE, lit->i64, err);
    case SQL_LIT_SHORT: return expr_lit_int(out, b->a, COL_SHORT, lit->i64, err);
    case SQL_LIT_INT: return expr_lit_int(out, b->a, COL_INT, lit->i64, err);
    case SQL_LIT_LONG: return expr_lit_int(out, b->a, COL_LONG, lit->i64, err);
    case SQL_LIT_DOUBLE: return expr_lit_double(out, b->a, COL_DOUBLE, lit->f64, err);
    case SQL_LIT_FLOAT: return expr_lit_double(out, b->a, COL_FLOAT, lit->f64, err);
    case SQL_LIT_STRING: return expr_lit_string(out, b->a, lit->str, lit->str_len, err);
    case SQL_LIT_DATE: return expr_lit_int(out, b->a, COL_DATE, lit->i64, err);
    case SQL_LIT_TIMESTAMP: {
        /* the parser read it in UTC; a literal without a zone is the session's wall clock */
        int64_t v = lit->i64;
        if (lit->str != NULL && b->ctx != NULL &&
            !time_string_to_timestamp(lit->str, lit->str_len, b->ctx->zone, b->ctx->now_micros, &v))
            v = lit->i64;
        return expr_lit_int(out, b->a, COL_TIMESTAMP, v, err);
    }
    case SQL_LIT_TIMESTAMP_NTZ: return expr_lit_int(out, b->a, COL_TIMESTAMP_NTZ, lit->i64, err);
    case SQL_LIT_DECIMAL: {
        col_int128 v = 0;
        const char *d;
        if (lit->precision > 38)
            return sql_bind_error(b, err, ast->pos, SILT_BIND,
                              "[INVALID_NUMERIC_LITERAL_RANGE] decimal literal exceeds 38 digits");
        for (d = lit->digits; *d != '\0'; d++)
            v = v * 10 + (*d - '0');
        if (lit->negative)
            v = -v;
        return expr_lit_decimal(out, b->a, lit->precision, lit->scale, v, err);
    }
    case SQL_LIT_BINARY:
        /* The bytes, typed binary (same layout as a string). */
        SILT_RETURN_IF_ERROR(expr_lit_string(out, b->a, lit->str, lit->str_len, err));
        (*out)->type = col_type_primitive(COL_BINARY);
        return SILT_OK;
    default:
        return sql_bind_error(b, err, ast->pos, SILT_BIND, "[DATATYPE_MISMATCH] an INTERVAL can only "
                          "be added to or subtracted from a date or timestamp");
    }
}

silt_status sql_value_literal(arena *a, const col_vec *v, int64_t row, expr **out,
                              silt_error *err)
{
    const col_type *t = v->type;
    if (col_vec_is_null(v, row))
        return expr_lit_null(out, a, t, err);
    switch (t->id) {
    case COL_BOOLEAN: return expr_lit_bool(out, a, ((const uint8_t *)v->values)[row], err);
    case COL_BYTE:
    case COL_SHORT:
    case COL_INT:
    case COL_LONG:
    case COL_DATE:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: return expr_lit_int(out, a, t->id, vec_get_int(v, row), err);
    case COL_FLOAT:
    case COL_DOUBLE: return expr_lit_double(out, a, t->id, vec_get_double(v, row), err);
    case COL_DECIMAL:
        return expr_lit_decimal(out, a, t->precision, t->scale, vec_get_dec(v, row), err);
    case COL_STRING: {
        int32_t len;
        const char *s = col_vec_str(v, row, &len);
        return expr_lit_string(out, a, s, (size_t)len, err);
    }
    default:
        return err_set(err, SILT_UNSUPPORTED, "a subquery value of type \"%s\" is not supported "
                       "yet", col_type_id_name(t->id));
    }
}

silt_status sql_bind_value_literal(binder *b, const col_vec *v, int64_t row, expr **out,
                               silt_error *err)
{
    return sql_value_literal(b->a, v, row, out, err);
}

/* ---------------------------------------------------------------- subqueries */

static silt_status one_column(binder *b, const sql_expr *ast, const engine_op *op,
                              const char *what, silt_error *err)
{
    size_t n = op->schema->n_fields;
    if (n == 1)
        return SILT_OK;
    if (ast->kind == SQL_EXPR_SUBQUERY)
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "[INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_"
                          "OUTPUT_COLUMN] a scalar subquery must return one column, not %zu", n);
    return sql_bind_error(b, err, ast->pos, SILT_BIND,
                      "[INVALID_SUBQUERY_EXPRESSION] an %s subquery must return one column, "
                      "not %zu", what, n);
}

/* An uncorrelated subquery: planned now, run before the plan (plan_subquery.c). */
static silt_status bind_scalar_subquery(binder *b, const sql_expr *ast, expr **out,
                                        silt_error *err)
{
    plan p;
    SILT_RETURN_IF_ERROR(sql_plan_subquery_bound(b, ast, NULL, out, err));
    if (*out != NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(sql_plan_query(b, ast->u.in.query, &p, err));
    SILT_RETURN_IF_ERROR(one_column(b, ast, p.op, "", err));
    return sql_plan_subquery_node(b, BIND_SQ_SCALAR, ast, p.op, NULL, 0, out, err);
}

/*
 * A correlated subquery the planner joined in (plan_select.c, join_scalar):
 * EXISTS is whether the join matched; a scalar subquery is its value, or
 * its value over no rows where the join did not match.
 */
static silt_status bind_joined_subquery(binder *b, const sql_expr *ast, const scalar_subst *sub,
                                        expr **out, silt_error *err)
{
    expr *value, *matched, *unmatched, *empty = sub->empty;
    SILT_RETURN_IF_ERROR(expr_column(&matched, b->a, sub->col + 1,
                                     col_type_primitive(COL_BOOLEAN), err));
    if (ast->kind == SQL_EXPR_EXISTS)
        return expr_is_null(out, b->a, matched, !ast->u.in.negated, err);
    SILT_RETURN_IF_ERROR(expr_column(&value, b->a, sub->col, sub->type, err));
    SILT_RETURN_IF_ERROR(expr_is_null(&unmatched, b->a, matched, 0, err));
    return expr_case(out, b->a, 1, &unmatched, &empty, value, err);
}

static silt_status bind_in_subquery(binder *b, const bind_ctx *bc, const sql_expr *ast,
                                    expr **out, silt_error *err)
{
    plan p;
    expr *arg;
    SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.in.arg, &arg, err));
    SILT_RETURN_IF_ERROR(sql_plan_subquery_bound(b, ast, arg, out, err));
    if (*out != NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(sql_plan_query(b, ast->u.in.query, &p, err));
    SILT_RETURN_IF_ERROR(one_column(b, ast, p.op, "IN", err));
    return sql_plan_subquery_node(b, BIND_SQ_IN, ast, p.op, arg, ast->u.in.negated, out, err);
}

static silt_status bind_exists(binder *b, const sql_expr *ast, expr **out, silt_error *err)
{
    plan p;
    SILT_RETURN_IF_ERROR(sql_plan_subquery_bound(b, ast, NULL, out, err));
    if (*out != NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(sql_plan_query(b, ast->u.in.query, &p, err));
    return sql_plan_subquery_node(b, BIND_SQ_EXISTS, ast, p.op, NULL, ast->u.in.negated, out, err);
}

/* ---------------------------------------------------------------- aggregates */

static silt_status agg_kind_of(binder *b, const sql_expr *ast, engine_agg *agg, silt_error *err)
{
    const char *name = func_name(ast);
    size_t n_args = ast->u.func.args.n;
    static const struct {
        const char *name;
        engine_agg_kind kind;
    } map[] = {{"count", AGG_COUNT},
               {"sum", AGG_SUM},
               {"avg", AGG_AVG},
               {"mean", AGG_AVG},
               {"min", AGG_MIN},
               {"max", AGG_MAX},
               {"first", AGG_FIRST},
               {"first_value", AGG_FIRST},
               {"any_value", AGG_FIRST},
               {"last", AGG_LAST},
               {"last_value", AGG_LAST},
               {"stddev", AGG_STDDEV_SAMP},
               {"std", AGG_STDDEV_SAMP},
               {"stddev_samp", AGG_STDDEV_SAMP},
               {"stddev_pop", AGG_STDDEV_POP},
               {"variance", AGG_VAR_SAMP},
               {"var_samp", AGG_VAR_SAMP},
               {"var_pop", AGG_VAR_POP},
               {"collect_list", AGG_COLLECT_LIST},
               {"array_agg", AGG_COLLECT_LIST},
               {"collect_set", AGG_COLLECT_SET},
               {"approx_count_distinct", AGG_APPROX_COUNT_DISTINCT},
               {"percentile_approx", AGG_PERCENTILE_APPROX},
               {"approx_percentile", AGG_PERCENTILE_APPROX},
               {"percentile", AGG_PERCENTILE},
               {"median", AGG_PERCENTILE},
               {"max_by", AGG_MAX_BY},
               {"min_by", AGG_MIN_BY},
               /* boolean aggregates, rewritten in bool_agg_arg */
               {"count_if", AGG_COUNT},
               {"bool_and", AGG_MIN},
               {"every", AGG_MIN},
               {"bool_or", AGG_MAX},
               {"some", AGG_MAX},
               {"any", AGG_MAX}};
    size_t idx;
    int max_args = 1;
    memset(agg, 0, sizeof(*agg));
    for (idx = 0; idx < sizeof(map) / sizeof(map[0]); idx++)
        if (util_str_casecmp(map[idx].name, name) == 0)
            break;
    if (idx == sizeof(map) / sizeof(map[0]))
        return sql_bind_error(b, err, ast->pos, SILT_BIND, "[UNRESOLVED_ROUTINE] aggregate \"%s\" "
                          "does not exist", name);
    agg->kind = map[idx].kind;
    if (ast->u.func.star) {
        if (agg->kind != AGG_COUNT)
            return sql_bind_error(b, err, ast->pos, SILT_BIND,
                              "[INVALID_USAGE_OF_STAR_OR_REGEX] invalid usage of '*' in %s", name);
        agg->kind = AGG_COUNT_STAR;
        return SILT_OK;
    }
    if (agg->kind == AGG_FIRST || agg->kind == AGG_LAST || agg->kind == AGG_PERCENTILE_APPROX ||
        agg->kind == AGG_MAX_BY || agg->kind == AGG_MIN_BY ||
        (agg->kind == AGG_PERCENTILE && util_str_casecmp(name, "percentile") == 0))
        max_args = agg->kind == AGG_PERCENTILE_APPROX ? 3 : 2;
    if ((agg->kind == AGG_MAX_BY || agg->kind == AGG_MIN_BY ||
         (agg->kind == AGG_PERCENTILE && max_args == 2)) && n_args != 2)
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "[WRONG_NUM_ARGS] function \"%s\" takes 2 arguments, not %zu", name,
                          n_args);
    agg->percentage = 0.5; /* median */
    if (agg->kind == AGG_COUNT && ast->u.func.distinct)
        max_args = 64; /* count(DISTINCT a, b, ...): see distinct_tuple */
    if (n_args < 1 || (int)n_args > max_args)
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "[WRONG_NUM_ARGS] function \"%s\" takes %s%d argument%s, not %zu", name,
                          max_args > 1 ? "1 to " : "", max_args, max_args > 1 ? "s" : "", n_args);
    agg->distinct = ast->u.func.distinct;
    agg->ignore_nulls = ast->u.func.nulls == 1;
    return SILT_OK;
}

/* A literal argument's value (second argument of first/last/percentile_approx). */
static silt_status literal_double(binder *b, const sql_expr *ast, double *out, silt_error *err)
{
    if (ast->kind == SQL_EXPR_LITERAL) {
        const sql_literal *lit = &ast->u.lit;
        switch (lit->kind) {
        case SQL_LIT_BOOL:
        case SQL_LIT_INT:
        case SQL_LIT_LONG: *out = (double)lit->i64; return SILT_OK;
        case SQL_LIT_DOUBLE:
        case SQL_LIT_FLOAT: *out = lit->f64; return SILT_OK;
        case SQL_LIT_DECIMAL: {
            char text[80];
            snprintf(text, sizeof(text), "%s", lit->digits);
            if (util_str_to_double(text, strlen(text), out)) {
                int32_t s;
                for (s = 0; s < lit->scale; s++)
                    *out /= 10;
                return SILT_OK;
            }
            break;
        }
        default: break;
        }
    }
    return sql_bind_error(b, err, ast->pos, SILT_BIND,
                      "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] this argument must be a constant");
}

/*
 * count(DISTINCT a, b, ...) counts the distinct tuples without a NULL: it
 * becomes count(DISTINCT k) with k one string that is NULL when an argument
 * is (concat's rule) and otherwise spells each argument as its length and
 * its text, so that different tuples never make the same k.
 */
static silt_status distinct_tuple(binder *b, const bind_ctx *inner, const sql_expr *ast,
                                  expr **out, silt_error *err)
{
    size_t n = ast->u.func.args.n, idx;
    expr **parts = arena_calloc(b->a, 3 * n, sizeof(expr *));
    if (parts == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        expr *v, *len;
        SILT_RETURN_IF_ERROR(sql_bind_expr(b, inner, ast->u.func.args.items[idx], &v, err));
        if (col_type_is_nested(v->type->id))
            return sql_bind_error(b, err, ast->u.func.args.items[idx]->pos, SILT_UNSUPPORTED,
                              "count(DISTINCT ...) of a nested value is not supported yet");
        SILT_RETURN_IF_ERROR(expr_cast(&v, b->a, v, col_type_primitive(COL_STRING), 0, err));
        SILT_RETURN_IF_ERROR(expr_func(&len, b->a, "length", &v, 1, err));
        SILT_RETURN_IF_ERROR(expr_cast(&parts[3 * idx], b->a, len, col_type_primitive(COL_STRING),
                                       0, err));
        SILT_RETURN_IF_ERROR(expr_lit_string(&parts[3 * idx + 1], b->a, ":", 1, err));
        parts[3 * idx + 2] = v;
    }
    return expr_func(out, b->a, "concat", parts, 3 * n, err);
}

/*
 * percentile(x, array(p1, p2, ...)) and percentile_approx(x, array(...)):
 * the array form of the aggregate, every percentage a constant in 0.0 .. 1.0.
 */
static silt_status percentage_array(binder *b, const sql_expr *call, const sql_expr *arr,
                                    engine_agg *agg, silt_error *err)
{
    size_t n = arr->u.func.args.n, idx;
    double *ps;
    if (n == 0)
        return sql_bind_error(b, err, arr->pos, SILT_BIND, "[DATATYPE_MISMATCH] the array of "
                          "percentages of \"%s\" is empty", func_name(call));
    ps = arena_calloc(b->a, n, sizeof(double));
    if (ps == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        const sql_expr *item = arr->u.func.args.items[idx];
        SILT_RETURN_IF_ERROR(literal_double(b, item, &ps[idx], err));
        if (!(ps[idx] >= 0.0 && ps[idx] <= 1.0))
            return sql_bind_error(b, err, item->pos, SILT_BIND,
                              "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] the percentage of \"%s\" "
                              "must be between 0.0 and 1.0", func_name(call));
    }
    agg->kind = agg->kind == AGG_PERCENTILE ? AGG_PERCENTILE_ARRAY : AGG_PERCENTILE_APPROX_ARRAY;
    agg->percentages = ps;
    agg->n_percentages = n;
    return SILT_OK;
}

/*
 * max_by(x, y) / min_by(x, y) aggregate one value, struct(y, x): the
 * aggregate table compares the first field and returns the second.
 */
static silt_status by_pair(binder *b, const bind_ctx *inner, const sql_expr *ast, expr **out,
                           silt_error *err)
{
    expr *pair[2];
    if (sql_bind_has_agg(ast->u.func.args.items[1]))
        return sql_bind_error(b, err, ast->u.func.args.items[1]->pos, SILT_BIND,
                          "[NESTED_AGGREGATE_FUNCTION] It is not allowed to use an aggregate "
                          "function in the argument of another aggregate function");
    SILT_RETURN_IF_ERROR(sql_bind_expr(b, inner, ast->u.func.args.items[1], &pair[0], err));
    SILT_RETURN_IF_ERROR(sql_bind_expr(b, inner, ast->u.func.args.items[0], &pair[1], err));
    if (col_type_is_nested(pair[0]->type->id))
        return sql_bind_error(b, err, ast->u.func.args.items[1]->pos, SILT_BIND,
                          "[DATATYPE_MISMATCH.INVALID_ORDERING_TYPE] function \"%s\" cannot "
                          "order by a value of type \"%s\"", func_name(ast),
                          col_type_id_name(pair[0]->type->id));
    return expr_func(out, b->a, "struct", pair, 2, err);
}

/*
 * The boolean aggregates are others over a boolean argument: count_if(x) is
 * count(CASE WHEN x THEN true END), bool_and / every the min of x (false <
 * true), bool_or / some the max.
 */
static silt_status bool_agg_arg(binder *b, const sql_expr *ast, expr **arg, silt_error *err)
{
    const char *name = func_name(ast);
    int count_if = util_str_casecmp(name, "count_if") == 0;
    expr *yes, *cond = *arg;
    if (!count_if && util_str_casecmp(name, "bool_and") != 0 && util_str_casecmp(name, "every") != 0 &&
        util_str_casecmp(name, "bool_or") != 0 && util_str_casecmp(name, "some") != 0 &&
        util_str_casecmp(name, "any") != 0)
        return SILT_OK;
    if ((*arg)->type->id != COL_BOOLEAN && (*arg)->type->id != COL_NULL)
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] function \"%s\" needs a "
                          "boolean argument, not \"%s\"", name, col_type_id_name((*arg)->type->id));
    if (!count_if)
        return expr_coerce(arg, b->a, col_type_primitive(COL_BOOLEAN), err);
    SILT_RETURN_IF_ERROR(expr_lit_bool(&yes, b->a, 1, err));
    return expr_case(arg, b->a, 1, &cond, &yes, NULL, err);
}

static silt_status register_agg(binder *b, const bind_ctx *bc, const sql_expr *ast,
                                const char *text, int64_t *idx_out, silt_error *err)
{
    agg_state *st = bc->agg;
    bind_ctx inner = {st->input, NULL, NULL, NULL};
    agg_call call;
    size_t idx;
    for (idx = 0; idx < st->n_aggs; idx++) {
        if (strcmp(st->aggs[idx].text, text) == 0) {
            *idx_out = (int64_t)(st->n_keys + idx);
            return SILT_OK;
        }
    }
    memset(&call, 0, sizeof(call));
    call.text = text;
    SILT_RETURN_IF_ERROR(agg_kind_of(b, ast, &call.agg, err));
    if (call.agg.kind != AGG_COUNT_STAR) {
        const sql_expr *arg = ast->u.func.args.items[0];
        if (sql_bind_has_agg(arg))
            return sql_bind_error(b, err, arg->pos, SILT_BIND,
                              "[NESTED_AGGREGATE_FUNCTION] It is not allowed to use an aggregate "
                              "function in the argument of another aggregate function");
        if (call.agg.kind == AGG_COUNT && ast->u.func.args.n > 1)
            SILT_RETURN_IF_ERROR(distinct_tuple(b, &inner, ast, &call.agg.arg, err));
        else if (call.agg.kind == AGG_MAX_BY || call.agg.kind == AGG_MIN_BY)
            SILT_RETURN_IF_ERROR(by_pair(b, &inner, ast, &call.agg.arg, err));
        else
            SILT_RETURN_IF_ERROR(sql_bind_expr(b, &inner, arg, &call.agg.arg, err));
        SILT_RETURN_IF_ERROR(bool_agg_arg(b, ast, &call.agg.arg, err));
        /* As Spark does, a numeric aggregate reads a string as a double ('a' fails when cast). */
        if (call.agg.arg->type->id == COL_STRING &&
            (call.agg.kind == AGG_SUM || call.agg.kind == AGG_AVG ||
             call.agg.kind == AGG_STDDEV_SAMP || call.agg.kind == AGG_STDDEV_POP ||
             call.agg.kind == AGG_VAR_SAMP || call.agg.kind == AGG_VAR_POP))
            SILT_RETURN_IF_ERROR(expr_coerce(&call.agg.arg, b->a, col_type_primitive(COL_DOUBLE),
                                             err));
        if (ast->u.func.args.n > 1 && call.agg.kind != AGG_COUNT && call.agg.kind != AGG_MAX_BY &&
            call.agg.kind != AGG_MIN_BY) {
            double v;
            const sql_expr *p = ast->u.func.args.items[1];
            if ((call.agg.kind == AGG_PERCENTILE || call.agg.kind == AGG_PERCENTILE_APPROX) &&
                p->kind == SQL_EXPR_FUNC && util_str_casecmp(func_name(p), "array") == 0) {
                SILT_RETURN_IF_ERROR(percentage_array(b, ast, p, &call.agg, err));
                v = 0.5; /* unused */
            } else {
                SILT_RETURN_IF_ERROR(literal_double(b, p, &v, err));
            }
            if (call.agg.kind == AGG_PERCENTILE_ARRAY ||
                call.agg.kind == AGG_PERCENTILE_APPROX_ARRAY) {
                /* checked by percentage_array */
            } else if (call.agg.kind == AGG_PERCENTILE_APPROX || call.agg.kind == AGG_PERCENTILE) {
                if (!(v >= 0.0 && v <= 1.0))
                    return sql_bind_error(b, err, p->pos, SILT_BIND,
                                      "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] the percentage of "
                                      "\"%s\" must be between 0.0 and 1.0", func_name(ast));
                call.agg.percentage = v;
            }
            if ((call.agg.kind == AGG_PERCENTILE_APPROX ||
                 call.agg.kind == AGG_PERCENTILE_APPROX_ARRAY) && ast->u.func.args.n > 2) {
                const sql_expr *acc = ast->u.func.args.items[2];
                SILT_RETURN_IF_ERROR(literal_double(b, acc, &v, err));
                if (!(v >= 1 && v <= 2147483647.0))
                    return sql_bind_error(b, err, acc->pos, SILT_BIND,
                                      "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] the accuracy of "
                                      "\"%s\" must be between 1 and 2147483647",
                                      func_name(ast));
                call.agg.accuracy = (int64_t)v;
            }
            else
                call.agg.ignore_nulls = v != 0;
        }
        if (call.agg.kind == AGG_PERCENTILE_APPROX && ast->u.func.args.n < 2)
            return sql_bind_error(b, err, ast->pos, SILT_BIND,
                              "[WRONG_NUM_ARGS] percentile_approx needs a percentage");
    }
    if (ast->u.func.filter != NULL) {
        SILT_RETURN_IF_ERROR(sql_bind_expr(b, &inner, ast->u.func.filter, &call.agg.filter, err));
        if (call.agg.filter->type->id != COL_BOOLEAN)
            return sql_bind_error(b, err, ast->u.func.filter->pos, SILT_BIND,
                              "[DATATYPE_MISMATCH] FILTER expression must be a boolean");
    }
    call.agg.name = sql_bind_column_name(b, ast);
    SILT_RETURN_IF_ERROR(engine_agg_type_checked(&call.type, b->a, call.agg.kind,
                                                 call.agg.arg ? call.agg.arg->type : NULL, err));
    if (st->n_aggs == st->cap_aggs) {
        size_t cap = st->cap_aggs ? st->cap_aggs * 2 : 8;
        agg_call *grown = arena_realloc(b->a, st->aggs, st->cap_aggs * sizeof(agg_call),
                                        cap * sizeof(agg_call));
        if (grown == NULL)
            return err_nomem(err);
        st->aggs = grown;
        st->cap_aggs = cap;
    }
    st->aggs[st->n_aggs++] = call;
    *idx_out = (int64_t)(st->n_keys + st->n_aggs - 1);
    return SILT_OK;
}

/*
 * grouping(col): 1 when col is aggregated away in the row's grouping set;
 * grouping_id(): Spark's spark_grouping_id (key i's bit is 2^(n-1-i)).
 * Without grouping sets every key is grouped: 0.
 */
static silt_status bind_grouping(binder *b, agg_state *st, const sql_expr *ast, expr **out,
                                 silt_error *err)
{
    int is_id = util_str_casecmp(ast->u.func.name.parts[0].name, "grouping_id") == 0;
    size_t key = 0;
    expr *gid, *pow2, *bit, *two;
    if (!is_id) {
        const char *text;
        if (ast->u.func.args.n != 1)
            return sql_bind_error(b, err, ast->pos, SILT_BIND,
                              "[WRONG_NUM_ARGS] grouping takes 1 argument, not %zu",
                              ast->u.func.args.n);
        text = sql_bind_expr_text(b, ast->u.func.args.items[0]);
        for (key = 0; key < st->n_keys; key++)
            if (strcmp(st->keys[key].text, text) == 0)
                break;
        if (key == st->n_keys)
            return sql_bind_error(b, err, ast->pos, SILT_BIND,
                              "[GROUPING_COLUMN_MISMATCH] the argument of grouping() must be a "
                              "GROUP BY key");
    }
    if (!st->grouping_sets)
        return is_id ? expr_lit_int(out, b->a, COL_LONG, 0, err)
                     : expr_lit_int(out, b->a, COL_BYTE, 0, err);
    SILT_RETURN_IF_ERROR(expr_column(&gid, b->a, 0, col_type_primitive(COL_LONG), err));
    if (st->n_gid_refs == st->cap_gid_refs) {
        size_t cap = st->cap_gid_refs ? st->cap_gid_refs * 2 : 4;
        expr **grown = arena_realloc(b->a, st->gid_refs, st->cap_gid_refs * sizeof(expr *),
                                     cap * sizeof(expr *));
        if (grown == NULL)
            return err_nomem(err);
        st->gid_refs = grown;
        st->cap_gid_refs = cap;
    }
    st->gid_refs[st->n_gid_refs++] = gid;
    if (is_id) {
        *out = gid;
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(expr_lit_int(&pow2, b->a, COL_LONG,
                                      (int64_t)1 << (st->n_keys - 1 - key), err));
    SILT_RETURN_IF_ERROR(expr_arith(&bit, b->a, EXPR_DIV, gid, pow2, err));
    SILT_RETURN_IF_ERROR(expr_cast(&bit, b->a, bit, col_type_primitive(COL_LONG), 0, err));
    SILT_RETURN_IF_ERROR(expr_lit_int(&two, b->a, COL_LONG, 2, err));
    SILT_RETURN_IF_ERROR(expr_arith(&bit, b->a, EXPR_MOD, bit, two, err));
    return expr_cast(out, b->a, bit, col_type_primitive(COL_BYTE), 0, err);
}

/* An expression inside an aggregation: a key, an aggregate, or built from them. */
static silt_status bind_in_agg(binder *b, const bind_ctx *bc, const sql_expr *ast, expr **out,
                               int *done, silt_error *err)
{
    agg_state *st = bc->agg;
    const char *text;
    size_t idx;
    int64_t col = -1;
    *done = 1;
    if (ast->kind == SQL_EXPR_LITERAL) {
        *done = 0;
        return SILT_OK;
    }
    text = sql_bind_expr_text(b, ast);
    for (idx = 0; idx < st->n_keys; idx++)
        if (strcmp(st->keys[idx].text, text) == 0)
            return expr_column(out, b->a, (int64_t)idx, st->keys[idx].e->type, err);
    if (ast->kind == SQL_EXPR_FUNC && ast->u.func.name.n_parts == 1 && ast->u.func.over == NULL &&
        (util_str_casecmp(ast->u.func.name.parts[0].name, "grouping") == 0 ||
         util_str_casecmp(ast->u.func.name.parts[0].name, "grouping_id") == 0))
        return bind_grouping(b, st, ast, out, err);
    if (is_agg_call(ast)) {
        SILT_RETURN_IF_ERROR(register_agg(b, bc, ast, text, &col, err));
        return expr_column(out, b->a, col, st->aggs[col - (int64_t)st->n_keys].type, err);
    }
    if (ast->kind == SQL_EXPR_COLUMN && ast->u.column.n_parts == 1 && st->n_aliases > 0) {
        silt_error scratch = SILT_ERROR_INIT;
        if (sql_bind_resolve_column(b, st->input, &ast->u.column, &col, NULL, &scratch) != SILT_OK) {
            for (idx = 0; idx < st->n_aliases; idx++)
                if (util_str_casecmp(st->alias_names[idx], ast->u.column.parts[0].name) == 0 &&
                    st->alias_exprs[idx] != ast)
                    return sql_bind_expr(b, bc, st->alias_exprs[idx], out, err);
        }
    }
    if (ast->kind == SQL_EXPR_COLUMN) {
        SILT_RETURN_IF_ERROR(sql_bind_resolve_column(b, st->input, &ast->u.column, &col, NULL, err));
        for (idx = 0; idx < st->n_keys; idx++)
            if (st->keys[idx].input_col == col)
                return expr_column(out, b->a, (int64_t)idx, st->keys[idx].e->type, err);
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "[MISSING_AGGREGATION] The non-aggregating expression \"%s\" is based "
                          "on columns which are not participating in the GROUP BY clause",
                          sql_bind_column_name(b, ast));
    }
    *done = 0;
    return SILT_OK;
}

/* ---------------------------------------------------------------- windows */

static silt_status window_fn_kind(binder *b, const sql_expr *ast, engine_window_fn *fn,
                                  const col_type **type, silt_error *err)
{
    const char *name = func_name(ast);
    memset(fn, 0, sizeof(*fn));
    fn->offset = 1;
    if (util_str_casecmp(name, "row_number") == 0 || util_str_casecmp(name, "rank") == 0 ||
        util_str_casecmp(name, "dense_rank") == 0) {
        fn->kind = util_str_casecmp(name, "row_number") == 0 ? WIN_ROW_NUMBER
                   : util_str_casecmp(name, "rank") == 0     ? WIN_RANK
                                                        : WIN_DENSE_RANK;
        *type = col_type_primitive(COL_INT);
        return SILT_OK;
    }
    if (util_str_casecmp(name, "lag") == 0 || util_str_casecmp(name, "lead") == 0) {
        fn->kind = util_str_casecmp(name, "lag") == 0 ? WIN_LAG : WIN_LEAD;
        return SILT_OK;
    }
    if (util_str_casecmp(name, "ntile") == 0 || util_str_casecmp(name, "percent_rank") == 0 ||
        util_str_casecmp(name, "cume_dist") == 0) {
        fn->kind = util_str_casecmp(name, "ntile") == 0          ? WIN_NTILE
                   : util_str_casecmp(name, "percent_rank") == 0 ? WIN_PERCENT_RANK
                                                            : WIN_CUME_DIST;
        *type = col_type_primitive(fn->kind == WIN_NTILE ? COL_INT : COL_DOUBLE);
        return SILT_OK;
    }
    /* first and last are aggregates that Spark also runs over a window frame */
    if (util_str_casecmp(name, "first_value") == 0 || util_str_casecmp(name, "first") == 0 ||
        util_str_casecmp(name, "any_value") == 0) {
        fn->kind = WIN_FIRST_VALUE;
        return SILT_OK;
    }
    if (util_str_casecmp(name, "last_value") == 0 || util_str_casecmp(name, "last") == 0) {
        fn->kind = WIN_LAST_VALUE;
        return SILT_OK;
    }
    if (util_str_casecmp(name, "nth_value") == 0) {
        fn->kind = WIN_NTH_VALUE;
        return SILT_OK;
    }
    fn->kind = WIN_AGG;
    if (ast->u.func.star && util_str_casecmp(name, "count") == 0)
        fn->agg = AGG_COUNT_STAR;
    else if (util_str_casecmp(name, "count") == 0)
        fn->agg = AGG_COUNT;
    else if (util_str_casecmp(name, "sum") == 0)
        fn->agg = AGG_SUM;
    else if (util_str_casecmp(name, "avg") == 0 || util_str_casecmp(name, "mean") == 0)
        fn->agg = AGG_AVG;
    else if (util_str_casecmp(name, "min") == 0)
        fn->agg = AGG_MIN;
    else if (util_str_casecmp(name, "max") == 0)
        fn->agg = AGG_MAX;
    else
        return sql_bind_error(b, err, ast->pos, SILT_UNSUPPORTED,
                          "window function \"%s\" is not supported yet", name);
    return SILT_OK;
}

static silt_status frame_offset(binder *b, const sql_frame_bound *fb, int64_t *out,
                                int *unbounded, int sign, silt_error *err)
{
    double v = 0;
    *unbounded = 0;
    switch (fb->kind) {
    case SQL_BOUND_UNBOUNDED_PRECEDING:
    case SQL_BOUND_UNBOUNDED_FOLLOWING: *unbounded = 1; *out = 0; return SILT_OK;
    case SQL_BOUND_CURRENT_ROW:
    case SQL_BOUND_NONE: *out = 0; return SILT_OK;
    default:
        SILT_RETURN_IF_ERROR(literal_double(b, fb->offset, &v, err));
        *out = (int64_t)v * (fb->kind == SQL_BOUND_PRECEDING ? -1 : 1);
        (void)sign;
        return SILT_OK;
    }
}

/*
 * The arguments of first_value/last_value (x [, ignoreNulls]), nth_value
 * (x, n [, ignoreNulls]) and ntile (n): n and ignoreNulls are literals, as
 * Spark requires; IGNORE NULLS may also follow the parentheses.
 */
static silt_status bind_value_fn_args(binder *b, const sql_expr *ast, win_call *call,
                                      silt_error *err)
{
    const char *name = func_name(ast);
    size_t n_args = ast->u.func.star ? 0 : ast->u.func.args.n, n_min = 1, n_max = 2, flag = 1;
    double v = 0;
    if (call->fn.kind == WIN_NTILE) {
        n_max = 1;
        flag = 0;
    } else if (call->fn.kind == WIN_NTH_VALUE) {
        n_min = 2;
        n_max = 3;
        flag = 2;
    }
    if (n_args < n_min || n_args > n_max)
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "[WRONG_NUM_ARGS] function \"%s\" takes %zu%s%zu argument%s, not %zu",
                          name, n_min, n_min < n_max ? " to " : "", n_max > n_min ? n_max : n_min,
                          n_max > 1 ? "s" : "", n_args);
    call->fn.ignore_nulls = ast->u.func.nulls == 1;
    if (flag > 0 && n_args > flag) {
        SILT_RETURN_IF_ERROR(literal_double(b, ast->u.func.args.items[flag], &v, err));
        call->fn.ignore_nulls = call->fn.ignore_nulls || v != 0;
    }
    if (call->fn.kind == WIN_NTILE || call->fn.kind == WIN_NTH_VALUE) {
        const sql_expr *n_ast = ast->u.func.args.items[call->fn.kind == WIN_NTILE ? 0 : 1];
        int64_t limit = call->fn.kind == WIN_NTILE ? INT32_MAX : INT64_MAX;
        if (n_ast->kind != SQL_EXPR_LITERAL)
            return sql_bind_error(b, err, n_ast->pos, SILT_BIND,
                              "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the %s of \"%s\" must be an "
                              "integer literal", call->fn.kind == WIN_NTILE ? "buckets" : "offset",
                              name);
        SILT_RETURN_IF_ERROR(literal_double(b, n_ast, &v, err));
        if (!(v >= 1 && v <= (double)limit) || v != (double)(int64_t)v)
            return sql_bind_error(b, err, n_ast->pos, SILT_BIND,
                              "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] the %s of \"%s\" must be "
                              "between 1 and %lld, not %g",
                              call->fn.kind == WIN_NTILE ? "buckets" : "offset", name,
                              (long long)limit, v);
        call->fn.offset = (int64_t)v;
        call->type = col_type_primitive(COL_INT);
    }
    if (call->fn.kind == WIN_NTILE)
        call->fn.arg = NULL; /* the bucket count, already read */
    else
        call->type = call->fn.arg->type;
    return SILT_OK;
}

/*
 * Spark's checks of a window function against its window: the ranking,
 * distribution and offset functions need an ORDER BY and take no frame of
 * their own (a frame other than the one they imply is an error).
 */
static silt_status check_window_spec(binder *b, const sql_expr *ast, const sql_window *spec,
                                     const engine_window_fn *fn, silt_error *err)
{
    const char *name = func_name(ast);
    int ranking = fn->kind == WIN_ROW_NUMBER || fn->kind == WIN_RANK ||
                  fn->kind == WIN_DENSE_RANK || fn->kind == WIN_NTILE ||
                  fn->kind == WIN_PERCENT_RANK || fn->kind == WIN_CUME_DIST;
    int offset = fn->kind == WIN_LAG || fn->kind == WIN_LEAD;
    if ((ranking || offset || fn->kind == WIN_NTH_VALUE) && spec->order_by.n == 0)
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "window function \"%s\" requires the window to be ordered: add an "
                          "ORDER BY clause to its OVER (...)", name);
    if (offset && spec->frame != 0)
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "cannot specify a window frame for the \"%s\" function", name);
    if (ranking && spec->frame != 0) {
        /* the frame these imply: ROWS (RANGE for cume_dist) UNBOUNDED PRECEDING .. CURRENT ROW */
        int want = fn->kind == WIN_CUME_DIST ? 2 : 1;
        int end_current = spec->end.kind == SQL_BOUND_NONE ||
                          spec->end.kind == SQL_BOUND_CURRENT_ROW;
        if (spec->frame != want || spec->start.kind != SQL_BOUND_UNBOUNDED_PRECEDING ||
            !end_current)
            return sql_bind_error(b, err, ast->pos, SILT_BIND,
                              "the window frame of \"%s\" must be %s BETWEEN UNBOUNDED "
                              "PRECEDING AND CURRENT ROW", name, want == 1 ? "ROWS" : "RANGE");
    }
    return SILT_OK;
}

static silt_status bind_window_call(binder *b, const bind_ctx *bc, const sql_expr *ast,
                                    expr **out, silt_error *err)
{
    win_state *ws = bc->win;
    bind_ctx inner = *bc;
    const sql_window *spec = ast->u.func.over;
    win_call call;
    size_t idx;
    inner.win = NULL;
    if (spec == NULL) {
        size_t w;
        for (w = 0; w < b->n_windows; w++)
            if (util_str_casecmp(b->windows[w].name, ast->u.func.over_name) == 0)
                spec = b->windows[w].window;
        if (spec == NULL)
            return sql_bind_error(b, err, ast->pos, SILT_BIND,
                              "[MISSING_WINDOW_SPECIFICATION] Window specification `%s` is not "
                              "defined in the WINDOW clause", ast->u.func.over_name);
        if (spec->base_name != NULL)
            return sql_bind_error(b, err, ast->pos, SILT_UNSUPPORTED,
                              "a window defined from another window is not supported yet");
    }
    if (ast->u.func.distinct || ast->u.func.filter != NULL)
        return sql_bind_error(b, err, ast->pos, SILT_UNSUPPORTED,
                          "[UNSUPPORTED_FEATURE] DISTINCT and FILTER are not supported in window "
                          "functions");
    memset(&call, 0, sizeof(call));
    call.text = sql_bind_expr_text(b, ast);
    call.spec = spec;
    SILT_RETURN_IF_ERROR(window_fn_kind(b, ast, &call.fn, &call.type, err));
    if (ast->u.func.args.n > 0 && !ast->u.func.star)
        SILT_RETURN_IF_ERROR(sql_bind_expr(b, &inner, ast->u.func.args.items[0], &call.fn.arg, err));
    if (call.fn.kind == WIN_LAG || call.fn.kind == WIN_LEAD) {
        double off = 1;
        if (call.fn.arg == NULL)
            return sql_bind_error(b, err, ast->pos, SILT_BIND, "[WRONG_NUM_ARGS] %s needs an "
                              "argument", func_name(ast));
        if (ast->u.func.args.n > 1)
            SILT_RETURN_IF_ERROR(literal_double(b, ast->u.func.args.items[1], &off, err));
        call.fn.offset = (int64_t)off;
        if (ast->u.func.args.n > 2) {
            SILT_RETURN_IF_ERROR(sql_bind_expr(b, &inner, ast->u.func.args.items[2],
                                           &call.fn.default_value, err));
            SILT_RETURN_IF_ERROR(expr_coerce(&call.fn.default_value, b->a, call.fn.arg->type,
                                             err));
        }
        call.type = call.fn.arg->type;
    } else if (call.fn.kind == WIN_FIRST_VALUE || call.fn.kind == WIN_LAST_VALUE ||
               call.fn.kind == WIN_NTH_VALUE || call.fn.kind == WIN_NTILE) {
        SILT_RETURN_IF_ERROR(bind_value_fn_args(b, ast, &call, err));
    } else if (call.fn.kind == WIN_AGG) {
        if (call.fn.agg != AGG_COUNT_STAR && call.fn.arg == NULL)
            return sql_bind_error(b, err, ast->pos, SILT_BIND, "[WRONG_NUM_ARGS] %s needs an "
                              "argument", func_name(ast));
        SILT_RETURN_IF_ERROR(engine_agg_type_checked(&call.type, b->a, call.fn.agg,
                                                     call.fn.arg ? call.fn.arg->type : NULL,
                                                     err));
    }
    if (spec->frame != 0) {
        call.fn.has_frame = 1;
        call.fn.frame.type = spec->frame == 1 ? FRAME_ROWS : FRAME_RANGE;
        SILT_RETURN_IF_ERROR(frame_offset(b, &spec->start, &call.fn.frame.start,
                                          &call.fn.frame.start_unbounded, -1, err));
        if (spec->end.kind == SQL_BOUND_NONE) {
            call.fn.frame.end = 0;
        } else {
            SILT_RETURN_IF_ERROR(frame_offset(b, &spec->end, &call.fn.frame.end,
                                              &call.fn.frame.end_unbounded, 1, err));
        }
    }
    SILT_RETURN_IF_ERROR(check_window_spec(b, ast, spec, &call.fn, err));
    call.n_partition = spec->partition_by.n;
    call.partition = arena_calloc(b->a, call.n_partition + 1, sizeof(expr *));
    call.n_order = spec->order_by.n;
    call.order = arena_calloc(b->a, call.n_order + 1, sizeof(expr *));
    call.order_keys = arena_calloc(b->a, call.n_order + 1, sizeof(engine_sort_key));
    if (call.partition == NULL || call.order == NULL || call.order_keys == NULL)
        return err_nomem(err);
    for (idx = 0; idx < call.n_partition; idx++)
        SILT_RETURN_IF_ERROR(sql_bind_expr(b, &inner, spec->partition_by.items[idx],
                                       &call.partition[idx], err));
    for (idx = 0; idx < call.n_order; idx++) {
        const sql_order_item *it = &spec->order_by.items[idx];
        SILT_RETURN_IF_ERROR(sql_bind_expr(b, &inner, it->expr, &call.order[idx], err));
        call.order_keys[idx] = engine_sort_key_default(0, it->desc);
        if (it->nulls != 0)
            call.order_keys[idx].nulls_first = it->nulls == 1;
    }
    call.fn.name = sql_bind_column_name(b, ast);
    SILT_RETURN_IF_ERROR(expr_column(&call.result, b->a, 0, call.type, err));
    if (ws->n == ws->cap) {
        size_t cap = ws->cap ? ws->cap * 2 : 4;
        win_call *grown = arena_realloc(b->a, ws->calls, ws->cap * sizeof(win_call),
                                        cap * sizeof(win_call));
        if (grown == NULL)
            return err_nomem(err);
        ws->calls = grown;
        ws->cap = cap;
    }
    ws->calls[ws->n++] = call;
    *out = call.result;
    return SILT_OK;
}

/* ---------------------------------------------------------------- operators */

/* ---------------------------------------------------------------- intervals */

static int is_interval(const sql_expr *e)
{
    return e->kind == SQL_EXPR_LITERAL && e->u.lit.kind == SQL_LIT_INTERVAL;
}

/* Adds "<value> <unit>" to an interval's months and microseconds. */
static silt_status interval_part(binder *b, uint32_t pos, const char *value, size_t value_len,
                                 const char *unit, size_t unit_len, int64_t *months,
                                 int64_t *micros, silt_error *err)
{
    static const struct {
        const char *name;
        int64_t months, micros;
    } units[] = {{"year", 12, 0},           {"month", 1, 0},
                 {"week", 0, 7 * TIME_MICROS_PER_DAY}, {"day", 0, TIME_MICROS_PER_DAY},
                 {"hour", 0, INT64_C(3600000000)}, {"minute", 0, 60000000},
                 {"second", 0, 1000000},     {"millisecond", 0, 1000},
                 {"microsecond", 0, 1}};
    char text[64], *end;
    double v;
    size_t idx;
    if (unit_len > 0 && (unit[unit_len - 1] == 's' || unit[unit_len - 1] == 'S'))
        unit_len--; /* plural */
    for (idx = 0; idx < sizeof(units) / sizeof(units[0]); idx++)
        if (strlen(units[idx].name) == unit_len && util_str_ncasecmp(units[idx].name, unit, unit_len) == 0)
            break;
    if (idx == sizeof(units) / sizeof(units[0]) || value_len == 0 || value_len >= sizeof(text))
        return sql_bind_error(b, err, pos, SILT_PARSE, "[INVALID_INTERVAL_FORMAT] cannot read "
                          "\"%.*s %.*s\" as an interval", (int)value_len, value, (int)unit_len,
                          unit);
    memcpy(text, value, value_len);
    text[value_len] = '\0';
    v = strtod(text, &end);
    if (*end != '\0' || !(v > -1e15 && v < 1e15) ||
        (units[idx].months > 0 && v != (double)(int64_t)v))
        return sql_bind_error(b, err, pos, SILT_PARSE, "[INVALID_INTERVAL_FORMAT] \"%s\" is not a "
                          "valid number of %ss", text, units[idx].name);
    if (units[idx].months > 0)
        *months += (int64_t)v * units[idx].months;
    else
        *micros += llround(v * (double)units[idx].micros);
    return SILT_OK;
}

/* An INTERVAL literal as months and microseconds: INTERVAL 3 DAYS 2 HOURS, INTERVAL '1 day'. */
static silt_status interval_value(binder *b, const sql_expr *ast, int64_t *months,
                                  int64_t *micros, silt_error *err)
{
    const sql_literal *lit = &ast->u.lit;
    size_t idx;
    *months = *micros = 0;
    if (lit->to_unit != NULL)
        return sql_bind_error(b, err, ast->pos, SILT_UNSUPPORTED,
                          "INTERVAL ... TO %s is not supported yet", lit->to_unit);
    for (idx = 0; idx < lit->n_parts; idx++) {
        const sql_interval_part *part = &lit->parts[idx];
        const char *s = part->value, *p;
        if (part->unit != NULL) {
            SILT_RETURN_IF_ERROR(interval_part(b, ast->pos, s, strlen(s), part->unit,
                                               strlen(part->unit), months, micros, err));
            continue;
        }
        /* '1 day 2 hours': pairs of a number and a unit */
        for (p = s; *p != '\0';) {
            const char *v0, *u0;
            size_t vn, un;
            while (*p == ' ')
                p++;
            if (*p == '\0')
                break;
            for (v0 = p; *p != '\0' && *p != ' '; p++)
                ;
            vn = (size_t)(p - v0);
            while (*p == ' ')
                p++;
            for (u0 = p; *p != '\0' && *p != ' '; p++)
                ;
            un = (size_t)(p - u0);
            SILT_RETURN_IF_ERROR(interval_part(b, ast->pos, v0, vn, u0, un, months, micros, err));
        }
    }
    return SILT_OK;
}

/*
 * date/timestamp +/- INTERVAL (Spark has interval types; silt folds the
 * literal): a date plus whole days and months stays a date (add_months,
 * date_add), anything else is a timestamp plus months, then microseconds.
 */
static silt_status interval_arith(binder *b, const bind_ctx *bc, const sql_expr *ast, expr **out,
                                  silt_error *err)
{
    int right_iv = is_interval(ast->u.op.right);
    const sql_expr *iv = right_iv ? ast->u.op.right : ast->u.op.left;
    const sql_expr *other = right_iv ? ast->u.op.left : ast->u.op.right;
    int64_t months, micros;
    expr *x, *m, *us, *args[3];
    if (!right_iv && ast->u.op.op == SQL_OP_SUB)
        return sql_bind_error(b, err, ast->pos, SILT_BIND, "[DATATYPE_MISMATCH] cannot subtract a "
                          "date or timestamp from an interval");
    if (is_interval(other))
        return sql_bind_error(b, err, ast->pos, SILT_UNSUPPORTED,
                          "adding two intervals is not supported yet");
    SILT_RETURN_IF_ERROR(interval_value(b, iv, &months, &micros, err));
    if (ast->u.op.op == SQL_OP_SUB) {
        months = -months;
        micros = -micros;
    }
    SILT_RETURN_IF_ERROR(bind_sub(b, bc, other, &x, err));
    if (x->type->id != COL_DATE && x->type->id != COL_TIMESTAMP && x->type->id != COL_STRING &&
        x->type->id != COL_NULL)
        return sql_bind_error(b, err, ast->pos, SILT_BIND, "[DATATYPE_MISMATCH] cannot add an "
                          "interval to \"%s\"", col_type_id_name(x->type->id));
    if (months < INT32_MIN || months > INT32_MAX)
        return sql_bind_error(b, err, iv->pos, SILT_BIND, "[INTERVAL_ARITHMETIC_OVERFLOW] the "
                          "interval is out of range");
    SILT_RETURN_IF_ERROR(expr_lit_int(&m, b->a, COL_INT, months, err));
    if (x->type->id == COL_DATE && micros % TIME_MICROS_PER_DAY == 0) {
        expr *days;
        args[0] = x;
        args[1] = m;
        SILT_RETURN_IF_ERROR(expr_func(&x, b->a, "add_months", args, 2, err));
        SILT_RETURN_IF_ERROR(expr_lit_int(&days, b->a, COL_INT, micros / TIME_MICROS_PER_DAY, err));
        args[0] = x;
        args[1] = days;
        return expr_func(out, b->a, "date_add", args, 2, err);
    }
    SILT_RETURN_IF_ERROR(expr_cast(&x, b->a, x, col_type_primitive(COL_TIMESTAMP), 0, err));
    SILT_RETURN_IF_ERROR(expr_lit_int(&us, b->a, COL_LONG, micros, err));
    args[0] = x;
    args[1] = m;
    args[2] = us;
    return expr_func(out, b->a, "__interval_add", args, 3, err);
}

static silt_status bind_binary(binder *b, const bind_ctx *bc, const sql_expr *ast, expr **out,
                               silt_error *err)
{
    expr *l, *r;
    sql_op op = ast->u.op.op;
    if ((op == SQL_OP_ADD || op == SQL_OP_SUB) &&
        (is_interval(ast->u.op.right) || is_interval(ast->u.op.left)))
        return interval_arith(b, bc, ast, out, err);
    SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.op.left, &l, err));
    SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.op.right, &r, err));
    switch (op) {
    case SQL_OP_ADD: return expr_arith(out, b->a, EXPR_ADD, l, r, err);
    case SQL_OP_SUB: return expr_arith(out, b->a, EXPR_SUB, l, r, err);
    case SQL_OP_MUL: return expr_arith(out, b->a, EXPR_MUL, l, r, err);
    case SQL_OP_DIV: return expr_arith(out, b->a, EXPR_DIV, l, r, err);
    case SQL_OP_MOD: return expr_arith(out, b->a, EXPR_MOD, l, r, err);
    case SQL_OP_INTDIV: {
        expr *q;
        SILT_RETURN_IF_ERROR(expr_arith(&q, b->a, EXPR_DIV, l, r, err));
        return expr_cast(out, b->a, q, col_type_primitive(COL_LONG), 0, err);
    }
    case SQL_OP_CONCAT: {
        expr *args[2] = {l, r};
        return expr_func(out, b->a, "concat", args, 2, err);
    }
    case SQL_OP_EQ: return expr_compare(out, b->a, EXPR_EQ, l, r, err);
    case SQL_OP_NEQ: return expr_compare(out, b->a, EXPR_NE, l, r, err);
    case SQL_OP_LT: return expr_compare(out, b->a, EXPR_LT, l, r, err);
    case SQL_OP_LE: return expr_compare(out, b->a, EXPR_LE, l, r, err);
    case SQL_OP_GT: return expr_compare(out, b->a, EXPR_GT, l, r, err);
    case SQL_OP_GE: return expr_compare(out, b->a, EXPR_GE, l, r, err);
    case SQL_OP_NSEQ: return expr_compare(out, b->a, EXPR_EQ_NULL_SAFE, l, r, err);
    case SQL_OP_DISTINCT_FROM: return expr_distinct_from(out, b->a, l, r, 0, err);
    case SQL_OP_AND: return expr_and(out, b->a, l, r, err);
    case SQL_OP_OR: return expr_or(out, b->a, l, r, err);
    default:
        return sql_bind_error(b, err, ast->pos, SILT_UNSUPPORTED,
                          "operator \"%s\" is not supported yet", sql_op_name(op));
    }
}

static int64_t int_type_min(col_type_id id)
{
    switch (id) {
    case COL_BYTE: return INT8_MIN;
    case COL_SHORT: return INT16_MIN;
    case COL_INT: return INT32_MIN;
    default: return INT64_MIN;
    }
}

static silt_status bind_unary(binder *b, const bind_ctx *bc, const sql_expr *ast, expr **out,
                              silt_error *err)
{
    expr *arg, *zero;
    SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.op.left, &arg, err));
    switch (ast->u.op.op) {
    case SQL_OP_NOT: return expr_not(out, b->a, arg, err);
    case SQL_OP_PLUS: *out = arg; return SILT_OK;
    case SQL_OP_NEG:
        if (arg->kind == EXPR_LITERAL && !arg->lit.is_null) {
            /* Fold -literal so that -2147483648 and friends keep their type. */
            switch (arg->type->id) {
            case COL_BYTE:
            case COL_SHORT:
            case COL_INT:
            case COL_LONG:
                /* The type's minimum has no negation: left to the subtraction below,
                 * which raises [ARITHMETIC_OVERFLOW] as Spark does (and -INT64_MIN in C
                 * is undefined). */
                if (arg->lit.i == int_type_min(arg->type->id))
                    break;
                return expr_lit_int(out, b->a, arg->type->id, -arg->lit.i, err);
            case COL_FLOAT:
            case COL_DOUBLE: return expr_lit_double(out, b->a, arg->type->id, -arg->lit.d, err);
            case COL_DECIMAL:
                return expr_lit_decimal(out, b->a, arg->type->precision, arg->type->scale,
                                        -arg->lit.dec, err);
            default: break;
            }
        }
        SILT_RETURN_IF_ERROR(expr_lit_int(&zero, b->a, COL_BYTE, 0, err));
        return expr_arith(out, b->a, EXPR_SUB, zero, arg, err);
    default:
        return sql_bind_error(b, err, ast->pos, SILT_UNSUPPORTED,
                          "operator \"%s\" is not supported yet", sql_op_name(ast->u.op.op));
    }
}

static silt_status bind_is(binder *b, const bind_ctx *bc, const sql_expr *ast, expr **out,
                           silt_error *err)
{
    expr *arg, *lit;
    SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.is.arg, &arg, err));
    switch (ast->u.is.what) {
    case SQL_IS_NULL:
    case SQL_IS_UNKNOWN: return expr_is_null(out, b->a, arg, ast->u.is.negated, err);
    default:
        SILT_RETURN_IF_ERROR(expr_lit_bool(&lit, b->a, ast->u.is.what == SQL_IS_TRUE, err));
        /* x IS TRUE is x <=> true: never NULL. */
        return expr_distinct_from(out, b->a, arg, lit, !ast->u.is.negated, err);
    }
}

static silt_status bind_list(binder *b, const bind_ctx *bc, const sql_expr_list *list,
                             expr ***out, silt_error *err)
{
    size_t idx;
    *out = arena_calloc(b->a, list->n + 1, sizeof(expr *));
    if (*out == NULL)
        return err_nomem(err);
    for (idx = 0; idx < list->n; idx++)
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, list->items[idx], &(*out)[idx], err));
    return SILT_OK;
}

static silt_status bind_case(binder *b, const bind_ctx *bc, const sql_expr *ast, expr **out,
                             silt_error *err)
{
    size_t n = ast->u.case_.n_whens, idx;
    expr **conds = arena_calloc(b->a, n + 1, sizeof(expr *));
    expr **vals = arena_calloc(b->a, n + 1, sizeof(expr *));
    expr *operand = NULL, *else_val = NULL;
    if (conds == NULL || vals == NULL)
        return err_nomem(err);
    if (ast->u.case_.operand != NULL)
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.case_.operand, &operand, err));
    for (idx = 0; idx < n; idx++) {
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.case_.whens[idx].cond, &conds[idx], err));
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.case_.whens[idx].result, &vals[idx], err));
    }
    if (ast->u.case_.else_result != NULL)
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.case_.else_result, &else_val, err));
    if (operand != NULL)
        return expr_case_simple(out, b->a, operand, n, conds, vals, else_val, err);
    return expr_case(out, b->a, n, conds, vals, else_val, err);
}

static silt_status bind_like(binder *b, const bind_ctx *bc, const sql_expr *ast, expr **out,
                             silt_error *err)
{
    expr *arg, *pat;
    char escape = 0;
    if (ast->u.like.quant != SQL_QUANT_NONE) {
        /* x LIKE ANY (p, q): OR of the matches; LIKE ALL: AND; NOT LIKE ...: of the negations. */
        size_t idx;
        expr *acc = NULL;
        if (ast->u.like.like == SQL_RLIKE || ast->u.like.patterns.n == 0)
            return sql_bind_error(b, err, ast->pos, SILT_UNSUPPORTED,
                              "RLIKE ANY/ALL is not supported");
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.like.arg, &arg, err));
        for (idx = 0; idx < ast->u.like.patterns.n; idx++) {
            expr *m;
            SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.like.patterns.items[idx], &pat, err));
            SILT_RETURN_IF_ERROR(expr_like(&m, b->a, arg, pat, 0, ast->u.like.like == SQL_ILIKE,
                                           ast->u.like.negated, err));
            if (acc == NULL)
                acc = m;
            else if (ast->u.like.quant == SQL_QUANT_ANY)
                SILT_RETURN_IF_ERROR(expr_or(&acc, b->a, acc, m, err));
            else
                SILT_RETURN_IF_ERROR(expr_and(&acc, b->a, acc, m, err));
        }
        *out = acc;
        return SILT_OK;
    }
    if (ast->u.like.patterns.n != 1)
        return sql_bind_error(b, err, ast->pos, SILT_BIND, "LIKE takes one pattern");
    SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.like.arg, &arg, err));
    SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.like.patterns.items[0], &pat, err));
    if (ast->u.like.like == SQL_RLIKE) {
        expr *args[2] = {arg, pat}, *m;
        SILT_RETURN_IF_ERROR(expr_func(&m, b->a, "rlike", args, 2, err));
        if (ast->u.like.negated)
            return expr_not(out, b->a, m, err);
        *out = m;
        return SILT_OK;
    }
    if (ast->u.like.escape != NULL) {
        const sql_expr *e = ast->u.like.escape;
        if (e->kind != SQL_EXPR_LITERAL || e->u.lit.kind != SQL_LIT_STRING ||
            e->u.lit.str_len != 1)
            return sql_bind_error(b, err, e->pos, SILT_BIND,
                              "[INVALID_ESCAPE_CHAR] the escape must be a string of one character");
        escape = e->u.lit.str[0];
    }
    return expr_like(out, b->a, arg, pat, escape, ast->u.like.like == SQL_ILIKE,
                     ast->u.like.negated, err);
}

/* Functions that exist only over a window (first_value and last_value are also aggregates). */
static int is_window_only(const char *name)
{
    static const char *const names[] = {"row_number", "rank", "dense_rank", "ntile",
                                        "percent_rank", "cume_dist", "lag", "lead", "nth_value"};
    size_t idx;
    for (idx = 0; idx < sizeof(names) / sizeof(names[0]); idx++)
        if (util_str_casecmp(name, names[idx]) == 0)
            return 1;
    return 0;
}

/*
 * input_file_name(): the hidden file name column of the file source or
 * Delta table in scope (source_files.h), one per row's file as Spark's; a
 * scope without one (a subquery, a join of two sources, range) is refused
 * rather than answered with Spark's empty string where silt cannot tell.
 */
static silt_status bind_input_file_name(binder *b, const bind_ctx *bc, const sql_expr *ast,
                                        size_t n, expr **out, silt_error *err)
{
    int64_t found = file_name_col(bc->scope);
    if (n != 0)
        return sql_bind_error(b, err, ast->pos, SILT_BIND, "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] "
                              "The `input_file_name` requires 0 parameters but the actual number "
                              "is %zu.", n);
    if (found < 0)
        return sql_bind_error(b, err, ast->pos, SILT_UNSUPPORTED, "input_file_name() is "
                              "supported only in a query over one file source or Delta table "
                              "read directly in FROM (not %s)", found == -2 ? "over a join of "
                              "several" : "in UPDATE, DELETE or MERGE, over a subquery, a view of "
                              "a query or a source without files such as range()");
    return expr_column(out, b->a, (size_t)found, bc->scope->cols[found].type, err);
}

static silt_status bind_func(binder *b, const bind_ctx *bc, const sql_expr *ast, expr **out,
                             silt_error *err)
{
    const char *name = func_name(ast);
    expr **args;
    size_t n = ast->u.func.args.n;
    if (ast->u.func.over != NULL || ast->u.func.over_name != NULL) {
        if (bc->win == NULL)
            return sql_bind_error(b, err, ast->pos, SILT_BIND,
                              "[UNSUPPORTED_EXPR_FOR_WINDOW] window functions are only allowed "
                              "in SELECT and ORDER BY");
        return bind_window_call(b, bc, ast, out, err);
    }
    if (ast->u.func.name.n_parts == 1 && sql_bind_is_agg_name(name))
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "[UNSUPPORTED_EXPR_FOR_OPERATOR] aggregate function \"%s\" is not "
                          "allowed here", name);
    if (util_str_casecmp(name, "filename") == 0 || util_str_casecmp(name, "filepath") == 0)
        /* T-SQL's rowset functions (docs/serverless.md): named, not "does not exist" */
        return sql_bind_error(b, err, ast->pos, SILT_UNSUPPORTED,
                          "OPENROWSET's %s() (the file a row came from) is not supported yet",
                          util_str_casecmp(name, "filename") == 0 ? "filename" : "filepath");
    if (ast->u.func.name.n_parts == 1 && is_window_only(name))
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "[WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE] window function \"%s\" requires "
                          "an OVER clause", name);
    if (ast->u.func.star)
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "[INVALID_USAGE_OF_STAR_OR_REGEX] invalid usage of '*' in %s", name);
    SILT_RETURN_IF_ERROR(bind_list(b, bc, &ast->u.func.args, &args, err));
    /* TRIM(LEADING|TRAILING chars FROM s) is ltrim / rtrim (the parser keeps the side). */
    if (ast->u.func.trim == 2 || ast->u.func.trim == 3)
        name = ast->u.func.trim == 2 ? "ltrim" : "rtrim";
    if (util_str_casecmp(name, "if") == 0 || util_str_casecmp(name, "iff") == 0) {
        if (n != 3)
            return sql_bind_error(b, err, ast->pos, SILT_BIND,
                              "[WRONG_NUM_ARGS] function \"if\" takes 3 arguments, not %zu", n);
        return expr_case(out, b->a, 1, &args[0], &args[1], args[2], err);
    }
    /* left(s, n) is substr(s, 1, n); right(s, n) is substr(s, -n, n) ("" for n <= 0). */
    if ((util_str_casecmp(name, "left") == 0 || util_str_casecmp(name, "right") == 0) && n == 2) {
        expr *sub[3], *zero;
        sub[0] = args[0];
        sub[2] = args[1];
        if (util_str_casecmp(name, "left") == 0) {
            SILT_RETURN_IF_ERROR(expr_lit_int(&sub[1], b->a, COL_INT, 1, err));
        } else {
            SILT_RETURN_IF_ERROR(expr_lit_int(&zero, b->a, COL_INT, 0, err));
            SILT_RETURN_IF_ERROR(expr_arith(&sub[1], b->a, EXPR_SUB, zero, args[1], err));
        }
        return expr_func(out, b->a, "substr", sub, 3, err);
    }
    if (util_str_casecmp(name, "element_at") == 0 && n == 2)
        return bind_subscript(b, args[0], args[1], 1, ast->pos, out, err);
    if (util_str_casecmp(name, "try_element_at") == 0 && n == 2)
        return bind_subscript(b, args[0], args[1], 2, ast->pos, out, err);
    if (util_str_casecmp(name, "get") == 0 && n == 2) {
        if (args[0]->type->id != COL_ARRAY)
            return sql_bind_error(b, err, ast->pos, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_"
                                  "INPUT_TYPE] \"get\" needs an array, not \"%s\"",
                                  col_type_id_name(args[0]->type->id));
        return bind_subscript(b, args[0], args[1], 3, ast->pos, out, err);
    }
    if ((util_str_casecmp(name, "isnull") == 0 || util_str_casecmp(name, "isnotnull") == 0) && n == 1)
        return expr_is_null(out, b->a, args[0], util_str_casecmp(name, "isnotnull") == 0, err);
    /* The session's current database (USE): the engine knows no session, so a constant here. */
    if ((util_str_casecmp(name, "current_database") == 0 ||
         util_str_casecmp(name, "current_schema") == 0) && ast->u.func.name.n_parts == 1) {
        const char *db = b->s->database != NULL ? b->s->database : "default";
        if (n != 0)
            return sql_bind_error(b, err, ast->pos, SILT_BIND, "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION]"
                                  " The `%s` requires 0 parameters but the actual number is %zu.",
                                  name, n);
        return expr_lit_string(out, b->a, db, strlen(db), err);
    }
    if (util_str_casecmp(name, "input_file_name") == 0 && ast->u.func.name.n_parts == 1)
        return bind_input_file_name(b, bc, ast, n, out, err);
    if (util_str_casecmp(name, "nvl2") == 0 && n == 3) {
        expr *cond;
        SILT_RETURN_IF_ERROR(expr_is_null(&cond, b->a, args[0], 1, err));
        return expr_case(out, b->a, 1, &cond, &args[1], args[2], err);
    }
    if (expr_func(out, b->a, name, args, n, err) != SILT_OK) {
        char msg[SILT_ERROR_MESSAGE_MAX];
        silt_status code = err ? err->code : SILT_BIND;
        snprintf(msg, sizeof(msg), "%s", err ? err->message : "");
        return sql_bind_error(b, err, ast->pos, code, "%s", msg);
    }
    return SILT_OK;
}

static silt_status bind_cast(binder *b, const bind_ctx *bc, const sql_expr *ast, expr **out,
                             silt_error *err)
{
    expr *arg;
    SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.cast.arg, &arg, err));
    if (expr_cast(out, b->a, arg, ast->u.cast.type.type, ast->u.cast.is_try, err) != SILT_OK) {
        char msg[SILT_ERROR_MESSAGE_MAX];
        silt_status code = err ? err->code : SILT_BIND;
        snprintf(msg, sizeof(msg), "%s", err ? err->message : "");
        return sql_bind_error(b, err, ast->pos, code, "%s", msg);
    }
    return SILT_OK;
}

/* ---------------------------------------------------------------- entry */

static silt_status bind_sub(binder *b, const bind_ctx *bc, const sql_expr *ast, expr **out,
                            silt_error *err)
{
    silt_status rc;
    if (++b->depth > SQL_BIND_MAX_DEPTH) {
        b->depth--;
        return sql_bind_error(b, err, ast->pos, SILT_BIND, "expression nested too deeply");
    }
    rc = sql_bind_expr(b, bc, ast, out, err);
    b->depth--;
    return rc;
}

silt_status sql_bind_expr(binder *b, const bind_ctx *bc, const sql_expr *ast, expr **out,
                      silt_error *err)
{
    silt_status rc;
    if (bc->agg != NULL) {
        int done = 0;
        SILT_RETURN_IF_ERROR(bind_in_agg(b, bc, ast, out, &done, err));
        if (done)
            return SILT_OK;
    }
    switch (ast->kind) {
    case SQL_EXPR_LITERAL: rc = bind_literal(b, ast, out, err); break;
    case SQL_EXPR_COLUMN: rc = bind_column(b, bc->scope, ast, out, err); break;
    case SQL_EXPR_UNARY: rc = bind_unary(b, bc, ast, out, err); break;
    case SQL_EXPR_BINARY: rc = bind_binary(b, bc, ast, out, err); break;
    case SQL_EXPR_IS: rc = bind_is(b, bc, ast, out, err); break;
    case SQL_EXPR_BETWEEN: {
        expr *arg, *lo, *hi;
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.between.arg, &arg, err));
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.between.low, &lo, err));
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.between.high, &hi, err));
        rc = expr_between(out, b->a, arg, lo, hi, ast->u.between.negated, err);
        break;
    }
    case SQL_EXPR_IN_LIST: {
        expr *arg, **list;
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.in.arg, &arg, err));
        SILT_RETURN_IF_ERROR(bind_list(b, bc, &ast->u.in.list, &list, err));
        rc = expr_in(out, b->a, arg, list, ast->u.in.list.n, ast->u.in.negated, err);
        break;
    }
    case SQL_EXPR_IN_QUERY: rc = bind_in_subquery(b, bc, ast, out, err); break;
    case SQL_EXPR_EXISTS:
    case SQL_EXPR_SUBQUERY: {
        const scalar_subst *sub;
        for (sub = b->substs; sub != NULL; sub = sub->next)
            if (sub->node == ast)
                break;
        if (sub == NULL) {
            rc = ast->kind == SQL_EXPR_EXISTS ? bind_exists(b, ast, out, err)
                                              : bind_scalar_subquery(b, ast, out, err);
            break;
        }
        rc = bind_joined_subquery(b, ast, sub, out, err);
        break;
    }
    case SQL_EXPR_LIKE: rc = bind_like(b, bc, ast, out, err); break;
    case SQL_EXPR_CASE: rc = bind_case(b, bc, ast, out, err); break;
    case SQL_EXPR_CAST: rc = bind_cast(b, bc, ast, out, err); break;
    case SQL_EXPR_FUNC: rc = bind_func(b, bc, ast, out, err); break;
    case SQL_EXPR_EXTRACT: {
        expr *arg;
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.extract.arg, &arg, err));
        rc = expr_func(out, b->a, ast->u.extract.field.name, &arg, 1, err);
        break;
    }
    case SQL_EXPR_FIELD: {
        expr *base;
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.access.base, &base, err));
        rc = bind_field(b, base, &ast->u.access.field, out, err);
        break;
    }
    case SQL_EXPR_SUBSCRIPT: {
        expr *base, *index;
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.access.base, &base, err));
        SILT_RETURN_IF_ERROR(bind_sub(b, bc, ast->u.access.index, &index, err));
        rc = bind_subscript(b, base, index, 0, ast->pos, out, err);
        break;
    }
    case SQL_EXPR_PARAM: {
        /* a marker is its value's literal, as Spark substitutes parameters before analysis */
        sql_expr lit;
        rc = sql_param_literal(b->s, ast, &lit, err);
        if (rc != SILT_OK)
            return sql_bind_error(b, err, ast->pos, rc, "%s", err ? err->message : "");
        rc = bind_literal(b, &lit, out, err);
        break;
    }
    case SQL_EXPR_STAR:
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "[INVALID_USAGE_OF_STAR_OR_REGEX] invalid usage of '*' here");
    default:
        return sql_bind_error(b, err, ast->pos, SILT_UNSUPPORTED,
                          "this kind of expression is not supported yet");
    }
    if (rc == SILT_BIND && err != NULL && strstr(err->message, "(line ") == NULL) {
        /* A constructor's type error: point at the expression. */
        char msg[SILT_ERROR_MESSAGE_MAX];
        snprintf(msg, sizeof(msg), "%s", err->message);
        return sql_bind_error(b, err, ast->pos, rc, "%s", msg);
    }
    if (rc == SILT_OK && *out != NULL && (*out)->pos < 0) {
        int line = 1, col = 1;
        expr_set_source(*out, sql_bind_column_name(b, ast), ast->pos);
        if (b->text != NULL && ast->pos <= b->text_len) {
            sql_line_col_memo(b->line_memo, b->text, b->text_len, ast->pos, &line, &col);
            expr_set_source_line(*out, line, col);
        }
    }
    return rc;
}
