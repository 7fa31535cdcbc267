/*
 * cmd_shell.c - `silt shell`: an interactive SQL shell over the public API.
 *
 * Statements may span lines and end with ';' outside quotes and comments;
 * lines starting with '.' are shell commands (.help, .timer, .format,
 * .maxrows, .quit). With a terminal on standard input the shell uses
 * readline (line editing, history kept in ~/.silt_history); otherwise it
 * reads lines as they come, so scripts can be piped in. A statement running
 * longer than a second shows its elapsed time on a terminal's stderr.
 * Ctrl-C (SIGINT) during a statement interrupts it (silt_conn_interrupt):
 * it fails with [OPERATION_CANCELED] and the shell goes on.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "cli.h"
#include "silt.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/time.h"

static int run_shell(int argc, char **argv);

const cli_command cli_shell_command = {
    "shell", "an interactive SQL shell",
    "usage: silt shell [--warehouse DIR] [--format table|vertical|csv|jsonl|json] [--threads N]\n"
    "\n"
    "Reads Spark SQL statements, each ended by ';' (a statement may span\n"
    "lines), runs them and prints their results like Spark's show(). With a\n"
    "terminal it offers line editing and history (~/.silt_history); piped\n"
    "input is run as a script. --threads N runs a query on N threads, the calling\n"
    "one included (default: one per core; 0 or 1: the calling thread only).\n"
    "Shell commands:\n"
    "\n"
    "  .help               this list\n"
    "  .timer on|off       print how long each statement took\n"
    "  .format NAME        table, vertical, csv, jsonl or json\n"
    "  .mode NAME          the same as .format (.mode vertical: a block per row)\n"
    "  .maxrows N          rows a table shows (default 20)\n"
    "  .quit, .exit        leave (so does end of input, Ctrl-D)\n",
    run_shell};

typedef struct shell {
    silt_conn *conn;
    silt_output_options output;
    int timer;
    int interactive;
    int failures;
} shell;

/* ---- statement boundaries ----------------------------------------------------- */

/*
 * 1 when text holds a complete statement: its last significant character
 * (outside strings, quoted names and comments) is ';'. Follows Spark's
 * lexical rules: '...' and "..." strings with backslash escapes, `names`
 * with `` doubling, -- line comments and nested block comments.
 */
static int statement_complete(const char *text)
{
    int depth = 0, last_semicolon = 0;
    char quote = 0;
    const char *p;
    for (p = text; *p; p++) {
        if (quote) {
            if (*p == '\\' && quote != '`' && p[1] != '\0')
                p++;
            else if (*p == quote)
                quote = 0;
            continue;
        }
        if (depth > 0) {
            if (p[0] == '*' && p[1] == '/') {
                depth--;
                p++;
            } else if (p[0] == '/' && p[1] == '*') {
                depth++;
                p++;
            }
            continue;
        }
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                p++;
            if (!*p)
                break;
            continue;
        }
        if (p[0] == '/' && p[1] == '*') {
            depth = 1;
            p++;
            continue;
        }
        if (*p == '\'' || *p == '"' || *p == '`') {
            quote = *p;
            last_semicolon = 0;
        } else if (*p == ';') {
            last_semicolon = 1;
        } else if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            last_semicolon = 0;
        }
    }
    return last_semicolon && quote == 0 && depth == 0;
}

/* 1 when text ends inside a string, a quoted name or a block comment (GO is text there). */
static int statement_open(const char *text)
{
    char *probe;
    int open;
    size_t len = strlen(text);
    probe = mem_alloc(len + 3);
    if (probe == NULL)
        return 0;
    memcpy(probe, text, len);
    memcpy(probe + len, "\n;", 3); /* complete unless a quote or comment swallows the ';' */
    open = !statement_complete(probe) && len > 0;
    mem_free(probe);
    return open;
}

/* ---- progress ----------------------------------------------------------------- */

typedef struct progress {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int done;
    int shown;
    int64_t start_ns;
} progress;

static void *progress_main(void *arg)
{
    progress *pr = arg;
    pthread_mutex_lock(&pr->mutex);
    while (!pr->done) {
        struct timespec until;
        int64_t elapsed = time_monotonic_nanos() - pr->start_ns;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250 * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        if (elapsed >= INT64_C(1000000000)) {
            fprintf(stderr, "\r[running %.1f s]\033[K", (double)elapsed / 1e9);
            fflush(stderr);
            pr->shown = 1;
        }
        pthread_cond_timedwait(&pr->cond, &pr->mutex, &until);
    }
    if (pr->shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    pthread_mutex_unlock(&pr->mutex);
    return NULL;
}

/* ---- running statements ------------------------------------------------------- */

/* The connection of the statement running, for the SIGINT handler; NULL between statements. */
static silt_conn *volatile interruptible;

static void on_sigint(int sig)
{
    silt_conn *conn = interruptible;
    (void)sig;
    if (conn != NULL)
        silt_conn_interrupt(conn); /* one atomic store: async-signal-safe */
}

/* Ctrl-C interrupts the statement (not the shell) while it runs. */
static void catch_sigint(silt_conn *conn, struct sigaction *saved)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    interruptible = conn;
    sigaction(SIGINT, &sa, saved);
}

static void release_sigint(const struct sigaction *saved)
{
    sigaction(SIGINT, saved, NULL);
    interruptible = NULL;
}

static void run_statement(shell *sh, const char *sql)
{
    int64_t start = time_monotonic_nanos();
    progress pr;
    pthread_t watcher;
    struct sigaction saved;
    int watching = sh->interactive && isatty(STDOUT_FILENO) && isatty(STDERR_FILENO);
    silt_status rc;
    memset(&pr, 0, sizeof(pr));
    if (watching) {
        pthread_mutex_init(&pr.mutex, NULL);
        pthread_cond_init(&pr.cond, NULL);
        pr.start_ns = start;
        watching = pthread_create(&watcher, NULL, progress_main, &pr) == 0;
    }
    catch_sigint(sh->conn, &saved);
    rc = silt_conn_format(sh->conn, sql, &sh->output, cli_write_file, stdout);
    fflush(stdout);
    release_sigint(&saved);
    if (watching) {
        pthread_mutex_lock(&pr.mutex);
        pr.done = 1;
        pthread_cond_signal(&pr.cond);
        pthread_mutex_unlock(&pr.mutex);
        pthread_join(watcher, NULL);
        pthread_cond_destroy(&pr.cond);
        pthread_mutex_destroy(&pr.mutex);
    }
    fflush(stdout);
    if (rc != SILT_OK) {
        fprintf(stderr, "Error: %s\n", silt_conn_errmsg(sh->conn));
        sh->failures++;
    }
    if (sh->timer)
        printf("Time: %.3f s\n", (double)(time_monotonic_nanos() - start) / 1e9);
}

static void print_help(void) { fputs(cli_shell_command.usage, stdout); }

/* Runs a line starting with '.'; returns 1 when the shell should end. */
static int run_dot_command(shell *sh, const char *line)
{
    char word[32] = {0}, arg[64] = {0};
    int n = sscanf(line, ".%31s %63s", word, arg);
    if (n >= 1 && (strcmp(word, "quit") == 0 || strcmp(word, "exit") == 0))
        return 1;
    if (n >= 1 && strcmp(word, "help") == 0) {
        print_help();
    } else if (n == 2 && strcmp(word, "timer") == 0 &&
               (strcmp(arg, "on") == 0 || strcmp(arg, "off") == 0)) {
        sh->timer = strcmp(arg, "on") == 0;
    } else if (n == 2 && (strcmp(word, "format") == 0 || strcmp(word, "mode") == 0)) {
        if (silt_output_format_parse(arg, &sh->output.format) != SILT_OK)
            fprintf(stderr, "Error: .%s takes table, vertical, csv, jsonl or json\n", word);
    } else if (n == 2 && strcmp(word, "maxrows") == 0) {
        int64_t rows;
        if (util_str_to_int64(arg, strlen(arg), &rows) && rows >= 0)
            sh->output.max_rows = rows;
        else
            fprintf(stderr, "Error: .maxrows takes a number of rows\n");
    } else {
        fprintf(stderr, "Error: no shell command '%s'; try .help\n", line);
        sh->failures++;
    }
    return 0;
}

/* Reads one line: readline on a terminal, plain stdin otherwise. NULL at the end. */
static char *read_line(shell *sh, const char *prompt)
{
    buf line = BUF_INIT;
    int c;
    if (sh->interactive) {
        char *got = readline(prompt);
        char *copy = got ? mem_strdup(got) : NULL;
        mem_free(got); /* readline allocates with malloc, which mem_free matches */
        return copy;
    }
    while ((c = fgetc(stdin)) != EOF && c != '\n')
        if (buf_append_char(&line, (char)c, NULL) != SILT_OK)
            break;
    if (c == EOF && line.len == 0) {
        buf_clear(&line);
        return NULL;
    }
    return buf_detach(&line, NULL);
}

static const char *history_path(void)
{
    static char path[4096];
    const char *home = getenv("HOME");
    if (home == NULL || home[0] == '\0')
        return NULL;
    snprintf(path, sizeof(path), "%s/.silt_history", home);
    return path;
}

static void shell_loop(shell *sh)
{
    buf pending = BUF_INIT;
    for (;;) {
        char *line = read_line(sh, pending.len ? "   ...> " : "silt> ");
        const char *trimmed;
        if (line == NULL)
            break;
        trimmed = line;
        while (*trimmed == ' ' || *trimmed == '\t')
            trimmed++;
        if (pending.len == 0 && trimmed[0] == '.') {
            int quit;
            if (sh->interactive)
                add_history(line);
            quit = run_dot_command(sh, trimmed);
            mem_free(line);
            if (quit)
                break;
            continue;
        }
        if (pending.len == 0 && trimmed[0] == '\0') {
            mem_free(line);
            continue;
        }
        if (cli_line_is_go(line, strlen(line)) && !statement_open(buf_cstr(&pending))) {
            /* T-SQL's batch separator ends what is pending, as ';' would; GO n runs it n times */
            long times = cli_line_go_count(line, strlen(line));
            mem_free(line);
            if (pending.len > 0) {
                if (sh->interactive)
                    add_history(buf_cstr(&pending));
                for (long k = 0; k < times; k++)
                    run_statement(sh, buf_cstr(&pending));
                buf_truncate(&pending, 0);
            }
            continue;
        }
        if (pending.len > 0)
            buf_append_char(&pending, '\n', NULL);
        buf_append_str(&pending, line, NULL);
        mem_free(line);
        if (statement_complete(buf_cstr(&pending))) {
            if (sh->interactive)
                add_history(buf_cstr(&pending));
            run_statement(sh, buf_cstr(&pending));
            buf_truncate(&pending, 0);
        }
    }
    if (pending.len > 0) {
        /* End of input in the middle of a statement: run it as it is. */
        run_statement(sh, buf_cstr(&pending));
    }
    buf_clear(&pending);
}

static int run_shell(int argc, char **argv)
{
    shell sh;
    silt_output_options defaults = SILT_OUTPUT_OPTIONS_INIT;
    silt_db_options dbo = SILT_DB_OPTIONS_INIT;
    silt_db *db = NULL;
    const char *warehouse = NULL;
    int arg, exit_code = 0;
    memset(&sh, 0, sizeof(sh));
    sh.output = defaults;
    dbo.n_threads = cli_workers_for_threads(-1);
    for (arg = 1; arg < argc; arg++) {
        const char *flag = argv[arg];
        if (strcmp(flag, "--warehouse") == 0 || strcmp(flag, "--format") == 0 ||
            strcmp(flag, "--threads") == 0) {
            if (arg + 1 >= argc)
                return cli_usage_error("shell", "%s needs a value", flag);
            if (strcmp(flag, "--warehouse") == 0) {
                warehouse = argv[arg + 1];
            } else if (strcmp(flag, "--format") == 0) {
                if (silt_output_format_parse(argv[arg + 1], &sh.output.format) != SILT_OK)
                    return cli_usage_error("shell", "--format is one of table, vertical, csv, "
                                           "jsonl, json; got '%s'", argv[arg + 1]);
            } else {
                int64_t n;
                if (!util_str_to_int64(argv[arg + 1], strlen(argv[arg + 1]), &n) || n < 0 || n > 1024)
                    return cli_usage_error("shell", "--threads needs a number from 0 to 1024, "
                                           "got '%s'", argv[arg + 1]);
                dbo.n_threads = cli_workers_for_threads((long)n);
            }
            arg++;
        } else {
            return cli_usage_error("shell", "unrecognised argument '%s'", flag);
        }
    }
    sh.interactive = isatty(STDIN_FILENO);
    if (silt_db_open(&db, warehouse, &dbo) != SILT_OK) {
        fprintf(stderr, "silt: %s\n", db ? silt_db_errmsg(db) : "out of memory");
        silt_db_close(db);
        return 1;
    }
    if (silt_conn_open(&sh.conn, db) != SILT_OK) {
        fprintf(stderr, "silt: could not open a session: %s\n", silt_db_errmsg(db));
        silt_db_close(db);
        return 1;
    }
    if (sh.interactive) {
        const char *path = history_path();
        printf("silt %s shell. Statements end with ';'. .help for help, .quit to leave.\n",
               silt_version());
        if (path != NULL)
            read_history(path);
        shell_loop(&sh);
        if (path != NULL)
            write_history(path);
        printf("\n");
    } else {
        shell_loop(&sh);
        /* A script fails when one of its statements failed. */
        exit_code = sh.failures > 0 ? 1 : 0;
    }
    silt_conn_close(sh.conn);
    silt_db_close(db);
    return exit_code;
}
