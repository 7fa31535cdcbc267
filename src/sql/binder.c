/*
 * binder.c - binder errors with positions, EXPLAIN notes and scopes.
 *
 * Binder errors follow Spark's error classes ([UNRESOLVED_COLUMN...],
 * [TABLE_OR_VIEW_NOT_FOUND], ...) and end with the line and column of the
 * offending name in the statement text, as parse errors do.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sql/binder_int.h"
#include "sql/lexer.h"

silt_status sql_bind_error(binder *b, silt_error *err, uint32_t pos, silt_status code,
                       const char *fmt, ...)
{
    char msg[SILT_ERROR_MESSAGE_MAX];
    int line = 1, col = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (b->text != NULL && pos <= b->text_len)
        sql_line_col_memo(b->line_memo, b->text, b->text_len, pos, &line, &col);
    err_set(err, code, "%s (line %d, column %d)", msg, line, col);
    err_position(err, (int64_t)pos, line, col);
    return code;
}

void sql_bind_note(binder *b, const char *fmt, ...)
{
    char text[512];
    scan_note *note, **tail;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    note = arena_calloc(b->a, 1, sizeof(*note));
    if (note == NULL)
        return; /* notes only feed EXPLAIN; losing one under memory pressure is harmless */
    note->text = arena_strdup(b->a, text);
    for (tail = &b->notes; *tail != NULL; tail = &(*tail)->next)
        ;
    *tail = note;
}

scan_note *sql_bind_note_last(binder *b)
{
    scan_note *note = b->notes;
    while (note != NULL && note->next != NULL)
        note = note->next;
    return note;
}

void sql_bind_note_attach(binder *b, scan_note *mark, const engine_op *op, const void *payload)
{
    scan_note *note;
    for (note = mark != NULL ? mark->next : b->notes; note != NULL; note = note->next) {
        if (note->op != NULL)
            continue;
        note->op = op;
        note->payload = payload;
    }
}

void sql_bind_note_on(binder *b, const engine_op *op)
{
    scan_note *last = sql_bind_note_last(b);
    if (last != NULL && last->op == NULL)
        last->op = op;
}

const col_type *sql_scope_schema(arena *a, const bind_scope *scope)
{
    col_field *fields = arena_calloc(a, scope->n ? scope->n : 1, sizeof(col_field));
    size_t idx;
    if (fields == NULL)
        return NULL;
    for (idx = 0; idx < scope->n; idx++) {
        fields[idx].name = scope->cols[idx].name;
        fields[idx].type = scope->cols[idx].type;
        fields[idx].nullable = 1;
        fields[idx].field_id = -1;
    }
    return col_type_struct(a, scope->n, fields);
}

silt_status sql_scope_from_schema(arena *a, const col_type *schema, const char *qual,
                              bind_scope *out, silt_error *err)
{
    size_t idx;
    out->n = schema->n_fields;
    out->cols = arena_calloc(a, out->n ? out->n : 1, sizeof(bind_col));
    if (out->cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < out->n; idx++) {
        out->cols[idx].qual = qual;
        out->cols[idx].name = schema->fields[idx].name;
        out->cols[idx].type = schema->fields[idx].type;
    }
    return SILT_OK;
}
