/*
 * arrow.c - col_vec -> Arrow C data interface (see arrow.h).
 *
 * Every exported ArrowArray node holds one reference on a shared holder that
 * owns the arena; releasing a node releases its children that were not moved
 * out (release != NULL), then drops its reference. The arena dies with the
 * last reference, so a consumer may keep any child alive on its own, as the
 * specification allows.
 */
#include "formats/arrow.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "util/mem.h"

typedef struct arrow_holder {
    atomic_long refs;
    arena *arena;
} arrow_holder;

static void holder_unref(arrow_holder *holder)
{
    if (atomic_fetch_sub(&holder->refs, 1) == 1) {
        arena_free(holder->arena);
        mem_free(holder);
    }
}

static void release_array(struct ArrowArray *array)
{
    int64_t idx;
    arrow_holder *holder = array->private_data;
    for (idx = 0; idx < array->n_children; idx++) {
        struct ArrowArray *child = array->children[idx];
        if (child != NULL && child->release != NULL)
            child->release(child);
    }
    if (array->dictionary != NULL && array->dictionary->release != NULL)
        array->dictionary->release(array->dictionary);
    array->release = NULL;
    holder_unref(holder);
}

/* Packs silt's byte booleans into Arrow's LSB-first bits. */
static uint8_t *pack_booleans(arena *a, const uint8_t *bytes, int64_t length)
{
    size_t n_bytes = (size_t)(length + 7) / 8;
    uint8_t *bits = arena_calloc(a, n_bytes ? n_bytes : 1, 1);
    int64_t row;
    if (bits == NULL)
        return NULL;
    for (row = 0; row < length; row++)
        if (bytes[row])
            bits[row >> 3] |= (uint8_t)(1u << (row & 7));
    return bits;
}

static silt_status export_vec(struct ArrowArray *out, const col_vec *vec, arrow_holder *holder,
                              silt_error *err);

static silt_status alloc_children(struct ArrowArray *out, arena *a, int64_t n, silt_error *err)
{
    int64_t idx;
    out->n_children = n;
    out->children = arena_calloc(a, (size_t)(n ? n : 1), sizeof(struct ArrowArray *));
    if (out->children == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        out->children[idx] = arena_calloc(a, 1, sizeof(struct ArrowArray));
        if (out->children[idx] == NULL)
            return err_nomem(err);
    }
    return SILT_OK;
}

/* A map's keys and values become the "entries" struct child. */
static silt_status export_map_entries(struct ArrowArray *entries, const col_vec *vec,
                                      arrow_holder *holder, silt_error *err)
{
    arena *a = holder->arena;
    entries->length = vec->children[0]->length;
    entries->null_count = 0;
    entries->n_buffers = 1;
    entries->buffers = arena_calloc(a, 1, sizeof(void *));
    if (entries->buffers == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(alloc_children(entries, a, 2, err));
    atomic_fetch_add(&holder->refs, 1);
    entries->private_data = holder;
    entries->release = release_array;
    SILT_RETURN_IF_ERROR(export_vec(entries->children[0], vec->children[0], holder, err));
    return export_vec(entries->children[1], vec->children[1], holder, err);
}

static silt_status export_vec(struct ArrowArray *out, const col_vec *vec, arrow_holder *holder,
                              silt_error *err)
{
    arena *a = holder->arena;
    const void **buffers;
    size_t idx;
    if (vec->dictionary != NULL)
        SILT_RETURN_IF_ERROR(col_vec_flatten((col_vec **)&vec, a, vec, err));
    memset(out, 0, sizeof(*out));
    out->length = vec->length;
    out->null_count = vec->validity ? col_validity_count_nulls(vec->validity, vec->length) : 0;
    buffers = arena_calloc(a, 3, sizeof(void *));
    if (buffers == NULL)
        return err_nomem(err);
    out->buffers = buffers;
    buffers[0] = vec->validity;
    /* The node holds its reference from here, so a failure below still
     * releases correctly through the root. */
    atomic_fetch_add(&holder->refs, 1);
    out->private_data = holder;
    out->release = release_array;
    switch (vec->type->id) {
    case COL_NULL:
        out->n_buffers = 0;
        out->null_count = vec->length;
        break;
    case COL_BOOLEAN:
        out->n_buffers = 2;
        buffers[1] = pack_booleans(a, vec->values, vec->length);
        if (buffers[1] == NULL)
            return err_nomem(err);
        break;
    case COL_STRING:
    case COL_BINARY:
        out->n_buffers = 3;
        buffers[1] = vec->offsets;
        buffers[2] = vec->data ? (const void *)vec->data : (const void *)"";
        break;
    case COL_STRUCT:
        out->n_buffers = 1;
        SILT_RETURN_IF_ERROR(alloc_children(out, a, (int64_t)vec->n_children, err));
        for (idx = 0; idx < vec->n_children; idx++)
            SILT_RETURN_IF_ERROR(export_vec(out->children[idx], vec->children[idx], holder, err));
        break;
    case COL_ARRAY:
        out->n_buffers = 2;
        buffers[1] = vec->offsets;
        SILT_RETURN_IF_ERROR(alloc_children(out, a, 1, err));
        SILT_RETURN_IF_ERROR(export_vec(out->children[0], vec->children[0], holder, err));
        break;
    case COL_MAP:
        out->n_buffers = 2;
        buffers[1] = vec->offsets;
        SILT_RETURN_IF_ERROR(alloc_children(out, a, 1, err));
        SILT_RETURN_IF_ERROR(export_map_entries(out->children[0], vec, holder, err));
        break;
    default:
        out->n_buffers = 2;
        buffers[1] = vec->values;
        break;
    }
    return SILT_OK;
}

silt_status arrow_export_batch(struct ArrowArray *out, const col_batch *batch, arena *owner,
                               silt_error *err)
{
    arrow_holder *holder = mem_alloc(sizeof(*holder));
    col_vec root;
    silt_status rc;
    memset(out, 0, sizeof(*out));
    if (holder == NULL) {
        arena_free(owner);
        return err_nomem(err);
    }
    /* One reference for the duration of the export itself. */
    atomic_init(&holder->refs, 1);
    holder->arena = owner;
    memset(&root, 0, sizeof(root));
    root.type = batch->schema;
    root.length = batch->n_rows;
    root.n_children = batch->n_cols;
    root.children = batch->cols;
    rc = export_vec(out, &root, holder, err);
    if (rc != SILT_OK && out->release != NULL)
        out->release(out);
    holder_unref(holder);
    return rc;
}

silt_status arrow_format_string(const col_type *type, buf *out, silt_error *err)
{
    switch (type->id) {
    case COL_NULL: return buf_append_str(out, "n", err);
    case COL_BOOLEAN: return buf_append_str(out, "b", err);
    case COL_BYTE: return buf_append_str(out, "c", err);
    case COL_SHORT: return buf_append_str(out, "s", err);
    case COL_INT: return buf_append_str(out, "i", err);
    case COL_LONG: return buf_append_str(out, "l", err);
    case COL_FLOAT: return buf_append_str(out, "f", err);
    case COL_DOUBLE: return buf_append_str(out, "g", err);
    case COL_DECIMAL: return buf_printf(out, err, "d:%d,%d", type->precision, type->scale);
    case COL_STRING: return buf_append_str(out, "u", err);
    case COL_BINARY: return buf_append_str(out, "z", err);
    case COL_DATE: return buf_append_str(out, "tdD", err);
    case COL_TIMESTAMP: return buf_append_str(out, "tsu:UTC", err);
    case COL_TIMESTAMP_NTZ: return buf_append_str(out, "tsu:", err);
    case COL_STRUCT: return buf_append_str(out, "+s", err);
    case COL_ARRAY: return buf_append_str(out, "+l", err);
    case COL_MAP: return buf_append_str(out, "+m", err);
    }
    return err_set(err, SILT_INVALID, "type %d has no Arrow format", (int)type->id);
}

/* ---- schema export: plain heap memory, one block per node ------------- */

typedef struct schema_private {
    char *format;
    char *name;
} schema_private;

static void release_schema(struct ArrowSchema *schema)
{
    int64_t idx;
    schema_private *priv = schema->private_data;
    for (idx = 0; idx < schema->n_children; idx++) {
        struct ArrowSchema *child = schema->children[idx];
        if (child->release != NULL)
            child->release(child);
        mem_free(child);
    }
    mem_free(schema->children);
    if (priv != NULL) {
        mem_free(priv->format);
        mem_free(priv->name);
        mem_free(priv);
    }
    schema->release = NULL;
}

static silt_status export_field(struct ArrowSchema *out, const char *name, const col_type *type,
                                int nullable, silt_error *err);

static silt_status export_children(struct ArrowSchema *out, size_t n, silt_error *err)
{
    size_t idx;
    out->children = mem_calloc(n ? n : 1, sizeof(struct ArrowSchema *));
    if (out->children == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        out->children[idx] = mem_calloc(1, sizeof(struct ArrowSchema));
        if (out->children[idx] == NULL)
            return err_nomem(err);
        out->n_children = (int64_t)idx + 1;
    }
    return SILT_OK;
}

static silt_status export_field(struct ArrowSchema *out, const char *name, const col_type *type,
                                int nullable, silt_error *err)
{
    schema_private *priv;
    buf format = BUF_INIT;
    size_t idx;
    memset(out, 0, sizeof(*out));
    priv = mem_calloc(1, sizeof(*priv));
    if (priv == NULL)
        return err_nomem(err);
    out->private_data = priv;
    out->release = release_schema;
    SILT_RETURN_IF_ERROR(arrow_format_string(type, &format, err));
    priv->format = buf_detach(&format, NULL);
    priv->name = mem_strdup(name ? name : "");
    if (priv->format == NULL || priv->name == NULL)
        return err_nomem(err);
    out->format = priv->format;
    out->name = priv->name;
    out->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
    if (type->id == COL_STRUCT || type->id == COL_ARRAY) {
        SILT_RETURN_IF_ERROR(export_children(out, type->n_fields, err));
        for (idx = 0; idx < type->n_fields; idx++)
            SILT_RETURN_IF_ERROR(export_field(out->children[idx], type->fields[idx].name,
                                              type->fields[idx].type, type->fields[idx].nullable,
                                              err));
    } else if (type->id == COL_MAP) {
        struct ArrowSchema *entries;
        col_field kv[2];
        col_type entries_type;
        SILT_RETURN_IF_ERROR(export_children(out, 1, err));
        entries = out->children[0];
        kv[0] = type->fields[0];
        kv[1] = type->fields[1];
        memset(&entries_type, 0, sizeof(entries_type));
        entries_type.id = COL_STRUCT;
        entries_type.n_fields = 2;
        entries_type.fields = kv;
        SILT_RETURN_IF_ERROR(export_field(entries, "entries", &entries_type, 0, err));
    }
    return SILT_OK;
}

silt_status arrow_export_schema(struct ArrowSchema *out, const col_type *schema, silt_error *err)
{
    silt_status rc = export_field(out, "", schema, 0, err);
    if (rc != SILT_OK && out->release != NULL)
        out->release(out);
    return rc;
}
