/*
 * getstats.c - the CSV that Accel-Sim's job launcher writes with
 * util/job_launching/get_stats.py: one section per statistic,
 *
 *   ----------...---------- (100 dashes, then commas)
 *   gpu_tot_sim_cycle\s*=\s*(.*),,        the statistic's regex
 *   APPS,SM7_QV100,SM86_RTX3070           one column per configuration
 *   synth/NO_ARGS--_Z9vec_scalePKfPffi--0,5597.0,5840.0
 *   (a blank line)
 *
 * or, with -R (configs as rows), "CFG,<label>,<label>..." and one row per
 * configuration.  With -k -K a label is "<app>/<args>--<kernel name>--<n>",
 * n counting that kernel's launches from 0, and the labels of an app come
 * in the order the simulator ran its kernels; -k alone gives one label per
 * kernel name (values summed over its launches), and without -k the label is
 * "final_kernel".  "NA" marks a value the log did not have; the script
 * copies whatever its regex captured, so a cell can also be empty or
 * "-nan" (GPGPU-Sim's 0/0).  Statistics get_stats.py accumulates (the
 * collect_aggregate list: gpu_tot_sim_cycle, gpu_tot_sim_insn, ...) are
 * printed per launch as the difference of their running totals, so
 * gpu_tot_sim_cycle of a launch is its gpu_sim_cycle.
 */
#include "simout.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { GS_START, GS_NAME, GS_HEADER, GS_ROWS } gs_state;

struct ks_getstats {
    const char *path;
    ks_getstats_fn fn;
    void *ctx;
    gs_state state;
    char *stat;          /* the section's metric name */
    char *stat_regex;    /* as written */
    long stat_line;
    bool configs_as_rows;
    char **header;       /* header cells after the first */
    int header_count;
    char **fields;
    int field_capacity;
    size_t sections;
};

ks_status ks_getstats_new(const char *path, ks_getstats_fn fn, void *ctx, ks_getstats **out,
                          ks_error *err)
{
    ks_getstats *g = calloc(1, sizeof *g);
    if (!g)
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    g->path = path;
    g->fn = fn;
    g->ctx = ctx;
    *out = g;
    return KS_OK;
}

static void clear_header(ks_getstats *g)
{
    for (int i = 0; i < g->header_count; i++)
        free(g->header[i]);
    free(g->header);
    g->header = NULL;
    g->header_count = 0;
}

void ks_getstats_free(ks_getstats *g)
{
    if (!g)
        return;
    clear_header(g);
    KS_FREE(g->stat, g->stat_regex, g->fields);
    free(g);
}

static bool is_division(const char *line)
{
    size_t n = 0;
    while (line[n] == '-')
        n++;
    if (n < 20)
        return false;
    for (const char *p = line + n; *p; p++)
        if (*p != ',' && *p != ' ' && *p != '\r')
            return false;
    return true;
}

/* The metric name a statistic's regex stands for: its leading name with
 * the regex escapes taken out ("\s+L2_cache_stats_breakdown\[GLOBAL_ACC_R\]
 * \[HIT\]\s*=\s*(.*)" -> "L2_cache_stats_breakdown[GLOBAL_ACC_R][HIT]"),
 * words joined by '_' ("total dram reads" -> "total_dram_reads"); the
 * running totals get_stats.py differences per launch take the name of the
 * per-launch statistic they equal (gpu_tot_sim_cycle -> gpu_sim_cycle). */
void ks_getstats_metric_name(const char *regex, char *out, size_t size)
{
    const char *p = regex;
    while (*p == '\\' && (p[1] == 's' || p[1] == 'S') && (p[2] == '+' || p[2] == '*'))
        p += 3;
    size_t n = 0;
    while (*p && n + 1 < size) {
        if (*p == '\\' && (p[1] == '[' || p[1] == ']' || p[1] == '.' || p[1] == '(' ||
                           p[1] == ')')) {
            out[n++] = p[1];
            p += 2;
            continue;
        }
        if (*p == '\\' && p[1] == 's')
            break;
        if (*p == ' ') {
            if (!(isalnum((unsigned char)p[1]) || p[1] == '_'))
                break;
            out[n++] = '_';
            p++;
            continue;
        }
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '[' || *p == ']' || *p == '.'))
            break;
        out[n++] = *p++;
    }
    out[n] = '\0';
    static const char *const renames[][2] = {{"gpu_tot_sim_cycle", "gpu_sim_cycle"},
                                             {"gpu_tot_sim_insn", "gpu_sim_insn"}};
    for (size_t i = 0; i < sizeof renames / sizeof renames[0]; i++)
        if (strcmp(out, renames[i][0]) == 0)
            snprintf(out, size, "%s", renames[i][1]);
}

/* "<app>/<args>--<kernel>--<n>": app up to the first "--", n after the
 * last one when it is a number; the kernel between. */
static void split_label(char *label, const char **app, const char **kernel, long *instance)
{
    *app = label;
    *kernel = "";
    *instance = -1;
    char *first = strstr(label, "--");
    if (!first)
        return;
    *first = '\0';
    char *rest = first + 2;
    *kernel = rest;
    char *last = NULL;
    for (char *p = strstr(rest, "--"); p; p = strstr(p + 1, "--"))
        last = p;
    if (last && last[2]) {
        char *end;
        errno = 0;
        long n = strtol(last + 2, &end, 10);
        if (!*end && !errno && n >= 0 && isdigit((unsigned char)last[2])) {
            *last = '\0';
            *instance = n;
        }
    }
}

static ks_status cell(ks_getstats *g, const char *config, char *label, const char *text,
                      size_t order, long number, ks_error *err)
{
    ks_getstats_value v;
    memset(&v, 0, sizeof v);
    v.line = number;
    v.stat = g->stat;
    v.stat_regex = g->stat_regex;
    v.config = config;
    v.order = order;
    split_label(label, &v.app, &v.kernel, &v.instance);
    v.text = text;
    const char *t = text;
    while (*t == ' ')
        t++;
    if (!*t || strcmp(t, "NA") == 0 || strcasecmp(t, "nan") == 0 || strcasecmp(t, "-nan") == 0) {
        v.missing = true;
    } else {
        /* the library's one strict rule: a whole non-negative base-10
         * number (no hex, no trailing text), cycles and counts as they are */
        size_t n = strlen(t);
        while (n > 0 && t[n - 1] == ' ')
            n--;
        v.numeric = ks_parse_decimal(t, n, KS_NUM_MEASURE, &v.value) == NULL;
        v.count = v.numeric ? ks_exact_count(t, n, v.value) : 0;
    }
    return g->fn(g->ctx, &v, err);
}

static ks_status take_header(ks_getstats *g, char **fields, int count, long number,
                             ks_error *err)
{
    const char *first = ks_trim(fields[0]);
    if (strcmp(first, "APPS") == 0)
        g->configs_as_rows = false;
    else if (strcmp(first, "CFG") == 0)
        g->configs_as_rows = true;
    else
        return ks_error_set(err, KS_ERR_FORMAT, g->path, number,
                            "expected the header APPS,<config>,... or CFG,<app--kernel>,... "
                            "after the statistic %s",
                            g->stat_regex);
    clear_header(g);
    if (count < 2)
        return ks_error_set(err, KS_ERR_FORMAT, g->path, number, "a header without columns");
    if (!(g->header = calloc((size_t)count, sizeof *g->header)))
        return ks_error_set(err, KS_ERR_NOMEM, g->path, number, "out of memory");
    g->header_count = count - 1;
    for (int i = 1; i < count; i++)
        if (!(g->header[i - 1] = strdup(ks_trim(fields[i]))))
            return ks_error_set(err, KS_ERR_NOMEM, g->path, number, "out of memory");
    return KS_OK;
}

ks_status ks_getstats_line(ks_getstats *g, char *line, size_t len, long number, ks_error *err)
{
    while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' '))
        line[--len] = '\0';
    if (is_division(line)) {
        g->state = GS_NAME;
        return KS_OK;
    }
    if (len == 0) {
        if (g->state == GS_ROWS)
            g->state = GS_START;
        return KS_OK;
    }
    switch (g->state) {
    case GS_START:
        return ks_error_set(err, KS_ERR_FORMAT, g->path, number,
                            "expected the line of dashes that starts each statistic of a "
                            "get_stats.py CSV");
    case GS_NAME: {
        /* the regex may itself hold commas: only trailing ones are padding */
        size_t n = len;
        while (n > 0 && line[n - 1] == ',')
            n--;
        free(g->stat_regex);
        free(g->stat);
        g->stat_regex = strndup(line, n);
        g->stat = malloc(n + 16);
        if (!g->stat_regex || !g->stat)
            return ks_error_set(err, KS_ERR_NOMEM, g->path, number, "out of memory");
        ks_getstats_metric_name(g->stat_regex, g->stat, n + 16);
        g->stat_line = number;
        g->sections++;
        g->state = GS_HEADER;
        return KS_OK;
    }
    case GS_HEADER:
    case GS_ROWS:
        break;
    }
    int count;
    ks_status st = ks_csv_split_grow(line, len, &g->fields, &g->field_capacity, &count, g->path,
                                     number, err);
    if (st != KS_OK)
        return st;
    if (count < 0)
        return ks_error_set(err, KS_ERR_FORMAT, g->path, number, "unterminated quote");
    if (g->state == GS_HEADER) {
        g->state = GS_ROWS;
        return take_header(g, g->fields, count, number, err);
    }
    if (count != g->header_count + 1)
        return ks_error_set(err, KS_ERR_FORMAT, g->path, number,
                            "%d fields; the header of %s has %d", count, g->stat_regex,
                            g->header_count + 1);
    if (g->configs_as_rows) {
        const char *config = ks_trim(g->fields[0]);
        for (int i = 0; i < g->header_count && st == KS_OK; i++) {
            char label[1024];
            snprintf(label, sizeof label, "%s", g->header[i]);
            st = cell(g, config, label, g->fields[i + 1], (size_t)i, number, err);
        }
        return st;
    }
    char *label = strdup(ks_trim(g->fields[0]));
    if (!label)
        return ks_error_set(err, KS_ERR_NOMEM, g->path, number, "out of memory");
    /* rows of one app come in run order; the caller counts them */
    for (int i = 0; i < g->header_count && st == KS_OK; i++) {
        char copy[1024];
        snprintf(copy, sizeof copy, "%s", label);
        st = cell(g, g->header[i], copy, g->fields[i + 1], SIZE_MAX, number, err);
    }
    free(label);
    return st;
}

ks_status ks_getstats_finish(ks_getstats *g, size_t *sections, ks_error *err)
{
    (void)err;
    if (sections)
        *sections = g->sections;
    return KS_OK;
}

bool ks_getstats_detect(const char *head, size_t len)
{
    size_t n = 0;
    while (n < len && head[n] == '-')
        n++;
    return n >= 20 && (ks_find_text(head, len, "\nAPPS,") || ks_find_text(head, len, "\nCFG,"));
}
