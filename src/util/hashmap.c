/*
 * hashmap.c - open addressing with linear probing and backward-shift delete.
 */
#include "util/hashmap.h"

#include <string.h>

#include "util/mem.h"

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint64_t util_hash_u64(uint64_t value)
{
    uint64_t h = hash_mix64(value + 0x9e3779b97f4a7c15ULL);
    return h ? h : 1;
}

uint64_t util_hash_bytes(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = seed ^ (0x9e3779b97f4a7c15ULL * (len + 1));
    while (len >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        h = rotl64(h ^ hash_mix64(word), 27) * 0x9ddfea08eb382d69ULL;
        p += 8;
        len -= 8;
    }
    if (len > 0) {
        uint64_t word = 0;
        memcpy(&word, p, len);
        h = rotl64(h ^ hash_mix64(word ^ len), 31) * 0x9ddfea08eb382d69ULL;
    }
    h = hash_mix64(h);
    return h ? h : 1;
}

void hashmap_clear(hashmap *map)
{
    size_t idx;
    if (map == NULL || map->slots == NULL)
        return;
    for (idx = 0; idx < map->cap; idx++)
        if (map->slots[idx].hash != 0)
            mem_free(map->slots[idx].key);
    mem_free(map->slots);
    map->slots = NULL;
    map->cap = 0;
    map->count = 0;
}

static hashmap_entry *find_slot(const hashmap *map, uint64_t hash, const void *key, size_t key_len)
{
    size_t mask = map->cap - 1;
    size_t idx = (size_t)hash & mask;
    for (;;) {
        hashmap_entry *slot = &map->slots[idx];
        if (slot->hash == 0)
            return slot;
        if (slot->hash == hash && slot->key_len == key_len && memcmp(slot->key, key, key_len) == 0)
            return slot;
        idx = (idx + 1) & mask;
    }
}

static silt_status grow(hashmap *map, silt_error *err)
{
    size_t new_cap = map->cap ? map->cap * 2 : 16;
    hashmap_entry *old = map->slots;
    size_t old_cap = map->cap;
    size_t idx;
    hashmap_entry *fresh = mem_calloc(new_cap, sizeof(hashmap_entry));
    if (fresh == NULL)
        return err_nomem(err);
    map->slots = fresh;
    map->cap = new_cap;
    for (idx = 0; idx < old_cap; idx++) {
        if (old[idx].hash != 0) {
            hashmap_entry *slot = find_slot(map, old[idx].hash, old[idx].key, old[idx].key_len);
            *slot = old[idx];
        }
    }
    mem_free(old);
    return SILT_OK;
}

silt_status hashmap_put(hashmap *map, const void *key, size_t key_len, void *value,
                        void **old_out, silt_error *err)
{
    uint64_t hash = util_hash_bytes(key, key_len, 0);
    hashmap_entry *slot;
    if (old_out != NULL)
        *old_out = NULL;
    if (map->cap == 0 || (map->count + 1) * 10 > map->cap * 7)
        SILT_RETURN_IF_ERROR(grow(map, err));
    slot = find_slot(map, hash, key, key_len);
    if (slot->hash != 0) {
        if (old_out != NULL)
            *old_out = slot->value;
        slot->value = value;
        return SILT_OK;
    }
    slot->key = mem_strndup(key, key_len);
    if (slot->key == NULL)
        return err_nomem(err);
    slot->hash = hash;
    slot->key_len = key_len;
    slot->value = value;
    map->count++;
    return SILT_OK;
}

int hashmap_get(const hashmap *map, const void *key, size_t key_len, void **value_out)
{
    hashmap_entry *slot;
    if (map->cap == 0)
        return 0;
    slot = find_slot(map, util_hash_bytes(key, key_len, 0), key, key_len);
    if (slot->hash == 0)
        return 0;
    if (value_out != NULL)
        *value_out = slot->value;
    return 1;
}

int hashmap_remove(hashmap *map, const void *key, size_t key_len, void **value_out)
{
    size_t mask, hole, idx;
    hashmap_entry *slot;
    if (map->cap == 0)
        return 0;
    slot = find_slot(map, util_hash_bytes(key, key_len, 0), key, key_len);
    if (slot->hash == 0)
        return 0;
    if (value_out != NULL)
        *value_out = slot->value;
    mem_free(slot->key);
    mask = map->cap - 1;
    hole = (size_t)(slot - map->slots);
    idx = hole;
    /* Backward shift: move later entries of the cluster into the hole when
     * their home slot is not between the hole and their position. */
    for (;;) {
        size_t home;
        idx = (idx + 1) & mask;
        if (map->slots[idx].hash == 0)
            break;
        home = (size_t)map->slots[idx].hash & mask;
        if (((idx - home) & mask) >= ((idx - hole) & mask)) {
            map->slots[hole] = map->slots[idx];
            hole = idx;
        }
    }
    memset(&map->slots[hole], 0, sizeof(hashmap_entry));
    map->count--;
    return 1;
}

int hashmap_next(const hashmap *map, size_t *iter, const hashmap_entry **entry_out)
{
    while (*iter < map->cap) {
        const hashmap_entry *slot = &map->slots[(*iter)++];
        if (slot->hash != 0) {
            *entry_out = slot;
            return 1;
        }
    }
    return 0;
}
