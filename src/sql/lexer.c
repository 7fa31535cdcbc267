/*
 * lexer.c - splits Spark SQL text into tokens (see lexer.h for the rules).
 *
 * One pass over the bytes; a token records only where it is. The token
 * array grows by doubling in the arena, so a statement of n bytes costs
 * O(n) time and at most about 2 * 12 bytes per token of memory. Nothing is
 * decoded here: string escapes and number values are the parser's business,
 * because only the parser knows which literals it keeps.
 */
#include "sql/lexer.h"

#include <stdio.h>
#include <string.h>

#include "util/mem.h"

#define SQL_TEXT_MAX ((size_t)UINT32_MAX - 1)

typedef struct lexer {
    const char *text;
    size_t len;
    size_t pos;
    sql_token *toks;
    size_t n_toks;
    size_t cap;
    int space;
    /* T-SQL brackets: parentheses open, and the depth a TOP ( opened at (-1: none) */
    int paren_depth;
    int top_paren_depth;
    int after_top_paren; /* the last token closed TOP ( n ) */
    size_t *error_offset;
    silt_error *err;
} lexer;

static int is_word_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int is_word_char(unsigned char c) { return is_word_start(c) || is_digit(c); }

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void line_col_from(const char *text, size_t from, size_t offset, int *line_out,
                          int *col_out)
{
    int line = *line_out;
    int col = *col_out;
    for (size_t idx = from; idx < offset; idx++) {
        unsigned char c = (unsigned char)text[idx];
        if (c == '\n') {
            line++;
            col = 1;
        } else if ((c & 0xC0) != 0x80) {
            /* Count characters, not bytes: UTF-8 continuation bytes add nothing. */
            col++;
        }
    }
    *line_out = line;
    *col_out = col;
}

void sql_line_col(const char *text, size_t len, size_t offset, int *line_out, int *col_out)
{
    *line_out = 1;
    *col_out = 1;
    line_col_from(text, 0, offset > len ? len : offset, line_out, col_out);
}

void sql_line_memo_clear(sql_line_memo *memo)
{
    mem_free(memo->line_col);
    memset(memo, 0, sizeof(*memo));
}

static int build_line_index(sql_line_memo *memo, const char *text, size_t len)
{
    size_t block;
    int line = 1, col = 1;
    sql_line_memo_clear(memo);
    memo->n_blocks = len / SQL_LINE_BLOCK + 1;
    memo->line_col = mem_alloc(memo->n_blocks * 2 * sizeof(int));
    if (memo->line_col == NULL) {
        memo->n_blocks = 0;
        return 0;
    }
    for (block = 0; block < memo->n_blocks; block++) {
        memo->line_col[2 * block] = line;
        memo->line_col[2 * block + 1] = col;
        if (block + 1 < memo->n_blocks)
            line_col_from(text, block * SQL_LINE_BLOCK, (block + 1) * SQL_LINE_BLOCK, &line, &col);
    }
    memo->text = text;
    memo->len = len;
    return 1;
}

void sql_line_col_memo(sql_line_memo *memo, const char *text, size_t len, size_t offset,
                       int *line_out, int *col_out)
{
    size_t block;
    if (offset > len)
        offset = len;
    if (memo == NULL || ((memo->text != text || memo->len != len) &&
                         !build_line_index(memo, text, len))) {
        sql_line_col(text, len, offset, line_out, col_out);
        return;
    }
    block = offset / SQL_LINE_BLOCK;
    *line_out = memo->line_col[2 * block];
    *col_out = memo->line_col[2 * block + 1];
    line_col_from(text, block * SQL_LINE_BLOCK, offset, line_out, col_out);
}

silt_status sql_syntax_error(silt_error *err, const char *text, size_t len, size_t offset,
                             size_t tok_len, const char *detail)
{
    int line, col;
    char near[64];
    size_t show = tok_len;
    size_t idx;
    sql_line_col(text, len, offset, &line, &col);
    if (offset >= len) {
        err_set(err, SILT_PARSE,
                "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input (line %d, column %d)",
                line, col);
    } else {
        /* Show at most 40 bytes of the token, with control bytes as '?'. */
        if (show > 40)
            show = 40;
        if (show > len - offset)
            show = len - offset;
        for (idx = 0; idx < show; idx++) {
            unsigned char c = (unsigned char)text[offset + idx];
            near[idx] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
        }
        near[show] = '\0';
        err_set(err, SILT_PARSE,
                "[PARSE_SYNTAX_ERROR] Syntax error at or near '%s%s' (line %d, column %d)", near,
                show < tok_len ? "..." : "", line, col);
    }
    err_position(err, (int64_t)(offset < len ? offset : len), line, col);
    if (detail != NULL && detail[0] != '\0')
        err_detail(err, "%s", detail);
    return SILT_PARSE;
}

static silt_status lex_fail(lexer *lx, size_t offset, size_t tok_len, const char *detail)
{
    if (lx->error_offset != NULL)
        *lx->error_offset = offset;
    return sql_syntax_error(lx->err, lx->text, lx->len, offset, tok_len, detail);
}

static silt_status lex_push(lexer *lx, sql_tok_kind kind, size_t start, size_t end)
{
    if (lx->n_toks == lx->cap) {
        size_t new_cap = lx->cap == 0 ? 64 : lx->cap * 2;
        size_t bytes;
        sql_token *grown = NULL;
        if (mem_mul_ok(new_cap, sizeof(sql_token), &bytes))
            grown = mem_realloc(lx->toks, bytes);
        if (grown == NULL)
            return err_nomem(lx->err);
        lx->toks = grown;
        lx->cap = new_cap;
    }
    lx->toks[lx->n_toks].kind = (uint8_t)kind;
    lx->toks[lx->n_toks].space_before = (uint8_t)lx->space;
    lx->toks[lx->n_toks].bracket = 0;
    lx->toks[lx->n_toks].off = (uint32_t)start;
    lx->toks[lx->n_toks].len = (uint32_t)(end - start);
    lx->n_toks++;
    lx->space = 0;
    lx->pos = end;
    return SILT_OK;
}

/* Skips whitespace and comments; fails on an unterminated bracketed comment. */
static silt_status lex_skip_blank(lexer *lx)
{
    const char *s = lx->text;
    while (lx->pos < lx->len) {
        unsigned char c = (unsigned char)s[lx->pos];
        if (is_space(c)) {
            lx->pos++;
        } else if (c == '-' && lx->pos + 1 < lx->len && s[lx->pos + 1] == '-') {
            while (lx->pos < lx->len && s[lx->pos] != '\n')
                lx->pos++;
        } else if (c == '/' && lx->pos + 1 < lx->len && s[lx->pos + 1] == '*') {
            /* Spark nests bracketed comments: count the depth. */
            size_t start = lx->pos;
            size_t depth = 0;
            while (lx->pos < lx->len) {
                if (s[lx->pos] == '/' && lx->pos + 1 < lx->len && s[lx->pos + 1] == '*') {
                    depth++;
                    lx->pos += 2;
                } else if (s[lx->pos] == '*' && lx->pos + 1 < lx->len && s[lx->pos + 1] == '/') {
                    depth--;
                    lx->pos += 2;
                    if (depth == 0)
                        break;
                } else {
                    lx->pos++;
                }
            }
            if (depth != 0) {
                if (lx->error_offset != NULL)
                    *lx->error_offset = start;
                {
                    int line, col;
                    sql_line_col(s, lx->len, start, &line, &col);
                    err_set(lx->err, SILT_PARSE,
                            "[UNCLOSED_BRACKETED_COMMENT] Found an unclosed bracketed "
                            "comment (line %d, column %d)",
                            line, col);
                    err_position(lx->err, (int64_t)start, line, col);
                    return SILT_PARSE;
                }
            }
        } else {
            break;
        }
        lx->space = 1;
    }
    return SILT_OK;
}

/* A quoted string or identifier starting at lx->pos with quote q. */
static silt_status lex_quoted(lexer *lx, sql_tok_kind kind, size_t start, size_t body, char q)
{
    const char *s = lx->text;
    size_t pos = body;
    while (pos < lx->len) {
        char c = s[pos];
        if (c == q) {
            /*
             * `` inside a backquoted identifier is one backquote; '' and ""
             * inside a string are one quote (Spark 4; 'a' 'b' is still two).
             */
            if (pos + 1 < lx->len && s[pos + 1] == q) {
                pos += 2;
                continue;
            }
            return lex_push(lx, kind, start, pos + 1);
        }
        if (c == '\\' && q != '`')
            pos++;
        pos++;
    }
    return lex_fail(lx, start, lx->len - start,
                    q == '`' ? "unterminated quoted identifier" : "unterminated string literal");
}

/* r'...' or R"...": a raw string, where a backslash is an ordinary character. */
static silt_status lex_raw(lexer *lx, size_t start, char q)
{
    const char *end = memchr(lx->text + start + 2, q, lx->len - start - 2);
    if (end == NULL)
        return lex_fail(lx, start, lx->len - start, "unterminated string literal");
    return lex_push(lx, SQL_TOK_RAW_STRING, start, (size_t)(end - lx->text) + 1);
}

/*
 * A numeric literal: digits [. digits] [e[+-]digits] [suffix]. A word
 * character right after it (12abc, 1e, 1.5x) makes the whole run invalid:
 * Spark would read it as an identifier, which is never what was meant.
 */
static silt_status lex_number(lexer *lx, size_t start)
{
    const char *s = lx->text;
    size_t pos = start;
    while (pos < lx->len && is_digit((unsigned char)s[pos]))
        pos++;
    if (pos < lx->len && s[pos] == '.') {
        pos++;
        while (pos < lx->len && is_digit((unsigned char)s[pos]))
            pos++;
    }
    if (pos < lx->len && (s[pos] == 'e' || s[pos] == 'E')) {
        size_t exp = pos + 1;
        if (exp < lx->len && (s[exp] == '+' || s[exp] == '-'))
            exp++;
        if (exp < lx->len && is_digit((unsigned char)s[exp])) {
            pos = exp;
            while (pos < lx->len && is_digit((unsigned char)s[pos]))
                pos++;
        }
    }
    if (pos < lx->len) {
        char c = s[pos];
        if ((c == 'b' || c == 'B') && pos + 1 < lx->len && (s[pos + 1] == 'd' || s[pos + 1] == 'D'))
            pos += 2;
        else if (c == 'l' || c == 'L' || c == 's' || c == 'S' || c == 'y' || c == 'Y' ||
                 c == 'd' || c == 'D' || c == 'f' || c == 'F')
            pos++;
    }
    if (pos < lx->len && (is_word_char((unsigned char)s[pos]) || s[pos] == '.')) {
        size_t end = pos;
        while (end < lx->len && (is_word_char((unsigned char)s[end]) || s[end] == '.'))
            end++;
        /* "1.x" after a complete number may be field access on a literal; keep it strict. */
        return lex_fail(lx, start, end - start, "invalid numeric literal");
    }
    return lex_push(lx, SQL_TOK_NUMBER, start, pos);
}

static int prev_ends_operand(const lexer *lx)
{
    sql_tok_kind k;
    if (lx->n_toks == 0)
        return 0;
    k = (sql_tok_kind)lx->toks[lx->n_toks - 1].kind;
    return k == SQL_TOK_WORD || k == SQL_TOK_QUOTED || k == SQL_TOK_RPAREN ||
           k == SQL_TOK_RBRACKET;
}

/* Operators and punctuation; returns 0 when c starts none. */
static int lex_punct(const char *s, size_t avail, sql_tok_kind *kind_out)
{
    char c = s[0];
    char n = avail > 1 ? s[1] : '\0';
    char n2 = avail > 2 ? s[2] : '\0';
    switch (c) {
    case '(': *kind_out = SQL_TOK_LPAREN; return 1;
    case ')': *kind_out = SQL_TOK_RPAREN; return 1;
    case '[': *kind_out = SQL_TOK_LBRACKET; return 1;
    case ']': *kind_out = SQL_TOK_RBRACKET; return 1;
    case ',': *kind_out = SQL_TOK_COMMA; return 1;
    case ';': *kind_out = SQL_TOK_SEMI; return 1;
    case '.': *kind_out = SQL_TOK_DOT; return 1;
    case '@': *kind_out = SQL_TOK_AT; return 1;
    case '+': *kind_out = SQL_TOK_PLUS; return 1;
    case '*': *kind_out = SQL_TOK_STAR; return 1;
    case '/': *kind_out = SQL_TOK_SLASH; return 1;
    case '%': *kind_out = SQL_TOK_PERCENT; return 1;
    case '&': *kind_out = SQL_TOK_AMP; return 1;
    case '^': *kind_out = SQL_TOK_CARET; return 1;
    case '~': *kind_out = SQL_TOK_TILDE; return 1;
    case '?': *kind_out = SQL_TOK_QUESTION; return 1;
    case ':':
        if (n == ':') { *kind_out = SQL_TOK_DCOLON; return 2; }
        *kind_out = SQL_TOK_COLON; return 1;
    case '-':
        if (n == '>') { *kind_out = SQL_TOK_ARROW; return 2; }
        *kind_out = SQL_TOK_MINUS; return 1;
    case '|':
        if (n == '|') { *kind_out = SQL_TOK_CONCAT; return 2; }
        *kind_out = SQL_TOK_PIPE; return 1;
    case '!':
        if (n == '=') { *kind_out = SQL_TOK_NEQ; return 2; }
        *kind_out = SQL_TOK_BANG; return 1;
    case '=':
        if (n == '=') { *kind_out = SQL_TOK_EQEQ; return 2; }
        if (n == '>') { *kind_out = SQL_TOK_FATARROW; return 2; }
        *kind_out = SQL_TOK_EQ; return 1;
    case '<':
        if (n == '=' && n2 == '>') { *kind_out = SQL_TOK_NSEQ; return 3; }
        if (n == '=') { *kind_out = SQL_TOK_LE; return 2; }
        if (n == '>') { *kind_out = SQL_TOK_NEQ; return 2; }
        if (n == '<') { *kind_out = SQL_TOK_SHL; return 2; }
        *kind_out = SQL_TOK_LT; return 1;
    case '>':
        if (n == '>' && n2 == '>') { *kind_out = SQL_TOK_USHR; return 3; }
        if (n == '>') { *kind_out = SQL_TOK_SHR; return 2; }
        if (n == '=') { *kind_out = SQL_TOK_GE; return 2; }
        *kind_out = SQL_TOK_GT; return 1;
    default:
        return 0;
    }
}

static int word_eq(const lexer *lx, const sql_token *t, const char *kw)
{
    size_t n = strlen(kw);
    if (t->kind != SQL_TOK_WORD || t->len != n)
        return 0;
    for (size_t idx = 0; idx < n; idx++) {
        char c = lx->text[t->off + idx];
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        if (c != kw[idx])
            return 0;
    }
    return 1;
}

/*
 * Whether a '[' here starts a T-SQL bracketed name rather than Spark's
 * subscript. Spark has '[' only right after an operand (a[0], m['k'],
 * f(x)[1]), so after anything that cannot end an operand it is a name;
 * after a word it is a name only when the word is a keyword that a name
 * follows (FROM [t], AS [r]); after a number only in TOP 10 [c], after ')'
 * only in TOP (10) [c]. Everything else keeps Spark's meaning.
 */
static int bracket_starts_name(const lexer *lx)
{
    /* Spark's reserved words, and statement words no one names an array column after;
     * not FORMAT, SOURCE, SCHEMA, TOP, ...: source[0] over a column called source stays
     * a subscript */
    static const char *const before_name[] = {
        "SELECT", "FROM", "JOIN", "AS", "ON", "WHERE", "AND", "OR", "NOT", "BY", "TABLE",
        "VIEW", "INTO", "UPDATE", "DISTINCT", "ALL", "WHEN", "THEN", "ELSE", "CASE", "SET",
        "USE", "DATABASE", "HAVING", "DESCRIBE", "WITH", "DELETE", "INSERT", "MERGE", "USING",
        "IS", "IN"};
    const sql_token *prev;
    sql_tok_kind k;
    if (lx->n_toks == 0)
        return 1;
    prev = &lx->toks[lx->n_toks - 1];
    k = (sql_tok_kind)prev->kind;
    if (k == SQL_TOK_WORD) {
        for (size_t idx = 0; idx < sizeof(before_name) / sizeof(before_name[0]); idx++)
            if (word_eq(lx, prev, before_name[idx]))
                return 1;
        return 0;
    }
    if (k == SQL_TOK_NUMBER)
        return lx->n_toks >= 2 && word_eq(lx, &lx->toks[lx->n_toks - 2], "TOP");
    if (k == SQL_TOK_RPAREN)
        return lx->after_top_paren;
    return k != SQL_TOK_QUOTED && k != SQL_TOK_RBRACKET && k != SQL_TOK_STRING &&
           k != SQL_TOK_RAW_STRING && k != SQL_TOK_BINARY;
}

/* [name]: up to the first ']' not doubled; a QUOTED token marked bracket. */
static silt_status lex_bracketed(lexer *lx, size_t start)
{
    const char *s = lx->text;
    size_t pos = start + 1;
    while (pos < lx->len) {
        if (s[pos] == ']') {
            if (pos + 1 < lx->len && s[pos + 1] == ']') {
                pos += 2;
                continue;
            }
            if (pos == start + 1)
                return lex_fail(lx, start, 2, "a bracketed identifier cannot be empty");
            SILT_RETURN_IF_ERROR(lex_push(lx, SQL_TOK_QUOTED, start, pos + 1));
            lx->toks[lx->n_toks - 1].bracket = 1;
            return SILT_OK;
        }
        pos++;
    }
    return lex_fail(lx, start, lx->len - start, "unterminated bracketed identifier");
}

/* Keeps what bracket_starts_name needs to know about parentheses after TOP. */
static void track_parens(lexer *lx)
{
    const sql_token *t = &lx->toks[lx->n_toks - 1];
    lx->after_top_paren = 0;
    if (t->kind == SQL_TOK_LPAREN) {
        if (lx->n_toks >= 2 && word_eq(lx, &lx->toks[lx->n_toks - 2], "TOP"))
            lx->top_paren_depth = lx->paren_depth;
        lx->paren_depth++;
    } else if (t->kind == SQL_TOK_RPAREN) {
        lx->paren_depth--;
        if (lx->paren_depth == lx->top_paren_depth) {
            lx->after_top_paren = 1;
            lx->top_paren_depth = -1;
        }
    }
}

static silt_status lex_one(lexer *lx)
{
    const char *s = lx->text;
    size_t start = lx->pos;
    unsigned char c = (unsigned char)s[start];
    sql_tok_kind kind;
    int n;
    if ((c == 'x' || c == 'X') && start + 1 < lx->len && s[start + 1] == '\'')
        return lex_quoted(lx, SQL_TOK_BINARY, start, start + 2, '\'');
    if ((c == 'r' || c == 'R') && start + 1 < lx->len && (s[start + 1] == '\'' || s[start + 1] == '"'))
        return lex_raw(lx, start, s[start + 1]);
    if (is_word_start(c)) {
        size_t pos = start + 1;
        while (pos < lx->len && is_word_char((unsigned char)s[pos]))
            pos++;
        return lex_push(lx, SQL_TOK_WORD, start, pos);
    }
    if (is_digit(c))
        return lex_number(lx, start);
    if (c == '.' && start + 1 < lx->len && is_digit((unsigned char)s[start + 1]) &&
        !prev_ends_operand(lx))
        return lex_number(lx, start);
    if (c == '\'' || c == '"')
        return lex_quoted(lx, SQL_TOK_STRING, start, start + 1, (char)c);
    if (c == '`')
        return lex_quoted(lx, SQL_TOK_QUOTED, start, start + 1, '`');
    if (c == '[' && bracket_starts_name(lx))
        return lex_bracketed(lx, start);
    n = lex_punct(s + start, lx->len - start, &kind);
    if (n == 0)
        return lex_fail(lx, start, 1, "unexpected character");
    SILT_RETURN_IF_ERROR(lex_push(lx, kind, start, start + (size_t)n));
    track_parens(lx);
    return SILT_OK;
}

silt_status sql_lex_heap(const char *text, size_t len, sql_token_list *out,
                         size_t *error_offset, silt_error *err)
{
    lexer lx;
    silt_status rc = SILT_OK;
    memset(&lx, 0, sizeof(lx));
    lx.text = text;
    lx.len = len;
    lx.error_offset = error_offset;
    lx.err = err;
    lx.top_paren_depth = -1;
    out->tokens = NULL;
    out->n_tokens = 0;
    if (len > SQL_TEXT_MAX) {
        if (error_offset != NULL)
            *error_offset = 0;
        return err_set(err, SILT_PARSE, "could not parse statement text of %zu bytes: over the "
                       "limit of 4 GiB", len);
    }
    /* Most statements are short; big ones (INSERT ... VALUES) average a few bytes a token. */
    lx.cap = len / 4 + 16;
    if (lx.cap > ((size_t)1 << 20))
        lx.cap = (size_t)1 << 20;
    lx.toks = mem_alloc(lx.cap * sizeof(sql_token));
    if (lx.toks == NULL)
        return err_nomem(err);
    for (;;) {
        rc = lex_skip_blank(&lx);
        if (rc != SILT_OK || lx.pos >= len)
            break;
        rc = lex_one(&lx);
        if (rc != SILT_OK)
            break;
    }
    if (rc == SILT_OK)
        rc = lex_push(&lx, SQL_TOK_EOF, len, len);
    if (rc != SILT_OK) {
        mem_free(lx.toks);
        return rc;
    }
    out->tokens = lx.toks;
    out->n_tokens = lx.n_toks;
    return SILT_OK;
}

silt_status sql_lex(arena *a, const char *text, size_t len, sql_token_list *out,
                    size_t *error_offset, silt_error *err)
{
    sql_token_list heap;
    sql_token *copy;
    out->tokens = NULL;
    out->n_tokens = 0;
    SILT_RETURN_IF_ERROR(sql_lex_heap(text, len, &heap, error_offset, err));
    copy = arena_memdup(a, heap.tokens, heap.n_tokens * sizeof(sql_token));
    mem_free(heap.tokens);
    if (copy == NULL)
        return err_nomem(err);
    out->tokens = copy;
    out->n_tokens = heap.n_tokens;
    return SILT_OK;
}

const char *sql_tok_kind_name(sql_tok_kind kind)
{
    static const char *const names[] = {
        "end of input", "identifier", "quoted identifier", "string literal", "string literal",
        "binary literal",
        "number", "'('", "')'", "'['", "']'", "','", "';'", "'.'", "':'", "'::'", "'@'", "'+'",
        "'-'", "'*'", "'/'", "'%'", "'||'", "'&'", "'|'", "'^'", "'~'", "'!'", "'='", "'=='",
        "'<>'", "'<'", "'<='", "'>'", "'>='", "'<=>'", "'<<'", "'>>'", "'>>>'", "'->'", "'=>'",
        "'?'"};
    if ((size_t)kind >= sizeof(names) / sizeof(names[0]))
        return "token";
    return names[kind];
}
