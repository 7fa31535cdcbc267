/*
 * session.c - one connection of silt serve: start-up, TLS, SCRAM-SHA-256,
 * then the simple and the extended query protocol until Terminate.
 *
 * PROTOCOL: PostgreSQL documentation, "Frontend/Backend Protocol": "Start
 * up", "Simple Query", "Extended Query", "Canceling Requests in
 * Progress", "SSL Session Encryption", "SASL Authentication".
 *
 * One thread and one silt_conn per session over the server's shared
 * silt_db. Results are streamed: each Arrow batch is turned into DataRow
 * messages and sent before the next batch is pulled, so a result is never
 * held whole; a portal suspended by an Execute row limit keeps its stream
 * and the batch it was in. A write that fails (the client went away) marks
 * the session broken: the statement's stream is released and the session
 * ends, freeing everything it held.
 *
 * Statements run in autocommit: every statement is its own Delta commit.
 * BEGIN/COMMIT/ROLLBACK are accepted and only move the transaction status
 * that ReadyForQuery reports (docs/server.md).
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/scram.h"
#include "server/server_int.h"
#include "server/sqlstate.h"
#include "server/wire.h"
#include "util/mem.h"

#define FLUSH_AT (64 * 1024)
#define FLUSH_BEFORE_FETCH (8 * 1024)

typedef struct srv_prep {
    char *name;
    char *sql;      /* as the client sent it */
    char *rewritten;/* $n -> :pN */
    int n_params;   /* highest $n */
    uint32_t *oids; /* n_params: from Parse, 0 = unspecified */
    silt_stmt *stmt;/* NULL for an empty or a client statement */
    struct srv_prep *next;
} srv_prep;

typedef struct srv_portal {
    char *name;
    int kind; /* 0 stream, 1 table, 2 tag only, 3 empty query */
    struct ArrowArrayStream stream;
    struct ArrowSchema schema;
    struct ArrowArray batch;
    int64_t batch_row;
    srv_column *cols;
    int n_cols;
    int16_t *formats;
    srv_table table;
    size_t cell_pos;
    int64_t table_row;
    char tag[64];
    /* 1 UPDATE/DELETE/MERGE: the count is the value of the result's first cell;
     * 2 INSERT: the count is what silt_conn_rows_written grew by */
    int count_tag;
    int64_t written_before;
    int64_t rows_sent;
    int64_t run_rows; /* rows of the last Execute: its CommandComplete count */
    int done;
    struct srv_portal *next;
} srv_portal;

/* ---------------------------------------------------------------- I/O */

int srv_sock_write(srv_session *s, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0 && !s->broken) {
        long n = s->tls ? srv_tls_write(s->tls, p, len)
                        : (long)send(s->fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR && !s->tls)
            continue;
        if (n <= 0) {
            s->broken = 1;
            break;
        }
        p += n;
        len -= (size_t)n;
    }
    return s->broken ? -1 : 0;
}

static int flush_out(srv_session *s)
{
    int rc = 0;
    if (s->out.len > 0)
        rc = srv_sock_write(s, s->out.data, s->out.len);
    buf_truncate(&s->out, 0);
    return rc;
}

/* Up to len bytes, as recv: the count, 0 at the end of the stream or on failure. */
long srv_sock_read_some(srv_session *s, void *data, size_t len)
{
    for (;;) {
        long n = s->tls ? srv_tls_read(s->tls, data, len) : (long)recv(s->fd, data, len, 0);
        if (n < 0 && errno == EINTR && !s->tls)
            continue;
        return n > 0 ? n : 0;
    }
}

/* 1 read, 0 end of stream or failure */
static int sock_read(srv_session *s, void *data, size_t len)
{
    char *p = data;
    while (len > 0) {
        long n = s->tls ? srv_tls_read(s->tls, p, len) : (long)recv(s->fd, p, len, 0);
        if (n < 0 && errno == EINTR && !s->tls)
            continue;
        if (n <= 0)
            return 0;
        p += n;
        len -= (size_t)n;
    }
    return 1;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ---------------------------------------------------------------- messages */

static silt_status put_simple(srv_session *s, char type, const void *body, size_t len)
{
    size_t start;
    SILT_RETURN_IF_ERROR(srv_msg_begin(&s->out, type, &start, NULL));
    SILT_RETURN_IF_ERROR(buf_append(&s->out, body, len, NULL));
    srv_msg_end(&s->out, start);
    return SILT_OK;
}

silt_status srv_send_parameter_status(srv_session *s, const char *name, const char *value)
{
    size_t start;
    SILT_RETURN_IF_ERROR(srv_msg_begin(&s->out, 'S', &start, NULL));
    SILT_RETURN_IF_ERROR(srv_put_cstr(&s->out, name, NULL));
    SILT_RETURN_IF_ERROR(srv_put_cstr(&s->out, value, NULL));
    srv_msg_end(&s->out, start);
    return SILT_OK;
}

static void send_error(srv_session *s, const char *severity, const char *state, const char *msg,
                       const char *detail, const char *hint, int position)
{
    srv_put_error(&s->out, 'E', severity, state, msg, detail && detail[0] ? detail : NULL,
                  hint && hint[0] ? hint : NULL, position, NULL);
}

static void send_fatal(srv_session *s, const char *state, const char *msg)
{
    send_error(s, "FATAL", state, msg, NULL, NULL, 0);
    flush_out(s);
}

/* 1-based character position of byte offset in text (UTF-8). */
static int char_position(const char *text, int64_t offset)
{
    int pos = 1;
    int64_t idx;
    for (idx = 0; idx < offset && text[idx]; idx++)
        if (((unsigned char)text[idx] & 0xc0) != 0x80)
            pos++;
    return pos;
}

/* The error of the last call on the session's connection. base: the statement's text. */
static void send_conn_error(srv_session *s, const char *base, size_t base_offset)
{
    silt_status code = silt_conn_errcode(s->conn);
    const char *cls = silt_conn_error_class(s->conn);
    const char *msg = silt_conn_error_message(s->conn);
    const char *full = silt_conn_errmsg(s->conn);
    const char *nl = strchr(full, '\n');
    int64_t offset = -1;
    int position = 0;
    if (base != NULL && silt_conn_error_position(s->conn, &offset, NULL, NULL))
        position = char_position(base, offset + (int64_t)base_offset);
    /* silt_conn_errmsg: the message, then DETAIL:, HINT: and CONTEXT: lines */
    char detail[1024] = "", hint[512] = "";
    while (nl != NULL) {
        const char *line = nl + 1, *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, "DETAIL: ", 8) == 0)
            snprintf(detail, sizeof(detail), "%.*s", (int)(len - 8), line + 8);
        else if (strncmp(line, "HINT: ", 6) == 0)
            snprintf(hint, sizeof(hint), "%.*s", (int)(len - 6), line + 6);
        nl = end;
    }
    {
        /* the primary message is the first line */
        const char *primary = msg[0] ? msg : full;
        const char *cut = strchr(primary, '\n');
        char first[SILT_ERROR_MESSAGE_MAX + 64];
        snprintf(first, sizeof(first), "%.*s", cut ? (int)(cut - primary) : (int)strlen(primary),
                 primary);
        send_error(s, "ERROR", srv_sqlstate(code, cls, msg), first, detail, hint, position);
    }
}

/*
 * An error whose message may be a whole silt_conn_errmsg text (a result
 * stream's last error): the first line is the message, DETAIL: and HINT:
 * lines go to their fields, CONTEXT: lines are dropped.
 */
static void send_silt_error(srv_session *s, const char *state, const silt_error *err)
{
    const char *nl = strchr(err->message, '\n');
    char first[SILT_ERROR_MESSAGE_MAX], detail[SILT_ERROR_MESSAGE_MAX], hint[SILT_ERROR_MESSAGE_MAX];
    if (nl == NULL) {
        send_error(s, "ERROR", state, err->message, err->detail, err->hint, 0);
        return;
    }
    snprintf(first, sizeof(first), "%.*s", (int)(nl - err->message), err->message);
    snprintf(detail, sizeof(detail), "%s", err->detail);
    snprintf(hint, sizeof(hint), "%s", err->hint);
    while (nl != NULL) {
        const char *line = nl + 1, *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, "DETAIL: ", 8) == 0)
            snprintf(detail, sizeof(detail), "%.*s", (int)(len - 8), line + 8);
        else if (strncmp(line, "HINT: ", 6) == 0)
            snprintf(hint, sizeof(hint), "%.*s", (int)(len - 6), line + 6);
        nl = end;
    }
    send_error(s, "ERROR", state, first, detail, hint, 0);
}

static silt_status send_ready(srv_session *s)
{
    char status = s->txn;
    SILT_RETURN_IF_ERROR(put_simple(s, 'Z', &status, 1));
    flush_out(s);
    return SILT_OK;
}

/* ---------------------------------------------------------------- SQL text */

/* Skips a quoted string, comment or nothing at sql[pos]; returns the position after it. */
static size_t skip_token(const char *sql, size_t pos)
{
    char c = sql[pos];
    if (c == '\'' || c == '"' || c == '`') {
        size_t p = pos + 1;
        while (sql[p] && sql[p] != c) {
            if (sql[p] == '\\' && c != '`' && sql[p + 1])
                p++;
            p++;
        }
        return sql[p] ? p + 1 : p;
    }
    if (c == '-' && sql[pos + 1] == '-') {
        while (sql[pos] && sql[pos] != '\n')
            pos++;
        return pos;
    }
    if (c == '/' && sql[pos + 1] == '*') {
        const char *end = strstr(sql + pos + 2, "*/");
        return end ? (size_t)(end - sql) + 2 : strlen(sql);
    }
    return pos + 1;
}

/* The next statement of a simple Query: [*start, *end) before a ';' or the end. 0 at the end. */
static int next_statement(const char *sql, size_t *pos, size_t *start, size_t *end)
{
    size_t p = *pos;
    if (sql[p] == '\0')
        return 0;
    *start = p;
    while (sql[p] && sql[p] != ';')
        p = skip_token(sql, p);
    *end = p;
    *pos = sql[p] ? p + 1 : p;
    return 1;
}

/* Only white space and comments? */
static int blank_sql(const char *sql)
{
    size_t p = 0;
    while (sql[p]) {
        if (sql[p] == ' ' || sql[p] == '\t' || sql[p] == '\n' || sql[p] == '\r') {
            p++;
        } else if ((sql[p] == '-' && sql[p + 1] == '-') || (sql[p] == '/' && sql[p + 1] == '*')) {
            p = skip_token(sql, p);
        } else {
            return 0;
        }
    }
    return 1;
}

/* $n placeholders -> :pN (silt's named parameters; $1 used twice is one parameter). */
static silt_status rewrite_params(const char *sql, buf *out, int *n_params, silt_error *err)
{
    size_t p = 0;
    *n_params = 0;
    while (sql[p]) {
        size_t next = skip_token(sql, p);
        if (sql[p] == '$' && sql[p + 1] >= '0' && sql[p + 1] <= '9' &&
            (p == 0 || !(sql[p - 1] == '_' || (sql[p - 1] >= 'a' && sql[p - 1] <= 'z') ||
                         (sql[p - 1] >= 'A' && sql[p - 1] <= 'Z') ||
                         (sql[p - 1] >= '0' && sql[p - 1] <= '9')))) {
            long n = 0;
            size_t q = p + 1;
            while (sql[q] >= '0' && sql[q] <= '9' && n < 100000)
                n = n * 10 + (sql[q++] - '0');
            if (n < 1 || n > 65535)
                return err_set(err, SILT_PARSE, "there is no parameter $%ld", n);
            if (n > *n_params)
                *n_params = (int)n;
            SILT_RETURN_IF_ERROR(buf_printf(out, err, ":p%ld", n));
            p = q;
            continue;
        }
        SILT_RETURN_IF_ERROR(buf_append(out, sql + p, next - p, err));
        p = next;
    }
    if (out->data == NULL)
        SILT_RETURN_IF_ERROR(buf_append(out, "", 0, err));
    return SILT_OK;
}

/* First word of sql (letters), upper-cased into w. */
static void first_words(const char *sql, char *w1, char *w2, size_t cap)
{
    size_t p = 0, n;
    char *dst[2] = {w1, w2};
    int k;
    w1[0] = w2[0] = '\0';
    for (k = 0; k < 2; k++) {
        while (sql[p] == ' ' || sql[p] == '\t' || sql[p] == '\n' || sql[p] == '\r' ||
               sql[p] == '(' || ((sql[p] == '-' || sql[p] == '/') && k == 0 &&
                                 (sql[p + 1] == '-' || sql[p + 1] == '*'))) {
            if (sql[p] == '-' || sql[p] == '/')
                p = skip_token(sql, p);
            else
                p++;
        }
        n = 0;
        while (((sql[p] >= 'a' && sql[p] <= 'z') || (sql[p] >= 'A' && sql[p] <= 'Z') ||
                sql[p] == '_') && n + 1 < cap) {
            char c = sql[p++];
            dst[k][n++] = (char)(c >= 'a' && c <= 'z' ? c - 32 : c);
        }
        dst[k][n] = '\0';
    }
}

static int is_query_word(const char *w)
{
    static const char *const words[] = {"SELECT", "WITH", "VALUES", "TABLE", "FROM", "SHOW",
                                        "DESCRIBE", "DESC", "EXPLAIN", "LIST", NULL};
    for (int idx = 0; words[idx]; idx++)
        if (strcmp(w, words[idx]) == 0)
            return 1;
    return 0;
}

/* The CommandComplete tag of a statement that gave no rows to send. */
static void command_tag(const char *sql, char *tag, size_t cap, int *count_tag)
{
    char w1[32], w2[32];
    first_words(sql, w1, w2, sizeof(w1));
    *count_tag = 0;
    if (strcmp(w1, "INSERT") == 0) {
        snprintf(tag, cap, "INSERT 0");
        *count_tag = 2;
    } else if (strcmp(w1, "UPDATE") == 0 || strcmp(w1, "DELETE") == 0 ||
               strcmp(w1, "MERGE") == 0) {
        snprintf(tag, cap, "%s", w1);
        *count_tag = 1;
    } else if ((strcmp(w1, "CREATE") == 0 || strcmp(w1, "DROP") == 0 ||
                strcmp(w1, "ALTER") == 0) && w2[0]) {
        if (strcmp(w2, "OR") == 0)
            snprintf(tag, cap, "%s", w1);
        else
            snprintf(tag, cap, "%s %s", w1, w2);
    } else {
        snprintf(tag, cap, "%s", w1[0] ? w1 : "OK");
    }
}

/* ---------------------------------------------------------------- portals */

static void portal_free(srv_portal *p)
{
    if (p == NULL)
        return;
    if (p->batch.release)
        p->batch.release(&p->batch);
    if (p->schema.release)
        p->schema.release(&p->schema);
    if (p->stream.release)
        p->stream.release(&p->stream);
    srv_table_clear(&p->table);
    mem_free(p->cols);
    mem_free(p->formats);
    mem_free(p->name);
    mem_free(p);
}

static srv_portal *portal_find(srv_session *s, const char *name, int unlink_it)
{
    srv_portal **pp;
    for (pp = &s->portals; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->name, name) == 0) {
            srv_portal *p = *pp;
            if (unlink_it)
                *pp = p->next;
            return p;
        }
    return NULL;
}

static void drop_portals(srv_session *s)
{
    while (s->portals) {
        srv_portal *p = s->portals;
        s->portals = p->next;
        portal_free(p);
    }
}

static srv_prep *prep_find(srv_session *s, const char *name)
{
    srv_prep *p;
    for (p = s->preps; p; p = p->next)
        if (strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

static void prep_free(srv_prep *p)
{
    if (p == NULL)
        return;
    silt_stmt_finalize(p->stmt);
    mem_free(p->name);
    mem_free(p->sql);
    mem_free(p->rewritten);
    mem_free(p->oids);
    mem_free(p);
}

void srv_session_drop_preps(srv_session *s, const char *name)
{
    srv_prep **pp = &s->preps;
    while (*pp) {
        if (name == NULL || strcmp((*pp)->name, name) == 0) {
            srv_prep *p = *pp;
            *pp = p->next;
            prep_free(p);
        } else {
            pp = &(*pp)->next;
        }
    }
}

int srv_session_has_prep(srv_session *s, const char *name) { return prep_find(s, name) != NULL; }

/* Sets up p's columns from its stream's schema (formats: n codes as Bind gives them). */
static silt_status portal_columns(srv_session *s, srv_portal *p, int n_formats,
                                  const int16_t *formats, silt_error *err)
{
    int idx;
    (void)s;
    if (p->stream.get_schema(&p->stream, &p->schema) != 0) {
        const char *m = p->stream.get_last_error(&p->stream);
        return err_set(err, SILT_IO, "%s", m ? m : "could not read the result's schema");
    }
    p->n_cols = (int)p->schema.n_children;
    p->cols = mem_calloc((size_t)p->n_cols + 1, sizeof(srv_column));
    p->formats = mem_calloc((size_t)p->n_cols + 1, sizeof(int16_t));
    if (p->cols == NULL || p->formats == NULL)
        return err_nomem(err);
    if (n_formats > 1 && n_formats != p->n_cols)
        return err_set(err, SILT_INVALID, "Bind gave %d result formats for %d columns",
                       n_formats, p->n_cols);
    for (idx = 0; idx < p->n_cols; idx++) {
        int16_t f = n_formats == 0 ? 0 : (n_formats == 1 ? formats[0] : formats[idx]);
        if (f != 0 && f != 1)
            return err_set(err, SILT_INVALID, "result format code %d is not 0 or 1", f);
        SILT_RETURN_IF_ERROR(srv_column_from_schema(p->schema.children[idx], &p->cols[idx], err));
        /* nested values go as JSON text in either format */
        p->formats[idx] = (p->cols[idx].kind == SRV_K_STRUCT || p->cols[idx].kind == SRV_K_LIST ||
                           p->cols[idx].kind == SRV_K_MAP) ? 0 : f;
    }
    return SILT_OK;
}

static silt_status send_row_description(srv_session *s, srv_portal *p)
{
    size_t start;
    int idx;
    SILT_RETURN_IF_ERROR(srv_msg_begin(&s->out, 'T', &start, NULL));
    if (p->kind == 1) {
        SILT_RETURN_IF_ERROR(srv_put_i16(&s->out, (int16_t)p->table.n_cols, NULL));
        for (idx = 0; idx < p->table.n_cols; idx++) {
            SILT_RETURN_IF_ERROR(srv_put_cstr(&s->out, p->table.names[idx], NULL));
            SILT_RETURN_IF_ERROR(srv_put_i32(&s->out, 0, NULL));
            SILT_RETURN_IF_ERROR(srv_put_i16(&s->out, 0, NULL));
            SILT_RETURN_IF_ERROR(srv_put_i32(&s->out, (int32_t)p->table.oids[idx], NULL));
            SILT_RETURN_IF_ERROR(srv_put_i16(&s->out, p->table.oids[idx] == 26 ? 4 : -1, NULL));
            SILT_RETURN_IF_ERROR(srv_put_i32(&s->out, -1, NULL));
            SILT_RETURN_IF_ERROR(srv_put_i16(&s->out, 0, NULL));
        }
    } else {
        SILT_RETURN_IF_ERROR(srv_put_i16(&s->out, (int16_t)p->n_cols, NULL));
        for (idx = 0; idx < p->n_cols; idx++) {
            const srv_column *c = &p->cols[idx];
            SILT_RETURN_IF_ERROR(srv_put_cstr(&s->out, c->name ? c->name : "?column?", NULL));
            SILT_RETURN_IF_ERROR(srv_put_i32(&s->out, 0, NULL));
            SILT_RETURN_IF_ERROR(srv_put_i16(&s->out, 0, NULL));
            SILT_RETURN_IF_ERROR(srv_put_i32(&s->out, (int32_t)c->oid, NULL));
            SILT_RETURN_IF_ERROR(srv_put_i16(&s->out, c->typlen, NULL));
            SILT_RETURN_IF_ERROR(srv_put_i32(&s->out, c->typmod, NULL));
            SILT_RETURN_IF_ERROR(srv_put_i16(&s->out, p->formats[idx], NULL));
        }
    }
    srv_msg_end(&s->out, start);
    return SILT_OK;
}

static int portal_has_rows(const srv_portal *p)
{
    return (p->kind == 0 && p->n_cols > 0 && !p->count_tag) || p->kind == 1;
}

/* UPDATE/DELETE/MERGE: the row count from the result's first cell (num_affected_rows). */
static silt_status read_count(srv_portal *p, int64_t *out, silt_error *err)
{
    struct ArrowArray a;
    *out = 0;
    memset(&a, 0, sizeof(a));
    /* pulled even without columns: a statement may do its work as it is pulled */
    if (p->stream.get_next(&p->stream, &a) != 0) {
        const char *m = p->stream.get_last_error(&p->stream);
        return err_set(err, SILT_IO, "%s", m ? m : "the statement failed");
    }
    if (a.release != NULL) {
        const struct ArrowArray *c = a.n_children > 0 ? a.children[0] : NULL;
        if (c != NULL && p->n_cols > 0 && a.length > 0 &&
            strcmp(p->schema.children[0]->format, "l") == 0 &&
            c->n_buffers > 1)
            *out = ((const int64_t *)c->buffers[1])[c->offset + a.offset];
        a.release(&a);
    }
    while (p->stream.get_next(&p->stream, &a) == 0 && a.release != NULL)
        a.release(&a);
    return SILT_OK;
}

static silt_status portal_send(srv_session *s, srv_portal *p, int32_t max_rows, int *suspended,
                               int64_t *sent_out, silt_error *err);

/*
 * Sends up to max_rows rows (0 = all) of p as DataRow messages; *suspended
 * says whether rows are left. Stream errors come back as SILT_* with err.
 */
static silt_status portal_run(srv_session *s, srv_portal *p, int32_t max_rows, int *suspended,
                              silt_error *err)
{
    int64_t sent = 0;
    silt_status rc;
    *suspended = 0;
    p->run_rows = 0;
    if (p->done)
        return SILT_OK;
    rc = portal_send(s, p, max_rows, suspended, &sent, err);
    p->run_rows = sent;
    return rc;
}

static silt_status portal_send(srv_session *s, srv_portal *p, int32_t max_rows, int *suspended,
                               int64_t *sent_out, silt_error *err)
{
    if (p->kind == 1) {
        while (p->table_row < p->table.n_rows) {
            size_t start;
            int col;
            if (max_rows > 0 && *sent_out == max_rows) {
                *suspended = 1;
                return SILT_OK;
            }
            SILT_RETURN_IF_ERROR(srv_msg_begin(&s->out, 'D', &start, err));
            SILT_RETURN_IF_ERROR(srv_put_i16(&s->out, (int16_t)p->table.n_cols, err));
            for (col = 0; col < p->table.n_cols; col++) {
                const uint8_t *c = (const uint8_t *)p->table.cells.data + p->cell_pos;
                int32_t len = (int32_t)be32(c);
                size_t n = 4 + (len > 0 ? (size_t)len : 0);
                SILT_RETURN_IF_ERROR(buf_append(&s->out, c, n, err));
                p->cell_pos += n;
            }
            srv_msg_end(&s->out, start);
            p->table_row++;
            p->rows_sent++;
            (*sent_out)++;
        }
        p->done = 1;
        return SILT_OK;
    }
    if (p->kind != 0 || !portal_has_rows(p)) {
        if (p->kind == 0 && p->count_tag) {
            int64_t n = 0;
            SILT_RETURN_IF_ERROR(read_count(p, &n, err));
            p->rows_sent = p->count_tag == 2
                               ? silt_conn_rows_written(s->conn) - p->written_before : n;
        } else if (p->kind == 0) {
            /* drain a statement without columns (it may still do its work as it is pulled) */
            struct ArrowArray a;
            memset(&a, 0, sizeof(a));
            for (;;) {
                if (p->stream.get_next(&p->stream, &a) != 0) {
                    const char *m = p->stream.get_last_error(&p->stream);
                    return err_set(err, SILT_IO, "%s", m ? m : "the statement failed");
                }
                if (a.release == NULL)
                    break;
                a.release(&a);
            }
        }
        p->done = 1;
        return SILT_OK;
    }
    for (;;) {
        if (p->batch.release == NULL || p->batch_row >= p->batch.length) {
            if (p->batch.release)
                p->batch.release(&p->batch);
            memset(&p->batch, 0, sizeof(p->batch));
            p->batch_row = 0;
            /* What is buffered goes out before a wait for the next batch once it is
             * worth a packet; a small result waits for ReadyForQuery, so that a short
             * query's RowDescription, rows and CommandComplete leave in one send, as
             * PostgreSQL's 8 KB output buffer does. */
            if (s->out.len >= FLUSH_BEFORE_FETCH && flush_out(s) != 0)
                return err_set(err, SILT_IO, "the client went away");
            if (p->stream.get_next(&p->stream, &p->batch) != 0) {
                const char *m = p->stream.get_last_error(&p->stream);
                memset(&p->batch, 0, sizeof(p->batch));
                return err_set(err, SILT_IO, "%s", m ? m : "the statement failed");
            }
            if (p->batch.release == NULL) {
                p->done = 1;
                return SILT_OK;
            }
        }
        while (p->batch_row < p->batch.length) {
            size_t start;
            int col;
            if (max_rows > 0 && *sent_out == max_rows) {
                *suspended = 1;
                return SILT_OK;
            }
            /* DataRow head (type, length to fill in, column count) in one reserve */
            SILT_RETURN_IF_ERROR(buf_reserve(&s->out, 7, err));
            {
                uint8_t *h = (uint8_t *)s->out.data + s->out.len;
                h[0] = 'D';
                h[5] = (uint8_t)((unsigned)p->n_cols >> 8);
                h[6] = (uint8_t)p->n_cols;
                start = s->out.len + 1;
                s->out.len += 7;
            }
            for (col = 0; col < p->n_cols; col++)
                SILT_RETURN_IF_ERROR(srv_put_field(&s->out, &p->cols[col],
                                                   p->schema.children[col],
                                                   p->batch.children[col],
                                                   p->batch_row + p->batch.offset,
                                                   p->formats[col], err));
            srv_msg_end(&s->out, start);
            p->batch_row++;
            p->rows_sent++;
            (*sent_out)++;
            if (s->out.len >= FLUSH_AT && flush_out(s) != 0)
                return err_set(err, SILT_IO, "the client went away");
        }
    }
}


static silt_status send_complete(srv_session *s, srv_portal *p)
{
    char tag[96];
    if (p->kind == 3)
        return put_simple(s, 'I', NULL, 0);
    if (portal_has_rows(p) && p->kind == 0) {
        char w1[32], w2[32];
        first_words(p->tag, w1, w2, sizeof(w1));
        snprintf(tag, sizeof(tag), "SELECT %lld", (long long)p->run_rows);
    } else if (p->kind == 1) {
        if (strncmp(p->tag, "SHOW", 4) == 0)
            snprintf(tag, sizeof(tag), "SHOW");
        else
            snprintf(tag, sizeof(tag), "SELECT %lld", (long long)p->run_rows);
    } else if (p->count_tag) {
        snprintf(tag, sizeof(tag), "%s %lld", p->tag, (long long)p->rows_sent);
    } else {
        snprintf(tag, sizeof(tag), "%s", p->tag);
    }
    return put_simple(s, 'C', tag, strlen(tag) + 1);
}

/* ---------------------------------------------------------------- starting statements */

static int is_write_word(const char *w)
{
    return !is_query_word(w) && strcmp(w, "SET") != 0 && strcmp(w, "USE") != 0 &&
           strcmp(w, "RESET") != 0;
}

/*
 * A portal for one statement (simple Query, or Bind of a prepared one when
 * stmt is not NULL). On failure the ErrorResponse is queued and NULL returned.
 */
static srv_portal *start_statement(srv_session *s, const char *sql, size_t base_offset,
                                   const char *base, silt_stmt *stmt, int n_formats,
                                   const int16_t *formats)
{
    silt_error err = SILT_ERROR_INIT;
    srv_compat c;
    const char *state = "XX000";
    srv_portal *p = mem_calloc(1, sizeof(*p));
    silt_status rc;
    char w1[32], w2[32];
    memset(&c, 0, sizeof(c));
    if (p == NULL) {
        send_error(s, "ERROR", "53200", "out of memory", NULL, NULL, 0);
        return NULL;
    }
    if (blank_sql(sql)) {
        p->kind = 3;
        return p;
    }
    first_words(sql, w1, w2, sizeof(w1));
    if (s->txn == 'E' && strcmp(w1, "COMMIT") != 0 && strcmp(w1, "ROLLBACK") != 0 &&
        strcmp(w1, "END") != 0 && strcmp(w1, "ABORT") != 0) {
        send_error(s, "ERROR", "25P02", "current transaction is aborted, commands ignored "
                   "until end of transaction block", NULL, NULL, 0);
        portal_free(p);
        return NULL;
    }
    rc = srv_compat_look(s, sql, &c, &state, &err);
    if (rc != SILT_OK) {
        send_silt_error(s, state, &err);
        srv_compat_clear(&c);
        portal_free(p);
        return NULL;
    }
    if (c.kind == SRV_C_TABLE) {
        p->kind = 1;
        p->table = c.table;
        memset(&c.table, 0, sizeof(c.table));
        snprintf(p->tag, sizeof(p->tag), "%s", c.tag);
        srv_compat_clear(&c);
        return p;
    }
    if (c.kind == SRV_C_COMMAND) {
        p->kind = 2;
        snprintf(p->tag, sizeof(p->tag), "%s", c.tag);
        srv_compat_clear(&c);
        return p;
    }
    p->written_before = silt_conn_rows_written(s->conn);
    if (c.kind == SRV_C_SILT)
        rc = silt_conn_exec(s->conn, buf_cstr(&c.rewritten), &p->stream);
    else if (stmt != NULL)
        rc = silt_stmt_execute(stmt, &p->stream);
    else
        rc = silt_conn_exec(s->conn, sql, &p->stream);
    if (c.kind == SRV_C_SILT)
        snprintf(p->tag, sizeof(p->tag), "%s", c.tag);
    else
        command_tag(sql, p->tag, sizeof(p->tag), &p->count_tag);
    srv_compat_clear(&c);
    if (rc != SILT_OK) {
        send_conn_error(s, base, base_offset);
        portal_free(p);
        return NULL;
    }
    p->kind = 0;
    rc = portal_columns(s, p, n_formats, formats, &err);
    if (rc != SILT_OK) {
        send_silt_error(s, srv_sqlstate(rc, "", err.message), &err);
        portal_free(p);
        return NULL;
    }
    if (s->txn == 'T' && is_write_word(w1))
        s->txn_wrote = 1;
    return p;
}

/* ---------------------------------------------------------------- simple query */

static void fail_statement(srv_session *s)
{
    if (s->txn == 'T')
        s->txn = 'E';
}

static void run_portal_to_end(srv_session *s, srv_portal *p, int describe)
{
    silt_error err = SILT_ERROR_INIT;
    int suspended;
    silt_status rc = SILT_OK;
    if (describe && portal_has_rows(p))
        rc = send_row_description(s, p);
    if (rc == SILT_OK)
        rc = portal_run(s, p, 0, &suspended, &err);
    if (rc == SILT_OK)
        rc = send_complete(s, p);
    else if (!s->broken) {
        send_silt_error(s, srv_sqlstate(rc, err.error_class, err.message), &err);
        fail_statement(s);
    }
}

static void simple_query(srv_session *s, const char *sql)
{
    size_t pos = 0, start, end;
    int any = 0;
    while (!s->broken && next_statement(sql, &pos, &start, &end)) {
        char *one = mem_strndup(sql + start, end - start);
        srv_portal *p;
        if (one == NULL) {
            send_error(s, "ERROR", "53200", "out of memory", NULL, NULL, 0);
            break;
        }
        if (blank_sql(one) && (any || sql[pos] != '\0' || sql[end] == ';')) {
            mem_free(one);
            continue;
        }
        any = 1;
        p = start_statement(s, one, start, sql, NULL, 0, NULL);
        mem_free(one);
        if (p == NULL) {
            fail_statement(s);
            break;
        }
        run_portal_to_end(s, p, 1);
        {
            int failed = p->done == 0;
            portal_free(p);
            if (failed)
                break;
        }
    }
    if (!any && !s->broken)
        put_simple(s, 'I', NULL, 0);
}

/* ---------------------------------------------------------------- extended query */

static int days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    int era = (y >= 0 ? y : y - 399) / 400;
    int yoe = y - era * 400;
    int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* PostgreSQL's numeric_send form as text. */
static silt_status numeric_binary_text(const uint8_t *v, int32_t len, buf *out, silt_error *err)
{
    int16_t ndigits, weight, dscale;
    uint16_t sign;
    int idx, d;
    if (len < 8)
        return err_set(err, SILT_CORRUPT, "binary numeric parameter shorter than 8 bytes");
    ndigits = (int16_t)(v[0] << 8 | v[1]);
    weight = (int16_t)(v[2] << 8 | v[3]);
    sign = (uint16_t)(v[4] << 8 | v[5]);
    dscale = (int16_t)(v[6] << 8 | v[7]);
    if (ndigits < 0 || len != 8 + 2 * ndigits || dscale < 0 || dscale > 1000)
        return err_set(err, SILT_CORRUPT, "malformed binary numeric parameter");
    if (sign == 0xC000)
        return buf_append_str(out, "NaN", err);
    if (sign == 0x4000)
        SILT_RETURN_IF_ERROR(buf_append_char(out, '-', err));
    if (weight < 0)
        SILT_RETURN_IF_ERROR(buf_append_char(out, '0', err));
    for (d = 0; d <= weight; d++) {
        int dig = d < ndigits ? (v[8 + 2 * d] << 8 | v[9 + 2 * d]) : 0;
        SILT_RETURN_IF_ERROR(buf_printf(out, err, d == 0 ? "%d" : "%04d", dig));
    }
    if (dscale > 0) {
        buf frac = BUF_INIT;
        silt_status rc = SILT_OK;
        for (idx = weight + 1; rc == SILT_OK && (int)frac.len < dscale; idx++) {
            int dig = idx >= 0 && idx < ndigits ? (v[8 + 2 * idx] << 8 | v[9 + 2 * idx]) : 0;
            rc = buf_printf(&frac, err, "%04d", dig);
        }
        if (rc == SILT_OK)
            rc = buf_append_char(out, '.', err);
        if (rc == SILT_OK)
            rc = buf_append(out, frac.data, (size_t)dscale, err);
        buf_clear(&frac);
        return rc;
    }
    return SILT_OK;
}

static int64_t be_int(const uint8_t *v, int n)
{
    uint64_t x = 0;
    for (int k = 0; k < n; k++)
        x = x << 8 | v[k];
    if (n < 8 && (x >> (8 * n - 1)) & 1)
        x |= ~(uint64_t)0 << (8 * n);
    return (int64_t)x;
}

/* Binds one parameter value (silt index idx) from its Bind bytes. */
static silt_status bind_param(silt_stmt *st, int idx, uint32_t oid, int format,
                              const uint8_t *v, int32_t len, silt_error *err)
{
    char text[128];
    if (v == NULL)
        return silt_stmt_bind_null(st, idx);
    if (format == 1) {
        switch (oid) {
        case SRV_OID_BOOL:
            if (len != 1)
                break;
            return silt_stmt_bind_bool(st, idx, v[0] != 0);
        case SRV_OID_INT2:
        case SRV_OID_INT4:
            if (len != (oid == SRV_OID_INT2 ? 2 : 4))
                break;
            return silt_stmt_bind_int32(st, idx, (int32_t)be_int(v, len));
        case SRV_OID_INT8:
            if (len != 8)
                break;
            return silt_stmt_bind_int64(st, idx, be_int(v, 8));
        case SRV_OID_FLOAT4:
        case SRV_OID_FLOAT8: {
            if (len != (oid == SRV_OID_FLOAT4 ? 4 : 8))
                break;
            uint64_t bits = (uint64_t)be_int(v, len);
            if (len == 4) {
                uint32_t b32 = (uint32_t)bits;
                float f;
                memcpy(&f, &b32, 4);
                return silt_stmt_bind_double(st, idx, f);
            }
            double d;
            memcpy(&d, &bits, 8);
            return silt_stmt_bind_double(st, idx, d);
        }
        case SRV_OID_DATE:
            if (len != 4)
                break;
            return silt_stmt_bind_date(st, idx, (int32_t)be_int(v, 4) + 10957);
        case SRV_OID_TIMESTAMP:
        case SRV_OID_TIMESTAMPTZ:
            if (len != 8)
                break;
            return silt_stmt_bind_timestamp(st, idx, be_int(v, 8) + INT64_C(946684800000000));
        case SRV_OID_BYTEA:
            return silt_stmt_bind_blob(st, idx, v, (size_t)len);
        case SRV_OID_NUMERIC: {
            buf t = BUF_INIT;
            silt_status rc = numeric_binary_text(v, len, &t, err);
            if (rc == SILT_OK)
                rc = silt_stmt_bind_text(st, idx, buf_cstr(&t), (int64_t)t.len);
            buf_clear(&t);
            return rc;
        }
        case 0:
        case SRV_OID_TEXT:
        case SRV_OID_VARCHAR:
        case SRV_OID_UNKNOWN:
        case 1042: /* bpchar */
            return silt_stmt_bind_text(st, idx, (const char *)v, len);
        default:
            return err_set(err, SILT_UNSUPPORTED, "binary parameters of type OID %u are not "
                           "supported; send it in text format", oid);
        }
        return err_set(err, SILT_CORRUPT, "binary parameter of type OID %u has %d bytes", oid,
                       (int)len);
    }
    if ((size_t)len < sizeof(text)) {
        memcpy(text, v, (size_t)len);
        text[len] = '\0';
    } else {
        text[0] = '\0';
    }
    switch (oid) {
    case SRV_OID_BOOL:
        if (strchr("tTyY1", text[0]) || util_str_casecmp(text, "on") == 0)
            return silt_stmt_bind_bool(st, idx, 1);
        if (strchr("fFnN0", text[0]) || util_str_casecmp(text, "off") == 0)
            return silt_stmt_bind_bool(st, idx, 0);
        return err_set(err, SILT_PARSE, "invalid input syntax for type boolean: \"%s\"", text);
    case SRV_OID_INT2:
    case SRV_OID_INT4:
    case SRV_OID_INT8: {
        int64_t n;
        if (!util_str_to_int64(text, strlen(text), &n))
            return err_set(err, SILT_PARSE, "invalid input syntax for type integer: \"%s\"",
                           text);
        if (oid != SRV_OID_INT8 && n >= INT32_MIN && n <= INT32_MAX)
            return silt_stmt_bind_int32(st, idx, (int32_t)n);
        return silt_stmt_bind_int64(st, idx, n);
    }
    case SRV_OID_FLOAT4:
    case SRV_OID_FLOAT8: {
        double d;
        if (!util_str_to_double(text, strlen(text), &d))
            return err_set(err, SILT_PARSE, "invalid input syntax for type double precision: "
                           "\"%s\"", text);
        return silt_stmt_bind_double(st, idx, d);
    }
    case SRV_OID_DATE: {
        int y, m, d;
        char tail;
        if (sscanf(text, "%d-%d-%d%c", &y, &m, &d, &tail) != 3 || m < 1 || m > 12 || d < 1 ||
            d > 31)
            return err_set(err, SILT_PARSE, "invalid input syntax for type date: \"%s\"", text);
        return silt_stmt_bind_date(st, idx, days_from_civil(y, m, d));
    }
    case SRV_OID_TIMESTAMP:
    case SRV_OID_TIMESTAMPTZ: {
        int64_t us;
        if (silt_parse_timestamp(text, &us) != SILT_OK)
            return err_set(err, SILT_PARSE, "invalid input syntax for type timestamp: \"%s\"",
                           text);
        return silt_stmt_bind_timestamp(st, idx, us);
    }
    case SRV_OID_BYTEA: {
        if (len >= 2 && v[0] == '\\' && v[1] == 'x' && len % 2 == 0) {
            size_t n = (size_t)(len - 2) / 2, k;
            uint8_t *raw = mem_alloc(n + 1);
            silt_status rc;
            if (raw == NULL)
                return err_nomem(err);
            for (k = 0; k < n; k++) {
                int hi = hexval((char)v[2 + 2 * k]), lo = hexval((char)v[3 + 2 * k]);
                if (hi < 0 || lo < 0) {
                    mem_free(raw);
                    return err_set(err, SILT_PARSE, "invalid hexadecimal digit in bytea");
                }
                raw[k] = (uint8_t)(hi << 4 | lo);
            }
            rc = silt_stmt_bind_blob(st, idx, raw, n);
            mem_free(raw);
            return rc;
        }
        return err_set(err, SILT_PARSE, "bytea parameters in text format must be hex (\\x...)");
    }
    default:
        return silt_stmt_bind_text(st, idx, (const char *)v, len);
    }
}

/*
 * A client statement (a catalog query, SET ...) with parameters: JDBC's
 * DatabaseMetaData sends its patterns as $1, $2. They become quoted
 * literals in its text (compat.c reads the text); text values, or binary
 * integers.
 */
static silt_status inline_params(const char *sql, const srv_bind_msg *m, const uint32_t *oids,
                                 buf *out, silt_error *err)
{
    size_t p = 0;
    while (sql[p]) {
        size_t next = skip_token(sql, p);
        if (sql[p] == '$' && sql[p + 1] >= '1' && sql[p + 1] <= '9') {
            long n = 0;
            size_t q = p + 1;
            while (sql[q] >= '0' && sql[q] <= '9' && n < 100000)
                n = n * 10 + (sql[q++] - '0');
            if (n > m->n_params)
                return err_set(err, SILT_PARSE, "there is no parameter $%ld", n);
            {
                const uint8_t *v = m->values[n - 1];
                int32_t len = m->lengths[n - 1];
                if (v == NULL) {
                    SILT_RETURN_IF_ERROR(buf_append(out, "NULL", 4, err));
                } else if (srv_bind_param_format(m, (int)n - 1) != 0) {
                    uint32_t oid = oids[n - 1];
                    if (!((oid == SRV_OID_INT4 && len == 4) || (oid == SRV_OID_INT8 && len == 8) ||
                          (oid == SRV_OID_INT2 && len == 2)))
                        return err_set(err, SILT_UNSUPPORTED, "a binary parameter of type %u "
                                       "in a client statement", oid);
                    SILT_RETURN_IF_ERROR(buf_printf(out, err, "%lld",
                                                    (long long)be_int(v, (int)len)));
                } else {
                    SILT_RETURN_IF_ERROR(buf_append_char(out, '\'', err));
                    for (int32_t k = 0; k < len; k++) {
                        if (v[k] == '\'')
                            SILT_RETURN_IF_ERROR(buf_append_char(out, '\'', err));
                        SILT_RETURN_IF_ERROR(buf_append_char(out, (char)v[k], err));
                    }
                    SILT_RETURN_IF_ERROR(buf_append_char(out, '\'', err));
                }
            }
            p = q;
            continue;
        }
        SILT_RETURN_IF_ERROR(buf_append(out, sql + p, next - p, err));
        p = next;
    }
    return buf_append(out, "", 0, err);
}

static silt_status bind_all(srv_session *s, srv_prep *pr, const srv_bind_msg *m,
                            silt_error *err)
{
    int k;
    char name[16];
    if (m->n_params != pr->n_params)
        return err_set(err, SILT_INVALID, "bind message supplies %d parameters, but prepared "
                       "statement \"%s\" requires %d", m->n_params, pr->name, pr->n_params);
    if (pr->stmt == NULL)
        return SILT_OK; /* inlined by msg_bind */
    for (k = 0; k < m->n_params; k++) {
        int idx;
        silt_status rc;
        snprintf(name, sizeof(name), "p%d", k + 1);
        idx = silt_stmt_param_index(pr->stmt, name);
        if (idx == 0)
            continue; /* $k is not in the text */
        rc = bind_param(pr->stmt, idx, pr->oids[k], srv_bind_param_format(m, k), m->values[k],
                        m->lengths[k], err);
        if (rc != SILT_OK) {
            if (err->code == SILT_OK)
                err_set(err, rc, "%s", silt_conn_error_message(s->conn));
            return rc;
        }
    }
    return SILT_OK;
}

static void msg_parse(srv_session *s, const uint8_t *body, size_t len, int *failed)
{
    srv_parse_msg m;
    silt_error err = SILT_ERROR_INIT;
    srv_prep *pr;
    buf rw = BUF_INIT;
    silt_status rc;
    char w1[32], w2[32];
    memset(&m, 0, sizeof(m));
    rc = srv_parse_parse(&m, body, len, &err);
    if (rc != SILT_OK) {
        send_silt_error(s, "08P01", &err);
        *failed = 1;
        return;
    }
    if (m.name[0] != '\0' && prep_find(s, m.name) != NULL) {
        send_error(s, "ERROR", "42P05", "prepared statement already exists", NULL, NULL, 0);
        srv_parse_msg_clear(&m);
        *failed = 1;
        return;
    }
    if (m.name[0] == '\0')
        srv_session_drop_preps(s, "");
    pr = mem_calloc(1, sizeof(*pr));
    rc = pr ? rewrite_params(m.query, &rw, &pr->n_params, &err) : err_nomem(&err);
    if (rc == SILT_OK && m.n_types > pr->n_params)
        pr->n_params = m.n_types;
    if (rc == SILT_OK) {
        pr->name = mem_strdup(m.name);
        pr->sql = mem_strdup(m.query);
        pr->rewritten = buf_detach(&rw, NULL);
        pr->oids = mem_calloc((size_t)pr->n_params + 1, sizeof(uint32_t));
        if (pr->name == NULL || pr->sql == NULL || pr->rewritten == NULL || pr->oids == NULL)
            rc = err_nomem(&err);
    }
    if (rc == SILT_OK) {
        int k;
        for (k = 0; k < m.n_types; k++)
            pr->oids[k] = m.types[k];
    }
    if (rc == SILT_OK && !blank_sql(pr->sql)) {
        srv_compat c;
        const char *state = "XX000";
        memset(&c, 0, sizeof(c));
        first_words(pr->sql, w1, w2, sizeof(w1));
        /* client statements are looked at when they run; only check for them here */
        if (srv_compat_look(s, pr->sql, &c, &state, &err) == SILT_OK && c.kind == SRV_C_NONE &&
            !(strcmp(w1, "SET") == 0 || strcmp(w1, "SHOW") == 0 || strcmp(w1, "BEGIN") == 0 ||
              strcmp(w1, "COMMIT") == 0 || strcmp(w1, "ROLLBACK") == 0)) {
            if (silt_stmt_prepare(s->conn, pr->rewritten, &pr->stmt) != SILT_OK) {
                send_conn_error(s, NULL, 0);
                *failed = 1;
                srv_compat_clear(&c);
                prep_free(pr);
                srv_parse_msg_clear(&m);
                return;
            }
        }
        err_clear(&err);
        srv_compat_clear(&c);
    }
    if (rc != SILT_OK) {
        send_silt_error(s, "53200", &err);
        prep_free(pr);
        buf_clear(&rw);
        *failed = 1;
    } else {
        pr->next = s->preps;
        s->preps = pr;
        put_simple(s, '1', NULL, 0);
    }
    srv_parse_msg_clear(&m);
}

static void msg_bind(srv_session *s, const uint8_t *body, size_t len, int *failed)
{
    srv_bind_msg m;
    silt_error err = SILT_ERROR_INIT;
    srv_prep *pr;
    srv_portal *p;
    memset(&m, 0, sizeof(m));
    if (srv_parse_bind(&m, body, len, &err) != SILT_OK) {
        send_silt_error(s, "08P01", &err);
        *failed = 1;
        return;
    }
    pr = prep_find(s, m.stmt);
    if (pr == NULL) {
        send_error(s, "ERROR", "26000", "prepared statement does not exist", NULL, NULL, 0);
        *failed = 1;
    } else if (m.portal[0] != '\0' && portal_find(s, m.portal, 0) != NULL) {
        send_error(s, "ERROR", "42P03", "portal already exists", NULL, NULL, 0);
        *failed = 1;
    } else if (bind_all(s, pr, &m, &err) != SILT_OK) {
        send_silt_error(s, srv_sqlstate(err.code, err.error_class, err.message), &err);
        *failed = 1;
    } else {
        buf inl = BUF_INIT;
        const char *sql = pr->sql;
        if (m.portal[0] == '\0')
            portal_free(portal_find(s, "", 1));
        if (pr->stmt == NULL && m.n_params > 0) {
            if (inline_params(pr->sql, &m, pr->oids, &inl, &err) != SILT_OK) {
                send_silt_error(s, srv_sqlstate(err.code, err.error_class, err.message), &err);
                buf_clear(&inl);
                *failed = 1;
                srv_bind_msg_clear(&m);
                return;
            }
            sql = buf_cstr(&inl);
        }
        p = start_statement(s, sql, 0, sql, pr->stmt, m.n_result_formats, m.result_formats);
        buf_clear(&inl);
        if (p == NULL) {
            *failed = 1;
            fail_statement(s);
        } else if ((p->name = mem_strdup(m.portal)) == NULL) {
            portal_free(p);
            send_error(s, "ERROR", "53200", "out of memory", NULL, NULL, 0);
            *failed = 1;
        } else {
            p->next = s->portals;
            s->portals = p;
            put_simple(s, '2', NULL, 0);
        }
    }
    srv_bind_msg_clear(&m);
}

/* Describe of a statement: the schema of a query, found by running it with stand-in values. */
static void describe_statement(srv_session *s, srv_prep *pr)
{
    size_t start;
    int k;
    char w1[32], w2[32];
    srv_portal *p = NULL;
    srv_msg_begin(&s->out, 't', &start, NULL);
    srv_put_i16(&s->out, (int16_t)pr->n_params, NULL);
    for (k = 0; k < pr->n_params; k++)
        srv_put_i32(&s->out, (int32_t)(pr->oids[k] ? pr->oids[k] : SRV_OID_TEXT), NULL);
    srv_msg_end(&s->out, start);
    first_words(pr->sql, w1, w2, sizeof(w1));
    if (pr->stmt != NULL && is_query_word(w1)) {
        char name[16];
        for (k = 0; k < pr->n_params; k++) {
            int idx;
            snprintf(name, sizeof(name), "p%d", k + 1);
            idx = silt_stmt_param_index(pr->stmt, name);
            if (idx == 0)
                continue;
            switch (pr->oids[k]) {
            case SRV_OID_INT2: case SRV_OID_INT4: silt_stmt_bind_int32(pr->stmt, idx, 0); break;
            case SRV_OID_INT8: silt_stmt_bind_int64(pr->stmt, idx, 0); break;
            case SRV_OID_FLOAT4: case SRV_OID_FLOAT8: silt_stmt_bind_double(pr->stmt, idx, 0); break;
            case SRV_OID_BOOL: silt_stmt_bind_bool(pr->stmt, idx, 0); break;
            case SRV_OID_DATE: silt_stmt_bind_date(pr->stmt, idx, 0); break;
            case SRV_OID_TIMESTAMP: case SRV_OID_TIMESTAMPTZ:
                silt_stmt_bind_timestamp(pr->stmt, idx, 0); break;
            case SRV_OID_BYTEA: silt_stmt_bind_blob(pr->stmt, idx, "", 0); break;
            default: silt_stmt_bind_text(pr->stmt, idx, "", 0); break;
            }
        }
        p = start_statement(s, pr->sql, 0, pr->sql, pr->stmt, 0, NULL);
    } else if (pr->stmt == NULL && !blank_sql(pr->sql) && is_query_word(w1)) {
        p = start_statement(s, pr->sql, 0, pr->sql, NULL, 0, NULL);
    }
    if (p != NULL && portal_has_rows(p))
        send_row_description(s, p);
    else if (p != NULL || pr->stmt == NULL || !is_query_word(w1))
        put_simple(s, 'n', NULL, 0);
    /* a failed stand-in run has queued its error: the statement would fail when it runs */
    portal_free(p);
}

static void msg_describe(srv_session *s, const uint8_t *body, size_t len, int *failed)
{
    uint8_t kind;
    const char *name;
    silt_error err = SILT_ERROR_INIT;
    if (srv_parse_target(&kind, &name, body, len, "Describe", &err) != SILT_OK) {
        send_silt_error(s, "08P01", &err);
        *failed = 1;
        return;
    }
    if (kind == 'S') {
        srv_prep *pr = prep_find(s, name);
        size_t before = s->out.len;
        if (pr == NULL) {
            send_error(s, "ERROR", "26000", "prepared statement does not exist", NULL, NULL, 0);
            *failed = 1;
            return;
        }
        describe_statement(s, pr);
        /* an ErrorResponse in what describe queued means it failed */
        if (s->out.len > before) {
            size_t pos = before;
            while (pos + 5 <= s->out.len) {
                if (s->out.data[pos] == 'E')
                    *failed = 1;
                pos += 1 + be32((const uint8_t *)s->out.data + pos + 1);
            }
        }
    } else {
        srv_portal *p = portal_find(s, name, 0);
        if (p == NULL) {
            send_error(s, "ERROR", "34000", "portal does not exist", NULL, NULL, 0);
            *failed = 1;
        } else if (portal_has_rows(p)) {
            send_row_description(s, p);
        } else {
            put_simple(s, 'n', NULL, 0);
        }
    }
}

static void msg_execute(srv_session *s, const uint8_t *body, size_t len, int *failed)
{
    const char *name;
    int32_t max_rows;
    silt_error err = SILT_ERROR_INIT;
    srv_portal *p;
    int suspended = 0;
    silt_status rc;
    if (srv_parse_execute(&name, &max_rows, body, len, &err) != SILT_OK) {
        send_silt_error(s, "08P01", &err);
        *failed = 1;
        return;
    }
    p = portal_find(s, name, 0);
    if (p == NULL) {
        send_error(s, "ERROR", "34000", "portal does not exist", NULL, NULL, 0);
        *failed = 1;
        return;
    }
    rc = portal_run(s, p, max_rows < 0 ? 0 : max_rows, &suspended, &err);
    if (rc != SILT_OK) {
        if (!s->broken)
            send_silt_error(s, srv_sqlstate(rc, err.error_class, err.message), &err);
        fail_statement(s);
        *failed = 1;
    } else if (suspended) {
        put_simple(s, 's', NULL, 0);
    } else {
        send_complete(s, p);
    }
}

static void msg_close(srv_session *s, const uint8_t *body, size_t len, int *failed)
{
    uint8_t kind;
    const char *name;
    silt_error err = SILT_ERROR_INIT;
    if (srv_parse_target(&kind, &name, body, len, "Close", &err) != SILT_OK) {
        send_silt_error(s, "08P01", &err);
        *failed = 1;
        return;
    }
    if (kind == 'S')
        srv_session_drop_preps(s, name);
    else
        portal_free(portal_find(s, name, 1));
    put_simple(s, '3', NULL, 0);
}

/* ---------------------------------------------------------------- start-up */

static silt_status read_startup(srv_session *s, srv_startup *st, silt_error *err)
{
    uint8_t len_bytes[4];
    uint32_t len;
    if (!sock_read(s, len_bytes, 4))
        return err_set(err, SILT_IO, "the client went away during start-up");
    len = be32(len_bytes);
    if (len < 8 || len > SRV_MAX_STARTUP)
        return err_set(err, SILT_CORRUPT, "invalid length of startup packet");
    buf_truncate(&s->in, 0);
    SILT_RETURN_IF_ERROR(buf_reserve(&s->in, len, err));
    if (!sock_read(s, s->in.data, len - 4))
        return err_set(err, SILT_IO, "the client went away during start-up");
    s->in.len = len - 4;
    return srv_parse_startup(st, (const uint8_t *)s->in.data, s->in.len, err);
}

/* Reads one typed message into s->in; 0 at the end of the connection. */
static int read_message(srv_session *s, char *type)
{
    uint8_t head[5];
    uint32_t len;
    if (!sock_read(s, head, 5))
        return 0;
    *type = (char)head[0];
    len = be32(head + 1);
    if (len < 4) {
        send_fatal(s, "08P01", "invalid message length");
        return 0;
    }
    if (len - 4 > s->srv->opts.max_message) {
        char msg[160];
        snprintf(msg, sizeof(msg), "message of %u bytes is longer than the limit of %zu "
                 "(silt serve --max-message)", len - 4, s->srv->opts.max_message);
        send_fatal(s, "54000", msg);
        return 0;
    }
    buf_truncate(&s->in, 0);
    if (buf_reserve(&s->in, len - 4 + 1, NULL) != SILT_OK) {
        send_fatal(s, "53200", "out of memory");
        return 0;
    }
    if (len > 4 && !sock_read(s, s->in.data, len - 4))
        return 0;
    s->in.len = len - 4;
    s->in.data[s->in.len] = '\0';
    return 1;
}

static int is_loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
    if (ss->ss_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
        static const uint8_t lo[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        return memcmp(a, lo, 16) == 0;
    }
    return 0;
}

static int authenticate(srv_session *s)
{
    const srv_user *user = srv_users_find(&s->srv->users, s->user_name);
    srv_scram scram;
    silt_error err = SILT_ERROR_INIT;
    buf reply = BUF_INIT;
    const char *mech;
    const uint8_t *data;
    size_t data_len;
    char type;
    size_t start;
    int ok = 0;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (s->srv->opts.trust) {
        memset(&ss, 0, sizeof(ss));
        if (getpeername(s->fd, (struct sockaddr *)&ss, &sl) == 0 && is_loopback(&ss)) {
            s->user = user;
            return 1;
        }
        send_fatal(s, "28000", "trust authentication is only for loopback connections");
        return 0;
    }
    /* AuthenticationSASL: the one mechanism */
    srv_msg_begin(&s->out, 'R', &start, NULL);
    srv_put_i32(&s->out, 10, NULL);
    srv_put_cstr(&s->out, "SCRAM-SHA-256", NULL);
    buf_append_char(&s->out, '\0', NULL);
    srv_msg_end(&s->out, start);
    if (flush_out(s) != 0 || !read_message(s, &type))
        goto done;
    if (type != 'p' || srv_parse_sasl_initial(&mech, &data, &data_len,
                                              (const uint8_t *)s->in.data, s->in.len,
                                              &err) != SILT_OK) {
        send_fatal(s, "08P01", "expected a SASLInitialResponse message");
        goto done;
    }
    if (strcmp(mech, "SCRAM-SHA-256") != 0) {
        send_fatal(s, "28000", "only SCRAM-SHA-256 authentication is offered");
        goto done;
    }
    if (srv_scram_first(&scram, user ? &user->verifier : NULL, s->user_name, data, data_len,
                        &reply, &err) != SILT_OK) {
        send_fatal(s, err.code == SILT_UNSUPPORTED ? "0A000" : "08P01", err.message);
        goto done;
    }
    srv_msg_begin(&s->out, 'R', &start, NULL);
    srv_put_i32(&s->out, 11, NULL);
    buf_append(&s->out, reply.data, reply.len, NULL);
    srv_msg_end(&s->out, start);
    buf_truncate(&reply, 0);
    if (flush_out(s) != 0 || !read_message(s, &type))
        goto done;
    if (type != 'p') {
        send_fatal(s, "08P01", "expected a SASLResponse message");
        goto done;
    }
    if (srv_scram_final(&scram, (const uint8_t *)s->in.data, s->in.len, &reply, &err) !=
        SILT_OK) {
        char msg[160];
        if (err.code == SILT_INVALID) {
            snprintf(msg, sizeof(msg), "password authentication failed for user \"%s\"",
                     s->user_name);
            send_fatal(s, "28P01", msg);
        } else {
            send_fatal(s, "08P01", err.message);
        }
        goto done;
    }
    srv_msg_begin(&s->out, 'R', &start, NULL);
    srv_put_i32(&s->out, 12, NULL);
    buf_append(&s->out, reply.data, reply.len, NULL);
    srv_msg_end(&s->out, start);
    s->user = user;
    ok = 1;
done:
    buf_clear(&reply);
    return ok;
}

static void cancel_request(srv_server *srv, const srv_startup *st)
{
    srv_session *o;
    pthread_mutex_lock(&srv->lock);
    for (o = srv->sessions; o; o = o->next)
        if (o->pid == st->cancel_pid && o->key == st->cancel_key && o->conn != NULL)
            silt_conn_interrupt(o->conn);
    pthread_mutex_unlock(&srv->lock);
}

/* Start-up through ReadyForQuery; 1 when the session may go on. */
static int start_session(srv_session *s)
{
    srv_startup st;
    silt_error err = SILT_ERROR_INIT;
    const char *user, *db;
    size_t start, k;
    buf use = BUF_INIT;
    int tls_done = 0, minor_over = 0;
    for (;;) {
        if (read_startup(s, &st, &err) != SILT_OK) {
            if (err.code == SILT_UNSUPPORTED || err.code == SILT_CORRUPT)
                send_fatal(s, "08P01", err.message);
            return 0;
        }
        if (st.code == SRV_CANCEL_REQUEST) {
            cancel_request(s->srv, &st);
            return 0;
        }
        if (st.code == SRV_SSL_REQUEST && !tls_done) {
            char answer = s->srv->tls ? 'S' : 'N';
            if (srv_sock_write(s, &answer, 1) != 0)
                return 0;
            if (s->srv->tls) {
                if (srv_tls_accept(&s->tls, s->srv->tls, s->fd, &err) != SILT_OK)
                    return 0;
            }
            tls_done = 1;
            continue;
        }
        if (st.code == SRV_GSSENC_REQUEST) {
            if (srv_sock_write(s, "N", 1) != 0)
                return 0;
            continue;
        }
        if (st.code == SRV_SSL_REQUEST) {
            send_fatal(s, "08P01", "SSLRequest sent twice");
            return 0;
        }
        break;
    }
    if (s->srv->tls && s->tls == NULL && !s->srv->opts.trust) {
        /* with a certificate, passwords travel over TLS only */
        send_fatal(s, "28000", "silt serve was started with TLS: connect with sslmode=require "
                   "(or prefer)");
        return 0;
    }
    user = srv_startup_get(&st, "user");
    db = srv_startup_get(&st, "database");
    if (user == NULL || user[0] == '\0') {
        send_fatal(s, "28000", "no PostgreSQL user name specified in startup packet");
        return 0;
    }
    if (!srv_name_ok(user)) {
        send_fatal(s, "28000", "user names are 1-63 letters, digits and _ . - @");
        return 0;
    }
    snprintf(s->user_name, sizeof(s->user_name), "%s", user);
    if (db == NULL || db[0] == '\0')
        db = "default";
    if (!srv_name_ok(db)) {
        send_fatal(s, "3D000", "database names are 1-63 letters, digits and _ . - @");
        return 0;
    }
    snprintf(s->database, sizeof(s->database), "%s", db);
    for (k = 0; k < st.n_params; k++) {
        if (strncmp(st.names[k], "_pq_.", 5) == 0)
            minor_over = 1;
        if (strcmp(st.names[k], "application_name") == 0 && st.values[k][0]) {
            mem_free(s->params[0]);
            s->params[0] = mem_strdup(st.values[k]);
        }
    }
    if (!authenticate(s))
        return 0;
    if (s->user != NULL && !srv_user_may_use(s->user, s->database)) {
        char msg[200];
        snprintf(msg, sizeof(msg), "permission denied for database \"%s\"", s->database);
        send_fatal(s, "42501", msg);
        return 0;
    }
    pthread_mutex_lock(&s->srv->lock);
    if (silt_conn_open(&s->conn, s->srv->db) != SILT_OK)
        s->conn = NULL;
    pthread_mutex_unlock(&s->srv->lock);
    if (s->conn == NULL) {
        send_fatal(s, "53200", "could not open a session on the warehouse");
        return 0;
    }
    if (s->user != NULL && s->user->read_only)
        silt_conn_set_read_only(s->conn, 1);
    if (s->user != NULL && srv_limit_databases(s) != SILT_OK) {
        send_fatal(s, "53200", "out of memory");
        buf_clear(&use);
        return 0;
    }
    buf_printf(&use, NULL, "USE `%s`", s->database);
    if (silt_conn_exec(s->conn, buf_cstr(&use), NULL) != SILT_OK) {
        char msg[200];
        snprintf(msg, sizeof(msg), "database \"%s\" does not exist", s->database);
        buf_clear(&use);
        send_fatal(s, "3D000", msg);
        return 0;
    }
    buf_clear(&use);
    (void)minor_over;
    srv_msg_begin(&s->out, 'R', &start, NULL);
    srv_put_i32(&s->out, 0, NULL);
    srv_msg_end(&s->out, start);
    for (k = 0; k < SRV_N_PARAMS; k++)
        if (srv_params[k].report != NULL)
            srv_send_parameter_status(s, srv_params[k].report,
                                      s->params[k] ? s->params[k] : srv_params[k].initial);
    srv_send_parameter_status(s, "server_version", "15.0");
    srv_send_parameter_status(s, "server_encoding", "UTF8");
    srv_send_parameter_status(s, "integer_datetimes", "on");
    srv_send_parameter_status(s, "is_superuser", "off");
    srv_send_parameter_status(s, "session_authorization", s->user_name);
    srv_msg_begin(&s->out, 'K', &start, NULL);
    srv_put_i32(&s->out, s->pid, NULL);
    srv_put_i32(&s->out, s->key, NULL);
    srv_msg_end(&s->out, start);
    return send_ready(s) == SILT_OK && !s->broken;
}

/* ---------------------------------------------------------------- the loop */

static void serve_messages(srv_session *s)
{
    int skip_to_sync = 0;
    char type;
    while (!s->broken && read_message(s, &type)) {
        const uint8_t *body = (const uint8_t *)s->in.data;
        size_t len = s->in.len;
        int failed = 0;
        if (skip_to_sync && type != 'S' && type != 'X')
            continue;
        switch (type) {
        case 'Q':
            if (len == 0 || body[len - 1] != '\0' || memchr(body, '\0', len - 1) != NULL) {
                send_fatal(s, "08P01", "malformed Query message");
                return;
            }
            drop_portals(s);
            simple_query(s, (const char *)body);
            send_ready(s);
            break;
        case 'P': msg_parse(s, body, len, &failed); break;
        case 'B': msg_bind(s, body, len, &failed); break;
        case 'D': msg_describe(s, body, len, &failed); break;
        case 'E': msg_execute(s, body, len, &failed); break;
        case 'C': msg_close(s, body, len, &failed); break;
        case 'H': flush_out(s); break;
        case 'S':
            skip_to_sync = 0;
            if (s->txn == 'I')
                drop_portals(s);
            send_ready(s);
            break;
        case 'X': return;
        case 'd': case 'c': case 'f':
            send_error(s, "ERROR", "0A000", "COPY is not supported by silt serve", NULL, NULL, 0);
            failed = 1;
            break;
        default: {
            char msg[80];
            snprintf(msg, sizeof(msg), "invalid frontend message type %d", (unsigned char)type);
            send_fatal(s, "08P01", msg);
            return;
        }
        }
        if (failed)
            skip_to_sync = 1;
        if (s->out.len >= FLUSH_AT)
            flush_out(s);
    }
}

silt_status srv_limit_databases(srv_session *s)
{
    const char *names[SRV_MAX_USER_DBS];
    size_t k;
    if (s->user == NULL || s->user->n_databases == 0)
        return SILT_OK;
    for (k = 0; k < s->user->n_databases; k++)
        names[k] = s->user->databases[k];
    return silt_conn_set_databases(s->conn, names, s->user->n_databases);
}

void *srv_session_main(void *payload)
{
    srv_session *s = payload;
    srv_server *srv = s->srv;
    srv_session **pp;
    if (s->http) {
        srv_http_serve(s);
    } else if (start_session(s)) {
        serve_messages(s);
        pthread_mutex_lock(&srv->lock);
        if (srv->stopping && !s->broken)
            send_fatal(s, "57P01", "terminating connection due to administrator command");
        pthread_mutex_unlock(&srv->lock);
    }
    flush_out(s);
    drop_portals(s);
    srv_session_drop_preps(s, NULL);
    pthread_mutex_lock(&srv->lock);
    for (pp = &srv->sessions; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    pthread_mutex_unlock(&srv->lock);
    /* off the list, so no cancel reaches the connection while it closes */
    silt_conn_close(s->conn);
    srv_tls_free(s->tls);
    close(s->fd);
    buf_clear(&s->out);
    buf_clear(&s->in);
    for (int k = 0; k < SRV_N_PARAMS; k++)
        mem_free(s->params[k]);
    mem_free(s);
    /* counted out last: shutdown closes the warehouse once every session is gone */
    pthread_mutex_lock(&srv->lock);
    srv->n_sessions--;
    pthread_cond_broadcast(&srv->gone);
    pthread_mutex_unlock(&srv->lock);
    return NULL;
}
