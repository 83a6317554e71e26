/* cli_run_warm.c - what `ksample run` (cmd_run.c, cli_run.c) checks and says
 * of the rebuilt warm state's carriers: whether state:memcpy32's remap
 * applies to the configuration and the program's footprint, and which
 * sampled launches' states the traced launches left short of the cut. */
#include "cli_run.h"

#include <stdio.h>
#include <string.h>

/* state:memcpy32: whether the configuration's address functions have a
 * 32-bit remap and the program's footprint stays apart under it; else the
 * warm-up kernel, saying why (before the jobs are described: the kernel is
 * a listed launch, the copies are not). */
int cli_run_check_memcpy32(run_args *a, bool macsim)
{
    ks_state_remap_report rep;
    ks_error err;
    ks_error_clear(&err);
    if (macsim)
        rep = (ks_state_remap_report){.why = "MacSim takes no memory-copy lines"};
    else if (ks_state_remap_check(a->traces, &a->warmup, &rep, &err) != KS_OK) {
        if (a->warmup.carrier_given)
            return cli_fail(&err);
        /* the default: what stops the remap is the reason to use the kernel */
        rep = (ks_state_remap_report){0};
        snprintf(rep.why, sizeof rep.why, "%.200s%s%.380s", err.file, err.file[0] ? ": " : "",
                 err.message);
    }
    const char *name = a->warmup.carrier == KS_STATE_SPLIT ? "state:split" : "state:memcpy32";
    if (!rep.usable) {
        fprintf(stderr, "ksample: note: %s does not apply (%s): the state goes in a warm-up "
                        "kernel instead (state:kernel)\n",
                name, rep.why);
        a->warmup.carrier = KS_STATE_KERNEL;
    } else if (!a->quiet && a->warmup.carrier == KS_STATE_SPLIT) {
        fprintf(stderr,
                "ksample: run: state:split%s: the configuration reads address bits up to %d; "
                "the program's %llu lines stay apart in 32 bits: copies (no warm-up cycle) "
                "and each launch's trace go in that address space, and a warm-up kernel "
                "only where the launch's misses can evict dirty lines\n",
                a->warmup.carrier_given ? "" : " (the default)", rep.max_bit,
                (unsigned long long)rep.lines);
        return 0;
    } else if (!a->quiet && a->warmup.carrier == KS_STATE_MEMCPY32_STORES) {
        fprintf(stderr,
                "ksample: run: state:memcpy32+stores: the configuration reads address bits up "
                "to %d; the program's %llu lines stay apart in 32 bits: copies, each "
                "launch's trace and a kernel storing the dirty lines go in that address "
                "space (the rewritten launch alone took the original's cycles on every "
                "launch measured: docs/bench.md)\n",
                rep.max_bit, (unsigned long long)rep.lines);
        return 0;
    } else if (!a->quiet)
        fprintf(stderr,
                "ksample: run: state:memcpy32: the configuration reads address bits up to "
                "%d%s; the program's %llu lines stay apart in 32 bits: copies and each "
                "launch's trace go in that address space (zero-cycle prefill on a stock "
                "build; the rewritten launch alone took the original's cycles on every "
                "launch measured: docs/bench.md)\n",
                rep.max_bit, rep.read_high ? " (those above 31 kept by low bits)" : "",
                (unsigned long long)rep.lines);
    return 0;
}

void cli_run_default_carrier(const run_state *s, run_args *a)
{
    ks_warmup earlier;
    ks_error err;
    if (s->has_previous && s->previous.warmup &&
        strncmp(s->previous.warmup, "state:", 6) == 0 &&
        ks_warmup_parse(s->previous.warmup, &earlier, &err) == KS_OK)
        a->warmup.carrier = earlier.carrier;
    else
        a->warmup.carrier = s->macsim ? KS_STATE_KERNEL : KS_STATE_SPLIT;
}

/* Where the trace folder lacks launches the tracer numbered (a tracer told
 * to record only some), the states the traced launches do not fill to the
 * cut: which launches, and how many of the cut's lines each lacked at most
 * (the lines used since the latest missing launch fall short by that). */
void cli_run_say_short_states(const ks_state_report *rep)
{
    if (!rep->short_launches)
        return;
    fprintf(stderr,
            "ksample: note: warm state cut short by launches missing from the traces in %zu "
            "of %zu sampled launches (up to %llu lines of the cut lacked): the full run's L2 "
            "holds lines they would have given, so those launches may run slower than in "
            "context; trace more launches before them (export --to accelsim-tracer "
            "--warmup state --state-window N or all):",
            rep->short_launches, rep->launches, (unsigned long long)rep->short_lines_max);
    for (size_t k = 0; k < rep->short_launches && k < KS_STATE_SHORT_LISTED; k++)
        fprintf(stderr, "%s launch %llu: %llu lines (launch %llu missing)",
                k ? ";" : "", (unsigned long long)rep->short_launch[k],
                (unsigned long long)rep->short_lines[k], (unsigned long long)rep->short_missing[k]);
    fprintf(stderr, "%s\n", rep->short_launches > KS_STATE_SHORT_LISTED ? "; ..." : "");
}
