/*
 * Unit tests of the number spellings in formats/text_num.c: shortest
 * round-trip digits in the JavaScript layout (canonical JSON) and the Java
 * layout (Spark's show() and CSV), and decimals.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "formats/text.h"
#include "test.h"

static const char *djs(double value)
{
    static char text[TEXT_NUM_MAX];
    text_format_double_js(value, text);
    return text;
}

static const char *fjs(float value)
{
    static char text[TEXT_NUM_MAX];
    text_format_float_js(value, text);
    return text;
}

static const char *djava(double value)
{
    static char text[TEXT_NUM_MAX];
    text_format_double_java(value, text);
    return text;
}

static const char *fjava(float value)
{
    static char text[TEXT_NUM_MAX];
    text_format_float_java(value, text);
    return text;
}

static const char *dec(col_int128 unscaled, int32_t scale)
{
    static char text[TEXT_NUM_MAX];
    text_format_decimal(unscaled, scale, text);
    return text;
}

static const char *decjava(col_int128 unscaled, int32_t scale)
{
    static char text[TEXT_NUM_MAX];
    text_format_decimal_java(unscaled, scale, text);
    return text;
}

void test_formats_text_num__double_js_plain_and_exponent(void)
{
    check_str("0", djs(0.0));
    check_str("-0", djs(-0.0));
    check_str("3", djs(3.0));
    check_str("-42", djs(-42.0));
    check_str("0.1", djs(0.1));
    check_str("0.30000000000000004", djs(0.1 + 0.2));
    check_str("0.3333333333333333", djs(1.0 / 3));
    check_str("35.568", djs(35.568));
    check_str("100000000000000000000", djs(1e20));
    check_str("1e+21", djs(1e21));
    check_str("1.5e+21", djs(1.5e21));
    check_str("123456789012345680000", djs(123456789012345678901.0));
    check_str("9223372036854776000", djs(9223372036854775808.0));
    check_str("9007199254740991", djs(9007199254740991.0));
    check_str("0.000001", djs(1e-6));
    check_str("0.0000015", djs(1.5e-6));
    check_str("1e-7", djs(1e-7));
    check_str("1.5e-7", djs(1.5e-7));
    check_str("-1.5e-7", djs(-1.5e-7));
    check_str("5e-324", djs(5e-324));
    check_str("-5e-324", djs(-5e-324));
    check_str("2.2250738585072014e-308", djs(DBL_MIN));
    check_str("1.7976931348623157e+308", djs(DBL_MAX));
    check_str("-1.7976931348623157e+308", djs(-DBL_MAX));
    check_str("5.684341886080802e-14", djs(ldexp(1.0, -44)));
    check_str("1.2676506002282294e+30", djs(ldexp(1.0, 100)));
    check_str("0.5", djs(0.5));
    check_str("1024", djs(1024.0));
    check_str("1e+23", djs(1e23));
    check_str("1.7e+308", djs(1.7e308));
    check_str("4.35", djs(4.35));
    check_str("0.000123", djs(0.000123));
    check_str("123.456", djs(123.456));
}

void test_formats_text_num__double_js_specials(void)
{
    check_str("NaN", djs(NAN));
    check_str("Infinity", djs(INFINITY));
    check_str("-Infinity", djs(-INFINITY));
}

void test_formats_text_num__float_js_uses_32_bit_digits(void)
{
    check_str("0.1", fjs(0.1f));
    check_str("35.568", fjs(35.568f));
    check_str("3.4028235e+38", fjs(FLT_MAX));
    check_str("1.1754944e-38", fjs(FLT_MIN));
    check_str("1e-45", fjs(1.4e-45f));
    check_str("-0", fjs(-0.0f));
    check_str("16777216", fjs(16777216.0f));
    /* above 2^24 floats are 8 apart, so fewer digits than the integer identify it */
    check_str("123456790", fjs(123456789.0f));
    check_str("10000000000", fjs(1e10f));
    check_str("0.3", fjs(0.3f));
    check_str("1.5", fjs(1.5f));
    check_str("NaN", fjs(NAN));
    check_str("-Infinity", fjs(-INFINITY));
}

void test_formats_text_num__double_java(void)
{
    check_str("0.0", djava(0.0));
    check_str("-0.0", djava(-0.0));
    check_str("1.0", djava(1.0));
    check_str("100.0", djava(100.0));
    check_str("-42.0", djava(-42.0));
    check_str("0.1", djava(0.1));
    check_str("0.001", djava(0.001));
    check_str("9.99E-4", djava(0.000999));
    check_str("1.0E-5", djava(1e-5));
    check_str("9999999.0", djava(9999999.0));
    check_str("1.0E7", djava(1e7));
    check_str("1.2345678E7", djava(12345678.0));
    check_str("1.0E10", djava(1e10));
    check_str("123456.789", djava(123456.789));
    check_str("0.30000000000000004", djava(0.1 + 0.2));
    check_str("1.7976931348623157E308", djava(DBL_MAX));
    check_str("4.9E-324", djava(5e-324));
    check_str("9.223372036854776E18", djava(9223372036854775808.0));
    check_str("1.0E21", djava(1e21));
    check_str("-1.5E-7", djava(-1.5e-7));
    check_str("NaN", djava(NAN));
    check_str("Infinity", djava(INFINITY));
    check_str("-Infinity", djava(-INFINITY));
}

void test_formats_text_num__float_java(void)
{
    check_str("0.1", fjava(0.1f));
    check_str("1.0", fjava(1.0f));
    check_str("3.4028235E38", fjava(FLT_MAX));
    check_str("1.4E-45", fjava(1.4e-45f));
    check_str("1.0E10", fjava(1e10f));
    check_str("35.568", fjava(35.568f));
    check_str("-0.0", fjava(-0.0f));
}

/* Every formatted value reads back as itself, and no shorter prefix-rounding does. */
void test_formats_text_num__random_doubles_round_trip(void)
{
    uint64_t state = 0x9e3779b97f4a7c15u;
    int iter;
    for (iter = 0; iter < 20000; iter++) {
        uint64_t bits;
        double value;
        char text[TEXT_NUM_MAX];
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bits = state;
        memcpy(&value, &bits, sizeof(value));
        if (!isfinite(value))
            continue;
        text_format_double_js(value, text);
        if (strtod(text, NULL) != value)
            test_fail(__FILE__, __LINE__, "%.17g printed as %s does not read back", value, text);
        text_format_double_java(value, text);
        if (strtod(text, NULL) != value)
            test_fail(__FILE__, __LINE__, "%.17g printed as %s (java) does not read back", value,
                      text);
    }
    for (iter = 0; iter < 20000; iter++) {
        uint32_t bits;
        float value;
        char text[TEXT_NUM_MAX];
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bits = (uint32_t)state;
        memcpy(&value, &bits, sizeof(value));
        if (!isfinite(value))
            continue;
        text_format_float_js(value, text);
        if (strtof(text, NULL) != value)
            test_fail(__FILE__, __LINE__, "%.9g printed as %s does not read back", value, text);
    }
}

void test_formats_text_num__decimal_plain(void)
{
    col_int128 big = 1;
    int idx;
    for (idx = 0; idx < 38; idx++)
        big *= 10;
    check_str("12", dec(12, 0));
    check_str("0", dec(0, 0));
    check_str("0.00", dec(0, 2));
    check_str("-0.050", dec(-50, 3));
    check_str("1.23", dec(123, 2));
    check_str("-1.23", dec(-123, 2));
    check_str("0.000000000000000001", dec(1, 18));
    check_str("99999999999999999999999999999999999999", dec(big - 1, 0));
    check_str("-9.9999999999999999999999999999999999999", dec(-(big - 1), 37));
    check_str("-0.99999999999999999999999999999999999999", dec(-(big - 1), 38));
    /* the most negative 128-bit value is not a valid decimal(38) but must not crash */
    check_str("-170141183460469231731687303715884105728", dec(-(col_int128)((~(unsigned __int128)0) >> 1) - 1, 0));
}

void test_formats_text_num__decimal_java(void)
{
    check_str("0E-18", decjava(0, 18));
    check_str("0.000000", decjava(0, 6));
    check_str("1E-7", decjava(1, 7));
    check_str("-1.23E-8", decjava(-123, 10));
    check_str("0.00000123", decjava(123, 8));
    check_str("12.50", decjava(1250, 2));
    check_str("7", decjava(7, 0));
}

/*
 * Values at the edges of the exact fast path (ties between two float
 * candidates, powers of ten where log10 may be off by one, the exponent
 * limits). Expected digits from JDK 25 Float.toString and Python's repr.
 */
void test_formats_text_num__fast_path_edges(void)
{
    check_str("482393.12", fjs(482393.125f)); /* exact tie between ...12 and ...13: even */
    check_str("177458.12", fjs(177458.125f));
    check_str("0.0009999999", fjs(9.999999e-4f));
    check_str("3.4e-20", fjs(3.4e-20f));
    check_str("100000000000000000000", fjs(1e20f));
    check_str("123456.79", fjs(123456.79f));
    check_str("7e-10", fjs(7e-10f));
    check_str("65504", fjs(65504.0f));
    check_str("33554436", fjs(33554436.0f));
    check_str("0.001", djs(0.001));
    check_str("999999999999999.9", djs(9.999999999999999e14));
    check_str("1000000000000000", djs(1e15));
    check_str("999999.9999999999", djs(999999.9999999999));
    check_str("1e-20", djs(1e-20));
    check_str("99900000000000000000", djs(9.99e19));
    check_str("1.23456e-8", djs(123.456e-10));
    check_str("2.5e-8", djs(2.5e-8));
    check_str("9.999999E-4", fjava(9.999999e-4f));
    check_str("1.23456E-8", djava(123.456e-10));
    check_str("9.999999999999999E14", djava(9.999999999999999e14));
}
