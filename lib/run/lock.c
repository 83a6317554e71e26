/*
 * lock.c - one `ksample run` at a time in a run folder.  Two runs started
 * at once into one folder used to simulate every job twice, both writing
 * the same logs.  RUNDIR/lock is held with flock(2) for as long as the run
 * lasts; the kernel drops it when the process ends however it ends, so a
 * killed run never leaves a stale lock.  The descriptor is inherited by the
 * jobs the run starts: when the run is killed with SIGKILL its jobs go on
 * and still hold the folder.  The file says who holds it (pid, host, start
 * time), for the message the next run gets.  A run with --engine slurm
 * --no-wait ends while its array goes on: the array's id (slurm/job_id) is
 * asked of squeue, and while it has tasks queued or running the folder is
 * refused as well.
 */
#include "run_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

struct ks_run_lock {
    int fd;
};

/* What the holder wrote, on one line, into buf ("" when nothing). */
static void read_holder(int fd, char *buf, size_t size)
{
    ssize_t n = pread(fd, buf, size - 1, 0);
    if (n < 0)
        n = 0;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

/* Whether the holder's process still runs (on this host; otherwise we
 * cannot tell and say nothing). */
static const char *holder_note(const char *holder)
{
    long pid = 0;
    char host[256] = "", here[256] = "";
    if (sscanf(holder, "pid %ld on host %255s", &pid, host) != 2 || pid <= 0)
        return "";
    size_t n = strlen(host);
    if (n > 0 && host[n - 1] == ',')
        host[n - 1] = '\0';
    gethostname(here, sizeof here - 1);
    if (strcmp(host, here) != 0 || kill((pid_t)pid, 0) == 0 || errno == EPERM)
        return "";
    return " (that process has ended; jobs it started still run and hold the folder)";
}

ks_status ks_run_lock_take(const char *rundir, ks_run_lock **out, ks_error *err)
{
    *out = NULL;
    char *path = ks_path_join(rundir, "lock");
    if (!path)
        return ks_error_set(err, KS_ERR_NOMEM, rundir, 0, "out of memory");
    /* never through a link: truncating it would empty what it points to */
    int fd = open(path, O_RDWR | O_CREAT | O_NOCTTY | O_NOFOLLOW, 0644);
    if (fd < 0) {
        ks_status st = ks_error_set(err, KS_ERR_IO, path, 0, "cannot open the run folder's lock: %s",
                                    strerror(errno));
        free(path);
        return st;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        ks_status st;
        if (e == EWOULDBLOCK) {
            char holder[512];
            read_holder(fd, holder, sizeof holder);
            st = ks_error_set(err, KS_ERR_USAGE, rundir, 0,
                              "the run folder is in use by another 'ksample run' (%s)%s: wait "
                              "for it to end or stop it, then run again",
                              *holder ? holder : "holder unknown", holder_note(holder));
        } else {
            st = ks_error_set(err, KS_ERR_IO, path, 0, "cannot lock the run folder: %s",
                              strerror(e));
        }
        close(fd);
        free(path);
        return st;
    }
    free(path);
    /* the folder's jobs may also run as a Slurm array that an earlier
     * run --no-wait left behind: that holds the folder as much */
    ks_status live = ks_run_slurm_check_idle(rundir, err);
    if (live != KS_OK) {
        close(fd);
        return live;
    }
    char host[256] = "?", when[64] = "?", text[512];
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    int n = snprintf(text, sizeof text, "pid %ld on host %s, since %s\n", (long)getpid(), host,
                     when);
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)n, 0) != n) {
        /* the lock holds all the same; only the message would lack it */
    }
    ks_run_lock *l = malloc(sizeof *l);
    if (!l) {
        close(fd);
        return ks_error_set(err, KS_ERR_NOMEM, rundir, 0, "out of memory");
    }
    l->fd = fd;
    *out = l;
    return KS_OK;
}

void ks_run_lock_release(ks_run_lock *l)
{
    if (!l)
        return;
    close(l->fd); /* drops the flock unless a job still holds the descriptor */
    free(l);
}
