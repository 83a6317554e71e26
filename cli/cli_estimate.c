/* cli_estimate.c - what `ksample estimate` (cmd_estimate.c) prints of an
 * estimate: the table and the notes under it (the plan, the results, the
 * cost, the estimator, the exact totals, what the intervals stand for), or
 * the JSON array. */
#include "cli_estimate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

void cli_estimate_print_json(const ks_plan *plan, const ks_results *r, const ks_estimate *e,
                             ks_single_mode single, const char *fit, const char *auxiliary,
                             const char *warmup)
{
    est_cost cost;
    measure_cost(r, e, &cost);
    printf("[");
    for (size_t i = 0; i < e->count; i++) {
        const ks_metric_estimate *m = &e->metrics[i];
        printf("%s\n  {\"metric\": ", i ? "," : "");
        cli_json_string(m->name);
        cli_json_text_field("warmup", warmup);
        printf(", \"pilot\": %zu", m->pilot);
        cli_json_field_exact("estimate", m->estimate);
        cli_json_field_exact("ci_low", m->ci_low);
        cli_json_field_exact("ci_high", m->ci_high);
        cli_json_field_exact("rel_halfwidth", m->rel_halfwidth);
        cli_json_claim_fields(m->claim, m->claim_why);
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
        if (isfinite(m->borrowed_share)) {
            cli_json_field_exact("variance_borrowed_share", m->borrowed_share);
            printf(", \"variance_by_kernel\": [");
            for (size_t q = 0; q < m->top_count; q++) {
                uint32_t g = m->top_group[q];
                printf("%s{\"kernel\": ", q ? ", " : "");
                cli_json_string(g < plan->group_count ? plan->group_labels[g] : "");
                cli_json_field_exact("share", m->top_share[q]);
                printf(", \"own_strata\": %s}", m->top_own[q] ? "true" : "false");
            }
            printf("]");
        }
        json_estimator(m, fit, auxiliary);
        json_unsimulated(plan);
        json_cost(plan, &cost);
        printf("}");
    }
    printf("\n]\n");
}

/* Where the first default total's variance is: its largest kernel groups
 * and the share in groups with no stratum of two or more simulated
 * launches (their spread borrowed from other strata). */
static void print_variance_sources(const ks_plan *plan, const ks_estimate *e)
{
    const ks_metric_estimate *m = NULL;
    for (size_t i = 0; i < e->count && !m; i++)
        if (e->metrics[i].shown && e->metrics[i].top_count &&
            isfinite(e->metrics[i].borrowed_share) && isfinite(e->metrics[i].ci_low))
            m = &e->metrics[i];
    if (!m)
        return;
    printf("variance of %s:", m->name);
    for (size_t r = 0; r < m->top_count; r++) {
        uint32_t g = m->top_group[r];
        const char *label = g < plan->group_count ? plan->group_labels[g] : "(no group)";
        int len = (int)strlen(label);
        printf("%s %.0f%% %.*s%s%s", r ? "," : "", 100 * m->top_share[r], len > 48 ? 45 : len,
               label, len > 48 ? "..." : "", m->top_own[r] ? "" : " (borrowed)");
    }
    printf("; %.0f%% of it in kernels with no stratum of two or more simulated launches, "
           "whose spread is borrowed from other strata\n",
           100 * m->borrowed_share);
}

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
    cli_said said = {0};
    bool full = false;
    for (size_t i = 0; i < e->count; i++) {
        const ks_metric_estimate *m = &e->metrics[i];
        if (m->exact) /* no interval: print_exact says what it is */
            continue;
        if (m->claim == KS_CLAIM_FULL_RUN) {
            full = true;
            continue;
        }
        if (cli_say_once(&said, m->claim_why))
            printf("%s: %s\n",
                   m->claim == KS_CLAIM_NONE ? "no interval" : "interval of the values only",
                   m->claim_why);
    }
    if (full && !said.count)
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

void cli_estimate_print_text(const ks_plan *plan, const ks_results *r, const cli_results *cr,
                             const ks_estimate *e, bool run_folder, const char *fit,
                             const char *auxiliary, const ks_known *known,
                             const char *known_cache, const char *warmup)
{
    print_table(e);
    printf("\n");
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
           : strcmp(warmup, "context") == 0 && strcmp(ks_results_warmup(r), "unknown") == 0
               ? " (--uid-base: the whole program simulated in order)"
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
    print_variance_sources(plan, e);
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
