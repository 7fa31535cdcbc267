/* Unit tests of the Arrow C data interface export. */
#include "formats/arrow.h"
#include "test.h"

static col_batch *make_batch(arena *a)
{
    silt_error err = SILT_ERROR_INIT;
    col_field fields[4];
    const col_type *list_type = col_type_array(a, col_type_primitive(COL_INT), 1);
    const col_type *map_type = col_type_map(a, col_type_primitive(COL_STRING),
                                            col_type_primitive(COL_LONG), 1);
    col_builder *b;
    col_batch *batch = arena_calloc(a, 1, sizeof(*batch));
    fields[0] = (col_field){"flag", col_type_primitive(COL_BOOLEAN), 1, NULL, -1};
    fields[1] = (col_field){"name", col_type_primitive(COL_STRING), 1, NULL, -1};
    fields[2] = (col_field){"list", list_type, 1, NULL, -1};
    fields[3] = (col_field){"map", map_type, 1, NULL, -1};
    batch->schema = col_type_struct(a, 4, fields);
    batch->n_cols = 4;
    batch->n_rows = 3;
    batch->cols = arena_calloc(a, 4, sizeof(col_vec *));

    check_ok(col_builder_new(&b, a, fields[0].type, &err), &err);
    check_ok(col_builder_append_bool(b, 1, &err), &err);
    check_ok(col_builder_append_null(b, &err), &err);
    check_ok(col_builder_append_bool(b, 1, &err), &err);
    check_ok(col_builder_finish(b, &batch->cols[0], &err), &err);

    check_ok(col_builder_new(&b, a, fields[1].type, &err), &err);
    check_ok(col_builder_append_bytes(b, "ab", 2, &err), &err);
    check_ok(col_builder_append_bytes(b, "", 0, &err), &err);
    check_ok(col_builder_append_bytes(b, "xyz", 3, &err), &err);
    check_ok(col_builder_finish(b, &batch->cols[1], &err), &err);

    check_ok(col_builder_new(&b, a, list_type, &err), &err);
    check_ok(col_builder_append_int(col_builder_child(b, 0), 1, &err), &err);
    check_ok(col_builder_append_int(col_builder_child(b, 0), 2, &err), &err);
    check_ok(col_builder_append_list(b, 2, &err), &err);
    check_ok(col_builder_append_null(b, &err), &err);
    check_ok(col_builder_append_list(b, 0, &err), &err);
    check_ok(col_builder_finish(b, &batch->cols[2], &err), &err);

    check_ok(col_builder_new(&b, a, map_type, &err), &err);
    check_ok(col_builder_append_bytes(col_builder_child(b, 0), "k", 1, &err), &err);
    check_ok(col_builder_append_int(col_builder_child(b, 1), 7, &err), &err);
    check_ok(col_builder_append_list(b, 1, &err), &err);
    check_ok(col_builder_append_list(b, 0, &err), &err);
    check_ok(col_builder_append_null(b, &err), &err);
    check_ok(col_builder_finish(b, &batch->cols[3], &err), &err);
    return batch;
}

void test_formats_arrow__export_batch_layout(void)
{
    arena *a = arena_new(NULL, "export");
    silt_error err = SILT_ERROR_INIT;
    struct ArrowArray array;
    const uint8_t *bits;
    const int32_t *offsets;
    col_batch *batch = make_batch(a);
    check_ok(arrow_export_batch(&array, batch, a, &err), &err);
    check_int(3, array.length);
    check_int(4, array.n_children);
    /* booleans are bit-packed: rows 0 and 2 true */
    bits = array.children[0]->buffers[1];
    check_int(5, bits[0] & 7);
    check_int(1, array.children[0]->null_count);
    offsets = array.children[1]->buffers[1];
    check_int(5, offsets[3]);
    check(memcmp(array.children[1]->buffers[2], "abxyz", 5) == 0);
    check_int(1, array.children[2]->n_children);
    check_int(2, array.children[2]->children[0]->length);
    /* maps gain the entries struct */
    check_int(1, array.children[3]->n_children);
    check_int(2, array.children[3]->children[0]->n_children);
    check_int(1, array.children[3]->children[0]->length);
    check_int(1, array.children[3]->null_count);
    array.release(&array);
    check(array.release == NULL);
}

void test_formats_arrow__child_outlives_parent(void)
{
    arena *a = arena_new(NULL, "export");
    silt_error err = SILT_ERROR_INIT;
    struct ArrowArray array, moved;
    check_ok(arrow_export_batch(&array, make_batch(a), a, &err), &err);
    /* A consumer moves a child out, releases the parent, then uses the child. */
    moved = *array.children[1];
    array.children[1]->release = NULL;
    array.release(&array);
    check(memcmp(moved.buffers[2], "abxyz", 5) == 0);
    moved.release(&moved);
}

void test_formats_arrow__schema(void)
{
    arena *a = arena_new(NULL, "schema");
    silt_error err = SILT_ERROR_INIT;
    struct ArrowSchema schema;
    buf format = BUF_INIT;
    col_batch *batch = make_batch(a);
    check_ok(arrow_export_schema(&schema, batch->schema, &err), &err);
    check_str("+s", schema.format);
    check_int(4, schema.n_children);
    check_str("b", schema.children[0]->format);
    check_str("flag", schema.children[0]->name);
    check_str("+l", schema.children[2]->format);
    check_str("+m", schema.children[3]->format);
    check_str("+s", schema.children[3]->children[0]->format);
    check_str("u", schema.children[3]->children[0]->children[0]->format);
    check_int(0, schema.children[3]->children[0]->children[0]->flags & ARROW_FLAG_NULLABLE);
    schema.release(&schema);
    check_ok(arrow_format_string(col_type_decimal(a, 38, 10), &format, &err), &err);
    check_str("d:38,10", buf_cstr(&format));
    buf_clear(&format);
    arena_free(a);
}
