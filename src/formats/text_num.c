/*
 * text_num.c - numbers as text: shortest round-trip digits of floats and
 * doubles in JavaScript and Java layouts, and 128-bit decimals.
 *
 * Shortest digits. ECMAScript Number::toString (and the conformance README)
 * asks for the fewest significant digits k such that the decimal reads back
 * as the same binary value, the closest such decimal when several exist.
 * We find k by bisection over 1..17 (1..9 for float): at precision q we
 * take the correctly rounded q-digit decimal from "%.*e" and, when it does
 * not read back, its neighbour on the other side of the value (near a
 * power of two the rounding interval is lopsided, so the farther neighbour
 * can round-trip when the nearer one does not). "Some q-digit decimal reads
 * back" is monotone in q, which is what makes bisection sound. This costs
 * a handful of snprintf/strtod calls per value (about 5 us), so two fast
 * paths come first: exact integers, and values whose shortest form has at
 * most 15 digits (9 for float) and |exponent| <= 20, decided with exact
 * IEEE arithmetic alone (shortest_fast, about 0.1 us). Checked during
 * development against Python's repr (doubles) and JDK 25's Float.toString
 * (floats) on 300,000 random and 300,000 short-decimal values each.
 * Rejected: Ryu/Grisu tables (a lot of code to get right for a printing
 * path); "%.17g" (not shortest: 0.1 would print as 0.10000000000000001).
 *
 * The C library is used in the "C" locale (silt never calls setlocale), so
 * the decimal point of snprintf/strtod is '.'.
 */
#include "formats/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/time.h"

/* Appends an integer's decimal digits ("-42"), as every text format writes it. */
static silt_status text_append_int(buf *out, int64_t value, silt_error *err);

/* value = 0.digits * 10^point, digits without leading or trailing zeros. */
typedef struct sdigits {
    char digits[24];
    int n_digits;
    int point;
} sdigits;

static int reads_back(const char *text, double value, int is_float)
{
    if (is_float)
        return strtof(text, NULL) == (float)value;
    return strtod(text, NULL) == value;
}

/*
 * The q-digit decimal candidates of value > 0 as a digit string and the
 * power of ten of its last digit; 1 when one of them reads back (the
 * nearer preferred), with the chosen one in digits/exp_out.
 */
static int candidate(double value, int q, int is_float, char *digits, int *exp_out)
{
    char text[48];
    int exp10, len, pos;
    double back;
    snprintf(text, sizeof(text), "%.*e", q - 1, value);
    /* text is "d.ddde[+-]xx" */
    digits[0] = text[0];
    len = 1;
    for (pos = 2; pos < q + 1; pos++)
        digits[len++] = text[pos];
    digits[len] = '\0';
    exp10 = (int)strtol(strchr(text, 'e') + 1, NULL, 10) - (q - 1);
    *exp_out = exp10;
    if (reads_back(text, value, is_float))
        return 1;
    /* The neighbour: one unit in the last place towards the other side. */
    back = is_float ? (double)strtof(text, NULL) : strtod(text, NULL);
    if (back < value) {
        for (pos = len - 1; pos >= 0 && digits[pos] == '9'; pos--)
            digits[pos] = '0';
        if (pos < 0) { /* 99..9 + 1 = 100..0: one digit shorter after trimming */
            memmove(digits + 1, digits, (size_t)len + 1);
            digits[0] = '1';
        } else {
            digits[pos]++;
        }
    } else {
        for (pos = len - 1; pos >= 0 && digits[pos] == '0'; pos--)
            digits[pos] = '9';
        if (pos < 0)
            return 0;
        digits[pos]--;
    }
    snprintf(text, sizeof(text), "%se%d", digits, exp10);
    return reads_back(text, value, is_float);
}

/* Normalises "digits * 10^exp10" into sdigits (strips zeros at both ends). */
static void set_digits(sdigits *out, const char *digits, int exp10)
{
    int len = (int)strlen(digits), start = 0;
    while (start < len - 1 && digits[start] == '0')
        start++;
    while (len - 1 > start && digits[len - 1] == '0') {
        len--;
        exp10++;
    }
    out->n_digits = len - start;
    memcpy(out->digits, digits + start, (size_t)out->n_digits);
    out->digits[out->n_digits] = '\0';
    out->point = out->n_digits + exp10;
}

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/*
 * Whether m * 10^-k (m < 2^53, |k| <= 22) reads back as value: 1 yes, 0 no,
 * -1 cannot tell. For a double this is exact: m and 10^|k| are exact
 * doubles, so IEEE division or multiplication rounds the exact decimal
 * correctly, as strtod does (Clinger's fast path). For a float the double
 * result is compared with the midpoints to the neighbouring floats (exact
 * doubles); landing on a midpoint is a tie we leave to the slow path.
 */
static int fast_reads_back(double m, int k, double value, int is_float, double lo_mid,
                           double hi_mid)
{
    double back = k >= 0 ? m / pow10_exact[k] : m * pow10_exact[-k];
    if (!is_float)
        return back == value;
    if (back == lo_mid || back == hi_mid)
        return -1;
    return back > lo_mid && back < hi_mid;
}

/*
 * Shortest digits without any formatting or parsing, for the common values
 * whose shortest form has at most 15 digits (9 for float) and a moderate
 * exponent: for q = 1, 2, ... take m = round(value * 10^k) with q digits
 * and its two neighbours (the scaling is inexact), and accept the first q
 * where exactly one of them reads back. Returns 0 when it cannot decide;
 * the caller then takes the slow path.
 */
static int shortest_fast(double value, int is_float, sdigits *out)
{
    double lo_mid = 0, hi_mid = 0;
    int e10, q, max_q = is_float ? 9 : 15;
    if (value < 1e-20 || value >= 1e20)
        return 0;
    if (is_float) {
        float f = (float)value;
        lo_mid = ((double)f + (double)nextafterf(f, 0.0f)) / 2;
        hi_mid = ((double)f + (double)nextafterf(f, INFINITY)) / 2;
    }
    /* log10 may be off by one next to a power of ten; then m just has a zero more or less. */
    e10 = (int)floor(log10(value));
    for (q = 1; q <= max_q; q++) {
        int k = q - 1 - e10, delta, found = 0, verdict;
        double scaled, m0, match = 0, match_dist = 0;
        if (k > 22 || k < -22)
            return 0;
        scaled = k >= 0 ? value * pow10_exact[k] : value / pow10_exact[-k];
        m0 = nearbyint(scaled);
        for (delta = -1; delta <= 1; delta++) {
            double m = m0 + delta, dist = fabs(scaled - m);
            if (m <= 0)
                continue;
            if (m >= 9007199254740992.0)
                return 0;
            verdict = fast_reads_back(m, k, value, is_float, lo_mid, hi_mid);
            if (verdict < 0)
                return 0;
            if (!verdict)
                continue;
            /*
             * Two q-digit decimals can read back as one float: take the
             * nearer (scaled is off by ~1e-7 units at most for 9 digits),
             * and leave a near tie to the slow path.
             */
            if (found > 0 && fabs(dist - match_dist) < 1e-6)
                return 0;
            if (found == 0 || dist < match_dist) {
                match = m;
                match_dist = dist;
            }
            found++;
        }
        if (found > 0) {
            char text[24], *pos = text + sizeof(text) - 1;
            uint64_t digits = (uint64_t)match;
            *pos = '\0';
            do {
                *--pos = (char)('0' + (int)(digits % 10));
                digits /= 10;
            } while (digits != 0);
            set_digits(out, pos, -k);
            return 1;
        }
    }
    return 0;
}

/* Shortest digits of a finite value > 0. */
static void shortest(double value, int is_float, sdigits *out)
{
    char digits[24], best[24];
    int lo = 1, hi = is_float ? 9 : 17, best_exp = 0, exp10;
    /*
     * Integers below 2^53 (2^24 for float) print as themselves: the spacing
     * of values there is at most 1, so no shorter decimal reads back.
     */
    if (value < (is_float ? 16777216.0 : 9007199254740992.0) &&
        value == floor(value)) {
        char text[24];
        snprintf(text, sizeof(text), "%.0f", value);
        set_digits(out, text, 0);
        return;
    }
    if (shortest_fast(value, is_float, out))
        return;
    /* hi always reads back (17 digits identify a double, 9 a float). */
    candidate(value, hi, is_float, best, &best_exp);
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (candidate(value, mid, is_float, digits, &exp10)) {
            memcpy(best, digits, sizeof(digits));
            best_exp = exp10;
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    set_digits(out, best, best_exp);
}

static size_t special(double value, char *out)
{
    const char *text = isnan(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
    size_t len = strlen(text);
    memcpy(out, text, len + 1);
    return len;
}

/* ECMAScript Number::toString layout of sign and digits (README: -0 is "-0"). */
static size_t layout_js(const sdigits *d, int negative, char *out)
{
    size_t len = 0;
    int k = d->n_digits, n = d->point, idx;
    if (negative)
        out[len++] = '-';
    if (k <= n && n <= 21) {
        memcpy(out + len, d->digits, (size_t)k);
        len += (size_t)k;
        for (idx = 0; idx < n - k; idx++)
            out[len++] = '0';
    } else if (0 < n && n <= 21) {
        memcpy(out + len, d->digits, (size_t)n);
        len += (size_t)n;
        out[len++] = '.';
        memcpy(out + len, d->digits + n, (size_t)(k - n));
        len += (size_t)(k - n);
    } else if (-6 < n && n <= 0) {
        out[len++] = '0';
        out[len++] = '.';
        for (idx = 0; idx < -n; idx++)
            out[len++] = '0';
        memcpy(out + len, d->digits, (size_t)k);
        len += (size_t)k;
    } else {
        out[len++] = d->digits[0];
        if (k > 1) {
            out[len++] = '.';
            memcpy(out + len, d->digits + 1, (size_t)(k - 1));
            len += (size_t)(k - 1);
        }
        len += (size_t)snprintf(out + len, 16, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
    }
    out[len] = '\0';
    return len;
}

/* Java's Double.toString layout: plain for 1e-3 <= |x| < 1e7, else d.dddE[-]n. */
static size_t layout_java(const sdigits *d, int negative, char *out)
{
    size_t len = 0;
    int k = d->n_digits, n = d->point, idx;
    if (negative)
        out[len++] = '-';
    if (n > 0 && n <= 7) {
        for (idx = 0; idx < n; idx++)
            out[len++] = idx < k ? d->digits[idx] : '0';
        out[len++] = '.';
        if (k > n) {
            memcpy(out + len, d->digits + n, (size_t)(k - n));
            len += (size_t)(k - n);
        } else {
            out[len++] = '0';
        }
    } else if (n <= 0 && n > -3) {
        out[len++] = '0';
        out[len++] = '.';
        for (idx = 0; idx < -n; idx++)
            out[len++] = '0';
        memcpy(out + len, d->digits, (size_t)k);
        len += (size_t)k;
    } else {
        out[len++] = d->digits[0];
        out[len++] = '.';
        if (k > 1) {
            memcpy(out + len, d->digits + 1, (size_t)(k - 1));
            len += (size_t)(k - 1);
        } else {
            out[len++] = '0';
        }
        len += (size_t)snprintf(out + len, 16, "E%d", n - 1);
    }
    out[len] = '\0';
    return len;
}

static size_t format_js(double value, int is_float, char *out)
{
    sdigits d;
    if (!isfinite(value))
        return special(value, out);
    if (value == 0) {
        const char *zero = signbit(value) ? "-0" : "0";
        memcpy(out, zero, strlen(zero) + 1);
        return strlen(zero);
    }
    shortest(fabs(value), is_float, &d);
    return layout_js(&d, value < 0, out);
}

/*
 * JDK 17's digits of an integral value below 2^63 (the JDK 17 that Spark
 * runs on prints these in a way that is not the shortest): all digits of
 * the integer, except that when the value has more binary digits than the
 * type's significand (53 or 24), the low floor(p * log10(2)) decimal digits
 * are rounded away, p being the excess bits minus one. So the float
 * 123456792 prints "1.23456792E8" and 2^60 prints "1.15292150460684698E18".
 * JDK 19 and later print the shortest digits for these too.
 */
static int java17_integral(double value, int is_float, sdigits *out)
{
    char text[24];
    uint64_t whole, pow10 = 1;
    int bin_exp, excess, insignificant = 0, idx;
    if (value >= 9223372036854775808.0 || value != floor(value))
        return 0;
    bin_exp = ilogb(value);
    excess = bin_exp - (is_float ? 24 : 53) - 1;
    if (excess > 1)
        insignificant = (int)floor(excess * 0.30102999566398120);
    whole = (uint64_t)value;
    if (insignificant > 0) {
        uint64_t residue;
        for (idx = 0; idx < insignificant; idx++)
            pow10 *= 10;
        residue = whole % pow10;
        whole /= pow10;
        if (residue >= pow10 / 2)
            whole++;
    }
    snprintf(text, sizeof(text), "%llu", (unsigned long long)whole);
    set_digits(out, text, insignificant);
    return 1;
}

/*
 * Java's Double.toString/Float.toString: the shortest decimal, except that
 * a one-digit result is replaced by the closest two-digit decimal that
 * reads back (Double.MIN_VALUE prints "4.9E-324", not "5.0E-324"), and
 * integral values follow JDK 17 (java17_integral).
 */
static size_t format_java(double value, int is_float, char *out)
{
    sdigits d, two;
    if (!isfinite(value))
        return special(value, out);
    if (value == 0) {
        const char *zero = signbit(value) ? "-0.0" : "0.0";
        memcpy(out, zero, strlen(zero) + 1);
        return strlen(zero);
    }
    if (java17_integral(fabs(value), is_float, &d))
        return layout_java(&d, value < 0, out);
    shortest(fabs(value), is_float, &d);
    if (d.n_digits == 1) {
        char digits[24];
        int exp10;
        if (candidate(fabs(value), 2, is_float, digits, &exp10)) {
            set_digits(&two, digits, exp10);
            d = two;
        }
    }
    return layout_java(&d, value < 0, out);
}

size_t text_format_double_js(double value, char *out) { return format_js(value, 0, out); }
size_t text_format_float_js(float value, char *out) { return format_js(value, 1, out); }
size_t text_format_double_java(double value, char *out) { return format_java(value, 0, out); }
size_t text_format_float_java(float value, char *out) { return format_java(value, 1, out); }

/* Decimal digits of |unscaled| (at most 39) into digits; returns their count. */
static int int128_digits(col_int128 unscaled, char *digits)
{
    unsigned __int128 mag;
    char rev[48];
    int n = 0, idx;
    /* Negate in unsigned arithmetic: the most negative value has no positive twin. */
    mag = unscaled < 0 ? (unsigned __int128)0 - (unsigned __int128)unscaled
                       : (unsigned __int128)unscaled;
    do {
        rev[n++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag != 0);
    for (idx = 0; idx < n; idx++)
        digits[idx] = rev[n - 1 - idx];
    digits[n] = '\0';
    return n;
}

size_t text_format_decimal(col_int128 unscaled, int32_t scale, char *out)
{
    char digits[48];
    int n = int128_digits(unscaled, digits), idx;
    size_t len = 0;
    /* Scales beyond 38 never come from a valid schema; clamp to keep within TEXT_NUM_MAX. */
    if (scale < 0 || scale > 38)
        scale = scale < 0 ? 0 : 38;
    if (unscaled < 0)
        out[len++] = '-';
    if (n <= scale) {
        out[len++] = '0';
        out[len++] = '.';
        for (idx = 0; idx < scale - n; idx++)
            out[len++] = '0';
        memcpy(out + len, digits, (size_t)n);
        len += (size_t)n;
    } else {
        memcpy(out + len, digits, (size_t)(n - scale));
        len += (size_t)(n - scale);
        if (scale > 0) {
            out[len++] = '.';
            memcpy(out + len, digits + n - scale, (size_t)scale);
            len += (size_t)scale;
        }
    }
    out[len] = '\0';
    return len;
}

/*
 * java.math.BigDecimal.toString: plain when the scale is >= 0 and the
 * adjusted exponent (-scale + digits - 1) is >= -6, otherwise one digit,
 * the fraction, and "E" with the adjusted exponent ("0E-18", "1.23E-7").
 */
size_t text_format_decimal_java(col_int128 unscaled, int32_t scale, char *out)
{
    char digits[48];
    int n = int128_digits(unscaled, digits);
    int adjusted;
    size_t len = 0;
    if (scale < 0 || scale > 38)
        scale = scale < 0 ? 0 : 38;
    adjusted = -scale + (n - 1);
    if (adjusted >= -6)
        return text_format_decimal(unscaled, scale, out);
    if (unscaled < 0)
        out[len++] = '-';
    out[len++] = digits[0];
    if (n > 1) {
        out[len++] = '.';
        memcpy(out + len, digits + 1, (size_t)(n - 1));
        len += (size_t)(n - 1);
    }
    len += (size_t)snprintf(out + len, 16, "E%d", adjusted);
    return len;
}

/* Java's formatters print years past 9999 with a sign ("+10000"); util/time.h does not. */
static size_t plus_before_big_year(int64_t days, char *out)
{
    int64_t year;
    unsigned month, day;
    time_civil_from_days(days, &year, &month, &day);
    if (year <= 9999)
        return 0;
    out[0] = '+';
    return 1;
}

size_t text_format_date_spark(int32_t days, char *out)
{
    size_t len = plus_before_big_year(days, out);
    return len + time_format_date(days, out + len, TEXT_NUM_MAX - len);
}

size_t text_format_timestamp_spark(int64_t micros, char sep, int fraction_digits, int with_zone,
                                   char *out)
{
    size_t len = plus_before_big_year(time_floor_div(micros, TIME_MICROS_PER_DAY), out);
    if (fraction_digits < 0) {
        int64_t fraction = time_floor_mod(micros, TIME_MICROS_PER_SECOND);
        fraction_digits = 6;
        if (fraction == 0)
            fraction_digits = 0;
        while (fraction != 0 && fraction % 10 == 0) {
            fraction /= 10;
            fraction_digits--;
        }
    }
    return len + time_format_timestamp(micros, sep, fraction_digits, with_zone, out + len,
                                       TEXT_NUM_MAX - len);
}

size_t text_format_instant_spark(int64_t micros, const time_zone *zone, char *out)
{
    int64_t local = time_zone_to_local(zone, micros);
    int32_t off = (int32_t)((local - micros) / TIME_MICROS_PER_SECOND), mag = off < 0 ? -off : off;
    size_t len = text_format_timestamp_spark(local, 'T', 3, off == 0, out);
    if (off != 0) /* XXX: +hh:mm, and :ss when the offset has seconds */
        len += (size_t)snprintf(out + len, TEXT_NUM_MAX - len, mag % 60 ? "%c%02d:%02d:%02d" : "%c%02d:%02d",
                                off < 0 ? '-' : '+', (int)(mag / 3600), (int)(mag / 60 % 60), (int)(mag % 60));
    return len;
}

/* Decimal digits of an integer, without buf_printf's format parsing (a hot path). */
static silt_status text_append_int(buf *out, int64_t value, silt_error *err)
{
    char text[24], *end = text + sizeof(text), *pos = end;
    uint64_t mag = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    do {
        *--pos = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag != 0);
    if (value < 0)
        *--pos = '-';
    return buf_append(out, pos, (size_t)(end - pos), err);
}

silt_status text_append_hex(buf *out, const char *bytes, size_t len, silt_error *err)
{
    static const char hex_lower[] = "0123456789abcdef";
    size_t pos;
    SILT_RETURN_IF_ERROR(buf_reserve(out, len * 2, err));
    for (pos = 0; pos < len; pos++) {
        out->data[out->len++] = hex_lower[(unsigned char)bytes[pos] >> 4];
        out->data[out->len++] = hex_lower[(unsigned char)bytes[pos] & 15];
    }
    out->data[out->len] = '\0';
    return SILT_OK;
}

silt_status text_append_integral(buf *out, const col_vec *v, int64_t row, int *done,
                                 silt_error *err)
{
    *done = 1;
    switch (v->type->id) {
    case COL_BOOLEAN:
        return buf_append_str(out, ((const uint8_t *)v->values)[row] ? "true" : "false", err);
    case COL_BYTE: return text_append_int(out, ((const int8_t *)v->values)[row], err);
    case COL_SHORT: return text_append_int(out, ((const int16_t *)v->values)[row], err);
    case COL_INT: return text_append_int(out, ((const int32_t *)v->values)[row], err);
    case COL_LONG: return text_append_int(out, ((const int64_t *)v->values)[row], err);
    default:
        *done = 0;
        return SILT_OK;
    }
}
