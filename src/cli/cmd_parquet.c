/*
 * cmd_parquet.c - `silt parquet schema|meta|cat FILE`: look inside a Parquet
 * file without a table around it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "silt.h"

#define CMD "parquet"

/* What a sub-command asks for, run on a connection of a database of paths only. */
typedef enum parquet_what { PARQUET_SCHEMA, PARQUET_META, PARQUET_ROWS } parquet_what;

static int run_on_file(parquet_what what, const char *path, int parquet_layout,
                       const silt_parquet_cat_options *opts)
{
    silt_db *db = NULL;
    silt_conn *conn = NULL;
    silt_status rc = silt_db_open(&db, NULL, NULL);
    if (rc != SILT_OK) {
        fprintf(stderr, "silt: %s\n", db ? silt_db_errmsg(db) : "out of memory");
        silt_db_close(db);
        return 1;
    }
    if ((rc = silt_conn_open(&conn, db)) != SILT_OK) {
        fprintf(stderr, "silt: %s\n", silt_db_errmsg(db));
        silt_db_close(db);
        return 1;
    }
    if (what == PARQUET_SCHEMA)
        rc = silt_parquet_format_schema(conn, path, parquet_layout, cli_write_file, stdout);
    else if (what == PARQUET_META)
        rc = silt_parquet_format_meta(conn, path, cli_write_file, stdout);
    else
        rc = silt_parquet_format_rows(conn, path, opts, cli_write_file, stdout);
    fflush(stdout);
    if (rc != SILT_OK)
        fprintf(stderr, "silt: %s\n", silt_conn_errmsg(conn));
    silt_conn_close(conn);
    silt_db_close(db);
    return rc == SILT_OK ? 0 : 1;
}

static int run_schema(int argc, char **argv)
{
    const char *path = NULL;
    int parquet_layout = 0, idx;
    for (idx = 1; idx < argc; idx++) {
        if (strcmp(argv[idx], "--parquet") == 0)
            parquet_layout = 1;
        else if (argv[idx][0] == '-' && argv[idx][1] != '\0')
            return cli_usage_error(CMD, "unrecognised option '%s'", argv[idx]);
        else if (path != NULL)
            return cli_usage_error(CMD, "schema takes one file");
        else
            path = argv[idx];
    }
    if (path == NULL)
        return cli_usage_error(CMD, "schema needs a file");
    return run_on_file(PARQUET_SCHEMA, path, parquet_layout, NULL);
}

static int run_meta(int argc, char **argv)
{
    if (argc != 2)
        return cli_usage_error(CMD, "meta takes one file");
    if (argv[1][0] == '-')
        return cli_usage_error(CMD, "unrecognised option '%s'", argv[1]);
    return run_on_file(PARQUET_META, argv[1], 0, NULL);
}

static int parse_limit(const char *text, int64_t *out)
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

static int run_cat(int argc, char **argv)
{
    silt_parquet_cat_options opts = SILT_PARQUET_CAT_OPTIONS_INIT;
    const char *path = NULL;
    int idx;
    for (idx = 1; idx < argc; idx++) {
        const char *arg = argv[idx];
        int has_value = idx + 1 < argc;
        if (strcmp(arg, "--columns") == 0 || strcmp(arg, "--limit") == 0 ||
            strcmp(arg, "--format") == 0) {
            const char *value;
            if (!has_value)
                return cli_usage_error(CMD, "option '%s' needs a value", arg);
            value = argv[++idx];
            if (strcmp(arg, "--columns") == 0) {
                opts.columns = value;
            } else if (strcmp(arg, "--limit") == 0) {
                if (!parse_limit(value, &opts.limit))
                    return cli_usage_error(CMD, "--limit needs a non-negative number, got '%s'",
                                           value);
            } else if (silt_output_format_parse(value, &opts.format) != SILT_OK) {
                return cli_usage_error(CMD, "--format must be table, vertical, csv, jsonl or "
                                       "json, got '%s'", value);
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cli_usage_error(CMD, "unrecognised option '%s'", arg);
        } else if (path != NULL) {
            return cli_usage_error(CMD, "cat takes one file");
        } else {
            path = arg;
        }
    }
    if (path == NULL)
        return cli_usage_error(CMD, "cat needs a file");
    return run_on_file(PARQUET_ROWS, path, 0, &opts);
}

static int run_parquet(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error(CMD, "parquet needs a sub-command: schema, meta or cat");
    if (strcmp(argv[1], "schema") == 0)
        return run_schema(argc - 1, argv + 1);
    if (strcmp(argv[1], "meta") == 0)
        return run_meta(argc - 1, argv + 1);
    if (strcmp(argv[1], "cat") == 0)
        return run_cat(argc - 1, argv + 1);
    return cli_usage_error(CMD, "no parquet sub-command named '%s'", argv[1]);
}

const cli_command cli_parquet_command = {
    "parquet", "show the schema, metadata or rows of a Parquet file",
    "usage: silt parquet schema [--parquet] FILE\n"
    "       silt parquet meta FILE\n"
    "       silt parquet cat [--columns A,B.C] [--limit N]\n"
    "                        [--format jsonl|csv|table|vertical|json] FILE\n"
    "\n"
    "schema  prints the columns as silt reads them (Delta types, like Spark's\n"
    "        printSchema); --parquet prints the Parquet schema itself.\n"
    "meta    prints the footer: writer, row groups, column chunks with codec,\n"
    "        encodings, sizes, page offsets and statistics.\n"
    "cat     prints the rows, one JSON object per line by default. --columns\n"
    "        picks top-level columns or fields of structs (dotted paths).\n",
    run_parquet};
