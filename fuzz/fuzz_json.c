/*
 * fuzz_json.c - fuzz target of the JSON reader: tape tokenizer, inference
 * and conversion in the three modes. The first input byte picks options
 * (multiLine, mode, tiny chunks and batches, a shallow depth limit); the
 * rest is the file. The scan runs twice, converting during inference
 * (one pass, with a budget that runs out midway under tiny chunks) and
 * not (two passes): the schemas and row counts must agree.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/json/json.h"
#include "fuzz_store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = fuzz_store("json", "in.json");
    json_options opts;
    const char *key = "in.json";
    if (store == NULL || size == 0)
        return 0;
    uint8_t flags = data[0];
    json_options_init(&opts);
    opts.multi_line = flags & 1;
    opts.mode = (text_mode)(((flags >> 1) & 3) % 3);
    if ((flags >> 3) & 1) {
        opts.chunk_bytes = 5;
        opts.batch_rows = 2;
    }
    if ((flags >> 4) & 1)
        opts.max_depth = 4;
    opts.primitives_as_string = (flags >> 5) & 1;
    opts.prefers_decimal = (flags >> 6) & 1;
    if ((flags >> 7) & 1)
        opts.window_bytes = 11; /* lines straddle read windows */
    if (io_put(store, key, data + 1, size - 1, &err) != SILT_OK)
        return 0;
    arena *a = arena_new(NULL, "fuzz");
    const col_type *schema = NULL;
    json_infer_text((const char *)data + 1, size - 1, &opts, a, &schema, &err);
    json_scan *scans[2] = {NULL, NULL};
    int64_t rows[2] = {-1, -1};
    for (int pass = 0; pass < 2; pass++) {
        opts.speculate_bytes = pass == 1 ? 0 : (flags >> 3) & 1 ? 16 : JSON_DEFAULT_SPECULATE_BYTES;
        if (json_scan_open(&scans[pass], store, &key, 1, &opts, &err) != SILT_OK)
            continue;
        rows[pass] = 0;
        for (;;) {
            col_batch b;
            if (json_scan_next(scans[pass], a, &b, &err) != SILT_OK) {
                rows[pass] = -2;
                break;
            }
            if (b.n_rows == 0)
                break;
            if (b.n_rows > opts.batch_rows)
                abort();
            rows[pass] += b.n_rows;
        }
    }
    if ((scans[0] == NULL) != (scans[1] == NULL) || rows[0] != rows[1] ||
        (scans[0] != NULL &&
         !col_type_equal(json_scan_schema(scans[0]), json_scan_schema(scans[1]))))
        abort(); /* one pass and two passes disagree */
    json_scan_free(scans[0]);
    json_scan_free(scans[1]);
    arena_free(a);
    return 0;
}
