/*
 * Property tests of the text formats over random batches of every type,
 * nested ones included, with strings full of quotes, commas, control
 * characters and multi-byte text:
 *   - every canonical and Spark JSON line parses as JSON (cJSON) and the
 *     canonical one has one key per column;
 *   - every CSV record splits (RFC 4180) into one field per column;
 *   - every table line has the same display width.
 */
#include <cJSON.h>

#include "text_fixture.h"

void test_formats_text_random__initialize(void)
{
    A = arena_new(NULL, "test");
    buf_init(&OUT, 0);
    err_clear(&ERR);
}

void test_formats_text_random__cleanup(void)
{
    arena_free(A);
    buf_clear(&OUT);
}

static uint64_t rng = 0x2545F4914F6CDD1Du;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const col_type *random_type(int depth)
{
    static const col_type_id leaves[] = {COL_BOOLEAN, COL_BYTE,   COL_SHORT,  COL_INT,
                                         COL_LONG,    COL_FLOAT,  COL_DOUBLE, COL_DECIMAL,
                                         COL_STRING,  COL_BINARY, COL_DATE,   COL_TIMESTAMP,
                                         COL_TIMESTAMP_NTZ};
    uint64_t pick = next() % (depth > 0 ? 16 : 13);
    if (pick < 13) {
        if (leaves[pick] == COL_DECIMAL)
            return col_type_decimal(A, 38, (int32_t)(next() % 39));
        return prim(leaves[pick]);
    }
    if (pick == 13)
        return col_type_array(A, random_type(depth - 1), 1);
    if (pick == 14)
        return col_type_map(A, random_type(0), random_type(depth - 1), 1);
    {
        col_field fields[3];
        size_t idx, n = 1 + next() % 3;
        for (idx = 0; idx < n; idx++) {
            fields[idx].name = idx == 0 ? "a\"b" : idx == 1 ? "c,d" : "\xe6\x97\xa5";
            fields[idx].type = random_type(depth - 1);
            fields[idx].nullable = 1;
            fields[idx].metadata_json = NULL;
            fields[idx].field_id = -1;
        }
        return col_type_struct(A, n, fields);
    }
}

/* A random value of type; null one time in five when allow_null (map keys never are). */
static void random_value(col_builder *b, const col_type *type, int allow_null)
{
    static const char *pieces[] = {"\"", ",", "\n", "\r", "\t", "\\", "\x01", "\x7f", " ",
                                   "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "a", "NULL", "\xc3\xa9"};
    char text[64];
    size_t len = 0, idx, n;
    uint64_t bits;
    if (allow_null && next() % 5 == 0) {
        add_null(b);
        return;
    }
    switch (type->id) {
    case COL_BOOLEAN: check_ok(col_builder_append_bool(b, (int)(next() & 1), &ERR), &ERR); return;
    case COL_BYTE: add_int(b, (int8_t)next()); return;
    case COL_SHORT: add_int(b, (int16_t)next()); return;
    case COL_INT:
    case COL_DATE: add_int(b, (int32_t)next()); return;
    case COL_LONG:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: add_int(b, (int64_t)next()); return;
    case COL_FLOAT:
    case COL_DOUBLE:
        bits = next();
        {
            double value;
            memcpy(&value, &bits, sizeof(value));
            if (type->id == COL_FLOAT && !(fabs(value) <= 3.4e38) && !isnan(value))
                value = INFINITY;
            add_dbl(b, value);
        }
        return;
    case COL_DECIMAL:
        check_ok(col_builder_append_decimal(b, (col_int128)(int64_t)next() * (int64_t)next(), &ERR),
                 &ERR);
        return;
    case COL_STRING:
    case COL_BINARY:
        n = next() % 8;
        for (idx = 0; idx < n; idx++) {
            const char *piece = pieces[next() % (sizeof(pieces) / sizeof(pieces[0]))];
            memcpy(text + len, piece, strlen(piece));
            len += strlen(piece);
        }
        check_ok(col_builder_append_bytes(b, text, len, &ERR), &ERR);
        return;
    case COL_ARRAY:
    case COL_MAP:
        n = next() % 4;
        for (idx = 0; idx < n; idx++) {
            if (type->id == COL_MAP) {
                random_value(col_builder_child(b, 0), type->fields[0].type, 0);
                random_value(col_builder_child(b, 1), type->fields[1].type, 1);
            } else {
                random_value(col_builder_child(b, 0), type->fields[0].type, 1);
            }
        }
        check_ok(col_builder_append_list(b, (int64_t)n, &ERR), &ERR);
        return;
    case COL_STRUCT:
        for (idx = 0; idx < type->n_fields; idx++)
            random_value(col_builder_child(b, idx), type->fields[idx].type, 1);
        check_ok(col_builder_append_struct(b, &ERR), &ERR);
        return;
    default: add_null(b); return;
    }
}

static col_batch *random_batch(int64_t n_rows)
{
    static const char *names[4] = {"x", "y\"z", "w,v", "\xe6\x97\xa5\xe6\x9c\xac"};
    col_vec **cols = arena_calloc(A, 4, sizeof(col_vec *));
    size_t n_cols = 1 + next() % 4, col;
    int64_t row;
    for (col = 0; col < n_cols; col++) {
        const col_type *type = random_type(2);
        col_builder *b = builder(type);
        for (row = 0; row < n_rows; row++)
            random_value(b, type, 1);
        cols[col] = finish(b);
    }
    return make_batch(n_cols, names, cols);
}

/* Splits one RFC 4180 record at text[*pos]; returns its field count. */
static size_t csv_record(const char *text, size_t *pos)
{
    size_t fields = 1;
    int quoted = 0;
    for (;; (*pos)++) {
        char c = text[*pos];
        if (c == '\0')
            test_fail(__FILE__, __LINE__, "CSV ends inside a record");
        if (quoted) {
            if (c == '"' && text[*pos + 1] == '"')
                (*pos)++;
            else if (c == '"')
                quoted = 0;
        } else if (c == '"') {
            quoted = 1;
        } else if (c == ',') {
            fields++;
        } else if (c == '\n') {
            (*pos)++;
            return fields;
        }
    }
}

/* Display width of a table line as Spark counts it (escapes already applied). */
static int64_t line_width(const char *line, size_t len)
{
    const unsigned char *s = (const unsigned char *)line;
    size_t pos = 0;
    int64_t width = 0;
    while (pos < len) {
        uint32_t cp = s[pos];
        size_t n = cp < 0x80 ? 1 : cp < 0xE0 ? 2 : cp < 0xF0 ? 3 : 4;
        if (n == 3)
            cp = ((cp & 0x0F) << 12) | ((s[pos + 1] & 0x3Fu) << 6) | (s[pos + 2] & 0x3Fu);
        width += n == 4 ? 2 : 1;
        if (n == 3 && ((cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xFF00 && cp <= 0xFF60)))
            width++;
        pos += n;
    }
    return width;
}

void test_formats_text_random__outputs_stay_well_formed(void)
{
    int round;
    for (round = 0; round < 200; round++) {
        col_batch *batch = random_batch(1 + (int64_t)(next() % 6));
        text_table *t;
        const char *line;
        size_t pos = 0, rows = 0;
        int64_t width = -1;

        buf_truncate(&OUT, 0);
        check_ok(text_jsonl_write_batch(&OUT, batch, &ERR), &ERR);
        for (line = buf_cstr(&OUT); *line; rows++) {
            const char *end = strchr(line, '\n');
            cJSON *json = cJSON_ParseWithLength(line, (size_t)(end - line));
            if (json == NULL || cJSON_GetArraySize(json) != (int)batch->n_cols)
                test_fail(__FILE__, __LINE__, "canonical line is not an object of %zu keys: %.*s",
                          batch->n_cols, (int)(end - line), line);
            cJSON_Delete(json);
            line = end + 1;
        }
        check_int(batch->n_rows, rows);

        buf_truncate(&OUT, 0);
        check_ok(text_spark_json_write_batch(&OUT, batch, &ERR), &ERR);
        for (line = buf_cstr(&OUT); *line;) {
            const char *end = strchr(line, '\n');
            cJSON *json = cJSON_ParseWithLength(line, (size_t)(end - line));
            if (json == NULL)
                test_fail(__FILE__, __LINE__, "Spark JSON line does not parse: %.*s",
                          (int)(end - line), line);
            cJSON_Delete(json);
            line = end + 1;
        }

        buf_truncate(&OUT, 0);
        check_ok(text_csv_write_header(&OUT, batch->schema, &ERR), &ERR);
        check_ok(text_csv_write_batch(&OUT, batch, &ERR), &ERR);
        for (rows = 0; OUT.data[pos] != '\0'; rows++)
            check_int(batch->n_cols, csv_record(OUT.data, &pos));
        check_int(batch->n_rows + 1, rows);

        buf_truncate(&OUT, 0);
        check_ok(text_table_new(&t, batch->schema, 20, (int32_t)(next() % 25), &ERR), &ERR);
        check_ok(text_table_add_batch(t, batch, &ERR), &ERR);
        check_ok(text_table_finish(t, &OUT, &ERR), &ERR);
        text_table_free(t);
        for (line = buf_cstr(&OUT); *line;) {
            const char *end = strchr(line, '\n');
            int64_t w = line_width(line, (size_t)(end - line));
            if (width >= 0 && w != width)
                test_fail(__FILE__, __LINE__, "table line of width %lld, others %lld:\n%s",
                          (long long)w, (long long)width, buf_cstr(&OUT));
            width = w;
            line = end + 1;
        }
        arena_reset(A);
    }
}
