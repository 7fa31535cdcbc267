/*
 * mem.h - the only place raw malloc/free are called from outside util/.
 *
 * Every allocation of silt goes through these wrappers (or an arena), so that
 * fault injection and accounting have one place to hook in. The wrappers
 * return NULL on failure like malloc; callers turn that into err_nomem().
 */
#ifndef SILT_UTIL_MEM_H
#define SILT_UTIL_MEM_H

#include <stddef.h>
#include <stdint.h>

void *mem_alloc(size_t size);
void *mem_calloc(size_t count, size_t size);
void *mem_realloc(void *ptr, size_t size);
void mem_free(void *ptr);
/* Copies a NUL-terminated string; NULL on failure or NULL input. */
char *mem_strdup(const char *s);
char *mem_strndup(const char *s, size_t len);

/*
 * Fault injection for tests: after `countdown` more successful allocations,
 * every allocation fails until mem_fail_reset(). A negative countdown turns
 * injection off (the default). Not thread-safe; tests only.
 */
void mem_fail_after(long countdown);
void mem_fail_reset(void);

/* Multiplies two sizes; returns 0 (and leaves *out untouched) on overflow. */
static inline int mem_mul_ok(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

#endif
