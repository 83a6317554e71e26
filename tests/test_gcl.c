/*
 * test_gcl.c - GCL-Sampler: trace graphs from hand-written instruction
 * streams (known node and edge counts, bounds), finite-difference gradient
 * checks of every layer and of the loss in double precision, a training run
 * whose loss falls, determinism, the model file (round trip; refusals of
 * another version, a truncated and a corrupt file), and the clustering of
 * launches of hand-written kernels, same code over different grids included
 * (adjusted Rand index 1.0).  On ../shared/data/accelsim/backprop-h100, when
 * both the data and the trace reader are present, the four groups its README
 * names.
 */
#include "tmpdir.h"

#include <cblas.h>
#include <math.h>

#include "gcl_streams.h"
#include "ksample.h"

static void set_blas_threads(int n)
{
#ifdef OPENBLAS_VERSION
    openblas_set_num_threads(n);
#else
    (void)n;
#endif
}

/* ------------------------------------------------------------ graphs */

static ks_gcl_graph *one_launch(const ks_gcl_options *o, int which, uint32_t grid,
                                uint32_t threads, int param, size_t index, uint64_t base)
{
    ks_gcl_graph_builder *b;
    ks_error err;
    assert_int_equal(ks_gcl_graph_builder_new(o, &b, &err), KS_OK);
    ks_gcl_graph *g = NULL;
    ks_status st = gs_launch(b, index, which, grid, threads, param, base, 4, &g, &err);
    if (st != KS_OK)
        fail_msg("gs_launch: %s", err.message);
    ks_gcl_graph_builder_free(b);
    return g;
}

static void count_relations(const ks_gcl_graph *g, uint32_t *per_rel)
{
    memset(per_rel, 0, GCL_REL_FORWARD * sizeof *per_rel);
    for (uint32_t e = 0; e < g->n_edges; e++)
        per_rel[g->edge_rel[e]]++;
}

/* saxpy per warp: S2R (inst + R0), IMAD (inst, live-in R2, R1), LDG (inst,
 * mem_ref, R4), LDG (inst, mem_ref, R5), FFMA (inst, live-in R3, new R5),
 * STG (inst, mem_ref), EXIT: 7 instructions, 7 variables, 3 mem_refs = 17
 * nodes.  Edges: control flow 6; data source IMAD 2 (R0, R2), LDG 1, LDG 1,
 * FFMA 3 (R4, R3, R5), STG 2 (R1, R5) = 9; data destination 5; mem_ref 3. */
static void test_graph_counts(void **state)
{
    (void)state;
    ks_gcl_options o;
    ks_gcl_options_init(&o);
    o.max_warps = 1;
    ks_gcl_graph *g = one_launch(&o, 0, 8, 128, 0, 0, 0x7f0000000000ull);
    assert_int_equal(g->n_nodes, 17);
    assert_int_equal(g->n_warps, 1);
    assert_int_equal(g->traced_insts, 7);
    uint32_t rel[GCL_REL_FORWARD];
    count_relations(g, rel);
    assert_int_equal(rel[GCL_REL_CONTROL_FLOW], 6);
    assert_int_equal(rel[GCL_REL_DATA_SOURCE], 9);
    assert_int_equal(rel[GCL_REL_DATA_DESTINATION], 5);
    assert_int_equal(rel[GCL_REL_MEM_REF], 3);
    assert_int_equal(g->n_edges, 23);
    /* opcodes: S2R IMAD LDG.E LDG FFMA STG.E STG EXIT */
    assert_int_equal(g->n_ops, 8);
    size_t kinds[3] = {0};
    for (uint32_t i = 0; i < g->n_nodes; i++)
        kinds[g->kind[i]]++;
    assert_int_equal(kinds[GCL_NODE_INSTRUCTION], 7);
    assert_int_equal(kinds[GCL_NODE_VARIABLE], 7);
    assert_int_equal(kinds[GCL_NODE_MEM_REF], 3);
    /* the first LDG's mem_ref: 32 lanes x 4 bytes, unit stride, 4 sectors */
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (g->kind[i] == GCL_NODE_MEM_REF) {
            const float *f = g->feat + (size_t)i * GCL_FEATS;
            assert_true(f[GCL_F_UNIT_STRIDE] == 1.0f);
            assert_true(fabsf(f[GCL_F_SECTORS] - 4.0f / 32) < 1e-7f);
            assert_true(fabsf(f[GCL_F_WIDTH] - 0.25f) < 1e-7f);
            break;
        }
    /* launch features: 8 blocks; 7 instructions x 4 warps x 8 blocks */
    assert_true(fabs(g->log2_blocks - 3) < 1e-12);
    assert_true(g->warp_insts_estimated);
    assert_true(fabs(g->log2_warp_insts - log2(1 + 7.0 * 4 * 8)) < 1e-12);
    ks_gcl_graph_free(g);

    /* bounds: all 4 warps of 2 blocks, then 3 instructions per warp */
    o.max_warps = 0;
    o.max_blocks = 2;
    g = one_launch(&o, 0, 8, 128, 0, 0, 0);
    assert_int_equal(g->n_nodes, 17 * 8);
    assert_int_equal(g->n_edges, 23 * 8);
    assert_int_equal(g->n_warps, 8);
    ks_gcl_graph_free(g);
    o.max_blocks = 1;
    o.max_warps = 1;
    o.max_insts_per_warp = 3; /* S2R, IMAD, LDG: 2 + 3 + 3 nodes */
    g = one_launch(&o, 0, 8, 128, 0, 0, 0);
    assert_int_equal(g->n_nodes, 8);
    count_relations(g, rel);
    assert_int_equal(rel[GCL_REL_CONTROL_FLOW], 2);
    assert_int_equal(rel[GCL_REL_DATA_SOURCE], 3);
    assert_int_equal(rel[GCL_REL_DATA_DESTINATION], 3);
    assert_int_equal(rel[GCL_REL_MEM_REF], 1);
    ks_gcl_graph_free(g);
}

/* The same launch at another address gives the same graph; a batch of it
 * holds every edge twice with inverse relations. */
static void test_graph_invariance_and_batch(void **state)
{
    (void)state;
    ks_gcl_options o;
    ks_gcl_options_init(&o);
    ks_gcl_graph *a = one_launch(&o, 1, 32, 256, 5, 0, 0x7f0000000000ull);
    ks_gcl_graph *b = one_launch(&o, 1, 32, 256, 5, 1, 0x7e1234560000ull);
    ks_gcl_graph *c = one_launch(&o, 1, 32, 256, 6, 2, 0x7e1234560000ull);
    assert_true(a->hash == b->hash);
    assert_true(a->hash != c->hash);
    uint32_t *map = malloc(a->n_ops * sizeof *map);
    for (size_t i = 0; i < a->n_ops; i++)
        map[i] = GCL_TOK_SPECIAL + (uint32_t)i;
    gcl_batch batch = {0};
    gcl_batch_part parts[2] = {{a, map, NULL, NULL}, {b, map, NULL, NULL}};
    ks_error err;
    assert_int_equal(gcl_batch_build(&batch, parts, 2, GCL_REL_MAX, &err), KS_OK);
    assert_int_equal(batch.n_nodes, 2 * (size_t)a->n_nodes);
    size_t total = 0;
    for (int r = 0; r < GCL_REL_MAX; r++)
        total += batch.rowptr[r][batch.n_nodes];
    assert_int_equal(total, 4 * (size_t)a->n_edges);
    double sum0 = 0, sum1 = 0; /* readout weights sum to 1 per graph */
    for (size_t i = 0; i < batch.n_nodes; i++)
        *(batch.graph_of[i] ? &sum1 : &sum0) += batch.readout[i];
    assert_true(fabs(sum0 - 1) < 1e-5 && fabs(sum1 - 1) < 1e-5);
    gcl_batch_free(&batch);
    free(map);
    ks_gcl_graph_free(a);
    ks_gcl_graph_free(b);
    ks_gcl_graph_free(c);
}

/* ------------------------------------------------------------ gradients */

typedef struct gc_ctx {
    gcl_dims d;
    gcl_layout l;
    gcl_batch b;
    size_t half; /* graphs per view */
    double dropout, temperature;
    gcl_work_d *w;
    double *g, *hid, *z, *dz, *dg, *scratch;
} gc_ctx;

static double gc_loss(gc_ctx *c, const double *p)
{
    ks_rng rng;
    ks_rng_seed(&rng, 99); /* the same dropout masks every time */
    ks_error err;
    assert_int_equal(gcl_encode_d(&c->d, &c->l, p, &c->b, c->dropout, &rng, &c->w, c->g, &err),
                     KS_OK);
    size_t ng = 2 * c->half, p1 = c->d.proj[1];
    gcl_head_forward_d(&c->d, &c->l, p, c->g, ng, c->hid, c->z);
    return gcl_infonce_d(c->z, c->z + c->half * p1, c->half, p1, c->temperature, c->dz,
                         c->dz + c->half * p1);
}

static void gc_grad(gc_ctx *c, const double *p, double *grad)
{
    gc_loss(c, p);
    memset(grad, 0, c->l.total * sizeof *grad);
    gcl_head_backward_d(&c->d, &c->l, p, c->g, 2 * c->half, c->hid, c->dz, grad, c->dg,
                        c->scratch);
    gcl_encode_backward_d(&c->d, &c->l, p, &c->b, c->w, c->dg, grad);
}

/* Relative error between analytic and central-difference gradients over the
 * largest-gradient entries of one tensor and some random ones. */
static double gc_check_tensor(gc_ctx *c, double *p, const double *grad, size_t off, size_t len,
                              ks_rng *rng, double *norm_out)
{
    size_t pick[24], np = 0;
    for (int t = 0; t < 12 && np < len; t++) { /* largest |grad| not yet picked */
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < len; i++) {
            int used = 0;
            for (size_t k = 0; k < np; k++)
                used |= pick[k] == i;
            if (!used && (best == SIZE_MAX || fabs(grad[off + i]) > fabs(grad[off + best])))
                best = i;
        }
        pick[np++] = best;
    }
    for (int t = 0; t < 12 && np < 24; t++)
        pick[np++] = (size_t)ks_rng_below(rng, len);
    double diff = 0, na = 0, nn = 0, h = 1e-6;
    for (size_t k = 0; k < np; k++) {
        double *x = &p[off + pick[k]], keep = *x;
        *x = keep + h;
        double up = gc_loss(c, p);
        *x = keep - h;
        double down = gc_loss(c, p);
        *x = keep;
        double num = (up - down) / (2 * h), ana = grad[off + pick[k]];
        diff += (num - ana) * (num - ana);
        na += ana * ana;
        nn += num * num;
    }
    *norm_out = sqrt(na);
    double scale = fmax(sqrt(na), sqrt(nn));
    return scale > 0 ? sqrt(diff) / scale : 0;
}

static ks_gcl_graph **hand_graphs(const ks_gcl_options *o, size_t *n_out)
{
    /* kernel, grid, threads, trip; the order interleaves kernels */
    static const int spec[][4] = {{0, 64, 128, 0}, {1, 32, 256, 6}, {2, 16, 128, 0},
                                  {0, 8, 128, 0},  {3, 128, 64, 0}, {1, 32, 256, 6},
                                  {0, 64, 128, 0}, {2, 16, 128, 0}, {3, 128, 64, 0},
                                  {0, 8, 128, 0},  {1, 32, 256, 6}, {0, 64, 128, 0},
                                  {2, 16, 128, 0}, {0, 8, 128, 0},  {3, 128, 64, 0},
                                  {1, 32, 256, 6}};
    size_t n = sizeof spec / sizeof spec[0];
    ks_gcl_graph **g = malloc(n * sizeof *g);
    for (size_t i = 0; i < n; i++)
        g[i] = one_launch(o, spec[i][0], (uint32_t)spec[i][1], (uint32_t)spec[i][2], spec[i][3], i,
                          0x7f0000000000ull + i * 0x100000ull);
    *n_out = n;
    return g;
}

/* The intended groups of hand_graphs(): kernel and grid. */
static const uint32_t hand_truth[16] = {0, 1, 2, 3, 4, 1, 0, 2, 4, 3, 1, 0, 2, 3, 4, 1};

static void free_graphs(ks_gcl_graph **g, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ks_gcl_graph_free(g[i]);
    free(g);
}

/* The network's shape: input, the three hidden layers, the two projections. */
static void set_dims(ks_gcl_options *o, uint32_t input, uint32_t h0, uint32_t h1, uint32_t h2,
                     uint32_t p0, uint32_t p1)
{
    o->input_dim = input;
    o->hidden[0] = h0;
    o->hidden[1] = h1;
    o->hidden[2] = h2;
    o->proj[0] = p0;
    o->proj[1] = p1;
}

static void small_dims(ks_gcl_options *o)
{
    set_dims(o, 6, 5, 4, 7, 5, 3);
    o->bases = 2;
}

static void test_gradients(void **state)
{
    (void)state;
    ks_gcl_options o;
    ks_gcl_options_init(&o);
    o.max_warps = 2;
    small_dims(&o);
    size_t n;
    ks_gcl_graph **graphs = hand_graphs(&o, &n);
    /* three different kernels, two augmented views each */
    ks_gcl_graph *pick[3] = {graphs[0], graphs[1], graphs[2]};
    gc_ctx c;
    memset(&c, 0, sizeof c);
    c.half = 3;
    c.dropout = 0.3;
    c.temperature = 0.2;
    uint32_t tokens = GCL_TOK_SPECIAL + 64;
    gcl_dims_from_options(&o, tokens, &c.d);
    gcl_layout_compute(&c.d, &c.l);
    ks_rng rng;
    ks_rng_seed(&rng, 5);
    gcl_batch_part parts[6];
    uint32_t *maps[3];
    uint8_t *keep[12];
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < 3; k++) {
            const ks_gcl_graph *g = pick[k];
            if (v == 0) {
                maps[k] = malloc(g->n_ops * sizeof *maps[k]);
                for (size_t i = 0; i < g->n_ops; i++) /* distinct ids, some shared */
                    maps[k][i] = GCL_TOK_SPECIAL + (uint32_t)((i * 7 + (size_t)k) % 64);
            }
            uint8_t *nk = malloc(g->n_nodes), *ek = malloc(g->n_edges);
            for (uint32_t i = 0; i < g->n_nodes; i++)
                nk[i] = i == 0 || ks_rng_uniform(&rng) >= 0.15;
            for (uint32_t e = 0; e < g->n_edges; e++)
                ek[e] = ks_rng_uniform(&rng) >= 0.15;
            keep[2 * (v * 3 + k)] = nk;
            keep[2 * (v * 3 + k) + 1] = ek;
            parts[v * 3 + k] = (gcl_batch_part){g, maps[k], nk, ek};
        }
    ks_error err;
    assert_int_equal(gcl_batch_build(&c.b, parts, 6, c.d.rels, &err), KS_OK);
    c.b.noise = malloc(c.b.n_nodes * c.d.dim[0] * sizeof *c.b.noise);
    for (size_t i = 0; i < c.b.n_nodes * c.d.dim[0]; i++)
        c.b.noise[i] = (float)(0.01 * ks_rng_normal(&rng));
    float *pf = malloc(c.l.total * sizeof *pf);
    gcl_param_init(&c.d, &c.l, &rng, pf);
    double *p = malloc(c.l.total * sizeof *p), *grad = malloc(c.l.total * sizeof *grad);
    for (size_t i = 0; i < c.l.total; i++) /* off the initial values: biases and gains too */
        p[i] = pf[i] + 0.2 * ks_rng_normal(&rng);
    size_t dl = c.d.dim[GCL_LAYERS];
    c.g = malloc(6 * dl * sizeof *c.g);
    c.dg = malloc(6 * dl * sizeof *c.dg);
    c.hid = malloc(6 * c.d.proj[0] * sizeof *c.hid);
    c.scratch = malloc(6 * c.d.proj[0] * sizeof *c.scratch);
    c.z = malloc(6 * c.d.proj[1] * sizeof *c.z);
    c.dz = malloc(6 * c.d.proj[1] * sizeof *c.dz);
    gc_grad(&c, p, grad);
    struct {
        const char *name;
        size_t off, len;
    } t[32];
    int nt = 0;
    t[nt++] = (typeof(t[0])){"token embedding", c.l.emb, (size_t)tokens * c.d.dim[0]};
    t[nt++] = (typeof(t[0])){"feature projection", c.l.feat, (size_t)GCL_FEATS * c.d.dim[0]};
    static const char *const lname[3][5] = {
        {"layer 1 W0|V", "layer 1 bias", "layer 1 a_rb", "layer 1 LN gain", "layer 1 LN shift"},
        {"layer 2 W0|V", "layer 2 bias", "layer 2 a_rb", "layer 2 LN gain", "layer 2 LN shift"},
        {"layer 3 W0|V", "layer 3 bias", "layer 3 a_rb", "", ""}};
    for (int k = 0; k < GCL_LAYERS; k++) {
        size_t din = c.d.dim[k], dout = c.d.dim[k + 1];
        t[nt++] = (typeof(t[0])){lname[k][0], c.l.wcat[k], (c.d.bases + 1) * din * dout};
        t[nt++] = (typeof(t[0])){lname[k][1], c.l.bias[k], dout};
        t[nt++] = (typeof(t[0])){lname[k][2], c.l.coef[k], (size_t)c.d.rels * c.d.bases};
        if (k + 1 < GCL_LAYERS) {
            t[nt++] = (typeof(t[0])){lname[k][3], c.l.ln_g[k], dout};
            t[nt++] = (typeof(t[0])){lname[k][4], c.l.ln_b[k], dout};
        }
    }
    t[nt++] = (typeof(t[0])){"head W1", c.l.w1, dl * c.d.proj[0]};
    t[nt++] = (typeof(t[0])){"head b1", c.l.b1, c.d.proj[0]};
    t[nt++] = (typeof(t[0])){"head W2", c.l.w2, (size_t)c.d.proj[0] * c.d.proj[1]};
    t[nt++] = (typeof(t[0])){"head b2", c.l.b2, c.d.proj[1]};
    for (int i = 0; i < nt; i++) {
        double norm;
        double rel = gc_check_tensor(&c, p, grad, t[i].off, t[i].len, &rng, &norm);
        print_message("gradient check %-20s relative error %.2e (|grad| %.2e)\n", t[i].name, rel,
                      norm);
        if (!(rel < 1e-4) || !(norm > 0))
            fail_msg("%s: relative error %.3g, gradient norm %.3g", t[i].name, rel, norm);
    }
    free(pf), free(p), free(grad), free(c.g), free(c.dg), free(c.hid), free(c.scratch);
    free(c.z), free(c.dz);
    gcl_work_free_d(c.w);
    gcl_batch_free(&c.b);
    for (int i = 0; i < 12; i++)
        free(keep[i]);
    for (int k = 0; k < 3; k++)
        free(maps[k]);
    free_graphs(graphs, n);
}

/* The loss alone, every coordinate of both views. */
static void test_loss_gradient(void **state)
{
    (void)state;
    size_t n = 5, dim = 4;
    double z1[20], z2[20], d1[20], d2[20], e1[20], e2[20];
    ks_rng rng;
    ks_rng_seed(&rng, 3);
    for (size_t i = 0; i < n * dim; i++) {
        z1[i] = ks_rng_normal(&rng);
        z2[i] = ks_rng_normal(&rng);
    }
    gcl_infonce_d(z1, z2, n, dim, 0.1, d1, d2);
    double diff = 0, norm = 0, h = 1e-6;
    for (int v = 0; v < 2; v++)
        for (size_t i = 0; i < n * dim; i++) {
            double *z = v ? z2 : z1, keep = z[i];
            z[i] = keep + h;
            double up = gcl_infonce_d(z1, z2, n, dim, 0.1, e1, e2);
            z[i] = keep - h;
            double down = gcl_infonce_d(z1, z2, n, dim, 0.1, e1, e2);
            z[i] = keep;
            double num = (up - down) / (2 * h), ana = v ? d2[i] : d1[i];
            diff += (num - ana) * (num - ana);
            norm += ana * ana;
        }
    print_message("gradient check InfoNCE loss relative error %.2e\n", sqrt(diff / norm));
    assert_true(sqrt(diff / norm) < 1e-4);
    /* known value: identical unit views and orthogonal rows give
     * log(1 + (n - 1) e^{-1/t}) per direction */
    double a[4] = {1, 0, 0, 1}, da[4], db[4];
    double loss = gcl_infonce_d(a, a, 2, 2, 0.5, da, db);
    assert_true(fabs(loss - log(1 + exp(-2.0))) < 1e-12);
}

/* ------------------------------------------------------------ training */

static void fast_options(ks_gcl_options *o)
{
    ks_gcl_options_init(o);
    set_dims(o, 16, 32, 32, 32, 32, 16);
    o->epochs = 20;
    o->batch = 4;
    o->learning_rate = 3e-3;
    o->seed = 11;
}

/* BLAS on one thread, fast options with epochs (0: fast_options'), and the
 * hand-made graphs under them. */
static ks_gcl_graph **fast_graphs(ks_gcl_options *o, uint32_t epochs, size_t *n)
{
    set_blas_threads(1);
    fast_options(o);
    if (epochs)
        o->epochs = epochs;
    return hand_graphs(o, n);
}

/* fast_graphs and a model trained on them (no progress callback). */
static ks_gcl_model *fast_model(ks_gcl_options *o, uint32_t epochs, ks_gcl_graph ***graphs,
                                size_t *n)
{
    *graphs = fast_graphs(o, epochs, n);
    ks_gcl_model *m;
    ks_error err;
    assert_int_equal(ks_gcl_train(*graphs, *n, o, NULL, NULL, &m, &err), KS_OK);
    return m;
}

typedef struct loss_log {
    double loss[64];
    unsigned n;
} loss_log;

static void record_loss(void *ctx, unsigned epoch, double loss, double seconds)
{
    loss_log *l = ctx;
    (void)seconds;
    if (l->n < 64)
        l->loss[l->n++] = loss;
    assert_int_equal(epoch, l->n);
}

static void test_training_loss_falls(void **state)
{
    (void)state;
    ks_gcl_options o;
    size_t n;
    ks_gcl_graph **graphs = fast_graphs(&o, 0, &n);
    loss_log log = {{0}, 0};
    ks_gcl_model *m;
    ks_error err;
    assert_int_equal(ks_gcl_train(graphs, n, &o, record_loss, &log, &m, &err), KS_OK);
    assert_int_equal(log.n, o.epochs);
    double last = (log.loss[log.n - 1] + log.loss[log.n - 2] + log.loss[log.n - 3]) / 3;
    print_message("loss: first epoch %.4f, mean of the last three %.4f\n", log.loss[0], last);
    assert_true(last < 0.7 * log.loss[0]);
    /* 4 kernels, the saxpy graphs of both grids identical: 4 distinct graphs */
    assert_int_equal(m->trained_graphs, 4);
    ks_gcl_model_free(m);
    free_graphs(graphs, n);
}

/* Adjusted Rand index (Hubert and Arabie 1985) of two labellings. */
static double adjusted_rand(const uint32_t *a, const uint32_t *b, size_t n)
{
    double table[32][32] = {{0}}, ra[32] = {0}, rb[32] = {0};
    for (size_t i = 0; i < n; i++) {
        table[a[i]][b[i]]++;
        ra[a[i]]++;
        rb[b[i]]++;
    }
    double sum = 0, sa = 0, sb = 0;
    for (int i = 0; i < 32; i++) {
        sa += ra[i] * (ra[i] - 1) / 2;
        sb += rb[i] * (rb[i] - 1) / 2;
        for (int j = 0; j < 32; j++)
            sum += table[i][j] * (table[i][j] - 1) / 2;
    }
    double pairs = (double)n * (double)(n - 1) / 2, expect = sa * sb / pairs;
    double top = (sa + sb) / 2;
    return top == expect ? 1.0 : (sum - expect) / (top - expect);
}

static void test_clusters_hand_kernels(void **state)
{
    (void)state;
    ks_gcl_options o;
    size_t n;
    ks_gcl_graph **graphs;
    ks_gcl_model *m = fast_model(&o, 0, &graphs, &n);
    ks_error err;
    ks_gcl_selection s;
    assert_int_equal(ks_gcl_select(m, graphs, n, NULL, &s, &err), KS_OK);
    double ari = adjusted_rand(s.cluster, hand_truth, n);
    print_message("hand kernels: K = %zu, silhouette %.3f, adjusted Rand index %.3f\n", s.k,
                  s.silhouette, ari);
    assert_int_equal(s.k, 5);
    assert_true(ari == 1.0);
    /* first launch of each group, weight = its size */
    static const uint64_t reps[5] = {0, 1, 2, 3, 4};
    static const double sizes[5] = {3, 4, 3, 3, 3};
    for (size_t c = 0; c < 5; c++) {
        assert_int_equal(s.representative[c], reps[c]);
        assert_true(s.weight[c] == sizes[c]);
    }
    ks_gcl_selection_free(&s);
    /* without the launch features the two saxpy grids merge: the trap */
    ks_gcl_options blind = o;
    blind.launch_weight = 0;
    assert_int_equal(ks_gcl_select(m, graphs, n, &blind, &s, &err), KS_OK);
    assert_int_equal(s.k, 4);
    assert_int_equal(s.cluster[0], s.cluster[3]);
    ks_gcl_selection_free(&s);
    ks_gcl_model_free(m);
    free_graphs(graphs, n);
}

/* a and b embed every graph to the same bytes */
static void assert_same_embeddings(const ks_gcl_model *a, const ks_gcl_model *b,
                                   ks_gcl_graph *const *graphs, size_t n)
{
    size_t dim = ks_gcl_embedding_dim(a);
    double *ea = malloc(n * dim * sizeof *ea), *eb = malloc(n * dim * sizeof *eb);
    ks_error err;
    assert_int_equal(ks_gcl_embed(a, graphs, n, ea, &err), KS_OK);
    assert_int_equal(ks_gcl_embed(b, graphs, n, eb, &err), KS_OK);
    assert_memory_equal(ea, eb, n * dim * sizeof *ea);
    free(ea);
    free(eb);
}

static void test_deterministic(void **state)
{
    (void)state;
    ks_gcl_options o;
    fast_options(&o);
    o.epochs = 5;
    size_t n;
    ks_gcl_graph **graphs = hand_graphs(&o, &n);
    ks_gcl_model *a, *b, *c;
    ks_error err;
    set_blas_threads(1);
    assert_int_equal(ks_gcl_train(graphs, n, &o, NULL, NULL, &a, &err), KS_OK);
    assert_int_equal(ks_gcl_train(graphs, n, &o, NULL, NULL, &b, &err), KS_OK);
    assert_int_equal(a->layout.total, b->layout.total);
    assert_memory_equal(a->param, b->param, a->layout.total * sizeof *a->param);
    assert_same_embeddings(a, b, graphs, n);
    ks_gcl_selection sa, sb;
    assert_int_equal(ks_gcl_select(a, graphs, n, NULL, &sa, &err), KS_OK);
    assert_int_equal(ks_gcl_select(b, graphs, n, NULL, &sb, &err), KS_OK);
    assert_int_equal(sa.k, sb.k);
    assert_memory_equal(sa.cluster, sb.cluster, n * sizeof *sa.cluster);
    /* another BLAS thread count: OpenBLAS may round differently (its kernels
     * for edge tiles differ), so the weights need not be the same bytes; the
     * plan is */
    set_blas_threads(2);
    assert_int_equal(ks_gcl_train(graphs, n, &o, NULL, NULL, &c, &err), KS_OK);
    int same = memcmp(a->param, c->param, a->layout.total * sizeof *a->param) == 0;
    print_message("1 vs 2 BLAS threads: weights %s\n", same ? "identical" : "differ in low bits");
    ks_gcl_selection sc;
    assert_int_equal(ks_gcl_select(c, graphs, n, NULL, &sc, &err), KS_OK);
    assert_int_equal(sa.k, sc.k);
    assert_memory_equal(sa.cluster, sc.cluster, n * sizeof *sa.cluster);
    ks_gcl_selection_free(&sc);
    set_blas_threads(1);
    /* another seed: other weights */
    ks_gcl_model_free(c);
    o.seed++;
    assert_int_equal(ks_gcl_train(graphs, n, &o, NULL, NULL, &c, &err), KS_OK);
    assert_true(memcmp(a->param, c->param, a->layout.total * sizeof *a->param) != 0);
    ks_gcl_model_free(c);
    ks_gcl_selection_free(&sa);
    ks_gcl_selection_free(&sb);
    ks_gcl_model_free(a);
    ks_gcl_model_free(b);
    free_graphs(graphs, n);
}

/* A selection as a plan: one sample per cluster weighted by its size, the
 * launches of each group timed alike, so the estimate is exact. */
static void test_plan_fill(void **state)
{
    (void)state;
    static const double group_ns[5] = {1000, 5000, 300, 250, 9000};
    ks_profile *p = ks_profile_new();
    ks_error err;
    uint32_t id;
    assert_int_equal(ks_profile_intern(p, "k", 1, &id, &err), KS_OK);
    double total = 0;
    for (size_t i = 0; i < 16; i++) {
        ks_invocation inv;
        ks_invocation_init(&inv);
        inv.name_id = id;
        inv.duration_ns = (int64_t)group_ns[hand_truth[i]];
        total += group_ns[hand_truth[i]];
        assert_int_equal(ks_profile_append(p, &inv, &err), KS_OK);
    }
    ks_gcl_selection s = {16, 5, NULL, NULL, NULL, 1.0};
    uint32_t cluster[16];
    memcpy(cluster, hand_truth, sizeof cluster);
    uint64_t reps[5] = {0, 1, 2, 3, 4};
    double weight[5] = {3, 4, 3, 3, 3};
    s.cluster = cluster;
    s.representative = reps;
    s.weight = weight;
    ks_plan plan;
    ks_plan_init(&plan);
    assert_int_equal(ks_gcl_plan_fill(&s, p, NULL, &plan, &err), KS_OK);
    assert_int_equal(ks_plan_finish(&plan, p, &err), KS_OK);
    assert_int_equal(plan.sample_count, 5);
    assert_int_equal(plan.cluster_count, 5);
    assert_true(fabs(ks_plan_estimate_duration(&plan, p) - total) < 1e-6);
    assert_int_equal(plan.clusters[1].size, 4);
    assert_true(plan.clusters[1].std_ns == 0 && plan.clusters[1].mean_ns == 5000);
    ks_plan_free(&plan);
    s.n = 15; /* a profile of other launches is refused */
    ks_plan_init(&plan);
    assert_int_equal(ks_gcl_plan_fill(&s, p, NULL, &plan, &err), KS_ERR_USAGE);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

/* ------------------------------------------------------------ model file */

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *d = malloc(*size);
    assert_int_equal(fread(d, 1, *size, f), *size);
    fclose(f);
    return d;
}

static void expect_refusal(const unsigned char *d, size_t size, const char *needle)
{
    ks_gcl_model *m = (ks_gcl_model *)1;
    ks_error err;
    ks_error_clear(&err);
    assert_int_equal(ks_gcl_model_parse(d, size, "m.ksm", &m, &err), KS_ERR_FORMAT);
    assert_null(m);
    if (!strstr(err.message, needle))
        fail_msg("expected '%s' in: %s", needle, err.message);
    assert_string_equal(err.file, "m.ksm");
}

static void test_model_file(void **state)
{
    (void)state;
    ks_gcl_options o;
    size_t n;
    ks_gcl_graph **graphs;
    ks_gcl_model *m = fast_model(&o, 2, &graphs, &n);
    ks_gcl_model *back;
    ks_error err;
    const char *path = in_dir("model.ksm");
    assert_int_equal(ks_gcl_model_save(m, path, &err), KS_OK);
    assert_int_equal(ks_gcl_model_load(path, &back, &err), KS_OK);
    assert_int_equal(back->vocab_count, m->vocab_count);
    for (size_t i = 0; i < m->vocab_count; i++)
        assert_string_equal(back->vocab[i], m->vocab[i]);
    assert_memory_equal(back->param, m->param, m->layout.total * sizeof *m->param);
    const ks_gcl_options *bo = ks_gcl_model_options(back);
    assert_int_equal(bo->max_insts_per_warp, o.max_insts_per_warp);
    assert_int_equal(bo->hidden[2], o.hidden[2]);
    assert_true(bo->temperature == o.temperature && bo->seed == o.seed);
    assert_int_equal(back->epochs_run, 2);
    assert_same_embeddings(m, back, graphs, n);
    /* saving again gives the same bytes */
    size_t size, size2;
    unsigned char *d = slurp(path, &size);
    assert_int_equal(ks_gcl_model_save(back, in_dir("again.ksm"), &err), KS_OK);
    unsigned char *d2 = slurp(in_dir("again.ksm"), &size2);
    assert_int_equal(size, size2);
    assert_memory_equal(d, d2, size);
    /* refusals */
    expect_refusal(d, 5, "magic");
    d[0] = 'X';
    expect_refusal(d, size, "magic");
    d[0] = 'K';
    d[8] = 3;
    expect_refusal(d, size, "version 3");
    d[8] = 0;
    expect_refusal(d, size, "version 0");
    d[8] = 2;
    expect_refusal(d, size - 100, "truncated");
    expect_refusal(d, 40, "truncated");
    d[size - 200] ^= 0x10;
    expect_refusal(d, size, "checksum");
    d[size - 200] ^= 0x10;
    ks_gcl_model *ok;
    assert_int_equal(ks_gcl_model_parse(d, size, "m.ksm", &ok, &err), KS_OK);
    ks_gcl_model_free(ok);
    assert_int_equal(ks_gcl_model_load(in_dir("absent.ksm"), &ok, &err), KS_ERR_IO);
    free(d), free(d2);
    ks_gcl_model_free(back);
    ks_gcl_model_free(m);
    free_graphs(graphs, n);
}

/* The fuzz seeds stay what their names say: the valid model parses, the
 * damaged ones are refused for their reason. */
static void test_model_corpus(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        ks_status want;
        const char *needle;
    } seeds[] = {{"valid.ksm", KS_OK, ""},
                 {"valid-v1.ksm", KS_OK, ""},
                 {"truncated.ksm", KS_ERR_FORMAT, "truncated"},
                 {"version3.ksm", KS_ERR_FORMAT, "version 3"},
                 {"corrupt.ksm", KS_ERR_FORMAT, "checksum"}};
    char root[4096];
    snprintf(root, sizeof root, "%s", __FILE__); /* <root>/tests/test_gcl.c */
    char *cut = strstr(root, "tests/test_gcl.c");
    if (!cut)
        skip();
    *cut = 0;
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%sfuzz/corpus/model/%s", root, seeds[i].file);
        ks_gcl_model *m;
        ks_error err;
        ks_error_clear(&err);
        assert_int_equal(ks_gcl_model_load(path, &m, &err), seeds[i].want);
        if (seeds[i].want == KS_OK) {
            assert_int_equal(ks_gcl_embedding_dim(m), 2);
            ks_gcl_model_free(m);
        } else if (!strstr(err.message, seeds[i].needle)) {
            fail_msg("%s: %s", seeds[i].file, err.message);
        }
    }
    /* valid.ksm is valid-v1.ksm loaded and saved again (version 2): the same
     * model, which a version 1 file says was trained on every distinct graph */
    ks_gcl_model *v1, *v2;
    ks_error err;
    char path[4200];
    snprintf(path, sizeof path, "%sfuzz/corpus/model/valid-v1.ksm", root);
    assert_int_equal(ks_gcl_model_load(path, &v1, &err), KS_OK);
    snprintf(path, sizeof path, "%sfuzz/corpus/model/valid.ksm", root);
    assert_int_equal(ks_gcl_model_load(path, &v2, &err), KS_OK);
    assert_int_equal(ks_gcl_model_options(v1)->max_train_graphs, 0);
    assert_int_equal(v1->layout.total, v2->layout.total);
    assert_memory_equal(v1->param, v2->param, v1->layout.total * sizeof *v1->param);
    ks_gcl_model_free(v1);
    ks_gcl_model_free(v2);
}

static void test_option_checks(void **state)
{
    (void)state;
    ks_gcl_options o;
    fast_options(&o);
    size_t n;
    ks_gcl_graph **graphs = hand_graphs(&o, &n);
    ks_gcl_model *m;
    ks_error err;
    o.batch = 1;
    assert_int_equal(ks_gcl_train(graphs, n, &o, NULL, NULL, &m, &err), KS_ERR_USAGE);
    fast_options(&o);
    o.temperature = 0;
    assert_int_equal(ks_gcl_train(graphs, n, &o, NULL, NULL, &m, &err), KS_ERR_USAGE);
    fast_options(&o);
    o.node_drop = 1;
    assert_int_equal(ks_gcl_train(graphs, n, &o, NULL, NULL, &m, &err), KS_ERR_USAGE);
    fast_options(&o);
    assert_int_equal(ks_gcl_train(graphs, 0, &o, NULL, NULL, &m, &err), KS_ERR_USAGE);
    /* one launch: no training possible, the model still embeds; K = 1 */
    o.epochs = 3;
    assert_int_equal(ks_gcl_train(graphs, 1, &o, NULL, NULL, &m, &err), KS_OK);
    assert_int_equal(m->epochs_run, 0);
    ks_gcl_selection s;
    assert_int_equal(ks_gcl_select(m, graphs, 1, NULL, &s, &err), KS_OK);
    assert_int_equal(s.k, 1);
    assert_true(s.weight[0] == 1 && s.representative[0] == 0);
    ks_gcl_selection_free(&s);
    ks_gcl_model_free(m);
    free_graphs(graphs, n);
}

/* ------------------------------------------------- corpus, dedup, training set */

static void assert_same_selection(const ks_gcl_selection *a, const ks_gcl_selection *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->k, b->k);
    assert_memory_equal(a->cluster, b->cluster, a->n * sizeof *a->cluster);
    assert_memory_equal(a->representative, b->representative,
                        a->k * sizeof *a->representative);
    assert_memory_equal(a->weight, b->weight, a->k * sizeof *a->weight);
    assert_memory_equal(&a->silhouette, &b->silhouette, sizeof a->silhouette);
}

/* A synthetic trace folder (ksample synth --traces) read two ways: every
 * graph held at once (ks_gcl_graphs_read, ks_gcl_train, ks_gcl_select), and
 * through the corpus, which keeps only the distinct graphs' keys and builds
 * graphs again when it trains and embeds.  Same model bytes, embeddings and
 * clusters, with every distinct graph trained on and with a bounded set. */
static void test_corpus_equals_in_memory(void **state)
{
    (void)state;
    const char *dir = in_dir("synth");
    ks_synth_traces_options so = {48, 5, NULL};
    ks_error err;
    assert_int_equal(ks_synth_traces_write(dir, &so, &err), KS_OK);
    ks_gcl_options o;
    fast_options(&o);
    o.epochs = 3;
    set_blas_threads(1);
    ks_gcl_graph **graphs;
    size_t n;
    assert_int_equal(ks_gcl_graphs_read(dir, &o, &graphs, &n, &err), KS_OK);
    assert_int_equal(n, 48);
    size_t *first = malloc(n * sizeof *first), distinct = 0;
    assert_int_equal(gcl_first_same(graphs, n, first, &err), KS_OK);
    for (size_t i = 0; i < n; i++)
        distinct += first[i] == i;
    print_message("48 synthetic launches: %zu distinct graphs\n", distinct);
    assert_true(distinct > 8 && distinct < n); /* some repeat, some do not */
    free(first);
    size_t dim = o.hidden[2];
    double *e1 = malloc(n * dim * sizeof *e1), *e2 = malloc(n * dim * sizeof *e2);
    for (int bounded = 0; bounded < 2; bounded++) {
        o.max_train_graphs = bounded ? 5 : 0;
        ks_gcl_model *m1, *m2;
        assert_int_equal(ks_gcl_train(graphs, n, &o, NULL, NULL, &m1, &err), KS_OK);
        ks_gcl_corpus *c;
        assert_int_equal(ks_gcl_corpus_open(&dir, 1, &o, &c, &err), KS_OK);
        assert_int_equal(ks_gcl_corpus_launches(c), n);
        assert_int_equal(ks_gcl_corpus_distinct(c), distinct);
        assert_string_equal(ks_gcl_corpus_name(c, 7), ks_gcl_graph_name(graphs[7]));
        assert_int_equal(ks_gcl_corpus_train(c, NULL, NULL, &m2, &err), KS_OK);
        assert_int_equal(m1->trained_graphs, bounded ? 5 : distinct);
        assert_int_equal(m2->trained_graphs, m1->trained_graphs);
        assert_int_equal(m1->vocab_count, m2->vocab_count);
        for (size_t v = 0; v < m1->vocab_count; v++)
            assert_string_equal(m1->vocab[v], m2->vocab[v]);
        assert_memory_equal(m1->param, m2->param, m1->layout.total * sizeof *m1->param);
        assert_int_equal(ks_gcl_embed(m1, graphs, n, e1, &err), KS_OK);
        assert_int_equal(ks_gcl_corpus_embed(c, m2, e2, &err), KS_OK);
        assert_memory_equal(e1, e2, n * dim * sizeof *e1);
        ks_gcl_selection s1, s2;
        assert_int_equal(ks_gcl_select(m1, graphs, n, NULL, &s1, &err), KS_OK);
        assert_int_equal(ks_gcl_corpus_select(c, m2, NULL, &s2, &err), KS_OK);
        print_message("%s: K = %zu, silhouette %.4f\n",
                      bounded ? "5 graphs trained" : "every distinct graph trained", s1.k,
                      s1.silhouette);
        assert_same_selection(&s1, &s2);
        ks_gcl_selection_free(&s1);
        ks_gcl_selection_free(&s2);
        ks_gcl_corpus_free(c);
        ks_gcl_model_free(m1);
        ks_gcl_model_free(m2);
    }
    free(e1), free(e2);
    free_graphs(graphs, n);
}

/* Embedding identical graphs once gives what embedding every launch's graph
 * on its own gives, and so the same clusters. */
static void test_dedup_same_embeddings(void **state)
{
    (void)state;
    ks_gcl_options o;
    size_t n;
    ks_gcl_graph **graphs;
    ks_gcl_model *m = fast_model(&o, 2, &graphs, &n);
    ks_error err;
    size_t dim = ks_gcl_embedding_dim(m);
    double *once = malloc(n * dim * sizeof *once), *each = malloc(n * dim * sizeof *each);
    double *launch = malloc(2 * n * sizeof *launch);
    assert_int_equal(ks_gcl_embed(m, graphs, n, once, &err), KS_OK);
    gcl_embedder e = {0};
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(gcl_embed_one(&e, m, graphs[i], each + i * dim, &err), KS_OK);
        launch[2 * i] = graphs[i]->log2_blocks;
        launch[2 * i + 1] = graphs[i]->log2_warp_insts;
    }
    gcl_embedder_free(&e);
    assert_memory_equal(once, each, n * dim * sizeof *once);
    ks_gcl_selection a, b;
    assert_int_equal(ks_gcl_select(m, graphs, n, NULL, &a, &err), KS_OK);
    assert_int_equal(ks_gcl_cluster(each, n, dim, launch, &o, &b, &err), KS_OK);
    assert_same_selection(&a, &b);
    ks_gcl_selection_free(&a);
    ks_gcl_selection_free(&b);
    free(once), free(each), free(launch);
    ks_gcl_model_free(m);
    free_graphs(graphs, n);
}

static size_t chosen_count(const uint8_t *chosen, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += chosen[i];
    return k;
}

/* The bounded training set: all candidates up to the cap; beyond it, the
 * same choice for the same seed whatever the candidates' order, every kernel
 * name before any twice, and another choice under another seed. */
static void test_training_choice(void **state)
{
    (void)state;
    enum { N = 40, NAMES = 4 };
    gcl_candidate c[N], shuffled[N];
    ks_rng rng;
    ks_rng_seed(&rng, 5);
    for (size_t i = 0; i < N; i++)
        c[i] = (gcl_candidate){ks_rng_next(&rng), (uint32_t)(i % NAMES)};
    uint8_t chosen[N], again[N];
    ks_error err;
    assert_int_equal(gcl_choose_training(c, N, 0, 1, chosen, &err), KS_OK);
    assert_int_equal(chosen_count(chosen, N), N);
    assert_int_equal(gcl_choose_training(c, N, N, 1, chosen, &err), KS_OK);
    assert_int_equal(chosen_count(chosen, N), N);
    for (uint32_t cap = 1; cap < N; cap++) {
        assert_int_equal(gcl_choose_training(c, N, cap, 1, chosen, &err), KS_OK);
        assert_int_equal(chosen_count(chosen, N), cap);
        size_t per_name[NAMES] = {0}, least = N, most = 0;
        for (size_t i = 0; i < N; i++)
            per_name[c[i].name] += chosen[i];
        for (size_t k = 0; k < NAMES; k++) {
            least = per_name[k] < least ? per_name[k] : least;
            most = per_name[k] > most ? per_name[k] : most;
        }
        assert_true(most - least <= 1); /* rounds over the names */
        /* the same seed, the candidates in reverse order: the same graphs */
        for (size_t i = 0; i < N; i++)
            shuffled[i] = c[N - 1 - i];
        assert_int_equal(gcl_choose_training(shuffled, N, cap, 1, again, &err), KS_OK);
        for (size_t i = 0; i < N; i++)
            assert_int_equal(chosen[i], again[N - 1 - i]);
    }
    int differs = 0;
    assert_int_equal(gcl_choose_training(c, N, 8, 1, chosen, &err), KS_OK);
    for (uint64_t seed = 2; seed < 6; seed++) {
        assert_int_equal(gcl_choose_training(c, N, 8, seed, again, &err), KS_OK);
        differs |= memcmp(chosen, again, N) != 0;
    }
    assert_true(differs);
}

/* ------------------------------------------------------------ real traces */

#if defined(KS_TRACE_H)
static void test_backprop_h100(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/accelsim/backprop-h100", KS_SHARED_DATA);
    ks_trace_set *set;
    ks_error err;
    if (access(dir, R_OK) != 0)
        skip();
    assert_int_equal(ks_trace_set_open(dir, &set, &err), KS_OK);
    set_blas_threads(1);
    ks_gcl_options o;
    ks_gcl_options_init(&o);
    o.epochs = 10;
    size_t n = ks_trace_set_kernel_count(set);
    assert_int_equal(n, 33); /* the 5 memory copies are not launches */
    ks_gcl_graph **graphs = calloc(n, sizeof *graphs);
    ks_gcl_graph_builder *b;
    assert_int_equal(ks_gcl_graph_builder_new(&o, &b, &err), KS_OK);
    ks_trace_filter f;
    ks_gcl_trace_filter(&o, &f);
    uint32_t truth[64];
    for (size_t i = 0; i < n; i++) {
        const ks_trace_kernel *k = ks_trace_set_kernel(set, i);
        assert_int_equal(ks_gcl_graph_builder_begin(b, k, &err), KS_OK);
        assert_int_equal(ks_trace_set_stream(set, i, &f, ks_gcl_graph_builder_stream_fn, b, &err),
                         KS_OK);
        assert_int_equal(ks_gcl_graph_builder_finish(b, &graphs[i], &err), KS_OK);
        truth[i] = strstr(k->name, "forward") ? 0 : strstr(k->name, "output") ? 1
                   : k->grid[0] == 128                                          ? 2
                                                                                : 3;
    }
    ks_gcl_model *m;
    assert_int_equal(ks_gcl_train(graphs, n, &o, NULL, NULL, &m, &err), KS_OK);
    ks_gcl_selection s;
    assert_int_equal(ks_gcl_select(m, graphs, n, NULL, &s, &err), KS_OK);
    double ari = adjusted_rand(s.cluster, truth, n);
    print_message("backprop-h100: K = %zu, adjusted Rand index %.3f\n", s.k, ari);
    assert_int_equal(s.k, 4);
    assert_true(ari == 1.0);
    /* through the corpus (what --method gcl does): the same model and plan */
    ks_gcl_corpus *c;
    const char *d = dir;
    assert_int_equal(ks_gcl_corpus_open(&d, 1, &o, &c, &err), KS_OK);
    ks_gcl_model *cm;
    assert_int_equal(ks_gcl_corpus_train(c, NULL, NULL, &cm, &err), KS_OK);
    assert_memory_equal(cm->param, m->param, m->layout.total * sizeof *m->param);
    ks_gcl_selection cs;
    assert_int_equal(ks_gcl_corpus_select(c, cm, NULL, &cs, &err), KS_OK);
    assert_same_selection(&s, &cs);
    ks_gcl_selection_free(&cs);
    ks_gcl_model_free(cm);
    ks_gcl_corpus_free(c);
    ks_gcl_selection_free(&s);
    ks_gcl_model_free(m);
    for (size_t i = 0; i < n; i++)
        ks_gcl_graph_free(graphs[i]);
    free(graphs);
    ks_gcl_graph_builder_free(b);
    ks_trace_set_free(set);
}
#else
static void test_backprop_h100(void **state)
{
    (void)state;
    print_message("backprop-h100: the trace reader (lib/traces) is not on this branch\n");
    skip();
}
#endif

KS_TMPDIR_TEST_MAIN("ks-gcl",
                    test_graph_counts,
                    test_graph_invariance_and_batch,
                    test_gradients,
                    test_loss_gradient,
                    test_training_loss_falls,
                    test_clusters_hand_kernels,
                    test_deterministic,
                    test_plan_fill,
                    test_model_file,
                    test_model_corpus,
                    test_corpus_equals_in_memory,
                    test_dedup_same_embeddings,
                    test_training_choice,
                    test_option_checks,
                    test_backprop_h100)
