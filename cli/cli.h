/* cli.h - what the subcommands share: the dispatch signature, error
 * printing, and the options every profile-reading command accepts. */
#ifndef KS_CLI_H
#define KS_CLI_H

#include "ksample.h"

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

int cmd_info(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_embed(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_refine(int argc, char **argv);
int cmd_score(int argc, char **argv);

/* main.c: the commands, in the order the usage lists them. */
typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} cli_command;
extern const cli_command cli_commands[];
extern const size_t cli_command_count;
/* `ksample --help`: the commands and the exit codes. */
void cli_usage(FILE *f);
/* docgen.c: writes DIR/man/man1/ksample.1 and ksample-CMD.1 (from each
 * command's --help) and DIR/bash-completion/completions/ksample; 0, or the
 * exit code after saying what is wrong (an option that --help and the
 * option table do not both have). */
int cli_write_docs(const char *dir);

/* Prints "ksample: file:line: message" to stderr; returns the exit code. */
int cli_fail(const ks_error *err);
int cli_usage_error(const char *cmd, const char *fmt, ...);

/* Options of every command that reads a profile. */
typedef struct cli_input {
    ks_read_options read;
    char select[512];    /* --step, --range, --time-window, --launches, as a
                          * selection spec (ks_profile_select) */
    size_t comm_pattern_count;
    const char *comm_patterns[16]; /* --comm-pattern */
    const char *metrics; /* ncu CSV to attach */
    const char *bbv;     /* Photon bbv.csv to attach */
    const char *traces;  /* Accel-Sim trace folder to attach */
    const char *nvtx;    /* nsys nvtx_gpu_proj_trace CSV: ranges */
} cli_input;

#define CLI_INPUT_LONG_OPTIONS                                                             \
    {"format", required_argument, NULL, 'F'}, {"device", required_argument, NULL, 'D'},   \
        {"name-kind", required_argument, NULL, 'N'},                                      \
        {"metrics", required_argument, NULL, 'M'}, {"bbv", required_argument, NULL, 'B'},  \
        {"traces", required_argument, NULL, 'X'}, {"step", required_argument, NULL, 601},  \
        {"range", required_argument, NULL, 602},                                          \
        {"time-window", required_argument, NULL, 603},                                    \
        {"launches", required_argument, NULL, 604},                                       \
        {"comm-pattern", required_argument, NULL, 605},                                   \
        {"nvtx", required_argument, NULL, 606}

#define CLI_INPUT_HELP                                                                     \
    "  --format NAME      input format (default: detected from content; see\n"            \
    "                     'ksample formats')\n"                                           \
    "  --device N         keep only kernels of GPU N (multi-GPU traces)\n"                \
    "  --name-kind K      nsys SQLite: demangled (default), short or mangled names\n"     \
    "  --metrics NCU.csv  attach Nsight Compute metrics by launch order\n"               \
    "  --bbv BBV.csv      attach Photon basic-block vectors by launch order\n"               \
    "  --traces DIR       attach an Accel-Sim trace folder's instruction counts by\n"      \
    "                     launch order\n"                                                 \
    "  --step A[-B]       only launches of profiler steps A to B (Kineto ProfilerStep#N;\n" \
    "                     'ksample info' lists them)\n"                                  \
    "  --range NAME       only launches inside a range of that name: a Kineto user or\n"  \
    "                     GPU annotation, an NVTX range (nsys SQLite, --nvtx); NAME*\n"   \
    "                     for a prefix; repeated: inside any of them\n"                  \
    "  --nvtx CSV         NVTX ranges from the same nsys report: 'nsys stats --report\n"  \
    "                     nvtx_gpu_proj_trace --format csv' (kernels by start time)\n"   \
    "  --time-window A-B  only launches starting A to B after the first one (a unit:\n"   \
    "                     ns, us, ms or s, e.g. 20ms-45ms; default ns)\n"                  \
    "  --launches A-B     only launch ids A to B (inclusive); a plan's ids stay the\n"    \
    "                     program's launch ids whatever is selected\n"                    \
    "  --comm-pattern P   one more communication kernel name (a substring, or a '*'\n"   \
    "                     pattern), beside NCCL, RCCL, NVSHMEM and the list in\n"         \
    "                     docs/llm.md\n"

void cli_input_init(cli_input *in);
/* Handles one of the CLI_INPUT options; returns false if opt is not one. */
bool cli_input_option(cli_input *in, int opt, const char *arg, const char *cmd, int *rc);
int cli_read_profile(const char *path, const cli_input *in, ks_profile **out);
/* The launches left when cli_read_profile also leaves out communication
 * kernels (sample's default): reads with start times, summarises the
 * communication kernels into *comm (their overlap with other streams
 * too), leaves them out when exclude; 0 or the exit code. */
int cli_read_profile_comm(const char *path, const cli_input *in, bool exclude, ks_profile **out,
                          ks_comm_summary *comm);

/* Options of the sampling methods, shared by sample and eval: the ones every
 * method shares (key, epsilon, confidence, seed) and every method's own,
 * derived from the methods' parameter tables (ks_method.params). */
#define CLI_PARAM_SHARED_LONG_OPTIONS                                                      \
    {"key", required_argument, NULL, 'k'}, {"epsilon", required_argument, NULL, 'e'},     \
        {"confidence", required_argument, NULL, 'c'}, {"seed", required_argument, NULL, 's'},  \
        {"shape-share", required_argument, NULL, CLI_OPT_SHAPE_SHARE}
/* --shape-share's option value (below CLI_METHOD_PARAM_BASE) */
#define CLI_OPT_SHAPE_SHARE 900

/* Option values of the method parameters start here. */
#define CLI_METHOD_PARAM_BASE 1000

/* own[] (ending with a zero entry) followed by the input options, the shared
 * parameters and every method parameter; free() the result. */
struct option *cli_sampling_options(const struct option *own);
/* own[] (ending with a zero entry) followed by one method's own parameters
 * (the commands of a single method: train); free() the result. */
struct option *cli_method_options(const struct option *own, const char *method);
/* run(argc, argv, those options): the exit code, or KS_ERR_NOMEM. */
int cli_with_sampling_options(const struct option *own,
                              int (*run)(int argc, char **argv, const struct option *longopts),
                              int argc, char **argv);
/* Handles a shared or method parameter option; returns false if opt is
 * neither. */
bool cli_params_option(ks_params *pa, int opt, const char *arg, const char *cmd, int *rc);
/* Default reading and parameters of a command that samples; strict false
 * (compare, eval): a method parameter applies to the methods that
 * declare it and is not refused by the others. */
void cli_sampling_init(cli_input *in, ks_params *pa, bool strict);
/* Prints the help of the shared and method parameters. */
void cli_params_help(void);
/* the same, without --epsilon E where the command has its own (eval) */
void cli_params_help_ex(bool epsilon);
/* Prints the help of one method's own parameters. */
void cli_method_params_help(const char *method);
/* "root (default), stem, ..." into buf */
void cli_method_names(char *buf, size_t size);
/* options.c: 0 if name is a method, else the usage error listing them. */
int cli_method_check(const char *cmd, const char *name);
/* Splits the comma-separated list (in place) into at most max method names. */
int cli_method_list(const char *cmd, char *list, const char **names, int max, int *count);

/* options.c: one command's option loop.  Set the fields, then
 *     while ((opt = cli_loop_next(&l, argc, argv)) != -1)
 *         switch (opt) { the command's own options }
 *     if (l.exit >= 0)
 *         return l.exit;
 * and the command's operands are argv[optind..argc). */
typedef struct cli_loop {
    const char *cmd;               /* in messages: "ksample CMD: ..." */
    const struct option *longopts;
    const char *shortopts;         /* NULL: "h" */
    void (*help)(void);            /* --help prints this, then exit is 0 */
    bool *json;                    /* NULL: no --json ('j') */
    cli_input *input;              /* NULL: no input options */
    ks_params *params;             /* NULL: no sampling parameters */
    struct cli_results *results;   /* NULL: no simulator-results options */
    int operands;                  /* how many after the options; -1: the command checks */
    const char *operands_are;      /* "one profile file", for the usage error */
    int exit;                      /* once the loop is over: -1 go on, else the exit code */
    bool started;
    char optstring[64];            /* ':' + shortopts */
} cli_loop;

/* The next option for the command's own switch, or -1 when the loop is over
 * (then see l->exit). */
int cli_loop_next(cli_loop *l, int argc, char **argv);
/* The one of names closest to word (a typo: a few edits, or a prefix), or
 * NULL when none is close: for "did you mean". */
const char *cli_did_you_mean(const char *word, const char *const *names, size_t count);
/* docgen.c: while set, the loop hands it the command's option table instead
 * of parsing anything, and the command ends as after --help. */
extern void (*cli_options_hook)(const struct option *longopts, const char *shortopts);

/* output.c: 0, or the exit code (2) after saying why output (a path or
 * "-") must not be written: it is one of the inputs, lies inside an input
 * folder or holds an input (ks_path_check_output; NULL entries are
 * skipped).  Every command calls it before it writes anything. */
int cli_check_output(const char *cmd, const char *output, const char *const *inputs,
                     size_t count);
/* The same for each of several outputs, which must also differ from each
 * other. */
int cli_check_outputs(const char *cmd, const char *const *outputs, size_t out_count,
                      const char *const *inputs, size_t count);
/* SIGINT/SIGTERM/SIGHUP/SIGQUIT remove the library's temporary files first. */
void cli_install_cleanup(void);
/* From here SIGINT/SIGTERM/SIGHUP/SIGQUIT only set the returned flag (to
 * the signal's number): for work that must stop its children before
 * exiting (ks_run_options.stop).  cli_die_of_stop() then ends the process
 * by that signal, as the shell expects (exit status 128 + N). */
volatile sig_atomic_t *cli_catch_stop(void);
void cli_die_of_stop(void);
/* rc, or KS_ERR_IO when what a command printed could not all be written. */
int cli_finish_stdout(int rc);

/* JSON on standard output for the commands' --json: a number with 6
 * significant digits (null when not finite) and a string escaped by the
 * library's rule (always valid UTF-8, as plans are written). */
void cli_json_number(double x);
void cli_json_string(const char *s);
/* `, "key": x` (output.c) */
void cli_json_field(const char *key, double x);
/* `, "key": x` with every digit of x (%.17g; null when not finite): an
 * estimate is a result others compute with, unlike the 6 digits of the
 * other commands' reports */
void cli_json_field_exact(const char *key, double x);
/* `, "key": "s"`, s as cli_json_string writes it */
void cli_json_text_field(const char *key, const char *s);
/* Texts said once each, at most 8 (the reasons an interval stands for
 * less than the full run's): true, recording s, when s is not among them
 * and there is room; start from {0}. */
typedef struct cli_said {
    const char *said[8];
    size_t count;
} cli_said;
bool cli_say_once(cli_said *said, const char *s);
/* `, "interval": "C"`: what an interval stands for (claim: a ks_claim),
 * as --json names it: "full run", "values" or "none"; then, where it is
 * not the full run's and why is not NULL, `, "interval_note": "why"`. */
void cli_json_claim_fields(int claim, const char *why);
/* samples, speedup_hmean, error_mean_pct, error_max_pct, plan_seconds and
 * fit_seconds of r, as fields */
void cli_json_eval_fields(const ks_eval_result *r);

/* Counts for people (output.c): 1,345,307, not 1.34531e+06.  cli_count
 * rounds a total of counts to an integer (%.6g when not finite or at least
 * 2^63).  Both return buf; 32 bytes always suffice. */
const char *cli_count_u64(char *buf, size_t size, uint64_t u);
/* A plan dearer than half the program's profiled time says so on stderr
 * (as `cmd`), with what simulating every launch costs; nothing otherwise.
 * warm_factor: the cycles a simulated launch costs per cycle of its own
 * (the warm-up kernels' share, measured by a run: cli_cost), NAN when not
 * known. */
void cli_note_plan_cost(const ks_plan *plan, const char *cmd, double warm_factor);
/* A path a manifest records (absolute) as the user would type it from
 * here: relative below the working folder (into buf), else as it is. */
const char *cli_as_typed(const char *path, char *buf, size_t size);
const char *cli_count(char *buf, size_t size, double x);
/* "ksample CMD ARGS..." as a shell reads it back (arguments quoted where
 * needed), from a subcommand's argc and argv before its options are
 * parsed; malloc'd, NULL when out of memory (output.c) */
char *cli_command_line(int argc, char **argv);
bool cli_parse_double(const char *s, double *v);
bool cli_parse_u64(const char *s, uint64_t *v);

#endif
