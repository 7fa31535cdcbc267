/*
 * describe.c - the Parquet schema as text (`silt parquet schema --parquet`),
 * in the layout parquet-mr prints a MessageType: repetition, physical type,
 * name, annotation in parentheses, "= id" for field ids.
 */
#include "formats/parquet/reader_int.h"

static const char *logical_name(const pq_logical *lt)
{
    switch (lt->kind) {
    case PQ_LT_STRING: return "STRING";
    case PQ_LT_MAP: return "MAP";
    case PQ_LT_LIST: return "LIST";
    case PQ_LT_ENUM: return "ENUM";
    case PQ_LT_DECIMAL: return "DECIMAL";
    case PQ_LT_DATE: return "DATE";
    case PQ_LT_TIME: return "TIME";
    case PQ_LT_TIMESTAMP: return "TIMESTAMP";
    case PQ_LT_INTEGER: return "INTEGER";
    case PQ_LT_UNKNOWN: return "UNKNOWN";
    case PQ_LT_JSON: return "JSON";
    case PQ_LT_BSON: return "BSON";
    case PQ_LT_UUID: return "UUID";
    case PQ_LT_FLOAT16: return "FLOAT16";
    case PQ_LT_VARIANT: return "VARIANT";
    case PQ_LT_GEOMETRY: return "GEOMETRY";
    case PQ_LT_GEOGRAPHY: return "GEOGRAPHY";
    case PQ_LT_OTHER: return "(unknown logical type)";
    default: return NULL;
    }
}

static silt_status print_annotation(buf *out, const pq_schema_element *se, silt_error *err)
{
    const pq_logical *lt = &se->logical;
    const char *name = logical_name(lt);
    if (name != NULL) {
        static const char *const units[] = {"?", "MILLIS", "MICROS", "NANOS"};
        switch (lt->kind) {
        case PQ_LT_DECIMAL:
            return buf_printf(out, err, " (DECIMAL(%d,%d))", (int)lt->precision, (int)lt->scale);
        case PQ_LT_TIME:
        case PQ_LT_TIMESTAMP:
            return buf_printf(out, err, " (%s(%s,%s))", name, units[lt->unit <= 3 ? lt->unit : 0],
                              lt->is_adjusted_to_utc ? "UTC" : "local");
        case PQ_LT_INTEGER:
            return buf_printf(out, err, " (INTEGER(%d,%s))", (int)lt->bit_width,
                              lt->is_signed ? "signed" : "unsigned");
        default:
            return buf_printf(out, err, " (%s)", name);
        }
    }
    if (se->converted == PQ_CT_DECIMAL)
        return buf_printf(out, err, " (DECIMAL(%d,%d))", (int)se->precision, (int)se->scale);
    if (se->converted != PQ_CT_NONE)
        return buf_printf(out, err, " (%s)", pq_converted_name(se->converted));
    return SILT_OK;
}

static silt_status print_pnode(buf *out, const pq_pnode *p, int depth, silt_error *err)
{
    const pq_schema_element *se = p->se;
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_printf(out, err, "%*s", depth * 2, ""));
    if (depth == 0) {
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "message %s {\n", se->name));
    } else {
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s ",
                                        pq_repetition_name(se->has_repetition ? se->repetition
                                                                              : PQ_REQUIRED)));
        if (p->leaf_idx >= 0) {
            if (se->type == PQ_FIXED_LEN_BYTE_ARRAY)
                SILT_RETURN_IF_ERROR(buf_printf(out, err, "fixed_len_byte_array(%d)",
                                                (int)se->type_length));
            else
                SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s", pq_physical_name(se->type)));
        } else {
            SILT_RETURN_IF_ERROR(buf_append_str(out, "group", err));
        }
        SILT_RETURN_IF_ERROR(buf_printf(out, err, " %s", se->name));
        SILT_RETURN_IF_ERROR(print_annotation(out, se, err));
        if (se->has_field_id)
            SILT_RETURN_IF_ERROR(buf_printf(out, err, " = %d", (int)se->field_id));
        SILT_RETURN_IF_ERROR(buf_append_str(out, p->leaf_idx >= 0 ? ";\n" : " {\n", err));
    }
    for (idx = 0; idx < p->n_children; idx++)
        SILT_RETURN_IF_ERROR(print_pnode(out, &p->children[idx], depth + 1, err));
    if (p->leaf_idx < 0)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "%*s}\n", depth * 2, ""));
    return SILT_OK;
}


silt_status pq_file_format_schema(const pq_file *file, buf *out, silt_error *err)
{
    return print_pnode(out, &file->root, 0, err);
}

void pq_file_chunk_stats(const pq_file *file, const pq_column_chunk *cc, size_t leaf_idx,
                         pq_leaf_stats *out)
{
    pq_leaf_stats_fill(file, file->leaves[leaf_idx].vnode, cc, out);
}
