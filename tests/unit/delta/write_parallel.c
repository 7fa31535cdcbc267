/*
 * The Delta writer encoding on a thread pool (write_encode.c): the files
 * hold the same rows and statistics as the serial path's (many partitions,
 * rolling at the target size, few open files, a queue flushed midway), and
 * a store failing in a worker ends the write with one error and no commit.
 */
#include <dirent.h>

#include "write_util.h"

#include "formats/parquet/parquet.h"
#include "util/thread.h"

static arena *a;
static tpool *pool;
static silt_error err;

void test_delta_write_parallel__initialize(void)
{
    a = arena_new(NULL, "test");
    err_clear(&err);
    check_ok(tpool_new(&pool, 3, &err), &err);
}

void test_delta_write_parallel__cleanup(void)
{
    tpool_free(pool);
    pool = NULL;
    arena_free(a);
}

static io_store *open_store(const char *name)
{
    io_store *store = NULL;
    char *dir = arena_sprintf(a, "%s/%s", test_tmpdir(), name);
    check_ok(io_local_store_open(&store, dir, 1, &err), &err);
    return store;
}

/* {id long, name string, p string}; row i in partition "p<i % n_parts>". */
static col_batch *rows_batch(int64_t first, int64_t n, int n_parts)
{
    const col_type *schema = wt_schema3(a);
    col_batch *b = arena_calloc(a, 1, sizeof(*b));
    col_builder *ids = NULL, *names = NULL, *parts = NULL;
    char text[64];
    int64_t row;
    check_ok(col_builder_new(&ids, a, schema->fields[0].type, &err), &err);
    check_ok(col_builder_new(&names, a, schema->fields[1].type, &err), &err);
    check_ok(col_builder_new(&parts, a, schema->fields[2].type, &err), &err);
    for (row = first; row < first + n; row++) {
        int len = snprintf(text, sizeof(text), "name-%lld", (long long)(row * 7919 % 100003));
        check_ok(col_builder_append_int(ids, row, &err), &err);
        if (row % 13 == 0)
            check_ok(col_builder_append_null(names, &err), &err);
        else
            check_ok(col_builder_append_bytes(names, text, (size_t)len, &err), &err);
        len = snprintf(text, sizeof(text), "p%lld", (long long)(row % n_parts));
        check_ok(col_builder_append_bytes(parts, text, (size_t)len, &err), &err);
    }
    b->schema = schema;
    b->n_rows = n;
    b->n_cols = 3;
    b->cols = arena_calloc(a, 3, sizeof(col_vec *));
    check_ok(col_builder_finish(ids, &b->cols[0], &err), &err);
    check_ok(col_builder_finish(names, &b->cols[1], &err), &err);
    check_ok(col_builder_finish(parts, &b->cols[2], &err), &err);
    return b;
}

typedef struct shape {
    int64_t n_rows, batch_rows;
    int n_parts;      /* 0 = an unpartitioned table */
    int64_t target;   /* target file size, 0 = default */
    int max_open;
} shape;

/* CTAS of the shape's rows into store, encoded on p (NULL = serially). */
static silt_status write_shape(io_store *store, const shape *s, tpool *p, silt_error *e)
{
    static const char *const part_p[] = {"p"};
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    delta_writer *w = NULL;
    int64_t first;
    silt_status rc;
    wopts.n_partition_columns = s->n_parts > 0;
    wopts.partition_columns = part_p;
    wopts.target_file_size = s->target;
    wopts.max_open_files = s->max_open;
    wopts.pool = p;
    rc = delta_write_open(&w, store, NULL, wt_schema3(a), &wopts, e);
    for (first = 0; rc == SILT_OK && first < s->n_rows; first += s->batch_rows) {
        int64_t n = s->n_rows - first < s->batch_rows ? s->n_rows - first : s->batch_rows;
        rc = delta_write_batch(w, rows_batch(first, n, s->n_parts ? s->n_parts : 1), e);
    }
    if (rc == SILT_OK)
        rc = delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, e);
    delta_write_free(w);
    return rc;
}

/* The table's files without their names: "folder stats" lines, sorted. */
static char *files_summary(io_store *store)
{
    delta_snapshot *snap = wt_latest(store, &err);
    char **lines = arena_calloc(a, snap->n_files + 1, sizeof(char *));
    buf all = BUF_INIT;
    size_t idx;
    char *text;
    for (idx = 0; idx < snap->n_files; idx++) {
        const char *slash = strrchr(snap->files[idx].path, '/');
        int dir_len = slash ? (int)(slash - snap->files[idx].path) : 0;
        lines[idx] = arena_sprintf(a, "%.*s %s", dir_len, snap->files[idx].path,
                                   snap->files[idx].stats ? snap->files[idx].stats : "-");
    }
    qsort(lines, snap->n_files, sizeof(char *), wt_cmp);
    for (idx = 0; idx < snap->n_files; idx++)
        check_ok(buf_printf(&all, &err, "%s\n", lines[idx]), &err);
    text = arena_strdup(a, buf_cstr(&all));
    buf_clear(&all);
    delta_snapshot_free(snap);
    return text;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* Writes the shape serially and on the pool; both tables must be the same. */
static void check_same_as_serial(const char *name, const shape *s, int min_files)
{
    io_store *serial = open_store(arena_sprintf(a, "%s-serial", name));
    io_store *parallel = open_store(arena_sprintf(a, "%s-parallel", name));
    char *serial_files, *parallel_files;
    check_ok(write_shape(serial, s, NULL, &err), &err);
    check_ok(write_shape(parallel, s, pool, &err), &err);
    serial_files = files_summary(serial);
    parallel_files = files_summary(parallel);
    check_str(serial_files, parallel_files);
    check(count_lines(parallel_files) >= min_files);
    check_str(wt_read(a, serial, -1), wt_read(a, parallel, -1));
    check_str("CREATE TABLE AS SELECT", wt_commit_info(a, parallel, 0, "operation"));
    io_store_free(serial);
    io_store_free(parallel);
}

void test_delta_write_parallel__many_partitions(void)
{
    shape s = {20000, 1000, 37, 0, 0};
    check_same_as_serial("many", &s, 37);
}

void test_delta_write_parallel__rolls_at_target_size(void)
{
    shape s = {12000, 700, 5, 20000, 0}; /* about 1000 rows a file: several per folder */
    io_store *store = open_store("roll-count");
    char *files;
    check_same_as_serial("roll", &s, 10);
    check_ok(write_shape(store, &s, pool, &err), &err);
    files = files_summary(store);
    check(count_lines(files) >= 10);
    check_contains(files, "p=p4 {\"numRecords\":");
    io_store_free(store);
}

void test_delta_write_parallel__few_open_files(void)
{
    shape s = {6000, 500, 11, 0, 3}; /* 11 folders, 3 files open at once */
    check_same_as_serial("open", &s, 12);
}

void test_delta_write_parallel__unpartitioned(void)
{
    shape s = {9000, 1000, 0, 30000, 0};
    check_same_as_serial("flat", &s, 2);
}

/* More rows than the queue holds (2^18): it is flushed midway, files stay the same. */
void test_delta_write_parallel__queue_flushed_midway(void)
{
    shape s = {300000, 8192, 4, 0, 0};
    check_same_as_serial("queue", &s, 4);
}

static int count_substr(const char *text, const char *what)
{
    int n = 0;
    for (; (text = strstr(text, what)) != NULL; text += strlen(what))
        n++;
    return n;
}

/*
 * Each write of the store failing in turn, from the first data file to the
 * commit: the write fails with the store's error, named once with the file
 * it was writing, and nothing is committed (no table). The try with no
 * write left to fail commits.
 */
void test_delta_write_parallel__worker_failure_commits_nothing(void)
{
    shape s = {8000, 1000, 6, 0, 0};
    long nth, n_writes = 0;
    int committed = 0;
    for (nth = 1; !committed && nth < 200; nth++) {
        io_fault_plan plan = IO_FAULT_PLAN_INIT;
        io_store *faulty = NULL, *inner = NULL, *check_store;
        char *dir = arena_sprintf(a, "%s/fail-%ld", test_tmpdir(), nth);
        silt_error e = SILT_ERROR_INIT;
        delta_snapshot *snap = NULL;
        silt_status rc;
        plan.fail_write_nth = nth;
        plan.fail_all_after = 1;
        check_ok(io_local_store_open(&inner, dir, 1, &err), &err);
        check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err);
        rc = write_shape(faulty, &s, pool, &e);
        io_fault_store_counts(faulty, &n_writes, NULL);
        io_store_free(faulty);
        check_ok(io_local_store_open(&check_store, dir, 0, &err), &err);
        if (rc == SILT_OK) {
            committed = 1;
            check_int(6, count_lines(files_summary(check_store)));
        } else {
            char text[4096];
            err_format(&e, text, sizeof(text));
            check_int(SILT_IO, rc);
            check(count_substr(text, "while writing the data file") <= 1);
            check_int(SILT_NOTFOUND, delta_snapshot_load(&snap, check_store, -1, &e));
            delta_snapshot_free(snap);
        }
        io_store_free(check_store);
    }
    check(committed);
    check(nth > 6); /* six files and a commit each failed first */
}

/*
 * Rows find their partition through the memo of recent string values
 * (write.c find_part): values sharing their first and last bytes and
 * length, "" and null (one folder, null in the log) all land where they
 * belong, read back row by row.
 */
void test_delta_write_parallel__string_partition_values(void)
{
    static const char *const values[] = {"null", "", "x", "a-long-value-1-end",
                                         "a-long-value-2-end", "a-long-value-1-enc", "x "};
    static const char *const part_p[] = {"p"};
    io_store *store = open_store("memo");
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    delta_writer *w = NULL;
    const char **rows = arena_calloc(a, 2000, sizeof(char *));
    char **want = arena_calloc(a, 2000, sizeof(char *));
    buf all = BUF_INIT;
    size_t idx;
    for (idx = 0; idx < 2000; idx++) {
        /* the seven values above, and 600 more that share the memo's 256 entries */
        const char *p = idx < 700 ? values[(idx * 7 + idx / 100) % 7]
                                  : arena_sprintf(a, "v%zu", idx * 7 % 600);
        rows[idx] = arena_sprintf(a, "%zu|n|%s", idx, p);
        want[idx] = arena_sprintf(a, "%zu|n|%s", idx, p[0] == '\0' ? "null" : p);
    }
    qsort(want, 2000, sizeof(char *), wt_cmp);
    for (idx = 0; idx < 2000; idx++)
        check_ok(buf_printf(&all, &err, "%s%s", idx ? ";" : "", want[idx]), &err);
    wopts.n_partition_columns = 1;
    wopts.partition_columns = part_p;
    wopts.pool = pool;
    wopts.max_open_files = 1000; /* one file per folder */
    check_ok(delta_write_open(&w, store, NULL, wt_schema3(a), &wopts, &err), &err);
    for (idx = 0; idx < 2000; idx += 100)
        check_ok(delta_write_batch(w, wt_batch(a, wt_schema3(a), rows + idx, 100), &err), &err);
    check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, &err), &err);
    delta_write_free(w);
    check_str(buf_cstr(&all), wt_read(a, store, -1));
    check_int(606, count_lines(files_summary(store))); /* "" and null share a folder */
    buf_clear(&all);
    io_store_free(store);
}

/* {id long, name string, p string}: p of row i is null, "" or one of n_values strings. */
static col_batch *mixed_batch(int64_t first, int64_t n, int n_values)
{
    const col_type *schema = wt_schema3(a);
    col_batch *b = arena_calloc(a, 1, sizeof(*b));
    col_builder *ids = NULL, *names = NULL, *parts = NULL;
    char text[64];
    int64_t row;
    check_ok(col_builder_new(&ids, a, schema->fields[0].type, &err), &err);
    check_ok(col_builder_new(&names, a, schema->fields[1].type, &err), &err);
    check_ok(col_builder_new(&parts, a, schema->fields[2].type, &err), &err);
    for (row = first; row < first + n; row++) {
        int64_t key = row * 11 % (n_values + 2); /* 11 and 42 are coprime: every key */
        check_ok(col_builder_append_int(ids, row, &err), &err);
        check_ok(col_builder_append_bytes(names, "n", 1, &err), &err);
        if (key == n_values)
            check_ok(col_builder_append_null(parts, &err), &err);
        else if (key == n_values + 1)
            check_ok(col_builder_append_bytes(parts, "", 0, &err), &err);
        else {
            /* long values that differ only inside share the memo's first and last bytes */
            int len = snprintf(text, sizeof(text), "value-%03lld-of-the-partition-column",
                               (long long)key);
            check_ok(col_builder_append_bytes(parts, text, (size_t)len, &err), &err);
        }
    }
    b->schema = schema;
    b->n_rows = n;
    b->n_cols = 3;
    b->cols = arena_calloc(a, 3, sizeof(col_vec *));
    check_ok(col_builder_finish(ids, &b->cols[0], &err), &err);
    check_ok(col_builder_finish(names, &b->cols[1], &err), &err);
    check_ok(col_builder_finish(parts, &b->cols[2], &err), &err);
    return b;
}

/* Every file's ids, read in file order, are increasing: rows keep their order. */
static void check_rows_in_order(io_store *store)
{
    delta_snapshot *snap = wt_latest(store, &err);
    int64_t total = 0;
    size_t idx;
    for (idx = 0; idx < snap->n_files; idx++) {
        pq_file *file = NULL;
        pq_reader *reader = NULL;
        pq_read_options ropts = PQ_READ_OPTIONS_INIT;
        col_batch *b = NULL;
        int64_t last = -1, row;
        check_ok(pq_file_open(&file, store, snap->files[idx].path, &err), &err);
        check_ok(pq_reader_open(&reader, file, &ropts, &err), &err);
        for (;;) {
            check_ok(pq_reader_next(reader, a, &b, &err), &err);
            if (b == NULL)
                break;
            for (row = 0; row < b->n_rows; row++) {
                int64_t id = ((const int64_t *)b->cols[0]->values)[row];
                check(id > last);
                last = id;
            }
            total += b->n_rows;
        }
        pq_reader_free(reader);
        pq_file_free(file);
    }
    check_int(24000, total);
    delta_snapshot_free(snap);
}

/*
 * The split on the caller (write.c group_rows: the memo probed from the
 * offsets, nulls and "" through find_part) with more folders than open
 * files and batches of uneven sizes, on the pool with deferred flushes:
 * the same files and rows as the serial path, each file's rows in order.
 */
void test_delta_write_parallel__split_nulls_empty_and_few_open_files(void)
{
    static const char *const part_p[] = {"p"};
    static const int64_t sizes[] = {1, 4999, 3000, 17, 9000, 2983, 4000};
    const char *summary[2];
    int round;
    for (round = 0; round < 2; round++) {
        io_store *store = open_store(round ? "mixed-parallel" : "mixed-serial");
        delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
        delta_writer *w = NULL;
        int64_t first = 0;
        size_t idx;
        wopts.n_partition_columns = 1;
        wopts.partition_columns = part_p;
        wopts.max_open_files = 5; /* 41 folders */
        wopts.pool = round ? pool : NULL;
        check_ok(delta_write_open(&w, store, NULL, wt_schema3(a), &wopts, &err), &err);
        for (idx = 0; idx < sizeof(sizes) / sizeof(sizes[0]); idx++) {
            check_ok(delta_write_batch(w, mixed_batch(first, sizes[idx], 40), &err), &err);
            first += sizes[idx];
        }
        check_int(24000, first);
        check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, &err), &err);
        delta_write_free(w);
        summary[round] = files_summary(store);
        check_contains(summary[round], "p=__HIVE_DEFAULT_PARTITION__ ");
        check(count_lines(summary[round]) > 41); /* folders closed and reopened */
        check_rows_in_order(store);
        io_store_free(store);
    }
    check_str(summary[0], summary[1]);
}

/*
 * A store failing while flushes are put off (more rows than half a queue,
 * files rolling during the flights): the write fails with the store's error
 * and nothing is committed.
 */
void test_delta_write_parallel__failure_during_deferred_flushes(void)
{
    shape s = {300000, 8192, 4, 300000, 0};
    static const long nths[] = {1, 4, 9};
    size_t idx;
    for (idx = 0; idx < sizeof(nths) / sizeof(nths[0]); idx++) {
        io_fault_plan plan = IO_FAULT_PLAN_INIT;
        io_store *faulty = NULL, *inner = NULL, *check_store = NULL;
        char *dir = arena_sprintf(a, "%s/defer-fail-%ld", test_tmpdir(), nths[idx]);
        silt_error e = SILT_ERROR_INIT;
        delta_snapshot *snap = NULL;
        long n_writes = 0;
        plan.fail_write_nth = nths[idx];
        plan.fail_all_after = 1;
        check_ok(io_local_store_open(&inner, dir, 1, &err), &err);
        check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err);
        check_int(SILT_IO, write_shape(faulty, &s, pool, &e));
        io_fault_store_counts(faulty, &n_writes, NULL);
        check(n_writes >= nths[idx]);
        io_store_free(faulty);
        check_ok(io_local_store_open(&check_store, dir, 0, &err), &err);
        check_int(SILT_NOTFOUND, delta_snapshot_load(&snap, check_store, -1, &e));
        delta_snapshot_free(snap);
        io_store_free(check_store);
    }
}

/* Entries of /proc/self/fd: the descriptors open now (-1 where there is no /proc). */
static int open_descriptors(void)
{
    DIR *dir = opendir("/proc/self/fd");
    int n = 0;
    if (dir == NULL)
        return -1;
    while (readdir(dir) != NULL)
        n++;
    closedir(dir);
    return n;
}

/*
 * A file whose close is queued still holds its descriptor until an encode
 * task closes it, so queued closes count against max_open_files: 400
 * folders, 10 new ones a batch, 5 open files, and the descriptors stay
 * bounded however many folders come (they grew to one per folder).
 */
void test_delta_write_parallel__queued_closes_bound_open_files(void)
{
    static const char *const part_p[] = {"p"};
    io_store *store = open_store("queued-closes");
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    delta_writer *w = NULL;
    int base = open_descriptors(), most = 0;
    int64_t first;
    wopts.n_partition_columns = 1;
    wopts.partition_columns = part_p;
    wopts.max_open_files = 5;
    wopts.pool = pool;
    check_ok(delta_write_open(&w, store, NULL, wt_schema3(a), &wopts, &err), &err);
    for (first = 0; first < 4000; first += 10) {
        int now;
        check_ok(delta_write_batch(w, rows_batch(first, 10, 400), &err), &err);
        now = open_descriptors();
        most = now > most ? now : most;
    }
    check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, &err), &err);
    delta_write_free(w);
    if (base >= 0) /* open files, closes queued (a batch's 10 more) and the flight's */
        check(most - base <= 3 * 5 + 2 * 10);
    check(count_lines(files_summary(store)) >= 400);
    io_store_free(store);
}
