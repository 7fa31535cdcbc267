/*
 * cli.h - the `silt` command's sub-command table.
 *
 * The command uses only the public API (include/silt.h) and util/. Each
 * sub-command lives in its own file and is listed in cli_commands (main.c).
 */
#ifndef SILT_CLI_H
#define SILT_CLI_H

#include <stddef.h>

typedef struct cli_command {
    const char *name;
    const char *summary; /* one line for `silt --help` */
    const char *usage;   /* the full text for `silt help <name>` */
    /* argv[0] is the sub-command's name. Returns the process exit code. */
    int (*run)(int argc, char **argv);
} cli_command;

/* Prints "silt: <message>" and a pointer to help on stderr; returns 2. */
int cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * Worker threads for `--threads N`: N threads run a query, the calling
 * thread among them (DuckDB's `threads` and Spark's local[N] count the
 * same way), so N - 1 workers; 0 or 1 runs on the caller only. Without
 * the option (n < 0), one thread per online core, at most 64.
 */
int cli_workers_for_threads(long n);

/*
 * The silt_text_fn through which the command prints what the library
 * formats: writes text to the FILE *payload; 0, or 1 when the write failed.
 */
int cli_write_file(void *payload, const char *text, size_t len);

/*
 * T-SQL's batch separator (script.c): cli_line_go_count is 1 when
 * line[0..len) is `GO` alone, n for `GO n` (the batch runs n times), 0 when
 * it is no GO line; cli_line_is_go says whether it is one.
 * cli_script_batches returns a copy of text (free it with mem_free; NULL
 * when out of memory) in which every such line outside strings and comments
 * is ';' and blanks, followed for `GO n` by n - 1 more copies of its batch.
 */
long cli_line_go_count(const char *line, size_t len);
int cli_line_is_go(const char *line, size_t len);
char *cli_script_batches(const char *text);

#endif
