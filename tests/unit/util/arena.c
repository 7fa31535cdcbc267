/* Unit tests of util/arena: alignment, growth, tree lifetimes, cleanups. */
#include <stdint.h>

#include "test.h"
#include "util/arena.h"
#include "util/mem.h"

static int cleanup_calls;
static void count_cleanup(void *payload) { cleanup_calls += *(int *)payload; }

void test_util_arena__alignment_and_contents(void)
{
    arena *a = arena_new(NULL, "test");
    int idx;
    check(a != NULL);
    for (idx = 1; idx < 2000; idx += 37) {
        unsigned char *p = arena_alloc(a, (size_t)idx);
        check(p != NULL);
        check(((uintptr_t)p % 16) == 0);
        memset(p, idx & 0xff, (size_t)idx);
    }
    {
        void *p = arena_alloc_aligned(a, 100, 64);
        check(((uintptr_t)p % 64) == 0);
    }
    arena_free(a);
}

void test_util_arena__large_allocations(void)
{
    arena *a = arena_new(NULL, "big");
    char *small1 = arena_alloc(a, 10);
    char *big = arena_alloc(a, 1 << 20);
    char *small2 = arena_alloc(a, 10);
    check(small1 && big && small2);
    memset(big, 1, 1 << 20);
    check(arena_bytes_used(a) >= (1 << 20) + 20);
    arena_free(a);
}

void test_util_arena__strings_and_realloc(void)
{
    arena *a = arena_new(NULL, "str");
    char *s = arena_strdup(a, "hello");
    char *t = arena_sprintf(a, "%s-%d", s, 42);
    char *grown;
    check_str("hello", s);
    check_str("hello-42", t);
    check_str("hel", arena_strndup(a, "hello", 3));
    grown = arena_realloc(a, s, 6, 100);
    check_str("hello", grown);
    check(arena_strdup(a, NULL) == NULL);
    arena_free(a);
}

void test_util_arena__children_die_with_parent(void)
{
    arena *parent = arena_new(NULL, "query");
    arena *child = arena_new(parent, "operator");
    arena *grandchild = arena_new(child, "batch");
    static int one = 1;
    cleanup_calls = 0;
    check(arena_on_cleanup(grandchild, count_cleanup, &one));
    check(arena_on_cleanup(child, count_cleanup, &one));
    check(arena_alloc(grandchild, 100) != NULL);
    arena_free(parent);
    check_int(2, cleanup_calls);
}

void test_util_arena__reset_runs_cleanups_and_reuses(void)
{
    arena *a = arena_new(NULL, "batch");
    static int ten = 10;
    cleanup_calls = 0;
    arena_on_cleanup(a, count_cleanup, &ten);
    check(arena_alloc(a, 1000) != NULL);
    arena_reset(a);
    check_int(10, cleanup_calls);
    check_int(0, arena_bytes_used(a));
    check(arena_alloc(a, 1000) != NULL);
    arena_free(a);
    check_int(10, cleanup_calls);
    arena_free(NULL);
    arena_reset(NULL);
}

void test_util_arena__out_of_memory(void)
{
    arena *a = arena_new(NULL, "oom");
    mem_fail_after(0);
    check(arena_alloc(a, 1 << 20) == NULL);
    mem_fail_reset();
    check(arena_alloc(a, SIZE_MAX - 8) == NULL);
    check(arena_calloc(a, SIZE_MAX / 2, 4) == NULL);
    arena_free(a);
}

void test_util_arena__calloc_zeroes(void)
{
    arena *a = arena_new(NULL, "zero");
    int *values = arena_calloc(a, 100, sizeof(int));
    int idx;
    for (idx = 0; idx < 100; idx++)
        check_int(0, values[idx]);
    check_str("arena", arena_name(arena_new(a, NULL)));
    arena_free(a);
}
