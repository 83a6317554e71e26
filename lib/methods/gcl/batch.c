/*
 * batch.c - the disjoint union of (possibly augmented) graphs that one
 * encoder pass runs on: model token ids, per-relation in-edge lists (CSR,
 * inverse relations added here when asked) and readout weights.
 */
#include "gcl.h"

#include <stdlib.h>
#include <string.h>

void gcl_batch_free(gcl_batch *b)
{
    KS_FREE(b->tok, b->feat, b->noise, b->graph_of, b->readout);
    for (int r = 0; r < GCL_REL_MAX; r++) {
        free(b->rowptr[r]);
        free(b->col[r]);
    }
    memset(b, 0, sizeof *b);
}

static ks_status batch_reserve_nodes(gcl_batch *b, size_t n, ks_error *err)
{
    if (n <= b->cap_nodes)
        return KS_OK;
    KS_FREE(b->tok, b->feat, b->graph_of, b->readout);
    b->tok = malloc(n * 2 * sizeof *b->tok);
    b->feat = malloc(n * GCL_FEATS * sizeof *b->feat);
    b->graph_of = malloc(n * sizeof *b->graph_of);
    b->readout = malloc(n * sizeof *b->readout);
    int ok = b->tok && b->feat && b->graph_of && b->readout;
    for (int r = 0; r < GCL_REL_MAX && ok; r++) {
        free(b->rowptr[r]);
        b->rowptr[r] = malloc((n + 1) * sizeof *b->rowptr[r]);
        ok = b->rowptr[r] != NULL;
    }
    if (!ok) {
        b->cap_nodes = 0;
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (batch of %zu nodes)", n);
    }
    b->cap_nodes = n;
    return KS_OK;
}

static int part_edge_kept(const gcl_batch_part *p, const uint32_t *map, uint32_t e)
{
    return (!p->edge_keep || p->edge_keep[e]) && map[p->g->edge_src[e]] != UINT32_MAX &&
           map[p->g->edge_dst[e]] != UINT32_MAX;
}

/* Node numbering of part p from `first` on; returns the kept count. */
static size_t part_map(const gcl_batch_part *p, size_t first, uint32_t *map)
{
    size_t k = 0;
    for (uint32_t i = 0; i < p->g->n_nodes; i++)
        map[i] = !p->node_keep || p->node_keep[i] ? (uint32_t)(first + k++) : UINT32_MAX;
    return k;
}

/* Readout: mean over the nodes of each warp, then over the warps that kept
 * any node. */
static ks_status part_readout(gcl_batch *b, const gcl_batch_part *p, const uint32_t *map,
                              uint32_t graph, ks_error *err)
{
    const ks_gcl_graph *g = p->g;
    size_t *count = calloc(g->n_warps ? g->n_warps : 1, sizeof *count);
    if (!count)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (map[i] != UINT32_MAX)
            count[g->warp_of[i]]++;
    size_t warps = 0;
    for (uint32_t w = 0; w < g->n_warps; w++)
        warps += count[w] > 0;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (map[i] != UINT32_MAX) {
            b->graph_of[map[i]] = graph;
            b->readout[map[i]] = (float)(1.0 / ((double)warps * (double)count[g->warp_of[i]]));
        }
    free(count);
    return KS_OK;
}

static ks_status batch_nodes(gcl_batch *b, const gcl_batch_part *p, const uint32_t *map,
                             uint32_t graph, ks_error *err)
{
    const ks_gcl_graph *g = p->g;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        uint32_t at = map[i];
        if (at == UINT32_MAX)
            continue;
        for (int t = 0; t < 2; t++) {
            uint32_t tok = g->tok[2 * i + t];
            b->tok[2 * (size_t)at + t] =
                tok < GCL_TOK_SPECIAL ? tok : p->tokmap[tok - GCL_TOK_SPECIAL];
        }
        memcpy(b->feat + (size_t)at * GCL_FEATS, g->feat + (size_t)i * GCL_FEATS,
               GCL_FEATS * sizeof *b->feat);
    }
    return part_readout(b, p, map, graph, err);
}

/* Relation of edge e as seen from its destination (forward) or its source
 * (inverse); calls fn(ctx, node receiving, node sending, relation). */
static void part_edges(const gcl_batch_part *p, const uint32_t *map, uint32_t rels,
                       void (*fn)(gcl_batch *, uint32_t, uint32_t, uint32_t), gcl_batch *b)
{
    const ks_gcl_graph *g = p->g;
    for (uint32_t e = 0; e < g->n_edges; e++) {
        if (!part_edge_kept(p, map, e))
            continue;
        uint32_t s = map[g->edge_src[e]], d = map[g->edge_dst[e]], r = g->edge_rel[e];
        fn(b, d, s, r);
        if (rels > GCL_REL_FORWARD)
            fn(b, s, d, r + GCL_REL_FORWARD);
    }
}

static void edge_count(gcl_batch *b, uint32_t to, uint32_t from, uint32_t r)
{
    (void)from;
    b->rowptr[r][to + 1]++;
}

static void edge_fill(gcl_batch *b, uint32_t to, uint32_t from, uint32_t r)
{
    /* rowptr[r][to] is used as the fill cursor and restored afterwards */
    b->col[r][b->rowptr[r][to]++] = from;
}

ks_status gcl_batch_build(gcl_batch *b, const gcl_batch_part *parts, size_t n, uint32_t rels,
                          ks_error *err)
{
    size_t nodes = 0, most = 1;
    for (size_t k = 0; k < n; k++) {
        size_t c = 0;
        for (uint32_t i = 0; i < parts[k].g->n_nodes; i++)
            c += !parts[k].node_keep || parts[k].node_keep[i];
        nodes += c;
        if (parts[k].g->n_nodes > most)
            most = parts[k].g->n_nodes;
    }
    ks_status st = batch_reserve_nodes(b, nodes ? nodes : 1, err);
    if (st != KS_OK)
        return st;
    uint32_t *map = malloc(most * sizeof *map);
    if (!map)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    b->n_nodes = nodes;
    b->n_graphs = n;
    b->rels = rels;
    for (uint32_t r = 0; r < rels; r++)
        memset(b->rowptr[r], 0, (nodes + 1) * sizeof *b->rowptr[r]);
    size_t first = 0;
    for (size_t k = 0; k < n && st == KS_OK; k++) {
        size_t kept = part_map(&parts[k], first, map);
        st = batch_nodes(b, &parts[k], map, (uint32_t)k, err);
        part_edges(&parts[k], map, rels, edge_count, b);
        first += kept;
    }
    for (uint32_t r = 0; r < rels && st == KS_OK; r++) {
        for (size_t i = 0; i < nodes; i++)
            b->rowptr[r][i + 1] += b->rowptr[r][i];
        size_t edges = b->rowptr[r][nodes];
        if (edges > b->cap_edges[r]) {
            free(b->col[r]);
            b->col[r] = malloc(edges * sizeof *b->col[r]);
            b->cap_edges[r] = b->col[r] ? edges : 0;
            if (!b->col[r])
                st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (edges)");
        }
    }
    first = 0;
    for (size_t k = 0; k < n && st == KS_OK; k++) {
        size_t kept = part_map(&parts[k], first, map);
        part_edges(&parts[k], map, rels, edge_fill, b);
        first += kept;
    }
    for (uint32_t r = 0; r < rels && st == KS_OK; r++) { /* undo the cursors */
        for (size_t i = nodes; i > 0; i--)
            b->rowptr[r][i] = b->rowptr[r][i - 1];
        b->rowptr[r][0] = 0;
    }
    free(map);
    return st;
}
