/*
 * The CSV reader's fast paths (session 5) against the general code they
 * stand for: the quote-free line tokenizer (SSE2 and portable word masks)
 * against the memchr/byte-loop tokenizer, on edge cases and on random
 * text; the word-at-a-time timestamp parser and its date memo against the
 * general timestamp parser; integers of up to 9 digits without overflow
 * checks against the checked parser.
 */
#include <stdio.h>
#include <string.h>

#include "formats/csv/csv_int.h"
#include "test.h"
#include "util/buf.h"
#include "util/time.h"
#include "util/time_zone.h"

static const int paths[] = {CSV_PATH_FAST, CSV_PATH_WORDS, CSV_PATH_GENERAL};

/*
 * Tokenizes text with one path into out: a line per record, "start+len:"
 * then its fields as [bytes] (<hh> for bytes outside printable ASCII), q
 * after quoted ones; a field marked ascii must be ASCII (checked here).
 */
static void tokenize_all(const csv_options *o, const char *text, size_t len, int path, buf *out)
{
    silt_error err = SILT_ERROR_INIT;
    csv_tokenizer t;
    int got = 1;
    csv_tokenizer_init(&t, o, text, len);
    t.eol = csv_detect_eol(text, len);
    t.path = path;
    buf_truncate(out, 0);
    for (;;) {
        check_ok(csv_tokenizer_next(&t, &got, &err), &err);
        if (!got)
            break;
        check_ok(buf_printf(out, &err, "%zu+%zu:", t.rec_start, t.rec_len), &err);
        for (size_t idx = 0; idx < t.n_fields; idx++) {
            const csv_field *f = &t.fields[idx];
            if (f->ascii)
                for (size_t pos = 0; pos < f->len; pos++)
                    check((unsigned char)f->ptr[pos] < 0x80);
            check_ok(buf_append_char(out, '[', &err), &err);
            for (size_t pos = 0; pos < f->len; pos++) {
                unsigned char c = (unsigned char)f->ptr[pos];
                if (c >= 0x20 && c < 0x7f)
                    check_ok(buf_append_char(out, (char)c, &err), &err);
                else
                    check_ok(buf_printf(out, &err, "<%02x>", c), &err);
            }
            check_ok(buf_printf(out, &err, "]%s", f->quoted ? "q" : ""), &err);
        }
        check_ok(buf_append_char(out, '\n', &err), &err);
    }
    csv_tokenizer_clear(&t);
}

/* Every path gives the same records and fields as the general one; returns them. */
static const char *agree(const csv_options *o, const char *text, size_t len)
{
    static buf want = BUF_INIT;
    buf got = BUF_INIT;
    tokenize_all(o, text, len, CSV_PATH_GENERAL, &want);
    for (size_t idx = 0; idx < sizeof(paths) / sizeof(paths[0]); idx++) {
        tokenize_all(o, text, len, paths[idx], &got);
        if (strcmp(buf_cstr(&want), buf_cstr(&got)) != 0)
            test_fail(__FILE__, __LINE__, "path %d on \"%.*s\": want \"%s\", got \"%s\"",
                      paths[idx], (int)len, text, buf_cstr(&want), buf_cstr(&got));
    }
    buf_clear(&got);
    return buf_cstr(&want);
}

static void expect_fields(const char *text, const char *fields)
{
    csv_options o;
    csv_options_init(&o);
    check_str(fields, agree(&o, text, strlen(text)));
}

void test_formats_csv_fast__line_edges(void)
{
    expect_fields("a,b,c\n", "0+5:[a][b][c]\n");
    expect_fields("a,,c\n,\n", "0+4:[a][][c]\n5+1:[][]\n");
    expect_fields("abc", "0+3:[abc]\n");                    /* no final line break */
    expect_fields("a,b\r\n", "0+3:[a][b]\n");               /* CRLF */
    expect_fields("a,b\r\r\nc\n", "0+4:[a][b<0d>]\n6+1:[c]\n"); /* only one CR is dropped */
    expect_fields("a,\r\n", "0+2:[a][]\n");
    expect_fields("a\rb,c\n", "0+5:[a<0d>b][c]\n");           /* a lone CR inside a line */
    /* separators at and around the 8- and 16-byte block edges */
    expect_fields("0123456,89abcde,0123456789abcdef,\n",
                  "0+33:[0123456][89abcde][0123456789abcdef][]\n");
    expect_fields(",,,,,,,,,,,,,,,,,\n", "0+17:[][][][][][][][][][][][][][][][][][]\n");
    expect_fields("0123456789abcdef\n0123456789abcde\n",
                  "0+16:[0123456789abcdef]\n17+15:[0123456789abcde]\n");
    /* quotes: the line goes the general way; a quote on the next line changes nothing here */
    expect_fields("a,\"b,c\",d\n", "0+9:[a][b,c]q[d]\n");
    expect_fields("a,b\n\"q\"\n", "0+3:[a][b]\n4+3:[q]q\n");
    expect_fields("x,y\"z\n", "0+5:[x][y\"z]\n");           /* a quote inside a field is text */
    expect_fields("a,\"\"\n", "0+4:[a][]q\n");              /* quoted empty */
    expect_fields("a,\"b\\\"c\"\n", "0+8:[a][b\"c]q\n");     /* escaped quote */
    /* blank lines are skipped, whitespace-only too */
    expect_fields("\n\na\n  \nb\n", "2+1:[a]\n7+1:[b]\n");
    /* non-ASCII fields are never marked ascii (tokenize_all checks it) */
    expect_fields("\xc3\xa9,b,\xff\n", "0+6:[<c3><a9>][b][<ff>]\n");
}

void test_formats_csv_fast__carriage_return_files_and_options(void)
{
    csv_options o;
    csv_options_init(&o);
    check_str("0+3:[a][b]\n4+3:[c][d]\n", agree(&o, "a,b\rc,d\r", 8));
    o.sep = ';';
    check_str("0+6:[a,b][c][]\n", agree(&o, "a,b;c;\n", 7));
    o.sep = ',';
    o.quote = '\0'; /* quoting off: quotes are text, NUL bytes too */
    check_str("0+7:[\"a][b\"][<00>]\n", agree(&o, "\"a,b\",\0\n", 8));
    o.quote = '\'';
    check_str("0+9:[a][b,c]q[\"]\n", agree(&o, "a,'b,c',\"\n", 10));
    o.quote = '"';
    o.comment = '#';
    check_str("5+3:[a][b]\n", agree(&o, "#x,y\na,b\n", 9));
}

/* Random lines over the characters that matter: every path agrees on all of them. */
void test_formats_csv_fast__random_text_agrees_with_general_path(void)
{
    static const char alphabet[] = {'a', 'b', ',', ',', ';', '"', '\\', '\n', '\n', '\r',
                                    ' ', '#', '\'', (char)0xc3, (char)0xa9, '\0'};
    char text[200];
    uint64_t seed = 12345;
    for (int round = 0; round < 4000; round++) {
        csv_options o;
        size_t len;
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        len = (size_t)(seed >> 33) % sizeof(text);
        for (size_t idx = 0; idx < len; idx++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            /* mostly letters, so that lines are long enough to span blocks */
            unsigned pick = (unsigned)(seed >> 40) % 40;
            text[idx] = pick < sizeof(alphabet) ? alphabet[pick] : (char)('a' + pick % 26);
        }
        csv_options_init(&o);
        if (round % 4 == 1)
            o.quote = '\0';
        if (round % 4 == 2)
            o.sep = ';';
        if (round % 4 == 3)
            o.comment = '#';
        agree(&o, text, len);
    }
}

/*
 * Records built of quoted and plain fields, the shape real files have
 * (names with commas, doubled and escaped quotes, CRLF, text after a
 * closing quote, quotes left open, separators inside quotes), across block
 * edges and with the escape being the quote or none: the line path's
 * quoted fields agree with the general path on all of them.
 */
void test_formats_csv_fast__quoted_records_agree_with_general_path(void)
{
    static const char inner[] = {'a', 'b', ',', '"', '\\', '\r', ' ', (char)0xc3, (char)0xa9, ';'};
    char text[400];
    uint64_t seed = 99;
    for (int round = 0; round < 6000; round++) {
        csv_options o;
        size_t len = 0;
        csv_options_init(&o);
        if (round % 5 == 1)
            o.escape = '"';
        if (round % 5 == 2)
            o.escape = '\0';
        if (round % 5 == 3)
            o.sep = ';';
        for (int line = 0; line < 4 && len < sizeof(text) - 80; line++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            int fields = 1 + (int)((seed >> 33) % 8);
            for (int fi = 0; fi < fields && len < sizeof(text) - 40; fi++) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                unsigned kind = (unsigned)(seed >> 60);
                int flen = (int)((seed >> 20) % 24);
                if (fi > 0)
                    text[len++] = o.sep;
                if (kind < 9)
                    text[len++] = '"';
                for (int ci = 0; ci < flen; ci++) {
                    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                    unsigned pick = (unsigned)(seed >> 40) % 64;
                    /* mostly letters; specials often enough to meet every case */
                    text[len++] = pick < sizeof(inner) ? inner[pick] : (char)('a' + pick % 26);
                }
                if (kind < 8)
                    text[len++] = '"';
                if (kind == 0) /* text after the closing quote: raw */
                    text[len++] = 'x';
            }
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            if ((seed >> 62) == 0)
                text[len++] = '\r';
            text[len++] = '\n';
        }
        agree(&o, text, len);
    }
}

/* ---- timestamps ---- */

/* csv_parse_timestamp_memo (with a memo used before) equals the general parser, accepted or not. */
static void check_timestamp(csv_date_memo *memo, const char *text)
{
    csv_options o;
    int64_t fast = 0, slow = 0;
    int fast_ok, slow_ok;
    csv_options_init(&o);
    fast_ok = csv_parse_timestamp_memo(&o, memo, text, strlen(text), &fast);
    slow_ok = time_parse_timestamp(text, strlen(text), &slow, NULL);
    if (fast_ok != slow_ok || (fast_ok && fast != slow))
        test_fail(__FILE__, __LINE__, "\"%s\": fast %d %lld, general %d %lld", text, fast_ok,
                  (long long)fast, slow_ok, (long long)slow);
}

void test_formats_csv_fast__timestamps_agree_with_general_parser(void)
{
    static const char *const texts[] = {
        "2022-01-31 05:49:39", "2022-01-31 23:59:59", "2022-02-01 00:00:00", /* date changes */
        "2022-01-31 05:49:39", "2022-01-31T05:49:39", "2024-02-29 12:00:00", /* leap day */
        "2023-02-29 12:00:00", "2023-02-30 00:00:00", "2022-04-31 00:00:00", /* invalid dates */
        "2022-00-10 00:00:00", "2022-13-10 00:00:00", "2022-01-00 00:00:00",
        "2022-01-31 23:59:60", "2022-01-31 24:00:00", "2022-01-31 23:60:00", /* leap second */
        "2022-01-31 05:49:39.5", "2022-01-31 05:49:39.123456789",          /* fractions */
        "2022-01-31 05:49:39Z", "2022-01-31 05:49:39+02:00", "2022-01-31 05:49:39-0130",
        "2022-01-31 05:49",     "2022-01-31 5:49:39",  "2022-1-31 05:49:39",
        "10000-01-01 00:00:00", "+2022-01-31 05:49:39", "-0001-01-01 00:00:00", /* years */
        "0000-01-01 00:00:00",  "9999-12-31 23:59:59", "1969-12-31 23:59:59",
        "2022-01-31X05:49:39",  "2022/01/31 05:49:39", "2022-01-31 05-49-39",
        " 2022-01-31 05:49:39", "2022-01-31 05:49:3 ", "",
    };
    csv_date_memo memo;
    memset(&memo, 0, sizeof(memo));
    for (size_t idx = 0; idx < sizeof(texts) / sizeof(texts[0]); idx++) {
        check_timestamp(&memo, texts[idx]);
        check_timestamp(NULL, texts[idx]);
    }
}

/* Every digit position replaced by a byte just outside '0'-'9', a letter or a high byte. */
void test_formats_csv_fast__timestamp_digit_checks(void)
{
    static const char base[] = "2022-01-31 05:49:39";
    static const char bad[] = {'/', ':', 'a', ' ', (char)0x80, (char)0xb1, '\0'};
    csv_date_memo memo;
    memset(&memo, 0, sizeof(memo));
    for (size_t pos = 0; pos < sizeof(base) - 1; pos++) {
        for (size_t b = 0; b < sizeof(bad); b++) {
            char text[sizeof(base)];
            int64_t v;
            memcpy(text, base, sizeof(base));
            check_timestamp(&memo, base); /* the memo holds this date */
            text[pos] = bad[b];
            csv_options o;
            csv_options_init(&o);
            int fast_ok = csv_parse_timestamp_memo(&o, &memo, text, sizeof(base) - 1, &v);
            int64_t slow;
            int slow_ok = time_parse_timestamp(text, sizeof(base) - 1, &slow, NULL);
            if (fast_ok != slow_ok || (fast_ok && v != slow))
                test_fail(__FILE__, __LINE__, "byte %zu = 0x%02x: fast %d, general %d", pos,
                          (unsigned char)bad[b], fast_ok, slow_ok);
        }
    }
}

/* The memo holds a date, not a guess: rows of many dates in any order. */
void test_formats_csv_fast__date_memo_across_rows(void)
{
    csv_date_memo memo;
    uint64_t seed = 7;
    memset(&memo, 0, sizeof(memo));
    for (int row = 0; row < 20000; row++) {
        char text[32];
        int64_t days;
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        /* runs of a few rows per date, dates from 1900 to 2100, some invalid days */
        days = (int64_t)((seed >> 40) % 73000) - 25567;
        if (row % 3 != 0) {
            int64_t year;
            unsigned month, day;
            time_civil_from_days(days, &year, &month, &day);
            snprintf(text, sizeof(text), "%04lld-%02u-%02u %02u:%02u:%02u", (long long)year, month,
                     row % 17 == 0 ? 31u : day, (unsigned)(seed >> 20) % 24,
                     (unsigned)(seed >> 28) % 60, (unsigned)(seed >> 34) % 61);
        }
        check_timestamp(&memo, text);
    }
}

/*
 * Fractions of 0 to 9 digits and offsets (Z, +hh:mm of every hour up to 19,
 * odd minutes, malformed ones) in UTC and in a zone with summer time: the
 * fast path's value is the general parser's, accepted or not.
 */
void test_formats_csv_fast__fractions_and_offsets_agree(void)
{
    static const char *const zones[] = {"UTC", "Europe/Oslo", "America/St_Johns"};
    static const char *const suffixes[] = {"", "Z", "+00:00", "-00:00", "+02:00", "-08:00",
                                           "+05:45", "-03:30", "+17:59", "+18:00", "+19:00",
                                           "+1:00", "+01:0", "+0100", "+01:60", "z", " Z",
                                           "+01:00 ", "UTC"};
    uint64_t seed = 11;
    for (size_t zi = 0; zi < sizeof(zones) / sizeof(zones[0]); zi++) {
        csv_options o;
        csv_date_memo memo;
        csv_options_init(&o);
        o.zone = time_zone_find(zones[zi], strlen(zones[zi]));
        check(o.zone != NULL);
        memset(&memo, 0, sizeof(memo));
        for (int row = 0; row < 6000; row++) {
            char text[64];
            int n, digits;
            int64_t fast = 0, slow = 0;
            int fast_ok, slow_ok;
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            n = snprintf(text, sizeof(text), "20%02u-%02u-%02u %02u:%02u:%02u",
                         (unsigned)(seed >> 58) % 40, 1 + (unsigned)(seed >> 50) % 12,
                         1 + (unsigned)(seed >> 45) % 28, (unsigned)(seed >> 40) % 24,
                         (unsigned)(seed >> 34) % 60, (unsigned)(seed >> 28) % 60);
            digits = (int)((seed >> 20) % 11) - 1; /* -1: no point at all */
            if (digits >= 0)
                text[n++] = '.';
            for (int d = 0; d < digits; d++)
                text[n++] = (char)('0' + (seed >> (d * 2)) % 10);
            text[n] = '\0';
            strcat(text, suffixes[(seed >> 10) % (sizeof(suffixes) / sizeof(suffixes[0]))]);
            fast_ok = csv_parse_timestamp_memo(&o, &memo, text, strlen(text), &fast);
            slow_ok = time_string_to_timestamp(text, strlen(text), o.zone, 0, &slow);
            if (fast_ok != slow_ok || (fast_ok && fast != slow))
                test_fail(__FILE__, __LINE__, "\"%s\" in %s: fast %d %lld, general %d %lld", text,
                          zones[zi], fast_ok, (long long)fast, slow_ok, (long long)slow);
        }
    }
}

/* ---- integers ---- */

void test_formats_csv_fast__short_integers_and_overflow(void)
{
    static const struct {
        const char *text;
        int ok32, ok64;
        int64_t value;
    } cases[] = {
        {"0", 1, 1, 0},
        {"-0", 1, 1, 0},
        {"+7", 1, 1, 7},
        {"999999999", 1, 1, 999999999},           /* 9 digits: the unchecked path */
        {"-999999999", 1, 1, -999999999},
        {"1000000000", 1, 1, 1000000000},         /* 10 digits: the checked path */
        {"2147483647", 1, 1, 2147483647},
        {"-2147483648", 1, 1, -2147483648LL},
        {"2147483648", 0, 1, 2147483648LL},       /* int32 overflow at 10 digits */
        {"-2147483649", 0, 1, -2147483649LL},
        {"0000000001", 1, 1, 1},                  /* leading zeros */
        {"9223372036854775807", 0, 1, INT64_MAX},
        {"9223372036854775808", 0, 0, 0},
        {"-", 0, 0, 0},
        {"+", 0, 0, 0},
        {"", 0, 0, 0},
        {"12a", 0, 0, 0},
        {"1 ", 0, 0, 0},
        {" 1", 0, 0, 0},
        {"--1", 0, 0, 0},
        {"1.0", 0, 0, 0},
        {"\xb1", 0, 0, 0},
    };
    for (size_t idx = 0; idx < sizeof(cases) / sizeof(cases[0]); idx++) {
        int32_t v32 = 0;
        int64_t v64 = 0;
        size_t len = strlen(cases[idx].text);
        int ok32 = csv_parse_int32(cases[idx].text, len, &v32);
        int ok64 = csv_parse_int64(cases[idx].text, len, &v64);
        if (ok32 != cases[idx].ok32 || ok64 != cases[idx].ok64 ||
            (ok32 && v32 != cases[idx].value) || (ok64 && v64 != cases[idx].value))
            test_fail(__FILE__, __LINE__, "\"%s\": int32 %d %d, int64 %d %lld", cases[idx].text,
                      ok32, (int)v32, ok64, (long long)v64);
    }
}
