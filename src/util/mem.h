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
#include <string.h>

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

/*
 * Whether len bytes at a and b are equal. Short values (the usual partition
 * values, dictionary strings, map keys) are compared with two overlapping
 * word loads instead of a call to memcmp, which costs more than the compare
 * itself for a few bytes (up to 32 bytes: words, the last ones overlapping);
 * longer ones go to memcmp.
 */
static inline int mem_eq(const void *a, const void *b, size_t len)
{
    const unsigned char *x = a, *y = b;
    uint64_t u, v;
    uint32_t s, t;
    if (len > 32)
        return memcmp(a, b, len) == 0;
    if (len > 16) { /* [0, 16) and [len - 16, len) cover the value */
        uint64_t u2, v2;
        memcpy(&u, x, 8);
        memcpy(&v, y, 8);
        memcpy(&u2, x + 8, 8);
        memcpy(&v2, y + 8, 8);
        if (u != v || u2 != v2)
            return 0;
        memcpy(&u, x + len - 16, 8);
        memcpy(&v, y + len - 16, 8);
        memcpy(&u2, x + len - 8, 8);
        memcpy(&v2, y + len - 8, 8);
        return u == v && u2 == v2;
    }
    if (len >= 8) {
        memcpy(&u, x, 8);
        memcpy(&v, y, 8);
        if (u != v)
            return 0;
        memcpy(&u, x + len - 8, 8);
        memcpy(&v, y + len - 8, 8);
        return u == v;
    }
    if (len >= 4) {
        memcpy(&s, x, 4);
        memcpy(&t, y, 4);
        if (s != t)
            return 0;
        memcpy(&s, x + len - 4, 4);
        memcpy(&t, y + len - 4, 4);
        return s == t;
    }
    for (size_t at = 0; at < len; at++)
        if (x[at] != y[at])
            return 0;
    return 1;
}

#endif
