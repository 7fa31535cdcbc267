/* Unit tests of util/time: calendar, Spark's timestamp forms, formatting. */
#include "test.h"
#include "util/time.h"

static int64_t ts(const char *text)
{
    int64_t micros = 0;
    if (!time_parse_timestamp(text, strlen(text), &micros, NULL))
        test_fail(__FILE__, __LINE__, "could not parse \"%s\"", text);
    return micros;
}

void test_util_time__civil_round_trip(void)
{
    int64_t days;
    for (days = -800000; days < 800000; days += 7) {
        int64_t year;
        unsigned month, day;
        time_civil_from_days(days, &year, &month, &day);
        check_int(days, time_days_from_civil(year, month, day));
    }
    check_int(0, time_days_from_civil(1970, 1, 1));
    check_int(18878, time_days_from_civil(2021, 9, 8));
    check_int(-719528, time_days_from_civil(0, 1, 1));
}

void test_util_time__valid_dates(void)
{
    check(time_valid_date(2024, 2, 29));
    check(!time_valid_date(2023, 2, 29));
    check(!time_valid_date(1900, 2, 29));
    check(time_valid_date(2000, 2, 29));
    check(!time_valid_date(2021, 13, 1));
    check(!time_valid_date(2021, 4, 31));
}

void test_util_time__parse_dates(void)
{
    int32_t days;
    check(time_parse_date("2021-09-08", 10, &days));
    check_int(18878, days);
    check(time_parse_date("2021-9-8", 8, &days));
    check_int(18878, days);
    check(time_parse_date("2021", 4, &days));
    check_int(time_days_from_civil(2021, 1, 1), days);
    check(time_parse_date("2021-09-08 10:11:12", 19, &days));
    check_int(18878, days);
    check(!time_parse_date("2021-02-30", 10, &days));
    check(!time_parse_date("21-09-08", 8, &days));
    check(!time_parse_date("2021-09-08x", 11, &days));
    check(!time_parse_date("", 0, &days));
}

void test_util_time__parse_timestamps(void)
{
    int has_zone = -1;
    int64_t micros;
    check_int(INT64_C(1631099471000000), ts("2021-09-08 11:11:11"));
    check_int(INT64_C(1631099471000000), ts("2021-09-08T11:11:11"));
    check_int(INT64_C(1631099471000000), ts("2021-09-08T11:11:11Z"));
    check_int(INT64_C(1631099471123000), ts("2021-09-08 11:11:11.123"));
    check_int(INT64_C(1631099471123456), ts("2021-09-08 11:11:11.123456789"));
    check_int(INT64_C(1631099471000000) - 3600 * INT64_C(1000000), ts("2021-09-08 11:11:11+01:00"));
    check_int(INT64_C(1631099471000000) + 5400 * INT64_C(1000000), ts("2021-09-08 11:11:11-0130"));
    check_int(INT64_C(1631099471000000), ts("2021-09-08 11:11:11 UTC"));
    check_int(INT64_C(1631059200000000), ts("2021-09-08"));
    check_int(INT64_C(1631099460000000), ts("2021-09-08 11:11"));
    check_int(-1, ts("1969-12-31 23:59:59.999999"));
    /* Spark reads a zone only after a time: a date with one is no timestamp */
    check(!time_parse_timestamp("2021-09-08Z", 11, &micros, &has_zone));
    check(time_parse_timestamp("2021-09-08 10:00:00Z", 20, &micros, &has_zone));
    check_int(1, has_zone);
    check(time_parse_timestamp("2021-09-08", 10, &micros, &has_zone));
    check_int(0, has_zone);
    check(!time_parse_timestamp("2021-09-08 25:00:00", 19, &micros, NULL));
    check(!time_parse_timestamp("2021-09-08 11:61", 16, &micros, NULL));
    check(!time_parse_timestamp("yesterday", 9, &micros, NULL));
    check(!time_parse_timestamp("2021-09-08 11:11:11+25:00", 25, &micros, NULL));
}

void test_util_time__format(void)
{
    char text[64];
    time_format_date(18878, text, sizeof(text));
    check_str("2021-09-08", text);
    time_format_date(-719529, text, sizeof(text));
    check_str("-0001-12-31", text);
    time_format_timestamp(INT64_C(1631099471123456), 'T', 6, 1, text, sizeof(text));
    check_str("2021-09-08T11:11:11.123456Z", text);
    time_format_timestamp(-1, 'T', 6, 0, text, sizeof(text));
    check_str("1969-12-31T23:59:59.999999", text);
    time_format_timestamp(0, ' ', 0, 0, text, sizeof(text));
    check_str("1970-01-01 00:00:00", text);
    time_format_timestamp_spark(INT64_C(1631099471120000), text, sizeof(text));
    check_str("2021-09-08 11:11:11.12", text);
    time_format_timestamp_spark(INT64_C(1631099471000000), text, sizeof(text));
    check_str("2021-09-08 11:11:11", text);
}

void test_util_time__clocks(void)
{
    int64_t a = time_monotonic_nanos();
    int64_t b = time_monotonic_nanos();
    check(b >= a);
    check(time_now_micros() > INT64_C(1600000000000000));
    check_int(-1, time_floor_div(-1, 10));
    check_int(9, time_floor_mod(-1, 10));
}

/* Formatting writes digits by hand; it must still behave like snprintf at the edges. */
void test_util_time__format_edges(void)
{
    char text[64], small[8];
    check_int(10, time_format_date(0, small, sizeof(small)));
    check_str("1970-01", small); /* cut to cap - 1 bytes, NUL-terminated, full length returned */
    time_format_date(INT32_MAX, text, sizeof(text));
    check_str("5881580-07-11", text);
    time_format_date(INT32_MIN, text, sizeof(text));
    check_str("-5877641-06-23", text);
    time_format_timestamp(INT64_MIN, 'T', 6, 1, text, sizeof(text));
    check_str("-290308-12-21T19:59:05.224192Z", text);
    time_format_timestamp(INT64_MAX, ' ', 3, 0, text, sizeof(text));
    check_str("294247-01-10 04:00:54.775", text);
    time_format_timestamp(INT64_C(1631099471000005), 'T', 6, 0, text, sizeof(text));
    check_str("2021-09-08T11:11:11.000005", text);
}

/* Spark's stringToDate and stringToTimestamp, form by form. */
void test_util_time__spark_string_forms(void)
{
    int32_t d;
    int64_t t, now = INT64_C(1631099471000000);
    int has_zone;
    check(time_string_to_date("2021-09-08 garbage", 18, &d) && d == 18878);
    check(time_string_to_date("2021-09-08Tx", 12, &d) && d == 18878);
    check(time_string_to_date(" 2021-9-8\n", 10, &d) && d == 18878);
    check(time_string_to_date("2021", 4, &d) && d == 18628);
    check(!time_string_to_date("2021 x", 6, &d));
    check(!time_string_to_date("2021-09-08X", 11, &d));
    check(!time_string_to_date("21-09-08", 8, &d));
    check(time_string_to_date("1234567-01-01", 13, &d));
    check(time_string_to_timestamp("2021-09-08 11:11:11.123456789 UTC+2", 35, NULL, now, &t) &&
          t == INT64_C(1631092271123456));
    check(time_string_to_timestamp("2021-09-08T11:11:11 America/New_York", 36, NULL, now, &t) &&
          t == INT64_C(1631113871000000));
    check(time_string_to_timestamp("11:11:11", 8, NULL, now, &t) && t == now);
    check(time_string_to_timestamp("T11:11:11", 9, NULL, now, &t) && t == now);
    check(!time_string_to_timestamp(" T11:11:11", 10, NULL, now, &t));
    check(!time_string_to_timestamp("2021-09-08 11:11Z", 17, NULL, now, &t));
    check(!time_string_to_timestamp("2021-09-08T", 11, NULL, now, &t));
    check(!time_string_to_timestamp("1234567-01-01", 13, NULL, now, &t));
    check(!time_string_to_timestamp("2021-09-08 11:11:11 Mars/X", 26, NULL, now, &t));
    check(time_string_to_timestamp_ntz("2021-09-08 11:11:11+05:00", 25, now, &has_zone, &t) &&
          has_zone && t == INT64_C(1631099471000000));
    check(!time_string_to_timestamp_ntz("11:11:11", 8, now, &has_zone, &t));
}
