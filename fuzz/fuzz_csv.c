/*
 * fuzz_csv.c - fuzz target of the CSV reader: tokenizer, inference, value
 * conversion and the three modes. The first input byte picks options
 * (header, multiLine, escape, mode, tiny chunks, batches and read windows
 * so splitting and batch boundaries are exercised); the rest is the file.
 * The tokenizer's line fast path is also checked against its general path.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/csv/csv.h"
#include "formats/csv/csv_int.h"
#include "fuzz_store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The line fast path of the tokenizer (byte masks) must give the records
 * and fields of the general path on any text: both run side by side and
 * any difference aborts.
 */
static void compare_tokenizer_paths(const csv_options *opts, const char *text, size_t len)
{
    silt_error err = SILT_ERROR_INIT;
    csv_tokenizer fast, general;
    int got_fast = 1, got_general = 1;
    csv_tokenizer_init(&fast, opts, text, len);
    csv_tokenizer_init(&general, opts, text, len);
    fast.eol = general.eol = csv_detect_eol(text, len);
    general.path = CSV_PATH_GENERAL;
    while (got_fast && got_general) {
        silt_status a = csv_tokenizer_next(&fast, &got_fast, &err);
        silt_status b = csv_tokenizer_next(&general, &got_general, &err);
        if (a != SILT_OK || b != SILT_OK)
            break; /* out of memory: nothing to compare */
        if (got_fast != got_general || fast.pos != general.pos ||
            fast.rec_start != general.rec_start || fast.rec_len != general.rec_len ||
            fast.n_fields != general.n_fields)
            abort();
        for (size_t idx = 0; got_fast && idx < fast.n_fields; idx++) {
            const csv_field *x = &fast.fields[idx], *y = &general.fields[idx];
            if (x->len != y->len || x->quoted != y->quoted || memcmp(x->ptr, y->ptr, x->len) != 0)
                abort();
        }
    }
    csv_tokenizer_clear(&fast);
    csv_tokenizer_clear(&general);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    silt_error err = SILT_ERROR_INIT;
    io_store *store = fuzz_store("csv", "in.csv");
    csv_options opts;
    csv_scan *scan = NULL;
    const char *key = "in.csv";
    if (store == NULL || size == 0)
        return 0;
    uint8_t flags = data[0];
    csv_options_init(&opts);
    opts.header = flags & 1;
    opts.multi_line = (flags >> 1) & 1;
    opts.escape = (flags >> 2) & 1 ? '"' : '\\';
    opts.mode = (text_mode)(((flags >> 3) & 3) % 3);
    opts.infer_schema = !((flags >> 5) & 1);
    if ((flags >> 6) & 1) {
        opts.chunk_bytes = 7;
        opts.batch_rows = 3;
    }
    if ((flags >> 7) & 1)
        opts.window_bytes = 13; /* records straddle read windows */
    if (io_put(store, key, data + 1, size - 1, &err) != SILT_OK)
        return 0;
    if (!opts.multi_line)
        compare_tokenizer_paths(&opts, (const char *)data + 1, size - 1);
    arena *a = arena_new(NULL, "fuzz");
    const col_type *schema = NULL;
    csv_infer_text((const char *)data + 1, size - 1, &opts, a, &schema, &err);
    if (csv_scan_open(&scan, store, &key, 1, &opts, &err) == SILT_OK) {
        for (;;) {
            col_batch b;
            if (csv_scan_next(scan, a, &b, &err) != SILT_OK || b.n_rows == 0)
                break;
            if (b.n_rows > opts.batch_rows)
                abort();
        }
        csv_scan_free(scan);
    }
    arena_free(a);
    return 0;
}
