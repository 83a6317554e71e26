/*
 * thread.c - the library's worker threads, kept for the next job.
 *
 * Every compressed input starts a splitter and its decoding threads, and a
 * parallel CSV read starts its block workers.  Creating a thread for each
 * and letting it end costs little natively (glibc keeps the stacks), but
 * under ASan each new thread maps and unmaps its own bookkeeping and fills
 * an empty allocator cache, and every unmap in a threaded process flushes
 * the TLB of every core: reading a short compressed input spent most of its
 * time there.  So a thread whose function has returned and been joined
 * waits up to IDLE_SECONDS for the next one; at most IDLE_KEEP wait at a
 * time and the others end at once.
 *
 * One mutex guards every record.  A record is in one of three states:
 * running (fn set), finished and not yet joined (done), or idle on the list
 * (idle).  Its thread and its joiner both wait on its condition variable.
 * Kept threads are detached; a thread that ends frees its own record.
 *
 * A child of fork() has none of the parent's threads: the child forgets the
 * idle list (its records stay allocated until it execs or exits) and starts
 * new threads when asked.
 */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

enum { IDLE_KEEP = 16, IDLE_SECONDS = 2 };

struct ks_thread {
    void *(*fn)(void *);
    void *arg;
    bool done; /* fn returned; the joiner has not yet seen it */
    bool idle; /* on the idle list, waiting for a job */
    bool quit; /* end instead of waiting for another job */
    pthread_cond_t cv;
    ks_thread *next; /* on the idle list */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static ks_thread *idle_list;
static int idle_count;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fork_prepare(void) { pthread_mutex_lock(&mu); }
static void fork_parent(void) { pthread_mutex_unlock(&mu); }
static void fork_child(void)
{
    idle_list = NULL;
    idle_count = 0;
    pthread_mutex_unlock(&mu);
}

static void register_fork_handlers(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

/* Removes t from the idle list; the caller holds mu. */
static void unlink_idle(ks_thread *t)
{
    for (ks_thread **at = &idle_list; *at; at = &(*at)->next)
        if (*at == t) {
            *at = t->next;
            idle_count--;
            break;
        }
    t->idle = false;
    t->next = NULL;
}

/* Waits for the next job, or until idle too long; mu held. */
static void wait_for_job(ks_thread *t)
{
    while (!t->fn && !t->quit) {
        if (!t->idle) {
            pthread_cond_wait(&t->cv, &mu);
            continue;
        }
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += IDLE_SECONDS;
        int rc = 0;
        while (!t->fn && t->idle && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&t->cv, &mu, &until);
        if (!t->fn && t->idle) {
            unlink_idle(t);
            t->quit = true;
        }
    }
}

static void *thread_main(void *arg)
{
    ks_thread *t = arg;
    pthread_mutex_lock(&mu);
    for (;;) {
        wait_for_job(t);
        if (t->quit)
            break;
        void *(*fn)(void *) = t->fn;
        void *fn_arg = t->arg;
        pthread_mutex_unlock(&mu);
        fn(fn_arg);
        pthread_mutex_lock(&mu);
        t->fn = NULL;
        t->done = true;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&mu);
    pthread_cond_destroy(&t->cv);
    free(t);
    return NULL;
}

bool ks_thread_start(ks_thread **out, void *(*fn)(void *), void *arg)
{
    pthread_once(&once, register_fork_handlers);
    pthread_mutex_lock(&mu);
    ks_thread *t = idle_list;
    if (t) {
        unlink_idle(t);
        t->fn = fn;
        t->arg = arg;
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&mu);
        *out = t;
        return true;
    }
    pthread_mutex_unlock(&mu);

    t = calloc(1, sizeof *t);
    if (!t)
        return false;
    pthread_condattr_t ca;
    bool made = pthread_condattr_init(&ca) == 0;
    if (made) {
        made = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
               pthread_cond_init(&t->cv, &ca) == 0;
        pthread_condattr_destroy(&ca);
    }
    if (!made) {
        free(t);
        return false;
    }
    t->fn = fn;
    t->arg = arg;
    pthread_attr_t attr;
    pthread_t id;
    bool started = pthread_attr_init(&attr) == 0;
    if (started) {
        started = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
                  pthread_create(&id, &attr, thread_main, t) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!started) {
        pthread_cond_destroy(&t->cv);
        free(t);
        return false;
    }
    *out = t;
    return true;
}

void ks_thread_join(ks_thread *t)
{
    pthread_mutex_lock(&mu);
    while (!t->done)
        pthread_cond_wait(&t->cv, &mu);
    t->done = false;
    if (idle_count < IDLE_KEEP) {
        t->idle = true;
        t->next = idle_list;
        idle_list = t;
        idle_count++;
    } else {
        t->quit = true;
    }
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&mu);
}
