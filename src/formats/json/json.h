/*
 * json.h - the JSON reader: Spark's JSON data source semantics over io_store.
 *
 * JSON lines by default (one value per line; a line holding an array of
 * objects gives one row per element; blank lines are skipped), or with
 * multiLine one value per object (an object, or an array of objects).
 *
 * Without an explicit schema the schema is inferred over all records (or a
 * samplingRatio sample) as Spark's JsonInferSchema does: the union of all
 * fields, sorted by name at every level; integers are long (decimal(n,0)
 * beyond long, double beyond 38 digits), other numbers double, strings
 * stay strings, objects are structs, arrays hold the merged element type;
 * conflicts widen (long+double = double) and otherwise become string; a
 * field that is only ever null, or an empty array's element, is string;
 * empty structs are dropped. In PERMISSIVE mode a malformed record adds the
 * corrupt record column (columnNameOfCorruptRecord), which then holds the
 * raw text of malformed records.
 *
 * Values are converted to the schema's types as Spark's JacksonParser does:
 * a value that does not fit (a string for a long, 3000000000 for an int) is
 * null and makes the record malformed; a non-string value read as a string
 * is its JSON text. Batches and lifetimes work as in csv.h.
 */
#ifndef SILT_FORMATS_JSON_H
#define SILT_FORMATS_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "formats/columnar.h"
#include "formats/text/text_datetime.h"
#include "formats/text/text_source.h"
#include "io/store.h"
#include "util/thread.h"

typedef struct json_options {
    unsigned version;
    int multi_line;             /* one value per object instead of per line */
    double sampling_ratio;      /* 1.0 */
    text_mode mode;             /* PERMISSIVE */
    const char *corrupt_column; /* "_corrupt_record" */
    int primitives_as_string;   /* infer every primitive as string */
    int prefers_decimal;        /* infer floating numbers (and numeric strings) as decimal */
    int infer_timestamp;        /* infer strings that parse as timestamps as timestamp */
    int drop_field_if_all_null; /* drop fields (and array elements) only ever null */
    const char *timestamp_format; /* NULL = Spark's default (lenient) parser */
    const char *date_format;      /* NULL = Spark's default parser */
    const col_type *schema;     /* explicit STRUCT schema, or NULL to infer */
    int64_t batch_rows;         /* 4096 */
    size_t chunk_bytes;         /* bytes per parallel chunk of JSON lines, 2 MiB */
    size_t window_bytes;        /* bytes of JSON lines held at once, 8 MiB (0 = whole);
                                   a multiLine object is always read whole */
    size_t max_depth;           /* nesting limit, 1000 as in Jackson */
    size_t speculate_bytes;     /* while inferring, convert chunks up to this many bytes of
                                   text and keep their rows for the read (256 MiB; 0 = never) */
    tpool *pool;                /* NULL = parse on the calling thread */
    /* timeZone: the zone of timestamps written without one (NULL = UTC; SQL passes the session's) */
    const time_zone *zone;
} json_options;

#define JSON_DEFAULT_BATCH_ROWS 4096
#define JSON_DEFAULT_CHUNK_BYTES ((size_t)2 << 20)
#define JSON_DEFAULT_MAX_DEPTH 1000 /* Jackson's maxNestingDepth */
#define JSON_DEFAULT_SPECULATE_BYTES ((size_t)256 << 20)

void json_options_init(json_options *opts);
/*
 * Sets one option by its Spark name (case-insensitive): multiLine,
 * samplingRatio, mode, columnNameOfCorruptRecord, primitivesAsString,
 * prefersDecimal, inferTimestamp, dropFieldIfAllNull, timestampFormat, dateFormat, timeZone, encoding (UTF-8), lineSep (\n), and accepted no-ops
 * that match Spark's defaults. Strings are copied into arena a.
 */
silt_status json_options_set(json_options *opts, arena *a, const char *key, const char *value,
                             silt_error *err);

typedef struct json_scan json_scan;

silt_status json_scan_open(json_scan **out, io_store *store, const char *const *keys, size_t n,
                           const json_options *opts, silt_error *err);
const col_type *json_scan_schema(const json_scan *scan);
/* Next batch; at the end out->n_rows is 0. FAILFAST errors are SILT_PARSE
 * naming object, line and byte position. */
silt_status json_scan_next(json_scan *scan, arena *a, col_batch *out, silt_error *err);
void json_scan_free(json_scan *scan);

/*
 * Convenience for the SQL layer (`json.\`path\``, `USING json OPTIONS (...)`):
 * resolves path (file, folder or glob, text_resolve_path), applies n_kv
 * key/value option pairs (kv[2i] = name, kv[2i+1] = value) over the
 * defaults, and opens the scan with an
 * optional explicit schema and pool. Errors are those of the three steps.
 */
silt_status json_scan_open_path(json_scan **out, io_store *store, const char *path,
                               const char *const *kv, size_t n_kv, const col_type *schema,
                               tpool *pool, silt_error *err);

/* json_scan_open_path over keys already resolved (a partitioned folder: sql/source_files.c). */
silt_status json_scan_open_keys(json_scan **out, io_store *store, const char *const *keys,
                               size_t n_keys, const char *const *kv, size_t n_kv,
                               const col_type *schema, tpool *pool, silt_error *err);
/* The index (into the scan's keys) of the object the last batch json_scan_next gave comes from. */
size_t json_scan_batch_key(const json_scan *scan);

/* Infers the schema of JSON text in memory (tests, fuzzing), made in arena a. */
silt_status json_infer_text(const char *data, size_t len, const json_options *opts, arena *a,
                            const col_type **schema_out, silt_error *err);

#endif
