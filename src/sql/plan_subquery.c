/*
 * plan_subquery.c - uncorrelated subqueries as parts of the plan.
 *
 * Binding plans a subquery (names and types only) and gives the
 * expression an EXPR_SUBQUERY node reading an empty slot. The statement's
 * root operator gets a prologue that runs the subqueries, innermost first,
 * every time the plan opens, and fills the slots with what the constant
 * would have been: the scalar's value (NULL over no rows), a literal IN
 * list over the operand (column 0 of the node's arguments), a boolean for
 * EXISTS. EXPLAIN opens nothing, so it runs none of them.
 *
 * Statements that evaluate expressions themselves instead of opening a
 * plan (DELETE, UPDATE, MERGE, INSERT's checks) bind without
 * defer_subqueries: their subqueries run as soon as they are bound.
 */
#include <string.h>

#include "sql/binder_int.h"
#include "sql/lexer.h"

static silt_status sq_error(const bind_subquery *sq, silt_error *err, silt_status code,
                            const char *msg)
{
    return err_set(err, code, "%s (line %d, column %d)", msg, sq->line, sq->col);
}

static silt_status scalar_value(bind_subquery *sq, const col_batch *rows, silt_error *err)
{
    expr *v;
    if (rows->n_rows > 1)
        return sq_error(sq, err, SILT_RUNTIME, "[SCALAR_SUBQUERY_TOO_MANY_ROWS] more than one "
                        "row returned by a subquery used as an expression");
    if (rows->n_rows == 0)
        SILT_RETURN_IF_ERROR(expr_lit_null(&v, sq->a, rows->schema->fields[0].type, err));
    else
        SILT_RETURN_IF_ERROR(sql_value_literal(sq->a, rows->cols[0], 0, &v, err));
    sq->slot.value = v;
    return SILT_OK;
}

/* column 0 (the coerced operand) [NOT] IN (the rows as literals). */
static silt_status in_value(bind_subquery *sq, const col_batch *rows, silt_error *err)
{
    expr *v, *operand, **list;
    int64_t row;
    if (rows->n_rows == 0) {
        /* x IN (empty) is false even for a NULL x; NOT IN is true. */
        SILT_RETURN_IF_ERROR(expr_lit_bool(&v, sq->a, sq->negated, err));
        sq->slot.value = v;
        return SILT_OK;
    }
    list = arena_calloc(sq->a, (size_t)rows->n_rows, sizeof(expr *));
    if (list == NULL)
        return err_nomem(err);
    for (row = 0; row < rows->n_rows; row++)
        SILT_RETURN_IF_ERROR(sql_value_literal(sq->a, rows->cols[0], row, &list[row], err));
    SILT_RETURN_IF_ERROR(expr_column(&operand, sq->a, 0, sq->in_type, err));
    SILT_RETURN_IF_ERROR(expr_in(&v, sq->a, operand, list, (size_t)rows->n_rows, sq->negated,
                                 err));
    sq->slot.value = v;
    return SILT_OK;
}

/* Runs one subquery (its inner ones are filled already) and fills its slot. */
static silt_status sq_run(bind_subquery *sq, silt_error *err)
{
    col_batch *rows;
    expr *v;
    if (sq->slot.value != NULL)
        return SILT_OK; /* operators run once: a plan is lowered afresh to run again */
    SILT_RETURN_IF_ERROR(engine_collect(sq->op, sq->a, &rows, err));
    switch (sq->kind) {
    case BIND_SQ_SCALAR: return scalar_value(sq, rows, err);
    case BIND_SQ_IN: return in_value(sq, rows, err);
    case BIND_SQ_EXISTS:
        SILT_RETURN_IF_ERROR(expr_lit_bool(&v, sq->a, (rows->n_rows > 0) != (sq->negated != 0),
                                           err));
        sq->slot.value = v;
        return SILT_OK;
    }
    return SILT_OK;
}

static silt_status run_all(void *payload, silt_error *err)
{
    bind_subquery *sq;
    for (sq = payload; sq != NULL; sq = sq->next)
        SILT_RETURN_IF_ERROR(sq_run(sq, err));
    return SILT_OK;
}

/* The operand of IN coerced as IN coerces it (to its common type with the rows). */
static silt_status in_operand(binder *b, engine_op *op, expr *arg, expr **out, silt_error *err)
{
    expr *probe, *null_row;
    SILT_RETURN_IF_ERROR(expr_lit_null(&null_row, b->a, op->schema->fields[0].type, err));
    SILT_RETURN_IF_ERROR(expr_in(&probe, b->a, arg, &null_row, 1, 0, err));
    *out = probe->args[0];
    return SILT_OK;
}

/* The node reading sq's value; IN: over arg, coerced (*out NULL when sq's rows need another type). */
static silt_status node_of(binder *b, bind_subquery *sq, expr *arg, expr **out, silt_error *err)
{
    const col_type *type = sq->kind == BIND_SQ_SCALAR ? sq->op->schema->fields[0].type
                                                      : col_type_primitive(COL_BOOLEAN);
    expr *operand = NULL;
    *out = NULL;
    if (sq->kind == BIND_SQ_IN) {
        SILT_RETURN_IF_ERROR(in_operand(b, sq->op, arg, &operand, err));
        if (sq->in_type != NULL && !col_type_equal(sq->in_type, operand->type))
            return SILT_OK;
        sq->in_type = operand->type;
    }
    return expr_subquery(out, b->a, &sq->slot, type, &operand, operand != NULL ? 1 : 0, err);
}

silt_status sql_plan_subquery_bound(binder *b, const sql_expr *ast, expr *arg, expr **out,
                                silt_error *err)
{
    bind_subquery *sq;
    *out = NULL;
    for (sq = b->subqueries; sq != NULL && *out == NULL; sq = sq->next)
        if (sq->ast == ast)
            SILT_RETURN_IF_ERROR(node_of(b, sq, arg, out, err));
    return SILT_OK;
}

silt_status sql_plan_subquery_node(binder *b, bind_sq_kind kind, const sql_expr *ast, engine_op *op,
                               expr *arg, int negated, expr **out, silt_error *err)
{
    bind_subquery *sq = arena_calloc(b->a, 1, sizeof(*sq)), **tail;
    if (sq == NULL)
        return err_nomem(err);
    sq->kind = kind;
    sq->negated = negated;
    sq->ast = ast;
    sq->op = op;
    sq->a = b->a;
    sq->line = sq->col = 1;
    if (ast != NULL && b->text != NULL && ast->pos <= b->text_len)
        sql_line_col_memo(b->line_memo, b->text, b->text_len, ast->pos, &sq->line, &sq->col);
    SILT_RETURN_IF_ERROR(node_of(b, sq, arg, out, err));
    sq->id = ++b->n_subqueries;
    for (tail = &b->subqueries; *tail != NULL; tail = &(*tail)->next)
        ;
    *tail = sq;
    if (!b->defer_subqueries)
        SILT_RETURN_IF_ERROR(sq_run(sq, err));
    return SILT_OK;
}

silt_status sql_plan_subqueries_attach(binder *b, plan *p, silt_error *err)
{
    if (b->subqueries != NULL && b->defer_subqueries)
        engine_op_set_prologue(p->op, run_all, b->subqueries);
    return SILT_OK;
}

const bind_subquery *sql_plan_subquery_of(const binder *b, const expr *e)
{
    const bind_subquery *sq;
    if (e->kind != EXPR_SUBQUERY)
        return NULL;
    for (sq = b->subqueries; sq != NULL; sq = sq->next)
        if (&sq->slot == e->slot)
            return sq;
    return NULL;
}

silt_status sql_plan_statement_query(binder *b, const sql_query *q, plan *out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(sql_plan_query(b, q, out, err));
    return sql_plan_subqueries_attach(b, out, err);
}
