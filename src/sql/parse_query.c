/*
 * parse_query.c - queries and table references of Spark SQL.
 *
 *   query      := [WITH cte, ...] set_expr [ORDER BY ...] [LIMIT n|ALL] [OFFSET n]
 *   set_expr   := set_term {(UNION | EXCEPT | MINUS) [ALL | DISTINCT] set_term}
 *   set_term   := primary {INTERSECT [ALL | DISTINCT] primary}
 *   primary    := SELECT ... | VALUES ... | TABLE name | '(' query ')'
 *
 * INTERSECT binds tighter than UNION and EXCEPT, as in Spark's default
 * (spark.sql.legacy.setopsPrecedence.enabled=false). ORDER BY and LIMIT
 * after a set operation apply to its result.
 *
 * FROM items: names (with VERSION/TIMESTAMP AS OF and @ref), format.`path`
 * (a two-part name, recognised by the binder), table-valued functions with
 * named arguments, subqueries, VALUES, parenthesised joins; then joins.
 */
#include <string.h>

#include "sql/parser_int.h"

static sql_query *new_query(parser *p, sql_query_kind kind, uint32_t pos)
{
    sql_query *q = sql_parser_alloc(p, sizeof(*q));
    if (q != NULL) {
        q->kind = kind;
        q->pos = pos;
    }
    return q;
}

int sql_parser_at_query(const parser *p)
{
    return sql_parser_kw(p, "SELECT") || sql_parser_kw(p, "WITH") || sql_parser_kw(p, "VALUES") || sql_parser_kw(p, "FROM") ||
           (sql_parser_kw(p, "TABLE") && p_peek(p, 1)->kind != SQL_TOK_LPAREN) ||
           (p_is(p, SQL_TOK_LPAREN) && (sql_parser_kw_at(p, 1, "SELECT") || sql_parser_kw_at(p, 1, "WITH") ||
                                        sql_parser_kw_at(p, 1, "VALUES") ||
                                        p_peek(p, 1)->kind == SQL_TOK_LPAREN));
}

/* ------------------------------------------------------------------ aliases */

silt_status sql_parser_alias(parser *p, sql_alias *out, int allow_columns)
{
    sql_ident id;
    memset(out, 0, sizeof(*out));
    if (sql_parser_accept_kw(p, "AS")) {
        P_TRY(sql_parser_ident(p, &id));
    } else if (sql_parser_at_ident(p) && !sql_parser_is_clause_word(p, p_tok(p))) {
        P_TRY(sql_parser_ident(p, &id));
    } else {
        return SILT_OK;
    }
    out->name = id.name;
    if (allow_columns && p_is(p, SQL_TOK_LPAREN))
        P_TRY(sql_parser_ident_list_paren(p, &out->columns));
    return SILT_OK;
}

/* ------------------------------------------------------------------ table references */

/* VERSION AS OF n | TIMESTAMP AS OF expr | FOR SYSTEM_VERSION/SYSTEM_TIME AS OF ... */
silt_status sql_parser_table_version(parser *p, sql_table_version *out)
{
    int is_version;
    if (sql_parser_kw(p, "FOR") && (sql_parser_kw_at(p, 1, "SYSTEM_VERSION") || sql_parser_kw_at(p, 1, "SYSTEM_TIME")))
        p_advance(p);
    if (sql_parser_kw(p, "VERSION") || sql_parser_kw(p, "SYSTEM_VERSION"))
        is_version = 1;
    else if (sql_parser_kw(p, "TIMESTAMP") || sql_parser_kw(p, "SYSTEM_TIME"))
        is_version = 0;
    else
        return SILT_OK;
    if (!sql_parser_kw_at(p, 1, "AS"))
        return SILT_OK;
    p_advance(p);
    p_advance(p);
    P_TRY(sql_parser_expect_kw(p, "OF"));
    if (is_version) {
        if (!p_is(p, SQL_TOK_NUMBER) && !p_at_string(p))
            return sql_parser_fail(p, "expected a version number");
        P_TRY(sql_parser_expr(p, &out->version));
    } else {
        P_TRY(sql_parser_expr(p, &out->timestamp));
    }
    return SILT_OK;
}

/* A quoted part names a path when it follows a format (delta.`/p`, parquet.`s3://b@x/p`). */
static int names_path(const sql_name *name)
{
    static const char *const formats[] = {"delta", "parquet", "csv", "json", "text", "orc",
                                          "avro", "binaryFile"};
    size_t idx;
    if (name->n_parts != 2)
        return 0;
    for (idx = 0; idx < sizeof(formats) / sizeof(formats[0]); idx++)
        if (util_str_casecmp(name->parts[0].name, formats[idx]) == 0)
            return 1;
    return 0;
}

/* Delta's time travel in a path: a trailing @v<version> or @<yyyyMMddHHmmssSSS>. */
static int path_time_travel(const char *suffix)
{
    size_t idx, len = strlen(suffix);
    size_t start = (suffix[0] == 'v' || suffix[0] == 'V') ? 1 : 0;
    if (len == start || (start == 0 && len != 17))
        return 0;
    for (idx = start; idx < len; idx++)
        if (suffix[idx] < '0' || suffix[idx] > '9')
            return 0;
    return 1;
}

/*
 * A table name with an optional @ref and time travel. The ref is written
 * right after the name (t@v3, t@main) or at the end of the last backquoted
 * part (`permits@main`, as Nessie users write it). An '@' inside a path
 * (abfss://container@account..., delta.`/tmp/a@b/t`) is part of the path;
 * only Delta's trailing @v<n> / @<timestamp> is taken from one.
 */
static silt_status name_suffix(parser *p, sql_name *name, sql_table_version *at)
{
    sql_ident *last = &name->parts[name->n_parts - 1];
    char *at_sign;
    if (p_is(p, SQL_TOK_AT) && !p_tok(p)->space_before) {
        const sql_token *t;
        p_advance(p);
        t = p_tok(p);
        if ((t->kind != SQL_TOK_WORD && t->kind != SQL_TOK_NUMBER) || t->space_before)
            return sql_parser_fail(p, "expected a branch, tag or version after '@'");
        at->ref = sql_parser_strndup(p, p->text + t->off, t->len);
        if (at->ref == NULL)
            return SILT_NOMEM;
        p_advance(p);
    } else if (last->quoted && (at_sign = strrchr(last->name, '@')) != NULL &&
               at_sign != last->name && at_sign[1] != '\0' &&
               (names_path(name) ? util_str_casecmp(name->parts[0].name, "delta") == 0 &&
                                       path_time_travel(at_sign + 1)
                                 : strpbrk(at_sign + 1, "/:") == NULL)) {
        at->ref = at_sign + 1;
        *at_sign = '\0';
    }
    return sql_parser_table_version(p, at);
}

silt_status sql_parser_table_name_ref(parser *p, sql_name *name, sql_table_version *at)
{
    memset(at, 0, sizeof(*at));
    P_TRY(sql_parser_name(p, name));
    return name_suffix(p, name, at);
}

static sql_table_ref *new_ref(parser *p, sql_table_kind kind, uint32_t pos)
{
    sql_table_ref *r = sql_parser_alloc(p, sizeof(*r));
    if (r != NULL) {
        r->kind = kind;
        r->pos = pos;
    }
    return r;
}

static silt_status table_func(parser *p, sql_table_ref *r)
{
    size_t cap = 0;
    r->kind = SQL_TABLE_FUNC;
    r->u.func.name = r->u.named.name;
    memset(&r->u.named.at, 0, sizeof(r->u.named.at));
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    if (sql_parser_accept(p, SQL_TOK_RPAREN))
        return SILT_OK;
    do {
        sql_expr **slot;
        P_TRY(sql_parser_grow(p, (void **)&r->u.func.args.items, &r->u.func.args.n, &cap,
                     sizeof(sql_expr *)));
        slot = &r->u.func.args.items[r->u.func.args.n - 1];
        if (sql_parser_at_ident(p) && p_peek(p, 1)->kind == SQL_TOK_FATARROW) {
            sql_expr *named = sql_parser_new_expr(p, SQL_EXPR_NAMED_ARG, p_tok(p)->off);
            if (named == NULL)
                return SILT_NOMEM;
            P_TRY(sql_parser_ident(p, &named->u.named.name));
            p_advance(p);
            P_TRY(sql_parser_expr(p, &named->u.named.value));
            *slot = named;
        } else {
            P_TRY(sql_parser_expr(p, slot));
        }
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return sql_parser_expect(p, SQL_TOK_RPAREN);
}

static silt_status values_query(parser *p, sql_query **out);

/* TABLESAMPLE ( n PERCENT | n ROWS | BUCKET x OUT OF y ) [REPEATABLE ( seed )] */
static silt_status table_sample(parser *p, sql_sample **out)
{
    sql_sample *smp = sql_parser_alloc(p, sizeof(*smp));
    if (smp == NULL)
        return SILT_NOMEM;
    p_advance(p);
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    if (sql_parser_accept_kw(p, "BUCKET")) {
        smp->kind = SQL_SAMPLE_BUCKET;
        P_TRY(sql_parser_expr(p, &smp->amount));
        P_TRY(sql_parser_expect_kw(p, "OUT"));
        P_TRY(sql_parser_expect_kw(p, "OF"));
        P_TRY(sql_parser_expr(p, &smp->out_of));
    } else {
        P_TRY(sql_parser_expr(p, &smp->amount));
        if (sql_parser_accept_kw(p, "PERCENT"))
            smp->kind = SQL_SAMPLE_PERCENT;
        else if (sql_parser_accept_kw(p, "ROWS"))
            smp->kind = SQL_SAMPLE_ROWS;
        else
            return sql_parser_fail(p, "expected PERCENT or ROWS");
    }
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    if (sql_parser_accept_kw(p, "REPEATABLE")) {
        P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
        P_TRY(sql_parser_expr(p, &smp->seed));
        P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    }
    *out = smp;
    return SILT_OK;
}

/* expr [AS alias], ...: the aliases become SQL_EXPR_ALIAS nodes. */
static silt_status aliased_list(parser *p, sql_expr_list *out)
{
    size_t cap = 0;
    memset(out, 0, sizeof(*out));
    do {
        sql_expr **slot;
        P_TRY(sql_parser_grow(p, (void **)&out->items, &out->n, &cap, sizeof(sql_expr *)));
        slot = &out->items[out->n - 1];
        P_TRY(sql_parser_expr(p, slot));
        if (sql_parser_accept_kw(p, "AS") || (sql_parser_at_ident(p) && !sql_parser_is_clause_word(p, p_tok(p)) &&
                                     !sql_parser_kw(p, "FOR"))) {
            sql_expr *alias = sql_parser_new_expr(p, SQL_EXPR_ALIAS, (*slot)->pos);
            if (alias == NULL)
                return SILT_NOMEM;
            P_TRY(sql_parser_ident(p, &alias->u.named.name));
            alias->u.named.value = *slot;
            *slot = alias;
        }
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return SILT_OK;
}

/* One name or a parenthesised list of names. */
static silt_status names_or_list(parser *p, sql_ident_list *out)
{
    if (p_is(p, SQL_TOK_LPAREN))
        return sql_parser_ident_list_paren(p, out);
    out->items = sql_parser_alloc(p, sizeof(sql_ident));
    if (out->items == NULL)
        return SILT_NOMEM;
    out->n = 1;
    return sql_parser_ident(p, &out->items[0]);
}

/* source PIVOT ( agg [AS a], ... FOR col | (cols) IN ( value [AS a], ... ) ) [alias] */
static silt_status pivot_clause(parser *p, sql_table_ref **inout)
{
    sql_table_ref *r = sql_parser_alloc(p, sizeof(*r));
    if (r == NULL)
        return SILT_NOMEM;
    r->kind = SQL_TABLE_PIVOT;
    r->pos = p_tok(p)->off;
    r->u.pivot.source = *inout;
    p_advance(p);
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    P_TRY(aliased_list(p, &r->u.pivot.aggregates));
    P_TRY(sql_parser_expect_kw(p, "FOR"));
    P_TRY(names_or_list(p, &r->u.pivot.columns));
    P_TRY(sql_parser_expect_kw(p, "IN"));
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    P_TRY(aliased_list(p, &r->u.pivot.values));
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    P_TRY(sql_parser_alias(p, &r->alias, 0));
    *inout = r;
    return SILT_OK;
}

/* source UNPIVOT [INCLUDE|EXCLUDE NULLS] ( v | (vs) FOR name IN ( col [AS a], ... ) ) [alias] */
static silt_status unpivot_clause(parser *p, sql_table_ref **inout)
{
    sql_table_ref *r = sql_parser_alloc(p, sizeof(*r));
    if (r == NULL)
        return SILT_NOMEM;
    r->kind = SQL_TABLE_UNPIVOT;
    r->pos = p_tok(p)->off;
    r->u.unpivot.source = *inout;
    p_advance(p);
    if (sql_parser_kw(p, "INCLUDE") || sql_parser_kw(p, "EXCLUDE")) {
        r->u.unpivot.include_nulls = sql_parser_kw(p, "INCLUDE");
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "NULLS"));
    }
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    P_TRY(names_or_list(p, &r->u.unpivot.value_columns));
    P_TRY(sql_parser_expect_kw(p, "FOR"));
    P_TRY(sql_parser_ident(p, &r->u.unpivot.name_column));
    P_TRY(sql_parser_expect_kw(p, "IN"));
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    P_TRY(aliased_list(p, &r->u.unpivot.columns));
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    P_TRY(sql_parser_alias(p, &r->alias, 0));
    *inout = r;
    return SILT_OK;
}

/* A FROM item followed by PIVOT/UNPIVOT clauses. */
static silt_status table_primary_pivoted(parser *p, sql_table_ref **out);

/*
 * Databricks SQL's streaming source: `STREAM name`, `STREAM read_files(...)` or
 * `STREAM(name)` (stream 2: a closing parenthesis follows). STREAM is a name
 * when a clause word, a comma or the end follows it (`FROM stream WHERE ...`).
 */
static silt_status stream_prefix(parser *p, sql_table_ref *r)
{
    const sql_token *next = p_peek(p, 1);
    if (!sql_parser_kw(p, "STREAM"))
        return SILT_OK;
    if (next->kind == SQL_TOK_LPAREN) {
        p_advance(p);
        p_advance(p);
        r->stream = 2;
        return SILT_OK;
    }
    if (next->kind != SQL_TOK_QUOTED &&
        (next->kind != SQL_TOK_WORD || sql_parser_is_clause_word(p, next)))
        return SILT_OK;
    p_advance(p);
    r->stream = 1;
    return SILT_OK;
}

static sql_expr *string_lit(parser *p, const char *text, uint32_t pos)
{
    sql_expr *e = sql_parser_new_expr(p, SQL_EXPR_LITERAL, pos);
    if (e != NULL) {
        e->u.lit.kind = SQL_LIT_STRING;
        e->u.lit.str = text;
        e->u.lit.str_len = strlen(text);
    }
    return e;
}

/* Appends name => 'value' to a rowset's arguments. */
static silt_status rowset_arg(parser *p, sql_table_ref *r, size_t *cap, const char *name,
                              const char *value, uint32_t pos)
{
    sql_expr *named = sql_parser_new_expr(p, SQL_EXPR_NAMED_ARG, pos);
    if (named == NULL)
        return SILT_NOMEM;
    named->u.named.name.name = name;
    named->u.named.name.pos = pos;
    named->u.named.value = string_lit(p, value, pos);
    if (named->u.named.value == NULL)
        return SILT_NOMEM;
    P_TRY(sql_parser_grow(p, (void **)&r->u.func.args.items, &r->u.func.args.n, cap,
                          sizeof(sql_expr *)));
    r->u.func.args.items[r->u.func.args.n - 1] = named;
    return SILT_OK;
}

/* WITH ( name type [COLLATE c] [ordinal | 'json path'], ... ) of OPENROWSET */
static silt_status rowset_columns(parser *p, sql_table_ref *r)
{
    sql_column_list *cols = sql_parser_alloc(p, sizeof(*cols));
    size_t cap = 0;
    if (cols == NULL)
        return SILT_NOMEM;
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    do {
        sql_column_def *c;
        P_TRY(sql_parser_grow(p, (void **)&cols->items, &cols->n, &cap, sizeof(*c)));
        c = &cols->items[cols->n - 1];
        P_TRY(sql_parser_ident(p, &c->name));
        P_TRY(sql_parser_type(p, &c->type));
        if (sql_parser_accept_kw(p, "COLLATE")) {
            sql_ident coll;
            P_TRY(sql_parser_ident(p, &coll));
            c->collate = coll.name;
        }
        if (p_is(p, SQL_TOK_NUMBER)) {
            sql_expr *n;
            size_t tok = p->i;
            P_TRY(sql_parser_number(p, &n));
            if (n->u.lit.kind != SQL_LIT_INT || n->u.lit.i64 < 1)
                return sql_parser_fail_at(p, tok, "expected a column ordinal (1, 2, ...)");
            c->ordinal = (int32_t)n->u.lit.i64;
        } else if (p_at_string(p)) {
            P_TRY(sql_parser_string_one(p, &c->json_path));
        }
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    r->u.func.with_cols = cols;
    return sql_parser_expect(p, SQL_TOK_RPAREN);
}

/*
 * T-SQL's OPENROWSET ( BULK 'path' [, 'path' ...], OPTION = value, ... )
 * [WITH ( columns )]: a table function "openrowset" whose arguments are
 * named (bulk => 'path', format => 'DELTA', ...; option names lower-cased),
 * bound by source_rowset.c (docs/serverless.md).
 */
static silt_status openrowset(parser *p, sql_table_ref *r)
{
    size_t cap = 0;
    int n_paths = 0;
    r->kind = SQL_TABLE_FUNC;
    r->u.func.rowset = 1;
    r->u.func.name.n_parts = 1;
    r->u.func.name.parts = sql_parser_alloc(p, sizeof(sql_ident));
    if (r->u.func.name.parts == NULL)
        return SILT_NOMEM;
    r->u.func.name.parts[0].name = "openrowset";
    r->u.func.name.parts[0].pos = p_tok(p)->off;
    r->u.func.name.pos = p_tok(p)->off;
    p_advance(p);
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    P_TRY(sql_parser_expect_kw(p, "BULK"));
    do {
        const sql_token *t = p_tok(p);
        char *key;
        const char *value;
        if (n_paths > 0 && !p_at_string(p) &&
            !(sql_parser_kw(p, "N") && p_is_string_kind(p_peek(p, 1)->kind))) {
            if (t->kind != SQL_TOK_WORD)
                return sql_parser_fail(p, "expected an OPENROWSET option such as FORMAT");
            key = sql_parser_strndup(p, p->text + t->off, t->len);
            if (key == NULL)
                return SILT_NOMEM;
            for (char *c = key; *c; c++)
                if (*c >= 'A' && *c <= 'Z')
                    *c = (char)(*c - 'A' + 'a');
            p_advance(p);
            P_TRY(sql_parser_expect(p, SQL_TOK_EQ));
        } else {
            key = "bulk";
            n_paths++;
        }
        P_TRY(sql_parser_tsql_value(p, &value));
        P_TRY(rowset_arg(p, r, &cap, key, value, t->off));
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    if (sql_parser_kw(p, "WITH") && p_peek(p, 1)->kind == SQL_TOK_LPAREN) {
        p_advance(p);
        P_TRY(rowset_columns(p, r));
    }
    return SILT_OK;
}

/*
 * WATERMARK named_expression DELAY OF interval (Databricks SQL's watermark
 * clause, on a streaming source): `ts`, or `to_timestamp(s) AS ts`.
 */
static silt_status watermark_clause(parser *p, sql_table_ref *r)
{
    p_advance(p);
    P_TRY(sql_parser_expr(p, &r->watermark));
    if (sql_parser_accept_kw(p, "AS")) {
        sql_expr *alias = sql_parser_new_expr(p, SQL_EXPR_ALIAS, r->watermark->pos);
        if (alias == NULL)
            return SILT_NOMEM;
        P_TRY(sql_parser_ident(p, &alias->u.named.name));
        alias->u.named.value = r->watermark;
        r->watermark = alias;
    }
    P_TRY(sql_parser_expect_kw(p, "DELAY"));
    P_TRY(sql_parser_expect_kw(p, "OF"));
    return sql_parser_expr(p, &r->watermark_delay);
}

static silt_status table_primary(parser *p, sql_table_ref **out)
{
    uint32_t pos = p_tok(p)->off;
    sql_table_ref *r;
    int lateral = sql_parser_accept_kw(p, "LATERAL");
    if (p_is(p, SQL_TOK_LPAREN) || sql_parser_kw(p, "VALUES")) {
        size_t save = p->i;
        int is_query = sql_parser_kw(p, "VALUES");
        if (!is_query) {
            p_advance(p);
            is_query = sql_parser_at_query(p);
            p->i = save;
        }
        r = new_ref(p, SQL_TABLE_SUBQUERY, pos);
        if (r == NULL)
            return SILT_NOMEM;
        if (is_query && sql_parser_kw(p, "VALUES")) {
            P_TRY(values_query(p, &r->u.subquery.query));
        } else if (is_query) {
            p_advance(p);
            P_TRY(sql_parser_query(p, &r->u.subquery.query));
            P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
        } else {
            /* A parenthesised join: ( a JOIN b ON ... ) */
            P_TRY(sql_parser_enter(p));
            p_advance(p);
            P_TRY(sql_parser_table_ref(p, &r));
            P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
            p_leave(p);
            if (r->alias.name == NULL)
                P_TRY(sql_parser_alias(p, &r->alias, 1));
            *out = r;
            return SILT_OK;
        }
        r->u.subquery.lateral = (uint8_t)lateral;
        if (sql_parser_kw(p, "TABLESAMPLE"))
            P_TRY(table_sample(p, &r->sample));
        P_TRY(sql_parser_alias(p, &r->alias, 1));
        *out = r;
        return SILT_OK;
    }
    if (lateral)
        return sql_parser_fail(p, "expected a subquery after LATERAL");
    r = new_ref(p, SQL_TABLE_NAMED, pos);
    if (r == NULL)
        return SILT_NOMEM;
    P_TRY(stream_prefix(p, r));
    if (!r->stream && sql_parser_kw(p, "OPENROWSET") && p_peek(p, 1)->kind == SQL_TOK_LPAREN &&
        sql_parser_kw_at(p, 2, "BULK")) {
        P_TRY(openrowset(p, r));
        P_TRY(sql_parser_alias(p, &r->alias, 1));
        *out = r;
        return SILT_OK;
    }
    if (!sql_parser_at_ident(p))
        return sql_parser_fail(p, "expected a table name or a subquery");
    P_TRY(sql_parser_name(p, &r->u.named.name));
    if (p_is(p, SQL_TOK_LPAREN)) {
        P_TRY(table_func(p, r));
    } else {
        P_TRY(name_suffix(p, &r->u.named.name, &r->u.named.at));
        if (sql_parser_kw(p, "TABLESAMPLE"))
            P_TRY(table_sample(p, &r->sample));
    }
    if (r->stream && sql_parser_kw(p, "WITH") && p_peek(p, 1)->kind == SQL_TOK_LPAREN) {
        p_advance(p);
        P_TRY(sql_parser_kv_list(p, &r->stream_options));
    }
    if (r->stream == 2)
        P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    if (r->stream && sql_parser_kw(p, "WATERMARK"))
        P_TRY(watermark_clause(p, r));
    P_TRY(sql_parser_alias(p, &r->alias, 1));
    *out = r;
    return SILT_OK;
}

static silt_status table_primary_pivoted(parser *p, sql_table_ref **out)
{
    P_TRY(table_primary(p, out));
    for (;;) {
        if (sql_parser_kw(p, "PIVOT") && p_peek(p, 1)->kind == SQL_TOK_LPAREN)
            P_TRY(pivot_clause(p, out));
        else if (sql_parser_kw(p, "UNPIVOT") && (p_peek(p, 1)->kind == SQL_TOK_LPAREN ||
                                        sql_parser_kw_at(p, 1, "INCLUDE") || sql_parser_kw_at(p, 1, "EXCLUDE")))
            P_TRY(unpivot_clause(p, out));
        else
            return SILT_OK;
    }
}

/* Reads a join keyword sequence; returns 0 when the current token starts none. */
static int join_kind(parser *p, sql_join_kind *kind_out, int *natural_out)
{
    size_t save = p->i;
    *natural_out = sql_parser_accept_kw(p, "NATURAL");
    if (sql_parser_accept_kw(p, "JOIN")) {
        *kind_out = SQL_JOIN_INNER;
        return 1;
    }
    if (sql_parser_accept_kw(p, "INNER"))
        *kind_out = SQL_JOIN_INNER;
    else if (sql_parser_accept_kw(p, "CROSS"))
        *kind_out = SQL_JOIN_CROSS;
    else if (sql_parser_accept_kw(p, "SEMI"))
        *kind_out = SQL_JOIN_SEMI;
    else if (sql_parser_accept_kw(p, "ANTI"))
        *kind_out = SQL_JOIN_ANTI;
    else if (sql_parser_accept_kw(p, "LEFT")) {
        if (sql_parser_accept_kw(p, "SEMI"))
            *kind_out = SQL_JOIN_SEMI;
        else if (sql_parser_accept_kw(p, "ANTI"))
            *kind_out = SQL_JOIN_ANTI;
        else {
            sql_parser_accept_kw(p, "OUTER");
            *kind_out = SQL_JOIN_LEFT;
        }
    } else if (sql_parser_accept_kw(p, "RIGHT")) {
        sql_parser_accept_kw(p, "OUTER");
        *kind_out = SQL_JOIN_RIGHT;
    } else if (sql_parser_accept_kw(p, "FULL")) {
        sql_parser_accept_kw(p, "OUTER");
        *kind_out = SQL_JOIN_FULL;
    } else {
        p->i = save;
        return 0;
    }
    if (!sql_parser_kw(p, "JOIN")) {
        /* "LEFT" alone may be something else; let the caller report it. */
        return -1;
    }
    p_advance(p);
    return 1;
}

silt_status sql_parser_table_ref(parser *p, sql_table_ref **out)
{
    sql_table_ref *left;
    P_TRY(sql_parser_enter(p));
    P_TRY(table_primary_pivoted(p, &left));
    for (;;) {
        sql_join_kind kind;
        int natural;
        int found = join_kind(p, &kind, &natural);
        sql_table_ref *j;
        if (found == 0)
            break;
        if (found < 0)
            return sql_parser_fail(p, "expected JOIN");
        j = new_ref(p, SQL_TABLE_JOIN, left->pos);
        if (j == NULL)
            return SILT_NOMEM;
        j->u.join.join = kind;
        j->u.join.natural = (uint8_t)natural;
        j->u.join.left = left;
        P_TRY(table_primary_pivoted(p, &j->u.join.right));
        /* Spark accepts criteria on CROSS JOIN too (it then acts as an inner join). */
        if (!natural) {
            if (sql_parser_accept_kw(p, "ON")) {
                P_TRY(sql_parser_expr(p, &j->u.join.on));
            } else if (sql_parser_accept_kw(p, "USING")) {
                P_TRY(sql_parser_ident_list_paren(p, &j->u.join.using_cols));
            }
        }
        left = j;
    }
    p_leave(p);
    *out = left;
    return SILT_OK;
}

/* ------------------------------------------------------------------ SELECT */

static silt_status select_items(parser *p, sql_select *s)
{
    size_t cap = 0;
    do {
        sql_select_item *item;
        P_TRY(sql_parser_grow(p, (void **)&s->items, &s->n_items, &cap, sizeof(*item)));
        item = &s->items[s->n_items - 1];
        P_TRY(sql_parser_expr(p, &item->expr));
        if (item->expr->kind != SQL_EXPR_STAR) {
            sql_alias alias;
            P_TRY(sql_parser_alias(p, &alias, 0));
            item->alias = alias.name;
        }
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return SILT_OK;
}

/* ( e1, e2 ) or a bare expression, as one grouping set. */
static silt_status grouping_set(parser *p, sql_expr_list *out)
{
    memset(out, 0, sizeof(*out));
    if (p_is(p, SQL_TOK_LPAREN)) {
        size_t save = p->i;
        p_advance(p);
        if (sql_parser_accept(p, SQL_TOK_RPAREN))
            return SILT_OK;
        P_TRY(sql_parser_expr_list(p, out));
        if (sql_parser_accept(p, SQL_TOK_RPAREN))
            return SILT_OK;
        p->i = save;
    }
    out->items = sql_parser_alloc(p, sizeof(sql_expr *));
    if (out->items == NULL)
        return SILT_NOMEM;
    out->n = 1;
    return sql_parser_expr(p, &out->items[0]);
}

static silt_status group_by(parser *p, sql_select *s)
{
    size_t cap = 0;
    if (sql_parser_kw(p, "ALL") && p_peek(p, 1)->kind != SQL_TOK_LPAREN) {
        p_advance(p);
        s->group_all = 1;
        return SILT_OK;
    }
    do {
        sql_group_item *g;
        P_TRY(sql_parser_grow(p, (void **)&s->group, &s->n_group, &cap, sizeof(*g)));
        g = &s->group[s->n_group - 1];
        if ((sql_parser_kw(p, "ROLLUP") || sql_parser_kw(p, "CUBE") || sql_parser_kw(p, "GROUPING")) &&
            (p_peek(p, 1)->kind == SQL_TOK_LPAREN || sql_parser_kw_at(p, 1, "SETS"))) {
            size_t set_cap = 0;
            g->kind = sql_parser_kw(p, "ROLLUP") ? SQL_GROUP_ROLLUP
                      : sql_parser_kw(p, "CUBE") ? SQL_GROUP_CUBE : SQL_GROUP_GROUPING_SETS;
            p_advance(p);
            if (g->kind == SQL_GROUP_GROUPING_SETS)
                P_TRY(sql_parser_expect_kw(p, "SETS"));
            P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
            do {
                P_TRY(sql_parser_grow(p, (void **)&g->sets, &g->n_sets, &set_cap, sizeof(sql_expr_list)));
                P_TRY(grouping_set(p, &g->sets[g->n_sets - 1]));
            } while (sql_parser_accept(p, SQL_TOK_COMMA));
            P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
        } else {
            g->kind = SQL_GROUP_EXPR;
            P_TRY(sql_parser_expr(p, &g->expr));
        }
        /* Hive's "GROUP BY a, b GROUPING SETS (...)" has no comma before the sets. */
    } while (sql_parser_accept(p, SQL_TOK_COMMA) || (sql_parser_kw(p, "GROUPING") && sql_parser_kw_at(p, 1, "SETS")));
    /* GROUP BY a, b WITH ROLLUP|CUBE (Hive style): the whole list becomes one item. */
    if (sql_parser_kw(p, "WITH") && (sql_parser_kw_at(p, 1, "ROLLUP") || sql_parser_kw_at(p, 1, "CUBE"))) {
        sql_group_item *g = sql_parser_alloc(p, sizeof(*g));
        if (g == NULL)
            return SILT_NOMEM;
        p_advance(p);
        g->kind = sql_parser_kw(p, "ROLLUP") ? SQL_GROUP_ROLLUP : SQL_GROUP_CUBE;
        p_advance(p);
        g->sets = sql_parser_alloc(p, s->n_group * sizeof(sql_expr_list));
        if (g->sets == NULL)
            return SILT_NOMEM;
        for (size_t idx = 0; idx < s->n_group; idx++) {
            if (s->group[idx].kind != SQL_GROUP_EXPR)
                return sql_parser_fail_at(p, p->i - 1, "WITH ROLLUP/CUBE needs plain grouping expressions");
            g->sets[idx].n = 1;
            g->sets[idx].items = &s->group[idx].expr;
        }
        g->n_sets = s->n_group;
        s->group = g;
        s->n_group = 1;
    }
    return SILT_OK;
}

static silt_status window_clause(parser *p, sql_select *s)
{
    size_t cap = 0;
    do {
        sql_named_window *w;
        sql_ident name;
        P_TRY(sql_parser_grow(p, (void **)&s->windows, &s->n_windows, &cap, sizeof(*w)));
        w = &s->windows[s->n_windows - 1];
        P_TRY(sql_parser_ident(p, &name));
        w->name = name.name;
        P_TRY(sql_parser_expect_kw(p, "AS"));
        P_TRY(sql_parser_window_spec(p, &w->window));
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return SILT_OK;
}

/* LATERAL VIEW [OUTER] func(args) table_alias [AS] col, ... */
static silt_status lateral_view(parser *p, sql_select *s)
{
    sql_lateral_view *lv;
    sql_ident alias;
    size_t cap = s->n_lateral_views; /* grown one at a time: a handful per query */
    size_t func_tok;
    P_TRY(sql_parser_grow(p, (void **)&s->lateral_views, &s->n_lateral_views, &cap, sizeof(*lv)));
    lv = &s->lateral_views[s->n_lateral_views - 1];
    p_advance(p);
    p_advance(p);
    if (sql_parser_accept_kw(p, "OUTER"))
        lv->outer = 1;
    func_tok = p->i;
    P_TRY(sql_parser_expr(p, &lv->func));
    if (lv->func->kind != SQL_EXPR_FUNC)
        return sql_parser_fail_at(p, func_tok, "expected a generator function call such as explode(...)");
    P_TRY(sql_parser_ident(p, &alias));
    lv->table_alias = alias.name;
    if (sql_parser_accept_kw(p, "AS") || (sql_parser_at_ident(p) && !sql_parser_is_clause_word(p, p_tok(p)))) {
        size_t col_cap = 0;
        do {
            P_TRY(sql_parser_grow(p, (void **)&lv->columns.items, &lv->columns.n, &col_cap,
                         sizeof(sql_ident)));
            P_TRY(sql_parser_ident(p, &lv->columns.items[lv->columns.n - 1]));
        } while (sql_parser_accept(p, SQL_TOK_COMMA));
    }
    return SILT_OK;
}

static silt_status from_list(parser *p, sql_select *s)
{
    size_t cap = 0;
    do {
        P_TRY(sql_parser_grow(p, (void **)&s->from, &s->n_from, &cap, sizeof(sql_table_ref *)));
        P_TRY(sql_parser_table_ref(p, &s->from[s->n_from - 1]));
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return SILT_OK;
}

/*
 * T-SQL's TOP n | TOP (expr) after SELECT [DISTINCT] (docs/serverless.md):
 * the block's LIMIT. TOP is a keyword only when a number or '(' follows, so
 * a column called top still reads as one (SELECT top, x FROM t).
 */
static int at_top(const parser *p)
{
    return sql_parser_kw(p, "TOP") &&
           (p_peek(p, 1)->kind == SQL_TOK_NUMBER || p_peek(p, 1)->kind == SQL_TOK_LPAREN);
}

static silt_status top_clause(parser *p, sql_query *q)
{
    p_advance(p);
    if (sql_parser_accept(p, SQL_TOK_LPAREN)) {
        P_TRY(sql_parser_expr(p, &q->limit));
        P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    } else {
        /* a bare number only: TOP 10 * must not read as 10 * ... */
        P_TRY(sql_parser_number(p, &q->limit));
    }
    if (sql_parser_kw(p, "PERCENT"))
        return sql_parser_fail(p, "TOP ... PERCENT is not supported; give a number of rows");
    if (sql_parser_kw(p, "WITH") && sql_parser_kw_at(p, 1, "TIES"))
        return sql_parser_fail(p, "TOP ... WITH TIES is not supported");
    q->limit_from_top = 1;
    return SILT_OK;
}

static silt_status select_query(parser *p, sql_query **out)
{
    sql_query *q = new_query(p, SQL_QUERY_SELECT, p_tok(p)->off);
    sql_select *s;
    int from_first;
    if (q == NULL)
        return SILT_NOMEM;
    s = &q->u.select;
    /* Spark also accepts the FROM clause first: FROM t SELECT a WHERE ... */
    from_first = sql_parser_accept_kw(p, "FROM");
    if (from_first)
        P_TRY(from_list(p, s));
    P_TRY(sql_parser_expect_kw(p, "SELECT"));
    if (sql_parser_accept_kw(p, "DISTINCT"))
        s->distinct = 1;
    else
        sql_parser_accept_kw(p, "ALL");
    if (at_top(p))
        P_TRY(top_clause(p, q));
    P_TRY(select_items(p, s));
    if (!from_first && sql_parser_accept_kw(p, "FROM"))
        P_TRY(from_list(p, s));
    while (sql_parser_kw(p, "LATERAL") && sql_parser_kw_at(p, 1, "VIEW"))
        P_TRY(lateral_view(p, s));
    if (sql_parser_accept_kw(p, "WHERE"))
        P_TRY(sql_parser_expr(p, &s->where));
    if (sql_parser_kw(p, "GROUP")) {
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "BY"));
        P_TRY(group_by(p, s));
    }
    if (sql_parser_accept_kw(p, "HAVING"))
        P_TRY(sql_parser_expr(p, &s->having));
    if (sql_parser_accept_kw(p, "WINDOW"))
        P_TRY(window_clause(p, s));
    if (sql_parser_accept_kw(p, "QUALIFY"))
        P_TRY(sql_parser_expr(p, &s->qualify));
    *out = q;
    return SILT_OK;
}

static silt_status values_query(parser *p, sql_query **out)
{
    sql_query *q = new_query(p, SQL_QUERY_VALUES, p_tok(p)->off);
    size_t cap = 0;
    if (q == NULL)
        return SILT_NOMEM;
    P_TRY(sql_parser_expect_kw(p, "VALUES"));
    do {
        sql_expr_list *row;
        P_TRY(sql_parser_grow(p, (void **)&q->u.values.rows, &q->u.values.n_rows, &cap, sizeof(*row)));
        row = &q->u.values.rows[q->u.values.n_rows - 1];
        /* VALUES (1, 2), (3, 4) or VALUES 1, 2 (one column per row). */
        if (p_is(p, SQL_TOK_LPAREN) && !sql_parser_at_query(p)) {
            sql_expr *e;
            P_TRY(sql_parser_expr(p, &e));
            if (e->kind == SQL_EXPR_ROW) {
                *row = e->u.row;
                continue;
            }
            row->items = sql_parser_alloc(p, sizeof(sql_expr *));
            if (row->items == NULL)
                return SILT_NOMEM;
            row->n = 1;
            row->items[0] = e;
        } else {
            row->items = sql_parser_alloc(p, sizeof(sql_expr *));
            if (row->items == NULL)
                return SILT_NOMEM;
            row->n = 1;
            P_TRY(sql_parser_expr(p, &row->items[0]));
        }
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    *out = q;
    return SILT_OK;
}

static silt_status query_primary(parser *p, sql_query **out)
{
    if (sql_parser_kw(p, "SELECT") || sql_parser_kw(p, "FROM"))
        return select_query(p, out);
    if (sql_parser_kw(p, "VALUES"))
        return values_query(p, out);
    if (sql_parser_kw(p, "TABLE")) {
        sql_query *q = new_query(p, SQL_QUERY_TABLE, p_tok(p)->off);
        if (q == NULL)
            return SILT_NOMEM;
        p_advance(p);
        P_TRY(sql_parser_name(p, &q->u.table));
        *out = q;
        return SILT_OK;
    }
    if (p_is(p, SQL_TOK_LPAREN)) {
        p_advance(p);
        P_TRY(sql_parser_query(p, out));
        return sql_parser_expect(p, SQL_TOK_RPAREN);
    }
    return sql_parser_fail(p, "expected SELECT, VALUES, TABLE or '('");
}

static int setop_at(const parser *p, int intersect_level, sql_setop *op_out)
{
    if (intersect_level) {
        *op_out = SQL_SETOP_INTERSECT;
        return sql_parser_kw(p, "INTERSECT");
    }
    if (sql_parser_kw(p, "UNION")) {
        *op_out = SQL_SETOP_UNION;
        return 1;
    }
    if (sql_parser_kw(p, "EXCEPT") || sql_parser_kw(p, "MINUS")) {
        *op_out = SQL_SETOP_EXCEPT;
        return 1;
    }
    return 0;
}

static silt_status set_level(parser *p, int intersect_level, sql_query **out)
{
    sql_query *left;
    sql_setop op;
    P_TRY(intersect_level ? query_primary(p, &left) : set_level(p, 1, &left));
    while (setop_at(p, intersect_level, &op)) {
        sql_query *q = new_query(p, SQL_QUERY_SETOP, left->pos);
        if (q == NULL)
            return SILT_NOMEM;
        p_advance(p);
        if (sql_parser_accept_kw(p, "ALL"))
            q->u.setop.all = 1;
        else
            sql_parser_accept_kw(p, "DISTINCT");
        q->u.setop.op = op;
        q->u.setop.left = left;
        P_TRY(intersect_level ? query_primary(p, &q->u.setop.right)
                              : set_level(p, 1, &q->u.setop.right));
        left = q;
    }
    *out = left;
    return SILT_OK;
}

/* After WITH: [RECURSIVE] name [(cols)] AS (query), ... */
silt_status sql_parser_ctes(parser *p, size_t *n_out, sql_cte **out)
{
    size_t cap = 0;
    sql_parser_accept_kw(p, "RECURSIVE");
    do {
        sql_cte *c;
        sql_ident name;
        P_TRY(sql_parser_grow(p, (void **)out, n_out, &cap, sizeof(*c)));
        c = &(*out)[*n_out - 1];
        P_TRY(sql_parser_ident(p, &name));
        c->name = name.name;
        if (p_is(p, SQL_TOK_LPAREN))
            P_TRY(sql_parser_ident_list_paren(p, &c->columns));
        P_TRY(sql_parser_expect_kw(p, "AS"));
        P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
        P_TRY(sql_parser_query(p, &c->query));
        P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return SILT_OK;
}

static int at_partition_clause(const parser *p)
{
    return (sql_parser_kw(p, "SORT") || sql_parser_kw(p, "DISTRIBUTE") || sql_parser_kw(p, "CLUSTER")) &&
           sql_parser_kw_at(p, 1, "BY");
}

/* CLUSTER BY e, ... | DISTRIBUTE BY e, ... [SORT BY ...] | SORT BY ... [DISTRIBUTE BY ...] */
static silt_status partition_clauses(parser *p, sql_query *q)
{
    while (at_partition_clause(p)) {
        const sql_token *kw = p_tok(p);
        size_t kw_idx = p->i;
        p_advance(p);
        p_advance(p);
        if (sql_parser_word_is(p, kw, "CLUSTER")) {
            if (q->cluster_by.n > 0 || q->distribute_by.n > 0 || q->sort_by.n > 0)
                return sql_parser_fail_at(p, kw_idx, "CLUSTER BY cannot be combined with DISTRIBUTE BY "
                                 "or SORT BY");
            P_TRY(sql_parser_expr_list(p, &q->cluster_by));
        } else if (sql_parser_word_is(p, kw, "DISTRIBUTE")) {
            if (q->distribute_by.n > 0 || q->cluster_by.n > 0)
                return sql_parser_fail_at(p, kw_idx, "DISTRIBUTE BY given twice or with CLUSTER BY");
            P_TRY(sql_parser_expr_list(p, &q->distribute_by));
        } else {
            if (q->sort_by.n > 0 || q->cluster_by.n > 0)
                return sql_parser_fail_at(p, kw_idx, "SORT BY given twice or with CLUSTER BY");
            P_TRY(sql_parser_order_list(p, &q->sort_by));
        }
    }
    return SILT_OK;
}

/* Wraps q when it already has what the outer level wants to set. */
static silt_status outer_query(parser *p, sql_query **q, int need)
{
    sql_query *w;
    if (!need)
        return SILT_OK;
    if ((*q)->order_by.n == 0 && (*q)->limit == NULL && (*q)->offset == NULL &&
        (*q)->n_ctes == 0 && (*q)->sort_by.n == 0 && (*q)->distribute_by.n == 0 &&
        (*q)->cluster_by.n == 0)
        return SILT_OK;
    w = new_query(p, SQL_QUERY_NESTED, (*q)->pos);
    if (w == NULL)
        return SILT_NOMEM;
    w->u.nested = *q;
    *q = w;
    return SILT_OK;
}

silt_status sql_parser_query(parser *p, sql_query **out)
{
    sql_query *q;
    sql_expr *top = NULL;
    size_t n_ctes = 0;
    sql_cte *with = NULL;
    P_TRY(sql_parser_enter(p));
    if (sql_parser_accept_kw(p, "WITH"))
        P_TRY(sql_parser_ctes(p, &n_ctes, &with));
    P_TRY(set_level(p, 0, &q));
    if (q->limit_from_top) {
        /* kept aside so that WITH and ORDER BY of this level go under it */
        top = q->limit;
        q->limit = NULL;
        q->limit_from_top = 0;
    }
    if (n_ctes > 0) {
        P_TRY(outer_query(p, &q, 1));
        q->n_ctes = n_ctes;
        q->ctes = with;
    }
    if (sql_parser_kw(p, "ORDER")) {
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "BY"));
        if (q->order_by.n > 0 || q->limit != NULL || q->offset != NULL)
            P_TRY(outer_query(p, &q, 1));
        P_TRY(sql_parser_order_list(p, &q->order_by));
    } else if (at_partition_clause(p)) {
        if (q->order_by.n > 0 || q->limit != NULL || q->offset != NULL ||
            q->sort_by.n > 0 || q->distribute_by.n > 0 || q->cluster_by.n > 0)
            P_TRY(outer_query(p, &q, 1));
        P_TRY(partition_clauses(p, q));
    }
    if (top != NULL) {
        /* SELECT TOP n ... ORDER BY k sorts, then takes n (T-SQL): ORDER BY k LIMIT n */
        if (sql_parser_kw(p, "LIMIT") || sql_parser_kw(p, "OFFSET"))
            return sql_parser_fail(p, "a query cannot have both TOP and %s",
                                   sql_parser_kw(p, "LIMIT") ? "LIMIT" : "OFFSET");
        P_TRY(outer_query(p, &q, q->limit != NULL || q->offset != NULL));
        q->limit = top;
        q->limit_from_top = 1;
    }
    if (sql_parser_accept_kw(p, "LIMIT")) {
        if (q->limit != NULL || q->offset != NULL)
            P_TRY(outer_query(p, &q, 1));
        if (!sql_parser_accept_kw(p, "ALL"))
            P_TRY(sql_parser_expr(p, &q->limit));
    }
    if (sql_parser_accept_kw(p, "OFFSET")) {
        if (q->offset != NULL)
            P_TRY(outer_query(p, &q, 1));
        P_TRY(sql_parser_expr(p, &q->offset));
    }
    p_leave(p);
    *out = q;
    return SILT_OK;
}
