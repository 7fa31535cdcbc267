/*
 * budget.c - the shared memory budget (budget.h): a limit and two atomic
 * counters. Reservations are a compare-and-swap loop so that the count is
 * never seen above the limit; the peak is raised the same way.
 */
#include "util/budget.h"

#include <stdatomic.h>

#include "util/mem.h"

struct mem_budget {
    _Atomic int64_t limit;
    _Atomic int64_t used;
    _Atomic int64_t peak;
    int64_t default_limit;
};

mem_budget *mem_budget_new(int64_t limit)
{
    mem_budget *b = mem_calloc(1, sizeof(*b));
    if (b == NULL)
        return NULL;
    b->default_limit = limit > 0 ? limit : 0;
    atomic_init(&b->limit, b->default_limit);
    atomic_init(&b->used, 0);
    atomic_init(&b->peak, 0);
    return b;
}

void mem_budget_free(mem_budget *b) { mem_free(b); }

void mem_budget_set_limit(mem_budget *b, int64_t limit)
{
    atomic_store_explicit(&b->limit, limit > 0 ? limit : 0, memory_order_relaxed);
}

void mem_budget_reset_limit(mem_budget *b) { mem_budget_set_limit(b, b->default_limit); }

int64_t mem_budget_limit(const mem_budget *b)
{
    return atomic_load_explicit(&((mem_budget *)b)->limit, memory_order_relaxed);
}

static void raise_peak(mem_budget *b, int64_t used)
{
    int64_t peak = atomic_load_explicit(&b->peak, memory_order_relaxed);
    while (used > peak && !atomic_compare_exchange_weak_explicit(
                              &b->peak, &peak, used, memory_order_relaxed, memory_order_relaxed))
        ;
}

int mem_budget_reserve(mem_budget *b, int64_t bytes)
{
    int64_t used = atomic_load_explicit(&b->used, memory_order_relaxed);
    int64_t limit = mem_budget_limit(b);
    if (bytes <= 0)
        return 1;
    for (;;) {
        if (limit > 0 && (bytes > limit || used > limit - bytes))
            return 0;
        if (atomic_compare_exchange_weak_explicit(&b->used, &used, used + bytes,
                                                  memory_order_relaxed, memory_order_relaxed))
            break;
    }
    raise_peak(b, used + bytes);
    return 1;
}

void mem_budget_release(mem_budget *b, int64_t bytes)
{
    if (bytes > 0)
        atomic_fetch_sub_explicit(&b->used, bytes, memory_order_relaxed);
}

int64_t mem_budget_used(const mem_budget *b)
{
    return atomic_load_explicit(&((mem_budget *)b)->used, memory_order_relaxed);
}

int64_t mem_budget_free_bytes(const mem_budget *b)
{
    int64_t limit = mem_budget_limit(b);
    return limit > 0 ? limit - mem_budget_used(b) : INT64_MAX;
}

int64_t mem_budget_peak(const mem_budget *b)
{
    return atomic_load_explicit(&((mem_budget *)b)->peak, memory_order_relaxed);
}

void mem_budget_reset_peak(mem_budget *b)
{
    atomic_store_explicit(&b->peak, mem_budget_used(b), memory_order_relaxed);
}
