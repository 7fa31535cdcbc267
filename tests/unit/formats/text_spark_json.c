/*
 * Unit tests of Spark's JSON lines (text_spark_json_write_batch). The
 * expected text is what pyspark 4.3.0 wrote with df.write.json(...) for the
 * rows of text_fixture.h (session time zone UTC).
 */
#include "text_fixture.h"

void test_formats_text_spark_json__initialize(void)
{
    A = arena_new(NULL, "test");
    buf_init(&OUT, 0);
    err_clear(&ERR);
}

void test_formats_text_spark_json__cleanup(void)
{
    arena_free(A);
    buf_clear(&OUT);
}

static const char SPARK_JSON[] =
    "{\"i\":1,\"l\":9223372036854775807,\"d\":1.0,\"f\":0.1,\"dec\":0E-18,\"dec2\":1.50,\"s\":\"hello\",\"b\":\"AQL/\",\"dt\":\"2021-09-08\",\"ts\":\"2021-09-08T11:11:11.000Z\",\"arr\":[1,2,3],\"m\":{\"a\":1,\"b\":2},\"st\":{\"x\":1,\"y\":\"a\"},\"bo\":true}\n"
    "{\"l\":-1,\"d\":1.0E10,\"f\":1.0E10,\"dec\":1E-18,\"dec2\":-0.05,\"s\":\"a very long string that is longer than twenty\",\"b\":\"\",\"dt\":\"0001-01-01\",\"ts\":\"2021-09-08T11:11:11.123Z\",\"arr\":[1,null,3],\"m\":{\"k\":null},\"st\":{},\"bo\":false}\n"
    "{\"i\":3,\"l\":0,\"d\":1.0E-5,\"f\":1.0E-5,\"s\":\"tab\\there\\nnewline\",\"ts\":\"2021-09-08T11:11:11.000Z\",\"arr\":[],\"m\":{}}\n"
    "{\"i\":4,\"l\":0,\"d\":0.001,\"f\":1.23456792E8,\"dec\":12345678901234567890.123456789012345678,\"dec2\":12345678.99,\"s\":\"日本語テキスト\"}\n"
    "{\"i\":5,\"l\":0,\"d\":\"NaN\",\"f\":\"-Infinity\",\"s\":\"\"}\n"
    "{\"i\":6,\"l\":0,\"d\":4.9E-324,\"f\":1.4E-45,\"s\":\"12345678901234567890\"}\n"
    "{\"i\":7,\"l\":0,\"d\":-0.0,\"f\":1.0E7,\"s\":\"123456789012345678901\"}\n"
    ;

void test_formats_text_spark_json__matches_spark_write_json(void)
{
    check_ok(text_spark_json_write_batch(&OUT, make_rows(), &ERR), &ERR);
    check_str(SPARK_JSON, buf_cstr(&OUT));
}

/* Jackson's escapes (uppercase \u00XX), base64 padding, non-string map keys. */
void test_formats_text_spark_json__escapes_base64_and_keys(void)
{
    const char *names[3] = {"s\"", "b", "m"};
    col_builder *s = builder(prim(COL_STRING)), *b = builder(prim(COL_BINARY));
    col_builder *m = builder(col_type_map(A, prim(COL_INT), prim(COL_DOUBLE), 1));
    col_vec *cols[3];
    add_str(s, "\x01/\x7f\\");
    add_str(s, "");
    check_ok(col_builder_append_bytes(b, "\xff", 1, &ERR), &ERR);
    check_ok(col_builder_append_bytes(b, "\xff\xfe", 2, &ERR), &ERR);
    add_int(col_builder_child(m, 0), -7);
    add_dbl(col_builder_child(m, 1), INFINITY);
    check_ok(col_builder_append_list(m, 1, &ERR), &ERR);
    add_null(m);
    cols[0] = finish(s);
    cols[1] = finish(b);
    cols[2] = finish(m);
    check_ok(text_spark_json_write_batch(&OUT, make_batch(3, names, cols), &ERR), &ERR);
    check_str("{\"s\\\"\":\"\\u0001/\x7f\\\\\",\"b\":\"/w==\",\"m\":{\"-7\":\"Infinity\"}}\n"
              "{\"s\\\"\":\"\",\"b\":\"//4=\"}\n",
              buf_cstr(&OUT));
}

/*
 * select timestamp'10000-01-01 00:00:00' a, timestamp'-0001-06-01 12:00:00.5' b,
 *   timestamp'1969-12-31 23:59:59.999999' c, timestamp_ntz'0001-01-01 00:00:00.000001' d,
 *   date'-5000-02-03' e, cast(1e-4 as float) f, cast(123456789012 as float) g,
 *   cast(-1.5e-7 as double) h
 * shown, written as JSON and as CSV by pyspark 4.3.0: years past 9999 get a '+'.
 */
void test_formats_text_spark_json__edge_dates_in_every_format(void)
{
    const char *names[8] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    col_builder *bl[8];
    col_vec *cols[8];
    col_batch *batch;
    text_table *t;
    int idx;
    bl[0] = builder(prim(COL_TIMESTAMP));
    bl[1] = builder(prim(COL_TIMESTAMP));
    bl[2] = builder(prim(COL_TIMESTAMP));
    bl[3] = builder(prim(COL_TIMESTAMP_NTZ));
    bl[4] = builder(prim(COL_DATE));
    bl[5] = builder(prim(COL_FLOAT));
    bl[6] = builder(prim(COL_FLOAT));
    bl[7] = builder(prim(COL_DOUBLE));
    add_int(bl[0], ts(10000, 1, 1, 0, 0, 0, 0));
    add_int(bl[1], ts(-1, 6, 1, 12, 0, 0, 500000));
    add_int(bl[2], ts(1969, 12, 31, 23, 59, 59, 999999));
    add_int(bl[3], ts(1, 1, 1, 0, 0, 0, 1));
    add_int(bl[4], time_days_from_civil(-5000, 2, 3));
    add_dbl(bl[5], 1e-4f);
    add_dbl(bl[6], 123456789012.0f);
    add_dbl(bl[7], -1.5e-7);
    for (idx = 0; idx < 8; idx++)
        cols[idx] = finish(bl[idx]);
    batch = make_batch(8, names, cols);

    check_ok(text_table_new(&t, batch->schema, 20, 0, &ERR), &ERR);
    check_ok(text_table_add_batch(t, batch, &ERR), &ERR);
    check_ok(text_table_finish(t, &OUT, &ERR), &ERR);
    text_table_free(t);
    check_str("+---------------------+----------------------+--------------------------+-------"
              "-------------------+-----------+------+-------------+-------+\n"
              "|a                    |b                     |c                         |d      "
              "                   |e          |f     |g            |h      |\n"
              "+---------------------+----------------------+--------------------------+-------"
              "-------------------+-----------+------+-------------+-------+\n"
              "|+10000-01-01 00:00:00|-0001-06-01 12:00:00.5|1969-12-31 23:59:59.999999|0001-01"
              "-01 00:00:00.000001|-5000-02-03|1.0E-4|1.23456791E11|-1.5E-7|\n"
              "+---------------------+----------------------+--------------------------+-------"
              "-------------------+-----------+------+-------------+-------+\n",
              buf_cstr(&OUT));

    buf_truncate(&OUT, 0);
    check_ok(text_spark_json_write_batch(&OUT, batch, &ERR), &ERR);
    check_str("{\"a\":\"+10000-01-01T00:00:00.000Z\",\"b\":\"-0001-06-01T12:00:00.500Z\","
              "\"c\":\"1969-12-31T23:59:59.999Z\",\"d\":\"0001-01-01T00:00:00.000\","
              "\"e\":\"-5000-02-03\",\"f\":1.0E-4,\"g\":1.23456791E11,\"h\":-1.5E-7}\n",
              buf_cstr(&OUT));

    buf_truncate(&OUT, 0);
    check_ok(text_csv_write_header(&OUT, batch->schema, &ERR), &ERR);
    check_ok(text_csv_write_batch(&OUT, batch, &ERR), &ERR);
    check_str("a,b,c,d,e,f,g,h\n"
              "+10000-01-01T00:00:00.000Z,-0001-06-01T12:00:00.500Z,1969-12-31T23:59:59.999Z,"
              "0001-01-01T00:00:00.000,-5000-02-03,1.0E-4,1.23456791E11,-1.5E-7\n",
              buf_cstr(&OUT));
}
