/*
 * users.c - reading and writing the users file of silt serve (users.h).
 *
 * The file holds verifiers, not passwords, but a verifier still lets an
 * offline attacker guess passwords, so it is written 0600 and replaced by
 * rename (never half-written).
 */
#define _POSIX_C_SOURCE 200809L
#include "server/users.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/mem.h"

#define MAX_USERS_FILE (4 << 20)

int srv_name_ok(const char *name)
{
    size_t idx, len = strlen(name);
    if (len == 0 || len >= SRV_MAX_NAME)
        return 0;
    for (idx = 0; idx < len; idx++) {
        char c = name[idx];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-' || c == '@'))
            return 0;
    }
    return 1;
}

void srv_users_clear(srv_users *u)
{
    mem_free(u->users);
    u->users = NULL;
    u->n = 0;
}

const srv_user *srv_users_find(const srv_users *u, const char *name)
{
    size_t idx;
    for (idx = 0; idx < u->n; idx++)
        if (strcmp(u->users[idx].name, name) == 0)
            return &u->users[idx];
    return NULL;
}

int srv_user_may_use(const srv_user *user, const char *db)
{
    size_t idx;
    if (user == NULL || user->n_databases == 0)
        return 1;
    for (idx = 0; idx < user->n_databases; idx++)
        if (util_str_casecmp(user->databases[idx], db) == 0)
            return 1;
    return 0;
}

silt_status srv_users_put(srv_users *u, const srv_user *user, silt_error *err)
{
    size_t idx;
    srv_user *grown;
    for (idx = 0; idx < u->n; idx++)
        if (strcmp(u->users[idx].name, user->name) == 0) {
            u->users[idx] = *user;
            return SILT_OK;
        }
    grown = mem_realloc(u->users, (u->n + 1) * sizeof(*grown));
    if (grown == NULL)
        return err_nomem(err);
    u->users = grown;
    u->users[u->n++] = *user;
    return SILT_OK;
}

static silt_status parse_databases(srv_user *user, const char *list, const char *path,
                                   int line_no, silt_error *err)
{
    const char *p = list;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char name[SRV_MAX_NAME];
        if (len == 0 || len >= SRV_MAX_NAME || user->n_databases == SRV_MAX_USER_DBS)
            return err_set(err, SILT_CORRUPT, "%s:%d: databases= takes 1 to %d names of up to "
                           "%d characters, separated by commas", path, line_no,
                           SRV_MAX_USER_DBS, SRV_MAX_NAME - 1);
        memcpy(name, p, len);
        name[len] = '\0';
        if (!srv_name_ok(name))
            return err_set(err, SILT_CORRUPT, "%s:%d: database name \"%s\" is not letters, "
                           "digits and _ . - @", path, line_no, name);
        memcpy(user->databases[user->n_databases++], name, len + 1);
        p += len + (comma ? 1 : 0);
        if (comma && *p == '\0')
            return err_set(err, SILT_CORRUPT, "%s:%d: databases= ends in a comma", path,
                           line_no);
    }
    return SILT_OK;
}

/* One "user ..." line (NUL-ended, without its newline). */
static silt_status parse_line(srv_users *u, char *line, const char *path, int line_no,
                              silt_error *err)
{
    srv_user user;
    char *fields[8];
    int n_fields = 0, idx;
    char *p = line;
    memset(&user, 0, sizeof(user));
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '#' || *p == '\0')
        return SILT_OK;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            *p++ = '\0';
        if (*p == '\0')
            break;
        if (n_fields == 8)
            return err_set(err, SILT_CORRUPT, "%s:%d: too many fields", path, line_no);
        fields[n_fields++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
    if (n_fields == 0 || fields[0][0] == '#')
        return SILT_OK;
    if (strcmp(fields[0], "user") != 0 || n_fields < 3)
        return err_set(err, SILT_CORRUPT, "%s:%d: a line is \"user NAME VERIFIER [read-only] "
                       "[databases=a,b]\" or a # comment", path, line_no);
    if (!srv_name_ok(fields[1]))
        return err_set(err, SILT_CORRUPT, "%s:%d: user name \"%s\" is not 1-63 letters, digits "
                       "and _ . - @", path, line_no, fields[1]);
    if (srv_users_find(u, fields[1]) != NULL)
        return err_set(err, SILT_CORRUPT, "%s:%d: user \"%s\" appears twice", path, line_no,
                       fields[1]);
    snprintf(user.name, sizeof(user.name), "%s", fields[1]);
    if (strlen(fields[2]) >= sizeof(user.verifier_text))
        return err_set(err, SILT_CORRUPT, "%s:%d: verifier too long", path, line_no);
    snprintf(user.verifier_text, sizeof(user.verifier_text), "%s", fields[2]);
    if (srv_scram_parse_verifier(&user.verifier, fields[2], err) != SILT_OK) {
        err_context(err, "in %s:%d", path, line_no);
        return SILT_CORRUPT;
    }
    for (idx = 3; idx < n_fields; idx++) {
        if (strcmp(fields[idx], "read-only") == 0 && !user.read_only)
            user.read_only = 1;
        else if (strncmp(fields[idx], "databases=", 10) == 0 && user.n_databases == 0)
            SILT_RETURN_IF_ERROR(parse_databases(&user, fields[idx] + 10, path, line_no, err));
        else
            return err_set(err, SILT_CORRUPT, "%s:%d: \"%s\" is not read-only or databases=... "
                           "(or is given twice)", path, line_no, fields[idx]);
    }
    return srv_users_put(u, &user, err);
}

silt_status srv_users_load(srv_users *out, const char *path, silt_error *err)
{
    FILE *f = fopen(path, "rb");
    buf text = BUF_INIT;
    char chunk[4096];
    size_t n;
    silt_status rc = SILT_OK;
    int line_no = 0;
    char *line;
    out->n = 0;
    out->users = NULL;
    if (f == NULL)
        return err_set(err, errno == ENOENT ? SILT_NOTFOUND : SILT_IO,
                       "could not open the config file \"%s\": %s", path, strerror(errno));
    while (rc == SILT_OK && (n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (text.len + n > MAX_USERS_FILE)
            rc = err_set(err, SILT_CORRUPT, "config file \"%s\" is larger than %d bytes", path,
                         MAX_USERS_FILE);
        else
            rc = buf_append(&text, chunk, n, err);
    }
    if (rc == SILT_OK && ferror(f))
        rc = err_set(err, SILT_IO, "could not read the config file \"%s\"", path);
    fclose(f);
    if (rc == SILT_OK && text.data == NULL)
        rc = buf_append(&text, "", 0, err);
    line = text.data;
    while (rc == SILT_OK && line != NULL && *line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        line_no++;
        if (nl > line && nl[-1] == '\r')
            nl[-1] = '\0';
        rc = parse_line(out, line, path, line_no, err);
        line = nl ? nl + 1 : NULL;
    }
    buf_clear(&text);
    if (rc != SILT_OK)
        srv_users_clear(out);
    return rc;
}

silt_status srv_users_save(const srv_users *u, const char *path, silt_error *err)
{
    buf text = BUF_INIT, tmp = BUF_INIT;
    size_t idx, k;
    silt_status rc = buf_append_str(&text, "# silt serve users: user NAME SCRAM-VERIFIER "
                                    "[read-only] [databases=a,b] (docs/server.md)\n", err);
    int fd = -1;
    for (idx = 0; rc == SILT_OK && idx < u->n; idx++) {
        const srv_user *user = &u->users[idx];
        rc = buf_printf(&text, err, "user %s %s%s", user->name, user->verifier_text,
                        user->read_only ? " read-only" : "");
        for (k = 0; rc == SILT_OK && k < user->n_databases; k++)
            rc = buf_printf(&text, err, "%s%s", k == 0 ? " databases=" : ",",
                            user->databases[k]);
        if (rc == SILT_OK)
            rc = buf_append_char(&text, '\n', err);
    }
    if (rc == SILT_OK)
        rc = buf_printf(&tmp, err, "%s.tmp.%ld", path, (long)getpid());
    if (rc == SILT_OK) {
        fd = open(buf_cstr(&tmp), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0)
            rc = err_set(err, SILT_IO, "could not create \"%s\": %s", buf_cstr(&tmp),
                         strerror(errno));
    }
    if (rc == SILT_OK && (write(fd, text.data, text.len) != (ssize_t)text.len || fsync(fd) != 0))
        rc = err_set(err, SILT_IO, "could not write \"%s\": %s", buf_cstr(&tmp), strerror(errno));
    if (fd >= 0 && close(fd) != 0 && rc == SILT_OK)
        rc = err_set(err, SILT_IO, "could not write \"%s\": %s", buf_cstr(&tmp), strerror(errno));
    if (rc == SILT_OK && rename(buf_cstr(&tmp), path) != 0)
        rc = err_set(err, SILT_IO, "could not replace \"%s\": %s", path, strerror(errno));
    if (rc != SILT_OK && tmp.data != NULL)
        unlink(buf_cstr(&tmp));
    buf_clear(&text);
    buf_clear(&tmp);
    return rc;
}
