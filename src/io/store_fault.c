/*
 * store_fault.c - a store that fails chosen operations, for crash and
 * failure tests (SQLite crash tests, curl torture mode). It wraps another
 * store and forwards everything, counting writes and reads; the planned
 * operation (and, with fail_all_after, every later one of its kind) returns
 * SILT_IO as a dying disk or a dropped connection would, without touching
 * the inner store, so the caller sees exactly what a real failure shows.
 */
#include <stdatomic.h>

#include "io/store.h"
#include "util/mem.h"

typedef struct fault_store {
    io_store base;
    io_store *inner;
    io_fault_plan plan;
    atomic_long writes;
    atomic_long reads;
    atomic_int write_failed;
    atomic_int read_failed;
} fault_store;

typedef struct fault_file {
    io_file base;
    fault_store *store;
    io_file *inner;
} fault_file;

typedef struct fault_writer {
    io_writer base;
    fault_store *store;
    io_writer *inner;
} fault_writer;

static silt_status check_nth(fault_store *fs, int is_write, const char *key, long *nth_out,
                             silt_error *err)
{
    long nth = is_write ? atomic_fetch_add(&fs->writes, 1) + 1 : atomic_fetch_add(&fs->reads, 1) + 1;
    long plan_nth = is_write ? fs->plan.fail_write_nth : fs->plan.fail_read_nth;
    atomic_int *failed = is_write ? &fs->write_failed : &fs->read_failed;
    if (plan_nth > 0 && (nth == plan_nth || (fs->plan.fail_all_after && atomic_load(failed)))) {
        atomic_store(failed, 1);
        return err_set(err, SILT_IO, "could not %s \"%s\": injected failure (%s %ld)",
                       is_write ? "write" : "read", key, is_write ? "write" : "read", nth);
    }
    if (nth_out != NULL)
        *nth_out = nth;
    return SILT_OK;
}

static silt_status check(fault_store *fs, int is_write, const char *key, silt_error *err)
{
    return check_nth(fs, is_write, key, NULL, err);
}

/* A write the inner store did, reported as published without its folder sync. */
static silt_status unsynced(fault_store *fs, long nth, const char *key, silt_status rc,
                            silt_error *err)
{
    if (rc != SILT_OK || fs->plan.unsynced_write_nth <= 0 || nth != fs->plan.unsynced_write_nth)
        return rc;
    return err_set(err, SILT_DURABILITY_UNKNOWN, "\"%s\" was published but could not sync its "
                   "folder: injected failure (write %ld): it may not survive a crash", key, nth);
}

static silt_status fault_get_range(io_store *store, const char *key, int64_t offset, int64_t len,
                                   buf *out, silt_error *err)
{
    fault_store *fs = (fault_store *)store;
    SILT_RETURN_IF_ERROR(check(fs, 0, key, err));
    return fs->inner->ops->get_range(fs->inner, key, offset, len, out, err);
}

static silt_status fault_put(io_store *store, const char *key, const void *data, size_t len,
                             int if_absent, silt_error *err)
{
    fault_store *fs = (fault_store *)store;
    long nth = 0;
    SILT_RETURN_IF_ERROR(check_nth(fs, 1, key, &nth, err));
    return unsynced(fs, nth, key, fs->inner->ops->put(fs->inner, key, data, len, if_absent, err),
                    err);
}

static silt_status fault_list(io_store *store, const char *prefix, const char *start_after,
                              int recursive, io_listing *out, silt_error *err)
{
    fault_store *fs = (fault_store *)store;
    return fs->inner->ops->list(fs->inner, prefix, start_after, recursive, out, err);
}

static silt_status fault_remove(io_store *store, const char *key, silt_error *err)
{
    fault_store *fs = (fault_store *)store;
    SILT_RETURN_IF_ERROR(check(fs, 1, key, err));
    return fs->inner->ops->remove(fs->inner, key, err);
}

static silt_status fault_head(io_store *store, const char *key, io_object_info *out,
                              silt_error *err)
{
    fault_store *fs = (fault_store *)store;
    return fs->inner->ops->head(fs->inner, key, out, err);
}

static silt_status fault_file_read_at(io_file *file, int64_t offset, size_t len, void *dst,
                                      silt_error *err)
{
    fault_file *ff = (fault_file *)file;
    SILT_RETURN_IF_ERROR(check(ff->store, 0, file->key, err));
    return ff->inner->ops->read_at(ff->inner, offset, len, dst, err);
}

static void fault_file_close(io_file *file)
{
    fault_file *ff = (fault_file *)file;
    io_file_close(ff->inner);
    mem_free(ff);
}

static const io_file_ops fault_file_ops = {fault_file_read_at, fault_file_close, NULL};

static silt_status fault_open_file(io_store *store, const char *key, io_file **out,
                                   silt_error *err)
{
    fault_store *fs = (fault_store *)store;
    fault_file *ff = mem_calloc(1, sizeof(*ff));
    silt_status rc;
    if (ff == NULL)
        return err_nomem(err);
    rc = fs->inner->ops->open_file(fs->inner, key, &ff->inner, err);
    if (rc != SILT_OK) {
        mem_free(ff);
        return rc;
    }
    ff->base.ops = &fault_file_ops;
    ff->base.size = ff->inner->size;
    ff->base.key = ff->inner->key;
    ff->store = fs;
    *out = &ff->base;
    return SILT_OK;
}

static silt_status fault_writer_write(io_writer *w, const void *data, size_t len,
                                      silt_error *err)
{
    fault_writer *fw = (fault_writer *)w;
    return io_writer_write(fw->inner, data, len, err);
}

static silt_status fault_writer_commit(io_writer *w, int if_absent, silt_error *err)
{
    fault_writer *fw = (fault_writer *)w;
    long nth = 0;
    silt_status rc = check_nth(fw->store, 1, w->key, &nth, err);
    if (rc != SILT_OK)
        io_writer_abort(fw->inner);
    else
        rc = unsynced(fw->store, nth, w->key, io_writer_commit(fw->inner, if_absent, err), err);
    mem_free(fw);
    return rc;
}

static void fault_writer_abort(io_writer *w)
{
    fault_writer *fw = (fault_writer *)w;
    io_writer_abort(fw->inner);
    mem_free(fw);
}

static const io_writer_ops fault_writer_ops = {fault_writer_write, fault_writer_commit,
                                               fault_writer_abort};

static silt_status fault_open_writer(io_store *store, const char *key, io_writer **out,
                                     silt_error *err)
{
    fault_store *fs = (fault_store *)store;
    fault_writer *fw = mem_calloc(1, sizeof(*fw));
    silt_status rc;
    if (fw == NULL)
        return err_nomem(err);
    rc = fs->inner->ops->open_writer(fs->inner, key, &fw->inner, err);
    if (rc != SILT_OK) {
        mem_free(fw);
        return rc;
    }
    fw->base.ops = &fault_writer_ops;
    fw->base.key = fw->inner->key;
    fw->store = fs;
    *out = &fw->base;
    return SILT_OK;
}

static void fault_destroy(io_store *store)
{
    fault_store *fs = (fault_store *)store;
    io_store_free(fs->inner);
    mem_free(fs);
}

static const io_store_ops fault_ops = {
    "fault",         fault_get_range, fault_put,         fault_list, fault_remove,
    fault_head,      fault_open_file, fault_open_writer, fault_destroy,
};

silt_status io_fault_store_wrap(io_store **out, io_store *inner, const io_fault_plan *plan,
                                silt_error *err)
{
    fault_store *fs = mem_calloc(1, sizeof(*fs));
    if (fs == NULL)
        return err_nomem(err);
    fs->base.ops = &fault_ops;
    fs->base.root = inner->root;
    fs->inner = inner;
    fs->plan = *plan;
    *out = &fs->base;
    return SILT_OK;
}

void io_fault_store_counts(const io_store *store, long *writes_out, long *reads_out)
{
    const fault_store *fs = (const fault_store *)store;
    if (writes_out != NULL)
        *writes_out = atomic_load(&fs->writes);
    if (reads_out != NULL)
        *reads_out = atomic_load(&fs->reads);
}
