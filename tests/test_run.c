/*
 * test_run.c - the job engine (lib/run): the local pool's logs, status files
 * and exit codes (signals included), resuming, progress, the Slurm engine
 * against a stand-in sbatch (tests/slurm.sh runs the real one), the run
 * manifest round trip and its malformed forms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksample.h"
#include "tmpdir.h"

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[4][4096];
    static unsigned next;
    char *b = buf[next++ % 4];
    size_t n = fread(b, 1, sizeof buf[0] - 1, f);
    b[n] = '\0';
    fclose(f);
    return b;
}

typedef struct progress_log {
    unsigned calls;
    ks_run_progress last;
    size_t max_finished;
    int monotone;
} progress_log;

static void on_progress(const ks_run_progress *p, void *ctx)
{
    progress_log *log = ctx;
    size_t finished = p->done + p->failed;
    if (finished < log->max_finished)
        log->monotone = 0;
    log->max_finished = finished;
    log->last = *p;
    log->calls++;
}

#define NJOBS 10

static void make_jobs(ks_run_job *jobs, char dirs[][32], char cmds[][128], const char *fmt)
{
    for (int k = 0; k < NJOBS; k++) {
        snprintf(dirs[k], 32, "jobs/%04d", k);
        /* job k fails with code k when k % 4 == 3 */
        snprintf(cmds[k], 128, fmt, k, k, k % 4 == 3 ? k : 0);
        jobs[k].dir = dirs[k];
        jobs[k].command = cmds[k];
    }
}

static void test_local_pool_and_rerun(void **state)
{
    (void)state;
    const char *rundir = in_dir("local");
    ks_run_options o;
    ks_run_options_init(&o);
    o.rundir = rundir;
    o.parallel = 3;
    ks_run_job jobs[NJOBS];
    char dirs[NJOBS][32], cmds[NJOBS][128];
    make_jobs(jobs, dirs, cmds, "echo out %d; echo err %d >&2; exit %d");
    progress_log log = {.monotone = 1};
    ks_run_progress last;
    ks_error err;
    assert_int_equal(ks_run_execute(&o, jobs, NJOBS, on_progress, &log, &last, &err), KS_OK);
    assert_int_equal(last.total, NJOBS);
    assert_int_equal(last.skipped, 0);
    assert_int_equal(last.done, 8);
    assert_int_equal(last.failed, 2);
    assert_int_equal(last.running, 0);
    assert_true(log.calls >= 2);
    assert_true(log.monotone);
    assert_int_equal(log.last.done, 8);
    assert_true(log.last.eta_s == 0);

    char path[8192];
    snprintf(path, sizeof path, "%s/jobs/0003/status", rundir);
    assert_string_equal(read_all(path), "3\n");
    snprintf(path, sizeof path, "%s/jobs/0004/sim.log", rundir);
    assert_string_equal(read_all(path), "out 4\nerr 4\n");
    ks_job_state s;
    int code;
    assert_int_equal(ks_run_job_state(rundir, "jobs/0007", &s, &code, &err), KS_OK);
    assert_int_equal(s, KS_JOB_FAILED);
    assert_int_equal(code, 7);
    assert_int_equal(ks_run_job_state(rundir, "jobs/0000", &s, &code, &err), KS_OK);
    assert_int_equal(s, KS_JOB_DONE);
    char *tail;
    assert_int_equal(ks_run_log_tail(rundir, "jobs/0007", 1, &tail, &err), KS_OK);
    assert_string_equal(tail, "err 7\n");
    free(tail);
    assert_int_equal(ks_run_log_tail(rundir, "jobs/0007", 5, &tail, &err), KS_OK);
    assert_string_equal(tail, "out 7\nerr 7\n");
    free(tail);

    /* the run is refused as incomplete, naming the failed jobs */
    ks_run_manifest_job mj[NJOBS];
    for (int k = 0; k < NJOBS; k++)
        mj[k] = (ks_run_manifest_job){.dir = dirs[k]};
    ks_run_manifest m = {.plan = "plan.json", .job_count = NJOBS, .jobs = mj};
    assert_int_equal(ks_run_check_complete(rundir, &m, &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "2 of 10 jobs not done (2 failed): jobs/0003 (failed, "
                                        "exit 3), jobs/0007 (failed, exit 7);"));
    assert_string_equal(err.file, rundir);

    /* the rerun runs only the two failed jobs, now succeeding */
    make_jobs(jobs, dirs, cmds, "echo again %d %d %d");
    assert_int_equal(ks_run_execute(&o, jobs, NJOBS, NULL, NULL, &last, &err), KS_OK);
    assert_int_equal(last.skipped, 8);
    assert_int_equal(last.done, 2);
    assert_int_equal(last.failed, 0);
    snprintf(path, sizeof path, "%s/jobs/0004/sim.log", rundir);
    assert_string_equal(read_all(path), "out 4\nerr 4\n");
    snprintf(path, sizeof path, "%s/jobs/0003/sim.log", rundir);
    assert_string_equal(read_all(path), "again 3 3 3\n");
    assert_int_equal(ks_run_check_complete(rundir, &m, &err), KS_OK);
    /* a job never started is named as pending */
    mj[0].dir = "jobs/never";
    assert_int_equal(ks_run_check_complete(rundir, &m, &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "1 of 10 jobs not done (0 failed): jobs/never (pending)"));
}

static void test_signal_and_missing_program(void **state)
{
    (void)state;
    ks_run_options o;
    ks_run_options_init(&o);
    o.rundir = in_dir("signal");
    ks_run_job jobs[2] = {{"a", "kill -9 $$"}, {"b", "/nonexistent/simulator --x"}};
    ks_run_progress last;
    ks_error err;
    assert_int_equal(ks_run_execute(&o, jobs, 2, NULL, NULL, &last, &err), KS_OK);
    assert_int_equal(last.failed, 2);
    ks_job_state s;
    int code;
    assert_int_equal(ks_run_job_state(o.rundir, "a", &s, &code, &err), KS_OK);
    assert_int_equal(code, 128 + 9);
    assert_int_equal(ks_run_job_state(o.rundir, "b", &s, &code, &err), KS_OK);
    assert_int_equal(code, 127); /* the shell's "command not found" */
}

static void test_bad_jobs(void **state)
{
    (void)state;
    ks_run_options o;
    ks_run_options_init(&o);
    ks_error err;
    ks_run_job newline = {"a\nb", "true"};
    assert_int_equal(ks_run_execute(&o, &newline, 1, NULL, NULL, NULL, &err), KS_ERR_USAGE);
    o.rundir = in_dir("bad");
    assert_int_equal(ks_run_execute(&o, &newline, 1, NULL, NULL, NULL, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "newline"));
    ks_run_job nocmd = {"a", NULL};
    assert_int_equal(ks_run_execute(&o, &nocmd, 1, NULL, NULL, NULL, &err), KS_ERR_USAGE);
    /* a status that is not a number is reported, not taken as finished */
    ks_run_job ok = {"c", "true"};
    assert_int_equal(ks_run_execute(&o, &ok, 1, NULL, NULL, NULL, &err), KS_OK);
    write_text("bad/c/status", "done\n");
    ks_job_state s;
    int code;
    assert_int_equal(ks_run_job_state(o.rundir, "c", &s, &code, &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.file, "c/status"));
    /* an empty run is fine */
    assert_int_equal(ks_run_execute(&o, NULL, 0, NULL, NULL, NULL, &err), KS_OK);
}

/* A stand-in sbatch: runs every array task in turn, as Slurm would, and
 * prints a job id (--parsable); with --wait it returns when all ended. */
static const char FAKE_SBATCH[] =
    "#!/bin/sh\n"
    "for a in \"$@\"; do case $a in --array=*) r=${a#--array=}; r=${r%%[%]*};;\n"
    "  --partition=nosuch) echo 'sbatch: error: invalid partition specified: nosuch' >&2;"
    " exit 1;; esac; script=$a; done\n"
    "echo \"$*\" >\"$(dirname \"$script\")/args\"\n"
    "echo 4242\n"
    "i=0; while [ $i -le ${r#0-} ]; do SLURM_ARRAY_TASK_ID=$i sh \"$script\"; i=$((i+1)); done\n"
    "exit 0\n";

static void test_slurm_engine_with_stand_in(void **state)
{
    (void)state;
    const char *sbatch = write_text("fake-sbatch", FAKE_SBATCH);
    chmod(sbatch, 0755);
    ks_run_options o;
    ks_run_options_init(&o);
    o.engine = KS_ENGINE_SLURM;
    o.rundir = in_dir("slurm dir's"); /* a space and a quote: the script quotes it */
    o.sbatch = sbatch;
    o.wait = 1;
    o.throttle = 4;
    o.partition = "gpu";
    o.time_limit = "1:00:00";
    o.memory = "4G";
    o.account = "lab";
    o.poll_seconds = 0.05;
    ks_run_job jobs[NJOBS];
    char dirs[NJOBS][32], cmds[NJOBS][128];
    make_jobs(jobs, dirs, cmds, "echo out %d; echo err %d >&2; exit %d");
    ks_run_progress last;
    ks_error err;
    assert_int_equal(ks_run_execute(&o, jobs, NJOBS, NULL, NULL, &last, &err), KS_OK);
    assert_string_equal(last.slurm_job_id, "4242");
    assert_int_equal(last.done, 8);
    assert_int_equal(last.failed, 2);
    char path[8192];
    snprintf(path, sizeof path, "%s/jobs/0003/status", o.rundir);
    assert_string_equal(read_all(path), "3\n");
    snprintf(path, sizeof path, "%s/jobs/0002/sim.log", o.rundir);
    assert_string_equal(read_all(path), "out 2\nerr 2\n");
    snprintf(path, sizeof path, "%s/slurm/args", o.rundir);
    const char *args = read_all(path);
    assert_non_null(strstr(args, "--array=0-9%4 "));
    assert_non_null(strstr(args, "--partition=gpu --time=1:00:00 --mem=4G --account=lab --wait"));
    snprintf(path, sizeof path, "%s/slurm/job_id", o.rundir);
    assert_string_equal(read_all(path), "4242\n");

    /* rerun: only the failed two go into the new array */
    make_jobs(jobs, dirs, cmds, "echo again %d %d %d");
    assert_int_equal(ks_run_execute(&o, jobs, NJOBS, NULL, NULL, &last, &err), KS_OK);
    assert_int_equal(last.skipped, 8);
    assert_int_equal(last.done, 2);
    snprintf(path, sizeof path, "%s/slurm/args", o.rundir);
    assert_non_null(strstr(read_all(path), "--array=0-1%4 "));

    /* sbatch's own refusal comes back with its message */
    o.partition = "nosuch";
    o.rundir = in_dir("slurm-refused");
    assert_int_equal(ks_run_execute(&o, jobs, 1, NULL, NULL, &last, &err), KS_ERR_IO);
    assert_non_null(strstr(err.message, "invalid partition specified"));
    o.sbatch = "/nonexistent/sbatch";
    assert_int_equal(ks_run_execute(&o, jobs, 1, NULL, NULL, &last, &err), KS_ERR_IO);
}

/* ------------------------------------------------ stopping a run (issue 25) */

/* The stop flag a signal handler would set, set here from the progress
 * callback once `when_running` jobs run (and `when_done` have ended). */
typedef struct stopper {
    volatile sig_atomic_t flag;
    size_t when_running, when_done;
} stopper;

static void stop_when(const ks_run_progress *p, void *ctx)
{
    stopper *s = ctx;
    if (p->running >= s->when_running && p->done >= s->when_done)
        s->flag = SIGTERM;
}

/* Whether any pid listed (one a line) in path is still alive. */
static int any_alive(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long pid;
    int alive = 0, seen = 0;
    while (fscanf(f, "%ld", &pid) == 1) {
        seen++;
        if (kill((pid_t)pid, 0) == 0)
            alive = 1;
    }
    fclose(f);
    return seen ? alive : -1;
}

/* Jobs 0-3 end at once; 4 and 5 then run a shell that ignores SIGTERM and
 * a sleeping child (the simulator it started) when the run is told to stop:
 * both are killed (their group gets SIGTERM, then SIGKILL after the grace),
 * marked interrupted; 6-9 never start; a rerun runs exactly 4-9. */
static void test_local_stop(void **state)
{
    (void)state;
    ks_run_options o;
    ks_run_options_init(&o);
    o.rundir = in_dir("stop");
    o.parallel = 2;
    o.grace_seconds = 0.3;
    stopper s = {0, 2, 4};
    o.stop = &s.flag;
    ks_run_job jobs[NJOBS];
    char dirs[NJOBS][32], cmds[NJOBS][128];
    for (int k = 0; k < NJOBS; k++) {
        snprintf(dirs[k], 32, "jobs/%04d", k);
        snprintf(cmds[k], 128, "%s",
                 k < 4 ? "true"
                       : "echo $$ >>../../pids; trap '' TERM; sleep 30 & echo $! >>../../pids; "
                         "wait");
        jobs[k] = (ks_run_job){dirs[k], cmds[k]};
    }
    ks_run_progress last;
    ks_error err;
    assert_int_equal(ks_run_execute(&o, jobs, NJOBS, stop_when, &s, &last, &err), KS_OK);
    assert_true(last.stopped);
    assert_int_equal(last.done, 4);
    assert_int_equal(last.interrupted, 2);
    assert_int_equal(last.running, 0);
    char pids[4096];
    snprintf(pids, sizeof pids, "%s/pids", o.rundir);
    assert_int_equal(any_alive(pids), 0); /* nothing left running, sleepers included */
    for (int k = 0; k < NJOBS; k++) {
        ks_job_state st;
        int code;
        assert_int_equal(ks_run_job_state(o.rundir, dirs[k], &st, &code, &err), KS_OK);
        assert_int_equal(st, k < 4 ? KS_JOB_DONE : k < 6 ? KS_JOB_INTERRUPTED : KS_JOB_PENDING);
    }
    /* estimate refuses the run, naming the interrupted jobs */
    ks_run_manifest m;
    memset(&m, 0, sizeof m);
    m.job_count = NJOBS;
    ks_run_manifest_job mj[NJOBS];
    memset(mj, 0, sizeof mj);
    for (int k = 0; k < NJOBS; k++)
        mj[k].dir = dirs[k];
    m.jobs = mj;
    assert_int_equal(ks_run_check_complete(o.rundir, &m, &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "jobs/0004 (interrupted)"));
    /* the rerun runs exactly the six not done */
    for (int k = 0; k < NJOBS; k++)
        snprintf(cmds[k], 128, "echo %d >>../../rerun", k);
    o.stop = NULL;
    assert_int_equal(ks_run_execute(&o, jobs, NJOBS, NULL, NULL, &last, &err), KS_OK);
    assert_int_equal(last.skipped, 4);
    assert_int_equal(last.done, 6);
    snprintf(pids, sizeof pids, "%s/rerun", o.rundir);
    const char *ran = read_all(pids);
    for (int k = 0; k < NJOBS; k++) {
        char line[8];
        snprintf(line, sizeof line, "%d\n", k);
        assert_true((strstr(ran, line) != NULL) == (k >= 4));
    }
}

/* The Slurm engine told to stop: sbatch stopped, the array cancelled
 * (a stand-in scancel signals each task's process group, as Slurm signals
 * a job's processes), the tasks' trap and the engine mark the running
 * jobs interrupted, nothing is left running. */
static const char STOP_SBATCH[] =
    "#!/bin/sh\n"
    "for a in \"$@\"; do case $a in --array=*) r=${a#--array=}; r=${r%%[%]*};; esac; "
    "script=$a; done\n"
    "d=$(dirname \"$script\")\n"
    "echo 77\n"
    "i=0; while [ $i -le ${r#0-} ]; do SLURM_ARRAY_TASK_ID=$i setsid sh \"$script\" & "
    "echo $! >>\"$d/tasks\"; i=$((i+1)); done\n"
    "wait\n";
static const char STOP_SCANCEL[] =
    "#!/bin/sh\n"
    "d=$(dirname \"$0\")\n"
    "echo \"$*\" >>\"$d/scancel.log\"\n"
    "for p in $(cat \"$d\"/slurmstop/slurm/tasks); do kill -TERM -$p 2>/dev/null; done\n";

static void test_slurm_stop(void **state)
{
    (void)state;
    const char *sbatch = write_text("stop-sbatch", STOP_SBATCH);
    const char *scancel = write_text("scancel", STOP_SCANCEL);
    chmod(sbatch, 0755);
    chmod(scancel, 0755);
    ks_run_options o;
    ks_run_options_init(&o);
    o.engine = KS_ENGINE_SLURM;
    o.rundir = in_dir("slurmstop");
    o.sbatch = sbatch;
    o.scancel = scancel;
    o.wait = 1;
    o.poll_seconds = 0.05;
    stopper s = {0, 3, 0};
    o.stop = &s.flag;
    ks_run_job jobs[3];
    char dirs[3][32];
    for (int k = 0; k < 3; k++) {
        snprintf(dirs[k], 32, "jobs/%04d", k);
        jobs[k] = (ks_run_job){dirs[k], "sleep 30 & echo $! >>../../pids; wait"};
    }
    ks_run_progress last;
    ks_error err;
    assert_int_equal(ks_run_execute(&o, jobs, 3, stop_when, &s, &last, &err), KS_OK);
    assert_true(last.stopped);
    assert_int_equal(last.interrupted, 3);
    char path[8192];
    snprintf(path, sizeof path, "%s/scancel.log", tmpdir);
    assert_string_equal(read_all(path), "77\n");
    for (int k = 0; k < 3; k++) {
        ks_job_state st;
        int code;
        assert_int_equal(ks_run_job_state(o.rundir, dirs[k], &st, &code, &err), KS_OK);
        assert_int_equal(st, KS_JOB_INTERRUPTED);
    }
    snprintf(path, sizeof path, "%s/pids", o.rundir);
    for (int i = 0; i < 100 && any_alive(path) != 0; i++)
        usleep(20000); /* the tasks die of the stand-in scancel's signal */
    assert_int_equal(any_alive(path), 0);
}

static void test_manifest_round_trip(void **state)
{
    (void)state;
    uint64_t ids0[] = {3, 17}, ids1[] = {18446744073709551615ull >> 1};
    ks_run_manifest_job jobs[2] = {{.dir = "jobs/0000", .ids = ids0, .id_count = 2},
                                   {.dir = "jobs/\"x\"", .ids = ids1, .id_count = 1}};
    ks_run_manifest m = {.plan = "plans/p \"1\".json",
                         .plan_xxh128 = "0123456789abcdef0123456789abcdef",
                         .job_count = 2,
                         .jobs = jobs};
    ks_error err;
    const char *path = in_dir("manifest.json");
    assert_int_equal(ks_run_manifest_write(path, &m, &err), KS_OK);
    ks_run_manifest r;
    assert_int_equal(ks_run_manifest_read(path, &r, &err), KS_OK);
    assert_string_equal(r.plan, m.plan);
    assert_string_equal(r.plan_xxh128, m.plan_xxh128);
    assert_int_equal(r.job_count, 2);
    assert_string_equal(r.jobs[1].dir, "jobs/\"x\"");
    assert_int_equal(r.jobs[0].id_count, 2);
    assert_int_equal(r.jobs[0].ids[1], 17);
    assert_int_equal(r.jobs[1].ids[0], ids1[0]);
    ks_run_manifest_free(&r);
}

/* A refined plan's manifest: its profile and the plans it reused the jobs
 * of, read back; which plans may read the folder. */
static void test_manifest_earlier_plans(void **state)
{
    (void)state;
    uint64_t ids[] = {4};
    ks_run_manifest_job job = {.dir = "jobs/0000", .ids = ids, .id_count = 1};
    ks_run_manifest_plan earlier[2] = {{.path = "p1.json", .xxh128 = "11111111111111111111111111111111"},
                                       {.path = "p2 \"b\".json", .xxh128 = "22222222222222222222222222222222"}};
    ks_run_manifest m = {.plan = "p3.json", .plan_xxh128 = "33333333333333333333333333333333",
                         .profile_xxh128 = "44444444444444444444444444444444",
                         .earlier_count = 2, .earlier = earlier, .job_count = 1, .jobs = &job,
                         .remap = -1};
    ks_error err;
    const char *path = in_dir("manifest-earlier.json");
    assert_int_equal(ks_run_manifest_write(path, &m, &err), KS_OK);
    ks_run_manifest r;
    assert_int_equal(ks_run_manifest_read(path, &r, &err), KS_OK);
    assert_string_equal(r.profile_xxh128, m.profile_xxh128);
    assert_int_equal(r.earlier_count, 2);
    assert_string_equal(r.earlier[0].path, "p1.json");
    assert_string_equal(r.earlier[1].path, "p2 \"b\".json");
    assert_string_equal(r.earlier[1].xxh128, earlier[1].xxh128);
    assert_int_equal(ks_run_manifest_plan_kind(&r, "33333333333333333333333333333333"), 1);
    assert_int_equal(ks_run_manifest_plan_kind(&r, "11111111111111111111111111111111"), 2);
    assert_int_equal(ks_run_manifest_plan_kind(&r, "22222222222222222222222222222222"), 2);
    assert_int_equal(ks_run_manifest_plan_kind(&r, "44444444444444444444444444444444"), 0);
    ks_run_manifest_free(&r);
}

/* Another plan's run goes on in a folder only as its refinement: naming the
 * folder's plan among its earlier plans, with every option recorded alike
 * and the folder's jobs as its first jobs. */
static void test_manifest_compare_refined(void **state)
{
    (void)state;
    uint64_t a[] = {4}, b[] = {9}, c[] = {5};
    ks_run_manifest_job parent_jobs[1] = {{.dir = "jobs/0000", .ids = a, .id_count = 1}};
    ks_run_manifest_job child_jobs[2] = {{.dir = "jobs/0000", .ids = a, .id_count = 1},
                                         {.dir = "jobs/0001", .ids = b, .id_count = 1}};
    ks_run_manifest_plan named = {.path = "p.json", .xxh128 = "11111111111111111111111111111111"};
    ks_run_manifest old = {.plan = "p.json", .plan_xxh128 = "11111111111111111111111111111111",
                           .traces = "/t", .simulator = "command", .warmup = "none",
                           .command = "sim {kernelslist}", .traces_fingerprint = "f",
                           .config_xxh128 = "c", .profile_xxh128 = "x", .batch = 1,
                           .remap = 0, .job_count = 1, .jobs = parent_jobs};
    ks_run_manifest now = old;
    now.plan = "p2.json";
    strcpy(now.plan_xxh128, "22222222222222222222222222222222");
    now.job_count = 2;
    now.jobs = child_jobs;
    ks_error err;
    ks_error_clear(&err);
    /* not naming the folder's plan: another plan */
    assert_int_equal(ks_run_manifest_compare(&old, &now, "m.json", &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "belongs to another plan (p.json"));
    now.earlier_count = 1;
    now.earlier = &named;
    assert_int_equal(ks_run_manifest_compare(&old, &now, "m.json", &err), KS_OK);
    /* each recorded setting that differs is named, with a new folder */
    now.warmup = "self";
    assert_int_equal(ks_run_manifest_compare(&old, &now, "m.json", &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "run with --warmup none, this run has --warmup self"));
    assert_non_null(strstr(err.message, "cannot be reused for this plan"));
    assert_non_null(strstr(err.message, "-o NEW"));
    now.warmup = "none";
    now.config_xxh128 = "d";
    assert_int_equal(ks_run_manifest_compare(&old, &now, "m.json", &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "configuration (--sim-config, --config or --params) "
                                        "holds other contents"));
    now.config_xxh128 = "c";
    now.profile_xxh128 = "y";
    assert_int_equal(ks_run_manifest_compare(&old, &now, "m.json", &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "sampled from another profile"));
    now.profile_xxh128 = "x";
    now.batch = 2;
    assert_int_equal(ks_run_manifest_compare(&old, &now, "m.json", &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "--batch 1, this run has --batch 2"));
    now.batch = 1;
    /* what the folder does not record cannot be checked */
    old.config_xxh128 = NULL;
    assert_int_equal(ks_run_manifest_compare(&old, &now, "m.json", &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "does not record the simulator configuration's digest"));
    old.config_xxh128 = "c";
    /* the folder's job must be the refined plan's first, as it is */
    child_jobs[0].ids = c;
    assert_int_equal(ks_run_manifest_compare(&old, &now, "m.json", &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "do not simulate this plan's launches"));
    child_jobs[0].ids = a;
    now.job_count = 0;
    assert_int_equal(ks_run_manifest_compare(&old, &now, "m.json", &err), KS_ERR_USAGE);
    now.job_count = 2;
    assert_int_equal(ks_run_manifest_compare(&old, &now, "m.json", &err), KS_OK);
}

static void test_manifest_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "[1, 2]",
        "{\"plan\": \"p\", \"plan_xxh128\": \"x\"}",
        "{\"plan\": \"p\", \"plan_xxh128\": \"x\", \"jobs\": [{\"job\": 1, \"ids\": [], \"dir\": \"a\"}]}",
        "{\"plan\": \"p\", \"plan_xxh128\": \"x\", \"jobs\": [{\"job\": 0, \"ids\": [-1], \"dir\": \"a\"}]}",
        "{\"plan\": \"p\", \"plan_xxh128\": \"x\", \"jobs\": [{\"job\": 0, \"ids\": [1.5], \"dir\": \"a\"}]}",
        "{\"plan\": \"p\", \"plan_xxh128\": \"x\", \"jobs\": [{\"job\": 0, \"ids\": 3, \"dir\": \"a\"}]}",
        "{\"plan\": \"p\", \"plan_xxh128\": \"x\", \"jobs\": [{\"job\": 0, \"ids\": []}]}",
        "{\"plan\": \"p\", \"plan_xxh128\": \"x\", \"jobs\": [7]}",
        "{\"plan\": \"p\", \"plan_xxh128\": \"x\", \"jobs\": [",
        "{\"plan\": \"p\", \"plan_xxh128\": \"0123456789abcdef0123456789abcdef0\", \"jobs\": []}",
        "{\"plan\": \"p\", \"plan_xxh128\": \"x\", \"earlier_plans\": 3, \"jobs\": []}",
        "{\"plan\": \"p\", \"plan_xxh128\": \"x\", \"earlier_plans\": [7], \"jobs\": []}",
        "{\"plan\": \"p\", \"plan_xxh128\": \"x\", \"earlier_plans\": [{\"plan\": \"q\"}], \"jobs\": []}",
        "{\"plan\": \"p\", \"plan_xxh128\": \"x\", \"earlier_plans\": [{\"plan\": \"q\", "
        "\"plan_xxh128\": \"0123456789abcdef0123456789abcdef0\"}], \"jobs\": []}",
        "{\"plan\": \"p\", \"plan_xxh128\": \"x\", \"profile_xxh128\": 5, \"jobs\": []}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *path = write_text("bad-manifest.json", bad[i]);
        ks_run_manifest m;
        ks_error err;
        ks_error_clear(&err);
        assert_int_equal(ks_run_manifest_read(path, &m, &err), KS_ERR_FORMAT);
        assert_string_equal(err.file, path);
        assert_null(m.jobs);
    }
    ks_run_manifest m;
    ks_error err;
    assert_int_equal(ks_run_manifest_read(in_dir("no-such.json"), &m, &err), KS_ERR_IO);
}

KS_TMPDIR_TEST_MAIN("ks-test-run",
                    test_local_pool_and_rerun,
                    test_signal_and_missing_program,
                    test_bad_jobs,
                    test_slurm_engine_with_stand_in,
                    test_local_stop,
                    test_slurm_stop,
                    test_manifest_round_trip,
                    test_manifest_earlier_plans,
                    test_manifest_compare_refined,
                    test_manifest_malformed)
