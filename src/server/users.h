/*
 * users.h - the users file of silt serve (`silt serve --config FILE`,
 * written by `silt passwd --config FILE NAME`).
 *
 * A text file, one user a line (docs/server.md, "The config file"):
 *
 *     # comment
 *     user NAME SCRAM-SHA-256$4096:<salt>$<StoredKey>:<ServerKey> [read-only] [databases=a,b]
 *
 * Names are 1-63 characters of letters, digits and _ . - @. Any other line
 * is refused with its line number: nothing in the file is ignored.
 */
#ifndef SILT_SERVER_USERS_H
#define SILT_SERVER_USERS_H

#include <stddef.h>

#include "server/scram.h"
#include "util/error.h"

#define SRV_MAX_NAME 64
#define SRV_MAX_USER_DBS 32

typedef struct srv_user {
    char name[SRV_MAX_NAME];
    char verifier_text[256];
    srv_verifier verifier;
    int read_only;
    size_t n_databases; /* 0 = every database */
    char databases[SRV_MAX_USER_DBS][SRV_MAX_NAME];
} srv_user;

typedef struct srv_users {
    size_t n;
    srv_user *users;
} srv_users;

#define SRV_USERS_INIT {0, NULL}

/* Reads path; a missing file is SILT_NOTFOUND (passwd then starts an empty one). */
silt_status srv_users_load(srv_users *out, const char *path, silt_error *err);
void srv_users_clear(srv_users *u);
const srv_user *srv_users_find(const srv_users *u, const char *name);
/* 1 when name is a valid user or database name. */
int srv_name_ok(const char *name);
/* Adds or replaces a user (by name). */
silt_status srv_users_put(srv_users *u, const srv_user *user, silt_error *err);
/* Writes the file again (a temporary file renamed over it, mode 0600). */
silt_status srv_users_save(const srv_users *u, const char *path, silt_error *err);
/* 1 when user may connect to database db. */
int srv_user_may_use(const srv_user *user, const char *db);

#endif
