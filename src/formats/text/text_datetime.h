/*
 * text_datetime.h - Spark datetime patterns: the one pattern engine of
 * silt, for the CSV and JSON readers (timestampFormat, dateFormat) and the
 * SQL functions (date_format, to_timestamp, to_date, unix_timestamp,
 * from_unixtime).
 *
 * Supported pattern letters (Spark's "Datetime Patterns" page):
 *   y yy yyyy u year (yy is 2000-2099)      M MM MMM MMMM MMMMM L  month, number or name
 *   d dd       day of month                 D DD DDD  day of year
 *   Q q        quarter (QQQ Q1, QQQQ 1st quarter when formatting)
 *   H HH  hour 0-23,  h hh  hour 1-12      m mm  minute,  s ss  second
 *   S..S       fraction (1-9 digits)        a     AM/PM
 *   E..EEEEE   day name (checked, ignored when parsing)
 *   X XX XXX (Z for zero) x xx xxx Z ZZ ZZZ ZZZZZ  zone offset
 *   'text'     literal, '' a quote          [ ]   optional section
 * Letters outside this set are refused with SILT_UNSUPPORTED when the
 * pattern is compiled, so no value is ever read or written under a
 * misunderstood pattern. Parsing is case-insensitive, as Spark's formatter
 * is. A value without an offset is a wall-clock time, read in the zone the
 * caller gives (the session time zone; NULL = UTC).
 */
#ifndef SILT_FORMATS_TEXT_DATETIME_H
#define SILT_FORMATS_TEXT_DATETIME_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/time_zone.h"

typedef struct text_dt_pattern text_dt_pattern;

/* Compiles a pattern in arena a; SILT_UNSUPPORTED/SILT_INVALID name the letter and position. */
silt_status text_dt_compile(const char *pattern, arena *a, const text_dt_pattern **out,
                            silt_error *err);
/* The same for a pattern of len bytes (not NUL-terminated). */
silt_status text_dt_compile_n(const char *pattern, size_t len, arena *a,
                              const text_dt_pattern **out, silt_error *err);
/*
 * Parses a whole value into a wall-clock time (microseconds since the epoch
 * on the wall clock) and, when the value carried one, its UTC offset in
 * seconds (*has_offset = 1). 1 on success.
 */
int text_dt_parse_local(const text_dt_pattern *p, const char *s, size_t len, int64_t *local_out,
                        int *has_offset, int32_t *offset_out);
/* Parses a whole value as an instant: its own offset, else zone's wall clock (NULL = UTC). */
int text_dt_parse_timestamp_in(const text_dt_pattern *p, const char *s, size_t len,
                               const time_zone *zone, int64_t *out);
/* text_dt_parse_timestamp_in in UTC. */
int text_dt_parse_timestamp(const text_dt_pattern *p, const char *s, size_t len, int64_t *out);
/* Parses a whole value as a date (days since the epoch; an offset is ignored); 1 on success. */
int text_dt_parse_date(const text_dt_pattern *p, const char *s, size_t len, int32_t *out);
/*
 * Appends the text of a wall-clock time (local_micros) whose zone is
 * offset_secs east of UTC (for the zone letters); optional sections print.
 */
silt_status text_dt_format(const text_dt_pattern *p, int64_t local_micros, int32_t offset_secs,
                           buf *out, silt_error *err);

#endif
