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

silt_status text_parse_mode(const char *key, const char *value, text_mode *out, silt_error *err)
{
    if (str_casecmp(value, "PERMISSIVE") == 0)
        *out = TEXT_MODE_PERMISSIVE;
    else if (str_casecmp(value, "DROPMALFORMED") == 0)
        *out = TEXT_MODE_DROPMALFORMED;
    else if (str_casecmp(value, "FAILFAST") == 0)
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
    if (str_casecmp(value, "true") == 0)
        *out = 1;
    else if (str_casecmp(value, "false") == 0)
        *out = 0;
    else
        return err_set(err, SILT_INVALID, "option \"%s\" must be true or false, not \"%s\"", key,
                       value);
    return SILT_OK;
}

silt_status text_parse_int(const char *key, const char *value, int64_t *out, silt_error *err)
{
    int64_t parsed;
    if (!str_to_int64(value, strlen(value), &parsed) || parsed < 0)
        return err_set(err, SILT_INVALID, "option \"%s\" must be a non-negative integer, not \"%s\"",
                       key, value);
    *out = parsed;
    return SILT_OK;
}

silt_status text_parse_ratio(const char *key, const char *value, double *out, silt_error *err)
{
    double parsed;
    if (!str_to_double(value, strlen(value), &parsed) || !(parsed > 0.0 && parsed <= 1.0))
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
    while (si < s_len) {
        if (pi < p_len && p[pi] == '*') {
            star_p = pi++;
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
        if (star_p != (size_t)-1 && s[star_s] != '/') {
            pi = star_p + 1;
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
    rc = io_list(store, prefix, NULL, depth > 0, &listing, err);
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

size_t text_bom_len(const char *data, size_t len)
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
    uint64_t h = hash_u64(key_hash ^ (index * UINT64_C(0x9E3779B97F4A7C15)));
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
        if (pos == len || len - pos > 10 || !str_to_int64(s + pos, len - pos, &exp_value))
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

