/* Unit tests of XXH64 and Spark's xxhash64 of values (engine/xxhash.c). */
#include "engine_test.h"

static arena *qa;

void test_engine_xxhash__initialize(void) { qa = arena_new(NULL, "query"); }

void test_engine_xxhash__cleanup(void) { arena_free(qa); }

/* The reference XXH64 vectors: empty input, and the stripe loop (>= 32 bytes). */
void test_engine_xxhash__reference_vectors(void)
{
    check(engine_xxh64("", 0, 0) == 0xEF46DB3751D8E999ull);
    check(engine_xxh64("a string longer than thirty-two bytes!!", 39, 42) ==
          (uint64_t)4962924184544930924ll);
}

/* Values hash as Spark 4.1 hashes them (xxhash64(...) there, seed 42). */
void test_engine_xxhash__spark_values(void)
{
    col_vec *ints = mk_ints(qa, COL_INT, 1, (int64_t[]){1}, NULL);
    col_vec *longs = mk_ints(qa, COL_LONG, 1, (int64_t[]){1}, NULL);
    col_vec *dates = mk_ints(qa, COL_DATE, 1, (int64_t[]){19723}, NULL); /* 2024-01-01 */
    col_vec *strs = mk_strs(qa, 1, (const char *[]){"abc"});
    check(engine_spark_xxhash64(ints, 0, 42) == (uint64_t)-6698625589789238999ll);
    check(engine_spark_xxhash64(longs, 0, 42) == (uint64_t)-7001672635703045582ll);
    check(engine_spark_xxhash64(dates, 0, 42) == (uint64_t)3242891694566951137ll);
    check(engine_spark_xxhash64(strs, 0, 42) == (uint64_t)1423657621850124518ll);
}
