/* cli_results.h - options that estimate and refine share: how simulator
 * results are read and mapped to plan ids. */
#ifndef KS_CLI_RESULTS_H
#define KS_CLI_RESULTS_H

#include "cli.h"

enum { CLI_MAX_UID_MAPS = 64 };

typedef struct cli_results {
    ks_results_options read;
    ks_single_mode single;
    char plan_digest[33];
    int map_count; /* --uid-map given: one for every result, or one each */
    bool traces_given;
    const char *maps[CLI_MAX_UID_MAPS];
} cli_results;

#define CLI_RESULTS_LONG_OPTIONS                                                           \
    {"uid-base", required_argument, NULL, 'U'}, {"uid-map", required_argument, NULL, 'W'}, \
        {"concurrent", required_argument, NULL, 'C' + 256},                               \
        {"single-sample", required_argument, NULL, 'S' + 256},                            \
        {"traces", required_argument, NULL, 'T' + 256},                                   \
        {"measure", required_argument, NULL, 'M' + 256}

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
    "  --single-sample M  variance of a cluster with one sample: collapse (default;\n"    \
    "                     pooled with the nearest cluster of its kernel group) or\n"     \
    "                     profile-cv (the profile's CV times its value)\n"

void cli_results_init(cli_results *r);
bool cli_results_option(cli_results *r, int opt, const char *arg, const char *cmd, int *rc);
/* Reads every RESULTS argument; returns 0 or the exit code. */
int cli_results_read(cli_results *r, const char *plan_path, const ks_plan *plan, char **paths,
                     int count, ks_results *out);
/* What a subcommand does with a plan and its results; returns the exit code. */
typedef int (*cli_plan_results_fn)(const ks_plan *plan, const ks_results *results, void *ctx);
/* Reads the plan, then every RESULTS argument, hands both to use and frees
 * them; use's exit code, or the reading's. */
int cli_with_plan_results(cli_results *r, const char *plan_path, char **paths, int count,
                          cli_plan_results_fn use, void *ctx);

#endif
