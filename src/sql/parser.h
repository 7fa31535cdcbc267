/*
 * parser.h - the Spark SQL parser: statement text in, syntax tree out.
 *
 * A hand-written recursive-descent parser with precedence climbing for
 * binary operators, following the Spark SQL reference (SELECT, joins,
 * expressions, DDL/DML) plus Delta Lake's statements (MERGE, DESCRIBE
 * HISTORY, RESTORE, VACUUM, OPTIMIZE, GENERATE) and silt's branch statements
 * (CREATE BRANCH/TAG, USE REFERENCE, LIST REFERENCES, MERGE BRANCH, DROP
 * BRANCH). See ast.h for the tree.
 *
 * Errors: every failure is SILT_PARSE (or SILT_NOMEM), with a Spark-style
 * message "[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM' (line 1,
 * column 8)", a detail saying what was expected, and the byte offset of the
 * offending token. Nesting deeper than SQL_PARSE_MAX_DEPTH is refused
 * rather than risking the stack.
 */
#ifndef SILT_SQL_PARSER_H
#define SILT_SQL_PARSER_H

#include <stddef.h>
#include <stdint.h>

#include "sql/ast.h"
#include "util/arena.h"
#include "util/error.h"

#define SQL_PARSE_MAX_DEPTH 200

/*
 * Parses one or more statements separated by ';' (empty statements are
 * skipped) from a NUL-terminated text. The tree lives in arena a (also on
 * failure, until the arena is reset). *out is set only on success.
 */
silt_status sql_parse(arena *a, const char *text, sql_stmt_list **out, silt_error *err);

/*
 * Like sql_parse for text[0..len) (which may hold NUL bytes, which are then
 * an error). On failure *error_offset (when not NULL) is the byte offset of
 * the token at fault.
 */
silt_status sql_parse_n(arena *a, const char *text, size_t len, sql_stmt_list **out,
                        size_t *error_offset, silt_error *err);

/*
 * The parameter markers of a text, as Spark's parameterized SQL has them:
 * `?` (name NULL) and `:name`, in the order of their byte offsets, each
 * once (the parser may look at a marker twice when it backtracks).
 */
typedef struct sql_param_marker {
    uint32_t off;     /* byte offset of the ? or the : */
    const char *name; /* NULL for ? */
} sql_param_marker;

typedef struct sql_param_markers {
    size_t n, cap;
    sql_param_marker *items;
} sql_param_markers;

/* sql_parse_n that also fills *markers (in arena a). */
silt_status sql_parse_markers(arena *a, const char *text, size_t len, sql_stmt_list **out,
                              sql_param_markers *markers, silt_error *err);

#endif
