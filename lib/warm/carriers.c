/*
 * carriers.c - the rebuilt state in a form a simulator takes (warm.h).
 *
 * Both write the held lines oldest first (the order of last use, which is
 * what leaves an LRU cache as the history left it), each line's valid
 * sectors once: GPGPU-Sim's force_tag_access does not refresh the LRU time
 * of a sector already valid, so a line given twice would keep its first
 * (older) place.
 *
 * MemcpyHtoD lines (Accel-Sim's kernelslist.g): "MemcpyHtoD,0x<hex>,<decimal
 * bytes>", exactly three fields, 32-byte aligned ranges, all before the
 * sampled kernel's line (they are applied when the list is parsed).  With
 * -gpgpu_perf_sim_memcpy 1 each 32-byte sector of the range is filled into
 * the L2 tags in order, at no simulated cycle.  Runs of valid sectors that
 * continue one another (in emission order) become one line.
 *
 * The Accel-Sim warm-up kernel: a trace (the folder's tracer version and
 * binary version) of W warps in blocks of 4 warps, whose instructions are
 * loads of one 32-byte sector per active lane (LDG.E, 4 bytes a lane,
 * address mode 0: one address per lane), 32 sectors an instruction, in
 * recency order, dealt round-robin: chunk c is warp c mod W's instruction
 * c / W, so that warps issuing in lockstep touch the lines in about the
 * order given; a line last written gets a full-sector store (STG.E.128, two
 * lanes of 16 bytes a sector) after its load, so the simulator holds it
 * dirty.  Its statistics are discarded like any warm-up launch's.
 */
#include "warm.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* The next held line to write: every one, or with `only`, those in it that
 * the model holds resident.  A line the model's sets evicted is, with about
 * the same odds, gone from the simulator's L2 too (the model's sets are the
 * simulator's own for MacSim's linear and banked indexes; an XOR fold for
 * GPGPU-Sim's hashed L2); loading it alone, with nothing newer beside it to
 * push it out, would keep it where the full run had lost it.  (Keeping each
 * such line with its probability of surviving an evenly spread mapping
 * given the lines used after it did no better on the RTX 3070: docs/bench.md.) */
static const ks_l2_line *next_kept(const ks_l2_state *s, const ks_line_set *only,
                                   uint32_t *cursor, size_t *position)
{
    const ks_l2_line *l;
    while ((l = ks_l2_state_next(s, cursor))) {
        size_t at = (*position)++;
        if (only && only->by_position) {
            if (at >= only->from && at < only->to &&
                (!only->marks || (only->marks[at] & only->mark)))
                break;
            if (at >= only->to)
                return NULL;
            continue;
        }
        if (!only || (l->resident && ((only->and_dirty && l->dirty) ||
                                      ks_line_set_has(only, l->line))))
            break;
    }
    return l;
}

ks_status ks_state_write_memcpy(FILE *f, const ks_l2_state *s, const ks_line_set *only,
                                size_t *lines_out, ks_error *err)
{
    return ks_state_write_memcpy32(f, s, only, NULL, lines_out, err);
}

ks_status ks_state_write_memcpy32(FILE *f, const ks_l2_state *s, const ks_line_set *only,
                                  const ks_remap *remap, size_t *lines_out, ks_error *err)
{
    uint32_t cursor = UINT32_MAX;
    size_t position = 0;
    const ks_l2_line *l;
    uint64_t start = 0, end = 0; /* the pending range [start, end) */
    size_t lines = 0;
    while ((l = next_kept(s, only, &cursor, &position))) {
        if (!l->valid)
            continue;
        lines++;
        uint64_t base = l->line * s->line_bytes;
        if (remap)
            base = ks_remap_apply(remap, base);
        for (uint32_t k = 0; k < s->sectors_per_line;) {
            if (!(l->valid >> k & 1)) {
                k++;
                continue;
            }
            uint32_t j = k;
            while (j < s->sectors_per_line && (l->valid >> j & 1))
                j++;
            uint64_t a = base + (uint64_t)k * s->sector_bytes,
                     b = base + (uint64_t)j * s->sector_bytes;
            if (end != a || end == start) {
                if (end != start)
                    fprintf(f, "MemcpyHtoD,0x%016llx,%llu\n", (unsigned long long)start,
                            (unsigned long long)(end - start));
                start = a;
            }
            end = b;
            k = j;
        }
    }
    if (end != start)
        fprintf(f, "MemcpyHtoD,0x%016llx,%llu\n", (unsigned long long)start,
                (unsigned long long)(end - start));
    if (lines_out)
        *lines_out = lines;
    return ks_write_status(f, err);
}

/* ------------------------------------------------ Accel-Sim warm-up kernel */

#define LANES 32
#define WARPS_PER_BLOCK 4

/* One instruction of a warp: up to 32 sectors, which of them to store. */
typedef struct chunk {
    uint64_t sector[LANES];
    uint32_t count, dirty; /* dirty: bit k for sector[k] */
} chunk;

/* The chunks in recency order, all of them (the warp layout needs their
 * count first): two passes over the state, the first counting. */
static size_t count_chunks(const ks_l2_state *s, const ks_line_set *only, bool dirty_only,
                           size_t *lines)
{
    uint32_t cursor = UINT32_MAX;
    size_t position = 0;
    const ks_l2_line *l;
    size_t sectors = 0;
    *lines = 0;
    while ((l = next_kept(s, only, &cursor, &position))) {
        if (!l->valid)
            continue;
        if (dirty_only && !(l->valid & l->dirty))
            continue;
        (*lines)++;
        sectors += (size_t)__builtin_popcount(dirty_only ? l->valid & l->dirty : l->valid);
    }
    return (sectors + LANES - 1) / LANES;
}

typedef struct chunk_reader {
    const ks_l2_state *s;
    const ks_line_set *only;
    uint32_t cursor;
    size_t position;
    const ks_l2_line *line; /* the line being dealt, and its next sector */
    uint32_t sector;
    bool dirty_only;        /* only the dirty sectors (the store kernel) */
    const ks_remap *remap;  /* addresses remapped (NULL: as they are) */
} chunk_reader;

static bool read_chunk(chunk_reader *r, chunk *c)
{
    c->count = c->dirty = 0;
    while (c->count < LANES) {
        if (!r->line || r->sector >= r->s->sectors_per_line) {
            r->line = next_kept(r->s, r->only, &r->cursor, &r->position);
            r->sector = 0;
            if (!r->line)
                break;
            continue;
        }
        uint32_t k = r->sector++;
        if (!(r->line->valid >> k & 1) || (r->dirty_only && !(r->line->dirty >> k & 1)))
            continue;
        if (r->line->dirty >> k & 1)
            c->dirty |= 1u << c->count;
        uint64_t base = r->line->line * r->s->line_bytes;
        if (r->remap)
            base = ks_remap_apply(r->remap, base);
        c->sector[c->count++] = base + (uint64_t)k * r->s->sector_bytes;
    }
    return c->count > 0;
}

static void put_mask_and_head(FILE *f, uint64_t pc, uint32_t mask, bool load)
{
    if (load)
        fprintf(f, "%04llx %08x 1 R4 LDG.E 1 R2 ", (unsigned long long)pc, mask);
    else
        fprintf(f, "%04llx %08x 0 STG.E.128 2 R2 R4 ", (unsigned long long)pc, mask);
}

ks_status ks_state_write_accelsim_kernel(FILE *f, const ks_l2_state *s, const ks_line_set *only,
                                         const ks_warm_kernel_shape *shape, size_t *lines_out,
                                         size_t *insts_out, ks_error *err)
{
    size_t lines;
    bool stores = shape->stores_only;
    size_t chunks = count_chunks(s, only, stores, &lines);
    /* warps: enough to spread the chunks over the SMs, never more than the
     * chunks; at least one block even for an empty state (an empty kernel
     * would be a launch of nothing) */
    uint64_t max_warps = (uint64_t)(shape->sms ? shape->sms : 80) * 2 * WARPS_PER_BLOCK;
    uint64_t warps = chunks < max_warps ? chunks : max_warps;
    if (warps == 0)
        warps = 1;
    uint64_t blocks = (warps + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK;
    warps = blocks * WARPS_PER_BLOCK;
    bool v5 = shape->tracer_version >= 5;
    fprintf(f,
            "-kernel name = %s\n-kernel id = %llu\n-grid dim = (%llu,1,1)\n"
            "-block dim = (%d,1,1)\n-shmem = 0\n-nregs = 8\n-binary version = %d\n"
            "-cuda stream id = 0\n-shmem base_addr = 0x%016llx\n"
            "-local mem base_addr = 0x%016llx\n-nvbit version = 1.5.5\n"
            "-accelsim tracer version = %d\n%s\n"
            "#traces format = %sPC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
            "mem_width [adrrescompress?] [mem_addresses]%s\n\n",
            KS_WARM_KERNEL_NAME, (unsigned long long)shape->kernel_id,
            (unsigned long long)blocks, WARPS_PER_BLOCK * LANES, shape->binary_version,
            (unsigned long long)shape->shmem_base, (unsigned long long)shape->local_base,
            shape->tracer_version, v5 ? "-enable lineinfo = 0\n" : "", v5 ? "[line_num] " : "",
            v5 ? " immediate" : "");
    /* per warp: its instructions are chunks w, w + W, w + 2W, ...: the
     * chunks are read into memory once (264 bytes for 32 sectors: a 6 MB
     * L2's state twice over is about 3 MB) */
    chunk *all = chunks ? malloc(chunks * sizeof *all) : NULL;
    if (chunks && !all)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    chunk_reader r = {s, only, UINT32_MAX, 0, NULL, 0, stores, shape->remap};
    for (size_t c = 0; c < chunks; c++)
        read_chunk(&r, &all[c]);
    size_t insts = 0;
    const char *imm = v5 ? " 0" : "";
    for (uint64_t b = 0; b < blocks; b++) {
        fprintf(f, "\n#BEGIN_TB\n\nthread block = %llu,0,0\n", (unsigned long long)b);
        for (uint32_t wb = 0; wb < WARPS_PER_BLOCK; wb++) {
            uint64_t w = b * WARPS_PER_BLOCK + wb;
            size_t n = 0;
            for (size_t c = w; c < chunks; c += warps)
                n += !stores + ((size_t)__builtin_popcount(all[c].dirty) + 15) / 16;
            fprintf(f, "\nwarp = %u\ninsts = %zu\n", wb, n + 1);
            uint64_t pc = 0;
            for (size_t c = w; c < chunks; c += warps) {
                const chunk *k = &all[c];
                uint32_t mask = k->count == LANES ? 0xffffffffu : (1u << k->count) - 1;
                if (!stores) {
                    put_mask_and_head(f, pc, mask, true);
                    fprintf(f, "4 0");
                    for (uint32_t j = 0; j < k->count; j++)
                        fprintf(f, " 0x%016llx", (unsigned long long)k->sector[j]);
                    fprintf(f, "%s\n", imm);
                    pc += 16;
                }
                /* two lanes of 16 bytes per dirty sector, 16 sectors a store */
                uint32_t left = k->dirty;
                while (left) {
                    uint64_t addr[LANES];
                    uint32_t na = 0;
                    for (uint32_t j = 0; j < k->count && na < LANES; j++)
                        if (left >> j & 1) {
                            addr[na++] = k->sector[j];
                            addr[na++] = k->sector[j] + 16;
                            left &= ~(1u << j);
                        }
                    put_mask_and_head(f, pc, na == LANES ? 0xffffffffu : (1u << na) - 1, false);
                    fprintf(f, "16 0");
                    for (uint32_t j = 0; j < na; j++)
                        fprintf(f, " 0x%016llx", (unsigned long long)addr[j]);
                    fprintf(f, "%s\n", imm);
                    pc += 16;
                }
            }
            fprintf(f, "%04llx ffffffff 0 EXIT 0 0%s\n", (unsigned long long)pc, imm);
            insts += n + 1;
        }
        fprintf(f, "\n#END_TB\n");
    }
    free(all);
    if (lines_out)
        *lines_out = lines;
    if (insts_out)
        *insts_out = insts;
    return ks_write_status(f, err);
}

/* ------------------------------------------------- MacSim warm-up kernel */

/* MacSim's NVBit record (trace_info_nvbit_small_s, x86-64, 64 bytes) and
 * the opcodes it needs (its enum; LDG 73, STG 78, EXIT 139 as in the
 * bundled traces). */
enum { REC = 64, OP_LDG = 73, OP_STG = 78, OP_EXIT = 139, ADDR_SPACE_GLOBAL = 3 };

/* Warps of a block of MacSim's warm-up kernel (at most the core's
 * max_threads_per_core, which counts warps).  A MacSim warp holds one load
 * in flight at a time here, so the kernel's cycles are its loads per warp
 * times the memory's latency: on the shared MacSim workload, every line
 * (157 launches) cost 4.54x the launches alone with 4 warps a block, 2.41x
 * with 16 and 2.06x with 32, each as exact (summed 1.0016x, 1.0014x,
 * 1.0011x the full run).  Loads to rotating registers instead (many in
 * flight a warp) cost 2.20x but arrive out of order: the LLC's recency is
 * not the model's, and one launch erred 20 % (docs/bench.md). */
#define MACSIM_WARPS_PER_BLOCK 32

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void record(unsigned char *r, int op, uint64_t pc, uint64_t addr, unsigned size)
{
    memset(r, 0, REC);
    r[0] = (unsigned char)op;
    r[2] = op == OP_LDG;                       /* is_load */
    r[4] = op == OP_STG ? 2 : 1;               /* source registers */
    r[5] = op == OP_LDG;                       /* destination registers */
    put_le(r + 6, 2, 2);                       /* src[0] = R2 */
    if (op == OP_STG)
        put_le(r + 8, 4, 2);                   /* src[1] = R4 */
    if (op == OP_LDG)
        put_le(r + 14, 4, 2);                  /* dst[0] = R4 */
    r[22] = 16;                                /* instruction size */
    put_le(r + 24, 0xffffffffu, 4);            /* active mask */
    put_le(r + 32, pc, 8);
    put_le(r + 48, addr, 8);
    r[56] = (unsigned char)(size > 255 ? 255 : size);
    r[60] = op == OP_EXIT ? 0 : ADDR_SPACE_GLOBAL;
}

/* Held lines of s to load, oldest first (only those in `only` that s holds
 * resident, when only is given), leaving out those `skip` has resident. */
static ks_status list_lines(const ks_l2_state *s, const ks_line_set *only, const ks_l2_state *skip,
                            size_t nskip, const ks_l2_line ***out, size_t *n, ks_error *err)
{
    size_t cap = 0, position = 0;
    uint32_t cursor = UINT32_MAX;
    const ks_l2_line *l;
    *n = 0;
    while ((l = next_kept(s, only, &cursor, &position))) {
        if (!l->valid)
            continue;
        bool in_l1 = false;
        for (size_t c = 0; c < nskip && !in_l1; c++) {
            const ks_l2_line *h = ks_l2_state_find(&skip[c], l->line);
            in_l1 = h && h->resident;
        }
        if (in_l1)
            continue;
        ks_status st = ks_grow((void **)out, &cap, *n + 1, sizeof **out, err);
        if (st != KS_OK)
            return st;
        (*out)[(*n)++] = l;
    }
    return KS_OK;
}

/* The line warp w's copies of the launch's memory instructions (which warm
 * the instruction cache) access: one this warp loads anyway; past the
 * lines to load, one its core's L1 ends holding anyway, or one its core's
 * last warp loads; else `untouched` (a held line the launch does not touch,
 * found once a kernel; NULL: none), else one of the lines to load, else
 * `any`.  A line of the launch that another core's warp loads would end in
 * this core's L1 too, where the full run did not have it: with only the
 * touched lines loaded and more warps than lines, the shared MacSim
 * workload's launches ran as if their kernel had just run (884 cycles for
 * the full run's 1,067). */
static uint64_t spare_line(const ks_l2_state *s, const ks_l2_line **list, size_t lines,
                           const ks_l2_line ***own, const size_t *own_n, size_t cores,
                           uint64_t w, uint64_t wpb, uint64_t warps, const uint64_t *untouched,
                           uint64_t any)
{
    if (warps - 1 - w < lines)
        return list[warps - 1 - w]->line * s->line_bytes;
    if (cores) {
        size_t core = (size_t)(w / wpb);
        uint64_t least = warps - ((uint64_t)core + 1) * wpb; /* its last warp's line */
        if (own_n[core])
            return own[core][0]->line * s->line_bytes;
        if (least < lines)
            return list[least]->line * s->line_bytes;
    }
    if (untouched)
        return *untouched;
    return lines ? list[w % lines]->line * s->line_bytes : any;
}

ks_status ks_state_write_macsim_kernel(const char *folder, const ks_state_view *view,
                                       const ks_line_set *only, uint32_t sms,
                                       uint32_t warps_per_core, size_t *lines_out,
                                       size_t *insts_out, ks_error *err)
{
    const ks_l2_state *s = view->l2;
    uint64_t wpb = MACSIM_WARPS_PER_BLOCK;
    if (warps_per_core && warps_per_core < wpb)
        wpb = warps_per_core;
    /* the L2's lines that no L1 holds, oldest first, dealt over every warp;
     * then, with L1s, core c's lines over block c's warps */
    size_t lines = 0;
    const ks_l2_line **list = NULL;
    ks_status st = list_lines(s, only, view->l1, view->l1 ? view->cores : 0, &list, &lines, err);
    size_t cores = view->l1 ? view->cores : 0;
    const ks_l2_line ***own = cores ? calloc(cores, sizeof *own) : NULL;
    size_t *own_n = cores ? calloc(cores, sizeof *own_n) : NULL;
    if (cores && (!own || !own_n))
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t c = 0; c < cores && st == KS_OK; c++)
        st = list_lines(&view->l1[c], only, NULL, 0, &own[c], &own_n[c], err);
    uint64_t warps, blocks;
    if (cores) {
        blocks = cores;
        warps = blocks * wpb;
    } else {
        uint64_t max_warps = (uint64_t)(sms ? sms : 16) * 2 * wpb;
        warps = lines < max_warps ? lines : max_warps;
        if (warps == 0)
            warps = 1;
        blocks = (warps + wpb - 1) / wpb;
        warps = blocks * wpb;
    }
    /* the folder is built as NAME.tmp beside it and renamed over it; every
     * entry is reached from the parent's descriptor, never through a link
     * (owned.c): a job folder's carrier replaced by a link must not lead
     * the writes or the removal of the old folder anywhere else */
    const char *slash = strrchr(folder, '/');
    char *parent = slash ? strndup(folder, slash == folder ? 1 : (size_t)(slash - folder))
                         : strdup(".");
    const char *base = slash ? slash + 1 : folder;
    char *tmp = malloc(strlen(base) + 8), *tmp_path = NULL;
    int pfd = -1, tfd = -1;
    if (st == KS_OK && (!parent || !tmp))
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st == KS_OK) {
        snprintf(tmp, strlen(base) + 8, "%s.tmp", base);
        tmp_path = ks_path_join(parent, tmp);
        if ((pfd = ks_owned_open_dir(parent, false, err)) < 0 ||
            (tfd = ks_owned_mkdir(pfd, parent, tmp, err)) < 0)
            st = err ? err->status : KS_ERR_IO;
    }
    FILE *trace = NULL, *info = NULL;
    if (st == KS_OK) {
        int a = ks_owned_create(tfd, tmp_path, "trace.txt", err);
        int b = a < 0 ? -1 : ks_owned_create(tfd, tmp_path, "trace_info.txt", err);
        trace = a < 0 ? NULL : fdopen(a, "w");
        info = b < 0 ? NULL : fdopen(b, "w");
        if (!trace || !info) {
            st = a < 0 || b < 0 ? (err ? err->status : KS_ERR_IO)
                                : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            if (!trace && a >= 0)
                close(a);
            if (!info && b >= 0)
                close(b);
        }
    }
    size_t insts = 0;
    if (st == KS_OK)
        fprintf(trace, "nvbit\n14\n%d\n%llu\n", cores ? 1 : 2, (unsigned long long)warps);
    /* spare_line's last resorts, the same for every warp: the oldest valid
     * held line the launch does not touch, and the oldest valid one */
    uint64_t untouched = 0, any = 0;
    bool has_untouched = false, has_any = false;
    uint32_t cursor = UINT32_MAX;
    const ks_l2_line *held;
    while (!has_untouched && (held = ks_l2_state_next(s, &cursor))) {
        if (!held->valid)
            continue;
        if (!has_any)
            any = held->line * s->line_bytes, has_any = true;
        if (only && !only->by_position && !ks_line_set_has(only, held->line))
            untouched = held->line * s->line_bytes, has_untouched = true;
    }
    for (uint64_t w = 0; w < warps && st == KS_OK; w++) {
        uint64_t id = (w / wpb) << 16 | (w % wpb);
        char name[48];
        snprintf(name, sizeof name, "trace_%llu.raw", (unsigned long long)id);
        int gfd = ks_owned_create(tfd, tmp_path, name, err);
        gzFile gz = gfd < 0 ? NULL : gzdopen(gfd, "wb6");
        if (!gz) {
            if (gfd >= 0) {
                close(gfd);
                ks_error_set(err, KS_ERR_NOMEM, tmp_path, 0, "out of memory");
            }
            st = err ? err->status : KS_ERR_IO;
            break;
        }
        unsigned char r[REC];
        uint64_t pc = 0x1000, n = 0;
        /* the sampled launch's code lines the I-cache still holds: one of
         * the launch's own records at each (the simulator decodes a PC
         * once, so it must be the launch's instruction), a global access
         * pointed at a line this warm-up loads anyway */
        uint64_t spare = spare_line(s, list, lines, own, own_n, cores, w, wpb, warps,
                                    has_untouched ? &untouched : NULL, any);
        for (size_t k = 0; k < view->code_count; k++) {
            const unsigned char *cr = view->code_records + k * REC;
            if (cr[0] == 255)
                continue;
            bool mem = cr[0] == 71 || cr[0] == OP_LDG || cr[0] == 77 || cr[0] == OP_STG;
            if (mem && !spare)
                continue;
            memcpy(r, cr, REC);
            if (mem)
                put_le(r + 48, spare, 8);
            gzwrite(gz, r, REC);
            n++;
        }
        for (size_t k = (size_t)(warps - 1 - w); k < lines; k += warps) {
            uint64_t addr = list[k]->line * s->line_bytes;
            record(r, OP_LDG, pc, addr, s->line_bytes);
            gzwrite(gz, r, REC);
            pc += 16;
            n++;
            if (list[k]->dirty) {
                record(r, OP_STG, pc, addr, s->line_bytes);
                gzwrite(gz, r, REC);
                pc += 16;
                n++;
            }
        }
        /* then this core's L1 lines (block w / 4 runs on core w / 4) */
        size_t core = (size_t)(w / wpb), lane = (size_t)(w % wpb);
        for (size_t k = lane; cores && k < own_n[core]; k += wpb) {
            const ks_l2_line *ol = own[core][k];
            const ks_l2_line *l2 = ks_l2_state_find(s, ol->line);
            record(r, OP_LDG, pc, ol->line * s->line_bytes, s->line_bytes);
            gzwrite(gz, r, REC);
            pc += 16;
            n++;
            if (l2 && l2->dirty) {
                record(r, OP_STG, pc, ol->line * s->line_bytes, s->line_bytes);
                gzwrite(gz, r, REC);
                pc += 16;
                n++;
            }
        }
        record(r, OP_EXIT, pc, 0, 0);
        gzwrite(gz, r, REC);
        n++;
        if (gzclose(gz) != Z_OK)
            st = ks_error_set(err, KS_ERR_IO, tmp_path, 0, "cannot write %s", name);
        fprintf(trace, "%llu 0\n", (unsigned long long)id);
        fprintf(info, "%llu %llu\n", (unsigned long long)id, (unsigned long long)n);
        insts += n;
    }
    if (trace && fclose(trace) != 0 && st == KS_OK)
        st = ks_error_set(err, KS_ERR_IO, tmp_path, 0, "write failed: %s", strerror(errno));
    if (info && fclose(info) != 0 && st == KS_OK)
        st = ks_error_set(err, KS_ERR_IO, tmp_path, 0, "write failed: %s", strerror(errno));
    if (tfd >= 0)
        close(tfd);
    /* an earlier run's folder of the same name replaced (a link there is
     * removed itself, never followed) */
    if (st == KS_OK)
        st = ks_owned_rename(pfd, parent, tmp, base, err);
    else if (pfd >= 0 && tfd >= 0)
        ks_owned_remove(pfd, parent, tmp, NULL);
    if (pfd >= 0)
        close(pfd);
    free(parent);
    free(tmp_path);
    free(tmp);
    free(list);
    for (size_t c = 0; c < cores; c++) {
        lines += own_n[c];
        free(own[c]);
    }
    free(own);
    free(own_n);
    if (lines_out)
        *lines_out = lines;
    if (insts_out)
        *insts_out = insts;
    return st;
}
