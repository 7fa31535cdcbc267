/*
 * text_source.h - what the CSV and JSON readers share: parse modes, option
 * values given as strings, and turning a path into the objects to read.
 *
 * A path names one object, a folder (its objects, not recursing, skipping
 * names that begin with '_' or '.' as Spark's file index does) or a glob
 * ('*', '?' and '[...]' within one path segment). The keys come back sorted
 * in byte order, so reads are deterministic.
 */
#ifndef SILT_FORMATS_TEXT_SOURCE_H
#define SILT_FORMATS_TEXT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "formats/columnar.h"
#include "io/store.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/thread.h"

/* Spark's `mode` option: what a reader does with a malformed record. */
typedef enum text_mode {
    TEXT_MODE_PERMISSIVE = 0, /* malformed fields become null; raw text to the corrupt column */
    TEXT_MODE_DROPMALFORMED,  /* malformed records are skipped */
    TEXT_MODE_FAILFAST        /* the first malformed record fails the scan with SILT_PARSE */
} text_mode;

/* Parses "PERMISSIVE", "DROPMALFORMED", "FAILFAST" (any case); SILT_INVALID otherwise. */
silt_status text_parse_mode(const char *key, const char *value, text_mode *out, silt_error *err);
/* Parses "true"/"false" (any case); SILT_INVALID otherwise. */
silt_status text_parse_bool(const char *key, const char *value, int *out, silt_error *err);
/*
 * Parses a whole integer option that must lie in min..max; the range
 * message names the option by its canonical name (the key may differ in case).
 */
silt_status text_parse_int_in(const char *key, const char *value, const char *name, int64_t min,
                              int64_t max, int64_t *out, silt_error *err);
/* Parses a fraction in (0, 1]. */
silt_status text_parse_ratio(const char *key, const char *value, double *out, silt_error *err);

/* 1 when name matches a glob pattern ('*', '?', '[a-z]', '[!x]'); no '/' matching. */
int text_glob_match(const char *pattern, size_t pattern_len, const char *name, size_t name_len);

/*
 * Resolves a path into the keys to read (see above); the array and strings
 * are allocated in arena a. SILT_NOTFOUND when nothing matches.
 */
silt_status text_resolve_path(io_store *store, const char *path, arena *a, char ***keys_out,
                              size_t *n_out, silt_error *err);

/*
 * The files of a plain file source with Spark's partition discovery
 * (text_files.c says the rules): the keys to read, sorted, and the
 * partition columns their folders give.
 */
typedef struct text_files_options {
    const char *base_key;  /* basePath as a key of the store ("" its root); NULL = none */
    int recursive_lookup;  /* recursiveFileLookup: every file below, no partition columns */
    int infer_types;       /* spark.sql.sources.partitionColumnTypeInference.enabled */
    const char *glob_filter; /* pathGlobFilter on file names; NULL = none */
    const struct time_zone *zone; /* of timestamp values (the session's); NULL = UTC */
} text_files_options;

typedef struct text_files {
    char **keys;
    size_t n_keys;
    const col_type *parts; /* STRUCT of the partition columns; NULL = none */
    col_vec **values;      /* per partition column, n_keys rows: row k is keys[k]'s value */
} text_files;

/*
 * Lists path (a file, a folder, a glob) and discovers its partitions, all
 * in arena a. SILT_NOTFOUND when nothing matches; SILT_INVALID for
 * conflicting folder structures (Spark's messages).
 */
silt_status text_files_discover(io_store *store, const char *path, const text_files_options *o,
                                arena *a, text_files *out, silt_error *err);
/* A vector of n_rows copies of partition column col's value for keys[key_idx], in arena a. */
silt_status text_files_fill(col_vec **out, arena *a, const text_files *f, size_t col,
                            size_t key_idx, int64_t n_rows, silt_error *err);

/*
 * Objects being read and their chunks. A reader reads objects in key order
 * through windows of at most window_bytes (0 = whole objects), so a file
 * of any size is read in bounded memory: a window ends at the last record
 * boundary the split callback finds, and the bytes after it are carried to
 * the next window. Rounds of parallel work may span the end of one window
 * and several small objects after it; a window is freed once all its
 * chunks were taken and released.
 *
 * Reading ahead (text_reader_run): while the pool parses a round of chunks,
 * the caller loads the windows the next round needs. Only the caller ever
 * touches the reader; chunk tasks read their own window's bytes, which stay
 * put until text_reader_release after the round. A read ahead that fails
 * is kept and returned by the text_reader_take that needs that window,
 * exactly where a reader without read-ahead fails.
 *
 * So two windows are held at once, the one parsed and the one read ahead,
 * and a window is at most window_bytes / 2 (a record longer than that
 * makes its window longer). The windows of an object grow from
 * window_bytes / 8 (1, 2, 4, 4... MiB by default), so the first round
 * starts after a short read. Windows are small on purpose: a window and
 * its chunks' tapes or saved fields stay in the caches between the read,
 * the parse and the conversion (8 MiB windows and 2 MiB chunks cut the
 * CPU of the trips ingests by 10-20% against 64 MiB and 4 MiB,
 * docs/benchmarks.md). Window sizes depend only on the object's
 * bytes, so a second pass over it (after a rewind) gets the same windows
 * and chunks.
 */
typedef struct text_object {
    size_t key_idx;     /* index into the reader's keys */
    const char *key;
    buf raw;            /* the window's bytes */
    const char *data;   /* raw.data after a byte order mark */
    size_t len;
    int64_t offset;     /* of data[0] in the object */
    int64_t line_base;  /* line breaks before data[0] in the object */
    int first_window;   /* data starts the object (a header is here) */
    int last_window;    /* data ends the object */
    char eol;           /* line break of the object (set by the split callback) */
    size_t *bounds;     /* chunk i is [bounds[i], bounds[i + 1]) */
    size_t n_chunks;
    size_t next_chunk;
} text_object;

/*
 * Fills obj->bounds/n_chunks (mem_alloc'd) for a freshly read window. When
 * obj->last_window is 0 the chunks must end at a complete record
 * (bounds[n_chunks] < len is fine; 0 means "no complete record yet", and
 * the reader then reads a bigger window).
 */
typedef silt_status (*text_split_fn)(text_object *obj, void *payload, silt_error *err);

typedef struct text_chunk {
    text_object *obj;
    size_t idx; /* chunk index within the window */
    size_t start, end;
} text_chunk;

typedef struct text_reader {
    io_store *store;
    const char *const *keys;
    size_t n_keys;
    size_t next_key;
    const char *what; /* "CSV" or "JSON", for messages */
    text_split_fn split;
    void *split_payload;
    size_t window_bytes;
    text_object **objs; /* loaded windows, in order */
    size_t n_objs, cap_objs;
    int dropped;        /* a window was freed since the start (or rewind) */
    size_t taken_bytes; /* bytes of the chunks the last take handed out */
    /* the object being read window by window */
    io_file *file;
    int64_t file_pos;
    int64_t line_base;
    size_t next_window; /* bytes of the object's next window (they grow) */
    buf carry;
    buf spare[2]; /* empty buffers of freed windows, reused for the next ones */
    /* a failed read ahead, returned by the take that needs its window */
    silt_status ahead_rc;
    silt_error ahead_err;
} text_reader;

#define TEXT_DEFAULT_WINDOW_BYTES ((size_t)8 << 20)

void text_reader_init(text_reader *r, io_store *store, const char *const *keys, size_t n_keys,
                      const char *what, text_split_fn split, void *payload, size_t window_bytes);
/* Frees every loaded window and closes the object being read. */
void text_reader_clear(text_reader *r);
/*
 * A reader on the heap (text_reader_init's arguments), for scans whose
 * chunk tasks copy the scan's struct while the caller reads ahead: the
 * copy then holds a pointer, not the fields the caller is changing.
 * text_reader_free clears and frees it (NULL is fine).
 */
silt_status text_reader_new(text_reader **out, io_store *store, const char *const *keys,
                            size_t n_keys, const char *what, text_split_fn split, void *payload,
                            size_t window_bytes, silt_error *err);
void text_reader_free(text_reader *r);
/*
 * Starts again from the first key. When no window was freed yet (the first
 * windows were only looked at, as CSV's header), every window stays loaded
 * and is handed out again; otherwise only a first object loaded whole is
 * kept.
 */
void text_reader_rewind(text_reader *r);
/*
 * Takes up to max chunks in order into out (*n_out = 0 at the end). It
 * reads a window only while it has no chunk yet: a round starts with what
 * is loaded rather than wait for another read (text_reader_run reads the
 * next windows while the round runs). Store errors get the object's name
 * as context.
 */
silt_status text_reader_take(text_reader *r, size_t max, text_chunk *out, size_t *n_out,
                             silt_error *err);
/*
 * Loads windows until the chunks not yet taken number at least want, the
 * keys end, or twice the bytes of the last take (at least an eighth of
 * window_bytes) were read. A failure is kept for the take that needs the
 * window (see above).
 */
void text_reader_read_ahead(text_reader *r, size_t want);
/*
 * Runs a round of n_tasks chunk tasks on the pool (as tpool_run) and
 * meanwhile reads ahead for a next round of want chunks; then works on the
 * tasks left and waits for all. The tasks must not touch r.
 */
silt_status text_reader_run(text_reader *r, tpool *pool, size_t n_tasks, tpool_task_fn fn,
                            void *payload, size_t want, silt_error *err);
/* Frees the windows whose chunks were all taken (call after a round). */
void text_reader_release(text_reader *r);

/*
 * A whole pass over the reader in rounds of at most max_chunks chunks,
 * with two rounds in flight: while round k's last tasks run, the pool
 * already works on round k + 1, and the caller reads ahead for round k + 2
 * between them. So no thread waits at the end of a round (a barrier per
 * round cost up to a chunk's time of one thread each).
 *
 * begin sets up a round of chunks (the array is only valid during the
 * call) as *round_out, whose tasks task runs (payload = the round). end is
 * called once per begun round, in order: with discard 0 it checks and
 * keeps the round's results (its error fails the pass), with discard 1
 * (an earlier round failed) it only frees them; it frees the round either
 * way. Errors come in input order: a round's error before a later
 * round's, before a failed read of the windows after them.
 */
typedef struct text_round_ops {
    silt_status (*begin)(void *payload, const text_chunk *chunks, size_t n, void **round_out,
                         silt_error *err);
    tpool_task_fn task;
    silt_status (*end)(void *payload, void *round, int discard, silt_error *err);
} text_round_ops;

silt_status text_reader_pass(text_reader *r, tpool *pool, size_t max_chunks,
                             const text_round_ops *ops, void *payload, silt_error *err);
/* Loads an object from memory as one window (in-memory inference, tests). */
silt_status text_reader_add_text(text_reader *r, const char *key, const char *data, size_t len,
                                 silt_error *err);
/* 1-based line in its object of a byte offset of a window (for messages). */
int64_t text_object_line(const text_object *obj, size_t offset);
/* Offset just past the last line break in data[0, len), 0 when there is none. */
size_t text_last_line_end(const char *data, size_t len);

/*
 * UTF-8 checks for string values. Spark decodes text as UTF-8 and puts
 * U+FFFD where the bytes are not UTF-8; silt does the same, so every string
 * it hands on (to Parquet, to Arrow) is valid UTF-8.
 * text_utf8_valid returns 1 when the bytes are valid UTF-8 (ASCII is
 * checked eight bytes at a time). text_utf8_repair appends the bytes with
 * each maximal invalid subsequence replaced by U+FFFD.
 */
int text_utf8_valid(const char *s, size_t len);
silt_status text_utf8_repair(const char *s, size_t len, buf *out, silt_error *err);

/*
 * Deterministic per-record sampling for the samplingRatio option: 1 when
 * record number `index` of object `key_hash` is in the sample.
 */
int text_sample_keep(uint64_t key_hash, uint64_t index, double ratio);

/*
 * Text of a java.math.BigDecimal ("-12.5e3"): its digits, sign, scale
 * (fraction digits minus exponent) and precision (significant digits of
 * the unscaled value, at least 1). Pointers are into the text.
 */
typedef struct text_big_decimal {
    const char *digits[2]; /* integer part and fraction part */
    size_t n_digits[2];
    int negative;
    int64_t scale;
    int32_t precision;
} text_big_decimal;

/* Returns 0 when the text is not a BigDecimal. */
int text_big_decimal_parse(const char *s, size_t len, text_big_decimal *out);
/*
 * Decimal text as an unscaled value at `scale`, rounding half up as
 * Spark's Decimal.set does; 0 when it is not a number or needs more than
 * `precision` digits.
 */
int text_parse_decimal(const char *s, size_t len, int32_t precision, int32_t scale,
                       col_int128 *out);

#endif
