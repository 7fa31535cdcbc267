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
/* Parses a whole non-negative integer option. */
silt_status text_parse_int(const char *key, const char *value, int64_t *out, silt_error *err);
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

/* Length of a UTF-8 byte order mark at the start of data (0 or 3). */
size_t text_bom_len(const char *data, size_t len);

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
