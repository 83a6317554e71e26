/*
 * run_local.c - the embedded engine: a pool of at most `parallel` child
 * processes, each `sh cmd.sh` in its job folder with stdout and stderr in
 * sim.log.  The parent writes the exit code to `status` when a child ends.
 *
 * Children are reaped by pid (waitpid(pid, WNOHANG)), never waitpid(-1): a
 * library must not collect the exit status of its caller's own children.
 *
 * Each job runs in a process group of its own (the child calls setpgid
 * before exec, the parent too, whichever runs first), so that a job is
 * stopped whole, simulator and all it started, and a Ctrl-C on the
 * terminal reaches ksample alone: when the caller's stop flag is set the
 * pool starts nothing more, sends SIGTERM to every running job's group,
 * SIGKILL to what is left of them after the grace period, and writes
 * "interrupted" as their status.
 */
#include "run_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct slot {
    pid_t pid; /* 0 = free */
    size_t job;
} slot;

/* In the child only async-signal-safe calls: the caller may have threads. */
static void exec_job(const char *dir)
{
    if (setpgid(0, 0) != 0 || chdir(dir) != 0)
        _exit(127);
    int log = open("sim.log", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0666);
    int null = open("/dev/null", O_RDONLY);
    if (log < 0 || null < 0 || dup2(null, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0)
        _exit(127);
    execl("/bin/sh", "sh", "cmd.sh", (char *)NULL);
    _exit(127);
}

static ks_status write_status(const char *dir, int code, ks_error *err)
{
    char *path = ks_path_join(dir, "status");
    if (!path)
        return ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    char text[32];
    snprintf(text, sizeof text, "%d\n", code);
    ks_status st = ks_run_write_text(path, text, err);
    free(path);
    return st;
}

static int exit_code_of(int wstatus)
{
    if (WIFEXITED(wstatus))
        return WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus))
        return 128 + WTERMSIG(wstatus); /* as a shell reports it */
    return 255;
}

/* Reaps finished children; returns how many ended. */
static size_t reap(ks_run_tracker *t, slot *slots, unsigned width, ks_status *st,
                   ks_error *err)
{
    size_t ended = 0;
    for (unsigned s = 0; s < width; s++) {
        if (slots[s].pid == 0)
            continue;
        int ws;
        pid_t r = waitpid(slots[s].pid, &ws, WNOHANG);
        if (r == 0 || (r < 0 && errno == EINTR))
            continue;
        int code = r < 0 ? 255 : exit_code_of(ws);
        ks_status w = write_status(t->dirs[slots[s].job], code, err);
        if (w != KS_OK && *st == KS_OK)
            *st = w;
        if (code == 0)
            t->progress.done++;
        else
            t->progress.failed++;
        t->progress.running--;
        slots[s].pid = 0;
        ended++;
    }
    return ended;
}

static ks_status start_job(ks_run_tracker *t, slot *sl, size_t job, ks_error *err)
{
    pid_t pid = fork();
    if (pid < 0)
        return ks_error_set(err, KS_ERR_IO, t->dirs[job], 0, "cannot start job: %s",
                            strerror(errno));
    if (pid == 0)
        exec_job(t->dirs[job]);
    /* also here, so that the group exists before any signal is sent to it
     * (EACCES once the child has exec'd: it made the group itself) */
    setpgid(pid, pid);
    sl->pid = pid;
    sl->job = job;
    t->progress.running++;
    return KS_OK;
}

static void nap(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Stops every running job: SIGTERM to its group, SIGKILL to what is left
 * after the grace period, its leader reaped, its status "interrupted".
 * Jobs that ended before are reaped first and keep their exit code. */
static void stop_jobs(ks_run_tracker *t, slot *slots, unsigned width, ks_status *st,
                      ks_error *err)
{
    reap(t, slots, width, st, err);
    bool *reaped = calloc(width, sizeof *reaped);
    for (unsigned s = 0; s < width; s++)
        if (slots[s].pid > 0)
            killpg(slots[s].pid, SIGTERM);
    double grace = t->options->grace_seconds > 0 ? t->options->grace_seconds : 5.0;
    double start = ks_run_now();
    bool killed = false;
    for (;;) {
        bool left = false;
        for (unsigned s = 0; s < width; s++) {
            if (slots[s].pid <= 0)
                continue;
            bool gone = reaped && reaped[s];
            if (!gone) {
                int ws;
                pid_t r = waitpid(slots[s].pid, &ws, killed ? 0 : WNOHANG);
                gone = r == slots[s].pid || (r < 0 && errno == ECHILD);
                if (gone && reaped)
                    reaped[s] = true;
            }
            /* the leader is gone; what it started may still run in its
             * group (a simulator under sh) */
            if (!gone || killpg(slots[s].pid, 0) == 0)
                left = true;
        }
        if (!left)
            break;
        if (killed) {
            if (ks_run_now() - start > grace + 5)
                break; /* SIGKILL was sent: nothing more can be done */
        } else if (ks_run_now() - start >= grace) {
            for (unsigned s = 0; s < width; s++)
                if (slots[s].pid > 0)
                    killpg(slots[s].pid, SIGKILL);
            killed = true;
        }
        nap(0.01);
    }
    for (unsigned s = 0; s < width; s++) {
        if (slots[s].pid <= 0)
            continue;
        if (!(reaped && reaped[s]))
            waitpid(slots[s].pid, NULL, 0);
        ks_status w = ks_run_mark_interrupted(t->dirs[slots[s].job], err);
        if (w != KS_OK && *st == KS_OK)
            *st = w;
        t->progress.interrupted++;
        t->progress.running--;
        slots[s].pid = 0;
    }
    free(reaped);
}

ks_status ks_run_local(ks_run_tracker *t, ks_error *err)
{
    unsigned width = t->options->parallel ? t->options->parallel : 1;
    slot *slots = calloc(width, sizeof *slots);
    if (!slots)
        return ks_error_set(err, KS_ERR_NOMEM, t->options->rundir, 0, "out of memory");
    /* the pause between looks grows from 1 ms while nothing ends, so short
     * jobs follow each other quickly and long ones cost no CPU */
    double longest = t->options->poll_seconds > 0 ? t->options->poll_seconds : 0.05;
    double poll = 0.001;
    ks_status st = KS_OK;
    size_t next = 0;
    ks_run_report(t, true);
    while (next < t->count || t->progress.running > 0) {
        if (ks_run_stop_requested(t)) {
            stop_jobs(t, slots, width, &st, err);
            break;
        }
        /* after a failure to start, only wait for the running ones */
        for (unsigned s = 0; s < width && next < t->count && st == KS_OK; s++)
            if (slots[s].pid == 0 && (st = start_job(t, &slots[s], next, err)) == KS_OK)
                next++;
        if (st != KS_OK)
            next = t->count;
        size_t started_now = t->progress.running;
        if (reap(t, slots, width, &st, err) > 0 || started_now == 0) {
            poll = 0.001;
            ks_run_report(t, true);
        } else {
            nap(poll); /* a signal cuts it short: the stop flag is seen at once */
            poll = poll * 2 < longest ? poll * 2 : longest;
            ks_run_report(t, false);
        }
    }
    free(slots);
    return st;
}
