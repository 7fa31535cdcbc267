/*
 * Transactions: creating tables, appends, commitInfo, retries, the named
 * conflicts, writer features, in-commit timestamps and failed writes.
 */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "delta/protocol.h"
#include "delta/txn.h"
#include "test.h"
#include "util/mem.h"

static arena *a;
static io_store *store;
static silt_error err;

void test_delta_txn__initialize(void)
{
    a = arena_new(NULL, "test");
    err_clear(&err);
    check_ok(io_local_store_open(&store, test_tmpdir(), 1, &err), &err);
}

void test_delta_txn__cleanup(void)
{
    io_store_free(store);
    store = NULL;
    arena_free(a);
}

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

static const col_type *schema_id_p(void)
{
    col_field fields[] = {fld("id", col_type_primitive(COL_LONG)),
                          fld("p", col_type_primitive(COL_STRING))};
    return col_type_struct(a, 2, arena_memdup(a, fields, sizeof(fields)));
}

static dlog_map map1(const char *key, const char *value)
{
    dlog_map m;
    m.n = 1;
    m.items = arena_calloc(a, 1, sizeof(dlog_kv));
    m.items[0].key = key;
    m.items[0].value = value;
    return m;
}

/* Creates a table partitioned by p (with configuration), version 0. */
static void create_table(io_store *st, const dlog_map *config)
{
    delta_txn *txn = NULL;
    dlog_metadata md;
    const char *parts[] = {"p"};
    delta_commit_result res;
    check_ok(delta_metadata_for_new_table(&md, a, schema_id_p(), 1, parts, config, &err), &err);
    check_ok(delta_txn_begin(&txn, st, NULL, "CREATE TABLE", &err), &err);
    check_ok(delta_txn_set_metadata(txn, &md, &err), &err);
    check_ok(delta_txn_set_param(txn, "partitionBy", "[\"p\"]", &err), &err);
    check_ok(delta_txn_commit(txn, &res, &err), &err);
    check_int(0, res.version);
    delta_txn_free(txn);
}

static delta_snapshot *load(int64_t version)
{
    delta_snapshot *snap = NULL;
    check_ok(delta_snapshot_load(&snap, store, version, &err), &err);
    return snap;
}

static dlog_add make_add(const char *path, const char *p)
{
    dlog_add add;
    memset(&add, 0, sizeof(add));
    add.path = path;
    add.partition_values = map1("p", p);
    add.size = 100;
    add.modification_time = 1700000000000;
    add.data_change = 1;
    add.stats = "{\"numRecords\":1}";
    return add;
}

/* Appends one file with a blind append from the latest snapshot; returns the version. */
static int64_t append(const char *path, const char *p)
{
    delta_snapshot *snap = load(-1);
    delta_txn *txn = NULL;
    dlog_add add = make_add(path, p);
    delta_commit_result res;
    check_ok(delta_txn_begin(&txn, store, snap, "WRITE", &err), &err);
    check_ok(delta_txn_add_file(txn, &add, &err), &err);
    check_ok(delta_txn_commit(txn, &res, &err), &err);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
    return res.version;
}

/* The commitInfo object of a version's commit file (parsed; caller deletes). */
static cJSON *commit_info_of(int64_t version, char **first_line_out)
{
    buf data = BUF_INIT;
    char key[64];
    cJSON *root;
    char *nl;
    delta_commit_key(version, key, sizeof(key));
    check_ok(io_get(store, key, &data, &err), &err);
    nl = strchr(data.data, '\n');
    check(nl != NULL);
    *nl = '\0';
    root = cJSON_Parse(data.data);
    if (first_line_out)
        *first_line_out = arena_strdup(a, data.data);
    buf_clear(&data);
    check(root != NULL);
    check(cJSON_GetObjectItem(root, "commitInfo") != NULL);
    return root;
}

void test_delta_txn__create_table(void)
{
    delta_snapshot *snap;
    cJSON *root, *ci;
    create_table(store, NULL);
    snap = load(-1);
    check_int(0, snap->version);
    check_int(1, snap->protocol.min_reader_version);
    check_int(2, snap->protocol.min_writer_version);
    check_int(1, snap->metadata.n_partition_columns);
    check_str("p", snap->metadata.partition_columns[0]);
    check_str("parquet", snap->metadata.format_provider);
    check(snap->metadata.has_created_time);
    check_int(36, strlen(snap->metadata.id));
    check(col_type_equal(schema_id_p(), snap->schema));
    check_int(0, snap->n_files);
    root = commit_info_of(0, NULL);
    ci = cJSON_GetObjectItem(root, "commitInfo");
    check_str("CREATE TABLE", cJSON_GetObjectItem(ci, "operation")->valuestring);
    check(cJSON_GetObjectItem(ci, "readVersion") == NULL);
    check_str("[\"p\"]",
              cJSON_GetObjectItem(cJSON_GetObjectItem(ci, "operationParameters"), "partitionBy")
                  ->valuestring);
    check_str("Serializable", cJSON_GetObjectItem(ci, "isolationLevel")->valuestring);
    check_str("silt/" SILT_VERSION, cJSON_GetObjectItem(ci, "engineInfo")->valuestring);
    check_int(36, strlen(cJSON_GetObjectItem(ci, "txnId")->valuestring));
    cJSON_Delete(root);
    delta_snapshot_free(snap);
}

void test_delta_txn__create_twice_is_protocol_changed(void)
{
    delta_txn *txn = NULL;
    dlog_metadata md;
    create_table(store, NULL);
    check_ok(delta_metadata_for_new_table(&md, a, schema_id_p(), 0, NULL, NULL, &err), &err);
    check_ok(delta_txn_begin(&txn, store, NULL, "CREATE TABLE", &err), &err);
    check_ok(delta_txn_set_metadata(txn, &md, &err), &err);
    check_fails(SILT_CONFLICT, delta_txn_commit(txn, NULL, &err));
    check_contains(err.message, "ProtocolChangedException: ");
    delta_txn_free(txn);
}

void test_delta_txn__new_table_needs_metadata(void)
{
    delta_txn *txn = NULL;
    check_ok(delta_txn_begin(&txn, store, NULL, "CREATE TABLE", &err), &err);
    check_fails(SILT_INVALID, delta_txn_commit(txn, NULL, &err));
    delta_txn_free(txn);
    check_fails(SILT_NOTFOUND, delta_snapshot_load(&(delta_snapshot *){NULL}, store, -1, &err));
}

void test_delta_txn__append_and_commit_info(void)
{
    delta_snapshot *snap = NULL;
    delta_txn *txn = NULL;
    dlog_add add = make_add("p=a/part-0.parquet", "a");
    cJSON *root, *ci, *metrics;
    char *line;
    create_table(store, NULL);
    snap = load(-1);
    check_ok(delta_txn_begin(&txn, store, snap, "WRITE", &err), &err);
    check_ok(delta_txn_add_file(txn, &add, &err), &err);
    check_ok(delta_txn_set_param(txn, "mode", "Append", &err), &err);
    check_ok(delta_txn_set_param(txn, "description", NULL, &err), &err);
    check_ok(delta_txn_set_metric(txn, "numFiles", 1, &err), &err);
    check_ok(delta_txn_set_metric(txn, "numOutputRows", 42, &err), &err);
    check_ok(delta_txn_set_user_metadata(txn, "nightly load", &err), &err);
    check_ok(delta_txn_commit(txn, NULL, &err), &err);
    delta_txn_free(txn);
    delta_snapshot_free(snap);

    snap = load(-1);
    check_int(1, snap->version);
    check_int(1, snap->n_files);
    check_str("p=a/part-0.parquet", snap->files[0].path);
    check_str("a", dlog_map_get(&snap->files[0].partition_values, "p", NULL));
    delta_snapshot_free(snap);

    root = commit_info_of(1, &line);
    check(strncmp(line, "{\"commitInfo\":{\"timestamp\":", 27) == 0);
    ci = cJSON_GetObjectItem(root, "commitInfo");
    check_int(0, (int64_t)cJSON_GetObjectItem(ci, "readVersion")->valuedouble);
    check(cJSON_IsTrue(cJSON_GetObjectItem(ci, "isBlindAppend")));
    check_str("nightly load", cJSON_GetObjectItem(ci, "userMetadata")->valuestring);
    metrics = cJSON_GetObjectItem(ci, "operationMetrics");
    check(cJSON_IsString(cJSON_GetObjectItem(metrics, "numOutputRows")));
    check_str("42", cJSON_GetObjectItem(metrics, "numOutputRows")->valuestring);
    check_str("Append",
              cJSON_GetObjectItem(cJSON_GetObjectItem(ci, "operationParameters"), "mode")->valuestring);
    check(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(ci, "operationParameters"),
                                           "description")));
    cJSON_Delete(root);
}

void test_delta_txn__blind_appends_rebase(void)
{
    delta_snapshot *snap;
    delta_txn *first = NULL, *second = NULL;
    dlog_add add1 = make_add("p=a/one.parquet", "a"), add2 = make_add("p=a/two.parquet", "a");
    delta_commit_result res;
    cJSON *root;
    create_table(store, NULL);
    snap = load(-1);
    check_ok(delta_txn_begin(&first, store, snap, "WRITE", &err), &err);
    check_ok(delta_txn_begin(&second, store, snap, "WRITE", &err), &err);
    check_ok(delta_txn_add_file(first, &add1, &err), &err);
    check_ok(delta_txn_add_file(second, &add2, &err), &err);
    check_ok(delta_txn_commit(first, &res, &err), &err);
    check_int(1, res.version);
    check_int(1, res.attempts);
    check_fails(SILT_INVALID, delta_txn_commit(first, &res, &err));
    check_ok(delta_txn_commit(second, &res, &err), &err);
    check_int(2, res.version);
    check_int(2, res.attempts);
    check_int(1, res.n_winning_commits);
    /* The rebased commit still says what it read. */
    root = commit_info_of(2, NULL);
    check_int(0, (int64_t)cJSON_GetObjectItem(cJSON_GetObjectItem(root, "commitInfo"), "readVersion")
                     ->valuedouble);
    cJSON_Delete(root);
    delta_txn_free(first);
    delta_txn_free(second);
    delta_snapshot_free(snap);
    snap = load(-1);
    check_int(2, snap->n_files);
    delta_snapshot_free(snap);
}

void test_delta_txn__max_attempts(void)
{
    delta_snapshot *snap;
    delta_txn *txn = NULL;
    dlog_add add = make_add("p=a/late.parquet", "a");
    create_table(store, NULL);
    snap = load(-1);
    append("p=a/x.parquet", "a");
    check_ok(delta_txn_begin(&txn, store, snap, "WRITE", &err), &err);
    delta_txn_set_max_attempts(txn, 1);
    check_ok(delta_txn_add_file(txn, &add, &err), &err);
    check_fails(SILT_CONFLICT, delta_txn_commit(txn, NULL, &err));
    check_contains(err.message, "after 1 attempts");
    delta_txn_free(txn);
    delta_snapshot_free(snap);
}

/* Two DELETE-like transactions remove the same file: one wins. */
void test_delta_txn__delete_delete(void)
{
    delta_snapshot *snap;
    delta_txn *t1 = NULL, *t2 = NULL;
    create_table(store, NULL);
    append("p=a/f.parquet", "a");
    snap = load(-1);
    check_ok(delta_txn_begin(&t1, store, snap, "DELETE", &err), &err);
    check_ok(delta_txn_begin(&t2, store, snap, "DELETE", &err), &err);
    check_ok(delta_txn_remove_file(t1, &snap->files[0], 1, &err), &err);
    check_ok(delta_txn_remove_file(t2, &snap->files[0], 1, &err), &err);
    check_ok(delta_txn_commit(t1, NULL, &err), &err);
    check_fails(SILT_CONFLICT, delta_txn_commit(t2, NULL, &err));
    check(strncmp(err.message, "ConcurrentDeleteDeleteException: ", 33) == 0);
    check_contains(err.message, "p=a/f.parquet");
    check_contains(err.detail, "DELETE");
    delta_txn_free(t1);
    delta_txn_free(t2);
    delta_snapshot_free(snap);
    snap = load(-1);
    check_int(2, snap->version);
    check_int(0, snap->n_files);
    delta_snapshot_free(snap);
}

void test_delta_txn__remove_is_written_like_spark(void)
{
    delta_snapshot *snap;
    delta_txn *txn = NULL;
    buf data = BUF_INIT;
    create_table(store, NULL);
    append("p=a/f.parquet", "a");
    snap = load(-1);
    check_ok(delta_txn_begin(&txn, store, snap, "DELETE", &err), &err);
    check_ok(delta_txn_read_whole_table(txn, &err), &err);
    check_ok(delta_txn_remove_file(txn, &snap->files[0], 1, &err), &err);
    check_ok(delta_txn_commit(txn, NULL, &err), &err);
    check_ok(io_get(store, "_delta_log/00000000000000000002.json", &data, &err), &err);
    check_contains(data.data, "{\"remove\":{\"path\":\"p=a/f.parquet\",\"deletionTimestamp\":");
    check_contains(data.data, "\"dataChange\":true,\"extendedFileMetadata\":true,"
                              "\"partitionValues\":{\"p\":\"a\"},\"size\":100,"
                              "\"stats\":\"{\\\"numRecords\\\":1}\"}");
    check_contains(data.data, "\"isBlindAppend\":false");
    buf_clear(&data);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
}

/* A reader of partition p=a against a concurrent writer into p=a / p=b. */
static silt_status read_a_then_commit(delta_isolation iso, int winner_blind, const char *winner_p)
{
    delta_snapshot *snap;
    delta_txn *reader = NULL, *writer = NULL;
    dlog_map part = map1("p", "a");
    dlog_add add = make_add("p=x/new.parquet", winner_p), mine = make_add("p=a/mine.parquet", "a");
    silt_status rc;
    snap = load(-1);
    check_ok(delta_txn_begin(&reader, store, snap, "MERGE", &err), &err);
    delta_txn_set_isolation(reader, iso);
    check_ok(delta_txn_read_partition(reader, &part, &err), &err);
    check_ok(delta_txn_add_file(reader, &mine, &err), &err);
    check_ok(delta_txn_begin(&writer, store, snap, winner_blind ? "WRITE" : "MERGE", &err), &err);
    if (!winner_blind)
        check_ok(delta_txn_read_file(writer, "p=z/other.parquet", &err), &err);
    check_ok(delta_txn_add_file(writer, &add, &err), &err);
    check_ok(delta_txn_commit(writer, NULL, &err), &err);
    rc = delta_txn_commit(reader, NULL, &err);
    delta_txn_free(reader);
    delta_txn_free(writer);
    delta_snapshot_free(snap);
    return rc;
}

void test_delta_txn__concurrent_append(void)
{
    create_table(store, NULL);
    /* WriteSerializable: a blind INSERT does not conflict with a MERGE. */
    check_ok(read_a_then_commit(DELTA_WRITE_SERIALIZABLE, 1, "a"), &err);
    /* Serializable: it does. */
    check_fails(SILT_CONFLICT, read_a_then_commit(DELTA_SERIALIZABLE, 1, "a"));
    check(strncmp(err.message, "ConcurrentAppendException: ", 27) == 0);
    check_contains(err.message, "partition [p=a]");
    /* A winner that read something is no blind append: conflict either way. */
    check_fails(SILT_CONFLICT, read_a_then_commit(DELTA_WRITE_SERIALIZABLE, 0, "a"));
    check_contains(err.message, "ConcurrentAppendException");
    /* Another partition never conflicts. */
    check_ok(read_a_then_commit(DELTA_SERIALIZABLE, 0, "b"), &err);
}

void test_delta_txn__concurrent_delete_read(void)
{
    delta_snapshot *snap;
    delta_txn *reader = NULL, *deleter = NULL;
    dlog_add add = make_add("p=b/out.parquet", "b");
    create_table(store, NULL);
    append("p=a/f.parquet", "a");
    snap = load(-1);
    check_ok(delta_txn_begin(&reader, store, snap, "UPDATE", &err), &err);
    check_ok(delta_txn_read_file(reader, "p=a/f.parquet", &err), &err);
    check_ok(delta_txn_add_file(reader, &add, &err), &err);
    check_ok(delta_txn_begin(&deleter, store, snap, "DELETE", &err), &err);
    check_ok(delta_txn_remove_file(deleter, &snap->files[0], 1, &err), &err);
    check_ok(delta_txn_commit(deleter, NULL, &err), &err);
    check_fails(SILT_CONFLICT, delta_txn_commit(reader, NULL, &err));
    check(strncmp(err.message, "ConcurrentDeleteReadException: ", 31) == 0);
    delta_txn_free(reader);
    delta_txn_free(deleter);
    delta_snapshot_free(snap);
}

void test_delta_txn__metadata_changed(void)
{
    delta_snapshot *snap;
    delta_txn *alter = NULL, *writer = NULL;
    dlog_metadata md;
    dlog_add add = make_add("p=a/f.parquet", "a");
    create_table(store, NULL);
    snap = load(-1);
    md = snap->metadata;
    md.description = "changed";
    check_ok(delta_txn_begin(&alter, store, snap, "SET TBLPROPERTIES", &err), &err);
    check_ok(delta_txn_set_metadata(alter, &md, &err), &err);
    check_ok(delta_txn_begin(&writer, store, snap, "WRITE", &err), &err);
    check_ok(delta_txn_add_file(writer, &add, &err), &err);
    check_ok(delta_txn_commit(alter, NULL, &err), &err);
    check_fails(SILT_CONFLICT, delta_txn_commit(writer, NULL, &err));
    check(strncmp(err.message, "MetadataChangedException: ", 26) == 0);
    delta_txn_free(alter);
    delta_txn_free(writer);
    delta_snapshot_free(snap);
}

void test_delta_txn__app_txn(void)
{
    delta_snapshot *snap;
    delta_txn *t1 = NULL, *t2 = NULL;
    dlog_add add1 = make_add("p=a/1.parquet", "a"), add2 = make_add("p=a/2.parquet", "a");
    create_table(store, NULL);
    snap = load(-1);
    check_int(-1, delta_txn_app_version(snap, "stream-1"));
    check_ok(delta_txn_begin(&t1, store, snap, "STREAMING UPDATE", &err), &err);
    check_ok(delta_txn_begin(&t2, store, snap, "STREAMING UPDATE", &err), &err);
    check_ok(delta_txn_add_file(t1, &add1, &err), &err);
    check_ok(delta_txn_add_file(t2, &add2, &err), &err);
    check_ok(delta_txn_set_app_txn(t1, "stream-1", 7, &err), &err);
    check_fails(SILT_INVALID, delta_txn_set_app_txn(t1, "stream-1", 8, &err));
    check_ok(delta_txn_set_app_txn(t2, "stream-1", 7, &err), &err);
    check_ok(delta_txn_commit(t1, NULL, &err), &err);
    check_fails(SILT_CONFLICT, delta_txn_commit(t2, NULL, &err));
    check(strncmp(err.message, "ConcurrentTransactionException: ", 32) == 0);
    delta_txn_free(t1);
    delta_txn_free(t2);
    delta_snapshot_free(snap);
    snap = load(-1);
    check_int(7, delta_txn_app_version(snap, "stream-1"));
    delta_snapshot_free(snap);
}

/* A commit whose write fails leaves the table exactly as it was. */
void test_delta_txn__failed_write_leaves_table(void)
{
    io_store *inner = NULL, *faulty = NULL;
    io_fault_plan plan = IO_FAULT_PLAN_INIT;
    delta_snapshot *snap, *after;
    delta_txn *txn = NULL;
    dlog_add add = make_add("p=a/f.parquet", "a");
    create_table(store, NULL);
    append("p=a/0.parquet", "a");
    check_ok(io_local_store_open(&inner, test_tmpdir(), 0, &err), &err);
    plan.fail_write_nth = 1;
    plan.fail_all_after = 1;
    check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err);
    snap = load(-1);
    check_ok(delta_txn_begin(&txn, faulty, snap, "WRITE", &err), &err);
    check_ok(delta_txn_add_file(txn, &add, &err), &err);
    check_fails(SILT_IO, delta_txn_commit(txn, NULL, &err));
    delta_txn_free(txn);
    io_store_free(faulty);
    after = load(-1);
    check_int(snap->version, after->version);
    check_int(1, after->n_files);
    check_str("p=a/0.parquet", after->files[0].path);
    delta_snapshot_free(after);
    delta_snapshot_free(snap);
}

/* A table written by another engine with a feature silt does not implement. */
static void write_commit0(const char *protocol_json, const char *config_json)
{
    buf text = BUF_INIT;
    check_ok(buf_printf(&text, &err,
                        "{\"protocol\":%s}\n{\"metaData\":{\"id\":\"x\",\"format\":{\"provider\":"
                        "\"parquet\",\"options\":{}},\"schemaString\":\"{\\\"type\\\":\\\"struct\\\","
                        "\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\","
                        "\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\",\"partitionColumns\":[],"
                        "\"configuration\":%s}}\n",
                        protocol_json, config_json),
             &err);
    check_ok(io_put(store, "_delta_log/00000000000000000000.json", text.data, text.len, &err), &err);
    buf_clear(&text);
}

void test_delta_txn__unsupported_writer_features(void)
{
    delta_snapshot *snap;
    delta_txn *txn = NULL;
    write_commit0("{\"minReaderVersion\":1,\"minWriterVersion\":7,\"writerFeatures\":[\"appendOnly\","
                  "\"rowTracking\",\"domainMetadata\"]}",
                  "{}");
    snap = load(-1);
    check_fails(SILT_UNSUPPORTED, delta_txn_begin(&txn, store, snap, "WRITE", &err));
    check_contains(err.message, "\"rowTracking\"");
    check(txn == NULL);
    delta_snapshot_free(snap);
}

/* CHECK constraints are enforced by the sql layer's writers (exec_constraints.c), so the
 * delta layer lets a table with them be written. */
void test_delta_txn__active_constraints_writable(void)
{
    delta_snapshot *snap;
    delta_txn *txn = NULL;
    write_commit0("{\"minReaderVersion\":1,\"minWriterVersion\":4}",
                  "{\"delta.constraints.positive\":\"id > 0\"}");
    snap = load(-1);
    check_ok(delta_txn_begin(&txn, store, snap, "WRITE", &err), &err);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
}

void test_delta_txn__supported_features_accepted(void)
{
    delta_snapshot *snap;
    delta_txn *txn = NULL;
    write_commit0("{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
                  "[\"deletionVectors\",\"timestampNtz\"],\"writerFeatures\":[\"appendOnly\","
                  "\"invariants\",\"deletionVectors\",\"timestampNtz\",\"checkConstraints\","
                  "\"changeDataFeed\",\"generatedColumns\"]}",
                  "{\"delta.enableChangeDataFeed\":\"true\"}");
    snap = load(-1);
    check_ok(delta_txn_begin(&txn, store, snap, "DELETE", &err), &err);
    check_ok(delta_txn_remove(txn, &(dlog_remove){.path = "f.parquet", .data_change = 1}, &err),
             &err);
    /* The change data feed is on: a commit removing data needs cdc files. */
    check_fails(SILT_UNSUPPORTED, delta_txn_commit(txn, NULL, &err));
    check_contains(err.message, "changeDataFeed");
    delta_txn_free(txn);
    delta_snapshot_free(snap);
}

void test_delta_txn__append_only(void)
{
    delta_snapshot *snap;
    delta_txn *txn = NULL;
    dlog_map config = map1("delta.appendOnly", "true");
    create_table(store, &config);
    append("p=a/f.parquet", "a");
    snap = load(-1);
    check_ok(delta_txn_begin(&txn, store, snap, "DELETE", &err), &err);
    check_ok(delta_txn_remove_file(txn, &snap->files[0], 1, &err), &err);
    check_fails(SILT_INVALID, delta_txn_commit(txn, NULL, &err));
    check_contains(err.message, "[DELTA_CANNOT_MODIFY_APPEND_ONLY]");
    delta_txn_free(txn);
    /* Rewriting without data change (OPTIMIZE) is allowed. */
    check_ok(delta_txn_begin(&txn, store, snap, "OPTIMIZE", &err), &err);
    check_ok(delta_txn_remove_file(txn, &snap->files[0], 0, &err), &err);
    check_ok(delta_txn_commit(txn, NULL, &err), &err);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
}

static int64_t fixed_clock(void *payload) { return *(int64_t *)payload; }

void test_delta_txn__in_commit_timestamps_are_monotonic(void)
{
    dlog_map config = map1("delta.enableInCommitTimestamps", "true");
    delta_snapshot *snap;
    delta_txn *txn = NULL;
    dlog_add add = make_add("p=a/f.parquet", "a");
    int64_t clock = 1000;
    cJSON *root;
    char *line;
    create_table(store, &config);
    snap = load(-1);
    check_int(1, snap->protocol.min_reader_version);
    check_int(7, snap->protocol.min_writer_version);
    check(dproto_has_feature(&snap->protocol, "inCommitTimestamp", 1));
    check(snap->timestamp_is_in_commit);
    /* A clock behind the previous commit still gives a later timestamp. */
    check_ok(delta_txn_begin(&txn, store, snap, "WRITE", &err), &err);
    delta_txn_set_clock(txn, fixed_clock, &clock);
    check_ok(delta_txn_add_file(txn, &add, &err), &err);
    check_ok(delta_txn_commit(txn, NULL, &err), &err);
    root = commit_info_of(1, &line);
    check(strncmp(line, "{\"commitInfo\":{\"inCommitTimestamp\":", 35) == 0);
    check_int(snap->timestamp_ms + 1,
              (int64_t)cJSON_GetObjectItem(cJSON_GetObjectItem(root, "commitInfo"),
                                           "inCommitTimestamp")
                  ->valuedouble);
    cJSON_Delete(root);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
}

void test_delta_txn__protocol_for_new_tables(void)
{
    dlog_metadata md;
    dlog_protocol proto;
    dlog_map dv = map1("delta.enableDeletionVectors", "true");
    dlog_map cdf = map1("delta.enableChangeDataFeed", "true");
    dlog_map rows = map1("delta.enableRowTracking", "true");
    dlog_map mapping = map1("delta.columnMapping.mode", "name");
    col_field ntz_fields[] = {fld("t", col_type_primitive(COL_TIMESTAMP_NTZ))};
    const col_type *ntz = col_type_struct(a, 1, ntz_fields);
    const col_type *parsed;

    check_ok(delta_metadata_for_new_table(&md, a, schema_id_p(), 0, NULL, &dv, &err), &err);
    check_ok(delta_protocol_for_new_table(&md, 0, a, &proto, &err), &err);
    check_int(3, proto.min_reader_version);
    check_int(7, proto.min_writer_version);
    check(dproto_has_feature(&proto, "deletionVectors", 0));
    check(dproto_has_feature(&proto, "deletionVectors", 1));
    check(dproto_has_feature(&proto, "appendOnly", 1));
    check(!dproto_has_feature(&proto, "timestampNtz", 0));

    check_ok(delta_metadata_for_new_table(&md, a, ntz, 0, NULL, NULL, &err), &err);
    check_ok(delta_protocol_for_new_table(&md, 0, a, &proto, &err), &err);
    check_int(3, proto.min_reader_version);
    check(dproto_has_feature(&proto, "timestampNtz", 0));

    check_ok(delta_metadata_for_new_table(&md, a, schema_id_p(), 0, NULL, &cdf, &err), &err);
    check_ok(delta_protocol_for_new_table(&md, 0, a, &proto, &err), &err);
    check_int(1, proto.min_reader_version); /* Delta 4.1: (1,7) with changeDataFeed listed */
    check_int(7, proto.min_writer_version);
    check(dproto_has_feature(&proto, "changeDataFeed", 1));

    check_ok(delta_metadata_for_new_table(&md, a, schema_id_p(), 0, NULL, NULL, &err), &err);
    check_ok(delta_protocol_for_new_table(&md, 1, a, &proto, &err), &err);
    check_int(7, proto.min_writer_version);
    check(dproto_has_feature(&proto, "domainMetadata", 1));

    check_ok(delta_metadata_for_new_table(&md, a, schema_id_p(), 0, NULL, &rows, &err), &err);
    check_fails(SILT_UNSUPPORTED, delta_protocol_for_new_table(&md, 0, a, &proto, &err));
    check_contains(err.message, "delta.enableRowTracking");

    /* Column mapping: (2,7) as Delta 4.1, ids and physical names on every field. */
    check_ok(delta_metadata_for_new_table(&md, a, schema_id_p(), 0, NULL, &mapping, &err), &err);
    check_ok(delta_protocol_for_new_table(&md, 0, a, &proto, &err), &err);
    check_int(2, proto.min_reader_version);
    check_int(7, proto.min_writer_version);
    check(dproto_has_feature(&proto, "columnMapping", 1));
    check_int(0, (int)proto.n_reader_features);
    check_str("2", dlog_map_get(&md.configuration, "delta.columnMapping.maxColumnId", NULL));
    check_ok(dlog_parse_schema(&parsed, a, md.schema_string, &err), &err);
    check_int(1, parsed->fields[0].field_id);
    check_int(2, parsed->fields[1].field_id);
    check_contains(parsed->fields[1].metadata_json, "\"delta.columnMapping.physicalName\":\"col-");

    check_fails(SILT_INVALID,
                delta_metadata_for_new_table(&md, a, schema_id_p(), 1,
                                             (const char *const[]){"nope"}, NULL, &err));
    check_contains(err.message, "\"nope\"");
}

void test_delta_txn__domain_metadata_needs_feature(void)
{
    delta_snapshot *snap;
    delta_txn *txn = NULL;
    create_table(store, NULL);
    snap = load(-1);
    check_ok(delta_txn_begin(&txn, store, snap, "WRITE", &err), &err);
    check_ok(delta_txn_set_domain(txn, "silt.test", "{}", 0, &err), &err);
    check_fails(SILT_UNSUPPORTED, delta_txn_commit(txn, NULL, &err));
    check_contains(err.message, "domainMetadata");
    delta_txn_free(txn);
    delta_snapshot_free(snap);
}

void test_delta_txn__schema_round_trip(void)
{
    const col_type *elem = col_type_array(a, col_type_primitive(COL_INT), 0);
    const col_type *map = col_type_map(a, col_type_primitive(COL_STRING),
                                       col_type_decimal(a, 10, 2), 1);
    col_field inner[] = {fld("x", col_type_primitive(COL_DATE)),
                         fld("y", col_type_primitive(COL_TIMESTAMP))};
    col_field top[] = {fld("arr", elem), fld("m", map),
                       fld("s", col_type_struct(a, 2, inner)),
                       fld("b", col_type_primitive(COL_BINARY))};
    const col_type *schema, *parsed;
    buf text = BUF_INIT;
    top[3].nullable = 0;
    top[3].metadata_json = "{\"comment\":\"raw bytes\"}";
    schema = col_type_struct(a, 4, top);
    check_ok(delta_schema_to_json(schema, &text, &err), &err);
    check_contains(text.data, "{\"type\":\"array\",\"elementType\":\"integer\",\"containsNull\":false}");
    check_contains(text.data, "\"valueType\":\"decimal(10,2)\"");
    check_ok(dlog_parse_schema(&parsed, a, text.data, &err), &err);
    check(col_type_equal(schema, parsed));
    check_int(0, parsed->fields[3].nullable);
    check_contains(parsed->fields[3].metadata_json, "raw bytes");
    buf_clear(&text);
    check_fails(SILT_INVALID, delta_schema_to_json(col_type_primitive(COL_INT), &text, &err));
}

void test_delta_txn__intervals(void)
{
    int64_t ms = 0;
    check_ok(delta_parse_interval_ms("interval 30 days", &ms, &err), &err);
    check_int(INT64_C(30) * 86400000, ms);
    check_ok(delta_parse_interval_ms("1 week", &ms, &err), &err);
    check_int(INT64_C(604800000), ms);
    check_ok(delta_parse_interval_ms("INTERVAL 2 hours", &ms, &err), &err);
    check_int(INT64_C(7200000), ms);
    check_fails(SILT_INVALID, delta_parse_interval_ms("interval days", &ms, &err));
    check_fails(SILT_INVALID, delta_parse_interval_ms("3 fortnights", &ms, &err));
    check_fails(SILT_INVALID, delta_parse_interval_ms("99999999999999999 weeks", &ms, &err));
}

/* A winner deleting in a partition we read conflicts; one deleting elsewhere does not. */
void test_delta_txn__delete_in_read_partition(void)
{
    delta_snapshot *snap;
    delta_txn *reader = NULL, *deleter = NULL;
    dlog_map part = map1("p", "a");
    dlog_add mine = make_add("p=a/mine.parquet", "a");
    size_t idx, victim_b = 0, victim_a = 0;
    create_table(store, NULL);
    append("p=a/1.parquet", "a");
    append("p=b/2.parquet", "b");
    snap = load(-1);
    for (idx = 0; idx < snap->n_files; idx++) {
        if (strcmp(snap->files[idx].path, "p=b/2.parquet") == 0)
            victim_b = idx;
        else
            victim_a = idx;
    }
    /* Deleting in p=b while we read p=a: no conflict. */
    check_ok(delta_txn_begin(&reader, store, snap, "UPDATE", &err), &err);
    check_ok(delta_txn_read_partition(reader, &part, &err), &err);
    check_ok(delta_txn_add_file(reader, &mine, &err), &err);
    check_ok(delta_txn_begin(&deleter, store, snap, "DELETE", &err), &err);
    check_ok(delta_txn_remove_file(deleter, &snap->files[victim_b], 1, &err), &err);
    check_ok(delta_txn_commit(deleter, NULL, &err), &err);
    check_ok(delta_txn_commit(reader, NULL, &err), &err);
    delta_txn_free(reader);
    delta_txn_free(deleter);
    /* Deleting in p=a: ConcurrentDeleteReadException (from a fresh snapshot: the first reader's
     * own append would otherwise conflict first). */
    reader = deleter = NULL;
    delta_snapshot_free(snap);
    snap = load(-1);
    for (idx = 0; idx < snap->n_files; idx++)
        if (strcmp(snap->files[idx].path, "p=a/1.parquet") == 0)
            victim_a = idx;
    check_ok(delta_txn_begin(&reader, store, snap, "UPDATE", &err), &err);
    check_ok(delta_txn_read_partition(reader, &part, &err), &err);
    check_ok(delta_txn_begin(&deleter, store, snap, "DELETE", &err), &err);
    check_ok(delta_txn_remove_file(deleter, &snap->files[victim_a], 1, &err), &err);
    check_ok(delta_txn_commit(deleter, NULL, &err), &err);
    check_fails(SILT_CONFLICT, delta_txn_commit(reader, NULL, &err));
    check_contains(err.message, "ConcurrentDeleteReadException: ");
    check_contains(err.message, "p=a/1.parquet");
    delta_txn_free(reader);
    delta_txn_free(deleter);
    delta_snapshot_free(snap);
}

/* Losing the race and then failing to read the winner: an error, and nothing written. */
void test_delta_txn__failed_winner_read(void)
{
    io_store *inner = NULL, *faulty = NULL;
    io_fault_plan plan = IO_FAULT_PLAN_INIT;
    delta_snapshot *snap, *after;
    delta_txn *txn = NULL;
    dlog_add add = make_add("p=a/late.parquet", "a");
    create_table(store, NULL);
    snap = load(-1);
    append("p=a/winner.parquet", "a");
    check_ok(io_local_store_open(&inner, test_tmpdir(), 0, &err), &err);
    plan.fail_read_nth = 1;
    check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err);
    check_ok(delta_txn_begin(&txn, faulty, snap, "WRITE", &err), &err);
    check_ok(delta_txn_add_file(txn, &add, &err), &err);
    check_fails(SILT_IO, delta_txn_commit(txn, NULL, &err));
    check_contains(err.context, "concurrent commit 1");
    delta_txn_free(txn);
    io_store_free(faulty);
    after = load(-1);
    check_int(1, after->version);
    check_int(1, after->n_files);
    delta_snapshot_free(after);
    delta_snapshot_free(snap);
}

/* Every allocation failing in turn: a clean SILT_NOMEM or a commit, never a crash or leak. */
void test_delta_txn__out_of_memory(void)
{
    long countdown;
    int committed = 0;
    create_table(store, NULL);
    for (countdown = 0; countdown < 400 && !committed; countdown++) {
        delta_snapshot *snap = load(-1);
        delta_txn *txn = NULL;
        dlog_add add = make_add("p=a/oom.parquet", "a");
        silt_status rc;
        mem_fail_after(countdown);
        rc = delta_txn_begin(&txn, store, snap, "WRITE", &err);
        if (rc == SILT_OK)
            rc = delta_txn_add_file(txn, &add, &err);
        if (rc == SILT_OK)
            rc = delta_txn_set_metric(txn, "numFiles", 1, &err);
        if (rc == SILT_OK)
            rc = delta_txn_commit(txn, NULL, &err);
        mem_fail_reset();
        check(rc == SILT_OK || rc == SILT_NOMEM);
        delta_txn_free(txn);
        delta_snapshot_free(snap);
        snap = load(-1);
        /*
         * A failure after the commit file was published (the store's
         * directory sync) cannot be told from one before it while memory
         * stays exhausted: the outcome is then unknown, and the hint says so.
         * Either way the table is whole: version 0, or version 1 with the file.
         */
        if (rc == SILT_OK)
            check_int(1, snap->version);
        if (rc == SILT_NOMEM && snap->version == 1)
            check_contains(err.hint, "may have been written");
        check_int(snap->version, (int64_t)snap->n_files);
        committed = snap->version == 1;
        delta_snapshot_free(snap);
    }
    check(committed);
}

/* Turning a feature on needs a protocol that supports it, in the same commit. */
void test_delta_txn__enabling_a_feature_needs_the_protocol(void)
{
    delta_snapshot *snap;
    delta_txn *txn = NULL;
    dlog_metadata md;
    dlog_protocol proto;
    dlog_kv items[1] = {{"delta.enableDeletionVectors", "true"}};
    const char *features[] = {"deletionVectors"};
    const char *writer_features[] = {"appendOnly", "invariants", "deletionVectors"};
    create_table(store, NULL);
    snap = load(-1);
    md = snap->metadata;
    md.configuration.n = 1;
    md.configuration.items = items;
    check_ok(delta_txn_begin(&txn, store, snap, "SET TBLPROPERTIES", &err), &err);
    check_ok(delta_txn_set_metadata(txn, &md, &err), &err);
    check_fails(SILT_UNSUPPORTED, delta_txn_commit(txn, NULL, &err));
    check_contains(err.message, "\"deletionVectors\"");
    check_contains(err.message, "(1,2)");
    delta_txn_free(txn);

    memset(&proto, 0, sizeof(proto));
    proto.min_reader_version = 3;
    proto.min_writer_version = 7;
    proto.has_reader_features = proto.has_writer_features = 1;
    proto.n_reader_features = 1;
    proto.reader_features = features;
    proto.n_writer_features = 3;
    proto.writer_features = writer_features;
    check_ok(delta_txn_begin(&txn, store, snap, "SET TBLPROPERTIES", &err), &err);
    check_ok(delta_txn_set_metadata(txn, &md, &err), &err);
    check_ok(delta_txn_set_protocol(txn, &proto, &err), &err);
    check_ok(delta_txn_commit(txn, NULL, &err), &err);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
    snap = load(-1);
    check_int(3, snap->protocol.min_reader_version);
    check(dproto_has_feature(&snap->protocol, "deletionVectors", 0));
    check_str("true", delta_snapshot_property(snap, "delta.enableDeletionVectors"));
    delta_snapshot_free(snap);
}

/* Which of the shared conformance tables (Spark, delta-rs, kernel) silt may write. */
static silt_status begin_on_shared(const char *table)
{
    char path[2048];
    io_store *shared = NULL;
    delta_snapshot *snap = NULL;
    delta_txn *txn = NULL;
    silt_status rc;
    snprintf(path, sizeof(path), "%s/conformance/tables/%s", test_shared_dir(), table);
    check_ok(io_store_open(&shared, path, 0, &err), &err);
    check_ok(delta_snapshot_load(&snap, shared, -1, &err), &err);
    rc = delta_txn_begin(&txn, shared, snap, "WRITE", &err);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
    io_store_free(shared);
    return rc;
}

void test_delta_txn__shared_tables_writability(void)
{
    static const char *const writable[] = {"simple_table", "cdf-table", "cdf-table-with-dv",
                                           "table-with-columnmapping-mode-name",
                                           "data-reader-timestamp_ntz-id-mode", "cdc_ict_table",
                                           "delta-0.1.0", "type-widening", "v2-checkpoint-json",
                                           /* identity values are assigned by the sql layer */
                                           "checkpoint-v2-table",
                                           "identity_test_written_by_version_5"};
    static const struct {
        const char *table, *feature;
    } refused[] = {{"table_with_liquid_clustering", "\"rowTracking\""},
                   {"crc-full", "\"clustering\""}};
    size_t idx;
    for (idx = 0; idx < sizeof(writable) / sizeof(writable[0]); idx++)
        check_ok(begin_on_shared(writable[idx]), &err);
    for (idx = 0; idx < sizeof(refused) / sizeof(refused[0]); idx++) {
        check_fails(SILT_UNSUPPORTED, begin_on_shared(refused[idx].table));
        check_contains(err.message, refused[idx].feature);
    }
}

void test_delta_txn__enabling_ict_later_is_refused(void)
{
    delta_snapshot *snap;
    delta_txn *txn = NULL;
    dlog_metadata md;
    dlog_kv items[1] = {{"delta.enableInCommitTimestamps", "true"}};
    create_table(store, NULL);
    snap = load(-1);
    md = snap->metadata;
    md.configuration.n = 1;
    md.configuration.items = items;
    check_ok(delta_txn_begin(&txn, store, snap, "SET TBLPROPERTIES", &err), &err);
    check_ok(delta_txn_set_metadata(txn, &md, &err), &err);
    check_fails(SILT_UNSUPPORTED, delta_txn_commit(txn, NULL, &err));
    check_contains(err.message, "in-commit timestamps");
    delta_txn_free(txn);
    delta_snapshot_free(snap);
}

/* A transaction whose read version was cleaned up must not write into the past. */
void test_delta_txn__read_version_cleaned_up(void)
{
    delta_snapshot *snap;
    delta_txn *txn = NULL;
    dlog_add add = make_add("p=a/late.parquet", "a");
    create_table(store, NULL);
    append("p=a/1.parquet", "a");
    snap = load(1);
    append("p=a/2.parquet", "a");
    append("p=a/3.parquet", "a");
    check_ok(io_put(store, "_delta_log/00000000000000000003.checkpoint.parquet", "PAR1", 4, &err),
             &err);
    check_ok(io_delete(store, "_delta_log/00000000000000000000.json", &err), &err);
    check_ok(io_delete(store, "_delta_log/00000000000000000001.json", &err), &err);
    check_ok(io_delete(store, "_delta_log/00000000000000000002.json", &err), &err);
    check_ok(delta_txn_begin(&txn, store, snap, "WRITE", &err), &err);
    check_ok(delta_txn_add_file(txn, &add, &err), &err);
    check_fails(SILT_CONFLICT, delta_txn_commit(txn, NULL, &err));
    check_contains(err.message, "no longer in the log");
    check_fails(SILT_NOTFOUND,
                io_head(store, "_delta_log/00000000000000000002.json", &(io_object_info){0}, &err));
    delta_txn_free(txn);
    delta_snapshot_free(snap);
}

/* Data files written, then the commit fails: the table is as before (the files are orphans). */
void test_delta_txn__commit_fails_after_data_files(void)
{
    io_store *inner = NULL, *faulty = NULL;
    io_fault_plan plan = IO_FAULT_PLAN_INIT;
    delta_snapshot *snap, *after;
    delta_txn *txn = NULL;
    dlog_add add1 = make_add("p=a/d1.parquet", "a"), add2 = make_add("p=a/d2.parquet", "a");
    long writes = 0, reads = 0;
    create_table(store, NULL);
    check_ok(io_local_store_open(&inner, test_tmpdir(), 0, &err), &err);
    plan.fail_write_nth = 3;
    check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err);
    snap = load(-1);
    check_ok(io_put(faulty, "p=a/d1.parquet", "PAR1", 4, &err), &err);
    check_ok(io_put(faulty, "p=a/d2.parquet", "PAR1", 4, &err), &err);
    check_ok(delta_txn_begin(&txn, faulty, snap, "WRITE", &err), &err);
    check_ok(delta_txn_add_file(txn, &add1, &err), &err);
    check_ok(delta_txn_add_file(txn, &add2, &err), &err);
    check_fails(SILT_IO, delta_txn_commit(txn, NULL, &err));
    io_fault_store_counts(faulty, &writes, &reads);
    check_int(3, writes);
    delta_txn_free(txn);
    io_store_free(faulty);
    after = load(-1);
    check_int(0, after->version);
    check_int(0, after->n_files);
    delta_snapshot_free(after);
    delta_snapshot_free(snap);
}

/*
 * Issue 15 defect 3: the fsync of _delta_log/ fails after the commit's link().
 * The commit is visible but not durable: the commit is not acknowledged
 * (SILT_DURABILITY_UNKNOWN, not SILT_OK, not SILT_IO), the version it took is
 * named, and the next open reads the table with that commit, without error.
 */
void test_delta_txn__commit_folder_sync_fails(void)
{
    io_store *inner = NULL, *faulty = NULL;
    io_fault_plan plan = IO_FAULT_PLAN_INIT;
    delta_snapshot *snap, *after;
    delta_txn *txn = NULL;
    delta_commit_result res;
    dlog_add add = make_add("p=a/f.parquet", "a");
    create_table(store, NULL);
    check_ok(io_local_store_open(&inner, test_tmpdir(), 0, &err), &err);
    plan.unsynced_write_nth = 1; /* the commit is the transaction's only write */
    check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err);
    snap = load(-1);
    check_ok(delta_txn_begin(&txn, faulty, snap, "WRITE", &err), &err);
    check_ok(delta_txn_add_file(txn, &add, &err), &err);
    check_fails(SILT_DURABILITY_UNKNOWN, delta_txn_commit(txn, &res, &err));
    check_contains(err.message, "version 1 is visible but its durability is unknown");
    check_contains(err.hint, "before running the statement again");
    check_int(1, res.version);
    /* Not to be committed again by mistake. */
    check_fails(SILT_INVALID, delta_txn_commit(txn, NULL, &err));
    delta_txn_free(txn);
    io_store_free(faulty);
    after = load(-1);
    check_int(1, after->version);
    check_int(1, after->n_files);
    check_str("p=a/f.parquet", after->files[0].path);
    delta_snapshot_free(after);
    delta_snapshot_free(snap);
}
