/* cmd_sample.c - `ksample sample`: choose the invocations to simulate. */
#include "cli_llm.h"

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
           "  --include-comm     keep communication kernels (NCCL, RCCL, NVSHMEM, serving\n"
           "                     frameworks' all-reduce; --comm-pattern adds names) in the\n"
           "                     plan.  By default they are left out (a single-GPU simulator\n"
           "                     cannot run them: they wait on peers) and the plan records\n"
           "                     their launches and measured time as a known, unsimulated\n"
           "                     part that estimate and report print beside the estimates\n"
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
        {"include-comm", no_argument, NULL, 'I' + 256},
        {NULL, 0, NULL, 0}};
    return cli_with_sampling_options(own, sample_main, argc, argv);
}

/* Sieve, Photon and GCL-Sampler simulate each cluster's first launch (as
 * published).  When that is its kernel's first launch in the program, it
 * runs cold in the full run as well, and its cold cycles stand for the
 * whole cluster: said, with where the numbers are. */
static void note_first_launches(const ks_plan *plan, const ks_profile *p)
{
    if (strcmp(plan->method, "sieve") != 0 && strcmp(plan->method, "photon") != 0 &&
        strcmp(plan->method, "gcl") != 0)
        return;
    unsigned char *seen = calloc(p->name_count ? p->name_count : 1, 1);
    uint64_t *first = malloc((p->name_count ? p->name_count : 1) * sizeof *first);
    if (!seen || !first) {
        free(seen);
        free(first);
        return;
    }
    for (size_t i = 0; i < p->n; i++)
        if (!seen[p->name_id[i]]) {
            seen[p->name_id[i]] = 1;
            first[p->name_id[i]] = i;
        }
    size_t count = 0;
    for (size_t k = 0; k < plan->sample_count; k++) {
        uint64_t id = plan->samples[k].id;
        count += id < p->n && first[p->name_id[id]] == id && plan->samples[k].weight > 1;
    }
    if (count)
        fprintf(stderr,
                "ksample: note: %zu of the %zu launches %s simulates are their kernel's first "
                "launch in the program, cold in the full run too, each standing for its "
                "cluster's warm launches (MacSim vectormultadd: +192 %% against the full run; "
                "docs/methods.md, \"First launches as representatives\")\n",
                count, plan->sample_count, plan->method);
    free(seen);
    free(first);
}

/* The plan's predicted speedup by time; without durations (a trace folder:
 * every duration reads 0, and time gives no speedup) by the launches'
 * instructions, saying so. */
static void speedup_text(const ks_plan *plan, const ks_profile *p, char *buf, size_t size)
{
    if (isfinite(plan->predicted_speedup) || plan->total_ns > 0) {
        snprintf(buf, size, "%.1fx", plan->predicted_speedup);
        return;
    }
    const double *insts = NULL;
    for (size_t m = 0; m < p->metric_count; m++)
        if (strcmp(p->metrics[m].name, "smsp__inst_executed.sum") == 0)
            insts = p->metrics[m].values;
    double all = 0, sampled = 0;
    for (size_t i = 0; insts && i < p->n; i++)
        all += isnan(insts[i]) ? 0 : insts[i];
    for (size_t k = 0; insts && k < plan->sample_count; k++)
        if (plan->samples[k].id < p->n && !isnan(insts[plan->samples[k].id]))
            sampled += insts[plan->samples[k].id];
    if (sampled > 0)
        snprintf(buf, size, "%.1fx by instructions (the profile has no durations)",
                 all / sampled);
    else
        snprintf(buf, size, "unknown (the profile has no durations)");
}

static int sample_main(int argc, char **argv, const struct option *longopts)
{
    cli_input input;
    ks_params pa;
    cli_sampling_init(&input, &pa, true);
    const char *output = "-", *model = NULL, *save_model = NULL;
    bool csv = false, include_comm = false;
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
        case 'I' + 256:
            include_comm = true;
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
    const char *inputs[] = {source, input.metrics, input.bbv, input.traces, model, input.nvtx};
    const char *outputs[] = {output, save_model};
    if ((rc = cli_check_outputs("sample", outputs, 2, inputs, 6)))
        return rc;
    ks_profile *p;
    ks_comm_summary comm;
    if ((rc = cli_read_profile_comm(source, &input, !include_comm, &p, &comm)))
        return rc;
    ks_error err;
    ks_error_clear(&err);
    cli_note_shapes(p, &pa);
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
        ks_comm_summary_free(&comm);
        return cli_fail(&err);
    }
    if (!include_comm && comm.launches)
        ks_plan_set_unsimulated(&plan, &comm);
    char speedup[96];
    speedup_text(&plan, p, speedup, sizeof speedup);
    note_first_launches(&plan, p);
    /* the program's launch ids, whatever was selected */
    if (fst == KS_OK)
        fst = ks_plan_use_launch_ids(&plan, p, &err);
    if (fst != KS_OK) {
        ks_plan_free(&plan);
        ks_profile_free(p);
        ks_comm_summary_free(&comm);
        return cli_fail(&err);
    }
    ks_status st = csv ? ks_plan_save_csv(&plan, output, &err)
                       : ks_plan_save_json(&plan, output, &err);
    if (st == KS_OK) {
        char n1[32], n2[32], n3[32];
        fprintf(stderr, "ksample: %s: %s of %s invocations in %s cluster%s, predicted speedup %s",
                plan.method, cli_count_u64(n1, sizeof n1, plan.sample_count),
                cli_count_u64(n2, sizeof n2, p->n),
                cli_count_u64(n3, sizeof n3, plan.cluster_count),
                plan.cluster_count == 1 ? "" : "s", speedup);
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
                        : ks_single_mode_of(&plan, KS_SINGLE_PLAN) == KS_SINGLE_COLLAPSE &&
                                strcmp(plan.method, "root") == 0
                            ? ", above the bound: refine sizes the plan for it from the "
                              "simulated values (ROOT's default --replicate 0.2 makes a plan "
                              "that measures their spread itself and meets its bound)"
                            : ", above the bound: refine sizes the plan for it from the "
                              "simulated values");
            fputc('\n', stderr);
        } else
            fprintf(stderr, ", no error bound\n");
        /* a plan dearer than half the program is said before anything runs */
        cli_note_plan_cost(&plan, NULL, NAN);
        if (p->selection[0])
            fprintf(stderr, "ksample: planned on %zu of the file's %llu launches (%s); the "
                            "plan's ids are the program's launch ids\n",
                    p->n, (unsigned long long)p->launch_total, p->selection);
        if (plan.params.key == KS_KEY_NAME_SHAPE) {
            double share = ks_params_shape_share(&plan.params);
            if (share > 0)
                fprintf(stderr,
                        "ksample: key name+shape: %zu kernel groups; a %s of a name has its "
                        "own strata where it and another of the name's each carry at least "
                        "%.4g%% of the profiled time (--shape-share; 0: every one)\n",
                        plan.group_count,
                        ks_profile_has_dims(p) ? "(grid, block) shape" : "duration mode",
                        100 * share);
            else
                fprintf(stderr,
                        "ksample: key name+shape: %zu kernel groups; each %s of a name "
                        "launched with several has its own strata\n",
                        plan.group_count,
                        ks_profile_has_dims(p) ? "(grid, block) shape" : "duration mode");
        }
        if (!include_comm && comm.launches)
            ks_plan_print_unsimulated(&plan, stderr, "ksample: ");
        if (p->graph_kernels)
            fprintf(stderr,
                    "ksample: warning: %llu of these launches ran inside CUDA graphs: a "
                    "tracer that hooks kernel launch calls does not see them and numbers "
                    "launches without them; check its kernel count against the profile's "
                    "before exporting\n",
                    (unsigned long long)p->graph_kernels);
    }
    ks_plan_free(&plan);
    ks_comm_summary_free(&comm);
    ks_profile_free(p);
    return st == KS_OK ? 0 : cli_fail(&err);
}
