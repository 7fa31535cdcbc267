/*
 * Unit tests of predicates over dictionary-encoded strings (evaluated once
 * per dictionary entry, then per row by code): every result must equal the
 * one over the same rows stored plainly, NULL rows and selections included.
 */
#include "engine_test.h"

static arena *qa;
static engine_ctx ctx;
static silt_error err;

void test_engine_eval_dict__initialize(void)
{
    qa = arena_new(NULL, "query");
    engine_ctx_init(&ctx, qa);
    err_clear(&err);
}

void test_engine_eval_dict__cleanup(void) { arena_free(qa); }

/*
 * 12 rows over a 4-entry dictionary {"b", "a", "ab", ""}; rows 3 and 8 are
 * NULL and their codes are garbage (out of range), as nothing defines them.
 */
static col_batch *dict_batch(void)
{
    static const char *const dict[] = {"b", "a", "ab", ""};
    static const int32_t codes[] = {0, 1, 2, 99, 3, 0, 1, 1, -5, 2, 0, 3};
    col_vec *v = arena_calloc(qa, 1, sizeof(*v));
    v->type = col_type_primitive(COL_STRING);
    v->length = 12;
    v->values = arena_memdup(qa, codes, sizeof(codes));
    v->dictionary = mk_strs(qa, 4, dict);
    v->validity = arena_alloc(qa, 2);
    memset(v->validity, 0xff, 2);
    col_bit_clear(v->validity, 3);
    col_bit_clear(v->validity, 8);
    v->null_count = 2;
    return mk_batch(qa, 1, &v);
}

/* The same rows without NULLs: rows 3 and 8 are "a" and "ab". */
static col_batch *dict_batch_no_nulls(void)
{
    col_batch *b = dict_batch();
    int32_t *codes = b->cols[0]->values;
    codes[3] = 1;
    codes[8] = 2;
    b->cols[0]->validity = NULL;
    b->cols[0]->null_count = 0;
    return b;
}

static col_batch *plain_batch_no_nulls(void)
{
    static const char *const rows[] = {"b", "a", "ab", "a", "", "b", "a", "a", "ab", "ab", "b", ""};
    col_vec *v = mk_strs(qa, 12, rows);
    return mk_batch(qa, 1, &v);
}

static col_batch *plain_batch(void)
{
    static const char *const rows[] = {"b", "a", "ab", NULL, "", "b", "a", "a", NULL, "ab", "b", ""};
    col_vec *v = mk_strs(qa, 12, rows);
    return mk_batch(qa, 1, &v);
}

static expr *col0(void)
{
    expr *c;
    check_ok(expr_column(&c, qa, 0, col_type_primitive(COL_STRING), &err), &err);
    return c;
}

static expr *str(const char *s)
{
    expr *e;
    if (s == NULL)
        check_ok(expr_lit_null(&e, qa, col_type_primitive(COL_STRING), &err), &err);
    else
        check_ok(expr_lit_string(&e, qa, s, strlen(s), &err), &err);
    return e;
}

/* The rows a filter keeps, after a selection of the even rows, as "0,2,..." text. */
static const char *filtered(const expr *e, const col_batch *b)
{
    static const int32_t even[] = {0, 2, 4, 6, 8, 10};
    int32_t out[12];
    int64_t n = 0, k;
    buf t = BUF_INIT;
    const char *s;
    check_ok(expr_filter(e, &ctx, b, even, 6, qa, out, &n, &err), &err);
    for (k = 0; k < n; k++)
        buf_printf(&t, NULL, k ? ",%d" : "%d", out[k]);
    s = arena_strdup(qa, buf_cstr(&t));
    buf_clear(&t);
    return s;
}

/* Evaluates e on both encodings, checks they agree and returns the result. */
static const char *both(const expr *e)
{
    col_batch *d = dict_batch(), *p = plain_batch();
    const char *got = eval_text(&ctx, e, d);
    check_str(eval_text(&ctx, e, p), got);
    check_str(filtered(e, p), filtered(e, d));
    check_str(eval_text(&ctx, e, plain_batch_no_nulls()), eval_text(&ctx, e, dict_batch_no_nulls()));
    check_str(filtered(e, plain_batch_no_nulls()), filtered(e, dict_batch_no_nulls()));
    return got;
}

void test_engine_eval_dict__compare_with_constant(void)
{
    expr *e;
    check_ok(expr_compare(&e, qa, EXPR_EQ, col0(), str("a"), &err), &err);
    check_str("false,true,false,NULL,false,false,true,true,NULL,false,false,false", both(e));
    check_ok(expr_compare(&e, qa, EXPR_EQ, str("b"), col0(), &err), &err);
    check_str("true,false,false,NULL,false,true,false,false,NULL,false,true,false", both(e));
    check_ok(expr_compare(&e, qa, EXPR_NE, col0(), str("b"), &err), &err);
    both(e);
    check_ok(expr_compare(&e, qa, EXPR_LT, col0(), str("ab"), &err), &err);
    check_str("false,true,false,NULL,true,false,true,true,NULL,false,false,true", both(e));
    check_ok(expr_compare(&e, qa, EXPR_GE, str("ab"), col0(), &err), &err);
    both(e);
    check_ok(expr_compare(&e, qa, EXPR_EQ, col0(), str(""), &err), &err);
    both(e);
    /* a NULL constant: every row NULL */
    check_ok(expr_compare(&e, qa, EXPR_EQ, col0(), str(NULL), &err), &err);
    check_str("NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL", both(e));
    /* <=> keeps NULL rows defined */
    check_ok(expr_distinct_from(&e, qa, col0(), str("a"), 1, &err), &err);
    check_str("false,true,false,false,false,false,true,true,false,false,false,false", both(e));
}

void test_engine_eval_dict__in_list(void)
{
    expr *e, *list[3];
    list[0] = str("a");
    list[1] = str("");
    check_ok(expr_in(&e, qa, col0(), list, 2, 0, &err), &err);
    check_str("false,true,false,NULL,true,false,true,true,NULL,false,false,true", both(e));
    check_ok(expr_in(&e, qa, col0(), list, 2, 1, &err), &err);
    check_str("true,false,true,NULL,false,true,false,false,NULL,true,true,false", both(e));
    /* with a NULL in the list: not found is NULL, found is true (false for NOT IN) */
    list[0] = str("b");
    list[1] = str(NULL);
    check_ok(expr_in(&e, qa, col0(), list, 2, 0, &err), &err);
    check_str("true,NULL,NULL,NULL,NULL,true,NULL,NULL,NULL,NULL,true,NULL", both(e));
    check_ok(expr_in(&e, qa, col0(), list, 2, 1, &err), &err);
    check_str("false,NULL,NULL,NULL,NULL,false,NULL,NULL,NULL,NULL,false,NULL", both(e));
}

void test_engine_eval_dict__like(void)
{
    expr *e;
    check_ok(expr_like(&e, qa, col0(), str("a%"), 0, 0, 0, &err), &err);
    check_str("false,true,true,NULL,false,false,true,true,NULL,true,false,false", both(e));
    check_ok(expr_like(&e, qa, col0(), str("A_"), 0, 1, 1, &err), &err);
    check_str("true,true,false,NULL,true,true,true,true,NULL,false,true,true", both(e));
    /* a pattern ending with the escape character is an error on both paths */
    check_ok(expr_like(&e, qa, col0(), str("a\\"), 0, 0, 0, &err), &err);
    {
        col_vec *out;
        col_batch *d = dict_batch();
        check_fails(SILT_RUNTIME, expr_eval(e, &ctx, d, NULL, d->n_rows, qa, &out, &err));
        check_contains(err.message, "ends with the escape character");
    }
}
