/* Unit tests of formats/text_writer.c: choosing a format and streaming batches through it. */
#include "text_fixture.h"

void test_formats_text_writer__initialize(void)
{
    A = arena_new(NULL, "test");
    buf_init(&OUT, 0);
    err_clear(&ERR);
}

void test_formats_text_writer__cleanup(void)
{
    arena_free(A);
    buf_clear(&OUT);
}

static col_batch *ids(int64_t first, int64_t count)
{
    const char **names = arena_calloc(A, 2, sizeof(char *));
    col_vec **cols = arena_calloc(A, 2, sizeof(col_vec *));
    col_builder *id = builder(prim(COL_LONG)), *name = builder(prim(COL_STRING));
    int64_t row;
    names[0] = "id";
    names[1] = "name";
    for (row = first; row < first + count; row++) {
        add_int(id, row);
        if (row % 2)
            add_null(name);
        else
            add_str(name, "a,b");
    }
    cols[0] = finish(id);
    cols[1] = finish(name);
    return make_batch(2, names, cols);
}

static const char *run(text_format format, int n_batches)
{
    text_writer_options opts = TEXT_WRITER_OPTIONS_INIT;
    text_writer *w;
    col_batch *first = ids(0, 2);
    int idx;
    opts.format = format;
    opts.max_rows = 3;
    buf_truncate(&OUT, 0);
    check_ok(text_writer_new(&w, first->schema, &opts, &ERR), &ERR);
    for (idx = 0; idx < n_batches; idx++)
        check_ok(text_writer_add_batch(w, idx == 0 ? first : ids(idx * 2, 2), &OUT, &ERR), &ERR);
    check_ok(text_writer_finish(w, &OUT, &ERR), &ERR);
    text_writer_free(w);
    return buf_cstr(&OUT);
}

void test_formats_text_writer__every_format(void)
{
    check_str("+---+----+\n"
              "| id|name|\n"
              "+---+----+\n"
              "|  0| a,b|\n"
              "|  1|NULL|\n"
              "|  2| a,b|\n"
              "+---+----+\n"
              "only showing top 3 rows\n",
              run(TEXT_FORMAT_TABLE, 2));
    check_str("id,name\n0,\"a,b\"\n1,\n2,\"a,b\"\n3,\n", run(TEXT_FORMAT_CSV, 2));
    check_str("{\"id\":0,\"name\":\"a,b\"}\n{\"id\":1}\n", run(TEXT_FORMAT_JSON, 1));
    check_str("{\"id\":0,\"name\":\"a,b\"}\n{\"id\":1,\"name\":null}\n", run(TEXT_FORMAT_JSONL, 1));
}

void test_formats_text_writer__no_rows(void)
{
    check_str("+---+----+\n| id|name|\n+---+----+\n+---+----+\n", run(TEXT_FORMAT_TABLE, 0));
    check_str("id,name\n", run(TEXT_FORMAT_CSV, 0));
    check_str("", run(TEXT_FORMAT_JSON, 0));
    check_str("", run(TEXT_FORMAT_JSONL, 0));
}

void test_formats_text_writer__format_names(void)
{
    text_format format;
    check_ok(text_format_parse("CSV", &format, &ERR), &ERR);
    check_int(TEXT_FORMAT_CSV, format);
    check_ok(text_format_parse("jsonl", &format, &ERR), &ERR);
    check_int(TEXT_FORMAT_JSONL, format);
    check_ok(text_format_parse("table", &format, &ERR), &ERR);
    check_int(TEXT_FORMAT_TABLE, format);
    check_ok(text_format_parse("json", &format, &ERR), &ERR);
    check_int(TEXT_FORMAT_JSON, format);
    check_ok(text_format_parse("Vertical", &format, &ERR), &ERR);
    check_int(TEXT_FORMAT_VERTICAL, format);
    check_fails(SILT_INVALID, text_format_parse("xml", &format, &ERR));
    check_str("output format \"xml\" is not one silt writes", ERR.message);
    check_contains(ERR.hint, "table, vertical, csv, json or jsonl");
}

void test_formats_text_writer__misuse_is_refused(void)
{
    text_writer_options opts = TEXT_WRITER_OPTIONS_INIT;
    text_writer *w;
    col_batch *batch = ids(0, 1), *narrow = ids(0, 1);
    narrow->n_cols = 1;
    check_fails(SILT_INVALID, text_writer_new(&w, prim(COL_INT), NULL, &ERR));
    opts.format = (text_format)9;
    check_fails(SILT_INVALID, text_writer_new(&w, batch->schema, &opts, &ERR));
    check_contains(ERR.message, "output format out of range");
    opts.format = TEXT_FORMAT_TABLE;
    opts.max_rows = -1;
    check_fails(SILT_INVALID, text_writer_new(&w, batch->schema, &opts, &ERR));
    check_ok(text_writer_new(&w, batch->schema, NULL, &ERR), &ERR);
    check_fails(SILT_INVALID, text_writer_add_batch(w, narrow, &OUT, &ERR));
    check_contains(ERR.message, "batch of 1 columns as results of 2");
    text_writer_free(w);
    text_writer_free(NULL);
}
