/*
 * metric_kind.c - whether a profile's metric column adds up over launches
 * (counts, bytes, cycles, time) or is a rate, ratio, percentage, average or
 * launch attribute: what eval estimates, and what ROOT's pooled strata
 * compare as a rate per unit of time.
 */
#include "internal.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ additivity */

/* Whether one of name's words (runs of letters and digits, compared without
 * case) is in words: "Duration" must not read as holding "ratio". */
static bool has_word(const char *name, const char *const *words)
{
    for (const char *s = name; *s;) {
        while (*s && !isalnum((unsigned char)*s))
            s++;
        size_t n = 0;
        while (isalnum((unsigned char)s[n]))
            n++;
        for (const char *const *w = words; n && *w; w++)
            if (strlen(*w) == n && strncasecmp(s, *w, n) == 0)
                return true;
        s += n;
    }
    return false;
}

/* Nsight Compute's raw names are "<unit>__<counter>[.<rollup>[.<submetric>]]":
 * the rollup says how the hardware units' values were combined (sum, avg,
 * max, min) and a submetric turns a count into a rate or a share of peak. */
static int raw_name_additive(const char *name, const char **why)
{
    static const char *const launch_counts[] = {"launch__grid_size", "launch__thread_count",
                                                NULL};
    const char *dot = strchr(name, '.');
    size_t base_len = dot ? (size_t)(dot - name) : strlen(name);
    char base[256];
    snprintf(base, sizeof base, "%.*s", (int)(base_len < 255 ? base_len : 255), name);
    if (strncmp(base, "device__", 8) == 0)
        return *why = "a device attribute", 0;
    if (strncmp(base, "profiler__", 10) == 0)
        return *why = "the profiler's own bookkeeping", 0;
    if (strstr(base, "per_"))
        return *why = "a per-unit quantity (\"per_\" in its name)", 0;
    if (strncmp(base, "launch__", 8) == 0) {
        for (const char *const *l = launch_counts; *l; l++)
            if (strcmp(base, *l) == 0)
                return 1;
        return *why = "a launch attribute", 0;
    }
    /* gpu__ counters have one instance, the GPU, so every rollup of a
     * launch's value is that value (ncu may record only
     * gpu__time_duration.max) */
    bool one_instance = strncmp(base, "gpu__", 5) == 0;
    /* older ncu versions put rollup and ratio in the counter's own name
     * (sm__elapsed_cycles_avg, ..._utilization_pct, dram__frequency) */
    static const char *const extremes[] = {"avg", "max", "min", NULL};
    static const char *const rates[] = {"pct",       "ratio",    "utilization",
                                        "frequency", "interval", "peak", "size", NULL};
    if (!one_instance && has_word(base, extremes))
        return *why = "an average or extreme over hardware units (.avg/.max/.min)", 0;
    if (has_word(base, rates))
        return *why = "a ratio, percentage, rate or setting (by its name)", 0;
    for (const char *c = dot; c; c = strchr(c + 1, '.')) {
        const char *part = c + 1;
        size_t n = strcspn(part, ".");
        if ((n == 3 && (!strncmp(part, "avg", 3) || !strncmp(part, "max", 3) ||
                        !strncmp(part, "min", 3)))) {
            if (!one_instance)
                return *why = "an average or extreme over hardware units (.avg/.max/.min)", 0;
        } else if (!strncmp(part, "ratio", 5) || !strncmp(part, "pct", 3) ||
                   !strncmp(part, "peak_", 5) || !strncmp(part, "per_", 4)) {
            return *why = "a ratio, percentage or rate (.ratio/.pct/.peak_sustained/.per_)", 0;
        }
    }
    return 1;
}

/* The details page's readable names ("Achieved Occupancy", "Block Size",
 * "Executed Ipc Active"; "<Section>: <Metric>" when two sections share one)
 * and hand-made columns: by words that mark a rate or a configuration. */
static int readable_name_additive(const char *name, const char **why)
{
    static const char *const words[] = {
        "per",        "ratio",     "rate",      "pct",        "percent",     "percentage",
        "occupancy",  "throughput", "frequency", "ipc",       "efficiency",  "utilization",
        "average",    "avg",       "mean",      "max",        "maximum",     "min",
        "minimum",    "peak",      "limit",     "size",       "configuration", NULL};
    const char *metric = name;
    for (const char *s = strstr(name, ": "); s; s = strstr(s + 2, ": "))
        metric = s + 2; /* the section's name says nothing about the metric */
    if (strcasecmp(metric, "Grid Size") == 0)
        return 1; /* summed: the workload's thread blocks */
    if (has_word(metric, words))
        return *why = "a rate, ratio, average or launch attribute (by its name)", 0;
    return 1;
}

int ks_metric_is_additive(const char *name, const char *unit, const char **why)
{
    const char *ignored;
    if (!why)
        why = &ignored;
    *why = NULL;
    if (unit && strchr(unit, '%'))
        return *why = "a percentage (unit %)", 0;
    if (unit && strchr(unit, '/'))
        return *why = "a rate or ratio (unit with '/')", 0;
    if (unit && (strcasecmp(unit, "hz") == 0 || strcasecmp(unit, "khz") == 0 ||
                 strcasecmp(unit, "mhz") == 0 || strcasecmp(unit, "ghz") == 0))
        return *why = "a frequency (unit hz)", 0;
    if (strstr(name, "__") && !strstr(name, ": "))
        return raw_name_additive(name, why);
    return readable_name_additive(name, why);
}

