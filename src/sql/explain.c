/*
 * explain.c - EXPLAIN: the operator tree, in the spirit of Spark's
 * "== Physical Plan ==" section.
 *
 * Each line is an operator and its output columns; a filter adds its
 * predicate. The planner's notes about an operator (what a scan was told:
 * pushed filters; what it skipped: files and partitions; how a join or a
 * parallel operator was chosen) follow its line, indented. A parallel
 * operator is opened up: below it, the partial aggregation, top-N or
 * WindowGroupLimit that every worker runs, then the chain of filters,
 * projections and join probes every worker copies, down to the scan whose
 * morsels (files, row groups) the workers share; a join's build side is
 * built once and shared. Notes about no printed operator are listed at
 * the end under "== Notes ==".
 */
#include <string.h>

#include "sql/plan.h"

typedef struct explain_ctx {
    binder *b;
    buf *out;
    int analyzed; /* EXPLAIN ANALYZE: the plan ran; print what each operator did */
} explain_ctx;

static silt_status print_expr(const expr *e, const col_type *input, buf *out, silt_error *err);

static silt_status print_args(const expr *e, const col_type *input, const char *name, buf *out,
                              silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s(", name));
    for (idx = 0; idx < e->n_args; idx++) {
        if (idx > 0)
            SILT_RETURN_IF_ERROR(buf_append_str(out, ", ", err));
        SILT_RETURN_IF_ERROR(print_expr(e->args[idx], input, out, err));
    }
    return buf_append_str(out, ")", err);
}

static silt_status print_literal(const expr *e, buf *out, silt_error *err)
{
    const expr_value *v = &e->lit;
    if (v->is_null)
        return buf_append_str(out, "NULL", err);
    switch (e->type->id) {
    case COL_BOOLEAN: return buf_append_str(out, v->i ? "true" : "false", err);
    case COL_BYTE:
    case COL_SHORT:
    case COL_INT:
    case COL_LONG: return buf_printf(out, err, "%lld", (long long)v->i);
    case COL_FLOAT:
    case COL_DOUBLE: return buf_printf(out, err, "%g", v->d);
    case COL_STRING: return buf_printf(out, err, "'%.*s'", (int)v->str_len, v->str);
    default: return buf_printf(out, err, "<%s literal>", col_type_id_name(e->type->id));
    }
}

/*
 * An engine expression as text: the SQL text the binder kept for it when
 * there is one, otherwise (nodes the planner made, such as the AND of
 * several conjuncts) built from its parts; columns are named from the
 * operator's input.
 */
static silt_status print_expr(const expr *e, const col_type *input, buf *out, silt_error *err)
{
    static const char *const ops[] = {"+", "-", "*", "/", "%", "=", "<>", "<", "<=", ">", ">=",
                                      "<=>"};
    if (e->text != NULL)
        return buf_append_str(out, e->text, err);
    switch (e->kind) {
    case EXPR_COLUMN:
        if (input != NULL && e->col_idx >= 0 && (size_t)e->col_idx < input->n_fields)
            return buf_append_str(out, input->fields[e->col_idx].name, err);
        return buf_printf(out, err, "#%lld", (long long)e->col_idx);
    case EXPR_LITERAL: return print_literal(e, out, err);
    case EXPR_AND:
    case EXPR_OR:
    case EXPR_ARITH:
    case EXPR_COMPARE:
        if (e->n_args != 2)
            break;
        SILT_RETURN_IF_ERROR(buf_append_str(out, "(", err));
        SILT_RETURN_IF_ERROR(print_expr(e->args[0], input, out, err));
        SILT_RETURN_IF_ERROR(buf_printf(
            out, err, " %s ",
            e->kind == EXPR_AND ? "AND"
            : e->kind == EXPR_OR ? "OR"
            : e->op >= 0 && (size_t)e->op < sizeof(ops) / sizeof(ops[0]) ? ops[e->op] : "?"));
        SILT_RETURN_IF_ERROR(print_expr(e->args[1], input, out, err));
        return buf_append_str(out, ")", err);
    case EXPR_NOT:
        SILT_RETURN_IF_ERROR(buf_append_str(out, "NOT ", err));
        return print_expr(e->args[0], input, out, err);
    case EXPR_IS_NULL:
        SILT_RETURN_IF_ERROR(buf_append_str(out, "(", err));
        SILT_RETURN_IF_ERROR(print_expr(e->args[0], input, out, err));
        return buf_append_str(out, e->op ? " IS NOT NULL)" : " IS NULL)", err);
    case EXPR_FUNC: return print_args(e, input, e->func != NULL ? e->func->name : "?", out, err);
    case EXPR_CAST: return print_args(e, input, "cast", out, err);
    case EXPR_CASE: return print_args(e, input, "case", out, err);
    case EXPR_COALESCE: return print_args(e, input, "coalesce", out, err);
    case EXPR_LIKE: return print_args(e, input, "like", out, err);
    case EXPR_IN: return print_args(e, input, e->op ? "not_in" : "in", out, err);
    case EXPR_SUBQUERY: return print_args(e, input, "subquery", out, err);
    }
    return buf_append_str(out, "?", err);
}

static silt_status indent(buf *out, int depth, int child, silt_error *err)
{
    return buf_printf(out, err, "%*s%s", depth * 3, "", child ? "+- " : "");
}

static silt_status print_columns(const col_type *schema, buf *out, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_append_str(out, " [", err));
    for (idx = 0; idx < schema->n_fields; idx++)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s%s", idx ? ", " : "",
                                        schema->fields[idx].name));
    return buf_append_str(out, "]", err);
}

/* The notes about op (or, with payload, about the morsel source payload), under its line. */
static silt_status print_notes(explain_ctx *x, const engine_op *op, const void *payload,
                               int depth, silt_error *err)
{
    scan_note *note;
    for (note = x->b->notes; note != NULL; note = note->next) {
        if (note->shown || !((op != NULL && note->op == op) ||
                             (payload != NULL && note->payload == payload)))
            continue;
        note->shown = 1;
        SILT_RETURN_IF_ERROR(buf_printf(x->out, err, "%*s%s\n", depth * 3 + 6, "", note->text));
    }
    return SILT_OK;
}

static silt_status print_op(explain_ctx *x, const engine_op *op, int depth, int child,
                            const char *tag, silt_error *err);

/*
 * EXPLAIN ANALYZE: the rows an operator returned and the time spent in it
 * (its children's included, as it pulls them). An operator of a parallel
 * chain shows the sums of the copies its workers ran.
 */
static silt_status print_stats(explain_ctx *x, const engine_op *op, const char *tag,
                               silt_error *err)
{
    const engine_op_stats *st = &op->stats;
    if (!st->opened)
        return tag != NULL ? SILT_OK : buf_append_str(x->out, " (not run)", err);
    if (st->workers > 0)
        return buf_printf(x->out, err, " (actual rows %lld, %.3f ms, summed over %d workers)",
                          (long long)st->rows_out,
                          (double)(st->open_nanos + st->next_nanos) / 1e6, st->workers);
    return buf_printf(x->out, err, " (actual rows %lld, %.3f ms)", (long long)st->rows_out,
                      (double)(st->open_nanos + st->next_nanos) / 1e6);
}

/* An operator's own run-time notes (engine_op_set_note), one per line, under its line. */
static silt_status print_lines(explain_ctx *x, const char *text, int depth, silt_error *err)
{
    while (*text != '\0') {
        const char *end = strchr(text, '\n');
        size_t len = end != NULL ? (size_t)(end - text) : strlen(text);
        if (len > 0)
            SILT_RETURN_IF_ERROR(buf_printf(x->out, err, "%*s%.*s\n", depth * 3 + 6, "",
                                            (int)len, text));
        text += len + (end != NULL);
    }
    return SILT_OK;
}

static const char build_tag[] = "build side, built once and shared";

/* A worker's partial aggregation, top-N or WindowGroupLimit: the end of its chain. */
static silt_status print_sink(explain_ctx *x, const engine_parallel_info *info, int depth,
                              silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(indent(x->out, depth, 1, err));
    switch (info->sink) {
    case ENGINE_SINK_PARTIAL_AGG:
        SILT_RETURN_IF_ERROR(buf_append_str(x->out, "partial_aggregate (every worker) keys [",
                                            err));
        for (idx = 0; idx < info->n_keys; idx++)
            SILT_RETURN_IF_ERROR(buf_printf(x->out, err, "%s%s", idx ? ", " : "",
                                            info->key_names[idx]));
        SILT_RETURN_IF_ERROR(buf_append_str(x->out, "] aggregates [", err));
        for (idx = 0; idx < info->n_aggs; idx++)
            SILT_RETURN_IF_ERROR(buf_printf(x->out, err, "%s%s", idx ? ", " : "",
                                            info->aggs[idx].name ? info->aggs[idx].name : "?"));
        return buf_append_str(x->out, "]\n", err);
    case ENGINE_SINK_TOPN:
        return buf_printf(x->out, err, "top_n (every worker) keeps its first %lld rows\n",
                          (long long)info->keep);
    case ENGINE_SINK_WINDOW_LIMIT:
        return buf_append_str(x->out, "window_group_limit (every worker) keeps the rows the "
                              "window's rank limit can pass\n", err);
    case ENGINE_SINK_WINDOW_INPUT:
        return buf_append_str(x->out, "collect (every worker) keeps the window's input rows\n",
                              err);
    }
    return SILT_OK;
}

/* Below a parallel operator's line: what its workers run. */
static silt_status print_parallel(explain_ctx *x, const engine_parallel_info *info, int depth,
                                  silt_error *err)
{
    SILT_RETURN_IF_ERROR(print_sink(x, info, depth + 1, err));
    if (info->chain != NULL)
        return print_op(x, info->chain, depth + 2, 1, "every worker", err);
    /* a parallel aggregate: its workers read the morsels and filter them themselves */
    depth += 2;
    if (info->filter != NULL) {
        SILT_RETURN_IF_ERROR(indent(x->out, depth, 1, err));
        SILT_RETURN_IF_ERROR(buf_append_str(x->out, "filter (every worker) ", err));
        SILT_RETURN_IF_ERROR(print_expr(info->filter, NULL, x->out, err));
        SILT_RETURN_IF_ERROR(buf_append_str(x->out, "\n", err));
        depth++;
    }
    SILT_RETURN_IF_ERROR(indent(x->out, depth, 1, err));
    SILT_RETURN_IF_ERROR(buf_printf(x->out, err, "scan (every worker) %zu morsel%s shared by the "
                                    "workers\n", info->n_morsels,
                                    info->n_morsels == 1 ? "" : "s"));
    return print_notes(x, NULL, info->morsel_payload, depth, err);
}

/*
 * One operator and what is below it. tag marks the operators of a
 * parallel chain ("every worker"); a join in such a chain probes on every
 * worker and its build side (its second child) is built once.
 */
static silt_status print_op(explain_ctx *x, const engine_op *op, int depth, int child,
                            const char *tag, silt_error *err)
{
    engine_parallel_info info;
    const expr *pred = engine_op_filter_predicate(op);
    int parallel = engine_pipeline_info(op, &info) || engine_parallel_agg_info(op, &info);
    size_t idx;
    SILT_RETURN_IF_ERROR(indent(x->out, depth, child, err));
    SILT_RETURN_IF_ERROR(buf_append_str(x->out, op->vt->name, err));
    if (tag != NULL)
        SILT_RETURN_IF_ERROR(buf_printf(x->out, err, " (%s)", tag));
    SILT_RETURN_IF_ERROR(print_columns(op->schema, x->out, err));
    if (pred != NULL && op->n_children > 0) {
        SILT_RETURN_IF_ERROR(buf_append_str(x->out, " ", err));
        SILT_RETURN_IF_ERROR(print_expr(pred, op->children[0]->schema, x->out, err));
    }
    if (parallel)
        SILT_RETURN_IF_ERROR(buf_printf(x->out, err, " on %zu worker%s", info.width,
                                        info.width == 1 ? "" : "s"));
    if (tag != NULL && tag != build_tag && op->n_children == 0)
        SILT_RETURN_IF_ERROR(buf_printf(x->out, err, ", morsels shared by the workers"));
    if (x->analyzed)
        SILT_RETURN_IF_ERROR(print_stats(x, op, tag, err));
    SILT_RETURN_IF_ERROR(buf_append_str(x->out, "\n", err));
    SILT_RETURN_IF_ERROR(print_notes(x, op, NULL, depth, err));
    if (x->analyzed && op->stats.notes != NULL)
        SILT_RETURN_IF_ERROR(print_lines(x, op->stats.notes, depth, err));
    if (parallel)
        return print_parallel(x, &info, depth, err);
    for (idx = 0; idx < op->n_children; idx++) {
        /* in a chain only the first child (the probe side) runs on every worker */
        const char *child_tag = tag == NULL || tag == build_tag ? NULL
                                : idx == 0                      ? tag
                                                                : build_tag;
        SILT_RETURN_IF_ERROR(print_op(x, op->children[idx], depth + 1, 1, child_tag, err));
    }
    return SILT_OK;
}

/*
 * The uncorrelated subqueries, each under a line saying where it is; the
 * plan runs them first, innermost first (they read no outer row).
 */
static silt_status print_subqueries(explain_ctx *x, silt_error *err)
{
    static const char *const kinds[] = {"scalar", "IN", "EXISTS"};
    const bind_subquery *sq;
    for (sq = x->b->subqueries; sq != NULL; sq = sq->next) {
        SILT_RETURN_IF_ERROR(buf_printf(x->out, err, "\n== Subquery #%d: %s%s", sq->id,
                                        sq->ast == NULL ? "value over no rows of a correlated "
                                                          "scalar subquery"
                                                        : kinds[sq->kind],
                                        sq->ast == NULL ? "" : " subquery"));
        if (sq->ast != NULL)
            SILT_RETURN_IF_ERROR(buf_printf(x->out, err, " (line %d, column %d)", sq->line,
                                            sq->col));
        SILT_RETURN_IF_ERROR(buf_append_str(x->out, ", run before the plan ==\n", err));
        SILT_RETURN_IF_ERROR(print_op(x, sq->op, 0, 0, NULL, err));
    }
    return SILT_OK;
}

static silt_status explain(binder *b, const plan *p, const explain_run *run, buf *out,
                           silt_error *err)
{
    explain_ctx x = {b, out, run != NULL};
    scan_note *note;
    int header = 0;
    for (note = b->notes; note != NULL; note = note->next)
        note->shown = 0;
    SILT_RETURN_IF_ERROR(buf_append_str(out, "== Physical Plan ==\n", err));
    SILT_RETURN_IF_ERROR(print_op(&x, p->op, 0, 0, NULL, err));
    SILT_RETURN_IF_ERROR(print_subqueries(&x, err));
    if (run != NULL)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "\n== Run ==\n%lld rows in %.3f ms\n",
                                        (long long)run->rows, (double)run->nanos / 1e6));
    for (note = b->notes; note != NULL; note = note->next) {
        if (note->shown)
            continue;
        if (!header)
            SILT_RETURN_IF_ERROR(buf_append_str(out, "\n== Notes ==\n", err));
        header = 1;
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s\n", note->text));
    }
    return SILT_OK;
}

silt_status sql_explain_plan(binder *b, const plan *p, buf *out, silt_error *err)
{
    return explain(b, p, NULL, out, err);
}

silt_status sql_explain_plan_analyzed(binder *b, const plan *p, const explain_run *run, buf *out,
                                  silt_error *err)
{
    return explain(b, p, run, out, err);
}

/* ---------------------------------------------------------------- logical plan */

static silt_status print_scope(const bind_scope *scope, buf *out, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_append_str(out, " [", err));
    for (idx = 0; idx < scope->n; idx++)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s%s", idx ? ", " : "",
                                        scope->cols[idx].name));
    return buf_append_str(out, "]", err);
}

static silt_status print_logical_scan(const lp_scan *sc, int depth, buf *out, silt_error *err)
{
    size_t idx, shown = 0;
    SILT_RETURN_IF_ERROR(buf_printf(out, err, "\n%*s      delta.`%s` (version %lld when bound)",
                                    depth * 3, "", sc->path, (long long)sc->version));
    for (idx = 0; idx < sc->n_conj; idx++) {
        if (sc->bound[idx] == NULL)
            continue;
        SILT_RETURN_IF_ERROR(buf_printf(out, err, shown++ ? ", " : "\n%*s      offered for pruning: ",
                                        depth * 3, ""));
        SILT_RETURN_IF_ERROR(print_expr(sc->bound[idx], NULL, out, err));
    }
    return SILT_OK;
}

static silt_status print_logical_sort(const lp_node *n, buf *out, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < n->u.sort.n_keys; idx++) {
        const engine_sort_key *k = &n->u.sort.keys[idx];
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s%s %s NULLS %s", idx ? ", " : " by ",
                                        n->scope.cols[k->col_idx].name,
                                        k->descending ? "DESC" : "ASC",
                                        k->nulls_first ? "FIRST" : "LAST"));
    }
    if (n->u.sort.limit >= 0 || n->u.sort.offset > 0)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, " limit %lld offset %lld",
                                        (long long)n->u.sort.limit, (long long)n->u.sort.offset));
    return SILT_OK;
}

static silt_status print_logical(const lp_node *n, int depth, buf *out, silt_error *err)
{
    static const char *const names[] = {"scan", "filter", "project", "limit", "sort"};
    SILT_RETURN_IF_ERROR(indent(out, depth, depth > 0, err));
    SILT_RETURN_IF_ERROR(buf_append_str(out, names[n->kind], err));
    SILT_RETURN_IF_ERROR(print_scope(&n->scope, out, err));
    switch (n->kind) {
    case LP_SCAN: SILT_RETURN_IF_ERROR(print_logical_scan(&n->u.scan, depth, out, err)); break;
    case LP_FILTER:
        SILT_RETURN_IF_ERROR(buf_append_str(out, " ", err));
        SILT_RETURN_IF_ERROR(print_expr(n->u.filter.pred, NULL, out, err));
        break;
    case LP_LIMIT:
        SILT_RETURN_IF_ERROR(buf_printf(out, err, " %lld offset %lld",
                                        (long long)n->u.limit.limit, (long long)n->u.limit.offset));
        break;
    case LP_SORT: SILT_RETURN_IF_ERROR(print_logical_sort(n, out, err)); break;
    case LP_PROJECT: break;
    }
    SILT_RETURN_IF_ERROR(buf_append_str(out, "\n", err));
    return n->child != NULL ? print_logical(n->child, depth + 1, out, err) : SILT_OK;
}

silt_status sql_explain_logical(const lp_node *root, buf *out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(buf_append_str(out, "== Logical Plan ==\n", err));
    SILT_RETURN_IF_ERROR(print_logical(root, 0, out, err));
    return buf_append_str(out, "\n", err);
}
