/* Thrift compact protocol decoding and Parquet metadata structures, on hand-made bytes. */
#include "formats/parquet/metadata.h"
#include "formats/parquet/thrift.h"
#include "test.h"

void test_formats_parquet_thrift__varints_and_zigzag(void)
{
    static const uint8_t bytes[] = {0x96, 0x01, 0x03, 0x04, 0xfe, 0xff, 0xff, 0xff, 0x0f};
    silt_error err = SILT_ERROR_INIT;
    tc_reader r;
    uint64_t u;
    int32_t i32;
    pq_thrift_init(&r, bytes, sizeof(bytes), "test");
    check_ok(pq_thrift_read_varint(&r, &u, &err), &err);
    check_int(150, u);
    check_ok(pq_thrift_read_i32(&r, &i32, &err), &err);
    check_int(-2, i32);
    check_ok(pq_thrift_read_i32(&r, &i32, &err), &err);
    check_int(2, i32);
    /* zigzag 0xfffffffe = 4294967294 -> 2147483647 */
    check_ok(pq_thrift_read_i32(&r, &i32, &err), &err);
    check_int(INT32_MAX, i32);
    check_fails(SILT_CORRUPT, pq_thrift_read_varint(&r, &u, &err));
    check_contains(err.message, "unexpected end of data");
}

void test_formats_parquet_thrift__overlong_varint_is_refused(void)
{
    static const uint8_t bytes[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    silt_error err = SILT_ERROR_INIT;
    tc_reader r;
    uint64_t u;
    pq_thrift_init(&r, bytes, sizeof(bytes), "test");
    check_fails(SILT_CORRUPT, pq_thrift_read_varint(&r, &u, &err));
    check_contains(err.message, "longer than 64 bits");
}

void test_formats_parquet_thrift__field_headers_deltas_long_form_and_bools(void)
{
    /* field 1 i32 = 2; field 2 binary "abc"; field 3 bool true; field 20 (long form) i32 = 1; stop */
    static const uint8_t bytes[] = {0x15, 0x04, 0x18, 0x03, 'a', 'b', 'c', 0x11,
                                    0x05, 0x28, 0x02, 0x00};
    silt_error err = SILT_ERROR_INIT;
    tc_reader r;
    int type;
    int16_t id;
    int32_t value;
    const uint8_t *data;
    size_t len;
    pq_thrift_init(&r, bytes, sizeof(bytes), "test");
    check_ok(pq_thrift_struct_begin(&r, &err), &err);
    check_ok(pq_thrift_read_field(&r, &type, &id, &err), &err);
    check_int(TC_I32, type);
    check_int(1, id);
    check_ok(pq_thrift_read_i32(&r, &value, &err), &err);
    check_int(2, value);
    check_ok(pq_thrift_read_field(&r, &type, &id, &err), &err);
    check_int(TC_BINARY, type);
    check_int(2, id);
    check_ok(pq_thrift_read_binary(&r, &data, &len, &err), &err);
    check_int(3, len);
    check(memcmp(data, "abc", 3) == 0);
    check_ok(pq_thrift_read_field(&r, &type, &id, &err), &err);
    check_int(TC_BOOL_TRUE, type);
    check_int(3, id);
    check_ok(pq_thrift_read_field(&r, &type, &id, &err), &err);
    check_int(TC_I32, type);
    check_int(20, id);
    check_ok(pq_thrift_read_i32(&r, &value, &err), &err);
    check_int(1, value);
    check_ok(pq_thrift_read_field(&r, &type, &id, &err), &err);
    check_int(TC_STOP, type);
    pq_thrift_struct_end(&r);
    check_int(sizeof(bytes), r.pos);
}

void test_formats_parquet_thrift__skips_every_type(void)
{
    /*
     * field 1 double; field 2 list<bool> [true,false]; field 3 map<i32,binary> {1:"x"};
     * field 4 struct { field 1 i64 = 5 }; field 5 set<i16> [7]; field 6 byte; then field 7 i32 = 9.
     */
    static const uint8_t bytes[] = {
        0x17, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f,
        0x19, 0x21, 0x01, 0x02,
        0x1b, 0x01, 0x58, 0x02, 0x01, 'x',
        0x1c, 0x16, 0x0a, 0x00,
        0x1a, 0x14, 0x0e,
        0x13, 0x7f,
        0x15, 0x12, 0x00};
    silt_error err = SILT_ERROR_INIT;
    tc_reader r;
    int type, idx;
    int16_t id;
    int32_t value;
    pq_thrift_init(&r, bytes, sizeof(bytes), "test");
    check_ok(pq_thrift_struct_begin(&r, &err), &err);
    for (idx = 1; idx <= 6; idx++) {
        check_ok(pq_thrift_read_field(&r, &type, &id, &err), &err);
        check_int(idx, id);
        check_ok(pq_thrift_skip(&r, type, &err), &err);
    }
    check_ok(pq_thrift_read_field(&r, &type, &id, &err), &err);
    check_int(7, id);
    check_ok(pq_thrift_read_i32(&r, &value, &err), &err);
    check_int(9, value);
}

void test_formats_parquet_thrift__depth_is_limited(void)
{
    uint8_t bytes[300];
    silt_error err = SILT_ERROR_INIT;
    tc_reader r;
    size_t idx;
    /* Each 0x1c opens a struct field inside the previous struct. */
    for (idx = 0; idx < sizeof(bytes); idx++)
        bytes[idx] = 0x1c;
    pq_thrift_init(&r, bytes, sizeof(bytes), "test");
    check_ok(pq_thrift_struct_begin(&r, &err), &err);
    check_fails(SILT_CORRUPT, pq_thrift_skip(&r, TC_STRUCT, &err));
    check_contains(err.message, "nested too deeply");
}

void test_formats_parquet_thrift__hostile_lengths_are_refused(void)
{
    static const uint8_t binary[] = {0x80, 0x80, 0x04, 'a'};  /* length 65536, 1 byte left */
    static const uint8_t list[] = {0xf5, 0xff, 0xff, 0x3f, 0x00}; /* 1M i32 elements */
    silt_error err = SILT_ERROR_INIT;
    tc_reader r;
    const uint8_t *data;
    size_t len;
    int type;
    uint32_t count;
    pq_thrift_init(&r, binary, sizeof(binary), "test");
    check_fails(SILT_CORRUPT, pq_thrift_read_binary(&r, &data, &len, &err));
    check_contains(err.message, "at byte");
    pq_thrift_init(&r, list, sizeof(list), "test");
    check_fails(SILT_CORRUPT, pq_thrift_read_list(&r, &type, &count, &err));
    check_contains(err.message, "more elements than bytes left");
}

void test_formats_parquet_thrift__page_header(void)
{
    /*
     * PageHeader{1: type DATA_PAGE(0), 2: uncompressed 100, 3: compressed 50,
     * 5: DataPageHeader{1: num_values 10, 2: PLAIN, 3: RLE, 4: RLE}}
     */
    static const uint8_t bytes[] = {0x15, 0x00, 0x15, 0xc8, 0x01, 0x15, 0x64, 0x2c,
                                    0x15, 0x14, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00};
    silt_error err = SILT_ERROR_INIT;
    pq_page_header h;
    size_t len;
    check_ok(pq_parse_page_header(&h, &len, bytes, sizeof(bytes), &err), &err);
    check_int(sizeof(bytes), len);
    check_int(PQ_PAGE_DATA, h.type);
    check_int(100, h.uncompressed_size);
    check_int(50, h.compressed_size);
    check(h.has_data);
    check_int(10, h.data.num_values);
    check_int(PQ_ENC_PLAIN, h.data.encoding);
    check_int(PQ_ENC_RLE, h.data.def_encoding);
    /* Every prefix is refused cleanly. */
    for (len = 0; len + 1 < sizeof(bytes); len++) {
        size_t used;
        check_fails(SILT_CORRUPT, pq_parse_page_header(&h, &used, bytes, len, &err));
    }
}

void test_formats_parquet_thrift__negative_page_size_is_refused(void)
{
    static const uint8_t bytes[] = {0x15, 0x00, 0x15, 0x01, 0x15, 0x64, 0x00};
    silt_error err = SILT_ERROR_INIT;
    pq_page_header h;
    size_t len;
    check_fails(SILT_CORRUPT, pq_parse_page_header(&h, &len, bytes, sizeof(bytes), &err));
}

void test_formats_parquet_thrift__file_meta_with_logical_types(void)
{
    /*
     * FileMetaData{1: version 1, 2: [SchemaElement{4: "schema", 5: 1},
     *   SchemaElement{1: INT64, 3: OPTIONAL, 4: "ts", 9: field_id 7,
     *     10: LogicalType{8: TIMESTAMP{1: false, 2: TimeUnit{2: MICROS{}}}}}],
     *   3: num_rows 0, 4: []}
     */
    static const uint8_t bytes[] = {
        0x15, 0x02,
        0x19, 0x2c,
        0x48, 0x06, 's', 'c', 'h', 'e', 'm', 'a', 0x15, 0x02, 0x00,
        0x15, 0x04, 0x25, 0x02, 0x18, 0x02, 't', 's', 0x55, 0x0e,
        0x1c, 0x8c, 0x12, 0x1c, 0x2c, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x16, 0x00,
        0x19, 0x0c,
        0x00};
    silt_error err = SILT_ERROR_INIT;
    arena *a = arena_new(NULL, "test");
    pq_file_meta meta;
    check_ok(pq_parse_file_meta(&meta, bytes, sizeof(bytes), a, "footer", &err), &err);
    check_int(1, meta.version);
    check_int(2, meta.n_schema);
    check_str("schema", meta.schema[0].name);
    check_int(1, meta.schema[0].num_children);
    check_str("ts", meta.schema[1].name);
    check_int(PQ_INT64, meta.schema[1].type);
    check_int(PQ_OPTIONAL, meta.schema[1].repetition);
    check_int(7, meta.schema[1].field_id);
    check_int(PQ_LT_TIMESTAMP, meta.schema[1].logical.kind);
    check_int(0, meta.schema[1].logical.is_adjusted_to_utc);
    check_int(PQ_UNIT_MICROS, meta.schema[1].logical.unit);
    check_int(0, meta.n_row_groups);
    arena_free(a);
}

void test_formats_parquet_thrift__names(void)
{
    check_str("ZSTD", pq_codec_name(PQ_CODEC_ZSTD));
    check_str("RLE_DICTIONARY", pq_encoding_name(PQ_ENC_RLE_DICTIONARY));
    check_str("FIXED_LEN_BYTE_ARRAY", pq_physical_name(PQ_FIXED_LEN_BYTE_ARRAY));
    check_str("?", pq_codec_name(42));
    check_str("?", pq_encoding_name(-1));
}
