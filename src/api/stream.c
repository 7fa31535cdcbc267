/*
 * stream.c - include/silt/stream.h over stream/stream.h: a streaming query
 * run on a thread of its own (pthreads), stopped by a flag the query checks
 * between batches.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/conn.h"
#include "silt/stream.h"
#include "stream/stream.h"
#include "util/mem.h"

struct silt_stream {
    stream_query *q;
    silt_stream_options o;
    pthread_t thread;
    int started, joined;
    silt_status rc;
    silt_error err;
    char errmsg[ERRMSG_MAX];
};

static void on_console(void *payload, const char *text, size_t len)
{
    silt_stream *st = payload;
    if (st->o.console != NULL && st->o.console(st->o.payload, text, len) != 0)
        stream_query_stop(st->q); /* the caller wants no more */
}

static void on_progress(void *payload, const stream_progress *p)
{
    silt_stream *st = payload;
    buf json, line;
    buf_init(&json, 0);
    buf_init(&line, 0);
    if (st->o.progress != NULL && stream_progress_json(p, &json, NULL) == SILT_OK &&
        stream_progress_line(p, &line, NULL) == SILT_OK)
        st->o.progress(st->o.payload, buf_cstr(&json), buf_cstr(&line));
    buf_clear(&json);
    buf_clear(&line);
}

/* "availableNow", "once", or an interval: "5 seconds", "500 ms", "1 minute". */
static silt_status parse_trigger(const char *text, stream_options *o, silt_error *err)
{
    char *end = NULL;
    double n;
    static const struct { const char *unit; int64_t ms; } units[] = {
        {"ms", 1}, {"millisecond", 1}, {"milliseconds", 1}, {"s", 1000}, {"sec", 1000},
        {"second", 1000}, {"seconds", 1000}, {"min", 60000}, {"minute", 60000},
        {"minutes", 60000}, {"h", 3600000}, {"hour", 3600000}, {"hours", 3600000}};
    size_t idx;
    if (text == NULL)
        return SILT_OK;
    if (util_str_casecmp(text, "availableNow") == 0) {
        o->trigger = STREAM_TRIGGER_AVAILABLE_NOW;
        return SILT_OK;
    }
    if (util_str_casecmp(text, "once") == 0) {
        o->trigger = STREAM_TRIGGER_ONCE;
        return SILT_OK;
    }
    if (util_str_ncasecmp(text, "interval ", 9) == 0)
        text += 9;
    n = strtod(text, &end);
    while (end != NULL && *end == ' ')
        end++;
    for (idx = 0; end != NULL && end != text && idx < sizeof(units) / sizeof(units[0]); idx++) {
        if (util_str_casecmp(end, units[idx].unit) == 0 && n >= 0) {
            o->trigger = STREAM_TRIGGER_PROCESSING_TIME;
            o->interval_ms = (int64_t)(n * (double)units[idx].ms);
            return SILT_OK;
        }
    }
    return err_set(err, SILT_INVALID, "trigger \"%s\" is not availableNow, once or an interval "
                   "such as '5 seconds'", text);
}

static silt_status parse_mode(const char *text, stream_options *o, silt_error *err)
{
    if (text == NULL)
        return SILT_OK;
    if (util_str_casecmp(text, "append") == 0)
        o->mode = STREAM_MODE_APPEND;
    else if (util_str_casecmp(text, "complete") == 0)
        o->mode = STREAM_MODE_COMPLETE;
    else if (util_str_casecmp(text, "update") == 0)
        o->mode = STREAM_MODE_UPDATE;
    else
        return err_set(err, SILT_INVALID, "Unknown output mode %s. Accepted output modes are "
                       "'append', 'complete', 'update'", text);
    return SILT_OK;
}

static void *run(void *payload)
{
    silt_stream *st = payload;
    st->rc = stream_query_run(st->q, &st->err);
    return NULL;
}

SILT_API silt_status silt_stream_start(silt_stream **out, silt_conn *conn, const char *sql,
                                       const silt_stream_options *opts)
{
    static const silt_stream_options defaults = SILT_STREAM_OPTIONS_INIT;
    stream_options so = STREAM_OPTIONS_INIT;
    silt_error err = SILT_ERROR_INIT;
    silt_stream *st;
    silt_status rc;
    if (out == NULL || conn == NULL || sql == NULL)
        return SILT_INVALID;
    *out = NULL;
    if (opts != NULL && (opts->version < 1 || opts->version > SILT_STREAM_OPTIONS_VERSION))
        return api_conn_error(conn, err_set(&err, SILT_INVALID, "stream options version %u is "
                                            "not 1", opts->version), &err);
    st = mem_calloc(1, sizeof(*st));
    if (st == NULL)
        return api_conn_error(conn, err_nomem(&err), &err);
    st->o = opts != NULL ? *opts : defaults;
    rc = parse_trigger(st->o.trigger, &so, &err);
    if (rc == SILT_OK)
        rc = parse_mode(st->o.output_mode, &so, &err);
    so.checkpoint = st->o.checkpoint;
    so.console = on_console;
    so.progress = on_progress;
    so.payload = st;
    if (rc == SILT_OK)
        rc = stream_query_open(&st->q, conn->session, sql, &so, &err);
    if (rc == SILT_OK && pthread_create(&st->thread, NULL, run, st) != 0)
        rc = err_set(&err, SILT_IO, "could not start the stream's thread");
    if (rc != SILT_OK) {
        stream_query_free(st->q);
        mem_free(st);
        return api_conn_error(conn, rc, &err);
    }
    st->started = 1;
    *out = st;
    return api_conn_error(conn, SILT_OK, NULL);
}

SILT_API void silt_stream_stop(silt_stream *stream)
{
    if (stream != NULL && stream->q != NULL)
        stream_query_stop(stream->q);
}

SILT_API silt_status silt_stream_wait(silt_stream *stream)
{
    if (stream == NULL)
        return SILT_INVALID;
    if (stream->started && !stream->joined) {
        pthread_join(stream->thread, NULL);
        stream->joined = 1;
        api_keep_error(stream->errmsg, stream->rc, &stream->err);
    }
    return stream->rc;
}

SILT_API silt_status silt_stream_last_progress(silt_stream *stream, silt_text_fn fn,
                                               void *payload)
{
    buf b;
    silt_status rc;
    if (stream == NULL || fn == NULL)
        return SILT_INVALID;
    buf_init(&b, 0);
    rc = stream_query_progress_json(stream->q, &b, NULL);
    if (rc == SILT_OK && b.len > 0 && fn(payload, b.data, b.len) != 0)
        rc = SILT_IO;
    buf_clear(&b);
    return rc;
}

SILT_API const char *silt_stream_errmsg(const silt_stream *stream)
{
    return stream != NULL ? stream->errmsg : "";
}

SILT_API void silt_stream_free(silt_stream *stream)
{
    if (stream == NULL)
        return;
    silt_stream_stop(stream);
    silt_stream_wait(stream);
    stream_query_free(stream->q);
    mem_free(stream);
}
