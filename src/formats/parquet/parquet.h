/*
 * parquet.h - the Parquet reader of silt (the interface other modules use).
 *
 * A pq_file is an open Parquet file whose footer has been read and checked:
 * its metadata, its schema as a parquet tree and as a Delta STRUCT type.
 * A pq_reader scans a pq_file: a projection of columns, an optional
 * row-group filter on column statistics, and batches of rows as col_batch
 * in the Arrow layout (formats/columnar.h).
 *
 * Lifetimes: pq_file_open returns a heap object (pq_file_free); types and
 * metadata it hands out are borrowed from it. A pq_reader borrows its file,
 * which must outlive it. A pq_file is read-only once open: several readers
 * (in several threads) may share it; one reader is used by one thread. Batches and their vectors live in the arena passed
 * to pq_reader_next and stay valid until that arena is reset. Peak memory of
 * a reader is about a window (PQ_STREAM_WINDOW, 2 MiB) of each projected
 * flat column's compressed chunk plus the pages being decoded for the next
 * batch: flat columns (no arrays or maps above them) are decoded page by
 * page as batches need them; columns inside arrays or maps are decoded a
 * whole row group at a time.
 *
 * Type mapping (Parquet physical + logical/converted -> Delta):
 *   BOOLEAN -> boolean; INT32 -> integer, INT(8/16) -> byte/short,
 *   UINT(8/16/32) -> short/integer/long, DATE -> date, TIME -> long
 *   (microseconds since midnight); INT64 -> long, UINT64 -> decimal(20,0),
 *   TIMESTAMP(millis/micros/nanos) -> timestamp (isAdjustedToUTC) or
 *   timestamp_ntz, all in microseconds (nanos are floored); INT96 ->
 *   timestamp (legacy Spark/Impala); FLOAT/DOUBLE -> float/double; FLOAT16
 *   -> float; DECIMAL on INT32/INT64/FIXED/BYTE_ARRAY -> decimal(p,s) (p <=
 *   38); BYTE_ARRAY with STRING/UTF8/ENUM/JSON -> string, other BYTE_ARRAY
 *   and FIXED_LEN_BYTE_ARRAY (including UUID and INTERVAL) -> binary. UUID is
 *   read as its 16 raw bytes, as Spark's Parquet reader reads a fixed-length
 *   array without DECIMAL annotation; a string would invent a formatting.
 *   Logical type UNKNOWN (always null) -> the null type. Groups -> struct;
 *   LIST (3-level and the legacy 2-level layouts of LogicalTypes.md's
 *   backward-compatibility rules) and unannotated repeated fields -> array;
 *   MAP and MAP_KEY_VALUE -> map (a map without a value field -> array of
 *   its keys, as pyarrow reads it). Parquet field ids are kept in field_id.
 */
#ifndef SILT_FORMATS_PARQUET_PARQUET_H
#define SILT_FORMATS_PARQUET_PARQUET_H

#include <stddef.h>
#include <stdint.h>

#include "formats/columnar.h"
#include "formats/parquet/metadata.h"
#include "io/store.h"
#include "util/arena.h"
#include "util/error.h"

typedef struct pq_file pq_file;
typedef struct pq_reader pq_reader;

/*
 * Opens key in store and reads its footer with range reads: checks the
 * magic at both ends and the footer length against the file size, decodes
 * FileMetaData and maps the schema. Errors: NOTFOUND, IO, CORRUPT (with the
 * file name in the context), UNSUPPORTED ("encrypted Parquet is not
 * supported" for PARE files and encrypted footers/columns).
 */
silt_status pq_file_open(pq_file **out, io_store *store, const char *key, silt_error *err);
void pq_file_free(pq_file *file);

const pq_file_meta *pq_file_metadata(const pq_file *file);
/* The file's schema as a Delta STRUCT type. */
const col_type *pq_file_schema(const pq_file *file);
/* Rows of the file: the sum over its row groups (some writers leave the footer's total at 0). */
int64_t pq_file_num_rows(const pq_file *file);
int64_t pq_file_size(const pq_file *file);
const char *pq_file_key(const pq_file *file);

/* Leaf columns of the file, in column-chunk order. */
size_t pq_file_n_leaves(const pq_file *file);
/*
 * Dotted path of a leaf through the names of the value tree ("s.x",
 * "l.element", "m.key"; the repeated groups of lists and maps are not
 * named), its schema element and its maximum levels.
 */
const char *pq_file_leaf_path(const pq_file *file, size_t leaf_idx);
const pq_schema_element *pq_file_leaf_element(const pq_file *file, size_t leaf_idx);
int pq_file_leaf_max_def(const pq_file *file, size_t leaf_idx);
int pq_file_leaf_max_rep(const pq_file *file, size_t leaf_idx);
/* The Delta type a leaf's values take (a primitive type). */
const col_type *pq_file_leaf_type(const pq_file *file, size_t leaf_idx);

/*
 * 1 when a row range of a row group (pq_read_options.first_row, n_rows)
 * costs about its share of the row group for these columns (the
 * pq_read_options.columns form; NULL = every column): every leaf under them
 * is flat (no arrays or maps above it), so its rows are its levels.
 */
int pq_file_splittable(const pq_file *file, const char *const *columns, size_t n_columns);

/*
 * First rows of the data pages of leaf leaf_idx's chunk in row group rg_idx
 * (at most max, in order, the first is 0), from the chunk's offset index or
 * its page headers (small reads, no page is decompressed); *n_out = 0 for a
 * leaf under an array or map. For cutting row ranges where pages begin, so
 * that no page is decoded by two ranges. CORRUPT, IO, NOMEM.
 */
silt_status pq_file_page_starts(pq_file *file, size_t rg_idx, size_t leaf_idx, int64_t *out,
                                size_t max, size_t *n_out, silt_error *err);

/* Appends the Parquet schema as text (parquet-mr's MessageType layout) to out. */
silt_status pq_file_format_schema(const pq_file *file, buf *out, silt_error *err);

/* A statistic value decoded to the leaf's Delta type. */
typedef struct pq_stat_value {
    int64_t i;         /* boolean, byte..long, date, timestamp[_ntz] */
    double d;          /* float, double */
    col_int128 dec;    /* decimal (unscaled) */
    const char *bytes; /* string, binary (borrowed from the footer) */
    size_t len;
} pq_stat_value;

/* Statistics of one projected leaf column in one row group. */
typedef struct pq_leaf_stats {
    const char *path;     /* dotted leaf path */
    const col_type *type; /* Delta type of the values */
    int has_min_max;      /* min and max are known and exact enough for pruning */
    pq_stat_value min, max;
    int has_null_count;
    int64_t null_count;
    int64_t num_values; /* values incl. nulls, from the column chunk */
} pq_leaf_stats;

/* Statistics of column chunk cc (of leaf leaf_idx), decoded to the leaf's Delta type. */
void pq_file_chunk_stats(const pq_file *file, const pq_column_chunk *cc, size_t leaf_idx,
                         pq_leaf_stats *out);

/*
 * Row-group filter: gets the statistics of every projected leaf of a row
 * group and returns 1 to read it, 0 to skip it.
 */
typedef int (*pq_row_group_filter)(const pq_leaf_stats *stats, size_t n_stats, int64_t num_rows,
                                   void *payload);

/*
 * Page filter (used with the page index, PageIndex.md): gets the statistics
 * of one data page of one projected leaf, from the chunk's ColumnIndex
 * (num_values = the page's rows, first_row = its first row in the row
 * group), and returns 0 when no row of the page can match, else 1. A row is
 * read when the pages holding it in every leaf the filter is asked about
 * may match: the filter is a conjunction over columns, so it returns 1 for
 * a leaf it does not constrain. Pages are skipped only when every projected
 * column is flat (no arrays or maps) and has an OffsetIndex; otherwise, or
 * without a ColumnIndex, the reader reads what it reads without the filter.
 */
typedef int (*pq_page_filter)(const pq_leaf_stats *stats, int64_t first_row, void *payload);

typedef struct pq_read_options {
    unsigned version;
    /*
     * Columns to read: top-level names ("a") or dotted paths of fields
     * inside structs ("s.x"); NULL reads every column. A name that does not
     * exist is SILT_NOTFOUND. Top-level columns come out in the order
     * they are first named; fields kept inside a struct in file order.
     */
    const char *const *columns;
    size_t n_columns;
    int64_t batch_rows; /* 0 = 8192 */
    pq_row_group_filter filter;
    void *filter_payload;
    /*
     * Most bytes the projected columns of one row group may hold at once
     * (compressed chunks of flat columns, decoded levels, values and
     * dictionaries); a row group needing more fails with SILT_NOMEM.
     * 0 = PQ_DEFAULT_MEMORY_LIMIT.
     */
    int64_t memory_limit;
    /*
     * Row groups to read: n_row_groups from first_row_group (0 = all up to
     * the end), so that several readers over one pq_file can split a file
     * between threads. A range past the end reads nothing.
     */
    size_t first_row_group;
    size_t n_row_groups;
    /* Page-level filter (see pq_page_filter), applied after the row-group filter. */
    pq_page_filter page_filter;
    void *page_filter_payload;
    /*
     * Rows [first_row, first_row + n_rows) of row group first_row_group
     * only (n_rows 0 = the whole row groups above), so that threads can
     * split one row group. Flat columns skip the pages before the range by
     * their headers (or the offset index) without decompressing them, and
     * stop after it; when a projected column is nested (arrays, maps) the
     * reader decodes the row group from its start and drops the rows before
     * the range, correct but no cheaper (pq_file_splittable tells which).
     * Rows past the row group's end are not there to read.
     */
    int64_t first_row;
    int64_t n_rows;
} pq_read_options;

/*
 * A unit of a scan of one file, with pq_read_options' meaning: n_row_groups
 * from first_row_group (0 = to the end), or rows [first_row, first_row +
 * n_rows) of row group first_row_group when n_rows > 0. The scans of Delta
 * and of plain Parquet files split their files into these.
 */
typedef struct pq_span {
    size_t first_row_group, n_row_groups;
    int64_t first_row, n_rows;
} pq_span;

#define PQ_DEFAULT_MEMORY_LIMIT ((int64_t)4 << 30)
#define PQ_READ_OPTIONS_INIT {1, NULL, 0, 0, NULL, NULL, 0, 0, 0, NULL, NULL, 0, 0}

/* Opens a reader over file (borrowed). opts may be NULL. */
silt_status pq_reader_open(pq_reader **out, pq_file *file, const pq_read_options *opts,
                           silt_error *err);
/* The projected schema (STRUCT) of the batches. */
const col_type *pq_reader_schema(const pq_reader *reader);
/*
 * Returns the next batch in *out (allocated in a), or *out = NULL at the
 * end. Errors: CORRUPT, UNSUPPORTED, IO, NOMEM, each with the file, row
 * group and column in the context.
 */
silt_status pq_reader_next(pq_reader *reader, arena *a, col_batch **out, silt_error *err);
/* Number of row groups skipped by the filters so far, and of row groups read. */
size_t pq_reader_skipped_row_groups(const pq_reader *reader);
size_t pq_reader_row_groups_read(const pq_reader *reader);
/*
 * The row positions in the file (0 = its first row) of the rows of the
 * batch pq_reader_next returned last, into out (one per row of that
 * batch): row groups, ranges and pages left unread are not counted, so a
 * deletion vector or a row index column can be matched to the rows read.
 */
void pq_reader_row_positions(const pq_reader *reader, int64_t *out);
/* Data pages decoded so far, and data pages the page filter let the reader skip. */
size_t pq_reader_pages_read(const pq_reader *reader);
size_t pq_reader_skipped_pages(const pq_reader *reader);
/*
 * Bytes the reader holds now for its leaves (compressed windows, decoded
 * levels, values and dictionaries not yet handed out), for tests and
 * accounting: bounded by the projected columns' pages, not by the size of
 * a row group (PQ_STREAM_WINDOW per flat column).
 */
int64_t pq_reader_held_bytes(const pq_reader *reader);
void pq_reader_free(pq_reader *reader);

#endif
