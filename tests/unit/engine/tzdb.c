/* Unit tests of the time zone database reader (engine/tzdb.c) on TZif files made here. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_test.h"

static arena *qa;
static silt_error err;

void test_engine_tzdb__initialize(void)
{
    qa = arena_new(NULL, "query");
    err_clear(&err);
    setenv("TZDIR", test_tmpdir(), 1);
}

void test_engine_tzdb__cleanup(void)
{
    unsetenv("TZDIR");
    arena_free(qa);
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

void test_engine_tzdb__offsets(void)
{
    unsigned char zone[256];
    size_t n = make_zone(zone);
    engine_tz *tz = NULL;
    write_file("Test_Zone", zone, n);
    check_ok(engine_tz_load(qa, "Test_Zone", 9, &tz, &err), &err);
    check_int(0, engine_tz_offset(tz, -5));
    check_int(3600, engine_tz_offset(tz, 1000000));
    check_int(3600, engine_tz_offset(tz, 1999999));
    check_int(0, engine_tz_offset(tz, 2000000));
    check_int(0, engine_tz_offset(tz, INT64_C(99999999999)));
    /* wall-clock times: one answer, in the gap (clocks forward: moves on), in the overlap (earlier) */
    check_int(3600, engine_tz_offset_local(tz, 1500000));
    check_int(0, engine_tz_offset_local(tz, 1001800));
    check_int(3600, engine_tz_offset_local(tz, 2001800));
    check_int(0, engine_tz_offset_local(tz, 3000000));
}

void test_engine_tzdb__malformed_files_fail(void)
{
    unsigned char zone[256];
    size_t n = make_zone(zone);
    engine_tz *tz = NULL;
    /* truncated in the 64-bit block */
    write_file("Short", zone, n - 20);
    check_fails(SILT_CORRUPT, engine_tz_load(qa, "Short", 5, &tz, &err));
    check_contains(err.message, "shorter than its header says");
    /* not a TZif file */
    write_file("Text", (const unsigned char *)"hello, this is not a zone file at all......", 44);
    check_fails(SILT_CORRUPT, engine_tz_load(qa, "Text", 4, &tz, &err));
    /* a count far beyond the file */
    put32(zone + 32, 0x7fffffff);
    write_file("Huge", zone, n);
    check_fails(SILT_CORRUPT, engine_tz_load(qa, "Huge", 4, &tz, &err));
    check_contains(err.message, "out of range");
    /* names that are not zone names, and zones that do not exist */
    check_fails(SILT_UNSUPPORTED, engine_tz_load(qa, "../etc/passwd", 13, &tz, &err));
    check_fails(SILT_UNSUPPORTED, engine_tz_load(qa, "/etc/passwd", 11, &tz, &err));
    check_fails(SILT_UNSUPPORTED, engine_tz_load(qa, "Mars/Olympus", 12, &tz, &err));
    check_contains(err.message, "\"Mars/Olympus\" is not known");
}
