/*
 * macsim_log.c - per-launch cycles from MacSim's standard output, and the
 * whole-run statistics of its general.stat.out.
 *
 * MacSim prints, as it starts each kernel of the program it was given,
 *   src/process_manager.cc:426: (I=13  C=3518):  setup_process:0
 *       RUN/Kernel1/trace.txt current_index:1 (157)
 * where C is the simulated cycle, current_index the kernel's position in
 * kernel_config.txt (from 0) and the parenthesis the kernel count; after the
 * last kernel,
 *   src/retire.cc:563: (I=13  C=179896):  ----- application 0 terminated
 *       (RUN/Kernel156/trace.txt,0) at 179896
 * Kernels run one after another, so a kernel's cycles are the start of the
 * next minus its own, and the last one's end at "terminated ... at".  Their
 * sum is general.stat.out's CYC_COUNT_TOT minus 1.  A log may hold several
 * runs one after another (current_index 0 starts one).
 */
#include "simout.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ks_macsim_log {
    const char *path;
    ks_macsim_kernel_fn fn;
    void *ctx;
    size_t run;
    bool started;   /* a kernel of the current run is open */
    bool any;       /* some run was seen */
    uint64_t index, count, start;
    long line;
    char *trace;
    size_t kernels;
};

ks_status ks_macsim_log_new(const char *path, ks_macsim_kernel_fn fn, void *ctx,
                            ks_macsim_log **out, ks_error *err)
{
    ks_macsim_log *m = calloc(1, sizeof *m);
    if (!m)
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    m->path = path;
    m->fn = fn;
    m->ctx = ctx;
    *out = m;
    return KS_OK;
}

void ks_macsim_log_free(ks_macsim_log *m)
{
    if (!m)
        return;
    free(m->trace);
    free(m);
}

/* A whole decimal number at p; *end after it. */
static bool parse_count(const char *p, uint64_t *v, const char **end)
{
    if (!isdigit((unsigned char)*p))
        return false;
    char *e;
    errno = 0;
    unsigned long long x = strtoull(p, &e, 10);
    if (errno == ERANGE)
        return false;
    *v = x;
    *end = e;
    return true;
}

/* The cycle of "(I=<n>  C=<cycle>)" at the start of a line. */
static bool line_cycle(const char *line, uint64_t *cycle)
{
    const char *c = strstr(line, "(I=");
    if (!c)
        return false;
    c = strstr(c, "C=");
    const char *end;
    return c && parse_count(c + 2, cycle, &end) && *end == ')';
}

static ks_status close_kernel(ks_macsim_log *m, uint64_t end_cycle, long number, ks_error *err)
{
    if (end_cycle < m->start)
        return ks_error_set(err, KS_ERR_FORMAT, m->path, number,
                            "cycle %llu is before the kernel's start at cycle %llu (line %ld)",
                            (unsigned long long)end_cycle, (unsigned long long)m->start,
                            m->line);
    ks_macsim_kernel k = {m->line, m->run, m->index, m->count, m->trace, m->start,
                          end_cycle - m->start};
    m->started = false;
    m->kernels++;
    ks_status st = m->fn(m->ctx, &k, err);
    free(m->trace);
    m->trace = NULL;
    return st;
}

static ks_status unfinished(const ks_macsim_log *m, long number, ks_error *err)
{
    return ks_error_set(err, KS_ERR_FORMAT, m->path, number ? number : m->line,
                        "kernel %llu of %llu (%s, started at line %ld) never finished: the "
                        "simulator stopped before the end of its run",
                        (unsigned long long)m->index + 1, (unsigned long long)m->count,
                        m->trace ? m->trace : "?", m->line);
}

static ks_status on_setup(ks_macsim_log *m, const char *p, uint64_t cycle, long number,
                          ks_error *err)
{
    /* "setup_process:<pid> <trace> current_index:<k> (<n>)" */
    const char *sp = strchr(p, ' ');
    const char *ci = sp ? strstr(sp, " current_index:") : NULL;
    uint64_t index, count;
    const char *end;
    if (!ci || !parse_count(ci + 15, &index, &end) || strncmp(end, " (", 2) != 0 ||
        !parse_count(end + 2, &count, &end) || *end != ')' || count == 0 || index >= count)
        return ks_error_set(err, KS_ERR_FORMAT, m->path, number,
                            "setup_process: expected '<trace> current_index:<k> (<kernels>)'");
    ks_status st = KS_OK;
    if (index == 0) {
        if (m->started)
            return unfinished(m, number, err);
        if (m->any)
            m->run++;
        m->any = true;
    } else {
        if (!m->started || index != m->index + 1 || count != m->count)
            return ks_error_set(err, KS_ERR_FORMAT, m->path, number,
                                "kernel %llu of %llu starts, but the kernel before it was not "
                                "%llu of %llu",
                                (unsigned long long)index, (unsigned long long)count,
                                (unsigned long long)index - 1, (unsigned long long)count);
        if ((st = close_kernel(m, cycle, number, err)) != KS_OK)
            return st;
    }
    size_t n = (size_t)(ci - (sp + 1));
    if (!(m->trace = strndup(sp + 1, n)))
        return ks_error_set(err, KS_ERR_NOMEM, m->path, number, "out of memory");
    m->started = true;
    m->index = index;
    m->count = count;
    m->start = cycle;
    m->line = number;
    return KS_OK;
}

ks_status ks_macsim_log_line(ks_macsim_log *m, const char *line, long number, ks_error *err)
{
    const char *setup = strstr(line, "setup_process:");
    const char *done = setup ? NULL : strstr(line, "terminated (");
    if (!setup && !(done && strstr(line, "application ")))
        return KS_OK;
    uint64_t cycle;
    if (!line_cycle(line, &cycle))
        return ks_error_set(err, KS_ERR_FORMAT, m->path, number,
                            "expected '(I=<instructions>  C=<cycle>)' before '%s'",
                            setup ? "setup_process" : "terminated");
    if (setup)
        return on_setup(m, setup, cycle, number, err);
    /* "terminated (<trace>,<pid>) at <cycle>" */
    const char *at = strstr(done, ") at ");
    uint64_t end_cycle;
    const char *end;
    if (!at || !parse_count(at + 5, &end_cycle, &end))
        return ks_error_set(err, KS_ERR_FORMAT, m->path, number,
                            "application terminated: expected '(<trace>,<pid>) at <cycle>'");
    if (!m->started || m->index + 1 != m->count)
        return ks_error_set(err, KS_ERR_FORMAT, m->path, number,
                            "the application ends before its kernel %llu of %llu started",
                            (unsigned long long)(m->started ? m->index + 2 : 1),
                            (unsigned long long)m->count);
    return close_kernel(m, end_cycle, number, err);
}

ks_status ks_macsim_log_finish(ks_macsim_log *m, size_t *kernels, ks_error *err)
{
    if (kernels)
        *kernels = m->kernels;
    if (m->started)
        return unfinished(m, 0, err);
    return KS_OK;
}

bool ks_macsim_log_detect(const char *head, size_t len)
{
    return ks_find_text(head, len, "setup_process:") != NULL ||
           (ks_find_text(head, len, "initialize knobs") != NULL &&
            ks_find_text(head, len, "(I=") != NULL);
}

/* ------------------------------------------------------- general.stat.out */

ks_status ks_macsim_stats_line(const char *line, long number, const char *path, char *name,
                               size_t name_size, double *value, bool *found, ks_error *err)
{
    *found = false;
    const char *p = line;
    if (!(isupper((unsigned char)*p) || *p == '_'))
        return KS_OK; /* blank, "####", "Interval", "Cumulative:" */
    const char *n = p;
    while (isalnum((unsigned char)*p) || *p == '_')
        p++;
    size_t len = (size_t)(p - n);
    if (*p != ' ' && *p != '\t')
        return KS_OK;
    while (*p == ' ' || *p == '\t')
        p++;
    const char *v = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    if (p == v)
        return KS_OK;
    char buf[64];
    size_t vl = (size_t)(p - v);
    if (vl >= sizeof buf)
        return ks_error_set(err, KS_ERR_FORMAT, path, number, "value of %.*s is too long",
                            (int)(len > 60 ? 60 : len), n);
    memcpy(buf, v, vl);
    buf[vl] = '\0';
    double x;
    const char *why = ks_parse_decimal(buf, vl, KS_NUM_MEASURE, &x);
    if (why)
        return ks_error_set(err, KS_ERR_FORMAT, path, number, "%.*s: '%s' %s",
                            (int)(len > 60 ? 60 : len), n, buf, why);
    if (len >= name_size)
        len = name_size - 1;
    memcpy(name, n, len);
    name[len] = '\0';
    *value = x;
    *found = true;
    return KS_OK;
}

bool ks_macsim_stats_detect(const char *head, size_t len)
{
    return ks_find_text(head, len, "CYC_COUNT_TOT") != NULL ||
           (ks_find_text(head, len, "Cumulative:") != NULL &&
            ks_find_text(head, len, "INST_COUNT_TOT") != NULL);
}
