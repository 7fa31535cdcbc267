/*
 * plan_select.c - one SELECT block to operators, in Spark's order of
 * evaluation:
 *
 *   FROM (joins) -> WHERE -> GROUP BY / aggregates -> HAVING -> windows ->
 *   SELECT list (+ hidden ORDER BY keys) -> DISTINCT -> ORDER BY / LIMIT /
 *   OFFSET (top-N when both) -> drop hidden keys.
 *
 * Inside an aggregation, expressions are bound over the aggregate's output
 * (keys, then aggregates, then spark_grouping_id): a select item that
 * matches a GROUP BY key (by its text or, for a column, by the column it
 * names) reads the key, an aggregate call becomes a new aggregate. ORDER
 * BY takes select aliases and ordinals first, then the select list's
 * expressions, then anything else as a hidden column.
 */
#include <stdint.h>
#include <string.h>

#include "sql/binder_int.h"
#include "sql/prepared.h"


#define MAX_CONJ 256
#define MAX_KEYS 64

typedef struct sel_item {
    const sql_expr *ast; /* NULL for a column of a star */
    int64_t star_col;    /* input column of a star item */
    const char *name;
    const char *text;
} sel_item;

typedef struct sel_state {
    sel_item *items;
    size_t n_items;
    expr **exprs;        /* select items then hidden ORDER BY keys */
    const char **names;
    size_t n_exprs;
    engine_sort_key *keys;
    size_t n_keys;
} sel_state;

const char *sql_plan_item_name(binder *b, const sql_select_item *it)
{
    if (it->alias != NULL)
        return it->alias;
    if (it->expr->kind == SQL_EXPR_COLUMN)
        return it->expr->u.column.parts[it->expr->u.column.n_parts - 1].name;
    return sql_bind_column_name(b, it->expr);
}

/* Expands stars into one item per column. */
static silt_status expand_items(binder *b, const sql_select *sel, const bind_scope *scope,
                                sel_state *st, silt_error *err)
{
    size_t cap = sel->n_items + scope->n * sel->n_items + 1, idx, col;
    st->items = arena_calloc(b->a, cap, sizeof(sel_item));
    if (st->items == NULL)
        return err_nomem(err);
    for (idx = 0; idx < sel->n_items; idx++) {
        const sql_select_item *it = &sel->items[idx];
        if (it->expr->kind == SQL_EXPR_STAR) {
            const sql_name *q = &it->expr->u.column;
            size_t before = st->n_items;
            for (col = 0; col < scope->n; col++) {
                if (scope->cols[col].hidden)
                    continue;
                if (q->n_parts > 0 &&
                    (scope->cols[col].qual == NULL ||
                     util_str_casecmp(scope->cols[col].qual, q->parts[q->n_parts - 1].name) != 0))
                    continue;
                st->items[st->n_items].star_col = (int64_t)col;
                st->items[st->n_items++].name = scope->cols[col].name;
            }
            if (q->n_parts > 0 && st->n_items == before)
                return sql_bind_error(b, err, it->expr->pos, SILT_BIND,
                                  "[CANNOT_RESOLVE_STAR_EXPAND] Cannot resolve `%s`.* given "
                                  "input columns", q->parts[q->n_parts - 1].name);
            continue;
        }
        st->items[st->n_items].ast = it->expr;
        st->items[st->n_items].star_col = -1;
        st->items[st->n_items].text = sql_bind_expr_text(b, it->expr);
        st->items[st->n_items].name = sql_plan_item_name(b, it);
        st->n_items++;
    }
    return SILT_OK;
}

/* A GROUP BY entry: an ordinal or a select alias stands for the select item. */
static const sql_expr *group_target(binder *b, const sql_expr *e, const sel_state *st,
                                    const bind_scope *input, silt_error *err, int *bad)
{
    *bad = 0;
    if (e->kind == SQL_EXPR_LITERAL && e->u.lit.kind == SQL_LIT_INT) {
        int64_t ord = e->u.lit.i64;
        if (ord < 1 || ord > (int64_t)st->n_items || st->items[ord - 1].ast == NULL) {
            *bad = 1;
            sql_bind_error(b, err, e->pos, SILT_BIND,
                       "[GROUP_BY_POS_OUT_OF_RANGE] GROUP BY position %lld is not in select "
                       "list (valid range is [1, %zu])", (long long)ord, st->n_items);
            return NULL;
        }
        return st->items[ord - 1].ast;
    }
    if (e->kind == SQL_EXPR_COLUMN && e->u.column.n_parts == 1) {
        size_t idx;
        int in_input = 0;
        for (idx = 0; idx < input->n; idx++)
            if (util_str_casecmp(input->cols[idx].name, e->u.column.parts[0].name) == 0)
                in_input = 1;
        if (!in_input)
            for (idx = 0; idx < st->n_items; idx++)
                if (st->items[idx].ast != NULL &&
                    util_str_casecmp(st->items[idx].name, e->u.column.parts[0].name) == 0)
                    return st->items[idx].ast;
    }
    return e;
}

static silt_status add_key(binder *b, agg_state *ag, const sql_expr *ast, silt_error *err)
{
    bind_ctx bc = {ag->input, NULL, NULL, NULL};
    agg_key *k;
    const char *text = sql_bind_expr_text(b, ast);
    size_t idx;
    for (idx = 0; idx < ag->n_keys; idx++)
        if (strcmp(ag->keys[idx].text, text) == 0)
            return SILT_OK;
    if (ag->n_keys == MAX_KEYS)
        return sql_bind_error(b, err, ast->pos, SILT_UNSUPPORTED, "more than %d GROUP BY keys",
                          MAX_KEYS);
    if (sql_bind_has_agg(ast))
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "[GROUP_BY_AGGREGATE] Aggregate functions are not allowed in GROUP BY");
    k = &ag->keys[ag->n_keys];
    k->ast = ast;
    k->text = text;
    SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, ast, &k->e, err));
    k->input_col = k->e->kind == EXPR_COLUMN ? k->e->col_idx : -1;
    ag->n_keys++;
    return SILT_OK;
}

static size_t key_index(binder *b, const agg_state *ag, const sql_expr *ast)
{
    const char *text = sql_bind_expr_text(b, ast);
    size_t idx;
    for (idx = 0; idx < ag->n_keys; idx++)
        if (strcmp(ag->keys[idx].text, text) == 0)
            return idx;
    return 0;
}

/* GROUP BY items to keys, and grouping sets as bit masks (n_sets 0 = plain GROUP BY). */
static silt_status build_keys(binder *b, const sql_select *sel, const sel_state *st,
                              agg_state *ag, uint64_t **sets_out, size_t *n_sets_out,
                              silt_error *err)
{
    size_t g, s, e;
    int bad, has_sets = 0;
    uint64_t base = 0;
    ag->keys = arena_calloc(b->a, MAX_KEYS, sizeof(agg_key));
    if (ag->keys == NULL)
        return err_nomem(err);
    *sets_out = NULL;
    *n_sets_out = 0;
    if (sel->group_all) {
        for (g = 0; g < st->n_items; g++)
            if (st->items[g].ast != NULL && !sql_bind_has_agg(st->items[g].ast))
                SILT_RETURN_IF_ERROR(add_key(b, ag, st->items[g].ast, err));
        return SILT_OK;
    }
    for (g = 0; g < sel->n_group; g++) {
        const sql_group_item *gi = &sel->group[g];
        if (gi->kind == SQL_GROUP_EXPR) {
            const sql_expr *t = group_target(b, gi->expr, st, ag->input, err, &bad);
            if (bad)
                return SILT_BIND;
            SILT_RETURN_IF_ERROR(add_key(b, ag, t, err));
            continue;
        }
        has_sets = 1;
        for (s = 0; s < gi->n_sets; s++)
            for (e = 0; e < gi->sets[s].n; e++) {
                const sql_expr *t = group_target(b, gi->sets[s].items[e], st, ag->input, err, &bad);
                if (bad)
                    return SILT_BIND;
                SILT_RETURN_IF_ERROR(add_key(b, ag, t, err));
            }
    }
    if (!has_sets)
        return SILT_OK;
    /* Plain keys are in every set; one ROLLUP/CUBE/GROUPING SETS item gives the sets. */
    {
        const sql_group_item *multi = NULL;
        uint64_t *sets;
        size_t n_sets = 0, n_elems;
        for (g = 0; g < sel->n_group; g++) {
            const sql_group_item *gi = &sel->group[g];
            if (gi->kind == SQL_GROUP_EXPR) {
                int bad2;
                const sql_expr *t = group_target(b, gi->expr, st, ag->input, err, &bad2);
                base |= (uint64_t)1 << key_index(b, ag, t);
            } else if (multi != NULL) {
                return sql_bind_error(b, err, sel->group[g].sets ? sel->group[g].sets[0].items[0]->pos
                                                             : 0,
                                  SILT_UNSUPPORTED,
                                  "only one ROLLUP, CUBE or GROUPING SETS per GROUP BY is "
                                  "supported");
            } else {
                multi = gi;
            }
        }
        n_elems = multi->n_sets;
        if (n_elems > 16)
            return sql_bind_error(b, err, 0, SILT_UNSUPPORTED, "too many grouping sets");
        sets = arena_calloc(b->a, ((size_t)1 << n_elems) + n_elems + 2, sizeof(uint64_t));
        if (sets == NULL)
            return err_nomem(err);
        if (multi->kind == SQL_GROUP_GROUPING_SETS) {
            for (s = 0; s < n_elems; s++) {
                uint64_t m = base;
                for (e = 0; e < multi->sets[s].n; e++) {
                    int bad2;
                    const sql_expr *t = group_target(b, multi->sets[s].items[e], st, ag->input,
                                                     err, &bad2);
                    m |= (uint64_t)1 << key_index(b, ag, t);
                }
                sets[n_sets++] = m;
            }
        } else {
            /* Element masks, then ROLLUP prefixes or CUBE subsets of them. */
            uint64_t elem[17];
            size_t sub;
            for (s = 0; s < n_elems; s++) {
                int bad2;
                elem[s] = 0;
                for (e = 0; e < multi->sets[s].n; e++) {
                    const sql_expr *t = group_target(b, multi->sets[s].items[e], st, ag->input,
                                                     err, &bad2);
                    elem[s] |= (uint64_t)1 << key_index(b, ag, t);
                }
            }
            if (multi->kind == SQL_GROUP_ROLLUP) {
                for (s = n_elems + 1; s-- > 0;) {
                    uint64_t m = base;
                    for (e = 0; e < s; e++)
                        m |= elem[e];
                    sets[n_sets++] = m;
                }
            } else {
                for (sub = ((size_t)1 << n_elems); sub-- > 0;) {
                    uint64_t m = base;
                    for (e = 0; e < n_elems; e++)
                        if (sub & ((size_t)1 << (n_elems - 1 - e)))
                            m |= elem[e];
                    sets[n_sets++] = m;
                }
            }
        }
        *sets_out = sets;
        *n_sets_out = n_sets;
        ag->grouping_sets = 1;
    }
    return SILT_OK;
}

/* Builds the hash aggregate once every aggregate is known; sets the scope. */
static silt_status make_agg(binder *b, plan *p, agg_state *ag, const uint64_t *sets,
                            size_t n_sets, silt_error *err)
{
    expr **keys = arena_calloc(b->a, ag->n_keys + 1, sizeof(expr *));
    const char **names = arena_calloc(b->a, ag->n_keys + 1, sizeof(char *));
    engine_agg *aggs = arena_calloc(b->a, ag->n_aggs + 1, sizeof(engine_agg));
    bind_scope scope;
    engine_op *op;
    size_t idx;
    if (keys == NULL || names == NULL || aggs == NULL)
        return err_nomem(err);
    scope.n = ag->n_keys + ag->n_aggs + (n_sets ? 1 : 0);
    scope.cols = arena_calloc(b->a, scope.n + 1, sizeof(bind_col));
    if (scope.cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < ag->n_keys; idx++) {
        keys[idx] = ag->keys[idx].e;
        names[idx] = ag->keys[idx].input_col >= 0
                         ? p->scope.cols[ag->keys[idx].input_col].name
                         : sql_bind_column_name(b, ag->keys[idx].ast);
        scope.cols[idx].name = names[idx];
        scope.cols[idx].type = keys[idx]->type;
        if (ag->keys[idx].input_col >= 0)
            scope.cols[idx].qual = p->scope.cols[ag->keys[idx].input_col].qual;
    }
    for (idx = 0; idx < ag->n_aggs; idx++) {
        aggs[idx] = ag->aggs[idx].agg;
        scope.cols[ag->n_keys + idx].name = aggs[idx].name;
        scope.cols[ag->n_keys + idx].type = ag->aggs[idx].type;
    }
    if (n_sets) {
        scope.cols[scope.n - 1].name = "spark_grouping_id";
        scope.cols[scope.n - 1].type = col_type_primitive(COL_LONG);
        scope.cols[scope.n - 1].hidden = 1;
        for (idx = 0; idx < ag->n_gid_refs; idx++)
            ag->gid_refs[idx]->col_idx = (int64_t)(scope.n - 1);
    }
    if (p->morsels.fn != NULL && p->morsels.top == p->op && n_sets == 0) {
        /* Scan + filter + partial aggregation on every worker, merged at the end (DISTINCT too). */
        SILT_RETURN_IF_ERROR(engine_op_parallel_agg(&op, b->ctx, p->morsels.schema, p->morsels.fn,
                                                    p->morsels.payload, p->morsels.n,
                                                    p->morsels.filter, keys, names, ag->n_keys,
                                                    aggs, ag->n_aggs, err));
        sql_bind_note(b, "ParallelAggregate over %zu files", p->morsels.n);
        sql_bind_note_on(b, op);
    } else if (n_sets == 0 && engine_chain_parallel(p->op)) {
        /* Joins, projections and filters above the scan run on every worker too. */
        SILT_RETURN_IF_ERROR(engine_op_chain_agg(&op, b->ctx, p->op, keys, names, ag->n_keys,
                                                 aggs, ag->n_aggs, err));
        sql_bind_note(b, "ParallelAggregate over a pipeline of joins and filters on every worker");
        sql_bind_note_on(b, op);
    } else {
        SILT_RETURN_IF_ERROR(engine_op_hash_agg(&op, b->ctx, p->op, keys, names, ag->n_keys,
                                                aggs, ag->n_aggs, sets, n_sets, err));
    }
    memset(&p->morsels, 0, sizeof(p->morsels));
    p->op = op;
    p->scope = scope;
    return SILT_OK;
}

/* Adds windows: a projection appending partition/order keys, then one operator per spec. */
static silt_status make_windows(binder *b, plan *p, win_state *ws, silt_error *err)
{
    size_t n_extra = 0, idx, k, w = p->scope.n, col;
    expr **exprs;
    const char **names;
    int64_t out_col;
    int *done;
    for (idx = 0; idx < ws->n; idx++)
        n_extra += ws->calls[idx].n_partition + ws->calls[idx].n_order;
    exprs = arena_calloc(b->a, w + n_extra + 1, sizeof(expr *));
    names = arena_calloc(b->a, w + n_extra + 1, sizeof(char *));
    done = arena_calloc(b->a, ws->n + 1, sizeof(int));
    if (exprs == NULL || names == NULL || done == NULL)
        return err_nomem(err);
    for (col = 0; col < w; col++) {
        SILT_RETURN_IF_ERROR(expr_column(&exprs[col], b->a, (int64_t)col, p->scope.cols[col].type,
                                         err));
        names[col] = p->scope.cols[col].name;
    }
    /*
     * Each call's keys get columns: kcol[idx][k] for partition key k, then
     * the order keys. A key that is a plain input column is used where it is
     * (the window would otherwise hold and sort a second copy of it).
     */
    {
        int64_t **kcol = arena_calloc(b->a, ws->n + 1, sizeof(int64_t *));
        size_t next = w;
        bind_scope saved;
        if (kcol == NULL)
            return err_nomem(err);
        for (idx = 0; idx < ws->n; idx++) {
            win_call *c = &ws->calls[idx];
            kcol[idx] = arena_calloc(b->a, c->n_partition + c->n_order + 1, sizeof(int64_t));
            if (kcol[idx] == NULL)
                return err_nomem(err);
            for (k = 0; k < c->n_partition + c->n_order; k++) {
                expr *e = k < c->n_partition ? c->partition[k] : c->order[k - c->n_partition];
                if (e->kind == EXPR_COLUMN && e->col_idx >= 0 && (size_t)e->col_idx < w) {
                    kcol[idx][k] = e->col_idx;
                    continue;
                }
                kcol[idx][k] = (int64_t)next;
                exprs[next] = e;
                names[next++] = k < c->n_partition
                                    ? arena_sprintf(b->a, "_w%zu_p%zu", idx, k)
                                    : arena_sprintf(b->a, "_w%zu_o%zu", idx, k - c->n_partition);
            }
        }
        saved = p->scope;
        SILT_RETURN_IF_ERROR(sql_plan_project(b, p, exprs, names, next, err));
        /* Keep qualifiers of the pass-through columns. */
        for (col = 0; col < w; col++)
            p->scope.cols[col].qual = saved.cols[col].qual;
        out_col = (int64_t)next;
        /* Calls with the same PARTITION BY / ORDER BY text share one operator. */
        for (idx = 0; idx < ws->n; idx++) {
            win_call *c = &ws->calls[idx];
            engine_window_fn *fns = arena_calloc(b->a, ws->n, sizeof(engine_window_fn));
            win_call **members = arena_calloc(b->a, ws->n, sizeof(win_call *));
            int64_t *parts = arena_calloc(b->a, c->n_partition + 1, sizeof(int64_t));
            engine_sort_key *order = arena_calloc(b->a, c->n_order + 1, sizeof(engine_sort_key));
            size_t n_fns = 0, j;
            engine_op *op;
            if (done[idx])
                continue;
            if (fns == NULL || members == NULL || parts == NULL || order == NULL)
                return err_nomem(err);
            for (k = 0; k < c->n_partition; k++)
                parts[k] = kcol[idx][k];
            for (k = 0; k < c->n_order; k++) {
                order[k] = c->order_keys[k];
                order[k].col_idx = kcol[idx][c->n_partition + k];
            }
            for (j = idx; j < ws->n; j++) {
                win_call *o = &ws->calls[j];
                if (done[j] || o->n_partition != c->n_partition || o->n_order != c->n_order)
                    continue;
                if (j != idx) {
                    /* Same spec when every key is the same expression text. */
                    buf x = BUF_INIT, y = BUF_INIT;
                    int same = 1;
                    silt_error scratch = SILT_ERROR_INIT;
                    for (k = 0; same && k < c->n_partition; k++) {
                        buf_truncate(&x, 0);
                        buf_truncate(&y, 0);
                        sql_expr_print(c->spec->partition_by.items[k], &x, &scratch);
                        sql_expr_print(o->spec->partition_by.items[k], &y, &scratch);
                        same = x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
                    }
                    for (k = 0; same && k < c->n_order; k++) {
                        buf_truncate(&x, 0);
                        buf_truncate(&y, 0);
                        sql_expr_print(c->spec->order_by.items[k].expr, &x, &scratch);
                        sql_expr_print(o->spec->order_by.items[k].expr, &y, &scratch);
                        same = x.len == y.len && memcmp(x.data, y.data, x.len) == 0 &&
                               c->order_keys[k].descending == o->order_keys[k].descending &&
                               c->order_keys[k].nulls_first == o->order_keys[k].nulls_first;
                    }
                    buf_clear(&x);
                    buf_clear(&y);
                    if (!same)
                        continue;
                }
                done[j] = 1;
                fns[n_fns] = o->fn;
                members[n_fns++] = o;
            }
            SILT_RETURN_IF_ERROR(engine_op_window(&op, b->ctx, p->op, parts, c->n_partition, order,
                                                  c->n_order, fns, n_fns, err));
            p->op = op;
            for (j = 0; j < n_fns; j++) {
                const col_type *t = op->schema->fields[out_col].type;
                members[j]->result->col_idx = out_col;
                if (!col_type_equal(t, members[j]->result->type))
                    members[j]->result->type = t;
                out_col++;
            }
        }
    }
    return SILT_OK;
}

/*
 * QUALIFY: bound like a select item (window calls allowed; a select alias
 * stands for its expression), then applied as a filter after the windows.
 */
static silt_status bind_qualify(binder *b, const bind_ctx *bc, const sel_state *st,
                                const sql_expr *ast, expr **out, silt_error *err)
{
    size_t idx;
    if (ast->kind == SQL_EXPR_COLUMN && ast->u.column.n_parts == 1)
        for (idx = 0; idx < st->n_items; idx++)
            if (st->items[idx].ast != NULL &&
                util_str_casecmp(st->items[idx].name, ast->u.column.parts[0].name) == 0 &&
                sql_bind_has_window(st->items[idx].ast))
                return sql_bind_expr(b, bc, st->items[idx].ast, out, err);
    if (ast->kind == SQL_EXPR_BINARY) {
        /* rn = 1 where rn is a select alias of a window call. */
        sql_expr copy = *ast;
        const sql_expr *sides[2] = {ast->u.op.left, ast->u.op.right};
        for (idx = 0; idx < 2; idx++) {
            size_t it;
            if (sides[idx]->kind != SQL_EXPR_COLUMN || sides[idx]->u.column.n_parts != 1)
                continue;
            for (it = 0; it < st->n_items; it++)
                if (st->items[it].ast != NULL && sql_bind_has_window(st->items[it].ast) &&
                    util_str_casecmp(st->items[it].name, sides[idx]->u.column.parts[0].name) == 0) {
                    /* The tree is only read; the AST type has no const children. */
                    sql_expr *target = (sql_expr *)(uintptr_t)st->items[it].ast;
                    if (idx == 0)
                        copy.u.op.left = target;
                    else
                        copy.u.op.right = target;
                }
        }
        if (copy.u.op.left != ast->u.op.left || copy.u.op.right != ast->u.op.right) {
            sql_expr *held = arena_alloc(b->a, sizeof(*held));
            if (held == NULL)
                return err_nomem(err);
            *held = copy;
            ast = held;
        }
    }
    SILT_RETURN_IF_ERROR(sql_bind_expr(b, bc, ast, out, err));
    if ((*out)->type->id != COL_BOOLEAN)
        return sql_bind_error(b, err, ast->pos, SILT_BIND,
                          "[DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN] QUALIFY expression is not a "
                          "boolean");
    return SILT_OK;
}

static int is_ordinal(const sql_expr *e) { return e->kind == SQL_EXPR_LITERAL && e->u.lit.kind == SQL_LIT_INT; }

/* ORDER BY items to sort keys over the select list (+ hidden columns). */
/*
 * An ORDER BY expression with the SELECT aliases in it replaced by their
 * expressions (ORDER BY n * -1, hi - lo): Spark resolves names in ORDER BY
 * against the select list first. Copies only the nodes on the way to a
 * replaced name; *changed tells whether there was one. NULL: no memory.
 */
static const sql_expr *subst_aliases(binder *b, const sel_state *st, const sql_expr *e,
                                     int *changed)
{
    sql_expr *copy;
    size_t idx;
    int any = 0;
    if (e == NULL)
        return NULL;
    switch (e->kind) {
    case SQL_EXPR_COLUMN:
        if (e->u.column.n_parts != 1)
            return e;
        for (idx = 0; idx < st->n_items; idx++) {
            if (st->items[idx].ast != NULL && st->names[idx] != NULL &&
                util_str_casecmp(st->names[idx], e->u.column.parts[0].name) == 0 &&
                !(st->items[idx].ast->kind == SQL_EXPR_COLUMN)) {
                *changed = 1;
                return st->items[idx].ast;
            }
        }
        return e;
    case SQL_EXPR_BINARY:
    case SQL_EXPR_UNARY: {
        const sql_expr *l = subst_aliases(b, st, e->u.op.left, &any);
        const sql_expr *r = e->kind == SQL_EXPR_BINARY ? subst_aliases(b, st, e->u.op.right, &any)
                                                       : NULL;
        if (!any)
            return e;
        copy = arena_alloc(b->a, sizeof(*copy));
        if (copy == NULL || (e->u.op.left != NULL && l == NULL))
            return NULL;
        *copy = *e;
        copy->u.op.left = (sql_expr *)l;
        if (e->kind == SQL_EXPR_BINARY)
            copy->u.op.right = (sql_expr *)r;
        *changed = 1;
        return copy;
    }
    case SQL_EXPR_CAST: {
        const sql_expr *a = subst_aliases(b, st, e->u.cast.arg, &any);
        if (!any)
            return e;
        copy = arena_alloc(b->a, sizeof(*copy));
        if (copy == NULL || a == NULL)
            return NULL;
        *copy = *e;
        copy->u.cast.arg = (sql_expr *)a;
        *changed = 1;
        return copy;
    }
    case SQL_EXPR_FUNC: {
        sql_expr **args;
        if (e->u.func.over != NULL || e->u.func.args.n == 0 ||
            sql_bind_is_agg_name(e->u.func.name.parts[e->u.func.name.n_parts - 1].name))
            return e; /* an aggregate's argument names input columns */
        args = arena_calloc(b->a, e->u.func.args.n, sizeof(sql_expr *));
        if (args == NULL)
            return NULL;
        for (idx = 0; idx < e->u.func.args.n; idx++) {
            args[idx] = (sql_expr *)subst_aliases(b, st, e->u.func.args.items[idx], &any);
            if (args[idx] == NULL)
                return NULL;
        }
        if (!any)
            return e;
        copy = arena_alloc(b->a, sizeof(*copy));
        if (copy == NULL)
            return NULL;
        *copy = *e;
        copy->u.func.args.items = args;
        *changed = 1;
        return copy;
    }
    default: return e;
    }
}

int64_t sql_plan_order_output_col(binder *b, const sql_expr *e, size_t n, const char *const *names,
                                  const char *const *texts)
{
    const char *text;
    size_t j;
    if (is_ordinal(e))
        return e->u.lit.i64 >= 1 && e->u.lit.i64 <= (int64_t)n ? e->u.lit.i64 - 1 : -2;
    if (e->kind == SQL_EXPR_COLUMN && e->u.column.n_parts == 1)
        for (j = 0; j < n; j++)
            if (util_str_casecmp(names[j], e->u.column.parts[0].name) == 0)
                return (int64_t)j;
    text = sql_bind_expr_text(b, e);
    for (j = 0; j < n && text != NULL; j++)
        if (texts[j] != NULL && strcmp(texts[j], text) == 0)
            return (int64_t)j;
    return -1;
}

static silt_status bind_order(binder *b, const sql_query *q, sel_state *st, const bind_ctx *bc,
                              silt_error *err)
{
    size_t idx, j;
    const sql_order_list *ol = &q->order_by;
    st->keys = arena_calloc(b->a, ol->n + 1, sizeof(engine_sort_key));
    if (st->keys == NULL)
        return err_nomem(err);
    const char **texts = arena_calloc(b->a, st->n_items + 1, sizeof(char *));
    if (texts == NULL)
        return err_nomem(err);
    for (j = 0; j < st->n_items; j++)
        texts[j] = st->items[j].text;
    for (idx = 0; idx < ol->n; idx++) {
        const sql_order_item *it = &ol->items[idx];
        int64_t col = sql_plan_order_output_col(b, it->expr, st->n_items, st->names, texts);
        if (col == -2)
            return sql_bind_error(b, err, it->expr->pos, SILT_BIND,
                              "[ORDER_BY_POS_OUT_OF_RANGE] ORDER BY position %lld is not in "
                              "select list (valid range is [1, %zu])",
                              (long long)it->expr->u.lit.i64, st->n_items);
        if (col < 0) {
            expr *e;
            int changed = 0;
            const sql_expr *ast = subst_aliases(b, st, it->expr, &changed);
            if (ast == NULL)
                return err_nomem(err);
            SILT_RETURN_IF_ERROR(sql_bind_expr(b, bc, ast, &e, err));
            col = (int64_t)st->n_exprs;
            st->exprs[st->n_exprs] = e;
            st->names[st->n_exprs++] = arena_sprintf(b->a, "_order%zu", idx);
        }
        st->keys[idx] = engine_sort_key_default(col, it->desc);
        if (it->nulls != 0)
            st->keys[idx].nulls_first = it->nulls == 1;
    }
    st->n_keys = ol->n;
    return SILT_OK;
}

static silt_status const_int(binder *b, const sql_expr *e, const char *what, int64_t *out,
                             silt_error *err)
{
    sql_expr value;
    if (e->kind == SQL_EXPR_PARAM) {
        /* LIMIT ?: the marker is its value's literal, as everywhere else */
        if (sql_param_literal(b->s, e, &value, err) != SILT_OK)
            return sql_bind_error(b, err, e->pos, SILT_BIND, "%s", err ? err->message : "");
        e = &value;
    }
    if (e->kind == SQL_EXPR_LITERAL &&
        (e->u.lit.kind == SQL_LIT_INT || e->u.lit.kind == SQL_LIT_LONG ||
         e->u.lit.kind == SQL_LIT_SHORT || e->u.lit.kind == SQL_LIT_BYTE)) {
        if (e->u.lit.i64 < 0)
            return sql_bind_error(b, err, e->pos, SILT_BIND,
                              "[INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE] The %s expression "
                              "must be equal to or greater than 0, but got %lld", what,
                              (long long)e->u.lit.i64);
        *out = e->u.lit.i64;
        return SILT_OK;
    }
    return sql_bind_error(b, err, e->pos, SILT_BIND,
                      "[INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE] The %s expression must "
                      "be an integer constant", what);
}

silt_status sql_plan_limit_values(binder *b, const sql_query *q, int64_t *limit, int64_t *offset,
                                  silt_error *err)
{
    *limit = -1;
    *offset = 0;
    if (q->limit != NULL)
        SILT_RETURN_IF_ERROR(const_int(b, q->limit, "limit", limit, err));
    if (q->offset != NULL)
        SILT_RETURN_IF_ERROR(const_int(b, q->offset, "offset", offset, err));
    return SILT_OK;
}

/* The largest K = limit + offset of a top-N run per worker (every worker may keep K rows). */
#define PLAN_PARALLEL_TOPN_MAX_ROWS 262144

static silt_status finish_limit(binder *b, const sql_query *q, plan *p, const engine_sort_key *keys,
                                size_t n_keys, silt_error *err)
{
    int64_t limit, offset;
    SILT_RETURN_IF_ERROR(sql_plan_limit_values(b, q, &limit, &offset, err));
    return sql_plan_sort_limit(b, p, keys, n_keys, limit, offset, err);
}

silt_status sql_plan_sort_limit(binder *b, plan *p, const engine_sort_key *keys, size_t n_keys,
                                int64_t limit, int64_t offset, silt_error *err)
{
    engine_op *op;
    if (n_keys > 0) {
        engine_op *child = p->op;
        /*
         * The workers' rows are collected in memory: a top-N of more rows
         * stays serial, where the sort can spill them under memory_limit.
         */
        if (limit >= 0 && offset >= 0 && limit <= INT64_MAX - offset &&
            limit + offset <= PLAN_PARALLEL_TOPN_MAX_ROWS && engine_chain_parallel(p->op)) {
            /* every worker keeps its own first limit + offset rows; the sort merges them */
            SILT_RETURN_IF_ERROR(engine_op_chain_topn(&child, b->ctx, p->op, keys, n_keys,
                                                      limit + offset, err));
            sql_bind_note(b, "Parallel top-N: every worker keeps its first %lld rows",
                      (long long)(limit + offset));
            sql_bind_note_on(b, child);
        }
        SILT_RETURN_IF_ERROR(engine_op_sort(&op, b->ctx, child, keys, n_keys, limit, offset, err));
        p->op = op;
        return SILT_OK;
    }
    if (limit >= 0 || offset > 0) {
        SILT_RETURN_IF_ERROR(engine_op_limit(&op, b->ctx, p->op, limit, offset, err));
        p->op = op;
    }
    return SILT_OK;
}

/* ORDER BY / LIMIT of a non-SELECT query (set operation, VALUES): over its output. */
silt_status sql_plan_order_limit(binder *b, const sql_query *q, plan *p, silt_error *err)
{
    engine_sort_key *keys;
    size_t idx;
    if (q->order_by.n == 0 && q->limit == NULL && q->offset == NULL)
        return SILT_OK;
    keys = arena_calloc(b->a, q->order_by.n + 1, sizeof(engine_sort_key));
    if (keys == NULL)
        return err_nomem(err);
    for (idx = 0; idx < q->order_by.n; idx++) {
        const sql_order_item *it = &q->order_by.items[idx];
        int64_t col;
        if (is_ordinal(it->expr)) {
            col = it->expr->u.lit.i64 - 1;
            if (col < 0 || col >= (int64_t)p->scope.n)
                return sql_bind_error(b, err, it->expr->pos, SILT_BIND,
                                  "[ORDER_BY_POS_OUT_OF_RANGE] ORDER BY position %lld is not in "
                                  "select list (valid range is [1, %zu])",
                                  (long long)it->expr->u.lit.i64, p->scope.n);
        } else if (it->expr->kind == SQL_EXPR_COLUMN) {
            SILT_RETURN_IF_ERROR(sql_bind_resolve_column(b, &p->scope, &it->expr->u.column, &col,
                                                     NULL, err));
        } else {
            return sql_bind_error(b, err, it->expr->pos, SILT_UNSUPPORTED,
                              "ORDER BY of a set operation must name an output column");
        }
        keys[idx] = engine_sort_key_default(col, it->desc);
        if (it->nulls != 0)
            keys[idx].nulls_first = it->nulls == 1;
    }
    return finish_limit(b, q, p, keys, q->order_by.n, err);
}

static int select_has_agg(const sql_select *sel, const sql_query *q)
{
    size_t idx;
    for (idx = 0; idx < sel->n_items; idx++)
        if (sql_bind_has_agg(sel->items[idx].expr))
            return 1;
    for (idx = 0; idx < q->order_by.n; idx++)
        if (sql_bind_has_agg(q->order_by.items[idx].expr))
            return 1;
    return 0;
}

/* A WHERE conjunct [NOT] EXISTS / IN (subquery) planned as a semi or anti join. */
typedef struct semi_join {
    int kind; /* 0: not rewritten, 1: semi, 2: anti */
    plan right;
    expr **left_keys, **right_keys;
    size_t n_keys;
    expr *condition; /* correlations other than equalities, over outer then inner columns */
} semi_join;

/* The scope of a join's rows: the columns of a, then those of b. */
static silt_status concat_scope(binder *b, const bind_scope *x, const bind_scope *y,
                                bind_scope *out, silt_error *err)
{
    out->n = x->n + y->n;
    out->cols = arena_calloc(b->a, out->n ? out->n : 1, sizeof(bind_col));
    if (out->cols == NULL)
        return err_nomem(err);
    if (x->n > 0)
        memcpy(out->cols, x->cols, x->n * sizeof(bind_col));
    if (y->n > 0)
        memcpy(out->cols + x->n, y->cols, y->n * sizeof(bind_col));
    return SILT_OK;
}

/* Binds e over scope, quietly: 1 when it binds (and names only that scope). */
static int binds_in(binder *b, const bind_scope *scope, const sql_expr *e, expr **out)
{
    bind_ctx bc = {scope, NULL, NULL, NULL};
    silt_error scratch = SILT_ERROR_INIT;
    if (sql_bind_has_agg(e) || sql_bind_has_window(e))
        return 0;
    return sql_bind_expr(b, &bc, e, out, &scratch) == SILT_OK;
}

static int has_subquery(const sql_expr *e)
{
    return e->kind == SQL_EXPR_SUBQUERY || e->kind == SQL_EXPR_EXISTS ||
           e->kind == SQL_EXPR_IN_QUERY;
}

/*
 * EXISTS (SELECT ... FROM r WHERE r.k = outer.k AND local) -> semi join on
 * k over r filtered by local; NOT EXISTS -> anti join; x IN (SELECT c FROM
 * r WHERE ...) -> semi join on x = c plus the correlations. Only simple
 * subqueries (one SELECT, no aggregation, DISTINCT, ORDER BY or LIMIT)
 * are rewritten; correlated conjuncts other than equalities (u.fare >
 * t.fare) become the join's condition over both rows (a nested loop when
 * there is no equality). Anything else is left to the binder
 * (uncorrelated subqueries become nodes computed before the plan runs,
 * plan_subquery.c). NOT IN is
 * never rewritten: its NULL semantics differ from an anti join.
 */
static silt_status try_semi_join(binder *b, const bind_scope *outer, const sql_expr *c,
                                 semi_join *out, silt_error *err)
{
    const sql_query *sq;
    const sql_select *ss;
    const sql_expr *sub_conj[MAX_CONJ];
    size_t n_sub = 0, idx;
    bind_scope inner;
    expr *local = NULL;
    const sql_expr *row;
    size_t n_in;
    int negated = 0;
    memset(out, 0, sizeof(*out));
    if (c->kind == SQL_EXPR_UNARY && c->u.op.op == SQL_OP_NOT &&
        c->u.op.left->kind == SQL_EXPR_EXISTS) {
        negated = 1;
        c = c->u.op.left;
    }
    if (c->kind == SQL_EXPR_EXISTS)
        sq = c->u.in.query;
    else if (c->kind == SQL_EXPR_IN_QUERY && !c->u.in.negated)
        sq = c->u.in.query;
    else
        return SILT_OK;
    if (sq->kind != SQL_QUERY_SELECT || sq->n_ctes > 0 || sq->order_by.n > 0 ||
        sq->limit != NULL || sq->offset != NULL)
        return SILT_OK;
    ss = &sq->u.select;
    if (ss->n_from == 0 || ss->n_group > 0 || ss->group_all || ss->having != NULL ||
        ss->distinct || ss->n_windows > 0 || ss->qualify != NULL || ss->n_lateral_views > 0)
        return SILT_OK;
    for (idx = 0; idx < ss->n_items; idx++)
        if (sql_bind_has_agg(ss->items[idx].expr) || sql_bind_has_window(ss->items[idx].expr))
            return SILT_OK;
    /* (a, b) IN (SELECT x, y ...) is a semi join on every column, correlated or not. */
    row = c->kind == SQL_EXPR_IN_QUERY && c->u.in.arg->kind == SQL_EXPR_ROW ? c->u.in.arg : NULL;
    n_in = c->kind != SQL_EXPR_IN_QUERY ? 0 : row != NULL ? row->u.row.n : 1;
    if (c->kind == SQL_EXPR_IN_QUERY) {
        if (ss->n_items != n_in)
            return row == NULL ? SILT_OK
                               : sql_bind_error(b, err, c->pos, SILT_BIND,
                                            "[IN_SUBQUERY_LENGTH_MISMATCH] the row has %zu "
                                            "columns but the subquery returns %zu", n_in,
                                            ss->n_items);
        for (idx = 0; idx < ss->n_items; idx++)
            if (ss->items[idx].expr->kind == SQL_EXPR_STAR)
                return SILT_OK;
    }
    if (ss->where != NULL) {
        sql_split_and(ss->where, sub_conj, &n_sub, MAX_CONJ);
        if (n_sub == MAX_CONJ)
            return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(sql_plan_from(b, ss, NULL, 0, NULL, &out->right, err));
    inner = out->right.scope;
    out->left_keys = arena_calloc(b->a, n_sub + n_in + 1, sizeof(expr *));
    out->right_keys = arena_calloc(b->a, n_sub + n_in + 1, sizeof(expr *));
    if (out->left_keys == NULL || out->right_keys == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_in; idx++) {
        const sql_expr *probe = row != NULL ? row->u.row.items[idx] : c->u.in.arg;
        if (!binds_in(b, outer, probe, &out->left_keys[idx]) ||
            !binds_in(b, &inner, ss->items[idx].expr, &out->right_keys[idx]))
            return SILT_OK;
        out->n_keys++;
    }
    for (idx = 0; idx < n_sub; idx++) {
        const sql_expr *t = sub_conj[idx];
        expr *e, *l, *r;
        if (has_subquery(t))
            return SILT_OK;
        if (binds_in(b, &inner, t, &e)) {
            if (local == NULL)
                local = e;
            else
                SILT_RETURN_IF_ERROR(expr_and(&local, b->a, local, e, err));
            continue;
        }
        if (t->kind == SQL_EXPR_BINARY && t->u.op.op == SQL_OP_EQ &&
            ((binds_in(b, outer, t->u.op.left, &l) && binds_in(b, &inner, t->u.op.right, &r)) ||
             (binds_in(b, outer, t->u.op.right, &l) && binds_in(b, &inner, t->u.op.left, &r)))) {
            out->left_keys[out->n_keys] = l;
            out->right_keys[out->n_keys++] = r;
            continue;
        }
        /* a correlated conjunct of another form: a condition over the joined row */
        {
            bind_scope both;
            SILT_RETURN_IF_ERROR(concat_scope(b, outer, &inner, &both, err));
            if (!binds_in(b, &both, t, &e) || e->type->id != COL_BOOLEAN)
                return SILT_OK;
            if (out->condition == NULL)
                out->condition = e;
            else
                SILT_RETURN_IF_ERROR(expr_and(&out->condition, b->a, out->condition, e, err));
        }
    }
    if ((out->n_keys == 0 && out->condition == NULL) ||
        (c->kind == SQL_EXPR_IN_QUERY && n_sub == 0 && row == NULL))
        return SILT_OK; /* uncorrelated: a node computed before the plan runs */
    if (local != NULL) {
        engine_op *op;
        if (local->type->id != COL_BOOLEAN)
            return SILT_OK;
        SILT_RETURN_IF_ERROR(engine_op_filter(&op, b->ctx, out->right.op, local, err));
        out->right.op = op;
    }
    out->kind = c->kind == SQL_EXPR_EXISTS && (c->u.in.negated != 0) != negated ? 2 : 1;
    return SILT_OK;
}

/*
 * Correlated subqueries that are not WHERE conjuncts of their own, joined
 * in as columns:
 *
 * - a scalar subquery (SELECT f(aggregates) FROM r WHERE r.k = outer.k
 *   AND local): r filtered by local, grouped by its correlation keys,
 *   projected to [keys, value, true AS matched] and left-joined to the
 *   outer rows on the keys. An outer row without a match must see what
 *   the subquery gives over no rows, which is not always NULL (count(*)
 *   is 0, coalesce(max(x), 0) is 0): that value is computed once, by the
 *   same aggregation over an empty input, and the subquery reads
 *   CASE WHEN matched IS NULL THEN <empty value> ELSE value END (the
 *   count bug of decorrelation, avoided).
 * - [NOT] EXISTS (SELECT ... FROM r WHERE r.k = outer.k AND local) inside
 *   another expression (under OR, in the select list): the distinct keys
 *   of r filtered by local, left-joined the same way; EXISTS reads
 *   matched IS NOT NULL (NOT EXISTS: IS NULL). A NULL outer key matches
 *   nothing, so EXISTS is false there, as in Spark.
 *
 * Correlations must be equalities between an outer and an inner
 * expression here. A subquery that names outer columns in another way
 * fails with an error saying which shape is not supported (rather than
 * an unresolved column); an uncorrelated one is left to the binder, which
 * plans it as a subquery node run once before the plan (plan_subquery.c).
 */

/* The value of the subquery's item over no rows: its aggregation over an empty input. */
static silt_status empty_value(binder *b, const plan *r, const sql_expr *item, expr **out,
                               silt_error *err)
{
    plan e;
    agg_state ag;
    bind_ctx bc;
    bind_scope *in_copy = arena_calloc(b->a, 1, sizeof(bind_scope));
    expr *value;
    col_batch *rows;
    const char *name = "__sq_value";
    if (in_copy == NULL)
        return err_nomem(err);
    *in_copy = r->scope;
    memset(&e, 0, sizeof(e));
    e.scope = r->scope;
    SILT_RETURN_IF_ERROR(engine_op_values(&e.op, b->ctx, r->op->schema, NULL, 0, err));
    memset(&ag, 0, sizeof(ag));
    ag.input = in_copy;
    bc.scope = in_copy;
    bc.agg = &ag;
    bc.win = NULL;
    bc.outer = NULL;
    SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, item, &value, err));
    SILT_RETURN_IF_ERROR(make_agg(b, &e, &ag, NULL, 0, err));
    SILT_RETURN_IF_ERROR(sql_plan_project(b, &e, &value, &name, 1, err));
    /*
     * The value may read an uncorrelated subquery, not computed before the
     * plan runs: then the value too is computed then, after it.
     */
    if (b->defer_subqueries && b->subqueries != NULL)
        return sql_plan_subquery_node(b, BIND_SQ_SCALAR, NULL, e.op, NULL, 0, out, err);
    SILT_RETURN_IF_ERROR(engine_collect(e.op, b->a, &rows, err));
    if (rows->n_rows != 1)
        return err_set(err, SILT_INVALID, "an aggregation over no rows gave %lld rows",
                       (long long)rows->n_rows);
    return sql_bind_value_literal(b, rows->cols[0], 0, out, err);
}

static silt_status unsupported_correlation(binder *b, const sql_expr *node, const char *why,
                                           silt_error *err)
{
    return sql_bind_error(b, err, node->pos, SILT_UNSUPPORTED,
                      "this correlated %s is not supported yet: %s",
                      node->kind == SQL_EXPR_EXISTS ? "EXISTS subquery" : "scalar subquery", why);
}

/* Whether conjunct t of a subquery names outer columns (binds only with them in scope). */
static int is_correlated(binder *b, const bind_scope *outer, const bind_scope *inner,
                         const sql_expr *t)
{
    bind_scope both;
    silt_error scratch = SILT_ERROR_INIT;
    expr *e;
    if (binds_in(b, inner, t, &e))
        return 0;
    if (concat_scope(b, outer, inner, &both, &scratch) != SILT_OK)
        return 0;
    return binds_in(b, &both, t, &e);
}

/* A correlated subquery whose correlations are not all equalities (join_per_row). */
typedef struct correlated_join {
    const sql_expr *node;    /* the subquery */
    const sql_expr *item;    /* its value (NULL for EXISTS) */
    plan *r;                 /* its FROM, filtered by its own conjuncts */
    expr **outer_keys, **inner_keys;
    size_t n_keys;
    const sql_expr **cond;   /* the other correlated conjuncts */
    size_t n_cond;
} correlated_join;

/*
 * The general decorrelation, for correlations that are not equalities
 * (t.route_id > r.route_id): every outer row gets a number; the outer rows
 * are left-joined to the subquery's rows on the equalities (if any) and
 * the other correlations as the join's condition; the result is grouped
 * by the row number, the subquery's aggregates counting only rows that
 * matched (FILTER matched), so that an outer row without a match gets
 * their values over no rows; the outer columns ride along as first().
 * Then [outer columns, value, matched] replaces the outer rows (their
 * order is lost, which SQL allows). The grouping holds every outer row:
 * memory grows with the outer side and the join is a nested loop when no
 * equality is among the correlations. Outer columns of nested types cannot
 * ride along (first() of a struct): such queries fail with an error.
 */
/* p's rows numbered: p's columns, then a hidden __sq_rid (scope in out). */
static silt_status number_rows(binder *b, const plan *p, engine_op **op, bind_scope *out,
                               silt_error *err)
{
    engine_window_fn rid_fn;
    bind_scope rid = {1, NULL};
    memset(&rid_fn, 0, sizeof(rid_fn));
    rid_fn.kind = WIN_ROW_NUMBER;
    rid_fn.name = "__sq_rid";
    SILT_RETURN_IF_ERROR(engine_op_window(op, b->ctx, p->op, NULL, 0, NULL, 0, &rid_fn, 1, err));
    rid.cols = arena_calloc(b->a, 1, sizeof(bind_col));
    if (rid.cols == NULL)
        return err_nomem(err);
    rid.cols[0].name = "__sq_rid";
    rid.cols[0].type = (*op)->schema->fields[p->scope.n].type;
    rid.cols[0].hidden = 1;
    return concat_scope(b, &p->scope, &rid, out, err);
}

/* r's rows with a hidden __sq_matched = true after its columns (NULL where a join found none). */
static silt_status mark_rows(binder *b, plan *r, silt_error *err)
{
    size_t n = r->scope.n, idx;
    expr **proj = arena_calloc(b->a, n + 1, sizeof(expr *));
    const char **names = arena_calloc(b->a, n + 1, sizeof(char *));
    bind_scope keep = r->scope;
    if (proj == NULL || names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        SILT_RETURN_IF_ERROR(expr_column(&proj[idx], b->a, (int64_t)idx, keep.cols[idx].type,
                                         err));
        names[idx] = keep.cols[idx].name;
    }
    SILT_RETURN_IF_ERROR(expr_lit_bool(&proj[n], b->a, 1, err));
    names[n] = "__sq_matched";
    SILT_RETURN_IF_ERROR(sql_plan_project(b, r, proj, names, n + 1, err));
    for (idx = 0; idx < n; idx++)
        r->scope.cols[idx] = keep.cols[idx]; /* the subquery's names and qualifiers */
    r->scope.cols[n].hidden = 1;
    return SILT_OK;
}

/* The AND of the correlated conjuncts cj->cond over the joined rows. */
static silt_status per_row_condition(binder *b, const correlated_join *cj,
                                     const bind_scope *joined, expr **out, silt_error *err)
{
    bind_ctx jc = {joined, NULL, NULL, NULL};
    size_t idx;
    *out = NULL;
    for (idx = 0; idx < cj->n_cond; idx++) {
        expr *e;
        SILT_RETURN_IF_ERROR(sql_bind_expr(b, &jc, cj->cond[idx], &e, err));
        if (e->type->id != COL_BOOLEAN)
            return unsupported_correlation(b, cj->node, "a correlation that is not a boolean",
                                           err);
        if (*out == NULL)
            *out = e;
        else
            SILT_RETURN_IF_ERROR(expr_and(out, b->a, *out, e, err));
    }
    return SILT_OK;
}

/* count(*), as the AST of an EXISTS's value on the general path. */
static silt_status count_star_ast(binder *b, const sql_expr *at, const sql_expr **out,
                                  silt_error *err)
{
    sql_expr *star = arena_calloc(b->a, 1, sizeof(sql_expr));
    sql_ident *name = arena_calloc(b->a, 1, sizeof(sql_ident));
    if (star == NULL || name == NULL)
        return err_nomem(err);
    name->name = "count";
    star->kind = SQL_EXPR_FUNC;
    star->pos = at->pos;
    star->u.func.name.parts = name;
    star->u.func.name.n_parts = 1;
    star->u.func.star = 1;
    *out = star;
    return SILT_OK;
}

/*
 * Binds the subquery's value over the joined rows grouped by __sq_rid
 * (column n_outer): its aggregates see the subquery's columns only and
 * count only matched rows; then the outer columns are appended as
 * first(col) aggregates.
 */
static silt_status per_row_aggregates(binder *b, const correlated_join *cj, const plan *outer,
                                      const bind_scope *joined, agg_state *ag, expr **value,
                                      silt_error *err)
{
    size_t n_outer = outer->scope.n, idx;
    bind_scope *item_scope = arena_calloc(b->a, 1, sizeof(bind_scope));
    const sql_expr *item = cj->item;
    expr *matched_col, *has_match;
    bind_ctx bc;
    agg_call *grown;
    memset(ag, 0, sizeof(*ag));
    ag->keys = arena_calloc(b->a, 1, sizeof(agg_key));
    if (item_scope == NULL || ag->keys == NULL)
        return err_nomem(err);
    item_scope->n = joined->n;
    item_scope->cols = arena_memdup(b->a, joined->cols, joined->n * sizeof(bind_col));
    if (item_scope->cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx <= n_outer; idx++)
        item_scope->cols[idx].hidden = 1;
    ag->input = item_scope;
    ag->n_keys = 1;
    ag->keys[0].text = "__sq_rid";
    ag->keys[0].input_col = (int64_t)n_outer;
    SILT_RETURN_IF_ERROR(expr_column(&ag->keys[0].e, b->a, (int64_t)n_outer,
                                     joined->cols[n_outer].type, err));
    bc.scope = item_scope;
    bc.agg = ag;
    bc.win = NULL;
    bc.outer = NULL;
    if (item == NULL)
        SILT_RETURN_IF_ERROR(count_star_ast(b, cj->node, &item, err));
    SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, item, value, err));
    SILT_RETURN_IF_ERROR(expr_column(&matched_col, b->a, (int64_t)(joined->n - 1),
                                     col_type_primitive(COL_BOOLEAN), err));
    SILT_RETURN_IF_ERROR(expr_is_null(&has_match, b->a, matched_col, 1, err));
    for (idx = 0; idx < ag->n_aggs; idx++) {
        engine_agg *a = &ag->aggs[idx].agg;
        if (a->filter == NULL)
            a->filter = has_match;
        else
            SILT_RETURN_IF_ERROR(expr_and(&a->filter, b->a, a->filter, has_match, err));
    }
    grown = arena_calloc(b->a, ag->n_aggs + n_outer + 1, sizeof(agg_call));
    if (grown == NULL)
        return err_nomem(err);
    if (ag->n_aggs > 0)
        memcpy(grown, ag->aggs, ag->n_aggs * sizeof(agg_call));
    ag->aggs = grown;
    for (idx = 0; idx < n_outer; idx++) {
        agg_call *c = &ag->aggs[ag->n_aggs++];
        c->text = arena_sprintf(b->a, "__sq_carry%zu", idx);
        c->agg.kind = AGG_FIRST;
        c->agg.name = outer->scope.cols[idx].name;
        c->type = outer->scope.cols[idx].type;
        SILT_RETURN_IF_ERROR(expr_column(&c->agg.arg, b->a, (int64_t)idx, c->type, err));
    }
    ag->cap_aggs = ag->n_aggs;
    return SILT_OK;
}

static silt_status join_per_row(binder *b, plan *p, const correlated_join *cj, silt_error *err)
{
    int exists = cj->node->kind == SQL_EXPR_EXISTS;
    size_t n_outer = p->scope.n, idx, first_carry;
    engine_op *op;
    bind_scope outer1 = {0, NULL}, joined = {0, NULL};
    expr *cond, *value, *matched, **proj;
    const char **names;
    agg_state ag;
    scalar_subst *sub;
    plan g;
    for (idx = 0; idx < n_outer; idx++)
        if (col_type_is_nested(p->scope.cols[idx].type->id))
            return unsupported_correlation(b, cj->node, "a correlation other than an equality, "
                                           "over rows with a column of a nested type", err);
    SILT_RETURN_IF_ERROR(number_rows(b, p, &op, &outer1, err));
    SILT_RETURN_IF_ERROR(mark_rows(b, cj->r, err));
    SILT_RETURN_IF_ERROR(concat_scope(b, &outer1, &cj->r->scope, &joined, err));
    SILT_RETURN_IF_ERROR(per_row_condition(b, cj, &joined, &cond, err));
    SILT_RETURN_IF_ERROR(engine_op_hash_join(&op, b->ctx, op, cj->r->op, JOIN_LEFT, cj->outer_keys,
                                             cj->inner_keys, cj->n_keys, cond, err));
    sql_bind_note(b, "LeftOuter join for a correlated %s on %zu key%s and a condition, grouped by "
              "outer row", exists ? "EXISTS" : "scalar subquery", cj->n_keys,
              cj->n_keys == 1 ? "" : "s");
    sql_bind_note_on(b, op);
    SILT_RETURN_IF_ERROR(per_row_aggregates(b, cj, p, &joined, &ag, &value, err));
    first_carry = ag.n_aggs - n_outer;
    g.op = op;
    g.scope = joined;
    memset(&g.morsels, 0, sizeof(g.morsels));
    SILT_RETURN_IF_ERROR(make_agg(b, &g, &ag, NULL, 0, err));
    /* [outer columns (from first()), value, matched]: EXISTS matched only when it counted rows */
    proj = arena_calloc(b->a, n_outer + 2, sizeof(expr *));
    names = arena_calloc(b->a, n_outer + 2, sizeof(char *));
    if (proj == NULL || names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_outer; idx++) {
        SILT_RETURN_IF_ERROR(expr_column(&proj[idx], b->a, (int64_t)(1 + first_carry + idx),
                                         p->scope.cols[idx].type, err));
        names[idx] = p->scope.cols[idx].name;
    }
    if (exists) {
        expr *zero, *yes, *pos;
        SILT_RETURN_IF_ERROR(expr_lit_int(&zero, b->a, COL_LONG, 0, err));
        SILT_RETURN_IF_ERROR(expr_compare(&pos, b->a, EXPR_GT, value, zero, err));
        SILT_RETURN_IF_ERROR(expr_lit_bool(&yes, b->a, 1, err));
        SILT_RETURN_IF_ERROR(expr_case(&matched, b->a, 1, &pos, &yes, NULL, err));
    } else {
        SILT_RETURN_IF_ERROR(expr_lit_bool(&matched, b->a, 1, err));
    }
    proj[n_outer] = value;
    names[n_outer] = "__sq_value";
    proj[n_outer + 1] = matched;
    names[n_outer + 1] = "__sq_matched";
    SILT_RETURN_IF_ERROR(sql_plan_project(b, &g, proj, names, n_outer + 2, err));
    /* the outer scope again (names, qualifiers, hidden columns), then the two new columns */
    memcpy(g.scope.cols, p->scope.cols, n_outer * sizeof(bind_col));
    g.scope.cols[n_outer].hidden = 1;
    g.scope.cols[n_outer + 1].hidden = 1;
    p->op = g.op;
    p->scope = g.scope;
    sub = arena_calloc(b->a, 1, sizeof(*sub));
    if (sub == NULL)
        return err_nomem(err);
    sub->node = cj->node;
    sub->col = (int64_t)n_outer;
    sub->type = value->type;
    SILT_RETURN_IF_ERROR(expr_lit_null(&sub->empty, b->a, value->type, err));
    sub->next = b->substs;
    b->substs = sub;
    return SILT_OK;
}

static silt_status join_scalar(binder *b, plan *p, const sql_expr *node, silt_error *err)
{
    const sql_query *sq = node->u.in.query;
    const sql_select *ss;
    const sql_expr *sub_conj[MAX_CONJ];
    const sql_expr *item = NULL;
    int exists = node->kind == SQL_EXPR_EXISTS;
    size_t n_sub = 0, idx, n_keys = 0, n_correlated = 0;
    plan r;
    expr *local = NULL, **outer_keys, **right_keys, *value, *empty = NULL;
    agg_state ag;
    bind_ctx bc;
    scalar_subst *sub;
    engine_op *op;
    bind_scope joined;
    const char *why = NULL;
    const sql_expr **cond_ast;
    size_t n_cond = 0;
    if (sq->kind != SQL_QUERY_SELECT || sq->n_ctes > 0 || sq->order_by.n > 0 ||
        sq->limit != NULL || sq->offset != NULL)
        return SILT_OK;
    ss = &sq->u.select;
    if (ss->n_from == 0 || ss->where == NULL || ss->n_group > 0 || ss->group_all ||
        ss->having != NULL || ss->distinct || ss->n_windows > 0 || ss->qualify != NULL ||
        ss->n_lateral_views > 0 || (!exists && ss->n_items != 1))
        return SILT_OK;
    cond_ast = arena_calloc(b->a, MAX_CONJ, sizeof(sql_expr *));
    if (cond_ast == NULL)
        return err_nomem(err);
    if (!exists) {
        item = ss->items[0].expr;
        if (sql_bind_has_window(item))
            return SILT_OK;
        if (!sql_bind_has_agg(item))
            why = "the subquery's value is not an aggregate (Spark requires correlated scalar "
                  "subqueries to be aggregated)";
    }
    sql_split_and(ss->where, sub_conj, &n_sub, MAX_CONJ);
    if (n_sub == MAX_CONJ)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(sql_plan_from(b, ss, NULL, 0, NULL, &r, err));
    outer_keys = arena_calloc(b->a, n_sub + 1, sizeof(expr *));
    right_keys = arena_calloc(b->a, n_sub + 1, sizeof(expr *));
    memset(&ag, 0, sizeof(ag));
    ag.keys = arena_calloc(b->a, n_sub + 1, sizeof(agg_key));
    if (outer_keys == NULL || right_keys == NULL || ag.keys == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n_sub; idx++) {
        const sql_expr *t = sub_conj[idx];
        expr *e, *l, *in;
        const sql_expr *in_ast;
        if (has_subquery(t))
            return SILT_OK;
        if (binds_in(b, &r.scope, t, &e)) {
            if (local == NULL)
                local = e;
            else
                SILT_RETURN_IF_ERROR(expr_and(&local, b->a, local, e, err));
            continue;
        }
        if (t->kind == SQL_EXPR_BINARY && t->u.op.op == SQL_OP_EQ &&
            binds_in(b, &p->scope, t->u.op.left, &l) && binds_in(b, &r.scope, t->u.op.right, &in)) {
            in_ast = t->u.op.right;
        } else if (t->kind == SQL_EXPR_BINARY && t->u.op.op == SQL_OP_EQ &&
                   binds_in(b, &p->scope, t->u.op.right, &l) &&
                   binds_in(b, &r.scope, t->u.op.left, &in)) {
            in_ast = t->u.op.left;
        } else {
            if (is_correlated(b, &p->scope, &r.scope, t)) {
                n_correlated++;
                cond_ast[n_cond++] = t;
            }
            continue;
        }
        n_correlated++;
        outer_keys[n_keys] = l;
        ag.keys[n_keys].ast = in_ast;
        ag.keys[n_keys].text = sql_bind_expr_text(b, in_ast);
        ag.keys[n_keys].e = in;
        ag.keys[n_keys].input_col = in->kind == EXPR_COLUMN ? in->col_idx : -1;
        n_keys++;
    }
    if (n_correlated == 0)
        return SILT_OK; /* uncorrelated, or an error the binder will report */
    if (why != NULL)
        return unsupported_correlation(b, node, why, err);
    if (local != NULL) {
        if (local->type->id != COL_BOOLEAN)
            return SILT_OK;
        SILT_RETURN_IF_ERROR(engine_op_filter(&op, b->ctx, r.op, local, err));
        r.op = op;
    }
    if (n_cond > 0) {
        correlated_join cj = {node, item, &r, outer_keys, NULL, n_keys, cond_ast, n_cond};
        cj.inner_keys = arena_calloc(b->a, n_keys + 1, sizeof(expr *));
        if (cj.inner_keys == NULL)
            return err_nomem(err);
        for (idx = 0; idx < n_keys; idx++)
            cj.inner_keys[idx] = ag.keys[idx].e;
        return join_per_row(b, p, &cj, err);
    }
    if (!exists)
        SILT_RETURN_IF_ERROR(empty_value(b, &r, item, &empty, err));
    ag.n_keys = n_keys;
    {
        bind_scope *in_copy = arena_calloc(b->a, 1, sizeof(bind_scope));
        if (in_copy == NULL)
            return err_nomem(err);
        *in_copy = r.scope;
        ag.input = in_copy;
    }
    bc.scope = ag.input;
    bc.agg = &ag;
    bc.win = NULL;
    bc.outer = NULL;
    if (exists)
        SILT_RETURN_IF_ERROR(expr_lit_bool(&value, b->a, 1, err));
    else
        SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, item, &value, err));
    SILT_RETURN_IF_ERROR(make_agg(b, &r, &ag, NULL, 0, err));
    {
        /* [keys..., value, matched] */
        expr **proj = arena_calloc(b->a, n_keys + 2, sizeof(expr *));
        const char **names = arena_calloc(b->a, n_keys + 2, sizeof(char *));
        if (proj == NULL || names == NULL)
            return err_nomem(err);
        for (idx = 0; idx < n_keys; idx++) {
            SILT_RETURN_IF_ERROR(expr_column(&proj[idx], b->a, (int64_t)idx,
                                             r.scope.cols[idx].type, err));
            names[idx] = arena_sprintf(b->a, "__sq_key%zu", idx);
            SILT_RETURN_IF_ERROR(expr_column(&right_keys[idx], b->a, (int64_t)idx,
                                             r.scope.cols[idx].type, err));
        }
        proj[n_keys] = value;
        names[n_keys] = "__sq_value";
        SILT_RETURN_IF_ERROR(expr_lit_bool(&proj[n_keys + 1], b->a, 1, err));
        names[n_keys + 1] = "__sq_matched";
        SILT_RETURN_IF_ERROR(sql_plan_project(b, &r, proj, names, n_keys + 2, err));
    }
    SILT_RETURN_IF_ERROR(engine_op_hash_join(&op, b->ctx, p->op, r.op, JOIN_LEFT, outer_keys,
                                             right_keys, n_keys, NULL, err));
    sub = arena_calloc(b->a, 1, sizeof(*sub));
    if (sub == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(concat_scope(b, &p->scope, &r.scope, &joined, err));
    for (idx = 0; idx < r.scope.n; idx++)
        joined.cols[p->scope.n + idx].hidden = 1;
    sub->node = node;
    sub->col = (int64_t)(p->scope.n + n_keys);
    sub->type = value->type;
    sub->empty = empty;
    sub->next = b->substs;
    b->substs = sub;
    sql_bind_note(b, "LeftOuter join for a correlated %s on %zu key%s",
              exists ? "EXISTS" : "scalar subquery", n_keys, n_keys == 1 ? "" : "s");
    sql_bind_note_on(b, op);
    p->op = op;
    p->scope = joined;
    return SILT_OK;
}

/*
 * Whether node is a WHERE conjunct [NOT] EXISTS, which try_semi_join plans
 * as a semi or anti join instead.
 */
static int is_exists_conjunct(const sql_expr *node, const sql_expr *const *conj, size_t n_conj)
{
    size_t idx;
    for (idx = 0; idx < n_conj; idx++)
        if (conj[idx] == node || (conj[idx]->kind == SQL_EXPR_UNARY &&
                                  conj[idx]->u.op.op == SQL_OP_NOT && conj[idx]->u.op.left == node))
            return 1;
    return 0;
}

/*
 * Joins in the correlated subqueries of WHERE and, when items is set, of
 * the select list (see join_scalar). Of an aggregating block's select
 * list only those inside aggregate arguments: the rest is evaluated after
 * the aggregation.
 */
static silt_status join_scalars(binder *b, const sql_select *sel, int items, plan *p,
                                silt_error *err)
{
    const sql_expr **nodes = NULL;
    const sql_expr *conj[MAX_CONJ];
    size_t n = 0, cap = 0, idx, n_conj = 0;
    if (sel->where != NULL)
        sql_split_and(sel->where, conj, &n_conj, MAX_CONJ);
    SILT_RETURN_IF_ERROR(sql_bind_find_subqueries(b, sel->where, &nodes, &n, &cap, err));
    for (idx = 0; idx < sel->n_items; idx++)
        SILT_RETURN_IF_ERROR(items ? sql_bind_find_subqueries(b, sel->items[idx].expr, &nodes, &n,
                                                          &cap, err)
                                   : sql_bind_find_agg_subqueries(b, sel->items[idx].expr, &nodes, &n,
                                                              &cap, err));
    for (idx = 0; idx < n; idx++) {
        if (nodes[idx]->kind == SQL_EXPR_EXISTS && is_exists_conjunct(nodes[idx], conj, n_conj))
            continue;
        SILT_RETURN_IF_ERROR(join_scalar(b, p, nodes[idx], err));
    }
    return SILT_OK;
}

/* Join conditions of the FROM items: their names count too. */
static silt_status ref_names(binder *b, const sql_table_ref *ref, name_set *set, silt_error *err)
{
    size_t idx;
    if (ref->kind != SQL_TABLE_JOIN)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, ref->u.join.on, set, err));
    for (idx = 0; idx < ref->u.join.using_cols.n; idx++) {
        sql_expr col;
        memset(&col, 0, sizeof(col));
        col.kind = SQL_EXPR_COLUMN;
        col.u.column.n_parts = 1;
        col.u.column.parts = &ref->u.join.using_cols.items[idx];
        SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, &col, set, err));
    }
    SILT_RETURN_IF_ERROR(ref_names(b, ref->u.join.left, set, err));
    return ref_names(b, ref->u.join.right, set, err);
}

static int is_ordinal_list(const sql_order_list *l)
{
    size_t idx;
    for (idx = 0; idx < l->n; idx++)
        if (l->items[idx].expr->kind == SQL_EXPR_LITERAL)
            return 1;
    return 0;
}

/*
 * Whether a star in this block may expand to only the columns the outer
 * block names (outer: the FROM subquery's pushdown, NULL at the top). Not
 * when the rows depend on every column (DISTINCT, grouping) or a position
 * in the select list does (ORDER BY 1 counts the star's columns).
 */
static int star_follows_outer(const sql_query *q, const pushdown *outer)
{
    const sql_select *sel = &q->u.select;
    size_t idx;
    if (outer == NULL || sel->distinct || sel->n_group > 0 || sel->group_all ||
        sel->having != NULL || is_ordinal_list(&q->order_by) || is_ordinal_list(&q->sort_by))
        return 0;
    for (idx = 0; idx < q->distribute_by.n; idx++)
        if (q->distribute_by.items[idx]->kind == SQL_EXPR_LITERAL)
            return 0;
    for (idx = 0; idx < q->cluster_by.n; idx++)
        if (q->cluster_by.items[idx]->kind == SQL_EXPR_LITERAL)
            return 0;
    return 1;
}

static silt_status add_outer_names(binder *b, const pushdown *outer, name_set *set,
                                   silt_error *err)
{
    size_t idx;
    sql_ident part;
    sql_expr col;
    memset(&col, 0, sizeof(col));
    col.kind = SQL_EXPR_COLUMN;
    col.u.column.n_parts = 1;
    col.u.column.parts = &part;
    for (idx = 0; idx < outer->n_cols; idx++) {
        memset(&part, 0, sizeof(part));
        part.name = outer->cols[idx];
        SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, &col, set, err));
    }
    return SILT_OK;
}

/*
 * Every column name the SELECT block mentions, so that scans read only
 * those; a star names every column, or, in a FROM subquery whose outer
 * block names only some (star_follows_outer), those.
 */
static silt_status wanted_names(binder *b, const sql_query *q, const pushdown *outer,
                                name_set *set, silt_error *err)
{
    const sql_select *sel = &q->u.select;
    size_t idx, s, e;
    int follow = star_follows_outer(q, outer);
    for (idx = 0; idx < sel->n_items; idx++) {
        if (follow && sel->items[idx].expr->kind == SQL_EXPR_STAR)
            SILT_RETURN_IF_ERROR(add_outer_names(b, outer, set, err));
        else
            SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, sel->items[idx].expr, set, err));
    }
    SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, sel->where, set, err));
    SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, sel->having, set, err));
    for (idx = 0; idx < sel->n_group; idx++) {
        const sql_group_item *g = &sel->group[idx];
        SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, g->expr, set, err));
        for (s = 0; s < g->n_sets; s++)
            for (e = 0; e < g->sets[s].n; e++)
                SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, g->sets[s].items[e], set, err));
    }
    for (idx = 0; idx < q->order_by.n; idx++)
        SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, q->order_by.items[idx].expr, set, err));
    for (idx = 0; idx < sel->n_from; idx++)
        SILT_RETURN_IF_ERROR(ref_names(b, sel->from[idx], set, err));
    SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, sel->qualify, set, err));
    /* WINDOW w AS (PARTITION BY ... ORDER BY ...) names columns that OVER w uses. */
    for (idx = 0; idx < sel->n_windows; idx++) {
        const sql_window *w = sel->windows[idx].window;
        for (e = 0; e < w->partition_by.n; e++)
            SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, w->partition_by.items[e], set, err));
        for (e = 0; e < w->order_by.n; e++)
            SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, w->order_by.items[e].expr, set, err));
    }
    if (sel->group_all)
        set->all = 1;
    return SILT_OK;
}

silt_status sql_plan_bind_where(binder *b, const bind_scope *scope, const sql_expr *where,
                                const sql_expr **conj, size_t n_conj, const uint8_t *skip,
                                expr **pred, expr **bound, silt_error *err)
{
    bind_ctx wc = {scope, NULL, NULL, NULL};
    size_t idx;
    *pred = NULL;
    if (n_conj == 0)
        SILT_RETURN_IF_ERROR(sql_bind_expr(b, &wc, where, pred, err));
    for (idx = 0; idx < n_conj; idx++) {
        expr *e;
        if (skip != NULL && skip[idx])
            continue;
        SILT_RETURN_IF_ERROR(sql_bind_expr(b, &wc, conj[idx], &e, err));
        if (e->type->id != COL_BOOLEAN && e->type->id != COL_NULL)
            return sql_bind_error(b, err, conj[idx]->pos, SILT_BIND,
                              "[DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN] filter expression "
                              "of type \"%s\" is not a boolean", col_type_id_name(e->type->id));
        if (bound != NULL)
            bound[idx] = e;
        if (*pred == NULL)
            *pred = e;
        else
            SILT_RETURN_IF_ERROR(expr_and(pred, b->a, *pred, e, err));
    }
    if (*pred != NULL && (*pred)->type->id != COL_BOOLEAN)
        return sql_bind_error(b, err, where->pos, SILT_BIND,
                          "[DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN] filter expression of type "
                          "\"%s\" is not a boolean", col_type_id_name((*pred)->type->id));
    return SILT_OK;
}

static silt_status select_block(binder *b, const sql_query *q, plan *out, silt_error *err);

/* Makes the block's WINDOW clause visible to OVER w while it is bound (nested blocks restore). */
silt_status sql_plan_select(binder *b, const sql_query *q, plan *out, silt_error *err)
{
    size_t saved_n = b->n_windows;
    const sql_named_window *saved = b->windows;
    silt_status rc;
    b->n_windows = q->u.select.n_windows;
    b->windows = q->u.select.windows;
    rc = select_block(b, q, out, err);
    b->n_windows = saved_n;
    b->windows = saved;
    return rc;
}

static silt_status select_block(binder *b, const sql_query *q, plan *out, silt_error *err)
{
    const sql_select *sel = &q->u.select;
    const sql_expr *conj[MAX_CONJ];
    size_t n_conj = 0, idx;
    sel_state st;
    agg_state ag;
    win_state ws;
    bind_ctx bc;
    plan p;
    int has_agg = sel->n_group > 0 || sel->group_all || sel->having != NULL;
    uint64_t *sets = NULL;
    size_t n_sets = 0, n_visible;
    name_set want;
    expr *qualify = NULL;
    const pushdown *outer = b->derived_want;
    b->derived_want = NULL; /* blocks nested in this one have outer blocks of their own */
    memset(&p, 0, sizeof(p));
    memset(&want, 0, sizeof(want));
    memset(&st, 0, sizeof(st));
    memset(&ag, 0, sizeof(ag));
    memset(&ws, 0, sizeof(ws));
    if (sel->n_lateral_views > 0)
        return sql_bind_error(b, err, q->pos, SILT_UNSUPPORTED,
                          "LATERAL VIEW is not supported yet");
    if (sel->where != NULL) {
        sql_split_and(sel->where, conj, &n_conj, MAX_CONJ);
        if (n_conj == MAX_CONJ)
            n_conj = 0; /* too many to push down: the filter still applies them all */
    }
    if (sel->n_from == 1 && sel->where == NULL && !sel->distinct) {
        int done = 0;
        SILT_RETURN_IF_ERROR(sql_source_try_stats_agg(b, sel, out, &done, err));
        if (done)
            return sql_plan_order_limit(b, q, out, err);
    }
    SILT_RETURN_IF_ERROR(wanted_names(b, q, outer, &want, err));
    SILT_RETURN_IF_ERROR(sql_plan_from(b, sel, conj, n_conj, &want, &p, err));
    SILT_RETURN_IF_ERROR(join_scalars(b, sel, !has_agg && !select_has_agg(sel, q), &p, err));
    if (sel->where != NULL) {
        expr *pred = NULL;
        engine_op *op;
        semi_join *sj = arena_calloc(b->a, n_conj + 1, sizeof(semi_join));
        if (sj == NULL)
            return err_nomem(err);
        uint8_t *skip = arena_calloc(b->a, n_conj + 1, 1);
        if (skip == NULL)
            return err_nomem(err);
        if (sql_bind_has_agg(sel->where))
            return sql_bind_error(b, err, sel->where->pos, SILT_BIND,
                              "[WHERE_CLAUSE_CANNOT_CONTAIN_AGGREGATE] aggregate functions are "
                              "not allowed in WHERE");
        /* [NOT] EXISTS / IN subqueries correlated by equalities become semi/anti joins. */
        for (idx = 0; idx < n_conj; idx++) {
            SILT_RETURN_IF_ERROR(try_semi_join(b, &p.scope, conj[idx], &sj[idx], err));
            skip[idx] = sj[idx].kind != 0;
        }
        SILT_RETURN_IF_ERROR(sql_plan_bind_where(b, &p.scope, sel->where, conj, n_conj, skip,
                                                 &pred, NULL, err));
        if (pred != NULL) {
            if (p.morsels.top == p.op) {
                /* Still a bare scan: the parallel aggregation can filter inside its workers. */
                p.morsels.top = op = NULL;
            }
            if (engine_push_rank_limit(p.op, pred))
                sql_bind_note(b, "WindowGroupLimit: a per-partition top-k below the filter on a rank");
            SILT_RETURN_IF_ERROR(engine_op_filter(&op, b->ctx, p.op, pred, err));
            if (p.morsels.fn != NULL && p.morsels.top == NULL) {
                p.morsels.top = op;
                p.morsels.filter = pred;
            }
            p.op = op;
        }
        for (idx = 0; idx < n_conj; idx++) {
            if (sj[idx].kind == 0)
                continue;
            SILT_RETURN_IF_ERROR(engine_op_hash_join(&op, b->ctx, p.op, sj[idx].right.op,
                                                     sj[idx].kind == 1 ? JOIN_LEFT_SEMI
                                                                       : JOIN_LEFT_ANTI,
                                                     sj[idx].left_keys, sj[idx].right_keys,
                                                     sj[idx].n_keys, sj[idx].condition, err));
            sql_bind_note(b, "%s join for a correlated subquery on %zu key%s%s",
                      sj[idx].kind == 1 ? "LeftSemi" : "LeftAnti", sj[idx].n_keys,
                      sj[idx].n_keys == 1 ? "" : "s",
                      sj[idx].condition != NULL ? " and a condition" : "");
            sql_bind_note_on(b, op);
            p.op = op;
        }
    }
    SILT_RETURN_IF_ERROR(expand_items(b, sel, &p.scope, &st, err));
    for (idx = 0; idx < st.n_items && !has_agg; idx++)
        if (st.items[idx].ast != NULL && sql_bind_has_agg(st.items[idx].ast))
            has_agg = 1;
    for (idx = 0; idx < q->order_by.n && !has_agg; idx++)
        if (sql_bind_has_agg(q->order_by.items[idx].expr))
            has_agg = 1;
    ag.input = &p.scope;
    if (has_agg) {
        bind_scope *in_copy = arena_calloc(b->a, 1, sizeof(bind_scope));
        if (in_copy == NULL)
            return err_nomem(err);
        *in_copy = p.scope;
        ag.input = in_copy;
        SILT_RETURN_IF_ERROR(build_keys(b, sel, &st, &ag, &sets, &n_sets, err));
    }
    bc.scope = &p.scope;
    bc.agg = has_agg ? &ag : NULL;
    bc.win = &ws;
    bc.outer = NULL;
    st.exprs = arena_calloc(b->a, st.n_items + q->order_by.n + 1, sizeof(expr *));
    st.names = arena_calloc(b->a, st.n_items + q->order_by.n + 1, sizeof(char *));
    if (st.exprs == NULL || st.names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < st.n_items; idx++) {
        sel_item *it = &st.items[idx];
        if (it->ast == NULL) {
            if (has_agg) {
                sql_expr col;
                sql_ident part;
                memset(&col, 0, sizeof(col));
                part.name = p.scope.cols[it->star_col].name;
                part.pos = q->pos;
                part.quoted = 1;
                col.kind = SQL_EXPR_COLUMN;
                col.pos = q->pos;
                col.u.column.n_parts = 1;
                col.u.column.parts = &part;
                col.u.column.pos = q->pos;
                SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, &col, &st.exprs[idx], err));
            } else {
                SILT_RETURN_IF_ERROR(expr_column(&st.exprs[idx], b->a, it->star_col,
                                                 p.scope.cols[it->star_col].type, err));
            }
        } else {
            SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, it->ast, &st.exprs[idx], err));
        }
        st.names[idx] = it->name;
    }
    st.n_exprs = st.n_items;
    n_visible = st.n_items;
    if (sel->qualify != NULL) {
        if (!sql_bind_has_window(sel->qualify) && ws.n == 0)
            return sql_bind_error(b, err, sel->qualify->pos, SILT_BIND,
                              "[UNSUPPORTED_FEATURE.QUALIFY_WITHOUT_WINDOW_FUNCTION] QUALIFY needs "
                              "a window function");
        SILT_RETURN_IF_ERROR(bind_qualify(b, &bc, &st, sel->qualify, &qualify, err));
    }
    if (has_agg && sel->having != NULL) {
        bind_ctx hc = bc;
        expr *pred;
        hc.win = NULL;
        ag.alias_names = arena_calloc(b->a, st.n_items + 1, sizeof(char *));
        ag.alias_exprs = arena_calloc(b->a, st.n_items + 1, sizeof(sql_expr *));
        if (ag.alias_names == NULL || ag.alias_exprs == NULL)
            return err_nomem(err);
        for (idx = 0; idx < sel->n_items; idx++)
            if (sel->items[idx].alias != NULL && sel->items[idx].expr->kind != SQL_EXPR_STAR) {
                ag.alias_names[ag.n_aliases] = sel->items[idx].alias;
                ag.alias_exprs[ag.n_aliases++] = sel->items[idx].expr;
            }
        SILT_RETURN_IF_ERROR(sql_bind_expr(b, &hc, sel->having, &pred, err));
        ag.n_aliases = 0;
        SILT_RETURN_IF_ERROR(bind_order(b, q, &st, &bc, err));
        SILT_RETURN_IF_ERROR(make_agg(b, &p, &ag, sets, n_sets, err));
        if (pred->type->id != COL_BOOLEAN)
            return sql_bind_error(b, err, sel->having->pos, SILT_BIND,
                              "[DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN] HAVING expression is not a "
                              "boolean");
        {
            engine_op *op;
            SILT_RETURN_IF_ERROR(engine_op_filter(&op, b->ctx, p.op, pred, err));
            p.op = op;
        }
    } else {
        SILT_RETURN_IF_ERROR(bind_order(b, q, &st, &bc, err));
        if (has_agg)
            SILT_RETURN_IF_ERROR(make_agg(b, &p, &ag, sets, n_sets, err));
    }
    if (ws.n > 0)
        SILT_RETURN_IF_ERROR(make_windows(b, &p, &ws, err));
    if (qualify != NULL) {
        engine_op *op;
        if (engine_push_rank_limit(p.op, qualify))
            sql_bind_note(b, "WindowGroupLimit: a per-partition top-k below the filter on a rank");
        SILT_RETURN_IF_ERROR(engine_op_filter(&op, b->ctx, p.op, qualify, err));
        p.op = op;
    }
    SILT_RETURN_IF_ERROR(sql_plan_project(b, &p, st.exprs, st.names, st.n_exprs, err));
    if (sel->distinct) {
        if (st.n_exprs > n_visible)
            return sql_bind_error(b, err, q->order_by.items[0].expr->pos, SILT_BIND,
                              "[MISSING_ATTRIBUTES.RESOLVED_ATTRIBUTE_APPEAR_IN_OPERATION] ORDER "
                              "BY of a SELECT DISTINCT must name selected columns");
        SILT_RETURN_IF_ERROR(sql_plan_distinct(b, &p, err));
    }
    SILT_RETURN_IF_ERROR(finish_limit(b, q, &p, st.keys, st.n_keys, err));
    if (st.n_exprs > n_visible) {
        expr **keep = arena_calloc(b->a, n_visible + 1, sizeof(expr *));
        bind_scope full = p.scope;
        if (keep == NULL)
            return err_nomem(err);
        for (idx = 0; idx < n_visible; idx++)
            SILT_RETURN_IF_ERROR(expr_column(&keep[idx], b->a, (int64_t)idx,
                                             p.scope.cols[idx].type, err));
        SILT_RETURN_IF_ERROR(sql_plan_project(b, &p, keep, st.names, n_visible, err));
        for (idx = 0; idx < n_visible; idx++)
            p.scope.cols[idx].qual = full.cols[idx].qual;
    }
    *out = p;
    return SILT_OK;
}
