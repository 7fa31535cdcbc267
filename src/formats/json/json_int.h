/*
 * json_int.h - internals of the JSON reader: the tape tokenizer, inference
 * types and value conversion helpers.
 */
#ifndef SILT_FORMATS_JSON_INT_H
#define SILT_FORMATS_JSON_INT_H

#include "formats/json/json.h"

typedef enum jtok_kind {
    JT_OBJECT = 0,
    JT_ARRAY,
    JT_STRING,
    JT_INT,
    JT_FLOAT, /* also NaN and +-Infinity (Spark's allowNonNumericNumbers) */
    JT_TRUE,
    JT_FALSE,
    JT_NULL
} jtok_kind;

/*
 * One token of a parsed value. Containers are followed by their contents
 * (an object by key/value pairs, the key a JT_STRING), and `next` is the
 * index just past the container, so a value is skipped in O(1).
 */
typedef struct jtok {
    uint8_t kind;
    uint8_t escaped; /* a string with backslash escapes */
    uint8_t ascii;   /* a string whose bytes are all ASCII (no UTF-8 check needed) */
    uint32_t next;
    uint32_t count;  /* members of an object, elements of an array */
    const char *ptr; /* string content (no quotes) or the value's text */
    size_t len;
} jtok;

typedef struct json_tape {
    jtok *toks;
    size_t n;
    size_t cap;
    size_t max_depth;
    size_t base;          /* first token of the value being parsed */
    size_t err_pos;       /* offset of a syntax error in the text */
    const char *err_what; /* what was expected there */
} json_tape;

void json_tape_init(json_tape *t, size_t max_depth);
void json_tape_clear(json_tape *t);
/*
 * Parses one value at the start of text (after whitespace). Returns
 * SILT_OK and *ok = 1 with the tokens on the tape, *ok = 0 on a syntax
 * error (err_pos/err_what set), or SILT_NOMEM. *end_out is the offset just
 * after the value. Input with only whitespace sets *empty.
 */
silt_status json_tape_parse(json_tape *t, const char *text, size_t len, int *ok, int *empty,
                            size_t *end_out, silt_error *err);
/*
 * Like json_tape_parse, but keeps the tokens already on the tape and puts
 * the value after them (at index t->n on entry; nothing is added on a
 * syntax error), so one tape holds the values of many records. Token
 * `next` indices count from the value's first token, so json_tape_view of
 * [first, end) reads like a tape holding that value alone.
 */
silt_status json_tape_parse_append(json_tape *t, const char *text, size_t len, int *ok,
                                   int *empty, size_t *end_out, silt_error *err);
/* A read-only tape of tokens [first, end) of t (valid until t grows or is cleared). */
void json_tape_view(const json_tape *t, size_t first, size_t end, json_tape *view);
/* Unescapes a string token's content into out (appended). */
silt_status json_unescape(const char *s, size_t len, buf *out, silt_error *err);
/* Offset of the next line start at or after pos (past '\n'), or len. */
size_t json_line_end(const char *data, size_t len, size_t pos);

/* ---- inference ---- */

typedef enum jkind {
    JK_NULL = 0,
    JK_BOOLEAN,
    JK_LONG,
    JK_DECIMAL,
    JK_DOUBLE,
    JK_TIMESTAMP,
    JK_STRING,
    JK_STRUCT,
    JK_ARRAY
} jkind;

typedef struct jtype jtype;
typedef struct jfield {
    char *name;
    size_t name_len;
    jtype *type;
    uint64_t seen_in; /* last top-level record (1-based) that had this field */
} jfield;

struct jtype {
    jkind kind;
    int32_t precision, scale;
    jfield *fields; /* STRUCT, sorted by name bytes */
    size_t n_fields, cap_fields;
    jtype *elem; /* ARRAY */
    /* STRUCT: field index the key at member position k had last time (a
     * guess, checked by name), so records repeating one key order skip the
     * binary search; NULL until the first object, JSON_INFER_HINTS long. */
    uint32_t *hints;
};

#define JSON_INFER_HINTS 64

typedef struct json_infer {
    arena *a;
    const json_options *opts;
    const text_dt_pattern *ts_pattern; /* compiled timestampFormat, or NULL */
    jtype *root; /* STRUCT */
    int saw_corrupt;
    uint64_t n_records;
    char *dup_name; /* a field twice in one top-level object (Spark fails) */
    buf scratch;
    /* folding a string into a string (an integer of up to 18 digits into a
     * long) changes nothing under these options: the common case's test */
    int plain_strings, plain_ints;
} json_infer;

silt_status json_infer_init(json_infer *inf, arena *a, const json_options *opts, silt_error *err);
void json_infer_clear(json_infer *inf);
/* Folds one record (the tape's value) into the root type. */
silt_status json_infer_record(json_infer *inf, const json_tape *t, silt_error *err);
/* Merges another inference into inf (its types are copied into inf's arena). */
silt_status json_infer_merge(json_infer *inf, const json_infer *other, silt_error *err);
/* The final schema (canonicalized, corrupt column added when seen), in arena a. */
silt_status json_infer_schema(const json_infer *inf, arena *a, const col_type **out,
                              silt_error *err);

#endif
