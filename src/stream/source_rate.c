/*
 * source_rate.c - `STREAM rate(rowsPerSecond => n, rampUpTime => '5s',
 * numPartitions => p)`, Spark's rate source (RateStreamProvider; the
 * semantics are Spark's, docs/streaming.md "Rate source").
 *
 * The stream's clock starts when it is first started (creationTimeMs,
 * kept in sources/0/0 as Spark does: "v1\n<ms>"). The offset is the number
 * of whole seconds since then (Spark's LongOffset, written as a bare
 * number). A batch over seconds (s0, s1] gives the values
 * [valueAtSecond(s0), valueAtSecond(s1)), split over numPartitions as
 * Spark splits them (partition p: start + p, start + p + n, ...; partition
 * 0 first), each with the timestamp
 *   creation + s0 * 1000 + round((value - start) * msPerValue) ms,
 * msPerValue = (s1 - s0) * 1000 / (end - start). A batch's rows are thus a
 * function of its recorded offsets alone, so a replayed batch gives the
 * same rows. Under availableNow and once the end is the second reached
 * when the stream started (Spark wraps the rate source in its
 * AvailableNowDataStreamWrapper, which takes the latest offset once).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/stream_int.h"
#include "util/thread.h"
#include "util/time.h"

#define RATE_BATCH_ROWS 4096

typedef struct rate_src {
    stream_source base;
    int64_t rps, ramp_s, n_parts;
    const char *parts_text;  /* numPartitions as given, "default" when not (Spark's description) */
    int64_t creation_ms;     /* -1 until read from (or written to) the checkpoint */
    int64_t last_ms;         /* the latest clock reading, never going back */
    int64_t frozen_ms;       /* availableNow / once: the clock at the first plan; -1 */
    int64_t start_s, end_s;  /* the planned range (start exclusive) */
    int have_start;
    /* reading the bound range */
    int64_t range_start, range_end, local_start_ms;
    double ms_per_value;
    int64_t part, count;     /* the next row: partition, index within it */
    int empty;
    stream_counted cnt;
} rate_src;

/* Spark's valueAtSecond: the rows made in the first `seconds` seconds (ramping up linearly). */
static int64_t value_at_second(int64_t seconds, int64_t rps, int64_t ramp_s)
{
    int64_t delta = rps / (ramp_s + 1);
    if (seconds <= ramp_s) {
        /* (delta * seconds) * (seconds + 1) / 2 without overflowing the product */
        if (seconds % 2 == 1)
            return (seconds + 1) / 2 * delta * seconds;
        return seconds / 2 * delta * (seconds + 1);
    }
    return value_at_second(ramp_s, rps, ramp_s) + (seconds - ramp_s) * rps;
}

static int64_t max_seconds(const rate_src *r) { return INT64_MAX / r->rps; }

/* The stream's creation time: sources/0/0, written at the first start (put-if-absent). */
static silt_status creation(rate_src *r, stream_ckpt *c, silt_error *err)
{
    buf b;
    char text[48];
    silt_status rc;
    if (r->creation_ms >= 0)
        return SILT_OK;
    buf_init(&b, 0);
    rc = stream_ckpt_read(c, "sources/0", 0, &b, err);
    if (rc == SILT_NOTFOUND) {
        int n;
        err_clear(err);
        r->creation_ms = time_now_micros() / 1000;
        n = snprintf(text, sizeof(text), "v1\n%lld", (long long)r->creation_ms);
        rc = stream_ckpt_write(c, "sources/0", 0, text, (size_t)n, 1, err);
    } else if (rc == SILT_OK) {
        const char *nl = strchr(b.data, '\n');
        size_t len = nl != NULL ? strcspn(nl + 1, "\n") : 0;
        if (!util_str_starts_with(b.data, "v1\n") || nl == NULL ||
            !util_str_to_int64(nl + 1, len, &r->creation_ms) || r->creation_ms < 0)
            rc = err_set(err, SILT_CORRUPT, "sources/0/0 of the checkpoint is not the rate "
                         "source's start time (v1 and a number of milliseconds)");
    }
    buf_clear(&b);
    r->last_ms = r->creation_ms > r->last_ms ? r->creation_ms : r->last_ms;
    return rc;
}

static silt_status parse_offset(const char *json, int64_t *out, silt_error *err)
{
    size_t len = strcspn(json, "\n");
    while (len > 0 && (json[len - 1] == ' ' || json[len - 1] == '\r'))
        len--;
    if (!util_str_to_int64(json, len, out) || *out < 0)
        return err_set(err, SILT_CORRUPT, "the checkpoint's offset is not a rate source offset "
                       "(a number of seconds): %.*s", (int)len, json);
    return SILT_OK;
}

/* The committed offset: 0 at first, else the end offset of batch_id - 1. */
static silt_status start_offset(rate_src *r, stream_ckpt *c, int64_t batch_id, silt_error *err)
{
    char *line = NULL;
    arena *a;
    silt_status rc;
    if (r->have_start)
        return SILT_OK;
    r->start_s = 0;
    if (batch_id > 0) {
        if ((a = arena_new(NULL, "rate offset")) == NULL)
            return err_nomem(err);
        rc = stream_ckpt_source_offset(c, batch_id - 1, a, &line, err);
        if (rc == SILT_OK)
            rc = parse_offset(line, &r->start_s, err);
        arena_free(a);
        SILT_RETURN_IF_ERROR(rc);
    }
    r->have_start = 1;
    return SILT_OK;
}

static silt_status check_end(const rate_src *r, silt_error *err)
{
    if (r->end_s > max_seconds(r))
        return err_set(err, SILT_INVALID, "Integer overflow. Max offset with %lld rowsPerSecond "
                       "is %lld, but it's %lld now.", (long long)r->rps,
                       (long long)max_seconds(r), (long long)r->end_s);
    return SILT_OK;
}

static silt_status rate_plan(stream_source *src, stream_ckpt *c, int64_t batch_id, int limit,
                             buf *end, int *empty, silt_error *err)
{
    rate_src *r = (rate_src *)src;
    int64_t now;
    (void)limit; /* the rate source has no admission control: every batch takes all seconds */
    SILT_RETURN_IF_ERROR(creation(r, c, err));
    SILT_RETURN_IF_ERROR(start_offset(r, c, batch_id, err));
    now = time_now_micros() / 1000;
    if (r->base.until_now && r->frozen_ms < 0)
        r->frozen_ms = now;
    if (r->frozen_ms >= 0)
        now = r->frozen_ms;
    if (r->last_ms < now)
        r->last_ms = now;
    r->end_s = (r->last_ms - r->creation_ms) / 1000;
    *empty = r->end_s <= r->start_s;
    if (*empty)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(check_end(r, err));
    buf_truncate(end, 0);
    return buf_printf(end, err, "%lld", (long long)r->end_s);
}

static silt_status rate_replan(stream_source *src, stream_ckpt *c, int64_t batch_id,
                               const char *offset_json, silt_error *err)
{
    rate_src *r = (rate_src *)src;
    SILT_RETURN_IF_ERROR(creation(r, c, err));
    SILT_RETURN_IF_ERROR(start_offset(r, c, batch_id, err));
    SILT_RETURN_IF_ERROR(parse_offset(offset_json, &r->end_s, err));
    if (r->end_s < r->start_s)
        return err_set(err, SILT_CORRUPT, "startSeconds(%lld) > endSeconds(%lld) in the "
                       "checkpoint", (long long)r->start_s, (long long)r->end_s);
    SILT_RETURN_IF_ERROR(check_end(r, err));
    /* as Spark's recovery does: the clock never reads before a recorded offset */
    if (r->last_ms < r->end_s * 1000 + r->creation_ms)
        r->last_ms = r->end_s * 1000 + r->creation_ms;
    return SILT_OK;
}

static void rate_commit(stream_source *src)
{
    rate_src *r = (rate_src *)src;
    r->start_s = r->end_s;
}

/* ---------------------------------------------------------------- reading */

/* The value of the next row (partition-major, as Spark's partitions come in order). */
static int next_value(rate_src *r, int64_t *value)
{
    while (r->part < r->n_parts) {
        int64_t v = r->range_start + r->part + r->n_parts * r->count;
        if (v < r->range_end) {
            r->count++;
            *value = v;
            return 1;
        }
        r->part++;
        r->count = 0;
    }
    return 0;
}

static silt_status rate_next(void *payload, arena *a, col_batch **out, silt_error *err)
{
    rate_src *r = payload;
    col_vec *ts, *val;
    col_batch *batch;
    int64_t n = 0, v;
    *out = NULL;
    if (r->empty || r->part >= r->n_parts)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(col_vec_new(&ts, a, col_type_primitive(COL_TIMESTAMP), RATE_BATCH_ROWS,
                                     0, err));
    SILT_RETURN_IF_ERROR(col_vec_new(&val, a, col_type_primitive(COL_LONG), RATE_BATCH_ROWS, 0,
                                     err));
    while (n < RATE_BATCH_ROWS && next_value(r, &v)) {
        /* Math.round of a non-negative double: floor(x + 0.5) */
        int64_t rel = (int64_t)floor((double)(v - r->range_start) * r->ms_per_value + 0.5);
        ((int64_t *)ts->values)[n] = (rel + r->local_start_ms) * 1000;
        ((int64_t *)val->values)[n] = v;
        n++;
    }
    if (n == 0)
        return SILT_OK;
    ts->length = val->length = n;
    batch = arena_calloc(a, 1, sizeof(*batch));
    if (batch == NULL || (batch->cols = arena_calloc(a, 2, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    batch->schema = r->base.schema;
    batch->n_rows = n;
    batch->n_cols = 2;
    batch->cols[0] = ts;
    batch->cols[1] = val;
    *out = batch;
    return SILT_OK;
}

static silt_status rate_bind(stream_source *src, sql_session *s, const char *name,
                             int empty_range, silt_error *err)
{
    rate_src *r = (rate_src *)src;
    r->range_start = value_at_second(r->start_s, r->rps, r->ramp_s);
    r->range_end = value_at_second(r->end_s, r->rps, r->ramp_s);
    r->empty = empty_range || r->range_end <= r->range_start;
    r->local_start_ms = r->creation_ms + r->start_s * 1000;
    r->ms_per_value = r->empty ? 0.0
                               : (double)((r->end_s - r->start_s) * 1000) /
                                     (double)(r->range_end - r->range_start);
    r->part = r->count = 0;
    r->cnt.fn = rate_next;
    r->cnt.payload = r;
    r->cnt.rows = 0;
    r->cnt.ev = r->base.evtime;
    return sql_session_bind_source(s, name, r->base.schema, stream_counted_next, &r->cnt, err);
}

static int64_t rate_rows(stream_source *src) { return ((rate_src *)src)->cnt.rows; }

static void rate_release(stream_source *src) { (void)src; }

static const stream_source_ops rate_ops = {"RateStreamV2", rate_plan, rate_replan, rate_commit,
                                           rate_bind, rate_rows, rate_release};

/* ---------------------------------------------------------------- options */

/* Java's Long.parseLong: an optional sign and digits, nothing else. */
static silt_status java_long(const char *k, const char *v, int64_t lo, int64_t hi, int64_t *out,
                             silt_error *err)
{
    if (!util_str_to_int64(v, strlen(v), out) || *out < lo || *out > hi ||
        strspn(v, "+-0123456789") != strlen(v))
        return err_set(err, SILT_INVALID, "Invalid value '%s' for option '%s': "
                       "java.lang.NumberFormatException: For input string: \"%s\"", v, k, v);
    return SILT_OK;
}

/* Spark's JavaUtils.timeStringAsSec: "<n>[us|ms|s|m|min|h|d]", seconds by default, truncated. */
static silt_status time_as_seconds(const char *v, int64_t *out, silt_error *err)
{
    static const struct { const char *suffix; int64_t num, den; } units[] = {
        {"us", 1, 1000000}, {"ms", 1, 1000}, {"s", 1, 1}, {"m", 60, 1},
        {"min", 60, 1},     {"h", 3600, 1},  {"d", 86400, 1}};
    size_t len, digits, idx, i = 0;
    char lower[64];
    int64_t n;
    while (*v == ' ' || *v == '\t' || *v == '\n')
        v++;
    for (len = strlen(v); len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'); len--) {
    }
    if (len >= sizeof(lower))
        goto bad;
    for (idx = 0; idx < len; idx++)
        lower[idx] = (char)(v[idx] >= 'A' && v[idx] <= 'Z' ? v[idx] + 32 : v[idx]);
    lower[len] = '\0';
    if (lower[0] == '-')
        i = 1;
    digits = strspn(lower + i, "0123456789");
    if (digits == 0 || strspn(lower + i + digits, "abcdefghijklmnopqrstuvwxyz") !=
                           len - i - digits || !util_str_to_int64(lower, i + digits, &n))
        goto bad;
    if (lower[i + digits] == '\0') {
        *out = n;
        return SILT_OK;
    }
    for (idx = 0; idx < sizeof(units) / sizeof(units[0]); idx++)
        if (strcmp(lower + i + digits, units[idx].suffix) == 0) {
            if (units[idx].num > 1 && (n > INT64_MAX / units[idx].num ||
                                       n < INT64_MIN / units[idx].num))
                goto bad;
            *out = n * units[idx].num / units[idx].den; /* truncates toward zero, as TimeUnit */
            return SILT_OK;
        }
    return err_set(err, SILT_INVALID, "Time must be specified as seconds (s), milliseconds "
                   "(ms), microseconds (us), minutes (m or min), hour (h), or day (d). E.g. "
                   "50s, 100ms, or 250us.\nInvalid suffix: \"%s\"", lower + i + digits);
bad:
    return err_set(err, SILT_INVALID, "Time must be specified as seconds (s), milliseconds (ms), "
                   "microseconds (us), minutes (m or min), hour (h), or day (d). E.g. 50s, "
                   "100ms, or 250us.\nFailed to parse time string: %s", v);
}

static silt_status options(rate_src *r, const char *const *kv, size_t n, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < n; idx++) {
        const char *k = kv[idx * 2], *v = kv[idx * 2 + 1];
        if (util_str_casecmp(k, "rowsPerSecond") == 0)
            SILT_RETURN_IF_ERROR(java_long(k, v, INT64_MIN, INT64_MAX, &r->rps, err));
        else if (util_str_casecmp(k, "rampUpTime") == 0)
            SILT_RETURN_IF_ERROR(time_as_seconds(v, &r->ramp_s, err));
        else if (util_str_casecmp(k, "numPartitions") == 0) {
            SILT_RETURN_IF_ERROR(java_long(k, v, INT_MIN, INT_MAX, &r->n_parts, err));
            r->parts_text = v;
        }
        else
            return err_set(err, SILT_UNSUPPORTED, "option \"%s\" of the rate stream source is "
                           "not supported (it takes rowsPerSecond, rampUpTime and "
                           "numPartitions)", k);
    }
    if (r->rps <= 0)
        return err_set(err, SILT_INVALID, "Invalid value '%lld'. The option 'rowsPerSecond' must "
                       "be positive", (long long)r->rps);
    if (r->ramp_s < 0)
        return err_set(err, SILT_INVALID, "Invalid value '%lld'. The option 'rampUpTime' must "
                       "not be negative", (long long)r->ramp_s);
    if (r->n_parts <= 0)
        return err_set(err, SILT_INVALID, "Invalid value '%lld'. The option 'numPartitions' must "
                       "be positive", (long long)r->n_parts);
    if (r->ramp_s > max_seconds(r))
        return err_set(err, SILT_INVALID, "[INCORRECT_RAMP_UP_RATE] Max offset with %lld "
                       "rowsPerSecond is %lld, but 'rampUpTimeSeconds' is %lld.",
                       (long long)r->rps, (long long)max_seconds(r), (long long)r->ramp_s);
    return SILT_OK;
}

silt_status stream_rate_source_new(stream_source **out, sql_session *s, arena *a,
                                   const char *const *kv, size_t n_kv, silt_error *err)
{
    rate_src *r = arena_calloc(a, 1, sizeof(*r));
    col_field *fields = arena_calloc(a, 2, sizeof(col_field));
    (void)s;
    if (r == NULL || fields == NULL)
        return err_nomem(err);
    r->rps = 1;
    /* Spark's default is the context's defaultParallelism: local[*] has one per core */
    r->n_parts = (int64_t)tpool_core_count();
    r->parts_text = "default";
    r->creation_ms = r->frozen_ms = -1;
    SILT_RETURN_IF_ERROR(options(r, kv, n_kv, err));
    fields[0].name = "timestamp";
    fields[0].type = col_type_primitive(COL_TIMESTAMP);
    fields[0].nullable = 1;
    fields[0].field_id = -1;
    fields[1].name = "value";
    fields[1].type = col_type_primitive(COL_LONG);
    fields[1].nullable = 1;
    fields[1].field_id = -1;
    r->base.ops = &rate_ops;
    r->base.schema = col_type_struct(a, 2, fields);
    r->base.desc = arena_sprintf(a, "RateStreamV2[rowsPerSecond=%lld, rampUpTimeSeconds=%lld, "
                                 "numPartitions=%s", (long long)r->rps, (long long)r->ramp_s,
                                 r->parts_text);
    r->base.start_json = "null";
    if (r->base.schema == NULL || r->base.desc == NULL)
        return err_nomem(err);
    *out = &r->base;
    return SILT_OK;
}
