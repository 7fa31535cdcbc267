/*
 * hashmap.h - open-addressing hash map from byte-string keys to pointers.
 *
 * For the catalog, the log replay (file path -> action) and other
 * general-purpose maps. The engine's join and aggregate tables are
 * specialised and live in engine/. Keys are copied into the map; values are
 * borrowed pointers. Linear probing, power-of-two capacity, max load 0.7,
 * deletion by backward shift (no tombstones).
 */
#ifndef SILT_UTIL_HASHMAP_H
#define SILT_UTIL_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct hashmap_entry {
    uint64_t hash; /* 0 = empty slot */
    char *key;     /* owned, NUL-terminated after key_len bytes */
    size_t key_len;
    void *value;
} hashmap_entry;

typedef struct hashmap {
    hashmap_entry *slots;
    size_t cap; /* power of two or 0 */
    size_t count;
} hashmap;

#define HASHMAP_INIT {NULL, 0, 0}

/* The 64-bit finaliser of MurmurHash3: every input bit reaches every output
 * bit. Inline for the hot loops of hash tables keyed by fixed-width values. */
static inline uint64_t hash_mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* 64-bit hash of bytes; never returns 0. Not for untrusted-input DoS resistance. */
uint64_t util_hash_bytes(const void *data, size_t len, uint64_t seed);
uint64_t util_hash_u64(uint64_t value);

void hashmap_clear(hashmap *map); /* frees keys and slots; values are the caller's */
/* Inserts or replaces. When old_out is not NULL it receives the replaced value (or NULL). */
silt_status hashmap_put(hashmap *map, const void *key, size_t key_len, void *value,
                        void **old_out, silt_error *err);
/* Returns 1 and sets *value_out when the key is present. */
int hashmap_get(const hashmap *map, const void *key, size_t key_len, void **value_out);
/* Removes the key; returns 1 and sets *value_out (may be NULL) when it was present. */
int hashmap_remove(hashmap *map, const void *key, size_t key_len, void **value_out);

static inline silt_status hashmap_put_str(hashmap *map, const char *key, void *value,
                                          silt_error *err)
{
    size_t len = 0;
    while (key[len])
        len++;
    return hashmap_put(map, key, len, value, NULL, err);
}

static inline void *hashmap_get_str(const hashmap *map, const char *key)
{
    void *value = NULL;
    size_t len = 0;
    while (key[len])
        len++;
    return hashmap_get(map, key, len, &value) ? value : NULL;
}

/* Iteration: for (size_t it = 0; hashmap_next(map, &it, &entry);) ... */
int hashmap_next(const hashmap *map, size_t *iter, const hashmap_entry **entry_out);

#endif
