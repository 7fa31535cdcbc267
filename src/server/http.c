/*
 * http.c - the HTTP endpoint of silt serve (--http HOST:PORT,
 * docs/server.md "HTTP endpoint"): statements in, results out as JSON, in
 * the shape of the Trino client protocol (v1), so the `trino` Python
 * package and a web page both use it.
 *
 *   POST /v1/statement   body: one SQL statement. Headers: Authorization
 *                        Basic (the users of --config), X-Trino-User (the
 *                        user with --trust), X-Trino-Schema (the silt
 *                        database, default "default"). Answer: 200 and
 *                        {"id", "infoUri", "columns", "data", "stats",
 *                        "updateType"/"updateCount", "error"} with no
 *                        nextUri: the whole result is this one answer,
 *                        streamed (chunked) batch by batch, so the server
 *                        never holds the result.
 *
 * The same rules as the PostgreSQL listener: with --tls-cert the endpoint
 * speaks HTTPS only; read-only users and databases= hold (the statement
 * goes through compat.c as a simple query would); one request at a time
 * per connection, counted in --max-connections; SIGTERM interrupts it.
 * A statement's failure is a 200 with "error" (as Trino answers), bad
 * requests are 400/401/404/405/411/413.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/http.h"
#include "server/scram.h"
#include "server/server_int.h"
#include "server/sqlstate.h"
#include "util/mem.h"

#define HTTP_MAX_HEAD (64u << 10)
#define HTTP_CHUNK (64u << 10)
/* appends a string literal */
#define LIT(b, text) buf_append((b), (text), sizeof(text) - 1, NULL)

typedef srv_http_req http_req;

/* ---------------------------------------------------------------- reading */

/* The value of header name in the head (lines after the first), trimmed, into out. */
static int header(const char *head, const char *name, char *out, size_t cap)
{
    const char *p = strstr(head, "\r\n");
    size_t len = strlen(name);
    while (p != NULL && p[2] != '\r' && p[2] != '\0') {
        const char *line = p + 2, *end = strstr(line, "\r\n");
        if (end == NULL)
            return 0;
        if ((size_t)(end - line) > len && strncasecmp(line, name, len) == 0 && line[len] == ':') {
            const char *v = line + len + 1;
            size_t n;
            while (*v == ' ' || *v == '\t')
                v++;
            n = (size_t)(end - v);
            while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
                n--;
            if (n >= cap)
                return 0;
            memcpy(out, v, n);
            out[n] = '\0';
            return 1;
        }
        p = end;
    }
    return 0;
}

int srv_http_parse_head(const char *head, srv_http_req *r)
{
    char cl[32];
    memset(r, 0, sizeof(*r));
    if (sscanf(head, "%15s %511s", r->method, r->path) != 2)
        return 0;
    if (!header(head, "Authorization", r->auth, sizeof(r->auth)))
        r->auth[0] = '\0';
    if (!header(head, "X-Trino-User", r->user, sizeof(r->user)))
        r->user[0] = '\0';
    if (!header(head, "X-Trino-Schema", r->schema, sizeof(r->schema)))
        snprintf(r->schema, sizeof(r->schema), "default");
    if (header(head, "Transfer-Encoding", cl, sizeof(cl)))
        r->chunked = 1;
    r->content_length = -1;
    if (header(head, "Content-Length", cl, sizeof(cl))) {
        char *end = NULL;
        long v = strtol(cl, &end, 10);
        if (end == cl || *end != '\0' || v < 0)
            return 0;
        r->content_length = v;
    }
    return 1;
}

/* Reads one request into s->in (head, then body). 1 read, 0 the client is gone, -1 bad (code set). */
static int read_request(srv_session *s, http_req *r, int *code)
{
    size_t have = 0, head_len = 0;
    char *end = NULL;
    memset(r, 0, sizeof(*r));
    buf_truncate(&s->in, 0);
    while (end == NULL) {
        long n;
        if (buf_reserve(&s->in, have + 4096 + 1, NULL) != SILT_OK || have >= HTTP_MAX_HEAD) {
            *code = 431;
            return -1;
        }
        n = srv_sock_read_some(s, s->in.data + have, 4096);
        if (n <= 0)
            return 0;
        have += (size_t)n;
        s->in.data[have] = '\0';
        end = strstr(s->in.data, "\r\n\r\n");
    }
    head_len = (size_t)(end - s->in.data) + 4;
    end[2] = '\0'; /* the head alone; the body is read over it below */
    if (!srv_http_parse_head(s->in.data, r)) {
        *code = 400;
        return -1;
    }
    if (strcmp(r->method, "POST") != 0)
        return 1;
    if (r->chunked || r->content_length < 0) {
        *code = 411; /* a length first: the body is bounded before it is read */
        return -1;
    }
    if ((size_t)r->content_length > s->srv->opts.max_message) {
        *code = 413;
        return -1;
    }
    if (buf_reserve(&s->in, head_len + (size_t)r->content_length + 1, NULL) != SILT_OK) {
        *code = 413;
        return -1;
    }
    while (have < head_len + (size_t)r->content_length) {
        long n = srv_sock_read_some(s, s->in.data + have, head_len + (size_t)r->content_length - have);
        if (n <= 0)
            return 0;
        have += (size_t)n;
    }
    s->in.data[head_len + (size_t)r->content_length] = '\0';
    r->body = s->in.data + head_len;
    return 1;
}

/* ---------------------------------------------------------------- writing */

static void json_str(buf *b, const char *text, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    buf_append_char(b, '"', NULL);
    for (size_t k = 0; k < len; k++) {
        unsigned char c = (unsigned char)text[k];
        if (c == '"' || c == '\\') {
            buf_append_char(b, '\\', NULL);
            buf_append_char(b, (char)c, NULL);
        } else if (c < 0x20) {
            char e[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
            buf_append(b, e, 6, NULL);
        } else {
            buf_append_char(b, (char)c, NULL);
        }
    }
    buf_append_char(b, '"', NULL);
}

/* Sends what the body holds as one chunk (Transfer-Encoding: chunked). */
static int send_chunk(srv_session *s, buf *body)
{
    char head[24];
    int rc = 0;
    if (body->len == 0)
        return 0;
    snprintf(head, sizeof(head), "%zx\r\n", body->len);
    rc = srv_sock_write(s, head, strlen(head));
    if (rc == 0)
        rc = srv_sock_write(s, body->data, body->len);
    if (rc == 0)
        rc = srv_sock_write(s, "\r\n", 2);
    buf_truncate(body, 0);
    return rc;
}

static void send_plain(srv_session *s, int code, const char *reason, const char *extra,
                       const char *message)
{
    buf b = BUF_INIT, body = BUF_INIT;
    LIT(&body, "{\"error\":{\"message\":");
    json_str(&body, message, strlen(message));
    LIT(&body, "}}");
    buf_printf(&b, NULL, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: "
               "%zu\r\nConnection: close\r\n%s\r\n", code, reason, body.len, extra ? extra : "");
    buf_append(&b, body.data, body.len, NULL);
    srv_sock_write(s, b.data, b.len);
    buf_clear(&b);
    buf_clear(&body);
}

/* Trino's name of a column's type, and its typeSignature. */
static void trino_type(buf *b, const srv_column *c)
{
    const char *raw = "json";
    char full[64];
    int arg = -1;
    switch (c->kind) {
    case SRV_K_BOOL: raw = "boolean"; break;
    case SRV_K_INT8: raw = "tinyint"; break;
    case SRV_K_INT16: raw = "smallint"; break;
    case SRV_K_INT32: raw = "integer"; break;
    case SRV_K_INT64: raw = "bigint"; break;
    case SRV_K_FLOAT: raw = "real"; break;
    case SRV_K_DOUBLE: raw = "double"; break;
    case SRV_K_DECIMAL: raw = "decimal"; break;
    case SRV_K_STRING: case SRV_K_NULL: raw = "varchar"; break;
    case SRV_K_BINARY: raw = "varbinary"; break;
    case SRV_K_DATE: raw = "date"; break;
    case SRV_K_TIMESTAMP: raw = "timestamp with time zone"; arg = 6; break;
    case SRV_K_TIMESTAMP_NTZ: raw = "timestamp"; arg = 6; break;
    default: break;
    }
    if (c->kind == SRV_K_DECIMAL)
        snprintf(full, sizeof(full), "decimal(%d,%d)", c->precision, c->scale);
    else if (arg == 6)
        snprintf(full, sizeof(full), "%s", c->kind == SRV_K_TIMESTAMP
                                               ? "timestamp(6) with time zone" : "timestamp(6)");
    else
        snprintf(full, sizeof(full), "%s", raw);
    buf_printf(b, NULL, "\"type\":\"%s\",\"typeSignature\":{\"rawType\":\"%s\",\"arguments\":[",
               full, raw);
    if (c->kind == SRV_K_DECIMAL)
        buf_printf(b, NULL, "{\"kind\":\"LONG\",\"value\":%d},{\"kind\":\"LONG\",\"value\":%d}",
                   c->precision, c->scale);
    else if (arg >= 0)
        buf_printf(b, NULL, "{\"kind\":\"LONG\",\"value\":%d}", arg);
    else if (strcmp(raw, "varchar") == 0) /* unbounded, as Trino says it */
        LIT(b, "{\"kind\":\"LONG\",\"value\":2147483647}");
    LIT(b, "]}");
}

/* One value as Trino's JSON: from PostgreSQL's text form (values.c) of the cell. */
static silt_status put_value(buf *b, buf *scratch, const srv_column *c,
                             const struct ArrowSchema *schema, const struct ArrowArray *array,
                             int64_t row, silt_error *err)
{
    const char *t;
    int32_t len;
    buf_truncate(scratch, 0);
    SILT_RETURN_IF_ERROR(srv_put_field(scratch, c, schema, array, row, 0, err));
    len = (int32_t)((uint32_t)(uint8_t)scratch->data[0] << 24 |
                    (uint32_t)(uint8_t)scratch->data[1] << 16 |
                    (uint32_t)(uint8_t)scratch->data[2] << 8 | (uint8_t)scratch->data[3]);
    t = scratch->data + 4;
    if (len < 0)
        return buf_append(b, "null", 4, err);
    switch (c->kind) {
    case SRV_K_BOOL:
        return buf_append(b, t[0] == 't' ? "true" : "false", t[0] == 't' ? 4 : 5, err);
    case SRV_K_INT8: case SRV_K_INT16: case SRV_K_INT32: case SRV_K_INT64:
        return buf_append(b, t, (size_t)len, err);
    case SRV_K_FLOAT: case SRV_K_DOUBLE:
        if ((t[0] >= '0' && t[0] <= '9') || (t[0] == '-' && t[1] >= '0' && t[1] <= '9'))
            return buf_append(b, t, (size_t)len, err);
        json_str(b, t, (size_t)len); /* NaN, Infinity, -Infinity: strings, as Trino sends them */
        return SILT_OK;
    case SRV_K_BINARY: {
        /* bytea text \x0102 -> base64 */
        size_t n = len > 2 ? (size_t)(len - 2) / 2 : 0, k;
        uint8_t *raw = mem_alloc(n + 1);
        if (raw == NULL)
            return err_nomem(err);
        for (k = 0; k < n; k++) {
            unsigned hi = (unsigned)(t[2 + 2 * k] <= '9' ? t[2 + 2 * k] - '0' : t[2 + 2 * k] - 'a' + 10);
            unsigned lo = (unsigned)(t[3 + 2 * k] <= '9' ? t[3 + 2 * k] - '0' : t[3 + 2 * k] - 'a' + 10);
            raw[k] = (uint8_t)(hi << 4 | lo);
        }
        buf_append_char(b, '"', NULL);
        srv_base64_encode(b, raw, n, NULL);
        mem_free(raw);
        return buf_append_char(b, '"', err);
    }
    case SRV_K_TIMESTAMP: case SRV_K_TIMESTAMP_NTZ: {
        /* 2024-01-02 03:04:05[.fff][+00] -> 2024-01-02 03:04:05.000000[ UTC] */
        char out[64];
        int32_t n = len, frac = 0;
        const char *dot;
        if (c->kind == SRV_K_TIMESTAMP && n > 3 && t[n - 3] == '+')
            n -= 3;
        dot = memchr(t, '.', (size_t)n);
        if (n > 40)
            return buf_append(b, "null", 4, err);
        frac = dot ? (int32_t)(t + n - dot - 1) : 0;
        snprintf(out, sizeof(out), "%.*s%s%.*s%s", (int)n, t, dot ? "" : ".",
                 frac < 6 ? (int)(6 - frac) : 0, "000000",
                 c->kind == SRV_K_TIMESTAMP ? " UTC" : "");
        json_str(b, out, strlen(out));
        return SILT_OK;
    }
    default:
        json_str(b, t, (size_t)len); /* decimal (a string, as Trino), text, date, json */
        return SILT_OK;
    }
}

/* ---------------------------------------------------------------- a statement */

static void put_error(buf *body, const char *message, const char *name, const char *state)
{
    LIT(body, "\"error\":{\"message\":");
    json_str(body, message, strlen(message));
    LIT(body, ",\"errorCode\":1,\"errorName\":");
    json_str(body, name, strlen(name));
    LIT(body, ",\"errorType\":\"USER_ERROR\",\"sqlState\":");
    json_str(body, state, strlen(state));
    LIT(body, "},");
}

static void put_stats(buf *body, const char *state, int64_t rows)
{
    buf_printf(body, NULL, "\"stats\":{\"state\":\"%s\",\"queued\":false,\"scheduled\":true,"
               "\"nodes\":1,\"totalSplits\":0,\"queuedSplits\":0,\"runningSplits\":0,"
               "\"completedSplits\":0,\"cpuTimeMillis\":0,\"wallTimeMillis\":0,"
               "\"queuedTimeMillis\":0,\"elapsedTimeMillis\":0,\"processedRows\":%lld,"
               "\"processedBytes\":0,\"peakMemoryBytes\":0},\"warnings\":[]}", state,
               (long long)rows);
}

/* Streams the rows of st (schema read) into body, sending chunks as it fills. */
static silt_status stream_rows(srv_session *s, struct ArrowArrayStream *st,
                               struct ArrowSchema *schema, srv_column *cols, buf *body,
                               int64_t *rows, silt_error *err)
{
    buf scratch = BUF_INIT;
    silt_status rc = SILT_OK;
    *rows = 0;
    while (rc == SILT_OK) {
        struct ArrowArray a;
        memset(&a, 0, sizeof(a));
        if (st->get_next(st, &a) != 0) {
            const char *m = st->get_last_error(st);
            rc = err_set(err, silt_conn_errcode(s->conn) != SILT_OK ? silt_conn_errcode(s->conn)
                                                                   : SILT_IO,
                         "%s", m ? m : "the statement failed");
            break;
        }
        if (a.release == NULL)
            break;
        for (int64_t r = 0; rc == SILT_OK && r < a.length; r++) {
            if (*rows)
                buf_append_char(body, ',', NULL);
            buf_append_char(body, '[', NULL);
            for (int64_t k = 0; rc == SILT_OK && k < schema->n_children; k++) {
                if (k)
                    buf_append_char(body, ',', NULL);
                rc = put_value(body, &scratch, &cols[k], schema->children[k], a.children[k],
                               r + a.offset, err);
            }
            buf_append_char(body, ']', NULL);
            (*rows)++;
            if (body->len >= HTTP_CHUNK && send_chunk(s, body) != 0)
                rc = err_set(err, SILT_IO, "the client went away");
        }
        a.release(&a);
    }
    buf_clear(&scratch);
    return rc;
}

static void run_statement(srv_session *s, const char *sql, const char *qid)
{
    silt_error err = SILT_ERROR_INIT;
    srv_compat c;
    const char *state = "XX000";
    struct ArrowArrayStream st;
    struct ArrowSchema schema;
    srv_column *cols = NULL;
    buf body = BUF_INIT;
    int64_t rows = 0, before = silt_conn_rows_written(s->conn);
    silt_status rc;
    char w1[16] = "";
    memset(&st, 0, sizeof(st));
    memset(&schema, 0, sizeof(schema));
    memset(&c, 0, sizeof(c));
    {
        static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                   "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
        srv_sock_write(s, head, sizeof(head) - 1);
    }
    buf_printf(&body, NULL, "{\"id\":\"%s\",\"infoUri\":\"/v1/query/%s\",", qid, qid);
    sscanf(sql, " %15[A-Za-z]", w1);
    rc = srv_compat_look(s, sql, &c, &state, &err);
    if (rc == SILT_OK && c.kind == SRV_C_TABLE) {
        /* the server's own answers: every column text */
        LIT(&body, "\"columns\":[");
        for (int k = 0; k < c.table.n_cols; k++) {
            if (k)
                buf_append_char(&body, ',', NULL);
            LIT(&body, "{\"name\":");
            json_str(&body, c.table.names[k], strlen(c.table.names[k]));
            LIT(&body, ",\"type\":\"varchar\",\"typeSignature\":{\"rawType\":\"varchar\","
                              "\"arguments\":[{\"kind\":\"LONG\",\"value\":2147483647}]}}");
        }
        LIT(&body, "],\"data\":[");
        {
            const uint8_t *p = (const uint8_t *)c.table.cells.data;
            for (int64_t r = 0; r < c.table.n_rows; r++) {
                if (r)
                    buf_append_char(&body, ',', NULL);
                buf_append_char(&body, '[', NULL);
                for (int k = 0; k < c.table.n_cols; k++) {
                    int32_t n = (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
                                          (uint32_t)p[2] << 8 | p[3]);
                    if (k)
                        buf_append_char(&body, ',', NULL);
                    if (n < 0)
                        LIT(&body, "null");
                    else
                        json_str(&body, (const char *)p + 4, (size_t)n);
                    p += 4 + (n > 0 ? n : 0);
                }
                buf_append_char(&body, ']', NULL);
            }
        }
        LIT(&body, "],");
        put_stats(&body, "FINISHED", c.table.n_rows);
        goto done;
    }
    if (rc == SILT_OK && c.kind == SRV_C_COMMAND) {
        put_stats(&body, "FINISHED", 0);
        goto done;
    }
    if (rc != SILT_OK) {
        put_error(&body, err.message, err.error_class[0] ? err.error_class : state, state);
        put_stats(&body, "FAILED", 0);
        goto done;
    }
    rc = silt_conn_exec(s->conn, c.kind == SRV_C_SILT ? buf_cstr(&c.rewritten) : sql, &st);
    if (rc == SILT_OK && st.get_schema(&st, &schema) != 0)
        rc = err_set(&err, SILT_IO, "%s", st.get_last_error(&st));
    if (rc == SILT_OK && schema.n_children > 0) {
        cols = mem_calloc((size_t)schema.n_children, sizeof(*cols));
        if (cols == NULL)
            rc = err_nomem(&err);
        for (int64_t k = 0; rc == SILT_OK && k < schema.n_children; k++)
            rc = srv_column_from_schema(schema.children[k], &cols[k], &err);
        LIT(&body, "\"columns\":[");
        for (int64_t k = 0; rc == SILT_OK && k < schema.n_children; k++) {
            if (k)
                buf_append_char(&body, ',', NULL);
            LIT(&body, "{\"name\":");
            json_str(&body, schema.children[k]->name, strlen(schema.children[k]->name));
            buf_append_char(&body, ',', NULL);
            trino_type(&body, &cols[k]);
            buf_append_char(&body, '}', NULL);
        }
        LIT(&body, "],\"data\":[");
        if (rc == SILT_OK)
            rc = stream_rows(s, &st, &schema, cols, &body, &rows, &err);
        LIT(&body, "],");
    } else if (rc == SILT_OK) {
        while (rc == SILT_OK) { /* a statement without columns may work as it is pulled */
            struct ArrowArray a;
            memset(&a, 0, sizeof(a));
            if (st.get_next(&st, &a) != 0)
                rc = err_set(&err, silt_conn_errcode(s->conn), "%s", st.get_last_error(&st));
            else if (a.release == NULL)
                break;
            else
                a.release(&a);
        }
    }
    if (rc != SILT_OK && err.code == SILT_OK)
        err_set(&err, rc, "%s", silt_conn_error_message(s->conn));
    if (rc != SILT_OK) {
        const char *cls = silt_conn_error_class(s->conn);
        const char *st_code = srv_sqlstate(rc, cls ? cls : "", err.message);
        put_error(&body, err.message, cls && cls[0] ? cls : st_code, st_code);
        put_stats(&body, "FAILED", rows);
    } else {
        if (strcasecmp(w1, "INSERT") == 0)
            buf_printf(&body, NULL, "\"updateType\":\"INSERT\",\"updateCount\":%lld,",
                       (long long)(silt_conn_rows_written(s->conn) - before));
        put_stats(&body, "FINISHED", rows);
    }
done:
    send_chunk(s, &body);
    srv_sock_write(s, "0\r\n\r\n", 5);
    if (schema.release)
        schema.release(&schema);
    if (st.release)
        st.release(&st);
    mem_free(cols);
    srv_compat_clear(&c);
    buf_clear(&body);
}

/* ---------------------------------------------------------------- sessions */

/* The user of a request: Basic credentials checked against --config, or X-Trino-User with --trust. */
static int authenticate(srv_session *s, const http_req *r)
{
    char decoded[512], *colon;
    size_t n = 0;
    const srv_user *u;
    s->user = NULL;
    if (strncasecmp(r->auth, "Basic ", 6) != 0) {
        if (s->srv->opts.trust && r->user[0] && srv_name_ok(r->user)) {
            snprintf(s->user_name, sizeof(s->user_name), "%s", r->user);
            return 1;
        }
        return 0;
    }
    if (srv_base64_decode(r->auth + 6, strlen(r->auth + 6), (uint8_t *)decoded,
                          sizeof(decoded) - 1, &n, NULL) != SILT_OK)
        return 0;
    decoded[n] = '\0';
    colon = strchr(decoded, ':');
    if (colon == NULL)
        return 0;
    *colon = '\0';
    if (!srv_name_ok(decoded))
        return 0;
    snprintf(s->user_name, sizeof(s->user_name), "%s", decoded);
    if (s->srv->opts.trust)
        return 1;
    u = srv_users_find(&s->srv->users, decoded);
    if (u == NULL) {
        /* the same work for a user that does not exist */
        srv_verifier mock;
        memset(&mock, 0, sizeof(mock));
        mock.iterations = SRV_SCRAM_ITERATIONS;
        mock.salt_len = SRV_SCRAM_SALT_LEN;
        srv_scram_check_password(&mock, colon + 1, strlen(colon + 1));
        return 0;
    }
    if (!srv_scram_check_password(&u->verifier, colon + 1, strlen(colon + 1)))
        return 0;
    s->user = u;
    return 1;
}

/* Opens the session's connection on the request's database; 0 with a 4xx sent when it cannot. */
static int open_conn(srv_session *s, const http_req *r)
{
    buf use = BUF_INIT;
    char msg[200];
    if (!srv_name_ok(r->schema) || (s->user && !srv_user_may_use(s->user, r->schema))) {
        snprintf(msg, sizeof(msg), "permission denied for database \"%s\"", r->schema);
        send_plain(s, 403, "Forbidden", NULL, msg);
        return 0;
    }
    snprintf(s->database, sizeof(s->database), "%s", r->schema);
    pthread_mutex_lock(&s->srv->lock);
    if (s->srv->stopping || silt_conn_open(&s->conn, s->srv->db) != SILT_OK)
        s->conn = NULL;
    pthread_mutex_unlock(&s->srv->lock);
    if (s->conn == NULL) {
        send_plain(s, 503, "Service Unavailable", NULL, "could not open a session");
        return 0;
    }
    if (s->user != NULL && s->user->read_only)
        silt_conn_set_read_only(s->conn, 1);
    if (srv_limit_databases(s) != SILT_OK) {
        send_plain(s, 503, "Service Unavailable", NULL, "out of memory");
        return 0;
    }
    buf_printf(&use, NULL, "USE `%s`", s->database);
    if (silt_conn_exec(s->conn, buf_cstr(&use), NULL) != SILT_OK) {
        snprintf(msg, sizeof(msg), "database \"%s\" does not exist", s->database);
        send_plain(s, 404, "Not Found", NULL, msg);
        buf_clear(&use);
        return 0;
    }
    buf_clear(&use);
    return 1;
}

void srv_http_serve(srv_session *s)
{
    http_req r;
    int code = 400, got;
    char qid[64];
    silt_error err = SILT_ERROR_INIT;
    if (s->srv->tls != NULL && srv_tls_accept(&s->tls, s->srv->tls, s->fd, &err) != SILT_OK)
        return;
    got = read_request(s, &r, &code);
    if (got == 0)
        return;
    if (got < 0) {
        send_plain(s, code, code == 411 ? "Length Required" : code == 413 ? "Payload Too Large"
                                                           : code == 431 ? "Request Header Fields Too Large"
                                                                         : "Bad Request",
                   NULL, "bad request");
        return;
    }
    if (strcmp(r.path, "/v1/statement") != 0) {
        send_plain(s, 404, "Not Found", NULL, "silt serve answers POST /v1/statement");
        return;
    }
    if (strcmp(r.method, "POST") != 0) {
        send_plain(s, 405, "Method Not Allowed", "Allow: POST\r\n",
                   "silt serve answers POST /v1/statement");
        return;
    }
    if (!authenticate(s, &r)) {
        send_plain(s, 401, "Unauthorized", "WWW-Authenticate: Basic realm=\"silt\"\r\n",
                   "password authentication failed");
        return;
    }
    if (!open_conn(s, &r))
        return;
    snprintf(qid, sizeof(qid), "silt_%d_%08x", (int)s->pid, (unsigned)s->key);
    run_statement(s, r.body, qid);
}
