/* cmd_run.c - `ksample run`: the plan's sampled kernels simulated as
 * independent jobs (one kernel each, or --batch K), on a local pool of
 * processes or as one Slurm job array, leaving in RUNDIR what `ksample
 * estimate RUNDIR` reads.  Each job folder gets what the accelsim exporter
 * writes for its kernels (a kernelslist.g with every memory copy of the
 * traced program and only the job's kernels, links to their traces,
 * weights.csv), and the simulator command with {kernelslist} and {outdir}
 * replaced. */
#include "cli.h"
#include "progress.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void help(void)
{
    printf("usage: ksample run [options] PLAN --traces DIR --simulator CMD -o RUNDIR\n\n"
           "Simulates the plan's sampled kernels as independent jobs: kernels carry no\n"
           "state between launches (the assumption of every kernel-level sampler), so\n"
           "the wall time is the longest job, not the sum.  Each job folder\n"
           "RUNDIR/jobs/NNNN gets a kernelslist.g that keeps every memory copy of the\n"
           "traced program and lists only the job's kernels (as 'ksample export --to\n"
           "accelsim' writes it), and runs CMD with {kernelslist} and {outdir} replaced\n"
           "by that list and the job folder (both absolute, shell-quoted); the\n"
           "simulator's stdout and stderr go to the job's sim.log, its exit code to\n"
           "status.  A rerun skips the jobs that are done and reruns the others.  Then\n"
           "'ksample estimate PLAN RUNDIR' reads the results ('ksample status RUNDIR'\n"
           "says how far a run is).\n\n"
           "options:\n"
           "  --traces DIR       the complete Accel-Sim traces of the program\n"
           "  --simulator CMD    command per job, e.g. 'accel-sim.out -trace\n"
           "                     {kernelslist} -config gpgpusim.config'\n"
           "  -o, --output DIR   the run folder (created)\n"
           "  --batch K          kernels per job (default 1)\n"
           "  --profile FILE     the plan's profile: every sampled id is checked against\n"
           "                     its trace header (kernel name, grid, block)\n"
           "  --remap            match launches by (name, grid, block, occurrence), for a\n"
           "                     tracer that saw other launches than the profiler\n"
           "  --engine E         local (default: a pool of processes) or slurm (one\n"
           "                     sbatch --array job array)\n"
           "  -j, --jobs N       local: jobs at once (default 1)\n"
           "  --partition P, --time T, --mem M, --account A\n"
           "                     slurm: passed to sbatch\n"
           "  --throttle N       slurm: at most N array tasks at once (--array=...%%N)\n"
           "  --no-wait          slurm: return once the array is submitted\n"
           "  -q, --quiet        no progress on stderr\n"
           "  -h, --help         this text\n\n"
           "exit status: 0 every job done (or submitted with --no-wait), 1 some jobs\n"
           "failed (listed with their exit code and the end of their log), 2-6 as for\n"
           "every command.  SIGINT, SIGTERM, SIGHUP or SIGQUIT to ksample stops the\n"
           "running jobs (each job is a process group of its own: SIGTERM, then SIGKILL\n"
           "after 5 s; slurm: scancel of the array), marks them 'interrupted' and ends\n"
           "ksample by that signal; a rerun runs the jobs not done.\n");
}

typedef struct run_args {
    const char *plan, *traces, *simulator, *rundir, *profile;
    uint64_t batch;
    int remap;
    bool quiet;
    ks_run_options run;
} run_args;

/* 'text' with every ' written as '\'' */
static void shell_quote(char *out, size_t size, const char *text)
{
    size_t n = 0;
    if (n + 1 < size)
        out[n++] = '\'';
    for (const char *p = text; *p && n + 5 < size; p++) {
        if (*p == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else {
            out[n++] = *p;
        }
    }
    if (n + 1 < size)
        out[n++] = '\'';
    out[n] = '\0';
}

/* The simulator command with {kernelslist} and {outdir} replaced; NULL when
 * out of memory. */
static char *expand(const char *template, const char *list, const char *outdir)
{
    char ql[PATH_MAX * 4 + 8], qo[PATH_MAX * 4 + 8];
    shell_quote(ql, sizeof ql, list);
    shell_quote(qo, sizeof qo, outdir);
    size_t cap = strlen(template) + 1, n = 0;
    for (const char *p = template; (p = strchr(p, '{')); p++)
        cap += strlen(ql) + strlen(qo);
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (const char *p = template; *p;) {
        if (strncmp(p, "{kernelslist}", 13) == 0) {
            n += (size_t)snprintf(out + n, cap - n, "%s", ql);
            p += 13;
        } else if (strncmp(p, "{outdir}", 8) == 0) {
            n += (size_t)snprintf(out + n, cap - n, "%s", qo);
            p += 8;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    return out;
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "ksample: %s: cannot create: %s\n", path, strerror(errno));
        return KS_ERR_IO;
    }
    return 0;
}

/* A rerun must be of the same plan: its jobs' results would otherwise be
 * mixed with another plan's. */
static int check_previous(const char *manifest, const char *digest)
{
    struct stat sb;
    if (stat(manifest, &sb) != 0)
        return 0;
    ks_run_manifest old;
    ks_error err;
    ks_error_clear(&err);
    if (ks_run_manifest_read(manifest, &old, &err) != KS_OK)
        return cli_fail(&err);
    int rc = 0;
    if (strcmp(old.plan_xxh128, digest) != 0) {
        fprintf(stderr,
                "ksample: %s: this run folder belongs to another plan (%s, XXH3-128 %s); use "
                "a new folder\n",
                manifest, old.plan, old.plan_xxh128);
        rc = KS_ERR_USAGE;
    }
    ks_run_manifest_free(&old);
    return rc;
}

typedef struct run_state {
    ks_plan plan;
    ks_profile *profile;
    ks_run_manifest manifest;
    ks_run_job *jobs;
    char **dirs, **commands;
    size_t job_count;
} run_state;

static void state_free(run_state *s)
{
    for (size_t j = 0; j < s->job_count; j++) {
        free(s->dirs ? s->dirs[j] : NULL);
        free(s->commands ? s->commands[j] : NULL);
        if (s->manifest.jobs)
            free(s->manifest.jobs[j].ids);
    }
    free(s->dirs);
    free(s->commands);
    free(s->jobs);
    free(s->manifest.jobs);
    ks_plan_free(&s->plan);
    ks_profile_free(s->profile);
}

/* Job j: its folder, its kernels exported, its command. */
static int prepare_job(run_state *s, const run_args *a, const ks_exporter *accelsim, size_t j)
{
    size_t first = j * a->batch, count = s->plan.sample_count - first;
    if (count > a->batch)
        count = a->batch;
    char rel[64], dir[PATH_MAX], list[PATH_MAX + 32];
    snprintf(rel, sizeof rel, "jobs/%04zu", j);
    char *abs = realpath(a->rundir, NULL);
    if (!abs) {
        fprintf(stderr, "ksample: %s: %s\n", a->rundir, strerror(errno));
        return KS_ERR_IO;
    }
    snprintf(dir, sizeof dir, "%s/%s", abs, rel);
    free(abs);
    snprintf(list, sizeof list, "%s/kernelslist.g", dir);
    /* the job's kernels as a plan of their own: the exporter lists exactly
     * the samples it is given, in id order */
    ks_plan sub = s->plan;
    sub.samples = s->plan.samples + first;
    sub.sample_count = count;
    ks_export_options eo = {.traces = a->traces, .profile = s->profile, .remap = a->remap};
    ks_error err;
    ks_error_clear(&err);
    if (accelsim->write(&sub, &eo, dir, &err) != KS_OK)
        return cli_fail(&err);
    s->dirs[j] = strdup(rel);
    s->commands[j] = expand(a->simulator, list, dir);
    s->manifest.jobs[j].dir = s->dirs[j];
    s->manifest.jobs[j].ids = malloc(count * sizeof(uint64_t));
    if (!s->dirs[j] || !s->commands[j] || !s->manifest.jobs[j].ids)
        return KS_ERR_NOMEM;
    s->manifest.jobs[j].id_count = count;
    for (size_t k = 0; k < count; k++)
        s->manifest.jobs[j].ids[k] = s->plan.samples[first + k].id;
    s->jobs[j] = (ks_run_job){s->dirs[j], s->commands[j]};
    return 0;
}

static int report_failures(const run_args *a, const run_state *s)
{
    int failed = 0;
    for (size_t j = 0; j < s->job_count; j++) {
        ks_job_state st;
        int code = 0;
        ks_error err;
        ks_error_clear(&err);
        if (ks_run_job_state(a->rundir, s->dirs[j], &st, &code, &err) != KS_OK)
            return cli_fail(&err);
        if (st != KS_JOB_FAILED)
            continue;
        failed++;
        char *tail = NULL;
        if (ks_run_log_tail(a->rundir, s->dirs[j], 5, &tail, &err) != KS_OK)
            return cli_fail(&err);
        fprintf(stderr, "ksample: job %zu (%s) failed with exit code %d%s\n%s%s", j, s->dirs[j],
                code, *tail ? "; end of its sim.log:" : "; its sim.log is empty", tail,
                *tail && tail[strlen(tail) - 1] != '\n' ? "\n" : "");
        free(tail);
    }
    return failed ? 1 : 0;
}

static int run(const run_args *a)
{
    const ks_exporter *accelsim = ks_exporter_find("accelsim");
    if (!accelsim)
        return KS_ERR_INTERNAL;
    run_state s;
    memset(&s, 0, sizeof s);
    ks_error err;
    ks_error_clear(&err);
    char digest[33];
    if (ks_plan_read(a->plan, &s.plan, &err) != KS_OK || ks_file_xxh128(a->plan, digest, &err))
        return state_free(&s), cli_fail(&err);
    if (s.plan.sample_count == 0)
        return state_free(&s), cli_usage_error("run", "the plan has no samples");
    const char *inputs[] = {a->plan, a->traces, a->profile, s.plan.input_path};
    int rc = cli_check_output("run", a->rundir, inputs, 4);
    if (rc)
        return state_free(&s), rc;
    if (a->profile && ks_plan_open_profile(&s.plan, a->profile, &s.profile, &err) != KS_OK)
        return state_free(&s), cli_fail(&err);
    char manifest_path[PATH_MAX + 32], jobs_dir[PATH_MAX + 8];
    snprintf(manifest_path, sizeof manifest_path, "%s/manifest.json", a->rundir);
    snprintf(jobs_dir, sizeof jobs_dir, "%s/jobs", a->rundir);
    if ((rc = make_dir(a->rundir)) || (rc = make_dir(jobs_dir)) ||
        (rc = check_previous(manifest_path, digest)))
        return state_free(&s), rc;
    s.job_count = (s.plan.sample_count + a->batch - 1) / a->batch;
    s.jobs = calloc(s.job_count, sizeof *s.jobs);
    s.dirs = calloc(s.job_count, sizeof *s.dirs);
    s.commands = calloc(s.job_count, sizeof *s.commands);
    s.manifest.jobs = calloc(s.job_count, sizeof *s.manifest.jobs);
    s.manifest.job_count = s.job_count;
    char *plan_abs = realpath(a->plan, NULL);
    s.manifest.plan = plan_abs;
    snprintf(s.manifest.plan_xxh128, sizeof s.manifest.plan_xxh128, "%s", digest);
    if (!s.jobs || !s.dirs || !s.commands || !s.manifest.jobs || !plan_abs) {
        free(plan_abs);
        s.manifest.plan = NULL;
        return state_free(&s), KS_ERR_NOMEM;
    }
    for (size_t j = 0; j < s.job_count && !rc; j++)
        rc = prepare_job(&s, a, accelsim, j);
    if (!rc && ks_run_manifest_write(manifest_path, &s.manifest, &err) != KS_OK)
        rc = cli_fail(&err);
    s.manifest.plan = NULL;
    free(plan_abs);
    if (rc)
        return state_free(&s), rc;
    cli_progress pr;
    cli_progress_init(&pr, a->quiet, "run");
    ks_run_progress last = {0};
    ks_run_options o = a->run;
    o.rundir = a->rundir;
    /* a signal to ksample stops the jobs (each in its own process group, so
     * a terminal's Ctrl-C reaches ksample alone), marks them interrupted and
     * then ends ksample by that signal */
    o.stop = cli_catch_stop();
    ks_status st = ks_run_execute(&o, s.jobs, s.job_count, cli_progress_run, &pr, &last, &err);
    cli_progress_end(&pr);
    if (*o.stop) {
        fprintf(stderr,
                "ksample: run %s stopped by signal %d: %zu jobs interrupted, %zu done now; "
                "a rerun runs the jobs not done\n",
                a->rundir, (int)*o.stop, last.interrupted, last.done);
        state_free(&s);
        cli_die_of_stop();
    }
    if (st != KS_OK)
        return state_free(&s), cli_fail(&err);
    if (!a->quiet)
        fprintf(stderr, "ksample: run %s: %zu jobs, %zu done now, %zu done before, %zu failed%s%s\n",
                a->rundir, last.total, last.done, last.skipped, last.failed,
                last.slurm_job_id[0] ? ", Slurm job " : "", last.slurm_job_id);
    rc = o.engine == KS_ENGINE_SLURM && !o.wait ? 0 : report_failures(a, &s);
    state_free(&s);
    return rc;
}

static int parse_count(const char *opt, const char *arg, uint64_t max, uint64_t *v)
{
    if (!cli_parse_u64(arg, v) || *v < 1 || *v > max)
        return cli_usage_error("run", "%s must be an integer in 1..%llu, got '%s'", opt,
                               (unsigned long long)max, arg);
    return 0;
}

int cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"traces", required_argument, NULL, 'T'},   {"simulator", required_argument, NULL, 'S'},
        {"output", required_argument, NULL, 'o'},   {"batch", required_argument, NULL, 'b'},
        {"profile", required_argument, NULL, 'P'},  {"remap", no_argument, NULL, 'r'},
        {"engine", required_argument, NULL, 'e'},   {"jobs", required_argument, NULL, 'j'},
        {"partition", required_argument, NULL, 'p'}, {"time", required_argument, NULL, 't'},
        {"mem", required_argument, NULL, 'm'},      {"account", required_argument, NULL, 'a'},
        {"throttle", required_argument, NULL, 'n'}, {"no-wait", no_argument, NULL, 'W'},
        {"quiet", no_argument, NULL, 'q'},          {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    run_args a = {.batch = 1};
    ks_run_options_init(&a.run);
    a.run.wait = 1;
    uint64_t v;
    cli_loop l = {.cmd = "run", .longopts = longopts, .shortopts = "ho:j:q", .help = help,
                  .operands = 1, .operands_are = "one plan file"};
    int opt, rc;
    while ((opt = cli_loop_next(&l, argc, argv)) != -1) {
        switch (opt) {
        case 'T': a.traces = optarg; break;
        case 'S': a.simulator = optarg; break;
        case 'o': a.rundir = optarg; break;
        case 'P': a.profile = optarg; break;
        case 'r': a.remap = 1; break;
        case 'q': a.quiet = true; break;
        case 'W': a.run.wait = 0; break;
        case 'p': a.run.partition = optarg; break;
        case 't': a.run.time_limit = optarg; break;
        case 'm': a.run.memory = optarg; break;
        case 'a': a.run.account = optarg; break;
        case 'b':
            if ((rc = parse_count("--batch", optarg, 1000000, &a.batch)))
                return rc;
            break;
        case 'j':
            if ((rc = parse_count("--jobs", optarg, 4096, &v)))
                return rc;
            a.run.parallel = (unsigned)v;
            break;
        case 'n':
            if ((rc = parse_count("--throttle", optarg, 1000000, &v)))
                return rc;
            a.run.throttle = (unsigned)v;
            break;
        case 'e':
            if (strcmp(optarg, "local") == 0)
                a.run.engine = KS_ENGINE_LOCAL;
            else if (strcmp(optarg, "slurm") == 0)
                a.run.engine = KS_ENGINE_SLURM;
            else
                return cli_usage_error("run", "--engine must be local or slurm, got '%s'", optarg);
            break;
        }
    }
    if (l.exit >= 0)
        return l.exit;
    a.plan = argv[optind];
    if (!a.traces || !a.simulator || !a.rundir)
        return cli_usage_error("run", "--traces, --simulator and -o RUNDIR are required");
    if (!strstr(a.simulator, "{kernelslist}"))
        return cli_usage_error("run", "--simulator must contain {kernelslist}");
    return run(&a);
}
