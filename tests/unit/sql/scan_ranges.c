/*
 * Parallel scans of a Parquet file whose row groups are larger than a
 * morsel (source.c splits them into row ranges): every answer must be the
 * serial scan's, the plan must say that row groups were split, and a file
 * of small row groups must stay one morsel per row group.
 */
#include <stdio.h>
#include <string.h>

#include "formats/parquet/writer.h"
#include "sql/session.h"
#include "test.h"
#include "util/thread.h"

#define N_ROWS 600000

static arena *a;
static silt_error err;
static io_store *store;
static tpool *pool;

void test_sql_scan_ranges__initialize(void)
{
    err_clear(&err);
    a = arena_new(NULL, "test");
    store = NULL;
    pool = NULL;
    check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
}

void test_sql_scan_ranges__cleanup(void)
{
    io_store_free(store);
    tpool_free(pool);
    arena_free(a);
}

static col_vec *finish(col_builder *b)
{
    col_vec *v;
    check_ok(col_builder_finish(b, &v, &err), &err);
    return v;
}

/*
 * id = row, k = one of 7 names (dictionary), v = id % 1000 (NULL every
 * 11th row); row groups of row_group_rows rows, pages of 8 KiB.
 */
static void write_file(const char *key, int64_t row_group_rows)
{
    static const char *const names[] = {"id", "k", "v"};
    static const char *const ks[] = {"ash", "birch", "cedar", "elm", "fir", "oak", "yew"};
    const col_type *types[3] = {col_type_primitive(COL_LONG), col_type_primitive(COL_STRING),
                                col_type_primitive(COL_INT)};
    col_field *f = arena_calloc(a, 3, sizeof(col_field));
    col_builder *b[3];
    col_batch batch;
    pqw_options wo = PQW_OPTIONS_INIT;
    pqw_writer *w = NULL;
    for (int c = 0; c < 3; c++) {
        f[c].name = names[c];
        f[c].type = types[c];
        f[c].nullable = c > 0;
        f[c].field_id = -1;
        check_ok(col_builder_new(&b[c], a, types[c], &err), &err);
    }
    for (int64_t r = 0; r < N_ROWS; r++) {
        const char *k = ks[(r * 5 + r / 1000) % 7];
        check_ok(col_builder_append_int(b[0], r, &err), &err);
        check_ok(col_builder_append_bytes(b[1], k, strlen(k), &err), &err);
        if (r % 11 == 0)
            check_ok(col_builder_append_null(b[2], &err), &err);
        else
            check_ok(col_builder_append_int(b[2], r % 1000, &err), &err);
    }
    memset(&batch, 0, sizeof(batch));
    batch.schema = col_type_struct(a, 3, f);
    batch.n_rows = N_ROWS;
    batch.n_cols = 3;
    batch.cols = arena_calloc(a, 3, sizeof(col_vec *));
    for (int c = 0; c < 3; c++)
        batch.cols[c] = finish(b[c]);
    wo.page_bytes = 8192;
    wo.row_group_rows = row_group_rows;
    check_ok(pqw_writer_open(&w, store, key, batch.schema, &wo, &err), &err);
    check_ok(pqw_writer_write_batch(w, &batch, &err), &err);
    check_ok(pqw_writer_close(w, NULL, &err), &err);
}

/* Every row of a query's result as text, one line a row. */
static const char *rows_of(sql_session *s, const char *sql)
{
    sql_result *res = NULL;
    col_batch *batch;
    buf out = BUF_INIT;
    const char *text;
    check_ok(sql_execute(s, sql, &res, &err), &err);
    for (;;) {
        check_ok(sql_result_next(res, &batch, &err), &err);
        if (batch == NULL)
            break;
        for (int64_t row = 0; row < batch->n_rows; row++) {
            for (size_t c = 0; c < batch->n_cols; c++) {
                const col_vec *v = batch->cols[c];
                int32_t len;
                if (c > 0)
                    buf_append_char(&out, '|', NULL);
                if (col_vec_is_null(v, row))
                    buf_append_str(&out, "NULL", NULL);
                else if (v->type->id == COL_STRING) {
                    const char *str = col_vec_str(v, row, &len);
                    buf_append(&out, str, (size_t)len, NULL);
                }
                else if (v->type->id == COL_DOUBLE)
                    buf_printf(&out, NULL, "%.6f", ((const double *)v->values)[row]);
                else if (v->type->id == COL_INT)
                    buf_printf(&out, NULL, "%d", ((const int32_t *)v->values)[row]);
                else
                    buf_printf(&out, NULL, "%lld", (long long)((const int64_t *)v->values)[row]);
            }
            buf_append_char(&out, '\n', NULL);
        }
    }
    text = arena_strdup(a, buf_cstr(&out));
    buf_clear(&out);
    sql_result_free(res);
    return text;
}

static const char *const queries[] = {
    "SELECT count(*), sum(id), min(id), max(id), count(v), sum(v) FROM parquet.`%s`",
    "SELECT k, count(*), sum(v), min(id), max(id) FROM parquet.`%s` GROUP BY k ORDER BY k",
    "SELECT count(DISTINCT v), count(DISTINCT k) FROM parquet.`%s`",
    "SELECT id, k, v FROM parquet.`%s` ORDER BY v DESC NULLS LAST, id LIMIT 5",
    "SELECT count(*), sum(v) FROM parquet.`%s` WHERE id BETWEEN 123456 AND 345678",
    "SELECT count(*), sum(id) FROM parquet.`%s` WHERE k = 'elm' AND v < 10",
    "SELECT count(*) FROM parquet.`%s` WHERE id >= 599990",
};

static sql_session *session(int threads)
{
    sql_session_options so = SQL_SESSION_OPTIONS_INIT;
    sql_session *s = NULL;
    if (threads && pool == NULL)
        check_ok(tpool_new(&pool, 1, &err), &err);
    so.pool = threads ? pool : NULL;
    check_ok(sql_session_new(&s, &so, &err), &err);
    return s;
}

static void compare_serial_parallel(const char *path)
{
    sql_session *serial = session(0), *parallel = session(1);
    for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
        const char *hole = strstr(queries[q], "%s");
        const char *sql = arena_sprintf(a, "%.*s%s%s", (int)(hole - queries[q]), queries[q],
                                        path, hole + 2);
        const char *want = rows_of(serial, sql);
        check(strlen(want) > 0);
        check_str(want, rows_of(parallel, sql));
    }
    sql_session_free(serial);
    sql_session_free(parallel);
}

static const char *explain(const char *path)
{
    sql_session *s = session(1);
    const char *text = rows_of(s, arena_sprintf(a, "EXPLAIN SELECT count(*), sum(v) FROM "
                                                   "parquet.`%s`", path));
    sql_session_free(s);
    return text;
}

/* One row group of 500k rows and one of 100k: the big one becomes ranges. */
void test_sql_scan_ranges__large_row_groups_split(void)
{
    const char *path = arena_sprintf(a, "%s/big_groups.parquet", test_tmpdir());
    write_file("big_groups.parquet", 500000);
    check_contains(explain(path), "ParquetScan morsels: 4 (1 row group split into row ranges)");
    compare_serial_parallel(path);
}

/* Row groups of 50k rows: already more morsels than threads need, none split. */
void test_sql_scan_ranges__small_row_groups_stay_whole(void)
{
    const char *path = arena_sprintf(a, "%s/small_groups.parquet", test_tmpdir());
    write_file("small_groups.parquet", 50000);
    check(strstr(explain(path), "ParquetScan morsels") == NULL);
    compare_serial_parallel(path);
}
