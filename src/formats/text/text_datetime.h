/*
 * text_datetime.h - Spark datetime patterns (timestampFormat, dateFormat)
 * for the CSV and JSON readers.
 *
 * Supported pattern letters (Spark's "Datetime Patterns" page, parsing):
 *   y yy yyyy  year (yy is 2000-2099)      M MM MMM MMMM  month, number or name
 *   d dd       day of month                 H HH  hour 0-23,  h hh  hour 1-12
 *   m mm       minute                       s ss  second
 *   S..S       fraction (1-9 digits)        a     AM/PM
 *   E..EEEE    day name (checked, ignored)  X XX XXX x xx xxx Z ZZ  zone offset
 *   'text'     literal, '' a quote          [ ]   optional section
 * Letters outside this set are refused with SILT_UNSUPPORTED when the
 * pattern is compiled, so no value is ever read under a misunderstood
 * pattern. Parsing is case-insensitive, as Spark's formatter is. A value
 * without a zone is read in UTC (the session time zone).
 */
#ifndef SILT_FORMATS_TEXT_DATETIME_H
#define SILT_FORMATS_TEXT_DATETIME_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/error.h"

typedef struct text_dt_pattern text_dt_pattern;

/* Compiles a pattern in arena a; SILT_UNSUPPORTED/SILT_INVALID name the letter and position. */
silt_status text_dt_compile(const char *pattern, arena *a, const text_dt_pattern **out,
                            silt_error *err);
/* Parses a whole value as a timestamp (microseconds since the epoch); 1 on success. */
int text_dt_parse_timestamp(const text_dt_pattern *p, const char *s, size_t len, int64_t *out);
/* Parses a whole value as a date (days since the epoch); 1 on success. */
int text_dt_parse_date(const text_dt_pattern *p, const char *s, size_t len, int32_t *out);

#endif
