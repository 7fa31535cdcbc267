/*
 * branch.c - catalog tables on a branch or tag (docs/branches.md): the
 * delta layer's branch view of a table built from its catalog entry, and
 * the catalog record of the branch-local commits a statement made.
 */
#include <string.h>

#include "delta/branch.h"
#include "delta/snapshot.h"
#include "sql/binder_int.h"
#include "util/mem.h"
#include "util/buf.h"

typedef struct sql_branch_write {
    const char *ref;
    const char *own_id;
    const char *database;
    const char *name;
    int64_t last; /* newest version committed; -1: none yet */
    struct sql_branch_write *next;
} sql_branch_write;

static void note_commit(void *payload, int64_t version)
{
    sql_branch_write *w = payload;
    if (version > w->last)
        w->last = version;
}

int sql_branch_state_is_head(const binder *b, const cat_state *state)
{
    if (b->target_ref != NULL)
        return state->ref_id != NULL && state->ref_type == CAT_REF_BRANCH &&
               strchr(b->target_ref, '#') == NULL;
    return state->ref_id != NULL && state->ref_type == CAT_REF_BRANCH &&
           catalog_current_hash(b->s->cat) == NULL;
}

silt_status sql_branch_view(binder *b, const cat_state *state, const cat_table *t, int head,
                            delta_branch_view **out, const char **key_out, silt_error *err)
{
    delta_branch_view *v;
    delta_branch_segment *segs;
    size_t idx;
    *out = NULL;
    if (key_out != NULL)
        *key_out = "";
    if (state->ref_id == NULL || t == NULL || t->kind == CAT_VIEW || !t->on_ref ||
        (t->provider != NULL && util_str_casecmp(t->provider, "delta") != 0))
        return SILT_OK;
    v = arena_calloc(b->a, 1, sizeof(*v));
    segs = arena_calloc(b->a, t->n_segments + 1, sizeof(*segs));
    if (v == NULL || segs == NULL)
        return err_nomem(err);
    for (idx = 0; idx < t->n_segments; idx++) {
        segs[idx].id = arena_strdup(b->a, t->segments[idx].id);
        segs[idx].last = t->segments[idx].last;
        if (segs[idx].id == NULL)
            return err_nomem(err);
    }
    v->ref_name = arena_strdup(b->a, state->ref_name);
    v->fork = t->fork;
    v->pin = t->pin;
    v->segments = segs;
    v->n_segments = t->n_segments;
    if (head && state->ref_type == CAT_REF_BRANCH) {
        sql_branch_write *w = arena_calloc(b->a, 1, sizeof(*w));
        if (w == NULL || (w->ref = arena_strdup(b->a, state->ref_name)) == NULL ||
            (w->own_id = arena_strdup(b->a, state->ref_id)) == NULL ||
            (w->database = arena_strdup(b->a, t->database)) == NULL ||
            (w->name = arena_strdup(b->a, t->name)) == NULL)
            return err_nomem(err);
        w->last = -1;
        w->next = b->branch_writes;
        b->branch_writes = w;
        v->own_id = w->own_id;
        v->follow_own = 1;
        v->on_commit = note_commit;
        v->payload = w;
    }
    if (v->ref_name == NULL)
        return err_nomem(err);
    if (key_out != NULL &&
        (*key_out = arena_sprintf(b->a, "%s#%s", state->ref_name, state->hash)) == NULL)
        return err_nomem(err);
    *out = v;
    return SILT_OK;
}

silt_status sql_branch_wrap(const delta_branch_view *view, io_store **store, silt_error *err)
{
    io_store *wrapped = NULL;
    silt_status rc;
    if (view == NULL)
        return SILT_OK;
    rc = delta_branch_store_wrap(&wrapped, *store, view, err);
    *store = wrapped; /* NULL on failure: the wrapper freed the store */
    return rc;
}

typedef struct record_args {
    const sql_branch_write *writes;
    const char *ref;
} record_args;

static silt_status extend_segment(cat_state *state, cat_table *t, const sql_branch_write *w,
                                  silt_error *err)
{
    cat_segment *grown;
    if (t->n_segments > 0 && strcmp(t->segments[t->n_segments - 1].id, w->own_id) == 0) {
        if (t->segments[t->n_segments - 1].last < w->last)
            t->segments[t->n_segments - 1].last = w->last;
        t->pin = -1;
        return SILT_OK;
    }
    grown = arena_calloc(state->arena, t->n_segments + 1, sizeof(*grown));
    if (grown == NULL)
        return err_nomem(err);
    if (t->n_segments > 0)
        memcpy(grown, t->segments, t->n_segments * sizeof(*grown));
    grown[t->n_segments].id = arena_strdup(state->arena, w->own_id);
    grown[t->n_segments].last = w->last;
    if (grown[t->n_segments].id == NULL)
        return err_nomem(err);
    t->segments = grown;
    t->n_segments++;
    t->pin = -1;
    return SILT_OK;
}

/* The catalog change: each written table's own segment reaches its newest commit. */
static silt_status record_writes(cat_state *state, void *payload, silt_error *err)
{
    const record_args *args = payload;
    const sql_branch_write *w;
    if (state->ref_id == NULL)
        return SILT_OK;
    for (w = args->writes; w != NULL; w = w->next) {
        const cat_table *found;
        if (w->last < 0 || strcmp(w->ref, args->ref) != 0 || strcmp(w->own_id, state->ref_id) != 0)
            continue; /* the branch was reassigned since: its commits stay unrecorded */
        found = catalog_state_find_table(state, w->database, w->name);
        if (found == NULL || !found->on_ref)
            continue; /* dropped on the branch meanwhile */
        SILT_RETURN_IF_ERROR(extend_segment(state, (cat_table *)found, w, err));
    }
    return SILT_OK;
}

silt_status sql_branch_record(binder *b, silt_error *err)
{
    const sql_branch_write *w, *v;
    for (w = b->branch_writes; w != NULL; w = w->next) {
        record_args args;
        int first = 1;
        if (w->last < 0)
            continue;
        for (v = b->branch_writes; v != w && first; v = v->next)
            if (v->last >= 0 && strcmp(v->ref, w->ref) == 0)
                first = 0; /* that reference was recorded with v */
        if (!first)
            continue;
        args.writes = b->branch_writes;
        args.ref = w->ref;
        SILT_RETURN_IF_ERROR(catalog_commit_ref(b->s->cat, w->ref, record_writes, &args, NULL,
                                                err));
    }
    b->branch_writes = NULL;
    return SILT_OK;
}

silt_status sql_branch_refs_hold(binder *b, const char *location, int *held, silt_error *err)
{
    cat_ref_info *refs = NULL;
    size_t n = 0, idx, t;
    *held = 0;
    SILT_RETURN_IF_ERROR(catalog_ref_list(b->s->cat, b->a, &refs, &n, err));
    for (idx = 0; idx < n && !*held; idx++) {
        cat_state *state = NULL;
        if (strcmp(refs[idx].name, CATALOG_MAIN) == 0)
            continue;
        SILT_RETURN_IF_ERROR(catalog_load_ref(b->s->cat, refs[idx].name, NULL, &state, err));
        for (t = 0; t < state->n_tables && !*held; t++)
            *held = state->tables[t].location != NULL &&
                    strcmp(state->tables[t].location, location) == 0;
        catalog_state_free(state);
    }
    return SILT_OK;
}

static void free_store_cb(void *p) { io_store_free(p); }
static void free_snap_cb(void *p) { delta_snapshot_free(p); }

/* The table at path on one reference's head: *snap NULL when the reference does not hold it. */
static silt_status ref_snapshot(binder *b, const char *ref, const char *path,
                                const delta_snapshot **snap, silt_error *err)
{
    cat_state *state = NULL;
    const cat_table *t = NULL;
    delta_branch_view *view = NULL;
    io_store *store = NULL;
    delta_snapshot *loaded = NULL;
    size_t idx;
    silt_status rc;
    *snap = NULL;
    SILT_RETURN_IF_ERROR(catalog_load_ref(b->s->cat, ref, NULL, &state, err));
    for (idx = 0; idx < state->n_tables && t == NULL; idx++) {
        const char *p = state->tables[idx].kind == CAT_VIEW ? NULL
                        : catalog_location_path(b->a, io_store_root(b->s->warehouse),
                                                state->tables[idx].location);
        if (p != NULL && strcmp(p, path) == 0)
            t = &state->tables[idx];
    }
    rc = t != NULL ? sql_branch_view(b, state, t, 0, &view, NULL, err) : SILT_OK;
    catalog_state_free(state);
    if (rc != SILT_OK || view == NULL)
        return rc;
    view->follow_own = 1; /* the head, with commits not recorded yet */
    SILT_RETURN_IF_ERROR(sql_session_store_open(b->s, path, 0, &store, err));
    SILT_RETURN_IF_ERROR(sql_branch_wrap(view, &store, err));
    if (arena_on_cleanup(b->a, free_store_cb, store) == 0) {
        io_store_free(store);
        return err_nomem(err);
    }
    rc = delta_snapshot_load(&loaded, store, -1, err);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(rc);
    if (arena_on_cleanup(b->a, free_snap_cb, loaded) == 0) {
        delta_snapshot_free(loaded);
        return err_nomem(err);
    }
    *snap = loaded;
    return SILT_OK;
}

silt_status sql_branch_snapshots(binder *b, const char *path,
                                 const struct delta_snapshot *const **out, size_t *n_out,
                                 silt_error *err)
{
    cat_ref_info *refs = NULL;
    size_t n = 0, idx, count = 0;
    const delta_snapshot **snaps;
    SILT_RETURN_IF_ERROR(catalog_ref_list(b->s->cat, b->a, &refs, &n, err));
    snaps = arena_calloc(b->a, n + 1, sizeof(*snaps));
    if (snaps == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        if (strcmp(refs[idx].name, CATALOG_MAIN) == 0)
            continue;
        SILT_RETURN_IF_ERROR(ref_snapshot(b, refs[idx].name, path, &snaps[count], err));
        count += snaps[count] != NULL;
    }
    *out = snaps;
    *n_out = count;
    return SILT_OK;
}
