/* cmd_report.c - `ksample report`: one self-contained HTML page with the
 * profile's duration histograms, a plan drawn over them, the methods
 * compared, the epsilon sweep and (given) the estimates and the measured
 * speedup-against-error curves of `ksample score`. */
#include "cli.h"
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: ksample report [options] PROFILE\n\n"
           "Writes one HTML file that needs nothing else (inline CSS and SVG charts, no\n"
           "script, no network): the kernels with the most time as duration histograms\n"
           "(log scale where durations span decades) with the plan's clusters and samples;\n"
           "each method's speedup against error; speedup and error against the error\n"
           "bound (the epsilon sweep); the comparison table; with --estimate, the\n"
           "estimates with their intervals; and, with --score, each method's speedup\n"
           "against the error it really makes, measured against a simulator's full run.\n"
           "The plan drawn is --plan FILE, or one made here with --method and the\n"
           "sampling options.\n\n"
           "options:\n"
           "  -o, --output FILE  the page (default report.html); written atomically\n"
           "  --plan FILE        draw this plan (from 'ksample sample'; it must be of\n"
           "                     PROFILE: the same input digest)\n"
           "  --method M         method of the plan made when no --plan (default root)\n"
           "  --methods LIST     methods compared (default root,stem,allegro,random)\n"
           "  --iters N          plans per method and epsilon (default 5; 0: compare none)\n"
           "  --epsilons LIST    bounds of the sweep (default 0.01,0.02,0.05,0.1,0.2;\n"
           "                     '' for no sweep); methods without a bound are left out\n"
           "  --estimate FILE    output of 'ksample estimate --json' to show\n"
           "  --score [NAME=]FILE  output of 'ksample score --json' (repeatable, at most\n"
           "                     64): every set of values it scores is one point of its\n"
           "                     method's curve, speedup against mean error, one chart\n"
           "                     per set of values (context, alone, a warm state).  Give\n"
           "                     one file per value of a knob swept (--epsilon, --k-max,\n"
           "                     ...) to draw the curve.  NAME (no '/' or '=') names the\n"
           "                     file's series in place of its method (before it when it\n"
           "                     holds several): 'pooled=s.json'.  Every file must be of\n"
           "                     the same full run (the same truth)\n"
           "  --top N            histograms drawn (default 6)\n"
           "  --title TEXT       page title (default: the profile's file name)\n"
           "  -q, --quiet        no progress on stderr\n" CLI_INPUT_HELP
           "  -h, --help         this text\n");
    cli_params_help();
    printf("\nA method parameter applies to the methods that declare it.\n");
}

enum { MAX_SCORES = 64 };

typedef struct report_args {
    const char *output, *estimate, *title, *plan, *profile;
    const char *command; /* the command line, shown on the page */
    const char *scores[MAX_SCORES]; /* [NAME=]FILE as given */
    int score_count;
    char methods[256], epsilons[256];
    uint64_t iters, top;
    bool quiet;
} report_args;

typedef struct report_data {
    ks_report_input in;
    ks_plan plan;
    bool have_plan;
    ks_eval_result methods[16];
    ks_sweep_point *sweep;
    ks_estimate_row *estimates;
    ks_score_point *scores;
} report_data;

static int split_epsilons(char *list, double *eps, int *count)
{
    *count = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        double e;
        if (!cli_parse_double(tok, &e) || !(e > 0 && e < 1))
            return cli_usage_error("report", "--epsilons: each must be in (0, 1), got '%s'",
                                   tok);
        if (*count == 32)
            return cli_usage_error("report", "--epsilons: at most 32");
        eps[(*count)++] = e;
    }
    return 0;
}

static int evaluate(const ks_profile *p, const ks_params *pa, const report_args *a,
                    report_data *d)
{
    char methods[256], epsilons[256];
    snprintf(methods, sizeof methods, "%s", a->methods);
    snprintf(epsilons, sizeof epsilons, "%s", a->epsilons);
    const char *names[16];
    double eps[32];
    int count, neps, rc;
    if ((rc = cli_method_list("report", methods, names, 16, &count)) || (rc = split_epsilons(epsilons, eps, &neps)))
        return rc;
    if (a->iters == 0)
        return 0;
    d->sweep = calloc((size_t)count * (size_t)neps + 1, sizeof *d->sweep);
    if (!d->sweep)
        return KS_ERR_NOMEM;
    cli_progress pr;
    cli_progress_init(&pr, a->quiet, "report");
    size_t steps = (size_t)count * (size_t)(1 + neps), step = 0;
    ks_error err;
    ks_error_clear(&err);
    for (int i = 0; i < count; i++) {
        ks_params run = *pa;
        run.method = names[i];
        run.strict = 0; /* the plan's parameters apply to the methods that declare them */
        cli_progress_step(&pr, step++, steps, "evaluating methods");
        if (ks_evaluate(p, &run, (unsigned)a->iters, &d->methods[i], &err) != KS_OK)
            return cli_progress_end(&pr), cli_fail(&err);
        d->in.method_count++;
        if (!(d->methods[i].bound_pct > 0)) {
            step += (size_t)neps; /* no bound: nothing to sweep */
            continue;
        }
        for (int k = 0; k < neps; k++) {
            cli_progress_step(&pr, step++, steps, "evaluating methods");
            ks_sweep_point *sp = &d->sweep[d->in.sweep_count];
            run.epsilon = eps[k];
            sp->epsilon = eps[k];
            if (ks_evaluate(p, &run, (unsigned)a->iters, &sp->result, &err) != KS_OK)
                return cli_progress_end(&pr), cli_fail(&err);
            d->in.sweep_count++;
        }
    }
    cli_progress_step(&pr, steps, steps, "evaluating methods");
    cli_progress_end(&pr);
    d->in.methods = d->methods;
    d->in.sweep = d->sweep;
    return 0;
}

static ks_status write_page(const void *ctx, FILE *f, ks_error *err)
{
    return ks_report_write_html(ctx, f, err);
}

/* The user's plan, refused unless it was made from this very profile: its
 * ids index the profile's launches. */
static int read_plan(const ks_profile *p, const char *path, const char *profile_path,
                     ks_plan *plan)
{
    ks_error err;
    ks_error_clear(&err);
    if (ks_plan_read(path, plan, &err) != KS_OK)
        return cli_fail(&err);
    if (!plan->input_xxh128[0] || strcmp(plan->input_xxh128, p->source_xxh128) != 0) {
        fprintf(stderr,
                "ksample: %s: this plan is of another input (%s, XXH3-128 %s), not of the "
                "profile %s (XXH3-128 %s)\n",
                path, plan->input_path[0] ? plan->input_path : "(not recorded)",
                plan->input_xxh128[0] ? plan->input_xxh128 : "(not recorded)", profile_path,
                p->source_xxh128[0] ? p->source_xxh128 : "(not known)");
        ks_plan_free(plan);
        return KS_ERR_FORMAT;
    }
    return 0;
}

/* The file of a --score argument, and its NAME= label (NULL when none):
 * a prefix up to the first '=' holding no '/'. */
static const char *score_file(const char *arg, char *label, size_t size, bool *labelled)
{
    const char *eq = strchr(arg, '=');
    *labelled = eq && eq > arg && !memchr(arg, '/', (size_t)(eq - arg));
    if (!*labelled)
        return arg;
    snprintf(label, size, "%.*s", (int)(eq - arg), arg);
    return eq + 1;
}

/* Every --score file's points, one list; the files must share their truth. */
static int read_scores(const report_args *a, report_data *d)
{
    size_t total = 0;
    double truth0 = 0;
    const char *first = NULL;
    for (int i = 0; i < a->score_count; i++) {
        char label[80];
        bool labelled;
        const char *path = score_file(a->scores[i], label, sizeof label, &labelled);
        ks_score_point *pts;
        size_t n;
        double truth;
        ks_error err;
        ks_error_clear(&err);
        if (ks_score_points_read(path, labelled ? label : NULL, &truth, &pts, &n, &err) != KS_OK)
            return cli_fail(&err);
        if (first && truth != truth0) {
            fprintf(stderr,
                    "ksample: %s: scored against a full run of %.17g cycles, but %s against "
                    "one of %.17g: the points of one report must share their truth\n",
                    path, truth, first, truth0);
            free(pts);
            return KS_ERR_FORMAT;
        }
        /* a score of another workload: its launch count is not the profile's */
        if (n && !isnan(pts[0].workload_launches) &&
            pts[0].workload_launches != (double)d->in.profile->n) {
            fprintf(stderr,
                    "ksample: %s: scores a workload of %.0f launches, but the profile %s has "
                    "%zu: scores of another workload\n",
                    path, pts[0].workload_launches, a->profile, d->in.profile->n);
            free(pts);
            return KS_ERR_FORMAT;
        }
        if (n && isnan(pts[0].workload_launches))
            fprintf(stderr,
                    "ksample report: note: %s does not say which workload it scored (written "
                    "before score --json recorded it): not checked against %s\n",
                    path, a->profile);
        first = first ? first : path;
        truth0 = truth;
        ks_score_point *grown = realloc(d->scores, (total + n) * sizeof *grown);
        if (!grown) {
            free(pts);
            return KS_ERR_NOMEM;
        }
        d->scores = grown;
        memcpy(d->scores + total, pts, n * sizeof *pts);
        total += n;
        free(pts);
    }
    d->in.scores = d->scores;
    d->in.score_count = total;
    d->in.score_truth = truth0;
    return 0;
}

static int build(const ks_profile *p, const ks_params *pa, const report_args *a, report_data *d)
{
    ks_error err;
    ks_error_clear(&err);
    d->in.profile = p;
    d->in.title = a->title;
    d->in.command = a->command;
    d->in.top_kernels = (size_t)a->top;
    if (a->plan) {
        int rc = read_plan(p, a->plan, a->profile, &d->plan);
        if (rc)
            return rc;
    } else if (ks_plan_build(p, pa, &d->plan, &err) != KS_OK) {
        return cli_fail(&err);
    }
    d->have_plan = true;
    d->in.plan = &d->plan;
    if (a->estimate) {
        if (ks_estimate_rows_read(a->estimate, &d->estimates, &d->in.estimate_count, &err) !=
            KS_OK)
            return cli_fail(&err);
        d->in.estimates = d->estimates;
    }
    int rc = read_scores(a, d);
    if (rc)
        return rc;
    rc = evaluate(p, pa, a, d);
    if (rc)
        return rc;
    if (ks_write_atomic(a->output, write_page, &d->in, &err) != KS_OK)
        return cli_fail(&err);
    if (!a->quiet)
        fprintf(stderr, "ksample: wrote %s\n", a->output);
    return 0;
}

static int parse_options(int argc, char **argv, report_args *a, ks_params *pa,
                         cli_input *input, const struct option *longopts);

static int parse(int argc, char **argv, report_args *a, ks_params *pa, cli_input *input)
{
    static const struct option own[] = {
        {"output", required_argument, NULL, 'o'},   {"method", required_argument, NULL, 'M' + 256},
        {"methods", required_argument, NULL, 'L'},  {"iters", required_argument, NULL, 'i'},
        {"epsilons", required_argument, NULL, 'E'}, {"estimate", required_argument, NULL, 'Y'},
        {"top", required_argument, NULL, 't'},      {"title", required_argument, NULL, 'H'},
        {"quiet", no_argument, NULL, 'q'},          {"help", no_argument, NULL, 'h'},
        {"plan", required_argument, NULL, 'P' + 256},
        {"score", required_argument, NULL, 'S' + 256},
        {NULL, 0, NULL, 0}};
    struct option *longopts = cli_sampling_options(own);
    if (!longopts)
        return KS_ERR_NOMEM;
    int rc = parse_options(argc, argv, a, pa, input, longopts);
    free(longopts);
    return rc;
}

static int parse_options(int argc, char **argv, report_args *a, ks_params *pa,
                         cli_input *input, const struct option *longopts)
{
    cli_loop l = {.cmd = "report", .longopts = longopts, .shortopts = "ho:q", .help = help,
                  .input = input, .params = pa, .operands = 1,
                  .operands_are = "one profile file"};
    int opt, rc;
    while ((opt = cli_loop_next(&l, argc, argv)) != -1) {
        switch (opt) {
        case 'o': a->output = optarg; break;
        case 'M' + 256:
            if ((rc = cli_method_check("report", optarg)))
                return rc;
            pa->method = optarg;
            break;
        case 'L': snprintf(a->methods, sizeof a->methods, "%s", optarg); break;
        case 'E': snprintf(a->epsilons, sizeof a->epsilons, "%s", optarg); break;
        case 'Y': a->estimate = optarg; break;
        case 'P' + 256: a->plan = optarg; break;
        case 'S' + 256: {
            if (a->score_count == MAX_SCORES)
                return cli_usage_error("report", "--score: at most %d files", MAX_SCORES);
            char label[80];
            bool labelled;
            const char *file = score_file(optarg, label, sizeof label, &labelled);
            if (!file[0] || (labelled && strlen(label) > 64))
                return cli_usage_error("report",
                                       "--score wants [NAME=]FILE, NAME of 1 to 64 "
                                       "characters, got '%s'",
                                       optarg);
            a->scores[a->score_count++] = optarg;
            break;
        }
        case 'H': a->title = optarg; break;
        case 'q': a->quiet = true; break;
        case 'i':
            if (!cli_parse_u64(optarg, &a->iters) || a->iters > 100000)
                return cli_usage_error("report", "--iters must be in 0..100000, got '%s'", optarg);
            break;
        case 't':
            if (!cli_parse_u64(optarg, &a->top) || a->top < 1 || a->top > 100)
                return cli_usage_error("report", "--top must be in 1..100, got '%s'", optarg);
            break;
        }
    }
    return l.exit == 0 ? -1 : l.exit < 0 ? 0 : l.exit; /* -1: --help, nothing to do */
}

static int report_main(int argc, char **argv, report_args *a, ks_params *pa,
                       cli_input *input);

int cmd_report(int argc, char **argv)
{
    report_args a = {.output = "report.html", .iters = 5, .top = 6,
                     .methods = "root,stem,allegro,random",
                     .epsilons = "0.01,0.02,0.05,0.1,0.2"};
    ks_params pa;
    cli_input input;
    cli_sampling_init(&input, &pa, true);
    /* the page names the command that writes it (before getopt reorders argv) */
    char *command = cli_command_line(argc, argv);
    int rc = parse(argc, argv, &a, &pa, &input);
    if (rc) {
        free(command);
        return rc < 0 ? 0 : rc;
    }
    a.command = command;
    rc = report_main(argc, argv, &a, &pa, &input);
    free(command);
    return rc;
}

static int report_main(int argc, char **argv, report_args *a_in, ks_params *pa_in,
                       cli_input *input_in)
{
    report_args a = *a_in;
    ks_params pa = *pa_in;
    cli_input input = *input_in;
    int rc;
    const char *inputs[6 + MAX_SCORES] = {argv[optind], input.metrics, input.bbv,
                                           input.traces, a.plan,       a.estimate};
    for (int i = 0; i < a.score_count; i++) {
        char label[80];
        bool labelled;
        inputs[6 + i] = score_file(a.scores[i], label, sizeof label, &labelled);
    }
    if ((rc = cli_check_output("report", a.output, inputs, (size_t)(6 + a.score_count))))
        return rc;
    cli_progress pr;
    cli_progress_init(&pr, a.quiet, "report");
    char note[600];
    a.profile = argv[optind];
    snprintf(note, sizeof note, "reading %s", argv[optind]);
    cli_progress_note(&pr, note);
    ks_profile *p;
    rc = cli_read_profile(argv[optind], &input, &p);
    cli_progress_end(&pr);
    if (rc)
        return rc;
    report_data d;
    memset(&d, 0, sizeof d);
    rc = build(p, &pa, &a, &d);
    if (d.have_plan)
        ks_plan_free(&d.plan);
    free(d.sweep);
    free(d.estimates);
    free(d.scores);
    ks_profile_free(p);
    return rc;
}
