/*
 * cli.h - the `silt` command's sub-command table.
 *
 * The command uses only the public API (include/silt.h) and util/. Each
 * sub-command lives in its own file and is listed in cli_commands (main.c).
 */
#ifndef SILT_CLI_H
#define SILT_CLI_H

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

#endif
