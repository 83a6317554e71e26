/*
 * run.c - the job engine's front: prepares every job folder (cmd.sh, stale
 * log and status removed), skips jobs that finished in an earlier run, and
 * hands the rest to the local pool or to Slurm.
 */
#include "internal.h"
#include "run_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void ks_run_options_init(ks_run_options *o)
{
    memset(o, 0, sizeof *o);
    o->engine = KS_ENGINE_LOCAL;
    o->parallel = 1;
    o->sbatch = "sbatch";
}

bool ks_run_stop_requested(const ks_run_tracker *t)
{
    return t->options->stop && *t->options->stop;
}

ks_status ks_run_mark_interrupted(const char *dir, ks_error *err)
{
    char *path = ks_path_join(dir, "status");
    if (!path)
        return ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    ks_status st = ks_run_write_text(path, KS_RUN_INTERRUPTED, err);
    free(path);
    return st;
}

double ks_run_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void ks_run_report(ks_run_tracker *t, bool force)
{
    double now = ks_run_now();
    ks_run_progress *p = &t->progress;
    p->elapsed_s = now - t->start_s;
    size_t finished = p->done + p->failed;
    size_t left = t->count > finished ? t->count - finished : 0;
    /* throughput so far predicts the rest; unknown until one job ended */
    p->eta_s = finished > 0 ? p->elapsed_s / (double)finished * (double)left : -1;
    if (left == 0)
        p->eta_s = 0;
    if (!t->cb || (!force && now - t->last_report_s < 1.0))
        return;
    t->last_report_s = now;
    t->cb(p, t->ctx);
}

ks_status ks_run_mkdirs(const char *path, ks_error *err)
{
    char *buf = strdup(path);
    if (!buf)
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    for (char *q = buf + 1;; q++) {
        bool end = *q == '\0';
        if (*q != '/' && !end)
            continue;
        *q = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            ks_error_set(err, KS_ERR_IO, buf, 0, "cannot create folder: %s", strerror(errno));
            free(buf);
            return KS_ERR_IO;
        }
        if (end)
            break;
        *q = '/';
    }
    struct stat sb;
    ks_status st = KS_OK;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        st = ks_error_set(err, KS_ERR_IO, path, 0, "not a folder");
    free(buf);
    return st;
}

ks_status ks_run_owned_dir(const char *path, ks_error *err)
{
    int fd = ks_owned_open_dir(path, true, err);
    if (fd < 0)
        return err ? err->status : KS_ERR_IO;
    close(fd);
    return KS_OK;
}

static ks_status put_text(const void *ctx, FILE *f, ks_error *err)
{
    (void)err;
    fputs(ctx, f);
    return KS_OK;
}

/* No fsync (unlike ks_write_atomic): two per job cost more than a short job
 * itself, and after a crash a lost or empty status only means the job runs
 * again (an empty status reads as "started"). */
ks_status ks_run_write_text(const char *path, const char *text, ks_error *err)
{
    return ks_write_renamed(path, 0644, false, put_text, text, err);
}

static ks_status remove_if_present(const char *dir, const char *name, ks_error *err)
{
    char *path = ks_path_join(dir, name);
    if (!path)
        return ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    ks_status st = KS_OK;
    if (unlink(path) != 0 && errno != ENOENT)
        st = ks_error_set(err, KS_ERR_IO, path, 0, "cannot remove: %s", strerror(errno));
    free(path);
    return st;
}

/* Makes the folder, writes cmd.sh and clears what an interrupted or failed
 * earlier attempt left; *finished when the job already succeeded. */
static ks_status prepare_job(const char *dir, const ks_run_job *job, bool *finished,
                             ks_error *err)
{
    ks_status st = ks_run_mkdirs(dir, err);
    ks_job_state state;
    int code;
    if (st == KS_OK)
        st = ks_run_dir_state(dir, &state, &code, err);
    if (st != KS_OK)
        return st;
    *finished = state == KS_JOB_DONE;
    if (*finished)
        return KS_OK;
    char *cmd = ks_path_join(dir, "cmd.sh");
    size_t len = strlen(job->command);
    char *text = malloc(len + 64);
    if (!cmd || !text) {
        free(cmd);
        free(text);
        return ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    }
    snprintf(text, len + 64, "# written by ksample run\n%s\n", job->command);
    st = ks_run_write_text(cmd, text, err);
    free(cmd);
    free(text);
    if (st == KS_OK)
        st = remove_if_present(dir, "status", err);
    if (st == KS_OK)
        st = remove_if_present(dir, "sim.log", err);
    return st;
}

static ks_status check_job(const ks_run_job *job, size_t i, ks_error *err)
{
    if (!job->dir || !*job->dir || !job->command)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "job %zu has no folder or command", i);
    if (strchr(job->dir, '\n'))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "job %zu: a folder name may not hold a newline", i);
    return KS_OK;
}

static ks_status prepare_all(ks_run_tracker *t, const ks_run_job *jobs, size_t n,
                             ks_error *err)
{
    const char *rundir = t->options->rundir;
    for (size_t i = 0; i < n; i++) {
        ks_status st = check_job(&jobs[i], i, err);
        if (st != KS_OK)
            return st;
        char *dir = jobs[i].dir[0] == '/' ? strdup(jobs[i].dir) : ks_path_join(rundir, jobs[i].dir);
        if (!dir)
            return ks_error_set(err, KS_ERR_NOMEM, rundir, 0, "out of memory");
        bool finished = false;
        st = prepare_job(dir, &jobs[i], &finished, err);
        if (st != KS_OK || finished) {
            free(dir);
            if (st != KS_OK)
                return st;
            t->progress.skipped++;
            continue;
        }
        t->dirs[t->count++] = dir;
    }
    return KS_OK;
}

ks_status ks_run_execute(const ks_run_options *o, const ks_run_job *jobs, size_t n,
                         ks_run_progress_fn cb, void *ctx, ks_run_progress *last,
                         ks_error *err)
{
    if (!o || !o->rundir || !*o->rundir)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "no run folder given");
    if (o->engine != KS_ENGINE_LOCAL && o->engine != KS_ENGINE_SLURM)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "unknown engine %d", (int)o->engine);
    ks_status st = ks_run_mkdirs(o->rundir, err);
    if (st != KS_OK)
        return st;
    ks_run_tracker t = {.options = o, .cb = cb, .ctx = ctx, .progress.total = n};
    t.dirs = calloc(n ? n : 1, sizeof *t.dirs);
    if (!t.dirs)
        return ks_error_set(err, KS_ERR_NOMEM, o->rundir, 0, "out of memory");
    st = prepare_all(&t, jobs, n, err);
    t.start_s = ks_run_now();
    if (st == KS_OK && t.count > 0 && !ks_run_stop_requested(&t))
        st = o->engine == KS_ENGINE_SLURM ? ks_run_slurm(&t, err) : ks_run_local(&t, err);
    t.progress.stopped = ks_run_stop_requested(&t);
    ks_run_report(&t, true);
    if (last)
        *last = t.progress;
    for (size_t i = 0; i < t.count; i++)
        free(t.dirs[i]);
    free(t.dirs);
    return st;
}
