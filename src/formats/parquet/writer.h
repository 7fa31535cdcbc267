/*
 * writer.h - writes Parquet files from column batches.
 *
 * The files follow parquet.thrift, Encodings.md and LogicalTypes.md of
 * apache/parquet-format and map Delta types the way Spark writes them, so
 * that Spark, DuckDB, pyarrow and delta-rs read them:
 *
 *   boolean      BOOLEAN
 *   byte, short  INT32 + INT(8|16, signed) (converted INT_8 / INT_16)
 *   integer      INT32                 long  INT64
 *   float        FLOAT                 double DOUBLE
 *   decimal(p,s) INT32 (p <= 9), INT64 (p <= 18), else FIXED_LEN_BYTE_ARRAY
 *                of the fewest bytes that hold p digits; DECIMAL(p,s)
 *   string       BYTE_ARRAY + STRING (converted UTF8)
 *   binary       BYTE_ARRAY
 *   date         INT32 + DATE
 *   timestamp    INT64 + TIMESTAMP(MICROS, isAdjustedToUTC=true)
 *                (converted TIMESTAMP_MICROS), or INT96 when asked
 *   timestamp_ntz INT64 + TIMESTAMP(MICROS, isAdjustedToUTC=false)
 *   struct       group
 *   array        <name> (LIST) { repeated group list { <element> element } }
 *   map          <name> (MAP) { repeated group key_value { required key; value } }
 *
 * Data pages are v1 (what Spark writes by default), dictionary-encoded while
 * the chunk's dictionary stays small, PLAIN after that. Every column chunk
 * gets Statistics (min/max in the type's order, null count) and a page
 * index (OffsetIndex, and ColumnIndex when every page has bounds), so
 * readers can skip row groups and pages. A row group is
 * buffered in memory (compressed) and written when it reaches its target
 * size; the whole file goes through an io_writer and becomes visible only
 * at pqw_writer_close.
 *
 * A writer is used by one thread at a time.
 */
#ifndef SILT_FORMATS_PARQUET_WRITER_H
#define SILT_FORMATS_PARQUET_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "formats/columnar.h"
#include "formats/parquet/thrift_write.h"
#include "io/store.h"
#include "util/arena.h"
#include "util/error.h"

typedef struct pqw_writer pqw_writer;

typedef struct pqw_options {
    unsigned version;
    int codec;                    /* PQW_CODEC_*: SNAPPY (as Spark); any but LZO */
    int compression_level;        /* 0 = the codec's default */
    int64_t row_group_bytes;      /* target compressed bytes per row group */
    int64_t row_group_rows;       /* at most this many rows per row group; 0 = no limit */
    int64_t page_bytes;           /* target bytes of a data page before compression */
    int dictionary;               /* dictionary-encode columns (not booleans) */
    int64_t dictionary_max_bytes; /* fall back to PLAIN past this dictionary size */
    int64_t dictionary_max_entries; /* ... or past this many distinct values */
    int write_field_ids;          /* write col_field.field_id into the schema */
    const pqw_kv *kv;             /* key-value metadata for the footer (copied) */
    size_t n_kv;
    size_t stats_max_bytes;       /* string/binary min/max longer than this are truncated */
    const char *created_by;       /* NULL = "silt version <version>" */
    /*
     * Write timestamp (not timestamp_ntz) as legacy INT96 (Julian day and
     * nanoseconds of the day), as Spark does by default
     * (spark.sql.parquet.outputTimestampType=INT96), for old readers. INT96
     * has no defined sort order, so its chunks carry no min/max.
     */
    int timestamp_int96;
    /*
     * At most about this many rows per data page (cut at the next slice boundary), as
     * parquet-mr's parquet.page.row.count.limit (20,000 in the Parquet versions Spark 3.2+
     * writes with): readers then skip pages finely by the page index (a deletion-vector
     * DELETE of a few rows reads a few pages). 0 = no limit.
     */
    int64_t page_rows;
} pqw_options;

#define PQW_OPTIONS_INIT                                                                           \
    {1, PQW_CODEC_SNAPPY, 0, (int64_t)128 << 20, 0, (int64_t)1 << 20, 1, (int64_t)1 << 20,     \
     (int64_t)1 << 20, 0, NULL, 0, 64, NULL, 0, 20000}

/* A typed min or max of a leaf column, in the column's Delta type. */
typedef struct pqw_value {
    int64_t i;       /* boolean (0/1), byte..long, date (days), timestamps (micros) */
    double d;        /* float, double */
    col_int128 dec;  /* decimal: unscaled */
    const char *bytes; /* string, binary: owned by the stats' arena */
    int32_t len;
} pqw_value;

typedef struct pqw_leaf_stats {
    const char *const *path; /* logical names from the top-level column down */
    size_t path_len;
    const col_type *type;    /* the leaf's type */
    int in_repeated;         /* under an array or map: Delta keeps no stats for it */
    int64_t null_count;      /* values of this leaf that are null (at any level) */
    int has_min_max;         /* 0 when every value is null (or NaN) */
    pqw_value min, max;
    int min_exact, max_exact; /* 0 when truncated */
} pqw_leaf_stats;

typedef struct pqw_file_stats {
    int64_t num_records;
    int64_t file_bytes;
    int64_t n_row_groups;
    size_t n_leaves;
    pqw_leaf_stats *leaves;
    arena *arena; /* owns everything above */
} pqw_file_stats;

#define PQW_FILE_STATS_INIT {0, 0, 0, 0, NULL, NULL}

void pqw_file_stats_clear(pqw_file_stats *stats);

/*
 * Starts a file at `key` of `store` for rows of `schema` (a STRUCT; borrowed
 * until close or abort). opts may be NULL for the defaults. Errors:
 * SILT_INVALID for options or a schema that cannot be written, SILT_IO.
 */
/*
 * Spark's names of the Parquet codecs (spark.sql.parquet.compression.codec,
 * case-insensitive): the PQW_CODEC_* of name, or -1 when Spark has no such
 * name. "lzo" maps to PQW_CODEC_LZO, which this writer cannot write.
 */
int pqw_codec_by_spark_name(const char *name);
/* Spark's accepted names, as its error lists them. */
const char *pqw_codec_spark_names(void);
/* ".snappy", ".zstd", ... ("" for UNCOMPRESSED): Spark's file name infix. */
const char *pqw_codec_extension(int codec);

silt_status pqw_writer_open(pqw_writer **out, io_store *store, const char *key,
                            const col_type *schema, const pqw_options *opts, silt_error *err);
/*
 * Appends the rows of a batch whose schema matches the writer's. On error
 * the writer is unusable and must be aborted.
 */
silt_status pqw_writer_write_batch(pqw_writer *w, const col_batch *batch, silt_error *err);
/*
 * Writes the last row group and the footer, publishes the file and frees
 * the writer (also on error, when nothing is published). stats_out (may be
 * NULL) receives the file statistics; clear them with pqw_file_stats_clear.
 */
silt_status pqw_writer_close(pqw_writer *w, pqw_file_stats *stats_out, silt_error *err);
/* Drops the file (nothing becomes visible) and frees the writer. NULL is fine. */
void pqw_writer_abort(pqw_writer *w);

#endif
