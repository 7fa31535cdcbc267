/*
 * txn_int.h - the insides of a transaction, shared by txn.c (building and
 * committing), conflict.c (checking winning commits) and commit_info.c.
 */
#ifndef SILT_DELTA_TXN_INT_H
#define SILT_DELTA_TXN_INT_H

#include "delta/txn.h"
#include "util/hashmap.h"

struct delta_txn {
    arena *arena;
    io_store *store;
    const delta_snapshot *snap; /* NULL for a new table */
    int64_t read_version;       /* -1 for a new table */
    const char *operation;
    delta_isolation isolation;
    int max_attempts;        /* 0 = no bound on the count */
    int64_t retry_timeout_ms; /* bound on the time spent retrying lost races */
    int64_t (*now_ms)(void *payload);
    void *now_payload;
    char txn_id[37];

    /* What was read. */
    int read_whole_table;
    size_t n_read_partitions, read_partitions_cap;
    dlog_map *read_partitions;
    hashmap read_files; /* path -> txn */
    size_t n_read_preds, read_preds_cap;
    struct txn_read_pred {
        delta_txn_read_fn fn;
        void *payload;
    } *read_preds;
    /* Live files of the read snapshot by path, built on the first conflict check. */
    int snap_index_built;
    hashmap snap_index; /* path -> delta_file */

    /* What is written, in order (add, remove, txn, domainMetadata). */
    size_t n_actions, actions_cap;
    dlog_action *actions;
    int has_metadata;
    dlog_metadata metadata;
    int has_protocol;
    dlog_protocol protocol;
    hashmap removed_paths; /* path -> txn */
    size_t n_params, params_cap;
    dlog_kv *params;
    size_t n_metrics, metrics_cap;
    dlog_kv *metrics;
    const char *user_metadata;
    int n_adds, n_removes_data, n_domains;
    int n_cdc; /* cdc actions: the commit carries its own change data */
    int changes_are_files; /* its add/remove files are its changes (RESTORE) */
    int committed; /* a transaction commits once */
    int maybe_committed; /* a failed commit that may have been written (outcome unknown) */
};

/* Milliseconds now, from the transaction's clock. */
int64_t delta_txn_now_ms(const delta_txn *txn);
/* isBlindAppend: only data-changing adds, nothing read, nothing removed. */
int delta_txn_is_blind_append(const delta_txn *txn);

/*
 * The commitInfo line (no newline) for a commit at version, appended to out.
 * ict_ms >= 0 adds inCommitTimestamp first.
 */
silt_status delta_txn_commit_info_json(const delta_txn *txn, int64_t ict_ms, buf *out,
                                 silt_error *err);

/* What a winning commit did, for the conflict checks. */
typedef struct txn_winner {
    arena *a;
    int64_t version;
    int has_protocol, has_metadata;
    int has_commit_info, is_blind_append;
    int has_ict;
    int64_t ict_ms;
    const char *operation;
    size_t n_adds, adds_cap;
    dlog_add *adds;
    size_t n_removes, removes_cap;
    dlog_remove *removes;
    size_t n_txns, txns_cap;
    dlog_txn *txns;
    size_t n_domains, domains_cap;
    dlog_domain_metadata *domains;
} txn_winner;

/* Reads and summarises the commit at version. SILT_NOTFOUND when it does not exist yet. */
silt_status delta_txn_read_winner(io_store *store, int64_t version, arena *a, txn_winner *out,
                            silt_error *err);
/* SILT_CONFLICT "<Exception>: ..." when the winner conflicts with txn. */
silt_status delta_txn_check_winner(delta_txn *txn, const txn_winner *winner, silt_error *err);

#endif
