/*
 * expr.h - typed expression trees and their vectorized evaluation.
 *
 * The binder (sql/, later) builds these with the constructors below; the
 * constructors check operand types and insert the implicit casts of Spark's
 * type coercion, so that every node's operands already have the types its
 * kernel expects (both sides of + or = share one type, and so on). A
 * constructor that cannot type its operands fails with SILT_BIND.
 *
 * Evaluation works on a whole batch at a time: expr_eval computes the value
 * of every live row (the selection) into a vector of batch->n_rows rows;
 * rows outside the selection are unspecified. Kernels are tight loops per
 * physical type; no function pointer is called per row.
 *
 * Semantics are Spark SQL's, in ANSI mode by default (engine_ctx.ansi):
 * integer overflow is [ARITHMETIC_OVERFLOW], x / 0 and x % 0 are
 * [DIVIDE_BY_ZERO], a string that does not cast is [CAST_INVALID_INPUT]
 * (all SILT_INVALID). With ansi = 0 they give NULL (overflow wraps), as in
 * Spark 3's default. See docs/engine.md.
 *
 * Expressions are immutable after construction and may be evaluated by
 * several threads at once.
 */
#ifndef SILT_ENGINE_EXPR_H
#define SILT_ENGINE_EXPR_H

#include "engine/engine.h"

typedef enum expr_kind {
    EXPR_COLUMN,
    EXPR_LITERAL,
    EXPR_ARITH,    /* op: EXPR_ADD .. EXPR_MOD */
    EXPR_COMPARE,  /* op: EXPR_EQ .. EXPR_EQ_NULL_SAFE */
    EXPR_AND,
    EXPR_OR,
    EXPR_NOT,
    EXPR_IS_NULL,  /* op = 1: IS NOT NULL */
    EXPR_CASE,     /* args: cond0, val0, cond1, val1, ..., else */
    EXPR_COALESCE,
    EXPR_CAST,     /* op = 1: TRY_CAST (NULL on failure even in ANSI mode) */
    EXPR_LIKE,     /* op bit 0: ILIKE, bit 1: NOT */
    EXPR_FUNC,
    EXPR_IN,       /* args: value, list...; op = 1: NOT IN */
    EXPR_SUBQUERY  /* slot->value over the args (column i = args[i]), computed before the plan runs */
} expr_kind;

typedef enum expr_op {
    EXPR_ADD,
    EXPR_SUB,
    EXPR_MUL,
    EXPR_DIV,
    EXPR_MOD,
    EXPR_EQ,
    EXPR_NE,
    EXPR_LT,
    EXPR_LE,
    EXPR_GT,
    EXPR_GE,
    EXPR_EQ_NULL_SAFE /* <=> */
} expr_op;

/* A constant: which member is used follows the type. */
typedef struct expr_value {
    int is_null;
    int64_t i;        /* BOOLEAN, integral, DATE, TIMESTAMP[_NTZ] */
    double d;         /* FLOAT, DOUBLE */
    col_int128 dec;   /* DECIMAL, unscaled */
    const char *str;  /* STRING, BINARY (not NUL-terminated) */
    int32_t str_len;
} expr_value;

typedef struct expr expr;
typedef struct expr_func_def expr_func_def;

/*
 * What an uncorrelated subquery computed, for the EXPR_SUBQUERY nodes that
 * read it. The planner makes the slot empty; whoever runs the plan fills
 * value (an expression over the node's arguments: a literal for a scalar
 * subquery or EXISTS, `column 0 IN (literals)` for IN) before the
 * operators that evaluate the nodes open, and may fill it again for the
 * next execution. value is read-only while the plan runs.
 */
typedef struct expr_slot {
    const expr *value; /* NULL until computed */
} expr_slot;

struct expr {
    expr_kind kind;
    const col_type *type; /* result type */
    int op;
    int64_t col_idx;      /* EXPR_COLUMN */
    expr_value lit;       /* EXPR_LITERAL; EXPR_ARITH: lit.i = 1 for try_add & co. */
    size_t n_args;
    expr **args;
    const expr_func_def *func; /* EXPR_FUNC */
    void *state;          /* compiled per-node state (patterns), immutable */
    expr_slot *slot;      /* EXPR_SUBQUERY */
    /* For error messages: the SQL text of the node and its byte position (-1 = none). */
    const char *text;
    int64_t pos;
    int32_t line, col; /* the position as line and column of the statement (0 = unknown) */
};

/* ---- constructors (expr.c); all allocate in arena a ------------------- */

silt_status expr_column(expr **out, arena *a, int64_t col_idx, const col_type *type,
                        silt_error *err);
/* A NULL of the given type (COL_NULL for an untyped NULL). */
silt_status expr_lit_null(expr **out, arena *a, const col_type *type, silt_error *err);
silt_status expr_lit_bool(expr **out, arena *a, int value, silt_error *err);
/* Integral, DATE (days) or TIMESTAMP[_NTZ] (micros) literal. */
silt_status expr_lit_int(expr **out, arena *a, col_type_id type, int64_t value, silt_error *err);
silt_status expr_lit_double(expr **out, arena *a, col_type_id type, double value,
                            silt_error *err);
silt_status expr_lit_decimal(expr **out, arena *a, int32_t precision, int32_t scale,
                             col_int128 unscaled, silt_error *err);
/* STRING literal (copied). */
silt_status expr_lit_string(expr **out, arena *a, const char *s, size_t len, silt_error *err);

silt_status expr_arith(expr **out, arena *a, expr_op op, expr *left, expr *right,
                       silt_error *err);
silt_status expr_compare(expr **out, arena *a, expr_op op, expr *left, expr *right,
                         silt_error *err);
silt_status expr_and(expr **out, arena *a, expr *left, expr *right, silt_error *err);
silt_status expr_or(expr **out, arena *a, expr *left, expr *right, silt_error *err);
silt_status expr_not(expr **out, arena *a, expr *arg, silt_error *err);
silt_status expr_is_null(expr **out, arena *a, expr *arg, int negate, silt_error *err);
/* a IS [NOT] DISTINCT FROM b. */
silt_status expr_distinct_from(expr **out, arena *a, expr *left, expr *right, int negate,
                               silt_error *err);
/* arg [NOT] IN (list...), with SQL's three-valued result. */
silt_status expr_in(expr **out, arena *a, expr *arg, expr **list, size_t n_list, int negate,
                    silt_error *err);
/* arg [NOT] BETWEEN lo AND hi. */
silt_status expr_between(expr **out, arena *a, expr *arg, expr *lo, expr *hi, int negate,
                         silt_error *err);
/* CASE WHEN conds[i] THEN vals[i] ... ELSE else_val END (else_val may be NULL). */
silt_status expr_case(expr **out, arena *a, size_t n_when, expr **conds, expr **vals,
                      expr *else_val, silt_error *err);
/* CASE operand WHEN match THEN ... : rewritten to the searched form. */
silt_status expr_case_simple(expr **out, arena *a, expr *operand, size_t n_when, expr **matches,
                             expr **vals, expr *else_val, silt_error *err);
silt_status expr_coalesce(expr **out, arena *a, expr **args, size_t n_args, silt_error *err);
/* CAST(arg AS type); try = 1 for TRY_CAST. Fails with SILT_BIND when Spark forbids the cast. */
silt_status expr_cast(expr **out, arena *a, expr *arg, const col_type *type, int try_cast,
                      silt_error *err);
/* arg [NOT] [I]LIKE pattern [ESCAPE escape]; escape 0 = the default '\'. */
silt_status expr_like(expr **out, arena *a, expr *arg, expr *pattern, char escape, int ilike,
                      int negate, silt_error *err);
/* A function call by name (case-insensitive), from the registry in eval_func.c. */
silt_status expr_func(expr **out, arena *a, const char *name, expr **args, size_t n_args,
                      silt_error *err);
/*
 * A value computed before the plan runs (an uncorrelated subquery): of
 * type type, read from slot->value evaluated over args (copied; may be
 * none). Evaluating it before the slot is filled is an error.
 */
silt_status expr_subquery(expr **out, arena *a, expr_slot *slot, const col_type *type,
                          expr **args, size_t n_args, silt_error *err);
/* Records the SQL text and position of a node for its error messages. */
void expr_set_source(expr *e, const char *text, int64_t pos);
/* Also records the position as the line and column a person reads (1-based). */
void expr_set_source_line(expr *e, int32_t line, int32_t col);

/* Spark's common type of two types for comparison and arithmetic (NULL if none). */
const col_type *expr_common_type(arena *a, const col_type *x, const col_type *y);
/* Wraps e in a cast to type unless it already has it. */
silt_status expr_coerce(expr **inout, arena *a, const col_type *type, silt_error *err);
/*
 * A function's fixed signature: coerces argument i (for every argument the
 * call has, up to n_types) to arg_types[i] and gives e the result type.
 */
silt_status expr_resolve_args(expr *e, arena *a, const col_type_id *arg_types, size_t n_types,
                              col_type_id result, silt_error *err);

/* ---- evaluation (eval.c) ---------------------------------------------- */

/*
 * Evaluates e over the live rows of batch (sel = NULL: all n_sel rows) into a
 * new vector of batch->n_rows rows in arena a (the per-batch arena).
 */
silt_status expr_eval(const expr *e, engine_ctx *ctx, const col_batch *batch,
                      const int32_t *sel, int64_t n_sel, arena *a, col_vec **out,
                      silt_error *err);
/*
 * Evaluates a BOOLEAN predicate and writes the live rows where it is TRUE
 * (not false, not NULL) into sel_out (room for n_sel entries); *n_out gets
 * their count.
 */
silt_status expr_filter(const expr *e, engine_ctx *ctx, const col_batch *batch,
                        const int32_t *sel, int64_t n_sel, arena *a, int32_t *sel_out,
                        int64_t *n_out, silt_error *err);

/* ---- internals shared by the eval*.c files ----------------------------- */

/* A result that is either a full vector or one constant value (length 1). */
typedef struct ev_val {
    col_vec *v;
    int is_const;
} ev_val;

/* Casts the live rows of src (type e->args[0]->type) to e->type (eval_cast.c). */
silt_status expr_eval_cast(const expr *e, engine_ctx *ctx, const col_vec *src, const int32_t *sel,
                      int64_t n_sel, arena *a, col_vec **out, silt_error *err);
/* Raises an evaluation error naming the expression. */
silt_status expr_eval_error(const expr *e, silt_error *err, silt_status code, const char *cls,
                       const char *fmt, ...) SILT_PRINTF(5, 6);
/*
 * Prepares an IN node whose list is all literals: a sorted vector of the
 * values in e->state for binary search (eval.c).
 */
silt_status expr_eval_in_prepare(expr *e, arena *a, silt_error *err);
/* Java's Double.toString / Float.toString text of d (eval_cast.c). */
size_t engine_format_double(double d, int is_float, char *out, size_t cap);
/* Whether a cast from one type to another is allowed (eval_cast.c). */
int expr_cast_allowed(const col_type *from, const col_type *to);

/* Decimal helpers (eval_decimal.c). */
extern const col_int128 expr_pow10[39];
/* Rescales x from scale `from` to `to`, rounding HALF_UP; 0 on overflow of precision p. */
int engine_dec_rescale(col_int128 x, int32_t from, int32_t to, int32_t precision, col_int128 *out);
int engine_dec_fits(col_int128 x, int32_t precision);
/* Text of an unscaled decimal with scale into buf; returns the length. */
size_t engine_dec_format(col_int128 x, int32_t scale, char *out, size_t cap);
/* Parses decimal text into (precision, scale), HALF_UP; 0 = not a number, -1 = overflow. */
int engine_dec_parse(const char *s, size_t len, int32_t precision, int32_t scale, col_int128 *out);

/* XXH64 of bytes (xxhash.c). */
uint64_t engine_xxh64(const void *data, size_t len, uint64_t seed);
/* Spark's xxhash64 of one non-null value (its approx_count_distinct hashes with seed 42). */
uint64_t engine_spark_xxhash64(const col_vec *v, int64_t row, uint64_t seed);

/* The function registry (eval_func.c). */
typedef silt_status (*expr_func_eval_fn)(const expr *e, engine_ctx *ctx, col_vec **args,
                                         const int32_t *sel, int64_t n_sel, int64_t n_rows,
                                         arena *a, col_vec **out, silt_error *err);
struct expr_func_def {
    const char *name;
    int min_args, max_args; /* max -1 = any */
    /* Types the call: may wrap arguments in casts; sets e->type. */
    silt_status (*resolve)(expr *e, arena *a, silt_error *err);
    expr_func_eval_fn eval;
    int null_safe; /* 1: eval sees NULL arguments; 0: NULL in, NULL out (done for it) */
};
const expr_func_def *expr_func_lookup(const char *name);

#endif
