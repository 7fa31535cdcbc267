/*
 * silt/write.h - writing a caller's data (an Arrow C stream) into a Delta
 * table, the way Spark's DataFrameWriter does:
 *
 *   df.write.format("delta").mode("append").option("mergeSchema", "true")
 *     .partitionBy("day").save("/data/events")        (or .saveAsTable("events"))
 *
 * is, in C:
 *
 *   silt_write_options o = SILT_WRITE_OPTIONS_INIT;
 *   o.mode = SILT_SAVE_APPEND;
 *   o.merge_schema = 1;
 *   silt_conn_write_arrow(conn, "/data/events", &stream, &o);
 *
 * The rows go through the same code as SQL's INSERT and CREATE TABLE AS
 * SELECT (silt has one writer): the same schema enforcement and its
 * messages, casts, partition folders, file sizes (silt.write.targetFileSize
 * and delta.targetFileSize), statistics, conflict checks and history.
 */
#ifndef SILT_WRITE_H
#define SILT_WRITE_H

#include <stddef.h>

#include "silt/arrow.h"
#include "silt/common.h"
#include "silt/sql.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * What a write does when the table already exists: Spark's SaveMode.
 * When the table does not exist, every mode creates it. Since 0.1.
 */
typedef enum silt_save_mode {
    SILT_SAVE_ERROR_IF_EXISTS = 0, /**< refuse ([DELTA_TABLE_ALREADY_EXISTS]); Spark's default */
    SILT_SAVE_APPEND = 1,          /**< add the rows */
    SILT_SAVE_OVERWRITE = 2,       /**< replace the rows (all, or per replace_where /
                                        partition_overwrite_mode) */
    SILT_SAVE_IGNORE = 3           /**< write nothing, succeed */
} silt_save_mode;

/**
 * Options of silt_conn_write_arrow; start from SILT_WRITE_OPTIONS_INIT.
 * Strings are borrowed for the duration of the call. Since 0.1.
 */
typedef struct silt_write_options {
    unsigned version;        /**< SILT_WRITE_OPTIONS_VERSION (1 up to it is accepted) */
    silt_save_mode mode;     /**< default SILT_SAVE_ERROR_IF_EXISTS, as Spark's save() */
    /**
     * Delta's mergeSchema: columns the table lacks are added at the end of
     * its schema (older rows read them as null), as INSERT WITH SCHEMA
     * EVOLUTION. Without it such a write is refused with Delta's schema
     * mismatch message.
     */
    int merge_schema;
    /**
     * Delta's overwriteSchema, with SILT_SAVE_OVERWRITE only: the table
     * takes the stream's schema and partition_by (history shows WRITE
     * with mode Overwrite, as Spark's save does).
     */
    int overwrite_schema;
    /**
     * Delta's replaceWhere, with SILT_SAVE_OVERWRITE only: a Spark SQL
     * predicate; only the rows it selects are replaced, and every new row
     * must satisfy it ([DELTA_REPLACE_WHERE_MISMATCH] otherwise). NULL = none.
     */
    const char *replace_where;
    /**
     * Spark's partitionOverwriteMode for SILT_SAVE_OVERWRITE of a
     * partitioned table: "static" (replace the whole table) or "dynamic"
     * (replace only the partitions the new rows fall in). NULL = the
     * connection's spark.sql.sources.partitionOverwriteMode, else static.
     */
    const char *partition_overwrite_mode;
    /**
     * partitionBy: partition columns of a new table. For an existing table
     * they must be its partition columns (or n_partition_by 0), unless
     * overwrite_schema.
     */
    const char *const *partition_by;
    size_t n_partition_by;
    /**
     * Spark's userMetadata write option: the commit's commitInfo.userMetadata,
     * shown by DESCRIBE HISTORY. NULL = none (or the connection's
     * spark.databricks.delta.commitInfo.userMetadata). Since 0.1, options
     * version 2: a version 1 struct has no such field and gets NULL.
     */
    const char *user_metadata;
    /**
     * Spark's compression write option: the Parquet codec of the files
     * written, by Spark's name, case-insensitive (none, uncompressed,
     * snappy, gzip, lz4, lz4_raw, zstd; lzo and brotli are refused). NULL = the
     * connection's spark.sql.parquet.compression.codec, else snappy. An
     * unknown name fails with Spark's [CODEC_NOT_AVAILABLE...] error.
     * Options version 3: older structs get NULL.
     */
    const char *compression;
    /**
     * Delta's txnAppId and txnVersion write options (idempotent writes): with
     * txn_app_id set, the commit carries a txn action (txn_app_id,
     * txn_version), and the write is skipped, writing nothing and
     * succeeding, when the table already records txn_app_id at txn_version
     * or a newer one. NULL = the connection's
     * spark.databricks.delta.write.txnAppId / txnVersion, if any. A
     * txn_version other than 0 without txn_app_id is refused with Delta's
     * [DELTA_INVALID_IDEMPOTENT_WRITES_OPTIONS]. Options version 4: older
     * structs get NULL and 0.
     */
    const char *txn_app_id;
    int64_t txn_version;
} silt_write_options;

#define SILT_WRITE_OPTIONS_VERSION 4
#define SILT_WRITE_OPTIONS_INIT {SILT_WRITE_OPTIONS_VERSION, SILT_SAVE_ERROR_IF_EXISTS, 0, 0, \
                                 NULL, NULL, NULL, 0, NULL, NULL, NULL, 0}

/**
 * Writes every record batch of stream into the Delta table target, as one
 * commit.
 *
 * target is either a path (it starts with '/', contains "://", or is
 * written delta.`path`): the Delta table in that folder, as Spark's
 * save(path); or a table name "t" or "db.t" (names taken as they are,
 * without SQL quoting) of the connection's warehouse, as saveAsTable (a
 * new name becomes a managed table in the database, "default" or the
 * connection's current one).
 *
 * What is committed, with the history Spark's DataFrameWriter records: a
 * new table (or an overwrite_schema replace) at a path is a WRITE with
 * parameters mode (ErrorIfExists / Append / Overwrite / Ignore) and
 * partitionBy, as save(path); at a table name it is CREATE [OR REPLACE]
 * TABLE AS SELECT, as saveAsTable; an append or overwrite of an existing
 * table is a WRITE with mode (Append / Overwrite), partitionBy and, with
 * replace_where, predicate. Columns are matched by name (case-insensitively) as a
 * DataFrame write does; table columns the stream lacks are written as
 * null; values are cast to the table's types where Spark's INSERT allows.
 *
 * The stream (format "+s" schema, any of the types silt/arrow.h's
 * structures describe that map to Delta: bool, int8-64, uint8-32 (widened),
 * float, double, decimal128, utf8, large_utf8, binary, large_binary,
 * date32, date64, timestamp s/ms/us/ns with a zone (timestamp) or
 * without (timestamp_ntz), struct, list, large_list, map, and dictionary
 * encodings of these) is consumed: it is released exactly once before the
 * call returns, on success and on every error, and so is each schema and
 * array it hands out. Record batches of any length are fine; rows are
 * copied as they are read, so the stream's memory is released batch by
 * batch.
 *
 * Thread-safety: as every call on a connection, one thread at a time.
 *
 * @return SILT_OK; SILT_INVALID (NULL arguments, a malformed stream or
 *         option, a schema the table refuses: the message is Spark's),
 *         SILT_EXISTS (ERROR_IF_EXISTS over an existing table),
 *         SILT_UNSUPPORTED (an Arrow type Delta has no place for, or a
 *         table feature silt cannot write), SILT_NOTFOUND (no such
 *         database), SILT_BIND, SILT_PARSE (replace_where), SILT_IO (the
 *         stream's get_next failed: its get_last_error is in the message,
 *         or the store failed), SILT_CONFLICT, SILT_NOMEM. On error the
 *         table is as before. The message is in silt_conn_errmsg(). Since 0.1.
 */
SILT_API silt_status silt_conn_write_arrow(silt_conn *conn, const char *target,
                                           struct ArrowArrayStream *stream,
                                           const silt_write_options *opts);

/**
 * Parses Spark's SaveMode names: "append", "overwrite", "errorifexists"
 * (also "error" and "default"), "ignore", case-insensitively.
 * @return SILT_OK, or SILT_INVALID for another text. Since 0.1.
 */
SILT_API silt_status silt_save_mode_parse(const char *text, silt_save_mode *out);

#ifdef __cplusplus
}
#endif

#endif
