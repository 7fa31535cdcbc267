/*
 * s3_cache.c - byte ranges of Parquet objects an S3 store fetched, kept for
 * the next opens of the same objects (a footer cache, and more).
 *
 * A scan opens a data file more than once (planning reads its footer, each
 * reader of its row groups opens it again); without the cache every open
 * fetched its tail, and the first small read its block, again. Only keys
 * ending ".parquet" are kept: Delta never rewrites a data or checkpoint
 * file (their names are unique), so a range read once stays true. A put or
 * delete of a key through the store drops its ranges all the same. The
 * cache holds at most CACHE_SLOTS ranges and CACHE_BYTES bytes, oldest out.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>

#include "io/s3.h"
#include "util/mem.h"

#define CACHE_SLOTS 64
#define CACHE_BYTES ((size_t)64 << 20)

typedef struct cached_range {
    char *key; /* NULL: a free slot */
    int64_t offset;
    int64_t object_size;
    char *data;
    size_t len;
    uint64_t stamp; /* when added: the smallest goes first */
} cached_range;

struct io_s3_cache {
    pthread_mutex_t mutex;
    cached_range slots[CACHE_SLOTS];
    size_t bytes;
    uint64_t clock;
};

io_s3_cache *io_s3_cache_new(void)
{
    io_s3_cache *c = mem_calloc(1, sizeof(*c));
    if (c != NULL)
        pthread_mutex_init(&c->mutex, NULL);
    return c;
}

static void drop_slot(io_s3_cache *c, cached_range *r)
{
    c->bytes -= r->len;
    mem_free(r->key);
    mem_free(r->data);
    memset(r, 0, sizeof(*r));
}

void io_s3_cache_free(io_s3_cache *c)
{
    size_t idx;
    if (c == NULL)
        return;
    for (idx = 0; idx < CACHE_SLOTS; idx++)
        if (c->slots[idx].key != NULL)
            drop_slot(c, &c->slots[idx]);
    pthread_mutex_destroy(&c->mutex);
    mem_free(c);
}

int io_s3_cache_wants(const char *key) { return util_str_ends_with(key, ".parquet"); }

/* The range of key holding [offset, offset+len), or with tail set one ending at the object's end. */
static const cached_range *find_range(const io_s3_cache *c, const char *key, int64_t offset,
                                      size_t len, int tail)
{
    size_t idx;
    for (idx = 0; idx < CACHE_SLOTS; idx++) {
        const cached_range *r = &c->slots[idx];
        int fits = tail ? r->offset + (int64_t)r->len == r->object_size
                        : offset >= r->offset &&
                              offset + (int64_t)len <= r->offset + (int64_t)r->len;
        if (r->key != NULL && fits && strcmp(r->key, key) == 0)
            return r;
    }
    return NULL;
}

int io_s3_cache_read(io_s3_cache *c, const char *key, int64_t offset, size_t len, void *dst)
{
    const cached_range *r;
    if (c == NULL || !io_s3_cache_wants(key))
        return 0;
    pthread_mutex_lock(&c->mutex);
    r = find_range(c, key, offset, len, 0);
    if (r != NULL)
        memcpy(dst, r->data + (offset - r->offset), len);
    pthread_mutex_unlock(&c->mutex);
    return r != NULL;
}

int io_s3_cache_has(io_s3_cache *c, const char *key, int64_t offset, size_t len)
{
    int found;
    if (c == NULL || !io_s3_cache_wants(key))
        return 0;
    pthread_mutex_lock(&c->mutex);
    found = find_range(c, key, offset, len, 0) != NULL;
    pthread_mutex_unlock(&c->mutex);
    return found;
}

int io_s3_cache_tail(io_s3_cache *c, const char *key, int64_t *size_out)
{
    const cached_range *r;
    if (c == NULL || !io_s3_cache_wants(key))
        return 0;
    pthread_mutex_lock(&c->mutex);
    r = find_range(c, key, 0, 0, 1);
    if (r != NULL)
        *size_out = r->object_size;
    pthread_mutex_unlock(&c->mutex);
    return r != NULL;
}

/* The slot to fill: a free one, else the oldest; evicts until len more bytes fit. */
static cached_range *make_room(io_s3_cache *c, size_t len)
{
    cached_range *pick = NULL;
    for (;;) {
        cached_range *oldest = NULL, *free_slot = NULL;
        size_t idx;
        for (idx = 0; idx < CACHE_SLOTS; idx++) {
            cached_range *r = &c->slots[idx];
            if (r->key == NULL)
                free_slot = free_slot ? free_slot : r;
            else if (oldest == NULL || r->stamp < oldest->stamp)
                oldest = r;
        }
        pick = free_slot;
        if (pick != NULL && c->bytes + len <= CACHE_BYTES)
            return pick;
        if (oldest == NULL)
            return pick;
        drop_slot(c, oldest);
    }
}

void io_s3_cache_add(io_s3_cache *c, const char *key, int64_t offset, int64_t object_size,
                     const void *data, size_t len)
{
    cached_range *r;
    char *copy_key, *copy;
    if (c == NULL || len == 0 || len > CACHE_BYTES / 4 || !io_s3_cache_wants(key))
        return;
    copy_key = mem_strdup(key);
    copy = mem_alloc(len);
    if (copy_key == NULL || copy == NULL) {
        mem_free(copy_key);
        mem_free(copy);
        return; /* a cache that cannot grow just misses */
    }
    memcpy(copy, data, len);
    pthread_mutex_lock(&c->mutex);
    r = make_room(c, len);
    r->key = copy_key;
    r->offset = offset;
    r->object_size = object_size;
    r->data = copy;
    r->len = len;
    r->stamp = ++c->clock;
    c->bytes += len;
    pthread_mutex_unlock(&c->mutex);
}

void io_s3_cache_drop(io_s3_cache *c, const char *key)
{
    size_t idx;
    if (c == NULL || !io_s3_cache_wants(key))
        return;
    pthread_mutex_lock(&c->mutex);
    for (idx = 0; idx < CACHE_SLOTS; idx++)
        if (c->slots[idx].key != NULL && strcmp(c->slots[idx].key, key) == 0)
            drop_slot(c, &c->slots[idx]);
    pthread_mutex_unlock(&c->mutex);
}
