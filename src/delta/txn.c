/*
 * txn.c - transactions: collecting actions and committing them with
 * optimistic concurrency.
 *
 * PROTOCOL: Delta Log Entries, Action Reconciliation, In-Commit Timestamps.
 * A commit file holds commitInfo first, then protocol and metaData when
 * they change, then the other actions in the order they were given. It is
 * written once with put-if-absent; a lost race (SILT_EXISTS) means another
 * writer holds that version, and conflict.c decides whether this commit
 * may move past it. The commit body is serialised once; only commitInfo
 * (its in-commit timestamp) is rebuilt per attempt.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "delta/txn.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "delta/log.h"
#include "delta/protocol.h"
#include "delta/txn_int.h"
#include "util/hashmap.h"
#include "util/mem.h"
#include "util/time.h"

/* The protocol and metadata the commit leaves the table with. */
static const dlog_protocol *txn_protocol(const delta_txn *txn);

static const dlog_metadata *txn_metadata(const delta_txn *txn);

/* Pauses between retries: from 1 ms, doubling to at most 100 ms, each
 * taken at random between half and the whole (so that writers who lost
 * together do not come back together). */
#define TXN_BACKOFF_FIRST_US 1000
#define TXN_BACKOFF_MAX_US 100000

int64_t delta_txn_now_ms(const delta_txn *txn)
{
    if (txn->now_ms != NULL)
        return txn->now_ms(txn->now_payload);
    return time_now_micros() / 1000;
}

static const dlog_protocol *txn_protocol(const delta_txn *txn)
{
    if (txn->has_protocol)
        return &txn->protocol;
    return txn->snap ? &txn->snap->protocol : NULL;
}

static const dlog_metadata *txn_metadata(const delta_txn *txn)
{
    if (txn->has_metadata)
        return &txn->metadata;
    return txn->snap ? &txn->snap->metadata : NULL;
}

int delta_txn_is_blind_append(const delta_txn *txn)
{
    size_t idx;
    if (txn->read_whole_table || txn->n_read_partitions > 0 || txn->read_files.count > 0 ||
        txn->n_read_preds > 0)
        return 0;
    for (idx = 0; idx < txn->n_actions; idx++) {
        const dlog_action *act = &txn->actions[idx];
        if (act->type == DLOG_REMOVE || (act->type == DLOG_ADD && !act->u.add.data_change))
            return 0;
    }
    return txn->n_adds > 0;
}

silt_status delta_txn_begin(delta_txn **out, io_store *table_store,
                            const delta_snapshot *read_snapshot, const char *operation,
                            silt_error *err)
{
    delta_txn *txn;
    silt_status rc;
    *out = NULL;
    if (read_snapshot != NULL)
        SILT_RETURN_IF_ERROR(
            delta_check_writable(&read_snapshot->protocol, &read_snapshot->metadata, 0, err));
    txn = mem_calloc(1, sizeof(*txn));
    if (txn == NULL)
        return err_nomem(err);
    txn->arena = arena_new(NULL, "delta txn");
    txn->store = table_store;
    txn->snap = read_snapshot;
    txn->read_version = read_snapshot ? read_snapshot->version : -1;
    txn->max_attempts = 0;
    txn->retry_timeout_ms = DELTA_TXN_DEFAULT_RETRY_TIMEOUT_MS;
    txn->operation = txn->arena ? arena_strdup(txn->arena, operation) : NULL;
    if (txn->operation == NULL) {
        delta_txn_free(txn);
        return err_nomem(err);
    }
    rc = delta_uuid_v4(txn->txn_id, err);
    if (rc != SILT_OK) {
        delta_txn_free(txn);
        return rc;
    }
    *out = txn;
    return SILT_OK;
}

void delta_txn_free(delta_txn *txn)
{
    if (txn == NULL)
        return;
    hashmap_clear(&txn->read_files);
    hashmap_clear(&txn->removed_paths);
    hashmap_clear(&txn->snap_index);
    arena_free(txn->arena);
    mem_free(txn);
}

int64_t delta_txn_read_version(const delta_txn *txn) { return txn->read_version; }
void delta_txn_set_isolation(delta_txn *txn, delta_isolation level) { txn->isolation = level; }

void delta_txn_set_max_attempts(delta_txn *txn, int attempts)
{
    txn->max_attempts = attempts < 1 ? 1 : attempts;
}

void delta_txn_set_retry_timeout_ms(delta_txn *txn, int64_t timeout_ms)
{
    txn->retry_timeout_ms = timeout_ms < 1 ? 1 : timeout_ms;
}

void delta_txn_set_changes_are_files(delta_txn *txn) { txn->changes_are_files = 1; }

void delta_txn_set_clock(delta_txn *txn, int64_t (*now_ms)(void *payload), void *payload)
{
    txn->now_ms = now_ms;
    txn->now_payload = payload;
}

/* ---- copying into the transaction's arena ------------------------------------------------ */

static silt_status grow(delta_txn *txn, void **items, size_t *cap, size_t count, size_t elem,
                        silt_error *err)
{
    size_t new_cap;
    void *grown;
    if (count < *cap)
        return SILT_OK;
    new_cap = *cap ? *cap * 2 : 16;
    grown = arena_realloc(txn->arena, *items, *cap * elem, new_cap * elem);
    if (grown == NULL)
        return err_nomem(err);
    *items = grown;
    *cap = new_cap;
    return SILT_OK;
}

static silt_status copy_str(delta_txn *txn, const char *src, const char **dst, silt_error *err)
{
    *dst = NULL;
    if (src == NULL)
        return SILT_OK;
    *dst = arena_strdup(txn->arena, src);
    return *dst ? SILT_OK : err_nomem(err);
}

static silt_status copy_strs(delta_txn *txn, size_t n, const char *const *src, const char ***dst,
                             silt_error *err)
{
    size_t idx;
    *dst = arena_calloc(txn->arena, n + 1, sizeof(char *));
    if (*dst == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++)
        SILT_RETURN_IF_ERROR(copy_str(txn, src[idx], &(*dst)[idx], err));
    return SILT_OK;
}

static silt_status push_action(delta_txn *txn, dlog_action **out, dlog_action_type type,
                               silt_error *err)
{
    SILT_RETURN_IF_ERROR(grow(txn, (void **)&txn->actions, &txn->actions_cap, txn->n_actions,
                              sizeof(dlog_action), err));
    *out = &txn->actions[txn->n_actions++];
    memset(*out, 0, sizeof(**out));
    (*out)->type = type;
    return SILT_OK;
}

/* ---- reads ------------------------------------------------------------------------------- */

silt_status delta_txn_read_whole_table(delta_txn *txn, silt_error *err)
{
    (void)err;
    txn->read_whole_table = 1;
    return SILT_OK;
}

silt_status delta_txn_read_partition(delta_txn *txn, const dlog_map *partition_values,
                                     silt_error *err)
{
    SILT_RETURN_IF_ERROR(grow(txn, (void **)&txn->read_partitions, &txn->read_partitions_cap,
                              txn->n_read_partitions, sizeof(dlog_map), err));
    SILT_RETURN_IF_ERROR(
        dlog_map_copy(txn->arena, partition_values, &txn->read_partitions[txn->n_read_partitions], err));
    txn->n_read_partitions++;
    return SILT_OK;
}

silt_status delta_txn_read_predicate(delta_txn *txn, delta_txn_read_fn fn, void *payload,
                                     silt_error *err)
{
    SILT_RETURN_IF_ERROR(grow(txn, (void **)&txn->read_preds, &txn->read_preds_cap,
                              txn->n_read_preds, sizeof(*txn->read_preds), err));
    txn->read_preds[txn->n_read_preds].fn = fn;
    txn->read_preds[txn->n_read_preds].payload = payload;
    txn->n_read_preds++;
    return SILT_OK;
}

silt_status delta_txn_read_file(delta_txn *txn, const char *path, silt_error *err)
{
    return hashmap_put_str(&txn->read_files, path, txn, err);
}

/* ---- writes ------------------------------------------------------------------------------ */

silt_status delta_txn_add_file(delta_txn *txn, const dlog_add *add, silt_error *err)
{
    dlog_action *act;
    dlog_add *dst;
    SILT_RETURN_IF_ERROR(push_action(txn, &act, DLOG_ADD, err));
    dst = &act->u.add;
    SILT_RETURN_IF_ERROR(dlog_add_copy(txn->arena, add, dst, err));
    txn->n_adds++;
    return SILT_OK;
}

silt_status delta_txn_add_cdc(delta_txn *txn, const dlog_cdc *cdc, silt_error *err)
{
    dlog_action *act;
    dlog_cdc *dst;
    SILT_RETURN_IF_ERROR(push_action(txn, &act, DLOG_CDC, err));
    dst = &act->u.cdc;
    *dst = *cdc;
    dst->path = arena_strdup(txn->arena, cdc->path);
    dst->raw_path = NULL;
    dst->data_change = 0; /* PROTOCOL: Add CDC File, dataChange is always false */
    memset(&dst->tags, 0, sizeof(dst->tags));
    if (dst->path == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(
        dlog_map_copy(txn->arena, &cdc->partition_values, &dst->partition_values, err));
    txn->n_cdc++;
    return SILT_OK;
}

silt_status delta_txn_remove(delta_txn *txn, const dlog_remove *rm, silt_error *err)
{
    dlog_action *act;
    dlog_remove *dst;
    SILT_RETURN_IF_ERROR(push_action(txn, &act, DLOG_REMOVE, err));
    dst = &act->u.remove;
    SILT_RETURN_IF_ERROR(dlog_remove_copy(txn->arena, rm, dst, err));
    if (!dst->has_deletion_timestamp || dst->deletion_timestamp == 0) {
        dst->has_deletion_timestamp = 1;
        dst->deletion_timestamp = delta_txn_now_ms(txn);
    }
    if (rm->data_change)
        txn->n_removes_data++;
    return hashmap_put_str(&txn->removed_paths, rm->path, txn, err);
}

silt_status delta_txn_remove_file(delta_txn *txn, const delta_file *file, int data_change,
                                  silt_error *err)
{
    dlog_remove rm;
    memset(&rm, 0, sizeof(rm));
    rm.path = file->path;
    rm.has_deletion_timestamp = 1;
    rm.deletion_timestamp = delta_txn_now_ms(txn);
    rm.data_change = data_change;
    rm.extended_file_metadata = 1;
    rm.partition_values = file->partition_values;
    rm.has_size = 1;
    rm.size = file->size;
    rm.stats = file->stats;
    rm.dv = file->dv;
    rm.has_base_row_id = file->has_base_row_id;
    rm.base_row_id = file->base_row_id;
    rm.has_default_row_commit_version = file->has_default_row_commit_version;
    rm.default_row_commit_version = file->default_row_commit_version;
    return delta_txn_remove(txn, &rm, err);
}

silt_status delta_txn_set_metadata(delta_txn *txn, const dlog_metadata *md, silt_error *err)
{
    dlog_metadata *dst = &txn->metadata;
    *dst = *md;
    SILT_RETURN_IF_ERROR(copy_str(txn, md->id, &dst->id, err));
    SILT_RETURN_IF_ERROR(copy_str(txn, md->name, &dst->name, err));
    SILT_RETURN_IF_ERROR(copy_str(txn, md->description, &dst->description, err));
    SILT_RETURN_IF_ERROR(copy_str(txn, md->format_provider, &dst->format_provider, err));
    SILT_RETURN_IF_ERROR(dlog_map_copy(txn->arena, &md->format_options, &dst->format_options, err));
    SILT_RETURN_IF_ERROR(copy_str(txn, md->schema_string, &dst->schema_string, err));
    SILT_RETURN_IF_ERROR(copy_strs(txn, md->n_partition_columns, md->partition_columns,
                                   &dst->partition_columns, err));
    SILT_RETURN_IF_ERROR(dlog_map_copy(txn->arena, &md->configuration, &dst->configuration, err));
    if (md->id == NULL || md->schema_string == NULL)
        return err_set(err, SILT_INVALID, "a metaData action needs an id and a schema string");
    /* The schema is re-parsed so that it lives as long as the transaction. */
    SILT_RETURN_IF_ERROR(dlog_parse_schema(&dst->schema, txn->arena, dst->schema_string, err));
    SILT_RETURN_IF_ERROR(dlog_metadata_check(dst, SILT_INVALID, err));
    txn->has_metadata = 1;
    return SILT_OK;
}

silt_status delta_txn_set_protocol(delta_txn *txn, const dlog_protocol *p, silt_error *err)
{
    dlog_protocol *dst = &txn->protocol;
    *dst = *p;
    SILT_RETURN_IF_ERROR(copy_strs(txn, p->n_reader_features, p->reader_features,
                                   &dst->reader_features, err));
    SILT_RETURN_IF_ERROR(copy_strs(txn, p->n_writer_features, p->writer_features,
                                   &dst->writer_features, err));
    txn->has_protocol = 1;
    return SILT_OK;
}

silt_status delta_txn_set_app_txn(delta_txn *txn, const char *app_id, int64_t version,
                                  silt_error *err)
{
    dlog_action *act;
    size_t idx;
    for (idx = 0; idx < txn->n_actions; idx++)
        if (txn->actions[idx].type == DLOG_TXN &&
            strcmp(txn->actions[idx].u.txn.app_id, app_id) == 0)
            return err_set(err, SILT_INVALID,
                           "a commit can carry one transaction identifier per application, and "
                           "\"%s\" already has one",
                           app_id);
    SILT_RETURN_IF_ERROR(push_action(txn, &act, DLOG_TXN, err));
    act->u.txn.version = version;
    act->u.txn.has_last_updated = 1;
    act->u.txn.last_updated = delta_txn_now_ms(txn);
    return copy_str(txn, app_id, &act->u.txn.app_id, err);
}

silt_status delta_txn_set_domain(delta_txn *txn, const char *domain, const char *configuration,
                                 int removed, silt_error *err)
{
    dlog_action *act;
    SILT_RETURN_IF_ERROR(push_action(txn, &act, DLOG_DOMAIN_METADATA, err));
    act->u.domain.removed = removed;
    SILT_RETURN_IF_ERROR(copy_str(txn, domain, &act->u.domain.domain, err));
    SILT_RETURN_IF_ERROR(copy_str(txn, configuration ? configuration : "",
                                  &act->u.domain.configuration, err));
    txn->n_domains++;
    return SILT_OK;
}

static silt_status put_kv(delta_txn *txn, dlog_kv **items, size_t *n, size_t *cap,
                          const char *key, const char *value, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < *n; idx++)
        if (strcmp((*items)[idx].key, key) == 0)
            return copy_str(txn, value, &(*items)[idx].value, err);
    SILT_RETURN_IF_ERROR(grow(txn, (void **)items, cap, *n, sizeof(dlog_kv), err));
    SILT_RETURN_IF_ERROR(copy_str(txn, key, &(*items)[*n].key, err));
    SILT_RETURN_IF_ERROR(copy_str(txn, value, &(*items)[*n].value, err));
    (*n)++;
    return SILT_OK;
}

silt_status delta_txn_set_param(delta_txn *txn, const char *key, const char *value,
                                silt_error *err)
{
    return put_kv(txn, &txn->params, &txn->n_params, &txn->params_cap, key, value, err);
}

silt_status delta_txn_set_metric(delta_txn *txn, const char *key, int64_t value, silt_error *err)
{
    char text[32];
    snprintf(text, sizeof(text), "%lld", (long long)value);
    return put_kv(txn, &txn->metrics, &txn->n_metrics, &txn->metrics_cap, key, text, err);
}

silt_status delta_txn_set_user_metadata(delta_txn *txn, const char *text, silt_error *err)
{
    return copy_str(txn, text, &txn->user_metadata, err);
}

/* ---- commit ------------------------------------------------------------------------------ */

static int ict_enabled_in(const dlog_metadata *md)
{
    const char *value = dlog_map_get(&md->configuration, "delta.enableInCommitTimestamps", NULL);
    return value != NULL && util_str_casecmp(value, "true") == 0;
}

/* Checks what must hold before anything is written, and derives a new table's protocol. */
static silt_status prepare(delta_txn *txn, silt_error *err)
{
    const dlog_protocol *protocol;
    if (txn->snap == NULL && !txn->has_metadata)
        return err_set(err, SILT_INVALID,
                       "cannot create a table without its metadata (schema and partitioning)");
    if (txn->snap == NULL && !txn->has_protocol) {
        dlog_protocol derived;
        SILT_RETURN_IF_ERROR(delta_protocol_for_new_table(&txn->metadata, txn->n_domains > 0,
                                                          txn->arena, &derived, err));
        SILT_RETURN_IF_ERROR(delta_txn_set_protocol(txn, &derived, err));
    }
    if (txn->snap != NULL && txn->has_metadata && !ict_enabled_in(&txn->snap->metadata) &&
        ict_enabled_in(&txn->metadata))
        /* PROTOCOL: In-Commit Timestamps: enabling them later needs the enablement version and
         * timestamp properties, which depend on the version the commit lands at. */
        return err_set(err, SILT_UNSUPPORTED,
                       "cannot enable in-commit timestamps on an existing table: silt turns them "
                       "on only when it creates a table");
    protocol = txn_protocol(txn);
    SILT_RETURN_IF_ERROR(
        delta_check_writable(protocol, txn_metadata(txn),
                             txn->n_removes_data == 0 ? 0
                             : txn->n_cdc > 0 || txn->changes_are_files ? DELTA_REMOVES_WITH_CDC
                                                     : 1,
                             err));
    if (txn->has_metadata || txn->has_protocol || txn->n_domains > 0)
        SILT_RETURN_IF_ERROR(delta_check_protocol_covers(protocol, txn_metadata(txn),
                                                         txn->n_domains > 0, err));
    return SILT_OK;
}

/* protocol, metaData and the other actions, one line each, each ending in '\n'. */
static silt_status serialise_body(const delta_txn *txn, buf *out, silt_error *err)
{
    dlog_action act;
    size_t idx;
    if (txn->has_protocol) {
        act.type = DLOG_PROTOCOL;
        act.u.protocol = txn->protocol;
        SILT_RETURN_IF_ERROR(dlog_action_to_json(&act, out, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, '\n', err));
    }
    if (txn->has_metadata) {
        act.type = DLOG_METADATA;
        act.u.metadata = txn->metadata;
        SILT_RETURN_IF_ERROR(dlog_action_to_json(&act, out, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, '\n', err));
    }
    for (idx = 0; idx < txn->n_actions; idx++) {
        SILT_RETURN_IF_ERROR(dlog_action_to_json(&txn->actions[idx], out, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, '\n', err));
    }
    return SILT_OK;
}

static int ict_enabled(const delta_txn *txn)
{
    const dlog_metadata *md = txn_metadata(txn);
    return md != NULL && ict_enabled_in(md) &&
           dproto_has_feature(txn_protocol(txn), "inCommitTimestamp", 1);
}

/*
 * Checks the commits from `from` on until the first missing one. *next_out
 * is the first free version seen. SILT_CONFLICT when one conflicts.
 */
static silt_status check_winners(delta_txn *txn, int64_t from, int64_t *next_out,
                                 int64_t *last_ict_ms, int64_t *n_checked, silt_error *err)
{
    arena *scratch = arena_new(txn->arena, "winning commit");
    txn_winner winner;
    int64_t version = from;
    silt_status rc = SILT_OK;
    if (scratch == NULL)
        return err_nomem(err);
    for (;; version++) {
        arena_reset(scratch);
        rc = delta_txn_read_winner(txn->store, version, scratch, &winner, err);
        if (rc == SILT_NOTFOUND) {
            err_clear(err);
            rc = SILT_OK;
            break;
        }
        if (rc != SILT_OK) {
            err_context(err, "while checking the concurrent commit %lld", (long long)version);
            break;
        }
        if (winner.has_ict)
            *last_ict_ms = winner.ict_ms;
        (*n_checked)++;
        rc = delta_txn_check_winner(txn, &winner, err);
        if (rc != SILT_OK)
            break;
    }
    *next_out = version;
    arena_free(scratch);
    return rc;
}

/*
 * A put-if-absent that failed with something other than SILT_EXISTS may
 * still have published the object (a timeout, or a failure after link()).
 * When the commit file now holds this transaction's txnId, the commit
 * happened. Otherwise the original error stands, with a hint that the
 * outcome is unknown when the file could not be read back.
 */
static silt_status verify_outcome(delta_txn *txn, const char *key, silt_status rc, silt_error *err)
{
    buf data = BUF_INIT;
    silt_error read_err = SILT_ERROR_INIT;
    silt_status read_rc = io_get(txn->store, key, &data, &read_err);
    if (read_rc == SILT_OK && data.data != NULL && strstr(data.data, txn->txn_id) != NULL) {
        err_clear(err);
        rc = SILT_OK;
    } else if (read_rc != SILT_OK && read_rc != SILT_NOTFOUND) {
        err_hint(err, "the commit may have been written: look for txnId \"%s\" in \"%s\"",
                 txn->txn_id, key);
    }
    buf_clear(&data);
    return rc;
}

/*
 * The commit file of `version` is published but the store could not make it
 * durable (the fsync of _delta_log/ failed after link()). The statement is
 * not acknowledged: SILT_DURABILITY_UNKNOWN says the commit is visible now
 * and may stand or be lost by a crash, so the caller neither reports it
 * done nor repeats it blindly (an INSERT run again would add its rows
 * twice). res->version names the version; nothing written is removed, as
 * the commit references it. The next open reads whatever the log holds.
 */
static silt_status durability_unknown(delta_txn *txn, int64_t version, delta_commit_result *res,
                                      silt_error *err)
{
    char inner[SILT_ERROR_MESSAGE_MAX];
    snprintf(inner, sizeof(inner), "%s", err != NULL ? err->message : "");
    res->version = version;
    txn->committed = 1;
    err_set(err, SILT_DURABILITY_UNKNOWN, "the commit of version %lld is visible but its "
            "durability is unknown: %s", (long long)version, inner);
    err_hint(err, "the commit may be lost if the machine crashes; check DESCRIBE HISTORY (txnId "
             "\"%s\") before running the statement again", txn->txn_id);
    return SILT_DURABILITY_UNKNOWN;
}

/*
 * A snapshot so old that log cleanup removed the commits after it would
 * let put-if-absent "win" a version that existed once: cleanup deletes
 * oldest first, so when neither the commit nor a classic checkpoint of the
 * read version is left, the log has moved past this transaction.
 */
static silt_status check_read_version_kept(delta_txn *txn, silt_error *err)
{
    io_object_info info;
    char key[80];
    silt_status rc;
    if (txn->read_version < 0)
        return SILT_OK;
    delta_commit_key(txn->read_version, key, sizeof(key));
    rc = io_head(txn->store, key, &info, err);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        snprintf(key, sizeof(key), DLOG_DIR "%020lld.checkpoint.parquet",
                 (long long)txn->read_version);
        rc = io_head(txn->store, key, &info, err);
    }
    if (rc == SILT_OK)
        io_object_info_clear(&info);
    else if (rc == SILT_NOTFOUND)
        rc = err_set(err, SILT_CONFLICT,
                     "could not commit: version %lld that this transaction read is no longer in "
                     "the log (it was cleaned up)",
                     (long long)txn->read_version);
    return rc;
}

/*
 * Sleeps before retry `attempt` + 1. The first retry goes at once (the
 * winner's version is read and the next free version is known); later ones
 * wait a randomised, doubling pause: with many writers on one table every
 * loser otherwise comes back at the same instant and most lose again.
 */
static void backoff(delta_txn *txn, int attempt, int64_t *pause_us)
{
    uint64_t seed;
    struct timespec ts;
    int64_t us;
    if (attempt < 2)
        return;
    *pause_us = *pause_us == 0 ? TXN_BACKOFF_FIRST_US : *pause_us * 2;
    if (*pause_us > TXN_BACKOFF_MAX_US)
        *pause_us = TXN_BACKOFF_MAX_US;
    seed = util_hash_bytes(txn->txn_id, strlen(txn->txn_id), (uint64_t)attempt);
    us = *pause_us / 2 + (int64_t)(seed % (uint64_t)(*pause_us / 2 + 1));
    ts.tv_sec = (time_t)(us / 1000000);
    ts.tv_nsec = (long)(us % 1000000) * 1000;
    nanosleep(&ts, NULL);
}

/* Attempts put-if-absent at successive versions until one is won or a conflict shows. */
static silt_status commit_loop(delta_txn *txn, const buf *body, delta_commit_result *res,
                               silt_error *err)
{
    buf file = BUF_INIT;
    int64_t version = txn->read_version + 1;
    int64_t last_ict = -1;
    char key[64];
    silt_status rc = SILT_OK;
    int use_ict = ict_enabled(txn);
    int64_t started_ns = time_monotonic_nanos(), backoff_us = 0;

    if (use_ict && txn->snap != NULL && txn->snap->timestamp_is_in_commit)
        last_ict = txn->snap->timestamp_ms;
    for (res->attempts = 1;; res->attempts++) {
        int64_t ict = -1, next = -1;
        if (use_ict) {
            /* PROTOCOL: In-Commit Timestamps: strictly above the previous commit's. */
            ict = delta_txn_now_ms(txn);
            if (ict <= last_ict)
                ict = last_ict + 1;
        }
        buf_truncate(&file, 0);
        rc = delta_txn_commit_info_json(txn, ict, &file, err);
        if (rc == SILT_OK)
            rc = buf_append_char(&file, '\n', err);
        if (rc == SILT_OK)
            rc = buf_append(&file, body->data, body->len, err);
        if (rc != SILT_OK)
            break;
        delta_commit_key(version, key, sizeof(key));
        rc = io_put_if_absent(txn->store, key, file.data, file.len, err);
        if (rc == SILT_DURABILITY_UNKNOWN) {
            /* Visible, so not to be retried as a lost race; not durable, so
             * not to be acknowledged either. */
            rc = durability_unknown(txn, version, res, err);
            break;
        }
        if (rc != SILT_OK && rc != SILT_EXISTS)
            rc = verify_outcome(txn, key, rc, err);
        if (rc != SILT_EXISTS)
            break;
        err_clear(err);
        rc = check_winners(txn, version, &next, &last_ict, &res->n_winning_commits, err);
        if (rc != SILT_OK)
            break;
        if (txn->max_attempts > 0 && res->attempts >= txn->max_attempts) {
            rc = err_set(err, SILT_CONFLICT,
                         "could not commit to the table after %d attempts: version %lld was "
                         "taken by another writer each time",
                         res->attempts, (long long)version);
            break;
        }
        if (time_monotonic_nanos() - started_ns >= txn->retry_timeout_ms * 1000000) {
            rc = err_set(err, SILT_CONFLICT,
                         "could not commit to the table within %lld ms: another writer took "
                         "the version each time (%d attempts, last version %lld)",
                         (long long)txn->retry_timeout_ms, res->attempts, (long long)version);
            err_hint(err, "SET silt.commit.retryTimeout to wait longer");
            break;
        }
        backoff(txn, res->attempts, &backoff_us);
        version = next;
    }
    if (rc == SILT_OK)
        res->version = version;
    buf_clear(&file);
    return rc;
}

/* 1 when the table's protocol (after this commit) supports v2Checkpoint. */
static int txn_writes_no_checkpoints(const delta_txn *txn)
{
    const dlog_protocol *p = txn_protocol(txn);
    return p != NULL && p->min_writer_version >= 7 && dproto_has_feature(p, "v2Checkpoint", 1);
}

/* delta.checkpointInterval of md, 10 when absent or not a positive integer (as Delta). */
static int64_t checkpoint_interval(const dlog_metadata *md)
{
    const char *text =
        md ? dlog_map_get(&md->configuration, "delta.checkpointInterval", NULL) : NULL;
    int64_t interval = 10;
    if (text != NULL && (!util_str_to_int64(text, strlen(text), &interval) || interval <= 0))
        interval = 10;
    return interval;
}

/*
 * A checkpoint that could not be written (or whose writer died) is seen by
 * the next commit: the newest version due one is past the checkpoint the
 * read snapshot started from. That commit records the version in its
 * operationMetrics (checkpointMissingVersion), so DESCRIBE HISTORY shows
 * it, as the failing commit itself is already written when its checkpoint
 * fails. A reader is unaffected (it replays the commits instead).
 */
static silt_status note_missing_checkpoint(delta_txn *txn, silt_error *err)
{
    int64_t interval, due;
    if (txn->snap == NULL || txn_writes_no_checkpoints(txn))
        return SILT_OK;
    interval = checkpoint_interval(&txn->snap->metadata);
    due = txn->read_version - txn->read_version % interval;
    if (due <= 0 || txn->snap->checkpoint_version >= due || txn->snap->skipped_checkpoint_version >= due)
        return SILT_OK;
    return delta_txn_set_metric(txn, "checkpointMissingVersion", due, err);
}

/* After the commit: a checkpoint every delta.checkpointInterval versions, then log cleanup. */
static void maybe_checkpoint(delta_txn *txn, delta_commit_result *res)
{
    const dlog_metadata *md = txn_metadata(txn);
    const char *text;
    int64_t interval = checkpoint_interval(md), retention = INT64_C(30) * 86400000;
    delta_snapshot *snap = NULL;
    silt_error cp_err = SILT_ERROR_INIT;
    arena *scratch;
    silt_status rc;

    if (res->version == 0 || res->version % interval != 0)
        return;
    /* PROTOCOL: V2 Checkpoint Table Feature. Such a table must only get V2
     * checkpoints, which silt does not write; a checkpoint is optional. */
    if (txn_writes_no_checkpoints(txn))
        return;
    res->checkpoint_attempted = 1;
    scratch = arena_new(NULL, "checkpoint");
    rc = scratch ? delta_snapshot_load(&snap, txn->store, res->version, &cp_err)
                 : err_nomem(&cp_err);
    if (rc == SILT_OK)
        rc = delta_checkpoint_write(txn->store, snap, scratch, &cp_err);
    text = dlog_map_get(&md->configuration, "delta.enableExpiredLogCleanup", NULL);
    if (rc == SILT_OK && (text == NULL || util_str_casecmp(text, "false") != 0)) {
        text = dlog_map_get(&md->configuration, "delta.logRetentionDuration", NULL);
        if (text != NULL && delta_parse_interval_ms(text, &retention, &cp_err) != SILT_OK) {
            err_clear(&cp_err);
            retention = INT64_C(30) * 86400000;
        }
        rc = delta_log_cleanup(txn->store, retention, delta_txn_now_ms(txn), &res->n_log_files_deleted,
                               &cp_err);
    }
    res->checkpoint_status = rc;
    snprintf(res->checkpoint_message, sizeof(res->checkpoint_message), "%s",
             rc == SILT_OK ? "" : cp_err.message);
    if (rc != SILT_OK)
        /* The commit stands and readers replay the commits instead, so this is
         * no error; but a checkpoint that keeps failing makes every load slower
         * and blocks log cleanup, so it must not go unseen (Spark logs it). */
        fprintf(stderr, "silt: warning: version %lld was committed, but its checkpoint could "
                "not be written: %s\n", (long long)res->version, cp_err.message);
    delta_snapshot_free(snap);
    arena_free(scratch);
}

silt_status delta_txn_commit(delta_txn *txn, delta_commit_result *result, silt_error *err)
{
    delta_commit_result local;
    buf body = BUF_INIT;
    silt_status rc;
    delta_commit_result *res = result ? result : &local;

    memset(res, 0, sizeof(*res));
    res->version = -1;
    if (txn->committed)
        return err_set(err, SILT_INVALID, "the transaction was already committed");
    rc = prepare(txn, err);
    if (rc == SILT_OK)
        rc = note_missing_checkpoint(txn, err);
    if (rc == SILT_OK)
        rc = serialise_body(txn, &body, err);
    if (rc == SILT_OK)
        rc = check_read_version_kept(txn, err);
    if (rc == SILT_OK)
        rc = commit_loop(txn, &body, res, err);
    buf_clear(&body);
    if (rc != SILT_OK)
        return rc;
    txn->committed = 1;
    maybe_checkpoint(txn, res);
    return SILT_OK;
}
