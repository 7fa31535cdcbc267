/*
 * plan_query.c - queries to operator trees: FROM items, joins, VALUES, set
 * operations and CTEs. SELECT blocks are in plan_select.c.
 *
 * Joins are hash joins on the equality conjuncts of ON (and of WHERE for
 * comma-separated FROM items) whose sides each name one input only; the
 * other conjuncts become the join's residual condition. UNION dedups with
 * a hash aggregate; INTERSECT and EXCEPT are a distinct left side semi or
 * anti joined with the right on every column (NULL-safe keys: two NULLs
 * are equal in set operations, as in Spark).
 */
#include <string.h>

#include "sql/binder_int.h"
#include "sql/parser.h"

/* One row without columns (SELECT without FROM). */
static silt_status plan_one_row(binder *b, plan *out, silt_error *err);

silt_status sql_plan_project(binder *b, plan *p, expr **exprs, const char **names, size_t n,
                         silt_error *err)
{
    engine_op *op;
    bind_scope scope;
    size_t idx;
    SILT_RETURN_IF_ERROR(engine_op_project(&op, b->ctx, p->op, exprs, names, n, err));
    scope.n = n;
    scope.cols = arena_calloc(b->a, n ? n : 1, sizeof(bind_col));
    if (scope.cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        scope.cols[idx].name = names[idx];
        scope.cols[idx].type = exprs[idx]->type;
        /* A projected column keeps its table qualifier (SELECT t.a ... ORDER BY t.a). */
        if (exprs[idx]->kind == EXPR_COLUMN && exprs[idx]->col_idx < (int64_t)p->scope.n)
            scope.cols[idx].qual = p->scope.cols[exprs[idx]->col_idx].qual;
    }
    p->op = op;
    p->scope = scope;
    return SILT_OK;
}

/* Renames a plan's columns for `alias(c1, c2)` and sets their qualifier. */
static silt_status apply_alias(binder *b, plan *p, const sql_alias *alias, uint32_t pos,
                               silt_error *err)
{
    size_t idx;
    bind_col *cols;
    if (alias->columns.n > 0 && alias->columns.n != p->scope.n)
        return sql_bind_error(b, err, pos, SILT_BIND,
                          "[ASSIGNMENT_ARITY_MISMATCH] the alias names %zu columns but the "
                          "relation has %zu", alias->columns.n, p->scope.n);
    cols = arena_calloc(b->a, p->scope.n ? p->scope.n : 1, sizeof(bind_col));
    if (cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < p->scope.n; idx++) {
        cols[idx] = p->scope.cols[idx];
        if (alias->name != NULL)
            cols[idx].qual = alias->name;
        if (alias->columns.n > 0)
            cols[idx].name = alias->columns.items[idx].name;
    }
    p->scope.cols = cols;
    if (alias->columns.n > 0) {
        /* The operator's schema names change too, so a result shows the new names. */
        expr **exprs = arena_calloc(b->a, p->scope.n, sizeof(expr *));
        const char **names = arena_calloc(b->a, p->scope.n, sizeof(char *));
        const char *qual = alias->name;
        if (exprs == NULL || names == NULL)
            return err_nomem(err);
        for (idx = 0; idx < p->scope.n; idx++) {
            SILT_RETURN_IF_ERROR(expr_column(&exprs[idx], b->a, (int64_t)idx, cols[idx].type,
                                             err));
            names[idx] = cols[idx].name;
        }
        SILT_RETURN_IF_ERROR(sql_plan_project(b, p, exprs, names, p->scope.n, err));
        for (idx = 0; idx < p->scope.n; idx++)
            p->scope.cols[idx].qual = qual;
    }
    return SILT_OK;
}

/*
 * The type a column of a set operation or VALUES takes: Spark's wider type,
 * where a string next to any other non-null type makes the column a string
 * (comparisons cast the other way, which expr_common_type follows).
 */
static const col_type *union_type(arena *a, const col_type *x, const col_type *y)
{
    if ((x->id == COL_STRING && y->id != COL_NULL && !col_type_is_nested(y->id)) ||
        (y->id == COL_STRING && x->id != COL_NULL && !col_type_is_nested(x->id)))
        return col_type_primitive(COL_STRING);
    return expr_common_type(a, x, y);
}

/* ---------------------------------------------------------------- VALUES */

static silt_status plan_one_row(binder *b, plan *out, silt_error *err)
{
    col_batch *batch = arena_calloc(b->a, 1, sizeof(col_batch));
    col_batch **list = arena_calloc(b->a, 1, sizeof(col_batch *));
    if (batch == NULL || list == NULL)
        return err_nomem(err);
    batch->schema = col_type_struct(b->a, 0, NULL);
    if (batch->schema == NULL)
        return err_nomem(err);
    batch->n_rows = 1;
    list[0] = batch;
    out->scope.n = 0;
    out->scope.cols = NULL;
    return engine_op_values(&out->op, b->ctx, batch->schema, list, 1, err);
}

static silt_status plan_values(binder *b, const sql_query *q, plan *out, silt_error *err)
{
    size_t n_rows = q->u.values.n_rows, n_cols, row, col;
    bind_scope empty = {0, NULL};
    bind_ctx bc = {&empty, NULL, NULL, NULL};
    expr ***cells;
    col_batch one = {NULL, 1, 0, NULL};
    col_batch *batch, **list;
    col_field *fields;
    n_cols = n_rows > 0 ? q->u.values.rows[0].n : 0;
    cells = arena_calloc(b->a, n_rows ? n_rows : 1, sizeof(expr **));
    fields = arena_calloc(b->a, n_cols ? n_cols : 1, sizeof(col_field));
    batch = arena_calloc(b->a, 1, sizeof(col_batch));
    list = arena_calloc(b->a, 1, sizeof(col_batch *));
    if (cells == NULL || fields == NULL || batch == NULL || list == NULL)
        return err_nomem(err);
    one.schema = col_type_struct(b->a, 0, NULL);
    for (row = 0; row < n_rows; row++) {
        const sql_expr_list *r = &q->u.values.rows[row];
        if (r->n != n_cols)
            return sql_bind_error(b, err, r->n ? r->items[0]->pos : q->pos, SILT_BIND,
                              "[INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH] inline table "
                              "expects %zu columns but row %zu has %zu", n_cols, row + 1, r->n);
        cells[row] = arena_calloc(b->a, n_cols ? n_cols : 1, sizeof(expr *));
        if (cells[row] == NULL)
            return err_nomem(err);
        for (col = 0; col < n_cols; col++)
            SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, r->items[col], &cells[row][col], err));
    }
    batch->n_rows = (int64_t)n_rows;
    batch->n_cols = n_cols;
    batch->cols = arena_calloc(b->a, n_cols ? n_cols : 1, sizeof(col_vec *));
    if (batch->cols == NULL)
        return err_nomem(err);
    for (col = 0; col < n_cols; col++) {
        const col_type *t = cells[0][col]->type;
        vec_accum acc;
        for (row = 1; row < n_rows; row++) {
            const col_type *c = union_type(b->a, t, cells[row][col]->type);
            if (c == NULL)
                return sql_bind_error(b, err, q->u.values.rows[row].items[col]->pos, SILT_BIND,
                                  "[INVALID_INLINE_TABLE.INCOMPATIBLE_TYPES_IN_INLINE_TABLE] "
                                  "incompatible types in column col%zu", col + 1);
            t = c;
        }
        if (t->id == COL_NULL)
            t = col_type_primitive(COL_STRING);
        vec_accum_init(&acc, b->a, t);
        for (row = 0; row < n_rows; row++) {
            col_vec *v;
            SILT_RETURN_IF_ERROR(expr_coerce(&cells[row][col], b->a, t, err));
            SILT_RETURN_IF_ERROR(expr_eval(cells[row][col], b->ctx, &one, NULL, 1, b->a, &v,
                                           err));
            SILT_RETURN_IF_ERROR(vec_accum_add(&acc, v, NULL, 1, err));
        }
        SILT_RETURN_IF_ERROR(vec_accum_finish(&acc, &batch->cols[col], err));
        fields[col].name = arena_sprintf(b->a, "col%zu", col + 1);
        fields[col].type = t;
        fields[col].nullable = 1;
        fields[col].field_id = -1;
    }
    batch->schema = col_type_struct(b->a, n_cols, fields);
    if (batch->schema == NULL)
        return err_nomem(err);
    list[0] = batch;
    SILT_RETURN_IF_ERROR(engine_op_values(&out->op, b->ctx, batch->schema, list, 1, err));
    return sql_scope_from_schema(b->a, batch->schema, NULL, &out->scope, err);
}

/* ---------------------------------------------------------------- joins */

/* Binds e over scope without reporting failure (used to see which side a term names). */
static int try_bind(binder *b, const bind_scope *scope, const sql_expr *e, expr **out)
{
    bind_ctx bc = {scope, NULL, NULL, NULL};
    silt_error scratch = SILT_ERROR_INIT;
    if (sql_bind_has_agg(e) || sql_bind_has_window(e))
        return 0;
    return sql_bind_expr(b, &bc, e, out, &scratch) == SILT_OK;
}

/* An equality conjunct whose sides name the left and the right input (either order). */
static int equi_keys(binder *b, const sql_expr *c, const bind_scope *ls, const bind_scope *rs,
                     expr **lk, expr **rk)
{
    if (c->kind != SQL_EXPR_BINARY || c->u.op.op != SQL_OP_EQ)
        return 0;
    if (try_bind(b, ls, c->u.op.left, lk) && try_bind(b, rs, c->u.op.right, rk))
        return 1;
    if (try_bind(b, ls, c->u.op.right, lk) && try_bind(b, rs, c->u.op.left, rk))
        return 1;
    return 0;
}

static silt_status concat_scope(binder *b, const bind_scope *l, const bind_scope *r,
                                bind_scope *out, silt_error *err)
{
    out->n = l->n + r->n;
    out->cols = arena_calloc(b->a, out->n ? out->n : 1, sizeof(bind_col));
    if (out->cols == NULL)
        return err_nomem(err);
    if (l->n)
        memcpy(out->cols, l->cols, l->n * sizeof(bind_col));
    if (r->n)
        memcpy(out->cols + l->n, r->cols, r->n * sizeof(bind_col));
    return SILT_OK;
}

#define MAX_CONJUNCTS 256

/*
 * Joins two plans. conj are the conjuncts to join on (ON, or WHERE terms
 * for comma joins, where used[i] marks those taken as keys).
 */
static silt_status join_plans(binder *b, plan *left, plan *right, engine_join_type type,
                              const sql_expr **conj, size_t n_conj, int residual_ok,
                              plan *out, silt_error *err)
{
    expr **lkeys = arena_calloc(b->a, n_conj + 1, sizeof(expr *));
    expr **rkeys = arena_calloc(b->a, n_conj + 1, sizeof(expr *));
    expr *cond = NULL;
    size_t n_keys = 0, idx;
    bind_scope both;
    int semi = type == JOIN_LEFT_SEMI || type == JOIN_LEFT_ANTI;
    if (lkeys == NULL || rkeys == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(concat_scope(b, &left->scope, &right->scope, &both, err));
    for (idx = 0; idx < n_conj; idx++) {
        bind_ctx bc = {&both, NULL, NULL, NULL};
        expr *e;
        if (equi_keys(b, conj[idx], &left->scope, &right->scope, &lkeys[n_keys], &rkeys[n_keys])) {
            n_keys++;
            continue;
        }
        if (!residual_ok)
            continue;
        SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, conj[idx], &e, err));
        if (e->type->id != COL_BOOLEAN && e->type->id != COL_NULL)
            return sql_bind_error(b, err, conj[idx]->pos, SILT_BIND,
                              "[DATATYPE_MISMATCH] the join condition must be a boolean");
        if (cond == NULL)
            cond = e;
        else
            SILT_RETURN_IF_ERROR(expr_and(&cond, b->a, cond, e, err));
    }
    if (n_keys == 0 && cond == NULL && type == JOIN_INNER)
        type = JOIN_CROSS;
    if (type == JOIN_CROSS && (n_keys > 0 || cond != NULL))
        type = JOIN_INNER;
    SILT_RETURN_IF_ERROR(engine_op_hash_join(&out->op, b->ctx, left->op, right->op, type, lkeys,
                                             rkeys, n_keys, cond, err));
    if (n_keys > 0) {
        sql_bind_note(b, "HashJoin %s on %zu key%s%s", type == JOIN_INNER ? "inner" : "outer",
                  n_keys, n_keys == 1 ? "" : "s", cond ? " with a residual condition" : "");
        sql_bind_note_on(b, out->op);
    }
    out->scope = semi ? left->scope : both;
    return SILT_OK;
}

/*
 * Filters p by the conjuncts that name only its columns, so that a join
 * reads only the rows that can survive. Subqueries stay where they are
 * (they would run twice); the caller keeps applying every conjunct later.
 */
static silt_status filter_early(binder *b, plan *p, const sql_expr **conj, size_t n_conj,
                                silt_error *err)
{
    expr *pred = NULL;
    engine_op *op;
    size_t idx;
    for (idx = 0; idx < n_conj; idx++) {
        const sql_expr *c = conj[idx];
        expr *e;
        if (c->kind == SQL_EXPR_SUBQUERY || c->kind == SQL_EXPR_EXISTS ||
            c->kind == SQL_EXPR_IN_QUERY || !try_bind(b, &p->scope, c, &e) ||
            e->type->id != COL_BOOLEAN)
            continue;
        if (pred == NULL)
            pred = e;
        else
            SILT_RETURN_IF_ERROR(expr_and(&pred, b->a, pred, e, err));
    }
    if (pred == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(engine_op_filter(&op, b->ctx, p->op, pred, err));
    p->op = op;
    memset(&p->morsels, 0, sizeof(p->morsels));
    return SILT_OK;
}

/*
 * Which inputs a filter may reach before a join of type t without changing
 * its result: a WHERE term never below a side the join pads with NULLs; an
 * ON term only below a side whose unmatched rows the join drops.
 */
static void early_sides(engine_join_type t, int on, int *left, int *right)
{
    *left = *right = 0;
    switch (t) {
    case JOIN_INNER:
    case JOIN_CROSS: *left = *right = 1; break;
    case JOIN_LEFT: *left = !on; *right = on; break;
    case JOIN_RIGHT: *left = on; *right = !on; break;
    case JOIN_LEFT_SEMI: *left = 1; *right = on; break;
    case JOIN_LEFT_ANTI: *left = !on; *right = on; break;
    default: break;
    }
}

static engine_join_type join_type(sql_join_kind k)
{
    switch (k) {
    case SQL_JOIN_LEFT: return JOIN_LEFT;
    case SQL_JOIN_RIGHT: return JOIN_RIGHT;
    case SQL_JOIN_FULL: return JOIN_FULL;
    case SQL_JOIN_CROSS: return JOIN_CROSS;
    case SQL_JOIN_SEMI: return JOIN_LEFT_SEMI;
    case SQL_JOIN_ANTI: return JOIN_LEFT_ANTI;
    default: return JOIN_INNER;
    }
}

static int64_t find_col(const bind_scope *s, const char *name)
{
    size_t idx;
    for (idx = 0; idx < s->n; idx++)
        if (util_str_casecmp(s->cols[idx].name, name) == 0)
            return (int64_t)idx;
    return -1;
}

/* JOIN ... USING (cols) / NATURAL JOIN: keys on the named columns, each shown once first. */
static silt_status join_using(binder *b, const sql_table_ref *ref, plan *l, plan *r,
                              const sql_ident_list *cols, plan *out, silt_error *err)
{
    engine_join_type type = join_type(ref->u.join.join);
    size_t n = cols->n, idx, k = 0;
    expr **lk = arena_calloc(b->a, n + 1, sizeof(expr *));
    expr **rk = arena_calloc(b->a, n + 1, sizeof(expr *));
    int64_t *li = arena_calloc(b->a, n + 1, sizeof(int64_t));
    int64_t *ri = arena_calloc(b->a, n + 1, sizeof(int64_t));
    expr **proj;
    const char **names;
    size_t n_out;
    int semi = type == JOIN_LEFT_SEMI || type == JOIN_LEFT_ANTI;
    bind_scope both;
    if (lk == NULL || rk == NULL || li == NULL || ri == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        li[idx] = find_col(&l->scope, cols->items[idx].name);
        ri[idx] = find_col(&r->scope, cols->items[idx].name);
        if (li[idx] < 0 || ri[idx] < 0)
            return sql_bind_error(b, err, cols->items[idx].pos, SILT_BIND,
                              "[UNRESOLVED_USING_COLUMN_FOR_JOIN] USING column `%s` cannot be "
                              "resolved on the %s side of the join", cols->items[idx].name,
                              li[idx] < 0 ? "left" : "right");
        SILT_RETURN_IF_ERROR(expr_column(&lk[idx], b->a, li[idx], l->scope.cols[li[idx]].type, err));
        SILT_RETURN_IF_ERROR(expr_column(&rk[idx], b->a, ri[idx], r->scope.cols[ri[idx]].type, err));
    }
    if (type == JOIN_CROSS)
        type = JOIN_INNER;
    SILT_RETURN_IF_ERROR(concat_scope(b, &l->scope, &r->scope, &both, err));
    SILT_RETURN_IF_ERROR(engine_op_hash_join(&out->op, b->ctx, l->op, r->op, type, lk, rk, n,
                                             NULL, err));
    out->scope = semi ? l->scope : both;
    if (semi)
        return SILT_OK;
    n_out = both.n - n;
    proj = arena_calloc(b->a, n_out + 1, sizeof(expr *));
    names = arena_calloc(b->a, n_out + 1, sizeof(char *));
    if (proj == NULL || names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        expr *le, *re;
        int64_t rpos = (int64_t)l->scope.n + ri[idx];
        SILT_RETURN_IF_ERROR(expr_column(&le, b->a, li[idx], l->scope.cols[li[idx]].type, err));
        SILT_RETURN_IF_ERROR(expr_column(&re, b->a, rpos, r->scope.cols[ri[idx]].type, err));
        if (type == JOIN_RIGHT) {
            proj[k] = re;
        } else if (type == JOIN_FULL) {
            expr *args[2] = {le, re};
            SILT_RETURN_IF_ERROR(expr_coalesce(&proj[k], b->a, args, 2, err));
        } else {
            proj[k] = le;
        }
        names[k++] = l->scope.cols[li[idx]].name;
    }
    for (idx = 0; idx < both.n; idx++) {
        size_t u;
        int skip = 0;
        for (u = 0; u < n; u++)
            if ((int64_t)idx == li[u] || (int64_t)idx == (int64_t)l->scope.n + ri[u])
                skip = 1;
        if (skip)
            continue;
        SILT_RETURN_IF_ERROR(expr_column(&proj[k], b->a, (int64_t)idx, both.cols[idx].type, err));
        names[k++] = both.cols[idx].name;
    }
    SILT_RETURN_IF_ERROR(sql_plan_project(b, out, proj, names, k, err));
    /* Qualified names still reach both sides' columns. */
    for (idx = 0; idx < k; idx++)
        if (idx >= n)
            out->scope.cols[idx].qual = NULL;
    {
        size_t j = n;
        for (idx = 0; idx < both.n; idx++) {
            size_t u;
            int skip = 0;
            for (u = 0; u < n; u++)
                if ((int64_t)idx == li[u] || (int64_t)idx == (int64_t)l->scope.n + ri[u])
                    skip = 1;
            if (!skip)
                out->scope.cols[j++].qual = both.cols[idx].qual;
        }
    }
    return SILT_OK;
}

/* The name that qualifies a FROM item's columns: its alias, or a table's own name. */
static const char *ref_qual(const sql_table_ref *ref)
{
    if (ref->alias.name == NULL && ref->kind == SQL_TABLE_NAMED)
        return ref->u.named.name.parts[ref->u.named.name.n_parts - 1].name;
    return ref->alias.name;
}

static silt_status plan_join(binder *b, const sql_table_ref *ref, const pushdown *pd, plan *out,
                             silt_error *err)
{
    plan l, r;
    const sql_expr *conj[MAX_CONJUNCTS];
    size_t n_conj = 0;
    pushdown lpd, rpd;
    int where_l, where_r, on_l, on_r;
    memset(&lpd, 0, sizeof(lpd));
    lpd.all_cols = 1;
    if (pd != NULL && !pd->all_cols && !ref->u.join.natural) {
        lpd.all_cols = 0;
        lpd.n_cols = pd->n_cols;
        lpd.cols = pd->cols;
    }
    rpd = lpd;
    lpd.qual = ref_qual(ref->u.join.left);
    rpd.qual = ref_qual(ref->u.join.right);
    early_sides(join_type(ref->u.join.join), 0, &where_l, &where_r);
    if (pd != NULL && pd->n_where > 0) {
        lpd.n_where = where_l ? pd->n_where : 0;
        rpd.n_where = where_r ? pd->n_where : 0;
        lpd.where = rpd.where = pd->where;
        /*
         * The WHERE terms a side may apply early may also prune its files: a
         * term naming another table's columns does not match this source's
         * schema (or, unqualified and in both, is ambiguous and fails).
         */
        lpd.n = lpd.n_where;
        rpd.n = rpd.n_where;
        lpd.conj = rpd.conj = pd->where;
    }
    SILT_RETURN_IF_ERROR(sql_plan_table_ref(b, ref->u.join.left, &lpd, &l, err));
    SILT_RETURN_IF_ERROR(sql_plan_table_ref(b, ref->u.join.right, &rpd, &r, err));
    /* WHERE terms filter the inputs that are not joins themselves (those push further down). */
    if (ref->u.join.left->kind != SQL_TABLE_JOIN && lpd.n_where > 0)
        SILT_RETURN_IF_ERROR(filter_early(b, &l, lpd.where, lpd.n_where, err));
    if (ref->u.join.right->kind != SQL_TABLE_JOIN && rpd.n_where > 0)
        SILT_RETURN_IF_ERROR(filter_early(b, &r, rpd.where, rpd.n_where, err));
    if (ref->u.join.natural) {
        sql_ident_list common = {0, NULL};
        size_t idx;
        common.items = arena_calloc(b->a, l.scope.n + 1, sizeof(sql_ident));
        if (common.items == NULL)
            return err_nomem(err);
        for (idx = 0; idx < l.scope.n; idx++) {
            if (find_col(&r.scope, l.scope.cols[idx].name) >= 0) {
                common.items[common.n].name = l.scope.cols[idx].name;
                common.items[common.n++].pos = ref->pos;
            }
        }
        return join_using(b, ref, &l, &r, &common, out, err);
    }
    if (ref->u.join.using_cols.n > 0)
        return join_using(b, ref, &l, &r, &ref->u.join.using_cols, out, err);
    if (ref->u.join.on != NULL) {
        sql_split_and(ref->u.join.on, conj, &n_conj, MAX_CONJUNCTS);
        if (n_conj == MAX_CONJUNCTS)
            return sql_bind_error(b, err, ref->u.join.on->pos, SILT_UNSUPPORTED,
                              "a join condition of more than %d conjuncts is not supported",
                              MAX_CONJUNCTS - 1);
        early_sides(join_type(ref->u.join.join), 1, &on_l, &on_r);
        if (on_l)
            SILT_RETURN_IF_ERROR(filter_early(b, &l, conj, n_conj, err));
        if (on_r)
            SILT_RETURN_IF_ERROR(filter_early(b, &r, conj, n_conj, err));
    }
    return join_plans(b, &l, &r, join_type(ref->u.join.join), conj, n_conj, 1, out, err);
}

/* ---------------------------------------------------------------- FROM items */

static const sql_cte *find_cte(binder *b, const char *name)
{
    bind_cte *c;
    for (c = b->ctes; c != NULL; c = c->next)
        if (util_str_casecmp(c->cte->name, name) == 0)
            return c->cte;
    return NULL;
}

static silt_status plan_cte_ref(binder *b, const sql_cte *cte, const sql_table_ref *ref,
                                plan *out, silt_error *err)
{
    sql_alias alias = {ref->alias.name ? ref->alias.name : cte->name, cte->columns};
    bind_cte *saved = b->ctes;
    bind_cte *c;
    silt_status rc;
    /* A CTE sees the CTEs defined before it, not itself. */
    for (c = b->ctes; c != NULL && c->cte != cte; c = c->next)
        ;
    b->ctes = c != NULL ? c->next : NULL;
    rc = sql_plan_query(b, cte->query, out, err);
    b->ctes = saved;
    SILT_RETURN_IF_ERROR(rc);
    SILT_RETURN_IF_ERROR(apply_alias(b, out, &alias, ref->pos, err));
    if (ref->alias.columns.n > 0)
        SILT_RETURN_IF_ERROR(apply_alias(b, out, &ref->alias, ref->pos, err));
    return SILT_OK;
}

/* The scan at the bottom of op's first-child line (a source's own operator). */
static const engine_op *leaf_op(const engine_op *op)
{
    while (op != NULL && op->n_children > 0)
        op = op->children[0];
    return op;
}

silt_status sql_plan_table_ref(binder *b, const sql_table_ref *ref, const pushdown *pd, plan *out,
                           silt_error *err)
{
    scan_note *mark;
    memset(out, 0, sizeof(*out));
    if (ref->stream)
        /* Spark's words; the stream layer replaces the source before it binds a batch */
        return sql_bind_error(b, err, ref->pos, SILT_BIND, "Queries with streaming sources must "
                              "be executed with writeStream.start(): in silt, CREATE STREAMING "
                              "TABLE ... AS SELECT or `silt stream`");
    switch (ref->kind) {
    case SQL_TABLE_NAMED:
        if (ref->u.named.name.n_parts == 1 && !ref->u.named.name.is_path &&
            ref->u.named.at.version == NULL && ref->u.named.at.timestamp == NULL) {
            const sql_cte *cte = find_cte(b, ref->u.named.name.parts[0].name);
            if (cte != NULL)
                return plan_cte_ref(b, cte, ref, out, err);
        }
        mark = sql_bind_note_last(b);
        SILT_RETURN_IF_ERROR(sql_source_named(b, ref, pd, out, err));
        sql_bind_note_attach(b, mark, leaf_op(out->op), out->morsels.payload);
        /* Operators above the scan may then run on every worker (op_pipeline.c). */
        if (out->morsels.fn != NULL && out->morsels.top != NULL)
            engine_op_scan_set_morsels(out->morsels.top, out->morsels.fn, out->morsels.payload,
                                       out->morsels.n);
        return SILT_OK;
    case SQL_TABLE_SUBQUERY:
        SILT_RETURN_IF_ERROR(sql_plan_query(b, ref->u.subquery.query, out, err));
        return apply_alias(b, out, &ref->alias, ref->pos, err);
    case SQL_TABLE_JOIN: return plan_join(b, ref, pd, out, err);
    case SQL_TABLE_FUNC:
        mark = sql_bind_note_last(b);
        SILT_RETURN_IF_ERROR(sql_source_function(b, ref, pd, out, err));
        sql_bind_note_attach(b, mark, leaf_op(out->op), out->morsels.payload);
        return apply_alias(b, out, &ref->alias, ref->pos, err);
    default:
        return sql_bind_error(b, err, ref->pos, SILT_UNSUPPORTED,
                          "PIVOT and UNPIVOT are not supported yet");
    }
}

/*
 * The FROM clause: items joined left to right; equality conjuncts of WHERE
 * between an item and the ones before it become hash join keys.
 */
silt_status sql_plan_from(binder *b, const sql_select *sel, const sql_expr **conj, size_t n_conj,
                      const name_set *want, plan *out, silt_error *err)
{
    size_t idx;
    if (sel->n_from == 0)
        return plan_one_row(b, out, err);
    for (idx = 0; idx < sel->n_from; idx++) {
        const sql_table_ref *ref = sel->from[idx];
        pushdown pd;
        plan item;
        memset(&pd, 0, sizeof(pd));
        /*
         * Pruning conjuncts for every item: comma joins are inner joins, and
         * a conjunct about another item's columns does not match this one.
         */
        pd.n = n_conj;
        pd.conj = conj;
        pd.qual = ref_qual(ref);
        pd.all_cols = want == NULL || want->all;
        pd.n_cols = want ? want->n : 0;
        pd.cols = want ? want->names : NULL;
        pd.n_where = n_conj;
        pd.where = conj;
        SILT_RETURN_IF_ERROR(sql_plan_table_ref(b, ref, &pd, &item, err));
        /* Comma joins: the WHERE terms on one item filter it before the join. */
        if (sel->n_from > 1 && ref->kind != SQL_TABLE_JOIN)
            SILT_RETURN_IF_ERROR(filter_early(b, &item, conj, n_conj, err));
        if (idx == 0) {
            *out = item;
            continue;
        }
        SILT_RETURN_IF_ERROR(join_plans(b, out, &item, JOIN_INNER, conj, n_conj, 0, out, err));
    }
    return SILT_OK;
}

/* ---------------------------------------------------------------- set operations */

static silt_status coerce_plan(binder *b, plan *p, const col_type **types, silt_error *err)
{
    size_t idx;
    int same = 1;
    expr **exprs;
    const char **names;
    for (idx = 0; idx < p->scope.n; idx++)
        if (!col_type_equal(p->scope.cols[idx].type, types[idx]))
            same = 0;
    if (same)
        return SILT_OK;
    exprs = arena_calloc(b->a, p->scope.n, sizeof(expr *));
    names = arena_calloc(b->a, p->scope.n, sizeof(char *));
    if (exprs == NULL || names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < p->scope.n; idx++) {
        SILT_RETURN_IF_ERROR(expr_column(&exprs[idx], b->a, (int64_t)idx,
                                         p->scope.cols[idx].type, err));
        SILT_RETURN_IF_ERROR(expr_coerce(&exprs[idx], b->a, types[idx], err));
        names[idx] = p->scope.cols[idx].name;
    }
    return sql_plan_project(b, p, exprs, names, p->scope.n, err);
}

silt_status sql_plan_distinct(binder *b, plan *p, silt_error *err)
{
    size_t n = p->scope.n, idx;
    expr **keys = arena_calloc(b->a, n + 1, sizeof(expr *));
    const char **names = arena_calloc(b->a, n + 1, sizeof(char *));
    engine_op *op;
    if (keys == NULL || names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        SILT_RETURN_IF_ERROR(expr_column(&keys[idx], b->a, (int64_t)idx, p->scope.cols[idx].type,
                                         err));
        names[idx] = p->scope.cols[idx].name;
    }
    SILT_RETURN_IF_ERROR(engine_op_hash_agg(&op, b->ctx, p->op, keys, names, n, NULL, 0, NULL, 0,
                                            err));
    p->op = op;
    return SILT_OK;
}

/*
 * Join keys for column col of a set operation: `col IS NULL` and
 * `coalesce(col, fill)` with a constant fill of the type, so that two NULLs
 * match as Spark's INTERSECT and EXCEPT require (a hash join never matches
 * NULL keys). Types without a simple fill (nested, binary) keep the plain
 * column. Appends to keys at *n.
 */
static silt_status set_keys(binder *b, int64_t col, const col_type *type, expr **keys, size_t *n,
                            silt_error *err)
{
    expr *c, *fill = NULL, *args[2];
    SILT_RETURN_IF_ERROR(expr_column(&c, b->a, col, type, err));
    switch (type->id) {
    case COL_STRING: SILT_RETURN_IF_ERROR(expr_lit_string(&fill, b->a, "", 0, err)); break;
    case COL_BOOLEAN: SILT_RETURN_IF_ERROR(expr_lit_bool(&fill, b->a, 0, err)); break;
    case COL_BYTE:
    case COL_SHORT:
    case COL_INT:
    case COL_LONG:
    case COL_DATE:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: SILT_RETURN_IF_ERROR(expr_lit_int(&fill, b->a, type->id, 0, err)); break;
    case COL_FLOAT:
    case COL_DOUBLE: SILT_RETURN_IF_ERROR(expr_lit_double(&fill, b->a, type->id, 0, err)); break;
    case COL_DECIMAL:
        SILT_RETURN_IF_ERROR(expr_lit_decimal(&fill, b->a, type->precision, type->scale, 0, err));
        break;
    default: break;
    }
    if (fill == NULL) {
        keys[(*n)++] = c;
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(expr_is_null(&keys[*n], b->a, c, 0, err));
    args[0] = c;
    args[1] = fill;
    SILT_RETURN_IF_ERROR(expr_coalesce(&keys[*n + 1], b->a, args, 2, err));
    *n += 2;
    return SILT_OK;
}

/*
 * Numbers each row among its duplicates (row_number over a partition by
 * every column): with that number as one more key, INTERSECT ALL and
 * EXCEPT ALL are the semi and anti joins of sets, the k-th copy of a row
 * matching the k-th copy on the other side.
 */
static silt_status number_duplicates(binder *b, plan *p, silt_error *err)
{
    int64_t *parts = arena_calloc(b->a, p->scope.n + 1, sizeof(int64_t));
    bind_col *cols = arena_calloc(b->a, p->scope.n + 1, sizeof(bind_col));
    engine_window_fn fn;
    engine_op *op;
    size_t idx;
    if (parts == NULL || cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < p->scope.n; idx++)
        parts[idx] = (int64_t)idx;
    memset(&fn, 0, sizeof(fn));
    fn.kind = WIN_ROW_NUMBER;
    fn.name = "copy";
    SILT_RETURN_IF_ERROR(engine_op_window(&op, b->ctx, p->op, parts, p->scope.n, NULL, 0, &fn, 1,
                                          err));
    memcpy(cols, p->scope.cols, p->scope.n * sizeof(bind_col));
    cols[p->scope.n].name = "copy";
    cols[p->scope.n].type = col_type_primitive(COL_INT);
    p->op = op;
    p->scope.cols = cols;
    p->scope.n++;
    return SILT_OK;
}

static silt_status plan_setop(binder *b, const sql_query *q, plan *out, silt_error *err)
{
    plan l, r;
    const col_type **types;
    size_t idx;
    SILT_RETURN_IF_ERROR(sql_plan_query(b, q->u.setop.left, &l, err));
    SILT_RETURN_IF_ERROR(sql_plan_query(b, q->u.setop.right, &r, err));
    if (l.scope.n != r.scope.n)
        return sql_bind_error(b, err, q->u.setop.right->pos, SILT_BIND,
                          "[NUM_COLUMNS_MISMATCH] %s can only be performed on inputs with the "
                          "same number of columns, but the first input has %zu columns and the "
                          "second input has %zu columns",
                          q->u.setop.op == SQL_SETOP_UNION       ? "UNION"
                          : q->u.setop.op == SQL_SETOP_INTERSECT ? "INTERSECT"
                                                                 : "EXCEPT",
                          l.scope.n, r.scope.n);
    types = arena_calloc(b->a, l.scope.n + 1, sizeof(col_type *));
    if (types == NULL)
        return err_nomem(err);
    for (idx = 0; idx < l.scope.n; idx++) {
        types[idx] = union_type(b->a, l.scope.cols[idx].type, r.scope.cols[idx].type);
        if (types[idx] == NULL)
            return sql_bind_error(b, err, q->u.setop.right->pos, SILT_BIND,
                              "[INCOMPATIBLE_COLUMN_TYPE] column %zu of the set operation has "
                              "incompatible types", idx + 1);
        if (types[idx]->id == COL_NULL)
            types[idx] = col_type_primitive(COL_STRING);
    }
    SILT_RETURN_IF_ERROR(coerce_plan(b, &l, types, err));
    SILT_RETURN_IF_ERROR(coerce_plan(b, &r, types, err));
    if (q->u.setop.op == SQL_SETOP_UNION) {
        engine_op *kids[2] = {l.op, r.op};
        SILT_RETURN_IF_ERROR(engine_op_union_all(&out->op, b->ctx, kids, 2, err));
        out->scope = l.scope;
        if (!q->u.setop.all)
            SILT_RETURN_IF_ERROR(sql_plan_distinct(b, out, err));
        return SILT_OK;
    }
    if (q->u.setop.all) {
        SILT_RETURN_IF_ERROR(number_duplicates(b, &l, err));
        SILT_RETURN_IF_ERROR(number_duplicates(b, &r, err));
    } else {
        SILT_RETURN_IF_ERROR(sql_plan_distinct(b, &l, err));
    }
    {
        /* Two keys per column, (c IS NULL, coalesce(c, fill)), so that NULLs match NULLs. */
        size_t n_cols = l.scope.n;
        expr **lk = arena_calloc(b->a, 2 * n_cols + 1, sizeof(expr *));
        expr **rk = arena_calloc(b->a, 2 * n_cols + 1, sizeof(expr *));
        size_t n_keys = 0;
        if (lk == NULL || rk == NULL)
            return err_nomem(err);
        for (idx = 0; idx < n_cols; idx++) {
            size_t n_right = n_keys;
            const col_type *t = idx < l.scope.n - (q->u.setop.all ? 1 : 0) ? types[idx]
                                                                          : l.scope.cols[idx].type;
            SILT_RETURN_IF_ERROR(set_keys(b, (int64_t)idx, t, lk, &n_keys, err));
            SILT_RETURN_IF_ERROR(set_keys(b, (int64_t)idx, t, rk, &n_right, err));
        }
        SILT_RETURN_IF_ERROR(engine_op_hash_join(
            &out->op, b->ctx, l.op, r.op,
            q->u.setop.op == SQL_SETOP_INTERSECT ? JOIN_LEFT_SEMI : JOIN_LEFT_ANTI, lk, rk,
            n_keys, NULL, err));
    }
    out->scope = l.scope;
    if (q->u.setop.all) {
        /* Drop the copy number again. */
        size_t n = out->scope.n - 1;
        expr **cols = arena_calloc(b->a, n + 1, sizeof(expr *));
        const char **names = arena_calloc(b->a, n + 1, sizeof(char *));
        if (cols == NULL || names == NULL)
            return err_nomem(err);
        for (idx = 0; idx < n; idx++) {
            SILT_RETURN_IF_ERROR(expr_column(&cols[idx], b->a, (int64_t)idx, types[idx], err));
            names[idx] = out->scope.cols[idx].name;
        }
        SILT_RETURN_IF_ERROR(sql_plan_project(b, out, cols, names, n, err));
    }
    return SILT_OK;
}

/* ---------------------------------------------------------------- queries */


silt_status sql_plan_query(binder *b, const sql_query *q, plan *out, silt_error *err)
{
    bind_cte *saved = b->ctes;
    silt_status rc = SILT_OK;
    size_t idx;
    memset(out, 0, sizeof(*out));
    if (++b->depth > SQL_BIND_MAX_DEPTH) {
        b->depth--;
        return sql_bind_error(b, err, q->pos, SILT_BIND, "query nested too deeply");
    }
    for (idx = 0; idx < q->n_ctes && rc == SILT_OK; idx++) {
        bind_cte *c = arena_calloc(b->a, 1, sizeof(*c));
        if (c == NULL) {
            rc = err_nomem(err);
            break;
        }
        c->cte = &q->ctes[idx];
        c->next = b->ctes;
        b->ctes = c;
    }
    if (rc == SILT_OK) {
        switch (q->kind) {
        case SQL_QUERY_SELECT: rc = sql_plan_select(b, q, out, err); break;
        case SQL_QUERY_SETOP: rc = plan_setop(b, q, out, err); break;
        case SQL_QUERY_VALUES: rc = plan_values(b, q, out, err); break;
        case SQL_QUERY_NESTED: rc = sql_plan_query(b, q->u.nested, out, err); break;
        case SQL_QUERY_TABLE: {
            sql_table_ref ref;
            memset(&ref, 0, sizeof(ref));
            ref.kind = SQL_TABLE_NAMED;
            ref.pos = q->pos;
            ref.u.named.name = q->u.table;
            rc = sql_plan_table_ref(b, &ref, NULL, out, err);
            break;
        }
        }
        if (rc == SILT_OK && q->kind != SQL_QUERY_SELECT)
            rc = sql_plan_order_limit(b, q, out, err);
    }
    b->ctes = saved;
    b->depth--;
    return rc;
}
