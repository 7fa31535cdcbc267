/*
 * time.c - civil calendar arithmetic and Spark-compatible parsing/formatting.
 *
 * The day-number conversions use the well-known era-based algorithm for the
 * proleptic Gregorian calendar (400-year eras of 146097 days), valid for
 * every int64 year range we can represent in microseconds.
 */
#define _POSIX_C_SOURCE 200809L
#include "util/time.h"

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

typedef struct cursor {
    const char *s;
    size_t len;
    size_t pos;
} cursor;

static int peek(const cursor *c) { return c->pos < c->len ? (unsigned char)c->s[c->pos] : -1; }

static int is_digit(int ch) { return ch >= '0' && ch <= '9'; }

/* Reads between min and max digits; returns the count read (0 = failure). */
static int read_digits(cursor *c, int min, int max, int64_t *out)
{
    int count = 0;
    int64_t value = 0;
    while (count < max && is_digit(peek(c))) {
        value = value * 10 + (peek(c) - '0');
        c->pos++;
        count++;
    }
    if (count < min)
        return 0;
    *out = value;
    return count;
}

static void skip_spaces(cursor *c)
{
    while (peek(c) == ' ' || peek(c) == '\t' || peek(c) == '\n' || peek(c) == '\r')
        c->pos++;
}

/* Parses [+-]yyyy[-m[m][-d[d]]]; year has 4 to 7 digits. */
static int parse_date_part(cursor *c, int64_t *days_out)
{
    int64_t year, month = 1, day = 1;
    int negative = 0;
    if (peek(c) == '-' || peek(c) == '+') {
        negative = peek(c) == '-';
        c->pos++;
    }
    if (!read_digits(c, 4, 7, &year))
        return 0;
    if (negative)
        year = -year;
    if (peek(c) == '-') {
        c->pos++;
        if (!read_digits(c, 1, 2, &month))
            return 0;
        if (peek(c) == '-') {
            c->pos++;
            if (!read_digits(c, 1, 2, &day))
                return 0;
        }
    }
    if (!time_valid_date(year, (unsigned)month, (unsigned)day))
        return 0;
    *days_out = time_days_from_civil(year, (unsigned)month, (unsigned)day);
    return 1;
}

/* Parses h[h]:m[m][:s[s][.f{1,9}]] into microseconds of the day. */
static int parse_time_part(cursor *c, int64_t *micros_out)
{
    int64_t hour, minute, second = 0, fraction = 0;
    int digits;
    if (!read_digits(c, 1, 2, &hour) || peek(c) != ':')
        return 0;
    c->pos++;
    if (!read_digits(c, 1, 2, &minute))
        return 0;
    if (peek(c) == ':') {
        c->pos++;
        if (!read_digits(c, 1, 2, &second))
            return 0;
        if (peek(c) == '.') {
            c->pos++;
            digits = read_digits(c, 0, 9, &fraction);
            while (digits < 6) {
                fraction *= 10;
                digits++;
            }
            while (digits > 6) {
                fraction /= 10; /* sub-microsecond digits are truncated */
                digits--;
            }
            while (is_digit(peek(c)))
                c->pos++;
        }
    }
    if (hour > 23 || minute > 59 || second > 59)
        return 0;
    *micros_out = ((hour * 60 + minute) * 60 + second) * TIME_MICROS_PER_SECOND + fraction;
    return 1;
}

/* Parses Z, UTC, GMT, [+-]hh[[:]mm] into an offset in seconds east of UTC. */
static int parse_zone(cursor *c, int64_t *offset_out)
{
    int sign;
    int64_t hours, minutes = 0;
    if (peek(c) == 'Z' || peek(c) == 'z') {
        c->pos++;
        *offset_out = 0;
        return 1;
    }
    if (c->len - c->pos >= 3 && (c->s[c->pos] == 'U' || c->s[c->pos] == 'G')) {
        const char *z = c->s + c->pos;
        if ((z[0] == 'U' && z[1] == 'T' && z[2] == 'C') || (z[0] == 'G' && z[1] == 'M' && z[2] == 'T'))
            c->pos += 3;
        else
            return 0;
        if (peek(c) != '+' && peek(c) != '-') {
            *offset_out = 0;
            return 1;
        }
    }
    if (peek(c) != '+' && peek(c) != '-')
        return 0;
    sign = peek(c) == '-' ? -1 : 1;
    c->pos++;
    if (!read_digits(c, 1, 2, &hours))
        return 0;
    if (peek(c) == ':') {
        c->pos++;
        if (!read_digits(c, 2, 2, &minutes))
            return 0;
    } else if (is_digit(peek(c))) {
        if (!read_digits(c, 2, 2, &minutes))
            return 0;
    }
    if (hours > 18 || minutes > 59)
        return 0;
    *offset_out = sign * (hours * 3600 + minutes * 60);
    return 1;
}

int time_parse_date(const char *s, size_t len, int32_t *days_out)
{
    cursor c = {s, len, 0};
    int64_t days, micros;
    skip_spaces(&c);
    if (!parse_date_part(&c, &days))
        return 0;
    if (peek(&c) == ' ' || peek(&c) == 'T') {
        /* A time part may follow, as CAST('2021-01-01 10:00' AS DATE) allows. */
        c.pos++;
        if (c.pos < c.len && !parse_time_part(&c, &micros))
            return 0;
    }
    skip_spaces(&c);
    if (c.pos != c.len || days < INT32_MIN || days > INT32_MAX)
        return 0;
    *days_out = (int32_t)days;
    return 1;
}

int time_parse_timestamp(const char *s, size_t len, int64_t *micros_out, int *has_zone_out)
{
    cursor c = {s, len, 0};
    int64_t days, time_micros = 0, offset = 0;
    int has_zone = 0;
    skip_spaces(&c);
    if (!parse_date_part(&c, &days))
        return 0;
    if (peek(&c) == ' ' || peek(&c) == 'T') {
        c.pos++;
        if (c.pos < c.len && !parse_time_part(&c, &time_micros))
            return 0;
    }
    skip_spaces(&c);
    if (c.pos < c.len) {
        if (!parse_zone(&c, &offset))
            return 0;
        has_zone = 1;
        skip_spaces(&c);
    }
    if (c.pos != c.len)
        return 0;
    /* Guard the int64 range: |days| < 106751991 keeps micros in range. */
    if (days > INT64_C(106751990) || days < -INT64_C(106751990))
        return 0;
    *micros_out = days * TIME_MICROS_PER_DAY + time_micros - offset * TIME_MICROS_PER_SECOND;
    if (has_zone_out != NULL)
        *has_zone_out = has_zone;
    return 1;
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
