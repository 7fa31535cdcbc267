/*
 * csv_token.c - splits CSV text into records and fields the way Spark's
 * univocity parser does with Spark's default settings (see csv_int.h).
 *
 * The fast path is a line without a quote character (without multiLine):
 * one pass over it classifies 16 bytes at a time (SSE2; 8 with portable
 * word arithmetic elsewhere) into bit masks of separators, quotes, line
 * breaks and bytes >= 0x80, and the fields fall out of the separator bits.
 * A line with a quote anywhere goes the general way: unquoted fields are
 * found with memchr, quoted fields run a byte loop because they must
 * handle escapes. Values that need rewriting (escaped quotes) are built in
 * the scratch buffer; all others point into the input.
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

/* Portable classification of 8 bytes (little-endian load: byte i is bits 8i..8i+7). */
static void classify_word(const csv_tokenizer *t, const unsigned char *p, byte_masks *m)
{
    uint64_t w = 0;
    for (unsigned idx = 0; idx < 8; idx++)
        w |= (uint64_t)p[idx] << (8 * idx);
    m->sep = word_equal_bits(w, (unsigned char)t->opts->sep);
    m->quote = t->opts->quote != '\0' ? word_equal_bits(w, (unsigned char)t->opts->quote) : 0;
    m->eol = word_equal_bits(w, (unsigned char)t->eol);
    m->high = word_high_bits(w);
}

#if defined(__SSE2__)
static void classify_sse2(const csv_tokenizer *t, const unsigned char *p, byte_masks *m)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    m->sep = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(t->opts->sep)));
    m->quote = t->opts->quote != '\0'
                   ? (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(t->opts->quote)))
                   : 0;
    m->eol = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(t->eol)));
    m->high = (uint32_t)_mm_movemask_epi8(v);
}
#define BLOCK_BYTES 16
#else
#define BLOCK_BYTES 8
#endif

/*
 * Classifies the block at p, of which avail bytes are text (a shorter tail
 * is copied into a zeroed block and its masks cut to avail); returns the
 * block's width.
 */
static size_t classify(const csv_tokenizer *t, const char *p, size_t avail, byte_masks *m)
{
    unsigned char tail[BLOCK_BYTES];
    const unsigned char *bytes = (const unsigned char *)p;
    size_t width = t->path == CSV_PATH_WORDS ? 8 : BLOCK_BYTES;
    if (avail < width) {
        memset(tail, 0, sizeof(tail));
        memcpy(tail, p, avail);
        bytes = tail;
    }
#if defined(__SSE2__)
    if (t->path != CSV_PATH_WORDS)
        classify_sse2(t, bytes, m);
    else
#endif
        classify_word(t, bytes, m);
    if (avail < width) {
        uint32_t keep = ((uint32_t)1 << avail) - 1;
        m->sep &= keep;
        m->quote &= keep;
        m->eol &= keep;
        m->high &= keep;
    }
    return width;
}

static int lowest_bit(uint32_t x) { return __builtin_ctz(x); }

/* Appends an unquoted field [from, to) that points into the input; ascii as in csv_field. */
static silt_status add_plain_field(csv_tokenizer *t, const char *from, const char *to, int ascii,
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

/*
 * Tokenizes the record at t->pos when its line holds no quote character
 * (*done = 1); otherwise leaves t as it was apart from the fields (*done =
 * 0) for the general path. Same records and fields as the general path:
 * fields end at separators, the line at the first line break, one '\r'
 * before it is dropped.
 */
static silt_status tokenize_line(csv_tokenizer *t, int *done, silt_error *err)
{
    const char *base = t->data, *end = base + t->len, *rec = base + t->pos;
    const char *field = rec, *block = rec, *line_end = end;
    uint32_t high = 0;
    *done = 0;
    t->n_fields = 0;
    while (block < end) {
        byte_masks m;
        size_t width = classify(t, block, (size_t)(end - block), &m);
        uint32_t before = m.eol ? (m.eol & (0u - m.eol)) - 1 : ~(uint32_t)0;
        if (m.quote & before)
            return SILT_OK;
        for (uint32_t seps = m.sep & before; seps != 0; seps &= seps - 1) {
            int pos = lowest_bit(seps);
            /* ASCII when no byte of the line so far is >= 0x80 (a field after the
             * first such byte is not marked, and is validated by the conversion) */
            int ascii = (high | (m.high & (((uint32_t)1 << pos) - 1))) == 0;
            SILT_RETURN_IF_ERROR(add_plain_field(t, field, block + pos, ascii, err));
            field = block + pos + 1;
        }
        high |= m.high & before;
        if (m.eol) {
            line_end = block + lowest_bit(m.eol);
            break;
        }
        block += width;
    }
    const char *stop = line_end > rec && line_end[-1] == '\r' ? line_end - 1 : line_end;
    SILT_RETURN_IF_ERROR(add_plain_field(t, field, stop, high == 0, err));
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
