/* cli.h - what the subcommands share: the dispatch signature, error
 * printing, and the options every profile-reading command accepts. */
#ifndef KS_CLI_H
#define KS_CLI_H

#include "ksample.h"

#include <getopt.h>
#include <stdbool.h>

int cmd_info(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_formats(int argc, char **argv);

/* Prints "ksample: file:line: message" to stderr; returns the exit code. */
int cli_fail(const ks_error *err);
int cli_usage_error(const char *cmd, const char *fmt, ...);

/* Options of every command that reads a profile. */
typedef struct cli_input {
    ks_read_options read;
    const char *metrics; /* ncu CSV to attach */
} cli_input;

#define CLI_INPUT_LONG_OPTIONS                                                             \
    {"format", required_argument, NULL, 'F'}, {"device", required_argument, NULL, 'D'},   \
        {"name-kind", required_argument, NULL, 'N'},                                      \
        {"metrics", required_argument, NULL, 'M'}

#define CLI_INPUT_HELP                                                                     \
    "  --format NAME      input format (default: detected from content; see\n"            \
    "                     'ksample formats')\n"                                           \
    "  --device N         keep only kernels of GPU N (multi-GPU traces)\n"                \
    "  --name-kind K      nsys SQLite: demangled (default), short or mangled names\n"     \
    "  --metrics NCU.csv  attach Nsight Compute metrics by launch order\n"

void cli_input_init(cli_input *in);
/* Handles one of the CLI_INPUT options; returns false if opt is not one. */
bool cli_input_option(cli_input *in, int opt, const char *arg, int *rc);
int cli_read_profile(const char *path, const cli_input *in, ks_profile **out);

/* Options of the sampling methods, shared by sample and eval. */
#define CLI_PARAM_LONG_OPTIONS                                                             \
    {"key", required_argument, NULL, 'k'}, {"epsilon", required_argument, NULL, 'e'},     \
        {"confidence", required_argument, NULL, 'c'}, {"seed", required_argument, NULL, 's'}, \
        {"with-replacement", no_argument, NULL, 'R'},                                     \
        {"n-th", required_argument, NULL, 'T'}, {"n-min", required_argument, NULL, 'm'},  \
        {"target-speedup", required_argument, NULL, 'S'},                                 \
        {"fraction", required_argument, NULL, 'f'},                                       \
        {"allocation", required_argument, NULL, 'A'},                                     \
        {"max-depth", required_argument, NULL, 'd'}

#define CLI_PARAM_HELP                                                                     \
    "  --key K            grouping key: name, name-notemplate, name+grid+block\n"        \
    "                     (default: the method's; root/stem name, allegro\n"             \
    "                     name+grid+block)\n"                                            \
    "  --epsilon E        relative error bound (default 0.05)\n"                         \
    "  --confidence C     confidence of the bound (default 0.95)\n"                      \
    "  --seed N           random seed, recorded in the plan (default 1)\n"               \
    "  --with-replacement stem/root: draw with replacement (the STEM paper's text);\n"   \
    "                     default without (the authors' code)\n"                         \
    "  --allocation A     root: joint (default: cheapest strata and sizes, bound on\n"   \
    "                     the total), tree (the same, bound per kernel group) or\n"      \
    "                     paper (the authors' greedy split tree, to reproduce them)\n"   \
    "  --max-depth N      allegro, root paper: split depth limit (default 64)\n"        \
    "  --n-th N           allegro: split while n >= N (default 50)\n"                    \
    "  --n-min N          allegro: draws per leaf at least N (default 30)\n"             \
    "  --target-speedup S random: ceil(invocations / S) draws\n"                         \
    "  --fraction F       random: ceil(invocations * F) draws (default 0.001)\n"

bool cli_params_option(ks_params *pa, int opt, const char *arg, const char *cmd, int *rc);

bool cli_parse_double(const char *s, double *v);
bool cli_parse_u64(const char *s, uint64_t *v);

#endif
