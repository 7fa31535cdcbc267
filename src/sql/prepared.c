/*
 * prepared.c - prepared statements (prepared.h): the text is parsed once,
 * with its parameter markers listed by the parser; every execution binds
 * the parse tree again with the values of the moment (the binder asks
 * sql_param_literal for each marker) and builds fresh operators.
 *
 * Results point into the parse tree (column names), so the tree's arena
 * is shared by reference count between the statement and its live results.
 */
#include <stdio.h>
#include <string.h>

#include "sql/binder_int.h"
#include "sql/parser.h"
#include "sql/plan.h"
#include "sql/prepared.h"
#include "util/mem.h"

struct sql_prepared {
    arena *a; /* text, parse tree, markers, names */
    const char *text;
    size_t len;
    const sql_stmt *stmt;
    sql_param_markers markers;
    int named;
    size_t n_params;
    const char **names; /* named: distinct names in order of first use */
    atomic_int refs;    /* the statement itself and each live result */
    /*
     * The logical plan of a query without parameters, bound once and
     * lowered again by each execution (plan.h); a statement with
     * parameters binds at each execution, its values being literals.
     */
    sql_plan_keep keep;
};

/* The values of one execution, as the session hands them to the binder. */
typedef struct sql_param_run {
    const sql_prepared *p;
    const sql_literal *values;
    const uint8_t *set;
} sql_param_run;

static void prepared_unref(void *payload)
{
    sql_prepared *p = payload;
    if (atomic_fetch_sub(&p->refs, 1) == 1)
        arena_free(p->a);
}

/* Spark's parameter names: the name of :name, `_<offset>` for a ? (PosParameter). */
static void marker_name(const sql_param_marker *m, char *out, size_t cap)
{
    if (m->name != NULL)
        snprintf(out, cap, "%s", m->name);
    else
        snprintf(out, cap, "_%u", (unsigned)m->off);
}

static silt_status list_params(sql_prepared *p, silt_error *err)
{
    size_t idx, k, n_pos = 0;
    for (idx = 0; idx < p->markers.n; idx++)
        n_pos += p->markers.items[idx].name == NULL;
    if (n_pos > 0 && n_pos < p->markers.n)
        return err_set(err, SILT_BIND, "[INVALID_QUERY_MIXED_QUERY_PARAMETERS] Parameterized "
                       "query must either use positional, or named parameters, but not both.");
    p->named = n_pos == 0 && p->markers.n > 0;
    if (!p->named) {
        p->n_params = n_pos;
        return SILT_OK;
    }
    p->names = arena_calloc(p->a, p->markers.n, sizeof(char *));
    if (p->names == NULL)
        return err_nomem(err);
    for (idx = 0; idx < p->markers.n; idx++) {
        const char *name = p->markers.items[idx].name;
        for (k = 0; k < p->n_params && strcmp(p->names[k], name) != 0; k++)
            continue;
        if (k == p->n_params)
            p->names[p->n_params++] = name;
    }
    return SILT_OK;
}

static silt_status check_statement(sql_prepared *p, const sql_stmt_list *stmts, silt_error *err)
{
    if (stmts->n != 1)
        return err_set(err, SILT_INVALID, "a prepared statement is one statement; the text "
                       "holds %zu", stmts->n);
    p->stmt = stmts->items[0];
    if (p->markers.n > 0 && p->stmt->kind == SQL_STMT_CREATE_VIEW)
        return err_set(err, SILT_UNSUPPORTED, "[UNSUPPORTED_FEATURE.PARAMETER_MARKER_IN_"
                       "UNEXPECTED_STATEMENT] The feature is not supported: Parameter markers "
                       "are not allowed in CREATE VIEW.");
    return list_params(p, err);
}

silt_status sql_prepare(sql_session *s, const char *text, sql_prepared **out, silt_error *err)
{
    arena *a = arena_new(NULL, "prepared statement");
    sql_prepared *p;
    sql_stmt_list *stmts;
    silt_status rc;
    (void)s;
    *out = NULL;
    if (a == NULL)
        return err_nomem(err);
    p = arena_calloc(a, 1, sizeof(*p));
    if (p == NULL || (p->text = arena_strdup(a, text)) == NULL) {
        arena_free(a);
        return err_nomem(err);
    }
    p->a = a;
    p->keep.a = a;
    p->len = strlen(text);
    atomic_init(&p->refs, 1);
    rc = sql_parse_markers(a, p->text, p->len, &stmts, &p->markers, err);
    if (rc == SILT_OK)
        rc = check_statement(p, stmts, err);
    if (rc != SILT_OK) {
        arena_free(a);
        return rc;
    }
    *out = p;
    return SILT_OK;
}

size_t sql_prepared_n_params(const sql_prepared *p) { return p->n_params; }

const struct lp_node *sql_prepared_plan(const sql_prepared *p) { return p->keep.root; }
int sql_prepared_is_named(const sql_prepared *p) { return p->named; }

const char *sql_prepared_param_name(const sql_prepared *p, size_t idx)
{
    return p->named && idx < p->n_params ? p->names[idx] : NULL;
}

void sql_prepared_free(sql_prepared *p)
{
    if (p != NULL)
        prepared_unref(p);
}

silt_status sql_prepared_execute(sql_session *s, sql_prepared *p, const sql_literal *values,
                                 const uint8_t *set, sql_result **out, silt_error *err)
{
    sql_param_run run;
    silt_status rc;
    if (out != NULL)
        *out = NULL;
    run.p = p;
    run.values = values;
    run.set = set;
    sql_session_clear_interrupt(s);
    /* the values are needed while binding only: literals copy them into the plan */
    s->params = &run;
    s->keep = p->n_params == 0 ? &p->keep : NULL;
    rc = sql_session_run_parsed(s, p->stmt, p->text, p->len, out, err);
    s->params = NULL;
    s->keep = NULL;
    if (rc != SILT_OK || out == NULL)
        return rc;
    atomic_fetch_add(&p->refs, 1);
    if (sql_session_result_on_free(*out, prepared_unref, p) == 0) {
        atomic_fetch_sub(&p->refs, 1);
        sql_result_free(*out);
        *out = NULL;
        return err_nomem(err);
    }
    return SILT_OK;
}

/* Parameter number of the marker at off (named: its name's), or -1 when it is not one. */
static int64_t param_index(const sql_prepared *p, const sql_expr *ast)
{
    size_t idx, k = 0;
    if (ast->u.param.name != NULL) {
        if (!p->named)
            return -1;
        for (idx = 0; idx < p->n_params; idx++)
            if (strcmp(p->names[idx], ast->u.param.name) == 0)
                return (int64_t)idx;
        return -1;
    }
    for (idx = 0; idx < p->markers.n; idx++) {
        if (p->markers.items[idx].off == ast->pos)
            return p->named ? -1 : (int64_t)k;
        k += p->markers.items[idx].name == NULL;
    }
    return -1;
}

silt_status sql_param_literal(const sql_session *s, const sql_expr *ast, sql_expr *lit_out,
                              silt_error *err)
{
    const sql_param_run *run = s->params;
    sql_param_marker m;
    char name[128];
    int64_t idx = run != NULL ? param_index(run->p, ast) : -1;
    if (idx >= 0 && run->set[idx]) {
        *lit_out = *ast;
        lit_out->kind = SQL_EXPR_LITERAL;
        memset(&lit_out->u, 0, sizeof(lit_out->u));
        lit_out->u.lit = run->values[idx];
        return SILT_OK;
    }
    m.off = ast->pos;
    m.name = ast->u.param.name;
    marker_name(&m, name, sizeof(name));
    return err_set(err, SILT_BIND, "[UNBOUND_SQL_PARAMETER] Found the unbound parameter: %s. "
                   "Please, fix `args` and provide a mapping of the parameter to either a SQL "
                   "literal or collection constructor functions such as `map()`, `array()`, "
                   "`struct()`.", name);
}
