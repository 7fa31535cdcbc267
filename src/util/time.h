/*
 * time.h - dates and timestamps as Delta stores them.
 *
 * A date is days since 1970-01-01 (int32 range); a timestamp is microseconds
 * since 1970-01-01T00:00:00Z (int64). The proleptic Gregorian calendar is
 * used throughout, as Spark 3 and Delta do. Parsing accepts exactly the
 * forms Spark's CAST accepts (stringToDate, stringToTimestamp; docs/time.md).
 */
#ifndef SILT_UTIL_TIME_H
#define SILT_UTIL_TIME_H

#include <stddef.h>
#include <stdint.h>

#define TIME_MICROS_PER_SECOND INT64_C(1000000)
#define TIME_MICROS_PER_DAY INT64_C(86400000000)

/* Days since the epoch of a civil date (no range check beyond int64). */
int64_t time_days_from_civil(int64_t year, unsigned month, unsigned day);
/* Civil date of a day number. */
void time_civil_from_days(int64_t days, int64_t *year_out, unsigned *month_out, unsigned *day_out);
/* 1 when year/month/day is a real date. */
int time_valid_date(int64_t year, unsigned month, unsigned day);

typedef struct time_zone time_zone; /* util/time_zone.h */

/*
 * Spark's CAST of a string to DATE (stringToDate): [+-]yyyy[-[m]m[-[d]d]]
 * (years of 4 to 7 digits), after a full date ' ' or 'T' and anything
 * (ignored), the text trimmed of spaces and control bytes. 1 on success.
 */
int time_string_to_date(const char *s, size_t len, int32_t *days_out);
/*
 * Spark's CAST of a string to TIMESTAMP (stringToTimestamp): a date as
 * above (years of 4 to 6 digits) or a time alone (on today's date, by
 * now_micros), then [h]h[:[m]m[:[s]s[.fraction]]] after ' ' or 'T', then
 * an optional zone (Z, +hh:mm, UTC+1, GMT-08:00, Europe/Oslo, a short id),
 * glued or after a space. Without a zone the time is zone's wall clock
 * (NULL = UTC). 1 on success.
 */
int time_string_to_timestamp(const char *s, size_t len, const time_zone *zone,
                             int64_t now_micros, int64_t *out);
/* The same for TIMESTAMP_NTZ: the wall-clock time, a zone in the text read and ignored. */
int time_string_to_timestamp_ntz(const char *s, size_t len, int64_t now_micros, int *has_zone,
                                 int64_t *out);

/* time_string_to_date (kept for the callers that read Delta's and Spark's forms). */
int time_parse_date(const char *s, size_t len, int32_t *days_out);
/*
 * time_string_to_timestamp in UTC; has_zone_out (may be NULL) tells whether
 * the text carried a zone. Returns 1 on success.
 */
int time_parse_timestamp(const char *s, size_t len, int64_t *micros_out, int *has_zone_out);

/* "YYYY-MM-DD" (years with at least four digits, '-' before negative years). */
size_t time_format_date(int32_t days, char *buf, size_t cap);
/*
 * "YYYY-MM-DDTHH:MM:SS.ffffffZ" when with_zone, else without the Z; sep is
 * the character between date and time ('T' or ' ').
 */
size_t time_format_timestamp(int64_t micros, char sep, int fraction_digits, int with_zone,
                             char *buf, size_t cap);
/* Spark's display form: "2021-09-08 11:11:11" or "2021-09-08 11:11:11.123" (trailing zeros cut). */
size_t time_format_timestamp_spark(int64_t micros, char *buf, size_t cap);

/* Current wall-clock time in microseconds since the epoch. */
int64_t time_now_micros(void);
/* Monotonic clock in nanoseconds, for measuring durations. */
int64_t time_monotonic_nanos(void);

/* Floor division and modulo for negative timestamps. */
static inline int64_t time_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}
/* Computed from %, not a - floor_div(a, b) * b, which overflows for INT64_MIN. */
static inline int64_t time_floor_mod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

#endif
