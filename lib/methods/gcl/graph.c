/*
 * graph.c - the trace graph of one launch, built as its instructions stream
 * past (GCL-Sampler's "trace graph"; node and relation kinds as the
 * reproduction in docs/methods.md describes them).
 *
 * Per warp the builder keeps the latest version of every register: a write
 * makes a new variable node, a read links the latest version (or a live-in
 * node made on the first read), so the graph holds the data flow of the
 * warp's dynamic instruction stream, not just its static code.
 */
#include "gcl.h"
#include "hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define GCL_REGS 336 /* R0..R255, UR0..UR63, P0..P7, UP0..UP7 as the reader encodes them */
#define GCL_NO_NODE UINT32_MAX

typedef struct gcl_warp_state {
    uint64_t key;        /* block linear index << 32 | warp id */
    uint32_t last_inst;  /* previous instruction node of the warp */
    uint64_t insts;
    uint32_t reg[GCL_REGS];
} gcl_warp_state;

struct ks_gcl_graph_builder {
    ks_gcl_options opt;
    int begun;
    ks_gcl_graph *g;      /* being built */
    size_t cap_nodes, cap_edges, cap_ops;
    uint64_t *pc;         /* per node, normalised at finish */
    uint64_t max_pc;
    gcl_warp_state *warps;
    size_t n_warps, cap_warps;
    ks_hash_index warp_index; /* key -> index in warps */
    ks_hash_index op_index;   /* text -> index in g->ops */
    uint64_t warp_insts_header;
};

void ks_gcl_trace_filter(const ks_gcl_options *o, ks_trace_filter *f)
{
    f->max_blocks = o->max_blocks;
    f->max_warps = o->max_warps;
    f->max_insts_per_warp = o->max_insts_per_warp;
}

void ks_gcl_graph_free(ks_gcl_graph *g)
{
    if (!g)
        return;
    KS_FREE(g->name, g->kind, g->tok, g->feat, g->warp_of, g->edge_src, g->edge_dst,
            g->edge_rel);
    for (size_t i = 0; i < g->n_ops; i++)
        free(g->ops[i]);
    free(g->ops);
    free(g);
}

ks_status ks_gcl_graph_builder_new(const ks_gcl_options *o, ks_gcl_graph_builder **out,
                                   ks_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    (*out)->opt = *o;
    return KS_OK;
}

static void builder_reset(ks_gcl_graph_builder *b)
{
    ks_gcl_graph_free(b->g);
    b->g = NULL;
    free(b->pc);
    free(b->warps);
    ks_hash_free(&b->warp_index);
    ks_hash_free(&b->op_index);
    b->pc = NULL;
    b->warps = NULL;
    b->cap_nodes = b->cap_edges = b->cap_ops = 0;
    b->n_warps = b->cap_warps = 0;
    b->max_pc = 0;
    b->begun = 0;
}

void ks_gcl_graph_builder_free(ks_gcl_graph_builder *b)
{
    if (!b)
        return;
    builder_reset(b);
    free(b);
}

ks_status ks_gcl_graph_builder_begin(ks_gcl_graph_builder *b, const ks_trace_kernel *k,
                                     ks_error *err)
{
    builder_reset(b);
    b->g = calloc(1, sizeof *b->g);
    if (!b->g)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    b->g->index = k->index;
    b->g->name = strdup(k->name ? k->name : "");
    if (!b->g->name)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    memcpy(b->g->grid, k->grid, sizeof b->g->grid);
    memcpy(b->g->block, k->block, sizeof b->g->block);
    b->warp_insts_header = k->warp_insts;
    b->begun = 1;
    return KS_OK;
}

static ks_status builder_grow_nodes(ks_gcl_graph_builder *b, size_t need, ks_error *err)
{
    if (need <= b->cap_nodes)
        return KS_OK;
    if (need > UINT32_MAX - 1)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "trace graph of launch %zu exceeds 2^32 nodes: lower the bounds",
                            b->g->index);
    size_t cap = b->cap_nodes ? b->cap_nodes * 2 : 1024;
    while (cap < need)
        cap *= 2;
    ks_gcl_graph *g = b->g;
    void **const cols[] = {(void **)&g->kind, (void **)&g->tok, (void **)&g->feat,
                           (void **)&g->warp_of, (void **)&b->pc};
    const size_t bytes[] = {sizeof *g->kind, 2 * sizeof *g->tok, GCL_FEATS * sizeof *g->feat,
                            sizeof *g->warp_of, sizeof *b->pc};
    if (!ks_resize_columns(cols, bytes, 5, cap))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (trace graph)");
    b->cap_nodes = cap;
    return KS_OK;
}

static ks_status builder_node(ks_gcl_graph_builder *b, uint8_t kind, uint32_t tok0,
                              uint32_t tok1, uint32_t warp, uint32_t *id, ks_error *err)
{
    ks_gcl_graph *g = b->g;
    ks_status st = builder_grow_nodes(b, (size_t)g->n_nodes + 1, err);
    if (st != KS_OK)
        return st;
    uint32_t i = g->n_nodes++;
    g->kind[i] = kind;
    g->tok[2 * i] = tok0;
    g->tok[2 * i + 1] = tok1;
    memset(g->feat + (size_t)i * GCL_FEATS, 0, GCL_FEATS * sizeof *g->feat);
    g->warp_of[i] = warp;
    b->pc[i] = 0;
    *id = i;
    return KS_OK;
}

static ks_status builder_edge(ks_gcl_graph_builder *b, uint32_t src, uint32_t dst, uint8_t rel,
                              ks_error *err)
{
    ks_gcl_graph *g = b->g;
    if (g->n_edges == b->cap_edges) {
        if (g->n_edges >= UINT32_MAX / 2)
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "trace graph of launch %zu exceeds 2^31 edges: lower the bounds",
                                g->index);
        size_t cap = b->cap_edges ? b->cap_edges * 2 : 2048;
        void **const cols[] = {(void **)&g->edge_src, (void **)&g->edge_dst,
                               (void **)&g->edge_rel};
        const size_t bytes[] = {sizeof *g->edge_src, sizeof *g->edge_dst, sizeof *g->edge_rel};
        if (!ks_resize_columns(cols, bytes, 3, cap))
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (trace graph)");
        b->cap_edges = cap;
    }
    g->edge_src[g->n_edges] = src;
    g->edge_dst[g->n_edges] = dst;
    g->edge_rel[g->n_edges] = rel;
    g->n_edges++;
    return KS_OK;
}

/* The state of warp `key` (block linear index << 32 | warp id), made on
 * its first instruction. */
static ks_status builder_warp(ks_gcl_graph_builder *b, uint64_t key, gcl_warp_state **out,
                              ks_error *err)
{
    ks_u64_keys keys = {b->warps, sizeof *b->warps, offsetof(gcl_warp_state, key)};
    bool found;
    uint32_t id;
    size_t slot;
    ks_status st =
        ks_hash_find_u64(&b->warp_index, &keys, b->n_warps, key, &found, &id, &slot, err);
    if (st != KS_OK)
        return st;
    if (found) {
        *out = &b->warps[id];
        return KS_OK;
    }
    st = ks_grow((void **)&b->warps, &b->cap_warps, b->n_warps + 1, sizeof *b->warps, err);
    if (st != KS_OK)
        return st;
    gcl_warp_state *w = &b->warps[b->n_warps];
    w->key = key;
    w->last_inst = GCL_NO_NODE;
    w->insts = 0;
    for (size_t r = 0; r < GCL_REGS; r++)
        w->reg[r] = GCL_NO_NODE;
    ks_hash_put(&b->warp_index, slot, (uint32_t)b->n_warps++);
    *out = w;
    return KS_OK;
}

/* Token of opcode text[0..len) in the graph's own table. */
static ks_status builder_op(ks_gcl_graph_builder *b, const char *text, size_t len,
                            uint32_t *tok, ks_error *err)
{
    ks_gcl_graph *g = b->g;
    uint32_t id;
    ks_status st = ks_hash_intern(&b->op_index, &g->ops, &g->n_ops, &b->cap_ops, text, len, &id,
                                  err);
    if (st == KS_OK)
        *tok = GCL_TOK_SPECIAL + id;
    return st;
}

/* Register file of an encoded register; 0 for the constant registers (RZ,
 * URZ, PT, UPT) and unknown operands, which carry no data flow. */
static uint32_t reg_token(uint16_t r)
{
    if (r < 255)
        return GCL_TOK_VAR_R;
    if (r >= 256 && r < 319)
        return GCL_TOK_VAR_UR;
    if (r >= 320 && r < 327)
        return GCL_TOK_VAR_P;
    if (r >= 328 && r < 335)
        return GCL_TOK_VAR_UP;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Address statistics that do not depend on where the buffer was allocated,
 * so two launches touching different buffers the same way look the same. */
static void memref_features(const ks_trace_inst *in, float *f)
{
    f[GCL_F_WIDTH] = (float)in->mem_width / 16.0f;
    uint32_t n = in->naddr < 64 ? in->naddr : 64;
    if (n == 0 || !in->addr)
        return;
    uint64_t sector[64], lo = in->addr[0], hi = in->addr[0];
    uint32_t unit = 0;
    for (uint32_t i = 0; i < n; i++) {
        sector[i] = in->addr[i] / 32;
        if (in->addr[i] < lo)
            lo = in->addr[i];
        if (in->addr[i] > hi)
            hi = in->addr[i];
        if (i && in->addr[i] - in->addr[i - 1] == in->mem_width)
            unit++;
    }
    qsort(sector, n, sizeof *sector, cmp_u64);
    uint32_t distinct = 1;
    for (uint32_t i = 1; i < n; i++)
        distinct += sector[i] != sector[i - 1];
    f[GCL_F_SECTORS] = (float)distinct / (float)n;
    f[GCL_F_SPAN] = (float)(log2(1.0 + (double)(hi - lo)) / 32.0);
    f[GCL_F_UNIT_STRIDE] = n > 1 ? (float)unit / (float)(n - 1) : 0.0f;
}

static uint32_t popcount32(uint32_t x)
{
    uint32_t c = 0;
    for (; x; x &= x - 1)
        c++;
    return c;
}

static ks_status builder_reads(ks_gcl_graph_builder *b, gcl_warp_state *w, uint32_t warp,
                               const ks_trace_inst *in, uint32_t node, ks_error *err)
{
    ks_status st;
    for (uint32_t s = 0; s < in->nsrc && s < KS_TRACE_MAX_REGS; s++) {
        uint16_t r = in->src[s];
        uint32_t t = reg_token(r);
        if (!t)
            continue;
        int repeat = 0; /* "IADD R1, R2, R2" reads one value once */
        for (uint32_t p = 0; p < s; p++)
            repeat |= in->src[p] == r;
        if (repeat)
            continue;
        if (w->reg[r] == GCL_NO_NODE) {
            st = builder_node(b, GCL_NODE_VARIABLE, t, GCL_TOK_LIVE_IN, warp, &w->reg[r], err);
            if (st != KS_OK)
                return st;
        }
        if ((st = builder_edge(b, w->reg[r], node, GCL_REL_DATA_SOURCE, err)) != KS_OK)
            return st;
    }
    return KS_OK;
}

static ks_status builder_writes(ks_gcl_graph_builder *b, gcl_warp_state *w, uint32_t warp,
                                const ks_trace_inst *in, uint32_t node, ks_error *err)
{
    for (uint32_t s = 0; s < in->ndst && s < KS_TRACE_MAX_REGS; s++) {
        uint16_t r = in->dst[s];
        uint32_t t = reg_token(r), v;
        if (!t)
            continue;
        ks_status st = builder_node(b, GCL_NODE_VARIABLE, t, GCL_TOK_NONE, warp, &v, err);
        if (st == KS_OK)
            st = builder_edge(b, node, v, GCL_REL_DATA_DESTINATION, err);
        if (st != KS_OK)
            return st;
        w->reg[r] = v;
    }
    return KS_OK;
}

static void instruction_features(const ks_trace_inst *in, float *f)
{
    f[GCL_F_ACTIVE] = (float)popcount32(in->mask) / 32.0f;
    f[GCL_F_WIDTH] = (float)in->mem_width / 16.0f;
    if (in->has_imm) {
        double a = fabs((double)in->imm);
        f[GCL_F_HAS_IMM] = 1.0f;
        f[GCL_F_IMM] = (float)((in->imm < 0 ? -1 : 1) * log2(1.0 + a) / 64.0);
    }
}

ks_status ks_gcl_graph_builder_add(ks_gcl_graph_builder *b, const ks_trace_inst *in,
                                   ks_error *err)
{
    if (!b->begun)
        return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "graph builder: add before begin");
    ks_gcl_graph *g = b->g;
    uint64_t gx = g->grid[0] ? g->grid[0] : 1, gy = g->grid[1] ? g->grid[1] : 1;
    uint64_t block = in->tb[0] + gx * (in->tb[1] + gy * (uint64_t)in->tb[2]);
    if (b->opt.max_blocks && block >= b->opt.max_blocks)
        return KS_OK;
    if (b->opt.max_warps && in->warp >= b->opt.max_warps)
        return KS_OK;
    gcl_warp_state *w;
    ks_status st = builder_warp(b, block << 32 | in->warp, &w, err);
    if (st != KS_OK)
        return st;
    if (b->opt.max_insts_per_warp && w->insts >= b->opt.max_insts_per_warp)
        return KS_OK;
    w->insts++;
    g->traced_insts++;
    uint32_t warp = (uint32_t)(w - b->warps);
    const char *op = in->opcode ? in->opcode : "";
    size_t len = strlen(op), base_len = strcspn(op, ".");
    uint32_t full_tok, base_tok, node;
    if ((st = builder_op(b, op, len, &full_tok, err)) != KS_OK)
        return st;
    base_tok = full_tok; /* an opcode without modifiers ("IMAD") is its own base */
    if (base_len < len && (st = builder_op(b, op, base_len, &base_tok, err)) != KS_OK)
        return st;
    if ((st = builder_node(b, GCL_NODE_INSTRUCTION, full_tok, base_tok, warp, &node, err)))
        return st;
    b->pc[node] = in->pc;
    if (in->pc > b->max_pc)
        b->max_pc = in->pc;
    instruction_features(in, g->feat + (size_t)node * GCL_FEATS);
    if (w->last_inst != GCL_NO_NODE &&
        (st = builder_edge(b, w->last_inst, node, GCL_REL_CONTROL_FLOW, err)) != KS_OK)
        return st;
    w->last_inst = node;
    if ((st = builder_reads(b, w, warp, in, node, err)) != KS_OK)
        return st;
    if (in->mem_width > 0) {
        uint32_t m;
        if ((st = builder_node(b, GCL_NODE_MEM_REF, GCL_TOK_MEM_REF, GCL_TOK_NONE, warp, &m,
                               err)) != KS_OK ||
            (st = builder_edge(b, m, node, GCL_REL_MEM_REF, err)) != KS_OK)
            return st;
        memref_features(in, g->feat + (size_t)m * GCL_FEATS);
    }
    return builder_writes(b, w, warp, in, node, err);
}

ks_status ks_gcl_graph_builder_stream_fn(void *ctx, const ks_trace_kernel *k,
                                         const ks_trace_inst *inst, ks_error *err)
{
    ks_gcl_graph_builder *b = ctx;
    if (!b->begun || b->g->index != k->index) {
        ks_status st = ks_gcl_graph_builder_begin(b, k, err);
        if (st != KS_OK)
            return st;
    }
    return ks_gcl_graph_builder_add(b, inst, err);
}

/* Launch-level features: what a graph of bounded size cannot see (the
 * backprop-h100 trap in docs/methods.md: same warps, different grids). */
static void graph_launch_features(ks_gcl_graph *g, uint64_t header_warp_insts, size_t warps)
{
    double blocks = 1, threads = 1;
    for (int i = 0; i < 3; i++) {
        blocks *= g->grid[i] ? g->grid[i] : 1;
        threads *= g->block[i] ? g->block[i] : 1;
    }
    double total = (double)header_warp_insts;
    g->warp_insts_estimated = header_warp_insts == 0;
    if (g->warp_insts_estimated)
        total = warps ? (double)g->traced_insts / (double)warps * blocks * ceil(threads / 32)
                      : 0;
    g->log2_blocks = log2(blocks);
    g->log2_warp_insts = log2(1.0 + total);
}

static uint64_t graph_hash(const ks_gcl_graph *g)
{
    XXH3_state_t *s = XXH3_createState();
    if (!s)
        return 0;
    XXH3_64bits_reset(s);
    XXH3_64bits_update(s, &g->n_nodes, sizeof g->n_nodes);
    XXH3_64bits_update(s, g->kind, g->n_nodes);
    XXH3_64bits_update(s, g->tok, (size_t)g->n_nodes * 2 * sizeof *g->tok);
    XXH3_64bits_update(s, g->feat, (size_t)g->n_nodes * GCL_FEATS * sizeof *g->feat);
    XXH3_64bits_update(s, g->warp_of, (size_t)g->n_nodes * sizeof *g->warp_of);
    XXH3_64bits_update(s, g->edge_src, (size_t)g->n_edges * sizeof *g->edge_src);
    XXH3_64bits_update(s, g->edge_dst, (size_t)g->n_edges * sizeof *g->edge_dst);
    XXH3_64bits_update(s, g->edge_rel, g->n_edges);
    for (size_t i = 0; i < g->n_ops; i++)
        XXH3_64bits_update(s, g->ops[i], strlen(g->ops[i]) + 1);
    uint64_t h = XXH3_64bits_digest(s);
    XXH3_freeState(s);
    return h;
}

ks_status ks_gcl_graph_builder_finish(ks_gcl_graph_builder *b, ks_gcl_graph **out,
                                      ks_error *err)
{
    *out = NULL;
    if (!b->begun)
        return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "graph builder: finish before begin");
    ks_gcl_graph *g = b->g;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (g->kind[i] == GCL_NODE_INSTRUCTION)
            g->feat[(size_t)i * GCL_FEATS + GCL_F_PC] =
                b->max_pc ? (float)((double)b->pc[i] / (double)b->max_pc) : 0.0f;
    g->n_warps = (uint32_t)b->n_warps;
    size_t traced_warps = 0;
    for (size_t i = 0; i < b->n_warps; i++)
        traced_warps += b->warps[i].insts > 0;
    graph_launch_features(g, b->warp_insts_header, traced_warps);
    g->hash = graph_hash(g);
    b->g = NULL;
    builder_reset(b);
    *out = g;
    return KS_OK;
}
