/*
 * The table writer and the write operations: partition folders and their
 * escaping, file names, stats, rolling files, CTAS/append/overwrite with
 * Spark's commitInfo, schema enforcement and evolution, a failed write.
 */
#include "write_util.h"

#include "delta/protocol.h"

static arena *a;
static io_store *store;
static silt_error err;

void test_delta_write__initialize(void)
{
    a = arena_new(NULL, "test");
    err_clear(&err);
    check_ok(io_local_store_open(&store, test_tmpdir(), 1, &err), &err);
}

void test_delta_write__cleanup(void)
{
    io_store_free(store);
    store = NULL;
    arena_free(a);
}

/* {id long, name string, p string} */
static const col_type *schema3(void)
{
    col_field f[3];
    f[0] = wt_field("id", COL_LONG);
    f[1] = wt_field("name", COL_STRING);
    f[2] = wt_field("p", COL_STRING);
    return col_type_struct(a, 3, f);
}

static delta_snapshot *latest(void)
{
    delta_snapshot *snap = NULL;
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    return snap;
}

/* Writes rows with one writer and commits them in the given mode. */
static delta_commit_result write_rows(const col_type *schema, const char *const *rows, size_t n,
                                      delta_write_mode mode, const delta_write_options *wopts,
                                      const delta_commit_options *copts)
{
    delta_snapshot *snap = NULL;
    delta_writer *w = NULL;
    delta_commit_result res;
    if (mode != DELTA_MODE_CREATE && mode != DELTA_MODE_CTAS)
        snap = latest();
    check_ok(delta_write_open(&w, store, snap, schema, wopts, &err), &err);
    if (n > 0)
        check_ok(delta_write_batch(w, wt_batch(a, schema, rows, n), &err), &err);
    check_ok(delta_write_commit(w, store, snap, mode, copts, &res, &err), &err);
    delta_write_free(w);
    delta_snapshot_free(snap);
    return res;
}

static const char *const part_p[] = {"p"};

static void ctas_partitioned(void)
{
    static const char *const rows[] = {"1|one|a", "2|two|b/c", "3|three|null", "4|four|a",
                                       "5|five|", "6|null|x:y=z%"};
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    delta_commit_result res;
    wopts.n_partition_columns = 1;
    wopts.partition_columns = part_p;
    res = write_rows(schema3(), rows, 6, DELTA_MODE_CTAS, &wopts, NULL);
    check_int(0, res.version);
}

static int count_prefix(const delta_snapshot *snap, const char *prefix)
{
    size_t idx;
    int n = 0;
    for (idx = 0; idx < snap->n_files; idx++)
        n += util_str_starts_with(snap->files[idx].path, prefix);
    return n;
}

void test_delta_write__ctas_partition_folders(void)
{
    delta_snapshot *snap;
    size_t idx;
    ctas_partitioned();
    check_str("1|one|a;2|two|b/c;3|three|null;4|four|a;5|five|null;6|null|x:y=z%",
              wt_read(a, store, -1));
    snap = latest();
    check_int(4, snap->n_files); /* a, b/c, null (null and ""), x:y=z% */
    check_int(1, count_prefix(snap, "p=a/part-00"));
    check_int(1, count_prefix(snap, "p=b%2Fc/part-"));
    check_int(1, count_prefix(snap, "p=__HIVE_DEFAULT_PARTITION__/part-"));
    check_int(1, count_prefix(snap, "p=x%3Ay%3Dz%25/part-"));
    for (idx = 0; idx < snap->n_files; idx++) {
        const delta_file *f = &snap->files[idx];
        int found = 0;
        const char *value = dlog_map_get(&f->partition_values, "p", &found);
        check(found);
        check(util_str_ends_with(f->path, ".c000.snappy.parquet"));
        check(f->stats != NULL);
        check_contains(f->stats, "\"numRecords\":");
        check(strstr(f->stats, "\"p\"") == NULL); /* partition columns have no stats */
        if (util_str_starts_with(f->path, "p=__HIVE"))
            check(value == NULL);
        else if (util_str_starts_with(f->path, "p=a/")) {
            check_str("a", value);
            check_contains(f->stats, "\"minValues\":{\"id\":1,\"name\":\"four\"}");
            check_contains(f->stats, "\"numRecords\":2");
        }
    }
    check_int(1, snap->protocol.min_reader_version);
    check_int(2, snap->protocol.min_writer_version);
    delta_snapshot_free(snap);
    check_str("CREATE TABLE AS SELECT", wt_commit_info(a, store, 0, "operation"));
    check_str("[\"p\"]", wt_commit_info(a, store, 0, "operationParameters.partitionBy"));
    check_str("false", wt_commit_info(a, store, 0, "operationParameters.isManaged"));
    check_str("{}", wt_commit_info(a, store, 0, "operationParameters.properties"));
    check_str("[]", wt_commit_info(a, store, 0, "operationParameters.clusterBy"));
    check_str("null", wt_commit_info(a, store, 0, "operationParameters.description"));
    check_str("4", wt_commit_info(a, store, 0, "operationMetrics.numFiles"));
    check_str("6", wt_commit_info(a, store, 0, "operationMetrics.numOutputRows"));
}

void test_delta_write__append_and_history(void)
{
    static const char *const more[] = {"7|seven|a", "8|eight|new"};
    delta_snapshot *snap;
    delta_commit_result res;
    int64_t bytes = 0;
    size_t idx;
    ctas_partitioned();
    res = write_rows(schema3(), more, 2, DELTA_MODE_APPEND, NULL, NULL);
    check_int(1, res.version);
    check_str("1|one|a;2|two|b/c;3|three|null;4|four|a;5|five|null;6|null|x:y=z%;7|seven|a;"
              "8|eight|new",
              wt_read(a, store, -1));
    check_str("WRITE", wt_commit_info(a, store, 1, "operation"));
    check_str("Append", wt_commit_info(a, store, 1, "operationParameters.mode"));
    check_str("[]", wt_commit_info(a, store, 1, "operationParameters.partitionBy"));
    check_str("<absent>", wt_commit_info(a, store, 1, "operationMetrics.numRemovedFiles"));
    check_str("2", wt_commit_info(a, store, 1, "operationMetrics.numFiles"));
    check_str("2", wt_commit_info(a, store, 1, "operationMetrics.numOutputRows"));
    snap = latest();
    check_int(6, snap->n_files);
    check_int(2, count_prefix(snap, "p=a/"));
    for (idx = 0; idx < snap->n_files; idx++)
        bytes += snap->files[idx].size;
    check_int(snap->total_size, bytes);
    delta_snapshot_free(snap);
}

void test_delta_write__create_empty_then_append(void)
{
    static const char *const rows[] = {"1|x|a"};
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    delta_commit_result res;
    wopts.n_partition_columns = 1;
    wopts.partition_columns = part_p;
    res = write_rows(schema3(), NULL, 0, DELTA_MODE_CREATE, &wopts, NULL);
    check_int(0, res.version);
    check_str("CREATE TABLE", wt_commit_info(a, store, 0, "operation"));
    check_str("<absent>", wt_commit_info(a, store, 0, "operationMetrics"));
    check_str("", wt_read(a, store, -1));
    write_rows(schema3(), rows, 1, DELTA_MODE_APPEND, NULL, NULL);
    check_str("1|x|a", wt_read(a, store, -1));
}

void test_delta_write__create_twice_refused(void)
{
    delta_snapshot *snap;
    delta_writer *w = NULL;
    ctas_partitioned();
    snap = latest();
    check_ok(delta_write_open(&w, store, NULL, schema3(), NULL, &err), &err);
    check_fails(SILT_EXISTS, delta_write_commit(w, store, snap, DELTA_MODE_CTAS, NULL, NULL, &err));
    check_contains(err.message, "exists");
    delta_write_free(w);
    delta_snapshot_free(snap);
}

void test_delta_write__overwrite_whole_table(void)
{
    static const char *const rows[] = {"9|nine|z"};
    delta_snapshot *snap;
    ctas_partitioned();
    write_rows(schema3(), rows, 1, DELTA_MODE_OVERWRITE, NULL, NULL);
    check_str("9|nine|z", wt_read(a, store, -1));
    check_str("Overwrite", wt_commit_info(a, store, 1, "operationParameters.mode"));
    check_str("4", wt_commit_info(a, store, 1, "operationMetrics.numRemovedFiles"));
    /* Time travel still sees the old rows. */
    check_str("1|one|a;2|two|b/c;3|three|null;4|four|a;5|five|null;6|null|x:y=z%",
              wt_read(a, store, 0));
    snap = latest();
    check_int(1, snap->n_files);
    check_int(4, snap->n_tombstones);
    delta_snapshot_free(snap);
}

static int partition_is_a(const delta_snapshot *snap, const delta_file *file, void *payload)
{
    const char *value = dlog_map_get(&file->partition_values, "p", NULL);
    (void)snap;
    (void)payload;
    return value != NULL && strcmp(value, "a") == 0;
}

void test_delta_write__overwrite_replace_where(void)
{
    static const char *const rows[] = {"10|ten|a"};
    delta_commit_options copts = DELTA_COMMIT_OPTIONS_INIT;
    copts.replace_where = partition_is_a;
    copts.predicate_text = "(p = 'a')";
    ctas_partitioned();
    write_rows(schema3(), rows, 1, DELTA_MODE_OVERWRITE, NULL, &copts);
    check_str("10|ten|a;2|two|b/c;3|three|null;5|five|null;6|null|x:y=z%", wt_read(a, store, -1));
    check_str("(p = 'a')", wt_commit_info(a, store, 1, "operationParameters.predicate"));
    check_str("1", wt_commit_info(a, store, 1, "operationMetrics.numRemovedFiles"));
    check_str("2", wt_commit_info(a, store, 1, "operationMetrics.numDeletedRows"));
    check_str("0", wt_commit_info(a, store, 1, "operationMetrics.numCopiedRows"));
}

void test_delta_write__dynamic_partition_overwrite(void)
{
    static const char *const rows[] = {"11|eleven|null", "12|twelve|b/c", "13|new|q"};
    ctas_partitioned();
    write_rows(schema3(), rows, 3, DELTA_MODE_OVERWRITE_PARTITIONS, NULL, NULL);
    check_str("11|eleven|null;12|twelve|b/c;13|new|q;1|one|a;4|four|a;6|null|x:y=z%",
              wt_read(a, store, -1));
    check_str("true",
              wt_commit_info(a, store, 1, "operationParameters.isDynamicPartitionOverwrite"));
}

void test_delta_write__schema_mismatch_refused(void)
{
    col_field f[3];
    const col_type *extra, *wrong;
    delta_snapshot *snap;
    delta_writer *w = NULL;
    ctas_partitioned();
    snap = latest();
    f[0] = wt_field("id", COL_LONG);
    f[1] = wt_field("p", COL_STRING);
    f[2] = wt_field("extra", COL_INT);
    extra = col_type_struct(a, 3, f);
    check_fails(SILT_INVALID, delta_write_open(&w, store, snap, extra, NULL, &err));
    check_contains(err.message, "A schema mismatch detected when writing to the Delta table");
    check_contains(err.message, "\"extra\"");
    check_contains(err.hint, "mergeSchema");
    f[2] = wt_field("name", COL_INT);
    wrong = col_type_struct(a, 3, f);
    check_fails(SILT_INVALID, delta_write_open(&w, store, snap, wrong, NULL, &err));
    check_contains(err.message, "[DELTA_FAILED_TO_MERGE_FIELDS] Failed to merge fields 'name'");
    check_contains(err.message, "string");
    delta_snapshot_free(snap);
    check(w == NULL);
}

void test_delta_write__missing_column_is_null_and_case_insensitive(void)
{
    static const char *const rows[] = {"a|20"};
    col_field f[2];
    const col_type *two;
    ctas_partitioned();
    f[0] = wt_field("P", COL_STRING);
    f[1] = wt_field("ID", COL_LONG);
    two = col_type_struct(a, 2, f);
    write_rows(two, rows, 1, DELTA_MODE_APPEND, NULL, NULL);
    check_contains(wt_read(a, store, -1), ";20|null|a;");
}

void test_delta_write__merge_schema_adds_column(void)
{
    static const char *const rows[] = {"30|thirty|a|7"};
    col_field f[4];
    const col_type *wide;
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    delta_snapshot *snap;
    ctas_partitioned();
    f[0] = wt_field("id", COL_LONG);
    f[1] = wt_field("name", COL_STRING);
    f[2] = wt_field("p", COL_STRING);
    f[3] = wt_field("score", COL_INT);
    wide = col_type_struct(a, 4, f);
    wopts.merge_schema = 1;
    write_rows(wide, rows, 1, DELTA_MODE_APPEND, &wopts, NULL);
    check_str("1|one|a|null;2|two|b/c|null;30|thirty|a|7;3|three|null|null;4|four|a|null;"
              "5|five|null|null;6|null|x:y=z%|null",
              wt_read(a, store, -1));
    snap = latest();
    check_int(4, snap->schema->n_fields);
    check_str("score", snap->schema->fields[3].name);
    check_int(1, (int)snap->metadata.n_partition_columns);
    delta_snapshot_free(snap);
}

void test_delta_write__rolls_files_at_target_size(void)
{
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    const col_type *schema = schema3();
    delta_writer *w = NULL;
    delta_write_output out;
    char **rows = arena_calloc(a, 1000, sizeof(char *));
    int idx;
    for (idx = 0; idx < 1000; idx++) {
        rows[idx] = arena_alloc(a, 64);
        snprintf(rows[idx], 64, "%d|name-%d|%s", idx, idx, idx % 2 ? "a" : "b");
    }
    wopts.n_partition_columns = 1;
    wopts.partition_columns = part_p;
    wopts.target_file_size = 4000; /* bytes of rows in memory: about 250 rows */
    check_ok(delta_write_open(&w, store, NULL, schema, &wopts, &err), &err);
    for (idx = 0; idx < 10; idx++)
        check_ok(delta_write_batch(w, wt_batch(a, schema, (const char *const *)rows + idx * 100,
                                               100),
                                   &err),
                 &err);
    check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, &err), &err);
    check_ok(delta_write_finish(w, &out, &err), &err);
    check_int(1000, out.n_rows);
    check(out.n_adds >= 4 && out.n_adds <= 12);
    delta_write_free(w);
    {
        const char *all = wt_read(a, store, -1), *at;
        int n_rows = 1;
        for (at = all; (at = strchr(at, ';')) != NULL; at++)
            n_rows++;
        check_int(1000, n_rows);
        check(util_str_starts_with(all, "0|name-0|b;100|name-100|b;"));
        check_contains(all, ";1|name-1|a;");
        check_contains(all, ";999|name-999|a");
    }
}

void test_delta_write__column_mapping_physical_names(void)
{
    static const char *const rows[] = {"1|one|a"};
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    dlog_map config;
    dlog_kv kv = {"delta.columnMapping.mode", "name"};
    delta_snapshot *snap;
    const char *phys_p = NULL;
    config.n = 1;
    config.items = &kv;
    wopts.n_partition_columns = 1;
    wopts.partition_columns = part_p;
    wopts.configuration = &config;
    write_rows(schema3(), rows, 1, DELTA_MODE_CTAS, &wopts, NULL);
    check_str("1|one|a", wt_read(a, store, -1));
    snap = latest();
    check_ok(dproto_physical_name(&snap->schema->fields[2], DPROTO_MAPPING_NAME, a, &phys_p, &err),
             &err);
    check(util_str_starts_with(phys_p, "col-"));
    check_int(1, snap->n_files);
    check_str("a", dlog_map_get(&snap->files[0].partition_values, phys_p, NULL));
    check(util_str_starts_with(snap->files[0].path, phys_p));
    check(strstr(snap->files[0].stats, "\"id\"") == NULL);
    delta_snapshot_free(snap);
    write_rows(schema3(), rows, 1, DELTA_MODE_APPEND, NULL, NULL);
    check_str("1|one|a;1|one|a", wt_read(a, store, -1));
}

/*
 * Each write of the store failing in turn (two data files, then the
 * commit): the table stays exactly at version 0. The fourth try has no
 * write left to fail and commits.
 */
void test_delta_write__failed_write_leaves_table(void)
{
    static const char *const rows[] = {"7|seven|a", "8|eight|q"};
    long nth;
    ctas_partitioned();
    for (nth = 1; nth <= 4; nth++) {
        io_fault_plan plan = IO_FAULT_PLAN_INIT;
        io_store *faulty = NULL, *inner = NULL;
        delta_snapshot *snap = latest();
        delta_writer *w = NULL;
        silt_status rc;
        plan.fail_write_nth = nth;
        plan.fail_all_after = 1;
        check_ok(io_local_store_open(&inner, test_tmpdir(), 0, &err), &err);
        check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err); /* owns inner */
        rc = delta_write_open(&w, faulty, snap, schema3(), NULL, &err);
        if (rc == SILT_OK)
            rc = delta_write_batch(w, wt_batch(a, schema3(), rows, 2), &err);
        if (rc == SILT_OK)
            rc = delta_write_commit(w, faulty, snap, DELTA_MODE_APPEND, NULL, NULL, &err);
        check_int(nth == 4 ? SILT_OK : SILT_IO, rc);
        delta_write_free(w);
        io_store_free(faulty);
        delta_snapshot_free(snap);
        snap = latest();
        check_int(nth == 4 ? 1 : 0, snap->version);
        check_int(nth == 4 ? 6 : 4, snap->n_files);
        delta_snapshot_free(snap);
        if (nth == 3)
            check_str("1|one|a;2|two|b/c;3|three|null;4|four|a;5|five|null;6|null|x:y=z%",
                      wt_read(a, store, -1));
    }
}

void test_delta_write__stats_honour_indexed_cols(void)
{
    static const char *const rows[] = {"1|one|a"};
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    dlog_kv kv = {"delta.dataSkippingNumIndexedCols", "1"};
    dlog_map config = {1, &kv};
    delta_snapshot *snap;
    wopts.configuration = &config;
    write_rows(schema3(), rows, 1, DELTA_MODE_CTAS, &wopts, NULL);
    snap = latest();
    check_int(1, snap->n_files);
    check_contains(snap->files[0].stats, "\"minValues\":{\"id\":1}");
    check(strstr(snap->files[0].stats, "\"name\"") == NULL);
    delta_snapshot_free(snap);
}

/* Nested columns round-trip: struct<x:int,y:string> and array<long>, with nulls. */
void test_delta_write__nested_columns(void)
{
    col_field sf[2], f[3];
    const col_type *st, *arr, *schema;
    col_builder *b_id = NULL, *b_s = NULL, *b_arr = NULL;
    col_batch batch;
    col_vec *cols[3];
    delta_writer *w = NULL;
    delta_snapshot *snap;
    delta_scan *scan = NULL;
    col_batch *got = NULL;
    int64_t total = 0;
    int row;
    sf[0] = wt_field("x", COL_INT);
    sf[1] = wt_field("y", COL_STRING);
    st = col_type_struct(a, 2, sf);
    arr = col_type_array(a, col_type_primitive(COL_LONG), 1);
    f[0] = wt_field("id", COL_LONG);
    f[1] = wt_field("s", COL_STRUCT);
    f[1].type = st;
    f[2] = wt_field("arr", COL_ARRAY);
    f[2].type = arr;
    schema = col_type_struct(a, 3, f);
    check_ok(col_builder_new(&b_id, a, f[0].type, &err), &err);
    check_ok(col_builder_new(&b_s, a, st, &err), &err);
    check_ok(col_builder_new(&b_arr, a, arr, &err), &err);
    for (row = 0; row < 3; row++) {
        check_ok(col_builder_append_int(b_id, row, &err), &err);
        if (row == 1) { /* a null struct: the builder fills its children */
            check_ok(col_builder_append_null(b_s, &err), &err);
        } else {
            check_ok(col_builder_append_int(col_builder_child(b_s, 0), row * 10, &err), &err);
            check_ok(col_builder_append_bytes(col_builder_child(b_s, 1), "yy", (size_t)row, &err),
                     &err);
            check_ok(col_builder_append_struct(b_s, &err), &err);
        }
        check_ok(col_builder_append_int(col_builder_child(b_arr, 0), row, &err), &err);
        check_ok(col_builder_append_int(col_builder_child(b_arr, 0), row + 100, &err), &err);
        check_ok(col_builder_append_list(b_arr, 2, &err), &err);
    }
    check_ok(col_builder_finish(b_id, &cols[0], &err), &err);
    check_ok(col_builder_finish(b_s, &cols[1], &err), &err);
    check_ok(col_builder_finish(b_arr, &cols[2], &err), &err);
    batch.schema = schema;
    batch.n_rows = 3;
    batch.n_cols = 3;
    batch.cols = cols;
    check_ok(delta_write_open(&w, store, NULL, schema, NULL, &err), &err);
    check_ok(delta_write_batch(w, &batch, &err), &err);
    check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, &err), &err);
    delta_write_free(w);
    snap = latest();
    check_contains(snap->files[0].stats, "\"s\":{\"x\":0,\"y\":\"\"}");
    check_ok(delta_scan_open(&scan, store, snap, NULL, &err), &err);
    for (;;) {
        const col_vec *s, *list;
        check_ok(delta_scan_next(scan, a, &got, &err), &err);
        if (got == NULL)
            break;
        s = got->cols[1];
        list = got->cols[2];
        for (row = 0; row < got->n_rows; row++) {
            int64_t id = ((const int64_t *)got->cols[0]->values)[row];
            check_int(id == 1, col_vec_is_null(s, row));
            if (id != 1)
                check_int(id * 10, ((const int32_t *)s->children[0]->values)[row]);
            check_int(2, list->offsets[row + 1] - list->offsets[row]);
            check_int(id + 100, ((const int64_t *)list->children[0]->values)[list->offsets[row] + 1]);
        }
        total += got->n_rows;
    }
    check_int(3, total);
    delta_scan_free(scan);
    delta_snapshot_free(snap);
}

/* Ten partitions with at most three files open: files are finished early, no row is lost. */
void test_delta_write__max_open_files(void)
{
    static const char *const parts[] = {"p"};
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    const col_type *schema = schema3();
    delta_writer *w = NULL;
    delta_write_output out;
    delta_snapshot *snap;
    char **rows = arena_calloc(a, 200, sizeof(char *));
    const char *all, *at;
    int idx, n_rows = 1;
    for (idx = 0; idx < 200; idx++) {
        rows[idx] = arena_alloc(a, 64);
        snprintf(rows[idx], 64, "%d|n%d|p%d", idx, idx, idx % 10);
    }
    wopts.n_partition_columns = 1;
    wopts.partition_columns = parts;
    wopts.max_open_files = 3;
    check_ok(delta_write_open(&w, store, NULL, schema, &wopts, &err), &err);
    for (idx = 0; idx < 2; idx++)
        check_ok(delta_write_batch(
                     w, wt_batch(a, schema, (const char *const *)rows + idx * 100, 100), &err),
                 &err);
    check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, &err), &err);
    check_ok(delta_write_finish(w, &out, &err), &err);
    check_int(200, out.n_rows);
    check(out.n_adds > 10); /* at least one partition got two files */
    delta_write_free(w);
    all = wt_read(a, store, -1);
    for (at = all; (at = strchr(at, ';')) != NULL; at++)
        n_rows++;
    check_int(200, n_rows);
    check_contains(all, ";199|n199|p9");
    snap = latest();
    check_int((int64_t)out.n_adds, (int64_t)snap->n_files);
    delta_snapshot_free(snap);
}

/*
 * Partitions found by typed value over two batches: 298 folders (the key
 * table grows several times), an int column with nulls, a string column
 * whose "" and null share a folder and whose other value needs escaping.
 */
void test_delta_write__many_typed_partitions(void)
{
    static const char *const parts[] = {"p", "q"};
    delta_write_options wopts = DELTA_WRITE_OPTIONS_INIT;
    col_field f[3];
    const col_type *schema;
    delta_snapshot *snap;
    char **rows = arena_calloc(a, 600, sizeof(char *));
    const char *all, *at;
    int idx, n_rows = 1;
    f[0] = wt_field("id", COL_LONG);
    f[1] = wt_field("q", COL_STRING);
    f[2] = wt_field("p", COL_INT);
    schema = col_type_struct(a, 3, f);
    for (idx = 0; idx < 600; idx++) {
        static const char *const q[] = {"x=y", "", "null"};
        rows[idx] = arena_alloc(a, 64);
        if (idx % 149 == 7)
            snprintf(rows[idx], 64, "%d|%s|null", idx, q[idx % 3]);
        else
            snprintf(rows[idx], 64, "%d|%s|%d", idx, q[idx % 3], idx % 149);
    }
    wopts.n_partition_columns = 2;
    wopts.partition_columns = parts;
    wopts.max_open_files = 1000;
    {
        delta_writer *w = NULL;
        check_ok(delta_write_open(&w, store, NULL, schema, &wopts, &err), &err);
        for (idx = 0; idx < 2; idx++)
            check_ok(delta_write_batch(
                         w, wt_batch(a, schema, (const char *const *)rows + idx * 300, 300), &err),
                     &err);
        check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, &err), &err);
        delta_write_free(w);
    }
    snap = latest();
    check_int(298, (int64_t)snap->n_files); /* 149 values of p (null for 7) x 2 folders of q */
    check_int(1, count_prefix(snap, "p=__HIVE_DEFAULT_PARTITION__/q=x%3Dy/part-"));
    check_int(1, count_prefix(snap, "p=__HIVE_DEFAULT_PARTITION__/q=__HIVE_DEFAULT_PARTITION__/"));
    check_int(1, count_prefix(snap, "p=3/q=x%3Dy/part-"));
    check_int(1, count_prefix(snap, "p=148/q=__HIVE_DEFAULT_PARTITION__/part-"));
    check_int(0, count_prefix(snap, "p=7/"));
    delta_snapshot_free(snap);
    all = wt_read(a, store, -1);
    for (at = all; (at = strchr(at, ';')) != NULL; at++)
        n_rows++;
    check_int(600, n_rows);
    check_contains(all, ";3|x=y|3;");
    check_contains(all, ";7|null|null;");
    check_contains(all, ";156|x=y|null;"); /* 156 % 149 = 7 */
    check_contains(all, ";8|null|8;");
}

/* Issue 15: a new table whose columns differ only in case is refused when the
 * writer opens, before any data file is written. */
void test_delta_write__duplicate_columns_refused_before_any_file(void)
{
    delta_writer *w = NULL;
    col_field f[2];
    f[0] = wt_field("seq", COL_LONG);
    f[1] = wt_field("SEQ", COL_LONG);
    check_fails(SILT_INVALID, delta_write_open(&w, store, NULL, col_type_struct(a, 2, f), NULL,
                                               &err));
    check(w == NULL);
    check_contains(err.message, "[DELTA_DUPLICATE_COLUMNS_FOUND]");
    check_int(0, test_dir_entries(test_tmpdir()));
}

/* The transaction refuses a metaData whose schema repeats a name or whose
 * partition column is not in the schema (a writer never commits either). */
void test_delta_write__txn_refuses_bad_metadata(void)
{
    static const char *parts[] = {"p"};
    delta_txn *txn = NULL;
    dlog_metadata md;
    memset(&md, 0, sizeof(md));
    md.id = "x";
    md.schema_string = "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\","
                       "\"nullable\":true,\"metadata\":{}},{\"name\":\"A\",\"type\":\"long\","
                       "\"nullable\":true,\"metadata\":{}}]}";
    check_ok(delta_txn_begin(&txn, store, NULL, "CREATE TABLE", &err), &err);
    check_fails(SILT_INVALID, delta_txn_set_metadata(txn, &md, &err));
    check_contains(err.message, "[DELTA_DUPLICATE_COLUMNS_FOUND]");
    md.schema_string = "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\","
                       "\"nullable\":true,\"metadata\":{}}]}";
    md.n_partition_columns = 1;
    md.partition_columns = parts;
    check_fails(SILT_INVALID, delta_txn_set_metadata(txn, &md, &err));
    check_contains(err.message, "[DELTA_PARTITION_COLUMN_NOT_FOUND]");
    delta_txn_free(txn);
}
