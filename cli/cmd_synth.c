/* cmd_synth.c - `ksample synth`: a synthetic workload, like zstd's datagen. */
#define _GNU_SOURCE /* fopencookie */
#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <zstd.h>

/* bytes of CSV per launch, about (276 measured on the default preset) */
enum { SYNTH_CSV_BYTES_PER_LAUNCH = 276 };
/* from this size on, a plain CSV gets a note that .zst writes it smaller */
#define SYNTH_LARGE_BYTES (1e9)

/* A preset list's (name, description pairs) lines of the help: the names
 * in a column of width, with each traces preset's launch count. */
static void print_presets(const char *const *list, int width, bool launches)
{
    for (size_t i = 0; list[i]; i += 2) {
        printf("                       %-*s %s", width, list[i], list[i + 1]);
        if (launches)
            printf(" (%llu launches)",
                   (unsigned long long)ks_synth_traces_default_launches(list[i]));
        printf("\n");
    }
}

static void help(void)
{
    printf("usage: ksample synth [options]\n\n"
           "Writes a synthetic kernel workload in Nsight Systems cuda_kern_exec_trace CSV\n"
           "format, so that it goes through the real reader.  Same preset, size and seed\n"
           "give the same bytes.\n\n"
           "options:\n"
           "  --preset NAME      workload shape (default casio-like; with --traces, see\n"
           "                     there):\n");
    print_presets(ks_synth_presets(), 14, false);
    printf("  -n N               invocations (default 100000; 1e7 and 10M work); with\n"
           "                     --traces, kernel launches: the first N of the preset's\n"
           "                     program (default: the preset's own count)\n"
           "  --traces DIR       write Accel-Sim traces instead: DIR/kernelslist.g, one\n"
           "                     kernel-N.traceg per launch (tracer version 5), stats.csv,\n"
           "                     and DIR/time.csv, a plain CSV time profile whose\n"
           "                     durations follow a model of the traced work; presets\n"
           "                     (default mixed):\n");
    print_presets(ks_synth_traces_presets(), 12, true);
    printf("  --seed N           random seed (default 1)\n"
           "  -o, --output FILE  output file (default: standard output); written\n"
           "                     atomically; FILE.zst is written zstd-compressed (every\n"
           "                     command reads it so)\n"
           "  --ncu FILE         also write matching Nsight Compute metrics (long CSV:\n"
           "                     PKA's 12 features, gpu__time_duration.sum); needs -o\n"
           "                     or --traces\n"
           "  --bbv FILE         also write matching Photon basic-block vectors; needs -o\n"
           "                     or --traces\n"
           "  -h, --help         this text\n");
}

static ks_status write_synth(const void *ctx, FILE *f, ks_error *err)
{
    return ks_synth_write(ctx, f, err);
}

/* -o FILE.zst: the CSV goes through a stream that compresses it into the
 * atomically written file */
typedef struct zst_sink {
    FILE *out;
    ZSTD_CCtx *cctx;
    bool failed;
} zst_sink;

static bool zst_push(zst_sink *z, ZSTD_inBuffer *in, ZSTD_EndDirective end)
{
    char buf[1 << 16];
    for (;;) {
        ZSTD_outBuffer out = {buf, sizeof buf, 0};
        size_t left = ZSTD_compressStream2(z->cctx, &out, in, end);
        if (ZSTD_isError(left) || (out.pos && fwrite(buf, 1, out.pos, z->out) != out.pos)) {
            z->failed = true;
            return false;
        }
        if (end == ZSTD_e_end ? left == 0 : in->pos == in->size)
            return true;
    }
}

static ssize_t zst_write(void *cookie, const char *data, size_t size)
{
    ZSTD_inBuffer in = {data, size, 0};
    return zst_push(cookie, &in, ZSTD_e_continue) ? (ssize_t)size : -1;
}

static int zst_close(void *cookie)
{
    ZSTD_inBuffer in = {NULL, 0, 0};
    return zst_push(cookie, &in, ZSTD_e_end) ? 0 : -1;
}

static ks_status write_synth_zst(const void *ctx, FILE *f, ks_error *err)
{
    zst_sink z = {.out = f, .cctx = ZSTD_createCCtx()};
    cookie_io_functions_t io = {.write = zst_write, .close = zst_close};
    FILE *c = z.cctx ? fopencookie(&z, "w", io) : NULL;
    if (!c) {
        ZSTD_freeCCtx(z.cctx);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    ks_status st = ks_synth_write(ctx, c, err);
    if (fclose(c) != 0 || z.failed) {
        if (st == KS_OK)
            st = ks_error_set(err, KS_ERR_IO, NULL, 0, "zstd compression failed");
    }
    ZSTD_freeCCtx(z.cctx);
    return st;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n > t && strcmp(s + n - t, tail) == 0;
}

typedef struct features_ctx {
    const ks_profile *p;
    uint64_t seed;
} features_ctx;

static ks_status write_ncu(const void *ctx, FILE *f, ks_error *err)
{
    const features_ctx *c = ctx;
    return ks_synth_write_ncu(c->p, c->seed, f, err);
}

static ks_status write_bbv(const void *ctx, FILE *f, ks_error *err)
{
    const features_ctx *c = ctx;
    return ks_synth_write_bbv(c->p, c->seed, f, err);
}

/* The features follow the launches as the reader sees them: read the
 * workload back rather than keep a second copy of the generator's state. */
static int write_features(const char *output, const char *ncu, const char *bbv, uint64_t seed)
{
    ks_error err;
    ks_error_clear(&err);
    ks_read_options opt;
    ks_read_options_init(&opt);
    ks_profile *p;
    if (ks_profile_read(output, &opt, &p, &err) != KS_OK)
        return cli_fail(&err);
    features_ctx c = {.p = p, .seed = seed};
    ks_status st = KS_OK;
    if (ncu)
        st = ks_write_atomic(ncu, write_ncu, &c, &err);
    if (st == KS_OK && bbv)
        st = ks_write_atomic(bbv, write_bbv, &c, &err);
    ks_profile_free(p);
    return st == KS_OK ? 0 : cli_fail(&err);
}

int cmd_synth(int argc, char **argv)
{
    static const struct option longopts[] = {{"preset", required_argument, NULL, 'p'},
                                             {"seed", required_argument, NULL, 's'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"traces", required_argument, NULL, 't'},
                                             {"ncu", required_argument, NULL, 'C'},
                                             {"bbv", required_argument, NULL, 'B'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    ks_synth_options so = {.preset = "casio-like", .n = 100000, .seed = 1};
    const char *output = "-", *ncu = NULL, *bbv = NULL;
    const char *traces = NULL;
    bool n_given = false, preset_given = false;
    cli_loop l = {.cmd = "synth", .longopts = longopts, .shortopts = "hn:o:", .help = help,
                  .operands = -1};
    int opt;
    while ((opt = cli_loop_next(&l, argc, argv)) != -1) {
        switch (opt) {
        case 'p':
            so.preset = optarg;
            preset_given = true;
            break;
        case 'n':
            if (!cli_parse_u64(optarg, &so.n) || so.n == 0)
                return cli_usage_error("synth", "-n needs a positive count, got '%s'", optarg);
            n_given = true;
            break;
        case 't':
            traces = optarg;
            break;
        case 's':
            if (!cli_parse_u64(optarg, &so.seed))
                return cli_usage_error("synth", "--seed needs a non-negative integer, got '%s'",
                                       optarg);
            break;
        case 'o':
            output = optarg;
            break;
        case 'C':
            ncu = optarg;
            break;
        case 'B':
            bbv = optarg;
            break;
        }
    }
    if (l.exit >= 0)
        return l.exit;
    if (optind != argc)
        return cli_usage_error("synth", "unexpected argument '%s'", argv[optind]);
    if (traces && strcmp(output, "-") != 0)
        return cli_usage_error("synth", "-o is the workload CSV of synth without --traces; "
                                        "--traces %s writes its time profile as %s/time.csv",
                               traces, traces);
    if ((ncu || bbv) && strcmp(output, "-") == 0 && !traces)
        return cli_usage_error("synth", "--ncu and --bbv need the workload in a file (-o FILE)");
    /* no inputs, but its outputs must be distinct (and none inside the
     * trace folder, whose files are the command's) */
    const char *outputs[] = {traces ? traces : output, ncu, bbv};
    int rc = cli_check_outputs("synth", outputs, 3, NULL, 0);
    if (rc)
        return rc;
    ks_error err;
    ks_error_clear(&err);
    if (traces) {
        ks_synth_traces_options to = {.seed = so.seed,
                                      .preset = preset_given ? so.preset : "mixed"};
        to.launches = n_given ? so.n : ks_synth_traces_default_launches(to.preset);
        if (!n_given && to.launches == 0)
            to.launches = 1; /* an unknown preset: the library names the known ones */
        if (ks_synth_traces_write(traces, &to, &err) != KS_OK)
            return cli_fail(&err);
        /* Nsight Compute metrics for the traced launches too, so that PKA can be
         * compared with the trace-based methods on one workload */
        char time_csv[4096];
        snprintf(time_csv, sizeof time_csv, "%s/time.csv", traces);
        return ncu || bbv ? write_features(time_csv, ncu, bbv, so.seed) : 0;
    }
    bool zst = ends_with(output, ".zst");
    if (ends_with(output, ".gz") || ends_with(output, ".xz"))
        return cli_usage_error("synth", "%s: synth writes plain CSV, or zstd-compressed CSV to a "
                                        "name ending in .zst, not %s",
                               output, strrchr(output, '.'));
    double bytes = (double)so.n * SYNTH_CSV_BYTES_PER_LAUNCH;
    if (!zst && bytes >= SYNTH_LARGE_BYTES && strcmp(output, "-") != 0) {
        char count[32];
        fprintf(stderr,
                "ksample synth: note: about %.1f GB of CSV for %s launches; -o %s.zst "
                "writes it compressed (about 8x smaller), and every command reads it so\n",
                bytes / 1e9, cli_count_u64(count, sizeof count, so.n), output);
    }
    if (ks_write_atomic(output, zst ? write_synth_zst : write_synth, &so, &err) != KS_OK)
        return cli_fail(&err);
    return ncu || bbv ? write_features(output, ncu, bbv, so.seed) : 0;
}
