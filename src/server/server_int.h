/*
 * server_int.h - what the files of silt serve share: the server, the
 * session of one connection, synthetic result tables (compat.c).
 */
#ifndef SILT_SERVER_SERVER_INT_H
#define SILT_SERVER_SERVER_INT_H

#include <pthread.h>
#include <stdint.h>

#include "server/crypto.h"
#include "server/server.h"
#include "server/users.h"
#include "server/values.h"
#include "silt.h"
#include "util/buf.h"

typedef struct srv_session srv_session;

typedef struct srv_server {
    srv_options opts;
    silt_db *db;
    srv_users users;
    srv_tls_ctx *tls;
    int loopback; /* the listen address is a loopback one */
    pthread_mutex_t lock; /* sessions, n_sessions, stopping */
    pthread_cond_t gone;
    srv_session *sessions;
    int n_sessions;
    int stopping;
    int32_t next_pid;
} srv_server;

/* A result the server makes itself (catalog queries, SHOW of a client parameter). */
#define SRV_TABLE_MAX_COLS 16
typedef struct srv_table {
    int n_cols;
    char names[SRV_TABLE_MAX_COLS][64];
    uint32_t oids[SRV_TABLE_MAX_COLS];
    buf cells; /* per row, per column: Int32 length (-1 = NULL) and the text */
    int64_t n_rows;
} srv_table;

void srv_table_init(srv_table *t, int n_cols, const char *const *names, const uint32_t *oids);
silt_status srv_table_cell(srv_table *t, const char *text, silt_error *err); /* NULL = SQL NULL */
void srv_table_clear(srv_table *t);

/* PostgreSQL's client parameters a session keeps (SET/SHOW/RESET). */
#define SRV_N_PARAMS 10
typedef struct srv_param {
    const char *name;   /* lower case */
    const char *report; /* the ParameterStatus name, or NULL when not reported */
    const char *initial;
} srv_param;
extern const srv_param srv_params[SRV_N_PARAMS];

/* What compat.c made of a statement. */
typedef enum srv_compat_kind {
    SRV_C_NONE,    /* not a client statement: run it through silt */
    SRV_C_TABLE,   /* answer with table */
    SRV_C_COMMAND, /* answer with tag only */
    SRV_C_SILT     /* run rewritten through silt, then answer with tag */
} srv_compat_kind;

typedef struct srv_compat {
    srv_compat_kind kind;
    srv_table table;
    char tag[64];
    buf rewritten;
} srv_compat;

struct srv_session {
    srv_server *srv;
    int fd;
    srv_tls *tls;
    int32_t pid, key;
    silt_conn *conn;
    const srv_user *user;
    char user_name[SRV_MAX_NAME];
    char database[SRV_MAX_NAME];
    char peer[64];
    buf out;
    buf in;
    char txn;     /* 'I', 'T' or 'E' */
    int txn_wrote;
    int broken;   /* the socket failed: stop */
    char *params[SRV_N_PARAMS];
    struct srv_prep *preps;
    struct srv_portal *portals;
    int http;     /* a connection to the --http listener (http.c) */
    srv_session *next;
};

/*
 * Looks at one statement (trimmed, no trailing ';'): client statements
 * (transactions, SET/SHOW of client parameters, DEALLOCATE, DISCARD) and
 * the catalog queries of psql's \dt, \d, \l, \dn; anything else naming
 * pg_catalog or information_schema is refused (0A000). SILT_C_NONE for
 * the rest. Errors are set on err with a SQLSTATE in *state.
 */
silt_status srv_compat_look(srv_session *s, const char *sql, srv_compat *out, const char **state,
                       silt_error *err);
void srv_compat_clear(srv_compat *c);

/* Names a statement of silt gives (compat.c): column 1 (or 0) in names, column 0 in extra. */
typedef struct srv_name_list {
    size_t n;
    char (*names)[SRV_MAX_NAME * 2];
    char (*extra)[SRV_MAX_NAME * 2];
} srv_name_list;
/* Reads string columns 0 and (want_two) 1 of sql's result; rows whose boolean column skip_col is true are left. */
silt_status srv_read_names(srv_session *s, const char *sql, int want_two, int skip_col,
                           srv_name_list *out, silt_error *err);
void srv_names_clear(srv_name_list *l);
/* The made-up, stable oid of a table (a hash of database and name). */
uint32_t srv_table_oid(const char *db, const char *table);
/* The DatabaseMetaData queries of the PostgreSQL JDBC driver 42.7 (jdbc.c); *done = answered. */
silt_status srv_jdbc_query(srv_session *s, const char *n, srv_compat *out, int *done,
                           silt_error *err);

/* session.c helpers compat.c uses */
silt_status srv_send_parameter_status(srv_session *s, const char *name, const char *value);
void srv_session_drop_preps(srv_session *s, const char *name); /* NULL = all */
int srv_session_has_prep(srv_session *s, const char *name);

/* The whole session of an accepted socket (a thread). */
void *srv_session_main(void *session);
/* session.c's socket I/O, TLS or not: 0 when all was written, -1 (s->broken) when not. */
int srv_sock_write(srv_session *s, const void *data, size_t len);
long srv_sock_read_some(srv_session *s, void *data, size_t len);
/* The user's databases= on the session's connection (silt_conn_set_databases). */
silt_status srv_limit_databases(srv_session *s);
/* One connection to the --http listener: HTTP/1.1 requests until the client closes (http.c). */
void srv_http_serve(srv_session *s);

#endif
