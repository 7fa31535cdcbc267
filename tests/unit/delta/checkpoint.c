/* dlog_actions_from_batch on checkpoint batches built with col_builder. */
#include <stdio.h>
#include <string.h>

#include "delta/checkpoint.h"
#include "delta/snapshot.h"
#include "test.h"

static arena *a;

void test_delta_checkpoint__initialize(void) { a = arena_new(NULL, "test"); }
void test_delta_checkpoint__cleanup(void) { arena_free(a); }

static col_field fld(const char *name, const col_type *type)
{
    col_field f;
    memset(&f, 0, sizeof(f));
    f.name = name;
    f.type = type;
    f.nullable = 1;
    f.field_id = -1;
    return f;
}

#define PRIM(id) col_type_primitive(id)

/* The checkpoint schema (PROTOCOL: Checkpoint Schema), the parts silt reads. */
static const col_type *checkpoint_schema(void)
{
    const col_type *str_map = col_type_map(a, PRIM(COL_STRING), PRIM(COL_STRING), 1);
    const col_type *str_array = col_type_array(a, PRIM(COL_STRING), 1);
    col_field dv[] = {fld("storageType", PRIM(COL_STRING)), fld("pathOrInlineDv", PRIM(COL_STRING)),
                      fld("offset", PRIM(COL_INT)), fld("sizeInBytes", PRIM(COL_INT)),
                      fld("cardinality", PRIM(COL_LONG))};
    const col_type *dv_type = col_type_struct(a, 5, arena_memdup(a, dv, sizeof(dv)));
    col_field add[] = {fld("path", PRIM(COL_STRING)), fld("partitionValues", str_map),
                       fld("size", PRIM(COL_LONG)), fld("modificationTime", PRIM(COL_LONG)),
                       fld("dataChange", PRIM(COL_BOOLEAN)), fld("stats", PRIM(COL_STRING)),
                       fld("deletionVector", dv_type)};
    col_field rm[] = {fld("path", PRIM(COL_STRING)), fld("deletionTimestamp", PRIM(COL_LONG)),
                      fld("dataChange", PRIM(COL_BOOLEAN))};
    col_field format[] = {fld("provider", PRIM(COL_STRING)), fld("options", str_map)};
    col_field md[] = {fld("id", PRIM(COL_STRING)),
                      fld("format", col_type_struct(a, 2, arena_memdup(a, format, sizeof(format)))),
                      fld("schemaString", PRIM(COL_STRING)), fld("partitionColumns", str_array),
                      fld("configuration", str_map), fld("createdTime", PRIM(COL_LONG))};
    col_field proto[] = {fld("minReaderVersion", PRIM(COL_INT)), fld("minWriterVersion", PRIM(COL_INT)),
                         fld("readerFeatures", str_array), fld("writerFeatures", str_array)};
    col_field txn[] = {fld("appId", PRIM(COL_STRING)), fld("version", PRIM(COL_LONG)),
                       fld("lastUpdated", PRIM(COL_LONG))};
    col_field top[] = {
        fld("txn", col_type_struct(a, 3, arena_memdup(a, txn, sizeof(txn)))),
        fld("add", col_type_struct(a, 7, arena_memdup(a, add, sizeof(add)))),
        fld("remove", col_type_struct(a, 3, arena_memdup(a, rm, sizeof(rm)))),
        fld("metaData", col_type_struct(a, 6, arena_memdup(a, md, sizeof(md)))),
        fld("protocol", col_type_struct(a, 4, arena_memdup(a, proto, sizeof(proto)))),
        fld("futureColumn", PRIM(COL_LONG)),
    };
    return col_type_struct(a, 6, arena_memdup(a, top, sizeof(top)));
}

static void s(col_builder *b, const char *text)
{
    if (text == NULL)
        check_ok(col_builder_append_null(b, NULL), NULL);
    else
        check_ok(col_builder_append_bytes(b, text, strlen(text), NULL), NULL);
}

static void i(col_builder *b, int64_t value) { check_ok(col_builder_append_int(b, value, NULL), NULL); }
static void null(col_builder *b) { check_ok(col_builder_append_null(b, NULL), NULL); }
static void done_struct(col_builder *b) { check_ok(col_builder_append_struct(b, NULL), NULL); }
#define C(b, idx) col_builder_child((b), (idx))

static void str_map(col_builder *b, const char *key, const char *value)
{
    if (key != NULL) {
        s(C(b, 0), key);
        s(C(b, 1), value);
    }
    check_ok(col_builder_append_list(b, key ? 1 : 0, NULL), NULL);
}

static void str_list(col_builder *b, const char *item)
{
    if (item != NULL)
        s(C(b, 0), item);
    check_ok(col_builder_append_list(b, item ? 1 : 0, NULL), NULL);
}

enum { TXN, ADD, REMOVE, METADATA, PROTOCOL, FUTURE };

static void row_begin(col_builder **cols, int which)
{
    int idx;
    for (idx = 0; idx <= FUTURE; idx++)
        if (idx != which)
            null(cols[idx]);
}

static void add_row(col_builder **cols, const char *path, const char *part, int with_dv)
{
    col_builder *add = cols[ADD], *dv = C(add, 6);
    row_begin(cols, ADD);
    s(C(add, 0), path);
    str_map(C(add, 1), part ? "p" : NULL, part);
    i(C(add, 2), 100);
    i(C(add, 3), 5);
    check_ok(col_builder_append_bool(C(add, 4), 0, NULL), NULL);
    s(C(add, 5), "{\"numRecords\":10}");
    if (with_dv) {
        s(C(dv, 0), "u");
        s(C(dv, 1), "ab^-aqEH.-t@S}K{vb[*k^");
        i(C(dv, 2), 1);
        i(C(dv, 3), 40);
        i(C(dv, 4), 6);
        done_struct(dv);
    } else {
        null(dv);
    }
    done_struct(add);
}

static col_batch *build_batch(int break_protocol)
{
    const col_type *schema = checkpoint_schema();
    col_builder *cols[FUTURE + 1];
    col_batch *batch = arena_calloc(a, 1, sizeof(col_batch));
    size_t idx;
    for (idx = 0; idx <= FUTURE; idx++)
        check_ok(col_builder_new(&cols[idx], a, schema->fields[idx].type, NULL), NULL);

    row_begin(cols, PROTOCOL);
    i(C(cols[PROTOCOL], 0), 3);
    if (break_protocol)
        null(C(cols[PROTOCOL], 1));
    else
        i(C(cols[PROTOCOL], 1), 7);
    str_list(C(cols[PROTOCOL], 2), "deletionVectors");
    str_list(C(cols[PROTOCOL], 3), "deletionVectors");
    done_struct(cols[PROTOCOL]);

    row_begin(cols, METADATA);
    s(C(cols[METADATA], 0), "table-id");
    s(C(C(cols[METADATA], 1), 0), "parquet");
    str_map(C(C(cols[METADATA], 1), 1), NULL, NULL);
    done_struct(C(cols[METADATA], 1));
    s(C(cols[METADATA], 2), "{\"type\":\"struct\",\"fields\":[{\"name\":\"p\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}");
    str_list(C(cols[METADATA], 3), "p");
    str_map(C(cols[METADATA], 4), "delta.enableDeletionVectors", "true");
    i(C(cols[METADATA], 5), 1234);
    done_struct(cols[METADATA]);

    add_row(cols, "p=a/f%201.parquet", "a", 1);
    add_row(cols, "p=b/f2.parquet", NULL, 0);

    row_begin(cols, REMOVE);
    s(C(cols[REMOVE], 0), "old.parquet");
    i(C(cols[REMOVE], 1), 99);
    check_ok(col_builder_append_bool(C(cols[REMOVE], 2), 1, NULL), NULL);
    done_struct(cols[REMOVE]);

    row_begin(cols, TXN);
    s(C(cols[TXN], 0), "stream-1");
    i(C(cols[TXN], 1), 17);
    null(C(cols[TXN], 2));
    done_struct(cols[TXN]);

    batch->schema = schema;
    batch->n_rows = 6;
    batch->n_cols = FUTURE + 1;
    batch->cols = arena_calloc(a, FUTURE + 1, sizeof(col_vec *));
    for (idx = 0; idx <= FUTURE; idx++)
        check_ok(col_builder_finish(cols[idx], &batch->cols[idx], NULL), NULL);
    return batch;
}

#define MAX_SEEN 16
static dlog_action seen[MAX_SEEN];
static int n_seen;

static silt_status collect(const dlog_action *action, void *payload, silt_error *err)
{
    (void)payload;
    (void)err;
    if (n_seen < MAX_SEEN)
        seen[n_seen++] = *action;
    return SILT_OK;
}

void test_delta_checkpoint__rows_become_actions(void)
{
    col_batch *batch = build_batch(0);
    silt_error err = SILT_ERROR_INIT;
    n_seen = 0;
    check_ok(dlog_actions_from_batch(batch, a, collect, NULL, &err), &err);
    check_int(6, n_seen);
    check_int(DLOG_PROTOCOL, seen[0].type);
    check_int(3, seen[0].u.protocol.min_reader_version);
    check_int(7, seen[0].u.protocol.min_writer_version);
    check_str("deletionVectors", seen[0].u.protocol.reader_features[0]);
    check_int(DLOG_METADATA, seen[1].type);
    check_str("table-id", seen[1].u.metadata.id);
    check_str("p", seen[1].u.metadata.partition_columns[0]);
    check_str("true", dlog_map_get(&seen[1].u.metadata.configuration, "delta.enableDeletionVectors", NULL));
    check_int(1, seen[1].u.metadata.schema->n_fields);
    check_int(1234, seen[1].u.metadata.created_time);
    check_int(DLOG_ADD, seen[2].type);
    check_str("p=a/f 1.parquet", seen[2].u.add.path);
    check_str("a", dlog_map_get(&seen[2].u.add.partition_values, "p", NULL));
    check_int(100, seen[2].u.add.size);
    check_str("{\"numRecords\":10}", seen[2].u.add.stats);
    check_int('u', seen[2].u.add.dv.storage_type);
    check_int(1, seen[2].u.add.dv.offset);
    check_int(6, seen[2].u.add.dv.cardinality);
    check_int(0, seen[3].u.add.dv.storage_type);
    check_int(0, seen[3].u.add.partition_values.n);
    check_int(DLOG_REMOVE, seen[4].type);
    check_str("old.parquet", seen[4].u.remove.path);
    check_int(DLOG_TXN, seen[5].type);
    check_str("stream-1", seen[5].u.txn.app_id);
    check_int(0, seen[5].u.txn.has_last_updated);
}

void test_delta_checkpoint__null_required_field_is_corrupt(void)
{
    col_batch *batch = build_batch(1);
    silt_error err = SILT_ERROR_INIT;
    n_seen = 0;
    check_fails(SILT_CORRUPT, dlog_actions_from_batch(batch, a, collect, NULL, &err));
    check_contains(err.message, "\"protocol.minWriterVersion\"");
}

void test_delta_checkpoint__wrong_column_type_is_corrupt(void)
{
    col_field top[] = {fld("add", PRIM(COL_LONG))};
    col_batch batch;
    col_vec *v = NULL;
    silt_error err = SILT_ERROR_INIT;
    check_ok(col_vec_new(&v, a, PRIM(COL_LONG), 1, 0, &err), &err);
    batch.schema = col_type_struct(a, 1, top);
    batch.n_rows = 1;
    batch.n_cols = 1;
    batch.cols = &v;
    check_fails(SILT_CORRUPT, dlog_actions_from_batch(&batch, a, collect, NULL, &err));
    check_contains(err.message, "\"add\"");
}

/* The snapshot loader reads a "Parquet" checkpoint through a reader that yields this batch. */
static silt_status batch_reader(io_store *store, const char *key, arena *scratch,
                                dlog_action_fn fn, void *payload, silt_error *err)
{
    (void)store;
    (void)key;
    return dlog_actions_from_batch(build_batch(0), scratch, fn, payload, err);
}

void test_delta_checkpoint__snapshot_from_checkpoint_batch(void)
{
    io_store *store = NULL;
    delta_snapshot *snap = NULL;
    delta_load_options opts = DELTA_LOAD_OPTIONS_INIT;
    silt_error err = SILT_ERROR_INIT;
    const char *commit = "{\"remove\":{\"path\":\"p%3Db/f2.parquet\",\"dataChange\":true}}\n";
    check_ok(io_store_open(&store, test_tmpdir(), 1, &err), &err);
    check_ok(io_put(store, "_delta_log/00000000000000000003.checkpoint.parquet", "x", 1, &err), &err);
    check_ok(io_put(store, "_delta_log/00000000000000000004.json", commit, strlen(commit), &err), &err);
    opts.parquet_reader = batch_reader;
    check_ok(delta_snapshot_load_ext(&snap, store, -1, &opts, &err), &err);
    check_int(4, snap->version);
    check_int(3, snap->checkpoint_version);
    check_int(1, snap->n_files);
    check_str("p=a/f 1.parquet", snap->files[0].path);
    check_int(17, snap->txns[0].version);
    check_int(2, snap->n_tombstones); /* p=b/f2.parquet and old.parquet */
    delta_snapshot_free(snap);
    check_fails(SILT_NOTFOUND, delta_snapshot_load_ext(&snap, store, 2, &opts, &err));
    check_contains(err.message, "Available versions: [3, 4].");
    io_store_free(store);
}

void test_delta_checkpoint__stats_parsed_becomes_stats_json(void)
{
    col_field bounds[] = {fld("id", PRIM(COL_LONG)), fld("d", PRIM(COL_DATE)),
                          fld("ts", PRIM(COL_TIMESTAMP)), fld("s", PRIM(COL_STRING))};
    const col_type *bounds_type = col_type_struct(a, 4, arena_memdup(a, bounds, sizeof(bounds)));
    col_field nulls[] = {fld("id", PRIM(COL_LONG))};
    col_field stats[] = {fld("numRecords", PRIM(COL_LONG)), fld("minValues", bounds_type),
                         fld("maxValues", bounds_type),
                         fld("nullCount", col_type_struct(a, 1, arena_memdup(a, nulls, sizeof(nulls))))};
    col_field add[] = {fld("path", PRIM(COL_STRING)), fld("size", PRIM(COL_LONG)),
                       fld("stats", PRIM(COL_STRING)),
                       fld("stats_parsed", col_type_struct(a, 4, arena_memdup(a, stats, sizeof(stats))))};
    col_field top[] = {fld("add", col_type_struct(a, 4, arena_memdup(a, add, sizeof(add))))};
    col_batch batch;
    col_builder *b = NULL, *sp, *mn, *mx;
    col_vec *v = NULL;
    silt_error err = SILT_ERROR_INIT;
    batch.schema = col_type_struct(a, 1, top);
    check_ok(col_builder_new(&b, a, batch.schema->fields[0].type, NULL), NULL);
    s(C(b, 0), "f.parquet");
    i(C(b, 1), 10);
    s(C(b, 2), NULL);
    sp = C(b, 3);
    mn = C(sp, 1);
    mx = C(sp, 2);
    i(C(sp, 0), 7);
    i(C(mn, 0), -5);
    i(C(mn, 1), 18878);
    i(C(mn, 2), 1631099471000000LL);
    s(C(mn, 3), "a\"b");
    done_struct(mn);
    i(C(mx, 0), 9);
    null(C(mx, 1));
    i(C(mx, 2), 1631099471123000LL);
    s(C(mx, 3), "z");
    done_struct(mx);
    i(C(C(sp, 3), 0), 1);
    done_struct(C(sp, 3));
    done_struct(sp);
    done_struct(b);
    check_ok(col_builder_finish(b, &v, NULL), NULL);
    batch.n_rows = 1;
    batch.n_cols = 1;
    batch.cols = &v;
    n_seen = 0;
    check_ok(dlog_actions_from_batch(&batch, a, collect, NULL, &err), &err);
    check_int(1, n_seen);
    check_str("{\"numRecords\":7,\"minValues\":{\"id\":-5,\"d\":\"2021-09-08\","
              "\"ts\":\"2021-09-08T11:11:11.000Z\",\"s\":\"a\\\"b\"},\"maxValues\":{\"id\":9,"
              "\"ts\":\"2021-09-08T11:11:11.123Z\",\"s\":\"z\"},\"nullCount\":{\"id\":1}}",
              seen[0].u.add.stats);
}

static silt_status count_adds(const dlog_action *action, void *payload, silt_error *err)
{
    (void)err;
    if (action->type == DLOG_ADD && action->u.add.path != NULL && action->u.add.path[0] != '\0')
        (*(int *)payload)++;
    return SILT_OK;
}

/* The built-in reader keeps a batch's actions only while fn runs: copying them into the
 * caller's arena held every action of a 100,000-file checkpoint until the file ended
 * (about a fifth of the peak memory of loading such a snapshot). */
void test_delta_checkpoint__builtin_reader_keeps_no_actions_in_callers_arena(void)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    char dir[1024];
    int adds = 0;
    size_t before;
    dlog_parquet_actions_fn reader = dlog_builtin_parquet_reader();
    check(reader != NULL);
    snprintf(dir, sizeof(dir), "%s/conformance/tables/dv-partitioned-with-checkpoint",
             test_shared_dir());
    check_ok(io_local_store_open(&store, dir, 0, &err), &err);
    before = arena_bytes_used(a);
    check_ok(reader(store, "_delta_log/00000000000000000010.checkpoint.parquet", a, count_adds,
                    &adds, &err),
             &err);
    check(adds > 0);
    check_int(0, (int64_t)(arena_bytes_used(a) - before));
    io_store_free(store);
}
