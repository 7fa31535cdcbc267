/*
 * parse_expr.c - expressions, literals and types of Spark SQL.
 *
 * Precedence, loosest first, as the Spark SQL reference's operator table
 * gives it:
 *   OR; AND; NOT; predicates (IS, BETWEEN, IN, LIKE, EXISTS);
 *   comparisons = == != <> < <= > >= <=>; |; ^; &; << >> >>>;
 *   + - ||; * / % DIV; unary - + ~; postfix :: . [].
 * Binary levels from comparisons down use precedence climbing; the boolean
 * levels above are plain recursive descent because NOT and the predicates
 * are not binary operators.
 *
 * Literals are checked here, where the text is at hand: tinyint/smallint/
 * bigint ranges (after folding a leading minus, so -128Y is valid), decimal
 * precision, finite doubles, DATE and TIMESTAMP strings.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sql/parser_int.h"
#include "util/time.h"

sql_expr *sql_parser_new_expr(parser *p, sql_expr_kind kind, uint32_t pos)
{
    sql_expr *e = sql_parser_alloc(p, sizeof(*e));
    if (e != NULL) {
        e->kind = kind;
        e->pos = pos;
    }
    return e;
}

static silt_status binary_expr(parser *p, int min_prec, sql_expr **out);

static silt_status expr_new(parser *p, sql_expr_kind kind, uint32_t pos, sql_expr **out)
{
    *out = sql_parser_new_expr(p, kind, pos);
    return *out == NULL ? SILT_NOMEM : SILT_OK;
}

/* ------------------------------------------------------------------ numbers */

typedef struct num_parts {
    const char *int_digits;
    size_t n_int;
    const char *frac_digits;
    size_t n_frac;
    int has_point;
    int has_exp;
    long exp;
    char suffix[3]; /* "", "L", "S", "Y", "D", "F", "BD" (upper case) */
} num_parts;

static void split_number(const char *s, size_t len, num_parts *np)
{
    size_t pos = 0;
    memset(np, 0, sizeof(*np));
    np->int_digits = s;
    while (pos < len && s[pos] >= '0' && s[pos] <= '9')
        pos++;
    np->n_int = pos;
    if (pos < len && s[pos] == '.') {
        np->has_point = 1;
        pos++;
        np->frac_digits = s + pos;
        while (pos < len && s[pos] >= '0' && s[pos] <= '9')
            pos++;
        np->n_frac = (size_t)(s + pos - np->frac_digits);
    }
    if (pos < len && (s[pos] == 'e' || s[pos] == 'E') && pos + 1 < len &&
        (s[pos + 1] == '+' || s[pos + 1] == '-' || (s[pos + 1] >= '0' && s[pos + 1] <= '9'))) {
        int neg = 0;
        np->has_exp = 1;
        pos++;
        if (s[pos] == '+' || s[pos] == '-')
            neg = s[pos++] == '-';
        while (pos < len && s[pos] >= '0' && s[pos] <= '9') {
            if (np->exp < 100000)
                np->exp = np->exp * 10 + (s[pos] - '0');
            pos++;
        }
        if (neg)
            np->exp = -np->exp;
    }
    for (size_t idx = 0; pos < len && idx < 2; idx++, pos++)
        np->suffix[idx] = (char)(s[pos] >= 'a' ? s[pos] - 32 : s[pos]);
}

/* Parses digits as a magnitude into uint64; 0 on overflow. */
static int digits_u64(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t idx = 0; idx < n; idx++) {
        unsigned d = (unsigned)(s[idx] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

static silt_status range_error(parser *p, uint32_t off, const char *text, int negative,
                               const char *type, const char *min, const char *max)
{
    return sql_parser_error_at(p, off,
                      "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal %s%s is outside the valid "
                      "range for %s with minimum value of %s and maximum value of %s",
                      negative ? "-" : "", text, type, min, max);
}

/* An integer literal with suffix L/S/Y or none. */
static silt_status int_literal(parser *p, sql_literal *lit, const num_parts *np, const char *text,
                               int negative, uint32_t off)
{
    uint64_t mag = 0;
    int fits = digits_u64(np->int_digits, np->n_int, &mag);
    char s = np->suffix[0];
    if (s == 'Y') {
        if (!fits || mag > (negative ? 128u : 127u))
            return range_error(p, off, text, negative, "tinyint", "-128", "127");
        lit->kind = SQL_LIT_BYTE;
    } else if (s == 'S') {
        if (!fits || mag > (negative ? 32768u : 32767u))
            return range_error(p, off, text, negative, "smallint", "-32768", "32767");
        lit->kind = SQL_LIT_SHORT;
    } else if (s == 'L') {
        if (!fits || mag > (negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
            return range_error(p, off, text, negative, "bigint", "-9223372036854775808",
                               "9223372036854775807");
        lit->kind = SQL_LIT_LONG;
    } else if (fits && mag <= (negative ? 2147483648u : 2147483647u)) {
        lit->kind = SQL_LIT_INT;
    } else if (fits && mag <= (negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) {
        lit->kind = SQL_LIT_LONG;
    } else {
        return SILT_NOTFOUND; /* caller makes a decimal */
    }
    lit->i64 = negative ? (int64_t)(0 - mag) : (int64_t)mag;
    return SILT_OK;
}

/* A decimal literal from integer/fraction digits and an exponent (BD or plain 1.5). */
static silt_status decimal_literal(parser *p, sql_literal *lit, const num_parts *np,
                                   const char *text, int negative, uint32_t off)
{
    buf digits = BUF_INIT;
    long scale = (long)np->n_frac - (np->has_exp ? np->exp : 0);
    size_t first = 0;
    size_t n_sig;
    silt_status rc;
    rc = buf_append(&digits, np->int_digits, np->n_int, p->err);
    if (rc == SILT_OK && np->n_frac > 0)
        rc = buf_append(&digits, np->frac_digits, np->n_frac, p->err);
    while (rc == SILT_OK && scale < 0) {
        rc = buf_append_char(&digits, '0', p->err);
        scale++;
    }
    if (rc != SILT_OK)
        goto done;
    while (first + 1 < digits.len && digits.data[first] == '0')
        first++;
    if (digits.len == 0) {
        rc = sql_parser_error_at(p, off, "[PARSE_SYNTAX_ERROR] invalid numeric literal '%s'", text);
        goto done;
    }
    n_sig = digits.len - first;
    lit->precision = (int32_t)(n_sig > (size_t)scale ? n_sig : (size_t)scale);
    lit->scale = (int32_t)scale;
    if (lit->precision > 38 || scale > 38) {
        rc = sql_parser_error_at(p, off,
                        "[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] Decimal precision %ld exceeds "
                        "max precision 38 in literal %s%s",
                        (long)(lit->precision > scale ? lit->precision : scale),
                        negative ? "-" : "", text);
        goto done;
    }
    lit->kind = SQL_LIT_DECIMAL;
    lit->negative = (uint8_t)negative;
    lit->digits = sql_parser_strndup(p, digits.data + first, digits.len - first);
    rc = lit->digits == NULL ? SILT_NOMEM : SILT_OK;
done:
    buf_clear(&digits);
    return rc;
}

static silt_status number_literal(parser *p, sql_expr **out, int negative, uint32_t off)
{
    const sql_token *t = p_tok(p);
    char text[128];
    num_parts np;
    sql_expr *e;
    silt_status rc;
    size_t show = t->len < sizeof(text) - 1 ? t->len : sizeof(text) - 1;
    memcpy(text, p->text + t->off, show);
    text[show] = '\0';
    P_TRY(expr_new(p, SQL_EXPR_LITERAL, off, &e));
    split_number(p->text + t->off, t->len, &np);
    if (np.suffix[0] == 'L' || np.suffix[0] == 'S' || np.suffix[0] == 'Y' ||
        (np.suffix[0] == '\0' && !np.has_point && !np.has_exp)) {
        if (np.has_point || np.has_exp || np.n_int == 0)
            return sql_parser_fail(p, "invalid numeric literal: the L, S and Y suffixes need an integer");
        rc = int_literal(p, &e->u.lit, &np, text, negative, off);
        if (rc == SILT_NOTFOUND)
            rc = decimal_literal(p, &e->u.lit, &np, text, negative, off);
    } else if (np.suffix[0] == 'B' || (np.suffix[0] == '\0' && !np.has_exp)) {
        rc = decimal_literal(p, &e->u.lit, &np, text, negative, off);
    } else {
        /* D, F, or an exponent without suffix: a double (Spark reads 1e10 as double). */
        size_t num_len = t->len - strlen(np.suffix);
        double v = 0;
        if (!util_str_to_double(p->text + t->off, num_len, &v) || !isfinite(v) ||
            (np.suffix[0] == 'F' && fabs(v) > 3.4028234663852886e38))
            return range_error(p, off, text, negative, np.suffix[0] == 'F' ? "float" : "double",
                               np.suffix[0] == 'F' ? "-3.4028235E38" : "-1.7976931348623157E308",
                               np.suffix[0] == 'F' ? "3.4028235E38" : "1.7976931348623157E308");
        e->u.lit.kind = np.suffix[0] == 'F' ? SQL_LIT_FLOAT : SQL_LIT_DOUBLE;
        e->u.lit.f64 = negative ? -v : v;
        rc = SILT_OK;
    }
    if (rc != SILT_OK)
        return rc;
    p_advance(p);
    *out = e;
    return SILT_OK;
}

silt_status sql_parser_number(parser *p, sql_expr **out)
{
    if (!p_is(p, SQL_TOK_NUMBER))
        return sql_parser_fail(p, "expected a number");
    return number_literal(p, out, 0, p_tok(p)->off);
}

/* ------------------------------------------------------------------ strings */

static int hex_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static silt_status put_utf8(buf *b, unsigned cp, silt_error *err)
{
    char tmp[4];
    size_t n;
    if (cp < 0x80) {
        tmp[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        tmp[0] = (char)(0xC0 | (cp >> 6));
        tmp[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        tmp[0] = (char)(0xE0 | (cp >> 12));
        tmp[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        tmp[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        tmp[0] = (char)(0xF0 | (cp >> 18));
        tmp[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        tmp[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        tmp[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return buf_append(b, tmp, n, err);
}

/*
 * Decodes one quoted string body with Spark's escapes (unescapeSQLString);
 * q is the quote, which a doubled q inside the body stands for.
 */
static silt_status decode_string(const char *s, size_t n, char q, buf *b, silt_error *err)
{
    size_t pos = 0;
    while (pos < n) {
        char c = s[pos];
        char e;
        if (c == q && pos + 1 < n && s[pos + 1] == q) {
            P_TRY(buf_append_char(b, q, err));
            pos += 2;
            continue;
        }
        if (c != '\\' || pos + 1 >= n) {
            P_TRY(buf_append_char(b, c, err));
            pos++;
            continue;
        }
        e = s[pos + 1];
        if (e == 'U' && pos + 10 <= n) {
            unsigned cp = 0;
            int ok = 1;
            for (size_t idx = 2; idx < 10; idx++) {
                int h = hex_val(s[pos + idx]);
                ok = ok && h >= 0;
                cp = (cp << 4) | (unsigned)(h < 0 ? 0 : h);
            }
            if (ok && cp <= 0x10FFFF) {
                P_TRY(put_utf8(b, cp, err));
                pos += 10;
                continue;
            }
        }
        if (e == 'u' && pos + 6 <= n) {
            int h0 = hex_val(s[pos + 2]), h1 = hex_val(s[pos + 3]);
            int h2 = hex_val(s[pos + 4]), h3 = hex_val(s[pos + 5]);
            if (h0 >= 0 && h1 >= 0 && h2 >= 0 && h3 >= 0) {
                P_TRY(put_utf8(b, (unsigned)(h0 << 12 | h1 << 8 | h2 << 4 | h3), err));
                pos += 6;
                continue;
            }
        }
        if (e >= '0' && e <= '3' && pos + 3 < n && s[pos + 2] >= '0' && s[pos + 2] <= '7' &&
            s[pos + 3] >= '0' && s[pos + 3] <= '7') {
            P_TRY(buf_append_char(b, (char)((e - '0') * 64 + (s[pos + 2] - '0') * 8 +
                                            (s[pos + 3] - '0')), err));
            pos += 4;
            continue;
        }
        switch (e) {
        case '0': c = '\0'; break;
        case 'b': c = '\b'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'Z': c = '\032'; break;
        case '%':
        case '_':
            /* LIKE wildcards keep their backslash (Spark does the same). */
            P_TRY(buf_append_char(b, '\\', err));
            c = e;
            break;
        default: c = e; break;
        }
        P_TRY(buf_append_char(b, c, err));
        pos += 2;
    }
    return SILT_OK;
}

/* Exactly one string literal (keys of OPTIONS written as 'k' 'v' must not merge). */
silt_status sql_parser_string_one(parser *p, const char **out)
{
    buf b = BUF_INIT;
    const sql_token *t = p_tok(p);
    silt_status rc;
    if (!p_at_string(p))
        return sql_parser_fail(p, "expected a string literal");
    if (t->kind == SQL_TOK_RAW_STRING)
        rc = buf_append(&b, p->text + t->off + 2, t->len - 3, p->err);
    else
        rc = decode_string(p->text + t->off + 1, t->len - 2, p->text[t->off], &b, p->err);
    if (rc == SILT_OK) {
        *out = sql_parser_strndup(p, b.data != NULL ? b.data : "", b.len);
        rc = *out == NULL ? SILT_NOMEM : SILT_OK;
    }
    p_advance(p);
    buf_clear(&b);
    return rc;
}

/* One or more adjacent string literals, concatenated ('a' 'b' is 'ab'). */
silt_status sql_parser_string(parser *p, const char **out, size_t *len_out)
{
    buf b = BUF_INIT;
    silt_status rc = SILT_OK;
    if (!p_at_string(p))
        return sql_parser_fail(p, "expected a string literal");
    while (rc == SILT_OK && p_at_string(p)) {
        const sql_token *t = p_tok(p);
        if (t->kind == SQL_TOK_RAW_STRING)
            rc = buf_append(&b, p->text + t->off + 2, t->len - 3, p->err);
        else
            rc = decode_string(p->text + t->off + 1, t->len - 2, p->text[t->off], &b, p->err);
        p_advance(p);
    }
    if (rc == SILT_OK) {
        *out = sql_parser_strndup(p, b.data != NULL ? b.data : "", b.len);
        if (len_out != NULL)
            *len_out = b.len;
        rc = *out == NULL ? SILT_NOMEM : SILT_OK;
    }
    buf_clear(&b);
    return rc;
}

static silt_status binary_literal(parser *p, sql_expr **out)
{
    const sql_token *t = p_tok(p);
    const char *hex = p->text + t->off + 2;
    size_t n_hex = t->len - 3;
    size_t n_bytes = (n_hex + 1) / 2;
    char *bytes;
    sql_expr *e;
    P_TRY(expr_new(p, SQL_EXPR_LITERAL, t->off, &e));
    bytes = sql_parser_alloc(p, n_bytes + 1);
    if (bytes == NULL)
        return SILT_NOMEM;
    /* An odd count of digits gets a leading zero nibble, as Spark does. */
    for (size_t idx = 0; idx < n_hex; idx++) {
        int v = hex_val(hex[idx]);
        size_t nib = idx + (n_hex & 1);
        if (v < 0)
            return sql_parser_error_at(p, t->off + 2 + (uint32_t)idx,
                              "[INVALID_TYPED_LITERAL] The value of the typed literal \"X\" is "
                              "invalid: '%.*s'",
                              (int)(n_hex > 40 ? 40 : n_hex), hex);
        bytes[nib / 2] = (char)(bytes[nib / 2] | (nib % 2 == 0 ? v << 4 : v));
    }
    e->u.lit.kind = SQL_LIT_BINARY;
    e->u.lit.str = bytes;
    e->u.lit.str_len = n_bytes;
    p_advance(p);
    *out = e;
    return SILT_OK;
}

/* ------------------------------------------------------------------ typed literals */

static silt_status typed_literal(parser *p, sql_lit_kind kind, const char *type_name,
                                 sql_expr **out)
{
    uint32_t off = p_tok(p)->off;
    uint32_t str_off;
    sql_expr *e;
    size_t len;
    int ok;
    p_advance(p);
    str_off = p_tok(p)->off;
    P_TRY(expr_new(p, SQL_EXPR_LITERAL, off, &e));
    P_TRY(sql_parser_string(p, &e->u.lit.str, &len));
    e->u.lit.kind = kind;
    e->u.lit.str_len = len;
    if (kind == SQL_LIT_DATE) {
        int32_t days = 0;
        ok = time_parse_date(e->u.lit.str, len, &days);
        e->u.lit.i64 = days;
    } else {
        int has_zone = 0;
        ok = time_parse_timestamp(e->u.lit.str, len, &e->u.lit.i64, &has_zone);
        /* A wall-clock timestamp has no zone to convert from. */
        if (ok && kind == SQL_LIT_TIMESTAMP_NTZ && has_zone)
            ok = 0;
    }
    if (!ok)
        return sql_parser_error_at(p, str_off,
                          "[INVALID_TYPED_LITERAL] The value of the typed literal \"%s\" is "
                          "invalid: '%.64s'",
                          type_name, e->u.lit.str);
    *out = e;
    return SILT_OK;
}

static const char *interval_unit(const parser *p, const sql_token *t)
{
    static const char *const units[][3] = {
        {"YEAR", "YEARS", "year"},          {"MONTH", "MONTHS", "month"},
        {"WEEK", "WEEKS", "week"},          {"DAY", "DAYS", "day"},
        {"HOUR", "HOURS", "hour"},          {"MINUTE", "MINUTES", "minute"},
        {"SECOND", "SECONDS", "second"},    {"MILLISECOND", "MILLISECONDS", "millisecond"},
        {"MICROSECOND", "MICROSECONDS", "microsecond"}};
    for (size_t idx = 0; idx < sizeof(units) / sizeof(units[0]); idx++) {
        if (sql_parser_word_is(p, t, units[idx][0]) || sql_parser_word_is(p, t, units[idx][1]))
            return units[idx][2];
    }
    return NULL;
}

/* One interval value: [-]number or a string. */
static silt_status interval_value(parser *p, const char **out)
{
    int negative = sql_parser_accept(p, SQL_TOK_MINUS);
    int signed_ = negative || sql_parser_accept(p, SQL_TOK_PLUS);
    if (p_is(p, SQL_TOK_NUMBER)) {
        const sql_token *t = p_tok(p);
        *out = arena_sprintf(p->a, "%s%.*s", negative ? "-" : "", (int)t->len, p->text + t->off);
        p_advance(p);
        return *out == NULL ? err_nomem(p->err) : SILT_OK;
    }
    if (p_at_string(p) && !signed_)
        return sql_parser_string(p, out, NULL);
    return sql_parser_fail(p, "expected an interval value (a number or a string)");
}

/*
 * INTERVAL '1 day 2 hours' | INTERVAL '1-2' YEAR TO MONTH |
 * INTERVAL 2 HOURS 30 MINUTES | INTERVAL '1' DAY.
 */
static silt_status interval_literal(parser *p, sql_expr **out)
{
    sql_expr *e;
    size_t cap = 0;
    P_TRY(expr_new(p, SQL_EXPR_LITERAL, p_tok(p)->off, &e));
    p_advance(p);
    e->u.lit.kind = SQL_LIT_INTERVAL;
    do {
        sql_interval_part *part;
        P_TRY(sql_parser_grow(p, (void **)&e->u.lit.parts, &e->u.lit.n_parts, &cap, sizeof(*part)));
        part = &e->u.lit.parts[e->u.lit.n_parts - 1];
        P_TRY(interval_value(p, &part->value));
        part->unit = interval_unit(p, p_tok(p));
        if (part->unit == NULL) {
            if (e->u.lit.n_parts == 1 && p_at_string(p) == 0 &&
                p_is_string_kind(p->toks[p->i - 1].kind))
                break; /* INTERVAL '1 day 2 hours' */
            return sql_parser_fail(p, "expected an interval unit (YEAR, MONTH, WEEK, DAY, HOUR, MINUTE, "
                          "SECOND, MILLISECOND, MICROSECOND)");
        }
        p_advance(p);
        if (sql_parser_accept_kw(p, "TO")) {
            e->u.lit.to_unit = interval_unit(p, p_tok(p));
            if (e->u.lit.to_unit == NULL)
                return sql_parser_fail(p, "expected an interval unit after TO");
            p_advance(p);
            break;
        }
    } while (p_is(p, SQL_TOK_NUMBER) || p_at_string(p) ||
             ((p_is(p, SQL_TOK_MINUS) || p_is(p, SQL_TOK_PLUS)) &&
              p_peek(p, 1)->kind == SQL_TOK_NUMBER));
    *out = e;
    return SILT_OK;
}

/* ------------------------------------------------------------------ types */

/*
 * Expects the '>' closing a type parameter list. ARRAY<ARRAY<INT>> lexes
 * its end as '>>' (or '>>>'): split the token and consume its first byte.
 */
static silt_status expect_close_angle(parser *p)
{
    sql_token *t = &p->toks[p->i];
    if (t->kind == SQL_TOK_SHR || t->kind == SQL_TOK_USHR) {
        t->kind = t->kind == SQL_TOK_SHR ? SQL_TOK_GT : SQL_TOK_SHR;
        t->off++;
        t->len--;
        t->space_before = 0;
        return SILT_OK;
    }
    return sql_parser_expect(p, SQL_TOK_GT);
}

static silt_status type_int_param(parser *p, int32_t *out)
{
    uint64_t v = 0;
    const sql_token *t = p_tok(p);
    if (!p_is(p, SQL_TOK_NUMBER) || !digits_u64(p->text + t->off, t->len, &v) || v > 0x7fffffff)
        return sql_parser_fail(p, "expected a non-negative integer");
    *out = (int32_t)v;
    p_advance(p);
    return SILT_OK;
}

static const col_type *primitive_type(const parser *p, const sql_token *t, uint8_t *is_char)
{
    static const struct {
        const char *name;
        col_type_id id;
    } names[] = {
        {"BOOLEAN", COL_BOOLEAN}, {"BOOL", COL_BOOLEAN},    {"TINYINT", COL_BYTE},
        {"BYTE", COL_BYTE},       {"SMALLINT", COL_SHORT},  {"SHORT", COL_SHORT},
        {"INT", COL_INT},         {"INTEGER", COL_INT},     {"BIGINT", COL_LONG},
        {"LONG", COL_LONG},       {"FLOAT", COL_FLOAT},     {"REAL", COL_FLOAT},
        {"DOUBLE", COL_DOUBLE},   {"STRING", COL_STRING},   {"BINARY", COL_BINARY},
        {"DATE", COL_DATE},       {"TIMESTAMP", COL_TIMESTAMP},
        {"TIMESTAMP_LTZ", COL_TIMESTAMP}, {"TIMESTAMP_NTZ", COL_TIMESTAMP_NTZ},
        {"VOID", COL_NULL}};
    if (sql_parser_word_is(p, t, "VARCHAR") || sql_parser_word_is(p, t, "NVARCHAR")) {
        *is_char = 1;
        return col_type_primitive(COL_STRING);
    }
    if (sql_parser_word_is(p, t, "CHAR") || sql_parser_word_is(p, t, "CHARACTER") ||
        sql_parser_word_is(p, t, "NCHAR")) {
        *is_char = 2;
        return col_type_primitive(COL_STRING);
    }
    for (size_t idx = 0; idx < sizeof(names) / sizeof(names[0]); idx++) {
        if (sql_parser_word_is(p, t, names[idx].name))
            return col_type_primitive(names[idx].id);
    }
    return NULL;
}

/* Appends "\"comment\":\"...\"" JSON for a struct field comment. */
static const char *comment_json(parser *p, const char *comment)
{
    buf b = BUF_INIT;
    const char *res = NULL;
    silt_status rc = buf_append_str(&b, "{\"comment\":\"", p->err);
    for (const char *c = comment; rc == SILT_OK && *c != '\0'; c++) {
        unsigned char ch = (unsigned char)*c;
        if (ch == '"' || ch == '\\')
            rc = buf_printf(&b, p->err, "\\%c", ch);
        else if (ch < 0x20)
            rc = buf_printf(&b, p->err, "\\u%04x", ch);
        else
            rc = buf_append_char(&b, (char)ch, p->err);
    }
    if (rc == SILT_OK)
        rc = buf_append_str(&b, "\"}", p->err);
    if (rc == SILT_OK)
        res = sql_parser_strndup(p, b.data, b.len);
    buf_clear(&b);
    return res;
}

static silt_status struct_type(parser *p, sql_type *out)
{
    col_field *fields = NULL;
    size_t n_fields = 0, cap = 0;
    P_TRY(sql_parser_expect(p, SQL_TOK_LT));
    while (!p_is(p, SQL_TOK_GT) && !p_is(p, SQL_TOK_SHR) && !p_is(p, SQL_TOK_USHR)) {
        sql_ident name;
        sql_type ft;
        col_field *f;
        if (n_fields > 0)
            P_TRY(sql_parser_expect(p, SQL_TOK_COMMA));
        P_TRY(sql_parser_ident(p, &name));
        sql_parser_accept(p, SQL_TOK_COLON);
        P_TRY(sql_parser_type(p, &ft));
        P_TRY(sql_parser_grow(p, (void **)&fields, &n_fields, &cap, sizeof(*fields)));
        f = &fields[n_fields - 1];
        f->name = name.name;
        f->type = ft.type;
        f->nullable = 1;
        f->field_id = -1;
        if (sql_parser_kw(p, "NOT") && sql_parser_kw_at(p, 1, "NULL")) {
            p_advance(p);
            p_advance(p);
            f->nullable = 0;
        }
        if (sql_parser_accept_kw(p, "COMMENT")) {
            const char *comment;
            P_TRY(sql_parser_string(p, &comment, NULL));
            f->metadata_json = comment_json(p, comment);
            if (f->metadata_json == NULL)
                return SILT_NOMEM;
        }
    }
    P_TRY(expect_close_angle(p));
    out->type = col_type_struct(p->a, n_fields, fields);
    return out->type == NULL ? err_nomem(p->err) : SILT_OK;
}

/*
 * T-SQL type names with an exact Delta equivalent (docs/serverless.md): BIT
 * is boolean, DATETIME2[(p)] timestamp_ntz, MONEY decimal(19,4), SMALLMONEY
 * decimal(10,4), FLOAT(n) float for n <= 24 and double above (T-SQL's
 * float(n)), VARBINARY(n|MAX) binary; NVARCHAR/NCHAR are VARCHAR/CHAR and
 * (MAX) is a plain string. Names Spark already has keep Spark's meaning
 * (FLOAT alone is 4 bytes, TINYINT signed). *handled 0 when t is none of them.
 */
static silt_status tsql_type(parser *p, const sql_token *t, sql_type *out, int *handled)
{
    static const char *const refused[] = {
        "UNIQUEIDENTIFIER", "DATETIME", "SMALLDATETIME", "DATETIMEOFFSET", "TIME", "SQL_VARIANT",
        "XML", "TEXT", "NTEXT", "IMAGE", "HIERARCHYID", "GEOGRAPHY", "GEOMETRY", "ROWVERSION"};
    *handled = 1;
    for (size_t idx = 0; idx < sizeof(refused) / sizeof(refused[0]); idx++)
        if (sql_parser_word_is(p, t, refused[idx]))
            return sql_parser_error_at(p, t->off, "[UNSUPPORTED_DATATYPE] the T-SQL type %s has "
                                       "no exact Delta equivalent; declare the column as one of "
                                       "Delta's types (string, timestamp_ntz, ...)", refused[idx]);
    if (sql_parser_word_is(p, t, "BIT")) {
        out->type = col_type_primitive(COL_BOOLEAN);
        p_advance(p);
    } else if (sql_parser_word_is(p, t, "DATETIME2")) {
        int32_t precision = 7;
        p_advance(p);
        if (sql_parser_accept(p, SQL_TOK_LPAREN)) {
            P_TRY(type_int_param(p, &precision));
            P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
        }
        if (precision > 7)
            return sql_parser_error_at(p, t->off, "could not use type datetime2(%d): the "
                                       "precision is 0 to 7", (int)precision);
        out->type = col_type_primitive(COL_TIMESTAMP_NTZ);
    } else if (sql_parser_word_is(p, t, "MONEY") || sql_parser_word_is(p, t, "SMALLMONEY")) {
        int small = sql_parser_word_is(p, t, "SMALLMONEY");
        p_advance(p);
        out->type = col_type_decimal(p->a, small ? 10 : 19, 4);
        if (out->type == NULL)
            return err_nomem(p->err);
    } else if (sql_parser_word_is(p, t, "FLOAT") && p_peek(p, 1)->kind == SQL_TOK_LPAREN) {
        int32_t bits = 53;
        p_advance(p);
        p_advance(p);
        P_TRY(type_int_param(p, &bits));
        P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
        if (bits < 1 || bits > 53)
            return sql_parser_error_at(p, t->off, "could not use type float(%d): n is 1 to 53",
                                       (int)bits);
        out->type = col_type_primitive(bits <= 24 ? COL_FLOAT : COL_DOUBLE);
    } else if (sql_parser_word_is(p, t, "VARBINARY") ||
               (sql_parser_word_is(p, t, "BINARY") && p_peek(p, 1)->kind == SQL_TOK_LPAREN)) {
        int32_t n = 0;
        p_advance(p);
        if (sql_parser_accept(p, SQL_TOK_LPAREN)) {
            if (!sql_parser_accept_kw(p, "MAX"))
                P_TRY(type_int_param(p, &n));
            P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
        }
        out->type = col_type_primitive(COL_BINARY);
    } else {
        *handled = 0;
    }
    return SILT_OK;
}

/*
 * A type: primitive names, DECIMAL(p,s)/DEC/NUMERIC, VARCHAR(n), CHAR(n),
 * ARRAY<T>, MAP<K,V>, STRUCT<a: T, ...>, and T-SQL's names (tsql_type).
 * `>>` closing two levels is split.
 */
silt_status sql_parser_type(parser *p, sql_type *out)
{
    int handled = 0;
    const sql_token *t = p_tok(p);
    memset(out, 0, sizeof(*out));
    out->pos = t->off;
    out->char_len = -1;
    P_TRY(sql_parser_enter(p));
    if (t->kind != SQL_TOK_WORD)
        return sql_parser_fail(p, "expected a data type");
    if (sql_parser_word_is(p, t, "DECIMAL") || sql_parser_word_is(p, t, "DEC") || sql_parser_word_is(p, t, "NUMERIC")) {
        int32_t precision = 10, scale = 0;
        p_advance(p);
        if (sql_parser_accept(p, SQL_TOK_LPAREN)) {
            P_TRY(type_int_param(p, &precision));
            if (sql_parser_accept(p, SQL_TOK_COMMA))
                P_TRY(type_int_param(p, &scale));
            P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
        }
        if (precision < 1 || precision > 38 || scale > precision)
            return sql_parser_error_at(p, t->off,
                              "[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] could not use type "
                              "decimal(%d,%d): precision must be 1 to 38 and scale at most the "
                              "precision", (int)precision, (int)scale);
        out->type = col_type_decimal(p->a, precision, scale);
        if (out->type == NULL)
            return err_nomem(p->err);
    } else if (sql_parser_word_is(p, t, "ARRAY")) {
        sql_type elem;
        p_advance(p);
        P_TRY(sql_parser_expect(p, SQL_TOK_LT));
        P_TRY(sql_parser_type(p, &elem));
        P_TRY(expect_close_angle(p));
        out->type = col_type_array(p->a, elem.type, 1);
        if (out->type == NULL)
            return err_nomem(p->err);
    } else if (sql_parser_word_is(p, t, "MAP")) {
        sql_type key, value;
        p_advance(p);
        P_TRY(sql_parser_expect(p, SQL_TOK_LT));
        P_TRY(sql_parser_type(p, &key));
        P_TRY(sql_parser_expect(p, SQL_TOK_COMMA));
        P_TRY(sql_parser_type(p, &value));
        P_TRY(expect_close_angle(p));
        out->type = col_type_map(p->a, key.type, value.type, 1);
        if (out->type == NULL)
            return err_nomem(p->err);
    } else if (sql_parser_word_is(p, t, "STRUCT")) {
        p_advance(p);
        P_TRY(struct_type(p, out));
    } else {
        P_TRY(tsql_type(p, t, out, &handled));
        if (handled) {
            p_leave(p);
            return SILT_OK;
        }
        out->type = primitive_type(p, t, &out->is_char);
        if (out->type == NULL)
            return sql_parser_error_at(p, t->off,
                              "[UNSUPPORTED_DATATYPE] Unsupported data type \"%.*s\"",
                              (int)(t->len > 64 ? 64 : t->len), p->text + t->off);
        p_advance(p);
        if (out->is_char) {
            P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
            if (sql_parser_accept_kw(p, "MAX"))
                out->is_char = 0; /* T-SQL's varchar(max): a string of any length */
            else
                P_TRY(type_int_param(p, &out->char_len));
            P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
        }
    }
    p_leave(p);
    return SILT_OK;
}

/* ------------------------------------------------------------------ windows */

static silt_status frame_bound(parser *p, sql_frame_bound *out)
{
    if (sql_parser_accept_kw(p, "UNBOUNDED")) {
        if (sql_parser_accept_kw(p, "PRECEDING"))
            out->kind = SQL_BOUND_UNBOUNDED_PRECEDING;
        else if (sql_parser_accept_kw(p, "FOLLOWING"))
            out->kind = SQL_BOUND_UNBOUNDED_FOLLOWING;
        else
            return sql_parser_fail(p, "expected PRECEDING or FOLLOWING");
        return SILT_OK;
    }
    if (sql_parser_accept_kw(p, "CURRENT")) {
        P_TRY(sql_parser_expect_kw(p, "ROW"));
        out->kind = SQL_BOUND_CURRENT_ROW;
        return SILT_OK;
    }
    P_TRY(sql_parser_expr(p, &out->offset));
    if (sql_parser_accept_kw(p, "PRECEDING"))
        out->kind = SQL_BOUND_PRECEDING;
    else if (sql_parser_accept_kw(p, "FOLLOWING"))
        out->kind = SQL_BOUND_FOLLOWING;
    else
        return sql_parser_fail(p, "expected PRECEDING or FOLLOWING");
    return SILT_OK;
}

/* ( [name] [PARTITION BY ...] [ORDER BY ...] [ROWS|RANGE frame] ) */
silt_status sql_parser_window_spec(parser *p, sql_window **out)
{
    sql_window *w = sql_parser_alloc(p, sizeof(*w));
    if (w == NULL)
        return SILT_NOMEM;
    w->pos = p_tok(p)->off;
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    if (sql_parser_at_ident(p) && !sql_parser_kw(p, "PARTITION") && !sql_parser_kw(p, "DISTRIBUTE") && !sql_parser_kw(p, "ORDER") &&
        !sql_parser_kw(p, "SORT") && !sql_parser_kw(p, "ROWS") && !sql_parser_kw(p, "RANGE")) {
        sql_ident base;
        P_TRY(sql_parser_ident(p, &base));
        w->base_name = base.name;
    }
    if (sql_parser_kw(p, "PARTITION") || sql_parser_kw(p, "DISTRIBUTE")) {
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "BY"));
        P_TRY(sql_parser_expr_list(p, &w->partition_by));
    }
    if (sql_parser_kw(p, "ORDER") || sql_parser_kw(p, "SORT")) {
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "BY"));
        P_TRY(sql_parser_order_list(p, &w->order_by));
    }
    if (sql_parser_kw(p, "ROWS") || sql_parser_kw(p, "RANGE")) {
        w->frame = sql_parser_kw(p, "ROWS") ? 1 : 2;
        p_advance(p);
        if (sql_parser_accept_kw(p, "BETWEEN")) {
            P_TRY(frame_bound(p, &w->start));
            P_TRY(sql_parser_expect_kw(p, "AND"));
            P_TRY(frame_bound(p, &w->end));
        } else {
            P_TRY(frame_bound(p, &w->start));
        }
    }
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    *out = w;
    return SILT_OK;
}

silt_status sql_parser_order_list(parser *p, sql_order_list *out)
{
    size_t cap = 0;
    memset(out, 0, sizeof(*out));
    do {
        sql_order_item *item;
        P_TRY(sql_parser_grow(p, (void **)&out->items, &out->n, &cap, sizeof(*item)));
        item = &out->items[out->n - 1];
        P_TRY(sql_parser_expr(p, &item->expr));
        if (sql_parser_accept_kw(p, "DESC"))
            item->desc = 1;
        else
            sql_parser_accept_kw(p, "ASC");
        if (sql_parser_accept_kw(p, "NULLS")) {
            if (sql_parser_accept_kw(p, "FIRST"))
                item->nulls = 1;
            else if (sql_parser_accept_kw(p, "LAST"))
                item->nulls = 2;
            else
                return sql_parser_fail(p, "expected FIRST or LAST");
        }
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return SILT_OK;
}

/* ------------------------------------------------------------------ primaries */

silt_status sql_parser_expr_list(parser *p, sql_expr_list *out)
{
    size_t cap = 0;
    memset(out, 0, sizeof(*out));
    do {
        P_TRY(sql_parser_grow(p, (void **)&out->items, &out->n, &cap, sizeof(sql_expr *)));
        P_TRY(sql_parser_expr(p, &out->items[out->n - 1]));
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    return SILT_OK;
}

/* Is the current '(' the start of a lambda parameter list "(a, b) ->"? */
static int at_paren_lambda(const parser *p)
{
    size_t ahead = 1;
    for (;;) {
        const sql_token *t = p_peek(p, ahead);
        if (t->kind != SQL_TOK_WORD && t->kind != SQL_TOK_QUOTED)
            return 0;
        t = p_peek(p, ahead + 1);
        if (t->kind == SQL_TOK_RPAREN)
            return p_peek(p, ahead + 2)->kind == SQL_TOK_ARROW;
        if (t->kind != SQL_TOK_COMMA)
            return 0;
        ahead += 2;
    }
}

static silt_status lambda(parser *p, sql_expr **out)
{
    sql_expr *e;
    P_TRY(expr_new(p, SQL_EXPR_LAMBDA, p_tok(p)->off, &e));
    if (p_is(p, SQL_TOK_LPAREN)) {
        P_TRY(sql_parser_ident_list_paren(p, &e->u.lambda.params));
    } else {
        e->u.lambda.params.items = sql_parser_alloc(p, sizeof(sql_ident));
        if (e->u.lambda.params.items == NULL)
            return SILT_NOMEM;
        e->u.lambda.params.n = 1;
        P_TRY(sql_parser_ident(p, &e->u.lambda.params.items[0]));
    }
    P_TRY(sql_parser_expect(p, SQL_TOK_ARROW));
    P_TRY(sql_parser_expr(p, &e->u.lambda.body));
    *out = e;
    return SILT_OK;
}

/* Function arguments after '(' up to and including ')'. */
static silt_status func_args(parser *p, sql_expr *e)
{
    size_t cap = 0;
    if (sql_parser_accept(p, SQL_TOK_RPAREN))
        return SILT_OK;
    if (p_is(p, SQL_TOK_STAR) && p_peek(p, 1)->kind == SQL_TOK_RPAREN) {
        e->u.func.star = 1;
        p_advance(p);
        p_advance(p);
        return SILT_OK;
    }
    if (sql_parser_accept_kw(p, "DISTINCT"))
        e->u.func.distinct = 1;
    else
        sql_parser_accept_kw(p, "ALL");
    do {
        sql_expr **slot;
        P_TRY(sql_parser_grow(p, (void **)&e->u.func.args.items, &e->u.func.args.n, &cap,
                     sizeof(sql_expr *)));
        slot = &e->u.func.args.items[e->u.func.args.n - 1];
        if (sql_parser_at_ident(p) && p_peek(p, 1)->kind == SQL_TOK_FATARROW) {
            sql_expr *named;
            P_TRY(expr_new(p, SQL_EXPR_NAMED_ARG, p_tok(p)->off, &named));
            P_TRY(sql_parser_ident(p, &named->u.named.name));
            p_advance(p);
            P_TRY(sql_parser_expr(p, &named->u.named.value));
            *slot = named;
        } else {
            P_TRY(sql_parser_expr(p, slot));
            /* struct(1 AS a, x AS b): named fields, as Spark allows. */
            if (sql_parser_kw(p, "AS")) {
                sql_expr *alias;
                P_TRY(expr_new(p, SQL_EXPR_ALIAS, (*slot)->pos, &alias));
                p_advance(p);
                P_TRY(sql_parser_ident(p, &alias->u.named.name));
                alias->u.named.value = *slot;
                *slot = alias;
            }
        }
    } while (sql_parser_accept(p, SQL_TOK_COMMA));
    if (sql_parser_kw(p, "IGNORE") || sql_parser_kw(p, "RESPECT")) {
        e->u.func.nulls = sql_parser_kw(p, "IGNORE") ? 1 : 2;
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "NULLS"));
    }
    return sql_parser_expect(p, SQL_TOK_RPAREN);
}

/* A call whose name was parsed: args, IGNORE NULLS, FILTER, OVER. */
static silt_status func_call(parser *p, sql_name *name, sql_expr **out)
{
    sql_expr *e;
    P_TRY(expr_new(p, SQL_EXPR_FUNC, name->pos, &e));
    e->u.func.name = *name;
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    P_TRY(func_args(p, e));
    if ((sql_parser_kw(p, "IGNORE") || sql_parser_kw(p, "RESPECT")) && sql_parser_kw_at(p, 1, "NULLS")) {
        e->u.func.nulls = sql_parser_kw(p, "IGNORE") ? 1 : 2;
        p_advance(p);
        p_advance(p);
    }
    if (sql_parser_kw(p, "FILTER") && p_peek(p, 1)->kind == SQL_TOK_LPAREN) {
        p_advance(p);
        p_advance(p);
        P_TRY(sql_parser_expect_kw(p, "WHERE"));
        P_TRY(sql_parser_expr(p, &e->u.func.filter));
        P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    }
    if (sql_parser_accept_kw(p, "OVER")) {
        if (p_is(p, SQL_TOK_LPAREN)) {
            P_TRY(sql_parser_window_spec(p, &e->u.func.over));
        } else {
            sql_ident w;
            P_TRY(sql_parser_ident(p, &w));
            e->u.func.over_name = w.name;
        }
    }
    *out = e;
    return SILT_OK;
}

static silt_status case_expr(parser *p, sql_expr **out)
{
    sql_expr *e;
    size_t cap = 0;
    P_TRY(expr_new(p, SQL_EXPR_CASE, p_tok(p)->off, &e));
    p_advance(p);
    if (!sql_parser_kw(p, "WHEN"))
        P_TRY(sql_parser_expr(p, &e->u.case_.operand));
    if (!sql_parser_kw(p, "WHEN"))
        return sql_parser_fail(p, "expected WHEN");
    while (sql_parser_accept_kw(p, "WHEN")) {
        sql_when *w;
        P_TRY(sql_parser_grow(p, (void **)&e->u.case_.whens, &e->u.case_.n_whens, &cap, sizeof(*w)));
        w = &e->u.case_.whens[e->u.case_.n_whens - 1];
        P_TRY(sql_parser_expr(p, &w->cond));
        P_TRY(sql_parser_expect_kw(p, "THEN"));
        P_TRY(sql_parser_expr(p, &w->result));
    }
    if (sql_parser_accept_kw(p, "ELSE"))
        P_TRY(sql_parser_expr(p, &e->u.case_.else_result));
    P_TRY(sql_parser_expect_kw(p, "END"));
    *out = e;
    return SILT_OK;
}

static silt_status cast_expr(parser *p, int is_try, sql_expr **out)
{
    sql_expr *e;
    P_TRY(expr_new(p, SQL_EXPR_CAST, p_tok(p)->off, &e));
    e->u.cast.is_try = (uint8_t)is_try;
    p_advance(p);
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    P_TRY(sql_parser_expr(p, &e->u.cast.arg));
    P_TRY(sql_parser_expect_kw(p, "AS"));
    P_TRY(sql_parser_type(p, &e->u.cast.type));
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    *out = e;
    return SILT_OK;
}

static silt_status extract_expr(parser *p, sql_expr **out)
{
    sql_expr *e;
    P_TRY(expr_new(p, SQL_EXPR_EXTRACT, p_tok(p)->off, &e));
    p_advance(p);
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    P_TRY(sql_parser_ident(p, &e->u.extract.field));
    P_TRY(sql_parser_expect_kw(p, "FROM"));
    P_TRY(sql_parser_expr(p, &e->u.extract.arg));
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    *out = e;
    return SILT_OK;
}

static silt_status subquery_expr(parser *p, sql_expr_kind kind, uint32_t pos, sql_expr **out)
{
    sql_expr *e;
    P_TRY(expr_new(p, kind, pos, &e));
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    P_TRY(sql_parser_query(p, &e->u.in.query));
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    *out = e;
    return SILT_OK;
}

/* '(' expr ')' | '(' query ')' | '(' a, b ')' | lambda */
static silt_status paren_expr(parser *p, sql_expr **out)
{
    uint32_t pos = p_tok(p)->off;
    sql_expr *first;
    sql_expr *row;
    size_t cap;
    if (at_paren_lambda(p))
        return lambda(p, out);
    if (p_peek(p, 1)->kind != SQL_TOK_LPAREN) {
        size_t save = p->i;
        p_advance(p);
        if (sql_parser_at_query(p)) {
            p->i = save;
            return subquery_expr(p, SQL_EXPR_SUBQUERY, pos, out);
        }
        p->i = save;
    }
    p_advance(p);
    P_TRY(sql_parser_expr(p, &first));
    if (sql_parser_accept(p, SQL_TOK_RPAREN)) {
        *out = first;
        return SILT_OK;
    }
    if (!p_is(p, SQL_TOK_COMMA))
        return sql_parser_fail(p, "expected ')'");
    P_TRY(expr_new(p, SQL_EXPR_ROW, pos, &row));
    cap = 0;
    P_TRY(sql_parser_grow(p, (void **)&row->u.row.items, &row->u.row.n, &cap, sizeof(sql_expr *)));
    row->u.row.items[0] = first;
    while (sql_parser_accept(p, SQL_TOK_COMMA)) {
        P_TRY(sql_parser_grow(p, (void **)&row->u.row.items, &row->u.row.n, &cap, sizeof(sql_expr *)));
        P_TRY(sql_parser_expr(p, &row->u.row.items[row->u.row.n - 1]));
    }
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    *out = row;
    return SILT_OK;
}

/*
 * Does the call whose name is the current token (its '(' next) have the
 * keyword at the top level of its arguments? Deciding this by a scan, before
 * parsing, keeps nested calls linear: parsing an argument and then parsing it
 * again on the other path would double the work at every nesting level.
 */
static int call_has_top_level_kw(const parser *p, const char *kw)
{
    int depth = 0;
    for (size_t idx = p->i + 1; idx < p->n_toks; idx++) {
        const sql_token *t = &p->toks[idx];
        if (t->kind == SQL_TOK_LPAREN || t->kind == SQL_TOK_LBRACKET)
            depth++;
        else if (t->kind == SQL_TOK_RPAREN || t->kind == SQL_TOK_RBRACKET)
            depth--;
        else if (t->kind == SQL_TOK_EOF || t->kind == SQL_TOK_SEMI)
            return 0;
        else if (depth == 1 && sql_parser_word_is(p, t, kw))
            return 1;
        if (depth <= 0)
            return 0;
    }
    return 0;
}

static silt_status add_arg(parser *p, sql_expr *e, size_t *cap, sql_expr *arg)
{
    P_TRY(sql_parser_grow(p, (void **)&e->u.func.args.items, &e->u.func.args.n, cap, sizeof(sql_expr *)));
    e->u.func.args.items[e->u.func.args.n - 1] = arg;
    return SILT_OK;
}

/*
 * SUBSTRING(s FROM pos [FOR len]) is substring(s, pos[, len]) and
 * POSITION(sub IN s) is position(sub, s); their operands are value
 * expressions (no predicates), as in Spark's grammar. With commas they are
 * plain calls (*handled = 0 leaves them to the name path).
 */
static silt_status keyword_args_call(parser *p, sql_expr **out, int *handled)
{
    int is_position = sql_parser_kw(p, "POSITION");
    sql_expr *e;
    sql_expr *arg;
    size_t cap = 0;
    if (!call_has_top_level_kw(p, is_position ? "IN" : "FROM")) {
        *handled = 0;
        return SILT_OK;
    }
    P_TRY(expr_new(p, SQL_EXPR_FUNC, p_tok(p)->off, &e));
    P_TRY(sql_parser_name(p, &e->u.func.name));
    p_advance(p);
    P_TRY(binary_expr(p, 1, &arg));
    P_TRY(add_arg(p, e, &cap, arg));
    P_TRY(sql_parser_expect_kw(p, is_position ? "IN" : "FROM"));
    P_TRY(binary_expr(p, 1, &arg));
    P_TRY(add_arg(p, e, &cap, arg));
    if (!is_position && sql_parser_accept_kw(p, "FOR")) {
        P_TRY(binary_expr(p, 1, &arg));
        P_TRY(add_arg(p, e, &cap, arg));
    }
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    *out = e;
    return SILT_OK;
}

/* TRIM( [BOTH|LEADING|TRAILING] [chars] FROM str ); a plain trim(x) is left to the name path. */
static silt_status trim_call(parser *p, sql_expr **out, int *handled)
{
    sql_expr *e;
    sql_expr *chars = NULL;
    sql_expr *str;
    size_t cap = 0;
    const sql_token *side = p_peek(p, 2);
    int trim = sql_parser_word_is(p, side, "BOTH") ? 1 : sql_parser_word_is(p, side, "LEADING") ? 2
               : sql_parser_word_is(p, side, "TRAILING") ? 3 : 0;
    if (trim == 0 && !call_has_top_level_kw(p, "FROM")) {
        *handled = 0;
        return SILT_OK;
    }
    P_TRY(expr_new(p, SQL_EXPR_FUNC, p_tok(p)->off, &e));
    P_TRY(sql_parser_name(p, &e->u.func.name));
    p_advance(p);
    if (trim != 0)
        p_advance(p);
    e->u.func.trim = (uint8_t)(trim != 0 ? trim : 1);
    if (!sql_parser_kw(p, "FROM"))
        P_TRY(binary_expr(p, 1, &chars));
    P_TRY(sql_parser_expect_kw(p, "FROM"));
    P_TRY(binary_expr(p, 1, &str));
    P_TRY(add_arg(p, e, &cap, str));
    if (chars != NULL)
        P_TRY(add_arg(p, e, &cap, chars));
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    *out = e;
    return SILT_OK;
}

/* Keywords that start a literal or special form when followed by what they need. */
static silt_status keyword_primary(parser *p, int *handled, sql_expr **out)
{
    const sql_token *next = p_peek(p, 1);
    *handled = 1;
    if (sql_parser_kw(p, "NULL") || sql_parser_kw(p, "TRUE") || sql_parser_kw(p, "FALSE")) {
        sql_expr *e;
        P_TRY(expr_new(p, SQL_EXPR_LITERAL, p_tok(p)->off, &e));
        e->u.lit.kind = sql_parser_kw(p, "NULL") ? SQL_LIT_NULL : SQL_LIT_BOOL;
        e->u.lit.i64 = sql_parser_kw(p, "TRUE");
        p_advance(p);
        *out = e;
        return SILT_OK;
    }
    if (sql_parser_kw(p, "CASE"))
        return case_expr(p, out);
    if ((sql_parser_kw(p, "CAST") || sql_parser_kw(p, "TRY_CAST")) && next->kind == SQL_TOK_LPAREN)
        return cast_expr(p, sql_parser_kw(p, "TRY_CAST"), out);
    if (sql_parser_kw(p, "EXTRACT") && next->kind == SQL_TOK_LPAREN)
        return extract_expr(p, out);
    if (sql_parser_kw(p, "EXISTS") && next->kind == SQL_TOK_LPAREN) {
        /* EXISTS (query) is a predicate; exists(array, x -> ...) a function. */
        uint32_t pos = p_tok(p)->off;
        size_t save = p->i;
        int is_query;
        p_advance(p);
        p_advance(p);
        is_query = sql_parser_at_query(p);
        p->i = save + 1;
        if (is_query)
            return subquery_expr(p, SQL_EXPR_EXISTS, pos, out);
        p->i = save;
        *handled = 0;
        return SILT_OK;
    }
    /* SQL-standard argument syntax of two functions, mapped to their plain calls. */
    if (sql_parser_kw(p, "TRIM") && next->kind == SQL_TOK_LPAREN) {
        P_TRY(trim_call(p, out, handled));
        if (*handled)
            return SILT_OK;
        *handled = 1;
    }
    if ((sql_parser_kw(p, "SUBSTRING") || sql_parser_kw(p, "SUBSTR") || sql_parser_kw(p, "POSITION")) &&
        next->kind == SQL_TOK_LPAREN)
        return keyword_args_call(p, out, handled);
    /* left(s, n) and right(s, n) are functions although LEFT and RIGHT are reserved. */
    if ((sql_parser_kw(p, "LEFT") || sql_parser_kw(p, "RIGHT")) && next->kind == SQL_TOK_LPAREN) {
        sql_name name;
        memset(&name, 0, sizeof(name));
        name.pos = p_tok(p)->off;
        name.n_parts = 1;
        name.parts = sql_parser_alloc(p, sizeof(sql_ident));
        if (name.parts == NULL)
            return SILT_NOMEM;
        name.parts[0].pos = name.pos;
        name.parts[0].name = sql_parser_strndup(p, p->text + p_tok(p)->off, p_tok(p)->len);
        if (name.parts[0].name == NULL)
            return SILT_NOMEM;
        p_advance(p);
        return func_call(p, &name, out);
    }
    if (p_is_string_kind(next->kind)) {
        if (sql_parser_kw(p, "DATE"))
            return typed_literal(p, SQL_LIT_DATE, "DATE", out);
        if (sql_parser_kw(p, "TIMESTAMP") || sql_parser_kw(p, "TIMESTAMP_LTZ"))
            return typed_literal(p, SQL_LIT_TIMESTAMP, "TIMESTAMP", out);
        if (sql_parser_kw(p, "TIMESTAMP_NTZ"))
            return typed_literal(p, SQL_LIT_TIMESTAMP_NTZ, "TIMESTAMP_NTZ", out);
    }
    if (sql_parser_kw(p, "INTERVAL") &&
        (p_is_string_kind(next->kind) || next->kind == SQL_TOK_NUMBER ||
         next->kind == SQL_TOK_MINUS || next->kind == SQL_TOK_PLUS))
        return interval_literal(p, out);
    /* Niladic functions Spark allows without parentheses. */
    if ((sql_parser_kw(p, "CURRENT_DATE") || sql_parser_kw(p, "CURRENT_TIMESTAMP") || sql_parser_kw(p, "CURRENT_USER")) &&
        next->kind != SQL_TOK_LPAREN) {
        sql_expr *e;
        P_TRY(expr_new(p, SQL_EXPR_FUNC, p_tok(p)->off, &e));
        P_TRY(sql_parser_name(p, &e->u.func.name));
        *out = e;
        return SILT_OK;
    }
    *handled = 0;
    return SILT_OK;
}

/* A name: column, t.*, function call, or lambda parameter. */
static silt_status name_primary(parser *p, sql_expr **out)
{
    sql_name name;
    size_t cap = 0;
    sql_expr *e;
    if (p_peek(p, 1)->kind == SQL_TOK_ARROW)
        return lambda(p, out);
    memset(&name, 0, sizeof(name));
    name.pos = p_tok(p)->off;
    for (;;) {
        P_TRY(sql_parser_grow(p, (void **)&name.parts, &name.n_parts, &cap, sizeof(sql_ident)));
        if (name.n_parts == 1)
            P_TRY(sql_parser_ident(p, &name.parts[0]));
        else
            P_TRY(sql_parser_ident_after_dot(p, &name.parts[name.n_parts - 1]));
        if (!p_is(p, SQL_TOK_DOT))
            break;
        if (p_peek(p, 1)->kind == SQL_TOK_STAR) {
            p_advance(p);
            p_advance(p);
            P_TRY(expr_new(p, SQL_EXPR_STAR, name.pos, &e));
            e->u.column = name;
            *out = e;
            return SILT_OK;
        }
        if (p_peek(p, 1)->kind != SQL_TOK_WORD && p_peek(p, 1)->kind != SQL_TOK_QUOTED)
            break;
        p_advance(p);
    }
    if (p_is(p, SQL_TOK_LPAREN))
        return func_call(p, &name, out);
    P_TRY(expr_new(p, SQL_EXPR_COLUMN, name.pos, &e));
    e->u.column = name;
    *out = e;
    return SILT_OK;
}

static silt_status primary(parser *p, sql_expr **out)
{
    const sql_token *t = p_tok(p);
    int handled = 0;
    switch ((sql_tok_kind)t->kind) {
    case SQL_TOK_NUMBER:
        return number_literal(p, out, 0, t->off);
    case SQL_TOK_STRING:
    case SQL_TOK_RAW_STRING: {
        sql_expr *e;
        P_TRY(expr_new(p, SQL_EXPR_LITERAL, t->off, &e));
        e->u.lit.kind = SQL_LIT_STRING;
        P_TRY(sql_parser_string(p, &e->u.lit.str, &e->u.lit.str_len));
        *out = e;
        return SILT_OK;
    }
    case SQL_TOK_BINARY:
        return binary_literal(p, out);
    case SQL_TOK_LPAREN:
        return paren_expr(p, out);
    case SQL_TOK_STAR: {
        sql_expr *e;
        P_TRY(expr_new(p, SQL_EXPR_STAR, t->off, &e));
        p_advance(p);
        *out = e;
        return SILT_OK;
    }
    case SQL_TOK_QUESTION: {
        sql_expr *e;
        P_TRY(expr_new(p, SQL_EXPR_PARAM, t->off, &e));
        P_TRY(sql_parser_note_marker(p, t->off, NULL));
        p_advance(p);
        *out = e;
        return SILT_OK;
    }
    case SQL_TOK_COLON:
        if (p_peek(p, 1)->kind == SQL_TOK_WORD && !p_peek(p, 1)->space_before) {
            sql_expr *e;
            sql_ident id;
            P_TRY(expr_new(p, SQL_EXPR_PARAM, t->off, &e));
            p_advance(p);
            P_TRY(sql_parser_ident(p, &id));
            e->u.param.name = id.name;
            P_TRY(sql_parser_note_marker(p, e->pos, id.name));
            *out = e;
            return SILT_OK;
        }
        break;
    case SQL_TOK_WORD:
        P_TRY(keyword_primary(p, &handled, out));
        if (handled)
            return SILT_OK;
        return name_primary(p, out);
    case SQL_TOK_QUOTED:
        return name_primary(p, out);
    default:
        break;
    }
    return sql_parser_fail(p, "expected an expression");
}

/* Postfix operators: x::type, x.field, x[index]. */
static silt_status postfix(parser *p, sql_expr **out)
{
    sql_expr *e;
    P_TRY(primary(p, &e));
    for (;;) {
        sql_expr *n;
        if (p_is(p, SQL_TOK_DCOLON)) {
            P_TRY(expr_new(p, SQL_EXPR_CAST, p_tok(p)->off, &n));
            p_advance(p);
            n->u.cast.arg = e;
            P_TRY(sql_parser_type(p, &n->u.cast.type));
        } else if (p_is(p, SQL_TOK_LBRACKET)) {
            P_TRY(expr_new(p, SQL_EXPR_SUBSCRIPT, p_tok(p)->off, &n));
            p_advance(p);
            n->u.access.base = e;
            P_TRY(sql_parser_expr(p, &n->u.access.index));
            P_TRY(sql_parser_expect(p, SQL_TOK_RBRACKET));
        } else if (p_is(p, SQL_TOK_DOT) && (p_peek(p, 1)->kind == SQL_TOK_WORD ||
                                            p_peek(p, 1)->kind == SQL_TOK_QUOTED)) {
            P_TRY(expr_new(p, SQL_EXPR_FIELD, p_tok(p)->off, &n));
            p_advance(p);
            n->u.access.base = e;
            P_TRY(sql_parser_ident_after_dot(p, &n->u.access.field));
        } else {
            break;
        }
        e = n;
    }
    *out = e;
    return SILT_OK;
}

static silt_status unary(parser *p, sql_expr **out)
{
    const sql_token *t = p_tok(p);
    sql_op op = SQL_OP_NONE;
    sql_expr *e;
    if (t->kind == SQL_TOK_MINUS)
        op = SQL_OP_NEG;
    else if (t->kind == SQL_TOK_PLUS)
        op = SQL_OP_PLUS;
    else if (t->kind == SQL_TOK_TILDE)
        op = SQL_OP_BITNOT;
    if (op == SQL_OP_NONE)
        return postfix(p, out);
    /* -128Y: fold the sign into the literal so that its range is checked as written. */
    if (op == SQL_OP_NEG && p_peek(p, 1)->kind == SQL_TOK_NUMBER) {
        p_advance(p);
        P_TRY(number_literal(p, &e, 1, t->off));
        *out = e;
        return SILT_OK;
    }
    P_TRY(sql_parser_enter(p));
    P_TRY(expr_new(p, SQL_EXPR_UNARY, t->off, &e));
    p_advance(p);
    e->u.op.op = op;
    P_TRY(unary(p, &e->u.op.left));
    p_leave(p);
    *out = e;
    return SILT_OK;
}

/* Binary operator of the current token and its precedence (0: not one). */
static int binary_op(const parser *p, sql_op *op_out)
{
    switch ((sql_tok_kind)p_tok(p)->kind) {
    case SQL_TOK_EQ: case SQL_TOK_EQEQ: *op_out = SQL_OP_EQ; return 1;
    case SQL_TOK_NEQ: *op_out = SQL_OP_NEQ; return 1;
    case SQL_TOK_LT: *op_out = SQL_OP_LT; return 1;
    case SQL_TOK_LE: *op_out = SQL_OP_LE; return 1;
    case SQL_TOK_GT: *op_out = SQL_OP_GT; return 1;
    case SQL_TOK_GE: *op_out = SQL_OP_GE; return 1;
    case SQL_TOK_NSEQ: *op_out = SQL_OP_NSEQ; return 1;
    case SQL_TOK_PIPE: *op_out = SQL_OP_BITOR; return 2;
    case SQL_TOK_CARET: *op_out = SQL_OP_BITXOR; return 3;
    case SQL_TOK_AMP: *op_out = SQL_OP_BITAND; return 4;
    case SQL_TOK_SHL: *op_out = SQL_OP_SHL; return 5;
    case SQL_TOK_SHR: *op_out = SQL_OP_SHR; return 5;
    case SQL_TOK_USHR: *op_out = SQL_OP_USHR; return 5;
    case SQL_TOK_PLUS: *op_out = SQL_OP_ADD; return 6;
    case SQL_TOK_MINUS: *op_out = SQL_OP_SUB; return 6;
    case SQL_TOK_CONCAT: *op_out = SQL_OP_CONCAT; return 6;
    case SQL_TOK_STAR: *op_out = SQL_OP_MUL; return 7;
    case SQL_TOK_SLASH: *op_out = SQL_OP_DIV; return 7;
    case SQL_TOK_PERCENT: *op_out = SQL_OP_MOD; return 7;
    case SQL_TOK_WORD:
        if (sql_parser_kw(p, "DIV")) {
            *op_out = SQL_OP_INTDIV;
            return 7;
        }
        return 0;
    default:
        return 0;
    }
}

/* Precedence climbing over the binary levels (comparison = 1 ... multiplicative = 7). */
static silt_status binary_expr(parser *p, int min_prec, sql_expr **out)
{
    sql_expr *left;
    sql_op op;
    int prec;
    P_TRY(unary(p, &left));
    while ((prec = binary_op(p, &op)) >= min_prec && prec > 0) {
        sql_expr *e;
        P_TRY(sql_parser_enter(p));
        P_TRY(expr_new(p, SQL_EXPR_BINARY, left->pos, &e));
        p_advance(p);
        e->u.op.op = op;
        e->u.op.left = left;
        P_TRY(binary_expr(p, prec + 1, &e->u.op.right));
        p_leave(p);
        left = e;
    }
    *out = left;
    return SILT_OK;
}

static silt_status like_pred(parser *p, sql_expr *arg, int negated, uint32_t pos, sql_expr **out)
{
    sql_expr *e;
    P_TRY(expr_new(p, SQL_EXPR_LIKE, pos, &e));
    e->u.like.arg = arg;
    e->u.like.negated = (uint8_t)negated;
    e->u.like.like = sql_parser_kw(p, "LIKE") ? SQL_LIKE : sql_parser_kw(p, "ILIKE") ? SQL_ILIKE : SQL_RLIKE;
    p_advance(p);
    if (e->u.like.like != SQL_RLIKE && (sql_parser_kw(p, "ANY") || sql_parser_kw(p, "SOME") || sql_parser_kw(p, "ALL")) &&
        p_peek(p, 1)->kind == SQL_TOK_LPAREN) {
        e->u.like.quant = sql_parser_kw(p, "ALL") ? SQL_QUANT_ALL : SQL_QUANT_ANY;
        p_advance(p);
        p_advance(p);
        P_TRY(sql_parser_expr_list(p, &e->u.like.patterns));
        P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    } else {
        e->u.like.patterns.items = sql_parser_alloc(p, sizeof(sql_expr *));
        if (e->u.like.patterns.items == NULL)
            return SILT_NOMEM;
        e->u.like.patterns.n = 1;
        P_TRY(binary_expr(p, 1, &e->u.like.patterns.items[0]));
    }
    if (sql_parser_accept_kw(p, "ESCAPE"))
        P_TRY(primary(p, &e->u.like.escape));
    *out = e;
    return SILT_OK;
}

static silt_status is_pred(parser *p, sql_expr *arg, uint32_t pos, sql_expr **out)
{
    sql_expr *e;
    int negated;
    p_advance(p);
    negated = sql_parser_accept_kw(p, "NOT");
    if (sql_parser_accept_kw(p, "DISTINCT")) {
        P_TRY(sql_parser_expect_kw(p, "FROM"));
        P_TRY(expr_new(p, SQL_EXPR_BINARY, pos, &e));
        e->u.op.op = negated ? SQL_OP_NSEQ : SQL_OP_DISTINCT_FROM;
        e->u.op.left = arg;
        P_TRY(binary_expr(p, 1, &e->u.op.right));
        *out = e;
        return SILT_OK;
    }
    P_TRY(expr_new(p, SQL_EXPR_IS, pos, &e));
    e->u.is.arg = arg;
    e->u.is.negated = (uint8_t)negated;
    if (sql_parser_accept_kw(p, "NULL"))
        e->u.is.what = SQL_IS_NULL;
    else if (sql_parser_accept_kw(p, "TRUE"))
        e->u.is.what = SQL_IS_TRUE;
    else if (sql_parser_accept_kw(p, "FALSE"))
        e->u.is.what = SQL_IS_FALSE;
    else if (sql_parser_accept_kw(p, "UNKNOWN"))
        e->u.is.what = SQL_IS_UNKNOWN;
    else
        return sql_parser_fail(p, "expected NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS");
    *out = e;
    return SILT_OK;
}

static silt_status in_pred(parser *p, sql_expr *arg, int negated, uint32_t pos, sql_expr **out)
{
    sql_expr *e;
    p_advance(p);
    P_TRY(sql_parser_expect(p, SQL_TOK_LPAREN));
    if (sql_parser_at_query(p)) {
        P_TRY(expr_new(p, SQL_EXPR_IN_QUERY, pos, &e));
        P_TRY(sql_parser_query(p, &e->u.in.query));
    } else {
        P_TRY(expr_new(p, SQL_EXPR_IN_LIST, pos, &e));
        P_TRY(sql_parser_expr_list(p, &e->u.in.list));
    }
    P_TRY(sql_parser_expect(p, SQL_TOK_RPAREN));
    e->u.in.arg = arg;
    e->u.in.negated = (uint8_t)negated;
    *out = e;
    return SILT_OK;
}

/* value [NOT] BETWEEN/IN/LIKE/..., value IS ... */
static silt_status predicate(parser *p, sql_expr **out)
{
    sql_expr *arg;
    P_TRY(binary_expr(p, 1, &arg));
    for (;;) {
        uint32_t pos = arg->pos;
        int negated = 0;
        size_t save = p->i;
        if (sql_parser_kw(p, "IS")) {
            P_TRY(is_pred(p, arg, pos, &arg));
            continue;
        }
        if (sql_parser_kw(p, "NOT") || p_is(p, SQL_TOK_BANG)) {
            negated = 1;
            p_advance(p);
        }
        if (sql_parser_kw(p, "BETWEEN")) {
            sql_expr *e;
            P_TRY(expr_new(p, SQL_EXPR_BETWEEN, pos, &e));
            p_advance(p);
            e->u.between.arg = arg;
            e->u.between.negated = (uint8_t)negated;
            P_TRY(binary_expr(p, 1, &e->u.between.low));
            P_TRY(sql_parser_expect_kw(p, "AND"));
            P_TRY(binary_expr(p, 1, &e->u.between.high));
            arg = e;
        } else if (sql_parser_kw(p, "IN")) {
            P_TRY(in_pred(p, arg, negated, pos, &arg));
        } else if (sql_parser_kw(p, "LIKE") || sql_parser_kw(p, "ILIKE") || sql_parser_kw(p, "RLIKE") ||
                   sql_parser_kw(p, "REGEXP")) {
            P_TRY(like_pred(p, arg, negated, pos, &arg));
        } else {
            p->i = save;
            break;
        }
    }
    *out = arg;
    return SILT_OK;
}

static silt_status not_expr(parser *p, sql_expr **out)
{
    sql_expr *e;
    if (!sql_parser_kw(p, "NOT") && !p_is(p, SQL_TOK_BANG))
        return predicate(p, out);
    P_TRY(sql_parser_enter(p));
    P_TRY(expr_new(p, SQL_EXPR_UNARY, p_tok(p)->off, &e));
    p_advance(p);
    e->u.op.op = SQL_OP_NOT;
    P_TRY(not_expr(p, &e->u.op.left));
    p_leave(p);
    *out = e;
    return SILT_OK;
}

static silt_status bool_level(parser *p, int is_or, sql_expr **out)
{
    sql_expr *left;
    P_TRY(is_or ? bool_level(p, 0, &left) : not_expr(p, &left));
    while (sql_parser_kw(p, is_or ? "OR" : "AND")) {
        sql_expr *e;
        P_TRY(expr_new(p, SQL_EXPR_BINARY, left->pos, &e));
        p_advance(p);
        e->u.op.op = is_or ? SQL_OP_OR : SQL_OP_AND;
        e->u.op.left = left;
        P_TRY(is_or ? bool_level(p, 0, &e->u.op.right) : not_expr(p, &e->u.op.right));
        left = e;
    }
    *out = left;
    return SILT_OK;
}

silt_status sql_parser_expr(parser *p, sql_expr **out)
{
    P_TRY(sql_parser_enter(p));
    P_TRY(bool_level(p, 1, out));
    p_leave(p);
    return SILT_OK;
}

/* A property or option value: string (decoded), number, boolean, or a bare word. */
silt_status sql_parser_literal_text(parser *p, const char **out)
{
    const sql_token *t = p_tok(p);
    int negative = 0;
    if (p_is_string_kind(t->kind))
        return sql_parser_string_one(p, out);
    if (t->kind == SQL_TOK_MINUS && p_peek(p, 1)->kind == SQL_TOK_NUMBER) {
        negative = 1;
        p_advance(p);
        t = p_tok(p);
    }
    if (t->kind == SQL_TOK_NUMBER) {
        *out = arena_sprintf(p->a, "%s%.*s", negative ? "-" : "", (int)t->len, p->text + t->off);
    } else if (sql_parser_kw(p, "TRUE") || sql_parser_kw(p, "FALSE")) {
        *out = sql_parser_kw(p, "TRUE") ? "true" : "false";
    } else if (t->kind == SQL_TOK_WORD) {
        *out = sql_parser_strndup(p, p->text + t->off, t->len);
    } else {
        return sql_parser_fail(p, "expected a value (a string, number or boolean)");
    }
    if (*out == NULL)
        return err_nomem(p->err);
    p_advance(p);
    return SILT_OK;
}
