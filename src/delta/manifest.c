/*
 * manifest.c - symlink format manifests (maint.h), as Delta's
 * GenerateSymlinkManifest: the files Presto, Athena and Hive read instead of
 * the log. One manifest per partition folder, named like the data folders
 * (`col=value` with Spark's escaping, `__HIVE_DEFAULT_PARTITION__` for a
 * null), holding the absolute paths of the partition's live files. A
 * manifest is written whole with a plain put (a reader sees the old or the
 * new one).
 */
#include <string.h>

#include "delta/log.h"
#include "delta/maint.h"
#include "delta/protocol.h"
#include "delta/write_int.h"
#include "util/hashmap.h"
#include "util/mem.h"

int delta_manifest_auto_update(const dlog_metadata *metadata)
{
    const char *v = dlog_map_get(&metadata->configuration, DELTA_MANIFEST_PROPERTY, NULL);
    return v != NULL && util_str_casecmp(v, "true") == 0;
}

static silt_status check_supported(const delta_snapshot *snap, silt_error *err)
{
    dproto_mapping_mode mode = DPROTO_MAPPING_NONE;
    size_t idx;
    SILT_RETURN_IF_ERROR(dproto_get_mapping_mode(&snap->metadata, &mode, err));
    if (mode != DPROTO_MAPPING_NONE)
        return err_set(err, SILT_UNSUPPORTED,
                       "[DELTA_UNSUPPORTED_MANIFEST_GENERATION_WITH_COLUMN_MAPPING] Manifest "
                       "generation is not supported for tables that leverage column mapping, as "
                       "external readers cannot read these Delta tables");
    for (idx = 0; idx < snap->n_files; idx++)
        if (snap->files[idx].dv.storage_type != 0)
            return err_set(err, SILT_UNSUPPORTED,
                           "[DELTA_VIOLATE_TABLE_PROPERTY_VALIDATION_FAILED.PERSISTENT_DELETION_"
                           "VECTORS_WITH_INCREMENTAL_MANIFEST_GENERATION] symlink manifests "
                           "cannot describe a table whose files have deletion vectors (\"%s\"): "
                           "run REORG TABLE ... APPLY (PURGE) first",
                           snap->files[idx].path);
    return SILT_OK;
}

/* The manifest's key for a file's partition values, into out. */
static silt_status manifest_key(const dlog_metadata *md, const dlog_map *values, buf *out,
                                silt_error *err)
{
    size_t idx;
    buf_truncate(out, 0);
    SILT_RETURN_IF_ERROR(buf_append_str(out, DELTA_MANIFEST_DIR, err));
    for (idx = 0; idx < md->n_partition_columns; idx++) {
        const char *name = md->partition_columns[idx];
        const char *v = dlog_map_get(values, name, NULL);
        SILT_RETURN_IF_ERROR(dwrite_escape_path(name, strlen(name), out, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, '=', err));
        if (v == NULL || v[0] == '\0')
            SILT_RETURN_IF_ERROR(buf_append_str(out, DWRITE_NULL_PARTITION, err));
        else
            SILT_RETURN_IF_ERROR(dwrite_escape_path(v, strlen(v), out, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, '/', err));
    }
    return buf_append_str(out, "manifest", err);
}

typedef struct manifest_set {
    hashmap index; /* key -> 1 + entry index */
    size_t n, cap;
    struct manifest_entry {
        char *key;
        buf body;
    } *items;
} manifest_set;

static void set_clear(manifest_set *set)
{
    size_t idx;
    for (idx = 0; idx < set->n; idx++) {
        mem_free(set->items[idx].key);
        buf_clear(&set->items[idx].body);
    }
    mem_free(set->items);
    hashmap_clear(&set->index);
}

/* The entry of key, made empty when new. */
static silt_status set_entry(manifest_set *set, const char *key, struct manifest_entry **out,
                             silt_error *err)
{
    void *found = hashmap_get_str(&set->index, key);
    if (found != NULL) {
        *out = &set->items[(uintptr_t)found - 1];
        return SILT_OK;
    }
    if (set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 16;
        struct manifest_entry *fresh = mem_realloc(set->items, cap * sizeof(*fresh));
        if (fresh == NULL)
            return err_nomem(err);
        set->items = fresh;
        set->cap = cap;
    }
    *out = &set->items[set->n];
    memset(*out, 0, sizeof(**out));
    if (((*out)->key = mem_strdup(key)) == NULL)
        return err_nomem(err);
    set->n++;
    return hashmap_put_str(&set->index, (*out)->key, (void *)(uintptr_t)set->n, err);
}

/* Every live file's line in its partition's manifest (only_touched: partitions in set). */
static silt_status collect(const delta_snapshot *snap, const char *root, int only_touched,
                           manifest_set *set, silt_error *err)
{
    buf key = BUF_INIT;
    size_t idx;
    silt_status rc = SILT_OK;
    for (idx = 0; rc == SILT_OK && idx < snap->n_files; idx++) {
        const delta_file *file = &snap->files[idx];
        struct manifest_entry *e;
        rc = manifest_key(&snap->metadata, &file->partition_values, &key, err);
        if (rc != SILT_OK || (only_touched && hashmap_get_str(&set->index, buf_cstr(&key)) == NULL))
            continue;
        rc = set_entry(set, buf_cstr(&key), &e, err);
        if (rc != SILT_OK)
            break;
        if (file->path[0] == '/' || strstr(file->path, ":") != NULL)
            rc = buf_printf(&e->body, err, "%s%s\n", file->path[0] == '/' ? "file:" : "",
                            file->path);
        else
            rc = buf_printf(&e->body, err, "%s%s/%s\n", strstr(root, "://") ? "" : "file:", root,
                            file->path);
    }
    buf_clear(&key);
    return rc;
}

/* Writes each manifest; one with no lines (its partition is gone) is deleted. */
static silt_status write_all(io_store *store, const manifest_set *set, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < set->n; idx++) {
        const struct manifest_entry *e = &set->items[idx];
        silt_status rc;
        if (e->body.len > 0) {
            SILT_RETURN_IF_ERROR(io_put(store, e->key, e->body.data, e->body.len, err));
            continue;
        }
        rc = io_delete(store, e->key, err);
        if (rc == SILT_NOTFOUND) {
            err_clear(err);
            rc = SILT_OK;
        }
        SILT_RETURN_IF_ERROR(rc);
    }
    return SILT_OK;
}

static const char *local_root(io_store *store)
{
    const char *root = io_store_root(store);
    return util_str_starts_with(root, "file://") ? root + strlen("file://") : root;
}

silt_status delta_manifest_generate(io_store *store, const delta_snapshot *snap, silt_error *err)
{
    manifest_set set;
    io_listing old = IO_LISTING_INIT;
    size_t idx;
    silt_status rc;
    memset(&set, 0, sizeof(set));
    SILT_RETURN_IF_ERROR(check_supported(snap, err));
    rc = collect(snap, local_root(store), 0, &set, err);
    /* Manifests of partitions that have no file any more go (an empty entry each). */
    if (rc == SILT_OK)
        rc = io_list(store, DELTA_MANIFEST_DIR, NULL, 1, &old, err);
    for (idx = 0; rc == SILT_OK && idx < old.count; idx++) {
        struct manifest_entry *e;
        const char *key = old.items[idx].key;
        size_t len = strlen(key);
        if (len >= 8 && strcmp(key + len - 8, "manifest") == 0)
            rc = set_entry(&set, key, &e, err);
    }
    if (rc == SILT_OK)
        rc = write_all(store, &set, err);
    io_listing_clear(&old);
    set_clear(&set);
    return rc;
}

silt_status delta_manifest_update(io_store *store, const delta_snapshot *snap,
                                  const dlog_map *const *touched, size_t n_touched,
                                  silt_error *err)
{
    manifest_set set;
    buf key = BUF_INIT;
    size_t idx;
    silt_status rc;
    memset(&set, 0, sizeof(set));
    SILT_RETURN_IF_ERROR(check_supported(snap, err));
    rc = SILT_OK;
    for (idx = 0; rc == SILT_OK && idx < n_touched; idx++) {
        struct manifest_entry *e;
        rc = manifest_key(&snap->metadata, touched[idx], &key, err);
        if (rc == SILT_OK)
            rc = set_entry(&set, buf_cstr(&key), &e, err);
    }
    if (rc == SILT_OK)
        rc = collect(snap, local_root(store), 1, &set, err);
    if (rc == SILT_OK)
        rc = write_all(store, &set, err);
    buf_clear(&key);
    set_clear(&set);
    return rc;
}
