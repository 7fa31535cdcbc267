/*
 * columnar.c - types, vectors and builders of columnar.h.
 */
#include "formats/columnar.h"

#include <string.h>

#include "util/mem.h"

/* Adds a validity bitmap (all valid) when there is none. */
static silt_status col_vec_ensure_validity(col_vec *v, arena *a, silt_error *err);

#define COL_ALIGN 64

static const col_type primitive_types[] = {
    {COL_NULL, 0, 0, 0, NULL},      {COL_BOOLEAN, 0, 0, 0, NULL}, {COL_BYTE, 0, 0, 0, NULL},
    {COL_SHORT, 0, 0, 0, NULL},     {COL_INT, 0, 0, 0, NULL},     {COL_LONG, 0, 0, 0, NULL},
    {COL_FLOAT, 0, 0, 0, NULL},     {COL_DOUBLE, 0, 0, 0, NULL},  {COL_DECIMAL, 10, 0, 0, NULL},
    {COL_STRING, 0, 0, 0, NULL},    {COL_BINARY, 0, 0, 0, NULL},  {COL_DATE, 0, 0, 0, NULL},
    {COL_TIMESTAMP, 0, 0, 0, NULL}, {COL_TIMESTAMP_NTZ, 0, 0, 0, NULL},
};

const col_type *col_type_primitive(col_type_id id)
{
    if ((size_t)id >= sizeof(primitive_types) / sizeof(primitive_types[0]))
        return NULL;
    return &primitive_types[id];
}

const char *col_type_id_name(col_type_id id)
{
    switch (id) {
    case COL_NULL: return "void";
    case COL_BOOLEAN: return "boolean";
    case COL_BYTE: return "byte";
    case COL_SHORT: return "short";
    case COL_INT: return "integer";
    case COL_LONG: return "long";
    case COL_FLOAT: return "float";
    case COL_DOUBLE: return "double";
    case COL_DECIMAL: return "decimal";
    case COL_STRING: return "string";
    case COL_BINARY: return "binary";
    case COL_DATE: return "date";
    case COL_TIMESTAMP: return "timestamp";
    case COL_TIMESTAMP_NTZ: return "timestamp_ntz";
    case COL_STRUCT: return "struct";
    case COL_ARRAY: return "array";
    case COL_MAP: return "map";
    }
    return "?";
}

size_t col_type_value_width(col_type_id id)
{
    switch (id) {
    case COL_BOOLEAN:
    case COL_BYTE: return 1;
    case COL_SHORT: return 2;
    case COL_INT:
    case COL_DATE:
    case COL_FLOAT: return 4;
    case COL_LONG:
    case COL_DOUBLE:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: return 8;
    case COL_DECIMAL: return 16;
    default: return 0;
    }
}

int col_type_is_nested(col_type_id id)
{
    return id == COL_STRUCT || id == COL_ARRAY || id == COL_MAP;
}

col_type *col_type_decimal(arena *a, int32_t precision, int32_t scale)
{
    col_type *t = arena_calloc(a, 1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->id = COL_DECIMAL;
    t->precision = precision;
    t->scale = scale;
    return t;
}

col_type *col_type_struct(arena *a, size_t n_fields, const col_field *fields)
{
    col_type *t = arena_calloc(a, 1, sizeof(*t));
    col_field *copy;
    if (t == NULL)
        return NULL;
    copy = arena_calloc(a, n_fields ? n_fields : 1, sizeof(col_field));
    if (copy == NULL)
        return NULL;
    if (n_fields > 0)
        memcpy(copy, fields, n_fields * sizeof(col_field));
    t->id = COL_STRUCT;
    t->n_fields = n_fields;
    t->fields = copy;
    return t;
}

const col_type *col_type_copy(arena *a, const col_type *t)
{
    col_type *c;
    col_field *fields;
    size_t idx;
    if (t->id != COL_DECIMAL && t->id != COL_STRUCT && t->id != COL_ARRAY && t->id != COL_MAP)
        return col_type_primitive(t->id);
    c = arena_alloc(a, sizeof(*c));
    fields = arena_calloc(a, t->n_fields ? t->n_fields : 1, sizeof(col_field));
    if (c == NULL || fields == NULL)
        return NULL;
    *c = *t;
    for (idx = 0; idx < t->n_fields; idx++) {
        const col_field *f = &t->fields[idx];
        fields[idx] = *f;
        fields[idx].name = f->name != NULL ? arena_strdup(a, f->name) : NULL;
        fields[idx].metadata_json = f->metadata_json != NULL ? arena_strdup(a, f->metadata_json)
                                                             : NULL;
        fields[idx].type = col_type_copy(a, f->type);
        if ((f->name != NULL && fields[idx].name == NULL) || fields[idx].type == NULL ||
            (f->metadata_json != NULL && fields[idx].metadata_json == NULL))
            return NULL;
    }
    c->fields = fields;
    return c;
}

col_type *col_type_array(arena *a, const col_type *element, int contains_null)
{
    col_field field = {"element", element, contains_null, NULL, -1};
    col_type *t = col_type_struct(a, 1, &field);
    if (t != NULL)
        t->id = COL_ARRAY;
    return t;
}

col_type *col_type_map(arena *a, const col_type *key, const col_type *value,
                       int value_contains_null)
{
    col_field fields[2] = {{"key", key, 0, NULL, -1}, {"value", value, value_contains_null, NULL, -1}};
    col_type *t = col_type_struct(a, 2, fields);
    if (t != NULL)
        t->id = COL_MAP;
    return t;
}

int col_type_equal(const col_type *a, const col_type *b)
{
    size_t idx;
    if (a == b)
        return 1;
    if (a == NULL || b == NULL || a->id != b->id)
        return 0;
    if (a->id == COL_DECIMAL)
        return a->precision == b->precision && a->scale == b->scale;
    if (!col_type_is_nested(a->id))
        return 1;
    if (a->n_fields != b->n_fields)
        return 0;
    for (idx = 0; idx < a->n_fields; idx++) {
        if (a->id == COL_STRUCT && strcmp(a->fields[idx].name, b->fields[idx].name) != 0)
            return 0;
        if (a->fields[idx].nullable != b->fields[idx].nullable)
            return 0;
        if (!col_type_equal(a->fields[idx].type, b->fields[idx].type))
            return 0;
    }
    return 1;
}

silt_status col_type_format(const col_type *type, buf *out, silt_error *err)
{
    size_t idx;
    switch (type->id) {
    case COL_DECIMAL:
        return buf_printf(out, err, "decimal(%d,%d)", type->precision, type->scale);
    case COL_STRUCT:
        SILT_RETURN_IF_ERROR(buf_append_str(out, "struct<", err));
        for (idx = 0; idx < type->n_fields; idx++) {
            if (idx > 0)
                SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
            SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s:", type->fields[idx].name));
            SILT_RETURN_IF_ERROR(col_type_format(type->fields[idx].type, out, err));
        }
        return buf_append_char(out, '>', err);
    case COL_ARRAY:
        SILT_RETURN_IF_ERROR(buf_append_str(out, "array<", err));
        SILT_RETURN_IF_ERROR(col_type_format(type->fields[0].type, out, err));
        return buf_append_char(out, '>', err);
    case COL_MAP:
        SILT_RETURN_IF_ERROR(buf_append_str(out, "map<", err));
        SILT_RETURN_IF_ERROR(col_type_format(type->fields[0].type, out, err));
        SILT_RETURN_IF_ERROR(buf_append_char(out, ',', err));
        SILT_RETURN_IF_ERROR(col_type_format(type->fields[1].type, out, err));
        return buf_append_char(out, '>', err);
    default:
        return buf_append_str(out, col_type_id_name(type->id), err);
    }
}

static void *alloc_zeroed(arena *a, size_t bytes)
{
    void *p = arena_alloc_aligned(a, bytes ? bytes : 1, COL_ALIGN);
    if (p != NULL)
        memset(p, 0, bytes ? bytes : 1);
    return p;
}

static int has_offsets(col_type_id id)
{
    return id == COL_STRING || id == COL_BINARY || id == COL_ARRAY || id == COL_MAP;
}

silt_status col_vec_new(col_vec **out, arena *a, const col_type *type, int64_t length,
                        int with_validity, silt_error *err)
{
    col_vec *v;
    size_t width = col_type_value_width(type->id);
    size_t idx;
    if (length < 0 || (uint64_t)length > (uint64_t)INT32_MAX * 8)
        return err_set(err, SILT_INVALID, "vector length %lld is out of range", (long long)length);
    v = arena_calloc(a, 1, sizeof(*v));
    if (v == NULL)
        return err_nomem(err);
    v->type = type;
    v->length = length;
    if (with_validity) {
        v->validity = alloc_zeroed(a, (size_t)(length + 7) / 8);
        if (v->validity == NULL)
            return err_nomem(err);
        memset(v->validity, 0xff, (size_t)(length + 7) / 8);
    }
    if (width > 0) {
        v->values = alloc_zeroed(a, width * (size_t)length);
        if (v->values == NULL)
            return err_nomem(err);
    }
    if (has_offsets(type->id)) {
        v->offsets = alloc_zeroed(a, sizeof(int32_t) * (size_t)(length + 1));
        if (v->offsets == NULL)
            return err_nomem(err);
    }
    if (col_type_is_nested(type->id)) {
        v->n_children = type->n_fields;
        v->children = arena_calloc(a, type->n_fields ? type->n_fields : 1, sizeof(col_vec *));
        if (v->children == NULL)
            return err_nomem(err);
        for (idx = 0; idx < type->n_fields; idx++)
            SILT_RETURN_IF_ERROR(col_vec_new(&v->children[idx], a, type->fields[idx].type,
                                             type->id == COL_STRUCT ? length : 0, 0, err));
    }
    *out = v;
    return SILT_OK;
}

silt_status col_vec_alloc_data(col_vec *v, arena *a, int64_t byte_len, silt_error *err)
{
    if (byte_len < 0 || byte_len > INT32_MAX)
        return err_set(err, SILT_NOMEM, "string data of %lld bytes exceeds one vector's limit",
                       (long long)byte_len);
    v->data = arena_alloc_aligned(a, (size_t)byte_len + 1, COL_ALIGN);
    if (v->data == NULL)
        return err_nomem(err);
    v->data_len = byte_len;
    return SILT_OK;
}

static silt_status col_vec_ensure_validity(col_vec *v, arena *a, silt_error *err)
{
    size_t bytes = (size_t)(v->length + 7) / 8;
    if (v->validity != NULL)
        return SILT_OK;
    v->validity = arena_alloc_aligned(a, bytes ? bytes : 1, COL_ALIGN);
    if (v->validity == NULL)
        return err_nomem(err);
    memset(v->validity, 0xff, bytes ? bytes : 1);
    return SILT_OK;
}

silt_status col_vec_set_null(col_vec *v, arena *a, int64_t row, silt_error *err)
{
    SILT_RETURN_IF_ERROR(col_vec_ensure_validity(v, a, err));
    if (col_bit_get(v->validity, row)) {
        col_bit_clear(v->validity, row);
        v->null_count++;
    }
    return SILT_OK;
}

silt_status col_vec_new_nulls(col_vec **out, arena *a, const col_type *type, int64_t length,
                              silt_error *err)
{
    col_vec *v = NULL; /* gcc 12 -O3 cannot see that col_vec_new sets it */
    SILT_RETURN_IF_ERROR(col_vec_new(&v, a, type, length, 1, err));
    memset(v->validity, 0, (size_t)(length + 7) / 8);
    v->null_count = length;
    *out = v;
    return SILT_OK;
}

int64_t col_validity_count_nulls(const uint8_t *validity, int64_t length)
{
    int64_t nulls = 0, idx;
    if (validity == NULL)
        return 0;
    for (idx = 0; idx + 8 <= length; idx += 8)
        nulls += 8 - __builtin_popcount(validity[idx >> 3]);
    for (; idx < length; idx++)
        nulls += !col_bit_get(validity, idx);
    return nulls;
}

silt_status col_vec_flatten(col_vec **out, arena *a, const col_vec *v, silt_error *err)
{
    col_vec *flat;
    int64_t total = 0, row;
    if (v->dictionary == NULL) {
        *out = (col_vec *)v;
        return SILT_OK;
    }
    for (row = 0; row < v->length; row++) {
        int32_t len;
        if (!col_vec_is_null(v, row)) {
            col_vec_str(v, row, &len);
            total += len;
        }
    }
    SILT_RETURN_IF_ERROR(col_vec_new(&flat, a, v->type, v->length, 0, err));
    SILT_RETURN_IF_ERROR(col_vec_alloc_data(flat, a, total, err));
    flat->validity = v->validity;
    flat->null_count = v->null_count;
    total = 0;
    for (row = 0; row < v->length; row++) {
        int32_t len = 0;
        if (!col_vec_is_null(v, row)) {
            const char *bytes = col_vec_str(v, row, &len);
            memcpy(flat->data + total, bytes, (size_t)len);
        }
        total += len;
        flat->offsets[row + 1] = (int32_t)total;
    }
    *out = flat;
    return SILT_OK;
}

/* ---- builders ---------------------------------------------------------- */

/*
 * A builder's growable buffer. Its memory is COL_ALIGN-aligned (data is
 * rounded up from base, what mem_alloc returned) so that a finished vector
 * can take the buffer as it is instead of copying it into the arena.
 */
typedef struct grow_buf {
    unsigned char *data;
    unsigned char *base;
    size_t len;
    size_t cap;
} grow_buf;

struct col_builder {
    arena *arena;
    const col_type *type;
    int64_t length;
    int64_t null_count; /* the validity bitmap is kept only once this is > 0 */
    grow_buf validity;
    grow_buf values;
    grow_buf offsets;
    grow_buf data;
    size_t n_children;
    col_builder **children;
};

/* Moves g into a fresh buffer of cap bytes (cap >= g->len). */
static silt_status grow_to(grow_buf *g, size_t cap, silt_error *err)
{
    unsigned char *base, *data;
    if (cap > SIZE_MAX - COL_ALIGN)
        return err_nomem(err);
    base = mem_alloc(cap + COL_ALIGN - 1);
    if (base == NULL)
        return err_nomem(err);
    data = base + (COL_ALIGN - (uintptr_t)base % COL_ALIGN) % COL_ALIGN;
    if (g->len > 0)
        memcpy(data, g->data, g->len);
    mem_free(g->base);
    g->base = base;
    g->data = data;
    g->cap = cap;
    return SILT_OK;
}

static silt_status grow_slow(grow_buf *g, size_t extra, silt_error *err)
{
    size_t cap = g->cap ? g->cap * 2 : 256;
    if (extra > SIZE_MAX / 4 - g->len)
        return err_nomem(err);
    while (cap < g->len + extra)
        cap *= 2;
    return grow_to(g, cap, err);
}

static inline silt_status grow(grow_buf *g, size_t extra, silt_error *err)
{
    if (g->cap - g->len >= extra)
        return SILT_OK;
    return grow_slow(g, extra, err);
}

static inline silt_status grow_append(grow_buf *g, const void *src, size_t len, silt_error *err)
{
    SILT_RETURN_IF_ERROR(grow(g, len, err));
    memcpy(g->data + g->len, src, len);
    g->len += len;
    return SILT_OK;
}

static void grow_free(grow_buf *g)
{
    mem_free(g->base);
    g->base = g->data = NULL;
    g->len = g->cap = 0;
}

/* Frees what the builder still owns (buffers not handed to a finished vector). */
static void builder_release(void *payload)
{
    col_builder *b = payload;
    grow_free(&b->validity);
    grow_free(&b->values);
    grow_free(&b->offsets);
    grow_free(&b->data);
}

silt_status col_builder_new(col_builder **out, arena *a, const col_type *type, silt_error *err)
{
    col_builder *b = arena_calloc(a, 1, sizeof(*b));
    size_t idx;
    int32_t zero = 0;
    if (b == NULL || !arena_on_cleanup(a, builder_release, b))
        return err_nomem(err);
    b->arena = a;
    b->type = type;
    if (has_offsets(type->id))
        SILT_RETURN_IF_ERROR(grow_append(&b->offsets, &zero, sizeof(zero), err));
    if (col_type_is_nested(type->id)) {
        b->n_children = type->n_fields;
        b->children = arena_calloc(a, type->n_fields ? type->n_fields : 1, sizeof(col_builder *));
        if (b->children == NULL)
            return err_nomem(err);
        for (idx = 0; idx < type->n_fields; idx++)
            SILT_RETURN_IF_ERROR(col_builder_new(&b->children[idx], a, type->fields[idx].type, err));
    }
    *out = b;
    return SILT_OK;
}

/*
 * The first null: the bitmap starts then, with every row so far valid, so
 * that a column without nulls never writes a bit.
 */
static silt_status start_validity(col_builder *b, silt_error *err)
{
    size_t full = (size_t)(b->length >> 3);
    SILT_RETURN_IF_ERROR(grow(&b->validity, full + 1, err));
    memset(b->validity.data, 0xFF, full);
    b->validity.data[full] = (unsigned char)((1u << (b->length & 7)) - 1);
    b->validity.len = full + 1;
    return SILT_OK;
}

static silt_status push_validity_slow(col_builder *b, int valid, silt_error *err)
{
    size_t byte = (size_t)(b->length >> 3);
    if (b->null_count == 0) {
        SILT_RETURN_IF_ERROR(start_validity(b, err));
    } else if (byte >= b->validity.len) {
        unsigned char zero = 0;
        SILT_RETURN_IF_ERROR(grow_append(&b->validity, &zero, 1, err));
    }
    if (valid)
        b->validity.data[byte] |= (unsigned char)(1u << (b->length & 7));
    else
        b->null_count++;
    b->length++;
    return SILT_OK;
}

static inline silt_status push_validity(col_builder *b, int valid, silt_error *err)
{
    if (valid && b->null_count == 0) {
        b->length++;
        return SILT_OK;
    }
    return push_validity_slow(b, valid, err);
}

static inline silt_status push_offset(col_builder *b, int64_t end, silt_error *err)
{
    int32_t offset;
    if (end > INT32_MAX)
        return err_set(err, SILT_NOMEM, "vector data exceeds 2 GiB");
    offset = (int32_t)end;
    return grow_append(&b->offsets, &offset, sizeof(offset), err);
}

silt_status col_builder_append_null(col_builder *b, silt_error *err)
{
    size_t width = col_type_value_width(b->type->id);
    size_t idx;
    if (width > 0) {
        SILT_RETURN_IF_ERROR(grow(&b->values, width, err));
        memset(b->values.data + b->values.len, 0, width);
        b->values.len += width;
    }
    if (b->type->id == COL_STRING || b->type->id == COL_BINARY)
        SILT_RETURN_IF_ERROR(push_offset(b, (int64_t)b->data.len, err));
    else if (b->type->id == COL_ARRAY || b->type->id == COL_MAP)
        SILT_RETURN_IF_ERROR(push_offset(b, b->n_children ? b->children[0]->length : 0, err));
    else if (b->type->id == COL_STRUCT)
        for (idx = 0; idx < b->n_children; idx++)
            SILT_RETURN_IF_ERROR(col_builder_append_null(b->children[idx], err));
    return push_validity(b, 0, err);
}

silt_status col_builder_append_bool(col_builder *b, int value, silt_error *err)
{
    unsigned char byte = value ? 1 : 0;
    SILT_RETURN_IF_ERROR(grow_append(&b->values, &byte, 1, err));
    return push_validity(b, 1, err);
}

/* Whether value fits the vector's integer width (narrowing must not wrap silently). */
static int int_fits(col_type_id id, int64_t value)
{
    switch (id) {
    case COL_BYTE: return value >= INT8_MIN && value <= INT8_MAX;
    case COL_SHORT: return value >= INT16_MIN && value <= INT16_MAX;
    case COL_INT:
    case COL_DATE: return value >= INT32_MIN && value <= INT32_MAX;
    default: return 1;
    }
}

silt_status col_builder_append_int(col_builder *b, int64_t value, silt_error *err)
{
    if (!int_fits(b->type->id, value))
        return err_set(err, SILT_INVALID, "value %lld is out of range for a %s vector",
                       (long long)value, col_type_id_name(b->type->id));
    switch (b->type->id) {
    case COL_BYTE: {
        int8_t v = (int8_t)value;
        SILT_RETURN_IF_ERROR(grow_append(&b->values, &v, sizeof(v), err));
        break;
    }
    case COL_SHORT: {
        int16_t v = (int16_t)value;
        SILT_RETURN_IF_ERROR(grow_append(&b->values, &v, sizeof(v), err));
        break;
    }
    case COL_INT:
    case COL_DATE: {
        int32_t v = (int32_t)value;
        SILT_RETURN_IF_ERROR(grow_append(&b->values, &v, sizeof(v), err));
        break;
    }
    case COL_LONG:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        SILT_RETURN_IF_ERROR(grow_append(&b->values, &value, sizeof(value), err));
        break;
    case COL_BOOLEAN:
        return col_builder_append_bool(b, value != 0, err);
    default:
        return err_set(err, SILT_INVALID, "cannot append an integer to a %s vector",
                       col_type_id_name(b->type->id));
    }
    return push_validity(b, 1, err);
}

silt_status col_builder_append_double(col_builder *b, double value, silt_error *err)
{
    if (b->type->id == COL_FLOAT) {
        float v = (float)value;
        SILT_RETURN_IF_ERROR(grow_append(&b->values, &v, sizeof(v), err));
    } else if (b->type->id == COL_DOUBLE) {
        SILT_RETURN_IF_ERROR(grow_append(&b->values, &value, sizeof(value), err));
    } else {
        return err_set(err, SILT_INVALID, "cannot append a floating-point value to a %s vector",
                       col_type_id_name(b->type->id));
    }
    return push_validity(b, 1, err);
}

silt_status col_builder_append_decimal(col_builder *b, col_int128 unscaled, silt_error *err)
{
    if (b->type->id != COL_DECIMAL)
        return err_set(err, SILT_INVALID, "cannot append a decimal to a %s vector",
                       col_type_id_name(b->type->id));
    SILT_RETURN_IF_ERROR(grow_append(&b->values, &unscaled, sizeof(unscaled), err));
    return push_validity(b, 1, err);
}

silt_status col_builder_append_bytes(col_builder *b, const void *data, size_t len,
                                     silt_error *err)
{
    if (b->type->id != COL_STRING && b->type->id != COL_BINARY)
        return err_set(err, SILT_INVALID, "cannot append bytes to a %s vector",
                       col_type_id_name(b->type->id));
    if (len > 0)
        SILT_RETURN_IF_ERROR(grow_append(&b->data, data, len, err));
    SILT_RETURN_IF_ERROR(push_offset(b, (int64_t)b->data.len, err));
    return push_validity(b, 1, err);
}

col_builder *col_builder_child(col_builder *b, size_t idx)
{
    return idx < b->n_children ? b->children[idx] : NULL;
}

silt_status col_builder_append_struct(col_builder *b, silt_error *err)
{
    size_t idx;
    if (b->type->id != COL_STRUCT)
        return err_set(err, SILT_INVALID, "not a struct builder");
    for (idx = 0; idx < b->n_children; idx++)
        if (b->children[idx]->length != b->length + 1)
            return err_set(err, SILT_INVALID, "struct field %zu has %lld values, expected %lld",
                           idx, (long long)b->children[idx]->length, (long long)b->length + 1);
    return push_validity(b, 1, err);
}

silt_status col_builder_append_list(col_builder *b, int64_t n_elements, silt_error *err)
{
    int64_t end;
    int32_t start;
    if (b->type->id != COL_ARRAY && b->type->id != COL_MAP)
        return err_set(err, SILT_INVALID, "not an array or map builder");
    memcpy(&start, b->offsets.data + b->offsets.len - sizeof(int32_t), sizeof(start));
    end = (int64_t)start + n_elements;
    if (end != b->children[0]->length ||
        (b->type->id == COL_MAP && end != b->children[1]->length))
        return err_set(err, SILT_INVALID, "list of %lld elements does not match its children",
                       (long long)n_elements);
    SILT_RETURN_IF_ERROR(push_offset(b, end, err));
    return push_validity(b, 1, err);
}

int64_t col_builder_length(const col_builder *b) { return b->length; }

/*
 * The buffer of a finished vector: the builder's own when it is not much
 * larger than its contents (it then stays until the arena's cleanup frees
 * it), else a copy of the right size in the arena. Handing the buffer over
 * saves a copy of every value; a reader that reserved its batch up front
 * (col_builder_reserve) always hands over.
 */
static silt_status take_out(arena *a, grow_buf *g, void **out, silt_error *err)
{
    if (g->data != NULL && g->cap - g->len <= g->len + 4096) {
        *out = g->data;
        return SILT_OK;
    }
    void *p = arena_alloc_aligned(a, g->len ? g->len : 1, COL_ALIGN);
    if (p == NULL)
        return err_nomem(err);
    if (g->len > 0)
        memcpy(p, g->data, g->len);
    grow_free(g);
    *out = p;
    return SILT_OK;
}

silt_status col_builder_reserve(col_builder *b, int64_t n_rows, size_t data_bytes,
                                silt_error *err)
{
    size_t width = col_type_value_width(b->type->id), rows;
    if (n_rows <= 0)
        return SILT_OK;
    rows = (size_t)n_rows;
    if (width > 0 && rows <= SIZE_MAX / 16 && b->values.cap - b->values.len < rows * width)
        SILT_RETURN_IF_ERROR(grow_to(&b->values, b->values.len + rows * width, err));
    if (has_offsets(b->type->id) && rows <= SIZE_MAX / 16 &&
        b->offsets.cap - b->offsets.len < rows * sizeof(int32_t))
        SILT_RETURN_IF_ERROR(
            grow_to(&b->offsets, b->offsets.len + rows * sizeof(int32_t), err));
    if ((b->type->id == COL_STRING || b->type->id == COL_BINARY) && data_bytes > 0 &&
        data_bytes <= SIZE_MAX / 4 && b->data.cap - b->data.len < data_bytes)
        SILT_RETURN_IF_ERROR(grow_to(&b->data, b->data.len + data_bytes, err));
    return SILT_OK;
}

size_t col_builder_data_len(const col_builder *b) { return b->data.len; }

silt_status col_builder_finish(col_builder *b, col_vec **out, silt_error *err)
{
    col_vec *v = arena_calloc(b->arena, 1, sizeof(*v));
    size_t idx;
    if (v == NULL)
        return err_nomem(err);
    v->type = b->type;
    v->length = b->length;
    v->null_count = b->null_count;
    if (b->null_count > 0)
        SILT_RETURN_IF_ERROR(take_out(b->arena, &b->validity, (void **)&v->validity, err));
    if (col_type_value_width(b->type->id) > 0)
        SILT_RETURN_IF_ERROR(take_out(b->arena, &b->values, &v->values, err));
    if (has_offsets(b->type->id))
        SILT_RETURN_IF_ERROR(take_out(b->arena, &b->offsets, (void **)&v->offsets, err));
    if (b->type->id == COL_STRING || b->type->id == COL_BINARY) {
        v->data_len = (int64_t)b->data.len;
        SILT_RETURN_IF_ERROR(take_out(b->arena, &b->data, (void **)&v->data, err));
    }
    if (b->n_children > 0) {
        v->n_children = b->n_children;
        v->children = arena_calloc(b->arena, b->n_children, sizeof(col_vec *));
        if (v->children == NULL)
            return err_nomem(err);
        for (idx = 0; idx < b->n_children; idx++)
            SILT_RETURN_IF_ERROR(col_builder_finish(b->children[idx], &v->children[idx], err));
    }
    *out = v;
    return SILT_OK;
}

/* ---- gathering rows ------------------------------------------------------ */

static silt_status take_offsets_children(col_vec *dst, arena *a, const col_vec *v,
                                         const int64_t *rows, int64_t n_rows, silt_error *err)
{
    int64_t total = 0, row, pos = 0;
    int64_t *child_rows;
    size_t idx;
    for (row = 0; row < n_rows; row++)
        total += v->offsets[rows[row] + 1] - v->offsets[rows[row]];
    child_rows = arena_alloc(a, sizeof(int64_t) * (size_t)(total ? total : 1));
    if (child_rows == NULL)
        return err_nomem(err);
    for (row = 0; row < n_rows; row++) {
        int32_t start = v->offsets[rows[row]], end = v->offsets[rows[row] + 1], elem;
        for (elem = start; elem < end; elem++)
            child_rows[pos++] = elem;
        dst->offsets[row + 1] = (int32_t)pos;
    }
    for (idx = 0; idx < v->n_children; idx++)
        SILT_RETURN_IF_ERROR(col_vec_take(&dst->children[idx], a, v->children[idx], child_rows,
                                          total, err));
    return SILT_OK;
}

static silt_status take_bytes(col_vec *dst, arena *a, const col_vec *v, const int64_t *rows,
                              int64_t n_rows, silt_error *err)
{
    int64_t total = 0, row;
    for (row = 0; row < n_rows; row++)
        total += v->offsets[rows[row] + 1] - v->offsets[rows[row]];
    /* 32 bytes of slack: a short value is copied as 16 or 32 bytes (no memcpy call per row),
     * which may write past its end into the next value's place or the slack */
    SILT_RETURN_IF_ERROR(col_vec_alloc_data(dst, a, total + 32, err));
    dst->data_len = total;
    total = 0;
    for (row = 0; row < n_rows; row++) {
        int32_t start = v->offsets[rows[row]];
        int32_t len = v->offsets[rows[row] + 1] - start;
        if (len <= 16 && (int64_t)start + 16 <= v->data_len) {
            memcpy(dst->data + total, v->data + start, 16);
        } else if (len <= 32 && (int64_t)start + 32 <= v->data_len) {
            memcpy(dst->data + total, v->data + start, 32);
        } else if (len > 0) { /* an all-null or all-empty vector may have no data buffer */
            memcpy(dst->data + total, v->data + start, (size_t)len);
        }
        total += len;
        dst->offsets[row + 1] = (int32_t)total;
    }
    return SILT_OK;
}

/* Fixed-width values by row index, a copy of constant size per width (a load and a store,
 * not a call to memcpy per row: the gather of every partitioned write). */
#define TAKE_FIXED(W)                                                                              \
    for (row = 0; row < n_rows; row++)                                                             \
        memcpy((char *)dst + (size_t)row * (W), (const char *)src + (size_t)rows[row] * (W), (W))

static void take_fixed(void *dst, const void *src, size_t width, const int64_t *rows,
                       int64_t n_rows)
{
    int64_t row;
    switch (width) {
    case 1:
        TAKE_FIXED(1);
        break;
    case 2:
        TAKE_FIXED(2);
        break;
    case 4:
        TAKE_FIXED(4);
        break;
    case 8:
        TAKE_FIXED(8);
        break;
    case 16:
        TAKE_FIXED(16);
        break;
    default:
        for (row = 0; row < n_rows && width > 0; row++)
            memcpy((char *)dst + (size_t)row * width,
                   (const char *)src + (size_t)rows[row] * width, width);
        break;
    }
}

/*
 * A flat vector of n_rows for col_vec_take to fill: as col_vec_new, but the
 * values and offsets it overwrites are not zero-filled first (offsets[0] is
 * set); that fill wrote every gathered byte twice.
 */
static silt_status new_flat_for_take(col_vec **out, arena *a, const col_vec *v, int64_t n_rows,
                                     silt_error *err)
{
    size_t width = col_type_value_width(v->type->id);
    col_vec *dst;
    if (n_rows < 0 || (uint64_t)n_rows > (uint64_t)INT32_MAX * 8)
        return err_set(err, SILT_INVALID, "vector length %lld is out of range", (long long)n_rows);
    if ((dst = arena_calloc(a, 1, sizeof(*dst))) == NULL)
        return err_nomem(err);
    dst->type = v->type;
    dst->length = n_rows;
    if (v->validity != NULL) {
        if ((dst->validity = alloc_zeroed(a, (size_t)(n_rows + 7) / 8)) == NULL)
            return err_nomem(err);
        memset(dst->validity, 0xff, (size_t)(n_rows + 7) / 8);
    }
    if (width > 0 &&
        (dst->values = arena_alloc_aligned(a, width * (size_t)n_rows + 1, COL_ALIGN)) == NULL)
        return err_nomem(err);
    if (has_offsets(v->type->id)) {
        dst->offsets = arena_alloc_aligned(a, sizeof(int32_t) * (size_t)(n_rows + 1), COL_ALIGN);
        if (dst->offsets == NULL)
            return err_nomem(err);
        dst->offsets[0] = 0;
    }
    *out = dst;
    return SILT_OK;
}

silt_status col_vec_take(col_vec **out, arena *a, const col_vec *v, const int64_t *rows,
                         int64_t n_rows, silt_error *err)
{
    col_vec *dst;
    size_t width = col_type_value_width(v->type->id);
    int64_t row;
    size_t idx;
    if (v->dictionary == NULL && !col_type_is_nested(v->type->id))
        SILT_RETURN_IF_ERROR(new_flat_for_take(&dst, a, v, n_rows, err));
    else
        SILT_RETURN_IF_ERROR(col_vec_new(&dst, a, v->type, n_rows, v->validity != NULL, err));
    if (v->validity != NULL) {
        for (row = 0; row < n_rows; row++)
            if (!col_bit_get(v->validity, rows[row])) {
                col_bit_clear(dst->validity, row);
                dst->null_count++;
            }
    }
    if (v->dictionary != NULL) {
        dst->dictionary = v->dictionary;
        dst->values = arena_alloc_aligned(a, sizeof(int32_t) * (size_t)(n_rows ? n_rows : 1), COL_ALIGN);
        if (dst->values == NULL)
            return err_nomem(err);
        for (row = 0; row < n_rows; row++)
            ((int32_t *)dst->values)[row] = ((const int32_t *)v->values)[rows[row]];
        *out = dst;
        return SILT_OK;
    }
    switch (v->type->id) {
    case COL_STRING:
    case COL_BINARY:
        SILT_RETURN_IF_ERROR(take_bytes(dst, a, v, rows, n_rows, err));
        break;
    case COL_ARRAY:
    case COL_MAP:
        SILT_RETURN_IF_ERROR(take_offsets_children(dst, a, v, rows, n_rows, err));
        break;
    case COL_STRUCT:
        for (idx = 0; idx < v->n_children; idx++)
            SILT_RETURN_IF_ERROR(col_vec_take(&dst->children[idx], a, v->children[idx], rows,
                                              n_rows, err));
        break;
    default:
        take_fixed(dst->values, v->values, width, rows, n_rows);
        break;
    }
    *out = dst;
    return SILT_OK;
}

silt_status col_batch_filter(col_batch **out, arena *a, const col_batch *batch,
                             const uint8_t *keep, silt_error *err)
{
    col_batch *dst = arena_calloc(a, 1, sizeof(*dst));
    int64_t *rows = arena_alloc(a, sizeof(int64_t) * (size_t)(batch->n_rows ? batch->n_rows : 1));
    int64_t n = 0, row;
    size_t col;
    if (dst == NULL || rows == NULL)
        return err_nomem(err);
    for (row = 0; row < batch->n_rows; row++)
        if (keep[row])
            rows[n++] = row;
    dst->schema = batch->schema;
    dst->n_rows = n;
    dst->n_cols = batch->n_cols;
    dst->cols = arena_calloc(a, batch->n_cols ? batch->n_cols : 1, sizeof(col_vec *));
    if (dst->cols == NULL)
        return err_nomem(err);
    for (col = 0; col < batch->n_cols; col++)
        SILT_RETURN_IF_ERROR(col_vec_take(&dst->cols[col], a, batch->cols[col], rows, n, err));
    *out = dst;
    return SILT_OK;
}
