/*
 * Unit tests of formats/columnar: types, vectors, validity, dictionary
 * flattening and the row-by-row builders for every type.
 */
#include <string.h>

#include "formats/columnar.h"
#include "test.h"
#include "util/mem.h"

static arena *A;

void test_formats_columnar__initialize(void) { A = arena_new(NULL, "test"); }

void test_formats_columnar__cleanup(void)
{
    arena_free(A);
    A = NULL;
}

static const col_type *prim(col_type_id id) { return col_type_primitive(id); }

static const char *type_text(const col_type *t)
{
    static buf out = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    buf_truncate(&out, 0);
    check_ok(col_type_format(t, &out, &err), &err);
    return buf_cstr(&out);
}

void test_formats_columnar__primitive_types(void)
{
    check(prim(COL_LONG)->id == COL_LONG);
    check(prim(COL_TIMESTAMP_NTZ)->id == COL_TIMESTAMP_NTZ);
    check(prim((col_type_id)99) == NULL);
    check_str("integer", type_text(prim(COL_INT)));
    check_str("long", type_text(prim(COL_LONG)));
    check_str("timestamp_ntz", type_text(prim(COL_TIMESTAMP_NTZ)));
    check_str("void", col_type_id_name(COL_NULL));
    check_int(1, col_type_value_width(COL_BOOLEAN));
    check_int(2, col_type_value_width(COL_SHORT));
    check_int(4, col_type_value_width(COL_DATE));
    check_int(8, col_type_value_width(COL_TIMESTAMP));
    check_int(16, col_type_value_width(COL_DECIMAL));
    check_int(0, col_type_value_width(COL_STRING));
    check_int(0, col_type_value_width(COL_STRUCT));
    check(col_type_is_nested(COL_MAP));
    check(!col_type_is_nested(COL_BINARY));
}

void test_formats_columnar__nested_type_format_and_equality(void)
{
    col_field inner_fields[2] = {{"x", prim(COL_INT), 1, NULL, -1},
                                 {"y", NULL, 0, NULL, -1}};
    col_type *dec = col_type_decimal(A, 10, 2);
    col_type *arr, *map, *inner, *inner2, *dec2;
    inner_fields[1].type = dec;
    inner = col_type_struct(A, 2, inner_fields);
    arr = col_type_array(A, inner, 1);
    map = col_type_map(A, prim(COL_STRING), arr, 1);
    check_str("decimal(10,2)", type_text(dec));
    check_str("struct<x:integer,y:decimal(10,2)>", type_text(inner));
    check_str("map<string,array<struct<x:integer,y:decimal(10,2)>>>", type_text(map));

    check(col_type_equal(map, map));
    inner2 = col_type_struct(A, 2, inner_fields);
    check(col_type_equal(inner, inner2));
    check(col_type_equal(col_type_array(A, inner2, 1), arr));
    /* containsNull matters */
    check(!col_type_equal(col_type_array(A, inner2, 0), arr));
    /* field names are case-sensitive */
    inner_fields[0].name = "X";
    check(!col_type_equal(col_type_struct(A, 2, inner_fields), inner));
    /* precision and scale matter */
    dec2 = col_type_decimal(A, 10, 3);
    check(!col_type_equal(dec, dec2));
    check(!col_type_equal(prim(COL_INT), prim(COL_LONG)));
    check(!col_type_equal(prim(COL_INT), NULL));
    /* the struct copies its fields: later edits of the caller's array do not leak in */
    check_str("x", inner->fields[0].name);
}

void test_formats_columnar__vec_new_is_zeroed(void)
{
    silt_error err = SILT_ERROR_INIT;
    col_vec *v;
    col_field fields[2] = {{"a", prim(COL_LONG), 1, NULL, -1}, {"b", prim(COL_STRING), 1, NULL, -1}};
    int64_t row;
    check_ok(col_vec_new(&v, A, prim(COL_LONG), 100, 1, &err), &err);
    check_int(100, v->length);
    check_int(0, v->null_count);
    for (row = 0; row < 100; row++) {
        check(!col_vec_is_null(v, row));
        check_int(0, ((int64_t *)v->values)[row]);
    }
    check(((uintptr_t)v->values % 64) == 0);

    check_ok(col_vec_new(&v, A, prim(COL_STRING), 5, 0, &err), &err);
    check(v->validity == NULL);
    check(v->offsets != NULL);
    check_int(0, v->offsets[5]);
    check_ok(col_vec_alloc_data(v, A, 10, &err), &err);
    check_int(10, v->data_len);

    check_ok(col_vec_new(&v, A, col_type_struct(A, 2, fields), 7, 0, &err), &err);
    check_int(2, v->n_children);
    check_int(7, v->children[0]->length);
    check_int(7, v->children[1]->length);

    check_ok(col_vec_new(&v, A, col_type_array(A, prim(COL_INT), 1), 3, 0, &err), &err);
    check_int(1, v->n_children);
    check_int(0, v->children[0]->length);

    check_fails(SILT_INVALID, col_vec_new(&v, A, prim(COL_INT), -1, 0, &err));
    check_contains(err.message, "out of range");
}

void test_formats_columnar__nulls(void)
{
    silt_error err = SILT_ERROR_INIT;
    col_vec *v;
    int64_t row;
    check_ok(col_vec_new(&v, A, prim(COL_INT), 20, 0, &err), &err);
    check_ok(col_vec_set_null(v, A, 3, &err), &err);
    check_ok(col_vec_set_null(v, A, 3, &err), &err); /* twice counts once */
    check_ok(col_vec_set_null(v, A, 17, &err), &err);
    check_int(2, v->null_count);
    check(col_vec_is_null(v, 3));
    check(col_vec_is_null(v, 17));
    check(!col_vec_is_null(v, 16));
    check_int(2, col_validity_count_nulls(v->validity, 20));
    check_int(1, col_validity_count_nulls(v->validity, 10));
    check_int(0, col_validity_count_nulls(NULL, 10));

    check_ok(col_vec_new_nulls(&v, A, prim(COL_STRING), 13, &err), &err);
    check_int(13, v->null_count);
    for (row = 0; row < 13; row++)
        check(col_vec_is_null(v, row));
    check_int(13, col_validity_count_nulls(v->validity, 13));
}

/* A STRING vector of dictionary indices over {"apple", "", "kiwi"}. */
static col_vec *dict_vector(void)
{
    silt_error err = SILT_ERROR_INIT;
    col_builder *b;
    col_vec *dict, *v;
    int32_t idx[5] = {2, 0, 1, 0, 2};
    check_ok(col_builder_new(&b, A, prim(COL_STRING), &err), &err);
    check_ok(col_builder_append_bytes(b, "apple", 5, &err), &err);
    check_ok(col_builder_append_bytes(b, "", 0, &err), &err);
    check_ok(col_builder_append_bytes(b, "kiwi", 4, &err), &err);
    check_ok(col_builder_finish(b, &dict, &err), &err);
    check_ok(col_vec_new(&v, A, prim(COL_STRING), 5, 1, &err), &err);
    memcpy(v->values = arena_alloc(A, sizeof(idx)), idx, sizeof(idx));
    v->dictionary = dict;
    check_ok(col_vec_set_null(v, A, 3, &err), &err);
    return v;
}

void test_formats_columnar__flatten_dictionary(void)
{
    silt_error err = SILT_ERROR_INIT;
    col_vec *v = dict_vector(), *flat, *same;
    const char *s;
    int32_t len;
    s = col_vec_str(v, 0, &len);
    check_int(4, len);
    check(memcmp(s, "kiwi", 4) == 0);
    check_ok(col_vec_flatten(&flat, A, v, &err), &err);
    check(flat->dictionary == NULL);
    check_int(1, flat->null_count);
    check_int(13, flat->data_len);
    s = col_vec_str(flat, 0, &len);
    check(len == 4 && memcmp(s, "kiwi", 4) == 0);
    s = col_vec_str(flat, 1, &len);
    check(len == 5 && memcmp(s, "apple", 5) == 0);
    col_vec_str(flat, 2, &len);
    check_int(0, len);
    check(col_vec_is_null(flat, 3));
    col_vec_str(flat, 3, &len);
    check_int(0, len);
    s = col_vec_str(flat, 4, &len);
    check(len == 4 && memcmp(s, "kiwi", 4) == 0);
    /* a plain vector comes back unchanged */
    check_ok(col_vec_flatten(&same, A, flat, &err), &err);
    check(same == flat);
}

void test_formats_columnar__builder_primitives(void)
{
    static const col_type_id ints[] = {COL_BYTE, COL_SHORT, COL_INT, COL_LONG,
                                       COL_DATE, COL_TIMESTAMP, COL_TIMESTAMP_NTZ};
    silt_error err = SILT_ERROR_INIT;
    col_builder *b;
    col_vec *v;
    size_t idx;
    int64_t row;
    for (idx = 0; idx < sizeof(ints) / sizeof(ints[0]); idx++) {
        check_ok(col_builder_new(&b, A, prim(ints[idx]), &err), &err);
        check_ok(col_builder_append_int(b, -7, &err), &err);
        check_ok(col_builder_append_null(b, &err), &err);
        check_ok(col_builder_append_int(b, 100, &err), &err);
        check_int(3, col_builder_length(b));
        check_ok(col_builder_finish(b, &v, &err), &err);
        check_int(3, v->length);
        check_int(1, v->null_count);
        check(col_vec_is_null(v, 1));
        switch (col_type_value_width(ints[idx])) {
        case 1: check_int(-7, ((int8_t *)v->values)[0]); check_int(100, ((int8_t *)v->values)[2]); break;
        case 2: check_int(-7, ((int16_t *)v->values)[0]); check_int(100, ((int16_t *)v->values)[2]); break;
        case 4: check_int(-7, ((int32_t *)v->values)[0]); check_int(100, ((int32_t *)v->values)[2]); break;
        default: check_int(-7, ((int64_t *)v->values)[0]); check_int(100, ((int64_t *)v->values)[2]);
        }
    }

    check_ok(col_builder_new(&b, A, prim(COL_BOOLEAN), &err), &err);
    check_ok(col_builder_append_bool(b, 5, &err), &err);
    check_ok(col_builder_append_int(b, 0, &err), &err);
    check_ok(col_builder_finish(b, &v, &err), &err);
    check(v->validity == NULL);
    check_int(1, ((uint8_t *)v->values)[0]);
    check_int(0, ((uint8_t *)v->values)[1]);

    check_ok(col_builder_new(&b, A, prim(COL_FLOAT), &err), &err);
    check_ok(col_builder_append_double(b, 0.1, &err), &err);
    check_ok(col_builder_finish(b, &v, &err), &err);
    check(((float *)v->values)[0] == 0.1f);

    check_ok(col_builder_new(&b, A, prim(COL_DOUBLE), &err), &err);
    for (row = 0; row < 1000; row++) /* crosses several growth steps and bitmap bytes */
        check_ok(row % 3 ? col_builder_append_double(b, (double)row / 4, &err)
                         : col_builder_append_null(b, &err), &err);
    check_ok(col_builder_finish(b, &v, &err), &err);
    check_int(334, v->null_count);
    check_int(334, col_validity_count_nulls(v->validity, 1000));
    check(((double *)v->values)[998] == 998.0 / 4);
    check(col_vec_is_null(v, 999));
    check(!col_vec_is_null(v, 998));

    check_ok(col_builder_new(&b, A, col_type_decimal(A, 38, 2), &err), &err);
    check_ok(col_builder_append_decimal(b, -((col_int128)1 << 100), &err), &err);
    check_ok(col_builder_finish(b, &v, &err), &err);
    check(((col_int128 *)v->values)[0] == -((col_int128)1 << 100));
}

void test_formats_columnar__builder_strings(void)
{
    silt_error err = SILT_ERROR_INIT;
    col_builder *b;
    col_vec *v;
    const char *s;
    int32_t len;
    check_ok(col_builder_new(&b, A, prim(COL_BINARY), &err), &err);
    check_ok(col_builder_append_bytes(b, "\x00\xff", 2, &err), &err);
    check_ok(col_builder_append_null(b, &err), &err);
    check_ok(col_builder_append_bytes(b, "abc", 3, &err), &err);
    check_ok(col_builder_finish(b, &v, &err), &err);
    check_int(3, v->length);
    check_int(5, v->data_len);
    check_int(0, v->offsets[0]);
    check_int(2, v->offsets[1]);
    check_int(2, v->offsets[2]);
    check_int(5, v->offsets[3]);
    s = col_vec_str(v, 2, &len);
    check(len == 3 && memcmp(s, "abc", 3) == 0);
}

void test_formats_columnar__builder_wrong_type_is_refused(void)
{
    silt_error err = SILT_ERROR_INIT;
    col_builder *b;
    check_ok(col_builder_new(&b, A, prim(COL_STRING), &err), &err);
    check_fails(SILT_INVALID, col_builder_append_int(b, 1, &err));
    check_contains(err.message, "string");
    check_fails(SILT_INVALID, col_builder_append_double(b, 1, &err));
    check_fails(SILT_INVALID, col_builder_append_decimal(b, 1, &err));
    check_fails(SILT_INVALID, col_builder_append_struct(b, &err));
    check_fails(SILT_INVALID, col_builder_append_list(b, 0, &err));
    check_ok(col_builder_new(&b, A, prim(COL_INT), &err), &err);
    check_fails(SILT_INVALID, col_builder_append_bytes(b, "x", 1, &err));
    check(col_builder_child(b, 0) == NULL);
}

void test_formats_columnar__builder_struct(void)
{
    silt_error err = SILT_ERROR_INIT;
    col_field fields[2] = {{"a", prim(COL_INT), 1, NULL, -1}, {"b", prim(COL_STRING), 1, NULL, -1}};
    const col_type *t = col_type_struct(A, 2, fields);
    col_builder *b;
    col_vec *v;
    const char *s;
    int32_t len;
    check_ok(col_builder_new(&b, A, t, &err), &err);
    check_ok(col_builder_append_int(col_builder_child(b, 0), 1, &err), &err);
    check_ok(col_builder_append_bytes(col_builder_child(b, 1), "x", 1, &err), &err);
    check_ok(col_builder_append_struct(b, &err), &err);
    check_ok(col_builder_append_null(b, &err), &err); /* nulls the fields too */
    check_ok(col_builder_append_null(col_builder_child(b, 0), &err), &err);
    check_ok(col_builder_append_bytes(col_builder_child(b, 1), "yz", 2, &err), &err);
    check_ok(col_builder_append_struct(b, &err), &err);
    /* a field left behind is a misuse */
    check_ok(col_builder_append_int(col_builder_child(b, 0), 1, &err), &err);
    check_fails(SILT_INVALID, col_builder_append_struct(b, &err));
    check_contains(err.message, "struct field 1 has 3 values, expected 4");
    check_ok(col_builder_append_bytes(col_builder_child(b, 1), "", 0, &err), &err);
    check_ok(col_builder_append_struct(b, &err), &err);
    check_ok(col_builder_finish(b, &v, &err), &err);
    check_int(4, v->length);
    check_int(1, v->null_count);
    check(col_vec_is_null(v, 1));
    check(col_vec_is_null(v->children[0], 1));
    check(col_vec_is_null(v->children[0], 2));
    check(col_vec_is_null(v->children[1], 1));
    s = col_vec_str(v->children[1], 2, &len);
    check(len == 2 && memcmp(s, "yz", 2) == 0);
}

void test_formats_columnar__builder_array_and_map(void)
{
    silt_error err = SILT_ERROR_INIT;
    const col_type *arr_t = col_type_array(A, prim(COL_LONG), 1);
    const col_type *map_t = col_type_map(A, prim(COL_STRING), arr_t, 1);
    col_builder *b, *keys, *vals;
    col_vec *v;
    check_ok(col_builder_new(&b, A, map_t, &err), &err);
    keys = col_builder_child(b, 0);
    vals = col_builder_child(b, 1);
    /* {"k": [1, null], "e": []} */
    check_ok(col_builder_append_bytes(keys, "k", 1, &err), &err);
    check_ok(col_builder_append_int(col_builder_child(vals, 0), 1, &err), &err);
    check_ok(col_builder_append_null(col_builder_child(vals, 0), &err), &err);
    check_ok(col_builder_append_list(vals, 2, &err), &err);
    check_ok(col_builder_append_bytes(keys, "e", 1, &err), &err);
    check_ok(col_builder_append_list(vals, 0, &err), &err);
    check_ok(col_builder_append_list(b, 2, &err), &err);
    check_ok(col_builder_append_null(b, &err), &err);
    /* a count that does not match the children is a misuse */
    check_fails(SILT_INVALID, col_builder_append_list(b, 1, &err));
    check_ok(col_builder_append_list(b, 0, &err), &err);
    check_ok(col_builder_finish(b, &v, &err), &err);
    check_int(3, v->length);
    check_int(1, v->null_count);
    check_int(0, v->offsets[0]);
    check_int(2, v->offsets[1]);
    check_int(2, v->offsets[2]);
    check_int(2, v->offsets[3]);
    check_int(2, v->children[0]->length);
    check_int(2, v->children[1]->length);
    check_int(0, v->children[1]->offsets[0]);
    check_int(2, v->children[1]->offsets[1]);
    check_int(2, v->children[1]->offsets[2]);
    check_int(2, v->children[1]->children[0]->length);
    check(col_vec_is_null(v->children[1]->children[0], 1));
    check_int(1, ((int64_t *)v->children[1]->children[0]->values)[0]);
}

void test_formats_columnar__builder_out_of_memory(void)
{
    silt_error err = SILT_ERROR_INIT;
    col_builder *b;
    check_ok(col_builder_new(&b, A, prim(COL_STRING), &err), &err);
    mem_fail_after(0);
    check_fails(SILT_NOMEM, col_builder_append_bytes(b, "abc", 3, &err));
    mem_fail_reset();
}

/* Narrowing used to wrap silently (300 became 44 in a byte vector). */
void test_formats_columnar__builder_refuses_out_of_range_integers(void)
{
    silt_error err = SILT_ERROR_INIT;
    col_builder *b;
    col_vec *v;
    check_ok(col_builder_new(&b, A, prim(COL_BYTE), &err), &err);
    check_ok(col_builder_append_int(b, -128, &err), &err);
    check_ok(col_builder_append_int(b, 127, &err), &err);
    check_fails(SILT_INVALID, col_builder_append_int(b, 300, &err));
    check_contains(err.message, "value 300 is out of range for a byte vector");
    check_fails(SILT_INVALID, col_builder_append_int(b, -129, &err));
    check_int(2, col_builder_length(b));
    check_ok(col_builder_finish(b, &v, &err), &err);
    check_int(127, ((int8_t *)v->values)[1]);
    check_ok(col_builder_new(&b, A, prim(COL_SHORT), &err), &err);
    check_fails(SILT_INVALID, col_builder_append_int(b, 32768, &err));
    check_ok(col_builder_new(&b, A, prim(COL_INT), &err), &err);
    check_fails(SILT_INVALID, col_builder_append_int(b, INT64_C(2147483648), &err));
    check_ok(col_builder_append_int(b, INT32_MIN, &err), &err);
    check_ok(col_builder_new(&b, A, prim(COL_DATE), &err), &err);
    check_fails(SILT_INVALID, col_builder_append_int(b, INT64_C(-2147483649), &err));
    check_ok(col_builder_new(&b, A, prim(COL_LONG), &err), &err);
    check_ok(col_builder_append_int(b, INT64_MIN, &err), &err);
}

/*
 * col_vec_take of strings of every length around the 16-byte word copy, in
 * reverse and repeated order, with nulls, the last value flush with the end
 * of the source data; and of 8-, 4-, 2- and 1-byte values.
 */
void test_formats_columnar__take_strings_and_fixed(void)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";
    silt_error err = SILT_ERROR_INIT;
    col_builder *sb, *lb, *ib, *hb, *bb;
    col_vec *strs, *longs, *ints, *shorts, *bools, *got;
    int64_t rows[80], n = 0, row;
    int64_t n_src = 40;
    check_ok(col_builder_new(&sb, A, prim(COL_STRING), &err), &err);
    check_ok(col_builder_new(&lb, A, prim(COL_LONG), &err), &err);
    check_ok(col_builder_new(&ib, A, prim(COL_INT), &err), &err);
    check_ok(col_builder_new(&hb, A, prim(COL_SHORT), &err), &err);
    check_ok(col_builder_new(&bb, A, prim(COL_BOOLEAN), &err), &err);
    for (row = 0; row < n_src; row++) {
        if (row % 13 == 5)
            check_ok(col_builder_append_null(sb, &err), &err);
        else
            check_ok(col_builder_append_bytes(sb, alphabet + row % 7, (size_t)row, &err), &err);
        check_ok(col_builder_append_int(lb, row * 1000003, &err), &err);
        check_ok(col_builder_append_int(ib, -row, &err), &err);
        check_ok(col_builder_append_int(hb, row * 3, &err), &err);
        check_ok(col_builder_append_bool(bb, row % 3 == 1, &err), &err);
    }
    check_ok(col_builder_finish(sb, &strs, &err), &err);
    check_ok(col_builder_finish(lb, &longs, &err), &err);
    check_ok(col_builder_finish(ib, &ints, &err), &err);
    check_ok(col_builder_finish(hb, &shorts, &err), &err);
    check_ok(col_builder_finish(bb, &bools, &err), &err);
    for (row = n_src - 1; row >= 0; row--)
        rows[n++] = row;
    for (row = 0; row < n_src; row += 3)
        rows[n++] = n_src - 1; /* the last value again and again */
    check_ok(col_vec_take(&got, A, strs, rows, n, &err), &err);
    for (row = 0; row < n; row++) {
        int32_t len, want_len;
        const char *want = col_vec_str(strs, rows[row], &want_len);
        const char *bytes = col_vec_str(got, row, &len);
        check_int(col_vec_is_null(strs, rows[row]), col_vec_is_null(got, row));
        check_int(want_len, len);
        check(memcmp(want, bytes, (size_t)len) == 0);
    }
    check_int(got->offsets[n], got->data_len);
    check_ok(col_vec_take(&got, A, longs, rows, n, &err), &err);
    for (row = 0; row < n; row++)
        check_int(rows[row] * 1000003, ((const int64_t *)got->values)[row]);
    check_ok(col_vec_take(&got, A, ints, rows, n, &err), &err);
    for (row = 0; row < n; row++)
        check_int(-rows[row], ((const int32_t *)got->values)[row]);
    check_ok(col_vec_take(&got, A, shorts, rows, n, &err), &err);
    for (row = 0; row < n; row++)
        check_int(rows[row] * 3, ((const int16_t *)got->values)[row]);
    check_ok(col_vec_take(&got, A, bools, rows, n, &err), &err);
    for (row = 0; row < n; row++)
        check_int(rows[row] % 3 == 1, ((const uint8_t *)got->values)[row]);
}

/*
 * A builder keeps no validity bitmap until its first null; then the rows
 * before it are all valid. Nulls at the first row, at a byte's edge and
 * after thousands of valid rows.
 */
void test_formats_columnar__builder_validity_starts_at_first_null(void)
{
    static const int64_t firsts[] = {0, 7, 8, 9, 5000};
    silt_error err = SILT_ERROR_INIT;
    for (size_t c = 0; c < sizeof(firsts) / sizeof(firsts[0]); c++) {
        col_builder *b;
        col_vec *v;
        int64_t first = firsts[c], n = first + 20;
        check_ok(col_builder_new(&b, A, prim(COL_LONG), &err), &err);
        for (int64_t row = 0; row < n; row++) {
            if (row == first || row == first + 3 || row == first + 19)
                check_ok(col_builder_append_null(b, &err), &err);
            else
                check_ok(col_builder_append_int(b, row, &err), &err);
        }
        check_ok(col_builder_finish(b, &v, &err), &err);
        check_int(n, v->length);
        check_int(3, v->null_count);
        check(v->validity != NULL);
        for (int64_t row = 0; row < n; row++) {
            int null = row == first || row == first + 3 || row == first + 19;
            check_int(null, col_vec_is_null(v, row));
            if (!null)
                check_int(row, ((const int64_t *)v->values)[row]);
        }
    }
    col_builder *b;
    col_vec *v;
    check_ok(col_builder_new(&b, A, prim(COL_STRING), &err), &err);
    for (int row = 0; row < 100; row++)
        check_ok(col_builder_append_bytes(b, "ab", 2, &err), &err);
    check_ok(col_builder_finish(b, &v, &err), &err);
    check(v->validity == NULL);
    check_int(0, v->null_count);
}

/*
 * Reserved builders hand their buffers to the vector; a builder that used
 * little of what it reserved copies out the right size. Either way the
 * buffers are 64-byte aligned and hold the values.
 */
void test_formats_columnar__builder_reserve_and_finish(void)
{
    silt_error err = SILT_ERROR_INIT;
    for (int64_t n = 0; n <= 4096; n += 4096 / 4) {
        col_builder *ints, *strs;
        col_vec *iv, *sv;
        check_ok(col_builder_new(&ints, A, prim(COL_INT), &err), &err);
        check_ok(col_builder_new(&strs, A, prim(COL_STRING), &err), &err);
        check_ok(col_builder_reserve(ints, 4096, 1 << 20, &err), &err);
        check_ok(col_builder_reserve(strs, 4096, 3 * 4096, &err), &err);
        for (int64_t row = 0; row < n + 5; row++) {
            check_ok(col_builder_append_int(ints, row, &err), &err);
            check_ok(col_builder_append_bytes(strs, "xyz", 3, &err), &err);
        }
        check_int(3 * (n + 5), (int64_t)col_builder_data_len(strs));
        check_ok(col_builder_finish(ints, &iv, &err), &err);
        check_ok(col_builder_finish(strs, &sv, &err), &err);
        check_int(0, (int64_t)((uintptr_t)iv->values % 64));
        check_int(0, (int64_t)((uintptr_t)sv->offsets % 64));
        check_int(0, (int64_t)((uintptr_t)sv->data % 64));
        check_int(3 * (n + 5), sv->data_len);
        for (int64_t row = 0; row < n + 5; row++) {
            int32_t len;
            check_int(row, ((const int32_t *)iv->values)[row]);
            check(memcmp(col_vec_str(sv, row, &len), "xyz", 3) == 0);
            check_int(3, len);
        }
    }
    col_builder *b;
    check_ok(col_builder_new(&b, A, prim(COL_LONG), &err), &err);
    check_ok(col_builder_reserve(b, 0, 0, &err), &err);
    mem_fail_after(0);
    check_fails(SILT_NOMEM, col_builder_reserve(b, 100, 0, &err));
    mem_fail_reset();
    check_ok(col_builder_append_null(b, &err), &err);
    mem_fail_after(0);
    check_fails(SILT_NOMEM, col_builder_reserve(b, 1000, 0, &err));
    mem_fail_reset();
}
