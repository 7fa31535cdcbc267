/*
 * server.h - `silt serve`: the PostgreSQL protocol 3.0 server over a
 * warehouse (docs/server.md).
 */
#ifndef SILT_SERVER_SERVER_H
#define SILT_SERVER_SERVER_H

#include <stddef.h>

typedef struct srv_options {
    const char *warehouse;
    const char *listen;   /* host:port; port 0 picks a free one (printed on stdout) */
    const char *http;     /* host:port of the HTTP endpoint (http.c), or NULL */
    const char *config;   /* users file, or NULL (then trust is needed) */
    const char *tls_cert; /* PEM files; both or neither */
    const char *tls_key;
    int trust;           /* no password, loopback only */
    int max_connections; /* sessions at once */
    int idle_timeout;    /* seconds a session may stay silent (0 = no limit) */
    size_t max_message;  /* bytes of one client message */
    int n_threads;       /* worker threads of the shared pool (-1 = one per core) */
} srv_options;

/* Serves until SIGTERM or SIGINT; returns the exit code (errors on stderr). */
int srv_serve(const srv_options *opts);

#endif
