/*
 * eval_array.c - the constructors of complex values (array, map,
 * named_struct, str_to_map, sequence) and the array and map functions
 * that take no lambda (array_contains, array_distinct, map_keys, ...), as
 * Spark 4 defines them.
 *
 * A result array is built as a list of element indexes into one source
 * vector (the argument's elements, or several vectors put end to end),
 * gathered once at the end (vec_gather; -1 gives a NULL element). Element
 * equality is vec_compare_rows, so NULL equals NULL and NaN equals NaN, as
 * in Spark's array_distinct and friends; the set functions compare each
 * element with the ones kept before it (quadratic in an array's length,
 * fine for the arrays rows hold).
 */
#include "engine/eval_int.h"

#include <math.h>
#include <regex.h>
#include <string.h>

#include "util/buf.h"

/* ---- building list results ----------------------------------------------------- */

typedef struct list_out {
    col_vec *o;     /* the result (ARRAY or MAP), offsets set by list_finish */
    int32_t *count; /* elements of each row */
    int64_t *idx;   /* element indexes into the source, -1 = NULL */
    int64_t n, cap;
    arena *a;
} list_out;

static silt_status list_begin(list_out *l, const expr *e, int64_t n_rows, arena *a,
                              silt_error *err)
{
    memset(l, 0, sizeof(*l));
    l->a = a;
    SILT_RETURN_IF_ERROR(vec_new(&l->o, a, e->type, n_rows, err));
    l->count = arena_calloc(a, (size_t)n_rows + 1, sizeof(int32_t));
    return l->count == NULL ? err_nomem(err) : SILT_OK;
}

static silt_status list_push(list_out *l, int64_t row, int64_t src_idx, silt_error *err)
{
    if (l->n == l->cap) {
        int64_t cap = l->cap ? l->cap * 2 : 64;
        int64_t *idx = arena_realloc(l->a, l->idx, sizeof(int64_t) * (size_t)l->cap,
                                     sizeof(int64_t) * (size_t)cap);
        if (idx == NULL)
            return err_nomem(err);
        l->idx = idx;
        l->cap = cap;
    }
    if (l->count[row] == INT32_MAX)
        return err_set(err, SILT_RUNTIME, "[COLLECTION_SIZE_LIMIT_EXCEEDED] an array cannot have "
                       "more than %d elements", INT32_MAX);
    l->idx[l->n++] = src_idx;
    l->count[row]++;
    return SILT_OK;
}

/* Offsets from the counts (rows pushed in ascending order), then the children gathered. */
static silt_status list_finish(list_out *l, const col_vec *src, const col_vec *src_values,
                               col_vec **out, silt_error *err)
{
    int64_t row, n_rows = l->o->length;
    l->o->offsets[0] = 0;
    for (row = 0; row < n_rows; row++) {
        if ((int64_t)l->o->offsets[row] + l->count[row] > INT32_MAX)
            return err_set(err, SILT_RUNTIME, "[COLLECTION_SIZE_LIMIT_EXCEEDED] the arrays of a "
                           "batch hold more than %d elements", INT32_MAX);
        l->o->offsets[row + 1] = l->o->offsets[row] + l->count[row];
    }
    SILT_RETURN_IF_ERROR(vec_gather(&l->o->children[0], l->a, src, l->idx, l->n, err));
    if (src_values != NULL)
        SILT_RETURN_IF_ERROR(vec_gather(&l->o->children[1], l->a, src_values, l->idx, l->n, err));
    *out = l->o;
    return SILT_OK;
}

/* Vectors of one type put end to end (vec_accum); part k starts at base[k]. */
static silt_status concat_vecs(col_vec **out, arena *a, const col_type *type, col_vec **parts,
                               size_t n_parts, int64_t *base, silt_error *err)
{
    vec_accum acc;
    size_t k;
    int64_t at = 0;
    vec_accum_init(&acc, a, type);
    for (k = 0; k < n_parts; k++) {
        base[k] = at;
        at += parts[k]->length;
        if (parts[k]->length > 0)
            SILT_RETURN_IF_ERROR(vec_accum_push(&acc, parts[k], err));
    }
    if (at == 0)
        return vec_new(out, a, type, 0, err);
    return vec_accum_finish(&acc, out, err);
}

/* Whether element x of v equals element y of w (NULLs equal each other only). */
static int elem_eq(const col_vec *v, int64_t x, const col_vec *w, int64_t y)
{
    int vx = vec_is_valid(v, x), vy = vec_is_valid(w, y);
    if (!vx || !vy)
        return vx == vy;
    if (v->type->id == COL_DOUBLE || v->type->id == COL_FLOAT) {
        /* Spark's hash sets of the set functions: 0.0 and -0.0 differ, NaN is one value. */
        double dx = vec_get_double(v, x), dy = vec_get_double(w, y);
        if (dx != dx || dy != dy)
            return dx != dx && dy != dy;
        return dx == dy && signbit(dx) == signbit(dy);
    }
    return vec_compare_rows(v, x, w, y) == 0;
}

/* Whether element i of src equals one of the elements l pushed for the current row. */
static int list_has(const list_out *l, int64_t row_start, const col_vec *src, int64_t i)
{
    int64_t k;
    for (k = row_start; k < l->n; k++)
        if (elem_eq(src, l->idx[k], src, i))
            return 1;
    return 0;
}

/* ---- typing helpers --------------------------------------------------------------- */

/* An untyped NULL argument becomes a NULL of the kind needed (Spark's NullType coercion). */
static silt_status null_as(expr *e, size_t idx, col_type_id kind, arena *a, silt_error *err)
{
    const col_type *n = col_type_primitive(COL_NULL), *t;
    t = kind == COL_ARRAY ? col_type_array(a, n, 1) : col_type_map(a, n, n, 1);
    if (t == NULL)
        return err_nomem(err);
    return expr_coerce(&e->args[idx], a, t, err);
}

static silt_status need_kind(expr *e, size_t idx, col_type_id kind, arena *a, silt_error *err)
{
    col_type_id id = e->args[idx]->type->id;
    if (id == kind)
        return SILT_OK;
    if (id == COL_NULL)
        return null_as(e, idx, kind, a, err);
    return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] argument %zu of "
                   "\"%s\" must be %s, not \"%s\"", idx + 1, e->func->name,
                   kind == COL_ARRAY ? "an array" : "a map", col_type_id_name(id));
}


static const col_type *elem_type(const expr *arg) { return arg->type->fields[0].type; }

static silt_status array_of(expr *e, arena *a, const col_type *elem, silt_error *err)
{
    e->type = col_type_array(a, elem, 1);
    return e->type == NULL ? err_nomem(err) : SILT_OK;
}

/* Casts argument idx (an array) to an array of elem, unless it already is one. */
static silt_status coerce_array(expr *e, size_t idx, arena *a, const col_type *elem,
                                silt_error *err)
{
    const col_type *t = col_type_array(a, elem, 1);
    if (t == NULL)
        return err_nomem(err);
    if (col_type_equal(elem_type(e->args[idx]), elem))
        return SILT_OK;
    return expr_coerce(&e->args[idx], a, t, err);
}

static int integral_digits(col_type_id id)
{
    switch (id) {
    case COL_BYTE: return 3;
    case COL_SHORT: return 5;
    case COL_INT: return 10;
    case COL_LONG: return 20;
    default: return -1;
    }
}

/*
 * Spark's findTightestCommonType: the same type, NULL with anything,
 * numbers other than decimals widened, a decimal with an integral type it
 * holds, dates with timestamps; never two different decimals or a string
 * with a non-string.
 */
static const col_type *tightest(arena *a, const col_type *x, const col_type *y)
{
    const col_type *t;
    if (x->id == COL_NULL || col_type_equal(x, y))
        return y;
    if (y->id == COL_NULL)
        return x;
    if (x->id == COL_DECIMAL || y->id == COL_DECIMAL) {
        const col_type *d = x->id == COL_DECIMAL ? x : y, *o = d == x ? y : x;
        int digits = integral_digits(o->id);
        return digits >= 0 && d->precision - d->scale >= digits ? d : NULL;
    }
    if (x->id == COL_STRING || y->id == COL_STRING || col_type_is_nested(x->id) ||
        col_type_is_nested(y->id))
        return NULL;
    t = expr_common_type(a, x, y);
    return t;
}

/*
 * How the arguments of an array function find their element type, as
 * Spark's rules for each: WIDER is findWiderTypeWithoutStringPromotion
 * (array_contains), VALUE and ARRAYS findTightestCommonType with
 * ARRAY_FUNCTION_DIFF_TYPES (array_remove, array_position, array_append,
 * ...) or BINARY_ARRAY_DIFF_TYPES (array_union & co., which also refuse
 * an untyped NULL).
 */
typedef enum unify_rule { UNIFY_WIDER, UNIFY_VALUE, UNIFY_ARRAYS } unify_rule;

/*
 * Arguments arrays (the first n_arrays) and values (the rest) brought to
 * one element type; sets e->type to the array of it.
 */
static silt_status unify(expr *e, arena *a, size_t n_arrays, unify_rule rule, silt_error *err)
{
    const col_type *t = col_type_primitive(COL_NULL);
    const char *cls = rule == UNIFY_ARRAYS ? "BINARY_ARRAY_DIFF_TYPES" : "ARRAY_FUNCTION_DIFF_TYPES";
    size_t idx;
    for (idx = 0; idx < e->n_args; idx++) {
        const col_type *x;
        if (rule == UNIFY_ARRAYS && e->args[idx]->type->id == COL_NULL)
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.%s] the arguments of \"%s\" must "
                           "be arrays of one element type, not \"void\"", cls, e->func->name);
        if (idx < n_arrays)
            SILT_RETURN_IF_ERROR(need_kind(e, idx, COL_ARRAY, a, err));
        x = idx < n_arrays ? elem_type(e->args[idx]) : e->args[idx]->type;
        if (rule != UNIFY_WIDER)
            t = tightest(a, t, x);
        else if ((x->id == COL_STRING) != (t->id == COL_STRING) && x->id != COL_NULL &&
                 t->id != COL_NULL)
            t = NULL; /* no string promotion */
        else
            t = expr_common_type(a, t, x);
        if (t == NULL)
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.%s] the arguments of \"%s\" have "
                           "no common element type", cls, e->func->name);
    }
    for (idx = 0; idx < e->n_args; idx++) {
        if (idx < n_arrays)
            SILT_RETURN_IF_ERROR(coerce_array(e, idx, a, t, err));
        else
            SILT_RETURN_IF_ERROR(expr_coerce(&e->args[idx], a, t, err));
    }
    return array_of(e, a, t, err);
}

static silt_status res_unify_arrays(expr *e, arena *a, silt_error *err)
{
    return unify(e, a, e->n_args, UNIFY_ARRAYS, err);
}

static silt_status res_array_value(expr *e, arena *a, silt_error *err)
{
    return unify(e, a, 1, UNIFY_VALUE, err);
}

/* Spark's NULL_TYPE: the value looked for may not be an untyped NULL. */
static silt_status not_null_type(const expr *e, size_t idx, silt_error *err)
{
    if (e->args[idx]->type->id != COL_NULL)
        return SILT_OK;
    return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.NULL_TYPE] Null typed values cannot be "
                   "used as arguments of `%s`", e->func->name);
}

static int map_key_ok(const col_type *t)
{
    return t->id != COL_MAP;
}

/* ---- array(...) ------------------------------------------------------------------ */

/* array(a, b, ...): Spark's common type of the elements (NULLs are NULL elements). */
static silt_status res_array(expr *e, arena *a, silt_error *err)
{
    const col_type *t = col_type_primitive(COL_NULL);
    size_t idx;
    for (idx = 0; idx < e->n_args; idx++) {
        t = expr_common_type(a, t, e->args[idx]->type);
        if (t == NULL)
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.DATA_DIFF_TYPES] the arguments of "
                           "\"array\" have no common type");
    }
    for (idx = 0; idx < e->n_args; idx++)
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[idx], a, t, err));
    return array_of(e, a, t, err);
}

static silt_status fn_array(FN_ARGS)
{
    list_out l;
    col_vec *src;
    int64_t *base = arena_calloc(a, e->n_args + 1, sizeof(int64_t));
    size_t k;
    (void)ctx;
    if (base == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    SILT_RETURN_IF_ERROR(concat_vecs(&src, a, e->type->fields[0].type, args, e->n_args, base, err));
    LIVE_LOOP({
        for (k = 0; k < e->n_args; k++)
            SILT_RETURN_IF_ERROR(list_push(&l, r, base[k] + r, err));
    });
    return list_finish(&l, src, NULL, out, err);
}

/* ---- map(...), map_from_arrays, map_from_entries, map_concat, str_to_map ---------- */

static silt_status null_key(const expr *e, silt_error *err)
{
    return expr_eval_error(e, err, SILT_RUNTIME, "NULL_MAP_KEY", "Cannot use null as map key.");
}

/*
 * Pushes entry i (key in keys) for the current row of a map being built:
 * Spark's default spark.sql.mapKeyDedupPolicy EXCEPTION refuses a key
 * seen before in the row.
 */
static silt_status map_push(const expr *e, list_out *l, int64_t row, int64_t row_start,
                            const col_vec *keys, int64_t i, silt_error *err)
{
    if (!vec_is_valid(keys, i))
        return null_key(e, err);
    if (list_has(l, row_start, keys, i))
        return expr_eval_error(e, err, SILT_RUNTIME, "DUPLICATED_MAP_KEY", "Duplicate map key "
                               "was found, please check the input data. If you want to remove "
                               "the duplicated keys, you can set spark.sql.mapKeyDedupPolicy to "
                               "\"LAST_WIN\" so that the key inserted at last takes precedence.");
    return list_push(l, row, i, err);
}

static silt_status res_map(expr *e, arena *a, silt_error *err)
{
    const col_type *kt = col_type_primitive(COL_NULL), *vt = col_type_primitive(COL_NULL);
    size_t idx;
    if (e->n_args % 2 != 0)
        return err_set(err, SILT_BIND, "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `map` requires "
                       "an even number of arguments, but the actual number is %zu", e->n_args);
    for (idx = 0; idx < e->n_args; idx++) {
        const col_type **t = idx % 2 == 0 ? &kt : &vt;
        *t = expr_common_type(a, *t, e->args[idx]->type);
        if (*t == NULL)
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.CREATE_MAP_%s_DIFF_TYPES] the %s "
                           "of \"map\" have no common type", idx % 2 == 0 ? "KEY" : "VALUE",
                           idx % 2 == 0 ? "keys" : "values");
    }
    if (!map_key_ok(kt))
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.INVALID_MAP_KEY_TYPE] a map cannot be "
                       "the key of a map");
    for (idx = 0; idx < e->n_args; idx++)
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[idx], a, idx % 2 == 0 ? kt : vt, err));
    e->type = col_type_map(a, kt, vt, 1);
    return e->type == NULL ? err_nomem(err) : SILT_OK;
}

static silt_status fn_map(FN_ARGS)
{
    size_t n_pairs = e->n_args / 2, k;
    col_vec **kv = arena_calloc(a, n_pairs + 1, sizeof(col_vec *));
    col_vec **vv = arena_calloc(a, n_pairs + 1, sizeof(col_vec *));
    int64_t *base = arena_calloc(a, n_pairs + 1, sizeof(int64_t));
    col_vec *keys, *values;
    list_out l;
    (void)ctx;
    if (kv == NULL || vv == NULL || base == NULL)
        return err_nomem(err);
    for (k = 0; k < n_pairs; k++) {
        kv[k] = args[2 * k];
        vv[k] = args[2 * k + 1];
    }
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    SILT_RETURN_IF_ERROR(concat_vecs(&keys, a, e->type->fields[0].type, kv, n_pairs, base, err));
    SILT_RETURN_IF_ERROR(concat_vecs(&values, a, e->type->fields[1].type, vv, n_pairs, base, err));
    LIVE_LOOP({
        int64_t start = l.n;
        for (k = 0; k < n_pairs; k++)
            SILT_RETURN_IF_ERROR(map_push(e, &l, r, start, keys, base[k] + r, err));
    });
    return list_finish(&l, keys, values, out, err);
}

static silt_status res_map_from_arrays(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(need_kind(e, 0, COL_ARRAY, a, err));
    SILT_RETURN_IF_ERROR(need_kind(e, 1, COL_ARRAY, a, err));
    if (!map_key_ok(elem_type(e->args[0])))
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.INVALID_MAP_KEY_TYPE] a map cannot be "
                       "the key of a map");
    e->type = col_type_map(a, elem_type(e->args[0]), elem_type(e->args[1]), 1);
    return e->type == NULL ? err_nomem(err) : SILT_OK;
}

static silt_status fn_map_from_arrays(FN_ARGS)
{
    const col_vec *ka = args[0], *va = args[1];
    col_vec *values;
    list_out l;
    (void)ctx;
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    /* Entry i takes key i and value i: values are gathered by the keys' positions shifted. */
    {
        int64_t *vidx = NULL, nv = 0;
        LIVE_LOOP({
            int64_t n = ka->offsets[r + 1] - ka->offsets[r], i, start = l.n;
            if (n != va->offsets[r + 1] - va->offsets[r])
                return err_set(err, SILT_RUNTIME, "The key array and value array of MapData "
                               "must have the same length."); /* Spark's, without a class */
            for (i = 0; i < n; i++)
                SILT_RETURN_IF_ERROR(map_push(e, &l, r, start, ka->children[0],
                                              ka->offsets[r] + i, err));
        });
        vidx = arena_alloc(a, sizeof(int64_t) * (size_t)(l.n ? l.n : 1));
        if (vidx == NULL)
            return err_nomem(err);
        LIVE_LOOP({
            int64_t n = va->offsets[r + 1] - va->offsets[r], i;
            for (i = 0; i < n; i++)
                vidx[nv++] = va->offsets[r] + i;
        });
        SILT_RETURN_IF_ERROR(vec_gather(&values, a, va->children[0], vidx, nv, err));
    }
    SILT_RETURN_IF_ERROR(list_finish(&l, ka->children[0], NULL, out, err));
    (*out)->children[1] = values;
    return SILT_OK;
}

static silt_status res_map_from_entries(expr *e, arena *a, silt_error *err)
{
    const col_type *st;
    SILT_RETURN_IF_ERROR(need_kind(e, 0, COL_ARRAY, a, err));
    st = elem_type(e->args[0]);
    if (st->id != COL_STRUCT || st->n_fields != 2)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] "
                       "\"map_from_entries\" needs an array of two-field structs");
    if (!map_key_ok(st->fields[0].type))
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.INVALID_MAP_KEY_TYPE] a map cannot be "
                       "the key of a map");
    e->type = col_type_map(a, st->fields[0].type, st->fields[1].type, 1);
    return e->type == NULL ? err_nomem(err) : SILT_OK;
}

/* map_from_entries: NULL when an entry (a struct) is NULL, as Spark. */
static silt_status fn_map_from_entries(FN_ARGS)
{
    const col_vec *arr = args[0], *st = arr->children[0];
    list_out l;
    (void)ctx;
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    LIVE_LOOP({
        int64_t i, start = l.n, has_null = 0;
        for (i = arr->offsets[r]; i < arr->offsets[r + 1]; i++)
            has_null |= !vec_is_valid(st, i);
        if (has_null) {
            vec_set_null(l.o, r);
            continue;
        }
        for (i = arr->offsets[r]; i < arr->offsets[r + 1]; i++)
            SILT_RETURN_IF_ERROR(map_push(e, &l, r, start, st->children[0], i, err));
    });
    return list_finish(&l, st->children[0], st->children[1], out, err);
}

static silt_status res_map_concat(expr *e, arena *a, silt_error *err)
{
    const col_type *t = NULL;
    size_t idx;
    if (e->n_args == 0) {
        e->type = col_type_map(a, col_type_primitive(COL_STRING), col_type_primitive(COL_STRING), 1);
        return e->type == NULL ? err_nomem(err) : SILT_OK;
    }
    for (idx = 0; idx < e->n_args; idx++) {
        if (e->args[idx]->type->id != COL_MAP)
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.MAP_CONCAT_DIFF_TYPES] the "
                           "arguments of \"map_concat\" must be maps, not \"%s\"",
                           col_type_id_name(e->args[idx]->type->id));
        t = t == NULL ? e->args[idx]->type : expr_common_type(a, t, e->args[idx]->type);
        if (t == NULL)
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.DATA_DIFF_TYPES] the maps of "
                           "\"map_concat\" have no common type");
    }
    if (t == NULL)
        t = col_type_map(a, col_type_primitive(COL_NULL), col_type_primitive(COL_NULL), 1);
    for (idx = 0; idx < e->n_args; idx++)
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[idx], a, t, err));
    e->type = t;
    return SILT_OK;
}

static silt_status fn_map_concat(FN_ARGS)
{
    size_t n = e->n_args, k;
    col_vec **kp = arena_calloc(a, n + 1, sizeof(col_vec *));
    col_vec **vp = arena_calloc(a, n + 1, sizeof(col_vec *));
    int64_t *base = arena_calloc(a, n + 1, sizeof(int64_t));
    col_vec *keys, *values;
    list_out l;
    (void)ctx;
    if (kp == NULL || vp == NULL || base == NULL)
        return err_nomem(err);
    for (k = 0; k < n; k++) {
        kp[k] = args[k]->children[0];
        vp[k] = args[k]->children[1];
    }
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    SILT_RETURN_IF_ERROR(concat_vecs(&keys, a, e->type->fields[0].type, kp, n, base, err));
    SILT_RETURN_IF_ERROR(concat_vecs(&values, a, e->type->fields[1].type, vp, n, base, err));
    LIVE_LOOP({
        int64_t start = l.n, i;
        for (k = 0; k < n; k++)
            for (i = args[k]->offsets[r]; i < args[k]->offsets[r + 1]; i++)
                SILT_RETURN_IF_ERROR(map_push(e, &l, r, start, keys, base[k] + i, err));
    });
    return list_finish(&l, keys, values, out, err);
}

/*
 * str_to_map(text[, pair_delim[, key_value_delim]]): Spark splits with
 * Java's String.split(regex, -1), then each pair once at the key/value
 * delimiter; a pair without one has a NULL value. Delimiters are regular
 * expressions (POSIX extended here); ',' and ':' by default.
 */
typedef struct splitter {
    const char *lit;
    int32_t lit_len;
    regex_t re;
    int is_re;
} splitter;

static int is_plain(const char *s, int32_t len)
{
    int32_t k;
    for (k = 0; k < len; k++)
        if (strchr("\\^$.|?*+()[]{}", s[k]) != NULL)
            return 0;
    return 1;
}

static silt_status splitter_init(const expr *e, splitter *sp, const char *s, int32_t len,
                                 arena *a, silt_error *err)
{
    char *pat;
    memset(sp, 0, sizeof(*sp));
    if (is_plain(s, len) && len > 0) {
        sp->lit = s;
        sp->lit_len = len;
        return SILT_OK;
    }
    pat = arena_strndup(a, s, (size_t)len);
    if (pat == NULL)
        return err_nomem(err);
    if (regcomp(&sp->re, pat, REG_EXTENDED) != 0)
        return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_PARAMETER_VALUE.PATTERN",
                               "the delimiter '%s' is not a valid regular expression", pat);
    sp->is_re = 1;
    return SILT_OK;
}

static void splitter_free(splitter *sp)
{
    if (sp->is_re)
        regfree(&sp->re);
}

/* Finds the next match at or after from: its start and end; 0 when none. */
static int splitter_find(splitter *sp, const char *s, int32_t len, int32_t from, int32_t *b0,
                         int32_t *b1, arena *a)
{
    if (!sp->is_re) {
        int32_t k;
        for (k = from; k + sp->lit_len <= len; k++)
            if (memcmp(s + k, sp->lit, (size_t)sp->lit_len) == 0) {
                *b0 = k;
                *b1 = k + sp->lit_len;
                return 1;
            }
        return 0;
    }
    {
        char *text = arena_strndup(a, s + from, (size_t)(len - from));
        regmatch_t m;
        int32_t at = 0;
        if (text == NULL)
            return 0;
        /* Java's split: an empty match never splits at the start of the input. */
        while (at <= len - from) {
            if (regexec(&sp->re, text + at, 1, &m, at > 0 ? REG_NOTBOL : 0) != 0)
                return 0;
            if (m.rm_eo > m.rm_so || from + at + m.rm_so > 0) {
                *b0 = from + at + (int32_t)m.rm_so;
                *b1 = from + at + (int32_t)m.rm_eo;
                if (*b1 == *b0 && *b0 >= len)
                    return 0;
                return 1;
            }
            at += (int32_t)m.rm_so + 1;
        }
        return 0;
    }
}

static silt_status res_str_to_map(expr *e, arena *a, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < e->n_args; idx++)
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[idx], a, col_type_primitive(COL_STRING), err));
    e->type = col_type_map(a, col_type_primitive(COL_STRING), col_type_primitive(COL_STRING), 1);
    return e->type == NULL ? err_nomem(err) : SILT_OK;
}

static silt_status str_to_map_row(const expr *e, list_out *l, vec_str_writer *kw,
                                  col_builder *vb, int64_t r, const char *s, int32_t len,
                                  splitter *pair, splitter *kv, silt_error *err)
{
    int32_t at = 0, b0, b1;
    int64_t start = l->n;
    for (;;) {
        int last = !splitter_find(pair, s, len, at, &b0, &b1, l->a);
        int32_t end = last ? len : b0, k0, k1;
        const char *p = s + at;
        int32_t plen = end - at;
        int has_kv = splitter_find(kv, p, plen, 0, &k0, &k1, l->a);
        int64_t i = l->n; /* keys are written in push order: key i is entry i */
        SILT_RETURN_IF_ERROR(vec_str_put(kw, i, p, has_kv ? k0 : plen, err));
        if (has_kv)
            SILT_RETURN_IF_ERROR(col_builder_append_bytes(vb, p + k1, (size_t)(plen - k1), err));
        else
            SILT_RETURN_IF_ERROR(col_builder_append_null(vb, err));
        SILT_RETURN_IF_ERROR(map_push(e, l, r, start, kw->v, i, err));
        if (last)
            return SILT_OK;
        at = b1;
    }
}

static silt_status fn_str_to_map(FN_ARGS)
{
    list_out l;
    col_vec *keys, *values;
    vec_str_writer kw;
    col_builder *vb;
    int64_t total = 0, k;
    silt_status rc = SILT_OK;
    (void)ctx;
    /* At most one entry per byte (+1) of each row: room for the keys up front. */
    LIVE_LOOP({
        int32_t len;
        col_vec_str(args[0], r, &len);
        total += len + 1;
    });
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    SILT_RETURN_IF_ERROR(vec_new(&keys, a, col_type_primitive(COL_STRING), total, err));
    SILT_RETURN_IF_ERROR(col_builder_new(&vb, a, col_type_primitive(COL_STRING), err));
    vec_str_begin(&kw, keys, a);
    for (k = 0; k < n_sel && rc == SILT_OK; k++) {
        const int64_t r = ENGINE_ROW(sel, k);
        splitter pair, kv;
        int32_t len, pl = 1, kl = 1;
        const char *s = col_vec_str(args[0], r, &len);
        const char *pd = ",", *kd = ":";
        if (e->n_args > 1)
            pd = col_vec_str(args[1], r, &pl);
        if (e->n_args > 2)
            kd = col_vec_str(args[2], r, &kl);
        SILT_RETURN_IF_ERROR(splitter_init(e, &pair, pd, pl, a, err));
        rc = splitter_init(e, &kv, kd, kl, a, err);
        if (rc == SILT_OK) {
            rc = str_to_map_row(e, &l, &kw, vb, r, s, len, &pair, &kv, err);
            splitter_free(&kv);
        }
        splitter_free(&pair);
    }
    vec_str_end(&kw);
    if (rc != SILT_OK)
        return rc;
    SILT_RETURN_IF_ERROR(col_builder_finish(vb, &values, err));
    return list_finish(&l, keys, values, out, err);
}

/* ---- named_struct ----------------------------------------------------------------- */

/* named_struct(name1, v1, ...): names are constant strings (Spark's rule). */
static silt_status res_named_struct(expr *e, arena *a, silt_error *err)
{
    size_t n = e->n_args / 2, idx;
    col_field *fields;
    expr **vals;
    if (e->n_args % 2 != 0 || e->n_args == 0)
        return err_set(err, SILT_BIND, "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `named_struct` "
                       "requires a positive even number of arguments, but the actual number is "
                       "%zu", e->n_args);
    fields = arena_calloc(a, n, sizeof(col_field));
    vals = arena_calloc(a, n, sizeof(expr *));
    if (fields == NULL || vals == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        const expr *name = e->args[2 * idx];
        if (name->kind != EXPR_LITERAL || name->type->id != COL_STRING || name->lit.is_null)
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.CREATE_NAMED_STRUCT_WITHOUT_"
                           "FOLDABLE_STRING] the names of \"named_struct\" must be constant "
                           "strings");
        fields[idx].name = arena_strndup(a, name->lit.str, (size_t)name->lit.str_len);
        if (fields[idx].name == NULL)
            return err_nomem(err);
        fields[idx].type = e->args[2 * idx + 1]->type;
        fields[idx].nullable = 1;
        fields[idx].field_id = -1;
        vals[idx] = e->args[2 * idx + 1];
    }
    e->args = vals;
    e->n_args = n;
    e->type = col_type_struct(a, n, fields);
    return e->type == NULL ? err_nomem(err) : SILT_OK;
}

static silt_status fn_named_struct(FN_ARGS)
{
    size_t idx;
    (void)ctx, (void)sel, (void)n_sel;
    SILT_RETURN_IF_ERROR(vec_new(out, a, e->type, n_rows, err));
    for (idx = 0; idx < e->n_args; idx++)
        (*out)->children[idx] = args[idx];
    return SILT_OK;
}

/* ---- sequence ----------------------------------------------------------------------- */

static int is_integral(col_type_id id)
{
    return id == COL_BYTE || id == COL_SHORT || id == COL_INT || id == COL_LONG;
}

/*
 * sequence(start, stop[, step]): integers of the wider integral type, or
 * dates a day apart by default; a step of another kind (an interval) is
 * refused by name, silt has no interval type.
 */
static silt_status res_sequence(expr *e, arena *a, silt_error *err)
{
    const col_type *t = expr_common_type(a, e->args[0]->type, e->args[1]->type);
    if (t != NULL && t->id == COL_NULL)
        t = col_type_primitive(COL_INT);
    if (t == NULL || (!is_integral(t->id) && t->id != COL_DATE))
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.SEQUENCE_WRONG_INPUT_TYPES] "
                       "\"sequence\" takes integral or date bounds here (timestamps and "
                       "interval steps are not supported yet), not \"%s\" and \"%s\"",
                       col_type_id_name(e->args[0]->type->id),
                       col_type_id_name(e->args[1]->type->id));
    SILT_RETURN_IF_ERROR(expr_coerce(&e->args[0], a, t, err));
    SILT_RETURN_IF_ERROR(expr_coerce(&e->args[1], a, t, err));
    if (e->n_args > 2) {
        if (t->id == COL_DATE)
            return err_set(err, SILT_UNSUPPORTED, "[DATATYPE_MISMATCH.SEQUENCE_WRONG_INPUT_TYPES]"
                           " a date sequence takes an interval step, and silt has no interval "
                           "type yet");
        if (!is_integral(e->args[2]->type->id) && e->args[2]->type->id != COL_NULL)
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.SEQUENCE_WRONG_INPUT_TYPES] the "
                           "step of \"sequence\" must be integral, not \"%s\"",
                           col_type_id_name(e->args[2]->type->id));
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[2], a, t, err));
    }
    return array_of(e, a, t, err);
}

/* Spark's ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH. */
#define SEQ_MAX_LENGTH (INT32_MAX - 15)

static silt_status fn_sequence(FN_ARGS)
{
    col_builder *b;
    col_vec *elems;
    list_out l;
    int64_t at = 0;
    (void)ctx;
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    SILT_RETURN_IF_ERROR(col_builder_new(&b, a, e->type->fields[0].type, err));
    LIVE_LOOP({
        int64_t start = vec_get_int(args[0], r), stop = vec_get_int(args[1], r);
        int64_t step = e->n_args > 2 ? vec_get_int(args[2], r) : (start <= stop ? 1 : -1);
        col_int128 n, v;
        if ((step > 0 && start > stop) || (step < 0 && start < stop) ||
            (step == 0 && start != stop))
            return err_set(err, SILT_RUNTIME, "requirement failed: Illegal sequence boundaries: "
                           "%lld to %lld by %lld", (long long)start, (long long)stop,
                           (long long)step); /* Spark's require(), without an error class */
        n = step == 0 ? 1 : ((col_int128)stop - start) / step + 1;
        if (n > SEQ_MAX_LENGTH)
            return expr_eval_error(e, err, SILT_RUNTIME,
                                   "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER",
                                   "the sequence from %lld to %lld by %lld has more than %d "
                                   "elements", (long long)start, (long long)stop,
                                   (long long)step, SEQ_MAX_LENGTH);
        for (v = 0; v < n; v++) {
            SILT_RETURN_IF_ERROR(col_builder_append_int(b, (int64_t)(start + v * step), err));
            SILT_RETURN_IF_ERROR(list_push(&l, r, at++, err));
        }
    });
    SILT_RETURN_IF_ERROR(col_builder_finish(b, &elems, err));
    return list_finish(&l, elems, NULL, out, err);
}

/* ---- array_repeat ------------------------------------------------------------------ */

static silt_status res_array_repeat(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(expr_coerce(&e->args[1], a, col_type_primitive(COL_INT), err));
    return array_of(e, a, e->args[0]->type, err);
}

/* array_repeat(x, n): n copies of x (NULL x repeats NULL; n NULL gives NULL). */
static silt_status fn_array_repeat(FN_ARGS)
{
    list_out l;
    (void)ctx;
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    LIVE_LOOP({
        int64_t n, i;
        if (!vec_is_valid(args[1], r)) {
            vec_set_null(l.o, r);
            continue;
        }
        n = vec_get_int(args[1], r);
        if (n > SEQ_MAX_LENGTH)
            return expr_eval_error(e, err, SILT_RUNTIME,
                                   "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER", "array_repeat "
                                   "of %lld elements is more than %d", (long long)n,
                                   SEQ_MAX_LENGTH);
        for (i = 0; i < n; i++)
            SILT_RETURN_IF_ERROR(list_push(&l, r, r, err));
    });
    return list_finish(&l, args[0], NULL, out, err);
}

/* ---- membership: array_contains, array_position, arrays_overlap ---------------------- */

static silt_status res_contains(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(not_null_type(e, 1, err));
    SILT_RETURN_IF_ERROR(unify(e, a, 1, UNIFY_WIDER, err));
    e->type = col_type_primitive(COL_BOOLEAN);
    return SILT_OK;
}

/* TRUE when found, else NULL when the array holds a NULL, else FALSE. */
static silt_status fn_array_contains(FN_ARGS)
{
    const col_vec *arr = args[0], *el = arr->children[0];
    uint8_t *ov;
    (void)ctx;
    SILT_RETURN_IF_ERROR(vec_new(out, a, e->type, n_rows, err));
    ov = (*out)->values;
    LIVE_LOOP({
        int64_t i;
        int found = 0, has_null = 0;
        for (i = arr->offsets[r]; i < arr->offsets[r + 1] && !found; i++) {
            if (!vec_is_valid(el, i))
                has_null = 1;
            else
                found = vec_compare_rows(el, i, args[1], r) == 0;
        }
        ov[r] = (uint8_t)found;
        if (!found && has_null)
            vec_set_null(*out, r);
    });
    return SILT_OK;
}

static silt_status res_position(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(res_array_value(e, a, err));
    e->type = col_type_primitive(COL_LONG);
    return SILT_OK;
}

static silt_status fn_array_position(FN_ARGS)
{
    const col_vec *arr = args[0], *el = arr->children[0];
    int64_t *ov;
    (void)ctx;
    SILT_RETURN_IF_ERROR(vec_new(out, a, e->type, n_rows, err));
    ov = (*out)->values;
    LIVE_LOOP({
        int64_t i;
        ov[r] = 0;
        for (i = arr->offsets[r]; i < arr->offsets[r + 1]; i++)
            if (vec_is_valid(el, i) && vec_compare_rows(el, i, args[1], r) == 0) {
                ov[r] = i - arr->offsets[r] + 1;
                break;
            }
    });
    return SILT_OK;
}

static silt_status res_overlap(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(res_unify_arrays(e, a, err));
    e->type = col_type_primitive(COL_BOOLEAN);
    return SILT_OK;
}

/* TRUE on a common non-NULL element; else NULL when both are non-empty and one holds a NULL. */
static silt_status fn_arrays_overlap(FN_ARGS)
{
    const col_vec *x = args[0], *y = args[1];
    uint8_t *ov;
    (void)ctx;
    SILT_RETURN_IF_ERROR(vec_new(out, a, e->type, n_rows, err));
    ov = (*out)->values;
    LIVE_LOOP({
        int64_t i, j;
        int found = 0, has_null = 0;
        for (i = x->offsets[r]; i < x->offsets[r + 1] && !found; i++) {
            if (!vec_is_valid(x->children[0], i)) {
                has_null = 1;
                continue;
            }
            for (j = y->offsets[r]; j < y->offsets[r + 1] && !found; j++) {
                if (!vec_is_valid(y->children[0], j))
                    has_null = 1;
                else
                    found = vec_compare_rows(x->children[0], i, y->children[0], j) == 0;
            }
        }
        ov[r] = (uint8_t)found;
        if (!found && has_null && x->offsets[r + 1] > x->offsets[r] &&
            y->offsets[r + 1] > y->offsets[r])
            vec_set_null(*out, r);
    });
    return SILT_OK;
}

/* ---- element filters: distinct, remove, compact, set operations ------------------------ */

static silt_status res_same_array(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(need_kind(e, 0, COL_ARRAY, a, err));
    e->type = e->args[0]->type;
    return SILT_OK;
}

static silt_status fn_array_distinct(FN_ARGS)
{
    const col_vec *arr = args[0], *el = arr->children[0];
    list_out l;
    (void)ctx;
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    LIVE_LOOP({
        int64_t i, start = l.n;
        for (i = arr->offsets[r]; i < arr->offsets[r + 1]; i++)
            if (!list_has(&l, start, el, i))
                SILT_RETURN_IF_ERROR(list_push(&l, r, i, err));
    });
    return list_finish(&l, el, NULL, out, err);
}

static silt_status fn_array_compact(FN_ARGS)
{
    const col_vec *arr = args[0], *el = arr->children[0];
    list_out l;
    (void)ctx;
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    LIVE_LOOP({
        int64_t i;
        for (i = arr->offsets[r]; i < arr->offsets[r + 1]; i++)
            if (vec_is_valid(el, i))
                SILT_RETURN_IF_ERROR(list_push(&l, r, i, err));
    });
    return list_finish(&l, el, NULL, out, err);
}

/* array_remove(arr, x): every element equal to x removed (NULL elements stay). */
static silt_status fn_array_remove(FN_ARGS)
{
    const col_vec *arr = args[0], *el = arr->children[0];
    list_out l;
    (void)ctx;
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    LIVE_LOOP({
        int64_t i;
        for (i = arr->offsets[r]; i < arr->offsets[r + 1]; i++)
            if (!vec_is_valid(el, i) || vec_compare_rows(el, i, args[1], r) != 0)
                SILT_RETURN_IF_ERROR(list_push(&l, r, i, err));
    });
    return list_finish(&l, el, NULL, out, err);
}

/* Whether element i of src equals an element of row r of the array y. */
static int array_has(const col_vec *y, int64_t r, const col_vec *src, int64_t i, int64_t y_base)
{
    int64_t j;
    for (j = y->offsets[r]; j < y->offsets[r + 1]; j++)
        if (elem_eq(src, y_base + j, src, i))
            return 1;
    return 0;
}

typedef enum set_op { SET_UNION, SET_INTERSECT, SET_EXCEPT } set_op;

static silt_status set_fn(FN_ARGS, set_op op)
{
    col_vec *parts[2] = {args[0]->children[0], args[1]->children[0]}, *src;
    int64_t base[2];
    const col_vec *x = args[0], *y = args[1];
    list_out l;
    (void)ctx;
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    SILT_RETURN_IF_ERROR(concat_vecs(&src, a, e->type->fields[0].type, parts, 2, base, err));
    LIVE_LOOP({
        int64_t i, start = l.n;
        for (i = x->offsets[r]; i < x->offsets[r + 1]; i++) {
            int64_t at = base[0] + i;
            int keep = op == SET_UNION || (op == SET_INTERSECT) == array_has(y, r, src, at, base[1]);
            if (keep && !list_has(&l, start, src, at))
                SILT_RETURN_IF_ERROR(list_push(&l, r, at, err));
        }
        for (i = y->offsets[r]; op == SET_UNION && i < y->offsets[r + 1]; i++)
            if (!list_has(&l, start, src, base[1] + i))
                SILT_RETURN_IF_ERROR(list_push(&l, r, base[1] + i, err));
    });
    return list_finish(&l, src, NULL, out, err);
}

static silt_status fn_array_union(FN_ARGS) { return set_fn(FN_PASS, SET_UNION); }
static silt_status fn_array_intersect(FN_ARGS) { return set_fn(FN_PASS, SET_INTERSECT); }
static silt_status fn_array_except(FN_ARGS) { return set_fn(FN_PASS, SET_EXCEPT); }

/* ---- array_append, array_prepend, array_insert, concat of arrays ---------------------- */

/* array_append(arr, x) / array_prepend(arr, x): NULL arr gives NULL; a NULL x is added. */
static silt_status add_one(FN_ARGS, int at_end)
{
    col_vec *parts[2] = {args[0]->children[0], args[1]}, *src;
    int64_t base[2];
    list_out l;
    (void)ctx;
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    SILT_RETURN_IF_ERROR(concat_vecs(&src, a, e->type->fields[0].type, parts, 2, base, err));
    LIVE_LOOP({
        int64_t i;
        if (!vec_is_valid(args[0], r)) {
            vec_set_null(l.o, r);
            continue;
        }
        if (!at_end)
            SILT_RETURN_IF_ERROR(list_push(&l, r, base[1] + r, err));
        for (i = args[0]->offsets[r]; i < args[0]->offsets[r + 1]; i++)
            SILT_RETURN_IF_ERROR(list_push(&l, r, i, err));
        if (at_end)
            SILT_RETURN_IF_ERROR(list_push(&l, r, base[1] + r, err));
    });
    return list_finish(&l, src, NULL, out, err);
}

static silt_status fn_array_append(FN_ARGS) { return add_one(FN_PASS, 1); }
static silt_status fn_array_prepend(FN_ARGS) { return add_one(FN_PASS, 0); }

static silt_status res_array_insert(expr *e, arena *a, silt_error *err)
{
    expr *arr = e->args[0], *val = e->args[2];
    expr *two[2] = {arr, val};
    expr tmp = *e;
    tmp.args = two;
    tmp.n_args = 2;
    if (integral_digits(e->args[1]->type->id) < 0)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] the position "
                       "of \"array_insert\" must be an integer, not \"%s\"",
                       col_type_id_name(e->args[1]->type->id));
    SILT_RETURN_IF_ERROR(res_array_value(&tmp, a, err));
    e->args[0] = two[0];
    e->args[2] = two[1];
    SILT_RETURN_IF_ERROR(expr_coerce(&e->args[1], a, col_type_primitive(COL_INT), err));
    e->type = tmp.type;
    return SILT_OK;
}

/*
 * array_insert(arr, pos, x): pos counts from 1, or from the end when
 * negative (-1 puts x after the last element, as Spark 3.5+ without
 * spark.sql.legacy.negativeIndexInArrayInsert); past either end the gap
 * is filled with NULLs. pos 0 is [INVALID_INDEX_OF_ZERO].
 */
static silt_status fn_array_insert(FN_ARGS)
{
    col_vec *parts[2] = {args[0]->children[0], args[2]}, *src;
    int64_t base[2];
    list_out l;
    (void)ctx;
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    SILT_RETURN_IF_ERROR(concat_vecs(&src, a, e->type->fields[0].type, parts, 2, base, err));
    LIVE_LOOP({
        int64_t n, pos, i, b0, len_out, k2;
        if (!vec_is_valid(args[0], r) || !vec_is_valid(args[1], r)) {
            vec_set_null(l.o, r);
            continue;
        }
        b0 = args[0]->offsets[r];
        n = args[0]->offsets[r + 1] - b0;
        pos = vec_get_int(args[1], r);
        if (pos == 0)
            return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_INDEX_OF_ZERO", "The index 0 "
                                   "is invalid. An index shall be either < 0 or > 0 (the first "
                                   "element has index 1).");
        if (pos > 0) {
            /* 0-based slot of x; a gap of NULLs after the elements when past the end. */
            int64_t slot = pos - 1;
            len_out = slot >= n ? slot + 1 : n + 1;
            for (k2 = 0; k2 < len_out; k2++) {
                int64_t from = k2 < slot ? (k2 < n ? b0 + k2 : -1)
                               : k2 == slot ? base[1] + r : b0 + k2 - 1;
                SILT_RETURN_IF_ERROR(list_push(&l, r, from, err));
            }
        } else {
            /* From the end: -1 after the last; far past the start, NULLs between x and arr. */
            int64_t back = -pos; /* x ends up with back - 1 elements after it */
            if (back <= n) {
                int64_t slot = n - back + 1;
                for (k2 = 0; k2 <= n; k2++) {
                    int64_t from = k2 < slot ? b0 + k2 : k2 == slot ? base[1] + r : b0 + k2 - 1;
                    SILT_RETURN_IF_ERROR(list_push(&l, r, from, err));
                }
            } else {
                SILT_RETURN_IF_ERROR(list_push(&l, r, base[1] + r, err));
                for (i = 0; i < back - 1 - n; i++)
                    SILT_RETURN_IF_ERROR(list_push(&l, r, -1, err));
                for (i = 0; i < n; i++)
                    SILT_RETURN_IF_ERROR(list_push(&l, r, b0 + i, err));
            }
        }
    });
    return list_finish(&l, src, NULL, out, err);
}

/* ---- slice, flatten, reverse of arrays ------------------------------------------------- */

static silt_status res_slice(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(need_kind(e, 0, COL_ARRAY, a, err));
    SILT_RETURN_IF_ERROR(expr_coerce(&e->args[1], a, col_type_primitive(COL_INT), err));
    SILT_RETURN_IF_ERROR(expr_coerce(&e->args[2], a, col_type_primitive(COL_INT), err));
    e->type = e->args[0]->type;
    return SILT_OK;
}

static silt_status fn_slice(FN_ARGS)
{
    const col_vec *arr = args[0];
    list_out l;
    (void)ctx;
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    LIVE_LOOP({
        int64_t n = arr->offsets[r + 1] - arr->offsets[r];
        int64_t start = vec_get_int(args[1], r), len = vec_get_int(args[2], r), i, from;
        if (start == 0)
            return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_PARAMETER_VALUE.START",
                                   "The value of parameter(s) `start` in `slice` is invalid: "
                                   "Expects a positive or a negative value for `start`, but got "
                                   "0.");
        if (len < 0)
            return expr_eval_error(e, err, SILT_RUNTIME, "INVALID_PARAMETER_VALUE.LENGTH",
                                   "The value of parameter(s) `length` in `slice` is invalid: "
                                   "Expects `length` greater than or equal to 0, but got %lld.",
                                   (long long)len);
        from = start > 0 ? start - 1 : n + start;
        if (from < 0)
            continue; /* Spark: an empty array when a negative start falls before the first */
        for (i = from; i < n && i < from + len; i++)
            SILT_RETURN_IF_ERROR(list_push(&l, r, arr->offsets[r] + i, err));
    });
    return list_finish(&l, arr->children[0], NULL, out, err);
}

static silt_status res_flatten(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(need_kind(e, 0, COL_ARRAY, a, err));
    if (elem_type(e->args[0])->id != COL_ARRAY)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] \"flatten\" "
                       "needs an array of arrays, not \"%s\"",
                       col_type_id_name(elem_type(e->args[0])->id));
    e->type = elem_type(e->args[0]);
    (void)a;
    return SILT_OK;
}

/* flatten: NULL when one of the inner arrays is NULL. */
static silt_status fn_flatten(FN_ARGS)
{
    const col_vec *arr = args[0], *inner = arr->children[0];
    list_out l;
    (void)ctx;
    SILT_RETURN_IF_ERROR(list_begin(&l, e, n_rows, a, err));
    LIVE_LOOP({
        int64_t i, j, any_null = 0;
        for (i = arr->offsets[r]; i < arr->offsets[r + 1]; i++)
            any_null |= !vec_is_valid(inner, i);
        if (any_null) {
            vec_set_null(l.o, r);
            continue;
        }
        for (i = arr->offsets[r]; i < arr->offsets[r + 1]; i++)
            for (j = inner->offsets[i]; j < inner->offsets[i + 1]; j++)
                SILT_RETURN_IF_ERROR(list_push(&l, r, j, err));
    });
    return list_finish(&l, inner->children[0], NULL, out, err);
}

/* ---- array_max, array_min, array_join ---------------------------------------------- */

static silt_status res_array_extreme(expr *e, arena *a, silt_error *err)
{
    const col_type *t;
    (void)a;
    SILT_RETURN_IF_ERROR(need_kind(e, 0, COL_ARRAY, a, err));
    t = elem_type(e->args[0]);
    if (t->id == COL_MAP)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.INVALID_ORDERING_TYPE] \"%s\" cannot "
                       "order maps", e->func->name);
    e->type = t;
    return SILT_OK;
}

static silt_status extreme(FN_ARGS, int want_max)
{
    const col_vec *arr = args[0], *el = arr->children[0];
    int64_t *idx = arena_alloc(a, sizeof(int64_t) * (size_t)(n_rows ? n_rows : 1)), k;
    (void)ctx;
    if (idx == NULL)
        return err_nomem(err);
    for (k = 0; k < n_rows; k++)
        idx[k] = -1;
    LIVE_LOOP({
        int64_t i, best = -1;
        for (i = arr->offsets[r]; i < arr->offsets[r + 1]; i++) {
            int c;
            if (!vec_is_valid(el, i))
                continue;
            c = best < 0 ? 1 : vec_compare_rows(el, i, el, best);
            if (best < 0 || (want_max ? c > 0 : c < 0))
                best = i;
        }
        idx[r] = best;
    });
    return vec_gather(out, a, el, idx, n_rows, err);
}

static silt_status fn_array_max(FN_ARGS) { return extreme(FN_PASS, 1); }
static silt_status fn_array_min(FN_ARGS) { return extreme(FN_PASS, 0); }

static silt_status res_array_join(expr *e, arena *a, silt_error *err)
{
    size_t idx;
    SILT_RETURN_IF_ERROR(need_kind(e, 0, COL_ARRAY, a, err));
    if (elem_type(e->args[0])->id != COL_STRING)
        SILT_RETURN_IF_ERROR(coerce_array(e, 0, a, col_type_primitive(COL_STRING), err));
    for (idx = 1; idx < e->n_args; idx++)
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[idx], a, col_type_primitive(COL_STRING), err));
    e->type = col_type_primitive(COL_STRING);
    return SILT_OK;
}

/* array_join(arr, sep[, null_text]): NULL elements skipped, or written as null_text. */
static silt_status fn_array_join(FN_ARGS)
{
    const col_vec *arr = args[0], *el = arr->children[0];
    vec_str_writer w;
    buf b = BUF_INIT;
    silt_status rc = SILT_OK;
    (void)ctx;
    SILT_RETURN_IF_ERROR(vec_new(out, a, e->type, n_rows, err));
    vec_str_begin(&w, *out, a);
    LIVE_LOOP({
        int32_t sl, nl = 0, len;
        const char *sep = col_vec_str(args[1], r, &sl), *nt = NULL, *s;
        int64_t i;
        int first = 1;
        if (e->n_args > 2)
            nt = col_vec_str(args[2], r, &nl);
        buf_truncate(&b, 0);
        for (i = arr->offsets[r]; i < arr->offsets[r + 1] && rc == SILT_OK; i++) {
            if (vec_is_valid(el, i)) {
                s = col_vec_str(el, i, &len);
            } else if (nt != NULL) {
                s = nt;
                len = nl;
            } else {
                continue;
            }
            if (!first)
                rc = buf_append(&b, sep, (size_t)sl, err);
            if (rc == SILT_OK)
                rc = buf_append(&b, s, (size_t)len, err);
            first = 0;
        }
        if (rc == SILT_OK)
            rc = vec_str_put(&w, r, b.data ? b.data : "", (int64_t)b.len, err);
        if (rc != SILT_OK)
            break;
    });
    buf_clear(&b);
    vec_str_end(&w);
    return rc;
}

/* ---- maps: map_keys, map_values, map_entries, map_contains_key ------------------------ */

static silt_status res_map_part(expr *e, arena *a, silt_error *err)
{
    int keys = util_str_casecmp(e->func->name, "map_keys") == 0;
    SILT_RETURN_IF_ERROR(need_kind(e, 0, COL_MAP, a, err));
    if (util_str_casecmp(e->func->name, "map_entries") == 0) {
        col_field f[2];
        const col_type *st;
        memset(f, 0, sizeof(f));
        f[0].name = "key";
        f[0].type = e->args[0]->type->fields[0].type;
        f[1].name = "value";
        f[1].type = e->args[0]->type->fields[1].type;
        f[1].nullable = 1;
        f[0].field_id = f[1].field_id = -1;
        st = col_type_struct(a, 2, f);
        if (st == NULL)
            return err_nomem(err);
        return array_of(e, a, st, err);
    }
    return array_of(e, a, e->args[0]->type->fields[keys ? 0 : 1].type, err);
}

static silt_status fn_map_part(FN_ARGS)
{
    const col_vec *m = args[0];
    col_vec *o;
    int64_t k;
    int keys = util_str_casecmp(e->func->name, "map_keys") == 0;
    (void)ctx, (void)sel, (void)n_sel;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    for (k = 0; k <= n_rows; k++)
        o->offsets[k] = m->offsets[k] - m->offsets[0];
    if (util_str_casecmp(e->func->name, "map_entries") == 0) {
        col_vec *st;
        int64_t n = m->offsets[n_rows] - m->offsets[0];
        int64_t *idx = arena_alloc(a, sizeof(int64_t) * (size_t)(n ? n : 1));
        if (idx == NULL)
            return err_nomem(err);
        for (k = 0; k < n; k++)
            idx[k] = m->offsets[0] + k;
        SILT_RETURN_IF_ERROR(vec_new(&st, a, e->type->fields[0].type, n, err));
        SILT_RETURN_IF_ERROR(vec_gather(&st->children[0], a, m->children[0], idx, n, err));
        SILT_RETURN_IF_ERROR(vec_gather(&st->children[1], a, m->children[1], idx, n, err));
        o->children[0] = st;
    } else if (m->offsets[0] == 0) {
        o->children[0] = m->children[keys ? 0 : 1];
    } else {
        int64_t n = m->offsets[n_rows] - m->offsets[0];
        int64_t *idx = arena_alloc(a, sizeof(int64_t) * (size_t)(n ? n : 1));
        if (idx == NULL)
            return err_nomem(err);
        for (k = 0; k < n; k++)
            idx[k] = m->offsets[0] + k;
        SILT_RETURN_IF_ERROR(vec_gather(&o->children[0], a, m->children[keys ? 0 : 1], idx, n,
                                        err));
    }
    *out = o;
    return SILT_OK;
}

static silt_status res_map_contains_key(expr *e, arena *a, silt_error *err)
{
    const col_type *kt, *t;
    SILT_RETURN_IF_ERROR(need_kind(e, 0, COL_MAP, a, err));
    SILT_RETURN_IF_ERROR(not_null_type(e, 1, err));
    kt = e->args[0]->type->fields[0].type;
    t = expr_common_type(a, kt, e->args[1]->type);
    if ((e->args[1]->type->id == COL_STRING) != (kt->id == COL_STRING) &&
        e->args[1]->type->id != COL_NULL)
        t = NULL; /* no string promotion, as Spark */
    if (t == NULL || !col_type_equal(t, kt))
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.MAP_FUNCTION_DIFF_TYPES] the key of "
                       "\"map_contains_key\" must be of the map's key type \"%s\"",
                       col_type_id_name(kt->id));
    SILT_RETURN_IF_ERROR(expr_coerce(&e->args[1], a, kt, err));
    e->type = col_type_primitive(COL_BOOLEAN);
    return SILT_OK;
}

static silt_status fn_map_contains_key(FN_ARGS)
{
    const col_vec *m = args[0];
    uint8_t *ov;
    (void)ctx;
    SILT_RETURN_IF_ERROR(vec_new(out, a, e->type, n_rows, err));
    ov = (*out)->values;
    LIVE_LOOP({
        int64_t i;
        ov[r] = 0;
        for (i = m->offsets[r]; i < m->offsets[r + 1]; i++)
            if (vec_compare_rows(m->children[0], i, args[1], r) == 0) {
                ov[r] = 1;
                break;
            }
    });
    return SILT_OK;
}

/* ---- registry ----------------------------------------------------------------------- */

const expr_func_def engine_array_funcs[] = {
    {"array", 0, -1, res_array, fn_array, 1},
    {"map", 0, -1, res_map, fn_map, 1},
    {"named_struct", 0, -1, res_named_struct, fn_named_struct, 1},
    {"str_to_map", 1, 3, res_str_to_map, fn_str_to_map, 0},
    {"sequence", 2, 3, res_sequence, fn_sequence, 0},
    {"array_repeat", 2, 2, res_array_repeat, fn_array_repeat, 1},
    {"array_contains", 2, 2, res_contains, fn_array_contains, 0},
    {"array_position", 2, 2, res_position, fn_array_position, 0},
    {"arrays_overlap", 2, 2, res_overlap, fn_arrays_overlap, 0},
    {"array_distinct", 1, 1, res_same_array, fn_array_distinct, 0},
    {"array_compact", 1, 1, res_same_array, fn_array_compact, 0},
    {"array_remove", 2, 2, res_array_value, fn_array_remove, 0},
    {"array_union", 2, 2, res_unify_arrays, fn_array_union, 0},
    {"array_intersect", 2, 2, res_unify_arrays, fn_array_intersect, 0},
    {"array_except", 2, 2, res_unify_arrays, fn_array_except, 0},
    {"array_append", 2, 2, res_array_value, fn_array_append, 1},
    {"array_prepend", 2, 2, res_array_value, fn_array_prepend, 1},
    {"array_insert", 3, 3, res_array_insert, fn_array_insert, 1},
    {"slice", 3, 3, res_slice, fn_slice, 0},
    {"flatten", 1, 1, res_flatten, fn_flatten, 0},
    {"array_max", 1, 1, res_array_extreme, fn_array_max, 0},
    {"array_min", 1, 1, res_array_extreme, fn_array_min, 0},
    {"array_join", 2, 3, res_array_join, fn_array_join, 0},
    {"map_keys", 1, 1, res_map_part, fn_map_part, 0},
    {"map_values", 1, 1, res_map_part, fn_map_part, 0},
    {"map_entries", 1, 1, res_map_part, fn_map_part, 0},
    {"map_contains_key", 2, 2, res_map_contains_key, fn_map_contains_key, 0},
    {"map_from_arrays", 2, 2, res_map_from_arrays, fn_map_from_arrays, 0},
    {"map_from_entries", 1, 1, res_map_from_entries, fn_map_from_entries, 0},
    {"map_concat", 0, -1, res_map_concat, fn_map_concat, 0},
};
const size_t engine_n_array_funcs = sizeof(engine_array_funcs) / sizeof(engine_array_funcs[0]);
