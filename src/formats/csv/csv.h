/*
 * csv.h - the CSV reader: Spark's CSV data source semantics over io_store.
 *
 * A scan reads a list of objects (text_resolve_path turns a path, folder or
 * glob into one) and returns col_batches of up to `batch_rows` rows. Without
 * an explicit schema the columns come from the header (deduplicated as
 * Spark's makeSafeHeader does, empty names become "_c<index>") or are named
 * _c0, _c1, ...; with inferSchema their types are inferred over all rows (or
 * a samplingRatio sample) with Spark's rules (csv_infer.c), otherwise every
 * column is a string.
 *
 * Objects are read through windows of at most window_bytes that end at a
 * record boundary, so memory stays bounded for files of any size. Parsing
 * runs in parallel on the thread pool given in the options: each window is
 * split at record boundaries (quote-aware when multiLine is on) into chunks
 * that are tokenized and converted straight into column buffers, one batch
 * arena per batch; a round of chunks may span several small files. Strings
 * are made valid UTF-8 (U+FFFD for invalid bytes), as Spark decodes text.
 *
 * Lifetimes: a batch returned by csv_scan_next lives until the arena passed
 * to that call is reset or freed (its memory is a separate arena whose
 * freeing is registered as a cleanup of that arena). The scan keeps the
 * options' strings and schema it needs; it is used by one thread at a time.
 */
#ifndef SILT_FORMATS_CSV_H
#define SILT_FORMATS_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "formats/columnar.h"
#include "formats/text/text_datetime.h"
#include "formats/text/text_source.h"
#include "io/store.h"
#include "util/thread.h"

typedef struct csv_options {
    unsigned version;
    int header;                /* first record of each object holds the names */
    char sep;                  /* field separator, ',' */
    char quote;                /* '"'; '\0' turns quoting off */
    char escape;               /* escapes the quote inside quoted fields, '\\' */
    char comment;              /* lines starting with it are skipped; '\0' = none */
    int multi_line;            /* quoted fields may hold line breaks */
    int infer_schema;          /* infer types; otherwise all strings */
    double sampling_ratio;     /* fraction of records used for inference, 1.0 */
    text_mode mode;            /* PERMISSIVE */
    const char *null_value;    /* text read as null, "" */
    const char *empty_value;   /* value of a quoted empty field, "" */
    const char *nan_value;     /* "NaN" */
    const char *positive_inf;  /* "Inf" */
    const char *negative_inf;  /* "-Inf" */
    const char *corrupt_column;/* columnNameOfCorruptRecord, "_corrupt_record" */
    const char *timestamp_format; /* NULL = Spark's default (lenient) parser */
    const char *date_format;      /* NULL = Spark's default parser (yyyy-MM-dd) */
    /* Compiled forms of the two formats; csv_options_set and csv_scan_open fill them. */
    const text_dt_pattern *timestamp_pattern;
    const text_dt_pattern *date_pattern;
    const col_type *schema;    /* explicit STRUCT schema, or NULL to infer */
    int64_t batch_rows;        /* rows per batch, 4096 (fewer for very wide files) */
    int64_t max_columns;       /* Spark's maxColumns, 20480 */
    size_t chunk_bytes;        /* bytes per parallel chunk, 2 MiB */
    size_t window_bytes;       /* bytes of an object held at once, 8 MiB (0 = whole) */
    tpool *pool;               /* NULL = parse on the calling thread */
    /* While inferring, convert chunks up to this many bytes of text, so that a file
     * whose types hold throughout is tokenized once (csv_scan.c, "one pass"); 0 = off. */
    size_t speculate_bytes;
    /* timeZone: the zone of timestamps written without one (NULL = UTC; SQL passes the session's) */
    const time_zone *zone;
    /*
     * The columns the caller reads (names, case-insensitive; a superset is
     * fine), or NULL for all: Spark's CSV column pruning. Unless the
     * corrupt-record column is filled, the others are neither inferred
     * (they are typed string) nor converted (their vectors are all null),
     * and, as in Spark, a row is malformed (DROPMALFORMED drops it,
     * FAILFAST fails) only for a bad value in a column read, never for its
     * number of fields; when every column is read the whole row counts.
     */
    const char *const *read_columns;
    size_t n_read_columns;
} csv_options;

#define CSV_DEFAULT_BATCH_ROWS 4096
#define CSV_DEFAULT_CHUNK_BYTES ((size_t)2 << 20)
#define CSV_DEFAULT_SPECULATE_BYTES ((size_t)256 << 20)
#define CSV_DEFAULT_MAX_COLUMNS 20480
/* Cells per batch: batches of wide files get fewer rows so memory stays bounded. */
#define CSV_MAX_BATCH_CELLS ((int64_t)1 << 22)

void csv_options_init(csv_options *opts);

/*
 * Sets one option from its Spark name and string value, as `OPTIONS (header
 * 'true', inferSchema 'true')` gives them. Names are case-insensitive;
 * strings are copied into arena a. SILT_INVALID names the option and value.
 * Recognised: header, sep, delimiter, quote, escape, comment, multiLine,
 * inferSchema, samplingRatio, mode, nullValue, emptyValue, nanValue,
 * positiveInf, negativeInf, columnNameOfCorruptRecord, timestampFormat,
 * dateFormat, timeZone (a Spark zone id; SQL passes the session time zone), maxColumns, encoding/charset (UTF-8 only), lineSep (\n, \r\n, \r only).
 */
silt_status csv_options_set(csv_options *opts, arena *a, const char *key, const char *value,
                            silt_error *err);

typedef struct csv_scan csv_scan;

/*
 * Opens a scan of n objects; reads and infers the schema when needed (so
 * it may fail with SILT_NOTFOUND/IO from the store, SILT_PARSE in FAILFAST
 * mode). The keys are copied.
 */
silt_status csv_scan_open(csv_scan **out, io_store *store, const char *const *keys, size_t n,
                          const csv_options *opts, silt_error *err);
/* The STRUCT schema of the batches; borrowed from the scan. */
const col_type *csv_scan_schema(const csv_scan *scan);
/*
 * Next batch into *out (see lifetimes above). At the end out->n_rows is 0
 * and out->cols NULL. FAILFAST errors are SILT_PARSE naming object, line and
 * field.
 */
silt_status csv_scan_next(csv_scan *scan, arena *a, col_batch *out, silt_error *err);
void csv_scan_free(csv_scan *scan);

/*
 * Convenience for the SQL layer (`csv.\`path\``, `USING csv OPTIONS (...)`):
 * resolves path (file, folder or glob, text_resolve_path), applies n_kv
 * key/value option pairs (kv[2i] = name, kv[2i+1] = value) over the
 * defaults (header and inferSchema start false, as in Spark), and opens the scan with an
 * optional explicit schema, the columns read (csv_options.read_columns) and pool. Errors are those of the three steps.
 */
silt_status csv_scan_open_path(csv_scan **out, io_store *store, const char *path,
                               const char *const *kv, size_t n_kv, const col_type *schema,
                               const char *const *read_columns, size_t n_read_columns,
                               tpool *pool, silt_error *err);

/* csv_scan_open_path over keys already resolved (a partitioned folder: sql/source_files.c). */
silt_status csv_scan_open_keys(csv_scan **out, io_store *store, const char *const *keys,
                              size_t n_keys, const char *const *kv, size_t n_kv,
                              const col_type *schema, const char *const *read_columns,
                              size_t n_read_columns, tpool *pool, silt_error *err);
/* The index (into the scan's keys) of the object the last batch csv_scan_next gave comes from. */
size_t csv_scan_batch_key(const csv_scan *scan);

/*
 * Infers column names and types of a CSV text in memory (used by the scan
 * and the fuzz target); the schema is made in arena a.
 */
silt_status csv_infer_text(const char *data, size_t len, const csv_options *opts, arena *a,
                           const col_type **schema_out, silt_error *err);

#endif
