/*
 * stats_write.c - the stats JSON of a data file silt writes.
 *
 * PROTOCOL: Per-file Statistics. {"numRecords":N,"minValues":{..},
 * "maxValues":{..},"nullCount":{..}}, nested like the schema, for the
 * first delta.dataSkippingNumIndexedCols leaf columns (32 by default;
 * leaves are counted depth-first, arrays and maps count as one leaf). As
 * Delta does:
 *   - min/max only for numbers, decimals, strings, dates and timestamps
 *     (not booleans, binaries, arrays or maps, which get a null count only);
 *   - strings are cut to 32 characters; a cut max gets the tie-breaker
 *     U+10FFFF appended so that it still bounds every value from above;
 *   - timestamps are written to the millisecond ("2021-09-08T11:11:11.000Z",
 *     without the Z for timestamp_ntz); readers widen a max by 999 us;
 *   - NaN and infinite floats leave min/max out.
 * Numbers go out as raw JSON text so that longs and decimals are exact.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "delta/txn.h"
#include "util/time.h"

typedef struct stats_ctx {
    const delta_col_stats *columns;
    size_t n_columns;
    int remaining; /* leaf columns still to index; < 0 = all */
    cJSON *min, *max, *nulls;
    buf path;
    silt_error *err;
} stats_ctx;

static const delta_col_stats *find_column(const stats_ctx *ctx, const char *path)
{
    size_t idx;
    for (idx = 0; idx < ctx->n_columns; idx++)
        if (strcmp(ctx->columns[idx].path, path) == 0)
            return &ctx->columns[idx];
    return NULL;
}

/* The object at the nesting of the current path under root, created on demand. */
static cJSON *nested(cJSON *root, const char *const *names, size_t depth)
{
    size_t idx;
    cJSON *obj = root;
    for (idx = 0; idx < depth && obj != NULL; idx++) {
        cJSON *child = cJSON_GetObjectItemCaseSensitive(obj, names[idx]);
        if (child == NULL) {
            child = cJSON_CreateObject();
            if (child == NULL || !cJSON_AddItemToObject(obj, names[idx], child))
                return NULL;
        }
        obj = child;
    }
    return obj;
}

/* Length in bytes of the first n characters of a UTF-8 string (or all of it). */
static size_t utf8_prefix(const char *s, size_t len, size_t n_chars)
{
    size_t pos = 0, chars = 0;
    while (pos < len && chars < n_chars) {
        pos++;
        while (pos < len && ((unsigned char)s[pos] & 0xC0) == 0x80)
            pos++;
        chars++;
    }
    return pos;
}

#define MAX_CODE_POINT "\xF4\x8F\xBF\xBF" /* U+10FFFF */

static cJSON *string_json(const delta_value *v, int is_max)
{
    size_t cut = utf8_prefix(v->v.s.ptr, v->v.s.len, DELTA_STATS_STRING_PREFIX);
    char *text;
    cJSON *item;
    if (is_max)
        /* A cut before U+10FFFF characters would make prefix+U+10FFFF smaller: cut after them. */
        while (v->v.s.len - cut >= 4 && memcmp(v->v.s.ptr + cut, MAX_CODE_POINT, 4) == 0)
            cut += 4;
    text = cJSON_malloc(cut + 5);
    if (text == NULL)
        return NULL;
    memcpy(text, v->v.s.ptr, cut);
    text[cut] = '\0';
    if (is_max && cut < v->v.s.len)
        memcpy(text + cut, MAX_CODE_POINT, 5);
    item = cJSON_CreateString(text);
    cJSON_free(text);
    return item;
}

static void decimal_text(col_int128 unscaled, int scale, char *out, size_t cap)
{
    char digits[64];
    size_t n = 0, pos = 0, idx;
    int negative = unscaled < 0;
    /* The magnitude without overflowing on the most negative value. */
    unsigned __int128 mag = negative ? (unsigned __int128)(-(unscaled + 1)) + 1
                                     : (unsigned __int128)unscaled;
    do {
        digits[n++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag > 0);
    while (n <= (size_t)scale)
        digits[n++] = '0';
    if (negative && pos + 1 < cap)
        out[pos++] = '-';
    for (idx = n; idx > 0 && pos + 2 < cap; idx--) {
        out[pos++] = digits[idx - 1];
        if (scale > 0 && idx - 1 == (size_t)scale)
            out[pos++] = '.';
    }
    out[pos] = '\0';
}

/* The JSON item of a min or max; NULL when the value is not written. */
static cJSON *value_json(const delta_value *v, col_type_id type, int is_max)
{
    char text[96];
    switch (type) {
    case COL_BYTE:
    case COL_SHORT:
    case COL_INT:
    case COL_LONG:
        snprintf(text, sizeof(text), "%lld", (long long)v->v.i);
        return cJSON_CreateRaw(text);
    case COL_FLOAT:
    case COL_DOUBLE:
        if (isnan(v->v.d) || isinf(v->v.d))
            return NULL;
        snprintf(text, sizeof(text), type == COL_FLOAT ? "%.9g" : "%.17g", v->v.d);
        return cJSON_CreateRaw(text);
    case COL_DECIMAL:
        decimal_text(v->v.dec, v->scale, text, sizeof(text));
        return cJSON_CreateRaw(text);
    case COL_STRING: return string_json(v, is_max);
    case COL_DATE:
        time_format_date((int32_t)v->v.i, text, sizeof(text));
        return cJSON_CreateString(text);
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        time_format_timestamp(time_floor_div(v->v.i, 1000) * 1000, 'T', 3, type == COL_TIMESTAMP,
                              text, sizeof(text));
        return cJSON_CreateString(text);
    default: return NULL;
    }
}

static int add_at(cJSON *root, const char *const *names, size_t depth, cJSON *item)
{
    cJSON *parent;
    if (item == NULL)
        return 1; /* nothing to write */
    parent = nested(root, names, depth - 1);
    if (parent == NULL || !cJSON_AddItemToObject(parent, names[depth - 1], item)) {
        cJSON_Delete(item);
        return 0;
    }
    return 1;
}

static silt_status leaf(stats_ctx *ctx, const col_type *type, const char *const *names,
                        size_t depth)
{
    const delta_col_stats *st;
    char count[32];
    if (ctx->remaining == 0)
        return SILT_OK;
    if (ctx->remaining > 0)
        ctx->remaining--;
    st = find_column(ctx, buf_cstr(&ctx->path));
    if (st == NULL)
        return SILT_OK;
    if (st->has_null_count) {
        snprintf(count, sizeof(count), "%lld", (long long)st->null_count);
        if (!add_at(ctx->nulls, names, depth, cJSON_CreateRaw(count)))
            return err_nomem(ctx->err);
    }
    if (st->has_min_max && !col_type_is_nested(type->id) && type->id != COL_BOOLEAN &&
        type->id != COL_BINARY) {
        if (st->min.type != type->id || st->max.type != type->id)
            return err_set(ctx->err, SILT_INVALID,
                           "statistics of column \"%s\" have a type other than the column's",
                           st->path);
        if (!st->min.is_null && !add_at(ctx->min, names, depth, value_json(&st->min, type->id, 0)))
            return err_nomem(ctx->err);
        if (!st->max.is_null && !add_at(ctx->max, names, depth, value_json(&st->max, type->id, 1)))
            return err_nomem(ctx->err);
    }
    return SILT_OK;
}

#define STATS_MAX_DEPTH 64

static silt_status walk(stats_ctx *ctx, const col_type *type, const char **names, size_t depth)
{
    size_t idx, path_len = ctx->path.len;
    if (type->id != COL_STRUCT)
        return leaf(ctx, type, names, depth);
    if (depth >= STATS_MAX_DEPTH)
        return err_set(ctx->err, SILT_INVALID, "the schema nests structs deeper than %d levels",
                       STATS_MAX_DEPTH);
    for (idx = 0; idx < type->n_fields; idx++) {
        const col_field *f = &type->fields[idx];
        buf_truncate(&ctx->path, path_len);
        if (path_len > 0)
            SILT_RETURN_IF_ERROR(buf_append_char(&ctx->path, '.', ctx->err));
        SILT_RETURN_IF_ERROR(buf_append_str(&ctx->path, f->name, ctx->err));
        names[depth] = f->name;
        SILT_RETURN_IF_ERROR(walk(ctx, f->type, names, depth + 1));
    }
    buf_truncate(&ctx->path, path_len);
    return SILT_OK;
}

static silt_status emit(cJSON *root, int64_t num_records, stats_ctx *ctx, buf *out, silt_error *err)
{
    char count[32];
    char *text;
    silt_status rc;
    snprintf(count, sizeof(count), "%lld", (long long)num_records);
    cJSON_AddItemToObject(root, "numRecords", cJSON_CreateRaw(count));
    cJSON_AddItemToObject(root, "minValues", ctx->min);
    cJSON_AddItemToObject(root, "maxValues", ctx->max);
    cJSON_AddItemToObject(root, "nullCount", ctx->nulls);
    ctx->min = ctx->max = ctx->nulls = NULL;
    text = cJSON_PrintUnformatted(root);
    if (text == NULL)
        return err_nomem(err);
    rc = buf_append_str(out, text, err);
    cJSON_free(text);
    return rc;
}

silt_status delta_stats_to_json(int64_t num_records, const col_type *schema, int n_indexed_cols,
                                 const delta_col_stats *columns, size_t n_columns, buf *out,
                                 silt_error *err)
{
    stats_ctx ctx;
    const char *names[STATS_MAX_DEPTH + 1];
    cJSON *root = cJSON_CreateObject();
    silt_status rc;
    memset(&ctx, 0, sizeof(ctx));
    ctx.columns = columns;
    ctx.n_columns = n_columns;
    ctx.remaining = n_indexed_cols;
    ctx.err = err;
    ctx.min = cJSON_CreateObject();
    ctx.max = cJSON_CreateObject();
    ctx.nulls = cJSON_CreateObject();
    if (root == NULL || ctx.min == NULL || ctx.max == NULL || ctx.nulls == NULL)
        rc = err_nomem(err);
    else if (schema == NULL || schema->id != COL_STRUCT)
        rc = err_set(err, SILT_INVALID, "statistics need a struct schema");
    else
        rc = walk(&ctx, schema, names, 0);
    if (rc == SILT_OK)
        rc = emit(root, num_records, &ctx, out, err);
    cJSON_Delete(ctx.min);
    cJSON_Delete(ctx.max);
    cJSON_Delete(ctx.nulls);
    cJSON_Delete(root);
    buf_clear(&ctx.path);
    return rc;
}

int delta_stats_indexed_cols(const dlog_metadata *metadata)
{
    const char *text = metadata
                           ? dlog_map_get(&metadata->configuration,
                                          "delta.dataSkippingNumIndexedCols", NULL)
                           : NULL;
    int64_t value = 32;
    if (text == NULL || !util_str_to_int64(text, strlen(text), &value) || value < -1 ||
        value > INT32_MAX)
        return 32;
    return (int)value;
}
