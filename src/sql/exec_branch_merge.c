/*
 * exec_branch_merge.c - MERGE BRANCH b [INTO main] [DRY RUN] (docs/branches.md, "Merging").
 *
 * Each Delta table the branch changed is judged on its own:
 *   - main's log has not moved since the fork: fast-forward, the branch's
 *     commits become main's next versions as they are (history kept);
 *   - main moved: the branch's net file changes (files added, files removed
 *     since the fork) are one Delta transaction that read main at the fork,
 *     committed with the delta layer's own conflict checks against main's
 *     commits since (blind appends never conflict; a branch that rewrote a
 *     file main also removed is ConcurrentDeleteDeleteException, ...);
 *   - created on the branch: its commits become the table's log;
 *   - dropped on main and changed on the branch: a conflict.
 * Nothing reaches main's logs while the tables are judged: a rebased commit is
 * written as a staged file of the merge's own id. Then main's catalog takes
 * one commit naming every table version to publish ("pending"), the merge's
 * publish point: before it nothing happened, after it the merge is done, and
 * whoever loads main next finishes copying what a killed merge left.
 */
#include <string.h>

#include "delta/branch.h"
#include "delta/log.h"
#include "delta/snapshot.h"
#include "delta/txn.h"
#include "sql/exec.h"
#include "util/hashmap.h"

typedef struct merge_table {
    const cat_table *bt;
    const char *display; /* db.t */
    const char *action;  /* fast-forward, commit, create */
    const char *conflict;
    int64_t fork, tip, main_version, first, last; /* first..last: main's new versions */
    /* what main already has of the table: the branch's version base_branch is main's
     * base_main (the fork, or a main merge record: catalog.h cat_merged) */
    int64_t base_branch, base_main;
    int recorded;
    /* into a branch: the target's new chain for the table (fork, segments) */
    int64_t new_fork;
    cat_segment *new_segments;
    size_t n_new_segments;
} merge_table;

typedef struct merge_ctx {
    binder *b;
    const char *branch;
    const char *into; /* the target: main or a branch */
    int to_main;
    cat_state *bstate, *mstate, *base; /* into a branch: mstate is the target's head */
    char merge_id[37];
    merge_table *tables;
    size_t n_tables;
    cat_pending *pending;
    size_t n_pending, cap_pending;
} merge_ctx;

static void free_store_cb(void *p) { io_store_free(p); }
static void free_snap_cb(void *p) { delta_snapshot_free(p); }

static silt_status keep_store(binder *b, io_store *store, silt_error *err)
{
    if (arena_on_cleanup(b->a, free_store_cb, store) == 0) {
        io_store_free(store);
        return err_nomem(err);
    }
    return SILT_OK;
}

static silt_status load_snap(binder *b, io_store *store, int64_t version, delta_snapshot **out,
                             silt_error *err)
{
    SILT_RETURN_IF_ERROR(delta_snapshot_load(out, store, version, err));
    if (arena_on_cleanup(b->a, free_snap_cb, *out) == 0) {
        delta_snapshot_free(*out);
        return err_nomem(err);
    }
    return SILT_OK;
}

static silt_status add_pending(merge_ctx *m, const merge_table *t, int64_t version,
                               const char *source, silt_error *err)
{
    if (m->n_pending == m->cap_pending) {
        size_t cap = m->cap_pending ? m->cap_pending * 2 : 16;
        cat_pending *grown = arena_realloc(m->b->a, m->pending, m->cap_pending * sizeof(*grown),
                                           cap * sizeof(*grown));
        if (grown == NULL)
            return err_nomem(err);
        m->pending = grown;
        m->cap_pending = cap;
    }
    m->pending[m->n_pending].table = t->display;
    m->pending[m->n_pending].location = t->bt->location;
    m->pending[m->n_pending].version = version;
    m->pending[m->n_pending].source = arena_strdup(m->b->a, source);
    if (m->pending[m->n_pending].source == NULL)
        return err_nomem(err);
    m->n_pending++;
    return SILT_OK;
}

/* The table's path and its newest version on main (-1: no log). */
static silt_status main_version(binder *b, const char *path, int64_t *out, silt_error *err)
{
    io_store *store = NULL;
    dlog_listing listing = DLOG_LISTING_INIT;
    silt_error scratch = SILT_ERROR_INIT;
    silt_status rc = sql_session_store_open(b->s, path, 0, &store, &scratch);
    *out = -1;
    if (rc == SILT_NOTFOUND || rc == SILT_IO)
        return SILT_OK;
    if (rc != SILT_OK)
        return err_set(err, rc, "%s", scratch.message);
    rc = dlog_list(&listing, store, -1, err);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        rc = SILT_OK;
    } else if (rc == SILT_OK) {
        *out = listing.latest_version;
    }
    dlog_listing_clear(&listing);
    io_store_free(store);
    return rc;
}

/* Fast-forward: versions from..to of the branch become main's as they are. */
static silt_status fast_forward(merge_ctx *m, merge_table *t, io_store *bstore, int64_t from,
                                silt_error *err)
{
    int64_t v;
    t->first = from;
    t->last = t->tip;
    for (v = from; v <= t->tip; v++) {
        char key[256];
        SILT_RETURN_IF_ERROR(delta_branch_store_source_key(bstore, v, key, sizeof(key), err));
        SILT_RETURN_IF_ERROR(add_pending(m, t, v, key, err));
    }
    return SILT_OK;
}

static int same_metadata(const dlog_metadata *a, const dlog_metadata *b)
{
    size_t idx;
    if (strcmp(a->schema_string, b->schema_string) != 0 ||
        a->n_partition_columns != b->n_partition_columns ||
        a->configuration.n != b->configuration.n)
        return 0;
    for (idx = 0; idx < a->configuration.n; idx++) {
        const char *other = dlog_map_get(&b->configuration, a->configuration.items[idx].key, NULL);
        const char *mine = a->configuration.items[idx].value;
        if ((mine == NULL) != (other == NULL) || (mine != NULL && strcmp(mine, other) != 0))
            return 0;
    }
    return 1;
}

static void note_version(void *payload, int64_t version) { *(int64_t *)payload = version; }

/* The same file with the same deletion vector: a DV-only change is a remove and an add. */
static int same_file(const delta_file *a, const delta_file *b)
{
    const dlog_dv *x = &a->dv, *y = &b->dv;
    if (x->storage_type != y->storage_type)
        return 0;
    if (x->storage_type == 0)
        return 1;
    return x->offset == y->offset && x->size_in_bytes == y->size_in_bytes &&
           x->cardinality == y->cardinality && x->path_or_inline_dv != NULL &&
           y->path_or_inline_dv != NULL && strcmp(x->path_or_inline_dv, y->path_or_inline_dv) == 0;
}

static int kept_in(const hashmap *other, const delta_file *f)
{
    const delta_file *there = hashmap_get_str(other, f->path);
    return there != NULL && same_file(there, f);
}

/* The branch's net changes as one transaction that read main at the fork. */
static silt_status stage_changes(delta_txn *txn, const delta_snapshot *base,
                                 const delta_snapshot *tip, buf *removed, silt_error *err)
{
    hashmap in_base = HASHMAP_INIT, in_tip = HASHMAP_INIT;
    size_t idx;
    silt_status rc = SILT_OK;
    for (idx = 0; rc == SILT_OK && idx < base->n_files; idx++)
        rc = hashmap_put_str(&in_base, base->files[idx].path, (void *)&base->files[idx], err);
    for (idx = 0; rc == SILT_OK && idx < tip->n_files; idx++)
        rc = hashmap_put_str(&in_tip, tip->files[idx].path, (void *)&tip->files[idx], err);
    for (idx = 0; rc == SILT_OK && idx < tip->n_files; idx++) {
        const delta_file *f = &tip->files[idx];
        dlog_add add;
        if (kept_in(&in_base, f))
            continue;
        memset(&add, 0, sizeof(add));
        add.path = f->path;
        add.partition_values = f->partition_values;
        add.size = f->size;
        add.modification_time = f->modification_time;
        add.data_change = 1;
        add.stats = f->stats;
        add.dv = f->dv;
        rc = delta_txn_add_file(txn, &add, err);
    }
    for (idx = 0; rc == SILT_OK && idx < base->n_files; idx++) {
        const delta_file *f = &base->files[idx];
        if (kept_in(&in_tip, f))
            continue;
        /* the branch rewrote f: it read f and its partition, as its UPDATE/DELETE did */
        rc = delta_txn_read_file(txn, f->path, err);
        if (rc == SILT_OK)
            rc = delta_txn_read_partition(txn, &f->partition_values, err);
        if (rc == SILT_OK)
            rc = delta_txn_remove_file(txn, f, 1, err);
        if (rc == SILT_OK)
            rc = buf_printf(removed, err, "%s%s", removed->len ? ", " : "", f->path);
    }
    if (rc == SILT_OK && !same_metadata(&base->metadata, &tip->metadata))
        rc = delta_txn_set_metadata(txn, &tip->metadata, err);
    if (rc == SILT_OK && (base->protocol.min_reader_version != tip->protocol.min_reader_version ||
                          base->protocol.min_writer_version != tip->protocol.min_writer_version))
        rc = delta_txn_set_protocol(txn, &tip->protocol, err);
    hashmap_clear(&in_base);
    hashmap_clear(&in_tip);
    return rc;
}

/*
 * The branch's net changes since its base (tip against the table's base on
 * the target, or against the branch's recorded base when an earlier merge
 * took part of it) staged as one commit through the target's view, judged
 * by Delta's conflict rules. A conflict is no error: it is kept in
 * t->conflict (naming the files the branch rewrote) and nothing is
 * committed; otherwise t->first and t->last are the committed version.
 */
static silt_status commit_on_view(merge_ctx *m, merge_table *t, const char *path,
                                  io_store *bstore, const delta_snapshot *tip,
                                  delta_branch_view *view, int64_t *committed, silt_error *err)
{
    binder *b = m->b;
    io_store *store = NULL;
    delta_snapshot *base = NULL, *from = NULL;
    delta_txn *txn = NULL;
    buf removed = BUF_INIT;
    silt_status rc;
    view->on_commit = note_version;
    view->payload = committed;
    SILT_RETURN_IF_ERROR(sql_session_store_open(b->s, path, 0, &store, err));
    SILT_RETURN_IF_ERROR(delta_branch_store_wrap(&store, store, view, err));
    SILT_RETURN_IF_ERROR(keep_store(b, store, err));
    SILT_RETURN_IF_ERROR(load_snap(b, store, t->base_main, &base, err));
    from = base;
    if (t->recorded) /* the target's base_main holds the branch's base_branch: diff from there */
        SILT_RETURN_IF_ERROR(load_snap(b, bstore, t->base_branch, &from, err));
    rc = delta_txn_begin(&txn, store, base, "MERGE BRANCH", err);
    if (rc == SILT_OK)
        rc = delta_txn_set_param(txn, "branch", m->branch, err);
    if (rc == SILT_OK)
        rc = stage_changes(txn, from, tip, &removed, err);
    if (rc == SILT_OK)
        rc = delta_txn_commit(txn, NULL, err);
    delta_txn_free(txn);
    if (rc == SILT_CONFLICT) {
        t->conflict = arena_sprintf(b->a, "%s (files the branch rewrote: %s)", err->message,
                                    removed.len ? buf_cstr(&removed) : "none");
        buf_clear(&removed);
        err_clear(err);
        return t->conflict ? SILT_OK : err_nomem(err);
    }
    buf_clear(&removed);
    SILT_RETURN_IF_ERROR(rc);
    t->first = t->last = *committed;
    return SILT_OK;
}

/* Main moved: one new commit on main, judged by Delta's conflict rules. */
static silt_status rebase(merge_ctx *m, merge_table *t, const char *path, io_store *bstore,
                          const delta_snapshot *tip, silt_error *err)
{
    delta_branch_view view;
    int64_t committed = -1;
    char key[256];
    memset(&view, 0, sizeof(view));
    view.ref_name = CATALOG_MAIN;
    view.fork = t->main_version; /* main's log as it is; the merge's commit goes to a staged name */
    view.pin = -1;
    view.own_id = m->merge_id;
    view.follow_own = 1;
    SILT_RETURN_IF_ERROR(commit_on_view(m, t, path, bstore, tip, &view, &committed, err));
    if (t->conflict != NULL)
        return SILT_OK;
    delta_branch_staged_key(committed, m->merge_id, "json", key, sizeof(key));
    return add_pending(m, t, committed, key, err);
}

/* Databases made on the branch come with it; one the branch dropped since `base` goes too. */
static silt_status merge_databases(const cat_state *bstate, const cat_state *base,
                                   cat_state *state, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < bstate->n_databases; idx++)
        if (catalog_state_find_database(state, bstate->databases[idx].name) == NULL)
            SILT_RETURN_IF_ERROR(catalog_state_add_database(state, &bstate->databases[idx], err));
    for (idx = 0; base != NULL && idx < base->n_databases; idx++) {
        const char *name = base->databases[idx].name;
        if (catalog_state_find_database(bstate, name) == NULL &&
            catalog_state_find_database(state, name) != NULL)
            SILT_RETURN_IF_ERROR(catalog_state_drop_database(state, name, 0, err));
    }
    return SILT_OK;
}

/* ---- MERGE BRANCH b INTO another branch ------------------------------------------- */

static int64_t chain_last(const cat_table *t)
{
    return t->n_segments > 0 ? t->segments[t->n_segments - 1].last : t->fork;
}

/* The newest version two chains of one table share: main's log up to the smaller fork, then
 * the runs of staged commits both hold under the same reference id. */
static int64_t chain_ancestor(const cat_table *x, const cat_table *y)
{
    int64_t anc;
    size_t idx;
    if (x->fork != y->fork)
        return x->fork < y->fork ? x->fork : y->fork;
    anc = x->fork;
    for (idx = 0; idx < x->n_segments && idx < y->n_segments; idx++) {
        const cat_segment *a = &x->segments[idx], *b = &y->segments[idx];
        if (strcmp(a->id, b->id) != 0)
            break;
        anc = a->last < b->last ? a->last : b->last;
        if (a->last != b->last)
            break;
    }
    return anc;
}

/* A chain as recorded, extended to `tip` with id's staged commits a head view saw unrecorded. */
static silt_status chain_to(arena *a, const cat_table *t, const char *id, int64_t tip,
                            cat_segment **out, size_t *n_out, silt_error *err)
{
    size_t n = t->n_segments;
    cat_segment *segs = arena_calloc(a, n + 2, sizeof(*segs));
    if (segs == NULL)
        return err_nomem(err);
    if (n > 0)
        memcpy(segs, t->segments, n * sizeof(*segs));
    if (tip > chain_last(t)) {
        if (n > 0 && strcmp(segs[n - 1].id, id) == 0)
            segs[n - 1].last = tip;
        else {
            segs[n].id = id;
            segs[n++].last = tip;
        }
    }
    *out = segs;
    *n_out = n;
    return SILT_OK;
}

/* The target branch's newest version of a table, its own unrecorded commits included. */
static silt_status target_tip(merge_ctx *m, const char *path, const cat_table *ct, int64_t *out,
                              silt_error *err)
{
    binder *b = m->b;
    delta_branch_view *view = NULL;
    io_store *store = NULL;
    dlog_listing listing = DLOG_LISTING_INIT;
    silt_status rc;
    *out = -1;
    SILT_RETURN_IF_ERROR(sql_branch_view(b, m->mstate, ct, 0, &view, NULL, err));
    if (view == NULL)
        return err_set(err, SILT_INVALID, "table %s.%s is not on branch %s", ct->database,
                       ct->name, m->into);
    view->own_id = m->mstate->ref_id;
    view->follow_own = 1;
    SILT_RETURN_IF_ERROR(sql_session_store_open(b->s, path, 0, &store, err));
    SILT_RETURN_IF_ERROR(sql_branch_wrap(view, &store, err));
    SILT_RETURN_IF_ERROR(keep_store(b, store, err));
    rc = dlog_list(&listing, store, -1, err);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        rc = SILT_OK;
    } else if (rc == SILT_OK) {
        *out = listing.latest_version;
    }
    dlog_listing_clear(&listing);
    return rc;
}

/* The target moved: the branch's changes as one commit on the target, judged by Delta's rules
 * against the target's commits since base_main, staged under the merge's id (invisible to the
 * target's readers until its catalog records it with the other tables). */
static silt_status rebase_into_branch(merge_ctx *m, merge_table *t, const char *path,
                                      const cat_table *ct, int64_t ttip, io_store *bstore,
                                      const delta_snapshot *tip, silt_error *err)
{
    binder *b = m->b;
    delta_branch_view view;
    delta_branch_segment *vsegs;
    int64_t committed = -1;
    size_t idx;
    SILT_RETURN_IF_ERROR(chain_to(b->a, ct, m->mstate->ref_id, ttip, &t->new_segments,
                                  &t->n_new_segments, err));
    vsegs = arena_calloc(b->a, t->n_new_segments + 1, sizeof(*vsegs));
    if (vsegs == NULL)
        return err_nomem(err);
    for (idx = 0; idx < t->n_new_segments; idx++) {
        vsegs[idx].id = t->new_segments[idx].id;
        vsegs[idx].last = t->new_segments[idx].last;
    }
    memset(&view, 0, sizeof(view));
    view.ref_name = m->into;
    view.fork = ct->fork;
    view.pin = -1;
    view.segments = vsegs;
    view.n_segments = t->n_new_segments;
    view.own_id = m->merge_id;
    view.follow_own = 1;
    SILT_RETURN_IF_ERROR(commit_on_view(m, t, path, bstore, tip, &view, &committed, err));
    if (t->conflict != NULL)
        return SILT_OK;
    t->new_fork = ct->fork;
    /* the merge's commit is one more run of the target's chain */
    t->new_segments[t->n_new_segments].id = arena_strdup(b->a, m->merge_id);
    t->new_segments[t->n_new_segments++].last = committed;
    return t->new_segments[t->n_new_segments - 1].id ? SILT_OK : err_nomem(err);
}

static silt_status judge_into_branch(merge_ctx *m, merge_table *t, const char *path,
                                     io_store *bstore, const delta_snapshot *tip, silt_error *err)
{
    const cat_table *bt = t->bt;
    const cat_table *ct = catalog_state_find_table(m->mstate, bt->database, bt->name);
    const cat_merged *rec = catalog_state_find_merged(m->mstate, m->branch, m->bstate->ref_id,
                                                      t->display);
    int64_t anc = -1, ttip = -1;
    if (ct != NULL && ct->kind != CAT_VIEW && ct->on_ref)
        anc = chain_ancestor(bt, ct);
    t->recorded = rec != NULL;
    t->base_branch = rec ? rec->tip : anc;
    t->base_main = rec ? rec->main : anc;
    if (t->base_branch >= 0 && t->tip == t->base_branch)
        return SILT_OK; /* nothing the target does not hold already */
    if (ct == NULL && bt->fork < 0 && !rec) {
        t->action = "create";
        t->first = 0;
        t->last = t->tip;
        t->new_fork = -1;
        return chain_to(m->b->a, bt, m->bstate->ref_id, t->tip, &t->new_segments,
                        &t->n_new_segments, err);
    }
    if (ct == NULL || ct->kind == CAT_VIEW || !ct->on_ref) {
        t->action = "commit";
        t->conflict = arena_sprintf(m->b->a, "the table was dropped on %s and changed on the "
                                    "branch", m->into);
        return t->conflict ? SILT_OK : err_nomem(err);
    }
    SILT_RETURN_IF_ERROR(target_tip(m, path, ct, &ttip, err));
    t->main_version = ttip;
    if (!rec && ttip == anc) {
        /* the target has not moved: it takes the branch's chain as it is (no file copied) */
        t->action = "fast-forward";
        t->first = anc + 1;
        t->last = t->tip;
        t->new_fork = bt->fork;
        return chain_to(m->b->a, bt, m->bstate->ref_id, t->tip, &t->new_segments,
                        &t->n_new_segments, err);
    }
    t->action = "commit";
    return rebase_into_branch(m, t, path, ct, ttip, bstore, tip, err);
}

/* Tables the branch dropped that the target still holds: those its log touched and its head
 * no longer has. */
static silt_status drop_into_branch(merge_ctx *m, cat_state *state, silt_error *err)
{
    cat_log_entry *log = NULL;
    size_t n = 0, idx, k;
    SILT_RETURN_IF_ERROR(catalog_ref_log(m->b->s->cat, m->branch, m->b->a, &log, &n, err));
    for (idx = 0; idx < n; idx++)
        for (k = 0; k < log[idx].commit.n_touched; k++) {
            const char *full = log[idx].commit.touched[k], *dot = strchr(full, '.');
            char *db;
            if (dot == NULL || (db = arena_strndup(m->b->a, full, (size_t)(dot - full))) == NULL)
                continue;
            if (catalog_state_find_table(m->bstate, db, dot + 1) == NULL &&
                catalog_state_find_table(state, db, dot + 1) != NULL)
                SILT_RETURN_IF_ERROR(catalog_state_drop_table(state, db, dot + 1, err));
        }
    return SILT_OK;
}

/* The catalog change that publishes a merge into a branch: one commit of the target. */
static silt_status publish_into_branch(cat_state *state, void *payload, silt_error *err)
{
    merge_ctx *m = payload;
    size_t idx;
    if (state->version != m->mstate->version || state->ref_id == NULL ||
        strcmp(state->ref_id, m->mstate->ref_id) != 0)
        return err_set(err, SILT_CONFLICT, "branch %s changed while MERGE BRANCH %s ran; "
                       "nothing was published: run it again", m->into, m->branch);
    SILT_RETURN_IF_ERROR(merge_databases(m->bstate, NULL, state, err));
    for (idx = 0; idx < m->n_tables; idx++) {
        const merge_table *t = &m->tables[idx];
        cat_table entry;
        cat_merged rec;
        if (t->action == NULL)
            continue;
        rec.branch = m->branch;
        rec.id = m->bstate->ref_id;
        rec.table = t->display;
        rec.tip = t->tip;
        rec.main = t->last;
        SILT_RETURN_IF_ERROR(catalog_state_set_merged(state, &rec, err));
        if (strcmp(t->action, "create") == 0) {
            entry = *t->bt;
        } else {
            const cat_table *ct = catalog_state_find_table(state, t->bt->database, t->bt->name);
            if (ct == NULL)
                return err_set(err, SILT_CONFLICT, "table %s was dropped on %s while MERGE "
                               "BRANCH %s ran: run it again", t->display, m->into, m->branch);
            entry = *ct;
        }
        entry.on_ref = 1;
        entry.fork = t->new_fork;
        entry.pin = -1;
        entry.segments = t->new_segments;
        entry.n_segments = t->n_new_segments;
        if (strcmp(t->action, "create") == 0)
            SILT_RETURN_IF_ERROR(catalog_state_add_table(state, &entry, err));
        else
            SILT_RETURN_IF_ERROR(catalog_state_replace_table(state, &entry, err));
    }
    SILT_RETURN_IF_ERROR(drop_into_branch(m, state, err));
    for (idx = 0; idx < m->bstate->n_tables; idx++) {
        const cat_table *v = &m->bstate->tables[idx];
        const cat_table *there = catalog_state_find_table(state, v->database, v->name);
        if (v->kind != CAT_VIEW)
            continue;
        if (there == NULL)
            SILT_RETURN_IF_ERROR(catalog_state_add_table(state, v, err));
        else if (there->kind == CAT_VIEW)
            SILT_RETURN_IF_ERROR(catalog_state_replace_table(state, v, err));
    }
    state->commit.message = arena_sprintf(state->arena, "merge branch %s", m->branch);
    return state->commit.message ? SILT_OK : err_nomem(err);
}

/*
 * A table the branch did not change since what the target holds of it, told without loading
 * it: its recorded chain ends where the target's base is, and the branch's own id has no
 * unrecorded staged commit after that (a head view would follow one at last + 1). A
 * 1,000-table branch with a few changed tables then costs a few snapshot loads, not 1,000.
 */
static int unchanged_fast(merge_ctx *m, const cat_table *bt, const char *display,
                          io_store *store)
{
    const cat_merged *rec = catalog_state_find_merged(m->mstate, m->branch, m->bstate->ref_id,
                                                      display);
    const cat_table *ct = catalog_state_find_table(m->mstate, bt->database, bt->name);
    int64_t last = chain_last(bt), base;
    io_object_info info;
    silt_error scratch = SILT_ERROR_INIT;
    char key[256];
    if (rec != NULL)
        base = rec->tip;
    else if (m->to_main)
        base = bt->fork;
    else if (ct != NULL && ct->kind != CAT_VIEW && ct->on_ref)
        base = chain_ancestor(bt, ct);
    else
        return 0;
    if (base < 0 || last != base || m->bstate->ref_id == NULL)
        return 0;
    delta_branch_staged_key(last + 1, m->bstate->ref_id, "json", key, sizeof(key));
    if (io_head(store, key, &info, &scratch) == SILT_NOTFOUND)
        return 1;
    err_clear(&scratch);
    return 0;
}

/* One table of the branch: unchanged (action NULL), a conflict, or its pending commits. */
static silt_status judge_table(merge_ctx *m, const cat_table *bt, merge_table *t, silt_error *err)
{
    binder *b = m->b;
    const char *path = catalog_location_path(b->a, io_store_root(b->s->warehouse), bt->location);
    const cat_table *mt = catalog_state_find_table(m->mstate, bt->database, bt->name);
    delta_branch_view *view = NULL;
    io_store *bstore = NULL;
    delta_snapshot *tip = NULL;
    silt_error scratch = SILT_ERROR_INIT;
    silt_status rc;
    memset(t, 0, sizeof(*t));
    t->bt = bt;
    t->fork = bt->fork;
    t->display = arena_sprintf(b->a, "%s.%s", bt->database, bt->name);
    if (path == NULL || t->display == NULL)
        return err_nomem(err);
    rc = sql_session_store_open(b->s, path, 0, &bstore, &scratch);
    if (rc == SILT_NOTFOUND || rc == SILT_IO)
        return SILT_OK; /* nothing was ever written */
    if (rc != SILT_OK)
        return err_set(err, rc, "%s", scratch.message);
    if (unchanged_fast(m, bt, t->display, bstore)) {
        io_store_free(bstore);
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(sql_branch_view(b, m->bstate, bt, 1, &view, NULL, err));
    SILT_RETURN_IF_ERROR(sql_branch_wrap(view, &bstore, err));
    SILT_RETURN_IF_ERROR(keep_store(b, bstore, err));
    rc = load_snap(b, bstore, -1, &tip, err);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(rc);
    t->tip = tip->version;
    if (!m->to_main)
        return judge_into_branch(m, t, path, bstore, tip, err);
    {
        const cat_merged *rec = catalog_state_find_merged(m->mstate, m->branch,
                                                          m->bstate->ref_id, t->display);
        t->recorded = rec != NULL;
        t->base_branch = rec ? rec->tip : bt->fork;
        t->base_main = rec ? rec->main : bt->fork;
    }
    if (t->base_branch >= 0 && t->tip == t->base_branch)
        return SILT_OK; /* not changed on the branch since the fork or its last merge */
    SILT_RETURN_IF_ERROR(main_version(b, path, &t->main_version, err));
    if (bt->fork < 0 && !t->recorded) {
        t->action = "create";
        if (mt != NULL || t->main_version >= 0) {
            t->conflict = "the table was created on the branch and also on main";
            return SILT_OK;
        }
        return fast_forward(m, t, bstore, 0, err);
    }
    if (mt == NULL || mt->kind == CAT_VIEW) {
        t->action = "commit";
        t->conflict = "the table was dropped on main and changed on the branch";
        return SILT_OK;
    }
    if (!t->recorded && t->main_version == bt->fork) {
        t->action = "fast-forward";
        return fast_forward(m, t, bstore, bt->fork + 1, err);
    }
    t->action = "commit";
    return rebase(m, t, path, bstore, tip, err);
}

/* The catalog change that publishes the merge on main. */
static silt_status publish_change(cat_state *state, void *payload, silt_error *err)
{
    merge_ctx *m = payload;
    size_t idx;
    if (state->version != m->mstate->version)
        return err_set(err, SILT_CONFLICT, "main's catalog changed while MERGE BRANCH %s ran; "
                       "nothing was published: run it again", m->branch);
    for (idx = 0; idx < m->n_tables; idx++) {
        /* a table's log that moved since it was judged: the merge must be judged again */
        const merge_table *t = &m->tables[idx];
        int64_t now = -1;
        if (t->action == NULL)
            continue;
        SILT_RETURN_IF_ERROR(main_version(m->b, catalog_location_path(m->b->a,
                             io_store_root(m->b->s->warehouse), t->bt->location), &now, err));
        if (now != t->main_version)
            return err_set(err, SILT_CONFLICT, "table %s moved on main while MERGE BRANCH %s "
                           "ran; nothing was published: run it again", t->display, m->branch);
    }
    SILT_RETURN_IF_ERROR(merge_databases(m->bstate, NULL, state, err));
    for (idx = 0; idx < m->n_tables; idx++) {
        const merge_table *t = &m->tables[idx];
        cat_merged rec;
        if (t->action == NULL)
            continue;
        /* how far the branch is in main now, whether or not the branch restarts from it */
        rec.branch = m->branch;
        rec.id = m->bstate->ref_id;
        rec.table = t->display;
        rec.tip = t->tip;
        rec.main = t->last;
        SILT_RETURN_IF_ERROR(catalog_state_set_merged(state, &rec, err));
        if (strcmp(t->action, "create") == 0) {
            cat_table entry = *t->bt;
            entry.on_ref = 0;
            entry.fork = entry.pin = -1;
            entry.n_segments = 0;
            entry.segments = NULL;
            SILT_RETURN_IF_ERROR(catalog_state_add_table(state, &entry, err));
        }
    }
    /* tables (and views) dropped on the branch since it was made */
    for (idx = 0; idx < m->base->n_tables; idx++) {
        const cat_table *old = &m->base->tables[idx];
        if (catalog_state_find_table(m->bstate, old->database, old->name) == NULL &&
            catalog_state_find_table(state, old->database, old->name) != NULL)
            SILT_RETURN_IF_ERROR(catalog_state_drop_table(state, old->database, old->name, err));
    }
    /* views made or changed on the branch */
    for (idx = 0; idx < m->bstate->n_tables; idx++) {
        const cat_table *v = &m->bstate->tables[idx];
        const cat_table *there = catalog_state_find_table(state, v->database, v->name);
        if (v->kind != CAT_VIEW)
            continue;
        if (there == NULL)
            SILT_RETURN_IF_ERROR(catalog_state_add_table(state, v, err));
        else if (there->kind == CAT_VIEW)
            SILT_RETURN_IF_ERROR(catalog_state_replace_table(state, v, err));
    }
    SILT_RETURN_IF_ERROR(merge_databases(m->bstate, m->base, state, err));
    state->commit.message = arena_sprintf(state->arena, "merge branch %s", m->branch);
    if (state->commit.message == NULL)
        return err_nomem(err);
    return catalog_state_set_pending(state, m->pending, m->n_pending, err);
}

static silt_status dry_run_rows(merge_ctx *m, exec_out *out, silt_error *err)
{
    static const char *const cols[] = {"table", "action", "versions", "conflict"};
    const char **cells = arena_calloc(m->b->a, 4 * m->n_tables + 1, sizeof(char *));
    size_t idx, rows = 0;
    if (cells == NULL)
        return err_nomem(err);
    for (idx = 0; idx < m->n_tables; idx++) {
        const merge_table *t = &m->tables[idx];
        if (t->action == NULL)
            continue;
        cells[4 * rows] = t->display;
        cells[4 * rows + 1] = t->action;
        cells[4 * rows + 2] = t->conflict ? "" : arena_sprintf(m->b->a, "%lld..%lld",
                                                               (long long)t->first,
                                                               (long long)t->last);
        cells[4 * rows++ + 3] = t->conflict ? t->conflict : "";
    }
    return sql_exec_strings_op(m->b->a, m->b->ctx, cols, 4, cells, rows, &out->schema, &out->op,
                               err);
}

static silt_status conflicts_error(merge_ctx *m, silt_error *err)
{
    buf text = BUF_INIT;
    size_t idx;
    silt_status rc;
    for (idx = 0; idx < m->n_tables; idx++)
        if (m->tables[idx].conflict != NULL)
            buf_printf(&text, NULL, "%s%s: %s", text.len ? "; " : "", m->tables[idx].display,
                       m->tables[idx].conflict);
    if (text.len == 0)
        return SILT_OK;
    rc = err_set(err, SILT_CONFLICT, "MERGE BRANCH %s INTO %s conflicts, nothing was "
                 "published: %s", m->branch, m->into, buf_cstr(&text));
    buf_clear(&text);
    return rc;
}

static silt_status merge_tables(merge_ctx *m, silt_error *err)
{
    size_t idx;
    m->tables = arena_calloc(m->b->a, m->bstate->n_tables + 1, sizeof(merge_table));
    if (m->tables == NULL)
        return err_nomem(err);
    for (idx = 0; idx < m->bstate->n_tables; idx++) {
        const cat_table *bt = &m->bstate->tables[idx];
        if (bt->kind == CAT_VIEW || !bt->on_ref ||
            (bt->provider != NULL && util_str_casecmp(bt->provider, "delta") != 0))
            continue;
        SILT_RETURN_IF_ERROR(judge_table(m, bt, &m->tables[m->n_tables++], err));
    }
    return SILT_OK;
}

static silt_status run_merge(merge_ctx *m, const sql_stmt *stmt, exec_out *out, silt_error *err)
{
    static const char *const cols[] = {"name", "hash"};
    const char **cells;
    cat_state *after = NULL;
    silt_status rc;
    SILT_RETURN_IF_ERROR(delta_uuid_v4(m->merge_id, err));
    SILT_RETURN_IF_ERROR(merge_tables(m, err));
    if (stmt->u.ref.dry_run)
        return dry_run_rows(m, out, err);
    SILT_RETURN_IF_ERROR(conflicts_error(m, err));
    if (!m->to_main) {
        /* one commit of the target's catalog publishes every table at once */
        SILT_RETURN_IF_ERROR(catalog_commit_ref(m->b->s->cat, m->into, publish_into_branch, m,
                                                NULL, err));
        SILT_RETURN_IF_ERROR(catalog_load_ref(m->b->s->cat, m->into, NULL, &after, err));
        cells = arena_calloc(m->b->a, 2, sizeof(char *));
        rc = cells ? SILT_OK : err_nomem(err);
        if (rc == SILT_OK) {
            cells[0] = m->into;
            cells[1] = arena_strdup(m->b->a, after->hash);
        }
        catalog_state_free(after);
        SILT_RETURN_IF_ERROR(rc);
        return sql_exec_strings_op(m->b->a, m->b->ctx, cols, 2, cells, 1, &out->schema,
                                   &out->op, err);
    }
    SILT_RETURN_IF_ERROR(catalog_commit_ref(m->b->s->cat, CATALOG_MAIN, publish_change, m, NULL,
                                            err));
    /* published: from here the merge is done; copying its commits finishes it */
    SILT_RETURN_IF_ERROR(catalog_finish_pending(m->b->s->cat, err));
    /* The branch stays as it is (as Nessie's): main's merge record says how far it is in main.
     * Moving it to main's new versions under a new id would race with a writer whose staged
     * commit is not recorded in the branch yet: that commit would be lost. */
    SILT_RETURN_IF_ERROR(catalog_load_ref(m->b->s->cat, CATALOG_MAIN, NULL, &after, err));
    cells = arena_calloc(m->b->a, 2, sizeof(char *));
    rc = cells ? SILT_OK : err_nomem(err);
    if (rc == SILT_OK) {
        cells[0] = CATALOG_MAIN;
        cells[1] = arena_strdup(m->b->a, after->hash);
    }
    catalog_state_free(after);
    SILT_RETURN_IF_ERROR(rc);
    return sql_exec_strings_op(m->b->a, m->b->ctx, cols, 2, cells, 1, &out->schema, &out->op,
                               err);
}

silt_status sql_exec_merge_branch(binder *b, const sql_stmt *stmt, exec_out *out,
                                  silt_error *err)
{
    merge_ctx m;
    silt_status rc;
    memset(&m, 0, sizeof(m));
    m.b = b;
    if (stmt->u.ref.name.n_parts != 1)
        return err_set(err, SILT_INVALID, "MERGE BRANCH needs a branch name");
    m.branch = stmt->u.ref.name.parts[0].name;
    if (stmt->u.ref.into.n_parts > 1)
        return err_set(err, SILT_INVALID, "MERGE BRANCH %s INTO needs one reference name",
                       m.branch);
    m.into = stmt->u.ref.into.n_parts == 1 ? stmt->u.ref.into.parts[0].name : CATALOG_MAIN;
    m.to_main = strcmp(m.into, CATALOG_MAIN) == 0;
    if (strcmp(m.branch, CATALOG_MAIN) == 0)
        return err_set(err, SILT_UNSUPPORTED, "MERGE BRANCH main INTO %s is not supported: "
                       "silt merges branches (main is merged into a branch by ASSIGN or by "
                       "creating it again)", m.into);
    if (strcmp(m.branch, m.into) == 0)
        return err_set(err, SILT_INVALID, "MERGE BRANCH %s INTO %s merges nothing", m.branch,
                       m.into);
    SILT_RETURN_IF_ERROR(catalog_load_ref(b->s->cat, m.branch, NULL, &m.bstate, err));
    rc = m.bstate->ref_type == CAT_REF_TAG
             ? err_set(err, SILT_INVALID, "'%s' is a tag: MERGE BRANCH merges branches", m.branch)
             : SILT_OK;
    if (rc == SILT_OK)
        rc = catalog_load_ref(b->s->cat, m.into, NULL, &m.mstate, err);
    if (rc == SILT_OK && !m.to_main && m.mstate->ref_type == CAT_REF_TAG)
        rc = err_set(err, SILT_INVALID, "'%s' is a tag: MERGE BRANCH merges into branches",
                     m.into);
    if (rc == SILT_OK)
        rc = catalog_load_version(b->s->cat, CATALOG_MAIN, m.bstate->base_version, &m.base, err);
    if (rc == SILT_OK)
        rc = run_merge(&m, stmt, out, err);
    catalog_state_free(m.bstate);
    catalog_state_free(m.mstate);
    catalog_state_free(m.base);
    return rc;
}
