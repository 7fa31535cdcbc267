/*
 * text_source.c - option values, glob matching and path resolution shared
 * by the CSV and JSON readers (see text_source.h).
 *
 * Listing goes through io_store only, so the same code serves local folders
 * and object stores. A glob is resolved by listing below the longest prefix
 * without wildcards and matching every segment of the remaining key.
 */
#include "formats/text/text_source.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/hashmap.h"
#include "util/mem.h"

/* Parses a whole non-negative integer option. */
static silt_status text_parse_int(const char *key, const char *value, int64_t *out,
                                  silt_error *err);

/* 1-based line of a byte offset of an object (counts '\n'; for messages). */
static int64_t text_line_of(const char *data, size_t offset);

/* Length of a UTF-8 byte order mark at the start of data (0 or 3). */
static size_t text_bom_len(const char *data, size_t len);

silt_status text_parse_mode(const char *key, const char *value, text_mode *out, silt_error *err)
{
    if (util_str_casecmp(value, "PERMISSIVE") == 0)
        *out = TEXT_MODE_PERMISSIVE;
    else if (util_str_casecmp(value, "DROPMALFORMED") == 0)
        *out = TEXT_MODE_DROPMALFORMED;
    else if (util_str_casecmp(value, "FAILFAST") == 0)
        *out = TEXT_MODE_FAILFAST;
    else {
        err_set(err, SILT_INVALID, "option \"%s\" does not accept \"%s\"", key, value);
        err_hint(err, "use PERMISSIVE, DROPMALFORMED or FAILFAST");
        return SILT_INVALID;
    }
    return SILT_OK;
}

silt_status text_parse_bool(const char *key, const char *value, int *out, silt_error *err)
{
    if (util_str_casecmp(value, "true") == 0)
        *out = 1;
    else if (util_str_casecmp(value, "false") == 0)
        *out = 0;
    else
        return err_set(err, SILT_INVALID, "option \"%s\" must be true or false, not \"%s\"", key,
                       value);
    return SILT_OK;
}

static silt_status text_parse_int(const char *key, const char *value, int64_t *out, silt_error *err)
{
    int64_t parsed;
    if (!util_str_to_int64(value, strlen(value), &parsed) || parsed < 0)
        return err_set(err, SILT_INVALID, "option \"%s\" must be a non-negative integer, not \"%s\"",
                       key, value);
    *out = parsed;
    return SILT_OK;
}

silt_status text_parse_int_in(const char *key, const char *value, const char *name, int64_t min,
                              int64_t max, int64_t *out, silt_error *err)
{
    int64_t number = 0;
    SILT_RETURN_IF_ERROR(text_parse_int(key, value, &number, err));
    if (number < min || number > max)
        return err_set(err, SILT_INVALID, "option \"%s\" must be in %lld..%lld", name,
                       (long long)min, (long long)max);
    *out = number;
    return SILT_OK;
}

silt_status text_parse_ratio(const char *key, const char *value, double *out, silt_error *err)
{
    double parsed;
    if (!util_str_to_double(value, strlen(value), &parsed) || !(parsed > 0.0 && parsed <= 1.0))
        return err_set(err, SILT_INVALID, "option \"%s\" must be a number in (0, 1], not \"%s\"",
                       key, value);
    *out = parsed;
    return SILT_OK;
}

/* Matches one bracket expression at p; returns its length, 0 when malformed. */
static size_t match_class(const char *p, size_t p_len, char c, int *matched)
{
    size_t pos = 1;
    int negate = 0, hit = 0;
    if (pos < p_len && (p[pos] == '!' || p[pos] == '^')) {
        negate = 1;
        pos++;
    }
    for (size_t first = pos; pos < p_len && (p[pos] != ']' || pos == first); pos++) {
        if (pos + 2 < p_len && p[pos + 1] == '-' && p[pos + 2] != ']') {
            if ((unsigned char)c >= (unsigned char)p[pos] &&
                (unsigned char)c <= (unsigned char)p[pos + 2])
                hit = 1;
            pos += 2;
        } else if (p[pos] == c) {
            hit = 1;
        }
    }
    if (pos >= p_len)
        return 0;
    *matched = hit != negate;
    return pos + 1;
}

int text_glob_match(const char *p, size_t p_len, const char *s, size_t s_len)
{
    /* Iterative matcher with one backtrack point for the last '*': linear
     * in practice, never exponential on hostile patterns. */
    size_t pi = 0, si = 0, star_p = (size_t)-1, star_s = 0;
    int star_cross = 0; /* the star is '**', which also matches '/' (Synapse's folder/ and two stars) */
    while (si < s_len) {
        if (pi < p_len && p[pi] == '*') {
            star_cross = pi + 1 < p_len && p[pi + 1] == '*';
            star_p = pi;
            pi += star_cross ? 2 : 1;
            star_s = si;
            continue;
        }
        if (pi < p_len && s[si] != '/') {
            int matched = 0;
            size_t step = 1;
            if (p[pi] == '?')
                matched = 1;
            else if (p[pi] == '[' && (step = match_class(p + pi, p_len - pi, s[si], &matched)) > 0)
                ;
            else {
                step = 1;
                matched = p[pi] == s[si];
            }
            if (matched) {
                pi += step;
                si++;
                continue;
            }
        } else if (pi < p_len && p[pi] == '/' && s[si] == '/') {
            pi++;
            si++;
            continue;
        }
        if (star_p != (size_t)-1 && (star_cross || s[star_s] != '/')) {
            pi = star_p + (star_cross ? 2 : 1);
            si = ++star_s;
            continue;
        }
        return 0;
    }
    while (pi < p_len && p[pi] == '*')
        pi++;
    return pi == p_len;
}

static int has_wildcard(const char *s, size_t len)
{
    for (size_t idx = 0; idx < len; idx++)
        if (s[idx] == '*' || s[idx] == '?' || s[idx] == '[')
            return 1;
    return 0;
}

/* Spark's file index hides names beginning with '_' or '.' (_SUCCESS, .crc). */
static int is_hidden_segment_in(const char *key, size_t from)
{
    size_t pos = from;
    while (pos < strlen(key)) {
        if (key[pos] == '_' || key[pos] == '.')
            return 1;
        const char *slash = strchr(key + pos, '/');
        if (slash == NULL)
            break;
        pos = (size_t)(slash - key) + 1;
    }
    return 0;
}

static int cmp_keys(const void *left, const void *right)
{
    return strcmp(*(const char *const *)left, *(const char *const *)right);
}

static silt_status add_key(arena *a, char ***keys, size_t *n, size_t *cap, const char *key,
                           silt_error *err)
{
    if (*n == *cap) {
        size_t new_cap = *cap ? *cap * 2 : 16;
        char **grown = arena_realloc(a, *keys, *cap * sizeof(char *), new_cap * sizeof(char *));
        if (grown == NULL)
            return err_nomem(err);
        *keys = grown;
        *cap = new_cap;
    }
    (*keys)[*n] = arena_strdup(a, key);
    if ((*keys)[*n] == NULL)
        return err_nomem(err);
    (*n)++;
    return SILT_OK;
}

/* Lists below the wildcard-free folder of a glob and keeps the matches. */
static silt_status resolve_glob(io_store *store, const char *path, arena *a, char ***keys,
                                size_t *n, size_t *cap, silt_error *err)
{
    io_listing listing = IO_LISTING_INIT;
    size_t path_len = strlen(path), base_len = 0, depth = 0;
    silt_status rc;
    for (size_t idx = 0; idx < path_len && !has_wildcard(path, idx + 1); idx++)
        if (path[idx] == '/')
            base_len = idx + 1;
    for (size_t idx = base_len; idx < path_len; idx++)
        depth += path[idx] == '/';
    char *prefix = arena_strndup(a, path, base_len);
    if (prefix == NULL)
        return err_nomem(err);
    rc = io_list(store, prefix, NULL, depth > 0 || strstr(path + base_len, "**") != NULL,
                 &listing, err);
    for (size_t idx = 0; rc == SILT_OK && idx < listing.count; idx++) {
        const char *key = listing.items[idx].key;
        if (is_hidden_segment_in(key, base_len))
            continue;
        if (text_glob_match(path, path_len, key, strlen(key)))
            rc = add_key(a, keys, n, cap, key, err);
    }
    io_listing_clear(&listing);
    return rc;
}

silt_status text_resolve_path(io_store *store, const char *path, arena *a, char ***keys_out,
                              size_t *n_out, silt_error *err)
{
    io_listing listing = IO_LISTING_INIT;
    io_object_info info = {0};
    char **keys = NULL;
    size_t n = 0, cap = 0;
    silt_status rc = SILT_OK;
    size_t path_len = strlen(path);
    while (path_len > 0 && path[path_len - 1] == '/')
        path_len--;
    char *clean = arena_strndup(a, path, path_len);
    if (clean == NULL)
        return err_nomem(err);
    if (has_wildcard(clean, path_len)) {
        rc = resolve_glob(store, clean, a, &keys, &n, &cap, err);
    } else if (path_len > 0 && io_head(store, clean, &info, NULL) == SILT_OK) {
        rc = add_key(a, &keys, &n, &cap, clean, err);
    } else {
        char *prefix = path_len ? arena_sprintf(a, "%s/", clean) : arena_strdup(a, "");
        if (prefix == NULL)
            return err_nomem(err);
        rc = io_list(store, prefix, NULL, 0, &listing, err);
        for (size_t idx = 0; rc == SILT_OK && idx < listing.count; idx++)
            if (!is_hidden_segment_in(listing.items[idx].key, strlen(prefix)))
                rc = add_key(a, &keys, &n, &cap, listing.items[idx].key, err);
    }
    io_listing_clear(&listing);
    io_object_info_clear(&info);
    if (rc == SILT_OK && n == 0)
        rc = err_set(err, SILT_NOTFOUND, "path \"%s\" matches no files", path);
    if (rc != SILT_OK)
        return rc;
    qsort(keys, n, sizeof(char *), cmp_keys);
    *keys_out = keys;
    *n_out = n;
    return SILT_OK;
}

static size_t text_bom_len(const char *data, size_t len)
{
    if (len >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF)
        return 3;
    return 0;
}

int text_sample_keep(uint64_t key_hash, uint64_t index, double ratio)
{
    if (ratio >= 1.0)
        return 1;
    uint64_t h = util_hash_u64(key_hash ^ (index * UINT64_C(0x9E3779B97F4A7C15)));
    return (double)(h >> 11) * (1.0 / 9007199254740992.0) < ratio;
}

/*
 * Reads BigDecimal text: unscaled digits (leading zeros dropped) and scale.
 * Returns 0 when the text is not a BigDecimal.
 */


int text_big_decimal_parse(const char *s, size_t len, text_big_decimal *out)
{
    size_t pos = 0;
    int64_t exponent = 0;
    memset(out, 0, sizeof(*out));
    if (pos < len && (s[pos] == '+' || s[pos] == '-'))
        out->negative = s[pos++] == '-';
    out->digits[0] = s + pos;
    while (pos < len && isdigit((unsigned char)s[pos]))
        pos++, out->n_digits[0]++;
    if (pos < len && s[pos] == '.') {
        pos++;
        out->digits[1] = s + pos;
        while (pos < len && isdigit((unsigned char)s[pos]))
            pos++, out->n_digits[1]++;
    }
    if (out->n_digits[0] + out->n_digits[1] == 0)
        return 0;
    if (pos < len && (s[pos] == 'e' || s[pos] == 'E')) {
        int64_t exp_value;
        pos++;
        if (pos == len || len - pos > 10 || !util_str_to_int64(s + pos, len - pos, &exp_value))
            return 0;
        exponent = exp_value;
        pos = len;
    }
    if (pos != len)
        return 0;
    out->scale = (int64_t)out->n_digits[1] - exponent;
    /* precision: digits of the unscaled value without leading zeros */
    size_t total = out->n_digits[0] + out->n_digits[1], lead = 0;
    for (size_t idx = 0; idx < total; idx++) {
        char c = idx < out->n_digits[0] ? out->digits[0][idx]
                                         : out->digits[1][idx - out->n_digits[0]];
        if (c != '0')
            break;
        lead++;
    }
    out->precision = (int32_t)(total - lead == 0 ? 1 : (total - lead > 1000 ? 1000 : total - lead));
    return 1;
}

int text_parse_decimal(const char *s, size_t len, int32_t precision, int32_t scale, col_int128 *out)
{
    text_big_decimal d;
    col_int128 value = 0, limit = 1;
    int round_up = 0;
    if (!text_big_decimal_parse(s, len, &d) || d.scale > 10000 || d.scale < -10000)
        return 0;
    for (int32_t idx = 0; idx < precision; idx++)
        limit *= 10;
    /* Digits of the value at the target scale: all digits, shifted by
     * (scale - d.scale) places; dropped digits round half up. */
    int64_t shift = (int64_t)scale - d.scale;
    size_t total = d.n_digits[0] + d.n_digits[1];
    int64_t keep = (int64_t)total + (shift < 0 ? shift : 0);
    for (int64_t idx = 0; idx < (int64_t)total; idx++) {
        char c = (size_t)idx < d.n_digits[0] ? d.digits[0][idx]
                                              : d.digits[1][(size_t)idx - d.n_digits[0]];
        if (idx < keep) {
            value = value * 10 + (c - '0');
            if (value >= limit)
                return 0;
        } else {
            if (idx == keep)
                round_up = c >= '5';
            break;
        }
    }
    for (int64_t idx = 0; idx < shift; idx++) {
        value *= 10;
        if (value >= limit)
            return 0;
    }
    if (round_up && ++value >= limit)
        return 0;
    *out = d.negative ? -value : value;
    return 1;
}


void text_reader_init(text_reader *r, io_store *store, const char *const *keys, size_t n_keys,
                      const char *what, text_split_fn split, void *payload, size_t window_bytes)
{
    memset(r, 0, sizeof(*r));
    r->store = store;
    r->keys = keys;
    r->n_keys = n_keys;
    r->what = what;
    r->split = split;
    r->split_payload = payload;
    r->window_bytes = window_bytes;
    buf_init(&r->carry, 0);
    buf_init(&r->spare[0], 0);
    buf_init(&r->spare[1], 0);
    err_clear(&r->ahead_err);
}

silt_status text_reader_new(text_reader **out, io_store *store, const char *const *keys,
                            size_t n_keys, const char *what, text_split_fn split, void *payload,
                            size_t window_bytes, silt_error *err)
{
    text_reader *r = mem_alloc(sizeof(*r));
    if (r == NULL)
        return err_nomem(err);
    text_reader_init(r, store, keys, n_keys, what, split, payload, window_bytes);
    *out = r;
    return SILT_OK;
}

void text_reader_free(text_reader *r)
{
    if (r == NULL)
        return;
    text_reader_clear(r);
    mem_free(r);
}

static void object_free(text_object *obj)
{
    if (obj == NULL)
        return;
    buf_clear(&obj->raw);
    mem_free(obj->bounds);
    mem_free(obj);
}

/*
 * Frees a window but keeps its buffer as one of the reader's two spares
 * (the smaller one makes room): the next window reads into memory that is
 * already mapped. A fresh 64 MiB buffer per window cost a page fault (and
 * a zeroed page) per 4 KiB, a third of a CSV ingest's system time, twice
 * over when inferSchema reads the file twice. Two, because a window is
 * read ahead while the one before it is parsed.
 */
static void object_recycle(text_reader *r, text_object *obj)
{
    if (obj == NULL)
        return;
    buf *slot = r->spare[0].cap <= r->spare[1].cap ? &r->spare[0] : &r->spare[1];
    if (obj->raw.cap > slot->cap) {
        buf_clear(slot);
        *slot = obj->raw;
        buf_truncate(slot, 0);
        buf_init(&obj->raw, 0);
    }
    object_free(obj);
}

/* The fullest spare buffer, empty (or a fresh one). */
static buf take_spare(text_reader *r)
{
    buf *slot = r->spare[0].cap >= r->spare[1].cap ? &r->spare[0] : &r->spare[1];
    buf out = *slot;
    buf_init(slot, 0);
    return out;
}

static void close_current(text_reader *r)
{
    io_file_close(r->file);
    r->file = NULL;
    r->file_pos = 0;
    r->line_base = 0;
    buf_clear(&r->carry);
}

void text_reader_clear(text_reader *r)
{
    for (size_t idx = 0; idx < r->n_objs; idx++)
        object_free(r->objs[idx]);
    mem_free(r->objs);
    r->objs = NULL;
    r->n_objs = r->cap_objs = 0;
    r->dropped = 0;
    close_current(r);
    buf_clear(&r->spare[0]);
    buf_clear(&r->spare[1]);
    r->ahead_rc = SILT_OK;
    err_clear(&r->ahead_err);
}

static int whole_first_object(const text_reader *r)
{
    return r->n_objs > 0 && r->objs[0]->key_idx == 0 && r->objs[0]->first_window &&
           r->objs[0]->last_window;
}

void text_reader_rewind(text_reader *r)
{
    r->ahead_rc = SILT_OK;
    err_clear(&r->ahead_err);
    /* Nothing freed yet: the windows loaded are the objects' first ones, in
     * order, and the reader stands right after them, so handing their
     * chunks out again is the same as reading them again (CSV reads the
     * header in the first window, then infers from the start). */
    if (!r->dropped) {
        for (size_t idx = 0; idx < r->n_objs; idx++)
            r->objs[idx]->next_chunk = 0;
        return;
    }
    /* Keeping a first object read whole spares reading a single file twice
     * (once to infer the schema, once to parse it). */
    size_t keep = whole_first_object(r) ? 1 : 0;
    for (size_t idx = keep; idx < r->n_objs; idx++)
        object_recycle(r, r->objs[idx]);
    r->n_objs = keep;
    if (keep)
        r->objs[0]->next_chunk = 0;
    close_current(r);
    r->next_key = keep;
    r->dropped = 0;
}

static silt_status push_object(text_reader *r, text_object *obj, silt_error *err)
{
    if (r->n_objs == r->cap_objs) {
        size_t cap = r->cap_objs ? r->cap_objs * 2 : 8;
        text_object **grown = mem_realloc(r->objs, cap * sizeof(text_object *));
        if (grown == NULL)
            return err_nomem(err);
        r->objs = grown;
        r->cap_objs = cap;
    }
    r->objs[r->n_objs++] = obj;
    return SILT_OK;
}

/* Sets data/len past a BOM (first window only) and runs the split. */
static silt_status split_window(text_reader *r, text_object *obj, silt_error *err)
{
    const char *raw = obj->raw.data ? obj->raw.data : "";
    size_t bom = obj->first_window ? text_bom_len(raw, obj->raw.len) : 0;
    obj->data = raw + bom;
    obj->len = obj->raw.len - bom;
    obj->eol = '\n';
    mem_free(obj->bounds);
    obj->bounds = NULL;
    obj->n_chunks = obj->next_chunk = 0;
    return r->split(obj, r->split_payload, err);
}

silt_status text_reader_add_text(text_reader *r, const char *key, const char *data, size_t len,
                                 silt_error *err)
{
    text_object *obj = mem_calloc(1, sizeof(*obj));
    silt_status rc;
    if (obj == NULL)
        return err_nomem(err);
    buf_init(&obj->raw, 0);
    obj->key = key;
    obj->key_idx = r->next_key;
    obj->first_window = obj->last_window = 1;
    rc = buf_append(&obj->raw, data, len, err);
    if (rc == SILT_OK)
        rc = split_window(r, obj, err);
    if (rc == SILT_OK)
        rc = push_object(r, obj, err);
    if (rc != SILT_OK) {
        object_free(obj);
        return rc;
    }
    r->next_key++;
    return SILT_OK;
}

static int64_t count_lines(const char *data, size_t len)
{
    int64_t n = 0;
    const char *p = data, *end = data + len;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        n++;
        p++;
    }
    return n;
}

/*
 * Windows of an object: the biggest is half of window_bytes, since one is
 * parsed while the next is read ahead, so the two stay within window_bytes
 * (and touch as many pages as one window of window_bytes did). The first
 * is an eighth of window_bytes, so parsing starts after a short read (a
 * 64 MiB first read kept the other threads idle for 50 ms); each next one
 * is twice the last. Both are at least 1 byte.
 */
static size_t max_window_bytes(size_t window_bytes)
{
    return window_bytes / 2 > 0 ? window_bytes / 2 : 1;
}

static size_t first_window_bytes(size_t window_bytes)
{
    return window_bytes / 8 > 0 ? window_bytes / 8 : 1;
}

/* Reads the next window of the current object (opening the next key first). */
static silt_status load_next(text_reader *r, silt_error *err)
{
    const char *key = r->keys[r->next_key];
    text_object *obj = NULL;
    silt_status rc = SILT_OK;
    if (r->file == NULL) {
        rc = io_file_open(r->store, key, &r->file, err);
        if (rc != SILT_OK)
            return err_context(err, "while reading %s file \"%s\"", r->what, key);
        r->file_pos = 0;
        r->line_base = 0;
        r->next_window = first_window_bytes(r->window_bytes);
        buf_truncate(&r->carry, 0);
    }
    obj = mem_calloc(1, sizeof(*obj));
    if (obj == NULL)
        return err_nomem(err);
    obj->raw = take_spare(r); /* empty, maybe with room from an earlier window */
    obj->key_idx = r->next_key;
    obj->key = key;
    obj->first_window = r->file_pos == 0;
    obj->offset = r->file_pos - (int64_t)r->carry.len;
    obj->line_base = r->line_base;
    rc = buf_append(&obj->raw, r->carry.data ? r->carry.data : "", r->carry.len, err);
    size_t want = r->window_bytes ? r->next_window : (size_t)(r->file->size - r->file_pos);
    for (;;) {
        int64_t left = r->file->size - r->file_pos;
        size_t n = (size_t)(left < (int64_t)want ? left : (int64_t)want);
        if (rc == SILT_OK)
            rc = buf_reserve(&obj->raw, n, err);
        if (rc == SILT_OK && n > 0)
            rc = io_file_read_at(r->file, r->file_pos, n, obj->raw.data + obj->raw.len, err);
        if (rc != SILT_OK)
            break;
        obj->raw.len += n;
        obj->raw.data[obj->raw.len] = '\0';
        r->file_pos += (int64_t)n;
        obj->last_window = r->file_pos >= r->file->size;
        rc = split_window(r, obj, err);
        if (rc != SILT_OK || obj->last_window || obj->n_chunks > 0)
            break;
        want *= 2; /* one record is longer than the window: read more */
    }
    if (rc != SILT_OK) {
        object_free(obj);
        return err_context(err, "while reading %s file \"%s\"", r->what, key);
    }
    obj->offset += (int64_t)(obj->data - (obj->raw.data ? obj->raw.data : obj->data));
    size_t used = obj->last_window ? obj->len : obj->bounds[obj->n_chunks];
    buf_truncate(&r->carry, 0);
    rc = buf_append(&r->carry, obj->data + used, obj->len - used, err);
    r->line_base += count_lines(obj->data, used);
    if (rc == SILT_OK)
        rc = push_object(r, obj, err);
    if (rc != SILT_OK) {
        object_free(obj);
        return rc;
    }
    if (obj->last_window) {
        close_current(r);
        r->next_key++;
    } else {
        size_t max = max_window_bytes(r->window_bytes);
        r->next_window = r->next_window < max / 2 ? r->next_window * 2 : max;
    }
    return SILT_OK;
}

/* Chunks of the loaded windows not taken yet. */
static size_t untaken_chunks(const text_reader *r)
{
    size_t n = 0;
    for (size_t idx = 0; idx < r->n_objs; idx++)
        n += r->objs[idx]->n_chunks - r->objs[idx]->next_chunk;
    return n;
}

/* Loads the next window, or returns the failure of the read ahead that tried. */
static silt_status load_or_fail(text_reader *r, silt_error *err)
{
    if (r->ahead_rc != SILT_OK) {
        err_copy(err, &r->ahead_err);
        return r->ahead_rc;
    }
    return load_next(r, err);
}

silt_status text_reader_take(text_reader *r, size_t max, text_chunk *out, size_t *n_out,
                             silt_error *err)
{
    size_t n = 0, obj_idx = 0;
    while (n < max) {
        while (obj_idx < r->n_objs && r->objs[obj_idx]->next_chunk >= r->objs[obj_idx]->n_chunks)
            obj_idx++;
        if (obj_idx == r->n_objs) {
            if (r->next_key >= r->n_keys || n > 0)
                break;
            SILT_RETURN_IF_ERROR(load_or_fail(r, err));
            continue;
        }
        text_object *obj = r->objs[obj_idx];
        out[n].obj = obj;
        out[n].idx = obj->next_chunk;
        out[n].start = obj->bounds[obj->next_chunk];
        out[n].end = obj->bounds[obj->next_chunk + 1];
        obj->next_chunk++;
        n++;
    }
    r->taken_bytes = 0;
    for (size_t idx = 0; idx < n; idx++)
        r->taken_bytes += out[idx].end - out[idx].start;
    *n_out = n;
    return SILT_OK;
}

/*
 * Reading is several times faster than parsing the same bytes, but not
 * free: reading ahead twice the bytes of the round being parsed keeps the
 * caller's read shorter than the round (a first round of 8 MiB that read
 * 48 MiB ahead left the worker idle), and lets rounds grow with the windows.
 */
static size_t ahead_budget(const text_reader *r)
{
    size_t floor = first_window_bytes(r->window_bytes);
    return r->taken_bytes * 2 > floor ? r->taken_bytes * 2 : floor;
}

void text_reader_read_ahead(text_reader *r, size_t want)
{
    size_t read = 0, budget = ahead_budget(r);
    while (r->ahead_rc == SILT_OK && r->next_key < r->n_keys && untaken_chunks(r) < want &&
           (r->window_bytes == 0 || read < budget)) {
        size_t before = r->n_objs;
        r->ahead_rc = load_next(r, &r->ahead_err);
        if (r->ahead_rc == SILT_OK && r->n_objs > before)
            read += r->objs[r->n_objs - 1]->raw.len;
    }
}

silt_status text_reader_run(text_reader *r, tpool *pool, size_t n_tasks, tpool_task_fn fn,
                            void *payload, size_t want, silt_error *err)
{
    tpool_async *job = NULL;
    SILT_RETURN_IF_ERROR(tpool_start(pool, n_tasks, fn, payload, &job, err));
    text_reader_read_ahead(r, want);
    return tpool_wait(job, err);
}

/* Frees the windows all taken before keep (the first window of a round in flight; NULL = all). */
static void release_before(text_reader *r, const text_object *keep)
{
    size_t kept = 0, idx = 0;
    for (; idx < r->n_objs && r->objs[idx] != keep; idx++) {
        text_object *obj = r->objs[idx];
        int keep_whole = idx == 0 && r->n_keys <= 1 && whole_first_object(r);
        if (obj->next_chunk >= obj->n_chunks && !keep_whole) {
            object_recycle(r, obj);
            r->dropped = 1;
        } else {
            r->objs[kept++] = obj;
        }
    }
    for (; idx < r->n_objs; idx++)
        r->objs[kept++] = r->objs[idx];
    r->n_objs = kept;
}

void text_reader_release(text_reader *r) { release_before(r, NULL); }

/* One round of a pass: its chunks' first window, the caller's state and its job. */
typedef struct pass_round {
    const text_object *first;
    void *state;
    tpool_async *job;
} pass_round;

/* Takes and starts the next round (none at the end: state NULL). */
static silt_status pass_start(text_reader *r, tpool *pool, size_t max, text_chunk *chunks,
                              const text_round_ops *ops, void *payload, pass_round *out,
                              silt_error *err)
{
    size_t n = 0;
    memset(out, 0, sizeof(*out));
    SILT_RETURN_IF_ERROR(text_reader_take(r, max, chunks, &n, err));
    if (n == 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(ops->begin(payload, chunks, n, &out->state, err));
    out->first = chunks[0].obj;
    return tpool_start(pool, n, ops->task, out->state, &out->job, err);
}

/* Waits for a round that failed or follows a failed one, and frees it. */
static void pass_discard(const text_round_ops *ops, void *payload, pass_round *round)
{
    silt_error ignored = SILT_ERROR_INIT;
    if (round->state == NULL)
        return;
    (void)tpool_wait(round->job, &ignored);
    (void)ops->end(payload, round->state, 1, &ignored);
    memset(round, 0, sizeof(*round));
}

silt_status text_reader_pass(text_reader *r, tpool *pool, size_t max_chunks,
                             const text_round_ops *ops, void *payload, silt_error *err)
{
    text_chunk *chunks = mem_calloc(max_chunks ? max_chunks : 1, sizeof(text_chunk));
    pass_round cur, next;
    silt_error next_err = SILT_ERROR_INIT, ignored = SILT_ERROR_INIT;
    silt_status rc;
    if (chunks == NULL)
        return err_nomem(err);
    rc = pass_start(r, pool, max_chunks, chunks, ops, payload, &cur, err);
    if (rc != SILT_OK)
        pass_discard(ops, payload, &cur);
    while (rc == SILT_OK && cur.state != NULL) {
        /* The pool parses cur meanwhile: read ahead, then queue the round after it. */
        text_reader_read_ahead(r, max_chunks);
        silt_status next_rc = pass_start(r, pool, max_chunks, chunks, ops, payload, &next,
                                         &next_err);
        rc = tpool_wait_helping(cur.job, next.job, err);
        if (rc == SILT_OK)
            rc = ops->end(payload, cur.state, 0, err);
        else
            (void)ops->end(payload, cur.state, 1, &ignored);
        /* a later round's failure counts only when cur went well (input order) */
        if (rc == SILT_OK && next_rc != SILT_OK) {
            err_copy(err, &next_err);
            rc = next_rc;
        }
        if (rc != SILT_OK)
            pass_discard(ops, payload, &next);
        release_before(r, next.state != NULL ? next.first : NULL);
        cur = next;
    }
    mem_free(chunks);
    return rc;
}

int64_t text_object_line(const text_object *obj, size_t offset)
{
    return obj->line_base + text_line_of(obj->data, offset);
}

size_t text_last_line_end(const char *data, size_t len)
{
    while (len > 0 && data[len - 1] != '\n')
        len--;
    return len;
}

static int64_t text_line_of(const char *data, size_t offset)
{
    int64_t line = 1;
    const char *p = data, *end = data + offset;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        line++;
        p++;
    }
    return line;
}

/* Length of the valid UTF-8 sequence at s[0] (1-4), or 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return len >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return len >= 3 && s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return len >= 4 && s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 &&
                       (s[3] & 0xC0) == 0x80
                   ? 4
                   : 0;
    }
    return 0;
}

int text_utf8_valid(const char *s, size_t len)
{
    size_t pos = 0;
    /* ASCII runs first (most text is ASCII), then the full check. */
    while (pos + 8 <= len) {
        uint64_t w;
        memcpy(&w, s + pos, 8);
        if (w & UINT64_C(0x8080808080808080))
            break;
        pos += 8;
    }
    while (pos < len && (unsigned char)s[pos] < 0x80)
        pos++;
    while (pos < len) {
        if (pos + 8 <= len) {
            uint64_t w;
            memcpy(&w, s + pos, 8);
            if ((w & UINT64_C(0x8080808080808080)) == 0) {
                pos += 8;
                continue;
            }
        }
        size_t n = utf8_seq((const unsigned char *)s + pos, len - pos);
        if (n == 0)
            return 0;
        pos += n;
    }
    return 1;
}

silt_status text_utf8_repair(const char *s, size_t len, buf *out, silt_error *err)
{
    size_t pos = 0, run = 0;
    while (pos < len) {
        size_t n = utf8_seq((const unsigned char *)s + pos, len - pos);
        if (n > 0) {
            pos += n;
            continue;
        }
        SILT_RETURN_IF_ERROR(buf_append(out, s + run, pos - run, err));
        SILT_RETURN_IF_ERROR(buf_append(out, "\xEF\xBF\xBD", 3, err));
        /* skip the maximal subpart: the lead byte and following continuation bytes */
        pos++;
        while (pos < len && ((unsigned char)s[pos] & 0xC0) == 0x80 &&
               utf8_seq((const unsigned char *)s + pos, len - pos) == 0)
            pos++;
        run = pos;
    }
    return buf_append(out, s + run, len - run, err);
}
