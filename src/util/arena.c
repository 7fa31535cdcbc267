/*
 * arena.c - region allocator: a list of blocks bumped forward, children,
 * and cleanup callbacks. See arena.h.
 *
 * Invariant: `cur` is the block being bumped; every earlier block is full
 * enough that we never go back to it. Large requests (more than a quarter
 * of the default block) get a block of their own so they waste nothing.
 */
#define _POSIX_C_SOURCE 200809L

#include "util/arena.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define ARENA_BLOCK_SIZE (64 * 1024)
#define ARENA_ALIGN 16

typedef struct arena_block {
    struct arena_block *next;
    size_t cap;
    size_t used;
    /* Data follows, aligned to ARENA_ALIGN. */
    _Alignas(16) unsigned char data[];
} arena_block;

typedef struct arena_cleanup {
    struct arena_cleanup *next;
    arena_cleanup_fn fn;
    void *payload;
} arena_cleanup;

struct arena {
    const char *name;
    arena *parent;
    arena *first_child;
    arena *next_sibling;
    arena_block *blocks; /* newest first */
    arena_cleanup *cleanups; /* newest first */
    size_t bytes_used;
    int debug_mode; /* every allocation is its own block */
    pthread_mutex_t *lock; /* shared arenas only */
    mem_budget *budget;
};

static void lock_arena(arena *a)
{
    if (a != NULL && a->lock != NULL)
        pthread_mutex_lock(a->lock);
}

static void unlock_arena(arena *a)
{
    if (a != NULL && a->lock != NULL)
        pthread_mutex_unlock(a->lock);
}

static int debug_mode_from_env(void)
{
#ifdef SILT_DEBUG_ARENA
    return 1;
#else
    const char *v = getenv("SILT_DEBUG_ARENA");
    return v != NULL && v[0] == '1';
#endif
}

arena *arena_new(arena *parent, const char *name)
{
    arena *a = mem_calloc(1, sizeof(*a));
    if (a == NULL)
        return NULL;
    a->name = name ? name : "arena";
    a->debug_mode = parent ? parent->debug_mode : debug_mode_from_env();
    if (parent != NULL) {
        lock_arena(parent);
        a->parent = parent;
        a->next_sibling = parent->first_child;
        parent->first_child = a;
        unlock_arena(parent);
    }
    return a;
}

arena *arena_new_shared(const char *name)
{
    arena *a = arena_new(NULL, name);
    if (a == NULL)
        return NULL;
    pthread_mutexattr_t attr;
    int ok;
    a->lock = mem_alloc(sizeof(*a->lock));
    /* Recursive: a reset frees the children, which unlink under the lock. */
    ok = a->lock != NULL && pthread_mutexattr_init(&attr) == 0;
    if (ok) {
        ok = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE) == 0 &&
             pthread_mutex_init(a->lock, &attr) == 0;
        pthread_mutexattr_destroy(&attr);
    }
    if (!ok) {
        mem_free(a->lock);
        a->lock = NULL;
        arena_free(a);
        return NULL;
    }
    return a;
}

static void unlink_from_parent(arena *a)
{
    arena **link;
    arena *parent = a->parent;
    if (parent == NULL)
        return;
    lock_arena(parent);
    for (link = &parent->first_child; *link != NULL; link = &(*link)->next_sibling) {
        if (*link == a) {
            *link = a->next_sibling;
            break;
        }
    }
    a->parent = NULL;
    unlock_arena(parent);
}

static void free_contents(arena *a, int keep_one_block)
{
    arena_cleanup *cleanup;
    arena_block *block;
    /* Children first: they may point into our memory from their cleanups.
     * (A shared arena is freed when no thread uses it any more.) */
    while (a->first_child != NULL)
        arena_free(a->first_child);
    cleanup = a->cleanups;
    while (cleanup != NULL) {
        arena_cleanup *next = cleanup->next;
        cleanup->fn(cleanup->payload);
        mem_free(cleanup);
        cleanup = next;
    }
    a->cleanups = NULL;
    block = a->blocks;
    a->blocks = NULL;
    while (block != NULL) {
        arena_block *next = block->next;
        if (keep_one_block && next == NULL && !a->debug_mode && block->cap == ARENA_BLOCK_SIZE) {
            block->used = 0;
            block->next = NULL;
            a->blocks = block;
        } else {
            mem_free(block);
        }
        block = next;
    }
    a->bytes_used = 0;
}

void arena_free(arena *a)
{
    if (a == NULL)
        return;
    unlink_from_parent(a);
    free_contents(a, 0);
    if (a->lock != NULL) {
        pthread_mutex_destroy(a->lock);
        mem_free(a->lock);
    }
    mem_free(a);
}

void arena_reset(arena *a)
{
    if (a == NULL)
        return;
    lock_arena(a);
    free_contents(a, 1);
    unlock_arena(a);
}

static arena_block *new_block(size_t cap)
{
    arena_block *block;
    if (cap > SIZE_MAX - sizeof(arena_block))
        return NULL;
    block = mem_alloc(sizeof(arena_block) + cap);
    if (block == NULL)
        return NULL;
    block->next = NULL;
    block->cap = cap;
    block->used = 0;
    return block;
}

static void *alloc_aligned(arena *a, size_t size, size_t alignment)
{
    arena_block *block = a->blocks;
    size_t start;
    if (alignment < ARENA_ALIGN)
        alignment = ARENA_ALIGN;
    if (size > SIZE_MAX - 2 * alignment)
        return NULL;
    if (block != NULL && !a->debug_mode) {
        uintptr_t base = (uintptr_t)block->data;
        start = ((base + block->used + alignment - 1) & ~(uintptr_t)(alignment - 1)) - base;
        if (start <= block->cap && size <= block->cap - start) {
            block->used = start + size;
            a->bytes_used += size;
            return block->data + start;
        }
    }
    {
        size_t need = size + alignment;
        size_t cap = (!a->debug_mode && need <= ARENA_BLOCK_SIZE / 4) ? ARENA_BLOCK_SIZE : need;
        arena_block *fresh = new_block(cap);
        uintptr_t base;
        if (fresh == NULL)
            return NULL;
        base = (uintptr_t)fresh->data;
        start = ((base + alignment - 1) & ~(uintptr_t)(alignment - 1)) - base;
        fresh->used = start + size;
        /* A dedicated big block goes behind the current one, so the current
         * one keeps being bumped. */
        if (cap != ARENA_BLOCK_SIZE && block != NULL && !a->debug_mode) {
            fresh->next = block->next;
            block->next = fresh;
        } else {
            fresh->next = block;
            a->blocks = fresh;
        }
        a->bytes_used += size;
        return fresh->data + start;
    }
}

void *arena_alloc_aligned(arena *a, size_t size, size_t alignment)
{
    void *p;
    if (a->lock == NULL)
        return alloc_aligned(a, size, alignment);
    pthread_mutex_lock(a->lock);
    p = alloc_aligned(a, size, alignment);
    pthread_mutex_unlock(a->lock);
    return p;
}

void *arena_alloc(arena *a, size_t size) { return arena_alloc_aligned(a, size, ARENA_ALIGN); }

void *arena_calloc(arena *a, size_t count, size_t size)
{
    size_t total;
    void *p;
    if (!mem_mul_ok(count, size, &total))
        return NULL;
    p = arena_alloc(a, total);
    if (p != NULL)
        memset(p, 0, total);
    return p;
}

void *arena_realloc(arena *a, void *ptr, size_t old_size, size_t new_size)
{
    void *fresh;
    if (new_size <= old_size && ptr != NULL)
        return ptr;
    fresh = arena_alloc(a, new_size);
    if (fresh != NULL && ptr != NULL && old_size > 0)
        memcpy(fresh, ptr, old_size);
    return fresh;
}

void *arena_memdup(arena *a, const void *src, size_t len)
{
    void *p = arena_alloc(a, len);
    if (p != NULL && len > 0)
        memcpy(p, src, len);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t len)
{
    char *p;
    if (s == NULL)
        return NULL;
    p = arena_alloc(a, len + 1);
    if (p == NULL)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *arena_strdup(arena *a, const char *s)
{
    if (s == NULL)
        return NULL;
    return arena_strndup(a, s, strlen(s));
}

char *arena_sprintf(arena *a, const char *fmt, ...)
{
    va_list ap;
    int len;
    char *p;
    va_start(ap, fmt);
    len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0)
        return NULL;
    p = arena_alloc(a, (size_t)len + 1);
    if (p == NULL)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)len + 1, fmt, ap);
    va_end(ap);
    return p;
}

int arena_on_cleanup(arena *a, arena_cleanup_fn fn, void *payload)
{
    arena_cleanup *cleanup = mem_alloc(sizeof(*cleanup));
    if (cleanup == NULL)
        return 0;
    cleanup->fn = fn;
    cleanup->payload = payload;
    lock_arena(a);
    cleanup->next = a->cleanups;
    a->cleanups = cleanup;
    unlock_arena(a);
    return 1;
}

int arena_owns(const arena *a, const void *p)
{
    const arena_block *block;
    const arena *child;
    uintptr_t at = (uintptr_t)p;
    for (block = a->blocks; block != NULL; block = block->next)
        if (at >= (uintptr_t)block->data && at < (uintptr_t)block->data + block->cap)
            return 1;
    for (child = a->first_child; child != NULL; child = child->next_sibling)
        if (arena_owns(child, p))
            return 1;
    return 0;
}

void arena_detach(arena *a)
{
    if (a != NULL)
        unlink_from_parent(a);
}

void arena_set_budget(arena *a, mem_budget *budget) { a->budget = budget; }

mem_budget *arena_budget(const arena *a)
{
    for (; a != NULL; a = a->parent)
        if (a->budget != NULL)
            return a->budget;
    return NULL;
}

arena *arena_parent(const arena *a) { return a->parent; }

size_t arena_bytes_used(const arena *a) { return a->bytes_used; }

const char *arena_name(const arena *a) { return a->name; }
