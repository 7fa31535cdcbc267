/* Unit tests of the fault-injecting store used by failure tests. */
#include "io/store.h"
#include "test.h"

void test_io_store_fault__fails_the_planned_write(void)
{
    io_store *inner = NULL, *store = NULL;
    silt_error err = SILT_ERROR_INIT;
    io_fault_plan plan = IO_FAULT_PLAN_INIT;
    buf out = BUF_INIT;
    io_writer *w = NULL;
    long writes = 0, reads = 0;
    plan.fail_write_nth = 2;
    check_ok(io_store_open(&inner, test_tmpdir(), 0, &err), &err);
    check_ok(io_fault_store_wrap(&store, inner, &plan, &err), &err);
    check_ok(io_put(store, "a", "1", 1, &err), &err);
    check_fails(SILT_IO, io_put(store, "b", "2", 1, &err));
    check_contains(err.message, "injected failure");
    check_fails(SILT_NOTFOUND, io_get(store, "b", &out, &err));
    /* Without fail_all_after, later writes go through. */
    check_ok(io_writer_open(store, "c", &w, &err), &err);
    check_ok(io_writer_write(w, "xyz", 3, &err), &err);
    check_ok(io_writer_commit(w, 0, &err), &err);
    check_ok(io_get(store, "c", &out, &err), &err);
    check_str("xyz", buf_cstr(&out));
    io_fault_store_counts(store, &writes, &reads);
    check_int(3, writes);
    check_int(2, reads);
    buf_clear(&out);
    io_store_free(store);
}

void test_io_store_fault__fail_all_after_and_reads(void)
{
    io_store *inner = NULL, *store = NULL;
    silt_error err = SILT_ERROR_INIT;
    io_fault_plan plan = IO_FAULT_PLAN_INIT;
    io_writer *w = NULL;
    io_file *file = NULL;
    char byte;
    buf out = BUF_INIT;
    plan.fail_write_nth = 1;
    plan.fail_all_after = 1;
    plan.fail_read_nth = 2;
    check_ok(io_store_open(&inner, test_tmpdir(), 0, &err), &err);
    check_ok(io_put(inner, "x", "x", 1, &err), &err);
    check_ok(io_fault_store_wrap(&store, inner, &plan, &err), &err);
    check_fails(SILT_IO, io_put(store, "a", "1", 1, &err));
    check_ok(io_writer_open(store, "b", &w, &err), &err);
    check_fails(SILT_IO, io_writer_commit(w, 1, &err));
    check_fails(SILT_NOTFOUND, io_get(inner, "b", &out, &err));
    check_ok(io_file_open(store, "x", &file, &err), &err);
    check_ok(io_file_read_at(file, 0, 1, &byte, &err), &err);
    check_fails(SILT_IO, io_file_read_at(file, 0, 1, &byte, &err));
    io_file_close(file);
    buf_clear(&out);
    io_store_free(store);
}
