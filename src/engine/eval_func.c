/*
 * eval_func.c - the scalar function registry: string, math and conditional
 * functions. Date and time functions live in eval_time.c.
 *
 * Each function has a resolver that types the call (wrapping arguments in
 * the casts Spark's coercion would add) and a batch kernel called once per
 * batch with fully evaluated argument vectors. Unless a function is marked
 * null_safe, the kernel only sees rows whose arguments are all non-NULL and
 * the caller makes the other rows NULL (eval.c).
 *
 * Regular expressions (rlike, regexp_extract, regexp_replace, split) use
 * POSIX extended syntax from <regex.h>, which covers the common Java
 * patterns (classes, groups, alternation, anchors, {m,n}); Java-only syntax
 * such as \d, lookaround and lazy quantifiers is not supported yet
 * (docs/engine.md).
 */
#include "engine/eval_int.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/time.h"


/* ---- resolvers -------------------------------------------------------------- */

static silt_status coerce_arg(expr *e, size_t idx, arena *a, col_type_id id, silt_error *err)
{
    return expr_coerce(&e->args[idx], a, col_type_primitive(id), err);
}

static silt_status res_str_to_str(expr *e, arena *a, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < e->n_args; idx++)
        SILT_RETURN_IF_ERROR(coerce_arg(e, idx, a, COL_STRING, err));
    e->type = col_type_primitive(COL_STRING);
    return SILT_OK;
}

static silt_status res_length(expr *e, arena *a, silt_error *err)
{
    if (e->args[0]->type->id != COL_BINARY)
        SILT_RETURN_IF_ERROR(coerce_arg(e, 0, a, COL_STRING, err));
    e->type = col_type_primitive(COL_INT);
    return SILT_OK;
}

static silt_status res_substr(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_STRING, COL_INT, COL_INT};
    return expr_resolve_args(e, a, args, 3, COL_STRING, err);
}

static silt_status res_pad(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_STRING, COL_INT, COL_STRING};
    return expr_resolve_args(e, a, args, 3, COL_STRING, err);
}

static silt_status res_regexp_extract(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_STRING, COL_STRING, COL_INT};
    return expr_resolve_args(e, a, args, 3, COL_STRING, err);
}

static silt_status res_rlike(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(res_str_to_str(e, a, err));
    e->type = col_type_primitive(COL_BOOLEAN);
    return SILT_OK;
}

static silt_status res_split(expr *e, arena *a, silt_error *err)
{
    const col_type *t;
    SILT_RETURN_IF_ERROR(res_str_to_str(e, a, err));
    t = col_type_array(a, col_type_primitive(COL_STRING), 1);
    if (t == NULL)
        return err_nomem(err);
    e->type = t;
    return SILT_OK;
}

static int is_numeric_id(col_type_id id)
{
    return id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG ||
           id == COL_FLOAT || id == COL_DOUBLE || id == COL_DECIMAL;
}

static silt_status numeric_arg(expr *e, size_t idx, arena *a, silt_error *err)
{
    col_type_id id = e->args[idx]->type->id;
    if (id == COL_STRING || id == COL_NULL)
        return coerce_arg(e, idx, a, COL_DOUBLE, err);
    if (!is_numeric_id(id))
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH] function \"%s\" needs a numeric "
                       "argument, not \"%s\"", e->func->name, col_type_id_name(id));
    return SILT_OK;
}

static silt_status res_same_numeric(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(numeric_arg(e, 0, a, err));
    e->type = e->args[0]->type;
    return SILT_OK;
}

static silt_status res_double_math(expr *e, arena *a, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < e->n_args; idx++)
        SILT_RETURN_IF_ERROR(coerce_arg(e, idx, a, COL_DOUBLE, err));
    e->type = col_type_primitive(COL_DOUBLE);
    return SILT_OK;
}

static silt_status res_round(expr *e, arena *a, silt_error *err)
{
    int64_t digits = 0;
    const col_type *t;
    SILT_RETURN_IF_ERROR(numeric_arg(e, 0, a, err));
    if (e->n_args > 1) {
        if (e->args[1]->kind != EXPR_LITERAL || e->args[1]->lit.is_null ||
            (e->args[1]->type->id != COL_INT && e->args[1]->type->id != COL_LONG &&
             e->args[1]->type->id != COL_SHORT && e->args[1]->type->id != COL_BYTE))
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH] the scale of \"%s\" must be an "
                           "integer constant", e->func->name);
        digits = e->args[1]->lit.i;
    }
    if (digits < -38 || digits > 38)
        return err_set(err, SILT_BIND, "the scale %lld of \"%s\" is out of range",
                       (long long)digits, e->func->name);
    e->lit.i = digits;
    t = e->args[0]->type;
    if (t->id == COL_DECIMAL) {
        int32_t p = t->precision, s = t->scale;
        int32_t ns = digits < 0 ? 0 : (digits < s ? (int32_t)digits : s);
        int32_t np = p - s + 1 + ns;
        t = col_type_decimal(a, np > 38 ? 38 : np, ns);
        if (t == NULL)
            return err_nomem(err);
    } else if (t->id == COL_FLOAT) {
        t = col_type_primitive(COL_DOUBLE);
        SILT_RETURN_IF_ERROR(coerce_arg(e, 0, a, COL_DOUBLE, err));
    }
    e->type = t;
    return SILT_OK;
}

static silt_status res_floor_ceil(expr *e, arena *a, silt_error *err)
{
    const col_type *t;
    SILT_RETURN_IF_ERROR(numeric_arg(e, 0, a, err));
    t = e->args[0]->type;
    if (t->id == COL_DECIMAL) {
        int32_t np = t->precision - t->scale + 1;
        t = col_type_decimal(a, np > 38 ? 38 : np, 0);
        if (t == NULL)
            return err_nomem(err);
    } else {
        if (t->id == COL_FLOAT)
            SILT_RETURN_IF_ERROR(coerce_arg(e, 0, a, COL_DOUBLE, err));
        t = col_type_primitive(COL_LONG);
    }
    e->type = t;
    return SILT_OK;
}

static silt_status res_mod(expr *e, arena *a, silt_error *err)
{
    /* mod(a, b) is a % b; pmod reuses its typing and fixes the sign after. */
    expr *m;
    SILT_RETURN_IF_ERROR(expr_arith(&m, a, EXPR_MOD, e->args[0], e->args[1], err));
    e->args[0] = m;
    e->n_args = 1;
    e->type = m->type;
    return SILT_OK;
}

static silt_status res_greatest(expr *e, arena *a, silt_error *err)
{
    const col_type *t = col_type_primitive(COL_NULL);
    size_t idx;
    for (idx = 0; idx < e->n_args; idx++) {
        t = expr_common_type(a, t, e->args[idx]->type);
        if (t == NULL)
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH] the arguments of \"%s\" have no "
                           "common type", e->func->name);
    }
    for (idx = 0; idx < e->n_args; idx++)
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[idx], a, t, err));
    e->type = t;
    return SILT_OK;
}

/* ---- string kernels ------------------------------------------------------------ */

static silt_status new_out(col_vec **out, arena *a, const expr *e, int64_t n_rows,
                           vec_str_writer *w, silt_error *err)
{
    SILT_RETURN_IF_ERROR(vec_new(out, a, e->type, n_rows, err));
    if (w != NULL)
        vec_str_begin(w, *out, a);
    return SILT_OK;
}

static silt_status fn_case_map(const expr *e, col_vec **args, const int32_t *sel, int64_t n_sel,
                               int64_t n_rows, arena *a, col_vec **out, int upper,
                               silt_error *err)
{
    vec_str_writer w;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        int32_t len, idx;
        const char *s = col_vec_str(args[0], r, &len);
        char *dst;
        SILT_RETURN_IF_ERROR(vec_str_reserve(&w, len, &dst, err));
        for (idx = 0; idx < len; idx++) {
            char ch = s[idx];
            if (upper && ch >= 'a' && ch <= 'z')
                ch = (char)(ch - 32);
            else if (!upper && ch >= 'A' && ch <= 'Z')
                ch = (char)(ch + 32);
            dst[idx] = ch;
        }
        SILT_RETURN_IF_ERROR(vec_str_commit(&w, r, len, err));
    });
    vec_str_end(&w);
    return SILT_OK;
}

static silt_status fn_upper(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                            int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                            silt_error *err)
{
    return fn_case_map(e, args, sel, n_sel, n_rows, a, out, 1, err);
}

static silt_status fn_lower(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                            int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                            silt_error *err)
{
    return fn_case_map(e, args, sel, n_sel, n_rows, a, out, 0, err);
}

static int64_t utf8_count(const char *s, int32_t len)
{
    int64_t n = 0;
    int32_t idx;
    for (idx = 0; idx < len; idx++)
        n += ((unsigned char)s[idx] & 0xC0) != 0x80;
    return n;
}

/* Byte offset of the char_idx-th character (clamped to len). */
static int32_t utf8_offset(const char *s, int32_t len, int64_t char_idx)
{
    int32_t pos = 0;
    while (pos < len && char_idx > 0) {
        pos++;
        while (pos < len && ((unsigned char)s[pos] & 0xC0) == 0x80)
            pos++;
        char_idx--;
    }
    return pos;
}

static silt_status fn_length(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                             int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                             silt_error *err)
{
    int32_t *ov;
    int binary = args[0]->type->id == COL_BINARY;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, NULL, err));
    ov = (*out)->values;
    LIVE_LOOP({
        int32_t len;
        const char *s = col_vec_str(args[0], r, &len);
        ov[r] = binary ? len : (int32_t)utf8_count(s, len);
    });
    return SILT_OK;
}

static silt_status fn_substr(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                             int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                             silt_error *err)
{
    vec_str_writer w;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        int32_t len;
        const char *s = col_vec_str(args[0], r, &len);
        int64_t n_chars = utf8_count(s, len);
        int64_t pos = ((const int32_t *)args[1]->values)[r];
        int64_t cnt = e->n_args > 2 ? ((const int32_t *)args[2]->values)[r] : INT32_MAX;
        /* Spark: 1-based; 0 acts as 1; negative counts from the end. */
        int64_t start = pos > 0 ? pos - 1 : (pos < 0 ? n_chars + pos : 0);
        int64_t end = start + (cnt < 0 ? 0 : cnt);
        int32_t b0, b1;
        if (start < 0)
            start = 0;
        if (end > n_chars)
            end = n_chars;
        if (end < start)
            end = start;
        b0 = utf8_offset(s, len, start);
        b1 = b0 + utf8_offset(s + b0, len - b0, end - start);
        SILT_RETURN_IF_ERROR(vec_str_put(&w, r, s + b0, b1 - b0, err));
    });
    vec_str_end(&w);
    return SILT_OK;
}

/* ---- more string functions (Spark's initcap, reverse, repeat, locate, ascii, chr) ---- */

#define STR_FN(name)                                                                               \
    static silt_status name(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,   \
                            int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,                \
                            silt_error *err)

static silt_status res_str_int_to_str(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_STRING, COL_INT};
    return expr_resolve_args(e, a, args, 2, COL_STRING, err);
}

static silt_status res_locate(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_STRING, COL_STRING, COL_INT};
    return expr_resolve_args(e, a, args, e->n_args, COL_INT, err);
}

static silt_status res_str_to_int(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_STRING};
    return expr_resolve_args(e, a, args, 1, COL_INT, err);
}

static silt_status res_chr(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_LONG};
    return expr_resolve_args(e, a, args, 1, COL_STRING, err);
}

/* initcap: every word (after a space) starts upper case, the rest is lower case (ASCII). */
STR_FN(fn_initcap)
{
    vec_str_writer w;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        int32_t len, idx;
        const char *s = col_vec_str(args[0], r, &len);
        char *dst;
        SILT_RETURN_IF_ERROR(vec_str_reserve(&w, len, &dst, err));
        for (idx = 0; idx < len; idx++) {
            char ch = s[idx];
            int first = idx == 0 || s[idx - 1] == ' ';
            if (first && ch >= 'a' && ch <= 'z')
                ch = (char)(ch - 32);
            else if (!first && ch >= 'A' && ch <= 'Z')
                ch = (char)(ch + 32);
            dst[idx] = ch;
        }
        SILT_RETURN_IF_ERROR(vec_str_commit(&w, r, len, err));
    });
    vec_str_end(&w);
    return SILT_OK;
}

/* reverse: the characters (not the bytes) in reverse order. */
STR_FN(fn_reverse)
{
    vec_str_writer w;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        int32_t len, pos = 0;
        const char *s = col_vec_str(args[0], r, &len);
        char *dst;
        SILT_RETURN_IF_ERROR(vec_str_reserve(&w, len, &dst, err));
        while (pos < len) {
            int32_t n = 1;
            while (pos + n < len && ((unsigned char)s[pos + n] & 0xC0) == 0x80)
                n++;
            memcpy(dst + len - pos - n, s + pos, (size_t)n);
            pos += n;
        }
        SILT_RETURN_IF_ERROR(vec_str_commit(&w, r, len, err));
    });
    vec_str_end(&w);
    return SILT_OK;
}

/* repeat(s, n): s n times (none when n <= 0); the result is bounded like any string. */
STR_FN(fn_repeat)
{
    vec_str_writer w;
    const int32_t *nv = args[1]->values;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        int32_t len, k;
        const char *s = col_vec_str(args[0], r, &len);
        int64_t times = nv[r] > 0 ? nv[r] : 0, total = times * (int64_t)len;
        char *dst;
        if (total > INT32_MAX)
            return expr_eval_error(e, err, SILT_RUNTIME, "ARITHMETIC_OVERFLOW",
                              "repeat would make a string of %lld bytes", (long long)total);
        SILT_RETURN_IF_ERROR(vec_str_reserve(&w, total, &dst, err));
        for (k = 0; k < times; k++)
            memcpy(dst + (int64_t)k * len, s, (size_t)len);
        SILT_RETURN_IF_ERROR(vec_str_commit(&w, r, total, err));
    });
    vec_str_end(&w);
    return SILT_OK;
}

/*
 * locate(sub, s[, pos]): the 1-based character position of the first sub in
 * s at or after character pos (default 1), 0 when absent or pos < 1.
 */
STR_FN(fn_locate)
{
    int32_t *ov;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, NULL, err));
    ov = (*out)->values;
    LIVE_LOOP({
        int32_t sl, tl, b0, p;
        const char *sub = col_vec_str(args[0], r, &sl);
        const char *s = col_vec_str(args[1], r, &tl);
        int64_t from = e->n_args > 2 ? ((const int32_t *)args[2]->values)[r] : 1;
        ov[r] = 0;
        if (from < 1)
            continue;
        b0 = utf8_offset(s, tl, from - 1);
        if (b0 >= tl && !(sl == 0 && utf8_count(s, tl) >= from - 1))
            continue;
        for (p = b0; p + sl <= tl; p++) {
            if (memcmp(s + p, sub, (size_t)sl) == 0) {
                ov[r] = (int32_t)utf8_count(s, p) + 1;
                break;
            }
        }
    });
    return SILT_OK;
}

/* instr(s, sub) is locate(sub, s). */
STR_FN(fn_instr)
{
    col_vec *swapped[2] = {args[1], args[0]};
    return fn_locate(e, ctx, swapped, sel, n_sel, n_rows, a, out, err);
}

/* ascii: the code point of the first character, 0 for an empty string. */
STR_FN(fn_ascii)
{
    int32_t *ov;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, NULL, err));
    ov = (*out)->values;
    LIVE_LOOP({
        int32_t len;
        const unsigned char *s = (const unsigned char *)col_vec_str(args[0], r, &len);
        int32_t cp = len > 0 ? s[0] : 0;
        if (len >= 2 && (s[0] & 0xE0) == 0xC0)
            cp = (s[0] & 0x1F) << 6 | (s[1] & 0x3F);
        else if (len >= 3 && (s[0] & 0xF0) == 0xE0)
            cp = (s[0] & 0x0F) << 12 | (s[1] & 0x3F) << 6 | (s[2] & 0x3F);
        else if (len >= 4 && (s[0] & 0xF8) == 0xF0)
            cp = (s[0] & 0x07) << 18 | (s[1] & 0x3F) << 12 | (s[2] & 0x3F) << 6 | (s[3] & 0x3F);
        ov[r] = cp;
    });
    return SILT_OK;
}

/* chr(n): the character n mod 256 (Latin-1), empty for a negative n, as Spark. */
STR_FN(fn_chr)
{
    vec_str_writer w;
    const int64_t *nv = args[0]->values;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        unsigned c = (unsigned)(nv[r] & 0xFF);
        char buf2[2];
        int32_t n = 0;
        if (nv[r] >= 0) {
            if (c < 0x80) {
                buf2[n++] = (char)c;
            } else {
                buf2[n++] = (char)(0xC0 | (c >> 6));
                buf2[n++] = (char)(0x80 | (c & 0x3F));
            }
        }
        SILT_RETURN_IF_ERROR(vec_str_put(&w, r, buf2, n, err));
    });
    vec_str_end(&w);
    return SILT_OK;
}

/* ---- arrays: size, sort_array ---------------------------------------------------- */

static silt_status res_size(expr *e, arena *a, silt_error *err)
{
    col_type_id id = e->args[0]->type->id;
    if (id != COL_ARRAY && id != COL_MAP && id != COL_NULL)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH] function \"%s\" needs an array or a "
                       "map, not \"%s\"", e->func->name, col_type_id_name(id));
    e->type = col_type_primitive(COL_INT);
    return SILT_OK;
}

/* size: the number of elements (NULL for NULL, as Spark 4 in ANSI mode). */
STR_FN(fn_size)
{
    int32_t *ov;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, NULL, err));
    ov = (*out)->values;
    LIVE_LOOP(ov[r] = args[0]->type->id == COL_NULL ? 0
                      : args[0]->offsets[r + 1] - args[0]->offsets[r];);
    return SILT_OK;
}

static silt_status res_sort_array(expr *e, arena *a, silt_error *err)
{
    if (e->args[0]->type->id != COL_ARRAY)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH] function \"sort_array\" needs an "
                       "array, not \"%s\"", col_type_id_name(e->args[0]->type->id));
    if (e->n_args > 1 && e->args[1]->kind != EXPR_LITERAL)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the order of "
                       "sort_array must be a constant boolean");
    if (e->n_args > 1)
        SILT_RETURN_IF_ERROR(coerce_arg(e, 1, a, COL_BOOLEAN, err));
    e->type = e->args[0]->type;
    return SILT_OK;
}

/* Element order of sort_array: NULLs first ascending, last descending (Spark). */
static int elem_before(const col_vec *v, int64_t x, int64_t y, int asc)
{
    int vx = vec_is_valid(v, x), vy = vec_is_valid(v, y), c;
    if (!vx || !vy)
        return vx == vy ? 1 : (asc ? !vx : vx);
    c = vec_compare_rows(v, x, v, y);
    return asc ? c <= 0 : c >= 0;
}

/* Merge sort of idx[lo..hi) by element value (stable), tmp of the same size. */
static void sort_elems(const col_vec *v, int64_t *idx, int64_t *tmp, int64_t lo, int64_t hi,
                       int asc)
{
    int64_t width, n = hi - lo;
    for (width = 1; width < n; width *= 2) {
        int64_t s;
        for (s = lo; s < hi; s += 2 * width) {
            int64_t mid = s + width < hi ? s + width : hi, end = s + 2 * width < hi ? s + 2 * width : hi;
            int64_t i = s, j = mid, k = s;
            while (i < mid && j < end)
                tmp[k++] = elem_before(v, idx[i], idx[j], asc) ? idx[i++] : idx[j++];
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < end)
                tmp[k++] = idx[j++];
        }
        memcpy(idx + lo, tmp + lo, sizeof(int64_t) * (size_t)n);
    }
}

/* sort_array(a[, asc]): each row's elements sorted (the rows stay where they are). */
STR_FN(fn_sort_array)
{
    const col_vec *in = args[0], *elems = in->children[0];
    int asc = e->n_args < 2 || n_rows == 0 || vec_get_int(args[1], 0) != 0;
    int64_t base = in->offsets[0], total = in->offsets[n_rows] - base, k;
    int64_t *idx = arena_alloc(a, sizeof(int64_t) * (size_t)(total ? total : 1));
    int64_t *tmp = arena_alloc(a, sizeof(int64_t) * (size_t)(total ? total : 1));
    col_vec *o;
    if (idx == NULL || tmp == NULL)
        return err_nomem(err);
    for (k = 0; k < total; k++)
        idx[k] = base + k;
    LIVE_LOOP(sort_elems(elems, idx, tmp, in->offsets[r] - base, in->offsets[r + 1] - base, asc););
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    for (k = 0; k <= n_rows; k++)
        o->offsets[k] = in->offsets[k] - (int32_t)base;
    SILT_RETURN_IF_ERROR(vec_gather(&o->children[0], a, elems, idx, total, err));
    *out = o;
    return SILT_OK;
}

static silt_status fn_concat(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                             int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                             silt_error *err)
{
    vec_str_writer w;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        int64_t total = 0;
        size_t idx;
        char *dst;
        for (idx = 0; idx < e->n_args; idx++) {
            int32_t len;
            col_vec_str(args[idx], r, &len);
            total += len;
        }
        SILT_RETURN_IF_ERROR(vec_str_reserve(&w, total, &dst, err));
        for (idx = 0; idx < e->n_args; idx++) {
            int32_t len;
            const char *s = col_vec_str(args[idx], r, &len);
            memcpy(dst, s, (size_t)len);
            dst += len;
        }
        SILT_RETURN_IF_ERROR(vec_str_commit(&w, r, total, err));
    });
    vec_str_end(&w);
    return SILT_OK;
}

/* concat_ws(sep, ...): NULL arguments are skipped; NULL only when sep is NULL. */
static silt_status fn_concat_ws(const expr *e, engine_ctx *ctx, col_vec **args,
                                const int32_t *sel, int64_t n_sel, int64_t n_rows, arena *a,
                                col_vec **out, silt_error *err)
{
    vec_str_writer w;
    buf b = BUF_INIT;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        int32_t sep_len;
        const char *sep;
        size_t idx;
        int first = 1;
        if (!vec_is_valid(args[0], r)) {
            vec_set_null(*out, r);
            continue;
        }
        sep = col_vec_str(args[0], r, &sep_len);
        buf_truncate(&b, 0);
        for (idx = 1; idx < e->n_args && rc == SILT_OK; idx++) {
            int32_t len;
            const char *s;
            if (!vec_is_valid(args[idx], r))
                continue;
            s = col_vec_str(args[idx], r, &len);
            if (!first)
                rc = buf_append(&b, sep, (size_t)sep_len, err);
            if (rc == SILT_OK)
                rc = buf_append(&b, s, (size_t)len, err);
            first = 0;
        }
        if (rc == SILT_OK)
            rc = vec_str_put(&w, r, b.data, (int64_t)b.len, err);
        if (rc != SILT_OK)
            break;
    });
    buf_clear(&b);
    vec_str_end(&w);
    return rc;
}

/* Whether trim removes ch: spaces by default, else any byte of the trim string. */
static int trimmed(char ch, const char *t, int32_t tl)
{
    return t == NULL ? ch == ' ' : memchr(t, ch, (size_t)tl) != NULL;
}

static silt_status fn_trim_mode(const expr *e, col_vec **args, const int32_t *sel, int64_t n_sel,
                                int64_t n_rows, arena *a, col_vec **out, int left, int right,
                                silt_error *err)
{
    vec_str_writer w;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        int32_t len, b0 = 0;
        const char *s = col_vec_str(args[0], r, &len);
        int32_t tl = 0;
        const char *t = NULL;
        if (e->n_args > 1)
            t = col_vec_str(args[1], r, &tl);
        while (left && b0 < len && trimmed(s[b0], t, tl))
            b0++;
        while (right && len > b0 && trimmed(s[len - 1], t, tl))
            len--;
        SILT_RETURN_IF_ERROR(vec_str_put(&w, r, s + b0, len - b0, err));
    });
    vec_str_end(&w);
    return SILT_OK;
}

static silt_status fn_trim(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                           int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                           silt_error *err)
{
    return fn_trim_mode(e, args, sel, n_sel, n_rows, a, out, 1, 1, err);
}

static silt_status fn_ltrim(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                            int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                            silt_error *err)
{
    return fn_trim_mode(e, args, sel, n_sel, n_rows, a, out, 1, 0, err);
}

static silt_status fn_rtrim(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                            int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                            silt_error *err)
{
    return fn_trim_mode(e, args, sel, n_sel, n_rows, a, out, 0, 1, err);
}

static silt_status fn_replace(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                              int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                              silt_error *err)
{
    vec_str_writer w;
    buf b = BUF_INIT;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        int32_t sl, fl, tl = 0, pos = 0;
        const char *s = col_vec_str(args[0], r, &sl);
        const char *f = col_vec_str(args[1], r, &fl);
        const char *t = e->n_args > 2 ? col_vec_str(args[2], r, &tl) : "";
        buf_truncate(&b, 0);
        while (rc == SILT_OK && pos < sl) {
            if (fl > 0 && pos + fl <= sl && memcmp(s + pos, f, (size_t)fl) == 0) {
                rc = buf_append(&b, t, (size_t)tl, err);
                pos += fl;
            } else {
                rc = buf_append_char(&b, s[pos], err);
                pos++;
            }
        }
        if (rc == SILT_OK)
            rc = vec_str_put(&w, r, b.data, (int64_t)b.len, err);
        if (rc != SILT_OK)
            break;
    });
    buf_clear(&b);
    vec_str_end(&w);
    return rc;
}

static silt_status fn_pad(const expr *e, col_vec **args, const int32_t *sel, int64_t n_sel,
                          int64_t n_rows, arena *a, col_vec **out, int left, silt_error *err)
{
    vec_str_writer w;
    buf b = BUF_INIT;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        int32_t sl, pl = 1;
        const char *s = col_vec_str(args[0], r, &sl);
        const char *p = e->n_args > 2 ? col_vec_str(args[2], r, &pl) : " ";
        int64_t want = ((const int32_t *)args[1]->values)[r];
        int64_t have = utf8_count(s, sl), idx;
        buf_truncate(&b, 0);
        if (want <= 0) {
            rc = vec_str_put(&w, r, "", 0, err);
        } else if (have >= want) {
            rc = vec_str_put(&w, r, s, utf8_offset(s, sl, want), err);
        } else {
            int64_t need = want - have, p_chars = utf8_count(p, pl);
            if (!left)
                rc = buf_append(&b, s, (size_t)sl, err);
            for (idx = 0; rc == SILT_OK && p_chars > 0 && idx < need; idx += p_chars) {
                int64_t take = need - idx < p_chars ? need - idx : p_chars;
                rc = buf_append(&b, p, (size_t)utf8_offset(p, pl, take), err);
            }
            if (left && rc == SILT_OK)
                rc = buf_append(&b, s, (size_t)sl, err);
            if (rc == SILT_OK)
                rc = vec_str_put(&w, r, b.data, (int64_t)b.len, err);
        }
        if (rc != SILT_OK)
            break;
    });
    buf_clear(&b);
    vec_str_end(&w);
    return rc;
}

static silt_status fn_lpad(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                           int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                           silt_error *err)
{
    return fn_pad(e, args, sel, n_sel, n_rows, a, out, 1, err);
}

static silt_status fn_rpad(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                           int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                           silt_error *err)
{
    return fn_pad(e, args, sel, n_sel, n_rows, a, out, 0, err);
}

/* ---- regular expressions ---------------------------------------------------- */

/* A compiled pattern cached for consecutive rows with the same pattern text. */
typedef struct regex_cache {
    regex_t re;
    int compiled;
    char *text;
    int32_t len;
} regex_cache;

static void regex_cache_clear(regex_cache *c)
{
    if (c->compiled)
        regfree(&c->re);
    c->compiled = 0;
}

static silt_status regex_get(const expr *e, regex_cache *c, arena *a, const char *p, int32_t pl,
                             silt_error *err)
{
    int rc;
    if (c->compiled && c->len == pl && memcmp(c->text, p, (size_t)pl) == 0)
        return SILT_OK;
    regex_cache_clear(c);
    c->text = arena_strndup(a, p, (size_t)pl);
    if (c->text == NULL)
        return err_nomem(err);
    c->len = pl;
    rc = regcomp(&c->re, c->text, REG_EXTENDED);
    if (rc != 0) {
        char msg[128];
        regerror(rc, &c->re, msg, sizeof(msg));
        return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_PARAMETER_VALUE.PATTERN",
                          "the regular expression \"%.100s\" is not valid: %s", c->text, msg);
    }
    c->compiled = 1;
    return SILT_OK;
}

/* Runs regexec on a byte range (regexec wants NUL-terminated text). */
static int regex_exec(regex_cache *c, buf *tmp, const char *s, int32_t len, size_t n_match,
                      regmatch_t *m, int not_bol, silt_error *err)
{
    buf_truncate(tmp, 0);
    if (buf_append(tmp, s, (size_t)len, err) != SILT_OK)
        return -1;
    return regexec(&c->re, buf_cstr(tmp), n_match, m, not_bol ? REG_NOTBOL : 0) == 0;
}

static silt_status fn_rlike(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                            int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                            silt_error *err)
{
    regex_cache c = {0};
    buf tmp = BUF_INIT;
    silt_status rc = SILT_OK;
    uint8_t *ov;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, NULL, err));
    ov = (*out)->values;
    LIVE_LOOP({
        int32_t sl, pl;
        const char *s = col_vec_str(args[0], r, &sl);
        const char *p = col_vec_str(args[1], r, &pl);
        int m;
        rc = regex_get(e, &c, a, p, pl, err);
        if (rc != SILT_OK)
            break;
        m = regex_exec(&c, &tmp, s, sl, 0, NULL, 0, err);
        if (m < 0) {
            rc = SILT_NOMEM;
            break;
        }
        ov[r] = (uint8_t)m;
    });
    regex_cache_clear(&c);
    buf_clear(&tmp);
    return rc;
}

static silt_status fn_regexp_extract(const expr *e, engine_ctx *ctx, col_vec **args,
                                     const int32_t *sel, int64_t n_sel, int64_t n_rows, arena *a,
                                     col_vec **out, silt_error *err)
{
    regex_cache c = {0};
    buf tmp = BUF_INIT;
    silt_status rc = SILT_OK;
    vec_str_writer w;
    regmatch_t m[10];
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        int32_t sl, pl;
        const char *s = col_vec_str(args[0], r, &sl);
        const char *p = col_vec_str(args[1], r, &pl);
        int64_t group = e->n_args > 2 ? ((const int32_t *)args[2]->values)[r] : 1;
        int hit;
        rc = regex_get(e, &c, a, p, pl, err);
        if (rc != SILT_OK)
            break;
        if (group < 0 || group > (int64_t)c.re.re_nsub || group > 9) {
            rc = expr_eval_error(e, err, SILT_RUNTIME, "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX",
                            "the regular expression has %zu groups, but group %lld was asked "
                            "for", c.re.re_nsub, (long long)group);
            break;
        }
        hit = regex_exec(&c, &tmp, s, sl, 10, m, 0, err);
        if (hit < 0) {
            rc = SILT_NOMEM;
            break;
        }
        if (hit && m[group].rm_so >= 0)
            rc = vec_str_put(&w, r, s + m[group].rm_so, m[group].rm_eo - m[group].rm_so, err);
        else
            rc = vec_str_put(&w, r, "", 0, err);
        if (rc != SILT_OK)
            break;
    });
    regex_cache_clear(&c);
    buf_clear(&tmp);
    vec_str_end(&w);
    return rc;
}

/* Appends a replacement, expanding $0..$9 group references as Java does. */
static silt_status append_replacement(buf *b, const char *rep, int32_t rl, const char *s,
                                      const regmatch_t *m, size_t n_groups, silt_error *err)
{
    int32_t idx;
    for (idx = 0; idx < rl; idx++) {
        if (rep[idx] == '\\' && idx + 1 < rl) {
            SILT_RETURN_IF_ERROR(buf_append_char(b, rep[++idx], err));
        } else if (rep[idx] == '$' && idx + 1 < rl && rep[idx + 1] >= '0' && rep[idx + 1] <= '9') {
            size_t g = (size_t)(rep[++idx] - '0');
            if (g <= n_groups && m[g].rm_so >= 0)
                SILT_RETURN_IF_ERROR(
                    buf_append(b, s + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so), err));
        } else {
            SILT_RETURN_IF_ERROR(buf_append_char(b, rep[idx], err));
        }
    }
    return SILT_OK;
}

static silt_status fn_regexp_replace(const expr *e, engine_ctx *ctx, col_vec **args,
                                     const int32_t *sel, int64_t n_sel, int64_t n_rows, arena *a,
                                     col_vec **out, silt_error *err)
{
    regex_cache c = {0};
    buf tmp = BUF_INIT, b = BUF_INIT;
    silt_status rc = SILT_OK;
    vec_str_writer w;
    regmatch_t m[10];
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        int32_t sl, pl, rl, pos = 0;
        const char *s = col_vec_str(args[0], r, &sl);
        const char *p = col_vec_str(args[1], r, &pl);
        const char *rep = col_vec_str(args[2], r, &rl);
        rc = regex_get(e, &c, a, p, pl, err);
        if (rc != SILT_OK)
            break;
        buf_truncate(&b, 0);
        while (rc == SILT_OK && pos <= sl) {
            int hit = regex_exec(&c, &tmp, s + pos, sl - pos, 10, m, pos > 0, err);
            if (hit < 0) {
                rc = SILT_NOMEM;
                break;
            }
            if (!hit) {
                rc = buf_append(&b, s + pos, (size_t)(sl - pos), err);
                break;
            }
            rc = buf_append(&b, s + pos, (size_t)m[0].rm_so, err);
            if (rc == SILT_OK)
                rc = append_replacement(&b, rep, rl, s + pos, m, c.re.re_nsub, err);
            if (m[0].rm_eo == m[0].rm_so) {
                /* Empty match: copy one character and move on. */
                if (rc == SILT_OK && pos + m[0].rm_eo < sl)
                    rc = buf_append_char(&b, s[pos + m[0].rm_eo], err);
                pos += (int32_t)m[0].rm_eo + 1;
            } else {
                pos += (int32_t)m[0].rm_eo;
            }
        }
        if (rc == SILT_OK)
            rc = vec_str_put(&w, r, b.data, (int64_t)b.len, err);
        if (rc != SILT_OK)
            break;
    });
    regex_cache_clear(&c);
    buf_clear(&tmp);
    buf_clear(&b);
    vec_str_end(&w);
    return rc;
}

static silt_status fn_split(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                            int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                            silt_error *err)
{
    /* Pieces go to a builder for the element vector; offsets per row. */
    regex_cache c = {0};
    buf tmp = BUF_INIT;
    silt_status rc = SILT_OK;
    col_builder *elems = NULL;
    col_vec *o;
    int64_t n_elems = 0, next_row = 0;
    regmatch_t m[1];
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    SILT_RETURN_IF_ERROR(col_builder_new(&elems, a, col_type_primitive(COL_STRING), err));
    LIVE_LOOP({
        int32_t sl, pl, pos = 0;
        const char *s = col_vec_str(args[0], r, &sl);
        const char *p = col_vec_str(args[1], r, &pl);
        while (next_row <= r)
            o->offsets[next_row++] = (int32_t)n_elems;
        rc = regex_get(e, &c, a, p, pl, err);
        while (rc == SILT_OK) {
            int hit = pos < sl ? regex_exec(&c, &tmp, s + pos, sl - pos, 1, m, pos > 0, err) : 0;
            if (hit < 0) {
                rc = SILT_NOMEM;
                break;
            }
            if (hit && m[0].rm_eo == 0) {
                /* An empty match at the start: split off one character. */
                m[0].rm_so = m[0].rm_eo = 1;
                if (pos + 1 >= sl)
                    hit = 0;
            }
            if (!hit) {
                rc = col_builder_append_bytes(elems, s + pos, (size_t)(sl - pos), err);
                n_elems++;
                break;
            }
            rc = col_builder_append_bytes(elems, s + pos, (size_t)m[0].rm_so, err);
            n_elems++;
            pos += (int32_t)m[0].rm_eo;
        }
        if (rc != SILT_OK)
            break;
        if (n_elems > INT32_MAX) {
            rc = err_set(err, SILT_NOMEM, "split produced too many elements in one batch");
            break;
        }
        o->offsets[r + 1] = (int32_t)n_elems;
        next_row = r + 1;
    });
    regex_cache_clear(&c);
    buf_clear(&tmp);
    if (rc != SILT_OK)
        return rc;
    while (next_row < n_rows) {
        o->offsets[next_row + 1] = (int32_t)n_elems;
        next_row++;
    }
    SILT_RETURN_IF_ERROR(col_builder_finish(elems, &o->children[0], err));
    *out = o;
    return SILT_OK;
}

/* ---- math kernels ------------------------------------------------------------- */

static silt_status fn_abs(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                          int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                          silt_error *err)
{
    col_vec *o;
    col_type_id id = e->type->id;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        if (id == COL_FLOAT || id == COL_DOUBLE) {
            double d = fabs(vec_get_double(args[0], r));
            if (id == COL_FLOAT)
                ((float *)o->values)[r] = (float)d;
            else
                ((double *)o->values)[r] = d;
        } else if (id == COL_DECIMAL) {
            col_int128 x = vec_get_dec(args[0], r);
            vec_put_dec(o, r, x < 0 ? -x : x);
        } else {
            int64_t x = vec_get_int(args[0], r);
            int64_t lo = id == COL_BYTE ? INT8_MIN : id == COL_SHORT ? INT16_MIN
                         : id == COL_INT ? INT32_MIN : INT64_MIN;
            if (x == lo && ctx->ansi)
                return expr_eval_error(e, err, SILT_RUNTIME, "ARITHMETIC_OVERFLOW",
                                  "abs(%lld) overflows \"%s\"", (long long)x,
                                  col_type_id_name(id));
            vec_put_int(o, r, x == lo ? x : (x < 0 ? -x : x));
        }
    });
    *out = o;
    return SILT_OK;
}

/* HALF_UP rounding of a double to `digits` places, via its shortest decimal text. */
static double round_half_up(double d, int64_t digits)
{
    char tmp[64];
    col_int128 v;
    size_t n;
    if (d != d || isinf(d))
        return d;
    n = engine_format_double(d, 0, tmp, sizeof(tmp));
    if (digits >= 0 && engine_dec_parse(tmp, n, 38, (int32_t)digits, &v) == 1) {
        engine_dec_format(v, (int32_t)digits, tmp, sizeof(tmp));
        return strtod(tmp, NULL);
    }
    if (digits < 0) {
        double p = pow(10, (double)-digits);
        double q = d / p;
        return (q < 0 ? -floor(-q + 0.5) : floor(q + 0.5)) * p;
    }
    return d; /* too many digits to round at this scale: already exact */
}

/* x at scale from rounded to scale to (< from) HALF_EVEN, as bround does. */
static col_int128 dec_round_even(col_int128 x, int32_t from, int32_t to)
{
    int32_t shift = from - to;
    col_int128 div, q, rem;
    if (shift > 38)
        return 0;
    div = expr_pow10[shift];
    q = x / div;
    rem = x % div;
    if (rem < 0)
        rem = -rem;
    if (rem * 2 > div || (rem * 2 == div && (q % 2) != 0))
        q += x < 0 ? -1 : 1;
    return q;
}

/* HALF_EVEN rounding of a double to `digits` >= 0 places, via its shortest decimal text. */
static double round_half_even(double d, int64_t digits)
{
    char tmp[64];
    const char *dot;
    col_int128 v;
    size_t n;
    int32_t scale;
    if (d != d || isinf(d))
        return d;
    n = engine_format_double(d, 0, tmp, sizeof(tmp));
    tmp[n < sizeof(tmp) ? n : sizeof(tmp) - 1] = '\0';
    dot = strchr(tmp, '.');
    scale = dot != NULL ? (int32_t)strlen(dot + 1) : 0;
    if (strchr(tmp, 'e') != NULL || strchr(tmp, 'E') != NULL || scale <= digits ||
        engine_dec_parse(tmp, strlen(tmp), 38, scale, &v) != 1)
        return d; /* already exact at this scale, or beyond a decimal's reach */
    v = dec_round_even(v, scale, (int32_t)digits);
    engine_dec_format(v, (int32_t)digits, tmp, sizeof(tmp));
    return strtod(tmp, NULL);
}

/* bround: round with HALF_EVEN (banker's rounding) instead of HALF_UP. */
static silt_status fn_bround(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                             int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                             silt_error *err)
{
    col_vec *o, *x = args[0];
    col_type_id id = e->type->id;
    int64_t digits = e->lit.i;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        if (id == COL_DOUBLE && digits >= 0) {
            ((double *)o->values)[r] = round_half_even(vec_get_double(x, r), digits);
        } else if (id == COL_DECIMAL && digits >= 0) {
            int32_t s = x->type->scale;
            col_int128 v = vec_get_dec(x, r);
            vec_put_dec(o, r, digits < s ? dec_round_even(v, s, (int32_t)digits) : v);
        } else if (id != COL_DOUBLE && id != COL_DECIMAL && digits >= 0) {
            vec_put_int(o, r, vec_get_int(x, r));
        } else {
            return err_set(err, SILT_UNSUPPORTED, "bround to a negative scale is not supported yet");
        }
    });
    *out = o;
    return SILT_OK;
}

static silt_status fn_round(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                            int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                            silt_error *err)
{
    col_vec *o, *x = args[0];
    col_type_id id = e->type->id;
    int64_t digits = e->lit.i;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        if (id == COL_DOUBLE) {
            ((double *)o->values)[r] = round_half_up(vec_get_double(x, r), digits);
        } else if (id == COL_DECIMAL) {
            col_int128 v = vec_get_dec(x, r), res;
            int32_t s = x->type->scale;
            /* Scales only shrink here, so the rescale cannot overflow 38 digits. */
            if (digits < 0) {
                if (engine_dec_rescale(v, s - (int32_t)digits, 0, 38, &res) &&
                    !__builtin_mul_overflow(res, expr_pow10[-digits], &res))
                    vec_put_dec(o, r, res);
                else
                    vec_set_null(o, r);
            } else if (engine_dec_rescale(v, s, e->type->scale, 38, &res)) {
                vec_put_dec(o, r, res);
            }
            continue;
        } else {
            int64_t v = vec_get_int(x, r);
            if (digits < 0) {
                int64_t p = 1, q;
                int64_t idx;
                for (idx = 0; idx < -digits && idx < 19; idx++)
                    p *= 10;
                q = v / p;
                if ((v % p) * 2 >= p)
                    q++;
                else if ((v % p) * 2 <= -p)
                    q--;
                v = q * p;
            }
            vec_put_int(o, r, v);
        }
    });
    *out = o;
    return SILT_OK;
}

static silt_status fn_floor_ceil(const expr *e, col_vec **args, const int32_t *sel,
                                 int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                                 int is_ceil, silt_error *err)
{
    col_vec *o, *x = args[0];
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        if (x->type->id == COL_DOUBLE) {
            double d = vec_get_double(x, r);
            d = is_ceil ? ceil(d) : floor(d);
            ((int64_t *)o->values)[r] = d != d ? 0 : (d >= 9.2233720368547758e18 ? INT64_MAX
                                                      : d <= -9.2233720368547758e18 ? INT64_MIN
                                                      : (int64_t)d);
        } else if (x->type->id == COL_DECIMAL) {
            col_int128 v = vec_get_dec(x, r), p = expr_pow10[x->type->scale];
            col_int128 q = v / p, rem = v % p;
            if (rem != 0 && is_ceil && v > 0)
                q++;
            if (rem != 0 && !is_ceil && v < 0)
                q--;
            vec_put_dec(o, r, q);
        } else {
            ((int64_t *)o->values)[r] = vec_get_int(x, r);
        }
    });
    *out = o;
    return SILT_OK;
}

static silt_status fn_floor(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                            int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                            silt_error *err)
{
    return fn_floor_ceil(e, args, sel, n_sel, n_rows, a, out, 0, err);
}

static silt_status fn_ceil(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                           int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                           silt_error *err)
{
    return fn_floor_ceil(e, args, sel, n_sel, n_rows, a, out, 1, err);
}

enum { M_SQRT, M_EXP, M_LN, M_LOG10, M_LOG2, M_POW, M_LOG, M_SIGN };

static silt_status fn_math(const expr *e, col_vec **args, const int32_t *sel, int64_t n_sel,
                           int64_t n_rows, arena *a, col_vec **out, int which, silt_error *err)
{
    col_vec *o;
    double *ov;
    const double *x = args[0]->values;
    const double *y = e->n_args > 1 ? args[1]->values : NULL;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP({
        double v = x[r], res = 0;
        int null = 0;
        switch (which) {
        case M_SQRT: res = sqrt(v); break;
        case M_EXP: res = exp(v); break;
        case M_LN: null = v <= 0; res = log(v); break;
        case M_LOG10: null = v <= 0; res = log10(v); break;
        case M_LOG2: null = v <= 0; res = log2(v); break;
        case M_POW: res = pow(v, y[r]); break;
        case M_SIGN: res = v > 0 ? 1.0 : (v < 0 ? -1.0 : (v != v ? v : 0.0)); break;
        default:
            if (y == NULL) {
                null = v <= 0;
                res = log(v);
            } else {
                null = v <= 0 || y[r] <= 0;
                res = log(y[r]) / log(v);
            }
            break;
        }
        if (null)
            vec_set_null(o, r);
        ov[r] = null ? 0 : res;
    });
    *out = o;
    return SILT_OK;
}

#define MATH_FN(NAME, WHICH)                                                                       \
    static silt_status NAME(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,    \
                            int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,                \
                            silt_error *err)                                                       \
    {                                                                                              \
        return fn_math(e, args, sel, n_sel, n_rows, a, out, WHICH, err);                           \
    }
MATH_FN(fn_sqrt, M_SQRT)
MATH_FN(fn_exp, M_EXP)
MATH_FN(fn_ln, M_LN)
MATH_FN(fn_log10, M_LOG10)
MATH_FN(fn_log2, M_LOG2)
MATH_FN(fn_pow, M_POW)
MATH_FN(fn_log, M_LOG)
MATH_FN(fn_signum, M_SIGN)

static silt_status fn_mod(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                          int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                          silt_error *err)
{
    *out = args[0];
    return SILT_OK;
}

/* pmod(a, b): a % b, plus |b| when negative (Spark's positive modulus). */
static silt_status res_pmod(expr *e, arena *a, silt_error *err)
{
    expr *m;
    SILT_RETURN_IF_ERROR(expr_arith(&m, a, EXPR_MOD, e->args[0], e->args[1], err));
    e->args[0] = m;
    e->args[1] = m->args[1];
    e->type = m->type;
    return SILT_OK;
}

static silt_status fn_pmod(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                           int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                           silt_error *err)
{
    col_vec *o, *rem = args[0], *div = args[1];
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        switch (e->type->id) {
        case COL_FLOAT:
        case COL_DOUBLE: {
            double x = vec_get_double(rem, r), y = fabs(vec_get_double(div, r));
            if (x < 0)
                x = fmod(x + y, y);
            if (e->type->id == COL_FLOAT)
                ((float *)o->values)[r] = (float)x;
            else
                ((double *)o->values)[r] = x;
            break;
        }
        case COL_DECIMAL: {
            col_int128 x = vec_get_dec(rem, r), y = vec_get_dec(div, r);
            if (x < 0 && engine_dec_rescale(y < 0 ? -y : y, div->type->scale, e->type->scale, 38, &y))
                x = (x + y) % y;
            vec_put_dec(o, r, x);
            break;
        }
        default: {
            int64_t x = vec_get_int(rem, r), y = vec_get_int(div, r);
            if (x < 0)
                x = (int64_t)(((uint64_t)x + (uint64_t)(y < 0 ? -y : y)));
            vec_put_int(o, r, x);
            break;
        }
        }
    });
    *out = o;
    return SILT_OK;
}

static silt_status fn_greatest_least(const expr *e, col_vec **args, const int32_t *sel,
                                     int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                                     int greatest, silt_error *err)
{
    const col_vec **src = arena_calloc(a, (size_t)(n_rows ? n_rows : 1), sizeof(col_vec *));
    if (src == NULL)
        return err_nomem(err);
    LIVE_LOOP({
        size_t idx;
        for (idx = 0; idx < e->n_args; idx++) {
            if (!vec_is_valid(args[idx], r))
                continue;
            if (src[r] == NULL) {
                src[r] = args[idx];
            } else {
                int c = vec_compare_rows(args[idx], r, src[r], r);
                if (greatest ? c > 0 : c < 0)
                    src[r] = args[idx];
            }
        }
    });
    return vec_merge(out, a, e->type, n_rows, sel, n_sel, src, err);
}

static silt_status fn_greatest(const expr *e, engine_ctx *ctx, col_vec **args,
                               const int32_t *sel, int64_t n_sel, int64_t n_rows, arena *a,
                               col_vec **out, silt_error *err)
{
    return fn_greatest_least(e, args, sel, n_sel, n_rows, a, out, 1, err);
}

static silt_status fn_least(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                            int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                            silt_error *err)
{
    return fn_greatest_least(e, args, sel, n_sel, n_rows, a, out, 0, err);
}

/* ---- format_string: a subset of java.util.Formatter ------------------------------------ */

static silt_status res_format_string(expr *e, arena *a, silt_error *err)
{
    static const col_type_id args[] = {COL_STRING};
    return expr_resolve_args(e, a, args, 1, COL_STRING, err);
}

/* The text of a value for %s: Spark's string form, "null" for NULL. */
static silt_status value_string(buf *b, const col_vec *v, int64_t r, silt_error *err)
{
    char tmp[96];
    if (!vec_is_valid(v, r))
        return buf_append_str(b, "null", err);
    switch (v->type->id) {
    case COL_STRING:
    case COL_BINARY: {
        int32_t len;
        const char *p = col_vec_str(v, r, &len);
        return buf_append(b, p, (size_t)len, err);
    }
    case COL_BOOLEAN: return buf_append_str(b, vec_get_int(v, r) ? "true" : "false", err);
    case COL_FLOAT:
    case COL_DOUBLE:
        engine_format_double(vec_get_double(v, r), v->type->id == COL_FLOAT, tmp, sizeof(tmp));
        return buf_append_str(b, tmp, err);
    case COL_DECIMAL:
        engine_dec_format(vec_get_dec(v, r), v->type->scale, tmp, sizeof(tmp));
        return buf_append_str(b, tmp, err);
    case COL_DATE:
        time_format_date((int32_t)vec_get_int(v, r), tmp, sizeof(tmp));
        return buf_append_str(b, tmp, err);
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ:
        time_format_timestamp_spark(vec_get_int(v, r), tmp, sizeof(tmp));
        return buf_append_str(b, tmp, err);
    case COL_NULL: return buf_append_str(b, "null", err);
    default:
        if (col_type_is_nested(v->type->id))
            return err_set(err, SILT_UNSUPPORTED, "format_string of a nested value is not "
                           "supported yet");
        return buf_printf(b, err, "%lld", (long long)vec_get_int(v, r));
    }
}

static int is_integral_id(col_type_id id)
{
    return id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG;
}

/* Appends sign and digits padded to width as the flags ('-', '0', '+', ' ') say. */
static silt_status pad_number(buf *b, const char *digits, int negative, const char *flags,
                              int width, silt_error *err)
{
    char sign = negative ? '-' : strchr(flags, '+') ? '+' : strchr(flags, ' ') ? ' ' : 0;
    int len = (int)strlen(digits) + (sign != 0), fill = width > len ? width - len : 0;
    int left = strchr(flags, '-') != NULL, zero = strchr(flags, '0') != NULL && !left;
    int idx;
    if (!left && !zero)
        for (idx = 0; idx < fill; idx++)
            SILT_RETURN_IF_ERROR(buf_append_char(b, ' ', err));
    if (sign)
        SILT_RETURN_IF_ERROR(buf_append_char(b, sign, err));
    if (zero)
        for (idx = 0; idx < fill; idx++)
            SILT_RETURN_IF_ERROR(buf_append_char(b, '0', err));
    SILT_RETURN_IF_ERROR(buf_append_str(b, digits, err));
    if (left)
        for (idx = 0; idx < fill; idx++)
            SILT_RETURN_IF_ERROR(buf_append_char(b, ' ', err));
    return SILT_OK;
}

/* Formats one row; the pattern is parsed as it goes. */
static silt_status format_row(const expr *e, col_vec **args, int64_t r, const char *f, int32_t fl,
                              buf *b, silt_error *err)
{
    int32_t pos = 0;
    size_t next_arg = 1;
    while (pos < fl) {
        char spec[32], conv, flags[8];
        int n_flags = 0, width = -1, prec = -1;
        size_t arg_idx;
        const col_vec *v;
        if (f[pos] != '%') {
            SILT_RETURN_IF_ERROR(buf_append_char(b, f[pos++], err));
            continue;
        }
        pos++;
        arg_idx = next_arg;
        {
            /* %n$ selects the argument explicitly */
            int32_t q = pos;
            int64_t num = 0;
            while (q < fl && f[q] >= '0' && f[q] <= '9' && num < 1000)
                num = num * 10 + (f[q++] - '0');
            if (q < fl && f[q] == '$' && q > pos) {
                arg_idx = (size_t)num;
                pos = q + 1;
            }
        }
        while (pos < fl && strchr("-0+ #", f[pos]) != NULL && n_flags < 7)
            flags[n_flags++] = f[pos++];
        flags[n_flags] = 0;
        while (pos < fl && f[pos] >= '0' && f[pos] <= '9' && width < 10000)
            width = (width < 0 ? 0 : width * 10) + (f[pos++] - '0');
        if (pos < fl && f[pos] == '.') {
            prec = 0;
            for (pos++; pos < fl && f[pos] >= '0' && f[pos] <= '9' && prec < 1000; pos++)
                prec = prec * 10 + (f[pos] - '0');
        }
        if (pos >= fl)
            return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_FORMAT",
                              "the format ends in the middle of a conversion");
        conv = f[pos++];
        if (conv == '%' || conv == 'n') {
            SILT_RETURN_IF_ERROR(buf_append_char(b, conv == '%' ? '%' : '\n', err));
            continue;
        }
        if (arg_idx == next_arg)
            next_arg++;
        if (arg_idx < 1 || arg_idx >= e->n_args)
            return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_FORMAT",
                              "format specifier '%%%c' has no argument", conv);
        v = args[arg_idx];
        if (conv == 's' || conv == 'S' || !vec_is_valid(v, r) || conv == 'b') {
            buf text = BUF_INIT;
            silt_status rc;
            if (conv == 'b')
                rc = buf_append_str(&text, !vec_is_valid(v, r) ? "false"
                                   : v->type->id == COL_BOOLEAN && !vec_get_int(v, r) ? "false"
                                                                                        : "true",
                                   err);
            else
                rc = value_string(&text, v, r, err);
            if (rc == SILT_OK && conv == 'S') {
                size_t c;
                for (c = 0; c < text.len; c++)
                    if (text.data[c] >= 'a' && text.data[c] <= 'z')
                        text.data[c] = (char)(text.data[c] - 32);
            }
            if (rc == SILT_OK && prec >= 0 && (size_t)prec < text.len)
                buf_truncate(&text, (size_t)prec);
            if (rc == SILT_OK)
                rc = buf_printf(b, err, strchr(flags, '-') ? "%-*s" : "%*s", width < 0 ? 0 : width,
                                buf_cstr(&text));
            buf_clear(&text);
            SILT_RETURN_IF_ERROR(rc);
            continue;
        }
        if (strchr("dxXo", conv) != NULL) {
            long long x;
            if (!is_integral_id(v->type->id))
                return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_FORMAT",
                                  "%%%c cannot format a value of type \"%s\"", conv,
                                  col_type_id_name(v->type->id));
            x = (long long)vec_get_int(v, r);
            if (conv == 'd')
                snprintf(spec, sizeof(spec), "%llu", x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x);
            else if (conv == 'o')
                snprintf(spec, sizeof(spec), "%llo", (unsigned long long)x);
            else if (conv == 'x')
                snprintf(spec, sizeof(spec), "%llx", (unsigned long long)x);
            else
                snprintf(spec, sizeof(spec), "%llX", (unsigned long long)x);
            SILT_RETURN_IF_ERROR(pad_number(b, spec, conv == 'd' && x < 0, flags, width, err));
            continue;
        }
        if (strchr("feEgG", conv) != NULL) {
            double d;
            char num[400];
            int p = prec < 0 ? 6 : (prec > 60 ? 60 : prec);
            if (v->type->id == COL_FLOAT || v->type->id == COL_DOUBLE)
                d = vec_get_double(v, r);
            else if (v->type->id == COL_DECIMAL)
                d = (double)vec_get_dec(v, r) / (double)expr_pow10[v->type->scale];
            else
                return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_FORMAT",
                                  "%%%c cannot format a value of type \"%s\"", conv,
                                  col_type_id_name(v->type->id));
            switch (conv) {
            case 'f': snprintf(num, sizeof(num), "%.*f", p, d < 0 ? -d : d); break;
            case 'e': snprintf(num, sizeof(num), "%.*e", p, d < 0 ? -d : d); break;
            case 'E': snprintf(num, sizeof(num), "%.*E", p, d < 0 ? -d : d); break;
            case 'g': snprintf(num, sizeof(num), "%.*g", p, d < 0 ? -d : d); break;
            default: snprintf(num, sizeof(num), "%.*G", p, d < 0 ? -d : d); break;
            }
            SILT_RETURN_IF_ERROR(pad_number(b, num, d < 0, flags, width, err));
            continue;
        }
        return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_FORMAT",
                          "the format conversion '%c' is not supported", conv);
    }
    return SILT_OK;
}

static silt_status fn_format_string(const expr *e, engine_ctx *ctx, col_vec **args,
                                    const int32_t *sel, int64_t n_sel, int64_t n_rows, arena *a,
                                    col_vec **out, silt_error *err)
{
    vec_str_writer w;
    buf b = BUF_INIT;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(new_out(out, a, e, n_rows, &w, err));
    LIVE_LOOP({
        int32_t fl;
        const char *f;
        if (!vec_is_valid(args[0], r)) {
            vec_set_null(*out, r);
            continue;
        }
        f = col_vec_str(args[0], r, &fl);
        buf_truncate(&b, 0);
        rc = format_row(e, args, r, f, fl, &b, err);
        if (rc == SILT_OK)
            rc = vec_str_put(&w, r, b.data, (int64_t)b.len, err);
        if (rc != SILT_OK)
            break;
    });
    buf_clear(&b);
    vec_str_end(&w);
    return rc;
}

/* ---- hash: Spark's Murmur3 x86_32, seed 42 ----------------------------------------- */

static uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

static uint32_t mix_k1(uint32_t k1)
{
    k1 *= 0xcc9e2d51u;
    k1 = rotl32(k1, 15);
    return k1 * 0x1b873593u;
}

static uint32_t mix_h1(uint32_t h1, uint32_t k1)
{
    h1 ^= k1;
    h1 = rotl32(h1, 13);
    return h1 * 5 + 0xe6546b64u;
}

static uint32_t fmix(uint32_t h1, uint32_t len)
{
    h1 ^= len;
    h1 ^= h1 >> 16;
    h1 *= 0x85ebca6bu;
    h1 ^= h1 >> 13;
    h1 *= 0xc2b2ae35u;
    return h1 ^ (h1 >> 16);
}

static uint32_t m3_int(uint32_t v, uint32_t seed) { return fmix(mix_h1(seed, mix_k1(v)), 4); }

uint32_t expr_murmur3_long(uint64_t v, uint32_t seed)
{
    uint32_t h1 = mix_h1(seed, mix_k1((uint32_t)v));
    return fmix(mix_h1(h1, mix_k1((uint32_t)(v >> 32))), 8);
}

/* Spark's hashUnsafeBytes: 4-byte little-endian words, then each tail byte sign-extended. */
static uint32_t m3_bytes(const unsigned char *p, int32_t len, uint32_t seed)
{
    int32_t idx, aligned = len - len % 4;
    uint32_t h1 = seed;
    for (idx = 0; idx < aligned; idx += 4) {
        uint32_t w = (uint32_t)p[idx] | (uint32_t)p[idx + 1] << 8 | (uint32_t)p[idx + 2] << 16 |
                     (uint32_t)p[idx + 3] << 24;
        h1 = mix_h1(h1, mix_k1(w));
    }
    for (; idx < len; idx++)
        h1 = mix_h1(h1, mix_k1((uint32_t)(int32_t)(signed char)p[idx]));
    return fmix(h1, (uint32_t)len);
}

static silt_status res_hash(expr *e, arena *a, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < e->n_args; idx++)
        if (col_type_is_nested(e->args[idx]->type->id))
            return err_set(err, SILT_UNSUPPORTED, "hash of a nested value is not supported yet");
    e->type = col_type_primitive(COL_INT);
    return SILT_OK;
}

static silt_status res_xxhash64(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(res_hash(e, a, err));
    e->type = col_type_primitive(COL_LONG);
    return SILT_OK;
}

/* xxhash64(a, b, ...): as hash, with Spark's XXH64 (xxhash.c) and seed 42. */
static silt_status fn_xxhash64(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                               int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                               silt_error *err)
{
    col_vec *o;
    int64_t *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP({
        uint64_t h = 42;
        size_t idx;
        for (idx = 0; idx < e->n_args; idx++)
            if (vec_is_valid(args[idx], r))
                h = engine_spark_xxhash64(args[idx], r, h);
        ov[r] = (int64_t)h;
    });
    *out = o;
    return SILT_OK;
}

/* hash(a, b, ...): each non-NULL argument hashes with the previous result as seed. */
static silt_status fn_hash(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                           int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                           silt_error *err)
{
    col_vec *o;
    int32_t *ov;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    LIVE_LOOP({
        uint32_t h = 42;
        size_t idx;
        for (idx = 0; idx < e->n_args; idx++) {
            const col_vec *v = args[idx];
            if (!vec_is_valid(v, r))
                continue;
            switch (v->type->id) {
            case COL_LONG:
            case COL_TIMESTAMP:
            case COL_TIMESTAMP_NTZ: h = expr_murmur3_long((uint64_t)vec_get_int(v, r), h); break;
            case COL_FLOAT: {
                float f = (float)vec_get_double(v, r);
                uint32_t bits;
                if (f == 0)
                    f = 0;
                if (f != f)
                    bits = 0x7fc00000u;
                else
                    memcpy(&bits, &f, 4);
                h = m3_int(bits, h);
                break;
            }
            case COL_DOUBLE: {
                double d = vec_get_double(v, r);
                uint64_t bits;
                if (d == 0)
                    d = 0;
                if (d != d)
                    bits = 0x7ff8000000000000ull;
                else
                    memcpy(&bits, &d, 8);
                h = expr_murmur3_long(bits, h);
                break;
            }
            case COL_DECIMAL: {
                col_int128 x = vec_get_dec(v, r);
                if (v->type->precision <= 18) {
                    h = expr_murmur3_long((uint64_t)(int64_t)x, h);
                } else {
                    /* BigInteger.toByteArray: minimal big-endian two's complement */
                    unsigned char bytes[17];
                    int n = 16, idx2;
                    for (idx2 = 0; idx2 < 16; idx2++)
                        bytes[15 - idx2] = (unsigned char)((unsigned __int128)x >> (8 * idx2));
                    idx2 = 0;
                    while (n > 1 && ((bytes[idx2] == 0 && !(bytes[idx2 + 1] & 0x80)) ||
                                     (bytes[idx2] == 0xff && (bytes[idx2 + 1] & 0x80)))) {
                        idx2++;
                        n--;
                    }
                    h = m3_bytes(bytes + idx2, n, h);
                }
                break;
            }
            case COL_STRING:
            case COL_BINARY: {
                int32_t len;
                const char *s = col_vec_str(v, r, &len);
                h = m3_bytes((const unsigned char *)s, len, h);
                break;
            }
            case COL_NULL: break;
            default: h = m3_int((uint32_t)vec_get_int(v, r), h); break;
            }
        }
        ov[r] = (int32_t)h;
    });
    *out = o;
    return SILT_OK;
}

/* ---- struct ---------------------------------------------------------------------- */

/*
 * struct(a, b, ...): a struct of its arguments; as in Spark a field is
 * named after its column, or colN for other expressions (the binder also
 * uses it for max_by/min_by's (ordering, value) pair). NULL arguments make
 * NULL fields, never a NULL struct.
 */
static silt_status res_struct(expr *e, arena *a, silt_error *err)
{
    col_field *fields = arena_calloc(a, e->n_args, sizeof(col_field));
    size_t idx;
    if (fields == NULL)
        return err_nomem(err);
    for (idx = 0; idx < e->n_args; idx++) {
        const expr *arg = e->args[idx];
        fields[idx].name = arg->kind == EXPR_COLUMN && arg->text != NULL
                               ? arena_strdup(a, arg->text)
                               : arena_sprintf(a, "col%zu", idx + 1);
        if (fields[idx].name == NULL)
            return err_nomem(err);
        fields[idx].type = e->args[idx]->type;
        fields[idx].nullable = 1;
        fields[idx].field_id = -1;
    }
    e->type = col_type_struct(a, e->n_args, fields);
    return e->type == NULL ? err_nomem(err) : SILT_OK;
}

static silt_status fn_struct(const expr *e, engine_ctx *ctx, col_vec **args, const int32_t *sel,
                             int64_t n_sel, int64_t n_rows, arena *a, col_vec **out,
                             silt_error *err)
{
    size_t idx;
    (void)ctx, (void)sel, (void)n_sel;
    SILT_RETURN_IF_ERROR(vec_new(out, a, e->type, n_rows, err));
    for (idx = 0; idx < e->n_args; idx++) {
        if (args[idx]->length != n_rows)
            return err_set(err, SILT_INVALID, "a struct field has %lld rows, not %lld",
                           (long long)args[idx]->length, (long long)n_rows);
        (*out)->children[idx] = args[idx];
    }
    return SILT_OK;
}

/* ---- registry -------------------------------------------------------------------- */

static const expr_func_def funcs[] = {
    {"struct", 1, -1, res_struct, fn_struct, 1},
    {"upper", 1, 1, res_str_to_str, fn_upper, 0},
    {"ucase", 1, 1, res_str_to_str, fn_upper, 0},
    {"lower", 1, 1, res_str_to_str, fn_lower, 0},
    {"lcase", 1, 1, res_str_to_str, fn_lower, 0},
    {"length", 1, 1, res_length, fn_length, 0},
    {"char_length", 1, 1, res_length, fn_length, 0},
    {"character_length", 1, 1, res_length, fn_length, 0},
    {"len", 1, 1, res_length, fn_length, 0},
    {"substring", 2, 3, res_substr, fn_substr, 0},
    {"substr", 2, 3, res_substr, fn_substr, 0},
    {"concat", 1, -1, res_str_to_str, fn_concat, 0},
    {"concat_ws", 1, -1, res_str_to_str, fn_concat_ws, 1},
    {"trim", 1, 2, res_str_to_str, fn_trim, 0},
    {"ltrim", 1, 2, res_str_to_str, fn_ltrim, 0},
    {"rtrim", 1, 2, res_str_to_str, fn_rtrim, 0},
    {"replace", 2, 3, res_str_to_str, fn_replace, 0},
    {"lpad", 2, 3, res_pad, fn_lpad, 0},
    {"rpad", 2, 3, res_pad, fn_rpad, 0},
    {"rlike", 2, 2, res_rlike, fn_rlike, 0},
    {"regexp", 2, 2, res_rlike, fn_rlike, 0},
    {"regexp_like", 2, 2, res_rlike, fn_rlike, 0},
    {"regexp_extract", 2, 3, res_regexp_extract, fn_regexp_extract, 0},
    {"regexp_replace", 3, 3, res_str_to_str, fn_regexp_replace, 0},
    {"split", 2, 2, res_split, fn_split, 0},
    {"initcap", 1, 1, res_str_to_str, fn_initcap, 0},
    {"size", 1, 1, res_size, fn_size, 0},
    {"cardinality", 1, 1, res_size, fn_size, 0},
    {"array_size", 1, 1, res_size, fn_size, 0},
    {"sort_array", 1, 2, res_sort_array, fn_sort_array, 0},
    {"reverse", 1, 1, res_str_to_str, fn_reverse, 0},
    {"repeat", 2, 2, res_str_int_to_str, fn_repeat, 0},
    {"locate", 2, 3, res_locate, fn_locate, 0},
    {"position", 2, 3, res_locate, fn_locate, 0},
    {"instr", 2, 2, res_locate, fn_instr, 0},
    {"ascii", 1, 1, res_str_to_int, fn_ascii, 0},
    {"chr", 1, 1, res_chr, fn_chr, 0},
    {"char", 1, 1, res_chr, fn_chr, 0},
    {"abs", 1, 1, res_same_numeric, fn_abs, 0},
    {"round", 1, 2, res_round, fn_round, 0},
    {"bround", 1, 2, res_round, fn_bround, 0},
    {"floor", 1, 1, res_floor_ceil, fn_floor, 0},
    {"ceil", 1, 1, res_floor_ceil, fn_ceil, 0},
    {"ceiling", 1, 1, res_floor_ceil, fn_ceil, 0},
    {"sqrt", 1, 1, res_double_math, fn_sqrt, 0},
    {"exp", 1, 1, res_double_math, fn_exp, 0},
    {"ln", 1, 1, res_double_math, fn_ln, 0},
    {"log", 1, 2, res_double_math, fn_log, 0},
    {"log10", 1, 1, res_double_math, fn_log10, 0},
    {"log2", 1, 1, res_double_math, fn_log2, 0},
    {"pow", 2, 2, res_double_math, fn_pow, 0},
    {"power", 2, 2, res_double_math, fn_pow, 0},
    {"signum", 1, 1, res_double_math, fn_signum, 0},
    {"sign", 1, 1, res_double_math, fn_signum, 0},
    {"mod", 2, 2, res_mod, fn_mod, 1},
    {"pmod", 2, 2, res_pmod, fn_pmod, 0},
    {"hash", 1, -1, res_hash, fn_hash, 1},
    {"xxhash64", 1, -1, res_xxhash64, fn_xxhash64, 1},
    {"format_string", 1, -1, res_format_string, fn_format_string, 1},
    {"printf", 1, -1, res_format_string, fn_format_string, 1},
    {"greatest", 2, -1, res_greatest, fn_greatest, 1},
    {"least", 2, -1, res_greatest, fn_least, 1},
};

const expr_func_def *expr_func_lookup(const char *name)
{
    size_t idx;
    for (idx = 0; idx < sizeof(funcs) / sizeof(funcs[0]); idx++)
        if (util_str_casecmp(funcs[idx].name, name) == 0)
            return &funcs[idx];
    for (idx = 0; idx < engine_n_time_funcs; idx++)
        if (util_str_casecmp(engine_time_funcs[idx].name, name) == 0)
            return &engine_time_funcs[idx];
    for (idx = 0; idx < engine_n_random_funcs; idx++)
        if (util_str_casecmp(engine_random_funcs[idx].name, name) == 0)
            return &engine_random_funcs[idx];
    for (idx = 0; idx < engine_n_scalar_funcs; idx++)
        if (util_str_casecmp(engine_scalar_funcs[idx].name, name) == 0)
            return &engine_scalar_funcs[idx];
    return expr_func_lookup_more(name);
}
