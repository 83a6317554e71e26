/* cmd_refine.c - `ksample refine`: extra samples when the simulated values
 * vary more than the profile predicted. */
#include "cli_results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: ksample refine [options] PLAN RESULTS... -o NEWPLAN\n\n"
           "Re-sizes the plan's clusters with the spread of the simulated values of one\n"
           "metric in place of the profile's, so that the bound is met, keeps every\n"
           "simulated launch and draws only the extra ones (without replacement, from\n"
           "the launches not drawn yet).  The new plan records its parent (path and\n"
           "digest); simulate its new ids and estimate with both result sets.\n"
           "Prints nothing new when the bound is already met (the plan is copied with\n"
           "the same samples).\n\n"
           "options:\n"
           "  -o, --output FILE  the new plan (required); written atomically\n"
           "  --metric NAME      the metric whose bound counts (default gpu_sim_cycle if\n"
           "                     reported, else the results' first metric)\n"
           "  --epsilon E        the bound (default: the plan's)\n"
           "  --seed N           seed of the extra draws (default: the plan's seed + 1),\n"
           "                     recorded as refine_seed\n"
           "  --estimator E      size for this estimator (see estimate --estimator): ratio,\n"
           "                     regression or auto size with the spread of the values\n"
           "                     about their ratio or line to the profile (the second phase\n"
           "                     of a two-phase design); recorded in the new plan, which\n"
           "                     estimate then uses by default.  Default: the plan's, else\n"
           "                     plain\n"
           "  --fit F            kernel (default), stratum or all (see estimate --fit)\n"
           "  --auxiliary NAME   duration (default) or a metric column of the profile\n"
           CLI_RESULTS_HELP
           "  -h, --help         this text\n");
}

typedef struct refine_args {
    const char *output, *metric;
    double epsilon;
    uint64_t seed;
    bool seed_given;
    int estimator, fit;    /* -1: not given */
    const char *auxiliary; /* NULL: not given */
} refine_args;

static int values_of(const ks_plan *plan, const ks_results *r, const char *metric, double *y)
{
    long m = metric ? ks_results_metric(r, metric) : ks_results_metric(r, "gpu_sim_cycle");
    if (m < 0 && !metric && r->metric_count > 0)
        m = 0;
    if (m < 0) {
        fprintf(stderr, "ksample refine: no metric named '%s' in the results\n",
                metric ? metric : "gpu_sim_cycle");
        return KS_ERR_USAGE;
    }
    for (size_t i = 0; i < plan->sample_count; i++) {
        long row = ks_results_row(r, plan->samples[i].id);
        y[i] = row < 0 ? NAN : r->values[m][row];
        if (isnan(y[i])) {
            fprintf(stderr, "ksample refine: sample id %llu has no %s in the results\n",
                    (unsigned long long)plan->samples[i].id, r->metrics[m]);
            return KS_ERR_FORMAT;
        }
    }
    fprintf(stderr, "ksample refine: sizing by %s\n", r->metrics[m]);
    return 0;
}

static ks_status write_plan(const void *ctx, FILE *f, ks_error *err)
{
    return ks_plan_write_json(ctx, f, err);
}

/* What the new plan costs against the program (issue 38): its share of the
 * profiled time, the new launches' part of it, and with the warm-up the
 * parent's runs measured (run_cycles) where they did. */
static void note_cost(const ks_plan *parent, const ks_plan *out, const cli_cost *c)
{
    double s = out->predicted_speedup, s0 = parent->predicted_speedup;
    size_t added = out->sample_count - parent->sample_count;
    if (!(isfinite(s) && s > 0 && isfinite(s0) && s0 > 0) || added == 0)
        return;
    double all = 1 / s, fresh = fmax(0, 1 / s - 1 / s0);
    char n1[32];
    fprintf(stderr, "ksample refine: cost: the new plan is %.3g%% of the program's profiled "
                    "time, its %s new launch%s %.3g%%",
            100 * all, cli_count_u64(n1, sizeof n1, added), added == 1 ? "" : "es",
            100 * fresh);
    if (isfinite(c->factor) && c->factor > 1.0005)
        fprintf(stderr, "; with warm-up kernels of %.3gx a launch's own cycles, as the "
                        "parent's runs measured (run_cycles), about %.3g%% and %.3g%%",
                c->factor, 100 * all * c->factor, 100 * fresh * c->factor);
    fprintf(stderr, " (`ksample run NEWPLAN -o RUNDIR/` into the parent's run folder "
                    "simulates only the new launches)\n");
}

static int refine_with(const ks_plan *plan, const char *plan_path, const ks_profile *p,
                       const double *y, const refine_args *a, cli_results *cr,
                       const cli_cost *cost)
{
    ks_error err;
    ks_error_clear(&err);
    ks_refine_result res;
    ks_refine_options ro = {.epsilon = a->epsilon,
                            .seed = a->seed_given ? a->seed : plan->params.seed + 1,
                            .single = cr->single,
                            .parent_path = plan_path,
                            .result = &res};
    char auxiliary[160];
    cli_plan_estimator(plan, a->estimator, a->fit, a->auxiliary, &ro.estimator, &ro.fit,
                       auxiliary, sizeof auxiliary);
    double *x = NULL, *total = NULL;
    ks_auxiliary aux;
    if (ro.estimator != KS_ESTIMATOR_PLAIN) {
        int rc = cli_auxiliary(plan, cr, auxiliary, &x, &total);
        if (rc) {
            free(x);
            free(total);
            return rc;
        }
        aux = (ks_auxiliary){x, total};
        ro.aux = &aux;
        ro.aux_name = auxiliary;
        fprintf(stderr, "ksample refine: sizing for the %s estimator (one fit per %s, on the "
                        "profile's %s)\n",
                ks_estimator_name(ro.estimator), ks_estimator_fit_name(ro.fit), auxiliary);
    }
    ks_plan out;
    ks_status rst = ks_plan_refine(plan, p, y, &ro, &out, &err);
    free(x);
    free(total);
    if (rst != KS_OK)
        return cli_fail(&err);
    ks_status st = ks_write_atomic(a->output, write_plan, &out, &err);
    if (st == KS_OK) {
        /* the interval estimate prints for these values now (the same
         * model), then what the new sizes predict */
        if (isfinite(res.now_rel_halfwidth))
            fprintf(stderr, "ksample refine: the interval now: +-%.3g%%\n",
                    res.now_rel_halfwidth * 100);
        else
            fprintf(stderr, "ksample refine: no interval now: no simulated value measures "
                            "the spread of some clusters\n");
        char n1[32], n2[32], n3[32];
        fprintf(stderr, "ksample refine: %s sample%s (%s new) in %s cluster%s, bound %.3g%%",
                cli_count_u64(n1, sizeof n1, out.sample_count),
                out.sample_count == 1 ? "" : "s",
                cli_count_u64(n2, sizeof n2, out.sample_count - plan->sample_count),
                cli_count_u64(n3, sizeof n3, out.cluster_count),
                out.cluster_count == 1 ? "" : "s", out.bound * 100);
        /* what the sizes reach with the spread just used (t = %.3g) */
        if (res.census)
            fprintf(stderr, ": every cluster is simulated whole (%zu of %llu launches), so "
                            "the estimate will be exact\n",
                    out.sample_count, (unsigned long long)out.population);
        else if (res.met)
            fprintf(stderr, ", met with the spread observed (interval predicted at +-%.3g%%)\n",
                    res.rel_halfwidth * 100);
        else
            fprintf(stderr, "\nksample refine: the bound cannot be met: every cluster that "
                            "varies is exhausted; the interval is predicted at +-%.3g%%\n",
                    res.rel_halfwidth * 100);
        note_cost(plan, &out, cost);
        cli_note_plan_cost(&out, "refine", cost->factor);
    }
    ks_plan_free(&out);
    return st == KS_OK ? 0 : cli_fail(&err);
}

typedef struct refine_run {
    const char *plan_path;
    cli_results *cr;
    const refine_args *a;
} refine_run;

static int refine_from(const ks_plan *plan, const ks_results *r, void *ctx)
{
    const refine_run *run = ctx;
    double *y = malloc((plan->sample_count + 1) * sizeof *y);
    const char *recorded[] = {plan->input_path};
    int rc = cli_check_output("refine", run->a->output, recorded, 1);
    if (rc == 0)
        rc = y ? values_of(plan, r, run->a->metric, y) : KS_ERR_NOMEM;
    /* refine needs the profile (cluster members): the one read with the
     * results, or why it could not be */
    if (rc == 0 && !run->cr->profile)
        rc = cli_fail(&run->cr->profile_err);
    cli_cost cost;
    cli_cost_measure(r, &cost);
    if (rc == 0)
        rc = refine_with(plan, run->plan_path, run->cr->profile, y, run->a, run->cr, &cost);
    free(y);
    return rc;
}

int cmd_refine(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},  {"metric", required_argument, NULL, 'm'},
        {"epsilon", required_argument, NULL, 'e'},
        {"seed", required_argument, NULL, 's'},    {"help", no_argument, NULL, 'h'},
        CLI_RESULTS_LONG_OPTIONS,                  CLI_ESTIMATOR_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    cli_results cr;
    cli_results_init(&cr, "refine");
    refine_args a = {.estimator = -1, .fit = -1};
    cli_loop l = {.cmd = "refine", .longopts = longopts, .shortopts = "ho:", .help = help,
                  .results = &cr, .operands = -1};
    int opt;
    while ((opt = cli_loop_next(&l, argc, argv)) != -1) {
        switch (opt) {
        case 'o':
            a.output = optarg;
            break;
        case 'm':
            a.metric = optarg;
            break;
        case 'e':
            if (!cli_parse_double(optarg, &a.epsilon) || !(a.epsilon > 0 && a.epsilon < 1))
                return cli_usage_error("refine", "--epsilon must be in (0, 1), got '%s'",
                                       optarg);
            break;
        case 's':
            if (!cli_parse_u64(optarg, &a.seed))
                return cli_usage_error("refine", "--seed needs a non-negative integer");
            a.seed_given = true;
            break;
        default: {
            int rc = 0;
            if (cli_estimator_option(opt, optarg, "refine", &a.estimator, &a.fit,
                                     &a.auxiliary, &rc) &&
                rc)
                return rc;
            break;
        }
        }
    }
    if (l.exit >= 0)
        return l.exit;
    if (argc - optind < 2 || !a.output)
        return cli_usage_error("refine", "expected a plan, results and -o NEWPLAN");
    /* every file read: the plan, each RESULTS, --profile, each --uid-map (the
     * plan's recorded profile is checked once the plan is read) */
    const char **inputs = malloc(((size_t)argc + CLI_MAX_UID_MAPS + 1) * sizeof *inputs);
    if (!inputs)
        return KS_ERR_NOMEM;
    size_t n = 0;
    for (int i = optind; i < argc; i++)
        inputs[n++] = argv[i];
    inputs[n++] = cr.profile_path;
    for (int i = 0; i < cr.map_count; i++)
        inputs[n++] = cr.maps[i];
    int rc = cli_check_output("refine", a.output, inputs, n);
    free(inputs);
    if (rc)
        return rc;
    return cli_with_plan_results(&cr, argv[optind], argv + optind + 1, argc - optind - 1,
                                 refine_from, &(refine_run){argv[optind], &cr, &a});
}
