/*
 * text_table.c - the table of Spark's Dataset.show() and the text of the
 * values in its cells (Spark's ToPrettyString).
 *
 * Behaviour followed (Spark 3.5/4.x, checked against pyspark 4 on Java 17):
 *   - a cell is the value as text: NULL for nulls (Spark 3.4 and
 *     older printed "null"), numbers as Java prints them, decimals plain,
 *     binary "[01 02 FF]", dates yyyy-MM-dd and timestamps yyyy-MM-dd
 *     HH:mm:ss[.ffffff without trailing zeros] in UTC (silt's session time
 *     zone), years above 9999 with '+', arrays "[1, NULL]", maps
 *     "{a -> 1}", structs "{1, a}";
 *   - control characters \n \r \t \f \b \v \a in cells and column names are
 *     shown escaped ("\n"), so a value never breaks the layout;
 *   - with truncate > 0 a cell longer than truncate characters becomes its
 *     first truncate - 3 characters and "..." (just the first truncate
 *     characters when truncate < 4); column names are never cut;
 *   - a column is as wide as its widest cell or name, at least 3; cells are
 *     right-aligned when truncate > 0, left-aligned otherwise;
 *   - lengths are Java's: UTF-16 units (a character outside the BMP counts
 *     2, and cutting through one leaves a lone surrogate that Java writes
 *     as '?'), plus one for each East Asian full-width character in the
 *     ranges of Spark's Utils.stringHalfWidth;
 *   - vertical (show(n, truncate, true)): a "-RECORD i---" block per row,
 *     " name | value " lines, names and values left-aligned to the widest
 *     of each (at least 3), "(0 rows)" for no rows;
 *   - "only showing top N rows" follows when more rows than shown exist.
 *     Spark's string has no newline after that line; silt ends every line
 *     of output with one.
 *
 * The table keeps the finished text of at most max_rows rows, so memory is
 * bounded by what is shown, whatever number of rows flows through.
 */
#include "formats/text.h"

#include <stdio.h>
#include <string.h>

#include "util/mem.h"

struct text_table {
    const col_type *schema;
    size_t n_cols;
    int64_t max_rows;
    int32_t truncate;
    int vertical;       /* show(n, truncate, vertical = true): a block per row */
    int64_t rows_seen;
    int64_t rows_kept;
    buf text;           /* all kept cells, header first, row by row */
    size_t *cell_end;   /* end offset in text of each kept cell */
    int32_t *cell_width;
    size_t n_cells;
    size_t cap_cells;
    buf scratch;        /* one value before escaping */
};

/* ---- cell text (Spark's ToPrettyString) ---------------------------------- */

static silt_status spark_date(buf *out, int32_t days, silt_error *err)
{
    char text[TEXT_NUM_MAX];
    size_t len = text_format_date_spark(days, text);
    return buf_append(out, text, len, err);
}

static silt_status spark_timestamp(buf *out, int64_t micros, silt_error *err)
{
    char text[TEXT_NUM_MAX];
    size_t len = text_format_timestamp_spark(micros, ' ', -1, 0, text);
    return buf_append(out, text, len, err);
}

static silt_status spark_binary(buf *out, const char *bytes, size_t len, silt_error *err)
{
    static const char hex_upper[] = "0123456789ABCDEF";
    size_t pos;
    SILT_RETURN_IF_ERROR(buf_reserve(out, len * 3 + 2, err));
    out->data[out->len++] = '[';
    for (pos = 0; pos < len; pos++) {
        if (pos > 0)
            out->data[out->len++] = ' ';
        out->data[out->len++] = hex_upper[(unsigned char)bytes[pos] >> 4];
        out->data[out->len++] = hex_upper[(unsigned char)bytes[pos] & 15];
    }
    out->data[out->len++] = ']';
    out->data[out->len] = '\0';
    return SILT_OK;
}

static silt_status spark_nested(buf *out, const col_vec *v, int64_t row, silt_error *err)
{
    int64_t first, end, idx;
    size_t field;
    switch (v->type->id) {
    case COL_STRUCT:
        SILT_RETURN_IF_ERROR(buf_append_char(out, '{', err));
        for (field = 0; field < v->n_children; field++) {
            if (field > 0)
                SILT_RETURN_IF_ERROR(buf_append_str(out, ", ", err));
            SILT_RETURN_IF_ERROR(text_spark_value(out, v->children[field], row, err));
        }
        return buf_append_char(out, '}', err);
    case COL_ARRAY:
        first = v->offsets[row];
        end = v->offsets[row + 1];
        SILT_RETURN_IF_ERROR(buf_append_char(out, '[', err));
        for (idx = first; idx < end; idx++) {
            if (idx > first)
                SILT_RETURN_IF_ERROR(buf_append_str(out, ", ", err));
            SILT_RETURN_IF_ERROR(text_spark_value(out, v->children[0], idx, err));
        }
        return buf_append_char(out, ']', err);
    default: /* COL_MAP, entries in stored order */
        first = v->offsets[row];
        end = v->offsets[row + 1];
        SILT_RETURN_IF_ERROR(buf_append_char(out, '{', err));
        for (idx = first; idx < end; idx++) {
            if (idx > first)
                SILT_RETURN_IF_ERROR(buf_append_str(out, ", ", err));
            SILT_RETURN_IF_ERROR(text_spark_value(out, v->children[0], idx, err));
            SILT_RETURN_IF_ERROR(buf_append_str(out, " -> ", err));
            SILT_RETURN_IF_ERROR(text_spark_value(out, v->children[1], idx, err));
        }
        return buf_append_char(out, '}', err);
    }
}

silt_status text_spark_value(buf *out, const col_vec *v, int64_t row, silt_error *err)
{
    int32_t str_len;
    const char *str;
    int done;
    if (v->type->id == COL_NULL || col_vec_is_null(v, row))
        return buf_append_str(out, "NULL", err);
    SILT_RETURN_IF_ERROR(text_append_plain(out, v, row, &done, err));
    if (done)
        return SILT_OK;
    switch (v->type->id) {
    case COL_BINARY:
        str = col_vec_str(v, row, &str_len);
        return spark_binary(out, str, (size_t)str_len, err);
    case COL_DATE: return spark_date(out, ((const int32_t *)v->values)[row], err);
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: return spark_timestamp(out, ((const int64_t *)v->values)[row], err);
    default: return spark_nested(out, v, row, err);
    }
}

/* ---- widths --------------------------------------------------------------- */

/* Spark's Utils.stringHalfWidth counts these BMP ranges twice. */
static int is_full_width(uint32_t cp)
{
    return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
           (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
           (cp >= 0xFE10 && cp <= 0xFE19) || (cp >= 0xFE30 && cp <= 0xFE6F) ||
           (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6);
}

/*
 * Decodes one UTF-8 character at s (len > 0 bytes left): its byte length and
 * code point. A malformed byte counts as one character of one byte (Java
 * would show U+FFFD in its place, also one unit wide).
 */
static size_t utf8_next(const unsigned char *s, size_t len, uint32_t *cp_out)
{
    size_t n, idx;
    uint32_t cp;
    if (s[0] < 0x80) {
        *cp_out = s[0];
        return 1;
    }
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        n = 2;
        cp = s[0] & 0x1F;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        n = 3;
        cp = s[0] & 0x0F;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        n = 4;
        cp = s[0] & 0x07;
    } else {
        *cp_out = 0xFFFD;
        return 1;
    }
    if (n > len) {
        *cp_out = 0xFFFD;
        return 1;
    }
    for (idx = 1; idx < n; idx++) {
        if ((s[idx] & 0xC0) != 0x80) {
            *cp_out = 0xFFFD;
            return 1;
        }
        cp = (cp << 6) | (s[idx] & 0x3F);
    }
    *cp_out = cp;
    return n;
}

/*
 * Appends text to out with the control characters Spark escapes, cut to
 * `keep` UTF-16 units when keep >= 0, and returns its display width.
 */
static int64_t put_cell(buf *out, const char *text, size_t len, int64_t keep, silt_error *err,
                        silt_status *rc)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t pos = 0;
    int64_t units = 0, width = 0;
    *rc = SILT_OK;
    while (pos < len && (keep < 0 || units < keep)) {
        uint32_t cp;
        size_t n = utf8_next(s + pos, len - pos, &cp);
        const char *esc = NULL;
        switch (cp) {
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\f': esc = "\\f"; break;
        case '\b': esc = "\\b"; break;
        case 0x0B: esc = "\\v"; break;
        case 0x07: esc = "\\a"; break;
        default: break;
        }
        if (esc != NULL) {
            /* the escape is two characters, and a cut may fall between them */
            int take = (keep >= 0 && keep - units < 2) ? 1 : 2;
            *rc = buf_append(out, esc, (size_t)take, err);
            units += take;
            width += take;
        } else if (cp >= 0x10000 && keep >= 0 && keep - units < 2) {
            *rc = buf_append_char(out, '?', err); /* half a surrogate pair */
            units += 1;
            width += 1;
        } else {
            *rc = buf_append(out, text + pos, n, err);
            units += cp >= 0x10000 ? 2 : 1;
            width += (cp >= 0x10000 ? 2 : 1) + is_full_width(cp);
        }
        if (*rc != SILT_OK)
            return 0;
        pos += n;
    }
    return width;
}

/* Java length (UTF-16 units) of text after escaping. */
static int64_t java_length(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t pos = 0;
    int64_t units = 0;
    while (pos < len) {
        uint32_t cp;
        pos += utf8_next(s + pos, len - pos, &cp);
        if (cp == '\n' || cp == '\r' || cp == '\t' || cp == '\f' || cp == '\b' || cp == 0x0B ||
            cp == 0x07)
            units += 2;
        else
            units += cp >= 0x10000 ? 2 : 1;
    }
    return units;
}

/* ---- the table ------------------------------------------------------------ */

static silt_status add_cell(text_table *t, const char *text, size_t len, int cut, silt_error *err)
{
    int64_t width, units;
    silt_status rc;
    if (t->n_cells == t->cap_cells) {
        size_t cap = t->cap_cells ? t->cap_cells * 2 : 64;
        size_t *ends = mem_realloc(t->cell_end, cap * sizeof(size_t));
        int32_t *widths;
        if (ends == NULL)
            return err_nomem(err);
        t->cell_end = ends;
        widths = mem_realloc(t->cell_width, cap * sizeof(int32_t));
        if (widths == NULL)
            return err_nomem(err);
        t->cell_width = widths;
        t->cap_cells = cap;
    }
    units = java_length(text, len);
    if (cut && t->truncate > 0 && units > t->truncate) {
        if (t->truncate < 4) {
            width = put_cell(&t->text, text, len, t->truncate, err, &rc);
        } else {
            width = put_cell(&t->text, text, len, t->truncate - 3, err, &rc);
            if (rc == SILT_OK)
                rc = buf_append_str(&t->text, "...", err);
            width += 3;
        }
    } else {
        width = put_cell(&t->text, text, len, -1, err, &rc);
    }
    if (rc != SILT_OK)
        return rc;
    if (width > INT32_MAX)
        return err_set(err, SILT_NOMEM, "a table cell of %lld characters is too wide to show",
                       (long long)width);
    t->cell_end[t->n_cells] = t->text.len;
    t->cell_width[t->n_cells] = (int32_t)width;
    t->n_cells++;
    return SILT_OK;
}

silt_status text_table_new(text_table **out, const col_type *schema, int64_t max_rows,
                           int32_t truncate, silt_error *err)
{
    text_table *t;
    size_t col;
    silt_status rc = SILT_OK;
    if (schema == NULL || schema->id != COL_STRUCT || max_rows < 0 || truncate < 0)
        return err_set(err, SILT_INVALID, "cannot show a table with %s",
                       max_rows < 0 ? "a negative row count"
                       : truncate < 0 ? "a negative truncation width"
                                      : "a schema that is not a struct");
    t = mem_calloc(1, sizeof(*t));
    if (t == NULL)
        return err_nomem(err);
    t->schema = schema;
    t->n_cols = schema->n_fields;
    t->max_rows = max_rows;
    t->truncate = truncate;
    buf_init(&t->text, 0);
    buf_init(&t->scratch, 0);
    for (col = 0; col < t->n_cols && rc == SILT_OK; col++) {
        const char *name = schema->fields[col].name;
        rc = add_cell(t, name, strlen(name), 0, err);
    }
    if (rc != SILT_OK) {
        text_table_free(t);
        return rc;
    }
    *out = t;
    return SILT_OK;
}

silt_status text_table_add_batch(text_table *t, const col_batch *batch, silt_error *err)
{
    int64_t row;
    size_t col;
    if (batch->n_cols != t->n_cols)
        return err_set(err, SILT_INVALID, "cannot show a batch of %zu columns in a table of %zu",
                       batch->n_cols, t->n_cols);
    for (row = 0; row < batch->n_rows && t->rows_kept < t->max_rows; row++) {
        for (col = 0; col < t->n_cols; col++) {
            buf_truncate(&t->scratch, 0);
            SILT_RETURN_IF_ERROR(text_spark_value(&t->scratch, batch->cols[col], row, err));
            SILT_RETURN_IF_ERROR(add_cell(t, t->scratch.data ? t->scratch.data : "",
                                          t->scratch.len, 1, err));
        }
        t->rows_kept++;
    }
    t->rows_seen += batch->n_rows;
    return SILT_OK;
}

int64_t text_table_rows_seen(const text_table *t) { return t->rows_seen; }

static silt_status put_border(buf *out, const int64_t *widths, size_t n_cols, silt_error *err)
{
    size_t col;
    for (col = 0; col < n_cols; col++) {
        SILT_RETURN_IF_ERROR(buf_append_char(out, '+', err));
        SILT_RETURN_IF_ERROR(buf_reserve(out, (size_t)widths[col], err));
        memset(out->data + out->len, '-', (size_t)widths[col]);
        out->len += (size_t)widths[col];
        out->data[out->len] = '\0';
    }
    return buf_append_str(out, "+\n", err);
}

static silt_status put_padding(buf *out, int64_t count, silt_error *err)
{
    if (count <= 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(buf_reserve(out, (size_t)count, err));
    memset(out->data + out->len, ' ', (size_t)count);
    out->len += (size_t)count;
    out->data[out->len] = '\0';
    return SILT_OK;
}

/* One line of cells: row 0 is the header. */
static silt_status put_line(const text_table *t, buf *out, const int64_t *widths, int64_t line,
                            silt_error *err)
{
    size_t col;
    for (col = 0; col < t->n_cols; col++) {
        size_t cell = (size_t)line * t->n_cols + col;
        size_t start = cell == 0 ? 0 : t->cell_end[cell - 1];
        int64_t pad = widths[col] - t->cell_width[cell];
        SILT_RETURN_IF_ERROR(buf_append_char(out, '|', err));
        if (t->truncate > 0)
            SILT_RETURN_IF_ERROR(put_padding(out, pad, err));
        SILT_RETURN_IF_ERROR(buf_append(out, t->text.data + start, t->cell_end[cell] - start, err));
        if (t->truncate == 0)
            SILT_RETURN_IF_ERROR(put_padding(out, pad, err));
    }
    return buf_append_str(out, "|\n", err);
}

void text_table_set_vertical(text_table *t) { t->vertical = 1; }

static silt_status put_dashes(buf *out, int64_t count, silt_error *err)
{
    if (count <= 0)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(buf_reserve(out, (size_t)count, err));
    memset(out->data + out->len, '-', (size_t)count);
    out->len += (size_t)count;
    out->data[out->len] = '\0';
    return SILT_OK;
}

/* One cell of a vertical block, left-aligned and padded to width. */
static silt_status put_vertical_cell(const text_table *t, buf *out, size_t cell, int64_t width,
                                     silt_error *err)
{
    size_t start = cell == 0 ? 0 : t->cell_end[cell - 1];
    SILT_RETURN_IF_ERROR(buf_append(out, t->text.data + start, t->cell_end[cell] - start, err));
    return put_padding(out, width - t->cell_width[cell], err);
}

/*
 * Spark's vertical layout: "-RECORD i" padded with '-' to name width + value
 * width + 5, then " name | value " a column; "(0 rows)" when none.
 */
static silt_status finish_vertical(text_table *t, buf *out, silt_error *err)
{
    int64_t name_width = 3, value_width = 3, line;
    size_t col;
    silt_status rc = SILT_OK;
    for (col = 0; col < t->n_cols; col++) {
        if (t->cell_width[col] > name_width)
            name_width = t->cell_width[col];
        for (line = 1; line <= t->rows_kept; line++)
            if (t->cell_width[(size_t)line * t->n_cols + col] > value_width)
                value_width = t->cell_width[(size_t)line * t->n_cols + col];
    }
    for (line = 1; line <= t->rows_kept && rc == SILT_OK; line++) {
        char head[48];
        int len = snprintf(head, sizeof(head), "-RECORD %lld", (long long)(line - 1));
        rc = buf_append(out, head, (size_t)len, err);
        if (rc == SILT_OK)
            rc = put_dashes(out, name_width + value_width + 5 - len, err);
        if (rc == SILT_OK)
            rc = buf_append_char(out, '\n', err);
        for (col = 0; col < t->n_cols && rc == SILT_OK; col++) {
            rc = buf_append_char(out, ' ', err);
            if (rc == SILT_OK)
                rc = put_vertical_cell(t, out, col, name_width, err);
            if (rc == SILT_OK)
                rc = buf_append_str(out, " | ", err);
            if (rc == SILT_OK)
                rc = put_vertical_cell(t, out, (size_t)line * t->n_cols + col, value_width, err);
            if (rc == SILT_OK)
                rc = buf_append_str(out, " \n", err);
        }
    }
    SILT_RETURN_IF_ERROR(rc);
    if (t->rows_kept == 0)
        return buf_append_str(out, "(0 rows)\n", err);
    if (t->rows_seen > t->max_rows)
        return buf_printf(out, err, "only showing top %lld %s\n", (long long)t->max_rows,
                          t->max_rows == 1 ? "row" : "rows");
    return SILT_OK;
}

silt_status text_table_finish(text_table *t, buf *out, silt_error *err)
{
    int64_t *widths = NULL, line;
    size_t col;
    silt_status rc = SILT_OK;
    if (t->vertical)
        return finish_vertical(t, out, err);
    widths = mem_calloc(t->n_cols ? t->n_cols : 1, sizeof(int64_t));
    if (widths == NULL)
        return err_nomem(err);
    for (col = 0; col < t->n_cols; col++) {
        widths[col] = 3; /* Spark's minimum column width */
        for (line = 0; line <= t->rows_kept; line++)
            if (t->cell_width[(size_t)line * t->n_cols + col] > widths[col])
                widths[col] = t->cell_width[(size_t)line * t->n_cols + col];
    }
    rc = put_border(out, widths, t->n_cols, err);
    for (line = 0; line <= t->rows_kept && rc == SILT_OK; line++) {
        rc = put_line(t, out, widths, line, err);
        if (rc == SILT_OK && line == 0)
            rc = put_border(out, widths, t->n_cols, err);
    }
    if (rc == SILT_OK)
        rc = put_border(out, widths, t->n_cols, err);
    if (rc == SILT_OK && t->rows_seen > t->max_rows)
        rc = buf_printf(out, err, "only showing top %lld %s\n", (long long)t->max_rows,
                        t->max_rows == 1 ? "row" : "rows");
    mem_free(widths);
    return rc;
}

void text_table_free(text_table *t)
{
    if (t == NULL)
        return;
    buf_clear(&t->text);
    buf_clear(&t->scratch);
    mem_free(t->cell_end);
    mem_free(t->cell_width);
    mem_free(t);
}
