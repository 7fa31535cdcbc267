/*
 * Unit tests of formats/text_table.c: Spark's show() table and the
 * cast-to-string of values. The expected tables were printed by pyspark
 * 4.3.0 (Java 17, session time zone UTC) for the same rows; the script that
 * made them is described above each one.
 */
#include <cJSON.h>
#include <stdio.h>

#include "text_fixture.h"
#include "util/mem.h"

void test_formats_text_table__initialize(void)
{
    A = arena_new(NULL, "test");
    buf_init(&OUT, 0);
    err_clear(&ERR);
}

void test_formats_text_table__cleanup(void)
{
    arena_free(A);
    buf_clear(&OUT);
}

/*
 * Spark's output for a DataFrame of 7 rows and 14 columns (see make_rows),
 * from df.show(), df.show(2), df.show(1), df.select("s", "arr",
 * "m").show(truncate=False), df.select("s").show(truncate=5) and
 * (truncate=2), createDataFrame([], "a int, bb string").show(), a one-row
 * frame with a long column name, and a query of nested values.
 */
static const char SPARK_SHOW_ALL[] =
    "+----+-------------------+--------+------------+--------------------+-----------+--------------------+----------+----------+--------------------+------------+----------------+------------+-----+\n"
    "|   i|                  l|       d|           f|                 dec|       dec2|                   s|         b|        dt|                  ts|         arr|               m|          st|   bo|\n"
    "+----+-------------------+--------+------------+--------------------+-----------+--------------------+----------+----------+--------------------+------------+----------------+------------+-----+\n"
    "|   1|9223372036854775807|     1.0|         0.1|0.000000000000000000|       1.50|               hello|[01 02 FF]|2021-09-08| 2021-09-08 11:11:11|   [1, 2, 3]|{a -> 1, b -> 2}|      {1, a}| true|\n"
    "|NULL|                 -1|  1.0E10|      1.0E10|0.000000000000000001|      -0.05|a very long strin...|        []|0001-01-01|2021-09-08 11:11:...|[1, NULL, 3]|     {k -> NULL}|{NULL, NULL}|false|\n"
    "|   3|                  0|  1.0E-5|      1.0E-5|                NULL|       NULL|  tab\\there\\nnewline|      NULL|      NULL|2021-09-08 11:11:...|          []|              {}|        NULL| NULL|\n"
    "|   4|                  0|   0.001|1.23456792E8|12345678901234567...|12345678.99|      日本語テキスト|      NULL|      NULL|                NULL|        NULL|            NULL|        NULL| NULL|\n"
    "|   5|                  0|     NaN|   -Infinity|                NULL|       NULL|                    |      NULL|      NULL|                NULL|        NULL|            NULL|        NULL| NULL|\n"
    "|   6|                  0|4.9E-324|     1.4E-45|                NULL|       NULL|12345678901234567890|      NULL|      NULL|                NULL|        NULL|            NULL|        NULL| NULL|\n"
    "|   7|                  0|    -0.0|       1.0E7|                NULL|       NULL|12345678901234567...|      NULL|      NULL|                NULL|        NULL|            NULL|        NULL| NULL|\n"
    "+----+-------------------+--------+------------+--------------------+-----------+--------------------+----------+----------+--------------------+------------+----------------+------------+-----+\n"
    ;
static const char SPARK_SHOW_2[] =
    "+----+-------------------+------+------+--------------------+-----+--------------------+----------+----------+--------------------+------------+----------------+------------+-----+\n"
    "|   i|                  l|     d|     f|                 dec| dec2|                   s|         b|        dt|                  ts|         arr|               m|          st|   bo|\n"
    "+----+-------------------+------+------+--------------------+-----+--------------------+----------+----------+--------------------+------------+----------------+------------+-----+\n"
    "|   1|9223372036854775807|   1.0|   0.1|0.000000000000000000| 1.50|               hello|[01 02 FF]|2021-09-08| 2021-09-08 11:11:11|   [1, 2, 3]|{a -> 1, b -> 2}|      {1, a}| true|\n"
    "|NULL|                 -1|1.0E10|1.0E10|0.000000000000000001|-0.05|a very long strin...|        []|0001-01-01|2021-09-08 11:11:...|[1, NULL, 3]|     {k -> NULL}|{NULL, NULL}|false|\n"
    "+----+-------------------+------+------+--------------------+-----+--------------------+----------+----------+--------------------+------------+----------------+------------+-----+\n"
    "only showing top 2 rows\n"
    ;
static const char SPARK_SHOW_1[] =
    "+---+-------------------+---+---+--------------------+----+-----+----------+----------+-------------------+---------+----------------+------+----+\n"
    "|  i|                  l|  d|  f|                 dec|dec2|    s|         b|        dt|                 ts|      arr|               m|    st|  bo|\n"
    "+---+-------------------+---+---+--------------------+----+-----+----------+----------+-------------------+---------+----------------+------+----+\n"
    "|  1|9223372036854775807|1.0|0.1|0.000000000000000000|1.50|hello|[01 02 FF]|2021-09-08|2021-09-08 11:11:11|[1, 2, 3]|{a -> 1, b -> 2}|{1, a}|true|\n"
    "+---+-------------------+---+---+--------------------+----+-----+----------+----------+-------------------+---------+----------------+------+----+\n"
    "only showing top 1 row\n"
    ;
static const char SPARK_SHOW_NOTRUNC[] =
    "+---------------------------------------------+------------+----------------+\n"
    "|s                                            |arr         |m               |\n"
    "+---------------------------------------------+------------+----------------+\n"
    "|hello                                        |[1, 2, 3]   |{a -> 1, b -> 2}|\n"
    "|a very long string that is longer than twenty|[1, NULL, 3]|{k -> NULL}     |\n"
    "|tab\\there\\nnewline                           |[]          |{}              |\n"
    "|日本語テキスト                               |NULL        |NULL            |\n"
    "|                                             |NULL        |NULL            |\n"
    "|12345678901234567890                         |NULL        |NULL            |\n"
    "|123456789012345678901                        |NULL        |NULL            |\n"
    "+---------------------------------------------+------------+----------------+\n"
    ;
static const char SPARK_SHOW_TRUNC5[] =
    "+-------+\n"
    "|      s|\n"
    "+-------+\n"
    "|  hello|\n"
    "|  a ...|\n"
    "|  ta...|\n"
    "|日本...|\n"
    "|       |\n"
    "|  12...|\n"
    "|  12...|\n"
    "+-------+\n"
    ;
static const char SPARK_SHOW_TRUNC2[] =
    "+----+\n"
    "|   s|\n"
    "+----+\n"
    "|  he|\n"
    "|  a |\n"
    "|  ta|\n"
    "|日本|\n"
    "|    |\n"
    "|  12|\n"
    "|  12|\n"
    "+----+\n"
    ;
static const char SPARK_SHOW_EMPTY[] =
    "+---+---+\n"
    "|  a| bb|\n"
    "+---+---+\n"
    "+---+---+\n"
    ;
static const char SPARK_SHOW_LONG_NAME[] =
    "+--------------------------------+\n"
    "|a_very_long_column_name_here_yes|\n"
    "+--------------------------------+\n"
    "|                               x|\n"
    "+--------------------------------+\n"
    ;
static const char SPARK_SHOW_NESTED[] =
    "+--------------+-------------+-----------------+---------+----------+------+-----+---------+\n"
    "|a             |b            |c                |d        |e         |f     |g    |h        |\n"
    "+--------------+-------------+-----------------+---------+----------+------+-----+---------+\n"
    "|[[1, 2], NULL]|{1 -> [1, 2]}|{[1], {z -> 1.5}}|[NULL, x]|[1.0, 2.5]|1.0E20|1.0E7|9999999.0|\n"
    "+--------------+-------------+-----------------+---------+----------+------+-----+---------+\n"
    ;

static const char *show(const col_batch *batch, int64_t max_rows, int32_t truncate)
{
    text_table *t;
    buf_truncate(&OUT, 0);
    check_ok(text_table_new(&t, batch->schema, max_rows, truncate, &ERR), &ERR);
    check_ok(text_table_add_batch(t, batch, &ERR), &ERR);
    check_ok(text_table_finish(t, &OUT, &ERR), &ERR);
    text_table_free(t);
    return buf_cstr(&OUT);
}

void test_formats_text_table__matches_spark_show(void)
{
    col_batch *batch = make_rows();
    check_str(SPARK_SHOW_ALL, show(batch, 20, 20));
    check_str(SPARK_SHOW_2, show(batch, 2, 20));
    check_str(SPARK_SHOW_1, show(batch, 1, 20));
}

void test_formats_text_table__truncation_settings(void)
{
    col_batch *all = make_rows();
    const char *names[3] = {"s", "arr", "m"};
    col_vec *cols[3];
    cols[0] = all->cols[6];
    cols[1] = all->cols[10];
    cols[2] = all->cols[11];
    check_str(SPARK_SHOW_NOTRUNC, show(make_batch(3, names, cols), 20, 0));
    check_str(SPARK_SHOW_TRUNC5, show(make_batch(1, names, cols), 20, 5));
    check_str(SPARK_SHOW_TRUNC2, show(make_batch(1, names, cols), 20, 2));
}

void test_formats_text_table__empty_and_long_header(void)
{
    const char *names[2] = {"a", "bb"};
    const char *long_name[1] = {"a_very_long_column_name_here_yes"};
    col_vec *cols[2];
    col_builder *b = builder(prim(COL_STRING));
    check_ok(col_vec_new(&cols[0], A, prim(COL_INT), 0, 0, &ERR), &ERR);
    check_ok(col_vec_new(&cols[1], A, prim(COL_STRING), 0, 0, &ERR), &ERR);
    check_str(SPARK_SHOW_EMPTY, show(make_batch(2, names, cols), 20, 20));
    add_str(b, "x");
    cols[0] = finish(b);
    check_str(SPARK_SHOW_LONG_NAME, show(make_batch(1, long_name, cols), 20, 20));
}

/* select array(array(1,2), null) a, map(1, array(1,2)) b, named_struct('p', array(1), 'q',
 * map('z', 1.5D)) c, array(cast(null as string), 'x') d, array(1.0D, 2.5D) e, 1e20D f,
 * 1.0E7D g, 9999999.0D h */
void test_formats_text_table__nested_values(void)
{
    const char *names[8] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    const col_type *arr_int = col_type_array(A, prim(COL_INT), 1);
    col_field c_fields[2] = {{"p", NULL, 1, NULL, -1}, {"q", NULL, 1, NULL, -1}};
    col_builder *a, *b, *c, *d, *e, *f, *g, *h, *cq;
    col_vec *cols[8];
    c_fields[0].type = arr_int;
    c_fields[1].type = col_type_map(A, prim(COL_STRING), prim(COL_DOUBLE), 1);
    a = builder(col_type_array(A, arr_int, 1));
    add_int(col_builder_child(col_builder_child(a, 0), 0), 1);
    add_int(col_builder_child(col_builder_child(a, 0), 0), 2);
    check_ok(col_builder_append_list(col_builder_child(a, 0), 2, &ERR), &ERR);
    add_null(col_builder_child(a, 0));
    check_ok(col_builder_append_list(a, 2, &ERR), &ERR);
    b = builder(col_type_map(A, prim(COL_INT), arr_int, 1));
    add_int(col_builder_child(b, 0), 1);
    add_int(col_builder_child(col_builder_child(b, 1), 0), 1);
    add_int(col_builder_child(col_builder_child(b, 1), 0), 2);
    check_ok(col_builder_append_list(col_builder_child(b, 1), 2, &ERR), &ERR);
    check_ok(col_builder_append_list(b, 1, &ERR), &ERR);
    c = builder(col_type_struct(A, 2, c_fields));
    add_int(col_builder_child(col_builder_child(c, 0), 0), 1);
    check_ok(col_builder_append_list(col_builder_child(c, 0), 1, &ERR), &ERR);
    cq = col_builder_child(c, 1);
    add_str(col_builder_child(cq, 0), "z");
    add_dbl(col_builder_child(cq, 1), 1.5);
    check_ok(col_builder_append_list(cq, 1, &ERR), &ERR);
    check_ok(col_builder_append_struct(c, &ERR), &ERR);
    d = builder(col_type_array(A, prim(COL_STRING), 1));
    add_null(col_builder_child(d, 0));
    add_str(col_builder_child(d, 0), "x");
    check_ok(col_builder_append_list(d, 2, &ERR), &ERR);
    e = builder(col_type_array(A, prim(COL_DOUBLE), 1));
    add_dbl(col_builder_child(e, 0), 1.0);
    add_dbl(col_builder_child(e, 0), 2.5);
    check_ok(col_builder_append_list(e, 2, &ERR), &ERR);
    f = builder(prim(COL_DOUBLE));
    add_dbl(f, 1e20);
    g = builder(prim(COL_DOUBLE));
    add_dbl(g, 1e7);
    h = builder(prim(COL_DOUBLE));
    add_dbl(h, 9999999.0);
    cols[0] = finish(a);
    cols[1] = finish(b);
    cols[2] = finish(c);
    cols[3] = finish(d);
    cols[4] = finish(e);
    cols[5] = finish(f);
    cols[6] = finish(g);
    cols[7] = finish(h);
    check_str(SPARK_SHOW_NESTED, show(make_batch(8, names, cols), 20, 0));
}

/* Made by pyspark like the tables above: widths of non-ASCII text, escapes, years. */
static const char SPARK_SHOW_WIDTHS[] =
    "+--------------------+---------+--------------------+\n"
    "|                   e|        m|                 acc|\n"
    "+--------------------+---------+--------------------+\n"
    "|😀😀😀😀😀😀😀😀?...|a\\vb\\ac\x1b""d|xéxéxéxéxéxéxéxéx...|\n"
    "+--------------------+---------+--------------------+\n"
    ;
static const char SPARK_SHOW_YEARS[] =
    "+-------------------+--------------------+-----------+------------+\n"
    "|                  a|                   b|          c|           d|\n"
    "+-------------------+--------------------+-----------+------------+\n"
    "|2021-01-01 10:00:00|2021-01-01 10:00:...|-0001-01-01|+10000-01-01|\n"
    "+-------------------+--------------------+-----------+------------+\n"
    ;
static const char SPARK_SHOW_MISC[] =
    "+--------------------+---+---------+----+---+------+--------+-----------+\n"
    "|                   a|  b|        c|   d|  e|     f|       g|          h|\n"
    "+--------------------+---+---------+----+---+------+--------+-----------+\n"
    "|2021-09-08 11:11:...|  1|[[0A FF]]|12.5|0.0|{NULL}|[{1, x}]|{a -> NULL}|\n"
    "+--------------------+---+---------+----+---+------+--------+-----------+\n"
    ;

void test_formats_text_table__widths_escapes_and_surrogates(void)
{
    const char *names[3] = {"e", "m", "acc"};
    col_builder *e = builder(prim(COL_STRING)), *m = builder(prim(COL_STRING));
    col_builder *acc = builder(prim(COL_STRING));
    col_vec *cols[3];
    buf text = BUF_INIT;
    int idx;
    for (idx = 0; idx < 12; idx++)
        check_ok(buf_append_str(&text, "\xf0\x9f\x98\x80", &ERR), &ERR); /* U+1F600 */
    add_str(e, buf_cstr(&text));
    buf_truncate(&text, 0);
    add_str(m, "a\x0b" "b\x07" "c\x1b" "d");
    for (idx = 0; idx < 15; idx++)
        check_ok(buf_append_str(&text, "x\xc3\xa9", &ERR), &ERR);
    add_str(acc, buf_cstr(&text));
    buf_clear(&text);
    cols[0] = finish(e);
    cols[1] = finish(m);
    cols[2] = finish(acc);
    check_str(SPARK_SHOW_WIDTHS, show(make_batch(3, names, cols), 20, 20));
}

/* select timestamp_ntz'2021-01-01 10:00:00' a, timestamp_ntz'2021-01-01 10:00:00.5' b,
 * cast('-0001-01-01' as date) c, cast('10000-01-01' as date) d */
void test_formats_text_table__years_and_timestamp_ntz(void)
{
    const char *names[4] = {"a", "b", "c", "d"};
    col_builder *a = builder(prim(COL_TIMESTAMP_NTZ)), *b = builder(prim(COL_TIMESTAMP_NTZ));
    col_builder *c = builder(prim(COL_DATE)), *d = builder(prim(COL_DATE));
    col_vec *cols[4];
    add_int(a, ts(2021, 1, 1, 10, 0, 0, 0));
    add_int(b, ts(2021, 1, 1, 10, 0, 0, 500000));
    add_int(c, time_days_from_civil(-1, 1, 1));
    add_int(d, time_days_from_civil(10000, 1, 1));
    cols[0] = finish(a);
    cols[1] = finish(b);
    cols[2] = finish(c);
    cols[3] = finish(d);
    check_str(SPARK_SHOW_YEARS, show(make_batch(4, names, cols), 20, 20));
}

/* select cast('2021-09-08 11:11:11.000100' as timestamp) a, cast(1 as tinyint) b,
 * array(cast(X'0aff' as binary)) c, cast(12.5 as float) d, -cast(0 as decimal(3,1)) e,
 * struct(cast(null as int) as q) f, array(struct(1 as a, 'x' as b)) g, map('a', null) h */
void test_formats_text_table__more_types(void)
{
    const char *names[8] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    col_field f_fields[1] = {{"q", NULL, 1, NULL, -1}};
    col_field g_fields[2] = {{"a", NULL, 0, NULL, -1}, {"b", NULL, 0, NULL, -1}};
    col_builder *bl[8];
    col_vec *cols[8];
    int idx;
    f_fields[0].type = prim(COL_INT);
    g_fields[0].type = prim(COL_INT);
    g_fields[1].type = prim(COL_STRING);
    bl[0] = builder(prim(COL_TIMESTAMP));
    bl[1] = builder(prim(COL_BYTE));
    bl[2] = builder(col_type_array(A, prim(COL_BINARY), 1));
    bl[3] = builder(prim(COL_FLOAT));
    bl[4] = builder(col_type_decimal(A, 3, 1));
    bl[5] = builder(col_type_struct(A, 1, f_fields));
    bl[6] = builder(col_type_array(A, col_type_struct(A, 2, g_fields), 0));
    bl[7] = builder(col_type_map(A, prim(COL_STRING), prim(COL_NULL), 1));
    add_int(bl[0], ts(2021, 9, 8, 11, 11, 11, 100));
    add_int(bl[1], 1);
    check_ok(col_builder_append_bytes(col_builder_child(bl[2], 0), "\x0a\xff", 2, &ERR), &ERR);
    check_ok(col_builder_append_list(bl[2], 1, &ERR), &ERR);
    add_dbl(bl[3], 12.5);
    check_ok(col_builder_append_decimal(bl[4], 0, &ERR), &ERR);
    add_null(col_builder_child(bl[5], 0));
    check_ok(col_builder_append_struct(bl[5], &ERR), &ERR);
    add_int(col_builder_child(col_builder_child(bl[6], 0), 0), 1);
    add_str(col_builder_child(col_builder_child(bl[6], 0), 1), "x");
    check_ok(col_builder_append_struct(col_builder_child(bl[6], 0), &ERR), &ERR);
    check_ok(col_builder_append_list(bl[6], 1, &ERR), &ERR);
    add_str(col_builder_child(bl[7], 0), "a");
    add_null(col_builder_child(bl[7], 1));
    check_ok(col_builder_append_list(bl[7], 1, &ERR), &ERR);
    for (idx = 0; idx < 8; idx++)
        cols[idx] = finish(bl[idx]);
    check_str(SPARK_SHOW_MISC, show(make_batch(8, names, cols), 20, 20));
}

/* Rows arrive in several batches; only max_rows are kept, the rest are counted. */
void test_formats_text_table__several_batches(void)
{
    const char *names[1] = {"id"};
    col_vec *cols[1];
    col_batch *batch;
    text_table *t;
    int idx;
    col_builder *b = builder(prim(COL_LONG));
    for (idx = 0; idx < 3; idx++)
        add_int(b, idx * 100);
    cols[0] = finish(b);
    batch = make_batch(1, names, cols);
    check_ok(text_table_new(&t, batch->schema, 4, 20, &ERR), &ERR);
    for (idx = 0; idx < 3; idx++)
        check_ok(text_table_add_batch(t, batch, &ERR), &ERR);
    check_int(9, text_table_rows_seen(t));
    check_ok(text_table_finish(t, &OUT, &ERR), &ERR);
    text_table_free(t);
    check_str("+---+\n"
              "| id|\n"
              "+---+\n"
              "|  0|\n"
              "|100|\n"
              "|200|\n"
              "|  0|\n"
              "+---+\n"
              "only showing top 4 rows\n",
              buf_cstr(&OUT));
    /* exactly max_rows rows: no footer */
    buf_truncate(&OUT, 0);
    check_str("+---+\n| id|\n+---+\n|  0|\n|100|\n|200|\n+---+\n", show(batch, 3, 20));
    /* zero rows shown of three */
    check_str("+---+\n| id|\n+---+\n+---+\nonly showing top 0 rows\n", show(batch, 0, 20));
}

void test_formats_text_table__misuse_is_refused(void)
{
    const char *names[1] = {"id"};
    col_vec *cols[2];
    col_batch *one, *two;
    text_table *t;
    col_builder *b = builder(prim(COL_INT));
    add_int(b, 1);
    cols[0] = cols[1] = finish(b);
    one = make_batch(1, names, cols);
    two = make_batch(1, names, cols);
    two->n_cols = 2;
    check_fails(SILT_INVALID, text_table_new(&t, one->schema, -1, 20, &ERR));
    check_contains(ERR.message, "negative row count");
    check_fails(SILT_INVALID, text_table_new(&t, prim(COL_INT), 20, 20, &ERR));
    check_ok(text_table_new(&t, one->schema, 20, 20, &ERR), &ERR);
    check_fails(SILT_INVALID, text_table_add_batch(t, two, &ERR));
    check_contains(ERR.message, "batch of 2 columns in a table of 1");
    text_table_free(t);
    text_table_free(NULL);
}

/* The cell text of single values (Spark's cast to string). */
void test_formats_text_table__spark_value(void)
{
    col_builder *b = builder(prim(COL_TIMESTAMP));
    col_vec *v;
    add_int(b, ts(2021, 9, 8, 11, 11, 11, 123450));
    add_int(b, ts(1969, 12, 31, 23, 59, 59, 999999));
    add_int(b, ts(12021, 1, 2, 3, 4, 5, 0));
    v = finish(b);
    check_ok(text_spark_value(&OUT, v, 0, &ERR), &ERR);
    check_str("2021-09-08 11:11:11.12345", buf_cstr(&OUT));
    buf_truncate(&OUT, 0);
    check_ok(text_spark_value(&OUT, v, 1, &ERR), &ERR);
    check_str("1969-12-31 23:59:59.999999", buf_cstr(&OUT));
    buf_truncate(&OUT, 0);
    check_ok(text_spark_value(&OUT, v, 2, &ERR), &ERR);
    check_str("+12021-01-02 03:04:05", buf_cstr(&OUT));
}

/* A whole file under tests/unit/formats/data, NUL-terminated (free with mem_free). */
static char *read_data_file(const char *name)
{
    char path[4096];
    FILE *f;
    buf text = BUF_INIT;
    char chunk[4096];
    size_t n;
    snprintf(path, sizeof(path), "%s/tests/unit/formats/data/%s", test_source_dir(), name);
    f = fopen(path, "rb");
    if (f == NULL)
        test_fail(__FILE__, __LINE__, "test data \"%s\" is missing", path);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        check_ok(buf_append(&text, chunk, n, &ERR), &ERR);
    fclose(f);
    check_ok(buf_append(&text, "", 0, &ERR), &ERR);
    return buf_detach(&text, NULL);
}

/* 300 random hard strings shown by pyspark with truncate 0, 3 and 20 (data/README.md). */
void test_formats_text_table__spark_show_of_random_strings(void)
{
    static const int32_t truncates[3] = {0, 3, 20};
    const char *names[1] = {"s"};
    col_builder *b = builder(prim(COL_STRING));
    col_vec *cols[1];
    char *input = read_data_file("show_strings.jsonl"), *line, *next;
    int idx;
    for (line = input; *line; line = next) {
        cJSON *json;
        next = strchr(line, '\n');
        *next++ = '\0';
        json = cJSON_Parse(line);
        check(cJSON_IsString(json));
        add_str(b, json->valuestring);
        cJSON_Delete(json);
    }
    mem_free(input);
    cols[0] = finish(b);
    check_int(300, cols[0]->length);
    for (idx = 0; idx < 3; idx++) {
        char name[64];
        char *expected;
        snprintf(name, sizeof(name), "show_strings_truncate_%d.txt", (int)truncates[idx]);
        expected = read_data_file(name);
        show(make_batch(1, names, cols), 400, truncates[idx]);
        if (strcmp(expected, buf_cstr(&OUT)) != 0)
            test_fail(__FILE__, __LINE__, "show(truncate=%d) differs from Spark's %s",
                      (int)truncates[idx], name);
        mem_free(expected);
    }
}

/* pyspark 4.1's df.show(n, truncate, vertical=True) of the same rows. */
static const char SPARK_VERTICAL_2_20[] =
    "-RECORD 0--------------------------------------------\n"
    " x                            | a\\nb                 \n"
    " a_very_long_column_name_here | \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e               \n"
    "-RECORD 1--------------------------------------------\n"
    " x                            | hello world, this... \n"
    " a_very_long_column_name_here | NULL                 \n"
    "only showing top 2 rows\n";
static const char SPARK_VERTICAL_1_5[] =
    "-RECORD 0------------------------------\n"
    " x                            | a\\nb   \n"
    " a_very_long_column_name_here | \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \n"
    "only showing top 1 row\n";

static const char *show_vertical(const col_batch *batch, int64_t max_rows, int32_t truncate)
{
    text_table *t;
    buf_truncate(&OUT, 0);
    check_ok(text_table_new(&t, batch->schema, max_rows, truncate, &ERR), &ERR);
    text_table_set_vertical(t);
    check_ok(text_table_add_batch(t, batch, &ERR), &ERR);
    check_ok(text_table_finish(t, &OUT, &ERR), &ERR);
    text_table_free(t);
    return buf_cstr(&OUT);
}

void test_formats_text_table__vertical_matches_spark(void)
{
    const char *names[2] = {"x", "a_very_long_column_name_here"};
    col_vec *cols[2];
    col_builder *b = builder(prim(COL_STRING));
    col_batch *batch;
    add_str(b, "a\nb");
    add_str(b, "hello world, this is long text");
    add_str(b, "z");
    cols[0] = finish(b);
    b = builder(prim(COL_STRING));
    add_str(b, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e");
    add_null(b);
    add_str(b, "w");
    cols[1] = finish(b);
    batch = make_batch(2, names, cols);
    check_str(SPARK_VERTICAL_2_20, show_vertical(batch, 2, 20));
    check_str(SPARK_VERTICAL_1_5, show_vertical(batch, 1, 5));
    batch->n_rows = 0;
    check_str("(0 rows)\n", show_vertical(batch, 20, 20));
}
