/*
 * fault_shim.c - an LD_PRELOAD library that fails or kills a process at one
 * exact file-system call, driven from outside by the environment (issue 15:
 * the crash harness and the I/O fault matrix). It interposes the calls the
 * local store makes to publish an object - open(O_CREAT), write, fsync,
 * link, rename - so silt runs its real code path and sees exactly what a
 * dying disk or a power cut at that instant shows.
 *
 *   SILT_FAULT=OP:N:ACTION:GLOB
 *     OP      open | write | fsync | link | rename | any | opendir
 *     N       the Nth call of OP whose path matches GLOB (1-based)
 *     ACTION  eio | enospc | short | kill | killafter | wait
 *             eio, enospc: the call does nothing and fails with that errno;
 *             short: a write (only) writes half of what was asked, as a
 *             nearly full disk does, then the next write fails with ENOSPC;
 *             kill: SIGKILL before the call; killafter: after it returned;
 *             wait: before the call, wait until the file SILT_FAULT_WAIT
 *             exists (a test holds a writer there while another commits).
 *             opendir (a listing: a reader between two tables) is never
 *             part of "any" and is seen only when named.
 *     GLOB    fnmatch(3) pattern of the path: for open, write and fsync the
 *             file's (or folder's) path, for link and rename the new name.
 *   SILT_FAULT_LOG=FILE  appends "OP PATH" for every call matching GLOB
 *             (SILT_FAULT_GLOB, default: every absolute path) so a harness can enumerate the
 *             points of a statement before it injects at each.
 *   SILT_FAULT_FIRED=FILE  created when the fault fires (the harness knows
 *             the statement reached the point).
 *
 * Not part of silt: a test tool, built only with the tests.
 */
/* The plain names, defined here: open64 is interposed by its own name below. */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

enum { ACT_NONE, ACT_EIO, ACT_ENOSPC, ACT_SHORT, ACT_KILL, ACT_KILLAFTER, ACT_WAIT };

static struct {
    int ready;
    char op[16];
    long nth;
    int action;
    char glob[PATH_MAX];
    const char *log_path;
    const char *fired_path;
    const char *wait_path;
} plan;

static atomic_long calls;
static atomic_int short_done; /* a short write happened: the next write is ENOSPC */

static int parse_action(const char *s)
{
    static const char *const names[] = {"eio", "enospc", "short", "kill", "killafter", "wait"};
    for (int i = 0; i < 6; i++)
        if (strcmp(s, names[i]) == 0)
            return i + 1;
    return ACT_NONE;
}

/* Runs once, from the loader: the plan is fixed before silt's threads start. */
__attribute__((constructor)) static void shim_init(void)
{
    const char *spec = getenv("SILT_FAULT");
    const char *glob = getenv("SILT_FAULT_GLOB");
    char action[16] = "";
    plan.log_path = getenv("SILT_FAULT_LOG");
    plan.fired_path = getenv("SILT_FAULT_FIRED");
    plan.wait_path = getenv("SILT_FAULT_WAIT");
    snprintf(plan.glob, sizeof(plan.glob), "%s", glob ? glob : "/*");
    if (spec != NULL && *spec != '\0') {
        char glob_part[PATH_MAX] = "";
        if (sscanf(spec, "%15[^:]:%ld:%15[^:]:%4095s", plan.op, &plan.nth, action, glob_part) < 3) {
            fprintf(stderr, "fault_shim: bad SILT_FAULT \"%s\"\n", spec);
            _exit(125);
        }
        plan.action = parse_action(action);
        if (plan.action == ACT_NONE || plan.nth <= 0 ||
            (plan.action == ACT_WAIT && plan.wait_path == NULL)) {
            fprintf(stderr, "fault_shim: bad SILT_FAULT \"%s\"\n", spec);
            _exit(125);
        }
        if (glob_part[0] != '\0')
            snprintf(plan.glob, sizeof(plan.glob), "%s", glob_part);
    }
    plan.ready = 1;
}

#define SHIM_EXPORT __attribute__((visibility("default")))

static void *real(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

static void fd_path(int fd, char *out, size_t cap)
{
    char link[64];
    ssize_t n;
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    n = readlink(link, out, cap - 1);
    out[n < 0 ? 0 : n] = '\0';
}

/* Appends one line with a raw write(2): our own write() would count itself. */
static void log_call(const char *op, const char *path)
{
    char line[PATH_MAX + 32];
    int fd, len;
    if (plan.log_path == NULL)
        return;
    fd = (int)syscall(SYS_openat, AT_FDCWD, plan.log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
                      0666);
    if (fd < 0)
        return;
    len = snprintf(line, sizeof(line), "%s %s\n", op, path);
    if (len > 0)
        (void)syscall(SYS_write, fd, line, (size_t)len);
    (void)syscall(SYS_close, fd);
}

static void mark_fired(void)
{
    int fd;
    if (plan.fired_path == NULL)
        return;
    fd = (int)syscall(SYS_openat, AT_FDCWD, plan.fired_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0)
        (void)syscall(SYS_close, fd);
}

/* The action for this call of op on path: ACT_NONE for every call but the planned one. */
static int decide(const char *op, const char *path)
{
    if (!plan.ready || fnmatch(plan.glob, path, 0) != 0)
        return ACT_NONE;
    log_call(op, path);
    if (plan.action == ACT_NONE || (strcmp(plan.op, "any") != 0 && strcmp(plan.op, op) != 0))
        return ACT_NONE;
    if (atomic_fetch_add(&calls, 1) + 1 != plan.nth)
        return ACT_NONE;
    mark_fired();
    if (plan.action == ACT_KILL)
        raise(SIGKILL);
    if (plan.action == ACT_WAIT) {
        struct stat st;
        /* Bounded: a test that never releases the writer must not hang it forever. */
        for (int i = 0; i < 30000 && stat(plan.wait_path, &st) != 0; i++)
            usleep(10000);
        return ACT_NONE;
    }
    return plan.action;
}

static int fail(int action)
{
    errno = action == ACT_ENOSPC ? ENOSPC : EIO;
    return -1;
}

/* open and open64 (both in silt: some files are built with large-file names). */
static int shim_open(const char *name, const char *path, int flags, mode_t mode)
{
    int (*next)(const char *, int, ...) = (int (*)(const char *, int, ...))real(name);
    int action = (flags & O_CREAT) ? decide("open", path) : ACT_NONE, fd;
    if (action == ACT_EIO || action == ACT_ENOSPC || action == ACT_SHORT)
        return fail(action);
    fd = next(path, flags, mode);
    if (action == ACT_KILLAFTER)
        raise(SIGKILL);
    return fd;
}

SHIM_EXPORT int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return shim_open("open", path, flags, mode);
}

SHIM_EXPORT int open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return shim_open("open64", path, flags, mode);
}

SHIM_EXPORT ssize_t write(int fd, const void *data, size_t len)
{
    static ssize_t (*next)(int, const void *, size_t);
    char path[PATH_MAX];
    int action;
    ssize_t n;
    if (next == NULL)
        next = (ssize_t (*)(int, const void *, size_t))real("write");
    fd_path(fd, path, sizeof(path));
    action = decide("write", path);
    if (action == ACT_NONE && atomic_load(&short_done) && fnmatch(plan.glob, path, 0) == 0) {
        errno = ENOSPC; /* the disk that took half a write is full now */
        return -1;
    }
    if (action == ACT_EIO || action == ACT_ENOSPC)
        return fail(action);
    if (action == ACT_SHORT && len > 1) {
        atomic_store(&short_done, 1);
        len /= 2;
    }
    n = next(fd, data, len);
    if (action == ACT_KILLAFTER)
        raise(SIGKILL);
    return n;
}

SHIM_EXPORT int fsync(int fd)
{
    static int (*next)(int);
    char path[PATH_MAX];
    int action, rc;
    if (next == NULL)
        next = (int (*)(int))real("fsync");
    fd_path(fd, path, sizeof(path));
    action = decide("fsync", path);
    if (action == ACT_EIO || action == ACT_ENOSPC || action == ACT_SHORT)
        return fail(action);
    rc = next(fd);
    if (action == ACT_KILLAFTER)
        raise(SIGKILL);
    return rc;
}

/* link and rename: the new name is the path the glob sees. */
static int shim_publish(const char *name, const char *from, const char *to)
{
    int (*next)(const char *, const char *) = (int (*)(const char *, const char *))real(name);
    int action = decide(name, to), rc;
    if (action == ACT_EIO || action == ACT_ENOSPC || action == ACT_SHORT)
        return fail(action);
    rc = next(from, to);
    if (action == ACT_KILLAFTER)
        raise(SIGKILL);
    return rc;
}

SHIM_EXPORT int link(const char *from, const char *to) { return shim_publish("link", from, to); }

SHIM_EXPORT int rename(const char *from, const char *to)
{
    return shim_publish("rename", from, to);
}

/* A listing, only when the plan names opendir: a test holds a reader between two tables. */
SHIM_EXPORT DIR *opendir(const char *name)
{
    DIR *(*next)(const char *) = (DIR * (*)(const char *)) real("opendir");
    if (plan.ready && strcmp(plan.op, "opendir") == 0) {
        int action = decide("opendir", name);
        if (action == ACT_EIO || action == ACT_ENOSPC || action == ACT_SHORT) {
            errno = EIO;
            return NULL;
        }
    }
    return next(name);
}
