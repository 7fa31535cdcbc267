/*
 * refs.c - branches and tags: named logs of whole catalog states next to
 * main's (catalog_int.h), created, moved and dropped with put-if-absent.
 * docs/branches.md has the model; catalog.h the contract.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "catalog/catalog_int.h"
#include "delta/txn.h"
#include "util/mem.h"
#include "util/time.h"

#define REF_MAX_RETRIES 100

silt_status catalog_check_ref_name(const char *name, silt_error *err)
{
    const char *p;
    if (name == NULL || name[0] == '\0' || strlen(name) > 200)
        return err_set(err, SILT_INVALID, "reference name \"%s\" is not valid: it needs 1 to 200 "
                       "letters, digits, '_', '-' or '.'", name ? name : "");
    for (p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-' || *p == '.'))
            return err_set(err, SILT_INVALID, "reference name \"%s\" is not valid: only letters, "
                           "digits, '_', '-' and '.' may name a branch or tag", name);
    if (name[0] == '.')
        return err_set(err, SILT_INVALID, "reference name \"%s\" is not valid: it may not start "
                       "with '.'", name);
    return SILT_OK;
}

const char *catalog_current_ref(const catalog *cat) { return cat->ref ? cat->ref : CATALOG_MAIN; }
const char *catalog_current_hash(const catalog *cat) { return cat->hash; }

static silt_status not_found(const char *ref, silt_error *err)
{
    return err_set(err, SILT_NOTFOUND, "[REFERENCE_NOT_FOUND] Named reference '%s' not found", ref);
}

/* ---- a merge's pending commits (catalog.h, catalog_finish_pending) ------------------- */

silt_status catalog_state_set_pending(cat_state *state, const cat_pending *items, size_t n,
                                      silt_error *err)
{
    size_t idx;
    state->pending = arena_calloc(state->arena, n + 1, sizeof(cat_pending));
    if (state->pending == NULL)
        return err_nomem(err);
    for (idx = 0; idx < n; idx++) {
        cat_pending *p = &state->pending[idx];
        p->table = arena_strdup(state->arena, items[idx].table);
        p->location = arena_strdup(state->arena, items[idx].location);
        p->source = arena_strdup(state->arena, items[idx].source);
        p->version = items[idx].version;
        if (p->table == NULL || p->location == NULL || p->source == NULL)
            return err_nomem(err);
    }
    state->n_pending = n;
    return SILT_OK;
}

/* One pending commit into its table's log; already there with the same bytes is done. */
static silt_status copy_pending(catalog *cat, const cat_pending *p, silt_error *err)
{
    arena *a = arena_new(NULL, "pending commit");
    const char *path = a ? catalog_location_path(a, io_store_root(cat->store), p->location) : NULL;
    io_store *store = NULL;
    buf body = BUF_INIT, there = BUF_INIT;
    char key[64];
    silt_status rc = path == NULL            ? err_nomem(err)
                     : cat->open_store != NULL ? cat->open_store(cat->open_payload, path, &store, err)
                                               : io_store_open(&store, path, 0, err);
    snprintf(key, sizeof(key), "_delta_log/%020lld.json", (long long)p->version);
    if (rc == SILT_OK)
        rc = io_get(store, p->source, &body, err);
    if (rc == SILT_OK)
        rc = io_put_if_absent(store, key, body.data, body.len, err);
    if (rc == SILT_EXISTS) {
        err_clear(err);
        rc = io_get(store, key, &there, err);
        if (rc == SILT_OK &&
            (there.len != body.len || memcmp(there.data, body.data, body.len) != 0))
            rc = err_set(err, SILT_CONFLICT, "a merge into main could not complete: version %lld "
                         "of table %s was taken by another writer (the merge's commit is %s)",
                         (long long)p->version, p->table, p->source);
    }
    buf_clear(&body);
    buf_clear(&there);
    io_store_free(store);
    arena_free(a);
    return rc;
}

silt_status catalog_finish_pending(catalog *cat, silt_error *err)
{
    int attempt;
    for (attempt = 0; attempt < REF_MAX_RETRIES; attempt++) {
        int64_t newest;
        cat_state *state = NULL, *next = NULL;
        size_t idx;
        silt_status rc;
        SILT_RETURN_IF_ERROR(catalog_log_newest(cat, CATALOG_MAIN, &newest, err));
        SILT_RETURN_IF_ERROR(catalog_log_read(cat, CATALOG_MAIN, newest, &state, err));
        rc = SILT_OK;
        for (idx = 0; rc == SILT_OK && idx < state->n_pending; idx++)
            rc = copy_pending(cat, &state->pending[idx], err);
        if (rc == SILT_OK && state->n_pending > 0)
            rc = catalog_state_copy(state, &next, err); /* the copy has no pending commits */
        if (rc == SILT_OK && next != NULL) {
            const char *user = getenv("USER");
            next->commit.parent = arena_strdup(next->arena, state->hash);
            next->commit.author = arena_strdup(next->arena, user && *user ? user : "silt");
            next->commit.message = "finish merge";
            next->commit.time_ms = time_now_micros() / 1000;
            rc = catalog_log_publish(cat, CATALOG_MAIN, next, newest + 1, err);
        }
        catalog_state_free(state);
        catalog_state_free(next);
        if (rc == SILT_EXISTS) {
            err_clear(err);
            continue; /* someone else finished it (or committed after it): look again */
        }
        return rc;
    }
    return err_set(err, SILT_CONFLICT, "could not finish a merge into main: %d concurrent "
                   "changes won in a row", REF_MAX_RETRIES);
}

void catalog_set_store_opener(catalog *cat, cat_store_open_fn fn, void *payload)
{
    cat->open_store = fn;
    cat->open_payload = payload;
}

silt_status catalog_main_cap(catalog *cat, int64_t pinned, const char *location, int64_t *cap,
                             silt_error *err)
{
    int64_t v;
    *cap = -1;
    /* main's log grows by put-if-absent one version at a time: walk until the first gap */
    for (v = pinned + 1;; v++) {
        cat_state *state = NULL;
        size_t idx;
        silt_status rc = catalog_log_read(cat, CATALOG_MAIN, v, &state, err);
        if (rc == SILT_NOTFOUND) {
            err_clear(err);
            return SILT_OK;
        }
        SILT_RETURN_IF_ERROR(rc);
        for (idx = 0; idx < state->n_pending; idx++) {
            const cat_pending *p = &state->pending[idx];
            if (strcmp(p->location, location) == 0 && (*cap < 0 || p->version - 1 < *cap))
                *cap = p->version - 1;
        }
        catalog_state_free(state);
        if (*cap >= 0)
            return SILT_OK; /* the first later merge that touches the table bounds it */
    }
}

silt_status catalog_load_version(catalog *cat, const char *ref, int64_t version, cat_state **out,
                                 silt_error *err)
{
    return catalog_log_read(cat, catalog_is_main(ref) ? CATALOG_MAIN : ref, version, out, err);
}

/* A reference's head; dropped or never made: SILT_NOTFOUND. */
static silt_status load_head(catalog *cat, const char *ref, cat_state **out, silt_error *err)
{
    int64_t version;
    SILT_RETURN_IF_ERROR(catalog_log_newest(cat, ref, &version, err));
    if (version < 0 && !catalog_is_main(ref))
        return not_found(ref, err);
    SILT_RETURN_IF_ERROR(catalog_log_read(cat, ref, version, out, err));
    if ((*out)->n_pending > 0) {
        /* a merge's commits not copied yet (its writer died): finish it before reading */
        catalog_state_free(*out);
        *out = NULL;
        SILT_RETURN_IF_ERROR(catalog_finish_pending(cat, err));
        SILT_RETURN_IF_ERROR(catalog_log_newest(cat, ref, &version, err));
        SILT_RETURN_IF_ERROR(catalog_log_read(cat, ref, version, out, err));
    }
    if ((*out)->dropped) {
        catalog_state_free(*out);
        *out = NULL;
        return not_found(ref, err);
    }
    return SILT_OK;
}

/* 1 when hash (a full hash, or a prefix of 8 or more digits) names state. */
static int hash_matches(const cat_state *state, const char *hash)
{
    size_t len = strlen(hash);
    return len >= 8 && len <= 64 && strncmp(state->hash, hash, len) == 0;
}

/* The commit of ref whose hash is hash, searched from the head back. */
static silt_status load_at_hash(catalog *cat, const char *ref, const char *hash,
                                cat_state **out, silt_error *err)
{
    int64_t version;
    cat_state *head = NULL;
    SILT_RETURN_IF_ERROR(load_head(cat, ref, &head, err));
    version = head->version;
    if (hash_matches(head, hash)) {
        *out = head;
        return SILT_OK;
    }
    catalog_state_free(head);
    for (version--; version >= (catalog_is_main(ref) ? -1 : 0); version--) {
        cat_state *state = NULL;
        silt_status rc = catalog_log_read(cat, ref, version, &state, err);
        if (rc == SILT_NOTFOUND) {
            err_clear(err);
            continue;
        }
        SILT_RETURN_IF_ERROR(rc);
        if (hash_matches(state, hash) && !state->dropped) {
            *out = state;
            return SILT_OK;
        }
        catalog_state_free(state);
    }
    return err_set(err, SILT_NOTFOUND, "[REFERENCE_NOT_FOUND] Commit '%s' not found on "
                   "reference '%s'", hash, ref);
}

silt_status catalog_load_ref(catalog *cat, const char *ref, const char *hash, cat_state **out,
                             silt_error *err)
{
    if (ref == NULL) {
        ref = cat->ref;
        hash = cat->hash;
    }
    if (hash != NULL)
        return load_at_hash(cat, catalog_is_main(ref) ? CATALOG_MAIN : ref, hash, out, err);
    return load_head(cat, catalog_is_main(ref) ? CATALOG_MAIN : ref, out, err);
}

silt_status catalog_use_ref(catalog *cat, const char *ref, const char *hash, silt_error *err)
{
    cat_state *state = NULL;
    char *name = NULL, *pinned = NULL;
    if (!catalog_is_main(ref))
        SILT_RETURN_IF_ERROR(catalog_check_ref_name(ref, err));
    SILT_RETURN_IF_ERROR(catalog_load_ref(cat, catalog_is_main(ref) ? CATALOG_MAIN : ref, hash,
                                          &state, err));
    if (!catalog_is_main(ref) && (name = mem_strdup(ref)) == NULL)
        goto nomem;
    /* a pin is kept as the full hash, so that it names one commit however it was written */
    if (hash != NULL && (pinned = mem_strdup(state->hash)) == NULL)
        goto nomem;
    catalog_state_free(state);
    mem_free(cat->ref);
    mem_free(cat->hash);
    cat->ref = name;
    cat->hash = pinned;
    return SILT_OK;
nomem:
    mem_free(name);
    catalog_state_free(state);
    return err_nomem(err);
}

/* ---- creating, moving and dropping ---------------------------------------------------- */

typedef struct ref_change {
    cat_ref_type type;
    const char *name;
    const cat_state *source; /* the state the reference is set to */
    const char *message;
    char id[37];
} ref_change;

/* Pins each table of a main state at its current Delta version (cat_pin_fn). */
static silt_status pin_main_tables(cat_state *state, cat_pin_fn pin_fn, void *payload,
                                   silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < state->n_tables; idx++) {
        cat_table *t = &state->tables[idx];
        int64_t version = -1;
        if (t->kind == CAT_VIEW || t->on_ref)
            continue;
        if (t->provider == NULL || util_str_casecmp(t->provider, "delta") == 0)
            SILT_RETURN_IF_ERROR(pin_fn(t, &version, payload, err));
        t->on_ref = 1;
        t->fork = version;
        t->pin = version;
        t->n_segments = 0;
    }
    return SILT_OK;
}

/* The state a new head of `name` has: source's catalog under name's own identity. */
static silt_status head_from_source(const ref_change *c, const cat_state *prev,
                                    cat_state **out, silt_error *err)
{
    cat_state *state = NULL;
    const char *user = getenv("USER");
    SILT_RETURN_IF_ERROR(catalog_state_copy(c->source, &state, err));
    state->ref_name = arena_strdup(state->arena, c->name);
    state->ref_type = c->type;
    state->ref_id = arena_strdup(state->arena, c->id);
    state->base_version = c->source->ref_id == NULL ? c->source->version
                                                    : c->source->base_version;
    state->dropped = 0;
    state->commit.parent = prev ? arena_strdup(state->arena, prev->hash)
                                : arena_strdup(state->arena, c->source->hash);
    state->commit.author = arena_strdup(state->arena, user && *user ? user : "silt");
    state->commit.message = arena_strdup(state->arena, c->message);
    state->commit.time_ms = time_now_micros() / 1000;
    if (state->ref_name == NULL || state->ref_id == NULL || state->commit.message == NULL) {
        catalog_state_free(state);
        return err_nomem(err);
    }
    *out = state;
    return SILT_OK;
}

/* Loads the source of CREATE/ASSIGN: from (default main) at hash, with main's tables pinned. */
static silt_status load_source(catalog *cat, const char *from, const char *hash,
                               cat_pin_fn pin_fn, void *pin_payload, cat_state **out,
                               silt_error *err)
{
    silt_status rc;
    if (from == NULL)
        from = CATALOG_MAIN;
    SILT_RETURN_IF_ERROR(catalog_load_ref(cat, from, hash, out, err));
    rc = (*out)->ref_id == NULL ? pin_main_tables(*out, pin_fn, pin_payload, err) : SILT_OK;
    if (rc != SILT_OK) {
        catalog_state_free(*out);
        *out = NULL;
    }
    return rc;
}

/*
 * Publishes the next state of name's log: expect_live 0 for CREATE (the
 * name must be free: never made, or dropped), 1 for ASSIGN and DROP.
 */
static silt_status publish_ref(catalog *cat, ref_change *c, int expect_live, int drop,
                               cat_state **out, silt_error *err)
{
    int attempt;
    for (attempt = 0; attempt < REF_MAX_RETRIES; attempt++) {
        int64_t version;
        cat_state *prev = NULL, *next = NULL;
        silt_status rc;
        SILT_RETURN_IF_ERROR(catalog_log_newest(cat, c->name, &version, err));
        if (version >= 0)
            SILT_RETURN_IF_ERROR(catalog_log_read(cat, c->name, version, &prev, err));
        if ((prev != NULL && !prev->dropped) != expect_live) {
            rc = expect_live ? not_found(c->name, err)
                             : err_set(err, SILT_EXISTS, "[REFERENCE_ALREADY_EXISTS] Named "
                                       "reference '%s' already exists", c->name);
        } else if (expect_live && prev->ref_type != c->type) {
            rc = err_set(err, SILT_INVALID, "'%s' is a %s, not a %s", c->name,
                         prev->ref_type == CAT_REF_TAG ? "tag" : "branch",
                         c->type == CAT_REF_TAG ? "tag" : "branch");
        } else if (drop) {
            rc = catalog_state_copy(prev, &next, err);
            if (rc == SILT_OK) {
                next->dropped = 1;
                next->commit.parent = arena_strdup(next->arena, prev->hash);
                next->commit.message = "drop";
                next->commit.author = prev->commit.author;
                next->commit.time_ms = time_now_micros() / 1000;
            }
        } else {
            rc = head_from_source(c, prev, &next, err);
        }
        if (rc == SILT_OK)
            rc = catalog_log_publish(cat, c->name, next, version + 1, err);
        catalog_state_free(prev);
        if (rc == SILT_EXISTS && next != NULL) {
            catalog_state_free(next);
            err_clear(err);
            continue; /* someone else moved the reference first: look again */
        }
        if (rc == SILT_OK && out != NULL) {
            next->version = version + 1;
            *out = next;
        } else {
            catalog_state_free(next);
        }
        return rc;
    }
    return err_set(err, SILT_CONFLICT, "could not move reference '%s': %d concurrent changes "
                   "won in a row", c->name, REF_MAX_RETRIES);
}

silt_status catalog_ref_create(catalog *cat, cat_ref_type type, const char *name,
                               const char *from, const char *hash, int if_not_exists,
                               cat_pin_fn pin_fn, void *pin_payload, int *created,
                               cat_state **out, silt_error *err)
{
    ref_change c;
    cat_state *source = NULL;
    silt_status rc;
    *created = 0;
    if (catalog_is_main(name))
        return err_set(err, SILT_EXISTS, "[REFERENCE_ALREADY_EXISTS] Named reference '%s' "
                       "already exists", name);
    SILT_RETURN_IF_ERROR(catalog_check_ref_name(name, err));
    SILT_RETURN_IF_ERROR(load_source(cat, from, hash, pin_fn, pin_payload, &source, err));
    memset(&c, 0, sizeof(c));
    c.type = type;
    c.name = name;
    c.source = source;
    c.message = type == CAT_REF_TAG ? "create tag" : "create branch";
    rc = delta_uuid_v4(c.id, err);
    if (rc == SILT_OK)
        rc = publish_ref(cat, &c, 0, 0, out, err);
    catalog_state_free(source);
    if (rc == SILT_EXISTS && if_not_exists) {
        err_clear(err);
        return out ? catalog_load_ref(cat, name, NULL, out, err) : SILT_OK;
    }
    *created = rc == SILT_OK;
    return rc;
}

silt_status catalog_ref_drop(catalog *cat, cat_ref_type type, const char *name, int if_exists,
                             silt_error *err)
{
    ref_change c;
    silt_status rc;
    if (catalog_is_main(name))
        return err_set(err, SILT_INVALID, "the main branch cannot be dropped");
    SILT_RETURN_IF_ERROR(catalog_check_ref_name(name, err));
    memset(&c, 0, sizeof(c));
    c.type = type;
    c.name = name;
    rc = publish_ref(cat, &c, 1, 1, NULL, err);
    if (rc == SILT_NOTFOUND && if_exists) {
        err_clear(err);
        return SILT_OK;
    }
    return rc;
}

silt_status catalog_ref_assign(catalog *cat, cat_ref_type type, const char *name,
                               const char *to, const char *hash, cat_pin_fn pin_fn,
                               void *pin_payload, cat_state **out, silt_error *err)
{
    ref_change c;
    cat_state *source = NULL;
    silt_status rc;
    if (catalog_is_main(name))
        return err_set(err, SILT_UNSUPPORTED, "ASSIGN BRANCH main is not supported: main's "
                       "tables are their Delta logs, which only move forward; MERGE BRANCH "
                       "publishes into main");
    SILT_RETURN_IF_ERROR(catalog_check_ref_name(name, err));
    SILT_RETURN_IF_ERROR(load_source(cat, to, hash, pin_fn, pin_payload, &source, err));
    memset(&c, 0, sizeof(c));
    c.type = type;
    c.name = name;
    c.source = source;
    c.message = "assign";
    /* a new id: the branch's later commits start new segments, apart from its old ones */
    rc = delta_uuid_v4(c.id, err);
    if (rc == SILT_OK)
        rc = publish_ref(cat, &c, 1, 0, out, err);
    catalog_state_free(source);
    return rc;
}

/* ---- listing -------------------------------------------------------------------------- */

static int cmp_ref(const void *a, const void *b)
{
    return strcmp(((const cat_ref_info *)a)->name, ((const cat_ref_info *)b)->name);
}

/* The reference names under _silt_catalog/refs/, each once (the listing is sorted). */
static silt_status ref_names(catalog *cat, arena *a, char ***out, size_t *n_out, silt_error *err)
{
    io_listing listing = IO_LISTING_INIT;
    size_t idx, n = 0, plen = strlen(CATALOG_REFS_PREFIX);
    char **names;
    silt_status rc = io_list(cat->store, CATALOG_REFS_PREFIX, NULL, 1, &listing, err);
    if (rc == SILT_NOTFOUND) {
        err_clear(err);
        rc = SILT_OK;
    }
    names = rc == SILT_OK ? arena_calloc(a, listing.count + 1, sizeof(char *)) : NULL;
    if (rc == SILT_OK && names == NULL)
        rc = err_nomem(err);
    for (idx = 0; rc == SILT_OK && idx < listing.count; idx++) {
        const char *rest = listing.items[idx].key + plen, *slash = strchr(rest, '/');
        if (slash == NULL || (n > 0 && strlen(names[n - 1]) == (size_t)(slash - rest) &&
                              strncmp(names[n - 1], rest, (size_t)(slash - rest)) == 0))
            continue;
        if ((names[n++] = arena_strndup(a, rest, (size_t)(slash - rest))) == NULL)
            rc = err_nomem(err);
    }
    io_listing_clear(&listing);
    *out = names;
    *n_out = n;
    return rc;
}

silt_status catalog_ref_list(catalog *cat, arena *a, cat_ref_info **out, size_t *n_out,
                             silt_error *err)
{
    char **names = NULL;
    size_t n_names = 0, idx, n = 0;
    cat_ref_info *refs;
    cat_state *state = NULL;
    SILT_RETURN_IF_ERROR(ref_names(cat, a, &names, &n_names, err));
    refs = arena_calloc(a, n_names + 1, sizeof(*refs));
    if (refs == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(load_head(cat, CATALOG_MAIN, &state, err));
    refs[n].name = CATALOG_MAIN;
    refs[n].type = CAT_REF_BRANCH;
    memcpy(refs[n++].hash, state->hash, 65);
    catalog_state_free(state);
    for (idx = 0; idx < n_names; idx++) {
        silt_status rc = load_head(cat, names[idx], &state, err);
        if (rc == SILT_NOTFOUND) { /* dropped */
            err_clear(err);
            continue;
        }
        SILT_RETURN_IF_ERROR(rc);
        refs[n].name = names[idx];
        refs[n].type = state->ref_type;
        memcpy(refs[n++].hash, state->hash, 65);
        catalog_state_free(state);
    }
    qsort(refs, n, sizeof(*refs), cmp_ref);
    *out = refs;
    *n_out = n;
    return SILT_OK;
}

static silt_status copy_commit(arena *a, const cat_state *state, cat_log_entry *e,
                               silt_error *err)
{
    size_t idx;
    memcpy(e->hash, state->hash, 65);
    e->version = state->version;
    e->commit = state->commit;
    e->commit.parent = state->commit.parent ? arena_strdup(a, state->commit.parent) : NULL;
    e->commit.author = state->commit.author ? arena_strdup(a, state->commit.author) : NULL;
    e->commit.message = state->commit.message ? arena_strdup(a, state->commit.message) : NULL;
    e->commit.touched = arena_calloc(a, state->commit.n_touched + 1, sizeof(char *));
    if (e->commit.touched == NULL)
        return err_nomem(err);
    for (idx = 0; idx < state->commit.n_touched; idx++)
        if ((e->commit.touched[idx] = arena_strdup(a, state->commit.touched[idx])) == NULL)
            return err_nomem(err);
    return SILT_OK;
}

/*
 * Newest first, following the head's lineage: a reference's log back to
 * its creation (or last ASSIGN), then the reference it was made from is
 * not followed (its commits are its own log's).
 */
silt_status catalog_ref_log(catalog *cat, const char *ref, arena *a, cat_log_entry **out,
                            size_t *n_out, silt_error *err)
{
    int64_t newest, version;
    cat_log_entry *entries;
    size_t n = 0;
    cat_state *head = NULL;
    if (ref == NULL)
        ref = catalog_current_ref(cat);
    SILT_RETURN_IF_ERROR(load_head(cat, ref, &head, err));
    newest = head->version;
    catalog_state_free(head);
    entries = arena_calloc(a, (size_t)(newest + 2), sizeof(*entries));
    if (entries == NULL)
        return err_nomem(err);
    for (version = newest; version >= 0; version--) {
        cat_state *state = NULL;
        silt_status rc = catalog_log_read(cat, ref, version, &state, err);
        if (rc == SILT_NOTFOUND) {
            err_clear(err);
            continue;
        }
        SILT_RETURN_IF_ERROR(rc);
        if (state->dropped) { /* an older life of the name */
            catalog_state_free(state);
            break;
        }
        rc = copy_commit(a, state, &entries[n++], err);
        catalog_state_free(state);
        SILT_RETURN_IF_ERROR(rc);
    }
    *out = entries;
    *n_out = n;
    return SILT_OK;
}
