/*
 * txn_writer - a small driver of the Delta write path (delta/txn.h) for
 * the interop test (txn_log_interop.py), which checks the tables it
 * writes with delta-rs and Spark.
 *
 *   txn_writer create ROOT SCHEMA_JSON PARTITION_COLS [key=value ...]
 *   txn_writer append ROOT PATH SIZE STATS_JSON [col=value ...]
 *   txn_writer remove ROOT PATH
 *   txn_writer info ROOT          prints "version N files M" then the paths, sorted
 *   txn_writer checkpoint-schema ROOT   prints the classic checkpoint schema (ROOT unused)
 *   txn_writer writable ROOT      exit 0 when silt may write the table (begins a transaction)
 *
 * PARTITION_COLS is comma-separated ("" for none). Exit 0 on success, 1
 * with the error on stderr otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/txn.h"
#include "util/time.h"

static int fail(const silt_error *err)
{
    char msg[2048];
    err_format(err, msg, sizeof(msg));
    fprintf(stderr, "txn_writer: %s\n", msg);
    return 1;
}

/* key=value arguments as a map in arena a. */
static dlog_map kv_args(arena *a, int argc, char **argv)
{
    dlog_map map = {0, arena_calloc(a, (size_t)argc + 1, sizeof(dlog_kv))};
    int idx;
    for (idx = 0; idx < argc; idx++) {
        char *eq = strchr(argv[idx], '=');
        if (eq == NULL)
            continue;
        map.items[map.n].key = arena_strndup(a, argv[idx], (size_t)(eq - argv[idx]));
        map.items[map.n].value = eq[1] ? eq + 1 : NULL;
        map.n++;
    }
    return map;
}

static silt_status cmd_create(io_store *store, arena *a, int argc, char **argv, silt_error *err)
{
    const col_type *schema;
    const char *parts[16];
    size_t n_parts = 0;
    char *cols = arena_strdup(a, argv[1]), *p = cols;
    dlog_map config = kv_args(a, argc - 2, argv + 2);
    dlog_metadata md;
    delta_txn *txn = NULL;
    silt_status rc;
    SILT_RETURN_IF_ERROR(dlog_parse_schema(&schema, a, argv[0], err));
    while (p != NULL && *p != '\0' && n_parts < 16) {
        char *comma = strchr(p, ',');
        if (comma != NULL)
            *comma = '\0';
        parts[n_parts++] = p;
        p = comma ? comma + 1 : NULL;
    }
    SILT_RETURN_IF_ERROR(
        delta_metadata_for_new_table(&md, a, schema, n_parts, parts, &config, err));
    SILT_RETURN_IF_ERROR(delta_txn_begin(&txn, store, NULL, "CREATE TABLE", err));
    rc = delta_txn_set_metadata(txn, &md, err);
    if (rc == SILT_OK) {
        /* Spark's form: a JSON array in a string, ["p","q"]. */
        buf json = BUF_INIT;
        size_t idx;
        rc = buf_append_char(&json, '[', err);
        for (idx = 0; rc == SILT_OK && idx < n_parts; idx++)
            rc = buf_printf(&json, err, "%s\"%s\"", idx ? "," : "", parts[idx]);
        if (rc == SILT_OK)
            rc = buf_append_char(&json, ']', err);
        if (rc == SILT_OK)
            rc = delta_txn_set_param(txn, "partitionBy", json.data, err);
        buf_clear(&json);
    }
    if (rc == SILT_OK)
        rc = delta_txn_commit(txn, NULL, err);
    delta_txn_free(txn);
    return rc;
}

static silt_status cmd_append(io_store *store, arena *a, int argc, char **argv, silt_error *err)
{
    delta_snapshot *snap = NULL;
    delta_txn *txn = NULL;
    dlog_add add;
    int64_t size = 0;
    silt_status rc;
    memset(&add, 0, sizeof(add));
    if (!util_str_to_int64(argv[1], strlen(argv[1]), &size))
        return err_set(err, SILT_INVALID, "size \"%s\" is not a number", argv[1]);
    add.path = argv[0];
    add.size = size;
    add.modification_time = time_now_micros() / 1000;
    add.data_change = 1;
    add.stats = argv[2][0] ? argv[2] : NULL;
    add.partition_values = kv_args(a, argc - 3, argv + 3);
    SILT_RETURN_IF_ERROR(delta_snapshot_load(&snap, store, -1, err));
    rc = delta_txn_begin(&txn, store, snap, "WRITE", err);
    if (rc == SILT_OK)
        rc = delta_txn_add_file(txn, &add, err);
    if (rc == SILT_OK)
        rc = delta_txn_set_param(txn, "mode", "Append", err);
    if (rc == SILT_OK)
        rc = delta_txn_set_metric(txn, "numFiles", 1, err);
    if (rc == SILT_OK)
        rc = delta_txn_commit(txn, NULL, err);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
    return rc;
}

static silt_status cmd_remove(io_store *store, const char *path, silt_error *err)
{
    delta_snapshot *snap = NULL;
    delta_txn *txn = NULL;
    size_t idx;
    silt_status rc;
    SILT_RETURN_IF_ERROR(delta_snapshot_load(&snap, store, -1, err));
    rc = delta_txn_begin(&txn, store, snap, "DELETE", err);
    for (idx = 0; rc == SILT_OK && idx < snap->n_files; idx++)
        if (strcmp(snap->files[idx].path, path) == 0) {
            rc = delta_txn_read_file(txn, path, err);
            if (rc == SILT_OK)
                rc = delta_txn_remove_file(txn, &snap->files[idx], 1, err);
        }
    if (rc == SILT_OK)
        rc = delta_txn_set_param(txn, "predicate", "[\"true\"]", err);
    if (rc == SILT_OK)
        rc = delta_txn_commit(txn, NULL, err);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
    return rc;
}

static int path_cmp(const void *left, const void *right)
{
    return strcmp(*(const char *const *)left, *(const char *const *)right);
}

static silt_status cmd_info(io_store *store, arena *a, silt_error *err)
{
    delta_snapshot *snap = NULL;
    const char **paths;
    size_t idx;
    SILT_RETURN_IF_ERROR(delta_snapshot_load(&snap, store, -1, err));
    paths = arena_calloc(a, snap->n_files + 1, sizeof(char *));
    for (idx = 0; idx < snap->n_files; idx++)
        paths[idx] = snap->files[idx].path;
    qsort(paths, snap->n_files, sizeof(char *), path_cmp);
    printf("version %lld files %zu\n", (long long)snap->version, snap->n_files);
    for (idx = 0; idx < snap->n_files; idx++)
        printf("%s\n", paths[idx]);
    delta_snapshot_free(snap);
    return SILT_OK;
}

static silt_status cmd_writable(io_store *store, silt_error *err)
{
    delta_snapshot *snap = NULL;
    delta_txn *txn = NULL;
    silt_status rc;
    SILT_RETURN_IF_ERROR(delta_snapshot_load(&snap, store, -1, err));
    rc = delta_txn_begin(&txn, store, snap, "WRITE", err);
    if (rc == SILT_OK)
        printf("writable: protocol (%d,%d)\n", (int)snap->protocol.min_reader_version,
               (int)snap->protocol.min_writer_version);
    delta_txn_free(txn);
    delta_snapshot_free(snap);
    return rc;
}

static silt_status cmd_checkpoint_schema(arena *a, silt_error *err)
{
    buf text = BUF_INIT;
    silt_status rc = col_type_format(delta_checkpoint_schema(a), &text, err);
    if (rc == SILT_OK)
        printf("%s\n", buf_cstr(&text));
    buf_clear(&text);
    return rc;
}

int main(int argc, char **argv)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = NULL;
    arena *a = arena_new(NULL, "txn_writer");
    silt_status rc;
    if (argc < 3 || a == NULL) {
        fprintf(stderr, "usage: txn_writer create|append|remove|info ROOT ...\n");
        return 2;
    }
    rc = io_store_open(&store, argv[2], 1, &err);
    if (rc == SILT_OK) {
        if (strcmp(argv[1], "create") == 0 && argc >= 5)
            rc = cmd_create(store, a, argc - 3, argv + 3, &err);
        else if (strcmp(argv[1], "append") == 0 && argc >= 6)
            rc = cmd_append(store, a, argc - 3, argv + 3, &err);
        else if (strcmp(argv[1], "remove") == 0 && argc == 4)
            rc = cmd_remove(store, argv[3], &err);
        else if (strcmp(argv[1], "info") == 0)
            rc = cmd_info(store, a, &err);
        else if (strcmp(argv[1], "writable") == 0)
            rc = cmd_writable(store, &err);
        else if (strcmp(argv[1], "checkpoint-schema") == 0)
            rc = cmd_checkpoint_schema(a, &err);
        else
            rc = err_set(&err, SILT_INVALID, "command \"%s\" with %d arguments is not known",
                         argv[1], argc - 3);
    }
    io_store_free(store);
    arena_free(a);
    return rc == SILT_OK ? 0 : fail(&err);
}
