/*
 * synth.c - synthetic workloads in Nsight Systems cuda_kern_exec_trace CSV
 * format, the way zstd's datagen makes synthetic inputs: a real program whose
 * output goes through the same reader as a real profile.
 *
 * A workload is a catalogue of "slots" (kernel name + grid + block + duration
 * law) and a preset-specific builder that decides which slot launches next.
 * The duration laws model what the STEM paper's Figure 1 shows for real ML
 * workloads: one name with several peaks (a GEMM called with several shapes),
 * wide memory-bound kernels (lognormal, CV 0.3-0.6), stable compute kernels
 * (CV < 0.02), kernels whose every launch takes the same nanoseconds, hundreds
 * of rare names, and occasional heavy-tailed outliers.
 *
 * The output depends only on (preset, n, seed).  Rows are formatted by hand
 * into a 1 MiB buffer and written in large chunks: the generator exists to
 * make 10^7-row benchmark inputs in seconds, and number formatting is its
 * hot path (see put_u64).
 */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- catalogue */

typedef struct synth_slot {
    uint32_t name;
    double median_ns; /* lognormal median at progress x = 0 */
    double growth_ns; /* median grows by this per unit of the builder's x */
    double sigma;     /* lognormal shape; 0 = every launch takes exactly the median */
    char *suffix;     /* ",PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name\n" */
    size_t suffix_len;
} synth_slot;

typedef struct synth_emit {
    uint32_t slot;
    uint32_t pause_ns; /* host time spent before this launch (python, memcpy...) */
    double x;          /* progress variable fed to the slot's growth term */
} synth_emit;

typedef struct prefill_slots {
    uint32_t tokens;
    uint32_t embed, rms, add_rms, gemm_qkv, rope, cache, flash, gemm_o, allreduce, gemm_up,
        silu, gemm_down;
} prefill_slots;

typedef struct casio_state {
    uint32_t fill_int, embed, rms, add_rms, rope, cache, combine, allreduce;
    uint32_t gemm_qkv, gemm_o, gemm_up, silu, gemm_down, splitk;
    uint32_t splitkv; /* growth per KV position */
    uint32_t tail[24];
    uint32_t tail_count;
    prefill_slots prefill[3];
    uint32_t layers;
    uint32_t steps_left, kv, bucket;
} casio_state;

typedef struct peaks_state {
    uint32_t first[6], count[6];
    double weight[6][4];
    uint32_t order[8], order_len;
} peaks_state;

typedef struct rodinia_state {
    uint32_t gauss_fan1[3], gauss_fan2[3];
    uint32_t bfs_k1, bfs_k2;
    uint32_t hotspot[2];
    uint32_t nw1, nw2; /* first of 128 slots each, grid i = 1..128 */
    uint32_t srad1, srad2;
    uint32_t bp_fwd[2], bp_adj[2];
    uint32_t km_invert, km_point;
    uint32_t app;
} rodinia_state;

enum { NORMAL_CELLS = 4096 };

typedef struct synth synth;
typedef void (*synth_next_fn)(synth *s);

struct synth {
    ks_rng setup_rng; /* catalogue construction and builder decisions */
    ks_rng row_rng;   /* per-launch noise and timeline */
    uint32_t pid;

    ks_profile *names; /* only its interned names: the catalogue's kernel names */
    unsigned char *name_launched;

    synth_slot *slots;
    size_t slot_count, slot_capacity;
    size_t max_suffix;

    synth_emit *queue;
    size_t queue_len, queue_pos, queue_capacity;

    /* rare kernels: inserted between the builder's launches */
    uint32_t rare_first, rare_count;
    double rare_p;
    double outlier_p;

    synth_next_fn next;
    /* normal quantiles at k / NORMAL_CELLS, for the per-launch draws */
    double normal_q[NORMAL_CELLS + 1];
    union {
        casio_state casio;
        peaks_state peaks;
        struct {
            uint32_t first, count;
        } cycle;
        struct {
            uint32_t frequent[4];
        } heavy;
        rodinia_state rodinia;
    } u;
    bool oom;
};

static void *grow(synth *s, void *ptr, size_t *capacity, size_t need, size_t elem)
{
    if (s->oom)
        return NULL;
    if (ks_grow(&ptr, capacity, need, elem, NULL) != KS_OK) {
        s->oom = true;
        return NULL;
    }
    return ptr;
}

/* Id of name, added if new; *existed tells which.  0 with s->oom set when
 * memory runs out. */
static uint32_t name_id(synth *s, const char *name, bool *existed)
{
    if (s->oom)
        return 0;
    size_t before = s->names->name_count;
    uint32_t id;
    if (ks_profile_intern(s->names, name, strlen(name), &id, NULL) != KS_OK) {
        s->oom = true;
        return 0;
    }
    if (existed)
        *existed = s->names->name_count == before;
    return id;
}

/* The launch API nsys reports (the "_vNNNNN" suffix is stripped by nsys):
 * cuBLAS uses the driver's cuLaunchKernelEx, Triton the plain driver call,
 * NCCL the runtime's extended launch, everything else cudaLaunchKernel. */
static const char *launch_api(const char *name)
{
    if (strncmp(name, "triton_", 7) == 0)
        return "cuLaunchKernel";
    if (strncmp(name, "ampere_", 7) == 0 || strncmp(name, "sm80_xmma_gemm", 14) == 0 ||
        strncmp(name, "sm90_xmma_gemm", 14) == 0)
        return "cuLaunchKernelEx";
    if (strncmp(name, "nccl", 4) == 0)
        return "cudaLaunchKernelExC";
    return "cudaLaunchKernel";
}

static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                  "25262728293031323334353637383940414243444546474849"
                                  "50515253545556575859606162636465666768697071727374"
                                  "75767778798081828384858687888990919293949596979899";

/* Exactly eight digits, leading zeros kept; the four pairs are independent,
 * so the CPU computes them in parallel instead of one division after another. */
static inline void put8(char *p, uint32_t v)
{
    uint32_t hi = v / 10000, lo = v % 10000;
    memcpy(p, digit_pairs + 2 * (hi / 100), 2);
    memcpy(p + 2, digit_pairs + 2 * (hi % 100), 2);
    memcpy(p + 4, digit_pairs + 2 * (lo / 100), 2);
    memcpy(p + 6, digit_pairs + 2 * (lo % 100), 2);
}

/* Decimal formatting is the writer's hot path (seven numbers a row).  It
 * copies a fixed 24 bytes so the copy compiles to three moves instead of a
 * branch on the length; the bytes after the digits are overwritten by
 * whatever the caller writes next, so callers need 24 bytes of room. */
enum { PUT_U64_ROOM = 24 };
static char *put_u64(char *p, uint64_t v)
{
    static const uint64_t pow10[20] = {
        1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
        100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
        10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
        100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL};
    char tmp[48];
    memset(tmp + 24, ' ', 24);
    const uint64_t e8 = 100000000ULL, e16 = e8 * e8;
    put8(tmp + 16, (uint32_t)(v % e8));
    if (v >= e8) {
        put8(tmp + 8, (uint32_t)(v / e8 % e8));
        if (v >= e16)
            put8(tmp, (uint32_t)(v / e16));
    }
#if defined(__GNUC__)
    /* log10 from the bit length (1233/4096 ~ log10(2)), corrected by one
     * comparison: no data-dependent branch to mispredict */
    int digits = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;
    digits += digits < 20 && v >= pow10[digits];
    digits += digits == 0;
#else
    int digits = 1;
    while (digits < 20 && v >= pow10[digits])
        digits++;
#endif
    memcpy(p, tmp + 24 - digits, PUT_U64_ROOM);
    return p + digits;
}

/* nsys prints dimensions with SQLite's printf('%4d %4d %4d'). */
static char *put_dim3(char *p, uint32_t x, uint32_t y, uint32_t z)
{
    uint32_t v[3] = {x, y, z};
    for (int k = 0; k < 3; k++) {
        char tmp[12 + PUT_U64_ROOM];
        char *e = put_u64(tmp, v[k]);
        if (k)
            *p++ = ' ';
        for (long pad = 4 - (e - tmp); pad > 0; pad--)
            *p++ = ' ';
        memcpy(p, tmp, (size_t)(e - tmp));
        p += e - tmp;
    }
    return p;
}

static uint32_t add_slot(synth *s, uint32_t name, uint32_t gx, uint32_t gy, uint32_t gz,
                         uint32_t bx, uint32_t by, uint32_t bz, double median_ns,
                         double sigma, double growth_ns)
{
    synth_slot *slots = grow(s, s->slots, &s->slot_capacity, s->slot_count + 1, sizeof *slots);
    if (!slots)
        return 0;
    s->slots = slots;
    const char *nm = s->names->names[name];
    size_t len = strlen(nm);
    /* worst case: every byte a doubled quote, plus numbers and the API name */
    char *buf = malloc(2 * len + 160);
    if (!buf) {
        s->oom = true;
        return 0;
    }
    char *p = buf;
    *p++ = ',';
    p = put_u64(p, s->pid);
    *p++ = ',';
    p = put_u64(p, s->pid); /* the launching thread is the main thread */
    memcpy(p, ",0,", 3);
    p += 3;
    const char *api = launch_api(nm);
    memcpy(p, api, strlen(api));
    p += strlen(api);
    *p++ = ',';
    p = put_dim3(p, gx, gy, gz);
    *p++ = ',';
    p = put_dim3(p, bx, by, bz);
    *p++ = ',';
    /* quoted as Python's csv module (QUOTE_MINIMAL) does for nsys */
    bool quote = strpbrk(nm, ",\"\r\n") != NULL;
    if (quote)
        *p++ = '"';
    for (const char *q = nm; *q; q++) {
        if (*q == '"')
            *p++ = '"';
        *p++ = *q;
    }
    if (quote)
        *p++ = '"';
    *p++ = '\n';
    synth_slot *sl = &s->slots[s->slot_count];
    sl->name = name;
    sl->median_ns = median_ns < 1 ? 1 : median_ns;
    sl->sigma = sigma;
    sl->growth_ns = growth_ns;
    sl->suffix = buf;
    sl->suffix_len = (size_t)(p - buf);
    if (sl->suffix_len > s->max_suffix)
        s->max_suffix = sl->suffix_len;
    return (uint32_t)s->slot_count++;
}

static uint32_t kernel(synth *s, const char *name, uint32_t gx, uint32_t gy, uint32_t gz,
                       uint32_t bx, uint32_t by, uint32_t bz, double median_ns, double sigma)
{
    uint32_t id = name_id(s, name, NULL);
    if (s->oom)
        return 0;
    return add_slot(s, id, gx, gy, gz, bx, by, bz, median_ns, sigma, 0);
}

static void emit(synth *s, uint32_t slot, double x, uint32_t pause_ns)
{
    synth_emit *q = grow(s, s->queue, &s->queue_capacity, s->queue_len + 1, sizeof *q);
    if (!q)
        return;
    s->queue = q;
    s->queue[s->queue_len++] = (synth_emit){slot, pause_ns, x};
}

static double log_uniform(ks_rng *rng, double lo, double hi)
{
    return exp(log(lo) + ks_rng_uniform(rng) * (log(hi) - log(lo)));
}

static uint32_t lognormal_pause(ks_rng *rng, double median, double sigma)
{
    double v = median * exp(sigma * ks_rng_normal(rng));
    return v > 4e9 ? 4000000000u : (uint32_t)v;
}

/* ------------------------------------------------------------ rare names */

static const char *const triton_ops[] = {
    "add", "mul", "_to_copy", "cat", "embedding", "view", "clone", "slice", "pow",
    "rsqrt", "mean", "neg", "sigmoid", "silu", "where", "lt", "index_put", "exp",
    "sub", "div", "sum", "amax", "gelu", "tanh", "unsqueeze", "expand", "bmm", "zeros",
};
static const char *const functors[] = {
    "AbsFunctor", "NegFunctor", "SqrtFunctor", "ExpFunctor", "LogFunctor", "SigmoidFunctor",
    "TanhFunctor", "ReciprocalFunctor", "CeilFunctor", "FloorFunctor", "SignFunctor",
    "ErfFunctor", "RoundFunctor", "TruncFunctor",
};
static const char *const dtypes[] = {
    "float", "c10::Half", "c10::BFloat16", "double", "int", "long", "signed char",
};
static const char *const reduce_ops[] = {"MeanOps", "NormOps", "ArgMinOps", "MinOps",
                                         "MaxOps", "WelfordOps"};
static const char *const nccl_colls[] = {"AllReduce", "AllGather", "ReduceScatter",
                                         "Broadcast", "Reduce"};
static const char *const nccl_algos[] = {"RING", "TREE", "NVLS", "COLLNET_DIRECT"};
static const char *const nccl_protos[] = {"LL", "LL128", "SIMPLE"};
static const char *const nccl_types[] = {"f32", "f16", "bf16", "i32", "u8"};
/* Names that real traces contain and that trip naive parsers: a double quote
 * (a C++ literal operator), no parameter list, a mangled name, '(' inside
 * the template arguments. */
static const char *const odd_names[] = {
    "void (anonymous namespace)::unit_kernel<operator\"\" _us(unsigned long long)>(long*, int)",
    "kernel",
    "_Z12matmulKernelPfS_S_i",
    "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, "
    "unsigned int, 1, 4, bool>(at::cuda::detail::TensorInfo<float const, unsigned int>, "
    "at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<bool, "
    "unsigned int>, unsigned int, float, at::PhiloxCudaState)",
    "void thrust::cuda_cub::core::_kernel_agent<thrust::cuda_cub::__fill::functor<"
    "thrust::device_ptr<int>, int>, long>(thrust::cuda_cub::__fill::functor<"
    "thrust::device_ptr<int>, int>, long)",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Writes the rare name of family f with index j into buf; false when the
 * family has fewer than j+1 names. */
static bool rare_name(synth *s, unsigned f, uint64_t j, char *buf, size_t size)
{
    switch (f) {
    case 0:
    case 1:
    case 2: { /* Inductor-generated Triton kernels: unbounded, numbered */
        static const char *const kind[] = {"poi", "red", "per"};
        int len = snprintf(buf, size, "triton_%s_fused", kind[f]);
        unsigned words = 2 + (unsigned)ks_rng_below(&s->setup_rng, 4);
        for (unsigned w = 0; w < words && len < (int)size; w++)
            len += snprintf(buf + len, size - (size_t)len, "_%s",
                            triton_ops[ks_rng_below(&s->setup_rng, COUNT(triton_ops))]);
        snprintf(buf + len, size - (size_t)len, "_%llu", (unsigned long long)j);
        return true;
    }
    case 3: { /* unary elementwise: functor x dtype */
        if (j >= COUNT(functors) * COUNT(dtypes))
            return false;
        const char *fn = functors[j % COUNT(functors)];
        const char *ty = dtypes[j / COUNT(functors)];
        snprintf(buf, size,
                 "void at::native::elementwise_kernel<128, 2, "
                 "at::native::gpu_kernel_impl_nocast<at::native::%s<%s> >("
                 "at::TensorIteratorBase&, at::native::%s<%s> const&)::{lambda(int)#1}>(int, "
                 "at::native::gpu_kernel_impl_nocast<at::native::%s<%s> >("
                 "at::TensorIteratorBase&, at::native::%s<%s> const&)::{lambda(int)#1})",
                 fn, ty, fn, ty, fn, ty, fn, ty);
        return true;
    }
    case 4: { /* reductions: threads x op x dtype */
        static const unsigned threads[] = {128, 256, 512};
        if (j >= COUNT(threads) * COUNT(reduce_ops) * COUNT(dtypes))
            return false;
        unsigned t = threads[j % COUNT(threads)];
        const char *op = reduce_ops[(j / COUNT(threads)) % COUNT(reduce_ops)];
        const char *ty = dtypes[j / (COUNT(threads) * COUNT(reduce_ops))];
        snprintf(buf, size,
                 "void at::native::reduce_kernel<%u, 1, at::native::ReduceOp<%s, "
                 "at::native::%s<%s>, unsigned int, %s, 4> >(at::native::ReduceOp<%s, "
                 "at::native::%s<%s>, unsigned int, %s, 4>)",
                 t, ty, op, ty, ty, ty, op, ty, ty);
        return true;
    }
    case 5: { /* CUTLASS GEMM tile configurations */
        static const unsigned tm[] = {64, 128, 256}, tn[] = {64, 128, 256};
        static const char *const stage[] = {"32x3", "32x4", "32x5", "64x3", "64x4"};
        static const char *const layout[] = {"nn", "nt", "tn", "tt"};
        static const unsigned align[] = {1, 2, 4, 8};
        static const char *const prec[] = {"f16", "bf16", "tf32"};
        uint64_t k = j;
        unsigned a = (unsigned)(k % 3);
        k /= 3;
        unsigned b = (unsigned)(k % 3);
        k /= 3;
        unsigned c = (unsigned)(k % 5);
        k /= 5;
        unsigned d = (unsigned)(k % 4);
        k /= 4;
        unsigned e = (unsigned)(k % 4);
        k /= 4;
        if (k >= COUNT(prec))
            return false;
        char cfg[128];
        snprintf(cfg, sizeof cfg, "cutlass_80_tensorop_%s_s16816gemm_%s_%ux%u_%s_%s_align%u",
                 prec[k], prec[k], tm[a], tn[b], stage[c], layout[d], align[e]);
        snprintf(buf, size, "void cutlass::Kernel2<%s>(%s::Params)", cfg, cfg);
        return true;
    }
    case 6: { /* NCCL collectives */
        uint64_t k = j;
        const char *c = nccl_colls[k % COUNT(nccl_colls)];
        k /= COUNT(nccl_colls);
        const char *a = nccl_algos[k % COUNT(nccl_algos)];
        k /= COUNT(nccl_algos);
        const char *p = nccl_protos[k % COUNT(nccl_protos)];
        k /= COUNT(nccl_protos);
        if (k >= COUNT(nccl_types))
            return false;
        snprintf(buf, size, "ncclDevKernel_%s_Sum_%s_%s_%s(ncclDevKernelArgsStorage<4096ul>)",
                 c, nccl_types[k], a, p);
        return true;
    }
    case 7:
        if (j >= COUNT(odd_names))
            return false;
        snprintf(buf, size, "%s", odd_names[j]);
        return true;
    }
    return false;
}

/* count rare kernels with their own durations; they keep one launch
 * configuration each, as a one-off operator does */
static void add_rare(synth *s, uint32_t count)
{
    enum { FAMILIES = 8 };
    uint64_t next_index[FAMILIES] = {0};
    char buf[2048];
    s->rare_first = (uint32_t)s->slot_count;
    for (uint32_t i = 0; i < count && !s->oom; i++) {
        unsigned f = (unsigned)(i % FAMILIES);
        uint32_t id;
        for (;;) {
            bool have = rare_name(s, f, next_index[f]++, buf, sizeof buf);
            if (!have) { /* family exhausted: Triton names never run out */
                f = 0;
                continue;
            }
            bool existed;
            id = name_id(s, buf, &existed);
            if (s->oom || !existed)
                break;
        }
        if (s->oom)
            return;
        static const uint32_t blocks[] = {32, 64, 128, 256, 512, 1024};
        uint32_t gx = 1 + (uint32_t)ks_rng_below(&s->setup_rng, 4096);
        uint32_t gy = ks_rng_below(&s->setup_rng, 5) == 0
                          ? 1 + (uint32_t)ks_rng_below(&s->setup_rng, 64)
                          : 1;
        uint32_t bx = blocks[ks_rng_below(&s->setup_rng, COUNT(blocks))];
        double median = round(log_uniform(&s->setup_rng, 700, 2e6));
        static const double sigmas[] = {0, 0, 0.01, 0.01, 0.05, 0.05, 0.2, 0.2, 0.35, 0.5};
        double sigma = sigmas[ks_rng_below(&s->setup_rng, COUNT(sigmas))];
        add_slot(s, id, gx, gy, 1, bx, 1, 1, median, sigma, 0);
    }
    s->rare_count = (uint32_t)(s->slot_count - s->rare_first);
}

static uint32_t clamp_u64(uint64_t v, uint32_t lo, uint32_t hi)
{
    return v < lo ? lo : v > hi ? hi : (uint32_t)v;
}

/* --------------------------------------------------------- casio-like */

/* An LLM served with continuous requests: one prefill step (prompt of 256,
 * 1024 or 2048 tokens) then 16..128 decode steps, each step 32 decoder layers
 * of ~14 kernels plus a sampling tail.  The same cuBLAS kernel serves the
 * QKV, output and down projections with different grids, so its name has
 * three peaks; prefill GEMMs use another tile and scale with the prompt. */
static const char *const N_FILL_INT =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<int>, at::detail::Array<char*, "
    "1>)";
static const char *const N_FILL_FLOAT =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1>)";
static const char *const N_EMBED =
    "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, "
    "unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, "
    "at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, "
    "at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned "
    "int, long)";
static const char *const N_RMS =
    "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, "
    "c10::BFloat16 const*, float, int, int)";
static const char *const N_ADD_RMS =
    "void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16*, "
    "c10::BFloat16 const*, float, int, int)";
static const char *const N_GEMM_DECODE =
    "ampere_bf16_s16816gemm_bf16_64x64_sliced1x2_ldg8_f2f_stages_64x5_tn";
static const char *const N_GEMM_UP =
    "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x128x64_stage4_warpsize2x2x1_"
    "tensor16x8x16_kernel";
static const char *const N_GEMM_PREFILL =
    "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn";
static const char *const N_SPLITK =
    "void splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, true, "
    "false, false>(cublasSplitKParams<float>, float const*, __nv_bfloat16 const*, "
    "__nv_bfloat16*, float const*, float const*, __nv_bfloat16 const*, float const*, "
    "__nv_bfloat16*, void*, long, float*, int*)";
static const char *const N_ROPE =
    "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, "
    "c10::BFloat16*, c10::BFloat16 const*, int, long, long, int, int, int)";
static const char *const N_CACHE =
    "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, "
    "(vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*, __nv_bfloat16 const*, "
    "__nv_bfloat16*, __nv_bfloat16*, long const*, int, int, int, int, int, int, float const*, "
    "float const*)";
static const char *const N_SPLITKV =
    "void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t> >, true, "
    "false, false, false, true, true, false, false>(Flash_fwd_params)";
static const char *const N_COMBINE =
    "void flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, "
    "false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t> >, "
    "4, 3, false>(Flash_fwd_params)";
static const char *const N_FLASH =
    "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, "
    "true, false, false, true, true, false, false>(Flash_fwd_params)";
static const char *const N_ALLREDUCE =
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
static const char *const N_SILU =
    "void vllm::act_and_mul_kernel<c10::BFloat16, &(c10::BFloat16 "
    "vllm::silu_kernel<c10::BFloat16>(c10::BFloat16 const&)), false>(c10::BFloat16*, "
    "c10::BFloat16 const*, int)";
static const char *const N_LMHEAD =
    "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize160x128x32_stage4_warpsize2x2x1_"
    "tensor16x8x16_kernel";

typedef struct tail_kernel {
    const char *name;
    uint32_t gx, bx;
    double median, sigma;
    unsigned repeat;
} tail_kernel;

/* The sampling tail of every step: logits to float, temperature, penalties,
 * top-k/top-p via sort and scan, the draw, bookkeeping. */
static const tail_kernel casio_tail[] = {
    {"void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<"
     "at::native::index_kernel_impl<at::native::OpaqueType<2> >(at::TensorIteratorBase&, "
     "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>("
     "at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, "
     "at::native::index_kernel_impl<at::native::OpaqueType<2> >(at::TensorIteratorBase&, "
     "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1} "
     "const&)::{lambda(int)#1}>(long, at::native::gpu_index_kernel<"
     "at::native::index_kernel_impl<at::native::OpaqueType<2> >(at::TensorIteratorBase&, "
     "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>("
     "at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, "
     "at::native::index_kernel_impl<at::native::OpaqueType<2> >(at::TensorIteratorBase&, "
     "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1} "
     "const&)::{lambda(int)#1})",
     64, 128, 2400, 0.30, 1},
    {NULL, 0, 0, 0, 0, 0}, /* lm_head, filled in by setup */
    {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda("
     "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
     "const::{lambda(float)#1}, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, "
     "unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
     "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, "
     "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()"
     "() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, "
     "2>, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
     "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>)",
     1002, 128, 5200, 0.45, 1},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, "
     "float, float, at::native::binary_internal::DivFunctor<float> >, at::detail::Array<char*, "
     "3> >(int, at::native::BinaryFunctor<float, float, float, "
     "at::native::binary_internal::DivFunctor<float> >, at::detail::Array<char*, 3>)",
     501, 128, 3400, 0.40, 1},
    {"triton_poi_fused_add_mul_where_0", 1002, 256, 4100, 0.30, 1},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::AbsFunctor<float>, "
     "at::detail::Array<char*, 2> >(int, at::native::AbsFunctor<float>, "
     "at::detail::Array<char*, 2>)",
     501, 128, 2200, 0.50, 1},
    {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
     "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
     8, 1024, 11000, 0.30, 1},
    {"void at_cuda_detail::cub::DeviceRadixSortHistogramKernel<"
     "at_cuda_detail::cub::DeviceRadixSortPolicy<float, long, int>::Policy800, true, float, "
     "int, at_cuda_detail::cub::detail::identity_decomposer_t>(int*, float const*, int, int, "
     "int, at_cuda_detail::cub::detail::identity_decomposer_t)",
     216, 128, 6000, 0.30, 1},
    {"void at_cuda_detail::cub::DeviceRadixSortOnesweepKernel<"
     "at_cuda_detail::cub::DeviceRadixSortPolicy<float, long, int>::Policy800, true, float, "
     "long, int, int, at_cuda_detail::cub::detail::identity_decomposer_t>(int*, int*, int*, int "
     "const*, float*, float const*, long*, long const*, int, int, int, "
     "at_cuda_detail::cub::detail::identity_decomposer_t)",
     73, 384, 14000, 0.35, 4},
    {"void at_cuda_detail::cub::DeviceScanInitKernel<at_cuda_detail::cub::ScanTileState<float, "
     "true> >(at_cuda_detail::cub::ScanTileState<float, true>, int)",
     1, 128, 1900, 0.02, 1},
    {"void at_cuda_detail::cub::DeviceScanKernel<at_cuda_detail::cub::DeviceScanPolicy<float, "
     "std::plus<float> >::Policy600, float*, float*, at_cuda_detail::cub::ScanTileState<float, "
     "true>, std::plus<float>, at_cuda_detail::cub::NullType, int, float>(float*, float*, "
     "at_cuda_detail::cub::ScanTileState<float, true>, int, std::plus<float>, "
     "at_cuda_detail::cub::NullType, int)",
     85, 128, 9000, 0.30, 1},
    {"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
     "at::native::(anonymous namespace)::where_kernel_impl(at::TensorIterator&)::{lambda()#1}::"
     "operator()() const::{lambda()#9}::operator()() const::{lambda(bool, float, float)#1}>("
     "at::TensorIteratorBase&, at::native::(anonymous namespace)::where_kernel_impl("
     "at::TensorIterator&)::{lambda()#1}::operator()() const::{lambda()#9}::operator()() "
     "const::{lambda(bool, float, float)#1} const&)::{lambda(int)#1}>(int, "
     "at::native::gpu_kernel_impl_nocast<at::native::(anonymous namespace)::where_kernel_impl("
     "at::TensorIterator&)::{lambda()#1}::operator()() const::{lambda()#9}::operator()() "
     "const::{lambda(bool, float, float)#1}>(at::TensorIteratorBase&, "
     "at::native::(anonymous namespace)::where_kernel_impl(at::TensorIterator&)::{lambda()#1}::"
     "operator()() const::{lambda()#9}::operator()() const::{lambda(bool, float, float)#1} "
     "const&)::{lambda(int)#1})",
     1002, 128, 3300, 0.45, 1},
    {"void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, "
     "4, at::native::templates::cuda::exponential_kernel<at::CUDAGeneratorImpl*>("
     "at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() "
     "const::{lambda()#2}::operator()() const::{lambda(curandStatePhilox4_32_10*)#2}>(long, "
     "at::PhiloxCudaState, at::native::templates::cuda::exponential_kernel<"
     "at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*)::"
     "{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda("
     "curandStatePhilox4_32_10*)#2})",
     216, 256, 4400, 0.30, 1},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
     "at::native::ArgMaxOps<float>, unsigned int, long, 4> >(at::native::ReduceOp<float, "
     "at::native::ArgMaxOps<float>, unsigned int, long, 4>)",
     8, 512, 7000, 0.45, 1},
    {"void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<"
     "at::native::(anonymous namespace)::OpaqueType<8u>, unsigned int, 1, 128, 1>("
     "at::native::(anonymous namespace)::OpaqueType<8u>*, at::native::(anonymous "
     "namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<8u>, "
     "unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, "
     "4u>, int, unsigned int)",
     1, 128, 2800, 0.40, 1},
    {NULL, 0, 0, 0, 0, 0}, /* FillFunctor<float>: constant, filled in by setup */
    {"triton_poi_fused_add_index_copy_1", 1, 128, 1632, 0, 1},
};

static void casio_next(synth *s)
{
    ks_rng *r = &s->setup_rng;
    casio_state *c = &s->u.casio;
    bool prefill = c->steps_left == 0;
    if (prefill) {
        /* prompt lengths: half short chats, some long documents */
        uint64_t u = ks_rng_below(r, 10);
        c->bucket = u < 5 ? 0 : u < 8 ? 1 : 2;
        c->kv = c->prefill[c->bucket].tokens;
        c->steps_left = 16 + (uint32_t)ks_rng_below(r, 113);
    } else {
        c->steps_left--;
        c->kv++;
    }
    /* python scheduler overhead between steps, larger before a prefill */
    emit(s, c->fill_int, 0, lognormal_pause(r, prefill ? 900000 : 150000, 0.5));
    if (prefill) {
        prefill_slots *p = &c->prefill[c->bucket];
        emit(s, p->embed, 0, 0);
        for (uint32_t l = 0; l < c->layers; l++) {
            emit(s, l == 0 ? p->rms : p->add_rms, 0, 0);
            emit(s, p->gemm_qkv, 0, 0);
            emit(s, p->rope, 0, 0);
            emit(s, p->cache, 0, 0);
            emit(s, p->flash, 0, 0);
            emit(s, p->gemm_o, 0, 0);
            emit(s, p->allreduce, 0, 0);
            emit(s, p->add_rms, 0, 0);
            emit(s, p->gemm_up, 0, 0);
            emit(s, p->silu, 0, 0);
            emit(s, p->gemm_down, 0, 0);
            emit(s, p->allreduce, 0, 0);
        }
    } else {
        emit(s, c->embed, 0, 0);
        for (uint32_t l = 0; l < c->layers; l++) {
            emit(s, l == 0 ? c->rms : c->add_rms, 0, 0);
            emit(s, c->gemm_qkv, 0, 0);
            emit(s, c->rope, 0, 0);
            emit(s, c->cache, 0, 0);
            emit(s, c->splitkv, c->kv, 0);
            emit(s, c->combine, 0, 0);
            emit(s, c->gemm_o, 0, 0);
            emit(s, c->allreduce, 0, 0);
            emit(s, c->add_rms, 0, 0);
            emit(s, c->gemm_up, 0, 0);
            emit(s, c->silu, 0, 0);
            emit(s, c->gemm_down, 0, 0);
            emit(s, c->splitk, 0, 0);
            emit(s, c->allreduce, 0, 0);
        }
    }
    emit(s, c->rms, 0, 0);
    for (uint32_t i = 0; i < c->tail_count; i++)
        emit(s, c->tail[i], 0, 0);
}

static void casio_setup(synth *s, uint64_t n)
{
    casio_state *c = &s->u.casio;
    const uint32_t batch = 32;
    c->layers = 32;
    c->fill_int = kernel(s, N_FILL_INT, 1, 1, 1, 64, 1, 1, 1472, 0);
    c->embed = kernel(s, N_EMBED, 256, 1, 1, 128, 8, 1, 3100, 0.08);
    c->rms = kernel(s, N_RMS, batch, 1, 1, 1024, 1, 1, 2900, 0.03);
    c->add_rms = kernel(s, N_ADD_RMS, batch, 1, 1, 512, 1, 1, 3400, 0.03);
    c->gemm_qkv = kernel(s, N_GEMM_DECODE, 96, 1, 1, 128, 1, 1, 24000, 0.02);
    c->rope = kernel(s, N_ROPE, batch, 1, 1, 256, 1, 1, 2600, 0.05);
    c->cache = kernel(s, N_CACHE, batch, 1, 1, 512, 1, 1, 2200, 0.06);
    uint32_t splitkv = name_id(s, N_SPLITKV, NULL);
    if (!s->oom) /* attention cost grows with the KV length */
        c->splitkv = add_slot(s, splitkv, 4, 32, batch, 128, 1, 1, 6000, 0.04, 2.2);
    c->combine = kernel(s, N_COMBINE, 1, 32, batch, 128, 1, 1, 2900, 0.03);
    c->gemm_o = kernel(s, N_GEMM_DECODE, 32, 1, 1, 128, 1, 1, 9200, 0.02);
    c->allreduce = kernel(s, N_ALLREDUCE, 8, 1, 1, 512, 1, 1, 11000, 0.5);
    c->gemm_up = kernel(s, N_GEMM_UP, 172, 1, 1, 128, 1, 1, 41000, 0.015);
    c->silu = kernel(s, N_SILU, batch, 1, 1, 1024, 1, 1, 3600, 0.35);
    c->gemm_down = kernel(s, N_GEMM_DECODE, 32, 1, 4, 128, 1, 1, 58000, 0.02);
    c->splitk = kernel(s, N_SPLITK, 64, 1, 1, 512, 1, 1, 2700, 0.05);

    static const uint32_t prompt[3] = {256, 1024, 2048};
    for (int b = 0; b < 3; b++) {
        prefill_slots *p = &c->prefill[b];
        uint32_t m = prompt[b], tiles = m / 128;
        double f = m / 256.0;
        p->tokens = m;
        p->embed = kernel(s, N_EMBED, m * 8, 1, 1, 128, 8, 1, 3100 * f * 2, 0.08);
        p->rms = kernel(s, N_RMS, m, 1, 1, 1024, 1, 1, 5200 * f, 0.05);
        p->add_rms = kernel(s, N_ADD_RMS, m, 1, 1, 512, 1, 1, 6100 * f, 0.05);
        p->gemm_qkv = kernel(s, N_GEMM_PREFILL, 24, tiles, 1, 256, 1, 1, 45000 * f, 0.02);
        p->rope = kernel(s, N_ROPE, m, 1, 1, 256, 1, 1, 3900 * f, 0.05);
        p->cache = kernel(s, N_CACHE, m, 1, 1, 512, 1, 1, 3300 * f, 0.06);
        /* attention is quadratic in the prompt */
        p->flash = kernel(s, N_FLASH, tiles, 32, 1, 128, 1, 1, 22000 * f * f, 0.03);
        p->gemm_o = kernel(s, N_GEMM_PREFILL, 32, tiles, 1, 256, 1, 1, 16000 * f, 0.02);
        p->allreduce = kernel(s, N_ALLREDUCE, 8, 1, 1, 512, 1, 1, 40000 * f, 0.5);
        p->gemm_up = kernel(s, N_GEMM_PREFILL, 86, tiles, 1, 256, 1, 1, 110000 * f, 0.02);
        p->silu = kernel(s, N_SILU, m, 1, 1, 1024, 1, 1, 7400 * f, 0.35);
        /* same grid as the output projection, 2.7x the K dimension */
        p->gemm_down = kernel(s, N_GEMM_PREFILL, 32, tiles, 1, 256, 1, 1, 50000 * f, 0.02);
    }

    c->tail_count = 0;
    for (size_t i = 0; i < COUNT(casio_tail); i++) {
        const tail_kernel *t = &casio_tail[i];
        uint32_t slot;
        unsigned repeat = 1;
        if (i == 1) /* big, stable, the longest kernel of a decode step */
            slot = kernel(s, N_LMHEAD, 250, 1, 1, 256, 1, 1, 310000, 0.01);
        else if (!t->name)
            slot = kernel(s, N_FILL_FLOAT, 1, 1, 1, 64, 1, 1, 1408, 0);
        else {
            slot = kernel(s, t->name, t->gx, 1, 1, t->bx, 1, 1, t->median, t->sigma);
            repeat = t->repeat;
        }
        for (unsigned k = 0; k < repeat && c->tail_count < COUNT(c->tail); k++)
            c->tail[c->tail_count++] = slot;
    }
    c->steps_left = 0;

    /* ~4 launches per rare name whatever n is, so they stay rare */
    uint32_t rare = clamp_u64(n / 250, 256, 4000);
    add_rare(s, rare);
    s->rare_p = fmin(0.02, 4.0 * rare / (double)n);
    s->outlier_p = 1e-4;
    s->next = casio_next;
}

/* --------------------------------------------------------- multi-peak */

typedef struct peak_mode {
    uint32_t gx, gy;
    double median, weight;
} peak_mode;

typedef struct peak_kernel {
    const char *name;
    uint32_t bx, by;
    double sigma;
    peak_mode modes[4];
} peak_kernel;

/* Grids differ for the GEMM and the convolution (a shape per peak); the
 * attention and reduction peaks share one grid (sequence lengths, a sparse
 * mask), so grouping by name+grid+block still sees several peaks. */
static const peak_kernel peak_kernels[] = {
    {"sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x256x64_stage3_warpsize2x4x1_"
     "tensor16x8x16_kernel",
     256, 1, 0.03,
     {{64, 1, 45000, 4}, {128, 1, 88000, 3}, {256, 1, 170000, 2}, {32, 4, 120000, 1}}},
    {"fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<"
     "cutlass::half_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
     32, 4, 0.04,
     {{16, 32, 30000, 3}, {16, 32, 75000, 2}, {16, 32, 140000, 1}}},
    {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_"
     "stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn_infer",
     128, 1, 0.03,
     {{98, 1, 210000, 1}, {392, 1, 690000, 1}}},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
     "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
     "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, "
     "4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
     "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda("
     "float, float)#1}>, unsigned int, float, 4>)",
     32, 16, 0.05,
     {{108, 1, 4000, 2}, {108, 1, 41000, 1}}},
};

static void peaks_next(synth *s)
{
    peaks_state *c = &s->u.peaks;
    for (uint32_t i = 0; i < c->order_len; i++) {
        uint32_t k = c->order[i];
        double total = 0;
        for (uint32_t m = 0; m < c->count[k]; m++)
            total += c->weight[k][m];
        double u = ks_rng_uniform(&s->setup_rng) * total;
        uint32_t m = 0;
        while (m + 1 < c->count[k] && u >= c->weight[k][m])
            u -= c->weight[k][m++];
        emit(s, c->first[k] + m, 0, i == 0 ? lognormal_pause(&s->setup_rng, 40000, 0.5) : 0);
    }
}

static void peaks_setup(synth *s, uint64_t n)
{
    peaks_state *c = &s->u.peaks;
    for (uint32_t k = 0; k < COUNT(peak_kernels); k++) {
        const peak_kernel *pk = &peak_kernels[k];
        c->first[k] = (uint32_t)s->slot_count;
        c->count[k] = 0;
        for (uint32_t m = 0; m < 4 && pk->modes[m].weight > 0; m++) {
            const peak_mode *md = &pk->modes[m];
            kernel(s, pk->name, md->gx, md->gy, 1, pk->bx, pk->by, 1, md->median, pk->sigma);
            c->weight[k][m] = md->weight;
            c->count[k]++;
        }
    }
    static const uint32_t order[] = {0, 1, 0, 3, 2, 0};
    memcpy(c->order, order, sizeof order);
    c->order_len = COUNT(order);
    s->outlier_p = 5e-5;
    s->next = peaks_next;
    (void)n;
}

/* ------------------------------------------------- stable and identical */

static void cycle_next(synth *s)
{
    for (uint32_t i = 0; i < s->u.cycle.count; i++)
        emit(s, s->u.cycle.first + i, 0,
             i == 0 ? lognormal_pause(&s->setup_rng, 30000, 0.5) : 0);
}

typedef struct fixed_kernel {
    const char *name;
    uint32_t gx, gy, bx, by;
    double median, sigma;
} fixed_kernel;

/* A CNN training step: tensor-core GEMMs and convolutions whose time is set
 * by the math, not by memory contention. */
static const fixed_kernel stable_kernels[] = {
    {"sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x32_stage4_warpsize2x2x1_"
     "tensor16x8x16_kernel",
     64, 2, 128, 1, 182000, 0.004},
    {"void cutlass::Kernel2<cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_nn_align8>("
     "cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_nn_align8::Params)",
     16, 8, 256, 1, 96000, 0.006},
    {"void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, true>(int, "
     "int, int, float const*, int, float*, float const*, kernel_conv_params, unsigned long "
     "long, int, float, float, int, float const*, float const*, bool, int, int)",
     196, 1, 128, 1, 640000, 0.008},
    {"void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_fw_tr_1C11_args<"
     "float>)",
     128, 1, 512, 1, 38000, 0.015},
    {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_"
     "stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn_infer",
     392, 1, 128, 1, 710000, 0.005},
    {"volta_sgemm_128x64_nn", 32, 16, 256, 1, 233000, 0.01},
};

/* Small fixed-size helpers: the same bytes every time, hence the same ns. */
static const fixed_kernel identical_kernels[] = {
    {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
     "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
     "at::detail::Array<char*, 1>)",
     1, 1, 64, 1, 1408, 0},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::Half>, "
     "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<c10::Half>, "
     "at::detail::Array<char*, 1>)",
     2, 1, 128, 1, 1536, 0},
    {"void cudnn::ops::scalePackedTensor_kernel<float, float>(long, float*, float)", 40, 1, 256,
     1, 2112, 0},
    {"void cudnn::winograd::generateWinogradTilesKernel<0, float, float>("
     "cudnn::winograd::GenerateWinogradTilesParams<float, float>)",
     1, 1, 32, 1, 3904, 0},
    {"cask_cudnn_infer::computeBOffsetsKernel(cask_cudnn_infer::ComputeBOffsetsParams)", 1, 1,
     256, 1, 1216, 0},
    {"void cask_cudnn_infer::computeOffsetsKernel<false, false>("
     "cask_cudnn_infer::ComputeOffsetsParams)",
     4, 1, 128, 1, 1760, 0},
    {"void at_cuda_detail::cub::DeviceScanInitKernel<at_cuda_detail::cub::ScanTileState<long, "
     "true> >(at_cuda_detail::cub::ScanTileState<long, true>, int)",
     1, 1, 128, 1, 1344, 0},
    {"triton_poi_fused_zeros_0", 8, 1, 128, 1, 1280, 0},
};

static void fixed_setup(synth *s, const fixed_kernel *k, size_t count)
{
    s->u.cycle.first = (uint32_t)s->slot_count;
    for (size_t i = 0; i < count; i++)
        kernel(s, k[i].name, k[i].gx, k[i].gy, 1, k[i].bx, k[i].by, 1, k[i].median, k[i].sigma);
    s->u.cycle.count = (uint32_t)count;
    s->next = cycle_next;
}

static void stable_setup(synth *s, uint64_t n)
{
    (void)n;
    fixed_setup(s, stable_kernels, COUNT(stable_kernels));
}

static void identical_setup(synth *s, uint64_t n)
{
    (void)n;
    fixed_setup(s, identical_kernels, COUNT(identical_kernels));
}

/* --------------------------------------------------------- rare-heavy */

static void heavy_next(synth *s)
{
    uint32_t *fq = s->u.heavy.frequent;
    emit(s, fq[0], 0, lognormal_pause(&s->setup_rng, 20000, 0.5));
    emit(s, fq[1], 0, 0);
    emit(s, fq[2], 0, 0);
    emit(s, fq[3], 0, 0);
    emit(s, fq[1], 0, 0);
}

static void heavy_setup(synth *s, uint64_t n)
{
    uint32_t *fq = s->u.heavy.frequent;
    fq[0] = kernel(s, N_GEMM_UP, 172, 1, 1, 128, 1, 1, 41000, 0.015);
    fq[1] = kernel(s, N_ADD_RMS, 32, 1, 1, 512, 1, 1, 3400, 0.2);
    fq[2] = kernel(s, N_SILU, 32, 1, 1, 1024, 1, 1, 3600, 0.35);
    fq[3] = kernel(s, N_FILL_INT, 1, 1, 1, 64, 1, 1, 1472, 0);
    s->rare_p = 0.3;
    /* a handful of launches each: as many names as n allows, bounded so the
     * catalogue stays small next to the output */
    add_rare(s, clamp_u64((uint64_t)(n * s->rare_p / 4), 64, 20000));
    s->outlier_p = 1e-4;
    s->next = heavy_next;
}

/* -------------------------------------------------------- rodinia-like */

/* Rodinia benchmarks run one after another.  Durations follow the grid
 * (hotspot and backprop sizes, nw's diagonal wavefront) or the iteration
 * (gaussian's shrinking submatrix, bfs's frontier). */
static const char *const N_FAN1 = "Fan1(float*, float*, int, int)";
static const char *const N_FAN2 = "Fan2(float*, float*, float*, int, int, int)";
static const char *const N_BFS1 = "Kernel(Node*, int*, bool*, bool*, bool*, int*, int)";
static const char *const N_BFS2 = "Kernel2(bool*, bool*, bool*, bool*, int)";
static const char *const N_HOTSPOT = "calculate_temp(int, float*, float*, float*, int, int, "
                                     "int, int, float, float, float, float, float, float)";
static const char *const N_NW1 = "needle_cuda_shared_1(int*, int*, int, int, int, int)";
static const char *const N_NW2 = "needle_cuda_shared_2(int*, int*, int, int, int, int)";
static const char *const N_SRAD1 =
    "srad_cuda_1(float*, float*, float*, float*, float*, float*, int, int, float)";
static const char *const N_SRAD2 =
    "srad_cuda_2(float*, float*, float*, float*, float*, float*, int, int, float, float)";
static const char *const N_BP_FWD =
    "bpnn_layerforward_CUDA(float*, float*, float*, float*, int, int)";
static const char *const N_BP_ADJ =
    "bpnn_adjust_weights_cuda(float*, int, float*, int, float*, float*)";
static const char *const N_KM_INVERT = "invert_mapping(float*, float*, int, int)";
static const char *const N_KM_POINT =
    "kmeansPoint(float*, int, int, int, int*, float*, float*, int*)";

static void rodinia_next(synth *s)
{
    rodinia_state *c = &s->u.rodinia;
    ks_rng *r = &s->setup_rng;
    /* reading the input and copying it to the GPU */
    uint32_t start = lognormal_pause(r, 2e6, 0.3);
    switch (c->app++ % 7) {
    case 0: { /* gaussian elimination: 2(S-1) launches, Fan2's work shrinks */
        static const uint32_t sizes[] = {256, 512, 1024};
        uint32_t b = (uint32_t)ks_rng_below(r, 3), size = sizes[b];
        for (uint32_t t = 0; t + 1 < size; t++) {
            double left = (double)(size - t) / size;
            emit(s, c->gauss_fan1[b], 0, t == 0 ? start : 0);
            emit(s, c->gauss_fan2[b], left * left, 0);
        }
        break;
    }
    case 1: { /* bfs: the frontier swells then drains; a flag copy per level */
        uint32_t levels = 10 + (uint32_t)ks_rng_below(r, 5);
        for (uint32_t k = 0; k < levels; k++) {
            double w = sin(3.141592653589793 * (k + 0.5) / levels);
            emit(s, c->bfs_k1, w * w, k == 0 ? start : lognormal_pause(r, 25000, 0.2));
            emit(s, c->bfs_k2, 0, 0);
        }
        break;
    }
    case 2: { /* hotspot */
        uint32_t b = (uint32_t)ks_rng_below(r, 2);
        for (uint32_t k = 0; k < 30; k++)
            emit(s, c->hotspot[b], 0, k == 0 ? start : 0);
        break;
    }
    case 3: /* Needleman-Wunsch: one launch per anti-diagonal of blocks */
        for (uint32_t i = 1; i <= 128; i++)
            emit(s, c->nw1 + i - 1, 0, i == 1 ? start : 0);
        for (uint32_t i = 127; i >= 1; i--)
            emit(s, c->nw2 + i - 1, 0, 0);
        break;
    case 4: { /* srad */
        uint32_t iters = 50 + (uint32_t)ks_rng_below(r, 101);
        for (uint32_t k = 0; k < iters; k++) {
            emit(s, c->srad1, 0, k == 0 ? start : lognormal_pause(r, 8000, 0.3));
            emit(s, c->srad2, 0, 0);
        }
        break;
    }
    case 5: { /* backprop */
        uint32_t b = (uint32_t)ks_rng_below(r, 2);
        emit(s, c->bp_fwd[b], 0, start);
        emit(s, c->bp_adj[b], 0, lognormal_pause(r, 300000, 0.2));
        break;
    }
    default: { /* kmeans: one transpose, then one launch per iteration */
        emit(s, c->km_invert, 0, start);
        uint32_t iters = 15 + (uint32_t)ks_rng_below(r, 11);
        for (uint32_t k = 0; k < iters; k++)
            emit(s, c->km_point, 0, lognormal_pause(r, 60000, 0.3));
        break;
    }
    }
}

static void rodinia_setup(synth *s, uint64_t n)
{
    (void)n;
    rodinia_state *c = &s->u.rodinia;
    static const uint32_t sizes[] = {256, 512, 1024};
    uint32_t fan1 = name_id(s, N_FAN1, NULL), fan2 = name_id(s, N_FAN2, NULL);
    for (int b = 0; b < 3 && !s->oom; b++) {
        uint32_t size = sizes[b];
        double area = (double)size * size / (1024.0 * 1024.0);
        c->gauss_fan1[b] = add_slot(s, fan1, (size + 511) / 512, 1, 1, 512, 1, 1, 2400, 0.02, 0);
        c->gauss_fan2[b] =
            add_slot(s, fan2, size / 4, size / 4, 1, 4, 4, 1, 2800, 0.03, 70000 * area);
    }
    uint32_t bfs1 = name_id(s, N_BFS1, NULL);
    if (!s->oom)
        c->bfs_k1 = add_slot(s, bfs1, 1954, 1, 1, 512, 1, 1, 25000, 0.05, 900000);
    c->bfs_k2 = kernel(s, N_BFS2, 1954, 1, 1, 512, 1, 1, 18000, 0.03);
    c->hotspot[0] = kernel(s, N_HOTSPOT, 43, 43, 1, 16, 16, 1, 31000, 0.015);
    c->hotspot[1] = kernel(s, N_HOTSPOT, 86, 86, 1, 16, 16, 1, 118000, 0.015);
    uint32_t nw1 = name_id(s, N_NW1, NULL), nw2 = name_id(s, N_NW2, NULL);
    c->nw1 = (uint32_t)s->slot_count;
    for (uint32_t i = 1; i <= 128 && !s->oom; i++)
        add_slot(s, nw1, i, 1, 1, 16, 1, 1, 3400 + 350.0 * i, 0.03, 0);
    c->nw2 = (uint32_t)s->slot_count;
    for (uint32_t i = 1; i <= 128 && !s->oom; i++)
        add_slot(s, nw2, i, 1, 1, 16, 1, 1, 3300 + 340.0 * i, 0.03, 0);
    c->srad1 = kernel(s, N_SRAD1, 128, 128, 1, 16, 16, 1, 82000, 0.02);
    c->srad2 = kernel(s, N_SRAD2, 128, 128, 1, 16, 16, 1, 61000, 0.02);
    c->bp_fwd[0] = kernel(s, N_BP_FWD, 1, 4096, 1, 16, 16, 1, 40000, 0.02);
    c->bp_fwd[1] = kernel(s, N_BP_FWD, 1, 16384, 1, 16, 16, 1, 160000, 0.02);
    c->bp_adj[0] = kernel(s, N_BP_ADJ, 1, 4096, 1, 16, 16, 1, 28000, 0.02);
    c->bp_adj[1] = kernel(s, N_BP_ADJ, 1, 16384, 1, 16, 16, 1, 112000, 0.02);
    c->km_invert = kernel(s, N_KM_INVERT, 1928, 1, 1, 256, 1, 1, 95000, 0.03);
    c->km_point = kernel(s, N_KM_POINT, 1928, 1, 1, 256, 1, 1, 210000, 0.02);
    c->app = 0;
    s->outlier_p = 5e-5;
    s->next = rodinia_next;
}

/* ------------------------------------------------------------- presets */

typedef struct synth_preset {
    const char *name;
    const char *summary;
    void (*setup)(synth *s, uint64_t n);
} synth_preset;

static const synth_preset presets[] = {
    {"casio-like",
     "LLM inference: multi-peak GEMMs, wide, stable, constant and rare kernels",
     casio_setup},
    {"multi-peak", "four kernels with two to four duration peaks each", peaks_setup},
    {"stable", "six compute kernels with CV below 0.02", stable_setup},
    {"rare-heavy", "four frequent kernels, thousands of names launched a few times",
     heavy_setup},
    {"identical", "eight kernels, every launch of a name the same nanoseconds",
     identical_setup},
    {"rodinia-like",
     "Rodinia runs: few kernels, grid- and iteration-dependent durations",
     rodinia_setup},
};

const char *const *ks_synth_presets(void)
{
    static const char *list[2 * COUNT(presets) + 2];
    for (size_t i = 0; i < COUNT(presets); i++) {
        list[2 * i] = presets[i].name;
        list[2 * i + 1] = presets[i].summary;
    }
    return list;
}

/* -------------------------------------------------------------- writer */

static const char HEADER[] =
    "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),"
    "Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name\n";

static void synth_free(synth *s)
{
    ks_profile_free(s->names);
    free(s->name_launched);
    for (size_t i = 0; i < s->slot_count; i++)
        free(s->slots[i].suffix);
    free(s->slots);
    free(s->queue);
}

static ks_status flush(FILE *f, const char *buf, size_t len, ks_error *err)
{
    if (len && fwrite(buf, 1, len, f) != len)
        return ks_error_set(err, KS_ERR_IO, NULL, 0,
                            "cannot write the synthetic workload: %s", strerror(errno));
    return KS_OK;
}

static void normal_table(synth *s)
{
    for (int k = 1; k < NORMAL_CELLS; k++)
        s->normal_q[k] = ks_normal_quantile((double)k / NORMAL_CELLS);
    s->normal_q[0] = -INFINITY;
    s->normal_q[NORMAL_CELLS] = INFINITY;
}

/* Standard normal by inversion: the top 12 bits pick one of 4096
 * equal-probability cells, the next 41 place the value linearly inside it, and
 * the two outer cells use Marsaglia's exact tail method.  Three Box-Muller
 * draws a row (log, sqrt, cos each) were a third of the writer's time. */
static double fast_normal(const synth *s, ks_rng *r)
{
    uint64_t u = ks_rng_next(r);
    unsigned k = (unsigned)(u >> 52);
    if (k > 0 && k < NORMAL_CELLS - 1) {
        double f = (double)((u >> 11) & ((1ULL << 41) - 1)) * 0x1.0p-41;
        return s->normal_q[k] + f * (s->normal_q[k + 1] - s->normal_q[k]);
    }
    double a = s->normal_q[NORMAL_CELLS - 1], x, y;
    do {
        x = -log(1.0 - ks_rng_uniform(r)) / a;
        y = -log(1.0 - ks_rng_uniform(r));
    } while (2 * y < x * x);
    return k == 0 ? -(a + x) : a + x;
}

enum { OUTLIER_MIN_SIGMA_PERCENT = 5 };
#define OUTLIER_MIN_SIGMA (OUTLIER_MIN_SIGMA_PERCENT / 100.0)

/* Heavy tail: Pareto with shape 1.3, at least 1.5x, at most 200x. */
static double outlier_factor(ks_rng *r)
{
    double u = 1.0 - ks_rng_uniform(r); /* (0, 1] */
    double f = 0.5 + pow(u, -1.0 / 1.3);
    return f > 200 ? 200 : f;
}

static ks_status write_rows(synth *s, uint64_t n, FILE *f, ks_error *err)
{
    size_t max_row = s->max_suffix + 7 * 21 + PUT_U64_ROOM;
    size_t cap = (size_t)1 << 20;
    if (cap < 4 * max_row)
        cap = 4 * max_row;
    char *buf = malloc(cap);
    if (!buf)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    size_t len = sizeof HEADER - 1;
    memcpy(buf, HEADER, len);

    ks_rng *r = &s->row_rng;
    /* nsys timestamps count from the start of the session */
    int64_t host = 40000000 + (int64_t)ks_rng_below(r, 10000000);
    int64_t gpu_free = 0;
    /* a launch blocks once the GPU's queue is this far behind the host */
    const int64_t backlog_ns = 8000000;
    ks_status st = KS_OK;

    for (uint64_t i = 0; i < n; i++) {
        if (s->queue_pos == s->queue_len) {
            s->queue_len = s->queue_pos = 0;
            while (s->queue_len == 0 && !s->oom)
                s->next(s);
            if (s->oom) {
                st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
                break;
            }
        }
        synth_emit e;
        if (s->rare_count && ks_rng_uniform(r) < s->rare_p)
            e = (synth_emit){s->rare_first + (uint32_t)ks_rng_below(r, s->rare_count), 0, 0};
        else
            e = s->queue[s->queue_pos++];
        const synth_slot *sl = &s->slots[e.slot];

        double d = sl->median_ns + sl->growth_ns * e.x;
        if (sl->sigma > 0) {
            d *= exp(sl->sigma * fast_normal(s, r));
            /* contention hits memory- and network-bound kernels; a compute
             * kernel with CV 0.01 keeps it (one 10x outlier in 10^4
             * launches would make its CV 0.08) */
            if (sl->sigma >= OUTLIER_MIN_SIGMA && ks_rng_uniform(r) < s->outlier_p)
                d *= outlier_factor(r);
        }
        int64_t dur = d < 1 ? 1 : d > 1e12 ? (int64_t)1e12 : (int64_t)(d + 0.5);

        host += e.pause_ns;
        int64_t api = 2200 + (int64_t)(1300 * exp(0.3 * fast_normal(s, r)));
        if (!s->name_launched[sl->name]) { /* lazy module loading on first use */
            s->name_launched[sl->name] = 1;
            api += 30000 + (int64_t)ks_rng_below(r, 60000);
        }
        int64_t wait = gpu_free - host - backlog_ns;
        if (wait < 0)
            wait = 0;
        /* the launch is enqueued part way through the call */
        int64_t ready = host + wait + api / 2 + 500 + (int64_t)ks_rng_below(r, 1500);
        api += wait;
        int64_t gap = 600 + (int64_t)ks_rng_below(r, 1400);
        int64_t start = gpu_free + gap > ready ? gpu_free + gap : ready;
        int64_t end = start + dur;
        int64_t api_end = host + api;
        gpu_free = end;

        char *p = buf + len;
        p = put_u64(p, (uint64_t)host);
        *p++ = ',';
        p = put_u64(p, (uint64_t)api);
        *p++ = ',';
        /* nsys reports queue time only when the kernel starts after the
         * launch call has returned */
        if (start >= api_end) {
            p = put_u64(p, (uint64_t)api_end);
            *p++ = ',';
            p = put_u64(p, (uint64_t)(start - api_end));
        } else
            *p++ = ',';
        *p++ = ',';
        p = put_u64(p, (uint64_t)start);
        *p++ = ',';
        p = put_u64(p, (uint64_t)dur);
        *p++ = ',';
        p = put_u64(p, (uint64_t)((end > api_end ? end : api_end) - host));
        memcpy(p, sl->suffix, sl->suffix_len);
        len = (size_t)(p - buf) + sl->suffix_len;

        host = api_end + (int64_t)(2500 * exp(0.5 * fast_normal(s, r)));

        if (len + max_row > cap) {
            if ((st = flush(f, buf, len, err)) != KS_OK)
                break;
            len = 0;
        }
    }
    if (st == KS_OK)
        st = flush(f, buf, len, err);
    if (st == KS_OK && fflush(f) != 0)
        st = ks_error_set(err, KS_ERR_IO, NULL, 0, "cannot write the synthetic workload: %s",
                          strerror(errno));
    free(buf);
    return st;
}

ks_status ks_synth_write(const ks_synth_options *opt, FILE *f, ks_error *err)
{
    if (!opt || !f)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "ks_synth_write: no options or output");
    const char *want = opt->preset ? opt->preset : "casio-like";
    const synth_preset *preset = NULL;
    for (size_t i = 0; i < COUNT(presets); i++)
        if (strcmp(presets[i].name, want) == 0)
            preset = &presets[i];
    if (!preset) {
        ks_error_set(err, KS_ERR_USAGE, NULL, 0, "unknown synthetic preset '%s'; presets:",
                     want);
        if (err)
            for (size_t i = 0; i < COUNT(presets); i++) {
                size_t used = strlen(err->message);
                snprintf(err->message + used, sizeof err->message - used, "%s %s",
                         i ? "," : "", presets[i].name);
            }
        return KS_ERR_USAGE;
    }
    if (opt->n == 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "the number of kernel launches must be at least 1");

    synth s;
    memset(&s, 0, sizeof s);
    /* Two streams, so the catalogue and builder decisions do not shift when
     * the per-launch noise changes, and vice versa. */
    ks_rng_seed(&s.setup_rng, opt->seed);
    ks_rng_seed(&s.row_rng, opt->seed ^ 0xa0761d6478bd642fULL);
    s.pid = 1000 + (uint32_t)ks_rng_below(&s.setup_rng, 4000000);
    normal_table(&s);
    s.names = ks_profile_new();
    s.oom = s.names == NULL;
    if (!s.oom)
        preset->setup(&s, opt->n);
    if (!s.oom) {
        s.name_launched = calloc(s.names->name_count ? s.names->name_count : 1, 1);
        s.oom = s.name_launched == NULL;
    }
    ks_status st = s.oom ? ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory")
                         : write_rows(&s, opt->n, f, err);
    synth_free(&s);
    return st;
}
