/*
 * corpus.c - GCL-Sampler over whole trace folders with memory bounded by
 * what is trained on, not by the number of launches.
 *
 * Real workloads repeat the same code over the same grid thousands of times,
 * so what the model works on is the distinct graphs, and of those a bounded
 * training set.  Three passes over the folders, each building a launch's
 * graph from its trace as it streams past (trace_stream.c stops at the last
 * block a graph uses, so a pass costs little more than opening the files):
 *  1. every launch: its graph is hashed and counted into the vocabulary, and
 *     kept only as (hash, nodes, edges, first launch, kernel name) when its
 *     content is new; per launch, the index of its distinct graph and its
 *     launch-level features;
 *  2. training (ks_gcl_corpus_train): the distinct graphs chosen by
 *     gcl_choose_training, at most max_train_graphs, built again;
 *  3. embedding (ks_gcl_corpus_select / _embed): each distinct graph built
 *     once more from its first launch and embedded, one at a time.
 * Memory is the training set's graphs while training, one graph at a time
 * otherwise, plus per distinct graph its embedding and per launch a few
 * numbers.  The results equal those of ks_gcl_train and ks_gcl_select on
 * every launch's graph held at once (the vocabulary counts every launch,
 * distinct graphs are taken in order of first launch, embeddings are one
 * graph per encoder pass, and launches with equal rows cluster as one).
 */
#include "gcl.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

typedef struct corpus_graph {
    uint64_t hash;
    uint32_t n_nodes, n_edges;
    size_t first;  /* the first launch with this graph */
    uint32_t name; /* id of that launch's kernel name */
} corpus_graph;

struct ks_gcl_corpus {
    ks_gcl_options opt;
    ks_trace_set **sets;
    size_t n_sets, *set_start; /* set k holds launches set_start[k] .. set_start[k + 1] - 1 */
    size_t n;
    uint32_t *graph_of; /* per launch: its distinct graph */
    double *launch;     /* per launch: log2 thread blocks, log2 warp instructions */
    size_t cap_graph_of, cap_launch;
    corpus_graph *g;
    size_t n_graphs, cap_graphs;
    ks_hash_index index; /* distinct graphs by content */
    gcl_names names;
    gcl_vocab vocab;
    ks_gcl_graph_builder *builder;
};

void ks_gcl_corpus_free(ks_gcl_corpus *c)
{
    if (!c)
        return;
    for (size_t k = 0; k < c->n_sets; k++)
        ks_trace_set_free(c->sets[k]);
    KS_FREE(c->sets, c->set_start, c->graph_of, c->launch, c->g);
    ks_hash_free(&c->index);
    gcl_names_free(&c->names);
    gcl_vocab_free(&c->vocab);
    ks_gcl_graph_builder_free(c->builder);
    free(c);
}

size_t ks_gcl_corpus_launches(const ks_gcl_corpus *c) { return c->n; }
size_t ks_gcl_corpus_distinct(const ks_gcl_corpus *c) { return c->n_graphs; }

static const ks_trace_kernel *corpus_kernel(const ks_gcl_corpus *c, size_t i, size_t *set,
                                            size_t *local)
{
    size_t k = 0;
    while (k + 1 < c->n_sets && i >= c->set_start[k + 1])
        k++;
    *set = k;
    *local = i - c->set_start[k];
    return ks_trace_set_kernel(c->sets[k], *local);
}

const char *ks_gcl_corpus_name(const ks_gcl_corpus *c, size_t i)
{
    size_t set, local;
    const ks_trace_kernel *k = i < c->n ? corpus_kernel(c, i, &set, &local) : NULL;
    return k && k->name ? k->name : "";
}

/* Launch i's graph, built from its trace. */
static ks_status corpus_build(ks_gcl_corpus *c, size_t i, ks_gcl_graph **out, ks_error *err)
{
    size_t set, local;
    const ks_trace_kernel *k = corpus_kernel(c, i, &set, &local);
    ks_trace_filter filter;
    ks_gcl_trace_filter(&c->opt, &filter);
    ks_status st = ks_gcl_graph_builder_begin(c->builder, k, err);
    if (st == KS_OK)
        st = ks_trace_set_stream(c->sets[set], local, &filter, ks_gcl_graph_builder_stream_fn,
                                 c->builder, err);
    if (st == KS_OK)
        st = ks_gcl_graph_builder_finish(c->builder, out, err);
    return st;
}

/* Launch i's graph again, for a later pass: it must be the one pass 1 saw. */
static ks_status corpus_rebuild(ks_gcl_corpus *c, uint32_t id, ks_gcl_graph **out,
                                ks_error *err)
{
    const corpus_graph *d = &c->g[id];
    ks_status st = corpus_build(c, d->first, out, err);
    if (st == KS_OK && ((*out)->hash != d->hash || (*out)->n_nodes != d->n_nodes ||
                        (*out)->n_edges != d->n_edges)) {
        ks_gcl_graph_free(*out);
        *out = NULL;
        size_t set, local;
        const ks_trace_kernel *k = corpus_kernel(c, d->first, &set, &local);
        st = ks_error_set(err, KS_ERR_IO, k->path, 0,
                          "the trace changed while it was being read (launch %zu)", d->first);
    }
    return st;
}

static uint64_t corpus_hash_of(const void *ctx, uint32_t id)
{
    return ((const ks_gcl_corpus *)ctx)->g[id].hash;
}

typedef struct corpus_sought {
    const ks_gcl_corpus *c;
    const ks_gcl_graph *g;
} corpus_sought;

/* the same test as gcl_first_same: content hash, node and edge counts */
static bool corpus_same(const void *ctx, uint32_t id)
{
    const corpus_sought *k = ctx;
    const corpus_graph *d = &k->c->g[id];
    return d->hash == k->g->hash && d->n_nodes == k->g->n_nodes && d->n_edges == k->g->n_edges;
}

/* Pass 1 over one launch. */
static ks_status corpus_add(ks_gcl_corpus *c, size_t i, ks_error *err)
{
    ks_gcl_graph *g = NULL;
    ks_status st = corpus_build(c, i, &g, err);
    if (st == KS_OK)
        st = gcl_vocab_add(&c->vocab, g, err);
    if (st == KS_OK)
        st = ks_hash_reserve(&c->index, c->n_graphs + 1, corpus_hash_of, c, err);
    if (st != KS_OK) {
        ks_gcl_graph_free(g);
        return st;
    }
    c->launch[2 * i] = g->log2_blocks;
    c->launch[2 * i + 1] = g->log2_warp_insts;
    corpus_sought key = {c, g};
    uint32_t id = 0;
    size_t slot;
    if (!ks_hash_find(&c->index, g->hash, corpus_same, &key, &id, &slot)) {
        uint32_t name;
        st = gcl_names_id(&c->names, ks_gcl_graph_name(g), &name, err);
        if (st == KS_OK)
            st = ks_grow((void **)&c->g, &c->cap_graphs, c->n_graphs + 1, sizeof *c->g, err);
        if (st == KS_OK) {
            id = (uint32_t)c->n_graphs++;
            c->g[id] = (corpus_graph){g->hash, g->n_nodes, g->n_edges, i, name};
            ks_hash_put(&c->index, slot, id);
        }
    }
    c->graph_of[i] = id;
    ks_gcl_graph_free(g);
    return st;
}

ks_status ks_gcl_corpus_open(const char *const *dirs, size_t n_dirs, const ks_gcl_options *o,
                             ks_gcl_corpus **out, ks_error *err)
{
    *out = NULL;
    ks_gcl_corpus *c = calloc(1, sizeof *c);
    if (!c)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    c->opt = *o;
    c->sets = calloc(n_dirs ? n_dirs : 1, sizeof *c->sets);
    c->set_start = calloc(n_dirs + 1, sizeof *c->set_start);
    ks_status st = c->sets && c->set_start
                       ? ks_gcl_graph_builder_new(o, &c->builder, err)
                       : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t d = 0; d < n_dirs && st == KS_OK; d++) {
        if ((st = ks_trace_set_open(dirs[d], &c->sets[d], err)) != KS_OK)
            break;
        c->n_sets++;
        size_t first = c->n, more = ks_trace_set_kernel_count(c->sets[d]);
        c->set_start[d] = first;
        c->set_start[d + 1] = first + more;
        if (first + more >= UINT32_MAX) {
            st = ks_error_set(err, KS_ERR_USAGE, dirs[d], 0, "gcl: too many launches");
            break;
        }
        if ((st = ks_grow((void **)&c->graph_of, &c->cap_graph_of, first + more + 1,
                          sizeof *c->graph_of, err)) != KS_OK ||
            (st = ks_grow((void **)&c->launch, &c->cap_launch, first + more + 1,
                          2 * sizeof *c->launch, err)) != KS_OK)
            break;
        c->n = first + more;
        for (size_t i = first; i < c->n && st == KS_OK; i++)
            st = corpus_add(c, i, err);
    }
    if (st != KS_OK) {
        ks_gcl_corpus_free(c);
        return st;
    }
    *out = c;
    return KS_OK;
}

ks_status ks_gcl_corpus_train(ks_gcl_corpus *c, ks_gcl_progress_fn progress, void *ctx,
                              ks_gcl_model **out, ks_error *err)
{
    *out = NULL;
    if (c->n == 0) /* the folders' fault, not the options': a list of memory copies only */
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                            "gcl: the trace folders list no kernel launch to train on (only "
                            "memory copies, or nothing)");
    size_t d = c->n_graphs, count = 0;
    gcl_candidate *cand = calloc(d ? d : 1, sizeof *cand);
    uint8_t *chosen = malloc(d ? d : 1);
    ks_gcl_graph **train = calloc(d ? d : 1, sizeof *train);
    ks_status st = cand && chosen && train
                       ? KS_OK
                       : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < d && st == KS_OK; i++)
        cand[i] = (gcl_candidate){c->g[i].hash, c->g[i].name};
    if (st == KS_OK)
        st = gcl_choose_training(cand, d, c->opt.max_train_graphs, c->opt.seed, chosen, err);
    /* distinct graphs are numbered in order of first launch: so is train */
    for (size_t i = 0; i < d && st == KS_OK; i++)
        if (chosen[i] && (st = corpus_rebuild(c, (uint32_t)i, &train[count], err)) == KS_OK)
            count++;
    if (st == KS_OK)
        st = gcl_train_graphs(&c->vocab, train, count, &c->opt, progress, ctx, out, err);
    for (size_t i = 0; i < count; i++)
        ks_gcl_graph_free(train[i]);
    free(cand), free(chosen), free(train);
    return st;
}

/* Pass 3: every distinct graph's embedding (n_graphs x dim). */
static ks_status corpus_embed_graphs(ks_gcl_corpus *c, const ks_gcl_model *m, double **out,
                                     ks_error *err)
{
    size_t dim = ks_gcl_embedding_dim(m);
    double *emb = malloc((c->n_graphs ? c->n_graphs : 1) * dim * sizeof *emb);
    if (!emb)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (embeddings)");
    gcl_embedder e = {0};
    ks_status st = KS_OK;
    for (size_t i = 0; i < c->n_graphs && st == KS_OK; i++) {
        ks_gcl_graph *g = NULL;
        if ((st = corpus_rebuild(c, (uint32_t)i, &g, err)) == KS_OK)
            st = gcl_embed_one(&e, m, g, emb + i * dim, err);
        ks_gcl_graph_free(g);
    }
    gcl_embedder_free(&e);
    if (st != KS_OK) {
        free(emb);
        return st;
    }
    *out = emb;
    return KS_OK;
}

ks_status ks_gcl_corpus_embed(ks_gcl_corpus *c, const ks_gcl_model *m, double *emb,
                              ks_error *err)
{
    double *per_graph = NULL;
    ks_status st = corpus_embed_graphs(c, m, &per_graph, err);
    size_t dim = ks_gcl_embedding_dim(m);
    for (size_t i = 0; i < c->n && st == KS_OK; i++)
        memcpy(emb + i * dim, per_graph + (size_t)c->graph_of[i] * dim, dim * sizeof *emb);
    free(per_graph);
    return st;
}

/* A launch's clustering row depends on its graph and its two launch
 * features: launches equal in all three share a row. */
typedef struct row_key {
    uint32_t graph;
    double launch[2];
} row_key;

typedef struct row_table {
    row_key *key;
    ks_hash_index index;
} row_table;

static uint64_t row_key_hash(const row_key *k)
{
    unsigned char bytes[4 + 16];
    memcpy(bytes, &k->graph, 4);
    memcpy(bytes + 4, k->launch, 16);
    return XXH3_64bits(bytes, sizeof bytes);
}

static uint64_t row_hash_of(const void *ctx, uint32_t id)
{
    return row_key_hash(&((const row_table *)ctx)->key[id]);
}

typedef struct row_sought {
    const row_table *t;
    const row_key *k;
} row_sought;

static bool row_same(const void *ctx, uint32_t id)
{
    const row_sought *s = ctx;
    const row_key *a = &s->t->key[id];
    return a->graph == s->k->graph && memcmp(a->launch, s->k->launch, sizeof a->launch) == 0;
}

ks_status ks_gcl_corpus_select(ks_gcl_corpus *c, const ks_gcl_model *m, const ks_gcl_options *o,
                               ks_gcl_selection *out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    if (!o)
        o = &m->opt;
    if (c->n == 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "gcl: no launches to cluster");
    double *emb = NULL;
    ks_status st = corpus_embed_graphs(c, m, &emb, err);
    size_t dim = ks_gcl_embedding_dim(m), w = dim + 2, rows = 0;
    row_table t = {malloc(c->n * sizeof *t.key), {0}};
    uint32_t *row_of = malloc(c->n * sizeof *row_of);
    double *count = calloc(c->n, sizeof *count);
    if (st == KS_OK && (!t.key || !row_of || !count))
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st == KS_OK)
        st = ks_hash_reserve(&t.index, c->n, row_hash_of, &t, err);
    for (size_t i = 0; i < c->n && st == KS_OK; i++) {
        row_key k = {c->graph_of[i], {c->launch[2 * i], c->launch[2 * i + 1]}};
        row_sought s = {&t, &k};
        uint32_t id;
        size_t slot;
        if (!ks_hash_find(&t.index, row_key_hash(&k), row_same, &s, &id, &slot)) {
            id = (uint32_t)rows++;
            t.key[id] = k;
            ks_hash_put(&t.index, slot, id);
        }
        row_of[i] = id;
        count[id] += 1;
    }
    double *x = st == KS_OK ? malloc((rows ? rows : 1) * w * sizeof *x) : NULL;
    if (st == KS_OK && !x)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t r = 0; r < rows && st == KS_OK; r++)
        gcl_cluster_row(emb + (size_t)t.key[r].graph * dim, dim, t.key[r].launch,
                        o->launch_weight, x + r * w);
    if (st == KS_OK)
        st = gcl_cluster_rows(x, count, rows, w, row_of, c->n, o, out, err);
    free(x), free(emb), free(t.key), free(row_of), free(count);
    ks_hash_free(&t.index);
    return st;
}
