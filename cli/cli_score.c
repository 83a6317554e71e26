/* cli_score.c - `ksample score`'s output: the summary table (one row per
 * method, a column per set of values and estimator), the JSON that `report
 * --score` reads, and the rows of every plan (cmd_score.c computes them). */
#include "cli_score.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t column_count(const columns *c)
{
    return c->set_count * (c->est_count ? c->est_count : 1);
}

static const char *column_set(const columns *c, size_t i)
{
    return c->sets[i / (c->est_count ? c->est_count : 1)].name;
}

static const char *column_estimator(const columns *c, size_t i)
{
    return c->est_count ? ks_estimator_name(c->est[i % c->est_count]) : "plain";
}

void cli_score_print_summary(const ks_score_result *res, size_t count, const columns *cols,
                             double truth, bool rounds)
{
    printf("truth: %.17g cycles in the full run\n\n", truth);
    /* columns as wide as their widest entry (since-same:16:2 is 15) */
    int mw = 8, vw = 14;
    for (size_t k = 0; k < count; k++)
        if ((int)strlen(res[k].method) > mw)
            mw = (int)strlen(res[k].method);
    for (size_t s = 0; s < column_count(cols); s++)
        if ((int)strlen(column_set(cols, s)) > vw)
            vw = (int)strlen(column_set(cols, s));
    printf("%-*s %-*s ", mw, "method", vw, "values");
    if (cols->est_count)
        printf("%-10s ", "estimator");
    printf("%9s %7s %9s %10s %10s %10s %9s %8s", "launches", "pilot", "speedup", "err mean",
           "err bias", "err max", "covered", "in bound");
    if (cols->est_count || rounds)
        printf(" %8s %8s %9s", "+-mean", "met", "met true");
    if (rounds)
        printf(" %6s", "rounds");
    printf("  %s\n", "interval");
    for (size_t k = 0; k < count; k++)
        for (size_t s = 0; s < column_count(cols); s++) {
            const ks_score_summary *m = &res[k].summary[s];
            printf("%-*s %-*s ", mw, res[k].method, vw, column_set(cols, s));
            if (cols->est_count)
                printf("%-10s ", column_estimator(cols, s));
            printf("%9.1f %7.1f %8.2fx %9.2f%% %+9.2f%% %9.2f%% %8.0f%% ", m->samples_mean,
                   m->pilot_mean, m->speedup_hmean, m->error_mean * 100,
                   m->error_signed_mean * 100, m->error_max * 100, m->coverage * 100);
            if (isnan(m->within_bound))
                printf("%8s", "-");
            else
                printf("%7.0f%%", m->within_bound * 100);
            if (cols->est_count || rounds) {
                printf(" %7.2f%% %7.0f%%", m->halfwidth_mean * 100, m->met * 100);
                if (isnan(m->met_true))
                    printf(" %9s", "-");
                else
                    printf(" %8.0f%%", m->met_true * 100);
            }
            if (rounds)
                printf(" %6.2f", m->rounds_mean);
            printf("  %s\n", m->claim == KS_CLAIM_FULL_RUN ? "full run"
                              : m->claim == KS_CLAIM_VALUES ? "values only"
                                                            : "none");
        }
    printf("\n%zu plans per method; bound %s; speedup = full-run cycles / cycles simulated "
           "(warm-up and pilot included), harmonic mean\n",
           count ? res[0].row_count : 0,
           count && res[0].bound > 0 ? "as the plans promise" : "none");
}

void cli_score_print_json(const ks_score_result *res, size_t count, const columns *cols,
                          double truth, size_t launches)
{
    printf("{\"truth\": %.17g, \"launches\": %zu, \"methods\": [", truth, launches);
    for (size_t k = 0; k < count; k++) {
        printf("%s\n  {\"method\": ", k ? "," : "");
        cli_json_string(res[k].method);
        cli_json_field("bound", res[k].bound);
        printf(", \"plans\": %zu, \"sets\": [", res[k].row_count);
        for (size_t s = 0; s < column_count(cols); s++) {
            const ks_score_summary *m = &res[k].summary[s];
            printf("%s\n    {\"values\": ", s ? "," : "");
            cli_json_string(column_set(cols, s));
            if (cols->est_count) {
                printf(", \"estimator\": ");
                cli_json_string(column_estimator(cols, s));
            }
            cli_json_field("launches_mean", m->samples_mean);
            cli_json_field("launches_max", m->samples_max);
            cli_json_field("pilot_mean", m->pilot_mean);
            cli_json_field("speedup_hmean", m->speedup_hmean);
            cli_json_field("error_mean", m->error_mean);
            cli_json_field("error_signed_mean", m->error_signed_mean);
            cli_json_field("error_max", m->error_max);
            cli_json_field("coverage", m->coverage);
            cli_json_field("within_bound", m->within_bound);
            cli_json_field("met", m->met);
            cli_json_field("met_true", m->met_true);
            cli_json_field("met_power", m->met_power);
            cli_json_field("error_p95", m->error_p95);
            cli_json_field("halfwidth_mean", m->halfwidth_mean);
            cli_json_field("refused", m->refused);
            cli_json_field("rounds_mean", m->rounds_mean);
            cli_json_claim_fields(m->claim, NULL);
            printf("}");
        }
        printf("]}");
    }
    printf("\n]}\n");
}

void cli_score_print_rows(const ks_score_result *res, size_t count, const columns *cols)
{
    printf("method,seed,launches,values,estimate,ci_low,ci_high,error,covered,cost,pilot%s\n",
           cols->est_count ? ",estimator,rounds" : "");
    for (size_t k = 0; k < count; k++)
        for (size_t i = 0; i < res[k].row_count; i++)
            for (size_t s = 0; s < column_count(cols); s++) {
                const ks_score_estimate *e = &res[k].rows[i].sets[s];
                printf("%s,%llu,%zu,%s,%.17g,%.17g,%.17g,%.17g,%d,%.17g,%zu", res[k].method,
                       (unsigned long long)res[k].rows[i].seed, e->samples,
                       column_set(cols, s), e->estimate, e->ci_low, e->ci_high, e->error,
                       e->covered, e->cost, e->pilot);
                if (cols->est_count)
                    printf(",%s,%u", column_estimator(cols, s), e->rounds);
                printf("\n");
            }
}

int cli_score_plan_from_match(ks_profile *p, const ks_profile *q, ks_match_mode mode,
                              const char *plan_from, bool quiet)
{
    /* another GPU's profile: each launch of the traces takes its partner's
     * duration; one without a partner has no duration to plan on, so it is
     * refused */
    ks_error err;
    ks_error_clear(&err);
    ks_match_stats ms;
    int rc = 0;
    int64_t *partner = malloc((p->n ? p->n : 1) * sizeof *partner);
    if (!partner)
        rc = cli_fail(&err);
    else if (ks_profile_match(p, q, mode, partner, &ms, &err) != KS_OK)
        rc = cli_fail(&err);
    else if (ms.p_only) {
        size_t first = 0;
        while (partner[first] >= 0)
            first++;
        fprintf(stderr,
                "ksample score: --plan-from %s: %zu of the traces' %zu launches pair with "
                "none of its launches (the first: launch %zu, %.200s): no duration to plan "
                "them on\n",
                plan_from, ms.p_only, p->n, first, ks_profile_name(p, first));
        rc = KS_ERR_FORMAT;
    } else {
        for (size_t i = 0; i < p->n; i++)
            p->duration_ns[i] = q->duration_ns[partner[i]];
        if (!quiet)
            fprintf(stderr,
                    "ksample: --plan-from %s: every launch paired by %s (%zu under another "
                    "name); %zu of its launches unpaired (%.4g ms), in no plan\n",
                    plan_from, mode == KS_MATCH_OP ? "operator" : "family", ms.renamed,
                    ms.q_only, ms.q_only_ns / 1e6);
    }
    free(partner);
    return rc;
}
