/*
 * thread.c - fixed pool of pthreads serving "parallel for" jobs.
 *
 * Jobs are kept in a list under the pool mutex. A worker takes the oldest job
 * with tasks left and claims task indexes from it with an atomic counter
 * until none are left; the submitting thread claims tasks from its own job
 * too, so a job always progresses even when every worker is busy elsewhere
 * (no deadlock when a task itself submits a job).
 *
 * Workers start with the first job that has more than one task, not in
 * tpool_new: most statements of a short `silt sql` run (SELECT 1, a count
 * answered from the log, a 20-row append) never run a parallel job, and
 * starting then joining idle threads costs two clone()s and, on a loaded
 * machine, a wait at exit for threads that were never scheduled.
 */
#define _POSIX_C_SOURCE 200809L
#include "util/thread.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "util/mem.h"

typedef struct tpool_job {
    struct tpool_job *next;
    tpool_task_fn fn;
    void *payload;
    size_t n_tasks;
    atomic_size_t next_task;
    size_t n_done;          /* under pool mutex */
    size_t n_active;        /* workers inside this job, under pool mutex */
    silt_status status;     /* first failure, under pool mutex */
    silt_error error;
    pthread_cond_t done_cond;
} tpool_job;

struct tpool {
    pthread_mutex_t mutex;
    pthread_cond_t work_cond;
    pthread_t *threads;
    size_t n_threads;       /* started so far */
    size_t n_planned;       /* to start with the first parallel job */
    int start_failed;       /* a worker could not start: run on the callers only */
    tpool_job *jobs;
    int shutting_down;
    /* worker_idx 0 belongs to callers; workers use 1..n_threads. */
};

size_t tpool_core_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}

/* Runs one task of job; 0 when none was left. Called without the mutex held. */
static int run_one(tpool *pool, tpool_job *job, size_t worker_idx)
{
    size_t task = atomic_fetch_add(&job->next_task, 1);
    silt_error task_err = SILT_ERROR_INIT;
    silt_status rc;
    if (task >= job->n_tasks)
        return 0;
    rc = job->fn(job->payload, task, worker_idx, &task_err);
    pthread_mutex_lock(&pool->mutex);
    job->n_done++;
    if (rc != SILT_OK && job->status == SILT_OK) {
        job->status = rc;
        if (task_err.code == SILT_OK)
            err_set(&task_err, rc, "parallel task %zu failed", task);
        err_copy(&job->error, &task_err);
        /* Cancel the rest: nobody else claims a task. */
        atomic_store(&job->next_task, job->n_tasks);
    }
    if (job->n_done >= job->n_tasks || rc != SILT_OK)
        pthread_cond_broadcast(&job->done_cond);
    pthread_mutex_unlock(&pool->mutex);
    return 1;
}

/* Runs tasks of job until none are left. Called without the mutex held. */
static void drain_job(tpool *pool, tpool_job *job, size_t worker_idx)
{
    while (run_one(pool, job, worker_idx))
        ;
}

static void *worker_main(void *arg)
{
    void **args = arg;
    tpool *pool = args[0];
    size_t worker_idx = (size_t)(uintptr_t)args[1];
    mem_free(args);
    pthread_mutex_lock(&pool->mutex);
    for (;;) {
        tpool_job *job = pool->jobs;
        while (job != NULL && atomic_load(&job->next_task) >= job->n_tasks)
            job = job->next;
        if (job == NULL) {
            if (pool->shutting_down)
                break;
            pthread_cond_wait(&pool->work_cond, &pool->mutex);
            continue;
        }
        job->n_active++;
        pthread_mutex_unlock(&pool->mutex);
        drain_job(pool, job, worker_idx);
        pthread_mutex_lock(&pool->mutex);
        job->n_active--;
        pthread_cond_broadcast(&job->done_cond);
    }
    pthread_mutex_unlock(&pool->mutex);
    return NULL;
}

silt_status tpool_new(tpool **out, size_t n_workers, silt_error *err)
{
    tpool *pool;
    if (n_workers == 0)
        n_workers = tpool_core_count() > 1 ? tpool_core_count() - 1 : 0;
    pool = mem_calloc(1, sizeof(*pool));
    if (pool == NULL)
        return err_nomem(err);
    pthread_mutex_init(&pool->mutex, NULL);
    pthread_cond_init(&pool->work_cond, NULL);
    pool->threads = mem_calloc(n_workers ? n_workers : 1, sizeof(pthread_t));
    if (pool->threads == NULL) {
        tpool_free(pool);
        return err_nomem(err);
    }
    pool->n_planned = n_workers;
    *out = pool;
    return SILT_OK;
}

/*
 * Starts the planned workers; called with the pool mutex held (a worker
 * blocks on it until the caller's job is queued). A worker that cannot
 * start is not an error of the job: the workers started so far, or the
 * caller alone, run it, and no later job tries again.
 */
static void start_workers(tpool *pool)
{
    while (!pool->start_failed && pool->n_threads < pool->n_planned) {
        void **args = mem_alloc(2 * sizeof(void *));
        if (args == NULL) {
            pool->start_failed = 1;
            break;
        }
        args[0] = pool;
        args[1] = (void *)(uintptr_t)(pool->n_threads + 1);
        if (pthread_create(&pool->threads[pool->n_threads], NULL, worker_main, args) != 0) {
            mem_free(args);
            pool->start_failed = 1;
            break;
        }
        pool->n_threads++;
    }
}

size_t tpool_started(tpool *pool)
{
    size_t n;
    if (pool == NULL)
        return 0;
    pthread_mutex_lock(&pool->mutex);
    n = pool->n_threads;
    pthread_mutex_unlock(&pool->mutex);
    return n;
}

void tpool_free(tpool *pool)
{
    size_t idx;
    if (pool == NULL)
        return;
    pthread_mutex_lock(&pool->mutex);
    pool->shutting_down = 1;
    pthread_cond_broadcast(&pool->work_cond);
    pthread_mutex_unlock(&pool->mutex);
    for (idx = 0; idx < pool->n_threads; idx++)
        pthread_join(pool->threads[idx], NULL);
    pthread_cond_destroy(&pool->work_cond);
    pthread_mutex_destroy(&pool->mutex);
    mem_free(pool->threads);
    mem_free(pool);
}

/* The planned width: callers size per-worker state by it before the workers start. */
size_t tpool_width(const tpool *pool) { return pool ? pool->n_planned + 1 : 1; }

static silt_status run_inline(size_t n_tasks, tpool_task_fn fn, void *payload, silt_error *err)
{
    size_t task;
    for (task = 0; task < n_tasks; task++) {
        silt_status rc = fn(payload, task, 0, err);
        if (rc != SILT_OK) {
            if (err != NULL && err->code == SILT_OK)
                err_set(err, rc, "parallel task %zu failed", task);
            return rc;
        }
    }
    return SILT_OK;
}

/* Puts a job in the pool's list, starting the workers with the first one, and wakes them. */
static void enqueue(tpool *pool, tpool_job *job, size_t n_tasks, tpool_task_fn fn, void *payload)
{
    tpool_job **link;
    memset(job, 0, sizeof(*job));
    job->fn = fn;
    job->payload = payload;
    job->n_tasks = n_tasks;
    atomic_init(&job->next_task, 0);
    pthread_cond_init(&job->done_cond, NULL);
    pthread_mutex_lock(&pool->mutex);
    start_workers(pool);
    for (link = &pool->jobs; *link != NULL; link = &(*link)->next)
        ;
    *link = job;
    pthread_cond_broadcast(&pool->work_cond);
    pthread_mutex_unlock(&pool->mutex);
}

/* Works on the job's remaining tasks, waits for the workers in it, takes it off the list. */
static silt_status finish(tpool *pool, tpool_job *job, silt_error *err)
{
    tpool_job **link;
    silt_status rc;
    drain_job(pool, job, 0);
    pthread_mutex_lock(&pool->mutex);
    while ((job->n_done < job->n_tasks && job->status == SILT_OK) || job->n_active > 0)
        pthread_cond_wait(&job->done_cond, &pool->mutex);
    for (link = &pool->jobs; *link != NULL; link = &(*link)->next) {
        if (*link == job) {
            *link = job->next;
            break;
        }
    }
    rc = job->status;
    pthread_mutex_unlock(&pool->mutex);
    pthread_cond_destroy(&job->done_cond);
    if (rc != SILT_OK)
        err_copy(err, &job->error);
    return rc;
}

silt_status tpool_run(tpool *pool, size_t n_tasks, tpool_task_fn fn, void *payload,
                      silt_error *err)
{
    tpool_job job;
    if (pool == NULL || pool->n_planned == 0 || n_tasks <= 1)
        return run_inline(n_tasks, fn, payload, err);
    enqueue(pool, &job, n_tasks, fn, payload);
    return finish(pool, &job, err);
}

struct tpool_async {
    tpool *pool;     /* NULL: the tasks ran inline at tpool_start */
    tpool_job job;
    silt_status inline_rc;
    silt_error inline_err;
};

silt_status tpool_start(tpool *pool, size_t n_tasks, tpool_task_fn fn, void *payload,
                        tpool_async **out, silt_error *err)
{
    tpool_async *as = mem_calloc(1, sizeof(*as));
    *out = NULL;
    if (as == NULL)
        return err_nomem(err);
    if (pool == NULL || pool->n_planned == 0 || n_tasks == 0) {
        as->inline_rc = run_inline(n_tasks, fn, payload, &as->inline_err);
    } else {
        as->pool = pool;
        enqueue(pool, &as->job, n_tasks, fn, payload);
    }
    *out = as;
    return SILT_OK;
}

silt_status tpool_wait(tpool_async *as, silt_error *err)
{
    silt_status rc;
    if (as == NULL)
        return SILT_OK;
    if (as->pool != NULL) {
        rc = finish(as->pool, &as->job, err);
    } else {
        rc = as->inline_rc;
        if (rc != SILT_OK)
            err_copy(err, &as->inline_err);
    }
    mem_free(as);
    return rc;
}

/*
 * Whether every task of a job finished (or it failed and the rest were
 * cancelled) and no worker is inside it: tpool_wait would not block.
 */
static int job_settled(tpool *pool, tpool_job *job)
{
    int settled;
    pthread_mutex_lock(&pool->mutex);
    settled = (job->n_done >= job->n_tasks || job->status != SILT_OK) && job->n_active == 0;
    pthread_mutex_unlock(&pool->mutex);
    return settled;
}

silt_status tpool_wait_helping(tpool_async *as, tpool_async *other, silt_error *err)
{
    if (as != NULL && as->pool != NULL) {
        drain_job(as->pool, &as->job, 0);
        if (other != NULL && other->pool == as->pool)
            while (!job_settled(as->pool, &as->job) && run_one(other->pool, &other->job, 0))
                ;
    }
    return tpool_wait(as, err);
}

void tpool_help(tpool_async *as)
{
    if (as != NULL && as->pool != NULL)
        drain_job(as->pool, &as->job, 0);
}

int tpool_done(tpool_async *as)
{
    return as == NULL || as->pool == NULL || job_settled(as->pool, &as->job);
}
