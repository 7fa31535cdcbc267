/*
 * json_tape.c - a JSON tokenizer that writes a flat tape of tokens.
 *
 * RFC 8259 grammar as Jackson applies it with Spark's default JSON options:
 * NaN, Infinity, +Infinity and -Infinity are numbers; leading zeros, single
 * quotes, comments and unescaped control characters in strings are errors.
 * Strings are scanned with a byte table and are not copied: a token points
 * into the input, and escapes are resolved only when a value is used. The
 * nesting depth is limited (max_depth) so hostile input cannot exhaust the
 * stack.
 */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "formats/json/json_int.h"
#include "util/mem.h"

void json_tape_init(json_tape *t, size_t max_depth)
{
    memset(t, 0, sizeof(*t));
    t->max_depth = max_depth ? max_depth : JSON_DEFAULT_MAX_DEPTH;
}

void json_tape_clear(json_tape *t)
{
    mem_free(t->toks);
    t->toks = NULL;
    t->n = t->cap = 0;
}

typedef struct cursor {
    const char *s;
    size_t len;
    size_t pos;
} cursor;

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Compact JSON (JSON lines) has no whitespace between tokens: one compare
 * leaves at once when the next byte is printable. */
static inline void skip_ws(cursor *c)
{
    while (c->pos < c->len && (unsigned char)c->s[c->pos] <= ' ' && is_ws(c->s[c->pos]))
        c->pos++;
}

static inline int at(const cursor *c, char ch) { return c->pos < c->len && c->s[c->pos] == ch; }

/* Whether the next byte after any whitespace is ch; whitespace is skipped
 * only when ch is not there at once (compact JSON has none). */
static inline int expect(cursor *c, char ch)
{
    if (at(c, ch))
        return 1;
    skip_ws(c);
    return at(c, ch);
}

static silt_status grow_tape(json_tape *t, silt_error *err)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    if (cap > UINT32_MAX)
        return err_set(err, SILT_NOMEM, "JSON value has more than 4 billion tokens");
    jtok *grown = mem_realloc(t->toks, cap * sizeof(jtok));
    if (grown == NULL)
        return err_nomem(err);
    t->toks = grown;
    t->cap = cap;
    return SILT_OK;
}

/* Appends a token; a string's escaped/ascii flags are given by its scan. */
static inline silt_status push_str(json_tape *t, jtok_kind kind, const char *ptr, size_t len,
                                   int escaped, int ascii, size_t *idx, silt_error *err)
{
    if (t->n == t->cap)
        SILT_RETURN_IF_ERROR(grow_tape(t, err));
    *idx = t->n++;
    /* One store of the whole token: byte-wide stores to its fields may
     * alias anything (char types), which made the compiler reload the
     * cursor after every token. `next` counts from the value's first token
     * (base), see json_tape_parse_append. */
    t->toks[*idx] = (jtok){.kind = (uint8_t)kind,
                           .escaped = (uint8_t)escaped,
                           .ascii = (uint8_t)ascii,
                           .next = (uint32_t)(t->n - t->base),
                           .count = 0,
                           .ptr = ptr,
                           .len = len};
    return SILT_OK;
}

static inline silt_status push(json_tape *t, jtok_kind kind, const char *ptr, size_t len,
                               size_t *idx, silt_error *err)
{
    int ascii = kind != JT_STRING && kind != JT_OBJECT && kind != JT_ARRAY;
    return push_str(t, kind, ptr, len, 0, ascii, idx, err);
}

static int fail(json_tape *t, cursor *c, const char *what)
{
    t->err_pos = c->pos;
    t->err_what = what;
    return 0;
}

/* Bytes that end the fast string loop: quote, backslash, control characters. */
static const uint8_t string_stop[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
};

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

#define SWAR_ONES UINT64_C(0x0101010101010101)
#define SWAR_HIGHS UINT64_C(0x8080808080808080)

/* Index of the lowest set bit of a non-zero word. */
static inline unsigned lowest_bit(uint64_t w)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(w);
#else
    unsigned n = 0;
    while (!(w & 1)) {
        w >>= 1;
        n++;
    }
    return n;
#endif
}

/*
 * Finds the first byte at or after pos that ends the plain run of a string:
 * a quote, a backslash or a control character (len when there is none), and
 * ORs the bytes before it into *high (its top bit says "not all ASCII").
 * Sixteen bytes at a time with SSE2 where the compiler offers it (every
 * x86-64), then eight at a time with word tricks: "has zero byte" on the
 * word XOR the quote and XOR the backslash, "has byte less than 0x20" on the
 * word. A borrow only runs upward from a byte that really matched, so the
 * lowest flagged byte is exact and marks where the run ends. Strings are
 * short in JSON lines (names, codes, dates), so finding the end in one step
 * instead of walking the last word byte by byte is most of the gain.
 */
static inline size_t find_string_stop(const char *s, size_t pos, size_t len, uint64_t *high)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
    const __m128i ctl = _mm_set1_epi8(0x1F);
    while (pos + 16 <= len) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + pos));
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)),
                                   _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
        unsigned stops = (unsigned)_mm_movemask_epi8(hit);
        unsigned tops = (unsigned)_mm_movemask_epi8(v);
        if (stops != 0) {
            unsigned k = lowest_bit(stops);
            if (tops & ((1u << k) - 1))
                *high |= 0x80;
            return pos + k;
        }
        if (tops != 0)
            *high |= 0x80;
        pos += 16;
    }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (pos + 8 <= len) {
        uint64_t w;
        memcpy(&w, s + pos, 8);
        uint64_t quote_x = w ^ (SWAR_ONES * '"'), slash_x = w ^ (SWAR_ONES * '\\');
        uint64_t hit = (((quote_x - SWAR_ONES) & ~quote_x) | ((slash_x - SWAR_ONES) & ~slash_x) |
                        ((w - SWAR_ONES * 0x20) & ~w)) & SWAR_HIGHS;
        if (hit != 0) {
            unsigned k = lowest_bit(hit) / 8; /* little-endian: byte k of the word */
            if (k > 0)
                *high |= w & (UINT64_MAX >> (64 - 8 * k));
            return pos + k;
        }
        *high |= w;
        pos += 8;
    }
#endif
    while (pos < len && !string_stop[(unsigned char)s[pos]])
        *high |= (unsigned char)s[pos++];
    return pos;
}

/* Scans a string at the opening quote; returns 1 ok, 0 syntax error. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int scan_string_slow(json_tape *t, cursor *c, const char **ptr, size_t *len, int *escaped,
                            int *ascii)
{
    const char *s = c->s;
    size_t pos = c->pos + 1;
    uint64_t high = 0;
    *escaped = 0;
    for (;;) {
        pos = find_string_stop(s, pos, c->len, &high);
        if (pos >= c->len) {
            c->pos = pos;
            return fail(t, c, "the end of the string");
        }
        if (s[pos] == '"')
            break;
        if ((unsigned char)s[pos] < 0x20) {
            c->pos = pos;
            return fail(t, c, "an escaped control character");
        }
        /* backslash */
        *escaped = 1;
        if (pos + 1 >= c->len) {
            c->pos = pos;
            return fail(t, c, "an escape sequence");
        }
        char e = s[pos + 1];
        if (e == 'u') {
            if (pos + 6 > c->len || !is_hex(s[pos + 2]) || !is_hex(s[pos + 3]) ||
                !is_hex(s[pos + 4]) || !is_hex(s[pos + 5])) {
                c->pos = pos;
                return fail(t, c, "four hex digits after \\u");
            }
            pos += 6;
        } else if (strchr("\"\\/bfnrt", e) != NULL && e != '\0') {
            pos += 2;
        } else {
            c->pos = pos;
            return fail(t, c, "a valid escape sequence");
        }
    }
    *ptr = s + c->pos + 1;
    *len = pos - c->pos - 1;
    *ascii = (high & SWAR_HIGHS) == 0;
    c->pos = pos + 1;
    return 1;
}

#if defined(__SSE2__)
/* Stop bytes of a 16-byte block (quote, backslash, control) as a bit mask. */
static inline unsigned block_stops(__m128i v)
{
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                            _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                               _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v));
    return (unsigned)_mm_movemask_epi8(hit);
}
#endif

#if defined(__SSE2__)
/*
 * Stop bytes (quote, backslash, control) and non-ASCII bytes among the
 * `want` (<= 16) bytes at pos, as bit masks; the 16-byte load never leaves
 * [0, len): near the end it is taken from len - 16 and shifted down.
 */
static inline void block_masks(const char *s, size_t pos, size_t len, size_t want,
                               unsigned *stops, unsigned *tops)
{
    size_t at = want == 16 ? pos : len - 16;
    unsigned shift = (unsigned)(pos - at);
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + at));
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                            _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                               _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v));
    *stops = (unsigned)_mm_movemask_epi8(hit) >> shift;
    *tops = (unsigned)_mm_movemask_epi8(v) >> shift;
}
#endif

/*
 * Most strings of JSON lines (names, codes, dates) end within the 32 bytes
 * after their quote and hold no escape: one or two SSE2 blocks find the
 * closing quote (also at the end of a record, with a load that ends at the
 * record's end), and everything else takes the general loop.
 */
static inline int scan_string(json_tape *t, cursor *c, const char **ptr, size_t *len,
                              int *escaped, int *ascii)
{
#if defined(__SSE2__)
    size_t pos = c->pos + 1, left = c->len - pos;
    if (c->len >= 16 && left > 0) {
        unsigned stops, tops;
        block_masks(c->s, pos, c->len, left < 16 ? left : 16, &stops, &tops);
        if (stops == 0 && left > 16) {
            unsigned stops1, tops1;
            block_masks(c->s, pos + 16, c->len, left < 32 ? left - 16 : 16, &stops1, &tops1);
            stops = stops1 << 16;
            tops |= tops1 << 16;
        }
        if (stops != 0) {
            unsigned k = lowest_bit(stops);
            if (c->s[pos + k] == '"') {
                *ptr = c->s + pos;
                *len = k;
                *escaped = 0;
                *ascii = (tops & ((1u << k) - 1)) == 0;
                c->pos = pos + k + 1;
                return 1;
            }
        }
    }
#endif
    return scan_string_slow(t, c, ptr, len, escaped, ascii);
}

static int match_word(cursor *c, const char *word)
{
    size_t n = strlen(word);
    if (c->len - c->pos >= n && memcmp(c->s + c->pos, word, n) == 0) {
        c->pos += n;
        return 1;
    }
    return 0;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Scans a number; sets *is_float. Returns 1 ok, 0 syntax error. */
static int scan_number(json_tape *t, cursor *c, int *is_float)
{
    const char *s = c->s;
    size_t pos = c->pos;
    *is_float = 0;
    if (s[pos] == '-' || s[pos] == '+') {
        int plus = s[pos] == '+';
        pos++;
        cursor probe = {s, c->len, pos};
        if (match_word(&probe, "Infinity")) {
            c->pos = probe.pos;
            *is_float = 1;
            return 1;
        }
        if (plus) {
            c->pos = pos - 1;
            return fail(t, c, "a value");
        }
    }
    if (pos >= c->len || !is_digit(s[pos])) {
        c->pos = pos;
        return fail(t, c, "a digit");
    }
    if (s[pos] == '0' && pos + 1 < c->len && is_digit(s[pos + 1])) {
        c->pos = pos;
        return fail(t, c, "a number without leading zeros");
    }
    while (pos < c->len && is_digit(s[pos]))
        pos++;
    if (pos < c->len && s[pos] == '.') {
        *is_float = 1;
        pos++;
        if (pos >= c->len || !is_digit(s[pos])) {
            c->pos = pos;
            return fail(t, c, "a digit after the decimal point");
        }
        while (pos < c->len && is_digit(s[pos]))
            pos++;
    }
    if (pos < c->len && (s[pos] == 'e' || s[pos] == 'E')) {
        *is_float = 1;
        pos++;
        if (pos < c->len && (s[pos] == '+' || s[pos] == '-'))
            pos++;
        if (pos >= c->len || !is_digit(s[pos])) {
            c->pos = pos;
            return fail(t, c, "a digit in the exponent");
        }
        while (pos < c->len && is_digit(s[pos]))
            pos++;
    }
    c->pos = pos;
    return 1;
}

static silt_status parse_value(json_tape *t, cursor *c, size_t depth, int *ok, silt_error *err);

/*
 * The values most records hold, parsed in a container's loop without the
 * general dispatch: a string, or a positive integer without fraction or
 * exponent. *taken 0 (cursor unmoved) leaves the value to parse_value,
 * which also handles '0', signs, floats, literals and containers. On a
 * string's syntax error *taken is 1 and *ok 0, as parse_value would say.
 */
static inline silt_status parse_simple(json_tape *t, cursor *c, int *taken, int *ok,
                                       silt_error *err)
{
    size_t idx, start = c->pos;
    char ch = c->s[start];
    *taken = 0;
    if (ch == '"') {
        const char *p;
        size_t len;
        int esc, ascii;
        *taken = 1;
        *ok = scan_string(t, c, &p, &len, &esc, &ascii);
        return *ok ? push_str(t, JT_STRING, p, len, esc, ascii, &idx, err) : SILT_OK;
    }
    if (ch >= '1' && ch <= '9') {
        size_t pos = start + 1;
        while (pos < c->len && is_digit(c->s[pos]))
            pos++;
        if (pos < c->len && (c->s[pos] == '.' || c->s[pos] == 'e' || c->s[pos] == 'E'))
            return SILT_OK;
        c->pos = pos;
        *taken = 1;
        *ok = 1;
        return push(t, JT_INT, c->s + start, pos - start, &idx, err);
    }
    return SILT_OK;
}

static silt_status parse_container(json_tape *t, cursor *c, size_t depth, int is_object,
                                   int *ok, silt_error *err)
{
    size_t idx = 0, start = c->pos;
    uint32_t count = 0;
    SILT_RETURN_IF_ERROR(push(t, is_object ? JT_OBJECT : JT_ARRAY, c->s + start, 0, &idx, err));
    if (depth >= t->max_depth) {
        *ok = fail(t, c, "less deeply nested values");
        return SILT_OK;
    }
    c->pos++;
    skip_ws(c);
    char close = is_object ? '}' : ']';
    if (c->pos < c->len && c->s[c->pos] == close) {
        c->pos++;
    } else {
        for (;;) {
            if (is_object) {
                const char *kp;
                size_t klen, kidx = 0;
                int esc, ascii;
                if (!expect(c, '"')) {
                    *ok = fail(t, c, "a field name in double quotes");
                    return SILT_OK;
                }
                if (!scan_string(t, c, &kp, &klen, &esc, &ascii)) {
                    *ok = 0;
                    return SILT_OK;
                }
                SILT_RETURN_IF_ERROR(push_str(t, JT_STRING, kp, klen, esc, ascii, &kidx, err));
                if (!expect(c, ':')) {
                    *ok = fail(t, c, "':' after a field name");
                    return SILT_OK;
                }
                c->pos++;
            }
            int taken = 0;
            skip_ws(c);
            if (c->pos < c->len)
                SILT_RETURN_IF_ERROR(parse_simple(t, c, &taken, ok, err));
            if (!taken)
                SILT_RETURN_IF_ERROR(parse_value(t, c, depth + 1, ok, err));
            if (!*ok)
                return SILT_OK;
            count++;
            if (expect(c, ',')) {
                c->pos++;
                continue;
            }
            if (at(c, close)) {
                c->pos++;
                break;
            }
            *ok = fail(t, c, is_object ? "',' or '}'" : "',' or ']'");
            return SILT_OK;
        }
    }
    t->toks[idx].count = count;
    t->toks[idx].next = (uint32_t)(t->n - t->base);
    t->toks[idx].len = c->pos - start;
    *ok = 1;
    return SILT_OK;
}

static silt_status parse_value(json_tape *t, cursor *c, size_t depth, int *ok, silt_error *err)
{
    size_t idx = 0, start;
    skip_ws(c);
    start = c->pos;
    if (c->pos >= c->len) {
        *ok = fail(t, c, "a value");
        return SILT_OK;
    }
    switch (c->s[c->pos]) {
    case '{':
        return parse_container(t, c, depth, 1, ok, err);
    case '[':
        return parse_container(t, c, depth, 0, ok, err);
    case '"': {
        const char *p;
        size_t len;
        int esc, ascii;
        if (!scan_string(t, c, &p, &len, &esc, &ascii)) {
            *ok = 0;
            return SILT_OK;
        }
        *ok = 1;
        return push_str(t, JT_STRING, p, len, esc, ascii, &idx, err);
    }
    case 't':
        if (match_word(c, "true"))
            return *ok = 1, push(t, JT_TRUE, c->s + start, 4, &idx, err);
        break;
    case 'f':
        if (match_word(c, "false"))
            return *ok = 1, push(t, JT_FALSE, c->s + start, 5, &idx, err);
        break;
    case 'n':
        if (match_word(c, "null"))
            return *ok = 1, push(t, JT_NULL, c->s + start, 4, &idx, err);
        break;
    case 'N':
        if (match_word(c, "NaN"))
            return *ok = 1, push(t, JT_FLOAT, c->s + start, 3, &idx, err);
        break;
    case 'I':
        if (match_word(c, "Infinity"))
            return *ok = 1, push(t, JT_FLOAT, c->s + start, 8, &idx, err);
        break;
    default: {
        int is_float;
        char ch = c->s[c->pos];
        if (ch == '-' || ch == '+' || is_digit(ch)) {
            if (!scan_number(t, c, &is_float)) {
                *ok = 0;
                return SILT_OK;
            }
            *ok = 1;
            return push(t, is_float ? JT_FLOAT : JT_INT, c->s + start, c->pos - start, &idx, err);
        }
        break;
    }
    }
    *ok = fail(t, c, "a value");
    return SILT_OK;
}

static silt_status parse_top(json_tape *t, const char *text, size_t len, int *ok, int *empty,
                             size_t *end_out, silt_error *err)
{
    cursor c = {text, len, 0};
    t->err_what = NULL;
    skip_ws(&c);
    *empty = c.pos >= len;
    *ok = 0;
    if (*empty) {
        *end_out = len;
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(parse_value(t, &c, 0, ok, err));
    *end_out = c.pos;
    return SILT_OK;
}

silt_status json_tape_parse(json_tape *t, const char *text, size_t len, int *ok, int *empty,
                            size_t *end_out, silt_error *err)
{
    t->n = 0;
    t->base = 0;
    return parse_top(t, text, len, ok, empty, end_out, err);
}

silt_status json_tape_parse_append(json_tape *t, const char *text, size_t len, int *ok,
                                   int *empty, size_t *end_out, silt_error *err)
{
    size_t base = t->n;
    t->base = base;
    silt_status rc = parse_top(t, text, len, ok, empty, end_out, err);
    if (rc != SILT_OK || !*ok)
        t->n = base; /* a failed value leaves nothing behind */
    return rc;
}

void json_tape_view(const json_tape *t, size_t first, size_t end, json_tape *view)
{
    *view = *t;
    view->toks = t->toks + first;
    view->n = end - first;
    view->cap = view->n;
    view->base = 0;
}

static unsigned hex_value(const char *s)
{
    unsigned v = 0;
    for (int idx = 0; idx < 4; idx++) {
        char c = s[idx];
        v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

static silt_status put_utf8(buf *out, unsigned cp, silt_error *err)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return buf_append(out, b, n, err);
}

silt_status json_unescape(const char *s, size_t len, buf *out, silt_error *err)
{
    size_t pos = 0;
    while (pos < len) {
        const char *bs = memchr(s + pos, '\\', len - pos);
        size_t run = bs ? (size_t)(bs - (s + pos)) : len - pos;
        SILT_RETURN_IF_ERROR(buf_append(out, s + pos, run, err));
        pos += run;
        if (pos >= len)
            break;
        /* the tape parser validated the escape */
        char e = s[pos + 1];
        if (e == 'u') {
            unsigned cp = hex_value(s + pos + 2);
            pos += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF && pos + 6 <= len && s[pos] == '\\' &&
                s[pos + 1] == 'u') {
                unsigned lo = hex_value(s + pos + 2);
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    pos += 6;
                }
            }
            if (cp >= 0xD800 && cp <= 0xDFFF)
                cp = 0xFFFD; /* a lone surrogate has no UTF-8 form */
            SILT_RETURN_IF_ERROR(put_utf8(out, cp, err));
            continue;
        }
        char c = e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n' : e == 'r' ? '\r'
                 : e == 't' ? '\t' : e;
        SILT_RETURN_IF_ERROR(buf_append_char(out, c, err));
        pos += 2;
    }
    return SILT_OK;
}

size_t json_line_end(const char *data, size_t len, size_t pos)
{
    const char *nl = memchr(data + pos, '\n', len - pos);
    return nl ? (size_t)(nl - data) + 1 : len;
}
