/*
 * exec_maint.c - the table maintenance statements (delta/maint.h): VACUUM,
 * OPTIMIZE and GENERATE, with Spark's result rows (docs/maintenance.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "delta/maint.h"
#include "sql/exec.h"
#include "sql/session.h"

#define SETTING_RETENTION_CHECK "spark.databricks.delta.retentionDurationCheck.enabled"

silt_status sql_exec_strings_op(arena *a, engine_ctx *ctx, const char *const *names,
                                size_t n_cols, const char *const *cells, size_t n_rows,
                                const col_type **schema_out, engine_op **op_out, silt_error *err)
{
    col_field *fields = arena_calloc(a, n_cols, sizeof(col_field));
    col_batch *batch = arena_calloc(a, 1, sizeof(col_batch));
    col_batch **list = arena_calloc(a, 1, sizeof(col_batch *));
    size_t c, r;
    if (fields == NULL || batch == NULL || list == NULL ||
        (batch->cols = arena_calloc(a, n_cols, sizeof(col_vec *))) == NULL)
        return err_nomem(err);
    for (c = 0; c < n_cols; c++) {
        col_builder *bld;
        fields[c].name = names[c];
        fields[c].type = col_type_primitive(COL_STRING);
        fields[c].nullable = 1;
        fields[c].field_id = -1;
        SILT_RETURN_IF_ERROR(col_builder_new(&bld, a, fields[c].type, err));
        for (r = 0; r < n_rows; r++) {
            const char *v = cells[r * n_cols + c];
            SILT_RETURN_IF_ERROR(v == NULL ? col_builder_append_null(bld, err)
                                           : col_builder_append_bytes(bld, v, strlen(v), err));
        }
        SILT_RETURN_IF_ERROR(col_builder_finish(bld, &batch->cols[c], err));
    }
    if ((*schema_out = col_type_struct(a, n_cols, fields)) == NULL)
        return err_nomem(err);
    batch->schema = *schema_out;
    batch->n_rows = (int64_t)n_rows;
    batch->n_cols = n_cols;
    list[0] = batch;
    return engine_op_values(op_out, ctx, *schema_out, list, 1, err);
}

static silt_status strings_result(binder *b, const char *const *names, size_t n_cols,
                                  const char *const *cells, size_t n_rows, exec_out *out,
                                  silt_error *err)
{
    return sql_exec_strings_op(b->a, b->ctx, names, n_cols, cells, n_rows, &out->schema,
                               &out->op, err);
}

/* A boolean session setting: def when unset; SILT_INVALID for another value. */
static silt_status bool_setting(binder *b, const char *key, int def, int *out, silt_error *err)
{
    const char *v = sql_session_get(b->s, key);
    *out = def;
    if (v == NULL)
        return SILT_OK;
    if (util_str_casecmp(v, "true") == 0)
        *out = 1;
    else if (util_str_casecmp(v, "false") == 0)
        *out = 0;
    else
        return err_set(err, SILT_INVALID, "[INVALID_CONF_VALUE.TYPE_MISMATCH] The value '%s' in "
                       "the config \"%s\" is invalid. It should be a boolean.", v, key);
    return SILT_OK;
}

/* RETAIN n HOURS: Spark's grammar takes a number (sign allowed), rounded to whole hours. */
static silt_status retain_hours(binder *b, const sql_expr *e, int64_t *ms_out, silt_error *err)
{
    int negative = 0;
    double hours;
    if (e->kind == SQL_EXPR_UNARY && e->u.op.op == SQL_OP_NEG) {
        negative = 1;
        e = e->u.op.left;
    }
    if (e->kind != SQL_EXPR_LITERAL)
        goto bad;
    switch (e->u.lit.kind) {
    case SQL_LIT_BYTE:
    case SQL_LIT_SHORT:
    case SQL_LIT_INT:
    case SQL_LIT_LONG: hours = (double)e->u.lit.i64; break;
    case SQL_LIT_DOUBLE:
    case SQL_LIT_FLOAT: hours = e->u.lit.f64; break;
    case SQL_LIT_DECIMAL: {
        const char *text = sql_bind_expr_text(b, e);
        hours = text != NULL ? atof(text) : 0;
        break;
    }
    default: goto bad;
    }
    if (negative)
        hours = -hours;
    if (!(fabs(hours) < 2.5e12))
        goto bad;
    *ms_out = (int64_t)llround(hours) * 3600000;
    return SILT_OK;
bad:
    return sql_bind_error(b, err, e->pos, SILT_BIND, "VACUUM ... RETAIN needs a number of hours");
}

silt_status sql_exec_vacuum(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    static const char *const names[] = {"path"};
    delta_vacuum_options o = DELTA_VACUUM_OPTIONS_INIT;
    delta_vacuum_result r = DELTA_VACUUM_RESULT_INIT;
    exec_target t;
    const char **cells;
    size_t idx;
    silt_status rc;
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, &stmt->u.vacuum.name, &t, err));
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, &stmt->u.vacuum.name, &t, err));
    SILT_RETURN_IF_ERROR(bool_setting(b, SETTING_RETENTION_CHECK, 1, &o.check_retention, err));
    if (stmt->u.vacuum.retain_hours != NULL) {
        o.has_retention = 1;
        SILT_RETURN_IF_ERROR(retain_hours(b, stmt->u.vacuum.retain_hours, &o.retention_ms, err));
    }
    o.dry_run = stmt->u.vacuum.dry_run;
    rc = delta_vacuum(t.store, t.snap, &o, &r, err);
    if (rc != SILT_OK)
        goto done;
    /* Spark: DRY RUN lists the files it would delete, VACUUM answers the table's path. */
    if (!o.dry_run) {
        const char *cell = arena_sprintf(b->a, "file:%s", t.path);
        rc = cell ? strings_result(b, names, 1, &cell, 1, out, err) : err_nomem(err);
        goto done;
    }
    cells = arena_calloc(b->a, r.files.count + 1, sizeof(char *));
    if (cells == NULL) {
        rc = err_nomem(err);
        goto done;
    }
    for (idx = 0; idx < r.files.count; idx++)
        if ((cells[idx] = arena_sprintf(b->a, "file:%s/%s", t.path, r.files.items[idx].key)) ==
            NULL)
            rc = err_nomem(err);
    if (rc == SILT_OK)
        rc = strings_result(b, names, 1, cells, r.files.count, out, err);
done:
    delta_vacuum_result_clear(&r);
    return rc;
}
