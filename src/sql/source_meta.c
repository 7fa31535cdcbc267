/*
 * source_meta.c - the metadata tables of a catalog Delta table, as the
 * write-audit-publish tutorial reads Iceberg's (docs/branches.md):
 *
 *   db.t.history    DESCRIBE HISTORY's rows
 *   db.t.files      path, partition_values, file_size_in_bytes, record_count, column_stats
 *   db.t.snapshots  version, committed_at, operation, summary
 *   db.t.refs       name, type, hash, version: the references whose state holds the table
 *
 * They are read on the session's reference. Cells other than history's are strings.
 */
#include <cjson/cJSON.h>
#include <string.h>

#include "delta/branch.h"
#include "delta/log.h"
#include "delta/snapshot.h"
#include "sql/exec.h"
#include "util/time.h"

static int meta_kind(const char *name)
{
    static const char *const kinds[] = {"history", "files", "snapshots", "refs"};
    size_t idx;
    for (idx = 0; idx < 4; idx++)
        if (util_str_casecmp(name, kinds[idx]) == 0)
            return (int)idx;
    return -1;
}

static silt_status files_rows(binder *b, const exec_target *t, exec_out *out, silt_error *err)
{
    static const char *const cols[] = {"path", "partition_values", "file_size_in_bytes",
                                       "record_count", "column_stats"};
    const delta_snapshot *snap = t->snap;
    const char **cells = arena_calloc(b->a, 5 * snap->n_files + 1, sizeof(char *));
    size_t idx, k;
    if (cells == NULL)
        return err_nomem(err);
    for (idx = 0; idx < snap->n_files; idx++) {
        const delta_file *f = &snap->files[idx];
        cJSON *stats = f->stats ? cJSON_Parse(f->stats) : NULL;
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(stats, "numRecords");
        buf pv = BUF_INIT;
        char *rest = NULL;
        silt_status rc = buf_append_char(&pv, '{', err);
        for (k = 0; rc == SILT_OK && k < f->partition_values.n; k++)
            rc = buf_printf(&pv, err, "%s%s=%s", k ? ", " : "", f->partition_values.items[k].key,
                            f->partition_values.items[k].value ? f->partition_values.items[k].value
                                                               : "null");
        if (rc == SILT_OK)
            rc = buf_append_char(&pv, '}', err);
        /* before numRecords is deleted from stats (n points into it) */
        cells[5 * idx + 3] = cJSON_IsNumber(n) ? arena_sprintf(b->a, "%.0f", n->valuedouble) : "";
        if (stats != NULL) {
            cJSON_DeleteItemFromObjectCaseSensitive(stats, "numRecords");
            rest = cJSON_PrintUnformatted(stats);
        }
        cells[5 * idx] = f->path;
        cells[5 * idx + 1] = rc == SILT_OK ? arena_strdup(b->a, buf_cstr(&pv)) : NULL;
        cells[5 * idx + 2] = arena_sprintf(b->a, "%lld", (long long)f->size);
        cells[5 * idx + 4] = arena_strdup(b->a, rest ? rest : "");
        cJSON_free(rest);
        cJSON_Delete(stats);
        buf_clear(&pv);
        if (rc != SILT_OK)
            return rc;
        for (k = 0; k < 5; k++)
            if (cells[5 * idx + k] == NULL)
                return err_nomem(err);
    }
    return sql_exec_strings_op(b->a, b->ctx, cols, 5, cells, snap->n_files, &out->schema,
                               &out->op, err);
}

static silt_status first_commit_info(const dlog_action *action, void *payload, silt_error *err)
{
    const char **raw = payload;
    (void)err;
    if (action->type == DLOG_COMMIT_INFO && *raw == NULL)
        *raw = action->u.commit_info.raw_json;
    return SILT_OK;
}

static silt_status snapshots_rows(binder *b, const exec_target *t, exec_out *out,
                                  silt_error *err)
{
    static const char *const cols[] = {"version", "committed_at", "operation", "summary"};
    dlog_listing listing = DLOG_LISTING_INIT;
    const char **cells;
    int64_t *times;
    size_t idx, rows = 0;
    silt_status rc;
    SILT_RETURN_IF_ERROR(dlog_list(&listing, t->store, -1, err));
    cells = arena_calloc(b->a, 4 * listing.n_files + 1, sizeof(char *));
    times = arena_calloc(b->a, listing.n_files + 1, sizeof(int64_t));
    rc = cells && times ? SILT_OK : err_nomem(err);
    if (rc == SILT_OK)
        dlog_listing_commit_times(&listing, times);
    for (idx = 0; rc == SILT_OK && idx < listing.n_files; idx++) {
        const dlog_file *f = &listing.files[idx];
        const char *raw = NULL;
        cJSON *ci = NULL;
        char when[64];
        char *summary = NULL;
        if (f->kind != DLOG_FILE_COMMIT || f->version > t->snap->version)
            continue;
        rc = dlog_read_json_file(t->store, f->key, b->a, first_commit_info, &raw, err);
        if (rc != SILT_OK)
            break;
        ci = raw ? cJSON_Parse(raw) : NULL;
        summary = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(ci, "operationMetrics"));
        time_format_timestamp_spark(times[idx] * 1000, when, sizeof(when));
        cells[4 * rows] = arena_sprintf(b->a, "%lld", (long long)f->version);
        cells[4 * rows + 1] = arena_strdup(b->a, when);
        cells[4 * rows + 2] = arena_strdup(b->a, cJSON_IsString(cJSON_GetObjectItemCaseSensitive(
                                                     ci, "operation"))
                                                     ? cJSON_GetObjectItemCaseSensitive(
                                                           ci, "operation")->valuestring
                                                     : "");
        cells[4 * rows + 3] = arena_strdup(b->a, summary ? summary : "{}");
        cJSON_free(summary);
        cJSON_Delete(ci);
        if (cells[4 * rows] == NULL || cells[4 * rows + 1] == NULL || cells[4 * rows + 2] == NULL ||
            cells[4 * rows + 3] == NULL)
            rc = err_nomem(err);
        rows++;
    }
    dlog_listing_clear(&listing);
    SILT_RETURN_IF_ERROR(rc);
    return sql_exec_strings_op(b->a, b->ctx, cols, 4, cells, rows, &out->schema, &out->op, err);
}

/* The references holding the table (by location) and the version each reads. */
static silt_status refs_rows(binder *b, const exec_target *t, exec_out *out, silt_error *err)
{
    static const char *const cols[] = {"name", "type", "hash", "version"};
    cat_ref_info *refs = NULL;
    size_t n = 0, idx, rows = 0, k;
    const char **cells;
    SILT_RETURN_IF_ERROR(catalog_ref_list(b->s->cat, b->a, &refs, &n, err));
    cells = arena_calloc(b->a, 4 * n + 1, sizeof(char *));
    if (cells == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        cat_state *state = NULL;
        const cat_table *ct = NULL;
        int64_t version = -1;
        silt_status rc;
        SILT_RETURN_IF_ERROR(catalog_load_ref(b->s->cat, refs[idx].name, NULL, &state, err));
        for (k = 0; k < state->n_tables && ct == NULL; k++) {
            const char *p = state->tables[k].kind == CAT_VIEW ? NULL
                            : catalog_location_path(b->a, io_store_root(b->s->warehouse),
                                                    state->tables[k].location);
            if (p != NULL && strcmp(p, t->path) == 0)
                ct = &state->tables[k];
        }
        rc = SILT_OK;
        if (ct != NULL) {
            /* the version the reference reads: its chain's newest, main's newest on main */
            io_store *store = NULL;
            dlog_listing listing = DLOG_LISTING_INIT;
            delta_branch_view *view = NULL;
            rc = sql_branch_view(b, state, ct, 0, &view, NULL, err);
            if (rc == SILT_OK)
                rc = sql_session_store_open(b->s, t->path, 0, &store, err);
            if (rc == SILT_OK)
                rc = sql_branch_wrap(view, &store, err);
            if (rc == SILT_OK && dlog_list(&listing, store, -1, NULL) == SILT_OK)
                version = listing.latest_version;
            dlog_listing_clear(&listing);
            io_store_free(store);
        }
        if (rc == SILT_OK && ct != NULL) {
            cells[4 * rows] = refs[idx].name;
            cells[4 * rows + 1] = refs[idx].type == CAT_REF_TAG ? "Tag" : "Branch";
            cells[4 * rows + 2] = refs[idx].hash;
            cells[4 * rows++ + 3] = arena_sprintf(b->a, "%lld", (long long)version);
        }
        catalog_state_free(state);
        SILT_RETURN_IF_ERROR(rc);
    }
    return sql_exec_strings_op(b->a, b->ctx, cols, 4, cells, rows, &out->schema, &out->op, err);
}

silt_status sql_source_meta(binder *b, const sql_table_ref *ref, plan *out, int *found,
                            silt_error *err)
{
    const sql_name *n = &ref->u.named.name;
    sql_name table;
    exec_target t;
    exec_out eo = {NULL, NULL};
    int kind;
    *found = 0;
    if (n->n_parts != 3 || b->s->cat == NULL || (kind = meta_kind(n->parts[2].name)) < 0)
        return SILT_OK;
    if (ref->u.named.at.ref != NULL || ref->u.named.at.version != NULL ||
        ref->u.named.at.timestamp != NULL)
        return sql_bind_error(b, err, ref->pos, SILT_UNSUPPORTED, "metadata tables are read on "
                              "the session's reference, without time travel");
    table = *n;
    table.n_parts = 2;
    SILT_RETURN_IF_ERROR(sql_exec_resolve_target(b, &table, &t, err));
    if (!t.in_catalog)
        return SILT_OK;
    *found = 1;
    SILT_RETURN_IF_ERROR(sql_exec_require_table(b, &table, &t, err));
    if (kind == 0) {
        sql_stmt stmt;
        memset(&stmt, 0, sizeof(stmt));
        stmt.kind = SQL_STMT_DESCRIBE;
        stmt.u.describe.what = SQL_DESCRIBE_HISTORY;
        stmt.u.describe.name = table;
        SILT_RETURN_IF_ERROR(sql_exec_describe_history(b, &stmt, &eo, err));
    } else if (kind == 1) {
        SILT_RETURN_IF_ERROR(files_rows(b, &t, &eo, err));
    } else if (kind == 2) {
        SILT_RETURN_IF_ERROR(snapshots_rows(b, &t, &eo, err));
    } else {
        SILT_RETURN_IF_ERROR(refs_rows(b, &t, &eo, err));
    }
    memset(out, 0, sizeof(*out));
    out->op = eo.op;
    return sql_scope_from_schema(b->a, eo.schema,
                                 ref->alias.name ? ref->alias.name : n->parts[2].name,
                                 &out->scope, err);
}
