/*
 * writer_schema.c - maps a Delta schema to Parquet schema elements and leaf
 * columns (LogicalTypes.md of apache/parquet-format; the Delta-to-Parquet
 * mapping is the one Spark uses, see writer.h).
 *
 * The schema is a depth-first list of SchemaElements, the root first. Both
 * the LogicalType and the legacy ConvertedType are written where one
 * exists, because older readers (parquet-mr before 1.11, Spark 2) only know
 * ConvertedType. Lists use the 3-level form and maps the key_value form
 * that LogicalTypes.md requires of writers.
 */
#include "formats/parquet/writer_int.h"

#include "util/mem.h"

/* The deepest schema we accept; levels are kept in 16 bits. */
#define PQW_MAX_DEPTH 200

typedef struct build_ctx {
    pqw_step steps[PQW_MAX_DEPTH];
    const char *path[PQW_MAX_DEPTH * 2];
    const char *lpath[PQW_MAX_DEPTH];
    size_t n_steps, n_path, n_lpath;
    size_t top_col;
    int in_repeated;
} build_ctx;

static silt_status add_elem(pqw_writer *w, pqw_schema_elem **out, silt_error *err)
{
    if (w->n_elems == w->cap_elems) {
        size_t cap = w->cap_elems ? w->cap_elems * 2 : 16;
        pqw_schema_elem *elems = mem_realloc(w->elems, cap * sizeof(*elems));
        if (elems == NULL)
            return err_nomem(err);
        w->elems = elems;
        w->cap_elems = cap;
    }
    pqw_schema_elem *se = &w->elems[w->n_elems++];
    memset(se, 0, sizeof(*se));
    se->num_children = -1;
    se->converted_type = PQW_CONV_NONE;
    se->has_repetition = 1;
    *out = se;
    return SILT_OK;
}

/* Fewest bytes of a two's complement integer holding `precision` digits (Spark's rule). */
static int32_t decimal_bytes(int32_t precision)
{
    int32_t bytes = 1;
    for (;;) {
        /* largest positive value in `bytes` bytes: 2^(8*bytes-1) - 1 >= 10^precision - 1 */
        double max = 1.0;
        for (int32_t b = 0; b < 8 * bytes - 1; b++)
            max *= 2.0;
        double need = 1.0;
        for (int32_t p = 0; p < precision; p++)
            need *= 10.0;
        if (max >= need)
            return bytes;
        bytes++;
    }
}

/* Physical type, width, annotation and stats kind of a primitive leaf. */
static silt_status leaf_type(pqw_schema_elem *se, pqw_leaf *leaf, const col_type *type,
                             int int96, silt_error *err)
{
    se->has_type = 1;
    leaf->stat_kind = PQW_SK_INT;
    switch (type->id) {
    case COL_BOOLEAN:
        se->type = PQW_BOOLEAN;
        leaf->width = 1;
        break;
    case COL_BYTE:
    case COL_SHORT:
        se->type = PQW_INT32;
        leaf->width = 4;
        se->converted_type = type->id == COL_BYTE ? PQW_CONV_INT_8 : PQW_CONV_INT_16;
        se->logical.kind = PQW_LT_INTEGER;
        se->logical.bit_width = type->id == COL_BYTE ? 8 : 16;
        se->logical.is_signed = 1;
        break;
    case COL_INT:
        se->type = PQW_INT32;
        leaf->width = 4;
        break;
    case COL_DATE:
        se->type = PQW_INT32;
        leaf->width = 4;
        se->converted_type = PQW_CONV_DATE;
        se->logical.kind = PQW_LT_DATE;
        break;
    case COL_LONG:
        se->type = PQW_INT64;
        leaf->width = 8;
        break;
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        if (int96 && type->id == COL_TIMESTAMP) {
            /* Legacy INT96 carries no annotation (LogicalTypes.md, INT96). */
            se->type = PQW_INT96;
            leaf->width = 12;
            break;
        }
        se->type = PQW_INT64;
        leaf->width = 8;
        se->logical.kind = PQW_LT_TIMESTAMP;
        se->logical.unit = PQW_UNIT_MICROS;
        se->logical.utc_adjusted = type->id == COL_TIMESTAMP;
        /* TIMESTAMP_MICROS means UTC-adjusted; ntz has no converted type. */
        if (type->id == COL_TIMESTAMP)
            se->converted_type = PQW_CONV_TIMESTAMP_MICROS;
        break;
    case COL_FLOAT:
        se->type = PQW_FLOAT;
        leaf->width = 4;
        leaf->stat_kind = PQW_SK_DOUBLE;
        break;
    case COL_DOUBLE:
        se->type = PQW_DOUBLE;
        leaf->width = 8;
        leaf->stat_kind = PQW_SK_DOUBLE;
        break;
    case COL_DECIMAL:
        if (type->precision < 1 || type->precision > 38 || type->scale < 0 ||
            type->scale > type->precision)
            return err_set(err, SILT_INVALID, "could not write decimal(%d,%d): precision must be "
                           "1..38 and scale 0..precision", (int)type->precision, (int)type->scale);
        leaf->stat_kind = PQW_SK_DEC;
        if (type->precision <= 9) {
            se->type = PQW_INT32;
            leaf->width = 4;
        } else if (type->precision <= 18) {
            se->type = PQW_INT64;
            leaf->width = 8;
        } else {
            se->type = PQW_FIXED_LEN_BYTE_ARRAY;
            se->type_length = decimal_bytes(type->precision);
            leaf->width = (size_t)se->type_length;
        }
        se->converted_type = PQW_CONV_DECIMAL;
        se->scale = type->scale;
        se->precision = type->precision;
        se->logical.kind = PQW_LT_DECIMAL;
        se->logical.scale = type->scale;
        se->logical.precision = type->precision;
        break;
    case COL_STRING:
        se->type = PQW_BYTE_ARRAY;
        se->converted_type = PQW_CONV_UTF8;
        se->logical.kind = PQW_LT_STRING;
        leaf->stat_kind = PQW_SK_BYTES;
        break;
    case COL_BINARY:
        se->type = PQW_BYTE_ARRAY;
        leaf->stat_kind = PQW_SK_BYTES;
        break;
    default:
        return err_set(err, SILT_UNSUPPORTED, "could not write a column of type \"%s\" to "
                       "Parquet", col_type_id_name(type->id));
    }
    leaf->phys = se->type;
    leaf->type_len = se->type_length;
    return SILT_OK;
}

static silt_status add_leaf(pqw_writer *w, build_ctx *ctx, const col_type *type, int16_t def,
                            int16_t rep, pqw_schema_elem *se, silt_error *err)
{
    if (w->n_leaves == w->cap_leaves) {
        size_t cap = w->cap_leaves ? w->cap_leaves * 2 : 8;
        pqw_leaf *leaves = mem_realloc(w->leaves, cap * sizeof(*leaves));
        if (leaves == NULL)
            return err_nomem(err);
        w->leaves = leaves;
        w->cap_leaves = cap;
    }
    pqw_leaf *leaf = &w->leaves[w->n_leaves];
    memset(leaf, 0, sizeof(*leaf));
    SILT_RETURN_IF_ERROR(leaf_type(se, leaf, type, w->opts.timestamp_int96, err));
    leaf->type = type;
    leaf->tid = type->id;
    leaf->top_col = ctx->top_col;
    leaf->max_def = def;
    leaf->max_rep = rep;
    leaf->in_repeated = ctx->in_repeated;
    leaf->n_steps = ctx->n_steps;
    leaf->steps = arena_memdup(w->meta, ctx->steps, ctx->n_steps * sizeof(pqw_step));
    leaf->path_len = ctx->n_path;
    leaf->path = arena_memdup(w->meta, ctx->path, ctx->n_path * sizeof(char *));
    leaf->lpath_len = ctx->n_lpath;
    leaf->lpath = arena_memdup(w->meta, ctx->lpath, ctx->n_lpath * sizeof(char *));
    if (leaf->steps == NULL || leaf->path == NULL || leaf->lpath == NULL)
        return err_nomem(err);
    buf_init(&leaf->def, 0);
    buf_init(&leaf->rep, 0);
    buf_init(&leaf->vals, 0);
    buf_init(&leaf->pos, 0);
    buf_init(&leaf->gather, 0);
    buf_init(&leaf->ptrs, 0);
    buf_init(&leaf->lens, 0);
    buf_init(&leaf->chunk, 0);
    pqw_dict_init(&leaf->dict, leaf->phys == PQW_BYTE_ARRAY ? 0 : leaf->width);
    pqw_minmax_init(&leaf->chunk_mm);
    pqw_minmax_init(&leaf->page_mm);
    buf_init(&leaf->pages, 0);
    leaf->page_bounds_ok = 1;
    pqw_minmax_init(&leaf->file_mm);
    leaf->dict_mode = w->opts.dictionary && leaf->phys != PQW_BOOLEAN;
    w->n_leaves++;
    return SILT_OK;
}

static silt_status add_node(pqw_writer *w, build_ctx *ctx, const char *name, const char *lname,
                            const col_type *type, int nullable, int32_t field_id, int16_t def,
                            int16_t rep, silt_error *err);

/* Element `child` of a STRUCT, LIST or MAP step at the top of ctx. */
static silt_status add_child(pqw_writer *w, build_ctx *ctx, size_t child, const char *name,
                             const col_field *field, int nullable, int16_t def, int16_t rep,
                             silt_error *err)
{
    ctx->steps[ctx->n_steps - 1].child = child;
    return add_node(w, ctx, name, field->name, field->type, nullable, field->field_id, def, rep,
                    err);
}

static silt_status add_node(pqw_writer *w, build_ctx *ctx, const char *name, const char *lname,
                            const col_type *type, int nullable, int32_t field_id, int16_t def,
                            int16_t rep, silt_error *err)
{
    if (ctx->n_steps >= PQW_MAX_DEPTH || ctx->n_path + 2 > PQW_MAX_DEPTH * 2)
        return err_set(err, SILT_UNSUPPORTED, "could not write column \"%s\": nested deeper "
                       "than %d levels", lname, PQW_MAX_DEPTH);
    pqw_schema_elem *se = NULL;
    SILT_RETURN_IF_ERROR(add_elem(w, &se, err));
    size_t elem_idx = w->n_elems - 1;
    se->name = name;
    se->repetition = nullable ? PQW_OPTIONAL : PQW_REQUIRED;
    if (w->opts.write_field_ids && field_id >= 0) {
        se->has_field_id = 1;
        se->field_id = field_id;
    }
    if (nullable)
        def++;
    pqw_step *step = &ctx->steps[ctx->n_steps++];
    memset(step, 0, sizeof(*step));
    step->nullable = nullable;
    step->name = lname;
    ctx->path[ctx->n_path++] = name;
    ctx->lpath[ctx->n_lpath++] = lname;
    size_t saved_path = ctx->n_path;
    int saved_repeated = ctx->in_repeated;
    silt_status rc = SILT_OK;

    switch (type->id) {
    case COL_STRUCT:
        if (type->n_fields == 0)
            return err_set(err, SILT_UNSUPPORTED, "could not write column \"%s\": Parquet has "
                           "no empty groups", lname);
        step->kind = PQW_STEP_STRUCT;
        se->num_children = (int32_t)type->n_fields;
        for (size_t f = 0; f < type->n_fields && rc == SILT_OK; f++) {
            const col_field *field = &type->fields[f];
            rc = add_child(w, ctx, f, field->name, field, field->nullable, def, rep, err);
        }
        break;
    case COL_ARRAY:
    case COL_MAP: {
        int is_map = type->id == COL_MAP;
        if (type->n_fields != (size_t)(is_map ? 2 : 1))
            return err_set(err, SILT_INVALID, "could not write column \"%s\": malformed %s type",
                           lname, is_map ? "map" : "array");
        step->kind = PQW_STEP_LIST;
        step->rep_level = (int16_t)(rep + 1);
        se->num_children = 1;
        se->converted_type = is_map ? PQW_CONV_MAP : PQW_CONV_LIST;
        se->logical.kind = is_map ? PQW_LT_MAP : PQW_LT_LIST;
        pqw_schema_elem *group = NULL;
        rc = add_elem(w, &group, err);
        if (rc != SILT_OK)
            break;
        group->name = is_map ? "key_value" : "list";
        group->repetition = PQW_REPEATED;
        group->num_children = is_map ? 2 : 1;
        ctx->path[ctx->n_path++] = group->name;
        ctx->in_repeated = 1;
        if (is_map) {
            /* Keys are never null (LogicalTypes.md, Maps). */
            rc = add_child(w, ctx, 0, "key", &type->fields[0], 0, (int16_t)(def + 1),
                           (int16_t)(rep + 1), err);
            if (rc == SILT_OK)
                rc = add_child(w, ctx, 1, "value", &type->fields[1], type->fields[1].nullable,
                               (int16_t)(def + 1), (int16_t)(rep + 1), err);
        } else {
            rc = add_child(w, ctx, 0, "element", &type->fields[0], type->fields[0].nullable,
                           (int16_t)(def + 1), (int16_t)(rep + 1), err);
        }
        break;
    }
    default:
        step->kind = PQW_STEP_LEAF;
        rc = add_leaf(w, ctx, type, def, rep, &w->elems[elem_idx], err);
        break;
    }
    ctx->n_steps--;
    ctx->n_path = saved_path - 1;
    ctx->n_lpath--;
    ctx->in_repeated = saved_repeated;
    return rc;
}

silt_status pqw_schema_build(pqw_writer *w, silt_error *err)
{
    const col_type *schema = w->schema;
    if (schema == NULL || schema->id != COL_STRUCT)
        return err_set(err, SILT_INVALID, "could not write Parquet: the schema must be a struct");
    if (schema->n_fields == 0)
        return err_set(err, SILT_INVALID, "could not write Parquet: the schema has no columns");
    pqw_schema_elem *root = NULL;
    SILT_RETURN_IF_ERROR(add_elem(w, &root, err));
    root->name = "spark_schema";
    root->has_repetition = 0;
    root->num_children = (int32_t)schema->n_fields;
    build_ctx *ctx = mem_calloc(1, sizeof(*ctx));
    if (ctx == NULL)
        return err_nomem(err);
    silt_status rc = SILT_OK;
    for (size_t col = 0; col < schema->n_fields && rc == SILT_OK; col++) {
        const col_field *field = &schema->fields[col];
        ctx->top_col = col;
        rc = add_node(w, ctx, field->name, field->name, field->type, field->nullable,
                      field->field_id, 0, 0, err);
    }
    mem_free(ctx);
    return rc;
}
