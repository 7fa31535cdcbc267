/*
 * Unit tests of the SQL lexer and parser beyond the statement lists:
 * positions, error offsets, nesting limits, large statements, allocation
 * failures, the tree's fields (types, literal values) as the binder sees them.
 */
#include <stdio.h>
#include <string.h>

#include "sql/lexer.h"
#include "sql/parser.h"
#include "test.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/time.h"

static arena *g_arena;

void test_sql_parser__initialize(void)
{
    g_arena = arena_new(NULL, "sql-test");
    check(g_arena != NULL);
}

void test_sql_parser__cleanup(void)
{
    mem_fail_reset();
    arena_free(g_arena);
}

static sql_stmt *parse_one(const char *sql)
{
    sql_stmt_list *list = NULL;
    silt_error err = SILT_ERROR_INIT;
    check_ok(sql_parse(g_arena, sql, &list, &err), &err);
    check_int(1, list->n);
    return list->items[0];
}

static size_t fail_offset(const char *sql, silt_error *err)
{
    sql_stmt_list *list = NULL;
    size_t off = (size_t)-1;
    check_fails(SILT_PARSE, sql_parse_n(g_arena, sql, strlen(sql), &list, &off, err));
    check(list == NULL);
    return off;
}

void test_sql_parser__lexer_tokens(void)
{
    /* 'x''y' is one string (a doubled quote, Spark 4); 'z' after a space is another. */
    const char *sql = "SELECT a.`b``c`, 'x''y' 'z' || X'0A' FROM t@v1 -- c\n WHERE n >= 1.5e3BD";
    sql_token_list toks;
    silt_error err = SILT_ERROR_INIT;
    static const sql_tok_kind want[] = {
        SQL_TOK_WORD,   SQL_TOK_WORD,   SQL_TOK_DOT,    SQL_TOK_QUOTED, SQL_TOK_COMMA,
        SQL_TOK_STRING, SQL_TOK_STRING, SQL_TOK_CONCAT, SQL_TOK_BINARY, SQL_TOK_WORD,
        SQL_TOK_WORD,   SQL_TOK_AT,     SQL_TOK_WORD,   SQL_TOK_WORD,   SQL_TOK_WORD,
        SQL_TOK_GE,     SQL_TOK_NUMBER, SQL_TOK_EOF};
    check_ok(sql_lex(g_arena, sql, strlen(sql), &toks, NULL, &err), &err);
    check_int(sizeof(want) / sizeof(want[0]), toks.n_tokens);
    for (size_t idx = 0; idx < toks.n_tokens; idx++)
        check_int(want[idx], toks.tokens[idx].kind);
    /* Tokens point into the text; nothing is copied. */
    check_int(9, toks.tokens[3].off);
    check_int(6, toks.tokens[3].len);
    check_int(6, toks.tokens[5].len);
    check_int(strlen(sql) - 7, toks.tokens[16].off);
    check_int(7, toks.tokens[16].len);
    check(toks.tokens[13].space_before); /* WHERE after the comment */
    check(!toks.tokens[11].space_before); /* t@v1 */
}

void test_sql_parser__error_positions(void)
{
    silt_error err = SILT_ERROR_INIT;
    check_int(7, fail_offset("SELECT FROM t", &err));
    check_str("[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM' (line 1, column 8)", err.message);
    /* Line and column count from 1 on the line of the token. */
    check_int(27, fail_offset("SELECT a,\n  b\nFROM t\nWHERE )", &err));
    check_contains(err.message, "at or near ')' (line 4, column 7)");
    check_str("expected an expression", err.detail);
    check_int(9, fail_offset("SELECT a /* open", &err));
    check_contains(err.message, "[UNCLOSED_BRACKETED_COMMENT]");
    check_int(7, fail_offset("SELECT 'abc", &err));
    check_str("unterminated string literal", err.detail);
    check_int(7, fail_offset("SELECT -129Y", &err));
    check_contains(err.message, "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal -129Y");
    check_int(13, fail_offset("SELECT 1 FROM", &err));
    check_contains(err.message, "end of input (line 1, column 14)");
}

void test_sql_parser__embedded_nul_is_an_error(void)
{
    static const char sql[] = "SELECT 1\0 FROM t";
    sql_stmt_list *list = NULL;
    silt_error err = SILT_ERROR_INIT;
    size_t off = 0;
    check_fails(SILT_PARSE, sql_parse_n(g_arena, sql, sizeof(sql) - 1, &list, &off, &err));
    check_int(8, off);
    check_contains(err.message, "(line 1, column 9)");
}

void test_sql_parser__deep_nesting_is_refused(void)
{
    buf b = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    sql_stmt_list *list = NULL;
    const char *kinds[] = {"(", "NOT ", "- ", "(SELECT "};
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        buf_truncate(&b, 0);
        check_ok(buf_append_str(&b, "SELECT ", &err), &err);
        for (int idx = 0; idx < 100000; idx++)
            check_ok(buf_append_str(&b, kinds[k], &err), &err);
        check_ok(buf_append_str(&b, "1", &err), &err);
        check_fails(SILT_PARSE, sql_parse(g_arena, buf_cstr(&b), &list, &err));
        check_contains(err.message, "nested more than 200 levels deep");
    }
    /* Nesting within the limit is fine. */
    buf_truncate(&b, 0);
    check_ok(buf_append_str(&b, "SELECT ", &err), &err);
    for (int idx = 0; idx < 50; idx++)
        check_ok(buf_append_str(&b, "(", &err), &err);
    check_ok(buf_append_str(&b, "1", &err), &err);
    for (int idx = 0; idx < 50; idx++)
        check_ok(buf_append_str(&b, ")", &err), &err);
    check_ok(sql_parse(g_arena, buf_cstr(&b), &list, &err), &err);
    buf_clear(&b);
}

void test_sql_parser__long_chains_do_not_recurse(void)
{
    /* Left-associative chains of operators and set operations are loops. */
    buf b = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    sql_stmt_list *list = NULL;
    check_ok(buf_append_str(&b, "SELECT 1", &err), &err);
    for (int idx = 0; idx < 20000; idx++)
        check_ok(buf_append_str(&b, " + 1 AND x OR y", &err), &err);
    for (int idx = 0; idx < 2000; idx++)
        check_ok(buf_append_str(&b, " UNION ALL SELECT 2", &err), &err);
    check_ok(sql_parse(g_arena, buf_cstr(&b), &list, &err), &err);
    check_int(1, list->n);
    buf_clear(&b);
}

void test_sql_parser__large_insert_values(void)
{
    buf b = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    sql_stmt *s;
    int64_t start;
    check_ok(buf_append_str(&b, "INSERT INTO t VALUES ", &err), &err);
    for (int idx = 0; idx < 50000; idx++)
        check_ok(buf_printf(&b, &err, "%s(%d, 'name %d', %d.25, DATE '2024-01-02', NULL)",
                            idx > 0 ? ", " : "", idx, idx, idx), &err);
    start = time_monotonic_nanos();
    s = parse_one(buf_cstr(&b));
    /* Not a timing assertion: only a guard against quadratic behaviour. */
    check(time_monotonic_nanos() - start < (int64_t)20 * 1000 * 1000 * 1000);
    check_int(SQL_STMT_INSERT, s->kind);
    check_int(SQL_QUERY_VALUES, s->u.insert.query->kind);
    check_int(50000, s->u.insert.query->u.values.n_rows);
    check_int(5, s->u.insert.query->u.values.rows[49999].n);
    check_int(49999, s->u.insert.query->u.values.rows[49999].items[0]->u.lit.i64);
    check_str("name 49999", s->u.insert.query->u.values.rows[49999].items[1]->u.lit.str);
    buf_clear(&b);
}

void test_sql_parser__positions_in_tree(void)
{
    const char *sql = "SELECT a, b + 1 AS c FROM db.t x WHERE x.k = 'v'";
    sql_stmt *s = parse_one(sql);
    sql_select *sel = &s->u.query->u.select;
    check_int(0, s->pos);
    check_int(strlen(sql), s->end);
    check_int(2, sel->n_items);
    check_int(7, sel->items[0].expr->pos);
    check_int(10, sel->items[1].expr->pos);
    check_int(14, sel->items[1].expr->u.op.right->pos);
    check_str("c", sel->items[1].alias);
    check_int(26, sel->from[0]->pos);
    check_str("x", sel->from[0]->alias.name);
    check_int(29, sel->from[0]->u.named.name.parts[1].pos);
    check_int(39, sel->where->pos);
    check_int(45, sel->where->u.op.right->pos);
}

void test_sql_parser__statement_bounds(void)
{
    const char *sql = "SELECT 1; -- first\n  UPDATE t SET a = 2 ;";
    sql_stmt_list *list = NULL;
    silt_error err = SILT_ERROR_INIT;
    check_ok(sql_parse(g_arena, sql, &list, &err), &err);
    check_int(2, list->n);
    check_int(0, list->items[0]->pos);
    check_int(8, list->items[0]->end);
    check_int(21, list->items[1]->pos);
    check_int(39, list->items[1]->end);
    check_ok(sql_parse(g_arena, " ; -- nothing\n", &list, &err), &err);
    check_int(0, list->n);
}

void test_sql_parser__column_types(void)
{
    sql_stmt *s = parse_one("CREATE TABLE t (a TINYINT, b DECIMAL(12, 3), c ARRAY<MAP<STRING, "
                            "BIGINT>>, d STRUCT<x: INT NOT NULL COMMENT 'it\\'s x', y: DATE>, "
                            "e VARCHAR(5), f TIMESTAMP_NTZ) USING DELTA");
    const sql_column_list *cols = &s->u.create_table.columns;
    const col_type *t;
    check_int(6, cols->n);
    check_int(COL_BYTE, cols->items[0].type.type->id);
    check_int(COL_DECIMAL, cols->items[1].type.type->id);
    check_int(12, cols->items[1].type.type->precision);
    check_int(3, cols->items[1].type.type->scale);
    t = cols->items[2].type.type;
    check_int(COL_ARRAY, t->id);
    check_int(COL_MAP, t->fields[0].type->id);
    check_int(COL_LONG, t->fields[0].type->fields[1].type->id);
    t = cols->items[3].type.type;
    check_int(COL_STRUCT, t->id);
    check_int(2, t->n_fields);
    check_str("x", t->fields[0].name);
    check_int(0, t->fields[0].nullable);
    check_str("{\"comment\":\"it's x\"}", t->fields[0].metadata_json);
    check_int(1, t->fields[1].nullable);
    check_int(COL_STRING, cols->items[4].type.type->id);
    check_int(5, cols->items[4].type.char_len);
    check_int(COL_TIMESTAMP_NTZ, cols->items[5].type.type->id);
    check_str("DELTA", s->u.create_table.using_fmt);
}

void test_sql_parser__literal_values(void)
{
    sql_stmt *s = parse_one("SELECT -9223372036854775808L, 'a\\tb\\u00e9', X'CAFE', 1.5F, "
                            "-0.050, DATE '1970-01-02', TIMESTAMP '1970-01-01 00:00:01.5'");
    sql_select *sel = &s->u.query->u.select;
    check_int(SQL_LIT_LONG, sel->items[0].expr->u.lit.kind);
    check(sel->items[0].expr->u.lit.i64 == INT64_MIN);
    check_str("a\tb\xc3\xa9", sel->items[1].expr->u.lit.str);
    check_int(2, sel->items[2].expr->u.lit.str_len);
    check_int(0xCA, (unsigned char)sel->items[2].expr->u.lit.str[0]);
    check_int(SQL_LIT_FLOAT, sel->items[3].expr->u.lit.kind);
    check(sel->items[3].expr->u.lit.f64 == 1.5);
    check_int(SQL_LIT_DECIMAL, sel->items[4].expr->u.lit.kind);
    check_str("50", sel->items[4].expr->u.lit.digits);
    check_int(3, sel->items[4].expr->u.lit.scale);
    check_int(3, sel->items[4].expr->u.lit.precision);
    check_int(1, sel->items[4].expr->u.lit.negative);
    check_int(1, sel->items[5].expr->u.lit.i64);
    check_int(1500000, sel->items[6].expr->u.lit.i64);
}

void test_sql_parser__out_of_memory_is_reported(void)
{
    /* Fail each allocation in turn: every run ends in OK or NOMEM, never a crash. */
    const char *sql = "MERGE INTO x USING (WITH c AS (SELECT a, count(*) n FROM t GROUP BY a) "
                      "SELECT * FROM c) c ON x.a = c.a WHEN MATCHED THEN UPDATE SET n = c.n "
                      "WHEN NOT MATCHED THEN INSERT *";
    int saw_ok = 0;
    for (long countdown = 0; countdown < 400 && !saw_ok; countdown++) {
        arena *a = arena_new(NULL, "oom");
        silt_error err = SILT_ERROR_INIT;
        sql_stmt_list *list = NULL;
        silt_status rc;
        check(a != NULL);
        mem_fail_after(countdown);
        rc = sql_parse(a, sql, &list, &err);
        mem_fail_reset();
        check(rc == SILT_OK || rc == SILT_NOMEM || rc == SILT_PARSE);
        /* The statement is valid: the only failure allowed is running out of memory. */
        if (rc != SILT_OK && rc != SILT_NOMEM)
            test_fail(__FILE__, __LINE__, "allocation %ld failed: %s", countdown, err.message);
        saw_ok = rc == SILT_OK;
        arena_free(a);
    }
    check(saw_ok);
}

void test_sql_parser__printer_round_trip_of_names(void)
{
    sql_stmt *s = parse_one("SELECT `we``ird`, `x y` AS `a b` FROM delta.`/p/q`@v2");
    buf b = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    check_ok(sql_stmt_print(s, &b, &err), &err);
    check_str("(query (select `we``ird` (as `x y` `a b`) (from (table delta.`/p/q` @v2))))",
              buf_cstr(&b));
    check_str("we`ird", s->u.query->u.select.items[0].expr->u.column.parts[0].name);
    buf_clear(&b);
}

void test_sql_parser__error_token_is_shortened_and_printable(void)
{
    silt_error err = SILT_ERROR_INIT;
    /* A 60-byte unterminated string: the message shows 40 bytes and "...". */
    check_int(7, fail_offset("SELECT 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", &err));
    check_str("[PARSE_SYNTAX_ERROR] Syntax error at or near "
              "''aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' (line 1, column 8)",
              err.message);
    /* Control bytes never reach the message as they are. */
    check_int(7, fail_offset("SELECT \x01", &err));
    check_contains(err.message, "at or near '?'");
    check_str("unexpected character", err.detail);
}

void test_sql_parser__lex_into_arena(void)
{
    sql_token_list toks;
    silt_error err = SILT_ERROR_INIT;
    size_t off = 0;
    check_ok(sql_lex(g_arena, "a.b", 3, &toks, NULL, &err), &err);
    check_int(4, toks.n_tokens);
    check_int(SQL_TOK_EOF, toks.tokens[3].kind);
    check_int(3, toks.tokens[3].off);
    check_fails(SILT_PARSE, sql_lex(g_arena, "a 'b", 4, &toks, &off, &err));
    check_int(2, off);
    check(toks.tokens == NULL);
}

void test_sql_parser__nested_special_calls_stay_linear(void)
{
    /*
     * SUBSTRING/POSITION/TRIM have keyword forms; choosing between the forms
     * by parsing an argument twice would cost 2^depth. 150 levels of each
     * must parse at once (this test hung before the choice became a scan).
     */
    static const char *const heads[] = {"substring(", "position(", "trim("};
    static const char *const tails[] = {", 1)", ", 'a')", ")"};
    buf b = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    sql_stmt_list *list = NULL;
    for (size_t k = 0; k < 3; k++) {
        buf_truncate(&b, 0);
        check_ok(buf_append_str(&b, "SELECT ", &err), &err);
        for (int idx = 0; idx < 150; idx++)
            check_ok(buf_append_str(&b, heads[k], &err), &err);
        check_ok(buf_append_str(&b, "x", &err), &err);
        for (int idx = 0; idx < 150; idx++)
            check_ok(buf_append_str(&b, tails[k], &err), &err);
        check_ok(sql_parse(g_arena, buf_cstr(&b), &list, &err), &err);
    }
    buf_clear(&b);
}

void test_sql_parser__columns_count_characters(void)
{
    silt_error err = SILT_ERROR_INIT;
    /* "é" is two bytes but one column; the offset stays in bytes. */
    check_int(25, fail_offset("SELECT 'caf\xc3\xa9' AS \xc3\xa9 FROM", &err));
    check_contains(err.message, "end of input (line 1, column 24)");
    check_int(27, fail_offset("SELECT 1;\n-- \xe2\x82\xac\xe2\x82\xac\nSELECT )", &err));
    check_contains(err.message, "(line 3, column 8)");
}
