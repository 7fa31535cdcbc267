/*
 * Checkpoint rows (read back with dlog_actions_from_batch), tombstones,
 * the missed checkpoint of a commit, and log cleanup.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "delta/checkpoint.h"
#include "delta/log.h"
#include "delta/txn.h"
#include "test.h"
#include "util/time.h"

static arena *a;
static io_store *store;
static silt_error err;

/* A checkpoint batch served from memory in place of a Parquet file. */
static col_batch *served_batch;

void test_delta_txn_checkpoint__initialize(void)
{
    a = arena_new(NULL, "test");
    err_clear(&err);
    served_batch = NULL;
    check_ok(io_local_store_open(&store, test_tmpdir(), 1, &err), &err);
}

void test_delta_txn_checkpoint__cleanup(void)
{
    io_store_free(store);
    store = NULL;
    arena_free(a);
}

static const col_type *schema(void)
{
    static col_field fields[2];
    memset(fields, 0, sizeof(fields));
    fields[0].name = "id";
    fields[0].type = col_type_primitive(COL_LONG);
    fields[1].name = "p";
    fields[1].type = col_type_primitive(COL_STRING);
    fields[0].nullable = fields[1].nullable = 1;
    fields[0].field_id = fields[1].field_id = -1;
    return col_type_struct(a, 2, fields);
}


static silt_status serve_batch(io_store *st, const char *key, arena *scratch, dlog_action_fn fn,
                               void *payload, silt_error *e)
{
    (void)st;
    if (strstr(key, "00000000000000000003.checkpoint.parquet") == NULL)
        return err_set(e, SILT_NOTFOUND, "no checkpoint \"%s\" in this test", key);
    return dlog_actions_from_batch(served_batch, scratch, fn, payload, e);
}

/* Loads the newest snapshot; once a stand-in checkpoint exists it is served from memory. */
static silt_status load_latest(delta_snapshot **out)
{
    delta_load_options opts = DELTA_LOAD_OPTIONS_INIT;
    opts.parquet_reader = served_batch != NULL ? serve_batch : NULL;
    return delta_snapshot_load_ext(out, store, -1, &opts, &err);
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

static void create(const dlog_map *config)
{
    delta_txn *txn = NULL;
    dlog_metadata md;
    const char *parts[] = {"p"};
    check_ok(delta_metadata_for_new_table(&md, a, schema(), 1, parts, config, &err), &err);
    check_ok(delta_txn_begin(&txn, store, NULL, "CREATE TABLE", &err), &err);
    check_ok(delta_txn_set_metadata(txn, &md, &err), &err);
    check_ok(delta_txn_commit(txn, NULL, &err), &err);
    delta_txn_free(txn);
}

static delta_commit_result append(const char *path, const char *app_id, int64_t app_version)
{
    delta_snapshot *snap = NULL;
    delta_txn *txn = NULL;
    dlog_add add;
    delta_commit_result res;
    memset(&add, 0, sizeof(add));
    add.path = path;
    add.partition_values = map1("p", "a");
    add.size = 10;
    add.modification_time = 1700000000000;
    add.data_change = 1;
    add.stats = "{\"numRecords\":3}";
    check_ok(load_latest(&snap), &err);
    check_ok(delta_txn_begin(&txn, store, snap, "WRITE", &err), &err);
    check_ok(delta_txn_add_file(txn, &add, &err), &err);
    if (app_id != NULL)
        check_ok(delta_txn_set_app_txn(txn, app_id, app_version, &err), &err);
    check_ok(delta_txn_commit(txn, &res, &err), &err);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
    return res;
}

static void remove_first(void)
{
    delta_snapshot *snap = NULL;
    delta_txn *txn = NULL;
    check_ok(load_latest(&snap), &err);
    check_ok(delta_txn_begin(&txn, store, snap, "DELETE", &err), &err);
    check_ok(delta_txn_remove_file(txn, &snap->files[0], 1, &err), &err);
    check_ok(delta_txn_commit(txn, NULL, &err), &err);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
}

typedef struct counts {
    int protocol, metadata, txn, add, remove, other;
    const dlog_add *adds[8];
    dlog_remove removed;
    dlog_metadata md;
    dlog_protocol proto;
    dlog_txn app;
} counts;

static silt_status count_action(const dlog_action *act, void *payload, silt_error *e)
{
    counts *c = payload;
    (void)e;
    switch (act->type) {
    case DLOG_PROTOCOL: c->protocol++; c->proto = act->u.protocol; break;
    case DLOG_METADATA: c->metadata++; c->md = act->u.metadata; break;
    case DLOG_TXN: c->txn++; c->app = act->u.txn; break;
    case DLOG_ADD:
        if (c->add < 8)
            c->adds[c->add] = arena_memdup(a, &act->u.add, sizeof(act->u.add));
        c->add++;
        break;
    case DLOG_REMOVE: c->remove++; c->removed = act->u.remove; break;
    default: c->other++; break;
    }
    return SILT_OK;
}

void test_delta_txn_checkpoint__batch_round_trip(void)
{
    delta_snapshot *snap = NULL;
    dlog_remove *tombs = NULL;
    size_t n_tombs = 0;
    col_batch *batch = NULL;
    counts c;
    create(NULL);
    append("p=a/1.parquet", NULL, 0);
    append("p=a/2.parquet", "stream", 4);
    append("p=a/3.parquet", NULL, 0);
    remove_first();
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_ok(delta_collect_tombstones(store, snap, 0, a, &tombs, &n_tombs, &err), &err);
    check_int(1, n_tombs);
    check(tombs[0].extended_file_metadata);
    check_ok(delta_checkpoint_batch(snap, tombs, n_tombs, a, &batch, &err), &err);
    check_int(2 + 1 + 2 + 1, batch->n_rows);
    check_int(6, batch->n_cols);
    check_str("txn", batch->schema->fields[0].name);

    memset(&c, 0, sizeof(c));
    check_ok(dlog_actions_from_batch(batch, a, count_action, &c, &err), &err);
    check_int(1, c.protocol);
    check_int(1, c.metadata);
    check_int(1, c.txn);
    check_int(2, c.add);
    check_int(1, c.remove);
    check_int(0, c.other);
    check_int(1, c.proto.min_reader_version);
    check_int(2, c.proto.min_writer_version);
    check_str(snap->metadata.id, c.md.id);
    check_str(snap->metadata.schema_string, c.md.schema_string);
    check_str("p", c.md.partition_columns[0]);
    check_str("stream", c.app.app_id);
    check_int(4, c.app.version);
    check(!c.adds[0]->data_change);
    check_str("{\"numRecords\":3}", c.adds[0]->stats);
    check_str("a", dlog_map_get(&c.adds[0]->partition_values, "p", NULL));
    check_int(10, c.adds[0]->size);
    check_str(tombs[0].path, c.removed.path);
    check(c.removed.has_deletion_timestamp);
    check_int(tombs[0].deletion_timestamp, c.removed.deletion_timestamp);
    check(c.removed.extended_file_metadata);
    check_str("a", dlog_map_get(&c.removed.partition_values, "p", NULL));

    /* Expired tombstones are left out. */
    check_ok(delta_collect_tombstones(store, snap, time_now_micros() / 1000 + 1000, a, &tombs,
                                      &n_tombs, &err),
             &err);
    check_int(0, n_tombs);
    delta_snapshot_free(snap);
}

void test_delta_txn_checkpoint__re_added_file_is_no_tombstone(void)
{
    delta_snapshot *snap = NULL;
    dlog_remove *tombs = NULL;
    size_t n_tombs = 0;
    create(NULL);
    append("p=a/1.parquet", NULL, 0);
    remove_first();
    append("p=a/1.parquet", NULL, 0);
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_int(1, snap->n_files);
    check_ok(delta_collect_tombstones(store, snap, 0, a, &tombs, &n_tombs, &err), &err);
    check_int(0, n_tombs);
    delta_snapshot_free(snap);
}

static int has_path(const delta_snapshot *snap, const char *path)
{
    size_t idx;
    for (idx = 0; idx < snap->n_files; idx++)
        if (strcmp(snap->files[idx].path, path) == 0)
            return 1;
    return 0;
}

static int exists(const char *key)
{
    io_object_info info;
    silt_error e = SILT_ERROR_INIT;
    if (io_head(store, key, &info, &e) != SILT_OK)
        return 0;
    io_object_info_clear(&info);
    return 1;
}

/* A commit whose checkpoint cannot be written still succeeds and says so. */
void test_delta_txn_checkpoint__missed_checkpoint_is_not_fatal(void)
{
    dlog_map config = map1("delta.checkpointInterval", "2");
    delta_commit_result res;
    delta_snapshot *snap = NULL;
    io_object_info info;
    create(&config);
    res = append("p=a/1.parquet", NULL, 0);
    check_int(1, res.version);
    check_int(0, res.checkpoint_attempted);
    /* A directory where the checkpoint file should go makes its write fail. */
    check_ok(io_put(store, "_delta_log/00000000000000000002.checkpoint.parquet/x", "x", 1, &err),
             &err);
    res = append("p=a/2.parquet", NULL, 0);
    check_int(2, res.version);
    check_int(1, res.checkpoint_attempted);
    check(res.checkpoint_status != SILT_OK);
    check_contains(res.checkpoint_message, "checkpoint");
    check_fails(SILT_NOTFOUND, io_head(store, "_delta_log/_last_checkpoint", &info, &err));
    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_int(2, snap->version);
    check_int(2, snap->n_files);
    delta_snapshot_free(snap);
}

/*
 * 25 commits with the default interval: Parquet checkpoints at 10 and 20,
 * `_last_checkpoint` names 20, and the loader starts from it with the same
 * state as a replay of the JSON commits.
 */
void test_delta_txn_checkpoint__every_ten_commits(void)
{
    delta_commit_result res;
    delta_snapshot *snap = NULL, *json = NULL;
    buf last = BUF_INIT;
    char key[64];
    int version, idx;
    create(NULL);
    for (version = 1; version <= 25; version++) {
        if (version % 5 == 0) {
            remove_first();
            continue;
        }
        snprintf(key, sizeof(key), "p=a/%d.parquet", version);
        res = append(key, version % 7 == 0 ? "app" : NULL, version);
        check_int(version, res.version);
        check_int(version % 10 == 0, res.checkpoint_attempted);
        check_int(SILT_OK, res.checkpoint_status);
    }
    check(exists("_delta_log/00000000000000000010.checkpoint.parquet"));
    check(exists("_delta_log/00000000000000000020.checkpoint.parquet"));
    check(!exists("_delta_log/00000000000000000015.checkpoint.parquet"));
    check_ok(io_get(store, "_delta_log/_last_checkpoint", &last, &err), &err);
    check_ok(buf_append_char(&last, 0, &err), &err);
    check_contains(last.data, "\"version\":20,");
    buf_clear(&last);

    check_ok(delta_snapshot_load(&snap, store, -1, &err), &err);
    check_int(20, snap->checkpoint_version);
    check_int(25, snap->version);
    check_int(21, delta_txn_app_version(snap, "app"));
    /* The same state from the JSON commits alone once the checkpoints are gone. */
    check_ok(io_delete(store, "_delta_log/00000000000000000010.checkpoint.parquet", &err), &err);
    check_ok(io_delete(store, "_delta_log/00000000000000000020.checkpoint.parquet", &err), &err);
    check_ok(io_delete(store, "_delta_log/_last_checkpoint", &err), &err);
    check_ok(delta_snapshot_load(&json, store, -1, &err), &err);
    check_int(-1, json->checkpoint_version);
    check_int(15, json->n_files); /* 20 appends, 5 removes */
    check_int(json->n_files, snap->n_files);
    for (idx = 0; idx < (int)json->n_files; idx++)
        check(has_path(snap, json->files[idx].path));
    check_str(json->metadata.schema_string, snap->metadata.schema_string);
    check_int(json->total_size, snap->total_size);
    delta_snapshot_free(json);
    delta_snapshot_free(snap);
}

static void age(const char *key, int64_t seconds_ago)
{
    char path[1024];
    struct timespec times[2];
    snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), key);
    times[0].tv_sec = times[1].tv_sec = (time_t)(time_now_micros() / 1000000 - seconds_ago);
    times[0].tv_nsec = times[1].tv_nsec = 0;
    check(utimensat(AT_FDCWD, path, times, 0) == 0);
}

void test_delta_txn_checkpoint__log_cleanup(void)
{
    char key[96];
    size_t n_deleted = 99;
    int version;
    create(NULL);
    for (version = 1; version <= 5; version++) {
        snprintf(key, sizeof(key), "p=a/%d.parquet", version);
        append(key, NULL, 0);
    }
    check_ok(io_put(store, "_delta_log/00000000000000000003.checkpoint.parquet", "PAR1", 4, &err),
             &err);
    check_ok(io_put(store, "_delta_log/00000000000000000001.crc", "{}", 2, &err), &err);
    check_ok(io_put(store, "_delta_log/00000000000000000000.00000000000000000002.compacted.json",
                    "", 0, &err),
             &err);
    /* Nothing is old yet: nothing goes. */
    check_ok(delta_log_cleanup(store, 86400000, time_now_micros() / 1000, &n_deleted, &err), &err);
    check_int(0, n_deleted);
    /* Commits 0..4 are 40 days old; 5 is new. Cut-off commit 4, cut-off checkpoint 3. */
    for (version = 0; version <= 4; version++) {
        snprintf(key, sizeof(key), "_delta_log/%020d.json", version);
        age(key, 40 * 86400);
    }
    check_ok(delta_log_cleanup(store, INT64_C(30) * 86400000, time_now_micros() / 1000, &n_deleted,
                               &err),
             &err);
    check(!exists("_delta_log/00000000000000000000.00000000000000000002.compacted.json"));
    check(!exists("_delta_log/00000000000000000001.json"));
    check(!exists("_delta_log/00000000000000000000.json"));
    check(!exists("_delta_log/00000000000000000001.crc"));
    check(!exists("_delta_log/00000000000000000002.json"));
    check_int(5, n_deleted); /* commits 0, 1, 2, the crc and the compaction */
    check(!exists("_delta_log/00000000000000000000.json"));
    check(!exists("_delta_log/00000000000000000002.json"));
    check(!exists("_delta_log/00000000000000000001.crc"));
    check(exists("_delta_log/00000000000000000003.json"));
    check(exists("_delta_log/00000000000000000003.checkpoint.parquet"));
    check(exists("_delta_log/00000000000000000005.json"));
    /* Idempotent. */
    check_ok(delta_log_cleanup(store, INT64_C(30) * 86400000, time_now_micros() / 1000, &n_deleted,
                               &err),
             &err);
    check_int(0, n_deleted);
}

void test_delta_txn_checkpoint__no_checkpoint_no_cleanup(void)
{
    size_t n_deleted = 99;
    create(NULL);
    append("p=a/1.parquet", NULL, 0);
    age("_delta_log/00000000000000000000.json", 90 * 86400);
    age("_delta_log/00000000000000000001.json", 90 * 86400);
    check_ok(delta_log_cleanup(store, 86400000, time_now_micros() / 1000, &n_deleted, &err), &err);
    check_int(0, n_deleted);
    check(exists("_delta_log/00000000000000000000.json"));
}

/*
 * The checkpoint rows as a reader sees them: a Parquet "reader" that serves
 * the batch silt built for version 3 makes the loader start from that
 * checkpoint, and the state at version 5 equals the one replayed from JSON.
 */

void test_delta_txn_checkpoint__loader_starts_from_silt_checkpoint(void)
{
    delta_snapshot *at3 = NULL, *json = NULL, *from_cp = NULL;
    delta_load_options opts = DELTA_LOAD_OPTIONS_INIT;
    dlog_remove *tombs = NULL;
    size_t n_tombs = 0, idx;
    create(NULL);
    append("p=a/1.parquet", "app", 1);
    append("p=a/2.parquet", NULL, 0);
    remove_first(); /* version 3 */
    check_ok(delta_snapshot_load(&at3, store, 3, &err), &err);
    check_ok(delta_collect_tombstones(store, at3, 0, a, &tombs, &n_tombs, &err), &err);
    check_ok(delta_checkpoint_batch(at3, tombs, n_tombs, a, &served_batch, &err), &err);
    check_ok(io_put(store, "_delta_log/00000000000000000003.checkpoint.parquet", "PAR1", 4, &err),
             &err);
    append("p=a/3.parquet", "app", 2);
    remove_first(); /* version 5 */

    opts.parquet_reader = serve_batch;
    check_ok(delta_snapshot_load_ext(&from_cp, store, 5, &opts, &err), &err);
    check_int(3, from_cp->checkpoint_version);
    /* The stand-in checkpoint file goes, so the built-in reader replays the JSON. */
    check_ok(io_delete(store, "_delta_log/00000000000000000003.checkpoint.parquet", &err), &err);
    check_ok(delta_snapshot_load(&json, store, 5, &err), &err);
    check_int(-1, json->checkpoint_version);
    check_int(json->n_files, from_cp->n_files);
    for (idx = 0; idx < json->n_files; idx++)
        check(has_path(from_cp, json->files[idx].path));
    check_str(json->metadata.id, from_cp->metadata.id);
    check_str(json->metadata.schema_string, from_cp->metadata.schema_string);
    check_int(json->protocol.min_writer_version, from_cp->protocol.min_writer_version);
    check_int(2, delta_txn_app_version(from_cp, "app"));
    check_int(json->total_size, from_cp->total_size);
    delta_snapshot_free(json);
    delta_snapshot_free(from_cp);
    delta_snapshot_free(at3);
}

/*
 * A table supporting v2Checkpoint must only get V2 checkpoints, which silt
 * does not write: its tenth commit succeeds without a classic checkpoint.
 */
void test_delta_txn_checkpoint__no_classic_checkpoint_on_v2_tables(void)
{
    static const char *reader[] = {"v2Checkpoint"};
    static const char *writer[] = {"appendOnly", "invariants", "v2Checkpoint"};
    dlog_protocol protocol = {3, 7, 1, 1, reader, 1, 3, writer};
    delta_txn *txn = NULL;
    dlog_metadata md;
    const char *parts[] = {"p"};
    delta_commit_result res;
    int version;
    check_ok(delta_metadata_for_new_table(&md, a, schema(), 1, parts, NULL, &err), &err);
    check_ok(delta_txn_begin(&txn, store, NULL, "CREATE TABLE", &err), &err);
    check_ok(delta_txn_set_metadata(txn, &md, &err), &err);
    check_ok(delta_txn_set_protocol(txn, &protocol, &err), &err);
    check_ok(delta_txn_commit(txn, NULL, &err), &err);
    delta_txn_free(txn);
    for (version = 1; version <= 10; version++) {
        char key[64];
        snprintf(key, sizeof(key), "p=a/%d.parquet", version);
        res = append(key, NULL, 0);
        check_int(version, res.version);
        check_int(0, res.checkpoint_attempted);
    }
    check(!exists("_delta_log/00000000000000000010.checkpoint.parquet"));
    check(!exists("_delta_log/_last_checkpoint"));
}
