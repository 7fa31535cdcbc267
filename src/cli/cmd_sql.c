/*
 * cmd_sql.c - `silt sql`: run Spark SQL statements and print their results
 * like Spark's show(). Uses only the public API (silt/sql.h).
 *
 * Exit codes: 0 all statements ran, 1 a statement failed (its error, with
 * line and column, on stderr; results before it are printed), 2 a wrong
 * command line.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "silt.h"
#include "util/buf.h"
#include "util/mem.h"

#define CMD "sql"
#define MAX_SQL_FILE (64 << 20)

static int parse_count(const char *text, int64_t *out)
{
    char *end;
    long long value;
    errno = 0;
    value = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < 0)
        return 0;
    *out = value;
    return 1;
}

/* Reads a whole SQL file ("-" = stdin) into b; 0 with a message on failure. */
static int read_sql_file(const char *path, buf *b)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    char chunk[8192];
    size_t n;
    if (f == NULL) {
        fprintf(stderr, "silt: could not open SQL file \"%s\": %s\n", path, strerror(errno));
        return 0;
    }
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (b->len + n > MAX_SQL_FILE || buf_append(b, chunk, n, NULL) != SILT_OK) {
            fprintf(stderr, "silt: SQL file \"%s\" is larger than %d bytes\n", path, MAX_SQL_FILE);
            if (f != stdin)
                fclose(f);
            return 0;
        }
    }
    if (f != stdin)
        fclose(f);
    if (b->data == NULL && buf_append(b, "", 0, NULL) != SILT_OK)
        return 0;
    return 1;
}

static int run_sql(int argc, char **argv)
{
    silt_output_options out = SILT_OUTPUT_OPTIONS_INIT;
    silt_db_options dbo = SILT_DB_OPTIONS_INIT;
    const char *warehouse = NULL, *file = NULL, *text = NULL;
    silt_db *db = NULL;
    silt_conn *conn = NULL;
    buf sql = BUF_INIT;
    char *batches = NULL;
    silt_status rc;
    int idx, code = 0;
    /* Queries use every core unless told otherwise. */
    dbo.n_threads = cli_workers_for_threads(-1);
    for (idx = 1; idx < argc; idx++) {
        const char *arg = argv[idx];
        int has_value = idx + 1 < argc;
        if (strcmp(arg, "--no-truncate") == 0) {
            out.truncate = 0;
        } else if (strcmp(arg, "--warehouse") == 0 || strcmp(arg, "--format") == 0 ||
                   strcmp(arg, "--max-rows") == 0 || strcmp(arg, "-f") == 0 ||
                   strcmp(arg, "--threads") == 0) {
            const char *value;
            if (!has_value)
                return cli_usage_error(CMD, "option '%s' needs a value", arg);
            value = argv[++idx];
            if (strcmp(arg, "--warehouse") == 0) {
                warehouse = value;
            } else if (strcmp(arg, "-f") == 0) {
                file = value;
            } else if (strcmp(arg, "--format") == 0) {
                if (silt_output_format_parse(value, &out.format) != SILT_OK)
                    return cli_usage_error(CMD, "unknown format '%s' (table, vertical, csv, "
                                           "jsonl or json)", value);
            } else {
                int64_t n;
                if (!parse_count(value, &n) || (strcmp(arg, "--threads") == 0 && n > 1024))
                    return cli_usage_error(CMD, "option '%s' needs a number from 0%s, not '%s'",
                                           arg, strcmp(arg, "--threads") == 0 ? " to 1024" : "",
                                           value);
                if (strcmp(arg, "--threads") == 0)
                    dbo.n_threads = cli_workers_for_threads((long)n);
                else
                    out.max_rows = n;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cli_usage_error(CMD, "unrecognised option '%s'", arg);
        } else if (text != NULL) {
            return cli_usage_error(CMD, "give the statements as one argument (quote them)");
        } else {
            text = arg;
        }
    }
    if ((text == NULL) == (file == NULL))
        return cli_usage_error(CMD, text == NULL ? "no statements given (an argument or -f FILE)"
                                                 : "give statements or -f FILE, not both");
    if (file != NULL) {
        if (!read_sql_file(file, &sql)) {
            buf_clear(&sql);
            return 1;
        }
        /* a script file may separate its batches with GO lines (T-SQL tools' convention) */
        batches = cli_script_batches(buf_cstr(&sql));
        if (batches == NULL) {
            fprintf(stderr, "silt: out of memory reading %s\n", file);
            buf_clear(&sql);
            return 1;
        }
        text = batches;
    }
    rc = silt_db_open(&db, warehouse, &dbo);
    if (rc != SILT_OK) {
        fprintf(stderr, "silt: %s\n", silt_db_errmsg(db));
        code = 1;
    } else if ((rc = silt_conn_open(&conn, db)) != SILT_OK) {
        fprintf(stderr, "silt: %s\n", silt_db_errmsg(db));
        code = 1;
    } else if ((rc = silt_conn_format(conn, text, &out, cli_write_file, stdout)) != SILT_OK) {
        fflush(stdout);
        fprintf(stderr, "silt: %s\n", silt_conn_errmsg(conn));
        code = 1;
    }
    silt_conn_close(conn);
    silt_db_close(db);
    buf_clear(&sql);
    mem_free(batches);
    return code;
}

const cli_command cli_sql_command = {
    CMD, "run Spark SQL statements and print their results",
    "usage: silt sql [--warehouse DIR] [--format table|vertical|csv|jsonl|json] [--max-rows N]\n"
    "                [--no-truncate] [--threads N] (-f FILE | \"SQL; SQL; ...\")\n"
    "\n"
    "Runs the statements in order and prints each result like Spark's show()\n"
    "(20 rows unless --max-rows; cells cut at 20 characters unless --no-truncate).\n"
    "Tables: delta.`/path` [VERSION AS OF n | TIMESTAMP AS OF 'ts'], parquet.`/path`,\n"
    "csv.`/path`, json.`/path` (files, folders, globs), read_files('/path', format =>\n"
    "'csv', header => true), temporary views, and catalog tables with --warehouse.\n"
    "-f - reads the statements from standard input. --threads N runs a query on N\n"
    "threads, the calling one included (default: one per core; 0 or 1: the calling\n"
    "thread only).\n"
    "\n"
    "Exit status: 0 success, 1 a statement failed (error on stderr), 2 usage error.\n",
    run_sql};
