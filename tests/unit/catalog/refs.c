/* Unit tests of catalog references: branches, tags, hashes, the commit log, races. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "test.h"

static io_store *store;
static catalog *cat;
static silt_error err;

void test_catalog_refs__initialize(void)
{
    err_clear(&err);
    check_ok(io_store_open(&store, test_tmpdir(), 0, &err), &err);
    check_ok(catalog_open(&cat, store, &err), &err);
}

void test_catalog_refs__cleanup(void)
{
    catalog_free(cat);
    io_store_free(store);
}

static silt_status add_view(cat_state *state, void *payload, silt_error *e)
{
    cat_table table;
    memset(&table, 0, sizeof(table));
    table.database = "default";
    table.name = payload;
    table.kind = CAT_VIEW;
    table.view_text = "SELECT 1";
    return catalog_state_add_table(state, &table, e);
}

static silt_status add_delta(cat_state *state, void *payload, silt_error *e)
{
    cat_table table;
    memset(&table, 0, sizeof(table));
    table.database = "default";
    table.name = payload;
    table.kind = CAT_MANAGED;
    table.provider = "DELTA";
    table.location = catalog_default_table_location(state->arena, "default", payload);
    return catalog_state_add_table(state, &table, e);
}

/* Every Delta table of main is at version 7 (no table folder needed). */
static silt_status pin_seven(const cat_table *t, int64_t *version, void *payload, silt_error *e)
{
    *version = 7;
    return SILT_OK;
}

static int has_table(const cat_state *s, const char *name)
{
    return catalog_state_find_table(s, "default", name) != NULL;
}

void test_catalog_refs__branch_is_a_copy_that_moves_alone(void)
{
    cat_state *state = NULL;
    int created = 0;
    const cat_table *t;
    check_ok(catalog_commit(cat, add_delta, "t", NULL, &err), &err);
    check_ok(catalog_ref_create(cat, CAT_REF_BRANCH, "dev", NULL, NULL, 0, pin_seven, NULL,
                                &created, NULL, &err), &err);
    check_int(1, created);
    check_ok(catalog_commit_ref(cat, "dev", add_view, "v", NULL, &err), &err);
    /* main does not see the branch's view; the branch does, and its table is pinned */
    check_ok(catalog_load(cat, &state, &err), &err);
    check(!has_table(state, "v"));
    catalog_state_free(state);
    check_ok(catalog_load_ref(cat, "dev", NULL, &state, &err), &err);
    check(has_table(state, "v"));
    t = catalog_state_find_table(state, "default", "t");
    check(t != NULL && t->on_ref);
    check_int(7, t->fork);
    check_int(7, t->pin);
    check_str("dev", state->ref_name);
    catalog_state_free(state);
    /* and a commit on main is not seen on the branch */
    check_ok(catalog_commit(cat, add_view, "w", NULL, &err), &err);
    check_ok(catalog_load_ref(cat, "dev", NULL, &state, &err), &err);
    check(!has_table(state, "w"));
    catalog_state_free(state);
}

void test_catalog_refs__create_twice_and_if_not_exists(void)
{
    int created = 1;
    check_ok(catalog_ref_create(cat, CAT_REF_BRANCH, "b", NULL, NULL, 0, pin_seven, NULL,
                                &created, NULL, &err), &err);
    check_fails(SILT_EXISTS, catalog_ref_create(cat, CAT_REF_TAG, "b", NULL, NULL, 0, pin_seven,
                                                NULL, &created, NULL, &err));
    check_contains(err.message, "REFERENCE_ALREADY_EXISTS");
    err_clear(&err);
    check_ok(catalog_ref_create(cat, CAT_REF_BRANCH, "b", NULL, NULL, 1, pin_seven, NULL,
                                &created, NULL, &err), &err);
    check_int(0, created);
    check_fails(SILT_EXISTS, catalog_ref_create(cat, CAT_REF_BRANCH, "main", NULL, NULL, 0,
                                                pin_seven, NULL, &created, NULL, &err));
    err_clear(&err);
    check_fails(SILT_INVALID, catalog_ref_create(cat, CAT_REF_BRANCH, "a/b", NULL, NULL, 0,
                                                 pin_seven, NULL, &created, NULL, &err));
    err_clear(&err);
    check_fails(SILT_NOTFOUND, catalog_ref_create(cat, CAT_REF_BRANCH, "c", "nope", NULL, 0,
                                                  pin_seven, NULL, &created, NULL, &err));
    check_contains(err.message, "REFERENCE_NOT_FOUND");
}

void test_catalog_refs__tags_are_read_only_and_drop_keeps_main(void)
{
    int created = 0;
    cat_state *state = NULL;
    check_ok(catalog_commit(cat, add_view, "v", NULL, &err), &err);
    check_ok(catalog_ref_create(cat, CAT_REF_TAG, "t1", NULL, NULL, 0, pin_seven, NULL, &created,
                                NULL, &err), &err);
    check_fails(SILT_INVALID, catalog_commit_ref(cat, "t1", add_view, "w", NULL, &err));
    err_clear(&err);
    /* DROP of the wrong type is refused by name */
    check_fails(SILT_INVALID, catalog_ref_drop(cat, CAT_REF_BRANCH, "t1", 0, &err));
    err_clear(&err);
    check_ok(catalog_ref_drop(cat, CAT_REF_TAG, "t1", 0, &err), &err);
    check_fails(SILT_NOTFOUND, catalog_load_ref(cat, "t1", NULL, &state, &err));
    err_clear(&err);
    check_fails(SILT_NOTFOUND, catalog_ref_drop(cat, CAT_REF_TAG, "t1", 0, &err));
    err_clear(&err);
    check_ok(catalog_ref_drop(cat, CAT_REF_TAG, "t1", 1, &err), &err);
    check_fails(SILT_INVALID, catalog_ref_drop(cat, CAT_REF_BRANCH, "main", 0, &err));
    err_clear(&err);
    check_ok(catalog_load(cat, &state, &err), &err);
    check(has_table(state, "v"));
    catalog_state_free(state);
    /* the name can be made again; its log starts after the tombstone */
    check_ok(catalog_ref_create(cat, CAT_REF_BRANCH, "t1", NULL, NULL, 0, pin_seven, NULL,
                                &created, &state, &err), &err);
    check_int(2, state->version);
    catalog_state_free(state);
}

void test_catalog_refs__hashes_log_and_listing(void)
{
    int created = 0;
    cat_state *head = NULL, *old = NULL;
    cat_ref_info *refs = NULL;
    cat_log_entry *log = NULL;
    size_t n = 0;
    char first[65], prefix[9];
    arena *a = arena_new(NULL, "test");
    check_ok(catalog_ref_create(cat, CAT_REF_BRANCH, "dev", NULL, NULL, 0, pin_seven, NULL,
                                &created, &head, &err), &err);
    memcpy(first, head->hash, sizeof(first));
    check_int(64, strlen(first));
    catalog_state_free(head);
    check_ok(catalog_commit_ref(cat, "dev", add_view, "v", NULL, &err), &err);
    check_ok(catalog_ref_log(cat, "dev", a, &log, &n, &err), &err);
    check_int(2, n);
    check_str(first, log[1].hash);
    check_str(first, log[0].commit.parent);
    check_str("update default.v", log[0].commit.message);
    check_int(1, log[0].commit.n_touched);
    check_str("default.v", log[0].commit.touched[0]);
    /* a hash (or 8+ digits of it) names that commit; the head has moved on */
    memcpy(prefix, first, 8);
    prefix[8] = '\0';
    check_ok(catalog_load_ref(cat, "dev", prefix, &old, &err), &err);
    check(!has_table(old, "v"));
    check_str(first, old->hash);
    catalog_state_free(old);
    check_fails(SILT_NOTFOUND, catalog_load_ref(cat, "dev", "00000000", &old, &err));
    err_clear(&err);
    check_ok(catalog_ref_list(cat, a, &refs, &n, &err), &err);
    check_int(2, n);
    check_str("dev", refs[0].name);
    check_str(log[0].hash, refs[0].hash);
    check_str("main", refs[1].name);
    check_str("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", refs[1].hash);
    arena_free(a);
}

void test_catalog_refs__use_pins_and_assign_moves(void)
{
    int created = 0;
    cat_state *state = NULL;
    char at[65];
    check_ok(catalog_ref_create(cat, CAT_REF_BRANCH, "dev", NULL, NULL, 0, pin_seven, NULL,
                                &created, &state, &err), &err);
    memcpy(at, state->hash, sizeof(at));
    catalog_state_free(state);
    check_ok(catalog_use_ref(cat, "dev", NULL, &err), &err);
    check_str("dev", catalog_current_ref(cat));
    check_ok(catalog_commit(cat, add_view, "v", NULL, &err), &err); /* lands on dev */
    check_ok(catalog_use_ref(cat, "dev", at, &err), &err);
    check_fails(SILT_INVALID, catalog_commit(cat, add_view, "w", NULL, &err));
    err_clear(&err);
    check_ok(catalog_load(cat, &state, &err), &err);
    check(!has_table(state, "v"));
    catalog_state_free(state);
    check_ok(catalog_use_ref(cat, NULL, NULL, &err), &err);
    check_ok(catalog_load(cat, &state, &err), &err);
    check(!has_table(state, "v"));
    catalog_state_free(state);
    /* ASSIGN dev TO main: dev's view is gone */
    check_ok(catalog_ref_assign(cat, CAT_REF_BRANCH, "dev", NULL, NULL, pin_seven, NULL, NULL,
                                &err), &err);
    check_ok(catalog_load_ref(cat, "dev", NULL, &state, &err), &err);
    check(!has_table(state, "v"));
    catalog_state_free(state);
    check_fails(SILT_NOTFOUND, catalog_use_ref(cat, "nope", NULL, &err));
}

#define WRITERS 4

void test_catalog_refs__concurrent_branch_writers_lose_nothing(void)
{
    pid_t pids[WRITERS * 2];
    int idx, created = 0;
    cat_state *state = NULL;
    const char *root = test_tmpdir();
    check_ok(catalog_ref_create(cat, CAT_REF_BRANCH, "b0", NULL, NULL, 0, pin_seven, NULL,
                                &created, NULL, &err), &err);
    check_ok(catalog_ref_create(cat, CAT_REF_BRANCH, "b1", NULL, NULL, 0, pin_seven, NULL,
                                &created, NULL, &err), &err);
    for (idx = 0; idx < WRITERS * 2; idx++) {
        pids[idx] = fork();
        check(pids[idx] >= 0);
        if (pids[idx] == 0) {
            io_store *s = NULL;
            catalog *c = NULL;
            silt_error e = SILT_ERROR_INIT;
            char name[32];
            int view;
            if (io_store_open(&s, root, 0, &e) != SILT_OK || catalog_open(&c, s, &e) != SILT_OK)
                _exit(2);
            for (view = 0; view < 4; view++) {
                snprintf(name, sizeof(name), "v_%d_%d", idx, view);
                if (catalog_commit_ref(c, idx % 2 ? "b1" : "b0", add_view, name, NULL, &e) !=
                    SILT_OK)
                    _exit(3);
            }
            _exit(0);
        }
    }
    for (idx = 0; idx < WRITERS * 2; idx++) {
        int status = 0;
        check(waitpid(pids[idx], &status, 0) == pids[idx]);
        check(WIFEXITED(status));
        check_int(0, WEXITSTATUS(status));
    }
    check_ok(catalog_load_ref(cat, "b0", NULL, &state, &err), &err);
    check_int(WRITERS * 4, state->n_tables);
    catalog_state_free(state);
    check_ok(catalog_load_ref(cat, "b1", NULL, &state, &err), &err);
    check_int(WRITERS * 4, state->n_tables);
    catalog_state_free(state);
    check_ok(catalog_load(cat, &state, &err), &err);
    check_int(0, state->n_tables);
    catalog_state_free(state);
}
