/*
 * exec_merge.c - MERGE INTO target USING source ON ... WHEN ...: binding
 * (exec_merge_run.c runs it on the engine; merge_int.h has the row layout).
 *
 * The source is planned as any FROM item. The conjuncts of ON that are an
 * equality between a target column and a source column are the join keys;
 * when there is more, the whole ON condition is also the join's condition
 * over each candidate pair.
 *
 * The clauses of one kind are evaluated in order, first match wins, which
 * is exactly a searched CASE: per batch the engine evaluates
 *   action  = CASE WHEN c1 THEN a1 WHEN c2 THEN a2 ... ELSE 0 END
 *   value_c = CASE WHEN c1 THEN v1c WHEN c2 THEN v2c ... ELSE target.c END
 * over the joined row (WHEN MATCHED), the target columns (NOT MATCHED BY
 * SOURCE) or the source row (NOT MATCHED: inserts, with ELSE NULL and rows
 * of action 0 dropped).
 */
#include <string.h>

#include "delta/partition.h"
#include "engine/engine.h"
#include "formats/text.h"
#include "sql/exec.h"
#include "sql/merge_int.h"

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
    int64_t ident_col;         /* the table's identity column, or -1 */
    sql_identity ident;
    int ident_given, ident_missing; /* INSERT clauses that give it / leave it to be assigned */
} merge_bind;

/* A column the schema evolution added (not in the snapshot the files were written with). */
static int is_new_column(const merge_bind *mb, size_t col)
{
    return mb->evolve && col >= mb->n_old;
}

/* The joined row's scope (merge_int.h): target, _file, _row_index, source, _src_row; the
 * identity columns are hidden (not nameable: a source column may be called _file). */
static silt_status joined_scope(binder *b, const bind_scope *x, const bind_scope *y,
                                bind_scope *out, silt_error *err)
{
    static const char *const names[] = {"_file", "_row_index", "_src_row"};
    size_t k, at[3];
    out->n = x->n + y->n + 3;
    out->cols = arena_calloc(b->a, out->n + 1, sizeof(bind_col));
    if (out->cols == NULL)
        return err_nomem(err);
    memcpy(out->cols, x->cols, x->n * sizeof(bind_col));
    memcpy(out->cols + x->n + 2, y->cols, y->n * sizeof(bind_col));
    at[0] = x->n;
    at[1] = x->n + 1;
    at[2] = x->n + 2 + y->n;
    for (k = 0; k < 3; k++) {
        out->cols[at[k]].name = names[k];
        out->cols[at[k]].type = col_type_primitive(COL_LONG);
        out->cols[at[k]].hidden = 1;
    }
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
     * (UPDATE SET *) or is null (INSERT *); NULL here means exactly that. An identity column
     * the source lacks is assigned. */
    if (mb->evolve || (mb->ident_col >= 0 &&
                       util_str_casecmp(mb->table->fields[mb->ident_col].name, name) == 0)) {
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
        /* generated columns follow the columns they read (the target's come first in the
         * row, so column i of the table is column i here) */
        return sql_generated_fill(mb->b, t, vals, 0, err);
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
        return sql_generated_fill(mb->b, t, vals, 1, err);
    }
    return SILT_OK;
}

/*
 * Identity columns in a clause, as Delta: an UPDATE may not set one
 * ([DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED]); an INSERT gives a GENERATED ALWAYS one no
 * value ([DELTA_IDENTITY_COLUMNS_EXPLICIT_INSERT_NOT_SUPPORTED]) and leaves it to be assigned.
 */
static silt_status identity_clause(merge_bind *mb, const sql_merge_clause *c, expr **vals,
                                   silt_error *err)
{
    int insert = c->action == SQL_MERGE_INSERT || c->action == SQL_MERGE_INSERT_ALL;
    const char *name;
    if (mb->ident_col < 0 || c->action == SQL_MERGE_DELETE)
        return SILT_OK;
    name = mb->table->fields[mb->ident_col].name;
    if (!insert && vals[mb->ident_col] != NULL)
        return sql_bind_error(mb->b, err, c->pos, SILT_BIND, "[DELTA_IDENTITY_COLUMNS_UPDATE_NOT_"
                              "SUPPORTED] UPDATE on IDENTITY column %s is not supported.", name);
    if (!insert)
        return SILT_OK;
    if (vals[mb->ident_col] != NULL && !mb->ident.allow_explicit)
        return sql_bind_error(mb->b, err, c->pos, SILT_BIND, "[DELTA_IDENTITY_COLUMNS_EXPLICIT_"
                              "INSERT_NOT_SUPPORTED] Providing values for GENERATED ALWAYS AS "
                              "IDENTITY column %s is not supported.", name);
    if (vals[mb->ident_col] != NULL)
        mb->ident_given = 1;
    else
        mb->ident_missing = 1;
    if (mb->ident_given && mb->ident_missing)
        return sql_bind_error(mb->b, err, c->pos, SILT_UNSUPPORTED, "MERGE with INSERT clauses "
                              "that give the identity column %s and others that do not is not "
                              "supported yet", name);
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
static silt_status build_side(merge_bind *mb, sql_merge_match match, sql_merge_side *side,
                              int *present, buf *json, silt_error *err)
{
    const sql_stmt *stmt = mb->stmt;
    const bind_scope *scope;
    size_t source_offset, n = 0, idx, col, n_cols = mb->table->n_fields;
    expr **conds, **acts, ***vals;
    int with_target = match != SQL_MERGE_NOT_MATCHED;
    memset(side, 0, sizeof(*side));
    side->const_action = -1;
    scope = match == SQL_MERGE_MATCHED ? &mb->both
            : match == SQL_MERGE_NOT_MATCHED ? &mb->source : &mb->target;
    /* the joined row: table columns, _file, _row_index, then the source's */
    source_offset = match == SQL_MERGE_MATCHED ? mb->target.n + 2 : 0;
    conds = arena_calloc(mb->b->a, stmt->u.merge.n_clauses + 1, sizeof(expr *));
    acts = arena_calloc(mb->b->a, stmt->u.merge.n_clauses + 1, sizeof(expr *));
    vals = arena_calloc(mb->b->a, stmt->u.merge.n_clauses + 1, sizeof(expr **));
    side->values = arena_calloc(mb->b->a, n_cols + 1, sizeof(expr *));
    if (conds == NULL || acts == NULL || vals == NULL || side->values == NULL)
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
            if (n == 0) /* the first clause applies to every row */
                side->const_action = clause_action_code(c);
        }
        SILT_RETURN_IF_ERROR(expr_lit_int(&acts[n], mb->b->a, COL_INT, clause_action_code(c),
                                          err));
        vals[n] = arena_calloc(mb->b->a, n_cols + 1, sizeof(expr *));
        if (vals[n] == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(clause_values(mb, c, scope, source_offset, vals[n], err));
        SILT_RETURN_IF_ERROR(identity_clause(mb, c, vals[n], err));
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
    for (col = 0; col < n_cols; col++) {
        expr **col_vals = arena_calloc(mb->b->a, n + 1, sizeof(expr *));
        expr *keep_val = NULL;
        size_t k;
        int set = 0;
        const col_type *ct = mb->table->fields[col].type;
        if (col_vals == NULL)
            return err_nomem(err);
        for (k = 0; k < n; k++)
            set |= vals[k][col] != NULL;
        if (!set && with_target)
            continue; /* NULL: every clause keeps the target's value */
        if (with_target)
            SILT_RETURN_IF_ERROR(expr_column(&keep_val, mb->b->a, (int64_t)col, ct, err));
        else
            SILT_RETURN_IF_ERROR(expr_lit_null(&keep_val, mb->b->a, ct, err));
        for (k = 0; k < n; k++)
            col_vals[k] = vals[k][col] != NULL ? vals[k][col] : keep_val;
        if (n == 1 && side->const_action >= 0) /* one unconditional clause: no CASE */
            side->values[col] = col_vals[0];
        else
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
 * A source key of another type than its target column: the source column cast to the
 * target's type (the join compares equal types).
 */
static silt_status source_key(merge_bind *mb, size_t s, const col_type *want, const sql_expr *at,
                              expr **out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(expr_column(out, mb->b->a, (int64_t)s, mb->source.cols[s].type, err));
    if (col_type_equal(mb->source.cols[s].type, want))
        return SILT_OK;
    if (!expr_cast_allowed(mb->source.cols[s].type, want))
        return sql_bind_error(mb->b, err, at->pos, SILT_BIND, "[DATATYPE_MISMATCH] MERGE key "
                          "`%s` cannot be compared with the target column",
                          mb->source.cols[s].name);
    return expr_cast(out, mb->b->a, *out, want, 0, err);
}

/*
 * An ON condition that is not only key equalities (ranges, OR, expressions): the whole
 * condition is the join's condition over each candidate pair, the candidates being the
 * source rows with the same keys, or every source row when there are no keys (a nested
 * loop, as Spark's MERGE without an equi-join).
 */
static silt_status bind_on_rest(merge_bind *mb, sql_merge_plan *mp, silt_error *err)
{
    const sql_expr *on = mb->stmt->u.merge.on;
    SILT_RETURN_IF_ERROR(bind_in(mb, &mb->both, on, &mp->on_rest, err));
    if (mp->on_rest->type->id != COL_BOOLEAN && mp->on_rest->type->id != COL_NULL)
        return sql_bind_error(mb->b, err, on->pos, SILT_BIND, "[DATATYPE_MISMATCH] the ON condition "
                          "of MERGE must be a boolean");
    return SILT_OK;
}

static silt_status merge_keys(merge_bind *mb, sql_merge_plan *mp, silt_error *err)
{
    const sql_expr *on = mb->stmt->u.merge.on;
    const sql_expr *conj[64];
    size_t n = 0, idx, n_keys = 0, rest = 0;
    sql_split_and(on, conj, &n, 64);
    mp->target_key = arena_calloc(mb->b->a, n + 1, sizeof(size_t));
    mp->source_key = arena_calloc(mb->b->a, n + 1, sizeof(expr *));
    if (mp->target_key == NULL || mp->source_key == NULL)
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
        if (t < 0 || s < 0 || is_new_column(mb, (size_t)t) ||
            col_type_is_nested(mb->target.cols[t].type->id)) {
            rest++; /* checked per candidate pair by the whole ON condition */
            continue;
        }
        mp->target_key[n_keys] = (size_t)t;
        SILT_RETURN_IF_ERROR(source_key(mb, (size_t)s, mb->target.cols[t].type, e,
                                        &mp->source_key[n_keys], err));
        n_keys++;
    }
    if (n == 64)
        rest++; /* conjuncts past the 64th were not looked at */
    mp->n_keys = n_keys;
    return rest > 0 ? bind_on_rest(mb, mp, err) : SILT_OK;
}

/* ')' not opened in text[start, end) outside quotes, minus '(' not closed. */
static int unopened_parens(const char *text, size_t start, size_t end)
{
    int depth = 0, worst = 0;
    char quote = 0;
    size_t k;
    for (k = start; k < end; k++) {
        char ch = text[k];
        if (quote != 0) {
            quote = ch == quote ? 0 : quote;
            continue;
        }
        if (ch == '\'' || ch == '"' || ch == '`')
            quote = ch;
        depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
        worst = depth < worst ? depth : worst;
    }
    return -worst;
}

/* The ON condition as written: `ON (a = b)` keeps its parentheses (the expression starts
 * inside them). */
static const char *on_text(binder *b, const sql_stmt *stmt)
{
    size_t start = stmt->u.merge.on->pos, end = stmt->end, open;
    int missing;
    if (stmt->u.merge.n_clauses > 0 && stmt->u.merge.clauses[0].pos > start)
        end = stmt->u.merge.clauses[0].pos;
    if (end > b->text_len)
        return NULL;
    while (end > start && (b->text[end - 1] == ' ' || b->text[end - 1] == '\n' ||
                           b->text[end - 1] == '\t' || b->text[end - 1] == '\r'))
        end--;
    for (missing = unopened_parens(b->text, start, end); missing > 0; missing--) {
        for (open = start; open > 0 && (b->text[open - 1] == ' ' || b->text[open - 1] == '\n' ||
                                        b->text[open - 1] == '\t' || b->text[open - 1] == '\r');
             open--)
            ;
        if (open == 0 || b->text[open - 1] != '(')
            break;
        start = open - 1;
    }
    return arena_strndup(b->a, b->text + start, end - start);
}

/* The source's plan: its visible columns, qualified by its alias. */
static silt_status plan_source(merge_bind *mb, engine_op **out, silt_error *err)
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
    SILT_RETURN_IF_ERROR(sql_plan_project(mb->b, &p, exprs, names, n, err));
    for (idx = 0; idx < n; idx++)
        p.scope.cols[idx].qual = mb->source_qual;
    mb->source = p.scope;
    *out = p.op;
    return SILT_OK;
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

/* The bound statement as a plan for exec_merge_run.c. */
static silt_status bind_plan(merge_bind *mb, exec_target *t, engine_op *source, sql_merge_plan *mp,
                             buf *jm, buf *jbs, buf *ji, silt_error *err)
{
    binder *b = mb->b;
    memset(mp, 0, sizeof(*mp));
    mp->b = b;
    mp->t = t;
    mp->source = source;
    mp->n_source = mb->source.n;
    SILT_RETURN_IF_ERROR(evolve_schema(mb, err));
    mp->table = mb->table;
    mp->n_table = mb->table->n_fields;
    mp->n_old = t->snap->schema->n_fields;
    mp->ident_col = -1;
    mb->ident_col = sql_schema_identity_column(mb->table, &mb->ident);
    SILT_RETURN_IF_ERROR(sql_scope_from_schema(b->a, mb->table, mb->target_qual, &mb->target, err));
    SILT_RETURN_IF_ERROR(joined_scope(b, &mb->target, &mb->source, &mb->both, err));
    SILT_RETURN_IF_ERROR(merge_keys(mb, mp, err));
    SILT_RETURN_IF_ERROR(build_side(mb, SQL_MERGE_MATCHED, &mp->matched, &mp->has_matched, jm, err));
    SILT_RETURN_IF_ERROR(build_side(mb, SQL_MERGE_NOT_MATCHED_BY_SOURCE, &mp->by_source,
                                    &mp->has_by_source, jbs, err));
    SILT_RETURN_IF_ERROR(build_side(mb, SQL_MERGE_NOT_MATCHED, &mp->insert, &mp->has_insert, ji,
                                    err));
    if (mb->ident_missing && mp->has_insert) { /* the inserted rows get identity values */
        mp->ident_col = mb->ident_col;
        mp->ident_step = mb->ident.step;
        mp->ident_first = mb->ident.start;
        if (mb->ident.has_hwm &&
            __builtin_add_overflow(mb->ident.hwm, mb->ident.step, &mp->ident_first))
            return err_set(err, SILT_RUNTIME, "[ARITHMETIC_OVERFLOW] the identity column's next "
                           "value overflows BIGINT");
    }
    mp->multiple_matches_ok = only_unconditional_delete(mb->stmt);
    mp->mo = (delta_modify_options)DELTA_MODIFY_OPTIONS_INIT;
    mp->mo.schema = mb->table != t->snap->schema ? mb->table : NULL;
    mp->mo.predicate_text = on_text(b, mb->stmt);
    mp->mo.user_metadata = sql_session_get(b->s, SQL_SETTING_USER_METADATA);
    mp->mo.compression = sql_session_get(b->s, SQL_SETTING_PARQUET_CODEC);
    {
        sql_constraints *cons = NULL; /* written rows obey the CHECK constraints */
        SILT_RETURN_IF_ERROR(sql_constraints_new(b, &t->snap->metadata, t->snap->schema, &cons,
                                                 err));
        mp->mo.check = cons != NULL ? sql_constraints_check : NULL;
        mp->mo.check_payload = cons;
    }
    return sql_exec_commit_retry_timeout(b, &mp->mo.retry_timeout_ms, err);
}

silt_status sql_exec_merge(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    static const char *const names[] = {"num_affected_rows", "num_updated_rows",
                                        "num_deleted_rows", "num_inserted_rows"};
    const sql_table_ref *tref = stmt->u.merge.target;
    merge_bind mb;
    exec_target t;
    engine_op *source = NULL;
    buf jm = BUF_INIT, jbs = BUF_INIT, ji = BUF_INIT;
    sql_merge_plan mp;
    delta_merge_metrics m;
    int64_t counts[4];
    delta_app_txn app = DELTA_APP_TXN_NONE;
    int skip;
    silt_status rc;
    memset(&mb, 0, sizeof(mb));
    mb.b = b;
    mb.stmt = stmt;
    if (tref->kind != SQL_TABLE_NAMED)
        return sql_bind_error(b, err, tref->pos, SILT_BIND, "the target of MERGE must be a table");
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target_at(b, &tref->u.named.name, &tref->u.named.at,
                                                    tref->pos, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, &tref->u.named.name, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_app_txn(b, t.snap, &app, &skip, err));
    if (skip) /* Delta's idempotent DML: this (appId, version) is already in the table */
        return sql_exec_counts_result(b, names, NULL, 4, out, err);
    mb.table = t.snap->schema;
    mb.evolve = stmt->u.merge.schema_evolution ||
                sql_exec_setting_true(b, "spark.databricks.delta.schema.autoMerge.enabled");
    mb.target_qual = source_qualifier(tref);
    mb.source_qual = source_qualifier(stmt->u.merge.source);
    SILT_RETURN_IF_ERROR(plan_source(&mb, &source, err));
    rc = bind_plan(&mb, &t, source, &mp, &jm, &jbs, &ji, err);
    if (rc == SILT_OK) {
        mp.mo.app_txn = app;
        mp.mo.matched_json = buf_cstr(&jm);
        mp.mo.not_matched_json = buf_cstr(&ji);
        mp.mo.not_matched_by_source_json = buf_cstr(&jbs);
        rc = sql_merge_run(&mp, &m, err);
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
