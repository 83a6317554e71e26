/* cmd_estimate.c - `ksample estimate`: whole-workload metrics from the
 * simulated samples, each with a confidence interval. */
#include "cli_results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void help(void)
{
    printf("usage: ksample estimate [options] PLAN RESULTS...\n\n"
           "Estimates the total of every metric the simulator reported for every sampled\n"
           "launch (sum of weight x value), with a confidence interval from the spread of\n"
           "the simulated values inside each cluster (stratified variance with the\n"
           "finite-population correction), and says whether the interval's relative\n"
           "half-width meets the plan's bound.  Ratios (ipc = gpu_sim_insn / gpu_sim_cycle,\n"
           "and --ratio) are estimated as ratios of totals with their own interval.\n\n"
           "RESULTS: Accel-Sim / GPGPU-Sim logs (per-kernel 'name = value' statistics,\n"
           "matched by kernel_launch_uid; cumulative gpu_tot_* ignored), CSVs with the\n"
           "header id,<metric>,... (0-based plan ids), or run folders (manifest.json and\n"
           "jobs/*/sim.log, every job with status 0).\n\n"
           "options:\n"
           "  --json             print a JSON array, one object per metric: metric,\n"
           "                     estimate, ci_low, ci_high, rel_halfwidth, bound_met\n"
           "  --metric NAME      estimate only this metric (repeatable); it must be\n"
           "                     reported for every sample\n"
           "  --ratio N=A/B      also estimate the ratio of totals A / B, named N\n"
           "  --epsilon E        the bound to check (default: the plan's)\n"
           "  --pilot WARM       cold-start correction: RESULTS hold every sample simulated\n"
           "                     alone (cold), WARM the same metrics of a few of them (two\n"
           "                     or more) simulated warm; per kernel group the ratio warm /\n"
           "                     cold scales the estimate, its uncertainty widens the\n"
           "                     interval (read like RESULTS)\n"
           "  --warmup MODE      how the values of RESULTS files were simulated, to report\n"
           "                     with them (a run folder's manifest says it itself)\n"
           CLI_RESULTS_HELP
           "  -h, --help         this text\n");
}

/* `, "key": x` with every digit of x: an estimate is a result others compute
 * with, unlike the 6 digits of the other commands' reports */
static void json_field_exact(const char *key, double x)
{
    if (isfinite(x))
        printf(", \"%s\": %.17g", key, x);
    else
        printf(", \"%s\": null", key);
}

static void print_json(const ks_estimate *e, ks_single_mode single, const char *warmup)
{
    printf("[");
    for (size_t i = 0; i < e->count; i++) {
        const ks_metric_estimate *m = &e->metrics[i];
        printf("%s\n  {\"metric\": ", i ? "," : "");
        cli_json_string(m->name);
        printf(", \"warmup\": ");
        cli_json_string(warmup);
        printf(", \"pilot\": %zu", m->pilot);
        json_field_exact("estimate", m->estimate);
        json_field_exact("ci_low", m->ci_low);
        json_field_exact("ci_high", m->ci_high);
        json_field_exact("rel_halfwidth", m->rel_halfwidth);
        printf(", \"bound_met\": %s, \"ratio\": %s, \"single_sample_strata\": %zu, "
               "\"single_sample\": \"%s\"}",
               m->bound_met < 0 ? "null" : m->bound_met ? "true" : "false",
               m->is_ratio ? "true" : "false", m->single_strata,
               single == KS_SINGLE_COLLAPSE ? "collapse" : "profile-cv");
    }
    printf("\n]\n");
}

/* The warm-up mode of the values: every source's, "mixed" when they
 * differ, "unknown" when none says. */
static const char *warmup_of(const ks_results *r)
{
    const char *w = NULL;
    for (size_t i = 0; i < r->source_count; i++) {
        const char *s = r->source_warmup && r->source_warmup[i] ? r->source_warmup[i] : "";
        if (!*s)
            s = "unknown";
        if (w && strcmp(w, s) != 0)
            return "mixed";
        w = s;
    }
    return w ? w : "unknown";
}

static void print_text(const ks_plan *plan, const ks_results *r, const cli_results *cr,
                       const ks_estimate *e, bool run_folder)
{
    const char *warmup = warmup_of(r);
    printf("plan: %s, %zu samples of %llu launches; bound ", plan->method, plan->sample_count,
           (unsigned long long)plan->input_invocations);
    if (e->bound > 0)
        printf("%.3g%% at %.3g%% confidence\n", e->bound * 100, plan->params.confidence * 100);
    else
        printf("none\n");
    printf("results: %zu launches from %zu source(s); kernels matched %s\n", r->row_count,
           r->source_count,
           run_folder                            ? "by each job's list in the run manifest"
           : cr->read.uid_mode == KS_UID_TRACE ? "by the trace file each names"
           : cr->read.uid_mode == KS_UID_MAP   ? "by the uid map"
           : cr->read.uid_mode == KS_UID_BASE  ? "as id = uid - base"
                                               : "to the sampled ids in order");
    printf("warm-up: %s%s\n", warmup,
           strcmp(warmup, "unknown") == 0
               ? " (how the values were simulated is not recorded: give --warmup)"
           : strcmp(warmup, "none") == 0 ? " (each launch simulated from cold caches)"
                                         : "");
    if (r->warmup_blocks)
        printf("warm-up kernels read and left out: %zu\n", r->warmup_blocks);
    size_t single = 0;
    for (size_t i = 0; i < e->count; i++)
        single = e->metrics[i].single_strata > single ? e->metrics[i].single_strata : single;
    if (single)
        printf("clusters with one sample: %zu; their variance %s\n", single,
               cr->single == KS_SINGLE_COLLAPSE
                   ? "pools each with the nearest cluster of its kernel group, in units "
                     "of their profiled means (collapsed strata)"
                   : "borrows the profile's coefficient of variation");
    if (e->skipped)
        printf("metrics not reported for every sample, left out: %zu\n", e->skipped);
    printf("%-40s %15s %15s %15s %9s  %s\n", "metric", "estimate", "ci_low", "ci_high",
           "+-rel", "bound");
    size_t corrected = 0;
    for (size_t i = 0; i < e->count; i++) {
        const ks_metric_estimate *m = &e->metrics[i];
        printf("%-40s %15.6g %15.6g %15.6g %8.3f%%  %s%s\n", m->name, m->estimate, m->ci_low,
               m->ci_high, m->rel_halfwidth * 100,
               m->bound_met < 0 ? "-" : m->bound_met ? "met" : "NOT met",
               m->pilot ? "  (pilot-corrected)" : "");
        if (m->pilot && !corrected++)
            printf("  corrected for cold start by a pilot of %zu launches: warm / cold = %.4g "
                   "pooled\n",
                   m->pilot, m->pilot_ratio);
    }
}

typedef struct estimate_run {
    cli_results *cr;
    ks_estimate_options *eo;
    bool json;
    const char *plan_path;
    const char *pilot;
    bool run_folder;
} estimate_run;

static int estimate_with(const ks_plan *plan, const ks_results *r, void *ctx)
{
    const estimate_run *a = ctx;
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
    ks_estimate e;
    ks_status st = ks_estimate_compute(plan, r, a->eo, &e, &err);
    ks_results_free(&pilot);
    a->eo->pilot = NULL;
    if (st != KS_OK)
        return cli_fail(&err);
    if (a->json)
        print_json(&e, a->cr->single, warmup_of(r));
    else
        print_text(plan, r, a->cr, &e, a->run_folder);
    ks_estimate_free(&e);
    return 0;
}

int cmd_estimate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},          {"metric", required_argument, NULL, 'm'},
        {"ratio", required_argument, NULL, 'r'},   {"epsilon", required_argument, NULL, 'e'},
        {"pilot", required_argument, NULL, 'p'},   {"warmup", required_argument, NULL, 'w'},
        {"help", no_argument, NULL, 'h'},          CLI_RESULTS_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    cli_results cr;
    cli_results_init(&cr);
    ks_estimate_options eo;
    ks_estimate_options_init(&eo);
    const char **metrics = calloc((size_t)argc + 1, sizeof *metrics);
    const char **ratios = calloc((size_t)argc + 1, sizeof *ratios);
    bool json = false;
    const char *pilot = NULL;
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
        case 'w': {
            ks_error werr;
            ks_error_clear(&werr);
            if (ks_warmup_parse(optarg, &warmup, &werr) != KS_OK)
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
        }
    }
    if (rc == 0 && l.exit >= 0)
        rc = l.exit ? l.exit : -1; /* -1: --help, nothing to run */
    if (rc == 0 && argc - optind < 2)
        rc = cli_usage_error("estimate", "expected a plan and at least one results file");
    eo.metrics = metrics;
    eo.ratios = ratios;
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
            &(estimate_run){&cr, &eo, json, argv[optind], pilot, run_folder});
    free(metrics);
    free(ratios);
    return rc < 0 ? 0 : rc;
}
