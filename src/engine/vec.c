/*
 * vec.c - vector helpers of the engine: allocation, string writing, gather,
 * merge, accumulation, row comparison and hashing (engine.h).
 *
 * Output vectors of the engine always have an explicit validity bitmap so
 * kernels can clear bits without a branch on "is there a bitmap yet".
 */
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/time.h"

silt_status engine_interrupted(const engine_ctx *ctx, silt_error *err)
{
    (void)ctx;
    return err_set(err, SILT_INTERRUPTED, "%s", ENGINE_INTERRUPTED_MESSAGE);
}

void engine_format_bytes(int64_t bytes, char *out, size_t cap)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double x = (double)bytes;
    size_t unit = 0;
    while (x >= 1024.0 && unit + 1 < sizeof(units) / sizeof(units[0])) {
        x /= 1024.0;
        unit++;
    }
    if (unit == 0)
        snprintf(out, cap, "%lld bytes", (long long)bytes);
    else
        snprintf(out, cap, "%.1f %s", x, units[unit]);
}

void engine_ctx_init(engine_ctx *ctx, arena *query_arena)
{
    memset(ctx, 0, sizeof(*ctx));
    ctx->query_arena = query_arena;
    /* The database's budget, found up the arena tree (none for a root). */
    ctx->budget = query_arena != NULL ? arena_budget(query_arena) : NULL;
    ctx->ansi = 1;
    ctx->now_micros = time_now_micros();
}

static silt_status over_limit(int64_t limit, const char *whose, const char *what,
                              silt_error *err)
{
    char text[32];
    engine_format_bytes(limit, text, sizeof(text));
    err_set(err, SILT_NOMEM, "[OUT_OF_MEMORY] %s needs more than the %s memory limit of "
            "%s (%lld bytes), even after spilling to disk", what, whose, text, (long long)limit);
    err_hint(err, "raise the limit, e.g. SET memory_limit = '4GB', or reduce the rows or "
             "groups kept");
    return SILT_NOMEM;
}

silt_status engine_mem_charge(engine_ctx *ctx, int64_t bytes, const char *what, silt_error *err)
{
    /* Operators of one query may run on several threads. */
    int64_t used = __atomic_add_fetch(&ctx->mem_used, bytes, __ATOMIC_RELAXED);
    if (ctx->mem_limit > 0 && used > ctx->mem_limit) {
        __atomic_sub_fetch(&ctx->mem_used, bytes, __ATOMIC_RELAXED);
        return over_limit(ctx->mem_limit, "query", what, err);
    }
    if (ctx->budget != NULL && !mem_budget_reserve(ctx->budget, bytes)) {
        __atomic_sub_fetch(&ctx->mem_used, bytes, __ATOMIC_RELAXED);
        return over_limit(mem_budget_limit(ctx->budget), "database", what, err);
    }
    return SILT_OK;
}

void engine_mem_release(engine_ctx *ctx, int64_t bytes)
{
    __atomic_sub_fetch(&ctx->mem_used, bytes, __ATOMIC_RELAXED);
    if (ctx->budget != NULL)
        mem_budget_release(ctx->budget, bytes);
}

int64_t engine_mem_free(const engine_ctx *ctx)
{
    int64_t room = INT64_MAX;
    if (ctx->mem_limit > 0)
        room = ctx->mem_limit - __atomic_load_n(&ctx->mem_used, __ATOMIC_RELAXED);
    if (ctx->budget != NULL && mem_budget_free_bytes(ctx->budget) < room)
        room = mem_budget_free_bytes(ctx->budget);
    return room;
}

silt_status vec_new(col_vec **out, arena *a, const col_type *type, int64_t n_rows,
                    silt_error *err)
{
    return col_vec_new(out, a, type, n_rows, 1, err);
}

/* ---- string writer ---------------------------------------------------- */

void vec_str_begin(vec_str_writer *w, col_vec *v, arena *a)
{
    w->v = v;
    w->a = a;
    w->cap = 0;
    w->used = 0;
    w->next_row = 0;
    v->data = NULL;
    v->data_len = 0;
}

silt_status vec_str_reserve(vec_str_writer *w, int64_t len, char **out, silt_error *err)
{
    if (len < 0 || w->used + len > INT32_MAX)
        return err_set(err, SILT_NOMEM, "string results of one batch exceed 2 GiB");
    if (w->used + len > w->cap) {
        int64_t cap = w->cap ? w->cap * 2 : 4096;
        char *data;
        while (cap < w->used + len)
            cap *= 2;
        if (cap > INT32_MAX)
            cap = INT32_MAX;
        data = arena_realloc(w->a, w->v->data, (size_t)w->cap, (size_t)cap + 1);
        if (data == NULL)
            return err_nomem(err);
        w->v->data = data;
        w->cap = cap;
    }
    *out = w->v->data + w->used;
    return SILT_OK;
}

silt_status vec_str_commit(vec_str_writer *w, int64_t row, int64_t len, silt_error *err)
{
    int32_t *offsets = w->v->offsets;
    (void)err;
    while (w->next_row < row) {
        offsets[w->next_row + 1] = (int32_t)w->used;
        w->next_row++;
    }
    w->used += len;
    offsets[row + 1] = (int32_t)w->used;
    w->next_row = row + 1;
    return SILT_OK;
}

silt_status vec_str_put(vec_str_writer *w, int64_t row, const char *bytes, int64_t len,
                        silt_error *err)
{
    char *dst = NULL;
    SILT_RETURN_IF_ERROR(vec_str_reserve(w, len, &dst, err));
    if (len > 0)
        memcpy(dst, bytes, (size_t)len);
    return vec_str_commit(w, row, len, err);
}

void vec_str_end(vec_str_writer *w)
{
    while (w->next_row < w->v->length) {
        w->v->offsets[w->next_row + 1] = (int32_t)w->used;
        w->next_row++;
    }
    w->v->data_len = w->used;
    if (w->v->data == NULL) {
        static char empty[1];
        w->v->data = empty;
    }
}

/* ---- readers ---------------------------------------------------------- */

int64_t vec_get_int(const col_vec *v, int64_t row)
{
    switch (v->type->id) {
    case COL_BOOLEAN:
    case COL_BYTE: return ((const int8_t *)v->values)[row];
    case COL_SHORT: return ((const int16_t *)v->values)[row];
    case COL_INT:
    case COL_DATE: return ((const int32_t *)v->values)[row];
    case COL_LONG:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: return ((const int64_t *)v->values)[row];
    default: return 0;
    }
}

void vec_put_int(col_vec *v, int64_t row, int64_t x)
{
    switch (v->type->id) {
    case COL_BOOLEAN:
    case COL_BYTE: ((int8_t *)v->values)[row] = (int8_t)x; break;
    case COL_SHORT: ((int16_t *)v->values)[row] = (int16_t)x; break;
    case COL_INT:
    case COL_DATE: ((int32_t *)v->values)[row] = (int32_t)x; break;
    case COL_LONG:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: ((int64_t *)v->values)[row] = x; break;
    default: break;
    }
}

double vec_get_double(const col_vec *v, int64_t row)
{
    if (v->type->id == COL_FLOAT)
        return ((const float *)v->values)[row];
    return ((const double *)v->values)[row];
}

/* ---- gather ----------------------------------------------------------- */

static int is_varlen(col_type_id id) { return id == COL_STRING || id == COL_BINARY; }

/* Copies len bytes; strings are mostly short, where a call to memcpy costs more than a loop. */
static inline void copy_short(char *dst, const char *src, int32_t len)
{
    int32_t i;
    if (len > 16) {
        memcpy(dst, src, (size_t)len);
        return;
    }
    for (i = 0; i < len; i++)
        dst[i] = src[i];
}

/*
 * The strings of rows idx[0..n) of src into dst (NULLs already marked):
 * sized in one pass, copied in a second, with no per-row growth check.
 */
static silt_status gather_bytes(col_vec *dst, arena *a, const col_vec *src, const int64_t *idx,
                                int64_t n, silt_error *err)
{
    int64_t total = 0, k, pos = 0;
    char *data;
    for (k = 0; k < n; k++) {
        int32_t len;
        if (idx[k] >= 0 && vec_is_valid(src, idx[k])) {
            (void)col_vec_str(src, idx[k], &len);
            total += len;
        }
    }
    if (total > INT32_MAX)
        return err_set(err, SILT_NOMEM, "string results of one batch exceed 2 GiB");
    data = arena_alloc(a, (size_t)total + 1);
    if (data == NULL)
        return err_nomem(err);
    dst->offsets[0] = 0;
    for (k = 0; k < n; k++) {
        if (idx[k] >= 0 && vec_is_valid(src, idx[k])) {
            int32_t len;
            const char *s = col_vec_str(src, idx[k], &len);
            copy_short(data + pos, s, len);
            pos += len;
        }
        dst->offsets[k + 1] = (int32_t)pos;
    }
    dst->data = data;
    dst->data_len = pos;
    return SILT_OK;
}

static silt_status gather_list(col_vec *dst, arena *a, const col_vec *src, const int64_t *idx,
                               int64_t n, silt_error *err)
{
    int64_t total = 0, k, pos = 0, child;
    int64_t *elems;
    for (k = 0; k < n; k++)
        if (idx[k] >= 0 && vec_is_valid(src, idx[k]))
            total += src->offsets[idx[k] + 1] - src->offsets[idx[k]];
    if (total > INT32_MAX)
        return err_set(err, SILT_NOMEM, "list elements of one batch exceed the vector limit");
    elems = arena_alloc(a, sizeof(int64_t) * (size_t)(total ? total : 1));
    if (elems == NULL)
        return err_nomem(err);
    for (k = 0; k < n; k++) {
        if (idx[k] >= 0 && vec_is_valid(src, idx[k])) {
            int32_t e;
            for (e = src->offsets[idx[k]]; e < src->offsets[idx[k] + 1]; e++)
                elems[pos++] = e;
        }
        dst->offsets[k + 1] = (int32_t)pos;
    }
    for (child = 0; child < (int64_t)src->n_children; child++)
        SILT_RETURN_IF_ERROR(vec_gather(&dst->children[child], a, src->children[child], elems,
                                        total, err));
    return SILT_OK;
}

silt_status vec_gather(col_vec **out, arena *a, const col_vec *src, const int64_t *idx,
                       int64_t n, silt_error *err)
{
    col_vec *dst;
    int64_t k;
    col_type_id id = src->type->id;
    size_t width = col_type_value_width(id);
    SILT_RETURN_IF_ERROR(vec_new(&dst, a, src->type, n, err));
    for (k = 0; k < n; k++)
        if (idx[k] < 0 || !vec_is_valid(src, idx[k]))
            vec_set_null(dst, k);
    if (is_varlen(id)) {
        SILT_RETURN_IF_ERROR(gather_bytes(dst, a, src, idx, n, err));
    } else if (id == COL_STRUCT) {
        size_t child;
        for (child = 0; child < src->n_children; child++)
            SILT_RETURN_IF_ERROR(
                vec_gather(&dst->children[child], a, src->children[child], idx, n, err));
    } else if (id == COL_ARRAY || id == COL_MAP) {
        SILT_RETURN_IF_ERROR(gather_list(dst, a, src, idx, n, err));
    } else if (width == 8) {
        const int64_t *s = src->values;
        int64_t *d = dst->values;
        for (k = 0; k < n; k++)
            d[k] = idx[k] >= 0 ? s[idx[k]] : 0;
    } else if (width == 4) {
        const int32_t *s = src->values;
        int32_t *d = dst->values;
        for (k = 0; k < n; k++)
            d[k] = idx[k] >= 0 ? s[idx[k]] : 0;
    } else if (width > 0) {
        for (k = 0; k < n; k++)
            if (idx[k] >= 0)
                memcpy((char *)dst->values + width * (size_t)k,
                       (const char *)src->values + width * (size_t)idx[k], width);
    }
    *out = dst;
    return SILT_OK;
}

silt_status vec_compact(col_vec **out, arena *a, const col_vec *src, const int32_t *sel,
                        int64_t n, silt_error *err)
{
    int64_t *idx;
    int64_t k;
    if (sel == NULL && n == src->length && src->dictionary == NULL) {
        *out = (col_vec *)src;
        return SILT_OK;
    }
    idx = arena_alloc(a, sizeof(int64_t) * (size_t)(n ? n : 1));
    if (idx == NULL)
        return err_nomem(err);
    for (k = 0; k < n; k++)
        idx[k] = ENGINE_ROW(sel, k);
    return vec_gather(out, a, src, idx, n, err);
}

silt_status vec_merge(col_vec **out, arena *a, const col_type *type, int64_t n_rows,
                      const int32_t *sel, int64_t n_sel, const col_vec *const *src_of_row,
                      silt_error *err)
{
    col_vec *dst;
    int64_t k;
    size_t width = col_type_value_width(type->id);
    if (col_type_is_nested(type->id))
        return err_set(err, SILT_UNSUPPORTED, "conditional expressions of type \"%s\" are not "
                       "supported yet", col_type_id_name(type->id));
    SILT_RETURN_IF_ERROR(vec_new(&dst, a, type, n_rows, err));
    if (is_varlen(type->id)) {
        vec_str_writer w;
        vec_str_begin(&w, dst, a);
        for (k = 0; k < n_sel; k++) {
            int64_t row = ENGINE_ROW(sel, k);
            const col_vec *src = src_of_row[row];
            if (src == NULL || !vec_is_valid(src, row)) {
                vec_set_null(dst, row);
            } else {
                int32_t len;
                const char *s = col_vec_str(src, row, &len);
                SILT_RETURN_IF_ERROR(vec_str_put(&w, row, s, len, err));
            }
        }
        vec_str_end(&w);
    } else {
        for (k = 0; k < n_sel; k++) {
            int64_t row = ENGINE_ROW(sel, k);
            const col_vec *src = src_of_row[row];
            if (src == NULL || !vec_is_valid(src, row))
                vec_set_null(dst, row);
            else if (width > 0)
                memcpy((char *)dst->values + width * (size_t)row,
                       (const char *)src->values + width * (size_t)row, width);
        }
    }
    *out = dst;
    return SILT_OK;
}

/* ---- accumulation ----------------------------------------------------- */

void vec_accum_init(vec_accum *acc, arena *a, const col_type *type)
{
    memset(acc, 0, sizeof(*acc));
    acc->a = a;
    acc->type = type;
}

static silt_status concat_bytes(col_vec *dst, arena *a, col_vec *const *parts, size_t n_parts,
                                silt_error *err);

/* A copy of a whole plain vector (not nested, not dictionary-encoded) in blocks. */
static silt_status copy_plain(col_vec **out, arena *a, const col_vec *v, silt_error *err)
{
    col_vec *dst;
    size_t width = col_type_value_width(v->type->id);
    int64_t row;
    SILT_RETURN_IF_ERROR(vec_new(&dst, a, v->type, v->length, err));
    if (v->validity != NULL && v->null_count != 0)
        for (row = 0; row < v->length; row++)
            if (!col_bit_get(v->validity, row))
                vec_set_null(dst, row);
    if (is_varlen(v->type->id))
        SILT_RETURN_IF_ERROR(concat_bytes(dst, a, (col_vec *const *)&v, 1, err));
    else if (width > 0 && v->length > 0)
        memcpy(dst->values, v->values, width * (size_t)v->length);
    *out = dst;
    return SILT_OK;
}

silt_status vec_accum_add(vec_accum *acc, const col_vec *v, const int32_t *sel, int64_t n,
                          silt_error *err)
{
    col_vec *copy;
    if (n == 0)
        return SILT_OK;
    if (sel == NULL && n == v->length && v->dictionary == NULL &&
        !col_type_is_nested(v->type->id)) {
        /* Always copy: the input belongs to a batch arena that is about to be reset. */
        SILT_RETURN_IF_ERROR(copy_plain(&copy, acc->a, v, err));
    } else {
        int64_t *idx = arena_alloc(acc->a, sizeof(int64_t) * (size_t)n);
        int64_t k;
        if (idx == NULL)
            return err_nomem(err);
        for (k = 0; k < n; k++)
            idx[k] = ENGINE_ROW(sel, k);
        SILT_RETURN_IF_ERROR(vec_gather(&copy, acc->a, v, idx, n, err));
    }
    return vec_accum_push(acc, copy, err);
}

silt_status vec_accum_push(vec_accum *acc, col_vec *part, silt_error *err)
{
    if (acc->n_parts == acc->cap_parts) {
        size_t cap = acc->cap_parts ? acc->cap_parts * 2 : 16;
        col_vec **parts = arena_realloc(acc->a, acc->parts, sizeof(*parts) * acc->cap_parts,
                                        sizeof(*parts) * cap);
        if (parts == NULL)
            return err_nomem(err);
        acc->parts = parts;
        acc->cap_parts = cap;
    }
    acc->parts[acc->n_parts++] = part;
    acc->n_rows += part->length;
    return SILT_OK;
}

/*
 * The strings of parts into dst, part after part: a plain part's bytes are
 * one block and its offsets are shifted; a dictionary-encoded part is
 * copied row by row. NULL rows hold no bytes in a plain part either.
 */
static silt_status concat_bytes(col_vec *dst, arena *a, col_vec *const *parts, size_t n_parts,
                                silt_error *err)
{
    int64_t total = 0, pos = 0, row, out = 0;
    size_t part;
    char *data;
    for (part = 0; part < n_parts; part++) {
        const col_vec *p = parts[part];
        if (p->dictionary == NULL && p->length > 0) {
            total += p->offsets[p->length] - p->offsets[0];
            continue;
        }
        for (row = 0; row < p->length; row++) {
            int32_t len;
            if (vec_is_valid(p, row)) {
                (void)col_vec_str(p, row, &len);
                total += len;
            }
        }
    }
    if (total > INT32_MAX)
        return err_set(err, SILT_NOMEM, "string results of one batch exceed 2 GiB");
    data = arena_alloc(a, (size_t)total + 1);
    if (data == NULL)
        return err_nomem(err);
    dst->offsets[0] = 0;
    for (part = 0; part < n_parts; part++) {
        const col_vec *p = parts[part];
        if (p->dictionary == NULL && p->length > 0) {
            int32_t base = p->offsets[0], bytes = p->offsets[p->length] - base;
            if (bytes > 0)
                memcpy(data + pos, p->data + base, (size_t)bytes);
            for (row = 0; row < p->length; row++)
                dst->offsets[out + row + 1] = (int32_t)(pos + p->offsets[row + 1] - base);
            pos += bytes;
            out += p->length;
            continue;
        }
        for (row = 0; row < p->length; row++, out++) {
            if (vec_is_valid(p, row)) {
                int32_t len;
                const char *bytes = col_vec_str(p, row, &len);
                copy_short(data + pos, bytes, len);
                pos += len;
            }
            dst->offsets[out + 1] = (int32_t)pos;
        }
    }
    dst->data = data;
    dst->data_len = pos;
    return SILT_OK;
}

/* Concatenates vectors of one type into a new one (nested types recursively). */
static silt_status vec_concat(col_vec **out, arena *a, const col_type *type, col_vec *const *parts,
                              size_t n_parts, silt_error *err)
{
    int64_t total = 0, pos = 0;
    size_t part;
    col_vec *dst;
    for (part = 0; part < n_parts; part++)
        total += parts[part]->length;
    SILT_RETURN_IF_ERROR(vec_new(&dst, a, type, total, err));
    for (part = 0; part < n_parts; part++) {
        const col_vec *p = parts[part];
        int64_t row;
        if (p->validity != NULL)
            for (row = 0; row < p->length; row++)
                if (!col_bit_get(p->validity, row))
                    vec_set_null(dst, pos + row);
        pos += p->length;
    }
    if (is_varlen(type->id)) {
        SILT_RETURN_IF_ERROR(concat_bytes(dst, a, parts, n_parts, err));
    } else if (col_type_is_nested(type->id)) {
        size_t child;
        col_vec **kids = arena_calloc(a, n_parts ? n_parts : 1, sizeof(col_vec *));
        if (kids == NULL)
            return err_nomem(err);
        if (type->id != COL_STRUCT) {
            /* Offsets continue where the previous part's elements ended. */
            int64_t base = 0;
            pos = 0;
            for (part = 0; part < n_parts; part++) {
                const col_vec *p = parts[part];
                int64_t row;
                for (row = 0; row < p->length; row++, pos++) {
                    int64_t end = base + p->offsets[row + 1] - p->offsets[0];
                    if (end > INT32_MAX)
                        return err_set(err, SILT_NOMEM, "list elements exceed one vector's limit");
                    dst->offsets[pos + 1] = (int32_t)end;
                }
                base += p->length > 0 ? p->offsets[p->length] - p->offsets[0] : 0;
            }
        }
        for (child = 0; child < type->n_fields; child++) {
            for (part = 0; part < n_parts; part++) {
                col_vec *c = parts[part]->children[child];
                if (type->id != COL_STRUCT && parts[part]->length > 0 && parts[part]->offsets[0] != 0) {
                    /* A list whose elements do not start at 0: take its range only. */
                    int64_t from = parts[part]->offsets[0];
                    int64_t n = parts[part]->offsets[parts[part]->length] - from, k;
                    int64_t *idx = arena_alloc(a, sizeof(int64_t) * (size_t)(n ? n : 1));
                    if (idx == NULL)
                        return err_nomem(err);
                    for (k = 0; k < n; k++)
                        idx[k] = from + k;
                    SILT_RETURN_IF_ERROR(vec_gather(&c, a, c, idx, n, err));
                }
                kids[part] = c;
            }
            SILT_RETURN_IF_ERROR(vec_concat(&dst->children[child], a, type->fields[child].type,
                                            kids, n_parts, err));
        }
    } else {
        size_t width = col_type_value_width(type->id);
        pos = 0;
        for (part = 0; part < n_parts; part++) {
            const col_vec *p = parts[part];
            if (width > 0 && p->length > 0)
                memcpy((char *)dst->values + width * (size_t)pos, p->values,
                       width * (size_t)p->length);
            pos += p->length;
        }
    }
    *out = dst;
    return SILT_OK;
}

silt_status vec_accum_finish(vec_accum *acc, col_vec **out, silt_error *err)
{
    if (acc->n_parts == 1) {
        *out = acc->parts[0];
        return SILT_OK;
    }
    if (acc->n_parts == 0)
        return vec_new(out, acc->a, acc->type, 0, err);
    return vec_concat(out, acc->a, acc->type, acc->parts, acc->n_parts, err);
}

/* ---- compare and hash -------------------------------------------------- */

static int cmp_bytes(const char *x, int32_t xl, const char *y, int32_t yl)
{
    int32_t n = xl < yl ? xl : yl;
    int c = n > 0 ? memcmp(x, y, (size_t)n) : 0;
    if (c != 0)
        return c < 0 ? -1 : 1;
    return xl < yl ? -1 : (xl > yl ? 1 : 0);
}

int vec_compare_rows(const col_vec *a, int64_t ra, const col_vec *b, int64_t rb)
{
    int na = !vec_is_valid(a, ra), nb = !vec_is_valid(b, rb);
    if (na || nb)
        return na && nb ? 0 : (na ? -1 : 1);
    switch (a->type->id) {
    case COL_FLOAT:
    case COL_DOUBLE: return engine_cmp_double(vec_get_double(a, ra), vec_get_double(b, rb));
    case COL_DECIMAL: {
        col_int128 x = vec_get_dec(a, ra), y = vec_get_dec(b, rb);
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    case COL_STRING:
    case COL_BINARY: {
        int32_t xl, yl;
        const char *x = col_vec_str(a, ra, &xl), *y = col_vec_str(b, rb, &yl);
        return cmp_bytes(x, xl, y, yl);
    }
    case COL_STRUCT: {
        size_t child;
        for (child = 0; child < a->n_children; child++) {
            int c = vec_compare_rows(a->children[child], ra, b->children[child], rb);
            if (c != 0)
                return c;
        }
        return 0;
    }
    case COL_ARRAY: {
        int32_t xa = a->offsets[ra], xe = a->offsets[ra + 1];
        int32_t ya = b->offsets[rb], ye = b->offsets[rb + 1];
        for (; xa < xe && ya < ye; xa++, ya++) {
            int c = vec_compare_rows(a->children[0], xa, b->children[0], ya);
            if (c != 0)
                return c;
        }
        return (xe - xa) < (ye - ya) ? -1 : ((xe - xa) > (ye - ya) ? 1 : 0);
    }
    case COL_MAP: return 0; /* maps are not orderable in Spark; only equality reaches here */
    default: {
        int64_t x = vec_get_int(a, ra), y = vec_get_int(b, rb);
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    }
}

uint64_t vec_hash_row(const col_vec *v, int64_t row, uint64_t seed)
{
    if (!vec_is_valid(v, row))
        return util_hash_u64(seed ^ 0x9e3779b97f4a7c15ull);
    switch (v->type->id) {
    case COL_FLOAT:
    case COL_DOUBLE: {
        double d = vec_get_double(v, row);
        if (d == 0)
            d = 0; /* -0.0 and 0.0 are one group */
        if (d != d)
            d = __builtin_nan("");
        return util_hash_bytes(&d, sizeof(d), seed);
    }
    case COL_DECIMAL: {
        col_int128 x = vec_get_dec(v, row);
        return util_hash_bytes(&x, sizeof(x), seed);
    }
    case COL_STRING:
    case COL_BINARY: {
        int32_t len;
        const char *s = col_vec_str(v, row, &len);
        return util_hash_bytes(s, (size_t)len, seed);
    }
    case COL_STRUCT: {
        size_t child;
        uint64_t h = seed;
        for (child = 0; child < v->n_children; child++)
            h = vec_hash_row(v->children[child], row, h);
        return h;
    }
    case COL_ARRAY:
    case COL_MAP: {
        uint64_t h = seed;
        int32_t e;
        size_t child;
        for (child = 0; child < v->n_children; child++)
            for (e = v->offsets[row]; e < v->offsets[row + 1]; e++)
                h = vec_hash_row(v->children[child], e, h);
        return h;
    }
    default: return util_hash_u64((uint64_t)vec_get_int(v, row) ^ seed);
    }
}
