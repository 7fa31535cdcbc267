/*
 * mem.c - allocation wrappers with test-only fault injection.
 */
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

static long fail_countdown = -1;

static int should_fail(void)
{
    if (fail_countdown < 0)
        return 0;
    if (fail_countdown == 0)
        return 1;
    fail_countdown--;
    return 0;
}

void mem_fail_after(long countdown) { fail_countdown = countdown; }

void mem_fail_reset(void) { fail_countdown = -1; }

void *mem_alloc(size_t size)
{
    if (should_fail())
        return NULL;
    return malloc(size ? size : 1);
}

void *mem_calloc(size_t count, size_t size)
{
    if (should_fail())
        return NULL;
    if (count == 0 || size == 0)
        return calloc(1, 1);
    return calloc(count, size);
}

void *mem_realloc(void *ptr, size_t size)
{
    if (should_fail())
        return NULL;
    return realloc(ptr, size ? size : 1);
}

void mem_free(void *ptr) { free(ptr); }

char *mem_strndup(const char *s, size_t len)
{
    char *copy;
    if (s == NULL)
        return NULL;
    copy = mem_alloc(len + 1);
    if (copy == NULL)
        return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

char *mem_strdup(const char *s)
{
    if (s == NULL)
        return NULL;
    return mem_strndup(s, strlen(s));
}
