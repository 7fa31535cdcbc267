/*
 * Unit tests of the canonical JSON of formats/text_json.c (conformance
 * README, "Canonical row format"), value by value and as JSON lines.
 */
#include <math.h>
#include <stdio.h>

#include "formats/text.h"
#include "test.h"
#include "util/time.h"

static arena *A;
static buf OUT;
static silt_error ERR;

void test_formats_text_json__initialize(void)
{
    A = arena_new(NULL, "test");
    buf_init(&OUT, 0);
    err_clear(&ERR);
}

void test_formats_text_json__cleanup(void)
{
    arena_free(A);
    buf_clear(&OUT);
}

static const col_type *prim(col_type_id id) { return col_type_primitive(id); }

static col_builder *builder(const col_type *t)
{
    col_builder *b;
    check_ok(col_builder_new(&b, A, t, &ERR), &ERR);
    return b;
}

static col_vec *finish(col_builder *b)
{
    col_vec *v;
    check_ok(col_builder_finish(b, &v, &ERR), &ERR);
    return v;
}

/* The canonical JSON of row `row` of v. */
static const char *json(const col_vec *v, int64_t row)
{
    buf_truncate(&OUT, 0);
    check_ok(text_json_value(&OUT, v, row, &ERR), &ERR);
    return buf_cstr(&OUT);
}

void test_formats_text_json__integers_and_booleans(void)
{
    col_builder *b = builder(prim(COL_LONG));
    col_vec *v;
    check_ok(col_builder_append_int(b, INT64_MIN, &ERR), &ERR);
    check_ok(col_builder_append_int(b, INT64_MAX, &ERR), &ERR);
    check_ok(col_builder_append_int(b, 0, &ERR), &ERR);
    check_ok(col_builder_append_null(b, &ERR), &ERR);
    v = finish(b);
    check_str("-9223372036854775808", json(v, 0));
    check_str("9223372036854775807", json(v, 1));
    check_str("0", json(v, 2));
    check_str("null", json(v, 3));

    b = builder(prim(COL_BYTE));
    check_ok(col_builder_append_int(b, -128, &ERR), &ERR);
    v = finish(b);
    check_str("-128", json(v, 0));
    b = builder(prim(COL_SHORT));
    check_ok(col_builder_append_int(b, 32767, &ERR), &ERR);
    v = finish(b);
    check_str("32767", json(v, 0));
    b = builder(prim(COL_INT));
    check_ok(col_builder_append_int(b, INT32_MIN, &ERR), &ERR);
    v = finish(b);
    check_str("-2147483648", json(v, 0));

    b = builder(prim(COL_BOOLEAN));
    check_ok(col_builder_append_bool(b, 1, &ERR), &ERR);
    check_ok(col_builder_append_bool(b, 0, &ERR), &ERR);
    v = finish(b);
    check_str("true", json(v, 0));
    check_str("false", json(v, 1));
}

void test_formats_text_json__floats_and_doubles(void)
{
    col_builder *b = builder(prim(COL_FLOAT));
    col_vec *v;
    check_ok(col_builder_append_double(b, 0.1, &ERR), &ERR);
    check_ok(col_builder_append_double(b, 35.568, &ERR), &ERR);
    check_ok(col_builder_append_double(b, NAN, &ERR), &ERR);
    check_ok(col_builder_append_double(b, -0.0, &ERR), &ERR);
    v = finish(b);
    check_str("0.1", json(v, 0));
    check_str("35.568", json(v, 1));
    check_str("\"NaN\"", json(v, 2));
    check_str("-0", json(v, 3));

    b = builder(prim(COL_DOUBLE));
    check_ok(col_builder_append_double(b, 0.1 + 0.2, &ERR), &ERR);
    check_ok(col_builder_append_double(b, INFINITY, &ERR), &ERR);
    check_ok(col_builder_append_double(b, -INFINITY, &ERR), &ERR);
    check_ok(col_builder_append_double(b, 1e21, &ERR), &ERR);
    check_ok(col_builder_append_double(b, 2.0, &ERR), &ERR);
    /* a float widened to double keeps the exact double of the float */
    check_ok(col_builder_append_double(b, (double)0.1f, &ERR), &ERR);
    v = finish(b);
    check_str("0.30000000000000004", json(v, 0));
    check_str("\"Infinity\"", json(v, 1));
    check_str("\"-Infinity\"", json(v, 2));
    check_str("1e+21", json(v, 3));
    check_str("2", json(v, 4));
    check_str("0.10000000149011612", json(v, 5));
}

void test_formats_text_json__decimals(void)
{
    col_builder *b = builder(col_type_decimal(A, 10, 3));
    col_vec *v;
    check_ok(col_builder_append_decimal(b, -50, &ERR), &ERR);
    check_ok(col_builder_append_decimal(b, 12345, &ERR), &ERR);
    v = finish(b);
    check_str("\"-0.050\"", json(v, 0));
    check_str("\"12.345\"", json(v, 1));
    b = builder(col_type_decimal(A, 5, 0));
    check_ok(col_builder_append_decimal(b, 12, &ERR), &ERR);
    v = finish(b);
    check_str("\"12\"", json(v, 0));
}

void test_formats_text_json__strings_escape_only_what_json_needs(void)
{
    col_builder *b = builder(prim(COL_STRING));
    col_vec *v;
    static const char ctl[] = "\x01\x1f\x7f";
    check_ok(col_builder_append_bytes(b, "a\"b", 3, &ERR), &ERR);
    check_ok(col_builder_append_bytes(b, "back\\slash/", 11, &ERR), &ERR);
    check_ok(col_builder_append_bytes(b, "\b\f\n\r\t", 5, &ERR), &ERR);
    check_ok(col_builder_append_bytes(b, ctl, 3, &ERR), &ERR);
    check_ok(col_builder_append_bytes(b, "\0", 1, &ERR), &ERR);
    check_ok(col_builder_append_bytes(b, "h\xc3\xa9 \xe6\x97\xa5", 7, &ERR), &ERR);
    check_ok(col_builder_append_bytes(b, "", 0, &ERR), &ERR);
    v = finish(b);
    check_str("\"a\\\"b\"", json(v, 0));
    check_str("\"back\\\\slash/\"", json(v, 1));
    check_str("\"\\b\\f\\n\\r\\t\"", json(v, 2));
    check_str("\"\\u0001\\u001f\x7f\"", json(v, 3));
    check_str("\"\\u0000\"", json(v, 4));
    check_str("\"h\xc3\xa9 \xe6\x97\xa5\"", json(v, 5));
    check_str("\"\"", json(v, 6));
}

void test_formats_text_json__binary_is_lowercase_hex(void)
{
    col_builder *b = builder(prim(COL_BINARY));
    col_vec *v;
    check_ok(col_builder_append_bytes(b, "\x00\xff\xab\x10", 4, &ERR), &ERR);
    check_ok(col_builder_append_bytes(b, "", 0, &ERR), &ERR);
    v = finish(b);
    check_str("\"00ffab10\"", json(v, 0));
    check_str("\"\"", json(v, 1));
}

void test_formats_text_json__dates_and_timestamps(void)
{
    col_builder *b = builder(prim(COL_DATE));
    col_vec *v;
    int64_t micros;
    check_ok(col_builder_append_int(b, time_days_from_civil(2021, 9, 8), &ERR), &ERR);
    check_ok(col_builder_append_int(b, time_days_from_civil(1, 1, 1), &ERR), &ERR);
    check_ok(col_builder_append_int(b, time_days_from_civil(-1, 12, 31), &ERR), &ERR);
    check_ok(col_builder_append_int(b, time_days_from_civil(0, 1, 1), &ERR), &ERR);
    check_ok(col_builder_append_int(b, time_days_from_civil(12345, 6, 7), &ERR), &ERR);
    v = finish(b);
    check_str("\"2021-09-08\"", json(v, 0));
    check_str("\"0001-01-01\"", json(v, 1));
    check_str("\"-0001-12-31\"", json(v, 2));
    check_str("\"0000-01-01\"", json(v, 3));
    check_str("\"12345-06-07\"", json(v, 4));

    micros = time_days_from_civil(2021, 9, 8) * TIME_MICROS_PER_DAY + 11 * INT64_C(3600000000) +
             11 * INT64_C(60000000) + 11 * TIME_MICROS_PER_SECOND;
    b = builder(prim(COL_TIMESTAMP));
    check_ok(col_builder_append_int(b, micros, &ERR), &ERR);
    check_ok(col_builder_append_int(b, -1, &ERR), &ERR);
    check_ok(col_builder_append_int(b, micros + 123456, &ERR), &ERR);
    v = finish(b);
    check_str("\"2021-09-08T11:11:11.000000Z\"", json(v, 0));
    check_str("\"1969-12-31T23:59:59.999999Z\"", json(v, 1));
    check_str("\"2021-09-08T11:11:11.123456Z\"", json(v, 2));

    b = builder(prim(COL_TIMESTAMP_NTZ));
    check_ok(col_builder_append_int(b, micros + 123456, &ERR), &ERR);
    v = finish(b);
    check_str("\"2021-09-08T11:11:11.123456\"", json(v, 0));
}

void test_formats_text_json__structs_and_arrays(void)
{
    col_field inner_f[1] = {{"aca", NULL, 1, NULL, -1}};
    col_field outer_f[2] = {{"aa", NULL, 1, NULL, -1}, {"ac", NULL, 1, NULL, -1}};
    const col_type *inner, *outer, *arr_t;
    col_builder *b, *ac, *a;
    col_vec *v;
    inner_f[0].type = prim(COL_INT);
    inner = col_type_struct(A, 1, inner_f);
    outer_f[0].type = prim(COL_STRING);
    outer_f[1].type = inner;
    outer = col_type_struct(A, 2, outer_f);
    b = builder(outer);
    ac = col_builder_child(b, 1);
    check_ok(col_builder_append_bytes(col_builder_child(b, 0), "1", 1, &ERR), &ERR);
    check_ok(col_builder_append_int(col_builder_child(ac, 0), 1, &ERR), &ERR);
    check_ok(col_builder_append_struct(ac, &ERR), &ERR);
    check_ok(col_builder_append_struct(b, &ERR), &ERR);
    check_ok(col_builder_append_null(b, &ERR), &ERR);
    check_ok(col_builder_append_null(col_builder_child(b, 0), &ERR), &ERR);
    check_ok(col_builder_append_null(ac, &ERR), &ERR);
    check_ok(col_builder_append_struct(b, &ERR), &ERR);
    v = finish(b);
    check_str("{\"aa\":\"1\",\"ac\":{\"aca\":1}}", json(v, 0));
    check_str("null", json(v, 1));
    check_str("{\"aa\":null,\"ac\":null}", json(v, 2));

    arr_t = col_type_array(A, prim(COL_LONG), 1);
    a = builder(arr_t);
    check_ok(col_builder_append_int(col_builder_child(a, 0), 1, &ERR), &ERR);
    check_ok(col_builder_append_null(col_builder_child(a, 0), &ERR), &ERR);
    check_ok(col_builder_append_int(col_builder_child(a, 0), 2, &ERR), &ERR);
    check_ok(col_builder_append_list(a, 3, &ERR), &ERR);
    check_ok(col_builder_append_list(a, 0, &ERR), &ERR);
    check_ok(col_builder_append_null(a, &ERR), &ERR);
    check_ok(col_builder_append_int(col_builder_child(a, 0), -5, &ERR), &ERR);
    check_ok(col_builder_append_list(a, 1, &ERR), &ERR);
    v = finish(a);
    check_str("[1,null,2]", json(v, 0));
    check_str("[]", json(v, 1));
    check_str("null", json(v, 2));
    check_str("[-5]", json(v, 3));
}

/* The README's own example: [[1,[2,3]],[2,[]]] from map<int,array<int>>. */
void test_formats_text_json__maps_sorted_by_serialized_key(void)
{
    const col_type *arr_t = col_type_array(A, prim(COL_INT), 1);
    const col_type *map_t = col_type_map(A, prim(COL_INT), arr_t, 1);
    const col_type *smap_t = col_type_map(A, prim(COL_STRING), prim(COL_DOUBLE), 1);
    col_builder *b = builder(map_t), *keys = col_builder_child(b, 0), *vals = col_builder_child(b, 1);
    col_vec *v;
    int idx;
    check_ok(col_builder_append_int(keys, 2, &ERR), &ERR);
    check_ok(col_builder_append_list(vals, 0, &ERR), &ERR);
    check_ok(col_builder_append_int(keys, 1, &ERR), &ERR);
    check_ok(col_builder_append_int(col_builder_child(vals, 0), 2, &ERR), &ERR);
    check_ok(col_builder_append_int(col_builder_child(vals, 0), 3, &ERR), &ERR);
    check_ok(col_builder_append_list(vals, 2, &ERR), &ERR);
    check_ok(col_builder_append_list(b, 2, &ERR), &ERR);
    check_ok(col_builder_append_list(b, 0, &ERR), &ERR);
    /* byte order of the serialized key: "-1" < "10" < "9" */
    check_ok(col_builder_append_int(keys, 9, &ERR), &ERR);
    check_ok(col_builder_append_null(vals, &ERR), &ERR);
    check_ok(col_builder_append_int(keys, 10, &ERR), &ERR);
    check_ok(col_builder_append_null(vals, &ERR), &ERR);
    check_ok(col_builder_append_int(keys, -1, &ERR), &ERR);
    check_ok(col_builder_append_null(vals, &ERR), &ERR);
    check_ok(col_builder_append_list(b, 3, &ERR), &ERR);
    check_ok(col_builder_append_null(b, &ERR), &ERR);
    v = finish(b);
    check_str("[[1,[2,3]],[2,[]]]", json(v, 0));
    check_str("[]", json(v, 1));
    check_str("[[-1,null],[10,null],[9,null]]", json(v, 2));
    check_str("null", json(v, 3));

    /* string keys compare by their serialized text: "a" < "a\"" (quote 0x22 < '"' end) */
    b = builder(smap_t);
    keys = col_builder_child(b, 0);
    vals = col_builder_child(b, 1);
    check_ok(col_builder_append_bytes(keys, "b", 1, &ERR), &ERR);
    check_ok(col_builder_append_double(vals, 0.5, &ERR), &ERR);
    check_ok(col_builder_append_bytes(keys, "ab", 2, &ERR), &ERR);
    check_ok(col_builder_append_double(vals, 1, &ERR), &ERR);
    check_ok(col_builder_append_bytes(keys, "a", 1, &ERR), &ERR);
    check_ok(col_builder_append_double(vals, NAN, &ERR), &ERR);
    check_ok(col_builder_append_list(b, 3, &ERR), &ERR);
    /* a big map exercises the merge sort and buffer growth */
    for (idx = 0; idx < 500; idx++) {
        char key[8];
        int len = snprintf(key, sizeof(key), "k%03d", 499 - idx);
        check_ok(col_builder_append_bytes(keys, key, (size_t)len, &ERR), &ERR);
        check_ok(col_builder_append_double(vals, idx, &ERR), &ERR);
    }
    check_ok(col_builder_append_list(b, 500, &ERR), &ERR);
    v = finish(b);
    check_str("[[\"a\",\"NaN\"],[\"ab\",1],[\"b\",0.5]]", json(v, 0));
    json(v, 1);
    check(util_str_starts_with(buf_cstr(&OUT), "[[\"k000\",499],[\"k001\",498],"));
    check(util_str_ends_with(buf_cstr(&OUT), "[\"k499\",0]]"));
    check_contains(buf_cstr(&OUT), "],[\"k250\",249],[\"k251\",248],");
}

void test_formats_text_json__map_inside_text_keeps_prefix(void)
{
    const col_type *map_t = col_type_map(A, prim(COL_STRING), prim(COL_INT), 1);
    col_builder *b = builder(map_t);
    col_vec *v;
    check_ok(col_builder_append_bytes(col_builder_child(b, 0), "z", 1, &ERR), &ERR);
    check_ok(col_builder_append_int(col_builder_child(b, 1), 1, &ERR), &ERR);
    check_ok(col_builder_append_bytes(col_builder_child(b, 0), "y", 1, &ERR), &ERR);
    check_ok(col_builder_append_int(col_builder_child(b, 1), 2, &ERR), &ERR);
    check_ok(col_builder_append_list(b, 2, &ERR), &ERR);
    v = finish(b);
    buf_truncate(&OUT, 0);
    check_ok(buf_append_str(&OUT, "prefix:", &ERR), &ERR);
    check_ok(text_json_value(&OUT, v, 0, &ERR), &ERR);
    check_ok(buf_append_str(&OUT, ":suffix", &ERR), &ERR);
    check_str("prefix:[[\"y\",2],[\"z\",1]]:suffix", buf_cstr(&OUT));
}

void test_formats_text_json__dictionary_strings(void)
{
    col_builder *b = builder(prim(COL_STRING));
    col_vec *dict, *v;
    int32_t *idx;
    check_ok(col_builder_append_bytes(b, "x", 1, &ERR), &ERR);
    check_ok(col_builder_append_bytes(b, "yy", 2, &ERR), &ERR);
    dict = finish(b);
    check_ok(col_vec_new(&v, A, prim(COL_STRING), 3, 0, &ERR), &ERR);
    idx = arena_alloc(A, 3 * sizeof(int32_t));
    idx[0] = 1;
    idx[1] = 0;
    idx[2] = 1;
    v->values = idx;
    v->dictionary = dict;
    check_str("\"yy\"", json(v, 0));
    check_str("\"x\"", json(v, 1));
}

void test_formats_text_json__jsonl_batch(void)
{
    col_field fields[3] = {{"id", NULL, 1, NULL, -1}, {"name", NULL, 1, NULL, -1},
                           {"we\"ird", NULL, 1, NULL, -1}};
    col_builder *ids, *names;
    col_batch batch;
    col_vec *cols[3];
    fields[0].type = prim(COL_LONG);
    fields[1].type = prim(COL_STRING);
    fields[2].type = prim(COL_NULL);
    ids = builder(prim(COL_LONG));
    names = builder(prim(COL_STRING));
    check_ok(col_builder_append_int(ids, 1, &ERR), &ERR);
    check_ok(col_builder_append_bytes(names, "a", 1, &ERR), &ERR);
    check_ok(col_builder_append_int(ids, 2, &ERR), &ERR);
    check_ok(col_builder_append_null(names, &ERR), &ERR);
    cols[0] = finish(ids);
    cols[1] = finish(names);
    check_ok(col_vec_new_nulls(&cols[2], A, prim(COL_NULL), 2, &ERR), &ERR);
    batch.schema = col_type_struct(A, 3, fields);
    batch.n_rows = 2;
    batch.n_cols = 3;
    batch.cols = cols;
    check_ok(text_jsonl_write_batch(&OUT, &batch, &ERR), &ERR);
    check_str("{\"id\":1,\"name\":\"a\",\"we\\\"ird\":null}\n"
              "{\"id\":2,\"name\":null,\"we\\\"ird\":null}\n",
              buf_cstr(&OUT));
    batch.n_rows = 0;
    buf_truncate(&OUT, 0);
    check_ok(text_jsonl_write_batch(&OUT, &batch, &ERR), &ERR);
    check_str("", buf_cstr(&OUT));
}

void test_formats_text_json__buffer_limit_is_an_error(void)
{
    col_builder *b = builder(prim(COL_STRING));
    col_vec *v;
    buf small;
    check_ok(col_builder_append_bytes(b, "0123456789abcdef", 16, &ERR), &ERR);
    v = finish(b);
    buf_init(&small, 8);
    check_fails(SILT_NOMEM, text_json_value(&small, v, 0, &ERR));
    check_contains(ERR.message, "limit");
    buf_clear(&small);
}

void test_formats_text_json__lines_sort_by_bytes(void)
{
    check_ok(buf_append_str(&OUT, "{\"a\":2}\n{\"a\":10}\n{\"a\":1}\n{\"a\":1,\"b\":0}\n\xc3\xa9\nz", &ERR),
             &ERR);
    check_ok(text_lines_sort(&OUT, &ERR), &ERR);
    check_str("z\n{\"a\":1,\"b\":0}\n{\"a\":10}\n{\"a\":1}\n{\"a\":2}\n\xc3\xa9\n", buf_cstr(&OUT));
    buf_truncate(&OUT, 0);
    check_ok(text_lines_sort(&OUT, &ERR), &ERR);
    check_str("", buf_cstr(&OUT));
    check_ok(buf_append_str(&OUT, "b\n\na\n", &ERR), &ERR);
    check_ok(text_lines_sort(&OUT, &ERR), &ERR);
    check_str("\na\nb\n", buf_cstr(&OUT));
}

/* The canonical form and Jackson's (Spark's writer) differ only in the case of \u00XX. */
void test_formats_text_json__string_escapers(void)
{
    static const char raw[] = "a\"b\\c\n\t\x01\x1f/\xc3\xa9";
    check_ok(text_json_string(&OUT, raw, sizeof(raw) - 1, &ERR), &ERR);
    check_str("\"a\\\"b\\\\c\\n\\t\\u0001\\u001f/\xc3\xa9\"", buf_cstr(&OUT));
    buf_truncate(&OUT, 0);
    check_ok(text_spark_json_string(&OUT, raw, sizeof(raw) - 1, &ERR), &ERR);
    check_str("\"a\\\"b\\\\c\\n\\t\\u0001\\u001F/\xc3\xa9\"", buf_cstr(&OUT));
}
