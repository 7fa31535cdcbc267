/*
 * lexer.h - tokens of the Spark SQL dialect.
 *
 * The lexer turns a statement text into an array of tokens that point into
 * the text (byte offset and length): it never copies or decodes a token, so
 * lexing costs no allocation per character or per token beyond the token
 * array itself (grown by doubling in the caller's arena). Keywords are not
 * a token kind: a word is a SQL_TOK_WORD and the parser decides, by
 * case-insensitive comparison, whether it plays a keyword's role there (Spark
 * reserves few words, so most keywords are also valid identifiers).
 *
 * Lexical rules (Spark SQL reference, "Literals" and "Identifiers"):
 *   words        [A-Za-z_0-9]+ not starting with a digit, plus any byte >= 0x80
 *   `quoted`     backquotes, `` inside stands for one backquote
 *   [quoted]     T-SQL brackets, ]] inside stands for one ], only where a name
 *                can start (docs/serverless.md): after nothing, '(', ',', '.',
 *                an operator, or a keyword such as FROM, SELECT, AS, JOIN; after
 *                a name, ')' or ']' a '[' stays Spark's subscript (a[0])
 *   'str' "str"  backslash escapes as Spark (decoded by the parser)
 *   r'str'       a raw string: backslashes are plain characters
 *   X'0AFF'      a binary literal (SQL_TOK_BINARY)
 *   numbers      digits, '.', exponent, suffixes L S Y D F BD (any case)
 *   comments     -- to end of line, and nested bracketed comments
 *
 * Errors are SILT_PARSE with the byte offset of the offending token.
 */
#ifndef SILT_SQL_LEXER_H
#define SILT_SQL_LEXER_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/error.h"

typedef enum sql_tok_kind {
    SQL_TOK_EOF = 0,
    SQL_TOK_WORD,       /* identifier or keyword */
    SQL_TOK_QUOTED,     /* `identifier` or [identifier] (offset/len include the quotes) */
    SQL_TOK_STRING,     /* '...' or "..." (including the quotes) */
    SQL_TOK_RAW_STRING, /* r'...' or R"..." (including r and the quotes): no escapes */
    SQL_TOK_BINARY,     /* X'...' (including X and the quotes) */
    SQL_TOK_NUMBER,     /* a numeric literal with its suffix */
    SQL_TOK_LPAREN,
    SQL_TOK_RPAREN,
    SQL_TOK_LBRACKET,
    SQL_TOK_RBRACKET,
    SQL_TOK_COMMA,
    SQL_TOK_SEMI,
    SQL_TOK_DOT,
    SQL_TOK_COLON,
    SQL_TOK_DCOLON,     /* :: */
    SQL_TOK_AT,         /* @ */
    SQL_TOK_PLUS,
    SQL_TOK_MINUS,
    SQL_TOK_STAR,
    SQL_TOK_SLASH,
    SQL_TOK_PERCENT,
    SQL_TOK_CONCAT,     /* || */
    SQL_TOK_AMP,
    SQL_TOK_PIPE,
    SQL_TOK_CARET,
    SQL_TOK_TILDE,
    SQL_TOK_BANG,       /* ! (Spark's alias of NOT) */
    SQL_TOK_EQ,         /* = */
    SQL_TOK_EQEQ,       /* == */
    SQL_TOK_NEQ,        /* != or <> */
    SQL_TOK_LT,
    SQL_TOK_LE,
    SQL_TOK_GT,
    SQL_TOK_GE,
    SQL_TOK_NSEQ,       /* <=> */
    SQL_TOK_SHL,        /* << */
    SQL_TOK_SHR,        /* >> */
    SQL_TOK_USHR,       /* >>> */
    SQL_TOK_ARROW,      /* -> */
    SQL_TOK_FATARROW,   /* => */
    SQL_TOK_QUESTION    /* ? (parameter marker) */
} sql_tok_kind;

typedef struct sql_token {
    uint8_t kind;     /* sql_tok_kind */
    uint8_t space_before; /* whitespace or a comment precedes the token */
    uint8_t bracket;  /* a QUOTED token written [like this] (T-SQL) */
    uint32_t off;     /* byte offset in the statement text */
    uint32_t len;     /* bytes */
} sql_token;

typedef struct sql_token_list {
    sql_token *tokens; /* n_tokens entries, the last one SQL_TOK_EOF */
    size_t n_tokens;
} sql_token_list;

/*
 * Splits text[0..len) into tokens allocated in arena a. Texts over 4 GiB are
 * refused. On a lexical error (unterminated string or comment, a malformed
 * number, a byte that starts no token) returns SILT_PARSE with the message
 * naming the position, and stores the byte offset in *error_offset when it is
 * not NULL.
 */
silt_status sql_lex(arena *a, const char *text, size_t len, sql_token_list *out,
                    size_t *error_offset, silt_error *err);

/*
 * Like sql_lex, but the token array is heap memory that the caller frees
 * with mem_free (the parser's working copy: tokens are not needed once the
 * tree is built, so they do not stay in the query's arena).
 */
silt_status sql_lex_heap(const char *text, size_t len, sql_token_list *out,
                         size_t *error_offset, silt_error *err);

/* Short printable name of a token kind ("'('", "string literal", ...). */
const char *sql_tok_kind_name(sql_tok_kind kind);

/* Fills line and column (both from 1; columns count UTF-8 characters) of a byte offset. */
void sql_line_col(const char *text, size_t len, size_t offset, int *line_out, int *col_out);

/*
 * sql_line_col through an index of the text built once: the line and
 * column at every SQL_LINE_BLOCK-th byte, so a lookup scans less than a
 * block whatever the order of the offsets (a binder asking for every
 * expression of a 100,000-statement script rescanned it each time:
 * quadratic). The memo is rebuilt when the text changes; clear it
 * (sql_line_memo_clear, which frees the index) before a text is freed, as
 * a new text may come at the same address.
 */
#define SQL_LINE_BLOCK 512

typedef struct sql_line_memo {
    const char *text;
    size_t len;
    size_t n_blocks;
    int *line_col; /* line, column at offset block * SQL_LINE_BLOCK */
} sql_line_memo;

#define SQL_LINE_MEMO_INIT {NULL, 0, 0, NULL}

void sql_line_col_memo(sql_line_memo *memo, const char *text, size_t len, size_t offset,
                       int *line_out, int *col_out);
void sql_line_memo_clear(sql_line_memo *memo);

/*
 * Sets the Spark-style syntax error "[PARSE_SYNTAX_ERROR] Syntax error at or
 * near 'tok' (line L, column C)" for the token starting at offset (or "end of
 * input"), with the given detail. Returns SILT_PARSE.
 */
silt_status sql_syntax_error(silt_error *err, const char *text, size_t len, size_t offset,
                             size_t tok_len, const char *detail);

#endif
