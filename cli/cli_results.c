/* cli_results.c - the result-reading options of estimate and refine, the
 * estimator they use, what the values cost; estimate's --values CSV and the
 * traces' counts it takes from the trace folder the values came from. */
#include "cli_results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void cli_results_init(cli_results *r, const char *cmd)
{
    memset(r, 0, sizeof *r);
    r->cmd = cmd;
    ks_results_options_init(&r->read);
    r->single = KS_SINGLE_PLAN;
}

bool cli_results_option(cli_results *r, int opt, const char *arg, const char *cmd, int *rc)
{
    uint64_t u;
    *rc = 0;
    switch (opt) {
    case 'U':
        if (!cli_parse_u64(arg, &u) || u > (uint64_t)INT64_MAX)
            *rc = cli_usage_error(cmd, "--uid-base needs a non-negative integer, got '%s'", arg);
        r->read.uid_mode = KS_UID_BASE;
        r->read.uid_base = (int64_t)u;
        return true;
    case 'W':
        if (r->map_count == CLI_MAX_UID_MAPS)
            *rc = cli_usage_error(cmd, "at most %d --uid-map", CLI_MAX_UID_MAPS);
        else
            r->maps[r->map_count++] = arg;
        r->read.uid_mode = KS_UID_MAP;
        return true;
    case 'C' + 256:
        if (strcmp(arg, "split") == 0)
            r->read.concurrent = KS_CONCURRENT_SPLIT;
        else if (strcmp(arg, "refuse") == 0)
            r->read.concurrent = KS_CONCURRENT_REFUSE;
        else
            *rc = cli_usage_error(cmd, "--concurrent is split or refuse, got '%s'", arg);
        return true;
    case 'P' + 256:
        r->profile_path = arg;
        return true;
    case 'G' + 256:
        r->read.config = arg;
        return true;
    case 'A' + 256:
        r->read.app = arg;
        return true;
    case 'T' + 256:
        r->read.traces = arg;
        r->traces_given = true;
        return true;
    case 'M' + 256:
        if (strcmp(arg, "last") == 0)
            r->read.measured = KS_MEASURED_LAST;
        else if (strcmp(arg, "all") == 0)
            r->read.measured = KS_MEASURED_ALL;
        else
            *rc = cli_usage_error(cmd, "--measure is all or last, got '%s'", arg);
        return true;
    case 'S' + 256:
        if (strcmp(arg, "plan") == 0)
            r->single = KS_SINGLE_PLAN;
        else if (strcmp(arg, "calibrate") == 0)
            r->single = KS_SINGLE_CALIBRATE;
        else if (strcmp(arg, "collapse") == 0)
            r->single = KS_SINGLE_COLLAPSE;
        else if (strcmp(arg, "profile-cv") == 0)
            r->single = KS_SINGLE_PROFILE_CV;
        else
            *rc = cli_usage_error(
                cmd, "--single-sample is plan, calibrate, collapse or profile-cv, got '%s'", arg);
        return true;
    }
    return false;
}

/* The profile every reported launch is checked against: --profile must be
 * read, the plan's recorded input is used when it can be. */
static int open_profile(cli_results *r, const ks_plan *plan)
{
    if (r->profile) { /* read already (the results, then the pilot's) */
        r->read.profile = r->profile;
        return 0;
    }
    ks_error_clear(&r->profile_err);
    if (ks_plan_open_profile(plan, r->profile_path, &r->profile, &r->profile_err) == KS_OK) {
        r->read.profile = r->profile;
        return 0;
    }
    r->profile = NULL;
    r->read.profile = NULL;
    return r->profile_path ? cli_fail(&r->profile_err) : 0;
}

/* What the results reported that nothing could check. */
static void note_unchecked(const char *cmd, const cli_results *r, const ks_results *out)
{
    if (!out->unchecked_names && !out->unchecked_dims)
        return;
    if (r->profile) {
        fprintf(stderr,
                "ksample %s: note: the grid and block the results report for %zu launches "
                "were not checked: the plan's profile has none\n",
                cmd, out->unchecked_dims);
        return;
    }
    char why[1200], what[160] = "";
    ks_error_format(&r->profile_err, why, sizeof why);
    if (out->unchecked_names)
        snprintf(what, sizeof what, "the kernel names of %zu launches%s", out->unchecked_names,
                 out->unchecked_dims ? " and " : "");
    if (out->unchecked_dims)
        snprintf(what + strlen(what), sizeof what - strlen(what),
                 "the grid and block of %zu launches", out->unchecked_dims);
    fprintf(stderr,
            "ksample %s: note: %s the results report were not checked against the plan (its "
            "profile could not be read: %s; give --profile)\n",
            cmd, what, why);
}

int cli_results_read(cli_results *r, const char *plan_path, const ks_plan *plan, char **paths,
                     int count, ks_results *out)
{
    ks_error err;
    ks_error_clear(&err);
    ks_results_init(out);
    int prc = open_profile(r, plan);
    if (prc)
        return prc;
    if (ks_file_xxh128(plan_path, r->plan_digest, &err) != KS_OK)
        return cli_fail(&err);
    r->read.plan_xxh128 = r->plan_digest;
    /* with the trace folder, a log's kernels are matched by the trace file
     * each names, unless a uid mapping was asked for */
    if (r->traces_given && r->read.uid_mode == KS_UID_SAMPLED)
        r->read.uid_mode = KS_UID_TRACE;
    /* --uid-base maps by position alone: when the plan was sampled from a
     * trace folder, the trace files and names the log gives are still
     * checked against it */
    struct stat sb;
    if (r->read.uid_mode == KS_UID_BASE && !r->read.traces && plan->input_path[0] &&
        stat(plan->input_path, &sb) == 0 && S_ISDIR(sb.st_mode))
        r->read.traces = plan->input_path;
    if (r->map_count > 1 && r->map_count != count) {
        ks_results_free(out);
        fprintf(stderr, "ksample: %d --uid-map for %d results: give one, or one each\n",
                r->map_count, count);
        return KS_ERR_USAGE;
    }
    for (int i = 0; i < count; i++) {
        if (r->map_count)
            r->read.uid_map = r->maps[r->map_count > 1 ? i : 0];
        if (ks_results_read(paths[i], plan, &r->read, out, &err) != KS_OK ||
            ks_results_check_plan(out, plan, &err) != KS_OK) {
            ks_results_free(out);
            return cli_fail(&err);
        }
    }
    note_unchecked(r->cmd, r, out);
    if (out->dropped[0])
        fprintf(stderr, "ksample %s: note: %s\n", r->cmd, out->dropped);
    return 0;
}

int cli_with_plan_results(cli_results *r, const char *plan_path, char **paths, int count,
                          cli_plan_results_fn use, void *ctx)
{
    ks_error err;
    ks_error_clear(&err);
    ks_plan plan;
    if (ks_plan_read(plan_path, &plan, &err) != KS_OK)
        return cli_fail(&err);
    ks_results results;
    int rc = cli_results_read(r, plan_path, &plan, paths, count, &results);
    if (rc == 0) {
        rc = use(&plan, &results, ctx);
        ks_results_free(&results);
    }
    ks_profile_free(r->profile);
    r->profile = NULL;
    r->read.profile = NULL;
    ks_plan_free(&plan);
    return rc;
}

void cli_plan_estimator(const ks_plan *plan, int estimator, int fit, const char *auxiliary,
                        ks_estimator *est_out, ks_estimator_fit *fit_out, char *aux_out,
                        size_t aux_size)
{
    *est_out = KS_ESTIMATOR_PLAIN;
    *fit_out = KS_FIT_KERNEL;
    snprintf(aux_out, aux_size, "%s", auxiliary ? auxiliary : "duration");
    for (size_t i = 0; i < plan->extra_param_count; i++) {
        const char *v = plan->extra_param_values[i];
        char name[160] = "";
        if (v[0] == '"')
            snprintf(name, sizeof name, "%.*s", (int)strcspn(v + 1, "\""), v + 1);
        if (strcmp(plan->extra_param_names[i], "refine_estimator") == 0 &&
            ks_estimator_parse(name) >= 0)
            *est_out = (ks_estimator)ks_estimator_parse(name);
        if (strcmp(plan->extra_param_names[i], "refine_fit") == 0 &&
            ks_estimator_fit_parse(name) >= 0)
            *fit_out = (ks_estimator_fit)ks_estimator_fit_parse(name);
        if (strcmp(plan->extra_param_names[i], "refine_auxiliary") == 0 && !auxiliary &&
            name[0])
            snprintf(aux_out, aux_size, "%s", name);
    }
    if (estimator >= 0)
        *est_out = (ks_estimator)estimator;
    if (fit >= 0)
        *fit_out = (ks_estimator_fit)fit;
}

int cli_auxiliary(const ks_plan *plan, const cli_results *cr, const char *name, double **x,
                  double **total)
{
    *x = *total = NULL;
    if (!cr->profile) {
        char why[600];
        ks_error_format(&cr->profile_err, why, sizeof why);
        fprintf(stderr,
                "ksample %s: the ratio and regression estimators need the plan's profile, "
                "which could not be read: %s; give it with --profile\n",
                cr->cmd, why);
        return KS_ERR_USAGE;
    }
    *x = malloc((plan->sample_count + 1) * sizeof **x);
    *total = malloc((plan->cluster_count + 1) * sizeof **total);
    if (!*x || !*total)
        return KS_ERR_NOMEM;
    ks_error err;
    ks_error_clear(&err);
    if (ks_plan_auxiliary(plan, cr->profile, name, *x, *total, &err) != KS_OK)
        return cli_fail(&err);
    return 0;
}

bool cli_estimator_option(int opt, const char *arg, const char *cmd, int *estimator, int *fit,
                          const char **auxiliary, int *rc)
{
    *rc = 0;
    switch (opt) {
    case 'E' + 256:
        if ((*estimator = ks_estimator_parse(arg)) < 0)
            *rc = cli_usage_error(cmd, "--estimator is plain, ratio, regression or auto, got '%s'",
                                  arg);
        return true;
    case 'F' + 256:
        if ((*fit = ks_estimator_fit_parse(arg)) < 0)
            *rc = cli_usage_error(cmd, "--fit is kernel, stratum or all, got '%s'", arg);
        return true;
    case 'X' + 256:
        *auxiliary = arg;
        return true;
    }
    return false;
}

void cli_cost_measure(const ks_results *r, cli_cost *c)
{
    *c = (cli_cost){.run = NAN, .factor = NAN};
    long own = ks_results_metric(r, "gpu_sim_cycle");
    if (own < 0)
        own = ks_results_metric(r, "cycles");
    long run = ks_results_metric(r, "run_cycles");
    if (own < 0)
        return;
    c->cycles = r->metrics[own];
    if (run < 0)
        return;
    long double a = 0, b = 0;
    for (size_t row = 0; row < r->row_count; row++) {
        double x = r->values[own][row], y = r->values[run][row];
        if (isfinite(x) && isfinite(y) && x > 0) {
            a += x;
            b += y;
            c->launches++;
        }
    }
    if (c->launches && a > 0) {
        c->own = (double)a;
        c->run = (double)b;
        c->factor = (double)(b / a);
    }
}

/* The trace folder the values were simulated from: --traces, else the
 * first run folder's manifest's; NULL when neither says.  *cache: the run
 * folder's trace-counts.csv (NULL without a run folder). */
const char *cli_results_traces(const cli_results *cr, char **paths, int count, char *trace_buf,
                               size_t trace_size, char *cache, size_t cache_size,
                               const char **cache_out)
{
    *cache_out = NULL;
    const char *traces = cr->read.traces;
    for (int i = 0; i < count; i++) {
        struct stat sb;
        if (stat(paths[i], &sb) != 0 || !S_ISDIR(sb.st_mode))
            continue;
        char mpath[4096];
        snprintf(mpath, sizeof mpath, "%s/manifest.json", paths[i]);
        ks_run_manifest m;
        ks_error err;
        ks_error_clear(&err);
        if (ks_run_manifest_read(mpath, &m, &err) != KS_OK)
            continue;
        if (!traces && m.traces) {
            snprintf(trace_buf, trace_size, "%s", m.traces);
            traces = trace_buf;
        }
        bool same = m.traces && traces && strcmp(m.traces, traces) == 0;
        ks_run_manifest_free(&m);
        if (same && !*cache_out) {
            snprintf(cache, cache_size, "%s/trace-counts.csv", paths[i]);
            *cache_out = cache;
        }
    }
    return traces;
}

static void csv_field(const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

typedef struct id_row {
    uint64_t id;
    size_t row;
} id_row;

static int cmp_row(const void *a, const void *b)
{
    uint64_t x = ((const id_row *)a)->id, y = ((const id_row *)b)->id;
    return (x > y) - (x < y);
}

/* v as a results CSV holds it: a whole number as its digits (a count of
 * 12345678901234567168, never 1.2345678901234567e+19, which a results CSV
 * refuses), any other with 17 significant digits and no exponent either. */
static void print_plain(double v)
{
    if (v == floor(v) && fabs(v) <= 18446744073709551616.0) {
        /* 2^64 is the double of a count of 2^64 - 1 (or just below): the
         * largest count a CSV takes */
        if (v == 18446744073709551616.0)
            printf("18446744073709551615");
        else
            printf("%.0f", v);
        return;
    }
    int exp10 = v != 0 ? (int)floor(log10(fabs(v))) : 0;
    int decimals = 16 - exp10;
    printf("%.*f", decimals < 0 ? 0 : decimals > 340 ? 340 : decimals, v);
}

/* The results table as the CSV ks_results_read reads back: every value
 * with all its digits, empty where a launch has none. */
int cli_results_print_csv(const ks_results *r)
{
    id_row *order = malloc((r->row_count ? r->row_count : 1) * sizeof *order);
    if (!order)
        return KS_ERR_NOMEM;
    for (size_t i = 0; i < r->row_count; i++)
        order[i] = (id_row){r->ids[i], i};
    qsort(order, r->row_count, sizeof *order, cmp_row);
    printf("id");
    for (size_t m = 0; m < r->metric_count; m++) {
        putchar(',');
        csv_field(r->metrics[m]);
    }
    putchar('\n');
    for (size_t k = 0; k < r->row_count; k++) {
        size_t i = order[k].row;
        printf("%llu", (unsigned long long)r->ids[i]);
        for (size_t m = 0; m < r->metric_count; m++) {
            uint64_t u;
            if (isnan(r->values[m][i]))
                printf(",");
            else if (ks_results_count(r, m, i, &u))
                printf(",%llu", (unsigned long long)u); /* a count as it was read */
            else {
                putchar(',');
                print_plain(r->values[m][i]);
            }
        }
        putchar('\n');
    }
    free(order);
    return 0;
}

/* The traces' counts as columns of the plan's profile, for --auxiliary:
 * trace_insts (thread instructions, gpu_sim_insn's; MacSim: INST_COUNT_TOT's)
 * and trace_warp_insts (Accel-Sim's lines); nothing when the profile is not
 * of the traces' launch count. */
ks_status cli_profile_trace_columns(ks_profile *p, const ks_known *k, ks_error *err)
{
    if (!p || p->n != k->launch_count)
        return KS_OK;
    const char *from[2] = {k->metric_count > 1 ? "gpu_sim_insn" : "INST_COUNT_TOT",
                           "gpgpu_n_tot_w_icount"};
    const char *name[2] = {"trace_insts", "trace_warp_insts"};
    for (size_t c = 0; c < 2; c++) {
        long m = ks_known_metric(k, from[c]);
        if (m < 0)
            continue;
        ks_metric_column *col;
        ks_status st = ks_profile_metric(p, name[c], &col, err);
        if (st != KS_OK)
            return st;
        for (size_t i = 0; i < p->n; i++)
            col->values[i] = (double)k->values[m][i];
    }
    return KS_OK;
}
