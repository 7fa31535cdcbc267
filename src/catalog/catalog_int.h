/*
 * catalog_int.h - what catalog.c shares with refs.c: the per-reference logs
 * of whole states. Main's log is `_silt_catalog/log/`, a branch's or tag's
 * `_silt_catalog/refs/<name>/`; both hold `<20-digit version>.json` states
 * published with put-if-absent, so moving a reference is a compare-and-swap.
 */
#ifndef SILT_CATALOG_INT_H
#define SILT_CATALOG_INT_H

#include "catalog/catalog.h"

struct catalog {
    io_store *store;
    char *ref;  /* reference in use; NULL = main */
    char *hash; /* pinned commit of it; NULL = head */
    /* opens a table's store with the session's options (NULL: plain io_store_open) */
    cat_store_open_fn open_store;
    void *open_payload;
};

#define CATALOG_REFS_PREFIX "_silt_catalog/refs/"

int catalog_is_main(const char *ref);
/* Newest version of a reference's log (-1: none). */
silt_status catalog_log_newest(catalog *cat, const char *ref, int64_t *out, silt_error *err);
/* One state of a reference's log (version -1: main's initial state). SILT_NOTFOUND if absent. */
silt_status catalog_log_read(catalog *cat, const char *ref, int64_t version, cat_state **out,
                             silt_error *err);
/* Publishes state as version `next` of ref's log with put-if-absent (SILT_EXISTS: lost). */
silt_status catalog_log_publish(catalog *cat, const char *ref, cat_state *state, int64_t next,
                                silt_error *err);
silt_status catalog_new_state(cat_state **out, silt_error *err);
/* A deep copy of src's tables, databases and reference fields into a new state. */
silt_status catalog_state_copy(const cat_state *src, cat_state **out, silt_error *err);

#endif
