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

/* The position of line in the set's insertion order, or -1. */
static long set_index(const ks_line_set *s, uint64_t line)
{
    ks_u64_keys k = set_keys(s);
    uint32_t id;
    return ks_hash_get_u64(&s->index, &k, line, &id) ? (long)id : -1;
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
bool ks_warm_global_access(const char *op, bool *write)
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
    uint32_t block; /* the launch's block: which SM's L1 */
    uint8_t mask, write;
} access;

typedef struct walker {
    ks_l2_state *model;  /* NULL: collecting a footprint into set */
    ks_l2_state *l1;     /* per SM, or NULL: no L1 modelled */
    size_t cores;
    ks_l2_state *icache; /* MacSim: code lines kernels share, or NULL */
    uint32_t icache_line;
    uint64_t *code;      /* this launch's code lines, first-run order */
    unsigned char *code_rec; /* per code line a record of it a warm-up kernel
                              * may run (64 bytes; opcode 255: none) */
    size_t ncode, capcode, capcoderec;
    ks_line_set code_seen;
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
    uint32_t tb[3], warp, seq, block;
    uint64_t blocks_in_wave;
} walker;

/* One access: through the L1 of the block's SM when L1s are modelled (a
 * load that hits there never reaches the L2, so it does not refresh the
 * L2's recency; stores write through), then the L2. */
static ks_status touch(walker *w, const access *a, ks_error *err)
{
    if (!w->model)
        return set_add(w->set, a->line, err);
    if (w->l1) {
        ks_l2_state *l1 = &w->l1[a->block % w->cores];
        const ks_l2_line *h = ks_l2_state_find(l1, a->line);
        bool hit = !a->write && h && h->resident && (h->valid & a->mask) == a->mask;
        ks_status st = ks_l2_state_touch(l1, a->line, a->mask, a->write, err);
        if (st != KS_OK || hit)
            return st;
    }
    return ks_l2_state_touch(w->model, a->line, a->mask, a->write, err);
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

/* Linear block index x + y gx + z gx gy (the order GPGPU-Sim and MacSim
 * deal blocks to SMs). */
static uint64_t trace_block_linear_of(const ks_trace_kernel *k, const uint32_t tb[3])
{
    return tb[0] + (uint64_t)k->grid[0] * (tb[1] + (uint64_t)k->grid[1] * tb[2]);
}

static ks_status on_inst(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                         ks_error *err)
{
    walker *w = ctx;
    ks_status st;
    bool new_block = !w->have_pos || memcmp(w->tb, inst->tb, sizeof w->tb) != 0;
    if (new_block) {
        w->block = (uint32_t)trace_block_linear_of(k, inst->tb);
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
    if (inst->mem_width == 0 || inst->naddr == 0 || !ks_warm_global_access(inst->opcode, &write))
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
                a[n++] = (access){line, w->block, 0, write};
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

/* Per-SM L1 models where the geometry names an L1 and the SMs. */
static ks_status l1_init(walker *w, const ks_gpu_geometry *g, ks_error *err)
{
    if (!g->l1_bytes || !g->sms || g->l1_bytes < g->line_bytes)
        return KS_OK;
    size_t lines = g->l1_bytes / g->line_bytes;
    uint32_t ways = g->l1_ways && g->l1_ways <= lines ? g->l1_ways : (uint32_t)lines;
    if (!(w->l1 = calloc(g->sms, sizeof *w->l1)))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    w->cores = g->sms;
    for (size_t c = 0; c < w->cores; c++) {
        ks_status st = ks_l2_state_init(&w->l1[c], lines, lines, ways, g->line_bytes,
                                        g->sector_bytes, err);
        if (st != KS_OK)
            return st;
        w->l1[c].set_index = KS_SET_LINEAR; /* GPGPU-Sim's dl1 and MacSim's L1 */
    }
    return KS_OK;
}

static void l1_clear(walker *w)
{
    for (size_t c = 0; w->l1 && c < w->cores; c++)
        ks_l2_state_clear(&w->l1[c]);
}

static void walker_free(walker *w)
{
    free(w->code);
    free(w->code_rec);
    ks_line_set_free(&w->code_seen);
    for (size_t c = 0; w->l1 && c < w->cores; c++)
        ks_l2_state_free(&w->l1[c]);
    free(w->l1);
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

ks_status ks_state_cut_check(const ks_gpu_geometry *gpu, double cut, ks_error *err)
{
    uint64_t lines = gpu->line_bytes ? gpu->l2_bytes / gpu->line_bytes : 0;
    if (!(cut >= 1) || cut * (double)lines > (double)(UINT32_MAX / 8))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "warm state: --state-cut %g x an L2 of %llu lines (%s) is more "
                            "lines than the model holds (at most %u)",
                            cut, (unsigned long long)lines,
                            gpu->source[0] ? gpu->source : "--l2-size", UINT32_MAX / 8);
    return KS_OK;
}

/* The L2 model of a walk: cut x the L2's lines held, in the configuration's
 * sets and ways. */
static ks_status model_init(ks_l2_state *model, const ks_state_walk_options *opt, ks_error *err)
{
    uint64_t lines = opt->gpu.l2_bytes / opt->gpu.line_bytes;
    double keep = opt->cut * (double)lines;
    ks_status st = ks_state_cut_check(&opt->gpu, opt->cut, err);
    if (st == KS_OK)
        st = ks_l2_state_init(model, (size_t)lines, (size_t)keep,
                              opt->gpu.ways ? opt->gpu.ways : 16, opt->gpu.line_bytes,
                              opt->gpu.sector_bytes, err);
    if (st == KS_OK) {
        model->set_index = opt->gpu.l2_set_index;
        model->tiles = opt->gpu.l2_tiles;
    }
    return st;
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
    if (st == KS_OK)
        st = model_init(&model, opt, err);
    if (st != KS_OK) {
        ks_trace_set_free(set);
        return st;
    }
    walker w = {.model = &model, .line_bytes = opt->gpu.line_bytes,
                .sector_bytes = opt->gpu.sector_bytes};
    st = l1_init(&w, &opt->gpu, err);
    size_t next = 0, events = ks_trace_set_event_count(set);
    /* launches the tracer numbered but did not record (their "-kernel id"s
     * skip them): the model is aged there, and a sampled launch whose
     * state the launches since do not fill to the cut is short */
    uint64_t prev_id = 0, missing = 0;
    bool gap = false;
    for (size_t e = 0; e < events && next < count && st == KS_OK; e++) {
        const ks_trace_event *ev = ks_trace_set_event(set, e);
        if (!ev->is_kernel) {
            uint64_t addr, bytes;
            if (opt->with_memcpy && parse_memcpy(ev->text, &addr, &bytes))
                st = ks_l2_state_touch_range(&model, addr, bytes, false, err);
            continue;
        }
        uint64_t kid = ks_trace_set_kernel(set, ev->kernel)->kernel_id;
        if (kid && kid > prev_id + 1 && (prev_id || ev->kernel == 0)) {
            ks_l2_state_age(&model);
            gap = true;
            missing = kid - 1;
        }
        prev_id = kid;
        if (ev->kernel == sampled[next]) {
            ks_line_set fp = {0};
            if (opt->footprint) {
                walker f = {.set = &fp, .line_bytes = opt->gpu.line_bytes,
                            .sector_bytes = opt->gpu.sector_bytes};
                st = walk_launch(&f, set, ev->kernel, err);
                walker_free(&f);
            }
            ks_state_view view = {&model, opt->gpu.l1_persists ? w.l1 : NULL, w.cores,
                                  opt->footprint ? &fp : NULL, NULL, NULL, 0, 0, 0, 0};
            if (gap && model.fresh < model.keep) {
                view.short_lines = model.keep - model.fresh;
                view.missing_launch = missing;
            }
            if (st == KS_OK)
                st = fn(ctx, ev->kernel, &view, err);
            ks_line_set_free(&fp);
            next++;
            if (next == count || st != KS_OK)
                break;
        }
        w.blocks_per_wave = wave_blocks(&opt->gpu, ks_trace_set_kernel(set, ev->kernel));
        st = walk_launch(&w, set, ev->kernel, err);
        if (!opt->gpu.l1_persists)
            l1_clear(&w);
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

/* Whether a warm-up kernel may run this record of the sampled launch as
 * it is (its address aside): an ALU operation, or a global load or store
 * (MacSim decodes a PC once per process and keeps what it decoded, so a
 * warm-up record at the launch's PC must be the launch's own instruction).
 * Not control flow, barriers, other memory spaces, uncoalesced children. */
static bool runnable_record(const unsigned char *r)
{
    int op = r[0];
    bool child = r[1] != 0 && (op == MACSIM_LD || op == MACSIM_LDG || op == MACSIM_ST ||
                               op == MACSIM_STG);
    if (r[3] != 0 || child)
        return false;
    if (op == MACSIM_LD || op == MACSIM_LDG || op == MACSIM_ST || op == MACSIM_STG)
        return true;
    /* the ALU, conversion and move operations come before the memory ones
     * in MacSim's enum; LD (71) and after are memory, uniform, texture,
     * control and barrier operations */
    return op < MACSIM_LD && r[2] == 0;
}

/* A code line of the launch, the first time it runs (MacSim's I-cache),
 * with a record a warm-up kernel may run there. */
static ks_status note_code(walker *w, const unsigned char *r, ks_error *err)
{
    if (!w->icache_line)
        return KS_OK;
    uint64_t line = le64_at(r + 32) / w->icache_line;
    long at = w->ncode && w->code[w->ncode - 1] == line ? (long)w->ncode - 1
                                                         : set_index(&w->code_seen, line);
    ks_status st = KS_OK;
    if (at < 0) {
        if ((st = set_add(&w->code_seen, line, err)) == KS_OK &&
            (st = ks_grow((void **)&w->code, &w->capcode, w->ncode + 1, sizeof *w->code,
                          err)) == KS_OK &&
            (st = ks_grow((void **)&w->code_rec, &w->capcoderec, (w->ncode + 1) * 64, 1,
                          err)) == KS_OK) {
            at = (long)w->ncode;
            w->code[w->ncode++] = line;
            w->code_rec[at * 64] = 255;
        }
    }
    if (st == KS_OK && w->code_rec[at * 64] == 255 && runnable_record(r))
        memcpy(w->code_rec + at * 64, r, 64);
    return st;
}

static ks_status macsim_record(void *ctx, const unsigned char *r, ks_error *err)
{
    macsim_warp_ctx *c = ctx;
    walker *w = c->w;
    int op = r[0];
    ks_status cst = note_code(w, r, err);
    if (cst != KS_OK)
        return cst;
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
        w->acc[w->nacc++] = (access){line, w->block, 1, write};
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
    w->ncode = 0;
    ks_line_set_free(&w->code_seen);
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
        w->block = (uint32_t)block;
        st = ks_macsim_set_records(set, i, l->warp_ids[k], macsim_record, &c, err);
    }
    if (st == KS_OK)
        st = flush_wave(w, err);
    /* the launch's code through the I-cache, in the order it first ran */
    for (size_t k = 0; w->icache && k < w->ncode && st == KS_OK; k++)
        st = ks_l2_state_touch(w->icache, w->code[k], 1, false, err);
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
    ks_l2_state model;
    if (st == KS_OK)
        st = model_init(&model, opt, err);
    if (st != KS_OK) {
        ks_macsim_set_free(set);
        return st;
    }
    walker w = {.model = &model, .line_bytes = opt->gpu.line_bytes,
                .sector_bytes = opt->gpu.sector_bytes};
    st = l1_init(&w, &opt->gpu, err);
    ks_l2_state icache;
    const ks_gpu_geometry *g = &opt->gpu;
    bool with_icache = st == KS_OK && g->icache_bytes >= g->icache_line && g->icache_line;
    if (with_icache) {
        size_t ilines = g->icache_bytes / g->icache_line;
        st = ks_l2_state_init(&icache, ilines, ilines, g->icache_ways ? g->icache_ways : 8,
                              g->icache_line, g->icache_line, err);
        if (st == KS_OK)
            icache.set_index = KS_SET_LINEAR;
        w.icache = st == KS_OK ? &icache : NULL;
        w.icache_line = g->icache_line;
    }
    uint64_t *held_code = NULL;
    unsigned char *held_rec = NULL;
    size_t held_cap = 0, held_rec_cap = 0;
    size_t next = 0;
    /* folders Kernel<N> whose numbers skip launches the tracer numbered:
     * the model is aged there, as for Accel-Sim folders */
    uint64_t prev_n = UINT64_MAX, missing = 0;
    bool gap = false;
    for (size_t i = 0; i < launches && next < count && st == KS_OK; i++) {
        const ks_macsim_launch *l = ks_macsim_set_launch(set, i);
        uint64_t num = ks_macsim_folder_number(l->folder);
        if (num != UINT64_MAX &&
            ((prev_n == UINT64_MAX && i == 0 && num > 0) ||
             (prev_n != UINT64_MAX && num > prev_n + 1))) {
            ks_l2_state_age(&model);
            gap = true;
            missing = num; /* MacSim numbers from 0: the 1-based number of the last missing */
        }
        prev_n = num;
        uint64_t per_core = l->max_blocks ? l->max_blocks : 1;
        uint64_t wave = opt->gpu.sms ? per_core * opt->gpu.sms : 0;
        if (i == sampled[next]) {
            ks_line_set fp = {0};
            size_t held = 0;
            if (opt->footprint || w.icache) {
                walker f = {.set = &fp, .line_bytes = opt->gpu.line_bytes,
                            .sector_bytes = opt->gpu.sector_bytes, .icache_line = w.icache_line};
                st = macsim_walk_launch(&f, set, i, 0, err);
                /* its code lines the I-cache still holds, in run order */
                for (size_t k = 0; w.icache && st == KS_OK && k < f.ncode; k++) {
                    const ks_l2_line *h = ks_l2_state_find(w.icache, f.code[k]);
                    if (!h || !h->resident)
                        continue;
                    if ((st = ks_grow((void **)&held_code, &held_cap, held + 1,
                                      sizeof *held_code, err)) == KS_OK &&
                        (st = ks_grow((void **)&held_rec, &held_rec_cap, (held + 1) * 64, 1,
                                      err)) == KS_OK) {
                        memcpy(held_rec + held * 64, f.code_rec + k * 64, 64);
                        held_code[held++] = f.code[k];
                    }
                }
                walker_free(&f);
            }
            ks_state_view view = {&model, opt->gpu.l1_persists ? w.l1 : NULL, w.cores,
                                  opt->footprint ? &fp : NULL, held_code, held_rec, held,
                                  w.icache_line, 0, 0};
            if (gap && model.fresh < model.keep) {
                view.short_lines = model.keep - model.fresh;
                view.missing_launch = missing;
            }
            if (st == KS_OK)
                st = fn(ctx, i, &view, err);
            ks_line_set_free(&fp);
            if (++next == count || st != KS_OK)
                break;
        }
        st = macsim_walk_launch(&w, set, i, wave, err);
        if (!opt->gpu.l1_persists)
            l1_clear(&w);
    }
    walker_free(&w);
    if (with_icache)
        ks_l2_state_free(&icache);
    free(held_code);
    free(held_rec);
    ks_l2_state_free(&model);
    ks_macsim_set_free(set);
    return st;
}
