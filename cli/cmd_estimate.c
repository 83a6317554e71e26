/* cmd_estimate.c - `ksample estimate`: whole-workload metrics from the
 * simulated samples, each with a confidence interval. */
#include "cli_estimate.h"
#include "cli_versus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void help(void)
{
    printf("usage: ksample estimate [options] PLAN RESULTS... [--versus RESULTS]...\n\n"
           "Estimates the program's total of each per-launch count the simulator reported\n"
           "for every sampled launch (sum of weight x value), with a confidence interval\n"
           "from the spread of the simulated values inside each cluster (stratified\n"
           "variance with the finite-population correction), and says whether the\n"
           "interval's relative half-width meets the plan's bound.  Rates (ipc =\n"
           "gpu_sim_insn / gpu_sim_cycle, miss rates, DRAM reads per cycle, --ratio) are\n"
           "ratios of two estimated totals with their own interval, never sums.\n\n"
           "RESULTS: Accel-Sim / GPGPU-Sim logs (per-kernel 'name = value' statistics,\n"
           "matched by kernel_launch_uid; the counters GPGPU-Sim prints as running totals\n"
           "over the process are differenced within each simulator run, so a launch\n"
           "gets its own share, warm-up kernels' left out), MacSim logs, get_stats.py\n"
           "CSVs, CSVs with the header id,<metric>,... (0-based plan ids, per-launch\n"
           "values), or run folders (manifest.json and jobs/*/sim.log, every job with\n"
           "status 0).\n\n"
           "options:\n"
           "  --json             print a JSON array, one object per metric: metric,\n"
           "                     estimate, ci_low, ci_high, rel_halfwidth, bound_met\n"
           "  --metric NAME      estimate only this metric (repeatable); it must be\n"
           "                     reported for every sample; a rate is the ratio of the\n"
           "                     totals of its parts, one of unknown kind is summed\n"
           "  --metrics all      every count and rate (default: cycles, instructions, ipc,\n"
           "                     the cache and DRAM counts and rates, a results CSV's own\n"
           "                     columns; 15 rows at most); --json prints every one, each\n"
           "                     with \"default\" saying whether it is a default row\n"
           "  --ratio N=A/B      also estimate the ratio of totals A / B, named N\n"
           "  --epsilon E        the bound to check (default: the plan's)\n"
           "  --pilot WARM       cold-start correction: RESULTS hold every sample simulated\n"
           "                     alone (cold), WARM the same metrics of a few of them (two\n"
           "                     or more) simulated warm; per kernel group the ratio warm /\n"
           "                     cold scales the estimate, its uncertainty widens the\n"
           "                     interval (read like RESULTS)\n"
           "  --estimator E      plain (default: sum of weight x value), ratio or\n"
           "                     regression on the profile's values of the same launches\n"
           "                     (--auxiliary), whose per-cluster totals are known: they pay\n"
           "                     only for the values' spread about their ratio or line to\n"
           "                     the profile; a group whose values do not follow the\n"
           "                     profile falls back to plain, and the output says which;\n"
           "                     auto: per group the estimator of least variance.  Default:\n"
           "                     what the plan's refine sized for, else plain\n"
           "  --fit F            the strata sharing one ratio or line: kernel (default: a\n"
           "                     kernel group's strata), stratum (each stratum with two or\n"
           "                     more samples: the separate estimator) or all (combined)\n"
           "  --auxiliary NAME   the profile's value the estimators use: duration (default,\n"
           "                     the time the plan was drawn on), a metric column, or with\n"
           "                     the trace folder trace_insts (each launch's thread\n"
           "                     instructions as the traces give them; MacSim: its\n"
           "                     INST_COUNT_TOT) or trace_warp_insts (Accel-Sim's warp\n"
           "                     instructions)\n"
           "  --no-exact         estimate instruction counts from the samples like any\n"
           "                     other metric.  By default, with the trace folder (--traces,\n"
           "                     or the one a run folder's manifest records), the counts the\n"
           "                     traces give for every launch (Accel-Sim: gpu_sim_insn,\n"
           "                     gpgpu_n_tot_w_icount ...; MacSim: INST_COUNT_TOT) are\n"
           "                     exact totals, no interval, wherever every sample's value is\n"
           "                     its trace's count; a rate of one over an estimated total\n"
           "                     (ipc) has that total's interval.  A run folder keeps the\n"
           "                     counts in RUNDIR/trace-counts.csv for the next estimate\n"
           "  --values           print the values read instead, as a results CSV\n"
           "                     (id,<metric>,...: one row per launch, ids ascending), which\n"
           "                     estimate, refine and score read back\n"
           "  --warmup MODE      how the values of RESULTS files were simulated (a run\n"
           "                     folder's manifest says it itself): context (a full run of\n"
           "                     the program: the intervals are of its total), none (alone,\n"
           "                     cold) or a run --warmup mode (the intervals are of those\n"
           "                     values' total, whose warm-up bias they do not contain)\n"
           CLI_VERSUS_HELP
           CLI_RESULTS_HELP
           "  -h, --help         this text\n");
}


typedef struct estimate_run {
    cli_results *cr;
    ks_estimate_options *eo;
    bool json, values;
    const char *plan_path;
    const char *pilot;
    bool run_folder;
    int estimator, fit;     /* -1: not given */
    const char *auxiliary;  /* NULL: duration */
    cli_versus *versus;     /* --versus: B's results (count 0: none) */
    bool no_exact;
    char **paths;           /* RESULTS (A's) */
    int path_count;
} estimate_run;

/* What the intervals stand for: the warm-up the values were simulated
 * with (every source's, "mixed" when they differ, "unknown" when none
 * says); a whole program simulated (--uid-base) is in context. */
static const char *warmup_of(const estimate_run *a, const ks_results *r)
{
    const char *warmup = ks_results_warmup(r);
    if (strcmp(warmup, "unknown") == 0 && a->cr->read.uid_mode == KS_UID_BASE)
        return "context";
    return warmup;
}

static int estimate_with(const ks_plan *plan, const ks_results *r, void *ctx)
{
    const estimate_run *a = ctx;
    if (a->values)
        return cli_results_print_csv(r);
    if (a->versus->count) { /* B over A, plain totals (cli_versus.c) */
        a->eo->single = a->cr->single;
        a->eo->estimator = KS_ESTIMATOR_PLAIN;
        return cli_versus_run(a->versus, a->cr, a->plan_path, plan, r, a->path_count, a->eo,
                              warmup_of(a, r), a->json);
    }
    ks_error err;
    ks_error_clear(&err);
    a->eo->single = a->cr->single;
    ks_results pilot;
    ks_results_init(&pilot);
    if (a->pilot) {
        char *paths[] = {(char *)a->pilot};
        int rc = cli_results_read(a->cr, a->plan_path, plan, paths, 1, &pilot);
        if (rc)
            return rc;
        a->eo->pilot = &pilot;
    }
    char auxiliary[160];
    cli_plan_estimator(plan, a->estimator, a->fit, a->auxiliary, &a->eo->estimator, &a->eo->fit,
                       auxiliary, sizeof auxiliary);
    /* the traces' counts: exact totals, and the auxiliary trace_insts */
    bool trace_aux =
        a->eo->estimator != KS_ESTIMATOR_PLAIN && strncmp(auxiliary, "trace_", 6) == 0;
    char trace_buf[4096], cache_buf[4096];
    const char *cache = NULL;
    const char *traces = a->no_exact && !trace_aux
                             ? NULL
                             : cli_results_traces(a->cr, a->paths, a->path_count, trace_buf,
                                                  sizeof trace_buf, cache_buf, sizeof cache_buf,
                                                  &cache);
    ks_known known;
    bool have_known = false;
    double *x = NULL, *total = NULL;
    ks_auxiliary aux = {0};
    int rc = 0;
    if (traces) {
        ks_error kerr;
        ks_error_clear(&kerr);
        if (ks_known_read(traces, cache, plan->input_invocations, &known, &kerr) == KS_OK) {
            have_known = true;
            a->eo->known = a->no_exact ? NULL : &known;
            if (cli_profile_trace_columns(a->cr->profile, &known, &kerr) != KS_OK) {
                rc = cli_fail(&kerr);
                goto done;
            }
        } else {
            char why[1200];
            ks_error_format(&kerr, why, sizeof why);
            fprintf(stderr, "ksample estimate: note: the traces' instruction counts could not "
                            "be read, so they are estimated: %s\n",
                    why);
        }
    }
    if (a->eo->estimator != KS_ESTIMATOR_PLAIN) {
        rc = cli_auxiliary(plan, a->cr, auxiliary, &x, &total);
        if (rc)
            goto done;
        aux = (ks_auxiliary){x, total};
        a->eo->aux = &aux;
    }
    a->eo->warmup = warmup_of(a, r);
    a->eo->profile = a->cr->profile;
    ks_estimate e;
    if (ks_estimate_compute(plan, r, a->eo, &e, &err) != KS_OK) {
        rc = cli_fail(&err);
    } else {
        const char *fit = ks_estimator_fit_name(a->eo->fit);
        if (a->json)
            cli_estimate_print_json(plan, r, &e, ks_single_mode_of(plan, a->cr->single), fit,
                                    auxiliary, a->eo->warmup);
        else
            cli_estimate_print_text(plan, r, a->cr, &e, a->run_folder, fit, auxiliary,
                                    have_known && !a->no_exact ? &known : NULL, cache,
                                    a->eo->warmup);
        ks_estimate_free(&e);
    }
done:
    a->eo->known = NULL;
    a->eo->pilot = NULL;
    a->eo->aux = NULL;
    ks_results_free(&pilot);
    free(x);
    free(total);
    if (have_known)
        ks_known_free(&known);
    return rc;
}

int cmd_estimate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},          {"metric", required_argument, NULL, 'm'},
        {"ratio", required_argument, NULL, 'r'},   {"epsilon", required_argument, NULL, 'e'},
        {"pilot", required_argument, NULL, 'p'},   {"warmup", required_argument, NULL, 'w'},
        {"values", no_argument, NULL, 'v'},        {"metrics", required_argument, NULL, 'a'},
        {"no-exact", no_argument, NULL, 'x' + 256},
        CLI_ESTIMATOR_LONG_OPTIONS,                CLI_VERSUS_LONG_OPTION,
        {"help", no_argument, NULL, 'h'},          CLI_RESULTS_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    cli_results cr;
    cli_results_init(&cr, "estimate");
    ks_estimate_options eo;
    ks_estimate_options_init(&eo);
    const char **metrics = calloc((size_t)argc + 1, sizeof *metrics);
    const char **ratios = calloc((size_t)argc + 1, sizeof *ratios);
    bool json = false, values = false, no_exact = false;
    const char *pilot = NULL, *auxiliary = NULL;
    int estimator = -1, fit = -1;
    cli_versus versus = {0};
    ks_warmup warmup;
    char warmup_text[32] = "";
    cli_loop l = {.cmd = "estimate", .longopts = longopts, .help = help, .json = &json,
                  .results = &cr, .operands = -1};
    int opt, rc = 0;
    while (rc == 0 && (opt = cli_loop_next(&l, argc, argv)) != -1) {
        switch (opt) {
        case 'm':
            metrics[eo.metric_count++] = optarg;
            break;
        case 'r':
            ratios[eo.ratio_count++] = optarg;
            break;
        case 'p':
            pilot = optarg;
            break;
        case 'a':
            if (strcmp(optarg, "all") == 0)
                eo.all = 1;
            else if (strcmp(optarg, "default") != 0)
                rc = cli_usage_error("estimate", "--metrics is all or default, got '%s'",
                                     optarg);
            break;
        case 'v':
            values = true;
            break;
        case 'V' + 256:
            rc = cli_versus_add(&versus, optarg);
            break;
        case 'x' + 256:
            no_exact = true;
            break;
        case 'w': {
            ks_error werr;
            ks_error_clear(&werr);
            if (strcmp(optarg, "context") == 0) /* values of a full run */
                snprintf(warmup_text, sizeof warmup_text, "context");
            else if (ks_warmup_parse(optarg, &warmup, &werr) != KS_OK)
                rc = cli_usage_error("estimate", "--warmup: %s", werr.message);
            else
                ks_warmup_format(&warmup, warmup_text, sizeof warmup_text);
            break;
        }
        case 'e':
            if (!cli_parse_double(optarg, &eo.epsilon) || !(eo.epsilon > 0 && eo.epsilon < 1))
                rc = cli_usage_error("estimate", "--epsilon must be in (0, 1), got '%s'",
                                     optarg);
            break;
        default:
            cli_estimator_option(opt, optarg, "estimate", &estimator, &fit, &auxiliary, &rc);
            break;
        }
    }
    if (rc == 0 && l.exit >= 0)
        rc = l.exit ? l.exit : -1; /* -1: --help, nothing to run */
    if (rc == 0 && argc - optind < 2)
        rc = cli_usage_error("estimate", "expected a plan and at least one results file");
    if (rc == 0 && versus.count && (pilot || values || estimator >= 0))
        rc = cli_usage_error("estimate", "--versus compares the plain totals of two "
                                         "configurations: not with %s",
                             pilot ? "--pilot" : values ? "--values" : "--estimator");
    if (rc == 0 && versus.count)
        rc = cli_versus_split_maps(&versus, &cr, argc - optind - 1);
    eo.metrics = metrics;
    eo.ratios = ratios;
    if (json)
        eo.all = 1; /* every row, each saying whether it is a default one */
    if (warmup_text[0])
        cr.read.warmup = warmup_text;
    bool run_folder = false;
    for (int i = optind + 1; rc == 0 && i < argc; i++) {
        struct stat sb;
        run_folder = run_folder || (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode));
    }
    if (rc == 0)
        rc = cli_with_plan_results(
            &cr, argv[optind], argv + optind + 1, argc - optind - 1, estimate_with,
            &(estimate_run){&cr, &eo, json, values, argv[optind], pilot, run_folder, estimator,
                            fit, auxiliary, &versus, no_exact, argv + optind + 1,
                            argc - optind - 1});
    free(metrics);
    free(ratios);
    return rc < 0 ? 0 : rc;
}
