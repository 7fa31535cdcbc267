/*
 * exec_constraints.c - Delta CHECK constraints (delta.constraints.<name>):
 * binding their stored SQL text over a table schema, and the check every
 * written batch passes (delta_write_options.check), in Delta's words.
 *
 * PROTOCOL: Column Invariants / CHECK Constraints: "writers must validate
 * that each row satisfies the constraint and fail otherwise". A row
 * violates a constraint when the expression is false or NULL, as Delta's
 * DeltaInvariantCheckerExec decides, and the statement then writes
 * nothing: the check runs before the writer takes the batch, and the
 * commit never happens. The message lists the referenced columns' values
 * of the first violating row, like Spark's
 * [DELTA_VIOLATE_CONSTRAINT_WITH_VALUES].
 *
 * Writers of one statement may run on several workers and call the check
 * at once: it evaluates under a mutex, on an engine context and arena of
 * its own (arenas are not thread-safe).
 */
#include <pthread.h>
#include <string.h>

#include "formats/text.h"
#include "sql/exec.h"
#include "sql/parser.h"

typedef struct bound_constraint {
    const char *name; /* as stored after "delta.constraints." */
    const char *text; /* the stored expression text */
    const char *shown; /* the expression as printed in messages */
    expr *e;
    size_t n_refs;
    int64_t *refs; /* referenced table columns, in order of appearance */
} bound_constraint;

struct sql_constraints {
    size_t n;
    bound_constraint *items;
    const col_type *schema;
    engine_ctx ctx;
    arena *scratch;
    pthread_mutex_t lock;
    int lock_ready;
};

static void constraints_free(void *p)
{
    sql_constraints *c = p;
    if (c->lock_ready)
        pthread_mutex_destroy(&c->lock);
    arena_free(c->ctx.query_arena);
    c->ctx.query_arena = NULL;
}

/* The expression of "SELECT <text>", parsed in a. */
silt_status sql_constraint_parse(arena *a, const char *text, sql_expr **out, silt_error *err)
{
    const char *select = arena_sprintf(a, "SELECT %s", text);
    sql_stmt_list *list = NULL;
    const sql_stmt *st;
    if (select == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(sql_parse(a, select, &list, err));
    st = list->n == 1 ? list->items[0] : NULL;
    if (st == NULL || st->kind != SQL_STMT_QUERY || st->u.query->kind != SQL_QUERY_SELECT ||
        st->u.query->u.select.n_items != 1 || st->u.query->u.select.n_from != 0 ||
        st->u.query->u.select.where != NULL)
        return err_set(err, SILT_PARSE, "the constraint \"%s\" is not one expression", text);
    *out = st->u.query->u.select.items[0].expr;
    return SILT_OK;
}

static void add_ref(arena *a, bound_constraint *bc, int64_t col)
{
    size_t idx;
    int64_t *grown;
    for (idx = 0; idx < bc->n_refs; idx++)
        if (bc->refs[idx] == col)
            return;
    grown = arena_alloc(a, (bc->n_refs + 1) * sizeof(int64_t));
    if (grown == NULL)
        return; /* the message then lists fewer values; the check itself is unaffected */
    if (bc->n_refs > 0)
        memcpy(grown, bc->refs, bc->n_refs * sizeof(int64_t));
    grown[bc->n_refs++] = col;
    bc->refs = grown;
}

static void collect_refs(arena *a, const expr *e, bound_constraint *bc)
{
    size_t idx;
    if (e->kind == EXPR_COLUMN)
        add_ref(a, bc, e->col_idx);
    for (idx = 0; idx < e->n_args; idx++)
        collect_refs(a, e->args[idx], bc);
}

silt_status sql_constraint_bind(binder *b, const col_type *schema, const char *name,
                                const char *text, const sql_expr *ast, expr **out,
                                silt_error *err)
{
    bind_scope scope;
    bind_ctx bc = {NULL, NULL, NULL, NULL};
    SILT_RETURN_IF_ERROR(sql_scope_from_schema(b->a, schema, NULL, &scope, err));
    bc.scope = &scope;
    SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, ast, out, err));
    if ((*out)->type->id != COL_BOOLEAN)
        return err_set(err, SILT_BIND, "[DELTA_NON_BOOLEAN_CHECK_CONSTRAINT] CHECK constraint "
                       "'%s' (%s) should be a boolean expression.", name, text);
    return SILT_OK;
}

/* Binds one stored constraint; positions in its errors are in its own text. */
static silt_status bind_stored(binder *b, const col_type *schema, bound_constraint *out,
                               silt_error *err)
{
    const char *saved = b->text;
    size_t saved_len = b->text_len;
    sql_expr *ast = NULL;
    silt_status rc = sql_constraint_parse(b->a, out->text, &ast, err);
    if (rc == SILT_OK) {
        b->text = arena_sprintf(b->a, "SELECT %s", out->text);
        b->text_len = b->text ? strlen(b->text) : 0;
        rc = b->text ? sql_constraint_bind(b, schema, out->name, out->text, ast, &out->e, err)
                     : err_nomem(err);
        b->text = saved;
        b->text_len = saved_len;
    }
    if (rc != SILT_OK)
        return err_context(err, "while binding the CHECK constraint %s (%s) of the table",
                           out->name, out->text);
    out->shown = sql_bind_expr_text(b, ast);
    if (out->shown == NULL)
        out->shown = out->text;
    collect_refs(b->a, out->e, out);
    return SILT_OK;
}

silt_status sql_constraints_new(binder *b, const dlog_metadata *md, const col_type *schema,
                                sql_constraints **out, silt_error *err)
{
    sql_constraints *c;
    size_t idx, n = 0;
    *out = NULL;
    for (idx = 0; idx < md->configuration.n; idx++)
        if (util_str_ncasecmp(md->configuration.items[idx].key, "delta.constraints.", 18) == 0)
            n++;
    if (n == 0)
        return SILT_OK;
    c = arena_calloc(b->a, 1, sizeof(*c));
    if (c == NULL || (c->items = arena_calloc(b->a, n, sizeof(bound_constraint))) == NULL ||
        arena_on_cleanup(b->a, constraints_free, c) == 0)
        return err_nomem(err);
    for (idx = 0; idx < md->configuration.n; idx++) {
        const dlog_kv *kv = &md->configuration.items[idx];
        bound_constraint *bc;
        if (util_str_ncasecmp(kv->key, "delta.constraints.", 18) != 0)
            continue;
        bc = &c->items[c->n++];
        bc->name = kv->key + 18;
        bc->text = kv->value ? kv->value : "";
        SILT_RETURN_IF_ERROR(bind_stored(b, schema, bc, err));
    }
    c->schema = schema;
    c->ctx = *b->ctx;
    c->ctx.pool = NULL;
    c->ctx.mem_used = 0;
    c->ctx.query_arena = arena_new(NULL, "constraint check");
    if (c->ctx.query_arena == NULL ||
        (c->scratch = arena_new(c->ctx.query_arena, "constraint batch")) == NULL)
        return err_nomem(err);
    if (pthread_mutex_init(&c->lock, NULL) != 0)
        return err_set(err, SILT_NOMEM, "could not create a mutex for the CHECK constraints");
    c->lock_ready = 1;
    *out = c;
    return SILT_OK;
}

/* [DELTA_VIOLATE_CONSTRAINT_WITH_VALUES] for row `row` of batch. */
static silt_status violation(const bound_constraint *bc, const col_batch *batch, int64_t row,
                             silt_error *err)
{
    buf msg = BUF_INIT;
    silt_status rc = buf_printf(&msg, err, "[DELTA_VIOLATE_CONSTRAINT_WITH_VALUES] CHECK "
                                "constraint %s %s violated by row with values:", bc->name,
                                bc->shown);
    size_t idx;
    for (idx = 0; rc == SILT_OK && idx < bc->n_refs; idx++) {
        const col_vec *v = batch->cols[bc->refs[idx]];
        rc = buf_printf(&msg, err, "\n - %s : ", batch->schema->fields[bc->refs[idx]].name);
        if (rc == SILT_OK)
            rc = col_vec_is_null(v, row) ? buf_append_str(&msg, "null", err)
                                         : text_spark_value(&msg, v, row, err);
    }
    if (rc == SILT_OK)
        rc = err_set(err, SILT_RUNTIME, "%s", buf_cstr(&msg));
    buf_clear(&msg);
    return rc;
}

/* The first row of batch where bc is not TRUE, or -1. */
static silt_status first_violation(sql_constraints *c, const bound_constraint *bc,
                                   const col_batch *batch, int64_t *row_out, silt_error *err)
{
    int32_t *sel = arena_alloc(c->scratch, (size_t)(batch->n_rows + 1) * sizeof(int32_t));
    int64_t n_out = 0, row;
    *row_out = -1;
    if (sel == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(expr_filter(bc->e, &c->ctx, batch, NULL, batch->n_rows, c->scratch, sel,
                                     &n_out, err));
    if (n_out == batch->n_rows)
        return SILT_OK;
    for (row = 0; row < n_out && sel[row] == row; row++)
        ;
    *row_out = row;
    return SILT_OK;
}

silt_status sql_constraints_check(void *payload, const col_batch *batch, silt_error *err)
{
    sql_constraints *c = payload;
    col_batch view = *batch;
    size_t idx;
    silt_status rc = SILT_OK;
    if (c == NULL || batch->n_rows == 0)
        return SILT_OK;
    if (batch->n_cols < c->schema->n_fields)
        return err_set(err, SILT_INVALID, "the rows to check have %zu columns, the constraints' "
                       "schema %zu", batch->n_cols, c->schema->n_fields);
    view.schema = batch->schema;
    pthread_mutex_lock(&c->lock);
    for (idx = 0; rc == SILT_OK && idx < c->n; idx++) {
        int64_t row = -1;
        arena_reset(c->scratch);
        rc = first_violation(c, &c->items[idx], &view, &row, err);
        if (rc == SILT_OK && row >= 0)
            rc = violation(&c->items[idx], &view, row, err);
    }
    arena_reset(c->scratch);
    pthread_mutex_unlock(&c->lock);
    return rc;
}
