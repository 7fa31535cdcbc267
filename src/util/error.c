/*
 * error.c - the error object: fixed-size storage, message, detail, hint and
 * a context chain. See error.h for the conventions.
 */
#include "util/error.h"

#include <stdio.h>
#include <string.h>

static silt_status err_setv_at(silt_error *err, silt_status code, const char *src_file,
                               int src_line, const char *fmt, va_list ap);

void err_clear(silt_error *err)
{
    if (err == NULL)
        return;
    err->code = SILT_OK;
    err->message[0] = '\0';
    err->detail[0] = '\0';
    err->hint[0] = '\0';
    err->context[0] = '\0';
    err->src_file = NULL;
    err->src_line = 0;
    err->error_class[0] = '\0';
    err->offset = 0;
    err->line = 0;
    err->column = 0;
}

/* The class of a message written "[CLASS] ..." (letters, digits, '_' and '.'). */
static void take_class(silt_error *err)
{
    const char *m = err->message;
    size_t len = 0;
    if (m[0] != '[')
        return;
    while (len + 1 < sizeof(err->error_class) &&
           ((m[1 + len] >= 'A' && m[1 + len] <= 'Z') || (m[1 + len] >= '0' && m[1 + len] <= '9') ||
            m[1 + len] == '_' || m[1 + len] == '.'))
        len++;
    if (len == 0 || m[1 + len] != ']')
        return;
    memcpy(err->error_class, m + 1, len);
    err->error_class[len] = '\0';
}

void err_position(silt_error *err, int64_t offset, int line, int column)
{
    if (err == NULL || err->line > 0 || line <= 0)
        return;
    err->offset = offset;
    err->line = line;
    err->column = column;
}

static silt_status err_setv_at(silt_error *err, silt_status code, const char *src_file,
                               int src_line, const char *fmt, va_list ap)
{
    if (err == NULL)
        return code;
    err_clear(err);
    err->code = code;
    err->src_file = src_file;
    err->src_line = src_line;
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    take_class(err);
    return code;
}

silt_status err_set_at(silt_error *err, silt_status code, const char *src_file, int src_line,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_setv_at(err, code, src_file, src_line, fmt, ap);
    va_end(ap);
    return code;
}

silt_status err_nomem(silt_error *err)
{
    if (err == NULL)
        return SILT_NOMEM;
    err_clear(err);
    err->code = SILT_NOMEM;
    memcpy(err->message, "out of memory", sizeof("out of memory"));
    return SILT_NOMEM;
}

void err_detail(silt_error *err, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(err->detail, sizeof(err->detail), fmt, ap);
    va_end(ap);
}

void err_hint(silt_error *err, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(err->hint, sizeof(err->hint), fmt, ap);
    va_end(ap);
}

silt_status err_context(silt_error *err, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    size_t used;
    if (err == NULL)
        return SILT_OK;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    used = strlen(err->context);
    /* Context lines are appended outward; a full buffer drops the outermost. */
    if (used > 0 && used + 1 < sizeof(err->context))
        err->context[used++] = '\n';
    if (used < sizeof(err->context))
        snprintf(err->context + used, sizeof(err->context) - used, "%s", line);
    return err->code;
}

/* Appends formatted text at *len, never past cap - 1; keeps buf terminated. */
static void append_text(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    SILT_PRINTF(4, 5);

static void append_text(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (*len + 1 >= cap)
        return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len += (size_t)n < cap - *len ? (size_t)n : cap - *len - 1;
}

size_t err_format(const silt_error *err, char *buf, size_t cap)
{
    size_t len = 0;
    const char *ctx;
    if (cap == 0)
        return 0;
    buf[0] = '\0';
    if (err == NULL)
        return 0;
    append_text(buf, cap, &len, "%s", err->message[0] ? err->message : silt_status_name(err->code));
    if (err->detail[0])
        append_text(buf, cap, &len, "\nDETAIL: %s", err->detail);
    if (err->hint[0])
        append_text(buf, cap, &len, "\nHINT: %s", err->hint);
    ctx = err->context;
    while (*ctx) {
        const char *end = strchr(ctx, '\n');
        size_t line_len = end ? (size_t)(end - ctx) : strlen(ctx);
        append_text(buf, cap, &len, "\nCONTEXT: %.*s", (int)line_len, ctx);
        ctx += line_len;
        if (*ctx == '\n')
            ctx++;
    }
    return len;
}

void err_copy(silt_error *dst, const silt_error *src)
{
    if (dst == NULL || src == NULL || dst == src)
        return;
    memcpy(dst, src, sizeof(*dst));
}

const char *silt_status_name(silt_status status)
{
    switch (status) {
    case SILT_OK: return "OK";
    case SILT_NOMEM: return "NOMEM";
    case SILT_IO: return "IO";
    case SILT_NOTFOUND: return "NOTFOUND";
    case SILT_CONFLICT: return "CONFLICT";
    case SILT_CORRUPT: return "CORRUPT";
    case SILT_UNSUPPORTED: return "UNSUPPORTED";
    case SILT_PARSE: return "PARSE";
    case SILT_BIND: return "BIND";
    case SILT_INVALID: return "INVALID";
    case SILT_INTERRUPTED: return "INTERRUPTED";
    case SILT_EXISTS: return "EXISTS";
    case SILT_RUNTIME: return "RUNTIME";
    case SILT_DURABILITY_UNKNOWN: return "DURABILITY_UNKNOWN";
    }
    return "UNKNOWN";
}

const char *silt_version(void) { return SILT_VERSION; }

int silt_version_number(void) { return SILT_VERSION_NUMBER; }
