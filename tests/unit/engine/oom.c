/*
 * Fault injection: a plan with every operator kind runs with the N-th
 * allocation failing, for every N until it succeeds. Each run must end in
 * SILT_NOMEM (or succeed), never crash or leak (ASan).
 */
#include "engine_test.h"
#include "util/mem.h"

#include <stdlib.h>

static silt_status run_plan(arena *qa, engine_ctx *ctx, const char **text_out, silt_error *err)
{
    col_builder *kb, *vb, *sb;
    col_vec *cols[3];
    col_batch *b, *out;
    engine_op *l, *r, *f, *j, *g, *s;
    expr *k, *v, *str, *lit, *pred, *lk[1], *rk[1], *keys[1];
    engine_agg aggs[3];
    engine_sort_key sk = engine_sort_key_default(0, 0);
    int64_t i;
    SILT_RETURN_IF_ERROR(col_builder_new(&kb, qa, col_type_primitive(COL_INT), err));
    SILT_RETURN_IF_ERROR(col_builder_new(&vb, qa, col_type_primitive(COL_LONG), err));
    SILT_RETURN_IF_ERROR(col_builder_new(&sb, qa, col_type_primitive(COL_STRING), err));
    for (i = 0; i < 300; i++) {
        char tmp[16];
        SILT_RETURN_IF_ERROR(i % 13 == 0 ? col_builder_append_null(kb, err)
                                         : col_builder_append_int(kb, i % 17, err));
        SILT_RETURN_IF_ERROR(col_builder_append_int(vb, i, err));
        snprintf(tmp, sizeof(tmp), "s%lld", (long long)(i % 5));
        SILT_RETURN_IF_ERROR(col_builder_append_bytes(sb, tmp, strlen(tmp), err));
    }
    SILT_RETURN_IF_ERROR(col_builder_finish(kb, &cols[0], err));
    SILT_RETURN_IF_ERROR(col_builder_finish(vb, &cols[1], err));
    SILT_RETURN_IF_ERROR(col_builder_finish(sb, &cols[2], err));
    {
        col_field fields[3] = {{"k", cols[0]->type, 1, NULL, -1},
                               {"v", cols[1]->type, 1, NULL, -1},
                               {"s", cols[2]->type, 1, NULL, -1}};
        b = arena_calloc(qa, 1, sizeof(*b));
        if (b == NULL)
            return err_nomem(err);
        b->schema = col_type_struct(qa, 3, fields);
        b->cols = arena_memdup(qa, cols, sizeof(cols));
        if (b->schema == NULL || b->cols == NULL)
            return err_nomem(err);
        b->n_cols = 3;
        b->n_rows = 300;
    }
    SILT_RETURN_IF_ERROR(expr_column(&k, qa, 0, cols[0]->type, err));
    SILT_RETURN_IF_ERROR(expr_column(&v, qa, 1, cols[1]->type, err));
    SILT_RETURN_IF_ERROR(expr_column(&str, qa, 2, cols[2]->type, err));
    SILT_RETURN_IF_ERROR(expr_lit_int(&lit, qa, COL_LONG, 20, err));
    SILT_RETURN_IF_ERROR(expr_compare(&pred, qa, EXPR_GT, v, lit, err));
    SILT_RETURN_IF_ERROR(engine_op_values(&l, ctx, b->schema, &b, 1, err));
    SILT_RETURN_IF_ERROR(engine_op_values(&r, ctx, b->schema, &b, 1, err));
    SILT_RETURN_IF_ERROR(engine_op_filter(&f, ctx, l, pred, err));
    {
        /* k, v, upper(concat(s, 'x')), CAST(v AS DECIMAL(10,2)) * 1.5 */
        expr *x, *cat, *up, *dec, *onefive, *mul, *proj[4];
        const col_type *d102 = col_type_decimal(qa, 10, 2);
        engine_op *p;
        if (d102 == NULL)
            return err_nomem(err);
        SILT_RETURN_IF_ERROR(expr_lit_string(&x, qa, "x", 1, err));
        SILT_RETURN_IF_ERROR(expr_func(&cat, qa, "concat", (expr *[]){str, x}, 2, err));
        SILT_RETURN_IF_ERROR(expr_func(&up, qa, "upper", &cat, 1, err));
        SILT_RETURN_IF_ERROR(expr_cast(&dec, qa, v, d102, 0, err));
        SILT_RETURN_IF_ERROR(expr_lit_decimal(&onefive, qa, 2, 1, 15, err));
        SILT_RETURN_IF_ERROR(expr_arith(&mul, qa, EXPR_MUL, dec, onefive, err));
        proj[0] = k;
        proj[1] = v;
        proj[2] = up;
        proj[3] = mul;
        SILT_RETURN_IF_ERROR(engine_op_project(&p, ctx, f, proj, NULL, 4, err));
        f = p;
    }
    lk[0] = k;
    rk[0] = v;
    SILT_RETURN_IF_ERROR(engine_op_hash_join(&j, ctx, f, r, JOIN_LEFT, lk, rk, 1, NULL, err));
    keys[0] = str;
    memset(aggs, 0, sizeof(aggs));
    aggs[0].kind = AGG_COUNT_STAR;
    aggs[1].kind = AGG_MAX;
    aggs[1].arg = str;
    aggs[2].kind = AGG_COLLECT_SET;
    aggs[2].arg = k;
    SILT_RETURN_IF_ERROR(engine_op_hash_agg(&g, ctx, j, keys, NULL, 1, aggs, 3, NULL, 0, err));
    SILT_RETURN_IF_ERROR(engine_op_sort(&s, ctx, g, &sk, 1, -1, 0, err));
    SILT_RETURN_IF_ERROR(engine_collect(s, qa, &out, err));
    *text_out = out->n_rows == 5 ? "5 groups" : "wrong";
    return SILT_OK;
}

void test_engine_oom__every_allocation_failure_is_clean(void)
{
    long countdown;
    int succeeded = 0;
    long first = 0;
    if (getenv("SILT_OOM_ONLY") != NULL) /* for bisecting a failure by hand */
        first = strtol(getenv("SILT_OOM_ONLY"), NULL, 10);
    for (countdown = first; countdown < 5000 && !succeeded; countdown++) {
        silt_error err = SILT_ERROR_INIT;
        arena *qa = arena_new(NULL, "query");
        engine_ctx ctx;
        const char *text = NULL;
        silt_status rc;
        check(qa != NULL);
        engine_ctx_init(&ctx, qa);
        mem_fail_after(countdown);
        rc = run_plan(qa, &ctx, &text, &err);
        mem_fail_reset();
        if (first > 0 && countdown == first) {
            char msg[1024];
            err_format(&err, msg, sizeof(msg));
            fprintf(stderr, "countdown %ld: %s\n", countdown, msg);
        }
        if (rc == SILT_OK) {
            check_str("5 groups", text);
            succeeded = 1;
        } else {
            check_int(SILT_NOMEM, rc);
        }
        arena_free(qa);
    }
    check(succeeded);
    check(countdown > 10);
}
