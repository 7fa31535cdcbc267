/*
 * fuzz.h - the libFuzzer entry point every fuzz/fuzz_*.c target defines.
 *
 * The same target runs under libFuzzer (clang, SILT_BUILD_FUZZERS=ON) and
 * under replay.c, which feeds it the committed corpus in normal CI builds.
 */
#ifndef SILT_FUZZ_H
#define SILT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
