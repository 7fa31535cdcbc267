/*
 * parser_int.h - shared internals of the parser files (parser.c for the
 * statement level, parse_expr.c for expressions, literals and types,
 * parse_query.c for queries and table references).
 *
 * Every parse function returns silt_status and fills *out; on error the
 * parser's error and error offset are set once, at the first failure, and
 * callers only propagate it.
 */
#ifndef SILT_SQL_PARSER_INT_H
#define SILT_SQL_PARSER_INT_H

#include "sql/ast.h"
#include "sql/lexer.h"
#include "sql/parser.h"

typedef struct parser {
    arena *a;
    const char *text;
    size_t len;
    sql_token *toks;
    size_t n_toks;
    size_t i;          /* current token */
    int depth;         /* nesting of expressions and queries */
    size_t *error_offset;
    silt_error *err;
    sql_param_markers *markers; /* NULL = not collected */
} parser;

#define P_TRY(expr) SILT_RETURN_IF_ERROR(expr)

/* Token access. */
static inline const sql_token *p_tok(const parser *p) { return &p->toks[p->i]; }
static inline const sql_token *p_peek(const parser *p, size_t ahead)
{
    size_t idx = p->i + ahead;
    return &p->toks[idx < p->n_toks ? idx : p->n_toks - 1];
}
static inline int p_is(const parser *p, sql_tok_kind kind) { return p_tok(p)->kind == kind; }
static inline int p_is_string_kind(uint8_t kind)
{
    return kind == SQL_TOK_STRING || kind == SQL_TOK_RAW_STRING;
}
static inline int p_at_string(const parser *p) { return p_is_string_kind(p_tok(p)->kind); }
static inline void p_advance(parser *p)
{
    if (p->i + 1 < p->n_toks)
        p->i++;
}

int sql_parser_word_is(const parser *p, const sql_token *t, const char *kw);
int sql_parser_kw(const parser *p, const char *kw);                  /* current token is the keyword */
int sql_parser_kw_at(const parser *p, size_t ahead, const char *kw);
int sql_parser_accept_kw(parser *p, const char *kw);                 /* consume when it is */
int sql_parser_accept(parser *p, sql_tok_kind kind);
silt_status sql_parser_expect_kw(parser *p, const char *kw);
silt_status sql_parser_expect(parser *p, sql_tok_kind kind);
/* Error at the current token: "expected <what>". */
silt_status sql_parser_fail(parser *p, const char *fmt, ...) SILT_PRINTF(2, 3);
silt_status sql_parser_fail_at(parser *p, size_t tok_idx, const char *fmt, ...) SILT_PRINTF(3, 4);
/* Any other message (non-syntax errors such as a literal out of range) at a byte offset. */
silt_status sql_parser_error_at(parser *p, uint32_t off, const char *fmt, ...) SILT_PRINTF(3, 4);
silt_status sql_parser_enter(parser *p);
static inline void p_leave(parser *p) { p->depth--; }

/* Notes a parameter marker at off (name NULL for ?) when the caller collects them. */
silt_status sql_parser_note_marker(parser *p, uint32_t off, const char *name);

void *sql_parser_alloc(parser *p, size_t size); /* zeroed; NULL on OOM (error set) */
char *sql_parser_strndup(parser *p, const char *s, size_t len);
silt_status sql_parser_grow(parser *p, void **items, size_t *n, size_t *cap, size_t elem_size);

/* Words that end an implicit alias. */
int sql_parser_is_clause_word(const parser *p, const sql_token *t);

/* Identifiers and names. */
int sql_parser_at_ident(const parser *p);
silt_status sql_parser_ident(parser *p, sql_ident *out);
silt_status sql_parser_ident_after_dot(parser *p, sql_ident *out);
silt_status sql_parser_name(parser *p, sql_name *out);
silt_status sql_parser_ident_list_paren(parser *p, sql_ident_list *out); /* ( a, b ) */
silt_status sql_parser_string(parser *p, const char **out, size_t *len_out);
silt_status sql_parser_string_one(parser *p, const char **out);

/* parse_expr.c */
silt_status sql_parser_expr(parser *p, sql_expr **out);
silt_status sql_parser_expr_list(parser *p, sql_expr_list *out);   /* a, b, c */
silt_status sql_parser_type(parser *p, sql_type *out);
silt_status sql_parser_order_list(parser *p, sql_order_list *out); /* after ORDER BY */
silt_status sql_parser_window_spec(parser *p, sql_window **out);   /* ( ... ) */
silt_status sql_parser_literal_text(parser *p, const char **out);  /* property values */
silt_status sql_parser_number(parser *p, sql_expr **out);
silt_status sql_parser_tsql_value(parser *p, const char **out);    /* T-SQL option values */          /* one numeric literal */
/* ( key [=] value, ... ) as TBLPROPERTIES takes them */
silt_status sql_parser_kv_list(parser *p, sql_kv_list *out);
sql_expr *sql_parser_new_expr(parser *p, sql_expr_kind kind, uint32_t pos);

/* parse_query.c */
int sql_parser_at_query(const parser *p);
silt_status sql_parser_query(parser *p, sql_query **out);
silt_status sql_parser_ctes(parser *p, size_t *n_out, sql_cte **out);
silt_status sql_parser_table_ref(parser *p, sql_table_ref **out);  /* one FROM item with its joins */
silt_status sql_parser_table_version(parser *p, sql_table_version *out);
silt_status sql_parser_table_name_ref(parser *p, sql_name *name, sql_table_version *at);
silt_status sql_parser_alias(parser *p, sql_alias *out, int allow_columns);

#endif
