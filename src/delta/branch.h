/*
 * branch.h - a Delta table as a branch or tag of the catalog sees it
 * (docs/branches.md): the table's own `_delta_log/` up to the fork, then
 * branch-local commits kept in `_delta_log/_staged_commits/` (the layout the
 * Delta spec gives catalog-managed tables), which plain Delta readers never
 * list.
 *
 * The view is a store that wraps the table's store: it lists `_delta_log/`
 * as the reference has it (main's entries up to the fork, then each staged
 * `<v>.<id>.<rest>` as `_delta_log/<v>.<rest>`), reads those names from the
 * staged files, and sends the writes of new log versions to staged names of
 * the reference's own id with put-if-absent. So snapshots, time travel,
 * history, conflict checks and retries of the delta layer work unchanged on
 * a branch, and no byte of main's log is ever written or deleted through it.
 * Data files are written where main's are; main's log never names them.
 *
 * The staged put-if-absent of `<v>.<id>.json` is the commit point of a
 * branch-local Delta commit, as `_delta_log/<v>.json` is on main; the catalog
 * records the new version afterwards (on_commit). A head view (follow_own)
 * also reads own commits past the recorded last, so a writer that died
 * between the two loses nothing and blocks no later commit.
 */
#ifndef SILT_DELTA_BRANCH_H
#define SILT_DELTA_BRANCH_H

#include <stddef.h>
#include <stdint.h>

#include "io/store.h"
#include "util/error.h"

#define DELTA_BRANCH_STAGED_DIR "_delta_log/_staged_commits/"

typedef struct delta_branch_segment {
    const char *id;
    int64_t last;
} delta_branch_segment;

typedef struct delta_branch_view {
    const char *ref_name; /* for messages */
    int64_t fork;         /* newest version of `_delta_log/` in the chain; -1: none */
    int64_t pin;          /* read-only views: newest version seen (-1: the chain's) */
    size_t n_segments;
    const delta_branch_segment *segments;
    const char *own_id;   /* the reference's id: where writes go; NULL = read-only */
    int follow_own;       /* a head: own commits past the recorded last count too */
    /* Called after each branch-local commit (version v) was published; may be NULL. */
    void (*on_commit)(void *payload, int64_t version);
    void *payload;
} delta_branch_view;

/* Wraps inner (owned from now on, freed with the wrapper) in view (copied). */
silt_status delta_branch_store_wrap(io_store **out, io_store *inner, const delta_branch_view *view,
                               silt_error *err);
/* 1 when store is a branch view. */
int delta_branch_store_is(const io_store *store);
/* The store under a branch view (store itself when it is none). */
io_store *delta_branch_store_inner(io_store *store);

/* The key version v's commit is read from on a branch view (a staged key past the fork). */
silt_status delta_branch_store_source_key(io_store *store, int64_t version, char *out, size_t cap,
                                     silt_error *err);

/* The staged key of version v of a reference id: `_delta_log/_staged_commits/<v>.<id>.<rest>`. */
void delta_branch_staged_key(int64_t version, const char *id, const char *rest, char *out,
                        size_t cap);
/*
 * Parses a staged name (the part after DELTA_BRANCH_STAGED_DIR): version, id
 * (copied into id_out, 64 bytes) and the rest ("json", "crc", ...). 0 when
 * it is not one.
 */
int delta_branch_parse_staged(const char *name, int64_t *version, char *id_out, const char **rest);

#endif
