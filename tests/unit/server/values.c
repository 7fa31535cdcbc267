/* Unit tests of server/values: PostgreSQL text and binary forms of result values. */
#include "server/sqlstate.h"
#include "server/values.h"
#include "test.h"

void test_server_values__float_text(void)
{
    char text[64];
    srv_format_double(0.1, text, sizeof(text));
    check_str("0.1", text);
    srv_format_double(100, text, sizeof(text));
    check_str("100", text);
    srv_format_double(1e20, text, sizeof(text));
    check_str("1e+20", text);
    srv_format_double(1e-5, text, sizeof(text));
    check_str("1e-05", text);
    srv_format_double(0.0001, text, sizeof(text));
    check_str("0.0001", text);
    srv_format_double(-2.5, text, sizeof(text));
    check_str("-2.5", text);
    srv_format_double(1.0 / 3.0, text, sizeof(text));
    check_str("0.3333333333333333", text);
    srv_format_float(0.1f, text, sizeof(text));
    check_str("0.1", text);
    srv_format_float(1e6f, text, sizeof(text));
    check_str("1e+06", text);
}

/* One column of n int64 or int32 values as an Arrow array (no nulls unless valid is given). */
static void one_array(struct ArrowArray *a, const void **buffers, int64_t n)
{
    memset(a, 0, sizeof(*a));
    a->length = n;
    a->n_buffers = 2;
    a->buffers = buffers;
}

static const char *field_text(buf *b, const char *format, const struct ArrowArray *a,
                              int64_t row, int binary)
{
    struct ArrowSchema s;
    srv_column col;
    silt_error err = SILT_ERROR_INIT;
    memset(&s, 0, sizeof(s));
    s.format = format;
    s.name = "c";
    buf_clear(b);
    check_ok(srv_column_from_schema(&s, &col, &err), &err);
    check_ok(srv_put_field(b, &col, &s, a, row, binary, &err), &err);
    check_ok(buf_append_char(b, '\0', &err), &err);
    return b->data + 4;
}

void test_server_values__fields(void)
{
    buf b = BUF_INIT;
    struct ArrowArray a;
    int64_t ts[2] = {0, INT64_C(1700000000123400)};
    int32_t days[2] = {19723, -719529};
    uint8_t dec[16] = {0x39, 0x30}; /* 12345 */
    uint8_t valid = 0x1;
    const void *ts_buf[2] = {NULL, ts}, *day_buf[2] = {&valid, days}, *dec_buf[2] = {NULL, dec};
    one_array(&a, ts_buf, 2);
    check_str("2023-11-14 22:13:20.1234+00", field_text(&b, "tsu:UTC", &a, 1, 0));
    check_str("1970-01-01 00:00:00", field_text(&b, "tsu:", &a, 0, 0));
    one_array(&a, day_buf, 2);
    check_str("2024-01-01", field_text(&b, "tdD", &a, 0, 0));
    field_text(&b, "tdD", &a, 1, 0); /* row 1 is NULL: length -1 */
    check_int(0xff, (uint8_t)b.data[0]);
    one_array(&a, dec_buf, 1);
    check_str("123.45", field_text(&b, "d:10,2", &a, 0, 0));
    /* numeric_send of 123.45: 2 digits, weight 0, +, dscale 2, 0123 4500 */
    field_text(&b, "d:10,2", &a, 0, 1);
    check_int(16, b.len - 1);
    check_int(2, b.data[5]);
    check_int(123, b.data[13]);
    check_int(4500, ((uint8_t)b.data[14] << 8) | (uint8_t)b.data[15]);
    buf_clear(&b);
}

void test_server_values__sqlstates(void)
{
    check_str("42P01", srv_sqlstate(SILT_NOTFOUND, "TABLE_OR_VIEW_NOT_FOUND", "x"));
    check_str("42601", srv_sqlstate(SILT_PARSE, "PARSE_SYNTAX_ERROR", "x"));
    check_str("0A000", srv_sqlstate(SILT_UNSUPPORTED, "UNSUPPORTED_FEATURE.X", "x"));
    check_str("57014", srv_sqlstate(SILT_INTERRUPTED, "OPERATION_CANCELED", "x"));
    check_str("25006", srv_sqlstate(SILT_INVALID, "", "cannot execute INSERT in a read-only session"));
    check_str("22023", srv_sqlstate(SILT_INVALID, "", "bad option"));
    check_str("40001", srv_sqlstate(SILT_CONFLICT, "DELTA_CONCURRENT_APPEND", "x"));
}
