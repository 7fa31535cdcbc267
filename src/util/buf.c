/*
 * buf.c - growable byte buffers with a size limit, and string helpers.
 */
#include "util/buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

void buf_init(buf *b, size_t limit)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->limit = limit;
}

void buf_clear(buf *b)
{
    if (b == NULL)
        return;
    mem_free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void buf_truncate(buf *b, size_t len)
{
    if (len < b->len) {
        b->len = len;
        b->data[len] = '\0';
    }
}

silt_status buf_reserve(buf *b, size_t extra, silt_error *err)
{
    size_t limit = b->limit ? b->limit : BUF_DEFAULT_LIMIT;
    size_t need, cap;
    char *fresh;
    if (extra > limit || b->len > limit - extra)
        return err_set(err, SILT_NOMEM, "buffer would grow past its limit of %zu bytes", limit);
    need = b->len + extra + 1;
    if (need <= b->cap)
        return SILT_OK;
    cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    fresh = mem_realloc(b->data, cap);
    if (fresh == NULL)
        return err_nomem(err);
    b->data = fresh;
    b->cap = cap;
    return SILT_OK;
}

silt_status buf_append(buf *b, const void *data, size_t len, silt_error *err)
{
    SILT_RETURN_IF_ERROR(buf_reserve(b, len, err));
    if (len > 0)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return SILT_OK;
}

silt_status buf_append_str(buf *b, const char *s, silt_error *err)
{
    return buf_append(b, s, strlen(s), err);
}

silt_status buf_append_char(buf *b, char c, silt_error *err) { return buf_append(b, &c, 1, err); }

silt_status buf_vprintf(buf *b, silt_error *err, const char *fmt, va_list ap)
{
    va_list copy;
    int len;
    va_copy(copy, ap);
    len = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (len < 0)
        return err_set(err, SILT_INVALID, "could not format text");
    SILT_RETURN_IF_ERROR(buf_reserve(b, (size_t)len, err));
    vsnprintf(b->data + b->len, (size_t)len + 1, fmt, ap);
    b->len += (size_t)len;
    return SILT_OK;
}

silt_status buf_printf(buf *b, silt_error *err, const char *fmt, ...)
{
    va_list ap;
    silt_status rc;
    va_start(ap, fmt);
    rc = buf_vprintf(b, err, fmt, ap);
    va_end(ap);
    return rc;
}

char *buf_detach(buf *b, size_t *len_out)
{
    char *data = b->data;
    if (len_out != NULL)
        *len_out = b->len;
    if (data == NULL)
        data = mem_strdup("");
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    return data;
}

const char *buf_cstr(const buf *b) { return b->data ? b->data : ""; }

int util_str_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

int util_str_ends_with(const char *s, const char *suffix)
{
    size_t s_len = strlen(s), suffix_len = strlen(suffix);
    return s_len >= suffix_len && memcmp(s + s_len - suffix_len, suffix, suffix_len) == 0;
}

static int ascii_lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

int util_str_ncasecmp(const char *a, const char *b, size_t n)
{
    size_t idx;
    for (idx = 0; idx < n; idx++) {
        int ca = ascii_lower((unsigned char)a[idx]);
        int cb = ascii_lower((unsigned char)b[idx]);
        if (ca != cb || ca == 0)
            return ca - cb;
    }
    return 0;
}

int util_str_casecmp(const char *a, const char *b) { return util_str_ncasecmp(a, b, SIZE_MAX); }

void util_str_ascii_lower(char *s, size_t len)
{
    size_t pos;
    for (pos = 0; pos < len; pos++)
        if (s[pos] >= 'A' && s[pos] <= 'Z')
            s[pos] = (char)(s[pos] - 'A' + 'a');
}

int util_str_to_int64(const char *s, size_t len, int64_t *out)
{
    size_t pos = 0;
    int negative = 0;
    uint64_t value = 0;
    uint64_t bound;
    if (len == 0)
        return 0;
    if (s[0] == '-' || s[0] == '+') {
        negative = s[0] == '-';
        pos = 1;
    }
    if (pos == len)
        return 0;
    bound = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; pos < len; pos++) {
        unsigned digit;
        if (s[pos] < '0' || s[pos] > '9')
            return 0;
        digit = (unsigned)(s[pos] - '0');
        if (value > (bound - digit) / 10)
            return 0;
        value = value * 10 + digit;
    }
    *out = negative ? (int64_t)(0 - value) : (int64_t)value;
    return 1;
}

int util_str_to_double(const char *s, size_t len, double *out)
{
    char tmp[128];
    char *end;
    double value;
    if (len == 0 || len >= sizeof(tmp))
        return 0;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    errno = 0;
    value = strtod(tmp, &end);
    if (end != tmp + len)
        return 0;
    *out = value;
    return 1;
}
