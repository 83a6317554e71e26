/* cmd_score.c - `ksample score`: every method's plans scored against a real
 * simulator's recorded outputs (the full run, each launch alone, warm-up
 * runs), without running it: the error a sampled simulation really makes,
 * its interval's coverage, and its speedup in simulated cycles. */
#include "cli_score.h"
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_METHODS = 16, MAX_WARM = 16 };

static void help(void)
{
    printf(
        "usage: ksample score [options] TRACES --plan-from SRC --truth SRC [--alone SRC]\n"
        "                     [--warm NAME=SRC]...\n\n"
        "Scores plans against a real simulator's recorded outputs.  TRACES is the trace\n"
        "folder the simulator ran (Accel-Sim or MacSim): it names the launches, gives\n"
        "the methods their features (instruction counts, basic-block vectors, traces)\n"
        "and maps every log to launches by the trace file each kernel names.  Plans\n"
        "are drawn from --plan-from and each one's estimate is computed from:\n"
        "  context   each sampled launch's cycles in the FULL run (--truth): what the\n"
        "            papers report, and what no sampled simulation can measure\n"
        "  alone     each sampled launch simulated by itself, from cold caches (--alone)\n"
        "  NAME      each sampled launch simulated after warm-up launches (--warm)\n"
        "against the full run's total, with the interval the estimate would report\n"
        "from those values.  Cost: the cycles simulated, warm-up included.\n\n"
        "SRC: an Accel-Sim / GPGPU-Sim log (runs of a concatenated log are told apart;\n"
        "kernels matched to launches by trace file), a MacSim log, a get_stats.py CSV\n"
        "(-k -K, the whole program: --config), a CSV 'id,<metric>[,run_cycles]'\n"
        "(0-based launch ids), or a 'ksample run' folder (of a plan that samples every\n"
        "launch, for instance).  --plan-from also takes any profile ksample reads, in\n"
        "launch order.\n\n"
        "options:\n"
        "  --plan-from SRC    what the plans are drawn from: the cycles of a full run (the\n"
        "                     STEM paper's design-space use: plan on one configuration,\n"
        "                     score on another), or a time profile\n"
        "  --truth SRC        the full run of the configuration scored\n"
        "  --alone SRC        every launch simulated alone\n"
        "  --warm NAME=SRC    every launch simulated after a warm-up (only the last\n"
        "                     kernel of each simulator run is the launch's value; where\n"
        "                     a launch has none, its alone value counts; repeatable); SRC\n"
        "                     must give each run's cost, warm-up included (a log or run\n"
        "                     folder, or a CSV with run_cycles)\n"
        "  --metric M         the value (default gpu_sim_cycle, else cycles)\n"
        "  --plan-metric M    the --plan-from source's value (default: as --metric)\n"
        "  --match M          how a --plan-from profile's launches pair with TRACES':\n"
        "                     name (default: launch by launch), family or op (as eval\n"
        "                     --match: another GPU's profile, whose kernels differ); every\n"
        "                     launch of TRACES must pair, the profile's extra ones are\n"
        "                     counted\n"
        "  --config C         get_stats.py CSV: the configuration column (for SRCs that\n"
        "                     hold several, give NAME@C in place of SRC per option)\n"
        "  --pilot K          also score 'alone+pilot': alone values corrected per kernel\n"
        "                     group by the ratio --pilot-ref / alone measured on K of\n"
        "                     the plan's own launches per group (its uncertainty in the\n"
        "                     interval)\n"
        "  --pilot-ref NAME   the pilot's reference set (default context)\n"
        "  --estimators LIST  also score each set with these estimators (plain, ratio,\n"
        "                     regression, auto; see estimate --estimator), the profile's\n"
        "                     values of --plan-from as auxiliary (default plain)\n"
        "  --fit F            kernel (default), stratum or all (see estimate --fit)\n"
        "  --rounds R         two-phase: while an estimate's interval misses the bound,\n"
        "                     refine for its estimator from the values so far, take the\n"
        "                     new launches' values and estimate again, at most R times\n"
        "                     (default 0); plans drawn with replacement or without a\n"
        "                     bound are not refined\n"
        "  --refine-epsilon E the bound the rounds aim at (default: the plans')\n"
        "  --methods LIST     comma-separated (default root)\n"
        "  --seeds N          plans per method, seeds --seed, --seed+1, ... (default 100)\n"
        "  --rows             print one CSV row per plan and set instead of the summary\n"
        "  --json             print the summary as JSON: truth, and per method its\n"
        "                     bound, plans and per set of values (and estimator)\n"
        "                     launches_mean, launches_max, pilot_mean, speedup_hmean,\n"
        "                     error_mean, error_signed_mean, error_max, coverage (of\n"
        "                     the plans given an interval), within_bound, met,\n"
        "                     met_true (of those saying met, within the bound),\n"
        "                     met_power (of those within half the bound, saying met),\n"
        "                     error_p95, halfwidth_mean, refused, rounds_mean,\n"
        "                     interval (what it stands for: full run, values, none)\n"
        "  -q, --quiet        no progress on stderr\n"
        "  -h, --help         this text\n"
        CLI_INPUT_HELP);
    cli_params_help();
}

typedef struct values {
    const char *name;
    char *path;       /* may carry @config */
    const char *config;
    double *value;    /* per launch */
    double *cost;     /* run_cycles per launch, or NULL */
    long *line;       /* per launch: the line of its row (0: none) */
    char metric[64];  /* the metric read */
} values;

enum { MAX_ESTIMATORS = 4 };

typedef struct score_opts {
    const char *plan_from, *metric, *plan_metric, *config, *pilot_ref;
    values truth, alone, warm[MAX_WARM];
    int warm_count;
    uint64_t seeds, pilot, rounds;
    double refine_epsilon;
    ks_estimator estimators[MAX_ESTIMATORS];
    size_t estimator_count;
    ks_estimator_fit fit;
    const char *names[MAX_METHODS];
    int method_count;
    bool json, rows, quiet;
    int match; /* --match: -1 name (launch by launch), else a ks_match_mode */
} score_opts;

static void values_free(values *v)
{
    free(v->path);
    free(v->value);
    free(v->cost);
    free(v->line);
    v->line = NULL;
    v->value = v->cost = NULL;
    v->path = NULL;
}

/* "SRC" or "SRC@CONFIG"; an option given twice is refused (the second
 * would silently win, and the first's copy leaked) */
static int values_path(values *v, const char *name, const char *arg)
{
    if (v->path)
        return cli_usage_error("score", "--%s given twice ('%s', then '%s')",
                               strcmp(name, "context") == 0 ? "truth" : name, v->path, arg);
    v->name = name;
    if (!(v->path = strdup(arg)))
        return KS_ERR_NOMEM;
    char *at = strrchr(v->path, '@');
    if (at && at != v->path && !strchr(at, '/')) {
        *at = '\0';
        v->config = at + 1;
    }
    return 0;
}

/* The values of one source, per launch of the trace folder. */
static int read_values(values *v, const char *traces, size_t n, const score_opts *o,
                       const char *metric, bool last)
{
    ks_error err;
    ks_error_clear(&err);
    ks_results_kind kind = ks_results_detect(v->path, &err);
    if (kind == KS_RESULTS_UNREADABLE)
        return cli_fail(&err);
    if (kind == KS_RESULTS_UNKNOWN) {
        fprintf(stderr, "ksample score: %s: not a simulator log, get_stats.py CSV, results "
                        "CSV or run folder\n", v->path);
        return KS_ERR_FORMAT;
    }
    /* a run folder is read with the plan its manifest names */
    ks_plan plan;
    ks_plan_init(&plan);
    if (kind == KS_RESULTS_RUN_FOLDER) {
        char manifest[4200];
        snprintf(manifest, sizeof manifest, "%s/manifest.json", v->path);
        ks_run_manifest m;
        if (ks_run_manifest_read(manifest, &m, &err) != KS_OK)
            return cli_fail(&err);
        ks_status st = ks_plan_read(m.plan, &plan, &err);
        ks_run_manifest_free(&m);
        if (st != KS_OK)
            return cli_fail(&err);
    }
    ks_results_options ro;
    ks_results_options_init(&ro);
    ro.traces = traces;
    ro.uid_mode = kind == KS_RESULTS_GETSTATS ? KS_UID_BASE : KS_UID_TRACE;
    ro.uid_base = 1;
    ro.measured = last ? KS_MEASURED_LAST : KS_MEASURED_ALL;
    ro.config = v->config ? v->config : o->config;
    ks_results r;
    ks_results_init(&r);
    ks_status rst = ks_results_read(v->path, kind == KS_RESULTS_RUN_FOLDER ? &plan : NULL, &ro,
                                    &r, &err);
    ks_plan_free(&plan);
    if (rst != KS_OK) {
        ks_results_free(&r);
        return cli_fail(&err);
    }
    long m = -1;
    if (metric)
        m = ks_results_metric(&r, metric);
    else if ((m = ks_results_metric(&r, "gpu_sim_cycle")) < 0)
        m = ks_results_metric(&r, "cycles");
    long c = ks_results_metric(&r, "run_cycles");
    v->value = malloc((n ? n : 1) * sizeof *v->value);
    v->cost = c >= 0 ? malloc((n ? n : 1) * sizeof *v->cost) : NULL;
    v->line = calloc(n ? n : 1, sizeof *v->line);
    if (m < 0 || !v->value || (c >= 0 && !v->cost) || !v->line) {
        ks_results_free(&r);
        if (m < 0)
            fprintf(stderr, "ksample score: %s: no metric %s\n", v->path,
                    metric ? metric : "gpu_sim_cycle or cycles");
        return m < 0 ? KS_ERR_FORMAT : KS_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        v->value[i] = NAN;
        if (v->cost)
            v->cost[i] = NAN;
    }
    for (size_t k = 0; k < r.row_count; k++) {
        if (r.ids[k] >= n) {
            fprintf(stderr, "ksample score: %s:%ld: launch %llu, but the trace folder has %zu\n",
                    r.sources[r.source[k]], r.source_line[k], (unsigned long long)r.ids[k], n);
            ks_results_free(&r);
            return KS_ERR_FORMAT;
        }
        v->value[r.ids[k]] = r.values[m][k];
        v->line[r.ids[k]] = r.source_line[k];
        snprintf(v->metric, sizeof v->metric, "%s", r.metrics[m]);
        if (v->cost)
            v->cost[r.ids[k]] = r.values[c][k];
    }
    ks_results_free(&r);
    return 0;
}

static size_t count_present(const double *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += !isnan(v[i]);
    return k;
}

/* The plans' profile: the trace folder's launches with the durations of
 * --plan-from. */
static int plan_profile(ks_profile *p, const char *traces, const cli_input *input,
                        const score_opts *o)
{
    ks_error err;
    ks_error_clear(&err);
    /* SRC@CONFIG as for every other source: the file is SRC */
    values v = {0};
    if (values_path(&v, "plan", o->plan_from))
        return KS_ERR_NOMEM;
    ks_results_kind kind = ks_results_detect(v.path, &err);
    if (kind == KS_RESULTS_UNREADABLE) {
        values_free(&v);
        return cli_fail(&err);
    }
    if (kind == KS_RESULTS_ACCELSIM_LOG || kind == KS_RESULTS_MACSIM_LOG ||
        kind == KS_RESULTS_GETSTATS || kind == KS_RESULTS_CSV) {
        if (o->match >= 0) {
            values_free(&v);
            return cli_usage_error("score", "--match pairs a profile's launches; --plan-from "
                                            "%s is simulator values, matched by trace file",
                                   o->plan_from);
        }
        int rc = read_values(&v, traces, p->n, o, o->plan_metric ? o->plan_metric : o->metric,
                             false);
        for (size_t i = 0; !rc && i < p->n; i++) {
            if (isnan(v.value[i]) || v.value[i] < 0 || v.value[i] > 9e18) {
                fprintf(stderr, "ksample score: %s: no usable value for launch %zu\n",
                        o->plan_from, i);
                rc = KS_ERR_FORMAT;
            } else {
                p->duration_ns[i] = (int64_t)llround(v.value[i]);
            }
        }
        values_free(&v);
        return rc;
    }
    if (v.config) {
        values_free(&v);
        return cli_usage_error("score", "--plan-from %s: @CONFIG picks a column of a "
                                        "get_stats.py CSV, and this is a profile",
                               o->plan_from);
    }
    values_free(&v);
    cli_input tin;
    cli_input_init(&tin);
    tin.read = input->read;
    tin.read.format = NULL;
    ks_profile *q;
    int rc = cli_read_profile(o->plan_from, &tin, &q);
    if (rc)
        return rc;
    if (o->match >= 0) {
        rc = cli_score_plan_from_match(p, q, (ks_match_mode)o->match, o->plan_from, o->quiet);
        ks_profile_free(q);
        return rc;
    }
    if (ks_profile_check_aligned(p, q, NULL, o->plan_from, "cannot plan from", &err) != KS_OK)
        rc = cli_fail(&err);
    for (size_t i = 0; !rc && i < p->n; i++)
        p->duration_ns[i] = q->duration_ns[i];
    ks_profile_free(q);
    return rc;
}

/* ------------------------------------------------------------------ run */

static int run(ks_profile *p, const char *traces, const ks_params *pa, score_opts *o)
{
    size_t n = p->n;
    int rc = read_values(&o->truth, traces, n, o, o->metric, false);
    if (!rc && count_present(o->truth.value, n) != n) {
        /* the first launch without a value, where its row is when it has one
         * (a nan or empty cell), so the file can be fixed there */
        size_t i = 0;
        while (i < n && !isnan(o->truth.value[i]))
            i++;
        if (o->truth.line[i] > 0)
            fprintf(stderr,
                    "ksample score: %s:%ld: launch %zu (its row's first line) has no value of "
                    "%s (nan, empty or NA); the full run reports %zu of the %zu launches\n",
                    o->truth.path, o->truth.line[i], i, o->truth.metric,
                    count_present(o->truth.value, n), n);
        else
            fprintf(stderr,
                    "ksample score: %s: launch %zu is not reported; the full run reports %zu "
                    "of the %zu launches\n",
                    o->truth.path, i, count_present(o->truth.value, n), n);
        rc = KS_ERR_FORMAT;
    }
    if (!rc && o->alone.path)
        rc = read_values(&o->alone, traces, n, o, o->metric, false);
    for (int w = 0; !rc && w < o->warm_count; w++) {
        rc = read_values(&o->warm[w], traces, n, o, o->metric, true);
        /* a warm value's cost is its whole run, warm-up included: without it
         * the warm-up would count as free (root's speedup 22.9x instead of
         * 5.1x) */
        if (!rc && !o->warm[w].cost) {
            fprintf(stderr,
                    "ksample score: --warm %s: %s gives no run_cycles (what each launch's "
                    "simulator run cost, warm-up included), so its speedup would count the "
                    "warm-up as free: give the run folder or log it came from, or a CSV "
                    "id,<metric>,run_cycles\n",
                    o->warm[w].name, o->warm[w].path);
            rc = KS_ERR_USAGE;
        }
    }
    if (rc)
        return rc;
    double truth = 0;
    for (size_t i = 0; i < n; i++)
        truth += o->truth.value[i];
    ks_score_set sets[3 + MAX_WARM];
    ks_score_pilot pilot = {0};
    size_t set_count = 0;
    sets[set_count++] =
        (ks_score_set){"context", o->truth.value, NULL, NULL, NULL, NULL, "context"};
    if (o->alone.path)
        sets[set_count++] =
            (ks_score_set){"alone", o->alone.value, NULL, o->alone.cost, NULL, NULL, "none"};
    for (int w = 0; w < o->warm_count; w++)
        sets[set_count++] = (ks_score_set){o->warm[w].name,
                                           o->warm[w].value,
                                           o->alone.path ? o->alone.value : NULL,
                                           o->warm[w].cost,
                                           o->alone.path ? o->alone.value : NULL,
                                           NULL,
                                           o->warm[w].name};
    if (o->pilot) {
        if (!o->alone.path)
            return cli_usage_error("score", "--pilot corrects the alone values: give --alone");
        const ks_score_set *ref = NULL;
        for (size_t s = 0; s < set_count; s++)
            if (strcmp(sets[s].name, o->pilot_ref ? o->pilot_ref : "context") == 0)
                ref = &sets[s];
        if (!ref)
            return cli_usage_error("score", "--pilot-ref %s is not a set of values here",
                                   o->pilot_ref);
        pilot = (ks_score_pilot){(size_t)o->pilot, ref->value, ref->cost, ref->warmup};
        sets[set_count++] = (ks_score_set){"alone+pilot", o->alone.value, NULL, o->alone.cost,
                                           NULL,          &pilot,         "none"};
    }
    ks_score_options so;
    ks_score_options_init(&so);
    so.truth_total = truth;
    so.sets = sets;
    so.set_count = set_count;
    so.seeds = (unsigned)o->seeds;
    so.confidence = pa->confidence;
    so.estimators = o->estimators;
    so.estimator_count = o->estimator_count;
    so.fit = o->fit;
    so.rounds = (unsigned)o->rounds;
    so.refine_epsilon = o->refine_epsilon;
    columns cols = {sets, set_count, o->estimators, o->estimator_count};
    ks_error err;
    ks_error_clear(&err);
    if (ks_plan_cache_new(p, &so.cache, &err) != KS_OK)
        return cli_fail(&err);
    ks_score_result res[MAX_METHODS];
    memset(res, 0, sizeof res);
    int done = 0;
    cli_progress progress;
    cli_progress_init(&progress, o->quiet, "score");
    for (int k = 0; k < o->method_count && !rc; k++) {
        ks_params run = *pa;
        run.method = o->names[k];
        cli_progress_step(&progress, (size_t)k, (size_t)o->method_count, o->names[k]);
        if (ks_score(p, &run, &so, &res[k], &err) != KS_OK)
            rc = cli_fail(&err);
        else
            done++;
        cli_progress_end(&progress);
    }
    ks_plan_cache_free(so.cache);
    if (!rc) {
        if (o->json)
            cli_score_print_json(res, (size_t)done, &cols, truth, p->n);
        else if (o->rows)
            cli_score_print_rows(res, (size_t)done, &cols);
        else
            cli_score_print_summary(res, (size_t)done, &cols, truth, o->rounds > 0);
    }
    for (int k = 0; k < done; k++)
        ks_score_result_free(&res[k]);
    return rc;
}

static int score_main(int argc, char **argv, const struct option *longopts);

int cmd_score(int argc, char **argv)
{
    static const struct option own[] = {
        {"plan-from", required_argument, NULL, 'P'}, {"truth", required_argument, NULL, 'T'},
        {"alone", required_argument, NULL, 'A'},     {"warm", required_argument, NULL, 'W'},
        {"metric", required_argument, NULL, 'm'},    {"plan-metric", required_argument, NULL, 'n'},
        {"config", required_argument, NULL, 'C'},    {"pilot", required_argument, NULL, 'p'},
        {"pilot-ref", required_argument, NULL, 'r'}, {"methods", required_argument, NULL, 'L'},
        {"seeds", required_argument, NULL, 'S'},     {"rows", no_argument, NULL, 'R'},
        {"json", no_argument, NULL, 'j'},            {"quiet", no_argument, NULL, 'q'},
        {"estimators", required_argument, NULL, 'E' + 256},
        {"fit", required_argument, NULL, 'F' + 256},
        {"rounds", required_argument, NULL, 'O' + 256},
        {"match", required_argument, NULL, 'M' + 256},
        {"refine-epsilon", required_argument, NULL, 'V' + 256},
        {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0}};
    return cli_with_sampling_options(own, score_main, argc, argv);
}

static void opts_free(score_opts *o)
{
    values_free(&o->truth);
    values_free(&o->alone);
    for (int w = 0; w < o->warm_count; w++) {
        values_free(&o->warm[w]);
        free((char *)o->warm[w].name);
    }
}

static int parse_option(score_opts *o, int opt, char *methods_buf, size_t methods_size)
{
    switch (opt) {
    case 'P': o->plan_from = optarg; return 0;
    case 'M' + 256:
        if (strcmp(optarg, "name") == 0)
            o->match = -1;
        else if (strcmp(optarg, "family") == 0)
            o->match = KS_MATCH_FAMILY;
        else if (strcmp(optarg, "op") == 0)
            o->match = KS_MATCH_OP;
        else
            return cli_usage_error("score", "--match is name, family or op, got '%s'", optarg);
        return 0;
    case 'T': return values_path(&o->truth, "context", optarg);
    case 'A': return values_path(&o->alone, "alone", optarg);
    case 'm': o->metric = optarg; return 0;
    case 'n': o->plan_metric = optarg; return 0;
    case 'C': o->config = optarg; return 0;
    case 'r': o->pilot_ref = optarg; return 0;
    case 'R': o->rows = true; return 0;
    case 'q': o->quiet = true; return 0;
    case 'L': snprintf(methods_buf, methods_size, "%s", optarg); return 0;
    case 'S':
        if (!cli_parse_u64(optarg, &o->seeds) || o->seeds < 1 || o->seeds > 100000)
            return cli_usage_error("score", "--seeds must be in 1..100000, got '%s'", optarg);
        return 0;
    case 'E' + 256: {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", optarg);
        o->estimator_count = 0;
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
             t = strtok_r(NULL, ",", &save)) {
            int e = ks_estimator_parse(t);
            if (e < 0)
                return cli_usage_error("score", "--estimators: '%s' is not plain, ratio, "
                                                "regression or auto", t);
            if (o->estimator_count == MAX_ESTIMATORS)
                return cli_usage_error("score", "--estimators: at most %d", MAX_ESTIMATORS);
            o->estimators[o->estimator_count++] = (ks_estimator)e;
        }
        if (!o->estimator_count)
            return cli_usage_error("score", "--estimators is empty");
        return 0;
    }
    case 'F' + 256: {
        int f = ks_estimator_fit_parse(optarg);
        if (f < 0)
            return cli_usage_error("score", "--fit is kernel, stratum or all, got '%s'", optarg);
        o->fit = (ks_estimator_fit)f;
        return 0;
    }
    case 'O' + 256:
        if (!cli_parse_u64(optarg, &o->rounds) || o->rounds > 100)
            return cli_usage_error("score", "--rounds must be in 0..100, got '%s'", optarg);
        return 0;
    case 'V' + 256:
        if (!cli_parse_double(optarg, &o->refine_epsilon) ||
            !(o->refine_epsilon > 0 && o->refine_epsilon < 1))
            return cli_usage_error("score", "--refine-epsilon must be in (0, 1), got '%s'",
                                   optarg);
        return 0;
    case 'p':
        if (!cli_parse_u64(optarg, &o->pilot) || o->pilot < 1 || o->pilot > 1000)
            return cli_usage_error("score", "--pilot must be in 1..1000, got '%s'", optarg);
        return 0;
    case 'W': {
        const char *eq = strchr(optarg, '=');
        if (!eq || eq == optarg || !eq[1])
            return cli_usage_error("score", "--warm wants NAME=SRC, got '%s'", optarg);
        if (o->warm_count == MAX_WARM)
            return cli_usage_error("score", "at most %d --warm", MAX_WARM);
        char *name = strndup(optarg, (size_t)(eq - optarg));
        if (!name)
            return KS_ERR_NOMEM;
        if (strcmp(name, "context") == 0 || strcmp(name, "alone") == 0 ||
            strcmp(name, "alone+pilot") == 0) {
            free(name);
            return cli_usage_error("score", "--warm %s: the name is taken", optarg);
        }
        /* two sets of one name would be two columns no one can tell apart */
        for (int w = 0; w < o->warm_count; w++)
            if (strcmp(o->warm[w].name, name) == 0) {
                free(name);
                return cli_usage_error("score", "--warm %s: a set named so is given already",
                                       optarg);
            }
        return values_path(&o->warm[o->warm_count++], name, eq + 1);
    }
    }
    return -1;
}

static int score_main(int argc, char **argv, const struct option *longopts)
{
    cli_input input;
    ks_params pa;
    cli_sampling_init(&input, &pa, false);
    char methods_buf[256] = "root";
    score_opts o;
    memset(&o, 0, sizeof o);
    o.match = -1;
    o.seeds = 100;
    cli_loop l = {.cmd = "score", .longopts = longopts, .shortopts = "hq", .help = help,
                  .json = &o.json, .input = &input, .params = &pa, .operands = 1,
                  .operands_are = "one trace folder"};
    int opt, rc = 0;
    while (!rc && (opt = cli_loop_next(&l, argc, argv)) != -1) {
        int r = parse_option(&o, opt, methods_buf, sizeof methods_buf);
        if (r > 0)
            rc = r;
        else if (r < 0 && cli_params_option(&pa, opt, optarg, "score", &rc) && rc)
            break;
    }
    if (!rc && l.exit >= 0)
        rc = l.exit ? l.exit : -1;
    if (!rc && (!o.plan_from || !o.truth.path))
        rc = cli_usage_error("score", "--plan-from and --truth are required");
    if (!rc) {
        rc = cli_method_list("score", methods_buf, o.names, MAX_METHODS, &o.method_count);
        if (!rc && o.method_count == 0)
            rc = cli_usage_error("score", "--methods is empty");
    }
    ks_profile *p = NULL;
    if (!rc)
        rc = cli_read_profile(argv[optind], &input, &p);
    if (!rc)
        rc = plan_profile(p, argv[optind], &input, &o);
    if (!rc)
        rc = run(p, argv[optind], &pa, &o);
    ks_profile_free(p);
    opts_free(&o);
    return rc < 0 ? 0 : rc;
}
