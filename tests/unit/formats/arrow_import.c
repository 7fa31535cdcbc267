/*
 * Unit tests of the Arrow C data interface import: arrays built by hand
 * for every type (nulls, sliced offsets, children, dictionaries), a round
 * trip through the export, and malformed input that must fail cleanly.
 */
#include <string.h>

#include "formats/arrow.h"
#include "test.h"

static void release_schema_noop(struct ArrowSchema *s) { s->release = NULL; }
static void release_array_noop(struct ArrowArray *a) { a->release = NULL; }

/* A node: schema and array side by side, with room for buffers and children. */
typedef struct node {
    struct ArrowSchema s;
    struct ArrowArray a;
    const void *bufs[3];
    struct ArrowSchema *sch[12];
    struct ArrowArray *arr[12];
} node;

static void node_init(node *n, const char *format, const char *name, int64_t length,
                      int64_t null_count, int64_t n_buffers)
{
    memset(n, 0, sizeof(*n));
    n->s.format = format;
    n->s.name = name;
    n->s.flags = ARROW_FLAG_NULLABLE;
    n->s.release = release_schema_noop;
    n->s.children = n->sch;
    n->a.length = length;
    n->a.null_count = null_count;
    n->a.n_buffers = n_buffers;
    n->a.buffers = n->bufs;
    n->a.children = n->arr;
    n->a.release = release_array_noop;
}

static void node_add(node *parent, node *child)
{
    parent->sch[parent->s.n_children++] = &child->s;
    parent->arr[parent->a.n_children++] = &child->a;
}

/* Imports root as a batch into a; the status of the import. */
static silt_status import(node *root, arena *a, col_batch **out, silt_error *err)
{
    const col_type *type;
    silt_status rc = arrow_import_schema(&type, a, &root->s, err);
    if (rc != SILT_OK)
        return rc;
    return arrow_import_batch(out, a, type, &root->s, &root->a, 0, -1, err);
}

static int64_t int_at(const col_vec *v, int64_t row)
{
    switch (v->type->id) {
    case COL_BYTE: return ((const int8_t *)v->values)[row];
    case COL_SHORT: return ((const int16_t *)v->values)[row];
    case COL_INT:
    case COL_DATE: return ((const int32_t *)v->values)[row];
    default: return ((const int64_t *)v->values)[row];
    }
}

static void check_strv(const col_vec *v, int64_t row, const char *want)
{
    int32_t len;
    const char *s = col_vec_str(v, row, &len);
    check_int(len, (int64_t)strlen(want));
    check(memcmp(s, want, (size_t)len) == 0);
}

void test_formats_arrow_import__primitives_with_nulls_and_offset(void)
{
    arena *a = arena_new(NULL, "t");
    silt_error err = SILT_ERROR_INIT;
    /* Rows 1..3 of each column are used (the root's offset is 1). */
    static const uint8_t validity[] = {0x0b}; /* 1101 0000: row 2 null */
    static const uint8_t bools[] = {0x06};    /* 0 1 1 0 */
    static const int8_t i8[] = {9, -1, 2, 3};
    static const int16_t i16[] = {9, -300, 2, 3};
    static const int32_t i32[] = {9, -70000, 2, 3};
    static const int64_t i64[] = {9, -5000000000LL, 2, 3};
    static const float f32[] = {9, 1.5f, 2, 3};
    static const double f64[] = {9, -2.25, 2, 3};
    static const int32_t days[] = {0, 19000, -1, 3};
    static const uint8_t u8[] = {0, 255, 1, 2};
    static const uint32_t u32[] = {0, 4000000000u, 1, 2};
    static const char *fmts[] = {"b", "c", "s", "i", "l", "f", "g", "tdD", "C", "I"};
    static const void *data[] = {bools, i8, i16, i32, i64, f32, f64, days, u8, u32};
    static const col_type_id ids[] = {COL_BOOLEAN, COL_BYTE, COL_SHORT, COL_INT, COL_LONG,
                                      COL_FLOAT, COL_DOUBLE, COL_DATE, COL_SHORT, COL_LONG};
    node root, cols[10];
    col_batch *batch;
    size_t idx;
    node_init(&root, "+s", "", 3, 0, 1);
    root.a.offset = 1;
    for (idx = 0; idx < 10; idx++) {
        node_init(&cols[idx], fmts[idx], fmts[idx], 4, 1, 2);
        cols[idx].bufs[0] = validity;
        cols[idx].bufs[1] = data[idx];
        node_add(&root, &cols[idx]);
    }
    check_ok(import(&root, a, &batch, &err), &err);
    check_int(batch->n_rows, 3);
    check_int((int64_t)batch->n_cols, 10);
    for (idx = 0; idx < 10; idx++) {
        const col_vec *v = batch->cols[idx];
        check_int(v->type->id, ids[idx]);
        check_int(v->length, 3);
        check_int(v->null_count, 1);
        check(!col_vec_is_null(v, 0));
        check(col_vec_is_null(v, 1));
        check(!col_vec_is_null(v, 2));
        check_str(batch->schema->fields[idx].name, fmts[idx]);
    }
    check_int(((uint8_t *)batch->cols[0]->values)[0], 1);
    check_int(((uint8_t *)batch->cols[0]->values)[2], 0);
    check_int(int_at(batch->cols[1], 0), -1);
    check_int(int_at(batch->cols[2], 0), -300);
    check_int(int_at(batch->cols[3], 0), -70000);
    check_int(int_at(batch->cols[4], 0), -5000000000LL);
    check(((float *)batch->cols[5]->values)[0] == 1.5f);
    check(((double *)batch->cols[6]->values)[0] == -2.25);
    check_int(int_at(batch->cols[7], 0), 19000);
    check_int(int_at(batch->cols[7], 2), 3);
    check_int(int_at(batch->cols[8], 0), 255);
    check_int(int_at(batch->cols[9], 0), 4000000000LL);
    arena_free(a);
}

void test_formats_arrow_import__strings_binary_large_and_sliced(void)
{
    arena *a = arena_new(NULL, "t");
    silt_error err = SILT_ERROR_INIT;
    static const int32_t off32[] = {0, 2, 2, 5, 9};
    static const int64_t off64[] = {3, 5, 5, 8, 12};
    static const char bytes[] = "abcdeXYZ1234";
    static const char bytes64[] = "___abcdeXYZ1234";
    static const uint8_t validity[] = {0x0e}; /* Arrow row 0 null, outside the slice */
    node root, s, l, z;
    col_batch *batch;
    node_init(&root, "+s", "", 3, 0, 1);
    root.a.offset = 1; /* rows 1..3 */
    node_init(&s, "u", "s", 4, 1, 3);
    s.bufs[0] = validity;
    s.bufs[1] = off32;
    s.bufs[2] = bytes;
    node_init(&l, "U", "l", 4, 0, 3);
    l.bufs[1] = off64;
    l.bufs[2] = bytes64;
    node_init(&z, "z", "z", 4, 0, 3);
    z.bufs[1] = off32;
    z.bufs[2] = bytes;
    node_add(&root, &s);
    node_add(&root, &l);
    node_add(&root, &z);
    check_ok(import(&root, a, &batch, &err), &err);
    check_int(batch->cols[0]->type->id, COL_STRING);
    check_int(batch->cols[1]->type->id, COL_STRING);
    check_int(batch->cols[2]->type->id, COL_BINARY);
    /* Arrow rows 1, 2, 3: "", "cde", "XYZ1"; row 1 of the root is Arrow row 2. */
    check(!col_vec_is_null(batch->cols[0], 0));
    check(col_vec_is_null(batch->cols[0], 1) == 0);
    check_strv(batch->cols[0], 0, "");
    check_strv(batch->cols[0], 1, "cde");
    check_strv(batch->cols[0], 2, "XYZ1");
    check_int(batch->cols[0]->offsets[0], 0);
    check_strv(batch->cols[1], 1, "cde");
    check_strv(batch->cols[1], 2, "XYZ1");
    check_strv(batch->cols[2], 2, "XYZ1");
    arena_free(a);
}

void test_formats_arrow_import__string_null_in_slice(void)
{
    arena *a = arena_new(NULL, "t");
    silt_error err = SILT_ERROR_INIT;
    static const int32_t off32[] = {0, 1, 1, 2};
    static const uint8_t validity[] = {0x05}; /* row 1 null */
    node root, s;
    col_batch *batch;
    node_init(&root, "+s", "", 3, 0, 1);
    node_init(&s, "u", "s", 3, -1, 3); /* null count unknown */
    s.bufs[0] = validity;
    s.bufs[1] = off32;
    s.bufs[2] = "ab";
    node_add(&root, &s);
    check_ok(import(&root, a, &batch, &err), &err);
    check_int(batch->cols[0]->null_count, 1);
    check(col_vec_is_null(batch->cols[0], 1));
    check_strv(batch->cols[0], 2, "b");
    arena_free(a);
}

void test_formats_arrow_import__decimal_and_timestamps(void)
{
    arena *a = arena_new(NULL, "t");
    silt_error err = SILT_ERROR_INIT;
    col_int128 dec[2] = {12345, -1};
    static const int64_t secs[] = {1, -1};
    static const int64_t millis[] = {1500, -1};
    static const int64_t micros[] = {7, 8};
    static const int64_t nanos[] = {1999, -1};
    static const int64_t ms64[] = {86400000LL * 3 + 5, -1};
    static const char *fmts[] = {"d:10,2", "tss:UTC", "tsm:", "tsu:Europe/Paris", "tsn:", "tdm"};
    const void *data[] = {dec, secs, millis, micros, nanos, ms64};
    node root, cols[6];
    col_batch *batch;
    size_t idx;
    node_init(&root, "+s", "", 2, 0, 1);
    for (idx = 0; idx < 6; idx++) {
        node_init(&cols[idx], fmts[idx], fmts[idx], 2, 0, 2);
        cols[idx].bufs[1] = data[idx];
        node_add(&root, &cols[idx]);
    }
    check_ok(import(&root, a, &batch, &err), &err);
    check_int(batch->cols[0]->type->id, COL_DECIMAL);
    check_int(batch->cols[0]->type->precision, 10);
    check_int(batch->cols[0]->type->scale, 2);
    check(((col_int128 *)batch->cols[0]->values)[0] == 12345);
    check(((col_int128 *)batch->cols[0]->values)[1] == -1);
    check_int(batch->cols[1]->type->id, COL_TIMESTAMP);
    check_int(int_at(batch->cols[1], 0), 1000000);
    check_int(int_at(batch->cols[1], 1), -1000000);
    check_int(batch->cols[2]->type->id, COL_TIMESTAMP_NTZ);
    check_int(int_at(batch->cols[2], 0), 1500000);
    check_int(batch->cols[3]->type->id, COL_TIMESTAMP);
    check_int(int_at(batch->cols[3], 1), 8);
    check_int(batch->cols[4]->type->id, COL_TIMESTAMP_NTZ);
    check_int(int_at(batch->cols[4], 0), 1);
    check_int(int_at(batch->cols[4], 1), -1); /* floor of -1 ns */
    check_int(batch->cols[5]->type->id, COL_DATE);
    check_int(int_at(batch->cols[5], 0), 3);
    check_int(int_at(batch->cols[5], 1), -1);
    arena_free(a);
}

void test_formats_arrow_import__struct_list_map(void)
{
    arena *a = arena_new(NULL, "t");
    silt_error err = SILT_ERROR_INIT;
    /* struct<x: int> over 3 rows with offset 1 on the struct: x = 20, 30 */
    static const int32_t xs[] = {10, 20, 30, 40};
    static const uint8_t st_valid[] = {0x0b}; /* struct row 2 null */
    /* list<long>: [1,2], null, [] */
    static const int32_t list_off[] = {0, 2, 2, 2};
    static const int64_t elems[] = {1, 2};
    static const uint8_t list_valid[] = {0x05};
    /* large_list<long>: [], [2], [1,2] */
    static const int64_t llist_off[] = {0, 0, 1, 3};
    static const int64_t lelems[] = {2, 1, 2};
    /* map<string, int>: {a:1}, {}, {b:2, c:null} */
    static const int32_t map_off[] = {0, 1, 1, 3};
    static const int32_t key_off[] = {0, 1, 2, 3};
    static const int32_t vals[] = {1, 2, 0};
    static const uint8_t val_valid[] = {0x03};
    node root, st, x, list, el, llist, lel, map, entries, key, value;
    col_batch *batch;
    const col_vec *v;
    node_init(&root, "+s", "", 2, 0, 1);
    root.a.offset = 1;
    node_init(&st, "+s", "st", 3, 1, 1);
    st.bufs[0] = st_valid;
    node_init(&x, "i", "x", 4, 0, 2);
    x.a.offset = 1; /* x's own slice starts at 20 */
    x.bufs[1] = xs;
    node_add(&st, &x);
    node_init(&list, "+l", "list", 3, 1, 2);
    list.bufs[0] = list_valid;
    list.bufs[1] = list_off;
    node_init(&el, "l", "element", 2, 0, 2);
    el.bufs[1] = elems;
    node_add(&list, &el);
    node_init(&llist, "+L", "llist", 3, 0, 2);
    llist.bufs[1] = llist_off;
    node_init(&lel, "l", "item", 3, 0, 2);
    lel.bufs[1] = lelems;
    node_add(&llist, &lel);
    node_init(&map, "+m", "map", 3, 0, 2);
    map.bufs[1] = map_off;
    node_init(&entries, "+s", "entries", 3, 0, 1);
    entries.s.flags = 0;
    node_init(&key, "u", "key", 3, 0, 3);
    key.s.flags = 0;
    key.bufs[1] = key_off;
    key.bufs[2] = "abc";
    node_init(&value, "i", "value", 3, 1, 2);
    value.bufs[0] = val_valid;
    value.bufs[1] = vals;
    node_add(&entries, &key);
    node_add(&entries, &value);
    node_add(&map, &entries);
    node_add(&root, &st);
    node_add(&root, &list);
    node_add(&root, &llist);
    node_add(&root, &map);
    check_ok(import(&root, a, &batch, &err), &err);
    check_int(batch->n_rows, 2);
    /* struct rows 1, 2 of the Arrow struct: x at child rows 1 + 1 + r */
    v = batch->cols[0];
    check_int(v->type->id, COL_STRUCT);
    check(!col_vec_is_null(v, 0));
    check(col_vec_is_null(v, 1));
    check_int(int_at(v->children[0], 0), 30);
    /* list rows 1, 2: null, [] */
    v = batch->cols[1];
    check_int(v->type->id, COL_ARRAY);
    check(col_vec_is_null(v, 0));
    check(!col_vec_is_null(v, 1));
    check_int(v->offsets[0], 0);
    check_int(v->offsets[2], 0);
    check_int(v->children[0]->length, 0);
    /* large list rows 1, 2: [2], [1, 2] */
    v = batch->cols[2];
    check_int(v->type->id, COL_ARRAY);
    check_int(v->offsets[1], 1);
    check_int(v->offsets[2], 3);
    check_int(int_at(v->children[0], 0), 2);
    check_int(int_at(v->children[0], 2), 2);
    /* map rows 1, 2: {}, {b: 2, c: null} */
    v = batch->cols[3];
    check_int(v->type->id, COL_MAP);
    check_int(v->type->fields[0].type->id, COL_STRING);
    check_int(v->type->fields[1].type->id, COL_INT);
    check_int(v->offsets[1], 0);
    check_int(v->offsets[2], 2);
    check_strv(v->children[0], 0, "b");
    check_strv(v->children[0], 1, "c");
    check_int(int_at(v->children[1], 0), 2);
    check(col_vec_is_null(v->children[1], 1));
    arena_free(a);
}

void test_formats_arrow_import__dictionary_strings_decoded(void)
{
    arena *a = arena_new(NULL, "t");
    silt_error err = SILT_ERROR_INIT;
    static const int32_t idx[] = {1, 0, 7, 1};
    static const uint8_t valid[] = {0x0b}; /* row 2 null (its index 7 is ignored) */
    static const int32_t doff[] = {0, 5, 10};
    node root, col, dict;
    col_batch *batch;
    node_init(&root, "+s", "", 4, 0, 1);
    node_init(&col, "i", "city", 4, 1, 2);
    col.bufs[0] = valid;
    col.bufs[1] = idx;
    node_init(&dict, "u", "", 2, 0, 3);
    dict.bufs[1] = doff;
    dict.bufs[2] = "ParisTokyo";
    col.s.dictionary = &dict.s;
    col.a.dictionary = &dict.a;
    node_add(&root, &col);
    check_ok(import(&root, a, &batch, &err), &err);
    check_int(batch->cols[0]->type->id, COL_STRING);
    check_strv(batch->cols[0], 0, "Tokyo");
    check_strv(batch->cols[0], 1, "Paris");
    check(col_vec_is_null(batch->cols[0], 2));
    check_strv(batch->cols[0], 3, "Tokyo");
    check_int(batch->cols[0]->null_count, 1);
    /* An index past the dictionary is refused, naming it. */
    col.bufs[0] = NULL;
    col.a.null_count = 0;
    check_fails(SILT_INVALID, import(&root, a, &batch, &err));
    check_contains(err.message, "dictionary index 7 at row 2");
    check_contains(err.message, "city");
    arena_free(a);
}

/* Exports a batch of many types and imports it back: the same values. */
void test_formats_arrow_import__roundtrip_through_export(void)
{
    arena *a = arena_new(NULL, "t");
    arena *owner = arena_new(NULL, "exported");
    silt_error err = SILT_ERROR_INIT;
    const col_type *list_type = col_type_array(owner, col_type_primitive(COL_STRING), 1);
    const col_type *map_type = col_type_map(owner, col_type_primitive(COL_STRING),
                                            col_type_primitive(COL_DOUBLE), 1);
    col_field fields[5];
    col_builder *bld;
    col_batch *batch = arena_calloc(owner, 1, sizeof(*batch)), *back;
    struct ArrowSchema schema;
    struct ArrowArray array;
    const col_type *type;
    fields[0] = (col_field){"flag", col_type_primitive(COL_BOOLEAN), 1, NULL, -1};
    fields[1] = (col_field){"ts", col_type_primitive(COL_TIMESTAMP), 1, NULL, -1};
    fields[2] = (col_field){"tags", list_type, 1, NULL, -1};
    fields[3] = (col_field){"m", map_type, 1, NULL, -1};
    fields[4] = (col_field){"d", col_type_decimal(owner, 38, 9), 1, NULL, -1};
    batch->schema = col_type_struct(owner, 5, fields);
    batch->n_cols = 5;
    batch->n_rows = 2;
    batch->cols = arena_calloc(owner, 5, sizeof(col_vec *));
    check_ok(col_builder_new(&bld, owner, fields[0].type, &err), &err);
    check_ok(col_builder_append_bool(bld, 1, &err), &err);
    check_ok(col_builder_append_null(bld, &err), &err);
    check_ok(col_builder_finish(bld, &batch->cols[0], &err), &err);
    check_ok(col_builder_new(&bld, owner, fields[1].type, &err), &err);
    check_ok(col_builder_append_int(bld, 1700000000123456LL, &err), &err);
    check_ok(col_builder_append_int(bld, -1, &err), &err);
    check_ok(col_builder_finish(bld, &batch->cols[1], &err), &err);
    check_ok(col_builder_new(&bld, owner, list_type, &err), &err);
    check_ok(col_builder_append_bytes(col_builder_child(bld, 0), "x", 1, &err), &err);
    check_ok(col_builder_append_null(col_builder_child(bld, 0), &err), &err);
    check_ok(col_builder_append_list(bld, 2, &err), &err);
    check_ok(col_builder_append_null(bld, &err), &err);
    check_ok(col_builder_finish(bld, &batch->cols[2], &err), &err);
    check_ok(col_builder_new(&bld, owner, map_type, &err), &err);
    check_ok(col_builder_append_list(bld, 0, &err), &err);
    check_ok(col_builder_append_bytes(col_builder_child(bld, 0), "k", 1, &err), &err);
    check_ok(col_builder_append_double(col_builder_child(bld, 1), 0.5, &err), &err);
    check_ok(col_builder_append_list(bld, 1, &err), &err);
    check_ok(col_builder_finish(bld, &batch->cols[3], &err), &err);
    check_ok(col_builder_new(&bld, owner, fields[4].type, &err), &err);
    check_ok(col_builder_append_decimal(bld, (col_int128)-123456789, &err), &err);
    check_ok(col_builder_append_null(bld, &err), &err);
    check_ok(col_builder_finish(bld, &batch->cols[4], &err), &err);

    check_ok(arrow_export_schema(&schema, batch->schema, &err), &err);
    check_ok(arrow_export_batch(&array, batch, owner, &err), &err);
    check_ok(arrow_import_schema(&type, a, &schema, &err), &err);
    check(col_type_equal(type, batch->schema));
    check_ok(arrow_import_batch(&back, a, type, &schema, &array, 1, 1, &err), &err);
    check_int(back->n_rows, 1);
    check_int(int_at(back->cols[1], 0), -1);
    check_fails(SILT_INVALID, arrow_import_batch(&back, a, type, &schema, &array, 1, 2, &err));
    check_contains(err.message, "rows 1 to 3 are needed");
    check_ok(arrow_import_batch(&back, a, type, &schema, &array, 0, -1, &err), &err);
    array.release(&array);
    schema.release(&schema);
    check_int(back->n_rows, 2);
    check_int(((uint8_t *)back->cols[0]->values)[0], 1);
    check(col_vec_is_null(back->cols[0], 1));
    check_int(int_at(back->cols[1], 0), 1700000000123456LL);
    check_int(back->cols[2]->offsets[1], 2);
    check_strv(back->cols[2]->children[0], 0, "x");
    check(col_vec_is_null(back->cols[2]->children[0], 1));
    check(col_vec_is_null(back->cols[2], 1));
    check_int(back->cols[3]->offsets[2], 1);
    check_strv(back->cols[3]->children[0], 0, "k");
    check(((double *)back->cols[3]->children[1]->values)[0] == 0.5);
    check(((col_int128 *)back->cols[4]->values)[0] == -123456789);
    check(col_vec_is_null(back->cols[4], 1));
    arena_free(a);
}

/* One column of format fmt and its buffers under a root of `length` rows. */
static silt_status import_one(arena *a, const char *fmt, int64_t length, int64_t n_buffers,
                              const void *b1, const void *b2, silt_error *err)
{
    node root, col;
    col_batch *batch;
    node_init(&root, "+s", "", length, 0, 1);
    node_init(&col, fmt, "c", length, 0, n_buffers);
    col.bufs[1] = b1;
    col.bufs[2] = b2;
    node_add(&root, &col);
    return import(&root, a, &batch, err);
}

void test_formats_arrow_import__refuses_unknown_and_unsupported_formats(void)
{
    arena *a = arena_new(NULL, "t");
    silt_error err = SILT_ERROR_INIT;
    static const int64_t zeros[4] = {0};
    check_fails(SILT_UNSUPPORTED, import_one(a, "vu", 1, 2, zeros, NULL, &err));
    check_contains(err.message, "\"vu\"");
    check_fails(SILT_UNSUPPORTED, import_one(a, "w:16", 1, 2, zeros, NULL, &err));
    check_fails(SILT_UNSUPPORTED, import_one(a, "n", 1, 0, NULL, NULL, &err));
    check_fails(SILT_UNSUPPORTED, import_one(a, "L", 1, 2, zeros, NULL, &err));
    check_fails(SILT_UNSUPPORTED, import_one(a, "e", 1, 2, zeros, NULL, &err));
    check_fails(SILT_UNSUPPORTED, import_one(a, "d:10,2,256", 1, 2, zeros, NULL, &err));
    check_fails(SILT_UNSUPPORTED, import_one(a, "d:40,2", 1, 2, zeros, NULL, &err));
    check_fails(SILT_INVALID, import_one(a, "d:x", 1, 2, zeros, NULL, &err));
    check_fails(SILT_INVALID, import_one(a, "tsx:", 1, 2, zeros, NULL, &err));
    check_fails(SILT_INVALID, import_one(a, "tsu", 1, 2, zeros, NULL, &err));
    check_fails(SILT_UNSUPPORTED, import_one(a, "", 1, 2, zeros, NULL, &err));
    arena_free(a);
}

void test_formats_arrow_import__refuses_malformed_arrays(void)
{
    arena *a = arena_new(NULL, "t");
    silt_error err = SILT_ERROR_INIT;
    static const int32_t ints[4] = {1, 2, 3, 4};
    static const int32_t back_off[] = {0, 3, 2};
    static const int32_t neg_off[] = {-1, 0};
    static const int64_t huge_off[] = {0, (int64_t)1 << 40};
    static const int64_t big_ts[] = {INT64_MAX / 10};
    node root, col, el;
    col_batch *batch;
    const col_type *type;
    /* a missing data buffer */
    check_fails(SILT_INVALID, import_one(a, "i", 2, 2, NULL, NULL, &err));
    check_contains(err.message, "has no buffer 1");
    check_contains(err.message, "\"c\"");
    /* a wrong buffer count */
    check_fails(SILT_INVALID, import_one(a, "u", 2, 2, ints, NULL, &err));
    check_contains(err.message, "has 2 buffers; its format has 3");
    /* offsets going backwards, negative, or past int32 */
    check_fails(SILT_INVALID, import_one(a, "u", 2, 3, back_off, "abc", &err));
    check_contains(err.message, "offset 2 at row 2 after 3");
    check_fails(SILT_INVALID, import_one(a, "u", 1, 3, neg_off, "abc", &err));
    check_contains(err.message, "negative offset");
    check_fails(SILT_INVALID, import_one(a, "U", 1, 3, huge_off, "abc", &err));
    /* missing string bytes */
    {
        static const int32_t ok_off[] = {0, 1, 2};
        check_fails(SILT_INVALID, import_one(a, "u", 2, 3, ok_off, NULL, &err));
        check_contains(err.message, "has no buffer 2");
    }
    /* a timestamp beyond microseconds */
    check_fails(SILT_INVALID, import_one(a, "tss:", 1, 2, big_ts, NULL, &err));
    check_contains(err.message, "beyond the microsecond range");

    /* a negative length */
    node_init(&root, "+s", "", -1, 0, 1);
    node_init(&col, "i", "c", -1, 0, 2);
    col.bufs[1] = ints;
    node_add(&root, &col);
    check_fails(SILT_INVALID, import(&root, a, &batch, &err));
    check_contains(err.message, "negative length");
    /* a child shorter than its parent */
    node_init(&root, "+s", "", 4, 0, 1);
    node_init(&col, "i", "c", 2, 0, 2);
    col.bufs[1] = ints;
    node_add(&root, &col);
    check_fails(SILT_INVALID, import(&root, a, &batch, &err));
    check_contains(err.message, "has 2 rows; rows 0 to 4 are needed");
    /* a list whose offsets pass its child */
    node_init(&root, "+s", "", 2, 0, 1);
    node_init(&col, "+l", "lst", 2, 0, 2);
    col.bufs[1] = back_off + 0; /* 0, 3, 2: backwards */
    node_init(&el, "i", "item", 3, 0, 2);
    el.bufs[1] = ints;
    node_add(&col, &el);
    node_add(&root, &col);
    check_fails(SILT_INVALID, import(&root, a, &batch, &err));
    {
        static const int32_t past[] = {0, 2, 9};
        col.bufs[1] = past;
        check_fails(SILT_INVALID, import(&root, a, &batch, &err));
        check_contains(err.message, "rows 0 to 9 are needed");
    }
    /* array children not matching the schema */
    col.a.n_children = 0;
    check_fails(SILT_INVALID, import(&root, a, &batch, &err));
    check_contains(err.message, "children");
    /* a released array */
    node_init(&root, "+s", "", 1, 0, 1);
    node_init(&col, "i", "c", 1, 0, 2);
    col.bufs[1] = ints;
    node_add(&root, &col);
    col.a.release = NULL;
    check_fails(SILT_INVALID, import(&root, a, &batch, &err));
    check_contains(err.message, "released");
    /* nulls counted without a validity buffer */
    col.a.release = release_array_noop;
    col.a.null_count = 1;
    check_fails(SILT_INVALID, import(&root, a, &batch, &err));
    check_contains(err.message, "no validity buffer");
    /* a record batch with null rows */
    {
        static const uint8_t none[] = {0};
        col.a.null_count = 0;
        root.bufs[0] = none;
        root.a.null_count = 1;
        check_fails(SILT_INVALID, import(&root, a, &batch, &err));
        check_contains(err.message, "null rows");
    }
    /* a schema that is not a struct, or a list without its child */
    node_init(&root, "i", "", 1, 0, 2);
    check_fails(SILT_INVALID, arrow_import_schema(&type, a, &root.s, &err));
    check_fails(SILT_INVALID, arrow_import_schema(&type, a, NULL, &err));
    node_init(&root, "+s", "", 1, 0, 1);
    node_init(&col, "+l", "lst", 1, 0, 2);
    node_add(&root, &col);
    check_fails(SILT_INVALID, arrow_import_schema(&type, a, &root.s, &err));
    check_contains(err.message, "expected 1");
    arena_free(a);
}
