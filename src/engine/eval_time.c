/*
 * eval_time.c - date and time functions with Spark's datetime patterns.
 *
 * Dates are days and timestamps microseconds since the epoch (UTC
 * instants); the functions that see a wall clock (hour, date_trunc,
 * date_format, to_timestamp, ...) read it in the session time zone,
 * ctx->zone (spark.sql.session.timeZone, docs/time.md). Patterns follow Spark's
 * "Datetime Patterns" page: y, M (MMM/MMMM names), d, D, H, h, m, s,
 * S (fraction), a, E (EEE/EEEE names), Q, Z/X/x (the UTC offset),
 * 'quoted text' and literal punctuation. from_utc_timestamp and
 * to_utc_timestamp take fixed offsets ("+08:00", "-0530", "GMT+8"),
 * "UTC"/"GMT"/"Z", and region names from the system's time zone database
 * (tzdb.c, docs/engine.md).
 *
 * Parse failures of to_date, to_timestamp and unix_timestamp are errors in
 * ANSI mode ([CANNOT_PARSE_TIMESTAMP]) and NULL otherwise, as in Spark 4.
 */
#include "engine/eval_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/text/text_datetime.h"
#include "util/buf.h"
#include "util/time.h"
#include "util/time_zone.h"

/* ---- calendar helpers -------------------------------------------------------- */

typedef struct civil {
    int64_t year;
    unsigned month, day;
    int hour, minute, second;
    int64_t micros; /* fraction of the second */
} civil;

static void civil_of(int64_t ts, civil *c)
{
    int64_t days = time_floor_div(ts, TIME_MICROS_PER_DAY);
    int64_t rest = ts - days * TIME_MICROS_PER_DAY;
    time_civil_from_days(days, &c->year, &c->month, &c->day);
    c->hour = (int)(rest / (3600 * TIME_MICROS_PER_SECOND));
    c->minute = (int)(rest / (60 * TIME_MICROS_PER_SECOND) % 60);
    c->second = (int)(rest / TIME_MICROS_PER_SECOND % 60);
    c->micros = rest % TIME_MICROS_PER_SECOND;
}

static int days_in_month(int64_t year, unsigned month)
{
    static const int dim[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 ? 28 + leap : dim[month - 1];
}

/* 1 = Monday .. 7 = Sunday (1970-01-01 was a Thursday). */
static int iso_weekday(int64_t days) { return (int)time_floor_mod(days + 3, 7) + 1; }

static int day_of_year(int64_t days)
{
    int64_t y;
    unsigned m, d;
    time_civil_from_days(days, &y, &m, &d);
    return (int)(days - time_days_from_civil(y, 1, 1)) + 1;
}

static int iso_week(int64_t days)
{
    int64_t thursday = days - iso_weekday(days) + 4;
    return (day_of_year(thursday) - 1) / 7 + 1;
}

/* ---- patterns (formats/text/text_datetime.h, the one pattern engine) ------------ */

/* A compiled pattern kept while consecutive rows share the pattern text. */
typedef struct pat_cache {
    const text_dt_pattern *p;
    const char *text;
    int32_t len;
} pat_cache;

static silt_status pat_get(const expr *e, arena *a, pat_cache *pc, const char *p, int32_t len,
                           silt_error *err)
{
    silt_status rc;
    if (pc->p != NULL && pc->len == len && memcmp(pc->text, p, (size_t)len) == 0)
        return SILT_OK;
    rc = text_dt_compile_n(p, (size_t)len, a, &pc->p, err);
    if (rc != SILT_OK && rc != SILT_NOMEM) {
        char msg[SILT_ERROR_MESSAGE_MAX];
        snprintf(msg, sizeof(msg), "%s", err->message);
        pc->p = NULL;
        return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_DATETIME_PATTERN", "%s", msg);
    }
    if (rc != SILT_OK)
        return rc;
    pc->text = p;
    pc->len = len;
    return SILT_OK;
}

/* ---- resolvers ----------------------------------------------------------------- */

static silt_status arg_as(expr *e, size_t idx, arena *a, col_type_id id, silt_error *err)
{
    return expr_coerce(&e->args[idx], a, col_type_primitive(id), err);
}

static silt_status res_date_part(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_DATE};
    return expr_resolve_args(e, a, args, 1, COL_INT, err);
}

static silt_status res_time_part(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_TIMESTAMP};
    return expr_resolve_args(e, a, args, 1, COL_INT, err);
}

static silt_status res_date_int(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_DATE, COL_INT};
    return expr_resolve_args(e, a, args, 2, COL_DATE, err);
}

static silt_status res_datediff(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_DATE, COL_DATE};
    return expr_resolve_args(e, a, args, 2, COL_INT, err);
}

static silt_status res_last_day(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_DATE};
    return expr_resolve_args(e, a, args, 1, COL_DATE, err);
}

static silt_status res_date_trunc(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_STRING, COL_TIMESTAMP};
    return expr_resolve_args(e, a, args, 2, COL_TIMESTAMP, err);
}

static silt_status res_trunc(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_DATE, COL_STRING};
    return expr_resolve_args(e, a, args, 2, COL_DATE, err);
}

static silt_status res_parse(expr *e, arena *a, col_type_id result, silt_error *err)
{
    col_type_id in = e->args[0]->type->id;
    if (in != COL_DATE && in != COL_TIMESTAMP && in != COL_TIMESTAMP_NTZ)
        SILT_RETURN_IF_ERROR(arg_as(e, 0, a, COL_STRING, err));
    if (e->n_args > 1)
        SILT_RETURN_IF_ERROR(arg_as(e, 1, a, COL_STRING, err));
    e->type = col_type_primitive(result);
    return SILT_OK;
}

static silt_status res_to_date(expr *e, arena *a, silt_error *err)
{
    return res_parse(e, a, COL_DATE, err);
}

static silt_status res_to_timestamp(expr *e, arena *a, silt_error *err)
{
    return res_parse(e, a, COL_TIMESTAMP, err);
}

static silt_status res_unix_timestamp(expr *e, arena *a, silt_error *err)
{
    if (e->n_args == 0) {
        e->type = col_type_primitive(COL_LONG);
        return SILT_OK;
    }
    return res_parse(e, a, COL_LONG, err);
}

static silt_status res_date_format(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_TIMESTAMP, COL_STRING};
    return expr_resolve_args(e, a, args, 2, COL_STRING, err);
}

static silt_status res_from_unixtime(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_LONG, COL_STRING};
    return expr_resolve_args(e, a, args, 2, COL_STRING, err);
}

static silt_status res_months_between(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_TIMESTAMP, COL_TIMESTAMP, COL_BOOLEAN};
    return expr_resolve_args(e, a, args, 3, COL_DOUBLE, err);
}

static silt_status res_current_date(expr *e, arena *a, silt_error *err)
{
    e->type = col_type_primitive(COL_DATE);
    return SILT_OK;
}

static silt_status res_current_timestamp(expr *e, arena *a, silt_error *err)
{
    e->type = col_type_primitive(COL_TIMESTAMP);
    return SILT_OK;
}

static silt_status res_utc_shift(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_TIMESTAMP, COL_STRING};
    return expr_resolve_args(e, a, args, 2, COL_TIMESTAMP, err);
}

/* ---- kernels --------------------------------------------------------------------- */

enum { P_YEAR, P_MONTH, P_DAY, P_DOW, P_DOY, P_WEEK, P_QUARTER, P_WEEKDAY };

static silt_status date_part(FN_ARGS, int part)
{
    col_vec *o;
    const int32_t *dv = args[0]->values;
    int32_t *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP({
        int64_t y;
        unsigned m, d;
        int64_t days = dv[r];
        int v = 0;
        switch (part) {
        case P_DOW: v = (int)time_floor_mod(days + 4, 7) + 1; break;
        case P_WEEKDAY: v = iso_weekday(days) - 1; break;
        case P_DOY: v = day_of_year(days); break;
        case P_WEEK: v = iso_week(days); break;
        default:
            time_civil_from_days(days, &y, &m, &d);
            v = part == P_YEAR ? (int)y : part == P_MONTH ? (int)m : part == P_DAY ? (int)d
                                                                   : (int)(m - 1) / 3 + 1;
            break;
        }
        ov[r] = v;
    });
    *out = o;
    return SILT_OK;
}

#define DATE_PART_FN(NAME, PART)                                                                   \
    static silt_status NAME(FN_ARGS) { return date_part(e, ctx, args, sel, n_sel, n_rows, a, out, err, PART); }
DATE_PART_FN(fn_year, P_YEAR)
DATE_PART_FN(fn_month, P_MONTH)
DATE_PART_FN(fn_day, P_DAY)
DATE_PART_FN(fn_dayofweek, P_DOW)
DATE_PART_FN(fn_weekday, P_WEEKDAY)
DATE_PART_FN(fn_dayofyear, P_DOY)
DATE_PART_FN(fn_weekofyear, P_WEEK)
DATE_PART_FN(fn_quarter, P_QUARTER)

static silt_status time_part(FN_ARGS, int64_t unit, int64_t modulo)
{
    col_vec *o;
    const int64_t *tv = args[0]->values;
    int32_t *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP(ov[r] = (int32_t)time_floor_mod(
                  time_floor_div(time_zone_to_local(ctx->zone, tv[r]), unit), modulo););
    *out = o;
    return SILT_OK;
}

static silt_status fn_hour(FN_ARGS)
{
    return time_part(e, ctx, args, sel, n_sel, n_rows, a, out, err, 3600 * TIME_MICROS_PER_SECOND, 24);
}
static silt_status fn_minute(FN_ARGS)
{
    return time_part(e, ctx, args, sel, n_sel, n_rows, a, out, err, 60 * TIME_MICROS_PER_SECOND, 60);
}
static silt_status fn_second(FN_ARGS)
{
    return time_part(e, ctx, args, sel, n_sel, n_rows, a, out, err, TIME_MICROS_PER_SECOND, 60);
}

static silt_status date_shift(FN_ARGS, int sign)
{
    col_vec *o;
    const int32_t *dv = args[0]->values, *nv = args[1]->values;
    int32_t *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP({
        int64_t v = (int64_t)dv[r] + sign * (int64_t)nv[r];
        if (v > INT32_MAX || v < INT32_MIN)
            return expr_eval_error(e, err, SILT_RUNTIME, "ARITHMETIC_OVERFLOW",
                              "the date is out of range");
        ov[r] = (int32_t)v;
    });
    *out = o;
    return SILT_OK;
}

static silt_status fn_date_add(FN_ARGS) { return date_shift(e, ctx, args, sel, n_sel, n_rows, a, out, err, 1); }
static silt_status fn_date_sub(FN_ARGS) { return date_shift(e, ctx, args, sel, n_sel, n_rows, a, out, err, -1); }

static silt_status fn_datediff(FN_ARGS)
{
    col_vec *o;
    const int32_t *x = args[0]->values, *y = args[1]->values;
    int32_t *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP(ov[r] = (int32_t)((int64_t)x[r] - y[r]););
    *out = o;
    return SILT_OK;
}

static int64_t add_months_days(int64_t days, int64_t months)
{
    int64_t y, total;
    unsigned m, d;
    int dim;
    time_civil_from_days(days, &y, &m, &d);
    total = y * 12 + (m - 1) + months;
    y = time_floor_div(total, 12);
    m = (unsigned)time_floor_mod(total, 12) + 1;
    dim = days_in_month(y, m);
    return time_days_from_civil(y, m, d > (unsigned)dim ? (unsigned)dim : d);
}

static silt_status fn_add_months(FN_ARGS)
{
    col_vec *o;
    const int32_t *dv = args[0]->values, *nv = args[1]->values;
    int32_t *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP(ov[r] = (int32_t)add_months_days(dv[r], nv[r]););
    *out = o;
    return SILT_OK;
}

/*
 * timestamp + INTERVAL (the binder's rewrite, see interval_add in
 * binder_expr.c): the months move the calendar date (clamped to the month's
 * last day, time of day kept), then the microseconds are added.
 */
static silt_status fn_interval_add(FN_ARGS)
{
    col_vec *o;
    const int64_t *tv = args[0]->values;
    int64_t *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP({
        int64_t months = vec_get_int(args[1], r), micros = vec_get_int(args[2], r);
        /* whole days move the session's wall clock, the rest is elapsed time (Spark's
         * timestampAddInterval / timestampAddDayTime) */
        int64_t day_part = micros / TIME_MICROS_PER_DAY, rest = micros - day_part * TIME_MICROS_PER_DAY;
        int64_t local = time_zone_to_local(ctx->zone, tv[r]);
        int64_t days = time_floor_div(local, TIME_MICROS_PER_DAY);
        int64_t tod = local - days * TIME_MICROS_PER_DAY, v;
        if (months == 0 && day_part == 0) {
            if (__builtin_add_overflow(tv[r], rest, &v))
                return expr_eval_error(e, err, SILT_RUNTIME, "DATETIME_OVERFLOW",
                                       "the timestamp is out of range");
            ov[r] = v;
            continue;
        }
        days = add_months_days(days, months) + day_part;
        if (__builtin_mul_overflow(days, TIME_MICROS_PER_DAY, &v) ||
            __builtin_add_overflow(v, tod, &v) ||
            __builtin_add_overflow(time_zone_from_local(ctx->zone, v), rest, &v))
            return expr_eval_error(e, err, SILT_RUNTIME, "DATETIME_OVERFLOW",
                              "the timestamp is out of range");
        ov[r] = v;
    });
    *out = o;
    return SILT_OK;
}

static silt_status res_interval_add(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_TIMESTAMP, COL_INT, COL_LONG};
    return expr_resolve_args(e, a, args, 3, COL_TIMESTAMP, err);
}

/* make_date(y, m, d): a date, or [DATETIME_FIELD_OUT_OF_BOUNDS] for a day that does not exist. */
static silt_status fn_make_date(FN_ARGS)
{
    col_vec *o;
    const int32_t *yv = args[0]->values, *mv = args[1]->values, *dv = args[2]->values;
    int32_t *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP({
        if (yv[r] < 1 || yv[r] > 9999 || mv[r] < 1 || mv[r] > 12 || dv[r] < 1 ||
            dv[r] > days_in_month(yv[r], (unsigned)mv[r]))
            return expr_eval_error(e, err, SILT_RUNTIME, "DATETIME_FIELD_OUT_OF_BOUNDS",
                              "%d-%d-%d is not a date", yv[r], mv[r], dv[r]);
        ov[r] = (int32_t)time_days_from_civil(yv[r], (unsigned)mv[r], (unsigned)dv[r]);
    });
    *out = o;
    return SILT_OK;
}

static silt_status res_make_date(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_INT, COL_INT, COL_INT};
    return expr_resolve_args(e, a, args, 3, COL_DATE, err);
}

static silt_status fn_last_day(FN_ARGS)
{
    col_vec *o;
    const int32_t *dv = args[0]->values;
    int32_t *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP({
        int64_t y;
        unsigned m, d;
        time_civil_from_days(dv[r], &y, &m, &d);
        ov[r] = (int32_t)time_days_from_civil(y, m, (unsigned)days_in_month(y, m));
    });
    *out = o;
    return SILT_OK;
}

enum { U_NONE = -1, U_YEAR, U_QUARTER, U_MONTH, U_WEEK, U_DAY, U_HOUR, U_MINUTE, U_SECOND, U_MILLI, U_MICRO };

static int trunc_unit(const char *s, int32_t len)
{
    static const struct { const char *name; int unit; } units[] = {
        {"year", U_YEAR},     {"yyyy", U_YEAR},     {"yy", U_YEAR},         {"quarter", U_QUARTER},
        {"month", U_MONTH},   {"mm", U_MONTH},      {"mon", U_MONTH},       {"week", U_WEEK},
        {"day", U_DAY},       {"dd", U_DAY},        {"hour", U_HOUR},       {"minute", U_MINUTE},
        {"second", U_SECOND}, {"millisecond", U_MILLI}, {"microsecond", U_MICRO},
    };
    size_t idx;
    for (idx = 0; idx < sizeof(units) / sizeof(units[0]); idx++)
        if (strlen(units[idx].name) == (size_t)len && util_str_ncasecmp(units[idx].name, s, (size_t)len) == 0)
            return units[idx].unit;
    return U_NONE;
}

static int64_t trunc_days(int64_t days, int unit)
{
    int64_t y;
    unsigned m, d;
    time_civil_from_days(days, &y, &m, &d);
    switch (unit) {
    case U_YEAR: return time_days_from_civil(y, 1, 1);
    case U_QUARTER: return time_days_from_civil(y, (m - 1) / 3 * 3 + 1, 1);
    case U_MONTH: return time_days_from_civil(y, m, 1);
    case U_WEEK: return days - iso_weekday(days) + 1;
    default: return days;
    }
}

static silt_status fn_date_trunc(FN_ARGS)
{
    col_vec *o;
    const int64_t *tv = args[1]->values;
    int64_t *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP({
        int32_t len;
        const char *s = col_vec_str(args[0], r, &len);
        int unit = trunc_unit(s, len);
        int64_t ts = tv[r], unit_us = 0;
        switch (unit) {
        case U_NONE: vec_set_null(o, r); continue;
        case U_HOUR: /* the hour of the wall clock: offsets of half hours exist */
            ts = time_zone_to_local(ctx->zone, ts);
            ov[r] = time_zone_from_local(ctx->zone, time_floor_div(ts, 3600 * TIME_MICROS_PER_SECOND) *
                                                        3600 * TIME_MICROS_PER_SECOND);
            continue;
        case U_MINUTE: unit_us = 60 * TIME_MICROS_PER_SECOND; break;
        case U_SECOND: unit_us = TIME_MICROS_PER_SECOND; break;
        case U_MILLI: unit_us = 1000; break;
        case U_MICRO: unit_us = 1; break;
        default:
            ts = time_zone_to_local(ctx->zone, ts);
            ov[r] = time_zone_from_local(
                ctx->zone, trunc_days(time_floor_div(ts, TIME_MICROS_PER_DAY), unit) * TIME_MICROS_PER_DAY);
            continue;
        }
        ov[r] = time_floor_div(ts, unit_us) * unit_us;
    });
    *out = o;
    return SILT_OK;
}

static silt_status fn_trunc(FN_ARGS)
{
    col_vec *o;
    const int32_t *dv = args[0]->values;
    int32_t *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP({
        int32_t len;
        const char *s = col_vec_str(args[1], r, &len);
        int unit = trunc_unit(s, len);
        if (unit < U_YEAR || unit > U_WEEK) {
            vec_set_null(o, r);
            continue;
        }
        ov[r] = (int32_t)trunc_days(dv[r], unit);
    });
    *out = o;
    return SILT_OK;
}

/* The instant of a to_date / to_timestamp / unix_timestamp input that is no string. */
static int64_t instant_of(const engine_ctx *ctx, const col_vec *x, int64_t r)
{
    switch (x->type->id) {
    case COL_DATE: return time_zone_from_local(ctx->zone, vec_get_int(x, r) * TIME_MICROS_PER_DAY);
    case COL_TIMESTAMP_NTZ: return time_zone_from_local(ctx->zone, vec_get_int(x, r));
    default: return vec_get_int(x, r);
    }
}

/*
 * to_date / to_timestamp / unix_timestamp share one parser loop. With a
 * pattern the text is read by it (CANNOT_PARSE_TIMESTAMP); without one it
 * is Spark's CAST (CAST_INVALID_INPUT): a date for to_date, a timestamp in
 * the session zone for to_timestamp.
 */
static silt_status parse_rows(FN_ARGS, const char *default_pattern)
{
    col_vec *o, *x = args[0];
    pat_cache pc = {NULL, NULL, 0};
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int64_t ts = 0;
        col_type_id in = x->type->id;
        if (in == COL_DATE || in == COL_TIMESTAMP || in == COL_TIMESTAMP_NTZ) {
            ts = instant_of(ctx, x, r);
        } else {
            int32_t len, pl;
            const char *s = col_vec_str(x, r, &len);
            int ok, by_pattern = e->n_args > 1 || default_pattern != NULL;
            if (by_pattern) {
                const char *p = e->n_args > 1 ? col_vec_str(args[1], r, &pl) : default_pattern;
                if (e->n_args <= 1)
                    pl = (int32_t)strlen(default_pattern);
                SILT_RETURN_IF_ERROR(pat_get(e, a, &pc, p, pl, err));
                ok = text_dt_parse_timestamp_in(pc.p, s, (size_t)len, ctx->zone, &ts);
            } else if (e->type->id == COL_DATE) {
                int32_t days;
                ok = time_string_to_date(s, (size_t)len, &days);
                if (ok) {
                    vec_put_int(o, r, days);
                    continue;
                }
            } else {
                ok = time_string_to_timestamp(s, (size_t)len, ctx->zone, ctx->now_micros, &ts);
            }
            if (!ok) {
                if (ctx->ansi && by_pattern)
                    return expr_eval_error(e, err, SILT_RUNTIME, "CANNOT_PARSE_TIMESTAMP",
                                      "Text '%.*s' could not be parsed",
                                      (int)(len > 64 ? 64 : len), s);
                if (ctx->ansi)
                    return expr_eval_error(e, err, SILT_RUNTIME, "CAST_INVALID_INPUT",
                                           "the value '%.*s' of the type \"STRING\" cannot be "
                                           "cast to \"%s\" because it is malformed",
                                           (int)(len > 64 ? 64 : len), s,
                                           e->type->id == COL_DATE ? "DATE" : "TIMESTAMP");
                vec_set_null(o, r);
                continue;
            }
        }
        if (e->type->id == COL_DATE)
            vec_put_int(o, r, time_floor_div(time_zone_to_local(ctx->zone, ts), TIME_MICROS_PER_DAY));
        else if (e->type->id == COL_LONG)
            vec_put_int(o, r, ts / TIME_MICROS_PER_SECOND); /* Spark divides toward zero */
        else
            vec_put_int(o, r, ts);
    });
    *out = o;
    return SILT_OK;
}

static silt_status fn_to_date(FN_ARGS) { return parse_rows(e, ctx, args, sel, n_sel, n_rows, a, out, err, NULL); }
static silt_status fn_to_timestamp(FN_ARGS) { return parse_rows(e, ctx, args, sel, n_sel, n_rows, a, out, err, NULL); }

static silt_status fn_unix_timestamp(FN_ARGS)
{
    if (e->n_args == 0) {
        col_vec *o;
        SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
        LIVE_LOOP(vec_put_int(o, r, time_floor_div(ctx->now_micros, TIME_MICROS_PER_SECOND)););
        *out = o;
        return SILT_OK;
    }
    return parse_rows(e, ctx, args, sel, n_sel, n_rows, a, out, err, "yyyy-MM-dd HH:mm:ss");
}

static silt_status format_rows(FN_ARGS, int64_t scale, const char *default_pattern)
{
    col_vec *o;
    vec_str_writer w;
    pat_cache pc = {NULL, NULL, 0};
    buf b = BUF_INIT;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t pl;
        const char *p = e->n_args > 1 ? col_vec_str(args[1], r, &pl) : default_pattern;
        int64_t ts, local;
        if (e->n_args <= 1)
            pl = (int32_t)strlen(default_pattern);
        if (__builtin_mul_overflow(vec_get_int(args[0], r), scale, &ts)) {
            vec_set_null(o, r);
            continue;
        }
        local = time_zone_to_local(ctx->zone, ts);
        rc = pat_get(e, a, &pc, p, pl, err);
        if (rc == SILT_OK) {
            buf_truncate(&b, 0);
            rc = text_dt_format(pc.p, local, (int32_t)((local - ts) / TIME_MICROS_PER_SECOND), &b, err);
        }
        if (rc == SILT_OK)
            rc = vec_str_put(&w, r, b.data, (int64_t)b.len, err);
        if (rc != SILT_OK)
            break;
    });
    buf_clear(&b);
    vec_str_end(&w);
    *out = o;
    return rc;
}

static silt_status fn_date_format(FN_ARGS) { return format_rows(e, ctx, args, sel, n_sel, n_rows, a, out, err, 1, NULL); }
static silt_status fn_from_unixtime(FN_ARGS)
{
    return format_rows(e, ctx, args, sel, n_sel, n_rows, a, out, err, TIME_MICROS_PER_SECOND,
                       "yyyy-MM-dd HH:mm:ss");
}

/*
 * months_between(t1, t2[, roundOff]): whole months when both days are equal
 * or both are month ends, else the month difference plus the rest over a
 * 31-day month; rounded to 8 digits unless roundOff is false (Spark).
 */
static silt_status fn_months_between(FN_ARGS)
{
    col_vec *o;
    const int64_t *x = args[0]->values, *y = args[1]->values;
    double *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP({
        civil c1, c2;
        int64_t lx = time_zone_to_local(ctx->zone, x[r]), ly = time_zone_to_local(ctx->zone, y[r]);
        int64_t months, d1 = time_floor_div(lx, TIME_MICROS_PER_DAY);
        int64_t d2 = time_floor_div(ly, TIME_MICROS_PER_DAY);
        int last1, last2, round_off = e->n_args < 3 || vec_get_int(args[2], r);
        double diff;
        civil_of(lx, &c1);
        civil_of(ly, &c2);
        months = (c1.year * 12 + c1.month) - (c2.year * 12 + c2.month);
        last1 = (int)c1.day == days_in_month(c1.year, c1.month);
        last2 = (int)c2.day == days_in_month(c2.year, c2.month);
        if (c1.day == c2.day || (last1 && last2)) {
            ov[r] = (double)months;
            continue;
        }
        {
            /* whole seconds since the local midnight, as Spark (after Hive) */
            int64_t s1 = (x[r] - time_zone_from_local(ctx->zone, d1 * TIME_MICROS_PER_DAY)) /
                         TIME_MICROS_PER_SECOND;
            int64_t s2 = (y[r] - time_zone_from_local(ctx->zone, d2 * TIME_MICROS_PER_DAY)) /
                         TIME_MICROS_PER_SECOND;
            diff = (double)months +
                   (double)(((int64_t)c1.day - (int64_t)c2.day) * 86400 + s1 - s2) / (31.0 * 86400.0);
        }
        if (round_off)
            diff = floor(diff * 1e8 + 0.5) / 1e8; /* Math.round */
        ov[r] = diff;
    });
    *out = o;
    return SILT_OK;
}

static silt_status fn_current_date(FN_ARGS)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP(vec_put_int(o, r, time_floor_div(time_zone_to_local(ctx->zone, ctx->now_micros),
                                                TIME_MICROS_PER_DAY)););
    *out = o;
    return SILT_OK;
}

static silt_status fn_current_timestamp(FN_ARGS)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP(vec_put_int(o, r, ctx->now_micros););
    *out = o;
    return SILT_OK;
}

/*
 * from_utc_timestamp / to_utc_timestamp: Spark's convertTz, the wall clock
 * of one zone read in another; the session zone plays no part.
 */
static silt_status utc_shift(FN_ARGS, int sign)
{
    col_vec *o;
    const int64_t *tv = args[0]->values;
    int64_t *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    /* The zone of the previous row, looked up again only when the name changes. */
    const char *last = NULL;
    int32_t last_len = -1;
    const time_zone *tz = NULL;
    LIVE_LOOP({
        int32_t len;
        const char *z = col_vec_str(args[1], r, &len);
        int64_t at = time_floor_div(tv[r], TIME_MICROS_PER_SECOND), secs;
        if (last == NULL || len != last_len || memcmp(z, last, (size_t)len) != 0) {
            silt_status rc = time_zone_get(z, (size_t)len, &tz, err);
            if (rc != SILT_OK && rc != SILT_NOMEM) {
                char msg[SILT_ERROR_MESSAGE_MAX];
                size_t skip = strncmp(err->message, TIME_ZONE_INVALID_CLASS,
                                      strlen(TIME_ZONE_INVALID_CLASS)) == 0
                                  ? strlen(TIME_ZONE_INVALID_CLASS) : 0;
                snprintf(msg, sizeof(msg), "%s", err->message + skip);
                return expr_eval_error(e, err, SILT_RUNTIME, skip ? "INVALID_TIMEZONE" : "CORRUPT",
                                       "%s", msg);
            }
            if (rc != SILT_OK)
                return rc;
            last = z;
            last_len = len;
        }
        secs = sign > 0 ? time_zone_offset(tz, at) : time_zone_offset_local(tz, at);
        ov[r] = tv[r] + sign * secs * TIME_MICROS_PER_SECOND;
    });
    *out = o;
    return SILT_OK;
}

static silt_status fn_from_utc(FN_ARGS) { return utc_shift(e, ctx, args, sel, n_sel, n_rows, a, out, err, 1); }
static silt_status fn_to_utc(FN_ARGS) { return utc_shift(e, ctx, args, sel, n_sel, n_rows, a, out, err, -1); }

const expr_func_def engine_time_funcs[] = {
    {"year", 1, 1, res_date_part, fn_year, 0},
    {"month", 1, 1, res_date_part, fn_month, 0},
    {"day", 1, 1, res_date_part, fn_day, 0},
    {"dayofmonth", 1, 1, res_date_part, fn_day, 0},
    {"dayofweek", 1, 1, res_date_part, fn_dayofweek, 0},
    {"weekday", 1, 1, res_date_part, fn_weekday, 0},
    {"dayofyear", 1, 1, res_date_part, fn_dayofyear, 0},
    {"weekofyear", 1, 1, res_date_part, fn_weekofyear, 0},
    {"quarter", 1, 1, res_date_part, fn_quarter, 0},
    {"hour", 1, 1, res_time_part, fn_hour, 0},
    {"minute", 1, 1, res_time_part, fn_minute, 0},
    {"second", 1, 1, res_time_part, fn_second, 0},
    {"date_add", 2, 2, res_date_int, fn_date_add, 0},
    {"dateadd", 2, 2, res_date_int, fn_date_add, 0},
    {"date_sub", 2, 2, res_date_int, fn_date_sub, 0},
    {"datediff", 2, 2, res_datediff, fn_datediff, 0},
    {"date_diff", 2, 2, res_datediff, fn_datediff, 0},
    {"add_months", 2, 2, res_date_int, fn_add_months, 0},
    {"make_date", 3, 3, res_make_date, fn_make_date, 0},
    {"last_day", 1, 1, res_last_day, fn_last_day, 0},
    {"months_between", 2, 3, res_months_between, fn_months_between, 0},
    {"date_trunc", 2, 2, res_date_trunc, fn_date_trunc, 0},
    {"trunc", 2, 2, res_trunc, fn_trunc, 0},
    {"to_date", 1, 2, res_to_date, fn_to_date, 0},
    {"to_timestamp", 1, 2, res_to_timestamp, fn_to_timestamp, 0},
    /* Spark's to_timestamp is to_timestamp_ltz while spark.sql.timestampType is TIMESTAMP_LTZ */
    {"to_timestamp_ltz", 1, 2, res_to_timestamp, fn_to_timestamp, 0},
    {"unix_timestamp", 0, 2, res_unix_timestamp, fn_unix_timestamp, 0},
    {"to_unix_timestamp", 1, 2, res_unix_timestamp, fn_unix_timestamp, 0},
    {"from_unixtime", 1, 2, res_from_unixtime, fn_from_unixtime, 0},
    {"date_format", 2, 2, res_date_format, fn_date_format, 0},
    {"current_date", 0, 0, res_current_date, fn_current_date, 0},
    {"curdate", 0, 0, res_current_date, fn_current_date, 0},
    {"current_timestamp", 0, 0, res_current_timestamp, fn_current_timestamp, 0},
    {"now", 0, 0, res_current_timestamp, fn_current_timestamp, 0},
    {"from_utc_timestamp", 2, 2, res_utc_shift, fn_from_utc, 0},
    {"to_utc_timestamp", 2, 2, res_utc_shift, fn_to_utc, 0},
    /* not Spark's: what the binder makes of timestamp + INTERVAL (months, micros) */
    {"__interval_add", 3, 3, res_interval_add, fn_interval_add, 0},
};
const size_t engine_n_time_funcs = sizeof(engine_time_funcs) / sizeof(engine_time_funcs[0]);
