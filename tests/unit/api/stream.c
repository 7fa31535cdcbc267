/*
 * Tests of include/silt/stream.h: a stream started on a connection runs on
 * a thread of its own (the connection stays free), calls back with every
 * batch's console text and progress, hands its last progress over, stops
 * after the batch in flight, and reports how it ended; the refusals
 * (a second stream on a running checkpoint, bad options) come from start.
 *
 * No timing is asserted: the waits for a batch poll with a generous
 * deadline and only fail when it passes.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "silt.h"
#include "test.h"
#include "util/time.h"

static silt_db *db;
static silt_conn *conn;

/* What the callbacks saw (they run on the stream's thread). */
typedef struct seen {
    pthread_mutex_t mu;
    int batches;         /* progress callbacks */
    char last_json[8192];
    char last_line[2048];
    char console[16384];
} seen;

static seen obs;

void test_api_stream__initialize(void)
{
    db = NULL;
    conn = NULL;
    memset(&obs, 0, sizeof(obs));
    pthread_mutex_init(&obs.mu, NULL);
}

void test_api_stream__cleanup(void)
{
    silt_conn_close(conn);
    silt_db_close(db);
    pthread_mutex_destroy(&obs.mu);
}

static void on_progress(void *payload, const char *json, const char *line)
{
    seen *s = payload;
    pthread_mutex_lock(&s->mu);
    s->batches++;
    snprintf(s->last_json, sizeof(s->last_json), "%s", json);
    snprintf(s->last_line, sizeof(s->last_line), "%s", line);
    pthread_mutex_unlock(&s->mu);
}

static int on_console(void *payload, const char *text, size_t len)
{
    seen *s = payload;
    size_t have;
    pthread_mutex_lock(&s->mu);
    have = strlen(s->console);
    if (have + len < sizeof(s->console)) {
        memcpy(s->console + have, text, len);
        s->console[have + len] = '\0';
    }
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static int batches_seen(void)
{
    int n;
    pthread_mutex_lock(&obs.mu);
    n = obs.batches;
    pthread_mutex_unlock(&obs.mu);
    return n;
}

/* Waits (up to a minute) until the stream has reported n batches. */
static void wait_batches(int n)
{
    int64_t deadline = time_monotonic_nanos() + 60LL * 1000000000LL;
    while (batches_seen() < n) {
        struct timespec ts = {0, 20 * 1000000L};
        if (time_monotonic_nanos() > deadline)
            test_fail(__FILE__, __LINE__, "no batch %d within a minute (%d seen)", n,
                      batches_seen());
        nanosleep(&ts, NULL);
    }
}

static void write_csv(const char *dir, const char *name, int first, int n)
{
    char path[4096];
    FILE *f;
    int idx;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    check(f != NULL);
    fprintf(f, "id,name\n");
    for (idx = first; idx < first + n; idx++)
        fprintf(f, "%d,n%d\n", idx, idx);
    fclose(f);
}

static int to_buf(void *payload, const char *text, size_t len)
{
    char *out = payload;
    size_t have = strlen(out);
    if (have + len >= 8192)
        return 1;
    memcpy(out + have, text, len);
    out[have + len] = '\0';
    return 0;
}

static void scalar(const char *sql, char *out)
{
    silt_output_options o = SILT_OUTPUT_OPTIONS_INIT;
    out[0] = '\0';
    o.format = SILT_OUTPUT_CSV; /* a header line, then the rows */
    check_int(SILT_OK, silt_conn_format(conn, sql, &o, to_buf, out));
}

#define SCHEMA "format => 'csv', header => true, schema => 'id INT, name STRING'"

void test_api_stream__available_now_into_delta_with_progress(void)
{
    char in[4096], table[4096], ckpt[4096], sql[16384], got[8192];
    silt_stream *st = NULL;
    silt_stream_options o = SILT_STREAM_OPTIONS_INIT;
    snprintf(in, sizeof(in), "%s/in", test_tmpdir());
    snprintf(table, sizeof(table), "%s/t", test_tmpdir());
    snprintf(ckpt, sizeof(ckpt), "%s/ck", test_tmpdir());
    check_int(0, mkdir(in, 0755));
    write_csv(in, "a.csv", 0, 20);
    write_csv(in, "b.csv", 20, 30);
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    snprintf(sql, sizeof(sql), "CREATE TABLE delta.`%s` (id INT, name STRING) USING delta", table);
    check_int(SILT_OK, silt_conn_format(conn, sql, NULL, to_buf, got));
    snprintf(sql, sizeof(sql), "INSERT INTO delta.`%s` SELECT * FROM STREAM read_files('%s', "
             SCHEMA ", maxFilesPerTrigger => 1)", table, in);
    o.trigger = "availableNow";
    o.checkpoint = ckpt;
    o.progress = on_progress;
    o.payload = &obs;
    check_int(SILT_OK, silt_stream_start(&st, conn, sql, &o));
    check_int(SILT_OK, silt_stream_wait(st));
    check_str("", silt_stream_errmsg(st));
    check_int(2, batches_seen());
    check_contains(obs.last_json, "\"batchId\":1");
    check_contains(obs.last_line, "batch 1");
    got[0] = '\0';
    check_int(SILT_OK, silt_stream_last_progress(st, to_buf, got));
    check_str(obs.last_json, got);
    check_contains(got, "\"numInputRows\":");
    check_contains(got, "\"startOffset\":{\"logOffset\":0}");
    check_contains(got, "\"endOffset\":{\"logOffset\":1}");
    silt_stream_free(st);
    snprintf(sql, sizeof(sql), "SELECT count(*), count(DISTINCT id) FROM delta.`%s`", table);
    scalar(sql, got);
    check_contains(got, "\n50,50\n");
}

void test_api_stream__runs_until_stopped_and_refuses_a_second_stream(void)
{
    char in[4096], ckpt[4096], sql[16384], got[8192];
    silt_stream *st = NULL, *second = NULL;
    silt_stream_options o = SILT_STREAM_OPTIONS_INIT;
    snprintf(in, sizeof(in), "%s/in", test_tmpdir());
    snprintf(ckpt, sizeof(ckpt), "%s/ck", test_tmpdir());
    check_int(0, mkdir(in, 0755));
    write_csv(in, "a.csv", 0, 3);
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    snprintf(sql, sizeof(sql), "SELECT id FROM STREAM read_files('%s', " SCHEMA ")", in);
    o.checkpoint = ckpt;            /* default trigger: runs until stopped */
    o.console = on_console;
    o.progress = on_progress;
    o.payload = &obs;
    got[0] = '\0';
    check_int(SILT_INVALID, silt_stream_last_progress(NULL, to_buf, got));
    check_int(SILT_OK, silt_stream_start(&st, conn, sql, &o));
    wait_batches(1);
    /* the connection is free while the stream runs */
    scalar("SELECT 40 + 2", got);
    check_contains(got, "\n42\n");
    /* a second stream on the running checkpoint is refused by start */
    check_int(SILT_CONFLICT, silt_stream_start(&second, conn, sql, &o));
    check(second == NULL);
    check_contains(silt_conn_errmsg(conn), "CONCURRENT_QUERY");
    write_csv(in, "b.csv", 100, 2);
    wait_batches(2);
    silt_stream_stop(st);
    check_int(SILT_OK, silt_stream_wait(st));
    got[0] = '\0';
    check_int(SILT_OK, silt_stream_last_progress(st, to_buf, got));
    check_contains(got, "\"batchId\":1");
    check_contains(got, "\"numInputRows\":2");
    silt_stream_free(st);
    check_contains(obs.console, "Batch: 0\n");
    check_contains(obs.console, "Batch: 1\n");
    check_contains(obs.console, "|101|\n");
    check_int(2, batches_seen());
}

void test_api_stream__failures_and_refusals(void)
{
    char in[4096], sql[16384];
    silt_stream *st = NULL;
    silt_stream_options o = SILT_STREAM_OPTIONS_INIT;
    FILE *f;
    snprintf(in, sizeof(in), "%s/in", test_tmpdir());
    check_int(0, mkdir(in, 0755));
    snprintf(sql, sizeof(sql), "%s/bad.csv", in);
    f = fopen(sql, "w");
    check(f != NULL);
    fputs("id,name\n1,a\nnotanumber,b\n", f);
    fclose(f);
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    /* a batch that fails (FAILFAST on a malformed row): wait returns its error */
    snprintf(sql, sizeof(sql), "SELECT * FROM STREAM read_files('%s', " SCHEMA
             ", mode => 'FAILFAST')", in);
    o.trigger = "once";
    o.console = on_console;
    o.payload = &obs;
    check_int(SILT_OK, silt_stream_start(&st, conn, sql, &o));
    check(silt_stream_wait(st) != SILT_OK);
    check_contains(silt_stream_errmsg(st), "malformed CSV record");
    silt_stream_free(st);
    st = NULL;
    /* options and statements start refuses */
    o.trigger = "sometimes";
    check_int(SILT_INVALID, silt_stream_start(&st, conn, sql, &o));
    check_contains(silt_conn_errmsg(conn), "trigger");
    o.trigger = "once";
    o.output_mode = "sideways";
    check_int(SILT_INVALID, silt_stream_start(&st, conn, sql, &o));
    o.output_mode = NULL;
    snprintf(sql, sizeof(sql), "INSERT INTO delta.`%s/nowhere` SELECT * FROM STREAM "
             "read_files('%s', " SCHEMA ")", test_tmpdir(), in);
    check_int(SILT_INVALID, silt_stream_start(&st, conn, sql, &o));
    check_contains(silt_conn_errmsg(conn), "checkpointLocation");
    check_fails(SILT_PARSE, silt_stream_start(&st, conn, "SELEKT 1", &o));
    check(st == NULL);
    silt_stream_free(NULL);
}
