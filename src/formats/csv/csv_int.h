/*
 * csv_int.h - internals of the CSV reader shared by its files: the record
 * tokenizer, Spark's per-field type inference and value conversion.
 */
#ifndef SILT_FORMATS_CSV_INT_H
#define SILT_FORMATS_CSV_INT_H

#include "formats/csv/csv.h"

/* One field of a record. ptr points into the input or into the scratch. */
typedef struct csv_field {
    const char *ptr;
    size_t len;
    size_t scratch_off; /* valid while in_scratch is set, until ptr is resolved */
    uint8_t quoted;     /* the field was quoted (an empty quoted field is not null) */
    uint8_t in_scratch;
    uint8_t ascii;      /* every byte is below 0x80, so the text is valid UTF-8 (0: unknown) */
} csv_field;

/*
 * Tokenizer over one chunk [data, data + len). Records follow Spark's
 * univocity settings: a quote opens a quoted field only at its start; the
 * escape character before a quote inside quotes yields the quote; a closing
 * quote followed by anything but the separator or the line end makes the
 * whole field raw text up to the next separator (STOP_AT_DELIMITER); an
 * unterminated quote runs to the end of the line (or of the chunk with
 * multiLine). Empty lines are skipped.
 */
typedef struct csv_tokenizer {
    const csv_options *opts;
    const char *data;
    size_t len;
    size_t pos;
    csv_field *fields;
    size_t n_fields;
    size_t cap_fields;
    buf scratch;
    char eol;         /* line break without multiLine: '\n', or '\r' in CR-only files */
    size_t rec_start; /* offset of the current record in data */
    size_t rec_len;   /* raw bytes of the record without the line break */
    int path;         /* tests: CSV_PATH_* (0, the fastest this build has) */
} csv_tokenizer;

/* Tokenizer paths a test can force; each gives the same records and fields. */
#define CSV_PATH_FAST 0     /* quote-free lines by SSE2 byte masks where built, else words */
#define CSV_PATH_WORDS 1    /* quote-free lines by portable 8-byte word masks */
#define CSV_PATH_GENERAL 2  /* every line by the general path (memchr and byte loops) */

void csv_tokenizer_init(csv_tokenizer *t, const csv_options *opts, const char *data, size_t len);
void csv_tokenizer_clear(csv_tokenizer *t);
/* Reads the next non-empty record; *got is 0 at the end. */
silt_status csv_tokenizer_next(csv_tokenizer *t, int *got, silt_error *err);
/*
 * Offset just past the end of the record starting at pos (line break
 * included), quote-aware when multiLine is set; used to split objects.
 */
size_t csv_record_end(const csv_options *opts, char eol, const char *data, size_t len, size_t pos);
/*
 * Like csv_record_end with multiLine quoting; *complete is 1 when the record
 * ended at a line break outside quotes (not at the end of data, where more
 * bytes could still change it: an open quote, or "\r" before "\n").
 */
size_t csv_record_end_checked(const csv_options *opts, const char *data, size_t len, size_t pos,
                              int *complete);
/* The line break of an object: '\n', or '\r' when it has no '\n' but a '\r'. */
char csv_detect_eol(const char *data, size_t len);

/* Inference state of one column: Spark's CSVInferSchema lattice. */
typedef enum csv_kind {
    CSV_K_NULL = 0,
    CSV_K_INT,
    CSV_K_LONG,
    CSV_K_DECIMAL,
    CSV_K_DOUBLE,
    CSV_K_DATE,
    CSV_K_TIMESTAMP,
    CSV_K_BOOLEAN,
    CSV_K_STRING
} csv_kind;

typedef struct csv_infer_type {
    csv_kind kind;
    int32_t precision;
    int32_t scale;
} csv_infer_type;

/*
 * The last date part ("yyyy-MM-dd") a column's timestamps had, and its day
 * number: most rows of a file repeat the previous row's date, so the fast
 * timestamp path compares ten bytes instead of converting the date again.
 * One per column and thread; zero-initialised is empty.
 */
typedef struct csv_date_memo {
    uint64_t head; /* bytes 0-7 of the text */
    uint16_t tail; /* bytes 8-9 */
    int valid;
    int64_t days;
} csv_date_memo;

/*
 * Folds one field's text into a column's inferred type
 * (CSVInferSchema.inferField); memo (may be NULL) is the column's.
 */
void csv_infer_field(csv_infer_type *so_far, csv_date_memo *memo, const csv_options *opts,
                     const char *s, size_t len);
/* Merges two partial inferences (mergeRowTypes); incompatible types give string. */
csv_infer_type csv_infer_merge(csv_infer_type a, csv_infer_type b);
/* The Delta type of an inferred kind (NULL becomes string). */
const col_type *csv_infer_to_type(csv_infer_type t, arena *a);

/* Value parsers with Java's rules as Spark applies them. Return 1 on success. */
int csv_parse_int32(const char *s, size_t len, int32_t *out);
int csv_parse_int64(const char *s, size_t len, int64_t *out);
int csv_parse_double(const csv_options *opts, const char *s, size_t len, double *out);
int csv_parse_bool(const char *s, size_t len, int *out);
/* BigDecimal text into an unscaled value at `scale` (HALF_UP), fitting `precision` digits. */
int csv_parse_decimal(const char *s, size_t len, int32_t precision, int32_t scale,
                      col_int128 *out);
int csv_parse_timestamp(const csv_options *opts, const char *s, size_t len, int64_t *out);
/* The same with a column's date memo (may be NULL); same results. */
int csv_parse_timestamp_memo(const csv_options *opts, csv_date_memo *memo, const char *s,
                             size_t len, int64_t *out);
int csv_parse_date(const csv_options *opts, const char *s, size_t len, int32_t *out);

#endif
