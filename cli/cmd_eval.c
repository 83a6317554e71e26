/* cmd_eval.c - `ksample eval`: how well each method does on a profile, and
 * how its plans transfer to another GPU's times (--truth) and to every
 * additive metric (--metrics), over a sweep of error bounds (--epsilon). */
#include "cli.h"
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_METHODS = 16, MAX_EPSILONS = 32 };

static void help(void)
{
    printf("usage: ksample eval [options] PROFILE\n\n"
           "Plans each method --iters times (seeds seed, seed+1, ...) and compares each\n"
           "plan's estimate of the total GPU time with the profile's own total.  Prints\n"
           "per method: distinct samples (mean), speedup (harmonic mean), error mean and\n"
           "max (%%), planning time (mean seconds), the promised bound and how often the\n"
           "error exceeded it, and for root the predicted relative standard error (%%)\n"
           "and the expected simulated time over the lower bound no plan of contiguous\n"
           "strata can beat.  Columns: samples, speedup, err mean %%, err max %%, plan s,\n"
           "bound %% (none: no bound), exceed (share of plans whose error was above the\n"
           "bound: a 95 %% bound promises about 5 %% or less), pred rse %% and cost/LB\n"
           "(root only; 1.00 = the lower bound).\n\n"
           "options:\n"
           "  --methods LIST     comma-separated (default %s)\n"
           "  --iters N          plans per method (default %d)\n"
           "  --epsilon LIST     one bound or a comma-separated sweep (0.01,0.02,0.05):\n"
           "                     one row per method and bound; a method that promises\n"
           "                     no bound (random) is evaluated once\n"
           "  --truth B          the same program profiled elsewhere (another GPU or\n"
           "                     profiler), matched launch by launch and by name: also\n"
           "                     the error of each plan's estimate of B's total time and\n"
           "                     the plan's speedup on B\n"
           "  --truth-format NAME  B's format (default: detected)\n"
           "  --match M          how --truth pairs launches: name (default: launch by\n"
           "                     launch, names must agree) or family: in order by kernel\n"
           "                     family (the name without its digits, so cuBLAS's\n"
           "                     nvjet_sm90_tst_40x64_... pairs with ..._64x32_...),\n"
           "                     resynchronised past launches one side has and the other\n"
           "                     lacks; says how many paired, renamed and unmatched, and\n"
           "                     scores on the paired launches' total (B's unmatched time\n"
           "                     is printed, in no total); op: the same, by the\n"
           "                     framework operator that launched each kernel (Kineto\n"
           "                     traces recorded with CPU activity: the innermost cpu_op\n"
           "                     holding the kernel's launch call), so kernels of other\n"
           "                     names and families (cuDNN on V100 and A100) pair by their\n"
           "                     place in the operator stream\n"
           "  --truth-select S   B's part of the run, where its steps or ranges are\n"
           "                     numbered or named otherwise than A's (default: the same\n"
           "                     selection as A's): items separated by ';', as plans\n"
           "                     record them: step=A-B, range=NAME, time=A-B (ns),\n"
           "                     launches=A-B; '' for all of B\n"
           "  --exclude-comm     leave communication kernels out as sample does (both\n"
           "                     profiles; see --comm-pattern)\n"
           "  --metric-errors    the error of every additive metric column (implied by\n"
           "                     --metrics): counts, bytes, cycles, time; not rates,\n"
           "                     ratios, percentages, averages or launch attributes\n"
           "  --json             print a JSON list of objects, one per row, with keys\n"
           "                     method, epsilon, samples, speedup_hmean, error_mean_pct,\n"
           "                     error_max_pct, plan_seconds, fit_seconds, bound_pct,\n"
           "                     exceed_fraction; with --truth also truth_error_mean_pct,\n"
           "                     truth_error_max_pct, truth_speedup_hmean,\n"
           "                     truth_exceed_fraction; with metrics \"metrics\" (name:\n"
           "                     {error_mean_pct, error_max_pct, total}) and\n"
           "                     \"metrics_skipped\" (name: reason)\n"
           "  -q, --quiet        no progress on stderr\n" CLI_INPUT_HELP
           "  -h, --help         this text\n",
           ks_eval_default_methods(), KS_EVAL_ITERS);
    cli_params_help_ex(false);
    printf("\nA method parameter applies to the methods that declare it.\n");
}

typedef struct eval_opts {
    const char *names[MAX_METHODS];
    int method_count;
    double eps[MAX_EPSILONS];
    int eps_count; /* 0: the default bound */
    uint64_t iters;
    bool json, metric_errors, quiet, match_family, exclude_comm;
    ks_match_mode match_mode;
    const char *truth, *truth_format, *truth_select;
} eval_opts;

typedef struct eval_row {
    ks_eval_result r;
    ks_eval_detail d;
    double epsilon; /* NAN: the method promises no bound */
} eval_row;

/* ------------------------------------------------------------- output */

static void json_metrics(const ks_eval_detail *d)
{
    printf(", \"metrics\": {");
    for (size_t m = 0; m < d->metric_count; m++) {
        printf("%s", m ? ", " : "");
        cli_json_string(d->metrics[m].name);
        printf(": {\"error_mean_pct\": ");
        cli_json_number(d->metrics[m].error_mean_pct);
        cli_json_field("error_max_pct", d->metrics[m].error_max_pct);
        cli_json_field("total", d->metrics[m].total);
        printf("}");
    }
    printf("}, \"metrics_skipped\": {");
    for (size_t m = 0; m < d->skipped_count; m++) {
        printf("%s", m ? ", " : "");
        cli_json_string(d->skipped[m].name);
        printf(": ");
        cli_json_string(d->skipped[m].reason);
    }
    printf("}");
}

static void print_json(const eval_row *rows, size_t count, bool metrics)
{
    printf("[");
    for (size_t i = 0; i < count; i++) {
        const ks_eval_result *r = &rows[i].r;
        const ks_eval_detail *d = &rows[i].d;
        printf("%s{\"method\": ", i ? ", " : "");
        cli_json_string(r->method);
        cli_json_field("epsilon", rows[i].epsilon);
        cli_json_eval_fields(r);
        /* null where the table prints none or "-": a plan that promises no
         * bound has no share of plans above it, a method without the
         * variance model no predicted rse or lower bound */
        bool bound = r->bound_pct > 0;
        cli_json_field("bound_pct", bound ? r->bound_pct : NAN);
        cli_json_field("exceed_fraction", bound ? r->exceed_fraction : NAN);
        cli_json_field("predicted_rse_pct",
                       r->predicted_rse_pct > 0 ? r->predicted_rse_pct : NAN);
        cli_json_field("cost_over_lower_bound",
                       r->cost_over_lower_bound > 0 ? r->cost_over_lower_bound : NAN);
        if (d->has_truth) {
            cli_json_field("truth_error_mean_pct", d->truth_error_mean_pct);
            cli_json_field("truth_error_max_pct", d->truth_error_max_pct);
            cli_json_field("truth_speedup_hmean", d->truth_speedup_hmean);
            cli_json_field("truth_exceed_fraction", bound ? d->truth_exceed_fraction : NAN);
        }
        if (metrics)
            json_metrics(d);
        printf("}");
    }
    printf("]\n");
}

static void print_table(const eval_row *rows, size_t count, bool truth)
{
    printf("%-8s %10s %12s %12s %11s %11s %9s %8s %10s %8s", "method", "samples", "speedup",
           "err mean %", "err max %", "plan s", "bound %", "exceed", "pred rse %", "cost/LB");
    if (truth)
        printf(" %12s %12s %11s", "B err mean %", "B err max %", "B speedup");
    printf("\n");
    for (size_t i = 0; i < count; i++) {
        const ks_eval_result *r = &rows[i].r;
        char bound[32] = "none";
        if (r->bound_pct > 0)
            snprintf(bound, sizeof bound, "%.3g", r->bound_pct);
        char rse[32] = "-", lb[32] = "-";
        if (r->predicted_rse_pct > 0)
            snprintf(rse, sizeof rse, "%.4f", r->predicted_rse_pct);
        if (r->cost_over_lower_bound > 0)
            snprintf(lb, sizeof lb, "%.4f", r->cost_over_lower_bound);
        char exceed[32] = "-";
        if (r->bound_pct > 0)
            snprintf(exceed, sizeof exceed, "%.1f%%", 100 * r->exceed_fraction);
        /* the mean count of distinct launches over the plans: an integer
         * where every plan has the same */
        char samples[48];
        if (r->samples_mean == round(r->samples_mean))
            cli_count(samples, sizeof samples, r->samples_mean);
        else {
            char whole[40];
            cli_count(whole, sizeof whole, floor(r->samples_mean));
            snprintf(samples, sizeof samples, "%s.%d", whole,
                     (int)round(10 * (r->samples_mean - floor(r->samples_mean))) % 10);
        }
        printf("%-8s %10s %11.2fx %12.4f %11.4f %11.6f %9s %8s %10s %8s", r->method, samples,
               r->speedup_hmean, r->error_mean_pct, r->error_max_pct, r->plan_seconds, bound,
               exceed, rse, lb);
        if (truth)
            printf(" %12.4f %12.4f %10.2fx", rows[i].d.truth_error_mean_pct,
                   rows[i].d.truth_error_max_pct, rows[i].d.truth_speedup_hmean);
        printf("\n");
    }
}

static void print_metric_table(const eval_row *rows, size_t count, uint64_t iters)
{
    printf("\nmetric errors (%%, over %llu plans per row, drawn from the durations):\n"
           "%-8s %8s %12s %11s  %s\n",
           (unsigned long long)iters, "method", "bound %", "err mean %", "err max %", "metric");
    for (size_t i = 0; i < count; i++) {
        const ks_eval_detail *d = &rows[i].d;
        char bound[32] = "none";
        if (rows[i].r.bound_pct > 0)
            snprintf(bound, sizeof bound, "%.3g", rows[i].r.bound_pct);
        for (size_t m = 0; m < d->metric_count; m++)
            printf("%-8s %8s %12.4f %11.4f  %s\n", rows[i].r.method, bound,
                   d->metrics[m].error_mean_pct, d->metrics[m].error_max_pct,
                   d->metrics[m].name);
    }
    if (count == 0)
        return;
    if (rows[0].d.metric_count == 0)
        printf("(no additive metric column to estimate)\n");
    if (rows[0].d.skipped_count)
        printf("not estimated:\n");
    for (size_t m = 0; m < rows[0].d.skipped_count; m++)
        printf("  %s: %s\n", rows[0].d.skipped[m].name, rows[0].d.skipped[m].reason);
}

/* --------------------------------------------------------------- options */

static int parse_epsilons(const char *arg, eval_opts *o)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", arg);
    o->eps_count = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        double e;
        if (!cli_parse_double(tok, &e) || !(e > 0 && e < 1))
            return cli_usage_error("eval", "--epsilon: each bound must be a number in (0, 1), "
                                   "got '%s'", tok);
        if (o->eps_count == MAX_EPSILONS)
            return cli_usage_error("eval", "--epsilon: at most %d bounds", MAX_EPSILONS);
        o->eps[o->eps_count++] = e;
    }
    if (o->eps_count == 0)
        return cli_usage_error("eval", "--epsilon needs at least one bound");
    return 0;
}

static int parse_methods(char *list, eval_opts *o)
{
    int rc = cli_method_list("eval", list, o->names, MAX_METHODS, &o->method_count);
    if (rc == 0 && o->method_count == 0)
        return cli_usage_error("eval", "--methods is empty");
    return rc;
}

/* every method parameter given must belong to one of the methods */
static int check_settings(const ks_params *pa, const eval_opts *o)
{
    for (size_t s = 0; s < pa->setting_count; s++) {
        bool used = false;
        for (int i = 0; i < o->method_count && !used; i++) {
            const ks_method *m = ks_method_find(o->names[i]);
            for (size_t k = 0; k < m->param_count && !used; k++)
                used = strcmp(m->params[k].name, pa->settings[s].name) == 0;
        }
        if (!used)
            return cli_usage_error("eval", "--%s is not a parameter of any method evaluated",
                                   pa->settings[s].name);
    }
    return 0;
}

/* ------------------------------------------------------------------ run */

static void free_rows(eval_row *rows, size_t count)
{
    for (size_t i = 0; i < count; i++)
        ks_eval_detail_free(&rows[i].d);
    free(rows);
}

/* One row per (method, bound); a method whose plans promise no bound gets
 * one row, since the bound does not change its plans. */
static int run_all(const ks_profile *p, const ks_params *pa, const eval_opts *o,
                   const ks_eval_options *eo, eval_row **out, size_t *count)
{
    int neps = o->eps_count ? o->eps_count : 1;
    eval_row *rows = calloc((size_t)(o->method_count * neps), sizeof *rows);
    if (!rows) {
        return cli_fail(&(ks_error){.status = KS_ERR_NOMEM, .message = "out of memory"});
    }
    size_t n = 0, steps = (size_t)(o->method_count * neps);
    cli_progress progress;
    cli_progress_init(&progress, o->quiet, "eval");
    for (int i = 0; i < o->method_count; i++) {
        for (int k = 0; k < neps; k++) {
            ks_params run = *pa;
            run.method = o->names[i];
            if (o->eps_count)
                run.epsilon = o->eps[k];
            ks_error err;
            ks_error_clear(&err);
            eval_row *row = &rows[n];
            cli_progress_step(&progress, (size_t)(i * neps + k), steps, o->names[i]);
            ks_status st = ks_evaluate_ex(p, &run, (unsigned)o->iters, eo, &row->r, &row->d,
                                          &err);
            cli_progress_end(&progress);
            if (st != KS_OK) {
                free_rows(rows, n);
                return cli_fail(&err);
            }
            n++;
            row->epsilon = row->r.bound_pct > 0 ? run.epsilon : NAN;
            if (!(row->r.bound_pct > 0))
                break;
        }
    }
    *out = rows;
    *count = n;
    return 0;
}

static void print_notes(const eval_row *rows, size_t count, const eval_opts *o,
                        const ks_profile *p, const ks_profile *q)
{
    if (o->eps_count > 1)
        for (size_t i = 0; i < count; i++)
            if (isnan(rows[i].epsilon))
                printf("%s: promises no bound; evaluated once, not per epsilon\n",
                       rows[i].r.method);
    if (q)
        printf("B = %s: %zu launches, %.6g ms in all, against plans drawn from %s "
               "(%.6g ms)\n",
               q->source_path, q->n, ks_profile_total_ns(q) / 1e6, p->source_path,
               ks_profile_total_ns(p) / 1e6);
}

static int report(const ks_profile *p, const ks_profile *q, const ks_params *pa,
                  const eval_opts *o)
{
    ks_eval_options eo = {q, o->truth, o->metric_errors, NULL};
    if (q) {
        ks_error err;
        ks_error_clear(&err);
        if (ks_profile_check_aligned(p, q, NULL, o->truth, "cannot use as truth", &err) !=
            KS_OK)
            return cli_fail(&err);
    }
    eval_row *rows = NULL;
    size_t count = 0;
    /* grouping and sorting by duration done once for every method and seed */
    ks_error err;
    ks_error_clear(&err);
    if (ks_plan_cache_new(p, &eo.cache, &err) != KS_OK)
        return cli_fail(&err);
    int rc = run_all(p, pa, o, &eo, &rows, &count);
    ks_plan_cache_free(eo.cache);
    if (rc)
        return rc;
    if (o->json) {
        print_json(rows, count, o->metric_errors);
    } else {
        print_table(rows, count, q != NULL);
        print_notes(rows, count, o, p, q);
        if (o->metric_errors)
            print_metric_table(rows, count, o->iters);
    }
    free_rows(rows, count);
    return 0;
}

static int eval_main(int argc, char **argv, const struct option *longopts);

int cmd_eval(int argc, char **argv)
{
    static const struct option own[] = {
        {"methods", required_argument, NULL, 'L'}, {"iters", required_argument, NULL, 'i'},
        {"json", no_argument, NULL, 'j'},          {"help", no_argument, NULL, 'h'},
        {"truth", required_argument, NULL, 'T'},   {"truth-format", required_argument, NULL, 'U'},
        {"metric-errors", no_argument, NULL, 'E'}, {"quiet", no_argument, NULL, 'q'},
        {"match", required_argument, NULL, 'W' + 256},
        {"truth-select", required_argument, NULL, 'Y' + 256},
        {"exclude-comm", no_argument, NULL, 'X' + 256},
        {NULL, 0, NULL, 0}};
    return cli_with_sampling_options(own, eval_main, argc, argv);
}

static int read_inputs(const char *path, const cli_input *input, const eval_opts *o,
                       ks_profile **p, ks_profile **q)
{
    *q = NULL;
    ks_comm_summary comm;
    int rc = o->exclude_comm ? cli_read_profile_comm(path, input, true, p, &comm)
                             : cli_read_profile(path, input, p);
    if (o->exclude_comm && !rc)
        ks_comm_summary_free(&comm);
    if (rc || !o->truth)
        return rc;
    /* B is another run: only how to read it carries over, not A's second
     * sources */
    cli_input tin;
    cli_input_init(&tin);
    tin.read = input->read;
    tin.read.format = o->truth_format;
    /* the same part of the run, where one is selected */
    if (o->truth_select)
        snprintf(tin.select, sizeof tin.select, "%s", o->truth_select);
    else
        memcpy(tin.select, input->select, sizeof tin.select);
    tin.comm_pattern_count = input->comm_pattern_count;
    memcpy(tin.comm_patterns, input->comm_patterns, sizeof tin.comm_patterns);
    rc = o->exclude_comm ? cli_read_profile_comm(o->truth, &tin, true, q, &comm)
                         : cli_read_profile(o->truth, &tin, q);
    if (o->exclude_comm && !rc)
        ks_comm_summary_free(&comm);
    if (!rc && o->match_family) {
        ks_match_stats ms;
        ks_profile *t;
        ks_error err;
        ks_error_clear(&err);
        if (ks_profile_match_truth(*p, *q, o->match_mode, &t, &ms, &err) != KS_OK) {
            rc = cli_fail(&err);
        } else {
            FILE *f = o->json ? stderr : stdout;
            fprintf(f,
                    "match by %s: %zu of A's %zu launches paired with B's %zu (%zu of the "
                    "pairs under another name, %zu of them another family paired by "
                    "position); unmatched: %zu of A (%.4g ms), %zu of B "
                    "(%.4g ms, %.2f %% of B's time, in no total) at %zu places",
                    o->match_mode == KS_MATCH_OP ? "operator" : "family", ms.matched, (*p)->n,
                    (*q)->n, ms.renamed, ms.by_position, ms.p_only,
                    ms.p_only_ns / 1e6,
                    ms.q_only, ms.q_only_ns / 1e6,
                    100 * ms.q_only_ns / (ks_profile_total_ns(*q) > 0 ? ks_profile_total_ns(*q) : 1),
                    ms.gaps);
            if (ms.gaps)
                fprintf(f, ", the first at A's launch %lld, B's %lld",
                        (long long)ks_profile_launch_id(*p, (size_t)ms.first_gap_p),
                        (long long)ks_profile_launch_id(*q, (size_t)ms.first_gap_q));
            fprintf(f, "\n");
            ks_profile_free(*q);
            *q = t;
        }
    }
    if (rc) {
        ks_profile_free(*p);
        ks_profile_free(*q);
        *p = *q = NULL;
    }
    return rc;
}

static int eval_main(int argc, char **argv, const struct option *longopts)
{
    cli_input input;
    ks_params pa;
    cli_sampling_init(&input, &pa, false);
    char methods_buf[256];
    snprintf(methods_buf, sizeof methods_buf, "%s", ks_eval_default_methods());
    eval_opts o;
    memset(&o, 0, sizeof o);
    o.iters = KS_EVAL_ITERS;
    /* --epsilon is a list here, so the sampling parameters come after the
     * command's own options */
    cli_loop l = {.cmd = "eval", .longopts = longopts, .shortopts = "hq", .help = help,
                  .json = &o.json, .input = &input, .operands = 1,
                  .operands_are = "one profile file"};
    int opt, rc;
    while ((opt = cli_loop_next(&l, argc, argv)) != -1) {
        switch (opt) {
        case 'e':
            if ((rc = parse_epsilons(optarg, &o)))
                return rc;
            break;
        case 'L':
            snprintf(methods_buf, sizeof methods_buf, "%s", optarg);
            break;
        case 'i':
            if (!cli_parse_u64(optarg, &o.iters) || o.iters < 1 || o.iters > 1000000)
                return cli_usage_error("eval", "--iters must be in 1..1000000, got '%s'",
                                       optarg);
            break;
        case 'T':
            o.truth = optarg;
            break;
        case 'U':
            o.truth_format = optarg;
            break;
        case 'E':
            o.metric_errors = true;
            break;
        case 'W' + 256:
            if (strcmp(optarg, "family") != 0 && strcmp(optarg, "name") != 0 &&
                strcmp(optarg, "op") != 0)
                return cli_usage_error("eval", "--match is name, family or op, got '%s'",
                                       optarg);
            o.match_family = strcmp(optarg, "name") != 0;
            o.match_mode = strcmp(optarg, "op") == 0 ? KS_MATCH_OP : KS_MATCH_FAMILY;
            break;
        case 'X' + 256:
            o.exclude_comm = true;
            break;
        case 'Y' + 256:
            if (strlen(optarg) >= sizeof input.select)
                return cli_usage_error("eval", "--truth-select is too long");
            o.truth_select = optarg;
            break;
        case 'q':
            o.quiet = true;
            break;
        default:
            if (cli_params_option(&pa, opt, optarg, "eval", &rc) && rc)
                return rc;
        }
    }
    if (l.exit >= 0)
        return l.exit;
    if (o.truth_format && !o.truth)
        return cli_usage_error("eval", "--truth-format without --truth");
    if (o.match_family && !o.truth)
        return cli_usage_error("eval", "--match without --truth");
    if (o.truth_select && !o.truth)
        return cli_usage_error("eval", "--truth-select without --truth");
    o.metric_errors |= input.metrics != NULL;
    if ((rc = parse_methods(methods_buf, &o)) || (rc = check_settings(&pa, &o)))
        return rc;
    ks_profile *p, *q;
    if ((rc = read_inputs(argv[optind], &input, &o, &p, &q)))
        return rc;
    rc = report(p, q, &pa, &o);
    ks_profile_free(p);
    ks_profile_free(q);
    return rc;
}
