/*
 * exec_refs.c - Nessie's reference statements over the warehouse's catalog
 * (docs/branches.md): CREATE/DROP/ASSIGN BRANCH|TAG, USE REFERENCE, SHOW
 * REFERENCE, LIST REFERENCES, SHOW LOG. The session's reference lives in its
 * catalog handle (catalog_use_ref), so every later statement of the
 * connection reads and writes there.
 */
#include <string.h>

#include "delta/log.h"
#include "sql/exec.h"
#include "util/time.h"

static const char *const ref_cols[] = {"refType", "name", "hash"};

static silt_status needs_warehouse(binder *b, silt_error *err)
{
    if (b->s->cat != NULL)
        return SILT_OK;
    return err_set(err, SILT_INVALID, "branches and tags belong to a warehouse's catalog: open "
                   "one with --warehouse DIR");
}

/* IN <catalog>: the warehouse's catalog is Spark's session catalog, spark_catalog. */
static silt_status check_in(binder *b, const sql_name *in, silt_error *err)
{
    if (in->n_parts == 0 ||
        (in->n_parts == 1 && util_str_casecmp(in->parts[0].name, "spark_catalog") == 0))
        return SILT_OK;
    return sql_bind_error(b, err, in->pos, SILT_NOTFOUND, "[CATALOG_NOT_FOUND] The catalog `%s` "
                          "is not found: branches and tags are those of the warehouse's "
                          "catalog, spark_catalog", in->parts[in->n_parts - 1].name);
}

/* A reference name: one part. NULL (not an error) when the name is absent. */
static silt_status ref_name(binder *b, const sql_name *n, const char **out, silt_error *err)
{
    *out = NULL;
    if (n->n_parts == 0)
        return SILT_OK;
    if (n->n_parts > 1)
        return sql_bind_error(b, err, n->pos, SILT_INVALID, "a reference name has one part, "
                              "not %zu", n->n_parts);
    *out = n->parts[0].name;
    return SILT_OK;
}

static const char *type_name(cat_ref_type t) { return t == CAT_REF_TAG ? "Tag" : "Branch"; }

static silt_status rows_out(binder *b, const char *const *names, size_t n_cols,
                            const char *const *cells, size_t n_rows, exec_out *out,
                            silt_error *err)
{
    return sql_exec_strings_op(b->a, b->ctx, names, n_cols, cells, n_rows, &out->schema, &out->op,
                               err);
}

static silt_status ref_row(binder *b, const cat_state *state, exec_out *out, silt_error *err)
{
    const char **cells = arena_calloc(b->a, 3, sizeof(char *));
    if (cells == NULL)
        return err_nomem(err);
    cells[0] = type_name(state->ref_id == NULL ? CAT_REF_BRANCH : state->ref_type);
    cells[1] = arena_strdup(b->a, state->ref_name);
    cells[2] = arena_strdup(b->a, state->hash);
    if (cells[1] == NULL || cells[2] == NULL)
        return err_nomem(err);
    return rows_out(b, ref_cols, 3, cells, 1, out, err);
}

/* cat_pin_fn: the newest version of a main table's `_delta_log/` (-1: none yet). */
static silt_status pin_table(const cat_table *t, int64_t *version, void *payload,
                             silt_error *err)
{
    binder *b = payload;
    const char *path = catalog_location_path(b->a, io_store_root(b->s->warehouse), t->location);
    io_store *store = NULL;
    dlog_listing listing = DLOG_LISTING_INIT;
    silt_error scratch = SILT_ERROR_INIT;
    silt_status rc;
    *version = -1;
    if (path == NULL)
        return err_nomem(err);
    rc = sql_session_store_open(b->s, path, 0, &store, &scratch);
    if (rc == SILT_NOTFOUND || rc == SILT_IO)
        return SILT_OK; /* no folder: no log yet */
    if (rc != SILT_OK)
        return err_set(err, rc, "%s", scratch.message);
    rc = dlog_list(&listing, store, -1, err);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        rc = SILT_OK;
    } else if (rc == SILT_OK) {
        *version = listing.latest_version;
    }
    dlog_listing_clear(&listing);
    io_store_free(store);
    return rc;
}

static cat_ref_type ref_type_of(const sql_stmt *stmt)
{
    return stmt->u.ref.what == SQL_OBJ_TAG ? CAT_REF_TAG : CAT_REF_BRANCH;
}

static silt_status run_create(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    const char *name, *from;
    cat_state *state = NULL;
    int created = 0;
    silt_status rc;
    SILT_RETURN_IF_ERROR(ref_name(b, &stmt->u.ref.name, &name, err));
    SILT_RETURN_IF_ERROR(ref_name(b, &stmt->u.ref.from, &from, err));
    if (from == NULL && stmt->u.ref.hash == NULL)
        from = catalog_current_ref(b->s->cat); /* Nessie: from the session's reference */
    rc = catalog_ref_create(b->s->cat, ref_type_of(stmt), name, from, stmt->u.ref.hash,
                            stmt->u.ref.if_not_exists, pin_table, b, &created, &state, err);
    SILT_RETURN_IF_ERROR(rc);
    rc = ref_row(b, state, out, err);
    catalog_state_free(state);
    return rc;
}

static silt_status run_drop(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    static const char *const cols[] = {"status"};
    static const char *const ok[] = {"OK"};
    const char *name;
    SILT_RETURN_IF_ERROR(ref_name(b, &stmt->u.drop.name, &name, err));
    SILT_RETURN_IF_ERROR(catalog_ref_drop(b->s->cat,
                                          stmt->u.drop.what == SQL_OBJ_TAG ? CAT_REF_TAG
                                                                           : CAT_REF_BRANCH,
                                          name, stmt->u.drop.if_exists, err));
    /* a session on the dropped reference goes back to main, as Nessie's does */
    if (strcmp(catalog_current_ref(b->s->cat), name) == 0)
        SILT_RETURN_IF_ERROR(catalog_use_ref(b->s->cat, CATALOG_MAIN, NULL, err));
    return rows_out(b, cols, 1, ok, 1, out, err);
}

static silt_status run_assign(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    const char *name, *to;
    cat_state *state = NULL;
    silt_status rc;
    SILT_RETURN_IF_ERROR(ref_name(b, &stmt->u.ref.name, &name, err));
    SILT_RETURN_IF_ERROR(ref_name(b, &stmt->u.ref.from, &to, err));
    if (to == NULL)
        to = catalog_current_ref(b->s->cat);
    SILT_RETURN_IF_ERROR(catalog_ref_assign(b->s->cat, ref_type_of(stmt), name, to,
                                            stmt->u.ref.hash, pin_table, b, &state, err));
    rc = ref_row(b, state, out, err);
    catalog_state_free(state);
    return rc;
}

static silt_status run_use(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    const char *name;
    cat_state *state = NULL;
    silt_status rc;
    SILT_RETURN_IF_ERROR(ref_name(b, &stmt->u.ref.name, &name, err));
    SILT_RETURN_IF_ERROR(catalog_load_ref(b->s->cat, name, stmt->u.ref.hash, &state, err));
    if (stmt->u.ref.what != SQL_OBJ_REFERENCE && state->ref_id != NULL &&
        ref_type_of(stmt) != state->ref_type) {
        rc = err_set(err, SILT_INVALID, "'%s' is a %s, not a %s", name,
                     state->ref_type == CAT_REF_TAG ? "tag" : "branch",
                     stmt->u.ref.what == SQL_OBJ_TAG ? "tag" : "branch");
        catalog_state_free(state);
        return rc;
    }
    catalog_state_free(state);
    SILT_RETURN_IF_ERROR(catalog_use_ref(b->s->cat, name, stmt->u.ref.hash, err));
    SILT_RETURN_IF_ERROR(catalog_load_ref(b->s->cat, NULL, NULL, &state, err));
    rc = ref_row(b, state, out, err);
    catalog_state_free(state);
    return rc;
}

static silt_status run_show_ref(binder *b, exec_out *out, silt_error *err)
{
    cat_state *state = NULL;
    silt_status rc;
    SILT_RETURN_IF_ERROR(catalog_load_ref(b->s->cat, NULL, NULL, &state, err));
    rc = ref_row(b, state, out, err);
    catalog_state_free(state);
    return rc;
}

static silt_status run_list(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    cat_ref_info *refs = NULL;
    size_t n = 0, idx, rows = 0;
    const char **cells;
    SILT_RETURN_IF_ERROR(catalog_ref_list(b->s->cat, b->a, &refs, &n, err));
    cells = arena_calloc(b->a, 3 * n + 1, sizeof(char *));
    if (cells == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        if ((stmt->u.ref.what == SQL_OBJ_TAG && refs[idx].type != CAT_REF_TAG) ||
            (stmt->u.ref.what == SQL_OBJ_BRANCH && refs[idx].type != CAT_REF_BRANCH))
            continue;
        cells[3 * rows] = type_name(refs[idx].type);
        cells[3 * rows + 1] = refs[idx].name;
        cells[3 * rows++ + 2] = refs[idx].hash;
    }
    return rows_out(b, ref_cols, 3, cells, rows, out, err);
}

/* SHOW LOG [ref [AT hash]]: the reference's commits, newest first (from hash when given). */
static silt_status run_log(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    static const char *const cols[] = {"hash", "author", "message", "time", "tables"};
    const char *name;
    cat_log_entry *entries = NULL;
    size_t n = 0, idx, rows = 0, len = stmt->u.ref.hash ? strlen(stmt->u.ref.hash) : 0;
    const char **cells;
    int started = stmt->u.ref.hash == NULL;
    SILT_RETURN_IF_ERROR(ref_name(b, &stmt->u.ref.name, &name, err));
    SILT_RETURN_IF_ERROR(catalog_ref_log(b->s->cat, name, b->a, &entries, &n, err));
    cells = arena_calloc(b->a, 5 * n + 1, sizeof(char *));
    if (cells == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        const cat_commit_info *c = &entries[idx].commit;
        char when[64];
        buf tables = BUF_INIT;
        size_t t;
        if (!started && len >= 8 && strncmp(entries[idx].hash, stmt->u.ref.hash, len) == 0)
            started = 1;
        if (!started)
            continue;
        for (t = 0; t < c->n_touched; t++)
            SILT_RETURN_IF_ERROR(buf_printf(&tables, err, "%s%s", t ? "," : "", c->touched[t]));
        time_format_timestamp_spark(c->time_ms * 1000, when, sizeof(when));
        cells[5 * rows] = entries[idx].hash;
        cells[5 * rows + 1] = c->author ? c->author : "";
        cells[5 * rows + 2] = c->message ? c->message : "";
        cells[5 * rows + 3] = arena_strdup(b->a, when);
        cells[5 * rows + 4] = arena_strdup(b->a, tables.data ? buf_cstr(&tables) : "");
        buf_clear(&tables);
        if (cells[5 * rows + 3] == NULL || cells[5 * rows + 4] == NULL)
            return err_nomem(err);
        rows++;
    }
    if (!started)
        return err_set(err, SILT_NOTFOUND, "[REFERENCE_NOT_FOUND] Commit '%s' not found on "
                       "reference '%s'", stmt->u.ref.hash, name ? name
                                                            : catalog_current_ref(b->s->cat));
    return rows_out(b, cols, 5, cells, rows, out, err);
}

silt_status sql_exec_ref(binder *b, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    SILT_RETURN_IF_ERROR(needs_warehouse(b, err));
    SILT_RETURN_IF_ERROR(check_in(b, stmt->kind == SQL_STMT_DROP_REF ? &stmt->u.drop.in
                                                                     : &stmt->u.ref.in, err));
    switch (stmt->kind) {
    case SQL_STMT_CREATE_REF: return run_create(b, stmt, out, err);
    case SQL_STMT_DROP_REF: return run_drop(b, stmt, out, err);
    case SQL_STMT_ASSIGN_REF: return run_assign(b, stmt, out, err);
    case SQL_STMT_USE_REF: return run_use(b, stmt, out, err);
    case SQL_STMT_SHOW_REF: return run_show_ref(b, out, err);
    case SQL_STMT_LIST_REFS: return run_list(b, stmt, out, err);
    case SQL_STMT_SHOW_LOG: return run_log(b, stmt, out, err);
    case SQL_STMT_MERGE_BRANCH: return sql_exec_merge_branch(b, stmt, out, err);
    default: return err_set(err, SILT_INVALID, "not a reference statement");
    }
}
