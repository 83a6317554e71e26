/*
 * test_thread.c - the library's kept worker threads (lib/core/thread.c):
 * every job runs once and is joined; a joined thread takes the next job; at
 * most 16 wait at a time and an idle one ends after its two seconds; many
 * threads may start and join at once; a forked child starts new ones.
 * Threads are counted in /proc/self/task.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "test_main.h"

static int task_count(void)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Waits up to `ms` for at most `most` threads in the process. */
static int settle_to(int most, long ms)
{
    int n = task_count();
    for (long waited = 0; n > most && waited < ms; waited += 20) {
        sleep_ms(20);
        n = task_count();
    }
    return n;
}

typedef struct job {
    uint64_t from, to, sum;
    pthread_t ran_on;
    atomic_int *runs;
} job;

static void *sum_range(void *arg)
{
    job *j = arg;
    j->sum = 0;
    for (uint64_t i = j->from; i < j->to; i++)
        j->sum += i;
    j->ran_on = pthread_self();
    if (j->runs)
        atomic_fetch_add(j->runs, 1);
    return NULL;
}

static void test_thread_runs_each_job_once(void **state)
{
    (void)state;
    enum { N = 12 };
    job jobs[N];
    ks_thread *t[N];
    atomic_int runs = 0;
    for (int i = 0; i < N; i++) {
        jobs[i] = (job){(uint64_t)i * 1000, (uint64_t)i * 1000 + 100000, 0, 0, &runs};
        assert_true(ks_thread_start(&t[i], sum_range, &jobs[i]));
    }
    for (int i = 0; i < N; i++)
        ks_thread_join(t[i]);
    assert_int_equal(atomic_load(&runs), N);
    for (int i = 0; i < N; i++) {
        uint64_t a = jobs[i].from, b = jobs[i].to;
        assert_int_equal(jobs[i].sum, (b * (b - 1) - a * (a - 1)) / 2);
        assert_false(pthread_equal(jobs[i].ran_on, pthread_self()));
    }
}

static void test_thread_joined_one_takes_next_job(void **state)
{
    (void)state;
    job j = {0, 10, 0, 0, NULL};
    ks_thread *t;
    assert_true(ks_thread_start(&t, sum_range, &j));
    ks_thread_join(t);
    pthread_t first = j.ran_on;
    int before = task_count();
    for (int i = 0; i < 200; i++) {
        j = (job){0, (uint64_t)i, 0, 0, NULL};
        assert_true(ks_thread_start(&t, sum_range, &j));
        ks_thread_join(t);
        assert_true(pthread_equal(j.ran_on, first));
        assert_int_equal(j.sum, (uint64_t)(i * (i - 1) / 2));
    }
    assert_int_equal(task_count(), before);
}

static void test_thread_keeps_at_most_16_and_idle_ones_end(void **state)
{
    (void)state;
    int base = settle_to(1, 3000);
    enum { N = 24 };
    job jobs[N];
    ks_thread *t[N];
    for (int i = 0; i < N; i++) {
        jobs[i] = (job){0, 1000, 0, 0, NULL};
        assert_true(ks_thread_start(&t[i], sum_range, &jobs[i]));
    }
    assert_true(task_count() >= base + 1);
    for (int i = 0; i < N; i++)
        ks_thread_join(t[i]);
    /* the 8 beyond the 16 kept end at once */
    assert_true(settle_to(base + 16, 1500) <= base + 16);
    assert_true(task_count() >= base + 1);
    /* and the kept ones after two idle seconds */
    assert_int_equal(settle_to(base, 4000), base);
}

typedef struct many {
    atomic_int *runs;
    int failures;
} many;

static void *start_and_join_many(void *arg)
{
    many *m = arg;
    for (int i = 0; i < 100; i++) {
        job j = {0, (uint64_t)i, 0, 0, m->runs};
        ks_thread *t;
        if (!ks_thread_start(&t, sum_range, &j)) {
            m->failures++;
            continue;
        }
        ks_thread_join(t);
        m->failures += j.sum != (uint64_t)(i * (i - 1) / 2);
    }
    return NULL;
}

static void test_thread_starts_from_many_threads_at_once(void **state)
{
    (void)state;
    enum { CALLERS = 6 };
    pthread_t callers[CALLERS];
    many m[CALLERS];
    atomic_int runs = 0;
    for (int i = 0; i < CALLERS; i++) {
        m[i] = (many){&runs, 0};
        assert_int_equal(pthread_create(&callers[i], NULL, start_and_join_many, &m[i]), 0);
    }
    for (int i = 0; i < CALLERS; i++) {
        pthread_join(callers[i], NULL);
        assert_int_equal(m[i].failures, 0);
    }
    assert_int_equal(atomic_load(&runs), CALLERS * 100);
}

static void test_thread_forked_child_starts_its_own(void **state)
{
    (void)state;
    job j = {0, 10, 0, 0, NULL};
    ks_thread *t;
    assert_true(ks_thread_start(&t, sum_range, &j));
    ks_thread_join(t); /* now one waits in the parent */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(10); /* a child that waited on the parent's thread would hang */
        job c = {0, 100, 0, 0, NULL};
        ks_thread *ct;
        if (!ks_thread_start(&ct, sum_range, &c))
            _exit(2);
        ks_thread_join(ct);
        _exit(c.sum == 4950 ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    /* the parent's kept thread still works */
    j = (job){0, 10, 0, 0, NULL};
    assert_true(ks_thread_start(&t, sum_range, &j));
    ks_thread_join(t);
    assert_int_equal(j.sum, 45);
}

KS_TEST_MAIN(test_thread_runs_each_job_once, test_thread_joined_one_takes_next_job,
             test_thread_keeps_at_most_16_and_idle_ones_end,
             test_thread_starts_from_many_threads_at_once, test_thread_forked_child_starts_its_own)
