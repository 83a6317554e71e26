/*
 * bench_read.c - how fast a large profile is read, on one thread and on
 * several, against the time to just read (and decompress) its bytes.
 *
 * usage: bench_read PROFILE [THREADS [BLOCK_BYTES [REPEATS]]]
 *        bench_read --bytes PROFILE [REPEATS]
 * THREADS 0 (default) is the library's default (one per CPU); 1 reads on
 * the calling thread; KS_SLOW_ONLY=1 in the environment turns the readers'
 * fast path off (every line split by ks_csv_split), to measure what it buys.  Prints one line per repeat of key=value pairs: wall
 * seconds, CPU seconds (user and system), MB/s of the file as stored, and
 * the blocks and threads the reader used.  --bytes times a plain pass over
 * the decompressed bytes instead (ks_input_read into a buffer, and the
 * digest): the floor any reader pays on one thread.
 */
#include "internal.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static void cpu(double *user, double *sys)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
    *sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static int fail(const ks_error *err)
{
    char buf[1200];
    ks_error_format(err, buf, sizeof buf);
    fprintf(stderr, "bench_read: %s\n", buf);
    return 4;
}

/* The reader for this file, chosen by content as ks_profile_read does (only
 * the two nsys CSV readers run on blocks). */
static ks_status read_profile(const char *path, const ks_lines_options *lines, ks_profile *p,
                              ks_error *err)
{
    ks_input *in;
    const char *head;
    size_t len;
    ks_read_options opt;
    ks_read_options_init(&opt);
    ks_status st = ks_input_open_peek(path, &in, &head, &len, err);
    if (st != KS_OK)
        return st;
    if (ks_reader_nsys_kern_exec_csv.detect(head, len, path) >=
        ks_reader_nsys_gpu_trace_csv.detect(head, len, path))
        st = ks_read_nsys_kern_exec_csv(in, &opt, lines, p, err);
    else
        st = ks_read_nsys_gpu_trace_csv(in, &opt, lines, p, err);
    if (st == KS_OK)
        st = ks_input_finish_digest(in, p->source_xxh128, &p->source_bytes, err);
    ks_input_close(in);
    return st;
}

static ks_status read_bytes(const char *path, uint64_t *total, ks_error *err)
{
    ks_input *in;
    ks_status st = ks_input_open(path, &in, err);
    if (st != KS_OK)
        return st;
    enum { CHUNK = 4 << 20 };
    char *buf = malloc(CHUNK);
    *total = 0;
    size_t got = 1;
    while (buf && st == KS_OK && got > 0) {
        st = ks_input_read(in, buf, CHUNK, &got, err);
        *total += got;
    }
    char hex[33];
    uint64_t bytes;
    if (st == KS_OK)
        st = ks_input_finish_digest(in, hex, &bytes, err);
    free(buf);
    ks_input_close(in);
    return st;
}

int main(int argc, char **argv)
{
    bool bytes_only = argc > 1 && strcmp(argv[1], "--bytes") == 0;
    if (bytes_only) {
        argv++;
        argc--;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: bench_read PROFILE [THREADS [BLOCK_BYTES [REPEATS]]]\n"
                        "       bench_read --bytes PROFILE [REPEATS]\n");
        return 2;
    }
    ks_lines_stats stats = {0, 0};
    ks_lines_options lines = {0, 0, &stats, getenv("KS_SLOW_ONLY") != NULL};
    int repeats = 1;
    if (bytes_only) {
        repeats = argc > 2 ? atoi(argv[2]) : 1;
    } else {
        lines.threads = argc > 2 ? atoi(argv[2]) : 0;
        lines.block_bytes = argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 0;
        repeats = argc > 4 ? atoi(argv[4]) : 1;
    }
    struct stat sb;
    if (stat(argv[1], &sb) != 0) {
        perror(argv[1]);
        return 3;
    }
    double mb = (double)sb.st_size / 1e6;
    ks_error err;
    ks_error_clear(&err);
    for (int r = 0; r < (repeats > 0 ? repeats : 1); r++) {
        double u0, s0, u1, s1;
        cpu(&u0, &s0);
        double t0 = bench_now();
        if (bytes_only) {
            uint64_t total;
            if (read_bytes(argv[1], &total, &err) != KS_OK)
                return fail(&err);
            double wall = bench_now() - t0;
            cpu(&u1, &s1);
            printf("bytes wall_s=%.3f user_s=%.3f sys_s=%.3f MBps=%.1f decompressed=%llu\n",
                   wall, u1 - u0, s1 - s0, mb / wall, (unsigned long long)total);
            continue;
        }
        ks_profile *p = ks_profile_new();
        if (!p)
            return 5;
        if (read_profile(argv[1], &lines, p, &err) != KS_OK)
            return fail(&err);
        double wall = bench_now() - t0;
        cpu(&u1, &s1);
        printf("read threads=%d blocks=%zu wall_s=%.3f user_s=%.3f sys_s=%.3f MBps=%.1f "
               "invocations=%zu names=%zu\n",
               stats.threads, stats.blocks, wall, u1 - u0, s1 - s0, mb / wall, p->n,
               p->name_count);
        ks_profile_free(p);
    }
    return 0;
}
