/*
 * train.c - contrastive training (GraphCL-style two augmented views per
 * graph, symmetric InfoNCE) with Adam, and the embedding of un-augmented
 * graphs.  The library never prints: progress goes to a callback.
 */
#include "gcl.h"
#include "hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

void ks_gcl_options_init(ks_gcl_options *o)
{
    *o = (ks_gcl_options){
        .max_blocks = 1,     .max_warps = 4,         .max_insts_per_warp = 256,
        .inverse_edges = 1,  .input_dim = 64,        .hidden = {128, 128, 256},
        .proj = {128, 64},   .bases = 4,             .dropout = 0.1,
        .max_vocab = 4096,   .node_drop = 0.15,      .edge_drop = 0.15,
        .feature_noise = 0.01, .temperature = 0.05,  .learning_rate = 1e-3,
        .epochs = 30,        .batch = 16,            .seed = 1,
        .max_train_graphs = GCL_TRAIN_GRAPHS,
        .k_max = 20,         .tie_tolerance = 0.01,  .launch_weight = 1.0,
        .silhouette_cap = 2000,
    };
}

static int prob_ok(double p) { return p >= 0 && p < 1; }

static ks_status gcl_options_check(const ks_gcl_options *o, ks_error *err)
{
    const uint32_t dmax = 4096;
    int dims_ok = o->input_dim >= 1 && o->input_dim <= dmax && o->proj[0] >= 1 &&
                  o->proj[0] <= dmax && o->proj[1] >= 1 && o->proj[1] <= dmax;
    for (int i = 0; i < GCL_LAYERS; i++)
        dims_ok &= o->hidden[i] >= 1 && o->hidden[i] <= dmax;
    if (!dims_ok)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "gcl: dimensions must be in 1..%u",
                            dmax);
    if (o->bases < 1 || o->bases > 64)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "gcl: bases must be in 1..64 (got %u)",
                            o->bases);
    if (!prob_ok(o->dropout) || !prob_ok(o->node_drop) || !prob_ok(o->edge_drop))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "gcl: dropout, node-drop and edge-drop must be in [0, 1)");
    if (!(o->feature_noise >= 0) || !(o->temperature > 0) || !(o->learning_rate > 0) ||
        !isfinite(o->feature_noise) || !isfinite(o->temperature) ||
        !isfinite(o->learning_rate))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "gcl: noise >= 0, temperature > 0 and learning rate > 0 (finite)");
    if (o->batch < 2)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "gcl: a batch needs at least 2 graphs (negatives)");
    if (o->max_vocab > (1u << 24))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "gcl: max vocabulary is 2^24");
    return KS_OK;
}

void ks_gcl_model_free(ks_gcl_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->vocab_count; i++)
        free(m->vocab[i]);
    free(m->vocab);
    free(m->param);
    free(m);
}

const ks_gcl_options *ks_gcl_model_options(const ks_gcl_model *m) { return &m->opt; }
size_t ks_gcl_embedding_dim(const ks_gcl_model *m) { return m->dims.dim[GCL_LAYERS]; }

ks_status gcl_model_alloc(const ks_gcl_options *o, size_t vocab_count, ks_gcl_model **out,
                          ks_error *err)
{
    *out = NULL;
    ks_status st = gcl_options_check(o, err);
    if (st != KS_OK)
        return st;
    ks_gcl_model *m = calloc(1, sizeof *m);
    if (!m)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    m->opt = *o;
    gcl_dims_from_options(o, (uint32_t)(GCL_TOK_SPECIAL + vocab_count), &m->dims);
    gcl_layout_compute(&m->dims, &m->layout);
    m->vocab = calloc(vocab_count ? vocab_count : 1, sizeof *m->vocab);
    m->param = calloc(m->layout.total, sizeof *m->param);
    if (!m->vocab || !m->param) {
        ks_gcl_model_free(m);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (model parameters)");
    }
    m->vocab_count = vocab_count;
    *out = m;
    return KS_OK;
}

/* ------------------------------------------------------------ vocabulary */

static ks_status vocab_count_op(gcl_vocab *t, const char *text, uint64_t count, ks_error *err)
{
    ks_text_keys keys = {t->e, sizeof *t->e, offsetof(gcl_vocab_entry, text)};
    bool found;
    uint32_t id;
    size_t slot;
    ks_status st =
        ks_hash_find_text(&t->index, &keys, t->n, text, strlen(text), &found, &id, &slot, err);
    if (st != KS_OK)
        return st;
    if (found) {
        t->e[id].count += count;
        return KS_OK;
    }
    if ((st = ks_grow((void **)&t->e, &t->cap, t->n + 1, sizeof *t->e, err)) != KS_OK)
        return st;
    char *copy = strdup(text);
    if (!copy)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    t->e[t->n] = (gcl_vocab_entry){copy, count, t->n};
    ks_hash_put(&t->index, slot, (uint32_t)t->n++);
    return KS_OK;
}

ks_status gcl_vocab_add(gcl_vocab *t, const ks_gcl_graph *g, ks_error *err)
{
    uint64_t *count = calloc(g->n_ops ? g->n_ops : 1, sizeof *count);
    if (!count)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (uint32_t i = 0; i < g->n_nodes; i++)
        for (int s = 0; s < 2; s++)
            if (g->tok[2 * i + s] >= GCL_TOK_SPECIAL)
                count[g->tok[2 * i + s] - GCL_TOK_SPECIAL]++;
    ks_status st = KS_OK;
    for (size_t o = 0; o < g->n_ops && st == KS_OK; o++)
        st = vocab_count_op(t, g->ops[o], count[o], err);
    free(count);
    return st;
}

void gcl_vocab_free(gcl_vocab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->e[i].text);
    free(t->e);
    ks_hash_free(&t->index);
    memset(t, 0, sizeof *t);
}

static int vocab_cmp(const void *a, const void *b)
{
    const gcl_vocab_entry *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* The max_vocab most frequent opcode tokens over every instruction node of
 * every graph counted (ties: first seen first), so the model's token ids
 * depend only on the graphs and their order; copied into m. */
static ks_status vocab_model(const gcl_vocab *t, const ks_gcl_options *o, ks_gcl_model **out,
                             ks_error *err)
{
    *out = NULL;
    gcl_vocab_entry *e = malloc((t->n ? t->n : 1) * sizeof *e);
    if (!e)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    memcpy(e, t->e, t->n * sizeof *e);
    qsort(e, t->n, sizeof *e, vocab_cmp);
    size_t n = t->n > o->max_vocab ? o->max_vocab : t->n;
    ks_gcl_model *m = NULL;
    ks_status st = gcl_model_alloc(o, n, &m, err);
    for (size_t i = 0; st == KS_OK && i < n; i++)
        if (!(m->vocab[i] = strdup(e[i].text)))
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    free(e);
    if (st != KS_OK) {
        ks_gcl_model_free(m);
        return st;
    }
    *out = m;
    return KS_OK;
}

/* ------------------------------------------------------------ names */

ks_status gcl_names_id(gcl_names *t, const char *name, uint32_t *id, ks_error *err)
{
    return ks_hash_intern(&t->index, &t->name, &t->n, &t->cap, name, strlen(name), id, err);
}

void gcl_names_free(gcl_names *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->name[i]);
    free(t->name);
    ks_hash_free(&t->index);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------ training set */

typedef struct pick {
    uint64_t key;
    uint32_t name, rank;
    size_t index;
} pick;

static int pick_by_name(const void *a, const void *b)
{
    const pick *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int pick_by_rank(const void *a, const void *b)
{
    const pick *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

ks_status gcl_choose_training(const gcl_candidate *c, size_t n, uint32_t cap, uint64_t seed,
                              uint8_t *chosen, ks_error *err)
{
    if (cap == 0 || n <= cap) {
        memset(chosen, 1, n);
        return KS_OK;
    }
    memset(chosen, 0, n);
    pick *p = malloc(n * sizeof *p);
    if (!p)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < n; i++)
        p[i] = (pick){XXH3_64bits_withSeed(&c[i].hash, sizeof c[i].hash, seed), c[i].name, 0,
                      i};
    qsort(p, n, sizeof *p, pick_by_name);
    for (size_t i = 0; i < n; i++) /* each name's graphs ranked by their keys */
        p[i].rank = i > 0 && p[i - 1].name == p[i].name ? p[i - 1].rank + 1 : 0;
    qsort(p, n, sizeof *p, pick_by_rank);
    for (size_t i = 0; i < cap; i++)
        chosen[p[i].index] = 1;
    free(p);
    return KS_OK;
}

ks_status gcl_token_map(const ks_gcl_model *m, const ks_gcl_graph *g, uint32_t **out,
                        ks_error *err)
{
    uint32_t *map = malloc((g->n_ops ? g->n_ops : 1) * sizeof *map);
    if (!map)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t o = 0; o < g->n_ops; o++) {
        map[o] = GCL_TOK_UNKNOWN;
        for (size_t v = 0; v < m->vocab_count; v++)
            if (strcmp(m->vocab[v], g->ops[o]) == 0) {
                map[o] = (uint32_t)(GCL_TOK_SPECIAL + v);
                break;
            }
    }
    *out = map;
    return KS_OK;
}

/* ------------------------------------------------------------ duplicates */

static uint64_t graph_hash_of(const void *ctx, uint32_t id)
{
    return ((ks_gcl_graph *const *)ctx)[id]->hash;
}

typedef struct graph_sought {
    ks_gcl_graph *const *graphs;
    const ks_gcl_graph *g;
} graph_sought;

/* Same content: the same content hash, node count and edge count. */
static bool graph_same(const void *ctx, uint32_t id)
{
    const graph_sought *k = ctx;
    const ks_gcl_graph *a = k->graphs[id];
    return a->hash == k->g->hash && a->n_nodes == k->g->n_nodes && a->n_edges == k->g->n_edges;
}

/* first[i] = the lowest j with the same content as graph i (j = i for the
 * first of its kind), in O(n): the index holds the first of each kind. */
ks_status gcl_first_same(ks_gcl_graph *const *graphs, size_t n, size_t *first, ks_error *err)
{
    if (n >= UINT32_MAX)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "gcl: too many launches");
    ks_hash_index index = {0};
    ks_status st = ks_hash_reserve(&index, n, graph_hash_of, graphs, err);
    for (size_t i = 0; i < n && st == KS_OK; i++) {
        graph_sought key = {graphs, graphs[i]};
        uint32_t id;
        size_t slot;
        if (ks_hash_find(&index, graphs[i]->hash, graph_same, &key, &id, &slot)) {
            first[i] = id;
        } else {
            first[i] = i;
            ks_hash_put(&index, slot, (uint32_t)i);
        }
    }
    ks_hash_free(&index);
    return st;
}

/* ------------------------------------------------------------ training */

typedef struct gcl_trainer {
    const ks_gcl_model *m;
    ks_gcl_graph *const *graphs;
    uint32_t **tokmap;
    size_t *order, n_train;
    uint8_t *node_keep, *edge_keep; /* 2 x batch views, each sized to its graph */
    gcl_batch_part *parts;          /* 2 x (batch + 1) */
    size_t *node_off, *edge_off;
    gcl_batch batch;
    gcl_work_f *work;
    float *g, *hidden, *z, *dz, *dg, *scratch, *grad, *adam_m, *adam_v;
    uint64_t step;
} gcl_trainer;

static void trainer_free(gcl_trainer *t, size_t n)
{
    if (t->tokmap)
        for (size_t i = 0; i < n; i++)
            free(t->tokmap[i]);
    KS_FREE(t->tokmap, t->order, t->node_keep, t->edge_keep, t->parts, t->node_off, t->edge_off);
    gcl_batch_free(&t->batch);
    gcl_work_free_f(t->work);
    KS_FREE(t->g, t->hidden, t->z, t->dz, t->dg, t->scratch, t->grad, t->adam_m, t->adam_v);
}

/* Node drop, edge drop and Gaussian feature noise for one view; a graph
 * never loses every node. */
static void augment(const ks_gcl_options *o, const ks_gcl_graph *g, ks_rng *rng,
                    uint8_t *node_keep, uint8_t *edge_keep)
{
    size_t kept = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        node_keep[i] = ks_rng_uniform(rng) >= o->node_drop;
        kept += node_keep[i];
    }
    if (kept == 0 && g->n_nodes)
        node_keep[ks_rng_below(rng, g->n_nodes)] = 1;
    for (uint32_t e = 0; e < g->n_edges; e++)
        edge_keep[e] = ks_rng_uniform(rng) >= o->edge_drop;
}

static ks_status trainer_batch(gcl_trainer *t, const size_t *ids, size_t nb, ks_rng *rng,
                               ks_error *err)
{
    const ks_gcl_options *o = &t->m->opt;
    gcl_batch_part *parts = t->parts;
    size_t noff = 0, eoff = 0;
    for (size_t v = 0; v < 2; v++)
        for (size_t k = 0; k < nb; k++) {
            const ks_gcl_graph *g = t->graphs[ids[k]];
            size_t p = v * nb + k;
            augment(o, g, rng, t->node_keep + noff, t->edge_keep + eoff);
            parts[p] = (gcl_batch_part){g, t->tokmap[ids[k]], t->node_keep + noff,
                                        t->edge_keep + eoff};
            noff += g->n_nodes;
            eoff += g->n_edges;
        }
    ks_status st = gcl_batch_build(&t->batch, parts, 2 * nb, t->m->dims.rels, err);
    if (st != KS_OK)
        return st;
    size_t d0 = t->m->dims.dim[0], cells = t->batch.n_nodes * d0;
    free(t->batch.noise);
    t->batch.noise = NULL;
    if (o->feature_noise > 0) {
        t->batch.noise = malloc((cells ? cells : 1) * sizeof *t->batch.noise);
        if (!t->batch.noise)
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (noise)");
        for (size_t i = 0; i < cells; i++)
            t->batch.noise[i] = (float)(o->feature_noise * ks_rng_normal(rng));
    }
    return KS_OK;
}

static void adam_step(gcl_trainer *t, size_t count, float *param, double lr)
{
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
    t->step++;
    double c1 = 1 - pow(b1, (double)t->step), c2 = 1 - pow(b2, (double)t->step);
    for (size_t i = 0; i < count; i++) {
        double g = t->grad[i];
        t->adam_m[i] = (float)(b1 * t->adam_m[i] + (1 - b1) * g);
        t->adam_v[i] = (float)(b2 * t->adam_v[i] + (1 - b2) * g * g);
        param[i] -= (float)(lr * (t->adam_m[i] / c1) / (sqrt(t->adam_v[i] / c2) + eps));
    }
}

/* One optimisation step on graphs ids[0..nb); returns the batch loss. */
static ks_status train_step(gcl_trainer *t, ks_gcl_model *m, const size_t *ids, size_t nb,
                            ks_rng *rng, double *loss, ks_error *err)
{
    ks_status st = trainer_batch(t, ids, nb, rng, err);
    if (st != KS_OK)
        return st;
    const gcl_dims *d = &m->dims;
    const gcl_layout *l = &m->layout;
    st = gcl_encode_f(d, l, m->param, &t->batch, m->opt.dropout, rng, &t->work, t->g, err);
    if (st != KS_OK)
        return st;
    size_t p1 = d->proj[1];
    gcl_head_forward_f(d, l, m->param, t->g, 2 * nb, t->hidden, t->z);
    *loss = gcl_infonce_f(t->z, t->z + nb * p1, nb, p1, m->opt.temperature, t->dz,
                          t->dz + nb * p1);
    if (isnan(*loss))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (loss)");
    memset(t->grad, 0, l->total * sizeof *t->grad);
    gcl_head_backward_f(d, l, m->param, t->g, 2 * nb, t->hidden, t->dz, t->grad, t->dg,
                        t->scratch);
    gcl_encode_backward_f(d, l, m->param, &t->batch, t->work, t->dg, t->grad);
    adam_step(t, l->total, m->param, m->opt.learning_rate);
    return KS_OK;
}

static ks_status trainer_alloc(gcl_trainer *t, ks_gcl_model *m, ks_gcl_graph *const *graphs,
                               size_t n, ks_error *err)
{
    size_t b = m->opt.batch + 1, dl = m->dims.dim[GCL_LAYERS], p0 = m->dims.proj[0];
    size_t p1 = m->dims.proj[1], most_nodes = 1, most_edges = 1;
    t->m = m;
    t->graphs = graphs;
    t->tokmap = calloc(n, sizeof *t->tokmap);
    t->order = malloc(n * sizeof *t->order);
    if (!t->tokmap || !t->order)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < n; i++) {
        ks_status st = gcl_token_map(m, graphs[i], &t->tokmap[i], err);
        if (st != KS_OK)
            return st;
        if (graphs[i]->n_nodes > most_nodes)
            most_nodes = graphs[i]->n_nodes;
        if (graphs[i]->n_edges > most_edges)
            most_edges = graphs[i]->n_edges;
    }
    /* every graph appears in both views: 2 b graphs of at most the largest size */
    t->parts = malloc(2 * b * sizeof *t->parts);
    t->node_keep = malloc(2 * b * most_nodes);
    t->edge_keep = malloc(2 * b * most_edges);
    t->g = malloc(2 * b * dl * sizeof *t->g);
    t->dg = malloc(2 * b * dl * sizeof *t->dg);
    t->hidden = malloc(2 * b * p0 * sizeof *t->hidden);
    t->scratch = malloc(2 * b * p0 * sizeof *t->scratch);
    t->z = malloc(2 * b * p1 * sizeof *t->z);
    t->dz = malloc(2 * b * p1 * sizeof *t->dz);
    t->grad = calloc(m->layout.total, sizeof *t->grad);
    t->adam_m = calloc(m->layout.total, sizeof *t->adam_m);
    t->adam_v = calloc(m->layout.total, sizeof *t->adam_v);
    if (!t->parts || !t->node_keep || !t->edge_keep || !t->g || !t->dg || !t->hidden ||
        !t->scratch || !t->z || !t->dz || !t->grad || !t->adam_m || !t->adam_v)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (training state)");
    /* identical launches (same content) would be each other's negatives: train
     * on the first of each, embed them all */
    ks_status st = gcl_first_same(graphs, n, t->order, err);
    if (st != KS_OK)
        return st;
    for (size_t i = 0; i < n; i++)
        if (t->order[i] == i)
            t->order[t->n_train++] = i;
    return KS_OK;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

static ks_status train_epochs(gcl_trainer *t, ks_gcl_model *m, ks_rng *rng,
                              ks_gcl_progress_fn progress, void *ctx, ks_error *err)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t n = t->n_train, bs = m->opt.batch;
    for (uint32_t e = 0; e < m->opt.epochs && n >= 2; e++) {
        for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
            size_t j = (size_t)ks_rng_below(rng, i + 1), tmp = t->order[i];
            t->order[i] = t->order[j];
            t->order[j] = tmp;
        }
        double sum = 0;
        for (size_t at = 0; at < n;) {
            size_t nb = n - at < bs ? n - at : bs;
            if (n - at - nb == 1) /* never leave a batch of one: it has no negative */
                nb++;
            double loss;
            ks_status st = train_step(t, m, t->order + at, nb, rng, &loss, err);
            if (st != KS_OK)
                return st;
            sum += loss * (double)nb;
            at += nb;
        }
        m->final_loss = sum / (double)n;
        m->epochs_run = e + 1;
        if (progress)
            progress(ctx, e + 1, m->final_loss, seconds_since(&t0));
    }
    m->trained_graphs = n;
    return KS_OK;
}

ks_status gcl_train_graphs(const gcl_vocab *v, ks_gcl_graph *const *train, size_t n,
                           const ks_gcl_options *o, ks_gcl_progress_fn progress, void *ctx,
                           ks_gcl_model **out, ks_error *err)
{
    *out = NULL;
    ks_gcl_model *m = NULL;
    ks_status st = vocab_model(v, o, &m, err);
    if (st != KS_OK)
        return st;
    ks_rng rng;
    ks_rng_seed(&rng, o->seed);
    gcl_param_init(&m->dims, &m->layout, &rng, m->param);
    gcl_trainer t = {0};
    st = trainer_alloc(&t, m, train, n, err);
    if (st == KS_OK)
        st = train_epochs(&t, m, &rng, progress, ctx, err);
    trainer_free(&t, n);
    if (st != KS_OK) {
        ks_gcl_model_free(m);
        return st;
    }
    *out = m;
    return KS_OK;
}

ks_status ks_gcl_train(ks_gcl_graph *const *graphs, size_t n, const ks_gcl_options *o,
                       ks_gcl_progress_fn progress, void *ctx, ks_gcl_model **out,
                       ks_error *err)
{
    *out = NULL;
    ks_status st = gcl_options_check(o, err);
    if (st != KS_OK)
        return st;
    if (n == 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "gcl: no launches to train on");
    gcl_vocab vt = {0};
    gcl_names names = {0};
    size_t *first = malloc(n * sizeof *first), distinct = 0;
    gcl_candidate *cand = malloc(n * sizeof *cand);
    uint8_t *chosen = malloc(n);
    ks_gcl_graph **train = malloc(n * sizeof *train);
    if (!first || !cand || !chosen || !train)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t k = 0; k < n && st == KS_OK; k++)
        st = gcl_vocab_add(&vt, graphs[k], err);
    /* identical launches (same content) would be each other's negatives:
     * the candidates are the first of each, in launch order */
    if (st == KS_OK)
        st = gcl_first_same(graphs, n, first, err);
    for (size_t i = 0; i < n && st == KS_OK; i++)
        if (first[i] == i) {
            cand[distinct].hash = graphs[i]->hash;
            st = gcl_names_id(&names, ks_gcl_graph_name(graphs[i]), &cand[distinct].name, err);
            first[distinct++] = i;
        }
    if (st == KS_OK)
        st = gcl_choose_training(cand, distinct, o->max_train_graphs, o->seed, chosen, err);
    size_t count = 0;
    for (size_t j = 0; j < distinct && st == KS_OK; j++)
        if (chosen[j])
            train[count++] = graphs[first[j]];
    if (st == KS_OK)
        st = gcl_train_graphs(&vt, train, count, o, progress, ctx, out, err);
    gcl_vocab_free(&vt);
    gcl_names_free(&names);
    free(first), free(cand), free(chosen), free(train);
    return st;
}

/* ------------------------------------------------------------ embedding */

void gcl_embedder_free(gcl_embedder *e)
{
    gcl_batch_free(&e->batch);
    gcl_work_free_f(e->work);
    free(e->g);
    memset(e, 0, sizeof *e);
}

/* One graph per encoder pass, so a launch's embedding never depends on which
 * launches share its batch (BLAS kernels may round differently by
 * position); the batch and the encoder's buffers are kept for the next. */
ks_status gcl_embed_one(gcl_embedder *e, const ks_gcl_model *m, const ks_gcl_graph *g,
                        double *emb, ks_error *err)
{
    size_t dl = m->dims.dim[GCL_LAYERS];
    if (!e->g && !(e->g = malloc(dl * sizeof *e->g)))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    uint32_t *map = NULL;
    ks_status st = gcl_token_map(m, g, &map, err);
    gcl_batch_part part = {g, map, NULL, NULL};
    if (st == KS_OK)
        st = gcl_batch_build(&e->batch, &part, 1, m->dims.rels, err);
    if (st == KS_OK)
        st = gcl_encode_f(&m->dims, &m->layout, m->param, &e->batch, 0, NULL, &e->work, e->g,
                          err);
    for (size_t j = 0; st == KS_OK && j < dl; j++)
        emb[j] = e->g[j];
    free(map);
    return st;
}

/* Identical graphs are embedded once. */
ks_status ks_gcl_embed(const ks_gcl_model *m, ks_gcl_graph *const *graphs, size_t n,
                       double *emb, ks_error *err)
{
    size_t dl = m->dims.dim[GCL_LAYERS];
    gcl_embedder e = {0};
    size_t *first = malloc((n ? n : 1) * sizeof *first);
    if (!first)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_status st = gcl_first_same(graphs, n, first, err);
    for (size_t i = 0; i < n && st == KS_OK; i++) {
        if (first[i] != i)
            memcpy(emb + i * dl, emb + first[i] * dl, dl * sizeof *emb);
        else
            st = gcl_embed_one(&e, m, graphs[i], emb + i * dl, err);
    }
    free(first);
    gcl_embedder_free(&e);
    return st;
}
