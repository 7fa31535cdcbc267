/*
 * checkpoint.c - a streaming query's checkpoint: a write-ahead log in
 * Spark's layout (docs/streaming.md, "Checkpoint"):
 *
 *   metadata      {"id":"<query id>","silt":{"query":"<source -> sink>"}}
 *   offsets/N     v1, {"batchWatermarkMs":..,"batchTimestampMs":..,"conf":{}}, the source offset
 *   sources/0/N   the file source's files of batch N (v1, one JSON per file)
 *   state/N       aggregation state after batch N
 *   commits/N     v1, {"nextBatchWatermarkMs":0}
 *
 * Every file is written whole through the store's atomic publication
 * (temporary file, fsync, link or rename, folder fsync), offsets/N and
 * commits/N with put-if-absent, so a second writer that got past the lock
 * (another machine on a shared store) loses the race instead of mixing its
 * batches in. The lock is flock() on <checkpoint>/.lock for local
 * checkpoints: the kernel drops it when the process dies, SIGKILL included,
 * so a crash never leaves a stale lock.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "delta/txn.h"
#include "formats/text.h"
#include "stream/stream_int.h"
#include "util/mem.h"

int stream_json_int(const char *json, const char *key, int64_t *out)
{
    char pat[96];
    const char *at, *end;
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    at = strstr(json, pat);
    if (at == NULL)
        return 0;
    at += strlen(pat);
    for (end = at; *end == '-' || (*end >= '0' && *end <= '9'); end++)
        ;
    return end > at && util_str_to_int64(at, (size_t)(end - at), out);
}

int stream_json_str(const char *json, const char *key, arena *a, char **out)
{
    char pat[96];
    const char *at, *end;
    buf b;
    int ok = 1;
    snprintf(pat, sizeof(pat), "\"%s\":\"", key);
    at = strstr(json, pat);
    if (at == NULL)
        return 0;
    at += strlen(pat);
    buf_init(&b, 0);
    for (end = at; ok && *end != '\0' && *end != '"'; end++) {
        if (*end == '\\' && end[1] != '\0')
            end++;
        ok = buf_append_char(&b, *end, NULL) == SILT_OK;
    }
    ok = ok && *end == '"' && (*out = arena_strndup(a, b.data ? b.data : "", b.len)) != NULL;
    buf_clear(&b);
    return ok;
}

static silt_status newest(io_store *store, const char *dir, int64_t *out, silt_error *err)
{
    io_listing l = IO_LISTING_INIT;
    char prefix[64];
    size_t idx;
    silt_status rc;
    snprintf(prefix, sizeof(prefix), "%s/", dir);
    *out = -1;
    rc = io_list(store, prefix, NULL, 0, &l, err);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        return SILT_OK;
    }
    for (idx = 0; rc == SILT_OK && idx < l.count; idx++) {
        const char *name = l.items[idx].key + strlen(prefix);
        int64_t n;
        if (util_str_to_int64(name, strlen(name), &n) && n > *out)
            *out = n;
    }
    io_listing_clear(&l);
    return rc;
}

/* flock() on <location>/.lock when the checkpoint is a local folder. */
static silt_status lock(stream_ckpt *c, const char *location, silt_error *err)
{
    const char *path = io_location_local_path(location);
    char *file;
    if (strstr(path, "://") != NULL)
        return SILT_OK; /* object stores: put-if-absent of offsets/N is the guard */
    file = mem_alloc(strlen(path) + 8);
    if (file == NULL)
        return err_nomem(err);
    snprintf(file, strlen(path) + 8, "%s/.lock", path);
    c->lock_fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    mem_free(file);
    if (c->lock_fd < 0)
        return err_set(err, SILT_IO, "could not open the lock of checkpoint \"%s\": %s", location,
                       strerror(errno));
    if (flock(c->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(c->lock_fd);
        c->lock_fd = -1;
        if (e == EWOULDBLOCK)
            return err_set(err, SILT_CONFLICT, "[CONCURRENT_QUERY] Another instance of this query "
                           "is running: checkpoint \"%s\" is in use by another stream", location);
        return err_set(err, SILT_IO, "could not lock checkpoint \"%s\": %s", location,
                       strerror(e));
    }
    return SILT_OK;
}

static silt_status metadata(stream_ckpt *c, const char *location, const char *desc,
                            silt_error *err)
{
    buf b, q;
    arena *a = NULL;
    char *id = NULL, *had = NULL;
    silt_status rc;
    buf_init(&b, 0);
    buf_init(&q, 0);
    rc = delta_uuid_v4(c->id, err);
    if (rc == SILT_OK)
        rc = text_json_string(&q, desc, strlen(desc), err);
    if (rc == SILT_OK)
        rc = buf_printf(&b, err, "{\"id\":\"%s\",\"silt\":{\"query\":%s}}\n", c->id,
                        buf_cstr(&q));
    if (rc == SILT_OK)
        rc = io_put_if_absent(c->store, "metadata", b.data, b.len, err);
    if (rc != SILT_EXISTS)
        goto done;
    err_clear(err);
    buf_truncate(&b, 0);
    rc = io_get(c->store, "metadata", &b, err);
    if (rc == SILT_OK && buf_append_char(&b, '\0', err) == SILT_OK &&
        (a = arena_new(NULL, "stream metadata")) == NULL)
        rc = err_nomem(err);
    if (rc != SILT_OK)
        goto done;
    if (!stream_json_str(b.data, "id", a, &id) || strlen(id) >= sizeof(c->id)) {
        rc = err_set(err, SILT_CORRUPT, "checkpoint \"%s\" has no query id in its metadata",
                     location);
        goto done;
    }
    memcpy(c->id, id, strlen(id) + 1);
    if (stream_json_str(b.data, "query", a, &had) && strcmp(had, desc) != 0)
        rc = err_set(err, SILT_INVALID, "checkpoint \"%s\" belongs to another query (%s); this "
                     "one is %s: give each query a checkpoint of its own", location, had, desc);
done:
    arena_free(a);
    buf_clear(&b);
    buf_clear(&q);
    return rc;
}

/*
 * commits/N is written without a sync (stream_ckpt_write_commit): after a
 * machine crash the newest ones may be empty. Such a batch is not
 * committed: its file is removed and the batch runs again.
 */
static silt_status drop_torn_commits(stream_ckpt *c, silt_error *err)
{
    buf b;
    silt_status rc = SILT_OK;
    buf_init(&b, 0);
    while (rc == SILT_OK && c->last_commit >= 0) {
        char key[96];
        rc = stream_ckpt_read(c, "commits", c->last_commit, &b, err);
        if (rc != SILT_OK || util_str_starts_with(b.data ? b.data : "", "v1\n"))
            break;
        snprintf(key, sizeof(key), "commits/%lld", (long long)c->last_commit);
        rc = io_delete(c->store, key, err);
        if (rc == SILT_OK)
            rc = newest(c->store, "commits", &c->last_commit, err);
    }
    buf_clear(&b);
    return rc;
}

silt_status stream_ckpt_write_commit(stream_ckpt *c, int64_t n, const char *data, size_t len,
                                     silt_error *err)
{
    char key[96];
    silt_status rc;
    if (c->store == NULL)
        return SILT_OK;
    snprintf(key, sizeof(key), "commits/%lld", (long long)n);
    rc = io_put_lazy(c->store, key, data, len, 1, err);
    if (rc == SILT_EXISTS) {
        err_clear(err);
        return err_set(err, SILT_CONFLICT, "[CONCURRENT_QUERY] another stream wrote %s of this "
                       "checkpoint at the same time: only one stream may run on a checkpoint",
                       key);
    }
    return rc;
}

silt_status stream_ckpt_open(stream_ckpt *c, sql_session *s, const char *location,
                             const char *desc, silt_error *err)
{
    silt_status rc;
    memset(c, 0, sizeof(*c));
    c->lock_fd = -1;
    c->last_offset = c->last_commit = -1;
    if (location == NULL)
        return delta_uuid_v4(c->id, err);
    rc = sql_session_store_open(s, location, 1, &c->store, err);
    if (rc == SILT_OK)
        rc = lock(c, location, err);
    if (rc == SILT_OK)
        rc = metadata(c, location, desc, err);
    if (rc == SILT_OK)
        rc = newest(c->store, "offsets", &c->last_offset, err);
    if (rc == SILT_OK)
        rc = newest(c->store, "commits", &c->last_commit, err);
    if (rc == SILT_OK)
        rc = drop_torn_commits(c, err);
    if (rc == SILT_OK && c->last_commit > c->last_offset)
        rc = err_set(err, SILT_CORRUPT, "checkpoint \"%s\" commits batch %lld that it has no "
                     "offsets for", location, (long long)c->last_commit);
    if (rc != SILT_OK) {
        err_context(err, "while opening checkpoint \"%s\"", location);
        stream_ckpt_close(c);
    }
    return rc;
}

void stream_ckpt_close(stream_ckpt *c)
{
    if (c->lock_fd >= 0)
        close(c->lock_fd); /* drops the flock */
    c->lock_fd = -1;
    io_store_free(c->store);
    c->store = NULL;
    buf_clear(&c->staged);
    c->has_staged = 0;
}

silt_status stream_ckpt_read(stream_ckpt *c, const char *dir, int64_t n, buf *out,
                             silt_error *err)
{
    char key[96];
    if (c->store == NULL)
        return err_set(err, SILT_NOTFOUND, "no checkpoint");
    snprintf(key, sizeof(key), "%s/%lld", dir, (long long)n);
    buf_truncate(out, 0);
    SILT_RETURN_IF_ERROR(io_get(c->store, key, out, err));
    SILT_RETURN_IF_ERROR(buf_append_char(out, '\0', err));
    buf_truncate(out, out->len - 1);
    return SILT_OK;
}

silt_status stream_ckpt_stage(stream_ckpt *c, const char *dir, int64_t n, const char *data,
                              size_t len, silt_error *err)
{
    if (c->store == NULL)
        return SILT_OK;
    snprintf(c->staged_key, sizeof(c->staged_key), "%s/%lld", dir, (long long)n);
    buf_truncate(&c->staged, 0);
    SILT_RETURN_IF_ERROR(buf_append(&c->staged, data, len, err));
    c->has_staged = 1;
    return SILT_OK;
}

typedef struct staged_put {
    stream_ckpt *c;
    silt_status rc;
    silt_error err;
} staged_put;

static void *put_staged(void *payload)
{
    staged_put *sp = payload;
    sp->rc = io_put(sp->c->store, sp->c->staged_key, sp->c->staged.data, sp->c->staged.len,
                    &sp->err);
    return NULL;
}

silt_status stream_ckpt_write(stream_ckpt *c, const char *dir, int64_t n, const char *data,
                              size_t len, int if_absent, silt_error *err)
{
    char key[96];
    silt_status rc;
    staged_put sp;
    pthread_t th;
    int threaded = 0;
    if (c->store == NULL)
        return SILT_OK;
    snprintf(key, sizeof(key), "%s/%lld", dir, (long long)n);
    if (c->has_staged) {
        c->has_staged = 0;
        sp.c = c;
        sp.rc = SILT_OK;
        err_clear(&sp.err);
        threaded = pthread_create(&th, NULL, put_staged, &sp) == 0;
        if (!threaded)
            put_staged(&sp); /* no thread: one after the other, still correct */
        if (!threaded && sp.rc != SILT_OK) {
            err_copy(err, &sp.err);
            return sp.rc;
        }
    }
    rc = if_absent ? io_put_if_absent(c->store, key, data, len, err)
                   : io_put(c->store, key, data, len, err);
    if (threaded) {
        pthread_join(th, NULL);
        if (sp.rc != SILT_OK && (rc == SILT_OK || rc == SILT_EXISTS)) {
            err_copy(err, &sp.err);
            return sp.rc;
        }
    }
    if (rc == SILT_EXISTS) {
        err_clear(err);
        return err_set(err, SILT_CONFLICT, "[CONCURRENT_QUERY] another stream wrote %s of this "
                       "checkpoint at the same time: only one stream may run on a checkpoint",
                       key);
    }
    return rc;
}

silt_status stream_ckpt_source_offset(stream_ckpt *c, int64_t n, arena *a, char **out,
                                      silt_error *err)
{
    buf b;
    const char *line;
    silt_status rc;
    buf_init(&b, 0);
    rc = stream_ckpt_read(c, "offsets", n, &b, err);
    /* the source offset is the last line (Spark's OffsetSeqLog with one source) */
    while (rc == SILT_OK && b.len > 0 && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == '\0'))
        b.data[--b.len] = '\0';
    line = rc == SILT_OK ? strrchr(b.data, '\n') : NULL;
    if (rc == SILT_OK && line == NULL)
        rc = err_set(err, SILT_CORRUPT, "offsets/%lld of the checkpoint has no source offset",
                     (long long)n);
    if (rc == SILT_OK && (*out = arena_strdup(a, line + 1)) == NULL)
        rc = err_nomem(err);
    buf_clear(&b);
    return rc;
}
