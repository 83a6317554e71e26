/*
 * addr_remap.c - a 32-bit address space for the memory-copy carrier on a
 * stock GPGPU-Sim (warm.h).
 *
 * Stock GPGPU-Sim keeps the address of a MemcpyHtoD line in 32 bits
 * (perf_memcpy_to_gpu's `unsigned wr_addr`, accel-sim-framework issue
 * #327), so the L2 tags it fills are those of the address's low 32 bits.
 * If the job's copy of the sampled launch names 32-bit addresses too, the
 * copies warm exactly the lines the launch then reads.  The rewrite must
 * leave the simulator's behaviour as it was: every function of the address
 * whose VALUE the simulator uses must give the same value, and every one
 * used only by EQUALITY (tags, DRAM rows) must keep equal what was equal
 * and distinct what was distinct on the addresses the job uses.
 *
 * GPGPU-Sim's address functions, from its configuration (all linear over
 * GF(2), each output bit the parity of some address bits):
 *   - the DRAM mapping (-gpgpu_mem_addr_mapping dramid@S;<64 letters>):
 *     bank, column and burst bits are values, row bits equality; with
 *     dramid@S the chip bits are inserted at S and the letters above S move
 *     up by log2(channels) (linear_to_raw_address_translation);
 *   - the memory partition (-gpgpu_memory_partition_indexing): 0 the chip
 *     bits, 1 those XORed with the bits above chip and sub-partition, 2 an
 *     IPOLY hash of those bits and of the sub-partition number (chip x
 *     sub-partitions a channel + the low bank bit: with 2, index bit 0 is
 *     that bank bit and the chip bits come above it); the sub-partition
 *     is otherwise the low bank bit;
 *   - the L2 set index (-gpgpu_cache:dl2 ...,<fn>): computed on the
 *     partition address (the address without its chip and sub-partition
 *     bits), L linear, X XORed with the next bits, P an IPOLY hash;
 *   - the L1 set index (-gpgpu_cache:dl1), the line offset.
 * IPOLY (Rau, ISCA 1991): index bit i is the parity of the index bit and of
 * higher bit j for each j whose x^(n+j) mod P(x) has bit i, over K higher
 * bits; P = x^4+x+1 (K 13), x^5+x^2+1 (K 15), x^6+x+1 (K 19) for 16, 32, 64
 * banks or sets (GPGPU-Sim's hashing.cc uses these polynomials).
 *
 * The remap: T(a) = low32(a) XOR sum over high bits h set in a of c_h,
 * where each c_h (32 bits) solves M_low c_h = M[:, h] for the value
 * functions M: then M T(a) = M a for every address.  Of the solutions,
 * each c_h uses the highest low bits it can (the solver below), so that
 * the remap keeps the order of the addresses one warp instruction names
 * (the coalescer issues them in address order).  A high bit no value
 * function reads gets c_h = 0 (a plain truncation where the configuration
 * reads nothing above bit 31).  Where some M[:, h] is outside what the low
 * bits can produce, there is no such remap: refused.  Equality functions
 * are checked on the lines the job uses (ks_remap_check): distinct lines
 * stay distinct (T is reversible there) and rows of one bank stay distinct.
 */
#include "hash.h"
#include "trace.h"
#include "warm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* --------------------------------------------------------- IPOLY rows */

/* Row i of an IPOLY hash of n bits over K higher bits: bit j set when
 * higher bit j feeds index bit i. */
static uint64_t ipoly_row(unsigned n, unsigned i, unsigned *k_out)
{
    uint64_t poly;
    unsigned k;
    switch (n) {
    case 4: poly = 0x13, k = 13; break;  /* x^4 + x + 1 */
    case 5: poly = 0x25, k = 15; break;  /* x^5 + x^2 + 1 */
    case 6: poly = 0x43, k = 19; break;  /* x^6 + x + 1 */
    default: *k_out = 0; return 0;
    }
    uint64_t row = 0;
    for (unsigned j = 0; j < k; j++) {
        uint64_t v = 1ull << (n + j); /* x^(n+j) mod poly */
        for (unsigned d = n + j; d >= n; d--)
            if (v >> d & 1)
                v ^= poly << (d - n);
        if (v >> i & 1)
            row |= 1ull << j;
    }
    *k_out = k;
    return row;
}

/* ----------------------------------------------------- the functions */

static ks_status add_value(ks_addr_map *m, uint64_t mask, ks_error *err)
{
    if (!mask)
        return KS_OK;
    if (m->nvalue >= KS_ADDR_MAP_MAX)
        return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "too many address functions");
    m->value[m->nvalue++] = mask;
    return KS_OK;
}

/* Every bit of mask as a value of its own. */
static ks_status add_bits(ks_addr_map *m, uint64_t mask, ks_error *err)
{
    ks_status st = KS_OK;
    for (unsigned b = 0; b < 64 && st == KS_OK; b++)
        if (mask >> b & 1)
            st = add_value(m, 1ull << b, err);
    return st;
}

/* Bits of v at positions >= at moved up by n (the chip bits inserted). */
static uint64_t insert_gap(uint64_t v, unsigned at, unsigned n)
{
    uint64_t low = at >= 64 ? v : v & ((1ull << at) - 1);
    uint64_t high = at >= 64 ? 0 : v >> at;
    return low | (n + at >= 64 ? 0 : high << (at + n));
}

/* The raw address bit that bit p of the partition address comes from (the
 * partition address is the raw one with `removed` bits packed out), or 64. */
static unsigned raw_bit_of(uint64_t removed, unsigned p)
{
    for (unsigned b = 0; b < 64; b++) {
        if (removed >> b & 1)
            continue;
        if (p-- == 0)
            return b;
    }
    return 64;
}

static unsigned log2_exact(uint64_t v)
{
    return v && (v & (v - 1)) == 0 ? (unsigned)__builtin_ctzll(v) : 64;
}

ks_status ks_addr_map_build(ks_addr_map *m, const char *mapping, unsigned channels,
                            unsigned subs, unsigned indexing, unsigned l2_sets, unsigned l2_line,
                            char l2_fn, unsigned l1_sets, unsigned l1_line, char l1_fn,
                            ks_error *err)
{
    memset(m, 0, sizeof *m);
    unsigned lch = log2_exact(channels), lsub = log2_exact(subs);
    if (lch == 64 || lsub == 64)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "%u channels of %u sub-partitions: only powers of two map linearly",
                            channels, subs);
    /* the letters, from bit 63 down */
    int start = -1;
    const char *p = mapping;
    if (sscanf(p, "dramid@%d", &start) == 1) {
        p = strchr(p, ';');
        if (!p || start < 0 || start > 56)
            return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                                "-gpgpu_mem_addr_mapping '%s': expected dramid@<bit>;<map>",
                                mapping);
        p++;
    }
    uint64_t chip = 0, bank = 0, row = 0, col = 0, burst = 0;
    int bit = 63;
    for (; *p; p++) {
        char c = *p;
        if (c == '.' || c == '|' || c == ' ')
            continue;
        if (bit < 0)
            return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                                "-gpgpu_mem_addr_mapping '%s': more than 64 bits", mapping);
        uint64_t b = 1ull << bit--;
        switch (c) {
        case 'D': case 'd': chip |= b; break;
        case 'B': case 'b': bank |= b; break;
        case 'R': case 'r': row |= b; break;
        case 'C': case 'c': col |= b; break;
        case 'S': case 's': burst |= b, col |= b; break;
        case '0': break;
        default:
            return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                                "-gpgpu_mem_addr_mapping '%s': letter '%c'", mapping, c);
        }
    }
    if (bit != -1)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                            "-gpgpu_mem_addr_mapping '%s': %d bits, not 64", mapping, 63 - bit);
    if (start >= 0) {
        bank = insert_gap(bank, (unsigned)start, lch);
        row = insert_gap(row, (unsigned)start, lch);
        col = insert_gap(col, (unsigned)start, lch);
        burst = insert_gap(burst, (unsigned)start, lch);
        chip = lch ? ((1ull << lch) - 1) << start : 0;
    } else
        start = chip ? __builtin_ctzll(chip) : 0;
    if ((unsigned)start + lch + lsub > 63)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "-gpgpu_mem_addr_mapping '%s': chip bits past bit 63", mapping);
    m->chip = chip, m->bank = bank, m->row = row, m->col = col, m->burst = burst;
    /* the sub-partition bits (the low bank bits) */
    uint64_t sub = 0;
    for (unsigned k = 0, b = 0; k < lsub && b < 64; b++)
        if (bank >> b & 1)
            sub |= 1ull << b, k++;
    m->sub = sub;
    ks_status st = add_bits(m, bank | col | burst, err);
    /* the partition */
    unsigned high = (unsigned)start + lch + lsub;
    size_t part_first = m->nvalue;
    if (st == KS_OK) {
        if (indexing == 0)
            st = add_bits(m, chip, err);
        else if (indexing == 1) {
            for (unsigned i = 0; i < lch && st == KS_OK; i++)
                st = add_value(m, 1ull << (start + i) | 1ull << (high + i), err);
        } else if (indexing == 2) {
            /* the hashed index is the sub-partition, chip x subs + the
             * low bank bit (addrdec_tlx): with 2 sub-partitions a channel
             * index bit 0 is that bank bit and bits 1.. the chip bits;
             * with 1 the chip bits alone */
            unsigned n = lch + (lsub == 1 ? 1 : 0);
            if (!((channels == 32 && subs == 1) || (channels == 16 && subs == 2) ||
                  (channels == 32 && subs == 2)))
                return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                    "IPOLY partition indexing of %u channels x %u "
                                    "sub-partitions: GPGPU-Sim has none",
                                    channels, subs);
            unsigned rows = channels == 16 ? 5 : n; /* 16 x 2 uses the 32 banks' rows */
            for (unsigned i = 0; i < n && st == KS_OK; i++) {
                unsigned k;
                uint64_t r = ipoly_row(rows, i, &k), mask = 0;
                for (unsigned j = 0; j < k; j++)
                    if (r >> j & 1 && high + j < 64)
                        mask |= 1ull << (high + j);
                if (lsub == 1)
                    mask |= i == 0 ? (sub & -sub) : 1ull << (start + i - 1);
                else
                    mask |= 1ull << (start + i);
                st = add_value(m, mask, err);
            }
        } else
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "-gpgpu_memory_partition_indexing %u: not a linear function "
                                "ksample can keep",
                                indexing);
    }
    for (size_t v = part_first; v < m->nvalue && m->npart < 8; v++)
        m->part[m->npart++] = m->value[v];
    /* the sub-partition: IPOLY's hash has its low bank bit already */
    for (size_t v = 0; v < m->npart; v++)
        m->l2set[m->nl2set++] = m->part[v];
    for (unsigned b = 0; b < 64 && indexing != 2; b++)
        if (sub >> b & 1 && m->nl2set < 32)
            m->l2set[m->nl2set++] = 1ull << b;
    /* the L2 set index on the partition address */
    unsigned ll = log2_exact(l2_line), ls = log2_exact(l2_sets);
    uint64_t removed = chip | (lsub ? sub : 0);
    if (st == KS_OK && (ll == 64 || ls == 64))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "L2 of %u sets of %u bytes", l2_sets,
                            l2_line);
    for (unsigned i = 0; i < ls && st == KS_OK; i++) {
        unsigned at = raw_bit_of(removed, ll + i);
        if (at >= 64)
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "an L2 set index past bit 63");
        uint64_t mask = 1ull << at;
        if (l2_fn == 'X') {
            unsigned b = raw_bit_of(removed, ll + ls + i);
            mask |= b < 64 ? 1ull << b : 0;
        } else if (l2_fn == 'P') {
            unsigned k;
            uint64_t r = ipoly_row(ls, i, &k);
            if (!k)
                return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                    "IPOLY L2 set index of %u sets: GPGPU-Sim has none",
                                    l2_sets);
            for (unsigned j = 0; j < k; j++) {
                unsigned b = raw_bit_of(removed, ll + ls + j);
                if (r >> j & 1 && b < 64)
                    mask |= 1ull << b;
            }
        } else if (l2_fn != 'L')
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "L2 set index function '%c': not one ksample can keep", l2_fn);
        st = add_value(m, mask, err);
        if (m->nl2set < 32)
            m->l2set[m->nl2set++] = mask;
    }
    /* the L1 set index and the line offset */
    unsigned l1l = log2_exact(l1_line ? l1_line : 128), l1s = log2_exact(l1_sets ? l1_sets : 1);
    if (l1l + l1s > 63)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "an L1 set index past bit 63");
    for (unsigned i = 0; i < l1s && st == KS_OK; i++) {
        uint64_t mask = 1ull << (l1l + i);
        if (l1_fn == 'X' || l1_fn == 'P')
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "hashed L1 set index '%c': not one ksample can keep", l1_fn);
        st = add_value(m, mask, err);
    }
    if (st == KS_OK)
        st = add_bits(m, (1ull << (ll < l1l ? ll : l1l)) - 1, err);
    for (size_t v = 0; v < m->nvalue; v++)
        for (unsigned b = 64; b-- > 0;)
            if (m->value[v] >> b & 1) {
                if ((int)b > m->max_bit)
                    m->max_bit = (int)b;
                break;
            }
    return st;
}

/* -------------------------------------------------------- the solver */

ks_status ks_remap_solve(const ks_addr_map *m, ks_remap *r, ks_error *err)
{
    memset(r, 0, sizeof *r);
    size_t n = m->nvalue;
    /* rows: the low 32 bits of each function, augmented by its high bit h */
    uint32_t low[KS_ADDR_MAP_MAX];
    for (unsigned h = 32; h < 64; h++) {
        bool read = false;
        for (size_t v = 0; v < n; v++)
            read |= (m->value[v] >> h & 1) != 0;
        if (!read)
            continue;
        r->read_high |= 1ull << h;
        uint8_t rhs[KS_ADDR_MAP_MAX];
        for (size_t v = 0; v < n; v++) {
            low[v] = (uint32_t)m->value[v];
            rhs[v] = (uint8_t)(m->value[v] >> h & 1);
        }
        /* Gaussian elimination over GF(2), the columns from bit 31 down,
         * so that c_h uses the highest low bits that can have h's effect
         * (when any set from bit L up can, c_h has none below L): the
         * remap then keeps the order of addresses that differ only below
         * them, and GPGPU-Sim's coalescer issues a warp instruction's
         * accesses in address order (a std::map), so a launch whose
         * instructions span less than 2^L bytes issues in the same order */
        int pivot_col[KS_ADDR_MAP_MAX];
        size_t rank = 0;
        for (unsigned c = 32; c-- > 0 && rank < n;) {
            size_t p = rank;
            while (p < n && !(low[p] >> c & 1))
                p++;
            if (p == n)
                continue;
            uint32_t tl = low[p];
            low[p] = low[rank], low[rank] = tl;
            uint8_t tr = rhs[p];
            rhs[p] = rhs[rank], rhs[rank] = tr;
            for (size_t q = 0; q < n; q++)
                if (q != rank && (low[q] >> c & 1)) {
                    low[q] ^= low[rank];
                    rhs[q] ^= rhs[rank];
                }
            pivot_col[rank++] = (int)c;
        }
        for (size_t q = rank; q < n; q++)
            if (rhs[q])
                return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                    "the configuration's address functions read bit %u, and "
                                    "no change of the low 32 bits has its effect: no 32-bit "
                                    "remap keeps them",
                                    h);
        uint32_t c = 0;
        for (size_t q = 0; q < rank; q++)
            if (rhs[q])
                c |= 1u << pivot_col[q];
        r->column[h - 32] = c;
    }
    /* the changes of the low bits no value function sees: in the reduced
     * form (columns from bit 31 down) each free column f gives e_f plus the
     * pivot columns of the rows that hold f, all above f */
    uint32_t red[KS_ADDR_MAP_MAX];
    int pivot[KS_ADDR_MAP_MAX];
    size_t rank = 0;
    for (size_t v = 0; v < n; v++)
        red[v] = (uint32_t)m->value[v];
    for (unsigned c = 32; c-- > 0;) {
        size_t p = rank;
        while (p < n && !(red[p] >> c & 1))
            p++;
        if (p == n) {
            r->kernel[r->kernel_count++] = 1u << c;
            continue;
        }
        uint32_t t = red[p];
        red[p] = red[rank], red[rank] = t;
        for (size_t q = 0; q < n; q++)
            if (q != rank && (red[q] >> c & 1))
                red[q] ^= red[rank];
        pivot[rank++] = (int)c;
    }
    for (unsigned k = 0; k < r->kernel_count; k++) {
        uint32_t f = r->kernel[k];
        for (size_t q = 0; q < rank; q++)
            if (red[q] & f)
                r->kernel[k] |= 1u << pivot[q];
    }
    return KS_OK;
}

uint64_t ks_remap_apply(const ks_remap *r, uint64_t a)
{
    uint64_t t = (a & 0xffffffffull) ^ r->base;
    for (uint64_t high = (a >> 32) & (r->read_high >> 32); high; high &= high - 1)
        t ^= r->column[__builtin_ctzll(high)];
    return t;
}

typedef struct order_ctx {
    const ks_remap *r;
    uint32_t line_bytes;
    size_t turned;
} order_ctx;

/* Pairs of distinct global lines of one warp instruction the remap turns
 * around (the coalescer issues them in address order). */
static ks_status count_turned(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                              ks_error *err)
{
    (void)k;
    (void)err;
    order_ctx *o = ctx;
    bool write;
    if (o->turned || inst->mem_width == 0 || !ks_warm_global_access(inst->opcode, &write))
        return KS_OK;
    for (uint32_t i = 0; i < inst->naddr && !o->turned; i++)
        for (uint32_t j = i + 1; j < inst->naddr; j++) {
            uint64_t a = inst->addr[i] / o->line_bytes * o->line_bytes,
                     b = inst->addr[j] / o->line_bytes * o->line_bytes;
            if (a != b && (a < b) != (ks_remap_apply(o->r, a) < ks_remap_apply(o->r, b))) {
                o->turned++;
                break;
            }
        }
    return KS_OK;
}

static bool lands_on_zero(const ks_remap *r, const uint64_t *lines, size_t count,
                          uint32_t line_bytes)
{
    for (size_t i = 0; i < count; i++)
        if (ks_remap_apply(r, lines[i] * line_bytes) < line_bytes)
            return true;
    return false;
}

ks_status ks_remap_choose_base(ks_remap *r, ks_trace_set *set, size_t launch,
                               const uint64_t *footprint, size_t count, uint32_t line_bytes,
                               bool *moved, bool *clear, ks_error *err)
{
    r->base = 0;
    *moved = false;
    *clear = !lands_on_zero(r, footprint, count, line_bytes);
    if (*clear)
        return KS_OK;
    /* combinations in the order of their mask over the basis, so those of
     * the first vectors (the highest lowest bit) come first */
    unsigned k = r->kernel_count < 12 ? r->kernel_count : 12;
    for (uint32_t mask = 1; mask < (1u << k); mask++) {
        r->base = 0;
        for (unsigned i = 0; i < k; i++)
            if (mask >> i & 1)
                r->base ^= r->kernel[i];
        if (lands_on_zero(r, footprint, count, line_bytes))
            continue;
        order_ctx o = {r, line_bytes, 0};
        ks_status st = ks_trace_set_stream(set, launch, NULL, count_turned, &o, err);
        if (st != KS_OK) {
            r->base = 0;
            return st;
        }
        if (!o.turned) {
            *moved = *clear = true;
            return KS_OK;
        }
    }
    r->base = 0;
    return KS_OK;
}

static unsigned parity(uint64_t v)
{
    return (unsigned)__builtin_parityll(v);
}

uint32_t ks_addr_map_l2_set(const ks_addr_map *m, uint64_t addr)
{
    uint32_t set = 0;
    for (size_t k = 0; k < m->nl2set && k < 24; k++)
        set |= (uint32_t)parity(addr & m->l2set[k]) << k;
    return set;
}

uint32_t ks_addr_map_l2_sets(const ks_addr_map *m)
{
    return 1u << (m->nl2set < 24 ? m->nl2set : 24);
}

/* ------------------------------------------------------ the checks */

typedef struct pair {
    uint64_t key, value;
} pair;

ks_status ks_remap_check(const ks_addr_map *m, const ks_remap *r, const uint64_t *lines,
                         size_t count, uint32_t line_bytes, ks_remap_check_result *out,
                         ks_error *err)
{
    memset(out, 0, sizeof *out);
    /* open addressing on the remapped line, and on (bank functions, row) */
    size_t size = 16;
    while (size < 2 * count + 2)
        size <<= 1;
    pair *lt = calloc(size, sizeof *lt), *rt = calloc(size, sizeof *rt);
    bool *lu = calloc(size, 1), *ru = calloc(size, 1);
    if (!lt || !rt || !lu || !ru) {
        free(lt), free(rt), free(lu), free(ru);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < count; i++) {
        uint64_t a = lines[i] * line_bytes, t = ks_remap_apply(r, a);
        if (t >> 32) {
            out->wide++;
            continue;
        }
        for (size_t v = 0; v < m->nvalue; v++)
            if (parity(m->value[v] & a) != parity(m->value[v] & t)) {
                out->changed++;
                break;
            }
        /* the line: one original per remapped line */
        size_t s = ks_u64_hash(t) & (size - 1);
        while (lu[s] && lt[s].key != t)
            s = (s + 1) & (size - 1);
        if (lu[s] && lt[s].value != a) {
            if (!out->collisions++) {
                out->first[0] = lt[s].value;
                out->first[1] = a;
            }
        } else if (!lu[s]) {
            lu[s] = true;
            lt[s] = (pair){t, a};
            out->distinct++;
        }
        /* the row within its bank: one original row per remapped row of a
         * channel's bank (the partition functions and bank bits, kept) */
        uint64_t bank_key = a & m->bank;
        for (size_t k = 0; k < m->npart; k++)
            bank_key ^= (uint64_t)parity(m->part[k] & a) << (k + 1) % 64;
        uint64_t key = ks_u64_hash(t & m->row) ^ bank_key * 0x9e3779b97f4a7c15ull;
        uint64_t orig = a & m->row;
        s = ks_u64_hash(key) & (size - 1);
        while (ru[s] && rt[s].key != key)
            s = (s + 1) & (size - 1);
        if (ru[s] && rt[s].value != orig)
            out->row_merges++;
        else if (!ru[s]) {
            ru[s] = true;
            rt[s] = (pair){key, orig};
        }
    }
    free(lt), free(rt), free(lu), free(ru);
    return KS_OK;
}

/* ------------------------------------------- the program's footprint */

ks_status ks_remap_from_config(const char *config, ks_addr_map *m, ks_remap *r, bool *usable,
                               char *why, size_t why_size, ks_error *err)
{
    *usable = false;
    ks_error e;
    ks_error_clear(&e);
    ks_status st = ks_addr_map_read_gpgpusim(config, m, &e);
    if (st == KS_OK)
        st = ks_remap_solve(m, r, &e);
    if (st == KS_OK) {
        *usable = true;
        return KS_OK;
    }
    if (st == KS_ERR_USAGE) { /* known, but not a function ksample keeps */
        snprintf(why, why_size, "%s: %s", config, e.message);
        return KS_OK;
    }
    *err = e;
    return st;
}

typedef struct footprint {
    uint64_t *lines;
    size_t count, capacity;
    ks_hash_index index;
} footprint;

static ks_status add_line(footprint *f, uint64_t line, ks_error *err)
{
    ks_u64_keys k = {f->lines, sizeof *f->lines, 0};
    bool found;
    uint32_t id;
    size_t slot = 0;
    ks_status st = ks_hash_find_u64(&f->index, &k, f->count, line, &found, &id, &slot, err);
    if (st != KS_OK || found)
        return st;
    if (f->count >= UINT32_MAX - 2)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "too many lines");
    if ((st = ks_grow((void **)&f->lines, &f->capacity, f->count + 1, sizeof *f->lines, err)) !=
        KS_OK)
        return st;
    f->lines[f->count] = line;
    ks_hash_put(&f->index, slot, (uint32_t)f->count++);
    return KS_OK;
}

static ks_status footprint_inst(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                                ks_error *err)
{
    (void)k;
    bool write;
    if (inst->mem_width == 0 || !ks_warm_global_access(inst->opcode, &write))
        return KS_OK;
    ks_status st = KS_OK;
    for (uint32_t l = 0; l < inst->naddr && st == KS_OK; l++) {
        uint64_t lo = inst->addr[l] / 128, hi = (inst->addr[l] + inst->mem_width - 1) / 128;
        for (uint64_t line = lo; line <= hi && st == KS_OK; line++)
            st = add_line(ctx, line, err);
    }
    return st;
}

ks_status ks_state_remap_check(const char *traces, const ks_warmup *w,
                               ks_state_remap_report *rep, ks_error *err)
{
    memset(rep, 0, sizeof *rep);
    if (!w->sim_config) {
        snprintf(rep->why, sizeof rep->why,
                 "which address bits the simulator reads comes from its gpgpusim.config "
                 "(--config or --sim-config), not given");
        return KS_OK;
    }
    ks_addr_map m;
    ks_remap r;
    bool usable;
    ks_status st = ks_remap_from_config(w->sim_config, &m, &r, &usable, rep->why,
                                        sizeof rep->why, err);
    if (st != KS_OK || !usable)
        return st;
    rep->max_bit = m.max_bit;
    rep->read_high = r.read_high;
    ks_trace_set *set;
    if ((st = ks_trace_set_open(traces, &set, err)) != KS_OK)
        return st;
    /* the job's copy of a launch's trace is written plain: a compressed
     * one would keep its .xz name over text */
    for (size_t i = 0; i < ks_trace_set_kernel_count(set); i++) {
        const char *path = ks_trace_set_kernel(set, i)->path;
        size_t n = strlen(path);
        if (n < 7 || strcmp(path + n - 7, ".traceg") != 0) {
            snprintf(rep->why, sizeof rep->why,
                     "%s is not a plain .traceg file, which the launch's rewritten copy "
                     "needs",
                     path);
            ks_trace_set_free(set);
            return KS_OK;
        }
    }
    footprint f = {0};
    for (size_t i = 0; i < ks_trace_set_kernel_count(set) && st == KS_OK; i++)
        st = ks_trace_set_stream(set, i, NULL, footprint_inst, &f, err);
    ks_trace_set_free(set);
    ks_remap_check_result res;
    if (st == KS_OK)
        st = ks_remap_check(&m, &r, f.lines, f.count, 128, &res, err);
    if (st == KS_OK) {
        rep->lines = f.count;
        rep->collisions = res.collisions;
        rep->row_merges = res.row_merges;
        rep->usable = !res.collisions && !res.row_merges && !res.wide && !res.changed;
        if (res.collisions)
            snprintf(rep->why, sizeof rep->why,
                     "%zu pairs of the program's %zu lines fall onto one 32-bit line "
                     "(first 0x%llx and 0x%llx)",
                     res.collisions, f.count, (unsigned long long)res.first[0],
                     (unsigned long long)res.first[1]);
        else if (res.row_merges)
            snprintf(rep->why, sizeof rep->why,
                     "%zu DRAM rows of the program's lines fall onto others of their bank",
                     res.row_merges);
    }
    free(f.lines);
    ks_hash_free(&f.index);
    return st;
}
