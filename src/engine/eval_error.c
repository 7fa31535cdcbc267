/*
 * eval_error.c - the evaluation error that names its expression (expr.h).
 *
 * Its own file, below every evaluation file: casts, functions and the core
 * kernels of eval.c all raise it, and none of them needs another to do so.
 */
#include "engine/expr.h"

#include <stdarg.h>
#include <stdio.h>

silt_status expr_eval_error(const expr *e, silt_error *err, silt_status code, const char *cls,
                       const char *fmt, ...)
{
    char msg[SILT_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (e != NULL && e->text != NULL && e->line > 0)
        err_set(err, code, "[%s] %s in \"%s\" (line %d, column %d)", cls, msg, e->text, e->line,
                e->col);
    else if (e != NULL && e->text != NULL && e->pos >= 0)
        err_set(err, code, "[%s] %s in \"%s\" at position %lld", cls, msg, e->text,
                (long long)e->pos);
    else if (e != NULL && e->text != NULL)
        err_set(err, code, "[%s] %s in \"%s\"", cls, msg, e->text);
    else
        err_set(err, code, "[%s] %s", cls, msg);
    if (e != NULL && e->line > 0 && e->pos >= 0)
        err_position(err, e->pos, e->line, e->col);
    return code;
}
