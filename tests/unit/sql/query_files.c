/*
 * Runs the query tests in tests/sql/query/ *.test through sql_execute.
 *
 * File format (sqllogictest-like; blocks separated by blank lines, '#'
 * lines between blocks are comments; {shared} is the shared data folder,
 * {tmp} a fresh folder for the file):
 *
 *   statement ok              the statements run without error
 *   SET x = 1
 *
 *   query                     rows in canonical JSON lines, in this order
 *   SELECT a FROM t ORDER BY a
 *   ----
 *   {"a":1}
 *
 *   query rowsort             the same, compared after sorting both sides
 *
 *   file data/a.csv           writes the lines that follow to {tmp}/data/a.csv
 *   id,name                   (folders are made as needed)
 *   1,x
 *
 *   statement error           the statement fails; each line after ----
 *   SELECT nope               must appear in the error text (message,
 *   ----                      detail and context)
 *   [UNRESOLVED_COLUMN.WITH_SUGGESTION]
 *
 * Each file runs in a fresh session, blocks in order (views and settings
 * carry over within a file).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/output.h"
#include "sql/session.h"
#include "test.h"
#include "util/buf.h"
#include "util/mem.h"

/* silt_text_fn: appends the formatted text to the FILE *payload. */
static int to_file(void *payload, const char *text, size_t len)
{
    return fwrite(text, 1, len, (FILE *)payload) == len ? 0 : 1;
}

typedef struct run_stats {
    int blocks;
    int failures;
    char first_failure[8192];
} run_stats;

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    buf b = BUF_INIT;
    char chunk[4096];
    size_t n;
    if (f == NULL)
        return NULL;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        if (buf_append(&b, chunk, n, NULL) != SILT_OK)
            break;
    fclose(f);
    buf_append_char(&b, '\0', NULL);
    return buf_detach(&b, NULL);
}

/* Replaces {shared} and {tmp} in text (a new heap string). */
static char *substitute(const char *text, const char *tmp)
{
    buf b = BUF_INIT;
    const char *p = text;
    while (*p) {
        if (strncmp(p, "{shared}", 8) == 0) {
            buf_append_str(&b, test_shared_dir(), NULL);
            p += 8;
        } else if (strncmp(p, "{tmp}", 5) == 0) {
            buf_append_str(&b, tmp, NULL);
            p += 5;
        } else {
            buf_append_char(&b, *p++, NULL);
        }
    }
    buf_append_char(&b, '\0', NULL);
    return buf_detach(&b, NULL);
}

static int cmp_lines(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Splits text into lines (in place); returns the count. */
static size_t split_lines(char *text, char **lines, size_t cap)
{
    size_t n = 0;
    char *p = text;
    while (*p && n < cap) {
        char *nl = strchr(p, '\n');
        lines[n++] = p;
        if (nl == NULL)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    return n;
}

/* Runs a query and renders its rows as canonical JSON lines. */
static silt_status render(sql_session *s, const char *sql, char **out, silt_error *err)
{
    sql_result *res = NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *mem;
    api_printer *p = NULL;
    silt_output_options opts = SILT_OUTPUT_OPTIONS_INIT;
    col_batch *batch;
    silt_status rc = sql_execute(s, sql, &res, err);
    if (rc != SILT_OK)
        return rc;
    opts.format = SILT_OUTPUT_JSONL;
    mem = open_memstream(&text, &len);
    if (mem == NULL) {
        sql_result_free(res);
        return err_nomem(err);
    }
    if (sql_result_has_rows(res))
        rc = api_printer_new(&p, to_file, mem, sql_result_schema(res), &opts,
                             sql_result_zone(res), err);
    while (rc == SILT_OK && p != NULL) {
        rc = sql_result_next(res, &batch, err);
        if (rc != SILT_OK || batch == NULL)
            break;
        rc = api_printer_add(p, batch, err);
    }
    if (rc == SILT_OK && p != NULL)
        rc = api_printer_finish(p, err);
    api_printer_free(p);
    fclose(mem);
    sql_result_free(res);
    *out = text;
    return rc;
}

static void fail(run_stats *st, const char *file, int line, const char *fmt, ...)
    SILT_PRINTF(4, 5);

static void fail(run_stats *st, const char *file, int line, const char *fmt, ...)
{
    size_t used;
    va_list ap;
    st->failures++;
    if (st->failures > 20)
        return;
    used = strlen(st->first_failure);
    if (used + 16 >= sizeof(st->first_failure))
        return;
    used += (size_t)snprintf(st->first_failure + used, sizeof(st->first_failure) - used,
                             "%s%s:%d: ", used ? "\n" : "", file, line);
    if (used >= sizeof(st->first_failure))
        return;
    va_start(ap, fmt);
    vsnprintf(st->first_failure + used, sizeof(st->first_failure) - used, fmt, ap);
    va_end(ap);
}

static void check_rows(run_stats *st, const char *file, int line, char *actual, char *expected,
                       int sort)
{
    char *alines[4096], *elines[4096];
    size_t na = split_lines(actual, alines, 4096), ne = split_lines(expected, elines, 4096);
    size_t idx;
    if (sort) {
        qsort(alines, na, sizeof(char *), cmp_lines);
        qsort(elines, ne, sizeof(char *), cmp_lines);
    }
    for (idx = 0; idx < na || idx < ne; idx++) {
        const char *a = idx < na ? alines[idx] : "<no row>";
        const char *e = idx < ne ? elines[idx] : "<no row>";
        if (strcmp(a, e) != 0) {
            fail(st, file, line, "row differs: got %s, expected %s", a, e);
            return;
        }
    }
}

static void write_file(run_stats *st, const char *file, int line, const char *tmp,
                       const char *name, const char *content)
{
    char path[4096];
    FILE *f;
    size_t idx;
    snprintf(path, sizeof(path), "%s/%s", tmp, name);
    for (idx = strlen(tmp) + 1; path[idx] != '\0'; idx++) {
        if (path[idx] == '/') {
            path[idx] = '\0';
            mkdir(path, 0755);
            path[idx] = '/';
        }
    }
    f = fopen(path, "wb");
    if (f == NULL) {
        fail(st, file, line, "could not write %s", path);
        return;
    }
    fputs(content, f);
    fputc('\n', f);
    fclose(f);
}

static void run_block(sql_session *s, run_stats *st, const char *file, int line, char *header,
                      char *sql, char *expected, const char *tmp)
{
    silt_error err = SILT_ERROR_INIT;
    char *rows = NULL;
    silt_status rc;
    st->blocks++;
    if (strncmp(header, "file ", 5) == 0) {
        write_file(st, file, line, tmp, header + 5, sql);
        return;
    }
    if (strncmp(header, "statement ok", 12) == 0) {
        rc = sql_execute(s, sql, NULL, &err);
        if (rc != SILT_OK)
            fail(st, file, line, "statement failed: %s", err.message);
        return;
    }
    if (strncmp(header, "statement error", 15) == 0) {
        char full[4096];
        char *lines[64];
        size_t n, idx;
        rc = render(s, sql, &rows, &err);
        free(rows);
        if (rc == SILT_OK) {
            fail(st, file, line, "statement succeeded but an error was expected%s", "");
            return;
        }
        err_format(&err, full, sizeof(full));
        n = expected ? split_lines(expected, lines, 64) : 0;
        for (idx = 0; idx < n; idx++)
            if (lines[idx][0] != '\0' && strstr(full, lines[idx]) == NULL) {
                fail(st, file, line, "error lacks \"%s\": %s", lines[idx], full);
                return;
            }
        return;
    }
    if (strncmp(header, "query", 5) == 0) {
        rc = render(s, sql, &rows, &err);
        if (rc != SILT_OK) {
            char full[4096];
            err_format(&err, full, sizeof(full));
            fail(st, file, line, "query failed: %s", full);
            free(rows);
            return;
        }
        check_rows(st, file, line, rows ? rows : (char *)"", expected ? expected : (char *)"",
                   strstr(header, "rowsort") != NULL);
        free(rows);
        return;
    }
    fail(st, file, line, "unknown block header \"%s\"%s", header, "");
}

static void run_file(run_stats *st, const char *path, const char *name, const char *tmp,
                     tpool *pool)
{
    sql_session_options so = SQL_SESSION_OPTIONS_INIT;
    char *raw = read_text(path), *text, *p;
    sql_session *s = NULL;
    silt_error err = SILT_ERROR_INIT;
    int line = 1;
    if (raw == NULL) {
        fail(st, name, 0, "could not read %s", path);
        return;
    }
    text = substitute(raw, tmp);
    free(raw);
    so.pool = pool;
    if (sql_session_new(&s, &so, &err) != SILT_OK) {
        fail(st, name, 0, "no session: %s", err.message);
        free(text);
        return;
    }
    p = text;
    while (*p) {
        char *header, *sql, *expected = NULL, *end, *sep;
        int start_line;
        /* Skip blank and comment lines between blocks. */
        while (*p == '\n' || *p == '#') {
            if (*p == '#')
                while (*p && *p != '\n')
                    p++;
            if (*p == '\n') {
                p++;
                line++;
            }
        }
        if (!*p)
            break;
        start_line = line;
        header = p;
        end = strstr(p, "\n\n");
        if (end == NULL)
            end = p + strlen(p);
        for (char *q = p; q < end; q++)
            if (*q == '\n')
                line++;
        p = *end ? end + 2 : end;
        if (*end)
            line += 2;
        *end = '\0';
        sql = strchr(header, '\n');
        if (sql == NULL) {
            fail(st, name, start_line, "block without a statement%s", "");
            continue;
        }
        *sql++ = '\0';
        sep = strstr(sql, "\n----");
        if (sep != NULL) {
            *sep = '\0';
            expected = sep + 5;
            if (*expected == '\n')
                expected++;
        }
        run_block(s, st, name, start_line, header, sql, expected, tmp);
    }
    sql_session_free(s);
    free(text);
}

void test_sql_query_files__all(void)
{
    char dir[4096], tmp[] = "/tmp/silt-query-XXXXXX";
    DIR *d;
    struct dirent *ent;
    run_stats st;
    int n_files = 0;
    tpool *pool = NULL;
    silt_error err = SILT_ERROR_INIT;
    memset(&st, 0, sizeof(st));
    snprintf(dir, sizeof(dir), "%s/tests/sql/query", test_source_dir());
    d = opendir(dir);
    check(d != NULL);
    if (d == NULL)
        return;
    check(mkdtemp(tmp) != NULL);
    check_ok(tpool_new(&pool, 2, &err), &err);
    /* Every file runs on the calling thread, then with a pool (parallel aggregation). */
    while ((ent = readdir(d)) != NULL) {
        char path[8192];
        if (!util_str_ends_with(ent->d_name, ".test"))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, ent->d_name);
        run_file(&st, path, ent->d_name, tmp, NULL);
        run_file(&st, path, ent->d_name, tmp, pool);
        n_files++;
    }
    closedir(d);
    tpool_free(pool);
    check(n_files > 0);
    check(st.blocks > 0);
    if (st.failures > 0)
        fprintf(stderr, "%d of %d query blocks failed:\n%s\n", st.failures, st.blocks,
                st.first_failure);
    check_int(st.failures, 0);
}
