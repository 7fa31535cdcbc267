#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "delta/log.h"
#include "delta/partition.h"
#include "delta/snapshot.h"
#include "test.h"
#include "util/mem.h"
#include "util/time.h"

static io_store *store;

#define PROTOCOL_1_2 "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
#define METADATA                                                                                   \
    "{\"metaData\":{\"id\":\"t1\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"           \
    "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\","    \
    "\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},{\\\"name\\\":\\\"p\\\","  \
    "\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","                  \
    "\"partitionColumns\":[\"p\"],\"configuration\":{},\"createdTime\":1}}\n"
#define ADD(path, size) "{\"add\":{\"path\":\"" path "\",\"partitionValues\":{\"p\":\"x\"},\"size\":" #size ",\"modificationTime\":1,\"dataChange\":true}}\n"
#define REMOVE(path) "{\"remove\":{\"path\":\"" path "\",\"deletionTimestamp\":5,\"dataChange\":true}}\n"
#define DV_I "\"deletionVector\":{\"storageType\":\"i\",\"pathOrInlineDv\":\"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L\",\"sizeInBytes\":40,\"cardinality\":6}"

static void put(const char *key, const char *text)
{
    silt_error err = SILT_ERROR_INIT;
    check_ok(io_put(store, key, text, strlen(text), &err), &err);
}

static void set_mtime(const char *key, int64_t seconds)
{
    char path[4096];
    struct timespec times[2];
    snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), key);
    times[0].tv_sec = times[1].tv_sec = (time_t)seconds;
    times[0].tv_nsec = times[1].tv_nsec = 0;
    check(utimensat(AT_FDCWD, path, times, 0) == 0);
}

static void write_basic_table(void)
{
    put("_delta_log/00000000000000000000.json",
        "{\"commitInfo\":{\"timestamp\":1,\"operation\":\"CREATE\"}}\n" PROTOCOL_1_2 METADATA
        ADD("a.parquet", 10) ADD("b.parquet", 20));
    put("_delta_log/00000000000000000001.json",
        REMOVE("a.parquet") ADD("c%20d.parquet", 30) "{\"txn\":{\"appId\":\"app\",\"version\":7}}\n");
    put("_delta_log/00000000000000000002.json",
        "{\"add\":{\"path\":\"b.parquet\",\"partitionValues\":{\"p\":\"x\"},\"size\":20,"
        "\"modificationTime\":1,\"dataChange\":true," DV_I "}}\n" REMOVE("b.parquet")
        "{\"txn\":{\"appId\":\"app\",\"version\":8}}\n"
        "{\"domainMetadata\":{\"domain\":\"d1\",\"configuration\":\"{}\",\"removed\":false}}\n"
        "{\"someFutureAction\":{\"x\":1}}\n"
        "{\"commitInfo\":{\"timestamp\":3,\"operation\":\"DELETE\"}}\n");
}

void test_delta_snapshot__initialize(void)
{
    silt_error err = SILT_ERROR_INIT;
    check_ok(io_store_open(&store, test_tmpdir(), 1, &err), &err);
}

void test_delta_snapshot__cleanup(void) { io_store_free(store); }

static const delta_file *find(const delta_snapshot *snap, const char *path)
{
    size_t idx;
    for (idx = 0; idx < snap->n_files; idx++)
        if (strcmp(snap->files[idx].path, path) == 0)
            return &snap->files[idx];
    return NULL;
}

void test_delta_snapshot__replays_each_version(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    write_basic_table();

    check_ok(delta_snapshot_load(&snap, store, 0, &err), &err);
    check_int(0, snap->version);
    check_int(2, snap->n_files);
    check_int(30, snap->total_size);
    check_str("CREATE", snap->commit_info.operation);
    check_int(1, snap->metadata.n_partition_columns);
    check_int(2, snap->schema->n_fields);
    delta_snapshot_free(snap);

    check_ok(delta_snapshot_load(&snap, store, 1, &err), &err);
    check_int(2, snap->n_files);
    check(find(snap, "c d.parquet") != NULL);
    check(find(snap, "a.parquet") == NULL);
    check_int(1, snap->n_txns);
    check_int(7, snap->txns[0].version);
    check_int(0, snap->has_commit_info);
    delta_snapshot_free(snap);

    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_int(2, snap->version);
    check_int(2, snap->n_files);
    check(find(snap, "b.parquet") != NULL);
    check_int('i', find(snap, "b.parquet")->dv.storage_type);
    check_int(8, snap->txns[0].version);
    check_int(1, snap->n_domains);
    check_str("d1", snap->domains[0].domain);
    check_str("DELETE", snap->commit_info.operation);
    check_str("x", dlog_map_get(&find(snap, "b.parquet")->partition_values, "p", NULL));
    {
        delta_value value;
        arena *a = arena_new(NULL, "t");
        check_ok(delta_snapshot_partition_value(snap, find(snap, "b.parquet"), "p", a, &value, &err), &err);
        check_int(1, value.v.s.len);
        check_fails(SILT_BIND, delta_snapshot_partition_value(snap, find(snap, "b.parquet"), "id", a, &value, &err));
        arena_free(a);
    }
    /* Partition values are interned: equal strings share one copy. */
    check(dlog_map_get(&find(snap, "b.parquet")->partition_values, "p", NULL) ==
          dlog_map_get(&find(snap, "c d.parquet")->partition_values, "p", NULL));
    delta_snapshot_free(snap);
}

void test_delta_snapshot__missing_version_is_notfound(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    write_basic_table();
    check_fails(SILT_NOTFOUND, delta_snapshot_load(&snap, store, 5, &err));
    check_contains(err.message, "version 5");
    check_contains(err.message, "Available versions: [0, 2].");
    check(snap == NULL);
}

void test_delta_snapshot__not_a_table(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    check_fails(SILT_NOTFOUND, delta_snapshot_load(&snap, store, -1, &err));
    check_contains(err.message, "is not a Delta table");
}

void test_delta_snapshot__version_gap_is_corrupt(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    write_basic_table();
    check_ok(io_delete(store, "_delta_log/00000000000000000001.json", &err), &err);
    check_fails(SILT_CORRUPT, delta_snapshot_load(&snap, store, 2, &err));
    check_contains(err.message, "commit 1");
    check_ok(delta_snapshot_load(&snap, store, 0, &err), &err);
    delta_snapshot_free(snap);
}

void test_delta_snapshot__truncated_line_is_corrupt(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    write_basic_table();
    put("_delta_log/00000000000000000003.json", "{\"add\":{\"path\":\"z.parquet\",\"size\":");
    check_fails(SILT_CORRUPT, delta_snapshot_load(&snap, store, -1, &err));
    check_contains(err.message, "00000000000000000003.json");
    check_contains(err.message, "line 1");
}

void test_delta_snapshot__corrupt_last_checkpoint_falls_back(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    write_basic_table();
    put("_delta_log/_last_checkpoint", "{\"version\":");
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_int(2, snap->version);
    delta_snapshot_free(snap);
    /* A stale hint pointing at a checkpoint that is not there. */
    put("_delta_log/_last_checkpoint", "{\"version\":1,\"size\":3}");
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_int(2, snap->version);
    check_int(-1, snap->checkpoint_version);
    delta_snapshot_free(snap);
}

void test_delta_snapshot__unsupported_reader_feature(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    put("_delta_log/00000000000000000000.json",
        "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
        "[\"deletionVectors\",\"catalogManaged\"],\"writerFeatures\":[]}}\n" METADATA);
    check_fails(SILT_UNSUPPORTED, delta_snapshot_load(&snap, store, -1, &err));
    check_contains(err.message, "\"catalogManaged\"");
    put("_delta_log/00000000000000000000.json",
        "{\"protocol\":{\"minReaderVersion\":4,\"minWriterVersion\":7}}\n" METADATA);
    check_fails(SILT_UNSUPPORTED, delta_snapshot_load(&snap, store, -1, &err));
    check_contains(err.message, "reader version 4");
}

void test_delta_snapshot__no_metadata_is_corrupt(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    put("_delta_log/00000000000000000000.json", PROTOCOL_1_2 ADD("a.parquet", 1));
    check_fails(SILT_CORRUPT, delta_snapshot_load(&snap, store, -1, &err));
    check_contains(err.message, "metaData");
}

/* A fake Parquet checkpoint reader: the "checkpoint" holds the state of version 1. */
static int fake_reads;
static silt_status fake_reader(io_store *s, const char *key, arena *a, dlog_action_fn fn,
                               void *payload, silt_error *err)
{
    const char *state = PROTOCOL_1_2 METADATA ADD("b.parquet", 20) ADD("c%20d.parquet", 30)
        REMOVE("a.parquet") "{\"txn\":{\"appId\":\"app\",\"version\":7}}\n";
    (void)s;
    fake_reads++;
    check(strstr(key, "checkpoint") != NULL);
    return dlog_parse_commit(state, strlen(state), key, a, fn, payload, err);
}

void test_delta_snapshot__parquet_checkpoint_through_reader(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    delta_load_options opts = DELTA_LOAD_OPTIONS_INIT;
    write_basic_table();
    put("_delta_log/00000000000000000001.checkpoint.parquet", "not parquet");
    put("_delta_log/_last_checkpoint", "{\"version\":1,\"size\":4}");
    opts.parquet_reader = fake_reader;
    fake_reads = 0;
    check_ok(delta_snapshot_load_ext(&snap, store, -1, &opts, &err), &err);
    check_int(1, fake_reads);
    check_int(1, snap->checkpoint_version);
    check_str("classic", snap->checkpoint_kind);
    check_int(1, snap->n_commits_replayed);
    check_int(2, snap->n_files);
    delta_snapshot_free(snap);

    /* The built-in reader finds that the checkpoint is not Parquet; every commit is there,
     * so the JSON commits are replayed instead, as Delta does (issue 15). */
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_int(1, snap->skipped_checkpoint_version);
    check_int(2, snap->version);
    delta_snapshot_free(snap);
    snap = NULL;

    /* Once commit 0 is gone the damaged checkpoint is the only way, and its error stands. */
    check_ok(io_delete(store, "_delta_log/00000000000000000000.json", &err), &err);
    check_fails(SILT_CORRUPT, delta_snapshot_load(&snap, store, -1, &err));
    check_contains(err.message, "too small to be Parquet");
    check_contains(err.context, "00000000000000000001.checkpoint.parquet");

    /* Version 0 is older than the checkpoint; it cannot be read. */
    check_fails(SILT_NOTFOUND, delta_snapshot_load(&snap, store, 0, &err));
    check_contains(err.message, "Available versions: [1, 2].");
}

void test_delta_snapshot__incomplete_multipart_is_skipped(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    delta_load_options opts = DELTA_LOAD_OPTIONS_INIT;
    write_basic_table();
    put("_delta_log/00000000000000000001.checkpoint.0000000001.0000000002.parquet", "x");
    opts.parquet_reader = fake_reader;
    fake_reads = 0;
    check_ok(delta_snapshot_load_ext(&snap, store, -1, &opts, &err), &err);
    check_int(0, fake_reads);
    check_int(-1, snap->checkpoint_version);
    delta_snapshot_free(snap);
    put("_delta_log/00000000000000000001.checkpoint.0000000002.0000000002.parquet", "x");
    /* An incomplete set of another size next to the complete one is ignored. */
    put("_delta_log/00000000000000000001.checkpoint.0000000001.0000000003.parquet", "x");
    put("_delta_log/00000000000000000001.checkpoint.0000000003.0000000003.parquet", "x");
    check_ok(delta_snapshot_load_ext(&snap, store, -1, &opts, &err), &err);
    check_int(2, fake_reads);
    check_str("multi-part", snap->checkpoint_kind);
    delta_snapshot_free(snap);
}

void test_delta_snapshot__v2_json_checkpoint(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    write_basic_table();
    put("_delta_log/00000000000000000001.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json",
        "{\"checkpointMetadata\":{\"version\":1}}\n" PROTOCOL_1_2 METADATA ADD("b.parquet", 20)
        ADD("c%20d.parquet", 30) "{\"txn\":{\"appId\":\"app\",\"version\":7}}\n");
    check_ok(io_delete(store, "_delta_log/00000000000000000000.json", &err), &err);
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_int(1, snap->checkpoint_version);
    check_str("v2", snap->checkpoint_kind);
    check_int(2, snap->n_files);
    delta_snapshot_free(snap);
    check_ok(delta_snapshot_load(&snap, store, 1, &err), &err);
    check_int(0, snap->n_commits_replayed);
    delta_snapshot_free(snap);
}

void test_delta_snapshot__timestamp_travel_by_file_time(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    write_basic_table();
    set_mtime("_delta_log/00000000000000000000.json", 1000);
    set_mtime("_delta_log/00000000000000000001.json", 2000);
    /* Older than its predecessor: counts as 2000 s + 1 ms. */
    set_mtime("_delta_log/00000000000000000002.json", 1500);
    check_ok(delta_snapshot_load_at_timestamp(&snap, store, 1500 * TIME_MICROS_PER_SECOND, NULL, &err), &err);
    check_int(0, snap->version);
    delta_snapshot_free(snap);
    check_ok(delta_snapshot_load_at_timestamp(&snap, store, 2000 * TIME_MICROS_PER_SECOND, NULL, &err), &err);
    check_int(1, snap->version);
    delta_snapshot_free(snap);
    check_ok(delta_snapshot_load_at_timestamp(&snap, store, 2000 * TIME_MICROS_PER_SECOND + 1000, NULL, &err), &err);
    check_int(2, snap->version);
    delta_snapshot_free(snap);
    check_fails(SILT_NOTFOUND, delta_snapshot_load_at_timestamp(&snap, store, 999 * TIME_MICROS_PER_SECOND, NULL, &err));
    check_contains(err.message, "[DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION] The provided "
                                "timestamp (1970-01-01 00:16:39.0) is before the earliest version");
    check_fails(SILT_NOTFOUND, delta_snapshot_load_at_timestamp(&snap, store, 3000 * TIME_MICROS_PER_SECOND, NULL, &err));
    /* the newest commit counts as 2000 s + 1 ms (monotonic times) */
    check_contains(err.message, "[DELTA_TIMESTAMP_GREATER_THAN_COMMIT] The provided timestamp "
                                "(1970-01-01 00:50:00.0) is after the latest version");
    check_contains(err.message, "Please use a timestamp before or at 1970-01-01 00:33:20.");
}

void test_delta_snapshot__timestamp_travel_in_commit_timestamps(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    put("_delta_log/00000000000000000000.json", PROTOCOL_1_2 METADATA ADD("a.parquet", 1));
    put("_delta_log/00000000000000000001.json",
        "{\"commitInfo\":{\"inCommitTimestamp\":5000000,\"timestamp\":1}}\n"
        "{\"metaData\":{\"id\":\"t1\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
        "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[]}\",\"partitionColumns\":[],"
        "\"configuration\":{\"delta.enableInCommitTimestamps\":\"true\","
        "\"delta.inCommitTimestampEnablementVersion\":\"1\","
        "\"delta.inCommitTimestampEnablementTimestamp\":\"5000000\"}}}\n");
    put("_delta_log/00000000000000000002.json",
        "{\"commitInfo\":{\"inCommitTimestamp\":6000000,\"timestamp\":1}}\n" ADD("b.parquet", 2));
    put("_delta_log/00000000000000000003.json",
        "{\"commitInfo\":{\"inCommitTimestamp\":7000000,\"timestamp\":1}}\n" ADD("c.parquet", 2));
    set_mtime("_delta_log/00000000000000000000.json", 1000);
    /* File times of ICT commits are meaningless: make them misleading on purpose. */
    set_mtime("_delta_log/00000000000000000001.json", 100);
    set_mtime("_delta_log/00000000000000000002.json", 100);
    set_mtime("_delta_log/00000000000000000003.json", 100);
    check_ok(delta_snapshot_load_at_timestamp(&snap, store, 6500 * TIME_MICROS_PER_SECOND, NULL, &err), &err);
    check_int(2, snap->version);
    delta_snapshot_free(snap);
    check_ok(delta_snapshot_load_at_timestamp(&snap, store, 7000 * TIME_MICROS_PER_SECOND, NULL, &err), &err);
    check_int(3, snap->version);
    check_int(1, snap->timestamp_is_in_commit);
    check_int(7000000, snap->timestamp_ms);
    delta_snapshot_free(snap);
    check_ok(delta_snapshot_load_at_timestamp(&snap, store, 1200 * TIME_MICROS_PER_SECOND, NULL, &err), &err);
    check_int(0, snap->version);
    delta_snapshot_free(snap);
}

void test_delta_snapshot__classify_log_names(void)
{
    dlog_file f;
    check_int(DLOG_FILE_COMMIT, dlog_classify("00000000000000000012.json", &f));
    check_int(12, f.version);
    check_int(DLOG_FILE_CHECKPOINT, dlog_classify("00000000000000000010.checkpoint.parquet", &f));
    check_int(DLOG_FILE_CHECKPOINT_PART,
              dlog_classify("00000000000000000010.checkpoint.0000000002.0000000003.parquet", &f));
    check_int(2, f.part);
    check_int(3, f.n_parts);
    check_int(DLOG_FILE_CHECKPOINT_V2,
              dlog_classify("00000000000000000010.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json", &f));
    check_int(1, f.is_json);
    check_int(DLOG_FILE_COMPACTION,
              dlog_classify("00000000000000000004.00000000000000000006.compacted.json", &f));
    check_int(6, f.end_version);
    check_int(DLOG_FILE_CRC, dlog_classify("00000000000000000004.crc", &f));
    check_int(DLOG_FILE_LAST_CHECKPOINT, dlog_classify("_last_checkpoint", &f));
    check_int(DLOG_FILE_OTHER, dlog_classify("0000000000000000004.json", &f));
    check_int(DLOG_FILE_OTHER, dlog_classify("00000000000000000004.checkpoint.3.4.parquet", &f));
    check_int(DLOG_FILE_OTHER, dlog_classify(".00000000000000000004.json.crc", &f));
}

void test_delta_snapshot__big_commit_is_read_in_chunks(void)
{
    buf commit = BUF_INIT;
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    int idx;
    check_ok(buf_append_str(&commit, PROTOCOL_1_2 METADATA, NULL), NULL);
    /* About 3 MB: lines cross the 1 MiB chunk boundaries. */
    for (idx = 0; idx < 30000; idx++)
        check_ok(buf_printf(&commit, NULL, "{\"add\":{\"path\":\"part-%06d-with-a-longish-name.parquet\","
                            "\"partitionValues\":{\"p\":\"x\"},\"size\":%d,\"modificationTime\":1,"
                            "\"dataChange\":true}}\n", idx, idx), NULL);
    put("_delta_log/00000000000000000000.json", buf_cstr(&commit));
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_int(30000, snap->n_files);
    check_int((int64_t)29999 * 30000 / 2, snap->total_size);
    /* Lean: the arena holds paths and small copies; partition values are shared. */
    check(arena_bytes_used(snap->arena) / snap->n_files < 100);
    check(sizeof(delta_file) <= 160);
    delta_snapshot_free(snap);
    /* A broken line near the end is reported with its real line number. */
    {
        char where[64];
        snprintf(where, sizeof(where), "line 30003, byte %zu:", commit.len);
        check_ok(buf_append_str(&commit, "{\"add\":{\"path\":\"bad\"}}\n", NULL), NULL);
        put("_delta_log/00000000000000000000.json", buf_cstr(&commit));
        check_fails(SILT_CORRUPT, delta_snapshot_load(&snap, store, -1, &err));
        check_contains(err.message, where);
        check_contains(err.message, "\"add.size\" is missing");
    }
    buf_clear(&commit);
}

/* Every allocation failing in turn ends in SILT_NOMEM (or success), never a crash or a leak. */
void test_delta_snapshot__out_of_memory_at_every_allocation(void)
{
    long countdown;
    int succeeded = 0;
    write_basic_table();
    put("_delta_log/00000000000000000001.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json",
        "{\"checkpointMetadata\":{\"version\":1}}\n" PROTOCOL_1_2 METADATA ADD("b.parquet", 20)
        ADD("c%20d.parquet", 30) "{\"txn\":{\"appId\":\"app\",\"version\":7}}\n");
    for (countdown = 0; countdown < 5000 && !succeeded; countdown++) {
        delta_snapshot *snap = NULL;
        silt_error err = SILT_ERROR_INIT;
        silt_status rc;
        mem_fail_after(countdown);
        rc = delta_snapshot_load(&snap, store, -1, &err);
        mem_fail_reset();
        if (rc == SILT_OK) {
            check_int(2, snap->n_files);
            succeeded = 1;
        } else if (rc != SILT_NOMEM) {
            test_fail(__FILE__, __LINE__, "allocation %ld: %s: %s", countdown,
                      silt_status_name(rc), err.message);
        }
        delta_snapshot_free(snap);
    }
    check(succeeded);
}

void test_delta_snapshot__store_failures_are_io_errors(void)
{
    io_store *inner = NULL, *faulty = NULL;
    io_fault_plan plan = IO_FAULT_PLAN_INIT;
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    long nth;
    write_basic_table();
    for (nth = 1; nth <= 4; nth++) {
        check_ok(io_store_open(&inner, test_tmpdir(), 0, &err), &err);
        plan.fail_read_nth = nth;
        check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err);
        check_fails(SILT_IO, delta_snapshot_load(&snap, faulty, -1, &err));
        check(snap == NULL);
        io_store_free(faulty);
    }
}

void test_delta_snapshot__stray_far_future_commit_is_a_gap(void)
{
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    write_basic_table();
    put("_delta_log/09000000000000000000.json", "{}\n");
    check_fails(SILT_CORRUPT, delta_snapshot_load(&snap, store, -1, &err));
    check_contains(err.message, "commit 3 of the table is missing");
    check_ok(delta_snapshot_load(&snap, store, 2, &err), &err);
    delta_snapshot_free(snap);
}

/* A store whose first listing passes over commit 1 while it shows commit 2, as readdir can
 * while another writer creates entries; every other call goes to the local store. */
typedef struct racy_store {
    io_store base;
    io_store *inner;
    int lists;
} racy_store;

static silt_status racy_list(io_store *s, const char *prefix, const char *start_after,
                             int recursive, io_listing *out, silt_error *err)
{
    racy_store *rs = (racy_store *)s;
    size_t idx, kept = 0;
    silt_status rc = rs->inner->ops->list(rs->inner, prefix, start_after, recursive, out, err);
    if (rc != SILT_OK || rs->lists++ > 0)
        return rc;
    for (idx = 0; idx < out->count; idx++) {
        if (strstr(out->items[idx].key, "00000000000000000001.json") != NULL)
            mem_free(out->items[idx].key);
        else
            out->items[kept++] = out->items[idx];
    }
    out->count = kept;
    return SILT_OK;
}

static silt_status racy_get_range(io_store *s, const char *key, int64_t offset, int64_t len,
                                  buf *out, silt_error *err)
{
    io_store *inner = ((racy_store *)s)->inner;
    return inner->ops->get_range(inner, key, offset, len, out, err);
}

static silt_status racy_head(io_store *s, const char *key, io_object_info *out, silt_error *err)
{
    io_store *inner = ((racy_store *)s)->inner;
    return inner->ops->head(inner, key, out, err);
}

static silt_status racy_open_file(io_store *s, const char *key, io_file **out, silt_error *err)
{
    io_store *inner = ((racy_store *)s)->inner;
    return inner->ops->open_file(inner, key, out, err);
}

static void racy_destroy(io_store *s) { mem_free(s); }

void test_delta_snapshot__listing_that_misses_a_new_commit_is_listed_again(void)
{
    static const io_store_ops ops = {"racy", racy_get_range, NULL, racy_list, NULL,
                                     racy_head, racy_open_file, NULL, racy_destroy};
    racy_store *rs = mem_calloc(1, sizeof(*rs));
    delta_snapshot *snap = NULL;
    silt_error err = SILT_ERROR_INIT;
    write_basic_table();
    check(rs != NULL);
    rs->base.ops = &ops;
    rs->base.root = store->root;
    rs->inner = store;
    check_ok(delta_snapshot_load(&snap, &rs->base, -1, &err), &err);
    check_int(2, (int)snap->version);
    check_int(2, rs->lists);
    delta_snapshot_free(snap);
    racy_destroy(&rs->base);
}
