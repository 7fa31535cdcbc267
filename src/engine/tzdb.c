/*
 * tzdb.c - UTC offsets of region time zones ("Europe/Oslo") from the
 * system's time zone database, for from_utc_timestamp / to_utc_timestamp.
 *
 * A zone is a TZif file (RFC 8536) under $TZDIR or /usr/share/zoneinfo.
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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/expr.h"
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

struct engine_tz {
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
    if (tsize == 8) {
        /* The footer: a newline, the POSIX TZ string, a newline (RFC 8536 section 3.3). */
        const unsigned char *foot = data + pos + block, *nl;
        size_t left = size - pos - block;
        if (left < 2 || foot[0] != '\n' ||
            (nl = memchr(foot + 1, '\n', left - 1)) == NULL)
            return tz_fail(err, name, len, "the footer is missing or not ended by a newline");
        if (!tz_rule_parse((const char *)foot + 1, (size_t)(nl - foot - 1), &tz->rule))
            return tz_fail(err, name, len, "the footer's TZ string is not a POSIX TZ rule");
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
    if (lo == tz->n && tz->rule.present)
        return tz_rule_offset(&tz->rule, utc_secs);
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
