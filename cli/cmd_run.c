/* cmd_run.c - `ksample run`: the plan's sampled kernels simulated as
 * independent jobs (one kernel each, or --batch K), on a local pool of
 * processes or as one Slurm job array, leaving in RUNDIR what `ksample
 * estimate RUNDIR` reads.  Each job folder gets what the accelsim or macsim
 * exporter writes for its launches (with --warmup, each sampled launch
 * after its warm-up launches), and the simulator command: a template with
 * {kernelslist}, {kernel_config}, {trace_file_list} and {outdir} replaced,
 * or the preset of Accel-Sim (--accelsim BIN --config DIR) or MacSim
 * (--macsim BIN --params FILE). */
#define _GNU_SOURCE /* nftw */
#include "cli.h"
#include "cli_state.h"
#include "progress.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void help(void)
{
    printf("usage: ksample run [options] PLAN --traces DIR -o RUNDIR\n"
           "                   (--simulator CMD | --accelsim BIN --config DIR |\n"
           "                    --macsim BIN --params FILE)\n\n"
           "Simulates the plan's sampled kernels as independent jobs, so the wall time is\n"
           "the longest job, not the sum.  Each job folder RUNDIR/jobs/NNNN gets what\n"
           "'ksample export' writes for its launches: for an Accel-Sim trace folder a\n"
           "kernelslist.g that keeps every memory copy of the traced program, for a MacSim\n"
           "one a kernel_config.txt and trace_file_list; the simulator's stdout and stderr\n"
           "go to the job's sim.log, its exit code to status.  A rerun skips the jobs that\n"
           "are done and reruns the others; once a job is done, a rerun with another\n"
           "--batch, --warmup, --remap, trace folder, simulator command or configuration\n"
           "contents is refused (naming the option), never mixed (a trace counts as\n"
           "changed when its size or first 4 KiB did: an edit beyond them at the same\n"
           "size is not seen).  One run at a time holds RUNDIR (a second\n"
           "is refused naming the first's pid, host and start).  Then 'ksample estimate\n"
           "PLAN RUNDIR' reads the results ('ksample status RUNDIR' says how far a run\n"
           "is).\n\n"
           "A launch simulated by itself starts from cold caches, which it never does in\n"
           "the full run: summed over a program, alone cycles were 1.09-1.14x the full\n"
           "run's on Accel-Sim and 3.3x on MacSim (docs/bench.md).  --warmup runs warm-up\n"
           "launches before each sampled launch in the same job and keeps only the\n"
           "sampled launch's statistics; the manifest records the mode and 'estimate'\n"
           "reports it.\n\n"
           "options:\n"
           "  --traces DIR       the complete traces of the program (Accel-Sim or MacSim)\n"
           "  --simulator CMD    command per job, run in the job folder, with\n"
           "                     {kernelslist} (Accel-Sim), {kernel_config} and\n"
           "                     {trace_file_list} (MacSim) and {outdir} replaced (absolute,\n"
           "                     shell-quoted), e.g. 'accel-sim.out -trace {kernelslist}\n"
           "                     -config gpgpusim.config'\n"
           "  --accelsim BIN     Accel-Sim's accel-sim.out (made absolute, or looked up\n"
           "                     in PATH, and checked before any job starts): every file\n"
           "                     of each --config\n"
           "                     folder is linked into the job folder (an interconnect\n"
           "                     file is found next to gpgpusim.config), and the job runs\n"
           "                     BIN -trace kernelslist.g -config gpgpusim.config\n"
           "                     [-config trace.config]\n"
           "  --config DIR       a folder of Accel-Sim configuration files (repeatable:\n"
           "                     GPGPU-Sim's tested-cfgs/<GPU> and Accel-Sim's\n"
           "                     gpu-simulator/configs/tested-cfgs/<GPU>)\n"
           "  --macsim BIN       MacSim's binary: the job folder gets params.in (--params)\n"
           "                     and trace_file_list, and the job runs BIN there\n"
           "  --params FILE      MacSim's params.in\n"
           "  --warmup MODE      before each sampled launch, in the same job: none (alone,\n"
           "                     from cold caches), self (itself), same (the latest\n"
           "                     earlier launch of the same kernel), prev:N (the N launches\n"
           "                     before it) or since-same:N (every launch since the latest\n"
           "                     earlier launch of the same kernel on the same data; when\n"
           "                     that is more than N back, it and the N-1 just before);\n"
           "                     since-same:N:K reaches back to the K-th latest launch of\n"
           "                     the same kernel (at most N launches: then those K and\n"
           "                     the launches just before it).\n"
           "                     state rebuilds the L2 state the full run would give the\n"
           "                     launch from the traces of every launch before it, and\n"
           "                     carries it as a warm-up kernel ksample writes\n"
           "                     (state, state:kernel: any build) or as MemcpyHtoD\n"
           "                     lines at no simulated cycle (state:memcpy: Accel-Sim\n"
           "                     builds whose perf_memcpy_to_gpu keeps 64-bit addresses;\n"
           "                     the first job checks it, and the run falls back to the\n"
           "                     kernel with a note when it does not).\n"
           "                     Default state (the simulated L2 from --config, --params,\n"
           "                     --sim-config or --l2-size; else since-same:8): summed over\n"
           "                     every launch 0.999x the full run on Accel-Sim RTX 3070\n"
           "                     (a workload four times its L2; cold 0.935x) and 1.002x\n"
           "                     on MacSim, at 3.0x and 4.5x the cycles of these small\n"
           "                     launches alone (since-same:8 on MacSim: 1.000x at 5.1x;\n"
           "                     docs/bench.md)\n"
           "  --sim-config FILE  --warmup state with --simulator: the simulator's\n"
           "                     configuration (gpgpusim.config, MacSim params.in)\n"
           CLI_STATE_HELP
           "  -o, --output DIR   the run folder (created)\n"
           "  --batch K          sampled launches per job (default 1)\n"
           "  --profile FILE     the plan's profile: every sampled id is checked against\n"
           "                     its trace (kernel name, grid, block)\n"
           "  --remap            match launches by (name, grid, block, occurrence), for a\n"
           "                     tracer that saw other launches than the profiler\n"
           "  --engine E         local (default: a pool of processes) or slurm (one\n"
           "                     sbatch --array job array)\n"
           "  -j, --jobs N       local: jobs at once (default 1)\n"
           "  --partition P, --time T, --mem M, --account A\n"
           "                     slurm: passed to sbatch\n"
           "  --throttle N       slurm: at most N array tasks at once (--array=...%%N)\n"
           "  --no-wait          slurm: return once the array is submitted (the array\n"
           "                     then holds RUNDIR: a run into it while squeue lists the\n"
           "                     array is refused)\n"
           "  -q, --quiet        no progress on stderr\n"
           "  -h, --help         this text\n\n"
           "exit status: 0 every job done (or submitted with --no-wait), 1 some jobs\n"
           "failed (listed with their exit code and the end of their log), 2-6 as for\n"
           "every command.  SIGINT, SIGTERM, SIGHUP or SIGQUIT to ksample stops the\n"
           "running jobs (each job is a process group of its own: SIGTERM, then SIGKILL\n"
           "after 5 s; slurm: scancel of the array), marks them 'interrupted' and ends\n"
           "ksample by that signal; a rerun runs the jobs not done.\n");
}

enum { MAX_CONFIGS = 8 };

typedef struct run_args {
    const char *plan, *traces, *simulator, *rundir, *profile;
    const char *accelsim, *macsim, *params;
    const char *configs[MAX_CONFIGS];
    int config_count;
    uint64_t batch;
    int remap;
    bool quiet;
    bool warmup_given;
    ks_warmup warmup;
    cli_state_args state;
    char sim_config[PATH_MAX * 2 + 32]; /* gpgpusim.config of --config, or --params */
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

/* The simulator command with its placeholders replaced by shell-quoted
 * absolute paths; NULL when out of memory. */
static char *expand(const char *template, const char *const keys[], const char *const values[],
                    size_t count)
{
    char quoted[4][PATH_MAX * 4 + 8];
    size_t cap = strlen(template) + 1, n = 0;
    for (size_t k = 0; k < count; k++)
        shell_quote(quoted[k], sizeof quoted[k], values[k]);
    for (const char *p = template; (p = strchr(p, '{')); p++)
        for (size_t k = 0; k < count; k++)
            cap += strlen(quoted[k]);
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (const char *p = template; *p;) {
        bool done = false;
        for (size_t k = 0; k < count && !done; k++) {
            size_t len = strlen(keys[k]);
            if (strncmp(p, keys[k], len) == 0) {
                n += (size_t)snprintf(out + n, cap - n, "%s", quoted[k]);
                p += len;
                done = true;
            }
        }
        if (!done)
            out[n++] = *p++;
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

/* A rerun must be of the same plan, and, once a job is done, of the same
 * options: the finished jobs' results would otherwise be mixed with another
 * warm-up's or another batch's.  With no job done there is nothing to mix:
 * every job starts afresh. */
static int check_previous(const char *rundir, const char *manifest, const ks_run_manifest *now)
{
    struct stat sb;
    if (stat(manifest, &sb) != 0)
        return 0;
    ks_run_manifest old;
    ks_error err;
    ks_error_clear(&err);
    if (ks_run_manifest_read(manifest, &old, &err) != KS_OK)
        return cli_fail(&err);
    size_t done = 0;
    for (size_t j = 0; j < old.job_count; j++) {
        ks_job_state state;
        int code;
        if (ks_run_job_state(rundir, old.jobs[j].dir, &state, &code, &err) == KS_OK &&
            state == KS_JOB_DONE)
            done++;
    }
    ks_error_clear(&err);
    ks_status st = KS_OK;
    if (strcmp(old.plan_xxh128, now->plan_xxh128) != 0 || done > 0)
        st = ks_run_manifest_compare(&old, now, manifest, &err);
    ks_run_manifest_free(&old);
    return st == KS_OK ? 0 : cli_fail(&err);
}

typedef struct run_state {
    ks_plan plan;
    ks_profile *profile;
    ks_run_manifest manifest;
    ks_run_job *jobs;
    char **dirs, **commands;
    size_t job_count;
    ks_export_entry *entries; /* every job's, in order */
    size_t entry_count;
    size_t *job_first;        /* job j: entries [job_first[j], job_first[j + 1]) */
    bool macsim;
    ks_run_lock *lock;
} run_state;

static void state_free(run_state *s)
{
    for (size_t j = 0; j < s->job_count; j++) {
        free(s->dirs ? s->dirs[j] : NULL);
        free(s->commands ? s->commands[j] : NULL);
        if (s->manifest.jobs) {
            free(s->manifest.jobs[j].ids);
            free(s->manifest.jobs[j].measured);
            free(s->manifest.jobs[j].launches);
        }
    }
    free(s->dirs);
    free(s->commands);
    free(s->jobs);
    free(s->manifest.jobs);
    free(s->entries);
    free(s->job_first);
    ks_plan_free(&s->plan);
    ks_profile_free(s->profile);
    ks_run_lock_release(s->lock);
}

/* Jobs of `batch` sampled launches each, every one after its warm-ups. */
static int split_jobs(run_state *s, uint64_t batch)
{
    size_t measured = 0;
    for (size_t k = 0; k < s->entry_count; k++)
        measured += s->entries[k].measured;
    s->job_count = (measured + batch - 1) / batch;
    s->job_first = calloc(s->job_count + 1, sizeof *s->job_first);
    if (!s->job_first)
        return KS_ERR_NOMEM;
    size_t j = 0, in_job = 0;
    for (size_t k = 0; k < s->entry_count; k++)
        if (s->entries[k].measured && ++in_job == batch) {
            s->job_first[++j] = k + 1;
            in_job = 0;
        }
    s->job_first[s->job_count] = s->entry_count;
    return 0;
}

/* Links every file of the configuration folders into the job folder: a
 * GPGPU-Sim configuration names its interconnect file relative to the
 * working folder. */
static int link_configs(const run_args *a, const char *dir)
{
    for (int c = 0; c < a->config_count; c++) {
        char *abs = realpath(a->configs[c], NULL);
        DIR *d = abs ? opendir(abs) : NULL;
        if (!d) {
            fprintf(stderr, "ksample: %s: cannot open the configuration folder: %s\n",
                    a->configs[c], strerror(errno));
            free(abs);
            return KS_ERR_IO;
        }
        struct dirent *e;
        int rc = 0;
        while (!rc && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char target[PATH_MAX * 2], link[PATH_MAX * 2];
            snprintf(target, sizeof target, "%s/%s", abs, e->d_name);
            snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
            struct stat sb;
            if (stat(target, &sb) != 0 || !S_ISREG(sb.st_mode))
                continue;
            unlink(link);
            if (symlink(target, link) != 0) {
                fprintf(stderr, "ksample: %s: cannot link to %s: %s\n", link, target,
                        strerror(errno));
                rc = KS_ERR_IO;
            }
        }
        closedir(d);
        free(abs);
        if (rc)
            return rc;
    }
    return 0;
}

static bool file_in_configs(const run_args *a, const char *name)
{
    for (int c = 0; c < a->config_count; c++) {
        char path[PATH_MAX * 2];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", a->configs[c], name);
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            return true;
    }
    return false;
}

/* The command of a job folder dir. */
static char *job_command(const run_args *a, bool macsim, const char *dir)
{
    char list[PATH_MAX + 32], config[PATH_MAX + 32], tfl[PATH_MAX + 32];
    snprintf(list, sizeof list, "%s/kernelslist.g", dir);
    snprintf(config, sizeof config, "%s/kernel_config.txt", dir);
    snprintf(tfl, sizeof tfl, "%s/trace_file_list", dir);
    const char *keys[] = {"{kernelslist}", "{kernel_config}", "{trace_file_list}", "{outdir}"};
    const char *values[] = {list, config, tfl, dir};
    if (a->simulator)
        return expand(a->simulator, keys, values, 4);
    char template[PATH_MAX * 2 + 128];
    if (macsim) {
        snprintf(template, sizeof template, "%s", "{bin}");
    } else {
        snprintf(template, sizeof template, "{bin} -trace {kernelslist} -config gpgpusim.config%s",
                 file_in_configs(a, "trace.config") ? " -config trace.config" : "");
    }
    const char *pkeys[] = {"{bin}", "{kernelslist}"};
    const char *pvalues[] = {macsim ? a->macsim : a->accelsim, list};
    return expand(template, pkeys, pvalues, 2);
}

/* What the manifest records of the simulator's command: the template as
 * given, or the preset's files as absolute paths; with --warmup state, the
 * options the rebuilt state depends on (malloc'd). */
static char *command_text(const run_args *a)
{
    size_t cap = PATH_MAX * (size_t)(a->config_count + 4) + 256, n = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    if (a->warmup.mode == KS_WARMUP_STATE) {
        char *cfg = a->warmup.sim_config ? realpath(a->warmup.sim_config, NULL) : NULL;
        n += (size_t)snprintf(out + n, cap - n,
                              "[state: l2 %llu bytes, cut %g, %s lines, sim-config %s] ",
                              (unsigned long long)a->warmup.l2_bytes, a->warmup.cut,
                              a->warmup.lines == KS_STATE_LINES_ALL       ? "all"
                              : a->warmup.lines == KS_STATE_LINES_TOUCHED ? "touched"
                                                                          : "dirty",
                              cfg ? cfg : a->warmup.sim_config ? a->warmup.sim_config : "-");
        free(cfg);
    }
    if (a->simulator) {
        snprintf(out + n, cap - n, "%s", a->simulator);
        return out;
    }
    n += (size_t)snprintf(out + n, cap - n, "%s", a->accelsim ? a->accelsim : a->macsim);
    for (int c = 0; c < a->config_count; c++) {
        char *abs = realpath(a->configs[c], NULL);
        n += (size_t)snprintf(out + n, cap - n, " --config %s", abs ? abs : a->configs[c]);
        free(abs);
    }
    if (a->params) {
        char *abs = realpath(a->params, NULL);
        snprintf(out + n, cap - n, " --params %s", abs ? abs : a->params);
        free(abs);
    }
    return out;
}

/* Job j in the manifest: its folder and launches. */
static int describe_job(run_state *s, const run_args *a, size_t j)
{
    size_t first = s->job_first[j], count = s->job_first[j + 1] - first;
    char rel[64];
    snprintf(rel, sizeof rel, "jobs/%04zu", j);
    s->dirs[j] = strdup(rel);
    ks_run_manifest_job *mj = &s->manifest.jobs[j];
    mj->dir = s->dirs[j];
    mj->ids = malloc((count ? count : 1) * sizeof *mj->ids);
    bool warmups = false, remapped = false;
    for (size_t k = 0; k < count; k++) {
        warmups = warmups || !s->entries[first + k].measured;
        remapped = remapped || s->entries[first + k].id != s->entries[first + k].launch;
    }
    mj->measured = warmups ? malloc(count) : NULL;
    mj->launches = remapped ? malloc(count * sizeof *mj->launches) : NULL;
    if (!s->dirs[j] || !mj->ids || (warmups && !mj->measured) || (remapped && !mj->launches))
        return KS_ERR_NOMEM;
    /* a state carrier that is a kernel runs (measured 2: ksample's warm-up
     * kernel, no launch of the traces); memory copies are no kernel */
    bool copies = a->warmup.mode == KS_WARMUP_STATE && a->warmup.carrier == KS_STATE_MEMCPY;
    size_t listed = 0;
    for (size_t k = 0; k < count; k++) {
        const ks_export_entry *e = &s->entries[first + k];
        if (e->state && copies)
            continue;
        mj->ids[listed] = e->id;
        if (mj->measured)
            mj->measured[listed] = e->state ? 2 : e->measured;
        if (mj->launches)
            mj->launches[listed] = e->launch;
        listed++;
    }
    mj->id_count = listed;
    return 0;
}

/* Job j's folder: its launches exported, the preset's files linked, its
 * command; a job done before keeps its folder (the manifest's options are
 * these, check_previous). */
static int prepare_job(run_state *s, const run_args *a, size_t j)
{
    size_t first = s->job_first[j], count = s->job_first[j + 1] - first;
    char dir[PATH_MAX];
    char *abs = realpath(a->rundir, NULL);
    if (!abs) {
        fprintf(stderr, "ksample: %s: %s\n", a->rundir, strerror(errno));
        return KS_ERR_IO;
    }
    snprintf(dir, sizeof dir, "%s/%s", abs, s->dirs[j]);
    free(abs);
    ks_error err;
    ks_error_clear(&err);
    const ks_warmup *w = a->warmup.mode == KS_WARMUP_NONE ? NULL : &a->warmup;
    ks_job_state state;
    int code;
    if (ks_run_job_state(a->rundir, s->dirs[j], &state, &code, &err) != KS_OK)
        return cli_fail(&err);
    bool done = state == KS_JOB_DONE;
    if (!done &&
        ks_export_entries_write(&s->plan, a->traces, s->entries + first, count, w, dir, &err) !=
            KS_OK)
        return cli_fail(&err);
    int rc = 0;
    if (!done && !s->macsim && a->accelsim)
        rc = link_configs(a, dir);
    if (!rc && !done && s->macsim && a->macsim) {
        char link[PATH_MAX + 16], *target = realpath(a->params, NULL);
        snprintf(link, sizeof link, "%s/params.in", dir);
        unlink(link);
        if (!target || symlink(target, link) != 0) {
            fprintf(stderr, "ksample: %s: cannot link to %s: %s\n", link, a->params,
                    strerror(errno));
            rc = KS_ERR_IO;
        }
        free(target);
    }
    if (rc)
        return rc;
    if (!(s->commands[j] = job_command(a, s->macsim, dir)))
        return KS_ERR_NOMEM;
    s->jobs[j] = (ks_run_job){s->dirs[j], s->commands[j]};
    return 0;
}

/* state:memcpy: whether the build takes 64-bit MemcpyHtoD lines, from a
 * probe job in RUNDIR/probe; when it does not, the run falls back to the
 * warm-up kernel and says so. */
static int probe_memcpy(run_args *a)
{
    char dir[PATH_MAX];
    char *abs = realpath(a->rundir, NULL);
    if (!abs)
        return cli_usage_error("run", "%s: %s", a->rundir, strerror(errno));
    snprintf(dir, sizeof dir, "%s/probe", abs);
    free(abs);
    ks_error err;
    ks_error_clear(&err);
    if (ks_state_probe_write(dir, &err) != KS_OK)
        return cli_fail(&err);
    int rc = a->accelsim ? link_configs(a, dir) : 0;
    if (rc)
        return rc;
    char *cmd = job_command(a, false, dir);
    if (!cmd)
        return KS_ERR_NOMEM;
    char shell[PATH_MAX * 8], quoted[PATH_MAX * 4 + 8];
    shell_quote(quoted, sizeof quoted, dir);
    snprintf(shell, sizeof shell, "cd %s && %.*s > sim.log 2>&1", quoted, PATH_MAX * 2, cmd);
    free(cmd);
    int status = system(shell);
    char log[PATH_MAX + 16];
    snprintf(log, sizeof log, "%s/sim.log", dir);
    int takes = 0;
    if (status != 0) {
        fprintf(stderr, "ksample: run: the state:memcpy probe in %s failed (exit %d); see its "
                        "sim.log\n", dir, status);
        return 1;
    }
    if (ks_state_probe_read(log, &takes, &err) != KS_OK)
        return cli_fail(&err);
    if (!takes) {
        fprintf(stderr,
                "ksample: note: this simulator build ignores MemcpyHtoD lines at 64-bit "
                "addresses (its perf_memcpy_to_gpu keeps a 32-bit address: accel-sim issue "
                "#327; probe in %s): the state goes in a warm-up kernel instead "
                "(state:kernel)\n",
                dir);
        a->warmup.carrier = KS_STATE_KERNEL;
    } else if (!a->quiet)
        fprintf(stderr, "ksample: run: this build takes 64-bit MemcpyHtoD lines into L2 "
                        "(probe in %s): the state goes in memory copies\n", dir);
    return 0;
}

/* --warmup state: every sampled launch's rebuilt L2 state written into the
 * folder of its job, in one pass over the traces (the job's export then
 * takes it into the folder it builds).  A job done before is left as it
 * is; a job folder that is a link is refused, as its export would. */
static int prepare_state(run_state *s, const run_args *a)
{
    char *abs = realpath(a->rundir, NULL);
    const char **dirs = calloc(s->entry_count + 1, sizeof *dirs);
    char **owned = calloc(s->job_count + 1, sizeof *owned);
    ks_export_entry *todo = malloc((s->entry_count + 1) * sizeof *todo);
    size_t todo_count = 0;
    int rc = abs && dirs && owned && todo ? 0 : KS_ERR_NOMEM;
    ks_error err;
    ks_error_clear(&err);
    for (size_t j = 0; j < s->job_count && !rc; j++) {
        size_t n = strlen(abs) + 32;
        if (!(owned[j] = malloc(n))) {
            rc = KS_ERR_NOMEM;
            break;
        }
        snprintf(owned[j], n, "%s/jobs/%04zu", abs, j);
        ks_job_state state;
        int code;
        if (ks_run_job_state(a->rundir, s->dirs[j], &state, &code, &err) != KS_OK) {
            rc = cli_fail(&err);
            break;
        }
        if (state == KS_JOB_DONE)
            continue;
        if (ks_run_owned_dir(owned[j], &err) != KS_OK) {
            rc = cli_fail(&err);
            break;
        }
        for (size_t k = s->job_first[j]; k < s->job_first[j + 1]; k++) {
            todo[todo_count] = s->entries[k];
            dirs[todo_count++] = owned[j];
        }
    }
    ks_state_report rep;
    memset(&rep, 0, sizeof rep);
    if (!rc && ks_export_state_write(a->traces, &a->warmup, todo, todo_count, dirs, &rep,
                                     &err) != KS_OK)
        rc = cli_fail(&err);
    free(todo);
    if (!rc && !a->quiet)
        fprintf(stderr,
                "ksample: run: warm state of %zu launches rebuilt in %.1f s: %llu lines in "
                "all, at most %llu a launch (L2 of %llu bytes from %s, lines of the last %g "
                "L2 capacities)\n",
                rep.launches, rep.seconds, (unsigned long long)rep.lines,
                (unsigned long long)rep.lines_max, (unsigned long long)rep.l2_bytes, rep.source,
                rep.cut);
    if (!rc && rep.dirty && a->warmup.carrier == KS_STATE_MEMCPY)
        fprintf(stderr,
                "ksample: note: state:memcpy: %llu of the copied lines were last written "
                "(dirty) and GPGPU-Sim fills copies clean, so the write-backs their eviction "
                "causes in the full run are left out (tests/data/accelsim-large: 0.938x the "
                "full run, no better than cold, where launches evict other launches' dirty "
                "lines); --warmup state (the warm-up kernel) stores them\n",
                (unsigned long long)rep.dirty);
    for (size_t j = 0; owned && j < s->job_count; j++)
        free(owned[j]);
    free(owned);
    free(dirs);
    free(abs);
    return rc;
}

/* A run folder this run made, removed when the run fails before its
 * manifest is written (nothing of it is a run yet); links are removed
 * themselves, never followed (FTW_PHYS). */
static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void remove_made(const char *rundir, bool made)
{
    if (made)
        nftw(rundir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
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

static int run(run_args *a)
{
    run_state s;
    memset(&s, 0, sizeof s);
    ks_error err;
    ks_error_clear(&err);
    char digest[33];
    if (ks_plan_read(a->plan, &s.plan, &err) != KS_OK || ks_file_xxh128(a->plan, digest, &err))
        return state_free(&s), cli_fail(&err);
    if (s.plan.sample_count == 0)
        return state_free(&s), cli_usage_error("run", "the plan has no samples");
    /* every file the jobs read: the plan and its profile, the traces, the
     * simulator presets' binaries, configurations and parameters */
    const char *inputs[8 + MAX_CONFIGS] = {a->plan, a->traces, a->profile, s.plan.input_path,
                                           a->accelsim, a->macsim, a->params};
    size_t n_inputs = 7;
    for (int i = 0; i < a->config_count; i++)
        inputs[n_inputs++] = a->configs[i];
    int rc = cli_check_output("run", a->rundir, inputs, n_inputs);
    if (rc)
        return state_free(&s), rc;
    if (a->profile && ks_plan_open_profile(&s.plan, a->profile, &s.profile, &err) != KS_OK)
        return state_free(&s), cli_fail(&err);
    s.macsim = ks_export_folder_is_macsim(a->traces);
    if (s.macsim && a->accelsim)
        return state_free(&s),
               cli_usage_error("run", "%s is a MacSim trace folder: --accelsim runs Accel-Sim "
                                      "traces", a->traces);
    if (!s.macsim && a->macsim)
        return state_free(&s),
               cli_usage_error("run", "%s is not a MacSim trace folder (no kernel_config.txt "
                                      "starting with nvbit): --macsim runs MacSim traces",
                               a->traces);
    char manifest_path[PATH_MAX + 32], jobs_dir[PATH_MAX + 8];
    snprintf(manifest_path, sizeof manifest_path, "%s/manifest.json", a->rundir);
    snprintf(jobs_dir, sizeof jobs_dir, "%s/jobs", a->rundir);
    /* everything that can be checked is, before the folder is made: the
     * simulated L2 of --warmup state, the plan's launches in these traces */
    if (ks_export_state_check(a->traces, &a->warmup, &err) != KS_OK)
        return state_free(&s), cli_fail(&err);
    ks_export_options eo = {.traces = a->traces, .profile = s.profile, .remap = a->remap,
                            .warmup = a->warmup.mode == KS_WARMUP_NONE ? NULL : &a->warmup};
    if (ks_export_plan_entries(&s.plan, &eo, &s.entries, &s.entry_count, &err) != KS_OK)
        return state_free(&s), cli_fail(&err);
    struct stat before;
    bool made = stat(a->rundir, &before) != 0; /* removed again if the run fails early */
    if ((rc = make_dir(a->rundir)))
        return state_free(&s), rc;
    if (ks_run_owned_dir(jobs_dir, &err) != KS_OK) /* never a link */
        return state_free(&s), cli_fail(&err);
    /* one run at a time in a folder, from here to the end */
    if (ks_run_lock_take(a->rundir, &s.lock, &err) != KS_OK)
        return state_free(&s), cli_fail(&err);
    if (a->warmup.mode == KS_WARMUP_STATE && a->warmup.carrier == KS_STATE_MEMCPY && !s.macsim) {
        if ((rc = probe_memcpy(a)))
            return state_free(&s), rc; /* the probe's sim.log stays, to be read */
    }
    if ((rc = split_jobs(&s, a->batch)))
        return state_free(&s), rc;
    s.jobs = calloc(s.job_count, sizeof *s.jobs);
    s.dirs = calloc(s.job_count, sizeof *s.dirs);
    s.commands = calloc(s.job_count, sizeof *s.commands);
    s.manifest.jobs = calloc(s.job_count, sizeof *s.manifest.jobs);
    s.manifest.job_count = s.job_count;
    char *plan_abs = realpath(a->plan, NULL), *traces_abs = realpath(a->traces, NULL);
    char *command = command_text(a);
    char warmup_text[32];
    ks_warmup_format(&a->warmup, warmup_text, sizeof warmup_text);
    s.manifest.plan = plan_abs;
    s.manifest.traces = traces_abs;
    s.manifest.warmup = warmup_text;
    s.manifest.simulator = a->accelsim ? "accelsim" : a->macsim ? "macsim" : "command";
    s.manifest.command = command;
    s.manifest.batch = a->batch;
    s.manifest.remap = a->remap;
    char fingerprint[33];
    if (!rc && ks_run_traces_fingerprint(traces_abs ? traces_abs : a->traces, fingerprint,
                                         &err) != KS_OK)
        rc = cli_fail(&err);
    s.manifest.traces_fingerprint = fingerprint;
    /* the simulated machine by its configuration's contents: an edited
     * --sim-config (another L2) at the same path is another machine */
    const char *configs[MAX_CONFIGS + 2] = {a->warmup.sim_config, a->params};
    for (int i = 0; i < a->config_count; i++)
        configs[2 + i] = a->configs[i];
    char config_digest[33];
    if (!rc && ks_run_config_digest(configs, 2 + (size_t)a->config_count, config_digest,
                                    &err) != KS_OK)
        rc = cli_fail(&err);
    s.manifest.config_xxh128 = configs[0] || configs[1] || a->config_count ? config_digest
                                                                            : NULL;
    snprintf(s.manifest.plan_xxh128, sizeof s.manifest.plan_xxh128, "%s", digest);
    if (!s.jobs || !s.dirs || !s.commands || !s.manifest.jobs || !plan_abs || !traces_abs ||
        !command)
        rc = KS_ERR_NOMEM;
    for (size_t j = 0; j < s.job_count && !rc; j++)
        rc = describe_job(&s, a, j);
    /* nothing in the folder changes before the earlier run's options are
     * found to be these */
    if (!rc)
        rc = check_previous(a->rundir, manifest_path, &s.manifest);
    /* the manifest first: a run stopped while the jobs are prepared leaves
     * a folder that status reads (its jobs not started) and a rerun takes */
    if (!rc && ks_run_manifest_write(manifest_path, &s.manifest, &err) != KS_OK)
        rc = cli_fail(&err);
    else if (rc)
        remove_made(a->rundir, made);
    if (!rc && a->warmup.mode == KS_WARMUP_STATE)
        rc = prepare_state(&s, a);
    for (size_t j = 0; j < s.job_count && !rc; j++)
        rc = prepare_job(&s, a, j);
    s.manifest.plan = s.manifest.traces = s.manifest.warmup = s.manifest.simulator = NULL;
    s.manifest.command = s.manifest.traces_fingerprint = s.manifest.config_xxh128 = NULL;
    free(plan_abs);
    free(traces_abs);
    free(command);
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
        fprintf(stderr,
                "ksample: run %s: %zu jobs (warm-up %s), %zu done now, %zu done before, %zu "
                "failed%s%s\n",
                a->rundir, last.total, warmup_text, last.done, last.skipped, last.failed,
                last.slurm_job_id[0] ? ", Slurm job " : "", last.slurm_job_id);
    rc = o.engine == KS_ENGINE_SLURM && !o.wait ? 0 : report_failures(a, &s);
    state_free(&s);
    return rc;
}

/* A preset's binary as every job runs it: absolute (a job runs in its own
 * folder, where ./bin is not), checked now rather than failing every job
 * with exit 127.  A name without a slash is looked up in PATH, as the shell
 * would. */
static int resolve_program(const char *opt, const char *given, char *out, size_t size)
{
    char *found = NULL;
    if (strchr(given, '/')) {
        found = realpath(given, NULL);
    } else {
        const char *path = getenv("PATH");
        for (const char *p = path ? path : ""; *p && !found;) {
            size_t n = strcspn(p, ":");
            char cand[PATH_MAX];
            snprintf(cand, sizeof cand, "%.*s/%s", (int)n, n ? p : ".", given);
            if (access(cand, X_OK) == 0)
                found = realpath(cand, NULL);
            p += n + (p[n] == ':');
        }
    }
    struct stat sb;
    if (!found || stat(found, &sb) != 0)
        return free(found),
               cli_usage_error("run", "%s %s: no such program%s", opt, given,
                               strchr(given, '/') ? "" : " in PATH");
    int rc = 0;
    if (!S_ISREG(sb.st_mode) || access(found, X_OK) != 0)
        rc = cli_usage_error("run", "%s %s: not an executable file", opt, given);
    else if (strlen(found) >= size)
        rc = cli_usage_error("run", "%s %s: path too long", opt, given);
    else
        snprintf(out, size, "%s", found);
    free(found);
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
        {"accelsim", required_argument, NULL, 'A'}, {"macsim", required_argument, NULL, 'M'},
        {"config", required_argument, NULL, 'C'},   {"params", required_argument, NULL, 'R'},
        {"warmup", required_argument, NULL, 'w'},   CLI_STATE_LONG_OPTIONS,
        {"sim-config", required_argument, NULL, CLI_STATE_SIM_CONFIG},
        {NULL, 0, NULL, 0}};
    run_args a = {.batch = 1};
    ks_error werr;
    ks_error_clear(&werr);
    ks_run_options_init(&a.run);
    a.run.wait = 1;
    uint64_t v;
    cli_loop l = {.cmd = "run", .longopts = longopts, .shortopts = "ho:j:q", .help = help,
                  .operands = 1, .operands_are = "one plan file"};
    int opt, rc;
    while ((opt = cli_loop_next(&l, argc, argv)) != -1) {
        if (cli_state_option(&a.state, opt, optarg))
            continue;
        switch (opt) {
        case 'T': a.traces = optarg; break;
        case 'S': a.simulator = optarg; break;
        case 'A': a.accelsim = optarg; break;
        case 'M': a.macsim = optarg; break;
        case 'R': a.params = optarg; break;
        case 'C':
            if (a.config_count == MAX_CONFIGS)
                return cli_usage_error("run", "at most %d --config", MAX_CONFIGS);
            a.configs[a.config_count++] = optarg;
            break;
        case 'w':
            if (ks_warmup_parse(optarg, &a.warmup, &werr) != KS_OK)
                return cli_usage_error("run", "--warmup: %s", werr.message);
            a.warmup_given = true;
            break;
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
    if (!a.traces || !a.rundir)
        return cli_usage_error("run", "--traces and -o RUNDIR are required");
    if (!!a.simulator + !!a.accelsim + !!a.macsim != 1)
        return cli_usage_error("run", "give one of --simulator CMD, --accelsim BIN (with "
                                      "--config DIR) and --macsim BIN (with --params FILE)");
    if (a.accelsim && a.config_count == 0)
        return cli_usage_error("run", "--accelsim needs --config DIR (the folder of "
                                      "gpgpusim.config)");
    if (a.accelsim && !file_in_configs(&a, "gpgpusim.config"))
        return cli_usage_error("run", "no gpgpusim.config in the --config folders");
    if (!a.accelsim && a.config_count)
        return cli_usage_error("run", "--config is for --accelsim");
    if (a.macsim && !a.params)
        return cli_usage_error("run", "--macsim needs --params FILE (its params.in)");
    if (!a.macsim && a.params)
        return cli_usage_error("run", "--params is for --macsim");
    if (a.simulator && !strstr(a.simulator, "{kernelslist}") &&
        !strstr(a.simulator, "{kernel_config}") && !strstr(a.simulator, "{trace_file_list}") &&
        !strstr(a.simulator, "{outdir}"))
        return cli_usage_error("run", "--simulator must name what to run: {kernelslist}, "
                                      "{kernel_config}, {trace_file_list} or {outdir}");
    static char accelsim_abs[PATH_MAX], macsim_abs[PATH_MAX];
    if (a.accelsim && (rc = resolve_program("--accelsim", a.accelsim, accelsim_abs,
                                            sizeof accelsim_abs)))
        return rc;
    if (a.macsim &&
        (rc = resolve_program("--macsim", a.macsim, macsim_abs, sizeof macsim_abs)))
        return rc;
    if (a.accelsim)
        a.accelsim = accelsim_abs;
    if (a.macsim)
        a.macsim = macsim_abs;
    if (!a.warmup_given)
        a.warmup = (ks_warmup){.mode = KS_WARMUP_DEFAULT_MODE,
                               .count = KS_WARMUP_DEFAULT_COUNT,
                               .depth = KS_WARMUP_DEFAULT_DEPTH};
    if ((rc = cli_state_apply("run", &a.state, &a.warmup)))
        return rc;
    if (!a.warmup_given && !a.accelsim && !a.macsim && !a.state.l2 && !a.state.sim_config) {
        /* the default state needs the simulated L2: a custom command gives
         * no configuration to read it from */
        a.warmup = (ks_warmup){.mode = KS_WARMUP_FALLBACK_MODE,
                               .count = KS_WARMUP_FALLBACK_COUNT, .depth = 1};
        if (!a.quiet)
            fprintf(stderr, "ksample: note: warm-up since-same:%d; the default, the rebuilt L2 "
                            "state, needs the simulated L2: give --sim-config FILE (gpgpusim."
                            "config, params.in) or --l2-size BYTES\n",
                    KS_WARMUP_FALLBACK_COUNT);
    }
    if (a.warmup.mode == KS_WARMUP_STATE) {
        /* the simulated L2 from the simulator's own configuration */
        for (int c = 0; c < a.config_count && !a.sim_config[0]; c++) {
            char path[PATH_MAX * 2];
            struct stat sb;
            snprintf(path, sizeof path, "%s/gpgpusim.config", a.configs[c]);
            if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
                snprintf(a.sim_config, sizeof a.sim_config, "%s", path);
        }
        if (a.params)
            snprintf(a.sim_config, sizeof a.sim_config, "%s", a.params);
        if (a.sim_config[0] && !a.state.sim_config)
            a.warmup.sim_config = a.sim_config;
    }
    return run(&a);
}
