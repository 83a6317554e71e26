/*
 * main.c - the ksample command: one table of subcommands, each in its own
 * cli/cmd_<name>.c file.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_command cli_commands[] = {
    {"info", cmd_info, "summarise a profile: invocations, kernels, time, top kernels"},
    {"sample", cmd_sample, "choose invocations to simulate and write the plan"},
    {"eval", cmd_eval, "measure methods' speedup and error on a profile"},
    {"compare", cmd_compare, "every method side by side, those lacking inputs listed"},
    {"synth", cmd_synth, "write a synthetic workload (nsys kern-exec CSV)"},
    {"formats", cmd_formats, "list the input formats and methods"},
    {"report", cmd_report, "write a self-contained HTML report with charts"},
    {"train", cmd_train, "train a GCL-Sampler model on trace folders"},
    {"embed", cmd_embed, "GCL-Sampler embeddings of a trace folder's launches"},
    {"run", cmd_run, "simulate the sampled kernels as jobs (local pool or Slurm)"},
    {"status", cmd_status, "say which jobs of a run are done, failed or pending"},
    {"export", cmd_export, "write a plan for a tracer or simulator (accelsim, ...)"},
    {"estimate", cmd_estimate, "whole-workload metrics with intervals from simulated samples"},
    {"refine", cmd_refine, "add samples until the simulated values meet the bound"},
    {"score", cmd_score, "score plans against a real simulator's full, alone and warm-up runs"},
};
const size_t cli_command_count = sizeof cli_commands / sizeof cli_commands[0];

void cli_usage(FILE *f)
{
    fprintf(f, "usage: ksample <command> [options] [args]\n\ncommands:\n");
    for (size_t i = 0; i < cli_command_count; i++)
        fprintf(f, "  %-9s %s\n", cli_commands[i].name, cli_commands[i].summary);
    fprintf(f,
            "\n'ksample <command> --help' (or 'ksample help <command>') describes each one.\n\n"
            "exit codes:\n"
            "  0  success\n"
            "  1  some jobs of a run failed (ksample run)\n"
            "  2  bad option or parameter\n"
            "  3  file cannot be read or written\n"
            "  4  input is malformed or of an unknown format\n"
            "  5  out of memory\n"
            "  6  internal error (a bug: please report it)\n");
}

int cli_fail(const ks_error *err)
{
    char buf[2100];
    ks_error_format(err, buf, sizeof buf);
    fprintf(stderr, "ksample: %s\n", buf);
    return err->status ? (int)err->status : KS_ERR_INTERNAL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ksample %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see 'ksample %s --help')\n", cmd);
    va_end(ap);
    return KS_ERR_USAGE;
}

void cli_input_init(cli_input *in)
{
    memset(in, 0, sizeof *in);
    ks_read_options_init(&in->read);
}

/* the library's strict rule: no "nan", "inf" or hex floats (strtod reads
 * them); a value too small for a double reads as the nearest one, so that
 * a range check, not the parser, refuses it where it is out of range */
void cli_json_number(double x)
{
    if (isfinite(x))
        printf("%.6g", x);
    else
        printf("null");
}

void cli_json_string(const char *s) { ks_json_write_string(stdout, s); }

bool cli_parse_double(const char *s, double *v)
{
    return ks_parse_decimal(s, strlen(s), 0, v) == NULL;
}

bool cli_parse_u64(const char *s, uint64_t *v) { return ks_parse_count(s, v); }

/* A time with an optional unit (ns, us, ms, s) as whole ns; false if not. */
static bool parse_time_ns(const char *s, size_t len, uint64_t *ns)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    double scale = 1;
    for (size_t u = 0; u < 4; u++) {
        size_t m = strlen(units[u].unit);
        if (len > m && strncmp(s + len - m, units[u].unit, m) == 0 &&
            !(m == 1 && (s[len - 2] == 'n' || s[len - 2] == 'u' || s[len - 2] == 'm'))) {
            scale = units[u].scale;
            len -= m;
            break;
        }
    }
    double v;
    if (len == 0 || ks_parse_decimal(s, len, KS_NUM_NONNEG, &v) || v * scale > 9e18)
        return false;
    *ns = (uint64_t)(v * scale + 0.5);
    return true;
}

/* Appends "key=value" to the selection spec. */
static bool add_select(cli_input *in, const char *key, const char *value, const char *cmd,
                       int *rc)
{
    size_t used = strlen(in->select);
    if (strchr(value, ';')) {
        *rc = cli_usage_error(cmd, "--%s: a ';' cannot be part of a value ('%s')", key, value);
        return true;
    }
    int w = snprintf(in->select + used, sizeof in->select - used, "%s%s=%s", used ? ";" : "",
                     key, value);
    if (w < 0 || (size_t)w >= sizeof in->select - used) {
        in->select[used] = '\0';
        *rc = cli_usage_error(cmd, "the selection options are longer than %zu bytes in all",
                              sizeof in->select - 1);
    }
    in->read.select = in->select;
    return true;
}

bool cli_input_option(cli_input *in, int opt, const char *arg, const char *cmd, int *rc)
{
    *rc = 0;
    switch (opt) {
    case 601:
        return add_select(in, "step", arg, cmd, rc);
    case 602:
        return add_select(in, "range", arg, cmd, rc);
    case 603: {
        const char *dash = strchr(arg, '-');
        uint64_t a, b;
        char buf[64];
        if (!dash || !parse_time_ns(arg, (size_t)(dash - arg), &a) ||
            !parse_time_ns(dash + 1, strlen(dash + 1), &b) || b <= a) {
            *rc = cli_usage_error(cmd, "--time-window needs A-B with A < B (e.g. 20ms-45ms), got '%s'",
                                  arg);
            return true;
        }
        snprintf(buf, sizeof buf, "%llu-%llu", (unsigned long long)a, (unsigned long long)b);
        return add_select(in, "time", buf, cmd, rc);
    }
    case 604:
        return add_select(in, "launches", arg, cmd, rc);
    case 606:
        in->nvtx = arg;
        return true;
    case 605:
        if (in->comm_pattern_count == sizeof in->comm_patterns / sizeof in->comm_patterns[0] ||
            !*arg || strchr(arg, ';'))
            *rc = cli_usage_error(cmd, "--comm-pattern: a pattern without ';', at most 16 (got '%s')",
                                  arg);
        else
            in->comm_patterns[in->comm_pattern_count++] = arg;
        return true;
    case 'F':
        in->read.format = arg;
        return true;
    case 'D': {
        uint64_t d;
        if (!cli_parse_u64(arg, &d) || d > 1u << 20)
            *rc = cli_usage_error(cmd, "--device needs a GPU number, got '%s'", arg);
        else
            in->read.device = (int)d;
        return true;
    }
    case 'N':
        in->read.name_kind = arg;
        return true;
    case 'M':
        in->metrics = arg;
        return true;
    case 'B':
        in->bbv = arg;
        return true;
    case 'X':
        in->traces = arg;
        return true;
    }
    return false;
}

int cli_read_profile_comm(const char *path, const cli_input *in, bool exclude, ks_profile **out,
                          ks_comm_summary *comm)
{
    cli_input with = *in;
    with.read.keep_start = true;
    memset(comm, 0, sizeof *comm);
    int rc = cli_read_profile(path, &with, out);
    if (rc)
        return rc;
    ks_error err;
    ks_error_clear(&err);
    /* the one place that decides what is planned on (the Python package
     * calls it too) */
    ks_status st = ks_profile_leave_out_comm(*out, in->comm_patterns, in->comm_pattern_count,
                                             !exclude, NULL, comm, &err);
    if (!in->read.keep_start)
        ks_profile_drop_start(*out);
    if (st != KS_OK) {
        ks_profile_free(*out);
        *out = NULL;
        return cli_fail(&err);
    }
    return 0;
}

int cli_read_profile(const char *path, const cli_input *in, ks_profile **out)
{
    ks_error err;
    ks_error_clear(&err);
    ks_read_options ro = in->read;
    ro.select = in->select[0] ? in->select : NULL;
    ks_read_sources src = {.metrics = in->metrics, .bbv = in->bbv, .traces = in->traces,
                           .nvtx = in->nvtx};
    if (ks_profile_read_sources(path, &ro, &src, out, &err) != KS_OK)
        return cli_fail(&err);
    return 0;
}

/* Edit distance (insertions, deletions, substitutions, transpositions) of
 * a and b, capped at 9. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 40 || m > 40)
        return 9;
    size_t d[41][41];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m] > 9 ? 9 : d[n][m];
}

const char *cli_did_you_mean(const char *word, const char *const *names, size_t count)
{
    const char *best = NULL;
    size_t best_d = 9, len = strlen(word);
    size_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    for (size_t i = 0; i < count; i++) {
        if (!names[i])
            continue;
        size_t d = edit_distance(word, names[i]);
        /* a prefix ("est" for estimate) counts as close */
        if (len >= 3 && strncmp(names[i], word, len) == 0 && d > 1)
            d = 1;
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best_d <= limit ? best : NULL;
}

static int unknown_command(const char *word)
{
    const char *names[sizeof cli_commands / sizeof cli_commands[0]];
    for (size_t i = 0; i < cli_command_count; i++)
        names[i] = cli_commands[i].name;
    const char *close = cli_did_you_mean(word, names, cli_command_count);
    if (close) {
        fprintf(stderr, "ksample: unknown command '%s'; did you mean 'ksample %s'?\n", word,
                close);
        return KS_ERR_USAGE;
    }
    fprintf(stderr, "ksample: unknown command '%s'\n", word);
    cli_usage(stderr);
    return KS_ERR_USAGE;
}

int main(int argc, char **argv)
{
    cli_install_cleanup();
    if (argc < 2) {
        cli_usage(stderr);
        return KS_ERR_USAGE;
    }
    if (strcmp(argv[1], "help") == 0 && argc == 3) { /* ksample help sample */
        for (size_t i = 0; i < cli_command_count; i++)
            if (strcmp(argv[2], cli_commands[i].name) == 0) {
                char *args[] = {argv[2], "--help", NULL};
                return cli_finish_stdout(cli_commands[i].run(2, args));
            }
        return unknown_command(argv[2]);
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        cli_usage(stdout);
        return cli_finish_stdout(0);
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("ksample %s\n", KS_VERSION);
        return cli_finish_stdout(0);
    }
    /* not in the usage: what the build runs to write the man pages and the
     * bash completion (cli/docgen.c) */
    if (strcmp(argv[1], "--write-docs") == 0 && argc == 3)
        return cli_write_docs(argv[2]);
    for (size_t i = 0; i < cli_command_count; i++)
        if (strcmp(argv[1], cli_commands[i].name) == 0)
            return cli_finish_stdout(cli_commands[i].run(argc - 1, argv + 1));
    return unknown_command(argv[1]);
}
