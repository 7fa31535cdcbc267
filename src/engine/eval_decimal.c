/*
 * eval_decimal.c - 128-bit decimal helpers: rescaling with HALF_UP
 * rounding (Spark's rounding for decimal casts and arithmetic), precision
 * checks, text formatting and parsing.
 */
#include "engine/expr.h"

#include <string.h>

#define E18 ((col_int128)1000000000000000000LL)

const col_int128 expr_pow10[39] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
    10000000000LL, 100000000000LL, 1000000000000LL, 10000000000000LL, 100000000000000LL,
    1000000000000000LL, 10000000000000000LL, 100000000000000000LL, 1000000000000000000LL,
    E18 * 10, E18 * 100, E18 * 1000, E18 * 10000, E18 * 100000, E18 * 1000000,
    E18 * 10000000, E18 * 100000000, E18 * 1000000000, E18 * 10000000000LL,
    E18 * 100000000000LL, E18 * 1000000000000LL, E18 * 10000000000000LL,
    E18 * 100000000000000LL, E18 * 1000000000000000LL, E18 * 10000000000000000LL,
    E18 * 100000000000000000LL, E18 * E18, E18 * E18 * 10, E18 * E18 * 100,
};

int engine_dec_fits(col_int128 x, int32_t precision)
{
    if (precision < 1 || precision > 38)
        return 0;
    return x < expr_pow10[precision] && x > -expr_pow10[precision];
}

int engine_dec_rescale(col_int128 x, int32_t from, int32_t to, int32_t precision, col_int128 *out)
{
    if (to >= from) {
        int32_t shift = to - from;
        if (shift > 38 || __builtin_mul_overflow(x, expr_pow10[shift], &x))
            return 0;
    } else {
        int32_t shift = from - to;
        col_int128 div, q, rem;
        if (shift > 38) {
            x = 0;
        } else {
            div = expr_pow10[shift];
            q = x / div;
            rem = x % div;
            if (rem < 0)
                rem = -rem;
            if (rem * 2 >= div) /* HALF_UP: away from zero at .5 */
                q += x < 0 ? -1 : 1;
            x = q;
        }
    }
    if (!engine_dec_fits(x, precision))
        return 0;
    *out = x;
    return 1;
}

size_t engine_dec_format(col_int128 x, int32_t scale, char *out, size_t cap)
{
    char digits[48];
    size_t n = 0, len = 0, idx;
    unsigned __int128 u = x < 0 ? (unsigned __int128)(-(x + 1)) + 1 : (unsigned __int128)x;
    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u != 0);
    while ((int32_t)n <= scale)
        digits[n++] = '0';
    if (cap == 0)
        return 0;
    if (x < 0 && len + 1 < cap)
        out[len++] = '-';
    for (idx = n; idx > 0; idx--) {
        if ((int32_t)idx == scale && scale > 0 && len + 1 < cap)
            out[len++] = '.';
        if (len + 1 < cap)
            out[len++] = digits[idx - 1];
    }
    out[len] = 0;
    return len;
}

int engine_dec_parse(const char *s, size_t len, int32_t precision, int32_t scale, col_int128 *out)
{
    size_t pos = 0;
    int neg = 0, any = 0, overflow = 0;
    int32_t frac_digits = 0;
    int64_t exp = 0;
    col_int128 v = 0;
    int round_digit = -1; /* first digit dropped beyond 38 significant ones */
    while (pos < len && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r'))
        pos++;
    while (len > pos && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' ||
                         s[len - 1] == '\r'))
        len--;
    if (pos < len && (s[pos] == '+' || s[pos] == '-'))
        neg = s[pos++] == '-';
    for (; pos < len && s[pos] >= '0' && s[pos] <= '9'; pos++, any = 1) {
        if (!overflow && __builtin_mul_overflow(v, 10, &v))
            overflow = 1;
        if (!overflow)
            v += s[pos] - '0';
    }
    if (pos < len && s[pos] == '.') {
        for (pos++; pos < len && s[pos] >= '0' && s[pos] <= '9'; pos++, any = 1) {
            col_int128 t;
            if (overflow || frac_digits >= 38 || __builtin_mul_overflow(v, 10, &t)) {
                if (round_digit < 0)
                    round_digit = s[pos] - '0';
                continue;
            }
            v = t + (s[pos] - '0');
            frac_digits++;
        }
    }
    if (!any)
        return 0;
    if (pos < len && (s[pos] == 'e' || s[pos] == 'E')) {
        int eneg = 0, edig = 0;
        pos++;
        if (pos < len && (s[pos] == '+' || s[pos] == '-'))
            eneg = s[pos++] == '-';
        for (; pos < len && s[pos] >= '0' && s[pos] <= '9'; pos++, edig = 1)
            if (exp < 10000)
                exp = exp * 10 + (s[pos] - '0');
        if (!edig)
            return 0;
        if (eneg)
            exp = -exp;
    }
    if (pos != len)
        return 0;
    if (overflow)
        return -1;
    if (round_digit >= 5)
        v += 1;
    if (neg)
        v = -v;
    {
        int64_t cur = (int64_t)frac_digits - exp;
        if (cur > 1000)
            cur = 1000;
        if (cur < -1000)
            return -1;
        if (cur < 0) {
            if (!engine_dec_rescale(v, 0, (int32_t)-cur, 38, &v))
                return -1;
            cur = 0;
        }
        if (!engine_dec_rescale(v, (int32_t)cur, scale, precision, out))
            return -1;
    }
    return 1;
}
