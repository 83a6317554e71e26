/* test_warm.c - the rebuilt warm state (lib/warm): the cache model's known
 * answers, the No-State-Loss property against an LRU set-associative cache,
 * the walk over a synthetic trace folder (a few launches' states pinned),
 * and the carriers read back by ksample's own readers (the warm-up kernel
 * by the trace reader, the MemcpyHtoD lines by the list reader, the MacSim
 * warm-up folder by the MacSim reader). */
#include "tmpdir.h"

#include "hash.h"
#include "trace.h"
#include "warm.h"
#include "warm_gpu.h"

#include <math.h>
#include <zlib.h>

/* pinned by test_walk_pins_states (see there) */
#define PIN_L6_LINES 2882
#define PIN_L6_SECTORS 5565
#define PIN_L6_DIRTY 1020
#define PIN_L39_LINES 36403
#define PIN_L39_SECTORS 88795
#define PIN_L39_DIRTY 4608
#define PIN_L39_LAST 0xfec42001ffull

/* --------------------------------------------------------- the model */

typedef struct seen {
    uint64_t line;
    unsigned valid, dirty;
} seen;

/* The held lines, oldest first. */
static size_t held(const ks_l2_state *s, seen *out, size_t max)
{
    uint32_t cur = UINT32_MAX;
    const ks_l2_line *l;
    size_t n = 0;
    while ((l = ks_l2_state_next(s, &cur)) && n < max)
        out[n++] = (seen){l->line, l->valid, l->dirty};
    return n;
}

static void test_model_known_answers(void **state)
{
    (void)state;
    ks_error err;
    ks_l2_state s;
    /* 2 resident lines, 3 in all */
    assert_int_equal(ks_l2_state_init(&s, 2, 3, 2, 128, 32, &err), KS_OK);
    assert_int_equal(ks_l2_state_touch(&s, 10, 0x1, false, &err), KS_OK);
    assert_int_equal(ks_l2_state_touch(&s, 11, 0x2, true, &err), KS_OK);
    assert_int_equal(ks_l2_state_touch(&s, 10, 0x4, false, &err), KS_OK); /* 10 most recent */
    seen h[8];
    assert_int_equal(held(&s, h, 8), 2);
    assert_int_equal(h[0].line, 11);
    assert_int_equal(h[0].dirty, 0x2);
    assert_int_equal(h[1].line, 10);
    assert_int_equal(h[1].valid, 0x5);
    /* 12 evicts 11 (least recent) into the ghost list, sectors kept */
    assert_int_equal(ks_l2_state_touch(&s, 12, 0x8, false, &err), KS_OK);
    assert_int_equal(held(&s, h, 8), 3);
    assert_int_equal(h[0].line, 11);
    assert_int_equal(h[0].valid, 0x2);
    assert_int_equal(h[1].line, 10);
    assert_int_equal(h[2].line, 12);
    /* 11 again after its eviction: only the sectors touched now, not dirty */
    assert_int_equal(ks_l2_state_touch(&s, 11, 0x1, false, &err), KS_OK);
    assert_int_equal(held(&s, h, 8), 3);
    assert_int_equal(h[0].line, 10); /* evicted to the ghost list */
    assert_int_equal(h[2].line, 11);
    assert_int_equal(h[2].valid, 0x1);
    assert_int_equal(h[2].dirty, 0);
    /* a fourth line drops the oldest ghost (10) */
    assert_int_equal(ks_l2_state_touch(&s, 13, 0xf, true, &err), KS_OK);
    assert_int_equal(held(&s, h, 8), 3);
    assert_int_equal(h[0].line, 12);
    assert_null(ks_l2_state_find(&s, 10));
    assert_non_null(ks_l2_state_find(&s, 13));
    /* a range: 40 bytes from the middle of line 20's third sector */
    assert_int_equal(ks_l2_state_touch_range(&s, 20 * 128 + 70, 40, false, &err), KS_OK);
    const ks_l2_line *l = ks_l2_state_find(&s, 20);
    assert_non_null(l);
    assert_int_equal(l->valid, 0xc); /* bytes 70..109: sectors 2 and 3 */
    ks_l2_state_free(&s);
    /* bad geometry is refused */
    assert_int_not_equal(ks_l2_state_init(&s, 4, 2, 4, 128, 32, &err), KS_OK);
    assert_int_not_equal(ks_l2_state_init(&s, 4, 4, 4, 96, 32, &err), KS_OK);
}

/* A plain LRU set-associative cache of whole lines (set = line mod sets). */
typedef struct lru_cache {
    size_t sets, ways;
    uint64_t *tag;  /* sets x ways, most recent first; UINT64_MAX empty */
} lru_cache;

static void lru_touch(lru_cache *c, uint64_t line)
{
    uint64_t *set = c->tag + (line % c->sets) * c->ways;
    size_t w = 0;
    while (w < c->ways - 1 && set[w] != line)
        w++;
    memmove(set + 1, set, w * sizeof *set);
    set[0] = line;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static size_t lru_content(const lru_cache *c, uint64_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < c->sets * c->ways; i++)
        if (c->tag[i] != UINT64_MAX)
            out[n++] = c->tag[i];
    qsort(out, n, sizeof *out, cmp_u64);
    return n;
}

/* No-State-Loss: replaying the held lines once, oldest first, leaves an
 * LRU set-associative cache as the whole history left it, whatever the set
 * mapping, once the model keeps every line that can survive (keep >= the
 * cache's lines x ways, the worst case of one set). */
static void test_model_replay_equals_history(void **state)
{
    (void)state;
    ks_error err;
    ks_rng rng;
    ks_rng_seed(&rng, 7);
    for (int trial = 0; trial < 20; trial++) {
        size_t sets = 1 + ks_rng_below(&rng, 8), ways = 1 + ks_rng_below(&rng, 6);
        size_t lines = sets * ways;
        lru_cache full = {sets, ways, malloc(lines * sizeof(uint64_t))};
        lru_cache replay = {sets, ways, malloc(lines * sizeof(uint64_t))};
        for (size_t i = 0; i < lines; i++)
            full.tag[i] = replay.tag[i] = UINT64_MAX;
        /* every line kept (the cut's only approximation is where it
         * falls: a line whose set saw few newer lines survives however
         * many newer lines other sets saw) */
        uint64_t span = 1 + ks_rng_below(&rng, 4 * lines);
        ks_l2_state s;
        assert_int_equal(ks_l2_state_init(&s, lines, span + lines, 4, 128, 32, &err), KS_OK);
        for (int k = 0; k < 2000; k++) {
            uint64_t line = ks_rng_below(&rng, span);
            lru_touch(&full, line);
            assert_int_equal(ks_l2_state_touch(&s, line, 0xf, false, &err), KS_OK);
        }
        uint32_t cur = UINT32_MAX;
        const ks_l2_line *l;
        while ((l = ks_l2_state_next(&s, &cur)))
            lru_touch(&replay, l->line);
        uint64_t a[64], b[64];
        size_t na = lru_content(&full, a), nb = lru_content(&replay, b);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na * sizeof *a);
        ks_l2_state_free(&s);
        free(full.tag);
        free(replay.tag);
    }
}

/* -------------------------------------------------- a synthetic folder */

static char synth[4200];

static int setup(void **state)
{
    (void)state;
    if (tmpdir_setup("ks-warm") != 0)
        return -1;
    snprintf(synth, sizeof synth, "%s/syn", tmpdir);
    ks_synth_traces_options o = {.launches = 40, .seed = 11};
    ks_error err;
    return ks_synth_traces_write(synth, &o, &err) == KS_OK ? 0 : -1;
}

typedef struct captured {
    size_t launch[8], lines[8], sectors[8], dirty[8], touched[8];
    uint64_t first[8], last[8];
    size_t count;
} captured;

static ks_status capture(void *ctx, size_t launch, const ks_state_view *v, ks_error *err)
{
    const ks_l2_state *s = v->l2;
    const ks_line_set *footprint = v->footprint;
    (void)err;
    captured *c = ctx;
    size_t k = c->count++;
    c->launch[k] = launch;
    uint32_t cur = UINT32_MAX;
    const ks_l2_line *l;
    uint64_t prev_rank = 0;
    (void)prev_rank;
    while ((l = ks_l2_state_next(s, &cur))) {
        if (c->lines[k] == 0)
            c->first[k] = l->line;
        c->last[k] = l->line;
        c->lines[k]++;
        c->sectors[k] += (size_t)__builtin_popcount(l->valid);
        c->dirty[k] += (size_t)__builtin_popcount(l->dirty);
        /* dirty sectors are valid ones */
        assert_int_equal(l->dirty & ~l->valid, 0);
        if (footprint && ks_line_set_has(footprint, l->line))
            c->touched[k]++;
    }
    return KS_OK;
}

static void test_walk_pins_states(void **state)
{
    (void)state;
    ks_error err;
    size_t sampled[] = {0, 1, 6, 21, 39};
    captured c = {0};
    ks_state_walk_options o = warm_rtx3070();
    assert_int_equal(ks_state_walk(synth, sampled, 5, &o, capture, &c, &err), KS_OK);
    assert_int_equal(c.count, 5);
    /* launch 0 inherits nothing */
    assert_int_equal(c.lines[0], 0);
    /* later launches inherit what came before: more lines, never more than
     * the cut, and the same bytes each time (pinned) */
    for (size_t k = 1; k < 5; k++) {
        assert_true(c.lines[k] > 0);
        assert_true(c.lines[k] <= 2 * (4u << 20) / 128);
        assert_true(c.sectors[k] >= c.lines[k]);
        assert_true(c.sectors[k] <= 4 * c.lines[k]);
        assert_true(c.touched[k] <= c.lines[k]);
    }
    captured again = {0};
    assert_int_equal(ks_state_walk(synth, sampled, 5, &o, capture, &again, &err), KS_OK);
    assert_memory_equal(&c, &again, sizeof c);
    print_message("warm state: launch 6: %zu lines %zu sectors %zu dirty (%zu touched by it); "
                  "launch 39: %zu lines %zu sectors %zu dirty, first line 0x%llx last 0x%llx\n",
                  c.lines[2], c.sectors[2], c.dirty[2], c.touched[2], c.lines[4], c.sectors[4],
                  c.dirty[4], (unsigned long long)c.first[4], (unsigned long long)c.last[4]);
    /* the pinned figures of this folder (ksample synth --traces -n 40 --seed 11) */
    assert_int_equal(c.lines[2], PIN_L6_LINES);
    assert_int_equal(c.sectors[2], PIN_L6_SECTORS);
    assert_int_equal(c.dirty[2], PIN_L6_DIRTY);
    assert_int_equal(c.lines[4], PIN_L39_LINES);
    assert_int_equal(c.sectors[4], PIN_L39_SECTORS);
    assert_int_equal(c.dirty[4], PIN_L39_DIRTY);
    assert_int_equal(c.last[4], PIN_L39_LAST);
    /* a cut at one L2 keeps no more lines than the L2 holds */
    captured one = {0};
    o.cut = 1;
    assert_int_equal(ks_state_walk(synth, sampled, 5, &o, capture, &one, &err), KS_OK);
    for (size_t k = 0; k < 5; k++)
        assert_true(one.lines[k] <= (4u << 20) / 128 && one.lines[k] <= c.lines[k]);
    /* not ascending: refused */
    size_t bad[] = {6, 1};
    assert_int_not_equal(ks_state_walk(synth, bad, 2, &o, capture, &one, &err), KS_OK);
}

/* ---------------------------------------------------------- carriers */

static ks_status keep_state(void *ctx, size_t launch, const ks_state_view *v, ks_error *err)
{
    (void)launch;
    const ks_l2_state *s = v->l2;
    char path[4400];
    snprintf(path, sizeof path, "%s/out", tmpdir);
    mkdir(path, 0777);
    /* the memcpy lines and the warm-up kernel of this state, as run writes them */
    snprintf(path, sizeof path, "%s/out/kernelslist.g", tmpdir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    size_t lines = 0;
    ks_status st = ks_state_write_memcpy(f, s, NULL, &lines, err);
    fprintf(f, "%s7.traceg\n", KS_WARM_KERNEL_FILE_PREFIX);
    fclose(f);
    *(size_t *)ctx = lines;
    snprintf(path, sizeof path, "%s/out/%s7.traceg", tmpdir, KS_WARM_KERNEL_FILE_PREFIX);
    f = fopen(path, "w");
    assert_non_null(f);
    ks_warm_kernel_shape shape = {7, 5, 80, 0, 0, 46, false, NULL};
    size_t klines = 0, insts = 0;
    if (st == KS_OK)
        st = ks_state_write_accelsim_kernel(f, s, NULL, &shape, &klines, &insts, err);
    fclose(f);
    assert_int_equal(klines, lines);
    snprintf(path, sizeof path, "%s/mac/%s7", tmpdir, KS_WARM_MACSIM_FOLDER_PREFIX);
    char parent[4400];
    snprintf(parent, sizeof parent, "%s/mac", tmpdir);
    mkdir(parent, 0777);
    if (st == KS_OK)
        st = ks_state_write_macsim_kernel(path, v, NULL, 16, 0, &klines, &insts, err);
    return st;
}

typedef struct read_back {
    uint64_t sectors, stores, loads, store_lanes;
    uint64_t prev_line_rank;
} read_back;

static ks_status count_inst(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                            ks_error *err)
{
    read_back *r = ctx;
    if (strncmp(inst->opcode, "LDG", 3) == 0) {
        r->loads++;
        r->sectors += inst->naddr;
    } else if (strncmp(inst->opcode, "STG", 3) == 0) {
        r->stores++;
        r->store_lanes += inst->naddr;
    }
    return KS_OK;
}

static void test_carriers_read_back(void **state)
{
    (void)state;
    ks_error err;
    size_t sampled[] = {21};
    size_t lines = 0;
    ks_state_walk_options o = warm_rtx3070();
    o.footprint = false;
    assert_int_equal(ks_state_walk(synth, sampled, 1, &o, keep_state, &lines, &err), KS_OK);
    assert_true(lines > 0);
    /* the list: MemcpyHtoD lines that the trace reader takes as copies, then
     * the warm-up kernel, whose header and every instruction it reads */
    char out[4400];
    snprintf(out, sizeof out, "%s/out", tmpdir);
    ks_trace_set *set;
    assert_int_equal(ks_trace_set_open(out, &set, &err), KS_OK);
    assert_int_equal(ks_trace_set_kernel_count(set), 1);
    size_t copies = 0;
    uint64_t bytes = 0;
    for (size_t i = 0; i < ks_trace_set_event_count(set); i++) {
        const ks_trace_event *e = ks_trace_set_event(set, i);
        if (e->is_kernel)
            continue;
        copies++;
        unsigned long long a, b;
        assert_int_equal(sscanf(e->text, "MemcpyHtoD,0x%llx,%llu", &a, &b), 2);
        assert_int_equal(a % 32, 0);
        assert_int_equal(b % 32, 0);
        bytes += b;
    }
    /* one copy per run of valid sectors at most (runs that continue one
     * another merge) */
    assert_true(copies > 0 && copies <= bytes / 32);
    const ks_trace_kernel *k = ks_trace_set_kernel(set, 0);
    assert_string_equal(k->name, KS_WARM_KERNEL_NAME);
    read_back r = {0};
    assert_int_equal(ks_trace_set_stream(set, 0, NULL, count_inst, &r, &err), KS_OK);
    /* every valid sector once: the kernel loads what the copies copy */
    assert_int_equal(r.sectors * 32, bytes);
    ks_trace_set_free(set);
    /* the MacSim folder: one launch the MacSim reader opens, warps of loads */
    char mac[4400];
    snprintf(mac, sizeof mac, "%s/mac/kernel_config.txt", tmpdir);
    FILE *f = fopen(mac, "w");
    assert_non_null(f);
    fprintf(f, "nvbit\n14\n-1\n./%s7/trace.txt\n", KS_WARM_MACSIM_FOLDER_PREFIX);
    fclose(f);
    snprintf(mac, sizeof mac, "%s/mac", tmpdir);
    ks_macsim_set *ms;
    assert_int_equal(ks_macsim_set_open(mac, &ms, &err), KS_OK);
    assert_int_equal(ks_macsim_set_count(ms), 1);
    const ks_macsim_launch *ml = ks_macsim_set_launch(ms, 0);
    assert_true(ml->warps >= 4);
    /* one load per line (and a store per dirty line), one exit per warp */
    assert_true(ml->insts >= lines + ml->warps);
    ks_macsim_set_free(ms);
}

/* MacSim's warm-up kernel laid out by hand: the L2 lines no L1 holds dealt
 * from the last warp down (a small launch's blocks run on the first cores,
 * whose L1s must not end holding lines the full run had only in the L2),
 * then core c's L1 lines by block c; blocks of 32 warps, at most the
 * core's max_threads_per_core. */
typedef struct mac_read {
    uint64_t warps, loads, stores;
    uint64_t first_loader; /* warp id (block << 16 | lane) loading the oldest line */
    uint64_t l1_by_block[2];
} mac_read;

static void read_mac_kernel(const char *dir, uint64_t oldest, mac_read *r)
{
    memset(r, 0, sizeof *r);
    r->first_loader = UINT64_MAX;
    char path[4600];
    snprintf(path, sizeof path, "%s/trace_info.txt", dir);
    FILE *info = fopen(path, "r");
    assert_non_null(info);
    unsigned long long id, n;
    while (fscanf(info, "%llu %llu", &id, &n) == 2) {
        r->warps++;
        snprintf(path, sizeof path, "%s/trace_%llu.raw", dir, id);
        gzFile gz = gzopen(path, "rb");
        assert_non_null(gz);
        unsigned char rec[64];
        uint64_t records = 0;
        while (gzread(gz, rec, sizeof rec) == (int)sizeof rec) {
            uint64_t addr = 0;
            for (int b = 7; b >= 0; b--)
                addr = addr << 8 | rec[48 + b];
            records++;
            if (rec[0] == 73) {
                r->loads++;
                if (addr / 128 == oldest)
                    r->first_loader = id;
                if ((addr / 128 >= 100 && addr / 128 < 104) || addr / 128 >= 200)
                    r->l1_by_block[(id >> 16) & 1]++;
            } else if (rec[0] == 78)
                r->stores++;
        }
        gzclose(gz);
        assert_int_equal(records, n);
    }
    fclose(info);
}

static void test_macsim_kernel_layout(void **state)
{
    (void)state;
    ks_error err;
    ks_l2_state l2, l1[2];
    assert_int_equal(ks_l2_state_init(&l2, 64, 128, 4, 128, 128, &err), KS_OK);
    for (uint64_t l = 100; l < 140; l++)
        assert_int_equal(ks_l2_state_touch(&l2, l, 1, l == 110, &err), KS_OK);
    for (int c = 0; c < 2; c++)
        assert_int_equal(ks_l2_state_init(&l1[c], 16, 16, 4, 128, 128, &err), KS_OK);
    for (uint64_t l = 100; l < 104; l++) /* core 0's L1: four lines the L2 holds */
        assert_int_equal(ks_l2_state_touch(&l1[0], l, 1, false, &err), KS_OK);
    for (uint64_t l = 200; l < 202; l++) /* core 1's: two it no longer does */
        assert_int_equal(ks_l2_state_touch(&l1[1], l, 1, false, &err), KS_OK);
    ks_state_view v = {.l2 = &l2, .l1 = l1, .cores = 2};
    char dir[4410], parent[4400];
    snprintf(parent, sizeof parent, "%s/maclayout", tmpdir);
    mkdir(parent, 0777);
    snprintf(dir, sizeof dir, "%s/k", parent);
    size_t lines = 0, insts = 0;
    mac_read r;
    /* at most 8 warps a core: 2 blocks of 8 */
    assert_int_equal(ks_state_write_macsim_kernel(dir, &v, NULL, 2, 8, &lines, &insts, &err),
                     KS_OK);
    read_mac_kernel(dir, 104, &r);
    assert_int_equal(r.warps, 16);
    assert_int_equal(lines, 36 + 6);       /* the L2's 36 beyond core 0's L1, the L1s' 6 */
    assert_int_equal(r.loads, 36 + 6);
    assert_int_equal(r.stores, 1);         /* line 110, last written */
    assert_int_equal(r.first_loader, 1u << 16 | 7); /* the oldest: the last warp */
    assert_int_equal(r.l1_by_block[0], 4);
    assert_int_equal(r.l1_by_block[1], 2);
    assert_int_equal(insts, r.loads + r.stores + r.warps); /* one exit a warp */
    /* no limit known: 32 warps a block */
    assert_int_equal(ks_state_write_macsim_kernel(dir, &v, NULL, 2, 0, &lines, &insts, &err),
                     KS_OK);
    read_mac_kernel(dir, 104, &r);
    assert_int_equal(r.warps, 64);
    assert_int_equal(r.first_loader, 1u << 16 | 31);
    /* only the lines at positions 0-9 (all six of the L1s' there) */
    ks_line_set some = {.by_position = true, .from = 0, .to = 10};
    assert_int_equal(ks_state_write_macsim_kernel(dir, &v, &some, 2, 8, &lines, &insts, &err),
                     KS_OK);
    read_mac_kernel(dir, 104, &r);
    assert_int_equal(r.loads, 6 + 6); /* positions 0-9 less core 0's four, and the L1s */
    assert_int_equal(r.l1_by_block[0] + r.l1_by_block[1], 6);
    for (int c = 0; c < 2; c++)
        ks_l2_state_free(&l1[c]);
    ks_l2_state_free(&l2);
}

/* A model of 8 lines in 4 linear sets of 2 ways (keeping 16), lines 0..7
 * used in order, those in `written` (a bit a line) written. */
static void eight_lines(ks_l2_state *s, unsigned written)
{
    ks_error err;
    assert_int_equal(ks_l2_state_init(s, 8, 16, 2, 128, 32, &err), KS_OK);
    s->set_index = KS_SET_LINEAR;
    for (uint64_t l = 0; l < 8; l++)
        assert_int_equal(ks_l2_state_touch(s, l, 0xf, written >> l & 1, &err), KS_OK);
}

/* state:split's span on a model whose sets are known (linear index, 4 sets
 * of 2 ways): lines 0..7 used in order, line 1 written.  A launch's line
 * that misses in a full set reaches that set's least recent lines; the
 * kernel's part runs from the oldest dirty line in reach to the youngest
 * line in reach, and is empty where no dirty line is. */
static void test_split_span_known_answers(void **state)
{
    (void)state;
    ks_error err;
    ks_l2_state s;
    eight_lines(&s, 1u << 1);
    struct {
        uint64_t lines[2];
        size_t count;
        uint32_t margin;
        size_t from, to, reach, misses, evicted, evicted_dirty;
    } cases[] = {
        {{8}, 1, 0, 0, 0, 1, 1, 1, 0},      /* evicts line 0, clean: copies carry it all */
        {{9}, 1, 0, 1, 2, 2, 1, 1, 1},      /* evicts line 1, dirty */
        {{9}, 1, 1, 1, 6, 6, 1, 1, 1},      /* and with a margin of one, line 5 in reach */
        {{1}, 1, 0, 0, 0, 0, 0, 0, 0},      /* a hit reaches nothing */
        {{12, 16}, 2, 0, 1, 5, 5, 2, 2, 0}, /* lines 0 and 4 evicted: dirty line 1 between */
        {{8}, 1, 1, 1, 5, 5, 1, 1, 0},      /* line 0 evicted, dirty line 1 older than 4 */
        {{8, 1}, 2, 2, 1, 5, 5, 1, 1, 0},   /* the margin is not counted as evicted */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        ks_line_set fp = {0};
        fp.lines = cases[c].lines;
        fp.count = cases[c].count;
        ks_split_span span;
        assert_int_equal(ks_l2_state_kernel_span(&s, &fp, cases[c].margin, &span, &err), KS_OK);
        assert_int_equal(span.from, cases[c].from);
        assert_int_equal(span.to, cases[c].to);
        assert_int_equal(span.reach, cases[c].reach);
        assert_int_equal(span.misses, cases[c].misses);
        assert_int_equal(span.evicted, cases[c].evicted);
        assert_int_equal(span.evicted_dirty, cases[c].evicted_dirty);
    }
    /* a set with a free way takes a miss without evicting */
    ks_l2_state_clear(&s);
    assert_int_equal(ks_l2_state_touch(&s, 0, 0xf, true, &err), KS_OK);
    uint64_t four = 4;
    ks_line_set fp = {0};
    fp.lines = &four;
    fp.count = 1;
    ks_split_span span;
    assert_int_equal(ks_l2_state_kernel_span(&s, &fp, 0, &span, &err), KS_OK);
    assert_int_equal(span.reach, 0);
    assert_int_equal(span.to, span.from);
    assert_int_equal(span.misses, 1);
    assert_int_equal(span.evicted, 0); /* --state-lines auto: the touched lines do */
    ks_l2_state_free(&s);
}

/* The simulator's sets of this test: line / 2 mod 4 (the model's own are
 * line mod 4). */
static uint32_t pair_set(const void *ctx, uint64_t line)
{
    (void)ctx;
    return (uint32_t)(line / 2 % 4);
}

/* state:split on the simulator's sets, in each set whose lines in reach of
 * the launch's misses (its least recent untouched ones) hold an untouched
 * dirty line: with copies after a kernel, the lines older than the oldest
 * such line copied before, the untouched dirty ones in reach copied before
 * and stored, every other younger line copied after; without,
 * the kernel loading from that dirty line to the set's youngest.  Nothing
 * elsewhere. */
static void test_split_marks_known_answers(void **state)
{
    (void)state;
    ks_error err;
    ks_l2_state s;
    /* lines 0..7 oldest first, 1 and 2 written: the simulator's set k holds
     * lines 2k (older) and 2k + 1 */
    eight_lines(&s, 1u << 1 | 1u << 2);
    struct {
        uint64_t lines[2];
        size_t count;
        uint32_t margin;
        const char *marks[2]; /* by position, oldest first: 0 a copy before, 1 the
                               * kernel's load, 2 a copy after, 3 a copy before
                               * stored by the kernel; without copies after and with */
    } cases[] = {
        {{8}, 1, 0, {"00000000", "00000000"}},     /* evicts line 0 of set 0, clean */
        {{9}, 1, 1, {"01000000", "03000000"}},     /* and line 1, dirty, in reach by the margin */
        {{8, 10}, 2, 0, {"00110000", "00320000"}}, /* set 1's line 2 dirty: it, and the
                                                    * younger 3 in the kernel or after it */
        {{8, 10}, 2, 1, {"01110000", "03320000"}}, /* set 1's clean line 3, in reach by
                                                    * the margin and younger than its dirty
                                                    * line 2: a copy after the kernel */
        {{8, 9}, 2, 0, {"01000000", "03000000"}},  /* both of set 0: from its dirty line 1 on */
        {{1}, 1, 1, {"00000000", "00000000"}},     /* a hit reaches nothing */
        {{0, 12}, 2, 1, {"00000000", "00000000"}}, /* a hit, and set 2's lines, clean */
        {{8, 0}, 2, 0, {"01000000", "03000000"}},  /* line 0 hit (the most recent then):
                                                    * the miss evicts the dirty line 1 */
        {{8, 1}, 2, 1, {"00000000", "00000000"}},  /* the dirty line 1 hit: not evicted */
    };
    unsigned char marks[16];
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (int after = 0; after < 2; after++) {
            ks_line_set fp = {0};
            fp.lines = cases[c].lines;
            fp.count = cases[c].count;
            size_t lines = 99, want = 0;
            assert_int_equal(ks_l2_state_split_marks(&s, &fp, cases[c].margin, pair_set, NULL, 4,
                                                     after, marks, &lines, &err),
                             KS_OK);
            for (size_t p = 0; p < 8; p++) {
                static const unsigned char mark_of[] = {KS_SPLIT_BEFORE, KS_SPLIT_KERNEL,
                                                        KS_SPLIT_AFTER,
                                                        KS_SPLIT_BEFORE | KS_SPLIT_STORE};
                assert_int_equal(marks[p], mark_of[cases[c].marks[after][p] - '0']);
                want += (marks[p] & (KS_SPLIT_KERNEL | KS_SPLIT_STORE)) != 0;
            }
            assert_int_equal(lines, want);
        }
    /* lines 8 and 9 fall in set 0 too: the replay leaves them there and the
     * dirty line 1 evicted, so no miss of that set reaches it */
    for (uint64_t l = 8; l < 10; l++)
        assert_int_equal(ks_l2_state_touch(&s, l, 0xf, false, &err), KS_OK);
    uint64_t probes[] = {16, 1};
    for (size_t c = 0; c < 2; c++) {
        ks_line_set fp = {0};
        fp.lines = &probes[c];
        fp.count = 1;
        size_t lines = 99;
        assert_int_equal(ks_l2_state_split_marks(&s, &fp, 1, pair_set, NULL, 4, true, marks,
                                                 &lines, &err),
                         KS_OK);
        assert_int_equal(lines, 0);
    }
    ks_l2_state_free(&s);
}

/* The parts by position put together are the whole: copies of [0, k) then
 * of [k, end) are, line for line, the copies of every held line. */
static void test_split_parts_cover(void **state)
{
    (void)state;
    ks_error err;
    ks_l2_state s;
    assert_int_equal(ks_l2_state_init(&s, 64, 128, 4, 128, 32, &err), KS_OK);
    for (uint64_t l = 0; l < 100; l++)
        assert_int_equal(ks_l2_state_touch(&s, l * 3 % 97, l % 3 ? 0x3 : 0xc, l % 5 == 0, &err),
                         KS_OK);
    char *whole = NULL, *parts = NULL;
    size_t wn = 0, pn = 0, a, b, all;
    FILE *f = open_memstream(&whole, &wn);
    assert_int_equal(ks_state_write_memcpy32(f, &s, NULL, NULL, &all, &err), KS_OK);
    fclose(f);
    for (size_t k = 0; k <= s.held; k += 7) {
        ks_line_set older = {.by_position = true, .from = 0, .to = k};
        ks_line_set younger = {.by_position = true, .from = k, .to = SIZE_MAX};
        f = open_memstream(&parts, &pn);
        assert_int_equal(ks_state_write_memcpy32(f, &s, &older, NULL, &a, &err), KS_OK);
        assert_int_equal(ks_state_write_memcpy32(f, &s, &younger, NULL, &b, &err), KS_OK);
        fclose(f);
        assert_int_equal(a + b, all);
        /* the same sectors in the same order (a range may split at k) */
        uint64_t sum_w = 0, sum_p = 0;
        unsigned long long x, y;
        for (char *t = whole; (t = strstr(t, "MemcpyHtoD,")) && sscanf(t, "MemcpyHtoD,0x%llx,%llu", &x, &y) == 2; t++)
            sum_w += y;
        for (char *t = parts; (t = strstr(t, "MemcpyHtoD,")) && sscanf(t, "MemcpyHtoD,0x%llx,%llu", &x, &y) == 2; t++)
            sum_p += y;
        assert_true(sum_w == sum_p);
        free(parts);
        parts = NULL;
    }
    /* and by marks: the lines marked 0 and those marked 1 */
    unsigned char marks[128];
    for (size_t p = 0; p < sizeof marks; p++)
        marks[p] = p % 3 == 1 ? KS_SPLIT_KERNEL : KS_SPLIT_BEFORE;
    ks_line_set zero = {.by_position = true, .to = SIZE_MAX, .marks = marks,
                        .mark = KS_SPLIT_BEFORE};
    ks_line_set one = {.by_position = true, .to = SIZE_MAX, .marks = marks,
                       .mark = KS_SPLIT_KERNEL};
    f = open_memstream(&parts, &pn);
    assert_int_equal(ks_state_write_memcpy32(f, &s, &zero, NULL, &a, &err), KS_OK);
    assert_int_equal(ks_state_write_memcpy32(f, &s, &one, NULL, &b, &err), KS_OK);
    fclose(f);
    assert_int_equal(a + b, all);
    assert_true(a > 0 && b > 0);
    free(parts);
    free(whole);
    ks_l2_state_free(&s);
}

/* The report of ks_export_state_write: the memcpy carrier counts the dirty
 * lines it copies (GPGPU-Sim fills copies clean: run says so), the kernel
 * carrier loads every held line by default and more than the touched ones. */
static void test_state_report(void **state)
{
    (void)state;
    ks_error err;
    ks_export_entry e[2] = {{.launch = 21, .id = 21, .state = true},
                            {.launch = 21, .id = 21, .weight = 1, .measured = true}};
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/job", tmpdir);
    assert_int_equal(mkdir(dir, 0755), 0);
    const char *dirs[2] = {dir, dir};
    ks_warmup w = {.mode = KS_WARMUP_STATE, .carrier = KS_STATE_MEMCPY, .l2_bytes = 4u << 20};
    ks_state_report mem, all, touched;
    memset(&mem, 0, sizeof mem);
    assert_int_equal(ks_export_state_write(synth, &w, e, 2, dirs, &mem, &err), KS_OK);
    assert_int_equal(mem.launches, 1);
    assert_true(mem.dirty > 0 && mem.dirty <= mem.lines);
    w.carrier = KS_STATE_KERNEL;
    memset(&all, 0, sizeof all);
    assert_int_equal(ks_export_state_write(synth, &w, e, 2, dirs, &all, &err), KS_OK);
    assert_int_equal(all.dirty, 0); /* the kernel stores them */
    w.lines = KS_STATE_LINES_TOUCHED;
    memset(&touched, 0, sizeof touched);
    assert_int_equal(ks_export_state_write(synth, &w, e, 2, dirs, &touched, &err), KS_OK);
    assert_true(touched.lines > 0 && touched.lines < all.lines);
}


/* A trace folder holding only some of the launches the tracer numbered:
 * the walk ages the model at the missing ones, and a sampled launch whose
 * state the launches traced since do not fill to the cut says by how many
 * lines it falls short (run prints it); with every launch traced, none. */
typedef struct short_seen {
    uint64_t short_lines, missing, held;
} short_seen;

static ks_status note_short(void *ctx, size_t launch, const ks_state_view *v, ks_error *err)
{
    (void)launch;
    (void)err;
    short_seen *s = ctx;
    s->short_lines = v->short_lines;
    s->missing = v->missing_launch;
    s->held = v->l2->held;
    return KS_OK;
}

static void test_walk_says_short(void **state)
{
    (void)state;
    ks_error err;
    ks_state_walk_options o = warm_rtx3070();
    o.footprint = false;
    /* the whole folder: launch 21 (the 22nd) is not short */
    size_t full_at[] = {21};
    short_seen whole = {0};
    assert_int_equal(ks_state_walk(synth, full_at, 1, &o, note_short, &whole, &err), KS_OK);
    assert_int_equal(whole.short_lines, 0);
    /* launches 20-22 only (the tracer's numbers 20, 21, 22): the 22nd is
     * the folder's third, its state short of the cut */
    char part[4200], path[4400];
    snprintf(part, sizeof part, "%s/part", tmpdir);
    assert_int_equal(mkdir(part, 0755), 0);
    snprintf(path, sizeof path, "%s/kernelslist.g", part);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int k = 20; k <= 22; k++) {
        char src[4400], dst[4400];
        snprintf(src, sizeof src, "%s/kernel-%d.traceg", synth, k);
        snprintf(dst, sizeof dst, "%s/kernel-%d.traceg", part, k);
        assert_int_equal(symlink(src, dst), 0);
        fprintf(f, "kernel-%d.traceg\n", k);
    }
    fclose(f);
    size_t part_at[] = {2};
    short_seen cut = {0};
    assert_int_equal(ks_state_walk(part, part_at, 1, &o, note_short, &cut, &err), KS_OK);
    assert_int_equal(cut.missing, 19); /* launches 1-19 were not traced */
    assert_true(cut.short_lines > 0);
    /* what it lacks is the cut less what the traced launches gave */
    assert_int_equal(cut.short_lines, 2 * (4u << 20) / 128 - cut.held);
    assert_true(cut.held < whole.held);
}

/* -------------------------------------- a 32-bit address space (issue 39) */

#define SYNTH_SHARED KS_SHARED_DATA "/sim/accelsim-synth"

/* addr_dec_mask[NAME] = <hex> from a simulator log */
static uint64_t log_mask(const char *log, const char *name)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "xz -dc '%s' | grep -m1 '%s' | sed 's/.*= *\\([0-9a-f]*\\).*/\\1/'",
             log, name);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    unsigned long long v = 0;
    int got = fscanf(p, "%llx", &v);
    pclose(p);
    assert_int_equal(got, 1);
    return v;
}

typedef struct line_collect {
    ks_line_set set;
} line_collect;

static ks_status collect_lines(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                               ks_error *err)
{
    (void)k;
    line_collect *c = ctx;
    if (inst->mem_width == 0 || !(strncmp(inst->opcode, "LDG", 3) == 0 ||
                                  strncmp(inst->opcode, "STG", 3) == 0 ||
                                  strncmp(inst->opcode, "ATOM", 4) == 0 ||
                                  strncmp(inst->opcode, "RED", 3) == 0))
        return KS_OK;
    for (uint32_t l = 0; l < inst->naddr; l++) {
        uint64_t line = inst->addr[l] / 128;
        if (ks_line_set_has(&c->set, line))
            continue;
        ks_status st = ks_grow((void **)&c->set.lines, &c->set.capacity, c->set.count + 1,
                               sizeof *c->set.lines, err);
        if (st != KS_OK)
            return st;
        ks_u64_keys keys = {c->set.lines, sizeof *c->set.lines, 0};
        bool found;
        uint32_t id;
        size_t slot = 0;
        st = ks_hash_find_u64(&c->set.index, &keys, c->set.count, line, &found, &id, &slot, err);
        if (st != KS_OK)
            return st;
        c->set.lines[c->set.count] = line;
        ks_hash_put(&c->set.index, slot, (uint32_t)c->set.count++);
    }
    return KS_OK;
}


/* The global addresses of a launch in trace order. */
typedef struct addr_list {
    uint64_t *a;
    size_t n, cap, insts;
} addr_list;

static ks_status list_addresses(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                                ks_error *err)
{
    (void)k;
    addr_list *l = ctx;
    bool write;
    l->insts++;
    if (inst->mem_width == 0 || !ks_warm_global_access(inst->opcode, &write))
        return KS_OK;
    for (uint32_t i = 0; i < inst->naddr; i++) {
        ks_status st = ks_grow((void **)&l->a, &l->cap, l->n + 1, sizeof *l->a, err);
        if (st != KS_OK)
            return st;
        l->a[l->n++] = inst->addr[i];
    }
    return KS_OK;
}

static uint64_t apply_remap(void *ctx, const char *op, uint64_t a, const uint64_t windows[2])
{
    (void)op;
    (void)windows;
    return ks_remap_apply(ctx, a);
}

static bool pick_global(void *ctx, const char *op)
{
    (void)ctx;
    bool write;
    return ks_warm_global_access(op, &write);
}

/* Pairs of a warp instruction's global addresses whose order the remap
 * turns around (GPGPU-Sim's coalescer issues them in address order). */
typedef struct order_check {
    const ks_remap *r;
    size_t pairs, turned;
} order_check;

static ks_status check_order(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                             ks_error *err)
{
    (void)k;
    (void)err;
    order_check *o = ctx;
    bool write;
    if (inst->mem_width == 0 || !ks_warm_global_access(inst->opcode, &write))
        return KS_OK;
    for (uint32_t i = 0; i < inst->naddr; i++)
        for (uint32_t j = i + 1; j < inst->naddr; j++) {
            uint64_t a = inst->addr[i] & ~127ull, b = inst->addr[j] & ~127ull;
            if (a == b)
                continue;
            uint64_t ta = ks_remap_apply(o->r, a), tb = ks_remap_apply(o->r, b);
            o->pairs++;
            o->turned += (a < b) != (ta < tb);
        }
    return KS_OK;
}

/* Launches of syn rewritten under r, read back by the trace reader: the
 * same instructions, each global address the remap of the original's. */
static void check_rewrite(const char *syn, const ks_remap *r, int config)
{
    ks_error err;
    ks_trace_set *orig;
    assert_int_equal(ks_trace_set_open(syn, &orig, &err), KS_OK);
    static const size_t launches[] = {0, 1, 21, 80, 159};
    for (size_t q = 0; q < 5; q++) {
        size_t i = launches[q];
        const ks_trace_kernel *k = ks_trace_set_kernel(orig, i);
        char dir[4400], path[4500];
        snprintf(dir, sizeof dir, "%s/rw%d-%zu", tmpdir, config, i);
        assert_int_equal(mkdir(dir, 0755), 0);
        snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        size_t n = 0;
        assert_int_equal(ks_trace_rewrite_addresses(k->path, f, apply_remap, pick_global,
                                                    (void *)r, &n, &err),
                         KS_OK);
        fclose(f);
        snprintf(path, sizeof path, "%s/kernelslist.g", dir);
        f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "kernel-1.traceg\n");
        fclose(f);
        ks_trace_set *back;
        assert_int_equal(ks_trace_set_open(dir, &back, &err), KS_OK);
        addr_list a = {0}, b = {0};
        assert_int_equal(ks_trace_set_stream(orig, i, NULL, list_addresses, &a, &err), KS_OK);
        assert_int_equal(ks_trace_set_stream(back, 0, NULL, list_addresses, &b, &err), KS_OK);
        assert_int_equal(a.insts, b.insts);
        assert_int_equal(a.n, b.n);
        assert_true(n > 0 || a.n == 0);
        for (size_t j = 0; j < a.n; j++)
            assert_int_equal(b.a[j], ks_remap_apply(r, a.a[j]));
        free(a.a);
        free(b.a);
        ks_trace_set_free(back);
    }
    ks_trace_set_free(orig);
}

/* The memory partition of an address as GPGPU-Sim computes it with
 * -gpgpu_memory_partition_indexing 2 (addrdec_tlx: the sub-partition
 * number chip x 2 + the low bank bit, IPOLY-hashed with the bits above
 * chip and sub-partition, hashing.cc's tables), worked out from the
 * simulator's source for both tested configurations.  The first pair is
 * what the real RTX 3070 run showed: a launch at 0x7f6220000000 and its
 * 32-bit copy at 0x26880800 (an earlier remap that took the chip bits as
 * the low index bits) landed on channels 0 and 12, and every channel's
 * DRAM counts moved with them. */
static void test_partition_known_answers(void **state)
{
    (void)state;
    static const struct {
        const char *mapping;
        unsigned channels, sets, npart;
        uint64_t addr[8];
        unsigned sub[8];
    } cfg[] = {
        {"dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS",
         16, 64, 5,
         {0x7f6220000000ull, 0x26880800ull, 0x80, 0x100, 0x2000, 0x7f6200012380ull,
          0x123456789a80ull, 0xdeadbeef00ull},
         {0, 24, 1, 2, 5, 15, 25, 26}},
        {"dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS",
         32, 32, 6,
         {0x7f6220000000ull, 0x26880800ull, 0x80, 0x100, 0x2000, 0x7f6200012380ull,
          0x123456789a80ull, 0xdeadbeef00ull},
         {59, 9, 0, 2, 1, 11, 42, 38}},
    };
    for (size_t c = 0; c < 2; c++) {
        ks_error err;
        ks_addr_map m;
        assert_int_equal(ks_addr_map_build(&m, cfg[c].mapping, cfg[c].channels, 2, 2,
                                           cfg[c].sets, 128, 'P', 4, 128, 'L', &err),
                         KS_OK);
        assert_int_equal(m.npart, cfg[c].npart);
        ks_remap r;
        assert_int_equal(ks_remap_solve(&m, &r, &err), KS_OK);
        for (size_t k = 0; k < 8; k++) {
            unsigned sub = 0, sub_remapped = 0;
            uint64_t t = ks_remap_apply(&r, cfg[c].addr[k]);
            for (size_t i = 0; i < m.npart; i++) {
                sub |= (unsigned)__builtin_parityll(m.part[i] & cfg[c].addr[k]) << i;
                sub_remapped |= (unsigned)__builtin_parityll(m.part[i] & t) << i;
            }
            assert_int_equal(sub, cfg[c].sub[k]);
            assert_int_equal(sub_remapped, cfg[c].sub[k]);
            /* the L2 set: the sub-partition in its low bits, the same
             * remapped */
            uint32_t set = ks_addr_map_l2_set(&m, cfg[c].addr[k]);
            assert_int_equal(set & ((1u << m.npart) - 1), cfg[c].sub[k]);
            assert_int_equal(ks_addr_map_l2_set(&m, t), set);
        }
        /* sub-partitions x sets, each taking as many of the L2's worth of
         * consecutive lines */
        uint32_t sets = ks_addr_map_l2_sets(&m);
        assert_int_equal(sets, (1u << m.npart) * cfg[c].sets);
        uint32_t *count = calloc(sets, sizeof *count);
        assert_non_null(count);
        for (uint64_t line = 0; line < 16ull * sets; line++)
            count[ks_addr_map_l2_set(&m, 0x7f6200000000ull + line * 128)]++;
        for (uint32_t k = 0; k < sets; k++)
            assert_int_equal(count[k], 16);
        free(count);
    }
    /* a linear set index and plain partition bits: known by hand */
    ks_error err;
    ks_addr_map m;
    assert_int_equal(ks_addr_map_build(&m,
                                       "dramid@8;00000000.00000000.00000000.00000000.0000RRRR."
                                       "RRRRRRRR.RBBBCCCC.BCCSSSSS",
                                       16, 2, 0, 64, 128, 'L', 4, 128, 'L', &err),
                     KS_OK);
    /* chip bits 8..11, the sub-partition the low bank bit 7; the set index
     * bits 7.. of the partition address (bits 7..11 packed out): 12.. */
    assert_int_equal(ks_addr_map_l2_sets(&m), 16 * 2 * 64);
    assert_int_equal(ks_addr_map_l2_set(&m, 0), 0);
    assert_int_equal(ks_addr_map_l2_set(&m, 0x100), 1);      /* chip 1 */
    assert_int_equal(ks_addr_map_l2_set(&m, 0x80), 16);      /* the bank bit */
    assert_int_equal(ks_addr_map_l2_set(&m, 0x1000), 32);      /* set bit 0 */
    assert_int_equal(ks_addr_map_l2_set(&m, 0x1980), 9 | 16 | 32); /* chip bits 8, 11 */
    assert_int_equal(ks_addr_map_l2_set(&m, 0x20000), 32 << 5);     /* set bit 5 */
    assert_int_equal(ks_addr_map_l2_set(&m, 0x40000), 0);           /* above the sets */
}

/* The address functions read from each configuration's recorded log match
 * the masks the simulator printed there; the remap solved from them keeps
 * every value function and is collision-free and reversible on every line
 * of the shared synthetic traces (regenerated byte for byte: synth_digest);
 * launches rewritten under it read back with each address remapped;
 * its MemcpyHtoD lines parse back through the list reader, 32-bit, onto
 * the remapped lines. */
static void test_remap_on_shared_traces(void **state)
{
    (void)state;
    struct stat sb;
    if (stat(SYNTH_SHARED "/full_SM86_RTX3070.out.xz", &sb) != 0)
        skip();
    ks_error err;
    char syn[4400];
    snprintf(syn, sizeof syn, "%s/syn160", tmpdir);
    ks_synth_traces_options so = {.launches = 160, .seed = 11};
    assert_int_equal(ks_synth_traces_write(syn, &so, &err), KS_OK);
    ks_trace_set *set;
    assert_int_equal(ks_trace_set_open(syn, &set, &err), KS_OK);
    line_collect c = {0};
    for (size_t i = 0; i < ks_trace_set_kernel_count(set); i++)
        assert_int_equal(ks_trace_set_stream(set, i, NULL, collect_lines, &c, &err), KS_OK);
    ks_trace_set_free(set);
    print_message("%zu lines in the shared traces\n", c.set.count);
    assert_true(c.set.count > 10000);
    static const char *const configs[] = {"SM86_RTX3070", "SM7_QV100"};
    for (int k = 0; k < 2; k++) {
        char log[512];
        snprintf(log, sizeof log, SYNTH_SHARED "/full_%s.out.xz", configs[k]);
        ks_addr_map m;
        assert_int_equal(ks_addr_map_read_gpgpusim(log, &m, &err), KS_OK);
        assert_int_equal(m.chip, log_mask(log, "addr_dec_mask\\[CHIP\\]"));
        assert_int_equal(m.bank, log_mask(log, "addr_dec_mask\\[BK\\]"));
        assert_int_equal(m.row, log_mask(log, "addr_dec_mask\\[ROW\\]"));
        assert_int_equal(m.col, log_mask(log, "addr_dec_mask\\[COL\\]"));
        assert_int_equal(m.burst, log_mask(log, "addr_dec_mask\\[BURST\\]"));
        assert_int_equal(m.sub, log_mask(log, "sub_partition_id_mask"));
        ks_remap r;
        assert_int_equal(ks_remap_solve(&m, &r, &err), KS_OK);
        print_message("%s: value functions read up to bit %d; high bits read %016llx\n",
                      configs[k], m.max_bit, (unsigned long long)r.read_high);
        /* every value function of a remapped address is the original's,
         * whatever the address (linearity): checked on spread addresses */
        uint64_t x = 0x9e3779b97f4a7c15ull;
        for (int t = 0; t < 10000; t++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint64_t a = x & ~127ull, b = ks_remap_apply(&r, a);
            assert_true(b >> 32 == 0);
            for (size_t v = 0; v < m.nvalue; v++)
                assert_int_equal(__builtin_parityll(m.value[v] & a),
                                 __builtin_parityll(m.value[v] & b));
        }
        check_rewrite(syn, &r, k);
        /* the order of each warp instruction's lines is kept on every
         * launch (the columns use the highest low bits that can: here
         * none below bit 19, where every launch's instruction spans less) */
        for (unsigned h = 0; h < 32; h++)
            if (r.read_high >> (32 + h) & 1)
                assert_true(r.column[h] >> 19 << 19 == r.column[h]);
        order_check oc = {.r = &r};
        assert_int_equal(ks_trace_set_open(syn, &set, &err), KS_OK);
        for (size_t i = 0; i < ks_trace_set_kernel_count(set); i++)
            assert_int_equal(ks_trace_set_stream(set, i, NULL, check_order, &oc, &err), KS_OK);
        ks_trace_set_free(set);
        print_message("%s: %zu pairs of lines in a warp instruction, %zu turned around\n",
                      configs[k], oc.pairs, oc.turned);
        assert_true(oc.pairs > 0);
        assert_int_equal(oc.turned, 0);
        /* the program's first array starts at 0x7f6200000000, whose low 32
         * bits are 0: where nothing high it sets is read (the QV100) the
         * remap puts it on address 0, which Accel-Sim reads as an inactive
         * lane (the real run of transpose launch 2 lost that lane's
         * access).  A launch reaching it gets a base that no value
         * function sees and that turns no instruction's pair around. */
        assert_true(r.kernel_count > 0);
        assert_int_equal(ks_trace_set_open(syn, &set, &err), KS_OK);
        for (size_t i = 1; i < 3; i++) {
            line_collect lc = {0};
            assert_int_equal(ks_trace_set_stream(set, i, NULL, collect_lines, &lc, &err), KS_OK);
            bool first = ks_line_set_has(&lc.set, 0x7f6200000000ull / 128);
            bool moved = false, clear = false;
            assert_int_equal(ks_remap_choose_base(&r, set, i, lc.set.lines, lc.set.count, 128,
                                                  &moved, &clear, &err),
                             KS_OK);
            assert_true(clear);
            assert_int_equal(moved, k == 1 && first);
            assert_true(r.base >> 19 << 19 == r.base);
            if (i == 2)
                assert_true(first);
            for (size_t j = 0; j < lc.set.count; j++)
                assert_true(ks_remap_apply(&r, lc.set.lines[j] * 128) >= 128);
            uint64_t y = 0x9e3779b97f4a7c15ull;
            for (int t = 0; t < 1000; t++) {
                y ^= y << 13, y ^= y >> 7, y ^= y << 17;
                uint64_t a = y & ~127ull, b = ks_remap_apply(&r, a);
                for (size_t v = 0; v < m.nvalue; v++)
                    assert_int_equal(__builtin_parityll(m.value[v] & a),
                                     __builtin_parityll(m.value[v] & b));
            }
            order_check o2 = {.r = &r};
            assert_int_equal(ks_trace_set_stream(set, i, NULL, check_order, &o2, &err), KS_OK);
            assert_int_equal(o2.turned, 0);
            ks_line_set_free(&lc.set);
        }
        ks_trace_set_free(set);
        r.base = 0;
        ks_remap_check_result res;
        assert_int_equal(ks_remap_check(&m, &r, c.set.lines, c.set.count, 128, &res, &err),
                         KS_OK);
        print_message("%s: %zu lines of the shared traces: %zu distinct after the remap, %zu "
                      "collisions, %zu rows merged\n",
                      configs[k], c.set.count, res.distinct, res.collisions, res.row_merges);
        assert_int_equal(res.wide, 0);
        assert_int_equal(res.changed, 0);
        assert_int_equal(res.collisions, 0);
        assert_int_equal(res.row_merges, 0);
        assert_int_equal(res.distinct, c.set.count); /* reversible */
        /* a collision is seen: two lines 4 GB apart, high bits unread */
        if (!(r.read_high >> 40 & 1)) {
            uint64_t two[2] = {c.set.lines[0], c.set.lines[0] + (1ull << 40) / 128};
            assert_int_equal(ks_remap_check(&m, &r, two, 2, 128, &res, &err), KS_OK);
            assert_int_equal(res.collisions, 1);
        }
        /* the prefill of a state over those lines, parsed back */
        ks_l2_state st;
        assert_int_equal(ks_l2_state_init(&st, 32768, 65536, 16, 128, 32, &err), KS_OK);
        for (size_t i = 0; i < c.set.count && i < 65536; i++)
            assert_int_equal(ks_l2_state_touch(&st, c.set.lines[i], 0xf, false, &err), KS_OK);
        char dir[4400], path[4500];
        snprintf(dir, sizeof dir, "%s/pre%d", tmpdir, k);
        assert_int_equal(mkdir(dir, 0755), 0);
        snprintf(path, sizeof path, "%s/kernelslist.g", dir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        size_t written = 0;
        assert_int_equal(ks_state_write_memcpy32(f, &st, NULL, &r, &written, &err), KS_OK);
        fprintf(f, "kernel-1.traceg\n");
        fclose(f);
        char src[4500], dst[4500];
        snprintf(src, sizeof src, "%s/kernel-1.traceg", syn);
        snprintf(dst, sizeof dst, "%s/kernel-1.traceg", dir);
        assert_int_equal(symlink(src, dst), 0);
        ks_trace_set *back;
        assert_int_equal(ks_trace_set_open(dir, &back, &err), KS_OK);
        uint64_t bytes = 0;
        size_t copies = 0;
        for (size_t i = 0; i < ks_trace_set_event_count(back); i++) {
            const ks_trace_event *e = ks_trace_set_event(back, i);
            if (e->is_kernel)
                continue;
            unsigned long long a, n;
            assert_int_equal(sscanf(e->text, "MemcpyHtoD,0x%llx,%llu", &a, &n), 2);
            assert_true(a + n <= 1ull << 32);
            assert_int_equal(a % 32, 0);
            bytes += n;
            copies++;
        }
        ks_trace_set_free(back);
        assert_int_equal(written, st.held);
        assert_int_equal(bytes, (uint64_t)st.held * 128); /* every line whole, once */
        ks_l2_state_free(&st);
    }
    ks_line_set_free(&c.set);
}

/* The dirty lines' carrier: a kernel of only the full-sector stores of the
 * dirty sectors (beside a clean memory-copy prefill), read back by the
 * trace reader: no load, two 16-byte lanes per dirty sector, every dirty
 * sector of the state once, its size following the dirty share. */
typedef struct dirty_seen {
    size_t dirty_sectors, valid_sectors, lines, insts;
} dirty_seen;

static ks_status write_store_kernel(void *ctx, size_t launch, const ks_state_view *v,
                                    ks_error *err)
{
    (void)launch;
    dirty_seen *d = ctx;
    uint32_t cur = UINT32_MAX;
    const ks_l2_line *l;
    while ((l = ks_l2_state_next(v->l2, &cur))) {
        d->valid_sectors += (size_t)__builtin_popcount(l->valid);
        if (l->resident)
            d->dirty_sectors += (size_t)__builtin_popcount(l->valid & l->dirty);
    }
    char path[4400];
    snprintf(path, sizeof path, "%s/dirty", tmpdir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/dirty/kernelslist.g", tmpdir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s22.traceg\n", KS_WARM_KERNEL_FILE_PREFIX);
    fclose(f);
    snprintf(path, sizeof path, "%s/dirty/%s22.traceg", tmpdir, KS_WARM_KERNEL_FILE_PREFIX);
    f = fopen(path, "w");
    assert_non_null(f);
    ks_line_set dirty_only = {.and_dirty = true};
    ks_warm_kernel_shape shape = {22, 5, 80, 0, 0, 46, true, NULL};
    ks_status st = ks_state_write_accelsim_kernel(f, v->l2, &dirty_only, &shape, &d->lines,
                                                  &d->insts, err);
    fclose(f);
    return st;
}

static void test_store_kernel_read_back(void **state)
{
    (void)state;
    ks_error err;
    size_t sampled[] = {21};
    dirty_seen d = {0};
    ks_state_walk_options o = warm_rtx3070();
    o.footprint = false;
    assert_int_equal(ks_state_walk(synth, sampled, 1, &o, write_store_kernel, &d, &err), KS_OK);
    assert_true(d.dirty_sectors > 0 && d.dirty_sectors < d.valid_sectors);
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/dirty", tmpdir);
    ks_trace_set *set;
    assert_int_equal(ks_trace_set_open(dir, &set, &err), KS_OK);
    read_back r = {0};
    assert_int_equal(ks_trace_set_stream(set, 0, NULL, count_inst, &r, &err), KS_OK);
    ks_trace_set_free(set);
    assert_int_equal(r.loads, 0);
    /* two 16-byte lanes per dirty sector, 16 sectors a store at most */
    assert_int_equal(r.store_lanes, 2 * d.dirty_sectors);
    assert_true(r.stores >= (d.dirty_sectors + 15) / 16);
    print_message("store kernel: %zu dirty sectors of %zu valid, %llu stores, %zu lines\n",
                  d.dirty_sectors, d.valid_sectors, (unsigned long long)r.stores, d.lines);
    /* its size follows the dirty share: stores, plus one exit a warp */
    assert_true(d.insts <= r.stores + 46 * 2 * 4 + 4);
}

static void test_geometry_from_configs(void **state)
{
    (void)state;
    ks_error err;
    char path[4400];
    snprintf(path, sizeof path, "%s/gpgpusim.config", tmpdir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "# SM86_RTX3070's values\n-gpgpu_n_clusters 46\n-gpgpu_n_cores_per_cluster 1\n"
               "-gpgpu_n_mem 16\n-gpgpu_n_sub_partition_per_mchannel 2\n"
               "-gpgpu_shader_core_pipeline 1536:32\n-gpgpu_shader_cta 32\n"
               "-gpgpu_cache:dl2 S:64:128:16,L:B:m:L:P,A:192:4,32:0,32\n"
               "-gpgpu_flush_l1_cache 1\n-gpgpu_perf_sim_memcpy 1\n");
    fclose(f);
    ks_gpu_geometry g;
    assert_int_equal(ks_gpu_geometry_read_gpgpusim(path, &g, &err), KS_OK);
    assert_int_equal(g.l2_bytes, 4u << 20);
    assert_int_equal(g.line_bytes, 128);
    assert_int_equal(g.sector_bytes, 32);
    assert_int_equal(g.sms, 46);
    assert_int_equal(g.max_threads_per_sm, 1536);
    assert_int_equal(g.perf_sim_memcpy, 1);
    f = fopen(path, "w");
    fprintf(f, "-gpgpu_n_mem 16\n-gpgpu_cache:dl2 bogus\n");
    fclose(f);
    assert_int_equal(ks_gpu_geometry_read_gpgpusim(path, &g, &err), KS_ERR_FORMAT);
    assert_int_equal(err.line, 2);
    snprintf(path, sizeof path, "%s/params.in", tmpdir);
    f = fopen(path, "w");
    fprintf(f, "num_sim_cores 16\n# L3 Cache (4.5MB 24 way)\nnum_llc 12\nllc_num_set 128\n"
               "llc_line_size 128\nllc_assoc 24\n");
    fclose(f);
    assert_int_equal(ks_gpu_geometry_read_macsim(path, &g, &err), KS_OK);
    assert_int_equal(g.l2_bytes, 12u * 128 * 128 * 24);
    assert_int_equal(g.sector_bytes, 128);
    assert_int_equal(g.max_threads_per_sm, 3 * 32); /* MacSim's default: 3 warps */
    f = fopen(path, "a");
    fprintf(f, "max_threads_per_core 1024 \n");
    fclose(f);
    assert_int_equal(ks_gpu_geometry_read_macsim(path, &g, &err), KS_OK);
    assert_int_equal(g.max_threads_per_sm, 1024 * 32);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_known_answers),
        cmocka_unit_test(test_model_replay_equals_history),
        cmocka_unit_test(test_walk_pins_states),
        cmocka_unit_test(test_carriers_read_back),
        cmocka_unit_test(test_macsim_kernel_layout),
        cmocka_unit_test(test_split_span_known_answers),
        cmocka_unit_test(test_split_marks_known_answers),
        cmocka_unit_test(test_split_parts_cover),
        cmocka_unit_test(test_state_report),
        cmocka_unit_test(test_geometry_from_configs),
        cmocka_unit_test(test_walk_says_short),
        cmocka_unit_test(test_store_kernel_read_back),
        cmocka_unit_test(test_partition_known_answers),
        cmocka_unit_test(test_remap_on_shared_traces),
    };
    return cmocka_run_group_tests(tests, setup, tmpdir_teardown);
}
