/*
 * dml_stats.c - whether a file's statistics prove that every row satisfies
 * a conjunction of simple predicates (dml.h), so that DELETE removes the
 * file without reading it.
 *
 * The mirror image of dstats_file_may_match, and stricter: a column with
 * any null (or an unknown null count) fails, since a comparison with null
 * is not true and such a row stays; float and double columns fail (NaN is
 * left out of min/max); a string literal of 32 bytes or more fails, since
 * writers truncate string bounds to 32 characters, so min = max = literal
 * no longer proves equality. Files with deletion vectors or loose bounds
 * (tightBounds false) fail too. A predicate on a partition column is exact
 * (one value per file), so there "may match" is "all match".
 */
#include <string.h>

#include "delta/dml.h"

static int is_partition_column(const delta_snapshot *snap, const char *name)
{
    size_t idx;
    for (idx = 0; idx < snap->metadata.n_partition_columns; idx++)
        if (strcmp(snap->metadata.partition_columns[idx], name) == 0)
            return 1;
    return 0;
}

/* Every value v of [min, max] satisfies "v op literal". */
static silt_status range_holds(const dstats_column *col, const dpred *pred, int *out,
                               silt_error *err)
{
    int cmp_min, cmp_max;
    SILT_RETURN_IF_ERROR(delta_value_compare(&col->min, &pred->literal, &cmp_min, err));
    SILT_RETURN_IF_ERROR(delta_value_compare(&col->max, &pred->literal, &cmp_max, err));
    switch (pred->op) {
    case DPRED_EQ: *out = cmp_min == 0 && cmp_max == 0; break;
    case DPRED_NE: *out = cmp_max < 0 || cmp_min > 0; break;
    case DPRED_LT: *out = cmp_max < 0; break;
    case DPRED_LE: *out = cmp_max <= 0; break;
    case DPRED_GT: *out = cmp_min > 0; break;
    case DPRED_GE: *out = cmp_min >= 0; break;
    default: *out = 0; break;
    }
    return SILT_OK;
}

/* One predicate on a data column, from its stats. */
static silt_status column_all_match(const dstats *st, const dpred *pred, int *out,
                                    silt_error *err)
{
    const dstats_column *col = dstats_find(st, pred->column);
    col_type_id id;
    *out = 0;
    if (col == NULL || !col->has_null_count)
        return SILT_OK;
    if (pred->kind == DPRED_IS_NULL) {
        *out = col->null_count == st->num_records;
        return SILT_OK;
    }
    if (pred->kind == DPRED_IS_NOT_NULL) {
        *out = col->null_count == 0;
        return SILT_OK;
    }
    id = col->type->id;
    if (pred->kind != DPRED_CMP || col->null_count != 0 || !col->has_min || !col->has_max ||
        pred->literal.is_null || id == COL_FLOAT || id == COL_DOUBLE)
        return SILT_OK;
    if (id == COL_STRING && pred->literal.v.s.len >= 32)
        return SILT_OK;
    return range_holds(col, pred, out, err);
}

silt_status delta_file_all_rows_match(const dpred *preds, size_t n_preds,
                                      const delta_snapshot *snap, const delta_file *file,
                                      arena *scratch, int *out, silt_error *err)
{
    dstats st;
    dproto_mapping_mode mode = DPROTO_MAPPING_NONE;
    int parsed = 0, holds = 1;
    size_t idx;
    *out = 0;
    if (n_preds == 0 || file->dv.storage_type != 0)
        return SILT_OK;
    for (idx = 0; idx < n_preds && holds; idx++) {
        const dpred *p = &preds[idx];
        if (p->kind != DPRED_CMP && p->kind != DPRED_IS_NULL && p->kind != DPRED_IS_NOT_NULL)
            return SILT_OK;
        if (is_partition_column(snap, p->column)) {
            SILT_RETURN_IF_ERROR(dstats_file_may_match(p, snap, file, scratch, &holds, err));
            continue;
        }
        if (!parsed) {
            SILT_RETURN_IF_ERROR(dproto_get_mapping_mode(&snap->metadata, &mode, err));
            if (file->stats == NULL ||
                dstats_parse(&st, scratch, file->stats, snap->schema, mode, err) != SILT_OK) {
                err_clear(err);
                return SILT_OK; /* no stats (or unreadable ones) prove nothing */
            }
            if (!st.has_num_records || !st.tight_bounds)
                return SILT_OK;
            parsed = 1;
        }
        SILT_RETURN_IF_ERROR(column_all_match(&st, p, &holds, err));
    }
    *out = holds;
    return SILT_OK;
}
