/*
 * bench_root_gap.c - ROOT's plan cost against its lower bound, and the time
 * to build the design, on one profile over a list of epsilons.
 *
 * usage: bench_root_gap PROFILE [joint|tree|paper [EPS...]]
 * Prints one line per epsilon: eps, cost (ns), lower bound (ns), cost/LB,
 * STEM's cost and the design's wall seconds (best of 3).
 */
#include "internal.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int plan_once(const ks_profile *p, const char *method, const char *alloc, double eps,
                     ks_plan *plan)
{
    ks_params pa;
    ks_params_init(&pa);
    pa.method = method;
    pa.epsilon = eps;
    pa.seed = 1;
    ks_error err;
    ks_error_clear(&err);
    if ((alloc && ks_params_set(&pa, "allocation", alloc, &err) != KS_OK) ||
        ks_plan_build(p, &pa, plan, &err) != KS_OK) {
        char buf[1200];
        ks_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "bench_root_gap: %s\n", buf);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_root_gap PROFILE [joint|tree|paper [EPS...]]\n");
        return 2;
    }
    const char *alloc = argc > 2 ? argv[2] : "joint";
    static const char *const dflt[] = {"0.01", "0.02", "0.05", "0.1", "0.2"};
    const char *const *eps_list = argc > 3 ? (const char *const *)argv + 3 : dflt;
    int neps = argc > 3 ? argc - 3 : 5;
    ks_error err;
    ks_profile *p;
    if (ks_profile_read(argv[1], NULL, &p, &err) != KS_OK) {
        char buf[1200];
        ks_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "bench_root_gap: %s\n", buf);
        return 4;
    }
    for (int e = 0; e < neps; e++) {
        double eps = atof(eps_list[e]), best = 1e300;
        ks_plan plan, stem;
        for (int r = 0; r < 3; r++) {
            double t0 = bench_now();
            if (plan_once(p, "root", alloc, eps, &plan))
                return 6;
            double t = bench_now() - t0;
            best = t < best ? t : best;
            if (r < 2)
                ks_plan_free(&plan);
        }
        if (plan_once(p, "stem", NULL, eps, &stem))
            return 6;
        double c = ks_plan_expected_cost(&plan), lb = plan.lower_bound_ns;
        printf("eps=%s cost_ns=%.6g lb_ns=%.6g cost_over_lb=%.4f stem_ns=%.6g "
               "speedup_vs_stem=%.3f plan_s=%.3f\n",
               eps_list[e], c, lb, lb > 0 ? c / lb : 0, ks_plan_expected_cost(&stem),
               c > 0 ? ks_plan_expected_cost(&stem) / c : 0, best);
        ks_plan_free(&plan);
        ks_plan_free(&stem);
    }
    ks_profile_free(p);
    return 0;
}
