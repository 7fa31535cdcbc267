/*
 * Unit tests of formats/text_csv.c. The expected lines are what pyspark
 * 4.3.0 wrote with df.drop("b", "arr", "m", "st").write.option("header",
 * True).csv(...) for the rows of text_fixture.h, except where silt departs
 * from Spark on purpose (text_csv.c): decimals plain, RFC 4180 quotes.
 */
#include "text_fixture.h"

void test_formats_text_csv__initialize(void)
{
    A = arena_new(NULL, "test");
    buf_init(&OUT, 0);
    err_clear(&ERR);
}

void test_formats_text_csv__cleanup(void)
{
    arena_free(A);
    buf_clear(&OUT);
}

static const char *csv(const col_batch *batch)
{
    buf_truncate(&OUT, 0);
    check_ok(text_csv_write_header(&OUT, batch->schema, &ERR), &ERR);
    check_ok(text_csv_write_batch(&OUT, batch, &ERR), &ERR);
    return buf_cstr(&OUT);
}

void test_formats_text_csv__matches_spark_csv(void)
{
    static const int keep[10] = {0, 1, 2, 3, 4, 5, 6, 8, 9, 13};
    const char *names[10];
    col_vec *cols[10];
    col_batch *all = make_rows();
    int idx;
    for (idx = 0; idx < 10; idx++) {
        names[idx] = all->schema->fields[keep[idx]].name;
        cols[idx] = all->cols[keep[idx]];
    }
    check_str("i,l,d,f,dec,dec2,s,dt,ts,bo\n"
              "1,9223372036854775807,1.0,0.1,0.000000000000000000,1.50,hello,2021-09-08,"
              "2021-09-08T11:11:11.000Z,true\n"
              ",-1,1.0E10,1.0E10,0.000000000000000001,-0.05,a very long string that is longer "
              "than twenty,0001-01-01,2021-09-08T11:11:11.123Z,false\n"
              "3,0,1.0E-5,1.0E-5,,,\"tab\there\nnewline\",,2021-09-08T11:11:11.000Z,\n"
              "4,0,0.001,1.23456792E8,12345678901234567890.123456789012345678,12345678.99,"
              "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x83\x86\xe3\x82\xad\xe3\x82\xb9\xe3\x83\x88"
              ",,,\n"
              "5,0,NaN,-Infinity,,,\"\",,,\n"
              "6,0,4.9E-324,1.4E-45,,,12345678901234567890,,,\n"
              "7,0,-0.0,1.0E7,,,123456789012345678901,,,\n",
              csv(make_batch(10, names, cols)));
}

void test_formats_text_csv__quoting(void)
{
    const char *names[5] = {"x", "y,z", "q\"", "sp", "cr"};
    col_builder *b[5];
    col_vec *cols[5];
    int idx;
    for (idx = 0; idx < 5; idx++)
        b[idx] = builder(prim(COL_STRING));
    add_str(b[0], "a,b");
    add_str(b[1], "q\"q");
    add_str(b[2], "\"");
    add_str(b[3], " lead and trail ");
    add_str(b[4], "a\rb");
    for (idx = 0; idx < 5; idx++)
        cols[idx] = finish(b[idx]);
    check_str("x,\"y,z\",\"q\"\"\",sp,cr\n"
              "\"a,b\",\"q\"\"q\",\"\"\"\", lead and trail ,\"a\rb\"\n",
              csv(make_batch(5, names, cols)));
}

void test_formats_text_csv__binary_nested_and_ntz(void)
{
    const char *names[4] = {"b", "arr", "ntz", "neg"};
    col_builder *b = builder(prim(COL_BINARY));
    col_builder *arr = builder(col_type_array(A, prim(COL_STRING), 1));
    col_builder *ntz = builder(prim(COL_TIMESTAMP_NTZ));
    col_builder *neg = builder(prim(COL_TIMESTAMP));
    col_vec *cols[4];
    check_ok(col_builder_append_bytes(b, "\x00\xff", 2, &ERR), &ERR);
    add_str(col_builder_child(arr, 0), "x");
    add_null(col_builder_child(arr, 0));
    check_ok(col_builder_append_list(arr, 2, &ERR), &ERR);
    add_int(ntz, ts(2021, 11, 18, 2, 30, 0, 123456));
    add_int(neg, -1); /* 1969-12-31T23:59:59.999999Z: milliseconds are cut, not rounded */
    cols[0] = finish(b);
    cols[1] = finish(arr);
    cols[2] = finish(ntz);
    cols[3] = finish(neg);
    check_str("b,arr,ntz,neg\n"
              "00ff,\"[\"\"x\"\",null]\",2021-11-18T02:30:00.123,1969-12-31T23:59:59.999Z\n",
              csv(make_batch(4, names, cols)));
}

void test_formats_text_csv__buffer_limit_is_an_error(void)
{
    const char *names[1] = {"s"};
    col_builder *b = builder(prim(COL_STRING));
    col_vec *cols[1];
    col_batch *batch;
    buf small;
    add_str(b, "a,\"b\",c");
    cols[0] = finish(b);
    batch = make_batch(1, names, cols);
    buf_init(&small, 9);
    check_fails(SILT_NOMEM, text_csv_write_batch(&small, batch, &ERR));
    check_contains(ERR.message, "limit");
    buf_clear(&small);
}
