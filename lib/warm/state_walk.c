/*
 * state_walk.c - the warm state of every sampled launch in one pass over a
 * trace folder (warm.h).
 *
 * The folder's events are taken in program order: each launch's global
 * memory accesses enter the cache model (l2_state.c), and so do the
 * program's MemcpyHtoD lines when the simulator build replays them into L2
 * (with_memcpy).  At each sampled launch the callback gets the model as the
 * launch would find it, before its own accesses enter.
 *
 * The order of accesses inside a launch.  A trace lists a launch block by
 * block and, in a block, warp by warp; the GPU runs many blocks at once and
 * their warps issue in rough lockstep.  Once a launch's footprint nears the
 * L2's size, the order decides which lines are still there at its end
 * (block after block left an spmv launch 7 % fast on the RTX 3070, where
 * lockstep gave +0.4 %: docs/bench.md).  So a launch is taken in waves of
 * the blocks the GPU holds at once (SMs x blocks per SM, from the
 * simulator's configuration; the whole launch when that is unknown), and in
 * a wave, the k-th memory instruction of every warp before any warp's
 * (k+1)-th, blocks and warps in trace order: a counting sort of the wave's
 * memory instructions by their index in their warp, stable, so O(accesses).
 * Raw traces (lines interleaved as the tracer saw them run) are taken as
 * they are.
 *
 * What counts as a global access: LDG, STG, LDGSTS, ATOMG, ATOM, RED and
 * generic LD/ST (addresses outside the shared and local windows are global
 * in the programs we have seen); writes are STG, ST, ATOM*, RED.  Shared
 * (LDS, STS, ATOMS), local (LDL, STL) and constant (LDC) accesses never
 * reach the L2 state that crosses a kernel boundary in the tested configs,
 * or do so only through spills, which are left out.
 *
 * Memory: the model (keep lines) and one wave's accesses, at most about
 * WAVE_ACCESSES of them (a wave is cut early at a block boundary past
 * that), whatever the folder's size.
 */
#include "hash.h"
#include "trace.h"
#include "warm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WAVE_ACCESSES (4u << 20)

/* ------------------------------------------------------------ line sets */

static ks_u64_keys set_keys(const ks_line_set *s)
{
    return (ks_u64_keys){s->lines, sizeof *s->lines, 0};
}

void ks_line_set_free(ks_line_set *s)
{
    free(s->lines);
    ks_hash_free(&s->index);
    memset(s, 0, sizeof *s);
}

bool ks_line_set_has(const ks_line_set *s, uint64_t line)
{
    ks_u64_keys k = set_keys(s);
    uint32_t id;
    return ks_hash_get_u64(&s->index, &k, line, &id);
}

static ks_status set_add(ks_line_set *s, uint64_t line, ks_error *err)
{
    if (s->count >= UINT32_MAX - 2)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "too many lines");
    ks_u64_keys k = set_keys(s);
    bool found;
    uint32_t id;
    size_t slot;
    ks_status st = ks_hash_find_u64(&s->index, &k, s->count, line, &found, &id, &slot, err);
    if (st != KS_OK || found)
        return st;
    if ((st = ks_grow((void **)&s->lines, &s->capacity, s->count + 1, sizeof *s->lines, err)) !=
        KS_OK)
        return st;
    s->lines[s->count] = line;
    ks_hash_put(&s->index, slot, (uint32_t)s->count++);
    return KS_OK;
}

/* ------------------------------------------------------- what is global */

static bool starts(const char *op, const char *word)
{
    size_t n = strlen(word);
    return strncmp(op, word, n) == 0 && (op[n] == '\0' || op[n] == '.');
}

/* Whether opcode reaches global memory, and whether it writes. */
static bool global_access(const char *op, bool *write)
{
    *write = false;
    if (starts(op, "LDG") || starts(op, "LDGSTS") || starts(op, "LD"))
        return true;
    if (starts(op, "STG") || starts(op, "ST") || starts(op, "ATOMG") || starts(op, "ATOM") ||
        starts(op, "RED")) {
        *write = true;
        return true;
    }
    return false;
}

/* ----------------------------------------------------------- the walker */

typedef struct mem_rec {
    uint32_t seq;   /* index of this memory instruction in its warp */
    uint32_t first; /* into acc */
    uint32_t n;
} mem_rec;

typedef struct access {
    uint64_t line;
    uint8_t mask, write;
} access;

typedef struct walker {
    ks_l2_state *model;  /* NULL: collecting a footprint into set */
    ks_line_set *set;
    uint32_t line_bytes, sector_bytes;
    uint64_t blocks_per_wave; /* 0: the whole launch */
    bool grouped;

    mem_rec *recs, *sorted;
    size_t nrec, caprec, capsorted;
    access *acc;
    size_t nacc, capacc;
    size_t *bucket;
    size_t capbucket;
    uint32_t max_seq;

    bool have_pos, cut_wave;
    uint32_t tb[3], warp, seq;
    uint64_t blocks_in_wave;
} walker;

static ks_status touch(walker *w, const access *a, ks_error *err)
{
    if (w->model)
        return ks_l2_state_touch(w->model, a->line, a->mask, a->write, err);
    return set_add(w->set, a->line, err);
}

/* The wave's accesses into the model, k-th memory instruction of every warp
 * before any (k+1)-th. */
static ks_status flush_wave(walker *w, ks_error *err)
{
    ks_status st = KS_OK;
    if (w->nrec == 0)
        return KS_OK;
    if (!w->grouped) {
        for (size_t i = 0; i < w->nacc && st == KS_OK; i++)
            st = touch(w, &w->acc[i], err);
    } else {
        size_t buckets = (size_t)w->max_seq + 2;
        if ((st = ks_grow((void **)&w->bucket, &w->capbucket, buckets, sizeof *w->bucket,
                          err)) != KS_OK ||
            (st = ks_grow((void **)&w->sorted, &w->capsorted, w->nrec, sizeof *w->sorted,
                          err)) != KS_OK)
            return st;
        memset(w->bucket, 0, buckets * sizeof *w->bucket);
        for (size_t i = 0; i < w->nrec; i++)
            w->bucket[w->recs[i].seq + 1]++;
        for (size_t b = 1; b < buckets; b++)
            w->bucket[b] += w->bucket[b - 1];
        for (size_t i = 0; i < w->nrec; i++)
            w->sorted[w->bucket[w->recs[i].seq]++] = w->recs[i];
        for (size_t i = 0; i < w->nrec && st == KS_OK; i++)
            for (uint32_t j = 0; j < w->sorted[i].n && st == KS_OK; j++)
                st = touch(w, &w->acc[w->sorted[i].first + j], err);
    }
    w->nrec = w->nacc = 0;
    w->max_seq = 0;
    w->blocks_in_wave = 0;
    w->cut_wave = false;
    return st;
}

static ks_status on_inst(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                         ks_error *err)
{
    (void)k;
    walker *w = ctx;
    ks_status st;
    bool new_block = !w->have_pos || memcmp(w->tb, inst->tb, sizeof w->tb) != 0;
    if (new_block) {
        if (w->grouped && w->have_pos &&
            (w->cut_wave || (w->blocks_per_wave && w->blocks_in_wave >= w->blocks_per_wave)) &&
            (st = flush_wave(w, err)) != KS_OK)
            return st;
        w->blocks_in_wave++;
    }
    if (new_block || inst->warp != w->warp)
        w->seq = 0;
    memcpy(w->tb, inst->tb, sizeof w->tb);
    w->warp = inst->warp;
    w->have_pos = true;

    bool write;
    if (inst->mem_width == 0 || inst->naddr == 0 || !global_access(inst->opcode, &write))
        return KS_OK;
    /* the instruction's lines, in lane order, each with its sectors */
    access a[64];
    uint32_t n = 0;
    for (uint32_t l = 0; l < inst->naddr; l++) {
        uint64_t lo = inst->addr[l], hi = lo + inst->mem_width - 1;
        if (hi < lo)
            hi = UINT64_MAX;
        for (uint64_t line = lo / w->line_bytes; line <= hi / w->line_bytes; line++) {
            uint64_t base = line * w->line_bytes;
            uint64_t s0 = (lo > base ? lo - base : 0) / w->sector_bytes;
            uint64_t s1 = ((hi < base + w->line_bytes - 1 ? hi : base + w->line_bytes - 1) -
                           base) / w->sector_bytes;
            unsigned mask = 0;
            for (uint64_t s = s0; s <= s1; s++)
                mask |= 1u << s;
            uint32_t j = 0;
            while (j < n && a[j].line != line)
                j++;
            if (j == n) {
                if (n == 64)
                    break; /* wider than any warp access */
                a[n++] = (access){line, 0, write};
            }
            a[j].mask |= (uint8_t)mask;
            if (line == UINT64_MAX / w->line_bytes)
                break;
        }
    }
    if (w->nacc + n >= UINT32_MAX)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "too many accesses in one wave");
    if ((st = ks_grow((void **)&w->acc, &w->capacc, w->nacc + n, sizeof *w->acc, err)) !=
            KS_OK ||
        (st = ks_grow((void **)&w->recs, &w->caprec, w->nrec + 1, sizeof *w->recs, err)) !=
            KS_OK)
        return st;
    memcpy(w->acc + w->nacc, a, n * sizeof *a);
    w->recs[w->nrec++] = (mem_rec){w->seq, (uint32_t)w->nacc, n};
    if (w->seq > w->max_seq)
        w->max_seq = w->seq;
    w->seq++;
    w->nacc += n;
    if (w->nacc >= WAVE_ACCESSES)
        w->cut_wave = true; /* at the next block */
    return KS_OK;
}

static ks_status walk_launch(walker *w, ks_trace_set *set, size_t i, ks_error *err)
{
    w->grouped = ks_trace_set_grouped(set, i);
    w->have_pos = false;
    w->blocks_in_wave = 0;
    ks_status st = ks_trace_set_stream(set, i, NULL, on_inst, w, err);
    if (st == KS_OK)
        st = flush_wave(w, err);
    w->nrec = w->nacc = 0;
    return st;
}

static void walker_free(walker *w)
{
    free(w->recs);
    free(w->sorted);
    free(w->acc);
    free(w->bucket);
}

/* Blocks the GPU holds at once for a launch of `threads` threads a block. */
static uint64_t wave_blocks(const ks_gpu_geometry *g, const ks_trace_kernel *k)
{
    if (!g->sms)
        return 0;
    uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
    uint64_t per_sm = g->max_cta_per_sm ? g->max_cta_per_sm : 32;
    if (g->max_threads_per_sm && threads) {
        uint64_t by_threads = g->max_threads_per_sm / threads;
        if (by_threads < per_sm)
            per_sm = by_threads;
    }
    if (per_sm == 0)
        per_sm = 1;
    return per_sm * g->sms;
}

/* "MemcpyHtoD,0x<addr>,<bytes>" */
static bool parse_memcpy(const char *text, uint64_t *addr, uint64_t *bytes)
{
    const char *p = strchr(text, ',');
    if (!p || strncmp(text, "MemcpyHtoD", 10) != 0)
        return false;
    char *end;
    errno = 0;
    unsigned long long a = strtoull(p + 1, &end, 16);
    if (errno || *end != ',')
        return false;
    const char *q = end + 1;
    if (*q < '0' || *q > '9')
        return false;
    unsigned long long b = strtoull(q, &end, 10);
    if (errno || (*end && *end != '\r' && *end != ' '))
        return false;
    *addr = a;
    *bytes = b;
    return true;
}

static ks_status walk_accelsim(const char *traces, const size_t *sampled, size_t count,
                               const ks_state_walk_options *opt, ks_state_fn fn, void *ctx,
                               ks_error *err)
{
    ks_trace_set *set;
    ks_status st = ks_trace_set_open(traces, &set, err);
    if (st != KS_OK)
        return st;
    size_t kernels = ks_trace_set_kernel_count(set);
    if (count && sampled[count - 1] >= kernels) {
        ks_trace_set_free(set);
        return ks_error_set(err, KS_ERR_USAGE, traces, 0,
                            "launch %zu is sampled but the trace folder has %zu launches",
                            sampled[count - 1] + 1, kernels);
    }
    ks_l2_state model;
    uint64_t lines = opt->gpu.l2_bytes / opt->gpu.line_bytes;
    double keep = opt->cut * (double)lines;
    if (!(opt->cut >= 1) || keep > (double)(UINT32_MAX / 8))
        st = ks_error_set(err, KS_ERR_USAGE, NULL, 0, "warm state: cut %g of %llu lines", opt->cut,
                          (unsigned long long)lines);
    if (st == KS_OK)
        st = ks_l2_state_init(&model, (size_t)lines, (size_t)keep,
                              opt->gpu.ways ? opt->gpu.ways : 16, opt->gpu.line_bytes,
                              opt->gpu.sector_bytes, err);
    if (st != KS_OK) {
        ks_trace_set_free(set);
        return st;
    }
    walker w = {.model = &model, .line_bytes = opt->gpu.line_bytes,
                .sector_bytes = opt->gpu.sector_bytes};
    size_t next = 0, events = ks_trace_set_event_count(set);
    for (size_t e = 0; e < events && next < count && st == KS_OK; e++) {
        const ks_trace_event *ev = ks_trace_set_event(set, e);
        if (!ev->is_kernel) {
            uint64_t addr, bytes;
            if (opt->with_memcpy && parse_memcpy(ev->text, &addr, &bytes))
                st = ks_l2_state_touch_range(&model, addr, bytes, false, err);
            continue;
        }
        if (ev->kernel == sampled[next]) {
            ks_line_set fp = {0};
            if (opt->footprint) {
                walker f = {.set = &fp, .line_bytes = opt->gpu.line_bytes,
                            .sector_bytes = opt->gpu.sector_bytes};
                st = walk_launch(&f, set, ev->kernel, err);
                walker_free(&f);
            }
            if (st == KS_OK)
                st = fn(ctx, ev->kernel, &model, opt->footprint ? &fp : NULL, err);
            ks_line_set_free(&fp);
            next++;
            if (next == count || st != KS_OK)
                break;
        }
        w.blocks_per_wave = wave_blocks(&opt->gpu, ks_trace_set_kernel(set, ev->kernel));
        st = walk_launch(&w, set, ev->kernel, err);
    }
    walker_free(&w);
    ks_l2_state_free(&model);
    ks_trace_set_free(set);
    return st;
}

ks_status ks_state_walk(const char *traces, const size_t *sampled, size_t count,
                        const ks_state_walk_options *opt, ks_state_fn fn, void *ctx,
                        ks_error *err)
{
    for (size_t i = 1; i < count; i++)
        if (sampled[i] <= sampled[i - 1])
            return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "sampled launches not ascending");
    if (opt->gpu.l2_bytes < opt->gpu.line_bytes || opt->gpu.line_bytes == 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "warm state: an L2 of %llu bytes",
                            (unsigned long long)opt->gpu.l2_bytes);
    if (ks_macsim_dir_detect(traces))
        return ks_state_walk_macsim(traces, sampled, count, opt, fn, ctx, err);
    return walk_accelsim(traces, sampled, count, opt, fn, ctx, err);
}

/* ------------------------------------------------------ MacSim folders */

/* MacSim's NVBit opcodes (its trace_read.h enum, checked against the
 * bundled vectormultadd traces: LDG 73, STG 78, EXIT 139). */
enum {
    MACSIM_LD = 71, MACSIM_LDG = 73, MACSIM_ST = 77, MACSIM_STG = 78, MACSIM_ATOM = 83,
    MACSIM_ATOMG = 85, MACSIM_RED = 86
};

typedef struct macsim_warp_ctx {
    walker *w;
    int last_opcode; /* of the latest memory record: children repeat it */
    bool open;       /* a memory instruction is open (children may follow) */
} macsim_warp_ctx;

static uint64_t le64_at(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static ks_status macsim_record(void *ctx, const unsigned char *r, ks_error *err)
{
    macsim_warp_ctx *c = ctx;
    walker *w = c->w;
    int op = r[0];
    bool is_fp = r[1] != 0;
    bool write = op == MACSIM_ST || op == MACSIM_STG || op == MACSIM_ATOM ||
                 op == MACSIM_ATOMG || op == MACSIM_RED;
    bool global = write || op == MACSIM_LD || op == MACSIM_LDG;
    uint64_t addr = le64_at(r + 48);
    unsigned size = r[56];
    /* a child record (an uncoalesced part of the instruction before it)
     * has that instruction's opcode and is_fp set */
    bool child = c->open && is_fp && op == c->last_opcode;
    if (!child)
        c->open = false;
    if (!global || size == 0 || addr == 0)
        return KS_OK;
    ks_status st;
    if (!child) {
        if ((st = ks_grow((void **)&w->recs, &w->caprec, w->nrec + 1, sizeof *w->recs, err)) !=
            KS_OK)
            return st;
        w->recs[w->nrec++] = (mem_rec){w->seq, (uint32_t)w->nacc, 0};
        if (w->seq > w->max_seq)
            w->max_seq = w->seq;
        w->seq++;
        c->open = true;
        c->last_opcode = op;
    }
    uint64_t lo = addr, hi = addr + size - 1;
    if (hi < lo)
        hi = UINT64_MAX;
    for (uint64_t line = lo / w->line_bytes; line <= hi / w->line_bytes; line++) {
        if ((st = ks_grow((void **)&w->acc, &w->capacc, w->nacc + 1, sizeof *w->acc, err)) !=
            KS_OK)
            return st;
        w->acc[w->nacc++] = (access){line, 1, write};
        w->recs[w->nrec - 1].n++;
        if (line == UINT64_MAX / w->line_bytes)
            break;
    }
    return KS_OK;
}

static ks_status macsim_walk_launch(walker *w, ks_macsim_set *set, size_t i,
                                    uint64_t blocks_per_wave, ks_error *err)
{
    const ks_macsim_launch *l = ks_macsim_set_launch(set, i);
    w->grouped = true;
    w->nrec = w->nacc = 0;
    w->max_seq = 0;
    ks_status st = KS_OK;
    uint64_t last_block = UINT64_MAX, in_wave = 0;
    for (uint64_t k = 0; k < l->warps && st == KS_OK; k++) {
        uint64_t block = l->warp_ids[k] >> 16;
        if (block != last_block) {
            if (blocks_per_wave && in_wave >= blocks_per_wave &&
                (st = flush_wave(w, err)) != KS_OK)
                break;
            last_block = block;
            in_wave++;
        }
        macsim_warp_ctx c = {w, -1, false};
        w->seq = 0;
        st = ks_macsim_set_records(set, i, l->warp_ids[k], macsim_record, &c, err);
    }
    if (st == KS_OK)
        st = flush_wave(w, err);
    return st;
}

ks_status ks_state_walk_macsim(const char *traces, const size_t *sampled, size_t count,
                               const ks_state_walk_options *opt, ks_state_fn fn, void *ctx,
                               ks_error *err)
{
    ks_macsim_set *set;
    ks_status st = ks_macsim_set_open(traces, &set, err);
    if (st != KS_OK)
        return st;
    size_t launches = ks_macsim_set_count(set);
    if (count && sampled[count - 1] >= launches) {
        ks_macsim_set_free(set);
        return ks_error_set(err, KS_ERR_USAGE, traces, 0,
                            "launch %zu is sampled but the trace folder has %zu launches",
                            sampled[count - 1] + 1, launches);
    }
    uint64_t lines = opt->gpu.l2_bytes / opt->gpu.line_bytes;
    double keep = opt->cut * (double)lines;
    ks_l2_state model;
    if (!(opt->cut >= 1) || keep > (double)(UINT32_MAX / 8))
        st = ks_error_set(err, KS_ERR_USAGE, NULL, 0, "warm state: cut %g of %llu lines", opt->cut,
                          (unsigned long long)lines);
    if (st == KS_OK)
        st = ks_l2_state_init(&model, (size_t)lines, (size_t)keep,
                              opt->gpu.ways ? opt->gpu.ways : 16, opt->gpu.line_bytes,
                              opt->gpu.sector_bytes, err);
    if (st != KS_OK) {
        ks_macsim_set_free(set);
        return st;
    }
    walker w = {.model = &model, .line_bytes = opt->gpu.line_bytes,
                .sector_bytes = opt->gpu.sector_bytes};
    size_t next = 0;
    for (size_t i = 0; i < launches && next < count && st == KS_OK; i++) {
        const ks_macsim_launch *l = ks_macsim_set_launch(set, i);
        uint64_t per_core = l->max_blocks ? l->max_blocks : 1;
        uint64_t wave = opt->gpu.sms ? per_core * opt->gpu.sms : 0;
        if (i == sampled[next]) {
            ks_line_set fp = {0};
            if (opt->footprint) {
                walker f = {.set = &fp, .line_bytes = opt->gpu.line_bytes,
                            .sector_bytes = opt->gpu.sector_bytes};
                st = macsim_walk_launch(&f, set, i, 0, err);
                walker_free(&f);
            }
            if (st == KS_OK)
                st = fn(ctx, i, &model, opt->footprint ? &fp : NULL, err);
            ks_line_set_free(&fp);
            if (++next == count || st != KS_OK)
                break;
        }
        st = macsim_walk_launch(&w, set, i, wave, err);
    }
    walker_free(&w);
    ks_l2_state_free(&model);
    ks_macsim_set_free(set);
    return st;
}
