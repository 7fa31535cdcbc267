/*
 * time.c - civil calendar arithmetic and Spark-compatible parsing/formatting.
 *
 * The day-number conversions use the well-known era-based algorithm for the
 * proleptic Gregorian calendar (400-year eras of 146097 days), valid for
 * every int64 year range we can represent in microseconds.
 */
#define _POSIX_C_SOURCE 200809L
#include "util/time.h"

#include "util/time_zone.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int64_t time_days_from_civil(int64_t year, unsigned month, unsigned day)
{
    int64_t era, yoe, doy, doe;
    year -= month <= 2;
    era = (year >= 0 ? year : year - 399) / 400;
    yoe = year - era * 400;
    doy = (153 * (int64_t)(month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void time_civil_from_days(int64_t days, int64_t *year_out, unsigned *month_out, unsigned *day_out)
{
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    unsigned day = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    unsigned month = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *year_out = yoe + era * 400 + (month <= 2);
    *month_out = month;
    *day_out = day;
}

static int is_leap(int64_t year)
{
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int time_valid_date(int64_t year, unsigned month, unsigned day)
{
    static const unsigned days_in_month[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    unsigned limit;
    if (month < 1 || month > 12 || day < 1)
        return 0;
    limit = days_in_month[month - 1] + (month == 2 && is_leap(year));
    return day <= limit;
}

/*
 * Spark's string forms (SparkDateTimeUtils.stringToDate, parseTimestampString):
 * the value is trimmed of bytes 0x00-0x20 and 0x7F (UTF8String.trimAll),
 * then read segment by segment, as Spark reads it, so that the same strings
 * pass and fail:
 *   date:      [+-]yyyy*[-[m]m[-[d]d]] and, after a full date, ' ' or 'T'
 *              and anything (ignored); years of 4 to 7 digits.
 *   timestamp: [+-]yyyy*[-[m]m[-[d]d]] [' '|'T' [h]h[:[m]m[:[s]s[.fraction]]]][zone]
 *              or a time alone ([h]h:[m]m..., or 'T' first), on today's date;
 *              years of 4 to 6 digits, any number of fraction digits (the
 *              seventh on dropped); the zone is the rest of the text after
 *              the seconds or the fraction, trimmed, as ZoneId.of reads it
 *              (util/time_zone.h).
 */
typedef struct ts_fields {
    int32_t seg[7]; /* year, month, day, hour, minute, second, microseconds */
    int year_sign;
    int just_time;
    const char *zone; /* NULL = none */
    size_t zone_len;
} ts_fields;

static int trim_byte(unsigned char b) { return b <= 0x20 || b == 0x7f; }

static void trim_all(const char *s, size_t len, size_t *start, size_t *end)
{
    size_t i = 0, j = len;
    while (i < j && trim_byte((unsigned char)s[i]))
        i++;
    while (j > i && trim_byte((unsigned char)s[j - 1]))
        j--;
    *start = i;
    *end = j;
}

/* Spark's isValidDigits of parseTimestampString (year 4-6 digits, fraction any). */
static int ts_digits_ok(int segment, int digits)
{
    if (segment == 6)
        return 1;
    if (segment == 0)
        return digits >= 4 && digits <= 6;
    if (segment == 7)
        return digits <= 2;
    return digits > 0 && digits <= 2;
}

/* parseTimestampString: the segments of s, or 0 when it is not of the form. */
static int ts_scan(const char *s, size_t len, ts_fields *f)
{
    int32_t seg[7] = {1, 1, 1, 0, 0, 0, 0};
    int i = 0, digits = 0, milli_digits = 0, k;
    int64_t value = 0;
    size_t j, end;
    trim_all(s, len, &j, &end);
    memset(f, 0, sizeof(*f));
    f->year_sign = 1;
    if (j == end)
        return 0;
    if (s[j] == '-' || s[j] == '+') {
        f->year_sign = s[j] == '-' ? -1 : 1;
        f->just_time = -1; /* a sign: not a time alone */
        j++;
    }
    for (; j < end; j++) {
        unsigned char b = (unsigned char)s[j];
        if (b >= '0' && b <= '9') {
            if (i == 6)
                milli_digits++;
            if (i != 6 || digits < 6)
                value = value * 10 + (b - '0');
            digits++;
            if (value > INT32_MAX)
                return 0;
            continue;
        }
        if (j == 0 && b == 'T') {
            f->just_time = 1;
            i += 3;
        } else if (i < 2) {
            if (b == '-') {
                if (!ts_digits_ok(i, digits))
                    return 0;
                seg[i++] = (int32_t)value;
            } else if (i == 0 && b == ':' && f->just_time == 0) {
                f->just_time = 1;
                if (!ts_digits_ok(3, digits))
                    return 0;
                seg[3] = (int32_t)value;
                i = 4;
            } else {
                return 0;
            }
        } else if (i == 2) {
            if (b != ' ' && b != 'T')
                return 0;
            if (!ts_digits_ok(i, digits))
                return 0;
            seg[i++] = (int32_t)value;
        } else if (i == 3 || i == 4) {
            if (b != ':' || !ts_digits_ok(i, digits))
                return 0;
            seg[i++] = (int32_t)value;
        } else if (i == 5 || i == 6) {
            if (!ts_digits_ok(i, digits))
                return 0;
            seg[i] = (int32_t)value;
            if (b == '.' && i == 5) {
                i++;
            } else {
                /* the rest of the text is the zone */
                size_t zs = j, ze = end;
                while (zs < ze && trim_byte((unsigned char)s[zs]))
                    zs++;
                f->zone = s + zs;
                f->zone_len = ze - zs;
                i = 7;
                digits = 0;
                value = 0;
                j = end;
                break;
            }
        } else {
            return 0;
        }
        value = 0;
        digits = 0;
    }
    if (i < 7) {
        if (!ts_digits_ok(i, digits))
            return 0;
        seg[i] = (int32_t)value;
    }
    for (k = milli_digits; k < 6; k++)
        seg[6] *= 10;
    if (f->just_time < 0)
        f->just_time = 0;
    memcpy(f->seg, seg, sizeof(seg));
    return 1;
}

/* The wall-clock microseconds of the fields (today in zone for a time alone); 0 when no such time. */
static int ts_local(const ts_fields *f, const time_zone *zone, int64_t now_micros, int64_t *out)
{
    int64_t year = (int64_t)f->year_sign * f->seg[0], days;
    if (f->seg[3] > 23 || f->seg[4] > 59 || f->seg[5] > 59)
        return 0;
    if (f->just_time) {
        days = time_floor_div(time_zone_to_local(zone, now_micros), TIME_MICROS_PER_DAY);
    } else {
        if (!time_valid_date(year, (unsigned)f->seg[1], (unsigned)f->seg[2]))
            return 0;
        days = time_days_from_civil(year, (unsigned)f->seg[1], (unsigned)f->seg[2]);
    }
    /* |days| < 106751990 keeps the microseconds (and any offset) in int64 */
    if (days > INT64_C(106751990) || days < -INT64_C(106751990))
        return 0;
    *out = days * TIME_MICROS_PER_DAY +
           ((int64_t)f->seg[3] * 3600 + f->seg[4] * 60 + f->seg[5]) * TIME_MICROS_PER_SECOND +
           f->seg[6];
    return 1;
}

/* Spark's Instant range check (instantToMicros overflows past about 294247 years). */
static int in_micros_range(int64_t local, int64_t offset_micros, int64_t *out)
{
    if (__builtin_sub_overflow(local, offset_micros, out))
        return 0;
    return 1;
}

int time_string_to_timestamp(const char *s, size_t len, const time_zone *zone,
                             int64_t now_micros, int64_t *out)
{
    ts_fields f;
    const time_zone *z = zone;
    int64_t local;
    if (!ts_scan(s, len, &f))
        return 0;
    if (f.zone != NULL && (z = time_zone_find(f.zone, f.zone_len)) == NULL)
        return 0;
    if (!ts_local(&f, z, now_micros, &local))
        return 0;
    return in_micros_range(local, local - time_zone_from_local(z, local), out);
}

int time_string_to_timestamp_ntz(const char *s, size_t len, int64_t now_micros, int *has_zone,
                                 int64_t *out)
{
    ts_fields f;
    const time_zone *z = NULL;
    if (!ts_scan(s, len, &f))
        return 0;
    if (f.zone != NULL && (z = time_zone_find(f.zone, f.zone_len)) == NULL)
        return 0;
    *has_zone = f.zone != NULL;
    if (f.just_time)
        return 0; /* Spark's stringToTimestampWithoutTimeZone takes no time alone */
    return ts_local(&f, NULL, now_micros, out);
}

int time_string_to_date(const char *s, size_t len, int32_t *days_out)
{
    int32_t seg[3] = {1, 1, 1};
    int i = 0, digits = 0, sign = 1;
    int64_t value = 0, year, days;
    size_t j, end;
    trim_all(s, len, &j, &end);
    if (j == end)
        return 0;
    if (s[j] == '-' || s[j] == '+') {
        sign = s[j] == '-' ? -1 : 1;
        j++;
    }
    for (; j < end && !(s[j] == ' ' || s[j] == 'T'); j++) {
        unsigned char b = (unsigned char)s[j];
        if (i < 2 && b == '-') {
            if (i == 0 ? digits < 4 || digits > 7 : digits < 1 || digits > 2)
                return 0;
            seg[i++] = (int32_t)value;
            value = 0;
            digits = 0;
        } else if (b >= '0' && b <= '9') {
            value = value * 10 + (b - '0');
            if (value > INT32_MAX)
                return 0;
            digits++;
        } else {
            return 0;
        }
    }
    if (i == 0 ? digits < 4 || digits > 7 : digits < 1 || digits > 2)
        return 0;
    if (i < 2 && j < end) /* yyyy and yyyy-[m]m take the whole text */
        return 0;
    seg[i] = (int32_t)value;
    year = sign * (int64_t)seg[0];
    if (!time_valid_date(year, (unsigned)seg[1], (unsigned)seg[2]))
        return 0;
    days = time_days_from_civil(year, (unsigned)seg[1], (unsigned)seg[2]);
    if (days < INT32_MIN || days > INT32_MAX)
        return 0;
    *days_out = (int32_t)days;
    return 1;
}

int time_parse_date(const char *s, size_t len, int32_t *days_out)
{
    return time_string_to_date(s, len, days_out);
}

int time_parse_timestamp(const char *s, size_t len, int64_t *micros_out, int *has_zone_out)
{
    ts_fields f;
    if (!ts_scan(s, len, &f))
        return 0;
    if (has_zone_out != NULL)
        *has_zone_out = f.zone != NULL;
    return time_string_to_timestamp(s, len, NULL, time_now_micros(), micros_out);
}

/*
 * Formatting writes digits by hand: printing a timestamp is on the hot path
 * of every result that leaves silt as text, and three snprintf calls per
 * value made it the largest cost of writing JSON lines.
 */

/* value in decimal, zero-padded to at least width digits, at dst; returns the length. */
static size_t put_digits(char *dst, uint64_t value, int width)
{
    char rev[24];
    size_t n = 0, idx;
    do {
        rev[n++] = (char)('0' + (int)(value % 10));
        value /= 10;
    } while (value != 0);
    while ((int)n < width && n < sizeof(rev))
        rev[n++] = '0';
    for (idx = 0; idx < n; idx++)
        dst[idx] = rev[n - 1 - idx];
    return n;
}

/* Hands text over as snprintf would: at most cap - 1 bytes and a NUL; returns the full length. */
static size_t finish_text(const char *text, size_t len, char *buf, size_t cap)
{
    if (cap > 0) {
        size_t copy = len < cap - 1 ? len : cap - 1;
        memcpy(buf, text, copy);
        buf[copy] = '\0';
    }
    return len;
}

/* "YYYY-MM-DD" (at least four year digits, '-' before negative years) at dst. */
static size_t put_year_date(int64_t days, char *dst)
{
    int64_t year;
    unsigned month, day;
    size_t len = 0;
    time_civil_from_days(days, &year, &month, &day);
    if (year < 0)
        dst[len++] = '-';
    len += put_digits(dst + len, year < 0 ? (uint64_t)0 - (uint64_t)year : (uint64_t)year, 4);
    dst[len++] = '-';
    len += put_digits(dst + len, month, 2);
    dst[len++] = '-';
    len += put_digits(dst + len, day, 2);
    return len;
}

size_t time_format_date(int32_t days, char *buf, size_t cap)
{
    char text[48];
    return finish_text(text, put_year_date(days, text), buf, cap);
}

size_t time_format_timestamp(int64_t micros, char sep, int fraction_digits, int with_zone,
                             char *buf, size_t cap)
{
    int64_t days = time_floor_div(micros, TIME_MICROS_PER_DAY);
    int64_t of_day = time_floor_mod(micros, TIME_MICROS_PER_DAY);
    int64_t seconds = of_day / TIME_MICROS_PER_SECOND;
    int64_t fraction = of_day % TIME_MICROS_PER_SECOND;
    char text[80];
    size_t len = put_year_date(days, text);
    if (len >= cap)
        return finish_text(text, len, buf, cap);
    text[len++] = sep;
    len += put_digits(text + len, (uint64_t)(seconds / 3600), 2);
    text[len++] = ':';
    len += put_digits(text + len, (uint64_t)(seconds / 60 % 60), 2);
    text[len++] = ':';
    len += put_digits(text + len, (uint64_t)(seconds % 60), 2);
    if (fraction_digits > 0 && len < cap) {
        int64_t scaled = fraction;
        int digit;
        for (digit = 6; digit > fraction_digits; digit--)
            scaled /= 10;
        text[len++] = '.';
        len += put_digits(text + len, (uint64_t)scaled, fraction_digits > 18 ? 18 : fraction_digits);
    }
    if (with_zone && len + 1 < cap)
        text[len++] = 'Z';
    return finish_text(text, len, buf, cap);
}

size_t time_format_timestamp_spark(int64_t micros, char *buf, size_t cap)
{
    int64_t fraction = time_floor_mod(micros, TIME_MICROS_PER_SECOND);
    int digits = 6;
    if (fraction == 0)
        return time_format_timestamp(micros, ' ', 0, 0, buf, cap);
    while (fraction % 10 == 0) {
        fraction /= 10;
        digits--;
    }
    return time_format_timestamp(micros, ' ', digits, 0, buf, cap);
}

int64_t time_now_micros(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * TIME_MICROS_PER_SECOND + ts.tv_nsec / 1000;
}

int64_t time_monotonic_nanos(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
