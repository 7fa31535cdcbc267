/*
 * stats.c - parsing per-file statistics and pruning files with them.
 *
 * PROTOCOL: Per-file Statistics, Partition Value Serialization. The walk
 * follows the table schema, not the JSON: for each leaf column the
 * minValues/maxValues/nullCount objects are descended with the physical
 * names. Timestamps in stats are cut to milliseconds by writers, so a
 * timestamp max is widened by 999 microseconds to stay an upper bound.
 */
#include "delta/stats.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct walk_ctx {
    arena *a;
    dproto_mapping_mode mode;
    const cJSON *min, *max, *nulls;
    dstats *out;
    size_t cap;
    silt_error *err;
} walk_ctx;

/* Typed value of a stats JSON item; 0 when it does not fit the type. */
static int stat_value(arena *a, const cJSON *item, const col_type *type, int is_max,
                      delta_value *out)
{
    memset(out, 0, sizeof(*out));
    out->type = type->id;
    out->scale = type->scale;
    if (item == NULL || cJSON_IsNull(item))
        return 0;
    switch (type->id) {
    case COL_BYTE:
    case COL_SHORT:
    case COL_INT:
    case COL_LONG:
        if (!cJSON_IsNumber(item) || fabs(item->valuedouble) >= 9.2e18)
            return 0;
        out->v.i = (int64_t)item->valuedouble;
        return 1;
    case COL_FLOAT:
    case COL_DOUBLE:
        if (cJSON_IsNumber(item)) {
            out->v.d = item->valuedouble;
            return 1;
        }
        return 0;
    case COL_DECIMAL: {
        /* JSON numbers pass through a double in cJSON: exact only up to 15 digits. */
        char text[64];
        silt_error ignored = SILT_ERROR_INIT;
        col_type wide = *type;
        if (!cJSON_IsNumber(item) || type->scale > 15 ||
            fabs(item->valuedouble) * pow(10.0, type->scale) >= 1e15)
            return 0; /* more digits than a double holds exactly: unknown, not wrong */
        snprintf(text, sizeof(text), "%.*f", (int)type->scale, item->valuedouble);
        return delta_value_parse(out, &wide, text, NULL, &ignored) == SILT_OK;
    }
    case COL_STRING:
    case COL_DATE:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: {
        silt_error ignored = SILT_ERROR_INIT;
        char *copy;
        if (!cJSON_IsString(item))
            return 0;
        copy = arena_strdup(a, item->valuestring);
        if (copy == NULL || delta_value_parse(out, type, copy, NULL, &ignored) != SILT_OK ||
            out->is_null)
            return 0;
        if (is_max && (type->id == COL_TIMESTAMP || type->id == COL_TIMESTAMP_NTZ))
            out->v.i += 999;
        return 1;
    }
    default: return 0;
    }
}

static silt_status add_column(walk_ctx *ctx, const char *path, const col_type *type,
                              const cJSON *min, const cJSON *max, const cJSON *nulls)
{
    dstats_column *col;
    if (ctx->out->n_columns == ctx->cap) {
        size_t new_cap = ctx->cap ? ctx->cap * 2 : 8;
        dstats_column *grown = arena_realloc(ctx->a, ctx->out->columns,
                                             ctx->cap * sizeof(dstats_column),
                                             new_cap * sizeof(dstats_column));
        if (grown == NULL)
            return err_nomem(ctx->err);
        ctx->out->columns = grown;
        ctx->cap = new_cap;
    }
    col = &ctx->out->columns[ctx->out->n_columns++];
    memset(col, 0, sizeof(*col));
    col->path = path;
    col->type = type;
    col->has_min = stat_value(ctx->a, min, type, 0, &col->min);
    col->has_max = stat_value(ctx->a, max, type, 1, &col->max);
    if (cJSON_IsNumber(nulls) && nulls->valuedouble >= 0) {
        col->has_null_count = 1;
        col->null_count = (int64_t)nulls->valuedouble;
    }
    return SILT_OK;
}

static const cJSON *member(const cJSON *obj, const char *name)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, name) : NULL;
}

static silt_status walk(walk_ctx *ctx, const col_type *type, const char *prefix,
                        const cJSON *min, const cJSON *max, const cJSON *nulls)
{
    size_t idx;
    for (idx = 0; idx < type->n_fields; idx++) {
        const col_field *field = &type->fields[idx];
        const char *physical = NULL;
        char *path;
        SILT_RETURN_IF_ERROR(dproto_physical_name(field, ctx->mode, ctx->a, &physical, ctx->err));
        path = prefix ? arena_sprintf(ctx->a, "%s.%s", prefix, field->name)
                      : arena_strdup(ctx->a, field->name);
        if (path == NULL)
            return err_nomem(ctx->err);
        if (field->type->id == COL_STRUCT)
            SILT_RETURN_IF_ERROR(walk(ctx, field->type, path, member(min, physical),
                                      member(max, physical), member(nulls, physical)));
        else if (field->type->id != COL_ARRAY && field->type->id != COL_MAP)
            SILT_RETURN_IF_ERROR(add_column(ctx, path, field->type, member(min, physical),
                                            member(max, physical), member(nulls, physical)));
    }
    return SILT_OK;
}

silt_status dstats_parse(dstats *out, arena *a, const char *json, const col_type *schema,
                         dproto_mapping_mode mode, silt_error *err)
{
    cJSON *root;
    const cJSON *num, *tight;
    walk_ctx ctx;
    silt_status rc;
    memset(out, 0, sizeof(*out));
    out->tight_bounds = 1;
    if (json == NULL)
        return SILT_OK;
    root = cJSON_Parse(json);
    if (root == NULL)
        return err_set(err, SILT_CORRUPT, "file statistics are not valid JSON");
    num = member(root, "numRecords");
    tight = member(root, "tightBounds");
    if (cJSON_IsNumber(num) && num->valuedouble >= 0) {
        out->has_num_records = 1;
        out->num_records = (int64_t)num->valuedouble;
    }
    if (cJSON_IsBool(tight))
        out->tight_bounds = cJSON_IsTrue(tight);
    ctx.a = a;
    ctx.mode = mode;
    ctx.out = out;
    ctx.cap = 0;
    ctx.err = err;
    rc = walk(&ctx, schema, NULL, member(root, "minValues"), member(root, "maxValues"),
              member(root, "nullCount"));
    cJSON_Delete(root);
    return rc;
}

const dstats_column *dstats_find(const dstats *stats, const char *path)
{
    size_t idx;
    for (idx = 0; idx < stats->n_columns; idx++)
        if (strcmp(stats->columns[idx].path, path) == 0)
            return &stats->columns[idx];
    return NULL;
}

/* ---- pruning ---------------------------------------------------------------------------- */

typedef struct prune_ctx {
    const delta_snapshot *snap;
    const delta_file *file;
    arena *scratch;
    dproto_mapping_mode mode;
    int stats_parsed;
    dstats stats;
    silt_error *err;
} prune_ctx;

/* The top-level field of a partition column named by path, or NULL. */
static const col_field *partition_field(const delta_snapshot *snap, const char *path)
{
    size_t idx, col;
    for (idx = 0; idx < snap->metadata.n_partition_columns; idx++) {
        if (strcmp(snap->metadata.partition_columns[idx], path) != 0)
            continue;
        for (col = 0; col < snap->schema->n_fields; col++)
            if (strcmp(snap->schema->fields[col].name, path) == 0)
                return &snap->schema->fields[col];
    }
    return NULL;
}

static int cmp_holds(dpred_op op, int cmp)
{
    switch (op) {
    case DPRED_EQ: return cmp == 0;
    case DPRED_NE: return cmp != 0;
    case DPRED_LT: return cmp < 0;
    case DPRED_LE: return cmp <= 0;
    case DPRED_GT: return cmp > 0;
    case DPRED_GE: return cmp >= 0;
    }
    return 1;
}

static silt_status on_partition(prune_ctx *ctx, const dpred *pred, const col_field *field,
                                int *out)
{
    const char *physical = NULL;
    delta_value value;
    int cmp;
    SILT_RETURN_IF_ERROR(dproto_physical_name(field, ctx->mode, ctx->scratch, &physical, ctx->err));
    SILT_RETURN_IF_ERROR(delta_value_parse(&value, field->type,
                                           dlog_map_get(&ctx->file->partition_values, physical, NULL),
                                           field->name, ctx->err));
    if (pred->kind == DPRED_IS_NULL || pred->kind == DPRED_IS_NOT_NULL) {
        *out = value.is_null == (pred->kind == DPRED_IS_NULL);
        return SILT_OK;
    }
    if (value.is_null || pred->literal.is_null) {
        *out = 0; /* a comparison with null is never true */
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(delta_value_compare(&value, &pred->literal, &cmp, ctx->err));
    *out = cmp_holds(pred->op, cmp);
    return SILT_OK;
}

int dstats_bounds_may_match(const dpred *pred, const dstats_bounds *bounds)
{
    /* AND/OR over one column (the node names it): the same bounds decide each side */
    if (pred->kind == DPRED_AND)
        return dstats_bounds_may_match(pred->left, bounds) &&
               dstats_bounds_may_match(pred->right, bounds);
    if (pred->kind == DPRED_OR)
        return dstats_bounds_may_match(pred->left, bounds) ||
               dstats_bounds_may_match(pred->right, bounds);
    int all_null = bounds->has_null_count && bounds->has_rows &&
                   bounds->null_count >= bounds->rows;
    int c_lo = 0, c_hi = 0;
    int lo = bounds->has_min && bounds->min.type == pred->literal.type && !bounds->min.is_null &&
             delta_value_compare(&bounds->min, &pred->literal, &c_lo, NULL) == SILT_OK;
    int hi = bounds->has_max && bounds->max.type == pred->literal.type && !bounds->max.is_null &&
             delta_value_compare(&bounds->max, &pred->literal, &c_hi, NULL) == SILT_OK;
    if (pred->kind == DPRED_IS_NULL)
        return !(bounds->has_null_count && bounds->null_count == 0);
    if (pred->kind == DPRED_IS_NOT_NULL)
        return !all_null;
    if (pred->kind != DPRED_CMP)
        return 1;
    if (all_null || pred->literal.is_null)
        return 0; /* a comparison with null is never true */
    switch (pred->op) {
    case DPRED_EQ: return !(lo && c_lo > 0) && !(hi && c_hi < 0);
    case DPRED_NE: return !(lo && hi && c_lo == 0 && c_hi == 0);
    case DPRED_LT: return !(lo && c_lo >= 0);
    case DPRED_LE: return !(lo && c_lo > 0);
    case DPRED_GT: return !(hi && c_hi <= 0);
    case DPRED_GE: return !(hi && c_hi < 0);
    }
    return 1;
}

static silt_status on_stats(prune_ctx *ctx, const dpred *pred, int *out)
{
    const dstats_column *col;
    dstats_bounds bounds;
    *out = 1;
    if (!ctx->stats_parsed) {
        silt_status rc = dstats_parse(&ctx->stats, ctx->scratch, ctx->file->stats,
                                      ctx->snap->schema, ctx->mode, ctx->err);
        if (rc == SILT_CORRUPT) {
            memset(&ctx->stats, 0, sizeof(ctx->stats)); /* unreadable stats just do not help */
        } else if (rc != SILT_OK) {
            return rc;
        }
        ctx->stats_parsed = 1;
    }
    col = dstats_find(&ctx->stats, pred->column);
    if (col == NULL)
        return SILT_OK;
    bounds.has_min = col->has_min;
    bounds.has_max = col->has_max;
    bounds.min = col->min;
    bounds.max = col->max;
    bounds.has_null_count = col->has_null_count;
    bounds.null_count = col->null_count;
    bounds.has_rows = ctx->stats.has_num_records;
    bounds.rows = ctx->stats.num_records;
    *out = dstats_bounds_may_match(pred, &bounds);
    return SILT_OK;
}

static silt_status eval(prune_ctx *ctx, const dpred *pred, int *out)
{
    const col_field *part;
    int left = 1, right = 1;
    switch (pred->kind) {
    case DPRED_AND:
        SILT_RETURN_IF_ERROR(eval(ctx, pred->left, &left));
        if (left)
            SILT_RETURN_IF_ERROR(eval(ctx, pred->right, &right));
        *out = left && right;
        return SILT_OK;
    case DPRED_OR:
        SILT_RETURN_IF_ERROR(eval(ctx, pred->left, &left));
        if (!left)
            SILT_RETURN_IF_ERROR(eval(ctx, pred->right, &right));
        *out = left || right;
        return SILT_OK;
    default: break;
    }
    if (pred->kind == DPRED_CMP && pred->literal.is_null) {
        *out = 0; /* a comparison with null is never true, whatever the stats */
        return SILT_OK;
    }
    part = partition_field(ctx->snap, pred->column);
    if (part != NULL)
        return on_partition(ctx, pred, part, out);
    return on_stats(ctx, pred, out);
}

silt_status dstats_file_may_match(const dpred *pred, const delta_snapshot *snap,
                                  const delta_file *file, arena *scratch, int *may_match_out,
                                  silt_error *err)
{
    prune_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.snap = snap;
    ctx.file = file;
    ctx.scratch = scratch;
    ctx.err = err;
    SILT_RETURN_IF_ERROR(dproto_get_mapping_mode(&snap->metadata, &ctx.mode, err));
    *may_match_out = 1;
    return eval(&ctx, pred, may_match_out);
}

silt_status dstats_prune_files(const delta_snapshot *snap, const dpred *preds, size_t n_preds,
                               uint8_t *keep, size_t *n_kept, silt_error *err)
{
    arena *scratch = arena_new(NULL, "file pruning");
    silt_status rc = SILT_OK;
    size_t idx, p;
    *n_kept = 0;
    if (scratch == NULL)
        return err_nomem(err);
    for (idx = 0; idx < snap->n_files && rc == SILT_OK; idx++) {
        int may = 1;
        for (p = 0; p < n_preds && may && rc == SILT_OK; p++)
            rc = dstats_file_may_match(&preds[p], snap, &snap->files[idx], scratch, &may, err);
        arena_reset(scratch);
        keep[idx] = (uint8_t)may;
        *n_kept += (size_t)may;
    }
    arena_free(scratch);
    return rc;
}
