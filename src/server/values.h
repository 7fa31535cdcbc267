/*
 * values.h - silt's result columns (Arrow C data) as PostgreSQL values:
 * the type OID of each column for RowDescription and each value in the
 * text or binary format of that type for DataRow.
 *
 * Types (docs/server.md has the table): BOOLEAN bool (16), TINYINT and
 * SMALLINT int2 (21), INT int4 (23), BIGINT int8 (20), FLOAT float4 (700),
 * DOUBLE float8 (701), DECIMAL numeric (1700), STRING text (25), BINARY
 * bytea (17), DATE date (1082), TIMESTAMP timestamptz (1184, shown in UTC),
 * TIMESTAMP_NTZ timestamp (1114), VOID text with NULLs; STRUCT, ARRAY and
 * MAP json (114), the JSON Spark's to_json writes. Text forms are
 * PostgreSQL's output forms (float8 shortest round trip as with
 * extra_float_digits = 1, bytea hex, ISO dates); binary forms are those of
 * PostgreSQL's send functions.
 */
#ifndef SILT_SERVER_VALUES_H
#define SILT_SERVER_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "silt.h"
#include "util/buf.h"
#include "util/error.h"

#define SRV_OID_BOOL 16
#define SRV_OID_BYTEA 17
#define SRV_OID_INT8 20
#define SRV_OID_INT2 21
#define SRV_OID_INT4 23
#define SRV_OID_TEXT 25
#define SRV_OID_JSON 114
#define SRV_OID_FLOAT4 700
#define SRV_OID_FLOAT8 701
#define SRV_OID_UNKNOWN 705
#define SRV_OID_VARCHAR 1043
#define SRV_OID_DATE 1082
#define SRV_OID_TIMESTAMP 1114
#define SRV_OID_TIMESTAMPTZ 1184
#define SRV_OID_NUMERIC 1700

typedef enum srv_kind {
    SRV_K_NULL,
    SRV_K_BOOL,
    SRV_K_INT8, /* Arrow int8 (TINYINT), sent as int2 */
    SRV_K_INT16,
    SRV_K_INT32,
    SRV_K_INT64,
    SRV_K_FLOAT,
    SRV_K_DOUBLE,
    SRV_K_DECIMAL,
    SRV_K_STRING,
    SRV_K_BINARY,
    SRV_K_DATE,
    SRV_K_TIMESTAMP,     /* with time zone (UTC) */
    SRV_K_TIMESTAMP_NTZ, /* without */
    SRV_K_STRUCT,
    SRV_K_LIST,
    SRV_K_MAP
} srv_kind;

/* One result column: what RowDescription says of it. */
typedef struct srv_column {
    const char *name; /* borrowed from the Arrow schema */
    srv_kind kind;
    uint32_t oid;
    int16_t typlen; /* -1 for variable length */
    int32_t typmod; /* numeric: ((precision << 16) | scale) + 4; else -1 */
    int precision, scale;
} srv_column;

/* The kind of an Arrow format string; SILT_UNSUPPORTED names a format silt does not send. */
silt_status srv_kind_of_format(const char *format, srv_kind *out, int *precision, int *scale,
                               silt_error *err);
/* Fills col from a top-level field of a result schema. */
silt_status srv_column_from_schema(const struct ArrowSchema *field, srv_column *col,
                                   silt_error *err);

/*
 * Appends one DataRow field: Int32 length then the value of row (0-based,
 * the array's offset not yet applied) in format 0 (text) or 1 (binary), or
 * length -1 for NULL. schema and array are the column's.
 */
silt_status srv_put_field(buf *b, const srv_column *col, const struct ArrowSchema *schema,
                          const struct ArrowArray *array, int64_t row, int format,
                          silt_error *err);

/* PostgreSQL's text form of a float8 / float4 (shortest exact, Infinity, NaN). */
size_t srv_format_double(double v, char *out, size_t cap);
size_t srv_format_float(float v, char *out, size_t cap);

#endif
