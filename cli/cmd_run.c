/* cmd_run.c - `ksample run`: the plan's sampled kernels simulated as
 * independent jobs (one kernel each, or --batch K), on a local pool of
 * processes or as one Slurm job array, leaving in RUNDIR what `ksample
 * estimate RUNDIR` reads.  Each job folder gets what the accelsim or macsim
 * exporter writes for its launches (with --warmup, each sampled launch
 * after its warm-up launches), and the simulator command: a template with
 * {kernelslist}, {kernel_config}, {trace_file_list} and {outdir} replaced,
 * or the preset of Accel-Sim (--accelsim BIN --config DIR) or MacSim
 * (--macsim BIN --params FILE). */
#include "cli_run.h"
#include "progress.h"

#include <errno.h>
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
           "A plan refined from the folder's ('ksample refine PLAN RUNDIR -o CHILD'), or\n"
           "any plan holding every launch the folder simulated, run into the same folder\n"
           "reuses the jobs done there and simulates only its new launches, in new job\n"
           "folders (it says how many of each).  The folder's recorded trace folder and\n"
           "its fingerprint, simulator command, configuration contents, --warmup and\n"
           "warm-state options, --batch, --remap and the plan's profile must be this\n"
           "run's, else the run is refused naming the one that differs (give a new\n"
           "folder to simulate every launch).  'ksample estimate CHILD RUNDIR' then\n"
           "reads every job, 'ksample estimate PLAN RUNDIR' still PLAN's jobs alone.\n\n"
           "A launch simulated by itself starts from cold caches, which it never does in\n"
           "the full run, so its cycles differ from those it takes there (docs/bench.md\n"
           "has the measured differences).  --warmup runs warm-up launches before each\n"
           "sampled launch in the same job, or rebuilds the cache state (state), and\n"
           "keeps only the sampled launch's statistics; the manifest records the mode\n"
           "and 'estimate' reports it.\n\n"
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
           "                     (state:kernel: any build; plain state on MacSim) or as MemcpyHtoD\n"
           "                     lines at no simulated cycle (state:memcpy: Accel-Sim\n"
           "                     builds whose perf_memcpy_to_gpu keeps 64-bit addresses;\n"
           "                     the first job checks it, and the run falls back to the\n"
           "                     kernel with a note when it does not), or on a stock\n"
           "                     build as MemcpyHtoD lines with the job's copy of the\n"
           "                     launch's trace in a 32-bit address space that keeps\n"
           "                     every address bit the gpgpusim.config reads\n"
           "                     (state:memcpy32; state:memcpy32+stores adds a kernel of\n"
           "                     only the dirty lines' stores, which copies fill clean;\n"
           "                     the run checks the program's lines stay apart and falls\n"
           "                     back to the kernel with a note where not). state:split\n"
           "                     (plain state on Accel-Sim) is state:memcpy32 where the\n"
           "                     launch's misses evict few dirty lines (under 1 %% of\n"
           "                     them); elsewhere, in the simulator's L2 sets where they\n"
           "                     evict dirty lines, the copies of the lines they reach\n"
           "                     come first, a warm-up kernel stores the dirty ones, and\n"
           "                     the copies of the sets' younger lines follow (with\n"
           "                     -gpgpu_concurrent_kernel_sm 1 the kernel loads those\n"
           "                     sets' lines in order instead).\n"
           "                     A rerun keeps the carrier its folder was run with.\n"
           "                     Default state (the simulated L2 from --config, --params,\n"
           "                     --sim-config or --l2-size; else since-same:8).  How\n"
           "                     close each mode comes to the full run, and at what cost\n"
           "                     in simulated cycles: docs/bench.md, \"The rebuilt warm\n"
           "                     state\"\n"
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

/* The jobs cut from the entries and described in the manifest with the
 * warm-up and command as they are now (again, when the probe changed the
 * carrier). */
static int describe(run_state *s, run_args *a, char warmup_text[32], char **command)
{
    cli_run_forget_jobs(s);
    free(*command);
    *command = cli_run_command_text(a);
    ks_warmup_format(&a->warmup, warmup_text, 32);
    s->manifest.warmup = warmup_text;
    s->manifest.command = *command;
    int rc = cli_run_split_jobs(s, a->batch);
    if (rc)
        return rc;
    s->jobs = calloc(s->job_count, sizeof *s->jobs);
    s->dirs = calloc(s->job_count, sizeof *s->dirs);
    s->commands = calloc(s->job_count, sizeof *s->commands);
    s->manifest.jobs = calloc(s->job_count, sizeof *s->manifest.jobs);
    s->manifest.job_count = s->job_count;
    if (!s->jobs || !s->dirs || !s->commands || !s->manifest.jobs || !*command)
        return KS_ERR_NOMEM;
    for (size_t j = 0; j < s->job_count && !rc; j++)
        rc = cli_run_describe_job(s, a, j);
    return rc;
}

/* The manifest's strings run() lent it (the rest are the state's own):
 * unset there and freed, once the manifest is written or not needed. */
static void drop_borrowed(run_state *s, char *plan_abs, char *traces_abs, char *command)
{
    s->manifest.plan = s->manifest.traces = s->manifest.warmup = s->manifest.simulator = NULL;
    s->manifest.command = s->manifest.traces_fingerprint = s->manifest.config_xxh128 = NULL;
    s->manifest.profile_xxh128 = NULL;
    free(plan_abs);
    free(traces_abs);
    free(command);
}

static int run(run_args *a)
{
    run_state s;
    memset(&s, 0, sizeof s);
    ks_error err;
    ks_error_clear(&err);
    char digest[33];
    if (ks_plan_read(a->plan, &s.plan, &err) != KS_OK || ks_file_xxh128(a->plan, digest, &err))
        return cli_run_state_free(&s), cli_fail(&err);
    if (s.plan.sample_count == 0)
        return cli_run_state_free(&s), cli_usage_error("run", "the plan has no samples");
    /* every file the jobs read: the plan and its profile, the traces, the
     * simulator presets' binaries, configurations and parameters */
    const char *inputs[8 + MAX_CONFIGS] = {a->plan, a->traces, a->profile, s.plan.input_path,
                                           a->accelsim, a->macsim, a->params};
    size_t n_inputs = 7;
    for (int i = 0; i < a->config_count; i++)
        inputs[n_inputs++] = a->configs[i];
    int rc = cli_check_output("run", a->rundir, inputs, n_inputs);
    if (rc)
        return cli_run_state_free(&s), rc;
    if (a->profile && ks_plan_open_profile(&s.plan, a->profile, &s.profile, &err) != KS_OK)
        return cli_run_state_free(&s), cli_fail(&err);
    s.macsim = ks_export_folder_is_macsim(a->traces);
    if (s.macsim && a->accelsim)
        return cli_run_state_free(&s),
               cli_usage_error("run", "%s is a MacSim trace folder: --accelsim runs Accel-Sim "
                                      "traces", a->traces);
    if (!s.macsim && a->macsim)
        return cli_run_state_free(&s),
               cli_usage_error("run", "%s is not a MacSim trace folder (no kernel_config.txt "
                                      "starting with nvbit): --macsim runs MacSim traces",
                               a->traces);
    char manifest_path[PATH_MAX + 32], jobs_dir[PATH_MAX + 8];
    snprintf(manifest_path, sizeof manifest_path, "%s/manifest.json", a->rundir);
    snprintf(jobs_dir, sizeof jobs_dir, "%s/jobs", a->rundir);
    /* everything that can be checked is, before the folder is made: the
     * simulated L2 of --warmup state, the plan's launches in these traces */
    if (ks_export_state_check(a->traces, &a->warmup, &err) != KS_OK)
        return cli_run_state_free(&s), cli_fail(&err);
    ks_export_options eo = {.traces = a->traces, .profile = s.profile, .remap = a->remap,
                            .warmup = a->warmup.mode == KS_WARMUP_NONE ? NULL : &a->warmup};
    if (ks_export_plan_entries(&s.plan, &eo, &s.entries, &s.entry_count, &err) != KS_OK)
        return cli_run_state_free(&s), cli_fail(&err);
    struct stat before;
    bool made = stat(a->rundir, &before) != 0; /* removed again if the run fails early */
    if ((rc = cli_run_make_dir(a->rundir)))
        return cli_run_state_free(&s), rc;
    if (ks_run_owned_dir(jobs_dir, &err) != KS_OK) /* never a link */
        return cli_run_state_free(&s), cli_fail(&err);
    /* one run at a time in a folder, from here to the end */
    if (ks_run_lock_take(a->rundir, &s.lock, &err) != KS_OK)
        return cli_run_state_free(&s), cli_fail(&err);
    /* a folder run before for the plan this one was refined from: its jobs
     * first, as they are, and only the new launches' jobs after them */
    if ((rc = cli_run_reuse_layout(&s, a, manifest_path, digest)))
        return cli_run_state_free(&s), rc;
    /* state:memcpy: an earlier probe's verdict now; a new probe (a simulator
     * run) only once the earlier run's options are found to be these */
    bool probe = a->warmup.mode == KS_WARMUP_STATE && a->warmup.carrier == KS_STATE_MEMCPY &&
                 !s.macsim, known = false;
    if (probe && (rc = cli_run_probe_memcpy(a, true, &known)))
        return cli_run_state_free(&s), rc;
    /* plain `state`: the earlier run's carrier, else state:split */
    if (a->warmup.mode == KS_WARMUP_STATE && !a->warmup.carrier_given)
        cli_run_default_carrier(&s, a);
    /* state:memcpy32 and split: the remap applies, or the kernel carries
     * the state */
    if (a->warmup.mode == KS_WARMUP_STATE && ks_state_carrier_remaps(a->warmup.carrier) &&
        (rc = cli_run_check_memcpy32(a)))
        return cli_run_state_free(&s), rc;
    char *plan_abs = realpath(a->plan, NULL), *traces_abs = realpath(a->traces, NULL);
    char *command = NULL;
    char warmup_text[32];
    rc = describe(&s, a, warmup_text, &command);
    s.manifest.plan = plan_abs;
    s.manifest.traces = traces_abs;
    s.manifest.simulator = a->accelsim ? "accelsim" : a->macsim ? "macsim" : "command";
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
    s.manifest.profile_xxh128 = s.plan.input_xxh128[0] ? s.plan.input_xxh128 : NULL;
    snprintf(s.manifest.plan_xxh128, sizeof s.manifest.plan_xxh128, "%s", digest);
    if (!rc && (!plan_abs || !traces_abs))
        rc = KS_ERR_NOMEM;
    /* nothing in the folder changes before the earlier run's options are
     * found to be these */
    ks_status differs = KS_OK;
    if (!rc)
        differs = cli_run_compare_previous(a->rundir, manifest_path,
                                           s.has_previous ? &s.previous : NULL,
                                           &s.manifest, &err);
    /* an earlier run that fell back to the kernel differs in its warm-up
     * alone: the probe decides (a simulator run, so only then) */
    bool carrier_only = differs == KS_ERR_USAGE && strstr(err.message, "--warmup state:");
    if (!rc && differs != KS_OK && !(probe && !known && carrier_only))
        rc = cli_fail(&err);
    if (!rc && probe && !known) {
        rc = cli_run_probe_memcpy(a, false, &known);
        if (!rc && a->warmup.carrier != KS_STATE_MEMCPY) {
            /* the build ignores the copies: the jobs carry a kernel instead */
            rc = describe(&s, a, warmup_text, &command);
            if (!rc)
                rc = cli_run_check_previous(a->rundir, manifest_path,
                                            s.has_previous ? &s.previous : NULL, &s.manifest);
        } else if (!rc && differs != KS_OK) {
            rc = cli_fail(&err);
        }
    }
    if (!rc && s.earlier_only) {
        /* an earlier plan of the folder: its jobs are there, or its refined
         * plan's run runs them */
        rc = cli_run_earlier_done(&s, a);
        drop_borrowed(&s, plan_abs, traces_abs, command);
        cli_run_state_free(&s);
        return rc;
    }
    if (!rc)
        cli_run_say_reuse(&s, a, digest);
    /* the manifest first: a run stopped while the jobs are prepared leaves
     * a folder that status reads (its jobs not started) and a rerun takes */
    if (!rc && ks_run_manifest_write(manifest_path, &s.manifest, &err) != KS_OK)
        rc = cli_fail(&err);
    else if (rc)
        cli_run_remove_made(a->rundir, made);
    if (!rc && a->warmup.mode == KS_WARMUP_STATE)
        rc = cli_run_prepare_state(&s, a);
    for (size_t j = 0; j < s.job_count && !rc; j++)
        rc = cli_run_prepare_job(&s, a, j);
    drop_borrowed(&s, plan_abs, traces_abs, command);
    if (rc)
        return cli_run_state_free(&s), rc;
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
                "ksample: run %s stopped by signal %d: %zu job%s interrupted, %zu done now; "
                "a rerun runs the jobs not done\n",
                a->rundir, (int)*o.stop, last.interrupted, last.interrupted == 1 ? "" : "s",
                last.done);
        cli_run_state_free(&s);
        cli_die_of_stop();
    }
    if (st != KS_OK)
        return cli_run_state_free(&s), cli_fail(&err);
    if (!a->quiet)
        fprintf(stderr,
                "ksample: run %s: %zu job%s (warm-up %s), %zu done now, %zu done before, %zu "
                "failed%s%s\n",
                a->rundir, last.total, last.total == 1 ? "" : "s", warmup_text, last.done, last.skipped, last.failed,
                last.slurm_job_id[0] ? ", Slurm job " : "", last.slurm_job_id);
    rc = o.engine == KS_ENGINE_SLURM && !o.wait ? 0 : cli_run_report_failures(a, &s);
    cli_run_state_free(&s);
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
    if (a.accelsim && !cli_run_file_in_configs(&a, "gpgpusim.config"))
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
        if (!a.warmup_given && !a.quiet)
            fprintf(stderr, "ksample: run: warm-up state, the default: each launch starts from "
                            "the L2 state the full run gives it, rebuilt from the traces\n");
    }
    return run(&a);
}
