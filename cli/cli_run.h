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
} run_state;

/* mkdir, an existing folder accepted; a message and KS_ERR_IO otherwise */
int cli_run_make_dir(const char *path);
void cli_run_state_free(run_state *s);
/* A rerun must be of the same plan and, once a job is done, options:
 * compare says why not in err, check prints it and returns the exit code. */
ks_status cli_run_compare_previous(const char *rundir, const char *manifest,
                                   const ks_run_manifest *now, ks_error *err);
int cli_run_check_previous(const char *rundir, const char *manifest, const ks_run_manifest *now);
/* Jobs of `batch` sampled launches each, every one after its warm-ups. */
int cli_run_split_jobs(run_state *s, uint64_t batch);
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
int cli_run_check_memcpy32(run_args *a, bool macsim);
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
