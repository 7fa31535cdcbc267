/*
 * exec_dml.c - DELETE and UPDATE: the WHERE predicate and the SET values
 * are bound with the query binder over the table's logical schema, the
 * files pruned by partition values and stats, and the statement run on
 * the engine by sql_exec_modify (exec_modify.c). Also the row and partition
 * filters of INSERT ... REPLACE WHERE, evaluated inside the delta layer's
 * callbacks one batch at a time.
 */
#include <string.h>

#include "delta/dml.h"
#include "delta/partition.h"
#include "delta/stats.h"
#include "engine/engine.h"
#include "sql/exec.h"

typedef struct dml_eval {
    binder *b;
    const expr *pred;     /* NULL: every row */
    size_t n_cols;
    expr **values;        /* UPDATE: one per table column */
    const col_type *schema;
    arena *scratch;
} dml_eval;

static silt_status eval_predicate(const col_batch *batch, uint8_t *match, void *payload,
                                  silt_error *err)
{
    dml_eval *ev = payload;
    int32_t *sel;
    int64_t n_out = 0, idx;
    /* the DML loop in delta/ calls here for every batch: its interrupt point */
    SILT_RETURN_IF_ERROR(engine_check_interrupt(ev->b->ctx, err));
    memset(match, 0, (size_t)batch->n_rows);
    if (ev->pred == NULL) {
        memset(match, 1, (size_t)batch->n_rows);
        return SILT_OK;
    }
    arena_reset(ev->scratch);
    sel = arena_alloc(ev->scratch, (size_t)(batch->n_rows + 1) * sizeof(int32_t));
    if (sel == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(expr_filter(ev->pred, ev->b->ctx, batch, NULL, batch->n_rows,
                                     ev->scratch, sel, &n_out, err));
    for (idx = 0; idx < n_out; idx++)
        match[sel[idx]] = 1;
    return SILT_OK;
}

/* ---------------------------------------------------------------- partition pruning */

/*
 * When WHERE reads only partition columns it is decided per file from the
 * file's partition values: evaluated on a one-row batch of them (other
 * columns null, never read). Decided for every file before the operation
 * starts, so a value that fails to evaluate is an error before anything is
 * written; the delta layer then removes or rewrites only the files kept,
 * and a DELETE removes them whole without reading them.
 */
typedef struct part_prune {
    const delta_snapshot *snap;
    uint8_t *keep; /* per file of snap->files */
    uint8_t *all;  /* per file: its stats prove every row matches (NULL = unknown) */
    dml_eval *ev;  /* the partition-only WHERE, for the read predicate */
} part_prune;

static int prune_filter(const delta_snapshot *snap, const delta_file *file, void *payload)
{
    const part_prune *pp = payload;
    if (snap != pp->snap || file < snap->files || file >= snap->files + snap->n_files)
        return 1;
    return pp->keep[file - snap->files];
}

static int all_match_filter(const delta_snapshot *snap, const delta_file *file, void *payload)
{
    const part_prune *pp = payload;
    if (pp->all == NULL || snap != pp->snap || file < snap->files ||
        file >= snap->files + snap->n_files)
        return 0;
    return pp->all[file - snap->files];
}

static int is_partition_column(const delta_snapshot *snap, const char *name)
{
    size_t idx;
    for (idx = 0; idx < snap->metadata.n_partition_columns; idx++)
        if (util_str_casecmp(snap->metadata.partition_columns[idx], name) == 0)
            return 1;
    return 0;
}

static silt_status append_value(col_builder *bld, const delta_value *v, silt_error *err)
{
    if (v->is_null)
        return col_builder_append_null(bld, err);
    switch (v->type) {
    case COL_BOOLEAN: return col_builder_append_bool(bld, (int)v->v.i, err);
    case COL_FLOAT:
    case COL_DOUBLE: return col_builder_append_double(bld, v->v.d, err);
    case COL_DECIMAL: return col_builder_append_decimal(bld, v->v.dec, err);
    case COL_STRING:
    case COL_BINARY: return col_builder_append_bytes(bld, v->v.s.ptr, v->v.s.len, err);
    default: return col_builder_append_int(bld, v->v.i, err);
    }
}

static silt_status file_matches(dml_eval *ev, const delta_snapshot *snap, const delta_file *file,
                                int *out, silt_error *err)
{
    const col_type *schema = snap->schema;
    col_batch one;
    int32_t sel[1];
    int64_t n_out = 0;
    size_t idx;
    arena_reset(ev->scratch);
    one.schema = schema;
    one.n_rows = 1;
    one.n_cols = schema->n_fields;
    one.cols = arena_calloc(ev->scratch, schema->n_fields + 1, sizeof(col_vec *));
    if (one.cols == NULL)
        return err_nomem(err);
    for (idx = 0; idx < schema->n_fields; idx++) {
        col_builder *bld;
        SILT_RETURN_IF_ERROR(col_builder_new(&bld, ev->scratch, schema->fields[idx].type, err));
        if (is_partition_column(snap, schema->fields[idx].name)) {
            delta_value v;
            SILT_RETURN_IF_ERROR(delta_snapshot_partition_value(snap, file, schema->fields[idx].name,
                                                                ev->scratch, &v, err));
            SILT_RETURN_IF_ERROR(append_value(bld, &v, err));
        } else {
            SILT_RETURN_IF_ERROR(col_builder_append_null(bld, err));
        }
        SILT_RETURN_IF_ERROR(col_builder_finish(bld, &one.cols[idx], err));
    }
    SILT_RETURN_IF_ERROR(expr_filter(ev->pred, ev->b->ctx, &one, NULL, 1, ev->scratch, sel,
                                     &n_out, err));
    *out = n_out > 0;
    return SILT_OK;
}

/*
 * ---- stats pruning: the WHERE conjuncts a SELECT would push down
 * (sql_pushdown_preds), checked against each file's partition values and stats
 */

static void split_conj(const sql_expr *e, const sql_expr **out, size_t *n, size_t cap)
{
    if (e->kind == SQL_EXPR_BINARY && e->u.op.op == SQL_OP_AND) {
        split_conj(e->u.op.left, out, n, cap);
        split_conj(e->u.op.right, out, n, cap);
    } else if (*n < cap) {
        out[(*n)++] = e;
    }
}

/*
 * The WHERE conjuncts as stats predicates when every one of them converts
 * to exactly one (a comparison with a literal in the column's type, IS
 * [NOT] NULL): only then can the stats prove that all rows of a file match.
 * 0 when some conjunct does not.
 */
static size_t exact_preds(binder *b, const pushdown *pd, const col_type *schema, dpred **out)
{
    dpred *all = arena_calloc(b->a, pd->n + 1, sizeof(dpred));
    size_t idx;
    if (all == NULL)
        return 0;
    for (idx = 0; idx < pd->n; idx++) {
        pushdown one = *pd;
        dpred *p = NULL;
        if (pd->conj[idx]->kind == SQL_EXPR_BETWEEN)
            return 0; /* two predicates, of which one may not convert */
        one.conj = &pd->conj[idx];
        one.n = 1;
        if (sql_pushdown_preds(b, &one, schema, &p) != 1)
            return 0;
        all[idx] = *p;
    }
    *out = all;
    return pd->n;
}

/* Per kept file: whether its partition values and stats prove every row matches (DELETE
 * then removes it unread). */
static silt_status plan_all_match(binder *b, const delta_snapshot *snap, const pushdown *pd,
                                  dml_eval *ev, part_prune *pp, delta_dml_options *o,
                                  silt_error *err)
{
    dpred *exact = NULL;
    size_t n = exact_preds(b, pd, snap->schema, &exact), idx;
    if (n == 0)
        return SILT_OK;
    pp->all = arena_calloc(b->a, snap->n_files + 1, 1);
    if (pp->all == NULL)
        return err_nomem(err);
    for (idx = 0; idx < snap->n_files; idx++) {
        int all = 0;
        if (pp->keep[idx])
            SILT_RETURN_IF_ERROR(delta_file_all_rows_match(exact, n, snap, &snap->files[idx],
                                                           ev->scratch, &all, err));
        arena_reset(ev->scratch);
        pp->all[idx] = (uint8_t)all;
    }
    o->file_all_match = all_match_filter;
    o->file_all_match_payload = pp;
    return SILT_OK;
}

/* Keeps the files whose statistics do not refute the WHERE; the row predicate still runs. */
static silt_status plan_stats_pruning(binder *b, const delta_snapshot *snap, const char *qual,
                                      const sql_expr *where, dml_eval *ev, part_prune *pp,
                                      delta_dml_options *o, silt_error *err)
{
    const sql_expr *conj[32];
    pushdown pd;
    dpred *preds;
    size_t n, kept;
    memset(&pd, 0, sizeof(pd));
    pd.conj = conj;
    pd.qual = qual;
    split_conj(where, conj, &pd.n, 32);
    n = sql_pushdown_preds(b, &pd, snap->schema, &preds);
    if (n == 0)
        return SILT_OK;
    pp->snap = snap;
    pp->keep = arena_calloc(b->a, snap->n_files + 1, 1);
    if (pp->keep == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(dstats_prune_files(snap, preds, n, pp->keep, &kept, err));
    o->file_filter = prune_filter;
    o->file_filter_payload = pp;
    return plan_all_match(b, snap, &pd, ev, pp, o, err);
}

/*
 * The read predicate of the transaction (Delta's readPredicates): the
 * partition-only WHERE on any file of the table, a winner's new ones too.
 * An evaluation error counts as a match (a conflict rather than a missed one).
 */
static int read_predicate(const delta_snapshot *snap, const delta_file *file, void *payload)
{
    part_prune *pp = payload;
    silt_error ignored = SILT_ERROR_INIT;
    int keep = 1;
    if (file_matches(pp->ev, snap, file, &keep, &ignored) != SILT_OK)
        return 1;
    return keep;
}

/* Sets up partition pruning in o when WHERE names partition columns only. */
static silt_status plan_pruning(binder *b, const delta_snapshot *snap, const char *qual,
                                const sql_expr *where, dml_eval *ev, part_prune *pp,
                                delta_dml_options *o, silt_error *err)
{
    name_set names;
    size_t idx;
    memset(&names, 0, sizeof(names));
    if (where == NULL || ev->pred == NULL)
        return SILT_OK;
    SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, where, &names, err));
    if (names.all || names.n == 0 || snap->metadata.n_partition_columns == 0)
        return plan_stats_pruning(b, snap, qual, where, ev, pp, o, err);
    for (idx = 0; idx < names.n; idx++)
        if (!is_partition_column(snap, names.names[idx]))
            return plan_stats_pruning(b, snap, qual, where, ev, pp, o, err);
    pp->snap = snap;
    pp->keep = arena_calloc(b->a, snap->n_files + 1, 1);
    if (pp->keep == NULL)
        return err_nomem(err);
    for (idx = 0; idx < snap->n_files; idx++) {
        int keep = 1;
        SILT_RETURN_IF_ERROR(file_matches(ev, snap, &snap->files[idx], &keep, err));
        pp->keep[idx] = (uint8_t)keep;
    }
    o->file_filter = prune_filter;
    o->file_filter_payload = pp;
    o->partition_only = 1;
    pp->ev = ev;
    o->read_predicate = read_predicate;
    o->read_predicate_payload = pp;
    return SILT_OK;
}

silt_status sql_exec_partition_filter(binder *b, const delta_snapshot *snap, const sql_expr *where,
                                  const expr *pred, delta_file_filter_fn *fn_out,
                                  void **payload_out, silt_error *err)
{
    dml_eval *ev = arena_calloc(b->a, 1, sizeof(*ev));
    part_prune *pp = arena_calloc(b->a, 1, sizeof(*pp));
    delta_dml_options o = DELTA_DML_OPTIONS_INIT;
    *fn_out = NULL;
    *payload_out = NULL;
    if (ev == NULL || pp == NULL || (ev->scratch = arena_new(b->a, "partition filter")) == NULL)
        return err_nomem(err);
    ev->b = b;
    ev->pred = pred;
    SILT_RETURN_IF_ERROR(plan_pruning(b, snap, NULL, where, ev, pp, &o, err));
    /* Only an exact (partition-value) filter can say which files an overwrite replaces. */
    if (!o.partition_only)
        return SILT_OK;
    *fn_out = o.file_filter;
    *payload_out = o.file_filter_payload;
    return SILT_OK;
}

silt_status sql_exec_row_filter(binder *b, const delta_snapshot *snap, const sql_expr *where,
                            const expr *pred, delta_row_predicate_fn *fn_out,
                            void **payload_out, delta_file_filter_fn *file_fn_out,
                            void **file_payload_out, silt_error *err)
{
    dml_eval *ev = arena_calloc(b->a, 1, sizeof(*ev));
    part_prune *pp = arena_calloc(b->a, 1, sizeof(*pp));
    delta_dml_options o = DELTA_DML_OPTIONS_INIT;
    if (ev == NULL || pp == NULL || (ev->scratch = arena_new(b->a, "row filter")) == NULL)
        return err_nomem(err);
    ev->b = b;
    ev->pred = pred;
    SILT_RETURN_IF_ERROR(plan_stats_pruning(b, snap, NULL, where, ev, pp, &o, err));
    *fn_out = eval_predicate;
    *payload_out = ev;
    *file_fn_out = o.file_filter;
    *file_payload_out = o.file_filter_payload;
    return SILT_OK;
}

/* The target of DELETE/UPDATE: a named table reference, maybe with an alias. */
static silt_status dml_target(binder *b, const sql_table_ref *ref, exec_target *t,
                              bind_scope *scope, silt_error *err)
{
    const sql_name *n = &ref->u.named.name;
    const char *qual;
    if (ref->kind != SQL_TABLE_NAMED)
        return sql_bind_error(b, err, ref->pos, SILT_BIND, "the target of DELETE or UPDATE must be "
                          "a table");
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target_at(b, n, &ref->u.named.at, ref->pos, t, err));
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, n, t, err));
    qual = ref->alias.name ? ref->alias.name : n->parts[n->n_parts - 1].name;
    return sql_scope_from_schema(b->a, t->snap->schema, qual, scope, err);
}

/* The predicate's SQL text for history: WHERE runs to the end of the statement. */
static const char *where_text(binder *b, const sql_stmt *stmt, const sql_expr *where)
{
    size_t end = stmt->end;
    if (where == NULL || where->pos >= end || end > b->text_len)
        return NULL;
    while (end > where->pos && (b->text[end - 1] == ' ' || b->text[end - 1] == '\n' ||
                                b->text[end - 1] == '\t' || b->text[end - 1] == '\r'))
        end--;
    return arena_strndup(b->a, b->text + where->pos, end - where->pos);
}

static silt_status bind_where(binder *b, const bind_scope *scope, const sql_expr *where,
                              dml_eval *ev, silt_error *err)
{
    bind_ctx bc = {scope, NULL, NULL, NULL};
    expr *e;
    ev->b = b;
    if ((ev->scratch = arena_new(b->a, "dml batch")) == NULL)
        return err_nomem(err);
    if (where == NULL)
        return SILT_OK;
    if (sql_bind_has_agg(where) || sql_bind_has_window(where))
        return sql_bind_error(b, err, where->pos, SILT_BIND, "[INVALID_WHERE_CONDITION] aggregate "
                          "and window functions are not allowed in the WHERE of DELETE or "
                          "UPDATE");
    SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, where, &e, err));
    if (e->type->id != COL_BOOLEAN && e->type->id != COL_NULL)
        return sql_bind_error(b, err, where->pos, SILT_BIND, "[DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN]"
                          " the WHERE condition must be a boolean");
    ev->pred = e;
    return SILT_OK;
}

/* The partition conjuncts of a WHERE that also reads data columns, for the read predicate. */
typedef struct conj_read {
    dml_eval *evs;
    size_t n;
} conj_read;

/* A file is read when every partition conjunct holds on it; an error counts as read. */
static int conj_read_predicate(const delta_snapshot *snap, const delta_file *file, void *payload)
{
    conj_read *cr = payload;
    size_t idx;
    for (idx = 0; idx < cr->n; idx++) {
        silt_error ignored = SILT_ERROR_INIT;
        int keep = 1;
        if (file_matches(&cr->evs[idx], snap, file, &keep, &ignored) != SILT_OK)
            return 1;
        if (!keep)
            return 0;
    }
    return 1;
}

/*
 * Delta's read predicate of a WHERE over partition and data columns is its
 * partition part (the conjuncts naming partition columns only: Delta's
 * splitMetadataAndDataPredicates), so `p = 'a' AND id = 1` does not
 * conflict with writers of other partitions. Without such a conjunct the
 * statement read the whole table. Conjuncts past split_conj's bound are
 * left out, which only widens what was read (more conflicts, never fewer).
 */
/*
 * What a deletion-vector DELETE/UPDATE needs to read (dml_job.scan_preds, pred_columns): the
 * WHERE conjuncts as stats predicates (row groups and pages they refute are skipped: their
 * rows stay in the file untouched), and the top-level columns the WHERE reads. Pruning is
 * optional: when the WHERE names something else (a nested field, a star), every column.
 */
static silt_status plan_dv_scan(binder *b, const delta_snapshot *snap, const char *qual,
                                const sql_expr *where, dml_job *job, silt_error *err)
{
    const sql_expr *conj[32];
    pushdown pd;
    dpred *preds = NULL;
    name_set names;
    size_t idx, f;
    if (where == NULL)
        return SILT_OK;
    memset(&pd, 0, sizeof(pd));
    pd.conj = conj;
    pd.qual = qual;
    split_conj(where, conj, &pd.n, 32);
    job->n_scan_preds = sql_pushdown_preds(b, &pd, snap->schema, &preds);
    job->scan_preds = job->n_scan_preds > 0 ? preds : NULL;
    memset(&names, 0, sizeof(names));
    SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, where, &names, err));
    if (names.all || names.n == 0)
        return SILT_OK;
    {
        const char **cols = arena_calloc(b->a, names.n + 1, sizeof(char *));
        size_t n = 0, k;
        if (cols == NULL)
            return err_nomem(err);
        for (idx = 0; idx < names.n; idx++) {
            for (f = 0; f < snap->schema->n_fields; f++)
                if (util_str_casecmp(snap->schema->fields[f].name, names.names[idx]) == 0)
                    break;
            if (f == snap->schema->n_fields)
                return SILT_OK;
            for (k = 0; k < n; k++) /* once each: the scan reads a column once */
                if (util_str_casecmp(cols[k], snap->schema->fields[f].name) == 0)
                    break;
            if (k == n)
                cols[n++] = snap->schema->fields[f].name;
        }
        job->pred_columns = cols;
        job->n_pred_columns = n;
    }
    return SILT_OK;
}

static silt_status plan_read_conjuncts(binder *b, const delta_snapshot *snap,
                                       const bind_scope *scope, const sql_expr *where,
                                       delta_dml_options *o, silt_error *err)
{
    const sql_expr *conj[32];
    conj_read *cr;
    size_t n = 0, idx, col;
    if (where == NULL || o->read_predicate != NULL || snap->metadata.n_partition_columns == 0)
        return SILT_OK;
    split_conj(where, conj, &n, 32);
    cr = arena_calloc(b->a, 1, sizeof(*cr));
    if (cr == NULL || (cr->evs = arena_calloc(b->a, n + 1, sizeof(dml_eval))) == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        name_set names;
        int partition_only;
        memset(&names, 0, sizeof(names));
        SILT_RETURN_IF_ERROR(sql_bind_collect_names(b, conj[idx], &names, err));
        partition_only = !names.all && names.n > 0;
        for (col = 0; partition_only && col < names.n; col++)
            partition_only = is_partition_column(snap, names.names[col]);
        if (partition_only)
            SILT_RETURN_IF_ERROR(bind_where(b, scope, conj[idx], &cr->evs[cr->n++], err));
    }
    if (cr->n == 0)
        return SILT_OK;
    o->read_predicate = conj_read_predicate;
    o->read_predicate_payload = cr;
    return SILT_OK;
}

silt_status sql_exec_delete(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    static const char *const names[] = {"num_affected_rows"};
    exec_target t;
    bind_scope scope;
    dml_eval ev;
    part_prune pp;
    delta_dml_options o = DELTA_DML_OPTIONS_INIT;
    delta_dml_metrics m;
    dml_job job;
    int64_t affected;
    int skip;
    memset(&job, 0, sizeof(job));
    memset(&ev, 0, sizeof(ev));
    memset(&m, 0, sizeof(m));
    SILT_RETURN_IF_ERROR(dml_target(b, stmt->u.delete_.table, &t, &scope, err));
    SILT_RETURN_IF_ERROR(sql_exec_app_txn(b, t.snap, &job.app_txn, &skip, err));
    if (skip) /* Delta's idempotent DML: this (appId, version) is already in the table */
        return sql_exec_counts_result(b, names, NULL, 1, out, err);
    SILT_RETURN_IF_ERROR(bind_where(b, &scope, stmt->u.delete_.where, &ev, err));
    o.predicate_text = where_text(b, stmt, stmt->u.delete_.where);
    o.user_metadata = sql_session_get(b->s, SQL_SETTING_USER_METADATA);
    o.compression = sql_session_get(b->s, SQL_SETTING_PARQUET_CODEC);
    SILT_RETURN_IF_ERROR(sql_exec_commit_retry_timeout(b, &o.retry_timeout_ms, err));
    SILT_RETURN_IF_ERROR(plan_pruning(b, t.snap, scope.n ? scope.cols[0].qual : NULL,
                                      stmt->u.delete_.where, &ev, &pp, &o, err));
    SILT_RETURN_IF_ERROR(plan_read_conjuncts(b, t.snap, &scope, stmt->u.delete_.where, &o, err));
    SILT_RETURN_IF_ERROR(plan_dv_scan(b, t.snap, scope.n ? scope.cols[0].qual : NULL,
                                      stmt->u.delete_.where, &job, err));
    job.store = t.store;
    job.snap = t.snap;
    job.pred = ev.pred;
    job.o = &o;
    SILT_RETURN_IF_ERROR(sql_exec_modify(b, &job, &m, err));
    affected = m.num_deleted_rows;
    return sql_exec_counts_result(b, names, &affected, 1, out, err);
}

silt_status sql_exec_update(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    static const char *const names[] = {"num_affected_rows"};
    const sql_assignment_list *set = &stmt->u.update.set;
    exec_target t;
    bind_scope scope;
    dml_eval ev;
    part_prune pp;
    delta_dml_options o = DELTA_DML_OPTIONS_INIT;
    delta_dml_metrics m;
    bind_ctx bc;
    dml_job job;
    int64_t affected;
    int skip;
    size_t idx;
    memset(&job, 0, sizeof(job));
    memset(&ev, 0, sizeof(ev));
    memset(&m, 0, sizeof(m));
    SILT_RETURN_IF_ERROR(dml_target(b, stmt->u.update.table, &t, &scope, err));
    SILT_RETURN_IF_ERROR(sql_exec_app_txn(b, t.snap, &job.app_txn, &skip, err));
    if (skip) /* Delta's idempotent DML: this (appId, version) is already in the table */
        return sql_exec_counts_result(b, names, NULL, 1, out, err);
    SILT_RETURN_IF_ERROR(bind_where(b, &scope, stmt->u.update.where, &ev, err));
    ev.schema = t.snap->schema;
    ev.n_cols = t.snap->schema->n_fields;
    ev.values = arena_calloc(b->a, ev.n_cols + 1, sizeof(expr *));
    if (ev.values == NULL)
        return err_nomem(err);
    bc.scope = &scope;
    bc.agg = NULL;
    bc.win = NULL;
    bc.outer = NULL;
    for (idx = 0; idx < set->n; idx++) {
        const sql_assignment *as = &set->items[idx];
        int64_t col;
        size_t used;
        expr *e;
        if (as->target.n_parts > 2 ||
            (as->target.n_parts == 2 && scope.n > 0 &&
             util_str_casecmp(as->target.parts[0].name, scope.cols[0].qual) != 0))
            return sql_bind_error(b, err, as->target.pos, SILT_UNSUPPORTED, "UPDATE SET of a nested "
                              "field is not supported yet");
        SILT_RETURN_IF_ERROR(sql_bind_resolve_column(b, &scope, &as->target, &col, &used, err));
        if (ev.values[col] != NULL)
            return sql_bind_error(b, err, as->target.pos, SILT_BIND, "[DUPLICATE_ASSIGNMENTS] The "
                              "column `%s` is assigned more than once", scope.cols[col].name);
        {
            sql_identity id;
            if (sql_identity_column(&t.snap->schema->fields[col], &id))
                return sql_bind_error(b, err, as->target.pos, SILT_BIND, "[DELTA_IDENTITY_COLUMNS_"
                                      "UPDATE_NOT_SUPPORTED] UPDATE on IDENTITY column %s is not "
                                      "supported.", scope.cols[col].name);
        }
        if (sql_bind_has_agg(as->value) || sql_bind_has_window(as->value))
            return sql_bind_error(b, err, as->value->pos, SILT_BIND, "aggregate and window functions "
                              "are not allowed in UPDATE SET");
        SILT_RETURN_IF_ERROR(sql_bind_expr(b, &bc, as->value, &e, err));
        if (!col_type_equal(e->type, scope.cols[col].type)) {
            if (e->type->id != COL_NULL && !expr_cast_allowed(e->type, scope.cols[col].type))
                return sql_bind_error(b, err, as->value->pos, SILT_BIND,
                                  "[DELTA_UPDATE_SET_TYPE] cannot assign this value to column "
                                  "`%s`: its type cannot be cast safely", scope.cols[col].name);
            SILT_RETURN_IF_ERROR(expr_cast(&e, b->a, e, scope.cols[col].type, 0, err));
        }
        ev.values[col] = e;
    }
    /* a generated column follows the columns it reads (Delta recomputes it) */
    SILT_RETURN_IF_ERROR(sql_generated_fill(b, t.snap->schema, ev.values, 0, err));
    o.predicate_text = where_text(b, stmt, stmt->u.update.where);
    o.user_metadata = sql_session_get(b->s, SQL_SETTING_USER_METADATA);
    o.compression = sql_session_get(b->s, SQL_SETTING_PARQUET_CODEC);
    SILT_RETURN_IF_ERROR(sql_exec_commit_retry_timeout(b, &o.retry_timeout_ms, err));
    SILT_RETURN_IF_ERROR(plan_pruning(b, t.snap, scope.n ? scope.cols[0].qual : NULL,
                                      stmt->u.update.where, &ev, &pp, &o, err));
    SILT_RETURN_IF_ERROR(plan_read_conjuncts(b, t.snap, &scope, stmt->u.update.where, &o, err));
    SILT_RETURN_IF_ERROR(plan_dv_scan(b, t.snap, scope.n ? scope.cols[0].qual : NULL,
                                      stmt->u.update.where, &job, err));
    job.store = t.store;
    job.snap = t.snap;
    job.pred = ev.pred;
    job.update = 1;
    job.values = ev.values;
    job.o = &o;
    SILT_RETURN_IF_ERROR(sql_exec_modify(b, &job, &m, err));
    affected = m.num_updated_rows;
    return sql_exec_counts_result(b, names, &affected, 1, out, err);
}
