/* cmd_compare.c - `ksample compare`: every method of the table side by side
 * on one profile (the STEM paper's Table 3), the ones lacking inputs listed
 * with what they need. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: ksample compare [options] PROFILE\n\n"
           "Runs every method whose inputs the profile has (time for all; Nsight Compute\n"
           "metrics for pka; instruction counts and grids for sieve; basic-block vectors\n"
           "for photon) --iters times (seeds seed, seed+1, ...) and prints one row per\n"
           "method: distinct samples (mean), speedup (harmonic mean), error of the total\n"
           "time mean and max (%%), planning time (seconds: fit + mean select).  Methods\n"
           "that lack an input are listed as skipped, with what they need.\n\n"
           "options:\n"
           "  --iters N          plans per method (default %d)\n"
           "  --json             print a JSON list: per method the keys of 'eval --json'\n"
           "                     (method, samples, speedup_hmean, error_mean_pct,\n"
           "                     error_max_pct, plan_seconds, fit_seconds), or method and\n"
           "                     skipped (the reason)\n" CLI_INPUT_HELP
           "  -h, --help         this text\n",
           KS_EVAL_ITERS);
    cli_params_help();
    printf("\nA method parameter applies to the methods that declare it.\n");
}

static void print_result(const ks_eval_result *r, bool json, bool first)
{
    if (!json) {
        printf("%-8s %10.1f %11.2fx %12.4f %11.4f %11.6f\n", r->method, r->samples_mean,
               r->speedup_hmean, r->error_mean_pct, r->error_max_pct, r->plan_seconds);
        return;
    }
    printf("%s{\"method\": \"%s\"", first ? "" : ",\n ", r->method);
    cli_json_eval_fields(r);
    printf("}");
}

static void print_skipped(const char *method, const char *reason, bool json, bool first)
{
    if (!json) {
        printf("%-8s skipped: %s\n", method, reason);
        return;
    }
    printf("%s{\"method\": \"%s\", \"skipped\": ", first ? "" : ",\n ", method);
    cli_json_string(reason);
    printf("}");
}

/* every method parameter given must belong to some method */
static int check_settings(const ks_params *pa)
{
    for (size_t s = 0; s < pa->setting_count; s++) {
        bool used = false;
        for (const ks_method *const *m = ks_methods(); *m && !used; m++)
            for (size_t k = 0; k < (*m)->param_count && !used; k++)
                used = strcmp((*m)->params[k].name, pa->settings[s].name) == 0;
        if (!used)
            return cli_usage_error("compare", "--%s is not a parameter of any method",
                                   pa->settings[s].name);
    }
    return 0;
}

static int compare_run(const ks_profile *p, const ks_params *pa, unsigned iters, bool json)
{
    if (json)
        printf("[");
    else
        printf("%-8s %10s %12s %12s %11s %11s\n", "method", "samples", "speedup", "err mean %",
               "err max %", "plan s");
    bool first = true;
    for (const ks_method *const *m = ks_methods(); *m; m++) {
        ks_error err;
        ks_error_clear(&err);
        if (ks_method_check_inputs(*m, p, &err) != KS_OK) {
            print_skipped((*m)->name, err.message, json, first);
            first = false;
            continue;
        }
        ks_params run = *pa;
        run.method = (*m)->name;
        ks_eval_result r;
        if (ks_evaluate(p, &run, iters, &r, &err) != KS_OK) {
            if (json)
                printf("]\n");
            return cli_fail(&err);
        }
        print_result(&r, json, first);
        first = false;
    }
    if (json)
        printf("]\n");
    return 0;
}

static int compare_main(int argc, char **argv, const struct option *longopts)
{
    cli_input input;
    ks_params pa;
    cli_sampling_init(&input, &pa, false);
    uint64_t iters = KS_EVAL_ITERS;
    bool json = false;
    cli_loop l = {.cmd = "compare", .longopts = longopts, .help = help, .json = &json,
                  .input = &input, .params = &pa, .operands = 1,
                  .operands_are = "one profile file"};
    int opt, rc;
    while ((opt = cli_loop_next(&l, argc, argv)) != -1)
        if (opt == 'i' && (!cli_parse_u64(optarg, &iters) || iters < 1 || iters > 1000000))
            return cli_usage_error("compare", "--iters must be in 1..1000000, got '%s'", optarg);
    if (l.exit >= 0)
        return l.exit;
    if ((rc = check_settings(&pa)))
        return rc;
    ks_profile *p;
    if ((rc = cli_read_profile(argv[optind], &input, &p)))
        return rc;
    rc = compare_run(p, &pa, (unsigned)iters, json);
    ks_profile_free(p);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    static const struct option own[] = {{"iters", required_argument, NULL, 'i'},
                                        {"json", no_argument, NULL, 'j'},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};
    return cli_with_sampling_options(own, compare_main, argc, argv);
}
