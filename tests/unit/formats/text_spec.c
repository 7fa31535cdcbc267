/*
 * The one-pass store shared by the CSV and JSON scans (text_spec.c):
 * which converted chunks survive the final schema, when everything is
 * handed out at once, and how the read pass matches its chunks.
 */
#include <string.h>

#include "formats/text/text_spec.h"
#include "test.h"

static silt_error err;
static arena *mem;
static text_object objs[2];
static text_spec sp;
static text_batch_queue queue;
static text_reader reader;
static const char *const keys[] = {"a.json", "b.json"};

/* A split callback the reader never calls here (nothing is read). */
static silt_status no_split(text_object *obj, void *payload, silt_error *e)
{
    (void)obj;
    (void)payload;
    return err_set(e, SILT_INVALID, "the reader read an object");
}

void test_formats_text_spec__initialize(void)
{
    err_clear(&err);
    mem = arena_new(NULL, "test");
    memset(objs, 0, sizeof(objs));
    objs[0].key_idx = 0;
    objs[1].key_idx = 1;
    memset(&sp, 0, sizeof(sp));
    memset(&queue, 0, sizeof(queue));
    text_reader_init(&reader, NULL, keys, 2, "JSON", no_split, NULL, 4096);
}

void test_formats_text_spec__cleanup(void)
{
    text_reader_clear(&reader);
    text_batch_queue_clear(&queue);
    text_spec_clear(&sp);
    arena_free(mem);
}

/* A struct of one field of type id, in arena a. */
static const col_type *one_field(arena *a, col_type_id id)
{
    col_field f;
    memset(&f, 0, sizeof(f));
    f.name = "x";
    f.type = col_type_primitive(id);
    f.nullable = 1;
    f.field_id = -1;
    return col_type_struct(a, 1, &f);
}

/* Keeps chunk [start, end) of object obj as converted under a field of type id, with n batches. */
static void keep(size_t obj, size_t start, size_t end, col_type_id id, size_t n)
{
    text_chunk chunk = {&objs[obj], 0, start, end};
    text_batch_list batches = {0};
    arena *a = arena_new(NULL, "spec schema");
    const col_type *schema = one_field(a, id);
    for (size_t idx = 0; idx < n; idx++) {
        text_batch *tb;
        check_ok(text_batch_list_add(&batches, "batch", &tb, &err), &err);
        tb->batch.n_rows = (int64_t)(idx + 1);
    }
    check_ok(text_spec_keep(&sp, &chunk, 1, &a, schema, &batches, &err), &err);
    check(a == NULL);
    check_int(0, batches.n);
}

/* The read pass asks for chunk [start, end) of object obj; returns its batches' count or -1. */
static int64_t take(size_t obj, size_t start, size_t end, const col_type *schema)
{
    text_chunk chunk = {&objs[obj], 0, start, end};
    text_batch_list got = {0};
    int64_t n;
    if (!text_spec_take(&sp, &chunk, schema, &got))
        return -1;
    n = (int64_t)got.n;
    for (size_t idx = 0; idx < got.n; idx++)
        check(got.items[idx].batch.schema == schema);
    text_batch_list_clear(&got);
    return n;
}

void test_formats_text_spec__all_agreeing_go_to_the_queue(void)
{
    const col_type *final = one_field(mem, COL_LONG);
        keep(0, 0, 100, COL_LONG, 2);
    keep(1, 0, 50, COL_LONG, 1);
    /* the budget counts the memory the kept rows hold: their arenas */
    check(sp.held_bytes > 0);
    check(text_spec_has_room(&sp, sp.held_bytes + 1));
    check(!text_spec_has_room(&sp, sp.held_bytes));
    check_ok(text_spec_settle(&sp, final, &queue, &reader, &err), &err);
    /* the reader has nothing left, and is otherwise as it was */
    check_int(0, reader.n_keys);
    check_int(4096, reader.window_bytes);
    check_str("JSON", reader.what);
    check(reader.split == no_split);
    check_int(3, queue.len);
    for (size_t idx = 0; idx < queue.len; idx++)
        check(queue.items[idx].batch.schema == final);
    /* reader order: chunk 0's two batches, then chunk 1's */
    check_int(1, queue.items[0].batch.n_rows);
    check_int(2, queue.items[1].batch.n_rows);
    check_int(1, queue.items[2].batch.n_rows);
    /* nothing is left for the read pass */
    check_int(-1, take(0, 0, 100, final));
}

void test_formats_text_spec__another_schema_is_parsed_again(void)
{
    const col_type *final = one_field(mem, COL_DOUBLE);
        keep(0, 0, 100, COL_LONG, 1);   /* int here, double elsewhere: dropped */
    keep(0, 100, 200, COL_DOUBLE, 2);
    check_ok(text_spec_settle(&sp, final, &queue, &reader, &err), &err);
    check_int(2, reader.n_keys);
    check_int(0, queue.len);
    check_int(-1, take(0, 0, 100, final));
    check_int(2, take(0, 100, 200, final));
    check_int(-1, take(0, 200, 300, final));
}

void test_formats_text_spec__a_chunk_not_converted_keeps_the_read_pass(void)
{
    const col_type *final = one_field(mem, COL_LONG);
    text_chunk skipped = {&objs[0], 0, 100, 200};
    arena *none = NULL;
    text_batch_list empty = {0};
        keep(0, 0, 100, COL_LONG, 1);
    check_ok(text_spec_keep(&sp, &skipped, 0, &none, NULL, &empty, &err), &err);
    check_int(1, sp.n);
    check(sp.held_bytes > 0); /* the chunk not converted holds nothing */
    check_ok(text_spec_settle(&sp, final, &queue, &reader, &err), &err);
    check_int(2, reader.n_keys);
    check_int(1, take(0, 0, 100, final));
    check_int(-1, take(0, 100, 200, final));
}

void test_formats_text_spec__marked_partial_is_never_handed_out_whole(void)
{
    const col_type *final = one_field(mem, COL_STRING);
        text_spec_mark_partial(&sp);
    check_ok(text_spec_settle(&sp, final, &queue, &reader, &err), &err);
    check_int(2, reader.n_keys);
    /* with nothing held and nothing partial, all the text was converted (none) */
    text_spec_clear(&sp);
    check_ok(text_spec_settle(&sp, final, &queue, &reader, &err), &err);
    check_int(0, reader.n_keys);
    check_int(0, queue.len);
}

void test_formats_text_spec__the_read_pass_matches_object_and_range(void)
{
    const col_type *final = one_field(mem, COL_LONG);
        objs[1].offset = 1000; /* a later window of object 1 */
    keep(0, 0, 100, COL_LONG, 1);
    keep(1, 0, 100, COL_LONG, 3);
    text_spec_mark_partial(&sp);
    check_ok(text_spec_settle(&sp, final, &queue, &reader, &err), &err);
    check_int(2, reader.n_keys);
    check_int(-1, take(0, 0, 99, final)); /* another range: parse it */
    check_int(-1, take(1, 0, 100, final)); /* the first held chunk is still the next */
    check_int(1, take(0, 0, 100, final));
    objs[1].offset = 0; /* object 1's first window: not the chunk held */
    check_int(-1, take(1, 0, 100, final));
    objs[1].offset = 1000;
    check_int(3, take(1, 0, 100, final));
    check_int(-1, take(1, 0, 100, final)); /* taken once */
}

void test_formats_text_spec__a_failed_conversion_drops_its_rows(void)
{
    text_batch_list batches = {0};
    text_batch *tb;
    int converted = 0;
    check_ok(text_batch_list_add(&batches, "batch", &tb, &err), &err);
    check_ok(text_spec_converted(SILT_OK, &converted, &batches, &err), &err);
    check_int(1, converted);
    check_int(1, batches.n);
    /* a malformed record (FAILFAST): no error now, the read pass reports it */
    check_ok(text_spec_converted(SILT_PARSE, &converted, &batches, &err), &err);
    check_int(0, converted);
    check_int(0, batches.n);
    check_ok(text_batch_list_add(&batches, "batch", &tb, &err), &err);
    converted = 1;
    check_fails(SILT_NOMEM, text_spec_converted(SILT_NOMEM, &converted, &batches, &err));
    check_int(0, converted);
    check_int(0, batches.n);
}
