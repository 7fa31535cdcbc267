/*
 * write_int.h - private to the delta_writer modules (write*.c).
 */
#ifndef SILT_DELTA_WRITE_INT_H
#define SILT_DELTA_WRITE_INT_H

#include "delta/write.h"

/* The folder name of a null (or empty) partition value, as Hive and Spark write it. */
#define DWRITE_NULL_PARTITION "__HIVE_DEFAULT_PARTITION__"

/*
 * Row `row` of a partition column as Delta serialises it in partitionValues
 * (PROTOCOL: Partition Value Serialization), appended to out; *is_null_out
 * is set for a null (and for an empty string, which Spark stores as null).
 * SILT_UNSUPPORTED for types that cannot be partition columns.
 */
silt_status dwrite_partition_text(const col_vec *v, int64_t row, buf *out, int *is_null_out,
                                  silt_error *err);

/* Appends s with Spark's escapePathName: %XX (upper case) for characters unsafe in a folder. */
silt_status dwrite_escape_path(const char *s, size_t len, buf *out, silt_error *err);

/* SILT_OK when a column of this type may partition a table (not nested, not binary). */
silt_status dwrite_check_partition_type(const col_field *field, silt_error *err);

/*
 * Schema enforcement and evolution of an existing table: for each table
 * column, the index of the batch column that feeds it (-1 = written as
 * null) in src_cols_out (n_table_cols entries, arena a); with merge_schema
 * the batch's extra columns are appended to the table schema in
 * *table_schema_out (else it is the snapshot's). Errors in Spark's shape.
 */
silt_status dwrite_match_schema(const col_type *table, const col_type *data, int merge_schema,
                                arena *a, const col_type **table_schema_out, int **src_cols_out,
                                silt_error *err);

/*
 * A writer of change data files for snap's table (PROTOCOL: Change Data
 * Files): batches hold the table's columns and then "_change_type"
 * (string: delete, update_preimage, update_postimage, insert); the output's
 * adds become cdc actions (path under _change_data/, partition values,
 * size; no stats, dataChange false). Free with delta_write_free.
 */
silt_status dwrite_open_cdc(delta_writer **out, io_store *store, const delta_snapshot *snap,
                            silt_error *err);

/* The partition columns the caller gave at open (WRITE's partitionBy in history). */
const char *const *dwrite_partition_by(const delta_writer *w, size_t *n_out);

/* operationParameters.predicate as Spark's JSON list of one SQL text ("true" when NULL). */
silt_status dwrite_predicate_param(delta_txn *txn, const char *text, silt_error *err);

/*
 * The delete half of a replaceWhere over data columns, inside txn (begun by the caller):
 * the files file_filter keeps (NULL = all) are read; a file with rows predicate matches is
 * removed and its other rows written back (copy-on-write, as delta_delete). Adds the new
 * files to txn and fills *metrics (removed files/bytes, deleted and copied rows, added
 * files/bytes). dml.c.
 */
struct delta_dml_metrics;
silt_status dwrite_delete_rows(delta_txn *txn, io_store *store, const delta_snapshot *snap,
                               delta_file_filter_fn file_filter, void *file_filter_payload,
                               delta_row_predicate_fn predicate, void *predicate_payload,
                               struct delta_dml_metrics *metrics, silt_error *err);

#endif
