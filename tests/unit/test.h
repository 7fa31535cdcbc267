/*
 * test.h - the unit test framework (in the manner of libgit2's clar).
 *
 * A test is `void test_<suite>__<name>(void)` in tests/unit/<dir>/<file>.c,
 * where suite is "<dir>_<file>". Optional `test_<suite>__initialize` and
 * `test_<suite>__cleanup` run around every test of the suite. A failed check
 * stops the test (longjmp back to the runner; tests only).
 */
#ifndef SILT_TEST_H
#define SILT_TEST_H

#include <stdint.h>
#include <string.h>

#include "util/error.h"

typedef struct test_entry {
    const char *suite;
    const char *name;
    void (*fn)(void);
} test_entry;

extern const test_entry test_registry[];

void test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));
/* A fresh empty folder for this test, removed after it. */
const char *test_tmpdir(void);
/* How many entries a folder holds besides . and .. (-1 when it cannot be opened). */
int test_dir_entries(const char *path);
/* The repository root and ../shared, from the environment or the build. */
const char *test_source_dir(void);
const char *test_shared_dir(void);
/* Path of the silt executable (for tests that run it). */
const char *test_silt_bin(void);

#define check(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            test_fail(__FILE__, __LINE__, "check failed: %s", #cond);                              \
    } while (0)

#define check_int(expected, actual)                                                                \
    do {                                                                                           \
        long long e_ = (long long)(expected), a_ = (long long)(actual);                            \
        if (e_ != a_)                                                                              \
            test_fail(__FILE__, __LINE__, "%s: expected %lld, got %lld", #actual, e_, a_);         \
    } while (0)

#define check_str(expected, actual)                                                                \
    do {                                                                                           \
        const char *e_ = (expected), *a_ = (actual);                                               \
        if (e_ == NULL || a_ == NULL || strcmp(e_, a_) != 0)                                       \
            test_fail(__FILE__, __LINE__, "%s: expected \"%s\", got \"%s\"", #actual,              \
                      e_ ? e_ : "(null)", a_ ? a_ : "(null)");                                     \
    } while (0)

/* Checks that a silt_status call succeeds; prints the error otherwise. */
#define check_ok(expr, errp)                                                                       \
    do {                                                                                           \
        silt_status rc_ = (expr);                                                                  \
        if (rc_ != SILT_OK) {                                                                      \
            char msg_[2048];                                                                       \
            err_format((errp), msg_, sizeof(msg_));                                                \
            test_fail(__FILE__, __LINE__, "%s failed with %s: %s", #expr, silt_status_name(rc_),   \
                      msg_);                                                                       \
        }                                                                                          \
    } while (0)

/* Checks that a call fails with the given code. */
#define check_fails(code, expr)                                                                    \
    do {                                                                                           \
        silt_status rc_ = (expr);                                                                  \
        if (rc_ != (code))                                                                         \
            test_fail(__FILE__, __LINE__, "%s: expected %s, got %s", #expr,                        \
                      silt_status_name(code), silt_status_name(rc_));                              \
    } while (0)

/* Checks that a string contains a fragment. */
#define check_contains(haystack, needle)                                                           \
    do {                                                                                           \
        const char *h_ = (haystack), *n_ = (needle);                                               \
        if (h_ == NULL || strstr(h_, n_) == NULL)                                                  \
            test_fail(__FILE__, __LINE__, "expected \"%s\" to contain \"%s\"", h_ ? h_ : "(null)", \
                      n_);                                                                         \
    } while (0)

#endif
