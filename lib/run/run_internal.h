/*
 * run_internal.h - shared by the job engine's files (run.c, run_local.c,
 * run_slurm.c, job_state.c): path helpers and the progress tracker; the
 * run-folder reader of simulator outputs (lib/simout/results_sim.c) uses
 * ks_run_job_file.
 */
#ifndef KS_RUN_INTERNAL_H
#define KS_RUN_INTERNAL_H

#include "internal.h"
#include "ksample.h"

#include <stdbool.h>

/* The jobs one call really runs (those not finished before), by absolute
 * folder, with the counts that progress reports. */
typedef struct ks_run_tracker {
    const ks_run_options *options;
    char **dirs;       /* absolute job folders still to run */
    size_t count;
    ks_run_progress progress;
    ks_run_progress_fn cb;
    void *ctx;
    double start_s, last_report_s;
} ks_run_tracker;

/* What a stopped job's status file holds (the engines and the Slurm task
 * script write it; ks_run_dir_state reads it as KS_JOB_INTERRUPTED). */
#define KS_RUN_INTERRUPTED "interrupted\n"

/* Whether the caller asked the run to stop (ks_run_options.stop). */
bool ks_run_stop_requested(const ks_run_tracker *t);
/* KS_OK unless the Slurm array an earlier run of rundir submitted
 * (rundir/slurm/job_id) still has tasks queued or running, as squeue says;
 * where there is no such file, no squeue, or squeue no longer knows the
 * array, there is nothing to wait for. */
ks_status ks_run_slurm_check_idle(const char *rundir, ks_error *err);
/* Writes "interrupted" as the status of the job folder dir. */
ks_status ks_run_mark_interrupted(const char *dir, ks_error *err);

double ks_run_now(void);
/* Fills elapsed and eta, and calls the callback when forced or a second has
 * passed since the last call. */
void ks_run_report(ks_run_tracker *t, bool force);

/* rundir/dir/name for a job folder dir as the manifest records it
 * (relative to rundir, or absolute); malloc'd, NULL when out of memory. */
char *ks_run_job_file(const char *rundir, const char *dir, const char *name);
/* mkdir -p */
ks_status ks_run_mkdirs(const char *path, ks_error *err);
/* Writes text to path through a temporary file and a rename (no fsync). */
ks_status ks_run_write_text(const char *path, const char *text, ks_error *err);
/* Status of an absolute job folder. */
ks_status ks_run_dir_state(const char *dir, ks_job_state *state, int *exit_code,
                           ks_error *err);

ks_status ks_run_local(ks_run_tracker *t, ks_error *err);
ks_status ks_run_slurm(ks_run_tracker *t, ks_error *err);

#endif
