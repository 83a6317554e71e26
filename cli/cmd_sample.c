/* cmd_sample.c - `ksample sample`: choose the invocations to simulate. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: ksample sample [options] PROFILE\n\n"
           "Chooses which kernel invocations to simulate and writes the plan: every\n"
           "parameter, the seed, the input's XXH3-128 digest, each cluster (key, size, mean,\n"
           "std, m, duration range) and each sample (id, weight, cluster).  The\n"
           "estimate of any additive quantity X is sum(weight * X(id)).  Same input,\n"
           "options and seed give the same bytes.\n\n"
           "options:\n"
           "  --method M         sampling method (see below; default root)\n"
           "  -o, --output FILE  plan file (default: standard output); written\n"
           "                     atomically\n"
           "  --csv              write 'id,weight' CSV instead of the JSON plan\n"
           "  --model FILE       learned methods (gcl): use this trained model instead of\n"
           "                     training on the profile's traces\n"
           "  --save-model FILE  learned methods: keep the model trained here\n"
           CLI_INPUT_HELP "  -h, --help         this text\n");
    cli_params_help();
}

static int sample_main(int argc, char **argv, const struct option *longopts);

int cmd_sample(int argc, char **argv)
{
    static const struct option own[] = {
        {"method", required_argument, NULL, 'M' + 256}, {"output", required_argument, NULL, 'o'},
        {"csv", no_argument, NULL, 'C'},
        {"model", required_argument, NULL, 'm' + 256},
        {"save-model", required_argument, NULL, 'S' + 256},           {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    return cli_with_sampling_options(own, sample_main, argc, argv);
}

static int sample_main(int argc, char **argv, const struct option *longopts)
{
    cli_input input;
    ks_params pa;
    cli_sampling_init(&input, &pa, true);
    const char *output = "-", *model = NULL, *save_model = NULL;
    bool csv = false;
    cli_loop l = {.cmd = "sample", .longopts = longopts, .shortopts = "ho:", .help = help,
                  .input = &input, .params = &pa, .operands = -1};
    int opt, rc;
    while ((opt = cli_loop_next(&l, argc, argv)) != -1) {
        switch (opt) {
        case 'M' + 256:
            if ((rc = cli_method_check("sample", optarg)))
                return rc;
            pa.method = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case 'C':
            csv = true;
            break;
        case 'm' + 256:
            model = optarg;
            break;
        case 'S' + 256:
            save_model = optarg;
            break;
        }
    }
    if (l.exit >= 0)
        return l.exit;
    /* with --traces alone, the trace folder is the profile (launches without
     * times: a plan, but no time to estimate) */
    const char *source = optind == argc - 1 ? argv[optind] : NULL;
    if (!source && optind == argc && input.traces) {
        source = input.traces;
        input.traces = NULL;
    }
    if (!source)
        return cli_usage_error("sample", "expected one profile file");
    const char *inputs[] = {source, input.metrics, input.bbv, input.traces, model};
    const char *outputs[] = {output, save_model};
    if ((rc = cli_check_outputs("sample", outputs, 2, inputs, 5)))
        return rc;
    ks_profile *p;
    if ((rc = cli_read_profile(source, &input, &p)))
        return rc;
    ks_error err;
    ks_error_clear(&err);
    ks_plan plan;
    ks_fitted *fitted = NULL;
    ks_status fst = model ? ks_fit_load(p, &pa, model, &fitted, &err) : ks_fit(p, &pa, &fitted, &err);
    if (fst == KS_OK && save_model)
        fst = ks_fitted_save(fitted, save_model, &err);
    if (fst == KS_OK)
        fst = ks_select(fitted, pa.seed, &plan, &err);
    ks_fitted_free(fitted);
    if (fst != KS_OK) {
        ks_profile_free(p);
        return cli_fail(&err);
    }
    ks_status st = csv ? ks_plan_save_csv(&plan, output, &err)
                       : ks_plan_save_json(&plan, output, &err);
    if (st == KS_OK) {
        fprintf(stderr,
                "ksample: %s: %zu of %llu invocations in %zu clusters, predicted speedup "
                "%.1fx",
                plan.method, plan.sample_count, (unsigned long long)plan.population,
                plan.cluster_count, plan.predicted_speedup);
        if (plan.bound > 0) {
            fprintf(stderr, ", bound %.3g%% at %.3g%% confidence (%s)", plan.bound * 100,
                    plan.params.confidence * 100, plan.bound_scope);
            /* the promise, as estimate will print it when the simulated
             * values follow the profile (python/ksample/plan.py says the
             * same) */
            if (plan.predicted && !isfinite(plan.predicted_halfwidth))
                fprintf(stderr, "; no interval predicted: no second launch of any kernel "
                                "measures how the values spread (refine adds one)");
            else if (plan.predicted)
                fprintf(stderr, "; predicted interval +-%.3g%% if the simulated values follow "
                                "the profile%s",
                        plan.predicted_halfwidth * 100,
                        plan.predicted_halfwidth <= plan.bound * (1 + 1e-9)
                            ? ""
                            : ", above the bound: refine sizes the plan for it from the "
                              "simulated values");
            fputc('\n', stderr);
        } else
            fprintf(stderr, ", no error bound\n");
    }
    ks_plan_free(&plan);
    ks_profile_free(p);
    return st == KS_OK ? 0 : cli_fail(&err);
}
