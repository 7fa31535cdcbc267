/*
 * schema.c - from Parquet SchemaElements to the parquet tree, the Delta
 * type of every column and the value tree used for assembly.
 *
 * PROTOCOL: parquet-format LogicalTypes.md (type annotations, and "Nested
 * Types": lists, maps and their backward-compatibility rules) and the
 * Dremel definition/repetition levels (parquet.thrift, FieldRepetitionType).
 *
 * Definition levels: an optional or repeated node adds one to its parent's
 * level, a repeated node also adds one repetition level. A vnode's def_null
 * is the level at which its value is present; a list's elem_def the level
 * at which one of its entries is present (def_null + 1).
 */
#include <stdint.h>
#include <string.h>

#include "formats/parquet/reader_int.h"

typedef struct schema_ctx {
    pq_file *file;
    arena *a;
    size_t next_elem;
    int n_leaves;
} schema_ctx;

/* "schema element \"name\" <why>" */
static silt_status schema_corrupt(silt_error *err, const char *name, const char *why)
{
    return err_set(err, SILT_CORRUPT, "schema element \"%s\" %s", name, why);
}

/* Builds the parquet tree from the flat, depth-first element list. */
static silt_status build_pnode(schema_ctx *c, pq_pnode *node, int depth, silt_error *err)
{
    const pq_file_meta *meta = &c->file->meta;
    const pq_schema_element *se;
    size_t idx;
    if (depth > PQ_MAX_SCHEMA_DEPTH)
        return err_set(err, SILT_UNSUPPORTED, "the schema is nested more than %d levels deep",
                       PQ_MAX_SCHEMA_DEPTH);
    if (c->next_elem >= meta->n_schema)
        return err_set(err, SILT_CORRUPT, "the schema has fewer elements than its groups declare");
    se = &meta->schema[c->next_elem++];
    node->se = se;
    node->leaf_idx = -1;
    if (se->has_repetition && ((int)se->repetition < 0 || se->repetition > PQ_REPEATED))
        return schema_corrupt(err, se->name, "has an invalid repetition");
    if (se->num_children < 0)
        return schema_corrupt(err, se->name, "has a negative number of children");
    if (depth == 0 || se->num_children > 0) {
        if ((size_t)se->num_children > meta->n_schema - c->next_elem)
            return schema_corrupt(err, se->name,
                                  "declares more children than the schema has elements");
        node->n_children = (size_t)se->num_children;
        node->children = arena_calloc(c->a, node->n_children ? node->n_children : 1,
                                      sizeof(pq_pnode));
        if (node->children == NULL)
            return err_nomem(err);
        for (idx = 0; idx < node->n_children; idx++)
            SILT_RETURN_IF_ERROR(build_pnode(c, &node->children[idx], depth + 1, err));
        return SILT_OK;
    }
    if (!se->has_type)
        return schema_corrupt(err, se->name, "has neither children nor a type");
    if ((int)se->type < 0 || se->type > PQ_FIXED_LEN_BYTE_ARRAY)
        return schema_corrupt(err, se->name, "has an invalid physical type");
    if (se->type == PQ_FIXED_LEN_BYTE_ARRAY && (se->type_length <= 0 || se->type_length > (1 << 24)))
        return schema_corrupt(err, se->name, "has an invalid fixed length");
    node->leaf_idx = c->n_leaves++;
    return SILT_OK;
}

static int is_group(const pq_pnode *p) { return p->leaf_idx < 0; }

static pq_repetition repetition_of(const pq_pnode *p)
{
    return p->se->has_repetition ? p->se->repetition : PQ_REQUIRED;
}

static pq_vnode *vnode_new(schema_ctx *c, pq_vkind kind, const char *name, size_t n_children)
{
    pq_vnode *v = arena_calloc(c->a, 1, sizeof(*v));
    if (v == NULL)
        return NULL;
    v->kind = kind;
    v->name = name;
    v->leaf_idx = -1;
    v->n_children = n_children;
    v->children = arena_calloc(c->a, n_children ? n_children : 1, sizeof(pq_vnode *));
    return v->children != NULL ? v : NULL;
}

static silt_status unsupported(silt_error *err, const char *what, const char *name)
{
    return err_set(err, SILT_UNSUPPORTED, "column \"%s\" has %s, which is not supported", name,
                   what);
}

static silt_status set_decimal(schema_ctx *c, pq_vnode *v, int32_t precision, int32_t scale,
                               pq_conv conv, silt_error *err)
{
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
        if (precision > 38)
            return unsupported(err, "a decimal precision over 38", v->name);
        return err_set(err, SILT_CORRUPT, "column \"%s\" has an invalid decimal(%d,%d)", v->name,
                       (int)precision, (int)scale);
    }
    v->type = col_type_decimal(c->a, precision, scale);
    if (v->type == NULL)
        return err_nomem(err);
    v->conv = conv;
    v->out_width = 16;
    return SILT_OK;
}

static void set_prim(pq_vnode *v, col_type_id id, pq_conv conv)
{
    v->type = col_type_primitive(id);
    v->conv = conv;
    v->out_width = col_type_value_width(id);
}

static silt_status map_int32(schema_ctx *c, pq_vnode *v, silt_error *err)
{
    const pq_schema_element *se = v->se;
    const pq_logical *lt = &se->logical;
    int bits = 32, is_signed = 1;
    if (lt->kind == PQ_LT_INTEGER) {
        bits = lt->bit_width;
        is_signed = lt->is_signed;
    } else if (lt->kind == PQ_LT_NONE || lt->kind == PQ_LT_OTHER) {
        switch (se->converted) {
        case PQ_CT_INT_8: bits = 8; break;
        case PQ_CT_INT_16: bits = 16; break;
        case PQ_CT_UINT_8: bits = 8; is_signed = 0; break;
        case PQ_CT_UINT_16: bits = 16; is_signed = 0; break;
        case PQ_CT_UINT_32: is_signed = 0; break;
        case PQ_CT_DATE: set_prim(v, COL_DATE, PQ_CONV_I32); return SILT_OK;
        case PQ_CT_TIME_MILLIS:
            set_prim(v, COL_LONG, PQ_CONV_I32_I64_MUL);
            v->scale_factor = 1000;
            return SILT_OK;
        case PQ_CT_DECIMAL:
            return set_decimal(c, v, se->precision, se->scale, PQ_CONV_DEC_I32, err);
        default: break;
        }
    } else if (lt->kind == PQ_LT_DATE) {
        set_prim(v, COL_DATE, PQ_CONV_I32);
        return SILT_OK;
    } else if (lt->kind == PQ_LT_DECIMAL) {
        return set_decimal(c, v, lt->precision, lt->scale, PQ_CONV_DEC_I32, err);
    } else if (lt->kind == PQ_LT_TIME && lt->unit == PQ_UNIT_MILLIS) {
        set_prim(v, COL_LONG, PQ_CONV_I32_I64_MUL);
        v->scale_factor = 1000;
        return SILT_OK;
    }
    if (bits == 8)
        set_prim(v, is_signed ? COL_BYTE : COL_SHORT, is_signed ? PQ_CONV_I32_I8 : PQ_CONV_U8_I16);
    else if (bits == 16)
        set_prim(v, is_signed ? COL_SHORT : COL_INT, is_signed ? PQ_CONV_I32_I16 : PQ_CONV_U16_I32);
    else if (bits == 32)
        set_prim(v, is_signed ? COL_INT : COL_LONG, is_signed ? PQ_CONV_I32 : PQ_CONV_U32_I64);
    else
        return err_set(err, SILT_CORRUPT, "INT32 column \"%s\" is annotated as a %d-bit integer",
                       v->name, bits);
    return SILT_OK;
}

static void set_time_scale(pq_vnode *v, pq_time_unit unit, col_type_id id)
{
    if (unit == PQ_UNIT_MILLIS) {
        set_prim(v, id, PQ_CONV_I64_MUL);
        v->scale_factor = 1000;
    } else if (unit == PQ_UNIT_NANOS) {
        set_prim(v, id, PQ_CONV_I64_DIV);
        v->scale_factor = 1000;
    } else {
        set_prim(v, id, PQ_CONV_I64);
    }
}

static silt_status map_int64(schema_ctx *c, pq_vnode *v, silt_error *err)
{
    const pq_schema_element *se = v->se;
    const pq_logical *lt = &se->logical;
    switch (lt->kind) {
    case PQ_LT_INTEGER:
        if (lt->bit_width != 64)
            return err_set(err, SILT_CORRUPT, "INT64 column \"%s\" is annotated as a %d-bit "
                           "integer", v->name, (int)lt->bit_width);
        if (!lt->is_signed)
            return set_decimal(c, v, 20, 0, PQ_CONV_U64_DEC, err);
        set_prim(v, COL_LONG, PQ_CONV_I64);
        return SILT_OK;
    case PQ_LT_DECIMAL:
        return set_decimal(c, v, lt->precision, lt->scale, PQ_CONV_DEC_I64, err);
    case PQ_LT_TIMESTAMP:
        set_time_scale(v, lt->unit, lt->is_adjusted_to_utc ? COL_TIMESTAMP : COL_TIMESTAMP_NTZ);
        return SILT_OK;
    case PQ_LT_TIME:
        set_time_scale(v, lt->unit, COL_LONG);
        return SILT_OK;
    default:
        break;
    }
    switch (se->converted) {
    case PQ_CT_UINT_64:
        return set_decimal(c, v, 20, 0, PQ_CONV_U64_DEC, err);
    case PQ_CT_DECIMAL:
        return set_decimal(c, v, se->precision, se->scale, PQ_CONV_DEC_I64, err);
    case PQ_CT_TIMESTAMP_MILLIS:
        set_time_scale(v, PQ_UNIT_MILLIS, COL_TIMESTAMP);
        return SILT_OK;
    case PQ_CT_TIMESTAMP_MICROS:
        set_time_scale(v, PQ_UNIT_MICROS, COL_TIMESTAMP);
        return SILT_OK;
    case PQ_CT_TIME_MICROS:
        set_time_scale(v, PQ_UNIT_MICROS, COL_LONG);
        return SILT_OK;
    default:
        set_prim(v, COL_LONG, PQ_CONV_I64);
        return SILT_OK;
    }
}

static int is_string_annotated(const pq_schema_element *se)
{
    switch (se->logical.kind) {
    case PQ_LT_STRING:
    case PQ_LT_ENUM:
    case PQ_LT_JSON:
        return 1;
    case PQ_LT_NONE:
    case PQ_LT_OTHER:
        return se->converted == PQ_CT_UTF8 || se->converted == PQ_CT_ENUM ||
               se->converted == PQ_CT_JSON;
    default:
        return 0;
    }
}

static silt_status map_bytes(schema_ctx *c, pq_vnode *v, silt_error *err)
{
    const pq_schema_element *se = v->se;
    if (se->logical.kind == PQ_LT_DECIMAL)
        return set_decimal(c, v, se->logical.precision, se->logical.scale, PQ_CONV_DEC_BYTES, err);
    if (se->logical.kind == PQ_LT_NONE && se->converted == PQ_CT_DECIMAL)
        return set_decimal(c, v, se->precision, se->scale, PQ_CONV_DEC_BYTES, err);
    if (se->type == PQ_FIXED_LEN_BYTE_ARRAY && se->logical.kind == PQ_LT_FLOAT16) {
        if (se->type_length != 2)
            return err_set(err, SILT_CORRUPT, "FLOAT16 column \"%s\" is not 2 bytes wide",
                           v->name);
        set_prim(v, COL_FLOAT, PQ_CONV_FLOAT16);
        return SILT_OK;
    }
    set_prim(v, is_string_annotated(se) ? COL_STRING : COL_BINARY, PQ_CONV_BINARY);
    return SILT_OK;
}

static silt_status map_leaf(schema_ctx *c, pq_vnode *v, silt_error *err)
{
    const pq_schema_element *se = v->se;
    switch (se->type) {
    case PQ_BOOLEAN: v->phys_width = 1; break;
    case PQ_INT32: case PQ_FLOAT: v->phys_width = 4; break;
    case PQ_INT64: case PQ_DOUBLE: v->phys_width = 8; break;
    case PQ_INT96: v->phys_width = 12; break;
    case PQ_FIXED_LEN_BYTE_ARRAY: v->phys_width = (size_t)se->type_length; break;
    case PQ_BYTE_ARRAY: v->phys_width = 0; break;
    }
    if (se->logical.kind == PQ_LT_UNKNOWN) {
        v->type = col_type_primitive(COL_NULL);
        v->conv = PQ_CONV_NULL;
        v->out_width = 0;
        return SILT_OK;
    }
    if (se->logical.kind == PQ_LT_VARIANT || se->logical.kind == PQ_LT_GEOMETRY ||
        se->logical.kind == PQ_LT_GEOGRAPHY) {
        /* Geometry and geography are WKB bytes: binary is their faithful value. */
        if (se->logical.kind == PQ_LT_VARIANT)
            return unsupported(err, "the VARIANT logical type", v->name);
    }
    switch (se->type) {
    case PQ_BOOLEAN: set_prim(v, COL_BOOLEAN, PQ_CONV_BOOL); return SILT_OK;
    case PQ_INT32: return map_int32(c, v, err);
    case PQ_INT64: return map_int64(c, v, err);
    case PQ_INT96: set_prim(v, COL_TIMESTAMP, PQ_CONV_INT96_TS); return SILT_OK;
    case PQ_FLOAT: set_prim(v, COL_FLOAT, PQ_CONV_FLOAT); return SILT_OK;
    case PQ_DOUBLE: set_prim(v, COL_DOUBLE, PQ_CONV_DOUBLE); return SILT_OK;
    default: return map_bytes(c, v, err);
    }
}

static silt_status convert(schema_ctx *c, const pq_pnode *p, int def_parent, int rep_parent,
                           int force_required, pq_vnode **out, silt_error *err);

/* Keeps a Parquet field id on a field of an array or map type made here (arena-owned). */
static void set_field_id(const col_type *type, size_t field, const pq_pnode *p)
{
    if (type != NULL && p->se->has_field_id)
        ((col_field *)(uintptr_t)type->fields)[field].field_id = p->se->field_id;
}

static silt_status convert_struct(schema_ctx *c, const pq_pnode *p, int def, int rep,
                                  pq_vnode *v, silt_error *err)
{
    col_field *fields;
    size_t idx;
    if (p->n_children == 0)
        return unsupported(err, "an empty group", p->se->name);
    fields = arena_calloc(c->a, p->n_children, sizeof(col_field));
    if (fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < p->n_children; idx++) {
        pq_vnode *child;
        SILT_RETURN_IF_ERROR(convert(c, &p->children[idx], def, rep, 0, &child, err));
        v->children[idx] = child;
        fields[idx].name = child->name;
        fields[idx].type = child->type;
        fields[idx].nullable = child->nullable;
        fields[idx].field_id = p->children[idx].se->has_field_id ? p->children[idx].se->field_id : -1;
    }
    v->type = col_type_struct(c->a, p->n_children, fields);
    return v->type != NULL ? SILT_OK : err_nomem(err);
}

/* PROTOCOL: LogicalTypes.md, Lists, backward-compatibility rules. */
static silt_status convert_list(schema_ctx *c, const pq_pnode *p, int def, int rep,
                                pq_vnode *v, silt_error *err)
{
    const pq_pnode *r, *elem_node;
    pq_vnode *elem;
    if (p->n_children != 1 || repetition_of(&p->children[0]) != PQ_REPEATED)
        return unsupported(err, "a LIST annotation without a single repeated field", p->se->name);
    r = &p->children[0];
    v->rep_level = rep + 1;
    v->elem_def = def + 1;
    if (!is_group(r) || r->n_children > 1 || strcmp(r->se->name, "array") == 0 ||
        (strlen(r->se->name) == strlen(p->se->name) + 6 &&
         strncmp(r->se->name, p->se->name, strlen(p->se->name)) == 0 &&
         strcmp(r->se->name + strlen(p->se->name), "_tuple") == 0)) {
        /* Two-level layout: the repeated field is the (required) element. */
        elem_node = r;
        SILT_RETURN_IF_ERROR(convert(c, r, def + 1, rep + 1, 1, &elem, err));
    } else {
        if (r->n_children == 0)
            return unsupported(err, "an empty group", r->se->name);
        elem_node = &r->children[0];
        SILT_RETURN_IF_ERROR(convert(c, elem_node, def + 1, rep + 1, 0, &elem, err));
    }
    v->children[0] = elem;
    v->type = col_type_array(c->a, elem->type, elem->nullable);
    set_field_id(v->type, 0, elem_node);
    return v->type != NULL ? SILT_OK : err_nomem(err);
}

/* PROTOCOL: LogicalTypes.md, Maps (MAP_KEY_VALUE accepted as MAP). */
static silt_status convert_map(schema_ctx *c, const pq_pnode *p, int def, int rep, pq_vnode *v,
                               silt_error *err)
{
    const pq_pnode *kv;
    pq_vnode *key, *value;
    if (p->n_children != 1 || repetition_of(&p->children[0]) != PQ_REPEATED ||
        !is_group(&p->children[0]))
        return unsupported(err, "a MAP annotation without a repeated key_value group",
                           p->se->name);
    kv = &p->children[0];
    if (kv->n_children != 1 && kv->n_children != 2)
        return unsupported(err, "a map whose key_value group does not have a key and a value",
                           p->se->name);
    v->rep_level = rep + 1;
    v->elem_def = def + 1;
    if (kv->n_children == 1) {
        /* A map without values is a set of keys: read it as an array, as pyarrow does. */
        SILT_RETURN_IF_ERROR(convert(c, &kv->children[0], def + 1, rep + 1, 0, &key, err));
        v->kind = PQ_VN_LIST;
        v->n_children = 1;
        v->children[0] = key;
        v->type = col_type_array(c->a, key->type, key->nullable);
        set_field_id(v->type, 0, &kv->children[0]);
        return v->type != NULL ? SILT_OK : err_nomem(err);
    }
    SILT_RETURN_IF_ERROR(convert(c, &kv->children[0], def + 1, rep + 1, 0, &key, err));
    SILT_RETURN_IF_ERROR(convert(c, &kv->children[1], def + 1, rep + 1, 0, &value, err));
    if (key->kind == PQ_VN_LIST && repetition_of(&kv->children[0]) == PQ_REPEATED)
        return unsupported(err, "a repeated map key", p->se->name);
    v->children[0] = key;
    v->children[1] = value;
    v->type = col_type_map(c->a, key->type, value->type, value->nullable);
    set_field_id(v->type, 0, &kv->children[0]);
    set_field_id(v->type, 1, &kv->children[1]);
    return v->type != NULL ? SILT_OK : err_nomem(err);
}

static int has_annotation(const pq_schema_element *se, pq_logical_kind lt, pq_converted ct)
{
    return se->logical.kind == lt || (se->logical.kind == PQ_LT_NONE && se->converted == ct);
}

static silt_status convert(schema_ctx *c, const pq_pnode *p, int def_parent, int rep_parent,
                           int force_required, pq_vnode **out, silt_error *err)
{
    pq_repetition rep = force_required ? PQ_REQUIRED : repetition_of(p);
    int def = def_parent + (rep == PQ_OPTIONAL ? 1 : 0);
    pq_vnode *v;
    if (rep == PQ_REPEATED) {
        /* An unannotated repeated field: a list of required elements. */
        pq_vnode *elem;
        v = vnode_new(c, PQ_VN_LIST, p->se->name, 1);
        if (v == NULL)
            return err_nomem(err);
        v->def_null = def_parent;
        v->rep_level = rep_parent + 1;
        v->elem_def = def_parent + 1;
        SILT_RETURN_IF_ERROR(convert(c, p, def_parent + 1, rep_parent + 1, 1, &elem, err));
        v->children[0] = elem;
        v->type = col_type_array(c->a, elem->type, 0);
        *out = v;
        return v->type != NULL ? SILT_OK : err_nomem(err);
    }
    if (is_group(p)) {
        int is_list = has_annotation(p->se, PQ_LT_LIST, PQ_CT_LIST);
        int is_map = has_annotation(p->se, PQ_LT_MAP, PQ_CT_MAP) ||
                     p->se->converted == PQ_CT_MAP_KEY_VALUE;
        v = vnode_new(c, is_list ? PQ_VN_LIST : is_map ? PQ_VN_MAP : PQ_VN_STRUCT, p->se->name,
                      is_list ? 1 : is_map ? 2 : p->n_children);
        if (v == NULL)
            return err_nomem(err);
        v->nullable = rep == PQ_OPTIONAL;
        v->def_null = def;
        *out = v;
        if (is_list)
            return convert_list(c, p, def, rep_parent, v, err);
        if (is_map)
            return convert_map(c, p, def, rep_parent, v, err);
        return convert_struct(c, p, def, rep_parent, v, err);
    }
    v = vnode_new(c, PQ_VN_LEAF, p->se->name, 0);
    if (v == NULL)
        return err_nomem(err);
    v->nullable = rep == PQ_OPTIONAL;
    v->def_null = def;
    v->max_def = def;
    v->max_rep = rep_parent;
    v->leaf_idx = p->leaf_idx;
    v->se = p->se;
    *out = v;
    return map_leaf(c, v, err);
}

/* Records every leaf with its dotted path (parquet names). */
static silt_status collect_leaves(schema_ctx *c, const pq_pnode *p, pq_vnode *v, buf *path,
                                  silt_error *err)
{
    (void)p;
    if (v->kind == PQ_VN_LEAF) {
        pq_leaf_info *info;
        if (v->leaf_idx < 0 || (size_t)v->leaf_idx >= c->file->n_leaves)
            return err_set(err, SILT_CORRUPT, "the schema's leaves are inconsistent");
        info = &c->file->leaves[v->leaf_idx];
        info->vnode = v;
        info->path = arena_strdup(c->a, buf_cstr(path));
        return info->path != NULL ? SILT_OK : err_nomem(err);
    }
    {
        size_t idx, mark = path->len;
        for (idx = 0; idx < v->n_children; idx++) {
            buf_truncate(path, mark);
            if (mark > 0)
                SILT_RETURN_IF_ERROR(buf_append_char(path, '.', err));
            SILT_RETURN_IF_ERROR(buf_append_str(path, v->children[idx]->name, err));
            SILT_RETURN_IF_ERROR(collect_leaves(c, NULL, v->children[idx], path, err));
        }
        buf_truncate(path, mark);
    }
    return SILT_OK;
}

silt_status pq_schema_build(pq_file *file, silt_error *err)
{
    schema_ctx ctx;
    pq_vnode *root;
    buf path = BUF_INIT;
    silt_status rc;
    memset(&ctx, 0, sizeof(ctx));
    ctx.file = file;
    ctx.a = file->arena;
    SILT_RETURN_IF_ERROR(build_pnode(&ctx, &file->root, 0, err));
    if (ctx.next_elem != file->meta.n_schema)
        return err_set(err, SILT_CORRUPT, "the schema has %zu elements but its groups hold %zu",
                       file->meta.n_schema, ctx.next_elem);
    file->n_leaves = (size_t)ctx.n_leaves;
    file->leaves = arena_calloc(ctx.a, file->n_leaves ? file->n_leaves : 1, sizeof(pq_leaf_info));
    if (file->leaves == NULL)
        return err_nomem(err);
    root = vnode_new(&ctx, PQ_VN_STRUCT, file->root.se->name, file->root.n_children);
    if (root == NULL)
        return err_nomem(err);
    if (file->root.n_children == 0) {
        root->type = col_type_struct(ctx.a, 0, NULL);
        if (root->type == NULL)
            return err_nomem(err);
    } else {
        SILT_RETURN_IF_ERROR(convert_struct(&ctx, &file->root, 0, 0, root, err));
    }
    file->vroot = root;
    rc = collect_leaves(&ctx, &file->root, root, &path, err);
    buf_clear(&path);
    return rc;
}
