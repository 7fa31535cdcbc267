/*
 * csv_token.c - splits CSV text into records and fields the way Spark's
 * univocity parser does with Spark's default settings (see csv_int.h).
 *
 * The fast path takes a line (without multiLine) by byte masks: one pass
 * classifies 16 bytes at a time (SSE2; 8 with portable word arithmetic
 * elsewhere) into bit masks of separators, quotes, line breaks, bytes >=
 * 0x80 and the characters that matter inside quotes, and the fields fall
 * out of the bits. Quoted fields in their plain form are taken there too
 * (see line_state); a line with anything else inside quotes goes the
 * general way: unquoted fields are found with memchr, quoted fields run a
 * byte loop because they must handle escapes. Values that need rewriting
 * (escaped quotes) are built in the scratch buffer; all others point into
 * the input.
 */
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "formats/csv/csv_int.h"
#include "util/mem.h"

void csv_tokenizer_init(csv_tokenizer *t, const csv_options *opts, const char *data, size_t len)
{
    memset(t, 0, sizeof(*t));
    t->opts = opts;
    t->data = data;
    t->len = len;
    t->eol = '\n';
    buf_init(&t->scratch, 0);
}

void csv_tokenizer_clear(csv_tokenizer *t)
{
    mem_free(t->fields);
    buf_clear(&t->scratch);
    t->fields = NULL;
}

static silt_status push_field(csv_tokenizer *t, csv_field **out, silt_error *err)
{
    if (t->n_fields == t->cap_fields) {
        size_t new_cap = t->cap_fields ? t->cap_fields * 2 : 32;
        csv_field *grown = mem_realloc(t->fields, new_cap * sizeof(csv_field));
        if (grown == NULL)
            return err_nomem(err);
        t->fields = grown;
        t->cap_fields = new_cap;
    }
    *out = &t->fields[t->n_fields++];
    memset(*out, 0, sizeof(**out));
    return SILT_OK;
}

static int is_eol(char c) { return c == '\n' || c == '\r'; }

/* End of an unquoted field starting at p: the separator or the record end. */
static const char *unquoted_end(const csv_options *o, const char *p, const char *end)
{
    if (!o->multi_line) {
        const char *sep = memchr(p, o->sep, (size_t)(end - p));
        return sep ? sep : end;
    }
    while (p < end && *p != o->sep && !is_eol(*p))
        p++;
    return p;
}

/*
 * Parses a quoted field whose opening quote is at *pp. On return *pp is
 * just after the field (at the separator or record end). Sets *raw when the
 * closing quote is not followed by a separator or line end: the caller then
 * takes the raw text up to the next separator, as univocity does.
 */
static silt_status parse_quoted(csv_tokenizer *t, const char **pp, const char *end, csv_field *f,
                                int *raw, silt_error *err)
{
    const csv_options *o = t->opts;
    const char *start = *pp + 1, *p = start;
    int copying = 0;
    size_t off = t->scratch.len;
    *raw = 0;
    while (p < end) {
        char c = *p;
        if (c == o->escape && o->escape != o->quote && p + 1 < end &&
            (p[1] == o->quote || p[1] == o->escape)) {
            if (!copying) {
                SILT_RETURN_IF_ERROR(buf_append(&t->scratch, start, (size_t)(p - start), err));
                copying = 1;
            }
            SILT_RETURN_IF_ERROR(buf_append_char(&t->scratch, p[1], err));
            p += 2;
            continue;
        }
        if (c == o->quote) {
            if (o->escape == o->quote && p + 1 < end && p[1] == o->quote) {
                if (!copying) {
                    SILT_RETURN_IF_ERROR(buf_append(&t->scratch, start, (size_t)(p - start), err));
                    copying = 1;
                }
                SILT_RETURN_IF_ERROR(buf_append_char(&t->scratch, c, err));
                p += 2;
                continue;
            }
            if (p + 1 < end && p[1] != o->sep && !is_eol(p[1])) {
                *raw = 1;
                t->scratch.len = off;
                return SILT_OK;
            }
            break;
        }
        if (!o->multi_line && is_eol(c))
            break;
        if (c == '\r' && p + 1 < end && p[1] == '\n') {
            /* univocity normalizes line endings inside quotes to \n. */
            if (!copying) {
                SILT_RETURN_IF_ERROR(buf_append(&t->scratch, start, (size_t)(p - start), err));
                copying = 1;
            }
            p++;
            continue;
        }
        if (copying)
            SILT_RETURN_IF_ERROR(buf_append_char(&t->scratch, c, err));
        p++;
    }
    f->quoted = 1;
    if (copying) {
        f->in_scratch = 1;
        f->scratch_off = off;
        f->len = t->scratch.len - off;
    } else {
        f->ptr = start;
        f->len = (size_t)(p - start);
    }
    *pp = p < end ? p + 1 : end; /* past the closing quote */
    return SILT_OK;
}

/* Skips the line break at p (\n, \r\n or \r); returns the new position. */
static size_t skip_eol(const char *data, size_t len, size_t pos)
{
    if (pos < len && data[pos] == '\r')
        pos++;
    if (pos < len && data[pos] == '\n')
        pos++;
    return pos;
}

/* ---- the line fast path ---- */

/* Bit i is set when byte i of a block is of the class. */
typedef struct byte_masks {
    uint32_t sep, quote, eol, high;
    uint32_t special; /* '\r' and the escape character: inside quotes the line goes the general way */
} byte_masks;

#define WORD_ONES UINT64_C(0x0101010101010101)
#define WORD_LOW7 (WORD_ONES * 0x7F)
#define WORD_HIGH (WORD_ONES * 0x80)

/* One bit per byte of w equal to c (exact: no false hits next to a match). */
static uint32_t word_equal_bits(uint64_t w, unsigned char c)
{
    uint64_t v = w ^ (WORD_ONES * c);
    uint64_t zero = ~(((v & WORD_LOW7) + WORD_LOW7) | v) & WORD_HIGH;
    /* gathers the top bit of each byte into the low byte, byte i -> bit i */
    return (uint32_t)(((zero >> 7) * UINT64_C(0x0102040810204080)) >> 56);
}

static uint32_t word_high_bits(uint64_t w)
{
    return (uint32_t)((((w & WORD_HIGH) >> 7) * UINT64_C(0x0102040810204080)) >> 56);
}

/*
 * The byte classes of a tokenizer's options, made once per line rather
 * than once per block: the per-block work is then only compares.
 */
typedef struct classifier {
    int words;    /* CSV_PATH_WORDS, or no SSE2: 8-byte portable words */
    int specials; /* quoting is on: '\r' and the escape character are classified */
    int escape;   /* the escape character is classified (it is set and not the quote) */
    unsigned char sep, quote, eol, esc;
#if defined(__SSE2__)
    __m128i v_sep, v_quote, v_eol, v_cr, v_esc;
#endif
} classifier;

static void classifier_init(const csv_tokenizer *t, classifier *c)
{
    const csv_options *o = t->opts;
    memset(c, 0, sizeof(*c));
    c->sep = (unsigned char)o->sep;
    c->quote = (unsigned char)o->quote;
    c->eol = (unsigned char)t->eol;
    c->esc = (unsigned char)o->escape;
    c->specials = o->quote != '\0';
    c->escape = c->specials && o->escape != '\0' && o->escape != o->quote;
#if defined(__SSE2__)
    c->words = t->path == CSV_PATH_WORDS;
    c->v_sep = _mm_set1_epi8(o->sep);
    c->v_quote = _mm_set1_epi8(o->quote);
    c->v_eol = _mm_set1_epi8(t->eol);
    c->v_cr = _mm_set1_epi8('\r');
    c->v_esc = _mm_set1_epi8(o->escape);
#else
    c->words = 1;
#endif
}

/* Portable classification of 8 bytes (little-endian load: byte i is bits 8i..8i+7). */
static void classify_word(const classifier *c, const unsigned char *p, byte_masks *m)
{
    uint64_t w;
    memcpy(&w, p, sizeof(w));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    m->sep = word_equal_bits(w, c->sep);
    m->quote = c->specials ? word_equal_bits(w, c->quote) : 0;
    m->eol = word_equal_bits(w, c->eol);
    m->high = word_high_bits(w);
    m->special = 0;
    if (c->specials) { /* every block: a quoted field may span blocks */
        m->special = word_equal_bits(w, '\r');
        if (c->escape)
            m->special |= word_equal_bits(w, c->esc);
    }
}

#if defined(__SSE2__)
static void classify_sse2(const classifier *c, const unsigned char *p, byte_masks *m)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    m->sep = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, c->v_sep));
    m->eol = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, c->v_eol));
    m->high = (uint32_t)_mm_movemask_epi8(v);
    m->quote = 0;
    m->special = 0;
    if (c->specials) { /* every block: a quoted field may span blocks */
        __m128i special = _mm_cmpeq_epi8(v, c->v_cr);
        m->quote = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, c->v_quote));
        if (c->escape)
            special = _mm_or_si128(special, _mm_cmpeq_epi8(v, c->v_esc));
        m->special = (uint32_t)_mm_movemask_epi8(special);
    }
}
#define BLOCK_BYTES 16
#else
#define BLOCK_BYTES 8
#endif

static size_t block_width(const classifier *c) { return c->words ? 8 : BLOCK_BYTES; }

/* Classifies a whole block at p (block_width bytes of text). */
static void classify_block(const classifier *c, const unsigned char *p, byte_masks *m)
{
#if defined(__SSE2__)
    if (!c->words) {
        classify_sse2(c, p, m);
        return;
    }
#endif
    classify_word(c, p, m);
}

/*
 * Classifies the block at p, of which avail bytes are text (a shorter tail
 * is copied into a zeroed block and its masks cut to avail); returns the
 * block's width.
 */
static size_t classify(const classifier *c, const char *p, size_t avail, byte_masks *m)
{
    unsigned char tail[BLOCK_BYTES];
    size_t width = block_width(c);
    if (avail >= width) {
        classify_block(c, (const unsigned char *)p, m);
        return width;
    }
    memset(tail, 0, sizeof(tail));
    memcpy(tail, p, avail);
    classify_block(c, tail, m);
    uint32_t keep = ((uint32_t)1 << avail) - 1;
    m->sep &= keep;
    m->quote &= keep;
    m->eol &= keep;
    m->high &= keep;
    m->special &= keep;
    return width;
}

static int lowest_bit(uint32_t x) { return __builtin_ctz(x); }

/*
 * Appends an unquoted field [from, to) that points into the input; ascii as
 * in csv_field. Inlined: it runs once per field of every line.
 */
static inline __attribute__((always_inline)) silt_status add_plain_field(csv_tokenizer *t, const char *from, const char *to, int ascii,
                                   silt_error *err)
{
    csv_field *f = NULL;
    if (t->n_fields == t->cap_fields)
        SILT_RETURN_IF_ERROR(push_field(t, &f, err));
    else
        f = &t->fields[t->n_fields++];
    f->ptr = from;
    f->len = (size_t)(to - from);
    f->scratch_off = 0;
    f->quoted = 0;
    f->in_scratch = 0;
    f->ascii = (uint8_t)ascii;
    return SILT_OK;
}

/* Appends a quoted field [from, to) (the text between its quotes, which needed no rewriting). */
static silt_status add_quoted_field(csv_tokenizer *t, const char *from, const char *to, int ascii,
                                    silt_error *err)
{
    SILT_RETURN_IF_ERROR(add_plain_field(t, from, to, ascii, err));
    t->fields[t->n_fields - 1].quoted = 1;
    return SILT_OK;
}

/*
 * Where the line path stands between blocks. A quoted field is taken here
 * only in its plain form: an opening quote at the field's start, text
 * without the escape character or '\r', and a closing quote followed by the
 * separator or the line's end. It turns raw (univocity's STOP_AT_DELIMITER)
 * when the closing quote is followed by anything else, and that too is
 * taken here while no separator fell inside the quotes. Everything else
 * (escapes, doubled quotes when the escape is the quote, a quote left open
 * at the line's end, a lone '\r') goes back to the general path, which
 * gives the same fields for all of it.
 */
typedef struct line_state {
    const char *field;     /* start of the current field (its opening quote if it has one) */
    const char *open;      /* inside a quoted field: just past its opening quote; else NULL */
    const char *skip_sep;  /* the separator right after a closing quote: it ends no new field */
    int closed;            /* the line's last field ended at its closing quote */
    int sep_in_quotes;     /* a separator fell inside the open quoted field */
    uint32_t high;         /* a byte >= 0x80 was seen before the current block */
} line_state;

/* Quotes are taken on the line path only with a '\n' line break and a quote unlike the rest. */
static int quotes_on_line_path(const csv_tokenizer *t)
{
    const csv_options *o = t->opts;
    return t->eol == '\n' && o->quote != o->sep && o->quote != '\n' && o->quote != '\r';
}

/*
 * The closing quote at q of the open field: emits the field, or turns it
 * raw. *bail is set when the general path must take the line.
 */
static silt_status close_quote(csv_tokenizer *t, line_state *st, const char *q, int ascii,
                               int *bail, silt_error *err)
{
    const char *end = t->data + t->len;
    const csv_options *o = t->opts;
    char next = q + 1 < end ? q[1] : '\n';
    if (next == o->sep || next == '\n' ||
        (next == '\r' && (q + 2 >= end || q[2] == '\n'))) {
        SILT_RETURN_IF_ERROR(add_quoted_field(t, st->open, q, ascii, err));
        st->open = NULL;
        if (next == o->sep)
            st->skip_sep = q + 1;
        else
            st->closed = 1;
        return SILT_OK;
    }
    if (next == '\r' || (next == o->quote && o->escape == o->quote) || st->sep_in_quotes) {
        *bail = 1;
        return SILT_OK;
    }
    st->open = NULL; /* raw: the field runs on, from its opening quote, to the next separator */
    return SILT_OK;
}

/* The events (separators, quotes, specials) of one block that is not quote-free. */
static silt_status line_events(csv_tokenizer *t, line_state *st, const char *block,
                               const byte_masks *m, uint32_t before, int *bail, silt_error *err)
{
    uint32_t events = (m->sep | m->quote | m->special) & before;
    while (events != 0) {
        int pos = lowest_bit(events);
        uint32_t bit = (uint32_t)1 << pos;
        const char *at = block + pos;
        int ascii = (st->high | (m->high & (bit - 1))) == 0;
        events &= events - 1;
        if (st->open != NULL) {
            if (m->quote & bit) {
                SILT_RETURN_IF_ERROR(close_quote(t, st, at, ascii, bail, err));
                if (*bail)
                    return SILT_OK;
            } else if (m->sep & bit) {
                st->sep_in_quotes = 1;
            } else {
                *bail = 1; /* '\r' or the escape character inside quotes */
                return SILT_OK;
            }
        } else if (m->sep & bit) {
            if (at != st->skip_sep)
                SILT_RETURN_IF_ERROR(add_plain_field(t, st->field, at, ascii, err));
            st->skip_sep = NULL;
            st->field = at + 1;
        } else if ((m->quote & bit) && at == st->field && st->skip_sep == NULL) {
            if (!quotes_on_line_path(t)) {
                *bail = 1;
                return SILT_OK;
            }
            st->open = at + 1;
            st->sep_in_quotes = 0;
        }
        /* a quote inside an unquoted field is text, and so are specials outside quotes */
    }
    return SILT_OK;
}

/*
 * Tokenizes the record at t->pos by byte masks (*done = 1), or leaves it
 * to the general path (*done = 0, fields to be rebuilt there) when its
 * quoting is not of the plain form line_state describes. Same records and
 * fields as the general path: fields end at separators, the line at the
 * first line break, one '\r' before it is dropped.
 */
static silt_status tokenize_line(csv_tokenizer *t, int *done, silt_error *err)
{
    const char *base = t->data, *end = base + t->len, *rec = base + t->pos;
    const char *block = rec, *line_end = end;
    line_state st = {rec, NULL, NULL, 0, 0, 0};
    classifier c;
    classifier_init(t, &c);
    *done = 0;
    t->n_fields = 0;
    while (block < end) {
        byte_masks m;
        int bail = 0;
        size_t width = classify(&c, block, (size_t)(end - block), &m);
        uint32_t before = m.eol ? (m.eol & (0u - m.eol)) - 1 : ~(uint32_t)0;
        if (st.open == NULL && st.skip_sep == NULL && (m.quote & before) == 0) {
            for (uint32_t seps = m.sep & before; seps != 0; seps &= seps - 1) {
                int pos = lowest_bit(seps);
                /* ASCII when no byte of the line so far is >= 0x80 (a field after the
                 * first such byte is not marked, and is validated by the conversion) */
                int ascii = (st.high | (m.high & (((uint32_t)1 << pos) - 1))) == 0;
                SILT_RETURN_IF_ERROR(add_plain_field(t, st.field, block + pos, ascii, err));
                st.field = block + pos + 1;
            }
        } else {
            SILT_RETURN_IF_ERROR(line_events(t, &st, block, &m, before, &bail, err));
            if (bail)
                return SILT_OK;
        }
        st.high |= m.high & before;
        if (m.eol) {
            line_end = block + lowest_bit(m.eol);
            break;
        }
        block += width;
    }
    if (st.open != NULL)
        return SILT_OK; /* a quote still open at the line's end */
    const char *stop = line_end > rec && line_end[-1] == '\r' ? line_end - 1 : line_end;
    if (!st.closed)
        SILT_RETURN_IF_ERROR(add_plain_field(t, st.field, stop, st.high == 0, err));
    t->rec_start = t->pos;
    t->rec_len = (size_t)(stop - rec);
    t->pos = line_end < end ? (size_t)(line_end - base) + 1 : t->len;
    *done = 1;
    return SILT_OK;
}

/* ---- the general path ---- */

/* Tokenizes one record starting at t->pos (not an empty line). */
static silt_status tokenize(csv_tokenizer *t, silt_error *err)
{
    const csv_options *o = t->opts;
    const char *base = t->data, *end = base + t->len, *p = base + t->pos;
    if (!o->multi_line) {
        const char *nl = memchr(p, t->eol, (size_t)(end - p));
        end = nl ? nl : end;
        if (end > p && end[-1] == '\r')
            end--;
    }
    t->n_fields = 0;
    buf_truncate(&t->scratch, 0);
    for (;;) {
        csv_field *f = NULL;
        int raw = 0;
        SILT_RETURN_IF_ERROR(push_field(t, &f, err));
        if (o->quote != '\0' && p < end && *p == o->quote) {
            const char *field_start = p;
            SILT_RETURN_IF_ERROR(parse_quoted(t, &p, end, f, &raw, err));
            if (raw) {
                p = unquoted_end(o, field_start, end);
                f->ptr = field_start;
                f->len = (size_t)(p - field_start);
            }
        } else {
            const char *fe = unquoted_end(o, p, end);
            f->ptr = p;
            f->len = (size_t)(fe - p);
            p = fe;
        }
        if (p < end && *p == o->sep) {
            p++;
            continue;
        }
        break;
    }
    t->rec_start = t->pos;
    t->rec_len = (size_t)(p - (base + t->pos));
    if (!o->multi_line) {
        const char *nl = memchr(p, t->eol, (size_t)(base + t->len - p));
        t->pos = nl ? (size_t)(nl - base) + 1 : t->len;
    } else {
        /* Anything left before the line end (after a closing quote) is dropped. */
        while (p < end && !is_eol(*p))
            p++;
        t->pos = skip_eol(base, t->len, (size_t)(p - base));
    }
    for (size_t idx = 0; idx < t->n_fields; idx++)
        if (t->fields[idx].in_scratch)
            t->fields[idx].ptr = t->scratch.data + t->fields[idx].scratch_off;
    return SILT_OK;
}

/* Spark drops lines that are empty after trim (CSVUtils.filterCommentAndEmpty). */
static int blank_line(const csv_tokenizer *t, size_t *next)
{
    size_t pos = t->pos;
    while (pos < t->len && (unsigned char)t->data[pos] <= ' ' && !is_eol(t->data[pos]))
        pos++;
    if (pos < t->len && !is_eol(t->data[pos]))
        return 0;
    *next = skip_eol(t->data, t->len, pos);
    return 1;
}

silt_status csv_tokenizer_next(csv_tokenizer *t, int *got, silt_error *err)
{
    for (;;) {
        size_t next;
        if (t->pos >= t->len) {
            *got = 0;
            return SILT_OK;
        }
        char c = t->data[t->pos];
        if ((unsigned char)c <= ' ' && blank_line(t, &next)) {
            t->pos = next;
            continue;
        }
        if (t->opts->comment != '\0' && c == t->opts->comment) {
            const char *nl = memchr(t->data + t->pos, t->eol, t->len - t->pos);
            t->pos = nl ? (size_t)(nl - t->data) + 1 : t->len;
            continue;
        }
        break;
    }
    *got = 1;
    if (!t->opts->multi_line && t->path != CSV_PATH_GENERAL) {
        int done;
        SILT_RETURN_IF_ERROR(tokenize_line(t, &done, err));
        if (done)
            return SILT_OK;
    }
    return tokenize(t, err);
}

char csv_detect_eol(const char *data, size_t len)
{
    if (memchr(data, '\n', len) == NULL && memchr(data, '\r', len) != NULL)
        return '\r';
    return '\n';
}

size_t csv_record_end(const csv_options *o, char eol, const char *data, size_t len, size_t pos)
{
    int complete;
    if (!o->multi_line || o->quote == '\0') {
        const char *nl = memchr(data + pos, o->multi_line ? '\n' : eol, len - pos);
        return nl ? (size_t)(nl - data) + 1 : len;
    }
    return csv_record_end_checked(o, data, len, pos, &complete);
}

size_t csv_record_end_checked(const csv_options *o, const char *data, size_t len, size_t pos,
                              int *complete)
{
    /* Quote-aware: a quote opening a field starts a quoted run that ends at
     * an unescaped quote; line breaks outside quotes end the record. */
    int at_field_start = 1;
    *complete = 0;
    while (pos < len) {
        char c = data[pos];
        if (at_field_start && c == o->quote) {
            pos++;
            while (pos < len) {
                if (data[pos] == o->escape && o->escape != o->quote && pos + 1 < len &&
                    (data[pos + 1] == o->quote || data[pos + 1] == o->escape)) {
                    pos += 2;
                    continue;
                }
                if (data[pos] == o->quote) {
                    if (o->escape == o->quote && pos + 1 < len && data[pos + 1] == o->quote) {
                        pos += 2;
                        continue;
                    }
                    break;
                }
                pos++;
            }
            if (pos >= len)
                return len; /* the quote is still open */
            pos++;
            at_field_start = 0;
            continue;
        }
        if (c == '\n') {
            *complete = 1;
            return pos + 1;
        }
        if (c == '\r') {
            size_t next = skip_eol(data, len, pos);
            *complete = next < len || (next == pos + 2);
            return next;
        }
        at_field_start = c == o->sep;
        pos++;
    }
    return len;
}
