/* Unit tests of util/thread: every task runs once, failures stop the job. */
#include <stdatomic.h>

#include "test.h"
#include "util/thread.h"
#include "util/time.h"

typedef struct counter_job {
    atomic_int runs[1000];
    atomic_int total;
    size_t fail_at;
} counter_job;

static silt_status count_task(void *payload, size_t task_idx, size_t worker_idx, silt_error *err)
{
    counter_job *job = payload;
    (void)worker_idx;
    if (task_idx == job->fail_at)
        return err_set(err, SILT_CORRUPT, "task %zu found corrupt input", task_idx);
    atomic_fetch_add(&job->runs[task_idx], 1);
    atomic_fetch_add(&job->total, 1);
    return SILT_OK;
}

void test_util_thread__every_task_runs_once(void)
{
    static counter_job job;
    tpool *pool = NULL;
    silt_error err = SILT_ERROR_INIT;
    size_t idx;
    memset(&job, 0, sizeof(job));
    job.fail_at = (size_t)-1;
    check_ok(tpool_new(&pool, 3, &err), &err);
    check_int(4, tpool_width(pool));
    check_ok(tpool_run(pool, 1000, count_task, &job, &err), &err);
    for (idx = 0; idx < 1000; idx++)
        check_int(1, atomic_load(&job.runs[idx]));
    check_int(1000, atomic_load(&job.total));
    tpool_free(pool);
}

void test_util_thread__failure_is_reported(void)
{
    static counter_job job;
    tpool *pool = NULL;
    silt_error err = SILT_ERROR_INIT;
    memset(&job, 0, sizeof(job));
    job.fail_at = 500;
    check_ok(tpool_new(&pool, 2, &err), &err);
    check_fails(SILT_CORRUPT, tpool_run(pool, 1000, count_task, &job, &err));
    check_str("task 500 found corrupt input", err.message);
    check(atomic_load(&job.total) < 1000);
    tpool_free(pool);
}

void test_util_thread__null_pool_runs_inline(void)
{
    static counter_job job;
    silt_error err = SILT_ERROR_INIT;
    memset(&job, 0, sizeof(job));
    job.fail_at = (size_t)-1;
    check_ok(tpool_run(NULL, 10, count_task, &job, &err), &err);
    check_int(10, atomic_load(&job.total));
    check_int(1, tpool_width(NULL));
    check(tpool_core_count() >= 1);
}

typedef struct nested_job {
    tpool *pool;
    atomic_int inner_total;
} nested_job;

static silt_status inner_task(void *payload, size_t task_idx, size_t worker_idx, silt_error *err)
{
    nested_job *job = payload;
    (void)task_idx;
    (void)worker_idx;
    (void)err;
    atomic_fetch_add(&job->inner_total, 1);
    return SILT_OK;
}

static silt_status outer_task(void *payload, size_t task_idx, size_t worker_idx, silt_error *err)
{
    nested_job *job = payload;
    (void)task_idx;
    (void)worker_idx;
    /* A task that submits a job must not deadlock the pool. */
    return tpool_run(job->pool, 50, inner_task, job, err);
}

void test_util_thread__nested_jobs_do_not_deadlock(void)
{
    nested_job job;
    silt_error err = SILT_ERROR_INIT;
    memset(&job, 0, sizeof(job));
    check_ok(tpool_new(&job.pool, 2, &err), &err);
    check_ok(tpool_run(job.pool, 20, outer_task, &job, &err), &err);
    check_int(1000, atomic_load(&job.inner_total));
    tpool_free(job.pool);
}

/* Workers start with the first job of several tasks, not with the pool. */
void test_util_thread__workers_start_with_first_parallel_job(void)
{
    static counter_job job;
    tpool *pool = NULL;
    silt_error err = SILT_ERROR_INIT;
    memset(&job, 0, sizeof(job));
    job.fail_at = (size_t)-1;
    check_ok(tpool_new(&pool, 2, &err), &err);
    check_int(3, tpool_width(pool));
    check_int(0, tpool_started(pool));
    check_ok(tpool_run(pool, 1, count_task, &job, &err), &err);
    check_int(0, tpool_started(pool));
    check_ok(tpool_run(pool, 100, count_task, &job, &err), &err);
    check_int(2, tpool_started(pool));
    check_ok(tpool_run(pool, 100, count_task, &job, &err), &err);
    check_int(2, tpool_started(pool));
    check_int(201, atomic_load(&job.total));
    tpool_free(pool);
}

/* A pool that never ran a parallel job frees without threads to join. */
void test_util_thread__unused_pool_frees(void)
{
    tpool *pool = NULL;
    silt_error err = SILT_ERROR_INIT;
    check_ok(tpool_new(&pool, 4, &err), &err);
    check_int(0, tpool_started(pool));
    tpool_free(pool);
}

static silt_status mark_task(void *payload, size_t task_idx, size_t worker_idx, silt_error *err)
{
    atomic_int *counts = payload;
    (void)worker_idx;
    atomic_fetch_add(&counts[task_idx], 1);
    if (task_idx == 57 && atomic_load(&counts[200]) != 0)
        return err_set(err, SILT_IO, "task %zu failed on purpose", task_idx);
    return SILT_OK;
}

/* A started job runs while the caller works; tpool_wait returns what tpool_run would. */
void test_util_thread__start_and_wait(void)
{
    static atomic_int counts[201];
    silt_error err = SILT_ERROR_INIT;
    tpool *pool = NULL;
    tpool_async *job = NULL;
    check_ok(tpool_new(&pool, 2, &err), &err);
    for (int with_pool = 0; with_pool < 2; with_pool++) {
        for (size_t idx = 0; idx < 201; idx++)
            atomic_store(&counts[idx], 0);
        check_ok(tpool_start(with_pool ? pool : NULL, 200, mark_task, counts, &job, &err), &err);
        check_ok(tpool_run(with_pool ? pool : NULL, 3, mark_task, counts + 100, &err), &err);
        check_ok(tpool_wait(job, &err), &err);
        for (size_t idx = 0; idx < 200; idx++)
            check_int(idx < 103 && idx >= 100 ? 2 : 1, atomic_load(&counts[idx]));
        atomic_store(&counts[200], 1); /* task 57 fails now */
        check_ok(tpool_start(with_pool ? pool : NULL, 200, mark_task, counts, &job, &err), &err);
        check_int(SILT_IO, tpool_wait(job, &err));
        check_contains(err.message, "task 57 failed on purpose");
        atomic_store(&counts[200], 0);
        err_clear(&err);
    }
    check_ok(tpool_wait(NULL, &err), &err);
    tpool_free(pool);
}

/* Job A's one task waits for every task of job B: only a caller that helps B gets A done. */
typedef struct helping_jobs {
    atomic_int a_started;
    atomic_int b_done;
    int n_b;
} helping_jobs;

static silt_status wait_for_b(void *payload, size_t task_idx, size_t worker_idx, silt_error *err)
{
    helping_jobs *h = payload;
    int64_t give_up = time_monotonic_nanos() + INT64_C(5000000000);
    (void)task_idx;
    (void)worker_idx;
    atomic_store(&h->a_started, 1);
    while (atomic_load(&h->b_done) < h->n_b)
        if (time_monotonic_nanos() > give_up)
            return err_set(err, SILT_IO, "the tasks of the other job never ran");
    return SILT_OK;
}

static silt_status count_b(void *payload, size_t task_idx, size_t worker_idx, silt_error *err)
{
    helping_jobs *h = payload;
    (void)task_idx;
    (void)worker_idx;
    (void)err;
    atomic_fetch_add(&h->b_done, 1);
    return SILT_OK;
}

void test_util_thread__wait_helping_runs_the_later_job(void)
{
    static helping_jobs h;
    silt_error err = SILT_ERROR_INIT;
    tpool *pool = NULL;
    tpool_async *a = NULL, *b = NULL;
    check_ok(tpool_new(&pool, 1, &err), &err);
    for (int round = 0; round < 20; round++) {
        atomic_store(&h.a_started, 0);
        atomic_store(&h.b_done, 0);
        h.n_b = 5;
        check_ok(tpool_start(pool, 1, wait_for_b, &h, &a, &err), &err);
        /* the worker holds A's task; B's tasks are left to the caller */
        while (!atomic_load(&h.a_started))
            ;
        check_ok(tpool_start(pool, 5, count_b, &h, &b, &err), &err);
        check_ok(tpool_wait_helping(a, b, &err), &err);
        check_ok(tpool_wait(b, &err), &err);
        check_int(5, atomic_load(&h.b_done));
    }
    /* no other job, or no pool: a plain wait */
    atomic_store(&h.b_done, 0);
    h.n_b = 0;
    check_ok(tpool_start(pool, 1, wait_for_b, &h, &a, &err), &err);
    check_ok(tpool_wait_helping(a, NULL, &err), &err);
    check_ok(tpool_start(NULL, 5, count_b, &h, &b, &err), &err);
    check_ok(tpool_start(NULL, 1, wait_for_b, &h, &a, &err), &err);
    check_ok(tpool_wait_helping(a, b, &err), &err);
    check_ok(tpool_wait(b, &err), &err);
    check_int(5, atomic_load(&h.b_done));
    tpool_free(pool);
}

/*
 * tpool_help runs the tasks nobody took on the caller and returns; after it
 * every task has run or is running, tpool_done turns true once the workers'
 * are finished, and tpool_wait returns what tpool_run would. Without a pool
 * the tasks ran inside tpool_start: done at once.
 */
void test_util_thread__help_and_done(void)
{
    static atomic_int counts[201];
    silt_error err = SILT_ERROR_INIT;
    tpool *pool = NULL;
    tpool_async *job = NULL;
    check_ok(tpool_new(&pool, 1, &err), &err);
    for (int with_pool = 0; with_pool < 2; with_pool++) {
        for (size_t idx = 0; idx < 201; idx++)
            atomic_store(&counts[idx], 0);
        check_ok(tpool_start(with_pool ? pool : NULL, 200, mark_task, counts, &job, &err), &err);
        if (!with_pool)
            check(tpool_done(job));
        tpool_help(job);
        while (!tpool_done(job))
            ; /* only the worker's last task can be left */
        for (size_t idx = 0; idx < 200; idx++)
            check_int(1, atomic_load(&counts[idx]));
        check_ok(tpool_wait(job, &err), &err);
    }
    /* a failing task: done, and the wait reports it */
    for (size_t idx = 0; idx < 201; idx++)
        atomic_store(&counts[idx], 0);
    atomic_store(&counts[200], 1);
    check_ok(tpool_start(pool, 200, mark_task, counts, &job, &err), &err);
    tpool_help(job);
    while (!tpool_done(job))
        ;
    check_fails(SILT_IO, tpool_wait(job, &err));
    check_contains(err.message, "failed on purpose");
    check(tpool_done(NULL));
    tpool_help(NULL);
    tpool_free(pool);
}
