/*
 * Concurrent writers in separate processes (fork) on one table:
 *   - 16 processes x 25 blind appends (the audit of issue 15, where 4 to 11
 *     of them failed after 10 attempts): with the default retry bound every
 *     one commits, every acknowledged commit is in the log exactly once,
 *     versions are dense, the file count is exact;
 *   - 6 DELETE-like transactions remove the same file from one snapshot:
 *     one wins, every other one gets ConcurrentDeleteDeleteException and
 *     writes nothing.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "delta/log.h"
#include "delta/txn.h"
#include "test.h"
#include "util/hashmap.h"

#define WRITERS 16
#define APPENDS 25
#define DELETERS 6

typedef struct ack {
    int32_t writer;
    int32_t seq;
    int64_t version;
} ack;

static void create_table(const char *root)
{
    io_store *store = NULL;
    delta_txn *txn = NULL;
    dlog_metadata md;
    silt_error err = SILT_ERROR_INIT;
    arena *a = arena_new(NULL, "create");
    col_field field;
    memset(&field, 0, sizeof(field));
    field.name = "id";
    field.type = col_type_primitive(COL_LONG);
    field.nullable = 1;
    field.field_id = -1;
    check_ok(io_store_open(&store, root, 1, &err), &err);
    check_ok(delta_metadata_for_new_table(&md, a, col_type_struct(a, 1, &field), 0, NULL, NULL,
                                          &err),
             &err);
    check_ok(delta_txn_begin(&txn, store, NULL, "CREATE TABLE", &err), &err);
    check_ok(delta_txn_set_metadata(txn, &md, &err), &err);
    check_ok(delta_txn_commit(txn, NULL, &err), &err);
    delta_txn_free(txn);
    io_store_free(store);
    arena_free(a);
}

static void child_fail(const char *what, const silt_error *err)
{
    char msg[2048];
    err_format(err, msg, sizeof(msg));
    fprintf(stderr, "%s: %s\n", what, msg);
    _exit(2);
}

/* Child: waits for the start signal, then appends APPENDS files, acking each version. */
static void writer_main(int writer, int start_fd, int ack_fd, const char *root)
{
    io_store *store = NULL;
    silt_error err = SILT_ERROR_INIT;
    char go, path[64];
    int seq;
    if (io_store_open(&store, root, 0, &err) != SILT_OK)
        child_fail("open", &err);
    if (read(start_fd, &go, 1) != 1)
        _exit(2);
    for (seq = 0; seq < APPENDS; seq++) {
        delta_snapshot *snap = NULL;
        delta_txn *txn = NULL;
        delta_commit_result res;
        dlog_add add;
        ack rec;
        memset(&add, 0, sizeof(add));
        snprintf(path, sizeof(path), "w%d-%d.parquet", writer, seq);
        add.path = path;
        add.size = 1000 + writer;
        add.modification_time = 1700000000000;
        add.data_change = 1;
        if (delta_snapshot_load(&snap, store, -1, &err) != SILT_OK)
            child_fail("load", &err);
        if (delta_txn_begin(&txn, store, snap, "WRITE", &err) != SILT_OK ||
            delta_txn_add_file(txn, &add, &err) != SILT_OK)
            child_fail("begin", &err);
        if (delta_txn_commit(txn, &res, &err) != SILT_OK)
            child_fail("commit", &err);
        rec.writer = writer;
        rec.seq = seq;
        rec.version = res.version;
        if (write(ack_fd, &rec, sizeof(rec)) != (ssize_t)sizeof(rec))
            _exit(2);
        delta_txn_free(txn);
        delta_snapshot_free(snap);
    }
    io_store_free(store);
    _exit(0);
}

static void start_all(int start_fd, int n)
{
    char go[64];
    memset(go, 'g', sizeof(go));
    check(write(start_fd, go, (size_t)n) == n);
}

void test_delta_txn_race__concurrent_appends(void)
{
    const char *root = test_tmpdir();
    int start[2], acks[2], writer, n_acks = 0;
    pid_t pids[WRITERS];
    int seen_version[WRITERS * APPENDS + 1];
    ack rec;
    io_store *store = NULL;
    delta_snapshot *snap = NULL;
    dlog_listing listing = DLOG_LISTING_INIT;
    silt_error err = SILT_ERROR_INIT;
    hashmap paths = HASHMAP_INIT;
    size_t idx;

    create_table(root);
    memset(seen_version, 0, sizeof(seen_version));
    check(pipe(start) == 0 && pipe(acks) == 0);
    for (writer = 0; writer < WRITERS; writer++) {
        pids[writer] = fork();
        check(pids[writer] >= 0);
        if (pids[writer] == 0) {
            close(start[1]);
            close(acks[0]);
            writer_main(writer, start[0], acks[1], root);
        }
    }
    close(start[0]);
    close(acks[1]);
    start_all(start[1], WRITERS);
    close(start[1]);
    while (read(acks[0], &rec, sizeof(rec)) == (ssize_t)sizeof(rec)) {
        check(rec.version >= 1 && rec.version <= WRITERS * APPENDS);
        check_int(0, seen_version[rec.version]); /* no version acknowledged twice */
        seen_version[rec.version] = 1;
        n_acks++;
    }
    close(acks[0]);
    for (writer = 0; writer < WRITERS; writer++) {
        int status = 0;
        check(waitpid(pids[writer], &status, 0) == pids[writer]);
        check(WIFEXITED(status));
        check_int(0, WEXITSTATUS(status));
    }
    check_int(WRITERS * APPENDS, n_acks);

    check_ok(io_store_open(&store, root, 0, &err), &err);
    /* Dense commits 0..N; besides them only the checkpoints of every tenth version. */
    check_ok(dlog_list(&listing, store, -1, &err), &err);
    {
        int64_t n_commits = 0;
        for (idx = 0; idx < listing.n_files; idx++) {
            if (listing.files[idx].kind != DLOG_FILE_COMMIT) {
                check_int(0, listing.files[idx].version % 10);
                continue;
            }
            check_int(n_commits, listing.files[idx].version);
            n_commits++;
        }
        check_int(WRITERS * APPENDS + 1, n_commits);
    }
    dlog_listing_clear(&listing);
    /* Every appended file exactly once. */
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_int(WRITERS * APPENDS, snap->version);
    check_int(WRITERS * APPENDS, snap->n_files);
    for (idx = 0; idx < snap->n_files; idx++) {
        void *old = NULL;
        check_ok(hashmap_put(&paths, snap->files[idx].path, strlen(snap->files[idx].path), snap,
                             &old, &err),
                 &err);
        check(old == NULL);
    }
    for (writer = 0; writer < WRITERS; writer++) {
        int seq;
        for (seq = 0; seq < APPENDS; seq++) {
            char path[64];
            snprintf(path, sizeof(path), "w%d-%d.parquet", writer, seq);
            check(hashmap_get_str(&paths, path) != NULL);
        }
    }
    hashmap_clear(&paths);
    delta_snapshot_free(snap);
    io_store_free(store);
}

/* Child: removes the one file of the snapshot at version 1; exit 0 won, 1 conflict, 2 error. */
static void deleter_main(int start_fd, const char *root)
{
    io_store *store = NULL;
    delta_snapshot *snap = NULL;
    delta_txn *txn = NULL;
    silt_error err = SILT_ERROR_INIT;
    silt_status rc;
    char go;
    if (io_store_open(&store, root, 0, &err) != SILT_OK ||
        delta_snapshot_load(&snap, store, 1, &err) != SILT_OK ||
        delta_txn_begin(&txn, store, snap, "DELETE", &err) != SILT_OK ||
        delta_txn_remove_file(txn, &snap->files[0], 1, &err) != SILT_OK)
        child_fail("prepare", &err);
    if (read(start_fd, &go, 1) != 1)
        _exit(2);
    rc = delta_txn_commit(txn, NULL, &err);
    if (rc == SILT_OK)
        _exit(0);
    if (rc == SILT_CONFLICT && strncmp(err.message, "ConcurrentDeleteDeleteException: ", 33) == 0)
        _exit(1);
    child_fail("commit", &err);
}

void test_delta_txn_race__one_deleter_wins(void)
{
    const char *root = test_tmpdir();
    int start[2], idx, winners = 0, losers = 0;
    pid_t pids[DELETERS];
    io_store *store = NULL;
    delta_snapshot *snap = NULL;
    delta_txn *txn = NULL;
    silt_error err = SILT_ERROR_INIT;
    dlog_add add;

    create_table(root);
    check_ok(io_store_open(&store, root, 0, &err), &err);
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    memset(&add, 0, sizeof(add));
    add.path = "victim.parquet";
    add.size = 1;
    add.data_change = 1;
    check_ok(delta_txn_begin(&txn, store, snap, "WRITE", &err), &err);
    check_ok(delta_txn_add_file(txn, &add, &err), &err);
    check_ok(delta_txn_commit(txn, NULL, &err), &err);
    delta_txn_free(txn);
    delta_snapshot_free(snap);

    check(pipe(start) == 0);
    for (idx = 0; idx < DELETERS; idx++) {
        pids[idx] = fork();
        check(pids[idx] >= 0);
        if (pids[idx] == 0) {
            close(start[1]);
            deleter_main(start[0], root);
        }
    }
    close(start[0]);
    start_all(start[1], DELETERS);
    close(start[1]);
    for (idx = 0; idx < DELETERS; idx++) {
        int status = 0;
        check(waitpid(pids[idx], &status, 0) == pids[idx]);
        check(WIFEXITED(status));
        if (WEXITSTATUS(status) == 0)
            winners++;
        else if (WEXITSTATUS(status) == 1)
            losers++;
    }
    check_int(1, winners);
    check_int(DELETERS - 1, losers);
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_int(2, snap->version); /* the losers wrote nothing */
    check_int(0, snap->n_files);
    delta_snapshot_free(snap);
    io_store_free(store);
}
