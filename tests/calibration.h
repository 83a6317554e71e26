/*
 * calibration.h - the calibration battery (issue 32): every estimator and
 * design ksample offers, scored on the recorded real-simulator data
 * (../shared/data/sim, tests/data/accelsim-warmup and macsim-warmup) over many
 * seeds, with plans
 * drawn from the configuration the values are of and from another one,
 * and with in-context, alone, warmed and pilot-corrected values: how often
 * the 95 % interval covers the full run's total, and, where the interval
 * says the bound is met, how often the truth is within it.
 *
 * Shared by tests/test_calibration.c (the bars, >= 200 seeds, seconds) and
 * bench/bench_calibration.c (the whole table of docs/bench.md).  Everything
 * is read from the data sets' per-launch CSVs (the logs they were made
 * from are read exactly by tests/test_simout.c), so it runs in seconds.
 *
 * Which combinations must hold is the library's word, not this file's:
 * ks_score says per column whether ksample stands behind its interval for
 * the full run's total (ks_score_summary.claim), and the bars apply to those
 * (a combination ksample does not stand behind prints why instead).
 */
#ifndef KS_CALIBRATION_H
#define KS_CALIBRATION_H

#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CAL_MAX_SETS = 16, CAL_MAX_PROFILES = 6, CAL_MAX_CONFIGS = 3 };

typedef struct cal_set {
    char name[32];    /* "context", "alone", or a warm-up mode ("since-same:8") */
    char warmup[32];  /* how the values were simulated, as a run records it */
    double *value;    /* per launch; NAN where none (the alone value counts) */
    double *cost;     /* per launch, warm-up included (NULL: the value) */
} cal_set;

typedef struct cal_config {
    char name[32];
    double *full;  /* the full run: the truth, and the "context" values */
    double *alone;
    /* only its warmed values are scored (its full run is the truth they are
     * held against; its context and alone rows would repeat another
     * configuration's) */
    bool warmed_only;
    size_t set_count;
    cal_set sets[CAL_MAX_SETS];
} cal_config;

typedef struct cal_profile {
    char name[48];     /* what the plans are drawn from */
    const double *ns;  /* per launch */
    int config;        /* the configuration whose full run it is, -1: none */
} cal_profile;

typedef struct cal_data {
    char name[48];
    size_t n;
    char **kernel;    /* per launch */
    double *time;     /* a profiled time per launch (NULL: none) */
    size_t config_count;
    cal_config configs[CAL_MAX_CONFIGS];
    size_t profile_count;
    cal_profile profiles[CAL_MAX_PROFILES];
} cal_data;

/* ------------------------------------------------------------ reading */

/* The cells of one CSV line, split in place at commas (no quoting in these
 * files). */
static int cal_split(char *line, char **field, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line;;) {
        field[n++] = p;
        char *c = strchr(p, ',');
        if (!c || n == max)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static int cal_column(char **header, int hn, const char *name)
{
    for (int i = 0; i < hn; i++)
        if (strcmp(header[i], name) == 0)
            return i;
    return -1;
}

/* Column col of a CSV keyed by `key` (launch or id), rows of `config` only
 * when the file has a config column; NAN where empty.  0 on success. */
static int cal_read_column(const char *path, const char *key, const char *config,
                           const char *col, double *out, size_t n, char **kernel)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    for (size_t i = 0; i < n; i++)
        out[i] = NAN;
    char line[4096], head[4096];
    char *header[32], *field[32];
    if (!fgets(head, sizeof head, f)) {
        fclose(f);
        return -1;
    }
    int hn = cal_split(head, header, 32);
    int k = cal_column(header, hn, key), c = cal_column(header, hn, col);
    int cc = cal_column(header, hn, "config"), kc = cal_column(header, hn, "kernel");
    if (k < 0 || c < 0) {
        fclose(f);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        int fn = cal_split(line, field, 32);
        if (fn <= k || fn <= c)
            continue;
        if (config && cc >= 0 && strcmp(field[cc], config) != 0)
            continue;
        size_t id = (size_t)strtoul(field[k], NULL, 10);
        if (id >= n)
            continue;
        out[id] = field[c][0] ? strtod(field[c], NULL) : NAN;
        if (kernel && kc >= 0 && !kernel[id])
            kernel[id] = strdup(field[kc]);
    }
    fclose(f);
    return 0;
}

static double *cal_array(size_t n)
{
    double *a = malloc((n ? n : 1) * sizeof *a);
    for (size_t i = 0; a && i < n; i++)
        a[i] = NAN;
    return a;
}

static cal_set *cal_add_set(cal_config *c, const char *name, const char *warmup)
{
    if (c->set_count == CAL_MAX_SETS)
        return NULL;
    cal_set *s = &c->sets[c->set_count++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->warmup, sizeof s->warmup, "%s", warmup);
    return s;
}

/* A recorded run of every launch: id,<value>,run_cycles. */
static int cal_recorded(cal_config *c, size_t n, const char *path, const char *value,
                        const char *mode)
{
    /* a file <mode>-all.csv: the state with every held line (--state-lines
     * all), a warm-up of the mode named with what it loads */
    char name[32], warmup[32];
    snprintf(name, sizeof name, "%s", mode);
    snprintf(warmup, sizeof warmup, "%s", mode);
    size_t len = strlen(warmup);
    if (len > 4 && strcmp(warmup + len - 4, "-all") == 0) {
        warmup[len - 4] = '\0';
        snprintf(name, sizeof name, "%.19s (all lines)", warmup);
    }
    /* files state-memcpy32.csv and state-memcpy32-stores.csv: the carriers
     * state:memcpy32 and state:memcpy32+stores */
    if (strncmp(warmup, "state-memcpy", 12) == 0) {
        warmup[5] = name[5] = ':';
        char *stores = strstr(warmup, "-stores");
        if (stores)
            *stores = name[stores - warmup] = '+';
    }
    cal_set *s = cal_add_set(c, name, warmup);
    if (!s || !(s->value = cal_array(n)) || !(s->cost = cal_array(n)))
        return -1;
    if (cal_read_column(path, "id", NULL, value, s->value, n, NULL) ||
        cal_read_column(path, "id", NULL, "run_cycles", s->cost, n, NULL))
        return -1;
    return 0;
}

/* A warm-up column of a data set's warm_per_launch.csv (no costs); a
 * launch without a warm-up launch has its alone value, as in a run. */
static int cal_warm_column(cal_config *c, size_t n, const char *path, const char *config,
                           const char *col, const char *mode)
{
    double *v = cal_array(n);
    if (!v || cal_read_column(path, "launch", config, col, v, n, NULL)) {
        free(v);
        return -1;
    }
    size_t have = 0;
    for (size_t i = 0; i < n; i++) {
        have += !isnan(v[i]);
        if (isnan(v[i]))
            v[i] = c->alone[i];
    }
    if (!have) {
        free(v);
        return 0;
    }
    cal_set *s = cal_add_set(c, mode, mode);
    if (!s) {
        free(v);
        return -1;
    }
    s->value = v;
    return 0;
}

static void cal_free(cal_data *d)
{
    for (size_t i = 0; d->kernel && i < d->n; i++)
        free(d->kernel[i]);
    free(d->kernel);
    free(d->time);
    for (size_t c = 0; c < d->config_count; c++) {
        cal_config *cf = &d->configs[c];
        for (size_t s = 0; s < cf->set_count; s++) {
            if (cf->sets[s].value != cf->full && cf->sets[s].value != cf->alone)
                free(cf->sets[s].value);
            free(cf->sets[s].cost);
        }
        free(cf->full);
        free(cf->alone);
    }
    memset(d, 0, sizeof *d);
}

/* An empty data set of n launches named name: their kernel names to read,
 * and their profiled times where `time`.  0 on success. */
static int cal_begin(cal_data *d, const char *name, size_t n, bool time)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", name);
    d->n = n;
    d->kernel = calloc(n, sizeof *d->kernel);
    d->time = time ? cal_array(n) : NULL;
    return d->kernel && (!time || d->time) ? 0 : -1;
}

/* c's two columns every data set has: its full run's cycles in context
 * and each launch's alone. */
static void cal_context_alone(cal_config *c)
{
    cal_set *s = cal_add_set(c, "context", "context");
    s->value = c->full;
    s = cal_add_set(c, "alone", "none");
    s->value = c->alone;
}

/* A configuration named name of the data set, its full-run and alone cycles
 * read from path by launch (the rows of config only, unless NULL), and the
 * kernel names with them; NULL where they cannot be read. */
static cal_config *cal_add_config(cal_data *d, const char *name, const char *path,
                                  const char *config)
{
    cal_config *cf = &d->configs[d->config_count++];
    snprintf(cf->name, sizeof cf->name, "%s", name);
    if (!(cf->full = cal_array(d->n)) || !(cf->alone = cal_array(d->n)) ||
        cal_read_column(path, "launch", config, "full_run_cycles", cf->full, d->n, d->kernel) ||
        cal_read_column(path, "launch", config, "alone_cycles", cf->alone, d->n, NULL))
        return NULL;
    cal_context_alone(cf);
    return cf;
}

/* cal_recorded of the file dir/<prefix><name>.csv, name the warm-up mode as
 * the files spell it (':' as '_'). */
static int cal_recorded_mode(cal_config *c, size_t n, const char *dir, const char *prefix,
                             const char *name, const char *value)
{
    char file[1200], mode[32];
    snprintf(file, sizeof file, "%s/%s%s.csv", dir, prefix, name);
    snprintf(mode, sizeof mode, "%s", name);
    for (char *p = mode; *p; p++)
        *p = *p == '_' ? ':' : *p;
    return cal_recorded(c, n, file, value, mode);
}

/* The Accel-Sim synthetic data set: 160 launches, two configurations (and
 * the RTX 3070 on a widened build, with its own full run), the data set's
 * own warm-up runs and tests/data/accelsim-warmup's (--warmup state
 * included). */
static int cal_load_accelsim(const char *shared, const char *testdata, cal_data *d)
{
    if (cal_begin(d, "Accel-Sim synthetic", 160, true))
        return -1;
    char path[1024], warm[1024];
    snprintf(path, sizeof path, "%s/sim/accelsim-synth/per_launch.csv", shared);
    snprintf(warm, sizeof warm, "%s/sim/accelsim-synth/warm_per_launch.csv", shared);
    static const char *const configs[] = {"SM7_QV100", "SM86_RTX3070"};
    static const char *const recorded[][2] = {
        {"SM7_QV100", "since-same_8"},     {"SM7_QV100", "since-same_16_2"},
        {"SM86_RTX3070", "since-same_4"},  {"SM86_RTX3070", "since-same_8"},
        {"SM86_RTX3070", "since-same_16_2"}, {"SM86_RTX3070", "prev_10"},
        {"SM7_QV100", "state"},            {"SM86_RTX3070", "state"},
        {"SM86_RTX3070", "state-all"},     {"SM7_QV100", "state-all"},
        {"SM86_RTX3070", "state-memcpy32"}, {"SM7_QV100", "state-memcpy32"},
        {"SM86_RTX3070", "state-memcpy32-stores"}, {"SM7_QV100", "state-memcpy32-stores"}};
    for (int c = 0; c < 2; c++) {
        cal_config *cf = cal_add_config(d, configs[c], path, configs[c]);
        if (!cf || cal_warm_column(cf, d->n, warm, configs[c], "self_cycles", "self") ||
            cal_warm_column(cf, d->n, warm, configs[c], "same_name_cycles", "same") ||
            cal_warm_column(cf, d->n, warm, configs[c], "prev_cycles", "prev:1"))
            return -1;
        for (size_t r = 0; r < sizeof recorded / sizeof recorded[0]; r++) {
            if (strcmp(recorded[r][0], configs[c]) != 0)
                continue;
            char dir[1100], prefix[64];
            snprintf(dir, sizeof dir, "%s/accelsim-warmup", testdata);
            snprintf(prefix, sizeof prefix, "%s_", configs[c]);
            if (cal_recorded_mode(cf, d->n, dir, prefix, recorded[r][1], "gpu_sim_cycle"))
                return -1;
        }
    }
    /* The RTX 3070 on a build whose perf_memcpy_to_gpu keeps 64-bit
     * addresses (tests/data/accelsim-warmup/README.md, wide/): the
     * program's memory copies warm L2 in its full run too, so the truth is
     * that build's full run; --warmup state:memcpy's values are warmed
     * values of it.  A launch simulated alone has no memory copy to widen:
     * its alone cycles are the stock build's.  Only the warmed values are
     * scored: its full run is the stock one's within 0.5 %, and its context
     * and alone rows would score the same plans on nearly the same numbers
     * again. */
    cal_config *wide = &d->configs[d->config_count++];
    snprintf(wide->name, sizeof wide->name, "SM86_RTX3070 wide build");
    wide->warmed_only = true;
    char wfull[1200], wstate[1200];
    snprintf(wfull, sizeof wfull, "%s/accelsim-warmup/wide/SM86_RTX3070_full.csv", testdata);
    snprintf(wstate, sizeof wstate, "%s/accelsim-warmup/wide/SM86_RTX3070_state-memcpy.csv",
             testdata);
    if (!(wide->full = cal_array(d->n)) || !(wide->alone = cal_array(d->n)) ||
        cal_read_column(wfull, "id", NULL, "gpu_sim_cycle", wide->full, d->n, NULL))
        return -1;
    memcpy(wide->alone, d->configs[1].alone, d->n * sizeof *wide->alone);
    cal_context_alone(wide);
    if (cal_recorded(wide, d->n, wstate, "gpu_sim_cycle", "state:memcpy"))
        return -1;
    for (size_t i = 0; i < d->n; i++)
        if (isnan(wide->full[i]))
            return -1;
    char time[1024];
    snprintf(time, sizeof time, "%s/sim/accelsim-synth/time.csv", shared);
    if (cal_read_column(time, "id", NULL, "duration_ns", d->time, d->n, NULL))
        return -1;
    for (size_t i = 0; i < d->n; i++)
        if (!d->kernel[i] || isnan(d->time[i]) || isnan(d->configs[0].full[i]) ||
            isnan(d->configs[1].full[i]))
            return -1;
    d->profiles[d->profile_count++] = (cal_profile){"QV100 full-run cycles", d->configs[0].full, 0};
    d->profiles[d->profile_count++] =
        (cal_profile){"RTX 3070 full-run cycles", d->configs[1].full, 1};
    d->profiles[d->profile_count++] = (cal_profile){"profiled time (time.csv)", d->time, -1};
    /* planned from the launches simulated alone (cold), values in context */
    d->profiles[d->profile_count++] = (cal_profile){"QV100 alone cycles", d->configs[0].alone, -1};
    d->profiles[d->profile_count++] =
        (cal_profile){"RTX 3070 alone cycles", d->configs[1].alone, -1};
    return 0;
}

/* The MacSim data set: 157 launches, one configuration, every recorded
 * warm-up run (tests/data/macsim-warmup, --warmup state included). */
static int cal_load_macsim(const char *shared, const char *testdata, cal_data *d)
{
    if (cal_begin(d, "MacSim vectormultadd", 157, false))
        return -1;
    char path[1024];
    snprintf(path, sizeof path, "%s/sim/macsim-vectormultadd/per_launch.csv", shared);
    cal_config *cf = cal_add_config(d, "base", path, NULL);
    if (!cf)
        return -1;
    static const char *const modes[] = {"self",          "same",         "prev_1",
                                        "prev_8",        "since-same_2", "since-same_4",
                                        "since-same_8", "since-same_16_2", "state",
                                        "state-all"};
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/macsim-warmup", testdata);
    for (size_t r = 0; r < sizeof modes / sizeof modes[0]; r++)
        if (cal_recorded_mode(cf, d->n, dir, "", modes[r], "cycles"))
            return -1;
    for (size_t i = 0; i < d->n; i++)
        if (!d->kernel[i] || isnan(cf->full[i]) || isnan(cf->alone[i]))
            return -1;
    d->profiles[d->profile_count++] = (cal_profile){"full-run cycles", cf->full, 0};
    /* planned from a profile of another kind: each launch's cycles alone */
    d->profiles[d->profile_count++] = (cal_profile){"alone cycles", cf->alone, -1};
    return 0;
}

/* The transformer (tests/data/accelsim-transformer): 1,616 launches on the
 * RTX 3070, its full run and each launch alone, planned from the full run's
 * cycles, the alone ones, and the time profile synth writes beside its
 * traces (time_profile.csv: what a user has before simulating). */
static int cal_load_transformer(const char *testdata, cal_data *d)
{
    if (cal_begin(d, "Accel-Sim transformer", 1616, true))
        return -1;
    char path[1024], time[1024];
    snprintf(path, sizeof path, "%s/accelsim-transformer/per_launch_SM86_RTX3070.csv",
             testdata);
    snprintf(time, sizeof time, "%s/accelsim-transformer/time_profile.csv", testdata);
    cal_config *cf = cal_add_config(d, "SM86_RTX3070", path, NULL);
    if (!cf || cal_read_column(time, "id", NULL, "duration_ns", d->time, d->n, NULL))
        return -1;
    for (size_t i = 0; i < d->n; i++)
        if (!d->kernel[i] || isnan(cf->full[i]) || isnan(cf->alone[i]) || isnan(d->time[i]))
            return -1;
    d->profiles[d->profile_count++] = (cal_profile){"full-run cycles", cf->full, 0};
    d->profiles[d->profile_count++] = (cal_profile){"profiled time (time_profile.csv)", d->time, -1};
    d->profiles[d->profile_count++] = (cal_profile){"alone cycles", cf->alone, -1};
    return 0;
}

/* The plans' profile: the data set's launches (kernel names) with the
 * profile's values as durations. */
static ks_profile *cal_profile_of(const cal_data *d, const double *ns, ks_error *err)
{
    size_t cap = d->n * 96 + 64, len = 0;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    len += (size_t)snprintf(text, cap, "name,duration_ns\n");
    for (size_t i = 0; i < d->n; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s,%.0f\n", d->kernel[i], ns[i]);
    ks_input *in;
    ks_profile *p = NULL;
    ks_read_options ro;
    ks_read_options_init(&ro);
    if (ks_input_open_memory(text, len, "profile", &in, err) == KS_OK) {
        if (ks_profile_read_input(in, &ro, &p, err) != KS_OK)
            p = NULL;
        ks_input_close(in);
    }
    free(text);
    return p;
}

/* ------------------------------------------------------------ designs */

/* One design: a method with its parameters, the estimators it is read
 * with, refine rounds, and a pilot. */
typedef struct cal_design {
    const char *name;
    const char *method;
    const char *settings[4][2];
    ks_estimator estimators[4];
    size_t estimator_count;
    unsigned rounds;
    bool pilot;          /* score alone+pilot (reference: each warmed set and context) */
} cal_design;

static const cal_design cal_designs[] = {
    {"root", "root", {{NULL, NULL}},
     {KS_ESTIMATOR_PLAIN, KS_ESTIMATOR_RATIO, KS_ESTIMATOR_REGRESSION, KS_ESTIMATOR_AUTO}, 4, 0,
     true},
    {"root, refined", "root", {{NULL, NULL}},
     {KS_ESTIMATOR_PLAIN, KS_ESTIMATOR_RATIO, KS_ESTIMATOR_REGRESSION, KS_ESTIMATOR_AUTO}, 4, 3,
     false},
    /* the collapsed-strata model of rounds 1-4, kept for --replicate 0
     * (issue 38 made the calibrated design ROOT's default) */
    {"root --replicate 0", "root", {{"replicate", "0"}, {NULL, NULL}},
     {KS_ESTIMATOR_PLAIN, KS_ESTIMATOR_RATIO}, 2, 0, false},
    {"root --replicate 0, refined", "root", {{"replicate", "0"}, {NULL, NULL}},
     {KS_ESTIMATOR_PLAIN, KS_ESTIMATOR_RATIO}, 2, 3, false},
    {"root --two-phase 2, refined", "root", {{"two-phase", "2"}, {NULL, NULL}},
     {KS_ESTIMATOR_RATIO, KS_ESTIMATOR_REGRESSION, KS_ESTIMATOR_AUTO}, 3, 3, false},
    {"root --pool duration", "root", {{"pool", "duration"}, {NULL, NULL}},
     {KS_ESTIMATOR_PLAIN, KS_ESTIMATOR_RATIO}, 2, 0, false},
    {"root --pool duration, refined", "root", {{"pool", "duration"}, {NULL, NULL}},
     {KS_ESTIMATOR_PLAIN, KS_ESTIMATOR_RATIO}, 2, 3, false},
    {"stem", "stem", {{NULL, NULL}}, {KS_ESTIMATOR_PLAIN, KS_ESTIMATOR_RATIO}, 2, 0, false},
    {"allegro", "allegro", {{NULL, NULL}}, {KS_ESTIMATOR_PLAIN}, 1, 0, false},
    {"random --target-speedup 10", "random", {{"target-speedup", "10"}, {NULL, NULL}},
     {KS_ESTIMATOR_PLAIN, KS_ESTIMATOR_RATIO}, 2, 0, false},
};

/* ------------------------------------------------------------ the run */

/* One row of the table: a design and estimator on one data set's values of
 * one kind, planned from one profile. */
typedef struct cal_row {
    const cal_data *data;
    const cal_profile *profile;
    const cal_config *config;
    bool same;                  /* planned from the values' own configuration */
    const char *design, *values, *estimator;
    unsigned seeds;
    ks_score_summary s;
    double bound;
} cal_row;

typedef void (*cal_row_fn)(const cal_row *row, void *ctx);

/* Scores every design on one data set, profile and configuration. */
static ks_status cal_run_one(const cal_data *d, const cal_profile *pf, size_t config,
                             unsigned seeds, bool all_sets, cal_row_fn fn, void *ctx,
                             ks_error *err)
{
    const cal_config *cf = &d->configs[config];
    ks_profile *p = cal_profile_of(d, pf->ns, err);
    if (!p)
        return err->status ? err->status : KS_ERR_NOMEM;
    double truth = 0;
    for (size_t i = 0; i < d->n; i++)
        truth += cf->full[i];
    ks_score_set sets[CAL_MAX_SETS * 2 + 2];
    ks_score_pilot pilots[CAL_MAX_SETS];
    size_t base = 0;
    for (size_t s = 0; s < cf->set_count; s++) {
        const cal_set *v = &cf->sets[s];
        bool cold = v->value == cf->alone, full = v->value == cf->full;
        if (!all_sets && !cold && !full)
            continue; /* warmed values: intervals of those values only */
        if (cf->warmed_only && (cold || full))
            continue;
        sets[base++] = (ks_score_set){v->name, v->value, cold || full ? NULL : cf->alone,
                                      v->cost, cold || full ? NULL : cf->alone, NULL,
                                      v->warmup};
    }
    ks_plan_cache *cache = NULL;
    ks_status st = ks_plan_cache_new(p, &cache, err);
    for (size_t k = 0; st == KS_OK && k < sizeof cal_designs / sizeof cal_designs[0]; k++) {
        const cal_design *ds = &cal_designs[k];
        size_t count = base;
        char names[CAL_MAX_SETS][48];
        if (ds->pilot) {
            /* alone values corrected by one pilot launch per kernel group,
             * measured with each other kind of value */
            for (size_t s = 0; s < cf->set_count; s++) {
                const cal_set *v = &cf->sets[s];
                if (v->value == cf->alone || count - base >= CAL_MAX_SETS ||
                    (!all_sets && v->value != cf->full) ||
                    (cf->warmed_only && v->value == cf->full))
                    continue;
                size_t j = count - base;
                pilots[j] = (ks_score_pilot){1, v->value, v->cost, v->warmup};
                snprintf(names[j], sizeof names[j], "alone+pilot(%s)", v->name);
                sets[count++] = (ks_score_set){names[j], cf->alone, NULL, NULL, NULL,
                                               &pilots[j], "none"};
            }
        }
        ks_params pa;
        ks_params_init(&pa);
        pa.method = ds->method;
        for (size_t i = 0; st == KS_OK && i < 4 && ds->settings[i][0]; i++)
            st = ks_params_set(&pa, ds->settings[i][0], ds->settings[i][1], err);
        ks_score_options so;
        ks_score_options_init(&so);
        so.truth_total = truth;
        so.sets = sets;
        so.set_count = count;
        so.seeds = seeds;
        so.confidence = 0.95;
        so.cache = cache;
        so.estimators = ds->estimators;
        so.estimator_count = ds->estimator_count;
        so.rounds = ds->rounds;
        ks_score_result res;
        if (st == KS_OK && (st = ks_score(p, &pa, &so, &res, err)) == KS_OK) {
            for (size_t s = 0; s < count; s++)
                for (size_t e = 0; e < ds->estimator_count; e++) {
                    cal_row row = {d,
                                   pf,
                                   cf,
                                   pf->config == (int)config,
                                   ds->name,
                                   sets[s].name,
                                   ks_estimator_name(ds->estimators[e]),
                                   seeds,
                                   res.summary[s * ds->estimator_count + e],
                                   res.bound};
                    fn(&row, ctx);
                }
            ks_score_result_free(&res);
        }
    }
    ks_plan_cache_free(cache);
    ks_profile_free(p);
    return st;
}

/* Every data set, profile and configuration; all_sets: every kind of value
 * (else the full run's and the alone ones, and the alone ones corrected by
 * a pilot of the full run's: the others are intervals of their own values
 * only, ks_interval_claim). */
static ks_status cal_run(const cal_data *const *data, size_t count, unsigned seeds,
                         bool all_sets, cal_row_fn fn, void *ctx, ks_error *err)
{
    ks_status st = KS_OK;
    for (size_t i = 0; st == KS_OK && i < count; i++)
        for (size_t pf = 0; st == KS_OK && pf < data[i]->profile_count; pf++)
            for (size_t c = 0; st == KS_OK && c < data[i]->config_count; c++)
                if (all_sets || !data[i]->configs[c].warmed_only)
                    st = cal_run_one(data[i], &data[i]->profiles[pf], c, seeds, all_sets, fn,
                                     ctx, err);
    return st;
}

/* The bars a row ksample stands behind must meet: coverage of the full
 * run's total at least 93 %, and where 20 plans or more say the bound is
 * met, the truth within it in at least 95 % of them (fewer than 20 is no
 * measure of a 95 % rate: 1 wrong of 2 reads 50 %). */
enum { CAL_MET_MIN = 20 };
static bool cal_fails(const cal_row *r)
{
    const ks_score_summary *s = &r->s;
    if (s->claim != KS_CLAIM_FULL_RUN)
        return false;
    double met_plans = s->met * r->seeds;
    return !(s->coverage >= 0.93) ||
           (met_plans >= CAL_MET_MIN && !isnan(s->met_true) && s->met_true < 0.95);
}

#endif
