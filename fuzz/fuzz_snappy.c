/*
 * fuzz_snappy.c - libFuzzer target for silt's own Snappy block decoder
 * (formats/parquet/snappy_decode.c), checked against libsnappy.
 *
 * The first byte picks the mode. Odd: the rest is plain data, compressed
 * by libsnappy (pq_compress) and decoded by ours, which must give it back
 * byte for byte. Even: the rest is taken as a Snappy block and both
 * decoders run on it; they must agree on accepting it and, when they do,
 * on every byte. Whatever the bytes, ours must end in SILT_OK or
 * SILT_CORRUPT and never write past the buffer (ASan's redzone).
 *
 * One known difference, decided by the format (format_description.txt,
 * "Literals"): a literal whose 4-byte length field holds 0xffffffff has
 * length 2^32, more than any block can hold, and silt refuses it.
 * libsnappy adds the 1 in 32 bits, reads a literal of length 0 and goes on
 * (it accepts 00 fc ff ff ff ff as an empty block; corpus file
 * literal_len_wraps_32bit). Blocks with such a literal are only checked
 * to be refused by silt.
 */
#include <snappy-c.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/parquet/codec.h"
#include "formats/parquet/metadata.h"
#include "util/buf.h"
#include "util/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Large enough for any block the fuzzer makes, small enough to allocate. */
#define MAX_DECODED ((size_t)1 << 24)

static void roundtrip(const uint8_t *data, size_t size)
{
    buf packed = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    uint8_t *back;
    if (pq_compress(PQ_CODEC_SNAPPY, 0, data, size, &packed, &err) != SILT_OK) {
        buf_clear(&packed);
        return; /* out of memory: nothing to check */
    }
    back = mem_alloc(size + 1);
    if (back != NULL) {
        if (pq_snappy_decode((const uint8_t *)packed.data, packed.len, back, size, &err) != SILT_OK ||
            memcmp(back, data, size) != 0)
            __builtin_trap();
        mem_free(back);
    }
    buf_clear(&packed);
    err_clear(&err);
}

/* 1 when the tags of the block, read as libsnappy reads them, reach a literal whose
 * 4-byte length field is 0xffffffff (the one place libsnappy wraps around). */
static int has_wrapping_literal(const uint8_t *data, size_t size)
{
    size_t pos = 0;
    while (pos < size && pos < 5 && (data[pos] & 0x80))
        pos++; /* the preamble: the uncompressed length as a varint */
    for (pos++; pos < size;) {
        uint8_t tag = data[pos++];
        uint64_t len = (uint64_t)(tag >> 2);
        size_t n_bytes, idx;
        switch (tag & 3) {
        case 0:
            if (len >= 60) {
                n_bytes = (size_t)len - 59;
                if (size - pos < n_bytes)
                    return 0;
                for (len = 0, idx = 0; idx < n_bytes; idx++)
                    len |= (uint64_t)data[pos + idx] << (8 * idx);
                if (n_bytes == 4 && len == 0xffffffffu)
                    return 1;
                pos += n_bytes;
            }
            if (size - pos < len + 1)
                return 0;
            pos += (size_t)len + 1;
            break;
        case 1: pos += 1; break;
        case 2: pos += 2; break;
        default: pos += 4; break;
        }
    }
    return 0;
}

static void differential(const uint8_t *data, size_t size)
{
    size_t theirs_len = 0, ours_len;
    int theirs_ok;
    uint8_t *theirs, *ours;
    silt_error err = SILT_ERROR_INIT;
    silt_status rc;
    if (snappy_uncompressed_length((const char *)data, size, &theirs_len) != SNAPPY_OK ||
        theirs_len > MAX_DECODED)
        return; /* no usable length header: nothing to size the output by */
    ours_len = theirs_len;
    theirs = mem_alloc(theirs_len + 1);
    ours = mem_alloc(ours_len + 1);
    if (theirs != NULL && ours != NULL) {
        theirs_ok = snappy_uncompress((const char *)data, size, (char *)theirs, &theirs_len) ==
                    SNAPPY_OK;
        rc = pq_snappy_decode(data, size, ours, ours_len, &err);
        if (rc != SILT_OK && rc != SILT_CORRUPT)
            __builtin_trap();
        if (rc == SILT_OK && has_wrapping_literal(data, size))
            __builtin_trap();
        if ((rc == SILT_OK) != theirs_ok && !(theirs_ok && has_wrapping_literal(data, size)))
            __builtin_trap();
        /* Outputs are compared when both decoded: silt refusing a wrapping literal that
         * libsnappy took leaves nothing of silt's to compare (corpus file
         * wrapping_literal_after_literals, the first finding of the long run). */
        if (theirs_ok && rc == SILT_OK &&
            (theirs_len != ours_len || memcmp(theirs, ours, ours_len) != 0))
            __builtin_trap();
        /* a declared size one byte off is always refused */
        if (ours_len > 0 && pq_snappy_decode(data, size, ours, ours_len - 1, &err) == SILT_OK)
            __builtin_trap();
    }
    mem_free(theirs);
    mem_free(ours);
    err_clear(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] & 1)
        roundtrip(data + 1, size - 1);
    else
        differential(data + 1, size - 1);
    return 0;
}
