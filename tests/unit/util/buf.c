/* Unit tests of util/buf: growth, limits, printf, string helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util/buf.h"
#include "util/mem.h"

void test_util_buf__append_and_printf(void)
{
    buf b = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    int idx;
    check_str("", buf_cstr(&b));
    check_ok(buf_append_str(&b, "abc", &err), &err);
    check_ok(buf_append_char(&b, '-', &err), &err);
    check_ok(buf_printf(&b, &err, "%d/%s", 12, "x"), &err);
    check_str("abc-12/x", buf_cstr(&b));
    for (idx = 0; idx < 10000; idx++)
        check_ok(buf_append(&b, "0123456789", 10, &err), &err);
    check_int(8 + 100000, b.len);
    buf_truncate(&b, 3);
    check_str("abc", buf_cstr(&b));
    buf_clear(&b);
    check_int(0, b.len);
}

void test_util_buf__limit_is_enforced(void)
{
    buf b;
    silt_error err = SILT_ERROR_INIT;
    buf_init(&b, 16);
    check_ok(buf_append(&b, "0123456789", 10, &err), &err);
    check_fails(SILT_NOMEM, buf_append(&b, "0123456789", 10, &err));
    check_contains(err.message, "limit of 16 bytes");
    check_int(10, b.len);
    buf_clear(&b);
}

void test_util_buf__out_of_memory(void)
{
    buf b = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    mem_fail_after(0);
    check_fails(SILT_NOMEM, buf_append_str(&b, "x", &err));
    mem_fail_reset();
    check_str("out of memory", err.message);
}

void test_util_buf__detach(void)
{
    buf b = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    size_t len;
    char *s;
    check_ok(buf_append_str(&b, "hello", &err), &err);
    s = buf_detach(&b, &len);
    check_str("hello", s);
    check_int(5, len);
    check(b.data == NULL);
    mem_free(s);
    s = buf_detach(&b, NULL);
    check_str("", s);
    mem_free(s);
}

void test_util_buf__string_helpers(void)
{
    int64_t value;
    double d;
    check(util_str_starts_with("_delta_log/0001.json", "_delta_log/"));
    check(!util_str_starts_with("_delta", "_delta_log"));
    check(util_str_ends_with("a.checkpoint.parquet", ".parquet"));
    check(!util_str_ends_with("a", "parquet"));
    check_int(0, util_str_casecmp("SeLeCt", "select"));
    check(util_str_casecmp("a", "b") < 0);
    check_int(0, util_str_ncasecmp("FROMx", "fromy", 4));
    check(util_str_to_int64("-9223372036854775808", 20, &value));
    check(value == INT64_MIN);
    check(util_str_to_int64("9223372036854775807", 19, &value));
    check(value == INT64_MAX);
    check(!util_str_to_int64("9223372036854775808", 19, &value));
    check(!util_str_to_int64("12a", 3, &value));
    check(!util_str_to_int64("", 0, &value));
    check(!util_str_to_int64("-", 1, &value));
    check(util_str_to_int64("+42", 3, &value));
    check_int(42, value);
    check(util_str_to_double("1.5e3", 5, &d));
    check(d == 1500.0);
    check(!util_str_to_double("1.5x", 4, &d));
}

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state >> 11;
}

/* What strtod says of text: 1 and the value when all of it is a number. */
static int reference_double(const char *text, double *out)
{
    char *end;
    *out = strtod(text, &end);
    return *text != '\0' && *end == '\0';
}

static void check_same_as_strtod(const char *text)
{
    double want = 0, got = 0;
    int want_ok = reference_double(text, &want);
    int got_ok = util_str_to_double(text, strlen(text), &got);
    if (want_ok != got_ok || (want_ok && memcmp(&want, &got, sizeof(double)) != 0)) {
        fprintf(stderr, "util_str_to_double(\"%s\"): %d %.17g, strtod %d %.17g\n", text, got_ok,
                got, want_ok, want);
        check(0);
    }
}

/*
 * The fast path (up to 15 significant digits, exponent within +-22) must
 * give strtod's bits, and hand every other shape to strtod: random
 * decimals of every length, sign, point and exponent, plus the edges.
 */
void test_util_buf__double_fast_path_is_strtod(void)
{
    static const char *const edges[] = {
        "0", "-0", "+0", "0.0", "-0.0", "00012", "1.", ".5", "-.5", ".", "-", "+", "e5", "1e",
        "1e+", "1e-", "1e5", "1E-5", "1e22", "1e23", "1e-22", "1e-23", "9007199254740993",
        "123456789012345", "1234567890123456", "0.000000000000000000001", "59.906850",
        "10.706850", "1.7976931348623157e308", "4.9e-324", "1e-400", "1e400", " 1", "1 ",
        "0x10", "inf", "nan", "1e0000005", "0e99999", "1.5x", "99999999999999.9",
        "0.1", "0.2", "0.3", "2.2250738585072014e-308"};
    uint64_t state = 88172645463325252ull;
    size_t idx;
    for (idx = 0; idx < sizeof(edges) / sizeof(edges[0]); idx++)
        check_same_as_strtod(edges[idx]);
    for (idx = 0; idx < 200000; idx++) {
        char text[64];
        size_t n = 0, k, n_int = next_random(&state) % 12, n_frac = next_random(&state) % 12;
        uint64_t shape = next_random(&state);
        if (shape & 1)
            text[n++] = (shape & 2) ? '-' : '+';
        for (k = 0; k < n_int; k++)
            text[n++] = (char)('0' + next_random(&state) % 10);
        if (shape & 4) {
            text[n++] = '.';
            for (k = 0; k < n_frac; k++)
                text[n++] = (char)('0' + next_random(&state) % 10);
        }
        if (shape & 8)
            n += (size_t)snprintf(text + n, sizeof(text) - n, "e%d",
                                  (int)(next_random(&state) % 60) - 30);
        text[n] = '\0';
        check_same_as_strtod(text);
    }
}
