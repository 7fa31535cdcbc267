/*
 * conflict.c - checking a winning commit against a transaction that lost
 * the race for its version.
 *
 * Delta's optimistic concurrency rules (docs.delta.io, "Concurrency
 * control": isolation levels and write conflicts; PROTOCOL: Transaction
 * Identifiers), checked in Delta's order:
 *
 *   winner changed protocol              ProtocolChangedException
 *   winner changed metaData              MetadataChangedException
 *   winner added data files where this   ConcurrentAppendException
 *     transaction read (whole table, one of its partitions, or the files
 *     its read predicate on partition values accepts, as Delta's
 *     readPredicates: UPDATE/DELETE ... WHERE p = x read only p = x); under
 *     WriteSerializable a blind append by the winner does not count, so
 *     INSERT never conflicts with UPDATE/DELETE/MERGE; under Serializable
 *     it does. Adds with dataChange = false (OPTIMIZE) never count.
 *   winner removed (dataChange) a file   ConcurrentDeleteReadException
 *     this transaction read
 *   winner removed a file this           ConcurrentDeleteDeleteException
 *     transaction removes
 *   winner wrote a txn action for one    ConcurrentTransactionException
 *     of our appIds, or the same domain
 *
 * A blind append reads nothing, so two INSERTs never conflict. The exception
 * name starts the message so that people and tests can match on it.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "delta/txn_int.h"

#define WINNER_MAX_BYTES ((size_t)1 << 31)

typedef struct winner_ctx {
    txn_winner *w;
} winner_ctx;

static silt_status grow(arena *a, void **items, size_t *cap, size_t count, size_t elem,
                        silt_error *err)
{
    size_t new_cap;
    void *grown;
    if (count < *cap)
        return SILT_OK;
    new_cap = *cap ? *cap * 2 : 16;
    grown = arena_realloc(a, *items, *cap * elem, new_cap * elem);
    if (grown == NULL)
        return err_nomem(err);
    *items = grown;
    *cap = new_cap;
    return SILT_OK;
}

static void read_commit_info(txn_winner *w, const dlog_commit_info *ci)
{
    cJSON *root = ci->raw_json ? cJSON_Parse(ci->raw_json) : NULL;
    const cJSON *blind = cJSON_GetObjectItemCaseSensitive(root, "isBlindAppend");
    w->has_commit_info = 1;
    w->is_blind_append = cJSON_IsTrue(blind);
    w->operation = ci->operation;
    if (ci->has_in_commit_timestamp) {
        w->has_ict = 1;
        w->ict_ms = ci->in_commit_timestamp;
    }
    cJSON_Delete(root);
}

static silt_status on_winner_action(const dlog_action *act, void *payload, silt_error *err)
{
    txn_winner *w = ((winner_ctx *)payload)->w;
    switch (act->type) {
    case DLOG_PROTOCOL: w->has_protocol = 1; break;
    case DLOG_METADATA: w->has_metadata = 1; break;
    case DLOG_COMMIT_INFO: read_commit_info(w, &act->u.commit_info); break;
    case DLOG_ADD:
        SILT_RETURN_IF_ERROR(grow(w->a, (void **)&w->adds, &w->adds_cap, w->n_adds,
                                  sizeof(dlog_add), err));
        w->adds[w->n_adds++] = act->u.add;
        break;
    case DLOG_REMOVE:
        SILT_RETURN_IF_ERROR(grow(w->a, (void **)&w->removes, &w->removes_cap, w->n_removes,
                                  sizeof(dlog_remove), err));
        w->removes[w->n_removes++] = act->u.remove;
        break;
    case DLOG_TXN:
        SILT_RETURN_IF_ERROR(grow(w->a, (void **)&w->txns, &w->txns_cap, w->n_txns,
                                  sizeof(dlog_txn), err));
        w->txns[w->n_txns++] = act->u.txn;
        break;
    case DLOG_DOMAIN_METADATA:
        SILT_RETURN_IF_ERROR(grow(w->a, (void **)&w->domains, &w->domains_cap, w->n_domains,
                                  sizeof(dlog_domain_metadata), err));
        w->domains[w->n_domains++] = act->u.domain;
        break;
    default: break;
    }
    return SILT_OK;
}

silt_status delta_txn_read_winner(io_store *store, int64_t version, arena *a, txn_winner *out,
                            silt_error *err)
{
    buf data = BUF_INIT;
    char key[64];
    winner_ctx ctx;
    silt_status rc;

    memset(out, 0, sizeof(*out));
    out->a = a;
    out->version = version;
    ctx.w = out;
    buf_init(&data, WINNER_MAX_BYTES);
    delta_commit_key(version, key, sizeof(key));
    rc = io_get(store, key, &data, err);
    if (rc == SILT_OK)
        rc = dlog_parse_commit(data.data ? data.data : "", data.len, key, a, on_winner_action,
                               &ctx, err);
    buf_clear(&data);
    return rc;
}

/* ---- the checks -------------------------------------------------------------------------- */

static int same_value(const char *a, const char *b)
{
    /* PROTOCOL: Partition Value Serialization: an empty string is a null. */
    if (a != NULL && a[0] == '\0')
        a = NULL;
    if (b != NULL && b[0] == '\0')
        b = NULL;
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

/* 1 when every column of the read partition has the file's value. */
static int partition_matches(const dlog_map *read, const dlog_map *file_values)
{
    size_t idx;
    for (idx = 0; idx < read->n; idx++) {
        int found = 0;
        const char *value = dlog_map_get(file_values, read->items[idx].key, &found);
        if (!found || !same_value(value, read->items[idx].value))
            return 0;
    }
    return 1;
}

/* 1 when the file is in a partition the transaction read (by value or by its read
 * predicates). */
static int in_read_partitions(const delta_txn *txn, const delta_file *file)
{
    size_t idx;
    for (idx = 0; idx < txn->n_read_partitions; idx++)
        if (partition_matches(&txn->read_partitions[idx], &file->partition_values))
            return 1;
    for (idx = 0; idx < txn->n_read_preds; idx++)
        if (txn->read_preds[idx].fn(txn->snap, file, txn->read_preds[idx].payload))
            return 1;
    return 0;
}

static int reads_partitions(const delta_txn *txn)
{
    return txn->n_read_partitions > 0 || txn->n_read_preds > 0;
}

/* A winner's add seen as a file of the table, for the read predicates. */
static delta_file add_as_file(const dlog_add *add)
{
    delta_file file;
    memset(&file, 0, sizeof(file));
    file.path = add->path;
    file.partition_values = add->partition_values;
    file.size = add->size;
    file.modification_time = add->modification_time;
    file.stats = add->stats;
    file.dv = add->dv;
    return file;
}

static void describe_partition(const dlog_map *values, char *out, size_t cap)
{
    size_t idx, len = 0;
    int written;
    out[0] = '\0';
    for (idx = 0; idx < values->n && len < cap; idx++) {
        written = snprintf(out + len, cap - len, "%s%s=%s", idx ? ", " : "", values->items[idx].key,
                           values->items[idx].value ? values->items[idx].value : "null");
        if (written < 0)
            break;
        len += (size_t)written;
    }
}

static silt_status conflict(const txn_winner *w, silt_error *err, const char *exception,
                            const char *what)
{
    err_set(err, SILT_CONFLICT, "%s: %s by a concurrent update at version %lld", exception, what,
            (long long)w->version);
    if (w->operation != NULL)
        err_detail(err, "the concurrent commit was \"%s\"", w->operation);
    err_hint(err, "try the operation again");
    return SILT_CONFLICT;
}

/* The live file of the read snapshot at path, or NULL; indexes the snapshot once. */
static silt_status snapshot_file(delta_txn *txn, const char *path, const delta_file **out,
                                 silt_error *err)
{
    size_t idx;
    *out = NULL;
    if (txn->snap == NULL)
        return SILT_OK;
    if (!txn->snap_index_built) {
        for (idx = 0; idx < txn->snap->n_files; idx++)
            SILT_RETURN_IF_ERROR(hashmap_put_str(&txn->snap_index, txn->snap->files[idx].path,
                                                 &txn->snap->files[idx], err));
        txn->snap_index_built = 1;
    }
    *out = hashmap_get_str(&txn->snap_index, path);
    return SILT_OK;
}

static silt_status check_appends(const delta_txn *txn, const txn_winner *w, silt_error *err)
{
    char what[512], part[256];
    size_t idx;
    if (!txn->read_whole_table && !reads_partitions(txn))
        return SILT_OK;
    if (txn->isolation == DELTA_WRITE_SERIALIZABLE && w->is_blind_append)
        return SILT_OK;
    for (idx = 0; idx < w->n_adds; idx++) {
        const dlog_add *add = &w->adds[idx];
        delta_file file = add_as_file(add);
        if (!add->data_change)
            continue;
        if (txn->read_whole_table) {
            snprintf(what, sizeof(what), "files were added to the table (\"%s\")", add->path);
            return conflict(w, err, "ConcurrentAppendException", what);
        }
        if (in_read_partitions(txn, &file)) {
            describe_partition(&add->partition_values, part, sizeof(part));
            snprintf(what, sizeof(what), "files were added to partition [%s]", part);
            return conflict(w, err, "ConcurrentAppendException", what);
        }
    }
    return SILT_OK;
}

/* *out = 1 when this transaction read the file that rm removes. */
static silt_status was_read(delta_txn *txn, const dlog_remove *rm, int *out, silt_error *err)
{
    const delta_file *file;
    *out = 0;
    if (hashmap_get_str(&txn->read_files, rm->path) != NULL) {
        *out = 1;
        return SILT_OK;
    }
    if (!txn->read_whole_table && !reads_partitions(txn))
        return SILT_OK;
    SILT_RETURN_IF_ERROR(snapshot_file(txn, rm->path, &file, err));
    /* A file added after our snapshot was not read: ConcurrentAppend covers it. */
    *out = file != NULL && (txn->read_whole_table || in_read_partitions(txn, file));
    return SILT_OK;
}

static silt_status check_removes(delta_txn *txn, const txn_winner *w, silt_error *err)
{
    char what[512];
    size_t idx;
    int read = 0;
    for (idx = 0; idx < w->n_removes; idx++) {
        const dlog_remove *rm = &w->removes[idx];
        if (rm->data_change)
            SILT_RETURN_IF_ERROR(was_read(txn, rm, &read, err));
        if (rm->data_change && read) {
            snprintf(what, sizeof(what), "the file \"%s\" this transaction read was deleted",
                     rm->path);
            return conflict(w, err, "ConcurrentDeleteReadException", what);
        }
    }
    for (idx = 0; idx < w->n_removes; idx++) {
        const dlog_remove *rm = &w->removes[idx];
        if (hashmap_get_str(&txn->removed_paths, rm->path) != NULL) {
            snprintf(what, sizeof(what),
                     "the file \"%s\" this transaction deletes was already deleted", rm->path);
            return conflict(w, err, "ConcurrentDeleteDeleteException", what);
        }
    }
    return SILT_OK;
}

static silt_status check_app_ids(const delta_txn *txn, const txn_winner *w, silt_error *err)
{
    char what[512];
    size_t ours, theirs;
    for (ours = 0; ours < txn->n_actions; ours++) {
        const dlog_action *act = &txn->actions[ours];
        if (act->type == DLOG_TXN) {
            for (theirs = 0; theirs < w->n_txns; theirs++)
                if (strcmp(w->txns[theirs].app_id, act->u.txn.app_id) == 0) {
                    snprintf(what, sizeof(what),
                             "the transaction of application \"%s\" was committed",
                             act->u.txn.app_id);
                    return conflict(w, err, "ConcurrentTransactionException", what);
                }
        } else if (act->type == DLOG_DOMAIN_METADATA) {
            for (theirs = 0; theirs < w->n_domains; theirs++)
                if (strcmp(w->domains[theirs].domain, act->u.domain.domain) == 0) {
                    snprintf(what, sizeof(what), "the metadata of domain \"%s\" was changed",
                             act->u.domain.domain);
                    return conflict(w, err, "ConcurrentTransactionException", what);
                }
        }
    }
    return SILT_OK;
}

silt_status delta_txn_check_winner(delta_txn *txn, const txn_winner *w, silt_error *err)
{
    if (txn->snap == NULL)
        return conflict(w, err, "ProtocolChangedException",
                        "the table was created (several writers are creating it in the same "
                        "location)");
    if (w->has_protocol)
        return conflict(w, err, "ProtocolChangedException",
                        "the protocol version of the table was changed");
    if (w->has_metadata)
        return conflict(w, err, "MetadataChangedException",
                        "the metadata of the table was changed");
    SILT_RETURN_IF_ERROR(check_appends(txn, w, err));
    SILT_RETURN_IF_ERROR(check_removes(txn, w, err));
    return check_app_ids(txn, w, err);
}
