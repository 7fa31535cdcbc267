/*
 * write.h - writing rows into a Delta table: data files, add actions, and
 * the operations (CREATE TABLE, CTAS, append, overwrite) that commit them.
 *
 * A delta_writer turns batches of the table's logical schema into Parquet
 * data files the way Spark lays them out:
 *   - Hive-style partition folders `col=value/` with Spark's escaping
 *     (ExternalCatalogUtils.escapePathName: %XX for control characters and
 *     "#%'*\/:=?\\{[]^ and DEL), `__HIVE_DEFAULT_PARTITION__` for a null or
 *     empty value in the folder name while partitionValues holds null;
 *   - file names `part-<5 digits>-<uuid>.c000.snappy.parquet`;
 *   - partition columns are not written into the files;
 *   - with column mapping, files use physical names (and field ids), and
 *     partitionValues and stats are keyed by physical names;
 *   - at most max_open_files files are open at once (the largest open one is
 *     finished when another partition needs a file), so a write into many
 *     partitions holds a bounded number of row groups in memory;
 *   - a new file is started when the current one of a partition passes the
 *     target size (delta.targetFileSize, 128 MiB by default), measured on
 *     the rows' in-memory size, so files end near (below) the target once
 *     compressed;
 *   - stats JSON from the Parquet writer's statistics, for the first
 *     delta.dataSkippingNumIndexedCols columns (32).
 *
 * Schema enforcement (Delta's write rules): every column of the batches
 * must be a table column of the same type (matched case-insensitively);
 * table columns missing from the batches are written as null when
 * nullable. Otherwise the writer refuses at open with SILT_INVALID and a
 * message in Spark's shape ("A schema mismatch detected when writing to the
 * Delta table ..." naming the extra or missing columns, or
 * "[DELTA_FAILED_TO_MERGE_FIELDS] Failed to merge fields ..." for a type).
 * With merge_schema, extra columns are appended to the table schema (old
 * files read them as null) and the commit carries a metaData action.
 *
 * Nothing is visible in the table before a commit: data files written by a
 * writer whose commit fails stay as orphans for VACUUM.
 */
#ifndef SILT_DELTA_WRITE_H
#define SILT_DELTA_WRITE_H

#include "delta/protocol.h"
#include "delta/txn.h"
#include "util/thread.h"

typedef struct delta_writer delta_writer;

/*
 * A check every batch must pass before it is written (the table's CHECK
 * constraints, bound by the sql layer): batch has the writer's table schema
 * (delta_write_table_schema), logical names, table order. An error stops
 * the write, and the writer fails. Called from the writer's caller thread;
 * writers of one statement on several workers call it concurrently.
 */
typedef silt_status (*delta_batch_check_fn)(void *payload, const col_batch *batch,
                                            silt_error *err);

typedef struct delta_write_options {
    unsigned version;
    /* New tables only: partition columns and table properties. */
    size_t n_partition_columns;
    const char *const *partition_columns;
    const dlog_map *configuration;
    int64_t target_file_size; /* bytes; 0 = delta.targetFileSize or 128 MiB */
    int merge_schema;         /* add new columns to the table schema */
    /* Files open at once (one per partition folder being written); past it the largest
     * is finished early. 0 = 128. Bounds the memory of writes into many partitions. */
    int max_open_files;
    /* Encodes the files on this pool (borrowed; NULL = on the caller's thread): rows are
     * queued per partition folder and the folders encoded in parallel, with the queue
     * bounded. The files hold the same rows and statistics either way. */
    tpool *pool;
    /* Spark's Parquet codec name (spark.sql.parquet.compression.codec, case-insensitive:
     * none, uncompressed, snappy, gzip, lz4, lz4_raw, zstd; lzo and brotli are refused); NULL = snappy. */
    const char *compression;
    /* NULL = none. NOT NULL columns are always enforced by the writer itself
     * ([DELTA_NOT_NULL_CONSTRAINT_VIOLATED]), before check. */
    delta_batch_check_fn check;
    void *check_payload;
} delta_write_options;

#define DELTA_WRITE_OPTIONS_INIT {1, 0, NULL, NULL, 0, 0, 0, NULL, NULL, NULL, NULL}

/* What a writer produced. Everything lives in the writer (valid until delta_write_free). */
typedef struct delta_write_output {
    size_t n_adds;
    const dlog_add *adds;
    int64_t n_rows;
    int64_t n_bytes;
    /* The table's metadata after the write: new for a new table or an evolved schema. */
    const dlog_metadata *metadata;
    int metadata_changed; /* a metaData action is needed */
} delta_write_output;

/*
 * Starts writing rows of `schema` (a STRUCT, borrowed) to the table at
 * store: into snap's table, or a new table when snap is NULL (then opts
 * give partition columns and properties). opts may be NULL. Fails with
 * SILT_INVALID for a schema the table does not accept (see above) and
 * SILT_UNSUPPORTED for tables silt cannot write.
 */
silt_status delta_write_open(delta_writer **out, io_store *store, const delta_snapshot *snap,
                             const col_type *schema, const delta_write_options *opts,
                             silt_error *err);
/* Writes the rows of a batch of the schema given at open. */
silt_status delta_write_batch(delta_writer *w, const col_batch *batch, silt_error *err);
/* Closes every open file and hands out the add actions (dataChange true). */
silt_status delta_write_finish(delta_writer *w, delta_write_output *out, silt_error *err);
/* Frees the writer; files not finished are dropped. NULL is fine. */
void delta_write_free(delta_writer *w);
/* The rows written so far (what numOutputRows of the commit will say). */
int64_t delta_write_rows(const delta_writer *w);

/* The table schema the writer writes (logical names; the evolved one with merge_schema). */
const col_type *delta_write_table_schema(const delta_writer *w);

/* ---- operations -------------------------------------------------------------------------- */

typedef enum delta_write_mode {
    DELTA_MODE_APPEND = 0,
    DELTA_MODE_OVERWRITE,           /* the whole table, or the files replace_where selects */
    DELTA_MODE_OVERWRITE_PARTITIONS, /* dynamic: only partitions the new rows fall in */
    DELTA_MODE_CREATE,              /* CREATE TABLE (no rows) */
    DELTA_MODE_CTAS                 /* CREATE TABLE AS SELECT */
} delta_write_mode;

/* Sets match[row] to 1 for rows of batch the predicate is true for, 0 otherwise (also null). */
typedef silt_status (*delta_row_predicate_fn)(const col_batch *batch, uint8_t *match,
                                              void *payload, silt_error *err);

/* A file filter: non-zero when the file may hold rows the operation concerns. */
typedef int (*delta_file_filter_fn)(const delta_snapshot *snap, const delta_file *file,
                                    void *payload);

typedef struct delta_commit_options {
    unsigned version;
    /* OVERWRITE: replaceWhere as a partition-value filter of the files replaced, and its SQL
     * text for history (operationParameters.predicate). NULL = the whole table. */
    delta_file_filter_fn replace_where;
    void *replace_where_payload;
    const char *predicate_text;
    int64_t (*now_ms)(void *payload); /* commit clock for tests; NULL = wall clock */
    void *now_payload;
    int is_managed; /* CREATE/CTAS of a managed catalog table: history's isManaged */
    /* OVERWRITE: replaceWhere over data columns (Delta's "arbitrary replaceWhere"): the rows
     * of the files replace_where keeps (NULL = every file) that this predicate matches are
     * deleted, the files holding them rewritten with their other rows, in the same commit. */
    delta_row_predicate_fn replace_rows;
    void *replace_rows_payload;
    /* CTAS made by a DataFrameWriter-style save (the C API): Spark's SaveMode name
     * ("ErrorIfExists", "Append", "Overwrite", "Ignore"). History then shows what Spark's
     * df.write.save(path) records, WRITE {mode, partitionBy}, not CREATE TABLE AS SELECT.
     * NULL = a SQL statement. */
    const char *save_mode;
    /* commitInfo.userMetadata (Spark's userMetadata write option); NULL = none. */
    const char *user_metadata;
    /* Time the commit may spend retrying lost races (delta_txn_set_retry_timeout_ms); 0 =
     * DELTA_TXN_DEFAULT_RETRY_TIMEOUT_MS. */
    int64_t retry_timeout_ms;
    delta_app_txn app_txn; /* the commit's txn action (delta_app_txn); none by default */
    /* CREATE/CTAS: the protocol the table's protocol properties ask for on top of what its
     * metadata needs (dproto_request_apply); NULL = none. */
    const dproto_request *protocol_request;
    /* CREATE/CTAS: the table's comment, kept as metaData.description (Spark's COMMENT);
     * NULL = none. */
    const char *description;
    /* An INSERT that assigned identity values: the column (top level) whose metadata's
     * delta.identity.highWaterMark becomes identity_high_water_mark in this commit's
     * metaData (PROTOCOL: Identity Columns). NULL = none. */
    const char *identity_column;
    int64_t identity_high_water_mark;
} delta_commit_options;

#define DELTA_COMMIT_OPTIONS_INIT                                                                 \
    {1, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, DELTA_APP_TXN_NONE, NULL, NULL, \
     NULL, 0}

/*
 * Finishes a writer and commits its files as one transaction with Spark's
 * commitInfo (write_commit.c lists the keys): WRITE {mode, partitionBy
 * (the columns given at open, "[]" for a plain append)[, predicate]
 * [, isDynamicPartitionOverwrite]} with numFiles, numOutputRows,
 * numOutputBytes (+ removed files/bytes for overwrites); CREATE TABLE /
 * CREATE TABLE AS SELECT {partitionBy, description, properties, clusterBy,
 * isManaged}. snap must be the
 * snapshot the writer was opened with (NULL for CREATE/CTAS). opts and
 * result may be NULL. On error the table is unchanged.
 */
/* md with the top-level identity column's delta.identity.highWaterMark = mark (in a); on a
 * protocol without identityColumns, the column's identity keys dropped (as Delta 4.1).
 * protocol NULL: supported. */
silt_status delta_metadata_with_high_water_mark(const dlog_metadata *md,
                                                const dlog_protocol *protocol,
                                                const char *column, int64_t mark, arena *a,
                                                dlog_metadata *out, silt_error *err);

silt_status delta_write_commit(delta_writer *w, io_store *store, const delta_snapshot *snap,
                               delta_write_mode mode, const delta_commit_options *opts,
                               delta_commit_result *result, silt_error *err);

#endif
