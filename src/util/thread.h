/*
 * thread.h - a small fixed-size thread pool and a mutex wrapper.
 *
 * The pool runs "parallel for" jobs: tpool_run(pool, n_tasks, fn, payload)
 * calls fn(payload, task_idx, worker_idx, err) once for every task index, on the
 * pool's workers and on the calling thread, and returns when all are done.
 * Tasks are handed out one at a time from an atomic counter, which is the
 * morsel-driven scheme: a slow task does not hold up the others. Jobs from
 * several threads may run at once; each waits only for its own tasks.
 *
 * A task reports failure by returning non-OK; tpool_run returns the status of
 * the first failing task (by completion time) and skips tasks not yet started.
 */
#ifndef SILT_UTIL_THREAD_H
#define SILT_UTIL_THREAD_H

#include <stddef.h>

#include "util/error.h"

typedef struct tpool tpool;

typedef silt_status (*tpool_task_fn)(void *payload, size_t task_idx, size_t worker_idx,
                                     silt_error *err);

/*
 * n_workers background threads (0 = number of cores - 1; the caller also
 * works). The threads start with the first job of more than one task.
 */
silt_status tpool_new(tpool **out, size_t n_workers, silt_error *err);
void tpool_free(tpool *pool);
/* Threads that may run tasks of one job at once, the caller included. */
size_t tpool_width(const tpool *pool);
/*
 * Runs the tasks; err receives the failing task's error. worker_idx is in
 * [0, tpool_width) and unique among the tasks of this job running at the same
 * time, so it can index per-thread state of the job. pool may be NULL: tasks then run on the caller.
 */
silt_status tpool_run(tpool *pool, size_t n_tasks, tpool_task_fn fn, void *payload,
                      silt_error *err);

/* Worker threads running so far (0 until the first parallel job); for tests. */
size_t tpool_started(tpool *pool);

/*
 * The same job, started without waiting for it: the pool's workers take its
 * tasks while the caller does other work (the Delta writer encodes files
 * while the next rows are parsed). tpool_wait works on the tasks left,
 * waits for the rest, frees the handle and returns what tpool_run would.
 * Every started job must be waited for, before its payload goes. Without
 * worker threads the tasks run inside tpool_start.
 */
typedef struct tpool_async tpool_async;
silt_status tpool_start(tpool *pool, size_t n_tasks, tpool_task_fn fn, void *payload,
                        tpool_async **out, silt_error *err);
silt_status tpool_wait(tpool_async *job, silt_error *err);
/*
 * tpool_wait for job, but while the job's last tasks still run on workers
 * the caller runs tasks of other (a later job, started and not waited for
 * yet), one at a time, instead of blocking: a pipeline of two jobs has no
 * barrier where the caller idles. other may be NULL.
 */
silt_status tpool_wait_helping(tpool_async *job, tpool_async *other, silt_error *err);
/*
 * Whether every task of the job has finished, so that tpool_wait would
 * return at once: a caller with other work can go on with it instead of
 * waiting (the Delta writer keeps queueing rows while a flight encodes).
 */
int tpool_done(tpool_async *job);
/*
 * Runs the job's tasks no thread has taken yet on the calling thread, then
 * returns without waiting for the ones running elsewhere (tpool_wait still
 * has to be called).
 */
void tpool_help(tpool_async *job);

/* Number of online cores (at least 1). */
size_t tpool_core_count(void);

#endif
