/* Parquet encodings on byte vectors built from the examples of Encodings.md. */
#include <string.h>

#include "formats/parquet/decode.h"
#include "test.h"

void test_formats_parquet_decode__rle_hybrid_bit_packed_and_runs(void)
{
    /* Encodings.md: values 0..7 bit-packed with width 3, then a run of five 4s. */
    static const uint8_t bytes[] = {0x03, 0x88, 0xc6, 0xfa, 0x0a, 0x04};
    silt_error err = SILT_ERROR_INIT;
    uint32_t out[13];
    uint16_t levels[13];
    size_t used, idx;
    check_ok(pq_rle_decode_u32(bytes, sizeof(bytes), 3, 13, out, &used, &err), &err);
    for (idx = 0; idx < 8; idx++)
        check_int(idx, out[idx]);
    for (idx = 8; idx < 13; idx++)
        check_int(4, out[idx]);
    check_int(sizeof(bytes), used);
    check_ok(pq_rle_decode_u16(bytes, sizeof(bytes), 3, 13, levels, NULL, &err), &err);
    check_int(7, levels[7]);
    check_int(4, levels[12]);
    /* Asking for more values than the data holds is corruption, not a crash. */
    check_fails(SILT_CORRUPT, pq_rle_decode_u32(bytes, sizeof(bytes), 3, 14, out, NULL, &err));
}

void test_formats_parquet_decode__rle_run_value_wider_than_width(void)
{
    static const uint8_t bytes[] = {0x0a, 0x09}; /* run of 5, value 9 with width 3 */
    silt_error err = SILT_ERROR_INIT;
    uint32_t out[5];
    check_fails(SILT_CORRUPT, pq_rle_decode_u32(bytes, sizeof(bytes), 3, 5, out, NULL, &err));
}

void test_formats_parquet_decode__rle_wide_values(void)
{
    /* width 20: run of 3 copies of 0xABCDE stored in 3 bytes */
    static const uint8_t bytes[] = {0x06, 0xde, 0xbc, 0x0a};
    silt_error err = SILT_ERROR_INIT;
    uint32_t out[3];
    check_ok(pq_rle_decode_u32(bytes, sizeof(bytes), 20, 3, out, NULL, &err), &err);
    check_int(0xabcde, out[2]);
}

void test_formats_parquet_decode__unpack_every_width(void)
{
    uint8_t packed[32 * 4 + 8];
    uint32_t values[32], out[32];
    int width;
    size_t idx;
    for (width = 1; width <= 32; width++) {
        size_t bit = 0;
        memset(packed, 0, sizeof(packed));
        for (idx = 0; idx < 32; idx++) {
            uint64_t mask = width == 32 ? 0xffffffffu : ((uint64_t)1 << width) - 1;
            int b;
            values[idx] = (uint32_t)((idx * 2654435761u) & mask);
            for (b = 0; b < width; b++, bit++)
                if ((values[idx] >> b) & 1)
                    packed[bit / 8] |= (uint8_t)(1u << (bit % 8));
        }
        pq_unpack_u32(packed, (size_t)(32 * width / 8), width, 32, out);
        for (idx = 0; idx < 32; idx++)
            check_int(values[idx], out[idx]);
    }
}

/*
 * Long runs take the unrolled group loop and end in the general one: every
 * width, a count that is not a multiple of 8, an input cut exactly at its
 * last value's byte and an input with slack after it.
 */
void test_formats_parquet_decode__unpack_long_runs_and_tails(void)
{
    enum { N = 203 };
    static uint8_t packed[N * 4 + 16];
    uint32_t values[N], out[N];
    int width, slack;
    size_t idx;
    for (width = 1; width <= 32; width++) {
        uint64_t mask = width == 32 ? 0xffffffffu : ((uint64_t)1 << width) - 1;
        size_t bit = 0, exact = ((size_t)N * (size_t)width + 7) / 8;
        memset(packed, 0, sizeof(packed));
        for (idx = 0; idx < N; idx++) {
            int b;
            values[idx] = (uint32_t)((idx * 2246822519u + 7) & mask);
            for (b = 0; b < width; b++, bit++)
                if ((values[idx] >> b) & 1)
                    packed[bit / 8] |= (uint8_t)(1u << (bit % 8));
        }
        for (slack = 0; slack <= 9; slack += 9) {
            memset(out, 0xee, sizeof(out));
            pq_unpack_u32(packed, exact + (size_t)slack, width, N, out);
            for (idx = 0; idx < N; idx++)
                if (values[idx] != out[idx])
                    break;
            check_int(N, idx);
        }
    }
}

void test_formats_parquet_decode__legacy_bit_packed_levels(void)
{
    /* Encodings.md, BIT_PACKED: 0..7 with width 3 are 00000101 00111001 01110111. */
    static const uint8_t bytes[] = {0x05, 0x39, 0x77};
    silt_error err = SILT_ERROR_INIT;
    uint16_t out[8];
    size_t used, idx;
    check_ok(pq_bitpacked_levels(bytes, sizeof(bytes), 3, 8, out, &used, &err), &err);
    for (idx = 0; idx < 8; idx++)
        check_int(idx, out[idx]);
    check_int(3, used);
    check_fails(SILT_CORRUPT, pq_bitpacked_levels(bytes, 2, 3, 8, out, &used, &err));
}

void test_formats_parquet_decode__plain(void)
{
    static const uint8_t bools[] = {0x0d}; /* 1,0,1,1 */
    static const uint8_t ints[] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
    static const uint8_t strings[] = {3, 0, 0, 0, 'a', 'b', 'c', 0, 0, 0, 0, 2, 0, 0, 0, 'x', 'y'};
    silt_error err = SILT_ERROR_INIT;
    uint8_t b[4];
    int32_t i[2];
    pq_binary bin;
    check_ok(pq_plain_bool(bools, 1, 4, b, &err), &err);
    check_int(1, b[0]);
    check_int(0, b[1]);
    check_int(1, b[3]);
    check_fails(SILT_CORRUPT, pq_plain_bool(bools, 1, 9, b, &err));
    check_ok(pq_plain_fixed(ints, sizeof(ints), 4, 2, i, &err), &err);
    check_int(1, i[0]);
    check_int(-1, i[1]);
    check_fails(SILT_CORRUPT, pq_plain_fixed(ints, sizeof(ints), 4, 3, i, &err));
    pq_binary_init(&bin);
    check_ok(pq_plain_byte_array(strings, sizeof(strings), 3, &bin, &err), &err);
    check_int(3, pq_binary_count(&bin));
    check_int(3, pq_binary_offsets(&bin)[1]);
    check_int(3, pq_binary_offsets(&bin)[2]);
    check_int(5, pq_binary_offsets(&bin)[3]);
    check(memcmp(bin.data.data, "abcxy", 5) == 0);
    /* A length that runs past the data. */
    check_fails(SILT_CORRUPT, pq_plain_byte_array(strings, sizeof(strings) - 1, 3, &bin, &err));
    check_contains(err.message, "PLAIN byte array");
    pq_binary_clear(&bin);
}

void test_formats_parquet_decode__dictionary_indices(void)
{
    static const uint8_t bytes[] = {0x02, 0x03, 0xe4}; /* width 2: 0,1,2,3 bit-packed */
    silt_error err = SILT_ERROR_INIT;
    uint32_t out[4];
    check_ok(pq_dict_indices(bytes, sizeof(bytes), 4, out, &err), &err);
    check_int(0, out[0]);
    check_int(3, out[3]);
    check_fails(SILT_CORRUPT, pq_dict_indices((const uint8_t *)"\x21", 1, 4, out, &err));
}

void test_formats_parquet_decode__delta_binary_packed(void)
{
    /* Encodings.md example 1: 1..5, all deltas 1 (bit width 0). */
    static const uint8_t ex1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0};
    /* Example 2: 7,5,3,1,2,3,4,5: min delta -2, relative deltas 0,0,0,3,3,3,3 in 2 bits. */
    static const uint8_t ex2[] = {0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 2, 0, 0, 0,
                                  0xc0, 0xff, 0, 0, 0, 0, 0, 0};
    static const int64_t want2[] = {7, 5, 3, 1, 2, 3, 4, 5};
    silt_error err = SILT_ERROR_INIT;
    int64_t out[8];
    size_t used, idx, count;
    check_ok(pq_delta_binary_decode(ex1, sizeof(ex1), 5, out, &used, &err), &err);
    for (idx = 0; idx < 5; idx++)
        check_int(idx + 1, out[idx]);
    check_int(sizeof(ex1), used);
    check_ok(pq_delta_binary_count(ex2, sizeof(ex2), &count, &err), &err);
    check_int(8, count);
    check_ok(pq_delta_binary_decode(ex2, sizeof(ex2), 8, out, &used, &err), &err);
    for (idx = 0; idx < 8; idx++)
        check_int(want2[idx], out[idx]);
    check_int(sizeof(ex2), used);
    /* Truncated miniblock, and more values requested than the header holds. */
    check_fails(SILT_CORRUPT, pq_delta_binary_decode(ex2, 10, 8, out, &used, &err));
    check_fails(SILT_CORRUPT, pq_delta_binary_decode(ex1, sizeof(ex1), 6, out, &used, &err));
}

void test_formats_parquet_decode__delta_block_size_is_checked(void)
{
    static const uint8_t bad[] = {0x07, 0x04, 0x05, 0x02}; /* block size 7 */
    silt_error err = SILT_ERROR_INIT;
    int64_t out[5];
    check_fails(SILT_CORRUPT, pq_delta_binary_decode(bad, sizeof(bad), 5, out, NULL, &err));
}

void test_formats_parquet_decode__delta_length_byte_array(void)
{
    /* "Hello", "World", "Foobar", "ABCDEF": lengths 5,5,6,6 -> deltas 0,1,0 in 1 bit. */
    static const uint8_t bytes[] = {0x80, 0x01, 0x04, 0x04, 0x0a, 0x00, 1, 0, 0, 0,
                                    0x02, 0, 0, 0,
                                    'H', 'e', 'l', 'l', 'o', 'W', 'o', 'r', 'l', 'd', 'F',
                                    'o', 'o', 'b', 'a', 'r', 'A', 'B', 'C', 'D', 'E', 'F'};
    silt_error err = SILT_ERROR_INIT;
    pq_binary bin;
    pq_binary_init(&bin);
    check_ok(pq_delta_length_byte_array(bytes, sizeof(bytes), 4, &bin, &err), &err);
    check_int(4, pq_binary_count(&bin));
    check_int(10, pq_binary_offsets(&bin)[2]);
    check_int(22, pq_binary_offsets(&bin)[4]);
    check(memcmp(bin.data.data + 10, "Foobar", 6) == 0);
    pq_binary_clear(&bin);
    pq_binary_init(&bin);
    check_fails(SILT_CORRUPT, pq_delta_length_byte_array(bytes, sizeof(bytes) - 1, 4, &bin, &err));
    pq_binary_clear(&bin);
}

void test_formats_parquet_decode__delta_byte_array(void)
{
    /* "axis", "axle", "babble", "babyhood": prefixes 0,2,0,3, suffixes "axis","le","babble","yhood". */
    static const uint8_t bytes[] = {
        0x80, 0x01, 0x04, 0x04, 0x00, 0x03, 3, 0, 0, 0, 0x44, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0x80, 0x01, 0x04, 0x04, 0x08, 0x03, 3, 0, 0, 0, 0x70, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        'a', 'x', 'i', 's', 'l', 'e', 'b', 'a', 'b', 'b', 'l', 'e', 'y', 'h', 'o', 'o', 'd'};
    static const char *const want[] = {"axis", "axle", "babble", "babyhood"};
    silt_error err = SILT_ERROR_INIT;
    pq_binary bin;
    size_t idx;
    pq_binary_init(&bin);
    check_ok(pq_delta_byte_array(bytes, sizeof(bytes), 4, &bin, &err), &err);
    for (idx = 0; idx < 4; idx++) {
        const int64_t *offs = pq_binary_offsets(&bin);
        check_int(strlen(want[idx]), offs[idx + 1] - offs[idx]);
        check(memcmp(bin.data.data + offs[idx], want[idx], strlen(want[idx])) == 0);
    }
    pq_binary_clear(&bin);
}

void test_formats_parquet_decode__delta_byte_array_prefix_too_long(void)
{
    /* Prefix length 1 for the first value (there is no previous value). */
    static const uint8_t bytes[] = {0x80, 0x01, 0x04, 0x01, 0x02, 0x80, 0x01, 0x04, 0x01, 0x02, 'a'};
    silt_error err = SILT_ERROR_INIT;
    pq_binary bin;
    pq_binary_init(&bin);
    check_fails(SILT_CORRUPT, pq_delta_byte_array(bytes, sizeof(bytes), 1, &bin, &err));
    check_contains(err.message, "prefix");
    pq_binary_clear(&bin);
}

void test_formats_parquet_decode__byte_stream_split(void)
{
    /* 1.0f = 00 00 80 3f, 2.0f = 00 00 00 40, split into four streams. */
    static const uint8_t bytes[] = {0, 0, 0, 0, 0x80, 0, 0x3f, 0x40};
    silt_error err = SILT_ERROR_INIT;
    float out[2];
    check_ok(pq_byte_stream_split(bytes, sizeof(bytes), 4, 2, (uint8_t *)out, &err), &err);
    check(out[0] == 1.0f);
    check(out[1] == 2.0f);
    check_fails(SILT_CORRUPT, pq_byte_stream_split(bytes, sizeof(bytes), 4, 3, (uint8_t *)out, &err));
}

void test_formats_parquet_decode__legacy_bit_packed_every_width(void)
{
    uint8_t packed[64];
    uint16_t values[20], out[20];
    silt_error err = SILT_ERROR_INIT;
    int width;
    size_t idx, used;
    for (width = 1; width <= 16; width++) {
        size_t bit = 0;
        memset(packed, 0, sizeof(packed));
        for (idx = 0; idx < 20; idx++) {
            int b;
            values[idx] = (uint16_t)((idx * 40503u + 7) & ((1u << width) - 1));
            for (b = width - 1; b >= 0; b--, bit++)
                if ((values[idx] >> b) & 1)
                    packed[bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
        }
        check_ok(pq_bitpacked_levels(packed, (bit + 7) / 8, width, 20, out, &used, &err), &err);
        check_int((bit + 7) / 8, used);
        for (idx = 0; idx < 20; idx++)
            check_int(values[idx], out[idx]);
    }
}
