/*
 * fuzz_commit.c - libFuzzer target for the commit-file parser (delta/actions).
 *
 * Feeds the input as a commit file to dlog_parse_commit and, for every
 * action it yields, serialises it back with dlog_action_to_json and parses
 * that again: both directions must stay within their bounds and never
 * crash, whatever the bytes. Built as a libFuzzer target with
 * -DSILT_BUILD_FUZZERS=ON (clang), and replayed over the committed corpus
 * by replay.c in ordinary test runs.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "delta/actions.h"
#include "util/arena.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static silt_status round_trip(const dlog_action *action, void *payload, silt_error *err)
{
    arena *a = payload;
    buf out = BUF_INIT;
    dlog_action again;
    size_t pos = 0;
    silt_status rc = dlog_action_to_json(action, &out, err);
    if (rc == SILT_OK) {
        rc = dlog_parse_action(&again, a, buf_cstr(&out), out.len, &pos, err);
        /* What silt wrote, silt must read back as the same kind of action. */
        if (rc == SILT_OK && again.type != action->type)
            __builtin_trap();
    } else if (rc == SILT_INVALID) {
        rc = SILT_OK; /* checkpoint-only actions are not written to commits */
    }
    buf_clear(&out);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena *a = arena_new(NULL, "fuzz");
    silt_error err = SILT_ERROR_INIT;
    if (a == NULL)
        return 0;
    (void)dlog_parse_commit((const char *)data, size, "fuzz.json", a, round_trip, a, &err);
    arena_free(a);
    return 0;
}
