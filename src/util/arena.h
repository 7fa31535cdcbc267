/*
 * arena.h - region allocator with named lifetimes.
 *
 * Arenas form a tree (database -> session -> query -> operator -> batch):
 * freeing a parent frees its children. arena_reset() drops everything
 * allocated so far (and the children) but keeps the first block for reuse,
 * the way a per-batch context is reset after every batch. Cleanup callbacks
 * let an arena own non-memory resources (open files, requests); they run in
 * reverse order of registration on reset and free.
 *
 * Allocations are 16-byte aligned (arena_alloc_aligned for more, e.g. 64 for
 * column buffers). An arena is not thread-safe: give each thread its own
 * child. The one exception is a shared arena (arena_new_shared, the
 * database's): its allocations, cleanups and list of children take a lock,
 * so threads may hang children (their connections) under it and free them
 * at any time. A child of a shared arena is an ordinary arena again.
 *
 * An arena may name the memory budget (util/budget.h) of everything below
 * it: arena_budget() finds the nearest one up the tree, so a statement's
 * arena, a child of its connection's, a child of its database's, reaches
 * the budget its operators reserve from. The arena does not charge its
 * blocks to it (the operators charge what they hold; see docs/engine.md). Setting SILT_DEBUG_ARENA=1 in the environment (or building with
 * SILT_DEBUG_ARENA defined) makes every allocation a separate malloc so ASan
 * and Valgrind see overruns.
 */
#ifndef SILT_UTIL_ARENA_H
#define SILT_UTIL_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "util/budget.h"

typedef struct arena arena;
typedef void (*arena_cleanup_fn)(void *payload);

/* Creates an arena (a child of parent when parent is not NULL); NULL on OOM. */
arena *arena_new(arena *parent, const char *name);
/* A root arena that threads may share (see above); NULL on OOM. */
arena *arena_new_shared(const char *name);
/* Frees the arena, its children and everything allocated from it. NULL is fine. */
void arena_free(arena *a);
/* Frees all allocations and children, runs the cleanups; the arena stays usable. */
void arena_reset(arena *a);

/* Returns size bytes (16-byte aligned) or NULL on OOM. Zero-size gives a valid pointer. */
void *arena_alloc(arena *a, size_t size);
/* Like arena_alloc but zero-filled. */
void *arena_calloc(arena *a, size_t count, size_t size);
/* Alignment must be a power of two, at most 4096. */
void *arena_alloc_aligned(arena *a, size_t size, size_t alignment);
/* Grows an allocation made from this arena (copies; old memory stays until reset). */
void *arena_realloc(arena *a, void *ptr, size_t old_size, size_t new_size);
char *arena_strdup(arena *a, const char *s);
char *arena_strndup(arena *a, const char *s, size_t len);
void *arena_memdup(arena *a, const void *src, size_t len);
/* printf into the arena; NULL on OOM. */
char *arena_sprintf(arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Registers fn(payload) to run when the arena is reset or freed. 0 on OOM. */
int arena_on_cleanup(arena *a, arena_cleanup_fn fn, void *payload);

/*
 * Whether p points into memory a or one of its descendants handed out
 * (so that it lives exactly as long as a). Walks the blocks: for checks
 * over a handful of pointers, not for hot loops.
 */
int arena_owns(const arena *a, const void *p);
/* Unlinks a from its parent: a becomes a root that its caller frees. */
void arena_detach(arena *a);

/* Names the budget of a (borrowed; it must outlive the arena). */
void arena_set_budget(arena *a, mem_budget *budget);
/* The budget of a or of its nearest ancestor that has one, or NULL. */
mem_budget *arena_budget(const arena *a);
arena *arena_parent(const arena *a);

/* Bytes handed out since the last reset (for accounting and tests). */
size_t arena_bytes_used(const arena *a);
const char *arena_name(const arena *a);

#endif
