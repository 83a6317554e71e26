/*
 * bench_kineto.c - how fast, and in how little memory, a PyTorch profiler
 * (Kineto) trace is read.
 *
 * Writes a synthetic trace shaped like a real training trace (pretty-printed
 * the way Kineto prints it; per kernel launch several CPU ops, a runtime call,
 * a flow-arrow pair, and now and then a memcpy and an annotation; fractional
 * microsecond times; kernels not quite in time order), streaming it to disk so
 * the generator itself stays small.  Then it times:
 *
 *   fread   plain stdio reads: the floor set by I/O
 *   read    ks_input_read over the file: I/O, copying and the XXH3-128 digest
 *           of the stored bytes that every profile records
 *   yajl    yajl with no callbacks over ks_input_read: the input layer plus
 *           the JSON lexer alone
 *   kineto  ks_profile_read, the whole reader (what users pay)
 *
 * and reports MB/s (10^6 bytes of uncompressed JSON per second) and the peak
 * resident set (getrusage ru_maxrss), which should be the kernel table plus a
 * few MB whatever the number of non-kernel events.
 *
 * usage: bench_kineto [--size-mb N] [--out PATH] [--keep] [--reuse]
 *                     [--cpu-ops N] [--repeat N] [--seed N]
 */
#include "internal.h"
#include "bench_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <yajl/yajl_parse.h>

typedef struct options {
    double size_mb;
    const char *out;
    int keep, reuse;
    int cpu_ops; /* CPU-side op events per kernel launch */
    int repeat;
    uint64_t seed;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_kineto [options]\n"
            "  --size-mb N   size of the generated trace in 10^6 bytes (default 600)\n"
            "  --out PATH    where to write it (default /tmp/ksample-bench-kineto.json)\n"
            "  --keep        keep the trace afterwards (default: delete it)\n"
            "  --reuse       if PATH exists, time it instead of generating (implies --keep)\n"
            "  --cpu-ops N   CPU op events per kernel launch (default 6)\n"
            "  --repeat N    time each reader N times, report the best (default 1)\n"
            "  --seed N      generator seed (default 1)\n");
}

/* CPU seconds (user + system) of this process: steadier than wall time on a
 * shared machine. */
static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

typedef struct timing {
    double wall, cpu;
} timing;

static timing timing_start(void)
{
    timing t = {bench_now(), cpu_now()};
    return t;
}

static timing timing_since(timing t0)
{
    timing t = {bench_now() - t0.wall, cpu_now() - t0.cpu};
    return t;
}

static void keep_best(timing *best, timing t)
{
    if (t.wall < best->wall)
        best->wall = t.wall;
    if (t.cpu < best->cpu)
        best->cpu = t.cpu;
}

/* ---------------------------------------------------------------- generator */

enum { NAME_POOL = 300 };

static const char *const name_parts[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3>)",
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"
    "(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)",
    "ampere_sgemm_128x64_nn",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >"
    "(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
    "unsigned int, float, 4>)",
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
    "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, "
    "float const*, cudnnTensorStruct, float*, float const*, float const*, float, float, "
    "float*, float*, float*, float*, float, float)",
};

static void make_names(ks_rng *rng, char **names)
{
    size_t parts = sizeof name_parts / sizeof name_parts[0];
    for (int i = 0; i < NAME_POOL; i++) {
        const char *base = name_parts[ks_rng_below(rng, parts)];
        /* a few very long template names, as real traces have (up to ~5 kB) */
        int repeat = ks_rng_below(rng, 20) == 0 ? 1 + (int)ks_rng_below(rng, 20) : 1;
        size_t cap = strlen(base) * (size_t)repeat + 32;
        char *s = malloc(cap);
        if (!s) {
            fprintf(stderr, "bench_kineto: out of memory\n");
            exit(1);
        }
        size_t len = (size_t)snprintf(s, cap, "%s_v%d", base, i);
        for (int r = 1; r < repeat; r++)
            len += (size_t)snprintf(s + len, cap - len, "%s", base);
        names[i] = s;
    }
}

/* Microseconds with 3 decimals, printed from integer nanoseconds so the text
 * is exact (as Kineto prints it). */
static void put_us(FILE *f, int64_t ns)
{
    fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

static int generate(const options *o, uint64_t *kernels_out)
{
    FILE *f = fopen(o->out, "wb");
    if (!f) {
        fprintf(stderr, "bench_kineto: cannot write %s: %s\n", o->out, strerror(errno));
        return -1;
    }
    static char iobuf[1 << 22];
    setvbuf(f, iobuf, _IOFBF, sizeof iobuf);
    ks_rng rng;
    ks_rng_seed(&rng, o->seed);
    char *names[NAME_POOL];
    make_names(&rng, names);

    fprintf(f, "\n{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
    for (int d = 0; d < 8; d++)
        fprintf(f,
                "    {\n      \"id\": %d, \"name\": \"NVIDIA H100 80GB HBM3\", "
                "\"totalGlobalMem\": 85029158912,\n      \"computeMajor\": 9, "
                "\"computeMinor\": 0,\n      \"numSms\": 132\n    }%s\n",
                d, d < 7 ? "," : "");
    fprintf(f, "  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, "
               "\"world_size\": 8},\n  \"traceEvents\": [\n");

    uint64_t target = (uint64_t)(o->size_mb * 1e6);
    int64_t t = INT64_C(1712195495505582988); /* ns */
    uint64_t corr = 135000, ext = 100, kernels = 0;
    const char *first = "";
    while ((uint64_t)ftello(f) < target) {
        for (int c = 0; c < o->cpu_ops; c++) {
            fprintf(f, "%s  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::%s\", "
                       "\"pid\": 1102, \"tid\": 1102,\n    \"ts\": ",
                    first, c % 3 == 0 ? "linear" : c % 3 == 1 ? "addmm" : "empty_strided");
            first = ",\n";
            put_us(f, t);
            fprintf(f, ", \"dur\": ");
            put_us(f, 1000 + (int64_t)ks_rng_below(&rng, 50000));
            fprintf(f, ",\n    \"args\": {\n      \"External id\": %llu,\"Record function id\": "
                       "0, \"Input Dims\": [[64, 1024], [4096, 1024], [4096]], \"Input type\": "
                       "[\"float\", \"float\", \"float\"], \"Ev Idx\": %llu\n    }\n  }",
                    (unsigned long long)ext, (unsigned long long)ext);
            ext++;
            t += 1000 + (int64_t)ks_rng_below(&rng, 4000);
        }
        corr++;
        fprintf(f, ",\n  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
                   "\"cudaLaunchKernel\", \"pid\": 1102, \"tid\": 1102,\n    \"ts\": ");
        put_us(f, t);
        fprintf(f, ", \"dur\": 4.512,\n    \"args\": {\n      \"External id\": %llu,      "
                   "\"cbid\": 211, \"correlation\": %llu\n    }\n  }",
                (unsigned long long)ext, (unsigned long long)corr);
        /* kernels on two streams: the file is not in start-time order */
        int stream = ks_rng_below(&rng, 8) == 0 ? 20 : 7;
        int64_t kts = t + 5000 - (stream == 20 ? 40000 : 0);
        int64_t kdur = 1000 + (int64_t)ks_rng_below(&rng, 200000);
        const char *name = names[ks_rng_below(&rng, NAME_POOL)];
        fprintf(f, ",\n  {\n    \"ph\": \"s\", \"id\": %llu, \"pid\": 1102, \"tid\": 1102, "
                   "\"ts\": ",
                (unsigned long long)corr);
        put_us(f, t);
        fprintf(f, ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }");
        fprintf(f, ",\n  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", "
                   "\"pid\": 0, \"tid\": %d,\n    \"ts\": ",
                name, stream);
        put_us(f, kts);
        fprintf(f, ", \"dur\": ");
        put_us(f, kdur);
        fprintf(f, ",\n    \"args\": {\n      \"External id\": %llu,      \"queued\": 0, "
                   "\"device\": 0, \"context\": 1,      \"stream\": %d, \"correlation\": "
                   "%llu,      \"registers per thread\": 32,      \"shared memory\": 0,      "
                   "\"blocks per SM\": 5.300000,      \"warps per SM\": 21.200001,      "
                   "\"grid\": [%u, %u, 1],      \"block\": [%u, 1, 1],      \"est. achieved "
                   "occupancy %%\": 100\n    }\n  }",
                (unsigned long long)ext, stream, (unsigned long long)corr,
                1 + (unsigned)ks_rng_below(&rng, 4096), 1 + (unsigned)ks_rng_below(&rng, 8),
                32u << ks_rng_below(&rng, 5));
        fprintf(f, ",\n  {\n    \"ph\": \"f\", \"id\": %llu, \"pid\": 0, \"tid\": %d, "
                   "\"ts\": ",
                (unsigned long long)corr, stream);
        put_us(f, kts);
        fprintf(f, ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }");
        if (kernels % 10 == 0)
            fprintf(f, ",\n  {\n    \"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": "
                       "\"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, \"tid\": 7,\n    "
                       "\"ts\": 1712195495505600.100, \"dur\": 1.250,\n    \"args\": {\n      "
                       "\"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": 1, "
                       "\"bytes\": 4096, \"memory bandwidth (GB/s)\": 3.2\n    }\n  }");
        if (kernels % 10 == 5)
            fprintf(f, ",\n  {\n    \"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
                       "\"ProfilerStep#%llu\", \"pid\": 1102, \"tid\": 1102,\n    \"ts\": "
                       "1712195495505600.100, \"dur\": 99999.000,\n    \"args\": {\n      "
                       "\"External id\": 7, \"Record function id\": 0, \"Ev Idx\": 9\n    }\n  }",
                    (unsigned long long)kernels);
        kernels++;
        t += 2000;
    }
    fprintf(f, ",\n  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
               "    \"pid\": \"\", \"tid\": \"\",\n    \"ts\": 1712195495505600.100\n  }\n"
               "],\n  \"traceName\": \"bench.json\",\n  \"displayTimeUnit\": \"ms\",\n"
               "  \"baseTimeNanoseconds\": 1712100000000000000\n}\n");
    for (int i = 0; i < NAME_POOL; i++)
        free(names[i]);
    if (fclose(f) != 0) {
        fprintf(stderr, "bench_kineto: writing %s failed: %s\n", o->out, strerror(errno));
        return -1;
    }
    *kernels_out = kernels;
    return 0;
}

/* ---------------------------------------------------------------- baselines */

static int time_read(const char *path, int yajl_too, timing *took, uint64_t *bytes)
{
    ks_input *in;
    ks_error err;
    if (ks_input_open(path, &in, &err) != KS_OK)
        return -1;
    yajl_handle h = yajl_too ? yajl_alloc(NULL, NULL, NULL) : NULL;
    enum { CHUNK = 1 << 20 };
    unsigned char *buf = malloc(CHUNK);
    int rc = buf ? 0 : -1;
    *bytes = 0;
    timing t0 = timing_start();
    for (size_t got; rc == 0;) {
        if (ks_input_read(in, buf, CHUNK, &got, &err) != KS_OK)
            rc = -1;
        else if (got == 0)
            break;
        else if (h && yajl_parse(h, buf, got) != yajl_status_ok)
            rc = -1;
        *bytes += got;
    }
    if (rc == 0 && h && yajl_complete_parse(h) != yajl_status_ok)
        rc = -1;
    *took = timing_since(t0);
    if (h)
        yajl_free(h);
    free(buf);
    ks_input_close(in);
    return rc;
}

static int time_fread(const char *path, timing *took)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    enum { CHUNK = 1 << 20 };
    char *buf = malloc(CHUNK);
    timing t0 = timing_start();
    while (buf && fread(buf, 1, CHUNK, f) == CHUNK)
        ;
    *took = timing_since(t0);
    int rc = buf && !ferror(f) ? 0 : -1;
    free(buf);
    fclose(f);
    return rc;
}

static int parse_args(int argc, char **argv, options *o)
{
    o->size_mb = 600;
    o->out = "/tmp/ksample-bench-kineto.json";
    o->cpu_ops = 6;
    o->repeat = 1;
    o->seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--keep") == 0)
            o->keep = 1;
        else if (strcmp(a, "--reuse") == 0)
            o->reuse = o->keep = 1;
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (v && strcmp(a, "--size-mb") == 0)
            o->size_mb = atof(v), i++;
        else if (v && strcmp(a, "--out") == 0)
            o->out = v, i++;
        else if (v && strcmp(a, "--cpu-ops") == 0)
            o->cpu_ops = atoi(v), i++;
        else if (v && strcmp(a, "--repeat") == 0)
            o->repeat = atoi(v), i++;
        else if (v && strcmp(a, "--seed") == 0)
            o->seed = strtoull(v, NULL, 10), i++;
        else {
            fprintf(stderr, "bench_kineto: bad option '%s'\n", a);
            usage(stderr);
            return -1;
        }
    }
    if (o->size_mb <= 0 || o->cpu_ops < 0 || o->repeat < 1) {
        fprintf(stderr, "bench_kineto: --size-mb and --repeat must be positive\n");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    if (parse_args(argc, argv, &o) != 0)
        return 2;

    struct stat sb;
    uint64_t generated_kernels = 0;
    if (!(o.reuse && stat(o.out, &sb) == 0)) {
        double t0 = bench_now();
        if (generate(&o, &generated_kernels) != 0)
            return 3;
        if (stat(o.out, &sb) != 0)
            return 3;
        printf("generated %s: %.1f MB, %llu kernel events, in %.1f s\n", o.out,
               (double)sb.st_size / 1e6, (unsigned long long)generated_kernels, bench_now() - t0);
    } else {
        printf("reusing %s: %.1f MB\n", o.out, (double)sb.st_size / 1e6);
    }
    double mb = (double)sb.st_size / 1e6;
    long rss_before = bench_peak_rss_kb();

    /* the reader first, so the peak RSS it reports is its own */
    const timing worst = {1e300, 1e300};
    timing t_kineto = worst;
    ks_profile *p = NULL;
    for (int r = 0; r < o.repeat; r++) {
        ks_profile_free(p);
        p = NULL;
        ks_read_options opt;
        ks_read_options_init(&opt);
        ks_error err;
        timing t0 = timing_start();
        if (ks_profile_read(o.out, &opt, &p, &err) != KS_OK) {
            char msg[1200];
            ks_error_format(&err, msg, sizeof msg);
            fprintf(stderr, "bench_kineto: %s\n", msg);
            return 4;
        }
        keep_best(&t_kineto, timing_since(t0));
    }
    long rss_after = bench_peak_rss_kb();
    if (generated_kernels && p->n != generated_kernels) {
        fprintf(stderr, "bench_kineto: read %zu kernels, generated %llu\n", p->n,
                (unsigned long long)generated_kernels);
        return 5;
    }
    size_t name_bytes = 0;
    for (size_t i = 0; i < p->name_count; i++)
        name_bytes += strlen(p->names[i]) + 1;
    size_t columns = ks_profile_column_bytes(p);
    size_t allocated = p->capacity * (columns / (p->n ? p->n : 1));

    timing t_fread = worst, t_read = worst, t_yajl = worst;
    for (int r = 0; r < o.repeat; r++) {
        timing t;
        uint64_t bytes;
        if (time_fread(o.out, &t) == 0)
            keep_best(&t_fread, t);
        if (time_read(o.out, 0, &t, &bytes) == 0)
            keep_best(&t_read, t);
        if (time_read(o.out, 1, &t, &bytes) == 0)
            keep_best(&t_yajl, t);
    }

    printf("kernels %zu, distinct names %zu, format %s, device \"%s\"\n", p->n,
           p->name_count, p->source_format, p->device_name);
    printf("best of %d; MB = 10^6 bytes of uncompressed JSON\n", o.repeat);
    printf("%-8s %9s %9s %9s %9s\n", "", "wall s", "MB/s", "cpu s", "MB/cpu-s");
    const struct {
        const char *name;
        timing t;
    } rows[] = {{"fread", t_fread}, {"read", t_read}, {"yajl", t_yajl}, {"kineto", t_kineto}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        printf("%-8s %9.2f %9.1f %9.2f %9.1f\n", rows[i].name, rows[i].t.wall,
               mb / rows[i].t.wall, rows[i].t.cpu, mb / rows[i].t.cpu);
    if (t_kineto.cpu > t_read.cpu)
        printf("%-8s %9s %9s %9.2f %9.1f   (kineto minus read: JSON parse + kernel table)\n",
               "parse", "", "", t_kineto.cpu - t_read.cpu, mb / (t_kineto.cpu - t_read.cpu));
    printf("peak RSS %.1f MiB (%.1f MiB before reading); kernel table %.1f MiB "
           "(%.1f MiB allocated), names %.1f MiB\n",
           rss_after / 1024.0, rss_before / 1024.0, columns / 1048576.0,
           allocated / 1048576.0, name_bytes / 1048576.0);
    ks_profile_free(p);
    if (!o.keep)
        remove(o.out);
    return 0;
}
