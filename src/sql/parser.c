/*
 * parser.c - the parser's entry points, its shared helpers (tokens,
 * keywords, identifiers, errors) and the statement level: DDL, DML, Delta
 * and branch statements. Expressions are in parse_expr.c, queries in
 * parse_query.c.
 *
 * Keywords: Spark reserves few words by default. We reserve the ones whose
 * use as a bare identifier would make a statement ambiguous for a
 * recursive-descent parser (SELECT, FROM, WHERE, JOIN, ...; the list below
 * is a subset of Spark's ANSI reserved words); they can always be written
 * with backquotes. A second list holds words that end an implicit alias
 * (`SELECT a LIMIT 1` is not "a AS LIMIT").
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sql/parser_int.h"
#include "util/mem.h"

/* Words that can never be bare identifiers, and words that end an implicit alias. */
static int p_is_reserved(const parser *p, const sql_token *t);

/* ------------------------------------------------------------------ helpers */

int sql_parser_word_is(const parser *p, const sql_token *t, const char *kw)
{
    size_t n = strlen(kw);
    return t->kind == SQL_TOK_WORD && t->len == n && util_str_ncasecmp(p->text + t->off, kw, n) == 0;
}

int sql_parser_kw(const parser *p, const char *kw) { return sql_parser_word_is(p, p_tok(p), kw); }

int sql_parser_kw_at(const parser *p, size_t ahead, const char *kw)
{
    return sql_parser_word_is(p, p_peek(p, ahead), kw);
}

int sql_parser_accept_kw(parser *p, const char *kw)
{
    if (!sql_parser_kw(p, kw))
        return 0;
    p_advance(p);
    return 1;
}

int sql_parser_accept(parser *p, sql_tok_kind kind)
{
    if (!p_is(p, kind))
        return 0;
    p_advance(p);
    return 1;
}

static silt_status p_vfail_at(parser *p, size_t tok_idx, const char *fmt, va_list ap)
    SILT_PRINTF(3, 0);

static silt_status p_vfail_at(parser *p, size_t tok_idx, const char *fmt, va_list ap)
{
    char detail[256];
    const sql_token *t = &p->toks[tok_idx < p->n_toks ? tok_idx : p->n_toks - 1];
    vsnprintf(detail, sizeof(detail), fmt, ap);
    if (p->error_offset != NULL)
        *p->error_offset = t->off;
    return sql_syntax_error(p->err, p->text, p->len, t->off, t->len, detail);
}

silt_status sql_parser_fail(parser *p, const char *fmt, ...)
{
    va_list ap;
    silt_status rc;
    va_start(ap, fmt);
    rc = p_vfail_at(p, p->i, fmt, ap);
    va_end(ap);
    return rc;
}

silt_status sql_parser_fail_at(parser *p, size_t tok_idx, const char *fmt, ...)
{
    va_list ap;
    silt_status rc;
    va_start(ap, fmt);
    rc = p_vfail_at(p, tok_idx, fmt, ap);
    va_end(ap);
    return rc;
}

silt_status sql_parser_error_at(parser *p, uint32_t off, const char *fmt, ...)
{
    char msg[SILT_ERROR_MESSAGE_MAX];
    int line, col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    sql_line_col(p->text, p->len, off, &line, &col);
    if (p->error_offset != NULL)
        *p->error_offset = off;
    err_set(p->err, SILT_PARSE, "%s (line %d, column %d)", msg, line, col);
    err_position(p->err, (int64_t)off, line, col);
    return SILT_PARSE;
}

silt_status sql_parser_expect_kw(parser *p, const char *kw)
{
    if (sql_parser_accept_kw(p, kw))
        return SILT_OK;
    return sql_parser_fail(p, "expected %s", kw);
}

silt_status sql_parser_expect(parser *p, sql_tok_kind kind)
{
    if (sql_parser_accept(p, kind))
        return SILT_OK;
    return sql_parser_fail(p, "expected %s", sql_tok_kind_name(kind));
}

silt_status sql_parser_enter(parser *p)
{
    if (p->depth >= SQL_PARSE_MAX_DEPTH)
        return sql_parser_error_at(p, p_tok(p)->off,
                          "could not parse statement: nested more than %d levels deep",
                          SQL_PARSE_MAX_DEPTH);
    p->depth++;
    return SILT_OK;
}

void *sql_parser_alloc(parser *p, size_t size)
{
    void *mem = arena_calloc(p->a, 1, size);
    if (mem == NULL)
        err_nomem(p->err);
    return mem;
}

char *sql_parser_strndup(parser *p, const char *s, size_t len)
{
    char *copy = arena_strndup(p->a, s, len);
    if (copy == NULL)
        err_nomem(p->err);
    return copy;
}

/* Appends one zeroed element to an arena array (doubling); *n is incremented. */
silt_status sql_parser_grow(parser *p, void **items, size_t *n, size_t *cap, size_t elem_size)
{
    if (*n == *cap) {
        size_t new_cap = *cap == 0 ? 4 : *cap * 2;
        void *grown = arena_realloc(p->a, *items, *cap * elem_size, new_cap * elem_size);
        if (grown == NULL)
            return err_nomem(p->err);
        *items = grown;
        *cap = new_cap;
    }
    memset((char *)*items + *n * elem_size, 0, elem_size);
    (*n)++;
    return SILT_OK;
}

static int word_in(const parser *p, const sql_token *t, const char *const *words, size_t n)
{
    if (t->kind != SQL_TOK_WORD || t->len > 16)
        return 0;
    for (size_t idx = 0; idx < n; idx++) {
        if (sql_parser_word_is(p, t, words[idx]))
            return 1;
    }
    return 0;
}

static int p_is_reserved(const parser *p, const sql_token *t)
{
    static const char *const reserved[] = {
        "ALL", "AND", "AS", "CASE", "CREATE", "CROSS", "DISTINCT", "ELSE", "END", "EXCEPT",
        "FALSE", "FROM", "FULL", "GROUP", "HAVING", "IN", "INNER", "INTERSECT", "INTO", "IS",
        "JOIN", "LATERAL", "LEFT", "NATURAL", "NOT", "NULL", "ON", "OR", "ORDER", "OUTER",
        "RIGHT", "SELECT", "TABLE", "THEN", "TRUE", "UNION", "USING", "WHEN", "WHERE", "WITH"};
    return word_in(p, t, reserved, sizeof(reserved) / sizeof(reserved[0]));
}

int sql_parser_is_clause_word(const parser *p, const sql_token *t)
{
    static const char *const clause[] = {
        "LIMIT", "OFFSET", "WINDOW", "QUALIFY", "MINUS", "SEMI", "ANTI", "VERSION", "TIMESTAMP",
        "FOR", "SET", "CLUSTER", "DISTRIBUTE", "SORT", "LIKE", "ILIKE", "RLIKE", "REGEXP",
        "BETWEEN", "OVER", "TABLESAMPLE", "PIVOT", "UNPIVOT", "ESCAPE", "RETAIN", "DRY",
        "ZORDER", "PARTITION", "REPLACE", "BY", "VALUES", "SYSTEM_VERSION", "SYSTEM_TIME",
        "DIV", "OPTIONS", "TBLPROPERTIES", "LOCATION", "COMMENT", "PARTITIONED"};
    return p_is_reserved(p, t) || word_in(p, t, clause, sizeof(clause) / sizeof(clause[0]));
}

int sql_parser_at_ident(const parser *p)
{
    const sql_token *t = p_tok(p);
    return t->kind == SQL_TOK_QUOTED || (t->kind == SQL_TOK_WORD && !p_is_reserved(p, t));
}

silt_status sql_parser_ident(parser *p, sql_ident *out)
{
    const sql_token *t = p_tok(p);
    memset(out, 0, sizeof(*out));
    out->pos = t->off;
    if (t->kind == SQL_TOK_QUOTED) {
        /* `a``b` is a`b and [a]]b] is a]b: drop the quotes and halve the doubled closer. */
        const char *s = p->text + t->off + 1;
        size_t n = t->len - 2;
        char closer = t->bracket ? ']' : '`';
        char *name = sql_parser_alloc(p, n + 1);
        size_t used = 0;
        if (name == NULL)
            return SILT_NOMEM;
        for (size_t idx = 0; idx < n; idx++) {
            name[used++] = s[idx];
            if (s[idx] == closer)
                idx++;
        }
        if (used == 0)
            return sql_parser_fail(p, "an identifier cannot be empty");
        out->name = name;
        out->quoted = t->bracket ? 2 : 1;
    } else if (t->kind == SQL_TOK_WORD && !p_is_reserved(p, t)) {
        out->name = sql_parser_strndup(p, p->text + t->off, t->len);
        if (out->name == NULL)
            return SILT_NOMEM;
    } else if (t->kind == SQL_TOK_WORD) {
        return sql_parser_fail(p, "'%.*s' is a reserved word; quote it with backquotes to use it as a "
                      "name", (int)t->len, p->text + t->off);
    } else {
        return sql_parser_fail(p, "expected an identifier");
    }
    p_advance(p);
    return SILT_OK;
}

/*
 * A name part after '.': any word, reserved or not, since nothing else can
 * stand there (t.from, s.inner), as PostgreSQL's ColLabel allows.
 */
silt_status sql_parser_ident_after_dot(parser *p, sql_ident *out)
{
    const sql_token *t = p_tok(p);
    if (t->kind != SQL_TOK_WORD)
        return sql_parser_ident(p, out);
    memset(out, 0, sizeof(*out));
    out->pos = t->off;
    out->name = sql_parser_strndup(p, p->text + t->off, t->len);
    if (out->name == NULL)
        return SILT_NOMEM;
    p_advance(p);
    return SILT_OK;
}

/*
 * T-SQL's schema `dbo` (docs/serverless.md): silt's databases have no
 * schemas, so `dbo.t` is t of the current database and `db.dbo.t` is db.t.
 * Only a dbo written as a word or [dbo] is the schema; `dbo` in backquotes
 * names a database called dbo.
 */
static void drop_dbo_schema(sql_name *n)
{
    size_t at;
    if (n->n_parts < 2 || n->n_parts > 3)
        return;
    at = n->n_parts - 2;
    if (n->parts[at].quoted == 1 || util_str_casecmp(n->parts[at].name, "dbo") != 0)
        return;
    memmove(&n->parts[at], &n->parts[at + 1], sizeof(sql_ident));
    n->n_parts--;
    if (at == 0)
        n->pos = n->parts[0].pos;
}

silt_status sql_parser_name(parser *p, sql_name *out)
{
    size_t cap = 0;
    memset(out, 0, sizeof(*out));
    out->pos = p_tok(p)->off;
    do {
        P_TRY(sql_parser_grow(p, (void **)&out->parts, &out->n_parts, &cap, sizeof(sql_ident)));
        if (out->n_parts == 1)
            P_TRY(sql_parser_ident(p, &out->parts[0]));
        else
            P_TRY(sql_parser_ident_after_dot(p, &out->parts[out->n_parts - 1]));
    } while (sql_parser_accept(p, SQL_TOK_DOT));
    drop_dbo_schema(out);
    return SILT_OK;
}

silt_status sql_parser_ident_list_paren(parser *p, sql_ident_list *out)
{
    size_t cap = 0;
    memset(out, 0, sizeof(*out));
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    do {
        P_TRY(sql_parser_grow(p, (void **)&out->items, &out->n, &cap, sizeof(sql_ident)));
        P_TRY(sql_parser_ident(p, &out->items[out->n - 1]));
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return sql_parser_expect(p, SQL_TOK_RPAREN);
}

/* A dotted name written as one string "a.b.c" (property keys, DROP targets ...). */
static silt_status dotted_text(parser *p, const char **out)
{
    sql_name name;
    buf b = BUF_INIT;
    silt_status rc;
    if (p_at_string(p))
        return sql_parser_string_one(p, out);
    /* Property keys may be reserved words (delta.appendOnly, 'option' keys). */
    memset(&name, 0, sizeof(name));
    rc = SILT_OK;
    do {
        const sql_token *t = p_tok(p);
        if (t->kind == SQL_TOK_QUOTED) {
            sql_ident id;
            rc = sql_parser_ident(p, &id);
            if (rc == SILT_OK)
                rc = buf_append_str(&b, id.name, p->err);
        } else if (t->kind == SQL_TOK_WORD) {
            rc = buf_append(&b, p->text + t->off, t->len, p->err);
            p_advance(p);
        } else {
            rc = sql_parser_fail(p, "expected a key");
        }
        if (rc == SILT_OK && p_is(p, SQL_TOK_DOT))
            rc = buf_append_char(&b, '.', p->err);
    } while (rc == SILT_OK && sql_parser_accept(p, SQL_TOK_DOT));
    if (rc == SILT_OK) {
        *out = sql_parser_strndup(p, b.data, b.len);
        rc = *out == NULL ? SILT_NOMEM : SILT_OK;
    }
    buf_clear(&b);
    return rc;
}

/* ( key [=] value, ... ); with_values 0 for UNSET TBLPROPERTIES (keys only). */
static silt_status kv_list(parser *p, sql_kv_list *out, int with_values)
{
    size_t cap = 0;
    memset(out, 0, sizeof(*out));
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    do {
        sql_kv *kv;
        P_TRY(sql_parser_grow(p, (void **)&out->items, &out->n, &cap, sizeof(*kv)));
        kv = &out->items[out->n - 1];
        kv->pos = p_tok(p)->off;
        P_TRY(dotted_text(p, &kv->key));
        if (with_values) {
            sql_parser_accept(p, SQL_TOK_EQ);
            P_TRY(sql_parser_literal_text(p, &kv->value));
        }
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return sql_parser_expect(p, SQL_TOK_RPAREN);
}

silt_status sql_parser_kv_list(parser *p, sql_kv_list *out) { return kv_list(p, out, 1); }

/* ------------------------------------------------------------------ CREATE */

static silt_status column_position(parser *p, sql_column_def *c, int *found);

/*
 * One column definition. allow_constraints: 0 names and types only
 * (CONVERT TO DELTA), 1 CREATE TABLE, 2 ALTER TABLE ADD COLUMNS (also a
 * nested field path and FIRST/AFTER).
 */
static silt_status column_def(parser *p, sql_column_def *c, int allow_constraints)
{
    if (allow_constraints == 2) {
        sql_name path;
        P_TRY(sql_parser_name(p, &path));
        c->name = path.parts[path.n_parts - 1];
        if (path.n_parts > 1) {
            c->parent = path;
            c->parent.n_parts--;
        }
    } else {
        P_TRY(sql_parser_ident(p, &c->name));
    }
    P_TRY(sql_parser_type(p, &c->type));
    for (;;) {
        if (sql_parser_kw(p, "NOT") && sql_parser_kw_at(p, 1, "NULL")) {
            p_advance(p);
            p_advance(p);
            c->not_null = 1;
        } else if (sql_parser_kw(p, "NULL")) {
            /* T-SQL spells out the default: the column is nullable */
            p_advance(p);
        } else if (sql_parser_accept_kw(p, "COMMENT")) {
            P_TRY(sql_parser_string(p, &c->comment, NULL));
        } else if (allow_constraints && sql_parser_accept_kw(p, "DEFAULT")) {
            P_TRY(sql_parser_expr(p, &c->default_value));
        } else if (allow_constraints && sql_parser_accept_kw(p, "GENERATED")) {
            if (sql_parser_accept_kw(p, "ALWAYS")) {
                c->identity_always = 1;
            } else {
                P_TRY(sql_parser_expect_kw(p, "BY"));
                P_TRY(sql_parser_expect_kw(p, "DEFAULT"));
            }
            P_TRY(sql_parser_expect_kw(p, "AS"));
            if (sql_parser_accept_kw(p, "IDENTITY")) {
                c->identity = 1;
                c->identity_start = 1;
                c->identity_step = 1;
                if (sql_parser_accept(p, SQL_TOK_LPAREN)) {
                    do {
                        int is_start = sql_parser_accept_kw(p, "START");
                        sql_expr *v;
                        size_t value_tok;
                        if (is_start) {
                            P_TRY(sql_parser_expect_kw(p, "WITH"));
                        } else {
                            P_TRY(sql_parser_expect_kw(p, "INCREMENT"));
                            P_TRY(sql_parser_expect_kw(p, "BY"));
                        }
                        value_tok = p->i;
                        P_TRY(sql_parser_expr(p, &v));
                        if (v->kind != SQL_EXPR_LITERAL ||
                            (v->u.lit.kind != SQL_LIT_INT && v->u.lit.kind != SQL_LIT_LONG))
                            return sql_parser_fail_at(p, value_tok, "expected an integer literal");
                        if (is_start)
                            c->identity_start = v->u.lit.i64;
                        else
                            c->identity_step = v->u.lit.i64;
                    } while (p_is(p, SQL_TOK_WORD));
                    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
                }
            } else {
                if (!c->identity_always)
                    return sql_parser_fail(p, "expected IDENTITY");
                size_t from;
                P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
                from = p_tok(p)->off;
                P_TRY(sql_parser_expr(p, &c->generated));
                /* Delta keeps the expression as written */
                c->generated_text = arena_strndup(p->a, p->text + from, p_tok(p)->off - from);
                if (c->generated_text == NULL)
                    return SILT_NOMEM;
                P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
            }
        } else if (allow_constraints == 2 && (sql_parser_kw(p, "FIRST") || sql_parser_kw(p, "AFTER"))) {
            int found;
            P_TRY(column_position(p, c, &found));
        } else {
            return SILT_OK;
        }
    }
}

static silt_status column_list(parser *p, sql_column_list *out, int allow_constraints)
{
    size_t cap = 0;
    memset(out, 0, sizeof(*out));
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    do {
        P_TRY(sql_parser_grow(p, (void **)&out->items, &out->n, &cap, sizeof(sql_column_def)));
        P_TRY(column_def(p, &out->items[out->n - 1], allow_constraints));
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return sql_parser_expect(p, SQL_TOK_RPAREN);
}

static silt_status if_not_exists(parser *p, uint8_t *out)
{
    if (sql_parser_kw(p, "IF")) {
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "NOT"));
        P_TRY(sql_parser_expect_kw(p, "EXISTS"));
        *out = 1;
    }
    return SILT_OK;
}

static silt_status if_exists(parser *p, uint8_t *out)
{
    if (sql_parser_kw(p, "IF")) {
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "EXISTS"));
        *out = 1;
    }
    return SILT_OK;
}

static silt_status once(parser *p, int *seen, const char *clause)
{
    if (*seen)
        return sql_parser_fail(p, "%s given twice", clause);
    *seen = 1;
    return SILT_OK;
}

/* CLUSTERED BY (cols) [SORTED BY (col [ASC|DESC], ...)] INTO n BUCKETS */
static silt_status bucket_spec(parser *p, sql_stmt *s)
{
    const sql_token *t;
    uint64_t n = 0;
    p_advance(p);
    p_advance(p);
    P_TRY(sql_parser_ident_list_paren(p, &s->u.create_table.bucket_by));
    if (sql_parser_kw(p, "SORTED")) {
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "BY"));
        P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
        P_TRY(sql_parser_order_list(p, &s->u.create_table.bucket_sort));
        P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    }
    P_TRY(sql_parser_expect_kw(p, "INTO"));
    t = p_tok(p);
    if (t->kind != SQL_TOK_NUMBER)
        return sql_parser_fail(p, "expected the number of buckets");
    for (uint32_t idx = 0; idx < t->len; idx++) {
        char c = p->text[t->off + idx];
        if (c < '0' || c > '9' || n > 100000000)
            return sql_parser_fail(p, "expected the number of buckets (a positive integer)");
        n = n * 10 + (uint64_t)(c - '0');
    }
    if (n == 0)
        return sql_parser_fail(p, "expected the number of buckets (a positive integer)");
    s->u.create_table.n_buckets = (int64_t)n;
    p_advance(p);
    return sql_parser_expect_kw(p, "BUCKETS");
}

/* The clauses after the column list, in any order (Spark's createTableClauses). */
static silt_status table_clauses(parser *p, sql_stmt *s)
{
    int seen_using = 0, seen_part = 0, seen_cluster = 0, seen_loc = 0, seen_comment = 0,
        seen_props = 0, seen_opts = 0, seen_bucket = 0;
    for (;;) {
        if (sql_parser_kw(p, "USING") || sql_parser_kw(p, "STORED")) {
            sql_ident fmt;
            P_TRY(once(p, &seen_using, "USING"));
            if (sql_parser_accept_kw(p, "STORED"))
                P_TRY(sql_parser_expect_kw(p, "AS"));
            else
                p_advance(p);
            P_TRY(sql_parser_ident(p, &fmt));
            s->u.create_table.using_fmt = fmt.name;
        } else if (sql_parser_kw(p, "PARTITIONED")) {
            P_TRY(once(p, &seen_part, "PARTITIONED BY"));
            p_advance(p);
            P_TRY(sql_parser_expect_kw(p, "BY"));
            P_TRY(sql_parser_ident_list_paren(p, &s->u.create_table.partitioned_by));
        } else if (sql_parser_kw(p, "CLUSTER") && sql_parser_kw_at(p, 1, "BY")) {
            P_TRY(once(p, &seen_cluster, "CLUSTER BY"));
            p_advance(p);
            p_advance(p);
            P_TRY(sql_parser_ident_list_paren(p, &s->u.create_table.cluster_by));
        } else if (sql_parser_kw(p, "CLUSTERED") && sql_parser_kw_at(p, 1, "BY")) {
            P_TRY(once(p, &seen_bucket, "CLUSTERED BY"));
            P_TRY(bucket_spec(p, s));
        } else if (sql_parser_kw(p, "LOCATION")) {
            P_TRY(once(p, &seen_loc, "LOCATION"));
            p_advance(p);
            P_TRY(sql_parser_string(p, &s->u.create_table.location, NULL));
        } else if (sql_parser_kw(p, "COMMENT")) {
            P_TRY(once(p, &seen_comment, "COMMENT"));
            p_advance(p);
            P_TRY(sql_parser_string(p, &s->u.create_table.comment, NULL));
        } else if (sql_parser_kw(p, "TBLPROPERTIES")) {
            /* "SET TBLPROPERTIES" here (a slip seen in tutorials) is Spark's syntax error */
            P_TRY(once(p, &seen_props, "TBLPROPERTIES"));
            p_advance(p);
            P_TRY(kv_list(p, &s->u.create_table.properties, 1));
        } else if (sql_parser_kw(p, "OPTIONS")) {
            P_TRY(once(p, &seen_opts, "OPTIONS"));
            p_advance(p);
            P_TRY(kv_list(p, &s->u.create_table.options, 1));
        } else {
            return SILT_OK;
        }
    }
}

static silt_status tsql_with_list(parser *p, sql_kv_list *out, const char *outer);

static silt_status create_table(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_CREATE_TABLE;
    P_TRY(if_not_exists(p, &s->u.create_table.if_not_exists));
    P_TRY(sql_parser_name(p, &s->u.create_table.name));
    if (sql_parser_kw(p, "LIKE")) {
        p_advance(p);
        P_TRY(sql_parser_name(p, &s->u.create_table.like));
        return table_clauses(p, s);
    }
    if ((sql_parser_kw(p, "SHALLOW") || sql_parser_kw(p, "DEEP")) && sql_parser_kw_at(p, 1, "CLONE")) {
        /* Delta clones: the source may travel in time. */
        s->u.create_table.clone = sql_parser_kw(p, "SHALLOW") ? 1 : 2;
        p_advance(p);
        p_advance(p);
        P_TRY(sql_parser_table_name_ref(p, &s->u.create_table.clone_source, &s->u.create_table.clone_at));
        return table_clauses(p, s);
    }
    if (p_is(p, SQL_TOK_LPAREN) && !sql_parser_at_query(p))
        P_TRY(column_list(p, &s->u.create_table.columns, 1));
    if (s->u.create_table.external && sql_parser_kw(p, "WITH") &&
        p_peek(p, 1)->kind == SQL_TOK_LPAREN) {
        /* T-SQL's CREATE EXTERNAL TABLE t (cols) WITH (LOCATION = ..., ...): Spark has no
         * WITH here, so the two forms cannot be confused */
        sql_name name = s->u.create_table.name;
        sql_column_list cols = s->u.create_table.columns;
        if (s->u.create_table.if_not_exists)
            return sql_parser_fail(p, "CREATE EXTERNAL TABLE ... WITH takes no IF NOT EXISTS");
        memset(&s->u, 0, sizeof(s->u));
        s->kind = SQL_STMT_CREATE_EXTERNAL;
        s->u.create_external.what = SQL_OBJ_TABLE;
        s->u.create_external.name = name;
        s->u.create_external.columns = cols;
        p_advance(p);
        P_TRY(tsql_with_list(p, &s->u.create_external.with, NULL));
        if (sql_parser_kw(p, "AS"))
            return sql_parser_fail(p, "CREATE EXTERNAL TABLE ... AS SELECT (CETAS) is not "
                                   "supported yet: write the rows with CREATE TABLE ... AS SELECT "
                                   "(a Delta table), then read it by name or with OPENROWSET");
        return SILT_OK;
    }
    P_TRY(table_clauses(p, s));
    if (sql_parser_accept_kw(p, "AS") || sql_parser_at_query(p))
        P_TRY(sql_parser_query(p, &s->u.create_table.as_query));
    return SILT_OK;
}

static silt_status create_view(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_CREATE_VIEW;
    P_TRY(if_not_exists(p, &s->u.create_view.if_not_exists));
    P_TRY(sql_parser_name(p, &s->u.create_view.name));
    if (p_is(p, SQL_TOK_LPAREN)) {
        /* (a COMMENT 'x', b): names with optional comments; (a INT, b STRING) before USING. */
        size_t cap = 0, comment_cap = 0, n_comments = 0, type_cap = 0, n_types = 0;
        sql_ident_list *cols = &s->u.create_view.columns;
        p_advance(p);
        do {
            P_TRY(sql_parser_grow(p, (void **)&cols->items, &cols->n, &cap, sizeof(sql_ident)));
            P_TRY(sql_parser_grow(p, (void **)&s->u.create_view.column_comments, &n_comments,
                         &comment_cap, sizeof(const char *)));
            P_TRY(sql_parser_grow(p, (void **)&s->u.create_view.column_types, &n_types,
                         &type_cap, sizeof(sql_type)));
            P_TRY(sql_parser_ident(p, &cols->items[cols->n - 1]));
            if (!p_is(p, SQL_TOK_COMMA) && !p_is(p, SQL_TOK_RPAREN) && !sql_parser_kw(p, "COMMENT")) {
                P_TRY(sql_parser_type(p, &s->u.create_view.column_types[n_types - 1]));
                s->u.create_view.typed_columns = 1;
            }
            if (sql_parser_accept_kw(p, "COMMENT"))
                P_TRY(sql_parser_string(p, &s->u.create_view.column_comments[n_comments - 1], NULL));
        } while (sql_parser_accept(p, SQL_TOK_COMMA));
        P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    }
    if (sql_parser_accept_kw(p, "USING")) {
        sql_ident fmt;
        P_TRY(sql_parser_ident(p, &fmt));
        s->u.create_view.using_fmt = fmt.name;
        if (sql_parser_accept_kw(p, "OPTIONS"))
            P_TRY(kv_list(p, &s->u.create_view.options, 1));
        return SILT_OK;
    }
    if (s->u.create_view.typed_columns)
        return sql_parser_fail(p, "expected USING: column types are given only to a view "
                               "over files (CREATE TEMPORARY VIEW v (a INT) USING csv ...)");
    for (;;) {
        if (sql_parser_accept_kw(p, "COMMENT"))
            P_TRY(sql_parser_string(p, &s->u.create_view.comment, NULL));
        else if (sql_parser_accept_kw(p, "TBLPROPERTIES"))
            P_TRY(kv_list(p, &s->u.create_view.properties, 1));
        else
            break;
    }
    P_TRY(sql_parser_expect_kw(p, "AS"));
    return sql_parser_query(p, &s->u.create_view.query);
}

static silt_status create_database(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_CREATE_DATABASE;
    P_TRY(if_not_exists(p, &s->u.create_database.if_not_exists));
    P_TRY(sql_parser_name(p, &s->u.create_database.name));
    for (;;) {
        if (sql_parser_accept_kw(p, "LOCATION")) {
            P_TRY(sql_parser_string(p, &s->u.create_database.location, NULL));
        } else if (sql_parser_accept_kw(p, "COMMENT")) {
            P_TRY(sql_parser_string(p, &s->u.create_database.comment, NULL));
        } else if (sql_parser_kw(p, "WITH") && (sql_parser_kw_at(p, 1, "DBPROPERTIES") ||
                                       sql_parser_kw_at(p, 1, "PROPERTIES"))) {
            p_advance(p);
            p_advance(p);
            P_TRY(kv_list(p, &s->u.create_database.properties, 1));
        } else {
            return SILT_OK;
        }
    }
}

/*
 * A commit hash after AT: a word, a number run into words (1a2b3c4d lexes as
 * several adjacent tokens), a quoted string or a backquoted name.
 */
static silt_status ref_hash(parser *p, const char **out)
{
    const sql_token *first = p_tok(p);
    size_t end;
    if (p_at_string(p))
        return sql_parser_string(p, out, NULL);
    if (first->kind == SQL_TOK_QUOTED) {
        sql_ident id;
        P_TRY(sql_parser_ident(p, &id));
        *out = id.name;
        return SILT_OK;
    }
    if (first->kind != SQL_TOK_WORD && first->kind != SQL_TOK_NUMBER)
        return sql_parser_fail(p, "expected a commit hash");
    end = first->off + first->len;
    p_advance(p);
    while ((p_is(p, SQL_TOK_WORD) || p_is(p, SQL_TOK_NUMBER)) && !p_tok(p)->space_before &&
           p_tok(p)->off == end) {
        end = p_tok(p)->off + p_tok(p)->len;
        p_advance(p);
    }
    *out = sql_parser_strndup(p, p->text + first->off, end - first->off);
    return *out != NULL ? SILT_OK : SILT_NOMEM;
}

/* The optional clauses of the reference statements, in any order: IN catalog, and the
 * one of FROM/TO/INTO ref that `target` names (NULL: none), each ref with [AT hash]. */
static silt_status ref_clauses(parser *p, sql_stmt *s, const char *target)
{
    for (;;) {
        if (sql_parser_accept_kw(p, "IN")) {
            P_TRY(sql_parser_name(p, &s->u.ref.in));
        } else if (target != NULL && sql_parser_accept_kw(p, target)) {
            P_TRY(sql_parser_name(p, strcmp(target, "INTO") == 0 ? &s->u.ref.into
                                                                : &s->u.ref.from));
        } else if (s->kind != SQL_STMT_MERGE_BRANCH && sql_parser_accept_kw(p, "AT")) {
            P_TRY(ref_hash(p, &s->u.ref.hash));
        } else if (s->kind == SQL_STMT_MERGE_BRANCH && sql_parser_kw(p, "DRY") &&
                   sql_parser_kw_at(p, 1, "RUN")) {
            p_advance(p);
            p_advance(p);
            s->u.ref.dry_run = 1;
        } else {
            return SILT_OK;
        }
    }
}

/* CREATE BRANCH|TAG [IF NOT EXISTS] name [IN catalog] [FROM ref [AT hash]] (either order). */
static silt_status create_ref(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_CREATE_REF;
    s->u.ref.what = sql_parser_kw(p, "BRANCH") ? SQL_OBJ_BRANCH : SQL_OBJ_TAG;
    p_advance(p);
    P_TRY(if_not_exists(p, &s->u.ref.if_not_exists));
    P_TRY(sql_parser_name(p, &s->u.ref.name));
    return ref_clauses(p, s, "FROM");
}

/* ASSIGN BRANCH|TAG name [TO ref [AT hash]] [IN catalog]. */
static silt_status assign_ref(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_ASSIGN_REF;
    p_advance(p);
    if (sql_parser_accept_kw(p, "BRANCH"))
        s->u.ref.what = SQL_OBJ_BRANCH;
    else if (sql_parser_accept_kw(p, "TAG"))
        s->u.ref.what = SQL_OBJ_TAG;
    else
        return sql_parser_fail(p, "expected BRANCH or TAG");
    P_TRY(sql_parser_name(p, &s->u.ref.name));
    return ref_clauses(p, s, "TO");
}

/* A T-SQL option value: a string (N'...' too), a number, TRUE/FALSE or a word. */
silt_status sql_parser_tsql_value(parser *p, const char **out)
{
    if (sql_parser_kw(p, "N") && p_is_string_kind(p_peek(p, 1)->kind) && !p_peek(p, 1)->space_before)
        p_advance(p);
    return sql_parser_literal_text(p, out);
}

/*
 * T-SQL's WITH ( KEY = value, ..., FORMAT_OPTIONS ( KEY = value, ... ) ):
 * keys upper-cased, nested lists flattened to OUTER.KEY. A key given twice
 * is refused.
 */
static silt_status tsql_with_list(parser *p, sql_kv_list *out, const char *outer)
{
    size_t cap = out->n;
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    do {
        const sql_token *t = p_tok(p);
        char *key;
        sql_kv *kv;
        if (t->kind != SQL_TOK_WORD)
            return sql_parser_fail(p, "expected an option name");
        key = outer ? arena_sprintf(p->a, "%s.%.*s", outer, (int)t->len, p->text + t->off)
                    : sql_parser_strndup(p, p->text + t->off, t->len);
        if (key == NULL)
            return err_nomem(p->err);
        for (char *c = key; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
        for (size_t idx = 0; idx < out->n; idx++)
            if (strcmp(out->items[idx].key, key) == 0)
                return sql_parser_fail(p, "option %s given twice", key);
        p_advance(p);
        if (outer == NULL && p_is(p, SQL_TOK_LPAREN)) {
            /* FORMAT_OPTIONS ( ... ) */
            P_TRY(tsql_with_list(p, out, key));
            cap = out->n;
            continue;
        }
        P_TRY(sql_parser_grow(p, (void **)&out->items, &out->n, &cap, sizeof(*kv)));
        kv = &out->items[out->n - 1];
        kv->pos = t->off;
        kv->key = key;
        P_TRY(sql_parser_expect(p, SQL_TOK_EQ));
        P_TRY(sql_parser_tsql_value(p, &kv->value));
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return sql_parser_expect(p, SQL_TOK_RPAREN);
}

/*
 * After CREATE EXTERNAL: DATA SOURCE name WITH (...) | FILE FORMAT name WITH
 * (...) | TABLE name (cols) WITH (...), the T-SQL forms (docs/serverless.md).
 */
static silt_status create_external(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_CREATE_EXTERNAL;
    if (sql_parser_kw(p, "DATA") && sql_parser_kw_at(p, 1, "SOURCE"))
        s->u.create_external.what = SQL_OBJ_EXTERNAL_DATA_SOURCE;
    else if (sql_parser_kw(p, "FILE") && sql_parser_kw_at(p, 1, "FORMAT"))
        s->u.create_external.what = SQL_OBJ_EXTERNAL_FILE_FORMAT;
    else
        return sql_parser_fail(p, "expected TABLE, DATA SOURCE or FILE FORMAT");
    p_advance(p);
    p_advance(p);
    P_TRY(sql_parser_name(p, &s->u.create_external.name));
    P_TRY(sql_parser_expect_kw(p, "WITH"));
    return tsql_with_list(p, &s->u.create_external.with, NULL);
}

static silt_status create_stmt(parser *p, sql_stmt *s)
{
    uint8_t or_replace = 0, temporary = 0, global = 0, external = 0;
    p_advance(p);
    if (sql_parser_kw(p, "OR") && sql_parser_kw_at(p, 1, "REFRESH") &&
        sql_parser_kw_at(p, 2, "STREAMING")) {
        p_advance(p);
        p_advance(p);
        s->u.create_table.or_replace = 1;
    }
    if (sql_parser_kw(p, "STREAMING") && sql_parser_kw_at(p, 1, "TABLE")) {
        /* Databricks SQL's streaming tables: stream/ runs them (docs/streaming.md) */
        p_advance(p);
        p_advance(p);
        s->u.create_table.streaming = 1;
        return create_table(p, s);
    }
    if (sql_parser_kw(p, "OR")) {
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "REPLACE"));
        or_replace = 1;
    }
    if (sql_parser_accept_kw(p, "GLOBAL"))
        global = 1;
    if (sql_parser_accept_kw(p, "TEMPORARY") || sql_parser_accept_kw(p, "TEMP"))
        temporary = 1;
    else if (global)
        return sql_parser_fail(p, "expected TEMPORARY");
    if ((sql_parser_kw(p, "DATABASE") && sql_parser_kw_at(p, 1, "SCOPED")) ||
        (sql_parser_kw(p, "MASTER") && sql_parser_kw_at(p, 1, "KEY")))
        /* T-SQL's credentials for external data sources (docs/serverless.md) */
        return sql_parser_fail(p, "CREATE %s is not supported: silt reads storage with the "
                               "credentials of the database handle's options",
                               sql_parser_kw(p, "MASTER") ? "MASTER KEY"
                                                          : "DATABASE SCOPED CREDENTIAL");
    if (sql_parser_accept_kw(p, "EXTERNAL"))
        external = 1;
    if (external && !or_replace && !temporary && !sql_parser_kw(p, "TABLE"))
        return create_external(p, s);
    if (sql_parser_accept_kw(p, "TABLE")) {
        s->u.create_table.or_replace = or_replace;
        s->u.create_table.temporary = temporary;
        s->u.create_table.external = external;
        return create_table(p, s);
    }
    if (external)
        return sql_parser_fail(p, "expected TABLE");
    if (sql_parser_accept_kw(p, "VIEW")) {
        s->u.create_view.or_replace = or_replace;
        s->u.create_view.temporary = temporary;
        s->u.create_view.global = global;
        return create_view(p, s);
    }
    if (temporary)
        return sql_parser_fail(p, "expected TABLE or VIEW");
    if (!or_replace && (sql_parser_accept_kw(p, "DATABASE") || sql_parser_accept_kw(p, "SCHEMA") ||
                        sql_parser_accept_kw(p, "NAMESPACE")))
        return create_database(p, s);
    if (!or_replace && (sql_parser_kw(p, "BRANCH") || sql_parser_kw(p, "TAG")))
        return create_ref(p, s);
    return sql_parser_fail(p, "expected TABLE, VIEW, DATABASE, SCHEMA, BRANCH or TAG");
}

/* ------------------------------------------------------------------ DROP, USE, SHOW, DESCRIBE */

static silt_status drop_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_DROP;
    p_advance(p);
    if (sql_parser_accept_kw(p, "TABLE"))
        s->u.drop.what = SQL_OBJ_TABLE;
    else if (sql_parser_accept_kw(p, "VIEW"))
        s->u.drop.what = SQL_OBJ_VIEW;
    else if (sql_parser_accept_kw(p, "DATABASE") || sql_parser_accept_kw(p, "SCHEMA") ||
             sql_parser_accept_kw(p, "NAMESPACE"))
        s->u.drop.what = SQL_OBJ_DATABASE;
    else if (sql_parser_accept_kw(p, "BRANCH"))
        s->u.drop.what = SQL_OBJ_BRANCH;
    else if (sql_parser_accept_kw(p, "TAG"))
        s->u.drop.what = SQL_OBJ_TAG;
    else if (sql_parser_accept_kw(p, "EXTERNAL")) {
        /* T-SQL: DROP EXTERNAL TABLE | DATA SOURCE | FILE FORMAT name */
        if (sql_parser_accept_kw(p, "TABLE")) {
            s->u.drop.what = SQL_OBJ_TABLE;
        } else if (sql_parser_kw(p, "DATA") && sql_parser_kw_at(p, 1, "SOURCE")) {
            s->u.drop.what = SQL_OBJ_EXTERNAL_DATA_SOURCE;
        } else if (sql_parser_kw(p, "FILE") && sql_parser_kw_at(p, 1, "FORMAT")) {
            s->u.drop.what = SQL_OBJ_EXTERNAL_FILE_FORMAT;
        } else {
            return sql_parser_fail(p, "expected TABLE, DATA SOURCE or FILE FORMAT");
        }
        if (s->u.drop.what != SQL_OBJ_TABLE) {
            p_advance(p);
            p_advance(p);
        }
        return sql_parser_name(p, &s->u.drop.name);
    }
    else
        return sql_parser_fail(p, "expected TABLE, VIEW, DATABASE, SCHEMA, BRANCH or TAG");
    if (s->u.drop.what == SQL_OBJ_BRANCH || s->u.drop.what == SQL_OBJ_TAG)
        s->kind = SQL_STMT_DROP_REF;
    P_TRY(if_exists(p, &s->u.drop.if_exists));
    P_TRY(sql_parser_name(p, &s->u.drop.name));
    if (s->kind == SQL_STMT_DROP_REF) {
        if (sql_parser_accept_kw(p, "IN"))
            P_TRY(sql_parser_name(p, &s->u.drop.in));
        return SILT_OK;
    }
    if (s->u.drop.what == SQL_OBJ_DATABASE) {
        if (sql_parser_accept_kw(p, "CASCADE"))
            s->u.drop.cascade = 1;
        else
            sql_parser_accept_kw(p, "RESTRICT");
    } else if (s->u.drop.what == SQL_OBJ_TABLE && sql_parser_accept_kw(p, "PURGE")) {
        s->u.drop.purge = 1;
    }
    return SILT_OK;
}

static silt_status use_stmt(parser *p, sql_stmt *s)
{
    p_advance(p);
    if (sql_parser_kw(p, "REFERENCE") || sql_parser_kw(p, "BRANCH") || sql_parser_kw(p, "TAG")) {
        s->kind = SQL_STMT_USE_REF;
        s->u.ref.what = sql_parser_kw(p, "BRANCH") ? SQL_OBJ_BRANCH
                        : sql_parser_kw(p, "TAG") ? SQL_OBJ_TAG : SQL_OBJ_REFERENCE;
        p_advance(p);
        P_TRY(sql_parser_name(p, &s->u.ref.name));
        return ref_clauses(p, s, NULL);
    }
    s->kind = SQL_STMT_USE;
    if ((sql_parser_kw(p, "DATABASE") || sql_parser_kw(p, "SCHEMA") ||
                                sql_parser_kw(p, "NAMESPACE")) &&
        (p_peek(p, 1)->kind == SQL_TOK_WORD || p_peek(p, 1)->kind == SQL_TOK_QUOTED))
        p_advance(p);
    return sql_parser_name(p, &s->u.use.name);
}

static silt_status show_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_SHOW;
    p_advance(p);
    if (sql_parser_kw(p, "REFERENCE") || sql_parser_kw(p, "LOG")) {
        /* Nessie's SHOW REFERENCE [IN catalog] and SHOW LOG [ref [AT hash]] [IN catalog] */
        s->kind = sql_parser_kw(p, "LOG") ? SQL_STMT_SHOW_LOG : SQL_STMT_SHOW_REF;
        s->u.ref.what = SQL_OBJ_REFERENCE;
        p_advance(p);
        if (s->kind == SQL_STMT_SHOW_LOG && sql_parser_at_ident(p) && !sql_parser_kw(p, "IN") &&
            !sql_parser_kw(p, "AT"))
            P_TRY(sql_parser_name(p, &s->u.ref.name));
        return ref_clauses(p, s, NULL);
    }
    if (sql_parser_accept_kw(p, "DATABASES") || sql_parser_accept_kw(p, "SCHEMAS") ||
        sql_parser_accept_kw(p, "NAMESPACES")) {
        s->u.show.what = SQL_SHOW_DATABASES;
    } else if (sql_parser_accept_kw(p, "TABLES") || sql_parser_accept_kw(p, "VIEWS") ||
               sql_parser_accept_kw(p, "FUNCTIONS")) {
        const sql_token *prev = &p->toks[p->i - 1];
        s->u.show.what = sql_parser_word_is(p, prev, "TABLES")  ? SQL_SHOW_TABLES
                         : sql_parser_word_is(p, prev, "VIEWS") ? SQL_SHOW_VIEWS
                                                       : SQL_SHOW_FUNCTIONS;
        if (sql_parser_accept_kw(p, "IN") || sql_parser_accept_kw(p, "FROM"))
            P_TRY(sql_parser_name(p, &s->u.show.in));
    } else if (sql_parser_accept_kw(p, "COLUMNS")) {
        s->u.show.what = SQL_SHOW_COLUMNS;
        if (!sql_parser_accept_kw(p, "IN"))
            P_TRY(sql_parser_expect_kw(p, "FROM"));
        P_TRY(sql_parser_name(p, &s->u.show.name));
        if (sql_parser_accept_kw(p, "IN") || sql_parser_accept_kw(p, "FROM"))
            P_TRY(sql_parser_name(p, &s->u.show.in));
        return SILT_OK;
    } else if (sql_parser_accept_kw(p, "TBLPROPERTIES")) {
        s->u.show.what = SQL_SHOW_TBLPROPERTIES;
        P_TRY(sql_parser_name(p, &s->u.show.name));
        if (sql_parser_accept(p, SQL_TOK_LPAREN)) {
            P_TRY(dotted_text(p, &s->u.show.key));
            P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
        }
        return SILT_OK;
    } else if (sql_parser_kw(p, "CREATE")) {
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "TABLE"));
        s->u.show.what = SQL_SHOW_CREATE_TABLE;
        return sql_parser_name(p, &s->u.show.name);
    } else if (sql_parser_accept_kw(p, "PARTITIONS")) {
        s->u.show.what = SQL_SHOW_PARTITIONS;
        return sql_parser_name(p, &s->u.show.name);
    } else {
        return sql_parser_fail(p, "expected DATABASES, SCHEMAS, TABLES, VIEWS, COLUMNS, TBLPROPERTIES, "
                      "PARTITIONS or CREATE TABLE");
    }
    if (sql_parser_accept_kw(p, "LIKE") || p_at_string(p))
        P_TRY(sql_parser_string(p, &s->u.show.like, NULL));
    return SILT_OK;
}

static silt_status describe_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_DESCRIBE;
    p_advance(p);
    if (sql_parser_accept_kw(p, "HISTORY")) {
        s->u.describe.what = SQL_DESCRIBE_HISTORY;
        if (p_at_string(p)) {
            sql_ident *part = sql_parser_alloc(p, sizeof(*part));
            if (part == NULL)
                return SILT_NOMEM;
            part->pos = p_tok(p)->off;
            part->quoted = 1;
            s->u.describe.name.pos = part->pos;
            s->u.describe.name.is_path = 1;
            P_TRY(sql_parser_string(p, &part->name, NULL));
            s->u.describe.name.parts = part;
            s->u.describe.name.n_parts = 1;
        } else {
            P_TRY(sql_parser_name(p, &s->u.describe.name));
        }
        if (sql_parser_accept_kw(p, "LIMIT"))
            P_TRY(sql_parser_expr(p, &s->u.describe.limit));
        return SILT_OK;
    }
    if (sql_parser_accept_kw(p, "DETAIL")) {
        s->u.describe.what = SQL_DESCRIBE_DETAIL;
        return sql_parser_name(p, &s->u.describe.name);
    }
    if (sql_parser_accept_kw(p, "DATABASE") || sql_parser_accept_kw(p, "SCHEMA") || sql_parser_accept_kw(p, "NAMESPACE")) {
        s->u.describe.what = SQL_DESCRIBE_DATABASE;
        if (sql_parser_accept_kw(p, "EXTENDED"))
            s->u.describe.extended = 1;
        return sql_parser_name(p, &s->u.describe.name);
    }
    s->u.describe.what = SQL_DESCRIBE_TABLE;
    if (!sql_parser_accept_kw(p, "TABLE") && (sql_parser_accept_kw(p, "QUERY") || sql_parser_at_query(p))) {
        s->u.describe.what = SQL_DESCRIBE_QUERY;
        return sql_parser_query(p, &s->u.describe.query);
    }
    if (sql_parser_accept_kw(p, "EXTENDED") || sql_parser_accept_kw(p, "FORMATTED"))
        s->u.describe.extended = 1;
    P_TRY(sql_parser_name(p, &s->u.describe.name));
    if (sql_parser_at_ident(p))
        P_TRY(sql_parser_name(p, &s->u.describe.column));
    return SILT_OK;
}

/* ------------------------------------------------------------------ DML */

static silt_status assignments(parser *p, sql_assignment_list *out)
{
    size_t cap = 0;
    memset(out, 0, sizeof(*out));
    do {
        sql_assignment *a;
        P_TRY(sql_parser_grow(p, (void **)&out->items, &out->n, &cap, sizeof(*a)));
        a = &out->items[out->n - 1];
        P_TRY(sql_parser_name(p, &a->target));
        if (!sql_parser_accept(p, SQL_TOK_EQ))
            return sql_parser_fail(p, "expected '='");
        P_TRY(sql_parser_expr(p, &a->value));
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return SILT_OK;
}

/* PARTITION ( col [= value], ... ): a value is NULL for a dynamic partition column. */
static silt_status partition_spec(parser *p, sql_assignment **items, size_t *n)
{
    size_t cap = 0;
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    do {
        sql_assignment *a;
        P_TRY(sql_parser_grow(p, (void **)items, n, &cap, sizeof(*a)));
        a = &(*items)[*n - 1];
        P_TRY(sql_parser_name(p, &a->target));
        if (sql_parser_accept(p, SQL_TOK_EQ))
            P_TRY(sql_parser_expr(p, &a->value));
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return sql_parser_expect(p, SQL_TOK_RPAREN);
}

static silt_status schema_evolution(parser *p, uint8_t *out)
{
    if (sql_parser_kw(p, "WITH") && sql_parser_kw_at(p, 1, "SCHEMA")) {
        p_advance(p);
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "EVOLUTION"));
        *out = 1;
    }
    return SILT_OK;
}

/*
 * INSERT [WITH SCHEMA EVOLUTION] INTO|OVERWRITE [TABLE] t [PARTITION (...)]
 *   [(cols) | BY NAME] [REPLACE WHERE pred] [IF NOT EXISTS] query
 */
static silt_status insert_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_INSERT;
    p_advance(p);
    P_TRY(schema_evolution(p, &s->u.insert.schema_evolution));
    if (sql_parser_accept_kw(p, "OVERWRITE"))
        s->u.insert.overwrite = 1;
    else
        P_TRY(sql_parser_expect_kw(p, "INTO"));
    sql_parser_accept_kw(p, "TABLE");
    P_TRY(sql_parser_table_name_ref(p, &s->u.insert.table, &s->u.insert.at));
    if (sql_parser_accept_kw(p, "PARTITION"))
        P_TRY(partition_spec(p, &s->u.insert.partition, &s->u.insert.n_partition));
    if (sql_parser_kw(p, "IF")) {
        P_TRY(if_not_exists(p, &s->u.insert.if_not_exists));
    }
    if (sql_parser_kw(p, "BY") && sql_parser_kw_at(p, 1, "NAME")) {
        p_advance(p);
        p_advance(p);
        s->u.insert.by_name = 1;
    } else if (p_is(p, SQL_TOK_LPAREN) && !sql_parser_at_query(p)) {
        P_TRY(sql_parser_ident_list_paren(p, &s->u.insert.columns));
    }
    if (sql_parser_kw(p, "REPLACE")) {
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "WHERE"));
        P_TRY(sql_parser_expr(p, &s->u.insert.replace_where));
    }
    if (!sql_parser_at_query(p))
        return sql_parser_fail(p, "expected a query (SELECT, VALUES, TABLE or WITH)");
    return sql_parser_query(p, &s->u.insert.query);
}

/* A DML target: name [@ref] [[AS] alias]. */
static silt_status dml_target(parser *p, sql_table_ref **out)
{
    sql_table_ref *r = sql_parser_alloc(p, sizeof(*r));
    if (r == NULL)
        return SILT_NOMEM;
    r->kind = SQL_TABLE_NAMED;
    r->pos = p_tok(p)->off;
    P_TRY(sql_parser_table_name_ref(p, &r->u.named.name, &r->u.named.at));
    P_TRY(sql_parser_alias(p, &r->alias, 0));
    *out = r;
    return SILT_OK;
}

static silt_status update_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_UPDATE;
    p_advance(p);
    P_TRY(dml_target(p, &s->u.update.table));
    P_TRY(sql_parser_expect_kw(p, "SET"));
    P_TRY(assignments(p, &s->u.update.set));
    if (sql_parser_accept_kw(p, "WHERE"))
        P_TRY(sql_parser_expr(p, &s->u.update.where));
    return SILT_OK;
}

static silt_status delete_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_DELETE;
    p_advance(p);
    P_TRY(sql_parser_expect_kw(p, "FROM"));
    P_TRY(dml_target(p, &s->u.delete_.table));
    if (sql_parser_accept_kw(p, "WHERE"))
        P_TRY(sql_parser_expr(p, &s->u.delete_.where));
    return SILT_OK;
}

static silt_status merge_action(parser *p, sql_merge_clause *c)
{
    if (sql_parser_accept_kw(p, "DELETE")) {
        c->action = SQL_MERGE_DELETE;
    } else if (sql_parser_accept_kw(p, "UPDATE")) {
        P_TRY(sql_parser_expect_kw(p, "SET"));
        if (sql_parser_accept(p, SQL_TOK_STAR)) {
            c->action = SQL_MERGE_UPDATE_ALL;
        } else {
            c->action = SQL_MERGE_UPDATE;
            P_TRY(assignments(p, &c->set));
        }
    } else if (sql_parser_accept_kw(p, "INSERT")) {
        if (sql_parser_accept(p, SQL_TOK_STAR)) {
            c->action = SQL_MERGE_INSERT_ALL;
        } else {
            sql_expr *row;
            c->action = SQL_MERGE_INSERT;
            if (p_is(p, SQL_TOK_LPAREN))
                P_TRY(sql_parser_ident_list_paren(p, &c->insert_cols));
            P_TRY(sql_parser_expect_kw(p, "VALUES"));
            if (!p_is(p, SQL_TOK_LPAREN))
                return sql_parser_fail(p, "expected '('");
            P_TRY(sql_parser_expr(p, &row));
            if (row->kind == SQL_EXPR_ROW) {
                c->insert_values = row->u.row;
            } else {
                c->insert_values.items = sql_parser_alloc(p, sizeof(sql_expr *));
                if (c->insert_values.items == NULL)
                    return SILT_NOMEM;
                c->insert_values.items[0] = row;
                c->insert_values.n = 1;
            }
        }
    } else {
        return sql_parser_fail(p, "expected UPDATE, DELETE or INSERT");
    }
    if (c->match == SQL_MERGE_NOT_MATCHED &&
        (c->action != SQL_MERGE_INSERT && c->action != SQL_MERGE_INSERT_ALL))
        return sql_parser_fail_at(p, p->i - 1, "WHEN NOT MATCHED [BY TARGET] allows only INSERT");
    if (c->match != SQL_MERGE_NOT_MATCHED &&
        (c->action == SQL_MERGE_INSERT || c->action == SQL_MERGE_INSERT_ALL))
        return sql_parser_fail_at(p, p->i - 1, "INSERT is allowed only in WHEN NOT MATCHED [BY TARGET]");
    if (c->match == SQL_MERGE_NOT_MATCHED_BY_SOURCE && c->action == SQL_MERGE_UPDATE_ALL)
        return sql_parser_fail_at(p, p->i - 1, "WHEN NOT MATCHED BY SOURCE cannot UPDATE SET *");
    return SILT_OK;
}

static silt_status merge_stmt(parser *p, sql_stmt *s)
{
    size_t cap = 0;
    s->kind = SQL_STMT_MERGE;
    p_advance(p);
    P_TRY(schema_evolution(p, &s->u.merge.schema_evolution));
    P_TRY(sql_parser_expect_kw(p, "INTO"));
    P_TRY(dml_target(p, &s->u.merge.target));
    P_TRY(sql_parser_expect_kw(p, "USING"));
    P_TRY(sql_parser_table_ref(p, &s->u.merge.source));
    P_TRY(sql_parser_expect_kw(p, "ON"));
    P_TRY(sql_parser_expr(p, &s->u.merge.on));
    if (!sql_parser_kw(p, "WHEN"))
        return sql_parser_fail(p, "expected WHEN");
    while (sql_parser_kw(p, "WHEN")) {
        sql_merge_clause *c;
        P_TRY(sql_parser_grow(p, (void **)&s->u.merge.clauses, &s->u.merge.n_clauses, &cap, sizeof(*c)));
        c = &s->u.merge.clauses[s->u.merge.n_clauses - 1];
        c->pos = p_tok(p)->off;
        p_advance(p);
        if (sql_parser_accept_kw(p, "NOT")) {
            P_TRY(sql_parser_expect_kw(p, "MATCHED"));
            c->match = SQL_MERGE_NOT_MATCHED;
            if (sql_parser_accept_kw(p, "BY")) {
                if (sql_parser_accept_kw(p, "SOURCE"))
                    c->match = SQL_MERGE_NOT_MATCHED_BY_SOURCE;
                else
                    P_TRY(sql_parser_expect_kw(p, "TARGET"));
            }
        } else {
            P_TRY(sql_parser_expect_kw(p, "MATCHED"));
            c->match = SQL_MERGE_MATCHED;
        }
        if (sql_parser_accept_kw(p, "AND"))
            P_TRY(sql_parser_expr(p, &c->cond));
        P_TRY(sql_parser_expect_kw(p, "THEN"));
        P_TRY(merge_action(p, c));
    }
    return SILT_OK;
}

/* ------------------------------------------------------------------ ALTER and Delta utilities */

/* [FIRST | AFTER col] of ADD COLUMNS and ALTER COLUMN; 0 when absent. */
static silt_status column_position(parser *p, sql_column_def *c, int *found)
{
    *found = 1;
    if (sql_parser_accept_kw(p, "FIRST")) {
        c->position = SQL_POSITION_FIRST;
        return SILT_OK;
    }
    if (sql_parser_accept_kw(p, "AFTER")) {
        c->position = SQL_POSITION_AFTER;
        return sql_parser_ident(p, &c->after);
    }
    *found = 0;
    return SILT_OK;
}

static silt_status alter_column(parser *p, sql_stmt *s)
{
    sql_column_def *c = sql_parser_alloc(p, sizeof(*c));
    int found;
    if (c == NULL)
        return SILT_NOMEM;
    s->u.alter.what = SQL_ALTER_ALTER_COLUMN;
    s->u.alter.columns.items = c;
    s->u.alter.columns.n = 1;
    P_TRY(sql_parser_name(p, &s->u.alter.column));
    if (sql_parser_accept_kw(p, "TYPE")) {
        s->u.alter.column_change = SQL_CHANGE_TYPE;
        return sql_parser_type(p, &c->type);
    }
    if (sql_parser_accept_kw(p, "COMMENT")) {
        s->u.alter.column_change = SQL_CHANGE_COMMENT;
        return sql_parser_string(p, &c->comment, NULL);
    }
    P_TRY(column_position(p, c, &found));
    if (found) {
        s->u.alter.column_change = SQL_CHANGE_POSITION;
        return SILT_OK;
    }
    if (sql_parser_kw(p, "SET") && sql_parser_kw_at(p, 1, "DEFAULT")) {
        p_advance(p);
        p_advance(p);
        s->u.alter.column_change = SQL_CHANGE_SET_DEFAULT;
        return sql_parser_expr(p, &c->default_value);
    }
    if (sql_parser_kw(p, "DROP") && sql_parser_kw_at(p, 1, "DEFAULT")) {
        p_advance(p);
        p_advance(p);
        s->u.alter.column_change = SQL_CHANGE_DROP_DEFAULT;
        return SILT_OK;
    }
    if (sql_parser_kw(p, "SET") || sql_parser_kw(p, "DROP")) {
        s->u.alter.column_change = sql_parser_kw(p, "SET") ? SQL_CHANGE_SET_NOT_NULL
                                                  : SQL_CHANGE_DROP_NOT_NULL;
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "NOT"));
        return sql_parser_expect_kw(p, "NULL");
    }
    return sql_parser_fail(p, "expected TYPE, COMMENT, FIRST, AFTER, SET or DROP");
}


/* DROP COLUMN(S) targets: one dotted path, or a parenthesised list of them (s.y drops a
 * nested field, as Delta does). drop_columns keeps each path's first part. */
static silt_status drop_column_paths(parser *p, sql_stmt *s)
{
    size_t cap = 0, n = 0, idx;
    int paren = sql_parser_accept(p, SQL_TOK_LPAREN);
    sql_name *paths = NULL;
    do {
        P_TRY(sql_parser_grow(p, (void **)&paths, &n, &cap, sizeof(sql_name)));
        P_TRY(sql_parser_name(p, &paths[n - 1]));
    } while (paren && sql_parser_accept(p, SQL_TOK_COMMA));
    if (paren)
        P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    s->u.alter.drop_columns.items = sql_parser_alloc(p, n * sizeof(sql_ident));
    if (s->u.alter.drop_columns.items == NULL)
        return SILT_NOMEM;
    for (idx = 0; idx < n; idx++)
        s->u.alter.drop_columns.items[idx] = paths[idx].parts[0];
    s->u.alter.drop_columns.n = n;
    s->u.alter.drop_paths = paths;
    return SILT_OK;
}

static silt_status alter_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_ALTER_TABLE;
    p_advance(p);
    P_TRY(sql_parser_expect_kw(p, "TABLE"));
    P_TRY(sql_parser_name(p, &s->u.alter.name));
    if (sql_parser_kw(p, "CLUSTER") && sql_parser_kw_at(p, 1, "BY"))
        /* Delta's liquid clustering: not implemented, refused by its name (docs/maintenance.md) */
        return sql_parser_error_at(p, p_tok(p)->off,
                                   "ALTER TABLE ... CLUSTER BY (Delta's liquid clustering) is not "
                                   "supported by silt");
    if (sql_parser_kw(p, "ADD") && sql_parser_kw_at(p, 1, "CONSTRAINT")) {
        sql_ident name;
        p_advance(p);
        p_advance(p);
        s->u.alter.what = SQL_ALTER_ADD_CONSTRAINT;
        P_TRY(sql_parser_ident(p, &name));
        s->u.alter.constraint = name.name;
        P_TRY(sql_parser_expect_kw(p, "CHECK"));
        P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
        P_TRY(sql_parser_expr(p, &s->u.alter.check));
        return sql_parser_expect(p, SQL_TOK_RPAREN);
    }
    if (sql_parser_kw(p, "DROP") && sql_parser_kw_at(p, 1, "CONSTRAINT")) {
        sql_ident name;
        p_advance(p);
        p_advance(p);
        s->u.alter.what = SQL_ALTER_DROP_CONSTRAINT;
        P_TRY(if_exists(p, &s->u.alter.if_exists));
        P_TRY(sql_parser_ident(p, &name));
        s->u.alter.constraint = name.name;
        return SILT_OK;
    }
    if (sql_parser_accept_kw(p, "ADD")) {
        s->u.alter.what = SQL_ALTER_ADD_COLUMNS;
        if (!sql_parser_accept_kw(p, "COLUMNS"))
            P_TRY(sql_parser_expect_kw(p, "COLUMN"));
        if (p_is(p, SQL_TOK_LPAREN))
            return column_list(p, &s->u.alter.columns, 2);
        s->u.alter.columns.items = sql_parser_alloc(p, sizeof(sql_column_def));
        if (s->u.alter.columns.items == NULL)
            return SILT_NOMEM;
        s->u.alter.columns.n = 1;
        return column_def(p, &s->u.alter.columns.items[0], 2);
    }
    if (sql_parser_accept_kw(p, "DROP")) {
        s->u.alter.what = SQL_ALTER_DROP_COLUMNS;
        if (!sql_parser_accept_kw(p, "COLUMNS"))
            P_TRY(sql_parser_expect_kw(p, "COLUMN"));
        P_TRY(if_exists(p, &s->u.alter.if_exists));
        return drop_column_paths(p, s);
    }
    if (sql_parser_accept_kw(p, "RENAME")) {
        if (sql_parser_accept_kw(p, "COLUMN")) {
            s->u.alter.what = SQL_ALTER_RENAME_COLUMN;
            P_TRY(sql_parser_name(p, &s->u.alter.column));
        } else {
            s->u.alter.what = SQL_ALTER_RENAME_TO;
        }
        P_TRY(sql_parser_expect_kw(p, "TO"));
        return sql_parser_name(p, &s->u.alter.new_name);
    }
    if (sql_parser_accept_kw(p, "ALTER") || sql_parser_accept_kw(p, "CHANGE")) {
        sql_parser_accept_kw(p, "COLUMN");
        return alter_column(p, s);
    }
    if (sql_parser_accept_kw(p, "SET")) {
        if (sql_parser_accept_kw(p, "LOCATION")) {
            s->u.alter.what = SQL_ALTER_SET_LOCATION;
            return sql_parser_string(p, &s->u.alter.location, NULL);
        }
        P_TRY(sql_parser_expect_kw(p, "TBLPROPERTIES"));
        s->u.alter.what = SQL_ALTER_SET_PROPERTIES;
        return kv_list(p, &s->u.alter.properties, 1);
    }
    if (sql_parser_accept_kw(p, "UNSET")) {
        P_TRY(sql_parser_expect_kw(p, "TBLPROPERTIES"));
        s->u.alter.what = SQL_ALTER_UNSET_PROPERTIES;
        P_TRY(if_exists(p, &s->u.alter.if_exists));
        return kv_list(p, &s->u.alter.properties, 0);
    }
    return sql_parser_fail(p, "expected ADD, DROP, RENAME, ALTER, SET or UNSET");
}

static silt_status restore_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_RESTORE;
    p_advance(p);
    sql_parser_accept_kw(p, "TABLE");
    P_TRY(sql_parser_name(p, &s->u.restore.name));
    sql_parser_accept_kw(p, "TO");
    P_TRY(sql_parser_table_version(p, &s->u.restore.at));
    if (s->u.restore.at.version == NULL && s->u.restore.at.timestamp == NULL)
        return sql_parser_fail(p, "expected VERSION AS OF or TIMESTAMP AS OF");
    return SILT_OK;
}

/* The table of a Delta utility: a name, or a path string (VACUUM '/path'). */
static silt_status utility_target(parser *p, sql_name *out)
{
    if (p_at_string(p)) {
        sql_ident *part = sql_parser_alloc(p, sizeof(*part));
        if (part == NULL)
            return SILT_NOMEM;
        part->pos = p_tok(p)->off;
        part->quoted = 1;
        out->pos = part->pos;
        out->is_path = 1;
        P_TRY(sql_parser_string(p, &part->name, NULL));
        out->parts = part;
        out->n_parts = 1;
        return SILT_OK;
    }
    return sql_parser_name(p, out);
}

static silt_status vacuum_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_VACUUM;
    p_advance(p);
    P_TRY(utility_target(p, &s->u.vacuum.name));
    if (sql_parser_accept_kw(p, "RETAIN")) {
        P_TRY(sql_parser_expr(p, &s->u.vacuum.retain_hours));
        P_TRY(sql_parser_expect_kw(p, "HOURS"));
    }
    if (sql_parser_accept_kw(p, "DRY")) {
        P_TRY(sql_parser_expect_kw(p, "RUN"));
        s->u.vacuum.dry_run = 1;
    }
    return SILT_OK;
}

/* REORG TABLE t [WHERE partition predicate] APPLY (PURGE): OPTIMIZE of the files with
 * deletion vectors (docs/dv.md); other APPLY forms are refused as syntax errors. */
static silt_status reorg_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_OPTIMIZE;
    s->u.optimize.purge = 1;
    p_advance(p);
    P_TRY(sql_parser_expect_kw(p, "TABLE"));
    P_TRY(utility_target(p, &s->u.optimize.name));
    if (sql_parser_accept_kw(p, "WHERE"))
        P_TRY(sql_parser_expr(p, &s->u.optimize.where));
    P_TRY(sql_parser_expect_kw(p, "APPLY"));
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    P_TRY(sql_parser_expect_kw(p, "PURGE"));
    return sql_parser_expect(p, SQL_TOK_RPAREN);
}

static silt_status optimize_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_OPTIMIZE;
    p_advance(p);
    P_TRY(utility_target(p, &s->u.optimize.name));
    if (sql_parser_accept_kw(p, "WHERE"))
        P_TRY(sql_parser_expr(p, &s->u.optimize.where));
    if (sql_parser_accept_kw(p, "ZORDER")) {
        P_TRY(sql_parser_expect_kw(p, "BY"));
        if (p_is(p, SQL_TOK_LPAREN)) {
            P_TRY(sql_parser_ident_list_paren(p, &s->u.optimize.zorder_by));
        } else {
            size_t cap = 0;
            sql_ident_list *l = &s->u.optimize.zorder_by;
            do {
                P_TRY(sql_parser_grow(p, (void **)&l->items, &l->n, &cap, sizeof(sql_ident)));
                P_TRY(sql_parser_ident(p, &l->items[l->n - 1]));
            } while (sql_parser_accept(p, SQL_TOK_COMMA));
        }
    }
    return SILT_OK;
}

static silt_status generate_stmt(parser *p, sql_stmt *s)
{
    sql_ident mode;
    s->kind = SQL_STMT_GENERATE;
    p_advance(p);
    P_TRY(sql_parser_ident(p, &mode));
    s->u.generate.mode = mode.name;
    P_TRY(sql_parser_expect_kw(p, "FOR"));
    P_TRY(sql_parser_expect_kw(p, "TABLE"));
    return utility_target(p, &s->u.generate.name);
}

static silt_status convert_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_CONVERT;
    p_advance(p);
    P_TRY(sql_parser_expect_kw(p, "TO"));
    P_TRY(sql_parser_expect_kw(p, "DELTA"));
    P_TRY(sql_parser_name(p, &s->u.convert.name));
    if (sql_parser_accept_kw(p, "PARTITIONED")) {
        P_TRY(sql_parser_expect_kw(p, "BY"));
        P_TRY(column_list(p, &s->u.convert.partitioned_by, 0));
    }
    return SILT_OK;
}

/* Raw text of tokens [first, last) trimmed, as SET keeps it. */
static const char *raw_text(parser *p, size_t first, size_t last)
{
    uint32_t start, end;
    if (first >= last)
        return "";
    start = p->toks[first].off;
    end = p->toks[last - 1].off + p->toks[last - 1].len;
    return sql_parser_strndup(p, p->text + start, end - start);
}

static int at_stmt_end(const parser *p) { return p_is(p, SQL_TOK_EOF) || p_is(p, SQL_TOK_SEMI); }

/* SET; SET key; SET key = value (key and value are raw text, as Spark reads them). */
static silt_status set_stmt(parser *p, sql_stmt *s)
{
    size_t key_start, key_end, value_start;
    s->kind = SQL_STMT_SET;
    p_advance(p);
    if (at_stmt_end(p))
        return SILT_OK;
    if (sql_parser_kw(p, "TIME") && sql_parser_kw_at(p, 1, "ZONE")) {
        /* SET TIME ZONE 'zone' | LOCAL | INTERVAL ...: Spark's session time zone setting. */
        p_advance(p);
        p_advance(p);
        s->u.set.key = "spark.sql.session.timeZone";
        if (p_at_string(p) && (p_peek(p, 1)->kind == SQL_TOK_EOF ||
                               p_peek(p, 1)->kind == SQL_TOK_SEMI))
            return sql_parser_string(p, &s->u.set.value, NULL);
        value_start = p->i;
        while (!at_stmt_end(p))
            p_advance(p);
        if (p->i == value_start)
            return sql_parser_fail(p, "expected a time zone, LOCAL or an interval");
        s->u.set.value = raw_text(p, value_start, p->i);
        return s->u.set.value == NULL ? SILT_NOMEM : SILT_OK;
    }
    key_start = p->i;
    while (!at_stmt_end(p) && !p_is(p, SQL_TOK_EQ))
        p_advance(p);
    key_end = p->i;
    if (key_end == key_start)
        return sql_parser_fail(p, "expected a configuration key");
    s->u.set.key = raw_text(p, key_start, key_end);
    if (s->u.set.key == NULL)
        return SILT_NOMEM;
    if (!sql_parser_accept(p, SQL_TOK_EQ))
        return SILT_OK;
    value_start = p->i;
    while (!at_stmt_end(p))
        p_advance(p);
    s->u.set.value = raw_text(p, value_start, p->i);
    return s->u.set.value == NULL ? SILT_NOMEM : SILT_OK;
}

static silt_status reset_stmt(parser *p, sql_stmt *s)
{
    size_t start;
    s->kind = SQL_STMT_RESET;
    p_advance(p);
    start = p->i;
    while (!at_stmt_end(p))
        p_advance(p);
    if (p->i > start) {
        s->u.set.key = raw_text(p, start, p->i);
        if (s->u.set.key == NULL)
            return SILT_NOMEM;
    }
    return SILT_OK;
}

static silt_status statement(parser *p, sql_stmt **out);

static silt_status explain_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_EXPLAIN;
    p_advance(p);
    if (sql_parser_accept_kw(p, "EXTENDED"))
        s->u.explain.mode = SQL_EXPLAIN_EXTENDED;
    else if (sql_parser_accept_kw(p, "FORMATTED"))
        s->u.explain.mode = SQL_EXPLAIN_FORMATTED;
    else if (sql_parser_accept_kw(p, "CODEGEN"))
        s->u.explain.mode = SQL_EXPLAIN_CODEGEN;
    else if (sql_parser_accept_kw(p, "COST"))
        s->u.explain.mode = SQL_EXPLAIN_COST;
    else if (sql_parser_kw(p, "ANALYZE") && !sql_parser_kw_at(p, 1, "TABLE") && !sql_parser_kw_at(p, 1, "TABLES")) {
        /* silt's own (as PostgreSQL's and DuckDB's): run it, count rows and time per operator */
        p_advance(p);
        s->u.explain.mode = SQL_EXPLAIN_ANALYZE;
    }
    if (sql_parser_kw(p, "EXPLAIN"))
        return sql_parser_fail(p, "EXPLAIN cannot explain EXPLAIN");
    return statement(p, &s->u.explain.stmt);
}

static silt_status cache_stmt(parser *p, sql_stmt *s)
{
    if (sql_parser_accept_kw(p, "UNCACHE")) {
        s->kind = SQL_STMT_UNCACHE;
        P_TRY(sql_parser_expect_kw(p, "TABLE"));
        P_TRY(if_exists(p, &s->u.cache.if_exists));
        return sql_parser_name(p, &s->u.cache.name);
    }
    s->kind = SQL_STMT_CACHE;
    p_advance(p);
    if (sql_parser_accept_kw(p, "LAZY"))
        s->u.cache.lazy = 1;
    P_TRY(sql_parser_expect_kw(p, "TABLE"));
    P_TRY(sql_parser_name(p, &s->u.cache.name));
    if (sql_parser_accept_kw(p, "AS") || sql_parser_at_query(p))
        P_TRY(sql_parser_query(p, &s->u.cache.query));
    return SILT_OK;
}

/* LIST REFERENCES [IN catalog]; MERGE BRANCH b [INTO target] [IN catalog]. */
static silt_status list_refs_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_LIST_REFS;
    s->u.ref.what = SQL_OBJ_REFERENCE;
    p_advance(p);
    if (!sql_parser_accept_kw(p, "REFERENCES") && !sql_parser_accept_kw(p, "BRANCHES")) {
        if (!sql_parser_accept_kw(p, "TAGS"))
            return sql_parser_fail(p, "expected REFERENCES, BRANCHES or TAGS");
        s->u.ref.what = SQL_OBJ_TAG;
    } else if (sql_parser_word_is(p, &p->toks[p->i - 1], "BRANCHES")) {
        s->u.ref.what = SQL_OBJ_BRANCH;
    }
    if (sql_parser_accept_kw(p, "IN"))
        P_TRY(sql_parser_name(p, &s->u.ref.in));
    return SILT_OK;
}

static silt_status merge_branch_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_MERGE_BRANCH;
    s->u.ref.what = SQL_OBJ_BRANCH;
    p_advance(p);
    p_advance(p);
    if (sql_parser_kw(p, "DRY") && sql_parser_kw_at(p, 1, "RUN")) {
        p_advance(p);
        p_advance(p);
        s->u.ref.dry_run = 1;
    }
    P_TRY(sql_parser_name(p, &s->u.ref.name));
    return ref_clauses(p, s, "INTO");
}

static silt_status refresh_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_REFRESH;
    p_advance(p);
    if (sql_parser_kw(p, "STREAMING") && sql_parser_kw_at(p, 1, "TABLE")) {
        s->kind = SQL_STMT_REFRESH_STREAMING;
        p_advance(p);
        p_advance(p);
        return sql_parser_name(p, &s->u.truncate.name);
    }
    sql_parser_accept_kw(p, "TABLE");
    return utility_target(p, &s->u.truncate.name);
}

static silt_status truncate_stmt(parser *p, sql_stmt *s)
{
    s->kind = SQL_STMT_TRUNCATE;
    p_advance(p);
    P_TRY(sql_parser_expect_kw(p, "TABLE"));
    P_TRY(sql_parser_name(p, &s->u.truncate.name));
    if (sql_parser_accept_kw(p, "PARTITION"))
        P_TRY(partition_spec(p, &s->u.truncate.partition, &s->u.truncate.n_partition));
    return SILT_OK;
}

static silt_status dispatch(parser *p, sql_stmt *s);

/*
 * WITH ... followed by INSERT, UPDATE, DELETE or MERGE: the CTEs belong to
 * the statement. Otherwise the WITH starts a query, which is parsed again
 * from the WITH (only the CTE list is read twice, and only at this level).
 */
static silt_status with_dml(parser *p, sql_stmt *s, int *handled)
{
    size_t save = p->i;
    size_t n_ctes = 0;
    sql_cte *with = NULL;
    *handled = 0;
    p_advance(p);
    P_TRY(sql_parser_ctes(p, &n_ctes, &with));
    if (!sql_parser_kw(p, "INSERT") && !sql_parser_kw(p, "UPDATE") && !sql_parser_kw(p, "DELETE") &&
        !(sql_parser_kw(p, "MERGE") && !sql_parser_kw_at(p, 1, "BRANCH"))) {
        p->i = save;
        return SILT_OK;
    }
    *handled = 1;
    P_TRY(dispatch(p, s));
    s->n_ctes = n_ctes;
    s->ctes = with;
    return SILT_OK;
}

static silt_status dispatch(parser *p, sql_stmt *s)
{
    if (sql_parser_kw(p, "WITH") && p->depth == 0) {
        int handled;
        P_TRY(with_dml(p, s, &handled));
        if (handled)
            return SILT_OK;
    }
    if (sql_parser_at_query(p)) {
        s->kind = SQL_STMT_QUERY;
        return sql_parser_query(p, &s->u.query);
    }
    if (sql_parser_kw(p, "CREATE"))
        return create_stmt(p, s);
    if (sql_parser_kw(p, "REPLACE") && sql_parser_kw_at(p, 1, "TABLE")) {
        p_advance(p);
        p_advance(p);
        s->u.create_table.replace = 1;
        return create_table(p, s);
    }
    if (sql_parser_kw(p, "DROP"))
        return drop_stmt(p, s);
    if (sql_parser_kw(p, "USE"))
        return use_stmt(p, s);
    if (sql_parser_kw(p, "SHOW"))
        return show_stmt(p, s);
    if (sql_parser_kw(p, "DESCRIBE") || sql_parser_kw(p, "DESC"))
        return describe_stmt(p, s);
    if (sql_parser_kw(p, "INSERT"))
        return insert_stmt(p, s);
    if (sql_parser_kw(p, "UPDATE"))
        return update_stmt(p, s);
    if (sql_parser_kw(p, "DELETE"))
        return delete_stmt(p, s);
    if (sql_parser_kw(p, "MERGE") && sql_parser_kw_at(p, 1, "BRANCH"))
        return merge_branch_stmt(p, s);
    if (sql_parser_kw(p, "MERGE"))
        return merge_stmt(p, s);
    if (sql_parser_kw(p, "ALTER"))
        return alter_stmt(p, s);
    if (sql_parser_kw(p, "RESTORE"))
        return restore_stmt(p, s);
    if (sql_parser_kw(p, "VACUUM"))
        return vacuum_stmt(p, s);
    if (sql_parser_kw(p, "OPTIMIZE"))
        return optimize_stmt(p, s);
    if (sql_parser_kw(p, "REORG"))
        return reorg_stmt(p, s);
    if (sql_parser_kw(p, "GENERATE"))
        return generate_stmt(p, s);
    if (sql_parser_kw(p, "CONVERT"))
        return convert_stmt(p, s);
    if (sql_parser_kw(p, "SET"))
        return set_stmt(p, s);
    if (sql_parser_kw(p, "RESET"))
        return reset_stmt(p, s);
    if (sql_parser_kw(p, "EXPLAIN"))
        return explain_stmt(p, s);
    if (sql_parser_kw(p, "CACHE") || sql_parser_kw(p, "UNCACHE"))
        return cache_stmt(p, s);
    if (sql_parser_kw(p, "LIST"))
        return list_refs_stmt(p, s);
    if (sql_parser_kw(p, "ASSIGN") && (sql_parser_kw_at(p, 1, "BRANCH") ||
                                       sql_parser_kw_at(p, 1, "TAG")))
        return assign_ref(p, s);
    if (sql_parser_kw(p, "REFRESH"))
        return refresh_stmt(p, s);
    if (sql_parser_kw(p, "TRUNCATE"))
        return truncate_stmt(p, s);
    return sql_parser_fail(p, "expected a statement (SELECT, CREATE, INSERT, MERGE, ...)");
}

static silt_status statement(parser *p, sql_stmt **out)
{
    sql_stmt *s = sql_parser_alloc(p, sizeof(*s));
    if (s == NULL)
        return SILT_NOMEM;
    s->pos = p_tok(p)->off;
    P_TRY(dispatch(p, s));
    s->end = p->i > 0 ? p->toks[p->i - 1].off + p->toks[p->i - 1].len : s->pos;
    *out = s;
    return SILT_OK;
}

/*
 * T-SQL ends statements without ';' (docs/serverless.md): a statement that
 * parsed completely is followed by another when the next token starts a new
 * line and is a word only a statement starts with here. Spark has no
 * statement these tokens could continue, so nothing Spark accepts changes.
 */
static int at_tsql_next_statement(const parser *p)
{
    static const char *const starts[] = {"SELECT", "CREATE", "DROP", "USE", "INSERT",
                                         "UPDATE", "DELETE", "MERGE", "ALTER", "SHOW",
                                         "DESCRIBE"};
    const sql_token *t = p_tok(p);
    const sql_token *prev = p->i > 0 ? &p->toks[p->i - 1] : NULL;
    int new_line = 0;
    if (prev == NULL)
        return 0;
    for (size_t off = prev->off + prev->len; off < t->off; off++)
        if (p->text[off] == '\n')
            new_line = 1;
    if (!new_line)
        return 0;
    for (size_t idx = 0; idx < sizeof(starts) / sizeof(starts[0]); idx++)
        if (sql_parser_word_is(p, t, starts[idx]))
            return 1;
    return 0;
}

static silt_status parse_statements(parser *p, sql_stmt_list **out)
{
    sql_stmt_list *list = sql_parser_alloc(p, sizeof(*list));
    size_t cap = 0;
    if (list == NULL)
        return SILT_NOMEM;
    for (;;) {
        while (sql_parser_accept(p, SQL_TOK_SEMI))
            ;
        if (p_is(p, SQL_TOK_EOF))
            break;
        P_TRY(sql_parser_grow(p, (void **)&list->items, &list->n, &cap, sizeof(sql_stmt *)));
        P_TRY(statement(p, &list->items[list->n - 1]));
        if (!p_is(p, SQL_TOK_SEMI) && !p_is(p, SQL_TOK_EOF) && !at_tsql_next_statement(p))
            return sql_parser_fail(p, "expected ';' or the end of the statement");
    }
    *out = list;
    return SILT_OK;
}

silt_status sql_parse_n(arena *a, const char *text, size_t len, sql_stmt_list **out,
                        size_t *error_offset, silt_error *err)
{
    parser p;
    sql_token_list toks;
    silt_status rc;
    memset(&p, 0, sizeof(p));
    SILT_RETURN_IF_ERROR(sql_lex_heap(text, len, &toks, error_offset, err));
    p.a = a;
    p.text = text;
    p.len = len;
    p.toks = toks.tokens;
    p.n_toks = toks.n_tokens;
    p.error_offset = error_offset;
    p.err = err;
    rc = parse_statements(&p, out);
    mem_free(toks.tokens);
    return rc;
}

silt_status sql_parse_markers(arena *a, const char *text, size_t len, sql_stmt_list **out,
                              sql_param_markers *markers, silt_error *err)
{
    parser p;
    sql_token_list toks;
    silt_status rc;
    memset(&p, 0, sizeof(p));
    memset(markers, 0, sizeof(*markers));
    SILT_RETURN_IF_ERROR(sql_lex_heap(text, len, &toks, NULL, err));
    p.a = a;
    p.text = text;
    p.len = len;
    p.toks = toks.tokens;
    p.n_toks = toks.n_tokens;
    p.err = err;
    p.markers = markers;
    rc = parse_statements(&p, out);
    mem_free(toks.tokens);
    return rc;
}

silt_status sql_parser_note_marker(parser *p, uint32_t off, const char *name)
{
    sql_param_markers *m = p->markers;
    size_t at;
    if (m == NULL)
        return SILT_OK;
    /* kept sorted by offset; a marker seen again (backtracking) is there already */
    for (at = m->n; at > 0 && m->items[at - 1].off >= off; at--)
        if (m->items[at - 1].off == off)
            return SILT_OK;
    P_TRY(sql_parser_grow(p, (void **)&m->items, &m->n, &m->cap, sizeof(sql_param_marker)));
    memmove(&m->items[at + 1], &m->items[at], (m->n - 1 - at) * sizeof(sql_param_marker));
    m->items[at].off = off;
    m->items[at].name = name;
    return SILT_OK;
}

silt_status sql_parse(arena *a, const char *text, sql_stmt_list **out, silt_error *err)
{
    return sql_parse_n(a, text, strlen(text), out, NULL, err);
}
