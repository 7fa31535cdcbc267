/* Unit tests of util/hashmap: put, get, replace, remove with backward shift. */
#include <stdio.h>

#include "test.h"
#include "util/hashmap.h"

void test_util_hashmap__put_get_remove_many(void)
{
    hashmap map = HASHMAP_INIT;
    silt_error err = SILT_ERROR_INIT;
    char key[32];
    int idx;
    static int values[5000];
    for (idx = 0; idx < 5000; idx++) {
        values[idx] = idx;
        snprintf(key, sizeof(key), "part-%05d.parquet", idx);
        check_ok(hashmap_put_str(&map, key, &values[idx], &err), &err);
    }
    check_int(5000, map.count);
    for (idx = 0; idx < 5000; idx += 2) {
        void *old = NULL;
        snprintf(key, sizeof(key), "part-%05d.parquet", idx);
        check(hashmap_remove(&map, key, strlen(key), &old));
        check(old == &values[idx]);
    }
    check_int(2500, map.count);
    for (idx = 0; idx < 5000; idx++) {
        int *found;
        snprintf(key, sizeof(key), "part-%05d.parquet", idx);
        found = hashmap_get_str(&map, key);
        if (idx % 2 == 0)
            check(found == NULL);
        else
            check(found != NULL && *found == idx);
    }
    hashmap_clear(&map);
    check_int(0, map.count);
}

void test_util_hashmap__replace_returns_old_value(void)
{
    hashmap map = HASHMAP_INIT;
    silt_error err = SILT_ERROR_INIT;
    int one = 1, two = 2;
    void *old = &one;
    check_ok(hashmap_put(&map, "k", 1, &one, &old, &err), &err);
    check(old == NULL);
    check_ok(hashmap_put(&map, "k", 1, &two, &old, &err), &err);
    check(old == &one);
    check_int(1, map.count);
    check(hashmap_get_str(&map, "k") == &two);
    check(!hashmap_remove(&map, "missing", 7, NULL));
    hashmap_clear(&map);
}

void test_util_hashmap__binary_keys_and_iteration(void)
{
    hashmap map = HASHMAP_INIT;
    silt_error err = SILT_ERROR_INIT;
    const hashmap_entry *entry;
    size_t iter = 0;
    int seen = 0;
    check_ok(hashmap_put(&map, "a\0b", 3, NULL, NULL, &err), &err);
    check_ok(hashmap_put(&map, "a\0c", 3, NULL, NULL, &err), &err);
    check_int(2, map.count);
    check(hashmap_get(&map, "a\0b", 3, NULL));
    check(!hashmap_get(&map, "a", 1, NULL));
    while (hashmap_next(&map, &iter, &entry))
        seen++;
    check_int(2, seen);
    check(util_hash_bytes("x", 1, 0) != util_hash_bytes("y", 1, 0));
    check(util_hash_u64(0) != 0);
    hashmap_clear(&map);
}
