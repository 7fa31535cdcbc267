/*
 * branch_store.c - a Delta table's store as a branch or tag sees it
 * (branch.h has the contract, docs/branches.md the model).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/branch.h"
#include "delta/log.h"
#include "util/mem.h"

typedef struct branch_store {
    io_store base;
    io_store *inner;
    char *ref_name;
    int64_t fork, pin;
    size_t n_segments;
    delta_branch_segment *segments; /* ids owned */
    char *own_id;
    int follow_own;
    void (*on_commit)(void *payload, int64_t version);
    void *payload;
} branch_store;

static const io_store_ops branch_ops;

#define LOG_DIR_LEN (sizeof(DLOG_DIR) - 1)
#define STAGED_LEN (sizeof(DELTA_BRANCH_STAGED_DIR) - 1)

void delta_branch_staged_key(int64_t version, const char *id, const char *rest, char *out,
                        size_t cap)
{
    snprintf(out, cap, DELTA_BRANCH_STAGED_DIR "%020lld.%s.%s", (long long)version, id, rest);
}

int delta_branch_parse_staged(const char *name, int64_t *version, char *id_out, const char **rest)
{
    const char *dot;
    size_t idx;
    int64_t v = 0;
    for (idx = 0; idx < 20; idx++) {
        if (name[idx] < '0' || name[idx] > '9')
            return 0;
        v = v * 10 + (name[idx] - '0');
    }
    if (name[20] != '.' || (dot = strchr(name + 21, '.')) == NULL || dot == name + 21 ||
        (size_t)(dot - name - 21) >= 64 || strchr(name, '/') != NULL)
        return 0;
    memcpy(id_out, name + 21, (size_t)(dot - name - 21));
    id_out[dot - name - 21] = '\0';
    *version = v;
    *rest = dot + 1;
    return 1;
}

/* A versioned log name directly in `_delta_log/`: `<20 digits>.<rest>`; 0 when not. */
static int log_version(const char *key, int64_t *version, const char **rest)
{
    const char *name;
    size_t idx;
    int64_t v = 0;
    if (strncmp(key, DLOG_DIR, LOG_DIR_LEN) != 0)
        return 0;
    name = key + LOG_DIR_LEN;
    for (idx = 0; idx < 20; idx++) {
        if (name[idx] < '0' || name[idx] > '9')
            return 0;
        v = v * 10 + (name[idx] - '0');
    }
    if (name[20] != '.' || strchr(name, '/') != NULL)
        return 0;
    *version = v;
    *rest = name + 21;
    return 1;
}

static int is_log_key(const char *key) { return strncmp(key, DLOG_DIR, LOG_DIR_LEN) == 0; }

/* The recorded end of the chain (own commits past it not counted). */
static int64_t recorded_last(const branch_store *bs)
{
    return bs->n_segments > 0 ? bs->segments[bs->n_segments - 1].last : bs->fork;
}

/* The id whose staged files hold version v (recorded segments), NULL when none does. */
static const char *segment_owner(const branch_store *bs, int64_t v)
{
    int64_t prev = bs->fork;
    size_t idx;
    for (idx = 0; idx < bs->n_segments; idx++) {
        if (v > prev && v <= bs->segments[idx].last)
            return bs->segments[idx].id;
        prev = bs->segments[idx].last;
    }
    return NULL;
}

/* The id a version past the fork is read from: recorded, or the own id past the end (head). */
static const char *version_owner(const branch_store *bs, int64_t v)
{
    const char *id = segment_owner(bs, v);
    if (id == NULL && bs->follow_own && bs->own_id != NULL && v > recorded_last(bs))
        id = bs->own_id;
    if (bs->pin >= 0 && !bs->follow_own && v > bs->pin)
        return NULL;
    return id;
}

static silt_status not_found(const char *key, silt_error *err)
{
    return err_set(err, SILT_NOTFOUND, "\"%s\" does not exist", key);
}

/*
 * Where a key is read on the reference: *mapped is the staged key (in buf),
 * the key itself, or NULL when the reference has no such file.
 */
static void map_read(const branch_store *bs, const char *key, char *dst, size_t cap,
                     const char **mapped)
{
    int64_t v;
    const char *rest, *id;
    *mapped = key;
    if (strcmp(key, DLOG_DIR "_last_checkpoint") == 0) {
        /* a hint for main's log; the reference's readers list instead */
        *mapped = NULL;
        return;
    }
    if (!log_version(key, &v, &rest))
        return;
    if (v <= bs->fork) {
        if (bs->pin >= 0 && !bs->follow_own && v > bs->pin)
            *mapped = NULL;
        return;
    }
    id = version_owner(bs, v);
    if (id == NULL) {
        *mapped = NULL;
        return;
    }
    delta_branch_staged_key(v, id, rest, dst, cap);
    *mapped = dst;
}

static silt_status branch_get_range(io_store *store, const char *key, int64_t offset, int64_t len,
                                    buf *out, silt_error *err)
{
    branch_store *bs = (branch_store *)store;
    char mapped_buf[256];
    const char *mapped;
    map_read(bs, key, mapped_buf, sizeof(mapped_buf), &mapped);
    if (mapped == NULL)
        return not_found(key, err);
    return bs->inner->ops->get_range(bs->inner, mapped, offset, len, out, err);
}

static silt_status branch_head(io_store *store, const char *key, io_object_info *out,
                               silt_error *err)
{
    branch_store *bs = (branch_store *)store;
    char mapped_buf[256];
    const char *mapped;
    silt_status rc;
    map_read(bs, key, mapped_buf, sizeof(mapped_buf), &mapped);
    if (mapped == NULL)
        return not_found(key, err);
    rc = bs->inner->ops->head(bs->inner, mapped, out, err);
    if (rc == SILT_OK && mapped != key) {
        char *copy = mem_strdup(key);
        if (copy == NULL)
            return err_nomem(err);
        mem_free(out->key);
        out->key = copy;
    }
    return rc;
}

static silt_status branch_open_file(io_store *store, const char *key, io_file **out,
                                    silt_error *err)
{
    branch_store *bs = (branch_store *)store;
    char mapped_buf[256];
    const char *mapped;
    map_read(bs, key, mapped_buf, sizeof(mapped_buf), &mapped);
    if (mapped == NULL)
        return not_found(key, err);
    return bs->inner->ops->open_file(bs->inner, mapped, out, err);
}

static silt_status read_only(const branch_store *bs, const char *key, silt_error *err)
{
    return err_set(err, SILT_INVALID, "\"%s\" cannot be written on reference '%s': it is a tag "
                   "or a fixed commit, which take no commits", key, bs->ref_name);
}

/*
 * Where a write of key goes: the key itself (data files), a staged key of the
 * own id (new log versions), or nowhere (*mapped NULL, with *rc: SILT_OK for
 * a hint that is dropped, else the refusal or lost race).
 */
static silt_status map_write(branch_store *bs, const char *key, char *dst, size_t cap,
                             const char **mapped, int64_t *version, silt_error *err)
{
    int64_t v;
    const char *rest;
    *mapped = NULL;
    *version = -1;
    if (!is_log_key(key)) {
        *mapped = key;
        return SILT_OK;
    }
    if (strcmp(key, DLOG_DIR "_last_checkpoint") == 0)
        return SILT_OK; /* main's hint; dropped on a reference (readers list) */
    if (!log_version(key, &v, &rest))
        return err_set(err, SILT_UNSUPPORTED, "\"%s\" cannot be written on reference '%s': only "
                       "log versions and data files are kept on a branch", key, bs->ref_name);
    if (bs->own_id == NULL)
        return read_only(bs, key, err);
    if (v <= bs->fork || segment_owner(bs, v) != NULL)
        return err_set(err, SILT_EXISTS, "version %lld of the table already exists on "
                       "reference '%s'", (long long)v, bs->ref_name);
    delta_branch_staged_key(v, bs->own_id, rest, dst, cap);
    *mapped = dst;
    if (strcmp(rest, "json") == 0)
        *version = v;
    return SILT_OK;
}

static silt_status branch_put(io_store *store, const char *key, const void *data, size_t len,
                              int if_absent, silt_error *err)
{
    branch_store *bs = (branch_store *)store;
    char mapped_buf[256];
    const char *mapped;
    int64_t version;
    silt_status rc;
    SILT_RETURN_IF_ERROR(map_write(bs, key, mapped_buf, sizeof(mapped_buf), &mapped, &version,
                                   err));
    if (mapped == NULL)
        return SILT_OK;
    rc = bs->inner->ops->put(bs->inner, mapped, data, len, if_absent, err);
    if ((rc == SILT_OK || rc == SILT_DURABILITY_UNKNOWN) && version >= 0 && bs->on_commit)
        bs->on_commit(bs->payload, version);
    return rc;
}

static silt_status branch_open_writer(io_store *store, const char *key, io_writer **out,
                                      silt_error *err)
{
    branch_store *bs = (branch_store *)store;
    char mapped_buf[256];
    const char *mapped;
    int64_t version;
    SILT_RETURN_IF_ERROR(map_write(bs, key, mapped_buf, sizeof(mapped_buf), &mapped, &version,
                                   err));
    if (mapped == NULL || version >= 0)
        /* commits go through put-if-absent (branch_put), which records them */
        return err_set(err, SILT_UNSUPPORTED, "\"%s\" cannot be streamed on reference '%s'",
                       key, bs->ref_name);
    return bs->inner->ops->open_writer(bs->inner, mapped, out, err);
}

static silt_status branch_remove(io_store *store, const char *key, silt_error *err)
{
    branch_store *bs = (branch_store *)store;
    if (is_log_key(key))
        /* log cleanup: main's log is main's, and staged commits are the reference's
         * history (other references may build on them) */
        return SILT_OK;
    return err_set(err, SILT_UNSUPPORTED, "\"%s\" cannot be deleted on reference '%s': files "
                   "on a branch may be main's or another reference's (VACUUM main instead)",
                   key, bs->ref_name);
}

/* 1 when a listing of (prefix, recursive) holds key. */
static int listed(const char *key, const char *prefix, const char *start_after, int recursive)
{
    const char *slash = strrchr(prefix, '/');
    size_t folder = slash ? (size_t)(slash - prefix) + 1 : 0;
    if (strncmp(key, prefix, strlen(prefix)) != 0)
        return 0;
    if (start_after != NULL && strcmp(key, start_after) <= 0)
        return 0;
    return recursive || strchr(key + folder, '/') == NULL;
}

static int cmp_info(const void *a, const void *b)
{
    return strcmp(((const io_object_info *)a)->key, ((const io_object_info *)b)->key);
}

/* The staged files of the chain, as `_delta_log/<v>.<rest>` entries, into out. */
static silt_status add_staged(branch_store *bs, const char *prefix, const char *start_after,
                              int recursive, io_listing *out, silt_error *err)
{
    io_listing staged = IO_LISTING_INIT;
    int64_t newest = recorded_last(bs);
    size_t idx;
    silt_status rc =
        bs->inner->ops->list(bs->inner, DELTA_BRANCH_STAGED_DIR, NULL, 0, &staged, err);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(rc);
    if (bs->follow_own && bs->own_id != NULL) {
        /* own commits past the recorded end: contiguous ones count (a writer that died
         * before recording its commit in the catalog) */
        for (;;) {
            char key[256];
            int found = 0;
            delta_branch_staged_key(newest + 1, bs->own_id, "json", key, sizeof(key));
            for (idx = 0; idx < staged.count && !found; idx++)
                found = strcmp(staged.items[idx].key, key) == 0;
            if (!found)
                break;
            newest++;
        }
    } else if (bs->pin >= 0 && bs->pin < newest) {
        newest = bs->pin;
    }
    for (idx = 0; rc == SILT_OK && idx < staged.count; idx++) {
        const io_object_info *it = &staged.items[idx];
        char id[64], key[256];
        const char *rest, *owner;
        int64_t v;
        if (!delta_branch_parse_staged(it->key + STAGED_LEN, &v, id, &rest) || v <= bs->fork ||
            v > newest)
            continue;
        owner = segment_owner(bs, v);
        if (owner == NULL)
            owner = bs->follow_own ? bs->own_id : NULL;
        if (owner == NULL || strcmp(owner, id) != 0)
            continue;
        snprintf(key, sizeof(key), DLOG_DIR "%020lld.%s", (long long)v, rest);
        if (listed(key, prefix, start_after, recursive))
            rc = io_listing_add(out, key, it->size, it->mtime_micros, err);
    }
    io_listing_clear(&staged);
    return rc;
}

static silt_status branch_list(io_store *store, const char *prefix, const char *start_after,
                               int recursive, io_listing *out, silt_error *err)
{
    branch_store *bs = (branch_store *)store;
    io_listing inner = IO_LISTING_INIT;
    size_t idx, first = out->count;
    int touches_log = strncmp(prefix, DLOG_DIR, strlen(prefix) < LOG_DIR_LEN ? strlen(prefix)
                                                                             : LOG_DIR_LEN) == 0;
    silt_status rc = bs->inner->ops->list(bs->inner, prefix, start_after, recursive, &inner, err);
    if (rc == SILT_NOTFOUND && touches_log) {
        err_clear(err);
        rc = SILT_OK;
    }
    SILT_RETURN_IF_ERROR(rc);
    for (idx = 0; rc == SILT_OK && idx < inner.count; idx++) {
        const io_object_info *it = &inner.items[idx];
        int64_t v;
        const char *rest;
        if (is_log_key(it->key)) {
            if (strncmp(it->key, DELTA_BRANCH_STAGED_DIR, STAGED_LEN) == 0 ||
                strcmp(it->key, DLOG_DIR "_last_checkpoint") == 0)
                continue;
            if (log_version(it->key, &v, &rest) &&
                (v > bs->fork || strstr(rest, "compacted") != NULL ||
                 (bs->pin >= 0 && !bs->follow_own && v > bs->pin)))
                continue;
        }
        rc = io_listing_add(out, it->key, it->size, it->mtime_micros, err);
    }
    io_listing_clear(&inner);
    if (rc == SILT_OK && touches_log)
        rc = add_staged(bs, prefix, start_after, recursive, out, err);
    if (rc == SILT_OK)
        qsort(out->items + first, out->count - first, sizeof(io_object_info), cmp_info);
    if (rc == SILT_OK && out->count == first && touches_log && strlen(prefix) >= LOG_DIR_LEN)
        return err_set(err, SILT_NOTFOUND, "\"%s\" holds nothing on reference '%s'", prefix,
                       bs->ref_name);
    return rc;
}

static void branch_destroy(io_store *store)
{
    branch_store *bs = (branch_store *)store;
    size_t idx;
    io_store_free(bs->inner);
    for (idx = 0; idx < bs->n_segments; idx++)
        mem_free((char *)bs->segments[idx].id);
    mem_free(bs->segments);
    mem_free(bs->own_id);
    mem_free(bs->ref_name);
    mem_free(bs);
}

static const io_store_ops branch_ops = {"branch",          branch_get_range, branch_put,
                                        branch_list,       branch_remove,    branch_head,
                                        branch_open_file,  branch_open_writer,
                                        branch_destroy};

silt_status delta_branch_store_wrap(io_store **out, io_store *inner, const delta_branch_view *view,
                               silt_error *err)
{
    branch_store *bs = mem_calloc(1, sizeof(*bs));
    size_t idx;
    int ok = bs != NULL;
    if (ok) {
        bs->base.ops = &branch_ops;
        bs->base.root = inner->root;
        bs->inner = inner;
        bs->fork = view->fork;
        bs->pin = view->pin;
        bs->follow_own = view->follow_own;
        bs->on_commit = view->on_commit;
        bs->payload = view->payload;
        bs->ref_name = mem_strdup(view->ref_name ? view->ref_name : "?");
        bs->own_id = view->own_id ? mem_strdup(view->own_id) : NULL;
        bs->segments = mem_calloc(view->n_segments + 1, sizeof(delta_branch_segment));
        ok = bs->ref_name != NULL && (view->own_id == NULL || bs->own_id != NULL) &&
             bs->segments != NULL;
        for (idx = 0; ok && idx < view->n_segments; idx++) {
            bs->segments[idx].last = view->segments[idx].last;
            ok = (bs->segments[idx].id = mem_strdup(view->segments[idx].id)) != NULL;
            bs->n_segments += ok;
        }
    }
    if (!ok) {
        if (bs != NULL) {
            bs->inner = NULL;
            branch_destroy(&bs->base);
        }
        io_store_free(inner);
        return err_nomem(err);
    }
    *out = &bs->base;
    return SILT_OK;
}

int delta_branch_store_is(const io_store *store)
{
    return store != NULL && store->ops == &branch_ops;
}

io_store *delta_branch_store_inner(io_store *store)
{
    return delta_branch_store_is(store) ? ((branch_store *)store)->inner : store;
}

silt_status delta_branch_store_source_key(io_store *store, int64_t version, char *out, size_t cap,
                                     silt_error *err)
{
    char key[64];
    const char *mapped;
    if (!delta_branch_store_is(store))
        return err_set(err, SILT_INVALID, "not a branch view");
    snprintf(key, sizeof(key), DLOG_DIR "%020lld.json", (long long)version);
    map_read((const branch_store *)store, key, out, cap, &mapped);
    if (mapped == NULL)
        return not_found(key, err);
    if (mapped != out)
        snprintf(out, cap, "%s", mapped);
    return SILT_OK;
}
