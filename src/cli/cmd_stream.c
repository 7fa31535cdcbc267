/*
 * cmd_stream.c - `silt stream`: run a streaming statement continuously
 * (include/silt/stream.h): the console sink's batches on stdout, one
 * progress line per batch on stderr (or Spark's progress JSON with
 * --progress json). SIGINT and SIGTERM stop the stream after the batch in
 * flight; SIGKILL loses nothing (the checkpoint is a write-ahead log).
 *
 * Exit codes: 0 the stream ended (trigger done or stopped), 1 it failed,
 * 2 a wrong command line.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "silt.h"

#define CMD "stream"

static silt_stream *volatile running;

static void on_signal(int sig)
{
    silt_stream *st = running;
    (void)sig;
    if (st != NULL)
        silt_stream_stop(st); /* one atomic store: async-signal-safe */
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

typedef struct progress_out {
    int json;
} progress_out;

static void on_progress(void *payload, const char *json, const char *line)
{
    const progress_out *p = payload;
    if (p->json)
        fprintf(stderr, "%s\n", json);
    else
        fputs(line, stderr);
    fflush(stderr);
}

/* The console sink's batches, on stdout as they come. */
static int to_stdout(void *payload, const char *text, size_t len)
{
    (void)payload;
    if (fwrite(text, 1, len, stdout) != len)
        return 1;
    return fflush(stdout) != 0;
}

static int run_stream(int argc, char **argv)
{
    silt_stream_options so = SILT_STREAM_OPTIONS_INIT;
    silt_db_options dbo = SILT_DB_OPTIONS_INIT;
    progress_out po = {0};
    const char *warehouse = NULL, *text = NULL;
    silt_db *db = NULL;
    silt_conn *conn = NULL;
    silt_stream *st = NULL;
    int idx, code = 0;
    dbo.n_threads = cli_workers_for_threads(-1);
    for (idx = 1; idx < argc; idx++) {
        const char *arg = argv[idx];
        if (strcmp(arg, "--warehouse") == 0 || strcmp(arg, "--trigger") == 0 ||
            strcmp(arg, "--checkpoint") == 0 || strcmp(arg, "--output-mode") == 0 ||
            strcmp(arg, "--progress") == 0) {
            const char *value;
            if (idx + 1 >= argc)
                return cli_usage_error(CMD, "option '%s' needs a value", arg);
            value = argv[++idx];
            if (strcmp(arg, "--warehouse") == 0)
                warehouse = value;
            else if (strcmp(arg, "--trigger") == 0)
                so.trigger = value;
            else if (strcmp(arg, "--checkpoint") == 0)
                so.checkpoint = value;
            else if (strcmp(arg, "--output-mode") == 0)
                so.output_mode = value;
            else if (strcmp(value, "json") == 0 || strcmp(value, "text") == 0)
                po.json = strcmp(value, "json") == 0;
            else
                return cli_usage_error(CMD, "--progress takes text or json, not '%s'", value);
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cli_usage_error(CMD, "unrecognised option '%s'", arg);
        } else if (text != NULL) {
            return cli_usage_error(CMD, "give the statement as one argument (quote it)");
        } else {
            text = arg;
        }
    }
    if (text == NULL)
        return cli_usage_error(CMD, "no statement given");
    so.console = to_stdout;
    so.progress = on_progress;
    so.payload = &po;
    if (silt_db_open(&db, warehouse, &dbo) != SILT_OK ||
        silt_conn_open(&conn, db) != SILT_OK) {
        fprintf(stderr, "silt: %s\n", silt_db_errmsg(db));
        code = 1;
    } else if (silt_stream_start(&st, conn, text, &so) != SILT_OK) {
        fprintf(stderr, "silt: %s\n", silt_conn_errmsg(conn));
        code = 1;
    } else {
        running = st;
        catch_signals();
        if (silt_stream_wait(st) != SILT_OK) {
            fflush(stdout);
            fprintf(stderr, "silt: %s\n", silt_stream_errmsg(st));
            code = 1;
        }
        running = NULL;
    }
    silt_stream_free(st);
    silt_conn_close(conn);
    silt_db_close(db);
    return code;
}

const cli_command cli_stream_command = {
    CMD, "run a streaming statement continuously",
    "usage: silt stream [--warehouse DIR] [--trigger availableNow|once|'5 seconds']\n"
    "                   [--checkpoint DIR] [--output-mode append|complete|update]\n"
    "                   [--progress text|json] \"STATEMENT\"\n"
    "\n"
    "Runs one streaming statement in micro-batches until its trigger is done or\n"
    "SIGINT/SIGTERM stops it after the batch in flight (docs/streaming.md):\n"
    "  CREATE [OR REFRESH] STREAMING TABLE t AS SELECT ... FROM STREAM <source>\n"
    "  REFRESH STREAMING TABLE t\n"
    "  INSERT INTO t SELECT ... FROM STREAM <source>        (needs --checkpoint)\n"
    "  SELECT ... FROM STREAM <source>                      (the console sink)\n"
    "Sources: read_files('dir', format => 'csv', schema => '...', maxFilesPerTrigger\n"
    "=> n, ...). Without --trigger a batch runs as soon as input arrives. Each batch\n"
    "prints one progress line on stderr (--progress json: Spark's\n"
    "StreamingQueryProgress); the console sink prints its batches on stdout.\n"
    "\n"
    "Exit status: 0 the stream ended, 1 it failed (error on stderr), 2 usage error.\n",
    run_stream};
