/*
 * fuzz_parquet.c - libFuzzer target for the Parquet reader: the input is a
 * whole Parquet file (footer, page headers, pages), read through an
 * in-memory object store with every column, the statistics of every row
 * group (through a filter that keeps them all) and a projection of the
 * first column. Any outcome but a crash, a hang or a leak is fine.
 *
 * Built with -DSILT_BUILD_FUZZERS=ON (clang); fuzz/replay.c runs the
 * committed corpus through the same function under gcc in normal ctest.
 */
#include <stdint.h>
#include <string.h>

#include "formats/parquet/parquet.h"
#include "util/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A read-only store holding one object: the fuzz input. */
typedef struct mem_store {
    io_store base;
    const uint8_t *data;
    size_t size;
} mem_store;

typedef struct mem_file {
    io_file base;
    const uint8_t *data;
} mem_file;

static silt_status mem_read_at(io_file *file, int64_t offset, size_t len, void *dst,
                               silt_error *err)
{
    (void)err;
    memcpy(dst, ((mem_file *)file)->data + offset, len);
    return SILT_OK;
}

static void mem_close(io_file *file) { mem_free(file); }

static const io_file_ops mem_file_ops = {mem_read_at, mem_close, NULL};

static silt_status mem_open_file(io_store *store, const char *key, io_file **out,
                                 silt_error *err)
{
    mem_store *ms = (mem_store *)store;
    mem_file *f = mem_calloc(1, sizeof(*f));
    if (f == NULL)
        return err_nomem(err);
    f->base.ops = &mem_file_ops;
    f->base.size = (int64_t)ms->size;
    f->base.key = (char *)key;
    f->data = ms->data;
    *out = &f->base;
    return SILT_OK;
}

static silt_status mem_unsupported(silt_error *err)
{
    return err_set(err, SILT_UNSUPPORTED, "the fuzz store only opens files");
}

static silt_status mem_get_range(io_store *s, const char *k, int64_t o, int64_t l, buf *out,
                                 silt_error *err)
{
    (void)s, (void)k, (void)o, (void)l, (void)out;
    return mem_unsupported(err);
}

static silt_status mem_put(io_store *s, const char *k, const void *d, size_t l, int a,
                           silt_error *err)
{
    (void)s, (void)k, (void)d, (void)l, (void)a;
    return mem_unsupported(err);
}

static silt_status mem_list(io_store *s, const char *p, const char *sa, int r, io_listing *out,
                            silt_error *err)
{
    (void)s, (void)p, (void)sa, (void)r, (void)out;
    return mem_unsupported(err);
}

static silt_status mem_remove(io_store *s, const char *k, silt_error *err)
{
    (void)s, (void)k;
    return mem_unsupported(err);
}

static silt_status mem_head(io_store *s, const char *k, io_object_info *out, silt_error *err)
{
    (void)s, (void)k, (void)out;
    return mem_unsupported(err);
}

static silt_status mem_open_writer(io_store *s, const char *k, io_writer **out, silt_error *err)
{
    (void)s, (void)k, (void)out;
    return mem_unsupported(err);
}

static void mem_destroy(io_store *store) { (void)store; }

static const io_store_ops mem_store_ops = {"mem",    mem_get_range, mem_put,         mem_list,
                                           mem_remove, mem_head,    mem_open_file,   mem_open_writer,
                                           mem_destroy};

static int keep_all(const pq_leaf_stats *stats, size_t n_stats, int64_t num_rows, void *payload)
{
    size_t idx;
    int64_t *sum = payload;
    for (idx = 0; idx < n_stats; idx++)
        *sum += stats[idx].has_min_max + stats[idx].null_count;
    return num_rows >= 0;
}

static void read_file(pq_file *file, const pq_read_options *opts, arena *a)
{
    silt_error err = SILT_ERROR_INIT;
    pq_reader *reader = NULL;
    if (pq_reader_open(&reader, file, opts, &err) == SILT_OK) {
        for (;;) {
            col_batch *batch = NULL;
            arena_reset(a);
            if (pq_reader_next(reader, a, &batch, &err) != SILT_OK || batch == NULL)
                break;
        }
    }
    pq_reader_free(reader);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mem_store store;
    silt_error err = SILT_ERROR_INIT;
    pq_file *file = NULL;
    arena *a = arena_new(NULL, "fuzz");
    int64_t sum = 0;
    memset(&store, 0, sizeof(store));
    store.base.ops = &mem_store_ops;
    store.base.root = (char *)"mem";
    store.data = data;
    store.size = size;
    if (a != NULL && pq_file_open(&file, &store.base, "fuzz.parquet", &err) == SILT_OK) {
        pq_read_options opts = PQ_READ_OPTIONS_INIT;
        const col_type *schema = pq_file_schema(file);
        opts.filter = keep_all;
        opts.filter_payload = &sum;
        opts.batch_rows = 100;
        /* Run-length encoding can describe gigabytes in a few bytes: stay under the RSS limit. */
        opts.memory_limit = 256 << 20;
        read_file(file, &opts, a);
        if (schema->n_fields > 0) {
            const char *first = schema->fields[0].name;
            pq_read_options proj = PQ_READ_OPTIONS_INIT;
            proj.columns = &first;
            proj.n_columns = 1;
            proj.memory_limit = 256 << 20;
            read_file(file, &proj, a);
        }
    }
    pq_file_free(file);
    arena_free(a);
    return 0;
}
