/*
 * bench_gcl.c - GCL-Sampler training speed: seconds per epoch and peak
 * memory against the number of graphs and their size, on synthetic launches
 * of a strided-reduction kernel (tests/gcl_streams.h): the trip count sets
 * the graph size, a per-launch stride makes every graph distinct.  --export
 * writes the graphs and options for bench/gcl_torch.py, the same model in
 * PyTorch, so the two can be compared on identical inputs
 * (bench/gcl_compare.sh).
 *
 * usage: bench_gcl [--graphs N] [--trip T] [--warps W] [--insts I] [--epochs E]
 *                  [--batch B] [--threads T] [--export FILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <cblas.h>

#include "../tests/gcl_streams.h"
#include "ksample.h"

typedef struct epoch_log {
    double seconds[256];
    double cpu[256]; /* process CPU seconds: the machine is shared, wall time is noisy */
    double loss[256];
    unsigned n;
} epoch_log;

static void on_epoch(void *ctx, unsigned epoch, double loss, double seconds)
{
    epoch_log *l = ctx;
    if (epoch <= 256) {
        struct timespec t;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        l->cpu[epoch - 1] = (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
        l->seconds[epoch - 1] = seconds;
        l->loss[epoch - 1] = loss;
        l->n = epoch;
    }
    fprintf(stderr, "epoch %u loss %.4f %.2f s\n", epoch, loss, seconds);
}

static void put_u32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }
static void put_f64(FILE *f, double v) { fwrite(&v, 8, 1, f); }

/* Little-endian hosts only (the benchmark machines); see gcl_torch.py. */
static int export_graphs(const char *path, const ks_gcl_model *m, ks_gcl_graph **g, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    const ks_gcl_options *o = ks_gcl_model_options(m);
    fwrite("KSGCLGR1", 1, 8, f);
    put_u32(f, (uint32_t)n);
    put_u32(f, m->dims.tokens);
    put_u32(f, GCL_FEATS);
    put_u32(f, (uint32_t)o->inverse_edges);
    uint32_t dims[] = {o->input_dim, o->hidden[0], o->hidden[1], o->hidden[2],
                       o->proj[0],   o->proj[1],   o->bases,     o->batch, o->epochs};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        put_u32(f, dims[i]);
    double reals[] = {o->dropout, o->node_drop, o->edge_drop, o->feature_noise, o->temperature,
                      o->learning_rate};
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++)
        put_f64(f, reals[i]);
    for (size_t k = 0; k < n; k++) {
        uint32_t *map;
        ks_error err;
        if (gcl_token_map(m, g[k], &map, &err) != KS_OK)
            return -1;
        put_u32(f, g[k]->n_nodes);
        put_u32(f, g[k]->n_edges);
        put_u32(f, g[k]->n_warps);
        for (size_t i = 0; i < 2 * (size_t)g[k]->n_nodes; i++) {
            uint32_t t = g[k]->tok[i];
            put_u32(f, t < GCL_TOK_SPECIAL ? t : map[t - GCL_TOK_SPECIAL]);
        }
        fwrite(g[k]->feat, sizeof(float), (size_t)g[k]->n_nodes * GCL_FEATS, f);
        fwrite(g[k]->warp_of, 4, g[k]->n_nodes, f);
        fwrite(g[k]->edge_src, 4, g[k]->n_edges, f);
        fwrite(g[k]->edge_dst, 4, g[k]->n_edges, f);
        for (uint32_t e = 0; e < g[k]->n_edges; e++)
            put_u32(f, g[k]->edge_rel[e]);
        free(map);
    }
    return fclose(f);
}

int main(int argc, char **argv)
{
    size_t n = 32;
    int trip = 40, threads = 0;
    uint32_t warps = 4;
    const char *export_path = NULL;
    ks_gcl_options o;
    ks_gcl_options_init(&o);
    o.epochs = 4;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--graphs"))
            n = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--trip"))
            trip = atoi(v);
        else if (!strcmp(a, "--warps"))
            warps = (uint32_t)atoi(v);
        else if (!strcmp(a, "--insts"))
            o.max_insts_per_warp = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--epochs"))
            o.epochs = (uint32_t)atoi(v);
        else if (!strcmp(a, "--batch"))
            o.batch = (uint32_t)atoi(v);
        else if (!strcmp(a, "--threads"))
            threads = atoi(v);
        else if (!strcmp(a, "--export"))
            export_path = v;
        else {
            fprintf(stderr, "bench_gcl: unknown option %s\n", a);
            return 2;
        }
    }
#ifdef OPENBLAS_VERSION
    if (threads > 0)
        openblas_set_num_threads(threads);
#endif
    o.max_warps = warps;
    ks_gcl_graph **g = calloc(n, sizeof *g);
    ks_gcl_graph_builder *b;
    ks_error err;
    ks_gcl_graph_builder_new(&o, &b, &err);
    size_t nodes = 0, edges = 0;
    for (size_t i = 0; i < n; i++) {
        /* one trip count (one size), a stride per launch (distinct graphs) */
        if (gs_launch_variant(b, i, 1, 64, 32 * warps, trip, 0x7f0000000000ull, 1,
                              (uint32_t)i + 1, &g[i], &err)) {
            fprintf(stderr, "bench_gcl: %s\n", err.message);
            return 1;
        }
        nodes += g[i]->n_nodes;
        edges += g[i]->n_edges;
    }
    ks_gcl_graph_builder_free(b);
    epoch_log log = {{0}, {0}, {0}, 0};
    ks_gcl_model *m;
    if (ks_gcl_train(g, n, &o, on_epoch, &log, &m, &err) != KS_OK) {
        fprintf(stderr, "bench_gcl: %s\n", err.message);
        return 1;
    }
    /* the first epoch pays for allocation and page faults: report the rest */
    double per_epoch = log.n > 1 ? (log.seconds[log.n - 1] - log.seconds[0]) / (log.n - 1)
                                 : log.seconds[0];
    double cpu_epoch = log.n > 1 ? (log.cpu[log.n - 1] - log.cpu[0]) / (log.n - 1) : log.cpu[0];
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("ksample graphs %zu nodes/graph %.0f edges/graph %.0f batch %u threads %d: "
           "%.3f s/epoch (CPU %.3f s), peak RSS %.1f MB, loss %.4f -> %.4f\n",
           n, (double)nodes / (double)n, (double)edges / (double)n, o.batch, threads, per_epoch,
           cpu_epoch,
           (double)ru.ru_maxrss / 1024.0, log.loss[0], log.loss[log.n ? log.n - 1 : 0]);
    if (export_path && export_graphs(export_path, m, g, n) != 0) {
        fprintf(stderr, "bench_gcl: cannot write %s\n", export_path);
        return 3;
    }
    ks_gcl_model_free(m);
    for (size_t i = 0; i < n; i++)
        ks_gcl_graph_free(g[i]);
    free(g);
    return 0;
}
