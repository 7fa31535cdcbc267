/*
 * Unit tests of spill files (engine/spill.h): every column type round
 * trips, selections and dictionaries are written as their live values,
 * files vanish with their arena, and damaged or truncated files fail with
 * SILT_CORRUPT naming the file.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "engine/spill.h"
#include "engine_test.h"

static arena *qa;
static engine_ctx ctx;
static silt_error err;

void test_engine_spill__initialize(void)
{
    qa = arena_new(NULL, "query");
    engine_ctx_init(&ctx, qa);
    ctx.temp_dir = test_tmpdir();
    err_clear(&err);
}

void test_engine_spill__cleanup(void) { arena_free(qa); }

/* Deep equality of row ra of a and row rb of b, nested types included. */
static int same_value(const col_vec *a, int64_t ra, const col_vec *b, int64_t rb)
{
    size_t width = col_type_value_width(a->type->id), child;
    if (a->type->id != b->type->id)
        return 0;
    if (vec_is_valid(a, ra) != vec_is_valid(b, rb))
        return 0;
    if (!vec_is_valid(a, ra))
        return 1;
    switch (a->type->id) {
    case COL_STRING:
    case COL_BINARY: {
        int32_t la, lb;
        const char *sa = col_vec_str(a, ra, &la), *sb = col_vec_str(b, rb, &lb);
        return la == lb && memcmp(sa, sb, (size_t)la) == 0;
    }
    case COL_STRUCT:
        for (child = 0; child < a->n_children; child++)
            if (!same_value(a->children[child], ra, b->children[child], rb))
                return 0;
        return 1;
    case COL_ARRAY:
    case COL_MAP: {
        int32_t na = a->offsets[ra + 1] - a->offsets[ra], nb = b->offsets[rb + 1] - b->offsets[rb];
        int32_t e;
        if (na != nb)
            return 0;
        for (child = 0; child < a->n_children; child++)
            for (e = 0; e < na; e++)
                if (!same_value(a->children[child], a->offsets[ra] + e, b->children[child],
                                b->offsets[rb] + e))
                    return 0;
        return 1;
    }
    default:
        return memcmp((const char *)a->values + width * (size_t)ra,
                      (const char *)b->values + width * (size_t)rb, width) == 0;
    }
}

/* A batch of every type, 7 rows, with NULLs in every column. */
static col_batch *all_types(void)
{
    col_vec *cols[16];
    col_builder *b, *c0, *c1;
    col_field sf[2];
    const col_type *st, *at, *mt;
    int64_t row;
    size_t n = 0;
    const char *nulls = ".n..n..";
    cols[n++] = mk_ints(qa, COL_BOOLEAN, 7, (int64_t[]){1, 0, 0, 1, 1, 0, 1}, nulls);
    cols[n++] = mk_ints(qa, COL_BYTE, 7, (int64_t[]){-128, 0, 1, 127, 5, 6, 7}, nulls);
    cols[n++] = mk_ints(qa, COL_SHORT, 7, (int64_t[]){-3, 0, 300, 32767, 5, 6, 7}, nulls);
    cols[n++] = mk_ints(qa, COL_INT, 7, (int64_t[]){INT32_MIN, 0, 1, INT32_MAX, 5, 6, 7}, nulls);
    cols[n++] = mk_ints(qa, COL_LONG, 7, (int64_t[]){INT64_MIN, 0, 1, INT64_MAX, 5, 6, 7}, "n......");
    cols[n++] = mk_doubles(qa, 7, (double[]){-0.0, 1.5, 0.0 / 0.0, 1e300, 5, 6, 7}, nulls);
    cols[n++] = mk_decimals(qa, 38, 4, 7, (int64_t[]){-12345, 0, 1, 999999999, 5, 6, 7}, nulls);
    cols[n++] = mk_strs(qa, 7, (const char *[]){"", NULL, "héllo", "x", NULL, "long string value", "z"});
    cols[n++] = mk_ints(qa, COL_DATE, 7, (int64_t[]){-1, 0, 19000, 2, 5, 6, 7}, nulls);
    cols[n++] = mk_ints(qa, COL_TIMESTAMP, 7, (int64_t[]){-1, 0, 1700000000000000, 2, 5, 6, 7}, nulls);
    cols[n++] = mk_ints(qa, COL_TIMESTAMP_NTZ, 7, (int64_t[]){3, 0, 1, 2, 5, 6, 7}, nulls);
    /* struct<a:int, s:string> */
    sf[0] = (col_field){"a", col_type_primitive(COL_INT), 1, NULL, -1};
    sf[1] = (col_field){"s", col_type_primitive(COL_STRING), 1, NULL, -1};
    st = col_type_struct(qa, 2, sf);
    check_ok(col_builder_new(&b, qa, st, &err), &err);
    for (row = 0; row < 7; row++) {
        c0 = col_builder_child(b, 0);
        c1 = col_builder_child(b, 1);
        if (row == 2) {
            /* A NULL struct fills its children itself. */
            check_ok(col_builder_append_null(b, &err), &err);
            continue;
        }
        check_ok(col_builder_append_int(c0, row * 10, &err), &err);
        if (row == 4)
            check_ok(col_builder_append_null(c1, &err), &err);
        else
            check_ok(col_builder_append_bytes(c1, "abcdefg", (size_t)row, &err), &err);
        check_ok(col_builder_append_struct(b, &err), &err);
    }
    check_ok(col_builder_finish(b, &cols[n++], &err), &err);
    /* array<long> with empty, NULL and NULL-element rows */
    at = col_type_array(qa, col_type_primitive(COL_LONG), 1);
    check_ok(col_builder_new(&b, qa, at, &err), &err);
    for (row = 0; row < 7; row++) {
        int64_t e;
        if (row == 3) {
            check_ok(col_builder_append_null(b, &err), &err);
            continue;
        }
        c0 = col_builder_child(b, 0);
        for (e = 0; e < row % 3; e++) {
            if (e == 1 && row == 5)
                check_ok(col_builder_append_null(c0, &err), &err);
            else
                check_ok(col_builder_append_int(c0, row * 100 + e, &err), &err);
        }
        check_ok(col_builder_append_list(b, row % 3, &err), &err);
    }
    check_ok(col_builder_finish(b, &cols[n++], &err), &err);
    /* map<string,int> */
    mt = col_type_map(qa, col_type_primitive(COL_STRING), col_type_primitive(COL_INT), 1);
    check_ok(col_builder_new(&b, qa, mt, &err), &err);
    for (row = 0; row < 7; row++) {
        if (row == 6) {
            check_ok(col_builder_append_null(b, &err), &err);
            continue;
        }
        c0 = col_builder_child(b, 0);
        c1 = col_builder_child(b, 1);
        check_ok(col_builder_append_bytes(c0, "key", 3, &err), &err);
        if (row == 1)
            check_ok(col_builder_append_null(c1, &err), &err);
        else
            check_ok(col_builder_append_int(c1, row, &err), &err);
        check_ok(col_builder_append_list(b, 1, &err), &err);
    }
    check_ok(col_builder_finish(b, &cols[n++], &err), &err);
    check_ok(col_vec_new(&cols[n], qa, col_type_primitive(COL_FLOAT), 7, 1, &err), &err);
    for (row = 0; row < 7; row++)
        ((float *)cols[n]->values)[row] = (float)row / 3.0f;
    check_ok(col_vec_set_null(cols[n++], qa, 5, &err), &err);
    cols[n] = mk_strs(qa, 7, (const char *[]){"\x01", "", NULL, "\xff\x00", "b", "c", "d"});
    cols[n++]->type = col_type_primitive(COL_BINARY);
    return mk_batch(qa, n, cols);
}

/* Checks that out holds rows rows[0..n) of in. */
static void check_rows(const col_batch *in, const col_batch *out, const int64_t *rows, int64_t n)
{
    size_t col;
    int64_t k;
    check_int(n, out->n_rows);
    check_int((int64_t)in->n_cols, (int64_t)out->n_cols);
    for (col = 0; col < in->n_cols; col++)
        for (k = 0; k < n; k++)
            if (!same_value(in->cols[col], rows[k], out->cols[col], k))
                test_fail(__FILE__, __LINE__, "column %zu row %lld differs after the round trip",
                          col, (long long)k);
}

static spill_file *new_file(const col_type *schema)
{
    spill_file *f;
    check_ok(engine_spill_file_create(&f, &ctx, qa, schema, &err), &err);
    return f;
}

void test_engine_spill__round_trip_every_type(void)
{
    col_batch *b = all_types(), *out;
    arena *scratch = arena_new(qa, "scratch"), *rd = arena_new(qa, "read");
    spill_file *f = new_file(b->schema);
    int32_t sel[3] = {1, 4, 6};
    int64_t all[7] = {0, 1, 2, 3, 4, 5, 6}, picked[3] = {1, 4, 6};
    check_ok(engine_spill_file_write(f, b, NULL, 7, scratch, &err), &err);
    check_ok(engine_spill_file_write(f, b, sel, 3, scratch, &err), &err);
    check_ok(engine_spill_file_write(f, b, sel, 0, scratch, &err), &err); /* nothing */
    check_ok(engine_spill_file_finish(f, &err), &err);
    check_int(10, engine_spill_file_rows(f));
    check(ctx.spilled_bytes > 0);
    check_ok(engine_spill_file_read(f, rd, &out, &err), &err);
    check(out != NULL);
    check_rows(b, out, all, 7);
    check_ok(engine_spill_file_read(f, rd, &out, &err), &err);
    check(out != NULL);
    check_rows(b, out, picked, 3);
    check_ok(engine_spill_file_read(f, rd, &out, &err), &err);
    check(out == NULL);
    /* Rewinding reads the same rows again. */
    engine_spill_file_rewind(f);
    check_ok(engine_spill_file_read(f, rd, &out, &err), &err);
    check_rows(b, out, all, 7);
}

void test_engine_spill__dictionary_strings_are_flattened(void)
{
    col_vec *dict = mk_strs(qa, 2, (const char *[]){"red", "green"}), *v, *cols[1];
    col_batch *b, *out;
    spill_file *f;
    int32_t *idx;
    int64_t rows[4] = {0, 1, 2, 3};
    check_ok(col_vec_new(&v, qa, col_type_primitive(COL_STRING), 4, 1, &err), &err);
    idx = v->values = arena_alloc(qa, 16);
    idx[0] = 1;
    idx[1] = 0;
    idx[2] = 1;
    idx[3] = 1;
    v->dictionary = dict;
    col_bit_clear(v->validity, 2);
    v->null_count = 1;
    cols[0] = v;
    b = mk_batch(qa, 1, cols);
    f = new_file(b->schema);
    check_ok(engine_spill_file_write(f, b, NULL, 4, qa, &err), &err);
    check_ok(engine_spill_file_finish(f, &err), &err);
    check_ok(engine_spill_file_read(f, qa, &out, &err), &err);
    check(out->cols[0]->dictionary == NULL);
    check_rows(b, out, rows, 4);
    check_str("green,red,NULL,green", vec_text(qa, out->cols[0]));
}

/* Open descriptors of this process. */
static int open_fds(void)
{
    return test_dir_entries("/proc/self/fd");
}

void test_engine_spill__files_removed_with_their_arena(void)
{
    col_batch *b = all_types();
    arena *owner = arena_new(qa, "operator");
    spill_file *f;
    int before = open_fds();
    check_ok(engine_spill_file_create(&f, &ctx, owner, b->schema, &err), &err);
    check_int(-1, engine_spill_file_fd(f)); /* nothing on disk before the first flush */
    check_ok(engine_spill_file_write(f, b, NULL, 7, qa, &err), &err);
    check_ok(engine_spill_file_finish(f, &err), &err);
    check(engine_spill_file_fd(f) >= 0);
    check_int(before + 1, open_fds());
    /* Unlinked as soon as it was made: nothing to leave behind. */
    check_int(0, test_dir_entries(test_tmpdir()));
    check(access(engine_spill_file_path(f), F_OK) != 0);
    arena_free(owner);
    check_int(before, open_fds());
    check_int(0, test_dir_entries(test_tmpdir()));
}

void test_engine_spill__missing_temp_directory(void)
{
    col_batch *b = all_types();
    spill_file *f;
    ctx.temp_dir = "/nonexistent/silt-spill-dir";
    check_fails(SILT_IO, engine_spill_file_create(&f, &ctx, qa, b->schema, &err));
    check_contains(err.message, "temp_directory \"/nonexistent/silt-spill-dir\"");
    check_contains(err.hint, "SET temp_directory");
}

static spill_file *written(col_batch *b)
{
    spill_file *f = new_file(b->schema);
    check_ok(engine_spill_file_write(f, b, NULL, b->n_rows, qa, &err), &err);
    check_ok(engine_spill_file_write(f, b, NULL, b->n_rows, qa, &err), &err);
    check_ok(engine_spill_file_finish(f, &err), &err);
    return f;
}

void test_engine_spill__damaged_byte_is_corrupt(void)
{
    col_batch *b = all_types(), *out;
    spill_file *f = written(b);
    char x = 0x5a;
    check(pwrite(engine_spill_file_fd(f), &x, 1, 40) == 1);
    check_fails(SILT_CORRUPT, engine_spill_file_read(f, qa, &out, &err));
    check_contains(err.message, "could not read spill file");
    check_contains(err.message, "silt-spill-");
    check_contains(err.message, "checksum mismatch in the batch at offset 0");
}

void test_engine_spill__damaged_header_is_corrupt(void)
{
    col_batch *b = all_types(), *out;
    spill_file *f = written(b);
    uint64_t huge = (uint64_t)1 << 50;
    check(pwrite(engine_spill_file_fd(f), &huge, 8, 4) == 8);
    check_fails(SILT_CORRUPT, engine_spill_file_read(f, qa, &out, &err));
    check_contains(err.message, "more than the file holds");
}

void test_engine_spill__truncated_file_is_corrupt(void)
{
    col_batch *b = all_types(), *out;
    spill_file *f = written(b);
    int64_t size = engine_spill_file_bytes(f);
    check(ftruncate(engine_spill_file_fd(f), size - 10) == 0);
    check_ok(engine_spill_file_read(f, qa, &out, &err), &err); /* the first batch is whole */
    check_fails(SILT_CORRUPT, engine_spill_file_read(f, qa, &out, &err));
    check_contains(err.message, "unexpected end of file");
    /* Cut at a frame boundary: the reader still notices bytes are missing. */
    check(ftruncate(engine_spill_file_fd(f), size / 2) == 0);
    engine_spill_file_rewind(f);
    check_ok(engine_spill_file_read(f, qa, &out, &err), &err);
    check_fails(SILT_CORRUPT, engine_spill_file_read(f, qa, &out, &err));
    check_contains(err.message, "unexpected end of file");
}

void test_engine_spill__scan_operator(void)
{
    col_batch *b = all_types(), *out;
    spill_file *f = written(b);
    engine_op *scan;
    int64_t rows[14] = {0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6};
    check_ok(engine_spill_op_scan(&scan, &ctx, f, &err), &err);
    check_ok(engine_collect(scan, qa, &out, &err), &err);
    check_rows(b, out, rows, 14);
}

void test_engine_spill__sizes_format(void)
{
    char text[32];
    engine_format_bytes(512, text, sizeof(text));
    check_str("512 bytes", text);
    engine_format_bytes((int64_t)3 << 29, text, sizeof(text));
    check_str("1.5 GiB", text);
}
