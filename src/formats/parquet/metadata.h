/*
 * metadata.h - Parquet footer and page header structures, decoded from the
 * Thrift compact protocol.
 *
 * Follows parquet-format's parquet.thrift (FileMetaData, SchemaElement,
 * LogicalType, RowGroup, ColumnChunk, ColumnMetaData, Statistics, KeyValue,
 * PageHeader and its variants, ColumnIndex, OffsetIndex). Fields silt does
 * not use are skipped, so files from newer writers still decode.
 *
 * Memory: every decoded structure, including strings and binary statistics,
 * lives in the arena passed to the parser; strings are NUL-terminated
 * copies. Optional fields have a has_<name> flag.
 */
#ifndef SILT_FORMATS_PARQUET_METADATA_H
#define SILT_FORMATS_PARQUET_METADATA_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/error.h"

/* parquet.thrift enums (values are part of the format). */
typedef enum pq_physical {
    PQ_BOOLEAN = 0,
    PQ_INT32 = 1,
    PQ_INT64 = 2,
    PQ_INT96 = 3,
    PQ_FLOAT = 4,
    PQ_DOUBLE = 5,
    PQ_BYTE_ARRAY = 6,
    PQ_FIXED_LEN_BYTE_ARRAY = 7
} pq_physical;

typedef enum pq_repetition { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 } pq_repetition;

typedef enum pq_converted {
    PQ_CT_NONE = -1,
    PQ_CT_UTF8 = 0,
    PQ_CT_MAP = 1,
    PQ_CT_MAP_KEY_VALUE = 2,
    PQ_CT_LIST = 3,
    PQ_CT_ENUM = 4,
    PQ_CT_DECIMAL = 5,
    PQ_CT_DATE = 6,
    PQ_CT_TIME_MILLIS = 7,
    PQ_CT_TIME_MICROS = 8,
    PQ_CT_TIMESTAMP_MILLIS = 9,
    PQ_CT_TIMESTAMP_MICROS = 10,
    PQ_CT_UINT_8 = 11,
    PQ_CT_UINT_16 = 12,
    PQ_CT_UINT_32 = 13,
    PQ_CT_UINT_64 = 14,
    PQ_CT_INT_8 = 15,
    PQ_CT_INT_16 = 16,
    PQ_CT_INT_32 = 17,
    PQ_CT_INT_64 = 18,
    PQ_CT_JSON = 19,
    PQ_CT_BSON = 20,
    PQ_CT_INTERVAL = 21
} pq_converted;

/* LogicalType union members (the field ids of the union). */
typedef enum pq_logical_kind {
    PQ_LT_NONE = 0,
    PQ_LT_STRING = 1,
    PQ_LT_MAP = 2,
    PQ_LT_LIST = 3,
    PQ_LT_ENUM = 4,
    PQ_LT_DECIMAL = 5,
    PQ_LT_DATE = 6,
    PQ_LT_TIME = 7,
    PQ_LT_TIMESTAMP = 8,
    PQ_LT_INTEGER = 10,
    PQ_LT_UNKNOWN = 11,
    PQ_LT_JSON = 12,
    PQ_LT_BSON = 13,
    PQ_LT_UUID = 14,
    PQ_LT_FLOAT16 = 15,
    PQ_LT_VARIANT = 16,
    PQ_LT_GEOMETRY = 17,
    PQ_LT_GEOGRAPHY = 18,
    PQ_LT_OTHER = 99 /* a member this reader does not know */
} pq_logical_kind;

typedef enum pq_time_unit { PQ_UNIT_MILLIS = 1, PQ_UNIT_MICROS = 2, PQ_UNIT_NANOS = 3 } pq_time_unit;

typedef struct pq_logical {
    pq_logical_kind kind;
    int32_t scale, precision;  /* DECIMAL */
    int is_adjusted_to_utc;    /* TIME, TIMESTAMP */
    pq_time_unit unit;         /* TIME, TIMESTAMP */
    int8_t bit_width;          /* INTEGER */
    int is_signed;             /* INTEGER */
} pq_logical;

typedef enum pq_encoding {
    PQ_ENC_PLAIN = 0,
    PQ_ENC_PLAIN_DICTIONARY = 2,
    PQ_ENC_RLE = 3,
    PQ_ENC_BIT_PACKED = 4,
    PQ_ENC_DELTA_BINARY_PACKED = 5,
    PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
    PQ_ENC_DELTA_BYTE_ARRAY = 7,
    PQ_ENC_RLE_DICTIONARY = 8,
    PQ_ENC_BYTE_STREAM_SPLIT = 9
} pq_encoding;

typedef enum pq_codec {
    PQ_CODEC_UNCOMPRESSED = 0,
    PQ_CODEC_SNAPPY = 1,
    PQ_CODEC_GZIP = 2,
    PQ_CODEC_LZO = 3,
    PQ_CODEC_BROTLI = 4,
    PQ_CODEC_LZ4 = 5,
    PQ_CODEC_ZSTD = 6,
    PQ_CODEC_LZ4_RAW = 7
} pq_codec;

typedef enum pq_page_type {
    PQ_PAGE_DATA = 0,
    PQ_PAGE_INDEX = 1,
    PQ_PAGE_DICTIONARY = 2,
    PQ_PAGE_DATA_V2 = 3
} pq_page_type;

typedef struct pq_bytes {
    const uint8_t *data; /* arena copy */
    size_t len;
} pq_bytes;

typedef struct pq_schema_element {
    const char *name;
    int has_type;
    pq_physical type;
    int32_t type_length;
    int has_repetition;
    pq_repetition repetition;
    int32_t num_children;
    pq_converted converted;
    int32_t scale, precision;
    int has_field_id;
    int32_t field_id;
    pq_logical logical;
} pq_schema_element;

typedef struct pq_statistics {
    int has_max, has_min, has_null_count, has_distinct_count, has_max_value, has_min_value;
    pq_bytes max, min;             /* legacy: signed comparison order */
    int64_t null_count, distinct_count;
    pq_bytes max_value, min_value; /* column order of the type */
} pq_statistics;

typedef struct pq_key_value {
    const char *key;
    const char *value; /* NULL when absent */
} pq_key_value;

typedef struct pq_column_meta {
    pq_physical type;
    size_t n_encodings;
    int32_t *encodings;
    size_t n_path;
    const char **path;
    pq_codec codec;
    int64_t num_values;
    int64_t total_uncompressed_size;
    int64_t total_compressed_size;
    size_t n_kv;
    pq_key_value *kv;
    int64_t data_page_offset;
    int has_index_page_offset;
    int64_t index_page_offset;
    int has_dictionary_page_offset;
    int64_t dictionary_page_offset;
    int has_statistics;
    pq_statistics statistics;
    int has_bloom_filter_offset;
    int64_t bloom_filter_offset;
} pq_column_meta;

typedef struct pq_column_chunk {
    const char *file_path; /* NULL: this file */
    int64_t file_offset;
    int has_meta;
    pq_column_meta meta;
    int has_offset_index;
    int64_t offset_index_offset;
    int32_t offset_index_length;
    int has_column_index;
    int64_t column_index_offset;
    int32_t column_index_length;
    int encrypted; /* crypto_metadata or encrypted_column_metadata present */
} pq_column_chunk;

typedef struct pq_row_group {
    size_t n_columns;
    pq_column_chunk *columns;
    int64_t total_byte_size;
    int64_t num_rows;
    int has_file_offset;
    int64_t file_offset;
    int has_total_compressed_size;
    int64_t total_compressed_size;
    int has_ordinal;
    int16_t ordinal;
} pq_row_group;

typedef struct pq_file_meta {
    int32_t version;
    size_t n_schema;
    pq_schema_element *schema;
    int64_t num_rows;
    size_t n_row_groups;
    pq_row_group *row_groups;
    size_t n_kv;
    pq_key_value *kv;
    const char *created_by;
    int encrypted; /* encryption_algorithm present (plaintext footer mode) */
} pq_file_meta;

typedef struct pq_data_page_header {
    int32_t num_values;
    pq_encoding encoding;
    pq_encoding def_encoding;
    pq_encoding rep_encoding;
} pq_data_page_header;

typedef struct pq_data_page_header_v2 {
    int32_t num_values;
    int32_t num_nulls;
    int32_t num_rows;
    pq_encoding encoding;
    int32_t def_byte_len;
    int32_t rep_byte_len;
    int is_compressed; /* default true */
} pq_data_page_header_v2;

typedef struct pq_dictionary_page_header {
    int32_t num_values;
    pq_encoding encoding;
    int is_sorted;
} pq_dictionary_page_header;

typedef struct pq_page_header {
    pq_page_type type;
    int32_t uncompressed_size;
    int32_t compressed_size;
    int has_data, has_data_v2, has_dictionary;
    pq_data_page_header data;
    pq_data_page_header_v2 data_v2;
    pq_dictionary_page_header dictionary;
} pq_page_header;

typedef struct pq_page_location {
    int64_t offset;
    int32_t compressed_page_size;
    int64_t first_row_index;
} pq_page_location;

typedef struct pq_offset_index {
    size_t n_pages;
    pq_page_location *pages;
} pq_offset_index;

typedef struct pq_column_index {
    size_t n_pages;
    int *null_pages;
    pq_bytes *min_values;
    pq_bytes *max_values;
    int32_t boundary_order;
    int has_null_counts;
    int64_t *null_counts;
} pq_column_index;

/*
 * Decodes a FileMetaData from the footer bytes (without magic or length).
 * what names the input in messages. SILT_CORRUPT on malformed bytes.
 */
silt_status pq_parse_file_meta(pq_file_meta *out, const uint8_t *data, size_t len, arena *a,
                               const char *what, silt_error *err);
/*
 * Decodes a PageHeader at the start of data; *header_len_out is its size in
 * bytes. Sizes are checked to be non-negative.
 */
silt_status pq_parse_page_header(pq_page_header *out, size_t *header_len_out,
                                 const uint8_t *data, size_t len, silt_error *err);
silt_status pq_parse_offset_index(pq_offset_index *out, const uint8_t *data, size_t len,
                                  arena *a, silt_error *err);
silt_status pq_parse_column_index(pq_column_index *out, const uint8_t *data, size_t len,
                                  arena *a, silt_error *err);

/* Names for printing ("SNAPPY", "RLE_DICTIONARY", "INT64", ...); "?" if out of range. */
const char *pq_codec_name(int codec);
const char *pq_encoding_name(int encoding);
const char *pq_physical_name(int type);
const char *pq_converted_name(int converted);
const char *pq_repetition_name(int repetition);

#endif
