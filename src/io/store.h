/*
 * store.h - the object store interface every storage back end implements.
 *
 * A store is rooted at a location (a local directory, later an S3 prefix).
 * Keys are relative, '/'-separated paths below the root; a key that is
 * absolute, empty, or has a "." or ".." segment is refused with
 * SILT_INVALID, so nothing can escape the root.
 *
 * Operations (DESIGN.md, Storage): get (whole or a byte range), put,
 * put-if-absent, list (by prefix, in byte order, starting after a key),
 * delete, head, plus streaming writers for big files and open files for
 * repeated range reads. put-if-absent is the only primitive trusted for
 * atomicity: on local disk a temporary file, fsync, link() to the final
 * name (fails when it exists), fsync of the directory. A lost race returns
 * SILT_EXISTS and leaves the winner's content untouched; no partial file is
 * ever visible under a final name.
 *
 * Stores are thread-safe: several threads may use one store at once.
 */
#ifndef SILT_IO_STORE_H
#define SILT_IO_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

typedef struct io_store io_store;
typedef struct io_file io_file;
typedef struct io_writer io_writer;

typedef struct io_object_info {
    char *key;            /* owned by the listing or by the caller of io_head */
    int64_t size;         /* bytes */
    int64_t mtime_micros; /* last modification, microseconds since the epoch */
} io_object_info;

typedef struct io_listing {
    io_object_info *items; /* sorted by key, byte order */
    size_t count;
    size_t cap;
} io_listing;

#define IO_LISTING_INIT {NULL, 0, 0}

/* The put op's flags: bit 0 if_absent; IO_PUT_LAZY (local folders only, io_put_lazy): no fsyncs. */
#define IO_PUT_LAZY 2

/* Back-end operations; a store is a vtable plus its state. */
typedef struct io_store_ops {
    const char *scheme;
    silt_status (*get_range)(io_store *store, const char *key, int64_t offset, int64_t len,
                             buf *out, silt_error *err);
    silt_status (*put)(io_store *store, const char *key, const void *data, size_t len,
                       int if_absent, silt_error *err);
    silt_status (*list)(io_store *store, const char *prefix, const char *start_after,
                        int recursive, io_listing *out, silt_error *err);
    silt_status (*remove)(io_store *store, const char *key, silt_error *err);
    silt_status (*head)(io_store *store, const char *key, io_object_info *out, silt_error *err);
    silt_status (*open_file)(io_store *store, const char *key, io_file **out, silt_error *err);
    silt_status (*open_writer)(io_store *store, const char *key, io_writer **out,
                               silt_error *err);
    void (*destroy)(io_store *store);
} io_store_ops;

struct io_store {
    const io_store_ops *ops;
    char *root; /* the location as given, normalised (no trailing '/') */
};

/* A byte range of an open file. */
typedef struct io_range {
    int64_t offset;
    int64_t len;
} io_range;

/* An open object for repeated range reads (a Parquet file being scanned). */
typedef struct io_file_ops {
    silt_status (*read_at)(io_file *file, int64_t offset, size_t len, void *dst,
                           silt_error *err);
    void (*close)(io_file *file);
    /*
     * Optional (NULL: nothing to do): the ranges the next reads will ask for,
     * so that an object store fetches them at once, several in flight. Only
     * a hint: a range it could not fetch is read (and its error reported) by
     * read_at; it fails only with SILT_NOMEM.
     */
    silt_status (*prefetch)(io_file *file, const io_range *ranges, size_t n, silt_error *err);
} io_file_ops;

struct io_file {
    const io_file_ops *ops;
    int64_t size;
    char *key;
};

/* A streaming writer: bytes go to a hidden temporary object until commit. */
typedef struct io_writer_ops {
    silt_status (*write)(io_writer *w, const void *data, size_t len, silt_error *err);
    silt_status (*commit)(io_writer *w, int if_absent, silt_error *err);
    void (*abort)(io_writer *w);
} io_writer_ops;

struct io_writer {
    const io_writer_ops *ops;
    int64_t bytes_written;
    char *key;
};

/*
 * The local path of a file: URI as Spark writes and accepts them
 * ("file:/abs", "file:///abs", "file://localhost/abs" -> "/abs"), pointing
 * into location; any other location is returned as it is.
 */
const char *io_location_local_path(const char *location);

/*
 * A location qualified as Spark qualifies one when a table or database is
 * created: a file: URI becomes its path, a relative local path is joined to
 * base (an absolute folder; NULL: the current folder), "." and ".." parts
 * are resolved, and a trailing '/' is dropped. Other schemes (s3://, ...)
 * are returned as they are. The result is mem_alloc'd (mem_free); NULL when
 * out of memory or the current folder cannot be read.
 */
char *io_location_qualify(const char *location, const char *base);

/*
 * Opens a store at a location: a local path, a file:// URI or an S3 URI
 * (s3://, s3a://, s3n://). Creates the root directory when it does not
 * exist and create_root is set (local paths only: buckets have no folders).
 * Azure and GCS schemes are refused by name (SILT_UNSUPPORTED).
 */
silt_status io_store_open(io_store **out, const char *location, int create_root,
                          silt_error *err);
void io_store_free(io_store *store);
const char *io_store_root(const io_store *store);

/*
 * Options of a store's back end (credentials, endpoints, ...), as key/value
 * pairs; they live on the database (silt_db_set_option) and are passed to
 * every store opening.
 */
typedef struct io_store_options {
    const char *const *keys;
    const char *const *values;
    size_t n;
} io_store_options;

#define IO_STORE_OPTIONS_INIT {NULL, NULL, 0}

/*
 * SILT_OK when key is an option some back end of this build acts on, else
 * SILT_INVALID naming it. The local file system takes no options; the S3
 * back end takes fs.s3a.* keys (also spark.hadoop.fs.s3a.*), each value
 * checked (docs/object-storage.md lists them).
 */
silt_status io_store_check_option(const char *key, const char *value, silt_error *err);

/* io_store_open with the database's store options (NULL = none), each checked first. */
silt_status io_store_open_with(io_store **out, const char *location, int create_root,
                               const io_store_options *opts, silt_error *err);

/* SILT_INVALID unless key is a safe relative key (see above). */
silt_status io_check_key(const char *key, silt_error *err);

/* Reads a whole object into out (appended). SILT_NOTFOUND when absent. */
silt_status io_get(io_store *store, const char *key, buf *out, silt_error *err);
/*
 * Reads len bytes at offset into out (appended). Reading past the end is
 * SILT_INVALID with a message that names the object and its size.
 */
silt_status io_get_range(io_store *store, const char *key, int64_t offset, int64_t len, buf *out,
                         silt_error *err);
/* Writes an object atomically, replacing any previous content. */
silt_status io_put(io_store *store, const char *key, const void *data, size_t len,
                   silt_error *err);
/* Writes an object only if it does not exist; SILT_EXISTS when it does. */
silt_status io_put_if_absent(io_store *store, const char *key, const void *data, size_t len,
                             silt_error *err);
/*
 * io_put (if_absent 0) or io_put_if_absent (1) without making the object
 * durable: it is still published whole or not at all, so a crash of the
 * process (SIGKILL) never leaves it partial, but a crash of the machine may
 * lose it or leave it empty. For records that are cheaper to redo than to
 * sync (a stream's commits/N, which a replayed batch writes again). On
 * stores other than local folders it is io_put / io_put_if_absent.
 */
silt_status io_put_lazy(io_store *store, const char *key, const void *data, size_t len,
                        int if_absent, silt_error *err);
/*
 * Lists objects whose key starts with prefix and sorts after start_after
 * (NULL = from the beginning), in byte order. With recursive = 0 only the
 * objects directly in the prefix's folder are listed (no folders). Hidden
 * temporary objects of in-flight writes are never listed.
 */
silt_status io_list(io_store *store, const char *prefix, const char *start_after, int recursive,
                    io_listing *out, silt_error *err);
void io_listing_clear(io_listing *listing);
/* Appends a copy of key with its size and time (back ends building a listing). */
silt_status io_listing_add(io_listing *out, const char *key, int64_t size, int64_t mtime_micros,
                           silt_error *err);
/* Deletes an object; deleting a missing object is SILT_NOTFOUND. */
silt_status io_delete(io_store *store, const char *key, silt_error *err);
/* Size and time of an object; out->key is set to a copy of key (free with io_object_info_clear). */
silt_status io_head(io_store *store, const char *key, io_object_info *out, silt_error *err);
void io_object_info_clear(io_object_info *info);

silt_status io_file_open(io_store *store, const char *key, io_file **out, silt_error *err);
/* Reads exactly len bytes at offset; reading past the end is SILT_CORRUPT-free SILT_INVALID. */
silt_status io_file_read_at(io_file *file, int64_t offset, size_t len, void *dst,
                            silt_error *err);
void io_file_close(io_file *file);
/* Hints the ranges the next reads of file will ask for (io_file_ops.prefetch). */
silt_status io_file_prefetch(io_file *file, const io_range *ranges, size_t n, silt_error *err);

silt_status io_writer_open(io_store *store, const char *key, io_writer **out, silt_error *err);
silt_status io_writer_write(io_writer *w, const void *data, size_t len, silt_error *err);
/*
 * Publishes the object (if_absent: put-if-absent semantics) and frees the
 * writer. Its content is durable on return; its folder entry is made
 * durable by the next put on the store (see below).
 */
silt_status io_writer_commit(io_writer *w, int if_absent, silt_error *err);
/* Drops the temporary object and frees the writer. NULL is fine. */
void io_writer_abort(io_writer *w);

/* Joins two key parts with one '/' into an owned string (mem_free). NULL on OOM. */
char *io_key_join(const char *left, const char *right);

/*
 * Removes the folders left empty under the store's root, and the root itself
 * when nothing is left in it (a local store; other stores have no folders).
 * Never removes a file and never follows a symbolic link. Used after every
 * object of a dropped managed table was deleted.
 */
silt_status io_prune_empty_folders(io_store *store, silt_error *err);
/*
 * Removes the folders of key (a deleted object) that are left empty, from its
 * own folder up, stopping at the first that is not empty and never removing
 * the root (a local store; other stores have no folders). Only rmdir():
 * VACUUM's removal of emptied partition folders, as Delta's VACUUM does.
 */
silt_status io_prune_empty_parents(io_store *store, const char *key, silt_error *err);

/*
 * Every folder under the root of a local store (keys relative to the root,
 * sorted, with their times; symbolic links neither listed nor followed),
 * appended to out; nothing for object stores, which have no folders.
 * VACUUM lists them to delete the empty ones, as Delta's does.
 */
silt_status io_list_folders(io_store *store, io_listing *out, silt_error *err);
/* rmdir() of the folder key of a local store: 1 when it was empty and is gone, else 0. */
int io_remove_empty_folder(io_store *store, const char *key);

/*
 * The temporary files of writes that died before publishing (a killed writer's
 * `.silt-tmp-<pid>-...`, anywhere under the root, symlinked folders not followed) that are
 * provably dead: the pid is not a live process here and the file is over an hour old. Adds
 * them to out (keys relative to the root) and deletes them unless dry_run. VACUUM calls it;
 * a store that is not a local folder has none (out unchanged).
 */
silt_status io_sweep_dead_temps(io_store *store, int dry_run, io_listing *out, silt_error *err);

/*
 * Writers' folder fsyncs are deferred to the next put or put-if-absent on
 * the same store (or its free): a writer's object is durable, name
 * included, once a later put on the store has returned. Every Delta commit
 * is such a put (store_local.c says why).
 */

/*
 * S3 back end (s3://, s3a://, s3n://bucket/prefix): settings from opts
 * (fs.s3a.* keys; NULL = none), the AWS_* variables and ~/.aws profiles
 * (docs/object-storage.md). Buckets have no folders: nothing is created.
 */
silt_status io_s3_store_open(io_store **out, const char *location, const io_store_options *opts,
                             silt_error *err);

/* Local back end, also used directly by tests. */
silt_status io_local_store_open(io_store **out, const char *root_dir, int create_root,
                                silt_error *err);
/*
 * The local file system's root ("/") as a store, opened once and kept for the
 * life of the process (never freed): where the absolute paths a table's log
 * may name (a shallow clone's files, delta/scan.h delta_file_locate) are read.
 */
silt_status io_local_root_store(io_store **out, silt_error *err);
/* Folder fsyncs the local back end made so far in this process (tests). */
unsigned long io_local_folder_syncs(void);

/*
 * Fault-injecting store for tests: wraps inner (which it owns) and fails
 * the operations chosen in plan with SILT_IO, as a failing disk or network
 * would. Counting starts at 1: fail_write_nth = 3 fails the third write
 * (put, put-if-absent, writer commit) and every write after it when
 * fail_all_after is set.
 */
typedef struct io_fault_plan {
    unsigned version;
    long fail_write_nth; /* 0 = never */
    long fail_read_nth;  /* 0 = never (get, range reads, file reads) */
    int fail_all_after;  /* keep failing once the first failure happened */
    /*
     * 0 = never. The Nth write (counted with the others) is carried out on
     * the inner store and then reported as SILT_DURABILITY_UNKNOWN, as the
     * local store reports a folder fsync that failed after link().
     */
    long unsynced_write_nth;
} io_fault_plan;

#define IO_FAULT_PLAN_INIT {1, 0, 0, 0, 0}

silt_status io_fault_store_wrap(io_store **out, io_store *inner, const io_fault_plan *plan,
                                silt_error *err);
/* Number of write and read operations seen so far by a fault store. */
void io_fault_store_counts(const io_store *store, long *writes_out, long *reads_out);

#endif
