/*
 * eval_internal.h - the evaluation loop with a hook, so that what else is
 * measured on each plan (another GPU's times, metric columns) lives in its
 * own file (eval_extra.c) and shares the one fit-once, select-per-seed loop.
 */
#ifndef KS_EVAL_INTERNAL_H
#define KS_EVAL_INTERNAL_H

#include "ksample.h"

/* Called with every plan ks_evaluate_observed draws, in seed order, before
 * the plan is freed; a status other than KS_OK stops the evaluation. */
typedef ks_status (*ks_eval_observer)(void *ctx, const ks_plan *plan, ks_error *err);

/* ks_evaluate, fitting with cache (may be NULL) and calling observe(ctx,
 * plan, err) on each plan (observe may be NULL). */
ks_status ks_evaluate_observed(const ks_profile *p, const ks_params *params, unsigned iters,
                               ks_plan_cache *cache, ks_eval_observer observe, void *ctx,
                               ks_eval_result *out, ks_error *err);

#endif
