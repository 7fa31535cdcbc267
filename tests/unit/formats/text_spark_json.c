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
