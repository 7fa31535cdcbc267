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
#include "util/mem.h"

/* 1 when line[0..len) is GO alone; blanks and a trailing -- comment allowed. */
int cli_line_is_go(const char *line, size_t len)
{
    size_t pos = 0;
    while (pos < len && (line[pos] == ' ' || line[pos] == '\t'))
        pos++;
    if (pos + 2 > len || (line[pos] != 'g' && line[pos] != 'G') ||
        (line[pos + 1] != 'o' && line[pos + 1] != 'O'))
        return 0;
    pos += 2;
    while (pos < len && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\r'))
        pos++;
    return pos == len || (pos + 1 < len && line[pos] == '-' && line[pos + 1] == '-');
}

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
    size_t len = strlen(text);
    char *out = mem_alloc(len + 1);
    scan_state st = {0, 0};
    const char *line = text;
    if (out == NULL)
        return NULL;
    memcpy(out, text, len + 1);
    while (*line) {
        const char *nl = strchr(line, '\n');
        const char *end = nl ? nl : line + strlen(line);
        if (st.quote == 0 && st.depth == 0 && cli_line_is_go(line, (size_t)(end - line))) {
            /* ";" then blanks, so byte offsets in error messages stay those of the file */
            char *dst = out + (line - text);
            memset(dst, ' ', (size_t)(end - line));
            dst[0] = ';';
        } else {
            scan_line(&st, line, end);
        }
        line = nl ? nl + 1 : end;
    }
    return out;
}
