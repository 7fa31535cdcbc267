/*
 * source_cdf.c - the change data feed as a FROM item (docs/cdf.md):
 * `table_changes('t', start [, end])` and `table_changes_by_path('/p', start
 * [, end])` as Delta's table-valued functions take them (an integer is a
 * version, a string or a timestamp a timestamp), and a Delta source with
 * the readChangeFeed reader option (source_options.c). Both resolve the
 * range against the table's latest snapshot and read it with delta/cdf.h;
 * the rows have the latest schema's columns plus `_change_type`,
 * `_commit_version` and `_commit_timestamp`, as Delta's batch reads.
 */
#include <string.h>

#include "delta/cdf.h"
#include "sql/binder_int.h"
#include "sql/parser.h"
#include "util/time.h"

static void free_cdf(void *p) { delta_cdf_free(p); }

static silt_status cdf_next(void *payload, arena *batch_arena, col_batch **out, silt_error *err)
{
    return delta_cdf_next(payload, batch_arena, out, err);
}

/* A timestamp text read in the session time zone, as Delta casts startingTimestamp. */
static silt_status bound_timestamp(binder *b, const char *text, size_t len,
                                   delta_cdf_bound *out, silt_error *err)
{
    int has_zone;
    int64_t ts;
    if (!time_parse_timestamp(text, len, &ts, &has_zone))
        return err_set(err, SILT_INVALID, "[DELTA_TIMESTAMP_INVALID] The provided timestamp "
                       "('%.*s') cannot be converted to a valid timestamp.", (int)len, text);
    if (b->ctx != NULL)
        time_string_to_timestamp(text, len, b->ctx->zone, b->ctx->now_micros, &ts);
    out->kind = DELTA_CDF_BOUND_TIMESTAMP;
    out->ts_micros = ts;
    return SILT_OK;
}

silt_status sql_source_cdf_bounds(binder *b, const sql_cdf_read *r, delta_cdf_bound *start,
                                  delta_cdf_bound *end, silt_error *err)
{
    const char *texts[2] = {r->start_timestamp, r->end_timestamp};
    delta_cdf_bound *bounds[2] = {start, end};
    int64_t versions[2] = {r->start_version, r->end_version};
    size_t idx;
    for (idx = 0; idx < 2; idx++) {
        delta_cdf_bound init = DELTA_CDF_BOUND_INIT;
        *bounds[idx] = init;
        if (versions[idx] >= 0) {
            bounds[idx]->kind = DELTA_CDF_BOUND_VERSION;
            bounds[idx]->version = versions[idx];
        } else if (texts[idx] != NULL) {
            SILT_RETURN_IF_ERROR(bound_timestamp(b, texts[idx], strlen(texts[idx]), bounds[idx],
                                                 err));
        }
    }
    return SILT_OK;
}

silt_status sql_source_cdf(binder *b, const char *path, const delta_cdf_bound *start,
                           const delta_cdf_bound *end, plan *out, const char *qual,
                           silt_error *err)
{
    io_store *store;
    delta_snapshot *latest;
    delta_cdf *cdf = NULL;
    delta_cdf_options o = DELTA_CDF_OPTIONS_INIT;
    SILT_RETURN_IF_ERROR(sql_source_delta_snapshot(b, path, &store, &latest, err));
    SILT_RETURN_IF_ERROR(delta_cdf_resolve(store, latest, start, end, &o.start_version,
                                           &o.end_version, err));
    SILT_RETURN_IF_ERROR(delta_cdf_open(&cdf, store, latest, &o, err));
    if (arena_on_cleanup(b->a, free_cdf, cdf) == 0) {
        delta_cdf_free(cdf);
        return err_nomem(err);
    }
    sql_bind_note(b, "ChangeDataFeed delta.`%s` versions %lld to %lld (schema of version %lld)",
                  path, (long long)o.start_version, (long long)o.end_version,
                  (long long)latest->version);
    SILT_RETURN_IF_ERROR(engine_op_scan(&out->op, b->ctx, delta_cdf_schema(cdf), cdf_next, cdf,
                                        err));
    memset(&out->morsels, 0, sizeof(out->morsels));
    return sql_scope_from_schema(b->a, delta_cdf_schema(cdf), qual, &out->scope, err);
}

/* One bound argument of table_changes: an integer is a version, a string or timestamp a time. */
static silt_status bound_arg(binder *b, const sql_expr *e, delta_cdf_bound *out, silt_error *err)
{
    int neg = 0;
    const sql_expr *lit = e;
    if (lit->kind == SQL_EXPR_UNARY && lit->u.op.op == SQL_OP_NEG) {
        neg = 1;
        lit = lit->u.op.left;
    }
    if (lit->kind == SQL_EXPR_LITERAL &&
        (lit->u.lit.kind == SQL_LIT_INT || lit->u.lit.kind == SQL_LIT_LONG)) {
        if (neg || lit->u.lit.i64 < 0)
            return sql_bind_error(b, err, e->pos, SILT_INVALID, "[DELTA_INVALID_CDC_RANGE] CDC "
                                  "range from start %s%lld was invalid: a version must not be "
                                  "negative", neg ? "-" : "", (long long)lit->u.lit.i64);
        out->kind = DELTA_CDF_BOUND_VERSION;
        out->version = lit->u.lit.i64;
        return SILT_OK;
    }
    if (!neg && lit->kind == SQL_EXPR_LITERAL && lit->u.lit.kind == SQL_LIT_STRING)
        return bound_timestamp(b, lit->u.lit.str, lit->u.lit.str_len, out, err);
    if (!neg && lit->kind == SQL_EXPR_LITERAL && lit->u.lit.kind == SQL_LIT_TIMESTAMP) {
        out->kind = DELTA_CDF_BOUND_TIMESTAMP;
        out->ts_micros = lit->u.lit.i64;
        if (lit->u.lit.str != NULL && b->ctx != NULL)
            time_string_to_timestamp(lit->u.lit.str, lit->u.lit.str_len, b->ctx->zone,
                                     b->ctx->now_micros, &out->ts_micros);
        return SILT_OK;
    }
    return sql_bind_error(b, err, e->pos, SILT_BIND, "[DELTA_UNSUPPORTED_EXPRESSION] Unsupported "
                          "expression type for table function; the supported types are "
                          "[IntegerType, LongType, StringType, TimestampType]: give a version "
                          "or a timestamp literal");
}

/* The Delta table path table_changes('name') names: a catalog table or delta.`/path`. */
static silt_status named_table_path(binder *b, const sql_expr *arg, const char **path_out,
                                    const char **qual_out, silt_error *err)
{
    const char *text = arena_strndup(b->a, arg->u.lit.str, arg->u.lit.str_len);
    const char *stmt = text ? arena_sprintf(b->a, "SELECT * FROM %s", text) : NULL;
    sql_stmt_list *stmts;
    const sql_table_ref *ref = NULL;
    const col_type *schema = NULL;
    int64_t version;
    if (stmt == NULL)
        return err_nomem(err);
    if (sql_parse(b->a, stmt, &stmts, NULL) == SILT_OK && stmts->n == 1 &&
        stmts->items[0]->kind == SQL_STMT_QUERY) {
        const sql_query *q = stmts->items[0]->u.query;
        if (q->kind == SQL_QUERY_SELECT && q->u.select.n_from == 1 &&
            q->u.select.from[0]->kind == SQL_TABLE_NAMED &&
            q->u.select.from[0]->alias.name == NULL && q->u.select.where == NULL)
            ref = q->u.select.from[0];
    }
    if (ref == NULL || ref->u.named.at.version != NULL || ref->u.named.at.timestamp != NULL ||
        ref->u.named.at.ref != NULL)
        return sql_bind_error(b, err, arg->pos, SILT_PARSE, "[PARSE_SYNTAX_ERROR] table_changes "
                              "needs a table name such as 'db.t' or 'delta.`/path`', not '%s'",
                              text);
    SILT_RETURN_IF_ERROR(sql_source_delta_schema(b, ref, &schema, path_out, &version, qual_out,
                                                 err));
    if (schema == NULL)
        return sql_bind_error(b, err, arg->pos, SILT_NOTFOUND, "[TABLE_OR_VIEW_NOT_FOUND] The "
                              "table or view `%s` cannot be found, or is not a Delta table. "
                              "Verify the spelling and correctness of the schema and catalog",
                              text);
    return SILT_OK;
}

silt_status sql_source_table_changes(binder *b, const sql_table_ref *ref, int by_path, plan *out,
                                     silt_error *err)
{
    const sql_expr_list *args = &ref->u.func.args;
    const char *fn = by_path ? "table_changes_by_path" : "table_changes";
    const char *path = NULL, *qual = NULL;
    delta_cdf_bound start = DELTA_CDF_BOUND_INIT, end = DELTA_CDF_BOUND_INIT;
    const sql_expr *first;
    silt_status rc;
    if (args->n < 2 || args->n > 3)
        return sql_bind_error(b, err, ref->pos, SILT_BIND, "[WRONG_NUM_ARGS] %s takes 2 or 3 "
                              "arguments (table, start, end), not %zu", fn, args->n);
    first = args->items[0];
    if (first->kind != SQL_EXPR_LITERAL || first->u.lit.kind != SQL_LIT_STRING)
        return sql_bind_error(b, err, first->pos, SILT_BIND, "%s needs the table %s as a "
                              "string literal", fn, by_path ? "path" : "name");
    SILT_RETURN_IF_ERROR(bound_arg(b, args->items[1], &start, err));
    if (args->n == 3)
        SILT_RETURN_IF_ERROR(bound_arg(b, args->items[2], &end, err));
    if (by_path) {
        path = arena_strndup(b->a, first->u.lit.str, first->u.lit.str_len);
        if (path == NULL)
            return err_nomem(err);
        path = io_location_local_path(path);
    } else {
        if (b->s->cat != NULL && strcmp(catalog_current_ref(b->s->cat), CATALOG_MAIN) != 0)
            /* the feed of a table's branch-local commits is not read yet: refused, not main's */
            return sql_bind_error(b, err, ref->pos, SILT_UNSUPPORTED, "table_changes on "
                                  "reference '%s' is not supported: USE REFERENCE main, or "
                                  "read the branch's table", catalog_current_ref(b->s->cat));
        SILT_RETURN_IF_ERROR(named_table_path(b, first, &path, &qual, err));
    }
    rc = sql_source_cdf(b, path, &start, &end, out, ref->alias.name, err);
    if (rc != SILT_OK && rc != SILT_NOMEM)
        err_context(err, "while reading the change data feed of \"%s\"", path);
    (void)qual;
    return rc;
}
