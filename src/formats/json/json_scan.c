/*
 * json_scan.c - the JSON scan: options, chunked parallel inference and
 * conversion into column builders, Spark's parse modes.
 *
 * JSON lines are split at line breaks into chunks of about chunk_bytes and
 * parsed in rounds on the pool, each batch in its own arena (see csv.h for
 * the lifetime rule); a multiLine object is one record and one chunk.
 * Every record is first tokenized onto a tape; conversion then walks the
 * tape against the schema. DROPMALFORMED converts a record twice (a dry run
 * without builders first) because builders cannot take a value back.
 */
#include <string.h>

#include "formats/json/json_int.h"
#include "formats/text/text_batch.h"
#include "formats/text/text_spec.h"
#include "util/hashmap.h"
#include "util/mem.h"
#include "util/time.h"

void json_options_init(json_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = 1;
    opts->sampling_ratio = 1.0;
    opts->mode = TEXT_MODE_PERMISSIVE;
    opts->corrupt_column = "_corrupt_record";
    opts->batch_rows = JSON_DEFAULT_BATCH_ROWS;
    opts->chunk_bytes = JSON_DEFAULT_CHUNK_BYTES;
    opts->max_depth = JSON_DEFAULT_MAX_DEPTH;
    opts->window_bytes = TEXT_DEFAULT_WINDOW_BYTES;
    opts->speculate_bytes = JSON_DEFAULT_SPECULATE_BYTES;
}

silt_status json_options_set(json_options *o, arena *a, const char *key, const char *value,
                             silt_error *err)
{
    int flag;
    if (util_str_casecmp(key, "multiLine") == 0)
        return text_parse_bool(key, value, &o->multi_line, err);
    if (util_str_casecmp(key, "samplingRatio") == 0)
        return text_parse_ratio(key, value, &o->sampling_ratio, err);
    if (util_str_casecmp(key, "mode") == 0)
        return text_parse_mode(key, value, &o->mode, err);
    if (util_str_casecmp(key, "timeZone") == 0)
        return time_zone_get(value, strlen(value), &o->zone, err);
    if (util_str_casecmp(key, "primitivesAsString") == 0)
        return text_parse_bool(key, value, &o->primitives_as_string, err);
    if (util_str_casecmp(key, "prefersDecimal") == 0)
        return text_parse_bool(key, value, &o->prefers_decimal, err);
    if (util_str_casecmp(key, "inferTimestamp") == 0)
        return text_parse_bool(key, value, &o->infer_timestamp, err);
    if (util_str_casecmp(key, "dropFieldIfAllNull") == 0)
        return text_parse_bool(key, value, &o->drop_field_if_all_null, err);
    if (util_str_casecmp(key, "columnNameOfCorruptRecord") == 0 ||
        util_str_casecmp(key, "timestampFormat") == 0 || util_str_casecmp(key, "dateFormat") == 0) {
        const text_dt_pattern *pattern;
        char *copy = arena_strdup(a, value);
        if (copy == NULL)
            return err_nomem(err);
        if (util_str_casecmp(key, "columnNameOfCorruptRecord") == 0) {
            o->corrupt_column = copy;
            return SILT_OK;
        }
        SILT_RETURN_IF_ERROR(text_dt_compile(value, a, &pattern, err)); /* refuse bad ones now */
        if (util_str_casecmp(key, "timestampFormat") == 0)
            o->timestamp_format = copy;
        else
            o->date_format = copy;
        return SILT_OK;
    }
    if (util_str_casecmp(key, "batchRows") == 0)
        return text_parse_int_in(key, value, "batchRows", 1, 1 << 20, &o->batch_rows, err);
    if (util_str_casecmp(key, "encoding") == 0 || util_str_casecmp(key, "charset") == 0) {
        if (util_str_casecmp(value, "UTF-8") == 0 || util_str_casecmp(value, "UTF8") == 0)
            return SILT_OK;
        return err_set(err, SILT_UNSUPPORTED, "option \"%s\" = \"%s\": only UTF-8 is supported",
                       key, value);
    }
    if (util_str_casecmp(key, "lineSep") == 0) {
        if (strcmp(value, "\n") == 0 || strcmp(value, "\r\n") == 0)
            return SILT_OK;
        return err_set(err, SILT_UNSUPPORTED, "option \"lineSep\" must be \\n or \\r\\n");
    }
    /* Options whose Spark default is all silt implements: accepted at it. */
    if (util_str_casecmp(key, "allowNonNumericNumbers") == 0 || util_str_casecmp(key, "inferSchema") == 0) {
        SILT_RETURN_IF_ERROR(text_parse_bool(key, value, &flag, err));
        if (flag)
            return SILT_OK;
    } else if (util_str_casecmp(key, "allowComments") == 0 ||
               util_str_casecmp(key, "allowUnquotedFieldNames") == 0 ||
               util_str_casecmp(key, "allowSingleQuotes") == 0 ||
               util_str_casecmp(key, "allowNumericLeadingZeros") == 0 ||
               util_str_casecmp(key, "allowBackslashEscapingAnyCharacter") == 0 ||
               util_str_casecmp(key, "allowUnquotedControlChars") == 0) {
        SILT_RETURN_IF_ERROR(text_parse_bool(key, value, &flag, err));
        if (!flag)
            return SILT_OK;
    } else {
        return err_set(err, SILT_INVALID, "JSON option \"%s\" does not exist", key);
    }
    return err_set(err, SILT_UNSUPPORTED, "JSON option \"%s\" = \"%s\" is not supported yet", key,
                   value);
}

/*
 * Scratch of one pool worker, kept across chunks and rounds: a chunk's
 * tape holds ~300 bytes per record, and a fresh one per 4 MiB chunk made
 * the kernel hand out (and zero) more pages than the rows themselves took.
 */
typedef struct json_worker {
    json_tape tape;
    struct spec_record *recs;
    size_t cap_recs;
} json_worker;

typedef struct chunk_job {
    text_chunk chunk;
    size_t start, end;
    text_batch_list batches;
    json_worker *worker;   /* the scratch of the thread running the chunk */
    arena *infer_arena;
    json_infer infer;
    int infer_ready;
    int speculate;         /* inference also converts the chunk (see "one pass") */
    int speculated;        /* ... and batches holds its rows under spec_schema */
    int preset;            /* parse round: batches came from the inference pass */
    arena *spec_arena;     /* spec_schema */
    const col_type *spec_schema;
    silt_status status;
    silt_error err;
} chunk_job;

struct json_scan {
    io_store *store;
    arena *arena;
    char **keys;
    size_t n_keys;
    json_options opts;
    const text_dt_pattern *ts_pattern;
    const text_dt_pattern *date_pattern;
    const col_type *schema;
    int64_t corrupt_idx;
    hashmap top_fields; /* name -> index + 1 */
    text_reader *reader; /* on the heap: chunk tasks copy the scan while the caller reads ahead */
    text_batch_queue queue;
    /* one pass: chunks converted while inferring, in reader order */
    int speculate;            /* inference may convert (json_scan_open) */
    text_spec *spec;          /* on the heap, as the reader */
    json_worker *workers; /* tpool_width of them (one without a pool) */
    size_t n_workers;
};

/* JSON lines split at line breaks; a multiLine object is one chunk. */
static silt_status split_object(text_object *obj, void *payload, silt_error *err)
{
    const json_scan *s = payload;
    size_t len = obj->len, step = s->opts.chunk_bytes ? s->opts.chunk_bytes : 1;
    size_t max_chunks = len / step + 2, n = 0, pos = 0;
    obj->bounds = mem_calloc(max_chunks + 1, sizeof(size_t));
    if (obj->bounds == NULL)
        return err_nomem(err);
    obj->bounds[n++] = 0;
    /* Without the object's end in this window only complete lines count. */
    size_t end = obj->last_window ? len : text_last_line_end(obj->data, len);
    while (pos < end) {
        if (s->opts.multi_line || pos + step >= end)
            pos = end;
        else
            pos = json_line_end(obj->data, end, pos + step);
        if (n <= max_chunks)
            obj->bounds[n++] = pos;
    }
    obj->n_chunks = n - 1;
    obj->next_chunk = 0;
    return SILT_OK;
}

/* A record of the chunk: [start, end) without the line break. */
typedef struct record_iter {
    const char *data;
    size_t pos, end;
    int multi_line;
} record_iter;

static int next_record(record_iter *it, size_t *start, size_t *len)
{
    if (it->pos >= it->end)
        return 0;
    *start = it->pos;
    if (it->multi_line) {
        *len = it->end - it->pos;
        it->pos = it->end;
        return 1;
    }
    const char *nl = memchr(it->data + it->pos, '\n', it->end - it->pos);
    size_t stop = nl ? (size_t)(nl - it->data) : it->end;
    it->pos = nl ? stop + 1 : it->end;
    *len = stop - *start;
    if (*len > 0 && it->data[stop - 1] == '\r')
        (*len)--;
    return 1;
}

static silt_status syntax_error(const text_object *obj, const json_tape *t, size_t rec_start,
                                silt_error *err)
{
    size_t abs = rec_start + t->err_pos;
    int64_t line = text_object_line(obj, abs);
    const char *line_start = obj->data + abs;
    while (line_start > obj->data && line_start[-1] != '\n')
        line_start--;
    err_set(err, SILT_PARSE,
            "malformed JSON record at line %lld, position %lld of \"%s\": expected %s",
            (long long)line, (long long)(obj->data + abs - line_start + 1), obj->key,
            t->err_what ? t->err_what : "a value");
    err_hint(err, "set mode to PERMISSIVE or DROPMALFORMED to read past malformed records");
    return SILT_PARSE;
}

/* ---- inference ---- */

/* A record parsed onto the chunk's tape during a one-pass inference. */
typedef struct spec_record {
    size_t first, end; /* tokens [first, end) of the tape; empty when !ok */
    size_t start, len; /* the record's bytes in the window */
    int ok;
} spec_record;

static silt_status speculate_chunk(json_scan *s, chunk_job *job, const json_tape *t,
                                   const spec_record *recs, size_t n_recs, silt_error *err);

static silt_status infer_chunk(json_scan *s, chunk_job *job, silt_error *err)
{
    json_tape *tape = &job->worker->tape, view;
    const text_object *obj = job->chunk.obj;
    record_iter it = {obj->data, job->start, job->end, s->opts.multi_line};
    size_t start, len, n_recs = 0;
    silt_status rc = SILT_OK;
    uint64_t key_hash = util_hash_bytes(obj->key, strlen(obj->key), 7);
    job->infer_arena = arena_new(NULL, "json infer");
    if (job->infer_arena == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(json_infer_init(&job->infer, job->infer_arena, &s->opts, err));
    job->infer.ts_pattern = s->ts_pattern;
    job->infer_ready = 1;
    tape->n = 0;
    while (rc == SILT_OK && next_record(&it, &start, &len)) {
        int ok, empty;
        size_t end, first = job->speculate ? tape->n : 0;
        if (!text_sample_keep(key_hash, start, s->opts.sampling_ratio))
            continue;
        /* speculating, the chunk's records stay on one tape for conversion */
        rc = job->speculate
                 ? json_tape_parse_append(tape, obj->data + start, len, &ok, &empty, &end, err)
                 : json_tape_parse(tape, obj->data + start, len, &ok, &empty, &end, err);
        if (rc != SILT_OK || empty)
            continue;
        if (job->speculate && n_recs == job->worker->cap_recs) {
            size_t cap = n_recs ? n_recs * 2 : 1024;
            spec_record *grown = mem_realloc(job->worker->recs, cap * sizeof(spec_record));
            if (grown == NULL) {
                rc = err_nomem(err);
                break;
            }
            job->worker->recs = grown;
            job->worker->cap_recs = cap;
        }
        if (job->speculate)
            job->worker->recs[n_recs++] = (spec_record){first, tape->n, start, len, ok};
        if (!ok) {
            if (s->opts.mode == TEXT_MODE_FAILFAST)
                rc = syntax_error(obj, tape, start, err);
            else
                job->infer.saw_corrupt = 1;
            continue;
        }
        json_tape_view(tape, first, tape->n, &view);
        rc = json_infer_record(&job->infer, &view, err);
    }
    if (rc == SILT_OK && job->speculate)
        rc = speculate_chunk(s, job, tape, job->worker->recs, n_recs, err);
    return rc;
}

/* ---- conversion ---- */

typedef struct conv {
    json_scan *s;
    buf scratch;
    int32_t *slots;
    size_t n_slots, cap_slots;
    const char *bad_field;
    /* top-level field the key at member position k named last time, or -1:
     * JSON lines repeat one key order, so most keys match on first try */
    int32_t top_hints[JSON_INFER_HINTS];
    size_t top_hint_lens[JSON_INFER_HINTS]; /* name length of each hinted field */
} conv;

/*
 * The value of a JT_INT token of at most 18 digits (the tape checked it is
 * [-]digits, so it fits a long without overflow checks); 0 when longer,
 * for util_str_to_int64 to decide.
 */
static inline int small_int(const jtok *tok, int64_t *out)
{
    const char *p = tok->ptr;
    size_t len = tok->len, pos = p[0] == '-';
    uint64_t v = 0;
    if (len - pos > 18 || len == pos)
        return 0;
    for (; pos < len; pos++)
        v = v * 10 + (uint64_t)(p[pos] - '0');
    *out = p[0] == '-' ? -(int64_t)v : (int64_t)v;
    return 1;
}

static silt_status append_str(col_builder *b, conv *cv, const jtok *tok, silt_error *err)
{
    /* Any other value read as a string is its JSON text as written, objects
     * and arrays included (Spark copies the text, whitespace and all). */
    buf_truncate(&cv->scratch, 0);
    if (tok->kind != JT_STRING || !tok->escaped) {
        if (tok->ascii || text_utf8_valid(tok->ptr, tok->len))
            return col_builder_append_bytes(b, tok->ptr, tok->len, err);
        SILT_RETURN_IF_ERROR(text_utf8_repair(tok->ptr, tok->len, &cv->scratch, err));
    } else {
        SILT_RETURN_IF_ERROR(json_unescape(tok->ptr, tok->len, &cv->scratch, err));
        if (!text_utf8_valid(cv->scratch.data ? cv->scratch.data : "", cv->scratch.len)) {
            buf fixed = BUF_INIT;
            silt_status rc = text_utf8_repair(cv->scratch.data, cv->scratch.len, &fixed, err);
            if (rc == SILT_OK)
                rc = col_builder_append_bytes(b, buf_cstr(&fixed), fixed.len, err);
            buf_clear(&fixed);
            return rc;
        }
    }
    return col_builder_append_bytes(b, cv->scratch.data ? cv->scratch.data : "", cv->scratch.len,
                                    err);
}

static int special_double(const char *s, size_t len, double *out)
{
    static const char *const pos_names[] = {"Infinity", "+Infinity", "INF", "+INF"};
    if (len == 3 && memcmp(s, "NaN", 3) == 0)
        return util_str_to_double("NaN", 3, out);
    for (size_t idx = 0; idx < 4; idx++)
        if (strlen(pos_names[idx]) == len && memcmp(s, pos_names[idx], len) == 0)
            return util_str_to_double("Infinity", 8, out);
    if ((len == 9 && memcmp(s, "-Infinity", 9) == 0) || (len == 4 && memcmp(s, "-INF", 4) == 0))
        return util_str_to_double("-Infinity", 9, out);
    return 0;
}

static silt_status convert(conv *cv, col_builder *b, const col_type *type, const json_tape *t,
                           size_t idx, int *bad, silt_error *err);

/* Collects, for each field of a struct, the tape index of its (last) value. */
static silt_status gather_members(conv *cv, const col_type *type, const json_tape *t, size_t idx,
                                  size_t base, const hashmap *index, silt_error *err)
{
    size_t pos = idx + 1, hint = 0;
    for (uint32_t member = 0; member < t->toks[idx].count; member++) {
        const jtok *key = &t->toks[pos];
        const char *name = key->ptr;
        size_t name_len = key->len;
        size_t found = SIZE_MAX;
        if (key->escaped || (!key->ascii && !text_utf8_valid(key->ptr, key->len))) {
            /* names are matched as inference stored them: unescaped, repaired */
            buf_truncate(&cv->scratch, 0);
            if (key->escaped)
                SILT_RETURN_IF_ERROR(json_unescape(key->ptr, key->len, &cv->scratch, err));
            else
                SILT_RETURN_IF_ERROR(text_utf8_repair(key->ptr, key->len, &cv->scratch, err));
            name = cv->scratch.data ? cv->scratch.data : "";
            name_len = cv->scratch.len;
        }
        int32_t *hint_slot = (type == cv->s->schema && member < JSON_INFER_HINTS)
                                 ? &cv->top_hints[member] : NULL;
        if (hint_slot != NULL && *hint_slot >= 0 && cv->top_hint_lens[member] == name_len &&
            mem_eq(type->fields[*hint_slot].name, name, name_len))
            found = (size_t)*hint_slot;
        if (found == SIZE_MAX && index != NULL) {
            void *value = NULL;
            if (hashmap_get(index, name, name_len, &value))
                found = (size_t)(uintptr_t)value - 1;
        } else if (found == SIZE_MAX) {
            for (size_t step = 0; step < type->n_fields; step++) {
                size_t fi = (hint + step) % type->n_fields;
                const char *fname = type->fields[fi].name;
                if (strncmp(fname, name, name_len) == 0 && fname[name_len] == '\0') {
                    found = fi;
                    hint = fi + 1;
                    break;
                }
            }
        }
        if (found != SIZE_MAX) {
            cv->slots[base + found] = (int32_t)(pos + 1);
            if (hint_slot != NULL && *hint_slot != (int32_t)found) {
                *hint_slot = (int32_t)found;
                cv->top_hint_lens[member] = strlen(type->fields[found].name);
            }
        }
        pos = t->toks[pos + 1].next;
    }
    return SILT_OK;
}

/*
 * One value into its column, the common pairs (plain string into a string
 * column, short integer into a long column) without the general switch.
 */
static inline silt_status convert_value(conv *cv, col_builder *b, const col_type *type,
                                        const json_tape *t, size_t idx, int *bad, silt_error *err)
{
    const jtok *tok = &t->toks[idx];
    int64_t iv;
    if (type->id == COL_STRING && tok->kind == JT_STRING && !tok->escaped && tok->ascii)
        return col_builder_append_bytes(b, tok->ptr, tok->len, err);
    if (type->id == COL_LONG && tok->kind == JT_INT && small_int(tok, &iv))
        return col_builder_append_int(b, iv, err);
    return convert(cv, b, type, t, idx, bad, err);
}

/*
 * The top-level fast path: every key is plain and names, at its member
 * position, the field it named last time, no field twice. Then the values
 * go straight into their columns in member order (each column is appended
 * once either way) and the fields the record lacks get nulls. Anything else
 * (a new key order, a duplicate key, an escaped name, more than 64 fields)
 * returns *done 0 before touching a builder, for the general path.
 */
static silt_status convert_top_fast(conv *cv, col_builder **children, const col_type *type,
                                    const json_tape *t, size_t idx, int64_t skip_field,
                                    int *bad, int *done, silt_error *err)
{
    uint32_t count = t->toks[idx].count;
    int32_t values[JSON_INFER_HINTS]; /* tape index of each member's value */
    uint64_t seen = 0;
    size_t pos = idx + 1, n = type->n_fields;
    *done = 0;
    if (count > JSON_INFER_HINTS || n > 64)
        return SILT_OK;
    for (uint32_t member = 0; member < count; member++) {
        const jtok *key = &t->toks[pos];
        int32_t fi = cv->top_hints[member];
        if (fi < 0 || key->escaped || !key->ascii || cv->top_hint_lens[member] != key->len ||
            (seen >> fi & 1) || !mem_eq(type->fields[fi].name, key->ptr, key->len))
            return SILT_OK;
        seen |= UINT64_C(1) << fi;
        values[member] = (int32_t)(pos + 1);
        pos = t->toks[pos + 1].next;
    }
    *done = 1;
    pos = idx + 1;
    for (uint32_t member = 0; member < count; member++) {
        int32_t fi = cv->top_hints[member];
        int field_bad = 0;
        if ((int64_t)fi != skip_field)
            SILT_RETURN_IF_ERROR(convert_value(cv, children[fi], type->fields[fi].type, t,
                                               (size_t)values[member], &field_bad, err));
        if (field_bad && !*bad) {
            *bad = 1;
            cv->bad_field = type->fields[fi].name;
        }
    }
    if (seen != (n == 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1))
        for (size_t fi = 0; fi < n; fi++)
            if (!(seen >> fi & 1) && (int64_t)fi != skip_field)
                SILT_RETURN_IF_ERROR(col_builder_append_null(children[fi], err));
    return SILT_OK;
}

/* Converts an object into the fields of a struct: children builders (b NULL = dry run). */
static silt_status convert_fields(conv *cv, col_builder **children, const col_type *type,
                                  const json_tape *t, size_t idx, const hashmap *index,
                                  int64_t skip_field, int *bad, silt_error *err)
{
    size_t base = cv->n_slots, n = type->n_fields;
    silt_status rc = SILT_OK;
    if (children != NULL && type == cv->s->schema) {
        int done;
        SILT_RETURN_IF_ERROR(convert_top_fast(cv, children, type, t, idx, skip_field, bad, &done,
                                              err));
        if (done)
            return SILT_OK;
    }
    if (cv->n_slots + n > cv->cap_slots) {
        size_t cap = (cv->n_slots + n) * 2 + 16;
        int32_t *grown = mem_realloc(cv->slots, cap * sizeof(int32_t));
        if (grown == NULL)
            return err_nomem(err);
        cv->slots = grown;
        cv->cap_slots = cap;
    }
    cv->n_slots += n;
    for (size_t fi = 0; fi < n; fi++)
        cv->slots[base + fi] = -1;
    rc = gather_members(cv, type, t, idx, base, index, err);
    for (size_t fi = 0; rc == SILT_OK && fi < n; fi++) {
        if ((int64_t)fi == skip_field)
            continue;
        col_builder *child = children ? children[fi] : NULL;
        int32_t vi = cv->slots[base + fi];
        int field_bad = 0;
        if (vi < 0) {
            if (child)
                rc = col_builder_append_null(child, err);
            continue;
        }
        rc = convert(cv, child, type->fields[fi].type, t, (size_t)vi, &field_bad, err);
        if (field_bad && !*bad) {
            *bad = 1;
            cv->bad_field = type->fields[fi].name;
        }
    }
    cv->n_slots = base;
    return rc;
}

static silt_status convert_struct(conv *cv, col_builder *b, const col_type *type,
                                  const json_tape *t, size_t idx, int *bad, silt_error *err)
{
    col_builder *stack_children[16];
    col_builder **children = NULL;
    silt_status rc;
    if (b != NULL) {
        children = type->n_fields <= 16 ? stack_children
                                        : mem_calloc(type->n_fields, sizeof(col_builder *));
        if (children == NULL)
            return err_nomem(err);
        for (size_t fi = 0; fi < type->n_fields; fi++)
            children[fi] = col_builder_child(b, fi);
    }
    rc = convert_fields(cv, children, type, t, idx, NULL, -1, bad, err);
    if (rc == SILT_OK && b != NULL)
        rc = col_builder_append_struct(b, err);
    if (children != stack_children)
        mem_free(children);
    return rc;
}

static silt_status convert(conv *cv, col_builder *b, const col_type *type, const json_tape *t,
                           size_t idx, int *bad, silt_error *err)
{
    const jtok *tok = &t->toks[idx];
    int64_t iv = 0;
    double dv = 0;
    int ok = 0;
    if (tok->kind == JT_NULL)
        return b ? col_builder_append_null(b, err) : SILT_OK;
    switch (type->id) {
    case COL_STRING:
        return b ? append_str(b, cv, tok, err) : SILT_OK;
    case COL_BOOLEAN:
        if (tok->kind == JT_TRUE || tok->kind == JT_FALSE)
            return b ? col_builder_append_bool(b, tok->kind == JT_TRUE, err) : SILT_OK;
        break;
    case COL_BYTE:
    case COL_SHORT:
    case COL_INT:
    case COL_LONG: {
        int64_t lo = type->id == COL_BYTE ? INT8_MIN : type->id == COL_SHORT ? INT16_MIN
                     : type->id == COL_INT ? INT32_MIN : INT64_MIN;
        int64_t hi = type->id == COL_BYTE ? INT8_MAX : type->id == COL_SHORT ? INT16_MAX
                     : type->id == COL_INT ? INT32_MAX : INT64_MAX;
        if (tok->kind == JT_INT && (small_int(tok, &iv) || util_str_to_int64(tok->ptr, tok->len, &iv)) &&
            iv >= lo && iv <= hi)
            return b ? col_builder_append_int(b, iv, err) : SILT_OK;
        break;
    }
    case COL_FLOAT:
    case COL_DOUBLE:
        if (tok->kind == JT_INT || tok->kind == JT_FLOAT)
            ok = util_str_to_double(tok->ptr, tok->len, &dv) || special_double(tok->ptr, tok->len, &dv);
        else if (tok->kind == JT_STRING)
            ok = special_double(tok->ptr, tok->len, &dv);
        if (ok)
            return b ? col_builder_append_double(b, dv, err) : SILT_OK;
        break;
    case COL_DECIMAL: {
        col_int128 unscaled;
        if ((tok->kind == JT_INT || tok->kind == JT_FLOAT || (tok->kind == JT_STRING && !tok->escaped)) &&
            text_parse_decimal(tok->ptr, tok->len, type->precision, type->scale, &unscaled))
            return b ? col_builder_append_decimal(b, unscaled, err) : SILT_OK;
        break;
    }
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        if (tok->kind == JT_STRING && !tok->escaped &&
            (cv->s->ts_pattern != NULL
                 ? text_dt_parse_timestamp_in(cv->s->ts_pattern, tok->ptr, tok->len,
                                              type->id == COL_TIMESTAMP ? cv->s->opts.zone : NULL, &iv)
                 : time_string_to_timestamp(tok->ptr, tok->len,
                                            type->id == COL_TIMESTAMP ? cv->s->opts.zone : NULL,
                                            time_now_micros(), &iv)))
            return b ? col_builder_append_int(b, iv, err) : SILT_OK;
        if (tok->kind == JT_INT && util_str_to_int64(tok->ptr, tok->len, &iv) &&
            iv <= INT64_MAX / TIME_MICROS_PER_SECOND && iv >= INT64_MIN / TIME_MICROS_PER_SECOND)
            return b ? col_builder_append_int(b, iv * TIME_MICROS_PER_SECOND, err) : SILT_OK;
        break;
    case COL_DATE: {
        int32_t days;
        if (tok->kind == JT_STRING && !tok->escaped &&
            (cv->s->date_pattern != NULL
                 ? text_dt_parse_date(cv->s->date_pattern, tok->ptr, tok->len, &days)
                 : time_parse_date(tok->ptr, tok->len, &days)))
            return b ? col_builder_append_int(b, days, err) : SILT_OK;
        break;
    }
    case COL_STRUCT:
        if (tok->kind == JT_OBJECT)
            return convert_struct(cv, b, type, t, idx, bad, err);
        break;
    case COL_ARRAY:
        if (tok->kind == JT_ARRAY) {
            /* One element that does not fit makes the whole array null (as
             * in Spark); builders cannot take elements back, so check first. */
            int elem_bad = 0;
            for (size_t pos = idx + 1; pos < tok->next && !elem_bad; pos = t->toks[pos].next)
                SILT_RETURN_IF_ERROR(
                    convert(cv, NULL, type->fields[0].type, t, pos, &elem_bad, err));
            if (elem_bad)
                break;
            col_builder *child = b ? col_builder_child(b, 0) : NULL;
            for (size_t pos = idx + 1; b != NULL && pos < tok->next; pos = t->toks[pos].next)
                SILT_RETURN_IF_ERROR(convert(cv, child, type->fields[0].type, t, pos, bad, err));
            return b ? col_builder_append_list(b, tok->count, err) : SILT_OK;
        }
        break;
    case COL_MAP:
        if (tok->kind == JT_OBJECT) {
            int value_bad = 0;
            for (size_t pos = idx + 1, m = 0; m < tok->count && !value_bad; m++) {
                SILT_RETURN_IF_ERROR(
                    convert(cv, NULL, type->fields[1].type, t, pos + 1, &value_bad, err));
                pos = t->toks[pos + 1].next;
            }
            if (value_bad)
                break;
            col_builder *keys = b ? col_builder_child(b, 0) : NULL;
            col_builder *values = b ? col_builder_child(b, 1) : NULL;
            size_t pos = idx + 1;
            for (uint32_t member = 0; member < tok->count; member++) {
                if (keys)
                    SILT_RETURN_IF_ERROR(append_str(keys, cv, &t->toks[pos], err));
                SILT_RETURN_IF_ERROR(
                    convert(cv, values, type->fields[1].type, t, pos + 1, bad, err));
                pos = t->toks[pos + 1].next;
            }
            return b ? col_builder_append_list(b, tok->count, err) : SILT_OK;
        }
        break;
    default:
        break;
    }
    *bad = 1;
    return b ? col_builder_append_null(b, err) : SILT_OK;
}

typedef struct batch_state {
    text_batch *ob;
    col_builder **cols;
    int64_t rows;
    /* string bytes of each column in the last batch: the next batch
     * reserves about as much, so its builders never grow by copying */
    size_t col_bytes[64];
} batch_state;

static silt_status start_batch(json_scan *s, chunk_job *job, batch_state *bs, silt_error *err)
{
    SILT_RETURN_IF_ERROR(text_batch_list_add(&job->batches, "json batch", &bs->ob, err));
    bs->ob->key_idx = job->chunk.obj->key_idx;
    size_t n = s->schema->n_fields;
    bs->cols = arena_calloc(bs->ob->a, n ? n : 1, sizeof(col_builder *));
    bs->ob->batch.cols = arena_calloc(bs->ob->a, n ? n : 1, sizeof(col_vec *));
    if (bs->cols == NULL || bs->ob->batch.cols == NULL)
        return err_nomem(err);
    for (size_t idx = 0; idx < n; idx++) {
        size_t bytes = idx < 64 ? bs->col_bytes[idx] : 0;
        SILT_RETURN_IF_ERROR(
            col_builder_new(&bs->cols[idx], bs->ob->a, s->schema->fields[idx].type, err));
        SILT_RETURN_IF_ERROR(col_builder_reserve(bs->cols[idx], s->opts.batch_rows,
                                                 bytes + bytes / 8, err));
    }
    bs->ob->batch.schema = s->schema;
    bs->ob->batch.n_cols = n;
    bs->rows = 0;
    return SILT_OK;
}

static silt_status finish_batch(batch_state *bs, silt_error *err)
{
    for (size_t idx = 0; idx < bs->ob->batch.n_cols && idx < 64; idx++)
        bs->col_bytes[idx] = col_builder_data_len(bs->cols[idx]);
    for (size_t idx = 0; idx < bs->ob->batch.n_cols; idx++)
        SILT_RETURN_IF_ERROR(col_builder_finish(bs->cols[idx], &bs->ob->batch.cols[idx], err));
    bs->ob->batch.n_rows = bs->rows;
    bs->ob = NULL;
    return SILT_OK;
}

/* Appends one row from an object (tok_idx) or a null row (tok_idx < 0). */
static silt_status append_row(conv *cv, batch_state *bs, const json_tape *t, int64_t tok_idx,
                              int *bad, silt_error *err)
{
    json_scan *s = cv->s;
    if (tok_idx < 0) {
        for (size_t idx = 0; bs != NULL && idx < s->schema->n_fields; idx++)
            if ((int64_t)idx != s->corrupt_idx)
                SILT_RETURN_IF_ERROR(col_builder_append_null(bs->cols[idx], err));
        return SILT_OK;
    }
    /* A hash lookup pays off only for wide rows; narrow ones scan with a hint. */
    const hashmap *index = s->schema->n_fields > 16 ? &s->top_fields : NULL;
    return convert_fields(cv, bs ? bs->cols : NULL, s->schema, t, (size_t)tok_idx, index,
                          s->corrupt_idx, bad, err);
}

/* Converts the record on the tape (or a syntax error) into rows. */
static silt_status convert_record(conv *cv, chunk_job *job, batch_state *bs, const json_tape *t,
                                  int parsed, size_t rec_start, size_t rec_len, silt_error *err)
{
    json_scan *s = cv->s;
    size_t first = 0, n_rows = 1;
    int bad = !parsed;
    const jtok *top = parsed ? &t->toks[0] : NULL;
    cv->bad_field = NULL;
    if (top != NULL && top->kind == JT_OBJECT && s->opts.mode == TEXT_MODE_PERMISSIVE &&
        s->corrupt_idx < 0 && bs->ob != NULL) {
        /* the common record, one object read leniently with no corrupt
         * column to fill: a value that does not fit is a null either way */
        SILT_RETURN_IF_ERROR(append_row(cv, bs, t, 0, &bad, err));
        if (++bs->rows == s->opts.batch_rows)
            SILT_RETURN_IF_ERROR(finish_batch(bs, err));
        return SILT_OK;
    }
    if (top != NULL && top->kind == JT_ARRAY) {
        n_rows = top->count;
        first = 1;
        for (size_t pos = 1; pos < top->next; pos = t->toks[pos].next)
            if (t->toks[pos].kind != JT_OBJECT)
                bad = 1; /* an array row must hold only objects */
    } else if (top != NULL && top->kind != JT_OBJECT && top->kind != JT_NULL) {
        bad = 1; /* a scalar is not a row; a null line is a row of nulls */
    }
    if (!bad && s->opts.mode != TEXT_MODE_PERMISSIVE) {
        /* dry run: conversion failures make the record malformed */
        for (size_t pos = first, row = 0; row < n_rows && !bad; row++, pos = t->toks[pos].next)
            SILT_RETURN_IF_ERROR(append_row(cv, NULL, t, (int64_t)pos, &bad, err));
    }
    if (bad && s->opts.mode == TEXT_MODE_DROPMALFORMED)
        return SILT_OK;
    if (bad && s->opts.mode == TEXT_MODE_FAILFAST) {
        if (!parsed)
            return syntax_error(job->chunk.obj, t, rec_start, err);
        err_set(err, SILT_PARSE, "[FAILED_READ_FILE.NO_HINT] malformed JSON record at line "
                "%lld of \"%s\": %s%s%s",
                (long long)text_object_line(job->chunk.obj, rec_start), job->chunk.obj->key,
                cv->bad_field ? "the value of field \"" : "a record must be a JSON object",
                cv->bad_field ? cv->bad_field : "", cv->bad_field ? "\" does not fit its type" : "");
        err_hint(err, "set mode to PERMISSIVE or DROPMALFORMED to read past malformed records");
        return SILT_PARSE;
    }
    if (bad && (top == NULL || (top->kind != JT_OBJECT && top->kind != JT_ARRAY)))
        n_rows = 1; /* a malformed record is one row of nulls */
    if (bad && top != NULL && top->kind == JT_ARRAY)
        n_rows = 1, top = NULL;
    for (size_t pos = first, row = 0; row < n_rows; row++) {
        int row_bad = 0;
        if (bs->ob == NULL)
            SILT_RETURN_IF_ERROR(start_batch(s, job, bs, err));
        int64_t tok_idx = (top != NULL && (top->kind == JT_OBJECT || top->kind == JT_ARRAY))
                              ? (int64_t)pos : -1;
        SILT_RETURN_IF_ERROR(append_row(cv, bs, t, tok_idx, &row_bad, err));
        if (s->corrupt_idx >= 0) {
            col_builder *cb = bs->cols[s->corrupt_idx];
            const char *raw = job->chunk.obj->data + rec_start;
            if ((bad || row_bad) && text_utf8_valid(raw, rec_len)) {
                SILT_RETURN_IF_ERROR(col_builder_append_bytes(cb, raw, rec_len, err));
            } else if (bad || row_bad) {
                buf_truncate(&cv->scratch, 0);
                SILT_RETURN_IF_ERROR(text_utf8_repair(raw, rec_len, &cv->scratch, err));
                SILT_RETURN_IF_ERROR(
                    col_builder_append_bytes(cb, buf_cstr(&cv->scratch), cv->scratch.len, err));
            }
            else
                SILT_RETURN_IF_ERROR(col_builder_append_null(cb, err));
        }
        if (++bs->rows == s->opts.batch_rows)
            SILT_RETURN_IF_ERROR(finish_batch(bs, err));
        if (tok_idx >= 0)
            pos = t->toks[pos].next;
    }
    return SILT_OK;
}

static void conv_init(conv *cv, json_scan *s)
{
    memset(cv, 0, sizeof(*cv));
    cv->s = s;
    for (size_t idx = 0; idx < JSON_INFER_HINTS; idx++)
        cv->top_hints[idx] = -1;
    buf_init(&cv->scratch, 0);
}

static void conv_clear(conv *cv)
{
    buf_clear(&cv->scratch);
    mem_free(cv->slots);
}

static silt_status parse_chunk(json_scan *s, chunk_job *job, silt_error *err)
{
    json_tape *tape = &job->worker->tape;
    conv cv;
    batch_state bs = {0};
    const text_object *obj = job->chunk.obj;
    record_iter it = {obj->data, job->start, job->end, s->opts.multi_line};
    size_t start, len;
    silt_status rc = SILT_OK;
    conv_init(&cv, s);
    while (rc == SILT_OK && next_record(&it, &start, &len)) {
        int ok, empty;
        size_t end;
        rc = json_tape_parse(tape, obj->data + start, len, &ok, &empty, &end, err);
        if (rc == SILT_OK && !empty)
            rc = convert_record(&cv, job, &bs, tape, ok, start, len, err);
    }
    if (rc == SILT_OK && bs.ob != NULL)
        rc = finish_batch(&bs, err);
    conv_clear(&cv);
    return rc;
}

/* ---- one pass: inference converts what it parsed ----
 *
 * Spark infers over all records before it reads any, and so does silt;
 * reading the text twice cost as much as everything else in a JSON
 * ingest. So while inferring, a chunk also converts the records it just
 * parsed (kept on one tape) with the schema inferred from that chunk
 * alone. When the final schema (all chunks merged) is equal, those rows
 * are exactly what converting with the final schema gives (same
 * functions, same records, same order, same batch boundaries), and the
 * read pass hands them out instead of parsing the chunk again; when not
 * (a field or wider type elsewhere), they are dropped and the chunk is
 * read as before. Rows are held for about opts.speculate_bytes of text at
 * most (checked before each round), so memory stays bounded for any input, and
 * only with samplingRatio 1 (a sample does not describe every record).
 * A conversion failure (FAILFAST) only drops the chunk's rows: the read
 * pass reports it where it always did, after inference.
 */

static silt_status bind_schema(json_scan *s, silt_error *err);

static silt_status speculate_chunk(json_scan *s, chunk_job *job, const json_tape *t,
                                   const spec_record *recs, size_t n_recs, silt_error *err)
{
    json_scan local = *s; /* the fields conversion reads, with the chunk's schema */
    json_tape view;
    conv cv;
    batch_state bs = {0};
    silt_error quiet;
    silt_status rc;
    err_clear(&quiet);
    job->spec_arena = arena_new(NULL, "json chunk schema");
    if (job->spec_arena == NULL)
        return err_nomem(err);
    rc = json_infer_schema(&job->infer, job->spec_arena, &job->spec_schema, &quiet);
    if (rc != SILT_OK)
        return rc == SILT_NOMEM ? err_nomem(err) : SILT_OK; /* the merged schema fails too */
    local.schema = job->spec_schema;
    local.top_fields = (hashmap)HASHMAP_INIT;
    rc = bind_schema(&local, &quiet);
    conv_init(&cv, &local);
    for (size_t idx = 0; rc == SILT_OK && idx < n_recs; idx++) {
        json_tape_view(t, recs[idx].first, recs[idx].end, &view);
        rc = convert_record(&cv, job, &bs, &view, recs[idx].ok, recs[idx].start, recs[idx].len,
                            &quiet);
    }
    if (rc == SILT_OK && bs.ob != NULL)
        rc = finish_batch(&bs, &quiet);
    conv_clear(&cv);
    hashmap_clear(&local.top_fields);
    return text_spec_converted(rc, &job->speculated, &job->batches, err);
}

/* Keeps the rows a round of inference converted, in reader order. */
static silt_status keep_speculated(json_scan *s, chunk_job *jobs, size_t n, silt_error *err)
{
    for (size_t idx = 0; idx < n; idx++)
        SILT_RETURN_IF_ERROR(text_spec_keep(s->spec, &jobs[idx].chunk, jobs[idx].speculated,
                                            &jobs[idx].spec_arena, jobs[idx].spec_schema,
                                            &jobs[idx].batches, err));
    return SILT_OK;
}

/* ---- rounds, schema, scan ---- */

typedef struct round_ctx {
    json_scan *scan;
    chunk_job *jobs;
    size_t n;
    int infer;
} round_ctx;

static silt_status run_chunk(void *payload, size_t task_idx, size_t worker_idx, silt_error *err)
{
    round_ctx *ctx = payload;
    chunk_job *job = &ctx->jobs[task_idx];
    (void)err;
    err_clear(&job->err);
    job->worker = &ctx->scan->workers[worker_idx < ctx->scan->n_workers ? worker_idx : 0];
    if (job->preset)
        job->status = SILT_OK;
    else
        job->status = ctx->infer ? infer_chunk(ctx->scan, job, &job->err)
                                 : parse_chunk(ctx->scan, job, &job->err);
    return SILT_OK;
}

static void free_jobs(chunk_job *jobs, size_t n)
{
    for (size_t idx = 0; jobs != NULL && idx < n; idx++) {
        text_batch_list_clear(&jobs[idx].batches);
        if (jobs[idx].infer_ready)
            json_infer_clear(&jobs[idx].infer);
        arena_free(jobs[idx].infer_arena);
        arena_free(jobs[idx].spec_arena);
    }
    mem_free(jobs);
}

static silt_status make_workers(json_scan *s, silt_error *err)
{
    if (s->workers != NULL)
        return SILT_OK;
    size_t n = s->opts.pool ? tpool_width(s->opts.pool) : 1;
    s->workers = mem_calloc(n, sizeof(json_worker));
    if (s->workers == NULL)
        return err_nomem(err);
    s->n_workers = n;
    for (size_t idx = 0; idx < n; idx++)
        json_tape_init(&s->workers[idx].tape, s->opts.max_depth);
    return SILT_OK;
}

static void free_workers(json_scan *s)
{
    for (size_t idx = 0; idx < s->n_workers; idx++) {
        json_tape_clear(&s->workers[idx].tape);
        mem_free(s->workers[idx].recs);
    }
    mem_free(s->workers);
    s->workers = NULL;
    s->n_workers = 0;
}

/* Chunks per round of the read pass (inference takes twice as many). */
static size_t round_size(const json_scan *s)
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
static silt_status round_begin(json_scan *s, const text_chunk *chunks, size_t n, int infer,
                               round_ctx **out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(make_workers(s, err));
    round_ctx *ctx = mem_calloc(1, sizeof(*ctx));
    if (ctx == NULL)
        return err_nomem(err);
    ctx->scan = s;
    ctx->n = n;
    ctx->infer = infer;
    ctx->jobs = mem_calloc(n ? n : 1, sizeof(chunk_job));
    if (ctx->jobs == NULL) {
        mem_free(ctx);
        return err_nomem(err);
    }
    for (size_t idx = 0; idx < n; idx++) {
        ctx->jobs[idx].chunk = chunks[idx];
        ctx->jobs[idx].start = chunks[idx].start;
        ctx->jobs[idx].end = chunks[idx].end;
        if (infer)
            ctx->jobs[idx].speculate = s->speculate && s->opts.sampling_ratio >= 1.0 &&
                                       text_spec_has_room(s->spec, s->opts.speculate_bytes);
        else
            ctx->jobs[idx].preset =
                text_spec_take(s->spec, &ctx->jobs[idx].chunk, s->schema, &ctx->jobs[idx].batches);
    }
    *out = ctx;
    return SILT_OK;
}

/* The error of a finished round's first failing chunk, in input order. */
static silt_status round_check(const round_ctx *ctx, silt_error *err)
{
    for (size_t idx = 0; idx < ctx->n; idx++) {
        const chunk_job *job = &ctx->jobs[idx];
        if (job->status != SILT_OK) {
            err_copy(err, &job->err);
            err_context(err, "while %s JSON file \"%s\"",
                        ctx->infer ? "inferring the schema of" : "reading", job->chunk.obj->key);
            return job->status;
        }
    }
    return SILT_OK;
}

/*
 * Runs a round of chunks on the pool while the reader reads ahead the
 * windows of a next round (inference's size, the bigger one).
 */
static silt_status run_round(json_scan *s, const text_chunk *chunks, size_t n, int infer,
                             round_ctx **out, silt_error *err)
{
    round_ctx *ctx = NULL;
    silt_status rc = round_begin(s, chunks, n, infer, &ctx, err);
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

/* Inference is one pass of rounds (text_reader_pass), merged in input order into total. */
typedef struct infer_pass {
    json_scan *scan;
    json_infer *total;
} infer_pass;

static silt_status infer_begin(void *payload, const text_chunk *chunks, size_t n,
                               void **round_out, silt_error *err)
{
    infer_pass *p = payload;
    round_ctx *ctx = NULL;
    SILT_RETURN_IF_ERROR(round_begin(p->scan, chunks, n, 1, &ctx, err));
    *round_out = ctx;
    return SILT_OK;
}

static silt_status infer_end(void *payload, void *round, int discard, silt_error *err)
{
    infer_pass *p = payload;
    round_ctx *ctx = round;
    silt_status rc = SILT_OK;
    if (!discard) {
        rc = round_check(ctx, err);
        for (size_t c = 0; rc == SILT_OK && c < ctx->n; c++)
            rc = json_infer_merge(p->total, &ctx->jobs[c].infer, err);
        if (rc == SILT_OK)
            rc = keep_speculated(p->scan, ctx->jobs, ctx->n, err);
    }
    round_free(ctx);
    return rc;
}

static const text_round_ops infer_ops = {infer_begin, run_chunk, infer_end};

static silt_status infer_schema(json_scan *s, silt_error *err)
{
    arena *tmp = arena_new(NULL, "json schema inference");
    json_infer total;
    silt_status rc;
    int total_ready = 0;
    if (tmp == NULL)
        return err_nomem(err);
    rc = json_infer_init(&total, tmp, &s->opts, err);
    total_ready = rc == SILT_OK;
    infer_pass pass = {s, &total};
    if (rc == SILT_OK)
        rc = text_reader_pass(s->reader, s->opts.pool, round_size(s) * 2, &infer_ops, &pass, err);
    text_reader_rewind(s->reader);
    if (rc == SILT_OK)
        rc = json_infer_schema(&total, s->arena, &s->schema, err);
    if (rc == SILT_OK)
        rc = text_spec_settle(s->spec, s->schema, &s->queue, s->reader, err);
    if (rc != SILT_OK)
        text_spec_clear(s->spec);
    if (total_ready)
        json_infer_clear(&total);
    arena_free(tmp);
    return rc;
}

static silt_status bind_schema(json_scan *s, silt_error *err)
{
    s->corrupt_idx = -1;
    for (size_t idx = 0; idx < s->schema->n_fields; idx++) {
        const col_field *f = &s->schema->fields[idx];
        if (strcmp(f->name, s->opts.corrupt_column) == 0 && f->type->id == COL_STRING &&
            s->opts.mode == TEXT_MODE_PERMISSIVE)
            s->corrupt_idx = (int64_t)idx;
        SILT_RETURN_IF_ERROR(
            hashmap_put(&s->top_fields, f->name, strlen(f->name), (void *)(uintptr_t)(idx + 1),
                        NULL, err));
    }
    return SILT_OK;
}

/* Options left zero (or out of range) by a caller that did not call json_options_init. */
static void default_options(json_options *o)
{
    if (o->chunk_bytes == 0)
        o->chunk_bytes = JSON_DEFAULT_CHUNK_BYTES;
    if (o->max_depth == 0)
        o->max_depth = JSON_DEFAULT_MAX_DEPTH;
    if (!(o->sampling_ratio > 0 && o->sampling_ratio <= 1))
        o->sampling_ratio = 1.0;
}

silt_status json_scan_open(json_scan **out, io_store *store, const char *const *keys, size_t n,
                           const json_options *opts, silt_error *err)
{
    json_scan *s = mem_calloc(1, sizeof(*s));
    silt_status rc = SILT_OK;
    if (s == NULL)
        return err_nomem(err);
    s->store = store;
    s->opts = *opts;
    if (s->opts.batch_rows <= 0)
        s->opts.batch_rows = JSON_DEFAULT_BATCH_ROWS;
    default_options(&s->opts);
    s->arena = arena_new(NULL, "json scan");
    if (s->arena == NULL)
        rc = err_nomem(err);
    if (rc == SILT_OK) {
        s->opts.corrupt_column =
            arena_strdup(s->arena, opts->corrupt_column ? opts->corrupt_column : "_corrupt_record");
        s->keys = arena_calloc(s->arena, n ? n : 1, sizeof(char *));
        s->n_keys = n;
        if (s->opts.corrupt_column == NULL || s->keys == NULL)
            rc = err_nomem(err);
        for (size_t idx = 0; rc == SILT_OK && idx < n; idx++)
            if ((s->keys[idx] = arena_strdup(s->arena, keys[idx])) == NULL)
                rc = err_nomem(err);
        if (rc == SILT_OK)
            rc = text_reader_new(&s->reader, store, (const char *const *)s->keys, n, "JSON",
                                 split_object, s, s->opts.multi_line ? 0 : s->opts.window_bytes,
                                 err);
        if (rc == SILT_OK && (s->spec = mem_calloc(1, sizeof(text_spec))) == NULL)
            rc = err_nomem(err);
    }
    /* Only compiled forms are kept: the option strings may die with the caller's arena. */
    s->opts.timestamp_format = NULL;
    s->opts.date_format = NULL;
    if (rc == SILT_OK && opts->timestamp_format != NULL)
        rc = text_dt_compile(opts->timestamp_format, s->arena, &s->ts_pattern, err);
    if (rc == SILT_OK && opts->date_format != NULL)
        rc = text_dt_compile(opts->date_format, s->arena, &s->date_pattern, err);
    if (rc == SILT_OK) {
        if (opts->schema != NULL) {
            if (opts->schema->id != COL_STRUCT)
                rc = err_set(err, SILT_INVALID, "a JSON schema must be a struct type");
            s->schema = opts->schema;
        } else {
            s->speculate = 1;
            rc = infer_schema(s, err);
        }
    }
    if (rc == SILT_OK)
        rc = bind_schema(s, err);
    if (rc != SILT_OK) {
        json_scan_free(s);
        return rc;
    }
    *out = s;
    return SILT_OK;
}

const col_type *json_scan_schema(const json_scan *scan) { return scan->schema; }

/* Parses a round of chunks and queues their batches (text_round_fn). */
static silt_status parse_round(void *payload, const text_chunk *chunks, size_t n,
                               text_batch_queue *q, silt_error *err)
{
    json_scan *s = payload;
    round_ctx *ctx = NULL;
    silt_status rc = run_round(s, chunks, n, 0, &ctx, err);
    for (size_t idx = 0; idx < n && rc == SILT_OK; idx++)
        rc = text_batch_queue_append(q, &ctx->jobs[idx].batches, err);
    round_free(ctx);
    return rc;
}

silt_status json_scan_next(json_scan *s, arena *a, col_batch *out, silt_error *err)
{
    return text_batch_queue_next(&s->queue, s->reader, round_size(s), parse_round, s, s->schema,
                                 a, out, err);
}

void json_scan_free(json_scan *s)
{
    if (s == NULL)
        return;
    text_batch_queue_clear(&s->queue);
    if (s->spec != NULL)
        text_spec_clear(s->spec);
    mem_free(s->spec);
    free_workers(s);
    text_reader_free(s->reader);
    hashmap_clear(&s->top_fields);
    arena_free(s->arena);
    mem_free(s);
}

silt_status json_infer_text(const char *data, size_t len, const json_options *opts, arena *a,
                            const col_type **schema_out, silt_error *err)
{
    json_scan *s = mem_calloc(1, sizeof(*s));
    static const char *const no_key[] = {"(memory)"};
    silt_status rc = SILT_OK;
    if (s == NULL)
        return err_nomem(err);
    s->arena = a;
    s->opts = *opts;
    default_options(&s->opts);
    if (s->opts.corrupt_column == NULL)
        s->opts.corrupt_column = "_corrupt_record";
    rc = text_reader_new(&s->reader, NULL, no_key, 1, "JSON", split_object, s, 0, err);
    if (rc == SILT_OK && (s->spec = mem_calloc(1, sizeof(text_spec))) == NULL)
        rc = err_nomem(err);
    if (rc == SILT_OK && opts->timestamp_format != NULL)
        rc = text_dt_compile(opts->timestamp_format, a, &s->ts_pattern, err);
    if (rc == SILT_OK)
        rc = text_reader_add_text(s->reader, no_key[0], data, len, err);
    if (rc == SILT_OK)
        rc = infer_schema(s, err);
    if (rc == SILT_OK)
        *schema_out = s->schema;
    text_reader_free(s->reader);
    if (s->spec != NULL)
        text_spec_clear(s->spec);
    mem_free(s->spec);
    free_workers(s);
    mem_free(s);
    return rc;
}

silt_status json_scan_open_keys(json_scan **out, io_store *store, const char *const *keys,
                               size_t n_keys, const char *const *kv, size_t n_kv,
                               const col_type *schema, tpool *pool, silt_error *err)
{
    arena *tmp = arena_new(NULL, "json options");
    json_options opts;
    silt_status rc = SILT_OK;
    if (tmp == NULL)
        return err_nomem(err);
    json_options_init(&opts);
    for (size_t idx = 0; rc == SILT_OK && idx < n_kv; idx++)
        rc = json_options_set(&opts, tmp, kv[2 * idx], kv[2 * idx + 1], err);
    opts.schema = schema;
    opts.pool = pool;
    /* The scan copies the keys and every option string it keeps. */
    if (rc == SILT_OK)
        rc = json_scan_open(out, store, keys, n_keys, &opts, err);
    arena_free(tmp);
    return rc;
}

silt_status json_scan_open_path(json_scan **out, io_store *store, const char *path,
                               const char *const *kv, size_t n_kv, const col_type *schema,
                               tpool *pool, silt_error *err)
{
    arena *tmp = arena_new(NULL, "json keys");
    char **keys = NULL;
    size_t n_keys = 0;
    silt_status rc;
    if (tmp == NULL)
        return err_nomem(err);
    rc = text_resolve_path(store, path, tmp, &keys, &n_keys, err);
    if (rc == SILT_OK)
        rc = json_scan_open_keys(out, store, (const char *const *)keys, n_keys, kv, n_kv, schema,
                                 pool, err);
    arena_free(tmp);
    return rc;
}

size_t json_scan_batch_key(const json_scan *s) { return s->queue.last_key_idx; }
