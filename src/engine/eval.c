/*
 * eval.c - vectorized evaluation of the core expression kinds (expr.h):
 * columns, literals, arithmetic, comparison, boolean logic, IS NULL, CASE,
 * COALESCE, LIKE and the dispatch to casts and functions.
 *
 * Every kernel is a loop per physical type over the live rows, in three
 * shapes (vector op vector, vector op constant, constant op vector) so that
 * the common "column > 5" never materializes its literal. Nulls are handled
 * on the validity bitmaps word by word, before the value loop; the value
 * loops run over null slots too (their values are zero-filled and harmless)
 * and errors are only raised for rows that are live and not null.
 *
 * AND, OR, CASE and COALESCE evaluate their later operands only on the rows
 * that still need them, as Spark does: `x <> 0 AND 10 / x > 1` never divides
 * by zero.
 */
#include "engine/expr.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Expands a constant into a full vector of n_rows rows. */
static silt_status ev_materialize(ev_val *val, arena *a, int64_t n_rows, silt_error *err);

/* Evaluates and materializes. */
static silt_status ev_eval_full(const expr *e, engine_ctx *ctx, const col_batch *batch,
                                const int32_t *sel, int64_t n_sel, arena *a, col_vec **out,
                                silt_error *err);

static silt_status ev_eval(const expr *e, engine_ctx *ctx, const col_batch *batch,
                           const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                           silt_error *err);

/* ---- helpers --------------------------------------------------------------- */

#define FOR_SEL(...)                                                                               \
    do {                                                                                           \
        if (sel != NULL) {                                                                         \
            for (int64_t k_ = 0; k_ < n; k_++) {                                                   \
                const int64_t r = sel[k_];                                                         \
                __VA_ARGS__                                                                        \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t r = 0; r < n; r++) {                                                      \
                __VA_ARGS__                                                                        \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* mode 0: vector op vector, 1: vector op constant, 2: constant op vector. */
#define BIN_LOOP(T, ...)                                                                           \
    do {                                                                                           \
        if (mode == 0) {                                                                           \
            FOR_SEL(const T xv = lv[r]; const T yv = rv[r]; __VA_ARGS__);                          \
        } else if (mode == 1) {                                                                    \
            const T yv = rv[0];                                                                    \
            FOR_SEL(const T xv = lv[r]; __VA_ARGS__);                                              \
        } else {                                                                                   \
            const T xv = lv[0];                                                                    \
            FOR_SEL(const T yv = rv[r]; __VA_ARGS__);                                              \
        }                                                                                          \
    } while (0)

static int ev_row_null(const ev_val *x, int64_t row)
{
    return !vec_is_valid(x->v, x->is_const ? 0 : row);
}

/* out->validity = valid(l) AND valid(r), over all n_rows rows. */
static void combine_validity(col_vec *out, const ev_val *l, const ev_val *r, int64_t n_rows)
{
    size_t bytes = (size_t)(n_rows + 7) / 8, idx;
    const ev_val *sides[2] = {l, r};
    int side, touched = 0;
    for (side = 0; side < 2; side++) {
        const ev_val *x = sides[side];
        if (x == NULL)
            continue;
        if (x->is_const) {
            if (!vec_is_valid(x->v, 0)) {
                memset(out->validity, 0, bytes);
                touched = 1;
            }
        } else if (x->v->validity != NULL && x->v->null_count != 0) {
            for (idx = 0; idx < bytes; idx++)
                out->validity[idx] &= x->v->validity[idx];
            touched = 1;
        }
    }
    out->null_count = touched ? col_validity_count_nulls(out->validity, n_rows) : 0;
}

static silt_status ev_materialize(ev_val *val, arena *a, int64_t n_rows, silt_error *err)
{
    int64_t *idx;
    int64_t k;
    if (!val->is_const)
        return SILT_OK;
    idx = arena_alloc(a, sizeof(int64_t) * (size_t)(n_rows ? n_rows : 1));
    if (idx == NULL)
        return err_nomem(err);
    for (k = 0; k < n_rows; k++)
        idx[k] = 0;
    SILT_RETURN_IF_ERROR(vec_gather(&val->v, a, val->v, idx, n_rows, err));
    val->is_const = 0;
    return SILT_OK;
}

static silt_status ev_eval_full(const expr *e, engine_ctx *ctx, const col_batch *batch,
                                const int32_t *sel, int64_t n_sel, arena *a, col_vec **out,
                                silt_error *err)
{
    ev_val val;
    SILT_RETURN_IF_ERROR(ev_eval(e, ctx, batch, sel, n_sel, a, &val, err));
    SILT_RETURN_IF_ERROR(ev_materialize(&val, a, batch->n_rows, err));
    *out = val.v;
    return SILT_OK;
}

static silt_status eval_literal(const expr *e, arena *a, ev_val *out, silt_error *err)
{
    col_vec *v;
    const col_type *type = e->type;
    SILT_RETURN_IF_ERROR(vec_new(&v, a, type, 1, err));
    if (e->lit.is_null || type->id == COL_NULL) {
        vec_set_null(v, 0);
    } else {
        switch (type->id) {
        case COL_FLOAT: ((float *)v->values)[0] = (float)e->lit.d; break;
        case COL_DOUBLE: ((double *)v->values)[0] = e->lit.d; break;
        case COL_DECIMAL: vec_put_dec(v, 0, e->lit.dec); break;
        case COL_STRING:
        case COL_BINARY: {
            vec_str_writer w;
            vec_str_begin(&w, v, a);
            SILT_RETURN_IF_ERROR(vec_str_put(&w, 0, e->lit.str, e->lit.str_len, err));
            vec_str_end(&w);
            break;
        }
        default:
            if (col_type_is_nested(type->id))
                return err_set(err, SILT_UNSUPPORTED, "nested literals are not supported yet");
            vec_put_int(v, 0, e->lit.i);
            break;
        }
    }
    out->v = v;
    out->is_const = 1;
    return SILT_OK;
}

/* ---- arithmetic ------------------------------------------------------------ */

#define ARITH_INT_KERNEL(NAME, T)                                                                  \
    static int NAME(int op, const T *lv, const T *rv, T *ov, const int32_t *sel, int64_t n,        \
                    int mode)                                                                      \
    {                                                                                              \
        int ovf = 0;                                                                               \
        switch (op) {                                                                              \
        case EXPR_ADD: BIN_LOOP(T, ovf |= __builtin_add_overflow(xv, yv, &ov[r]);); break;         \
        case EXPR_SUB: BIN_LOOP(T, ovf |= __builtin_sub_overflow(xv, yv, &ov[r]);); break;         \
        case EXPR_MUL: BIN_LOOP(T, ovf |= __builtin_mul_overflow(xv, yv, &ov[r]);); break;         \
        default: /* MOD; zero divisors were dealt with before */                                   \
            BIN_LOOP(T, ov[r] = (yv == 0 || yv == -1) ? (T)0 : (T)(xv % yv););                     \
            break;                                                                                 \
        }                                                                                          \
        return ovf;                                                                                \
    }

ARITH_INT_KERNEL(arith_i8, int8_t)
ARITH_INT_KERNEL(arith_i16, int16_t)
ARITH_INT_KERNEL(arith_i32, int32_t)
ARITH_INT_KERNEL(arith_i64_generic, int64_t)

/*
 * 64-bit division is several times slower than 32-bit division, and most
 * longs in a remainder are small and non-negative: take the 32-bit path
 * when both operands allow it (what compilers do for some CPUs).
 */
static int arith_i64(int op, const int64_t *lv, const int64_t *rv, int64_t *ov,
                     const int32_t *sel, int64_t n, int mode)
{
    if (op != EXPR_MOD)
        return arith_i64_generic(op, lv, rv, ov, sel, n, mode);
    BIN_LOOP(int64_t, {
        if ((((uint64_t)xv | (uint64_t)yv) >> 31) == 0)
            ov[r] = yv == 0 ? 0 : (int64_t)((uint32_t)xv % (uint32_t)yv);
        else
            ov[r] = (yv == 0 || yv == -1) ? 0 : xv % yv;
    });
    return 0;
}

#define ARITH_FLT_KERNEL(NAME, T)                                                                  \
    static void NAME(int op, const T *lv, const T *rv, T *ov, const int32_t *sel, int64_t n,       \
                     int mode)                                                                     \
    {                                                                                              \
        switch (op) {                                                                              \
        case EXPR_ADD: BIN_LOOP(T, ov[r] = xv + yv;); break;                                       \
        case EXPR_SUB: BIN_LOOP(T, ov[r] = xv - yv;); break;                                       \
        case EXPR_MUL: BIN_LOOP(T, ov[r] = xv * yv;); break;                                       \
        case EXPR_DIV: BIN_LOOP(T, ov[r] = yv == 0 ? (T)0 : xv / yv;); break;                      \
        default: BIN_LOOP(T, ov[r] = yv == 0 ? (T)0 : (T)fmod(xv, yv);); break;                    \
        }                                                                                          \
    }

ARITH_FLT_KERNEL(arith_f32, float)
ARITH_FLT_KERNEL(arith_f64, double)

static int is_zero_at(const col_vec *v, int64_t row)
{
    switch (v->type->id) {
    case COL_FLOAT:
    case COL_DOUBLE: return vec_get_double(v, row) == 0;
    case COL_DECIMAL: return vec_get_dec(v, row) == 0;
    default: return vec_get_int(v, row) == 0;
    }
}

/*
 * Division and remainder by zero: an error in ANSI mode, NULL otherwise.
 * Checked before the kernel so that the kernel stays branch-light.
 */
static silt_status check_zero_divisor(const expr *e, engine_ctx *ctx, const ev_val *div,
                                      col_vec *out, const int32_t *sel, int64_t n,
                                      silt_error *err)
{
    if (div->is_const) {
        if (!vec_is_valid(div->v, 0) || !is_zero_at(div->v, 0))
            return SILT_OK;
    }
    FOR_SEL({
        int64_t rr = div->is_const ? 0 : r;
        if (vec_is_valid(out, r) && is_zero_at(div->v, rr)) {
            if (ctx->ansi && !e->lit.i) {
                expr_eval_error(e, err, SILT_RUNTIME, "DIVIDE_BY_ZERO", "division by zero");
                err_hint(err, "use try_divide to get NULL instead, or set "
                         "\"spark.sql.ansi.enabled\" to \"false\"");
                return SILT_RUNTIME;
            }
            vec_set_null(out, r);
        }
    });
    return SILT_OK;
}

/*
 * Finds whether a live, non-null row overflowed the result type (slow
 * path); with null_them set (try_add and friends), makes those rows NULL.
 */
static int find_int_overflow(int op, const ev_val *l, const ev_val *rhs, col_vec *out,
                             const int32_t *sel, int64_t n, int null_them)
{
    size_t width = col_type_value_width(out->type->id);
    __int128 lo = -((__int128)1 << (8 * width - 1)), hi = ((__int128)1 << (8 * width - 1)) - 1;
    int found = 0;
    FOR_SEL({
        if (vec_is_valid(out, r)) {
            __int128 x = vec_get_int(l->v, l->is_const ? 0 : r);
            __int128 y = vec_get_int(rhs->v, rhs->is_const ? 0 : r);
            __int128 z = op == EXPR_ADD ? x + y : (op == EXPR_SUB ? x - y : x * y);
            if (z < lo || z > hi) {
                if (!null_them)
                    return 1;
                vec_set_null(out, r);
                found = 1;
            }
        }
    });
    return found;
}

static silt_status eval_arith_decimal(const expr *e, engine_ctx *ctx, const ev_val *l,
                                      const ev_val *r, col_vec *out, const int32_t *sel,
                                      int64_t n, silt_error *err);

static silt_status eval_arith(const expr *e, engine_ctx *ctx, const col_batch *batch,
                              const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                              silt_error *err)
{
    ev_val l, rt;
    col_vec *o;
    int64_t n_rows, n;
    int mode, ovf = 0;
    const void *lv, *rv;
    SILT_RETURN_IF_ERROR(ev_eval(e->args[0], ctx, batch, sel, n_sel, a, &l, err));
    SILT_RETURN_IF_ERROR(ev_eval(e->args[1], ctx, batch, sel, n_sel, a, &rt, err));
    if (l.is_const && rt.is_const) {
        n_rows = 1;
        n = 1;
        sel = NULL;
        mode = 0;
    } else {
        n_rows = batch->n_rows;
        n = n_sel;
        mode = l.is_const ? 2 : (rt.is_const ? 1 : 0);
    }
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    combine_validity(o, &l, &rt, n_rows);
    if (e->op == EXPR_DIV || e->op == EXPR_MOD)
        SILT_RETURN_IF_ERROR(check_zero_divisor(e, ctx, &rt, o, sel, n, err));
    lv = l.v->values;
    rv = rt.v->values;
    switch (e->type->id) {
    case COL_BYTE: ovf = arith_i8(e->op, lv, rv, o->values, sel, n, mode); break;
    case COL_SHORT: ovf = arith_i16(e->op, lv, rv, o->values, sel, n, mode); break;
    case COL_INT: ovf = arith_i32(e->op, lv, rv, o->values, sel, n, mode); break;
    case COL_LONG: ovf = arith_i64(e->op, lv, rv, o->values, sel, n, mode); break;
    case COL_FLOAT: arith_f32(e->op, lv, rv, o->values, sel, n, mode); break;
    case COL_DOUBLE: arith_f64(e->op, lv, rv, o->values, sel, n, mode); break;
    case COL_DECIMAL:
        SILT_RETURN_IF_ERROR(eval_arith_decimal(e, ctx, &l, &rt, o, sel, n, err));
        break;
    default:
        return err_set(err, SILT_INVALID, "arithmetic on \"%s\" reached the evaluator",
                       col_type_id_name(e->type->id));
    }
    if (ovf && e->lit.i)
        find_int_overflow(e->op, &l, &rt, o, sel, n, 1);
    else if (ovf && ctx->ansi && find_int_overflow(e->op, &l, &rt, o, sel, n, 0))
        return expr_eval_error(e, err, SILT_RUNTIME, "ARITHMETIC_OVERFLOW",
                          "%s overflow", col_type_id_name(e->type->id));
    out->v = o;
    out->is_const = n_rows == 1 && l.is_const && rt.is_const;
    return SILT_OK;
}

static int dec_op(int op, col_int128 x, int32_t s1, col_int128 y, int32_t s2, int32_t s,
                  int32_t p, col_int128 *z)
{
    int32_t smax = s1 > s2 ? s1 : s2;
    col_int128 t;
    switch (op) {
    case EXPR_ADD:
    case EXPR_SUB:
    case EXPR_MOD:
        if (!engine_dec_rescale(x, s1, smax, 38, &x) || !engine_dec_rescale(y, s2, smax, 38, &y))
            return 0;
        if (op == EXPR_ADD)
            t = x + y;
        else if (op == EXPR_SUB)
            t = x - y;
        else
            t = x % y;
        return engine_dec_rescale(t, smax, s, p, z);
    case EXPR_MUL:
        if (__builtin_mul_overflow(x, y, &t))
            return 0;
        return engine_dec_rescale(t, s1 + s2, s, p, z);
    default: {
        /* x / y at scale s: (x * 10^(s + s2 - s1)) / y, rounded HALF_UP. */
        int32_t shift = s + s2 - s1;
        col_int128 q, rem;
        int neg;
        if (shift >= 0) {
            if (shift > 38 || __builtin_mul_overflow(x, expr_pow10[shift], &x))
                return 0;
        } else {
            if (!engine_dec_rescale(y, 0, -shift, 38, &y))
                return 0;
        }
        q = x / y;
        rem = x % y;
        neg = (x < 0) != (y < 0);
        if (rem < 0)
            rem = -rem;
        if (y < 0)
            y = -y;
        if (rem >= y - rem)
            q += neg ? -1 : 1;
        if (!engine_dec_fits(q, p))
            return 0;
        *z = q;
        return 1;
    }
    }
}

static silt_status eval_arith_decimal(const expr *e, engine_ctx *ctx, const ev_val *l,
                                      const ev_val *rhs, col_vec *out, const int32_t *sel,
                                      int64_t n, silt_error *err)
{
    int32_t s1 = l->v->type->scale, s2 = rhs->v->type->scale;
    int32_t s = e->type->scale, p = e->type->precision;
    FOR_SEL({
        if (vec_is_valid(out, r)) {
            col_int128 x = vec_get_dec(l->v, l->is_const ? 0 : r);
            col_int128 y = vec_get_dec(rhs->v, rhs->is_const ? 0 : r);
            col_int128 z = 0;
            if (!dec_op(e->op, x, s1, y, s2, s, p, &z)) {
                if (ctx->ansi && !e->lit.i)
                    return expr_eval_error(e, err, SILT_RUNTIME, "NUMERIC_VALUE_OUT_OF_RANGE",
                                      "decimal result does not fit decimal(%d,%d)", p, s);
                vec_set_null(out, r);
            }
            vec_put_dec(out, r, z);
        }
    });
    return SILT_OK;
}

/* ---- comparison ----------------------------------------------------------- */

#define CMP_KERNEL(NAME, T, CMP)                                                                   \
    static void NAME(int op, const T *lv, const T *rv, uint8_t *ov, const int32_t *sel,            \
                     int64_t n, int mode)                                                          \
    {                                                                                              \
        switch (op) {                                                                              \
        case EXPR_EQ:                                                                              \
        case EXPR_EQ_NULL_SAFE: BIN_LOOP(T, ov[r] = CMP(xv, yv) == 0;); break;                     \
        case EXPR_NE: BIN_LOOP(T, ov[r] = CMP(xv, yv) != 0;); break;                               \
        case EXPR_LT: BIN_LOOP(T, ov[r] = CMP(xv, yv) < 0;); break;                                \
        case EXPR_LE: BIN_LOOP(T, ov[r] = CMP(xv, yv) <= 0;); break;                               \
        case EXPR_GT: BIN_LOOP(T, ov[r] = CMP(xv, yv) > 0;); break;                                \
        default: BIN_LOOP(T, ov[r] = CMP(xv, yv) >= 0;); break;                                    \
        }                                                                                          \
    }

#define CMP_PLAIN(x, y) (((x) > (y)) - ((x) < (y)))
CMP_KERNEL(cmp_i8, int8_t, CMP_PLAIN)
CMP_KERNEL(cmp_i16, int16_t, CMP_PLAIN)
CMP_KERNEL(cmp_i32, int32_t, CMP_PLAIN)
CMP_KERNEL(cmp_i64, int64_t, CMP_PLAIN)
CMP_KERNEL(cmp_i128, col_int128, CMP_PLAIN)
/*
 * Floats get branch-free kernels with Spark's NaN rules (NaN = NaN, NaN
 * above everything), so that `x > 0.5` vectorizes.
 */
#define FLT_EQ(x, y) (((x) == (y)) | (((x) != (x)) & ((y) != (y))))
#define FLT_LT(x, y) (((x) < (y)) | (((x) == (x)) & ((y) != (y))))
#define FLT_GT(x, y) (((x) > (y)) | (((x) != (x)) & ((y) == (y))))
#define FLT_KERNEL(NAME, T)                                                                        \
    static void NAME(int op, const T *lv, const T *rv, uint8_t *ov, const int32_t *sel,            \
                     int64_t n, int mode)                                                          \
    {                                                                                              \
        switch (op) {                                                                              \
        case EXPR_EQ:                                                                              \
        case EXPR_EQ_NULL_SAFE: BIN_LOOP(T, ov[r] = (uint8_t)FLT_EQ(xv, yv);); break;              \
        case EXPR_NE: BIN_LOOP(T, ov[r] = (uint8_t)!FLT_EQ(xv, yv);); break;                       \
        case EXPR_LT: BIN_LOOP(T, ov[r] = (uint8_t)FLT_LT(xv, yv);); break;                        \
        case EXPR_LE: BIN_LOOP(T, ov[r] = (uint8_t)!FLT_GT(xv, yv);); break;                       \
        case EXPR_GT: BIN_LOOP(T, ov[r] = (uint8_t)FLT_GT(xv, yv);); break;                        \
        default: BIN_LOOP(T, ov[r] = (uint8_t)!FLT_LT(xv, yv);); break;                            \
        }                                                                                          \
    }
FLT_KERNEL(cmp_f32, float)
FLT_KERNEL(cmp_f64, double)

static int cmp_result(int op, int c)
{
    switch (op) {
    case EXPR_EQ:
    case EXPR_EQ_NULL_SAFE: return c == 0;
    case EXPR_NE: return c != 0;
    case EXPR_LT: return c < 0;
    case EXPR_LE: return c <= 0;
    case EXPR_GT: return c > 0;
    default: return c >= 0;
    }
}

static void cmp_strings(int op, const ev_val *l, const ev_val *rt, uint8_t *ov,
                        const int32_t *sel, int64_t n)
{
    FOR_SEL({
        int32_t xl, yl;
        const char *x = col_vec_str(l->v, l->is_const ? 0 : r, &xl);
        const char *y = col_vec_str(rt->v, rt->is_const ? 0 : r, &yl);
        int c;
        if ((op == EXPR_EQ || op == EXPR_NE || op == EXPR_EQ_NULL_SAFE) && xl != yl) {
            c = 1;
        } else {
            int32_t m = xl < yl ? xl : yl;
            c = m > 0 ? memcmp(x, y, (size_t)m) : 0;
            if (c == 0)
                c = (xl > yl) - (xl < yl);
        }
        ov[r] = (uint8_t)cmp_result(op, c);
    });
}

/*
 * Dictionary-encoded strings (Parquet's usual encoding of low-cardinality
 * columns): a predicate against constants is evaluated once per dictionary
 * entry, then each live row looks its code up. Worth it only when the
 * dictionary has no more entries than the batch has live rows.
 */
static int use_dict(const ev_val *x, int64_t n_live)
{
    return !x->is_const && x->v->dictionary != NULL && x->v->dictionary->length <= n_live;
}

/* ov[r] = per_entry[code of r] for the live rows; codes outside the dictionary (null rows) give 0. */
static void dict_lookup(const col_vec *v, const uint8_t *per_entry, uint8_t *ov,
                        const int32_t *sel, int64_t n)
{
    const int32_t *codes = v->values;
    uint32_t len = (uint32_t)v->dictionary->length;
    FOR_SEL({
        uint32_t c = (uint32_t)codes[r];
        ov[r] = c < len ? per_entry[c] : 0;
    });
}

/* String comparison with one side dictionary-encoded and the other constant. */
static silt_status cmp_strings_dict(int op, const ev_val *l, const ev_val *rt, uint8_t *ov,
                                    const int32_t *sel, int64_t n, arena *a, silt_error *err)
{
    const ev_val *var = l->is_const ? rt : l;
    ev_val d = {var->v->dictionary, 0};
    uint8_t *per_entry = arena_alloc(a, (size_t)(d.v->length ? d.v->length : 1));
    if (per_entry == NULL)
        return err_nomem(err);
    if (l->is_const)
        cmp_strings(op, l, &d, per_entry, NULL, d.v->length);
    else
        cmp_strings(op, &d, rt, per_entry, NULL, d.v->length);
    dict_lookup(var->v, per_entry, ov, sel, n);
    return SILT_OK;
}

static silt_status eval_compare(const expr *e, engine_ctx *ctx, const col_batch *batch,
                                const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                                silt_error *err)
{
    ev_val l, rt;
    col_vec *o;
    int64_t n_rows, n;
    int mode;
    const void *lv, *rv;
    SILT_RETURN_IF_ERROR(ev_eval(e->args[0], ctx, batch, sel, n_sel, a, &l, err));
    SILT_RETURN_IF_ERROR(ev_eval(e->args[1], ctx, batch, sel, n_sel, a, &rt, err));
    if (l.is_const && rt.is_const) {
        n_rows = 1;
        n = 1;
        sel = NULL;
        mode = 0;
    } else {
        n_rows = batch->n_rows;
        n = n_sel;
        mode = l.is_const ? 2 : (rt.is_const ? 1 : 0);
    }
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    combine_validity(o, &l, &rt, n_rows);
    lv = l.v->values;
    rv = rt.v->values;
    switch (l.v->type->id) {
    case COL_BOOLEAN:
    case COL_BYTE: cmp_i8(e->op, lv, rv, o->values, sel, n, mode); break;
    case COL_SHORT: cmp_i16(e->op, lv, rv, o->values, sel, n, mode); break;
    case COL_INT:
    case COL_DATE: cmp_i32(e->op, lv, rv, o->values, sel, n, mode); break;
    case COL_LONG:
    case COL_TIMESTAMP:
    case COL_TIMESTAMP_NTZ: cmp_i64(e->op, lv, rv, o->values, sel, n, mode); break;
    case COL_FLOAT: cmp_f32(e->op, lv, rv, o->values, sel, n, mode); break;
    case COL_DOUBLE: cmp_f64(e->op, lv, rv, o->values, sel, n, mode); break;
    case COL_DECIMAL: cmp_i128(e->op, lv, rv, o->values, sel, n, mode); break;
    case COL_STRING:
    case COL_BINARY:
        if ((l.is_const && use_dict(&rt, n)) || (rt.is_const && use_dict(&l, n)))
            SILT_RETURN_IF_ERROR(cmp_strings_dict(e->op, &l, &rt, o->values, sel, n, a, err));
        else
            cmp_strings(e->op, &l, &rt, o->values, sel, n);
        break;
    case COL_NULL: break;
    default: {
        uint8_t *ov = o->values;
        FOR_SEL({
            int c = vec_compare_rows(l.v, l.is_const ? 0 : r, rt.v, rt.is_const ? 0 : r);
            ov[r] = (uint8_t)cmp_result(e->op, c);
        });
        break;
    }
    }
    if (e->op == EXPR_EQ_NULL_SAFE) {
        /* NULL <=> NULL is true, NULL <=> x false; never NULL. */
        uint8_t *ov = o->values;
        if (o->null_count > 0) {
            FOR_SEL({
                int xn = ev_row_null(&l, r), yn = ev_row_null(&rt, r);
                if (xn || yn)
                    ov[r] = (uint8_t)(xn && yn);
            });
        }
        memset(o->validity, 0xff, (size_t)(n_rows + 7) / 8);
        o->null_count = 0;
    }
    out->v = o;
    out->is_const = n_rows == 1 && l.is_const && rt.is_const;
    return SILT_OK;
}

/* ---- logic ------------------------------------------------------------------ */

/* Truth of a BOOLEAN value: 1 true, 0 false, -1 null. */
static int truth(const ev_val *x, int64_t row)
{
    int64_t rr = x->is_const ? 0 : row;
    if (!vec_is_valid(x->v, rr))
        return -1;
    return ((const uint8_t *)x->v->values)[rr] != 0;
}

static silt_status eval_logic(const expr *e, engine_ctx *ctx, const col_batch *batch,
                              const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                              silt_error *err)
{
    /* AND: the right side only where the left is not FALSE; OR: where not TRUE. */
    int is_and = e->kind == EXPR_AND;
    int decided = is_and ? 0 : 1;
    ev_val l, rt;
    int32_t *rest;
    int64_t n_rest = 0, n = n_sel;
    col_vec *o;
    uint8_t *ov;
    SILT_RETURN_IF_ERROR(ev_eval(e->args[0], ctx, batch, sel, n_sel, a, &l, err));
    if (l.is_const && truth(&l, 0) == decided) {
        out->v = l.v;
        out->is_const = 1;
        return SILT_OK;
    }
    rest = arena_alloc(a, sizeof(int32_t) * (size_t)(n_sel ? n_sel : 1));
    if (rest == NULL)
        return err_nomem(err);
    FOR_SEL({
        if (truth(&l, r) != decided)
            rest[n_rest++] = (int32_t)r;
    });
    rt.v = NULL;
    rt.is_const = 0;
    if (n_rest > 0)
        SILT_RETURN_IF_ERROR(ev_eval(e->args[1], ctx, batch, rest, n_rest, a, &rt, err));
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, batch->n_rows, err));
    ov = o->values;
    FOR_SEL({
        int x = truth(&l, r), y;
        if (x == decided) {
            ov[r] = (uint8_t)decided;
            continue;
        }
        y = truth(&rt, r);
        if (y == decided)
            ov[r] = (uint8_t)decided;
        else if (x == -1 || y == -1)
            vec_set_null(o, r);
        else
            ov[r] = (uint8_t)!decided;
    });
    out->v = o;
    out->is_const = 0;
    return SILT_OK;
}

static silt_status eval_not(const expr *e, engine_ctx *ctx, const col_batch *batch,
                            const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                            silt_error *err)
{
    ev_val x;
    col_vec *o;
    int64_t n_rows, n = n_sel;
    const uint8_t *xv;
    uint8_t *ov;
    SILT_RETURN_IF_ERROR(ev_eval(e->args[0], ctx, batch, sel, n_sel, a, &x, err));
    n_rows = x.is_const ? 1 : batch->n_rows;
    if (x.is_const) {
        sel = NULL;
        n = 1;
    }
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    combine_validity(o, &x, NULL, n_rows);
    xv = x.v->values;
    ov = o->values;
    FOR_SEL(ov[r] = !xv[r];);
    out->v = o;
    out->is_const = x.is_const;
    return SILT_OK;
}

static silt_status eval_is_null(const expr *e, engine_ctx *ctx, const col_batch *batch,
                                const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                                silt_error *err)
{
    ev_val x;
    col_vec *o;
    int64_t n_rows, n = n_sel;
    uint8_t *ov;
    uint8_t want_valid = (uint8_t)e->op; /* IS NOT NULL */
    SILT_RETURN_IF_ERROR(ev_eval(e->args[0], ctx, batch, sel, n_sel, a, &x, err));
    n_rows = x.is_const ? 1 : batch->n_rows;
    if (x.is_const) {
        sel = NULL;
        n = 1;
    }
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    ov = o->values;
    if (x.v->validity == NULL)
        FOR_SEL(ov[r] = want_valid;);
    else
        FOR_SEL(ov[r] = (uint8_t)(col_bit_get(x.v->validity, r) == want_valid););
    out->v = o;
    out->is_const = x.is_const;
    return SILT_OK;
}

/* ---- CASE and COALESCE ----------------------------------------------------- */

static silt_status init_rest(int32_t **rest_out, int64_t *n_rest_out, const int32_t *sel,
                             int64_t n_sel, arena *a, silt_error *err)
{
    int32_t *rest = arena_alloc(a, sizeof(int32_t) * (size_t)(n_sel ? n_sel : 1));
    int64_t k;
    if (rest == NULL)
        return err_nomem(err);
    for (k = 0; k < n_sel; k++)
        rest[k] = (int32_t)ENGINE_ROW(sel, k);
    *rest_out = rest;
    *n_rest_out = n_sel;
    return SILT_OK;
}

static silt_status eval_case(const expr *e, engine_ctx *ctx, const col_batch *batch,
                             const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                             silt_error *err)
{
    size_t n_when = (e->n_args - 1) / 2, idx;
    int64_t n_rows = batch->n_rows, n_rest = 0, k;
    const col_vec **src = arena_calloc(a, (size_t)(n_rows ? n_rows : 1), sizeof(col_vec *));
    int32_t *match = arena_alloc(a, sizeof(int32_t) * (size_t)(n_sel ? n_sel : 1));
    int32_t *rest = NULL;
    col_vec *o;
    if (src == NULL || match == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(init_rest(&rest, &n_rest, sel, n_sel, a, err));
    for (idx = 0; idx <= n_when && n_rest > 0; idx++) {
        ev_val c, v;
        int64_t n_match = 0, n_left = 0;
        if (idx < n_when) {
            SILT_RETURN_IF_ERROR(ev_eval(e->args[2 * idx], ctx, batch, rest, n_rest, a, &c, err));
            for (k = 0; k < n_rest; k++) {
                if (truth(&c, rest[k]) == 1)
                    match[n_match++] = rest[k];
                else
                    rest[n_left++] = rest[k];
            }
        } else {
            memcpy(match, rest, sizeof(int32_t) * (size_t)n_rest);
            n_match = n_rest;
        }
        n_rest = n_left;
        if (n_match == 0)
            continue;
        SILT_RETURN_IF_ERROR(ev_eval(e->args[idx < n_when ? 2 * idx + 1 : e->n_args - 1], ctx,
                                     batch, match, n_match, a, &v, err));
        SILT_RETURN_IF_ERROR(ev_materialize(&v, a, n_rows, err));
        for (k = 0; k < n_match; k++)
            src[match[k]] = v.v;
    }
    SILT_RETURN_IF_ERROR(vec_merge(&o, a, e->type, n_rows, sel, n_sel, src, err));
    out->v = o;
    out->is_const = 0;
    return SILT_OK;
}

static silt_status eval_coalesce(const expr *e, engine_ctx *ctx, const col_batch *batch,
                                 const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                                 silt_error *err)
{
    int64_t n_rows = batch->n_rows, n_rest = 0, k;
    const col_vec **src = arena_calloc(a, (size_t)(n_rows ? n_rows : 1), sizeof(col_vec *));
    int32_t *rest = NULL;
    size_t idx;
    col_vec *o;
    if (src == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(init_rest(&rest, &n_rest, sel, n_sel, a, err));
    for (idx = 0; idx < e->n_args && n_rest > 0; idx++) {
        ev_val v;
        int64_t n_left = 0;
        SILT_RETURN_IF_ERROR(ev_eval(e->args[idx], ctx, batch, rest, n_rest, a, &v, err));
        SILT_RETURN_IF_ERROR(ev_materialize(&v, a, n_rows, err));
        for (k = 0; k < n_rest; k++) {
            if (vec_is_valid(v.v, rest[k]))
                src[rest[k]] = v.v;
            else
                rest[n_left++] = rest[k];
        }
        n_rest = n_left;
    }
    SILT_RETURN_IF_ERROR(vec_merge(&o, a, e->type, n_rows, sel, n_sel, src, err));
    out->v = o;
    out->is_const = 0;
    return SILT_OK;
}

/* ---- LIKE ------------------------------------------------------------------ */

static int utf8_len(unsigned char c)
{
    return c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
}

static int char_eq(unsigned char x, unsigned char y, int fold)
{
    if (fold) {
        if (x >= 'A' && x <= 'Z')
            x = (unsigned char)(x + 32);
        if (y >= 'A' && y <= 'Z')
            y = (unsigned char)(y + 32);
    }
    return x == y;
}

/*
 * SQL LIKE: '%' any sequence, '_' one character (UTF-8 aware), escape
 * makes the next pattern character literal. Iterative with one backtrack
 * point per '%', so it runs in O(len(s) * len(p)) at worst.
 */
static int like_match(const char *s, int32_t sl, const char *p, int32_t pl, char esc, int fold)
{
    int32_t si = 0, pi = 0, star_p = -1, star_s = 0;
    while (si < sl) {
        if (pi < pl && p[pi] == '%') {
            star_p = ++pi;
            star_s = si;
            continue;
        }
        if (pi < pl && p[pi] == '_') {
            si += utf8_len((unsigned char)s[si]);
            pi++;
            continue;
        }
        if (pi < pl) {
            int32_t pc = pi;
            if (p[pc] == esc && pc + 1 < pl)
                pc++;
            if (char_eq((unsigned char)s[si], (unsigned char)p[pc], fold)) {
                si++;
                pi = pc + 1;
                continue;
            }
        }
        if (star_p < 0)
            return 0;
        star_s += utf8_len((unsigned char)s[star_s]);
        si = star_s;
        pi = star_p;
    }
    while (pi < pl && p[pi] == '%')
        pi++;
    return pi == pl;
}

/* The pattern's one check: it may not end with a lone escape character. */
static silt_status check_like_pattern(const expr *e, const char *pv, int32_t pl, char esc,
                                      silt_error *err)
{
    if (pl > 0 && pv[pl - 1] == esc && (pl < 2 || pv[pl - 2] != esc))
        return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_FORMAT.ESC_AT_THE_END",
                          "the LIKE pattern \"%.*s\" ends with the escape character",
                          (int)(pl > 100 ? 100 : pl), pv);
    return SILT_OK;
}

/* LIKE of a dictionary-encoded string against a constant pattern: matched once per entry. */
static silt_status like_dict(const expr *e, const ev_val *s, const ev_val *p, col_vec *o,
                             const int32_t *sel, int64_t n, arena *a, ev_val *out,
                             silt_error *err)
{
    const col_vec *d = s->v->dictionary;
    uint8_t *per_entry = arena_alloc(a, (size_t)(d->length ? d->length : 1));
    int fold = e->op & 1, negate = (e->op & 2) != 0;
    char esc = (char)e->lit.i;
    int32_t pl;
    const char *pv = col_vec_str(p->v, 0, &pl);
    int64_t k;
    int any_valid = 0;
    if (per_entry == NULL)
        return err_nomem(err);
    FOR_SEL(any_valid |= vec_is_valid(o, r););
    /* Checked only when a row is live and valid, as the row-wise loop does. */
    if (any_valid)
        SILT_RETURN_IF_ERROR(check_like_pattern(e, pv, pl, esc, err));
    for (k = 0; k < d->length; k++) {
        int32_t sl;
        const char *sv = col_vec_str(d, k, &sl);
        per_entry[k] = (uint8_t)(like_match(sv, sl, pv, pl, esc, fold) != negate);
    }
    dict_lookup(s->v, per_entry, o->values, sel, n);
    out->v = o;
    out->is_const = 0;
    return SILT_OK;
}

static silt_status eval_like(const expr *e, engine_ctx *ctx, const col_batch *batch,
                             const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                             silt_error *err)
{
    ev_val s, p;
    col_vec *o;
    uint8_t *ov;
    int64_t n = n_sel;
    int fold = e->op & 1, negate = (e->op & 2) != 0;
    char esc = (char)e->lit.i;
    SILT_RETURN_IF_ERROR(ev_eval(e->args[0], ctx, batch, sel, n_sel, a, &s, err));
    SILT_RETURN_IF_ERROR(ev_eval(e->args[1], ctx, batch, sel, n_sel, a, &p, err));
    SILT_RETURN_IF_ERROR(ev_materialize(&s, a, batch->n_rows, err));
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, batch->n_rows, err));
    combine_validity(o, &s, &p, batch->n_rows);
    ov = o->values;
    if (p.is_const && vec_is_valid(p.v, 0) && use_dict(&s, n))
        return like_dict(e, &s, &p, o, sel, n, a, out, err);
    FOR_SEL({
        if (vec_is_valid(o, r)) {
            int32_t sl, pl;
            const char *sv = col_vec_str(s.v, r, &sl);
            const char *pv = col_vec_str(p.v, p.is_const ? 0 : r, &pl);
            SILT_RETURN_IF_ERROR(check_like_pattern(e, pv, pl, esc, err));
            ov[r] = (uint8_t)(like_match(sv, sl, pv, pl, esc, fold) != negate);
        }
    });
    out->v = o;
    out->is_const = 0;
    return SILT_OK;
}

/* ---- IN ------------------------------------------------------------------------ */

/* Sorted literal values of an IN list, and whether the list holds a NULL. */
typedef struct in_set {
    col_vec *values;
    int has_null;
} in_set;

/*
 * Sorts the row numbers in order by v's values: a bottom-up merge sort, since
 * the list of an IN subquery can hold every row of a table (an insertion
 * sort took seconds on 20,000 values). tmp has room for n.
 */
static void sort_rows(const col_vec *v, int64_t *order, int64_t *tmp, int64_t n)
{
    int64_t width, lo;
    for (width = 1; width < n; width *= 2) {
        for (lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n;
            int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = vec_compare_rows(v, order[i], v, order[j]) <= 0 ? order[i++] : order[j++];
            while (i < mid)
                tmp[k++] = order[i++];
            while (j < hi)
                tmp[k++] = order[j++];
        }
        memcpy(order, tmp, sizeof(int64_t) * (size_t)n);
    }
}

silt_status expr_eval_in_prepare(expr *e, arena *a, silt_error *err)
{
    size_t idx, n = e->n_args - 1;
    const col_type *type = e->args[0]->type;
    col_builder *b;
    col_vec *raw;
    int64_t *order, *tmp, k;
    in_set *set;
    engine_ctx ctx;
    for (idx = 1; idx < e->n_args; idx++)
        if (e->args[idx]->kind != EXPR_LITERAL && !(e->args[idx]->kind == EXPR_CAST &&
                                                    e->args[idx]->args[0]->kind == EXPR_LITERAL))
            return SILT_OK; /* not all constants: evaluated per batch */
    if (col_type_is_nested(type->id) || type->id == COL_NULL)
        return SILT_OK;
    /* A cast between strings and timestamps depends on the session zone: left to run time. */
    for (idx = 1; idx < e->n_args; idx++)
        if (e->args[idx]->kind == EXPR_CAST &&
            (type->id == COL_TIMESTAMP || e->args[idx]->args[0]->type->id == COL_TIMESTAMP ||
             (type->id == COL_DATE && e->args[idx]->args[0]->type->id == COL_TIMESTAMP_NTZ) ||
             type->id == COL_TIMESTAMP_NTZ))
            return SILT_OK;
    set = arena_calloc(a, 1, sizeof(*set));
    if (set == NULL)
        return err_nomem(err);
    /* Evaluate the constants (casts of literals included) once, in ANSI mode. */
    engine_ctx_init(&ctx, a);
    SILT_RETURN_IF_ERROR(col_builder_new(&b, a, type, err));
    for (idx = 1; idx < e->n_args; idx++) {
        col_batch one = {NULL, 1, 0, NULL};
        ev_val v;
        int32_t row0 = 0;
        silt_status rc = ev_eval(e->args[idx], &ctx, &one, &row0, 1, a, &v, err);
        if (rc == SILT_NOMEM)
            return rc;
        if (rc != SILT_OK) {
            /* A constant that does not cast fails (or is NULL) per the session at run time. */
            err_clear(err);
            return SILT_OK;
        }
        if (!vec_is_valid(v.v, 0)) {
            set->has_null = 1;
            continue;
        }
        switch (type->id) {
        case COL_FLOAT:
        case COL_DOUBLE: SILT_RETURN_IF_ERROR(col_builder_append_double(b, vec_get_double(v.v, 0), err)); break;
        case COL_DECIMAL: SILT_RETURN_IF_ERROR(col_builder_append_decimal(b, vec_get_dec(v.v, 0), err)); break;
        case COL_STRING:
        case COL_BINARY: {
            int32_t len;
            const char *p = col_vec_str(v.v, 0, &len);
            SILT_RETURN_IF_ERROR(col_builder_append_bytes(b, p, (size_t)len, err));
            break;
        }
        case COL_BOOLEAN: SILT_RETURN_IF_ERROR(col_builder_append_bool(b, (int)vec_get_int(v.v, 0), err)); break;
        default: SILT_RETURN_IF_ERROR(col_builder_append_int(b, vec_get_int(v.v, 0), err)); break;
        }
    }
    SILT_RETURN_IF_ERROR(col_builder_finish(b, &raw, err));
    order = arena_alloc(a, sizeof(int64_t) * (n ? n : 1));
    tmp = arena_alloc(a, sizeof(int64_t) * (n ? n : 1));
    if (order == NULL || tmp == NULL)
        return err_nomem(err);
    for (k = 0; k < raw->length; k++)
        order[k] = k;
    sort_rows(raw, order, tmp, raw->length);
    SILT_RETURN_IF_ERROR(vec_gather(&set->values, a, raw, order, raw->length, err));
    e->state = set;
    return SILT_OK;
}

/* Binary search of row r of v in the sorted constants. */
static int in_sorted(const col_vec *values, const col_vec *v, int64_t r)
{
    int64_t lo = 0, hi = values->length;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = vec_compare_rows(values, mid, v, r);
        if (c == 0)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* IN over constants for a dictionary-encoded string: per entry 0 false, 1 true, 2 NULL. */
static silt_status in_dict(const expr *e, const in_set *set, const col_vec *v, col_vec *o,
                           const int32_t *sel, int64_t n, arena *a, ev_val *out,
                           silt_error *err)
{
    const col_vec *d = v->dictionary;
    uint8_t *per_entry = arena_alloc(a, (size_t)(d->length ? d->length : 1));
    uint8_t *ov = o->values;
    int64_t k;
    if (per_entry == NULL)
        return err_nomem(err);
    for (k = 0; k < d->length; k++) {
        if (in_sorted(set->values, d, k))
            per_entry[k] = (uint8_t)!e->op;
        else
            per_entry[k] = set->has_null ? 2 : (uint8_t)e->op;
    }
    dict_lookup(v, per_entry, ov, sel, n);
    FOR_SEL({
        if (!vec_is_valid(v, r) || ov[r] == 2) {
            ov[r] = 0;
            vec_set_null(o, r);
        }
    });
    out->v = o;
    out->is_const = 0;
    return SILT_OK;
}

static silt_status eval_in(const expr *e, engine_ctx *ctx, const col_batch *batch,
                           const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                           silt_error *err)
{
    const in_set *set = e->state;
    col_vec *v, *o, **list = NULL;
    uint8_t *ov;
    int64_t n = n_sel;
    size_t idx;
    SILT_RETURN_IF_ERROR(ev_eval_full(e->args[0], ctx, batch, sel, n_sel, a, &v, err));
    if (set == NULL) {
        list = arena_calloc(a, e->n_args, sizeof(col_vec *));
        if (list == NULL)
            return err_nomem(err);
        for (idx = 1; idx < e->n_args; idx++)
            SILT_RETURN_IF_ERROR(ev_eval_full(e->args[idx], ctx, batch, sel, n_sel, a, &list[idx], err));
    }
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, batch->n_rows, err));
    ov = o->values;
    if (set != NULL) {
        ev_val x = {v, 0};
        if (use_dict(&x, n))
            return in_dict(e, set, v, o, sel, n, a, out, err);
    }
    FOR_SEL({
        int found = 0, saw_null = !vec_is_valid(v, r);
        if (!saw_null) {
            if (set != NULL) {
                found = in_sorted(set->values, v, r);
                saw_null = set->has_null;
            } else {
                for (idx = 1; idx < e->n_args && !found; idx++) {
                    if (!vec_is_valid(list[idx], r))
                        saw_null = 1;
                    else if (vec_compare_rows(v, r, list[idx], r) == 0)
                        found = 1;
                }
            }
        }
        if (found)
            ov[r] = (uint8_t)!e->op;
        else if (saw_null)
            vec_set_null(o, r);
        else
            ov[r] = (uint8_t)e->op;
    });
    out->v = o;
    out->is_const = 0;
    return SILT_OK;
}

/* ---- casts and functions ------------------------------------------------- */

static silt_status eval_cast_node(const expr *e, engine_ctx *ctx, const col_batch *batch,
                                  const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                                  silt_error *err)
{
    ev_val x;
    SILT_RETURN_IF_ERROR(ev_eval(e->args[0], ctx, batch, sel, n_sel, a, &x, err));
    if (x.is_const) {
        SILT_RETURN_IF_ERROR(expr_eval_cast(e, ctx, x.v, NULL, 1, a, &out->v, err));
        out->is_const = 1;
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(expr_eval_cast(e, ctx, x.v, sel, n_sel, a, &out->v, err));
    out->is_const = 0;
    return SILT_OK;
}

static silt_status eval_func(const expr *e, engine_ctx *ctx, const col_batch *batch,
                             const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                             silt_error *err)
{
    col_vec **args = arena_calloc(a, e->n_args ? e->n_args : 1, sizeof(col_vec *));
    int64_t n_rows = batch->n_rows, k, n_live = 0;
    int32_t *live = NULL;
    size_t idx;
    col_vec *o;
    if (args == NULL)
        return err_nomem(err);
    for (idx = 0; idx < e->n_args; idx++)
        SILT_RETURN_IF_ERROR(
            ev_eval_full(e->args[idx], ctx, batch, sel, n_sel, a, &args[idx], err));
    if (e->func->null_safe) {
        SILT_RETURN_IF_ERROR(e->func->eval(e, ctx, args, sel, n_sel, n_rows, a, &o, err));
    } else {
        /* NULL in, NULL out: the function sees only rows whose arguments are all set. */
        live = arena_alloc(a, sizeof(int32_t) * (size_t)(n_sel ? n_sel : 1));
        if (live == NULL)
            return err_nomem(err);
        for (k = 0; k < n_sel; k++) {
            int64_t row = ENGINE_ROW(sel, k);
            int ok = 1;
            for (idx = 0; idx < e->n_args && ok; idx++)
                ok = vec_is_valid(args[idx], row);
            if (ok)
                live[n_live++] = (int32_t)row;
        }
        SILT_RETURN_IF_ERROR(e->func->eval(e, ctx, args, live, n_live, n_rows, a, &o, err));
        for (k = 0, idx = 0; k < n_sel; k++) {
            int64_t row = ENGINE_ROW(sel, k);
            if ((int64_t)idx < n_live && live[idx] == row)
                idx++;
            else
                vec_set_null(o, row);
        }
    }
    out->v = o;
    out->is_const = 0;
    return SILT_OK;
}

/* ---- dispatch -------------------------------------------------------------- */

/*
 * A subquery's value (its slot's expression) over the node's arguments,
 * evaluated first into the columns the value reads (an IN's operand).
 */
static silt_status eval_subquery(const expr *e, engine_ctx *ctx, const col_batch *batch,
                                 const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                                 silt_error *err)
{
    col_batch args = {NULL, batch->n_rows, e->n_args, NULL};
    size_t idx;
    if (e->slot == NULL || e->slot->value == NULL)
        return expr_eval_error(e, err, SILT_INVALID, "INTERNAL_ERROR", "the subquery was not computed before the "
                          "plan ran");
    if (e->n_args == 0)
        return ev_eval(e->slot->value, ctx, batch, sel, n_sel, a, out, err);
    args.cols = arena_calloc(a, e->n_args, sizeof(col_vec *));
    if (args.cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < e->n_args; idx++)
        SILT_RETURN_IF_ERROR(ev_eval_full(e->args[idx], ctx, batch, sel, n_sel, a,
                                          &args.cols[idx], err));
    return ev_eval(e->slot->value, ctx, &args, sel, n_sel, a, out, err);
}

static silt_status ev_eval(const expr *e, engine_ctx *ctx, const col_batch *batch,
                           const int32_t *sel, int64_t n_sel, arena *a, ev_val *out,
                           silt_error *err)
{
    switch (e->kind) {
    case EXPR_COLUMN:
        if (e->col_idx < 0 || (size_t)e->col_idx >= batch->n_cols)
            return err_set(err, SILT_INVALID, "column %lld is not in a batch of %zu columns",
                           (long long)e->col_idx, batch->n_cols);
        out->v = batch->cols[e->col_idx];
        out->is_const = 0;
        return SILT_OK;
    case EXPR_LITERAL: return eval_literal(e, a, out, err);
    case EXPR_ARITH: return eval_arith(e, ctx, batch, sel, n_sel, a, out, err);
    case EXPR_COMPARE: return eval_compare(e, ctx, batch, sel, n_sel, a, out, err);
    case EXPR_AND:
    case EXPR_OR: return eval_logic(e, ctx, batch, sel, n_sel, a, out, err);
    case EXPR_NOT: return eval_not(e, ctx, batch, sel, n_sel, a, out, err);
    case EXPR_IS_NULL: return eval_is_null(e, ctx, batch, sel, n_sel, a, out, err);
    case EXPR_CASE: return eval_case(e, ctx, batch, sel, n_sel, a, out, err);
    case EXPR_COALESCE: return eval_coalesce(e, ctx, batch, sel, n_sel, a, out, err);
    case EXPR_CAST: return eval_cast_node(e, ctx, batch, sel, n_sel, a, out, err);
    case EXPR_LIKE: return eval_like(e, ctx, batch, sel, n_sel, a, out, err);
    case EXPR_FUNC: return eval_func(e, ctx, batch, sel, n_sel, a, out, err);
    case EXPR_IN: return eval_in(e, ctx, batch, sel, n_sel, a, out, err);
    case EXPR_SUBQUERY: return eval_subquery(e, ctx, batch, sel, n_sel, a, out, err);
    }
    return err_set(err, SILT_INVALID, "expression kind %d cannot be evaluated", (int)e->kind);
}

silt_status expr_eval(const expr *e, engine_ctx *ctx, const col_batch *batch,
                      const int32_t *sel, int64_t n_sel, arena *a, col_vec **out,
                      silt_error *err)
{
    return ev_eval_full(e, ctx, batch, sel, n_sel, a, out, err);
}

/*
 * WHERE dictionary_column op 'constant': the comparison is made once per
 * dictionary entry, and the selection is built from the codes directly,
 * with no boolean vector in between. *handled = 0 leaves it to expr_filter.
 */
static silt_status filter_dict_compare(const expr *e, engine_ctx *ctx, const col_batch *batch,
                                       const int32_t *sel, int64_t n, arena *a,
                                       int32_t *sel_out, int64_t *n_out, int *handled,
                                       silt_error *err)
{
    const expr *ce, *le;
    ev_val col, lit, d;
    uint8_t *per_entry;
    const int32_t *codes;
    uint32_t len;
    int64_t m = 0;
    *handled = 0;
    if (e->kind != EXPR_COMPARE || e->op == EXPR_EQ_NULL_SAFE || e->n_args != 2)
        return SILT_OK;
    ce = e->args[0]->kind == EXPR_COLUMN ? e->args[0] : e->args[1];
    le = ce == e->args[0] ? e->args[1] : e->args[0];
    if (ce->kind != EXPR_COLUMN || le->kind != EXPR_LITERAL || le->type->id != ce->type->id ||
        (ce->type->id != COL_STRING && ce->type->id != COL_BINARY))
        return SILT_OK;
    SILT_RETURN_IF_ERROR(ev_eval(ce, ctx, batch, sel, n, a, &col, err));
    if (!use_dict(&col, n))
        return SILT_OK;
    SILT_RETURN_IF_ERROR(ev_eval(le, ctx, batch, sel, n, a, &lit, err));
    if (!lit.is_const || !vec_is_valid(lit.v, 0))
        return SILT_OK;
    d.v = col.v->dictionary;
    d.is_const = 0;
    per_entry = arena_alloc(a, (size_t)(d.v->length ? d.v->length : 1));
    if (per_entry == NULL)
        return err_nomem(err);
    if (ce == e->args[0])
        cmp_strings(e->op, &d, &lit, per_entry, NULL, d.v->length);
    else
        cmp_strings(e->op, &lit, &d, per_entry, NULL, d.v->length);
    codes = col.v->values;
    len = (uint32_t)d.v->length;
    if (col.v->validity == NULL || col.v->null_count == 0) {
        FOR_SEL({
            uint32_t c = (uint32_t)codes[r];
            sel_out[m] = (int32_t)r;
            m += c < len ? per_entry[c] : 0;
        });
    } else {
        const uint8_t *valid = col.v->validity;
        FOR_SEL({
            uint32_t c = (uint32_t)codes[r];
            sel_out[m] = (int32_t)r;
            m += (c < len ? per_entry[c] : 0) & col_bit_get(valid, r);
        });
    }
    *n_out = m;
    *handled = 1;
    return SILT_OK;
}

silt_status expr_filter(const expr *e, engine_ctx *ctx, const col_batch *batch,
                        const int32_t *sel, int64_t n_sel, arena *a, int32_t *sel_out,
                        int64_t *n_out, silt_error *err)
{
    ev_val x;
    int64_t n = n_sel, m = 0;
    const uint8_t *xv;
    int handled;
    SILT_RETURN_IF_ERROR(
        filter_dict_compare(e, ctx, batch, sel, n_sel, a, sel_out, n_out, &handled, err));
    if (handled)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(ev_eval(e, ctx, batch, sel, n_sel, a, &x, err));
    if (x.v->type->id != COL_BOOLEAN && x.v->type->id != COL_NULL)
        return err_set(err, SILT_INVALID, "a filter condition must be boolean, not \"%s\"",
                       col_type_id_name(x.v->type->id));
    if (x.is_const) {
        if (truth(&x, 0) == 1)
            FOR_SEL(sel_out[m++] = (int32_t)r;);
        *n_out = m;
        return SILT_OK;
    }
    xv = x.v->values;
    if (x.v->validity == NULL || x.v->null_count == 0) {
        /* Branch-free: write every row, advance only on true. */
        FOR_SEL({
            sel_out[m] = (int32_t)r;
            m += xv[r] != 0;
        });
    } else {
        const uint8_t *valid = x.v->validity;
        FOR_SEL({
            sel_out[m] = (int32_t)r;
            m += (xv[r] != 0) & col_bit_get(valid, r);
        });
    }
    *n_out = m;
    return SILT_OK;
}
