/*
 * scan_fixture.h - the fixture of the CSV and JSON reader tests (csv.c,
 * json.c): a store in the test's folder, an arena, the rendered schema and
 * rows of the last read, and a thread pool a test may set. Included by one
 * test file at a time; everything is static.
 */
#ifndef SILT_TEST_SCAN_FIXTURE_H
#define SILT_TEST_SCAN_FIXTURE_H

#include "io/store.h"
#include "test.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/thread.h"

static io_store *store;
static silt_error err;
static arena *mem;
static buf schema_text, rows_text;
static tpool *pool;

static void scan_fixture_init(void)
{
    err_clear(&err);
    store = NULL;
    pool = NULL;
    check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
    mem = arena_new(NULL, "test");
    buf_init(&schema_text, 0);
    buf_init(&rows_text, 0);
}

static void scan_fixture_clear(void)
{
    arena_free(mem);
    io_store_free(store);
    tpool_free(pool);
    buf_clear(&schema_text);
    buf_clear(&rows_text);
}

#endif
