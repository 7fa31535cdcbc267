/*
 * tzdb.c - UTC offsets of region time zones ("Europe/Oslo") from the
 * system's time zone database, for from_utc_timestamp / to_utc_timestamp.
 *
 * A zone is a TZif file (RFC 8536) under $TZDIR or /usr/share/zoneinfo.
 * silt reads its version 2+ data (64-bit transition times; version 1 files
 * use the 32-bit block) and takes the offset of the last transition at or
 * before an instant; before the first transition the first time type
 * applies, after the last the last offset stays (the files list
 * transitions up to 2037; the footer's rule for later years is not read).
 * Every count in the file is checked against its size before use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/expr.h"

#define TZ_MAX_FILE (1 << 20)
#define TZ_HEADER 44

struct engine_tz {
    int64_t n;          /* transitions */
    int64_t *at;        /* transition instants, seconds since the epoch, ascending */
    int32_t *off;       /* UTC offset in seconds from each transition on */
    int32_t first_off;  /* before the first transition */
};

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static int64_t be64(const unsigned char *p)
{
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

/* A zone name is a relative path of letters, digits and _-+, never "..". */
static int valid_name(const char *s, int32_t len)
{
    int32_t idx;
    if (len <= 0 || len > 64 || s[0] == '/' || s[0] == '.')
        return 0;
    for (idx = 0; idx < len; idx++) {
        char c = s[idx];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-' || c == '+' || c == '/';
        if (!ok || (c == '/' && idx + 1 < len && s[idx + 1] == '.'))
            return 0;
    }
    return 1;
}

static silt_status tz_fail(silt_error *err, const char *name, int32_t len, const char *why)
{
    return err_set(err, SILT_CORRUPT, "the time zone file of \"%.*s\" is malformed: %s",
                   (int)len, name, why);
}

/* Parses a TZif file held in data[0..size). */
static silt_status tz_parse(arena *a, const unsigned char *data, size_t size, const char *name,
                            int32_t len, engine_tz **out, silt_error *err)
{
    uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
    size_t pos = 0, tsize = 4, block, idx;
    int version;
    engine_tz *tz;
    for (;;) {
        if (size - pos < TZ_HEADER || memcmp(data + pos, "TZif", 4) != 0)
            return tz_fail(err, name, len, "no TZif header");
        version = data[pos + 4];
        isutcnt = be32(data + pos + 20);
        isstdcnt = be32(data + pos + 24);
        leapcnt = be32(data + pos + 28);
        timecnt = be32(data + pos + 32);
        typecnt = be32(data + pos + 36);
        charcnt = be32(data + pos + 40);
        if (timecnt > 100000 || typecnt == 0 || typecnt > 256 || leapcnt > 10000 ||
            charcnt > 100000 || isutcnt > 256 || isstdcnt > 256)
            return tz_fail(err, name, len, "a count is out of range");
        block = timecnt * tsize + timecnt + typecnt * 6 + charcnt + leapcnt * (tsize + 4) +
                isstdcnt + isutcnt;
        pos += TZ_HEADER;
        if (size - pos < block)
            return tz_fail(err, name, len, "the data is shorter than its header says");
        if (tsize == 8 || version < '2')
            break;
        /* Version 2+: skip the 32-bit block, read the 64-bit one after it. */
        pos += block;
        tsize = 8;
    }
    tz = arena_calloc(a, 1, sizeof(*tz));
    if (tz == NULL)
        return err_nomem(err);
    tz->n = timecnt;
    tz->at = arena_alloc(a, sizeof(int64_t) * (timecnt ? timecnt : 1));
    tz->off = arena_alloc(a, sizeof(int32_t) * (timecnt ? timecnt : 1));
    if (tz->at == NULL || tz->off == NULL)
        return err_nomem(err);
    {
        const unsigned char *times = data + pos, *types = times + timecnt * tsize;
        const unsigned char *info = types + timecnt;
        tz->first_off = (int32_t)be32(info);
        for (idx = 0; idx < timecnt; idx++) {
            tz->at[idx] = tsize == 8 ? be64(times + idx * 8) : (int32_t)be32(times + idx * 4);
            if (types[idx] >= typecnt || (idx > 0 && tz->at[idx] < tz->at[idx - 1]))
                return tz_fail(err, name, len, "a transition is out of order or of no type");
            tz->off[idx] = (int32_t)be32(info + types[idx] * 6);
        }
    }
    *out = tz;
    return SILT_OK;
}

silt_status engine_tz_load(arena *a, const char *name, int32_t len, engine_tz **out,
                           silt_error *err)
{
    const char *dir = getenv("TZDIR");
    char path[512];
    unsigned char *data;
    size_t size = 0;
    FILE *f;
    silt_status rc;
    if (!valid_name(name, len))
        return err_set(err, SILT_UNSUPPORTED, "[INVALID_TIMEZONE] the time zone \"%.*s\" is not "
                       "a region name", (int)(len > 64 ? 64 : len), name);
    snprintf(path, sizeof(path), "%s/%.*s", dir != NULL && dir[0] != '\0' ? dir :
             "/usr/share/zoneinfo", (int)len, name);
    f = fopen(path, "rb");
    if (f == NULL)
        return err_set(err, SILT_UNSUPPORTED, "[INVALID_TIMEZONE] the time zone \"%.*s\" is not "
                       "known (no %s)", (int)len, name, path);
    data = arena_alloc(a, TZ_MAX_FILE);
    if (data == NULL) {
        fclose(f);
        return err_nomem(err);
    }
    size = fread(data, 1, TZ_MAX_FILE, f);
    fclose(f);
    rc = tz_parse(a, data, size, name, len, out, err);
    return rc;
}

int32_t engine_tz_offset(const engine_tz *tz, int64_t utc_secs)
{
    int64_t lo = 0, hi = tz->n;
    /* the last transition at or before utc_secs */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (tz->at[mid] <= utc_secs)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? tz->first_off : tz->off[lo - 1];
}

int32_t engine_tz_offset_local(const engine_tz *tz, int64_t local_secs)
{
    /*
     * The offset whose UTC instant shows local_secs: try the offset an
     * offset earlier, then check. In a gap (clocks forward) the time moves
     * on by the gap, in an overlap the earlier offset wins, as java.time does.
     */
    int32_t before = engine_tz_offset(tz, local_secs - 86400);
    int32_t after = engine_tz_offset(tz, local_secs + 86400);
    if (engine_tz_offset(tz, local_secs - before) == before)
        return before;
    if (engine_tz_offset(tz, local_secs - after) == after)
        return after;
    return before;
}
