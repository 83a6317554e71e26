/*
 * gcl.h - GCL-Sampler internals: the trace graph of one launch and its
 * builder, the batch the encoder runs on, the parameter layout, and the
 * encoder / head / loss in float (training) and double (gradient checks).
 */
#ifndef KS_GCL_H
#define KS_GCL_H

#include "internal.h"
#include "trace.h"
#include "hash.h"

/* Relations.  Messages flow along an edge from source to destination; the
 * inverse of relation r is r + GCL_REL_FORWARD. */
enum {
    GCL_REL_CONTROL_FLOW = 0,     /* instruction -> next instruction of its warp */
    GCL_REL_DATA_SOURCE = 1,      /* variable -> instruction that reads it */
    GCL_REL_DATA_DESTINATION = 2, /* instruction -> variable it writes */
    GCL_REL_MEM_REF = 3,          /* mem_ref node -> the instruction whose access it describes */
    GCL_REL_FORWARD = 4,
    GCL_REL_MAX = 8
};

enum { GCL_NODE_INSTRUCTION = 0, GCL_NODE_VARIABLE = 1, GCL_NODE_MEM_REF = 2 };

/* Token ids below GCL_TOK_SPECIAL are fixed; opcode tokens follow. */
enum {
    GCL_TOK_UNKNOWN = 0, /* an opcode the model's vocabulary lacks */
    GCL_TOK_NONE,        /* second token of a node that has one only */
    GCL_TOK_VAR_R,       /* variable nodes by register file */
    GCL_TOK_VAR_UR,
    GCL_TOK_VAR_P,
    GCL_TOK_VAR_UP,
    GCL_TOK_VAR_OTHER,
    GCL_TOK_LIVE_IN,     /* a register read before any write in the warp */
    GCL_TOK_MEM_REF,
    GCL_TOK_SPECIAL
};

/* Scalar node features (projected into the input by a learned matrix). */
enum {
    GCL_F_PC = 0,      /* instruction PC / largest PC of the graph */
    GCL_F_ACTIVE,      /* active lanes / 32 */
    GCL_F_WIDTH,       /* bytes per lane / 16 (instructions and mem_ref) */
    GCL_F_HAS_IMM,     /* tracer 5 immediate present */
    GCL_F_IMM,         /* sign(imm) log2(1 + |imm|) / 64 */
    GCL_F_SECTORS,     /* mem_ref: distinct 32-byte sectors / active lanes */
    GCL_F_SPAN,        /* mem_ref: log2(1 + highest - lowest address) / 32 */
    GCL_F_UNIT_STRIDE, /* mem_ref: share of lane-to-lane steps equal to the width */
    GCL_FEATS
};

struct ks_gcl_graph {
    size_t index;            /* launch position in its trace list */
    char *name;
    uint32_t grid[3], block[3];
    double log2_blocks;      /* launch-level features joined to the embedding */
    double log2_warp_insts;
    int warp_insts_estimated;/* the header gave none: traced mean per warp x warps */
    uint64_t traced_insts;
    uint32_t n_nodes, n_warps, n_edges;
    uint8_t *kind;           /* n_nodes */
    uint32_t *tok;           /* 2 per node: < GCL_TOK_SPECIAL fixed, else GCL_TOK_SPECIAL +
                                index into ops */
    float *feat;             /* GCL_FEATS per node */
    uint32_t *warp_of;       /* n_nodes */
    uint32_t *edge_src, *edge_dst;
    uint8_t *edge_rel;       /* forward relations only */
    size_t n_ops;
    char **ops;              /* the graph's own opcode strings (full and base forms) */
    uint64_t hash;           /* of the content, to train on distinct graphs once */
};

typedef struct ks_gcl_graph_builder ks_gcl_graph_builder;
ks_status ks_gcl_graph_builder_new(const ks_gcl_options *o, ks_gcl_graph_builder **out,
                                   ks_error *err);
void ks_gcl_graph_builder_free(ks_gcl_graph_builder *b);
/* Starts the graph of launch k (the header fields are copied). */
ks_status ks_gcl_graph_builder_begin(ks_gcl_graph_builder *b, const ks_trace_kernel *k,
                                     ks_error *err);
/* One instruction in trace order; instructions outside the option's bounds
 * are ignored, so any stream can be fed. */
ks_status ks_gcl_graph_builder_add(ks_gcl_graph_builder *b, const ks_trace_inst *inst,
                                   ks_error *err);
ks_status ks_gcl_graph_builder_finish(ks_gcl_graph_builder *b, ks_gcl_graph **out,
                                      ks_error *err);
/* A ks_trace_inst_fn (ctx = the builder): begins on a new launch, adds. */
ks_status ks_gcl_graph_builder_stream_fn(void *ctx, const ks_trace_kernel *k,
                                         const ks_trace_inst *inst, ks_error *err);
/* The reader-side bounds that match the options. */
void ks_gcl_trace_filter(const ks_gcl_options *o, ks_trace_filter *f);

/* Adds one cluster per selected cluster (durations from p, which must list
 * the same launches in the same order) and its representative with weight =
 * cluster size.  groups (may be NULL: group 0) names each cluster's group by
 * its representative.  No error bound is promised (bound_scope "none"). */
ks_status ks_gcl_plan_fill(const ks_gcl_selection *s, const ks_profile *p,
                           const ks_groups *groups, ks_plan *plan, ks_error *err);

/* ------------------------------------------------------------ the model */

typedef struct gcl_dims {
    uint32_t dim[4];   /* input, then the output of each of the 3 layers */
    uint32_t proj[2];
    uint32_t bases, rels, tokens;
} gcl_dims;

#define GCL_LAYERS 3

/* Offsets of each tensor in the flat parameter array. */
typedef struct gcl_layout {
    size_t emb;                 /* tokens x dim[0] */
    size_t feat;                /* GCL_FEATS x dim[0] */
    size_t wcat[GCL_LAYERS];    /* (bases + 1) dim[l] x dim[l+1]: W_0 then V_1..V_B */
    size_t bias[GCL_LAYERS];    /* dim[l+1] */
    size_t coef[GCL_LAYERS];    /* rels x bases: a_rb */
    size_t ln_g[GCL_LAYERS], ln_b[GCL_LAYERS]; /* dim[l+1]; unused for the last */
    size_t w1, b1, w2, b2;      /* projection head */
    size_t total;
} gcl_layout;

void gcl_dims_from_options(const ks_gcl_options *o, uint32_t tokens, gcl_dims *d);
void gcl_layout_compute(const gcl_dims *d, gcl_layout *l);

/* The disjoint union of graphs the encoder runs on at once. */
typedef struct gcl_batch {
    size_t n_nodes, n_graphs;
    uint32_t *tok;       /* 2 per node, model token ids */
    float *feat;         /* GCL_FEATS per node */
    float *noise;        /* dim[0] per node added to the input, or NULL */
    uint32_t *graph_of;  /* n_nodes */
    float *readout;      /* per node: 1 / (warps of its graph x nodes of its warp) */
    uint32_t rels;
    size_t *rowptr[GCL_REL_MAX]; /* in-edges of each node per relation (CSR) */
    uint32_t *col[GCL_REL_MAX];
    size_t cap_nodes, cap_edges[GCL_REL_MAX];
} gcl_batch;

void gcl_batch_free(gcl_batch *b);

/* Parts of one graph going into a batch: node and edge masks (NULL = all). */
typedef struct gcl_batch_part {
    const ks_gcl_graph *g;
    const uint32_t *tokmap;     /* graph op index -> model token id */
    const uint8_t *node_keep;
    const uint8_t *edge_keep;
} gcl_batch_part;

ks_status gcl_batch_build(gcl_batch *b, const gcl_batch_part *parts, size_t n, uint32_t rels,
                          ks_error *err);

/* Forward / backward state, one per scalar type. */
typedef struct gcl_work_f gcl_work_f;
typedef struct gcl_work_d gcl_work_d;

/* Encoder + readout: graph embeddings g (n_graphs x dim[3]).  rng NULL:
 * evaluation (no dropout). */
ks_status gcl_encode_f(const gcl_dims *d, const gcl_layout *l, const float *param,
                       const gcl_batch *b, double dropout, ks_rng *rng, gcl_work_f **work,
                       float *g, ks_error *err);
ks_status gcl_encode_d(const gcl_dims *d, const gcl_layout *l, const double *param,
                       const gcl_batch *b, double dropout, ks_rng *rng, gcl_work_d **work,
                       double *g, ks_error *err);
/* Adds d(loss)/d(param) given dg (n_graphs x dim[3]), after gcl_encode_*. */
void gcl_encode_backward_f(const gcl_dims *d, const gcl_layout *l, const float *param,
                           const gcl_batch *b, gcl_work_f *work, const float *dg, float *grad);
void gcl_encode_backward_d(const gcl_dims *d, const gcl_layout *l, const double *param,
                           const gcl_batch *b, gcl_work_d *work, const double *dg,
                           double *grad);
void gcl_work_free_f(gcl_work_f *w);
void gcl_work_free_d(gcl_work_d *w);

/* Projection head: z = W2 relu(W1 g + b1) + b2 for n rows; hidden (n x
 * proj[0]) is kept for the backward pass. */
void gcl_head_forward_f(const gcl_dims *d, const gcl_layout *l, const float *param,
                        const float *g, size_t n, float *hidden, float *z);
void gcl_head_forward_d(const gcl_dims *d, const gcl_layout *l, const double *param,
                        const double *g, size_t n, double *hidden, double *z);
/* scratch: n x proj[0] */
void gcl_head_backward_f(const gcl_dims *d, const gcl_layout *l, const float *param,
                         const float *g, size_t n, const float *hidden, const float *dz,
                         float *grad, float *dg, float *scratch);
void gcl_head_backward_d(const gcl_dims *d, const gcl_layout *l, const double *param,
                         const double *g, size_t n, const double *hidden, const double *dz,
                         double *grad, double *dg, double *scratch);

/* Symmetric InfoNCE between rows of z1 and z2 (n x dim each; row i of both
 * are views of one graph), cosine similarity over temperature.  Returns the
 * loss and writes its gradient into dz1, dz2.  Needs n >= 1 (n = 1 gives 0);
 * NAN when out of memory. */
double gcl_infonce_f(const float *z1, const float *z2, size_t n, size_t dim, double temperature,
                     float *dz1, float *dz2);
double gcl_infonce_d(const double *z1, const double *z2, size_t n, size_t dim,
                     double temperature, double *dz1, double *dz2);

/* Glorot-uniform weights, unit LayerNorm gains, N(0,1) token embeddings. */
void gcl_param_init(const gcl_dims *d, const gcl_layout *l, ks_rng *rng, float *param);

struct ks_gcl_model {
    ks_gcl_options opt;
    gcl_dims dims;
    gcl_layout layout;
    size_t vocab_count;
    char **vocab;   /* token GCL_TOK_SPECIAL + i */
    float *param;
    uint64_t trained_graphs, epochs_run;
    double final_loss;
};

/* ------------------------------------------------------------ training set */

/* How many distinct graphs train by default (--train-graphs; 0: all).
 * Training costs epochs x graphs x 2 views of forward and backward passes
 * (on the project's 2-core VM about 40 ms per graph and epoch at 220 nodes,
 * so 32 graphs x 30 epochs take about 40 s, whatever the launch count),
 * while embedding and clustering follow the distinct graphs.  What the
 * model must learn is to tell kernels apart: taken in rounds over the kernel
 * names, 32 graphs hold every kernel of a workload with up to 32 of them (the
 * bundled and shared traces have at most 5), two batches of 16 an epoch.  On
 * 300 synthetic launches 32 and 64 graphs gave the same clusters (docs/bench.md). */
#define GCL_TRAIN_GRAPHS 32

/* Opcode counts over the graphs of every launch, in first-seen order: the
 * vocabulary's source (train.c).  Texts are owned. */
typedef struct gcl_vocab_entry {
    char *text;
    uint64_t count, first;
} gcl_vocab_entry;

typedef struct gcl_vocab {
    gcl_vocab_entry *e;
    size_t n, cap;
    ks_hash_index index; /* text -> entry */
} gcl_vocab;

ks_status gcl_vocab_add(gcl_vocab *v, const ks_gcl_graph *g, ks_error *err);
void gcl_vocab_free(gcl_vocab *v);

/* Kernel names numbered in order of first appearance (owned copies). */
typedef struct gcl_names {
    char **name;
    size_t n, cap;
    ks_hash_index index;
} gcl_names;

ks_status gcl_names_id(gcl_names *t, const char *name, uint32_t *id, ks_error *err);
void gcl_names_free(gcl_names *t);

/* A distinct graph that may be trained on: its content hash and the id of
 * its kernel's name. */
typedef struct gcl_candidate {
    uint64_t hash;
    uint32_t name;
} gcl_candidate;

/* chosen[i] for the candidates trained on: all of them when there are at
 * most cap (or cap is 0); otherwise cap of them taken in rounds over the
 * kernel names (every name's first graph, then every name's second, ...),
 * each name's graphs in the order of XXH3 of their content hash under the
 * seed, so the choice is seeded, does not depend on launch order or on how
 * often a graph repeats, and covers every kernel it can. */
ks_status gcl_choose_training(const gcl_candidate *c, size_t n, uint32_t cap, uint64_t seed,
                              uint8_t *chosen, ks_error *err);

/* first[i] = the lowest j with the same content as graph i (same hash, node
 * and edge counts). */
ks_status gcl_first_same(ks_gcl_graph *const *graphs, size_t n, size_t *first, ks_error *err);

/* A model whose vocabulary comes from v, trained on the distinct graphs
 * train[0..n) in that order (ks_gcl_train's last step). */
ks_status gcl_train_graphs(const gcl_vocab *v, ks_gcl_graph *const *train, size_t n,
                           const ks_gcl_options *o, ks_gcl_progress_fn progress, void *ctx,
                           ks_gcl_model **out, ks_error *err);

/* Embeds one graph at a time, reusing the batch and encoder buffers. */
typedef struct gcl_embedder {
    gcl_batch batch;
    gcl_work_f *work;
    float *g;
} gcl_embedder;

ks_status gcl_embed_one(gcl_embedder *e, const ks_gcl_model *m, const ks_gcl_graph *g,
                        double *emb, ks_error *err);
void gcl_embedder_free(gcl_embedder *e);

/* The clustering of launches whose feature rows are shared: row_of[i] (n
 * launches) indexes x (m rows of width w, in order of first launch), and
 * count[r] launches have row r (NULL: one each).  The same clusters as
 * ks_gcl_cluster on every launch's own row. */
ks_status gcl_cluster_rows(const double *x, const double *count, size_t m, size_t w,
                           const uint32_t *row_of, size_t n, const ks_gcl_options *o,
                           ks_gcl_selection *out, ks_error *err);

/* The features clustered for one launch: its unit embedding, then
 * launch_weight x (log2 blocks, log2 warp instructions). */
void gcl_cluster_row(const double *emb, size_t dim, const double *launch, double weight,
                     double *x);

/* graph op index -> model token (GCL_TOK_UNKNOWN when absent); caller frees. */
ks_status gcl_token_map(const ks_gcl_model *m, const ks_gcl_graph *g, uint32_t **out,
                        ks_error *err);
ks_status gcl_model_alloc(const ks_gcl_options *o, size_t vocab_count, ks_gcl_model **out,
                          ks_error *err);

#endif
