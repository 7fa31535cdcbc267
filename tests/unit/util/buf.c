/* Unit tests of util/buf: growth, limits, printf, string helpers. */
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
