/*
 * plan_logical.c - the logical plan (plan.h): binding a query into the
 * tree, the optimizer passes over it, and its lowering into engine
 * operators for one execution.
 *
 * Binding reads a table's schema and nothing else; which snapshot, which
 * files (partition and statistics pruning), which scan units and which
 * parallel operators are decided when the tree is lowered, so a kept tree
 * lowered again sees the table as it is then. The lowering builds exactly
 * the operators (and EXPLAIN notes) the direct planner of plan_select.c
 * builds for the same query, through the same functions.
 */
#include <string.h>

#include "sql/plan.h"

#define LP_MAX_CONJ 256

/* ---------------------------------------------------------------- shape */

static int items_covered(const sql_select *sel)
{
    size_t idx;
    for (idx = 0; idx < sel->n_items; idx++) {
        const sql_expr *e = sel->items[idx].expr;
        if (e->kind == SQL_EXPR_STAR) {
            if (e->u.column.n_parts > 0) /* t.*: the direct planner */
                return 0;
            continue;
        }
        if (sql_bind_has_agg(e) || sql_bind_has_window(e) || sql_bind_has_subquery(e))
            return 0;
    }
    return 1;
}

/* The queries the logical plan covers so far (plan.h); the rest take plan_select.c. */
static int covered(const sql_query *q)
{
    const sql_select *sel = &q->u.select;
    const sql_table_ref *ref;
    size_t idx;
    if (q->kind != SQL_QUERY_SELECT || q->n_ctes > 0 || q->sort_by.n > 0 ||
        q->distribute_by.n > 0 || q->cluster_by.n > 0)
        return 0;
    for (idx = 0; idx < q->order_by.n; idx++) {
        const sql_expr *e = q->order_by.items[idx].expr;
        if (sql_bind_has_agg(e) || sql_bind_has_window(e) || sql_bind_has_subquery(e))
            return 0;
    }
    if (sel->distinct || sel->n_from != 1 || sel->group_all || sel->n_group > 0 ||
        sel->having != NULL || sel->n_windows > 0 || sel->qualify != NULL ||
        sel->n_lateral_views > 0)
        return 0;
    ref = sel->from[0];
    if (ref->kind != SQL_TABLE_NAMED || ref->sample != NULL || ref->alias.columns.n > 0)
        return 0;
    if (sel->where != NULL && (sql_bind_has_agg(sel->where) || sql_bind_has_window(sel->where) ||
                               sql_bind_has_subquery(sel->where)))
        return 0;
    return items_covered(sel);
}

/* ---------------------------------------------------------------- binding */

static lp_node *new_node(binder *b, lp_kind kind, const lp_node *child)
{
    lp_node *n = arena_calloc(b->a, 1, sizeof(*n));
    if (n != NULL) {
        n->kind = kind;
        n->child = child;
    }
    return n;
}

/*
 * The columns of schema named cols (all when cols is NULL), in schema
 * order, copied into the plan's arena with their names (cols too): the
 * snapshot they come from belongs to one execution, the plan may be kept.
 */
static silt_status projected_schema(binder *b, const col_type *schema, const char **cols,
                                    size_t n_cols, const col_type **out, silt_error *err)
{
    col_field *fields = arena_calloc(b->a, schema->n_fields + 1, sizeof(col_field));
    size_t idx, k, n = 0;
    if (fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < schema->n_fields; idx++)
        for (k = 0; k < (cols != NULL ? n_cols : 1); k++)
            if (cols == NULL || schema->fields[idx].name == cols[k]) {
                fields[n++] = schema->fields[idx];
                break;
            }
    *out = col_type_struct(b->a, n, fields);
    if (*out == NULL || (*out = col_type_copy(b->a, *out)) == NULL)
        return err_nomem(err);
    for (k = 0; cols != NULL && k < n_cols; k++)
        cols[k] = (*out)->fields[k].name;
    return SILT_OK;
}

static silt_status bind_scan(binder *b, const sql_query *q, const lp_node **out,
                             silt_error *err)
{
    const sql_select *sel = &q->u.select;
    const sql_table_ref *ref = sel->from[0];
    const col_type *schema, *read;
    name_set want;
    pushdown pd;
    lp_node *n;
    size_t idx;
    *out = NULL;
    if (b->want_file_name)
        return SILT_OK; /* the hidden file name column: the direct planner */
    n = new_node(b, LP_SCAN, NULL);
    if (n == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(sql_source_delta_schema(b, ref, &schema, &n->u.scan.path,
                                                 &n->u.scan.version, &n->u.scan.qual, err));
    if (schema == NULL)
        return SILT_OK; /* not a Delta table: the direct planner */
    /* Projection: the columns the block names (a star: all of them). */
    memset(&want, 0, sizeof(want));
    for (idx = 0; idx < sel->n_items; idx++)
        SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, sel->items[idx].expr, &want, err));
    SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, sel->where, &want, err));
    for (idx = 0; idx < q->order_by.n; idx++)
        SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, q->order_by.items[idx].expr, &want, err));
    memset(&pd, 0, sizeof(pd));
    pd.all_cols = want.all;
    pd.n_cols = want.n;
    pd.cols = want.names;
    n->u.scan.ref = ref;
    n->u.scan.cols = sql_source_projected(b, &pd, schema, &n->u.scan.n_cols);
    SILT_RETURN_IF_ERROR(projected_schema(b, schema, n->u.scan.cols, n->u.scan.n_cols, &read,
                                          err));
    SILT_RETURN_IF_ERROR(sql_scope_from_schema(b->a, read, n->u.scan.qual, &n->scope, err));
    *out = n;
    return SILT_OK;
}

static silt_status bind_filter(binder *b, const sql_select *sel, const lp_node **node,
                               silt_error *err)
{
    lp_node *n = new_node(b, LP_FILTER, *node);
    const sql_expr **conj = arena_calloc(b->a, LP_MAX_CONJ, sizeof(sql_expr *));
    size_t n_conj = 0;
    if (n == NULL || conj == NULL)
        return err_nomem(err);
    sql_split_and(sel->where, conj, &n_conj, LP_MAX_CONJ);
    if (n_conj == LP_MAX_CONJ)
        n_conj = 0; /* too many to offer: the filter still applies them all */
    n->u.filter.bound = arena_calloc(b->a, n_conj + 1, sizeof(expr *));
    if (n->u.filter.bound == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(sql_plan_bind_where(b, &(*node)->scope, sel->where, conj, n_conj, NULL,
                                             &n->u.filter.pred, n->u.filter.bound, err));
    if (n->u.filter.pred == NULL)
        return SILT_OK; /* nothing to filter */
    n->u.filter.n_conj = n_conj;
    n->u.filter.conj = conj;
    n->scope = (*node)->scope;
    *node = n;
    return SILT_OK;
}

static silt_status project_scope(binder *b, lp_node *n, silt_error *err)
{
    const bind_scope *in = &n->child->scope;
    size_t idx;
    n->scope.n = n->u.project.n;
    n->scope.cols = arena_calloc(b->a, n->scope.n + 1, sizeof(bind_col));
    if (n->scope.cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n->scope.n; idx++) {
        const expr *e = n->u.project.exprs[idx];
        n->scope.cols[idx].name = n->u.project.names[idx];
        n->scope.cols[idx].type = e->type;
        if (e->kind == EXPR_COLUMN && e->col_idx < (int64_t)in->n)
            n->scope.cols[idx].qual = in->cols[e->col_idx].qual;
    }
    return SILT_OK;
}

static silt_status bind_project(binder *b, const sql_select *sel, const lp_node **node,
                                silt_error *err)
{
    const bind_scope *in = &(*node)->scope;
    bind_ctx bc = {in, NULL, NULL, NULL};
    lp_node *n = new_node(b, LP_PROJECT, *node);
    size_t cap = sel->n_items * (in->n + 1) + 1, idx, col;
    if (n == NULL)
        return err_nomem(err);
    n->u.project.exprs = arena_calloc(b->a, cap, sizeof(expr *));
    n->u.project.names = arena_calloc(b->a, cap, sizeof(char *));
    n->u.project.texts = arena_calloc(b->a, cap, sizeof(char *));
    if (n->u.project.exprs == NULL || n->u.project.names == NULL || n->u.project.texts == NULL)
        return err_nomem(err);
    for (idx = 0; idx < sel->n_items; idx++) {
        const sql_select_item *it = &sel->items[idx];
        size_t k = n->u.project.n;
        if (it->expr->kind != SQL_EXPR_STAR) {
            SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, it->expr, &n->u.project.exprs[k], err));
            n->u.project.texts[k] = sql_bind_expr_text(b, it->expr);
            n->u.project.names[n->u.project.n++] = sql_plan_item_name(b, it);
            continue;
        }
        for (col = 0; col < in->n; col++) {
            if (in->cols[col].hidden)
                continue;
            SILT_RETURN_IF_ERROR(expr_column(&n->u.project.exprs[n->u.project.n], b->a,
                                             (int64_t)col, in->cols[col].type, err));
            n->u.project.names[n->u.project.n++] = in->cols[col].name;
        }
    }
    SILT_RETURN_IF_ERROR(project_scope(b, n, err));
    *node = n;
    return SILT_OK;
}

/*
 * ORDER BY over the select items (ordinals, their names, their
 * expressions), with LIMIT/OFFSET; *covered 0 when an item sorts by
 * anything else (a hidden key: the direct planner).
 */
static silt_status bind_sort(binder *b, const sql_query *q, const lp_node **node, int *covered,
                             silt_error *err)
{
    const lp_node *proj = *node;
    lp_node *n = new_node(b, LP_SORT, proj);
    size_t idx;
    if (n == NULL)
        return err_nomem(err);
    n->u.sort.keys = arena_calloc(b->a, q->order_by.n + 1, sizeof(engine_sort_key));
    if (n->u.sort.keys == NULL)
        return err_nomem(err);
    for (idx = 0; idx < q->order_by.n; idx++) {
        const sql_order_item *it = &q->order_by.items[idx];
        int64_t col = sql_plan_order_output_col(b, it->expr, proj->u.project.n,
                                                proj->u.project.names, proj->u.project.texts);
        if (col < 0) {
            *covered = 0;
            return SILT_OK;
        }
        n->u.sort.keys[idx] = engine_sort_key_default(col, it->desc);
        if (it->nulls != 0)
            n->u.sort.keys[idx].nulls_first = it->nulls == 1;
    }
    n->u.sort.n_keys = q->order_by.n;
    SILT_RETURN_IF_ERROR(sql_plan_limit_values(b, q, &n->u.sort.limit, &n->u.sort.offset, err));
    n->scope = proj->scope;
    *node = n;
    return SILT_OK;
}

static silt_status bind_limit(binder *b, const sql_query *q, const lp_node **node, silt_error *err)
{
    lp_node *n;
    int64_t limit, offset;
    SILT_RETURN_IF_ERROR(sql_plan_limit_values(b, q, &limit, &offset, err));
    if (limit < 0 && offset <= 0)
        return SILT_OK;
    n = new_node(b, LP_LIMIT, *node);
    if (n == NULL)
        return err_nomem(err);
    n->u.limit.limit = limit;
    n->u.limit.offset = offset;
    n->scope = (*node)->scope;
    *node = n;
    return SILT_OK;
}

silt_status sql_lplan_bind(binder *b, const sql_query *q, const lp_node **out, silt_error *err)
{
    const sql_select *sel = &q->u.select;
    const lp_node *node;
    int ok = 1;
    *out = NULL;
    if (!covered(q))
        return SILT_OK;
    SILT_RETURN_IF_ERROR(bind_scan(b, q, &node, err));
    if (node == NULL)
        return SILT_OK;
    if (sel->where != NULL)
        SILT_RETURN_IF_ERROR(bind_filter(b, sel, &node, err));
    SILT_RETURN_IF_ERROR(bind_project(b, sel, &node, err));
    if (q->order_by.n > 0)
        SILT_RETURN_IF_ERROR(bind_sort(b, q, &node, &ok, err));
    else
        SILT_RETURN_IF_ERROR(bind_limit(b, q, &node, err));
    *out = ok ? node : NULL;
    return SILT_OK;
}

/* ---------------------------------------------------------------- passes */

/*
 * Predicate pushdown: a filter right above a scan offers its conjuncts to
 * the scan, which turns those of the form `column op literal` into file,
 * row-group and page pruning when it is lowered (with the schema of the
 * snapshot it then reads). The filter stays: pruning only skips data.
 */
static silt_status push_filters(binder *b, const lp_node *n, const lp_node **out,
                                silt_error *err)
{
    lp_node *copy;
    const lp_node *child = NULL;
    if (n->child != NULL)
        SILT_RETURN_IF_ERROR(push_filters(b, n->child, &child, err));
    copy = arena_alloc(b->a, sizeof(*copy));
    if (copy == NULL)
        return err_nomem(err);
    *copy = *n;
    copy->child = child;
    if (n->kind == LP_FILTER && child != NULL && child->kind == LP_SCAN) {
        lp_node *scan = arena_alloc(b->a, sizeof(*scan));
        if (scan == NULL)
            return err_nomem(err);
        *scan = *child;
        scan->u.scan.n_conj = n->u.filter.n_conj;
        scan->u.scan.conj = n->u.filter.conj;
        scan->u.scan.bound = n->u.filter.bound;
        copy->child = scan;
    }
    *out = copy;
    return SILT_OK;
}

silt_status sql_lplan_optimize(binder *b, const lp_node *root, const lp_node **out,
                               silt_error *err)
{
    return push_filters(b, root, out, err);
}

/* ---------------------------------------------------------------- lowering */

/* 1 when the lowered scan's columns are the ones the plan was bound over. */
static int same_scope(const bind_scope *bound, const bind_scope *now)
{
    size_t idx;
    if (bound->n != now->n)
        return 0;
    for (idx = 0; idx < bound->n; idx++)
        if (util_str_casecmp(bound->cols[idx].name, now->cols[idx].name) != 0 ||
            !col_type_equal(bound->cols[idx].type, now->cols[idx].type))
            return 0;
    return 1;
}

static silt_status lower_scan(binder *b, const lp_node *n, plan *p, int *stale, silt_error *err)
{
    const lp_scan *sc = &n->u.scan;
    const sql_name *name = &sc->ref->u.named.name;
    pushdown pd;
    memset(&pd, 0, sizeof(pd));
    pd.n = sc->n_conj;
    pd.conj = sc->conj;
    pd.n_where = sc->n_conj;
    pd.where = sc->conj;
    pd.qual = sc->ref->alias.name != NULL ? sc->ref->alias.name
                                          : name->parts[name->n_parts - 1].name;
    pd.all_cols = sc->cols == NULL;
    pd.n_cols = sc->n_cols;
    pd.cols = sc->cols;
    SILT_RETURN_IF_ERROR(sql_plan_table_ref(b, sc->ref, &pd, p, err));
    *stale = !same_scope(&n->scope, &p->scope);
    return SILT_OK;
}

static silt_status lower_filter(binder *b, const lp_node *n, plan *p, silt_error *err)
{
    engine_op *op;
    if (p->morsels.top == p->op)
        p->morsels.top = NULL; /* a bare scan: a parallel aggregate can filter in its workers */
    SILT_RETURN_IF_ERROR(engine_op_filter(&op, b->ctx, p->op, n->u.filter.pred, err));
    if (p->morsels.fn != NULL && p->morsels.top == NULL) {
        p->morsels.top = op;
        p->morsels.filter = n->u.filter.pred;
    }
    p->op = op;
    return SILT_OK;
}

static silt_status lower(binder *b, const lp_node *n, plan *p, int *stale, silt_error *err)
{
    engine_op *op;
    if (n->kind == LP_SCAN)
        return lower_scan(b, n, p, stale, err);
    SILT_RETURN_IF_ERROR(lower(b, n->child, p, stale, err));
    if (*stale)
        return SILT_OK;
    switch (n->kind) {
    case LP_FILTER: return lower_filter(b, n, p, err);
    case LP_PROJECT:
        return sql_plan_project(b, p, n->u.project.exprs, n->u.project.names, n->u.project.n,
                                err);
    case LP_LIMIT:
        SILT_RETURN_IF_ERROR(engine_op_limit(&op, b->ctx, p->op, n->u.limit.limit,
                                             n->u.limit.offset, err));
        p->op = op;
        return SILT_OK;
    case LP_SORT:
        return sql_plan_sort_limit(b, p, n->u.sort.keys, n->u.sort.n_keys, n->u.sort.limit,
                                   n->u.sort.offset, err);
    case LP_SCAN: break;
    }
    return SILT_OK;
}

silt_status sql_lplan_lower(binder *b, const lp_node *root, plan *out, int *stale,
                            silt_error *err)
{
    memset(out, 0, sizeof(*out));
    *stale = 0;
    SILT_RETURN_IF_ERROR(lower(b, root, out, stale, err));
    if (*stale)
        memset(out, 0, sizeof(*out));
    return SILT_OK;
}

/* ---------------------------------------------------------------- statements */

/* Binds and optimizes q into the arena of keep (NULL: the statement's), *out NULL when not covered. */
static silt_status bind_tree(binder *b, const sql_query *q, sql_plan_keep *keep,
                             const lp_node **out, silt_error *err)
{
    arena *saved = b->a;
    const lp_node *bound = NULL;
    silt_status rc;
    *out = NULL;
    if (keep != NULL) {
        b->exec_a = b->a; /* snapshots belong to the execution, the tree to the statement */
        b->a = keep->a;
    }
    rc = sql_lplan_bind(b, q, &bound, err);
    if (rc == SILT_OK && bound != NULL)
        rc = sql_lplan_optimize(b, bound, out, err);
    b->a = saved;
    b->exec_a = NULL;
    if (rc == SILT_OK && keep != NULL) {
        keep->root = *out;
        keep->bound = 1;
        keep->settings_gen = b->s->settings_gen;
    }
    return rc;
}

silt_status sql_plan_statement_logical(binder *b, const sql_query *q, plan *out,
                                       const lp_node **logical, silt_error *err)
{
    sql_plan_keep *keep = b->s->keep;
    const lp_node *root;
    scan_note *mark;
    int stale = 0, again;
    *logical = NULL;
    for (again = 0; again < 2; again++) {
        if (keep != NULL && keep->bound && keep->settings_gen == b->s->settings_gen)
            root = keep->root;
        else
            SILT_RETURN_IF_ERROR(bind_tree(b, q, keep, &root, err));
        if (root == NULL)
            return sql_plan_statement_query(b, q, out, err);
        mark = sql_bind_note_last(b);
        SILT_RETURN_IF_ERROR(sql_lplan_lower(b, root, out, &stale, err));
        if (!stale) {
            *logical = root;
            return sql_plan_subqueries_attach(b, out, err);
        }
        /* A table's columns changed since the kept tree was bound: bind it again. */
        if (mark != NULL)
            mark->next = NULL; /* the notes of the lowering given up */
        else
            b->notes = NULL;
        if (keep == NULL)
            break;
        keep->bound = 0;
    }
    return err_set(err, SILT_CONFLICT, "the columns of a table changed while the query was "
                   "planned; run it again");
}
