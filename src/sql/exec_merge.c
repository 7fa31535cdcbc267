/*
 * exec_merge.c - MERGE INTO target USING source ON keys WHEN ... onto
 * delta_merge.
 *
 * The source is planned as any FROM item and collected in memory (the
 * delta layer hashes its keys). The ON condition must be a conjunction of
 * equalities between a target column and a source column: those are the
 * join keys delta_merge takes.
 *
 * The clauses of one kind are evaluated in order, first match wins, which
 * is exactly a searched CASE: per batch the engine evaluates
 *   action  = CASE WHEN c1 THEN a1 WHEN c2 THEN a2 ... ELSE 0 END
 *   value_c = CASE WHEN c1 THEN v1c WHEN c2 THEN v2c ... ELSE target.c END
 * over the target columns followed by the source columns (WHEN MATCHED),
 * the target columns (NOT MATCHED BY SOURCE) or the source columns (NOT
 * MATCHED: inserts, with ELSE NULL and rows of action 0 dropped).
 */
#include <string.h>

#include "delta/dml.h"
#include "delta/partition.h"
#include "delta/stats.h"
#include "engine/engine.h"
#include "formats/text.h"
#include "sql/exec.h"

typedef struct merge_side {
    binder *b;
    expr *action;          /* INT: 0 none, else a delta_merge_action (1 for inserts) */
    expr **values;         /* one per table column */
    size_t n_cols;         /* table columns */
    const col_type *table;
    const col_type *input; /* schema of the batch the expressions read */
    int with_source;       /* matched: target columns then source columns */
    int with_target;
    size_t n_source;       /* source columns the expressions see (cast keys follow them) */
} merge_side;

static silt_status input_batch(const merge_side *m, const col_batch *target,
                               const col_batch *source, arena *a, col_batch *out,
                               silt_error *err)
{
    size_t n = 0, idx;
    const col_batch *one = m->with_target ? target : source;
    out->schema = m->input;
    out->n_rows = one->n_rows;
    out->n_cols = (m->with_target ? target->n_cols : 0) + (m->with_source ? m->n_source : 0);
    out->cols = arena_calloc(a, out->n_cols + 1, sizeof(col_vec *));
    if (out->cols == NULL)
        return err_nomem(err);
    if (m->with_target)
        for (idx = 0; idx < target->n_cols; idx++)
            out->cols[n++] = target->cols[idx];
    if (m->with_source)
        for (idx = 0; idx < m->n_source; idx++)
            out->cols[n++] = source->cols[idx];
    return SILT_OK;
}

static silt_status eval_values(const merge_side *m, const col_batch *in, arena *a,
                               col_batch **out, silt_error *err)
{
    col_batch *res = arena_calloc(a, 1, sizeof(*res));
    size_t idx;
    if (res == NULL || (res->cols = arena_calloc(a, m->n_cols + 1, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    res->schema = m->table;
    res->n_rows = in->n_rows;
    res->n_cols = m->n_cols;
    for (idx = 0; idx < m->n_cols; idx++)
        SILT_RETURN_IF_ERROR(expr_eval(m->values[idx], m->b->ctx, in, NULL, in->n_rows, a,
                                       &res->cols[idx], err));
    *out = res;
    return SILT_OK;
}

static silt_status eval_actions(const merge_side *m, const col_batch *in, arena *a,
                                uint8_t *action, int *any_update, silt_error *err)
{
    col_vec *v;
    int64_t row;
    *any_update = 0;
    SILT_RETURN_IF_ERROR(expr_eval(m->action, m->b->ctx, in, NULL, in->n_rows, a, &v, err));
    for (row = 0; row < in->n_rows; row++) {
        int32_t code = col_vec_is_null(v, row) ? 0 : ((const int32_t *)v->values)[row];
        action[row] = (uint8_t)code;
        if (code == DELTA_MERGE_UPDATE)
            *any_update = 1;
    }
    return SILT_OK;
}

static silt_status merge_rows(const col_batch *target, const col_batch *source, uint8_t *action,
                              arena *a, col_batch **updated_out, void *payload, silt_error *err)
{
    const merge_side *m = payload;
    col_batch in;
    int any_update;
    *updated_out = NULL;
    /* the MERGE loop in delta/ calls here for every batch: its interrupt point */
    SILT_RETURN_IF_ERROR(engine_check_interrupt(m->b->ctx, err));
    SILT_RETURN_IF_ERROR(input_batch(m, target, source, a, &in, err));
    SILT_RETURN_IF_ERROR(eval_actions(m, &in, a, action, &any_update, err));
    if (!any_update)
        return SILT_OK;
    return eval_values(m, &in, a, updated_out, err);
}

static silt_status merge_insert(const col_batch *source, arena *a, col_batch **rows_out,
                                void *payload, silt_error *err)
{
    const merge_side *m = payload;
    col_batch in, *all;
    uint8_t *keep = arena_alloc(a, (size_t)source->n_rows + 1);
    int any;
    SILT_RETURN_IF_ERROR(engine_check_interrupt(m->b->ctx, err));
    if (keep == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(input_batch(m, NULL, source, a, &in, err));
    SILT_RETURN_IF_ERROR(eval_actions(m, &in, a, keep, &any, err));
    SILT_RETURN_IF_ERROR(eval_values(m, &in, a, &all, err));
    return col_batch_filter(rows_out, a, all, keep, err);
}

/* ---------------------------------------------------------------- binding */

/* The text of a WHEN clause's condition: from its start to the THEN that ends it. */
static const char *cond_text(binder *b, const sql_expr *cond)
{
    size_t at = cond->pos, end;
    char quote = 0;
    for (end = at; end + 4 <= b->text_len; end++) {
        char ch = b->text[end];
        if (quote != 0) {
            if (ch == quote)
                quote = 0;
            continue;
        }
        if (ch == '\'' || ch == '"' || ch == '`') {
            quote = ch;
            continue;
        }
        if (util_str_ncasecmp(b->text + end, "then", 4) == 0 && end > at &&
            (b->text[end - 1] == ' ' || b->text[end - 1] == '\n' || b->text[end - 1] == '\t' ||
             b->text[end - 1] == ')') &&
            (end + 4 == b->text_len || b->text[end + 4] == ' ' || b->text[end + 4] == '\n' ||
             b->text[end + 4] == '\t'))
            break;
    }
    if (end + 4 > b->text_len)
        return sql_bind_expr_text(b, cond);
    while (end > at && (b->text[end - 1] == ' ' || b->text[end - 1] == '\n' ||
                        b->text[end - 1] == '\t' || b->text[end - 1] == '\r'))
        end--;
    return arena_strndup(b->a, b->text + at, end - at);
}

typedef struct merge_bind {
    binder *b;
    const sql_stmt *stmt;
    const col_type *table; /* the target's schema after the MERGE (evolved or not) */
    int evolve;            /* WITH SCHEMA EVOLUTION or autoMerge */
    size_t n_old;          /* columns of the snapshot's schema */
    bind_scope target, source, both;
    const char *target_qual, *source_qual;
} merge_bind;

/* A column the schema evolution added (not in the snapshot the files were written with). */
static int is_new_column(const merge_bind *mb, size_t col)
{
    return mb->evolve && col >= mb->n_old;
}

static silt_status concat_scopes(binder *b, const bind_scope *x, const bind_scope *y,
                                 bind_scope *out, silt_error *err)
{
    out->n = x->n + y->n;
    out->cols = arena_calloc(b->a, out->n + 1, sizeof(bind_col));
    if (out->cols == NULL)
        return err_nomem(err);
    memcpy(out->cols, x->cols, x->n * sizeof(bind_col));
    memcpy(out->cols + x->n, y->cols, y->n * sizeof(bind_col));
    return SILT_OK;
}

static silt_status bind_in(merge_bind *mb, const bind_scope *scope, const sql_expr *ast,
                           expr **out, silt_error *err)
{
    bind_ctx bc = {scope, NULL, NULL, NULL};
    if (sql_bind_has_agg(ast) || sql_bind_has_window(ast))
        return sql_bind_error(mb->b, err, ast->pos, SILT_BIND, "aggregate and window functions are "
                          "not allowed in MERGE");
    return sql_bind_expr(mb->b, &bc, ast, out, err);
}

/* A column of the source named like table column `name` (UPDATE SET * / INSERT *). */
static silt_status source_by_name(merge_bind *mb, const sql_merge_clause *c, const char *name,
                                  size_t offset, const col_type *want, expr **out,
                                  silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < mb->source.n; idx++) {
        if (util_str_casecmp(mb->source.cols[idx].name, name) != 0)
            continue;
        /* Delta's schema merge: castable types are cast to the table's, others refused. */
        if (mb->evolve && !col_type_equal(mb->source.cols[idx].type, want) &&
            !expr_cast_allowed(mb->source.cols[idx].type, want))
            return sql_bind_error(mb->b, err, c->pos, SILT_INVALID, "[DELTA_FAILED_TO_MERGE_FIELDS] "
                              "Failed to merge fields '%s' and '%s'", name,
                              mb->source.cols[idx].name);
        SILT_RETURN_IF_ERROR(expr_column(out, mb->b->a, (int64_t)(offset + idx),
                                         mb->source.cols[idx].type, err));
        return expr_coerce(out, mb->b->a, want, err);
    }
    /* Delta with schema evolution: a target column the source lacks keeps its value
     * (UPDATE SET *) or is null (INSERT *); NULL here means exactly that. */
    if (mb->evolve) {
        *out = NULL;
        return SILT_OK;
    }
    return sql_bind_error(mb->b, err, c->pos, SILT_BIND, "[DELTA_MERGE_UNRESOLVED_EXPRESSION] "
                      "cannot resolve `%s` in the source of MERGE for %s *", name,
                      c->action == SQL_MERGE_INSERT_ALL ? "INSERT" : "UPDATE SET");
}

/* The value each table column gets from one clause; NULL entries keep the target's value. */
static silt_status clause_values(merge_bind *mb, const sql_merge_clause *c,
                                 const bind_scope *scope, size_t source_offset, expr **vals,
                                 silt_error *err)
{
    size_t idx;
    const col_type *t = mb->table;
    if (c->action == SQL_MERGE_UPDATE_ALL || c->action == SQL_MERGE_INSERT_ALL) {
        for (idx = 0; idx < t->n_fields; idx++)
            SILT_RETURN_IF_ERROR(source_by_name(mb, c, t->fields[idx].name, source_offset,
                                                t->fields[idx].type, &vals[idx], err));
        return SILT_OK;
    }
    if (c->action == SQL_MERGE_UPDATE) {
        for (idx = 0; idx < c->set.n; idx++) {
            const sql_name *target = &c->set.items[idx].target;
            const char *name = target->parts[target->n_parts - 1].name;
            size_t f;
            for (f = 0; f < t->n_fields; f++)
                if (util_str_casecmp(t->fields[f].name, name) == 0)
                    break;
            if (f == t->n_fields || target->n_parts > 2)
                return sql_bind_error(mb->b, err, target->pos, SILT_BIND, "[DELTA_MERGE_UNRESOLVED_"
                                  "EXPRESSION] cannot resolve `%s` among the target's columns",
                                  name);
            if (vals[f] != NULL)
                return sql_bind_error(mb->b, err, target->pos, SILT_BIND, "[DUPLICATE_ASSIGNMENTS] "
                                  "The column `%s` is assigned more than once", name);
            SILT_RETURN_IF_ERROR(bind_in(mb, scope, c->set.items[idx].value, &vals[f], err));
            SILT_RETURN_IF_ERROR(expr_coerce(&vals[f], mb->b->a, t->fields[f].type, err));
        }
        return SILT_OK;
    }
    if (c->action == SQL_MERGE_INSERT) {
        if (c->insert_cols.n != c->insert_values.n)
            return sql_bind_error(mb->b, err, c->pos, SILT_BIND, "INSERT in MERGE has %zu columns "
                              "but %zu values", c->insert_cols.n, c->insert_values.n);
        for (idx = 0; idx < c->insert_cols.n; idx++) {
            size_t f;
            for (f = 0; f < t->n_fields; f++)
                if (util_str_casecmp(t->fields[f].name, c->insert_cols.items[idx].name) == 0)
                    break;
            if (f == t->n_fields)
                return sql_bind_error(mb->b, err, c->insert_cols.items[idx].pos, SILT_BIND,
                                  "[DELTA_MERGE_UNRESOLVED_EXPRESSION] cannot resolve `%s` among "
                                  "the target's columns", c->insert_cols.items[idx].name);
            if (vals[f] != NULL)
                return sql_bind_error(mb->b, err, c->insert_cols.items[idx].pos, SILT_BIND,
                                  "[DUPLICATE_ASSIGNMENTS] The column `%s` is assigned more "
                                  "than once", t->fields[f].name);
            SILT_RETURN_IF_ERROR(bind_in(mb, scope, c->insert_values.items[idx], &vals[f], err));
            SILT_RETURN_IF_ERROR(expr_coerce(&vals[f], mb->b->a, t->fields[f].type, err));
        }
    }
    return SILT_OK;
}

static int clause_action_code(const sql_merge_clause *c)
{
    switch (c->action) {
    case SQL_MERGE_DELETE: return DELTA_MERGE_DELETE;
    default: return DELTA_MERGE_UPDATE; /* inserts use 1 too: "insert this row" */
    }
}

/*
 * Builds one side from the clauses of kind `match`: the scope they read,
 * where the source columns start in it, and the CASE expressions.
 * Sets *present 0 when there is no clause of that kind.
 */
static silt_status build_side(merge_bind *mb, sql_merge_match match, merge_side *side,
                              int *present, buf *json, silt_error *err)
{
    const sql_stmt *stmt = mb->stmt;
    const bind_scope *scope;
    size_t source_offset, n = 0, idx, col;
    expr **conds, **acts, ***vals;
    memset(side, 0, sizeof(*side));
    side->b = mb->b;
    side->table = mb->table;
    side->n_cols = mb->table->n_fields;
    side->n_source = mb->source.n;
    side->with_target = match != SQL_MERGE_NOT_MATCHED;
    side->with_source = match != SQL_MERGE_NOT_MATCHED_BY_SOURCE;
    scope = match == SQL_MERGE_MATCHED ? &mb->both
            : match == SQL_MERGE_NOT_MATCHED ? &mb->source : &mb->target;
    source_offset = match == SQL_MERGE_MATCHED ? mb->target.n : 0;
    side->input = sql_scope_schema(mb->b->a, scope);
    conds = arena_calloc(mb->b->a, stmt->u.merge.n_clauses + 1, sizeof(expr *));
    acts = arena_calloc(mb->b->a, stmt->u.merge.n_clauses + 1, sizeof(expr *));
    vals = arena_calloc(mb->b->a, stmt->u.merge.n_clauses + 1, sizeof(expr **));
    side->values = arena_calloc(mb->b->a, side->n_cols + 1, sizeof(expr *));
    if (side->input == NULL || conds == NULL || acts == NULL || vals == NULL ||
        side->values == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(buf_append_char(json, '[', err));
    for (idx = 0; idx < stmt->u.merge.n_clauses; idx++) {
        const sql_merge_clause *c = &stmt->u.merge.clauses[idx];
        const char *kind;
        if (c->match != match)
            continue;
        if (c->cond != NULL) {
            SILT_RETURN_IF_ERROR(bind_in(mb, scope, c->cond, &conds[n], err));
            if (conds[n]->type->id != COL_BOOLEAN && conds[n]->type->id != COL_NULL)
                return sql_bind_error(mb->b, err, c->cond->pos, SILT_BIND, "the condition of a WHEN "
                                  "clause must be a boolean");
        } else {
            SILT_RETURN_IF_ERROR(expr_lit_bool(&conds[n], mb->b->a, 1, err));
        }
        SILT_RETURN_IF_ERROR(expr_lit_int(&acts[n], mb->b->a, COL_INT, clause_action_code(c),
                                          err));
        vals[n] = arena_calloc(mb->b->a, side->n_cols + 1, sizeof(expr *));
        if (vals[n] == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(clause_values(mb, c, scope, source_offset, vals[n], err));
        kind = c->action == SQL_MERGE_DELETE ? "delete"
               : c->action == SQL_MERGE_INSERT || c->action == SQL_MERGE_INSERT_ALL ? "insert"
                                                                                   : "update";
        SILT_RETURN_IF_ERROR(buf_append_str(json, n ? ",{" : "{", err));
        if (c->cond != NULL) {
            const char *text = cond_text(mb->b, c->cond);
            if (text == NULL)
                text = "";
            SILT_RETURN_IF_ERROR(buf_append_str(json, "\"predicate\":", err));
            SILT_RETURN_IF_ERROR(text_spark_json_string(json, text, strlen(text), err));
            SILT_RETURN_IF_ERROR(buf_append_char(json, ',', err));
        }
        SILT_RETURN_IF_ERROR(buf_printf(json, err, "\"actionType\":\"%s\"}", kind));
        n++;
    }
    SILT_RETURN_IF_ERROR(buf_append_char(json, ']', err));
    *present = n > 0;
    if (n == 0)
        return SILT_OK;
    {
        expr *zero;
        SILT_RETURN_IF_ERROR(expr_lit_int(&zero, mb->b->a, COL_INT, 0, err));
        SILT_RETURN_IF_ERROR(expr_case(&side->action, mb->b->a, n, conds, acts, zero, err));
    }
    for (col = 0; col < side->n_cols; col++) {
        expr **col_vals = arena_calloc(mb->b->a, n + 1, sizeof(expr *));
        expr *keep_val = NULL;
        size_t k;
        const col_type *ct = mb->table->fields[col].type;
        if (col_vals == NULL)
            return err_nomem(err);
        if (side->with_target)
            SILT_RETURN_IF_ERROR(expr_column(&keep_val, mb->b->a, (int64_t)col, ct, err));
        else
            SILT_RETURN_IF_ERROR(expr_lit_null(&keep_val, mb->b->a, ct, err));
        for (k = 0; k < n; k++)
            col_vals[k] = vals[k][col] != NULL ? vals[k][col] : keep_val;
        SILT_RETURN_IF_ERROR(expr_case(&side->values[col], mb->b->a, n, conds, col_vals,
                                       keep_val, err));
        SILT_RETURN_IF_ERROR(expr_coerce(&side->values[col], mb->b->a, ct, err));
    }
    return SILT_OK;
}

/* Resolves a key side quietly: the column index in scope, or -1. */
static int64_t key_col(merge_bind *mb, const bind_scope *scope, const sql_expr *e)
{
    silt_error scratch = SILT_ERROR_INIT;
    int64_t idx;
    size_t used;
    if (e->kind != SQL_EXPR_COLUMN)
        return -1;
    if (sql_bind_resolve_column(mb->b, scope, &e->u.column, &idx, &used, &scratch) != SILT_OK ||
        used != e->u.column.n_parts)
        return -1;
    return idx;
}

/*
 * A source key of another type than its target column: the source column
 * cast to the target's type, appended to the source batch after the
 * columns the clauses see. Returns its index.
 */
static silt_status cast_key(merge_bind *mb, col_batch *source, size_t s, const col_type *want,
                            const sql_expr *at, size_t *out, silt_error *err)
{
    expr *e;
    col_vec **cols;
    if (!expr_cast_allowed(mb->source.cols[s].type, want))
        return sql_bind_error(mb->b, err, at->pos, SILT_BIND, "[DATATYPE_MISMATCH] MERGE key "
                          "`%s` cannot be compared with the target column",
                          mb->source.cols[s].name);
    SILT_RETURN_IF_ERROR(expr_column(&e, mb->b->a, (int64_t)s, mb->source.cols[s].type, err));
    SILT_RETURN_IF_ERROR(expr_cast(&e, mb->b->a, e, want, 0, err));
    cols = arena_calloc(mb->b->a, source->n_cols + 2, sizeof(col_vec *));
    if (cols == NULL)
        return err_nomem(err);
    memcpy(cols, source->cols, source->n_cols * sizeof(col_vec *));
    SILT_RETURN_IF_ERROR(expr_eval(e, mb->b->ctx, source, NULL, source->n_rows, mb->b->a,
                                   &cols[source->n_cols], err));
    source->cols = cols;
    *out = source->n_cols++;
    return SILT_OK;
}

/* The ON condition evaluated over (target row, source row) pairs. */
typedef struct on_rest_eval {
    binder *b;
    expr *cond;
    const col_type *input; /* target columns, then the source columns the clauses see */
    size_t n_source;
} on_rest_eval;

static silt_status eval_on_rest(const col_batch *target, const col_batch *source,
                                uint8_t *match, arena *a, void *payload, silt_error *err)
{
    const on_rest_eval *ev = payload;
    col_batch in;
    int32_t *sel = arena_alloc(a, (size_t)(target->n_rows + 1) * sizeof(int32_t));
    int64_t n_out = 0, idx;
    size_t col;
    in.schema = ev->input;
    in.n_rows = target->n_rows;
    in.n_cols = target->n_cols + ev->n_source;
    in.cols = arena_calloc(a, in.n_cols + 1, sizeof(col_vec *));
    if (sel == NULL || in.cols == NULL)
        return err_nomem(err);
    for (col = 0; col < target->n_cols; col++)
        in.cols[col] = target->cols[col];
    for (col = 0; col < ev->n_source; col++)
        in.cols[target->n_cols + col] = source->cols[col];
    SILT_RETURN_IF_ERROR(expr_filter(ev->cond, ev->b->ctx, &in, NULL, in.n_rows, a, sel, &n_out,
                                     err));
    memset(match, 0, (size_t)target->n_rows);
    for (idx = 0; idx < n_out; idx++)
        match[sel[idx]] = 1;
    return SILT_OK;
}

/*
 * An ON condition that is not only key equalities (ranges, OR, expressions): the whole
 * condition is checked for each candidate pair, the candidates being the source rows with
 * the same keys, or every source row when there are no keys (a nested loop, as Spark's
 * MERGE without an equi-join).
 */
static silt_status bind_on_rest(merge_bind *mb, delta_merge_spec *spec, silt_error *err)
{
    on_rest_eval *ev = arena_calloc(mb->b->a, 1, sizeof(*ev));
    const sql_expr *on = mb->stmt->u.merge.on;
    if (ev == NULL)
        return err_nomem(err);
    ev->b = mb->b;
    ev->n_source = mb->source.n;
    ev->input = sql_scope_schema(mb->b->a, &mb->both);
    if (ev->input == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(bind_in(mb, &mb->both, on, &ev->cond, err));
    if (ev->cond->type->id != COL_BOOLEAN && ev->cond->type->id != COL_NULL)
        return sql_bind_error(mb->b, err, on->pos, SILT_BIND, "[DATATYPE_MISMATCH] the ON condition "
                          "of MERGE must be a boolean");
    spec->on_rest = eval_on_rest;
    spec->on_rest_payload = ev;
    return SILT_OK;
}

static silt_status merge_keys(merge_bind *mb, col_batch *source, delta_merge_spec *spec,
                              silt_error *err)
{
    const sql_expr *on = mb->stmt->u.merge.on;
    const sql_expr *conj[64];
    size_t n = 0, idx, n_keys = 0, rest = 0;
    const char **tkeys;
    size_t *skeys;
    sql_split_and(on, conj, &n, 64);
    tkeys = arena_calloc(mb->b->a, n + 1, sizeof(char *));
    skeys = arena_calloc(mb->b->a, n + 1, sizeof(size_t));
    if (tkeys == NULL || skeys == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        const sql_expr *e = conj[idx];
        int64_t t = -1, s = -1;
        if (e->kind == SQL_EXPR_BINARY && e->u.op.op == SQL_OP_EQ) {
            t = key_col(mb, &mb->target, e->u.op.left);
            s = key_col(mb, &mb->source, e->u.op.right);
            if (t < 0 || s < 0) {
                t = key_col(mb, &mb->target, e->u.op.right);
                s = key_col(mb, &mb->source, e->u.op.left);
            }
        }
        if (t < 0 || s < 0 || is_new_column(mb, (size_t)t)) {
            rest++; /* checked per candidate pair by the whole ON condition */
            continue;
        }
        tkeys[n_keys] = mb->target.cols[t].name;
        skeys[n_keys] = (size_t)s;
        if (!col_type_equal(mb->target.cols[t].type, mb->source.cols[s].type))
            SILT_RETURN_IF_ERROR(cast_key(mb, source, (size_t)s, mb->target.cols[t].type, e,
                                          &skeys[n_keys], err));
        n_keys++;
    }
    if (n == 64)
        rest++; /* conjuncts past the 64th were not looked at */
    if (rest > 0)
        SILT_RETURN_IF_ERROR(bind_on_rest(mb, spec, err));
    spec->n_keys = n_keys;
    spec->target_keys = tkeys;
    spec->source_keys = skeys;
    return SILT_OK;
}

/* ---------------------------------------------------------------- target file pruning */

typedef struct merge_prune {
    const delta_snapshot *snap;
    uint8_t *keep;
} merge_prune;

static int merge_filter(const delta_snapshot *snap, const delta_file *file, void *payload)
{
    const merge_prune *mp = payload;
    if (snap != mp->snap || file < snap->files || file >= snap->files + snap->n_files)
        return 1;
    return mp->keep[file - snap->files];
}

/* Byte-wise order of two strings (Delta's order for string statistics). */
static int bytes_cmp(const char *a, size_t a_len, const char *b, size_t b_len)
{
    int c = memcmp(a, b, a_len < b_len ? a_len : b_len);
    if (c != 0)
        return c;
    return a_len < b_len ? -1 : a_len > b_len;
}

/* Min and max of the non-null values of v (integers, dates, timestamps, strings): 1, or -1
 * when every value is null, 0 for other types. */
static int key_range(const col_vec *v, int64_t n_rows, delta_value *lo, delta_value *hi)
{
    int64_t row;
    int found = 0;
    col_type_id id = v->type->id;
    int is_str = id == COL_STRING;
    if (!is_str && id != COL_BYTE && id != COL_SHORT && id != COL_INT && id != COL_LONG &&
        id != COL_DATE && id != COL_TIMESTAMP && id != COL_TIMESTAMP_NTZ)
        return 0;
    memset(lo, 0, sizeof(*lo));
    memset(hi, 0, sizeof(*hi));
    lo->type = hi->type = id;
    for (row = 0; row < n_rows; row++) {
        if (col_vec_is_null(v, row))
            continue;
        if (is_str) {
            int32_t len;
            const char *str = col_vec_str(v, row, &len);
            if (!found || bytes_cmp(str, (size_t)len, lo->v.s.ptr, lo->v.s.len) < 0) {
                lo->v.s.ptr = str;
                lo->v.s.len = (size_t)len;
            }
            if (!found || bytes_cmp(str, (size_t)len, hi->v.s.ptr, hi->v.s.len) > 0) {
                hi->v.s.ptr = str;
                hi->v.s.len = (size_t)len;
            }
        } else {
            int64_t x = vec_get_int(v, row);
            if (!found || x < lo->v.i)
                lo->v.i = x;
            if (!found || x > hi->v.i)
                hi->v.i = x;
        }
        found = 1;
    }
    return found ? 1 : -1;
}

/*
 * Without WHEN NOT MATCHED BY SOURCE only target rows a source row matches
 * change, so a target file whose key statistics lie outside the source
 * keys' range is neither read nor rewritten.
 */
static silt_status plan_merge_pruning(merge_bind *mb, const delta_snapshot *snap,
                                      const col_batch *source, delta_merge_spec *spec,
                                      merge_prune *mp, silt_error *err)
{
    dpred preds[2 * 8];
    size_t n = 0, k, kept;
    for (k = 0; k < spec->n_keys && k < 8; k++) {
        delta_value lo, hi;
        int r = key_range(source->cols[spec->source_keys[k]], source->n_rows, &lo, &hi);
        if (r == 0)
            continue;
        memset(&preds[n], 0, 2 * sizeof(dpred));
        preds[n].kind = preds[n + 1].kind = DPRED_CMP;
        preds[n].column = preds[n + 1].column = spec->target_keys[k];
        preds[n].op = DPRED_GE;
        preds[n + 1].op = DPRED_LE;
        preds[n].literal = lo;
        preds[n + 1].literal = hi;
        if (r < 0) { /* every source key is null: nothing can match */
            preds[n].kind = DPRED_IS_NULL;
            preds[n + 1].kind = DPRED_IS_NOT_NULL;
        }
        n += 2;
    }
    if (n == 0)
        return SILT_OK;
    mp->snap = snap;
    mp->keep = arena_calloc(mb->b->a, snap->n_files + 1, 1);
    if (mp->keep == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(dstats_prune_files(snap, preds, n, mp->keep, &kept, err));
    spec->file_filter = merge_filter;
    spec->file_filter_payload = mp;
    return SILT_OK;
}

static const char *on_text(binder *b, const sql_stmt *stmt)
{
    size_t start = stmt->u.merge.on->pos, end = stmt->end;
    if (stmt->u.merge.n_clauses > 0 && stmt->u.merge.clauses[0].pos > start)
        end = stmt->u.merge.clauses[0].pos;
    if (end > b->text_len)
        return NULL;
    while (end > start && (b->text[end - 1] == ' ' || b->text[end - 1] == '\n' ||
                           b->text[end - 1] == '\t' || b->text[end - 1] == '\r'))
        end--;
    return arena_strndup(b->a, b->text + start, end - start);
}

static silt_status collect_source(merge_bind *mb, col_batch **out, silt_error *err)
{
    plan p;
    size_t idx, n = 0;
    expr **exprs;
    const char **names;
    const sql_table_ref *ref = mb->stmt->u.merge.source;
    SILT_RETURN_IF_ERROR(sql_plan_table_ref(mb->b, ref, NULL, &p, err));
    exprs = arena_calloc(mb->b->a, p.scope.n + 1, sizeof(expr *));
    names = arena_calloc(mb->b->a, p.scope.n + 1, sizeof(char *));
    if (exprs == NULL || names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < p.scope.n; idx++) {
        if (p.scope.cols[idx].hidden)
            continue;
        SILT_RETURN_IF_ERROR(expr_column(&exprs[n], mb->b->a, (int64_t)idx,
                                         p.scope.cols[idx].type, err));
        names[n++] = p.scope.cols[idx].name;
    }
    {
        bind_scope keep_scope = p.scope;
        SILT_RETURN_IF_ERROR(sql_plan_project(mb->b, &p, exprs, names, n, err));
        for (idx = 0; idx < n; idx++)
            p.scope.cols[idx].qual = mb->source_qual;
        (void)keep_scope;
    }
    mb->source = p.scope;
    return engine_collect(p.op, mb->b->a, out, err);
}

/* ---------------------------------------------------------------- schema evolution */

static int has_field(const col_type *t, size_t n_fields, const char *name)
{
    size_t idx;
    for (idx = 0; idx < n_fields; idx++)
        if (util_str_casecmp(t->fields[idx].name, name) == 0)
            return 1;
    return 0;
}

/* Appends source column `name` (when the source has it and the table not yet) as nullable. */
static void add_source_column(merge_bind *mb, col_field *fields, size_t *n, const char *name)
{
    size_t idx;
    for (idx = 0; idx < mb->source.n; idx++) {
        col_field *f;
        if (util_str_casecmp(mb->source.cols[idx].name, name) != 0)
            continue;
        for (size_t k = 0; k < *n; k++)
            if (util_str_casecmp(fields[k].name, name) == 0)
                return;
        f = &fields[(*n)++];
        memset(f, 0, sizeof(*f));
        f->name = mb->source.cols[idx].name;
        f->type = mb->source.cols[idx].type;
        f->nullable = 1; /* old rows have no value */
        f->field_id = -1;
        return;
    }
}

/*
 * MERGE WITH SCHEMA EVOLUTION / autoMerge (Delta's rules): the source columns UPDATE SET *
 * and INSERT * would write that the target lacks, and new target columns named in UPDATE
 * SET / INSERT (...) that the source has, are appended to the schema in clause order.
 */
static silt_status evolve_schema(merge_bind *mb, silt_error *err)
{
    const sql_stmt *stmt = mb->stmt;
    const col_type *t = mb->table;
    size_t cap = t->n_fields + mb->source.n, n = t->n_fields, idx, k;
    col_field *fields;
    mb->n_old = t->n_fields;
    if (!mb->evolve)
        return SILT_OK;
    fields = arena_calloc(mb->b->a, cap + 1, sizeof(col_field));
    if (fields == NULL)
        return err_nomem(err);
    memcpy(fields, t->fields, t->n_fields * sizeof(col_field));
    for (idx = 0; idx < stmt->u.merge.n_clauses; idx++) {
        const sql_merge_clause *c = &stmt->u.merge.clauses[idx];
        if (c->action == SQL_MERGE_UPDATE_ALL || c->action == SQL_MERGE_INSERT_ALL) {
            for (k = 0; k < mb->source.n; k++)
                add_source_column(mb, fields, &n, mb->source.cols[k].name);
        } else if (c->action == SQL_MERGE_UPDATE) {
            for (k = 0; k < c->set.n; k++) {
                const sql_name *target = &c->set.items[k].target;
                const char *name = target->parts[target->n_parts - 1].name;
                if (!has_field(t, t->n_fields, name))
                    add_source_column(mb, fields, &n, name);
            }
        } else if (c->action == SQL_MERGE_INSERT) {
            for (k = 0; k < c->insert_cols.n; k++)
                if (!has_field(t, t->n_fields, c->insert_cols.items[k].name))
                    add_source_column(mb, fields, &n, c->insert_cols.items[k].name);
        }
    }
    if (n == t->n_fields)
        return SILT_OK;
    mb->table = col_type_struct(mb->b->a, n, fields);
    return mb->table != NULL ? SILT_OK : err_nomem(err);
}

static const char *source_qualifier(const sql_table_ref *ref)
{
    if (ref->alias.name != NULL)
        return ref->alias.name;
    if (ref->kind == SQL_TABLE_NAMED) {
        const sql_name *n = &ref->u.named.name;
        return n->parts[n->n_parts - 1].name;
    }
    return NULL;
}

/* Delta allows several source rows per target row when all they can do is delete it. */
static int only_unconditional_delete(const sql_stmt *stmt)
{
    size_t idx, n = 0;
    int ok = 1;
    for (idx = 0; idx < stmt->u.merge.n_clauses; idx++) {
        const sql_merge_clause *c = &stmt->u.merge.clauses[idx];
        if (c->match != SQL_MERGE_MATCHED)
            continue;
        n++;
        ok = ok && c->action == SQL_MERGE_DELETE && c->cond == NULL;
    }
    return n == 1 && ok;
}

silt_status sql_exec_merge(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    static const char *const names[] = {"num_affected_rows", "num_updated_rows",
                                        "num_deleted_rows", "num_inserted_rows"};
    const sql_table_ref *tref = stmt->u.merge.target;
    merge_bind mb;
    exec_target t;
    col_batch *source;
    merge_side matched, by_source, insert;
    int has_m, has_bs, has_i;
    buf jm = BUF_INIT, jbs = BUF_INIT, ji = BUF_INIT;
    delta_merge_spec spec = DELTA_MERGE_SPEC_INIT;
    delta_merge_metrics m;
    merge_prune prune;
    int64_t counts[4];
    int skip;
    silt_status rc;
    memset(&mb, 0, sizeof(mb));
    memset(&m, 0, sizeof(m));
    mb.b = b;
    mb.stmt = stmt;
    spec.user_metadata = sql_session_get(b->s, SQL_SETTING_USER_METADATA);
    spec.compression = sql_session_get(b->s, SQL_SETTING_PARQUET_CODEC);
    SILT_RETURN_IF_ERROR(sql_exec_commit_retry_timeout(b, &spec.retry_timeout_ms, err));
    if (tref->kind != SQL_TABLE_NAMED)
        return sql_bind_error(b, err, tref->pos, SILT_BIND, "the target of MERGE must be a table");
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, &tref->u.named.name, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, &tref->u.named.name, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_app_txn(b, t.snap, &spec.app_txn, &skip, err));
    if (skip) /* Delta's idempotent DML: this (appId, version) is already in the table */
        return sql_exec_counts_result(b, names, NULL, 4, out, err);
    mb.table = t.snap->schema;
    mb.evolve = stmt->u.merge.schema_evolution ||
                sql_exec_setting_true(b, "spark.databricks.delta.schema.autoMerge.enabled");
    mb.target_qual = source_qualifier(tref);
    mb.source_qual = source_qualifier(stmt->u.merge.source);
    SILT_RETURN_IF_ERROR(collect_source(&mb, &source, err));
    SILT_RETURN_IF_ERROR(evolve_schema(&mb, err));
    SILT_RETURN_IF_ERROR(sql_scope_from_schema(b->a, mb.table, mb.target_qual, &mb.target, err));
    SILT_RETURN_IF_ERROR(concat_scopes(b, &mb.target, &mb.source, &mb.both, err));
    SILT_RETURN_IF_ERROR(merge_keys(&mb, source, &spec, err));
    rc = build_side(&mb, SQL_MERGE_MATCHED, &matched, &has_m, &jm, err);
    if (rc == SILT_OK)
        rc = build_side(&mb, SQL_MERGE_NOT_MATCHED_BY_SOURCE, &by_source, &has_bs, &jbs, err);
    if (rc == SILT_OK)
        rc = build_side(&mb, SQL_MERGE_NOT_MATCHED, &insert, &has_i, &ji, err);
    if (rc == SILT_OK && !has_bs)
        rc = plan_merge_pruning(&mb, t.snap, source, &spec, &prune, err);
    if (rc == SILT_OK) {
        spec.source = source;
        spec.evolved_schema = mb.table != t.snap->schema ? mb.table : NULL;
        spec.multiple_matches_ok = only_unconditional_delete(stmt);
        spec.matched = has_m ? merge_rows : NULL;
        spec.matched_payload = &matched;
        spec.not_matched_by_source = has_bs ? merge_rows : NULL;
        spec.not_matched_by_source_payload = &by_source;
        spec.insert = has_i ? merge_insert : NULL;
        spec.insert_payload = &insert;
        spec.predicate_text = on_text(b, stmt);
        spec.matched_json = buf_cstr(&jm);
        spec.not_matched_json = buf_cstr(&ji);
        spec.not_matched_by_source_json = buf_cstr(&jbs);
        rc = delta_merge(t.store, t.snap, &spec, &m, NULL, err);
    }
    buf_clear(&jm);
    buf_clear(&jbs);
    buf_clear(&ji);
    SILT_RETURN_IF_ERROR(rc);
    counts[1] = m.num_target_rows_updated;
    counts[2] = m.num_target_rows_deleted;
    counts[3] = m.num_target_rows_inserted;
    counts[0] = counts[1] + counts[2] + counts[3];
    return sql_exec_counts_result(b, names, counts, 4, out, err);
}
