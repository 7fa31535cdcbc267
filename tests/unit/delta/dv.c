#include <roaring/roaring.h>
#include <string.h>
#include <zlib.h>

#include "delta/dv.h"
#include "test.h"
#include "util/mem.h"

/*
 * An inline DV written by Spark (conformance table cdf-table-with-dv): rows
 * 0, 1, 4, 5. (The spec's JSON Example 3 predates the portable format: its
 * bytes start with the old magic number 1681511376, so it is not used here.)
 */
#define SPARK_INLINE "^Bg9^0rr910000000000iXQKl0rr91000935c8Xg000311onP9"

void test_delta_dv__inline_written_by_spark(void)
{
    dlog_dv desc;
    ddv_bitmap *dv = NULL;
    silt_error err = SILT_ERROR_INIT;
    const uint64_t rows[] = {0, 1, 4, 5};
    size_t idx;
    uint8_t marks[32];
    memset(&desc, 0, sizeof(desc));
    desc.storage_type = 'i';
    desc.path_or_inline_dv = SPARK_INLINE;
    desc.size_in_bytes = 40;
    desc.cardinality = 4;
    desc.offset = -1;
    check_ok(ddv_load(&dv, NULL, &desc, &err), &err);
    check_int(4, ddv_cardinality(dv));
    for (idx = 0; idx < 4; idx++)
        check(ddv_contains(dv, rows[idx]));
    check(!ddv_contains(dv, 2));
    check(!ddv_contains(dv, ((uint64_t)1 << 32) + 1));
    ddv_mark_range(dv, 0, 32, marks);
    check_int(1, marks[5]);
    check_int(0, marks[6]);
    ddv_free(dv);

    desc.cardinality = 7;
    check_fails(SILT_CORRUPT, ddv_load(&dv, NULL, &desc, &err));
    check_contains(err.message, "holds 4 rows");
    /* The spec's legacy example is refused by its magic number, not misread. */
    desc.path_or_inline_dv = "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L";
    desc.cardinality = 6;
    check_fails(SILT_CORRUPT, ddv_load(&dv, NULL, &desc, &err));
    check_contains(err.message, "magic");
}

void test_delta_dv__relative_path_from_uuid(void)
{
    dlog_dv desc;
    buf key = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    memset(&desc, 0, sizeof(desc));
    desc.storage_type = 'u';
    desc.path_or_inline_dv = "ab^-aqEH.-t@S}K{vb[*k^";
    check_ok(ddv_file_key(&desc, "/t", &key, &err), &err);
    check_str("ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin", buf_cstr(&key));
    desc.path_or_inline_dv = "^-aqEH.-t@S}K{vb[*k^";
    check_ok(ddv_file_key(&desc, "/t", &key, &err), &err);
    check_str("deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin", buf_cstr(&key));
    desc.path_or_inline_dv = "short";
    check_fails(SILT_CORRUPT, ddv_file_key(&desc, "/t", &key, &err));
    desc.storage_type = 'p';
    desc.path_or_inline_dv = "file:///t/x/deletion_vector_1.bin";
    check_ok(ddv_file_key(&desc, "/t", &key, &err), &err);
    check_str("x/deletion_vector_1.bin", buf_cstr(&key));
    desc.path_or_inline_dv = "s3://elsewhere/deletion_vector_1.bin";
    check_fails(SILT_UNSUPPORTED, ddv_file_key(&desc, "/t", &key, &err));
    buf_clear(&key);
}

/* Serialises a RoaringBitmapArray with the rows below 2^32 in bucket 0 and the rest in bucket 1. */
static size_t serialize_dv(uint8_t *out, size_t cap)
{
    roaring_bitmap_t *low = roaring_bitmap_create(), *high = roaring_bitmap_create();
    size_t pos = 0, size;
    uint32_t magic = DDV_MAGIC;
    uint64_t n_buckets = 2;
    uint32_t key;
    roaring_bitmap_add(low, 1);
    roaring_bitmap_add(low, 100000);
    roaring_bitmap_add(high, 5);
    memcpy(out, &magic, 4); /* the test machine is little-endian like the format */
    memcpy(out + 4, &n_buckets, 8);
    pos = 12;
    key = 0;
    memcpy(out + pos, &key, 4);
    pos += 4;
    size = roaring_bitmap_portable_serialize(low, (char *)out + pos);
    pos += size;
    key = 1;
    memcpy(out + pos, &key, 4);
    pos += 4;
    pos += roaring_bitmap_portable_serialize(high, (char *)out + pos);
    check(pos <= cap);
    roaring_bitmap_free(low);
    roaring_bitmap_free(high);
    return pos;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void test_delta_dv__file_with_two_buckets_and_bad_copies(void)
{
    uint8_t data[256], file[512];
    size_t len = serialize_dv(data, sizeof(data)), file_len;
    io_store *store = NULL;
    silt_error err = SILT_ERROR_INIT;
    dlog_dv desc;
    ddv_bitmap *dv = NULL;

    /* version byte, 3 bytes of another DV, then ours at offset 4 */
    memset(file, 0, sizeof(file));
    file[0] = 1;
    put_be32(file + 4, (uint32_t)len);
    memcpy(file + 8, data, len);
    put_be32(file + 8 + len, (uint32_t)crc32(0L, data, (uInt)len));
    file_len = 8 + len + 4;
    check_ok(io_store_open(&store, test_tmpdir(), 1, &err), &err);
    check_ok(io_put(store, "deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin", file, file_len, &err), &err);
    memset(&desc, 0, sizeof(desc));
    desc.storage_type = 'u';
    desc.path_or_inline_dv = "^-aqEH.-t@S}K{vb[*k^";
    desc.offset = 4;
    desc.size_in_bytes = (int32_t)len;
    desc.cardinality = 3;
    check_ok(ddv_load(&dv, store, &desc, &err), &err);
    check(ddv_contains(dv, 1));
    check(ddv_contains(dv, 100000));
    check(ddv_contains(dv, ((uint64_t)1 << 32) + 5));
    check(!ddv_contains(dv, 5));
    ddv_free(dv);

    /* A flipped bit fails the checksum. */
    file[20] ^= 1;
    check_ok(io_put(store, "deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin", file, file_len, &err), &err);
    check_fails(SILT_CORRUPT, ddv_load(&dv, store, &desc, &err));
    check_contains(err.message, "CRC-32");
    file[20] ^= 1;
    /* A descriptor pointing past the end. */
    check_ok(io_put(store, "deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin", file, file_len, &err), &err);
    desc.offset = 400;
    check_fails(SILT_CORRUPT, ddv_load(&dv, store, &desc, &err));
    desc.offset = 4;
    desc.size_in_bytes = (int32_t)len - 1;
    check_fails(SILT_CORRUPT, ddv_load(&dv, store, &desc, &err));
    /* Missing file. */
    desc.path_or_inline_dv = "0000000000000000000000000";
    check_fails(SILT_NOTFOUND, ddv_load(&dv, store, &desc, &err));
    io_store_free(store);
}

void test_delta_dv__decode_rejects_malformed_bytes(void)
{
    uint8_t data[256];
    size_t len = serialize_dv(data, sizeof(data)), cut;
    ddv_bitmap *dv = NULL;
    silt_error err = SILT_ERROR_INIT;
    uint64_t huge = (uint64_t)1 << 40;
    for (cut = 0; cut < len; cut++)
        check_fails(SILT_CORRUPT, ddv_decode(&dv, data, cut, &err));
    data[0] ^= 1;
    check_fails(SILT_CORRUPT, ddv_decode(&dv, data, len, &err));
    check_contains(err.message, "magic");
    data[0] ^= 1;
    memcpy(data + 4, &huge, 8);
    check_fails(SILT_CORRUPT, ddv_decode(&dv, data, len, &err));
    check_fails(SILT_CORRUPT, ddv_z85_decode("abc", 3, data, &err));
    check_fails(SILT_CORRUPT, ddv_z85_decode("abc\"d", 5, data, &err));
}
