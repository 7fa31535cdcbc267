/*
 * cmd_passwd.c - `silt passwd --config FILE NAME [--read-only] [--databases a,b]`:
 * adds or replaces a user of silt serve with a SCRAM-SHA-256 verifier of
 * the password read from standard input (one line; never stored itself).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"
#include "server/users.h"
#include "util/buf.h"

#define CMD "passwd"

/* The first line of stdin, without its line end; echo off on a terminal. */
static int read_password(buf *out)
{
    struct termios old, quiet;
    int tty = isatty(STDIN_FILENO), c, ok = 1;
    if (tty) {
        fprintf(stderr, "Password: ");
        if (tcgetattr(STDIN_FILENO, &old) == 0) {
            quiet = old;
            quiet.c_lflag &= ~(tcflag_t)ECHO;
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
        } else {
            tty = 0;
        }
    }
    while ((c = getchar()) != EOF && c != '\n')
        if (out->len >= 1024 || buf_append_char(out, (char)c, NULL) != SILT_OK)
            ok = 0;
    if (tty) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
        fprintf(stderr, "\n");
    }
    if (out->len > 0 && out->data[out->len - 1] == '\r')
        buf_truncate(out, out->len - 1);
    return ok;
}

static int run_passwd(int argc, char **argv)
{
    const char *config = NULL, *name = NULL, *dbs = NULL;
    int read_only = 0, idx, code = 1;
    srv_users users = SRV_USERS_INIT;
    srv_user user;
    buf pw = BUF_INIT, ver = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    silt_status rc;
    for (idx = 1; idx < argc; idx++) {
        if (strcmp(argv[idx], "--config") == 0 && idx + 1 < argc)
            config = argv[++idx];
        else if (strcmp(argv[idx], "--databases") == 0 && idx + 1 < argc)
            dbs = argv[++idx];
        else if (strcmp(argv[idx], "--read-only") == 0)
            read_only = 1;
        else if (argv[idx][0] == '-')
            return cli_usage_error(CMD, "unrecognised option '%s'", argv[idx]);
        else if (name == NULL)
            name = argv[idx];
        else
            return cli_usage_error(CMD, "passwd takes one user name, got '%s' too", argv[idx]);
    }
    if (config == NULL || name == NULL)
        return cli_usage_error(CMD, "passwd needs --config FILE and a user NAME");
    if (!srv_name_ok(name))
        return cli_usage_error(CMD, "user name '%s' is not 1-63 letters, digits and _ . - @",
                               name);
    memset(&user, 0, sizeof(user));
    snprintf(user.name, sizeof(user.name), "%s", name);
    user.read_only = read_only;
    rc = srv_users_load(&users, config, &err);
    if (rc == SILT_NOTFOUND) {
        rc = SILT_OK;
        err_clear(&err);
    }
    if (rc == SILT_OK && dbs != NULL) {
        const char *p = dbs;
        while (rc == SILT_OK && *p) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            if (len == 0 || len >= SRV_MAX_NAME || user.n_databases == SRV_MAX_USER_DBS) {
                rc = err_set(&err, SILT_INVALID, "--databases takes 1 to %d names separated by "
                             "commas", SRV_MAX_USER_DBS);
                break;
            }
            memcpy(user.databases[user.n_databases], p, len);
            user.databases[user.n_databases][len] = '\0';
            if (!srv_name_ok(user.databases[user.n_databases]))
                rc = err_set(&err, SILT_INVALID, "database name \"%s\" is not letters, digits "
                             "and _ . - @", user.databases[user.n_databases]);
            user.n_databases++;
            p += len + (comma ? 1 : 0);
        }
    }
    if (rc == SILT_OK && !read_password(&pw))
        rc = err_set(&err, SILT_INVALID, "the password is longer than 1024 bytes");
    if (rc == SILT_OK && pw.len == 0)
        rc = err_set(&err, SILT_INVALID, "the password read from standard input is empty");
    if (rc == SILT_OK)
        rc = srv_scram_make_verifier(&ver, pw.data, pw.len, &err);
    if (rc == SILT_OK && ver.len >= sizeof(user.verifier_text))
        rc = err_set(&err, SILT_INVALID, "verifier too long");
    if (rc == SILT_OK) {
        memcpy(user.verifier_text, ver.data, ver.len + 1);
        rc = srv_scram_parse_verifier(&user.verifier, user.verifier_text, &err);
    }
    if (rc == SILT_OK)
        rc = srv_users_put(&users, &user, &err);
    if (rc == SILT_OK)
        rc = srv_users_save(&users, config, &err);
    if (rc == SILT_OK)
        code = 0;
    else
        fprintf(stderr, "silt: %s\n", err.message);
    if (pw.data != NULL)
        memset(pw.data, 0, pw.len);
    buf_clear(&pw);
    buf_clear(&ver);
    srv_users_clear(&users);
    return code;
}

const cli_command cli_passwd_command = {
    CMD, "add or change a user of silt serve (SCRAM-SHA-256)",
    "usage: silt passwd --config FILE NAME [--read-only] [--databases db1,db2]\n"
    "\n"
    "Reads a password from standard input (one line) and stores user NAME in FILE\n"
    "with a SCRAM-SHA-256 verifier of it (4096 iterations, random salt; never the\n"
    "password), replacing NAME if it is there. --read-only makes every statement\n"
    "that writes refused (SQLSTATE 25006); --databases limits the databases NAME may\n"
    "connect to. silt serve --config FILE reads the file (docs/server.md).\n",
    run_passwd};
