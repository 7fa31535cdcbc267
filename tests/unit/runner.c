/*
 * runner.c - runs the unit tests of one suite (or all), prints one line per
 * test and a closing "N passed, M failed" line; exits non-zero on failure.
 *
 *   silt_unit                 every suite
 *   silt_unit util_arena      one suite
 *   silt_unit util_arena basic   one test
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

static jmp_buf test_jump;
static char tmpdir[4096];
static char failure[4096];

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(failure, sizeof(failure), "%s:%d: ", file, line);
    va_start(ap, fmt);
    vsnprintf(failure + n, sizeof(failure) - (size_t)n, fmt, ap);
    va_end(ap);
    longjmp(test_jump, 1);
}

int test_dir_entries(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int n = 0;
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

const char *test_tmpdir(void)
{
    if (tmpdir[0] == '\0') {
        const char *base = getenv("TMPDIR");
        snprintf(tmpdir, sizeof(tmpdir), "%s/silt-test-XXXXXX", base ? base : "/tmp");
        if (mkdtemp(tmpdir) == NULL) {
            tmpdir[0] = '\0';
            test_fail(__FILE__, __LINE__, "could not create a temporary folder");
        }
    }
    return tmpdir;
}

static void remove_tmpdir(void)
{
    char cmd[4200];
    if (tmpdir[0] == '\0')
        return;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", tmpdir);
    tmpdir[0] = '\0';
}

const char *test_source_dir(void)
{
    const char *env = getenv("SILT_SOURCE_DIR");
    return env ? env : SILT_SOURCE_DIR;
}

const char *test_shared_dir(void)
{
    static char path[4096];
    const char *env = getenv("SILT_SHARED_DIR");
    if (env)
        return env;
    snprintf(path, sizeof(path), "%s/../shared", test_source_dir());
    return path;
}

const char *test_silt_bin(void)
{
    static char path[4096];
    const char *env = getenv("SILT_BIN");
    if (env)
        return env;
    snprintf(path, sizeof(path), "%s/silt", SILT_BINARY_DIR);
    return path;
}

static void (*find_hook(const char *suite, const char *hook))(void)
{
    const test_entry *entry;
    for (entry = test_registry; entry->suite; entry++)
        if (strcmp(entry->suite, suite) == 0 && strcmp(entry->name, hook) == 0)
            return entry->fn;
    return NULL;
}

static int run_one(const test_entry *entry)
{
    void (*volatile init)(void) = find_hook(entry->suite, "initialize");
    void (*volatile cleanup)(void) = find_hook(entry->suite, "cleanup");
    volatile int ok = 1;
    failure[0] = '\0';
    if (setjmp(test_jump) == 0) {
        if (init)
            init();
        entry->fn();
    } else {
        ok = 0;
    }
    if (cleanup) {
        if (setjmp(test_jump) == 0)
            cleanup();
        else
            ok = 0;
    }
    remove_tmpdir();
    printf("%s %s.%s%s%s\n", ok ? "ok  " : "FAIL", entry->suite, entry->name, ok ? "" : ": ",
           ok ? "" : failure);
    fflush(stdout);
    return ok;
}

int main(int argc, char **argv)
{
    const test_entry *entry;
    int passed = 0, failed = 0;
    const char *suite = argc > 1 ? argv[1] : NULL;
    const char *name = argc > 2 ? argv[2] : NULL;
    for (entry = test_registry; entry->suite; entry++) {
        if (strcmp(entry->name, "initialize") == 0 || strcmp(entry->name, "cleanup") == 0)
            continue;
        if (suite && strcmp(entry->suite, suite) != 0)
            continue;
        if (name && strcmp(entry->name, name) != 0)
            continue;
        if (run_one(entry))
            passed++;
        else
            failed++;
    }
    if (passed + failed == 0) {
        fprintf(stderr, "no test matched\n");
        return 2;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
