/*
 * text.h - values and rows as text: the canonical JSON of the conformance
 * corpus, JSON lines, CSV and Spark's DataFrame.show() table.
 *
 * Everything silt prints or compares goes through these functions, so they
 * write straight into a caller's buf without allocating per value (map
 * values, whose entries must be sorted, are the one exception).
 *
 * Three number spellings exist because three consumers read them:
 *   JS      canonical JSON (conformance README): shortest round-trip digits
 *           laid out like JavaScript's Number.prototype.toString: "0.1",
 *           "3", "1e+21", "1.5e-7", "-0".
 *   Java    what Spark prints (show(), CSV, JSON): Double.toString and
 *           Float.toString: "1.0", "1.0E10", "1.0E-5", "4.9E-324". Integral
 *           values follow JDK 17 (Spark's usual JVM), which does not always
 *           print the shortest digits there ("1.23456792E8" for a float);
 *           other values get the shortest digits, as JDK 19+ specifies.
 *           Compared with JDK 17 on 300,000 random values: 18 differ in the
 *           last digit (floats above 2^63, rare doubles).
 *   Decimal plain notation with exactly `scale` fraction digits.
 *
 * Spark's behaviour was checked against pyspark 4.3.0 on Java 17 with the
 * session time zone UTC (silt's): the expected texts in the unit tests are
 * its output.
 */
#ifndef SILT_FORMATS_TEXT_H
#define SILT_FORMATS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "formats/columnar.h"
#include "util/buf.h"
#include "util/error.h"

/* Room enough for any number these functions write (incl. the NUL). */
#define TEXT_NUM_MAX 64

/*
 * Numbers into a caller's char array of at least TEXT_NUM_MAX bytes; each
 * returns the length written (NUL-terminated). NaN and infinities are
 * written "NaN", "Infinity", "-Infinity" (the canonical JSON quotes them).
 */
size_t text_format_double_js(double value, char *out);
/* A float's shortest digits (those that identify the 32-bit value). */
size_t text_format_float_js(float value, char *out);
size_t text_format_double_java(double value, char *out);
size_t text_format_float_java(float value, char *out);
/* decimal(p,s) from its unscaled value: "-0.050", "12" (scale 0). */
size_t text_format_decimal(col_int128 unscaled, int32_t scale, char *out);
/* Java's BigDecimal.toString (what Spark's JSON writer prints): "0E-18", "1.5E-7". */
size_t text_format_decimal_java(col_int128 unscaled, int32_t scale, char *out);
/*
 * Appends a non-null boolean (true/false) or integer value, written alike
 * by every text format; *done = 0 (nothing appended) for any other type.
 */
silt_status text_append_integral(buf *out, const col_vec *v, int64_t row, int *done,
                                  silt_error *err);
/* Appends bytes as lowercase hex, two digits a byte (binary in CSV and JSON). */
silt_status text_append_hex(buf *out, const char *bytes, size_t len, silt_error *err);

/* A JSON string literal of the bytes (canonical escaping: " \\ and controls only). */
silt_status text_json_string(buf *out, const char *s, size_t len, silt_error *err);
/*
 * The same as Spark writes it through Jackson: \b \t \n \f \r, other
 * controls \u00XX in uppercase hex. The one JSON string escaper for what
 * Spark would write (JSON lines, and the SQL texts and properties in a
 * commit's operationParameters).
 */
silt_status text_spark_json_string(buf *out, const char *s, size_t len, silt_error *err);

/*
 * Dates and timestamps as Spark formats them (show(), CSV, JSON): like
 * util/time.h, but a year above 9999 gets a '+' ("+10000-01-01"), as Java's
 * formatter writes it. fraction_digits < 0 means "as many as needed, none
 * when zero" (show(): "11:11:11.12"). out needs TEXT_NUM_MAX bytes.
 */
size_t text_format_date_spark(int32_t days, char *out);
size_t text_format_timestamp_spark(int64_t micros, char sep, int fraction_digits, int with_zone,
                                   char *out);

/*
 * Canonical JSON (conformance README, "Canonical row format"): one value of
 * v at row, appended to out. Errors: SILT_NOMEM only (the buf's limit).
 */
silt_status text_json_value(buf *out, const col_vec *v, int64_t row, silt_error *err);
/* One row of a batch as a JSON object keyed by the top-level column names. */
silt_status text_json_row(buf *out, const col_batch *batch, int64_t row, silt_error *err);
/* All rows of a batch, one canonical JSON object per line, each ending in '\n'. */
silt_status text_jsonl_write_batch(buf *out, const col_batch *batch, silt_error *err);

/*
 * Sorts the lines of text (each ending in '\n'; a last line without one gets
 * one) by the byte order of their contents, as the conformance corpus's
 * expected files are sorted ("How to compare", step 3). Stable; allocates
 * one line table and one copy of the text.
 */
silt_status text_lines_sort(buf *text, silt_error *err);

/*
 * Spark's JSON lines (`DataFrame.write.json`, `toJSON`, silt's --format json):
 * null fields left out, timestamps "2021-09-08T11:11:11.000Z" (milliseconds,
 * as Spark's default timestampFormat), timestamp_ntz without the zone,
 * binary in base64, maps as objects, decimals as Java BigDecimal numbers,
 * doubles as Java prints them, NaN and infinities quoted.
 */
silt_status text_spark_json_write_batch(buf *out, const col_batch *batch, silt_error *err);

/*
 * Appends the text CSV and show() share for a non-null boolean, integer,
 * float or double (Java's layout), decimal (plain) or string; *done = 0
 * (nothing appended) for any other type.
 */
silt_status text_append_plain(buf *out, const col_vec *v, int64_t row, int *done,
                              silt_error *err);

/*
 * CSV as Spark's `df.write.option("header", true).csv` writes it, with
 * RFC 4180 quoting (text_csv.c lists where silt departs from Spark): a
 * header line of column names, fields joined by ',', a field quoted when it
 * contains ',', '"', CR or LF (quotes doubled), lines ending "\n". A null is
 * an empty field; an empty string is written "". Booleans true/false,
 * numbers as Java prints them, decimals plain, dates yyyy-MM-dd, timestamps
 * "2021-09-08T11:11:11.000Z" (Spark's default timestampFormat, UTC),
 * timestamp_ntz "2021-09-08T11:11:11.000", binary as lowercase hex, nested
 * values as their canonical JSON.
 */
silt_status text_csv_write_header(buf *out, const col_type *schema, silt_error *err);
silt_status text_csv_write_batch(buf *out, const col_batch *batch, silt_error *err);

/*
 * The table of Spark's Dataset.show(max_rows, truncate): feed batches with
 * text_table_add_batch (the table keeps the text of the first max_rows rows
 * and counts the rest, so the batches may be freed afterwards), then
 * text_table_finish appends the table to out:
 *
 *   +---+-----+
 *   | id| name|
 *   +---+-----+
 *   |  1|alice|
 *   +---+-----+
 *   only showing top 1 row
 *
 * Nulls show as NULL (Spark 3.5 and later; older Spark printed null).
 * truncate > 0: cells longer than truncate characters are cut to
 * truncate - 3 characters plus "..." and cells are right-aligned;
 * truncate == 0: nothing is cut and cells are left-aligned (as Spark).
 * Widths count UTF-16 units like Java's String.length(), plus one for each
 * East Asian full-width character (Spark's Utils.stringHalfWidth).
 * Errors: SILT_INVALID for a negative max_rows or truncate, a schema that
 * is not a struct, or a batch with another number of columns; SILT_NOMEM.
 */
typedef struct text_table text_table;
silt_status text_table_new(text_table **out, const col_type *schema, int64_t max_rows,
                           int32_t truncate, silt_error *err);
silt_status text_table_add_batch(text_table *t, const col_batch *batch, silt_error *err);
silt_status text_table_finish(text_table *t, buf *out, silt_error *err);
/* Lays the table out as show(n, truncate, vertical = true) does: a block per row. */
void text_table_set_vertical(text_table *t);
/* Rows seen so far (shown or not). */
int64_t text_table_rows_seen(const text_table *t);
void text_table_free(text_table *t);

/*
 * The text show() puts in a cell, before escaping and truncation (Spark's
 * ToPrettyString). Not CAST(x AS STRING), which differs for nulls inside
 * nested values ("null") and for binary (the raw bytes).
 */
silt_status text_spark_value(buf *out, const col_vec *v, int64_t row, silt_error *err);

/*
 * One writer for every output format, for the command line and the API:
 * feed batches, get text. CSV and JSON text is produced batch by batch (the
 * CSV header with the first call); the table is produced by
 * text_writer_finish, since its widths depend on all shown rows.
 */
typedef enum text_format {
    TEXT_FORMAT_TABLE = 0, /* Spark's show() */
    TEXT_FORMAT_CSV,       /* Spark's CSV with a header, RFC 4180 quotes */
    TEXT_FORMAT_JSON,      /* Spark's JSON lines (toJSON) */
    TEXT_FORMAT_JSONL,     /* canonical JSON lines (the conformance format) */
    TEXT_FORMAT_VERTICAL   /* Spark's show(n, truncate, vertical = true) */
} text_format;

typedef struct text_writer_options {
    unsigned version;
    text_format format;
    int64_t max_rows; /* TABLE, VERTICAL: rows shown (Spark's default 20); others: ignored */
    int32_t truncate; /* TABLE: Spark's truncate (default 20; 0 = off) */
} text_writer_options;

#define TEXT_WRITER_OPTIONS_INIT {1, TEXT_FORMAT_TABLE, 20, 20}

/* "table", "csv", "json", "jsonl", "vertical" (ASCII case-insensitive); SILT_INVALID otherwise. */
silt_status text_format_parse(const char *name, text_format *out, silt_error *err);

typedef struct text_writer text_writer;
silt_status text_writer_new(text_writer **out, const col_type *schema,
                            const text_writer_options *opts, silt_error *err);
/* Appends the text of a batch to out (nothing for TABLE, which keeps the rows). */
silt_status text_writer_add_batch(text_writer *w, const col_batch *batch, buf *out,
                                  silt_error *err);
/* Appends what is left: the whole table, or the CSV header when no batch came. */
silt_status text_writer_finish(text_writer *w, buf *out, silt_error *err);
void text_writer_free(text_writer *w);

#endif
