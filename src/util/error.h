/*
 * error.h - the one error model of silt.
 *
 * A function that can fail returns silt_status and fills the silt_error its
 * caller passed in as last argument. The error holds the code, a primary
 * message (lower case, no trailing period, saying what was attempted and
 * why), an optional detail and hint, and a context chain that callers extend
 * on the way up ("while reading file X", "while replaying version 12").
 *
 * Storage is fixed-size, so reporting out-of-memory never allocates. A NULL
 * silt_error pointer is accepted everywhere and means "caller does not care".
 */
#ifndef SILT_UTIL_ERROR_H
#define SILT_UTIL_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "silt/common.h"

#define SILT_ERROR_MESSAGE_MAX 512
#define SILT_ERROR_DETAIL_MAX 512
#define SILT_ERROR_HINT_MAX 256
#define SILT_ERROR_CONTEXT_MAX 1024
#define SILT_ERROR_CLASS_MAX 96

typedef struct silt_error {
    silt_status code;
    char message[SILT_ERROR_MESSAGE_MAX];
    char detail[SILT_ERROR_DETAIL_MAX];
    char hint[SILT_ERROR_HINT_MAX];
    /* Context lines, innermost first, separated by '\n'. */
    char context[SILT_ERROR_CONTEXT_MAX];
    /* Debug builds record where the error was raised. */
    const char *src_file;
    int src_line;
    /*
     * The Spark error class ("DIVIDE_BY_ZERO"), taken once, when the error is
     * set, from the "[CLASS] " its message starts with; "" when it has none.
     */
    char error_class[SILT_ERROR_CLASS_MAX];
    /*
     * Where in the statement text the error is (err_position): byte offset,
     * 1-based line and column; line 0 when no position is known.
     */
    int64_t offset;
    int line;
    int column;
} silt_error;

#define SILT_ERROR_INIT {SILT_OK, {0}, {0}, {0}, {0}, NULL, 0, {0}, 0, 0, 0}

#if defined(__GNUC__)
#define SILT_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#else
#define SILT_PRINTF(fmt_idx, arg_idx)
#endif

/* Clears an error so that it can be reused. */
void err_clear(silt_error *err);

/*
 * Sets code and message (printf-style), clearing detail, hint and context.
 * Returns code, so that `return err_set(err, SILT_CORRUPT, "...")` reads well.
 */
silt_status err_set_at(silt_error *err, silt_status code, const char *src_file, int src_line,
                       const char *fmt, ...) SILT_PRINTF(5, 6);

#define err_set(err, code, ...) err_set_at((err), (code), __FILE__, __LINE__, __VA_ARGS__)

/* Sets SILT_NOMEM with a fixed message; never allocates. */
silt_status err_nomem(silt_error *err);

/* Sets the detail or the hint line of an error already set. */
void err_detail(silt_error *err, const char *fmt, ...) SILT_PRINTF(2, 3);
void err_hint(silt_error *err, const char *fmt, ...) SILT_PRINTF(2, 3);

/*
 * Appends a context line ("while reading file \"x\"") to an error already
 * set, keeping its code and message. Returns the error's code.
 */
silt_status err_context(silt_error *err, const char *fmt, ...) SILT_PRINTF(2, 3);

/*
 * Formats the whole error for a person: "message\nDETAIL: ..\nHINT: ..\n
 * CONTEXT: while ..". Writes at most cap bytes, always NUL-terminated.
 */
size_t err_format(const silt_error *err, char *buf, size_t cap);

/*
 * Records where in the statement text the error is, unless a position is
 * already recorded (the innermost, most precise one wins).
 */
void err_position(silt_error *err, int64_t offset, int line, int column);

/* Copies src into dst (both may be NULL). */
void err_copy(silt_error *dst, const silt_error *src);

/* Evaluates expr once; returns its status from the enclosing function if not OK. */
#define SILT_RETURN_IF_ERROR(expr)                                                                 \
    do {                                                                                           \
        silt_status silt_rc_ = (expr);                                                             \
        if (silt_rc_ != SILT_OK)                                                                   \
            return silt_rc_;                                                                       \
    } while (0)

/* Programming errors are asserted, never returned. Input bytes are never asserted. */
#include <assert.h>
#define SILT_ASSERT(cond) assert(cond)
/* Conditions that "cannot" be false/true: asserted in debug, tolerated in release. */
#ifdef NDEBUG
#define SILT_ALWAYS(cond) (cond)
#define SILT_NEVER(cond) (cond)
#else
#define SILT_ALWAYS(cond) ((cond) ? 1 : (assert(0 && #cond), 0))
#define SILT_NEVER(cond) ((cond) ? (assert(0 && #cond), 1) : 0)
#endif

#endif
