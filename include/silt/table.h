/*
 * silt/table.h - opening a Delta table at a version and reading its facts.
 *
 * A silt_table is one snapshot of a Delta table: its version, protocol,
 * schema, partition columns and live files. It is read-only and immutable,
 * so one handle may be used from several threads at once.
 */
#ifndef SILT_TABLE_H
#define SILT_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "silt/common.h"
#include "silt/output.h"
#include "silt/sql.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An opened snapshot of a Delta table. Opaque. Since 0.1. */
typedef struct silt_table silt_table;

/** How to pick the version to open. Since 0.1. */
typedef struct silt_table_open_options {
    unsigned version;         /**< SILT_TABLE_OPEN_OPTIONS_VERSION (1 up to it is accepted) */
    int64_t version_as_of;    /**< a table version, or -1 for the latest */
    int has_timestamp;        /**< when set, open the version current at timestamp_micros */
    int64_t timestamp_micros; /**< microseconds since 1970-01-01 UTC (TIMESTAMP AS OF) */
} silt_table_open_options;

#define SILT_TABLE_OPEN_OPTIONS_VERSION 1
#define SILT_TABLE_OPEN_OPTIONS_INIT {SILT_TABLE_OPEN_OPTIONS_VERSION, -1, 0, 0}

/**
 * Opens the Delta table at `location` (a local folder or file:// URI) at
 * the version the options pick (NULL = latest), through db: its store
 * options apply. The handle does not keep db; db must stay open while the
 * handle is used.
 *
 * Like sqlite3_open, a handle is returned in *out even when opening fails
 * (unless memory runs out), so that silt_table_errmsg() can say why; close
 * it with silt_table_close() in every case.
 *
 * @return SILT_OK; SILT_NOTFOUND (no table, no such version or timestamp),
 *         SILT_CORRUPT (a malformed log), SILT_UNSUPPORTED (a reader
 *         feature silt lacks), SILT_IO, SILT_NOMEM, SILT_INVALID.
 * Since 0.1.
 */
SILT_API silt_status silt_table_open(silt_table **out, silt_db *db, const char *location,
                                     const silt_table_open_options *opts);

/** Closes a table handle. NULL is fine. Since 0.1. */
SILT_API void silt_table_close(silt_table *table);

/**
 * The error of the last failed call on this handle, formatted for a person
 * (message, detail, hint and context lines), or "" after success. Borrowed
 * until the next call on the handle. Since 0.1.
 */
SILT_API const char *silt_table_errmsg(const silt_table *table);

/** The table version this handle shows. Since 0.1. */
SILT_API int64_t silt_table_version(const silt_table *table);

/**
 * Commit time of the version in milliseconds since the epoch, and whether it
 * is an in-commit timestamp (1) or the commit file's time (0). Since 0.1.
 */
SILT_API int64_t silt_table_timestamp_ms(const silt_table *table, int *in_commit_out);

/** Minimum reader and writer versions of the table's protocol. Since 0.1. */
SILT_API int silt_table_min_reader_version(const silt_table *table);
SILT_API int silt_table_min_writer_version(const silt_table *table);

/**
 * Table features of the protocol: the number, and the name of feature idx
 * (borrowed from the handle). writer = 0 for reader features, 1 for writer
 * features. Since 0.1.
 */
SILT_API size_t silt_table_feature_count(const silt_table *table, int writer);
SILT_API const char *silt_table_feature(const silt_table *table, int writer, size_t idx);

/** The table id and name (name may be NULL) from the metadata. Since 0.1. */
SILT_API const char *silt_table_id(const silt_table *table);
SILT_API const char *silt_table_name(const silt_table *table);

/**
 * Top-level columns: count, logical name, type in Delta's notation
 * ("long", "decimal(10,2)", "struct<a:int>", ...) and nullability. Strings
 * are borrowed from the handle. Since 0.1.
 */
SILT_API size_t silt_table_column_count(const silt_table *table);
SILT_API const char *silt_table_column_name(const silt_table *table, size_t idx);
SILT_API const char *silt_table_column_type(const silt_table *table, size_t idx);
SILT_API int silt_table_column_nullable(const silt_table *table, size_t idx);

/** Partition columns, in order. Since 0.1. */
SILT_API size_t silt_table_partition_column_count(const silt_table *table);
SILT_API const char *silt_table_partition_column(const silt_table *table, size_t idx);

/** Table properties (metaData.configuration): count, key and value of entry idx. Since 0.1. */
SILT_API size_t silt_table_property_count(const silt_table *table);
SILT_API const char *silt_table_property_key(const silt_table *table, size_t idx);
SILT_API const char *silt_table_property_value(const silt_table *table, size_t idx);

/** Number of live data files and their total size in bytes. Since 0.1. */
SILT_API int64_t silt_table_file_count(const silt_table *table);
SILT_API int64_t silt_table_total_bytes(const silt_table *table);

/**
 * The checkpoint the snapshot was read from: its version (-1 when the log
 * was replayed from its first commit) and kind ("classic", "multi-part",
 * "v2", or NULL). Since 0.1.
 */
SILT_API int64_t silt_table_checkpoint_version(const silt_table *table, const char **kind_out);

/**
 * Version of a newer checkpoint that was passed over because it is stored
 * in Parquet and this build has no Parquet checkpoint reader (the JSON
 * commits were replayed instead), or -1. Since 0.1.
 */
SILT_API int64_t silt_table_skipped_checkpoint_version(const silt_table *table);

/**
 * Parses a timestamp the way TIMESTAMP AS OF does ("2024-01-02",
 * "2024-01-02 10:00:00", ISO 8601 with an offset; no offset = UTC).
 * @return SILT_OK or SILT_PARSE. Since 0.1.
 */
SILT_API silt_status silt_parse_timestamp(const char *text, int64_t *micros_out);

/**
 * Formats the rows of the table's version into fn (opts may be NULL: a
 * Spark show() table of 20 rows). Column mapping, partition values and
 * deletion vectors are applied; rows come in file order.
 *
 * @return SILT_OK; SILT_CORRUPT or SILT_IO for unreadable data files (or
 *         fn stopped), SILT_UNSUPPORTED for data silt cannot read;
 *         SILT_INVALID for a handle whose open failed. The message is in
 *         silt_table_errmsg. Since 0.1.
 */
SILT_API silt_status silt_table_format_rows(silt_table *table, const silt_output_options *opts,
                                            silt_text_fn fn, void *payload);

/** The status of the last call on the handle (SILT_OK after success). Since 0.1. */
SILT_API silt_status silt_table_errcode(const silt_table *table);

#ifdef __cplusplus
}
#endif
#endif
