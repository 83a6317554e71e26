/* cli_run.h - what `ksample run` (cmd_run.c) prepares before its jobs run:
 * the options, the jobs cut from the plan, their folders and commands, the
 * warm state and the state:memcpy probe (cli_run.c). */
#ifndef KS_CLI_RUN_H
#define KS_CLI_RUN_H

#include "cli.h"
#include "cli_state.h"

#include <limits.h>

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
    /* The folder's manifest when it was run before for another plan (a
     * refined plan run into its parent's folder) or holds jobs of earlier
     * plans: its jobs come first, in their folders, and the new launches'
     * jobs after them (cli_run_reuse_layout). */
    ks_run_manifest previous;
    bool has_previous;
    size_t reused;          /* jobs of previous, first */
    size_t *reused_first;   /* reused job j: entries [reused_first[j], reused_first[j + 1]) */
    size_t next_dir;        /* the first number free for a new job's folder */
    size_t dir_cursor;      /* the next one, as the jobs are described */
    /* this plan is one of previous's earlier plans (a refined plan reused
     * its jobs since): previous holds its jobs alone, and nothing is written */
    bool earlier_only;
} run_state;

/* mkdir, an existing folder accepted; a message and KS_ERR_IO otherwise */
int cli_run_make_dir(const char *path);
void cli_run_state_free(run_state *s);
/* A rerun must be of the same plan (or of a plan refined from it, which
 * reuses its jobs) and, once a job is done, options: compare says why not in
 * err, check prints it and returns the exit code.  before: the folder's
 * manifest as read already (cli_run_reuse_layout), or NULL to read it. */
ks_status cli_run_compare_previous(const char *rundir, const char *manifest,
                                   const ks_run_manifest *before, const ks_run_manifest *now,
                                   ks_error *err);
int cli_run_check_previous(const char *rundir, const char *manifest,
                           const ks_run_manifest *before, const ks_run_manifest *now);
/* Jobs of `batch` sampled launches each, every one after its warm-ups (after
 * the reused jobs, each as it was). */
int cli_run_split_jobs(run_state *s, uint64_t batch);
/* A folder run before (RUNDIR/manifest.json; nothing when absent): when it
 * is of another plan or holds earlier plans' jobs, the entries reordered so
 * that its jobs come first as they were, and the manifest's earlier plans
 * set; refused (a message, an exit code) when a job of it measures a launch
 * this plan lacks.  digest: this plan's XXH3-128. */
int cli_run_reuse_layout(run_state *s, const run_args *a, const char *manifest,
                         const char *digest);
/* earlier_only: when every job of this plan is done, says so (0: nothing to
 * run); else refuses, naming the plan that reused them. */
int cli_run_earlier_done(const run_state *s, const run_args *a);
/* What a refined plan's run reuses, on stderr (nothing for another run). */
void cli_run_say_reuse(const run_state *s, const run_args *a, const char *digest);
bool cli_run_file_in_configs(const run_args *a, const char *name);
/* What the manifest records of the simulator's command (malloc'd). */
char *cli_run_command_text(const run_args *a);
/* Job j in the manifest; job j's folder and command. */
int cli_run_describe_job(run_state *s, const run_args *a, size_t j);
int cli_run_prepare_job(run_state *s, const run_args *a, size_t j);
/* state:memcpy: whether the build takes 64-bit MemcpyHtoD lines, from an
 * earlier probe of the same command in RUNDIR/probe, else (unless
 * earlier_only) from running one; *known when it was found out (the
 * carrier falls back to the kernel when the build does not). */
int cli_run_probe_memcpy(run_args *a, bool earlier_only, bool *known);
/* state:memcpy32: whether the configuration's address functions have a
 * 32-bit remap and the program's footprint stays apart under it; else the
 * warm-up kernel, saying why. */
int cli_run_check_memcpy32(run_args *a);
/* `--warmup state` without a carrier: the carrier of the folder's earlier
 * run (a rerun goes on as it began), else state:split on Accel-Sim (which
 * cli_run_check_memcpy32 then checks), else the warm-up kernel. */
void cli_run_default_carrier(const run_state *s, run_args *a);
/* 'text' with every ' written as '\'' (into out, size bytes). */
void cli_run_shell_quote(char *out, size_t size, const char *text);
/* Links every file of the --config folders into dir. */
int cli_run_link_configs(const run_args *a, const char *dir);
/* The simulator command of the job in dir (malloc'd; NULL: out of memory). */
char *cli_run_job_command(const run_args *a, bool macsim, const char *dir);
/* The sampled launches whose rebuilt state missing traces left short of the
 * cut, on stderr (nothing where none). */
void cli_run_say_short_states(const ks_state_report *rep);
/* The jobs cut and described so far, freed (to describe them again). */
void cli_run_forget_jobs(run_state *s);
/* --warmup state: every sampled launch's rebuilt L2 state into its job. */
int cli_run_prepare_state(run_state *s, const run_args *a);
/* A run folder this run made (made), removed. */
void cli_run_remove_made(const char *rundir, bool made);
/* The failed jobs listed with their exit code and log's end; 1 if any. */
int cli_run_report_failures(const run_args *a, const run_state *s);

#endif
