/* Unit tests of util/error: messages, detail, hint, context chain, NOMEM. */
#include "test.h"
#include "util/error.h"

void test_util_error__set_and_format(void)
{
    silt_error err = SILT_ERROR_INIT;
    char text[1024];
    check_int(SILT_CORRUPT, err_set(&err, SILT_CORRUPT, "could not read \"%s\": %d", "x.parquet", 7));
    check_int(SILT_CORRUPT, err.code);
    check_str("could not read \"x.parquet\": 7", err.message);
    err_detail(&err, "footer length %d", 12);
    err_hint(&err, "rewrite the file");
    check_int(SILT_CORRUPT, err_context(&err, "while reading file \"%s\"", "x.parquet"));
    err_context(&err, "while replaying version %d", 12);
    err_format(&err, text, sizeof(text));
    check_str("could not read \"x.parquet\": 7\nDETAIL: footer length 12\nHINT: rewrite the file\n"
              "CONTEXT: while reading file \"x.parquet\"\nCONTEXT: while replaying version 12",
              text);
}

void test_util_error__context_keeps_code_and_message(void)
{
    silt_error err = SILT_ERROR_INIT;
    err_set(&err, SILT_NOTFOUND, "table \"t\" does not exist");
    err_context(&err, "while running statement 1");
    check_int(SILT_NOTFOUND, err.code);
    check_str("table \"t\" does not exist", err.message);
}

void test_util_error__context_overflow_is_truncated_not_overrun(void)
{
    silt_error err = SILT_ERROR_INIT;
    char text[4096];
    int idx;
    err_set(&err, SILT_IO, "disk full");
    for (idx = 0; idx < 200; idx++)
        err_context(&err, "while doing step %d of a long chain of steps", idx);
    check(strlen(err.context) < SILT_ERROR_CONTEXT_MAX);
    err_format(&err, text, sizeof(text));
    check_contains(text, "step 0 ");
}

void test_util_error__format_truncates_to_capacity(void)
{
    silt_error err = SILT_ERROR_INIT;
    char small[8];
    err_set(&err, SILT_IO, "a long message that does not fit");
    err_format(&err, small, sizeof(small));
    check_int(7, strlen(small));
}

void test_util_error__nomem_and_null(void)
{
    silt_error err = SILT_ERROR_INIT;
    check_int(SILT_NOMEM, err_nomem(&err));
    check_str("out of memory", err.message);
    check_int(SILT_IO, err_set(NULL, SILT_IO, "ignored"));
    err_context(NULL, "ignored");
    err_clear(&err);
    check_int(SILT_OK, err.code);
    check_str("", err.message);
}

void test_util_error__status_names(void)
{
    check_str("OK", silt_status_name(SILT_OK));
    check_str("CONFLICT", silt_status_name(SILT_CONFLICT));
    check_str("EXISTS", silt_status_name(SILT_EXISTS));
    check_str("UNKNOWN", silt_status_name((silt_status)999));
    check_str(SILT_VERSION, silt_version());
}
