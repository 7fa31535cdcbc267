/*
 * Table maintenance (delta/maint.h) against concurrent writers: OPTIMIZE
 * started on an old snapshot commits over blind appends (Delta's
 * SnapshotIsolation: its adds and removes change no data) and fails with
 * ConcurrentDeleteReadException when a file it compacts was deleted
 * meanwhile; VACUUM sweeps the dead temp files of killed writers only.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "delta/maint.h"
#include "delta/snapshot.h"
#include "sql/session.h"
#include "test.h"

static sql_session *s;
static silt_error err;
static char path[1024];
static char sql[4096];

void test_sql_maintenance__initialize(void)
{
    err_clear(&err);
    check_ok(sql_session_new(&s, NULL, &err), &err);
    snprintf(path, sizeof(path), "%s/t", test_tmpdir());
}

void test_sql_maintenance__cleanup(void) { sql_session_free(s); }

/* Runs `head` delta.`<the table>` `tail`. */
static void run2(const char *head, const char *tail)
{
    snprintf(sql, sizeof(sql), "%s delta.`%s` %s", head, path, tail);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
}

static delta_snapshot *load(io_store *store)
{
    delta_snapshot *snap = NULL;
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    return snap;
}

void test_sql_maintenance__optimize_commits_over_concurrent_appends(void)
{
    io_store *store = NULL;
    delta_snapshot *old, *now;
    delta_optimize_options o = DELTA_OPTIMIZE_OPTIONS_INIT;
    delta_optimize_metrics m;
    size_t idx, n_data_change = 0;
    int64_t rows = 0;
    run2("CREATE TABLE", "(a INT) USING DELTA");
    run2("INSERT INTO", "VALUES (1)");
    run2("INSERT INTO", "VALUES (2)");
    check_ok(io_store_open(&store, path, 0, &err), &err);
    old = load(store);
    run2("INSERT INTO", "VALUES (3)"); /* a blind append after OPTIMIZE read */
    check_ok(delta_optimize(store, old, &o, &m, &err), &err);
    check_int(4, m.version);
    check_int(2, m.removed.total_files);
    check_int(1, m.added.total_files);
    now = load(store);
    check_int(2, now->n_files); /* the compacted file and the concurrent append */
    for (idx = 0; idx < now->n_files; idx++)
        if (strstr(now->files[idx].stats, "\"numRecords\":2") != NULL)
            rows += 2;
        else if (strstr(now->files[idx].stats, "\"numRecords\":1") != NULL)
            rows += 1, n_data_change++;
    check_int(3, rows);
    check_int(1, (int64_t)n_data_change);
    delta_snapshot_free(now);
    delta_snapshot_free(old);
    io_store_free(store);
}

void test_sql_maintenance__optimize_conflicts_with_a_concurrent_delete(void)
{
    io_store *store = NULL;
    delta_snapshot *old, *now;
    delta_optimize_options o = DELTA_OPTIMIZE_OPTIONS_INIT;
    delta_optimize_metrics m;
    run2("CREATE TABLE", "(a INT) USING DELTA");
    run2("INSERT INTO", "VALUES (1)");
    run2("INSERT INTO", "VALUES (2)");
    check_ok(io_store_open(&store, path, 0, &err), &err);
    old = load(store);
    run2("DELETE FROM", "WHERE a = 1");
    check_fails(SILT_CONFLICT, delta_optimize(store, old, &o, &m, &err));
    check_contains(err.message, "ConcurrentDeleteReadException");
    now = load(store);
    check_int(3, now->version); /* nothing committed */
    delta_snapshot_free(now);
    delta_snapshot_free(old);
    io_store_free(store);
}

/* A temp file as a writer leaves it, `age_s` seconds old. */
static void temp_file(const char *name, long age_s)
{
    char file[2048];
    struct timespec times[2];
    int fd;
    snprintf(file, sizeof(file), "%s/%s", path, name);
    fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    check_int(1, fd >= 0);
    check_int(1, (int)write(fd, "x", 1));
    close(fd);
    times[0].tv_sec = times[1].tv_sec = time(NULL) - age_s;
    times[0].tv_nsec = times[1].tv_nsec = 0;
    check_int(0, utimensat(AT_FDCWD, file, times, 0));
}

static int exists(const char *name)
{
    char file[2048];
    struct stat st;
    snprintf(file, sizeof(file), "%s/%s", path, name);
    return stat(file, &st) == 0;
}

void test_sql_maintenance__vacuum_sweeps_dead_temp_files_only(void)
{
    io_store *store = NULL;
    delta_snapshot *snap;
    delta_vacuum_options o = DELTA_VACUUM_OPTIONS_INIT;
    delta_vacuum_result r = DELTA_VACUUM_RESULT_INIT;
    char live[128];
    run2("CREATE TABLE", "(a INT) USING DELTA");
    run2("INSERT INTO", "VALUES (1)");
    /* pid 2^22 + 1 is above Linux's pid_max limit: no process has it */
    temp_file(".silt-tmp-4194305-1-0", 7200);
    temp_file("_delta_log/.silt-tmp-4194305-2-0", 7200);
    temp_file(".silt-tmp-4194305-3-0", 60); /* too young to be provably dead */
    snprintf(live, sizeof(live), ".silt-tmp-%ld-4-0", (long)getpid());
    temp_file(live, 7200); /* its writer lives */
    check_ok(io_store_open(&store, path, 0, &err), &err);
    snap = load(store);
    o.dry_run = 1;
    check_ok(delta_vacuum(store, snap, &o, &r, &err), &err);
    check_int(2, r.n_temps);
    check_int(1, exists(".silt-tmp-4194305-1-0"));
    delta_vacuum_result_clear(&r);
    memset(&r, 0, sizeof(r));
    o.dry_run = 0;
    check_ok(delta_vacuum(store, snap, &o, &r, &err), &err);
    check_int(2, r.n_temps);
    check_int(0, exists(".silt-tmp-4194305-1-0"));
    check_int(0, exists("_delta_log/.silt-tmp-4194305-2-0"));
    check_int(1, exists(".silt-tmp-4194305-3-0"));
    check_int(1, exists(live));
    delta_vacuum_result_clear(&r);
    delta_snapshot_free(snap);
    io_store_free(store);
}

/*
 * Delta 4's VACUUM deletes the folders that are empty when it lists them; a
 * folder its own deletes empty stays until the next VACUUM (checked against
 * the peer in interop.spark_maintenance, vacuum_folders_case).
 */
void test_sql_maintenance__vacuum_removes_empty_folders_as_delta(void)
{
    char dir[2048];
    run2("CREATE TABLE", "(a INT, p INT, q INT) USING DELTA PARTITIONED BY (p, q)");
    run2("INSERT INTO", "VALUES (1, 0, 0), (2, 1, 0), (3, 1, 1)");
    run2("DELETE FROM", "WHERE p = 0 OR q = 1");
    check_int(1, exists("p=0/q=0"));
    snprintf(dir, sizeof(dir), "%s/empty", path);
    check_int(0, mkdir(dir, 0755));
    snprintf(dir, sizeof(dir), "%s/empty/deeper", path);
    check_int(0, mkdir(dir, 0755));
    snprintf(dir, sizeof(dir), "%s/_hidden", path);
    check_int(0, mkdir(dir, 0755));
    check_ok(sql_execute(s, "SET spark.databricks.delta.retentionDurationCheck.enabled = false",
                         NULL, &err), &err);
    run2("VACUUM", "RETAIN 0 HOURS");
    check_int(0, exists("empty")); /* empty when listed: both levels went */
    check_int(1, exists("p=0/q=0")); /* emptied by this VACUUM: stays, as in Delta */
    check_int(1, exists("p=1/q=1"));
    check_int(1, exists("_hidden")); /* hidden folders are never VACUUM's */
    run2("VACUUM", "RETAIN 0 HOURS");
    check_int(0, exists("p=0"));
    check_int(0, exists("p=1/q=1"));
    check_int(1, exists("p=1/q=0")); /* its file is live */
    check_int(1, exists("_hidden"));
    check_int(1, exists("_delta_log"));
}

/* The stats of a table's live files, sorted, joined: the layout without the file names. */
static void layout_of(const char *table, buf *out)
{
    io_store *store = NULL;
    delta_snapshot *snap;
    const char **stats;
    size_t idx, j;
    check_ok(io_store_open(&store, table, 0, &err), &err);
    snap = load(store);
    stats = calloc(snap->n_files + 1, sizeof(char *));
    for (idx = 0; idx < snap->n_files; idx++)
        stats[idx] = snap->files[idx].stats;
    for (idx = 1; idx < snap->n_files; idx++) /* insertion sort: a few dozen files */
        for (j = idx; j > 0 && strcmp(stats[j - 1], stats[j]) > 0; j--) {
            const char *t = stats[j];
            stats[j] = stats[j - 1];
            stats[j - 1] = t;
        }
    for (idx = 0; idx < snap->n_files; idx++)
        check_ok(buf_printf(out, &err, "%s\n", stats[idx]), &err);
    free(stats);
    delta_snapshot_free(snap);
    io_store_free(store);
}

static void zorder(const char *table, int64_t memory, delta_optimize_metrics *m)
{
    static const char *const cols[] = {"a", "b"};
    io_store *store = NULL;
    delta_snapshot *snap;
    delta_optimize_options o = DELTA_OPTIMIZE_OPTIONS_INIT;
    o.n_zorder = 2;
    o.zorder = cols;
    o.max_file_size = 64 * 1024;
    o.zorder_memory = memory;
    check_ok(io_store_open(&store, table, 0, &err), &err);
    snap = load(store);
    check_ok(delta_optimize(store, snap, &o, m, &err), &err);
    delta_snapshot_free(snap);
    io_store_free(store);
}

/*
 * ZORDER BY in bounded memory: a bin bigger than the bound is ordered in
 * several passes, and the files are the same as those of one pass (the cuts
 * come from the same sample; a pass only keeps fewer ranges).
 */
void test_sql_maintenance__zorder_in_bounded_memory_writes_the_same_files(void)
{
    char other[1100];
    delta_optimize_metrics one, many;
    const char *ctas = "USING DELTA TBLPROPERTIES ('delta.targetFileSize' = '16384') AS "
                       "SELECT id, (id * 2654435761) % 1000003 AS a, (id * 40503) % 999983 AS b, "
                       "'s' || (id % 97) AS s FROM range(60000)";
    run2("CREATE TABLE", ctas);
    snprintf(other, sizeof(other), "%s2", path);
    snprintf(sql, sizeof(sql), "CREATE TABLE delta.`%s` %s", other, ctas);
    check_ok(sql_execute(s, sql, NULL, &err), &err);
    zorder(path, INT64_C(1) << 40, &one);
    zorder(other, 200 * 1024, &many);
    check_int(1, one.zorder_passes);
    check_int(1, many.zorder_passes > 3);
    check_int(one.added.total_files, many.added.total_files);
    check_int(1, one.added.total_files > 5);
    {
        buf x = BUF_INIT, y = BUF_INIT;
        layout_of(path, &x);
        layout_of(other, &y);
        check_str(buf_cstr(&x), buf_cstr(&y));
        buf_clear(&x);
        buf_clear(&y);
    }
}
