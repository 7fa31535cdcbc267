/*
 * prepared.h - prepared statements: a statement text parsed once and run
 * many times with the current values of its parameter markers.
 *
 * Markers are Spark's parameterized SQL's: positional `?` or named
 * `:name`, not both in one statement ([INVALID_QUERY_MIXED_QUERY_PARAMETERS]).
 * Parameters are numbered from 0: the k-th `?` in the text, or the k-th
 * distinct name in the order names first appear (a name may be used many
 * times). At each execution the binder replaces every marker by a literal
 * of its value, as Spark's parameter substitution does before analysis, so
 * a value's type is its literal's (BIGINT for a 64-bit integer, STRING for
 * text...). A marker without a value fails with [UNBOUND_SQL_PARAMETER],
 * also when a text with markers is run by sql_execute.
 *
 * A query without parameters that the logical plan covers (plan.h) is
 * bound once: each execution lowers the kept plan into fresh operators
 * over the tables as they are then (bound again when a table's columns or
 * the session's settings changed). Other statements bind at each
 * execution, with the values, then build fresh operators and run.
 */
#ifndef SILT_SQL_PREPARED_H
#define SILT_SQL_PREPARED_H

#include "sql/ast.h"
#include "sql/session.h"

typedef struct sql_prepared sql_prepared;

/* Parses text, which must be one statement; the statement keeps a copy of it. */
silt_status sql_prepare(sql_session *s, const char *text, sql_prepared **out, silt_error *err);

size_t sql_prepared_n_params(const sql_prepared *p);
/* 1 when the markers are named (:name), 0 when positional (?) or there are none. */
int sql_prepared_is_named(const sql_prepared *p);
/* The name of parameter idx without its colon, or NULL for a positional one. */
const char *sql_prepared_param_name(const sql_prepared *p, size_t idx);

/*
 * Runs the statement with values[idx] for parameter idx where set[idx] is
 * nonzero (both arrays of sql_prepared_n_params entries; literal kinds
 * NULL, BOOL, INT, LONG, DOUBLE, STRING, BINARY, DATE, TIMESTAMP). *out
 * (may be NULL: run to the end) gets the result, which may outlive the
 * prepared statement. The values are copied into the statement's plan.
 */
silt_status sql_prepared_execute(sql_session *s, sql_prepared *p, const sql_literal *values,
                                 const uint8_t *set, sql_result **out, silt_error *err);

/*
 * The logical plan the statement keeps across executions (plan.h), NULL
 * before its first execution and for statements it does not keep one for
 * (parameters, shapes the logical plan does not cover yet).
 */
const struct lp_node *sql_prepared_plan(const sql_prepared *p);

/* Frees the statement (results still alive keep what they need). NULL is fine. */
void sql_prepared_free(sql_prepared *p);

/*
 * For the binder: the literal that stands for the marker ast (a
 * SQL_EXPR_PARAM) in the execution being bound, in *lit_out (a copy of
 * ast turned SQL_EXPR_LITERAL). [UNBOUND_SQL_PARAMETER] when there is none.
 */
silt_status sql_param_literal(const sql_session *s, const sql_expr *ast, sql_expr *lit_out,
                              silt_error *err);

/*
 * session.c, for prepared.c: runs one parsed statement of text into a new
 * result in *out, or to its end when out is NULL; errors get the
 * statement's position. sql_session_result_on_free calls fn(payload) when res
 * is freed (0 when out of memory).
 */
silt_status sql_session_run_parsed(sql_session *s, const sql_stmt *stmt, const char *text, size_t len,
                               sql_result **out, silt_error *err);
int sql_session_result_on_free(sql_result *res, void (*fn)(void *), void *payload);

#endif
