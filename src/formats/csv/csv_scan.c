/*
 * csv_scan.c - the CSV scan: header and schema, chunked parallel parsing
 * straight into column vectors, Spark's parse modes.
 *
 * An object is read whole, its BOM skipped, and split at record boundaries
 * into chunks of about chunk_bytes (a sequential quote-aware pass with
 * multiLine, a memchr for the next line break otherwise). Chunks are parsed
 * in rounds of a few per pool thread; each chunk writes batches of
 * batch_rows rows into fresh vectors, every batch in its own arena, so a
 * batch can be handed to the caller and freed with the caller's arena.
 * Errors of a round are reported for the first failing chunk in file order,
 * so FAILFAST names the same record however the threads ran.
 */
#include <stdatomic.h>
#include <string.h>

#include "formats/csv/csv_int.h"
#include "formats/text/text_batch.h"
#include "formats/text/text_spec.h"
#include "util/hashmap.h"
#include "util/mem.h"

typedef struct chunk_job {
    text_chunk chunk;
    size_t start, end;
    int skip_first; /* the chunk begins with the header record */
    text_batch_list batches;
    csv_infer_type *types; /* inference only */
    int speculate;         /* inference also converts the chunk (see "one pass") */
    int speculated;        /* ... and batches holds its rows under spec_schema */
    arena *spec_arena;     /* spec_schema and its types */
    const col_type *spec_schema;
    int preset;            /* read pass: batches came from inference, nothing to parse */
    silt_status status;
    silt_error err;
} chunk_job;

struct csv_scan {
    io_store *store;
    arena *arena;
    char **keys;
    size_t n_keys;
    csv_options opts;
    const col_type *schema;
    size_t n_token_cols; /* schema columns filled from tokens, in order */
    size_t *token_col;   /* token index -> schema column */
    int64_t corrupt_idx; /* schema column of the corrupt record, -1 */
    uint8_t *unread;     /* per schema column: not read (csv_options.read_columns), or NULL */
    uint8_t *infer_unread; /* the same per column while inferring, or NULL */
    /* the objects being read */
    text_reader *reader; /* on the heap: chunk tasks copy the scan while the caller reads ahead */
    text_batch_queue queue; /* batches parsed and not yet handed out */
    /* one pass (inference converts what it tokenized) */
    int speculate;          /* allowed for this scan (csv_scan_open with inference) */
    char **infer_names;     /* column names while inferring */
    text_spec *spec;        /* chunks converted during inference, in reader order (heap) */
    struct saved_slot *slots; /* inference: saved-record buffers reused by chunks */
};

/* Splits an object at record boundaries into chunks of about chunk_bytes. */
static silt_status split_object(text_object *obj, void *payload, silt_error *err)
{
    const csv_scan *s = payload;
    const char *data = obj->data;
    size_t len = obj->len, step = s->opts.chunk_bytes ? s->opts.chunk_bytes : 1;
    size_t max_chunks = len / step + 2, n = 0, pos = 0;
    obj->eol = csv_detect_eol(data, len);
    obj->bounds = mem_calloc(max_chunks + 1, sizeof(size_t));
    if (obj->bounds == NULL)
        return err_nomem(err);
    obj->bounds[n++] = 0;
    /* Without the object's end in this window, only complete records count:
     * the window ends after the last line break outside quotes. */
    size_t end = len;
    if (!obj->last_window) {
        if (s->opts.multi_line && s->opts.quote != '\0') {
            size_t p = 0;
            int complete = 1;
            end = 0;
            while (p < len && complete) {
                p = csv_record_end_checked(&s->opts, data, len, p, &complete);
                if (complete)
                    end = p;
            }
        } else {
            end = text_last_line_end(data, len);
            if (end == 0 && obj->eol == '\r') {
                while (end < len && memchr(data + end, '\r', len - end) != NULL)
                    end = (size_t)((const char *)memchr(data + end, '\r', len - end) - data) + 1;
            }
        }
    }
    while (pos < end) {
        size_t target = pos + step;
        if (target >= end) {
            pos = end;
        } else if (s->opts.multi_line && s->opts.quote != '\0') {
            while (pos < end && pos < target)
                pos = csv_record_end(&s->opts, obj->eol, data, end, pos);
        } else {
            pos = csv_record_end(&s->opts, obj->eol, data, end, target);
        }
        if (n <= max_chunks)
            obj->bounds[n++] = pos;
    }
    obj->n_chunks = n - 1;
    obj->next_chunk = 0;
    return SILT_OK;
}

/* ---- schema: header names and inference ---- */

/* Spark's CSVUtils.makeSafeHeader with case-insensitive names. */
static silt_status safe_header(csv_scan *s, csv_tokenizer *t, int has_header, char ***names_out,
                               silt_error *err)
{
    size_t n = t->n_fields;
    char **names = arena_calloc(s->arena, n ? n : 1, sizeof(char *));
    hashmap seen = HASHMAP_INIT;
    silt_status rc = SILT_OK;
    if (names == NULL)
        return err_nomem(err);
    for (size_t pass = 0; pass < 2 && rc == SILT_OK && has_header; pass++) {
        for (size_t idx = 0; idx < n && rc == SILT_OK; idx++) {
            const csv_field *f = &t->fields[idx];
            char *lower = arena_strndup(s->arena, f->ptr, f->len);
            if (lower == NULL) {
                rc = err_nomem(err);
                break;
            }
            for (char *c = lower; *c; c++)
                if (*c >= 'A' && *c <= 'Z')
                    *c = (char)(*c - 'A' + 'a');
            void *count = NULL;
            hashmap_get(&seen, lower, strlen(lower), &count);
            if (pass == 0) {
                rc = hashmap_put(&seen, lower, strlen(lower), (void *)((uintptr_t)count + 1), NULL,
                                 err);
            } else if (f->len == 0 || (f->len == strlen(s->opts.null_value) &&
                                       memcmp(f->ptr, s->opts.null_value, f->len) == 0)) {
                names[idx] = arena_sprintf(s->arena, "_c%zu", idx);
            } else if ((uintptr_t)count > 1) {
                names[idx] = arena_sprintf(s->arena, "%.*s%zu", (int)f->len, f->ptr, idx);
            } else if (text_utf8_valid(f->ptr, f->len)) {
                names[idx] = arena_strndup(s->arena, f->ptr, f->len);
            } else {
                buf fixed = BUF_INIT;
                rc = text_utf8_repair(f->ptr, f->len, &fixed, err);
                names[idx] = arena_strndup(s->arena, buf_cstr(&fixed), fixed.len);
                buf_clear(&fixed);
            }
        }
    }
    for (size_t idx = 0; idx < n && rc == SILT_OK; idx++)
        if (!has_header)
            names[idx] = arena_sprintf(s->arena, "_c%zu", idx);
    for (size_t idx = 0; idx < n && rc == SILT_OK; idx++)
        if (names[idx] == NULL)
            rc = err_nomem(err);
    hashmap_clear(&seen);
    *names_out = names;
    return rc;
}

typedef struct round_ctx {
    csv_scan *scan;
    chunk_job *jobs;
    int infer;
    size_t n_cols;
    size_t n; /* jobs */
} round_ctx;

/* Starts a tokenizer on a chunk, past the header record when the chunk begins with it. */
static silt_status chunk_tokenizer_start(csv_tokenizer *t, const csv_options *o,
                                         const chunk_job *job, silt_error *err)
{
    int got;
    csv_tokenizer_init(t, o, job->chunk.obj->data, job->end);
    t->eol = job->chunk.obj->eol;
    t->pos = job->start;
    return job->skip_first ? csv_tokenizer_next(t, &got, err) : SILT_OK;
}

/*
 * The records of a chunk as the tokenizer gave them, kept while inferring so
 * that the chunk can be converted without tokenizing it again. Fields
 * rewritten in the tokenizer's scratch (escaped quotes) are copied to bytes.
 */
typedef struct saved_record {
    size_t rec_start, rec_len;
    size_t first_field, n_fields;
} saved_record;

static int text_is(const char *s, size_t len, const char *text)
{
    if (text[0] == '\0') /* the default nullValue: no strlen on the hot path */
        return len == 0;
    return strlen(text) == len && memcmp(s, text, len) == 0;
}

/*
 * Values an integer, double or timestamp column's fields were parsed into
 * while their type was being confirmed, so that the conversion does not
 * parse them again: ok[r] says record r's value is in values[r] (int64_t;
 * an int widened, a double's bits), parsed as kind. A column whose type changes after its first
 * value was kept drops them all (its conversion type is another one).
 */
typedef struct col_capture {
    csv_kind kind; /* CSV_K_INT, CSV_K_DOUBLE or CSV_K_TIMESTAMP; CSV_K_NULL: nothing kept */
    int dead;      /* the type changed, or no memory: nothing is used */
    buf values;    /* int64_t per record */
    buf ok;        /* uint8_t per record */
} col_capture;

typedef struct saved_records {
    buf recs;   /* saved_record */
    buf fields; /* csv_field; in_scratch: scratch_off is an offset into bytes */
    buf bytes;
    col_capture *caps; /* one per column inferred, or NULL */
    size_t n_caps;
} saved_records;

/*
 * 1 when extra bytes fit b without growing it or passing its limit, the
 * check buf_reserve starts with, made inline: it runs for every field.
 */
static int buf_has_room(const buf *b, size_t extra)
{
    size_t limit = b->limit ? b->limit : BUF_DEFAULT_LIMIT;
    return extra < b->cap - b->len && b->len + extra <= limit;
}

static silt_status reserve(buf *b, size_t extra, silt_error *err)
{
    return buf_has_room(b, extra) ? SILT_OK : buf_reserve(b, extra, err);
}

static silt_status save_record(saved_records *sv, const csv_tokenizer *t, silt_error *err)
{
    saved_record *rec;
    csv_field *fields;
    /* One reservation per record: this runs for every record of an ingest. */
    SILT_RETURN_IF_ERROR(reserve(&sv->recs, sizeof(*rec), err));
    SILT_RETURN_IF_ERROR(reserve(&sv->fields, t->n_fields * sizeof(csv_field), err));
    rec = (saved_record *)(sv->recs.data + sv->recs.len);
    rec->rec_start = t->rec_start;
    rec->rec_len = t->rec_len;
    rec->first_field = sv->fields.len / sizeof(csv_field);
    rec->n_fields = t->n_fields;
    sv->recs.len += sizeof(*rec);
    fields = (csv_field *)(sv->fields.data + sv->fields.len);
    for (size_t idx = 0; idx < t->n_fields; idx++) {
        fields[idx] = t->fields[idx];
        if (fields[idx].in_scratch) {
            fields[idx].scratch_off = sv->bytes.len;
            SILT_RETURN_IF_ERROR(buf_append(&sv->bytes, t->fields[idx].ptr, t->fields[idx].len,
                                            err));
        }
    }
    sv->fields.len += t->n_fields * sizeof(csv_field);
    return SILT_OK;
}

static void capture_drop(col_capture *c)
{
    c->dead = 1;
    buf_clear(&c->values);
    buf_clear(&c->ok);
}

static void saved_records_clear(saved_records *sv)
{
    buf_clear(&sv->recs);
    buf_clear(&sv->fields);
    buf_clear(&sv->bytes);
    for (size_t idx = 0; sv->caps != NULL && idx < sv->n_caps; idx++)
        capture_drop(&sv->caps[idx]);
    mem_free(sv->caps);
    sv->caps = NULL;
    sv->n_caps = 0;
}

/*
 * Grows a capture to hold records up to rec and beyond (doubling, so that
 * a record costs no call): the new ok bytes are 0. 0 when out of memory.
 */
static int capture_grow(col_capture *c, size_t rec)
{
    silt_error quiet; /* filled only on failure, which drops the column's values */
    size_t have = c->ok.len, want = have * 2 > rec + 1024 ? have * 2 : rec + 1024;
    size_t add = want - have;
    err_clear(&quiet);
    if (buf_reserve(&c->ok, add, &quiet) != SILT_OK ||
        buf_reserve(&c->values, add * sizeof(int64_t), &quiet) != SILT_OK)
        return 0;
    memset(c->ok.data + have, 0, add);
    c->ok.len += add;
    c->values.len += add * sizeof(int64_t);
    return 1;
}

/*
 * Saved records are tens of bytes per record (a csv_field is 32): fresh
 * buffers for every chunk cost a page fault per 4 KiB, a third of the
 * faults of an ingest. So a chunk takes the buffers of a free slot and
 * leaves them there, emptied, for the next chunk; the slots live while
 * the scan infers (csv_scan_open frees them after inference). A slot is
 * taken with an atomic exchange, so rounds may run at the same time; with
 * every slot taken a chunk uses buffers of its own.
 */
#define SAVED_SLOTS 8

typedef struct saved_slot {
    atomic_int busy;
    saved_records sv;
} saved_slot;

static silt_status slots_new(csv_scan *s, silt_error *err)
{
    s->slots = mem_calloc(SAVED_SLOTS, sizeof(saved_slot));
    if (s->slots == NULL)
        return err_nomem(err);
    for (size_t idx = 0; idx < SAVED_SLOTS; idx++)
        atomic_init(&s->slots[idx].busy, 0);
    return SILT_OK;
}

static void slots_free(csv_scan *s)
{
    for (size_t idx = 0; s->slots != NULL && idx < SAVED_SLOTS; idx++)
        saved_records_clear(&s->slots[idx].sv);
    mem_free(s->slots);
    s->slots = NULL;
}

/* A free slot, now taken; NULL when there are none. */
static saved_slot *slot_take(csv_scan *s)
{
    for (size_t idx = 0; s->slots != NULL && idx < SAVED_SLOTS; idx++)
        if (atomic_exchange(&s->slots[idx].busy, 1) == 0)
            return &s->slots[idx];
    return NULL;
}

static void slot_give_back(saved_slot *slot)
{
    if (slot != NULL)
        atomic_store(&slot->busy, 0);
}

/*
 * Empties sv for a chunk, keeping its memory: limit bounds each buffer;
 * with capture, one col_capture per column (n_cols) is ready and empty.
 */
static silt_status saved_records_prepare(saved_records *sv, size_t limit, size_t n_cols,
                                         int capture, silt_error *err)
{
    buf *bufs[] = {&sv->recs, &sv->fields, &sv->bytes};
    for (size_t idx = 0; idx < 3; idx++) {
        bufs[idx]->len = 0;
        bufs[idx]->limit = limit;
    }
    if (!capture) {
        for (size_t idx = 0; idx < sv->n_caps; idx++)
            capture_drop(&sv->caps[idx]);
        sv->n_caps = 0;
        return SILT_OK;
    }
    if (sv->caps == NULL || sv->n_caps != n_cols) {
        for (size_t idx = 0; idx < sv->n_caps; idx++)
            capture_drop(&sv->caps[idx]);
        mem_free(sv->caps);
        sv->n_caps = 0;
        sv->caps = mem_calloc(n_cols ? n_cols : 1, sizeof(col_capture));
        if (sv->caps == NULL)
            return err_nomem(err);
    }
    sv->n_caps = n_cols;
    for (size_t idx = 0; idx < n_cols; idx++) {
        col_capture *c = &sv->caps[idx];
        c->kind = CSV_K_NULL;
        c->dead = 0;
        c->values.len = c->ok.len = 0;
        c->values.limit = c->ok.limit = limit;
    }
    return SILT_OK;
}

/* Keeps record rec's value of a column parsed as kind (no memory: the column keeps none). */
static void capture_put(col_capture *c, csv_kind kind, size_t rec, int64_t value)
{
    if (c->dead)
        return;
    if ((c->kind != kind && c->kind != CSV_K_NULL) || (rec >= c->ok.len && !capture_grow(c, rec))) {
        capture_drop(c);
        return;
    }
    c->kind = kind;
    ((int64_t *)c->values.data)[rec] = value;
    c->ok.data[rec] = 1;
}

/*
 * Folds field idx of a record into the column's type (csv_infer_field),
 * confirming an integer or timestamp column first and keeping the value it
 * parsed (rec is the record's index among those saved; caps NULL = keep
 * nothing). Exactly csv_infer_field's result: a null or empty field leaves
 * the type, a value of the column's own type keeps it.
 */
static inline void infer_and_capture(csv_infer_type *type, csv_date_memo *memo,
                                     col_capture *cap, size_t rec, const csv_options *o,
                                     const char *p, size_t len)
{
    int32_t small;
    int64_t ts;
    double d;
    csv_kind before = type->kind;
    if (len == 0 || (o->null_value[0] != '\0' && text_is(p, len, o->null_value)))
        return;
    if (cap != NULL && before == CSV_K_INT && csv_parse_int32(p, len, &small)) {
        capture_put(cap, CSV_K_INT, rec, small);
        return;
    }
    if (cap != NULL && before == CSV_K_TIMESTAMP && csv_parse_timestamp_memo(o, memo, p, len, &ts)) {
        capture_put(cap, CSV_K_TIMESTAMP, rec, ts);
        return;
    }
    /* A double column stays one exactly when the field parses (try_double). */
    if (cap != NULL && before == CSV_K_DOUBLE && csv_parse_double(o, p, len, &d)) {
        memcpy(&ts, &d, sizeof(d));
        capture_put(cap, CSV_K_DOUBLE, rec, ts);
        return;
    }
    csv_infer_field(type, memo, o, p, len);
    if (cap != NULL && type->kind != before && cap->kind != CSV_K_NULL && !cap->dead)
        capture_drop(cap);
}

static silt_status speculate_chunk(round_ctx *ctx, chunk_job *job, saved_records *sv,
                                   silt_error *err);

static silt_status infer_chunk(round_ctx *ctx, chunk_job *job, silt_error *err)
{
    csv_scan *s = ctx->scan;
    csv_tokenizer t;
    saved_records own;
    saved_slot *slot = job->speculate ? slot_take(s) : NULL;
    saved_records *svp = slot != NULL ? &slot->sv : &own;
    silt_status rc;
    int got = 1;
    csv_date_memo *memos = mem_calloc(ctx->n_cols ? ctx->n_cols : 1, sizeof(csv_date_memo));
    /* Fields are kept up to 16 bytes per byte of text (a record of short fields takes
     * about 10): a chunk of nothing but separators stops speculating, not the scan. */
    size_t limit = 16 * (job->end - job->start) + 4096;
    memset(&own, 0, sizeof(own));
    rc = memos == NULL ? err_nomem(err)
                       : saved_records_prepare(svp, limit, ctx->n_cols, job->speculate, err);
    if (rc != SILT_OK) {
        mem_free(memos);
        saved_records_clear(&own);
        slot_give_back(slot);
        return rc;
    }
    rc = chunk_tokenizer_start(&t, &s->opts, job, err);
    while (rc == SILT_OK) {
        rc = csv_tokenizer_next(&t, &got, err);
        if (rc != SILT_OK || !got)
            break;
        if (s->opts.sampling_ratio < 1.0 &&
            !text_sample_keep(util_hash_bytes(job->chunk.obj->key, strlen(job->chunk.obj->key), 7),
                              t.rec_start, s->opts.sampling_ratio))
            continue;
        size_t n = t.n_fields < ctx->n_cols ? t.n_fields : ctx->n_cols;
        size_t rec = svp->recs.len / sizeof(saved_record); /* this record's index once saved */
        for (size_t idx = 0; idx < n; idx++) {
            const csv_field *f = &t.fields[idx];
            col_capture *cap = svp->n_caps > 0 ? &svp->caps[idx] : NULL;
            if (job->types[idx].kind == CSV_K_STRING)
                continue; /* the top of the lattice: nothing can change it */
            if (f->quoted && f->len == 0)
                infer_and_capture(&job->types[idx], &memos[idx], cap, rec, &s->opts,
                                  s->opts.empty_value, strlen(s->opts.empty_value));
            else
                infer_and_capture(&job->types[idx], &memos[idx], cap, rec, &s->opts, f->ptr,
                                  f->len);
        }
        if (job->speculate && save_record(svp, &t, &job->err) != SILT_OK) {
            /* Too many fields to keep (or no memory for them): infer only. */
            job->speculate = 0;
            err_clear(&job->err);
            saved_records_clear(svp);
        }
    }
    csv_tokenizer_clear(&t);
    mem_free(memos);
    if (rc == SILT_OK && job->speculate)
        rc = speculate_chunk(ctx, job, svp, err);
    saved_records_clear(&own);
    slot_give_back(slot); /* its buffers stay, for the next chunk */
    return rc;
}

/* ---- conversion into vectors ---- */

typedef struct col_state {
    col_vec *vec;
    buf text;           /* STRING data of the batch being built */
    csv_date_memo memo; /* TIMESTAMP: the last date part parsed */
} col_state;


/*
 * Writes one value; returns 0 when the text does not convert (malformed).
 * ascii: the tokenizer saw only bytes below 0x80, so the text is valid UTF-8.
 */
static int put_value(const csv_options *o, col_state *cs, int64_t row, const char *p, size_t len,
                     int is_null, int ascii, silt_error *err, silt_status *rc)
{
    col_vec *v = cs->vec;
    int ok = 1;
    if (v->type->id == COL_STRING) {
        silt_status arc = SILT_OK;
        if (is_null) {
            /* no bytes */
        } else if (ascii && buf_has_room(&cs->text, len)) {
            memcpy(cs->text.data + cs->text.len, p, len);
            cs->text.len += len;
        } else {
            arc = ascii || text_utf8_valid(p, len) ? buf_append(&cs->text, p, len, err)
                                                   : text_utf8_repair(p, len, &cs->text, err);
        }
        if (arc != SILT_OK) {
            *rc = arc;
            return 1;
        }
        if (cs->text.len > INT32_MAX) {
            *rc = err_set(err, SILT_NOMEM, "string data of one CSV batch exceeds 2 GiB");
            return 1;
        }
        v->offsets[row + 1] = (int32_t)cs->text.len;
    } else if (!is_null) {
        switch (v->type->id) {
        case COL_BOOLEAN: {
            int b = 0;
            ok = csv_parse_bool(p, len, &b);
            ((uint8_t *)v->values)[row] = (uint8_t)b;
            break;
        }
        case COL_BYTE:
        case COL_SHORT:
        case COL_INT: {
            int32_t x = 0;
            ok = csv_parse_int32(p, len, &x);
            if (v->type->id == COL_INT)
                ((int32_t *)v->values)[row] = x;
            else if (v->type->id == COL_SHORT)
                ok = ok && x >= INT16_MIN && x <= INT16_MAX, ((int16_t *)v->values)[row] = (int16_t)x;
            else
                ok = ok && x >= INT8_MIN && x <= INT8_MAX, ((int8_t *)v->values)[row] = (int8_t)x;
            break;
        }
        case COL_LONG:
            ok = csv_parse_int64(p, len, &((int64_t *)v->values)[row]);
            break;
        case COL_FLOAT: {
            double d = 0;
            ok = csv_parse_double(o, p, len, &d);
            ((float *)v->values)[row] = (float)d;
            break;
        }
        case COL_DOUBLE:
            ok = csv_parse_double(o, p, len, &((double *)v->values)[row]);
            break;
        case COL_DECIMAL: {
            col_int128 x = 0;
            ok = csv_parse_decimal(p, len, v->type->precision, v->type->scale, &x);
            memcpy((char *)v->values + (size_t)row * 16, &x, 16);
            break;
        }
        case COL_DATE:
            ok = csv_parse_date(o, p, len, &((int32_t *)v->values)[row]);
            break;
        case COL_TIMESTAMP:
        case COL_TIMESTAMP_NTZ:
            ok = csv_parse_timestamp_memo(o, &cs->memo, p, len, &((int64_t *)v->values)[row]);
            break;
        default:
            ok = 0;
            break;
        }
    }
    if (is_null || !ok)
        col_bit_clear(v->validity, row);
    else
        col_bit_set(v->validity, row);
    return ok;
}

static silt_status new_batch(csv_scan *s, chunk_job *job, col_state *cols, silt_error *err)
{
    text_batch *ob;
    SILT_RETURN_IF_ERROR(text_batch_list_add(&job->batches, "csv batch", &ob, err));
    ob->key_idx = job->chunk.obj->key_idx;
    ob->batch.schema = s->schema;
    ob->batch.n_cols = s->schema->n_fields;
    ob->batch.cols = arena_calloc(ob->a, ob->batch.n_cols ? ob->batch.n_cols : 1, sizeof(col_vec *));
    if (ob->batch.cols == NULL)
        return err_nomem(err);
    for (size_t idx = 0; idx < ob->batch.n_cols; idx++) {
        SILT_RETURN_IF_ERROR(col_vec_new(&ob->batch.cols[idx], ob->a, s->schema->fields[idx].type,
                                         s->opts.batch_rows, 1, err));
        cols[idx].vec = ob->batch.cols[idx];
        buf_truncate(&cols[idx].text, 0);
    }
    return SILT_OK;
}

static silt_status finish_batch(chunk_job *job, col_state *cols, int64_t n_rows, silt_error *err)
{
    text_batch *ob = &job->batches.items[job->batches.n - 1];
    ob->batch.n_rows = n_rows;
    for (size_t idx = 0; idx < ob->batch.n_cols; idx++) {
        col_vec *v = cols[idx].vec;
        v->length = n_rows;
        v->null_count = col_validity_count_nulls(v->validity, n_rows);
        if (v->null_count == 0)
            v->validity = NULL;
        if (v->type->id == COL_STRING) {
            SILT_RETURN_IF_ERROR(col_vec_alloc_data(v, ob->a, (int64_t)cols[idx].text.len, err));
            if (cols[idx].text.len)
                memcpy(v->data, cols[idx].text.data, cols[idx].text.len);
        }
    }
    return SILT_OK;
}

/* Reports a malformed record for FAILFAST, with the error class Spark 4 raises for it. */
static silt_status malformed_error(round_ctx *ctx, const chunk_job *job, const csv_tokenizer *t,
                                   size_t bad_col, const char *why, silt_error *err)
{
    csv_scan *s = ctx->scan;
    int64_t line = text_object_line(job->chunk.obj, t->rec_start);
    if (bad_col < s->n_token_cols) {
        const csv_field *f = &t->fields[bad_col];
        const col_field *cf = &s->schema->fields[s->token_col[bad_col]];
        err_set(err, SILT_PARSE,
                "[FAILED_READ_FILE.NO_HINT] malformed CSV record at line %lld of \"%s\": field "
                "%zu (\"%s\") value \"%.*s\" is not a valid %s",
                (long long)line, job->chunk.obj->key, bad_col + 1, cf->name,
                (int)(f->len > 64 ? 64 : f->len), f->ptr, col_type_id_name(cf->type->id));
    } else {
        err_set(err, SILT_PARSE, "[FAILED_READ_FILE.NO_HINT] malformed CSV record at line %lld "
                "of \"%s\": %s", (long long)line, job->chunk.obj->key, why);
    }
    err_hint(err, "set mode to PERMISSIVE or DROPMALFORMED to read past malformed records");
    return SILT_PARSE;
}

/* The next record of a chunk: from the tokenizer, or from the records saved (sv). */
static silt_status next_record(csv_tokenizer *t, const saved_records *sv, size_t *next, int *got,
                               silt_error *err)
{
    const saved_record *rec;
    csv_field *fields;
    if (sv == NULL)
        return csv_tokenizer_next(t, got, err);
    *got = *next < sv->recs.len / sizeof(saved_record);
    if (!*got)
        return SILT_OK;
    rec = (const saved_record *)sv->recs.data + (*next)++;
    fields = (csv_field *)sv->fields.data + rec->first_field;
    for (size_t idx = 0; idx < rec->n_fields; idx++)
        if (fields[idx].in_scratch)
            fields[idx].ptr = sv->bytes.data + fields[idx].scratch_off;
    t->fields = fields;
    t->n_fields = rec->n_fields;
    t->rec_start = rec->rec_start;
    t->rec_len = rec->rec_len;
    return SILT_OK;
}

/* ---- column at a time ----
 *
 * In PERMISSIVE mode without a corrupt-record column, a malformed record
 * changes nothing but its own bad fields (null, and missing fields null):
 * rows are independent of each other and of the other columns. The
 * records inference saved are then converted a batch at a time, one
 * column after the other, with a loop per type instead of a switch per
 * field (the row loop below stays for the other modes and for records
 * tokenized by the read pass). Same values, nulls and batch boundaries.
 */

/* The text of field idx of a record of n fields, as the row loop reads it; 1 = null. */
static inline int field_text(const csv_options *o, const csv_field *fields, size_t n, size_t idx,
                             const char **p, size_t *len, int *ascii)
{
    const csv_field *f;
    *p = "";
    *len = 0;
    *ascii = 0;
    if (idx >= n)
        return 1;
    f = &fields[idx];
    *p = f->ptr;
    *len = f->len;
    *ascii = f->ascii;
    if (f->quoted && f->len == 0) {
        *p = o->empty_value;
        *len = strlen(*p);
        *ascii = 0;
    }
    return (*len == 0 && !f->quoted) || text_is(*p, *len, o->null_value);
}

/* The records of one batch: each one's fields and their number. */
typedef struct batch_recs {
    const csv_field **fields;
    size_t *n_fields;
    int64_t n;
    size_t first_rec;         /* index of row 0 among the records saved */
    const col_capture *cap;   /* the column's values kept by inference, when usable */
} batch_recs;

static silt_status convert_strings(const csv_options *o, col_state *cs, size_t idx,
                                   const batch_recs *b, silt_error *err)
{
    col_vec *v = cs->vec;
    for (int64_t row = 0; row < b->n; row++) {
        const char *p;
        size_t len;
        int ascii;
        int is_null = field_text(o, b->fields[row], b->n_fields[row], idx, &p, &len, &ascii);
        if (is_null) {
            col_bit_clear(v->validity, row);
        } else {
            if (ascii && buf_has_room(&cs->text, len)) {
                memcpy(cs->text.data + cs->text.len, p, len);
                cs->text.len += len;
            } else {
                SILT_RETURN_IF_ERROR(ascii || text_utf8_valid(p, len)
                                         ? buf_append(&cs->text, p, len, err)
                                         : text_utf8_repair(p, len, &cs->text, err));
            }
            col_bit_set(v->validity, row);
        }
        if (cs->text.len > INT32_MAX)
            return err_set(err, SILT_NOMEM, "string data of one CSV batch exceeds 2 GiB");
        v->offsets[row + 1] = (int32_t)cs->text.len;
    }
    return SILT_OK;
}

/* The value inference kept for a batch row, or NULL. */
static const int64_t *captured(const batch_recs *b, int64_t row)
{
    const col_capture *c = b->cap;
    size_t rec = b->first_rec + (size_t)row;
    if (c == NULL || rec >= c->ok.len || !c->ok.data[rec])
        return NULL;
    return (const int64_t *)c->values.data + rec;
}

static void convert_ints(const csv_options *o, col_state *cs, size_t idx, const batch_recs *b)
{
    col_vec *v = cs->vec;
    int32_t *values = v->values;
    for (int64_t row = 0; row < b->n; row++) {
        const char *p;
        size_t len;
        int ascii;
        const int64_t *kept = captured(b, row);
        if (kept != NULL) {
            values[row] = (int32_t)*kept;
            col_bit_set(v->validity, row);
        } else if (field_text(o, b->fields[row], b->n_fields[row], idx, &p, &len, &ascii)) {
            col_bit_clear(v->validity, row);
        } else if (csv_parse_int32(p, len, &values[row])) {
            col_bit_set(v->validity, row);
        } else {
            values[row] = 0;
            col_bit_clear(v->validity, row);
        }
    }
}

static void convert_doubles(const csv_options *o, col_state *cs, size_t idx, const batch_recs *b)
{
    col_vec *v = cs->vec;
    double *values = v->values;
    for (int64_t row = 0; row < b->n; row++) {
        const char *p;
        size_t len;
        int ascii;
        const int64_t *kept = captured(b, row);
        if (kept != NULL) {
            memcpy(&values[row], kept, sizeof(double));
            col_bit_set(v->validity, row);
        } else if (field_text(o, b->fields[row], b->n_fields[row], idx, &p, &len, &ascii)) {
            col_bit_clear(v->validity, row);
        } else if (csv_parse_double(o, p, len, &values[row])) {
            col_bit_set(v->validity, row);
        } else {
            values[row] = 0;
            col_bit_clear(v->validity, row);
        }
    }
}

static void convert_timestamps(const csv_options *o, col_state *cs, size_t idx,
                               const batch_recs *b)
{
    col_vec *v = cs->vec;
    int64_t *values = v->values;
    for (int64_t row = 0; row < b->n; row++) {
        const char *p;
        size_t len;
        int ascii;
        const int64_t *kept = captured(b, row);
        if (kept != NULL) {
            values[row] = *kept;
            col_bit_set(v->validity, row);
        } else if (field_text(o, b->fields[row], b->n_fields[row], idx, &p, &len, &ascii))
            col_bit_clear(v->validity, row);
        else if (csv_parse_timestamp_memo(o, &cs->memo, p, len, &values[row]))
            col_bit_set(v->validity, row);
        else
            col_bit_clear(v->validity, row);
    }
}

/* A column the caller does not read: every row null, nothing parsed. */
static void convert_unread(col_state *cs, int64_t n_rows)
{
    col_vec *v = cs->vec;
    for (int64_t row = 0; row < n_rows; row++) {
        col_bit_clear(v->validity, row);
        if (v->type->id == COL_STRING)
            v->offsets[row + 1] = (int32_t)cs->text.len;
    }
}

/* One column of a batch: a loop of its type, or put_value's switch for the rarer types. */
static silt_status convert_column(const csv_options *o, col_state *cs, size_t idx,
                                  const batch_recs *b, silt_error *err)
{
    silt_status rc = SILT_OK;
    switch (cs->vec->type->id) {
    case COL_STRING: return convert_strings(o, cs, idx, b, err);
    case COL_INT: convert_ints(o, cs, idx, b); return SILT_OK;
    case COL_DOUBLE: convert_doubles(o, cs, idx, b); return SILT_OK;
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: convert_timestamps(o, cs, idx, b); return SILT_OK;
    default: break;
    }
    for (int64_t row = 0; row < b->n && rc == SILT_OK; row++) {
        const char *p;
        size_t len;
        int ascii;
        int is_null = field_text(o, b->fields[row], b->n_fields[row], idx, &p, &len, &ascii);
        put_value(o, cs, row, p, len, is_null, ascii, err, &rc);
    }
    return rc;
}

/* A column's kept values when they were parsed as the type being converted to. */
static const col_capture *usable_capture(const col_capture *c, col_type_id id)
{
    if (c->dead)
        return NULL;
    if ((c->kind == CSV_K_INT && id == COL_INT) || (c->kind == CSV_K_DOUBLE && id == COL_DOUBLE) ||
        (c->kind == CSV_K_TIMESTAMP && id == COL_TIMESTAMP))
        return c;
    return NULL;
}

/* Converts the records inference saved, a batch and a column at a time (see above). */
static silt_status parse_saved_columns(round_ctx *ctx, chunk_job *job, const saved_records *sv,
                                       silt_error *err)
{
    csv_scan *s = ctx->scan;
    const csv_options *o = &s->opts;
    size_t n_cols = s->schema->n_fields;
    size_t n_recs = sv->recs.len / sizeof(saved_record), next = 0;
    size_t cap = (size_t)o->batch_rows < n_recs ? (size_t)o->batch_rows : n_recs;
    col_state *cols = mem_calloc(n_cols ? n_cols : 1, sizeof(col_state));
    batch_recs b = {mem_calloc(cap ? cap : 1, sizeof(csv_field *)),
                    mem_calloc(cap ? cap : 1, sizeof(size_t)), 0, 0, NULL};
    silt_status rc = SILT_OK;
    if (cols == NULL || b.fields == NULL || b.n_fields == NULL)
        rc = err_nomem(err);
    for (size_t idx = 0; cols != NULL && idx < n_cols; idx++)
        buf_init(&cols[idx].text, 0);
    while (rc == SILT_OK && next < n_recs) {
        b.n = (int64_t)(n_recs - next < cap ? n_recs - next : cap);
        for (int64_t row = 0; row < b.n; row++) {
            const saved_record *rec = (const saved_record *)sv->recs.data + next + (size_t)row;
            csv_field *fields = (csv_field *)sv->fields.data + rec->first_field;
            for (size_t idx = 0; idx < rec->n_fields; idx++)
                if (fields[idx].in_scratch)
                    fields[idx].ptr = sv->bytes.data + fields[idx].scratch_off;
            b.fields[row] = fields;
            b.n_fields[row] = rec->n_fields;
        }
        b.first_rec = next;
        next += (size_t)b.n;
        rc = new_batch(s, job, cols, err);
        for (size_t idx = 0; idx < s->n_token_cols && rc == SILT_OK; idx++) {
            col_state *cs = &cols[s->token_col[idx]];
            if (s->unread != NULL && s->unread[s->token_col[idx]]) {
                convert_unread(cs, b.n);
                continue;
            }
            b.cap = idx < sv->n_caps ? usable_capture(&sv->caps[idx], cs->vec->type->id) : NULL;
            rc = convert_column(o, cs, idx, &b, err);
        }
        if (rc == SILT_OK)
            rc = finish_batch(job, cols, b.n, err);
    }
    for (size_t idx = 0; cols != NULL && idx < n_cols; idx++)
        buf_clear(&cols[idx].text);
    mem_free(cols);
    mem_free(b.fields);
    mem_free(b.n_fields);
    return rc;
}

/* Converts a chunk's records (tokenized here, or saved by inference) a row at a time. */
static silt_status parse_rows(round_ctx *ctx, chunk_job *job, const saved_records *sv,
                              silt_error *err)
{
    csv_scan *s = ctx->scan;
    const csv_options *o = &s->opts;
    size_t n_cols = s->schema->n_fields, next = 0;
    col_state *cols = mem_calloc(n_cols ? n_cols : 1, sizeof(col_state));
    csv_tokenizer t;
    silt_status rc = SILT_OK;
    int64_t row = 0;
    int got = 1;
    if (cols == NULL)
        return err_nomem(err);
    for (size_t idx = 0; idx < n_cols; idx++)
        buf_init(&cols[idx].text, 0);
    if (sv == NULL)
        rc = chunk_tokenizer_start(&t, o, job, err);
    else
        memset(&t, 0, sizeof(t));
    while (rc == SILT_OK) {
        rc = next_record(&t, sv, &next, &got, err);
        if (rc != SILT_OK || !got)
            break;
        if (row == 0 &&
            (job->batches.n == 0 || job->batches.items[job->batches.n - 1].batch.n_rows > 0)) {
            rc = new_batch(s, job, cols, err);
            if (rc != SILT_OK)
                break;
        }
        size_t bad_col = SIZE_MAX;
        /* Pruned (Spark's columnPruning): only a bad value in a column read makes a row
         * malformed, not its number of fields. */
        int malformed = s->unread == NULL && t.n_fields != s->n_token_cols;
        for (size_t idx = 0; idx < s->n_token_cols && rc == SILT_OK; idx++) {
            col_state *cs = &cols[s->token_col[idx]];
            const char *p = "";
            size_t len = 0;
            int is_null = 1, ascii = 0;
            if (idx < t.n_fields && (s->unread == NULL || !s->unread[s->token_col[idx]])) {
                const csv_field *f = &t.fields[idx];
                p = f->ptr;
                len = f->len;
                ascii = f->ascii;
                if (f->quoted && len == 0) {
                    p = o->empty_value;
                    len = strlen(p);
                    ascii = 0;
                }
                is_null = (len == 0 && !f->quoted) || text_is(p, len, o->null_value);
            }
            if (!put_value(o, cs, row, p, len, is_null, ascii, err, &rc) && bad_col == SIZE_MAX)
                bad_col = idx;
        }
        if (rc != SILT_OK)
            break;
        malformed = malformed || bad_col != SIZE_MAX;
        if (malformed && o->mode == TEXT_MODE_FAILFAST) {
            rc = malformed_error(ctx, job, &t, bad_col,
                                 t.n_fields < s->n_token_cols ? "too few fields" : "too many fields",
                                 err);
            break;
        }
        if (malformed && o->mode == TEXT_MODE_DROPMALFORMED) {
            for (size_t idx = 0; idx < n_cols; idx++)
                if (cols[idx].vec->type->id == COL_STRING)
                    buf_truncate(&cols[idx].text, (size_t)cols[idx].vec->offsets[row]);
            continue;
        }
        if (s->corrupt_idx >= 0) {
            const char *raw = job->chunk.obj->data + t.rec_start;
            put_value(o, &cols[s->corrupt_idx], row, raw, t.rec_len, !malformed, 0, err, &rc);
        }
        if (rc != SILT_OK)
            break;
        job->batches.items[job->batches.n - 1].batch.n_rows = ++row;
        if (row == o->batch_rows) {
            rc = finish_batch(job, cols, row, err);
            row = 0;
        }
    }
    if (rc == SILT_OK && job->batches.n > 0 && row > 0)
        rc = finish_batch(job, cols, row, err);
    if (rc == SILT_OK && job->batches.n > 0 &&
        job->batches.items[job->batches.n - 1].batch.n_rows == 0) {
        text_batch_list_drop_last(&job->batches);
    }
    if (sv == NULL)
        csv_tokenizer_clear(&t);
    for (size_t idx = 0; idx < n_cols; idx++)
        buf_clear(&cols[idx].text);
    mem_free(cols);
    return rc;
}

/* Converts a chunk's records (tokenized here, or saved by inference) into batches. */
static silt_status parse_records(round_ctx *ctx, chunk_job *job, const saved_records *sv,
                                 silt_error *err)
{
    const csv_scan *s = ctx->scan;
    if (sv != NULL && s->opts.mode == TEXT_MODE_PERMISSIVE && s->corrupt_idx < 0)
        return parse_saved_columns(ctx, job, sv, err);
    return parse_rows(ctx, job, sv, err);
}

static silt_status run_chunk(void *payload, size_t task_idx, size_t worker_idx, silt_error *err)
{
    round_ctx *ctx = payload;
    chunk_job *job = &ctx->jobs[task_idx];
    (void)worker_idx;
    (void)err;
    err_clear(&job->err);
    if (job->preset)
        job->status = SILT_OK;
    else if (ctx->infer)
        job->status = infer_chunk(ctx, job, &job->err);
    else
        job->status = parse_records(ctx, job, NULL, &job->err);
    return SILT_OK; /* errors are collected per chunk, reported in file order */
}

static void free_jobs(chunk_job *jobs, size_t n)
{
    for (size_t idx = 0; jobs != NULL && idx < n; idx++) {
        text_batch_list_clear(&jobs[idx].batches);
        mem_free(jobs[idx].types);
        arena_free(jobs[idx].spec_arena);
    }
    mem_free(jobs);
}

/* Chunks per round of the read pass (inference takes twice as many). */
static size_t round_size(const csv_scan *s)
{
    return (s->opts.pool ? tpool_width(s->opts.pool) : 1) * 2;
}

static void round_free(round_ctx *ctx)
{
    if (ctx == NULL)
        return;
    free_jobs(ctx->jobs, ctx->n);
    mem_free(ctx);
}

/* Sets up a round of chunks, a job per chunk. */
static silt_status round_begin(csv_scan *s, const text_chunk *chunks, size_t n, int infer,
                               size_t n_cols, round_ctx **out, silt_error *err)
{
    round_ctx *ctx = mem_calloc(1, sizeof(*ctx));
    silt_status rc = SILT_OK;
    if (ctx == NULL)
        return err_nomem(err);
    *ctx = (round_ctx){s, NULL, infer, n_cols, n};
    ctx->jobs = mem_calloc(n ? n : 1, sizeof(chunk_job));
    if (ctx->jobs == NULL)
        rc = err_nomem(err);
    for (size_t idx = 0; idx < n && rc == SILT_OK; idx++) {
        chunk_job *job = &ctx->jobs[idx];
        job->chunk = chunks[idx];
        job->start = chunks[idx].start;
        job->end = chunks[idx].end;
        job->skip_first = s->opts.header && chunks[idx].idx == 0 && chunks[idx].obj->first_window;
        if (infer) {
            job->types = mem_calloc(n_cols ? n_cols : 1, sizeof(csv_infer_type));
            if (job->types == NULL)
                rc = err_nomem(err);
            for (size_t c = 0; rc == SILT_OK && s->infer_unread != NULL && c < n_cols; c++)
                if (s->infer_unread[c])
                    job->types[c].kind = CSV_K_STRING;
            job->speculate = s->speculate && s->opts.sampling_ratio >= 1.0 &&
                             text_spec_has_room(s->spec, s->opts.speculate_bytes);
        } else {
            job->preset = text_spec_take(s->spec, &job->chunk, s->schema, &job->batches);
        }
    }
    if (rc != SILT_OK) {
        round_free(ctx);
        return rc;
    }
    *out = ctx;
    return SILT_OK;
}

/* The error of a finished round's first failing chunk, in input order. */
static silt_status round_check(const round_ctx *ctx, silt_error *err)
{
    for (size_t idx = 0; idx < ctx->n; idx++) {
        if (ctx->jobs[idx].status != SILT_OK) {
            err_copy(err, &ctx->jobs[idx].err);
            err_context(err, "while reading CSV file \"%s\"", ctx->jobs[idx].chunk.obj->key);
            return ctx->jobs[idx].status;
        }
    }
    return SILT_OK;
}

/*
 * Runs the chunks in parallel while the reader reads ahead the windows of
 * a next round (inference's size, the bigger one); the round (with its
 * batches) goes to the caller.
 */
static silt_status run_round(csv_scan *s, const text_chunk *chunks, size_t n, int infer,
                             size_t n_cols, round_ctx **out, silt_error *err)
{
    round_ctx *ctx = NULL;
    silt_status rc = round_begin(s, chunks, n, infer, n_cols, &ctx, err);
    if (rc == SILT_OK)
        rc = text_reader_run(s->reader, s->opts.pool, n, run_chunk, ctx, round_size(s) * 2, err);
    if (rc == SILT_OK)
        rc = round_check(ctx, err);
    if (rc != SILT_OK) {
        round_free(ctx);
        return rc;
    }
    *out = ctx;
    return SILT_OK;
}

/* Inference is one pass of rounds (text_reader_pass), merged in input order into types. */
typedef struct infer_pass {
    csv_scan *scan;
    csv_infer_type *types;
    size_t n_cols;
} infer_pass;

static silt_status infer_begin(void *payload, const text_chunk *chunks, size_t n,
                               void **round_out, silt_error *err)
{
    infer_pass *p = payload;
    round_ctx *ctx = NULL;
    SILT_RETURN_IF_ERROR(round_begin(p->scan, chunks, n, 1, p->n_cols, &ctx, err));
    *round_out = ctx;
    return SILT_OK;
}

static silt_status keep_speculated(csv_scan *s, chunk_job *jobs, size_t n, silt_error *err);

static silt_status infer_end(void *payload, void *round, int discard, silt_error *err)
{
    infer_pass *p = payload;
    round_ctx *ctx = round;
    silt_status rc = SILT_OK;
    if (!discard) {
        rc = round_check(ctx, err);
        for (size_t c = 0; rc == SILT_OK && c < ctx->n; c++)
            for (size_t idx = 0; idx < p->n_cols; idx++)
                p->types[idx] = csv_infer_merge(p->types[idx], ctx->jobs[c].types[idx]);
        if (rc == SILT_OK && p->scan->speculate)
            rc = keep_speculated(p->scan, ctx->jobs, ctx->n, err);
    }
    round_free(ctx);
    return rc;
}

static const text_round_ops infer_ops = {infer_begin, run_chunk, infer_end};

/* ---- one pass: inference converts what it tokenized ----
 *
 * Spark infers over all records before it reads any, and so does silt;
 * tokenizing the text a second time for the read was a third of a CSV
 * ingest. So while inferring, a chunk keeps the fields of its records and
 * converts them with the schema inferred from that chunk alone (the same
 * conversion as the read pass: same functions, records, order and batch
 * boundaries). When the final schema (all chunks merged) is equal, those
 * rows are what the read pass would give, and it hands them out instead of
 * parsing the chunk again; when not (a column wider elsewhere: an int here
 * and a double in a later chunk, or all null here), the chunk's rows are
 * dropped and the read pass parses that chunk as before. Rows are held for
 * about opts.speculate_bytes of text at most (checked before each round),
 * and only with samplingRatio 1. A conversion failure (FAILFAST) only
 * drops the chunk's rows: the read pass reports it where it always did.
 * JSON does the same (json_scan.c).
 */

/* The schema of a chunk's own inference, in the job's arena. */
static silt_status chunk_schema(round_ctx *ctx, chunk_job *job, silt_error *err)
{
    csv_scan *s = ctx->scan;
    col_field *fields = arena_calloc(job->spec_arena, ctx->n_cols ? ctx->n_cols : 1,
                                     sizeof(col_field));
    if (fields == NULL)
        return err_nomem(err);
    for (size_t idx = 0; idx < ctx->n_cols; idx++) {
        fields[idx].name = s->infer_names[idx];
        fields[idx].type = csv_infer_to_type(job->types[idx], job->spec_arena);
        fields[idx].nullable = 1;
        fields[idx].field_id = -1;
        if (fields[idx].type == NULL)
            return err_nomem(err);
    }
    job->spec_schema = col_type_struct(job->spec_arena, ctx->n_cols, fields);
    return job->spec_schema ? SILT_OK : err_nomem(err);
}

static silt_status bind_schema(csv_scan *s, silt_error *err);

static silt_status speculate_chunk(round_ctx *ctx, chunk_job *job, saved_records *sv,
                                   silt_error *err)
{
    csv_scan local = *ctx->scan; /* the fields conversion reads, with the chunk's schema */
    round_ctx local_ctx = *ctx;
    silt_error quiet = SILT_ERROR_INIT;
    silt_status rc;
    job->spec_arena = arena_new(NULL, "csv chunk schema");
    if (job->spec_arena == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(chunk_schema(ctx, job, err));
    local.schema = job->spec_schema;
    local.arena = job->spec_arena;
    local_ctx.scan = &local;
    rc = bind_schema(&local, &quiet);
    if (rc == SILT_OK)
        rc = parse_records(&local_ctx, job, sv, &quiet);
    return text_spec_converted(rc, &job->speculated, &job->batches, err);
}

/* Keeps the rows a round of inference converted, in reader order. */
static silt_status keep_speculated(csv_scan *s, chunk_job *jobs, size_t n, silt_error *err)
{
    for (size_t idx = 0; idx < n; idx++)
        SILT_RETURN_IF_ERROR(text_spec_keep(s->spec, &jobs[idx].chunk, jobs[idx].speculated,
                                            &jobs[idx].spec_arena, jobs[idx].spec_schema,
                                            &jobs[idx].batches, err));
    return SILT_OK;
}

/* Reads the first record of the first object that has one. */
static silt_status first_record(csv_scan *s, csv_tokenizer *t, const char **key_out, int *found,
                                silt_error *err)
{
    text_chunk chunk;
    size_t n = 1;
    *found = 0;
    while (!*found && n == 1) {
        SILT_RETURN_IF_ERROR(text_reader_take(s->reader, 1, &chunk, &n, err));
        if (n == 0 || chunk.idx != 0 || !chunk.obj->first_window)
            continue;
        /* A chunk ends at a record boundary, so the record is in its chunk. */
        csv_tokenizer_clear(t);
        csv_tokenizer_init(t, &s->opts, chunk.obj->data, chunk.obj->len);
        t->eol = chunk.obj->eol;
        SILT_RETURN_IF_ERROR(csv_tokenizer_next(t, found, err));
        *key_out = chunk.obj->key;
    }
    /* The fields point into the object: it stays loaded until the rewind. */
    return SILT_OK;
}

/*
 * Whether columns can be left unread here (see csv_options.read_columns):
 * not when the corrupt-record column is filled, which needs the whole row.
 */
static int may_skip_columns(const csv_scan *s)
{
    return s->opts.read_columns != NULL && s->corrupt_idx < 0;
}

/* 1 when the column named name is not among the columns the caller reads. */
static int column_unread(const csv_scan *s, const char *name)
{
    for (size_t idx = 0; idx < s->opts.n_read_columns; idx++)
        if (util_str_casecmp(s->opts.read_columns[idx], name) == 0)
            return 0;
    return 1;
}

static silt_status infer_schema(csv_scan *s, silt_error *err)
{
    csv_tokenizer t;
    char **names = NULL;
    csv_infer_type *types = NULL;
    silt_status rc;
    int found = 0;
    size_t n_cols = 0;
    const char *first_key = "";
    csv_tokenizer_init(&t, &s->opts, "", 0);
    rc = first_record(s, &t, &first_key, &found, err);
    if (rc == SILT_OK && found) {
        n_cols = t.n_fields;
        if ((int64_t)n_cols > s->opts.max_columns) {
            rc = err_set(err, SILT_PARSE,
                         "CSV file \"%s\" has %zu columns, more than maxColumns (%lld)",
                         first_key, n_cols, (long long)s->opts.max_columns);
            err_hint(err, "raise the maxColumns option if the file really is this wide");
        }
    }
    if (rc == SILT_OK && found)
        rc = safe_header(s, &t, s->opts.header, &names, err);
    s->infer_names = names;
    csv_tokenizer_clear(&t);
    if (rc == SILT_OK) {
        types = mem_calloc(n_cols ? n_cols : 1, sizeof(csv_infer_type));
        if (types == NULL)
            rc = err_nomem(err);
    }
    /* Columns nobody reads start at the top of the lattice: inference skips them. */
    if (rc == SILT_OK && found && may_skip_columns(s)) {
        s->infer_unread = arena_calloc(s->arena, n_cols ? n_cols : 1, 1);
        if (s->infer_unread == NULL)
            rc = err_nomem(err);
        for (size_t idx = 0; rc == SILT_OK && idx < n_cols; idx++)
            if ((s->infer_unread[idx] = (uint8_t)column_unread(s, names[idx])) != 0)
                types[idx].kind = CSV_K_STRING;
    }
    text_reader_rewind(s->reader);
    infer_pass pass = {s, types, n_cols};
    if (rc == SILT_OK && found && s->opts.infer_schema)
        rc = text_reader_pass(s->reader, s->opts.pool, round_size(s) * 2, &infer_ops, &pass, err);
    text_reader_rewind(s->reader);
    if (rc == SILT_OK) {
        col_field *fields = arena_calloc(s->arena, n_cols ? n_cols : 1, sizeof(col_field));
        if (fields == NULL)
            rc = err_nomem(err);
        for (size_t idx = 0; rc == SILT_OK && idx < n_cols; idx++) {
            fields[idx].name = names[idx];
            fields[idx].type = csv_infer_to_type(types[idx], s->arena);
            fields[idx].nullable = 1;
            fields[idx].field_id = -1;
            if (fields[idx].type == NULL)
                rc = err_nomem(err);
        }
        if (rc == SILT_OK) {
            s->schema = col_type_struct(s->arena, n_cols, fields);
            if (s->schema == NULL)
                rc = err_nomem(err);
        }
    }
    /* no records, or no inference over them: the read pass reads the text */
    if (!found || !s->opts.infer_schema)
        text_spec_mark_partial(s->spec);
    if (rc == SILT_OK && s->speculate)
        rc = text_spec_settle(s->spec, s->schema, &s->queue, s->reader, err);
    mem_free(types);
    return rc;
}

static silt_status bind_schema(csv_scan *s, silt_error *err)
{
    size_t n = s->schema->n_fields;
    s->token_col = arena_calloc(s->arena, n ? n : 1, sizeof(size_t));
    if (s->token_col == NULL)
        return err_nomem(err);
    s->corrupt_idx = -1;
    s->n_token_cols = 0;
    for (size_t idx = 0; idx < n; idx++) {
        const col_field *f = &s->schema->fields[idx];
        if (strcmp(f->name, s->opts.corrupt_column) == 0 && f->type->id == COL_STRING &&
            s->opts.schema != NULL) {
            s->corrupt_idx = (int64_t)idx;
            continue;
        }
        if (col_type_is_nested(f->type->id) || f->type->id == COL_BINARY ||
            f->type->id == COL_NULL)
            return err_set(err, SILT_UNSUPPORTED, "CSV cannot read column \"%s\" of type %s",
                           f->name, col_type_id_name(f->type->id));
        s->token_col[s->n_token_cols++] = idx;
    }
    s->unread = NULL;
    if (may_skip_columns(s)) {
        size_t n_unread = 0;
        s->unread = arena_calloc(s->arena, n ? n : 1, 1);
        if (s->unread == NULL)
            return err_nomem(err);
        for (size_t idx = 0; idx < n; idx++)
            n_unread += s->unread[idx] = (uint8_t)column_unread(s, s->schema->fields[idx].name);
        if (n_unread == 0)
            s->unread = NULL; /* every column read: a row is checked whole */
    }
    if (n > 0 && s->opts.batch_rows * (int64_t)n > CSV_MAX_BATCH_CELLS)
        s->opts.batch_rows = CSV_MAX_BATCH_CELLS / (int64_t)n > 0 ? CSV_MAX_BATCH_CELLS / (int64_t)n : 1;
    return SILT_OK;
}

static silt_status copy_options(csv_scan *s, const csv_options *opts, silt_error *err)
{
    const char **strs[] = {&s->opts.null_value,   &s->opts.empty_value,  &s->opts.nan_value,
                           &s->opts.positive_inf, &s->opts.negative_inf, &s->opts.corrupt_column};
    s->opts = *opts;
    for (size_t idx = 0; idx < sizeof(strs) / sizeof(strs[0]); idx++) {
        if (*strs[idx] == NULL)
            *strs[idx] = "";
        *strs[idx] = arena_strdup(s->arena, *strs[idx]);
        if (*strs[idx] == NULL)
            return err_nomem(err);
    }
    if (s->opts.read_columns != NULL) {
        char **names = arena_calloc(s->arena, s->opts.n_read_columns + 1, sizeof(char *));
        if (names == NULL)
            return err_nomem(err);
        for (size_t idx = 0; idx < s->opts.n_read_columns; idx++)
            if ((names[idx] = arena_strdup(s->arena, s->opts.read_columns[idx])) == NULL)
                return err_nomem(err);
        s->opts.read_columns = (const char *const *)names;
    }
    if (s->opts.timestamp_format != NULL &&
        (s->opts.timestamp_format = arena_strdup(s->arena, s->opts.timestamp_format)) == NULL)
        return err_nomem(err);
    if (s->opts.date_format != NULL &&
        (s->opts.date_format = arena_strdup(s->arena, s->opts.date_format)) == NULL)
        return err_nomem(err);
    /* Patterns are compiled again into the scan's arena: the caller's
     * compiled forms may live in an arena that dies before the scan. */
    s->opts.timestamp_pattern = NULL;
    s->opts.date_pattern = NULL;
    if (s->opts.timestamp_format != NULL)
        SILT_RETURN_IF_ERROR(
            text_dt_compile(s->opts.timestamp_format, s->arena, &s->opts.timestamp_pattern, err));
    if (s->opts.date_format != NULL)
        SILT_RETURN_IF_ERROR(
            text_dt_compile(s->opts.date_format, s->arena, &s->opts.date_pattern, err));
    if (s->opts.batch_rows <= 0)
        s->opts.batch_rows = CSV_DEFAULT_BATCH_ROWS;
    if (s->opts.max_columns <= 0)
        s->opts.max_columns = CSV_DEFAULT_MAX_COLUMNS;
    if (s->opts.chunk_bytes == 0)
        s->opts.chunk_bytes = CSV_DEFAULT_CHUNK_BYTES;
    if (s->opts.sampling_ratio <= 0 || s->opts.sampling_ratio > 1)
        s->opts.sampling_ratio = 1.0;
    if (s->opts.sep == '\0' || s->opts.sep == '\n' || s->opts.sep == '\r')
        return err_set(err, SILT_INVALID, "CSV separator cannot be NUL or a line break");
    return SILT_OK;
}

silt_status csv_scan_open(csv_scan **out, io_store *store, const char *const *keys, size_t n,
                          const csv_options *opts, silt_error *err)
{
    csv_scan *s = mem_calloc(1, sizeof(*s));
    silt_status rc = SILT_OK;
    if (s == NULL)
        return err_nomem(err);
    s->corrupt_idx = -1;
    s->store = store;
    s->arena = arena_new(NULL, "csv scan");
    if (s->arena == NULL)
        rc = err_nomem(err);
    if (rc == SILT_OK)
        rc = copy_options(s, opts, err);
    if (rc == SILT_OK) {
        s->keys = arena_calloc(s->arena, n ? n : 1, sizeof(char *));
        s->n_keys = n;
        for (size_t idx = 0; rc == SILT_OK && idx < n; idx++)
            if (s->keys == NULL || (s->keys[idx] = arena_strdup(s->arena, keys[idx])) == NULL)
                rc = err_nomem(err);
        if (rc == SILT_OK)
            rc = text_reader_new(&s->reader, store, (const char *const *)s->keys, n, "CSV",
                                 split_object, s, s->opts.window_bytes, err);
        if (rc == SILT_OK && (s->spec = mem_calloc(1, sizeof(text_spec))) == NULL)
            rc = err_nomem(err);
    }
    if (rc == SILT_OK) {
        if (opts->schema != NULL) {
            if (opts->schema->id != COL_STRUCT)
                rc = err_set(err, SILT_INVALID, "a CSV schema must be a struct type");
            s->schema = opts->schema;
        } else {
            s->speculate = s->opts.speculate_bytes > 0;
            rc = slots_new(s, err);
            if (rc == SILT_OK)
                rc = infer_schema(s, err);
            slots_free(s);
        }
    }
    if (rc == SILT_OK)
        rc = bind_schema(s, err);
    if (rc != SILT_OK) {
        csv_scan_free(s);
        return rc;
    }
    *out = s;
    return SILT_OK;
}

const col_type *csv_scan_schema(const csv_scan *scan) { return scan->schema; }

/* Parses a round of chunks and queues their batches (text_round_fn). */
static silt_status parse_round(void *payload, const text_chunk *chunks, size_t n,
                               text_batch_queue *q, silt_error *err)
{
    csv_scan *s = payload;
    round_ctx *ctx = NULL;
    silt_status rc = run_round(s, chunks, n, 0, 0, &ctx, err);
    for (size_t idx = 0; idx < n && rc == SILT_OK; idx++)
        rc = text_batch_queue_append(q, &ctx->jobs[idx].batches, err);
    round_free(ctx);
    return rc;
}

size_t csv_scan_batch_key(const csv_scan *s) { return s->queue.last_key_idx; }

silt_status csv_scan_next(csv_scan *s, arena *a, col_batch *out, silt_error *err)
{
    return text_batch_queue_next(&s->queue, s->reader, round_size(s), parse_round, s, s->schema,
                                 a, out, err);
}

void csv_scan_free(csv_scan *s)
{
    if (s == NULL)
        return;
    text_batch_queue_clear(&s->queue);
    if (s->spec != NULL)
        text_spec_clear(s->spec);
    mem_free(s->spec);
    slots_free(s);
    text_reader_free(s->reader);
    arena_free(s->arena);
    mem_free(s);
}

/* ---- in-memory inference (tests, fuzzing) ---- */

silt_status csv_infer_text(const char *data, size_t len, const csv_options *opts, arena *a,
                           const col_type **schema_out, silt_error *err)
{
    csv_scan *s = mem_calloc(1, sizeof(*s));
    silt_status rc = SILT_OK;
    static const char *const no_key[] = {"(memory)"};
    if (s == NULL)
        return err_nomem(err);
    s->arena = a;
    rc = copy_options(s, opts, err);
    if (rc == SILT_OK) {
        rc = text_reader_new(&s->reader, NULL, no_key, 1, "CSV", split_object, s, 0, err);
        if (rc == SILT_OK && (s->spec = mem_calloc(1, sizeof(text_spec))) == NULL)
            rc = err_nomem(err);
        if (rc == SILT_OK)
            rc = text_reader_add_text(s->reader, no_key[0], data, len, err);
    }
    if (rc == SILT_OK)
        rc = slots_new(s, err);
    if (rc == SILT_OK)
        rc = infer_schema(s, err);
    slots_free(s);
    if (rc == SILT_OK)
        *schema_out = s->schema;
    if (s->spec != NULL)
        text_spec_clear(s->spec);
    mem_free(s->spec);
    text_reader_free(s->reader);
    mem_free(s);
    return rc;
}

silt_status csv_scan_open_keys(csv_scan **out, io_store *store, const char *const *keys,
                              size_t n_keys, const char *const *kv, size_t n_kv,
                              const col_type *schema, const char *const *read_columns,
                              size_t n_read_columns, tpool *pool, silt_error *err)
{
    arena *tmp = arena_new(NULL, "csv options");
    csv_options opts;
    silt_status rc = SILT_OK;
    if (tmp == NULL)
        return err_nomem(err);
    csv_options_init(&opts);
    for (size_t idx = 0; rc == SILT_OK && idx < n_kv; idx++)
        rc = csv_options_set(&opts, tmp, kv[2 * idx], kv[2 * idx + 1], err);
    opts.schema = schema;
    opts.pool = pool;
    opts.read_columns = read_columns;
    opts.n_read_columns = n_read_columns;
    /* The scan copies the keys and every option string it keeps. */
    if (rc == SILT_OK)
        rc = csv_scan_open(out, store, keys, n_keys, &opts, err);
    arena_free(tmp);
    return rc;
}

silt_status csv_scan_open_path(csv_scan **out, io_store *store, const char *path,
                               const char *const *kv, size_t n_kv, const col_type *schema,
                               const char *const *read_columns, size_t n_read_columns,
                               tpool *pool, silt_error *err)
{
    arena *tmp = arena_new(NULL, "csv keys");
    char **keys = NULL;
    size_t n_keys = 0;
    silt_status rc;
    if (tmp == NULL)
        return err_nomem(err);
    rc = text_resolve_path(store, path, tmp, &keys, &n_keys, err);
    if (rc == SILT_OK)
        rc = csv_scan_open_keys(out, store, (const char *const *)keys, n_keys, kv, n_kv, schema,
                                read_columns, n_read_columns, pool, err);
    arena_free(tmp);
    return rc;
}
