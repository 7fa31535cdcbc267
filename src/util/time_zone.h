/*
 * time_zone.h - time zones as Spark's java.time ZoneId knows them: fixed
 * offsets ("+02:00", "UTC", "GMT+1") and region rules ("Europe/Oslo") from
 * the system's time zone database (TZif files, RFC 8536, under $TZDIR or
 * /usr/share/zoneinfo), read by silt itself: no TZ environment juggling and
 * no libc state, so any thread may use any zone at once (docs/time.md).
 *
 * A zone is looked up once per process and kept until exit (a handful of
 * small tables), so a pointer from time_zone_get stays valid everywhere.
 * NULL stands for UTC in every function below.
 */
#ifndef SILT_UTIL_TIME_ZONE_H
#define SILT_UTIL_TIME_ZONE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct time_zone time_zone;

/* How the message of an id that is no zone starts (Spark's error class). */
#define TIME_ZONE_INVALID_CLASS "[INVALID_TIMEZONE] "

/*
 * The zone of a Spark zone id (DateTimeUtils.getZoneId, ZoneId.of with
 * SHORT_IDS): "Z"; "+h", "+hh", "+hh:mm", "+hhmm", "+hh:mm:ss", "+hhmmss"
 * (and Spark's "+h:mm", "+hh:m"); "UTC", "GMT", "UT", alone or followed
 * by such an offset; a short id (PST, CET's file, EST = -05:00, ...); or a
 * region name of the database. SILT_INVALID with [INVALID_TIMEZONE] when
 * the id is none of these; SILT_CORRUPT when the zone's file is malformed.
 */
silt_status time_zone_get(const char *id, size_t len, const time_zone **out, silt_error *err);
/* The same without an error: NULL when the id is not a zone (or on failure). */
const time_zone *time_zone_find(const char *id, size_t len);

/*
 * The machine's zone, as the JVM chooses Spark's default: $TZ, else
 * /etc/timezone, else the target of /etc/localtime, else UTC.
 */
const time_zone *time_zone_default(void);

/* The id the zone was asked by ("Europe/Oslo", "+02:00"); "UTC" for NULL. */
const char *time_zone_id(const time_zone *z);
/* 1 when the zone's offset never changes (NULL, UTC, fixed offsets). */
int time_zone_is_fixed(const time_zone *z);

/* The zone's UTC offset in seconds (east positive) at an instant (seconds since the epoch). */
int32_t time_zone_offset(const time_zone *z, int64_t utc_secs);
/*
 * The offset that makes local_secs the wall clock, as java.time's
 * ZonedDateTime.of: in a gap (clocks forward) the time moves on by the
 * gap's length, in an overlap the earlier offset wins.
 */
int32_t time_zone_offset_local(const time_zone *z, int64_t local_secs);

/* Wall-clock microseconds of an instant in zone z. */
int64_t time_zone_to_local(const time_zone *z, int64_t utc_micros);
/* The instant of a wall-clock time in zone z (see time_zone_offset_local). */
int64_t time_zone_from_local(const time_zone *z, int64_t local_micros);

/*
 * Parses a region name's TZif file held in data[0..size) into a zone
 * (unit tests feed it crafted files). SILT_CORRUPT when malformed.
 */
silt_status time_zone_from_tzif(const unsigned char *data, size_t size, const char *id,
                                const time_zone **out, silt_error *err);
/* Frees a zone made by time_zone_from_tzif (zones of time_zone_get live until exit). */
void time_zone_free(const time_zone *z);

#endif
