/*
 * fuzz_nsys_parallel.c - a differential target: the nsys CSV readers with
 * one thread and one block must give exactly what they give with several
 * threads, tiny blocks and (optionally) the general parser for every line:
 * the same profile, or the same error at the same line.  Tiny blocks make a
 * few hundred bytes of input cross many block boundaries, the paths a large
 * file takes.
 */
#include "fuzz_input.h"

typedef struct outcome {
    ks_status st;
    ks_error err;
    ks_profile *p;
} outcome;

static outcome read_nsys(const uint8_t *data, size_t size, bool kern_exec,
                         const ks_lines_options *lines)
{
    outcome o = {KS_OK, {0}, NULL};
    ks_error_clear(&o.err);
    ks_input *in;
    if ((o.st = ks_input_open_memory(data, size, "fuzz-input", &in, &o.err)) != KS_OK)
        abort();
    ks_read_options opt;
    ks_read_options_init(&opt);
    opt.keep_start = true; /* compared too */
    o.p = ks_profile_new();
    if (!o.p)
        abort();
    o.st = kern_exec ? ks_read_nsys_kern_exec_csv(in, &opt, lines, o.p, &o.err)
                     : ks_read_nsys_gpu_trace_csv(in, &opt, lines, o.p, &o.err);
    ks_input_close(in);
    return o;
}

static void same_column(const void *a, const void *b, size_t bytes)
{
    if ((a == NULL) != (b == NULL) || (a && memcmp(a, b, bytes) != 0))
        abort();
}

static void same_outcome(const outcome *a, const outcome *b)
{
    if (a->st != b->st)
        abort();
    if (a->st != KS_OK) {
        if (a->err.line != b->err.line || strcmp(a->err.message, b->err.message) != 0)
            abort();
        return;
    }
    const ks_profile *x = a->p, *y = b->p;
    if (x->n != y->n || x->name_count != y->name_count || x->metric_count != y->metric_count)
        abort();
    for (size_t i = 0; i < x->name_count; i++)
        if (strcmp(x->names[i], y->names[i]) != 0)
            abort();
    size_t n = x->n;
    same_column(x->duration_ns, y->duration_ns, n * 8);
    same_column(x->name_id, y->name_id, n * 4);
    same_column(x->start_ns, y->start_ns, n * 8);
    same_column(x->dims_id, y->dims_id, n * 4);
    if (x->dims_count != y->dims_count)
        abort();
    same_column(x->dims, y->dims, x->dims_count * 24);
    same_column(x->stream, y->stream, n * 4);
    same_column(x->device, y->device, n * 4);
    same_column(x->correlation, y->correlation, n * 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    /* byte 0: reader, thread count, general parser; byte 1: block size */
    bool kern_exec = data[0] & 1;
    int threads = 2 + (data[0] >> 1 & 3);
    bool slow_only = data[0] >> 3 & 1;
    size_t block = 1 + (size_t)data[1] * 4;
    /* one block that holds the whole input (no larger: a 1 MiB buffer per
     * input was most of this target's time under ASan) */
    ks_lines_options one = {1, size, NULL, false};
    ks_lines_options many = {threads, block, NULL, slow_only};
    outcome a = read_nsys(data + 2, size - 2, kern_exec, &one);
    outcome b = read_nsys(data + 2, size - 2, kern_exec, &many);
    same_outcome(&a, &b);
    ks_profile_free(a.p);
    ks_profile_free(b.p);
    return 0;
}
