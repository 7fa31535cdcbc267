/*
 * pushdown.c - WHERE conjuncts as statistics predicates.
 *
 * A query's scan of a Delta or Parquet source and DELETE/UPDATE on a Delta
 * table both skip files (or row groups) whose partition values and
 * min/max/null-count statistics refute a conjunct. They share this one
 * translation of simple conjuncts (`column op literal`, either side, a
 * parameter marker standing for its value's literal, `column BETWEEN a
 * AND b`, `column IS [NOT] NULL`) into dpreds, so that
 * what a SELECT prunes and what a DELETE prunes cannot drift apart. A
 * conjunct that does not fit is left out: pruning is only an optimisation
 * and the caller still evaluates every conjunct on the rows.
 */
#include <string.h>

#include "sql/binder_int.h"
#include "sql/prepared.h"

static int qual_ok(const pushdown *pd, const sql_name *n)
{
    if (n->n_parts == 1)
        return 1;
    return n->n_parts == 2 && pd->qual != NULL && util_str_casecmp(n->parts[0].name, pd->qual) == 0;
}

int64_t sql_pushdown_schema_col(const col_type *schema, const char *name)
{
    size_t idx;
    for (idx = 0; idx < schema->n_fields; idx++)
        if (util_str_casecmp(schema->fields[idx].name, name) == 0)
            return (int64_t)idx;
    return -1;
}

/* The value of a literal cast to the column type (0 when it does not convert exactly). */
static int literal_value(binder *b, const sql_expr *lit, const col_type *type, delta_value *out)
{
    bind_scope empty = {0, NULL};
    bind_ctx bc = {&empty, NULL, NULL, NULL};
    silt_error scratch = SILT_ERROR_INIT;
    col_batch one = {NULL, 1, 0, NULL};
    const col_type *common;
    expr *e;
    col_vec *v;
    sql_expr value;
    /* a parameter marker is its value's literal here too, so pruning follows each value */
    if (lit->kind == SQL_EXPR_PARAM) {
        if (sql_param_literal(b->s, lit, &value, &scratch) != SILT_OK)
            return 0;
        lit = &value;
    }
    if (lit->kind != SQL_EXPR_LITERAL || lit->u.lit.kind == SQL_LIT_NULL)
        return 0;
    if (type->id == COL_STRUCT || type->id == COL_ARRAY || type->id == COL_MAP ||
        type->id == COL_BINARY)
        return 0;
    if (sql_bind_expr(b, &bc, lit, &e, &scratch) != SILT_OK)
        return 0;
    /* Only when the comparison happens in the column's own type. */
    common = expr_common_type(b->a, type, e->type);
    if (common == NULL || !col_type_equal(common, type))
        return 0;
    one.schema = col_type_struct(b->a, 0, NULL);
    if (one.schema == NULL || expr_cast(&e, b->a, e, type, 1, &scratch) != SILT_OK ||
        expr_eval(e, b->ctx, &one, NULL, 1, b->a, &v, &scratch) != SILT_OK ||
        col_vec_is_null(v, 0))
        return 0;
    memset(out, 0, sizeof(*out));
    out->type = type->id;
    switch (type->id) {
    case COL_FLOAT:
    case COL_DOUBLE: out->v.d = vec_get_double(v, 0); break;
    case COL_DECIMAL: out->v.dec = vec_get_dec(v, 0); out->scale = type->scale; break;
    case COL_STRING: {
        int32_t len;
        out->v.s.ptr = col_vec_str(v, 0, &len);
        out->v.s.len = (size_t)len;
        break;
    }
    default: out->v.i = vec_get_int(v, 0); break;
    }
    return 1;
}

static dpred_op flip(dpred_op op)
{
    switch (op) {
    case DPRED_LT: return DPRED_GT;
    case DPRED_LE: return DPRED_GE;
    case DPRED_GT: return DPRED_LT;
    case DPRED_GE: return DPRED_LE;
    default: return op;
    }
}

static int cmp_op(sql_op op, dpred_op *out)
{
    switch (op) {
    case SQL_OP_EQ: *out = DPRED_EQ; return 1;
    case SQL_OP_NEQ: *out = DPRED_NE; return 1;
    case SQL_OP_LT: *out = DPRED_LT; return 1;
    case SQL_OP_LE: *out = DPRED_LE; return 1;
    case SQL_OP_GT: *out = DPRED_GT; return 1;
    case SQL_OP_GE: *out = DPRED_GE; return 1;
    default: return 0;
    }
}

static int add_cmp(binder *b, const pushdown *pd, const col_type *schema, const sql_expr *col,
                   dpred_op op, const sql_expr *lit, dpred *out)
{
    int64_t idx;
    if (col->kind != SQL_EXPR_COLUMN || !qual_ok(pd, &col->u.column))
        return 0;
    idx = sql_pushdown_schema_col(schema, col->u.column.parts[col->u.column.n_parts - 1].name);
    if (idx < 0 || !literal_value(b, lit, schema->fields[idx].type, &out->literal))
        return 0;
    out->kind = DPRED_CMP;
    out->op = op;
    out->column = schema->fields[idx].name;
    return 1;
}

static int one_pred(binder *b, const pushdown *pd, const col_type *schema, const sql_expr *c,
                    dpred *out, int depth);

/* `a OR b` over one column, each side a comparison (or another such OR): a DPRED_OR that
 * names the column, so row group and page statistics can refute it too. */
static int or_pred(binder *b, const pushdown *pd, const col_type *schema, const sql_expr *c,
                   dpred *out, int depth)
{
    dpred *l = arena_calloc(b->a, 2, sizeof(dpred));
    if (l == NULL || depth > 64 || !one_pred(b, pd, schema, c->u.op.left, &l[0], depth + 1) ||
        !one_pred(b, pd, schema, c->u.op.right, &l[1], depth + 1) || l[0].column == NULL ||
        l[1].column == NULL || strcmp(l[0].column, l[1].column) != 0)
        return 0;
    memset(out, 0, sizeof(*out));
    out->kind = DPRED_OR;
    out->column = l[0].column;
    out->left = &l[0];
    out->right = &l[1];
    return 1;
}

/* `col IN (literals)`: the OR of col = each (only when every literal converts). */
static int in_pred(binder *b, const pushdown *pd, const col_type *schema, const sql_expr *c,
                   dpred *out)
{
    size_t k, n = c->u.in.list.n;
    dpred *eq;
    if (c->u.in.negated || n == 0 || n > 1000 || (eq = arena_calloc(b->a, 2 * n, sizeof(dpred))) == NULL)
        return 0;
    for (k = 0; k < n; k++)
        if (!add_cmp(b, pd, schema, c->u.in.arg, DPRED_EQ, c->u.in.list.items[k], &eq[k]))
            return 0;
    for (k = 1; k < n; k++) { /* eq[n + k - 1] = (previous OR eq[k]) */
        dpred *or = &eq[n + k - 1];
        or->kind = DPRED_OR;
        or->column = eq[0].column;
        or->left = k == 1 ? &eq[0] : &eq[n + k - 2];
        or->right = &eq[k];
    }
    *out = n == 1 ? eq[0] : eq[2 * n - 2];
    return 1;
}

static int one_pred(binder *b, const pushdown *pd, const col_type *schema, const sql_expr *c,
                    dpred *out, int depth)
{
    dpred_op op;
    if (c->kind == SQL_EXPR_BINARY && cmp_op(c->u.op.op, &op))
        return add_cmp(b, pd, schema, c->u.op.left, op, c->u.op.right, out) ||
               add_cmp(b, pd, schema, c->u.op.right, flip(op), c->u.op.left, out);
    if (c->kind == SQL_EXPR_BINARY && c->u.op.op == SQL_OP_OR)
        return or_pred(b, pd, schema, c, out, depth);
    if (c->kind == SQL_EXPR_IN_LIST)
        return in_pred(b, pd, schema, c, out);
    return 0;
}

size_t sql_pushdown_preds(binder *b, const pushdown *pd, const col_type *schema, dpred **out)
{
    size_t idx, n = 0;
    dpred *preds;
    *out = NULL;
    if (pd == NULL || pd->n == 0)
        return 0;
    preds = arena_calloc(b->a, pd->n * 2, sizeof(dpred));
    if (preds == NULL)
        return 0;
    for (idx = 0; idx < pd->n; idx++) {
        const sql_expr *c = pd->conj[idx];
        dpred_op op;
        if (c->kind == SQL_EXPR_BINARY && cmp_op(c->u.op.op, &op)) {
            if (add_cmp(b, pd, schema, c->u.op.left, op, c->u.op.right, &preds[n]) ||
                add_cmp(b, pd, schema, c->u.op.right, flip(op), c->u.op.left, &preds[n]))
                n++;
        } else if ((c->kind == SQL_EXPR_BINARY && c->u.op.op == SQL_OP_OR) ||
                   c->kind == SQL_EXPR_IN_LIST) {
            if (one_pred(b, pd, schema, c, &preds[n], 0))
                n++;
        } else if (c->kind == SQL_EXPR_BETWEEN && !c->u.between.negated) {
            if (add_cmp(b, pd, schema, c->u.between.arg, DPRED_GE, c->u.between.low, &preds[n]))
                n++;
            if (add_cmp(b, pd, schema, c->u.between.arg, DPRED_LE, c->u.between.high, &preds[n]))
                n++;
        } else if (c->kind == SQL_EXPR_IS && c->u.is.what == SQL_IS_NULL &&
                   c->u.is.arg->kind == SQL_EXPR_COLUMN && qual_ok(pd, &c->u.is.arg->u.column)) {
            const sql_name *nm = &c->u.is.arg->u.column;
            int64_t col = sql_pushdown_schema_col(schema, nm->parts[nm->n_parts - 1].name);
            if (col >= 0) {
                preds[n].kind = c->u.is.negated ? DPRED_IS_NOT_NULL : DPRED_IS_NULL;
                preds[n++].column = schema->fields[col].name;
            }
        }
    }
    *out = preds;
    return n;
}
