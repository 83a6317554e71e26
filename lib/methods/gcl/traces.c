/*
 * traces.c - trace graphs of every launch of an Accel-Sim trace folder: the
 * one place GCL-Sampler meets the trace reader (lib/traces).  Each launch is
 * streamed once through its bounds (ks_gcl_trace_filter) into the builder.
 */
#include "gcl.h"

#include <stdlib.h>

const char *ks_gcl_graph_name(const ks_gcl_graph *g) { return g->name ? g->name : ""; }

void ks_gcl_graphs_free(ks_gcl_graph **graphs, size_t n)
{
    for (size_t i = 0; graphs && i < n; i++)
        ks_gcl_graph_free(graphs[i]);
    free(graphs);
}

ks_status ks_gcl_graphs_read(const char *dir, const ks_gcl_options *o, ks_gcl_graph ***out,
                             size_t *count, ks_error *err)
{
    *out = NULL;
    *count = 0;
    ks_trace_set *s;
    ks_status st = ks_trace_set_open(dir, &s, err);
    if (st != KS_OK)
        return st;
    size_t n = ks_trace_set_kernel_count(s);
    ks_gcl_graph **graphs = calloc(n ? n : 1, sizeof *graphs);
    ks_gcl_graph_builder *b = NULL;
    if (!graphs)
        st = ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    if (st == KS_OK)
        st = ks_gcl_graph_builder_new(o, &b, err);
    ks_trace_filter filter;
    ks_gcl_trace_filter(o, &filter);
    for (size_t i = 0; i < n && st == KS_OK; i++) {
        if ((st = ks_gcl_graph_builder_begin(b, ks_trace_set_kernel(s, i), err)) == KS_OK &&
            (st = ks_trace_set_stream(s, i, &filter, ks_gcl_graph_builder_stream_fn, b, err)) ==
                KS_OK)
            st = ks_gcl_graph_builder_finish(b, &graphs[i], err);
    }
    ks_gcl_graph_builder_free(b);
    ks_trace_set_free(s);
    if (st != KS_OK) {
        ks_gcl_graphs_free(graphs, n);
        return st;
    }
    *out = graphs;
    *count = n;
    return KS_OK;
}
