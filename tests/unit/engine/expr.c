/* Unit tests of expression typing and evaluation (engine/expr.h, eval*.c). */
#include "engine_test.h"

static arena *qa;
static engine_ctx ctx;
static silt_error err;

void test_engine_expr__initialize(void)
{
    qa = arena_new(NULL, "query");
    engine_ctx_init(&ctx, qa);
    err_clear(&err);
}

void test_engine_expr__cleanup(void) { arena_free(qa); }

static expr *col(int64_t idx, const col_vec *v)
{
    expr *e;
    check_ok(expr_column(&e, qa, idx, v->type, &err), &err);
    return e;
}

static expr *lit_int(int64_t v)
{
    expr *e;
    check_ok(expr_lit_int(&e, qa, COL_INT, v, &err), &err);
    return e;
}

static expr *lit_long(int64_t v)
{
    expr *e;
    check_ok(expr_lit_int(&e, qa, COL_LONG, v, &err), &err);
    return e;
}

static expr *lit_str(const char *s)
{
    expr *e;
    check_ok(expr_lit_string(&e, qa, s, strlen(s), &err), &err);
    return e;
}

static expr *lit_null(void)
{
    expr *e;
    check_ok(expr_lit_null(&e, qa, NULL, &err), &err);
    return e;
}

static expr *arith(expr_op op, expr *l, expr *r)
{
    expr *e;
    check_ok(expr_arith(&e, qa, op, l, r, &err), &err);
    return e;
}

static expr *cmp(expr_op op, expr *l, expr *r)
{
    expr *e;
    check_ok(expr_compare(&e, qa, op, l, r, &err), &err);
    return e;
}

static expr *fn(const char *name, size_t n, expr **args)
{
    expr *e;
    check_ok(expr_func(&e, qa, name, args, n, &err), &err);
    return e;
}

static expr *cast_to(expr *x, const col_type *t, int try_cast)
{
    expr *e;
    check_ok(expr_cast(&e, qa, x, t, try_cast, &err), &err);
    return e;
}

/* A batch of one integer column c0 = {1, NULL, 3, -4}. */
static col_batch *int_batch(void)
{
    col_vec *c = mk_ints(qa, COL_INT, 4, (int64_t[]){1, 0, 3, -4}, ".n..");
    return mk_batch(qa, 1, &c);
}

static col_batch *one_row(void)
{
    col_vec *c = mk_ints(qa, COL_INT, 1, (int64_t[]){0}, NULL);
    return mk_batch(qa, 1, &c);
}

/* Evaluates a constant expression over a one-row batch. */
static const char *const_text(expr *e) { return eval_text(&ctx, e, one_row()); }

static silt_status eval_rc(expr *e, col_batch *b)
{
    col_vec *out;
    err_clear(&err);
    return expr_eval(e, &ctx, b, NULL, b->n_rows, qa, &out, &err);
}

void test_engine_expr__column_and_literals(void)
{
    col_batch *b = int_batch();
    expr *d;
    check_str("1,NULL,3,-4", eval_text(&ctx, col(0, b->cols[0]), b));
    check_str("7,7,7,7", eval_text(&ctx, lit_int(7), b));
    check_str("NULL,NULL,NULL,NULL", eval_text(&ctx, lit_null(), b));
    check_str("ab,ab,ab,ab", eval_text(&ctx, lit_str("ab"), b));
    check_ok(expr_lit_decimal(&d, qa, 5, 2, 12345, &err), &err);
    check_str("123.45", const_text(d));
    check_fails(SILT_BIND, expr_lit_decimal(&d, qa, 3, 1, 12345, &err));
}

void test_engine_expr__integer_arithmetic(void)
{
    col_batch *b = int_batch();
    expr *c0 = col(0, b->cols[0]);
    check_str("3,NULL,5,-2", eval_text(&ctx, arith(EXPR_ADD, c0, lit_int(2)), b));
    check_str("-1,NULL,1,-6", eval_text(&ctx, arith(EXPR_SUB, c0, lit_int(2)), b));
    check_str("2,NULL,6,-8", eval_text(&ctx, arith(EXPR_MUL, lit_int(2), c0), b));
    check_str("1,NULL,0,-1", eval_text(&ctx, arith(EXPR_MOD, c0, lit_int(3)), b));
    check_str("2,NULL,6,-8", eval_text(&ctx, arith(EXPR_ADD, c0, c0), b));
    /* int / int is a double, as in Spark */
    check_int(COL_DOUBLE, arith(EXPR_DIV, c0, lit_int(2))->type->id);
    check_str("0.5,NULL,1.5,-2", eval_text(&ctx, arith(EXPR_DIV, c0, lit_int(2)), b));
    /* int + long widens to long */
    check_int(COL_LONG, arith(EXPR_ADD, c0, lit_long(1))->type->id);
    check_str("NULL,NULL,NULL,NULL", eval_text(&ctx, arith(EXPR_ADD, c0, lit_null()), b));
}

void test_engine_expr__overflow_ansi_and_legacy(void)
{
    col_vec *c = mk_ints(qa, COL_INT, 2, (int64_t[]){INT32_MAX, 0}, ".n");
    col_batch *b = mk_batch(qa, 1, &c);
    expr *e = arith(EXPR_ADD, col(0, c), lit_int(1));
    expr_set_source(e, "c0 + 1", 7);
    check_fails(SILT_RUNTIME, eval_rc(e, b));
    check_contains(err.message, "[ARITHMETIC_OVERFLOW]");
    check_contains(err.message, "\"c0 + 1\" at position 7");
    ctx.ansi = 0;
    check_str("-2147483648,NULL", eval_text(&ctx, e, b));
    /* A NULL row whose hidden value would overflow is not an error. */
    ctx.ansi = 1;
    c = mk_ints(qa, COL_LONG, 2, (int64_t[]){1, INT64_MAX}, ".n");
    b = mk_batch(qa, 1, &c);
    check_str("2,NULL", eval_text(&ctx, arith(EXPR_ADD, col(0, c), lit_long(1)), b));
}

void test_engine_expr__division_by_zero(void)
{
    col_vec *c = mk_ints(qa, COL_INT, 3, (int64_t[]){4, 0, 2}, NULL);
    col_batch *b = mk_batch(qa, 1, &c);
    expr *e = arith(EXPR_DIV, lit_int(8), col(0, c));
    expr *m = arith(EXPR_MOD, lit_int(8), col(0, c));
    expr_set_source(e, "8 / c0", 0);
    check_fails(SILT_RUNTIME, eval_rc(e, b));
    check_contains(err.message, "[DIVIDE_BY_ZERO] division by zero in \"8 / c0\"");
    check_contains(err.hint, "try_divide");
    check_fails(SILT_RUNTIME, eval_rc(m, b));
    ctx.ansi = 0;
    check_str("2,NULL,4", eval_text(&ctx, e, b));
    check_str("0,NULL,0", eval_text(&ctx, m, b));
}

void test_engine_expr__try_arithmetic(void)
{
    check_str("NULL", const_text(fn("try_divide", 2, (expr *[]){lit_int(1), lit_int(0)})));
    check_str("0.5", const_text(fn("try_divide", 2, (expr *[]){lit_int(1), lit_int(2)})));
    check_str("NULL", const_text(fn("try_add", 2, (expr *[]){lit_int(INT32_MAX), lit_int(1)})));
    check_str("NULL", const_text(fn("try_multiply", 2, (expr *[]){lit_long(INT64_MAX), lit_long(2)})));
    check_str("-1", const_text(fn("try_subtract", 2, (expr *[]){lit_int(1), lit_int(2)})));
    check_str("NULL", const_text(fn("try_mod", 2, (expr *[]){lit_int(1), lit_int(0)})));
    {
        expr *e;
        check_fails(SILT_BIND, expr_func(&e, qa, "try_add", (expr *[]){lit_int(1)}, 1, &err));
    }
}

void test_engine_expr__short_circuit_avoids_errors(void)
{
    /* c0 <> 0 AND 10 / c0 > 1: the division never sees the zero row. */
    col_vec *c = mk_ints(qa, COL_INT, 3, (int64_t[]){5, 0, 20}, NULL);
    col_batch *b = mk_batch(qa, 1, &c);
    expr *ne = cmp(EXPR_NE, col(0, c), lit_int(0));
    expr *gt = cmp(EXPR_GT, arith(EXPR_DIV, lit_int(10), col(0, c)), lit_int(1));
    expr *both, *cw, *v;
    check_ok(expr_and(&both, qa, ne, gt, &err), &err);
    check_str("true,false,false", eval_text(&ctx, both, b));
    /* CASE WHEN c0 = 0 THEN -1 ELSE 10 / c0 END */
    v = arith(EXPR_DIV, lit_int(10), col(0, c));
    {
        expr *cond = cmp(EXPR_EQ, col(0, c), lit_int(0));
        expr *neg = lit_int(-1);
        check_ok(expr_case(&cw, qa, 1, &cond, &neg, v, &err), &err);
    }
    check_str("2,-1,0.5", eval_text(&ctx, cw, b));
}

void test_engine_expr__decimal_arithmetic(void)
{
    col_vec *x = mk_decimals(qa, 5, 2, 2, (int64_t[]){12345, -100}, NULL); /* 123.45, -1.00 */
    col_vec *y = mk_decimals(qa, 4, 1, 2, (int64_t[]){25, 30}, NULL);      /* 2.5, 3.0 */
    col_vec *cols[2] = {x, y};
    col_batch *b = mk_batch(qa, 2, cols);
    expr *add = arith(EXPR_ADD, col(0, x), col(1, y));
    expr *mul = arith(EXPR_MUL, col(0, x), col(1, y));
    expr *div = arith(EXPR_DIV, col(0, x), col(1, y));
    expr *addi = arith(EXPR_ADD, col(0, x), lit_int(1));
    /* Spark: decimal(5,2) + decimal(4,1) = decimal(6,2); * = decimal(10,3) */
    check_int(6, add->type->precision);
    check_int(2, add->type->scale);
    check_str("125.95,2.00", eval_text(&ctx, add, b));
    check_int(10, mul->type->precision);
    check_int(3, mul->type->scale);
    check_str("308.625,-3.000", eval_text(&ctx, mul, b));
    /* divide: scale max(6, 2 + 4 + 1) = 7, precision 5 - 2 + 1 + 7 = 11 */
    check_int(11, div->type->precision);
    check_int(7, div->type->scale);
    check_str("49.3800000,-0.3333333", eval_text(&ctx, div, b));
    /* decimal + int: int becomes decimal(10,0) */
    check_int(13, addi->type->precision);
    check_str("124.45,0.00", eval_text(&ctx, addi, b));
    /* decimal + double is double */
    {
        expr *d;
        check_ok(expr_lit_double(&d, qa, COL_DOUBLE, 0.5, &err), &err);
        check_int(COL_DOUBLE, arith(EXPR_ADD, col(0, x), d)->type->id);
    }
}

void test_engine_expr__comparisons_and_null_safe(void)
{
    col_vec *x = mk_ints(qa, COL_INT, 4, (int64_t[]){1, 0, 3, 0}, ".n.n");
    col_vec *y = mk_ints(qa, COL_INT, 4, (int64_t[]){1, 2, 4, 0}, "...n");
    col_vec *cols[2] = {x, y};
    col_batch *b = mk_batch(qa, 2, cols);
    expr *ns, *dist;
    check_str("true,NULL,false,NULL", eval_text(&ctx, cmp(EXPR_EQ, col(0, x), col(1, y)), b));
    check_str("false,NULL,true,NULL", eval_text(&ctx, cmp(EXPR_NE, col(0, x), col(1, y)), b));
    check_str("false,NULL,true,NULL", eval_text(&ctx, cmp(EXPR_LT, col(0, x), col(1, y)), b));
    check_str("true,NULL,true,NULL", eval_text(&ctx, cmp(EXPR_LE, col(0, x), col(1, y)), b));
    check_str("false,NULL,false,NULL", eval_text(&ctx, cmp(EXPR_GT, col(0, x), col(1, y)), b));
    check_str("true,NULL,false,NULL", eval_text(&ctx, cmp(EXPR_GE, col(0, x), col(1, y)), b));
    ns = cmp(EXPR_EQ_NULL_SAFE, col(0, x), col(1, y));
    check_str("true,false,false,true", eval_text(&ctx, ns, b));
    check_ok(expr_distinct_from(&dist, qa, col(0, x), col(1, y), 0, &err), &err);
    check_str("false,true,true,false", eval_text(&ctx, dist, b));
    /* strings compare by bytes */
    {
        col_vec *s = mk_strs(qa, 3, (const char *[]){"abc", "abd", NULL});
        col_batch *sb = mk_batch(qa, 1, &s);
        check_str("false,true,NULL", eval_text(&ctx, cmp(EXPR_GT, col(0, s), lit_str("abc")), sb));
        check_str("true,false,NULL", eval_text(&ctx, cmp(EXPR_EQ, col(0, s), lit_str("abc")), sb));
    }
    /* NaN equals NaN and is above everything, as in Spark */
    {
        col_vec *d = mk_doubles(qa, 2, (double[]){__builtin_nan(""), 1e308}, NULL);
        col_batch *db = mk_batch(qa, 1, &d);
        expr *inf;
        check_ok(expr_lit_double(&inf, qa, COL_DOUBLE, __builtin_inf(), &err), &err);
        check_str("true,false", eval_text(&ctx, cmp(EXPR_GT, col(0, d), inf), db));
        check_str("true,true", eval_text(&ctx, cmp(EXPR_EQ, col(0, d), col(0, d)), db));
    }
    /* string vs date casts the string */
    {
        expr *dt;
        check_ok(expr_lit_int(&dt, qa, COL_DATE, 19000, &err), &err);
        check_str("true", const_text(cmp(EXPR_EQ, dt, lit_str("2022-01-08"))));
    }
    check_fails(SILT_BIND, expr_compare(&dist, qa, EXPR_EQ, lit_int(1),
                                        cast_to(lit_str("x"), col_type_primitive(COL_BINARY), 0),
                                        &err));
}

void test_engine_expr__three_valued_logic(void)
{
    /* all nine combinations of TRUE, FALSE, NULL */
    col_vec *x = mk_ints(qa, COL_BOOLEAN, 9, (int64_t[]){1, 1, 1, 0, 0, 0, 0, 0, 0}, "......nnn");
    col_vec *y = mk_ints(qa, COL_BOOLEAN, 9, (int64_t[]){1, 0, 0, 1, 0, 0, 1, 0, 0}, "..n..n..n");
    col_vec *cols[2] = {x, y};
    col_batch *b = mk_batch(qa, 2, cols);
    expr *and_e, *or_e, *not_e, *isn, *isnn;
    check_ok(expr_and(&and_e, qa, col(0, x), col(1, y), &err), &err);
    check_ok(expr_or(&or_e, qa, col(0, x), col(1, y), &err), &err);
    check_ok(expr_not(&not_e, qa, col(0, x), &err), &err);
    check_ok(expr_is_null(&isn, qa, col(1, y), 0, &err), &err);
    check_ok(expr_is_null(&isnn, qa, col(1, y), 1, &err), &err);
    check_str("true,false,NULL,false,false,false,NULL,false,NULL", eval_text(&ctx, and_e, b));
    check_str("true,true,true,true,false,NULL,true,NULL,NULL", eval_text(&ctx, or_e, b));
    check_str("false,false,false,true,true,true,NULL,NULL,NULL", eval_text(&ctx, not_e, b));
    check_str("false,false,true,false,false,true,false,false,true", eval_text(&ctx, isn, b));
    check_str("true,true,false,true,true,false,true,true,false", eval_text(&ctx, isnn, b));
    check_fails(SILT_BIND, expr_and(&and_e, qa, lit_int(1), col(1, y), &err));
}

void test_engine_expr__in_and_between(void)
{
    col_batch *b = int_batch(); /* 1, NULL, 3, -4 */
    expr *list[3] = {lit_int(1), lit_int(5), lit_int(-4)};
    expr *list_null[2] = {lit_int(1), lit_null()};
    expr *in, *not_in, *in_null, *notin_null, *btw, *nbtw;
    check_ok(expr_in(&in, qa, col(0, b->cols[0]), list, 3, 0, &err), &err);
    check_ok(expr_in(&not_in, qa, col(0, b->cols[0]), list, 3, 1, &err), &err);
    check_ok(expr_in(&in_null, qa, col(0, b->cols[0]), list_null, 2, 0, &err), &err);
    check_ok(expr_in(&notin_null, qa, col(0, b->cols[0]), list_null, 2, 1, &err), &err);
    check_str("true,NULL,false,true", eval_text(&ctx, in, b));
    check_str("false,NULL,true,false", eval_text(&ctx, not_in, b));
    check_str("true,NULL,NULL,NULL", eval_text(&ctx, in_null, b));
    check_str("false,NULL,NULL,NULL", eval_text(&ctx, notin_null, b));
    check_ok(expr_between(&btw, qa, col(0, b->cols[0]), lit_int(0), lit_int(3), 0, &err), &err);
    check_ok(expr_between(&nbtw, qa, col(0, b->cols[0]), lit_int(0), lit_int(3), 1, &err), &err);
    check_str("true,NULL,true,false", eval_text(&ctx, btw, b));
    check_str("false,NULL,false,true", eval_text(&ctx, nbtw, b));
}

void test_engine_expr__in_lists(void)
{
    col_vec *s = mk_strs(qa, 4, (const char *[]){"b", "zz", NULL, "a"});
    col_vec *o = mk_strs(qa, 4, (const char *[]){"x", "zz", "y", NULL});
    col_vec *cols[2] = {s, o};
    col_batch *b = mk_batch(qa, 2, cols);
    expr *e, *list[3] = {lit_str("a"), lit_str("b"), lit_str("c")};
    expr *mixed[2] = {lit_str("q"), col(1, o)};
    expr **big = arena_calloc(qa, 1000, sizeof(expr *));
    int idx;
    check_ok(expr_in(&e, qa, col(0, s), list, 3, 0, &err), &err);
    check(e->state != NULL);
    check_str("true,false,NULL,true", eval_text(&ctx, e, b));
    /* a column in the list: evaluated per row */
    check_ok(expr_in(&e, qa, col(0, s), mixed, 2, 0, &err), &err);
    check(e->state == NULL);
    check_str("false,true,NULL,NULL", eval_text(&ctx, e, b));
    check_ok(expr_in(&e, qa, col(0, s), mixed, 2, 1, &err), &err);
    check_str("true,false,NULL,NULL", eval_text(&ctx, e, b));
    /* a long list of even numbers (binary search), with an int column widened to long */
    for (idx = 0; idx < 1000; idx++)
        big[idx] = lit_long(2 * idx);
    {
        col_vec *v = mk_ints(qa, COL_INT, 4, (int64_t[]){0, 7, 1998, 2000}, NULL);
        col_batch *vb = mk_batch(qa, 1, &v);
        check_ok(expr_in(&e, qa, col(0, v), big, 1000, 0, &err), &err);
        check_str("true,false,true,false", eval_text(&ctx, e, vb));
    }
    /* a literal that does not cast is an error when evaluated, NULL in legacy mode */
    {
        expr *bad[2] = {lit_str("1"), lit_str("x")};
        col_batch *ib = int_batch();
        check_ok(expr_in(&e, qa, col(0, ib->cols[0]), bad, 2, 0, &err), &err);
        check_fails(SILT_RUNTIME, eval_rc(e, ib));
        ctx.ansi = 0;
        check_str("true,NULL,NULL,NULL", eval_text(&ctx, e, ib));
    }
}

/* An IN subquery's list can hold a whole table: unsorted, with duplicates, sorted in n log n. */
void test_engine_expr__in_long_unsorted_list(void)
{
    enum { N = 30000 };
    expr **big = arena_calloc(qa, N, sizeof(expr *));
    col_vec *v = mk_ints(qa, COL_LONG, 5, (int64_t[]){0, 9, 44997, 29998, 45000}, NULL);
    col_batch *vb = mk_batch(qa, 1, &v);
    expr *e;
    int idx;
    check(big != NULL);
    /* multiples of 3, descending, each twice */
    for (idx = 0; idx < N; idx++)
        big[idx] = lit_long(3 * ((N - 1 - idx) / 2));
    check_ok(expr_in(&e, qa, col(0, v), big, N, 0, &err), &err);
    check(e->state != NULL);
    check_str("true,true,true,false,false", eval_text(&ctx, e, vb));
    check_ok(expr_in(&e, qa, col(0, v), big, N, 1, &err), &err);
    check_str("false,false,false,true,true", eval_text(&ctx, e, vb));
}

void test_engine_expr__case_coalesce_nullif(void)
{
    col_batch *b = int_batch(); /* 1, NULL, 3, -4 */
    expr *c0 = col(0, b->cols[0]);
    expr *conds[2], *vals[2], *e, *args[3];
    conds[0] = cmp(EXPR_GT, c0, lit_int(2));
    vals[0] = lit_str("big");
    conds[1] = cmp(EXPR_GT, c0, lit_int(0));
    vals[1] = lit_str("small");
    check_ok(expr_case(&e, qa, 2, conds, vals, NULL, &err), &err);
    check_str("small,NULL,big,NULL", eval_text(&ctx, e, b));
    check_ok(expr_case(&e, qa, 2, conds, vals, lit_str("neg"), &err), &err);
    check_str("small,neg,big,neg", eval_text(&ctx, e, b));
    /* simple CASE */
    {
        expr *m[1] = {lit_int(3)}, *v[1] = {lit_int(30)};
        check_ok(expr_case_simple(&e, qa, c0, 1, m, v, lit_int(0), &err), &err);
        check_str("0,0,30,0", eval_text(&ctx, e, b));
    }
    /* branches are coerced to a common type: int and long -> long */
    conds[0] = cmp(EXPR_GT, c0, lit_int(2));
    vals[0] = lit_long(10000000000LL);
    check_ok(expr_case(&e, qa, 1, conds, vals, c0, &err), &err);
    check_int(COL_LONG, e->type->id);
    check_str("1,NULL,10000000000,-4", eval_text(&ctx, e, b));
    args[0] = lit_null();
    args[1] = c0;
    args[2] = lit_int(9);
    check_str("1,9,3,-4", eval_text(&ctx, fn("coalesce", 3, args), b));
    check_str("1,9,3,-4", eval_text(&ctx, fn("nvl", 2, args + 1), b));
    check_str("1,9,3,-4", eval_text(&ctx, fn("ifnull", 2, args + 1), b));
    args[0] = c0;
    args[1] = lit_int(3);
    check_str("1,NULL,NULL,-4", eval_text(&ctx, fn("nullif", 2, args), b));
    check_fails(SILT_BIND, expr_func(&e, qa, "nvl", args, 3, &err));
}

void test_engine_expr__casts(void)
{
    col_vec *s = mk_strs(qa, 4, (const char *[]){" 42 ", "-7", NULL, "1e3"});
    col_batch *b = mk_batch(qa, 1, &s);
    expr *c0 = col(0, s);
    const col_type *t_int = col_type_primitive(COL_INT);
    check_str("42,-7,NULL,1000", eval_text(&ctx, cast_to(c0, col_type_primitive(COL_DOUBLE), 0), b));
    check_fails(SILT_RUNTIME, eval_rc(cast_to(c0, t_int, 0), b));
    check_contains(err.message, "[CAST_INVALID_INPUT] the value '1e3' of the type \"string\" "
                   "cannot be cast to \"integer\" because it is malformed");
    check_str("42,-7,NULL,NULL", eval_text(&ctx, cast_to(c0, t_int, 1), b));
    ctx.ansi = 0;
    check_str("42,-7,NULL,NULL", eval_text(&ctx, cast_to(c0, t_int, 0), b));
    check_str("1", const_text(cast_to(lit_str("1.9"), t_int, 0)));
    check_str("-128", const_text(cast_to(lit_int(128), col_type_primitive(COL_BYTE), 0)));
    ctx.ansi = 1;
    check_fails(SILT_RUNTIME, eval_rc(cast_to(lit_int(128), col_type_primitive(COL_BYTE), 0),
                                      one_row()));
    check_contains(err.message, "[CAST_OVERFLOW]");
    /* to string */
    check_str("1.0", const_text(cast_to(cast_to(lit_int(1), col_type_primitive(COL_DOUBLE), 0),
                                        col_type_primitive(COL_STRING), 0)));
    {
        expr *d;
        check_ok(expr_lit_double(&d, qa, COL_DOUBLE, 1e10, &err), &err);
        check_str("1.0E10", const_text(cast_to(d, col_type_primitive(COL_STRING), 0)));
        check_ok(expr_lit_double(&d, qa, COL_DOUBLE, 0.1, &err), &err);
        check_str("0.1", const_text(cast_to(d, col_type_primitive(COL_STRING), 0)));
        check_ok(expr_lit_double(&d, qa, COL_DOUBLE, 123.456, &err), &err);
        check_str("123.456", const_text(cast_to(d, col_type_primitive(COL_STRING), 0)));
        check_ok(expr_lit_double(&d, qa, COL_DOUBLE, 2.5, &err), &err);
        check_str("3", const_text(cast_to(d, col_type_decimal(qa, 3, 0), 0)));
        check_ok(expr_lit_double(&d, qa, COL_DOUBLE, -2.5, &err), &err);
        check_str("-3", const_text(cast_to(d, col_type_decimal(qa, 3, 0), 0)));
        check_str("-2", const_text(cast_to(d, t_int, 0)));
    }
    /* decimal rounding HALF_UP and overflow */
    check_str("1.24", const_text(cast_to(lit_str("1.235"), col_type_decimal(qa, 5, 2), 0)));
    check_str("-1.24", const_text(cast_to(lit_str("-1.235"), col_type_decimal(qa, 5, 2), 0)));
    check_fails(SILT_RUNTIME, eval_rc(cast_to(lit_str("1234.5"), col_type_decimal(qa, 4, 1), 0),
                                      one_row()));
    check_str("NULL", const_text(cast_to(lit_str("1234.5"), col_type_decimal(qa, 4, 1), 1)));
    /* booleans */
    check_str("true", const_text(cast_to(lit_str(" YES "), col_type_primitive(COL_BOOLEAN), 0)));
    check_str("false", const_text(cast_to(lit_str("0"), col_type_primitive(COL_BOOLEAN), 0)));
    check_str("true", const_text(cast_to(lit_int(5), col_type_primitive(COL_BOOLEAN), 0)));
    /* dates and timestamps */
    check_str("2024-02-29", const_text(cast_to(lit_str("2024-02-29"), col_type_primitive(COL_DATE), 0)));
    check_fails(SILT_RUNTIME, eval_rc(cast_to(lit_str("2023-02-29"), col_type_primitive(COL_DATE), 0),
                                      one_row()));
    check_str("2024-02-29 10:11:12.5",
              const_text(cast_to(lit_str("2024-02-29T10:11:12.5Z"), col_type_primitive(COL_TIMESTAMP), 0)));
    check_str("2024-02-29",
              const_text(cast_to(cast_to(lit_str("2024-02-29 23:59:59"), col_type_primitive(COL_TIMESTAMP), 0),
                                 col_type_primitive(COL_DATE), 0)));
    check_str("2024-02-29 00:00:00",
              const_text(cast_to(cast_to(lit_str("2024-02-29"), col_type_primitive(COL_DATE), 0),
                                 col_type_primitive(COL_TIMESTAMP), 0)));
    check_str("1970-01-01 00:01:40", const_text(cast_to(lit_long(100), col_type_primitive(COL_TIMESTAMP), 0)));
    /* casts Spark forbids */
    {
        expr *e;
        expr *dt = cast_to(lit_str("2024-01-01"), col_type_primitive(COL_DATE), 0);
        check_fails(SILT_BIND, expr_cast(&e, qa, dt, t_int, 0, &err));
        check_contains(err.message, "cannot cast \"date\" to \"integer\"");
    }
}

void test_engine_expr__like(void)
{
    col_vec *s = mk_strs(qa, 5, (const char *[]){"abc", "ABC", "a_c", "xabcx", NULL});
    col_batch *b = mk_batch(qa, 1, &s);
    expr *e;
    check_ok(expr_like(&e, qa, col(0, s), lit_str("a%"), 0, 0, 0, &err), &err);
    check_str("true,false,true,false,NULL", eval_text(&ctx, e, b));
    check_ok(expr_like(&e, qa, col(0, s), lit_str("a%"), 0, 1, 0, &err), &err);
    check_str("true,true,true,false,NULL", eval_text(&ctx, e, b));
    check_ok(expr_like(&e, qa, col(0, s), lit_str("a\\_c"), 0, 0, 0, &err), &err);
    check_str("false,false,true,false,NULL", eval_text(&ctx, e, b));
    check_ok(expr_like(&e, qa, col(0, s), lit_str("a#_c"), '#', 0, 1, &err), &err);
    check_str("true,true,false,true,NULL", eval_text(&ctx, e, b));
    check_ok(expr_like(&e, qa, col(0, s), lit_str("%b%"), 0, 0, 0, &err), &err);
    check_str("true,false,false,true,NULL", eval_text(&ctx, e, b));
    check_ok(expr_like(&e, qa, col(0, s), lit_str("___"), 0, 0, 0, &err), &err);
    check_str("true,true,true,false,NULL", eval_text(&ctx, e, b));
    check_ok(expr_like(&e, qa, col(0, s), lit_str("ab\\"), 0, 0, 0, &err), &err);
    check_fails(SILT_RUNTIME, eval_rc(e, b));
    /* UTF-8: '_' is one character */
    check_ok(expr_like(&e, qa, lit_str("h\xc3\xa9llo"), lit_str("h_llo"), 0, 0, 0, &err), &err);
    check_str("true", const_text(e));
}

void test_engine_expr__selection_is_respected(void)
{
    /* Only rows 0 and 2 are live: row 1 (a zero divisor) must not raise. */
    col_vec *c = mk_ints(qa, COL_INT, 3, (int64_t[]){2, 0, 4}, NULL);
    col_batch *b = mk_batch(qa, 1, &c);
    int32_t sel[2] = {0, 2};
    int32_t out_sel[3];
    int64_t n;
    col_vec *out;
    expr *e = arith(EXPR_DIV, lit_int(8), col(0, c));
    check_ok(expr_eval(e, &ctx, b, sel, 2, qa, &out, &err), &err);
    check(vec_get_double(out, 0) == 4.0 && vec_get_double(out, 2) == 2.0);
    check_ok(expr_filter(cmp(EXPR_GT, col(0, c), lit_int(2)), &ctx, b, sel, 2, qa, out_sel, &n, &err), &err);
    check_int(1, n);
    check_int(2, out_sel[0]);
}

void test_engine_expr__string_functions(void)
{
    col_vec *s = mk_strs(qa, 3, (const char *[]){"  Hello World  ", NULL, "h\xc3\xa9llo"});
    col_batch *b = mk_batch(qa, 1, &s);
    expr *c0 = col(0, s);
    expr *args[4];
    args[0] = c0;
    check_str("  HELLO WORLD  ,NULL,H\xc3\xa9LLO", eval_text(&ctx, fn("upper", 1, args), b));
    check_str("  hello world  ,NULL,h\xc3\xa9llo", eval_text(&ctx, fn("lower", 1, args), b));
    check_str("15,NULL,5", eval_text(&ctx, fn("length", 1, args), b));
    check_str("Hello World,NULL,h\xc3\xa9llo", eval_text(&ctx, fn("trim", 1, args), b));
    check_str("Hello World  ,NULL,h\xc3\xa9llo", eval_text(&ctx, fn("ltrim", 1, args), b));
    check_str("  Hello World,NULL,h\xc3\xa9llo", eval_text(&ctx, fn("rtrim", 1, args), b));
    args[1] = lit_int(3);
    args[2] = lit_int(3);
    check_str("Hel,NULL,llo", eval_text(&ctx, fn("substring", 3, args), b));
    args[1] = lit_int(-3);
    check_str("d  ,NULL,llo", eval_text(&ctx, fn("substr", 2, args), b));
    args[1] = lit_int(0);
    args[2] = lit_int(2);
    check_str("h\xc3\xa9", const_text(fn("substr", 3, (expr *[]){lit_str("h\xc3\xa9llo"), lit_int(0), lit_int(2)})));
    check_str("abc", const_text(fn("concat", 3, (expr *[]){lit_str("a"), lit_str("b"), lit_str("c")})));
    check_str("NULL", const_text(fn("concat", 2, (expr *[]){lit_str("a"), lit_null()})));
    check_str("a-c", const_text(fn("concat_ws", 4, (expr *[]){lit_str("-"), lit_str("a"), lit_null(), lit_str("c")})));
    check_str("NULL", const_text(fn("concat_ws", 2, (expr *[]){lit_null(), lit_str("a")})));
    check_str("a1c", const_text(fn("concat", 3, (expr *[]){lit_str("a"), lit_int(1), lit_str("c")})));
    check_str("xxbcxx", const_text(fn("replace", 3, (expr *[]){lit_str("abca"), lit_str("a"), lit_str("xx")})));
    check_str("bc", const_text(fn("replace", 2, (expr *[]){lit_str("abca"), lit_str("a")})));
    check_str("00042", const_text(fn("lpad", 3, (expr *[]){lit_str("42"), lit_int(5), lit_str("0")})));
    check_str("42ababa", const_text(fn("rpad", 3, (expr *[]){lit_str("42"), lit_int(7), lit_str("ab")})));
    check_str("4", const_text(fn("lpad", 3, (expr *[]){lit_str("42"), lit_int(1), lit_str("0")})));
    check_str("   42", const_text(fn("lpad", 2, (expr *[]){lit_str("42"), lit_int(5)})));
    check_str("xay", const_text(fn("trim", 2, (expr *[]){lit_str("--xay-"), lit_str("-")})));
}

void test_engine_expr__regex_functions(void)
{
    check_str("true", const_text(fn("rlike", 2, (expr *[]){lit_str("abc123"), lit_str("[0-9]+$")})));
    check_str("false", const_text(fn("rlike", 2, (expr *[]){lit_str("abc"), lit_str("^[0-9]")})));
    check_str("123", const_text(fn("regexp_extract", 3, (expr *[]){lit_str("abc123def"), lit_str("([a-z]+)([0-9]+)"), lit_int(2)})));
    check_str("", const_text(fn("regexp_extract", 3, (expr *[]){lit_str("abc"), lit_str("([0-9]+)"), lit_int(1)})));
    check_str("a#b#c", const_text(fn("regexp_replace", 3, (expr *[]){lit_str("a1b22c"), lit_str("[0-9]+"), lit_str("#")})));
    check_str("b-a", const_text(fn("regexp_replace", 3, (expr *[]){lit_str("a-b"), lit_str("(a)-(b)"), lit_str("$2-$1")})));
    check_str("[a b c]", const_text(fn("split", 2, (expr *[]){lit_str("a,b,c"), lit_str(",")})));
    check_str("[a  b]", const_text(fn("split", 2, (expr *[]){lit_str("a,,b"), lit_str(",")})));
    {
        expr *e = fn("rlike", 2, (expr *[]){lit_str("a"), lit_str("(")});
        check_fails(SILT_RUNTIME, eval_rc(e, one_row()));
        check_contains(err.message, "is not valid");
        e = fn("regexp_extract", 3, (expr *[]){lit_str("a"), lit_str("(a)"), lit_int(3)});
        check_fails(SILT_RUNTIME, eval_rc(e, one_row()));
    }
}

static expr *dbl(double v)
{
    expr *e;
    check_ok(expr_lit_double(&e, qa, COL_DOUBLE, v, &err), &err);
    return e;
}

static expr *dec(int32_t p, int32_t s, int64_t v)
{
    expr *e;
    check_ok(expr_lit_decimal(&e, qa, p, s, v, &err), &err);
    return e;
}

void test_engine_expr__math_functions(void)
{
    check_str("5", const_text(fn("abs", 1, (expr *[]){lit_int(-5)})));
    check_str("2.5", const_text(fn("abs", 1, (expr *[]){dbl(-2.5)})));
    check_fails(SILT_RUNTIME, eval_rc(fn("abs", 1, (expr *[]){lit_int(INT32_MIN)}), one_row()));
    check_str("3", const_text(fn("round", 1, (expr *[]){dbl(2.5)})));
    check_str("-3", const_text(fn("round", 1, (expr *[]){dbl(-2.5)})));
    check_str("2.35", const_text(fn("round", 2, (expr *[]){dbl(2.345), lit_int(2)})));
    check_str("1.01", const_text(fn("round", 2, (expr *[]){dbl(1.005), lit_int(2)})));
    check_str("120", const_text(fn("round", 2, (expr *[]){lit_int(115), lit_int(-1)})));
    check_str("1.24", const_text(fn("round", 2, (expr *[]){dec(5, 3, 1235), lit_int(2)})));
    check_str("2", const_text(fn("floor", 1, (expr *[]){dbl(2.7)})));
    check_str("-3", const_text(fn("floor", 1, (expr *[]){dbl(-2.1)})));
    check_str("3", const_text(fn("ceil", 1, (expr *[]){dbl(2.1)})));
    check_int(COL_LONG, fn("ceil", 1, (expr *[]){dbl(2.1)})->type->id);
    check_str("-2", const_text(fn("ceil", 1, (expr *[]){dec(3, 1, -25)})));
    check_str("3", const_text(fn("sqrt", 1, (expr *[]){lit_int(9)})));
    check_str("8", const_text(fn("pow", 2, (expr *[]){lit_int(2), lit_int(3)})));
    check_str("0", const_text(fn("ln", 1, (expr *[]){lit_int(1)})));
    check_str("NULL", const_text(fn("ln", 1, (expr *[]){lit_int(0)})));
    check_str("2", const_text(fn("log", 2, (expr *[]){lit_int(10), lit_int(100)})));
    check_str("1", const_text(fn("exp", 1, (expr *[]){lit_int(0)})));
    check_str("-1", const_text(fn("mod", 2, (expr *[]){lit_int(-7), lit_int(3)})));
    check_str("2", const_text(fn("pmod", 2, (expr *[]){lit_int(-7), lit_int(3)})));
    check_str("1", const_text(fn("pmod", 2, (expr *[]){lit_int(7), lit_int(3)})));
    check_str("2", const_text(fn("pmod", 2, (expr *[]){dbl(-7), dbl(3)})));
    check_str("9", const_text(fn("greatest", 3, (expr *[]){lit_int(2), lit_null(), lit_int(9)})));
    check_str("2", const_text(fn("least", 3, (expr *[]){lit_int(2), lit_null(), lit_long(9)})));
    check_str("NULL", const_text(fn("greatest", 2, (expr *[]){lit_null(), lit_null()})));
    {
        expr *e;
        check_fails(SILT_BIND, expr_func(&e, qa, "no_such_fn", NULL, 0, &err));
        check_contains(err.message, "[UNRESOLVED_ROUTINE]");
        check_fails(SILT_BIND, expr_func(&e, qa, "abs", NULL, 0, &err));
        check_contains(err.message, "[WRONG_NUM_ARGS]");
        check_fails(SILT_BIND, expr_func(&e, qa, "abs", (expr *[]){cast_to(lit_str("x"), col_type_primitive(COL_BINARY), 0)}, 1, &err));
    }
}

static expr *date_lit(const char *s) { return cast_to(lit_str(s), col_type_primitive(COL_DATE), 0); }
static expr *ts_lit(const char *s) { return cast_to(lit_str(s), col_type_primitive(COL_TIMESTAMP), 0); }

void test_engine_expr__date_functions(void)
{
    expr *d = date_lit("2024-02-29"); /* a Thursday */
    expr *t = ts_lit("2024-02-29 13:45:30.25");
    check_str("2024", const_text(fn("year", 1, &d)));
    check_str("2", const_text(fn("month", 1, &d)));
    check_str("29", const_text(fn("day", 1, &d)));
    check_str("29", const_text(fn("dayofmonth", 1, &t)));
    check_str("5", const_text(fn("dayofweek", 1, &d)));
    check_str("60", const_text(fn("dayofyear", 1, &d)));
    check_str("9", const_text(fn("weekofyear", 1, &d)));
    check_str("1", const_text(fn("quarter", 1, &d)));
    check_str("1", const_text(fn("weekofyear", 1, (expr *[]){date_lit("2021-01-04")})));
    check_str("53", const_text(fn("weekofyear", 1, (expr *[]){date_lit("2021-01-03")})));
    check_str("13", const_text(fn("hour", 1, &t)));
    check_str("45", const_text(fn("minute", 1, &t)));
    check_str("30", const_text(fn("second", 1, &t)));
    check_str("2024-03-01", const_text(fn("date_add", 2, (expr *[]){d, lit_int(1)})));
    check_str("2024-02-28", const_text(fn("date_sub", 2, (expr *[]){lit_str("2024-02-29"), lit_int(1)})));
    check_str("366", const_text(fn("datediff", 2, (expr *[]){date_lit("2025-03-01"), date_lit("2024-02-29")})));
    check_str("2025-02-28", const_text(fn("add_months", 2, (expr *[]){d, lit_int(12)})));
    check_str("2023-12-31", const_text(fn("add_months", 2, (expr *[]){date_lit("2024-01-31"), lit_int(-1)})));
    check_str("2024-02-29", const_text(fn("last_day", 1, (expr *[]){date_lit("2024-02-03")})));
    check_str("2024-01-01 00:00:00", const_text(fn("date_trunc", 2, (expr *[]){lit_str("YEAR"), t})));
    check_str("2024-02-29 13:00:00", const_text(fn("date_trunc", 2, (expr *[]){lit_str("hour"), t})));
    check_str("2024-02-26 00:00:00", const_text(fn("date_trunc", 2, (expr *[]){lit_str("week"), t})));
    check_str("NULL", const_text(fn("date_trunc", 2, (expr *[]){lit_str("fortnight"), t})));
    check_str("2024-01-01", const_text(fn("trunc", 2, (expr *[]){d, lit_str("quarter")})));
    check_str("2024-02-01", const_text(fn("trunc", 2, (expr *[]){d, lit_str("MM")})));
}

void test_engine_expr__aliases_and_small_functions(void)
{
    expr *d = date_lit("2024-02-29"), *nd;
    check_str("2", const_text(fn("log10", 1, (expr *[]){lit_int(100)})));
    check_str("3", const_text(fn("log2", 1, (expr *[]){lit_int(8)})));
    check_str("-1", const_text(fn("signum", 1, (expr *[]){lit_int(-7)})));
    check_str("8", const_text(fn("power", 2, (expr *[]){lit_int(2), lit_int(3)})));
    check_str("3", const_text(fn("ceiling", 1, (expr *[]){dbl(2.5)})));
    check_str("3", const_text(fn("weekday", 1, &d)));
    check_str("AB", const_text(fn("ucase", 1, (expr *[]){lit_str("ab")})));
    check_str("ab", const_text(fn("lcase", 1, (expr *[]){lit_str("AB")})));
    check_str("2", const_text(fn("char_length", 1, (expr *[]){lit_str("ab")})));
    check_str("true", const_text(fn("regexp_like", 2, (expr *[]){lit_str("ab"), lit_str("b$")})));
    check_str("2024-03-01", const_text(fn("dateadd", 2, (expr *[]){d, lit_int(1)})));
    check_str("0", const_text(fn("to_unix_timestamp", 1, (expr *[]){lit_str("1970-01-01 00:00:00")})));
    check_ok(expr_distinct_from(&nd, qa, lit_null(), lit_null(), 1, &err), &err);
    check_str("true", const_text(nd));
    check_ok(expr_distinct_from(&nd, qa, lit_int(1), lit_null(), 1, &err), &err);
    check_str("false", const_text(nd));
}

void test_engine_expr__format_string(void)
{
    check_str("Hello 7 3.14 abc null", const_text(fn("format_string", 5, (expr *[]){
        lit_str("Hello %d %.2f %s %s"), lit_int(7), dbl(3.14159), lit_str("abc"), lit_null()})));
    check_str("[   42|x    |002a|-07|+1.5]", const_text(fn("printf", 6, (expr *[]){
        lit_str("[%5d|%-5s|%04x|%03d|%+.1f]"), lit_int(42), lit_str("x"), lit_int(42), lit_int(-7), dbl(1.5)})));
    check_str("b a 100%", const_text(fn("format_string", 3, (expr *[]){lit_str("%2$s %1$s 100%%"), lit_str("a"), lit_str("b")})));
    check_str("NULL", const_text(fn("format_string", 2, (expr *[]){lit_null(), lit_int(1)})));
    check_fails(SILT_RUNTIME, eval_rc(fn("format_string", 2, (expr *[]){lit_str("%d"), lit_str("x")}), one_row()));
    check_fails(SILT_RUNTIME, eval_rc(fn("format_string", 1, (expr *[]){lit_str("%s")}), one_row()));
    check_contains(err.message, "has no argument");
}

void test_engine_expr__hash_and_months_between(void)
{
    /* Values Spark returns for the same calls. */
    check_str("-559580957", const_text(fn("hash", 1, (expr *[]){lit_int(1)})));
    check_str("42", const_text(fn("hash", 1, (expr *[]){lit_null()})));
    {
        col_vec *out;
        expr *mb = fn("months_between", 2, (expr *[]){ts_lit("1997-02-28 10:30:00"), lit_str("1996-10-30")});
        check_ok(expr_eval(mb, &ctx, one_row(), NULL, 1, qa, &out, &err), &err);
        check(vec_get_double(out, 0) > 3.949596765 && vec_get_double(out, 0) < 3.949596775);
    }
    check_str("1", const_text(fn("months_between", 2, (expr *[]){date_lit("2024-03-31"), date_lit("2024-02-29")})));
    check_str("-2", const_text(fn("months_between", 2, (expr *[]){date_lit("2024-01-15"), date_lit("2024-03-15")})));
}

void test_engine_expr__datetime_patterns(void)
{
    expr *t = ts_lit("2024-02-09 13:05:03.25");
    check_str("2024-02-09", const_text(fn("to_date", 1, (expr *[]){lit_str("2024-02-09")})));
    check_str("2024-02-09", const_text(fn("to_date", 2, (expr *[]){lit_str("09/02/2024"), lit_str("dd/MM/yyyy")})));
    check_str("2024-02-09", const_text(fn("to_date", 2, (expr *[]){lit_str("20240209"), lit_str("yyyyMMdd")})));
    check_str("2024-02-09 13:05:03",
              const_text(fn("to_timestamp", 2, (expr *[]){lit_str("2024-02-09 01:05:03 PM"), lit_str("yyyy-MM-dd hh:mm:ss a")})));
    check_str("2024-02-09 13:05:03.25", const_text(fn("to_timestamp", 1, (expr *[]){lit_str("2024-02-09 13:05:03.25")})));
    check_str("2024/02/09 13:05:03.250",
              const_text(fn("date_format", 2, (expr *[]){t, lit_str("yyyy/MM/dd HH:mm:ss.SSS")})));
    check_str("Fri, 9 Feb 24 at 13'",
              const_text(fn("date_format", 2, (expr *[]){t, lit_str("EEE, d MMM yy 'at' HH''")})));
    check_str("February Friday 1 PM",
              const_text(fn("date_format", 2, (expr *[]){t, lit_str("MMMM EEEE h a")})));
    check_str("86400", const_text(fn("unix_timestamp", 1, (expr *[]){lit_str("1970-01-02 00:00:00")})));
    check_str("86400", const_text(fn("unix_timestamp", 2, (expr *[]){lit_str("1970-01-02"), lit_str("yyyy-MM-dd")})));
    check_str("1970-01-02 00:00:00", const_text(fn("from_unixtime", 1, (expr *[]){lit_long(86400)})));
    check_str("1970-01-02", const_text(fn("from_unixtime", 2, (expr *[]){lit_long(86400), lit_str("yyyy-MM-dd")})));
    check_str("2024-02-09 21:05:03.25", const_text(fn("from_utc_timestamp", 2, (expr *[]){t, lit_str("+08:00")})));
    check_str("2024-02-09 18:35:03.25", const_text(fn("to_utc_timestamp", 2, (expr *[]){t, lit_str("GMT-05:30")})));
    check_fails(SILT_RUNTIME, eval_rc(fn("from_utc_timestamp", 2, (expr *[]){t, lit_str("Mars/Olympus")}), one_row()));
    check_contains(err.message, "[INVALID_TIMEZONE]");
    check_contains(err.message, "Mars/Olympus");
    check_fails(SILT_RUNTIME, eval_rc(fn("to_date", 2, (expr *[]){lit_str("2024-13-01"), lit_str("yyyy-MM-dd")}), one_row()));
    check_contains(err.message, "[CANNOT_PARSE_TIMESTAMP]");
    check_fails(SILT_RUNTIME, eval_rc(fn("date_format", 2, (expr *[]){t, lit_str("yyyy-ww")}), one_row()));
    ctx.ansi = 0;
    check_str("NULL", const_text(fn("to_date", 2, (expr *[]){lit_str("garbage"), lit_str("yyyy-MM-dd")})));
    /* current_date/current_timestamp are fixed per query */
    ctx.now_micros = 86400 * TIME_MICROS_PER_SECOND * 3 + 5;
    check_str("1970-01-04", const_text(fn("current_date", 0, NULL)));
    check_str("1970-01-04 00:00:00.000005", const_text(fn("current_timestamp", 0, NULL)));
}

void test_engine_expr__dictionary_strings(void)
{
    /* A dictionary-encoded column behaves like a plain one. */
    col_vec *dict = mk_strs(qa, 2, (const char *[]){"x", "yy"});
    col_vec *v;
    col_batch *b;
    silt_error e2 = SILT_ERROR_INIT;
    check_ok(col_vec_new(&v, qa, col_type_primitive(COL_STRING), 3, 1, &e2), &e2);
    v->values = arena_calloc(qa, 3, sizeof(int32_t));
    ((int32_t *)v->values)[0] = 1;
    ((int32_t *)v->values)[1] = 0;
    ((int32_t *)v->values)[2] = 1;
    v->dictionary = dict;
    b = mk_batch(qa, 1, &v);
    check_str("yy,x,yy", eval_text(&ctx, col(0, v), b));
    check_str("false,true,false", eval_text(&ctx, cmp(EXPR_EQ, col(0, v), lit_str("x")), b));
    check_str("YY,X,YY", eval_text(&ctx, fn("upper", 1, (expr *[]){col(0, v)}), b));
}

void test_engine_expr__nested_to_string(void)
{
    /* Spark 3+: CAST(array(1, NULL, 3) AS STRING) = "[1, null, 3]" and so on. */
    col_field sf[2];
    const col_type *arr_t = col_type_array(qa, col_type_primitive(COL_INT), 1);
    const col_type *map_t = col_type_map(qa, col_type_primitive(COL_STRING), col_type_primitive(COL_LONG), 1);
    const col_type *st_t;
    col_builder *ab, *mb, *sb;
    col_vec *cols[3];
    col_batch *b;
    silt_error e2 = SILT_ERROR_INIT;
    sf[0] = (col_field){"a", col_type_primitive(COL_INT), 1, NULL, -1};
    sf[1] = (col_field){"b", col_type_primitive(COL_STRING), 1, NULL, -1};
    st_t = col_type_struct(qa, 2, sf);
    check_ok(col_builder_new(&ab, qa, arr_t, &e2), &e2);
    check_ok(col_builder_append_int(col_builder_child(ab, 0), 1, &e2), &e2);
    check_ok(col_builder_append_null(col_builder_child(ab, 0), &e2), &e2);
    check_ok(col_builder_append_int(col_builder_child(ab, 0), 3, &e2), &e2);
    check_ok(col_builder_append_list(ab, 3, &e2), &e2);
    check_ok(col_builder_append_null(ab, &e2), &e2);
    check_ok(col_builder_finish(ab, &cols[0], &e2), &e2);
    check_ok(col_builder_new(&mb, qa, map_t, &e2), &e2);
    check_ok(col_builder_append_bytes(col_builder_child(mb, 0), "k", 1, &e2), &e2);
    check_ok(col_builder_append_int(col_builder_child(mb, 1), 9, &e2), &e2);
    check_ok(col_builder_append_list(mb, 1, &e2), &e2);
    check_ok(col_builder_append_list(mb, 0, &e2), &e2);
    check_ok(col_builder_finish(mb, &cols[1], &e2), &e2);
    check_ok(col_builder_new(&sb, qa, st_t, &e2), &e2);
    check_ok(col_builder_append_int(col_builder_child(sb, 0), 1, &e2), &e2);
    check_ok(col_builder_append_bytes(col_builder_child(sb, 1), "x", 1, &e2), &e2);
    check_ok(col_builder_append_struct(sb, &e2), &e2);
    check_ok(col_builder_append_int(col_builder_child(sb, 0), 2, &e2), &e2);
    check_ok(col_builder_append_null(col_builder_child(sb, 1), &e2), &e2);
    check_ok(col_builder_append_struct(sb, &e2), &e2);
    check_ok(col_builder_finish(sb, &cols[2], &e2), &e2);
    b = mk_batch(qa, 3, cols);
    check_str("[1, null, 3],NULL", eval_text(&ctx, cast_to(col(0, cols[0]), col_type_primitive(COL_STRING), 0), b));
    check_str("{k -> 9},{}", eval_text(&ctx, cast_to(col(1, cols[1]), col_type_primitive(COL_STRING), 0), b));
    check_str("{1, x},{2, null}", eval_text(&ctx, cast_to(col(2, cols[2]), col_type_primitive(COL_STRING), 0), b));
    {
        expr *e;
        check_fails(SILT_BIND, expr_cast(&e, qa, col(0, cols[0]), col_type_primitive(COL_INT), 0, &err));
    }
}
