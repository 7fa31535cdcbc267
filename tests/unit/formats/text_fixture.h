/*
 * text_fixture.h - rows shared by the tests of formats/text*.c: the seven
 * rows of the pyspark script whose show(), CSV and JSON output the tests
 * compare with, and small builder helpers. Included by one test file at a
 * time; everything is static.
 */
#ifndef SILT_TEST_TEXT_FIXTURE_H
#define SILT_TEST_TEXT_FIXTURE_H

#include <math.h>

#include "formats/text.h"
#include "test.h"
#include "util/time.h"

static arena *A;
static buf OUT;
static silt_error ERR;

static inline const col_type *prim(col_type_id id) { return col_type_primitive(id); }

static inline col_builder *builder(const col_type *t)
{
    col_builder *b;
    check_ok(col_builder_new(&b, A, t, &ERR), &ERR);
    return b;
}

static inline col_vec *finish(col_builder *b)
{
    col_vec *v;
    check_ok(col_builder_finish(b, &v, &ERR), &ERR);
    return v;
}

static inline void add_str(col_builder *b, const char *s)
{
    check_ok(s ? col_builder_append_bytes(b, s, strlen(s), &ERR) : col_builder_append_null(b, &ERR),
             &ERR);
}

static inline void add_int(col_builder *b, int64_t value) { check_ok(col_builder_append_int(b, value, &ERR), &ERR); }
static inline void add_null(col_builder *b) { check_ok(col_builder_append_null(b, &ERR), &ERR); }
static inline void add_dbl(col_builder *b, double value) { check_ok(col_builder_append_double(b, value, &ERR), &ERR); }

static inline int64_t ts(int64_t y, unsigned mo, unsigned d, int h, int mi, int s, int64_t micros)
{
    return time_days_from_civil(y, mo, d) * TIME_MICROS_PER_DAY +
           ((int64_t)h * 3600 + mi * 60 + s) * TIME_MICROS_PER_SECOND + micros;
}

static inline col_batch *make_batch(size_t n_cols, const char **names, col_vec **cols)
{
    col_field *fields = arena_calloc(A, n_cols, sizeof(col_field));
    col_batch *batch = arena_calloc(A, 1, sizeof(col_batch));
    size_t idx;
    for (idx = 0; idx < n_cols; idx++) {
        fields[idx].name = names[idx];
        fields[idx].type = cols[idx]->type;
        fields[idx].nullable = 1;
        fields[idx].field_id = -1;
    }
    batch->schema = col_type_struct(A, n_cols, fields);
    batch->n_cols = n_cols;
    batch->cols = cols;
    batch->n_rows = n_cols ? cols[0]->length : 0;
    return batch;
}

/* The 7 rows of the pyspark script, columns i l d f dec dec2 s b dt ts arr m st bo. */
static inline col_batch *make_rows(void)
{
    static const char *names[14] = {"i", "l", "d", "f", "dec", "dec2", "s",
                                    "b", "dt", "ts", "arr", "m", "st", "bo"};
    static const char *strings[7] = {"hello", "a very long string that is longer than twenty",
                                     "tab\there\nnewline",
                                     "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x83\x86\xe3\x82\xad"
                                     "\xe3\x82\xb9\xe3\x83\x88",
                                     "", "12345678901234567890", "123456789012345678901"};
    static const double doubles[7] = {1.0, 1e10, 1e-5, 0.001, NAN, 5e-324, -0.0};
    static const float floats[7] = {0.1f, 1e10f, 1e-5f, 123456789.0f, -INFINITY, 1.4e-45f, 1e7f};
    col_vec **cols = arena_calloc(A, 14, sizeof(col_vec *));
    col_builder *b[14];
    col_field st_fields[2] = {{"x", NULL, 1, NULL, -1}, {"y", NULL, 1, NULL, -1}};
    col_int128 big = 0;
    const char *digits = "12345678901234567890123456789012345678";
    int row, idx;
    st_fields[0].type = prim(COL_INT);
    st_fields[1].type = prim(COL_STRING);
    for (idx = 0; digits[idx]; idx++)
        big = big * 10 + (digits[idx] - '0');
    b[0] = builder(prim(COL_INT));
    b[1] = builder(prim(COL_LONG));
    b[2] = builder(prim(COL_DOUBLE));
    b[3] = builder(prim(COL_FLOAT));
    b[4] = builder(col_type_decimal(A, 38, 18));
    b[5] = builder(col_type_decimal(A, 10, 2));
    b[6] = builder(prim(COL_STRING));
    b[7] = builder(prim(COL_BINARY));
    b[8] = builder(prim(COL_DATE));
    b[9] = builder(prim(COL_TIMESTAMP));
    b[10] = builder(col_type_array(A, prim(COL_INT), 1));
    b[11] = builder(col_type_map(A, prim(COL_STRING), prim(COL_INT), 1));
    b[12] = builder(col_type_struct(A, 2, st_fields));
    b[13] = builder(prim(COL_BOOLEAN));
    for (row = 0; row < 7; row++) {
        if (row == 1)
            add_null(b[0]);
        else
            add_int(b[0], row + 1);
        add_int(b[1], row == 0 ? INT64_MAX : row == 1 ? -1 : 0);
        add_dbl(b[2], doubles[row]);
        add_dbl(b[3], floats[row]);
        add_str(b[6], strings[row]);
    }
    check_ok(col_builder_append_decimal(b[4], 0, &ERR), &ERR);
    check_ok(col_builder_append_decimal(b[4], 1, &ERR), &ERR);
    add_null(b[4]);
    check_ok(col_builder_append_decimal(b[4], big, &ERR), &ERR);
    check_ok(col_builder_append_decimal(b[5], 150, &ERR), &ERR);
    check_ok(col_builder_append_decimal(b[5], -5, &ERR), &ERR);
    add_null(b[5]);
    check_ok(col_builder_append_decimal(b[5], 1234567899, &ERR), &ERR);
    check_ok(col_builder_append_bytes(b[7], "\x01\x02\xff", 3, &ERR), &ERR);
    check_ok(col_builder_append_bytes(b[7], "", 0, &ERR), &ERR);
    add_int(b[8], time_days_from_civil(2021, 9, 8));
    add_int(b[8], time_days_from_civil(1, 1, 1));
    add_int(b[9], ts(2021, 9, 8, 11, 11, 11, 0));
    add_int(b[9], ts(2021, 9, 8, 11, 11, 11, 123000));
    add_int(b[9], ts(2021, 9, 8, 11, 11, 11, 100));
    /* arr: [1, 2, 3], [1, NULL, 3], [] */
    add_int(col_builder_child(b[10], 0), 1);
    add_int(col_builder_child(b[10], 0), 2);
    add_int(col_builder_child(b[10], 0), 3);
    check_ok(col_builder_append_list(b[10], 3, &ERR), &ERR);
    add_int(col_builder_child(b[10], 0), 1);
    add_null(col_builder_child(b[10], 0));
    add_int(col_builder_child(b[10], 0), 3);
    check_ok(col_builder_append_list(b[10], 3, &ERR), &ERR);
    check_ok(col_builder_append_list(b[10], 0, &ERR), &ERR);
    /* m: {a -> 1, b -> 2}, {k -> NULL}, {} */
    add_str(col_builder_child(b[11], 0), "a");
    add_int(col_builder_child(b[11], 1), 1);
    add_str(col_builder_child(b[11], 0), "b");
    add_int(col_builder_child(b[11], 1), 2);
    check_ok(col_builder_append_list(b[11], 2, &ERR), &ERR);
    add_str(col_builder_child(b[11], 0), "k");
    add_null(col_builder_child(b[11], 1));
    check_ok(col_builder_append_list(b[11], 1, &ERR), &ERR);
    check_ok(col_builder_append_list(b[11], 0, &ERR), &ERR);
    /* st: {1, a}, {NULL, NULL} */
    add_int(col_builder_child(b[12], 0), 1);
    add_str(col_builder_child(b[12], 1), "a");
    check_ok(col_builder_append_struct(b[12], &ERR), &ERR);
    add_null(col_builder_child(b[12], 0));
    add_null(col_builder_child(b[12], 1));
    check_ok(col_builder_append_struct(b[12], &ERR), &ERR);
    check_ok(col_builder_append_bool(b[13], 1, &ERR), &ERR);
    check_ok(col_builder_append_bool(b[13], 0, &ERR), &ERR);
    for (idx = 4; idx < 14; idx++)
        while (col_builder_length(b[idx]) < 7)
            add_null(b[idx]);
    for (idx = 0; idx < 14; idx++)
        cols[idx] = finish(b[idx]);
    return make_batch(14, names, cols);
}

#endif
