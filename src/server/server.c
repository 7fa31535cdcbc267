/*
 * server.c - the listener of silt serve (server.h): opens the warehouse,
 * listens, starts a thread per connection (session.c), and on SIGTERM or
 * SIGINT stops: no new connections, running statements interrupted,
 * sessions told 57P01 and closed, then the warehouse closed.
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "server/server_int.h"
#include "server/wire.h"
#include "util/mem.h"

static int srv_stop_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
    char c = (char)sig;
    ssize_t n = write(srv_stop_pipe[1], &c, 1);
    (void)n;
}

static int open_listener(const char *listen_at, int *loopback, char *shown, size_t cap)
{
    char host[256];
    const char *colon = strrchr(listen_at, ':');
    struct addrinfo hints, *res = NULL, *ai;
    int fd = -1, one = 1;
    if (colon == NULL || colon == listen_at || (size_t)(colon - listen_at) >= sizeof(host)) {
        fprintf(stderr, "silt: --listen takes HOST:PORT, not \"%s\"\n", listen_at);
        return -1;
    }
    memcpy(host, listen_at, (size_t)(colon - listen_at));
    host[colon - listen_at] = '\0';
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0 || res == NULL) {
        fprintf(stderr, "silt: could not resolve listen address \"%s\"\n", listen_at);
        return -1;
    }
    for (ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0)
            continue;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 128) != 0) {
            close(fd);
            fd = -1;
            continue;
        }
        {
            struct sockaddr_storage ss;
            socklen_t sl = sizeof(ss);
            char addr[INET6_ADDRSTRLEN] = "?";
            int port = 0;
            getsockname(fd, (struct sockaddr *)&ss, &sl);
            if (ss.ss_family == AF_INET) {
                const struct sockaddr_in *in = (const struct sockaddr_in *)&ss;
                inet_ntop(AF_INET, &in->sin_addr, addr, sizeof(addr));
                port = ntohs(in->sin_port);
                *loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
            } else if (ss.ss_family == AF_INET6) {
                const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&ss;
                inet_ntop(AF_INET6, &in6->sin6_addr, addr, sizeof(addr));
                port = ntohs(in6->sin6_port);
                *loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
            }
            snprintf(shown, cap, "%s:%d", addr, port);
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        fprintf(stderr, "silt: could not listen on \"%s\": %s\n", listen_at, strerror(errno));
    return fd;
}

/* Refuses a connection over the limit with PostgreSQL's 53300. */
static void refuse(int fd, const char *state, const char *msg)
{
    buf b = BUF_INIT;
    if (srv_put_error(&b, 'E', "FATAL", state, msg, NULL, NULL, 0, NULL) == SILT_OK) {
        ssize_t n = send(fd, b.data, b.len, MSG_NOSIGNAL);
        (void)n;
    }
    buf_clear(&b);
    close(fd);
}

static void accept_one(srv_server *srv, int lfd, int http)
{
    int fd = accept(lfd, NULL, NULL), one = 1;
    srv_session *s;
    pthread_t th;
    pthread_attr_t attr;
    uint8_t key[4];
    if (fd < 0)
        return;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (srv->opts.idle_timeout > 0) {
        struct timeval tv = {srv->opts.idle_timeout, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    }
    pthread_mutex_lock(&srv->lock);
    if (srv->n_sessions >= srv->opts.max_connections) {
        pthread_mutex_unlock(&srv->lock);
        refuse(fd, "53300", "sorry, too many clients already");
        return;
    }
    pthread_mutex_unlock(&srv->lock);
    s = mem_calloc(1, sizeof(*s));
    if (s == NULL || srv_random(key, sizeof(key), NULL) != SILT_OK) {
        mem_free(s);
        refuse(fd, "53200", "out of memory");
        return;
    }
    s->srv = srv;
    s->fd = fd;
    s->http = http;
    s->txn = 'I';
    memcpy(&s->key, key, 4);
    pthread_mutex_lock(&srv->lock);
    s->pid = ++srv->next_pid;
    s->next = srv->sessions;
    srv->sessions = s;
    srv->n_sessions++;
    pthread_mutex_unlock(&srv->lock);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 8u << 20);
    if (pthread_create(&th, &attr, srv_session_main, s) != 0) {
        srv_session **pp;
        pthread_mutex_lock(&srv->lock);
        for (pp = &srv->sessions; *pp; pp = &(*pp)->next)
            if (*pp == s) {
                *pp = s->next;
                break;
            }
        srv->n_sessions--;
        pthread_mutex_unlock(&srv->lock);
        mem_free(s);
        refuse(fd, "53000", "could not start a session thread");
    }
    pthread_attr_destroy(&attr);
}

static void stop_sessions(srv_server *srv)
{
    srv_session *s;
    pthread_mutex_lock(&srv->lock);
    srv->stopping = 1;
    for (s = srv->sessions; s; s = s->next) {
        if (s->conn != NULL)
            silt_conn_interrupt(s->conn);
        shutdown(s->fd, SHUT_RD);
    }
    while (srv->n_sessions > 0)
        pthread_cond_wait(&srv->gone, &srv->lock);
    pthread_mutex_unlock(&srv->lock);
}

int srv_serve(const srv_options *opts)
{
    srv_server srv;
    silt_db_options dbo = SILT_DB_OPTIONS_INIT;
    silt_error err = SILT_ERROR_INIT;
    char shown[128];
    int lfd = -1, hfd = -1, code = 1, http_loopback = 0;
    char http_shown[128];
    struct sigaction sa;
    memset(&srv, 0, sizeof(srv));
    srv.opts = *opts;
    pthread_mutex_init(&srv.lock, NULL);
    pthread_cond_init(&srv.gone, NULL);
    if (opts->config != NULL && srv_users_load(&srv.users, opts->config, &err) != SILT_OK) {
        fprintf(stderr, "silt: %s\n", err.message);
        goto done;
    }
    if (opts->config == NULL && !opts->trust) {
        fprintf(stderr, "silt: serve needs --config FILE (users made by silt passwd), or "
                "--trust for passwordless loopback connections\n");
        code = 2;
        goto done;
    }
    if (opts->tls_cert != NULL &&
        srv_tls_ctx_new(&srv.tls, opts->tls_cert, opts->tls_key, &err) != SILT_OK) {
        fprintf(stderr, "silt: %s\n", err.message);
        goto done;
    }
    srv_crypto_warm();
    lfd = open_listener(opts->listen, &srv.loopback, shown, sizeof(shown));
    if (lfd < 0)
        goto done;
    if (opts->http != NULL) {
        hfd = open_listener(opts->http, &http_loopback, http_shown, sizeof(http_shown));
        if (hfd < 0)
            goto done;
    }
    if (opts->trust && (!srv.loopback || (hfd >= 0 && !http_loopback))) {
        fprintf(stderr, "silt: --trust is only allowed on a loopback listen address\n");
        code = 2;
        goto done;
    }
    dbo.n_threads = opts->n_threads;
    if (silt_db_open(&srv.db, opts->warehouse, &dbo) != SILT_OK) {
        fprintf(stderr, "silt: %s\n", silt_db_errmsg(srv.db));
        goto done;
    }
    if (pipe(srv_stop_pipe) != 0) {
        fprintf(stderr, "silt: pipe: %s\n", strerror(errno));
        goto done;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    printf("silt serve: listening on %s (warehouse %s%s)\n", shown, opts->warehouse,
           srv.tls ? ", TLS" : "");
    if (hfd >= 0)
        printf("silt serve: http on %s%s\n", http_shown, srv.tls ? " (https)" : "");
    fflush(stdout);
    for (;;) {
        struct pollfd fds[3] = {{lfd, POLLIN, 0}, {srv_stop_pipe[0], POLLIN, 0}, {hfd, POLLIN, 0}};
        int n = poll(fds, hfd >= 0 ? 3 : 2, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (fds[1].revents & POLLIN))
            break;
        if (fds[0].revents & POLLIN)
            accept_one(&srv, lfd, 0);
        if (hfd >= 0 && (fds[2].revents & POLLIN))
            accept_one(&srv, hfd, 1);
    }
    close(lfd);
    lfd = -1;
    if (hfd >= 0)
        close(hfd);
    hfd = -1;
    stop_sessions(&srv);
    printf("silt serve: stopped\n");
    fflush(stdout);
    code = 0;
done:
    if (lfd >= 0)
        close(lfd);
    if (hfd >= 0)
        close(hfd);
    silt_db_close(srv.db);
    srv_tls_ctx_free(srv.tls);
    srv_users_clear(&srv.users);
    pthread_mutex_destroy(&srv.lock);
    pthread_cond_destroy(&srv.gone);
    return code;
}
