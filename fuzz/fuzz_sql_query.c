/*
 * fuzz_sql_query.c - fuzz target for the binder, planner and engine behind
 * sql_execute: any text must end in a result or an error with a message,
 * never a crash.
 *
 * Inputs that would read files (delta./parquet./csv./json. paths,
 * read_files) or generate unbounded rows (range) are skipped, so that the
 * target neither touches the machine's files nor hangs; every other
 * statement runs on a fresh session, and results are
 * pulled to the end (at most a fixed number of batches).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sql/session.h"
#include "util/mem.h"

#define MAX_BATCHES 1000

static int mentions(const char *text, const char *word)
{
    size_t n = strlen(word), idx;
    for (idx = 0; text[idx] != '\0'; idx++) {
        size_t k = 0;
        while (k < n && tolower((unsigned char)text[idx + k]) == word[k])
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const skip[] = {"delta", "parquet", "csv", "json", "read_files", "range",
                                       "`", "@"};
    char *text;
    sql_session *s = NULL;
    sql_result *res = NULL;
    silt_error err = SILT_ERROR_INIT;
    silt_status rc;
    size_t idx;
    if (size > 4096 || memchr(data, 0, size) != NULL)
        return 0;
    text = mem_alloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    for (idx = 0; idx < sizeof(skip) / sizeof(skip[0]); idx++)
        if (mentions(text, skip[idx])) {
            mem_free(text);
            return 0;
        }
    if (sql_session_new(&s, NULL, &err) != SILT_OK) {
        mem_free(text);
        return 0;
    }
    rc = sql_execute(s, text, &res, &err);
    if (rc == SILT_OK && res != NULL) {
        col_batch *batch;
        int n = 0;
        do
            rc = sql_result_next(res, &batch, &err);
        while (rc == SILT_OK && batch != NULL && ++n < MAX_BATCHES);
    }
    if (rc != SILT_OK && (err.message[0] == '\0' || err.code != rc))
        abort();
    sql_result_free(res);
    sql_session_free(s);
    mem_free(text);
    return 0;
}
