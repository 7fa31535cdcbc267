/*
 * The canonical JSON writer against the whole conformance corpus
 * (../shared/conformance): every expected row file (v<N>.jsonl and the
 * change data feed's cdf_<A>_<B>.jsonl) whose schema can be
 * found in a JSON commit is read back into column vectors with the table's
 * schema, written again with text_jsonl_write_batch, and compared byte for
 * byte. A reader for the expected text lives here (type-directed, tests
 * only), so this checks the formatting of every type the corpus holds
 * (float digits, decimals, timestamps, map order, nesting) without needing a
 * Parquet reader.
 *
 * Versions whose schema is only in a checkpoint are skipped; the test
 * requires a minimum number of compared rows so it cannot pass vacuously.
 * When ../shared is missing it fails if CI=true and passes otherwise.
 */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "formats/text.h"
#include "test.h"
#include "util/mem.h"
#include "util/time.h"

static arena *A;
static silt_error ERR;

void test_formats_text_conformance__initialize(void)
{
    A = arena_new(NULL, "test");
    err_clear(&ERR);
}

void test_formats_text_conformance__cleanup(void) { arena_free(A); }

/* Whole file into a NUL-terminated mem_alloc'd string; NULL when absent. */
static char *slurp(const char *path, size_t *len_out)
{
    FILE *f = fopen(path, "rb");
    buf b = BUF_INIT;
    char chunk[65536];
    size_t n;
    if (f == NULL)
        return NULL;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        check_ok(buf_append(&b, chunk, n, &ERR), &ERR);
    fclose(f);
    check_ok(buf_append(&b, "", 0, &ERR), &ERR);
    return buf_detach(&b, len_out);
}

/* ---- Delta schema JSON to col_type ------------------------------------ */

static const col_type *delta_type(const cJSON *node);

static const col_type *primitive_named(const char *name)
{
    static const struct {
        const char *name;
        col_type_id id;
    } names[] = {{"boolean", COL_BOOLEAN}, {"byte", COL_BYTE},       {"short", COL_SHORT},
                 {"integer", COL_INT},     {"long", COL_LONG},       {"float", COL_FLOAT},
                 {"double", COL_DOUBLE},   {"string", COL_STRING},   {"binary", COL_BINARY},
                 {"date", COL_DATE},       {"timestamp", COL_TIMESTAMP},
                 {"timestamp_ntz", COL_TIMESTAMP_NTZ}};
    size_t idx;
    int precision, scale;
    for (idx = 0; idx < sizeof(names) / sizeof(names[0]); idx++)
        if (strcmp(name, names[idx].name) == 0)
            return col_type_primitive(names[idx].id);
    if (sscanf(name, "decimal(%d,%d)", &precision, &scale) == 2)
        return col_type_decimal(A, precision, scale);
    if (strcmp(name, "decimal") == 0)
        return col_type_decimal(A, 10, 0);
    test_fail(__FILE__, __LINE__, "schema type \"%s\" is not known to the test", name);
}

static const col_type *struct_type(const cJSON *node)
{
    const cJSON *fields = cJSON_GetObjectItemCaseSensitive(node, "fields"), *field;
    int n = cJSON_GetArraySize(fields), idx = 0;
    col_field *out = arena_calloc(A, (size_t)(n ? n : 1), sizeof(col_field));
    cJSON_ArrayForEach(field, fields) {
        out[idx].name = arena_strdup(A, cJSON_GetObjectItemCaseSensitive(field, "name")->valuestring);
        out[idx].type = delta_type(cJSON_GetObjectItemCaseSensitive(field, "type"));
        out[idx].nullable = 1;
        out[idx].field_id = -1;
        idx++;
    }
    return col_type_struct(A, (size_t)n, out);
}

static const col_type *delta_type(const cJSON *node)
{
    const char *kind;
    if (cJSON_IsString(node))
        return primitive_named(node->valuestring);
    kind = cJSON_GetObjectItemCaseSensitive(node, "type")->valuestring;
    if (strcmp(kind, "struct") == 0)
        return struct_type(node);
    if (strcmp(kind, "array") == 0)
        return col_type_array(A, delta_type(cJSON_GetObjectItemCaseSensitive(node, "elementType")),
                              1);
    return col_type_map(A, delta_type(cJSON_GetObjectItemCaseSensitive(node, "keyType")),
                        delta_type(cJSON_GetObjectItemCaseSensitive(node, "valueType")), 1);
}

/* The schema of the newest metaData in JSON commits 0..version, or NULL. */
static const col_type *schema_at(const char *table, int64_t version)
{
    const col_type *schema = NULL;
    int64_t v;
    for (v = 0; v <= version; v++) {
        char path[4096];
        char *text, *line, *next;
        snprintf(path, sizeof(path), "%s/_delta_log/%020lld.json", table, (long long)v);
        text = slurp(path, NULL);
        if (text == NULL)
            continue;
        for (line = text; line != NULL && *line; line = next) {
            cJSON *action, *meta;
            next = strchr(line, '\n');
            if (next != NULL)
                *next++ = '\0';
            action = cJSON_Parse(line);
            meta = cJSON_GetObjectItemCaseSensitive(action, "metaData");
            if (meta != NULL) {
                cJSON *schema_json = cJSON_Parse(
                    cJSON_GetObjectItemCaseSensitive(meta, "schemaString")->valuestring);
                schema = delta_type(schema_json);
                cJSON_Delete(schema_json);
            }
            cJSON_Delete(action);
        }
        mem_free(text);
    }
    return schema;
}

/* ---- reading the expected text back (type-directed) -------------------- */

typedef struct cursor {
    const char *s;
    size_t pos;
    const char *where; /* file name, for failure messages */
} cursor;

static void expect_char(cursor *c, char ch)
{
    if (c->s[c->pos] != ch)
        test_fail(__FILE__, __LINE__, "%s: expected '%c' at byte %zu of %s", c->where, ch, c->pos,
                  c->s);
    c->pos++;
}

static int take_null(cursor *c)
{
    if (strncmp(c->s + c->pos, "null", 4) != 0)
        return 0;
    c->pos += 4;
    return 1;
}

static void put_utf8(buf *out, uint32_t cp)
{
    char bytes[4];
    size_t n;
    if (cp < 0x80) {
        bytes[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        bytes[0] = (char)(0xC0 | (cp >> 6));
        bytes[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        bytes[0] = (char)(0xE0 | (cp >> 12));
        bytes[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        bytes[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        bytes[0] = (char)(0xF0 | (cp >> 18));
        bytes[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        bytes[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        bytes[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    check_ok(buf_append(out, bytes, n, &ERR), &ERR);
}

/* A JSON string's bytes into out (which is emptied first). */
static void read_string(cursor *c, buf *out)
{
    buf_truncate(out, 0);
    expect_char(c, '"');
    while (c->s[c->pos] != '"') {
        char ch = c->s[c->pos++];
        if (ch == '\0')
            test_fail(__FILE__, __LINE__, "%s: unterminated string", c->where);
        if (ch != '\\') {
            check_ok(buf_append_char(out, ch, &ERR), &ERR);
            continue;
        }
        ch = c->s[c->pos++];
        switch (ch) {
        case 'b': ch = '\b'; break;
        case 'f': ch = '\f'; break;
        case 'n': ch = '\n'; break;
        case 'r': ch = '\r'; break;
        case 't': ch = '\t'; break;
        case 'u': {
            uint32_t cp = (uint32_t)strtoul((char[5]){c->s[c->pos], c->s[c->pos + 1],
                                                      c->s[c->pos + 2], c->s[c->pos + 3], 0},
                                            NULL, 16);
            c->pos += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && c->s[c->pos] == '\\') {
                uint32_t low = (uint32_t)strtoul(
                    (char[5]){c->s[c->pos + 2], c->s[c->pos + 3], c->s[c->pos + 4],
                              c->s[c->pos + 5], 0},
                    NULL, 16);
                c->pos += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            put_utf8(out, cp);
            continue;
        }
        default: break; /* '"', '\\', '/' stand for themselves */
        }
        check_ok(buf_append_char(out, ch, &ERR), &ERR);
    }
    c->pos++;
}

/* The text of a JSON number (or a quoted "NaN"/"Infinity") into text. */
static void read_number_text(cursor *c, buf *text)
{
    size_t start = c->pos;
    if (c->s[c->pos] == '"') {
        read_string(c, text);
        return;
    }
    while (strchr("+-0123456789.eE", c->s[c->pos]) != NULL && c->s[c->pos] != '\0')
        c->pos++;
    buf_truncate(text, 0);
    check_ok(buf_append(text, c->s + start, c->pos - start, &ERR), &ERR);
}

static double special_or(const char *text, double parsed)
{
    if (strcmp(text, "NaN") == 0)
        return NAN;
    if (strcmp(text, "Infinity") == 0)
        return INFINITY;
    if (strcmp(text, "-Infinity") == 0)
        return -INFINITY;
    return parsed;
}

static col_int128 parse_decimal(const char *text)
{
    col_int128 value = 0;
    int negative = *text == '-';
    for (text += negative; *text; text++)
        if (*text != '.')
            value = value * 10 + (*text - '0');
    return negative ? -value : value;
}

static void read_value(cursor *c, col_builder *b, const col_type *type, buf *scratch);

static void read_scalar(cursor *c, col_builder *b, const col_type *type, buf *text)
{
    int64_t micros;
    int32_t days;
    size_t pos;
    switch (type->id) {
    case COL_BOOLEAN:
        check_ok(col_builder_append_bool(b, c->s[c->pos] == 't', &ERR), &ERR);
        c->pos += c->s[c->pos] == 't' ? 4 : 5;
        return;
    case COL_BYTE:
    case COL_SHORT:
    case COL_INT:
    case COL_LONG:
        read_number_text(c, text);
        check_ok(col_builder_append_int(b, strtoll(buf_cstr(text), NULL, 10), &ERR), &ERR);
        return;
    case COL_FLOAT:
        read_number_text(c, text);
        check_ok(col_builder_append_double(
                     b, (double)(float)special_or(buf_cstr(text), strtof(buf_cstr(text), NULL)),
                     &ERR),
                 &ERR);
        return;
    case COL_DOUBLE:
        read_number_text(c, text);
        check_ok(col_builder_append_double(
                     b, special_or(buf_cstr(text), strtod(buf_cstr(text), NULL)), &ERR),
                 &ERR);
        return;
    case COL_DECIMAL:
        read_string(c, text);
        check_ok(col_builder_append_decimal(b, parse_decimal(buf_cstr(text)), &ERR), &ERR);
        return;
    case COL_STRING:
        read_string(c, text);
        check_ok(col_builder_append_bytes(b, text->data ? text->data : "", text->len, &ERR), &ERR);
        return;
    case COL_BINARY:
        read_string(c, text);
        for (pos = 0; pos * 2 < text->len; pos++) {
            char hex[3] = {text->data[pos * 2], text->data[pos * 2 + 1], 0};
            text->data[pos] = (char)strtoul(hex, NULL, 16);
        }
        check_ok(col_builder_append_bytes(b, text->data ? text->data : "", text->len / 2, &ERR),
                 &ERR);
        return;
    case COL_DATE:
        read_string(c, text);
        check(time_parse_date(buf_cstr(text), text->len, &days));
        check_ok(col_builder_append_int(b, days, &ERR), &ERR);
        return;
    default: /* timestamps */
        read_string(c, text);
        if (!time_parse_timestamp(buf_cstr(text), text->len, &micros, NULL))
            test_fail(__FILE__, __LINE__, "%s: timestamp \"%s\" does not parse", c->where,
                      buf_cstr(text));
        check_ok(col_builder_append_int(b, micros, &ERR), &ERR);
        return;
    }
}

/* A JSON object with the fields of a struct type, in schema order. */
static void read_fields(cursor *c, col_builder **children, const col_type *type, buf *scratch)
{
    size_t idx;
    expect_char(c, '{');
    for (idx = 0; idx < type->n_fields; idx++) {
        if (idx > 0)
            expect_char(c, ',');
        read_string(c, scratch);
        if (strcmp(buf_cstr(scratch), type->fields[idx].name) != 0)
            test_fail(__FILE__, __LINE__, "%s: key \"%s\" where \"%s\" was expected", c->where,
                      buf_cstr(scratch), type->fields[idx].name);
        expect_char(c, ':');
        read_value(c, children[idx], type->fields[idx].type, scratch);
    }
    expect_char(c, '}');
}

static void read_value(cursor *c, col_builder *b, const col_type *type, buf *scratch)
{
    int64_t count = 0;
    col_builder *kids[64];
    size_t idx;
    if (take_null(c)) {
        check_ok(col_builder_append_null(b, &ERR), &ERR);
        return;
    }
    switch (type->id) {
    case COL_STRUCT:
        check(type->n_fields <= 64);
        for (idx = 0; idx < type->n_fields; idx++)
            kids[idx] = col_builder_child(b, idx);
        read_fields(c, kids, type, scratch);
        check_ok(col_builder_append_struct(b, &ERR), &ERR);
        return;
    case COL_ARRAY:
    case COL_MAP:
        expect_char(c, '[');
        while (c->s[c->pos] != ']') {
            if (count > 0)
                expect_char(c, ',');
            if (type->id == COL_ARRAY) {
                read_value(c, col_builder_child(b, 0), type->fields[0].type, scratch);
            } else {
                expect_char(c, '[');
                read_value(c, col_builder_child(b, 0), type->fields[0].type, scratch);
                expect_char(c, ',');
                read_value(c, col_builder_child(b, 1), type->fields[1].type, scratch);
                expect_char(c, ']');
            }
            count++;
        }
        c->pos++;
        check_ok(col_builder_append_list(b, count, &ERR), &ERR);
        return;
    default:
        read_scalar(c, b, type, scratch);
        return;
    }
}

/* Reads every line of an expected file into a batch with the given schema. */
static col_batch *read_expected(const char *text, const col_type *schema, const char *where)
{
    col_batch *batch = arena_calloc(A, 1, sizeof(*batch));
    col_builder **builders = arena_calloc(A, schema->n_fields + 1, sizeof(col_builder *));
    buf scratch = BUF_INIT;
    cursor c = {text, 0, where};
    size_t idx;
    for (idx = 0; idx < schema->n_fields; idx++)
        check_ok(col_builder_new(&builders[idx], A, schema->fields[idx].type, &ERR), &ERR);
    while (c.s[c.pos] != '\0') {
        read_fields(&c, builders, schema, &scratch);
        expect_char(&c, '\n');
        batch->n_rows++;
    }
    buf_clear(&scratch);
    batch->schema = schema;
    batch->n_cols = schema->n_fields;
    batch->cols = arena_calloc(A, schema->n_fields + 1, sizeof(col_vec *));
    for (idx = 0; idx < schema->n_fields; idx++)
        check_ok(col_builder_finish(builders[idx], &batch->cols[idx], &ERR), &ERR);
    return batch;
}

/* First differing line of two texts, for a readable failure. */
static void check_same_text(const char *expected, const char *actual, const char *where)
{
    size_t line = 1, pos = 0, line_start = 0;
    const char *end_e, *end_a;
    while (expected[pos] != '\0' && expected[pos] == actual[pos]) {
        if (expected[pos] == '\n') {
            line++;
            line_start = pos + 1;
        }
        pos++;
    }
    if (expected[pos] == '\0' && actual[pos] == '\0')
        return;
    end_e = strchr(expected + line_start, '\n');
    end_a = strchr(actual + line_start, '\n');
    test_fail(__FILE__, __LINE__, "%s line %zu differs:\nexpected %.*s\nwritten  %.*s", where, line,
              (int)(end_e ? end_e - expected - (ptrdiff_t)line_start : 400), expected + line_start,
              (int)(end_a ? end_a - actual - (ptrdiff_t)line_start : 400), actual + line_start);
}

/* schema plus the change data feed's _change_type (string) and _commit_version (long). */
static const col_type *with_cdf_columns(const col_type *schema)
{
    col_field *fields = arena_calloc(A, schema->n_fields + 2, sizeof(col_field));
    memcpy(fields, schema->fields, schema->n_fields * sizeof(col_field));
    fields[schema->n_fields].name = "_change_type";
    fields[schema->n_fields].type = col_type_primitive(COL_STRING);
    fields[schema->n_fields + 1].name = "_commit_version";
    fields[schema->n_fields + 1].type = col_type_primitive(COL_LONG);
    return col_type_struct(A, schema->n_fields + 2, fields);
}

/* The cdf_<A>_<B>.jsonl files, read with the schema of version B; returns the rows compared. */
static int64_t check_cdf_files(const cJSON *cases, int64_t *files, int64_t *skipped)
{
    const cJSON *one;
    int64_t rows = 0;
    cJSON_ArrayForEach(one, cases) {
        const char *name = cJSON_GetObjectItemCaseSensitive(one, "name")->valuestring;
        const cJSON *range;
        cJSON_ArrayForEach(range, cJSON_GetObjectItemCaseSensitive(one, "cdf")) {
            int first = cJSON_GetArrayItem(range, 0)->valueint;
            int last = cJSON_GetArrayItem(range, 1)->valueint;
            char table[4096], path[4096];
            const col_type *schema;
            col_batch *batch;
            buf written = BUF_INIT;
            char *expected;
            snprintf(table, sizeof(table), "%s/conformance/tables/%s", test_shared_dir(), name);
            snprintf(path, sizeof(path), "%s/conformance/expected/%s/cdf_%d_%d.jsonl",
                     test_shared_dir(), name, first, last);
            schema = schema_at(table, last);
            expected = slurp(path, NULL);
            if (schema == NULL || expected == NULL) {
                (*skipped)++;
                mem_free(expected);
                continue;
            }
            batch = read_expected(expected, with_cdf_columns(schema), path);
            check_ok(text_jsonl_write_batch(&written, batch, &ERR), &ERR);
            check_ok(text_lines_sort(&written, &ERR), &ERR);
            check_same_text(expected, buf_cstr(&written), path);
            rows += batch->n_rows;
            (*files)++;
            buf_clear(&written);
            mem_free(expected);
            arena_reset(A);
        }
    }
    return rows;
}

void test_formats_text_conformance__expected_rows_write_back_identically(void)
{
    char path[4096];
    char *index_text;
    cJSON *index, *cases, *one;
    int64_t rows = 0, files = 0, skipped = 0;
    const char *ci = getenv("CI");
    snprintf(path, sizeof(path), "%s/conformance/index.json", test_shared_dir());
    index_text = slurp(path, NULL);
    if (index_text == NULL) {
        if (ci != NULL && strcmp(ci, "true") == 0)
            test_fail(__FILE__, __LINE__, "conformance corpus \"%s\" is missing", path);
        return;
    }
    index = cJSON_Parse(index_text);
    mem_free(index_text);
    cases = cJSON_GetObjectItemCaseSensitive(index, "cases");
    cJSON_ArrayForEach(one, cases) {
        const char *name = cJSON_GetObjectItemCaseSensitive(one, "name")->valuestring;
        const cJSON *versions = cJSON_GetObjectItemCaseSensitive(one, "expected_snapshots");
        const cJSON *version;
        cJSON_ArrayForEach(version, versions) {
            char table[4096];
            const col_type *schema;
            col_batch *batch;
            buf written = BUF_INIT;
            char *expected;
            snprintf(table, sizeof(table), "%s/conformance/tables/%s", test_shared_dir(), name);
            snprintf(path, sizeof(path), "%s/conformance/expected/%s/v%d.jsonl", test_shared_dir(),
                     name, version->valueint);
            schema = schema_at(table, version->valueint);
            expected = slurp(path, NULL);
            if (schema == NULL || expected == NULL) {
                skipped++;
                mem_free(expected);
                continue;
            }
            batch = read_expected(expected, schema, path);
            check_ok(text_jsonl_write_batch(&written, batch, &ERR), &ERR);
            /* the files are sorted, so sorting what we wrote must change nothing */
            check_ok(text_lines_sort(&written, &ERR), &ERR);
            check_same_text(expected, buf_cstr(&written), path);
            rows += batch->n_rows;
            files++;
            buf_clear(&written);
            mem_free(expected);
            arena_reset(A);
        }
    }
    rows += check_cdf_files(cases, &files, &skipped);
    cJSON_Delete(index);
    printf("  compared %lld rows in %lld files, %lld versions without a JSON schema\n",
           (long long)rows, (long long)files, (long long)skipped);
    check(files >= 50);
    check(rows >= 1000);
}
