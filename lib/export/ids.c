/*
 * ids.c - one sampled launch id per line, 0-based in launch order: the
 * kernel_ids.txt that Sieve's modified NVBit tracer reads.  No header or
 * comment line: that reader takes every line as a number.
 */
#include "export.h"

static ks_status write_ids(const void *ctx, FILE *f, ks_error *err)
{
    const ks_plan *plan = ctx;
    for (size_t i = 0; i < plan->sample_count; i++)
        fprintf(f, "%llu\n", (unsigned long long)plan->samples[i].id);
    return KS_OK; /* ks_write_atomic reports a failed write, naming the file */
}

KS_FILE_EXPORTER(ks_exporter_ids, "ids",
                 "one 0-based launch id per line, no header (Sieve's tracer: kernel_ids.txt)",
                 write_ids);
