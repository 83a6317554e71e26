/*
 * synth_traces_transformer.c - the "transformer" preset of `ksample synth
 * --traces`: a small decoder-only transformer generating tokens for a batch
 * of 8 sequences, one kernel per operator as eager PyTorch runs it, so that
 * sampling methods meet the shape of the programs their users simulate
 * (issue 33): the same kernels again and again, weights reused at every
 * step, a KV cache that grows with each token (the attention kernels'
 * durations drift), a footprint several times the L2.
 *
 * Model: d_model 256, 4 heads of 64, 4 layers, SwiGLU MLP of 768, RMS norm,
 * vocabulary 8,192, fp16 weights and activations (fp32 residual stream and
 * scores), a KV cache of 128 positions.  Weights 6.6 MB in the layers, 4 MB
 * embedding, 4 MB LM head; with the cache, 18.6 MB in all (4.6x the RTX
 * 3070's L2, 3.1x the Quadro GV100's).  Step 0 is the prefill of a 16-token
 * prompt per sequence (GEMMs of 128 rows, 56 launches), every later step
 * decodes one token per sequence (GEMMs of 8 rows, reading every weight, 60
 * launches):
 *   embed_rows                     the tokens' rows of the embedding table
 *   per layer: rms_norm, gemm (QKV), kv_append, attn_scores, softmax_rows,
 *     attn_values, gemm (output), residual_add, rms_norm, gemm (gate and up),
 *     silu_mul, gemm (down; decode: split over K in 3, then splitk_reduce),
 *     residual_add
 *   rms_norm (last rows), gemm (LM head), argmax_rows
 * The GEMMs stage K slices of both operands through shared memory (LDG, STS,
 * BAR, then LDS fragments and HMMA on the tensor cores, BAR), with the tile a
 * library would pick by shape, each its own kernel as cuBLAS's are: 64 rows
 * for the prefill, 16 for decode, 64-wide K slices for the LM head, and a
 * split-K variant writing fp32 partials for decode's down projection (K
 * 768, 256 outputs: 4 tiles alone would leave the GPU idle).  The tokens
 * (embedding rows) are drawn log-uniform over the vocabulary from each
 * launch's seed.  The launches are the program's first N (-n): 1,616 by
 * default (the prefill and 26 decode steps, the cache growing from 16 to 42
 * positions), sized so that Accel-Sim runs it in full on an RTX 3070
 * configuration in about 75 minutes of this project's 2-core machine (a
 * decode step: about 0.5 M cycles, 2.5 minutes under the usual load).
 */
#include "synth_traces.h"

#include <math.h>

enum {
    D = 256,       /* d_model */
    HEADS = 4,
    HD = 64,       /* head dimension */
    FFN = 768,
    LAYERS = 4,
    VOCAB = 8192,
    BATCH = 8,
    PROMPT = 16,
    MAX_LEN = 128, /* cache positions */
    SPLITS = 3,    /* of the decode down projection's K */
    PREFILL_LAUNCHES = 1 + 13 * LAYERS + 3,
    STEP_LAUNCHES = 1 + 14 * LAYERS + 3 /* a decode step */
};

enum {
    K_EMBED, K_NORM, K_GEMM16, K_GEMM64, K_KV, K_SCORES, K_SOFTMAX, K_VALUES, K_RESID, K_SILU,
    K_ARGMAX, K_GEMMHEAD, K_SPLIT, K_REDUCE, K_COUNT
};

static const char *const tf_names[K_COUNT] = {
    "_Z10embed_rowsPfPK6__halfPKii",
    "_Z8rms_normP6__halfPKfPKS_i",
    "_Z10gemm_tiledILi16ELi64ELi32EEvPK6__halfS2_PS0_iii",
    "_Z10gemm_tiledILi64ELi64ELi32EEvPK6__halfS2_PS0_iii",
    "_Z9kv_appendP6__halfS0_PKS_ii",
    "_Z11attn_scoresPfPK6__halfS2_iii",
    "_Z12softmax_rowsP6__halfPKfii",
    "_Z11attn_valuesP6__halfPKS_S2_iii",
    "_Z12residual_addPfPK6__halfi",
    "_Z8silu_mulP6__halfPKS_ii",
    "_Z11argmax_rowsPiPK6__halfi",
    "_Z10gemm_tiledILi16ELi64ELi64EEvPK6__halfS2_PS0_iii",
    "_Z16gemm_tiled_splitILi16ELi64ELi32EEvPK6__halfS2_Pfiiii",
    "_Z13splitk_reduceP6__halfPKfii"};

/* device buffers (fp16 = 2 bytes) */
#define B_EMB 0x7f6500000000ull   /* VOCAB x D */
#define B_HEAD 0x7f6510000000ull  /* VOCAB x D */
#define B_LAYER 0x7f6520000000ull /* + layer * LAYER_STRIDE */
#define LAYER_STRIDE 0x1000000ull
#define W_QKV 0x000000ull   /* 3D x D */
#define W_O 0x100000ull     /* D x D */
#define W_GU 0x200000ull    /* 2 FFN x D */
#define W_DOWN 0x400000ull  /* D x FFN */
#define W_NORM1 0x600000ull /* D */
#define W_NORM2 0x601000ull
#define B_NORMF 0x7f6560000000ull
#define B_KCACHE 0x7f6570000000ull /* + layer * CACHE_STRIDE: [BATCH][HEADS][MAX_LEN][HD] */
#define B_VCACHE 0x7f6578000000ull
#define CACHE_STRIDE 0x100000ull
#define B_X 0x7f6580000000ull   /* fp32 M x D, the residual stream */
#define B_HN 0x7f6581000000ull  /* M x D */
#define B_QKV 0x7f6582000000ull /* M x 3D */
#define B_SC 0x7f6583000000ull  /* fp32 [BATCH][HEADS][q][MAX_LEN] */
#define B_PR 0x7f6584000000ull  /* [BATCH][HEADS][q][MAX_LEN] */
#define B_AO 0x7f6585000000ull  /* M x D */
#define B_T 0x7f6586000000ull   /* M x D */
#define B_GU 0x7f6587000000ull  /* M x 2 FFN */
#define B_ACT 0x7f6588000000ull /* M x FFN */
#define B_LG 0x7f6589000000ull  /* BATCH x VOCAB */
#define B_TOK 0x7f658a000000ull /* ints */
#define B_WS 0x7f658b000000ull  /* fp32 split-K partials: SPLITS x M x D */
#define B_SHARED 0x00007f6300000000ull /* the trace header's shmem base_addr */

static const uint32_t ALL = 0xffffffffu;

/* A launch: m = rows (tokens), n = q (queries per sequence), len = cache
 * length after this step's tokens, k = position of the step's first token;
 * GEMMs: m x n output, k inner, buf = A, W, C. */

static void prologue(synth_warp *w, uint32_t exiting)
{
    synth_inst(w, 0x00, ALL, 0, "S2R", -1, -1, 0, NULL, 0);
    synth_inst(w, 0x10, ALL, 3, "S2R", -1, -1, 0, NULL, 0);
    synth_inst(w, 0x20, ALL, 0, "IMAD", 3, 0, 0, NULL, 0);
    synth_inst(w, 0x30, ALL, -1, "ISETP.GE.AND", 0, -1, 0, NULL, 0);
    synth_inst(w, 0x40, exiting, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* a butterfly over `lanes` lanes (8 or 32) of register reg */
static void reduce(synth_warp *w, uint64_t pc, int reg, int lanes, const char *op)
{
    for (int s = lanes / 2, i = 0; s >= 1; s /= 2, i++) {
        synth_inst(w, pc + 32 * (uint64_t)i, ALL, 30, "SHFL.BFLY", reg, -1, 0, NULL, s);
        synth_inst(w, pc + 32 * (uint64_t)i + 16, ALL, reg, op, reg, 30, 0, NULL, 0);
    }
}

static void ctrl(synth_warp *w, uint64_t pc, uint32_t now, uint32_t next, uint64_t target)
{
    synth_inst(w, pc, now, 2, "IADD3", 2, -1, 0, NULL, 0);
    synth_inst(w, pc + 16, now, -1, "ISETP.LT.AND", 2, -1, 0, NULL, 0);
    synth_inst(w, pc + 32, next, -1, "BRA", -1, -1, 0, NULL, (int64_t)target);
}

/* ------------------------------------------------------------- kernels */

/* one warp per row: 8 halves a lane */
static void warp_embed(const synth_launch *L, uint32_t block, uint32_t warp, ks_rng *rng,
                       synth_warp *w)
{
    uint64_t a[32];
    uint64_t row = (uint64_t)block * 4 + warp;
    bool out = row >= L->m;
    prologue(w, out ? ALL : 0);
    if (out)
        return;
    /* the token: log-uniform rank over the vocabulary, scattered */
    uint64_t rank = (uint64_t)floor(exp(ks_rng_uniform(rng) * log((double)VOCAB))) - 1;
    uint64_t tok = ((rank < VOCAB ? rank : VOCAB - 1) * 0x9E3779B1ull + 77) & (VOCAB - 1);
    synth_linear_addr(a, B_TOK + 4 * row, 0, 0);
    synth_inst(w, 0x50, ALL, 4, "LDG.E", 2, -1, 4, a, 0);
    synth_inst(w, 0x60, ALL, 6, "IMAD.WIDE", 4, -1, 0, NULL, 0);
    synth_linear_addr(a, B_EMB + 2 * tok * D, 0, 16);
    synth_inst(w, 0x70, ALL, 8, "LDG.E.128", 6, -1, 16, a, 0);
    for (int e = 0; e < 8; e++)
        synth_inst(w, 0x80 + 16 * (uint64_t)e, ALL, 12 + e, "HADD2.F32", 8 + e / 2, -1, 0, NULL,
                   0);
    synth_linear_addr(a, B_X + 4 * row * D, 0, 32);
    synth_inst(w, 0x100, ALL, -1, "STG.E.128", 10, 12, 16, a, 0);
    synth_linear_addr(a, B_X + 4 * row * D + 16, 0, 32);
    synth_inst(w, 0x110, ALL, -1, "STG.E.128", 10, 16, 16, a, 0);
    synth_inst(w, 0x120, ALL, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* one warp per row; rows are L->m; buf[0] = norm weight; p = 1: the last
 * row of each sequence only (row b * q + q - 1) */
static void warp_norm(const synth_launch *L, uint32_t block, uint32_t warp, synth_warp *w)
{
    uint64_t a[32];
    uint64_t r = (uint64_t)block * 4 + warp;
    bool out = r >= L->m;
    prologue(w, out ? ALL : 0);
    if (out)
        return;
    uint64_t src = L->p > 0 ? r * L->n + L->n - 1 : r;
    synth_linear_addr(a, B_X + 4 * src * D, 0, 32);
    synth_inst(w, 0x50, ALL, 4, "LDG.E.128", 2, -1, 16, a, 0);
    synth_linear_addr(a, B_X + 4 * src * D + 16, 0, 32);
    synth_inst(w, 0x60, ALL, 8, "LDG.E.128", 2, -1, 16, a, 0);
    synth_inst(w, 0x70, ALL, 12, "FMUL", 4, 4, 0, NULL, 0);
    for (int e = 1; e < 8; e++)
        synth_inst(w, 0x70 + 16 * (uint64_t)e, ALL, 12, "FFMA", 4 + e, 4 + e, 0, NULL, 0);
    reduce(w, 0xf0, 12, 32, "FADD");
    synth_inst(w, 0x190, ALL, 12, "FFMA", 12, -1, 0, NULL, 0);
    synth_inst(w, 0x1a0, ALL, 12, "MUFU.RSQ", 12, -1, 0, NULL, 0);
    synth_linear_addr(a, L->buf[0], 0, 16);
    synth_inst(w, 0x1b0, ALL, 16, "LDG.E.128", 2, -1, 16, a, 0);
    for (int e = 0; e < 8; e++)
        synth_inst(w, 0x1c0 + 16 * (uint64_t)e, ALL, 4 + e, "FMUL", 4 + e, 12, 0, NULL, 0);
    for (int e = 0; e < 4; e++)
        synth_inst(w, 0x240 + 16 * (uint64_t)e, ALL, 20 + e, "HMUL2", 4 + 2 * e, 16 + e, 0, NULL,
                   0);
    synth_linear_addr(a, B_HN + 2 * r * D, 0, 16);
    synth_inst(w, 0x280, ALL, -1, "STG.E.128", 3, 20, 16, a, 0);
    synth_inst(w, 0x290, ALL, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* C[m x n] = A[m x k] W[n x k]^T on the tensor cores: a BM x 64 tile per
 * block of 4 warps, K slices of BK staged through shared memory (LDG, STS,
 * BAR), then per 16-wide k step each warp loads its fragments (LDS.128) and
 * issues m16n8k16 HMMAs over its part of the tile (BM 16: 16 x 16 a warp;
 * BM 64: 32 x 32), BAR; the fp32 results are stored as halves (STG.E, 2 a
 * lane and 8-column tile), or with split K as floats into the split's
 * slice of the workspace (STG.E.64; block = tile + tiles x split).
 * m = rows, n = outputs, k = inner; buf[0..2] = A, W, C; len = BM, p = BK,
 * buf[3] = splits (0: none). */
static void warp_gemm(const synth_launch *L, uint32_t block, uint32_t warp, synth_warp *w)
{
    uint64_t a[32];
    uint64_t bm = L->len, bk = (uint64_t)L->p, mt = (L->m + bm - 1) / bm, nt = L->n / 64;
    uint64_t splits = L->buf[3] ? L->buf[3] : 1, ks = block / (mt * nt);
    uint64_t tm = block % mt, tn = block / mt % nt;
    uint64_t kpart = L->k / splits, kbase = ks * kpart;
    uint64_t rowc = bk / 8;               /* 16-byte chunks of a row of a slice */
    uint64_t a_chunks = bm * rowc;        /* of the A slice */
    uint64_t w_chunks = 64 * rowc;        /* of the W slice */
    uint64_t sh_w = B_SHARED + bm * 2 * bk; /* the W slice after the A slice */
    /* the warp's part of the tile: wm x wn from (m0, n0) within the tile */
    uint64_t wm = bm == 16 ? 16 : 32, wn = bm == 16 ? 16 : 32;
    uint64_t m0 = bm == 16 ? 0 : 32 * (warp / 2), n0 = bm == 16 ? 16u * warp : 32 * (warp % 2);
    uint64_t mtiles = wm / 16, ntiles = wn / 8;
    prologue(w, 0);
    synth_inst(w, 0x50, ALL, 10, "IMAD.WIDE", 0, -1, 0, NULL, 0);
    synth_inst(w, 0x60, ALL, 12, "IMAD.WIDE", 0, -1, 0, NULL, 0);
    uint64_t slices = kpart / bk;
    for (uint64_t s = 0; s < slices; s++) {
        uint64_t k0 = kbase + bk * s;
        /* the A slice: chunk c of thread t is c = t + 128 j */
        for (uint64_t j = 0; j * 128 < a_chunks; j++) {
            uint64_t c0 = j * 128 + 32u * warp;
            if (c0 >= a_chunks)
                break;
            uint32_t m = 0;
            for (int l = 0; l < 32; l++) {
                uint64_t c = c0 + (uint64_t)l, row = tm * bm + c / rowc;
                m |= (uint32_t)(c < a_chunks && row < L->m) << l;
                a[l] = L->buf[0] + 2 * (row * L->k + k0 + 8 * (c % rowc));
            }
            if (m) /* a warp whose rows are all past the end skips the load */
                synth_inst(w, 0x70 + 0x10 * j, m, 16 + 4 * (int)j, "LDG.E.128", 10, -1, 16, a,
                           0);
        }
        for (uint64_t j = 0; j * 128 < w_chunks; j++) { /* the W slice */
            for (int l = 0; l < 32; l++) {
                uint64_t c = j * 128 + 32u * warp + (uint64_t)l, row = tn * 64 + c / rowc;
                a[l] = L->buf[1] + 2 * (row * L->k + k0 + 8 * (c % rowc));
            }
            synth_inst(w, 0xb0 + 0x10 * j, ALL, 24 + 4 * (int)j, "LDG.E.128", 12, -1, 16, a, 0);
        }
        for (uint64_t j = 0; j * 128 < a_chunks; j++) {
            uint64_t c0 = j * 128 + 32u * warp;
            if (c0 >= a_chunks)
                break;
            synth_linear_addr(a, B_SHARED + 16 * c0, 0, 16);
            synth_inst(w, 0xf0 + 0x10 * j, ALL, -1, "STS.128", 14, 16 + 4 * (int)j, 16, a, 0);
        }
        for (uint64_t j = 0; j * 128 < w_chunks; j++) {
            synth_linear_addr(a, sh_w + 16 * (j * 128 + 32u * warp), 0, 16);
            synth_inst(w, 0x130 + 0x10 * j, ALL, -1, "STS.128", 15, 24 + 4 * (int)j, 16, a, 0);
        }
        synth_inst(w, 0x170, ALL, -1, "BAR.SYNC", -1, -1, 0, NULL, 0);
        for (uint64_t kk = 0; kk < bk / 16; kk++) {
            uint64_t pc = 0x180 + kk * 0x100;
            for (uint64_t i = 0; i < mtiles; i++) { /* A fragments: 16 rows x 16 */
                for (int l = 0; l < 32; l++)
                    a[l] = B_SHARED + 2 * bk * (m0 + 16 * i + (uint64_t)l % 16) + 32 * kk +
                           16 * ((uint64_t)l / 16);
                synth_inst(w, pc + 16 * i, ALL, 32 + 4 * (int)i, "LDS.128", 14, -1, 16, a, 0);
            }
            for (uint64_t j = 0; j < ntiles / 2; j++) { /* B fragments: 2 x 8 columns */
                for (int l = 0; l < 32; l++)
                    a[l] = sh_w + 2 * bk * (n0 + 16 * j + (uint64_t)l % 16) + 32 * kk +
                           16 * ((uint64_t)l / 16);
                synth_inst(w, pc + 0x20 + 16 * j, ALL, 40 + 4 * (int)j, "LDS.128", 15, -1, 16, a,
                           0);
            }
            for (uint64_t i = 0; i < mtiles; i++)
                for (uint64_t j = 0; j < ntiles; j++)
                    synth_inst(w, pc + 0x40 + 16 * (i * ntiles + j), ALL,
                               64 + 4 * (int)(i * ntiles + j), "HMMA.16816.F32", 32 + 4 * (int)i,
                               40 + 2 * (int)j, 0, NULL, 0);
        }
        synth_inst(w, 0x580, ALL, -1, "BAR.SYNC", -1, -1, 0, NULL, 0);
        ctrl(w, 0x590, ALL, s + 1 < slices ? ALL : 0, 0x70);
    }
    /* the accumulators: a lane holds rows lane / 4 and lane / 4 + 8, columns
     * 2 (lane % 4) and one more, of each 16 x 8 tile */
    for (uint64_t i = 0; i < mtiles; i++)
        for (uint64_t j = 0; j < ntiles; j++)
            for (uint64_t h = 0; h < 2; h++) {
                uint32_t m = 0;
                for (int l = 0; l < 32; l++) {
                    uint64_t row = tm * bm + m0 + 16 * i + 8 * h + (uint64_t)l / 4;
                    uint64_t col = tn * 64 + n0 + 8 * j + 2 * ((uint64_t)l % 4);
                    m |= (uint32_t)(row < L->m) << l;
                    a[l] = L->buf[3] ? L->buf[2] + 4 * ((ks * L->m + row) * L->n + col)
                                     : L->buf[2] + 2 * (row * L->n + col);
                }
                uint64_t f = (i * ntiles + j) * 2 + h;
                if (L->buf[3]) {
                    if (m)
                        synth_inst(w, 0x5c0 + 32 * f, m, -1, "STG.E.64", 13, 64 + 2 * (int)f, 8,
                                   a, 0);
                    continue;
                }
                synth_inst(w, 0x5c0 + 32 * f, ALL, 80 + (int)f, "F2FP.F16.F32.PACK_AB",
                           64 + 2 * (int)f, -1, 0, NULL, 0);
                if (m)
                    synth_inst(w, 0x5d0 + 32 * f, m, -1, "STG.E", 13, 80 + (int)f, 4, a, 0);
            }
    synth_inst(w, 0x800, ALL, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* out (fp16) = the sum of the SPLITS partials (fp32), 4 elements a thread;
 * m = rows, n = columns */
static void warp_reduce_splits(const synth_launch *L, uint32_t block, uint32_t warp,
                               synth_warp *w)
{
    uint64_t a[32];
    uint64_t tid0 = (uint64_t)block * 256 + 32u * warp, threads = L->m * L->n / 4;
    uint32_t m = synth_lanes_below(tid0, threads);
    prologue(w, ~m);
    if (!m)
        return;
    for (uint64_t sp = 0; sp < SPLITS; sp++) {
        synth_linear_addr(a, B_WS + 4 * sp * L->m * L->n, tid0, 16);
        synth_inst(w, 0x50 + 16 * sp, m, 4 + 4 * (int)sp, "LDG.E.128", 2, -1, 16, a, 0);
    }
    for (int e = 0; e < 4 * (SPLITS - 1); e++)
        synth_inst(w, 0x80 + 16 * (uint64_t)e, m, 4 + e % 4, "FADD", 4 + e % 4, 8 + e, 0, NULL,
                   0);
    synth_inst(w, 0x180, m, 20, "F2FP.F16.F32.PACK_AB", 4, 5, 0, NULL, 0);
    synth_inst(w, 0x190, m, 21, "F2FP.F16.F32.PACK_AB", 6, 7, 0, NULL, 0);
    synth_linear_addr(a, L->buf[2], tid0, 8);
    synth_inst(w, 0x1a0, m, -1, "STG.E.64", 3, 20, 8, a, 0);
    synth_inst(w, 0x1b0, m, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* two warps per token: k then v of every head into the cache at its
 * position; m = tokens, n = q, k = first position */
static void warp_kv(const synth_launch *L, uint32_t block, uint32_t warp, synth_warp *w)
{
    uint64_t a[32];
    uint64_t g = (uint64_t)block * 4 + warp, row = g / 2, which = g % 2;
    bool out = row >= L->m;
    prologue(w, out ? ALL : 0);
    if (out)
        return;
    uint64_t b = row / L->n, pos = L->k + row % L->n;
    synth_linear_addr(a, B_QKV + 2 * (row * 3 * D + D * (1 + which)), 0, 16);
    synth_inst(w, 0x50, ALL, 4, "LDG.E.128", 2, -1, 16, a, 0);
    uint64_t cache = (which ? B_VCACHE : B_KCACHE) + L->buf[0];
    for (int l = 0; l < 32; l++) {
        uint64_t h = (uint64_t)l / 8;
        a[l] = cache + 2 * (((b * HEADS + h) * MAX_LEN + pos) * HD) + 16 * (uint64_t)(l % 8);
    }
    synth_inst(w, 0x60, ALL, -1, "STG.E.128", 6, 4, 16, a, 0);
    synth_inst(w, 0x70, ALL, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* block per (sequence, head), 4 warps taking the keys in turn, a key a
 * warp instruction (32 lanes x 2 halves): the dot product's loads wait on
 * memory once per key, so the kernel's time grows with the cache; query i
 * sees keys < k + i + 1 (causal); buf[0] = cache offset of the layer; n = q,
 * k = first position */
static void warp_scores(const synth_launch *L, uint32_t block, uint32_t warp, synth_warp *w)
{
    uint64_t a[32];
    uint64_t b = block / HEADS, h = block % HEADS;
    uint64_t kc = B_KCACHE + L->buf[0] + 2 * ((b * HEADS + h) * MAX_LEN * HD);
    prologue(w, 0);
    for (uint64_t i = 0; i < L->n; i++) {
        uint64_t keys = L->k + i + 1, row = b * L->n + i;
        synth_linear_addr(a, B_QKV + 2 * (row * 3 * D + h * HD), 0, 4);
        synth_inst(w, 0x50, ALL, 4, "LDG.E", 2, -1, 4, a, 0);
        for (uint64_t j = warp; j < keys; j += 4) {
            synth_linear_addr(a, kc + 2 * j * HD, 0, 4);
            synth_inst(w, 0x60, ALL, 8, "LDG.E", 6, -1, 4, a, 0);
            synth_inst(w, 0x70, ALL, 12, "HMUL2", 4, 8, 0, NULL, 0);
            synth_inst(w, 0x80, ALL, 13, "HADD2.F32", 12, -1, 0, NULL, 0);
            reduce(w, 0x90, 13, 32, "FADD");
            synth_inst(w, 0x130, ALL, 13, "FMUL", 13, -1, 0, NULL, 0);
            synth_linear_addr(a, B_SC + 4 * (((b * HEADS + h) * L->n + i) * MAX_LEN + j), 0, 0);
            synth_inst(w, 0x140, 1, -1, "STG.E", 14, 13, 4, a, 0);
            ctrl(w, 0x150, ALL, j + 4 < keys ? ALL : 0, 0x60);
        }
        ctrl(w, 0x180, ALL, i + 1 < L->n ? ALL : 0, 0x50);
    }
    synth_inst(w, 0x1b0, ALL, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* one warp per row (sequence, head, query): max, exp and sum, scale; the
 * row's values stay in registers (at most 4 a lane) */
static void warp_softmax(const synth_launch *L, uint32_t block, uint32_t warp, synth_warp *w)
{
    uint64_t a[32];
    uint64_t row = (uint64_t)block * 4 + warp, rows = (uint64_t)BATCH * HEADS * L->n;
    bool out = row >= rows;
    prologue(w, out ? ALL : 0);
    if (out)
        return;
    uint64_t keys = L->k + row % L->n + 1, chunks = (keys + 31) / 32;
    for (uint64_t c = 0; c < chunks; c++) {
        uint32_t m = synth_lanes_below(32 * c, keys);
        synth_linear_addr(a, B_SC + 4 * (row * MAX_LEN + 32 * c), 0, 4);
        synth_inst(w, 0x50 + 0x20 * c, m, 4 + (int)c, "LDG.E", 2, -1, 4, a, 0);
        synth_inst(w, 0x60 + 0x20 * c, m, 8, "FMNMX", 8, 4 + (int)c, 0, NULL, 0);
    }
    reduce(w, 0xd0, 8, 32, "FMNMX");
    for (uint64_t c = 0; c < chunks; c++) {
        uint32_t m = synth_lanes_below(32 * c, keys);
        synth_inst(w, 0x170 + 0x30 * c, m, 4 + (int)c, "FADD", 4 + (int)c, 8, 0, NULL, 0);
        synth_inst(w, 0x180 + 0x30 * c, m, 4 + (int)c, "MUFU.EX2", 4 + (int)c, -1, 0, NULL, 0);
        synth_inst(w, 0x190 + 0x30 * c, m, 9, "FADD", 9, 4 + (int)c, 0, NULL, 0);
    }
    reduce(w, 0x230, 9, 32, "FADD");
    synth_inst(w, 0x2d0, ALL, 9, "MUFU.RCP", 9, -1, 0, NULL, 0);
    for (uint64_t c = 0; c < chunks; c++) {
        uint32_t m = synth_lanes_below(32 * c, keys);
        synth_inst(w, 0x2e0 + 0x30 * c, m, 4 + (int)c, "FMUL", 4 + (int)c, 9, 0, NULL, 0);
        synth_inst(w, 0x2f0 + 0x30 * c, m, 4 + (int)c, "F2FP.F16.F32.PACK_AB", 4 + (int)c, -1, 0,
                   NULL, 0);
        synth_linear_addr(a, B_PR + 2 * (row * MAX_LEN + 32 * c), 0, 2);
        synth_inst(w, 0x300 + 0x30 * c, m, -1, "STG.E.U16", 2, 4 + (int)c, 2, a, 0);
    }
    synth_inst(w, 0x3a0, ALL, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* block per (sequence, head): 4 warps taking the keys in turn, a row of V
 * a warp instruction (32 lanes x 2 halves) times its probability, then the
 * warps' sums through shared memory */
static void warp_values(const synth_launch *L, uint32_t block, uint32_t warp, synth_warp *w)
{
    uint64_t a[32];
    uint64_t b = block / HEADS, h = block % HEADS;
    uint64_t vc = B_VCACHE + L->buf[0] + 2 * ((b * HEADS + h) * MAX_LEN * HD);
    prologue(w, 0);
    for (uint64_t i = 0; i < L->n; i++) {
        uint64_t keys = L->k + i + 1;
        uint64_t prow = ((b * HEADS + h) * L->n + i) * MAX_LEN;
        for (uint64_t j = warp; j < keys; j += 4) {
            synth_linear_addr(a, B_PR + 2 * (prow + j), 0, 0);
            synth_inst(w, 0x50, ALL, 4, "LDG.E.U16", 2, -1, 2, a, 0);
            synth_linear_addr(a, vc + 2 * j * HD, 0, 4);
            synth_inst(w, 0x60, ALL, 8, "LDG.E", 6, -1, 4, a, 0);
            synth_inst(w, 0x70, ALL, 12, "HFMA2", 8, 4, 0, NULL, 0);
            ctrl(w, 0x80, ALL, j + 4 < keys ? ALL : 0, 0x50);
        }
        synth_linear_addr(a, B_SHARED + 128 * warp, 0, 4);
        synth_inst(w, 0xb0, ALL, -1, "STS", 3, 12, 4, a, 0);
        synth_inst(w, 0xc0, ALL, -1, "BAR.SYNC", -1, -1, 0, NULL, 0);
        if (warp == 0) {
            for (int s = 1; s < 4; s++) {
                synth_linear_addr(a, B_SHARED + 128 * (uint64_t)s, 0, 4);
                synth_inst(w, 0xc0 + 32 * (uint64_t)s, ALL, 24, "LDS", 3, -1, 4, a, 0);
                synth_inst(w, 0xd0 + 32 * (uint64_t)s, ALL, 12, "HADD2", 12, 24, 0, NULL, 0);
            }
            synth_linear_addr(a, B_AO + 2 * ((b * L->n + i) * D + h * HD), 0, 4);
            synth_inst(w, 0x140, ALL, -1, "STG.E", 10, 12, 4, a, 0);
        }
        synth_inst(w, 0x150, ALL, -1, "BAR.SYNC", -1, -1, 0, NULL, 0);
        ctrl(w, 0x160, ALL, i + 1 < L->n ? ALL : 0, 0x50);
    }
    synth_inst(w, 0x190, ALL, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* 8 elements a thread: x (fp32) += t (fp16); m = rows */
static void warp_resid(const synth_launch *L, uint32_t block, uint32_t warp, synth_warp *w)
{
    uint64_t a[32];
    uint64_t tid0 = (uint64_t)block * 256 + 32u * warp, threads = L->m * D / 8;
    uint32_t m = synth_lanes_below(tid0, threads);
    prologue(w, ~m);
    if (!m)
        return;
    synth_linear_addr(a, B_T, tid0, 16);
    synth_inst(w, 0x50, m, 4, "LDG.E.128", 2, -1, 16, a, 0);
    synth_linear_addr(a, B_X, 2 * tid0, 32);
    synth_inst(w, 0x60, m, 8, "LDG.E.128", 6, -1, 16, a, 0);
    synth_linear_addr(a, B_X + 16, 2 * tid0, 32);
    synth_inst(w, 0x70, m, 12, "LDG.E.128", 6, -1, 16, a, 0);
    for (int e = 0; e < 8; e++)
        synth_inst(w, 0x80 + 16 * (uint64_t)e, m, 8 + e, "HADD2.F32", 8 + e, 4 + e / 2, 0, NULL,
                   0);
    synth_linear_addr(a, B_X, 2 * tid0, 32);
    synth_inst(w, 0x100, m, -1, "STG.E.128", 6, 8, 16, a, 0);
    synth_linear_addr(a, B_X + 16, 2 * tid0, 32);
    synth_inst(w, 0x110, m, -1, "STG.E.128", 6, 12, 16, a, 0);
    synth_inst(w, 0x120, m, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* act = silu(gate) * up, 8 elements a thread; m = rows */
static void warp_silu(const synth_launch *L, uint32_t block, uint32_t warp, synth_warp *w)
{
    uint64_t a[32];
    uint64_t tid0 = (uint64_t)block * 256 + 32u * warp, threads = L->m * FFN / 8;
    uint32_t m = synth_lanes_below(tid0, threads);
    prologue(w, ~m);
    if (!m)
        return;
    for (int l = 0; l < 32; l++) {
        uint64_t t = tid0 + (uint64_t)l, row = t / (FFN / 8), c = t % (FFN / 8);
        a[l] = B_GU + 2 * (row * 2 * FFN + 8 * c);
    }
    synth_inst(w, 0x50, m, 4, "LDG.E.128", 2, -1, 16, a, 0);
    for (int l = 0; l < 32; l++)
        a[l] += 2 * FFN;
    synth_inst(w, 0x60, m, 8, "LDG.E.128", 2, -1, 16, a, 0);
    for (int e = 0; e < 4; e++) {
        uint64_t pc = 0x70 + 0x40 * (uint64_t)e;
        synth_inst(w, pc, m, 12 + e, "HMUL2", 4 + e, -1, 0, NULL, 0);
        synth_inst(w, pc + 16, m, 12 + e, "MUFU.EX2", 12 + e, -1, 0, NULL, 0);
        synth_inst(w, pc + 32, m, 12 + e, "MUFU.RCP", 12 + e, -1, 0, NULL, 0);
        synth_inst(w, pc + 48, m, 12 + e, "HMUL2", 12 + e, 8 + e, 0, NULL, 0);
    }
    synth_linear_addr(a, B_ACT, tid0, 16);
    synth_inst(w, 0x170, m, -1, "STG.E.128", 3, 12, 16, a, 0);
    synth_inst(w, 0x180, m, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* block per sequence, 256 threads over the vocabulary's logits */
static void warp_argmax(const synth_launch *L, uint32_t block, uint32_t warp, synth_warp *w)
{
    (void)L;
    uint64_t a[32];
    uint64_t b = block;
    prologue(w, 0);
    for (uint64_t it = 0; it < VOCAB / 8 / 256; it++) {
        synth_linear_addr(a, B_LG + 2 * (b * VOCAB + 8 * (it * 256 + 32u * warp)), 0, 16);
        synth_inst(w, 0x50 + 0x20 * it, ALL, 4, "LDG.E.128", 2, -1, 16, a, 0);
        synth_inst(w, 0x60 + 0x20 * it, ALL, 8, "HMNMX2", 8, 4, 0, NULL, 0);
    }
    reduce(w, 0xd0, 8, 32, "FMNMX");
    synth_linear_addr(a, B_SHARED + 4 * warp, 0, 0);
    synth_inst(w, 0x170, 1, -1, "STS", 3, 8, 4, a, 0);
    synth_inst(w, 0x180, ALL, -1, "BAR.SYNC", -1, -1, 0, NULL, 0);
    if (warp == 0) {
        synth_linear_addr(a, B_SHARED, 0, 4);
        synth_inst(w, 0x190, 0xffu, 8, "LDS", 3, -1, 4, a, 0);
        reduce(w, 0x1a0, 8, 8, "FMNMX");
        synth_linear_addr(a, B_TOK + 4 * b, 0, 0);
        synth_inst(w, 0x200, 1, -1, "STG.E", 2, 8, 4, a, 0);
    }
    synth_inst(w, 0x210, ALL, -1, "EXIT", -1, -1, 0, NULL, 0);
}

static void tf_warp(const synth_launch *L, uint32_t block, uint32_t warp, ks_rng *rng,
                    synth_warp *w)
{
    switch (L->kind) {
    case K_EMBED:
        warp_embed(L, block, warp, rng, w);
        break;
    case K_NORM:
        warp_norm(L, block, warp, w);
        break;
    case K_GEMM16:
    case K_GEMM64:
    case K_GEMMHEAD:
    case K_SPLIT:
        warp_gemm(L, block, warp, w);
        break;
    case K_REDUCE:
        warp_reduce_splits(L, block, warp, w);
        break;
    case K_KV:
        warp_kv(L, block, warp, w);
        break;
    case K_SCORES:
        warp_scores(L, block, warp, w);
        break;
    case K_SOFTMAX:
        warp_softmax(L, block, warp, w);
        break;
    case K_VALUES:
        warp_values(L, block, warp, w);
        break;
    case K_RESID:
        warp_resid(L, block, warp, w);
        break;
    case K_SILU:
        warp_silu(L, block, warp, w);
        break;
    default:
        warp_argmax(L, block, warp, w);
        break;
    }
}

/* ------------------------------------------------------------ schedule */

/* a GEMM of one of the four tile shapes */
static synth_launch gemm(int kind, uint64_t rows, uint64_t n, uint64_t k, uint64_t a, uint64_t wt,
                         uint64_t c)
{
    synth_launch L = {0};
    L.kind = kind;
    L.len = kind == K_GEMM64 ? 64 : 16;
    L.p = kind == K_GEMMHEAD ? 64 : 32;
    L.m = rows;
    L.n = n;
    L.k = k;
    L.buf[0] = a;
    L.buf[1] = wt;
    L.buf[2] = c;
    L.buf[3] = kind == K_SPLIT ? SPLITS : 0;
    L.block = 128;
    L.grid = (uint32_t)(((rows + L.len - 1) / L.len) * (n / 64) * (L.buf[3] ? SPLITS : 1));
    L.shmem = (uint32_t)((L.len + 64) * 2 * (uint64_t)L.p);
    L.nregs = kind == K_GEMM64 ? 128 : 64;
    return L;
}

/* launch j of step s (step 0, the prefill: PREFILL_LAUNCHES; then
 * STEP_LAUNCHES each, the down projection split over K and reduced) */
static synth_launch step_launch(uint64_t s, uint64_t j)
{
    uint64_t q = s == 0 ? PROMPT : 1, rows = BATCH * q;
    uint64_t first = s == 0 ? 0 : PROMPT + s - 1; /* position of the step's first token */
    uint64_t per_layer = s == 0 ? 13 : 14;
    int g = s == 0 ? K_GEMM64 : K_GEMM16;
    synth_launch L = {0};
    L.m = rows;
    L.n = q;
    L.k = first;
    if (j == 0) {
        L.kind = K_EMBED;
        L.block = 128;
        L.grid = (uint32_t)((rows + 3) / 4);
        return L;
    }
    if (j >= 1 + per_layer * LAYERS) {
        switch (j - 1 - per_layer * LAYERS) {
        case 0:
            L.kind = K_NORM;
            L.m = BATCH;
            L.p = 1; /* the last row of each sequence */
            L.buf[0] = B_NORMF;
            L.block = 128;
            L.grid = BATCH / 4;
            return L;
        case 1:
            return gemm(K_GEMMHEAD, BATCH, VOCAB, D, B_HN, B_HEAD, B_LG);
        default:
            L.kind = K_ARGMAX;
            L.block = 256;
            L.grid = BATCH;
            return L;
        }
    }
    uint64_t layer = (j - 1) / per_layer, op = (j - 1) % per_layer;
    uint64_t wl = B_LAYER + layer * LAYER_STRIDE;
    if (s == 0 && op >= 12)
        op++; /* the prefill's down projection is one GEMM: no reduce */
    L.buf[0] = layer * CACHE_STRIDE;
    switch (op) {
    case 0:
    case 8:
        L.kind = K_NORM;
        L.buf[0] = wl + (op ? W_NORM2 : W_NORM1);
        L.block = 128;
        L.grid = (uint32_t)((rows + 3) / 4);
        return L;
    case 1:
        return gemm(g, rows, 3 * D, D, B_HN, wl + W_QKV, B_QKV);
    case 2:
        L.kind = K_KV;
        L.block = 128;
        L.grid = (uint32_t)((2 * rows + 3) / 4);
        return L;
    case 3:
        L.kind = K_SCORES;
        L.block = 128;
        L.grid = BATCH * HEADS;
        return L;
    case 4:
        L.kind = K_SOFTMAX;
        L.block = 128;
        L.grid = (uint32_t)((BATCH * HEADS * q + 3) / 4);
        return L;
    case 5:
        L.kind = K_VALUES;
        L.block = 128;
        L.grid = BATCH * HEADS;
        L.shmem = 512;
        return L;
    case 6:
        return gemm(g, rows, D, D, B_AO, wl + W_O, B_T);
    case 7:
    case 13:
        L.kind = K_RESID;
        L.block = 256;
        L.grid = (uint32_t)((rows * D / 8 + 255) / 256);
        return L;
    case 9:
        return gemm(g, rows, 2 * FFN, D, B_HN, wl + W_GU, B_GU);
    case 10:
        L.kind = K_SILU;
        L.block = 256;
        L.grid = (uint32_t)((rows * FFN / 8 + 255) / 256);
        return L;
    case 11:
        return s == 0 ? gemm(K_GEMM64, rows, D, FFN, B_ACT, wl + W_DOWN, B_T)
                      : gemm(K_SPLIT, rows, D, FFN, B_ACT, wl + W_DOWN, B_WS);
    default:
        L.kind = K_REDUCE;
        L.n = D;
        L.buf[2] = B_T;
        L.block = 256;
        L.grid = (uint32_t)((rows * D / 4 + 255) / 256);
        return L;
    }
}

static void tf_plan(uint64_t launches, uint64_t seed, synth_launch *L)
{
    for (uint64_t i = 0; i < launches; i++) {
        uint64_t s = i < PREFILL_LAUNCHES ? 0 : 1 + (i - PREFILL_LAUNCHES) / STEP_LAUNCHES;
        uint64_t j = s == 0 ? i : (i - PREFILL_LAUNCHES) % STEP_LAUNCHES;
        L[i] = step_launch(s, j);
        L[i].seed = seed * 0x9E3779B97F4A7C15ull + i + 1;
    }
}

/* the weights and the first tokens the host copies in */
static const synth_copy tf_copies[] = {{B_EMB, 2ull * VOCAB * D},
                                       {B_LAYER + 0 * LAYER_STRIDE, 0x602000},
                                       {B_LAYER + 1 * LAYER_STRIDE, 0x602000},
                                       {B_LAYER + 2 * LAYER_STRIDE, 0x602000},
                                       {B_LAYER + 3 * LAYER_STRIDE, 0x602000},
                                       {B_NORMF, 2 * D},
                                       {B_HEAD, 2ull * VOCAB * D},
                                       {B_TOK, 4 * BATCH * PROMPT},
                                       {0, 0}};

const synth_trace_preset ks_synth_traces_transformer = {
    "transformer",
    "a small decoder-only transformer generating tokens",
    tf_names,
    PREFILL_LAUNCHES + STEP_LAUNCHES * 26,
    PREFILL_LAUNCHES + STEP_LAUNCHES * (MAX_LEN - PROMPT),
    tf_plan,
    tf_warp,
    tf_copies,
    "model: d_model 256, 4 heads of 64, 4 layers, SwiGLU 768, vocabulary 8192, fp16,\n"
    "batch 8, prompt 16 (step 0, prefill), then one token a step (KV cache up to 128);\n"
    "a step: embed, 4 x [rms_norm, gemm qkv, kv_append, attn_scores, softmax_rows,\n"
    "attn_values, gemm out, residual_add, rms_norm, gemm gate+up, silu_mul, gemm down\n"
    "(decode: split-K gemm and splitk_reduce), residual_add], rms_norm, gemm LM head,\n"
    "argmax_rows: 56 launches in the prefill, 60 in a decode step\n"};
