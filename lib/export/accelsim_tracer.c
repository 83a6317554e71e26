/*
 * accelsim_tracer.c - the environment for Accel-Sim's NVBit tracer so that
 * it records only the sampled launches: DYNAMIC_KERNEL_REGIONS, a list of
 * 1-based inclusive ranges ("1-2,4-4"), adjacent ids merged into one range.
 * Plan id i (0-based launch order) is the tracer's launch i + 1.  Written as
 * a shell file to source before running the program under the tracer.
 */
#include "export.h"

static ks_status write_env(const void *ctx, FILE *f, ks_error *err)
{
    const ks_plan *plan = ctx;
    fprintf(f,
            "# ksample plan (%s, %zu of %llu launches) of %s\n"
            "# DYNAMIC_KERNEL_REGIONS counts launches from 1: plan id i (0-based launch\n"
            "# order) is launch i+1 here.  Use: . ./this-file, then run the program\n"
            "# under the tracer.\n",
            plan->method, plan->sample_count, (unsigned long long)plan->input_invocations,
            plan->input_path[0] ? plan->input_path : "(unknown input)");
    fputs("export DYNAMIC_KERNEL_REGIONS=", f);
    for (size_t i = 0; i < plan->sample_count;) {
        size_t j = i;
        while (j + 1 < plan->sample_count && plan->samples[j + 1].id == plan->samples[j].id + 1)
            j++;
        fprintf(f, "%s%llu-%llu", i ? "," : "", (unsigned long long)plan->samples[i].id + 1,
                (unsigned long long)plan->samples[j].id + 1);
        i = j + 1;
    }
    fputc('\n', f);
    return KS_OK;
}

KS_FILE_EXPORTER(ks_exporter_accelsim_tracer, "accelsim-tracer",
                 "shell environment for Accel-Sim's NVBit tracer: DYNAMIC_KERNEL_REGIONS (1-based)",
                 write_env);
