/*
 * pipeline.c - from a profile to a plan: resolve the method and its
 * parameters, check that the profile has what the method needs, group it by
 * the key, fit once (the seed-independent work), select per seed.
 *
 * Layering: this sits above methods/ (it calls them through the table) and
 * plan/ (it fills plans); eval/ and the command line sit above it.
 */
#include "sampling.h"
#include "variance.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ks_fitted {
    const ks_method *method;
    const ks_profile *profile;
    ks_params params;
    unsigned char method_params[KS_METHOD_PARAMS_MAX];
    const ks_groups *groups; /* in cache */
    ks_plan_cache *cache;
    bool own_cache;          /* made for this fit alone (ks_fit) */
    double z;
    void *model;
};

const ks_method *ks_fitted_method(const ks_fitted *f) { return f->method; }

static void append(ks_error *err, const char *fmt, const char *text)
{
    size_t n = strlen(err->message);
    snprintf(err->message + n, sizeof err->message - n, fmt, text);
}

/* Whether an Accel-Sim trace folder supplies every metric m lacks. */
static bool traces_give_all(const ks_method *m, const ks_profile *p)
{
    static const char *const from_traces[] = {"smsp__inst_executed.sum", "launch__grid_size",
                                              "launch__thread_count"};
    for (size_t i = 0; m->metrics[i]; i++) {
        bool given = ks_profile_find_metric(p, m->metrics[i]) != NULL;
        for (size_t k = 0; k < 3 && !given; k++)
            given = strcmp(m->metrics[i], from_traces[k]) == 0;
        if (!given)
            return false;
    }
    return true;
}

/* ks_profile_total_ns(p) > 0, without its 128-bit sum when no duration is
 * negative (the sign bit of their OR says so): then the total is positive
 * exactly when some duration is not 0.  The OR vectorises; the sum was 6 %
 * of a plan's fit at 85 k launches. */
static bool total_positive(const ks_profile *p)
{
    uint64_t any = 0;
    const int64_t *d = p->duration_ns;
    for (size_t i = 0, n = p->n; i < n; i++)
        any |= (uint64_t)d[i];
    if (any >> 63)
        return ks_profile_total_ns(p) > 0;
    return any != 0;
}

ks_status ks_method_check_inputs(const ks_method *m, const ks_profile *p, ks_error *err)
{
    if (p->n == 0)
        return ks_error_set(err, KS_ERR_FORMAT, p->source_path, 0, "profile is empty");
    if (p->n > UINT32_MAX)
        return ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                            "more than 2^32 invocations are not supported");
    if ((m->needs & KS_NEED_TIME) && !total_positive(p))
        return ks_error_set(err, KS_ERR_FORMAT, p->source_path, 0,
                            "every kernel duration is 0: %s samples by time (an Nsight "
                            "Compute file needs gpu__time_duration.sum, or attach its metrics "
                            "to a time profile with --metrics)",
                            m->name);
    if (m->needs & KS_NEED_METRICS) {
        size_t missing = 0;
        for (size_t i = 0; m->metrics[i]; i++)
            missing += ks_profile_find_metric(p, m->metrics[i]) == NULL;
        if (missing) {
            ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                         "%s needs Nsight Compute metrics: pass %s", m->name,
                         ks_source_option(KS_SOURCE_METRICS));
            if (traces_give_all(m, p))
                append(err, " or %s", ks_source_option(KS_SOURCE_TRACES));
            append(err, "%s", " with:");
            for (size_t i = 0; m->metrics[i]; i++)
                append(err, i ? ", %s" : " %s", m->metrics[i]);
            append(err, "%s", " (missing:");
            for (size_t i = 0, k = 0; m->metrics[i]; i++)
                if (!ks_profile_find_metric(p, m->metrics[i]))
                    append(err, k++ ? ", %s" : " %s", m->metrics[i]);
            append(err, "%s", ")");
            return KS_ERR_USAGE;
        }
    }
    if ((m->needs & KS_NEED_SPARSE) && !ks_profile_find_sparse(p, m->sparse))
        return ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                            "%s needs per-invocation %s vectors: pass %s or %s", m->name,
                            m->sparse, ks_source_option(KS_SOURCE_BBV),
                            ks_source_option(KS_SOURCE_TRACES));
    if ((m->needs & KS_NEED_DIMS) && !ks_profile_has_dims(p))
        return ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                            "%s needs the grid and block of every launch, which this %s "
                            "profile does not give",
                            m->name, p->source_format[0] ? p->source_format : "");
    if ((m->needs & KS_NEED_TRACES) && !p->trace_path[0])
        return ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                            "%s needs the instruction traces of every launch: pass %s, or "
                            "read the trace folder itself as the profile",
                            m->name, ks_source_option(KS_SOURCE_TRACES));
    return KS_OK;
}

static ks_status check_shared(const ks_params *pa, ks_error *err)
{
    if (!(pa->epsilon > 0 && pa->epsilon < 1))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "--epsilon must be in (0, 1), got %g",
                            pa->epsilon);
    if (!(pa->confidence > 0 && pa->confidence <= KS_MAX_CONFIDENCE))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "--confidence must be in (0, 1 - 1e-12], got %.17g", pa->confidence);
    return KS_OK;
}

static ks_status unknown_method(const char *name, ks_error *err)
{
    ks_error_set(err, KS_ERR_USAGE, NULL, 0, "unknown method '%.60s'; known:", name);
    for (const ks_method *const *m = ks_methods(); *m; m++)
        append(err, " %s", (*m)->name);
    return KS_ERR_USAGE;
}

void ks_fitted_free(ks_fitted *f)
{
    if (!f)
        return;
    if (f->model && f->method->model_free)
        f->method->model_free(f->model);
    if (f->own_cache)
        ks_plan_cache_free(f->cache);
    free(f);
}

static void method_input(const ks_fitted *f, ks_method_input *in)
{
    in->profile = f->profile;
    in->groups = f->groups;
    in->params = &f->params;
    in->method_params = f->method_params;
    in->z = f->z;
    in->cache = f->cache;
}

/* The fit's cache: the caller's, or one of its own. */
static ks_status attach_cache(ks_fitted *f, ks_plan_cache *cache, ks_error *err)
{
    if (cache && ks_plan_cache_profile(cache) != f->profile)
        return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0,
                            "plan cache made for another profile");
    f->own_cache = !cache;
    f->cache = cache;
    ks_status st = cache ? KS_OK : ks_plan_cache_new(f->profile, &f->cache, err);
    if (st == KS_OK)
        ks_plan_cache_begin(f->cache);
    return st;
}

/* ks_fit and ks_fit_load: model_path NULL trains (fit), else loads. */
static ks_status fit_or_load(const ks_profile *p, const ks_params *params,
                             const char *model_path, ks_plan_cache *cache, ks_fitted **out,
                             ks_error *err)
{
    *out = NULL;
    const char *name = params->method ? params->method : ks_methods()[0]->name;
    const ks_method *m = ks_method_find(name);
    if (!m)
        return unknown_method(name, err);
    ks_status st = check_shared(params, err);
    if (st != KS_OK)
        return st;
    ks_fitted *f = calloc(1, sizeof *f);
    if (!f)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    f->method = m;
    f->profile = p;
    f->params = *params;
    f->params.method = m->name;
    if (!params->key_given)
        f->params.key = m->default_key;
    f->z = ks_z_for_confidence(params->confidence);
    if ((st = ks_method_resolve(m, params, f->method_params, err)) != KS_OK ||
        (st = ks_method_check_inputs(m, p, err)) != KS_OK ||
        (st = attach_cache(f, cache, err)) != KS_OK ||
        (st = ks_plan_cache_groups(f->cache, f->params.key, ks_params_shape_share(&f->params),
                                      &f->groups, err)) != KS_OK) {
        ks_fitted_free(f);
        return st;
    }
    if (model_path && !m->model_load) {
        ks_fitted_free(f);
        return ks_error_set(err, KS_ERR_USAGE, model_path, 0,
                            "%s learns nothing that could be loaded from a model file", m->name);
    }
    ks_method_input in;
    method_input(f, &in);
    if (model_path)
        st = m->model_load(model_path, &in, &f->model, err);
    else if (m->fit)
        st = m->fit(&in, &f->model, err);
    if (st != KS_OK) {
        ks_fitted_free(f);
        return st;
    }
    *out = f;
    return KS_OK;
}

ks_status ks_fit(const ks_profile *p, const ks_params *params, ks_fitted **out,
                 ks_error *err)
{
    return fit_or_load(p, params, NULL, NULL, out, err);
}

ks_status ks_fit_cached(const ks_profile *p, const ks_params *params, ks_plan_cache *cache,
                        ks_fitted **out, ks_error *err)
{
    return fit_or_load(p, params, NULL, cache, out, err);
}

ks_status ks_fit_load(const ks_profile *p, const ks_params *params, const char *path,
                      ks_fitted **out, ks_error *err)
{
    return fit_or_load(p, params, path, NULL, out, err);
}

ks_status ks_fitted_save(const ks_fitted *f, const char *path, ks_error *err)
{
    if (!f->method->model_save || !f->model)
        return ks_error_set(err, KS_ERR_USAGE, path, 0, "%s has no model to save",
                            f->method->name);
    return f->method->model_save(f->model, path, err);
}

/* The interval the plan promises: the one variance model (lib/variance) on
 * the durations it was drawn on, i.e. what estimate prints when the
 * simulated values follow them. */
static ks_status predict(ks_plan *plan, const ks_profile *p, ks_error *err)
{
    double *x = ks_plan_sample_durations(plan, p);
    if (!x)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_status st = ks_plan_predict(plan, x, err);
    free(x);
    return st;
}

ks_status ks_select(const ks_fitted *f, uint64_t seed, ks_plan *plan, ks_error *err)
{
    ks_plan_init(plan);
    const ks_method *m = f->method;
    plan->params = f->params;
    plan->params.seed = seed;
    snprintf(plan->method, sizeof plan->method, "%s", m->name);
    plan->param_defs = m->params;
    plan->param_count = m->param_count;
    plan->param_pinned = m->params_pinned;
    memcpy(plan->param_values, f->method_params, m->params_size);
    plan->z = f->z;
    ks_status st = ks_plan_set_groups(plan, f->groups, err);
    if (st == KS_OK) {
        ks_method_input in;
        method_input(f, &in);
        ks_rng rng;
        ks_rng_seed(&rng, seed);
        st = m->select(&in, f->model, &rng, plan, err);
    }
    if (st == KS_OK)
        st = ks_plan_finish_total(plan, f->profile, ks_plan_cache_total_ns(f->cache), err);
    if (st == KS_OK && plan->bound > 0)
        st = predict(plan, f->profile, err);
    if (st != KS_OK)
        ks_plan_free(plan);
    return st;
}

ks_status ks_plan_build(const ks_profile *p, const ks_params *params, ks_plan *plan,
                        ks_error *err)
{
    ks_plan_init(plan);
    ks_fitted *f;
    ks_status st = ks_fit(p, params, &f, err);
    if (st != KS_OK)
        return st;
    st = ks_select(f, params->seed, plan, err);
    ks_fitted_free(f);
    return st;
}
