/*
 * fuzz_sql_parse.c - fuzz target for the SQL lexer, parser and tree printer.
 *
 * Any byte string must end in a tree or a SILT_PARSE/SILT_NOMEM error, never
 * a crash, a hang or unbounded memory. Beyond "no crash", the target checks
 * the invariants callers rely on: statement bounds and error offsets lie
 * inside the text, an error always has a message, and every tree prints.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sql/parser.h"
#include "util/arena.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena *a = arena_new(NULL, "fuzz-sql");
    silt_error err = SILT_ERROR_INIT;
    sql_stmt_list *list = NULL;
    size_t err_off = (size_t)-1;
    buf out = BUF_INIT;
    silt_status rc;
    if (a == NULL)
        return 0;
    rc = sql_parse_n(a, (const char *)data, size, &list, &err_off, &err);
    if (rc == SILT_OK) {
        for (size_t idx = 0; idx < list->n; idx++) {
            const sql_stmt *s = list->items[idx];
            if (s->pos > s->end || s->end > size)
                abort();
            if (sql_stmt_print(s, &out, &err) != SILT_OK)
                abort();
        }
    } else {
        if (rc != SILT_PARSE && rc != SILT_NOMEM)
            abort();
        if (err.message[0] == '\0' || err.code != rc)
            abort();
        if (rc == SILT_PARSE && err_off > size)
            abort();
    }
    buf_clear(&out);
    arena_free(a);
    return 0;
}
