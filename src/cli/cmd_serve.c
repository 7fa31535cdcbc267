/*
 * cmd_serve.c - `silt serve`: the PostgreSQL protocol server over a
 * warehouse (src/server, docs/server.md).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "server/server.h"

#define CMD "serve"

static int parse_int(const char *text, long lo, long hi, long *out)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int run_serve(int argc, char **argv)
{
    srv_options o;
    long threads = -1, v;
    int idx;
    memset(&o, 0, sizeof(o));
    o.listen = "127.0.0.1:5433";
    o.max_connections = 100;
    o.idle_timeout = 3600;
    o.max_message = 64u << 20;
    for (idx = 1; idx < argc; idx++) {
        const char *arg = argv[idx];
        const char *val = idx + 1 < argc ? argv[idx + 1] : NULL;
        if (strcmp(arg, "--trust") == 0) {
            o.trust = 1;
            continue;
        }
        if (val == NULL)
            return cli_usage_error(CMD, "option '%s' needs a value (or is not an option)", arg);
        idx++;
        if (strcmp(arg, "--warehouse") == 0)
            o.warehouse = val;
        else if (strcmp(arg, "--listen") == 0)
            o.listen = val;
        else if (strcmp(arg, "--http") == 0)
            o.http = val;
        else if (strcmp(arg, "--config") == 0)
            o.config = val;
        else if (strcmp(arg, "--tls-cert") == 0)
            o.tls_cert = val;
        else if (strcmp(arg, "--tls-key") == 0)
            o.tls_key = val;
        else if (strcmp(arg, "--max-connections") == 0 && parse_int(val, 1, 100000, &v))
            o.max_connections = (int)v;
        else if (strcmp(arg, "--idle-timeout") == 0 && parse_int(val, 0, 86400 * 365, &v))
            o.idle_timeout = (int)v;
        else if (strcmp(arg, "--max-message") == 0 && parse_int(val, 1024, 1L << 30, &v))
            o.max_message = (size_t)v;
        else if (strcmp(arg, "--threads") == 0 && parse_int(val, 0, 1024, &threads))
            ;
        else
            return cli_usage_error(CMD, "unrecognised option or value '%s %s'", arg, val);
    }
    if (o.warehouse == NULL)
        return cli_usage_error(CMD, "serve needs --warehouse DIR");
    if ((o.tls_cert == NULL) != (o.tls_key == NULL))
        return cli_usage_error(CMD, "--tls-cert and --tls-key go together");
    o.n_threads = cli_workers_for_threads(threads);
    return srv_serve(&o);
}

const cli_command cli_serve_command = {
    CMD, "serve a warehouse over the PostgreSQL protocol (psql, psycopg, ...)",
    "usage: silt serve --warehouse DIR [--listen HOST:PORT] [--http HOST:PORT]\n"
    "                  [--config FILE] [--trust]\n"
    "                  [--tls-cert PEM --tls-key PEM] [--max-connections N]\n"
    "                  [--idle-timeout SECONDS] [--max-message BYTES] [--threads N]\n"
    "\n"
    "Speaks the PostgreSQL frontend/backend protocol 3.0 (simple and extended query,\n"
    "SCRAM-SHA-256, TLS, cancel requests) so that psql, psycopg and pg8000 connect\n"
    "as they are. --listen defaults to 127.0.0.1:5433 (port 0 picks a free one; the\n"
    "address is printed). Users come from --config FILE (silt passwd); --trust lets\n"
    "anyone in without a password, on a loopback address only. With --tls-cert the\n"
    "server accepts sslmode=require and refuses password logins without TLS.\n"
    "--http adds the HTTP endpoint: POST /v1/statement with JSON results in the\n"
    "Trino client protocol (HTTPS with --tls-cert), the same users.\n"
    "Defaults: 100 connections, 3600 s idle timeout, 64 MiB messages. SIGTERM or\n"
    "SIGINT stop it: running statements are cancelled and sessions closed.\n"
    "docs/server.md has the details.\n",
    run_serve};
