/*
 * estimate.h - simulator output parsing and the stratified estimators
 * (internal).
 */
#ifndef KS_ESTIMATE_H
#define KS_ESTIMATE_H

#include "internal.h"

/* One per-kernel statistics block of an Accel-Sim / GPGPU-Sim log: the uids
 * its kernel_launch_uid line lists (several when kernels ran concurrently,
 * none when the line is empty or absent) and every `name = number`
 * statistic in it except the cumulative gpu_tot_*. */
typedef struct ks_simlog_block {
    long line; /* of its kernel_name line */
    size_t uid_count;
    const uint64_t *uids;
    size_t stat_count;
    const char *const *names;
    const double *values;
    const char *kernel_name; /* its kernel_name value ("" when empty) */
    /* per uid: grid[3] then block[3] from the trace header the simulator
     * echoed before launching it; all 0 when the log did not print them */
    const uint32_t (*dims)[6];
} ks_simlog_block;

typedef ks_status (*ks_simlog_fn)(void *ctx, const ks_simlog_block *b, ks_error *err);

/* Line-at-a-time parser, so that files, compressed files and fuzz buffers
 * go through the same code. */
typedef struct ks_simlog ks_simlog;

ks_status ks_simlog_new(const char *path, ks_simlog_fn fn, void *ctx, ks_simlog **out,
                        ks_error *err);
/* line: without its newline, NUL-terminated; number: 1-based */
ks_status ks_simlog_line(ks_simlog *s, const char *line, size_t len, long number,
                         ks_error *err);
/* Emits the last block; *blocks = blocks seen in the whole log. */
ks_status ks_simlog_finish(ks_simlog *s, size_t *blocks, ks_error *err);
void ks_simlog_free(ks_simlog *s);

/* Whether the first bytes look like a simulator log rather than a CSV. */
bool ks_simlog_detect(const char *head, size_t len);

/* Spread of a metric inside each plan cluster, as the estimate uses it:
 * V = sum_h N_h^2 fpc_h S_h^2 / n_h. */
typedef struct ks_stratum_spread {
    double n;   /* distinct samples, or draws when drawn with replacement */
    double s2;  /* S_h^2 (n-1 divisor); for a one-sample cluster, by the mode */
    double fpc; /* 1 - n/N without replacement, 1 with */
    double df;  /* degrees of freedom of s2; INFINITY when borrowed from
                 * the profile */
    size_t source; /* clusters with the same source share one estimate of
                    * spread (a collapsed pair; cluster_count: the pooled
                    * spread), so their errors move together */
    bool census;
    bool single;
} ks_stratum_spread;

/* v: values at the plan's samples; scale: what a one-sample cluster's
 * profile CV multiplies; residual: v are ratio residuals (mean 0). */
ks_status ks_strata_spread(const ks_plan *plan, const double *v, const double *scale,
                           bool residual, ks_single_mode mode, ks_stratum_spread *out,
                           size_t *single, ks_error *err);

#endif
