/*
 * Tests of silt_conn_register_arrow (include/silt/stmt.h): a caller's
 * Arrow C stream queried by name, joined with a Delta table; who releases
 * the stream and when; a second scan of the one-shot stream refused by
 * name; EXPLAIN and DESCRIBE not consuming it.
 *
 * The producer here is a small hand-written one (two BIGINT columns k and
 * w = k * 3, in batches), counting its releases; a second test feeds the
 * stream of another connection's query (strings included).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "silt.h"
#include "test.h"

static silt_db *db;
static silt_conn *conn;
static char table[4096];

/* ---- a producer of (k BIGINT, w BIGINT) in n_batches batches of `rows` rows */

typedef struct producer {
    int64_t n_batches, rows, next_batch;
    int stream_releases;
    int arrays_out; /* arrays handed out and not released yet */
} producer;

typedef struct batch_data {
    int64_t *cols[2];
    struct ArrowArray children[2];
    struct ArrowArray *child_ptrs[2];
    const void *buffers[2][2];
    const void *top_buffers[1];
    producer *p;
} batch_data;

static void schema_release(struct ArrowSchema *s)
{
    int64_t idx;
    for (idx = 0; idx < s->n_children; idx++)
        free(s->children[idx]);
    free(s->children);
    s->release = NULL;
}

static void child_schema_release(struct ArrowSchema *s) { s->release = NULL; }

static int prod_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out)
{
    static const char *const names[2] = {"k", "w"};
    int idx;
    (void)st;
    memset(out, 0, sizeof(*out));
    out->format = "+s";
    out->name = "";
    out->n_children = 2;
    out->children = calloc(2, sizeof(struct ArrowSchema *));
    for (idx = 0; idx < 2; idx++) {
        out->children[idx] = calloc(1, sizeof(struct ArrowSchema));
        out->children[idx]->format = "l";
        out->children[idx]->name = names[idx];
        out->children[idx]->flags = 2; /* nullable */
        out->children[idx]->release = child_schema_release;
    }
    out->release = schema_release;
    return 0;
}

static void child_array_release(struct ArrowArray *a) { a->release = NULL; }

static void array_release(struct ArrowArray *a)
{
    batch_data *d = a->private_data;
    d->p->arrays_out--;
    free(d->cols[0]);
    free(d->cols[1]);
    free(d);
    a->release = NULL;
}

static int prod_get_next(struct ArrowArrayStream *st, struct ArrowArray *out)
{
    producer *p = st->private_data;
    batch_data *d;
    int64_t row, col;
    memset(out, 0, sizeof(*out));
    if (p->next_batch == p->n_batches)
        return 0; /* the end: release stays NULL */
    d = calloc(1, sizeof(*d));
    d->p = p;
    for (col = 0; col < 2; col++) {
        d->cols[col] = malloc(sizeof(int64_t) * (size_t)p->rows);
        for (row = 0; row < p->rows; row++) {
            int64_t k = p->next_batch * p->rows + row;
            d->cols[col][row] = col == 0 ? k : k * 3;
        }
        d->buffers[col][0] = NULL;
        d->buffers[col][1] = d->cols[col];
        d->children[col].length = p->rows;
        d->children[col].n_buffers = 2;
        d->children[col].buffers = d->buffers[col];
        d->children[col].release = child_array_release;
        d->child_ptrs[col] = &d->children[col];
    }
    d->top_buffers[0] = NULL;
    out->length = p->rows;
    out->n_buffers = 1;
    out->buffers = d->top_buffers;
    out->n_children = 2;
    out->children = d->child_ptrs;
    out->release = array_release;
    out->private_data = d;
    p->next_batch++;
    p->arrays_out++;
    return 0;
}

static const char *prod_last_error(struct ArrowArrayStream *st)
{
    (void)st;
    return NULL;
}

static void prod_release(struct ArrowArrayStream *st)
{
    producer *p = st->private_data;
    p->stream_releases++;
    st->release = NULL;
}

static void make_stream(struct ArrowArrayStream *st, producer *p, int64_t n_batches,
                        int64_t rows)
{
    memset(p, 0, sizeof(*p));
    p->n_batches = n_batches;
    p->rows = rows;
    st->get_schema = prod_get_schema;
    st->get_next = prod_get_next;
    st->get_last_error = prod_last_error;
    st->release = prod_release;
    st->private_data = p;
}

/* ---- helpers */

void test_api_register__initialize(void)
{
    char sql[8192];
    check_int(SILT_OK, silt_db_open(&db, NULL, NULL));
    check_int(SILT_OK, silt_conn_open(&conn, db));
    snprintf(table, sizeof(table), "delta.`%s/t`", test_tmpdir());
    /* ids 0, 2, 4, ... 1998 with v = id + 1 */
    snprintf(sql, sizeof(sql), "CREATE TABLE %s AS SELECT id * 2 AS id, id * 2 + 1 AS v "
             "FROM range(1000)", table);
    check_int(SILT_OK, silt_conn_exec(conn, sql, NULL));
}

void test_api_register__cleanup(void)
{
    silt_conn_close(conn);
    silt_db_close(db);
}

/* Runs sql and checks its one row of n BIGINTs. */
static void check_row(const char *sql, int n, const int64_t *want)
{
    struct ArrowArrayStream stream;
    struct ArrowArray array;
    int col;
    if (silt_conn_exec(conn, sql, &stream) != SILT_OK)
        test_fail(__FILE__, __LINE__, "%s: %s", sql, silt_conn_errmsg(conn));
    if (stream.get_next(&stream, &array) != 0)
        test_fail(__FILE__, __LINE__, "%s: %s", sql, stream.get_last_error(&stream));
    check(array.release != NULL);
    check_int(1, array.length);
    for (col = 0; col < n; col++)
        check_int(want[col], ((const int64_t *)array.children[col]->buffers[1])[0]);
    array.release(&array);
    stream.release(&stream);
}

/* ---- tests */

void test_api_register__joined_with_a_delta_table(void)
{
    struct ArrowArrayStream st;
    producer p;
    char sql[8192];
    /* k = 0 .. 2999 in 3 batches of 1000 (the pieces of 2048 rows cross batch ends) */
    int64_t want[3] = {1000, 0, 0};
    int64_t k;
    make_stream(&st, &p, 3, 1000);
    check_int(SILT_OK, silt_conn_register_arrow(conn, "src", &st));
    check(st.release == NULL); /* moved into the library */
    check_int(0, p.stream_releases);
    /* table ids 0..1998 (even) meet k 0..2999: 1000 matches; sum(v + w) = sum(id + 1 + 3 id) */
    for (k = 0; k < 1000; k++) {
        want[1] += 2 * k + 1;
        want[2] += 3 * (2 * k);
    }
    snprintf(sql, sizeof(sql), "SELECT count(*), sum(t.v), sum(s.w) FROM %s t JOIN SRC s "
             "ON t.id = s.k", table);
    check_row(sql, 3, want);
    /* read to its end: released then, not at close */
    check_int(1, p.stream_releases);
    check_int(0, p.arrays_out);
    /* a second scan is refused by name */
    check_int(SILT_INVALID, silt_conn_exec(conn, "SELECT count(*) FROM src", NULL));
    check_contains(silt_conn_errmsg(conn), "the Arrow stream registered as `src` was read by an "
                                           "earlier scan");
    check_int(SILT_OK, silt_conn_unregister(conn, "src"));
    check_int(1, p.stream_releases);
    check_int(SILT_NOTFOUND, silt_conn_unregister(conn, "src"));
}

void test_api_register__a_query_stream_of_another_connection(void)
{
    silt_conn *other;
    struct ArrowArrayStream st, out;
    struct ArrowArray array;
    char sql[8192];
    const int32_t *off;
    check_int(SILT_OK, silt_conn_open(&other, db));
    check_int(SILT_OK, silt_conn_exec(other, "SELECT id * 4 AS key, concat('row ', "
                                             "CAST(id AS STRING)) AS label FROM range(5000)",
                                      &st));
    check_int(SILT_OK, silt_conn_register_arrow(conn, "labels", &st));
    snprintf(sql, sizeof(sql), "SELECT t.id, l.label FROM labels l JOIN %s t ON t.id = l.key "
             "WHERE t.v < 30 ORDER BY t.id", table);
    check_int(SILT_OK, silt_conn_exec(conn, sql, &out));
    check_int(0, out.get_next(&out, &array));
    /* ids 0, 4, ..., 28 (v = id + 1 < 30) */
    check_int(8, array.length);
    check_int(28, ((const int64_t *)array.children[0]->buffers[1])[7]);
    off = array.children[1]->buffers[1];
    check_int(5, off[8] - off[7]);
    check(memcmp((const char *)array.children[1]->buffers[2] + off[7], "row 7", 5) == 0);
    array.release(&array);
    out.release(&out);
    check_int(SILT_OK, silt_conn_unregister(conn, "labels"));
    silt_conn_close(other);
}

void test_api_register__self_join_reads_once(void)
{
    struct ArrowArrayStream st;
    producer p;
    make_stream(&st, &p, 1, 10);
    check_int(SILT_OK, silt_conn_register_arrow(conn, "s", &st));
    check_int(SILT_INVALID, silt_conn_exec(conn, "SELECT count(*) FROM s a JOIN s b ON a.k = b.k",
                                           NULL));
    check_contains(silt_conn_errmsg(conn), "`s` was read by an earlier scan");
}

void test_api_register__describe_and_explain_do_not_consume(void)
{
    struct ArrowArrayStream st;
    producer p;
    int64_t want[2] = {4000, 0};
    int64_t k;
    make_stream(&st, &p, 2, 2000);
    check_int(SILT_OK, silt_conn_register_arrow(conn, "s", &st));
    check_int(SILT_OK, silt_conn_exec(conn, "DESCRIBE QUERY SELECT * FROM s", NULL));
    check_int(SILT_OK, silt_conn_exec(conn, "EXPLAIN SELECT k FROM s WHERE w > 3", NULL));
    check_int(0, p.next_batch);
    for (k = 0; k < 4000; k++)
        want[1] += 3 * k;
    check_row("SELECT count(*), sum(w) FROM s", 2, want);
}

void test_api_register__ownership_on_every_path(void)
{
    struct ArrowArrayStream st;
    producer p1, p2, p3;
    /* a duplicate name: refused, and the new stream released at once */
    make_stream(&st, &p1, 1, 10);
    check_int(SILT_OK, silt_conn_register_arrow(conn, "dup", &st));
    make_stream(&st, &p2, 1, 10);
    check_int(SILT_EXISTS, silt_conn_register_arrow(conn, "DUP", &st));
    check(st.release == NULL);
    check_int(1, p2.stream_releases);
    check_int(0, p1.stream_releases);
    /* refused arguments still take the stream */
    make_stream(&st, &p3, 1, 10);
    check_int(SILT_INVALID, silt_conn_register_arrow(conn, "", &st));
    check_int(1, p3.stream_releases);
    check_int(SILT_INVALID, silt_conn_register_arrow(conn, "x", NULL));
    check_int(SILT_INVALID, silt_conn_register_arrow(conn, "x", &st)); /* released already */
    /* unregistered unread: released then */
    check_int(SILT_OK, silt_conn_unregister(conn, "dup"));
    check_int(1, p1.stream_releases);
    /* read in part by a result still alive, then unregistered: the result reads on */
    {
        struct ArrowArrayStream out;
        struct ArrowArray array;
        int64_t rows = 0;
        make_stream(&st, &p1, 3, 3000);
        check_int(SILT_OK, silt_conn_register_arrow(conn, "live", &st));
        check_int(SILT_OK, silt_conn_exec(conn, "SELECT k FROM live", &out));
        check_int(0, out.get_next(&out, &array));
        rows += array.length;
        array.release(&array);
        check_int(SILT_OK, silt_conn_unregister(conn, "live"));
        check_int(0, p1.stream_releases);
        for (;;) {
            check_int(0, out.get_next(&out, &array));
            if (array.release == NULL)
                break;
            rows += array.length;
            array.release(&array);
        }
        check_int(9000, rows);
        out.release(&out);
        check_int(1, p1.stream_releases);
        /* the name is free again */
        check_int(SILT_NOTFOUND, silt_conn_exec(conn, "SELECT * FROM live", NULL));
    }
    /* never read: released by silt_conn_close */
    make_stream(&st, &p2, 1, 10);
    check_int(SILT_OK, silt_conn_register_arrow(conn, "left", &st));
    silt_conn_close(conn);
    conn = NULL;
    check_int(1, p2.stream_releases);
}
