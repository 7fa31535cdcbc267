/*
 * snapshot.c - log replay: from a log segment to a snapshot.
 *
 * PROTOCOL: Action Reconciliation. The segment is replayed newest-first
 * (commits from the snapshot version down, then the checkpoint), so the
 * first reference seen for a logical file is the one that counts:
 *
 *   seen      keys "path\0dvId" (any add or remove seen) and "path" (a live
 *             add for that path was kept): an older add for the same path
 *             with another DV is superseded, as the protocol keeps the
 *             newest (path, dvId) pair per path.
 *   in_commit keys "path\0dvId" seen in the commit being replayed: within
 *             one commit the actions apply in file order (Delta's
 *             InMemoryLogReplay), so remove(P) then add(P) keeps P (a
 *             deletion-vector update rewrites one path so) and add(P) then
 *             remove(P) drops it; the later action overrides the earlier.
 *
 * Each commit is parsed into a scratch arena that is reset after the
 * commit; what survives is copied into the snapshot's arena, with partition
 * values interned.
 */
#include "delta/snapshot.h"

#include <stdio.h>
#include <string.h>

#include "delta/log.h"
#include "delta/partition.h"
#include "delta/protocol.h"
#include "util/hashmap.h"
#include "util/mem.h"
#include "util/time.h"

/* Largest commit or JSON checkpoint file silt reads into memory at once. */
#define COMMIT_MAX_BYTES ((size_t)1 << 31)

typedef struct replay {
    delta_snapshot *snap;
    hashmap seen;
    hashmap in_commit; /* key -> IN_COMMIT_REMOVE or file index + 1 */
    size_t commit_first_file;
    hashmap interned;
    hashmap txn_seen;
    hashmap domain_seen;
    buf key;
    int have_protocol;
    int have_metadata;
    size_t files_cap;
    size_t txns_cap;
    size_t domains_cap;
    int in_checkpoint;
    int64_t commit_version;
    /* Sidecars named by a V2 checkpoint, read after its top-level file. */
    size_t n_sidecars;
    size_t sidecars_cap;
    char **sidecars;
    int needs_parquet;
} replay;

static void replay_clear(replay *r)
{
    size_t idx;
    hashmap_clear(&r->seen);
    hashmap_clear(&r->in_commit);
    hashmap_clear(&r->interned);
    hashmap_clear(&r->txn_seen);
    hashmap_clear(&r->domain_seen);
    buf_clear(&r->key);
    for (idx = 0; idx < r->n_sidecars; idx++)
        mem_free(r->sidecars[idx]);
    mem_free(r->sidecars);
}

void delta_snapshot_free(delta_snapshot *snap)
{
    if (snap == NULL)
        return;
    mem_free(snap->files);
    mem_free(snap->txns);
    mem_free(snap->domains);
    arena_free(snap->arena);
    mem_free(snap);
}

const char *delta_snapshot_property(const delta_snapshot *snap, const char *key)
{
    return dlog_map_get(&snap->metadata.configuration, key, NULL);
}

silt_status delta_snapshot_partition_value(const delta_snapshot *snap, const delta_file *file,
                                           const char *column, arena *a, delta_value *out,
                                           silt_error *err)
{
    size_t idx, col;
    dproto_mapping_mode mode;
    const char *physical = NULL;
    for (idx = 0; idx < snap->metadata.n_partition_columns; idx++) {
        if (strcmp(snap->metadata.partition_columns[idx], column) != 0)
            continue;
        for (col = 0; col < snap->schema->n_fields; col++) {
            const col_field *field = &snap->schema->fields[col];
            if (strcmp(field->name, column) != 0)
                continue;
            SILT_RETURN_IF_ERROR(dproto_get_mapping_mode(&snap->metadata, &mode, err));
            SILT_RETURN_IF_ERROR(dproto_physical_name(field, mode, a, &physical, err));
            return delta_value_parse(out, field->type,
                                     dlog_map_get(&file->partition_values, physical, NULL),
                                     column, err);
        }
        return err_set(err, SILT_CORRUPT, "partition column \"%s\" is not in the table schema",
                       column);
    }
    return err_set(err, SILT_BIND, "column \"%s\" is not a partition column of the table", column);
}

/* Grows a mem_alloc'd array to hold one more element. */
static silt_status grow(void **items, size_t *cap, size_t count, size_t elem_size, silt_error *err)
{
    size_t new_cap, bytes;
    void *grown;
    if (count < *cap)
        return SILT_OK;
    new_cap = *cap ? *cap * 2 : 16;
    if (!mem_mul_ok(new_cap, elem_size, &bytes))
        return err_nomem(err);
    grown = mem_realloc(*items, bytes);
    if (grown == NULL)
        return err_nomem(err);
    *items = grown;
    *cap = new_cap;
    return SILT_OK;
}

/* ---- copying into the snapshot arena ---------------------------------------------------- */

static silt_status intern(replay *r, const char *s, const char **out, silt_error *err)
{
    char *copy;
    if (s == NULL) {
        *out = NULL;
        return SILT_OK;
    }
    copy = hashmap_get_str(&r->interned, s);
    if (copy == NULL) {
        copy = arena_strdup(r->snap->arena, s);
        if (copy == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(hashmap_put_str(&r->interned, copy, copy, err));
    }
    *out = copy;
    return SILT_OK;
}

static silt_status copy_map(replay *r, const dlog_map *src, dlog_map *dst, int interned,
                            silt_error *err)
{
    size_t idx;
    dst->n = 0;
    dst->items = NULL;
    if (src->n == 0)
        return SILT_OK;
    dst->items = arena_calloc(r->snap->arena, src->n, sizeof(dlog_kv));
    if (dst->items == NULL)
        return err_nomem(err);
    for (idx = 0; idx < src->n; idx++) {
        if (interned) {
            SILT_RETURN_IF_ERROR(intern(r, src->items[idx].key, &dst->items[idx].key, err));
            SILT_RETURN_IF_ERROR(intern(r, src->items[idx].value, &dst->items[idx].value, err));
        } else {
            dst->items[idx].key = arena_strdup(r->snap->arena, src->items[idx].key);
            dst->items[idx].value = src->items[idx].value
                                        ? arena_strdup(r->snap->arena, src->items[idx].value)
                                        : NULL;
            if (dst->items[idx].key == NULL ||
                (src->items[idx].value != NULL && dst->items[idx].value == NULL))
                return err_nomem(err);
        }
        dst->n++;
    }
    return SILT_OK;
}

static silt_status copy_str(replay *r, const char *src, const char **dst, silt_error *err)
{
    *dst = NULL;
    if (src == NULL)
        return SILT_OK;
    *dst = arena_strdup(r->snap->arena, src);
    return *dst ? SILT_OK : err_nomem(err);
}

static silt_status copy_strs(replay *r, size_t n, const char **src, const char ***dst,
                             silt_error *err)
{
    size_t idx;
    *dst = arena_calloc(r->snap->arena, n ? n : 1, sizeof(char *));
    if (*dst == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++)
        SILT_RETURN_IF_ERROR(copy_str(r, src[idx], &(*dst)[idx], err));
    return SILT_OK;
}

static silt_status keep_metadata(replay *r, const dlog_metadata *src, silt_error *err)
{
    dlog_metadata *dst = &r->snap->metadata;
    *dst = *src;
    SILT_RETURN_IF_ERROR(copy_str(r, src->id, &dst->id, err));
    SILT_RETURN_IF_ERROR(copy_str(r, src->name, &dst->name, err));
    SILT_RETURN_IF_ERROR(copy_str(r, src->description, &dst->description, err));
    SILT_RETURN_IF_ERROR(copy_str(r, src->format_provider, &dst->format_provider, err));
    SILT_RETURN_IF_ERROR(copy_map(r, &src->format_options, &dst->format_options, 0, err));
    SILT_RETURN_IF_ERROR(copy_str(r, src->schema_string, &dst->schema_string, err));
    SILT_RETURN_IF_ERROR(copy_strs(r, src->n_partition_columns, src->partition_columns,
                                   &dst->partition_columns, err));
    SILT_RETURN_IF_ERROR(copy_map(r, &src->configuration, &dst->configuration, 0, err));
    /* The schema is re-parsed into the snapshot's arena rather than deep-copied. */
    SILT_RETURN_IF_ERROR(dlog_parse_schema(&dst->schema, r->snap->arena, dst->schema_string, err));
    SILT_RETURN_IF_ERROR(dlog_metadata_check(dst, SILT_CORRUPT, err));
    r->snap->schema = dst->schema;
    return SILT_OK;
}

static silt_status keep_protocol(replay *r, const dlog_protocol *src, silt_error *err)
{
    dlog_protocol *dst = &r->snap->protocol;
    *dst = *src;
    SILT_RETURN_IF_ERROR(copy_strs(r, src->n_reader_features, src->reader_features,
                                   &dst->reader_features, err));
    return copy_strs(r, src->n_writer_features, src->writer_features, &dst->writer_features, err);
}

static silt_status copy_dv(replay *r, const dlog_dv *src, dlog_dv *dst, silt_error *err)
{
    *dst = *src;
    return copy_str(r, src->path_or_inline_dv, &dst->path_or_inline_dv, err);
}

/* ---- reconciliation --------------------------------------------------------------------- */

/* Builds "path\0dvId" in r->key; returns its length. */
static silt_status file_key(replay *r, const char *path, const dlog_dv *dv, silt_error *err)
{
    buf dv_id = BUF_INIT;
    silt_status rc;
    buf_truncate(&r->key, 0);
    rc = buf_append(&r->key, path, strlen(path) + 1, err);
    if (rc == SILT_OK && dv->storage_type != 0) {
        rc = dlog_dv_unique_id(dv, &dv_id, err);
        if (rc == SILT_OK)
            rc = buf_append(&r->key, dv_id.data, dv_id.len, err);
    }
    buf_clear(&dv_id);
    return rc;
}

#define IN_COMMIT_REMOVE ((void *)UINTPTR_MAX)

static int mark_seen(replay *r, silt_error *err, silt_status *rc)
{
    void *old = NULL;
    if (hashmap_get(&r->seen, r->key.data, r->key.len, &old)) {
        *rc = SILT_OK;
        return 0;
    }
    *rc = hashmap_put(&r->seen, r->key.data, r->key.len, r->snap, NULL, err);
    return *rc == SILT_OK;
}

/* Records what the current commit did to the key in r->key. */
static silt_status note_in_commit(replay *r, void *what, silt_error *err)
{
    if (r->in_checkpoint)
        return SILT_OK; /* a checkpoint holds one action per logical file */
    return hashmap_put(&r->in_commit, r->key.data, r->key.len, what, NULL, err);
}

/* The current commit's earlier action on the key in r->key (NULL = none). */
static void *earlier_in_commit(const replay *r)
{
    void *what = NULL;
    if (r->in_checkpoint || !hashmap_get(&r->in_commit, r->key.data, r->key.len, &what))
        return NULL;
    return what;
}

/* Drops the file the current commit added before removing it again (compacted after it). */
static void cancel_add(replay *r, size_t file_idx)
{
    delta_file *file = &r->snap->files[file_idx];
    void *ignored = NULL;
    (void)hashmap_remove(&r->seen, file->path, strlen(file->path), &ignored);
    r->snap->total_size -= file->size;
    file->path = NULL;
}

/* Removes the files cancel_add dropped from the ones this commit added. */
static void compact_commit_files(replay *r)
{
    size_t idx, kept = r->commit_first_file;
    for (idx = r->commit_first_file; idx < r->snap->n_files; idx++)
        if (r->snap->files[idx].path != NULL)
            r->snap->files[kept++] = r->snap->files[idx];
    r->snap->n_files = kept;
}

static silt_status on_add(replay *r, const dlog_add *add, silt_error *err)
{
    delta_file *file;
    silt_status rc;
    size_t path_len = strlen(add->path);
    void *old = NULL, *earlier;
    SILT_RETURN_IF_ERROR(file_key(r, add->path, &add->dv, err));
    earlier = earlier_in_commit(r);
    if (earlier == IN_COMMIT_REMOVE) {
        /* remove(P) then add(P) in one commit: the add is the later action. */
        r->snap->n_tombstones--;
    } else if (earlier != NULL) {
        cancel_add(r, (size_t)((uintptr_t)earlier - 1)); /* the later add replaces it */
    } else if (!mark_seen(r, err, &rc)) {
        return rc;
    }
    SILT_RETURN_IF_ERROR(note_in_commit(r, (void *)(uintptr_t)(r->snap->n_files + 1), err));
    /* A newer add already decided this path (with another deletion vector). */
    if (hashmap_get(&r->seen, add->path, path_len, &old))
        return SILT_OK;
    SILT_RETURN_IF_ERROR(hashmap_put(&r->seen, add->path, path_len, r->snap, NULL, err));
    SILT_RETURN_IF_ERROR(grow((void **)&r->snap->files, &r->files_cap, r->snap->n_files,
                              sizeof(delta_file), err));
    file = &r->snap->files[r->snap->n_files];
    memset(file, 0, sizeof(*file));
    SILT_RETURN_IF_ERROR(copy_str(r, add->path, &file->path, err));
    SILT_RETURN_IF_ERROR(copy_map(r, &add->partition_values, &file->partition_values, 1, err));
    SILT_RETURN_IF_ERROR(copy_str(r, add->stats, &file->stats, err));
    SILT_RETURN_IF_ERROR(copy_dv(r, &add->dv, &file->dv, err));
    file->size = add->size;
    file->modification_time = add->modification_time;
    file->has_base_row_id = add->has_base_row_id;
    file->base_row_id = add->base_row_id;
    file->has_default_row_commit_version = add->has_default_row_commit_version;
    file->default_row_commit_version = add->default_row_commit_version;
    r->snap->n_files++;
    r->snap->total_size += add->size;
    return SILT_OK;
}

static silt_status on_remove(replay *r, const dlog_remove *rm, silt_error *err)
{
    silt_status rc;
    void *earlier;
    SILT_RETURN_IF_ERROR(file_key(r, rm->path, &rm->dv, err));
    earlier = earlier_in_commit(r);
    if (earlier == IN_COMMIT_REMOVE)
        return SILT_OK;
    if (earlier != NULL) {
        /* add(P) then remove(P) in one commit: P is gone. */
        cancel_add(r, (size_t)((uintptr_t)earlier - 1));
        r->snap->n_tombstones++;
        return note_in_commit(r, IN_COMMIT_REMOVE, err);
    }
    if (!mark_seen(r, err, &rc))
        return rc;
    r->snap->n_tombstones++;
    return note_in_commit(r, IN_COMMIT_REMOVE, err);
}

static silt_status on_txn(replay *r, const dlog_txn *txn, silt_error *err)
{
    dlog_txn *dst;
    if (hashmap_get_str(&r->txn_seen, txn->app_id) != NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(hashmap_put_str(&r->txn_seen, txn->app_id, r->snap, err));
    SILT_RETURN_IF_ERROR(grow((void **)&r->snap->txns, &r->txns_cap, r->snap->n_txns,
                              sizeof(dlog_txn), err));
    dst = &r->snap->txns[r->snap->n_txns++];
    *dst = *txn;
    return copy_str(r, txn->app_id, &dst->app_id, err);
}

static silt_status on_domain(replay *r, const dlog_domain_metadata *dm, silt_error *err)
{
    dlog_domain_metadata *dst;
    if (hashmap_get_str(&r->domain_seen, dm->domain) != NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(hashmap_put_str(&r->domain_seen, dm->domain, r->snap, err));
    if (dm->removed)
        return SILT_OK; /* a tombstone hides older versions of the domain */
    SILT_RETURN_IF_ERROR(grow((void **)&r->snap->domains, &r->domains_cap, r->snap->n_domains,
                              sizeof(dlog_domain_metadata), err));
    dst = &r->snap->domains[r->snap->n_domains++];
    *dst = *dm;
    SILT_RETURN_IF_ERROR(copy_str(r, dm->domain, &dst->domain, err));
    return copy_str(r, dm->configuration, &dst->configuration, err);
}

static silt_status on_sidecar(replay *r, const dlog_sidecar *sc, silt_error *err)
{
    char *name;
    if (!r->in_checkpoint)
        return SILT_OK; /* sidecar actions are only meaningful in a V2 checkpoint */
    SILT_RETURN_IF_ERROR(grow((void **)&r->sidecars, &r->sidecars_cap, r->n_sidecars,
                              sizeof(char *), err));
    /* PROTOCOL: sidecars live in _delta_log/_sidecars/; only the file name is used. */
    name = strrchr(sc->path, '/');
    name = io_key_join(DLOG_DIR "_sidecars", name ? name + 1 : sc->path);
    if (name == NULL)
        return err_nomem(err);
    r->sidecars[r->n_sidecars++] = name;
    return SILT_OK;
}

static silt_status on_action(const dlog_action *action, void *payload, silt_error *err)
{
    replay *r = payload;
    switch (action->type) {
    case DLOG_ADD: return on_add(r, &action->u.add, err);
    case DLOG_REMOVE: return on_remove(r, &action->u.remove, err);
    case DLOG_METADATA:
        if (r->have_metadata)
            return SILT_OK;
        r->have_metadata = 1;
        return keep_metadata(r, &action->u.metadata, err);
    case DLOG_PROTOCOL:
        if (r->have_protocol)
            return SILT_OK;
        r->have_protocol = 1;
        return keep_protocol(r, &action->u.protocol, err);
    case DLOG_TXN: return on_txn(r, &action->u.txn, err);
    case DLOG_DOMAIN_METADATA: return on_domain(r, &action->u.domain, err);
    case DLOG_COMMIT_INFO:
        if (r->in_checkpoint || r->commit_version != r->snap->version || r->snap->has_commit_info)
            return SILT_OK;
        r->snap->has_commit_info = 1;
        r->snap->commit_info = action->u.commit_info;
        SILT_RETURN_IF_ERROR(copy_str(r, action->u.commit_info.raw_json,
                                      &r->snap->commit_info.raw_json, err));
        return copy_str(r, action->u.commit_info.operation, &r->snap->commit_info.operation, err);
    case DLOG_SIDECAR: return on_sidecar(r, &action->u.sidecar, err);
    default: return SILT_OK;
    }
}

/* ---- reading the files of a segment ----------------------------------------------------- */

static silt_status replay_json(replay *r, io_store *store, const char *key, arena *scratch,
                               silt_error *err)
{
    silt_status rc;
    hashmap_clear(&r->in_commit);
    r->commit_first_file = r->snap->n_files;
    rc = dlog_read_json_file(store, key, scratch, on_action, r, err);
    compact_commit_files(r);
    if (rc == SILT_NOTFOUND)
        rc = err_set(err, SILT_CORRUPT, "log file \"%s\" disappeared while the log was read",
                     key);
    arena_reset(scratch);
    return rc;
}

static silt_status replay_parquet(replay *r, io_store *store, const char *key,
                                  dlog_parquet_actions_fn reader, arena *scratch, silt_error *err)
{
    silt_status rc;
    if (reader == NULL) {
        r->needs_parquet = 1;
        return err_set(err, SILT_UNSUPPORTED, "reading \"%s\" needs the Parquet checkpoint "
                       "reader, which this build of silt does not have yet", key);
    }
    rc = reader(store, key, scratch, on_action, r, err);
    arena_reset(scratch);
    if (rc != SILT_OK)
        err_context(err, "while reading checkpoint file \"%s\"", key);
    return rc;
}

static silt_status replay_checkpoint(replay *r, io_store *store, const dlog_checkpoint *cp,
                                     dlog_parquet_actions_fn reader, arena *scratch,
                                     silt_error *err)
{
    size_t idx;
    r->in_checkpoint = 1;
    for (idx = 0; idx < cp->n_files; idx++) {
        const dlog_file *f = &cp->files[idx];
        if (f->is_json)
            SILT_RETURN_IF_ERROR(replay_json(r, store, f->key, scratch, err));
        else
            SILT_RETURN_IF_ERROR(replay_parquet(r, store, f->key, reader, scratch, err));
    }
    /* PROTOCOL: V2 Spec - the sidecars hold the rest of the file actions. */
    for (idx = 0; idx < r->n_sidecars; idx++)
        SILT_RETURN_IF_ERROR(replay_parquet(r, store, r->sidecars[idx], reader, scratch, err));
    return SILT_OK;
}

static const char *checkpoint_kind_name(dlog_file_kind kind)
{
    switch (kind) {
    case DLOG_FILE_CHECKPOINT: return "classic";
    case DLOG_FILE_CHECKPOINT_PART: return "multi-part";
    case DLOG_FILE_CHECKPOINT_V2: return "v2";
    default: return NULL;
    }
}

/* In-commit timestamps apply from the enablement version on (PROTOCOL: In-Commit Timestamps). */
static int ict_applies(const delta_snapshot *snap, int64_t version)
{
    const char *enabled = delta_snapshot_property(snap, "delta.enableInCommitTimestamps");
    const char *since = delta_snapshot_property(snap, "delta.inCommitTimestampEnablementVersion");
    int64_t since_version = 0;
    if (enabled == NULL || strcmp(enabled, "true") != 0)
        return 0;
    if (since != NULL && !util_str_to_int64(since, strlen(since), &since_version))
        return 0;
    return version >= since_version;
}

static void set_timestamp(delta_snapshot *snap, const dlog_listing *listing, const dlog_segment *seg)
{
    const dlog_file *commit = dlog_listing_commit(listing, snap->version);
    if (snap->has_commit_info && snap->commit_info.has_in_commit_timestamp &&
        ict_applies(snap, snap->version)) {
        snap->timestamp_ms = snap->commit_info.in_commit_timestamp;
        snap->timestamp_is_in_commit = 1;
    } else if (commit != NULL) {
        snap->timestamp_ms = time_floor_div(commit->mtime_micros, 1000);
    } else if (seg->checkpoint.n_files > 0) {
        snap->timestamp_ms = time_floor_div(seg->checkpoint.files[0].mtime_micros, 1000);
    }
}

static silt_status replay_segment(delta_snapshot **out, io_store *store,
                                  const dlog_listing *listing, const dlog_segment *seg,
                                  dlog_parquet_actions_fn reader, int *needs_parquet,
                                  silt_error *err)
{
    replay r;
    arena *scratch = NULL;
    delta_snapshot *snap = NULL;
    silt_status rc = SILT_OK;
    size_t idx;

    memset(&r, 0, sizeof(r));
    snap = mem_calloc(1, sizeof(*snap));
    if (snap == NULL)
        return err_nomem(err);
    snap->arena = arena_new(NULL, "snapshot");
    scratch = arena_new(NULL, "replay");
    if (snap->arena == NULL || scratch == NULL) {
        rc = err_nomem(err);
        goto done;
    }
    snap->version = seg->version;
    snap->checkpoint_version = seg->checkpoint.version;
    snap->checkpoint_kind = checkpoint_kind_name(seg->checkpoint.kind);
    snap->skipped_checkpoint_version = -1;
    r.snap = snap;
    for (idx = seg->n_commits; idx > 0; idx--) {
        r.commit_version = seg->commits[idx - 1]->version;
        rc = replay_json(&r, store, seg->commits[idx - 1]->key, scratch, err);
        if (rc != SILT_OK)
            goto done;
        snap->n_commits_replayed++;
    }
    if (seg->checkpoint.version >= 0) {
        r.commit_version = seg->checkpoint.version;
        rc = replay_checkpoint(&r, store, &seg->checkpoint, reader, scratch, err);
        if (rc != SILT_OK) {
            /* Damaged, unreadable or needing the Parquet reader: the caller may
             * replay the JSON commits instead, as Delta does. */
            if (rc != SILT_NOMEM && rc != SILT_INTERRUPTED)
                r.needs_parquet = 1;
            goto done;
        }
    }
    if (!r.have_protocol || !r.have_metadata) {
        rc = err_set(err, SILT_CORRUPT, "the log of version %lld has no %s action",
                     (long long)seg->version, r.have_protocol ? "metaData" : "protocol");
        goto done;
    }
    set_timestamp(snap, listing, seg);
    *out = snap;
    snap = NULL;
done:
    *needs_parquet = r.needs_parquet;
    replay_clear(&r);
    arena_free(scratch);
    delta_snapshot_free(snap);
    return rc;
}

/* Lists the log; for the latest version, starts at the _last_checkpoint hint when it holds. */
static silt_status list_log(dlog_listing *out, io_store *store, int64_t version, silt_error *err)
{
    int64_t hint = -1;
    if (version < 0) {
        dlog_listing partial = DLOG_LISTING_INIT;
        dlog_checkpoint cp;
        SILT_RETURN_IF_ERROR(dlog_read_last_checkpoint(store, &hint, err));
        if (hint > 0) {
            /* Entries after "<hint - 1>": the checkpoint at hint and everything newer. */
            silt_status rc = dlog_list(&partial, store, hint - 1, err);
            if (rc != SILT_OK)
                return rc;
            dlog_newest_checkpoint(&partial, INT64_MAX, 0, &cp);
            if (cp.version >= hint) {
                *out = partial;
                return SILT_OK;
            }
            /* Stale or wrong hint: fall back to listing everything. */
            dlog_listing_clear(&partial);
        }
    }
    return dlog_list(out, store, -1, err);
}

/*
 * Lists the log and builds the segment of version. A gap between listed
 * commits is listed again before it counts as a missing commit: a local
 * folder's listing is no snapshot (readdir may pass over an entry another
 * writer creates during the walk yet return a later one), so a commit
 * landing meanwhile could look like a hole in the log (the crash harness
 * saw "commit 706 is missing ... to version 707" with 706 on disk). A real
 * hole stays one on every listing.
 */
static silt_status list_segment(dlog_listing *listing, dlog_segment *seg, io_store *store,
                                int64_t version, silt_error *err)
{
    silt_status rc = SILT_OK;
    int attempt;
    for (attempt = 0; attempt < 3; attempt++) {
        if (attempt > 0) {
            dlog_listing_clear(listing);
            err_clear(err);
        }
        rc = list_log(listing, store, version, err);
        if (rc != SILT_OK)
            return rc;
        /* The partial listing knows nothing older than its checkpoint; enough for latest. */
        rc = dlog_segment_build(seg, listing, version, 1, err);
        if (rc != SILT_CORRUPT)
            return rc;
    }
    return rc;
}

silt_status delta_snapshot_load_ext(delta_snapshot **out, io_store *store, int64_t version,
                                    const delta_load_options *opts, silt_error *err)
{
    dlog_listing listing = DLOG_LISTING_INIT;
    dlog_segment seg = DLOG_SEGMENT_INIT;
    dlog_parquet_actions_fn reader = opts && opts->parquet_reader ? opts->parquet_reader
                                                                  : dlog_builtin_parquet_reader();
    delta_snapshot *snap = NULL;
    int needs_parquet = 0;
    silt_status rc;

    *out = NULL;
    rc = list_segment(&listing, &seg, store, version, err);
    if (rc != SILT_OK)
        goto done;
    rc = replay_segment(&snap, store, &listing, &seg, reader, &needs_parquet, err);
    if (rc != SILT_OK && needs_parquet) {
        /* The checkpoint could not be used (no Parquet reader, or damaged: Delta then
         * falls back to the commits too): replay the JSON commits alone when all are
         * there; otherwise the checkpoint's error stands. */
        silt_error first = SILT_ERROR_INIT;
        int64_t skipped = seg.checkpoint.version;
        err_copy(&first, err);
        dlog_segment_clear(&seg);
        if (listing.earliest_version != 0 || dlog_listing_commit(&listing, 0) == NULL) {
            dlog_listing_clear(&listing);
            rc = dlog_list(&listing, store, -1, err);
            if (rc != SILT_OK)
                goto done;
        }
        rc = dlog_segment_build(&seg, &listing, version < 0 ? seg.version : version, 0, err);
        if (rc == SILT_OK)
            rc = replay_segment(&snap, store, &listing, &seg, reader, &needs_parquet, err);
        if (rc == SILT_OK)
            snap->skipped_checkpoint_version = skipped;
        else if (rc == SILT_NOTFOUND || rc == SILT_CORRUPT)
            rc = (err_copy(err, &first), first.code);
    }
    if (rc != SILT_OK)
        goto done;
    rc = dproto_check_readable(&snap->protocol, err);
    if (rc != SILT_OK)
        goto done;
    *out = snap;
    snap = NULL;
done:
    if (rc != SILT_OK && rc != SILT_NOMEM && seg.version >= 0)
        err_context(err, "while loading version %lld of table \"%s\"", (long long)seg.version,
                    io_store_root(store));
    else if (rc != SILT_OK && rc != SILT_NOMEM)
        err_context(err, "while loading table \"%s\"", io_store_root(store));
    delta_snapshot_free(snap);
    dlog_segment_clear(&seg);
    dlog_listing_clear(&listing);
    return rc;
}

silt_status delta_snapshot_load(delta_snapshot **out, io_store *store, int64_t version,
                                silt_error *err)
{
    return delta_snapshot_load_ext(out, store, version, NULL, err);
}

/* ---- time travel by timestamp ----------------------------------------------------------- */

silt_status delta_snapshot_commit_ict(io_store *store, const char *key, int64_t *out,
                                     silt_error *err)
{
    buf data = BUF_INIT;
    arena *scratch = arena_new(NULL, "ict");
    const char *nl;
    dlog_action action;
    size_t pos = 0, line_len;
    silt_status rc;
    if (scratch == NULL)
        return err_nomem(err);
    buf_init(&data, COMMIT_MAX_BYTES);
    rc = io_get(store, key, &data, err);
    if (rc != SILT_OK)
        goto done;
    /* PROTOCOL: with in-commit timestamps, commitInfo is the first action of a commit. */
    nl = data.data ? memchr(data.data, '\n', data.len) : NULL;
    line_len = nl ? (size_t)(nl - data.data) : data.len;
    rc = dlog_parse_action(&action, scratch, data.data ? data.data : "", line_len, &pos, err);
    if (rc != SILT_OK)
        goto done;
    if (action.type != DLOG_COMMIT_INFO || !action.u.commit_info.has_in_commit_timestamp) {
        rc = err_set(err, SILT_CORRUPT, "commit \"%s\" does not start with a commitInfo holding "
                     "inCommitTimestamp, although in-commit timestamps are enabled", key);
        goto done;
    }
    *out = action.u.commit_info.in_commit_timestamp;
done:
    buf_clear(&data);
    arena_free(scratch);
    return rc;
}

/*
 * Newest version in [lo, hi] whose in-commit timestamp is <= ts_ms (binary
 * search: in-commit timestamps increase strictly). -1 when none.
 */
static silt_status search_ict(io_store *store, const dlog_listing *listing, int64_t lo,
                              int64_t hi, int64_t ts_ms, int64_t *out, silt_error *err)
{
    *out = -1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2, ict;
        const dlog_file *commit = dlog_listing_commit(listing, mid);
        if (commit == NULL)
            return err_set(err, SILT_CORRUPT, "commit %lld is missing from the log",
                           (long long)mid);
        SILT_RETURN_IF_ERROR(delta_snapshot_commit_ict(store, commit->key, &ict, err));
        if (ict <= ts_ms) {
            *out = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return SILT_OK;
}

/*
 * Newest version in [lo, hi] whose commit time is <= ts_ms: file times made
 * monotonic as Delta does (dlog_listing_commit_times). -1 when none;
 * SILT_NOMEM possible.
 */
static silt_status search_mtime(const dlog_listing *listing, int64_t lo, int64_t hi,
                                int64_t ts_ms, int64_t *found_out, int64_t *first_ts_out,
                                int64_t *last_ts_out, silt_error *err)
{
    int64_t *times = mem_calloc(listing->n_files + 1, sizeof(int64_t));
    size_t idx;
    if (times == NULL)
        return err_nomem(err);
    dlog_listing_commit_times(listing, times);
    *found_out = -1;
    *first_ts_out = INT64_MAX;
    *last_ts_out = INT64_MIN;
    /* Over the commits that exist (sorted by version), not over version numbers. */
    for (idx = 0; idx < listing->n_files; idx++) {
        const dlog_file *commit = &listing->files[idx];
        if (commit->kind != DLOG_FILE_COMMIT || commit->version < lo || commit->version > hi)
            continue;
        if (*first_ts_out == INT64_MAX)
            *first_ts_out = times[idx];
        *last_ts_out = times[idx];
        if (times[idx] <= ts_ms)
            *found_out = commit->version;
    }
    mem_free(times);
    return SILT_OK;
}

/* A time as Spark's errors print it (java.sql.Timestamp: "2000-01-01 00:00:00.0"). */
static void spark_timestamp_text(int64_t micros, char *out, size_t cap)
{
    size_t len = time_format_timestamp(micros, ' ', 6, 0, out, cap);
    while (len > 0 && len < cap && out[len - 1] == '0' && out[len - 2] != '.')
        out[--len] = '\0';
}

silt_status delta_snapshot_load_at_timestamp(delta_snapshot **out, io_store *store,
                                             int64_t timestamp_micros,
                                             const delta_load_options *opts, silt_error *err)
{
    delta_snapshot *latest = NULL;
    dlog_listing listing = DLOG_LISTING_INIT;
    int64_t ts_ms = time_floor_div(timestamp_micros, 1000);
    int64_t found = -1, mtime_hi, first_ts = INT64_MAX, last_ts = INT64_MIN, enable_version = 0;
    int64_t enable_ts = INT64_MIN;
    const char *value;
    int ict = 0;
    char when[64];
    silt_status rc;

    spark_timestamp_text(timestamp_micros, when, sizeof(when));
    rc = delta_snapshot_load_ext(&latest, store, -1, opts, err);
    if (rc == SILT_OK)
        rc = dlog_list(&listing, store, -1, err);
    if (rc != SILT_OK)
        goto done;
    value = delta_snapshot_property(latest, "delta.enableInCommitTimestamps");
    if (value != NULL && strcmp(value, "true") == 0) {
        ict = 1;
        value = delta_snapshot_property(latest, "delta.inCommitTimestampEnablementVersion");
        if (value != NULL && !util_str_to_int64(value, strlen(value), &enable_version))
            enable_version = 0;
        value = delta_snapshot_property(latest, "delta.inCommitTimestampEnablementTimestamp");
        if (value != NULL && !util_str_to_int64(value, strlen(value), &enable_ts))
            enable_ts = INT64_MIN;
        if (enable_version < listing.earliest_version)
            enable_version = listing.earliest_version;
    }
    mtime_hi = ict ? enable_version - 1 : listing.latest_version;
    if (ict && ts_ms >= enable_ts) {
        rc = search_ict(store, &listing, enable_version, listing.latest_version, ts_ms, &found, err);
        if (rc != SILT_OK)
            goto done;
    }
    if (found < 0) {
        rc = search_mtime(&listing, listing.earliest_version, mtime_hi, ts_ms, &found, &first_ts,
                          &last_ts, err);
        if (rc != SILT_OK)
            goto done;
    }
    if (found < 0) {
        char first[64], first_s[64];
        if (first_ts == INT64_MAX) /* in-commit timestamps from the first version on */
            first_ts = enable_ts != INT64_MIN ? enable_ts : 0;
        time_format_timestamp(first_ts * 1000, ' ', 3, 0, first, sizeof(first));
        time_format_timestamp(first_ts * 1000, ' ', 0, 0, first_s, sizeof(first_s));
        rc = err_set(err, SILT_NOTFOUND, "[DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION] The "
                     "provided timestamp (%s) is before the earliest version available to this "
                     "table (%s). Please use a timestamp after %s.", when, first, first_s);
        goto done;
    }
    if (found == listing.latest_version) {
        /* Like Spark: a time after the newest commit is an error, not "the latest version". */
        int64_t latest_ts = last_ts;
        if (ict && found >= enable_version) {
            rc = delta_snapshot_commit_ict(store, dlog_listing_commit(&listing, found)->key,
                                           &latest_ts, err);
            if (rc != SILT_OK)
                goto done;
        }
        if (ts_ms > latest_ts) {
            char latest_when[64];
            time_format_timestamp(latest_ts * 1000, ' ', 0, 0, latest_when, sizeof(latest_when));
            rc = err_set(err, SILT_NOTFOUND, "[DELTA_TIMESTAMP_GREATER_THAN_COMMIT] The provided "
                         "timestamp (%s) is after the latest version available to this table "
                         "(%s). Please use a timestamp before or at %s.", when,
                         io_store_root(store), latest_when);
            goto done;
        }
    }
    if (found == latest->version) {
        *out = latest;
        latest = NULL;
    } else {
        rc = delta_snapshot_load_ext(out, store, found, opts, err);
    }
done:
    (void)first_ts;
    delta_snapshot_free(latest);
    dlog_listing_clear(&listing);
    return rc;
}
