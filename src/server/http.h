/*
 * http.h - the request head of the --http endpoint (http.c), parsed apart
 * from the socket so that fuzz/fuzz_pgwire.c can reach it.
 */
#ifndef SILT_SERVER_HTTP_H
#define SILT_SERVER_HTTP_H

#include <stddef.h>

#define SRV_HTTP_NAME 64

typedef struct srv_http_req {
    char method[16];
    char path[512];
    char auth[512];            /* Authorization, "" when absent */
    char user[SRV_HTTP_NAME];  /* X-Trino-User, "" when absent */
    char schema[SRV_HTTP_NAME];/* X-Trino-Schema, "default" when absent */
    long content_length;       /* -1 when absent */
    int chunked;               /* a Transfer-Encoding was sent */
    char *body;                /* set by the reader, not the parser */
} srv_http_req;

/*
 * Parses the NUL-terminated head (request line and header lines, each ended
 * by CRLF): 1 when it is a request, 0 when not (400). Values too long for
 * their field count as absent, never overflow.
 */
int srv_http_parse_head(const char *head, srv_http_req *r);

#endif
