/*
 * fuzz_store.h - the object store of the targets that read their input as
 * a file (CSV, JSON): a fresh folder, on tmpfs when there is one, removed
 * with the input file at exit. Each target is one .c file, so this header
 * holds the definitions.
 */
#ifndef SILT_FUZZ_STORE_H
#define SILT_FUZZ_STORE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/store.h"

static char fuzz_store_dir[64];
static const char *fuzz_store_key;

/* Leaves no folder behind in /dev/shm or /tmp. */
static void fuzz_store_remove(void)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", fuzz_store_dir, fuzz_store_key);
    unlink(path);
    rmdir(fuzz_store_dir);
}

/*
 * The store, opened on the first call in a folder named after the target;
 * key is the one file the target puts there. NULL when no folder could be
 * made.
 */
static io_store *fuzz_store(const char *target, const char *key)
{
    static io_store *store;
    silt_error err = SILT_ERROR_INIT;
    if (store == NULL) {
        /* tmpfs when there is one: the store syncs every put, which is free there */
        char *dir;
        snprintf(fuzz_store_dir, sizeof(fuzz_store_dir), "/dev/shm/silt-fuzz-%s-XXXXXX", target);
        dir = mkdtemp(fuzz_store_dir);
        if (dir == NULL) {
            snprintf(fuzz_store_dir, sizeof(fuzz_store_dir), "/tmp/silt-fuzz-%s-XXXXXX", target);
            dir = mkdtemp(fuzz_store_dir);
        }
        if (dir != NULL && io_store_open(&store, dir, 0, &err) == SILT_OK) {
            fuzz_store_key = key;
            atexit(fuzz_store_remove);
        }
    }
    return store;
}

#endif
