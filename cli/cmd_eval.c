/* cmd_eval.c - `ksample eval`: how well each method does on a profile. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: ksample eval [options] PROFILE\n\n"
           "Plans each method --iters times (seeds seed, seed+1, ...) and compares each\n"
           "plan's estimate of the total GPU time with the profile's own total.  Prints\n"
           "per method: distinct samples (mean), speedup (harmonic mean), error mean and\n"
           "max (%%), planning time (mean seconds), the promised bound and how often the\n"
           "error exceeded it, and for root the predicted relative standard error (%%)\n"
           "and the expected simulated time over the lower bound no plan of contiguous\n"
           "strata can beat.\n\n"
           "options:\n"
           "  --methods LIST     comma-separated (default root,stem,allegro,random)\n"
           "  --iters N          plans per method (default 10)\n"
           "  --json             print a JSON list of objects with keys method, samples,\n"
           "                     speedup_hmean, error_mean_pct, error_max_pct,\n"
           "                     plan_seconds, bound_pct, exceed_fraction,\n"
           "                     predicted_rse_pct, cost_over_lower_bound\n" CLI_PARAM_HELP CLI_INPUT_HELP
           "  -h, --help         this text\n");
}

static void json_number(double x)
{
    if (isfinite(x))
        printf("%.6g", x);
    else
        printf("null");
}

int cmd_eval(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"methods", required_argument, NULL, 'L'}, {"iters", required_argument, NULL, 'i'},
        {"json", no_argument, NULL, 'j'},          {"help", no_argument, NULL, 'h'},
        CLI_PARAM_LONG_OPTIONS,                    CLI_INPUT_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    cli_input input;
    cli_input_init(&input);
    ks_params pa;
    ks_params_init(&pa);
    char methods_buf[256] = "root,stem,allegro,random";
    uint64_t iters = 10;
    bool json = false;
    int opt, rc;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (cli_input_option(&input, opt, optarg, &rc) ||
            cli_params_option(&pa, opt, optarg, "eval", &rc)) {
            if (rc)
                return rc;
            continue;
        }
        switch (opt) {
        case 'L':
            snprintf(methods_buf, sizeof methods_buf, "%s", optarg);
            break;
        case 'i':
            if (!cli_parse_u64(optarg, &iters) || iters < 1 || iters > 1000000)
                return cli_usage_error("eval", "--iters must be in 1..1000000, got '%s'",
                                       optarg);
            break;
        case 'j':
            json = true;
            break;
        case 'h':
            help();
            return 0;
        default:
            return cli_usage_error("eval", "unknown option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("eval", "expected one profile file");
    const char *names[16];
    int count = 0;
    for (char *tok = strtok(methods_buf, ","); tok; tok = strtok(NULL, ",")) {
        if (!ks_method_find(tok))
            return cli_usage_error("eval", "unknown method '%s' (root, stem, allegro, random)",
                                   tok);
        if (count == 16)
            return cli_usage_error("eval", "at most 16 methods");
        names[count++] = tok;
    }
    if (count == 0)
        return cli_usage_error("eval", "--methods is empty");
    ks_profile *p;
    if ((rc = cli_read_profile(argv[optind], &input, &p)))
        return rc;
    if (json)
        printf("[");
    else
        printf("%-8s %10s %12s %12s %11s %11s %9s %8s %10s %8s\n", "method", "samples",
               "speedup", "err mean %", "err max %", "plan s", "bound %", "exceed", "pred rse %",
               "cost/LB");
    for (int i = 0; i < count; i++) {
        ks_params run = pa;
        run.method = names[i];
        ks_eval_result r;
        ks_error err;
        ks_error_clear(&err);
        if (ks_evaluate(p, &run, (unsigned)iters, &r, &err) != KS_OK) {
            if (json)
                printf("]\n");
            ks_profile_free(p);
            return cli_fail(&err);
        }
        if (json) {
            printf("%s{\"method\": \"%s\", \"samples\": ", i ? ", " : "", r.method);
            json_number(r.samples_mean);
            printf(", \"speedup_hmean\": ");
            json_number(r.speedup_hmean);
            printf(", \"error_mean_pct\": ");
            json_number(r.error_mean_pct);
            printf(", \"error_max_pct\": ");
            json_number(r.error_max_pct);
            printf(", \"plan_seconds\": ");
            json_number(r.plan_seconds);
            printf(", \"bound_pct\": ");
            json_number(r.bound_pct);
            printf(", \"exceed_fraction\": ");
            json_number(r.exceed_fraction);
            printf(", \"predicted_rse_pct\": ");
            json_number(r.predicted_rse_pct);
            printf(", \"cost_over_lower_bound\": ");
            json_number(r.cost_over_lower_bound);
            printf("}");
        } else {
            char bound[32] = "none";
            if (r.bound_pct > 0)
                snprintf(bound, sizeof bound, "%.3g", r.bound_pct);
            char rse[32] = "-", ratio[32] = "-";
            if (r.predicted_rse_pct > 0)
                snprintf(rse, sizeof rse, "%.4f", r.predicted_rse_pct);
            if (r.cost_over_lower_bound > 0)
                snprintf(ratio, sizeof ratio, "%.4f", r.cost_over_lower_bound);
            printf("%-8s %10.1f %11.2fx %12.4f %11.4f %11.6f %9s %7.1f%% %10s %8s\n", r.method,
                   r.samples_mean, r.speedup_hmean, r.error_mean_pct, r.error_max_pct,
                   r.plan_seconds, bound, 100 * r.exceed_fraction, rse, ratio);
        }
    }
    if (json)
        printf("]\n");
    ks_profile_free(p);
    return 0;
}
