/* cmd_estimate.c - `ksample estimate`: whole-workload metrics from the
 * simulated samples, each with a confidence interval. */
#include "cli_results.h"
#include "cli_versus.h"

#include <math.h>
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

/* The estimator's own fields, when it is not the plain one. */
static void json_estimator(const ks_metric_estimate *m, const char *fit, const char *auxiliary)
{
    if (m->estimator == KS_ESTIMATOR_PLAIN)
        return;
    printf(", \"estimator\": ");
    cli_json_string(ks_estimator_name((ks_estimator)m->estimator));
    printf(", \"fit\": ");
    cli_json_string(fit);
    printf(", \"auxiliary\": ");
    cli_json_string(auxiliary);
    printf(", \"fits\": {\"ratio\": %zu, \"regression\": %zu, \"plain\": %zu, "
           "\"unstable\": %zu, \"biased\": %zu, \"departed\": %zu}",
           m->aux.ratio, m->aux.regression, m->aux.plain, m->aux.unstable, m->aux.biased,
           m->aux.departed);
    printf(", \"unstable\": ");
    cli_json_string(m->aux.unstable_labels);
    cli_json_field_exact("ratio_bias_removed", m->aux.bias);
    cli_json_field_exact("plain_estimate", m->aux.plain_estimate);
}

/* What the simulation cost against the whole program (issue 38): the
 * first count's values at the simulated launches over its estimated total,
 * what the profile predicted when the plan was made, and where the results
 * have run_cycles, what the runs cost with their warm-up kernels. */
typedef struct est_cost {
    const ks_metric_estimate *m; /* NULL: no cost to say */
    double share;                /* the simulated values over the estimate */
    cli_cost run;
    double run_share; /* every simulated cycle over the cycles' estimate; NAN */
} est_cost;

static void measure_cost(const ks_results *r, const ks_estimate *e, est_cost *c)
{
    *c = (est_cost){.share = NAN, .run_share = NAN};
    const ks_metric_estimate *m = NULL;
    for (size_t i = 0; i < e->count && !m; i++)
        if (!e->metrics[i].is_ratio && e->metrics[i].shown && e->metrics[i].estimate > 0)
            m = &e->metrics[i];
    long j = m ? ks_results_metric(r, m->name) : -1;
    if (j < 0)
        return;
    long double sum = 0;
    for (size_t row = 0; row < r->row_count; row++)
        if (isfinite(r->values[j][row]))
            sum += r->values[j][row];
    if (!(sum > 0))
        return;
    c->m = m;
    c->share = (double)(sum / m->estimate);
    cli_cost_measure(r, &c->run);
    for (size_t i = 0; i < e->count && c->run.cycles && isfinite(c->run.factor); i++)
        if (strcmp(e->metrics[i].name, c->run.cycles) == 0 && e->metrics[i].estimate > 0)
            c->run_share = c->run.run / e->metrics[i].estimate;
}

/* the warm-up kernels measurably added to the runs' cycles */
static bool warm_cost(const est_cost *c)
{
    return isfinite(c->run_share) && c->run.factor > 1.0005;
}

static void print_cost(const ks_plan *plan, const est_cost *c, const char *warmup)
{
    if (!c->m)
        return;
    double s = plan->predicted_speedup;
    printf("cost: the simulated launches' %s adds up to %.3g%% of its estimated total "
           "(%.3gx cheaper than simulating every launch",
           c->m->name, c->share * 100, 1 / c->share);
    if (isfinite(s) && s > 0)
        printf("; the profile predicted %.3gx", s);
    bool kernels = strcmp(warmup, "context") != 0 && strcmp(warmup, "none") != 0 &&
                   strcmp(warmup, "unknown") != 0;
    if (kernels && !warm_cost(c))
        printf("; the warm-up kernels' own cost not counted");
    double dear = warm_cost(c) ? c->run_share : c->share;
    printf(")%s\n", dear > 0.5 && !warm_cost(c)
                        ? ": simulating every launch costs at most twice as much"
                        : "");
    if (warm_cost(c))
        printf("cost with the warm-up: the runs simulated %.3g%% of the estimated %s total "
               "(%.3gx cheaper), %.3gx the launches' own cycles (run_cycles: every cycle of "
               "each simulator process)%s\n",
               c->run_share * 100, c->run.cycles, 1 / c->run_share, c->run.factor,
               dear > 0.5 ? ": simulating every launch costs at most twice as much" : "");
}

/* `, "cost": {...}`: the same figures for a program */
static void json_cost(const ks_plan *plan, const est_cost *c)
{
    if (!c->m)
        return;
    printf(", \"cost\": {\"of\": ");
    cli_json_string(c->m->name);
    cli_json_field_exact("share", c->share);
    cli_json_field_exact("predicted_speedup", isfinite(plan->predicted_speedup) &&
                                                      plan->predicted_speedup > 0
                                                  ? plan->predicted_speedup
                                                  : NAN);
    printf(", \"cycles\": ");
    if (c->run.cycles)
        cli_json_string(c->run.cycles);
    else
        printf("null");
    cli_json_field_exact("share_with_warmup", c->run_share);
    cli_json_field_exact("warmup_factor", isfinite(c->run_share) ? c->run.factor : NAN);
    printf("}");
}

/* The plan's known, unsimulated part (communication kernels left out),
 * as `, "unsimulated": {...}` (nothing when none): what the estimate's
 * total does not contain, measured by the profile (docs/llm.md). */
static void json_unsimulated(const ks_plan *plan)
{
    if (!plan->unsim_what[0])
        return;
    printf(", \"unsimulated\": {\"what\": ");
    cli_json_string(plan->unsim_what);
    printf(", \"launches\": %llu", (unsigned long long)plan->unsim_launches);
    cli_json_field_exact("time_ns", plan->unsim_ns);
    cli_json_field_exact("share", plan->unsim_share);
    if (isfinite(plan->unsim_overlap_ns))
        cli_json_field_exact("overlap_ns", plan->unsim_overlap_ns);
    else
        printf(", \"overlap_ns\": null");
    printf(", \"kernels\": ");
    cli_json_string(plan->unsim_kernels);
    printf("}");
}

static void print_json(const ks_plan *plan, const ks_estimate *e, ks_single_mode single,
                       const char *warmup, const char *fit, const char *auxiliary,
                       const est_cost *cost)
{
    printf("[");
    for (size_t i = 0; i < e->count; i++) {
        const ks_metric_estimate *m = &e->metrics[i];
        printf("%s\n  {\"metric\": ", i ? "," : "");
        cli_json_string(m->name);
        printf(", \"warmup\": ");
        cli_json_string(warmup);
        printf(", \"pilot\": %zu", m->pilot);
        cli_json_field_exact("estimate", m->estimate);
        cli_json_field_exact("ci_low", m->ci_low);
        cli_json_field_exact("ci_high", m->ci_high);
        cli_json_field_exact("rel_halfwidth", m->rel_halfwidth);
        printf(", \"interval\": ");
        cli_json_string(cli_claim_name(m->claim));
        if (m->claim != KS_CLAIM_FULL_RUN) {
            printf(", \"interval_note\": ");
            cli_json_string(m->claim_why);
        }
        if (!m->is_ratio && m->variance > 0 && isfinite(m->profile_variance)) {
            cli_json_field_exact("variance_beyond_profile",
                             fmax(0, 1 - m->profile_variance / m->variance));
            cli_json_field_exact("profile_rel_halfwidth", m->profile_rel_halfwidth);
        }
        printf(", \"kind\": ");
        cli_json_string(m->is_ratio ? "rate" : ks_stat_kind_name((ks_stat_kind)m->kind));
        printf(", \"default\": %s", m->shown ? "true" : "false");
        printf(", \"bound_met\": %s, \"ratio\": %s, \"single_sample_strata\": %zu, "
               "\"single_sample\": \"%s\"",
               m->bound_met < 0 ? "null" : m->bound_met ? "true" : "false",
               m->is_ratio ? "true" : "false", m->single_strata,
               ks_single_mode_name(single));
        printf(", \"exact\": %s", m->exact ? "true" : "false");
        if (m->exact == 1)
            cli_json_field_exact("sampled_estimate", m->sampled_estimate);
        if (m->exact_part) {
            printf(", \"exact_part\": ");
            cli_json_string(m->exact_part == 1 ? "numerator" : "denominator");
        }
        if (m->known_note[0]) {
            printf(", \"exact_note\": ");
            cli_json_string(m->known_note);
        }
        json_estimator(m, fit, auxiliary);
        json_unsimulated(plan);
        json_cost(plan, cost);
        printf("}");
    }
    printf("\n]\n");
}

/* The warm-up mode of the values: every source's, "mixed" when they
 * differ, "unknown" when none says. */
static const char *warmup_of(const ks_results *r) { return ks_results_warmup(r); }

/* What the auxiliary estimator did, once per estimate (every metric shares
 * the fit groups; the first metric's choices are printed, the others' when
 * they differ). */
static void print_estimator(const ks_estimate *e, const char *fit, const char *auxiliary)
{
    const ks_metric_estimate *prev = NULL;
    for (size_t i = 0; i < e->count; i++) {
        const ks_metric_estimate *m = &e->metrics[i];
        if (m->estimator == KS_ESTIMATOR_PLAIN)
            continue;
        if (!prev)
            printf("estimator: %s, one fit per %s, auxiliary: the profile's %s\n",
                   ks_estimator_name((ks_estimator)m->estimator),
                   strcmp(fit, "all") == 0 ? "plan" : fit, auxiliary);
        if (prev && prev->aux.ratio == m->aux.ratio &&
            prev->aux.regression == m->aux.regression && prev->aux.plain == m->aux.plain &&
            strcmp(prev->aux.unstable_labels, m->aux.unstable_labels) == 0)
            continue;
        printf("  %s: ratio in %zu, regression in %zu, plain in %zu of %zu fit groups", m->name,
               m->aux.ratio, m->aux.regression, m->aux.plain, m->aux.fits);
        if (m->aux.bias != 0)
            printf("; the ratio's first-order bias removed: %.4g", m->aux.bias);
        printf("\n");
        if (m->aux.unstable)
            printf("    its values do not follow the profile in %zu group%s (plain there): %s\n",
                   m->aux.unstable, m->aux.unstable == 1 ? "" : "s", m->aux.unstable_labels);
        if (m->aux.biased)
            printf("    ratio refused in %zu group%s: too few samples for its bias to be small\n",
                   m->aux.biased, m->aux.biased == 1 ? "" : "s");
        if (m->aux.departed)
            printf("    departs from the plain total in %zu group%s beyond their spread (a "
                   "bias): its square is in the interval: %s\n",
                   m->aux.departed, m->aux.departed == 1 ? "" : "s", m->aux.departed_labels);
        prev = m;
    }
}

/* What the intervals stand for (once per distinct reason), and how much of
 * the first total's width comes from the values departing from the profile
 * the plan was sized with. */
static void print_claims(const ks_plan *plan, const ks_estimate *e)
{
    const char *said[8];
    size_t n_said = 0;
    bool full = false;
    for (size_t i = 0; i < e->count; i++) {
        const ks_metric_estimate *m = &e->metrics[i];
        if (m->exact) /* no interval: print_exact says what it is */
            continue;
        if (m->claim == KS_CLAIM_FULL_RUN) {
            full = true;
            continue;
        }
        bool seen = false;
        for (size_t k = 0; k < n_said; k++)
            seen = seen || strcmp(said[k], m->claim_why) == 0;
        if (seen || n_said == 8)
            continue;
        said[n_said++] = m->claim_why;
        printf("%s: %s\n", m->claim == KS_CLAIM_NONE ? "no interval" : "interval of the values only",
               m->claim_why);
    }
    if (full && !n_said)
        printf("intervals: of the full run's total (the values were simulated in context)\n");
    for (size_t i = 0; i < e->count; i++) {
        const ks_metric_estimate *m = &e->metrics[i];
        if (m->is_ratio || !(m->variance > 0) || !isfinite(m->profile_variance) ||
            m->claim == KS_CLAIM_NONE)
            continue;
        double share = 1 - m->profile_variance / m->variance;
        if (share > 0.05) {
            printf("%s: +-%.3g %% where values following the profile would give +-%.3g %%",
                   m->name, m->rel_halfwidth * 100, m->profile_rel_halfwidth * 100);
            if (plan->predicted && isfinite(plan->predicted_halfwidth))
                printf(" (the plan's prediction: +-%.3g %%)", plan->predicted_halfwidth * 100);
            printf(": %.0f %% of its variance comes from the values disagreeing with the "
                   "profile; refine sizes for the values as they are\n",
                   share * 100);
        }
        break;
    }
}

/* One row of the table: counts as integers with thousands separators,
 * rates and statistics of unknown kind with 6 significant digits. */
static const char *table_number(char *buf, size_t size, const ks_metric_estimate *m, double x)
{
    if (!m->is_ratio && !m->kind_assumed)
        return cli_count(buf, size, x);
    snprintf(buf, size, "%.6g", x);
    return buf;
}

static void print_table(const ks_estimate *e)
{
    printf("%-40s %-6s %15s %15s %15s %9s  %s\n", "metric", "kind", "estimate", "ci_low",
           "ci_high", "+-rel", "bound");
    for (size_t i = 0; i < e->count; i++) {
        const ks_metric_estimate *m = &e->metrics[i];
        char est[48], lo[48], hi[48];
        table_number(est, sizeof est, m, m->estimate);
        if (m->exact) {
            printf("%-40s %-6s %15s %15s %15s %9s  %s\n", m->name,
                   m->is_ratio ? "rate" : "count", est, "-", "-", "exact",
                   "exact, from the traces");
            continue;
        }
        if (m->claim == KS_CLAIM_NONE) {
            printf("%-40s %-6s %15s %15s %15s %9s  %s\n", m->name,
                   m->is_ratio ? "rate" : m->kind_assumed ? "?" : "count", est, "-", "-", "-",
                   "no interval");
            continue;
        }
        char rel[32] = "      n/a"; /* a zero estimate: no relative error */
        if (!isnan(m->rel_halfwidth))
            snprintf(rel, sizeof rel, "%8.3f%%", m->rel_halfwidth * 100);
        printf("%-40s %-6s %15s %15s %15s %9s  %s%s%s\n", m->name,
               m->is_ratio ? "rate" : m->kind_assumed ? "?" : "count", est,
               table_number(lo, sizeof lo, m, m->ci_low),
               table_number(hi, sizeof hi, m, m->ci_high), rel,
               m->bound_met < 0          ? "-"
               : m->bound_met            ? "met"
               : isnan(m->rel_halfwidth) ? "NOT met (an estimate of 0 has no relative error)"
                                         : "NOT met",
               m->pilot ? "  (pilot-corrected)" : "",
               m->kind_assumed ? "  (kind unknown: summed as a per-kernel count)" : "");
    }
}

/* Which totals are exact, where from and what counting them cost; the
 * rates with one exact part; the counts the traces hold that were estimated
 * after all, and why. */
static void print_exact(const ks_plan *plan, const ks_estimate *e, const ks_known *known,
                        const char *cache)
{
    if (!known)
        return;
    char c1[32], c2[32], typed[4096];
    if (known->metric_count == 0) {
        printf("instruction totals: estimated: the trace folder %s holds %s launches, the "
               "plan's profile %s; exact totals need every launch's trace\n",
               cli_as_typed(known->traces, typed, sizeof typed),
               cli_count_u64(c1, sizeof c1, known->launch_count),
               cli_count_u64(c2, sizeof c2, plan->input_invocations));
        return;
    }
    char names[400] = "";
    size_t n = 0;
    for (size_t i = 0; i < e->count; i++)
        if (e->metrics[i].exact == 1) {
            size_t len = strlen(names);
            snprintf(names + len, sizeof names - len, "%s%s", n ? ", " : "",
                     e->metrics[i].name);
            n++;
        }
    if (n) {
        printf("exact, from the traces: %s: %s's counts of all %s launches of %s", names,
               known->simulator, cli_count_u64(c1, sizeof c1, known->launch_count),
               cli_as_typed(known->traces, typed, sizeof typed));
        double mb = (double)known->bytes_read / 1e6;
        if (known->bytes_read && mb >= 10)
            printf(" (%s MB of traces read in %.1f s", cli_count(c2, sizeof c2, mb),
                   known->seconds);
        else if (known->bytes_read)
            printf(" (%.3g MB of traces read in %.2f s", mb, known->seconds);
        if (known->bytes_read && known->cached)
            printf("; %zu launches from %s)", known->cached, cache);
        else if (known->bytes_read)
            printf(")");
        else if (known->cached)
            printf(" (from %s)", cache);
        printf("; every sampled launch's value is its trace's count\n");
    }
    for (size_t i = 0; i < e->count; i++) {
        const ks_metric_estimate *m = &e->metrics[i];
        if (m->exact_part) {
            ks_stat_info info = ks_stat_info_of(m->name);
            const char *num = info.numerator ? info.numerator : "its numerator";
            const char *den = info.denominator ? info.denominator : "its denominator";
            printf("%s: the traces' exact %s over the estimated %s; its interval is %s's "
                   "alone\n",
                   m->name, m->exact_part == 1 ? num : den, m->exact_part == 1 ? den : num,
                   m->exact_part == 1 ? den : num);
        }
        if (m->known_note[0])
            printf("%s: estimated, not taken from the traces: %s\n", m->name, m->known_note);
    }
}

/* The table first, then what it rests on: the plan, the results, the
 * warm-up, what was left out, the estimator, what the intervals stand for. */
static void print_text(const ks_plan *plan, const ks_results *r, const cli_results *cr,
                       const ks_estimate *e, bool run_folder, const char *fit,
                       const char *auxiliary, const ks_known *known, const char *known_cache)
{
    print_table(e);
    printf("\n");
    const char *warmup = warmup_of(r);
    char n1[32], n2[32];
    printf("plan: %s, %s samples of %s launches; bound ", plan->method,
           cli_count_u64(n1, sizeof n1, plan->sample_count),
           cli_count_u64(n2, sizeof n2, plan->input_invocations));
    if (e->bound > 0)
        printf("%.3g%% at %.3g%% confidence\n", e->bound * 100, plan->params.confidence * 100);
    else
        printf("none\n");
    est_cost cost;
    measure_cost(r, e, &cost);
    print_cost(plan, &cost, warmup);
    printf("results: %s launches from %zu source%s; kernels matched %s\n",
           cli_count_u64(n1, sizeof n1, r->row_count), r->source_count,
           r->source_count == 1 ? "" : "s",
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
               ks_single_mode_of(plan, cr->single) == KS_SINGLE_CALIBRATE
                   ? "is the profile's spread in the values' units, times the factor the "
                     "clusters of two or more samples measure (calibrated profile model)"
               : ks_single_mode_of(plan, cr->single) == KS_SINGLE_COLLAPSE
                   ? "pools each with the nearest cluster of its kernel group, in units "
                     "of their profiled means (collapsed strata)"
                   : "borrows the profile's coefficient of variation");
    if (e->skipped)
        printf("metrics not reported for every sample, left out: %zu\n", e->skipped);
    if (e->zero)
        printf("counts that are 0 at every sample, left out: %zu\n", e->zero);
    if (e->more)
        printf("not shown: %zu more counts and rates (--metrics all)\n", e->more);
    if (e->not_additive)
        printf("not estimated: %zu rates without their parts, extremes, averages and "
               "per-channel tables (they do not add up over launches)\n",
               e->not_additive);
    if (e->unknown)
        printf("not estimated: %zu statistics of unknown kind (--metric NAME sums one as a "
               "per-kernel count)\n",
               e->unknown);
    for (size_t i = 0; i < e->count; i++)
        if (e->metrics[i].pilot) {
            printf("pilot-corrected: for cold start, by a pilot of %zu launches: warm / cold "
                   "= %.4g pooled\n",
                   e->metrics[i].pilot, e->metrics[i].pilot_ratio);
            break;
        }
    print_estimator(e, fit, auxiliary);
    print_exact(plan, e, known, known_cache);
    print_claims(plan, e);
    /* what the plan left out and the profile measured (lib/plan/unsimulated.c) */
    if (plan->selection[0])
        printf("selection: %s (%llu of the program's %llu launches): the totals are of these "
               "launches\n",
               plan->selection, (unsigned long long)plan->selected,
               (unsigned long long)plan->input_invocations);
    ks_plan_print_unsimulated(plan, stdout, "");
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

/* The trace folder the values were simulated from: --traces, else the
 * first run folder's manifest's; NULL when neither says.  *cache: the run
 * folder's trace-counts.csv (NULL without a run folder). */
static const char *traces_of(const estimate_run *a, char *trace_buf, size_t trace_size,
                             char *cache, size_t cache_size, const char **cache_out)
{
    *cache_out = NULL;
    const char *traces = a->cr->read.traces;
    for (int i = 0; i < a->path_count; i++) {
        struct stat sb;
        if (stat(a->paths[i], &sb) != 0 || !S_ISDIR(sb.st_mode))
            continue;
        char mpath[4096];
        snprintf(mpath, sizeof mpath, "%s/manifest.json", a->paths[i]);
        ks_run_manifest m;
        ks_error err;
        ks_error_clear(&err);
        if (ks_run_manifest_read(mpath, &m, &err) != KS_OK)
            continue;
        if (!traces && m.traces) {
            snprintf(trace_buf, trace_size, "%s", m.traces);
            traces = trace_buf;
        }
        bool same = m.traces && traces && strcmp(m.traces, traces) == 0;
        ks_run_manifest_free(&m);
        if (same && !*cache_out) {
            snprintf(cache, cache_size, "%s/trace-counts.csv", a->paths[i]);
            *cache_out = cache;
        }
    }
    return traces;
}

static void csv_field(const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

typedef struct id_row {
    uint64_t id;
    size_t row;
} id_row;

static int cmp_row(const void *a, const void *b)
{
    uint64_t x = ((const id_row *)a)->id, y = ((const id_row *)b)->id;
    return (x > y) - (x < y);
}

/* v as a results CSV holds it: a whole number as its digits (a count of
 * 12345678901234567168, never 1.2345678901234567e+19, which a results CSV
 * refuses), any other with 17 significant digits and no exponent either. */
static void print_plain(double v)
{
    if (v == floor(v) && fabs(v) <= 18446744073709551616.0) {
        /* 2^64 is the double of a count of 2^64 - 1 (or just below): the
         * largest count a CSV takes */
        if (v == 18446744073709551616.0)
            printf("18446744073709551615");
        else
            printf("%.0f", v);
        return;
    }
    int exp10 = v != 0 ? (int)floor(log10(fabs(v))) : 0;
    int decimals = 16 - exp10;
    printf("%.*f", decimals < 0 ? 0 : decimals > 340 ? 340 : decimals, v);
}

/* The results table as the CSV ks_results_read reads back: every value
 * with all its digits, empty where a launch has none. */
static int print_values(const ks_results *r)
{
    id_row *order = malloc((r->row_count ? r->row_count : 1) * sizeof *order);
    if (!order)
        return KS_ERR_NOMEM;
    for (size_t i = 0; i < r->row_count; i++)
        order[i] = (id_row){r->ids[i], i};
    qsort(order, r->row_count, sizeof *order, cmp_row);
    printf("id");
    for (size_t m = 0; m < r->metric_count; m++) {
        putchar(',');
        csv_field(r->metrics[m]);
    }
    putchar('\n');
    for (size_t k = 0; k < r->row_count; k++) {
        size_t i = order[k].row;
        printf("%llu", (unsigned long long)r->ids[i]);
        for (size_t m = 0; m < r->metric_count; m++)
            if (isnan(r->values[m][i])) {
                printf(",");
            } else {
                putchar(',');
                print_plain(r->values[m][i]);
            }
        putchar('\n');
    }
    free(order);
    return 0;
}

/* The traces' counts as columns of the plan's profile, for --auxiliary:
 * trace_insts (thread instructions, gpu_sim_insn's; MacSim: INST_COUNT_TOT's)
 * and trace_warp_insts (Accel-Sim's lines); nothing when the profile is not
 * of the traces' launch count. */
static ks_status add_trace_columns(ks_profile *p, const ks_known *k, ks_error *err)
{
    if (!p || p->n != k->launch_count)
        return KS_OK;
    const char *from[2] = {k->metric_count > 1 ? "gpu_sim_insn" : "INST_COUNT_TOT",
                           "gpgpu_n_tot_w_icount"};
    const char *name[2] = {"trace_insts", "trace_warp_insts"};
    for (size_t c = 0; c < 2; c++) {
        long m = ks_known_metric(k, from[c]);
        if (m < 0)
            continue;
        ks_metric_column *col;
        ks_status st = ks_profile_metric(p, name[c], &col, err);
        if (st != KS_OK)
            return st;
        for (size_t i = 0; i < p->n; i++)
            col->values[i] = (double)k->values[m][i];
    }
    return KS_OK;
}

static int estimate_with(const ks_plan *plan, const ks_results *r, void *ctx)
{
    const estimate_run *a = ctx;
    if (a->values)
        return print_values(r);
    if (a->versus->count) { /* B over A, plain totals (cli_versus.c) */
        const char *warmup = warmup_of(r);
        if (strcmp(warmup, "unknown") == 0 && a->cr->read.uid_mode == KS_UID_BASE)
            warmup = "context";
        a->eo->single = a->cr->single;
        a->eo->estimator = KS_ESTIMATOR_PLAIN;
        return cli_versus_run(a->versus, a->cr, a->plan_path, plan, r, a->path_count, a->eo,
                              warmup, a->json);
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
                             : traces_of(a, trace_buf, sizeof trace_buf, cache_buf,
                                         sizeof cache_buf, &cache);
    ks_known known;
    bool have_known = false;
    if (traces) {
        ks_error kerr;
        ks_error_clear(&kerr);
        if (ks_known_read(traces, cache, plan->input_invocations, &known, &kerr) == KS_OK) {
            have_known = true;
            a->eo->known = a->no_exact ? NULL : &known;
            if (add_trace_columns(a->cr->profile, &known, &kerr) != KS_OK) {
                ks_known_free(&known);
                ks_results_free(&pilot);
                a->eo->pilot = NULL;
                a->eo->known = NULL;
                return cli_fail(&kerr);
            }
        } else {
            char why[1200];
            ks_error_format(&kerr, why, sizeof why);
            fprintf(stderr, "ksample estimate: note: the traces' instruction counts could not "
                            "be read, so they are estimated: %s\n",
                    why);
        }
    }
    double *x = NULL, *total = NULL;
    ks_auxiliary aux = {0};
    if (a->eo->estimator != KS_ESTIMATOR_PLAIN) {
        int rc = cli_auxiliary(plan, a->cr, auxiliary, &x, &total);
        if (rc) {
            free(x);
            free(total);
            ks_results_free(&pilot);
            a->eo->pilot = NULL;
            a->eo->known = NULL;
            if (have_known)
                ks_known_free(&known);
            return rc;
        }
        aux = (ks_auxiliary){x, total};
        a->eo->aux = &aux;
    }
    /* what the intervals stand for: the warm-up the values were simulated
     * with; a whole program simulated (--uid-base) is in context */
    const char *warmup = warmup_of(r);
    if (strcmp(warmup, "unknown") == 0 && a->cr->read.uid_mode == KS_UID_BASE)
        warmup = "context";
    a->eo->warmup = warmup;
    a->eo->profile = a->cr->profile;
    ks_estimate e;
    ks_status st = ks_estimate_compute(plan, r, a->eo, &e, &err);
    a->eo->known = NULL;
    ks_results_free(&pilot);
    a->eo->pilot = NULL;
    a->eo->aux = NULL;
    free(x);
    free(total);
    if (st != KS_OK) {
        if (have_known)
            ks_known_free(&known);
        return cli_fail(&err);
    }
    const char *fit = ks_estimator_fit_name(a->eo->fit);
    if (a->json) {
        est_cost cost;
        measure_cost(r, &e, &cost);
        print_json(plan, &e, ks_single_mode_of(plan, a->cr->single), warmup_of(r), fit,
                   auxiliary, &cost);
    } else
        print_text(plan, r, a->cr, &e, a->run_folder, fit, auxiliary,
                   have_known && !a->no_exact ? &known : NULL, cache);
    ks_estimate_free(&e);
    if (have_known)
        ks_known_free(&known);
    return 0;
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
