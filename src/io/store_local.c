/*
 * store_local.c - the object store on a local file system.
 *
 * Atomic publication: every write goes to a hidden temporary file in the
 * destination folder (".silt-tmp-..."), is fsynced, then published with
 * link() for put-if-absent (fails with EEXIST when the name is taken, so two
 * processes can never both win) or rename() for put, and finally the folder
 * is fsynced so the new name survives a crash. A crash at any point leaves at
 * most an orphaned temporary file, never a partial file under a final name.
 * Temporary files are never listed.
 *
 * Folder fsyncs of streaming writers are deferred: a writer's content is
 * fsynced before its link() as always, but the folder that received the
 * new name (and the parent of a folder created for it) is only recorded,
 * and synced before the next put or put-if-absent on the store publishes
 * its object (or when the store is freed). A Delta commit is such a put,
 * so the data files it names are durable, names included, before the
 * commit is; what changes is that the folder fsyncs come together, after
 * one file fsync already committed the file system's journal, instead of
 * alternating with the file fsyncs (ext4: each of those alternations was a
 * journal commit of its own; a 10-partition append went from 22 fsyncs to
 * 12 journal commits). Writers also buffer small writes (WRITE_BUF bytes):
 * the Parquet writer hands over every page header and footer piece alone.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "io/store.h"
#include "util/mem.h"
#include "util/time.h"

#define TMP_PREFIX ".silt-tmp-"
/* A temporary file is provably dead when the process named in it is gone and it is older
 * than this (the age keeps it safe against a pid reused meanwhile, or a writer on another
 * machine sharing the folder, whose pid means nothing here). */
#define TMP_DEAD_AFTER_S (60 * 60)
#define WRITE_BUF (64 * 1024)
#define SWEEP_FOLDERS_MAX 1024

typedef struct local_store {
    io_store base;
    pthread_mutex_t sync_mutex; /* guards the pending folders and their flush */
    char **pending_dirs;        /* folders to fsync before the next put publishes */
    size_t n_pending;
    size_t cap_pending;
    char **swept_dirs; /* folders whose dead temp files were swept (sweep_once); sync_mutex */
    size_t n_swept;
    size_t cap_swept;
} local_store;

typedef struct local_file {
    io_file base;
    int fd;
} local_file;

typedef struct local_writer {
    io_writer base;
    local_store *store;
    char *wbuf; /* WRITE_BUF bytes not yet written */
    size_t wlen;
    int fd;
    char *tmp_path;
    char *final_path;
} local_writer;

static atomic_ulong tmp_counter;
static atomic_ulong folder_syncs; /* for tests: io_local_folder_syncs */

static char *full_path(const io_store *store, const char *key)
{
    return io_key_join(store->root, key);
}

static silt_status errno_status(silt_error *err, int errnum, const char *what, const char *path)
{
    silt_status code = (errnum == ENOENT || errnum == ENOTDIR) ? SILT_NOTFOUND
                     : (errnum == ENOMEM)                    ? SILT_NOMEM
                                                             : SILT_IO;
    return err_set(err, code, "could not %s \"%s\": %s", what, path, strerror(errnum));
}

unsigned long io_local_folder_syncs(void) { return atomic_load(&folder_syncs); }

static silt_status fsync_dir(const char *dir_path, silt_error *err)
{
    int fd = open(dir_path, O_RDONLY | O_DIRECTORY);
    atomic_fetch_add(&folder_syncs, 1);
    if (fd < 0)
        return errno_status(err, errno, "open folder", dir_path);
    if (fsync(fd) != 0 && errno != EINVAL) {
        int saved = errno;
        close(fd);
        return errno_status(err, saved, "sync folder", dir_path);
    }
    close(fd);
    return SILT_OK;
}

/*
 * Records folder dir_path for a later fsync (flush_pending_dirs). With
 * store NULL (no deferral possible) the folder is synced now.
 */
static silt_status defer_dir_sync(local_store *store, const char *dir_path, silt_error *err)
{
    size_t idx;
    silt_status rc = SILT_OK;
    if (store == NULL)
        return fsync_dir(dir_path, err);
    pthread_mutex_lock(&store->sync_mutex);
    for (idx = 0; idx < store->n_pending; idx++)
        if (strcmp(store->pending_dirs[idx], dir_path) == 0)
            break;
    if (idx == store->n_pending) {
        if (store->n_pending == store->cap_pending) {
            size_t cap = store->cap_pending ? store->cap_pending * 2 : 16;
            char **fresh = mem_realloc(store->pending_dirs, cap * sizeof(*fresh));
            if (fresh != NULL) {
                store->pending_dirs = fresh;
                store->cap_pending = cap;
            }
        }
        if (store->n_pending < store->cap_pending &&
            (store->pending_dirs[store->n_pending] = mem_strdup(dir_path)) != NULL)
            store->n_pending++;
        else
            rc = fsync_dir(dir_path, err); /* out of memory: sync now rather than lose it */
    }
    pthread_mutex_unlock(&store->sync_mutex);
    return rc;
}

/*
 * Fsyncs every recorded folder, oldest first; the first failure is
 * returned and the folders not yet synced stay recorded. Holds the mutex
 * throughout, so a put on another thread never publishes before the
 * folders recorded before it are synced.
 */
static silt_status flush_pending_dirs(local_store *store, silt_error *err)
{
    silt_status rc = SILT_OK;
    size_t idx, done = 0;
    pthread_mutex_lock(&store->sync_mutex);
    for (idx = 0; idx < store->n_pending; idx++) {
        rc = fsync_dir(store->pending_dirs[idx], err);
        if (rc != SILT_OK && rc != SILT_NOTFOUND)
            break;
        if (rc == SILT_NOTFOUND)
            err_clear(err); /* removed since (a dropped table): nothing left to sync */
        rc = SILT_OK;
        mem_free(store->pending_dirs[idx]);
        done++;
    }
    if (done > 0) {
        memmove(store->pending_dirs, store->pending_dirs + done,
                (store->n_pending - done) * sizeof(*store->pending_dirs));
        store->n_pending -= done;
    }
    pthread_mutex_unlock(&store->sync_mutex);
    return rc;
}

/*
 * Creates every missing folder of path's parent (mkdir -p of dirname). The
 * new folders' names are synced in their parents now, or recorded in store
 * for the next flush when store is given.
 */
static silt_status make_parent_dirs(local_store *store, char *path, silt_error *err)
{
    char *slash = strrchr(path, '/');
    struct stat st;
    silt_status rc = SILT_OK;
    if (slash == NULL || slash == path)
        return SILT_OK;
    *slash = '\0';
    if (stat(path, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            rc = err_set(err, SILT_IO, "could not create folder \"%s\": a file has that name", path);
    } else {
        rc = make_parent_dirs(store, path, err);
        if (rc == SILT_OK && mkdir(path, 0777) != 0 && errno != EEXIST)
            rc = errno_status(err, errno, "create folder", path);
        if (rc == SILT_OK) {
            /* Make the new folder's name durable in its parent. */
            char *parent_slash = strrchr(path, '/');
            if (parent_slash != NULL && parent_slash != path) {
                *parent_slash = '\0';
                rc = defer_dir_sync(store, path, err);
                *parent_slash = '/';
            }
        }
    }
    *slash = '/';
    return rc;
}

static char *tmp_path_for(const char *final_path)
{
    char suffix[96];
    const char *slash = strrchr(final_path, '/');
    size_t dir_len = slash ? (size_t)(slash - final_path) + 1 : 0;
    unsigned long count = atomic_fetch_add(&tmp_counter, 1);
    char *out;
    snprintf(suffix, sizeof(suffix), TMP_PREFIX "%ld-%lu-%llx", (long)getpid(), count,
             (unsigned long long)time_monotonic_nanos());
    out = mem_alloc(dir_len + strlen(suffix) + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, final_path, dir_len);
    memcpy(out + dir_len, suffix, strlen(suffix) + 1);
    return out;
}

static silt_status write_all(int fd, const void *data, size_t len, const char *path,
                             silt_error *err)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno_status(err, errno, "write", path);
        }
        p += n;
        len -= (size_t)n;
    }
    return SILT_OK;
}

/*
 * fsyncs tmp_path's fd, publishes it under final_path, fsyncs the folder
 * (a writer's: records it for the next flush). A put first syncs the
 * folders recorded before it, after its own content's fsync (which has
 * already committed the journal they were waiting on) and before its link.
 */
static silt_status publish(local_store *store, int is_writer, int fd, const char *tmp_path,
                           const char *final_path, int if_absent, silt_error *err)
{
    silt_status rc;
    char *dir;
    char *slash;
    if (fsync(fd) != 0)
        return errno_status(err, errno, "sync", tmp_path);
    if (!is_writer)
        SILT_RETURN_IF_ERROR(flush_pending_dirs(store, err));
    /* Allocated before the object becomes visible: a failure after that would
     * report an error for an object that was in fact published. */
    dir = mem_strdup(final_path);
    if (dir == NULL)
        return err_nomem(err);
    if (if_absent) {
        if (link(tmp_path, final_path) != 0) {
            int saved = errno;
            unlink(tmp_path);
            mem_free(dir);
            if (saved == EEXIST)
                return err_set(err, SILT_EXISTS, "object \"%s\" already exists", final_path);
            return errno_status(err, saved, "publish", final_path);
        }
        unlink(tmp_path);
    } else if (rename(tmp_path, final_path) != 0) {
        int saved = errno;
        unlink(tmp_path);
        mem_free(dir);
        return errno_status(err, saved, "publish", final_path);
    }
    slash = strrchr(dir, '/');
    if (slash != NULL && slash != dir)
        *slash = '\0';
    rc = is_writer ? defer_dir_sync(store, dir, err) : fsync_dir(dir, err);
    if (rc == SILT_IO) {
        /* The name is visible now, so this is not a failed write: a reader may
         * already see it, and a crash may still lose it. */
        char inner[SILT_ERROR_MESSAGE_MAX];
        snprintf(inner, sizeof(inner), "%s", err != NULL ? err->message : "");
        rc = err_set(err, SILT_DURABILITY_UNKNOWN, "\"%s\" was published but %s: it may not "
                     "survive a crash", final_path, inner);
    }
    mem_free(dir);
    return rc;
}

/* io_put_lazy's publication: the temp file's name moved to final_path, nothing fsynced. */
static silt_status publish_lazy(const char *tmp_path, const char *final_path, int if_absent,
                                silt_error *err)
{
    int saved;
    if (if_absent ? link(tmp_path, final_path) == 0 : rename(tmp_path, final_path) == 0) {
        if (if_absent)
            unlink(tmp_path);
        return SILT_OK;
    }
    saved = errno;
    unlink(tmp_path);
    if (if_absent && saved == EEXIST)
        return err_set(err, SILT_EXISTS, "object \"%s\" already exists", final_path);
    return errno_status(err, saved, "publish", final_path);
}

static silt_status open_tmp(local_store *store, char *final_path, char **tmp_out, int *fd_out,
                            silt_error *err)
{
    char *tmp;
    int fd;
    SILT_RETURN_IF_ERROR(make_parent_dirs(store, final_path, err));
    tmp = tmp_path_for(final_path);
    if (tmp == NULL)
        return err_nomem(err);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == ENOENT) {
        /* A concurrent VACUUM removed the folder, empty, between its mkdir and this open
         * (io_prune_empty_parents): make it again, once. */
        silt_status rc = make_parent_dirs(store, final_path, err);
        if (rc != SILT_OK) {
            mem_free(tmp);
            return rc;
        }
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    if (fd < 0) {
        silt_status rc = errno_status(err, errno, "create", tmp);
        mem_free(tmp);
        return rc;
    }
    *tmp_out = tmp;
    *fd_out = fd;
    return SILT_OK;
}

/* 1 when temporary file `name` (TMP_PREFIX<pid>-...) was left by a process that is gone. */
static int tmp_writer_is_dead(const char *name)
{
    char *end = NULL;
    long pid = strtol(name + strlen(TMP_PREFIX), &end, 10);
    if (end == NULL || *end != '-' || pid <= 0 || pid == (long)getpid())
        return 0;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/*
 * Deletes the temporary files in dir_path that writers killed or failed
 * before their link() left behind and that are provably dead
 * (tmp_writer_is_dead, and older than TMP_DEAD_AFTER_S). Best effort: a
 * folder or file that cannot be read or deleted is left as it is.
 */
static void sweep_dead_tmp(const char *dir_path)
{
    DIR *dir = opendir(dir_path);
    struct dirent *entry;
    time_t now = time(NULL);
    char path[4096];
    struct stat st;
    if (dir == NULL)
        return;
    while ((entry = readdir(dir)) != NULL) {
        if (!util_str_starts_with(entry->d_name, TMP_PREFIX))
            continue;
        if (snprintf(path, sizeof(path), "%s/%s", dir_path, entry->d_name) >= (int)sizeof(path))
            continue;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && now - st.st_mtime > TMP_DEAD_AFTER_S &&
            tmp_writer_is_dead(entry->d_name))
            (void)unlink(path);
    }
    closedir(dir);
}

/* Records dir in the store's swept folders: 1 when it was not there (then sweep it). */
static int mark_swept(local_store *store, const char *dir)
{
    size_t idx;
    int fresh = 0;
    pthread_mutex_lock(&store->sync_mutex);
    for (idx = 0; idx < store->n_swept; idx++)
        if (strcmp(store->swept_dirs[idx], dir) == 0)
            break;
    /* Bounded: past SWEEP_FOLDERS_MAX folders a handle sweeps no more (it is a cheap
     * cleanup, not VACUUM). */
    if (idx == store->n_swept && store->n_swept < SWEEP_FOLDERS_MAX) {
        if (store->n_swept == store->cap_swept) {
            size_t cap = store->cap_swept ? store->cap_swept * 2 : 8;
            char **more = mem_realloc(store->swept_dirs, cap * sizeof(*more));
            if (more != NULL) {
                store->swept_dirs = more;
                store->cap_swept = cap;
            }
        }
        if (store->n_swept < store->cap_swept &&
            (store->swept_dirs[store->n_swept] = mem_strdup(dir)) != NULL) {
            store->n_swept++;
            fresh = 1;
        }
    }
    pthread_mutex_unlock(&store->sync_mutex);
    return fresh;
}

/*
 * The first put of a commit (put-if-absent, in _delta_log/) or of a data
 * file (a streaming writer, in the table or partition folder) into a folder
 * sweeps that folder's dead temporary files, once per store handle.
 */
static void sweep_once(local_store *store, const char *final_path)
{
    char dir[4096];
    const char *slash = strrchr(final_path, '/');
    size_t len = slash ? (size_t)(slash - final_path) : 0;
    if (len == 0 || len >= sizeof(dir))
        return;
    memcpy(dir, final_path, len);
    dir[len] = '\0';
    if (mark_swept(store, dir))
        sweep_dead_tmp(dir);
}

static silt_status local_put(io_store *store, const char *key, const void *data, size_t len,
                             int if_absent, silt_error *err)
{
    char *path = full_path(store, key);
    char *tmp = NULL;
    int fd = -1;
    silt_status rc;
    int lazy = (if_absent & IO_PUT_LAZY) != 0;
    if (path == NULL)
        return err_nomem(err);
    if_absent &= 1;
    if (if_absent)
        sweep_once((local_store *)store, path);
    rc = open_tmp((local_store *)store, path, &tmp, &fd, err);
    if (rc == SILT_OK)
        rc = write_all(fd, data, len, tmp, err);
    if (rc == SILT_OK && lazy)
        rc = publish_lazy(tmp, path, if_absent, err);
    else if (rc == SILT_OK)
        rc = publish((local_store *)store, 0, fd, tmp, path, if_absent, err);
    /* publish's own failures before the link (a failed fsync) left the temp file too */
    if (rc != SILT_OK && rc != SILT_DURABILITY_UNKNOWN && tmp != NULL)
        unlink(tmp);
    if (fd >= 0)
        close(fd);
    mem_free(tmp);
    mem_free(path);
    return rc;
}

static silt_status pread_all(int fd, int64_t offset, size_t len, void *dst, const char *path,
                             silt_error *err)
{
    char *p = dst;
    while (len > 0) {
        ssize_t n = pread(fd, p, len, (off_t)offset);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno_status(err, errno, "read", path);
        }
        if (n == 0)
            return err_set(err, SILT_IO, "could not read \"%s\": file shrank while reading", path);
        p += n;
        len -= (size_t)n;
        offset += n;
    }
    return SILT_OK;
}

/*
 * Opens an object for reading: only a regular file is one. O_NONBLOCK keeps
 * open() from waiting for a writer when the name is a FIFO (which blocked
 * every reader forever); a folder is SILT_NOTFOUND, any other special file
 * (FIFO, socket, device) SILT_IO. Symlinks are followed, as Spark's local
 * file system does (docs/decisions.md). On success *fd_out is blocking again
 * and *st_out its stat.
 */
static silt_status open_regular(const char *path, int *fd_out, struct stat *st_out,
                                silt_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), flags;
    silt_status rc = SILT_OK;
    *fd_out = -1;
    if (fd < 0)
        return errno_status(err, errno, "open", path);
    if (fstat(fd, st_out) != 0)
        rc = errno_status(err, errno, "stat", path);
    else if (S_ISDIR(st_out->st_mode))
        rc = err_set(err, SILT_NOTFOUND, "could not open \"%s\": it is a folder", path);
    else if (!S_ISREG(st_out->st_mode))
        rc = err_set(err, SILT_IO, "could not open \"%s\": it is not a regular file (%s)", path,
                     S_ISFIFO(st_out->st_mode) ? "a FIFO" : S_ISSOCK(st_out->st_mode) ? "a socket"
                                                                                     : "a device");
    else if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
        rc = errno_status(err, errno, "open", path);
    if (rc != SILT_OK) {
        close(fd);
        return rc;
    }
    *fd_out = fd;
    return SILT_OK;
}

static silt_status local_get_range(io_store *store, const char *key, int64_t offset, int64_t len,
                                   buf *out, silt_error *err)
{
    char *path = full_path(store, key);
    struct stat st;
    silt_status rc = SILT_OK;
    int fd;
    if (path == NULL)
        return err_nomem(err);
    rc = open_regular(path, &fd, &st, err);
    if (rc != SILT_OK) {
        mem_free(path);
        return rc;
    }
    {
        if (len < 0)
            len = (int64_t)st.st_size - (offset < st.st_size ? offset : st.st_size);
        if (offset > st.st_size || len > st.st_size - offset) {
            rc = err_set(err, SILT_INVALID, "range %lld+%lld is past the end of \"%s\" (%lld bytes)",
                         (long long)offset, (long long)len, path, (long long)st.st_size);
        } else {
            rc = buf_reserve(out, (size_t)len, err);
            if (rc == SILT_OK)
                rc = pread_all(fd, offset, (size_t)len, out->data + out->len, path, err);
            if (rc == SILT_OK) {
                out->len += (size_t)len;
                out->data[out->len] = '\0';
            }
        }
    }
    close(fd);
    mem_free(path);
    return rc;
}

static silt_status listing_add(io_listing *out, const char *key, const struct stat *st,
                               silt_error *err)
{
    return io_listing_add(out, key, (int64_t)st->st_size,
                          (int64_t)st->st_mtim.tv_sec * TIME_MICROS_PER_SECOND +
                              st->st_mtim.tv_nsec / 1000,
                          err);
}

/*
 * Walks folder `dir_key` (relative, "" = root) adding objects whose key starts
 * with prefix and sorts after start_after.
 */
static silt_status walk(io_store *store, const char *dir_key, const char *prefix,
                        const char *start_after, int recursive, io_listing *out, silt_error *err)
{
    char *dir_path = dir_key[0] ? full_path(store, dir_key) : mem_strdup(store->root);
    DIR *dir;
    struct dirent *entry;
    silt_status rc = SILT_OK;
    size_t prefix_len = strlen(prefix);
    if (dir_path == NULL)
        return err_nomem(err);
    dir = opendir(dir_path);
    if (dir == NULL) {
        int saved = errno;
        mem_free(dir_path);
        if (saved == ENOENT || saved == ENOTDIR)
            return SILT_OK; /* an absent folder lists as empty, as on object stores */
        return errno_status(err, saved, "list folder", dir_key);
    }
    while (rc == SILT_OK && (entry = readdir(dir)) != NULL) {
        char *key;
        char *path;
        struct stat st;
        size_t cmp_len;
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0 ||
            util_str_starts_with(entry->d_name, TMP_PREFIX))
            continue;
        key = dir_key[0] ? io_key_join(dir_key, entry->d_name) : mem_strdup(entry->d_name);
        if (key == NULL) {
            rc = err_nomem(err);
            break;
        }
        /* Skip entries that cannot lead to a key with the prefix. */
        cmp_len = strlen(key) < prefix_len ? strlen(key) : prefix_len;
        if (strncmp(key, prefix, cmp_len) != 0) {
            mem_free(key);
            continue;
        }
        path = full_path(store, key);
        if (path == NULL) {
            mem_free(key);
            rc = err_nomem(err);
            break;
        }
        if (stat(path, &st) == 0) {
            struct stat link_st;
            /* The walk starts in the prefix's folder, so only a recursive
             * listing descends into sub-folders; never into a symlinked one:
             * its files are not the table's to list or delete (VACUUM would
             * delete them in the target folder), and links can make loops. */
            if (S_ISDIR(st.st_mode)) {
                if (recursive && lstat(path, &link_st) == 0 && !S_ISLNK(link_st.st_mode))
                    rc = walk(store, key, prefix, start_after, recursive, out, err);
            } else if (S_ISREG(st.st_mode) && strlen(key) >= prefix_len &&
                       (start_after == NULL || strcmp(key, start_after) > 0)) {
                rc = listing_add(out, key, &st, err);
            }
        }
        mem_free(path);
        mem_free(key);
    }
    closedir(dir);
    mem_free(dir_path);
    return rc;
}

static int compare_items(const void *a, const void *b)
{
    return strcmp(((const io_object_info *)a)->key, ((const io_object_info *)b)->key);
}

/*
 * Collects (and unless dry_run deletes) the provably dead temporary files under folder
 * `dir_key` of the store's root, descending into sub-folders but never through a symlink.
 */
static silt_status sweep_walk(const char *root, const char *dir_key, int dry_run,
                              io_listing *out, silt_error *err)
{
    char path[4096];
    DIR *dir;
    struct dirent *entry;
    time_t now = time(NULL);
    silt_status rc = SILT_OK;
    if (snprintf(path, sizeof(path), "%s%s%s", root, dir_key[0] ? "/" : "", dir_key) >=
        (int)sizeof(path))
        return SILT_OK;
    dir = opendir(path);
    if (dir == NULL)
        return SILT_OK; /* best effort, as the commit-time sweep */
    while (rc == SILT_OK && (entry = readdir(dir)) != NULL) {
        char key[4096], full[4096];
        struct stat st;
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        if (snprintf(key, sizeof(key), "%s%s%s", dir_key, dir_key[0] ? "/" : "",
                     entry->d_name) >= (int)sizeof(key) ||
            snprintf(full, sizeof(full), "%s/%s", root, key) >= (int)sizeof(full) ||
            lstat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            rc = sweep_walk(root, key, dry_run, out, err);
        } else if (S_ISREG(st.st_mode) && util_str_starts_with(entry->d_name, TMP_PREFIX) &&
                   now - st.st_mtime > TMP_DEAD_AFTER_S && tmp_writer_is_dead(entry->d_name)) {
            if (dry_run || unlink(full) == 0)
                rc = listing_add(out, key, &st, err);
        }
    }
    closedir(dir);
    return rc;
}

silt_status io_sweep_dead_temps(io_store *store, int dry_run, io_listing *out, silt_error *err)
{
    const char *root = io_store_root(store);
    size_t first = out->count;
    silt_status rc;
    if (util_str_starts_with(root, "file://"))
        root += strlen("file://");
    if (root[0] != '/')
        return SILT_OK; /* not a folder of this machine: nothing of ours to sweep */
    rc = sweep_walk(root, "", dry_run, out, err);
    if (rc == SILT_OK && out->count > first)
        qsort(out->items + first, out->count - first, sizeof(io_object_info), compare_items);
    return rc;
}


/* Every folder under folder `dir_key` of root (symlinked folders neither listed nor followed). */
static silt_status folder_walk(const char *root, const char *dir_key, int depth, io_listing *out,
                               silt_error *err)
{
    char path[4096];
    DIR *dir;
    struct dirent *entry;
    silt_status rc = SILT_OK;
    if (depth > 64 || snprintf(path, sizeof(path), "%s%s%s", root, dir_key[0] ? "/" : "",
                               dir_key) >= (int)sizeof(path))
        return SILT_OK;
    dir = opendir(path);
    if (dir == NULL)
        return SILT_OK; /* gone meanwhile (a concurrent VACUUM): nothing under it */
    while (rc == SILT_OK && (entry = readdir(dir)) != NULL) {
        char key[4096], full[4096];
        struct stat st;
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        if (snprintf(key, sizeof(key), "%s%s%s", dir_key, dir_key[0] ? "/" : "",
                     entry->d_name) >= (int)sizeof(key) ||
            snprintf(full, sizeof(full), "%s/%s", root, key) >= (int)sizeof(full) ||
            lstat(full, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        rc = listing_add(out, key, &st, err);
        if (rc == SILT_OK)
            rc = folder_walk(root, key, depth + 1, out, err);
    }
    closedir(dir);
    return rc;
}

silt_status io_list_folders(io_store *store, io_listing *out, silt_error *err)
{
    const char *root = io_store_root(store);
    size_t first = out->count;
    silt_status rc;
    if (util_str_starts_with(root, "file://"))
        root += strlen("file://");
    if (root[0] != '/')
        return SILT_OK; /* an object store: no folders */
    rc = folder_walk(root, "", 0, out, err);
    if (rc == SILT_OK && out->count > first)
        qsort(out->items + first, out->count - first, sizeof(io_object_info), compare_items);
    return rc;
}

int io_remove_empty_folder(io_store *store, const char *key)
{
    const char *root = io_store_root(store);
    char full[4096];
    if (util_str_starts_with(root, "file://"))
        root += strlen("file://");
    if (root[0] != '/' || key[0] == '\0' ||
        snprintf(full, sizeof(full), "%s/%s", root, key) >= (int)sizeof(full))
        return 0;
    return rmdir(full) == 0;
}


static silt_status local_list(io_store *store, const char *prefix, const char *start_after,
                              int recursive, io_listing *out, silt_error *err)
{
    /* Start the walk at the deepest folder the prefix names. */
    const char *slash = strrchr(prefix, '/');
    char *dir_key = slash ? mem_strndup(prefix, (size_t)(slash - prefix)) : mem_strdup("");
    size_t first = out->count;
    silt_status rc;
    if (dir_key == NULL)
        return err_nomem(err);
    rc = walk(store, dir_key, prefix, start_after, recursive, out, err);
    mem_free(dir_key);
    if (rc == SILT_OK && out->count > first)
        qsort(out->items + first, out->count - first, sizeof(io_object_info), compare_items);
    return rc;
}

static silt_status local_remove(io_store *store, const char *key, silt_error *err)
{
    char *path = full_path(store, key);
    silt_status rc = SILT_OK;
    if (path == NULL)
        return err_nomem(err);
    if (unlink(path) != 0)
        rc = errno_status(err, errno, "delete", path);
    mem_free(path);
    return rc;
}

static silt_status local_head(io_store *store, const char *key, io_object_info *out,
                              silt_error *err)
{
    char *path = full_path(store, key);
    struct stat st;
    silt_status rc = SILT_OK;
    if (path == NULL)
        return err_nomem(err);
    if (stat(path, &st) != 0) {
        rc = errno_status(err, errno, "stat", path);
    } else if (!S_ISREG(st.st_mode)) {
        rc = err_set(err, SILT_NOTFOUND, "could not stat \"%s\": not a file", path);
    } else {
        out->key = mem_strdup(key);
        if (out->key == NULL)
            rc = err_nomem(err);
        out->size = (int64_t)st.st_size;
        out->mtime_micros = (int64_t)st.st_mtim.tv_sec * TIME_MICROS_PER_SECOND +
                            st.st_mtim.tv_nsec / 1000;
    }
    mem_free(path);
    return rc;
}

static silt_status local_file_read_at(io_file *file, int64_t offset, size_t len, void *dst,
                                      silt_error *err)
{
    local_file *lf = (local_file *)file;
    return pread_all(lf->fd, offset, len, dst, file->key, err);
}

static void local_file_close(io_file *file)
{
    local_file *lf = (local_file *)file;
    close(lf->fd);
    mem_free(file->key);
    mem_free(lf);
}

static const io_file_ops local_file_ops = {local_file_read_at, local_file_close, NULL};

static silt_status local_open_file(io_store *store, const char *key, io_file **out,
                                   silt_error *err)
{
    char *path = full_path(store, key);
    local_file *lf;
    struct stat st;
    int fd;
    silt_status rc;
    if (path == NULL)
        return err_nomem(err);
    rc = open_regular(path, &fd, &st, err);
    if (rc != SILT_OK) {
        mem_free(path);
        return rc;
    }
    lf = mem_calloc(1, sizeof(*lf));
    if (lf == NULL) {
        close(fd);
        mem_free(path);
        return err_nomem(err);
    }
    lf->base.ops = &local_file_ops;
    lf->base.size = (int64_t)st.st_size;
    lf->base.key = path;
    lf->fd = fd;
    *out = &lf->base;
    return SILT_OK;
}

static silt_status flush_wbuf(local_writer *lw, silt_error *err)
{
    silt_status rc = write_all(lw->fd, lw->wbuf, lw->wlen, lw->tmp_path, err);
    lw->wlen = 0;
    return rc;
}

/* Small pieces gather in wbuf; a piece that does not fit goes out after it. */
static silt_status local_writer_write(io_writer *w, const void *data, size_t len,
                                      silt_error *err)
{
    local_writer *lw = (local_writer *)w;
    if (lw->wlen + len <= WRITE_BUF) {
        memcpy(lw->wbuf + lw->wlen, data, len);
        lw->wlen += len;
        return SILT_OK;
    }
    SILT_RETURN_IF_ERROR(flush_wbuf(lw, err));
    if (len >= WRITE_BUF / 2)
        return write_all(lw->fd, data, len, lw->tmp_path, err);
    memcpy(lw->wbuf, data, len);
    lw->wlen = len;
    return SILT_OK;
}

static void local_writer_free(local_writer *lw)
{
    if (lw->fd >= 0)
        close(lw->fd);
    mem_free(lw->wbuf);
    mem_free(lw->tmp_path);
    mem_free(lw->final_path);
    mem_free(lw->base.key);
    mem_free(lw);
}

static silt_status local_writer_commit(io_writer *w, int if_absent, silt_error *err)
{
    local_writer *lw = (local_writer *)w;
    silt_status rc = flush_wbuf(lw, err);
    if (rc == SILT_OK)
        rc = publish(lw->store, 1, lw->fd, lw->tmp_path, lw->final_path, if_absent, err);
    if (rc != SILT_OK)
        unlink(lw->tmp_path);
    local_writer_free(lw);
    return rc;
}

static void local_writer_abort(io_writer *w)
{
    local_writer *lw = (local_writer *)w;
    unlink(lw->tmp_path);
    local_writer_free(lw);
}

static const io_writer_ops local_writer_ops = {local_writer_write, local_writer_commit,
                                               local_writer_abort};

static silt_status local_open_writer(io_store *store, const char *key, io_writer **out,
                                     silt_error *err)
{
    local_writer *lw = mem_calloc(1, sizeof(*lw));
    silt_status rc;
    if (lw == NULL)
        return err_nomem(err);
    lw->fd = -1;
    lw->base.ops = &local_writer_ops;
    lw->base.key = mem_strdup(key);
    lw->final_path = full_path(store, key);
    if (lw->base.key == NULL || lw->final_path == NULL) {
        local_writer_free(lw);
        return err_nomem(err);
    }
    lw->store = (local_store *)store;
    sweep_once(lw->store, lw->final_path);
    lw->wbuf = mem_alloc(WRITE_BUF);
    if (lw->wbuf == NULL) {
        local_writer_free(lw);
        return err_nomem(err);
    }
    rc = open_tmp(lw->store, lw->final_path, &lw->tmp_path, &lw->fd, err);
    if (rc != SILT_OK) {
        local_writer_free(lw);
        return rc;
    }
    *out = &lw->base;
    return SILT_OK;
}

/* Syncs the folders still recorded (best effort: nobody is left to tell of a failure). */
static void local_destroy(io_store *store)
{
    local_store *ls = (local_store *)store;
    silt_error ignored = SILT_ERROR_INIT;
    size_t idx;
    (void)flush_pending_dirs(ls, &ignored);
    for (idx = 0; idx < ls->n_pending; idx++)
        mem_free(ls->pending_dirs[idx]);
    mem_free(ls->pending_dirs);
    for (idx = 0; idx < ls->n_swept; idx++)
        mem_free(ls->swept_dirs[idx]);
    mem_free(ls->swept_dirs);
    pthread_mutex_destroy(&ls->sync_mutex);
    mem_free(store->root);
    mem_free(store);
}

/*
 * Removes the empty folders below path, depth first, then path itself when
 * it ends up empty. Only rmdir() is used, so no file is ever removed, and
 * symbolic links are not followed, so nothing outside path is touched.
 * Folders that are not empty (or cannot be removed) are left as they are.
 */
static void prune_folder(const char *path, int depth)
{
    DIR *dir;
    struct dirent *entry;
    if (depth > 64)
        return;
    dir = opendir(path);
    if (dir == NULL)
        return;
    while ((entry = readdir(dir)) != NULL) {
        struct stat st;
        char *child;
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        child = io_key_join(path, entry->d_name);
        if (child == NULL)
            break;
        if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
            prune_folder(child, depth + 1);
        mem_free(child);
    }
    closedir(dir);
    (void)rmdir(path);
}

silt_status io_prune_empty_parents(io_store *store, const char *key, silt_error *err)
{
    char *path;
    size_t root_len = strlen(store->root);
    (void)err;
    if (strcmp(store->ops->scheme, "file") != 0)
        return SILT_OK; /* object stores have no folders */
    path = full_path(store, key);
    if (path == NULL)
        return err_nomem(err);
    for (;;) {
        char *slash = strrchr(path, '/');
        if (slash == NULL || (size_t)(slash - path) <= root_len)
            break; /* never the root itself */
        *slash = '\0';
        if (rmdir(path) != 0)
            break; /* not empty (or not removable): its parents are not empty either */
    }
    mem_free(path);
    return SILT_OK;
}

silt_status io_prune_empty_folders(io_store *store, silt_error *err)
{
    struct stat st;
    (void)err;
    if (strcmp(store->ops->scheme, "file") != 0)
        return SILT_OK; /* object stores have no folders */
    if (lstat(store->root, &st) != 0 || !S_ISDIR(st.st_mode))
        return SILT_OK;
    prune_folder(store->root, 0);
    return SILT_OK;
}

static const io_store_ops local_ops = {
    "file",        local_get_range, local_put,         local_list, local_remove,
    local_head,    local_open_file, local_open_writer, local_destroy,
};

silt_status io_local_store_open(io_store **out, const char *root_dir, int create_root,
                                silt_error *err)
{
    local_store *store;
    struct stat st;
    size_t len;
    char *root;
    if (root_dir == NULL || root_dir[0] == '\0')
        return err_set(err, SILT_INVALID, "storage location is empty");
    len = strlen(root_dir);
    while (len > 1 && root_dir[len - 1] == '/')
        len--;
    root = mem_strndup(root_dir, len);
    if (root == NULL)
        return err_nomem(err);
    if (stat(root, &st) != 0) {
        silt_status rc;
        if (!create_root || errno != ENOENT) {
            rc = errno_status(err, errno, "open location", root);
            mem_free(root);
            return rc;
        }
        {
            /* mkdir -p root: make_parent_dirs makes the folders before the last '/'. */
            char *probe = io_key_join(root, "x");
            rc = probe ? make_parent_dirs(NULL, probe, err) : err_nomem(err);
            mem_free(probe);
        }
        if (rc != SILT_OK) {
            mem_free(root);
            return rc;
        }
    } else if (!S_ISDIR(st.st_mode)) {
        silt_status rc = err_set(err, SILT_INVALID, "storage location \"%s\" is not a folder", root);
        mem_free(root);
        return rc;
    }
    store = mem_calloc(1, sizeof(*store));
    if (store == NULL) {
        mem_free(root);
        return err_nomem(err);
    }
    store->base.ops = &local_ops;
    store->base.root = root;
    pthread_mutex_init(&store->sync_mutex, NULL);
    *out = &store->base;
    return SILT_OK;
}

static pthread_once_t root_once = PTHREAD_ONCE_INIT;
static io_store *root_store;
static silt_error root_error = SILT_ERROR_INIT;

static void open_root(void) { io_local_store_open(&root_store, "/", 0, &root_error); }

silt_status io_local_root_store(io_store **out, silt_error *err)
{
    pthread_once(&root_once, open_root);
    *out = root_store;
    if (root_store == NULL)
        return err_set(err, root_error.code != SILT_OK ? root_error.code : SILT_IO, "%s",
                       root_error.message);
    return SILT_OK;
}
