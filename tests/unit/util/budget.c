/* Unit tests of util/budget: limits, peaks, and threads racing for the last bytes. */
#include <pthread.h>
#include <stdatomic.h>

#include "test.h"
#include "util/arena.h"
#include "util/budget.h"

void test_util_budget__reserve_within_the_limit(void)
{
    mem_budget *b = mem_budget_new(1000);
    check(b != NULL);
    check_int(1000, mem_budget_limit(b));
    check_int(1, mem_budget_reserve(b, 600));
    check_int(0, mem_budget_reserve(b, 401)); /* all or nothing */
    check_int(600, mem_budget_used(b));
    check_int(1, mem_budget_reserve(b, 400));
    check_int(0, mem_budget_free_bytes(b));
    check_int(1000, mem_budget_peak(b));
    mem_budget_release(b, 700);
    check_int(300, mem_budget_used(b));
    check_int(1000, mem_budget_peak(b));
    mem_budget_reset_peak(b);
    check_int(300, mem_budget_peak(b));
    /* A lowered limit refuses new bytes; what is held stays held. */
    mem_budget_set_limit(b, 100);
    check_int(0, mem_budget_reserve(b, 1));
    check_int(300, mem_budget_used(b));
    mem_budget_reset_limit(b);
    check_int(1000, mem_budget_limit(b));
    check_int(1, mem_budget_reserve(b, 1));
    mem_budget_free(b);
}

void test_util_budget__unlimited(void)
{
    mem_budget *b = mem_budget_new(0);
    check(b != NULL);
    check_int(1, mem_budget_reserve(b, INT64_MAX / 2));
    check(mem_budget_free_bytes(b) == INT64_MAX);
    mem_budget_free(b);
}

typedef struct racer {
    mem_budget *b;
    int seed;
    long granted, refused;
} racer;

static void *race(void *payload)
{
    racer *r = payload;
    unsigned x = (unsigned)r->seed;
    int64_t held[8] = {0};
    int round;
    for (round = 0; round < 200000; round++) {
        int slot = round % 8;
        int64_t bytes;
        x = x * 1103515245u + 12345u;
        bytes = 1 + (int64_t)((x >> 8) % 300);
        if (held[slot] > 0) {
            mem_budget_release(r->b, held[slot]);
            held[slot] = 0;
        }
        if (mem_budget_reserve(r->b, bytes)) {
            held[slot] = bytes;
            r->granted++;
        } else {
            r->refused++;
        }
    }
    for (round = 0; round < 8; round++)
        mem_budget_release(r->b, held[round]);
    return NULL;
}

/* Four threads hold up to 8 x 300 bytes each against a budget of 1500: the
 * count never passes the limit, and everything comes back. */
void test_util_budget__threads_never_pass_the_limit(void)
{
    mem_budget *b = mem_budget_new(1500);
    pthread_t threads[4];
    racer racers[4];
    int idx;
    long refused = 0;
    check(b != NULL);
    for (idx = 0; idx < 4; idx++) {
        racers[idx] = (racer){b, idx + 1, 0, 0};
        check_int(0, pthread_create(&threads[idx], NULL, race, &racers[idx]));
    }
    for (idx = 0; idx < 4; idx++) {
        pthread_join(threads[idx], NULL);
        refused += racers[idx].refused;
    }
    check(refused > 0);
    check(mem_budget_peak(b) <= 1500);
    check(mem_budget_peak(b) > 1200);
    check_int(0, mem_budget_used(b));
    mem_budget_free(b);
}

typedef struct hanger {
    arena *db;
    _Atomic int failures;
} hanger;

/* A connection's life: an arena under the database's, statements under it. */
static void *hang_children(void *payload)
{
    hanger *h = payload;
    int round;
    for (round = 0; round < 2000; round++) {
        arena *conn = arena_new(h->db, "connection");
        arena *stmt = conn ? arena_new(conn, "statement") : NULL;
        if (stmt == NULL || arena_alloc(stmt, 100) == NULL || arena_alloc(h->db, 16) == NULL ||
            arena_budget(stmt) != arena_budget(h->db))
            h->failures++;
        arena_free(conn);
    }
    return NULL;
}

void test_util_budget__shared_arena_takes_children_from_threads(void)
{
    mem_budget *b = mem_budget_new(1 << 20);
    arena *db = arena_new_shared("db");
    pthread_t threads[4];
    hanger h;
    int idx;
    check(db != NULL && b != NULL);
    h.db = db;
    atomic_init(&h.failures, 0);
    check(arena_budget(db) == NULL);
    arena_set_budget(db, b);
    for (idx = 0; idx < 4; idx++)
        check_int(0, pthread_create(&threads[idx], NULL, hang_children, &h));
    for (idx = 0; idx < 4; idx++)
        pthread_join(threads[idx], NULL);
    check_int(0, h.failures);
    check(arena_bytes_used(db) >= 4 * 2000 * 16);
    /* A child left open dies with the database's arena. */
    check(arena_new(arena_new(db, "left open"), "statement") != NULL);
    arena_reset(db);
    check_int(0, arena_bytes_used(db));
    arena_free(db);
    mem_budget_free(b);
}
