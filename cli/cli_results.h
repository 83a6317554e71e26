/* cli_results.h - options that estimate and refine share: how simulator
 * results are read and mapped to plan ids. */
#ifndef KS_CLI_RESULTS_H
#define KS_CLI_RESULTS_H

#include "cli.h"

enum { CLI_MAX_UID_MAPS = 64 };

typedef struct cli_results {
    const char *cmd; /* in messages */
    ks_results_options read;
    ks_single_mode single;
    char plan_digest[33];
    int map_count; /* --uid-map given: one for every result, or one each */
    bool traces_given;
    const char *maps[CLI_MAX_UID_MAPS];
    /* --profile, or the plan's recorded input: what every reported kernel
     * name, grid and block is checked against; NULL when it could not be
     * read (profile_err says why), the plan's own names then */
    const char *profile_path;
    ks_profile *profile;
    ks_error profile_err;
} cli_results;

#define CLI_RESULTS_LONG_OPTIONS                                                           \
    {"uid-base", required_argument, NULL, 'U'}, {"uid-map", required_argument, NULL, 'W'}, \
        {"concurrent", required_argument, NULL, 'C' + 256},                               \
        {"single-sample", required_argument, NULL, 'S' + 256},                            \
        {"traces", required_argument, NULL, 'T' + 256},                                   \
        {"measure", required_argument, NULL, 'M' + 256},                                  \
        {"profile", required_argument, NULL, 'P' + 256},                                  \
        {"config", required_argument, NULL, 'G' + 256},                                   \
        {"app", required_argument, NULL, 'A' + 256}

#define CLI_RESULTS_HELP                                                                   \
    "  --uid-map FILE     weights.csv of 'ksample export --to accelsim': maps the\n"      \
    "                     simulator's kernel_launch_uid to plan ids.  Once for every\n"  \
    "                     RESULTS argument, or once per RESULTS argument, in order\n"     \
    "                     (e.g. the parent's and the new ids' logs after refine)\n"       \
    "  --uid-base B       plan id = kernel_launch_uid - B (1: the simulator ran the\n"    \
    "                     whole program).  Default: uid k is the k-th sampled id in\n"    \
    "                     ascending order (a simulated exported kernelslist.g)\n"         \
    "  --traces DIR       the trace folder the simulator ran: a log's kernels are\n"      \
    "                     matched to launches by the trace file each names (logs of\n"   \
    "                     several runs, uids restarting at 1, included) and their\n"     \
    "                     kernel names checked\n"                                       \
    "  --measure last     in each simulator run only the last kernel is a result (the\n" \
    "                     ones before it warmed it up); default all\n"                   \
    "  --concurrent split blocks listing several kernel_launch_uids (concurrent\n"        \
    "                     streams) share their values equally; default: refuse\n"        \
    "  --single-sample M  spread of the clusters: plan (default: calibrate for a plan\n"  \
    "                     of ROOT's calibrated design, its default --replicate 0.2,\n"  \
    "                     else collapse), calibrate (the\n"                             \
    "                     profile's spread in the values' units times the factor the\n"  \
    "                     clusters of two or more samples measure), collapse (a\n"       \
    "                     one-sample cluster pooled with the nearest of its kernel\n"    \
    "                     group) or profile-cv (the profile's CV times its value)\n"     \
    "  --profile FILE     the plan's profile (default: the input the plan records; its\n" \
    "                     digest must match): every kernel name, grid and block the\n"   \
    "                     results report is checked against the launch it is mapped\n"  \
    "                     to (without it, names against the plan's kernel groups)\n"   \
    "  --config C         a get_stats.py CSV (-k -K) with several configurations: the\n"  \
    "                     one whose values are read (e.g. SM7_QV100)\n"                  \
    "  --app A            a get_stats.py CSV with several applications: the one read\n"   \
    "                     (its \"<app>/<args>\" label)\n"

void cli_results_init(cli_results *r, const char *cmd);
bool cli_results_option(cli_results *r, int opt, const char *arg, const char *cmd, int *rc);
/* Reads the plan's profile (r->profile; --profile must be readable, the
 * recorded input may not be: r->profile_err), then every RESULTS argument,
 * each launch checked against the plan; says on stderr what could not be
 * checked; returns 0 or the exit code. */
int cli_results_read(cli_results *r, const char *plan_path, const ks_plan *plan, char **paths,
                     int count, ks_results *out);
/* What a subcommand does with a plan and its results; returns the exit code. */
typedef int (*cli_plan_results_fn)(const ks_plan *plan, const ks_results *results, void *ctx);
/* Reads the plan, then every RESULTS argument, hands both to use (the
 * profile in r->profile) and frees them; use's exit code, or the
 * reading's. */
int cli_with_plan_results(cli_results *r, const char *plan_path, char **paths, int count,
                          cli_plan_results_fn use, void *ctx);

/* The estimator a command uses: the one given (estimator, fit >= 0; a name
 * for auxiliary), else what the plan's refine sized for (its parameters
 * refine_estimator, refine_fit, refine_auxiliary), else plain, one fit per
 * kernel group, on the profile's durations. */
void cli_plan_estimator(const ks_plan *plan, int estimator, int fit, const char *auxiliary,
                        ks_estimator *est_out, ks_estimator_fit *fit_out, char *aux_out,
                        size_t aux_size);
/* The auxiliary variable named name at the plan's samples and per cluster,
 * from the plan's profile (r->profile); says on stderr why not.  The caller
 * frees both arrays (also on failure). */
int cli_auxiliary(const ks_plan *plan, const cli_results *r, const char *name, double **x,
                  double **total);

/* What the simulated values cost (issue 38): the launches' own cycles
 * (gpu_sim_cycle, or MacSim's cycles) and, where the results have
 * run_cycles (every cycle each simulator process ran, warm-up kernels
 * included: lib/simout/results_sim.c), what the runs cost in all. */
typedef struct cli_cost {
    const char *cycles; /* the results' cycle metric; NULL: none */
    size_t launches;    /* rows with both own and run cycles */
    double own, run;    /* sums over those rows; run NAN: no run_cycles */
    double factor;      /* run / own: the simulated cycles per cycle of the
                         * launch itself; NAN: not measured */
} cli_cost;
void cli_cost_measure(const ks_results *r, cli_cost *c);

/* The options --estimator, --fit and --auxiliary of estimate and refine. */
#define CLI_ESTIMATOR_LONG_OPTIONS                                                         \
    {"estimator", required_argument, NULL, 'E' + 256},                                    \
        {"fit", required_argument, NULL, 'F' + 256},                                      \
        {"auxiliary", required_argument, NULL, 'X' + 256}
/* Handles one of them (true), *rc non-zero on a bad value. */
bool cli_estimator_option(int opt, const char *arg, const char *cmd, int *estimator, int *fit,
                          const char **auxiliary, int *rc);

/* `estimate --values`: the results table as the CSV ks_results_read reads
 * back (id,<metric>,...: one row per launch, ids ascending), every value
 * with all its digits, empty where a launch has none; 0 or KS_ERR_NOMEM. */
int cli_results_print_csv(const ks_results *r);
/* The trace folder the values were simulated from: --traces, else the
 * first run folder's (among paths) manifest's, copied into trace_buf; NULL
 * when neither says.  *cache_out: the trace-counts.csv (into cache) of the
 * first run folder of those traces, NULL when none. */
const char *cli_results_traces(const cli_results *cr, char **paths, int count, char *trace_buf,
                               size_t trace_size, char *cache, size_t cache_size,
                               const char **cache_out);
/* The traces' counts as columns of the plan's profile p, for --auxiliary:
 * trace_insts (thread instructions, gpu_sim_insn's; MacSim: INST_COUNT_TOT's)
 * and trace_warp_insts (Accel-Sim's lines); nothing when p is NULL or not
 * of the traces' launch count. */
ks_status cli_profile_trace_columns(ks_profile *p, const ks_known *k, ks_error *err);

#endif
