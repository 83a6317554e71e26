/* cli_versus.c - `ksample estimate PLAN RESULTS... --versus RESULTS_B`:
 * reads configuration B's results as A's were read, compares each metric
 * (ks_versus_compute) and prints B over A with its interval. */
#include "cli_versus.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_versus_add(cli_versus *v, const char *path)
{
    if (v->count == CLI_MAX_VERSUS)
        return cli_usage_error("estimate", "--versus: at most %d results", CLI_MAX_VERSUS);
    v->paths[v->count++] = (char *)path;
    return 0;
}

int cli_versus_split_maps(cli_versus *v, cli_results *cr, int a_count)
{
    v->map_total = cr->map_count;
    if (cr->map_count <= 1)
        return 0;
    if (cr->map_count != a_count + v->count) {
        fprintf(stderr,
                "ksample estimate: %d --uid-map for %d results and %d --versus results: give "
                "one, or one each (A's first, then B's)\n",
                cr->map_count, a_count, v->count);
        return KS_ERR_USAGE;
    }
    cr->map_count = a_count;
    return 0;
}

static void print_json(const ks_versus *v, const char *warmup_a, const char *warmup_b)
{
    printf("[");
    for (size_t i = 0; i < v->count; i++) {
        const ks_versus_row *r = &v->rows[i];
        printf("%s\n  {\"metric\": ", i ? "," : "");
        cli_json_string(r->name);
        cli_json_field_exact("ratio", r->ratio);
        cli_json_field_exact("ci_low", r->ci_low);
        cli_json_field_exact("ci_high", r->ci_high);
        cli_json_field_exact("rel_halfwidth", r->rel_halfwidth);
        cli_json_field_exact("variance", r->variance);
        cli_json_field_exact("df", r->df);
        cli_json_field_exact("estimate_a", r->estimate_a);
        cli_json_field_exact("estimate_b", r->estimate_b);
        cli_json_field_exact("rel_halfwidth_a", r->rel_halfwidth_a);
        cli_json_field_exact("rel_halfwidth_b", r->rel_halfwidth_b);
        printf(", \"bound_met\": %s",
               r->bound_met < 0 ? "null" : r->bound_met ? "true" : "false");
        printf(", \"kind\": ");
        cli_json_string(r->is_rate ? "rate" : ks_stat_kind_name((ks_stat_kind)r->kind));
        printf(", \"default\": %s, \"paired_launches\": %zu, \"single_sample_strata\": %zu",
               r->shown ? "true" : "false", v->launches, r->single_strata);
        cli_json_text_field("warmup_a", warmup_a);
        cli_json_text_field("warmup_b", warmup_b);
        cli_json_claim_fields(r->claim, r->claim_why);
        printf("}");
    }
    printf("\n]\n");
}

/* A side's total with its own relative half-width: "1,404,039 +-3.1%". */
static const char *side(char *buf, size_t size, const ks_versus_row *r, double x, double rel)
{
    char num[48];
    if (r->is_rate || r->kind == KS_STAT_UNKNOWN)
        snprintf(num, sizeof num, "%.6g", x);
    else
        cli_count(num, sizeof num, x);
    if (isnan(rel))
        snprintf(buf, size, "%s", num);
    else
        snprintf(buf, size, "%s +-%.3g%%", num, rel * 100);
    return buf;
}

static void print_text(const ks_plan *plan, const ks_versus *v, const char *warmup_a,
                       const char *warmup_b, int a_count, int b_count)
{
    printf("%-36s %10s %10s %10s %9s  %-7s  %24s  %24s\n", "metric", "B / A", "ci_low",
           "ci_high", "+-rel", "bound", "A's total", "B's total");
    for (size_t i = 0; i < v->count; i++) {
        const ks_versus_row *r = &v->rows[i];
        char a[64], b[64], lo[32] = "-", hi[32] = "-", rel[32] = "none";
        if (r->claim != KS_CLAIM_NONE) {
            snprintf(lo, sizeof lo, "%.6g", r->ci_low);
            snprintf(hi, sizeof hi, "%.6g", r->ci_high);
            snprintf(rel, sizeof rel, "%8.3f%%", r->rel_halfwidth * 100);
        }
        printf("%-36s %10.6g %10s %10s %9s  %-7s  %24s  %24s\n", r->name, r->ratio, lo, hi, rel,
               r->bound_met < 0 ? "-" : r->bound_met ? "met" : "NOT met",
               side(a, sizeof a, r, r->estimate_a, r->rel_halfwidth_a),
               side(b, sizeof b, r, r->estimate_b, r->rel_halfwidth_b));
    }
    printf("\n");
    char n1[32], n2[32];
    printf("paired: B (--versus: %d result%s) over A (%d result%s), the same %s sampled "
           "launches of the plan's %s (%s) simulated on both\n",
           b_count, b_count == 1 ? "" : "s", a_count, a_count == 1 ? "" : "s",
           cli_count_u64(n1, sizeof n1, v->launches),
           cli_count_u64(n2, sizeof n2, plan->input_invocations), plan->method);
    printf("interval: B's total over A's (ratio estimator), its variance that of each "
           "launch's y_B - R y_A in the plan's clusters, t at its degrees of freedom, %.3g%% "
           "confidence; in a kernel of fewer than 3 sampled launches, whose pairing nothing "
           "measures, the lesser of the profile's spread of B and A apart and the largest "
           "departure from R of any sampled launch\n",
           plan->params.confidence * 100);
    if (v->bound > 0)
        printf("bound: %.3g%% (the plan's, or --epsilon)\n", v->bound * 100);
    printf("warm-up: A %s, B %s\n", warmup_a, warmup_b);
    cli_said said = {0};
    for (size_t i = 0; i < v->count; i++) {
        const ks_versus_row *r = &v->rows[i];
        if (r->claim != KS_CLAIM_FULL_RUN && cli_say_once(&said, r->claim_why))
            printf("%s: %s\n",
                   r->claim == KS_CLAIM_NONE ? "no interval"
                                             : "interval of the values' ratio only",
                   r->claim_why);
    }
    if (v->one_side)
        printf("metrics estimated on one side only, left out: %zu\n", v->one_side);
    if (v->zero_a)
        printf("metrics whose total on A is 0 (or a rate's part), left out: %zu\n", v->zero_a);
}

int cli_versus_run(const cli_versus *v, cli_results *cr, const char *plan_path,
                   const ks_plan *plan, const ks_results *a, int a_count,
                   ks_estimate_options *eo, const char *warmup_a, bool json)
{
    /* B is read as A was: the same options, the profile already read; the
     * uid maps: one for all, or A's then B's */
    cli_results crb = *cr;
    if (v->map_total > 1) {
        for (int i = 0; i < v->count; i++)
            crb.maps[i] = cr->maps[a_count + i];
        crb.map_count = v->count;
    }
    ks_results b;
    int rc = cli_results_read(&crb, plan_path, plan, (char **)v->paths, v->count, &b);
    if (rc)
        return rc;
    const char *warmup_b = ks_results_warmup(&b);
    if (strcmp(warmup_b, "unknown") == 0 && crb.read.uid_mode == KS_UID_BASE)
        warmup_b = "context";
    ks_error err;
    ks_error_clear(&err);
    ks_versus out;
    eo->warmup = warmup_a;
    eo->profile = cr->profile;
    ks_status st = ks_versus_compute(plan, a, &b, eo, warmup_b, &out, &err);
    if (st != KS_OK) {
        ks_results_free(&b);
        return cli_fail(&err);
    }
    if (json)
        print_json(&out, warmup_a, warmup_b);
    else
        print_text(plan, &out, warmup_a, warmup_b, a_count, v->count);
    ks_versus_free(&out);
    ks_results_free(&b);
    return 0;
}
