/*
 * rgcn.c - the GCL encoder, head and loss in float and in double (one body,
 * rgcn_impl.h, compiled twice), the parameter layout and initialisation.
 * Float trains and embeds; double exists so the gradient checks can reach a
 * relative error of 1e-4 that float rounding would hide.
 */
#include "gcl.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REAL float
#define SUF f
#define GEMM cblas_sgemm
#include "rgcn_impl.h"
#undef REAL
#undef SUF
#undef GEMM

#define REAL double
#define SUF d
#define GEMM cblas_dgemm
#include "rgcn_impl.h"
#undef REAL
#undef SUF
#undef GEMM

void gcl_dims_from_options(const ks_gcl_options *o, uint32_t tokens, gcl_dims *d)
{
    d->dim[0] = o->input_dim;
    for (int i = 0; i < GCL_LAYERS; i++)
        d->dim[i + 1] = o->hidden[i];
    d->proj[0] = o->proj[0];
    d->proj[1] = o->proj[1];
    d->bases = o->bases;
    d->rels = o->inverse_edges ? GCL_REL_MAX : GCL_REL_FORWARD;
    d->tokens = tokens;
}

void gcl_layout_compute(const gcl_dims *d, gcl_layout *l)
{
    size_t at = 0;
    l->emb = at;
    at += (size_t)d->tokens * d->dim[0];
    l->feat = at;
    at += (size_t)GCL_FEATS * d->dim[0];
    for (int k = 0; k < GCL_LAYERS; k++) {
        size_t din = d->dim[k], dout = d->dim[k + 1];
        l->wcat[k] = at;
        at += (size_t)(d->bases + 1) * din * dout;
        l->bias[k] = at;
        at += dout;
        l->coef[k] = at;
        at += (size_t)d->rels * d->bases;
        l->ln_g[k] = at;
        at += k + 1 < GCL_LAYERS ? dout : 0;
        l->ln_b[k] = at;
        at += k + 1 < GCL_LAYERS ? dout : 0;
    }
    l->w1 = at;
    at += (size_t)d->dim[GCL_LAYERS] * d->proj[0];
    l->b1 = at;
    at += d->proj[0];
    l->w2 = at;
    at += (size_t)d->proj[0] * d->proj[1];
    l->b2 = at;
    at += d->proj[1];
    l->total = at;
}

static void glorot(float *w, size_t count, size_t fan_in, size_t fan_out, ks_rng *rng)
{
    double a = sqrt(6.0 / (double)(fan_in + fan_out));
    for (size_t i = 0; i < count; i++)
        w[i] = (float)(a * (2 * ks_rng_uniform(rng) - 1));
}

void gcl_param_init(const gcl_dims *d, const gcl_layout *l, ks_rng *rng, float *param)
{
    memset(param, 0, l->total * sizeof *param);
    /* unit-variance rows split over the two tokens of a node */
    for (size_t i = 0; i < (size_t)d->tokens * d->dim[0]; i++)
        param[l->emb + i] = (float)(ks_rng_normal(rng) * M_SQRT1_2);
    glorot(param + l->feat, (size_t)GCL_FEATS * d->dim[0], GCL_FEATS, d->dim[0], rng);
    for (int k = 0; k < GCL_LAYERS; k++) {
        size_t din = d->dim[k], dout = d->dim[k + 1];
        for (uint32_t b = 0; b <= d->bases; b++)
            glorot(param + l->wcat[k] + (size_t)b * din * dout, din * dout, din, dout, rng);
        glorot(param + l->coef[k], (size_t)d->rels * d->bases, d->rels, d->bases, rng);
        if (k + 1 < GCL_LAYERS)
            for (size_t j = 0; j < dout; j++)
                param[l->ln_g[k] + j] = 1.0f;
    }
    glorot(param + l->w1, (size_t)d->dim[GCL_LAYERS] * d->proj[0], d->dim[GCL_LAYERS],
           d->proj[0], rng);
    glorot(param + l->w2, (size_t)d->proj[0] * d->proj[1], d->proj[0], d->proj[1], rng);
}
