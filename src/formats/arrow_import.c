/*
 * arrow_import.c - Arrow C data interface -> col_vec (see arrow.h).
 *
 * Follows the Arrow C data interface specification (format strings,
 * buffer order per layout, offset/length slicing, dictionary members).
 * Every value is copied into the caller's arena while it is checked, so
 * the producer's array can be released right after the import and silt
 * never keeps a pointer into memory it does not own. The copy is also
 * where the conversions happen: bit-packed booleans become bytes, offsets
 * are rebased to start at zero (large 64-bit offsets narrowed to silt's
 * int32), timestamps in s/ms/ns become microseconds, date64 becomes days,
 * unsigned 8/16/32-bit integers widen to the next signed Delta type, and
 * dictionary-encoded columns are decoded (col_vec_take over the imported
 * dictionary).
 *
 * What is checked (the interface carries no buffer sizes, so a buffer
 * shorter than its array says cannot be detected; everything else is):
 * negative lengths and offsets, buffer and child counts against the
 * format, missing buffers and children, offsets that go backwards or past
 * the child array, totals beyond int32, dictionary indexes out of range,
 * timestamps that overflow in microseconds, and record batches with null
 * rows. Errors are SILT_INVALID for a malformed array or schema and
 * SILT_UNSUPPORTED for a type Delta has no place for; both name the
 * column and the row or buffer.
 */
#include "formats/arrow.h"

#include <stdio.h>
#include <string.h>

/* What a format string means to the import. */
typedef enum imp_kind {
    IMP_FIXED,     /* values copied as is (width from the col_type) */
    IMP_BOOL,      /* bit-packed */
    IMP_UINT,      /* unsigned widened: src_width bytes to the type's width */
    IMP_BYTES,     /* utf8 / binary, 32-bit offsets */
    IMP_BYTES64,   /* large utf8 / binary, 64-bit offsets */
    IMP_TIMESTAMP, /* int64 in `unit` per microsecond ratio */
    IMP_DATE64,    /* int64 milliseconds */
    IMP_STRUCT,
    IMP_LIST,
    IMP_LIST64,
    IMP_MAP
} imp_kind;

typedef struct imp_format {
    imp_kind kind;
    const col_type *type;  /* leaves only; nested types are built from the children */
    int src_width;         /* IMP_UINT */
    int64_t mul, div;      /* IMP_TIMESTAMP: micros = value * mul / div */
} imp_format;

static silt_status unsupported(silt_error *err, const char *format)
{
    return err_set(err, SILT_UNSUPPORTED, "Arrow type \"%s\" has no Delta type silt can write",
                   format);
}

/* Parses "d:p,s[,bits]". */
static silt_status decimal_format(imp_format *f, arena *a, const char *format, silt_error *err)
{
    int precision = 0, scale = 0, bits = 128, used = 0;
    if (sscanf(format, "d:%d,%d%n", &precision, &scale, &used) != 2)
        return err_set(err, SILT_INVALID, "Arrow decimal format \"%s\" is malformed", format);
    if (format[used] == ',' && sscanf(format + used, ",%d", &bits) != 1)
        return err_set(err, SILT_INVALID, "Arrow decimal format \"%s\" is malformed", format);
    if (bits != 128)
        return err_set(err, SILT_UNSUPPORTED, "Arrow decimal format \"%s\": only 128-bit "
                       "decimals fit Delta's decimal (precision up to 38)", format);
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision)
        return err_set(err, SILT_UNSUPPORTED, "Arrow decimal format \"%s\": Delta's decimal "
                       "needs 1 <= precision <= 38 and 0 <= scale <= precision", format);
    f->kind = IMP_FIXED;
    f->type = col_type_decimal(a, precision, scale);
    return f->type ? SILT_OK : err_nomem(err);
}

/* "ts[smun]:tz": an empty zone is a wall-clock timestamp (timestamp_ntz). */
static silt_status timestamp_format(imp_format *f, const char *format, silt_error *err)
{
    static const struct { char unit; int64_t mul, div; } units[] = {
        {'s', 1000000, 1}, {'m', 1000, 1}, {'u', 1, 1}, {'n', 1, 1000}};
    size_t idx;
    if (strlen(format) < 4 || format[3] != ':')
        return err_set(err, SILT_INVALID, "Arrow timestamp format \"%s\" is malformed", format);
    for (idx = 0; idx < sizeof(units) / sizeof(units[0]); idx++) {
        if (format[2] != units[idx].unit)
            continue;
        f->kind = IMP_TIMESTAMP;
        f->mul = units[idx].mul;
        f->div = units[idx].div;
        f->type = col_type_primitive(format[4] == '\0' ? COL_TIMESTAMP_NTZ : COL_TIMESTAMP);
        return SILT_OK;
    }
    return err_set(err, SILT_INVALID, "Arrow timestamp format \"%s\" has no unit s, m, u or n",
                   format);
}

static silt_status parse_format(imp_format *f, arena *a, const char *format, silt_error *err)
{
    static const struct { const char *text; imp_kind kind; col_type_id id; int src_width; }
    simple[] = {
        {"b", IMP_BOOL, COL_BOOLEAN, 0},     {"c", IMP_FIXED, COL_BYTE, 0},
        {"s", IMP_FIXED, COL_SHORT, 0},      {"i", IMP_FIXED, COL_INT, 0},
        {"l", IMP_FIXED, COL_LONG, 0},       {"f", IMP_FIXED, COL_FLOAT, 0},
        {"g", IMP_FIXED, COL_DOUBLE, 0},     {"C", IMP_UINT, COL_SHORT, 1},
        {"S", IMP_UINT, COL_INT, 2},         {"I", IMP_UINT, COL_LONG, 4},
        {"u", IMP_BYTES, COL_STRING, 0},     {"U", IMP_BYTES64, COL_STRING, 0},
        {"z", IMP_BYTES, COL_BINARY, 0},     {"Z", IMP_BYTES64, COL_BINARY, 0},
        {"tdD", IMP_FIXED, COL_DATE, 0},     {"tdm", IMP_DATE64, COL_DATE, 0},
        {"+s", IMP_STRUCT, COL_STRUCT, 0},   {"+l", IMP_LIST, COL_ARRAY, 0},
        {"+L", IMP_LIST64, COL_ARRAY, 0},    {"+m", IMP_MAP, COL_MAP, 0}};
    size_t idx;
    memset(f, 0, sizeof(*f));
    if (format == NULL)
        return err_set(err, SILT_INVALID, "Arrow schema has no format string");
    for (idx = 0; idx < sizeof(simple) / sizeof(simple[0]); idx++) {
        if (strcmp(format, simple[idx].text) != 0)
            continue;
        f->kind = simple[idx].kind;
        f->src_width = simple[idx].src_width;
        f->type = col_type_primitive(simple[idx].id);
        return SILT_OK;
    }
    if (strncmp(format, "d:", 2) == 0)
        return decimal_format(f, a, format, err);
    if (strncmp(format, "ts", 2) == 0)
        return timestamp_format(f, format, err);
    return unsupported(err, format);
}

static const char *field_name(const struct ArrowSchema *s)
{
    return s->name != NULL ? s->name : "";
}

/* ---------------------------------------------------------------- schema */

static silt_status import_type(const col_type **out, arena *a, const struct ArrowSchema *s,
                               int depth, silt_error *err);

static silt_status import_children(col_field **out, arena *a, const struct ArrowSchema *s,
                                   int depth, silt_error *err)
{
    col_field *fields;
    int64_t idx;
    if (s->n_children < 0 || (s->n_children > 0 && s->children == NULL))
        return err_set(err, SILT_INVALID, "Arrow schema \"%s\" has %lld children but no "
                       "children array", field_name(s), (long long)s->n_children);
    fields = arena_calloc(a, (size_t)s->n_children + 1, sizeof(col_field));
    if (fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < s->n_children; idx++) {
        const struct ArrowSchema *child = s->children[idx];
        if (child == NULL)
            return err_set(err, SILT_INVALID, "Arrow schema \"%s\" has no child %lld",
                           field_name(s), (long long)idx);
        fields[idx].name = arena_strdup(a, field_name(child));
        if (fields[idx].name == NULL)
            return err_nomem(err);
        fields[idx].nullable = (child->flags & ARROW_FLAG_NULLABLE) != 0;
        fields[idx].field_id = -1;
        SILT_RETURN_IF_ERROR(import_type(&fields[idx].type, a, child, depth + 1, err));
    }
    *out = fields;
    return SILT_OK;
}

static silt_status want_children(const struct ArrowSchema *s, int64_t n, silt_error *err)
{
    if (s->n_children != n)
        return err_set(err, SILT_INVALID, "Arrow schema \"%s\" of format \"%s\" has %lld "
                       "children; expected %lld", field_name(s), s->format,
                       (long long)s->n_children, (long long)n);
    return SILT_OK;
}

static silt_status import_type(const col_type **out, arena *a, const struct ArrowSchema *s,
                               int depth, silt_error *err)
{
    imp_format f;
    col_field *fields = NULL;
    silt_status rc;
    /* Nesting this deep is a malformed (or cyclic) schema, not a table. */
    if (depth > 64)
        return err_set(err, SILT_INVALID, "Arrow schema nests deeper than 64 levels");
    if (s->release == NULL)
        return err_set(err, SILT_INVALID, "Arrow schema \"%s\" is released", field_name(s));
    if (s->dictionary != NULL) {
        /* The format is the index type; the values have the dictionary's type. */
        SILT_RETURN_IF_ERROR(parse_format(&f, a, s->format, err));
        if (f.kind != IMP_FIXED || f.type->id < COL_BYTE || f.type->id > COL_LONG)
            return err_set(err, SILT_INVALID, "Arrow dictionary column \"%s\" has index format "
                           "\"%s\"; expected a signed integer", field_name(s), s->format);
        rc = import_type(out, a, s->dictionary, depth + 1, err);
        return rc == SILT_OK ? SILT_OK : err_context(err, "in the dictionary of \"%s\"",
                                                     field_name(s));
    }
    SILT_RETURN_IF_ERROR(parse_format(&f, a, s->format, err));
    switch (f.kind) {
    case IMP_STRUCT:
        SILT_RETURN_IF_ERROR(import_children(&fields, a, s, depth, err));
        *out = col_type_struct(a, (size_t)s->n_children, fields);
        break;
    case IMP_LIST:
    case IMP_LIST64:
        SILT_RETURN_IF_ERROR(want_children(s, 1, err));
        SILT_RETURN_IF_ERROR(import_children(&fields, a, s, depth, err));
        *out = col_type_array(a, fields[0].type, fields[0].nullable);
        break;
    case IMP_MAP: {
        const col_field *kv;
        SILT_RETURN_IF_ERROR(want_children(s, 1, err));
        SILT_RETURN_IF_ERROR(import_children(&fields, a, s, depth, err));
        if (fields[0].type->id != COL_STRUCT || fields[0].type->n_fields != 2)
            return err_set(err, SILT_INVALID, "Arrow map \"%s\" needs a struct child of two "
                           "fields (key, value)", field_name(s));
        kv = fields[0].type->fields;
        *out = col_type_map(a, kv[0].type, kv[1].type, kv[1].nullable);
        break;
    }
    default:
        if (s->n_children != 0)
            SILT_RETURN_IF_ERROR(want_children(s, 0, err));
        *out = f.type;
        return SILT_OK;
    }
    return *out != NULL ? SILT_OK : err_nomem(err);
}

silt_status arrow_import_schema(const col_type **out, arena *a, const struct ArrowSchema *schema,
                                silt_error *err)
{
    if (schema == NULL || schema->format == NULL)
        return err_set(err, SILT_INVALID, "Arrow stream gave no schema");
    if (strcmp(schema->format, "+s") != 0 || schema->dictionary != NULL)
        return err_set(err, SILT_INVALID, "Arrow stream schema has format \"%s\"; a stream of "
                       "record batches has a struct (\"+s\") schema", schema->format);
    return import_type(out, a, schema, 0, err);
}

/* ---------------------------------------------------------------- arrays */

/* One node being imported: rows [start, start + length) of array (before array->offset). */
typedef struct imp_node {
    const struct ArrowSchema *schema;
    const struct ArrowArray *array;
    const col_type *type;
    int64_t start, length;
    int depth;
} imp_node;

static silt_status node_fail(const imp_node *n, silt_error *err, const char *what)
{
    return err_set(err, SILT_INVALID, "Arrow array \"%s\" (format \"%s\") %s",
                   field_name(n->schema), n->schema->format, what);
}

static silt_status import_vec(col_vec **out, arena *a, const imp_node *n, silt_error *err);

static int64_t n_buffers_of(imp_kind kind)
{
    switch (kind) {
    case IMP_BYTES:
    case IMP_BYTES64: return 3;
    case IMP_STRUCT: return 1;
    default: return 2;
    }
}

/* Checks the array node's header: lengths, buffer and child counts. */
static silt_status check_header(const imp_node *n, int64_t want_buffers, silt_error *err)
{
    const struct ArrowArray *arr = n->array;
    char what[160];
    if (arr == NULL || arr->release == NULL)
        return node_fail(n, err, "is missing or already released");
    if (arr->length < 0 || arr->offset < 0 || arr->null_count < -1)
        return node_fail(n, err, "has a negative length, offset or null count");
    if (arr->offset > INT64_MAX - arr->length || n->start < 0 ||
        n->start > arr->length || n->length > arr->length - n->start) {
        snprintf(what, sizeof(what), "has %lld rows; rows %lld to %lld are needed",
                 (long long)arr->length, (long long)n->start, (long long)(n->start + n->length));
        return node_fail(n, err, what);
    }
    if (arr->n_buffers != want_buffers || (want_buffers > 0 && arr->buffers == NULL)) {
        snprintf(what, sizeof(what), "has %lld buffers; its format has %lld",
                 (long long)arr->n_buffers, (long long)want_buffers);
        return node_fail(n, err, what);
    }
    if (arr->n_children != n->schema->n_children ||
        (arr->n_children > 0 && arr->children == NULL)) {
        snprintf(what, sizeof(what), "has %lld children; its schema has %lld",
                 (long long)arr->n_children, (long long)n->schema->n_children);
        return node_fail(n, err, what);
    }
    if ((n->schema->dictionary != NULL) != (arr->dictionary != NULL))
        return node_fail(n, err, n->schema->dictionary ? "has no dictionary array"
                                                       : "has a dictionary its schema lacks");
    return SILT_OK;
}

/* Copies the validity bits of the node's rows into a fresh bitmap (NULL when no nulls). */
static silt_status import_validity(col_vec *v, arena *a, const imp_node *n, silt_error *err)
{
    const uint8_t *bits = n->array->buffers[0];
    int64_t first = n->array->offset + n->start, row, nulls = 0;
    uint8_t *dst;
    v->validity = NULL;
    v->null_count = 0;
    if (bits == NULL) {
        if (n->array->null_count > 0)
            return node_fail(n, err, "counts nulls but has no validity buffer");
        return SILT_OK;
    }
    if (n->array->null_count == 0)
        return SILT_OK;
    dst = arena_calloc(a, (size_t)(n->length + 7) / 8 + 1, 1);
    if (dst == NULL)
        return err_nomem(err);
    for (row = 0; row < n->length; row++) {
        if (col_bit_get(bits, first + row))
            col_bit_set(dst, row);
        else
            nulls++;
    }
    if (nulls > 0) {
        v->validity = dst;
        v->null_count = nulls;
    }
    return SILT_OK;
}

static silt_status missing_buffer(const imp_node *n, int idx, silt_error *err)
{
    char what[64];
    snprintf(what, sizeof(what), "has no buffer %d", idx);
    return node_fail(n, err, what);
}

static silt_status import_fixed(col_vec *v, const imp_node *n, const imp_format *f,
                                silt_error *err)
{
    const uint8_t *src = n->array->buffers[1];
    int64_t first = n->array->offset + n->start, row;
    size_t width = col_type_value_width(v->type->id);
    if (n->length == 0)
        return SILT_OK;
    if (src == NULL)
        return missing_buffer(n, 1, err);
    switch (f->kind) {
    case IMP_BOOL:
        for (row = 0; row < n->length; row++)
            ((uint8_t *)v->values)[row] = (uint8_t)col_bit_get(src, first + row);
        return SILT_OK;
    case IMP_UINT:
        for (row = 0; row < n->length; row++) {
            uint32_t x = f->src_width == 1 ? ((const uint8_t *)src)[first + row]
                       : f->src_width == 2 ? ((const uint16_t *)src)[first + row]
                                           : ((const uint32_t *)src)[first + row];
            if (width == 2)
                ((int16_t *)v->values)[row] = (int16_t)x;
            else if (width == 4)
                ((int32_t *)v->values)[row] = (int32_t)x;
            else
                ((int64_t *)v->values)[row] = (int64_t)x;
        }
        return SILT_OK;
    case IMP_DATE64:
        for (row = 0; row < n->length; row++) {
            int64_t ms = ((const int64_t *)src)[first + row];
            int64_t days = ms / 86400000 - (ms % 86400000 < 0 ? 1 : 0);
            if (days < INT32_MIN || days > INT32_MAX)
                return node_fail(n, err, "holds a date64 out of the range of dates");
            ((int32_t *)v->values)[row] = (int32_t)days;
        }
        return SILT_OK;
    case IMP_TIMESTAMP:
        for (row = 0; row < n->length; row++) {
            int64_t x = ((const int64_t *)src)[first + row], us;
            if (f->div > 1) {
                us = x / f->div - (x % f->div < 0 ? 1 : 0); /* floor, as Spark truncates ns */
            } else if (__builtin_mul_overflow(x, f->mul, &us)) {
                char what[128];
                if (col_vec_is_null(v, row)) {
                    ((int64_t *)v->values)[row] = 0;
                    continue;
                }
                snprintf(what, sizeof(what), "holds timestamp %lld at row %lld, beyond the "
                         "microsecond range", (long long)x, (long long)(n->start + row));
                return node_fail(n, err, what);
            }
            ((int64_t *)v->values)[row] = us;
        }
        return SILT_OK;
    default:
        memcpy(v->values, src + (size_t)first * width, (size_t)n->length * width);
        return SILT_OK;
    }
}

/*
 * Reads offsets [first, first + length] (32- or 64-bit), checks they never
 * go backwards and span at most INT32_MAX, and writes them rebased to zero.
 * *base_out is the first offset, *total_out the span.
 */
static silt_status import_offsets(int32_t *dst, const imp_node *n, int wide, int64_t *base_out,
                                  int64_t *total_out, silt_error *err)
{
    const void *src = n->array->buffers[1];
    int64_t first = n->array->offset + n->start, row, base, prev;
    char what[160];
    if (src == NULL) {
        if (n->length == 0) {
            dst[0] = 0;
            *base_out = *total_out = 0;
            return SILT_OK;
        }
        return missing_buffer(n, 1, err);
    }
    base = wide ? ((const int64_t *)src)[first] : ((const int32_t *)src)[first];
    if (base < 0) {
        snprintf(what, sizeof(what), "has a negative offset %lld at row %lld", (long long)base,
                 (long long)n->start);
        return node_fail(n, err, what);
    }
    prev = base;
    for (row = 0; row <= n->length; row++) {
        int64_t off = wide ? ((const int64_t *)src)[first + row] : ((const int32_t *)src)[first + row];
        if (off < prev || off - base > INT32_MAX) {
            snprintf(what, sizeof(what), "has offset %lld at row %lld after %lld (offsets must "
                     "not decrease, nor span more than 2^31-1)", (long long)off,
                     (long long)(n->start + row), (long long)prev);
            return node_fail(n, err, what);
        }
        dst[row] = (int32_t)(off - base);
        prev = off;
    }
    *base_out = base;
    *total_out = prev - base;
    return SILT_OK;
}

static silt_status import_bytes(col_vec *v, arena *a, const imp_node *n, int wide,
                                silt_error *err)
{
    const char *data = n->array->buffers[2];
    int64_t base, total;
    SILT_RETURN_IF_ERROR(import_offsets(v->offsets, n, wide, &base, &total, err));
    SILT_RETURN_IF_ERROR(col_vec_alloc_data(v, a, total, err));
    if (total == 0)
        return SILT_OK;
    if (data == NULL)
        return missing_buffer(n, 2, err);
    memcpy(v->data, data + base, (size_t)total);
    return SILT_OK;
}

static imp_node child_node(const imp_node *n, int64_t idx, const col_type *type, int64_t start,
                           int64_t length)
{
    imp_node c;
    c.schema = n->schema->children[idx];
    c.array = n->array->children[idx];
    c.type = type;
    c.start = start;
    c.length = length;
    c.depth = n->depth + 1;
    return c;
}

static silt_status import_struct(col_vec *v, arena *a, const imp_node *n, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < v->n_children; idx++) {
        /* A struct's children are sliced by the parent's offset as well. */
        imp_node c = child_node(n, (int64_t)idx, v->type->fields[idx].type,
                                n->array->offset + n->start, n->length);
        silt_status rc = import_vec(&v->children[idx], a, &c, err);
        if (rc != SILT_OK)
            return err_context(err, "in field \"%s\"", v->type->fields[idx].name);
    }
    return SILT_OK;
}

static silt_status import_list(col_vec *v, arena *a, const imp_node *n, int wide,
                               silt_error *err)
{
    int64_t base, total;
    imp_node c;
    SILT_RETURN_IF_ERROR(import_offsets(v->offsets, n, wide, &base, &total, err));
    if (v->type->id == COL_ARRAY) {
        c = child_node(n, 0, v->type->fields[0].type, base, total);
        return import_vec(&v->children[0], a, &c, err);
    }
    {
        /* Map: rows [base, base + total) of the entries struct give keys and values. */
        col_vec *entries;
        col_field kv[2];
        col_type entries_type;
        kv[0] = v->type->fields[0];
        kv[1] = v->type->fields[1];
        memset(&entries_type, 0, sizeof(entries_type));
        entries_type.id = COL_STRUCT;
        entries_type.n_fields = 2;
        entries_type.fields = kv;
        c = child_node(n, 0, &entries_type, base, total);
        SILT_RETURN_IF_ERROR(import_vec(&entries, a, &c, err));
        if (entries->null_count > 0)
            return node_fail(n, err, "has null map entries");
        if (entries->children[0]->null_count > 0)
            return node_fail(n, err, "has a null map key");
        v->children[0] = entries->children[0];
        v->children[1] = entries->children[1];
        v->children[0]->type = v->type->fields[0].type;
        v->children[1]->type = v->type->fields[1].type;
        return SILT_OK;
    }
}

/* Dictionary-encoded: the indexes gather values from the imported dictionary. */
static silt_status import_dictionary(col_vec **out, arena *a, const imp_node *n,
                                     silt_error *err)
{
    imp_format f;
    imp_node dn, idx_node = *n;
    col_vec *dict, *indexes;
    int64_t *rows, row;
    const struct ArrowArray *darr = n->array->dictionary;
    SILT_RETURN_IF_ERROR(parse_format(&f, a, n->schema->format, err));
    SILT_RETURN_IF_ERROR(check_header(n, 2, err));
    dn.schema = n->schema->dictionary;
    dn.array = darr;
    dn.type = n->type;
    dn.start = 0;
    dn.length = darr != NULL ? darr->length : 0;
    dn.depth = n->depth + 1;
    SILT_RETURN_IF_ERROR(import_vec(&dict, a, &dn, err));
    idx_node.type = f.type;
    SILT_RETURN_IF_ERROR(col_vec_new(&indexes, a, f.type, n->length, 0, err));
    SILT_RETURN_IF_ERROR(import_validity(indexes, a, &idx_node, err));
    SILT_RETURN_IF_ERROR(import_fixed(indexes, &idx_node, &f, err));
    rows = arena_alloc(a, (size_t)(n->length + 1) * sizeof(int64_t));
    if (rows == NULL)
        return err_nomem(err);
    for (row = 0; row < n->length; row++) {
        int64_t k;
        switch (f.type->id) {
        case COL_BYTE: k = ((const int8_t *)indexes->values)[row]; break;
        case COL_SHORT: k = ((const int16_t *)indexes->values)[row]; break;
        case COL_INT: k = ((const int32_t *)indexes->values)[row]; break;
        default: k = ((const int64_t *)indexes->values)[row]; break;
        }
        if (col_vec_is_null(indexes, row)) {
            rows[row] = 0;
            continue;
        }
        if (k < 0 || k >= dict->length) {
            char what[128];
            snprintf(what, sizeof(what), "has dictionary index %lld at row %lld; the "
                     "dictionary has %lld values", (long long)k, (long long)(n->start + row),
                     (long long)dict->length);
            return node_fail(n, err, what);
        }
        rows[row] = k;
    }
    if (dict->length == 0)
        return col_vec_new_nulls(out, a, n->type, n->length, err);
    SILT_RETURN_IF_ERROR(col_vec_take(out, a, dict, rows, n->length, err));
    if (indexes->validity != NULL) {
        for (row = 0; row < n->length; row++)
            if (col_vec_is_null(indexes, row) && !col_vec_is_null(*out, row))
                SILT_RETURN_IF_ERROR(col_vec_set_null(*out, a, row, err));
    }
    return SILT_OK;
}

static silt_status import_vec(col_vec **out, arena *a, const imp_node *n, silt_error *err)
{
    imp_format f;
    col_vec *v;
    if (n->depth > 64)
        return err_set(err, SILT_INVALID, "Arrow array nests deeper than 64 levels");
    if (n->schema == NULL)
        return err_set(err, SILT_INVALID, "Arrow schema child is missing");
    if (n->schema->dictionary != NULL)
        return import_dictionary(out, a, n, err);
    SILT_RETURN_IF_ERROR(parse_format(&f, a, n->schema->format, err));
    SILT_RETURN_IF_ERROR(check_header(n, n_buffers_of(f.kind), err));
    SILT_RETURN_IF_ERROR(col_vec_new(&v, a, n->type, n->length, 0, err));
    SILT_RETURN_IF_ERROR(import_validity(v, a, n, err));
    switch (f.kind) {
    case IMP_BYTES:
    case IMP_BYTES64:
        SILT_RETURN_IF_ERROR(import_bytes(v, a, n, f.kind == IMP_BYTES64, err));
        break;
    case IMP_STRUCT:
        SILT_RETURN_IF_ERROR(import_struct(v, a, n, err));
        break;
    case IMP_LIST:
    case IMP_LIST64:
    case IMP_MAP:
        SILT_RETURN_IF_ERROR(import_list(v, a, n, f.kind == IMP_LIST64, err));
        break;
    default:
        SILT_RETURN_IF_ERROR(import_fixed(v, n, &f, err));
        break;
    }
    *out = v;
    return SILT_OK;
}

silt_status arrow_import_batch(col_batch **out, arena *a, const col_type *schema,
                               const struct ArrowSchema *arrow_schema,
                               const struct ArrowArray *array, int64_t start, int64_t n_rows,
                               silt_error *err)
{
    imp_node n;
    col_vec *root;
    col_batch *batch;
    int64_t total = array != NULL && array->length > 0 ? array->length : 0;
    n.schema = arrow_schema;
    n.array = array;
    n.type = schema;
    n.start = start;
    n.length = n_rows < 0 ? total - start : n_rows;
    n.depth = 0;
    SILT_RETURN_IF_ERROR(import_vec(&root, a, &n, err));
    if (root->null_count > 0)
        return err_set(err, SILT_INVALID, "Arrow record batch has %lld null rows; a record "
                       "batch's rows cannot be null", (long long)root->null_count);
    batch = arena_calloc(a, 1, sizeof(*batch));
    if (batch == NULL)
        return err_nomem(err);
    batch->schema = schema;
    batch->n_rows = root->length;
    batch->n_cols = root->n_children;
    batch->cols = root->children;
    *out = batch;
    return SILT_OK;
}
