/*
 * join.c - joining per-invocation data from a second source (Nsight Compute
 * metrics, basic-block vectors, traces) to a time profile by launch order,
 * with the one alignment check every source goes through: equal counts,
 * kernel names that agree, and launch configurations that agree where both
 * sources give them.  A shifted or reordered run would otherwise hand every
 * kernel its neighbour's data without a word.
 */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The part of a kernel name every profiler agrees on: nsys prints the full
 * demangled signature ("void foo<int>(float*)"), ncu the same or, with
 * --print-kernel-base function, the bare function ("foo").  The cut is at the
 * parameter list: the first '(' outside template arguments that does not
 * open "(anonymous namespace)", so that "foo<(int)1>" and
 * "(anonymous namespace)::bar" keep what tells them apart. */
static void name_core(const char *name, const char **start, size_t *len)
{
    static const char anon[] = "(anonymous namespace)";
    const char *s = name;
    while (*s == ' ' || *s == '\t')
        s++;
    if (strncmp(s, "void ", 5) == 0)
        for (s += 5; *s == ' '; s++)
            ;
    size_t n = 0;
    int depth = 0;
    for (; s[n]; n++) {
        if (s[n] == '<')
            depth++;
        else if (s[n] == '>' && depth > 0)
            depth--;
        else if (s[n] == '(' && depth == 0) {
            if (strncmp(s + n, anon, sizeof anon - 1) != 0)
                break;
            n += sizeof anon - 2;
        }
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    *start = s;
    *len = n;
}

/* The identifier alone: no template arguments, no namespace. */
static void name_base(const char *s, size_t n, const char **start, size_t *len)
{
    size_t cut = 0;
    while (cut < n && s[cut] != '<')
        cut++;
    size_t from = 0;
    for (size_t i = 0; i + 1 < cut; i++)
        if (s[i] == ':' && s[i + 1] == ':')
            from = i + 2;
    *start = s + from;
    *len = cut - from;
}

/* The function's own identifier in an Itanium-mangled name (what NVBit
 * traces record): "_Z21adjust_weights_kernelPfS_..." gives
 * "adjust_weights_kernel"; a nested name "_ZN2at6native5fooIfEEvT_" gives
 * its last component before the template arguments, "foo".  false when s
 * does not look mangled. */
static bool mangled_base(const char *s, size_t n, const char **start, size_t *len)
{
    if (n < 3 || s[0] != '_' || s[1] != 'Z')
        return false;
    size_t i = 2;
    bool nested = s[i] == 'N';
    if (nested)
        i++;
    while (i < n && (s[i] == 'K' || s[i] == 'V' || s[i] == 'r'))
        i++; /* cv-qualifiers of a member function */
    const char *last = NULL;
    size_t last_len = 0;
    while (i < n && isdigit((unsigned char)s[i])) {
        size_t k = 0;
        while (i < n && isdigit((unsigned char)s[i]) && k < 100000)
            k = k * 10 + (size_t)(s[i++] - '0');
        if (k == 0 || k > n - i)
            return false;
        last = s + i;
        last_len = k;
        i += k;
        if (!nested)
            break;
    }
    if (!last)
        return false;
    *start = last;
    *len = last_len;
    return true;
}

static bool is_bare(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return false;
    return n > 0;
}

bool ks_kernel_names_match(const char *a, const char *b)
{
    const char *sa, *sb;
    size_t na, nb;
    name_core(a, &sa, &na);
    name_core(b, &sb, &nb);
    if (na == nb && memcmp(sa, sb, na) == 0)
        return true;
    /* a bare identifier carries no more than the other name's identifier,
     * so that is all there is to compare; two qualified names must agree */
    if (!is_bare(sa, na) && !is_bare(sb, nb))
        return false;
    const char *ba, *bb;
    size_t la, lb;
    if (!mangled_base(sa, na, &ba, &la))
        name_base(sa, na, &ba, &la);
    if (!mangled_base(sb, nb, &bb, &lb))
        name_base(sb, nb, &bb, &lb);
    return la == lb && la > 0 && memcmp(ba, bb, la) == 0;
}

static uint64_t dims_product(const uint32_t *d)
{
    return (uint64_t)d[0] * d[1] * d[2];
}

static bool dims_differ(const uint32_t *a, const uint32_t *b)
{
    bool a_known = a[0] || a[1] || a[2], b_known = b[0] || b[1] || b[2];
    return a_known && b_known && (a[0] != b[0] || a[1] != b[1] || a[2] != b[2]);
}

static long line_of(const long *lines, size_t i) { return lines ? lines[i] : 0; }

ks_status ks_profile_check_aligned(const ks_profile *p, const ks_profile *q, const long *q_lines,
                                   const char *q_path, const char *what, ks_error *err)
{
    size_t common = p->n < q->n ? p->n : q->n;
    size_t bad = SIZE_MAX;
    /* names are interned, so whether launch i's names agree depends only on
     * the pair of name ids: remembered, since comparing the text of every
     * launch's names took most of a check of millions of launches */
    enum { MEMO = 1024 };
    struct { uint32_t a, b; } memo[MEMO];
    memset(memo, 0xff, sizeof memo);
    for (size_t i = 0; i < common && bad == SIZE_MAX; i++) {
        uint32_t a = p->name_id[i], b = q->name_id[i];
        size_t slot = ((size_t)a * 0x9e3779b1u ^ b) % MEMO;
        if (memo[slot].a == a && memo[slot].b == b)
            continue;
        if (!ks_kernel_names_match(ks_profile_name(p, i), ks_profile_name(q, i)))
            bad = i;
        else
            memo[slot].a = a, memo[slot].b = b;
    }
    if (p->n != q->n) {
        if (bad != SIZE_MAX)
            return ks_error_set(err, KS_ERR_FORMAT, q_path, line_of(q_lines, bad),
                                "%s: it has %zu kernel launches and the profile "
                                "%zu; names first differ at launch %zu: profile \"%.120s\", "
                                "here \"%.120s\"",
                                what, q->n, p->n, bad, ks_profile_name(p, bad),
                                ks_profile_name(q, bad));
        return ks_error_set(err, KS_ERR_FORMAT, q_path, 0,
                            "%s: it has %zu kernel launches and the profile %zu "
                            "(names agree for the first %zu); record both from the same run "
                            "with the same kernel filters",
                            what, q->n, p->n, common);
    }
    if (bad != SIZE_MAX)
        return ks_error_set(err, KS_ERR_FORMAT, q_path, line_of(q_lines, bad),
                            "%s: kernel names differ at launch %zu: profile "
                            "\"%.150s\", here \"%.150s\"",
                            what, bad, ks_profile_name(p, bad), ks_profile_name(q, bad));
    if (!ks_profile_has_dims(p) || !ks_profile_has_dims(q))
        return KS_OK;
    /* a MacSim trace without kernel_names.txt knows only the counts of
     * blocks and threads (one dimension each): compare those */
    bool counts = strcmp(p->source_format, "macsim-traces") == 0 ||
                  strcmp(q->source_format, "macsim-traces") == 0;
    for (size_t i = 0; i < common; i++) {
        const uint32_t *pg = ks_profile_grid(p, i), *qg = ks_profile_grid(q, i);
        const uint32_t *pb = ks_profile_block(p, i), *qb = ks_profile_block(q, i);
        bool differ = counts ? dims_product(pg) != dims_product(qg) ||
                                   dims_product(pb) != dims_product(qb)
                             : dims_differ(pg, qg) || dims_differ(pb, qb);
        if (differ)
            return ks_error_set(err, KS_ERR_FORMAT, q_path, line_of(q_lines, i),
                                "%s: launch %zu (\"%.100s\") has grid (%u, %u, %u) "
                                "block (%u, %u, %u) in the profile but grid (%u, %u, %u) "
                                "block (%u, %u, %u) here",
                                what, i, ks_profile_name(p, i), pg[0], pg[1], pg[2], pb[0], pb[1],
                                pb[2], qg[0], qg[1], qg[2], qb[0], qb[1], qb[2]);
    }
    return KS_OK;
}

static ks_status copy_sparse(ks_profile *p, const ks_sparse_column *c, ks_error *err)
{
    size_t nnz = c->offset[p->n];
    uint64_t *offset = malloc((p->n + 1) * sizeof *offset);
    uint64_t *index = malloc((nnz ? nnz : 1) * sizeof *index);
    double *value = malloc((nnz ? nnz : 1) * sizeof *value);
    if (offset && index && value) {
        memcpy(offset, c->offset, (p->n + 1) * sizeof *offset);
        memcpy(index, c->index, nnz * sizeof *index);
        memcpy(value, c->value, nnz * sizeof *value);
    }
    if (!offset || !index || !value) {
        free(offset);
        free(index);
        free(value);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    return ks_profile_set_sparse(p, c->name, offset, index, value, err);
}

ks_status ks_profile_join(ks_profile *p, const ks_profile *q, const long *q_lines,
                          const char *q_path, ks_error *err)
{
    ks_status st = ks_profile_check_aligned(p, q, q_lines, q_path, "cannot attach", err);
    if (st != KS_OK)
        return st;
    for (size_t m = 0; m < q->metric_count && st == KS_OK; m++) {
        ks_metric_column *col;
        st = ks_profile_metric(p, q->metrics[m].name, &col, err);
        if (st == KS_OK)
            memcpy(col->values, q->metrics[m].values, p->n * sizeof(double));
        if (st == KS_OK && q->metrics[m].unit && !col->unit &&
            !(col->unit = strdup(q->metrics[m].unit)))
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t k = 0; k < q->sparse_count && st == KS_OK; k++)
        st = copy_sparse(p, &q->sparse[k], err);
    for (size_t i = 0; st == KS_OK && !p->dims_id && ks_profile_has_dims(q) && i < p->n; i++)
        st = ks_profile_set_dims(p, i, ks_profile_grid(q, i), ks_profile_block(q, i), err);
    if (st == KS_OK && q->trace_path[0])
        snprintf(p->trace_path, sizeof p->trace_path, "%s", q->trace_path);
    return st;
}
