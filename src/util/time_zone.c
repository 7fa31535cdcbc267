/*
 * time_zone.c - Spark's zone ids (time_zone.h): fixed offsets, and region
 * rules read from the system's time zone database.
 *
 * A region is a TZif file (RFC 8536) under $TZDIR or /usr/share/zoneinfo.
 * silt reads its version 2+ data (64-bit transition times; version 1 files
 * use the 32-bit block) and takes the offset of the last transition at or
 * before an instant; before the first transition the first time type
 * applies. After the last transition (the files list them up to 2037) the
 * footer's POSIX TZ string gives the rule (RFC 8536 section 3.3), e.g.
 * "CET-1CEST,M3.5.0,M10.5.0/3": standard and daylight offsets and the
 * rules of the two changes of each year; a footer without daylight time,
 * or a version 1 file (no footer), keeps the last offset.
 * Every count in the file is checked against its size before use, and the
 * footer is parsed within its bytes (a malformed footer is CORRUPT).
 *
 * Zones asked by id are kept in a process-wide list under a mutex (ids are
 * few: the session's, and those written in data), so each file is read
 * once and a zone may be shared by every thread without copying.
 */
#define _POSIX_C_SOURCE 200809L
#include "util/time_zone.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "util/mem.h"
#include "util/time.h"

#define TZ_MAX_FILE (1 << 20)
#define TZ_HEADER 44

/*
 * A change of a POSIX TZ rule: Jn (day 1..365, February 29 never counted),
 * n (day 0..365, leap days counted) or Mm.w.d (day d of week w of month m,
 * week 5 = the last), at secs local seconds of that day (may be negative or
 * beyond a day: RFC 8536 allows -167..167 hours).
 */
typedef struct tz_change {
    char form;          /* 'J', 'D' (zero-based day) or 'M' */
    int32_t day, week, month;
    int32_t secs;
} tz_change;

typedef struct tz_rule {
    int present;        /* the file has a footer with a rule */
    int has_dst;
    int32_t std_off;    /* UTC offsets in seconds (east positive) */
    int32_t dst_off;
    tz_change start, end;
} tz_rule;

struct time_zone {
    char id[72];        /* as asked ("Europe/Oslo", "+02:00") */
    int fixed;          /* 1: the offset below always (no transitions, no rule) */
    int32_t fixed_off;
    int64_t n;          /* transitions */
    int64_t *at;        /* transition instants, seconds since the epoch, ascending */
    int32_t *off;       /* UTC offset in seconds from each transition on */
    int32_t first_off;  /* before the first transition */
    tz_rule rule;       /* after the last transition */
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

/* ---- the POSIX TZ string of the footer (RFC 8536 section 3.3) ---------------------- */

typedef struct tz_text {
    const char *p, *end;
} tz_text;

static int tz_peek(const tz_text *t) { return t->p < t->end ? (unsigned char)*t->p : -1; }

static int tz_number(tz_text *t, int32_t max, int32_t *out)
{
    int32_t v = 0;
    int digits = 0;
    while (t->p < t->end && *t->p >= '0' && *t->p <= '9' && digits < 4) {
        v = v * 10 + (*t->p - '0');
        t->p++;
        digits++;
    }
    if (digits == 0 || v > max)
        return 0;
    *out = v;
    return 1;
}

/* A zone abbreviation: three or more letters, or <...> of letters, digits, + and -. */
static int tz_name(tz_text *t)
{
    int n = 0;
    if (tz_peek(t) == '<') {
        t->p++;
        while (t->p < t->end && *t->p != '>')
            t->p++, n++;
        if (t->p >= t->end)
            return 0;
        t->p++;
        return n >= 3;
    }
    while (t->p < t->end && ((*t->p >= 'A' && *t->p <= 'Z') || (*t->p >= 'a' && *t->p <= 'z')))
        t->p++, n++;
    return n >= 3;
}

/* [+-]hh[:mm[:ss]] in seconds, hours up to max_hours. */
static int tz_hms(tz_text *t, int32_t max_hours, int32_t *out)
{
    int32_t sign = 1, h, m = 0, sec = 0;
    if (tz_peek(t) == '+' || tz_peek(t) == '-')
        sign = *t->p++ == '-' ? -1 : 1;
    if (!tz_number(t, max_hours, &h))
        return 0;
    if (tz_peek(t) == ':') {
        t->p++;
        if (!tz_number(t, 59, &m))
            return 0;
        if (tz_peek(t) == ':') {
            t->p++;
            if (!tz_number(t, 59, &sec))
                return 0;
        }
    }
    *out = sign * (h * 3600 + m * 60 + sec);
    return 1;
}

static int tz_change_parse(tz_text *t, tz_change *c)
{
    c->secs = 7200; /* 02:00 unless the rule says */
    c->day = c->week = c->month = 0;
    if (tz_peek(t) == 'J') {
        t->p++;
        c->form = 'J';
        if (!tz_number(t, 365, &c->day) || c->day < 1)
            return 0;
    } else if (tz_peek(t) == 'M') {
        t->p++;
        c->form = 'M';
        if (!tz_number(t, 12, &c->month) || c->month < 1 || tz_peek(t) != '.')
            return 0;
        t->p++;
        if (!tz_number(t, 5, &c->week) || c->week < 1 || tz_peek(t) != '.')
            return 0;
        t->p++;
        if (!tz_number(t, 6, &c->day))
            return 0;
    } else {
        c->form = 'D';
        if (!tz_number(t, 365, &c->day))
            return 0;
    }
    if (tz_peek(t) == '/') {
        t->p++;
        if (!tz_hms(t, 167, &c->secs))
            return 0;
    }
    return 1;
}

/*
 * Parses "std offset [dst [offset] [,start[/time],end[/time]]]". POSIX
 * offsets count west of Greenwich, so UTC offsets are their negation;
 * daylight time defaults to one hour ahead of standard time.
 */
static int tz_rule_parse(const char *s, size_t len, tz_rule *r)
{
    tz_text t = {s, s + len};
    int32_t off;
    memset(r, 0, sizeof(*r));
    if (len == 0)
        return 1; /* an empty footer: no rule, the last offset stays */
    if (!tz_name(&t) || !tz_hms(&t, 24, &off))
        return 0;
    r->std_off = -off;
    r->dst_off = r->std_off;
    r->present = 1;
    if (t.p == t.end)
        return 1;
    if (!tz_name(&t))
        return 0;
    r->has_dst = 1;
    r->dst_off = r->std_off + 3600;
    if (tz_peek(&t) != ',' && t.p < t.end) {
        if (!tz_hms(&t, 24, &off))
            return 0;
        r->dst_off = -off;
    }
    /* Without a rule POSIX leaves the dates to the implementation; TZif files always give one. */
    if (tz_peek(&t) != ',')
        return 0;
    t.p++;
    if (!tz_change_parse(&t, &r->start) || tz_peek(&t) != ',')
        return 0;
    t.p++;
    if (!tz_change_parse(&t, &r->end))
        return 0;
    return t.p == t.end;
}

static int is_leap(int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

/* The local seconds since the epoch at which change c happens in year. */
static int64_t tz_change_local(const tz_change *c, int64_t year)
{
    int64_t days = time_days_from_civil(year, 1, 1);
    if (c->form == 'J') {
        days += c->day - 1;
        if (is_leap(year) && c->day >= 60)
            days++; /* Jn never counts February 29 */
    } else if (c->form == 'D') {
        days += c->day;
    } else {
        /* Mm.w.d: the first weekday d of the month, plus w - 1 weeks, the last when past the month */
        static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        int64_t first = time_days_from_civil(year, (unsigned)c->month, 1);
        int32_t n_days = mdays[c->month - 1] + (c->month == 2 && is_leap(year));
        int64_t wday = time_floor_mod(first + 4, 7); /* 1970-01-01 was a Thursday */
        int64_t day = time_floor_mod(c->day - wday, 7) + 7 * (c->week - 1);
        while (day >= n_days)
            day -= 7;
        days = first + day;
    }
    return days * 86400 + c->secs;
}

/* The UTC offset of instant utc_secs under the footer's rule. */
static int32_t tz_rule_offset(const tz_rule *r, int64_t utc_secs)
{
    int64_t year, start, end;
    unsigned month, day;
    if (!r->has_dst)
        return r->std_off;
    time_civil_from_days(time_floor_div(utc_secs + r->std_off, 86400), &year, &month, &day);
    /* daylight time starts at a standard-time wall clock and ends at a daylight-time one */
    start = tz_change_local(&r->start, year) - r->std_off;
    end = tz_change_local(&r->end, year) - r->dst_off;
    if (start < end)
        return utc_secs >= start && utc_secs < end ? r->dst_off : r->std_off;
    /* southern hemisphere: daylight time spans the turn of the year */
    return utc_secs >= end && utc_secs < start ? r->std_off : r->dst_off;
}

/* Parses a TZif file held in data[0..size) into a zone of its own allocation. */
static silt_status tz_parse(const unsigned char *data, size_t size, const char *name,
                            int32_t len, time_zone **out, silt_error *err)
{
    uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
    size_t pos = 0, tsize = 4, block, idx;
    int version;
    time_zone *tz;
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
    tz = mem_calloc(1, sizeof(*tz));
    if (tz == NULL)
        return err_nomem(err);
    tz->n = timecnt;
    tz->at = mem_alloc(sizeof(int64_t) * (timecnt ? timecnt : 1));
    tz->off = mem_alloc(sizeof(int32_t) * (timecnt ? timecnt : 1));
    if (tz->at == NULL || tz->off == NULL) {
        time_zone_free(tz);
        return err_nomem(err);
    }
    {
        const unsigned char *times = data + pos, *types = times + timecnt * tsize;
        const unsigned char *info = types + timecnt;
        tz->first_off = (int32_t)be32(info);
        for (idx = 0; idx < timecnt; idx++) {
            tz->at[idx] = tsize == 8 ? be64(times + idx * 8) : (int32_t)be32(times + idx * 4);
            if (types[idx] >= typecnt || (idx > 0 && tz->at[idx] < tz->at[idx - 1])) {
                time_zone_free(tz);
                return tz_fail(err, name, len, "a transition is out of order or of no type");
            }
            tz->off[idx] = (int32_t)be32(info + types[idx] * 6);
        }
    }
    if (tsize == 8) {
        /* The footer: a newline, the POSIX TZ string, a newline (RFC 8536 section 3.3). */
        const unsigned char *foot = data + pos + block, *nl;
        size_t left = size - pos - block;
        const char *why = NULL;
        if (left < 2 || foot[0] != '\n' || (nl = memchr(foot + 1, '\n', left - 1)) == NULL)
            why = "the footer is missing or not ended by a newline";
        else if (!tz_rule_parse((const char *)foot + 1, (size_t)(nl - foot - 1), &tz->rule))
            why = "the footer's TZ string is not a POSIX TZ rule";
        if (why != NULL) {
            time_zone_free(tz);
            return tz_fail(err, name, len, why);
        }
    }
    snprintf(tz->id, sizeof(tz->id), "%.*s", (int)len, name);
    *out = tz;
    return SILT_OK;
}

silt_status time_zone_from_tzif(const unsigned char *data, size_t size, const char *id,
                                const time_zone **out, silt_error *err)
{
    time_zone *tz;
    SILT_RETURN_IF_ERROR(tz_parse(data, size, id, (int32_t)strlen(id), &tz, err));
    *out = tz;
    return SILT_OK;
}

void time_zone_free(const time_zone *z)
{
    time_zone *tz = (time_zone *)z;
    if (tz == NULL)
        return;
    mem_free(tz->at);
    mem_free(tz->off);
    mem_free(tz);
}

/* Spark's message for an id that is no zone (error class INVALID_TIMEZONE). */
static silt_status not_a_zone(const char *name, size_t len, silt_error *err)
{
    return err_set(err, SILT_INVALID, TIME_ZONE_INVALID_CLASS "The timezone: %.*s is invalid. "
                   "The timezone must be either a region-based zone ID or a zone offset. Region "
                   "IDs must have the form 'area/city', such as 'America/Los_Angeles'. Zone "
                   "offsets must be in the format '(+|-)HH', '(+|-)HH:mm' or '(+|-)HH:mm:ss', "
                   "e.g '-08', '+01:00' or '-13:33:33', and must be in the range from -18:00 to "
                   "+18:00. 'Z' and 'UTC' are accepted as synonyms for '+00:00'.",
                   (int)(len > 64 ? 64 : len), name);
}

/* Reads region name's TZif file into a new zone (not kept in the process list). */
static silt_status tz_load(const char *name, size_t len, time_zone **out, silt_error *err)
{
    const char *dir = getenv("TZDIR");
    char path[512];
    unsigned char *data;
    size_t size = 0;
    FILE *f;
    silt_status rc;
    if (!valid_name(name, (int32_t)len) ||
        (len >= 6 && (memcmp(name, "posix/", 6) == 0 || memcmp(name, "right/", 6) == 0)))
        return not_a_zone(name, len, err);
    snprintf(path, sizeof(path), "%s/%.*s", dir != NULL && dir[0] != '\0' ? dir :
             "/usr/share/zoneinfo", (int)len, name);
    f = fopen(path, "rb");
    if (f == NULL)
        return not_a_zone(name, len, err);
    data = mem_alloc(TZ_MAX_FILE);
    if (data == NULL) {
        fclose(f);
        return err_nomem(err);
    }
    size = fread(data, 1, TZ_MAX_FILE, f);
    fclose(f);
    if (size < 4 || memcmp(data, "TZif", 4) != 0) { /* a folder or a table, not a zone */
        mem_free(data);
        return not_a_zone(name, len, err);
    }
    rc = tz_parse(data, size, name, (int32_t)len, out, err);
    mem_free(data);
    return rc;
}

/* ---- Spark's zone ids ------------------------------------------------------------ */

/* Digits at s[*pos], exactly n of them; -1 when not there. */
static int32_t fixed_digits(const char *s, size_t len, size_t *pos, int n)
{
    int32_t v = 0;
    int k;
    for (k = 0; k < n; k++) {
        if (*pos >= len || s[*pos] < '0' || s[*pos] > '9')
            return -1;
        v = v * 10 + (s[(*pos)++] - '0');
    }
    return v;
}

/*
 * java.time's ZoneOffset.of: +h, +hh, +hh:mm, +hhmm, +hh:mm:ss, +hhmmss (at
 * most 18 hours), with Spark's two rewrites first (getZoneId): "+h:" is
 * read as "+0h:" and a final "+hh:m" as "+hh:0m". 1 with the seconds east.
 */
static int offset_of(const char *s, size_t len, int32_t *out)
{
    size_t pos = 1;
    int32_t h, m = 0, sec = 0;
    int sign;
    if (len < 2 || (s[0] != '+' && s[0] != '-'))
        return 0;
    sign = s[0] == '-' ? -1 : 1;
    if (len == 2 || (len >= 3 && s[2] == ':')) { /* +h or Spark's +h:mm */
        h = s[1] - '0';
        if (h < 0 || h > 9)
            return 0;
        pos = 2;
        if (len == 2)
            goto done;
    } else if ((h = fixed_digits(s, len, &pos, 2)) < 0) {
        return 0;
    }
    if (pos == len)
        goto done;
    if (s[pos] == ':') {
        pos++;
        if (len - pos == 1) { /* Spark's +hh:m */
            m = s[pos] - '0';
            if (m < 0 || m > 9 || len != 5)
                return 0;
            pos++;
            goto done;
        }
        if ((m = fixed_digits(s, len, &pos, 2)) < 0)
            return 0;
        if (pos < len && (s[pos] != ':' || (pos++, sec = fixed_digits(s, len, &pos, 2)) < 0))
            return 0;
    } else {
        if ((m = fixed_digits(s, len, &pos, 2)) < 0)
            return 0;
        if (pos < len && (sec = fixed_digits(s, len, &pos, 2)) < 0)
            return 0;
    }
done:
    if (pos != len || h > 18 || m > 59 || sec > 59 || (h == 18 && (m > 0 || sec > 0)))
        return 0;
    *out = sign * (h * 3600 + m * 60 + sec);
    return 1;
}

/* ZoneId.SHORT_IDS: the three fixed ones and the regions the others stand for. */
static const char *short_id(const char *s, size_t len, int32_t *fixed_out, int *is_fixed)
{
    static const struct {
        const char *id, *region;
        int32_t off;
    } ids[] = {
        {"EST", NULL, -5 * 3600}, {"MST", NULL, -7 * 3600}, {"HST", NULL, -10 * 3600},
        {"ACT", "Australia/Darwin", 0}, {"AET", "Australia/Sydney", 0},
        {"AGT", "America/Argentina/Buenos_Aires", 0}, {"ART", "Africa/Cairo", 0},
        {"AST", "America/Anchorage", 0}, {"BET", "America/Sao_Paulo", 0},
        {"BST", "Asia/Dhaka", 0}, {"CAT", "Africa/Harare", 0}, {"CNT", "America/St_Johns", 0},
        {"CST", "America/Chicago", 0}, {"CTT", "Asia/Shanghai", 0},
        {"EAT", "Africa/Addis_Ababa", 0}, {"ECT", "Europe/Paris", 0},
        {"IET", "America/Indiana/Indianapolis", 0}, {"IST", "Asia/Kolkata", 0},
        {"JST", "Asia/Tokyo", 0}, {"MIT", "Pacific/Apia", 0}, {"NET", "Asia/Yerevan", 0},
        {"NST", "Pacific/Auckland", 0}, {"PLT", "Asia/Karachi", 0},
        {"PNT", "America/Phoenix", 0}, {"PRT", "America/Puerto_Rico", 0},
        {"PST", "America/Los_Angeles", 0}, {"SST", "Pacific/Guadalcanal", 0},
        {"VST", "Asia/Ho_Chi_Minh", 0},
    };
    size_t idx;
    *is_fixed = 0;
    if (len != 3)
        return NULL;
    for (idx = 0; idx < sizeof(ids) / sizeof(ids[0]); idx++) {
        if (memcmp(ids[idx].id, s, 3) == 0) {
            *is_fixed = ids[idx].region == NULL;
            *fixed_out = ids[idx].off;
            return ids[idx].region;
        }
    }
    return NULL;
}

/* What an id stands for: a fixed offset (*fixed = 1) or a region's file name. */
static int resolve_id(const char *s, size_t len, int *fixed, int32_t *off, const char **region,
                      size_t *region_len)
{
    const char *mapped = short_id(s, len, off, fixed);
    size_t prefix = 0;
    *region = NULL;
    if (*fixed)
        return 1;
    if (mapped != NULL) {
        *region = mapped;
        *region_len = strlen(mapped);
        return 1;
    }
    if (len == 1 && s[0] == 'Z') {
        *fixed = 1;
        *off = 0;
        return 1;
    }
    if (len >= 1 && (s[0] == '+' || s[0] == '-')) {
        *fixed = 1;
        return offset_of(s, len, off);
    }
    if (len >= 3 && (memcmp(s, "UTC", 3) == 0 || memcmp(s, "GMT", 3) == 0))
        prefix = 3;
    else if (len >= 2 && memcmp(s, "UT", 2) == 0)
        prefix = 2;
    if (prefix > 0 && (len == prefix || s[prefix] == '+' || s[prefix] == '-')) {
        *fixed = 1;
        *off = 0;
        return len == prefix || offset_of(s + prefix, len - prefix, off);
    }
    *region = s;
    *region_len = len;
    return 1;
}

static pthread_mutex_t zones_lock = PTHREAD_MUTEX_INITIALIZER;
static time_zone *zones[256];
static size_t n_zones;

silt_status time_zone_get(const char *id, size_t len, const time_zone **out, silt_error *err)
{
    const char *region;
    size_t region_len = 0, idx;
    int fixed;
    int32_t off = 0;
    time_zone *z = NULL;
    silt_status rc = SILT_OK;
    if (len == 0 || len >= sizeof(z->id) || !resolve_id(id, len, &fixed, &off, &region, &region_len))
        return not_a_zone(id, len, err);
    pthread_mutex_lock(&zones_lock);
    for (idx = 0; idx < n_zones; idx++) {
        if (strlen(zones[idx]->id) == len && memcmp(zones[idx]->id, id, len) == 0) {
            *out = zones[idx];
            pthread_mutex_unlock(&zones_lock);
            return SILT_OK;
        }
    }
    if (fixed) {
        z = mem_calloc(1, sizeof(*z));
        if (z == NULL)
            rc = err_nomem(err);
        else {
            z->fixed = 1;
            z->fixed_off = off;
        }
    } else {
        rc = tz_load(region, region_len, &z, err);
        if (rc != SILT_OK && rc != SILT_NOMEM && region != id)
            rc = not_a_zone(id, len, err);
    }
    if (rc == SILT_OK) {
        snprintf(z->id, sizeof(z->id), "%.*s", (int)len, id);
        if (n_zones < sizeof(zones) / sizeof(zones[0]))
            zones[n_zones++] = z; /* past the list's room a zone is simply not shared */
        *out = z;
    }
    pthread_mutex_unlock(&zones_lock);
    return rc;
}

const time_zone *time_zone_find(const char *id, size_t len)
{
    const time_zone *z = NULL;
    silt_error e;
    err_clear(&e);
    if (time_zone_get(id, len, &z, &e) != SILT_OK)
        return NULL;
    return z;
}

/* The machine's zone name into buf ("" when none is found). */
static void machine_zone(char *name, size_t cap)
{
    const char *tz = getenv("TZ");
    char link[512];
    ssize_t n;
    FILE *f;
    name[0] = '\0';
    if (tz != NULL && tz[0] != '\0') {
        snprintf(name, cap, "%s", tz[0] == ':' ? tz + 1 : tz);
        return;
    }
    f = fopen("/etc/timezone", "r");
    if (f != NULL) {
        if (fgets(name, (int)cap, f) == NULL)
            name[0] = '\0';
        fclose(f);
        name[strcspn(name, " \t\r\n")] = '\0';
        if (name[0] != '\0')
            return;
    }
    n = readlink("/etc/localtime", link, sizeof(link) - 1);
    if (n > 0) {
        const char *at;
        link[n] = '\0';
        at = strstr(link, "zoneinfo/");
        if (at != NULL)
            snprintf(name, cap, "%s", at + 9);
    }
}

static const time_zone *default_zone;

static void pick_default(void)
{
    char name[128];
    machine_zone(name, sizeof(name));
    default_zone = name[0] != '\0' ? time_zone_find(name, strlen(name)) : NULL;
    if (default_zone == NULL)
        default_zone = time_zone_find("UTC", 3);
}

const time_zone *time_zone_default(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, pick_default);
    return default_zone;
}

const char *time_zone_id(const time_zone *z) { return z == NULL ? "UTC" : z->id; }

int time_zone_is_fixed(const time_zone *z) { return z == NULL || z->fixed; }

static int32_t region_offset(const time_zone *tz, int64_t utc_secs)
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
    if (lo == tz->n && tz->rule.present)
        return tz_rule_offset(&tz->rule, utc_secs);
    return lo == 0 ? tz->first_off : tz->off[lo - 1];
}

int32_t time_zone_offset(const time_zone *tz, int64_t utc_secs)
{
    if (tz == NULL)
        return 0;
    return tz->fixed ? tz->fixed_off : region_offset(tz, utc_secs);
}

int32_t time_zone_offset_local(const time_zone *tz, int64_t local_secs)
{
    /*
     * The offset whose UTC instant shows local_secs: try the offset a day
     * earlier, then a day later, and check. In a gap neither shows it and
     * the earlier offset moves the time on by the gap, as java.time does.
     */
    int32_t before, after;
    if (tz == NULL || tz->fixed)
        return tz == NULL ? 0 : tz->fixed_off;
    before = region_offset(tz, local_secs - 86400);
    after = region_offset(tz, local_secs + 86400);
    if (region_offset(tz, local_secs - before) == before)
        return before;
    if (region_offset(tz, local_secs - after) == after)
        return after;
    return before;
}

int64_t time_zone_to_local(const time_zone *z, int64_t utc_micros)
{
    if (z == NULL)
        return utc_micros;
    return utc_micros +
           (int64_t)time_zone_offset(z, time_floor_div(utc_micros, TIME_MICROS_PER_SECOND)) *
               TIME_MICROS_PER_SECOND;
}

int64_t time_zone_from_local(const time_zone *z, int64_t local_micros)
{
    if (z == NULL)
        return local_micros;
    return local_micros - (int64_t)time_zone_offset_local(
                              z, time_floor_div(local_micros, TIME_MICROS_PER_SECOND)) *
                              TIME_MICROS_PER_SECOND;
}
