/*
 * Tests of include/silt/write.h: Arrow streams written into Delta tables
 * with Spark's save modes and options. The input streams come from silt's
 * own SQL results (silt_conn_exec), wrapped to count every release and to
 * inject producer failures and malformed batches; results are checked with
 * SQL (rows, schema, DESCRIBE HISTORY).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "silt.h"
#include "test.h"
#include "util/mem.h"

/* silt_text_fn: appends the formatted text to the FILE *payload. */
static int to_file(void *payload, const char *text, size_t len)
{
    return fwrite(text, 1, len, (FILE *)payload) == len ? 0 : 1;
}

static silt_db *db;
static silt_conn *conn;

void test_api_write__initialize(void)
{
    db = NULL;
    conn = NULL;
}

void test_api_write__cleanup(void)
{
    silt_conn_close(conn);
    silt_db_close(db);
}

static void open_conn(const char *warehouse)
{
    check_int(SILT_OK, silt_db_open(&db, warehouse, NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
}

/* ---- a stream wrapper that counts releases and can misbehave ---------------- */

typedef struct counter {
    struct ArrowArrayStream inner;
    int stream_releases, schema_releases, arrays_out, array_releases;
    int fail_at;     /* get_next call (0-based) that fails with EIO, -1 none */
    int corrupt_at;  /* batch (0-based) handed out with a negative length, -1 none */
    int calls;
} counter;

typedef struct array_wrap {
    void (*release)(struct ArrowArray *);
    void *private_data;
    counter *c;
} array_wrap;

typedef struct schema_wrap {
    void (*release)(struct ArrowSchema *);
    void *private_data;
    counter *c;
} schema_wrap;

static void counted_array_release(struct ArrowArray *a)
{
    array_wrap *w = a->private_data;
    w->c->array_releases++;
    a->release = w->release;
    a->private_data = w->private_data;
    mem_free(w);
    if (a->length < 0)
        a->length = 0;
    a->release(a);
}

static void counted_schema_release(struct ArrowSchema *s)
{
    schema_wrap *w = s->private_data;
    w->c->schema_releases++;
    s->release = w->release;
    s->private_data = w->private_data;
    mem_free(w);
    s->release(s);
}

static int counted_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    counter *c = s->private_data;
    schema_wrap *w;
    int rc = c->inner.get_schema(&c->inner, out);
    if (rc != 0)
        return rc;
    w = mem_alloc(sizeof(*w));
    w->release = out->release;
    w->private_data = out->private_data;
    w->c = c;
    out->release = counted_schema_release;
    out->private_data = w;
    return 0;
}

static int counted_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    counter *c = s->private_data;
    array_wrap *w;
    int call = c->calls++, rc;
    if (call == c->fail_at)
        return 5; /* EIO */
    rc = c->inner.get_next(&c->inner, out);
    if (rc != 0 || out->release == NULL)
        return rc;
    w = mem_alloc(sizeof(*w));
    w->release = out->release;
    w->private_data = out->private_data;
    w->c = c;
    out->release = counted_array_release;
    out->private_data = w;
    if (c->arrays_out++ == c->corrupt_at)
        out->length = -3;
    return 0;
}

static const char *counted_last_error(struct ArrowArrayStream *s)
{
    counter *c = s->private_data;
    return c->calls - 1 == c->fail_at ? "the producer's disk went away" : NULL;
}

static void counted_release(struct ArrowArrayStream *s)
{
    counter *c = s->private_data;
    c->stream_releases++;
    c->inner.release(&c->inner);
    s->release = NULL;
}

/* A counted stream of the rows of sql. */
static void stream_of(counter *c, struct ArrowArrayStream *out, const char *sql)
{
    memset(c, 0, sizeof(*c));
    c->fail_at = -1;
    c->corrupt_at = -1;
    check_int(SILT_OK, silt_conn_exec(conn, sql, &c->inner));
    out->get_schema = counted_get_schema;
    out->get_next = counted_get_next;
    out->get_last_error = counted_last_error;
    out->release = counted_release;
    out->private_data = c;
}

/* Every release happened exactly once. */
static void check_released(const counter *c)
{
    check_int(1, c->stream_releases);
    check(c->schema_releases <= 1);
    check_int(c->arrays_out, c->array_releases);
}

static silt_status write_sql(const char *target, const char *sql, const silt_write_options *o)
{
    counter c;
    struct ArrowArrayStream s;
    silt_status rc;
    stream_of(&c, &s, sql);
    rc = silt_conn_write_arrow(conn, target, &s, o);
    check_released(&c);
    return rc;
}

/* The rows of a query as CSV text (static buffer). */
static const char *rows_of(const char *sql)
{
    static char text[16384];
    silt_output_options po = SILT_OUTPUT_OPTIONS_INIT;
    char *mem_text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&mem_text, &len);
    silt_status rc;
    po.format = SILT_OUTPUT_CSV;
    rc = silt_conn_format(conn, sql, &po, to_file, mem);
    fclose(mem);
    snprintf(text, sizeof(text), "%s", rc == SILT_OK ? mem_text : silt_conn_errmsg(conn));
    free(mem_text); /* open_memstream's buffer is the C library's */
    return text;
}

static const char *path_in(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), name);
    return path;
}

/* ---- tests ------------------------------------------------------------------ */

void test_api_write__save_modes_on_a_path(void)
{
    char q[8192], target[4096];
    silt_write_options o = SILT_WRITE_OPTIONS_INIT;
    open_conn(NULL);
    snprintf(target, sizeof(target), "%s", path_in("t"));
    /* The default mode creates the table (history: WRITE, mode ErrorIfExists, as save()). */
    check_int(SILT_OK, write_sql(target, "SELECT id, CAST(id AS STRING) AS s FROM range(5)", &o));
    snprintf(q, sizeof(q), "SELECT count(*), sum(id) FROM delta.`%s`", target);
    check_str("count(1),sum(id)\n5,10\n", rows_of(q));
    /* ... and refuses a second write, reading nothing. */
    check_int(SILT_EXISTS, write_sql(target, "SELECT id, 'x' AS s FROM range(3)", &o));
    check_contains(silt_conn_errmsg(conn), "[DELTA_TABLE_ALREADY_EXISTS]");
    o.mode = SILT_SAVE_IGNORE;
    check_int(SILT_OK, write_sql(target, "SELECT id, 'x' AS s FROM range(3)", &o));
    check_str("count(1),sum(id)\n5,10\n", rows_of(q));
    /* Append matches columns by name; a missing nullable column is written as null. */
    o.mode = SILT_SAVE_APPEND;
    check_int(SILT_OK, write_sql(target, "SELECT 'y' AS s, id + 100 AS id FROM range(2)", &o));
    check_int(SILT_OK, write_sql(target, "SELECT 7 AS id", &o));
    snprintf(q, sizeof(q), "SELECT id, s FROM delta.`%s` WHERE id > 4 ORDER BY id", target);
    check_str("id,s\n7,\n100,y\n101,y\n", rows_of(q));
    /* Overwrite replaces everything. */
    o.mode = SILT_SAVE_OVERWRITE;
    check_int(SILT_OK, write_sql(target, "SELECT 42L AS id, 'z' AS s", &o));
    snprintf(q, sizeof(q), "SELECT * FROM delta.`%s`", target);
    check_str("id,s\n42,z\n", rows_of(q));
    {
        const char *h;
        snprintf(q, sizeof(q), "DESCRIBE HISTORY delta.`%s`", target);
        h = rows_of(q);
        /* Spark's df.write.save(path) to a new path: WRITE {mode: ErrorIfExists, partitionBy} */
        check_contains(h, "\n0,");
        check_contains(h, ",WRITE,\"[[\"\"mode\"\",\"\"ErrorIfExists\"\"],[\"\"partitionBy\"\","
                          "\"\"[]\"\"]]\"");
        check(strstr(h, "CREATE TABLE AS SELECT") == NULL);
        check_contains(h, "\"\"Append\"\"");
        check_contains(h, "\"\"Overwrite\"\"");
        check_contains(h, "numOutputRows");
    }
}

/* The history line of version v (CSV), "" when absent. */
static const char *history_line(const char *table_sql, int version)
{
    static char line[8192];
    char q[8192], head[32];
    const char *h, *at;
    snprintf(q, sizeof(q), "DESCRIBE HISTORY %s", table_sql);
    h = rows_of(q);
    snprintf(head, sizeof(head), "\n%d,", version);
    at = strstr(h, head);
    line[0] = '\0';
    if (at != NULL)
        snprintf(line, sizeof(line), "%.*s", (int)strcspn(at + 1, "\n"), at + 1);
    return line;
}

/*
 * History names of the DataFrameWriter (checked against Spark 4.1 + Delta
 * 4.1's commits of the same df.write calls, and ../shared/conformance): a
 * partitioned new path table, an overwriteSchema replace, saveAsTable, and
 * userMetadata.
 */
void test_api_write__history_names_follow_the_dataframe_writer(void)
{
    char target[4096], tsql[4200], wh[4096];
    const char *const parts[] = {"p"};
    silt_write_options o = SILT_WRITE_OPTIONS_INIT;
    const char *line;
    snprintf(wh, sizeof(wh), "%s", path_in("wh"));
    check_int(0, mkdir(wh, 0755));
    open_conn(wh);
    snprintf(target, sizeof(target), "%s", path_in("parted"));
    snprintf(tsql, sizeof(tsql), "delta.`%s`", target);
    o.partition_by = parts;
    o.n_partition_by = 1;
    o.user_metadata = "first load";
    check_int(SILT_OK, write_sql(target, "SELECT id, id % 2 AS p FROM range(4)", &o));
    line = history_line(tsql, 0);
    check_contains(line, ",WRITE,\"[[\"\"mode\"\",\"\"ErrorIfExists\"\"],[\"\"partitionBy\"\","
                         "\"\"[\\\"\"p\\\"\"]\"\"]]\"");
    check_contains(line, ",first load,");
    check_contains(line, "numFiles");
    /* Spark's userMetadata goes with this write only: the next SQL INSERT has none. */
    {
        char q[8300];
        snprintf(q, sizeof(q), "INSERT INTO %s SELECT 9L, 1L", tsql);
        check_int(SILT_OK, silt_conn_exec(conn, q, NULL));
        check(strstr(history_line(tsql, 1), "first load") == NULL);
        /* ... while the session conf applies to SQL writes, as in Spark. */
        check_int(SILT_OK, silt_conn_exec(conn, "SET spark.databricks.delta.commitInfo."
                                                "userMetadata = nightly", NULL));
        check_int(SILT_OK, silt_conn_exec(conn, q, NULL));
        check_contains(history_line(tsql, 2), ",nightly,");
        check_int(SILT_OK, silt_conn_exec(conn, "RESET spark.databricks.delta.commitInfo."
                                                "userMetadata", NULL));
    }
    /* overwriteSchema: Spark records WRITE {mode: Overwrite, partitionBy}. */
    o.mode = SILT_SAVE_OVERWRITE;
    o.overwrite_schema = 1;
    o.n_partition_by = 0;
    o.user_metadata = NULL;
    check_int(SILT_OK, write_sql(target, "SELECT 'x' AS s", &o));
    line = history_line(tsql, 3);
    check_contains(line, ",WRITE,\"[[\"\"canOverwriteSchema\"\",\"\"true\"\"],[\"\"mode\"\","
                         "\"\"Overwrite\"\"],[\"\"partitionBy\"\",\"\"[]\"\"]]\"");
    check_contains(line, "numRemovedFiles");
    check(strstr(line, "CREATE OR REPLACE") == NULL);
    /* The settings were put back: a SQL CTAS keeps its own name. */
    {
        char q[8300];
        snprintf(q, sizeof(q), "CREATE TABLE delta.`%s` AS SELECT 1 AS x", path_in("sqlctas"));
        check_int(SILT_OK, silt_conn_exec(conn, q, NULL));
        snprintf(tsql, sizeof(tsql), "delta.`%s`", path_in("sqlctas"));
        check_contains(history_line(tsql, 0), ",CREATE TABLE AS SELECT,");
    }
    /* saveAsTable of a new name: CREATE TABLE AS SELECT, as Spark records it. */
    o.mode = SILT_SAVE_ERROR_IF_EXISTS;
    o.overwrite_schema = 0;
    check_int(SILT_OK, write_sql("named", "SELECT 1L AS id", &o));
    check_contains(history_line("named", 0), ",CREATE TABLE AS SELECT,");
    /* Options of version 1 have no user_metadata field: it is not read. */
    o.version = 1;
    o.mode = SILT_SAVE_APPEND;
    o.user_metadata = "not read";
    check_int(SILT_OK, write_sql("named", "SELECT 2L AS id", &o));
    check(strstr(history_line("named", 1), "not read") == NULL);
}

void test_api_write__schema_enforcement_and_merge_schema(void)
{
    char q[8192], sql_msg[4096], target[4096];
    silt_write_options o = SILT_WRITE_OPTIONS_INIT;
    open_conn(NULL);
    snprintf(target, sizeof(target), "%s", path_in("t"));
    check_int(SILT_OK, write_sql(target, "SELECT id, 'a' AS s FROM range(3)", &o));
    o.mode = SILT_SAVE_APPEND;
    /* A new column is refused with the message SQL's INSERT BY NAME gives. */
    snprintf(q, sizeof(q), "INSERT INTO delta.`%s` BY NAME SELECT 9L AS id, 'b' AS s, 1.5 AS "
             "extra", target);
    check(silt_conn_exec(conn, q, NULL) != SILT_OK);
    snprintf(sql_msg, sizeof(sql_msg), "%s", silt_conn_errmsg(conn));
    check_int(SILT_INVALID,
              write_sql(target, "SELECT 9L AS id, 'b' AS s, 1.5 AS extra", &o));
    check_contains(silt_conn_errmsg(conn), "schema mismatch");
    {
        /* The same first line as SQL's (the context lines differ). */
        char first[512];
        size_t n = strcspn(sql_msg, "\n");
        snprintf(first, sizeof(first), "%.*s", (int)(n < 500 ? n : 500), sql_msg);
        check_contains(silt_conn_errmsg(conn), first);
    }
    /* An incompatible type is refused too. */
    check(write_sql(target, "SELECT 'nope' AS id", &o) != SILT_OK);
    /* With mergeSchema the column is added at the end; old rows read null. */
    o.merge_schema = 1;
    check_int(SILT_OK, write_sql(target, "SELECT 1.5 AS extra, 9L AS id, 'b' AS s", &o));
    snprintf(q, sizeof(q), "SELECT * FROM delta.`%s` ORDER BY id", target);
    check_str("id,s,extra\n0,a,\n1,a,\n2,a,\n9,b,1.5\n", rows_of(q));
}

void test_api_write__overwrite_options_and_partitions(void)
{
    char q[8192], target[4096];
    silt_write_options o = SILT_WRITE_OPTIONS_INIT;
    const char *parts[] = {"p"};
    const char *other[] = {"s"};
    open_conn(NULL);
    snprintf(target, sizeof(target), "%s", path_in("t"));
    o.partition_by = parts;
    o.n_partition_by = 1;
    check_int(SILT_OK, write_sql(target, "SELECT id, id % 3 AS p FROM range(9)", &o));
    snprintf(q, sizeof(q), "DESCRIBE DETAIL delta.`%s`", target);
    check_contains(rows_of(q), "\"[\"\"p\"\"]\"");
    /* A different partitioning is refused for an existing table. */
    o.mode = SILT_SAVE_APPEND;
    o.partition_by = other;
    check_int(SILT_INVALID, write_sql(target, "SELECT 1L AS id, 1L AS p", &o));
    check_contains(silt_conn_errmsg(conn), "Partition columns do not match");
    o.partition_by = parts;
    /* Dynamic partition overwrite replaces only p = 1. */
    o.mode = SILT_SAVE_OVERWRITE;
    o.partition_overwrite_mode = "dynamic";
    check_int(SILT_OK, write_sql(target, "SELECT 100L AS id, 1L AS p", &o));
    snprintf(q, sizeof(q), "SELECT p, count(*), max(id) FROM delta.`%s` GROUP BY p ORDER BY p",
             target);
    check_str("p,count(1),max(id)\n0,3,6\n1,1,100\n2,3,8\n", rows_of(q));
    /* The connection's own setting is back to unset afterwards. */
    check_contains(rows_of("SET spark.sql.sources.partitionOverwriteMode"), "<undefined>");
    /* replaceWhere replaces the rows it selects; rows outside it are refused. */
    o.partition_overwrite_mode = NULL;
    o.replace_where = "p = 2";
    check_int(SILT_OK, write_sql(target, "SELECT 200L AS id, 2L AS p", &o));
    check_str("p,count(1),max(id)\n0,3,6\n1,1,100\n2,1,200\n", rows_of(q));
    check_int(SILT_RUNTIME, write_sql(target, "SELECT 300L AS id, 0L AS p", &o));
    check_contains(silt_conn_errmsg(conn), "DELTA_REPLACE_WHERE_MISMATCH");
    /* A predicate cannot carry a second statement. */
    o.replace_where = "p = 2 SELECT 1; DROP TABLE x; INSERT INTO y";
    check(write_sql(target, "SELECT 200L AS id, 2L AS p", &o) != SILT_OK);
    check_contains(silt_conn_errmsg(conn), "not several statements");
    o.replace_where = "p = = 2";
    check_int(SILT_PARSE, write_sql(target, "SELECT 200L AS id, 2L AS p", &o));
    check_contains(silt_conn_errmsg(conn), "REPLACE WHERE p = = 2");
    /* overwriteSchema: new schema and partitioning. */
    o.replace_where = NULL;
    o.overwrite_schema = 1;
    o.partition_by = other;
    check_int(SILT_OK, write_sql(target, "SELECT 'k' AS s, 1.0D AS v", &o));
    snprintf(q, sizeof(q), "SELECT * FROM delta.`%s`", target);
    check_str("s,v\nk,1.0\n", rows_of(q));
    snprintf(q, sizeof(q), "DESCRIBE DETAIL delta.`%s`", target);
    check_contains(rows_of(q), "\"[\"\"s\"\"]\"");
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows of a query as CSV lines, sorted, joined (row order is not part of a table). */
static char *sorted_rows(const char *sql)
{
    silt_output_options po = SILT_OUTPUT_OPTIONS_INIT;
    char *text = NULL, **lines, *out, *line, *save = NULL;
    size_t len = 0, n = 0, idx, pos = 0;
    FILE *mem = open_memstream(&text, &len);
    po.format = SILT_OUTPUT_CSV;
    po.max_rows = 1000000;
    check_int(SILT_OK, silt_conn_format(conn, sql, &po, to_file, mem));
    fclose(mem);
    lines = mem_alloc((len + 1) * sizeof(char *));
    out = mem_alloc(len + 2);
    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
        lines[n++] = line;
    qsort(lines, n, sizeof(char *), cmp_line);
    for (idx = 0; idx < n; idx++)
        pos += (size_t)snprintf(out + pos, len + 2 - pos, "%s\n", lines[idx]);
    out[pos] = '\0';
    mem_free(lines);
    free(text); /* open_memstream's buffer is the C library's */
    return out;
}

/* Tables of every Delta type (nested ones included), written and read back unchanged. */
static void round_trip(const char *table)
{
    char q[8192], target[4096], src[4096];
    char *want, *got;
    silt_write_options o = SILT_WRITE_OPTIONS_INIT;
    snprintf(src, sizeof(src), "delta.`%s/conformance/tables/%s`", test_shared_dir(), table);
    snprintf(target, sizeof(target), "%s", path_in(table));
    snprintf(q, sizeof(q), "SELECT * FROM %s", src);
    check_int(SILT_OK, write_sql(target, q, &o));
    want = sorted_rows(q);
    snprintf(q, sizeof(q), "SELECT * FROM delta.`%s`", target);
    got = sorted_rows(q);
    check(strlen(want) > 100);
    check_str(want, got);
    mem_free(want);
    mem_free(got);
    snprintf(q, sizeof(q), "DESCRIBE %s", src);
    want = sorted_rows(q);
    snprintf(q, sizeof(q), "DESCRIBE delta.`%s`", target);
    got = sorted_rows(q);
    check_str(want, got);
    mem_free(want);
    mem_free(got);
}

void test_api_write__every_type_round_trips(void)
{
    open_conn(NULL);
    round_trip("parquet-all-types");
    round_trip("data-reader-map");
    round_trip("data-reader-nested-struct");
    round_trip("data-reader-primitives");
}

void test_api_write__big_batches_are_split(void)
{
    char q[8192], target[4096];
    silt_write_options o = SILT_WRITE_OPTIONS_INIT;
    open_conn(NULL);
    snprintf(target, sizeof(target), "%s", path_in("t"));
    /* One Arrow batch far larger than the engine's batches. */
    check_int(SILT_OK, write_sql(target, "SELECT * FROM (SELECT id, id % 7 AS g FROM "
                                          "range(20000)) ORDER BY id", &o));
    snprintf(q, sizeof(q), "SELECT count(*), sum(id), count(DISTINCT g) FROM delta.`%s`",
             target);
    check_str("count(1),sum(id),count(DISTINCT g)\n20000,199990000,7\n", rows_of(q));
}

void test_api_write__catalog_table_by_name(void)
{
    char wh[4096];
    silt_write_options o = SILT_WRITE_OPTIONS_INIT;
    snprintf(wh, sizeof(wh), "%s", path_in("wh"));
    check_int(0, mkdir(wh, 0755));
    open_conn(wh);
    check_int(SILT_OK, write_sql("events", "SELECT id FROM range(4)", &o));
    check_str("count(1)\n4\n", rows_of("SELECT count(*) FROM events"));
    check_contains(rows_of("DESCRIBE EXTENDED default.events"), "MANAGED");
    o.mode = SILT_SAVE_APPEND;
    check_int(SILT_OK, write_sql("default.events", "SELECT 10L AS id", &o));
    check_str("count(1)\n5\n", rows_of("SELECT count(*) FROM events"));
    check_int(SILT_NOTFOUND, write_sql("nodb.events", "SELECT 10L AS id", &o));
    check_contains(silt_conn_errmsg(conn), "nodb");
    check_int(SILT_INVALID, write_sql("a.b.c", "SELECT 1 AS id", &o));
    check_contains(silt_conn_errmsg(conn), "neither a path");
}

void test_api_write__stream_failures_leave_the_table_unchanged(void)
{
    char q[8192], target[4096];
    silt_write_options o = SILT_WRITE_OPTIONS_INIT;
    counter c;
    struct ArrowArrayStream s;
    open_conn(NULL);
    snprintf(target, sizeof(target), "%s", path_in("t"));
    check_int(SILT_OK, write_sql(target, "SELECT id FROM range(3)", &o));
    o.mode = SILT_SAVE_APPEND;
    snprintf(q, sizeof(q), "SELECT count(*) FROM delta.`%s`", target);
    /* The producer fails on its second batch. */
    stream_of(&c, &s, "SELECT id FROM range(5000) UNION ALL SELECT id FROM range(5)");
    c.fail_at = 1;
    check_int(SILT_IO, silt_conn_write_arrow(conn, target, &s, &o));
    check_released(&c);
    check_contains(silt_conn_errmsg(conn), "the producer's disk went away");
    check_str("count(1)\n3\n", rows_of(q));
    /* A malformed batch. */
    stream_of(&c, &s, "SELECT id FROM range(10)");
    c.corrupt_at = 0;
    check_int(SILT_INVALID, silt_conn_write_arrow(conn, target, &s, &o));
    check_released(&c);
    check_contains(silt_conn_errmsg(conn), "negative length");
    check_str("count(1)\n3\n", rows_of(q));
    snprintf(q, sizeof(q), "DESCRIBE DETAIL delta.`%s`", target);
    /* An Arrow type Delta has no place for: refused before anything is read. */
    stream_of(&c, &s, "SELECT NULL AS n");
    check_int(SILT_UNSUPPORTED, silt_conn_write_arrow(conn, target, &s, &o));
    check_released(&c);
    check_int(0, c.arrays_out);
    /* Misuse: the stream is still released. */
    stream_of(&c, &s, "SELECT 1 AS id");
    check_int(SILT_INVALID, silt_conn_write_arrow(conn, NULL, &s, &o));
    check_released(&c);
    stream_of(&c, &s, "SELECT 1 AS id");
    o.replace_where = "id = 1"; /* with append */
    check_int(SILT_INVALID, silt_conn_write_arrow(conn, target, &s, &o));
    check_released(&c);
    check_contains(silt_conn_errmsg(conn), "mode overwrite only");
    o.replace_where = NULL;
    stream_of(&c, &s, "SELECT 1 AS id");
    o.version = 99;
    check_int(SILT_INVALID, silt_conn_write_arrow(conn, target, &s, &o));
    check_released(&c);
    check_int(SILT_INVALID, silt_conn_write_arrow(conn, target, NULL, NULL));
    check_int(SILT_INVALID, silt_conn_write_arrow(NULL, target, NULL, NULL));
    snprintf(q, sizeof(q), "SELECT count(*) FROM delta.`%s`", target);
    check_str("count(1)\n3\n", rows_of(q));
}

void test_api_write__save_mode_names(void)
{
    silt_save_mode m = SILT_SAVE_APPEND;
    check_int(SILT_OK, silt_save_mode_parse("ErrorIfExists", &m));
    check_int(SILT_SAVE_ERROR_IF_EXISTS, m);
    check_int(SILT_OK, silt_save_mode_parse("append", &m));
    check_int(SILT_SAVE_APPEND, m);
    check_int(SILT_OK, silt_save_mode_parse("OVERWRITE", &m));
    check_int(SILT_SAVE_OVERWRITE, m);
    check_int(SILT_OK, silt_save_mode_parse("ignore", &m));
    check_int(SILT_SAVE_IGNORE, m);
    check_int(SILT_OK, silt_save_mode_parse("default", &m));
    check_int(SILT_SAVE_ERROR_IF_EXISTS, m);
    check_int(SILT_INVALID, silt_save_mode_parse("upsert", &m));
}

/* silt_write_options as options version 1 laid it out: everything before user_metadata. */
typedef struct write_options_v1 {
    unsigned version;
    silt_save_mode mode;
    int merge_schema;
    int overwrite_schema;
    const char *replace_where;
    const char *partition_overwrite_mode;
    const char *const *partition_by;
    size_t n_partition_by;
} write_options_v1;

void test_api_write__old_options_struct_is_accepted(void)
{
    /* On the heap and exactly this size, so that a read past it is an ASan error. */
    write_options_v1 *v1 = calloc(1, sizeof(*v1));
    char q[4200];
    check(v1 != NULL);
    check(sizeof(*v1) < sizeof(silt_write_options));
    open_conn(NULL);
    v1->version = 1;
    v1->mode = SILT_SAVE_APPEND;
    check_int(SILT_OK, write_sql(path_in("old"), "SELECT 1L AS id", (const silt_write_options *)v1));
    check_int(SILT_OK, write_sql(path_in("old"), "SELECT 2L AS id", (const silt_write_options *)v1));
    snprintf(q, sizeof(q), "SELECT count(*), max(id) FROM delta.`%s`", path_in("old"));
    check_str("count(1),max(id)\n2,2\n", rows_of(q));
    /* The newer field took its default: no userMetadata in the history. */
    snprintf(q, sizeof(q), "DESCRIBE HISTORY delta.`%s`", path_in("old"));
    check(strstr(rows_of(q), "first") == NULL);
    v1->version = 0;
    check_int(SILT_INVALID, write_sql(path_in("old"), "SELECT 3L AS id",
                                      (const silt_write_options *)v1));
    check_contains(silt_conn_errmsg(conn), "write options have version 0; this library takes "
                                           "versions 1 to 4");
    free(v1);
}

/* Data files of the table at dir whose names end in suffix. */
static int files_ending(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    size_t ls = strlen(suffix);
    check(d != NULL);
    while (d != NULL && (e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "part-", 5) == 0 && l > ls && strcmp(e->d_name + l - ls, suffix) == 0)
            n++;
    }
    if (d != NULL)
        closedir(d);
    return n;
}

/* Spark's compression write option: this write's codec only; unknown names are refused. */
void test_api_write__compression_option(void)
{
    silt_write_options o = SILT_WRITE_OPTIONS_INIT;
    const char *dir = path_in("codec");
    open_conn(NULL);
    o.compression = "ZSTD";
    check_int(SILT_OK, write_sql(dir, "SELECT id FROM range(100)", &o));
    check_int(1, files_ending(dir, ".c000.zstd.parquet"));
    o.mode = SILT_SAVE_APPEND;
    o.compression = NULL; /* the connection's setting again: snappy */
    check_int(SILT_OK, write_sql(dir, "SELECT id FROM range(100)", &o));
    check_int(1, files_ending(dir, ".c000.snappy.parquet"));
    o.compression = "none";
    check_int(SILT_OK, write_sql(dir, "SELECT id FROM range(100)", &o));
    check_int(1, files_ending(dir, ".c000.parquet"));
    o.compression = "zip";
    check_int(SILT_INVALID, write_sql(dir, "SELECT id FROM range(100)", &o));
    check_contains(silt_conn_errmsg(conn), "[CODEC_NOT_AVAILABLE.WITH_AVAILABLE_CODECS_SUGGESTION] "
                                          "The codec zip is not available.");
    {
        char q[4200];
        snprintf(q, sizeof(q), "SELECT count(*) FROM delta.`%s`", dir);
        check_str("count(1)\n300\n", rows_of(q));
    }
}

/* Delta's txnAppId/txnVersion options: a txn action per write, a repeat skipped (Spark's). */
void test_api_write__idempotent_writes(void)
{
    silt_write_options o = SILT_WRITE_OPTIONS_INIT;
    const char *dir = path_in("idem");
    char q[4300];
    open_conn(NULL);
    o.txn_app_id = "loader";
    o.txn_version = 3;
    check_int(SILT_OK, write_sql(dir, "SELECT id FROM range(3)", &o));
    o.mode = SILT_SAVE_APPEND;
    check_int(SILT_OK, write_sql(dir, "SELECT id FROM range(3)", &o)); /* skipped */
    snprintf(q, sizeof(q), "SELECT count(*) FROM delta.`%s`", dir);
    check_str("count(1)\n3\n", rows_of(q));
    o.txn_version = 4;
    check_int(SILT_OK, write_sql(dir, "SELECT id FROM range(2)", &o));
    check_str("count(1)\n5\n", rows_of(q));
    snprintf(q, sizeof(q), "SELECT txn.appId, txn.version FROM json.`%s/_delta_log/` WHERE txn IS "
             "NOT NULL ORDER BY 2", dir);
    check_str("appId,version\nloader,3\nloader,4\n", rows_of(q));
    /* the options win over the connection's settings, which apply without them */
    check_int(SILT_OK, silt_conn_exec(conn, "SET spark.databricks.delta.write.txnAppId = loader; "
                                            "SET spark.databricks.delta.write.txnVersion = 4",
                                      NULL));
    o.txn_app_id = NULL;
    o.txn_version = 0;
    check_int(SILT_OK, write_sql(dir, "SELECT id FROM range(2)", &o)); /* skipped: (loader, 4) */
    snprintf(q, sizeof(q), "SELECT count(*) FROM delta.`%s`", dir);
    check_str("count(1)\n5\n", rows_of(q));
    o.txn_version = 9; /* a version without an appId is Delta's error */
    check_int(SILT_INVALID, write_sql(dir, "SELECT id FROM range(2)", &o));
    check_contains(silt_conn_errmsg(conn), "[DELTA_INVALID_IDEMPOTENT_WRITES_OPTIONS]");
}
