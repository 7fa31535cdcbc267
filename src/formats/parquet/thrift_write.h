/*
 * thrift_write.h - Thrift compact protocol encoder for the Parquet footer and
 * page headers (writer side).
 *
 * Follows the Thrift compact protocol specification and parquet.thrift of
 * apache/parquet-format. Only the structures and fields silt writes exist
 * here; the reader has its own decoder (thrift.c). The C structs mirror the
 * Thrift ones field by field; a field whose "has" flag is 0 (or, for
 * pointers, NULL) is left out of the encoding.
 *
 * Encoding errors are sticky: every pqw_tw_* call after a failure is a no-op
 * and pqw_tw_status() reports the first failure, so encoders stay
 * straight-line code instead of checking each field.
 */
#ifndef SILT_FORMATS_PARQUET_THRIFT_WRITE_H
#define SILT_FORMATS_PARQUET_THRIFT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* Compact protocol type codes (Thrift compact protocol spec). */
enum {
    PQW_CT_STOP = 0,
    PQW_CT_TRUE = 1,
    PQW_CT_FALSE = 2,
    PQW_CT_BYTE = 3,
    PQW_CT_I16 = 4,
    PQW_CT_I32 = 5,
    PQW_CT_I64 = 6,
    PQW_CT_DOUBLE = 7,
    PQW_CT_BINARY = 8,
    PQW_CT_LIST = 9,
    PQW_CT_SET = 10,
    PQW_CT_MAP = 11,
    PQW_CT_STRUCT = 12
};

/* parquet.thrift enums, with the numbers the spec gives them. */
enum { PQW_BOOLEAN = 0, PQW_INT32 = 1, PQW_INT64 = 2, PQW_INT96 = 3, PQW_FLOAT = 4,
       PQW_DOUBLE = 5, PQW_BYTE_ARRAY = 6, PQW_FIXED_LEN_BYTE_ARRAY = 7 };
enum { PQW_REQUIRED = 0, PQW_OPTIONAL = 1, PQW_REPEATED = 2 };
enum { PQW_CONV_NONE = -1, PQW_CONV_UTF8 = 0, PQW_CONV_MAP = 1, PQW_CONV_LIST = 3,
       PQW_CONV_DECIMAL = 5, PQW_CONV_DATE = 6, PQW_CONV_TIMESTAMP_MICROS = 10,
       PQW_CONV_INT_8 = 15, PQW_CONV_INT_16 = 16 };
enum { PQW_ENC_PLAIN = 0, PQW_ENC_PLAIN_DICTIONARY = 2, PQW_ENC_RLE = 3,
       PQW_ENC_RLE_DICTIONARY = 8 };
enum { PQW_CODEC_UNCOMPRESSED = 0, PQW_CODEC_SNAPPY = 1, PQW_CODEC_GZIP = 2,
       PQW_CODEC_LZO = 3, PQW_CODEC_BROTLI = 4, PQW_CODEC_LZ4 = 5, PQW_CODEC_ZSTD = 6,
       PQW_CODEC_LZ4_RAW = 7 };
enum { PQW_PAGE_DATA = 0, PQW_PAGE_DICTIONARY = 2 };
/* LogicalType union members (their field ids). */
enum { PQW_LT_NONE = 0, PQW_LT_STRING = 1, PQW_LT_MAP = 2, PQW_LT_LIST = 3,
       PQW_LT_DECIMAL = 5, PQW_LT_DATE = 6, PQW_LT_TIMESTAMP = 8, PQW_LT_INTEGER = 10 };
/* TimeUnit union members. */
enum { PQW_UNIT_MILLIS = 1, PQW_UNIT_MICROS = 2, PQW_UNIT_NANOS = 3 };

#define PQW_TW_MAX_DEPTH 16

/* A compact-protocol encoder appending to a buf. */
typedef struct pqw_tw {
    buf *out;
    int16_t last_fid;
    int depth;
    int16_t saved_fid[PQW_TW_MAX_DEPTH];
    silt_status rc;
    silt_error *err;
} pqw_tw;

void pqw_tw_init(pqw_tw *tw, buf *out, silt_error *err);
silt_status pqw_tw_status(const pqw_tw *tw);
/* Fields of the current struct; fid ascending is not required. */
void pqw_tw_i32(pqw_tw *tw, int16_t fid, int32_t value);
void pqw_tw_i64(pqw_tw *tw, int16_t fid, int64_t value);
void pqw_tw_i8(pqw_tw *tw, int16_t fid, int8_t value);
void pqw_tw_i16(pqw_tw *tw, int16_t fid, int16_t value);
void pqw_tw_bool(pqw_tw *tw, int16_t fid, int value);
void pqw_tw_string(pqw_tw *tw, int16_t fid, const char *s);
/* Opens a struct-typed field; close it with pqw_tw_struct_end. */
void pqw_tw_struct_begin(pqw_tw *tw, int16_t fid);
/* Writes the stop byte of the current struct and returns to its parent. */
void pqw_tw_struct_end(pqw_tw *tw);
/* A list field header; then write n elements with the pqw_tw_elem_* calls. */
void pqw_tw_list_begin(pqw_tw *tw, int16_t fid, int elem_type, size_t n);
void pqw_tw_elem_i32(pqw_tw *tw, int32_t value);

/* Statistics (Parquet min_value/max_value in the column's sort order). */
typedef struct pqw_stats_meta {
    int has_null_count;
    int64_t null_count;
    int has_min_max;
    const uint8_t *min_value;
    size_t min_len;
    const uint8_t *max_value;
    size_t max_len;
    int min_exact;
    int max_exact;
} pqw_stats_meta;

typedef struct pqw_logical {
    int kind;            /* PQW_LT_*, PQW_LT_NONE for none */
    int32_t scale;       /* DECIMAL */
    int32_t precision;   /* DECIMAL */
    int utc_adjusted;    /* TIMESTAMP */
    int unit;            /* TIMESTAMP: PQW_UNIT_* */
    int8_t bit_width;    /* INTEGER */
    int is_signed;       /* INTEGER */
} pqw_logical;

typedef struct pqw_schema_elem {
    const char *name;
    int has_type;        /* leaves only */
    int32_t type;
    int32_t type_length; /* FIXED_LEN_BYTE_ARRAY, else ignored */
    int has_repetition;  /* all but the root */
    int32_t repetition;
    int32_t num_children; /* groups (>= 0); -1 for leaves */
    int32_t converted_type; /* PQW_CONV_NONE when none */
    int32_t scale, precision; /* with converted DECIMAL */
    int has_field_id;
    int32_t field_id;
    pqw_logical logical;
} pqw_schema_elem;

typedef struct pqw_page_header {
    int32_t type;        /* PQW_PAGE_DATA or PQW_PAGE_DICTIONARY */
    int32_t uncompressed_size;
    int32_t compressed_size;
    int32_t num_values;
    int32_t encoding;
    int32_t def_encoding; /* data pages */
    int32_t rep_encoding; /* data pages */
} pqw_page_header;

/* One data page of a chunk, for the OffsetIndex and the ColumnIndex. */
typedef struct pqw_page_loc {
    int64_t offset;     /* of the page header in the file */
    int32_t size;       /* header and compressed body */
    int64_t first_row;  /* index of the page's first row within the row group */
    int64_t null_count;
    int null_page;      /* every value of the page is null */
    const uint8_t *min_value, *max_value; /* empty for null pages */
    size_t min_len, max_len;
} pqw_page_loc;

typedef struct pqw_chunk_meta {
    int32_t type;
    uint32_t encodings; /* bit set of PQW_ENC_* values */
    const char *const *path;
    size_t path_len;
    int32_t codec;
    int64_t num_values;
    int64_t total_uncompressed_size;
    int64_t total_compressed_size;
    int64_t data_page_offset;
    int64_t dictionary_page_offset; /* -1 when there is no dictionary page */
    int has_stats;
    pqw_stats_meta stats;
    /* Page index (parquet-format PageIndex.md); lengths 0 until written. */
    const pqw_page_loc *pages;
    size_t n_pages;
    int has_column_index; /* every page has bounds (or is all null) */
    int64_t offset_index_offset;
    int32_t offset_index_length;
    int64_t column_index_offset;
    int32_t column_index_length;
} pqw_chunk_meta;

typedef struct pqw_row_group_meta {
    const pqw_chunk_meta *chunks;
    size_t n_chunks;
    int64_t total_byte_size;
    int64_t num_rows;
    int64_t file_offset;
    int64_t total_compressed_size;
    int16_t ordinal;
} pqw_row_group_meta;

typedef struct pqw_kv {
    const char *key;
    const char *value; /* NULL = absent */
} pqw_kv;

typedef struct pqw_file_meta {
    int32_t version;
    const pqw_schema_elem *schema;
    size_t n_schema;
    int64_t num_rows;
    const pqw_row_group_meta *row_groups;
    size_t n_row_groups;
    const pqw_kv *kv;
    size_t n_kv;
    const char *created_by;
    size_t n_leaves; /* one TypeDefinedOrder column order per leaf */
} pqw_file_meta;

/* Appends the encoded structure to out. Only NOMEM can fail. */
silt_status pqw_thrift_page_header(buf *out, const pqw_page_header *ph, silt_error *err);
silt_status pqw_thrift_file_meta(buf *out, const pqw_file_meta *fm, silt_error *err);
/* The OffsetIndex and the ColumnIndex (UNORDERED) of a chunk's pages. */
silt_status pqw_thrift_offset_index(buf *out, const pqw_chunk_meta *cm, silt_error *err);
silt_status pqw_thrift_column_index(buf *out, const pqw_chunk_meta *cm, silt_error *err);
/* Exposed for tests: one Statistics or SchemaElement struct. */
silt_status pqw_thrift_statistics(buf *out, const pqw_stats_meta *st, silt_error *err);
silt_status pqw_thrift_schema_elem(buf *out, const pqw_schema_elem *se, silt_error *err);

#endif
