/*
 * csv_infer.c - Spark's CSV schema inference and value parsing.
 *
 * Inference follows CSVInferSchema (Spark 3.x/4.x, default options): each
 * field is tried against the type found so far and the types after it, in
 * the order int -> long -> decimal (integers only, scale <= 0) -> double ->
 * date (yyyy-MM-dd) -> timestamp (Spark's lenient default parser) ->
 * boolean -> string; the result is merged with the type so far, and types
 * with no common type become string. Numbers follow Java's parsers, which
 * Spark calls: Integer.parseInt (sign and digits only), Double.parseDouble
 * (surrounding whitespace, "NaN", "Infinity" and a d/f suffix accepted),
 * new BigDecimal(s). These quirks are what make " 1" a double and "123." a
 * decimal(3,0) in Spark, and silt must infer the same schema.
 */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "formats/csv/csv_int.h"
#include "util/time.h"

/*
 * [+-] and at most 9 digits, the common case of both integer parsers:
 * 999,999,999 fits an int32, so no digit needs an overflow check.
 * Returns 0 for anything else (longer, empty, not a digit), which the
 * callers hand to the checked parser.
 */
static int short_int(const char *s, size_t len, int32_t *out)
{
    size_t pos = 0;
    int32_t value = 0;
    int negative = 0;
    if (len > 0 && (s[0] == '-' || s[0] == '+')) {
        negative = s[0] == '-';
        pos = 1;
    }
    if (pos == len || len - pos > 9)
        return 0;
    for (; pos < len; pos++) {
        unsigned digit = (unsigned)(unsigned char)s[pos] - '0';
        if (digit > 9)
            return 0;
        value = value * 10 + (int32_t)digit;
    }
    *out = negative ? -value : value;
    return 1;
}

int csv_parse_int64(const char *s, size_t len, int64_t *out)
{
    int32_t small;
    if (short_int(s, len, &small)) {
        *out = small;
        return 1;
    }
    return util_str_to_int64(s, len, out);
}

int csv_parse_int32(const char *s, size_t len, int32_t *out)
{
    int64_t v;
    if (short_int(s, len, out))
        return 1;
    if (len > 12 || !util_str_to_int64(s, len, &v) || v < INT32_MIN || v > INT32_MAX)
        return 0;
    *out = (int32_t)v;
    return 1;
}

static int equals(const char *s, size_t len, const char *text)
{
    /* The first byte first: this runs for every number, and options are rarely numbers. */
    if (text == NULL || (len > 0 && text[0] != s[0]))
        return 0;
    return strlen(text) == len && memcmp(s, text, len) == 0;
}

int csv_parse_bool(const char *s, size_t len, int *out)
{
    if (len == 4 && util_str_ncasecmp(s, "true", 4) == 0)
        *out = 1;
    else if (len == 5 && util_str_ncasecmp(s, "false", 5) == 0)
        *out = 0;
    else
        return 0;
    return 1;
}

/* Java's Double.parseDouble on decimal text (hex floats are not accepted). */
static int java_double(const char *s, size_t len, double *out)
{
    size_t start = 0, end = len, pos, n_digits = 0;
    if (util_str_to_double_fast(s, len, out)) /* plain decimals: Java's value, no checks */
        return 1;
    while (start < end && (unsigned char)s[start] <= ' ')
        start++;
    while (end > start && (unsigned char)s[end - 1] <= ' ')
        end--;
    if (end > start && strchr("dDfF", s[end - 1]) != NULL)
        end--;
    if (end == start || end - start >= 400)
        return 0;
    pos = start;
    int negative = 0;
    if (s[pos] == '+' || s[pos] == '-')
        negative = s[pos++] == '-';
    if (end - pos == 3 && memcmp(s + pos, "NaN", 3) == 0 && end == len) {
        *out = NAN;
        return 1;
    }
    if (end - pos == 8 && memcmp(s + pos, "Infinity", 8) == 0 && end == len) {
        *out = negative ? -INFINITY : INFINITY;
        return 1;
    }
    for (size_t idx = pos; idx < end; idx++) {
        char c = s[idx];
        if (isdigit((unsigned char)c))
            n_digits++;
        else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-')
            return 0;
    }
    if (n_digits == 0)
        return 0;
    /* strtod accepts a subset-compatible grammar once the characters are
     * restricted as above; it also rejects "1e" and "." forms as Java does. */
    return util_str_to_double(s + start, end - start, out);
}

int csv_parse_double(const csv_options *opts, const char *s, size_t len, double *out)
{
    if (equals(s, len, opts->nan_value)) {
        *out = NAN;
        return 1;
    }
    if (equals(s, len, opts->positive_inf)) {
        *out = INFINITY;
        return 1;
    }
    if (equals(s, len, opts->negative_inf)) {
        *out = -INFINITY;
        return 1;
    }
    return java_double(s, len, out);
}

int csv_parse_decimal(const char *s, size_t len, int32_t precision, int32_t scale, col_int128 *out)
{
    return text_parse_decimal(s, len, precision, scale, out);
}

/*
 * Fixed-layout fields are checked eight bytes at a time: a little-endian
 * word of the text, a mask of the bytes that must be digits, and the exact
 * bytes expected everywhere else. A byte b < 0x80 is a digit when neither
 * b + 0x46 (b > '9') nor b - 0x30 (b < '0') sets its top bit; a borrow
 * out of a byte below '0' can only disturb the byte above it, and the word
 * is refused by the first anyway.
 */
#define CSV_ONES UINT64_C(0x0101010101010101)
#define CSV_HIGH (CSV_ONES * 0x80)

static uint64_t load8(const char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
}

/* 1 when the bytes under digit_mask are ASCII digits and the others equal fixed's. */
static int layout_ok(uint64_t w, uint64_t digit_mask, uint64_t fixed)
{
    uint64_t x = (w & digit_mask) | (CSV_ONES * '0' & ~digit_mask);
    if (((w & ~digit_mask) ^ (fixed & ~digit_mask)) != 0 || (w & CSV_HIGH) != 0)
        return 0;
    return (((x + CSV_ONES * 0x46) | (x - CSV_ONES * '0')) & CSV_HIGH) == 0;
}

/* The two-digit number at byte k of a word whose digits were checked. */
static unsigned two_digits(uint64_t w, unsigned k)
{
    return (unsigned)((w >> (8 * k)) & 0x0F) * 10 + (unsigned)((w >> (8 * k + 8)) & 0x0F);
}

static int is_little_endian(void)
{
    const uint16_t probe = 1;
    uint8_t first;
    memcpy(&first, &probe, 1);
    return first == 1;
}

/* Bytes 0-9, "yyyy-MM-dd", into days since the epoch; the memo keeps the last date. */
static int fast_date_part(const char *s, csv_date_memo *memo, int64_t *days_out)
{
    /* "yyyy-MM-" in a word: digits at bytes 0-3 and 5-6, '-' at 4 and 7. */
    static const uint64_t ymd_digits = UINT64_C(0x00FFFF00FFFFFFFF);
    static const uint64_t ymd_fixed = (uint64_t)'-' << 32 | (uint64_t)'-' << 56;
    uint64_t w = load8(s);
    uint16_t tail;
    unsigned year, month, day;
    memcpy(&tail, s + 8, 2);
    if (memo != NULL && memo->valid && memo->head == w && memo->tail == tail) {
        *days_out = memo->days;
        return 1;
    }
    if (!layout_ok(w, ymd_digits, ymd_fixed) ||
        s[8] < '0' || s[8] > '9' || s[9] < '0' || s[9] > '9')
        return 0;
    year = two_digits(w, 0) * 100 + two_digits(w, 2);
    month = two_digits(w, 5);
    day = (unsigned)(s[8] - '0') * 10 + (unsigned)(s[9] - '0');
    if (!time_valid_date(year, month, day))
        return 0;
    *days_out = time_days_from_civil(year, month, day);
    if (memo != NULL) {
        memo->head = w;
        memo->tail = tail;
        memo->days = *days_out;
        memo->valid = 1;
    }
    return 1;
}

static int digit_at(const char *s, size_t pos)
{
    return s[pos] >= '0' && s[pos] <= '9';
}

/*
 * The optional ".f" (1 to 6 digits) after the seconds, as microseconds; the
 * position after it, or 0 when the text is not this shape (more digits
 * than a microsecond holds go the general way).
 */
static size_t fast_fraction(const char *s, size_t len, size_t pos, int64_t *micros)
{
    int n = 0;
    *micros = 0;
    if (pos == len || s[pos] != '.')
        return pos;
    for (pos++; pos < len && digit_at(s, pos) && n < 6; pos++, n++)
        *micros = *micros * 10 + (s[pos] - '0');
    if (n == 0 || (pos < len && digit_at(s, pos)))
        return 0;
    for (; n < 6; n++)
        *micros *= 10;
    return pos;
}

/*
 * The optional zone after the time: "Z" or "+HH:mm"/"-HH:mm" (offsets
 * below 18 hours) as microseconds east of UTC. 1 and *zoned when there is
 * one, 1 when the text simply ends, 0 for any other suffix.
 */
static int fast_offset(const char *s, size_t len, size_t pos, int *zoned, int64_t *offset)
{
    unsigned hours, minutes;
    *zoned = 0;
    *offset = 0;
    if (pos == len)
        return 1;
    if (s[pos] == 'Z' && pos + 1 == len) {
        *zoned = 1;
        return 1;
    }
    if ((s[pos] != '+' && s[pos] != '-') || len - pos != 6 || !digit_at(s, pos + 1) ||
        !digit_at(s, pos + 2) || s[pos + 3] != ':' || !digit_at(s, pos + 4) ||
        !digit_at(s, pos + 5))
        return 0;
    hours = (unsigned)(s[pos + 1] - '0') * 10 + (unsigned)(s[pos + 2] - '0');
    minutes = (unsigned)(s[pos + 4] - '0') * 10 + (unsigned)(s[pos + 5] - '0');
    if (hours > 17 || minutes > 59)
        return 0;
    *zoned = 1;
    *offset = ((int64_t)hours * 3600 + minutes * 60) * TIME_MICROS_PER_SECOND;
    if (s[pos] == '-')
        *offset = -*offset;
    return 1;
}

/*
 * "yyyy-MM-dd HH:mm:ss" (or with 'T'), with an optional fraction of up to
 * six digits and an optional "Z" or "+HH:mm" offset: the forms almost every
 * file uses, without the general parser's branches: word loads, and the
 * date part from the memo when it repeats the last row's (rows of a file
 * are often in time order). *zoned says the text named its offset (then
 * *out is UTC already). Anything else returns 0 and goes the general way,
 * which accepts every text this accepts with the same value (tested).
 */
static int fast_timestamp(const char *s, size_t len, csv_date_memo *memo, int64_t *out,
                          int *zoned)
{
    /* "HH:mm:ss" in a word: digits at bytes 0-1, 3-4, 6-7, ':' at 2 and 5. */
    static const uint64_t hms_digits = UINT64_C(0xFFFF00FFFF00FFFF);
    static const uint64_t hms_fixed = (uint64_t)':' << 16 | (uint64_t)':' << 40;
    uint64_t w;
    unsigned hour, minute, second;
    int64_t days, micros, offset;
    size_t pos;
    if (len < 19 || (s[10] != ' ' && s[10] != 'T') || !is_little_endian())
        return 0;
    w = load8(s + 11);
    if (!layout_ok(w, hms_digits, hms_fixed))
        return 0;
    hour = two_digits(w, 0);
    minute = two_digits(w, 3);
    second = two_digits(w, 6);
    pos = fast_fraction(s, len, 19, &micros);
    if (pos == 0 || !fast_offset(s, len, pos, zoned, &offset))
        return 0;
    if (hour > 23 || minute > 59 || second > 59 || !fast_date_part(s, memo, &days))
        return 0;
    *out = days * TIME_MICROS_PER_DAY +
           ((int64_t)hour * 3600 + minute * 60 + second) * TIME_MICROS_PER_SECOND + micros -
           offset;
    return 1;
}

int csv_parse_timestamp_memo(const csv_options *opts, csv_date_memo *memo, const char *s,
                             size_t len, int64_t *out)
{
    size_t end = len;
    int zoned;
    if (opts->timestamp_pattern != NULL)
        return text_dt_parse_timestamp_in(opts->timestamp_pattern, s, len, opts->zone, out);
    if (fast_timestamp(s, len, memo, out, &zoned)) {
        if (!zoned)
            *out = time_zone_from_local(opts->zone, *out); /* a wall-clock time in the zone */
        return 1;
    }
    while (end > 0 && s[end - 1] == ' ')
        end--;
    /* Spark's parser wants a time after the 'T' ("2022-10-01T" is a string). */
    if (end > 0 && s[end - 1] == 'T')
        return 0;
    return time_string_to_timestamp(s, len, opts->zone, time_now_micros(), out);
}

int csv_parse_timestamp(const csv_options *opts, const char *s, size_t len, int64_t *out)
{
    return csv_parse_timestamp_memo(opts, NULL, s, len, out);
}

/* Spark's default date pattern yyyy-MM-dd (strict: one year of 4 digits). */
static int parse_strict_date(const char *s, size_t len, int32_t *out)
{
    if (len != 10 || s[4] != '-' || s[7] != '-')
        return 0;
    for (size_t idx = 0; idx < len; idx++)
        if (idx != 4 && idx != 7 && !isdigit((unsigned char)s[idx]))
            return 0;
    return time_parse_date(s, len, out);
}

int csv_parse_date(const csv_options *opts, const char *s, size_t len, int32_t *out)
{
    if (opts->date_pattern != NULL)
        return text_dt_parse_date(opts->date_pattern, s, len, out);
    /* Reading a date column accepts what Spark's default formatter does:
     * yyyy-[m]m-[d]d with an optional time part. */
    return time_parse_date(s, len, out);
}

static csv_infer_type kind(csv_kind k)
{
    csv_infer_type t = {k, 0, 0};
    return t;
}

static csv_infer_type try_boolean(const char *s, size_t len)
{
    int b;
    return csv_parse_bool(s, len, &b) ? kind(CSV_K_BOOLEAN) : kind(CSV_K_STRING);
}

static csv_infer_type try_timestamp(const csv_options *o, csv_date_memo *memo, const char *s,
                                    size_t len)
{
    int64_t ts;
    return csv_parse_timestamp_memo(o, memo, s, len, &ts) ? kind(CSV_K_TIMESTAMP)
                                                           : try_boolean(s, len);
}

static csv_infer_type try_date(const csv_options *o, csv_date_memo *memo, const char *s,
                               size_t len)
{
    int32_t days;
    int is_date = o->date_pattern != NULL ? text_dt_parse_date(o->date_pattern, s, len, &days)
                                          : parse_strict_date(s, len, &days);
    return is_date ? kind(CSV_K_DATE) : try_timestamp(o, memo, s, len);
}

static csv_infer_type try_double(const csv_options *o, csv_date_memo *memo, const char *s,
                                 size_t len)
{
    double d;
    return csv_parse_double(o, s, len, &d) ? kind(CSV_K_DOUBLE) : try_date(o, memo, s, len);
}

static csv_infer_type try_decimal(const csv_options *o, csv_date_memo *memo, const char *s,
                                  size_t len)
{
    text_big_decimal d;
    if (text_big_decimal_parse(s, len, &d) && d.scale <= 0) {
        /* DecimalType rejects a negative scale and more than 38 digits. */
        if (d.scale == 0 && d.precision <= 38) {
            csv_infer_type t = {CSV_K_DECIMAL, d.precision, 0};
            return t;
        }
    }
    return try_double(o, memo, s, len);
}

static csv_infer_type try_long(const csv_options *o, csv_date_memo *memo, const char *s,
                               size_t len)
{
    int64_t v;
    return csv_parse_int64(s, len, &v) ? kind(CSV_K_LONG) : try_decimal(o, memo, s, len);
}

static csv_infer_type try_int(const csv_options *o, csv_date_memo *memo, const char *s,
                              size_t len)
{
    int32_t v;
    return csv_parse_int32(s, len, &v) ? kind(CSV_K_INT) : try_long(o, memo, s, len);
}

static csv_infer_type decimal_of(csv_infer_type t)
{
    if (t.kind == CSV_K_INT)
        return (csv_infer_type){CSV_K_DECIMAL, 10, 0};
    if (t.kind == CSV_K_LONG)
        return (csv_infer_type){CSV_K_DECIMAL, 20, 0};
    return t;
}

static int is_integral(csv_kind k) { return k == CSV_K_INT || k == CSV_K_LONG; }

/* TypeCoercion.findTightestCommonType then CSVInferSchema's extra rules. */
static int compatible(csv_infer_type a, csv_infer_type b, csv_infer_type *out)
{
    if (a.kind == CSV_K_NULL) {
        *out = b;
        return 1;
    }
    if (b.kind == CSV_K_NULL || (a.kind == b.kind && a.kind != CSV_K_DECIMAL)) {
        *out = a;
        return 1;
    }
    if (a.kind == CSV_K_STRING || b.kind == CSV_K_STRING) {
        *out = kind(CSV_K_STRING);
        return 1;
    }
    if (is_integral(a.kind) && is_integral(b.kind)) {
        *out = kind(CSV_K_LONG);
        return 1;
    }
    if ((a.kind == CSV_K_DOUBLE && (is_integral(b.kind) || b.kind == CSV_K_DECIMAL)) ||
        (b.kind == CSV_K_DOUBLE && (is_integral(a.kind) || a.kind == CSV_K_DECIMAL))) {
        *out = kind(CSV_K_DOUBLE);
        return 1;
    }
    if ((a.kind == CSV_K_DECIMAL || is_integral(a.kind)) &&
        (b.kind == CSV_K_DECIMAL || is_integral(b.kind))) {
        csv_infer_type da = decimal_of(a), db = decimal_of(b);
        int32_t scale = da.scale > db.scale ? da.scale : db.scale;
        int32_t ra = da.precision - da.scale, rb = db.precision - db.scale;
        int32_t range = ra > rb ? ra : rb;
        if (range + scale > 38)
            *out = kind(CSV_K_DOUBLE);
        else
            *out = (csv_infer_type){CSV_K_DECIMAL, range + scale, scale};
        return 1;
    }
    if ((a.kind == CSV_K_DATE && b.kind == CSV_K_TIMESTAMP) ||
        (a.kind == CSV_K_TIMESTAMP && b.kind == CSV_K_DATE)) {
        *out = kind(CSV_K_TIMESTAMP);
        return 1;
    }
    return 0;
}

void csv_infer_field(csv_infer_type *so_far, csv_date_memo *memo, const csv_options *o,
                     const char *s, size_t len)
{
    csv_infer_type found, merged;
    int32_t small;
    int64_t ts;
    if (so_far->kind == CSV_K_STRING || len == 0 ||
        (o->null_value[0] != '\0' && equals(s, len, o->null_value)))
        return;
    /* The cheapest confirmation first: a column keeps its type on most rows. */
    if (so_far->kind == CSV_K_INT && csv_parse_int32(s, len, &small))
        return;
    if (so_far->kind == CSV_K_TIMESTAMP && csv_parse_timestamp_memo(o, memo, s, len, &ts))
        return;
    switch (so_far->kind) {
    case CSV_K_NULL:
    case CSV_K_INT: found = try_int(o, memo, s, len); break;
    case CSV_K_LONG: found = try_long(o, memo, s, len); break;
    case CSV_K_DECIMAL: found = try_decimal(o, memo, s, len); break;
    case CSV_K_DOUBLE: found = try_double(o, memo, s, len); break;
    case CSV_K_DATE: found = try_date(o, memo, s, len); break;
    case CSV_K_TIMESTAMP: found = try_timestamp(o, memo, s, len); break;
    case CSV_K_BOOLEAN: found = try_boolean(s, len); break;
    default: return;
    }
    *so_far = compatible(*so_far, found, &merged) ? merged : kind(CSV_K_STRING);
}

csv_infer_type csv_infer_merge(csv_infer_type a, csv_infer_type b)
{
    csv_infer_type merged;
    return compatible(a, b, &merged) ? merged : kind(CSV_K_STRING);
}

const col_type *csv_infer_to_type(csv_infer_type t, arena *a)
{
    switch (t.kind) {
    case CSV_K_INT: return col_type_primitive(COL_INT);
    case CSV_K_LONG: return col_type_primitive(COL_LONG);
    case CSV_K_DECIMAL: return col_type_decimal(a, t.precision, t.scale);
    case CSV_K_DOUBLE: return col_type_primitive(COL_DOUBLE);
    case CSV_K_DATE: return col_type_primitive(COL_DATE);
    case CSV_K_TIMESTAMP: return col_type_primitive(COL_TIMESTAMP);
    case CSV_K_BOOLEAN: return col_type_primitive(COL_BOOLEAN);
    default: return col_type_primitive(COL_STRING);
    }
}
