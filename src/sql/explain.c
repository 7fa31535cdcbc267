/*
 * explain.c - EXPLAIN: the operator tree, then what the scans were told
 * (pushed filters) and what they skipped (files and partitions), in the
 * spirit of Spark's "== Physical Plan ==" section.
 */
#include "sql/binder_int.h"

static silt_status print_op(const engine_op *op, int depth, buf *out, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(buf_printf(out, err, "%*s%s%s [", depth * 3, "", depth ? "+- " : "",
                                    op->vt->name));
    for (idx = 0; idx < op->schema->n_fields; idx++)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s%s", idx ? ", " : "",
                                        op->schema->fields[idx].name));
    SILT_RETURN_IF_ERROR(buf_append_str(out, "]\n", err));
    for (idx = 0; idx < op->n_children; idx++)
        SILT_RETURN_IF_ERROR(print_op(op->children[idx], depth + 1, out, err));
    return SILT_OK;
}

silt_status explain_plan(binder *b, const plan *p, buf *out, silt_error *err)
{
    const scan_note *note;
    SILT_RETURN_IF_ERROR(buf_append_str(out, "== Physical Plan ==\n", err));
    SILT_RETURN_IF_ERROR(print_op(p->op, 0, out, err));
    if (b->notes != NULL)
        SILT_RETURN_IF_ERROR(buf_append_str(out, "\n== Scans ==\n", err));
    for (note = b->notes; note != NULL; note = note->next)
        SILT_RETURN_IF_ERROR(buf_printf(out, err, "%s\n", note->text));
    return SILT_OK;
}
