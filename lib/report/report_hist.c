/*
 * report_hist.c - per-kernel duration histograms (the STEM paper's Figures
 * 1 and 6): the kernels with the most total time, their durations binned on
 * a log axis when they span two decades or more, the plan's clusters as
 * shaded duration ranges and its sampled invocations as dots.
 */
#include "report_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HIST_W 640
#define HIST_H 290
#define HIST_BINS 48
#define MAX_SAMPLE_TITLES 400 /* hover text per dot only while the page stays small */

/* The k groups with the most total time, most first. */
static ks_status top_groups(const ks_profile *p, const ks_groups *gr, size_t k, uint32_t *out,
                            size_t *count, double *totals, ks_error *err)
{
    for (size_t i = 0; i < p->n; i++)
        totals[gr->group_of[i]] += (double)p->duration_ns[i];
    unsigned char *taken = calloc(gr->count ? gr->count : 1, 1);
    if (!taken)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    *count = 0;
    for (size_t r = 0; r < k && r < gr->count; r++) {
        size_t best = gr->count;
        for (size_t g = 0; g < gr->count; g++)
            if (!taken[g] && (best == gr->count || totals[g] > totals[best]))
                best = g;
        taken[best] = 1;
        out[(*count)++] = (uint32_t)best;
    }
    free(taken);
    return KS_OK;
}

typedef struct hist_view {
    ks_svg_axis x, y;
    double lo_ns, hi_ns;
    uint64_t counts[HIST_BINS];
    uint64_t peak;
    char xlabel[64];
} hist_view;

static size_t bin_of(const hist_view *h, double v)
{
    double t = (ks_svg_map(&h->x, v) - h->x.from) / (h->x.to - h->x.from);
    long b = (long)(t * HIST_BINS);
    return b < 0 ? 0 : b >= HIST_BINS ? HIST_BINS - 1 : (size_t)b;
}

static void build_view(hist_view *h, const ks_profile *p, const ks_groups *gr, uint32_t g)
{
    memset(h, 0, sizeof *h);
    h->lo_ns = INFINITY;
    h->hi_ns = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (gr->group_of[i] != g)
            continue;
        double d = (double)p->duration_ns[i];
        h->lo_ns = d < h->lo_ns ? d : h->lo_ns;
        h->hi_ns = d > h->hi_ns ? d : h->hi_ns;
    }
    const char *unit_name;
    h->x.unit = ks_duration_unit(h->hi_ns, &unit_name);
    h->x.log = h->lo_ns > 0 && h->hi_ns / h->lo_ns >= 100;
    h->x.lo = h->lo_ns;
    h->x.hi = h->hi_ns;
    h->x.from = 66;
    h->x.to = HIST_W - 14;
    ks_svg_axis_nice(&h->x);
    snprintf(h->xlabel, sizeof h->xlabel, "kernel duration (%s%s)", unit_name,
             h->x.log ? ", log scale" : "");
    h->x.label = h->xlabel;
    for (size_t i = 0; i < p->n; i++)
        if (gr->group_of[i] == g)
            h->counts[bin_of(h, (double)p->duration_ns[i])]++;
    for (int b = 0; b < HIST_BINS; b++)
        h->peak = h->counts[b] > h->peak ? h->counts[b] : h->peak;
    h->y.lo = 0;
    h->y.hi = (double)h->peak;
    h->y.unit = 1;
    h->y.from = HIST_H - 46;
    h->y.to = 48;
    h->y.label = "invocations";
    ks_svg_axis_nice(&h->y);
}

static void draw_bars(FILE *f, const hist_view *h)
{
    double w = (h->x.to - h->x.from) / HIST_BINS;
    for (int b = 0; b < HIST_BINS; b++) {
        if (!h->counts[b])
            continue;
        double top = ks_svg_map(&h->y, (double)h->counts[b]);
        fprintf(f,
                "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                "<title>%llu invocations</title></rect>\n",
                h->x.from + b * w + 0.5, top, w - 1 > 0.5 ? w - 1 : 0.5,
                h->y.from - top > 1 ? h->y.from - top : 1, (unsigned long long)h->counts[b]);
    }
}

/* Whether cluster cl holds launches of the kernel labelled label: its
 * group's, or (pooled strata) any of its pool's. */
static bool cluster_of_kernel(const ks_plan *plan, const ks_cluster *cl, const char *label)
{
    if (cl->group >= plan->group_count)
        return false;
    if (strcmp(plan->group_labels[cl->group], label) == 0)
        return true;
    for (size_t k = 0; plan->pool_rep && k < plan->group_count; k++)
        if (plan->pool_rep[k] == cl->group && strcmp(plan->group_labels[k], label) == 0)
            return true;
    return false;
}

/* Cluster ranges [min, max] as alternating bands with edges. */
static size_t draw_clusters(FILE *f, const hist_view *h, const ks_plan *plan, const char *label)
{
    size_t drawn = 0;
    for (size_t c = 0; c < plan->cluster_count; c++) {
        const ks_cluster *cl = &plan->clusters[c];
        if (!cluster_of_kernel(plan, cl, label))
            continue;
        double x0 = ks_svg_map(&h->x, (double)cl->min_ns);
        double x1 = ks_svg_map(&h->x, (double)cl->max_ns);
        if (x1 - x0 < 2)
            x0 -= 1, x1 += 1;
        fprintf(f,
                "<rect class=\"band%zu\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                "<title>cluster %s: %llu invocations, %llu sampled</title></rect>"
                "<line class=\"edge\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<line class=\"edge\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                drawn % 2, x0, h->y.to, x1 - x0, h->y.from - h->y.to, cl->path ? cl->path : "",
                (unsigned long long)cl->size, (unsigned long long)cl->m, x0, h->y.to, x0,
                h->y.from, x1, h->y.to, x1, h->y.from);
        drawn++;
    }
    return drawn;
}

static size_t draw_samples(FILE *f, const hist_view *h, const ks_profile *p, const ks_groups *gr,
                           uint32_t g, const ks_plan *plan)
{
    size_t drawn = 0;
    for (size_t s = 0; s < plan->sample_count; s++) {
        uint64_t id = plan->samples[s].id;
        if (id >= p->n || gr->group_of[id] != g)
            continue;
        double x = ks_svg_map(&h->x, (double)p->duration_ns[id]);
        fprintf(f, "<circle class=\"sample\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\">", x,
                h->y.from - 7);
        if (drawn < MAX_SAMPLE_TITLES)
            fprintf(f, "<title>invocation %llu, weight %.4g</title>", (unsigned long long)id,
                    plan->samples[s].weight);
        fprintf(f, "</circle>\n");
        drawn++;
    }
    return drawn;
}

static void draw_legend(FILE *f, bool with_plan)
{
    double x = HIST_W - 14;
    fprintf(f, "<g class=\"legend\" transform=\"translate(%.0f 34)\">", x);
    if (with_plan)
        fprintf(f,
                "<circle class=\"sample\" cx=\"-118\" cy=\"-4\" r=\"3\"/>"
                "<text x=\"-110\" y=\"0\">sampled</text>"
                "<rect class=\"band0\" x=\"-62\" y=\"-9\" width=\"10\" height=\"10\"/>"
                "<text x=\"-48\" y=\"0\">cluster</text>");
    fprintf(f, "</g>\n");
}

static void draw_one(FILE *f, size_t index, const ks_report_input *in, const ks_groups *gr,
                     uint32_t g, double group_ns, double total_ns)
{
    hist_view h;
    build_view(&h, in->profile, gr, g);
    bool with_plan = in->plan && ks_report_plan_fits(in);
    char id[32], sub[200];
    snprintf(id, sizeof id, "hist-%zu", index);
    size_t members = gr->size[g];
    char lo[32], hi[32];
    ks_format_duration(h.lo_ns, lo, sizeof lo);
    ks_format_duration(h.hi_ns, hi, sizeof hi);
    snprintf(sub, sizeof sub, "%zu invocations, %.1f%% of GPU time, %s to %s", members,
             total_ns > 0 ? 100 * group_ns / total_ns : 0, lo, hi);
    ks_svg_open(f, id, HIST_W, HIST_H, gr->labels[g], sub);
    if (with_plan)
        draw_clusters(f, &h, in->plan, gr->labels[g]);
    ks_svg_frame(f, &h.x, &h.y);
    draw_bars(f, &h);
    if (with_plan)
        draw_samples(f, &h, in->profile, gr, g, in->plan);
    draw_legend(f, with_plan);
    ks_svg_close(f);
}

ks_status ks_report_histograms(FILE *f, const ks_report_input *in, ks_error *err)
{
    const ks_profile *p = in->profile;
    ks_key key = in->plan ? in->plan->params.key : KS_KEY_NAME;
    ks_groups gr;
    /* the plan's groups: name+shape's at the plan's shape share */
    ks_status st = ks_groups_build_shapes(
        p, key, in->plan ? ks_params_shape_share(&in->plan->params) : 0, &gr, err);
    if (st != KS_OK)
        return st;
    size_t k = in->top_kernels ? in->top_kernels : 6;
    uint32_t *top = calloc(k, sizeof *top);
    double *totals = calloc(gr.count ? gr.count : 1, sizeof *totals);
    size_t count = 0;
    if (!top || !totals)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st == KS_OK)
        st = top_groups(p, &gr, k, top, &count, totals, err);
    if (st == KS_OK) {
        double total = ks_profile_total_ns(p);
        fprintf(f, "<p class=\"note\">The %zu kernels (key <code>%s</code>) with the most GPU "
                   "time, of %zu.%s</p>\n<div class=\"grid\">\n",
                count, ks_key_to_string(key), gr.count,
                in->plan && ks_report_plan_fits(in)
                    ? " Shaded bands: the plan's clusters (duration range of their members); "
                      "dots: the invocations it samples."
                    : "");
        for (size_t r = 0; r < count; r++)
            draw_one(f, r, in, &gr, top[r], totals[top[r]], total);
        fprintf(f, "</div>\n");
    }
    free(top);
    free(totals);
    ks_groups_free(&gr);
    return st;
}
