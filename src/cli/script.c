/*
 * script.c - T-SQL's batch separator in scripts (docs/serverless.md).
 *
 * `GO` alone on a line (any case, blanks around it, an optional `-- ...`
 * comment after it) ends a batch in the scripts SQL Server and Synapse tools
 * run. `GO` is no statement but a word of those tools, so silt treats it the
 * same way, in `silt sql -f` and in the shell only: such a line becomes ';'.
 * A line inside a string, a quoted name or a block comment is left alone, as
 * is `GO 5` (the repeat count is not supported: it stays text and does not
 * parse). The scan follows the shell's lexical rules (statement_complete).
 */
#include <string.h>

#include "cli/cli.h"
#include "util/buf.h"
#include "util/mem.h"

/*
 * The count of a GO line: 1 for `GO`, n for `GO n` (run the batch n times,
 * 1 <= n <= 100000), 0 when line[0..len) is not a GO line. Blanks and a
 * trailing -- comment allowed.
 */
long cli_line_go_count(const char *line, size_t len)
{
    size_t pos = 0;
    long n = 1;
    while (pos < len && (line[pos] == ' ' || line[pos] == '\t'))
        pos++;
    if (pos + 2 > len || (line[pos] != 'g' && line[pos] != 'G') ||
        (line[pos + 1] != 'o' && line[pos + 1] != 'O'))
        return 0;
    pos += 2;
    while (pos < len && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\r'))
        pos++;
    if (pos < len && line[pos] >= '0' && line[pos] <= '9') {
        if (pos > 2 && line[pos - 1] != ' ' && line[pos - 1] != '\t')
            return 0; /* GO5 is a name, not a GO line */
        n = 0;
        while (pos < len && line[pos] >= '0' && line[pos] <= '9' && n <= 100000)
            n = n * 10 + (line[pos++] - '0');
        if (n < 1 || n > 100000)
            return 0;
        while (pos < len && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\r'))
            pos++;
    }
    return pos == len || (pos + 1 < len && line[pos] == '-' && line[pos + 1] == '-') ? n : 0;
}

int cli_line_is_go(const char *line, size_t len) { return cli_line_go_count(line, len) > 0; }

/* Scanner state carried across lines: inside a quote (its character) or block comments. */
typedef struct scan_state {
    char quote;
    int depth;
} scan_state;

static void scan_line(scan_state *st, const char *p, const char *end)
{
    for (; p < end; p++) {
        if (st->quote) {
            if (*p == '\\' && st->quote != '`' && p + 1 < end)
                p++;
            else if (*p == st->quote)
                st->quote = 0;
            continue;
        }
        if (st->depth > 0) {
            if (p[0] == '*' && p + 1 < end && p[1] == '/') {
                st->depth--;
                p++;
            } else if (p[0] == '/' && p + 1 < end && p[1] == '*') {
                st->depth++;
                p++;
            }
            continue;
        }
        if (p[0] == '-' && p + 1 < end && p[1] == '-')
            return;
        if (p[0] == '/' && p + 1 < end && p[1] == '*') {
            st->depth = 1;
            p++;
        } else if (*p == '\'' || *p == '"' || *p == '`') {
            st->quote = *p;
        }
    }
}

char *cli_script_batches(const char *text)
{
    buf out = BUF_INIT;
    scan_state st = {0, 0};
    const char *line = text, *batch = text;
    silt_status rc = buf_append(&out, "", 0, NULL);
    while (*line && rc == SILT_OK) {
        const char *nl = strchr(line, '\n');
        const char *end = nl ? nl : line + strlen(line);
        long n = st.quote == 0 && st.depth == 0 ? cli_line_go_count(line, (size_t)(end - line)) : 0;
        if (n > 0) {
            /* ";" then blanks, so byte offsets in error messages stay those of the file
             * (up to the first GO n, whose repeats of its batch follow it) */
            rc = buf_append_char(&out, ';', NULL);
            for (size_t k = 1; rc == SILT_OK && k < (size_t)(end - line); k++)
                rc = buf_append_char(&out, ' ', NULL);
            for (long k = 1; rc == SILT_OK && k < n; k++) {
                rc = buf_append_char(&out, '\n', NULL);
                if (rc == SILT_OK)
                    rc = buf_append(&out, batch, (size_t)(line - batch), NULL);
                if (rc == SILT_OK)
                    rc = buf_append_char(&out, ';', NULL);
            }
            batch = nl ? nl + 1 : end;
        } else {
            scan_line(&st, line, end);
            rc = buf_append(&out, line, (size_t)(end - line), NULL);
        }
        if (rc == SILT_OK && nl)
            rc = buf_append_char(&out, '\n', NULL);
        line = nl ? nl + 1 : end;
    }
    if (rc != SILT_OK) {
        buf_clear(&out);
        return NULL;
    }
    return buf_detach(&out, NULL);
}
