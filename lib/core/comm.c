/*
 * comm.c - communication kernels: which names are (NCCL, RCCL, NVSHMEM,
 * MSCCL++, the custom all-reduce kernels of serving frameworks), and what
 * they cost in a profile, with the part of their time that other kernels
 * on other streams ran beside them.  A single-GPU simulator cannot run
 * them (they wait on peers that are not there), so sample leaves them out
 * and the plan records their measured time as a known, unsimulated part.
 */
#include "internal.h"
#include "sort.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Each matched anywhere in the name, ignoring case (docs/llm.md lists where
 * each comes from). */
static const char *const ks_comm_patterns[] = {
    "nccl",                /* NCCL: ncclKernel_*, ncclDevKernel_*, ncclDevFunc_*; RCCL
                            * keeps these names */
    "rccl",                /* RCCL's own kernels */
    "nvshmem",             /* NVSHMEM device collectives and barriers */
    "mscclpp",             /* MSCCL++ */
    "cross_device_reduce", /* vLLM and SGLang custom all-reduce */
    "quickreduce",         /* vLLM's ROCm quick all-reduce */
    "allreduce",           /* TensorRT-LLM oneShotAllReduceKernel, twoShot..., FlashInfer
                            * trtllm_allreduce_fusion, ... */
    "all_reduce",          /* PyTorch symmetric memory one_shot_all_reduce_kernel, ... */
    "allgather",           /* all-gathers of the above libraries */
    "all_gather",
    "reduce_scatter",
    "reducescatter",
    "alltoall",
    "all_to_all",
    "deep_ep::",           /* DeepEP's MoE dispatch and combine */
    NULL};

/* Case-insensitive: does pattern (with '*' for any run) match all of name?
 * Iterative with one backtrack point, so linear in practice. */
static bool glob_match(const char *pat, const char *name)
{
    const char *star = NULL, *mark = NULL;
    while (*name) {
        if (*pat == '*') {
            star = pat++;
            mark = name;
        } else if (*pat && tolower((unsigned char)*pat) == tolower((unsigned char)*name)) {
            pat++;
            name++;
        } else if (star) {
            pat = star + 1;
            name = ++mark;
        } else {
            return false;
        }
    }
    while (*pat == '*')
        pat++;
    return *pat == '\0';
}

static bool contains(const char *name, const char *needle)
{
    size_t m = strlen(needle);
    for (const char *s = name; *s; s++) {
        size_t k = 0;
        while (k < m && s[k] && tolower((unsigned char)s[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == m)
            return true;
    }
    return m == 0;
}

static bool pattern_matches(const char *pattern, const char *name)
{
    return strchr(pattern, '*') ? glob_match(pattern, name) : contains(name, pattern);
}

const char *const *ks_comm_pattern_list(void) { return ks_comm_patterns; }

bool ks_comm_kernel(const char *name, const char *const *extra, size_t extra_count)
{
    for (size_t i = 0; ks_comm_patterns[i]; i++)
        if (contains(name, ks_comm_patterns[i]))
            return true;
    for (size_t i = 0; i < extra_count; i++)
        if (extra[i] && pattern_matches(extra[i], name))
            return true;
    return false;
}

void ks_comm_summary_free(ks_comm_summary *s)
{
    for (size_t i = 0; i < s->name_count; i++)
        free(s->names[i]);
    KS_FREE(s->names, s->name_ns, s->name_launches);
    memset(s, 0, sizeof *s);
}

typedef struct span {
    int64_t a, b;
    uint32_t stream;
} span;

KS_ORDER_BY2(cmp_span, span, a, b)

/* spans_before: the number of spans (sorted by start) that start before
 * b; first_end_after: the first of the ascending ends past a. */
#define STARTS_BEFORE(e, b) ((e).a < (b))
KS_LOWER_BOUND(spans_before, span, int64_t, STARTS_BEFORE)
#define ENDS_BY(e, a) ((e) <= (a))
KS_LOWER_BOUND(first_end_after, int64_t, int64_t, ENDS_BY)

/* Time of the communication launches covered by other kernels on other
 * streams: per communication launch, the union of those kernels' spans
 * clipped to it (compute spans sorted by start; a running maximum of ends
 * bounds the scan). */
static ks_status overlap(const ks_profile *p, const uint8_t *is_comm, double *out, ks_error *err)
{
    size_t m = 0;
    span *other = malloc((p->n ? p->n : 1) * sizeof *other);
    int64_t *max_end = malloc((p->n ? p->n : 1) * sizeof *max_end);
    if (!other || !max_end) {
        KS_FREE(other, max_end);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < p->n; i++)
        if (!is_comm[i] && p->start_ns[i] != KS_MISSING_I64)
            other[m++] = (span){p->start_ns[i], p->start_ns[i] + p->duration_ns[i],
                                p->stream ? p->stream[i] : 0};
    qsort(other, m, sizeof *other, cmp_span);
    for (size_t k = 0; k < m; k++)
        max_end[k] = k && max_end[k - 1] > other[k].b ? max_end[k - 1] : other[k].b;
    long double total = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (!is_comm[i] || p->start_ns[i] == KS_MISSING_I64)
            continue;
        int64_t a = p->start_ns[i], b = a + p->duration_ns[i];
        uint32_t s = p->stream ? p->stream[i] : 0;
        /* the spans that start before b ... */
        size_t lo = spans_before(other, m, b);
        /* the first span whose prefix's latest end passes a (ends only
         * grow along the prefix) */
        size_t first = first_end_after(max_end, lo, a);
        int64_t covered_to = a;
        long double cov = 0;
        for (size_t k = first; k < lo; k++) {
            if (other[k].stream == s || other[k].b <= covered_to)
                continue;
            int64_t x = other[k].a > covered_to ? other[k].a : covered_to;
            int64_t y = other[k].b < b ? other[k].b : b;
            if (y > x) {
                cov += (long double)(y - x);
                covered_to = y;
            }
        }
        total += cov;
    }
    KS_FREE(other, max_end);
    *out = (double)total;
    return KS_OK;
}

ks_status ks_comm_summarise(const ks_profile *p, const char *const *extra, size_t extra_count,
                            ks_comm_summary *out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    out->overlap_ns = NAN;
    uint8_t *name_comm = calloc(p->name_count ? p->name_count : 1, 1);
    uint8_t *is_comm = calloc(p->n ? p->n : 1, 1);
    double *ns = calloc(p->name_count ? p->name_count : 1, sizeof *ns);
    uint64_t *cnt = calloc(p->name_count ? p->name_count : 1, sizeof *cnt);
    ks_status st = KS_OK;
    if (!name_comm || !is_comm || !ns || !cnt) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < p->name_count; k++)
        name_comm[k] = ks_comm_kernel(p->names[k], extra, extra_count);
    long double all = 0, comm = 0;
    for (size_t i = 0; i < p->n; i++) {
        all += p->duration_ns[i];
        if (name_comm[p->name_id[i]]) {
            is_comm[i] = 1;
            comm += p->duration_ns[i];
            ns[p->name_id[i]] += (double)p->duration_ns[i];
            cnt[p->name_id[i]]++;
            out->launches++;
        }
    }
    out->total_ns = (double)all;
    out->time_ns = (double)comm;
    for (size_t k = 0; k < p->name_count; k++)
        out->name_count += cnt[k] > 0;
    if (out->name_count) {
        out->names = calloc(out->name_count, sizeof *out->names);
        out->name_ns = calloc(out->name_count, sizeof *out->name_ns);
        out->name_launches = calloc(out->name_count, sizeof *out->name_launches);
        if (!out->names || !out->name_ns || !out->name_launches) {
            out->name_count = 0;
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            goto done;
        }
        size_t j = 0;
        for (size_t k = 0; k < p->name_count; k++) {
            if (!cnt[k])
                continue;
            /* insertion by time, largest first (few names) */
            size_t at = j;
            while (at > 0 && out->name_ns[at - 1] < ns[k]) {
                out->names[at] = out->names[at - 1];
                out->name_ns[at] = out->name_ns[at - 1];
                out->name_launches[at] = out->name_launches[at - 1];
                at--;
            }
            out->names[at] = strdup(p->names[k]);
            out->name_ns[at] = ns[k];
            out->name_launches[at] = cnt[k];
            j++;
            if (!out->names[at]) {
                out->name_count = j;
                st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
                goto done;
            }
        }
    }
    if (out->launches && p->start_ns)
        st = overlap(p, is_comm, &out->overlap_ns, err);
done:
    KS_FREE(name_comm, is_comm, ns, cnt);
    if (st != KS_OK)
        ks_comm_summary_free(out);
    return st;
}

/* The selection that leaves them out: "no-comm;comm-pattern=P;...". */
static ks_status no_comm_spec(const char *const *extra, size_t extra_count, char *spec,
                              size_t size, ks_error *err)
{
    size_t used = (size_t)snprintf(spec, size, "no-comm");
    for (size_t k = 0; k < extra_count; k++) {
        if (!extra[k] || !*extra[k] || strchr(extra[k], ';'))
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "communication pattern '%.80s': a pattern is a non-empty name "
                                "without ';'",
                                extra[k] ? extra[k] : "");
        if (used < size)
            used += (size_t)snprintf(spec + used, size - used, ";comm-pattern=%s", extra[k]);
    }
    if (used >= size)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "communication patterns: too long in all (at most %zu bytes)",
                            size - sizeof "no-comm");
    return KS_OK;
}

ks_status ks_profile_leave_out_comm(ks_profile *p, const char *const *extra, size_t extra_count,
                                    bool include, ks_profile **copy, ks_comm_summary *comm,
                                    ks_error *err)
{
    if (copy)
        *copy = NULL;
    char spec[512];
    ks_status st = no_comm_spec(extra, extra_count, spec, sizeof spec, err);
    if (st == KS_OK)
        st = ks_comm_summarise(p, extra, extra_count, comm, err);
    else
        memset(comm, 0, sizeof *comm);
    if (st != KS_OK || include || !comm->launches)
        return st;
    if (comm->launches == p->n)
        st = ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                          "every one of its %zu launches is a communication kernel: nothing "
                          "to simulate (--include-comm keeps them)",
                          p->n);
    ks_profile *q = p;
    if (st == KS_OK && copy)
        st = ks_profile_copy(p, &q, err);
    if (st == KS_OK)
        st = ks_profile_select(q, spec, err);
    if (st == KS_OK && copy)
        *copy = q;
    else if (q != p)
        ks_profile_free(q);
    if (st != KS_OK)
        ks_comm_summary_free(comm);
    return st;
}
