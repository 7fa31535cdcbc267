/*
 * trips_data.h - the trips table of the shared tutorial
 * (../shared/tutorials/001_7f61e7eb7ca43da3.txt): rows
 * {destination, route_id, trip_id, tstamp} with trip_id = i,
 * route_id = chr(65 + i % 10), destination = dest[i % 10] and one
 * timestamp, built as column batches. Shared by the unit test and
 * bench/bench_delta_write.c.
 */
#ifndef SILT_TESTS_TRIPS_DATA_H
#define SILT_TESTS_TRIPS_DATA_H

#include <string.h>

#include "formats/columnar.h"

static const char *const trips_dest[10] = {"Seattle", "New York", "New Jersey", "Los Angeles",
                                           "Las Vagas", "Tucson", "Washinton DC", "Philadelphia",
                                           "Miami", "San Francisco"};

/* 2022-01-31 07:24:39 UTC, the time the tutorial's rows show. */
#define TRIPS_TSTAMP_MICROS INT64_C(1643613879000000)

static inline const col_type *trips_schema(arena *a)
{
    static const char *const names[4] = {"destination", "route_id", "trip_id", "tstamp"};
    static const col_type_id ids[4] = {COL_STRING, COL_STRING, COL_LONG, COL_TIMESTAMP};
    col_field f[4];
    int idx;
    memset(f, 0, sizeof(f));
    for (idx = 0; idx < 4; idx++) {
        f[idx].name = names[idx];
        f[idx].type = col_type_primitive(ids[idx]);
        f[idx].nullable = 1;
        f[idx].field_id = -1;
    }
    return col_type_struct(a, 4, f);
}

/* Rows start..start+n_rows as a batch in arena a. */
static inline silt_status trips_batch(arena *a, const col_type *schema, int64_t start,
                                      int64_t n_rows, col_batch **out, silt_error *err)
{
    col_builder *b[4];
    col_batch *batch = arena_calloc(a, 1, sizeof(*batch));
    col_vec **cols = arena_calloc(a, 4, sizeof(*cols));
    int64_t row;
    size_t idx;
    if (batch == NULL || cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < 4; idx++)
        SILT_RETURN_IF_ERROR(col_builder_new(&b[idx], a, schema->fields[idx].type, err));
    for (row = start; row < start + n_rows; row++) {
        const char *dest = trips_dest[row % 10];
        char route = (char)('A' + row % 10);
        SILT_RETURN_IF_ERROR(col_builder_append_bytes(b[0], dest, strlen(dest), err));
        SILT_RETURN_IF_ERROR(col_builder_append_bytes(b[1], &route, 1, err));
        SILT_RETURN_IF_ERROR(col_builder_append_int(b[2], row, err));
        SILT_RETURN_IF_ERROR(col_builder_append_int(b[3], TRIPS_TSTAMP_MICROS, err));
    }
    for (idx = 0; idx < 4; idx++)
        SILT_RETURN_IF_ERROR(col_builder_finish(b[idx], &cols[idx], err));
    batch->schema = schema;
    batch->n_rows = n_rows;
    batch->n_cols = 4;
    batch->cols = cols;
    *out = batch;
    return SILT_OK;
}

/* The row predicate destination = 'New Jersey' (dml.h's delta_row_predicate_fn). */
static inline silt_status trips_is_new_jersey(const col_batch *batch, uint8_t *match,
                                              void *payload, silt_error *err)
{
    int64_t row;
    (void)payload;
    (void)err;
    for (row = 0; row < batch->n_rows; row++) {
        int32_t len = 0;
        const char *s = col_vec_is_null(batch->cols[0], row)
                            ? NULL
                            : col_vec_str(batch->cols[0], row, &len);
        match[row] = s != NULL && len == 10 && memcmp(s, "New Jersey", 10) == 0;
    }
    return SILT_OK;
}

#endif
