/*
 * run_slurm.c - the Slurm engine: the jobs still to run become one job
 * array (`sbatch --array=0-(M-1)[%throttle]`); task k reads the k-th folder
 * from a list file and runs cmd.sh there exactly as the local engine does,
 * writing sim.log and, atomically (write then rename), status.
 *
 * A list file rather than a case statement in the script: folder names then
 * need no shell quoting, and the script stays small for 100k tasks.
 *
 * When the caller's stop flag is set, the array is cancelled (`scancel
 * JOBID`), sbatch is stopped, and every job that had started and has no
 * status is marked "interrupted"; a task that Slurm signals writes that
 * status itself when its command has ended.
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

/* Single-quotes s for sh. */
static char *shell_quote(const char *s)
{
    size_t n = 2;
    for (const char *p = s; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *q = malloc(n + 1), *w = q;
    if (!q)
        return NULL;
    *w++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(w, "'\\''", 4);
            w += 4;
        } else
            *w++ = *p;
    }
    *w++ = '\'';
    *w = '\0';
    return q;
}

static const char SCRIPT[] =
    "#!/bin/sh\n"
    "# written by ksample run: task N of this array runs the job in line N+1 of\n"
    "# the list, as the local engine does (sim.log, then status = exit code)\n"
    "list=%s\n"
    "dir=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" \"$list\")\n"
    "[ -n \"$dir\" ] || { echo \"ksample: no line $((SLURM_ARRAY_TASK_ID + 1)) in $list\" >&2; "
    "exit 1; }\n"
    "cd \"$dir\" || exit 1\n"
    "rm -f status\n"
    "# the job in a process group of its own (setsid -w: the job's exit code\n"
    "# also if setsid has to fork), so that a signal to this task (scancel)\n"
    "# stops the job whole: SIGTERM, SIGKILL after 5 s\n"
    "stop() {\n"
    "  kill -TERM -$job 2>/dev/null || kill -TERM $job 2>/dev/null\n"
    "  wait $job\n"
    "  i=0; while kill -0 -$job 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done\n"
    "  kill -KILL -$job 2>/dev/null\n"
    "  printf 'interrupted\\n' >status.tmp.$$ && mv -f status.tmp.$$ status\n"
    "  exit \"$1\"\n"
    "}\n"
    "trap 'stop 143' TERM\n"
    "trap 'stop 130' INT\n"
    "trap 'stop 129' HUP\n"
    "if setsid -w true 2>/dev/null; then\n"
    "  setsid -w sh ./cmd.sh >sim.log 2>&1 </dev/null &\n"
    "else\n"
    "  sh ./cmd.sh >sim.log 2>&1 </dev/null &\n"
    "fi\n"
    "job=$!\n"
    "wait $job\n"
    "code=$?\n"
    "printf '%%d\\n' \"$code\" >status.tmp.$$ && mv -f status.tmp.$$ status\n"
    "exit \"$code\"\n";

static ks_status write_list_and_script(ks_run_tracker *t, const char *list, const char *script,
                                       ks_error *err)
{
    size_t size = 1;
    for (size_t i = 0; i < t->count; i++)
        size += strlen(t->dirs[i]) + 1;
    char *text = malloc(size);
    if (!text)
        return ks_error_set(err, KS_ERR_NOMEM, list, 0, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < t->count; i++)
        k += (size_t)sprintf(text + k, "%s\n", t->dirs[i]);
    text[k] = '\0';
    ks_status st = ks_run_write_text(list, text, err);
    free(text);
    if (st != KS_OK)
        return st;
    char *quoted = shell_quote(list);
    size_t n = quoted ? sizeof SCRIPT + strlen(quoted) : 0;
    char *body = quoted ? malloc(n) : NULL;
    if (!body) {
        free(quoted);
        return ks_error_set(err, KS_ERR_NOMEM, script, 0, "out of memory");
    }
    snprintf(body, n, SCRIPT, quoted);
    st = ks_run_write_text(script, body, err);
    free(quoted);
    free(body);
    return st;
}

#define MAX_ARGS 16

typedef struct sbatch_call {
    char *argv[MAX_ARGS + 1];
    int argc;
    char *owned[MAX_ARGS];
    int owned_count;
} sbatch_call;

static bool add_arg(sbatch_call *c, const char *fmt, const char *value)
{
    int n = snprintf(NULL, 0, fmt, value);
    char *s = malloc((size_t)n + 1);
    if (!s || c->argc == MAX_ARGS) {
        free(s);
        return false;
    }
    snprintf(s, (size_t)n + 1, fmt, value);
    c->owned[c->owned_count++] = s;
    c->argv[c->argc++] = s;
    return true;
}

static bool build_call(sbatch_call *c, const ks_run_options *o, size_t count,
                       const char *outputs, const char *script)
{
    memset(c, 0, sizeof *c);
    char array[64];
    snprintf(array, sizeof array, "0-%zu", count - 1);
    if (o->throttle)
        snprintf(array + strlen(array), sizeof array - strlen(array), "%%%u", o->throttle);
    bool ok = add_arg(c, "%s", o->sbatch ? o->sbatch : "sbatch") &&
              add_arg(c, "%s", "--parsable") && add_arg(c, "%s", "--job-name=ksample") &&
              add_arg(c, "--array=%s", array) && add_arg(c, "--output=%s", outputs);
    if (ok && o->partition)
        ok = add_arg(c, "--partition=%s", o->partition);
    if (ok && o->time_limit)
        ok = add_arg(c, "--time=%s", o->time_limit);
    if (ok && o->memory)
        ok = add_arg(c, "--mem=%s", o->memory);
    if (ok && o->account)
        ok = add_arg(c, "--account=%s", o->account);
    if (ok && o->wait)
        ok = add_arg(c, "%s", "--wait");
    return ok && add_arg(c, "%s", script);
}

static void free_call(sbatch_call *c)
{
    for (int i = 0; i < c->owned_count; i++)
        free(c->owned[i]);
}

/* The one way a Slurm command runs here (sbatch, squeue): argv started
 * with stdin from /dev/null, stdout on a pipe (*out_fd; non-blocking when
 * asked, for a caller that polls) and stderr in errfile (NULL: /dev/null). */
static ks_status start_captured(char *const argv[], const char *errfile, bool nonblocking,
                                pid_t *pid, int *out_fd, ks_error *err)
{
    int fds[2];
    if (pipe(fds) != 0)
        return ks_error_set(err, KS_ERR_IO, NULL, 0, "pipe: %s", strerror(errno));
    int ef = errfile ? open(errfile, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0666)
                     : open("/dev/null", O_WRONLY);
    if (ef < 0) {
        close(fds[0]);
        close(fds[1]);
        return ks_error_set(err, KS_ERR_IO, errfile, 0, "cannot create: %s", strerror(errno));
    }
    *pid = fork();
    if (*pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null < 0 || dup2(null, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(ef, 2) < 0)
            _exit(127);
        close(fds[0]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(ef);
    close(fds[1]);
    if (*pid < 0) {
        close(fds[0]);
        return ks_error_set(err, KS_ERR_IO, NULL, 0, "cannot start %s: %s", argv[0],
                            strerror(errno));
    }
    if (nonblocking)
        fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    *out_fd = fds[0];
    return KS_OK;
}

/* Counts finished jobs from their status files (tasks write them). */
static ks_status count_states(ks_run_tracker *t, ks_error *err)
{
    size_t done = 0, failed = 0, running = 0;
    for (size_t i = 0; i < t->count; i++) {
        ks_job_state s;
        int code;
        ks_status st = ks_run_dir_state(t->dirs[i], &s, &code, err);
        if (st != KS_OK)
            return st;
        done += s == KS_JOB_DONE;
        failed += s == KS_JOB_FAILED;
        running += s == KS_JOB_STARTED;
    }
    t->progress.done = done;
    t->progress.failed = failed;
    t->progress.running = running;
    return KS_OK;
}

static void read_available(int fd, char *buf, size_t size, size_t *len)
{
    for (;;) {
        if (*len + 1 >= size)
            return;
        ssize_t got = read(fd, buf + *len, size - 1 - *len);
        if (got <= 0)
            return;
        *len += (size_t)got;
        buf[*len] = '\0';
    }
}

/* --parsable prints "jobid" or "jobid;cluster". */
static void take_job_id(ks_run_tracker *t, const char *out)
{
    size_t n = strcspn(out, ";\n");
    if (n == 0 || out[n] == '\0' || n >= sizeof t->progress.slurm_job_id)
        return;
    memcpy(t->progress.slurm_job_id, out, n);
    t->progress.slurm_job_id[n] = '\0';
}

static ks_status sbatch_failure(const char *errfile, int code, ks_error *err)
{
    char msg[400] = "";
    FILE *f = fopen(errfile, "rb");
    if (f) {
        size_t got = fread(msg, 1, sizeof msg - 1, f);
        msg[got] = '\0';
        fclose(f);
    }
    msg[strcspn(msg, "\n")] = '\0';
    return ks_error_set(err, KS_ERR_IO, errfile, 0, "sbatch failed (exit %d)%s%s", code,
                        *msg ? ": " : "", msg);
}

/* `scancel JOBID`, waited for. */
static void cancel_array(ks_run_tracker *t)
{
    const char *prog = t->options->scancel ? t->options->scancel : "scancel";
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
        }
        execlp(prog, prog, t->progress.slurm_job_id, (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

/* The run was told to stop: the array cancelled, the jobs that had
 * started and have no status marked interrupted. */
static ks_status stop_array(ks_run_tracker *t, ks_error *err)
{
    if (t->progress.slurm_job_id[0])
        cancel_array(t);
    for (size_t i = 0; i < t->count; i++) {
        ks_job_state s;
        int code;
        ks_status st = ks_run_dir_state(t->dirs[i], &s, &code, err);
        if (st == KS_OK && s == KS_JOB_STARTED)
            st = ks_run_mark_interrupted(t->dirs[i], err);
        if (st != KS_OK)
            return st;
        t->progress.interrupted += s == KS_JOB_STARTED || s == KS_JOB_INTERRUPTED;
    }
    t->progress.running = 0;
    return KS_OK;
}

/* Waits for sbatch; with --wait that is until every task ended, and the
 * status files give progress meanwhile. */
static ks_status supervise(ks_run_tracker *t, pid_t pid, int fd, const char *errfile,
                           ks_error *err)
{
    char out[256] = "";
    size_t len = 0;
    double poll = t->options->poll_seconds > 0 ? t->options->poll_seconds : 1.0;
    struct timespec nap = {(time_t)poll, (long)((poll - (double)(time_t)poll) * 1e9)};
    ks_status st = KS_OK;
    int ws = 0;
    bool stopping = false;
    for (;;) {
        read_available(fd, out, sizeof out, &len);
        if (!t->progress.slurm_job_id[0])
            take_job_id(t, out);
        if (!stopping && ks_run_stop_requested(t)) {
            /* sbatch stops waiting; the array is cancelled once its id is
             * read to the end (stop_array) */
            stopping = true;
            kill(pid, SIGTERM);
        }
        pid_t r = waitpid(pid, &ws, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            break;
        if (t->options->wait && st == KS_OK && t->progress.slurm_job_id[0]) {
            st = count_states(t, err);
            ks_run_report(t, false);
        }
        nanosleep(&nap, NULL);
    }
    read_available(fd, out, sizeof out, &len);
    take_job_id(t, out);
    close(fd);
    if (st != KS_OK)
        return st;
    if (stopping || ks_run_stop_requested(t))
        return stop_array(t, err); /* also an id sbatch printed as it was stopped */
    /* with --wait, a failed task makes sbatch exit non-zero: the status
     * files say which; only a missing job id means sbatch itself failed */
    if (!t->progress.slurm_job_id[0])
        return sbatch_failure(errfile, WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, err);
    return t->options->wait ? count_states(t, err) : KS_OK;
}

ks_status ks_run_slurm_check_idle(const char *rundir, ks_error *err)
{
    char *idfile = ks_path_join(rundir, "slurm/job_id");
    if (!idfile)
        return ks_error_set(err, KS_ERR_NOMEM, rundir, 0, "out of memory");
    char id[32] = "";
    FILE *f = NULL;
    ks_error ignored; /* none, or not a file (a FIFO is not waited on): no array */
    if (ks_file_open_read(idfile, &f, &ignored) != KS_OK)
        f = NULL;
    free(idfile);
    if (!f)
        return KS_OK;
    bool got = fgets(id, sizeof id, f) != NULL;
    fclose(f);
    id[strcspn(id, "\n")] = '\0';
    /* sbatch --parsable prints ID or ID;CLUSTER: only the digits count */
    size_t n = strspn(id, "0123456789");
    if (!got || n == 0)
        return KS_OK;
    id[n] = '\0';
    char *argv[] = {"squeue", "-h", "-j", id, "-o", "%i", NULL};
    pid_t pid;
    int fd;
    ks_error not_started;
    if (start_captured(argv, NULL, false, &pid, &fd, &not_started) != KS_OK)
        return KS_OK; /* no squeue to ask: nothing it can say is still queued */
    char out[256];
    ssize_t r;
    bool any = false;
    while ((r = read(fd, out, sizeof out)) != 0) {
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (ssize_t i = 0; i < r; i++)
            any = any || (out[i] != '\n' && out[i] != ' ');
    }
    close(fd);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    /* squeue failed (absent, no controller, an id it has forgotten): there
     * is nothing it can say is still queued */
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0 || !any)
        return KS_OK;
    return ks_error_set(err, KS_ERR_USAGE, rundir, 0,
                        "the run folder's jobs still run as Slurm array %s (an earlier 'ksample "
                        "run --no-wait' submitted it; squeue -j %s lists it): wait for it "
                        "to end ('ksample status %s') or cancel it (scancel %s), then run again",
                        id, id, rundir, id);
}

static char *slurm_file(const char *rundir, const char *fmt, const char *arg)
{
    char name[128];
    snprintf(name, sizeof name, fmt, arg);
    return ks_path_join(rundir, name);
}

ks_status ks_run_slurm(ks_run_tracker *t, ks_error *err)
{
    const char *rundir = t->options->rundir;
    char stamp[64];
    /* one list and script per submission: an array still running keeps its own */
    snprintf(stamp, sizeof stamp, "%ld-%ld", (long)time(NULL), (long)getpid());
    char *dir = ks_path_join(rundir, "slurm");
    char *list = slurm_file(rundir, "slurm/array-%s.txt", stamp);
    char *script = slurm_file(rundir, "slurm/array-%s.sh", stamp);
    char *errfile = slurm_file(rundir, "slurm/sbatch-%s.err", stamp);
    char *outputs = slurm_file(rundir, "slurm/task-%s", "%A_%a.out");
    char *idfile = ks_path_join(rundir, "slurm/job_id");
    ks_status st = KS_OK;
    if (!dir || !list || !script || !errfile || !outputs || !idfile)
        st = ks_error_set(err, KS_ERR_NOMEM, rundir, 0, "out of memory");
    if (st == KS_OK)
        st = ks_run_mkdirs(dir, err);
    if (st == KS_OK)
        st = write_list_and_script(t, list, script, err);
    sbatch_call call;
    memset(&call, 0, sizeof call);
    if (st == KS_OK && !build_call(&call, t->options, t->count, outputs, script))
        st = ks_error_set(err, KS_ERR_NOMEM, rundir, 0, "out of memory");
    pid_t pid = 0;
    int fd = -1;
    if (st == KS_OK)
        st = start_captured(call.argv, errfile, true, &pid, &fd, err);
    if (st == KS_OK)
        st = supervise(t, pid, fd, errfile, err);
    if (st == KS_OK) {
        char line[64];
        snprintf(line, sizeof line, "%s\n", t->progress.slurm_job_id);
        st = ks_run_write_text(idfile, line, err);
    }
    free_call(&call);
    free(dir);
    free(list);
    free(script);
    free(errfile);
    free(outputs);
    free(idfile);
    return st;
}
