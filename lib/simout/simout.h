/*
 * simout.h - the readers of simulator outputs (internal): Accel-Sim /
 * GPGPU-Sim logs, MacSim logs and stat files, get_stats.py CSVs, results
 * CSVs and run folders, into the results table.  Below the estimators:
 * nothing here knows an estimator.
 */
#ifndef KS_SIMOUT_H
#define KS_SIMOUT_H

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
    const char *kernel_name; /* as the block names it ("" when empty) */
    /* the simulator process the block belongs to: a log of several runs
     * one after another (each starts with the "GPGPU-Sim Simulator
     * Version" banner) counts them from 0; uids restart in each */
    size_t run;
    /* per uid, the trace file the simulator loaded for it ("Processing
     * kernel" / "Header info loaded", bound by "launching kernel name: ...
     * uid: N"), or NULL when the log does not say (PTX mode) */
    const char *const *traces;
    /* per uid, the line that bound it to its trace (0 when none) */
    const long *trace_lines;
    /* per uid: grid[3] then block[3] from the trace header the simulator
     * echoed before launching it; all 0 when the log did not print them */
    const uint32_t (*dims)[6];
    /* per statistic, the count exactly where its double rounds it (above
     * 2^53), else 0; NULL: none */
    const uint64_t *wholes;
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

/* One kernel of a MacSim run (macsim_log.c). */
typedef struct ks_macsim_kernel {
    long line;           /* of its setup_process line */
    size_t run;          /* runs one after another in one log, from 0 */
    uint64_t index;      /* its position in the run's kernel_config.txt, from 0 */
    uint64_t count;      /* kernels in that run */
    const char *trace;   /* the trace.txt path MacSim printed */
    uint64_t start;      /* cycle it started at */
    uint64_t cycles;     /* until the next kernel started or the run ended */
} ks_macsim_kernel;

typedef ks_status (*ks_macsim_kernel_fn)(void *ctx, const ks_macsim_kernel *k, ks_error *err);
typedef struct ks_macsim_log ks_macsim_log;
ks_status ks_macsim_log_new(const char *path, ks_macsim_kernel_fn fn, void *ctx,
                            ks_macsim_log **out, ks_error *err);
/* line: NUL-terminated without its newline; number: 1-based */
ks_status ks_macsim_log_line(ks_macsim_log *m, const char *line, long number, ks_error *err);
/* Refuses a run whose last kernel never finished. */
ks_status ks_macsim_log_finish(ks_macsim_log *m, size_t *kernels, ks_error *err);
void ks_macsim_log_free(ks_macsim_log *m);
bool ks_macsim_log_detect(const char *head, size_t len);

/* One "NAME value ..." line of MacSim's general.stat.out (and its other
 * *.stat.out files): *found when the line is a statistic; a statistic whose
 * value is not a finite number is an error. */
ks_status ks_macsim_stats_line(const char *line, long number, const char *path, char *name,
                               size_t name_size, double *value, bool *found, ks_error *err);
bool ks_macsim_stats_detect(const char *head, size_t len);

/* One cell of a get_stats.py CSV (getstats.c). */
typedef struct ks_getstats_value {
    long line;
    const char *stat;       /* metric name (ks_getstats_metric_name of the regex) */
    const char *stat_regex; /* the section's title as written */
    const char *config;
    const char *app;        /* "<app>/<args>" */
    const char *kernel;     /* "" when the label has no "--" */
    long instance;          /* -K's launch number of the kernel, -1 when none */
    size_t order;           /* configs as rows: the label's column (from 0); else SIZE_MAX */
    const char *text;       /* the cell as written */
    bool missing;           /* NA, empty, nan */
    bool numeric;           /* else: a value that is not a number (a build string) */
    double value;
    uint64_t count; /* the value exactly where its double rounds it (ks_exact_count), else 0 */
} ks_getstats_value;

typedef ks_status (*ks_getstats_fn)(void *ctx, const ks_getstats_value *v, ks_error *err);
typedef struct ks_getstats ks_getstats;
ks_status ks_getstats_new(const char *path, ks_getstats_fn fn, void *ctx, ks_getstats **out,
                          ks_error *err);
/* line: without its newline, NUL-terminated, may be modified */
ks_status ks_getstats_line(ks_getstats *g, char *line, size_t len, long number, ks_error *err);
ks_status ks_getstats_finish(ks_getstats *g, size_t *sections, ks_error *err);
void ks_getstats_free(ks_getstats *g);
bool ks_getstats_detect(const char *head, size_t len);
void ks_getstats_metric_name(const char *regex, char *out, size_t size);

/* The results table, for the readers of simulator outputs (results.c). */
ks_status ks_results_add_source(ks_results *r, const char *name, const char *warmup,
                                uint32_t *index, ks_error *err);
/* The row of id from this source (see row_for in results.c). */
ks_status ks_results_row_for(ks_results *r, uint64_t id, uint32_t source, long line,
                             bool accumulate, size_t *row, ks_error *err);
ks_status ks_results_metric_index(ks_results *r, const char *name, size_t *index,
                                  ks_error *err);
void ks_results_put(ks_results *r, size_t row, size_t metric, double v, bool accumulate);
/* A count, exactly (kept beside its double above 2^53, ks_results_count). */
ks_status ks_results_put_count(ks_results *r, size_t row, size_t metric, uint64_t u,
                               ks_error *err);
/* A results CSV "id,<metric>,..." and the accelsim exporter's weights.csv. */
ks_status ks_results_read_csv(ks_input *in, const char *path, ks_results *r, ks_error *err);
/* *measured (NULL when every launch is): per uid, 0 for a warm-up launch
 * (weights.csv's role column); *launches (NULL when each is its id): per
 * uid, the trace folder's launch (trace_launch - 1). */
ks_status ks_results_read_uid_map(const char *path, uint64_t **ids, size_t *count,
                                  unsigned char **measured, uint64_t **launches,
                                  ks_error *err);

#endif
