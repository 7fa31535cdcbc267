/*
 * write_int.h - private to the delta_writer modules (write*.c).
 */
#ifndef SILT_DELTA_WRITE_INT_H
#define SILT_DELTA_WRITE_INT_H

#include "delta/protocol.h"
#include "delta/write.h"
#include "formats/parquet/writer.h"
#include "util/hashmap.h"
#include "util/thread.h"

/* ---- the writer's state (write.c: rows to partitions; write_encode.c: files) ------------- */

typedef struct part_file part_file;

/* A key of typed partition values (find_part) and its partition. */
typedef struct part_slot {
    uint64_t hash;
    const char *key;
    size_t key_len;
    part_file *pf; /* NULL = empty slot */
} part_slot;

/*
 * A data file: its Parquet writer while open, its statistics once closed.
 * Opened and named on the caller's thread; rows are encoded into it and it
 * is closed by one encode task at a time (write_encode.c).
 */
typedef struct dwrite_file {
    part_file *pf;
    const char *key;
    pqw_writer *pw;     /* NULL once handed to pqw_writer_close */
    pqw_file_stats st;  /* filled by the close */
    int closed;         /* the close succeeded: the file exists and st holds its stats */
} dwrite_file;

/* Rows waiting to be encoded into a file, kept in arrival order per partition. */
typedef struct dwrite_item {
    struct dwrite_item *next;
    dwrite_file *file;
    col_batch rows;  /* n_rows 0 for a close alone */
    int close_after; /* close the file after these rows */
} dwrite_item;

/* A recent value of a single string partition column and its partition (find_part). */
typedef struct part_memo {
    const char *bytes; /* the slot's copy of the value */
    int32_t len;
    part_file *pf;     /* NULL = empty */
} part_memo;

#define DWRITE_MEMO_SIZE 256

/* A flush encoding in the background while the caller queues the next rows. */
typedef struct dwrite_flight {
    tpool_async *job;      /* NULL when nothing is in flight */
    dwrite_item **heads;   /* per task: one partition's items, in order */
    size_t n_heads, cap_heads;
    dwrite_file **closing; /* files this flight closes, in the order their closes were queued */
    size_t n_closing, cap_closing;
    arena *a;              /* the flight's items and rows (the other half of batch_a) */
} dwrite_flight;

struct part_file {
    const char *dir;    /* "a=1/b=x/" or "" */
    dlog_map values;    /* physical partition column -> text or NULL */
    dwrite_file *file;  /* the open file rows go to; NULL until the first rows and after a roll */
    int64_t mem_bytes;  /* in-memory size of the rows given to the open file */
    uint64_t batch_gen; /* the batch in which `group` was given */
    int64_t group;      /* its group in that batch */
    dwrite_item *head, *tail; /* queued work, in order */
    int queued;         /* in w->queued */
};

struct delta_writer {
    arena *a;        /* lives with the writer */
    arena *batch_a;  /* rows waiting to be encoded; reset after each flush */
    io_store *store;
    const col_type *in_schema;
    const col_type *table_schema; /* logical */
    dlog_metadata md;
    int md_changed;
    dproto_mapping_mode mode;
    int *src_cols;       /* per table column: batch column or -1 */
    delta_batch_check_fn check; /* delta_write_options.check */
    void *check_payload;
    size_t n_part;
    size_t *part_cols;   /* table column of each partition column, in partition order */
    const char **part_phys;
    size_t n_data;
    size_t *data_cols;   /* table columns written into files */
    const col_type *file_schema; /* physical, data columns only */
    int64_t target;
    int codec; /* PQW_CODEC_* of the data files (delta_write_options.compression) */
    int n_indexed;
    int max_open, n_open;
    hashmap parts; /* dir -> part_file */
    part_slot *slots; /* typed partition values -> part_file (find_part) */
    size_t n_slots, cap_slots;
    size_t *part_width; /* per partition column: value width, 0 for strings */
    part_memo *memo;    /* DWRITE_MEMO_SIZE entries, with one string partition column */
    buf key;
    buf split; /* per-row scratch of write_partitioned, reused by every batch */
    dlog_add *adds;
    size_t n_adds, cap_adds;
    int64_t n_rows, n_bytes;
    int file_seq;
    uint64_t batch_gen;
    buf scratch;
    size_t n_partition_by; /* the partitioning the caller asked for, for history */
    const char **partition_by;
    int cdc; /* change data files: _change_data/cdc-*.parquet, no stats (dwrite_open_cdc) */

    /* Encoding (write_encode.c). */
    tpool *pool;            /* NULL: every batch is encoded before delta_write_batch returns */
    part_file **queued;     /* partitions with queued work, in order of their first item */
    size_t n_queued, cap_queued;
    dwrite_file **files;    /* every file started, to abort the unfinished ones */
    size_t n_files, cap_files;
    dwrite_file **closing;  /* files to close in this flush, in the order they were decided */
    size_t n_closing, cap_closing;
    int64_t queued_rows, queued_bytes;
    int borrowed;           /* a queued item points into the caller's batch */
    dwrite_flight flight;
    int failed;             /* an encode task failed: the writer is unusable */
};

/* write_encode.c */

/* Starts a new data file for pf (named and opened here, on the caller's thread). */
silt_status dwrite_start_file(delta_writer *w, part_file *pf, silt_error *err);
/* Queues rows (a batch of the file schema, in w->batch_a or borrowed) for pf's open file;
 * closes it after them when mem_bytes passes the target. */
silt_status dwrite_queue_rows(delta_writer *w, part_file *pf, const col_batch *rows,
                              int64_t mem_bytes, silt_error *err);
/* Queues the close of pf's open file (none open: nothing). */
silt_status dwrite_queue_close(delta_writer *w, part_file *pf, silt_error *err);
/* Whether the queued work should be encoded now (memory bound, borrowed rows, no pool). */
int dwrite_should_flush(const delta_writer *w);
/*
 * Hands every queued item to the encoders (partitions in parallel on w->pool) and records
 * the closed files' add actions in the order their closes were queued. With wait = 0 the
 * encoding runs in the background until the next flush (one flight at a time), unless
 * queued rows borrow the caller's batch. On error the writer is unusable (w->failed) and
 * the error of the first failing task is in err, reported by the call that waits for it.
 */
silt_status dwrite_flush(delta_writer *w, int wait, silt_error *err);
/* Waits for the flight (its errors ignored) and aborts every file not closed. */
void dwrite_abort_files(delta_writer *w);

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
/* [DELTA_NOT_NULL_CONSTRAINT_VIOLATED] when a NOT NULL field of table (nested ones inside a
 * present struct) is null in cols (the batch in table order). */
silt_status dwrite_check_not_null(const col_type *table, col_vec *const *cols, int64_t n_rows,
                                  silt_error *err);
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

/* SILT_INVALID "[DELTA_DUPLICATE_COLUMNS_FOUND]" when two top-level columns of
 * the data share a name (case-insensitively), before any file is written. */
silt_status dwrite_check_duplicates(const col_type *data, silt_error *err);

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
