/*
 * cmd_table.c - `silt table info PATH [--version N | --timestamp T]`.
 *
 * Prints what a Delta table is at one version: version and commit time,
 * protocol and table features, schema, partition columns, properties,
 * the number and total size of live files, and the checkpoint the state
 * was read from. Uses only the public API (silt/table.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "silt.h"
#include "util/buf.h"
#include "util/time.h"

static int run_table(int argc, char **argv);

const cli_command cli_table_command = {
    "table", "show facts about a Delta table",
    "usage: silt table info PATH [--version N | --timestamp T]\n"
    "\n"
    "Shows the version, protocol and table features, schema, partition\n"
    "columns, properties, live files and checkpoint of the Delta table in\n"
    "the folder PATH.\n"
    "\n"
    "  --version N     the table as of version N (VERSION AS OF)\n"
    "  --timestamp T   the table as of time T (TIMESTAMP AS OF), e.g.\n"
    "                  '2024-05-01 12:00:00' (UTC) or '2024-05-01T12:00:00+02:00'\n",
    run_table};

static void print_features(const silt_table *table, int writer)
{
    size_t idx, n = silt_table_feature_count(table, writer);
    printf("%s features:", writer ? "writer" : "reader");
    if (n == 0)
        printf(" (none)");
    for (idx = 0; idx < n; idx++)
        printf("%s%s", idx ? ", " : " ", silt_table_feature(table, writer, idx));
    printf("\n");
}

static void print_info(const silt_table *table, const char *path)
{
    size_t idx, n;
    int in_commit = 0;
    int64_t ts = silt_table_timestamp_ms(table, &in_commit);
    const char *kind = NULL;
    int64_t checkpoint = silt_table_checkpoint_version(table, &kind);
    char when[64];

    time_format_timestamp(ts * 1000, ' ', 3, 0, when, sizeof(when));
    printf("table: %s\n", path);
    printf("version: %" PRId64 "\n", silt_table_version(table));
    printf("timestamp: %s UTC (%s)\n", when, in_commit ? "in-commit timestamp" : "commit file time");
    printf("protocol: reader version %d, writer version %d\n",
           silt_table_min_reader_version(table), silt_table_min_writer_version(table));
    print_features(table, 0);
    print_features(table, 1);
    printf("id: %s\n", silt_table_id(table));
    if (silt_table_name(table) != NULL)
        printf("name: %s\n", silt_table_name(table));
    printf("schema:\n");
    n = silt_table_column_count(table);
    for (idx = 0; idx < n; idx++)
        printf("  %s: %s%s\n", silt_table_column_name(table, idx),
               silt_table_column_type(table, idx),
               silt_table_column_nullable(table, idx) ? "" : " not null");
    n = silt_table_partition_column_count(table);
    printf("partition columns:");
    if (n == 0)
        printf(" (none)");
    for (idx = 0; idx < n; idx++)
        printf("%s%s", idx ? ", " : " ", silt_table_partition_column(table, idx));
    printf("\n");
    n = silt_table_property_count(table);
    printf("properties:%s\n", n == 0 ? " (none)" : "");
    for (idx = 0; idx < n; idx++) {
        const char *value = silt_table_property_value(table, idx);
        printf("  %s = %s\n", silt_table_property_key(table, idx), value ? value : "null");
    }
    printf("files: %" PRId64 " (%" PRId64 " bytes)\n", silt_table_file_count(table),
           silt_table_total_bytes(table));
    if (checkpoint < 0 && silt_table_skipped_checkpoint_version(table) >= 0)
        printf("checkpoint: none (replayed from version 0; the checkpoint at version %" PRId64
               " needs the Parquet reader)\n", silt_table_skipped_checkpoint_version(table));
    else if (checkpoint < 0)
        printf("checkpoint: none (replayed from version 0)\n");
    else
        printf("checkpoint: version %" PRId64 " (%s)\n", checkpoint, kind ? kind : "?");
}

static int parse_version(const char *text, int64_t *out)
{
    return str_to_int64(text, strlen(text), out) && *out >= 0;
}

static int run_info(int argc, char **argv)
{
    silt_table_open_options opts = SILT_TABLE_OPEN_OPTIONS_INIT;
    silt_table *table = NULL;
    const char *path = NULL;
    int arg, have_version = 0;
    silt_status rc;

    for (arg = 1; arg < argc; arg++) {
        if (strcmp(argv[arg], "--version") == 0 || strcmp(argv[arg], "--timestamp") == 0) {
            if (arg + 1 >= argc)
                return cli_usage_error("table", "%s needs a value", argv[arg]);
            if (argv[arg][2] == 'v') {
                if (!parse_version(argv[arg + 1], &opts.version_as_of))
                    return cli_usage_error("table", "--version needs a version number, got '%s'",
                                           argv[arg + 1]);
                have_version = 1;
            } else {
                if (silt_parse_timestamp(argv[arg + 1], &opts.timestamp_micros) != SILT_OK)
                    return cli_usage_error("table", "--timestamp needs a timestamp such as "
                                           "'2024-05-01 12:00:00', got '%s'", argv[arg + 1]);
                opts.has_timestamp = 1;
            }
            arg++;
        } else if (argv[arg][0] == '-') {
            return cli_usage_error("table", "unrecognised option '%s'", argv[arg]);
        } else if (path == NULL) {
            path = argv[arg];
        } else {
            return cli_usage_error("table", "table info takes one PATH, got '%s' too", argv[arg]);
        }
    }
    if (path == NULL)
        return cli_usage_error("table", "table info needs the PATH of a table");
    if (have_version && opts.has_timestamp)
        return cli_usage_error("table", "--version and --timestamp cannot be used together");
    rc = silt_table_open(&table, path, &opts);
    if (rc != SILT_OK) {
        fprintf(stderr, "silt: %s\n", table ? silt_table_errmsg(table) : "out of memory");
        silt_table_close(table);
        return 1;
    }
    print_info(table, path);
    silt_table_close(table);
    return 0;
}

static int run_table(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("table", "table needs a sub-command: info");
    if (strcmp(argv[1], "info") == 0)
        return run_info(argc - 1, argv + 1);
    return cli_usage_error("table", "table has no sub-command '%s'; try info", argv[1]);
}
