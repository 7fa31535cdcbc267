/*
 * text_datetime.c - compiling, matching and formatting Spark datetime
 * patterns (see text_datetime.h): the one pattern engine of silt, used by
 * the CSV and JSON readers and by the SQL functions (date_format,
 * to_timestamp, ...). A pattern compiles to a list of tokens; matching
 * walks them left to right with backtracking only at optional sections, so
 * matching is linear in the value's length.
 */
#include "formats/text/text_datetime.h"

#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/time.h"

typedef enum dt_kind {
    DT_LITERAL,
    DT_YEAR,
    DT_MONTH,
    DT_MONTH_NAME,
    DT_DAY,
    DT_DAY_OF_YEAR,
    DT_QUARTER,
    DT_HOUR24,
    DT_HOUR12,
    DT_MINUTE,
    DT_SECOND,
    DT_FRACTION,
    DT_AMPM,
    DT_DAY_NAME,
    DT_ZONE,
    DT_OPT_START,
    DT_OPT_END
} dt_kind;

typedef struct dt_token {
    dt_kind kind;
    int count; /* letters in the run (width), or the literal byte */
    int zone_z; /* DT_ZONE: 'Z' stands for +00:00 (X) */
} dt_token;

struct text_dt_pattern {
    dt_token *tokens;
    size_t n;
};

static int is_numeric(dt_kind k)
{
    return k == DT_YEAR || k == DT_MONTH || k == DT_DAY || k == DT_HOUR24 || k == DT_HOUR12 ||
           k == DT_MINUTE || k == DT_SECOND || k == DT_FRACTION || k == DT_DAY_OF_YEAR ||
           (k == DT_QUARTER);
}

silt_status text_dt_compile(const char *pattern, arena *a, const text_dt_pattern **out,
                            silt_error *err)
{
    return text_dt_compile_n(pattern, strlen(pattern), a, out, err);
}

silt_status text_dt_compile_n(const char *pattern_text, size_t len, arena *a,
                              const text_dt_pattern **out, silt_error *err)
{
    size_t n = 0, depth = 0;
    char *pattern = arena_alloc(a, len + 1);
    if (pattern == NULL)
        return err_nomem(err);
    memcpy(pattern, pattern_text, len);
    pattern[len] = '\0';
    text_dt_pattern *p = arena_calloc(a, 1, sizeof(*p));
    dt_token *toks = arena_calloc(a, len + 1, sizeof(dt_token));
    if (p == NULL || toks == NULL)
        return err_nomem(err);
    for (size_t pos = 0; pos < len;) {
        char c = pattern[pos];
        size_t run = 1;
        while (pos + run < len && pattern[pos + run] == c)
            run++;
        dt_token *t = &toks[n];
        if (c == '\'') {
            if (run >= 2 && run % 2 == 0) { /* '' is a quote */
                for (size_t idx = 0; idx < run / 2; idx++)
                    toks[n++] = (dt_token){DT_LITERAL, '\'', 0};
                pos += run;
                continue;
            }
            size_t end = pos + 1;
            for (;; end++) {
                if (end >= len)
                    return err_set(err, SILT_INVALID,
                                   "datetime pattern \"%s\" has an unterminated quote at "
                                   "position %zu", pattern, pos + 1);
                if (pattern[end] == '\'' && end + 1 < len && pattern[end + 1] == '\'') {
                    toks[n++] = (dt_token){DT_LITERAL, '\'', 0}; /* '' inside quotes */
                    end++;
                    continue;
                }
                if (pattern[end] == '\'')
                    break;
                toks[n++] = (dt_token){DT_LITERAL, (unsigned char)pattern[end], 0};
            }
            pos = end + 1;
            continue;
        }
        run = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? run : 1;
        switch (c) {
        case 'y':
        case 'u': *t = (dt_token){DT_YEAR, (int)run, 0}; break;
        case 'M':
        case 'L': *t = (dt_token){run >= 3 ? DT_MONTH_NAME : DT_MONTH, (int)run, 0}; break;
        case 'd': *t = (dt_token){DT_DAY, (int)run, 0}; break;
        case 'D': *t = (dt_token){DT_DAY_OF_YEAR, (int)run, 0}; break;
        case 'Q':
        case 'q': *t = (dt_token){DT_QUARTER, (int)run, 0}; break;
        case 'H': *t = (dt_token){DT_HOUR24, (int)run, 0}; break;
        case 'h': *t = (dt_token){DT_HOUR12, (int)run, 0}; break;
        case 'm': *t = (dt_token){DT_MINUTE, (int)run, 0}; break;
        case 's': *t = (dt_token){DT_SECOND, (int)run, 0}; break;
        case 'S': *t = (dt_token){DT_FRACTION, (int)run, 0}; break;
        case 'a': *t = (dt_token){DT_AMPM, 1, 0}; break;
        case 'E': *t = (dt_token){DT_DAY_NAME, (int)run, 0}; break;
        case 'X': *t = (dt_token){DT_ZONE, (int)run, 1}; break;
        case 'x': *t = (dt_token){DT_ZONE, (int)run, 0}; break;
        /* Z..ZZZ is +hhmm ("+0000" in UTC), ZZZZZ is XXX */
        case 'Z': *t = (dt_token){DT_ZONE, run == 5 ? 3 : 2, run == 5}; break;
        case '[': *t = (dt_token){DT_OPT_START, 0, 0}; depth++; break;
        case ']':
            if (depth == 0)
                return err_set(err, SILT_INVALID,
                               "datetime pattern \"%s\" closes an optional section it did not "
                               "open at position %zu", pattern, pos + 1);
            *t = (dt_token){DT_OPT_END, 0, 0};
            depth--;
            break;
        default:
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
                err_set(err, SILT_UNSUPPORTED,
                        "datetime pattern \"%s\" uses letter '%c' at position %zu, which silt "
                        "does not support", pattern, c, pos + 1);
                err_hint(err, "supported letters: y u M L d D Q H h m s S a E X x Z");
                return SILT_UNSUPPORTED;
            }
            *t = (dt_token){DT_LITERAL, (unsigned char)c, 0};
            break;
        }
        if ((t->kind == DT_ZONE && run > 5) || (t->kind == DT_MONTH_NAME && run > 5) ||
            (t->kind == DT_QUARTER && run > 4) || (t->kind == DT_DAY_NAME && run > 5) ||
            (t->kind == DT_DAY_OF_YEAR && run > 3) || (t->kind == DT_AMPM && run > 1) ||
            (c == 'Z' && run == 4) ||
            ((t->kind == DT_DAY || t->kind == DT_HOUR24 || t->kind == DT_HOUR12 ||
              t->kind == DT_MINUTE || t->kind == DT_SECOND || t->kind == DT_MONTH) && run > 2))
            return err_set(err, SILT_UNSUPPORTED, "datetime pattern \"%s\" has too many '%c' at "
                           "position %zu", pattern, c, pos + 1);
        if (t->kind == DT_FRACTION && run > 9)
            return err_set(err, SILT_UNSUPPORTED, "datetime pattern \"%s\" has more than 9 'S'",
                           pattern);
        n++;
        pos += run;
    }
    if (depth != 0)
        return err_set(err, SILT_INVALID, "datetime pattern \"%s\" leaves a '[' open", pattern);
    p->tokens = toks;
    p->n = n;
    *out = p;
    return SILT_OK;
}

typedef struct dt_state {
    int64_t year;
    int month, day, hour, minute, second, pm, has_ampm, has_offset, day_of_year;
    int64_t micros, offset_seconds;
    size_t pos;
} dt_state;

static int read_digits(const char *s, size_t len, size_t *pos, int min, int max, int64_t *out)
{
    int64_t v = 0;
    int n = 0;
    while (*pos < len && n < max && s[*pos] >= '0' && s[*pos] <= '9') {
        v = v * 10 + (s[*pos] - '0');
        (*pos)++;
        n++;
    }
    *out = v;
    return n >= min;
}

static const char *const month_names[12] = {"january", "february", "march",     "april",
                                            "may",     "june",     "july",      "august",
                                            "september", "october", "november", "december"};
static const char *const day_names[7] = {"monday", "tuesday", "wednesday", "thursday",
                                         "friday", "saturday", "sunday"};

/* Matches a full name or its three-letter form; returns the index or -1. */
static int match_name(const char *s, size_t len, size_t *pos, const char *const *names, int count,
                      int full)
{
    for (int idx = 0; idx < count; idx++) {
        size_t n = full ? strlen(names[idx]) : 3;
        if (len - *pos >= n && util_str_ncasecmp(s + *pos, names[idx], n) == 0) {
            *pos += n;
            return idx;
        }
    }
    return -1;
}

static int match_zone(const dt_token *t, const char *s, size_t len, dt_state *st)
{
    int64_t hh, mm = 0;
    if (t->zone_z && st->pos < len && (s[st->pos] == 'Z' || s[st->pos] == 'z')) {
        st->pos++;
        st->offset_seconds = 0;
        st->has_offset = 1;
        return 1;
    }
    if (st->pos >= len || (s[st->pos] != '+' && s[st->pos] != '-'))
        return 0;
    int negative = s[st->pos++] == '-';
    if (!read_digits(s, len, &st->pos, 2, 2, &hh))
        return 0;
    if (t->count >= 3 && st->pos < len && s[st->pos] == ':') {
        st->pos++;
        if (!read_digits(s, len, &st->pos, 2, 2, &mm))
            return 0;
    } else if (t->count == 2 || (t->count >= 3 && st->pos < len && s[st->pos] != ':')) {
        if (!read_digits(s, len, &st->pos, t->count == 2 ? 2 : 0, 2, &mm))
            return 0;
    }
    if (hh > 18 || mm > 59)
        return 0;
    st->offset_seconds = (negative ? -1 : 1) * (hh * 3600 + mm * 60);
    st->has_offset = 1;
    return 1;
}

static int match_token(const text_dt_pattern *p, size_t idx, const char *s, size_t len,
                       dt_state *st)
{
    const dt_token *t = &p->tokens[idx];
    /* A numeric field right before another numeric one reads exactly its
     * width ("yyyyMMdd"); otherwise widths are minimums, as in Java. */
    int adjacent = idx + 1 < p->n && is_numeric(p->tokens[idx + 1].kind);
    int64_t v;
    switch (t->kind) {
    case DT_LITERAL:
        if (st->pos < len && (s[st->pos] == (char)t->count ||
                              ((char)t->count >= 'a' && (char)t->count <= 'z' &&
                               s[st->pos] == (char)t->count - 32))) {
            st->pos++;
            return 1;
        }
        return 0;
    case DT_YEAR:
        if (t->count == 2) {
            if (!read_digits(s, len, &st->pos, 2, 2, &v))
                return 0;
            st->year = 2000 + v;
            return 1;
        }
        if (!read_digits(s, len, &st->pos, t->count, adjacent ? t->count : 9, &v))
            return 0;
        st->year = v;
        return 1;
    case DT_DAY_OF_YEAR:
        if (!read_digits(s, len, &st->pos, t->count, t->count >= 3 || adjacent ? t->count : 3, &v))
            return 0;
        st->day_of_year = (int)v;
        return v >= 1 && v <= 366;
    case DT_QUARTER:
        if (t->count >= 3) /* Q1 or 1st quarter: checked, not used, as Java's resolver */
            return 0;
        return read_digits(s, len, &st->pos, t->count, t->count, &v) && v >= 1 && v <= 4;
    case DT_MONTH:
    case DT_DAY:
    case DT_HOUR24:
    case DT_HOUR12:
    case DT_MINUTE:
    case DT_SECOND:
        if (!read_digits(s, len, &st->pos, t->count, t->count >= 2 || adjacent ? t->count : 2, &v))
            return 0;
        if (t->kind == DT_MONTH)
            st->month = (int)v;
        else if (t->kind == DT_DAY)
            st->day = (int)v;
        else if (t->kind == DT_MINUTE)
            st->minute = (int)v;
        else if (t->kind == DT_SECOND)
            st->second = (int)v;
        else {
            st->hour = (int)v;
            if (t->kind == DT_HOUR12 && (v < 1 || v > 12))
                return 0;
            if (t->kind == DT_HOUR12)
                st->has_ampm |= 2;
        }
        return 1;
    case DT_FRACTION: {
        size_t start = st->pos;
        if (!read_digits(s, len, &st->pos, t->count, t->count, &v))
            return 0;
        for (size_t digits = st->pos - start; digits < 6; digits++)
            v *= 10;
        for (size_t digits = st->pos - start; digits > 6; digits--)
            v /= 10;
        st->micros = v;
        return 1;
    }
    case DT_MONTH_NAME: {
        int m = match_name(s, len, &st->pos, month_names, 12, t->count >= 4);
        st->month = m + 1;
        return m >= 0;
    }
    case DT_DAY_NAME:
        return match_name(s, len, &st->pos, day_names, 7, t->count >= 4) >= 0;
    case DT_AMPM:
        if (len - st->pos >= 2 && (util_str_ncasecmp(s + st->pos, "AM", 2) == 0 ||
                                   util_str_ncasecmp(s + st->pos, "PM", 2) == 0)) {
            st->pm = s[st->pos] == 'P' || s[st->pos] == 'p';
            st->has_ampm |= 1;
            st->pos += 2;
            return 1;
        }
        return 0;
    case DT_ZONE:
        return match_zone(t, s, len, st);
    default:
        return 0;
    }
}

/* Matches tokens [from, to); optional sections are tried and skipped. */
static int match_seq(const text_dt_pattern *p, size_t from, size_t to, const char *s, size_t len,
                     dt_state *st)
{
    for (size_t idx = from; idx < to; idx++) {
        if (p->tokens[idx].kind == DT_OPT_START) {
            size_t depth = 1, end = idx + 1;
            while (end < to && depth > 0) {
                depth += p->tokens[end].kind == DT_OPT_START;
                depth -= p->tokens[end].kind == DT_OPT_END;
                end += depth > 0;
            }
            dt_state saved = *st;
            if (!match_seq(p, idx + 1, end, s, len, st))
                *st = saved;
            idx = end;
            continue;
        }
        if (p->tokens[idx].kind == DT_OPT_END)
            continue;
        if (!match_token(p, idx, s, len, st))
            return 0;
    }
    return 1;
}

int text_dt_parse_local(const text_dt_pattern *p, const char *s, size_t len, int64_t *local_out,
                        int *has_offset, int32_t *offset_out)
{
    dt_state st;
    memset(&st, 0, sizeof(st));
    st.year = 1970;
    st.month = 1;
    st.day = 1;
    if (!match_seq(p, 0, p->n, s, len, &st) || st.pos != len)
        return 0;
    if (st.has_ampm & 2) { /* h with a: 12 AM is midnight */
        st.hour = st.hour % 12 + ((st.has_ampm & 1) && st.pm ? 12 : 0);
    } else if ((st.has_ampm & 1) && st.pm && st.hour < 12) {
        st.hour += 12;
    }
    if (st.day_of_year > 0) {
        int64_t d0 = time_days_from_civil(st.year, 1, 1) + st.day_of_year - 1, y;
        unsigned mm, dd;
        time_civil_from_days(d0, &y, &mm, &dd);
        if (y != st.year)
            return 0; /* day 366 of a year of 365 */
        st.month = (int)mm;
        st.day = (int)dd;
    }
    if (st.year > 294000 || st.month < 1 || st.month > 12 ||
        !time_valid_date(st.year, (unsigned)st.month, (unsigned)st.day) || st.hour > 23 ||
        st.minute > 59 || st.second > 59)
        return 0;
    *local_out = time_days_from_civil(st.year, (unsigned)st.month, (unsigned)st.day) *
                     TIME_MICROS_PER_DAY +
                 ((int64_t)st.hour * 3600 + st.minute * 60 + st.second) * TIME_MICROS_PER_SECOND +
                 st.micros;
    *has_offset = st.has_offset;
    *offset_out = (int32_t)st.offset_seconds;
    return 1;
}

int text_dt_parse_timestamp_in(const text_dt_pattern *p, const char *s, size_t len,
                               const time_zone *zone, int64_t *out)
{
    int64_t local;
    int has_offset;
    int32_t offset;
    if (!text_dt_parse_local(p, s, len, &local, &has_offset, &offset))
        return 0;
    *out = has_offset ? local - (int64_t)offset * TIME_MICROS_PER_SECOND
                      : time_zone_from_local(zone, local);
    return 1;
}

int text_dt_parse_timestamp(const text_dt_pattern *p, const char *s, size_t len, int64_t *out)
{
    return text_dt_parse_timestamp_in(p, s, len, NULL, out);
}

int text_dt_parse_date(const text_dt_pattern *p, const char *s, size_t len, int32_t *out)
{
    int64_t local;
    int has_offset;
    int32_t offset;
    /* a date pattern gives a local date: an offset in it plays no part (Spark's LocalDate) */
    if (!text_dt_parse_local(p, s, len, &local, &has_offset, &offset))
        return 0;
    int64_t days = time_floor_div(local, TIME_MICROS_PER_DAY);
    if (days < INT32_MIN || days > INT32_MAX)
        return 0;
    *out = (int32_t)days;
    return 1;
}

/* ---- formatting (Java's DateTimeFormatter, as Spark's date_format) ------------------ */

static const char *const month_title[12] = {"January", "February", "March",     "April",
                                            "May",     "June",     "July",      "August",
                                            "September", "October", "November", "December"};
static const char *const day_title[7] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                         "Friday", "Saturday", "Sunday"};

static silt_status put_num(buf *b, int64_t v, int width, silt_error *err)
{
    return buf_printf(b, err, "%0*lld", width, (long long)v);
}

/* An offset as X/x (count 1: +hh, 2: +hhmm, 3: +hh:mm; Z for zero when zulu), Z (+hhmm). */
static silt_status put_offset(buf *b, const dt_token *t, int32_t off, silt_error *err)
{
    int32_t mag = off < 0 ? -off : off, h = mag / 3600, m = mag / 60 % 60, sec = mag % 60;
    if (off == 0 && t->zone_z)
        return buf_append_char(b, 'Z', err);
    SILT_RETURN_IF_ERROR(buf_printf(b, err, "%c%02d", off < 0 ? '-' : '+', (int)h));
    if (t->count == 1 && m == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(buf_printf(b, err, t->count >= 3 ? ":%02d" : "%02d", (int)m));
    if (sec != 0)
        SILT_RETURN_IF_ERROR(buf_printf(b, err, t->count >= 3 ? ":%02d" : "%02d", (int)sec));
    return SILT_OK;
}

static silt_status format_token(const dt_token *t, int64_t local, int32_t offset, buf *b,
                                silt_error *err)
{
    int64_t days = time_floor_div(local, TIME_MICROS_PER_DAY), year;
    int64_t rest = local - days * TIME_MICROS_PER_DAY;
    int64_t secs = rest / TIME_MICROS_PER_SECOND, hour = secs / 3600;
    unsigned month, day;
    int wday = (int)time_floor_mod(days + 3, 7); /* 0 = Monday (1970-01-01 was a Thursday) */
    time_civil_from_days(days, &year, &month, &day);
    switch (t->kind) {
    case DT_LITERAL: return buf_append_char(b, (char)t->count, err);
    case DT_YEAR:
        if (t->count == 2)
            return put_num(b, time_floor_mod(year, 100), 2, err);
        return put_num(b, year, t->count, err);
    case DT_MONTH: return put_num(b, month, t->count, err);
    case DT_MONTH_NAME:
        if (t->count == 5)
            return buf_append(b, month_title[month - 1], 1, err);
        return t->count == 4 ? buf_append_str(b, month_title[month - 1], err)
                             : buf_append(b, month_title[month - 1], 3, err);
    case DT_DAY: return put_num(b, day, t->count, err);
    case DT_DAY_OF_YEAR: return put_num(b, days - time_days_from_civil(year, 1, 1) + 1, t->count, err);
    case DT_QUARTER:
        if (t->count == 3)
            return buf_printf(b, err, "Q%u", (month - 1) / 3 + 1);
        if (t->count == 4) {
            static const char *const q[] = {"1st quarter", "2nd quarter", "3rd quarter", "4th quarter"};
            return buf_append_str(b, q[(month - 1) / 3], err);
        }
        return put_num(b, (month - 1) / 3 + 1, t->count, err);
    case DT_HOUR24: return put_num(b, hour, t->count, err);
    case DT_HOUR12: return put_num(b, hour % 12 == 0 ? 12 : hour % 12, t->count, err);
    case DT_MINUTE: return put_num(b, secs / 60 % 60, t->count, err);
    case DT_SECOND: return put_num(b, secs % 60, t->count, err);
    case DT_FRACTION: {
        char frac[8];
        snprintf(frac, sizeof(frac), "%06lld", (long long)(rest % TIME_MICROS_PER_SECOND));
        SILT_RETURN_IF_ERROR(buf_append(b, frac, (size_t)(t->count < 6 ? t->count : 6), err));
        return t->count > 6 ? put_num(b, 0, t->count - 6, err) : SILT_OK;
    }
    case DT_AMPM: return buf_append_str(b, hour < 12 ? "AM" : "PM", err);
    case DT_DAY_NAME:
        if (t->count == 5)
            return buf_append(b, day_title[wday], 1, err);
        return t->count == 4 ? buf_append_str(b, day_title[wday], err)
                             : buf_append(b, day_title[wday], 3, err);
    case DT_ZONE: return put_offset(b, t, offset, err);
    default: return SILT_OK;
    }
}

/* Formats tokens [from, to): an optional section prints as if it were not optional. */
silt_status text_dt_format(const text_dt_pattern *p, int64_t local_micros, int32_t offset_secs,
                           buf *out, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < p->n; idx++) {
        if (p->tokens[idx].kind == DT_OPT_START || p->tokens[idx].kind == DT_OPT_END)
            continue;
        SILT_RETURN_IF_ERROR(format_token(&p->tokens[idx], local_micros, offset_secs, out, err));
    }
    return SILT_OK;
}
