/*
 * spill.c - spill files of column batches and the memory budget of the
 * operators that spill (spill.h has the format and the lifetimes).
 *
 * Why plain POSIX files and not the io/ object store: spill files are
 * private to one query on the local machine, written sequentially and read
 * back once; they need neither atomic commits nor listing, and a store
 * would add a copy per batch. The file is created with mkstemp, so two
 * queries (or two processes) never collide in one temp directory, and only
 * when its first bytes are flushed: a grace join at a deep level has many
 * empty partitions, and each file costs an open and an unlink. It is
 * unlinked right after it is created, so the directory never holds spill
 * files for long and a killed process leaves none behind; its space is
 * given back when the descriptor is closed by the arena cleanup.
 *
 * Writes go through a 64 KiB buffer (a grace join has 32 files open); reads load one frame at a time.
 * Each frame carries a checksum of its body so damaged bytes are reported
 * as corruption rather than decoded into wrong rows.
 */
#define _POSIX_C_SOURCE 200809L

#include "engine/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/op_int.h"
#include "util/hashmap.h"

#define SPILL_MAGIC "SPLB"
#define SPILL_FRAME_HEADER 20
#define SPILL_WRITE_BUF (64 * 1024)
/* No frame we write is near this; a bigger length is damage, not data. */
#define SPILL_MAX_FRAME ((int64_t)1 << 40)

struct spill_file {
    engine_ctx *ctx;
    const col_type *schema;
    char *path;
    int fd;               /* -1 until the first flush */
    const char *dir;
    arena *owner;
    buf wbuf;
    int finished;
    int64_t write_pos; /* bytes in the file */
    int64_t read_pos;
    int64_t n_rows;
};

/* ---- creation and cleanup ------------------------------------------------------ */

static void spill_file_cleanup(void *payload)
{
    spill_file *f = payload;
    if (f->fd >= 0) {
        close(f->fd);
        f->fd = -1;
    }
    buf_clear(&f->wbuf);
}

void engine_spill_file_remove(spill_file *f)
{
    if (f != NULL)
        spill_file_cleanup(f);
}

static silt_status no_temp_dir(const char *dir, int e, silt_error *err)
{
    err_set(err, SILT_IO, "could not create a spill file in temp_directory \"%s\": %s", dir,
            strerror(e));
    err_hint(err, "point temp_directory at a writable directory with free space, "
             "e.g. SET temp_directory = '/var/tmp'");
    return SILT_IO;
}

static const char *temp_dir_of(const engine_ctx *ctx)
{
    const char *dir = ctx->temp_dir;
    if (dir == NULL || dir[0] == '\0')
        dir = getenv("TMPDIR");
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    return dir;
}

silt_status engine_spill_file_create(spill_file **out, engine_ctx *ctx, arena *owner,
                              const col_type *schema, silt_error *err)
{
    const char *dir = temp_dir_of(ctx);
    spill_file *f = arena_calloc(owner, 1, sizeof(*f));
    if (f == NULL)
        return err_nomem(err);
    f->ctx = ctx;
    f->schema = schema;
    f->fd = -1;
    buf_init(&f->wbuf, 0);
    f->dir = dir;
    /* The file itself is made at the first flush: empty partitions cost nothing. */
    if (access(dir, W_OK | X_OK) != 0)
        return no_temp_dir(dir, errno, err);
    if (!arena_on_cleanup(owner, spill_file_cleanup, f))
        return err_nomem(err);
    f->owner = owner;
    *out = f;
    return SILT_OK;
}

/* Creates the file on disk (mkstemp in the temp directory). */
static silt_status open_file(spill_file *f, silt_error *err)
{
    f->path = arena_sprintf(f->owner, "%s/silt-spill-%ld-XXXXXX", f->dir, (long)getpid());
    if (f->path == NULL)
        return err_nomem(err);
    f->fd = mkstemp(f->path);
    if (f->fd < 0) {
        int e = errno;
        f->path = NULL;
        return no_temp_dir(f->dir, e, err);
    }
    /*
     * Unlinked at once: the open descriptor keeps the data, and nothing is
     * left behind even when the process is killed in the middle of a query.
     */
    unlink(f->path);
    __atomic_add_fetch(&f->ctx->spill_files, 1, __ATOMIC_RELAXED);
    return SILT_OK;
}

int64_t engine_spill_file_rows(const spill_file *f) { return f->n_rows; }
int64_t engine_spill_file_bytes(const spill_file *f) { return f->write_pos; }
const char *engine_spill_file_path(const spill_file *f) { return f->path ? f->path : "(not written)"; }
int engine_spill_file_fd(const spill_file *f) { return f->fd; }

/* ---- writing ------------------------------------------------------------------- */

static silt_status flush_buf(spill_file *f, silt_error *err)
{
    size_t done = 0, len = f->wbuf.len;
    if (len == 0)
        return SILT_OK;
    if (f->fd < 0)
        SILT_RETURN_IF_ERROR(open_file(f, err));
    while (done < len) {
        ssize_t n = pwrite(f->fd, f->wbuf.data + done, len - done, (off_t)(f->write_pos));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : ENOSPC;
            return err_set(err, SILT_IO, "could not write spill file \"%s\": %s", f->path,
                           strerror(e));
        }
        done += (size_t)n;
        f->write_pos += n;
    }
    __atomic_add_fetch(&f->ctx->spilled_bytes, (int64_t)len, __ATOMIC_RELAXED);
    buf_truncate(&f->wbuf, 0);
    return SILT_OK;
}

static silt_status put(buf *b, const void *data, size_t len, silt_error *err)
{
    return len == 0 ? SILT_OK : buf_append(b, data, len, err);
}

static silt_status put_i64(buf *b, int64_t v, silt_error *err) { return put(b, &v, 8, err); }

/* Whether a vector (or a nested child) needs a compacting copy before writing. */
static int needs_copy(const col_vec *v)
{
    size_t child;
    if (v->dictionary != NULL)
        return 1;
    if ((v->type->id == COL_ARRAY || v->type->id == COL_MAP) && v->length > 0 &&
        v->offsets[0] != 0)
        return 1;
    for (child = 0; child < v->n_children; child++)
        if (needs_copy(v->children[child]))
            return 1;
    return 0;
}

static silt_status encode_vec(buf *b, const col_vec *v, silt_error *err)
{
    col_type_id id = v->type->id;
    uint8_t tid = (uint8_t)id, has_validity = v->validity != NULL && v->null_count != 0;
    size_t width = col_type_value_width(id), child;
    int64_t n = v->length;
    SILT_RETURN_IF_ERROR(put(b, &tid, 1, err));
    SILT_RETURN_IF_ERROR(put_i64(b, n, err));
    SILT_RETURN_IF_ERROR(put(b, &has_validity, 1, err));
    if (has_validity)
        SILT_RETURN_IF_ERROR(put(b, v->validity, (size_t)((n + 7) / 8), err));
    if (id == COL_NULL)
        return SILT_OK;
    if (id == COL_STRING || id == COL_BINARY) {
        int32_t base = n > 0 ? v->offsets[0] : 0;
        int64_t data_len = n > 0 ? (int64_t)v->offsets[n] - base : 0, row;
        /* Offsets rebased to 0: a vector may view the middle of a larger buffer. */
        SILT_RETURN_IF_ERROR(buf_reserve(b, (size_t)(n + 1) * 4 + 8 + (size_t)data_len, err));
        for (row = 0; row <= n; row++) {
            int32_t o = n > 0 ? v->offsets[row] - base : 0;
            SILT_RETURN_IF_ERROR(put(b, &o, 4, err));
        }
        SILT_RETURN_IF_ERROR(put_i64(b, data_len, err));
        return put(b, v->data + base, (size_t)data_len, err);
    }
    if (id == COL_ARRAY || id == COL_MAP)
        SILT_RETURN_IF_ERROR(put(b, v->offsets, (size_t)(n + 1) * 4, err));
    else if (width > 0)
        SILT_RETURN_IF_ERROR(put(b, v->values, width * (size_t)n, err));
    for (child = 0; child < v->n_children; child++)
        SILT_RETURN_IF_ERROR(encode_vec(b, v->children[child], err));
    return SILT_OK;
}

silt_status engine_spill_file_write(spill_file *f, const col_batch *batch, const int32_t *sel,
                             int64_t n_sel, arena *scratch, silt_error *err)
{
    size_t start = f->wbuf.len, col;
    uint32_t n_cols = (uint32_t)batch->n_cols;
    uint64_t body_len, sum;
    SILT_ASSERT(!f->finished);
    if (n_sel == 0)
        return SILT_OK;
    /* Header placeholder, filled once the body is there. */
    SILT_RETURN_IF_ERROR(put(&f->wbuf, SPILL_MAGIC "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
                             SPILL_FRAME_HEADER, err));
    SILT_RETURN_IF_ERROR(put_i64(&f->wbuf, n_sel, err));
    SILT_RETURN_IF_ERROR(put(&f->wbuf, &n_cols, 4, err));
    for (col = 0; col < batch->n_cols; col++) {
        const col_vec *v = batch->cols[col];
        col_vec *dense = (col_vec *)v;
        if (sel != NULL || n_sel != v->length || needs_copy(v))
            SILT_RETURN_IF_ERROR(vec_compact(&dense, scratch, v, sel, n_sel, err));
        if (needs_copy(dense)) {
            /* vec_compact hands back a dense vector as it is: force the copy. */
            int64_t *idx = arena_alloc(scratch, sizeof(int64_t) * (size_t)n_sel), k;
            if (idx == NULL)
                return err_nomem(err);
            for (k = 0; k < n_sel; k++)
                idx[k] = k;
            SILT_RETURN_IF_ERROR(vec_gather(&dense, scratch, v, idx, n_sel, err));
        }
        SILT_RETURN_IF_ERROR(encode_vec(&f->wbuf, dense, err));
    }
    body_len = (uint64_t)(f->wbuf.len - start - SPILL_FRAME_HEADER);
    sum = util_hash_bytes(f->wbuf.data + start + SPILL_FRAME_HEADER, (size_t)body_len, 0x5b111);
    memcpy(f->wbuf.data + start + 4, &body_len, 8);
    memcpy(f->wbuf.data + start + 12, &sum, 8);
    f->n_rows += n_sel;
    if (f->wbuf.len >= SPILL_WRITE_BUF)
        return flush_buf(f, err);
    return SILT_OK;
}

silt_status engine_spill_file_finish(spill_file *f, silt_error *err)
{
    if (f->finished)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(flush_buf(f, err));
    buf_clear(&f->wbuf);
    f->finished = 1;
    f->read_pos = 0;
    return SILT_OK;
}

void engine_spill_file_rewind(spill_file *f) { f->read_pos = 0; }

/* ---- reading ------------------------------------------------------------------- */

typedef struct reader {
    const spill_file *f;
    const uint8_t *p;
    int64_t len, pos;
    int64_t file_off; /* where the body starts in the file, for messages */
} reader;

static silt_status corrupt(const reader *r, const char *what, silt_error *err)
{
    return err_set(err, SILT_CORRUPT, "could not read spill file \"%s\": %s at offset %lld",
                   r->f->path, what, (long long)(r->file_off + r->pos));
}

static silt_status take(reader *r, size_t n, const uint8_t **out, silt_error *err)
{
    if ((int64_t)n > r->len - r->pos)
        return corrupt(r, "a vector runs past the end of its frame", err);
    *out = r->p + r->pos;
    r->pos += (int64_t)n;
    return SILT_OK;
}

static silt_status take_i64(reader *r, int64_t *out, silt_error *err)
{
    const uint8_t *p = NULL;
    SILT_RETURN_IF_ERROR(take(r, 8, &p, err));
    memcpy(out, p, 8);
    return SILT_OK;
}

/* Copies n bytes into a 64-byte aligned buffer of arena a (column buffers are aligned). */
static silt_status take_copy(reader *r, arena *a, size_t n, void **out, silt_error *err)
{
    const uint8_t *p = NULL;
    SILT_RETURN_IF_ERROR(take(r, n, &p, err));
    *out = arena_alloc_aligned(a, n ? n : 1, 64);
    if (*out == NULL)
        return err_nomem(err);
    memcpy(*out, p, n);
    return SILT_OK;
}

/* Checks that offsets start at 0, never go down and end at most at limit. */
static silt_status check_offsets(reader *r, const int32_t *off, int64_t n, int64_t limit,
                                 int64_t *end_out, silt_error *err)
{
    int64_t row;
    if (off[0] != 0)
        return corrupt(r, "offsets do not start at 0", err);
    for (row = 0; row < n; row++)
        if (off[row + 1] < off[row])
            return corrupt(r, "offsets go backwards", err);
    if (off[n] > limit)
        return corrupt(r, "offsets point past the values", err);
    *end_out = off[n];
    return SILT_OK;
}

static silt_status decode_vec(reader *r, arena *a, const col_type *type, int64_t want_len,
                              col_vec **out, silt_error *err)
{
    const uint8_t *p = NULL;
    int64_t n, data_len, end;
    uint8_t has_validity;
    size_t width = col_type_value_width(type->id), child;
    col_vec *v;
    SILT_RETURN_IF_ERROR(take(r, 1, &p, err));
    if (*p != (uint8_t)type->id)
        return corrupt(r, "a column has another type than the spilled schema", err);
    SILT_RETURN_IF_ERROR(take_i64(r, &n, err));
    if (n < 0 || (want_len >= 0 && n != want_len) || n > r->len)
        return corrupt(r, "a column length does not match its batch", err);
    v = arena_calloc(a, 1, sizeof(*v));
    if (v == NULL)
        return err_nomem(err);
    v->type = type;
    v->length = n;
    SILT_RETURN_IF_ERROR(take(r, 1, &p, err));
    has_validity = *p;
    if (has_validity > 1)
        return corrupt(r, "a validity flag is neither 0 nor 1", err);
    if (has_validity) {
        SILT_RETURN_IF_ERROR(take_copy(r, a, (size_t)((n + 7) / 8), (void **)&v->validity, err));
        v->null_count = col_validity_count_nulls(v->validity, n);
    }
    if (type->id == COL_NULL) {
        *out = v;
        return SILT_OK;
    }
    if (type->id == COL_STRING || type->id == COL_BINARY) {
        SILT_RETURN_IF_ERROR(take_copy(r, a, (size_t)(n + 1) * 4, (void **)&v->offsets, err));
        SILT_RETURN_IF_ERROR(take_i64(r, &data_len, err));
        if (data_len < 0 || data_len > r->len - r->pos)
            return corrupt(r, "a string length runs past the end of its frame", err);
        SILT_RETURN_IF_ERROR(check_offsets(r, v->offsets, n, data_len, &end, err));
        SILT_RETURN_IF_ERROR(take_copy(r, a, (size_t)data_len, (void **)&v->data, err));
        v->data_len = data_len;
        *out = v;
        return SILT_OK;
    }
    if (type->id == COL_ARRAY || type->id == COL_MAP) {
        SILT_RETURN_IF_ERROR(take_copy(r, a, (size_t)(n + 1) * 4, (void **)&v->offsets, err));
        SILT_RETURN_IF_ERROR(check_offsets(r, v->offsets, n, INT32_MAX, &end, err));
    } else if (type->id == COL_STRUCT) {
        end = n;
    } else {
        if (width == 0 || (int64_t)width * n > r->len - r->pos)
            return corrupt(r, "fixed-width values run past the end of its frame", err);
        SILT_RETURN_IF_ERROR(take_copy(r, a, width * (size_t)n, &v->values, err));
        *out = v;
        return SILT_OK;
    }
    v->n_children = type->id == COL_ARRAY ? 1 : type->n_fields;
    v->children = arena_calloc(a, v->n_children ? v->n_children : 1, sizeof(col_vec *));
    if (v->children == NULL)
        return err_nomem(err);
    for (child = 0; child < v->n_children; child++)
        SILT_RETURN_IF_ERROR(
            decode_vec(r, a, type->fields[child].type, end, &v->children[child], err));
    *out = v;
    return SILT_OK;
}

static silt_status read_exact(spill_file *f, void *dst, size_t len, int64_t off, silt_error *err)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(f->fd, (char *)dst + done, len - done, (off_t)(off + (int64_t)done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return err_set(err, SILT_IO, "could not read spill file \"%s\": %s", f->path,
                           strerror(errno));
        if (n == 0)
            return err_set(err, SILT_CORRUPT, "could not read spill file \"%s\": unexpected "
                           "end of file at offset %lld", f->path,
                           (long long)(off + (int64_t)done));
        done += (size_t)n;
    }
    return SILT_OK;
}

silt_status engine_spill_file_read(spill_file *f, arena *a, col_batch **out, silt_error *err)
{
    uint8_t head[SPILL_FRAME_HEADER];
    uint64_t body_len, sum;
    uint32_t n_cols;
    int64_t n_rows, frame_off = f->read_pos;
    col_batch *b;
    reader r;
    size_t col;
    *out = NULL;
    SILT_ASSERT(f->finished);
    if (f->read_pos >= f->write_pos) {
        /* The file may have been cut short behind our back: check its real size. */
        off_t size = f->fd >= 0 ? lseek(f->fd, 0, SEEK_END) : 0;
        if (size >= 0 && (int64_t)size < f->write_pos)
            return err_set(err, SILT_CORRUPT, "could not read spill file \"%s\": unexpected "
                           "end of file at offset %lld (%lld bytes were written)", f->path,
                           (long long)size, (long long)f->write_pos);
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(read_exact(f, head, sizeof(head), frame_off, err));
    memcpy(&body_len, head + 4, 8);
    memcpy(&sum, head + 12, 8);
    if (memcmp(head, SPILL_MAGIC, 4) != 0)
        return err_set(err, SILT_CORRUPT, "could not read spill file \"%s\": no batch header "
                       "at offset %lld", f->path, (long long)frame_off);
    if (body_len > (uint64_t)SPILL_MAX_FRAME ||
        (int64_t)body_len > f->write_pos - frame_off - SPILL_FRAME_HEADER)
        return err_set(err, SILT_CORRUPT, "could not read spill file \"%s\": batch at offset "
                       "%lld claims %llu bytes, more than the file holds", f->path,
                       (long long)frame_off, (unsigned long long)body_len);
    r.f = f;
    r.len = (int64_t)body_len;
    r.pos = 0;
    r.file_off = frame_off + SPILL_FRAME_HEADER;
    r.p = arena_alloc(a, (size_t)(body_len ? body_len : 1));
    if (r.p == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(read_exact(f, (void *)r.p, (size_t)body_len, r.file_off, err));
    if (util_hash_bytes(r.p, (size_t)body_len, 0x5b111) != sum)
        return err_set(err, SILT_CORRUPT, "could not read spill file \"%s\": checksum mismatch "
                       "in the batch at offset %lld", f->path, (long long)frame_off);
    SILT_RETURN_IF_ERROR(take_i64(&r, &n_rows, err));
    {
        const uint8_t *p = NULL;
        SILT_RETURN_IF_ERROR(take(&r, 4, &p, err));
        memcpy(&n_cols, p, 4);
    }
    if (n_cols != f->schema->n_fields)
        return corrupt(&r, "the batch has another number of columns than the spilled schema",
                       err);
    if (n_rows < 0 || n_rows > r.len)
        return corrupt(&r, "the row count is out of range", err);
    b = arena_calloc(a, 1, sizeof(*b));
    if (b == NULL || (b->cols = arena_calloc(a, n_cols ? n_cols : 1, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    b->schema = f->schema;
    b->n_rows = n_rows;
    b->n_cols = n_cols;
    for (col = 0; col < n_cols; col++)
        SILT_RETURN_IF_ERROR(
            decode_vec(&r, a, f->schema->fields[col].type, n_rows, &b->cols[col], err));
    if (r.pos != r.len)
        return corrupt(&r, "bytes are left over after the last column", err);
    f->read_pos = frame_off + SPILL_FRAME_HEADER + (int64_t)body_len;
    *out = b;
    return SILT_OK;
}

/* ---- scan operator ---------------------------------------------------------------- */

/*
 * Partitioned writers leave many small frames (a grace join splits every
 * batch 16 ways); the scan glues consecutive frames back into batches of
 * up to ENGINE_BATCH_ROWS so that consumers do not pay per-batch overhead
 * (and per-part bookkeeping in their memory) for a handful of rows.
 */
typedef struct spill_scan {
    spill_file *f;
    arena *hold;        /* the frame read ahead */
    col_batch *pending; /* read but not handed out yet */
} spill_scan;

static silt_status spill_source(void *payload, arena *batch_arena, col_batch **out,
                                silt_error *err)
{
    spill_scan *sc = payload;
    vec_accum *acc = NULL;
    size_t n_cols = sc->f->schema->n_fields, col;
    int64_t total = 0;
    col_batch *b;
    *out = NULL;
    for (;;) {
        if (sc->pending == NULL) {
            arena_reset(sc->hold);
            SILT_RETURN_IF_ERROR(engine_spill_file_read(sc->f, sc->hold, &sc->pending, err));
            if (sc->pending == NULL)
                break;
        }
        if (total > 0 && total + sc->pending->n_rows > ENGINE_BATCH_ROWS)
            break;
        if (acc == NULL) {
            acc = arena_calloc(batch_arena, n_cols ? n_cols : 1, sizeof(vec_accum));
            if (acc == NULL)
                return err_nomem(err);
            for (col = 0; col < n_cols; col++)
                vec_accum_init(&acc[col], batch_arena, sc->f->schema->fields[col].type);
        }
        for (col = 0; col < n_cols; col++)
            SILT_RETURN_IF_ERROR(vec_accum_add(&acc[col], sc->pending->cols[col], NULL,
                                               sc->pending->n_rows, err));
        total += sc->pending->n_rows;
        sc->pending = NULL;
    }
    if (acc == NULL)
        return SILT_OK;
    b = arena_calloc(batch_arena, 1, sizeof(*b));
    if (b == NULL || (b->cols = arena_calloc(batch_arena, n_cols ? n_cols : 1,
                                             sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    b->schema = sc->f->schema;
    b->n_cols = n_cols;
    b->n_rows = total;
    for (col = 0; col < n_cols; col++)
        SILT_RETURN_IF_ERROR(vec_accum_finish(&acc[col], &b->cols[col], err));
    *out = b;
    return SILT_OK;
}

silt_status engine_spill_op_scan(engine_op **out, engine_ctx *ctx, spill_file *f, silt_error *err)
{
    spill_scan *sc = arena_calloc(ctx->query_arena, 1, sizeof(*sc));
    SILT_RETURN_IF_ERROR(engine_spill_file_finish(f, err));
    engine_spill_file_rewind(f);
    if (sc == NULL)
        return err_nomem(err);
    sc->f = f;
    SILT_RETURN_IF_ERROR(engine_op_scan(out, ctx, f->schema, spill_source, sc, err));
    /* The read-ahead frame lives with the scan operator. */
    sc->hold = arena_new((*out)->op_arena, "spill_scan_hold");
    return sc->hold != NULL ? SILT_OK : err_nomem(err);
}

/* ---- memory budget ---------------------------------------------------------------- */

int64_t engine_mem_room(const engine_op *op)
{
    /* What the operator holds counts as its own room, under both limits. */
    int64_t free_bytes = engine_mem_free(op->ctx);
    if (op->ctx->mem_limit <= 0 || free_bytes == INT64_MAX)
        return INT64_MAX;
    return free_bytes + op->mem_charged;
}

silt_status engine_op_charge_to(engine_op *op, int64_t bytes, const char *what,
                                silt_error *err)
{
    int64_t delta = bytes - op->mem_charged;
    if (delta <= 0) {
        engine_mem_release(op->ctx, -delta);
        op->mem_charged = bytes;
        return SILT_OK;
    }
    return engine_op_charge(op, delta, what, err);
}
