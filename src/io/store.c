/*
 * store.c - store-independent parts of the object store interface: key
 * validation, dispatch to the back end, listings, and the location parser.
 */
#define _POSIX_C_SOURCE 200809L
#include "io/store.h"

#include <string.h>
#include <unistd.h>

#include "io/s3.h"
#include "util/mem.h"

silt_status io_check_key(const char *key, silt_error *err)
{
    const char *seg = key;
    if (key == NULL || key[0] == '\0')
        return err_set(err, SILT_INVALID, "object key is empty");
    if (key[0] == '/')
        return err_set(err, SILT_INVALID, "object key \"%s\" is absolute", key);
    for (;;) {
        const char *end = strchr(seg, '/');
        size_t len = end ? (size_t)(end - seg) : strlen(seg);
        if ((len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
            return err_set(err, SILT_INVALID,
                           "object key \"%s\" has a \".\" or \"..\" segment that could escape the "
                           "table root",
                           key);
        if (len == 0 && end != NULL)
            return err_set(err, SILT_INVALID, "object key \"%s\" has an empty segment", key);
        if (end == NULL)
            break;
        seg = end + 1;
    }
    return SILT_OK;
}

/* Prefixes may end in '/', or be empty (the whole store). */
static silt_status check_prefix(const char *prefix, silt_error *err)
{
    size_t len;
    char tmp[4096];
    if (prefix == NULL || prefix[0] == '\0')
        return SILT_OK;
    len = strlen(prefix);
    if (len >= sizeof(tmp))
        return err_set(err, SILT_INVALID, "object prefix is longer than %zu bytes", sizeof(tmp));
    memcpy(tmp, prefix, len + 1);
    if (tmp[len - 1] == '/')
        tmp[len - 1] = '\0';
    if (tmp[0] == '\0')
        return err_set(err, SILT_INVALID, "object prefix \"/\" is absolute");
    return io_check_key(tmp, err);
}

char *io_key_join(const char *left, const char *right)
{
    size_t left_len = strlen(left);
    size_t right_len = strlen(right);
    char *out;
    while (left_len > 0 && left[left_len - 1] == '/')
        left_len--;
    while (right_len > 0 && right[0] == '/') {
        right++;
        right_len--;
    }
    out = mem_alloc(left_len + right_len + 2);
    if (out == NULL)
        return NULL;
    memcpy(out, left, left_len);
    /* "/" joined with "k" is "/k" (the local root store, io_local_root_store), not "k" */
    if ((left_len > 0 || left[0] == '/') && right_len > 0)
        out[left_len++] = '/';
    memcpy(out + left_len, right, right_len);
    out[left_len + right_len] = '\0';
    return out;
}

const char *io_location_local_path(const char *location)
{
    if (util_str_starts_with(location, "file://localhost/"))
        return location + strlen("file://localhost");
    if (util_str_starts_with(location, "file:///"))
        return location + strlen("file://");
    if (util_str_starts_with(location, "file:/") && location[6] != '/')
        return location + strlen("file:");
    return location;
}

/* Appends the parts of path to out (which starts "/"), resolving "." and "..". */
static void append_resolved(char *out, const char *path)
{
    size_t len = strlen(out);
    while (*path != '\0') {
        const char *end = strchr(path, '/');
        size_t n = end ? (size_t)(end - path) : strlen(path);
        if (n == 2 && path[0] == '.' && path[1] == '.') {
            while (len > 1 && out[len - 1] != '/')
                len--;
            if (len > 1)
                len--;
        } else if (n > 0 && !(n == 1 && path[0] == '.')) {
            if (len > 1)
                out[len++] = '/';
            memcpy(out + len, path, n);
            len += n;
        }
        out[len] = '\0';
        path += n;
        if (*path == '/')
            path++;
    }
}

char *io_location_qualify(const char *location, const char *base)
{
    const char *path = io_location_local_path(location);
    char cwd[4096];
    char *out;
    if (strstr(path, "://") != NULL)
        return mem_strdup(path);
    if (path[0] != '/' && base == NULL) {
        if (getcwd(cwd, sizeof(cwd)) == NULL)
            return NULL;
        base = cwd;
    }
    out = mem_alloc(strlen(path) + (path[0] == '/' ? 0 : strlen(base)) + 3);
    if (out == NULL)
        return NULL;
    out[0] = '/';
    out[1] = '\0';
    if (path[0] != '/')
        append_resolved(out, base);
    append_resolved(out, path);
    return out;
}

static int is_s3_location(const char *location)
{
    return util_str_starts_with(location, "s3://") || util_str_starts_with(location, "s3a://") ||
           util_str_starts_with(location, "s3n://");
}

/* The object stores silt has no back end for yet, refused by name. */
static const char *unsupported_store(const char *location)
{
    static const struct { const char *scheme; const char *what; } stores[] = {
        {"adl://", "Azure Data Lake Storage Gen1"},
    };
    size_t idx;
    for (idx = 0; idx < sizeof(stores) / sizeof(stores[0]); idx++)
        if (util_str_starts_with(location, stores[idx].scheme))
            return stores[idx].what;
    return NULL;
}

static silt_status open_location(io_store **out, const char *location, int create_root,
                                 const io_store_options *opts, silt_error *err)
{
    const char *other;
    location = io_location_local_path(location);
    if (util_str_starts_with(location, "file:"))
        return err_set(err, SILT_INVALID, "storage location \"%s\" is not a local file URI "
                       "(file:/path or file:///path)", location);
    if (is_s3_location(location) || io_cloud_is_location(location))
        return io_s3_store_open(out, location, opts, err);
    if ((other = unsupported_store(location)) != NULL)
        return err_set(err, SILT_UNSUPPORTED, "storage location \"%s\" is on %s, which silt does "
                       "not support yet: silt reads and writes local files, S3 (s3://, s3a://, "
                       "s3n://), Azure Blob and ADLS Gen2 (abfss://, abfs://, wasbs://, wasb://, "
                       "az://) and GCS (gs://, gcs://)", location, other);
    if (strstr(location, "://") != NULL)
        return err_set(err, SILT_UNSUPPORTED, "storage location \"%s\" uses a scheme silt cannot "
                       "read yet", location);
    return io_local_store_open(out, location, create_root, err);
}

silt_status io_store_open(io_store **out, const char *location, int create_root, silt_error *err)
{
    return open_location(out, location, create_root, NULL, err);
}

silt_status io_store_check_option(const char *key, const char *value, silt_error *err)
{
    if (key == NULL || key[0] == '\0')
        return err_set(err, SILT_INVALID, "a store option needs a key");
    if (io_s3_is_option_key(key))
        return io_s3_check_option(key, value, err);
    if (io_cloud_is_option_key(key))
        return io_cloud_check_option(key, value, err);
    return err_set(err, SILT_INVALID, "store option \"%s\" is not known: the local file system "
                   "store takes no options, the S3 store takes fs.s3a.* keys, the Azure store "
                   "fs.azure.* keys and the GCS store fs.gs.* keys", key);
}

silt_status io_store_open_with(io_store **out, const char *location, int create_root,
                               const io_store_options *opts, silt_error *err)
{
    size_t idx;
    *out = NULL;
    for (idx = 0; opts != NULL && idx < opts->n; idx++)
        SILT_RETURN_IF_ERROR(io_store_check_option(opts->keys[idx], opts->values[idx], err));
    return open_location(out, location, create_root, opts, err);
}

void io_store_free(io_store *store)
{
    if (store != NULL)
        store->ops->destroy(store);
}

const char *io_store_root(const io_store *store) { return store->root; }

silt_status io_get_range(io_store *store, const char *key, int64_t offset, int64_t len, buf *out,
                         silt_error *err)
{
    SILT_RETURN_IF_ERROR(io_check_key(key, err));
    if (offset < 0 || len < 0)
        return err_set(err, SILT_INVALID, "negative range %lld+%lld requested from \"%s\"",
                       (long long)offset, (long long)len, key);
    return store->ops->get_range(store, key, offset, len, out, err);
}

silt_status io_get(io_store *store, const char *key, buf *out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(io_check_key(key, err));
    /* len -1 means "to the end" for back ends. */
    return store->ops->get_range(store, key, 0, -1, out, err);
}

silt_status io_put(io_store *store, const char *key, const void *data, size_t len,
                   silt_error *err)
{
    SILT_RETURN_IF_ERROR(io_check_key(key, err));
    return store->ops->put(store, key, data, len, 0, err);
}

silt_status io_put_if_absent(io_store *store, const char *key, const void *data, size_t len,
                             silt_error *err)
{
    SILT_RETURN_IF_ERROR(io_check_key(key, err));
    return store->ops->put(store, key, data, len, 1, err);
}

silt_status io_put_lazy(io_store *store, const char *key, const void *data, size_t len,
                        int if_absent, silt_error *err)
{
    int flags = if_absent ? 1 : 0;
    SILT_RETURN_IF_ERROR(io_check_key(key, err));
    /* only the local store knows the lazy bit (IO_PUT_LAZY); the others take 0 or 1 */
    if (strcmp(store->ops->scheme, "file") == 0)
        flags |= IO_PUT_LAZY;
    return store->ops->put(store, key, data, len, flags, err);
}

silt_status io_list(io_store *store, const char *prefix, const char *start_after, int recursive,
                    io_listing *out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(check_prefix(prefix, err));
    return store->ops->list(store, prefix ? prefix : "", start_after, recursive, out, err);
}

void io_object_info_clear(io_object_info *info)
{
    if (info == NULL)
        return;
    mem_free(info->key);
    info->key = NULL;
}

silt_status io_listing_add(io_listing *out, const char *key, int64_t size, int64_t mtime_micros,
                           silt_error *err)
{
    io_object_info *item;
    if (out->count == out->cap) {
        size_t cap = out->cap ? out->cap * 2 : 32;
        io_object_info *fresh = mem_realloc(out->items, cap * sizeof(*fresh));
        if (fresh == NULL)
            return err_nomem(err);
        out->items = fresh;
        out->cap = cap;
    }
    item = &out->items[out->count];
    if ((item->key = mem_strdup(key)) == NULL)
        return err_nomem(err);
    item->size = size;
    item->mtime_micros = mtime_micros;
    out->count++;
    return SILT_OK;
}

void io_listing_clear(io_listing *listing)
{
    size_t idx;
    if (listing == NULL)
        return;
    for (idx = 0; idx < listing->count; idx++)
        mem_free(listing->items[idx].key);
    mem_free(listing->items);
    listing->items = NULL;
    listing->count = 0;
    listing->cap = 0;
}

silt_status io_delete(io_store *store, const char *key, silt_error *err)
{
    SILT_RETURN_IF_ERROR(io_check_key(key, err));
    return store->ops->remove(store, key, err);
}

silt_status io_head(io_store *store, const char *key, io_object_info *out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(io_check_key(key, err));
    return store->ops->head(store, key, out, err);
}

silt_status io_file_open(io_store *store, const char *key, io_file **out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(io_check_key(key, err));
    return store->ops->open_file(store, key, out, err);
}

silt_status io_file_prefetch(io_file *file, const io_range *ranges, size_t n, silt_error *err)
{
    if (file->ops->prefetch == NULL || n == 0)
        return SILT_OK;
    return file->ops->prefetch(file, ranges, n, err);
}

silt_status io_file_read_at(io_file *file, int64_t offset, size_t len, void *dst,
                            silt_error *err)
{
    if (offset < 0 || (uint64_t)offset > (uint64_t)file->size ||
        len > (uint64_t)(file->size - offset))
        return err_set(err, SILT_INVALID,
                       "range %lld+%zu is past the end of \"%s\" (%lld bytes)", (long long)offset,
                       len, file->key, (long long)file->size);
    if (len == 0)
        return SILT_OK;
    return file->ops->read_at(file, offset, len, dst, err);
}

void io_file_close(io_file *file)
{
    if (file != NULL)
        file->ops->close(file);
}

silt_status io_writer_open(io_store *store, const char *key, io_writer **out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(io_check_key(key, err));
    return store->ops->open_writer(store, key, out, err);
}

silt_status io_writer_write(io_writer *w, const void *data, size_t len, silt_error *err)
{
    silt_status rc = w->ops->write(w, data, len, err);
    if (rc == SILT_OK)
        w->bytes_written += (int64_t)len;
    return rc;
}

silt_status io_writer_commit(io_writer *w, int if_absent, silt_error *err)
{
    return w->ops->commit(w, if_absent, err);
}

void io_writer_abort(io_writer *w)
{
    if (w != NULL)
        w->ops->abort(w);
}

