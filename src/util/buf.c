/*
 * buf.c - growable byte buffers with a size limit, and string helpers.
 */
#include "util/buf.h"

#include <errno.h>
#include <stdint.h>
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

static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/*
 * Reads up to 15 significant digits into *m, with *exp10 lowered once per
 * digit after a point; leading zeros are not significant. Returns the
 * position after the digits, or SIZE_MAX when there are too many digits.
 */
static size_t fast_digits(const char *s, size_t len, size_t i, int fraction, uint64_t *m,
                          int *n_sig, int *exp10, int *any)
{
    for (; i < len && is_digit(s[i]); i++) {
        *any = 1;
        if (fraction)
            (*exp10)--;
        if (*m == 0 && s[i] == '0')
            continue;
        if (++*n_sig > 15)
            return SIZE_MAX;
        *m = *m * 10 + (uint64_t)(s[i] - '0');
    }
    return i;
}

/*
 * Clinger's fast path: text [+-]digits[.digits][e[+-]digits] with at most
 * 15 significant digits and a decimal exponent within +-22 is m * 10^e (or
 * m / 10^-e) of two exact doubles, which one IEEE operation rounds
 * correctly, so the result is strtod's (and Java's Double.parseDouble's).
 * 0 means "not this shape": the caller asks strtod, which also decides
 * every error.
 */
int util_str_to_double_fast(const char *s, size_t len, double *out)
{
    size_t i = 0;
    uint64_t m = 0;
    int negative = 0, n_sig = 0, exp10 = 0, any = 0;
    double v;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        negative = s[i++] == '-';
    i = fast_digits(s, len, i, 0, &m, &n_sig, &exp10, &any);
    if (i != SIZE_MAX && i < len && s[i] == '.')
        i = fast_digits(s, len, i + 1, 1, &m, &n_sig, &exp10, &any);
    if (i == SIZE_MAX || !any)
        return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        int e_negative = 0, e = 0, e_digits = 0;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            e_negative = s[i++] == '-';
        for (; i < len && is_digit(s[i]) && e_digits < 4; i++, e_digits++)
            e = e * 10 + (s[i] - '0');
        if (e_digits == 0)
            return 0;
        exp10 += e_negative ? -e : e;
    }
    if (i != len)
        return 0;
    if (m == 0) {
        *out = negative ? -0.0 : 0.0;
        return 1;
    }
    if (exp10 < -22 || exp10 > 22)
        return 0;
    v = exp10 < 0 ? (double)m / exact_pow10[-exp10] : (double)m * exact_pow10[exp10];
    *out = negative ? -v : v;
    return 1;
}

int util_str_to_double(const char *s, size_t len, double *out)
{
    char tmp[128];
    char *end;
    double value;
    if (len == 0 || len >= sizeof(tmp))
        return 0;
    if (util_str_to_double_fast(s, len, out))
        return 1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    errno = 0;
    value = strtod(tmp, &end);
    if (end != tmp + len)
        return 0;
    *out = value;
    return 1;
}
