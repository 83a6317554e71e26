/*
 * match.c - launches of one program profiled twice (two GPUs, two
 * profilers) paired when the names differ: cuBLAS picks another GEMM kernel
 * on another GPU (nvjet_sm90_tst_40x64_... against ..._64x32_...) or adds a
 * split-K reduction.  Launches are paired in order by their kernel family
 * (the name without its digits, cut where the key `name` cuts it); where
 * the families part, the shortest skip on either side after which the next
 * few launches agree again is taken: as many launches skipped on each side
 * are paired by position (other kernels at the same places), otherwise
 * they are left unmatched and counted.
 */
#include "internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

enum { WINDOW = 96, AGREE = 4 };

/* One token per launch: its family's hash, or (by operator) its operator's
 * name's where it has one. */
static ks_status family_tokens(const ks_profile *p, ks_match_mode mode, uint64_t **out,
                               ks_error *err)
{
    uint64_t *name_tok = malloc((p->name_count ? p->name_count : 1) * sizeof *name_tok);
    uint64_t *tok = malloc((p->n ? p->n : 1) * sizeof *tok);
    char *buf = malloc(4096);
    if (!name_tok || !tok || !buf) {
        KS_FREE(name_tok, tok, buf);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t k = 0; k < p->name_count; k++) {
        size_t n = ks_key_name_part(KS_KEY_NAME, p->names[k], buf, 4096), m = 0;
        if (n > 4095)
            n = 4095;
        for (size_t i = 0; i < n; i++)
            if (!isdigit((unsigned char)buf[i]))
                buf[m++] = buf[i];
        name_tok[k] = XXH3_64bits(buf, m);
    }
    for (size_t i = 0; i < p->n; i++) {
        tok[i] = name_tok[p->name_id[i]];
        if (mode == KS_MATCH_OP && p->op_id && p->op_id[i] != UINT32_MAX) {
            const char *op = p->op_names[p->op_id[i]];
            tok[i] = XXH3_64bits(op, strlen(op)) ^ 0x6f70ULL;
        }
    }
    KS_FREE(name_tok, buf);
    *out = tok;
    return KS_OK;
}

/* Whether a[i..] and b[j..] agree for AGREE tokens (or to the end of both). */
static bool agree(const uint64_t *a, size_t na, size_t i, const uint64_t *b, size_t nb, size_t j)
{
    for (size_t k = 0; k < AGREE; k++) {
        bool ea = i + k >= na, eb = j + k >= nb;
        if (ea || eb)
            return ea && eb;
        if (a[i + k] != b[j + k])
            return false;
    }
    return true;
}

ks_status ks_profile_match(const ks_profile *p, const ks_profile *q, ks_match_mode mode,
                           int64_t *partner, ks_match_stats *stats, ks_error *err)
{
    memset(stats, 0, sizeof *stats);
    if (mode == KS_MATCH_OP && (!p->op_id || !q->op_id))
        return ks_error_set(err, KS_ERR_USAGE, !p->op_id ? p->source_path : q->source_path, 0,
                            "no framework operators to match by (Kineto's cpu_op events, "
                            "recorded with ProfilerActivity.CPU): match by family instead");
    uint64_t *a = NULL, *b = NULL;
    ks_status st = family_tokens(p, mode, &a, err);
    if (st == KS_OK)
        st = family_tokens(q, mode, &b, err);
    if (st != KS_OK) {
        KS_FREE(a, b);
        return st;
    }
    size_t i = 0, j = 0, na = p->n, nb = q->n;
    while (i < na && j < nb) {
        if (a[i] == b[j]) {
            if (strcmp(ks_profile_name(p, i), ks_profile_name(q, j)) != 0)
                stats->renamed++;
            partner[i++] = (int64_t)j++;
            stats->matched++;
            continue;
        }
        /* the shortest skip (di on p's side, dj on q's) after which they agree */
        bool found = false;
        size_t di = 0, dj = 0;
        for (size_t k = 1; k <= WINDOW && !found; k++)
            for (size_t x = 0; x <= k && !found; x++) {
                size_t y = k - x;
                if (i + x <= na && j + y <= nb && agree(a, na, i + x, b, nb, j + y)) {
                    found = true;
                    di = x;
                    dj = y;
                }
            }
        if (!found)
            di = dj = 1;
        if (di == dj) {
            /* as many launches on each side between launches that agree:
             * the same places in the program, other kernels (cuBLAS's
             * choice of GEMM), paired by position */
            for (size_t k = 0; k < di; k++) {
                partner[i + k] = (int64_t)(j + k);
                stats->matched++;
                stats->renamed++;
                stats->by_position++;
            }
            i += di;
            j += dj;
            continue;
        }
        for (size_t k = 0; k < di; k++) {
            partner[i + k] = -1;
            stats->p_only++;
            stats->p_only_ns += (double)p->duration_ns[i + k];
        }
        for (size_t k = 0; k < dj; k++) {
            stats->q_only++;
            stats->q_only_ns += (double)q->duration_ns[j + k];
        }
        if (!stats->gaps) {
            stats->first_gap_p = (int64_t)i;
            stats->first_gap_q = (int64_t)j;
        }
        stats->gaps++;
        i += di;
        j += dj;
    }
    for (; i < na; i++) {
        partner[i] = -1;
        stats->p_only++;
        stats->p_only_ns += (double)p->duration_ns[i];
    }
    for (; j < nb; j++) {
        stats->q_only++;
        stats->q_only_ns += (double)q->duration_ns[j];
    }
    KS_FREE(a, b);
    return KS_OK;
}

ks_status ks_profile_match_truth(const ks_profile *p, const ks_profile *q, ks_match_mode mode,
                                 ks_profile **out, ks_match_stats *stats, ks_error *err)
{
    *out = NULL;
    int64_t *partner = malloc((p->n ? p->n : 1) * sizeof *partner);
    if (!partner)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_status st = ks_profile_match(p, q, mode, partner, stats, err);
    ks_profile *t = st == KS_OK ? ks_profile_new() : NULL;
    if (st == KS_OK && !t)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t k = 0; st == KS_OK && k < p->name_count; k++) {
        uint32_t id;
        st = ks_profile_intern(t, p->names[k], strlen(p->names[k]), &id, err);
    }
    for (size_t i = 0; st == KS_OK && i < p->n; i++) {
        ks_invocation inv;
        ks_invocation_init(&inv);
        inv.name_id = p->name_id[i];
        inv.duration_ns = partner[i] >= 0 ? q->duration_ns[partner[i]] : 0;
        st = ks_profile_append(t, &inv, err);
    }
    free(partner);
    if (st != KS_OK) {
        ks_profile_free(t);
        return st;
    }
    snprintf(t->source_path, sizeof t->source_path, "%s", q->source_path);
    snprintf(t->source_format, sizeof t->source_format, "%s", q->source_format);
    snprintf(t->device_name, sizeof t->device_name, "%s", q->device_name);
    t->launch_total = t->n;
    *out = t;
    return KS_OK;
}
