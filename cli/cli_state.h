/* cli_state.h - the options of --warmup state (cli_state.c). */
#ifndef KS_CLI_STATE_H
#define KS_CLI_STATE_H

#include "cli.h"

enum { CLI_STATE_L2 = 1200, CLI_STATE_CUT, CLI_STATE_LINES, CLI_STATE_SIM_CONFIG };

#define CLI_STATE_LONG_OPTIONS                                                             \
    {"l2-size", required_argument, NULL, CLI_STATE_L2},                                   \
        {"state-cut", required_argument, NULL, CLI_STATE_CUT},                            \
        {"state-lines", required_argument, NULL, CLI_STATE_LINES}

#define CLI_STATE_HELP                                                                     \
    "  --l2-size BYTES    --warmup state: the simulated L2's size (4M, 6MiB, ...) when\n"  \
    "                     no simulator configuration gives it\n"                           \
    "  --state-cut X      --warmup state: keep the lines of the last X L2 capacities\n"    \
    "                     of accesses (default 2; older ones cannot survive)\n"           \
    "  --state-lines L    --warmup state:kernel: all (default on Accel-Sim: every\n"    \
    "                     rebuilt line, the L2 as full as in the full run, so the\n"     \
    "                     launch's misses evict and write back as there; costs the\n"    \
    "                     L2's fill), dirty (the lines the launch touches and every\n"   \
    "                     dirty one), touched (only those it touches): cheaper, as\n"    \
    "                     close when the program fits the L2, low when it does not\n"   \
    "                     (docs/bench.md), or auto (default on MacSim: touched where\n" \
    "                     the launch's misses evict no line of the rebuilt state's\n"    \
    "                     sets, all where they do)\n"

typedef struct cli_state_args {
    const char *l2, *cut, *lines, *sim_config;
} cli_state_args;

/* Takes one of the options above (and --sim-config); false if opt is none. */
bool cli_state_option(cli_state_args *s, int opt, const char *arg);
/* Checks them and sets w's state fields; 0, or the exit code after saying
 * what is wrong. */
int cli_state_apply(const char *cmd, const cli_state_args *s, ks_warmup *w);
/* state:memcpy32, its +stores and state:split: whether their 32-bit remap
 * applies to the configuration and the traces (ks_state_remap_check, into
 * rep); where it does not, the warm-up kernel carries the state, with a
 * note saying why.  With the carrier named, a configuration or trace folder
 * that cannot be read is an error (the exit code is returned); with plain
 * `state` it is the reason for the kernel. */
int cli_state_remap_or_kernel(const char *traces, ks_warmup *w, ks_state_remap_report *rep);

#endif
