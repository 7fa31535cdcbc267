/*
 * Unit tests of the Parquet writer: the Thrift compact encoder and the
 * encoders against bytes worked out by hand from the specifications
 * (Thrift compact protocol, parquet.thrift, Encodings.md), statistics
 * truncation, and the writer's file layout, statistics and failures.
 *
 * The files are read back by pyarrow and DuckDB in tests/interop; here a
 * small test-only Thrift walker checks page structure directly.
 */
#include <stdio.h>
#include <stdlib.h>

#include "formats/columnar.h"
#include "formats/parquet/encode.h"
#include "formats/parquet/parquet.h"
#include "formats/parquet/thrift_write.h"
#include "formats/parquet/writer.h"
#include "formats/parquet/writer_int.h"
#include "io/store.h"
#include "test.h"
#include "util/arena.h"
#include "util/mem.h"

static silt_error err;
static arena *a;
static io_store *store;

void test_formats_parquet_write__initialize(void)
{
    err_clear(&err);
    a = arena_new(NULL, "test");
    store = NULL;
    check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
}

void test_formats_parquet_write__cleanup(void)
{
    io_store_free(store);
    arena_free(a);
}

static void check_bytes(const buf *b, const uint8_t *expected, size_t n)
{
    if (b->len != n)
        test_fail(__FILE__, __LINE__, "expected %zu bytes, got %zu", n, b->len);
    for (size_t idx = 0; idx < n; idx++)
        if ((uint8_t)b->data[idx] != expected[idx])
            test_fail(__FILE__, __LINE__, "byte %zu: expected 0x%02x, got 0x%02x", idx,
                      expected[idx], (uint8_t)b->data[idx]);
}

/* ---- RLE / bit-packed hybrid ---- */

void test_formats_parquet_write__bit_width(void)
{
    check_int(0, pqw_bit_width(0));
    check_int(1, pqw_bit_width(1));
    check_int(2, pqw_bit_width(2));
    check_int(2, pqw_bit_width(3));
    check_int(3, pqw_bit_width(4));
    check_int(32, pqw_bit_width(UINT32_MAX));
}

void test_formats_parquet_write__rle_bitpacked_spec_example(void)
{
    /* Encodings.md: 0..7 with bit width 3 packs to 10001000 11000110 11111010. */
    uint16_t values[] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const uint8_t expected[] = {0x03, 0x88, 0xC6, 0xFA};
    buf out = BUF_INIT;
    check_ok(pqw_rle_encode_u16(&out, values, 8, 3, &err), &err);
    check_bytes(&out, expected, sizeof(expected));
    buf_clear(&out);
}

void test_formats_parquet_write__rle_runs(void)
{
    uint32_t values[300];
    buf out = BUF_INIT;
    for (int idx = 0; idx < 300; idx++)
        values[idx] = 4;
    /* 300 repeats: header ULEB128(600) = 0xD8 0x04, value 4 in one byte. */
    static const uint8_t run[] = {0xD8, 0x04, 0x04};
    check_ok(pqw_rle_encode_u32(&out, values, 300, 3, &err), &err);
    check_bytes(&out, run, sizeof(run));
    /* Bit width 0: a run of zeros carries no value bytes. */
    buf_truncate(&out, 0);
    uint16_t zeros[10] = {0};
    static const uint8_t zero_run[] = {0x14};
    check_ok(pqw_rle_encode_u16(&out, zeros, 10, 0, &err), &err);
    check_bytes(&out, zero_run, sizeof(zero_run));
    /* A value of bit width 9 takes two bytes in an RLE run. */
    buf_truncate(&out, 0);
    for (int idx = 0; idx < 8; idx++)
        values[idx] = 0x1FF;
    static const uint8_t wide[] = {0x10, 0xFF, 0x01};
    check_ok(pqw_rle_encode_u32(&out, values, 8, 9, &err), &err);
    check_bytes(&out, wide, sizeof(wide));
    buf_clear(&out);
}

void test_formats_parquet_write__rle_mixed_and_padding(void)
{
    /* 1 0 1 then ten 1s then 0: width 1.
     * Group 1 (1,0,1,1,1,1,1,1) is bit-packed because no run of 8 starts at 0;
     * then the 5 remaining 1s and the 0 form a padded bit-packed group. */
    uint16_t values[] = {1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0};
    static const uint8_t expected[] = {0x05, 0xFD, 0x1F};
    buf out = BUF_INIT;
    check_ok(pqw_rle_encode_u16(&out, values, 14, 1, &err), &err);
    check_bytes(&out, expected, sizeof(expected));
    buf_clear(&out);
}

/* Test-only decoder of the hybrid, to round-trip random data. */
static size_t rle_decode(const uint8_t *p, size_t len, int width, uint32_t *out, size_t n)
{
    size_t pos = 0, got = 0;
    while (got < n) {
        uint64_t header = 0;
        int shift = 0;
        check(pos < len);
        while (p[pos] & 0x80) {
            header |= (uint64_t)(p[pos++] & 0x7F) << shift;
            shift += 7;
        }
        header |= (uint64_t)p[pos++] << shift;
        if (header & 1) {
            size_t count = (size_t)(header >> 1) * 8;
            uint64_t acc = 0;
            int bits = 0;
            for (size_t idx = 0; idx < count; idx++) {
                while (bits < width) {
                    check(pos < len);
                    acc |= (uint64_t)p[pos++] << bits;
                    bits += 8;
                }
                uint32_t v = width ? (uint32_t)(acc & ((1ull << width) - 1)) : 0;
                acc >>= width;
                bits -= width;
                if (got < n)
                    out[got++] = v;
            }
        } else {
            size_t count = (size_t)(header >> 1);
            uint32_t v = 0;
            for (int b = 0; b < (width + 7) / 8; b++)
                v |= (uint32_t)p[pos++] << (8 * b);
            for (size_t idx = 0; idx < count && got < n; idx++)
                out[got++] = v;
        }
    }
    return pos;
}

void test_formats_parquet_write__rle_round_trip(void)
{
    static uint32_t values[5000], decoded[5000];
    uint64_t seed = 42;
    for (int width = 0; width <= 32; width += (width < 4 ? 1 : 7)) {
        uint32_t mask = width == 32 ? UINT32_MAX : (uint32_t)((1ull << width) - 1);
        for (int idx = 0; idx < 5000; idx++) {
            seed = seed * 6364136223846793005ULL + 1;
            /* Long runs and noise mixed. */
            values[idx] = (seed >> 60) < 6 && idx > 0 ? values[idx - 1] : (uint32_t)(seed >> 20) & mask;
        }
        for (size_t n = 0; n <= 5000; n += (n < 20 ? 1 : 997)) {
            buf out = BUF_INIT;
            check_ok(pqw_rle_encode_u32(&out, values, n, width, &err), &err);
            size_t used = rle_decode((const uint8_t *)out.data, out.len, width, decoded, n);
            check_int(out.len, used);
            for (size_t idx = 0; idx < n; idx++)
                if (decoded[idx] != values[idx])
                    test_fail(__FILE__, __LINE__, "width %d n %zu value %zu: %u != %u", width, n,
                              idx, decoded[idx], values[idx]);
            buf_clear(&out);
        }
    }
}

void test_formats_parquet_write__plain_booleans(void)
{
    uint8_t values[] = {1, 0, 1, 1, 0, 0, 0, 0, 1};
    static const uint8_t expected[] = {0x0D, 0x01};
    buf out = BUF_INIT;
    check_ok(pqw_plain_bools(&out, values, 9, &err), &err);
    check_bytes(&out, expected, sizeof(expected));
    buf_clear(&out);
}

void test_formats_parquet_write__dictionary(void)
{
    pqw_dict d;
    uint32_t idx[5];
    pqw_dict_init(&d, 0);
    const char *ptrs[] = {"ab", "", "ab", "c", ""};
    int32_t lens[] = {2, 0, 2, 1, 0};
    check_ok(pqw_dict_add_bytes(&d, ptrs, lens, 5, idx, &err), &err);
    check_int(3, d.count);
    check_int(0, idx[0]);
    check_int(1, idx[1]);
    check_int(0, idx[2]);
    check_int(2, idx[3]);
    check_int(1, idx[4]);
    /* The dictionary page body is the PLAIN encoding of the entries. */
    static const uint8_t plain[] = {2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0, 1, 0, 0, 0, 'c'};
    check_bytes(&d.plain, plain, sizeof(plain));
    pqw_dict_clear(&d);

    /* Fixed width, enough entries to rehash several times. */
    pqw_dict_init(&d, 8);
    static int64_t v[20000];
    static uint32_t out[20000];
    for (int k = 0; k < 20000; k++)
        v[k] = (k * 7) % 5000 - 2500;
    check_ok(pqw_dict_add_fixed(&d, (const uint8_t *)v, 20000, out, &err), &err);
    check_int(5000, d.count);
    for (int k = 0; k < 20000; k++) {
        int64_t entry;
        memcpy(&entry, d.plain.data + (size_t)out[k] * 8, 8);
        check_int(v[k], entry);
    }
    pqw_dict_reset(&d);
    check_int(0, d.count);
    check_ok(pqw_dict_add_fixed(&d, (const uint8_t *)&v[3], 1, out, &err), &err);
    check_int(0, out[0]);
    pqw_dict_clear(&d);
}

/* Runs of equal strings take the previous index without a lookup; a run
 * that breaks (same length, other bytes) must not. */
void test_formats_parquet_write__dictionary_runs(void)
{
    pqw_dict d;
    uint32_t idx[9];
    static const uint32_t want[9] = {0, 0, 0, 1, 1, 0, 2, 2, 3};
    char copy[3] = "ab";
    pqw_dict_init(&d, 0);
    const char *ptrs[] = {"ab", "ab", copy, "ac", "ac", "ab", "", "", "abc"};
    int32_t lens[] = {2, 2, 2, 2, 2, 2, 0, 0, 3};
    check_ok(pqw_dict_add_bytes(&d, ptrs, lens, 9, idx, &err), &err);
    check_int(4, d.count);
    for (int k = 0; k < 9; k++)
        check_int(want[k], idx[k]);
    pqw_dict_clear(&d);
}

/* ---- Thrift compact encoding ---- */

void test_formats_parquet_write__thrift_fields(void)
{
    buf out = BUF_INIT;
    pqw_tw tw;
    pqw_tw_init(&tw, &out, &err);
    pqw_tw_i32(&tw, 1, 1);        /* 0x15 0x02 */
    pqw_tw_i32(&tw, 20, -1);      /* long form: 0x05, zigzag(20)=0x28, zigzag(-1)=0x01 */
    pqw_tw_bool(&tw, 21, 1);      /* 0x11 */
    pqw_tw_bool(&tw, 22, 0);      /* 0x12 */
    pqw_tw_i64(&tw, 23, 300);     /* 0x16, zigzag(300)=600 = 0xD8 0x04 */
    pqw_tw_string(&tw, 24, "hi"); /* 0x18 0x02 'h' 'i' */
    pqw_tw_struct_begin(&tw, 25); /* 0x1C */
    pqw_tw_i8(&tw, 1, -2);        /* 0x13 0xFE */
    pqw_tw_struct_end(&tw);       /* 0x00 */
    pqw_tw_i16(&tw, 26, 7);       /* delta from 25, not from the inner field: 0x14 0x0E */
    pqw_tw_list_begin(&tw, 27, PQW_CT_I32, 3); /* 0x19 0x35 */
    pqw_tw_elem_i32(&tw, 0);
    pqw_tw_elem_i32(&tw, 1);
    pqw_tw_elem_i32(&tw, -1);     /* 0x00 0x02 0x01 */
    pqw_tw_list_begin(&tw, 28, PQW_CT_BINARY, 20); /* 0x19 0xF8 0x14 */
    pqw_tw_struct_end(&tw);
    check_ok(pqw_tw_status(&tw), &err);
    static const uint8_t expected[] = {0x15, 0x02, 0x05, 0x28, 0x01, 0x11, 0x12, 0x16, 0xD8, 0x04,
                                       0x18, 0x02, 'h',  'i',  0x1C, 0x13, 0xFE, 0x00, 0x14, 0x0E,
                                       0x19, 0x35, 0x00, 0x02, 0x01, 0x19, 0xF8, 0x14, 0x00};
    check_bytes(&out, expected, sizeof(expected));
    buf_clear(&out);
}

void test_formats_parquet_write__thrift_page_header(void)
{
    buf out = BUF_INIT;
    pqw_page_header ph = {PQW_PAGE_DATA, 100, 50, 10, PQW_ENC_PLAIN, PQW_ENC_RLE, PQW_ENC_RLE};
    check_ok(pqw_thrift_page_header(&out, &ph, &err), &err);
    static const uint8_t data[] = {0x15, 0x00, 0x15, 0xC8, 0x01, 0x15, 0x64, 0x2C, 0x15, 0x14,
                                   0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00};
    check_bytes(&out, data, sizeof(data));
    buf_truncate(&out, 0);
    pqw_page_header dict = {PQW_PAGE_DICTIONARY, 8, 8, 2, PQW_ENC_PLAIN_DICTIONARY, 0, 0};
    check_ok(pqw_thrift_page_header(&out, &dict, &err), &err);
    /* type 2, sizes 8, then field 7 (delta 4): num_values 2, encoding PLAIN_DICTIONARY. */
    static const uint8_t dict_bytes[] = {0x15, 0x04, 0x15, 0x10, 0x15, 0x10, 0x4C,
                                         0x15, 0x04, 0x15, 0x04, 0x00, 0x00};
    check_bytes(&out, dict_bytes, sizeof(dict_bytes));
    buf_clear(&out);
}

void test_formats_parquet_write__thrift_statistics(void)
{
    buf out = BUF_INIT;
    pqw_stats_meta st = {1, 3, 1, (const uint8_t *)"a", 1, (const uint8_t *)"zz", 2, 1, 0};
    check_ok(pqw_thrift_statistics(&out, &st, &err), &err);
    /* null_count (3), max_value (5), min_value (6), is_max_value_exact (7) false,
     * is_min_value_exact (8) true. */
    static const uint8_t expected[] = {0x36, 0x06, 0x28, 0x02, 'z', 'z', 0x18, 0x01,
                                       'a',  0x12, 0x11, 0x00};
    check_bytes(&out, expected, sizeof(expected));
    buf_clear(&out);
}

void test_formats_parquet_write__thrift_schema_element(void)
{
    buf out = BUF_INIT;
    pqw_schema_elem se;
    memset(&se, 0, sizeof(se));
    se.name = "ts";
    se.has_type = 1;
    se.type = PQW_INT64;
    se.has_repetition = 1;
    se.repetition = PQW_OPTIONAL;
    se.num_children = -1;
    se.converted_type = PQW_CONV_TIMESTAMP_MICROS;
    se.has_field_id = 1;
    se.field_id = 7;
    se.logical.kind = PQW_LT_TIMESTAMP;
    se.logical.utc_adjusted = 1;
    se.logical.unit = PQW_UNIT_MICROS;
    check_ok(pqw_thrift_schema_elem(&out, &se, &err), &err);
    static const uint8_t expected[] = {
        0x15, 0x04,            /* type INT64 */
        0x25, 0x02,            /* repetition OPTIONAL (field 3) */
        0x18, 0x02, 't', 's',  /* name */
        0x25, 0x14,            /* converted_type TIMESTAMP_MICROS (field 6) */
        0x35, 0x0E,            /* field_id 7 (field 9) */
        0x1C,                  /* logicalType (field 10) */
        0x8C,                  /* TIMESTAMP (field 8) */
        0x11,                  /* isAdjustedToUTC true */
        0x1C, 0x2C, 0x00,      /* unit: MICROS {} */
        0x00,                  /* end unit */
        0x00, 0x00, 0x00};     /* end TimestampType, LogicalType, SchemaElement */
    check_bytes(&out, expected, sizeof(expected));
    buf_clear(&out);
}

/* ---- statistics truncation ---- */

void test_formats_parquet_write__truncate_bounds(void)
{
    int exact;
    buf out = BUF_INIT;
    check_int(3, pqw_truncate_min("abc", 3, 4, 1, &exact));
    check_int(1, exact);
    check_int(4, pqw_truncate_min("abcdef", 6, 4, 1, &exact));
    check_int(0, exact);
    /* "abé…" with limit 3 cuts before the 2-byte é, not inside it. */
    check_int(2, pqw_truncate_min("ab\xC3\xA9xyz", 7, 3, 1, &exact));
    check_int(3, pqw_truncate_min("ab\xC3\xA9xyz", 7, 3, 0, &exact));

    check_ok(pqw_truncate_max("abcdef", 6, 4, 1, &out, &exact, &err), &err);
    check_str("abce", buf_cstr(&out));
    check_int(0, exact);
    /* Binary: 0xFF bytes carry. */
    check_ok(pqw_truncate_max("ab\xFF\xFFzz", 6, 4, 0, &out, &exact, &err), &err);
    check_int(2, out.len);
    check(memcmp(out.data, "ac", 2) == 0);
    /* All 0xFF: no shorter upper bound exists; keep the value whole. */
    check_ok(pqw_truncate_max("\xFF\xFF\xFF", 3, 2, 0, &out, &exact, &err), &err);
    check_int(3, out.len);
    check_int(1, exact);
    /* UTF-8: é (U+00E9) becomes ê (U+00EA); U+007F becomes U+0080 (2 bytes). */
    check_ok(pqw_truncate_max("a\xC3\xA9zz", 5, 3, 1, &out, &exact, &err), &err);
    check_str("a\xC3\xAA", buf_cstr(&out));
    check_ok(pqw_truncate_max("a\x7Fzz", 4, 2, 1, &out, &exact, &err), &err);
    check_str("a\xC2\x80", buf_cstr(&out));
    /* U+10FFFF cannot grow: drop it and increment the one before. */
    check_ok(pqw_truncate_max("a\xF4\x8F\xBF\xBFzz", 7, 5, 1, &out, &exact, &err), &err);
    check_str("b", buf_cstr(&out));
    /* U+D7FF skips the surrogates to U+E000. */
    check_ok(pqw_truncate_max("\xED\x9F\xBFzz", 5, 3, 1, &out, &exact, &err), &err);
    check_str("\xEE\x80\x80", buf_cstr(&out));
    buf_clear(&out);
}

/* ---- the writer ---- */

/* A test-only walker over the pages of a one-column file. */
typedef struct page_info {
    int32_t type, uncompressed, compressed, num_values, encoding;
    int has_size;       /* field 3 was there: a PageHeader, not a page index struct */
    size_t header_offset;
    size_t body_offset; /* where the page body starts in the file */
} page_info;

static size_t pages_end; /* where the last walk_pages found the page index (or footer) */

static uint64_t rd_varint(const uint8_t *p, size_t len, size_t *pos)
{
    uint64_t v = 0;
    int shift = 0;
    for (;;) {
        check(*pos < len && shift < 64);
        uint8_t b = p[(*pos)++];
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80))
            return v;
        shift += 7;
    }
}

static int64_t rd_zigzag(const uint8_t *p, size_t len, size_t *pos)
{
    uint64_t v = rd_varint(p, len, pos);
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Reads a struct; i32 fields 1..3 and the first two i32 of nested structs 5 and 7 go to info. */
static void rd_struct(const uint8_t *p, size_t len, size_t *pos, page_info *info, int depth);

static void rd_value(const uint8_t *p, size_t len, size_t *pos, int type, int16_t fid,
                     page_info *info, int depth)
{
    switch (type) {
    case 1:
    case 2:
        break;
    case 3:
        (*pos)++;
        break;
    case 4:
    case 5:
    case 6: {
        int64_t v = rd_zigzag(p, len, pos);
        if (info != NULL && depth == 0 && fid == 1)
            info->type = (int32_t)v;
        if (info != NULL && depth == 0 && fid == 2)
            info->uncompressed = (int32_t)v;
        if (info != NULL && depth == 0 && fid == 3) {
            info->compressed = (int32_t)v;
            info->has_size = 1;
        }
        if (info != NULL && depth == 1 && fid == 1)
            info->num_values = (int32_t)v;
        if (info != NULL && depth == 1 && fid == 2)
            info->encoding = (int32_t)v;
        break;
    }
    case 7:
        *pos += 8;
        break;
    case 8:
        *pos += rd_varint(p, len, pos);
        break;
    case 9:
    case 10: {
        uint8_t h = p[(*pos)++];
        uint64_t n = h >> 4;
        if (n == 15)
            n = rd_varint(p, len, pos);
        for (uint64_t e = 0; e < n; e++)
            rd_value(p, len, pos, h & 0x0F, 0, NULL, depth + 1);
        break;
    }
    case 12:
        rd_struct(p, len, pos, depth == 0 && (fid == 5 || fid == 7) ? info : NULL, depth + 1);
        break;
    default:
        test_fail(__FILE__, __LINE__, "unexpected thrift type %d at %zu", type, *pos);
    }
    check(*pos <= len);
}

static void rd_struct(const uint8_t *p, size_t len, size_t *pos, page_info *info, int depth)
{
    int16_t fid = 0;
    for (;;) {
        check(*pos < len);
        uint8_t h = p[(*pos)++];
        if (h == 0)
            return;
        if (h >> 4)
            fid = (int16_t)(fid + (h >> 4));
        else
            fid = (int16_t)rd_zigzag(p, len, pos);
        rd_value(p, len, pos, h & 0x0F, fid, info, depth);
    }
}

/* Reads the pages of a one-leaf file into pages[]; returns how many. */
static size_t walk_pages(const char *key, page_info *pages, size_t max)
{
    buf file = BUF_INIT;
    check_ok(io_get(store, key, &file, &err), &err);
    const uint8_t *p = (const uint8_t *)file.data;
    check(file.len >= 12);
    check(memcmp(p, "PAR1", 4) == 0 && memcmp(p + file.len - 4, "PAR1", 4) == 0);
    uint32_t footer_len = (uint32_t)p[file.len - 8] | (uint32_t)p[file.len - 7] << 8 |
                          (uint32_t)p[file.len - 6] << 16 | (uint32_t)p[file.len - 5] << 24;
    check(footer_len + 12 <= file.len);
    size_t end = file.len - 8 - footer_len, pos = 4, n = 0;
    /* Pages run up to the page index, whose structs have no field 3. */
    while (pos < end) {
        size_t at = pos;
        page_info info;
        memset(&info, 0, sizeof(info));
        rd_struct(p, end, &pos, &info, 0);
        if (!info.has_size) {
            pos = at;
            break;
        }
        check(n < max);
        info.header_offset = at;
        info.body_offset = pos;
        pages[n++] = info;
        pos += (size_t)info.compressed;
    }
    pages_end = pos;
    buf_clear(&file);
    return n;
}

static col_type *one_column(const char *name, const col_type *type, int nullable)
{
    col_field *f = arena_calloc(a, 1, sizeof(col_field));
    f->name = name;
    f->type = type;
    f->nullable = nullable;
    f->field_id = -1;
    return col_type_struct(a, 1, f);
}

static col_batch *long_batch(col_type *schema, int64_t n, int64_t distinct, int null_every)
{
    col_builder *b;
    col_vec *v;
    check_ok(col_builder_new(&b, a, schema->fields[0].type, &err), &err);
    for (int64_t r = 0; r < n; r++) {
        if (null_every && r % null_every == 0)
            check_ok(col_builder_append_null(b, &err), &err);
        else
            check_ok(col_builder_append_int(b, r % distinct - 7, &err), &err);
    }
    check_ok(col_builder_finish(b, &v, &err), &err);
    col_batch *batch = arena_calloc(a, 1, sizeof(col_batch));
    batch->schema = schema;
    batch->n_rows = n;
    batch->n_cols = 1;
    batch->cols = arena_calloc(a, 1, sizeof(col_vec *));
    batch->cols[0] = v;
    return batch;
}

static void check_no_files(void)
{
    io_listing list = IO_LISTING_INIT;
    check_ok(io_list(store, "", NULL, 1, &list, &err), &err);
    check_int(0, list.count);
    io_listing_clear(&list);
}

void test_formats_parquet_write__pages_and_row_groups(void)
{
    col_type *schema = one_column("v", col_type_primitive(COL_LONG), 1);
    pqw_options opts = PQW_OPTIONS_INIT;
    pqw_writer *w;
    pqw_file_stats st = PQW_FILE_STATS_INIT;
    static page_info pages[1000];
    opts.row_group_rows = 4000;
    opts.page_bytes = 1024;
    opts.codec = PQW_CODEC_UNCOMPRESSED;
    check_ok(pqw_writer_open(&w, store, "t.parquet", schema, &opts, &err), &err);
    col_batch *batch = long_batch(schema, 10000, 301, 10);
    check_ok(pqw_writer_write_batch(w, batch, &err), &err);
    check_ok(pqw_writer_close(w, &st, &err), &err);
    size_t n = walk_pages("t.parquet", pages, 1000);
    int dict_pages = 0, data_pages = 0;
    int64_t values = 0;
    for (size_t k = 0; k < n; k++) {
        if (pages[k].type == PQW_PAGE_DICTIONARY) {
            dict_pages++;
            check_int(301, pages[k].num_values);
            check_int(PQW_ENC_PLAIN_DICTIONARY, pages[k].encoding);
            check_int(301 * 8, pages[k].uncompressed);
        } else {
            data_pages++;
            check_int(PQW_ENC_RLE_DICTIONARY, pages[k].encoding);
            values += pages[k].num_values;
        }
    }
    /* A dictionary page opens each of the 3 row groups; pages were cut at 1 KiB. */
    check_int(3, dict_pages);
    check_int(PQW_PAGE_DICTIONARY, pages[0].type);
    check(data_pages > 3);
    check_int(10000, values);
    check_int(3, st.n_row_groups);
    check_int(10000, st.num_records);
    check_int(1, st.n_leaves);
    check_int(1000, st.leaves[0].null_count);
    check_int(1, st.leaves[0].has_min_max);
    check_int(-7, st.leaves[0].min.i);
    check_int(300 - 7, st.leaves[0].max.i);
    check_str("v", st.leaves[0].path[0]);
    pqw_file_stats_clear(&st);
}

void test_formats_parquet_write__plain_pages_without_dictionary(void)
{
    col_type *schema = one_column("v", col_type_primitive(COL_LONG), 0);
    pqw_options opts = PQW_OPTIONS_INIT;
    pqw_writer *w;
    static page_info pages[100];
    opts.dictionary = 0;
    opts.page_bytes = 8000;
    opts.codec = PQW_CODEC_UNCOMPRESSED;
    check_ok(pqw_writer_open(&w, store, "p.parquet", schema, &opts, &err), &err);
    check_ok(pqw_writer_write_batch(w, long_batch(schema, 5000, 5000, 0), &err), &err);
    check_ok(pqw_writer_close(w, NULL, &err), &err);
    size_t n = walk_pages("p.parquet", pages, 100);
    check_int(5, n); /* 1024-row slices of 8 KiB each */
    for (size_t k = 0; k < n; k++) {
        check_int(PQW_PAGE_DATA, pages[k].type);
        check_int(PQW_ENC_PLAIN, pages[k].encoding);
        /* A required top-level column has no levels: the body is the values alone. */
        check_int(pages[k].num_values * 8, pages[k].uncompressed);
    }
}

void test_formats_parquet_write__dictionary_falls_back_to_plain(void)
{
    col_type *schema = one_column("s", col_type_primitive(COL_STRING), 1);
    pqw_options opts = PQW_OPTIONS_INIT;
    pqw_writer *w;
    static page_info pages[100];
    col_builder *b;
    col_vec *v;
    opts.dictionary_max_bytes = 2000;
    opts.codec = PQW_CODEC_ZSTD;
    check_ok(col_builder_new(&b, a, col_type_primitive(COL_STRING), &err), &err);
    for (int r = 0; r < 5000; r++) {
        char s[32];
        int len = snprintf(s, sizeof(s), "value-%d", r);
        check_ok(col_builder_append_bytes(b, s, (size_t)len, &err), &err);
    }
    check_ok(col_builder_finish(b, &v, &err), &err);
    col_batch batch = {schema, 5000, 1, &v};
    check_ok(pqw_writer_open(&w, store, "f.parquet", schema, &opts, &err), &err);
    check_ok(pqw_writer_write_batch(w, &batch, &err), &err);
    check_ok(pqw_writer_close(w, NULL, &err), &err);
    size_t n = walk_pages("f.parquet", pages, 100);
    check(n >= 3);
    check_int(PQW_PAGE_DICTIONARY, pages[0].type);
    check_int(PQW_ENC_RLE_DICTIONARY, pages[1].encoding);
    check_int(PQW_ENC_PLAIN, pages[n - 1].encoding);
    int64_t values = 0;
    for (size_t k = 1; k < n; k++)
        values += pages[k].num_values;
    check_int(5000, values);
}

void test_formats_parquet_write__file_stats(void)
{
    col_field fields[4];
    memset(fields, 0, sizeof(fields));
    fields[0] = (col_field){"s", col_type_primitive(COL_STRING), 1, NULL, -1};
    fields[1] = (col_field){"d", col_type_primitive(COL_DOUBLE), 1, NULL, -1};
    fields[2] = (col_field){"arr", col_type_array(a, col_type_primitive(COL_INT), 1), 1, NULL, -1};
    fields[3] = (col_field){"dec", col_type_decimal(a, 30, 2), 1, NULL, -1};
    col_type *schema = col_type_struct(a, 4, fields);
    col_builder *b[4];
    col_vec *cols[4];
    for (int c = 0; c < 4; c++)
        check_ok(col_builder_new(&b[c], a, fields[c].type, &err), &err);
    /* Row 0 */
    check_ok(col_builder_append_bytes(b[0], "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
                                      80, &err), &err);
    check_ok(col_builder_append_double(b[1], 0.0, &err), &err);
    check_ok(col_builder_append_int(col_builder_child(b[2], 0), 5, &err), &err);
    check_ok(col_builder_append_null(col_builder_child(b[2], 0), &err), &err);
    check_ok(col_builder_append_list(b[2], 2, &err), &err);
    check_ok(col_builder_append_decimal(b[3], -((col_int128)1 << 90), &err), &err);
    /* Row 1 */
    check_ok(col_builder_append_bytes(b[0], "a", 1, &err), &err);
    check_ok(col_builder_append_double(b[1], 0.0 / 0.0, &err), &err);
    check_ok(col_builder_append_list(b[2], 0, &err), &err);
    check_ok(col_builder_append_decimal(b[3], 12345, &err), &err);
    /* Row 2 */
    check_ok(col_builder_append_null(b[0], &err), &err);
    check_ok(col_builder_append_double(b[1], -2.5, &err), &err);
    check_ok(col_builder_append_null(b[2], &err), &err);
    check_ok(col_builder_append_null(b[3], &err), &err);
    for (int c = 0; c < 4; c++)
        check_ok(col_builder_finish(b[c], &cols[c], &err), &err);
    col_batch batch = {schema, 3, 4, cols};
    pqw_options opts = PQW_OPTIONS_INIT;
    opts.stats_max_bytes = 16;
    pqw_writer *w;
    pqw_file_stats st = PQW_FILE_STATS_INIT;
    check_ok(pqw_writer_open(&w, store, "s.parquet", schema, &opts, &err), &err);
    check_ok(pqw_writer_write_batch(w, &batch, &err), &err);
    check_ok(pqw_writer_close(w, &st, &err), &err);
    check_int(3, st.num_records);
    check_int(4, st.n_leaves);
    /* strings: the 80-byte max is truncated to 16 bytes and incremented */
    check_int(1, st.leaves[0].null_count);
    check_int(1, st.leaves[0].min.len);
    check_int(1, st.leaves[0].min_exact);
    check_int(16, st.leaves[0].max.len);
    check(memcmp(st.leaves[0].max.bytes, "bbbbbbbbbbbbbbbc", 16) == 0);
    check_int(0, st.leaves[0].max_exact);
    check_int(0, st.leaves[0].in_repeated);
    /* doubles: NaN is not a bound */
    check_int(0, st.leaves[1].null_count);
    check(st.leaves[1].min.d == -2.5 && st.leaves[1].max.d == 0.0);
    /* array<int>: path through the element, marked repeated; a null element, an
     * empty list and a null list are three null level entries */
    check_int(2, st.leaves[2].path_len);
    check_str("arr", st.leaves[2].path[0]);
    check_str("element", st.leaves[2].path[1]);
    check_int(1, st.leaves[2].in_repeated);
    check_int(3, st.leaves[2].null_count);
    check_int(5, st.leaves[2].min.i);
    check_int(5, st.leaves[2].max.i);
    /* decimals beyond 64 bits */
    check(st.leaves[3].min.dec == -((col_int128)1 << 90));
    check(st.leaves[3].max.dec == 12345);
    pqw_file_stats_clear(&st);
}

void test_formats_parquet_write__null_in_required_column(void)
{
    col_type *schema = one_column("v", col_type_primitive(COL_LONG), 0);
    pqw_writer *w;
    check_ok(pqw_writer_open(&w, store, "n.parquet", schema, NULL, &err), &err);
    check_fails(SILT_INVALID, pqw_writer_write_batch(w, long_batch(schema, 100, 10, 7), &err));
    check_contains(err.message, "\"v\" is not nullable");
    check_contains(err.context, "n.parquet");
    check_fails(SILT_INVALID, pqw_writer_write_batch(w, long_batch(schema, 10, 10, 0), &err));
    check_fails(SILT_INVALID, pqw_writer_close(w, NULL, &err));
    check_no_files();
}

void test_formats_parquet_write__nested_required_null(void)
{
    /* array<long> whose elements may not be null, given a null element */
    col_type *schema = one_column("arr", col_type_array(a, col_type_primitive(COL_LONG), 0), 1);
    col_builder *b;
    col_vec *v;
    pqw_writer *w;
    check_ok(col_builder_new(&b, a, schema->fields[0].type, &err), &err);
    check_ok(col_builder_append_null(col_builder_child(b, 0), &err), &err);
    check_ok(col_builder_append_list(b, 1, &err), &err);
    check_ok(col_builder_finish(b, &v, &err), &err);
    col_batch batch = {schema, 1, 1, &v};
    check_ok(pqw_writer_open(&w, store, "n.parquet", schema, NULL, &err), &err);
    check_fails(SILT_INVALID, pqw_writer_write_batch(w, &batch, &err));
    check_contains(err.message, "\"element\" is not nullable");
    pqw_writer_abort(w);
    check_no_files();
}

void test_formats_parquet_write__batch_must_match_schema(void)
{
    col_type *schema = one_column("v", col_type_primitive(COL_LONG), 1);
    col_type *other = one_column("v", col_type_primitive(COL_INT), 1);
    pqw_writer *w;
    check_ok(pqw_writer_open(&w, store, "m.parquet", schema, NULL, &err), &err);
    col_batch *batch = long_batch(other, 10, 10, 0);
    check_fails(SILT_INVALID, pqw_writer_write_batch(w, batch, &err));
    check_contains(err.message, "differs from the file schema");
    pqw_writer_abort(w);
    check_no_files();
}

void test_formats_parquet_write__bad_options_and_types(void)
{
    col_type *schema = one_column("v", col_type_primitive(COL_LONG), 1);
    pqw_options opts = PQW_OPTIONS_INIT;
    pqw_writer *w = NULL;
    opts.codec = 3; /* LZO */
    check_fails(SILT_INVALID, pqw_writer_open(&w, store, "o.parquet", schema, &opts, &err));
    check(w == NULL);
    opts = (pqw_options)PQW_OPTIONS_INIT;
    opts.page_bytes = 0;
    check_fails(SILT_INVALID, pqw_writer_open(&w, store, "o.parquet", schema, &opts, &err));
    opts = (pqw_options)PQW_OPTIONS_INIT;
    pqw_kv kv = {NULL, "v"};
    opts.kv = &kv;
    opts.n_kv = 1;
    check_fails(SILT_INVALID, pqw_writer_open(&w, store, "o.parquet", schema, &opts, &err));
    check_contains(err.message, "has no key");
    check_fails(SILT_UNSUPPORTED, pqw_writer_open(&w, store, "o.parquet",
                                                  one_column("n", col_type_primitive(COL_NULL), 1),
                                                  NULL, &err));
    check_contains(err.message, "\"void\"");
    check_fails(SILT_INVALID, pqw_writer_open(&w, store, "o.parquet", col_type_primitive(COL_INT),
                                              NULL, &err));
    check_fails(SILT_INVALID, pqw_writer_open(&w, store, "../o.parquet", schema, NULL, &err));
    check_no_files();
}

void test_formats_parquet_write__store_failure_leaves_nothing(void)
{
    io_store *inner = NULL, *faulty = NULL;
    io_fault_plan plan = IO_FAULT_PLAN_INIT;
    col_type *schema = one_column("v", col_type_primitive(COL_LONG), 1);
    pqw_writer *w;
    plan.fail_write_nth = 1; /* the commit */
    check_ok(io_store_open(&inner, test_tmpdir(), 0, &err), &err);
    check_ok(io_fault_store_wrap(&faulty, inner, &plan, &err), &err);
    check_ok(pqw_writer_open(&w, faulty, "x.parquet", schema, NULL, &err), &err);
    check_ok(pqw_writer_write_batch(w, long_batch(schema, 100, 10, 3), &err), &err);
    check_fails(SILT_IO, pqw_writer_close(w, NULL, &err));
    check_contains(err.context, "x.parquet");
    io_store_free(faulty);
    check_no_files();
}

void test_formats_parquet_write__never_replaces_a_file(void)
{
    col_type *schema = one_column("v", col_type_primitive(COL_LONG), 1);
    pqw_writer *w;
    buf before = BUF_INIT, after = BUF_INIT;
    check_ok(io_put(store, "e.parquet", "keep", 4, &err), &err);
    check_ok(pqw_writer_open(&w, store, "e.parquet", schema, NULL, &err), &err);
    check_ok(pqw_writer_write_batch(w, long_batch(schema, 10, 10, 0), &err), &err);
    check_fails(SILT_EXISTS, pqw_writer_close(w, NULL, &err));
    check_ok(io_get(store, "e.parquet", &after, &err), &err);
    check_str("keep", buf_cstr(&after));
    buf_clear(&before);
    buf_clear(&after);
}

void test_formats_parquet_write__empty_file(void)
{
    col_type *schema = one_column("v", col_type_primitive(COL_STRING), 1);
    pqw_writer *w;
    pqw_file_stats st = PQW_FILE_STATS_INIT;
    static page_info pages[4];
    check_ok(pqw_writer_open(&w, store, "z.parquet", schema, NULL, &err), &err);
    check_ok(pqw_writer_close(w, &st, &err), &err);
    check_int(0, walk_pages("z.parquet", pages, 4));
    check_int(0, st.num_records);
    check_int(0, st.n_row_groups);
    check_int(0, st.leaves[0].has_min_max);
    pqw_file_stats_clear(&st);
}

void test_formats_parquet_write__malformed_vectors(void)
{
    col_type *schema = one_column("s", col_type_primitive(COL_STRING), 1);
    col_builder *b;
    col_vec *v;
    pqw_writer *w;
    check_ok(col_builder_new(&b, a, col_type_primitive(COL_STRING), &err), &err);
    check_ok(col_builder_append_bytes(b, "abc", 3, &err), &err);
    check_ok(col_builder_append_bytes(b, "de", 2, &err), &err);
    check_ok(col_builder_finish(b, &v, &err), &err);
    col_batch batch = {schema, 2, 1, &v};
    check_ok(pqw_writer_open(&w, store, "v.parquet", schema, NULL, &err), &err);
    v->offsets[2] = 99; /* past the data */
    check_fails(SILT_INVALID, pqw_writer_write_batch(w, &batch, &err));
    check_contains(err.message, "past the data");
    pqw_writer_abort(w);

    /* A dictionary-encoded vector with an index past its dictionary. */
    v->offsets[2] = 5;
    col_vec dict_vec = *v;
    int32_t idx[2] = {1, 2};
    dict_vec.values = idx;
    dict_vec.dictionary = v;
    col_vec *dv = &dict_vec;
    col_batch dict_batch = {schema, 2, 1, &dv};
    check_ok(pqw_writer_open(&w, store, "v.parquet", schema, NULL, &err), &err);
    check_fails(SILT_INVALID, pqw_writer_write_batch(w, &dict_batch, &err));
    check_contains(err.message, "dictionary index is out of range");
    pqw_writer_abort(w);

    /* The same vector with valid indices is written. */
    idx[1] = 0;
    check_ok(pqw_writer_open(&w, store, "v.parquet", schema, NULL, &err), &err);
    check_ok(pqw_writer_write_batch(w, &dict_batch, &err), &err);
    pqw_file_stats st = PQW_FILE_STATS_INIT;
    check_ok(pqw_writer_close(w, &st, &err), &err);
    check_int(3, st.leaves[0].min.len);
    check(memcmp(st.leaves[0].min.bytes, "abc", 3) == 0);
    check(memcmp(st.leaves[0].max.bytes, "de", 2) == 0);
    pqw_file_stats_clear(&st);
}

void test_formats_parquet_write__wide_values_make_small_pages(void)
{
    col_type *schema = one_column("s", col_type_primitive(COL_BINARY), 0);
    pqw_options opts = PQW_OPTIONS_INIT;
    pqw_writer *w;
    static page_info pages[200];
    col_builder *b;
    col_vec *v;
    char *big = arena_alloc(a, 100000);
    opts.page_bytes = 64 * 1024;
    opts.dictionary = 0;
    check_ok(col_builder_new(&b, a, col_type_primitive(COL_BINARY), &err), &err);
    for (int r = 0; r < 100; r++) {
        memset(big, r, 100000);
        check_ok(col_builder_append_bytes(b, big, 100000, &err), &err);
    }
    check_ok(col_builder_finish(b, &v, &err), &err);
    col_batch batch = {schema, 100, 1, &v};
    check_ok(pqw_writer_open(&w, store, "w.parquet", schema, &opts, &err), &err);
    check_ok(pqw_writer_write_batch(w, &batch, &err), &err);
    check_ok(pqw_writer_close(w, NULL, &err), &err);
    size_t n = walk_pages("w.parquet", pages, 200);
    /* Slices shrink until a page holds about one 100 kB value. */
    check(n >= 50);
    int64_t values = 0;
    for (size_t k = 0; k < n; k++) {
        values += pages[k].num_values;
        if (k >= 10)
            check(pages[k].uncompressed <= 2 * 100004);
    }
    check_int(100, values);
}

void test_formats_parquet_write__int96_timestamps(void)
{
    col_type *schema = one_column("ts", col_type_primitive(COL_TIMESTAMP), 0);
    pqw_options opts = PQW_OPTIONS_INIT;
    pqw_writer *w;
    pqw_file_stats st = PQW_FILE_STATS_INIT;
    page_info pages[4];
    col_builder *b;
    col_vec *v;
    buf file = BUF_INIT;
    opts.timestamp_int96 = 1;
    opts.dictionary = 0;
    opts.codec = PQW_CODEC_UNCOMPRESSED;
    check_ok(col_builder_new(&b, a, col_type_primitive(COL_TIMESTAMP), &err), &err);
    check_ok(col_builder_append_int(b, 1, &err), &err);
    check_ok(col_builder_append_int(b, -1, &err), &err);
    check_ok(col_builder_finish(b, &v, &err), &err);
    col_batch batch = {schema, 2, 1, &v};
    check_ok(pqw_writer_open(&w, store, "i.parquet", schema, &opts, &err), &err);
    check_ok(pqw_writer_write_batch(w, &batch, &err), &err);
    check_ok(pqw_writer_close(w, &st, &err), &err);
    check_int(1, walk_pages("i.parquet", pages, 4));
    check_int(24, pages[0].uncompressed);
    check_ok(io_get(store, "i.parquet", &file, &err), &err);
    /* 1970-01-01 00:00:00.000001: 1000 ns into Julian day 2440588 (0x253D8C);
     * one microsecond before the epoch: the last microsecond of the day before. */
    static const uint8_t expected[] = {0xE8, 0x03, 0, 0, 0, 0, 0, 0, 0x8C, 0x3D, 0x25, 0x00,
                                       0x18, 0xFC, 0x4E, 0x91, 0x94, 0x4E, 0, 0, 0x8B, 0x3D,
                                       0x25, 0x00};
    buf body = BUF_INIT;
    check_ok(buf_append(&body, file.data + pages[0].body_offset, 24, &err), &err);
    check_bytes(&body, expected, sizeof(expected));
    /* The Delta statistics stay in microseconds. */
    check_int(-1, st.leaves[0].min.i);
    check_int(1, st.leaves[0].max.i);
    pqw_file_stats_clear(&st);
    buf_clear(&body);
    buf_clear(&file);
}

/* Every allocation failing in turn ends in SILT_NOMEM and leaves no file (and, under ASan, no leak). */
void test_formats_parquet_write__out_of_memory(void)
{
    col_field fields[3];
    fields[0] = (col_field){"s", col_type_primitive(COL_STRING), 1, NULL, -1};
    fields[1] = (col_field){"m", col_type_map(a, col_type_primitive(COL_STRING),
                                              col_type_primitive(COL_LONG), 1), 1, NULL, -1};
    fields[2] = (col_field){"l", col_type_array(a, col_type_array(a, col_type_primitive(COL_INT), 1), 1),
                            1, NULL, -1};
    col_type *schema = col_type_struct(a, 3, fields);
    col_builder *b[3];
    col_vec *cols[3];
    for (int c = 0; c < 3; c++)
        check_ok(col_builder_new(&b[c], a, fields[c].type, &err), &err);
    for (int r = 0; r < 50; r++) {
        char s[16];
        int len = snprintf(s, sizeof(s), "v%d", r % 7);
        check_ok(col_builder_append_bytes(b[0], s, (size_t)len, &err), &err);
        check_ok(col_builder_append_bytes(col_builder_child(b[1], 0), "k", 1, &err), &err);
        check_ok(col_builder_append_int(col_builder_child(b[1], 1), r, &err), &err);
        check_ok(col_builder_append_list(b[1], 1, &err), &err);
        col_builder *inner = col_builder_child(b[2], 0);
        check_ok(col_builder_append_int(col_builder_child(inner, 0), r, &err), &err);
        check_ok(col_builder_append_list(inner, 1, &err), &err);
        check_ok(col_builder_append_list(b[2], 1, &err), &err);
    }
    for (int c = 0; c < 3; c++)
        check_ok(col_builder_finish(b[c], &cols[c], &err), &err);
    col_batch batch = {schema, 50, 3, cols};
    silt_status rc = SILT_NOMEM;
    long countdown;
    for (countdown = 0; countdown < 5000 && rc != SILT_OK; countdown++) {
        pqw_writer *w = NULL;
        pqw_file_stats st = PQW_FILE_STATS_INIT;
        mem_fail_after(countdown);
        rc = pqw_writer_open(&w, store, "oom.parquet", schema, NULL, &err);
        if (rc == SILT_OK) {
            rc = pqw_writer_write_batch(w, &batch, &err);
            if (rc == SILT_OK)
                rc = pqw_writer_close(w, &st, &err);
            else
                pqw_writer_abort(w);
        }
        mem_fail_reset();
        pqw_file_stats_clear(&st);
        if (rc != SILT_OK) {
            check_int(SILT_NOMEM, rc);
            check_no_files();
        }
    }
    check_int(SILT_OK, rc);
    check(countdown > 20);
}

/* PageIndex.md: after the pages, the ColumnIndex then the OffsetIndex of the chunk. */
void test_formats_parquet_write__page_index(void)
{
    col_type *schema = one_column("v", col_type_primitive(COL_LONG), 1);
    pqw_options opts = PQW_OPTIONS_INIT;
    pqw_writer *w;
    static page_info pages[100];
    buf file = BUF_INIT;
    opts.page_bytes = 1024;
    opts.dictionary = 0;
    check_ok(pqw_writer_open(&w, store, "x.parquet", schema, &opts, &err), &err);
    /* every 10th row null; values r - 7 */
    check_ok(pqw_writer_write_batch(w, long_batch(schema, 3000, 1000000, 10), &err), &err);
    check_ok(pqw_writer_close(w, NULL, &err), &err);
    size_t n = walk_pages("x.parquet", pages, 100);
    check(n > 2);
    check_ok(io_get(store, "x.parquet", &file, &err), &err);
    const uint8_t *p = (const uint8_t *)file.data;
    size_t pos = pages_end, len = file.len;
    /* ColumnIndex: null_pages (all false), then min/max of each page, ... */
    check_int(0x19, p[pos]);
    check_int((n << 4) | PQW_CT_TRUE, p[pos + 1]);
    for (size_t k = 0; k < n; k++)
        check_int(PQW_CT_FALSE, p[pos + 2 + k]);
    pos += 2 + n;
    check_int(0x19, p[pos++]); /* min_values */
    if ((p[pos] >> 4) == 15) {
        pos++;
        check_int(n, rd_varint(p, len, &pos));
    } else {
        check_int(n, p[pos++] >> 4);
    }
    /* The first page's min is row 1's -6 (row 0 is null), PLAIN-encoded. */
    check_int(8, rd_varint(p, len, &pos));
    int64_t first_min;
    memcpy(&first_min, p + pos, 8);
    check_int(-6, first_min);
    /* Skip the rest of the ColumnIndex: walk it as a struct from its start. */
    pos = pages_end;
    rd_struct(p, len, &pos, NULL, 1);
    /* OffsetIndex: one PageLocation per page with its offset, size and first row. */
    check_int(0x19, p[pos++]);
    uint64_t count = p[pos] >> 4;
    check_int(0x0C, p[pos++] & 0x0F);
    if (count == 15)
        count = rd_varint(p, len, &pos);
    check_int(n, count);
    int64_t rows = 0;
    for (size_t k = 0; k < n; k++) {
        check_int(0x16, p[pos++]);
        check_int(pages[k].header_offset, rd_zigzag(p, len, &pos));
        check_int(0x15, p[pos++]);
        check_int(pages[k].body_offset - pages[k].header_offset + (size_t)pages[k].compressed,
                  rd_zigzag(p, len, &pos));
        check_int(0x16, p[pos++]);
        check_int(rows, rd_zigzag(p, len, &pos));
        check_int(0, p[pos++]);
        rows += pages[k].num_values; /* a flat column: one level entry per row */
    }
    check_int(0, p[pos++]);
    /* Then the footer. */
    uint32_t footer_len = (uint32_t)p[len - 8] | (uint32_t)p[len - 7] << 8 |
                          (uint32_t)p[len - 6] << 16 | (uint32_t)p[len - 5] << 24;
    check_int(len - 8 - footer_len, pos);
    buf_clear(&file);
}

/*
 * A key-like column (every value of the chunk so far distinct) leaves the
 * dictionary after PQW_DICT_PROBE (8192) values instead of filling a
 * megabyte of entries; a column that repeats keeps it.
 */
static void dict_probe_pages(const char *key, int64_t distinct, int *dict_pages, int *plain_pages,
                             int64_t *dict_entries, int64_t *values)
{
    col_type *schema = one_column("v", col_type_primitive(COL_LONG), 0);
    pqw_options opts = PQW_OPTIONS_INIT;
    pqw_writer *w;
    static page_info pages[200];
    opts.codec = PQW_CODEC_UNCOMPRESSED;
    opts.page_rows = 0; /* pages cut by bytes only: walk_pages stops at the page index by guess */
    check_ok(pqw_writer_open(&w, store, key, schema, &opts, &err), &err);
    check_ok(pqw_writer_write_batch(w, long_batch(schema, 50000, distinct, 0), &err), &err);
    check_ok(pqw_writer_close(w, NULL, &err), &err);
    size_t n = walk_pages(key, pages, 200);
    *dict_pages = *plain_pages = 0;
    *dict_entries = *values = 0;
    for (size_t k = 0; k < n; k++) {
        if (pages[k].type == PQW_PAGE_DICTIONARY) {
            (*dict_pages)++;
            *dict_entries += pages[k].num_values;
            continue;
        }
        *plain_pages += pages[k].encoding == PQW_ENC_PLAIN;
        *values += pages[k].num_values;
    }
}

void test_formats_parquet_write__unique_column_leaves_dictionary_early(void)
{
    int dict_pages, plain_pages;
    int64_t entries, values;
    dict_probe_pages("unique.parquet", 50000, &dict_pages, &plain_pages, &entries, &values);
    check_int(1, dict_pages);
    check(entries >= 8192 && entries < 8192 + 1024); /* decided within a slice of the probe */
    check(plain_pages >= 1);
    check_int(50000, values);
    /* 8000 distinct values repeating: never all distinct past 8192, dictionary kept */
    dict_probe_pages("repeating.parquet", 8000, &dict_pages, &plain_pages, &entries, &values);
    check_int(1, dict_pages);
    check_int(8000, entries);
    check_int(0, plain_pages);
    check_int(50000, values);
}

/*
 * Reads back a snappy file of PLAIN int64 pages, each decompressed in place
 * into the reader's values (pages.c): pages with and without nulls have
 * levels sections of different lengths, so the reader's guess of the next
 * page's levels length is right on some pages and wrong (both shorter and
 * longer) on others. Every value must come back in its row.
 */
static void check_plain_in_place(int nullable)
{
    col_type *schema = one_column("v", col_type_primitive(COL_LONG), nullable);
    pqw_options opts = PQW_OPTIONS_INIT;
    pqw_writer *w;
    pq_file *file = NULL;
    pq_reader *r = NULL;
    pq_read_options ro = PQ_READ_OPTIONS_INIT;
    col_batch *batch = NULL;
    col_builder *b;
    col_vec *v;
    const char *key = nullable ? "in_place_nullable.parquet" : "in_place_required.parquet";
    const int64_t n = 20000;
    int64_t row = 0, nulls = 0;
    check_ok(col_builder_new(&b, a, schema->fields[0].type, &err), &err);
    for (int64_t k = 0; k < n; k++) {
        /* Nulls in runs of pages only, at an irregular stride inside them. */
        if (nullable && (k / 700) % 3 == 1 && k % 7 == 0)
            check_ok(col_builder_append_null(b, &err), &err);
        else
            check_ok(col_builder_append_int(b, k * 1000003 - 5, &err), &err);
    }
    check_ok(col_builder_finish(b, &v, &err), &err);
    col_batch in = {schema, n, 1, &v};
    opts.dictionary = 0;
    opts.page_bytes = 1024;
    opts.codec = PQW_CODEC_SNAPPY;
    check_ok(pqw_writer_open(&w, store, key, schema, &opts, &err), &err);
    check_ok(pqw_writer_write_batch(w, &in, &err), &err);
    check_ok(pqw_writer_close(w, NULL, &err), &err);

    check_ok(pq_file_open(&file, store, key, &err), &err);
    ro.batch_rows = 333; /* batch ends fall inside pages */
    check_ok(pq_reader_open(&r, file, &ro, &err), &err);
    for (;;) {
        check_ok(pq_reader_next(r, a, &batch, &err), &err);
        if (batch == NULL)
            break;
        const col_vec *out = batch->cols[0];
        for (int64_t k = 0; k < batch->n_rows; k++, row++) {
            int is_null = nullable && (row / 700) % 3 == 1 && row % 7 == 0;
            check_int(is_null, col_vec_is_null(out, k));
            if (is_null)
                nulls++;
            else if (((const int64_t *)out->values)[k] != row * 1000003 - 5)
                check_int(row * 1000003 - 5, ((const int64_t *)out->values)[k]);
        }
    }
    check_int(n, row);
    check(!nullable || nulls > 100);
    pq_reader_free(r);
    pq_file_free(file);
}

void test_formats_parquet_write__plain_pages_decompressed_in_place(void)
{
    check_plain_in_place(1);
    check_plain_in_place(0);
}
