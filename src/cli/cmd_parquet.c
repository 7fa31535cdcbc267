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

static int report(silt_status rc, const char *errbuf)
{
    if (rc == SILT_OK)
        return 0;
    fprintf(stderr, "silt: %s\n", errbuf);
    return 1;
}

static int run_schema(int argc, char **argv)
{
    char errbuf[4096];
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
    return report(silt_parquet_print_schema(stdout, path, parquet_layout, errbuf, sizeof(errbuf)),
                  errbuf);
}

static int run_meta(int argc, char **argv)
{
    char errbuf[4096];
    if (argc != 2)
        return cli_usage_error(CMD, "meta takes one file");
    if (argv[1][0] == '-')
        return cli_usage_error(CMD, "unrecognised option '%s'", argv[1]);
    return report(silt_parquet_print_meta(stdout, argv[1], errbuf, sizeof(errbuf)), errbuf);
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
    char errbuf[4096];
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
                return cli_usage_error(CMD, "--format must be table, csv, jsonl or json, got '%s'",
                                       value);
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
    return report(silt_parquet_cat(stdout, path, &opts, errbuf, sizeof(errbuf)), errbuf);
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
    "       silt parquet cat [--columns A,B.C] [--limit N] [--format jsonl|csv|table|json] FILE\n"
    "\n"
    "schema  prints the columns as silt reads them (Delta types, like Spark's\n"
    "        printSchema); --parquet prints the Parquet schema itself.\n"
    "meta    prints the footer: writer, row groups, column chunks with codec,\n"
    "        encodings, sizes, page offsets and statistics.\n"
    "cat     prints the rows, one JSON object per line by default. --columns\n"
    "        picks top-level columns or fields of structs (dotted paths).\n",
    run_parquet};
