/*
 * partition.h - typed values of partition columns and statistics.
 *
 * PROTOCOL: Partition Value Serialization. The log stores every partition
 * value as a string (or null); delta_value_parse turns it into a typed
 * value of the column's Delta type, and delta_value_fill makes the
 * constant column a scan adds for a partition column. The same typed
 * values serve the statistics and the pruning predicates (stats.h).
 */
#ifndef SILT_DELTA_PARTITION_H
#define SILT_DELTA_PARTITION_H

#include "formats/columnar.h"
#include "util/arena.h"
#include "util/error.h"

/* A typed scalar. Strings and binaries point into memory owned by someone else. */
typedef struct delta_value {
    col_type_id type;
    int32_t scale; /* DECIMAL */
    int is_null;
    union {
        int64_t i; /* BOOLEAN (0/1), integers, DATE (days), TIMESTAMP[_NTZ] (micros) */
        double d;  /* FLOAT, DOUBLE */
        col_int128 dec; /* DECIMAL: unscaled */
        struct {
            const char *ptr;
            size_t len;
        } s; /* STRING, BINARY */
    } v;
} delta_value;

/*
 * Parses a serialised partition value of `type` (text NULL or "" is null).
 * Timestamps without an offset are read as UTC; with one they are
 * converted to UTC. SILT_CORRUPT (naming column) when the text is not a
 * value of the type, SILT_UNSUPPORTED for nested types.
 */
silt_status delta_value_parse(delta_value *out, const col_type *type, const char *text,
                              const char *column, silt_error *err);

/*
 * Compares two non-null values of the same type: *cmp_out < 0, 0, > 0.
 * Decimals of different scales are aligned; NaN sorts above everything as
 * in Spark. SILT_INVALID for values of different types.
 */
silt_status delta_value_compare(const delta_value *a, const delta_value *b, int *cmp_out,
                                silt_error *err);

/*
 * A vector of n_rows copies of value (of type) in arena a: all-null
 * vectors for a null value; strings become a one-entry dictionary.
 */
silt_status delta_value_fill(col_vec **out, arena *a, const col_type *type,
                             const delta_value *value, int64_t n_rows, silt_error *err);

#endif
