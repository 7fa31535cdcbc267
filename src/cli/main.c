/*
 * main.c - entry point of the `silt` command: global flags, sub-command
 * dispatch and help.
 *
 * Exit codes: 0 success, 1 the operation failed (its error is on stderr),
 * 2 the command line was wrong.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef SILT_HAVE_MALLOPT
#include <malloc.h>
#endif

#include "cli.h"
#include "silt.h"

extern const cli_command cli_parquet_command;

static int run_help(int argc, char **argv);
static int run_version(int argc, char **argv);

static const cli_command help_command = {
    "help", "show help for silt or one of its commands",
    "usage: silt help [COMMAND]\n"
    "\n"
    "Shows the list of commands, or the full help of COMMAND.\n",
    run_help};

static const cli_command version_command = {
    "version", "print the version of silt",
    "usage: silt version\n"
    "\n"
    "Prints silt's version (also `silt --version`).\n",
    run_version};

extern const cli_command cli_table_command;
extern const cli_command cli_sql_command;
extern const cli_command cli_shell_command;
extern const cli_command cli_stream_command;
extern const cli_command cli_serve_command;
extern const cli_command cli_passwd_command;

/* The sub-commands, in the order `silt --help` lists them. */
static const cli_command *const cli_commands[] = {
    &help_command,
    &version_command,
    &cli_sql_command,
    &cli_shell_command,
    &cli_stream_command,
    &cli_serve_command,
    &cli_passwd_command,
    &cli_table_command,
    &cli_parquet_command,
    NULL,
};

int cli_workers_for_threads(long n)
{
    if (n < 0) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n > 64)
            n = 64;
    }
    return n > 1 ? (int)n - 1 : 0;
}

int cli_write_file(void *payload, const char *text, size_t len)
{
    return fwrite(text, 1, len, (FILE *)payload) == len ? 0 : 1;
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "silt: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (command != NULL)
        fprintf(stderr, "\nRun 'silt help %s' for usage.\n", command);
    else
        fprintf(stderr, "\nRun 'silt --help' for usage.\n");
    return 2;
}

static const cli_command *find_command(const char *name)
{
    size_t idx;
    for (idx = 0; cli_commands[idx] != NULL; idx++)
        if (strcmp(cli_commands[idx]->name, name) == 0)
            return cli_commands[idx];
    return NULL;
}

static void print_overview(FILE *out)
{
    size_t idx;
    fprintf(out,
            "silt %s - an embedded Delta Lake engine\n"
            "\n"
            "usage: silt [--version] [--help] <command> [<args>]\n"
            "\n"
            "Commands:\n",
            silt_version());
    for (idx = 0; cli_commands[idx] != NULL; idx++)
        fprintf(out, "  %-10s %s\n", cli_commands[idx]->name, cli_commands[idx]->summary);
    fprintf(out, "\nRun 'silt help <command>' for the options of one command.\n");
}

static int run_help(int argc, char **argv)
{
    const cli_command *command;
    if (argc < 2) {
        print_overview(stdout);
        return 0;
    }
    if (argc > 2)
        return cli_usage_error("help", "help takes one command name, got %d", argc - 1);
    command = find_command(argv[1]);
    if (command == NULL)
        return cli_usage_error(NULL, "no command named '%s'", argv[1]);
    fputs(command->usage, stdout);
    return 0;
}

static int run_version(int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return cli_usage_error("version", "version takes no arguments");
    printf("silt %s\n", silt_version());
    return 0;
}

/*
 * A scan allocates its large buffers (a column chunk read whole, the
 * values of a decompressed page) again for every row group. Above glibc's
 * default mmap threshold each is a fresh mapping whose pages fault in anew
 * and go back to the kernel when freed: a third of a top-N's CPU time over
 * 5M rows was page faults. Up to 32 MiB (the largest threshold glibc
 * takes) buffers come from the heap instead, and up to 256 MiB freed at its
 * top stay for the next ones (top-N over 5M rows: 12.3k page faults ->
 * 7.8k, CPU -15%, peak RSS 35 -> 40 MB). Only the command does this: an
 * application that embeds libsilt tunes its own allocator.
 */
static void tune_allocator(void)
{
#ifdef SILT_HAVE_MALLOPT
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
}

int main(int argc, char **argv)
{
    const cli_command *command;
    tune_allocator();
    if (argc < 2) {
        print_overview(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
        return run_version(1, argv + 1);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return run_help(argc - 1, argv + 1);
    if (argv[1][0] == '-')
        return cli_usage_error(NULL, "unrecognised option '%s'", argv[1]);
    command = find_command(argv[1]);
    if (command == NULL)
        return cli_usage_error(NULL, "no command named '%s'", argv[1]);
    /* `silt CMD --help` shows the command's help like `silt help CMD`. */
    if (argc == 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
        fputs(command->usage, stdout);
        return 0;
    }
    return command->run(argc - 1, argv + 1);
}
