/*
 * isolation - runs the concurrent-writer scripts (the .spec files of tests/isolation)
 * (in the manner of PostgreSQL's src/test/isolation): several transactions
 * ("sessions") on one table, their steps interleaved in the order written,
 * and the outcome of every commit checked against Delta's conflict rules.
 *
 * Spec lines (blank lines and '#' comments are skipped):
 *
 *   table [partitioned] [key=value ...]   create the table (id long, p string)
 *   append PATH [P]                       a committed blind append (setup)
 *   S begin OPERATION [serializable]      session S reads the latest snapshot
 *   S read-table | read-partition P | read-file PATH
 *   S add PATH [P] [nodatachange]
 *   S remove PATH [nodatachange]          a live file of S's snapshot
 *   S app-txn APP_ID VERSION
 *   S metadata                            S changes the table description
 *   S commit -> ok [vN] | -> EXCEPTION    commit and check the outcome
 *
 * Words are separated by blanks; "double quotes" make one word of several.
 *   expect version N
 *   expect files [PATH ...]               the live files, in any order
 *
 * Usage: silt_isolation SPEC_DIR. Prints "ok"/"FAIL file:line: why" per
 * spec and "N passed, M failed"; exits 1 when any spec failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "delta/txn.h"

#define MAX_SESSIONS 16
#define MAX_WORDS 32

typedef struct session {
    char name[32];
    delta_snapshot *snap;
    delta_txn *txn;
} session;

typedef struct spec_run {
    const char *file;
    int line;
    io_store *store;
    arena *a;
    session sessions[MAX_SESSIONS];
    int n_sessions;
    char why[1024];
} spec_run;

static int failf(spec_run *run, const char *fmt, ...) SILT_PRINTF(2, 3);

static int failf(spec_run *run, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(run->why, sizeof(run->why), "%s:%d: %s", run->file, run->line, msg);
    return 0;
}

static int fail_err(spec_run *run, const char *what, const silt_error *err)
{
    char msg[768];
    char text[600];
    err_format(err, text, sizeof(text));
    snprintf(msg, sizeof(msg), "%s: %s", what, text);
    return failf(run, "%s", msg);
}

static session *find_session(spec_run *run, const char *name, int create)
{
    int idx;
    for (idx = 0; idx < run->n_sessions; idx++)
        if (strcmp(run->sessions[idx].name, name) == 0)
            return &run->sessions[idx];
    if (!create || run->n_sessions == MAX_SESSIONS)
        return NULL;
    snprintf(run->sessions[run->n_sessions].name, sizeof(run->sessions[0].name), "%s", name);
    return &run->sessions[run->n_sessions++];
}

static dlog_map part_map(arena *a, const char *value)
{
    dlog_map m = {0, NULL};
    if (value == NULL)
        return m;
    m.items = arena_calloc(a, 1, sizeof(dlog_kv));
    m.items[0].key = "p";
    m.items[0].value = strcmp(value, "null") == 0 ? NULL : arena_strdup(a, value);
    m.n = 1;
    return m;
}

static int has_word(char **words, int n, const char *word)
{
    int idx;
    for (idx = 0; idx < n; idx++)
        if (strcmp(words[idx], word) == 0)
            return 1;
    return 0;
}

static int do_table(spec_run *run, char **w, int n)
{
    silt_error err = SILT_ERROR_INIT;
    col_field fields[2];
    dlog_map config = {0, arena_calloc(run->a, (size_t)n + 1, sizeof(dlog_kv))};
    const char *parts[] = {"p"};
    int partitioned = 0, idx;
    dlog_metadata md;
    delta_txn *txn = NULL;
    const col_type *schema;
    silt_status rc;
    memset(fields, 0, sizeof(fields));
    fields[0].name = "id";
    fields[0].type = col_type_primitive(COL_LONG);
    fields[1].name = "p";
    fields[1].type = col_type_primitive(COL_STRING);
    fields[0].nullable = fields[1].nullable = 1;
    fields[0].field_id = fields[1].field_id = -1;
    for (idx = 1; idx < n; idx++) {
        char *eq = strchr(w[idx], '=');
        if (strcmp(w[idx], "partitioned") == 0) {
            partitioned = 1;
        } else if (eq != NULL) {
            config.items[config.n].key = arena_strndup(run->a, w[idx], (size_t)(eq - w[idx]));
            config.items[config.n++].value = arena_strdup(run->a, eq + 1);
        }
    }
    schema = col_type_struct(run->a, 2, arena_memdup(run->a, fields, sizeof(fields)));
    rc = delta_metadata_for_new_table(&md, run->a, schema, partitioned ? 1 : 0, parts, &config,
                                      &err);
    if (rc == SILT_OK)
        rc = delta_txn_begin(&txn, run->store, NULL, "CREATE TABLE", &err);
    if (rc == SILT_OK)
        rc = delta_txn_set_metadata(txn, &md, &err);
    if (rc == SILT_OK)
        rc = delta_txn_commit(txn, NULL, &err);
    delta_txn_free(txn);
    return rc == SILT_OK ? 1 : fail_err(run, "create", &err);
}

static dlog_add make_add(spec_run *run, const char *path, const char *p, int data_change)
{
    dlog_add add;
    memset(&add, 0, sizeof(add));
    add.path = path;
    add.partition_values = part_map(run->a, p);
    add.size = 100;
    add.modification_time = 1700000000000;
    add.data_change = data_change;
    return add;
}

static int do_append(spec_run *run, char **w, int n)
{
    silt_error err = SILT_ERROR_INIT;
    delta_snapshot *snap = NULL;
    delta_txn *txn = NULL;
    dlog_add add;
    silt_status rc;
    if (n < 2)
        return failf(run, "%s", "append needs a path");
    add = make_add(run, w[1], n > 2 ? w[2] : NULL, 1);
    rc = delta_snapshot_load(&snap, run->store, -1, &err);
    if (rc == SILT_OK)
        rc = delta_txn_begin(&txn, run->store, snap, "WRITE", &err);
    if (rc == SILT_OK)
        rc = delta_txn_add_file(txn, &add, &err);
    if (rc == SILT_OK)
        rc = delta_txn_commit(txn, NULL, &err);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
    return rc == SILT_OK ? 1 : fail_err(run, "append", &err);
}

static int do_expect(spec_run *run, char **w, int n)
{
    silt_error err = SILT_ERROR_INIT;
    delta_snapshot *snap = NULL;
    size_t idx;
    int ok = 1, word;
    if (delta_snapshot_load(&snap, run->store, -1, &err) != SILT_OK)
        return fail_err(run, "load", &err);
    if (n >= 3 && strcmp(w[1], "version") == 0) {
        if (snap->version != strtoll(w[2], NULL, 10))
            ok = failf(run, "expected version %s", w[2]);
    } else if (n >= 2 && strcmp(w[1], "files") == 0) {
        if (snap->n_files != (size_t)(n - 2))
            ok = failf(run, "%s", "the table has a different number of files");
        for (word = 2; ok && word < n; word++) {
            int found = 0;
            for (idx = 0; idx < snap->n_files; idx++)
                found |= strcmp(snap->files[idx].path, w[word]) == 0;
            if (!found)
                ok = failf(run, "file \"%s\" is not live", w[word]);
        }
    } else {
        ok = failf(run, "%s", "expect what?");
    }
    delta_snapshot_free(snap);
    return ok;
}

static int do_commit(spec_run *run, session *s, char **w, int n)
{
    silt_error err = SILT_ERROR_INIT;
    delta_commit_result res;
    silt_status rc;
    char want_version[32];
    if (n < 4 || strcmp(w[2], "->") != 0)
        return failf(run, "%s", "commit needs \"-> ok\" or \"-> Exception\"");
    rc = delta_txn_commit(s->txn, &res, &err);
    if (strcmp(w[3], "ok") == 0) {
        if (rc != SILT_OK)
            return fail_err(run, "expected the commit to succeed", &err);
        snprintf(want_version, sizeof(want_version), "v%lld", (long long)res.version);
        if (n > 4 && strcmp(w[4], want_version) != 0)
            return failf(run, "committed at %s", want_version);
        return 1;
    }
    if (rc != SILT_CONFLICT)
        return failf(run, "expected %s, the commit did not conflict", w[3]);
    if (strncmp(err.message, w[3], strlen(w[3])) != 0 || err.message[strlen(w[3])] != ':')
        return failf(run, "got \"%s\"", err.message);
    return 1;
}

static int do_session(spec_run *run, char **w, int n)
{
    silt_error err = SILT_ERROR_INIT;
    session *s = find_session(run, w[0], n > 1 && strcmp(w[1], "begin") == 0);
    silt_status rc = SILT_OK;
    const char *verb = n > 1 ? w[1] : "";
    if (s == NULL)
        return failf(run, "session \"%s\" has not begun", w[0]);
    if (strcmp(verb, "begin") == 0) {
        if (n < 3 || s->txn != NULL)
            return failf(run, "%s", "begin OPERATION, once per session");
        rc = delta_snapshot_load(&s->snap, run->store, -1, &err);
        if (rc == SILT_OK)
            rc = delta_txn_begin(&s->txn, run->store, s->snap, w[2], &err);
        if (rc == SILT_OK && has_word(w, n, "serializable"))
            delta_txn_set_isolation(s->txn, DELTA_SERIALIZABLE);
    } else if (s->txn == NULL) {
        return failf(run, "session \"%s\" has not begun", w[0]);
    } else if (strcmp(verb, "read-table") == 0) {
        rc = delta_txn_read_whole_table(s->txn, &err);
    } else if (strcmp(verb, "read-partition") == 0 && n > 2) {
        dlog_map m = part_map(run->a, w[2]);
        rc = delta_txn_read_partition(s->txn, &m, &err);
    } else if (strcmp(verb, "read-file") == 0 && n > 2) {
        rc = delta_txn_read_file(s->txn, w[2], &err);
    } else if (strcmp(verb, "add") == 0 && n > 2) {
        dlog_add add = make_add(run, w[2], n > 3 && strcmp(w[3], "nodatachange") != 0 ? w[3] : NULL,
                                !has_word(w, n, "nodatachange"));
        rc = delta_txn_add_file(s->txn, &add, &err);
    } else if (strcmp(verb, "remove") == 0 && n > 2) {
        size_t idx;
        for (idx = 0; idx < s->snap->n_files; idx++)
            if (strcmp(s->snap->files[idx].path, w[2]) == 0)
                break;
        if (idx == s->snap->n_files)
            return failf(run, "file \"%s\" is not in the session's snapshot", w[2]);
        rc = delta_txn_remove_file(s->txn, &s->snap->files[idx], !has_word(w, n, "nodatachange"),
                                   &err);
    } else if (strcmp(verb, "app-txn") == 0 && n > 3) {
        rc = delta_txn_set_app_txn(s->txn, w[2], strtoll(w[3], NULL, 10), &err);
    } else if (strcmp(verb, "metadata") == 0) {
        dlog_metadata md = s->snap->metadata;
        md.description = "changed";
        rc = delta_txn_set_metadata(s->txn, &md, &err);
    } else if (strcmp(verb, "commit") == 0) {
        return do_commit(run, s, w, n);
    } else {
        return failf(run, "step \"%s\" is not known", verb);
    }
    return rc == SILT_OK ? 1 : fail_err(run, verb, &err);
}

static int split(char *line, char **words)
{
    int n = 0;
    char *p = line;
    while (*p != '\0' && n < MAX_WORDS) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            *p++ = '\0';
        if (*p == '\0' || *p == '#')
            break;
        if (*p == '"') { /* "a quoted word" */
            words[n++] = ++p;
            while (*p != '\0' && *p != '"')
                p++;
            if (*p == '"')
                *p++ = '\0';
            continue;
        }
        words[n++] = p;
        while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            p++;
    }
    return n;
}

static int run_spec(const char *dir, const char *name, char *why, size_t why_cap)
{
    char path[4096], tmpl[] = "/tmp/silt-isolation-XXXXXX", line[1024];
    char *words[MAX_WORDS];
    spec_run run;
    silt_error err = SILT_ERROR_INIT;
    FILE *f;
    int ok = 1, idx;
    memset(&run, 0, sizeof(run));
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    run.file = name;
    run.a = arena_new(NULL, "spec");
    f = fopen(path, "r");
    if (f == NULL || mkdtemp(tmpl) == NULL ||
        io_local_store_open(&run.store, tmpl, 1, &err) != SILT_OK) {
        snprintf(why, why_cap, "%s: could not set up", name);
        if (f != NULL)
            fclose(f);
        arena_free(run.a);
        return 0;
    }
    while (ok && fgets(line, sizeof(line), f) != NULL) {
        int n;
        run.line++;
        n = split(line, words);
        if (n == 0)
            continue;
        if (strcmp(words[0], "table") == 0)
            ok = do_table(&run, words, n);
        else if (strcmp(words[0], "append") == 0)
            ok = do_append(&run, words, n);
        else if (strcmp(words[0], "expect") == 0)
            ok = do_expect(&run, words, n);
        else
            ok = do_session(&run, words, n);
    }
    fclose(f);
    snprintf(why, why_cap, "%s", run.why);
    for (idx = 0; idx < run.n_sessions; idx++) {
        delta_txn_free(run.sessions[idx].txn);
        delta_snapshot_free(run.sessions[idx].snap);
    }
    io_store_free(run.store);
    arena_free(run.a);
    snprintf(path, sizeof(path), "rm -rf '%s'", tmpl);
    if (system(path) != 0)
        fprintf(stderr, "could not remove %s\n", tmpl);
    return ok;
}

static int name_cmp(const void *left, const void *right)
{
    return strcmp(*(char *const *)left, *(char *const *)right);
}

int main(int argc, char **argv)
{
    DIR *dir;
    struct dirent *entry;
    char *names[256];
    int n_names = 0, passed = 0, failed = 0, idx;
    if (argc != 2 || (dir = opendir(argv[1])) == NULL) {
        fprintf(stderr, "usage: silt_isolation SPEC_DIR\n");
        return 2;
    }
    while ((entry = readdir(dir)) != NULL && n_names < 256) {
        size_t len = strlen(entry->d_name);
        if (len > 5 && strcmp(entry->d_name + len - 5, ".spec") == 0)
            names[n_names++] = strdup(entry->d_name);
    }
    closedir(dir);
    qsort(names, (size_t)n_names, sizeof(char *), name_cmp);
    for (idx = 0; idx < n_names; idx++) {
        char why[1024] = "";
        if (run_spec(argv[1], names[idx], why, sizeof(why))) {
            printf("ok   %s\n", names[idx]);
            passed++;
        } else {
            printf("FAIL %s\n", why);
            failed++;
        }
        free(names[idx]);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed > 0 || passed == 0 ? 1 : 0;
}
