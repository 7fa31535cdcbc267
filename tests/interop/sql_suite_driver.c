/*
 * sql_suite_driver - runs many SQL statements in one session for
 * sql_suite.py, so that a query file costs one process, not one per query.
 *
 *   sql_suite_driver [--threads N] [--warehouse DIR] < BLOCKS
 *
 * Standard input holds blocks separated by the byte 0x1e (ASCII record
 * separator); each block is one or more statements run by one
 * silt_conn_format call in canonical JSON lines. After each block the driver
 * prints a line "\x1e" "OK <milliseconds> ms", or "\x1e" "ERR <status> <message>" with the
 * message's newlines written as "\n", and flushes, so that the caller can
 * split the output per block even when a later block crashes. A failing
 * block does not stop the ones after it (the session and its views stay).
 *
 * Uses only the public API (include/silt.h), as an embedding program would.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "silt.h"

#define RS '\x1e'

/* Reads all of standard input into one NUL-terminated string. */
static char *read_all(FILE *in)
{
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    if (text == NULL)
        return NULL;
    for (;;) {
        if (cap - len < 4096) {
            char *grown = realloc(text, cap * 2);
            if (grown == NULL) {
                free(text);
                return NULL;
            }
            text = grown;
            cap *= 2;
        }
        size_t n = fread(text + len, 1, cap - len - 1, in);
        if (n == 0)
            break;
        len += n;
    }
    text[len] = '\0';
    return text;
}

/* Prints the error on one line so that the caller's split stays simple. */
/* silt_text_fn: the formatted results go to stdout. */
static int write_stdout(void *payload, const char *text, size_t len)
{
    (void)payload;
    return fwrite(text, 1, len, stdout) == len ? 0 : 1;
}

static void print_error(silt_status st, const char *msg)
{
    printf("%cERR %d ", RS, (int)st);
    for (const char *p = msg; *p != '\0'; p++) {
        if (*p == '\n')
            fputs("\\n", stdout);
        else
            putchar(*p);
    }
    putchar('\n');
}

int main(int argc, char **argv)
{
    silt_db_options dbo = SILT_DB_OPTIONS_INIT;
    const char *warehouse = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--threads") == 0)
            dbo.n_threads = (int)strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--warehouse") == 0)
            warehouse = argv[i + 1];
    }
    char *text = read_all(stdin);
    if (text == NULL) {
        fprintf(stderr, "sql_suite_driver: out of memory reading the statements\n");
        return 1;
    }
    silt_db *db = NULL;
    silt_conn *conn = NULL;
    if (silt_db_open(&db, warehouse, &dbo) != SILT_OK || silt_conn_open(&conn, db) != SILT_OK) {
        fprintf(stderr, "sql_suite_driver: cannot open a session: %s\n",
                db != NULL ? silt_db_errmsg(db) : "out of memory");
        silt_db_close(db);
        free(text);
        return 1;
    }
    silt_output_options out = SILT_OUTPUT_OPTIONS_INIT;
    out.format = SILT_OUTPUT_JSONL;
    out.max_rows = -1;
    char *block = text;
    while (block != NULL && *block != '\0') {
        char *end = strchr(block, RS);
        if (end != NULL)
            *end = '\0';
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        silt_status st = silt_conn_format(conn, block, &out, write_stdout, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (st == SILT_OK)
            printf("%cOK %.1f ms\n", RS,
                   (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
        else
            print_error(st, silt_conn_errmsg(conn));
        fflush(stdout);
        block = end != NULL ? end + 1 : NULL;
    }
    silt_conn_close(conn);
    silt_db_close(db);
    free(text);
    return 0;
}
