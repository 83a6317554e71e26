/*
 * method.c - GCL-Sampler (Wang et al., arXiv 2603.00551, 2026) as a method
 * of the table: fit builds the trace graph of every launch from the
 * profile's trace folder, trains the relational GCN by contrastive learning
 * (or loads a trained model: ks_fit_load) and clusters the embeddings, all
 * of which is seed-independent; select writes one representative per
 * cluster, weighted by the cluster's size.  The training seed and every
 * option the paper leaves open are parameters, recorded in the plan.
 */
#include "gcl.h"
#include "sampling.h"

#include <stddef.h>
#include <stdlib.h>

typedef struct gcl_params {
    uint64_t epochs, batch, train_graphs, bases, k_max, max_blocks, max_warps, max_insts, seed;
    double learning_rate, launch_weight;
} gcl_params;

static const ks_param_def gcl_param_defs[] = {
    {"epochs", KS_PARAM_UINT, offsetof(gcl_params, epochs), 1, 100000, 30, NULL, "N",
     "training epochs"},
    {"learning-rate", KS_PARAM_REAL, offsetof(gcl_params, learning_rate), 1e-7, 1, 1e-3, NULL,
     "R", "Adam's learning rate"},
    {"batch", KS_PARAM_UINT, offsetof(gcl_params, batch), 2, 4096, 16, NULL, "N",
     "graphs per mini-batch (the others in a batch are the negatives)"},
    {"train-graphs", KS_PARAM_UINT, offsetof(gcl_params, train_graphs), 0, 1e9,
     GCL_TRAIN_GRAPHS, NULL, "N",
     "distinct graphs trained on (0: all), chosen with --gcl-seed in rounds over the kernels; "
     "every launch is still embedded"},
    {"bases", KS_PARAM_UINT, offsetof(gcl_params, bases), 1, 64, 4, NULL, "N",
     "basis matrices shared by the RGCN's relations"},
    {"k-max", KS_PARAM_UINT, offsetof(gcl_params, k_max), 2, 10000, 20, NULL, "K",
     "clusters tried, 2..K, chosen by silhouette (near-tie: the smaller)"},
    {"max-blocks", KS_PARAM_UINT, offsetof(gcl_params, max_blocks), 0, 1e12, 1, NULL, "N",
     "trace graph: thread blocks of linear index < N (0: all)"},
    {"max-warps", KS_PARAM_UINT, offsetof(gcl_params, max_warps), 0, 65536, 4, NULL, "N",
     "trace graph: warps of id < N in each block (0: all)"},
    {"max-insts", KS_PARAM_UINT, offsetof(gcl_params, max_insts), 0, 1e12, 256, NULL, "N",
     "trace graph: instructions per warp (0: all)"},
    {"launch-weight", KS_PARAM_REAL, offsetof(gcl_params, launch_weight), 0, 1000, 1, NULL, "W",
     "weight of log2 thread blocks and log2 instructions beside the embedding (tells apart "
     "the same code over different grids)"},
    {"gcl-seed", KS_PARAM_UINT, offsetof(gcl_params, seed), 0, 9007199254740992.0, 1, NULL,
     "N", "seed of the network's initialisation, augmentations and k-means"},
};

typedef struct gcl_model {
    ks_gcl_model *net;
    ks_gcl_selection sel;
} gcl_model;

static void gcl_options(const gcl_params *p, ks_gcl_options *o)
{
    ks_gcl_options_init(o);
    o->epochs = (uint32_t)p->epochs;
    o->learning_rate = p->learning_rate;
    o->batch = (uint32_t)p->batch;
    o->max_train_graphs = (uint32_t)p->train_graphs;
    o->bases = (uint32_t)p->bases;
    o->k_max = (uint32_t)p->k_max;
    o->max_blocks = p->max_blocks;
    o->max_warps = (uint32_t)p->max_warps;
    o->max_insts_per_warp = p->max_insts;
    o->launch_weight = p->launch_weight;
    o->seed = p->seed;
}

static void gcl_model_free(void *model)
{
    gcl_model *m = model;
    if (!m)
        return;
    ks_gcl_model_free(m->net);
    ks_gcl_selection_free(&m->sel);
    free(m);
}

/* The launches' graphs under the bounds o gives (distinct ones kept by
 * content only: corpus.c), then the model unless net is set, then the
 * clusters; nothing of the graphs outlives the fit. */
static ks_status graphs_and_clusters(const ks_method_input *in, gcl_model *m,
                                     const ks_gcl_options *o, bool train, ks_error *err)
{
    const ks_profile *p = in->profile;
    ks_gcl_corpus *c = NULL;
    const char *dir = p->trace_path;
    ks_status st = ks_gcl_corpus_open(&dir, 1, o, &c, err);
    if (st != KS_OK)
        return st;
    size_t n = ks_gcl_corpus_launches(c);
    if (n != p->n)
        st = ks_error_set(err, KS_ERR_USAGE, p->trace_path, 0,
                          "the traces hold %zu kernel launches and the profile %zu: they must "
                          "be the same launches in the same order",
                          n, p->n);
    if (st == KS_OK && train)
        st = ks_gcl_corpus_train(c, NULL, NULL, &m->net, err);
    if (st == KS_OK)
        st = ks_gcl_corpus_select(c, m->net, o, &m->sel, err);
    ks_gcl_corpus_free(c);
    return st;
}

static ks_status gcl_fit(const ks_method_input *in, void **model, ks_error *err)
{
    gcl_model *m = calloc(1, sizeof *m);
    if (!m)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_gcl_options o;
    gcl_options(in->method_params, &o);
    ks_status st = graphs_and_clusters(in, m, &o, true, err);
    return ks_method_fit_end(st, m, gcl_model_free, model);
}

/* A trained model brings its own graph bounds (the graphs must be built as
 * its training graphs were); clustering options come from the parameters. */
static ks_status gcl_load(const char *path, const ks_method_input *in, void **model,
                          ks_error *err)
{
    gcl_model *m = calloc(1, sizeof *m);
    if (!m)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_status st = ks_gcl_model_load(path, &m->net, err);
    if (st == KS_OK) {
        ks_gcl_options o = *ks_gcl_model_options(m->net), mine;
        gcl_options(in->method_params, &mine);
        o.k_max = mine.k_max;
        o.launch_weight = mine.launch_weight;
        st = graphs_and_clusters(in, m, &o, false, err);
    }
    return ks_method_fit_end(st, m, gcl_model_free, model);
}

static ks_status gcl_save(const void *model, const char *path, ks_error *err)
{
    return ks_gcl_model_save(((const gcl_model *)model)->net, path, err);
}

static ks_status gcl_select(const ks_method_input *in, const void *model, ks_rng *rng,
                            ks_plan *plan, ks_error *err)
{
    (void)rng; /* deterministic once fitted */
    const gcl_model *m = model;
    ks_status st = ks_gcl_plan_fill(&m->sel, in->profile, in->groups, plan, err);
    if (st == KS_OK)
        snprintf(plan->note, sizeof plan->note, "K=%zu clusters, silhouette %.4f", m->sel.k,
                 m->sel.silhouette);
    return st;
}

const ks_method ks_method_gcl = {
    .name = "gcl",
    .chooses = 1,
    .summary = "GCL-Sampler: RGCN on instruction-trace graphs, contrastive training, "
               "K-Means by silhouette (arXiv 2603.00551)",
    .default_key = KS_KEY_NAME,
    .needs = KS_NEED_TRACES,
    KS_METHOD_PARAMS(gcl_param_defs, gcl_params),
    .fit = gcl_fit,
    .select = gcl_select,
    .model_free = gcl_model_free,
    .model_save = gcl_save,
    .model_load = gcl_load,
};

ks_status ks_gcl_options_from_params(const ks_params *params, ks_gcl_options *o, ks_error *err)
{
    gcl_params p;
    ks_status st = ks_method_resolve(&ks_method_gcl, params, &p, err);
    if (st == KS_OK)
        gcl_options(&p, o);
    return st;
}
