/*
 * columnar.h - Delta's data types and column vectors in the Arrow layout.
 *
 * Everything that produces or consumes rows (the Parquet, CSV and JSON
 * readers and writers, the Delta scan, the engine, the Arrow export) speaks
 * these two structures:
 *
 *   col_type  a Delta type: boolean, byte, short, integer, long, float,
 *             double, decimal(p,s), string, binary, date, timestamp (UTC),
 *             timestamp_ntz, struct, array, map (DESIGN.md, Data in memory).
 *   col_vec   a column of `length` values in the Arrow memory layout.
 *
 * Physical layout of a col_vec by type (all buffers 64-byte aligned, owned
 * by the arena the vector was made in):
 *
 *   validity  bitmap, bit i (LSB first) = 1 when row i is not null; NULL
 *             means "no nulls". null_count counts the zero bits.
 *   BOOLEAN   values: uint8_t per row, 0 or 1 (NOT Arrow's bit-packing; the
 *             Arrow export packs them). Engines loop over bytes faster.
 *   BYTE/SHORT/INT/LONG  values: int8/int16/int32/int64 per row
 *   FLOAT/DOUBLE         values: float/double per row
 *   DATE                 values: int32 days since 1970-01-01
 *   TIMESTAMP[_NTZ]      values: int64 microseconds since 1970-01-01 (UTC for
 *                        TIMESTAMP; wall-clock for TIMESTAMP_NTZ)
 *   DECIMAL(p,s)         values: 16-byte little-endian two's complement
 *                        integers (Arrow decimal128), unscaled
 *   STRING/BINARY        offsets: int32 [length + 1]; data: the bytes.
 *                        Strings are UTF-8, not NUL-terminated.
 *                        When `dictionary` is set instead, values holds int32
 *                        indices into the dictionary vector (a STRING/BINARY
 *                        vector without nulls) and offsets/data are unused:
 *                        dictionary-encoded Parquet columns stay cheap.
 *   ARRAY                offsets: int32 [length + 1]; children[0]: elements
 *   MAP                  offsets: int32 [length + 1]; children[0]: keys,
 *                        children[1]: values (both of the entries' length).
 *                        (Arrow's map is list<struct<key,value>>; the export
 *                        adds that struct level.)
 *   STRUCT               children[i]: field i, each of `length` rows
 *
 * Values under a null slot are unspecified but safe to read (zero-filled by
 * the builders). Vectors are immutable once handed on, so they may be
 * shared between operators and threads.
 */
#ifndef SILT_FORMATS_COLUMNAR_H
#define SILT_FORMATS_COLUMNAR_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

typedef enum col_type_id {
    COL_NULL = 0, /* the type of an untyped NULL literal; no values buffer */
    COL_BOOLEAN,
    COL_BYTE,
    COL_SHORT,
    COL_INT,
    COL_LONG,
    COL_FLOAT,
    COL_DOUBLE,
    COL_DECIMAL,
    COL_STRING,
    COL_BINARY,
    COL_DATE,
    COL_TIMESTAMP,
    COL_TIMESTAMP_NTZ,
    COL_STRUCT,
    COL_ARRAY,
    COL_MAP
} col_type_id;

typedef struct col_type col_type;

typedef struct col_field {
    const char *name;     /* logical name */
    const col_type *type;
    int nullable;
    /*
     * Delta metadata of the field as a JSON object text (column mapping ids
     * and physical names, comments, ...), or NULL. Kept verbatim so a schema
     * read from the log is written back unchanged.
     */
    const char *metadata_json;
    int32_t field_id;     /* Parquet field id, -1 when none */
} col_field;

struct col_type {
    col_type_id id;
    int32_t precision; /* DECIMAL only */
    int32_t scale;     /* DECIMAL only */
    /*
     * STRUCT: the fields. ARRAY: one field "element" (nullable = containsNull).
     * MAP: two fields "key" and "value" (value nullable = valueContainsNull).
     */
    size_t n_fields;
    const col_field *fields;
};

/* Shared singletons for the primitive types (never freed). */
const col_type *col_type_primitive(col_type_id id);
/* A decimal type made in arena; precision 1..38, 0 <= scale <= precision. */
col_type *col_type_decimal(arena *a, int32_t precision, int32_t scale);
col_type *col_type_struct(arena *a, size_t n_fields, const col_field *fields);
col_type *col_type_array(arena *a, const col_type *element, int contains_null);
col_type *col_type_map(arena *a, const col_type *key, const col_type *value,
                       int value_contains_null);
/*
 * A deep copy of t in arena a (names and metadata too), for what must
 * outlive t's owner; primitive types are their shared singletons.
 */
const col_type *col_type_copy(arena *a, const col_type *t);
/* Deep equality (names compared case-sensitively; metadata and ids ignored). */
int col_type_equal(const col_type *a, const col_type *b);
/* Delta's type name: "integer", "decimal(10,2)", "struct<a:integer,...>" ... into out. */
silt_status col_type_format(const col_type *type, buf *out, silt_error *err);
/* Bytes per value in the values buffer (1 for BOOLEAN, 16 DECIMAL, 4 offsets
 * types give 0: they have no fixed-width values buffer). */
size_t col_type_value_width(col_type_id id);
int col_type_is_nested(col_type_id id);
/* Name of a type id as Delta writes it ("long", "timestamp_ntz", ...). */
const char *col_type_id_name(col_type_id id);

/* 128-bit decimal storage. */
#if defined(__GNUC__)
__extension__ typedef __int128 col_int128;
#endif

typedef struct col_vec col_vec;

struct col_vec {
    const col_type *type;
    int64_t length;
    int64_t null_count;
    uint8_t *validity;  /* NULL = no nulls */
    void *values;       /* fixed-width values, or dictionary indices */
    int32_t *offsets;   /* STRING, BINARY, ARRAY, MAP */
    char *data;         /* STRING, BINARY bytes */
    int64_t data_len;
    size_t n_children;
    col_vec **children;
    col_vec *dictionary; /* STRING/BINARY only: values are int32 indices */
    /*
     * Optional, fixed-width vectors only, values still filled: codes[row]
     * is the index of the row's value in a dictionary of codes_card entries
     * that codes_dict names (an id unique in the process), so rows with
     * equal codes under one id hold equal values. The Parquet reader sets
     * it on dictionary-encoded flat columns without nulls; a consumer may
     * deduplicate by code (count(DISTINCT x)). Every other vector has codes
     * NULL: operators that derive a vector make a fresh one.
     */
    const uint32_t *codes;
    uint64_t codes_dict;
    int64_t codes_card;
};

static inline int col_vec_is_null(const col_vec *v, int64_t row)
{
    return v->validity != NULL && !((v->validity[row >> 3] >> (row & 7)) & 1);
}

static inline void col_bit_set(uint8_t *bits, int64_t idx) { bits[idx >> 3] |= (uint8_t)(1u << (idx & 7)); }
static inline void col_bit_clear(uint8_t *bits, int64_t idx) { bits[idx >> 3] &= (uint8_t)~(1u << (idx & 7)); }
static inline int col_bit_get(const uint8_t *bits, int64_t idx) { return (bits[idx >> 3] >> (idx & 7)) & 1; }

/*
 * Bytes of row `row` of a STRING/BINARY vector, through the dictionary when
 * there is one. The pointer is borrowed from the vector.
 */
static inline const char *col_vec_str(const col_vec *v, int64_t row, int32_t *len_out)
{
    if (v->dictionary != NULL) {
        int32_t idx = ((const int32_t *)v->values)[row];
        const col_vec *d = v->dictionary;
        *len_out = d->offsets[idx + 1] - d->offsets[idx];
        return d->data + d->offsets[idx];
    }
    *len_out = v->offsets[row + 1] - v->offsets[row];
    return v->data + v->offsets[row];
}

/*
 * Makes a vector of `length` rows with zero-filled buffers: validity all
 * valid (allocated only when with_validity), values, offsets (all zero) and,
 * for nested types, children of length 0 (STRUCT children get `length`).
 * data is left NULL; set it with col_vec_alloc_data.
 */
silt_status col_vec_new(col_vec **out, arena *a, const col_type *type, int64_t length,
                        int with_validity, silt_error *err);
/* Allocates `byte_len` bytes of variable-width data for a STRING/BINARY vector. */
silt_status col_vec_alloc_data(col_vec *v, arena *a, int64_t byte_len, silt_error *err);
/* Marks a row null (allocating the bitmap when needed) and counts it. */
silt_status col_vec_set_null(col_vec *v, arena *a, int64_t row, silt_error *err);
/* A vector of `length` nulls of any type (used for columns absent from a file). */
silt_status col_vec_new_nulls(col_vec **out, arena *a, const col_type *type, int64_t length,
                              silt_error *err);
/*
 * Replaces a dictionary-encoded vector by a plain one (offsets + data) in
 * arena a. A plain vector is returned unchanged.
 */
silt_status col_vec_flatten(col_vec **out, arena *a, const col_vec *v, silt_error *err);
/*
 * Gathers rows rows[0..n_rows) of v (any type, nested included) into a new
 * vector in arena a. Row indexes must be in range; they may repeat and come
 * in any order. Dictionary-encoded vectors keep their dictionary.
 */
silt_status col_vec_take(col_vec **out, arena *a, const col_vec *v, const int64_t *rows,
                         int64_t n_rows, silt_error *err);
/* Counts the zero bits of the validity bitmap over `length` rows. */
int64_t col_validity_count_nulls(const uint8_t *validity, int64_t length);

/* A batch: a struct-typed set of equally long columns. */
typedef struct col_batch {
    const col_type *schema; /* STRUCT */
    int64_t n_rows;
    size_t n_cols;
    col_vec **cols;
} col_batch;

/* Keeps the rows of a batch whose keep[row] is non-zero (a new batch in a). */
silt_status col_batch_filter(col_batch **out, arena *a, const col_batch *batch,
                             const uint8_t *keep, silt_error *err);

/*
 * Builds vectors row by row, for readers of row formats (JSON, CSV, log
 * actions) and for tests. Appends are amortised O(1); the result is a
 * col_vec in the builder's arena.
 */
typedef struct col_builder col_builder;
silt_status col_builder_new(col_builder **out, arena *a, const col_type *type, silt_error *err);
silt_status col_builder_append_null(col_builder *b, silt_error *err);
silt_status col_builder_append_bool(col_builder *b, int value, silt_error *err);
/* For BYTE, SHORT, INT, LONG, DATE, TIMESTAMP, TIMESTAMP_NTZ. */
silt_status col_builder_append_int(col_builder *b, int64_t value, silt_error *err);
/* For FLOAT and DOUBLE. */
silt_status col_builder_append_double(col_builder *b, double value, silt_error *err);
/* For DECIMAL: the unscaled value. */
silt_status col_builder_append_decimal(col_builder *b, col_int128 unscaled, silt_error *err);
/* For STRING and BINARY. */
silt_status col_builder_append_bytes(col_builder *b, const void *data, size_t len,
                                     silt_error *err);
/*
 * Nested values: for STRUCT append to each child builder then call
 * col_builder_append_struct; for ARRAY/MAP append the elements (keys and
 * values) to the children, then col_builder_append_list with their count.
 */
col_builder *col_builder_child(col_builder *b, size_t idx);
silt_status col_builder_append_struct(col_builder *b, silt_error *err);
silt_status col_builder_append_list(col_builder *b, int64_t n_elements, silt_error *err);
int64_t col_builder_length(const col_builder *b);
/*
 * Makes room for n_rows more values (and data_bytes more bytes of STRING or
 * BINARY data) so that appending them never copies; a reader that knows its
 * batch size calls it once per batch. Children are not reserved.
 */
silt_status col_builder_reserve(col_builder *b, int64_t n_rows, size_t data_bytes,
                                silt_error *err);
/* Bytes of STRING/BINARY data appended so far. */
size_t col_builder_data_len(const col_builder *b);
/* Finishes and returns the vector; the builder may not be used afterwards. */
silt_status col_builder_finish(col_builder *b, col_vec **out, silt_error *err);

#endif
