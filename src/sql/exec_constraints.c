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
#include <ctype.h>
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
    const char **ref_names; /* referenced columns as written ("s.x"), sorted as Delta lists them */
    expr **refs;            /* each one bound over the table schema */
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

/* The column references of ast by their written path, once each. */
static void collect_names(arena *a, const sql_expr *e, bound_constraint *bc, const sql_expr **asts,
                          size_t cap);

static void add_name(arena *a, const sql_expr *e, bound_constraint *bc, const sql_expr **asts,
                     size_t cap)
{
    buf name = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    size_t idx;
    const char *text;
    for (idx = 0; idx < e->u.column.n_parts; idx++)
        if ((idx > 0 && buf_append_char(&name, '.', &err) != SILT_OK) ||
            buf_append_str(&name, e->u.column.parts[idx].name, &err) != SILT_OK)
            break;
    text = idx == e->u.column.n_parts ? arena_strdup(a, buf_cstr(&name)) : NULL;
    buf_clear(&name);
    err_clear(&err);
    if (text == NULL || bc->n_refs == cap)
        return; /* the message then lists fewer values; the check itself is unaffected */
    for (idx = 0; idx < bc->n_refs; idx++)
        if (strcmp(bc->ref_names[idx], text) == 0)
            return;
    bc->ref_names[bc->n_refs] = text;
    asts[bc->n_refs++] = e;
}

static void collect_names(arena *a, const sql_expr *e, bound_constraint *bc, const sql_expr **asts,
                          size_t cap)
{
    size_t idx;
    if (e == NULL)
        return;
    switch (e->kind) {
    case SQL_EXPR_COLUMN: add_name(a, e, bc, asts, cap); return;
    case SQL_EXPR_UNARY: collect_names(a, e->u.op.left, bc, asts, cap); return;
    case SQL_EXPR_BINARY:
        collect_names(a, e->u.op.left, bc, asts, cap);
        collect_names(a, e->u.op.right, bc, asts, cap);
        return;
    case SQL_EXPR_IS: collect_names(a, e->u.is.arg, bc, asts, cap); return;
    case SQL_EXPR_BETWEEN:
        collect_names(a, e->u.between.arg, bc, asts, cap);
        collect_names(a, e->u.between.low, bc, asts, cap);
        collect_names(a, e->u.between.high, bc, asts, cap);
        return;
    case SQL_EXPR_IN_LIST:
        collect_names(a, e->u.in.arg, bc, asts, cap);
        for (idx = 0; idx < e->u.in.list.n; idx++)
            collect_names(a, e->u.in.list.items[idx], bc, asts, cap);
        return;
    case SQL_EXPR_LIKE:
        collect_names(a, e->u.like.arg, bc, asts, cap);
        for (idx = 0; idx < e->u.like.patterns.n; idx++)
            collect_names(a, e->u.like.patterns.items[idx], bc, asts, cap);
        return;
    case SQL_EXPR_CASE:
        collect_names(a, e->u.case_.operand, bc, asts, cap);
        for (idx = 0; idx < e->u.case_.n_whens; idx++) {
            collect_names(a, e->u.case_.whens[idx].cond, bc, asts, cap);
            collect_names(a, e->u.case_.whens[idx].result, bc, asts, cap);
        }
        collect_names(a, e->u.case_.else_result, bc, asts, cap);
        return;
    case SQL_EXPR_CAST: collect_names(a, e->u.cast.arg, bc, asts, cap); return;
    case SQL_EXPR_FUNC:
        for (idx = 0; idx < e->u.func.args.n; idx++)
            collect_names(a, e->u.func.args.items[idx], bc, asts, cap);
        return;
    case SQL_EXPR_FIELD: collect_names(a, e->u.access.base, bc, asts, cap); return;
    case SQL_EXPR_SUBSCRIPT:
        collect_names(a, e->u.access.base, bc, asts, cap);
        collect_names(a, e->u.access.index, bc, asts, cap);
        return;
    default: return;
    }
}

static silt_status bind_value(binder *b, const col_type *schema, const sql_expr *ast, expr **out,
                              silt_error *err)
{
    bind_scope scope;
    bind_ctx bc = {NULL, NULL, NULL, NULL};
    SILT_RETURN_IF_ERROR(sql_scope_from_schema(b->a, schema, NULL, &scope, err));
    bc.scope = &scope;
    return sql_bind_expr(b, &bc, ast, out, err);
}

#define MAX_REFS 64

/* The referenced columns, sorted by name as Delta lists them, each bound for its value. */
static silt_status bind_refs(binder *b, const col_type *schema, const sql_expr *ast,
                             bound_constraint *bc, silt_error *err)
{
    const sql_expr **asts = arena_calloc(b->a, MAX_REFS, sizeof(*asts));
    size_t i, j;
    bc->ref_names = arena_calloc(b->a, MAX_REFS, sizeof(*bc->ref_names));
    bc->refs = arena_calloc(b->a, MAX_REFS, sizeof(*bc->refs));
    if (asts == NULL || bc->ref_names == NULL || bc->refs == NULL)
        return err_nomem(err);
    collect_names(b->a, ast, bc, asts, MAX_REFS);
    for (i = 1; i < bc->n_refs; i++) /* insertion sort: a handful of names */
        for (j = i; j > 0 && strcmp(bc->ref_names[j - 1], bc->ref_names[j]) > 0; j--) {
            const char *n = bc->ref_names[j];
            const sql_expr *x = asts[j];
            bc->ref_names[j] = bc->ref_names[j - 1];
            asts[j] = asts[j - 1];
            bc->ref_names[j - 1] = n;
            asts[j - 1] = x;
        }
    for (i = 0; i < bc->n_refs; i++)
        SILT_RETURN_IF_ERROR(bind_value(b, schema, asts[i], &bc->refs[i], err));
    return SILT_OK;
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

const char *sql_constraint_shown(binder *b, const sql_expr *ast)
{
    buf t = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    const char *out = NULL;
    if (sql_expr_spark_sql(ast, &t, &err) == SILT_OK)
        out = arena_strdup(b->a, buf_cstr(&t));
    buf_clear(&t);
    err_clear(&err);
    return out != NULL ? out : sql_bind_expr_text(b, ast);
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
    out->shown = sql_constraint_shown(b, ast);
    return bind_refs(b, schema, ast, out, err);
}

/*
 * The order in which Delta checks the constraints: its configuration is a Scala
 * immutable Map, kept in insertion (log) order up to 4 entries and a CHAMP hash
 * trie beyond, which iterates each node's single entries by their 5 hash bits,
 * then its sub-nodes, depth first. The hash is Scala's improve(String.hashCode).
 * When one row violates several constraints, the first in this order is reported.
 */
static uint32_t java_string_hash(const char *s)
{
    const unsigned char *c = (const unsigned char *)s;
    uint32_t h = 0;
    while (*c) {
        uint32_t cp = *c++;
        int more = cp >= 0xF0 ? 3 : cp >= 0xE0 ? 2 : cp >= 0xC0 ? 1 : 0;
        cp &= more == 3 ? 0x07u : more == 2 ? 0x0Fu : more == 1 ? 0x1Fu : 0x7Fu;
        for (; more > 0 && (*c & 0xC0) == 0x80; more--)
            cp = (cp << 6) | (*c++ & 0x3Fu);
        if (cp >= 0x10000) { /* a surrogate pair in UTF-16 */
            h = 31 * h + (0xD800u + ((cp - 0x10000) >> 10));
            cp = 0xDC00u + ((cp - 0x10000) & 0x3FFu);
        }
        h = 31 * h + cp;
    }
    return h;
}

static uint32_t scala_improve(uint32_t h)
{
    h = h + ~(h << 9);
    h = h ^ (h >> 14);
    h = h + (h << 4);
    return h ^ (h >> 10);
}

/* Appends keys[0..n) (hashes in hs) to out in CHAMP iteration order at bit shift. */
static void champ_order(const char **keys, const uint32_t *hs, size_t n, unsigned shift,
                        const char **out, size_t *n_out, arena *a)
{
    unsigned m;
    size_t idx, k;
    if (n <= 1 || shift >= 32) {
        for (idx = 0; idx < n; idx++)
            out[(*n_out)++] = keys[idx];
        return;
    }
    for (m = 0; m < 32; m++) { /* the single entries of this node first */
        size_t count = 0, last = 0;
        for (idx = 0; idx < n; idx++)
            if (((hs[idx] >> shift) & 31u) == m) {
                count++;
                last = idx;
            }
        if (count == 1)
            out[(*n_out)++] = keys[last];
    }
    for (m = 0; m < 32; m++) { /* then the sub-nodes */
        const char **sub = arena_calloc(a, n, sizeof(*sub));
        uint32_t *sub_h = arena_calloc(a, n, sizeof(*sub_h));
        if (sub == NULL || sub_h == NULL)
            return;
        for (idx = 0, k = 0; idx < n; idx++)
            if (((hs[idx] >> shift) & 31u) == m) {
                sub[k] = keys[idx];
                sub_h[k++] = hs[idx];
            }
        if (k > 1)
            champ_order(sub, sub_h, k, shift + 5, out, n_out, a);
    }
}

/* The configuration's keys in the order Delta iterates them; NULL when out of memory. */
static const char **delta_config_order(arena *a, const dlog_map *conf)
{
    const char **keys = arena_calloc(a, conf->n + 1, sizeof(*keys));
    const char **out = arena_calloc(a, conf->n + 1, sizeof(*out));
    uint32_t *hs = arena_calloc(a, conf->n + 1, sizeof(*hs));
    size_t idx, n_out = 0;
    if (keys == NULL || out == NULL || hs == NULL)
        return NULL;
    for (idx = 0; idx < conf->n; idx++) {
        keys[idx] = conf->items[idx].key;
        hs[idx] = scala_improve(java_string_hash(keys[idx]));
    }
    if (conf->n <= 4)
        return keys;
    champ_order(keys, hs, conf->n, 0, out, &n_out, a);
    return n_out == conf->n ? out : keys;
}

/* A column name as SQL text: bare when it is a plain identifier, else in backticks. */
static const char *quoted_name(arena *a, const char *name)
{
    const char *c;
    buf t = BUF_INIT;
    silt_error e = SILT_ERROR_INIT;
    const char *out;
    int plain = (name[0] == '_' || isalpha((unsigned char)name[0]));
    for (c = name; plain && *c; c++)
        plain = *c == '_' || isalnum((unsigned char)*c);
    if (plain)
        return name;
    (void)buf_append_char(&t, '`', &e);
    for (c = name; *c; c++) {
        if (*c == '`')
            (void)buf_append_char(&t, '`', &e);
        (void)buf_append_char(&t, *c, &e);
    }
    (void)buf_append_char(&t, '`', &e);
    out = e.code == SILT_OK ? arena_strdup(a, buf_cstr(&t)) : NULL;
    buf_clear(&t);
    return out != NULL ? out : name;
}

silt_status sql_constraints_new(binder *b, const dlog_metadata *md, const col_type *schema,
                                sql_constraints **out, silt_error *err)
{
    sql_constraints *c;
    const char **order;
    size_t idx, n = 0;
    *out = NULL;
    for (idx = 0; idx < md->configuration.n; idx++)
        if (util_str_ncasecmp(md->configuration.items[idx].key, "delta.constraints.", 18) == 0)
            n++;
    for (idx = 0; idx < schema->n_fields; idx++)
        n += sql_generation_expression(b->a, &schema->fields[idx]) != NULL;
    if (n == 0)
        return SILT_OK;
    c = arena_calloc(b->a, 1, sizeof(*c));
    if (c == NULL || (c->items = arena_calloc(b->a, n, sizeof(bound_constraint))) == NULL ||
        arena_on_cleanup(b->a, constraints_free, c) == 0)
        return err_nomem(err);
    if ((order = delta_config_order(b->a, &md->configuration)) == NULL)
        return err_nomem(err);
    for (idx = 0; idx < md->configuration.n; idx++) {
        const char *value = dlog_map_get(&md->configuration, order[idx], NULL);
        bound_constraint *bc;
        if (util_str_ncasecmp(order[idx], "delta.constraints.", 18) != 0)
            continue;
        bc = &c->items[c->n++];
        bc->name = order[idx] + 18;
        bc->text = value ? value : "";
        SILT_RETURN_IF_ERROR(bind_stored(b, schema, bc, err));
    }
    /* After the CHECK constraints, as Delta's TransactionalWrite lists them: each generated
     * column as the constraint `c <=> (expr)` named "Generated Column". */
    for (idx = 0; idx < schema->n_fields; idx++) {
        const char *gen = sql_generation_expression(b->a, &schema->fields[idx]);
        bound_constraint *bc;
        if (gen == NULL)
            continue;
        bc = &c->items[c->n++];
        bc->name = "Generated Column";
        bc->text = arena_sprintf(b->a, "%s <=> (%s)", quoted_name(b->a, schema->fields[idx].name),
                                 gen);
        if (bc->text == NULL)
            return err_nomem(err);
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
static silt_status violation(sql_constraints *c, const bound_constraint *bc,
                             const col_batch *batch, int64_t row, silt_error *err)
{
    buf msg = BUF_INIT;
    silt_status rc = buf_printf(&msg, err, "[DELTA_VIOLATE_CONSTRAINT_WITH_VALUES] CHECK "
                                "constraint %s %s violated by row with values:", bc->name,
                                bc->shown);
    size_t idx;
    for (idx = 0; rc == SILT_OK && idx < bc->n_refs; idx++) {
        col_vec *v = NULL;
        rc = expr_eval(bc->refs[idx], &c->ctx, batch, NULL, batch->n_rows, c->scratch, &v, err);
        if (rc == SILT_OK)
            rc = buf_printf(&msg, err, "\n - %s : ", bc->ref_names[idx]);
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
            rc = violation(c, &c->items[idx], &view, row, err);
    }
    arena_reset(c->scratch);
    pthread_mutex_unlock(&c->lock);
    return rc;
}
