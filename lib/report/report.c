/*
 * report.c - the HTML report: one self-contained page (inline CSS and SVG,
 * no script, no fonts or anything else from the network) built from
 * in-memory inputs, so that any caller (the report command, a future
 * `--plan` reader) only fills a ks_report_input.
 */
#include "report_internal.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char CSS[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "color:#222;background:#fafafa;margin:0}\n"
    "main{max-width:1320px;margin:0 auto;padding:16px 20px 40px}\n"
    "h1{font-size:22px;margin:8px 0 4px}h2{font-size:17px;margin:28px 0 8px;"
    "border-bottom:1px solid #ddd;padding-bottom:4px}\n"
    ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:14px}\n"
    ".chart{width:100%;height:auto;background:#fff;border:1px solid #e2e2e2;border-radius:4px}\n"
    ".chart text{font-family:inherit}.title{font-size:13px;font-weight:600}\n"
    ".subtitle,.tick{font-size:11px;fill:#555}.axis{font-size:12px;fill:#222}\n"
    ".label{font-size:12px;font-weight:600}.legend text{font-size:11px;fill:#444}\n"
    ".grid line{stroke:#ccc}line.grid{stroke:#eee}.frame{fill:none;stroke:#999}\n"
    ".bar{fill:#56B4E9;stroke:#2a7fb0;stroke-width:.5}\n"
    ".band0{fill:#E69F00;opacity:.16}.band1{fill:#CC79A7;opacity:.16}\n"
    ".edge{stroke:#b07800;stroke-width:.7;stroke-dasharray:3 2}\n"
    ".sample{fill:#D55E00;opacity:.75;stroke:#fff;stroke-width:.6}\n"
    ".bound{stroke:#777;stroke-dasharray:5 4;stroke-width:1.2}\n"
    ".trace{fill:none;stroke-width:1.5;opacity:.8}\n"
    "table{border-collapse:collapse;background:#fff;font-variant-numeric:tabular-nums}\n"
    "th,td{border:1px solid #ddd;padding:4px 10px;text-align:right}"
    "th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}\n"
    "dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}"
    "dt{color:#555}dd{margin:0;overflow-wrap:anywhere}\n"
    ".note{color:#555;max-width:980px}.warn{color:#a33;font-weight:600}\n"
    "code{font-size:13px}\n";

bool ks_report_plan_fits(const ks_report_input *in)
{
    return in->plan && in->plan->population == in->profile->n;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* u with a comma between every three digits (1,345,307); returns buf
 * (32 bytes suffice) */
static const char *grouped(char *buf, size_t size, unsigned long long u)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%llu", u);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

static void dt(FILE *f, const char *term, const char *value)
{
    fprintf(f, "<dt>%s</dt><dd>", term);
    ks_html_escape(f, value);
    fprintf(f, "</dd>\n");
}

static void profile_summary(FILE *f, const ks_profile *p)
{
    char buf[256], dur[32];
    fprintf(f, "<dl>\n");
    dt(f, "profile", p->source_path[0] ? p->source_path : "(in memory)");
    dt(f, "format", p->source_format);
    if (p->device_name[0])
        dt(f, "device", p->device_name);
    char g1[32], g2[32];
    snprintf(buf, sizeof buf, "%s invocations of %s kernel names", grouped(g1, sizeof g1, p->n),
             grouped(g2, sizeof g2, p->name_count));
    dt(f, "invocations", buf);
    ks_format_duration(ks_profile_total_ns(p), dur, sizeof dur);
    dt(f, "GPU time", dur);
    if (p->source_xxh128[0])
        dt(f, "XXH3-128", p->source_xxh128);
    if (p->selection[0]) {
        snprintf(buf, sizeof buf, "%.80s (%zu of the file's %llu launches)", p->selection, p->n,
                 (unsigned long long)p->launch_total);
        dt(f, "selection", buf);
    }
    ks_error err;
    ks_comm_summary comm;
    if (ks_comm_summarise(p, NULL, 0, &comm, &err) == KS_OK) {
        if (comm.launches) {
            snprintf(buf, sizeof buf, "%llu launches of %zu kernels, %.1f %% of the GPU time",
                     (unsigned long long)comm.launches, comm.name_count,
                     comm.total_ns > 0 ? 100 * comm.time_ns / comm.total_ns : 0);
            dt(f, "communication kernels", buf);
        }
        ks_comm_summary_free(&comm);
    }
    /* names launched with several (grid, block) shapes, or clear modes */
    ks_split_name *split;
    size_t count;
    if (ks_split_names(p, &split, &count, &err) == KS_OK) {
        if (count) {
            size_t launches = 0;
            for (size_t k = 0; k < count; k++)
                launches += split[k].launches;
            fprintf(f, "<dt>launch shapes</dt><dd>%zu kernel names (%zu launches) have several "
                       "%s; key name+shape gives each its own strata:",
                    count, launches,
                    ks_profile_has_dims(p) ? "(grid, block) shapes" : "clear duration modes");
            for (size_t k = 0; k < count && k < 8; k++) {
                fprintf(f, "%s", k ? "; " : " ");
                ks_html_escape(f, split[k].label);
                fprintf(f, " (%zu, %zu launches)", split[k].parts, split[k].launches);
            }
            fprintf(f, "%s</dd>\n", count > 8 ? "; ..." : "");
        }
        ks_split_names_free(split, count);
    }
    fprintf(f, "</dl>\n");
}

static void plan_summary(FILE *f, const ks_report_input *in)
{
    const ks_plan *pl = in->plan;
    char buf[512];
    fprintf(f, "<h2>Plan</h2>\n<dl>\n");
    snprintf(buf, sizeof buf, "%s, key %s, seed %llu", pl->method,
             ks_key_to_string(pl->params.key), (unsigned long long)pl->params.seed);
    dt(f, "method", buf);
    if (pl->bound > 0)
        snprintf(buf, sizeof buf, "%.3g%% at %.3g%% confidence (%s)", 100 * pl->bound,
                 100 * pl->params.confidence, pl->bound_scope);
    else
        snprintf(buf, sizeof buf, "none");
    dt(f, "error bound", buf);
    char g1[32], g2[32], g3[32], g4[32];
    snprintf(buf, sizeof buf, "%s distinct invocations (%s draws) of %s, in %s cluster%s",
             grouped(g1, sizeof g1, pl->sample_count), grouped(g2, sizeof g2, pl->draws),
             grouped(g3, sizeof g3, pl->population), grouped(g4, sizeof g4, pl->cluster_count),
             pl->cluster_count == 1 ? "" : "s");
    dt(f, "samples", buf);
    if (isfinite(pl->predicted_speedup) || pl->total_ns > 0)
        snprintf(buf, sizeof buf, "%.4gx", pl->predicted_speedup);
    else
        snprintf(buf, sizeof buf, "unknown (the profile has no durations)");
    dt(f, "predicted speedup", buf);
    if (isfinite(pl->predicted_speedup) && pl->predicted_speedup > 0 && pl->total_ns > 0) {
        snprintf(buf, sizeof buf, "%.3g%% of the profiled time (%.4g ms of %.4g ms)%s",
                 100 / pl->predicted_speedup, pl->total_ns / pl->predicted_speedup / 1e6,
                 pl->total_ns / 1e6,
                 pl->predicted_speedup < 2
                     ? ": simulating every launch costs at most twice as much"
                     : "");
        dt(f, "predicted cost", buf);
    }
    /* what `sample` says of the interval the plan predicts */
    if (pl->predicted && isfinite(pl->predicted_halfwidth)) {
        snprintf(buf, sizeof buf,
                 "&#177;%.3g%% if the simulated values follow the profile%s",
                 100 * pl->predicted_halfwidth,
                 pl->bound > 0 && pl->predicted_halfwidth > pl->bound
                     ? ": above the bound; refine sizes the plan for it from the simulated "
                       "values"
                     : "");
        fprintf(f, "<dt>predicted interval</dt><dd>%s</dd>\n", buf);
    } else
        dt(f, "predicted interval", pl->bound > 0 ? "not predicted"
                                                   : "none (the plan promises no bound)");
    if (pl->selection[0]) {
        snprintf(buf, sizeof buf, "%.120s (%llu of %llu launches; ids are the program's)",
                 pl->selection, (unsigned long long)pl->selected,
                 (unsigned long long)pl->input_invocations);
        dt(f, "drawn on", buf);
    }
    if (pl->unsim_what[0]) {
        char ov[96] = "overlap with other streams unknown";
        if (isfinite(pl->unsim_overlap_ns))
            snprintf(ov, sizeof ov, "%.1f %% of it beside kernels on other streams",
                     pl->unsim_ns > 0 ? 100 * pl->unsim_overlap_ns / pl->unsim_ns : 0);
        snprintf(buf, sizeof buf, "%s: %llu launches, %.6g ms measured (%.1f %% of the kernel "
                                  "time), in no simulated total; %s",
                 pl->unsim_what, (unsigned long long)pl->unsim_launches, pl->unsim_ns / 1e6,
                 100 * pl->unsim_share, ov);
        dt(f, "known, unsimulated", buf);
    }
    fprintf(f, "</dl>\n");
    if (!ks_report_plan_fits(in))
        fprintf(f, "<p class=\"warn\">This plan covers %llu invocations but the profile has "
                   "%zu: it was made from another profile, so it is not drawn.</p>\n",
                (unsigned long long)pl->population, in->profile->n);
}

static void cell(FILE *f, double v, const char *fmt)
{
    if (isfinite(v))
        fprintf(f, fmt, v);
    else
        fprintf(f, "<td>&#8211;</td>");
}

static void method_table(FILE *f, const ks_report_input *in)
{
    fprintf(f, "<table>\n<tr><th>method</th><th>iterations</th><th>samples (mean)</th>"
               "<th>speedup (harmonic mean)</th><th>error mean %%</th><th>error max %%</th>"
               "<th>bound %%</th><th>over bound</th></tr>\n");
    for (size_t i = 0; i < in->method_count; i++) {
        const ks_eval_result *r = &in->methods[i];
        fprintf(f, "<tr><td style=\"color:%s;font-weight:600\">", ks_svg_colour(i));
        ks_html_escape(f, r->method);
        fprintf(f, "</td><td>%u</td>", r->iters);
        cell(f, r->samples_mean, "<td>%.1f</td>");
        cell(f, r->speedup_hmean, "<td>%.2fx</td>");
        cell(f, r->error_mean_pct, "<td>%.4f</td>");
        cell(f, r->error_max_pct, "<td>%.4f</td>");
        if (r->bound_pct > 0)
            fprintf(f, "<td>%.3g</td>", r->bound_pct);
        else
            fprintf(f, "<td>none</td>");
        /* planning time is left out: the page must be the same bytes for
         * the same inputs, and `ksample eval` reports it */
        fprintf(f, "<td>%.1f%%</td>", 100 * r->exceed_fraction);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

/* a count as an integer with thousands separators (1,345,307), a rate with
 * 6 significant digits, as `ksample estimate` prints them */
static void number_cell(FILE *f, const ks_estimate_row *r, double v)
{
    double a = round(fabs(v));
    if (!r->count || !isfinite(v) || a >= 9.2e18) {
        cell(f, v, "<td>%.6g</td>");
        return;
    }
    char out[48];
    snprintf(out, sizeof out, "%s", v < 0 && a > 0 ? "-" : "");
    grouped(out + strlen(out), sizeof out - strlen(out), (unsigned long long)a);
    fprintf(f, "<td>%s</td>", out);
}

/* What the simulation cost, as `ksample estimate` says it (its "cost"). */
static void estimate_cost(FILE *f, const ks_report_input *in)
{
    const ks_estimate_row *r = NULL;
    for (size_t i = 0; i < in->estimate_count && !r; i++)
        if (in->estimates[i].cost_metric[0] && in->estimates[i].cost_share > 0)
            r = &in->estimates[i];
    if (!r)
        return;
    fprintf(f, "<dt>cost</dt><dd>the simulated launches' ");
    ks_html_escape(f, r->cost_metric);
    fprintf(f, " add up to %.3g%% of its estimated total (%.3gx cheaper than simulating every "
               "launch",
            100 * r->cost_share, 1 / r->cost_share);
    if (isfinite(r->cost_predicted_speedup))
        fprintf(f, "; the profile predicted %.3gx", r->cost_predicted_speedup);
    fprintf(f, ")");
    if (isfinite(r->cost_share_warmup) && r->cost_share_warmup > 0)
        fprintf(f, "; with the warm-up kernels %.3g%% (%.3gx cheaper), %.3gx the launches' own "
                   "cycles",
                100 * r->cost_share_warmup, 1 / r->cost_share_warmup, r->cost_warmup_factor);
    double dear = isfinite(r->cost_share_warmup) ? r->cost_share_warmup : r->cost_share;
    fprintf(f, "%s</dd>\n",
            dear > 0.5 ? ": simulating every launch costs at most twice as much" : "");
}

/* What the intervals stand for and how the values were simulated, once
 * per distinct statement, as `ksample estimate` says it. */
static void estimate_claims(FILE *f, const ks_report_input *in)
{
    const char *warmup = NULL;
    bool mixed = false;
    for (size_t i = 0; i < in->estimate_count; i++) {
        const char *w = in->estimates[i].warmup;
        if (!w[0])
            continue;
        if (!warmup)
            warmup = w;
        else if (strcmp(warmup, w) != 0)
            mixed = true;
    }
    fprintf(f, "<dl>\n");
    dt(f, "warm-up", !warmup ? "not recorded in the estimate file"
                     : mixed ? "mixed (the values came from runs of different warm-up modes)"
                     : strcmp(warmup, "none") == 0
                         ? "none (each launch simulated from cold caches)"
                         : warmup);
    bool full = false;
    for (size_t i = 0; i < in->estimate_count; i++) {
        const ks_estimate_row *r = &in->estimates[i];
        if (r->exact) /* no interval */
            continue;
        if (strcmp(r->interval, "full run") == 0) {
            full = true;
            continue;
        }
        if (!r->interval[0])
            continue;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(in->estimates[k].interval, r->interval) == 0 &&
                   strcmp(in->estimates[k].interval_note, r->interval_note) == 0;
        if (seen)
            continue;
        bool none = strcmp(r->interval, "none") == 0;
        fprintf(f, "<dt>%s</dt><dd>%s", none ? "no interval" : "interval",
                none ? "" : "of the values only: ");
        ks_html_escape(f, r->interval_note);
        fprintf(f, "</dd>\n");
    }
    if (full)
        dt(f, "interval", "of the full run's total (the values were simulated in context)");
    /* where the first row's variance is, as estimate says it */
    for (size_t i = 0; i < in->estimate_count; i++) {
        const ks_estimate_row *r = &in->estimates[i];
        if (!r->variance_by[0] || !isfinite(r->borrowed_share) || !isfinite(r->ci_low))
            continue;
        fprintf(f, "<dt>variance of ");
        ks_html_escape(f, r->metric);
        fprintf(f, "</dt><dd>");
        ks_html_escape(f, r->variance_by);
        fprintf(f, "; %.0f%% of it in kernels with no stratum of two or more simulated "
                   "launches, whose spread is borrowed from other strata</dd>\n",
                100 * r->borrowed_share);
        break;
    }
    estimate_cost(f, in);
    fprintf(f, "</dl>\n");
}

static void estimate_table(FILE *f, const ks_report_input *in)
{
    fprintf(f, "<table>\n<tr><th>metric</th><th>estimate</th><th>interval low</th>"
               "<th>interval high</th><th>relative half-width</th><th>bound met</th></tr>\n");
    for (size_t i = 0; i < in->estimate_count; i++) {
        const ks_estimate_row *r = &in->estimates[i];
        fprintf(f, "<tr><td>");
        ks_html_escape(f, r->metric);
        fprintf(f, "</td>");
        number_cell(f, r, r->estimate);
        if (r->exact) { /* a total the traces give: no interval */
            fprintf(f, "<td>&#8211;</td><td>&#8211;</td><td>exact, from the traces</td>"
                       "<td>%s</td></tr>\n",
                    r->bound_met == 1 ? "yes" : "&#8211;");
            continue;
        }
        number_cell(f, r, r->ci_low);
        number_cell(f, r, r->ci_high);
        cell(f, 100 * r->rel_halfwidth, "<td>&#177;%.3g%%</td>");
        fprintf(f, "<td>%s</td></tr>\n",
                r->bound_met == 1 ? "yes" : r->bound_met == 0 ? "no" : "&#8211;");
    }
    fprintf(f, "</table>\n");
}

static void methods_section(FILE *f, const ks_report_input *in)
{
    if (in->method_count == 0 && in->sweep_count == 0)
        return;
    fprintf(f, "<h2>Methods compared</h2>\n<p class=\"note\">Each method planned repeatedly "
               "with successive seeds; error is that of the plan's estimate of the profile's "
               "total GPU time, speedup the total time over the time of the sampled "
               "invocations.</p>\n");
    if (in->method_count)
        method_table(f, in);
    fprintf(f, "<div class=\"grid\" style=\"margin-top:14px\">\n");
    ks_report_speedup_error(f, in);
    if (in->sweep_count)
        ks_report_sweep(f, in);
    fprintf(f, "</div>\n");
}

static void estimate_section(FILE *f, const ks_report_input *in)
{
    if (in->estimate_count == 0)
        return;
    fprintf(f, "<h2>Estimates</h2>\n");
    estimate_table(f, in);
    estimate_claims(f, in);
    fprintf(f, "<div class=\"grid\" style=\"margin-top:14px\">\n");
    ks_report_estimate_chart(f, in);
    fprintf(f, "</div>\n");
}

ks_status ks_report_write_html(const ks_report_input *in, FILE *f, ks_error *err)
{
    if (!in || !in->profile)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "a report needs a profile");
    if (in->profile->n == 0)
        return ks_error_set(err, KS_ERR_FORMAT, in->profile->source_path, 0,
                            "the profile has no kernel invocations to show");
    const char *title = in->title ? in->title : base_name(in->profile->source_path);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
               "<title>ksample report: ");
    ks_html_escape(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n<h1>ksample report: ",
            CSS);
    ks_html_escape(f, title);
    fprintf(f, "</h1>\n<p class=\"note\">ksample %s</p>\n", KS_VERSION);
    if (in->command) {
        fprintf(f, "<p class=\"note\">This page: <code>");
        ks_html_escape(f, in->command);
        fprintf(f, "</code></p>\n");
    }
    profile_summary(f, in->profile);
    if (in->plan)
        plan_summary(f, in);
    fprintf(f, "<h2>Kernel durations</h2>\n");
    ks_status st = ks_report_histograms(f, in, err);
    if (st != KS_OK)
        return st;
    methods_section(f, in);
    if ((st = ks_report_scores(f, in, err)) != KS_OK)
        return st;
    estimate_section(f, in);
    fprintf(f, "</main>\n</body>\n</html>\n");
    if (ferror(f))
        return ks_error_set(err, KS_ERR_IO, NULL, 0, "write failed: %s", strerror(errno));
    return KS_OK;
}
