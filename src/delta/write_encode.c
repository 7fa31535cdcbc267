/*
 * write_encode.c - the delta_writer's data files: rows queued per partition
 * and encoded into Parquet on the session's thread pool.
 *
 * write.c groups each batch's rows by partition folder on the caller's
 * thread and queues them here (gathered into the writer's batch arena);
 * encoding them is most of a write's work, so it runs in parallel: a flush
 * hands each partition with queued rows to one task, which feeds its items
 * to the partition's Parquet writers in arrival order and closes the files
 * whose close was queued. One task per partition keeps a pqw_writer on one
 * thread at a time and a file's rows in order, so the files' rows and
 * statistics are those of the serial path. File names, the decision to roll
 * a file (target size) and the order of the add actions are all fixed on
 * the caller's thread, so they do not depend on which thread ran what.
 *
 * A flush encodes in the background ("flight"): the caller goes on parsing
 * and queueing the next rows while the workers encode, and the next flush
 * (or delta_write_finish) first waits for it. One flight at a time keeps a
 * file's rows in order (a partition's items of one flight are encoded
 * before those of the next) and memory bounded: queued rows are bounded
 * (QUEUE_MAX_ROWS, QUEUE_MAX_BYTES).
 * A flush is due at half a queue; while the flight before it is still
 * encoding, it is put off (the caller keeps splitting rows) until the queue
 * is full. Then the caller encodes the flight's tasks no worker took, and
 * keeps splitting (up to a quarter of a queue more) while the workers finish
 * theirs, instead of waiting idle for them; past that it waits. So at most
 * two and a half queues' worth of rows are held (a flight and the queue).
 * Without a pool, and when queued rows borrow the caller's batch (an
 * unpartitioned write), the flush waits before delta_write_batch returns.
 *
 * Errors: a failing task's error is reported once, by the call that waits
 * for its flight (the tpool keeps the first), and the writer is marked
 * failed; files not closed are aborted at delta_write_free (after waiting
 * for the flight), files already closed stay as orphans (nothing commits).
 */
#include <stdio.h>
#include <string.h>

#include "delta/write_int.h"
#include "util/mem.h"
#include "util/time.h"

/* Rows and in-memory bytes queued at most: a few parse rounds' worth, so each partition's
 * task has enough rows to keep both threads busy, with memory bounded. A flush is due at
 * half of it, and waits for the flight before it only once the queue is full: until then
 * the caller goes on splitting rows instead of waiting for the flight's last task. */
#define QUEUE_MAX_ROWS ((int64_t)1 << 18)
#define QUEUE_MAX_BYTES ((int64_t)64 << 20)

/* Appends p to a growable array of pointers in mem (not an arena: it is grown often). */
static silt_status push_ptr(void ***items, size_t *n, size_t *cap, void *p, silt_error *err)
{
    if (*n == *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 16;
        void **grown = mem_realloc(*items, grown_cap * sizeof(void *));
        if (grown == NULL)
            return err_nomem(err);
        *items = grown;
        *cap = grown_cap;
    }
    (*items)[(*n)++] = p;
    return SILT_OK;
}

silt_status dwrite_start_file(delta_writer *w, part_file *pf, silt_error *err)
{
    char uuid[37], name[96];
    pqw_options popts = PQW_OPTIONS_INIT;
    dwrite_file *f = arena_calloc(w->a, 1, sizeof(*f));
    if (f == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(delta_uuid_v4(uuid, err));
    /* Spark's name: the codec's extension before .parquet (part-...c000.zstd.parquet). */
    snprintf(name, sizeof(name), "%s-%05d-%s.c000%s.parquet", w->cdc ? "cdc" : "part",
             w->file_seq++ % 100000, uuid, pqw_codec_extension(w->codec));
    f->key = arena_sprintf(w->a, "%s%s%s", w->cdc ? "_change_data/" : "", pf->dir, name);
    if (f->key == NULL)
        return err_nomem(err);
    f->pf = pf;
    SILT_RETURN_IF_ERROR(push_ptr((void ***)&w->files, &w->n_files, &w->cap_files, f, err));
    popts.write_field_ids = w->mode == DPROTO_MAPPING_ID;
    popts.codec = w->codec;
    SILT_RETURN_IF_ERROR(pqw_writer_open(&f->pw, w->store, f->key, w->file_schema, &popts, err));
    pf->file = f;
    pf->mem_bytes = 0;
    w->n_open++;
    return SILT_OK;
}

/* Appends an item to pf's queue (and pf to the flush's list on its first item). */
static silt_status queue_item(delta_writer *w, part_file *pf, const col_batch *rows,
                              int close_after, silt_error *err)
{
    dwrite_item *item = arena_calloc(w->batch_a, 1, sizeof(*item));
    if (item == NULL)
        return err_nomem(err);
    item->file = pf->file;
    item->close_after = close_after;
    if (rows != NULL)
        item->rows = *rows;
    if (!pf->queued) {
        SILT_RETURN_IF_ERROR(push_ptr((void ***)&w->queued, &w->n_queued, &w->cap_queued, pf,
                                      err));
        pf->queued = 1;
    }
    if (pf->tail != NULL)
        pf->tail->next = item;
    else
        pf->head = item;
    pf->tail = item;
    if (close_after) {
        SILT_RETURN_IF_ERROR(push_ptr((void ***)&w->closing, &w->n_closing, &w->cap_closing,
                                      pf->file, err));
        pf->file = NULL;
        w->n_open--;
    }
    return SILT_OK;
}

silt_status dwrite_queue_rows(delta_writer *w, part_file *pf, const col_batch *rows,
                              int64_t mem_bytes, silt_error *err)
{
    pf->mem_bytes += mem_bytes;
    w->queued_rows += rows->n_rows;
    w->queued_bytes += mem_bytes;
    w->n_rows += rows->n_rows;
    return queue_item(w, pf, rows, pf->mem_bytes >= w->target, err);
}

silt_status dwrite_queue_close(delta_writer *w, part_file *pf, silt_error *err)
{
    if (pf->file == NULL)
        return SILT_OK;
    return queue_item(w, pf, NULL, 1, err);
}

/*
 * Files whose close is queued keep their descriptor and buffers until an
 * encode task closes them, so those count against max_open too: without
 * this, a write over many partitions kept queueing closes and opening
 * files until the next flush (up to half a queue of rows later).
 */
static int closes_full(const delta_writer *w)
{
    return w->n_closing >= (size_t)w->max_open;
}

int dwrite_should_flush(const delta_writer *w)
{
    return w->pool == NULL || w->borrowed || w->queued_rows >= QUEUE_MAX_ROWS / 2 ||
           w->queued_bytes >= QUEUE_MAX_BYTES / 2 || closes_full(w);
}

/*
 * Whether a flush can be put off because the flight before it is still
 * encoding: while the queue has room; once it is full, the caller first
 * encodes the flight's tasks no worker has taken, and then still puts the
 * flush off, up to a quarter of a queue more, rather than wait for the
 * workers' last tasks.
 */
static int can_defer(const delta_writer *w, int wait)
{
    if (wait || w->borrowed || w->pool == NULL || w->flight.job == NULL ||
        tpool_done(w->flight.job) || closes_full(w))
        return 0;
    if (w->queued_rows < QUEUE_MAX_ROWS && w->queued_bytes < QUEUE_MAX_BYTES)
        return 1;
    tpool_help(w->flight.job);
    return w->queued_rows < QUEUE_MAX_ROWS + QUEUE_MAX_ROWS / 4 &&
           w->queued_bytes < QUEUE_MAX_BYTES + QUEUE_MAX_BYTES / 4 && !tpool_done(w->flight.job);
}

/* ---- encoding (any thread) --------------------------------------------------------------- */

static silt_status close_pw(dwrite_file *f, silt_error *err)
{
    pqw_writer *pw = f->pw;
    f->pw = NULL; /* pqw_writer_close frees it, also on error */
    SILT_RETURN_IF_ERROR(pqw_writer_close(pw, &f->st, err));
    f->closed = 1;
    return SILT_OK;
}

/* One partition's items of the flight, in order. */
static silt_status encode_task(void *payload, size_t task_idx, size_t worker_idx,
                               silt_error *err)
{
    delta_writer *w = payload;
    dwrite_item *item;
    silt_status rc = SILT_OK;
    (void)worker_idx;
    for (item = w->flight.heads[task_idx]; item != NULL && rc == SILT_OK; item = item->next) {
        if (item->rows.n_rows > 0)
            rc = pqw_writer_write_batch(item->file->pw, &item->rows, err);
        if (rc == SILT_OK && item->close_after)
            rc = close_pw(item->file, err);
        if (rc != SILT_OK)
            err_context(err, "while writing the data file \"%s\"", item->file->key);
    }
    return rc;
}

/* ---- add actions (caller's thread) ------------------------------------------------------- */

static silt_status stats_json(delta_writer *w, const pqw_file_stats *st, const char **out,
                              silt_error *err)
{
    delta_col_stats *cols = arena_calloc(w->a, st->n_leaves + 1, sizeof(*cols));
    size_t idx, n = 0, part;
    silt_status rc = SILT_OK;
    if (cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < st->n_leaves && rc == SILT_OK; idx++) {
        const pqw_leaf_stats *leaf = &st->leaves[idx];
        delta_col_stats *c = &cols[n];
        buf_truncate(&w->scratch, 0);
        for (part = 0; part < leaf->path_len && rc == SILT_OK; part++)
            rc = buf_printf(&w->scratch, err, "%s%s", part ? "." : "", leaf->path[part]);
        if (rc != SILT_OK || leaf->in_repeated)
            continue;
        c->path = arena_strdup(w->a, buf_cstr(&w->scratch));
        c->type = leaf->type;
        c->has_null_count = 1;
        c->null_count = leaf->null_count;
        c->has_min_max = leaf->has_min_max;
        c->min.type = c->max.type = leaf->type->id;
        c->min.scale = c->max.scale = leaf->type->scale;
        c->min.v.i = leaf->min.i;
        c->max.v.i = leaf->max.i;
        if (leaf->type->id == COL_FLOAT || leaf->type->id == COL_DOUBLE) {
            c->min.v.d = leaf->min.d;
            c->max.v.d = leaf->max.d;
        } else if (leaf->type->id == COL_DECIMAL) {
            c->min.v.dec = leaf->min.dec;
            c->max.v.dec = leaf->max.dec;
        } else if (leaf->type->id == COL_STRING || leaf->type->id == COL_BINARY) {
            c->min.v.s.ptr = leaf->min.bytes;
            c->min.v.s.len = (size_t)leaf->min.len;
            c->max.v.s.ptr = leaf->max.bytes;
            c->max.v.s.len = (size_t)leaf->max.len;
        }
        n += c->path != NULL;
    }
    buf_truncate(&w->scratch, 0);
    if (rc == SILT_OK)
        rc = delta_stats_to_json(st->num_records, w->file_schema, w->n_indexed, cols, n,
                                 &w->scratch, err);
    if (rc == SILT_OK && (*out = arena_strdup(w->a, buf_cstr(&w->scratch))) == NULL)
        rc = err_nomem(err);
    return rc;
}

static silt_status push_add(delta_writer *w, const dlog_add *add, silt_error *err)
{
    if (w->n_adds == w->cap_adds) {
        size_t cap = w->cap_adds ? w->cap_adds * 2 : 16;
        dlog_add *grown = arena_realloc(w->a, w->adds, w->cap_adds * sizeof(*grown),
                                        cap * sizeof(*grown));
        if (grown == NULL)
            return err_nomem(err);
        w->adds = grown;
        w->cap_adds = cap;
    }
    w->adds[w->n_adds++] = *add;
    return SILT_OK;
}


/* The add action of a closed file. */
static silt_status record_file(delta_writer *w, dwrite_file *f, silt_error *err)
{
    dlog_add add;
    silt_status rc;
    memset(&add, 0, sizeof(add));
    add.path = f->key;
    add.partition_values = f->pf->values;
    add.size = f->st.file_bytes;
    add.modification_time = time_now_micros() / 1000;
    add.data_change = !w->cdc;
    add.dv.offset = -1;
    add.dv.max_row_index = -1;
    rc = w->cdc ? SILT_OK : stats_json(w, &f->st, &add.stats, err);
    if (rc == SILT_OK)
        rc = push_add(w, &add, err);
    w->n_bytes += f->st.file_bytes;
    pqw_file_stats_clear(&f->st);
    return rc;
}

/*
 * Waits for the flight, records the files it closed and frees its memory.
 * Nothing in flight: nothing to do.
 */
static silt_status land(delta_writer *w, silt_error *err)
{
    dwrite_flight *fl = &w->flight;
    silt_status rc;
    size_t idx;
    if (fl->job == NULL)
        return SILT_OK;
    rc = tpool_wait(fl->job, err);
    fl->job = NULL;
    for (idx = 0; rc == SILT_OK && idx < fl->n_closing; idx++)
        rc = record_file(w, fl->closing[idx], err);
    fl->n_closing = 0;
    fl->n_heads = 0;
    arena_reset(fl->a);
    if (rc != SILT_OK)
        w->failed = 1;
    return rc;
}

/* Moves the queue into the flight (with its arena) and starts encoding it. */
static silt_status launch(delta_writer *w, silt_error *err)
{
    dwrite_flight *fl = &w->flight;
    arena *building = w->batch_a;
    size_t idx;
    for (idx = 0; idx < w->n_queued; idx++) {
        part_file *pf = w->queued[idx];
        SILT_RETURN_IF_ERROR(push_ptr((void ***)&fl->heads, &fl->n_heads, &fl->cap_heads,
                                      pf->head, err));
        pf->head = pf->tail = NULL;
        pf->queued = 0;
    }
    for (idx = 0; idx < w->n_closing; idx++)
        SILT_RETURN_IF_ERROR(push_ptr((void ***)&fl->closing, &fl->n_closing, &fl->cap_closing,
                                      w->closing[idx], err));
    w->n_queued = w->n_closing = 0;
    w->queued_rows = w->queued_bytes = 0;
    w->borrowed = 0;
    /* the flight keeps the arena of its rows; the next rows go to the other one */
    w->batch_a = fl->a;
    fl->a = building;
    return tpool_start(w->pool, fl->n_heads, encode_task, w, &fl->job, err);
}

silt_status dwrite_flush(delta_writer *w, int wait, silt_error *err)
{
    silt_status rc;
    if (w->failed)
        return err_set(err, SILT_INVALID, "cannot write to a Delta writer after a failed write");
    if (w->flight.a == NULL && (w->flight.a = arena_new(w->a, "delta writer flight")) == NULL)
        return err_nomem(err);
    wait = wait || w->borrowed || w->pool == NULL;
    if (can_defer(w, wait))
        return SILT_OK;
    rc = land(w, err);
    if (rc == SILT_OK && (w->n_queued > 0 || w->n_closing > 0))
        rc = launch(w, err);
    if (rc == SILT_OK && wait)
        rc = land(w, err);
    if (rc != SILT_OK)
        w->failed = 1;
    return rc;
}

void dwrite_abort_files(delta_writer *w)
{
    silt_error ignored = SILT_ERROR_INIT;
    size_t idx;
    if (w->flight.job != NULL) { /* the encoders may still use the files */
        (void)tpool_wait(w->flight.job, &ignored);
        w->flight.job = NULL;
    }
    for (idx = 0; idx < w->n_files; idx++) {
        pqw_writer_abort(w->files[idx]->pw);
        w->files[idx]->pw = NULL;
        pqw_file_stats_clear(&w->files[idx]->st);
    }
    mem_free(w->files);
    mem_free(w->queued);
    mem_free(w->closing);
    mem_free(w->flight.heads);
    mem_free(w->flight.closing);
    w->files = NULL;
    w->queued = NULL;
    w->closing = NULL;
    w->flight.heads = NULL;
    w->flight.closing = NULL;
    w->n_files = w->n_queued = w->n_closing = 0;
}
