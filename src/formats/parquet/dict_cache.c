/*
 * dict_cache.c - decoded dictionaries shared by the readers of one file.
 *
 * When a row group is read as several row ranges (one reader each, often
 * on several threads), every range needs its chunks' dictionary pages.
 * Decompressing and decoding one is as much work as a large share of a
 * range (a 10,000-double dictionary page costs about 1 M instructions of
 * snappy alone), so the first range to decode a chunk's dictionary leaves
 * a copy here and the next ranges copy it out. Whole-row-group readers
 * read each chunk once and do not use the cache.
 *
 * The ranges of one row group usually start together on several threads:
 * the first to miss claims the entry (a placeholder, not ready) and decodes
 * the page outside the lock; the others wait for it on dict_ready rather
 * than decode the same page at the same time. A claim that fails is
 * dropped, and a waiter then decodes the page itself.
 *
 * Bounded: at most PQ_DICT_CACHE_BYTES of dictionaries per file, the
 * oldest ready ones dropped first. The cache is the one mutable part of an open
 * pq_file; its lock is held only while an entry is looked up or copied.
 * A copy keeps the dictionary's id, so that batches of two ranges of one
 * chunk name the same dictionary (col_vec.codes_dict), as they would
 * within one reader.
 */
#include <string.h>

#include "formats/parquet/scan_int.h"
#include "util/mem.h"

#define PQ_DICT_CACHE_BYTES ((int64_t)64 << 20)

struct pq_dict_entry {
    size_t rg_idx, leaf_idx;
    buf values;
    pq_binary bin;
    size_t count;
    uint64_t id;
    int64_t bytes;
    int ready; /* 0: claimed, being decoded by one reader */
    struct pq_dict_entry *next;
};

static void entry_free(pq_dict_entry *e)
{
    buf_clear(&e->values);
    pq_binary_clear(&e->bin);
    mem_free(e);
}

silt_status pq_dict_cache_init(pq_file *file, silt_error *err)
{
    if (mtx_init(&file->dict_lock, mtx_plain) != thrd_success)
        return err_set(err, SILT_NOMEM, "could not create the lock of a Parquet file");
    if (cnd_init(&file->dict_ready) != thrd_success) {
        mtx_destroy(&file->dict_lock);
        return err_set(err, SILT_NOMEM, "could not create the lock of a Parquet file");
    }
    file->dict_lock_ok = 1;
    return SILT_OK;
}

void pq_dict_cache_clear(pq_file *file)
{
    pq_dict_entry *e = file->dicts, *next;
    for (; e != NULL; e = next) {
        next = e->next;
        entry_free(e);
    }
    file->dicts = NULL;
    file->dict_bytes = 0;
    if (file->dict_lock_ok) {
        cnd_destroy(&file->dict_ready);
        mtx_destroy(&file->dict_lock);
    }
    file->dict_lock_ok = 0;
}

static pq_dict_entry *find(pq_file *file, size_t rg_idx, size_t leaf_idx)
{
    pq_dict_entry *e;
    for (e = file->dicts; e != NULL; e = e->next)
        if (e->rg_idx == rg_idx && e->leaf_idx == leaf_idx)
            return e;
    return NULL;
}

/* Copies the fixed-width values and the binary values of a dictionary from src to dst. */
static silt_status copy_dict(buf *dst_values, pq_binary *dst_bin, const buf *src_values,
                             const pq_binary *src_bin, silt_error *err)
{
    buf_truncate(dst_values, 0);
    buf_truncate(&dst_bin->offsets, 0);
    buf_truncate(&dst_bin->data, 0);
    SILT_RETURN_IF_ERROR(buf_append(dst_values, src_values->data, src_values->len, err));
    SILT_RETURN_IF_ERROR(buf_append(&dst_bin->offsets, src_bin->offsets.data,
                                    src_bin->offsets.len, err));
    return buf_append(&dst_bin->data, src_bin->data.data, src_bin->data.len, err);
}

/* Unlinks e from the list (lock held). */
static void unlink_entry(pq_file *file, pq_dict_entry *e)
{
    pq_dict_entry **link;
    for (link = &file->dicts; *link != NULL; link = &(*link)->next)
        if (*link == e) {
            *link = e->next;
            return;
        }
}

silt_status pq_dict_cache_get(pq_file *file, size_t rg_idx, leaf_data *ld, int *hit,
                              int *claimed, silt_error *err)
{
    pq_dict_entry *e;
    silt_status rc = SILT_OK;
    size_t leaf_idx = (size_t)ld->v->leaf_idx;
    *hit = *claimed = 0;
    mtx_lock(&file->dict_lock);
    while ((e = find(file, rg_idx, leaf_idx)) != NULL && !e->ready)
        cnd_wait(&file->dict_ready, &file->dict_lock);
    if (e != NULL) {
        rc = copy_dict(&ld->dict_values, &ld->dict_bin, &e->values, &e->bin, err);
        ld->dict_count = e->count;
        ld->dict_id = e->id;
        ld->has_dict = rc == SILT_OK;
        *hit = rc == SILT_OK;
    } else if ((e = mem_calloc(1, sizeof(*e))) != NULL) {
        /* Claim it: the other ranges of this chunk wait for this reader's copy. */
        pq_dict_entry **tail;
        e->rg_idx = rg_idx;
        e->leaf_idx = leaf_idx;
        buf_init(&e->values, 0);
        pq_binary_init(&e->bin);
        for (tail = &file->dicts; *tail != NULL; tail = &(*tail)->next)
            ;
        *tail = e;
        *claimed = 1;
    }
    mtx_unlock(&file->dict_lock);
    return rc;
}

void pq_dict_cache_put(pq_file *file, size_t rg_idx, const leaf_data *ld, int ok)
{
    pq_dict_entry *e, **link;
    silt_error err = SILT_ERROR_INIT;
    int64_t bytes = (int64_t)(ld->dict_values.len + ld->dict_bin.offsets.len +
                              ld->dict_bin.data.len);
    mtx_lock(&file->dict_lock);
    e = find(file, rg_idx, (size_t)ld->v->leaf_idx);
    if (e == NULL || e->ready) {
        mtx_unlock(&file->dict_lock);
        return;
    }
    /* Copied under the lock: the waiters need it anyway, and no one else writes. */
    if (!ok || !ld->has_dict || bytes > PQ_DICT_CACHE_BYTES / 4 ||
        copy_dict(&e->values, &e->bin, &ld->dict_values, &ld->dict_bin, &err) != SILT_OK) {
        unlink_entry(file, e);
        entry_free(e);
        cnd_broadcast(&file->dict_ready);
        mtx_unlock(&file->dict_lock);
        return;
    }
    e->count = ld->dict_count;
    e->id = ld->dict_id;
    e->bytes = bytes;
    e->ready = 1;
    for (link = &file->dicts; *link != NULL && file->dict_bytes + bytes > PQ_DICT_CACHE_BYTES;) {
        pq_dict_entry *old = *link;
        if (!old->ready || old == e) {
            link = &old->next;
            continue;
        }
        *link = old->next;
        file->dict_bytes -= old->bytes;
        entry_free(old);
    }
    file->dict_bytes += bytes;
    cnd_broadcast(&file->dict_ready);
    mtx_unlock(&file->dict_lock);
}
