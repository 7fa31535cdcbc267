/*
 * cmd_table.c - `silt table info|scan PATH [--version N | --timestamp T] ...`.
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
    "table", "show facts about a Delta table, or its rows",
    "usage: silt table info PATH [--version N | --timestamp T]\n"
    "       silt table scan PATH [--version N | --timestamp T]\n"
    "                            [--format table|vertical|csv|jsonl|json] [--max-rows N]\n"
    "                            [--no-truncate]\n"
    "\n"
    "info shows the version, protocol and table features, schema, partition\n"
    "columns, properties, live files and checkpoint of the Delta table in\n"
    "the folder PATH. scan prints its rows: a table like Spark's show() (the\n"
    "first --max-rows rows, default 20, cells cut at 20 characters unless\n"
    "--no-truncate), CSV with a header, canonical JSON lines (jsonl) or\n"
    "Spark's JSON lines (json).\n"
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
    return util_str_to_int64(text, strlen(text), out) && *out >= 0;
}

/* Options of `table info` and `table scan`. */
typedef struct table_args {
    silt_table_open_options open;
    silt_output_options output;
    const char *path;
} table_args;

/* Parses the arguments after the sub-command name; returns 0 or an exit code. */
static int parse_table_args(int argc, char **argv, int is_scan, table_args *args)
{
    const char *sub = is_scan ? "scan" : "info";
    int arg, have_version = 0;
    for (arg = 1; arg < argc; arg++) {
        const char *flag = argv[arg];
        int takes_value = strcmp(flag, "--version") == 0 || strcmp(flag, "--timestamp") == 0 ||
                          (is_scan && (strcmp(flag, "--format") == 0 ||
                                       strcmp(flag, "--max-rows") == 0));
        if (takes_value && arg + 1 >= argc)
            return cli_usage_error("table", "%s needs a value", flag);
        if (strcmp(flag, "--version") == 0) {
            if (!parse_version(argv[arg + 1], &args->open.version_as_of))
                return cli_usage_error("table", "--version needs a version number, got '%s'",
                                       argv[arg + 1]);
            have_version = 1;
        } else if (strcmp(flag, "--timestamp") == 0) {
            if (silt_parse_timestamp(argv[arg + 1], &args->open.timestamp_micros) != SILT_OK)
                return cli_usage_error("table", "--timestamp needs a timestamp such as "
                                       "'2024-05-01 12:00:00', got '%s'", argv[arg + 1]);
            args->open.has_timestamp = 1;
        } else if (is_scan && strcmp(flag, "--format") == 0) {
            if (silt_output_format_parse(argv[arg + 1], &args->output.format) != SILT_OK)
                return cli_usage_error("table", "--format is one of table, vertical, csv, "
                                       "jsonl, json; got '%s'", argv[arg + 1]);
        } else if (is_scan && strcmp(flag, "--max-rows") == 0) {
            if (!parse_version(argv[arg + 1], &args->output.max_rows))
                return cli_usage_error("table", "--max-rows needs a number, got '%s'",
                                       argv[arg + 1]);
        } else if (is_scan && strcmp(flag, "--no-truncate") == 0) {
            args->output.truncate = 0;
        } else if (flag[0] == '-') {
            return cli_usage_error("table", "unrecognised option '%s'", flag);
        } else if (args->path == NULL) {
            args->path = flag;
        } else {
            return cli_usage_error("table", "table %s takes one PATH, got '%s' too", sub, flag);
        }
        if (takes_value)
            arg++;
    }
    if (args->path == NULL)
        return cli_usage_error("table", "table %s needs the PATH of a table", sub);
    if (have_version && args->open.has_timestamp)
        return cli_usage_error("table", "--version and --timestamp cannot be used together");
    return 0;
}

static int run_sub(int argc, char **argv, int is_scan)
{
    table_args args;
    silt_table_open_options open_defaults = SILT_TABLE_OPEN_OPTIONS_INIT;
    silt_output_options output_defaults = SILT_OUTPUT_OPTIONS_INIT;
    silt_table *table = NULL;
    silt_db *db = NULL;
    silt_status rc;
    int usage;

    memset(&args, 0, sizeof(args));
    args.open = open_defaults;
    args.output = output_defaults;
    usage = parse_table_args(argc, argv, is_scan, &args);
    if (usage != 0)
        return usage;
    rc = silt_db_open(&db, NULL, NULL);
    if (rc != SILT_OK) {
        fprintf(stderr, "silt: %s\n", db ? silt_db_errmsg(db) : "out of memory");
        silt_db_close(db);
        return 1;
    }
    rc = silt_table_open(&table, db, args.path, &args.open);
    if (rc == SILT_OK) {
        if (is_scan)
            rc = silt_table_format_rows(table, &args.output, cli_write_file, stdout);
        else
            print_info(table, args.path);
    }
    fflush(stdout);
    if (rc != SILT_OK)
        fprintf(stderr, "silt: %s\n", table ? silt_table_errmsg(table) : "out of memory");
    silt_table_close(table);
    silt_db_close(db);
    return rc == SILT_OK ? 0 : 1;
}

static int run_table(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("table", "table needs a sub-command: info or scan");
    if (strcmp(argv[1], "info") == 0)
        return run_sub(argc - 1, argv + 1, 0);
    if (strcmp(argv[1], "scan") == 0)
        return run_sub(argc - 1, argv + 1, 1);
    return cli_usage_error("table", "table has no sub-command '%s'; try info or scan", argv[1]);
}
