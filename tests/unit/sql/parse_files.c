/*
 * Runs the statement lists in tests/sql/parse/ *.txt through the parser.
 *
 * File format (blocks separated by blank lines, '#' lines are comments):
 *
 *   statement                     error
 *   SELECT a FROM t               SELECT FROM t
 *   ----                          ----
 *   (query (select a ...))        [PARSE_SYNTAX_ERROR] Syntax error at or near ...
 *                                 DETAIL: expected an expression
 *
 * A "statement" block expects one printed tree per statement of its text;
 * an "error" block expects the error message, and the DETAIL line when one
 * is given. With SILT_SQL_REWRITE=1 in the environment the files are
 * rewritten with the actual results (review the diff before committing).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/parser.h"
#include "test.h"
#include "util/buf.h"
#include "util/mem.h"

typedef struct run_stats {
    int blocks;
    int failures;
    char first_failure[4096];
} run_stats;

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    buf b = BUF_INIT;
    char chunk[4096];
    size_t n;
    if (f == NULL)
        return NULL;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (buf_append(&b, chunk, n, NULL) != SILT_OK)
            break;
    }
    fclose(f);
    if (b.data == NULL)
        return mem_strdup("");
    return buf_detach(&b, NULL);
}

/* The actual result of one block: printed trees, or error message + detail. */
static void actual_result(const char *sql, buf *out)
{
    arena *a = arena_new(NULL, "parse-test");
    silt_error err = SILT_ERROR_INIT;
    sql_stmt_list *list = NULL;
    silt_status rc;
    check(a != NULL);
    rc = sql_parse(a, sql, &list, &err);
    if (rc != SILT_OK) {
        buf_printf(out, NULL, "%s\n", err.message);
        if (err.detail[0] != '\0')
            buf_printf(out, NULL, "DETAIL: %s\n", err.detail);
        if (rc != SILT_PARSE)
            buf_printf(out, NULL, "STATUS: %s\n", silt_status_name(rc));
    } else {
        for (size_t idx = 0; idx < list->n; idx++) {
            sql_stmt_print(list->items[idx], out, NULL);
            buf_append_char(out, '\n', NULL);
        }
    }
    arena_free(a);
}

static int line_is(const char *line, size_t len, const char *word)
{
    size_t n = strlen(word);
    while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' '))
        len--;
    return len == n && memcmp(line, word, n) == 0;
}

/* Runs every block of one file; appends the rewritten file to `rewritten`. */
static void run_file(const char *path, run_stats *st, buf *rewritten)
{
    char *text = read_text(path);
    const char *pos;
    check(text != NULL);
    pos = text;
    while (*pos != '\0') {
        const char *eol = strchr(pos, '\n');
        size_t len = eol ? (size_t)(eol - pos) : strlen(pos);
        int is_error;
        buf sql = BUF_INIT, expected = BUF_INIT, actual = BUF_INIT;
        if (!line_is(pos, len, "statement") && !line_is(pos, len, "error")) {
            /* Comments and blank lines between blocks are kept as they are. */
            buf_append(rewritten, pos, len, NULL);
            buf_append_char(rewritten, '\n', NULL);
            pos += len + (eol ? 1 : 0);
            continue;
        }
        is_error = line_is(pos, len, "error");
        buf_append(rewritten, pos, len, NULL);
        buf_append_char(rewritten, '\n', NULL);
        pos += len + (eol ? 1 : 0);
        /* SQL lines up to "----". */
        while (*pos != '\0') {
            eol = strchr(pos, '\n');
            len = eol ? (size_t)(eol - pos) : strlen(pos);
            if (line_is(pos, len, "----"))
                break;
            buf_append(&sql, pos, len + (eol ? 1 : 0), NULL);
            pos += len + (eol ? 1 : 0);
        }
        buf_append(rewritten, sql.data ? sql.data : "", sql.len, NULL);
        buf_append_str(rewritten, "----\n", NULL);
        pos += len + (eol ? 1 : 0);
        /* Expected lines up to a blank line. */
        while (*pos != '\0') {
            eol = strchr(pos, '\n');
            len = eol ? (size_t)(eol - pos) : strlen(pos);
            if (len == 0 || line_is(pos, len, ""))
                break;
            buf_append(&expected, pos, len, NULL);
            buf_append_char(&expected, '\n', NULL);
            pos += len + (eol ? 1 : 0);
        }
        if (sql.len > 0 && sql.data[sql.len - 1] == '\n')
            buf_truncate(&sql, sql.len - 1);
        actual_result(buf_cstr(&sql), &actual);
        buf_append(rewritten, actual.data ? actual.data : "", actual.len, NULL);
        st->blocks++;
        {
            int got_error = util_str_starts_with(buf_cstr(&actual), "[") ||
                            strstr(buf_cstr(&actual), "STATUS:") != NULL ||
                            util_str_starts_with(buf_cstr(&actual), "could not");
            if (strcmp(buf_cstr(&expected), buf_cstr(&actual)) != 0 || got_error != is_error) {
                if (st->failures == 0)
                    snprintf(st->first_failure, sizeof(st->first_failure),
                             "%s: %s\n--- expected\n%s--- actual\n%s", path, buf_cstr(&sql),
                             buf_cstr(&expected), buf_cstr(&actual));
                st->failures++;
            }
        }
        buf_clear(&sql);
        buf_clear(&expected);
        buf_clear(&actual);
    }
    mem_free(text);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void test_sql_parse_files__all(void)
{
    char dir[1024];
    DIR *d;
    struct dirent *ent;
    char *names[256];
    size_t n_names = 0;
    run_stats st;
    int rewrite = getenv("SILT_SQL_REWRITE") != NULL;
    memset(&st, 0, sizeof(st));
    snprintf(dir, sizeof(dir), "%s/tests/sql/parse", test_source_dir());
    d = opendir(dir);
    check(d != NULL);
    while ((ent = readdir(d)) != NULL && n_names < 256) {
        if (util_str_ends_with(ent->d_name, ".txt"))
            names[n_names++] = mem_strdup(ent->d_name);
    }
    closedir(d);
    qsort(names, n_names, sizeof(names[0]), by_name);
    check(n_names > 0);
    for (size_t idx = 0; idx < n_names; idx++) {
        char path[2048];
        buf rewritten = BUF_INIT;
        snprintf(path, sizeof(path), "%s/%s", dir, names[idx]);
        run_file(path, &st, &rewritten);
        if (rewrite) {
            FILE *f = fopen(path, "wb");
            check(f != NULL);
            fwrite(rewritten.data, 1, rewritten.len, f);
            fclose(f);
        }
        buf_clear(&rewritten);
        mem_free(names[idx]);
    }
    printf("    %d blocks in %zu files, %d failed\n", st.blocks, n_names, st.failures);
    if (st.failures > 0)
        test_fail(__FILE__, __LINE__, "%d of %d blocks failed; first:\n%s", st.failures,
                  st.blocks, st.first_failure);
}
