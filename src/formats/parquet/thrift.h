/*
 * thrift.h - decoder of the Thrift compact protocol, as Parquet uses it for
 * its footer (FileMetaData), page headers and page indexes.
 *
 * Follows the Thrift compact protocol specification (thrift/doc/specs/
 * thrift-compact-protocol.md): unsigned LEB128 varints, zigzag integers,
 * field headers with a 4-bit id delta, list/set/map headers, booleans folded
 * into field headers, binary as varint length + bytes.
 *
 * Invariants: every read is bounds-checked against the input (SILT_CORRUPT
 * with the byte position on overrun), nesting is limited to TC_MAX_DEPTH so
 * hostile input cannot exhaust the stack, and nothing allocates: binary and
 * string values are returned as views into the input.
 */
#ifndef SILT_FORMATS_PARQUET_THRIFT_H
#define SILT_FORMATS_PARQUET_THRIFT_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define TC_MAX_DEPTH 64

/* Compact protocol type nibbles. */
enum {
    TC_STOP = 0,
    TC_BOOL_TRUE = 1,
    TC_BOOL_FALSE = 2,
    TC_BYTE = 3,
    TC_I16 = 4,
    TC_I32 = 5,
    TC_I64 = 6,
    TC_DOUBLE = 7,
    TC_BINARY = 8,
    TC_LIST = 9,
    TC_SET = 10,
    TC_MAP = 11,
    TC_STRUCT = 12
};

typedef struct tc_reader {
    const uint8_t *data;
    size_t len;
    size_t pos;
    int depth;
    /* Field id of the last field header per nesting level (ids are deltas). */
    int16_t last_id[TC_MAX_DEPTH + 1];
    /* What the input is, for messages ("footer of \"x\"", "page header"). */
    const char *what;
} tc_reader;

void pq_thrift_init(tc_reader *r, const void *data, size_t len, const char *what);

silt_status pq_thrift_read_byte(tc_reader *r, uint8_t *out, silt_error *err);
silt_status pq_thrift_read_varint(tc_reader *r, uint64_t *out, silt_error *err);
/* Zigzag varints. i32 refuses values outside the int32 range. */
silt_status pq_thrift_read_i16(tc_reader *r, int16_t *out, silt_error *err);
silt_status pq_thrift_read_i32(tc_reader *r, int32_t *out, silt_error *err);
silt_status pq_thrift_read_i64(tc_reader *r, int64_t *out, silt_error *err);
silt_status pq_thrift_read_double(tc_reader *r, double *out, silt_error *err);
/* A binary/string: a view into the input, valid as long as the input. */
silt_status pq_thrift_read_binary(tc_reader *r, const uint8_t **data_out, size_t *len_out,
                           silt_error *err);

/*
 * Struct framing. pq_thrift_struct_begin enters a nested struct (depth checked);
 * pq_thrift_read_field reads the next field header: *type_out is TC_STOP at the
 * end of the struct (then call pq_thrift_struct_end). For boolean fields the value
 * is in the type (TC_BOOL_TRUE / TC_BOOL_FALSE) and nothing more is read.
 */
silt_status pq_thrift_struct_begin(tc_reader *r, silt_error *err);
silt_status pq_thrift_read_field(tc_reader *r, int *type_out, int16_t *id_out, silt_error *err);
void pq_thrift_struct_end(tc_reader *r);

/*
 * A list or set header: element type and count. The count is checked
 * against the bytes left (every element takes at least one byte, except
 * booleans... which also take one in lists), so a hostile count cannot make
 * the caller allocate more than the input size.
 */
silt_status pq_thrift_read_list(tc_reader *r, int *elem_type_out, uint32_t *count_out, silt_error *err);
/* A boolean list element (one byte, 1 = true). */
silt_status pq_thrift_read_list_bool(tc_reader *r, int *out, silt_error *err);

/* Skips one value of the given type, recursively (depth-limited). */
silt_status pq_thrift_skip(tc_reader *r, int type, silt_error *err);

/* Reads an i32 field value, for fields declared i32 but checked for type. */
silt_status pq_thrift_expect(tc_reader *r, int type, int expected, int16_t id, silt_error *err);

#endif
