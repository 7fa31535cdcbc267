/*
 * buf.h - growable byte buffers and string building.
 *
 * A buf owns heap memory (mem_alloc) and always keeps a NUL after its
 * contents so it can be used as a C string. Every buffer has a maximum size
 * (`limit`, 0 = BUF_DEFAULT_LIMIT): input that would grow it further is
 * refused with SILT_NOMEM instead of eating the machine.
 */
#ifndef SILT_UTIL_BUF_H
#define SILT_UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define BUF_DEFAULT_LIMIT ((size_t)1 << 34) /* 16 GiB: only a guard */

typedef struct buf {
    char *data;
    size_t len;
    size_t cap;
    size_t limit;
} buf;

#define BUF_INIT {NULL, 0, 0, 0}

void buf_init(buf *b, size_t limit);
void buf_clear(buf *b);      /* frees the memory */
void buf_truncate(buf *b, size_t len);
/* Makes room for `extra` more bytes. */
silt_status buf_reserve(buf *b, size_t extra, silt_error *err);
silt_status buf_append(buf *b, const void *data, size_t len, silt_error *err);
silt_status buf_append_str(buf *b, const char *s, silt_error *err);
silt_status buf_append_char(buf *b, char c, silt_error *err);
silt_status buf_printf(buf *b, silt_error *err, const char *fmt, ...) SILT_PRINTF(3, 4);
silt_status buf_vprintf(buf *b, silt_error *err, const char *fmt, va_list ap);
/* Hands the contents to the caller (free with mem_free) and empties b. */
char *buf_detach(buf *b, size_t *len_out);
/* Contents as a C string; "" when empty. Borrowed until the next change. */
const char *buf_cstr(const buf *b);

/* Small string helpers. */
int util_str_starts_with(const char *s, const char *prefix);
int util_str_ends_with(const char *s, const char *suffix);
int util_str_casecmp(const char *a, const char *b);      /* ASCII case-insensitive */
int util_str_ncasecmp(const char *a, const char *b, size_t n);
/* Folds A-Z in s[0..len) to a-z in place (ASCII only, as Spark's name matching). */
void util_str_ascii_lower(char *s, size_t len);
/* Parses a whole string as a base-10 int64; 0 on any junk or overflow. */
int util_str_to_int64(const char *s, size_t len, int64_t *out);
/* Parses a whole string as a double (strtod rules, locale-independent "C"). */
int util_str_to_double(const char *s, size_t len, double *out);
/*
 * Only the common shape [+-]digits[.digits][e[+-]digits] with at most 15
 * significant digits and a decimal exponent within +-22, which has one
 * correctly rounded value in every language: 1 and *out, else 0 (the text
 * may still be a number in some other grammar).
 */
int util_str_to_double_fast(const char *s, size_t len, double *out);

#endif
