/* cmd_export.c - `ksample export`: a plan turned into what a tracer or a
 * simulator reads. */
#include "cli.h"
#include "cli_state.h"

#include <stdio.h>
#include <string.h>

static void help(void)
{
    printf("usage: ksample export [options] --to FORMAT -o OUT PLAN\n\n"
           "Writes what a tracer or simulator needs to record or run only the plan's\n"
           "sampled launches.  Plan ids count launches from 0; each file says how its\n"
           "consumer counts.\n\n"
           "formats:\n");
    for (const ks_exporter *const *e = ks_exporters(); *e; e++)
        printf("  %-16s %s\n", (*e)->name, (*e)->summary);
    printf("\noptions:\n"
           "  --to FORMAT        one of the formats above\n"
           "  -o, --output OUT   file to write (a folder for accelsim and macsim); written\n"
           "                     atomically\n"
           "  --traces DIR       accelsim, macsim: the folder of the complete traces (its\n"
           "                     kernelslist.g and kernel-*.traceg[.xz], or MacSim's\n"
           "                     kernel_config.txt and KernelN folders)\n"
           "  --profile FILE     the plan's profile (default: the input the plan records,\n"
           "                     when present); with traces, every sampled id is checked\n"
           "                     against its trace header (name, grid, block)\n"
           "  --exclude PLAN     leave out the ids PLAN samples too (after refine: only\n"
           "                     the new launches, the parent's results being reused)\n"
           "  --warmup MODE      accelsim, macsim: warm-up launches before each sampled one,\n"
           "                     listed with role warmup in weights.csv (none, self, same,\n"
           "                     prev:N, since-same:N[:K], state[:CARRIER]; see\n"
           "                     'ksample run --help'); plain state into an accelsim\n"
           "                     folder is state:split where its remap applies to\n"
           "                     --sim-config, else state:kernel\n"
           "  --sim-config FILE  --warmup state: the simulator's configuration\n"
           "                     (gpgpusim.config, MacSim params.in): the L2's geometry\n"
           "                     and the SMs\n"
           CLI_STATE_HELP
           "  --state-window N   tracer formats with --warmup state: trace the N launches\n"
           "                     before each sampled one for its state, or all (every\n"
           "                     earlier launch); default: those whose accesses, by the\n"
           "                     profile's bytes moved (else its threads x 16 B), fill\n"
           "                     --state-cut x the L2 (--sim-config, --l2-size; else 6 MB)\n"
           "                     before each; `run` says where a state came out short\n"
           "  --remap            match launches by (name, grid, block, occurrence) when\n"
           "                     the tracer saw other launches than the profiler\n"
           "                     (warm-up kernels, autotuning runs)\n"
           "  -h, --help         this text\n");
}

/* Removes from plan the samples that the plan at path has too. */
static ks_status drop_excluded(ks_plan *plan, const char *path, ks_error *err)
{
    ks_plan other;
    ks_status st = ks_plan_read(path, &other, err);
    if (st != KS_OK)
        return st;
    size_t out = 0, j = 0;
    for (size_t i = 0; i < plan->sample_count; i++) {
        while (j < other.sample_count && other.samples[j].id < plan->samples[i].id)
            j++;
        if (j < other.sample_count && other.samples[j].id == plan->samples[i].id)
            continue;
        plan->samples[out++] = plan->samples[i];
    }
    plan->sample_count = out;
    ks_plan_free(&other);
    if (out == 0)
        return ks_error_set(err, KS_ERR_USAGE, path, 0, "every sampled id is in this plan too");
    return KS_OK;
}

/* Plain `--warmup state` into an Accel-Sim folder: state:split where its
 * remap applies to the configuration and the program's footprint (as
 * `run` does), else the warm-up kernel, saying why. */
static void default_carrier(ks_warmup *w, const char *traces)
{
    ks_state_remap_report rep;
    w->carrier = KS_STATE_SPLIT;
    cli_state_remap_or_kernel(traces, w, &rep); /* plain state: never an error */
    if (rep.usable)
        fprintf(stderr, "ksample: export: --warmup state is state:split here: zero-cycle "
                        "copies, and a warm-up kernel only where a launch's misses evict "
                        "dirty lines\n");
}

int cmd_export(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"to", required_argument, NULL, 't'},      {"output", required_argument, NULL, 'o'},
        {"traces", required_argument, NULL, 'T'},  {"profile", required_argument, NULL, 'P'},
        {"remap", no_argument, NULL, 'r'},         {"help", no_argument, NULL, 'h'},
        {"exclude", required_argument, NULL, 'x'}, {"warmup", required_argument, NULL, 'w'},
        CLI_STATE_LONG_OPTIONS, {"sim-config", required_argument, NULL, CLI_STATE_SIM_CONFIG},
        {"state-window", required_argument, NULL, 'W'},
        {NULL, 0, NULL, 0}};
    cli_state_args state = {0};
    const char *window = NULL;
    const char *to = NULL, *out = NULL, *profile_path = NULL, *exclude = NULL;
    ks_export_options eo = {0};
    ks_warmup warmup;
    ks_error werr;
    ks_error_clear(&werr);
    cli_loop l = {.cmd = "export", .longopts = longopts, .shortopts = "ho:", .help = help,
                  .operands = 1, .operands_are = "one plan file"};
    int opt;
    while ((opt = cli_loop_next(&l, argc, argv)) != -1) {
        if (cli_state_option(&state, opt, optarg))
            continue;
        switch (opt) {
        case 't':
            to = optarg;
            break;
        case 'o':
            out = optarg;
            break;
        case 'T':
            eo.traces = optarg;
            break;
        case 'P':
            profile_path = optarg;
            break;
        case 'r':
            eo.remap = 1;
            break;
        case 'x':
            exclude = optarg;
            break;
        case 'W':
            window = optarg;
            break;
        case 'w':
            if (ks_warmup_parse(optarg, &warmup, &werr) != KS_OK)
                return cli_usage_error("export", "--warmup: %s", werr.message);
            eo.warmup = &warmup;
            break;
        }
    }
    if (l.exit >= 0)
        return l.exit;
    if (!to || !out)
        return cli_usage_error("export", "--to FORMAT and -o OUT are required");
    if (state.l2 || state.cut || state.lines || state.sim_config) {
        if (!eo.warmup)
            return cli_usage_error("export", "--l2-size, --state-cut, --state-lines and "
                                             "--sim-config are for --warmup state");
        int src = cli_state_apply("export", &state, &warmup);
        if (src)
            return src;
    }
    const ks_exporter *ex = ks_exporter_find(to);
    if (!ex)
        return cli_usage_error("export", "unknown format '%s' (see --help)", to);
    bool tracer = strstr(ex->name, "tracer") != NULL;
    if (eo.warmup && !ex->output_is_folder && !(tracer && warmup.mode == KS_WARMUP_STATE))
        return cli_usage_error("export", "--warmup is for the simulator folders (accelsim, "
                                         "macsim), and --warmup state for the tracer formats "
                                         "too, not %s", to);
    if (window && (!eo.warmup || warmup.mode != KS_WARMUP_STATE || !tracer))
        return cli_usage_error("export", "--state-window is for a tracer format with "
                                         "--warmup state");
    if (window && strcmp(window, "all") == 0)
        eo.state_window = KS_STATE_WINDOW_ALL;
    else if (window &&
        (!cli_parse_u64(window, &eo.state_window) || eo.state_window < 1))
        return cli_usage_error("export", "--state-window: a number of launches (1 or more) "
                                         "or all, got '%s'", window);
    ks_error err;
    ks_error_clear(&err);
    ks_plan plan;
    if (ks_plan_read(argv[optind], &plan, &err) != KS_OK)
        return cli_fail(&err);
    /* the plan's recorded profile counts as an input even when it is not
     * read: the plan depends on it */
    const char *inputs[] = {argv[optind], exclude,          eo.traces,
                            profile_path, plan.input_path, state.sim_config};
    int rc = cli_check_output("export", out, inputs, 6);
    if (rc) {
        ks_plan_free(&plan);
        return rc;
    }
    ks_profile *p = NULL;
    ks_status st = exclude ? drop_excluded(&plan, exclude, &err) : KS_OK;
    /* the profile is needed to check ids against traces, and by a tracer
     * format to size the launches the state needs; else it is not read */
    bool state_tracer = tracer && eo.warmup && warmup.mode == KS_WARMUP_STATE && !window;
    if (st == KS_OK && state_tracer && !eo.traces) {
        if (ks_plan_open_profile(&plan, profile_path, &p, &err) != KS_OK) {
            if (profile_path) {
                ks_plan_free(&plan);
                return cli_fail(&err);
            }
            char buf[1200];
            ks_error_format(&err, buf, sizeof buf);
            fprintf(stderr,
                    "ksample: note: the plan's profile is not at hand (%s): every launch "
                    "before each sampled one is traced; give --profile to trace only those "
                    "the state needs\n",
                    buf);
            ks_error_clear(&err);
            p = NULL;
        }
    }
    if (st == KS_OK && eo.traces) {
        st = ks_plan_open_profile(&plan, profile_path, &p, &err);
        if (st != KS_OK && !profile_path && !eo.remap) {
            char buf[1200];
            ks_error_format(&err, buf, sizeof buf);
            fprintf(stderr,
                    "ksample: note: ids not checked against the trace headers (%s); give "
                    "--profile to check them\n",
                    buf);
            ks_error_clear(&err);
            st = KS_OK;
        }
    }
    eo.profile = p;
    if (st == KS_OK && eo.warmup && warmup.mode == KS_WARMUP_STATE && !warmup.carrier_given &&
        strcmp(ex->name, "accelsim") == 0 && eo.traces)
        default_carrier(&warmup, eo.traces);
    /* MacSim's kernel: every line only where a launch's misses evict some
     * (as `run`, cli_run_default_carrier) */
    if (st == KS_OK && eo.warmup && warmup.mode == KS_WARMUP_STATE && !warmup.carrier_given &&
        strcmp(ex->name, "macsim") == 0)
        warmup.lines = KS_STATE_LINES_AUTO;
    char note[700] = "";
    eo.note = note;
    eo.note_size = sizeof note;
    if (st == KS_OK)
        st = ex->write(&plan, &eo, out, &err);
    if (st == KS_OK)
        fprintf(stderr, "ksample: %s: %zu sampled launches written to %s%s\n", ex->name,
                plan.sample_count, out,
                p && eo.traces ? " (ids checked against the trace headers)" : "");
    if (st == KS_OK && note[0])
        fprintf(stderr, "ksample: %s\n", note);
    ks_profile_free(p);
    ks_plan_free(&plan);
    return st == KS_OK ? 0 : cli_fail(&err);
}
