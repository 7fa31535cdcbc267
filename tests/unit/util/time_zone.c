/* Unit tests of util/time_zone: the TZif reader on files made here, Spark's zone ids. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util/time.h"
#include "util/time_zone.h"

static silt_error err;

void test_util_time_zone__initialize(void)
{
    err_clear(&err);
    setenv("TZDIR", test_tmpdir(), 1);
}

void test_util_time_zone__cleanup(void)
{
    unsetenv("TZDIR");
}

static size_t put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
    return 4;
}

static size_t header(unsigned char *p, uint32_t timecnt, uint32_t typecnt, uint32_t charcnt)
{
    size_t n = 0;
    memcpy(p, "TZif2", 5);
    memset(p + 5, 0, 15);
    n = 20;
    n += put32(p + n, 0); /* isutcnt */
    n += put32(p + n, 0); /* isstdcnt */
    n += put32(p + n, 0); /* leapcnt */
    n += put32(p + n, timecnt);
    n += put32(p + n, typecnt);
    n += put32(p + n, charcnt);
    return n;
}

/* Version 2: an empty 32-bit block, then transitions at 1e6 (to +1h) and 2e6 (back to 0). */
static size_t make_zone(unsigned char *p)
{
    size_t n = header(p, 0, 1, 4);
    memset(p + n, 0, 6);
    n += 6;
    memcpy(p + n, "UTC", 4);
    n += 4;
    n += header(p + n, 2, 2, 8);
    n += put32(p + n, 0);
    n += put32(p + n, 1000000);
    n += put32(p + n, 0);
    n += put32(p + n, 2000000);
    p[n++] = 1;
    p[n++] = 0;
    n += put32(p + n, 0); /* type 0: UTC */
    p[n++] = 0;
    p[n++] = 0;
    n += put32(p + n, 3600); /* type 1: +01:00, DST */
    p[n++] = 1;
    p[n++] = 4;
    memcpy(p + n, "UTC\0ONE", 8);
    n += 8;
    memcpy(p + n, "\nUTC0\n", 6);
    return n + 6;
}

static void write_file(const char *name, const unsigned char *data, size_t n)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), name);
    f = fopen(path, "wb");
    check(f != NULL);
    check_int(n, fwrite(data, 1, n, f));
    fclose(f);
}

void test_util_time_zone__offsets(void)
{
    unsigned char zone[256];
    size_t n = make_zone(zone);
    const time_zone *tz = NULL;
    write_file("Test_Zone", zone, n);
    check_ok(time_zone_get("Test_Zone", 9, &tz, &err), &err);
    check_int(0, time_zone_offset(tz, -5));
    check_int(3600, time_zone_offset(tz, 1000000));
    check_int(3600, time_zone_offset(tz, 1999999));
    check_int(0, time_zone_offset(tz, 2000000));
    check_int(0, time_zone_offset(tz, INT64_C(99999999999)));
    /* wall-clock times: one answer, in the gap (clocks forward: moves on), in the overlap (earlier) */
    check_int(3600, time_zone_offset_local(tz, 1500000));
    check_int(0, time_zone_offset_local(tz, 1001800));
    check_int(3600, time_zone_offset_local(tz, 2001800));
    check_int(0, time_zone_offset_local(tz, 3000000));
}

void test_util_time_zone__malformed_files_fail(void)
{
    unsigned char zone[256];
    size_t n = make_zone(zone);
    const time_zone *tz = NULL;
    /* truncated in the 64-bit block */
    write_file("Short", zone, n - 20);
    check_fails(SILT_CORRUPT, time_zone_get("Short", 5, &tz, &err));
    check_contains(err.message, "shorter than its header says");
    /* not a TZif file */
    write_file("Text", (const unsigned char *)"hello, this is not a zone file at all......", 44);
    check_fails(SILT_INVALID, time_zone_get("Text", 4, &tz, &err));
    check_contains(err.message, "[INVALID_TIMEZONE]");
    /* a count far beyond the file */
    put32(zone + 32, 0x7fffffff);
    write_file("Huge", zone, n);
    check_fails(SILT_CORRUPT, time_zone_get("Huge", 4, &tz, &err));
    check_contains(err.message, "out of range");
    /* names that are not zone names, and zones that do not exist */
    check_fails(SILT_INVALID, time_zone_get("../etc/passwd", 13, &tz, &err));
    check_fails(SILT_INVALID, time_zone_get("/etc/passwd", 11, &tz, &err));
    check_fails(SILT_INVALID, time_zone_get("Mars/Olympus", 12, &tz, &err));
    check_contains(err.message, "timezone: Mars/Olympus is invalid");
}

/* Offsets from the system's zone files after their last transition (2037): the footer's rule. */
static int32_t system_offset(const char *zone, int64_t utc_secs)
{
    const time_zone *tz = NULL;
    setenv("TZDIR", "/usr/share/zoneinfo", 1);
    check_ok(time_zone_get(zone, strlen(zone), &tz, &err), &err);
    return tz == NULL ? INT32_MIN : time_zone_offset(tz, utc_secs);
}

void test_util_time_zone__footer_rule_after_2037(void)
{
    /* CET-1CEST,M3.5.0,M10.5.0/3: CEST in July 2050, CET in January, back at 01:00 UTC */
    check_int(7200, system_offset("Europe/Oslo", INT64_C(2540246400)));
    check_int(3600, system_offset("Europe/Oslo", INT64_C(2524608000)));
    check_int(7200, system_offset("Europe/Oslo", INT64_C(2550704399)));
    check_int(3600, system_offset("Europe/Oslo", INT64_C(2550704400)));
    /* EST5EDT,M3.2.0,M11.1.0: the second Sunday of March at 02:00 EST, the first of November */
    check_int(-18000, system_offset("America/New_York", INT64_C(2530767599)));
    check_int(-14400, system_offset("America/New_York", INT64_C(2530767600)));
    check_int(-14400, system_offset("America/New_York", INT64_C(2551327199)));
    check_int(-18000, system_offset("America/New_York", INT64_C(2551327200)));
    /* AEST-10AEDT,M10.1.0,M4.1.0/3: daylight time spans the turn of the year */
    check_int(39600, system_offset("Australia/Sydney", INT64_C(2525817600)));
    check_int(36000, system_offset("Australia/Sydney", INT64_C(2541456000)));
    check_int(39600, system_offset("Australia/Sydney", INT64_C(2532527999)));
    check_int(36000, system_offset("Australia/Sydney", INT64_C(2532528000)));
    /* <-04>4<-03>,M9.1.6/24,M4.1.6/24: quoted names, changes at 24:00 */
    check_int(-14400, system_offset("America/Santiago", INT64_C(2540246400)));
    check_int(-10800, system_offset("America/Santiago", INT64_C(2524608000)));
    /* JST-9: no daylight time */
    check_int(32400, system_offset("Asia/Tokyo", INT64_C(2855865600)));
}

/* A made-up zone whose only rule is its footer: J and zero-based day forms, an explicit DST offset. */
static size_t make_rule_zone(unsigned char *p, const char *footer)
{
    size_t n = header(p, 0, 1, 4), flen = strlen(footer);
    memset(p + n, 0, 6);
    n += 6;
    memcpy(p + n, "UTC", 4);
    n += 4;
    n += header(p + n, 0, 1, 4);
    memset(p + n, 0, 6);
    n += 6;
    memcpy(p + n, "UTC", 4);
    n += 4;
    memcpy(p + n, footer, flen);
    return n + flen;
}

void test_util_time_zone__footer_forms(void)
{
    unsigned char zone[256];
    const time_zone *tz = NULL;
    /* XST+3 standard, XDT at -1 (UTC+1), from day J60 (March 1) 00:00 to day 300 (zero-based) 02:00 */
    write_file("Rule_Zone", zone, make_rule_zone(zone, "\nXST3XDT-1,J60/0,300\n"));
    check_ok(time_zone_get("Rule_Zone", 9, &tz, &err), &err);
    /* 2030-01-10 and 2030-06-01 UTC */
    check_int(-10800, time_zone_offset(tz, INT64_C(1894233600)));
    check_int(3600, time_zone_offset(tz, INT64_C(1906502400)));
    /* March 1 2030 00:00 local standard time = 03:00 UTC */
    check_int(-10800, time_zone_offset(tz, INT64_C(1898564400) - 1));
    check_int(3600, time_zone_offset(tz, INT64_C(1898564400)));
    /* only a standard time */
    write_file("Plain_Zone", zone, make_rule_zone(zone, "\n<+0530>-5:30\n"));
    check_ok(time_zone_get("Plain_Zone", 10, &tz, &err), &err);
    check_int(19800, time_zone_offset(tz, INT64_C(1906502400)));
}

void test_util_time_zone__malformed_footer_fails(void)
{
    static const char *const bad[] = {"\nCET-1CEST,M3.5.0\n", "\nCET-1CEST,M13.5.0,M10.5.0\n",
                                      "\nCET-1CEST,M3.6.0,M10.5.0\n", "\nC-1\n",
                                      "\nCET-1CEST,M3.5.0,M10.5.0/x\n", "\nCET-1", "\n<CET-1\n",
                                      "\nCET-1CEST,J0,J10\n", "\nCET\n", ""};
    unsigned char zone[256];
    size_t idx;
    for (idx = 0; idx < sizeof(bad) / sizeof(bad[0]); idx++) {
        const time_zone *tz = NULL;
        write_file("Bad_Footer", zone, make_rule_zone(zone, bad[idx]));
        check_fails(SILT_CORRUPT, time_zone_get("Bad_Footer", 10, &tz, &err));
        check_contains(err.message, "footer");
    }
}

/* Spark's zone ids (ZoneId.of with SHORT_IDS, getZoneId's rewrites) and the wall-clock conversions. */
void test_util_time_zone__spark_ids(void)
{
    static const struct {
        const char *id;
        int32_t off; /* at 2021-01-15 12:00 UTC; INT32_MIN = not a zone */
    } cases[] = {
        {"Z", 0}, {"UTC", 0}, {"GMT", 0}, {"UT", 0}, {"+2", 7200}, {"+02", 7200},
        {"-05:30", -19800}, {"+0530", 19800}, {"+01:02:03", 3723}, {"+010203", 3723},
        {"+1:30", 5400}, {"+01:3", 3780}, {"UTC+1", 3600}, {"GMT-08:00", -28800},
        {"UT+03", 10800}, {"EST", -18000}, {"PST", -28800}, {"CTT", 28800},
        {"Europe/Oslo", 3600}, {"America/New_York", -18000}, {"+18:00", 64800},
        {"+18:01", INT32_MIN}, {"+19", INT32_MIN}, {"utc", INT32_MIN}, {"UTC+", INT32_MIN},
        {"Mars/Olympus", INT32_MIN}, {"", INT32_MIN}, {"../zone", INT32_MIN},
        {"posix/Europe/Oslo", INT32_MIN}, {"Europe", INT32_MIN}, {"+1:3:0", INT32_MIN},
    };
    size_t idx;
    setenv("TZDIR", "/usr/share/zoneinfo", 1);
    for (idx = 0; idx < sizeof(cases) / sizeof(cases[0]); idx++) {
        const time_zone *z = time_zone_find(cases[idx].id, strlen(cases[idx].id));
        if (cases[idx].off == INT32_MIN) {
            if (z != NULL)
                test_fail(__FILE__, __LINE__, "\"%s\" should not be a zone", cases[idx].id);
            continue;
        }
        if (z == NULL) {
            test_fail(__FILE__, __LINE__, "\"%s\" should be a zone", cases[idx].id);
            continue;
        }
        check_int(cases[idx].off, time_zone_offset(z, INT64_C(1610712000)));
        check_str(cases[idx].id, time_zone_id(z));
    }
}

void test_util_time_zone__wall_clock(void)
{
    const time_zone *oslo;
    int64_t us = TIME_MICROS_PER_SECOND;
    setenv("TZDIR", "/usr/share/zoneinfo", 1);
    oslo = time_zone_find("Europe/Oslo", 11);
    check(oslo != NULL);
    /* 2016-09-30 22:30 UTC is 2016-10-01 00:30 in Oslo (CEST) */
    check_int(INT64_C(1475281800) * us, time_zone_to_local(oslo, INT64_C(1475274600) * us));
    check_int(INT64_C(1475274600) * us, time_zone_from_local(oslo, INT64_C(1475281800) * us));
    /* 2021-03-28 02:30 does not exist in Oslo: it moves on to 03:30 (01:30 UTC) */
    check_int(INT64_C(1616895000) * us, time_zone_from_local(oslo, INT64_C(1616898600) * us));
    /* 2021-10-31 02:30 happens twice: the earlier (CEST, 00:30 UTC) wins */
    check_int(INT64_C(1635640200) * us, time_zone_from_local(oslo, INT64_C(1635647400) * us));
    check_int(5, time_zone_to_local(NULL, 5));
    check(time_zone_is_fixed(time_zone_find("+01:00", 6)));
    check(!time_zone_is_fixed(oslo));
    check(time_zone_default() != NULL);
}
