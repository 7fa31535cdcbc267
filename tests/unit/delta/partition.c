#include <math.h>
#include <string.h>

#include "delta/partition.h"
#include "test.h"
#include "util/time.h"

static arena *a;

void test_delta_partition__initialize(void) { a = arena_new(NULL, "test"); }
void test_delta_partition__cleanup(void) { arena_free(a); }

static delta_value parse(const col_type *type, const char *text)
{
    delta_value v;
    silt_error err = SILT_ERROR_INIT;
    check_ok(delta_value_parse(&v, type, text, "c", &err), &err);
    return v;
}

static void bad(const col_type *type, const char *text)
{
    delta_value v;
    silt_error err = SILT_ERROR_INIT;
    check_fails(SILT_CORRUPT, delta_value_parse(&v, type, text, "col_x", &err));
    check_contains(err.message, "\"col_x\"");
}

#define P(id) col_type_primitive(id)

void test_delta_partition__values_of_every_type(void)
{
    col_type *dec = col_type_decimal(a, 5, 2);
    delta_value v;
    int64_t micros;
    check(parse(P(COL_STRING), NULL).is_null);
    check(parse(P(COL_INT), "").is_null);
    check(parse(P(COL_STRING), "").is_null);
    check_int(1, parse(P(COL_BOOLEAN), "true").v.i);
    check_int(0, parse(P(COL_BOOLEAN), "FALSE").v.i);
    check_int(-128, parse(P(COL_BYTE), "-128").v.i);
    check_int(32767, parse(P(COL_SHORT), "32767").v.i);
    check_int(INT64_MIN, parse(P(COL_LONG), "-9223372036854775808").v.i);
    check(parse(P(COL_DOUBLE), "1.5").v.d == 1.5);
    check(isnan(parse(P(COL_FLOAT), "NaN").v.d));
    check(isinf(parse(P(COL_DOUBLE), "-Infinity").v.d));
    v = parse(dec, "-12.3");
    check(v.v.dec == -1230);
    v = parse(dec, "123.450");
    check(v.v.dec == 12345);
    check_int(18878, parse(P(COL_DATE), "2021-09-08").v.i);
    check(time_parse_timestamp("2021-09-08T11:11:11Z", 20, &micros, NULL));
    check_int(micros, parse(P(COL_TIMESTAMP), "2021-09-08 11:11:11").v.i);
    check_int(micros, parse(P(COL_TIMESTAMP), "2021-09-08T13:11:11+02:00").v.i);
    check_int(micros + 123456, parse(P(COL_TIMESTAMP_NTZ), "2021-09-08 11:11:11.123456").v.i);
    v = parse(P(COL_BINARY), "\x01\x02");
    check_int(2, v.v.s.len);
}

void test_delta_partition__malformed_values(void)
{
    bad(P(COL_INT), "12x");
    bad(P(COL_INT), "2147483648");
    bad(P(COL_BYTE), "200");
    bad(P(COL_BOOLEAN), "yes");
    bad(P(COL_DATE), "2021-13-01");
    bad(P(COL_TIMESTAMP), "yesterday");
    bad(col_type_decimal(a, 5, 2), "1234.5");
    bad(col_type_decimal(a, 5, 2), "1.234");
    bad(col_type_decimal(a, 38, 0), "999999999999999999999999999999999999999999");
    bad(P(COL_DOUBLE), "abc");
}

void test_delta_partition__compare(void)
{
    col_type *d1 = col_type_decimal(a, 10, 1), *d3 = col_type_decimal(a, 10, 3);
    delta_value x = parse(d1, "1.5"), y = parse(d3, "1.500"), z = parse(d3, "1.501");
    int cmp = 9;
    check_ok(delta_value_compare(&x, &y, &cmp, NULL), NULL);
    check_int(0, cmp);
    x = parse(P(COL_STRING), "ab");
    y = parse(P(COL_STRING), "abc");
    check_ok(delta_value_compare(&x, &y, &cmp, NULL), NULL);
    check(cmp < 0);
    x = parse(P(COL_DOUBLE), "NaN");
    y = parse(P(COL_DOUBLE), "Infinity");
    check_ok(delta_value_compare(&x, &y, &cmp, NULL), NULL);
    check(cmp > 0);
    (void)z;
    check_fails(SILT_INVALID, delta_value_compare(&x, &z, &cmp, NULL));
}

void test_delta_partition__constant_columns(void)
{
    col_vec *v = NULL;
    delta_value value = parse(P(COL_STRING), "hello");
    int32_t len = 0;
    const char *s;
    check_ok(delta_value_fill(&v, a, P(COL_STRING), &value, 5, NULL), NULL);
    check_int(5, v->length);
    s = col_vec_str(v, 4, &len);
    check_int(5, len);
    check(memcmp(s, "hello", 5) == 0);
    value = parse(P(COL_DATE), "1970-01-03");
    check_ok(delta_value_fill(&v, a, P(COL_DATE), &value, 3, NULL), NULL);
    check_int(2, ((int32_t *)v->values)[2]);
    value = parse(P(COL_LONG), NULL);
    check_ok(delta_value_fill(&v, a, P(COL_LONG), &value, 3, NULL), NULL);
    check_int(3, v->null_count);
    check(col_vec_is_null(v, 1));
    value = parse(col_type_decimal(a, 5, 2), "1.25");
    check_ok(delta_value_fill(&v, a, col_type_decimal(a, 5, 2), &value, 2, NULL), NULL);
    check(((col_int128 *)v->values)[1] == 125);
}

void test_delta_partition__compare_decimals_near_the_limit(void)
{
    col_type *d0 = col_type_decimal(a, 38, 0), *d10 = col_type_decimal(a, 38, 10);
    delta_value big = parse(d0, "99999999999999999999999999999999999999");
    delta_value small = parse(d10, "-0.0000000001");
    delta_value frac = parse(d10, "1.5"), one = parse(d0, "1"), two = parse(d0, "2");
    int cmp = 0;
    check_ok(delta_value_compare(&big, &small, &cmp, NULL), NULL);
    check(cmp > 0);
    check_ok(delta_value_compare(&small, &big, &cmp, NULL), NULL);
    check(cmp < 0);
    check_ok(delta_value_compare(&one, &frac, &cmp, NULL), NULL);
    check(cmp < 0);
    check_ok(delta_value_compare(&two, &frac, &cmp, NULL), NULL);
    check(cmp > 0);
    small = parse(d10, "-1.5");
    one = parse(d0, "-1");
    check_ok(delta_value_compare(&one, &small, &cmp, NULL), NULL);
    check(cmp > 0);
}
