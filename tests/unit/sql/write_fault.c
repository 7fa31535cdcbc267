/*
 * A write statement whose store fails midway: every write of INSERT, CTAS,
 * UPDATE, DELETE, MERGE, RESTORE and INSERT ... REPLACE WHERE is failed in
 * turn (the first data file, the next one, ..., the commit) through the
 * session's wrap_table_store hook and a fault store. Each failure must be
 * a clear SILT_IO error and leave the table exactly as it was: same
 * version, same rows (orphan data files are allowed). The loop ends when
 * the statement gets through, which it must, and then makes one version.
 *
 * Also DROP TABLE of a managed table: no folder of it is left behind.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "delta/snapshot.h"
#include "sql/session.h"
#include "test.h"

typedef struct fault_hook {
    long fail_nth; /* 0: no fault */
    int wrapped;   /* stores wrapped while failing */
} fault_hook;

static sql_session *s;
static silt_error err;
static fault_hook hook;
static char table[1024], path[1024];
static char sql[4096];

static silt_status wrap(io_store **store, void *payload, silt_error *e)
{
    fault_hook *h = payload;
    io_fault_plan plan = IO_FAULT_PLAN_INIT;
    io_store *faulty = NULL;
    if (h->fail_nth == 0)
        return SILT_OK;
    plan.fail_write_nth = h->fail_nth;
    plan.fail_all_after = 1;
    SILT_RETURN_IF_ERROR(io_fault_store_wrap(&faulty, *store, &plan, e));
    *store = faulty;
    h->wrapped++;
    return SILT_OK;
}

void test_sql_write_fault__initialize(void)
{
    sql_session_options so = SQL_SESSION_OPTIONS_INIT;
    err_clear(&err);
    memset(&hook, 0, sizeof(hook));
    so.wrap_table_store = wrap;
    so.wrap_payload = &hook;
    check_ok(sql_session_new(&s, &so, &err), &err);
    snprintf(path, sizeof(path), "%s/t", test_tmpdir());
    snprintf(table, sizeof(table), "delta.`%s`", path);
}

void test_sql_write_fault__cleanup(void) { sql_session_free(s); }

static const char *fill(const char *tmpl)
{
    size_t n = 0, tlen = strlen(table);
    while (*tmpl != '\0' && n + tlen + 1 < sizeof(sql)) {
        if (strncmp(tmpl, "{t}", 3) == 0) {
            memcpy(sql + n, table, tlen);
            n += tlen;
            tmpl += 3;
        } else {
            sql[n++] = *tmpl++;
        }
    }
    sql[n] = '\0';
    return sql;
}

static int64_t version_of_table(void)
{
    io_store *store = NULL;
    delta_snapshot *snap = NULL;
    silt_error e = SILT_ERROR_INIT;
    int64_t v = -1;
    if (io_store_open(&store, path, 0, &e) == SILT_OK &&
        delta_snapshot_load(&snap, store, -1, &e) == SILT_OK)
        v = snap->version;
    delta_snapshot_free(snap);
    io_store_free(store);
    return v;
}

/* A fingerprint of the rows: count, sums and a string length, as one LONG. */
static int64_t fingerprint(void)
{
    sql_result *res = NULL;
    col_batch *batch = NULL;
    int64_t v = -1;
    hook.fail_nth = 0;
    check_ok(sql_execute(s, fill("SELECT count(*) * 1000003 + sum(id) * 101 + sum(length(s)) "
                                 "* 7 + sum(p) FROM {t}"),
                         &res, &err),
             &err);
    if (res != NULL && sql_result_next(res, &batch, &err) == SILT_OK && batch != NULL &&
        batch->n_rows == 1)
        v = ((const int64_t *)batch->cols[0]->values)[0];
    sql_result_free(res);
    return v;
}

static void setup_table(void)
{
    hook.fail_nth = 0;
    check_ok(sql_execute(s, fill("CREATE TABLE {t} USING DELTA PARTITIONED BY (p) AS SELECT id, "
                                 "concat('s', CAST(id AS STRING)) AS s, id % 3 AS p FROM "
                                 "range(30)"),
                         NULL, &err),
             &err);
    check_ok(sql_execute(s, fill("INSERT INTO {t} SELECT id, 'more', id % 3 FROM range(100, 110)"),
                         NULL, &err),
             &err);
}

/*
 * Fails the 1st, 2nd, ... write of `stmt` until it succeeds; each failure leaves the table
 * as before. Returns the number of failed attempts.
 */
static long fail_each_write(const char *stmt)
{
    int64_t version = version_of_table();
    int64_t rows = version >= 0 ? fingerprint() : -1;
    long nth;
    silt_status rc = SILT_IO;
    for (nth = 1; nth < 200; nth++) {
        hook.fail_nth = nth;
        err_clear(&err);
        rc = sql_execute(s, fill(stmt), NULL, &err);
        hook.fail_nth = 0;
        if (rc == SILT_OK)
            break;
        check_int(SILT_IO, rc);
        check(err.message[0] != '\0');
        check_int(version, version_of_table());
        if (version >= 0)
            check(rows == fingerprint());
    }
    check_int(SILT_OK, rc);
    check_int(version + 1, version_of_table());
    return nth - 1;
}

void test_sql_write_fault__insert(void)
{
    setup_table();
    /* three partitions: three data files, then the commit */
    check(fail_each_write("INSERT INTO {t} SELECT id, 'x', id % 3 FROM range(200, 210)") >= 4);
}

void test_sql_write_fault__ctas(void)
{
    long failed = fail_each_write("CREATE TABLE {t} USING DELTA PARTITIONED BY (p) AS SELECT id, "
                                  "'c' AS s, id % 2 AS p FROM range(10)");
    check(failed >= 3);
    check_int(0, version_of_table());
}

void test_sql_write_fault__update(void)
{
    setup_table();
    check(fail_each_write("UPDATE {t} SET s = 'u' WHERE id % 2 = 0") >= 4);
}

void test_sql_write_fault__delete(void)
{
    setup_table();
    check(fail_each_write("DELETE FROM {t} WHERE id % 5 = 0") >= 4);
}

void test_sql_write_fault__merge(void)
{
    setup_table();
    check(fail_each_write("MERGE INTO {t} t USING (SELECT id, 'm' AS s, id % 3 AS p FROM "
                          "range(25, 35)) src ON t.id = src.id WHEN MATCHED THEN UPDATE SET * "
                          "WHEN NOT MATCHED THEN INSERT *") >= 4);
}

void test_sql_write_fault__restore(void)
{
    setup_table();
    hook.fail_nth = 0;
    check_ok(sql_execute(s, fill("DELETE FROM {t}"), NULL, &err), &err);
    check(fail_each_write("RESTORE TABLE {t} TO VERSION AS OF 1") >= 1);
    check_int(40, fingerprint() / 1000003);
}

void test_sql_write_fault__replace_where(void)
{
    setup_table();
    check(fail_each_write("INSERT INTO {t} REPLACE WHERE p = 1 SELECT id, 'r', 1 FROM "
                          "range(500, 505)") >= 2);
}

/* Counts what is left under dir (files and folders), not following links. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        char child[2048];
        struct stat st;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        snprintf(child, sizeof(child), "%s/%s", dir, e->d_name);
        if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
            n += count_entries(child);
    }
    closedir(d);
    return n;
}

void test_sql_write_fault__drop_managed_table_leaves_no_folder(void)
{
    sql_session *ws = NULL;
    sql_session_options so = SQL_SESSION_OPTIONS_INIT;
    char wh[1024], tdir[1200], keep[1200];
    FILE *f;
    struct stat st;
    snprintf(wh, sizeof(wh), "%s/wh", test_tmpdir());
    check(mkdir(wh, 0755) == 0);
    so.warehouse = wh;
    check_ok(sql_session_new(&ws, &so, &err), &err);
    check_ok(sql_execute(ws, "CREATE TABLE m USING DELTA PARTITIONED BY (p) AS SELECT id, id % 4 "
                             "AS p FROM range(40)", NULL, &err), &err);
    check_ok(sql_execute(ws, "DELETE FROM m WHERE p = 1", NULL, &err), &err);
    /* a file next to the table folder must survive the drop */
    snprintf(keep, sizeof(keep), "%s/keep.txt", wh);
    f = fopen(keep, "w");
    check(f != NULL);
    if (f != NULL)
        fclose(f);
    snprintf(tdir, sizeof(tdir), "%s/m", wh);
    if (stat(tdir, &st) != 0) /* the managed folder's name is the catalog's choice */
        snprintf(tdir, sizeof(tdir), "%s/default.db/m", wh);
    check(count_entries(tdir) > 4);
    check_ok(sql_execute(ws, "DROP TABLE m", NULL, &err), &err);
    check(stat(tdir, &st) != 0);
    check(stat(keep, &st) == 0);
    sql_session_free(ws);
}

void test_sql_write_fault__replace_where_data_column(void)
{
    setup_table();
    /* rows with id < 5 sit in every partition's first file: three rewrites, the new rows */
    check(fail_each_write("INSERT INTO {t} REPLACE WHERE id < 5 SELECT id, 'r', id % 3 FROM "
                          "range(0, 3)") >= 4);
}
