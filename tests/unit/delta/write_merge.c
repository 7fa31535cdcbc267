/*
 * MERGE through the C machinery: upsert, matched and not-matched-by-source
 * deletes, the multiple-match error, null keys, history, untouched files.
 */
#include "write_util.h"

#include "delta/dml.h"

static arena *a;
static io_store *store;
static silt_error err;

void test_delta_write_merge__initialize(void)
{
    a = arena_new(NULL, "test");
    err_clear(&err);
    check_ok(io_local_store_open(&store, test_tmpdir(), 1, &err), &err);
}

void test_delta_write_merge__cleanup(void)
{
    io_store_free(store);
    store = NULL;
    arena_free(a);
}

/* WHEN MATCHED THEN UPDATE SET name = s.name */
static silt_status set_name(const col_batch *target, const col_batch *source, uint8_t *action,
                            arena *ar, col_batch **updated, void *payload, silt_error *e)
{
    col_batch *b = arena_memdup(ar, target, sizeof(*target));
    (void)payload;
    (void)e;
    b->cols = arena_memdup(ar, target->cols, target->n_cols * sizeof(col_vec *));
    b->cols[1] = source->cols[1];
    memset(action, DELTA_MERGE_UPDATE, (size_t)target->n_rows);
    *updated = b;
    return SILT_OK;
}

/* WHEN MATCHED THEN DELETE */
static silt_status delete_all(const col_batch *target, const col_batch *source, uint8_t *action,
                              arena *ar, col_batch **updated, void *payload, silt_error *e)
{
    (void)source;
    (void)ar;
    (void)updated;
    (void)payload;
    (void)e;
    memset(action, DELTA_MERGE_DELETE, (size_t)target->n_rows);
    return SILT_OK;
}

/* WHEN NOT MATCHED BY SOURCE AND p = 'b' THEN DELETE */
static silt_status delete_b(const col_batch *target, const col_batch *source, uint8_t *action,
                            arena *ar, col_batch **updated, void *payload, silt_error *e)
{
    int64_t row;
    (void)source;
    (void)ar;
    (void)updated;
    (void)payload;
    (void)e;
    for (row = 0; row < target->n_rows; row++) {
        int32_t len;
        const char *p = col_vec_str(target->cols[2], row, &len);
        action[row] = len == 1 && p[0] == 'b' ? DELTA_MERGE_DELETE : DELTA_MERGE_KEEP;
    }
    return SILT_OK;
}

/* WHEN NOT MATCHED THEN INSERT * */
static silt_status insert_all(const col_batch *source, arena *ar, col_batch **rows, void *payload,
                              silt_error *e)
{
    (void)ar;
    (void)payload;
    (void)e;
    *rows = (col_batch *)source;
    return SILT_OK;
}

static const char *const key_id[] = {"id"};
static const size_t src_id[] = {0};

static delta_merge_spec upsert_spec(const col_batch *source)
{
    delta_merge_spec spec = DELTA_MERGE_SPEC_INIT;
    spec.source = source;
    spec.n_keys = 1;
    spec.target_keys = key_id;
    spec.source_keys = src_id;
    spec.matched = set_name;
    spec.insert = insert_all;
    spec.predicate_text = "(t.id = s.id)";
    spec.matched_json = "[{\"actionType\":\"update\"}]";
    spec.not_matched_json = "[{\"actionType\":\"insert\"}]";
    return spec;
}

static int has_path(const delta_snapshot *snap, const char *path)
{
    size_t idx;
    for (idx = 0; idx < snap->n_files; idx++)
        if (strcmp(snap->files[idx].path, path) == 0)
            return 1;
    return 0;
}

void test_delta_write_merge__upsert(void)
{
    static const char *const src[] = {"2|TWO|a", "4|FOUR|b", "7|seven|z", "null|nobody|z"};
    delta_merge_spec spec;
    delta_merge_metrics m;
    delta_snapshot *before, *after;
    const char *c_path = NULL;
    size_t idx;
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    for (idx = 0; idx < before->n_files; idx++)
        if (util_str_starts_with(before->files[idx].path, "p=c/"))
            c_path = before->files[idx].path;
    spec = upsert_spec(wt_batch(a, wt_schema3(a), src, 4));
    check_ok(delta_merge(store, before, &spec, &m, NULL, &err), &err);
    /* A null key matches nothing, so its source row is inserted. */
    check_str("1|one|a;2|TWO|a;3|three|a;4|FOUR|b;5|five|b;6|six|c;7|seven|z;null|nobody|z",
              wt_read(a, store, -1));
    check_int(4, m.num_source_rows);
    check_int(2, m.num_target_rows_updated);
    check_int(2, m.num_target_rows_matched_updated);
    check_int(2, m.num_target_rows_inserted);
    check_int(3, m.num_target_rows_copied);
    check_int(0, m.num_target_rows_deleted);
    check_int(7, m.num_output_rows);
    check_int(2, m.num_target_files_removed); /* p=a and p=b; p=c untouched */
    check_int(3, m.num_target_files_added);
    after = wt_latest(store, &err);
    check(has_path(after, c_path));
    check_int(4, after->n_files);
    delta_snapshot_free(after);
    delta_snapshot_free(before);
    check_str("MERGE", wt_commit_info(a, store, 1, "operation"));
    check_str("[\"(t.id = s.id)\"]", wt_commit_info(a, store, 1, "operationParameters.predicate"));
    check_str("0", wt_commit_info(a, store, 1, "operationMetrics.materializeSourceTimeMs"));
    check_str("[{\"actionType\":\"update\"}]",
              wt_commit_info(a, store, 1, "operationParameters.matchedPredicates"));
    check_str("[{\"actionType\":\"insert\"}]",
              wt_commit_info(a, store, 1, "operationParameters.notMatchedPredicates"));
    check_str("[]", wt_commit_info(a, store, 1, "operationParameters.notMatchedBySourcePredicates"));
    check_str("2", wt_commit_info(a, store, 1, "operationMetrics.numTargetRowsUpdated"));
    check_str("2", wt_commit_info(a, store, 1, "operationMetrics.numTargetRowsInserted"));
    check_str("3", wt_commit_info(a, store, 1, "operationMetrics.numTargetRowsCopied"));
    check_str("4", wt_commit_info(a, store, 1, "operationMetrics.numSourceRows"));
    check_str("2", wt_commit_info(a, store, 1, "operationMetrics.numTargetFilesRemoved"));
}

void test_delta_write_merge__deletes_matched_and_not_matched_by_source(void)
{
    static const char *const src[] = {"1|x|a", "99|y|q"};
    delta_merge_spec spec = DELTA_MERGE_SPEC_INIT;
    delta_merge_metrics m;
    delta_snapshot *before;
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    spec.source = wt_batch(a, wt_schema3(a), src, 2);
    spec.n_keys = 1;
    spec.target_keys = key_id;
    spec.source_keys = src_id;
    spec.matched = delete_all;
    spec.not_matched_by_source = delete_b;
    spec.predicate_text = "(t.id = s.id)";
    check_ok(delta_merge(store, before, &spec, &m, NULL, &err), &err);
    check_str("2|two|a;3|three|a;6|six|c", wt_read(a, store, -1)); /* no insert clause: 99 not added */
    check_int(1, m.num_target_rows_matched_deleted);
    check_int(2, m.num_target_rows_not_matched_by_source_deleted);
    check_int(3, m.num_target_rows_deleted);
    check_int(0, m.num_target_rows_inserted);
    check_int(2, m.num_target_files_removed); /* a (row 1) and b (both rows) */
    check_int(1, m.num_target_files_added);   /* a's rows 2 and 3 */
    delta_snapshot_free(before);
}

void test_delta_write_merge__multiple_source_rows_refused(void)
{
    static const char *const src[] = {"2|first|a", "2|second|a"};
    delta_merge_spec spec;
    delta_snapshot *before, *after;
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    spec = upsert_spec(wt_batch(a, wt_schema3(a), src, 2));
    check_fails(SILT_RUNTIME, delta_merge(store, before, &spec, NULL, NULL, &err));
    check_contains(err.message, "[DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE]");
    after = wt_latest(store, &err);
    check_int(0, after->version);
    delta_snapshot_free(after);
    /* Without a WHEN MATCHED clause duplicates are fine: nothing is inserted for them. */
    spec.matched = NULL;
    check_ok(delta_merge(store, before, &spec, NULL, NULL, &err), &err);
    check_str("1|one|a;2|two|a;3|three|a;4|four|b;5|five|b;6|six|c", wt_read(a, store, -1));
    delta_snapshot_free(before);
}

void test_delta_write_merge__no_change_touches_no_file(void)
{
    static const char *const src[] = {"42|new|n"};
    delta_merge_spec spec;
    delta_merge_metrics m;
    delta_snapshot *before, *after;
    size_t idx;
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    spec = upsert_spec(wt_batch(a, wt_schema3(a), src, 1));
    check_ok(delta_merge(store, before, &spec, &m, NULL, &err), &err);
    check_int(0, m.num_target_files_removed);
    check_int(1, m.num_target_files_added);
    after = wt_latest(store, &err);
    for (idx = 0; idx < before->n_files; idx++)
        check(has_path(after, before->files[idx].path));
    delta_snapshot_free(after);
    delta_snapshot_free(before);
    check_contains(wt_read(a, store, -1), "42|new|n");
}

void test_delta_write_merge__bad_key_refused(void)
{
    static const char *const src[] = {"1|x|a"};
    static const char *const bad[] = {"nope"};
    delta_merge_spec spec;
    delta_snapshot *before;
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    spec = upsert_spec(wt_batch(a, wt_schema3(a), src, 1));
    spec.target_keys = bad;
    check_fails(SILT_BIND, delta_merge(store, before, &spec, NULL, NULL, &err));
    check_contains(err.message, "\"nope\"");
    spec.target_keys = key_id;
    spec.source_keys = (const size_t[]){1}; /* a string column against a long */
    check_fails(SILT_INVALID, delta_merge(store, before, &spec, NULL, NULL, &err));
    delta_snapshot_free(before);
}

static int64_t long_at(const col_vec *v, int64_t row)
{
    return ((const int64_t *)v->values)[row];
}

/* ON t.id BETWEEN s.id AND s.id + 1 (no key equality): the pair condition. */
static silt_status id_within_one(const col_batch *target, const col_batch *source,
                                 uint8_t *match, arena *ar, void *payload, silt_error *e)
{
    int64_t row;
    (void)ar;
    (void)e;
    for (row = 0; row < target->n_rows; row++) {
        int64_t t = long_at(target->cols[0], row), s = long_at(source->cols[0], row);
        match[row] = !col_vec_is_null(target->cols[0], row) &&
                     !col_vec_is_null(source->cols[0], row) && t >= s && t <= s + 1;
    }
    (*(int *)payload)++;
    return SILT_OK;
}

void test_delta_write_merge__nested_loop_on_condition(void)
{
    static const char *const src[] = {"3|x|a", "6|y|c"};
    delta_merge_spec spec = DELTA_MERGE_SPEC_INIT;
    delta_merge_metrics m;
    delta_snapshot *before;
    int calls = 0;
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    spec.source = wt_batch(a, wt_schema3(a), src, 2);
    spec.on_rest = id_within_one;
    spec.on_rest_payload = &calls;
    spec.matched = set_name;
    spec.insert = insert_all;
    /* target 3, 4 match source 3; target 6 matches source 6; 7 would but there is none */
    check_ok(delta_merge(store, before, &spec, &m, NULL, &err), &err);
    check_str("1|one|a;2|two|a;3|x|a;4|x|b;5|five|b;6|y|c", wt_read(a, store, -1));
    check_int(3, m.num_target_rows_updated);
    check_int(0, m.num_target_rows_inserted);
    check(calls >= 1);
    delta_snapshot_free(before);
}

void test_delta_write_merge__nested_loop_multiple_matches(void)
{
    static const char *const src[] = {"3|x|a", "4|y|b"};
    delta_merge_spec spec = DELTA_MERGE_SPEC_INIT;
    delta_merge_metrics m;
    delta_snapshot *before, *after;
    int calls = 0;
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    spec.source = wt_batch(a, wt_schema3(a), src, 2);
    spec.on_rest = id_within_one;
    spec.on_rest_payload = &calls;
    spec.matched = set_name; /* target 4 is matched by both source rows */
    check_fails(SILT_RUNTIME, delta_merge(store, before, &spec, NULL, NULL, &err));
    check_contains(err.message, "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE");
    after = wt_latest(store, &err);
    check_int(0, after->version);
    delta_snapshot_free(after);
    /* a lone unconditional DELETE may be matched several times (Delta allows it) */
    spec.matched = delete_all;
    spec.multiple_matches_ok = 1;
    check_ok(delta_merge(store, before, &spec, &m, NULL, &err), &err);
    check_str("1|one|a;2|two|a;6|six|c", wt_read(a, store, -1));
    check_int(3, m.num_target_rows_deleted);
    delta_snapshot_free(before);
}

/* Many pairs: 300 target rows x 300 source rows go through several 64K-pair chunks. */
void test_delta_write_merge__nested_loop_in_chunks(void)
{
    const char **rows = arena_calloc(a, 300, sizeof(char *));
    delta_merge_spec spec = DELTA_MERGE_SPEC_INIT;
    delta_write_options wo = DELTA_WRITE_OPTIONS_INIT;
    delta_merge_metrics m;
    delta_writer *w = NULL;
    delta_snapshot *before;
    int calls = 0;
    size_t idx;
    for (idx = 0; idx < 300; idx++) {
        char *r = arena_alloc(a, 32);
        snprintf(r, 32, "%zu|n|a", idx * 2);
        rows[idx] = r;
    }
    check_ok(delta_write_open(&w, store, NULL, wt_schema3(a), &wo, &err), &err);
    check_ok(delta_write_batch(w, wt_batch(a, wt_schema3(a), rows, 300), &err), &err);
    check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, &err), &err);
    delta_write_free(w);
    before = wt_latest(store, &err);
    /* source ids 0, 2, ..., 598 shifted by one: each matches exactly one target (s <= t <= s+1) */
    for (idx = 0; idx < 300; idx++) {
        char *r = arena_alloc(a, 32);
        snprintf(r, 32, "%zu|m|a", idx * 2 >= 1 ? idx * 2 - 1 : 0);
        rows[idx] = r;
    }
    spec.source = wt_batch(a, wt_schema3(a), rows, 300);
    spec.on_rest = id_within_one;
    spec.on_rest_payload = &calls;
    spec.matched = set_name;
    check_ok(delta_merge(store, before, &spec, &m, NULL, &err), &err);
    check_int(300, m.num_target_rows_updated); /* target 0 matched by source 0 only */
    check(calls >= 2);
    delta_snapshot_free(before);
}

/* UPDATE SET * with the evolved schema: name from the source, extra = source id * 10. */
static silt_status set_name_extra(const col_batch *target, const col_batch *source,
                                  uint8_t *action, arena *ar, col_batch **updated, void *payload,
                                  silt_error *e)
{
    col_batch *b = arena_memdup(ar, target, sizeof(*target));
    col_builder *bld = NULL;
    int64_t row;
    (void)payload;
    b->cols = arena_memdup(ar, target->cols, target->n_cols * sizeof(col_vec *));
    b->cols[1] = source->cols[1];
    SILT_RETURN_IF_ERROR(col_builder_new(&bld, ar, target->schema->fields[3].type, e));
    for (row = 0; row < target->n_rows; row++)
        SILT_RETURN_IF_ERROR(col_builder_append_int(bld, long_at(source->cols[0], row) * 10,
                                                    e));
    SILT_RETURN_IF_ERROR(col_builder_finish(bld, &b->cols[3], e));
    memset(action, DELTA_MERGE_UPDATE, (size_t)target->n_rows);
    *updated = b;
    return SILT_OK;
}

void test_delta_write_merge__evolved_schema(void)
{
    static const char *const src[] = {"2|TWO|a"};
    col_field f[4];
    const col_type *evolved;
    delta_merge_spec spec;
    delta_snapshot *before, *after;
    f[0] = wt_field("id", COL_LONG);
    f[1] = wt_field("name", COL_STRING);
    f[2] = wt_field("p", COL_STRING);
    f[3] = wt_field("extra", COL_LONG);
    evolved = col_type_struct(a, 4, f);
    wt_make_abc_table(a, store, &err);
    before = wt_latest(store, &err);
    spec = upsert_spec(wt_batch(a, wt_schema3(a), src, 1));
    spec.insert = NULL;
    spec.matched = set_name_extra;
    spec.evolved_schema = evolved;
    check_ok(delta_merge(store, before, &spec, NULL, NULL, &err), &err);
    after = wt_latest(store, &err);
    check_int(4, after->schema->n_fields);
    check_str("extra", after->schema->fields[3].name);
    check(after->schema->fields[3].nullable);
    check_str("1|one|a|null;2|TWO|a|20;3|three|a|null;4|four|b|null;5|five|b|null;6|six|c|null",
              wt_read(a, store, -1));
    delta_snapshot_free(after);
    delta_snapshot_free(before);
}

static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle))
        n++;
    return n;
}

/*
 * PROTOCOL: Change Data Files. With the change data feed on, a MERGE that
 * changes target rows writes cdc files (dataChange false) for every
 * partition it touched, its inserts included (a commit with cdc actions is
 * read from them alone), and counts them in numTargetChangeFilesAdded.
 * (Their rows are compared with Spark's and delta-rs's change feed in the
 * interop.cdf_merge_restore ctest.)
 */
void test_delta_write_merge__change_data_files(void)
{
    static const char *const src[] = {"2|TWO|a", "4|FOUR|b", "7|seven|z"};
    delta_merge_spec spec;
    delta_merge_metrics m;
    delta_snapshot *snap;
    const char *text;
    wt_make_cdf_table(a, store, &err);
    snap = wt_latest(store, &err);
    spec = upsert_spec(wt_batch(a, wt_schema3(a), src, 3));
    check_ok(delta_merge(store, snap, &spec, &m, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_str("1|one|a;2|TWO|a;3|three|a;4|FOUR|b;5|five|b;6|six|c;7|seven|z",
              wt_read(a, store, -1));
    text = wt_commit_text(a, store, 1);
    check_contains(text, "{\"cdc\":{\"path\":\"_change_data/p=a/cdc-");
    check_contains(text, "{\"cdc\":{\"path\":\"_change_data/p=b/cdc-");
    check_contains(text, "{\"cdc\":{\"path\":\"_change_data/p=z/cdc-"); /* the insert */
    check_int(3, count_of(text, "{\"cdc\":"));
    check_int(3, count_of(text, "\"dataChange\":false}}"));
    check_str("3", wt_commit_info(a, store, 1, "operationMetrics.numTargetChangeFilesAdded"));
}

/* A MERGE that only inserts writes no cdc files on a change-data-feed table: its add files
 * are its changes, as Delta writes it. */
void test_delta_write_merge__insert_only_writes_no_change_data(void)
{
    static const char *const src[] = {"7|seven|z", "8|eight|a"};
    delta_merge_spec spec;
    delta_snapshot *snap;
    const char *text;
    wt_make_cdf_table(a, store, &err);
    snap = wt_latest(store, &err);
    spec = upsert_spec(wt_batch(a, wt_schema3(a), src, 2));
    check_ok(delta_merge(store, snap, &spec, NULL, NULL, &err), &err);
    delta_snapshot_free(snap);
    text = wt_commit_text(a, store, 1);
    check_int(0, count_of(text, "{\"cdc\":"));
    check_int(0, count_of(text, "{\"remove\":"));
    check_int(2, count_of(text, "{\"add\":"));
    check_str("0", wt_commit_info(a, store, 1, "operationMetrics.numTargetChangeFilesAdded"));
}

/* Deletes alone (matched and not matched by source) on a change-data-feed table: cdc files
 * with the deleted rows, and the rewritten partition keeps its other rows. */
void test_delta_write_merge__deletes_write_change_data(void)
{
    static const char *const src[] = {"1|x|a"};
    delta_merge_spec spec = DELTA_MERGE_SPEC_INIT;
    delta_snapshot *snap;
    delta_merge_metrics m;
    const char *text;
    wt_make_cdf_table(a, store, &err);
    snap = wt_latest(store, &err);
    spec.source = wt_batch(a, wt_schema3(a), src, 1);
    spec.n_keys = 1;
    spec.target_keys = key_id;
    spec.source_keys = src_id;
    spec.matched = delete_all;
    spec.not_matched_by_source = delete_b;
    check_ok(delta_merge(store, snap, &spec, &m, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_int(3, m.num_target_rows_deleted);
    check_str("2|two|a;3|three|a;6|six|c", wt_read(a, store, -1));
    text = wt_commit_text(a, store, 1);
    check_int(2, count_of(text, "{\"cdc\":"));
    check_str("2", wt_commit_info(a, store, 1, "operationMetrics.numTargetChangeFilesAdded"));
}

/* One unpartitioned file of ids 0..n-1 (name "n<id>", p "a"): several scan batches. */
static void make_long_table(int64_t n)
{
    const char **rows = arena_calloc(a, (size_t)n, sizeof(char *));
    delta_writer *w = NULL;
    int64_t id;
    for (id = 0; id < n; id++)
        rows[id] = arena_sprintf(a, "%lld|n%lld|a", (long long)id, (long long)id);
    check_ok(delta_write_open(&w, store, NULL, wt_schema3(a), NULL, &err), &err);
    check_ok(delta_write_batch(w, wt_batch(a, wt_schema3(a), rows, n), &err), &err);
    check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, &err), &err);
    delta_write_free(w);
}

/* Rows of the newest version: count and a check of one row. */
static void check_long_table(int64_t n, const char *row_text)
{
    char *all = wt_read(a, store, -1);
    int64_t rows = all[0] ? 1 : 0;
    for (const char *c = all; *c; c++)
        rows += *c == ';';
    check_int(n, rows);
    check_contains(all, row_text);
}

/*
 * The single read of a file: its first change is in its last batch, so the
 * batches before it are held and written back from memory (one read); with
 * a hold budget of one byte they are let go and the file is read a second
 * time. Both give the same table and metrics.
 */
static void merge_late_change(size_t hold_bytes)
{
    static const char *const src[] = {"19999|LAST|a", "20001|new|a"};
    delta_merge_spec spec;
    delta_merge_metrics m;
    delta_snapshot *snap;
    make_long_table(20000);
    snap = wt_latest(store, &err);
    check_int(1, snap->n_files);
    spec = upsert_spec(wt_batch(a, wt_schema3(a), src, 2));
    spec.hold_bytes = hold_bytes;
    check_ok(delta_merge(store, snap, &spec, &m, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_int(1, m.num_target_rows_updated);
    check_int(1, m.num_target_rows_inserted);
    check_int(19999, m.num_target_rows_copied);
    check_int(1, m.num_target_files_removed);
    check_long_table(20001, "19999|LAST|a");
    check_long_table(20001, "20001|new|a");
    check_long_table(20001, "0|n0|a;");
    check_long_table(20001, ";9999|n9999|a;");
}

void test_delta_write_merge__late_change_held(void) { merge_late_change(0); }

void test_delta_write_merge__late_change_read_again(void) { merge_late_change(1); }

/* A file without changes is not rewritten, whatever the hold budget. */
static void merge_no_change(size_t hold_bytes)
{
    static const char *const src[] = {"50000|new|a"};
    delta_merge_spec spec;
    delta_merge_metrics m;
    delta_snapshot *snap;
    make_long_table(20000);
    snap = wt_latest(store, &err);
    spec = upsert_spec(wt_batch(a, wt_schema3(a), src, 1));
    spec.hold_bytes = hold_bytes;
    check_ok(delta_merge(store, snap, &spec, &m, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_int(0, m.num_target_files_removed);
    check_int(1, m.num_target_rows_inserted);
    check_long_table(20001, "50000|new|a");
}

void test_delta_write_merge__unchanged_long_file_kept(void) { merge_no_change(0); }

void test_delta_write_merge__unchanged_long_file_kept_unheld(void) { merge_no_change(1); }

/* WHEN MATCHED THEN UPDATE SET * over (id, v) */
static silt_status set_all(const col_batch *target, const col_batch *source, uint8_t *action,
                           arena *ar, col_batch **updated, void *payload, silt_error *e)
{
    col_batch *b = arena_memdup(ar, source, sizeof(*source));
    (void)payload;
    (void)e;
    b->schema = target->schema;
    memset(action, DELTA_MERGE_UPDATE, (size_t)target->n_rows);
    *updated = b;
    return SILT_OK;
}

/*
 * Fixed-width columns only, no deletes: the updated rows are written over
 * the decoded batch in place; values become null and nulls become values
 * (the validity bitmap is made when the batch had none), and the rows keep
 * their order in the rewritten file.
 */
void test_delta_write_merge__update_in_place(void)
{
    static const char *const rows[] = {"1|10", "2|20", "3|30", "4|40", "5|50"};
    static const char *const src1[] = {"3|null"};
    static const char *const src2[] = {"2|22", "3|33", "5|null", "9|90"};
    col_field f[2];
    const col_type *schema;
    delta_writer *w = NULL;
    delta_merge_spec spec = DELTA_MERGE_SPEC_INIT;
    delta_merge_metrics m;
    delta_snapshot *snap;
    f[0] = wt_field("id", COL_LONG);
    f[1] = wt_field("v", COL_LONG);
    schema = col_type_struct(a, 2, f);
    check_ok(delta_write_open(&w, store, NULL, schema, NULL, &err), &err);
    check_ok(delta_write_batch(w, wt_batch(a, schema, rows, 5), &err), &err);
    check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, &err), &err);
    delta_write_free(w);
    /* The batch has no nulls yet: a validity bitmap is made for the new null. */
    snap = wt_latest(store, &err);
    spec.source = wt_batch(a, schema, src1, 1);
    spec.n_keys = 1;
    spec.target_keys = key_id;
    spec.source_keys = src_id;
    spec.matched = set_all;
    check_ok(delta_merge(store, snap, &spec, &m, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_int(1, m.num_target_rows_updated);
    check_int(4, m.num_target_rows_copied);
    check_str("1|10;2|20;3|null;4|40;5|50", wt_read(a, store, -1));
    /* Nulls become values and values nulls. */
    snap = wt_latest(store, &err);
    spec.source = wt_batch(a, schema, src2, 4);
    spec.insert = insert_all;
    check_ok(delta_merge(store, snap, &spec, &m, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_int(3, m.num_target_rows_updated);
    check_int(2, m.num_target_rows_copied);
    check_int(1, m.num_target_rows_inserted);
    check_str("1|10;2|22;3|33;4|40;5|null;9|90", wt_read(a, store, -1));
}

/* WHEN MATCHED THEN DELETE, on a key of two string columns (name, p) */
static const char *const key_name_p[] = {"name", "p"};
static const size_t src_name_p[] = {1, 2};

/*
 * The key index over two string columns: the target's strings come back
 * from Parquet (dictionary-encoded or not), the source's are flat; a null
 * in either key column matches nothing; equal keys several source rows
 * share form one chain (the multiple-match error names them).
 */
void test_delta_write_merge__string_keys(void)
{
    static const char *const src[] = {"0|two|a", "0|five|b", "0|five|a", "0|null|c",
                                       "0|six|null", "0|seven|z"};
    static const char *const dup[] = {"0|one|a", "0|one|a"};
    delta_merge_spec spec = DELTA_MERGE_SPEC_INIT;
    delta_merge_metrics m;
    delta_snapshot *snap;
    wt_make_abc_table(a, store, &err);
    snap = wt_latest(store, &err);
    spec.source = wt_batch(a, wt_schema3(a), src, 6);
    spec.n_keys = 2;
    spec.target_keys = key_name_p;
    spec.source_keys = src_name_p;
    spec.matched = delete_all;
    spec.insert = insert_all;
    check_ok(delta_merge(store, snap, &spec, &m, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_int(2, m.num_target_rows_deleted); /* two|a and five|b */
    check_int(4, m.num_target_rows_inserted);
    check_str("0|five|a;0|null|c;0|seven|z;0|six|null;1|one|a;3|three|a;4|four|b;6|six|c",
              wt_read(a, store, -1));
    snap = wt_latest(store, &err);
    spec.source = wt_batch(a, wt_schema3(a), dup, 2);
    spec.matched = set_name;
    check_fails(SILT_RUNTIME, delta_merge(store, snap, &spec, NULL, NULL, &err));
    check_contains(err.message, "[DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE]");
    delta_snapshot_free(snap);
}

/* Schema evolution on a change-data-feed table: the change rows carry the new column (the
 * change data writer takes the evolved schema, not the snapshot's). */
void test_delta_write_merge__evolved_schema_change_data(void)
{
    static const char *const src[] = {"2|TWO|a"};
    col_field f[4];
    delta_merge_spec spec;
    delta_snapshot *before;
    const char *text;
    f[0] = wt_field("id", COL_LONG);
    f[1] = wt_field("name", COL_STRING);
    f[2] = wt_field("p", COL_STRING);
    f[3] = wt_field("extra", COL_LONG);
    wt_make_cdf_table(a, store, &err);
    before = wt_latest(store, &err);
    spec = upsert_spec(wt_batch(a, wt_schema3(a), src, 1));
    spec.insert = NULL;
    spec.matched = set_name_extra;
    spec.evolved_schema = col_type_struct(a, 4, f);
    check_ok(delta_merge(store, before, &spec, NULL, NULL, &err), &err);
    delta_snapshot_free(before);
    check_str("1|one|a|null;2|TWO|a|20;3|three|a|null;4|four|b|null;5|five|b|null;6|six|c|null",
              wt_read(a, store, -1));
    text = wt_commit_text(a, store, 1);
    check_int(1, count_of(text, "{\"cdc\":{\"path\":\"_change_data/p=a/cdc-"));
}

/* WHEN NOT MATCHED BY SOURCE AND v > 100 THEN DELETE over (id, v): no row here */
static silt_status delete_v_over_100(const col_batch *target, const col_batch *source,
                                     uint8_t *action, arena *ar, col_batch **updated,
                                     void *payload, silt_error *e)
{
    int64_t row;
    (void)source;
    (void)ar;
    (void)updated;
    (void)payload;
    (void)e;
    for (row = 0; row < target->n_rows; row++)
        action[row] = long_at(target->cols[1], row) > 100 ? DELTA_MERGE_DELETE : DELTA_MERGE_KEEP;
    return SILT_OK;
}

/* An in-place batch where the other clause kind ran over rows but changed none of them (it
 * gave no updated batch): only the matched update is applied. */
void test_delta_write_merge__update_in_place_with_idle_clause(void)
{
    static const char *const rows[] = {"1|10", "2|20", "3|30"};
    static const char *const src[] = {"2|22"};
    col_field f[2];
    const col_type *schema;
    delta_writer *w = NULL;
    delta_merge_spec spec = DELTA_MERGE_SPEC_INIT;
    delta_merge_metrics m;
    delta_snapshot *snap;
    f[0] = wt_field("id", COL_LONG);
    f[1] = wt_field("v", COL_LONG);
    schema = col_type_struct(a, 2, f);
    check_ok(delta_write_open(&w, store, NULL, schema, NULL, &err), &err);
    check_ok(delta_write_batch(w, wt_batch(a, schema, rows, 3), &err), &err);
    check_ok(delta_write_commit(w, store, NULL, DELTA_MODE_CTAS, NULL, NULL, &err), &err);
    delta_write_free(w);
    snap = wt_latest(store, &err);
    spec.source = wt_batch(a, schema, src, 1);
    spec.n_keys = 1;
    spec.target_keys = key_id;
    spec.source_keys = src_id;
    spec.matched = set_all;
    spec.not_matched_by_source = delete_v_over_100;
    check_ok(delta_merge(store, snap, &spec, &m, NULL, &err), &err);
    delta_snapshot_free(snap);
    check_int(1, m.num_target_rows_updated);
    check_int(0, m.num_target_rows_deleted);
    check_str("1|10;2|22;3|30", wt_read(a, store, -1));
}
