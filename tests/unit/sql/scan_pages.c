/*
 * SQL over a Parquet file with a page index and small pages: WHERE
 * conjuncts feed the reader's page filter, so pages are skipped, and the
 * answers must be those of reading everything. Run serially and with a
 * thread pool (the morsel path), and on a file whose string dictionary
 * overflows into plain pages.
 */
#include <stdio.h>
#include <string.h>

#include "formats/parquet/writer.h"
#include "sql/session.h"
#include "test.h"
#include "util/thread.h"

#define N_ROWS 20000

static arena *a;
static silt_error err;
static io_store *store;
static tpool *pool;

void test_sql_scan_pages__initialize(void)
{
    err_clear(&err);
    a = arena_new(NULL, "test");
    store = NULL;
    pool = NULL;
    check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
}

void test_sql_scan_pages__cleanup(void)
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
 * id = row (sorted, so pages have narrow ranges), city = one of 5 names
 * (or, with many_strings, a name of its own every 3rd row, which overflows
 * a small dictionary into PLAIN pages), v = id * 0.5, NULL every 7th row.
 */
static void write_file(const char *key, int many_strings)
{
    static const char *const names[] = {"id", "city", "v"};
    static const char *const cities[] = {"Boston", "Denver", "Miami", "Austin", "Reno"};
    const col_type *types[3] = {col_type_primitive(COL_LONG), col_type_primitive(COL_STRING),
                                col_type_primitive(COL_DOUBLE)};
    col_field *f = arena_calloc(a, 3, sizeof(col_field));
    col_builder *b[3];
    col_batch batch;
    pqw_options wo = PQW_OPTIONS_INIT;
    pqw_writer *w = NULL;
    char text[32];
    for (int c = 0; c < 3; c++) {
        f[c].name = names[c];
        f[c].type = types[c];
        f[c].nullable = c > 0;
        f[c].field_id = -1;
        check_ok(col_builder_new(&b[c], a, types[c], &err), &err);
    }
    for (int64_t r = 0; r < N_ROWS; r++) {
        const char *city = cities[(r * 3 + r / 10) % 5];
        if (many_strings && r % 3 == 0 && r > N_ROWS / 4) {
            snprintf(text, sizeof(text), "town-%lld", (long long)r);
            city = text;
        }
        check_ok(col_builder_append_int(b[0], r, &err), &err);
        check_ok(col_builder_append_bytes(b[1], city, strlen(city), &err), &err);
        if (r % 7 == 0)
            check_ok(col_builder_append_null(b[2], &err), &err);
        else
            check_ok(col_builder_append_double(b[2], (double)r * 0.5, &err), &err);
    }
    memset(&batch, 0, sizeof(batch));
    batch.schema = col_type_struct(a, 3, f);
    batch.n_rows = N_ROWS;
    batch.n_cols = 3;
    batch.cols = arena_calloc(a, 3, sizeof(col_vec *));
    for (int c = 0; c < 3; c++)
        batch.cols[c] = finish(b[c]);
    wo.page_bytes = 2048;
    wo.row_group_rows = 6000;
    if (many_strings)
        wo.dictionary_max_entries = 500;
    check_ok(pqw_writer_open(&w, store, key, batch.schema, &wo, &err), &err);
    check_ok(pqw_writer_write_batch(w, &batch, &err), &err);
    check_ok(pqw_writer_close(w, NULL, &err), &err);
}

/* Runs a query with one row and returns it as "a|b|..." text. */
static const char *one_row(sql_session *s, const char *sql)
{
    sql_result *res = NULL;
    col_batch *batch;
    buf out = BUF_INIT;
    const char *text;
    check_ok(sql_execute(s, sql, &res, &err), &err);
    check_ok(sql_result_next(res, &batch, &err), &err);
    check(batch != NULL && batch->n_rows == 1);
    for (size_t c = 0; batch != NULL && c < batch->n_cols; c++) {
        const col_vec *v = batch->cols[c];
        if (c > 0)
            buf_append_char(&out, '|', NULL);
        if (col_vec_is_null(v, 0))
            buf_append_str(&out, "NULL", NULL);
        else if (v->type->id == COL_DOUBLE)
            buf_printf(&out, NULL, "%.1f", ((const double *)v->values)[0]);
        else
            buf_printf(&out, NULL, "%lld", (long long)((const int64_t *)v->values)[0]);
    }
    text = arena_strdup(a, buf_cstr(&out));
    buf_clear(&out);
    sql_result_free(res);
    return text;
}

/* The same query's answer computed here, row by row: count, sum(id), sum(v). */
typedef int (*row_pred)(int64_t id, const char *city, int v_null);

static const char *expected(row_pred keep, int many_strings)
{
    static const char *const cities[] = {"Boston", "Denver", "Miami", "Austin", "Reno"};
    int64_t n = 0, sum_id = 0;
    double sum_v = 0;
    int any_v = 0;
    char text[32];
    for (int64_t r = 0; r < N_ROWS; r++) {
        const char *city = cities[(r * 3 + r / 10) % 5];
        if (many_strings && r % 3 == 0 && r > N_ROWS / 4) {
            snprintf(text, sizeof(text), "town-%lld", (long long)r);
            city = text;
        }
        if (!keep(r, city, r % 7 == 0))
            continue;
        n++;
        sum_id += r;
        if (r % 7 != 0) {
            sum_v += (double)r * 0.5;
            any_v = 1;
        }
    }
    if (n == 0)
        return arena_sprintf(a, "0|NULL|NULL");
    return any_v ? arena_sprintf(a, "%lld|%lld|%.1f", (long long)n, (long long)sum_id, sum_v)
                 : arena_sprintf(a, "%lld|%lld|NULL", (long long)n, (long long)sum_id);
}

static int eq_1234(int64_t id, const char *c, int vn) { (void)c; (void)vn; return id == 1234; }
static int range_mid(int64_t id, const char *c, int vn) { (void)c; (void)vn; return id >= 7000 && id <= 7400; }
static int lt_100(int64_t id, const char *c, int vn) { (void)c; (void)vn; return id < 100; }
static int ge_top(int64_t id, const char *c, int vn) { (void)c; (void)vn; return id >= 19990; }
static int none(int64_t id, const char *c, int vn) { (void)c; (void)vn; (void)id; return 0; }
static int boston_range(int64_t id, const char *c, int vn)
{
    (void)vn;
    return strcmp(c, "Boston") == 0 && id > 15000 && id < 16000;
}
static int town(int64_t id, const char *c, int vn) { (void)id; (void)vn; return strcmp(c, "town-9999") == 0; }
static int v_null_range(int64_t id, const char *c, int vn) { (void)c; return vn && id < 3000; }

static void check_queries(sql_session *s, const char *path, int many_strings)
{
    static const struct {
        const char *where;
        row_pred keep;
    } cases[] = {
        {"id = 1234", eq_1234},
        {"id BETWEEN 7000 AND 7400", range_mid},
        {"100 > id", lt_100},
        {"id >= 19990", ge_top},
        {"id > 50000", none},
        {"city = 'Boston' AND id > 15000 AND id < 16000", boston_range},
        {"city = 'town-9999'", town},
        {"v IS NULL AND id < 3000", v_null_range},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const char *sql = arena_sprintf(a, "SELECT count(*), sum(id), sum(v) FROM parquet.`%s` "
                                        "WHERE %s", path, cases[k].where);
        check_str(expected(cases[k].keep, many_strings), one_row(s, sql));
    }
}

static void run(int threads, int many_strings)
{
    sql_session_options so = SQL_SESSION_OPTIONS_INIT;
    sql_session *s = NULL;
    const char *key = many_strings ? "pages_plain.parquet" : "pages.parquet";
    const char *path = arena_sprintf(a, "%s/%s", test_tmpdir(), key);
    write_file(key, many_strings);
    if (threads) {
        check_ok(tpool_new(&pool, 1, &err), &err);
        so.pool = pool;
    }
    check_ok(sql_session_new(&s, &so, &err), &err);
    check_queries(s, path, many_strings);
    sql_session_free(s);
}

void test_sql_scan_pages__serial(void) { run(0, 0); }

void test_sql_scan_pages__parallel(void) { run(1, 0); }

void test_sql_scan_pages__dictionary_then_plain_pages(void) { run(1, 1); }
